/* ops/ml/linear.c: ai.onnx.ml linear models, Normalizer and Scaler. */
#include "core/registry.h"

const ox_kernel ox_ml_linear_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
