/* ops/twins.h: ai.onnx kernels that onnxruntime's com.microsoft rows (and
 * its own ai.onnx registrations) compute through as well: one kernel, two
 * rows, so a contrib operator is as fast as its ai.onnx twin. The attention
 * core has its own header (ops/attention.h). */
#ifndef OX_OPS_TWINS_H
#define OX_OPS_TWINS_H

#include "core/registry.h"

/* ---- rotary embedding (ops/transformer.c: RotaryEmbedding-23) ----
 * x, y: heads of D values at element offset b * st[0] + h * st[1] + s *
 * st[2]; the first rd (even) of each rotate in pairs by the cache row
 * rows[b * S + s] of cos and sin (cw elements a row):
 *   x1' = cos * x1 - sin * x2,   x2' = sin * x1 + cos * x2
 * the rest are copied (left alone when y is x). */
typedef struct {
  int64_t B, H, S, D, rd;
  int interleaved;      /* pairs (2i, 2i + 1) instead of (i, i + rd/2) */
  int64_t st[3];
  const float *cos, *sin;
  int64_t cw;
  const int64_t *rows;
} ox_rope;
void ox_rope_f32(const ox_rope *r, const float *x, float *y);

/* ---- Gelu (ops/unary.c: Gelu-20) ----
 * y = Gelu(x), the erf form or (tanh_form) the tanh approximation, over n
 * floats (y may be x): Gelu-20's own loops. */
void ox_gelu_f32(const float *x, float *y, int64_t n, int tanh_form);
/* The row kernels themselves: Gelu-20 (com.microsoft Gelu, which has no
 * attribute, is its "none" form) and ThresholdedRelu (the experimental
 * ThresholdedRelu-1 is ThresholdedRelu-10). */
int ox_gelu_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
int ox_thresholded_relu_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
/* and their load hooks, which a row with the kernel names too */
int ox_gelu_load(ox_ctx *c, void **state);
int ox_thresholded_relu_load(ox_ctx *c, void **state);

/* ---- layer normalizations (ops/norm.c) ----
 * LayerNormalization-17's kernel (onnxruntime's LayerNormalization-1 in
 * ai.onnx) and RMSNormalization-23's (onnxruntime's
 * SimplifiedLayerNormalization-1, whose output 1 is inv_std_var). */
int ox_layernorm_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
int ox_rmsnorm_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
/* the load hook of both (axis, epsilon, stash_type) */
int ox_layernorm_load(ox_ctx *c, void **state);

/* ---- Slice (ops/tensor.c) ----
 * Slice-10's kernel at any opset: the experimental DynamicSlice-1. */
int ox_slice10_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
int ox_slice10_load(ox_ctx *c, void **state);

/* ---- quantization, products, convolution ----
 * The row kernels of QuantizeLinear, DequantizeLinear and
 * DynamicQuantizeLinear (ops/quant.c, each at c->version), MatMul,
 * MatMulInteger and Gemm (ops/matmul.c) and Conv (ops/conv.c), which
 * onnxruntime's com.microsoft rows run too (ops/contrib_quant.c,
 * ops/contrib_fused.c). */
int ox_quantize_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
int ox_dequantize_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
int ox_dynamic_quantize_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
int ox_matmul_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
/* MatMulInteger's kernel given its load hook's state (state NULL: B packed
 * per call; c->state is the calling row's), and that hook (a constant 2-D
 * B packed once, for a uint8 A), for a row whose input 1 is B too
 * (MatMulIntegerToFloat, DynamicQuantizeMatMul): the packed B serves when
 * in[1] is its tensor, the same bytes either way. */
int ox_matmul_integer_prepared_k(ox_ctx *c, const void *state, int nin, ox_value **in, ox_value **out);
int ox_matmul_integer_load(ox_ctx *c, void **state);
/* the same hook for a row whose B is its input bi (QLinearMatMul: 3) */
int ox_matmul_integer_load_b(ox_ctx *c, int bi, void **state);
int ox_gemm_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
int ox_conv_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);
/* and their load hooks (the state those kernels read as c->state), which
 * a row that calls the kernel runs at the kernel's version: QuantizeLinear's
 * and DequantizeLinear's, MatMul's, Gemm's and Conv's */
int ox_quant_load(ox_ctx *c, void **state);
int ox_matmul_load(ox_ctx *c, void **state);
int ox_gemm_load(ox_ctx *c, void **state);
int ox_conv_load(ox_ctx *c, void **state);

#endif
