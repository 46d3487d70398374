/* ops/attention.c: Attention (opset 23, 24) and FlexAttention (ai.onnx.preview). */
#include "core/registry.h"

const ox_kernel ox_attention_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
