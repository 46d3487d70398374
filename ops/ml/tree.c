/* ops/ml/tree.c: ai.onnx.ml tree ensembles. */
#include "core/registry.h"

const ox_kernel ox_ml_tree_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
