/* ops/contrib_fused.c: onnxruntime's com.microsoft fused operators. */
#include "core/kernel.h"

const ox_kernel ox_contrib_fused_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  {0},
};
