/* ops/contrib_transformer.c: onnxruntime's com.microsoft transformer
 * operators, as its docs/ContribOperators.md and CPU kernels define them. */
#include "core/kernel.h"

const ox_kernel ox_contrib_transformer_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  {0},
};
