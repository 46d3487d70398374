/* ops/transformer.c: RotaryEmbedding, SwiGLU, LinearAttention and CausalConvWithState. */
#include "core/registry.h"

const ox_kernel ox_transformer_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
