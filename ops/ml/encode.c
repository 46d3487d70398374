/* ops/ml/encode.c: ai.onnx.ml feature and label encoders. */
#include "core/registry.h"

const ox_kernel ox_ml_encode_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
