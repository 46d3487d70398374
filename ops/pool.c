/* ops/pool.c: pooling. */
#include "core/kernel.h"

const ox_kernel ox_pool_kernels[] = {
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
