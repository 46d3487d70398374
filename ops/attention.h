/* ops/attention.h: the attention core of ops/attention.c (Attention-23 to 25),
 * which onnxruntime's com.microsoft attention operators share
 * (ops/contrib_transformer.c): one (batch, query head) at a time,
 *
 *   scores (S, T) = scale * Q (S, D) · K^T (D, T)
 *   per row: softcap, the additive bias, the keys masked (causal frontier,
 *     left window, valid keys), softmax (with a sink logit, optionally)
 *   Y (S, Dv) = P (S, T) · V (T, Dv)
 *
 * in float. Query head h reads key/value head h / (Hq / Hkv). Every operand
 * is addressed through element strides of (batch, head, position), its rows
 * (one head of one position) contiguous, so packed and transposed layouts
 * are read in place. */
#ifndef OX_OPS_ATTENTION_H
#define OX_OPS_ATTENTION_H

#include "core/registry.h"

typedef struct {
  int64_t B, Hq, Hkv, S, T, D, Dv;    /* T: the keys (the scores' columns) */
  int64_t qs[3], ks[3], vs[3], ys[3]; /* element strides of (batch, head, position) */
  double scale, softcap;              /* softcap 0: none */
  int causal;                         /* keys after the query's position are masked */
  int64_t past;                       /* the first query's position (the causal offset) */
  const int64_t *pastb;               /* (B,) that offset per batch, or NULL: past */
  const int64_t *nkeys;               /* (B,) keys 0 .. nkeys[b]-1 valid, the rest masked; or NULL */
  int64_t left;                       /* keys more than `left` before the query masked; -1: none */
  const float *bias;                  /* an additive bias, or NULL */
  int64_t bs[4], blen;                /* its strides over (b, h, i, j); keys j >= blen masked */
  const float *sink;                  /* (Hq,) smooth softmax's extra logit per head, or NULL */
  int qk_mode;                        /* what qk (B, Hq, S, T) receives: 0 the scores, 1 after
                                       * softcap, 2 after the bias (masked keys -inf), 3 the
                                       * probabilities, 4 as 2 with the masked keys 0 */
  int zero_masked_rows;               /* a row with every key masked gives zeros */
} ox_att_args;

/* y (through ys) and qk (NULL: not wanted; else zeroed, (B, Hq, S, T)) from
 * q, k, v. 0, or an error in c->err. */
int ox_attention_f32(ox_ctx *c, const ox_att_args *a, const float *q, const float *k, const float *v, float *y,
                     float *qk);

#endif
