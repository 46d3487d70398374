/* ops/ml/svm.c: ai.onnx.ml support vector machines. */
#include "core/registry.h"

const ox_kernel ox_ml_svm_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
