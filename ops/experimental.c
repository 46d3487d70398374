/* ops/experimental.c: ai.onnx's experimental operators, which onnx's
 * Changelog listed until onnx 1.5 removed them, and which onnxruntime still
 * runs for the models that use them (tests/op-versions-experimental.txt). */
#include "core/kernel.h"

const ox_kernel ox_experimental_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  {0},
};
