/* tests/unit/test_transformer.c: RotaryEmbedding, SwiGLU, CausalConvWithState
 * and LinearAttention, called through the registry with a hand-made node.
 * Expected values are worked out by hand in the comments. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KIT_IN_NAMES {"x", "a", "b", "c", "d", "e"}
#define KIT_OUT_NAMES {"y", "st"}
#include "kit.h"

#define DIMS(...) (int64_t[]){__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, dims, (float[])__VA_ARGS__)
#define I64(rank, dims, ...) tensor(OX_INT64, rank, dims, (int64_t[])__VA_ARGS__)

#define CHECK_F32(v, n, ...) CHECK(close_f32(v, n, (float[])__VA_ARGS__, 1e-6, 1e-6))

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               int nout, ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, nout, out);
}

static void test_rotary(void) {
  /* cache row 0: angle 0 (identity); row 1: angle 90 degrees, x1' = -x2, x2' = x1 */
  ox_value *cs = F32(2, DIMS(2, 2), {1, 1, 0, 0}), *sn = F32(2, DIMS(2, 2), {0, 0, 1, 1});
  ox_value *x = F32(4, DIMS(1, 1, 2, 4), {1, 2, 3, 4, 1, 2, 3, 4}); /* (B, H, S, D) */
  ox_value *pos = I64(2, DIMS(1, 2), {0, 1}), *out[1];
  ox_value *in[] = {x, cs, sn, pos};
  /* halves (1, 2), (3, 4) at s = 1: (-3, -4, 1, 2) */
  CHECK_EQ_I(run("RotaryEmbedding", 23, 0, NULL, 4, in, 1, out), 0);
  CHECK_F32(out[0], 8, {1, 2, 3, 4, -3, -4, 1, 2});
  /* interleaved pairs (1, 2), (3, 4): (-2, 1, -4, 3) */
  ox_attr il[] = {attr_int("interleaved", 1)};
  CHECK_EQ_I(run("RotaryEmbedding", 23, 1, il, 4, in, 1, out), 0);
  CHECK_F32(out[0], 8, {1, 2, 3, 4, -2, 1, -4, 3});
  /* partial: rd = 2 rotates (1, 2) only; a cache wider than rd/2 is sliced */
  ox_attr rd[] = {attr_int("rotary_embedding_dim", 2)};
  CHECK_EQ_I(run("RotaryEmbedding", 23, 1, rd, 4, in, 1, out), 0);
  CHECK_F32(out[0], 8, {1, 2, 3, 4, -2, 1, 3, 4});
  /* 3-D (B, S, H * D) with 2 heads of 2: each head (a, b) -> (-b, a) at s = 1;
   * position_ids (1, 2) broadcast over a batch of 2 */
  ox_value *x3 = F32(3, DIMS(2, 2, 4), {1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8});
  ox_value *c1 = F32(2, DIMS(2, 1), {1, 0}), *s1 = F32(2, DIMS(2, 1), {0, 1});
  ox_value *in3[] = {x3, c1, s1, pos};
  ox_attr nh[] = {attr_int("num_heads", 2)};
  CHECK_EQ_I(run("RotaryEmbedding", 23, 1, nh, 4, in3, 1, out), 0);
  CHECK_F32(out[0], 16, {1, 2, 3, 4, -2, 1, -4, 3, 5, 6, 7, 8, -6, 5, -8, 7});
  /* without position_ids the caches are (B, S, rd/2) */
  ox_value *c3 = F32(3, DIMS(1, 2, 2), {1, 1, 0, 0}), *s3 = F32(3, DIMS(1, 2, 2), {0, 0, 1, 1});
  ox_value *in4[] = {x, c3, s3};
  CHECK_EQ_I(run("RotaryEmbedding", 23, 0, NULL, 3, in4, 1, out), 0);
  CHECK_F32(out[0], 8, {1, 2, 3, 4, -3, -4, 1, 2});
  /* bfloat16 in, bfloat16 out (these values are exact) */
  uint16_t hb[8], hc[4], hs[4];
  const float xv[8] = {1, 2, 3, 4, 1, 2, 3, 4}, cv[4] = {1, 1, 0, 0}, sv[4] = {0, 0, 1, 1};
  for (int i = 0; i < 8; i++) hb[i] = ox_f32_to_bf16(xv[i]);
  for (int i = 0; i < 4; i++) hc[i] = ox_f32_to_bf16(cv[i]), hs[i] = ox_f32_to_bf16(sv[i]);
  ox_value *inb[] = {tensor(OX_BFLOAT16, 4, DIMS(1, 1, 2, 4), hb), tensor(OX_BFLOAT16, 2, DIMS(2, 2), hc),
                     tensor(OX_BFLOAT16, 2, DIMS(2, 2), hs), pos};
  CHECK_EQ_I(run("RotaryEmbedding", 23, 0, NULL, 4, inb, 1, out), 0);
  CHECK(out[0] && out[0]->u.t.dt == OX_BFLOAT16 && ox_bf16_to_f32(((uint16_t *)out[0]->u.t.data)[4]) == -3);
  /* errors: a position beyond the cache, an odd rotary dim, 3-D X without num_heads */
  ox_value *bad[] = {x, cs, sn, I64(2, DIMS(1, 2), {0, 2})};
  CHECK(run("RotaryEmbedding", 23, 0, NULL, 4, bad, 1, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "position_ids holds 2") != NULL);
  ox_attr rd3[] = {attr_int("rotary_embedding_dim", 3)};
  CHECK(run("RotaryEmbedding", 23, 1, rd3, 4, in, 1, out) == OX_EINPUT);
  CHECK(run("RotaryEmbedding", 23, 0, NULL, 4, in3, 1, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "num_heads") != NULL);
  ox_value *mis[] = {x, cs, s3, pos}; /* cos and sin of different shapes */
  CHECK(run("RotaryEmbedding", 23, 0, NULL, 4, mis, 1, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "input 1 'a'") != NULL && strstr(E.msg, "input 2 'b'") != NULL);
}

static void test_swiglu(void) {
  /* y = a * sigmoid(alpha * a) * b */
  double av[3] = {0, 1, -2}, bv[3] = {5, 2, 3};
  ox_value *in[] = {tensor(OX_DOUBLE, 1, DIMS(3), av), tensor(OX_DOUBLE, 1, DIMS(3), bv)}, *out[1];
  CHECK_EQ_I(run("SwiGLU", 28, 0, NULL, 2, in, 1, out), 0);
  const double *y = out[0]->u.t.data;
  CHECK(out[0]->u.t.dt == OX_DOUBLE && y[0] == 0 && fabs(y[1] - 2 / (1 + exp(-1.0))) < 1e-15 &&
        fabs(y[2] - -6 / (1 + exp(2.0))) < 1e-15);
  ox_attr al[] = {attr_float("alpha", 2)};
  ox_value *inf[] = {F32(1, DIMS(2), {1, -1}), F32(1, DIMS(2), {1, 1})};
  CHECK_EQ_I(run("SwiGLU", 28, 1, al, 2, inf, 1, out), 0);
  CHECK_F32(out[0], 2, {(float)(1 / (1 + exp(-2.0))), (float)(-1 / (1 + exp(2.0)))});
  ox_value *bad[] = {F32(1, DIMS(2), {1, -1}), F32(2, DIMS(2, 1), {1, 1})};
  CHECK(run("SwiGLU", 28, 0, NULL, 2, bad, 1, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "broadcast") != NULL);
}

static void test_causal_conv(void) {
  /* x (1, 1, 2) = {1, 2}, w = {1, 10, 100}, past = {3, 4}: p = {3, 4, 1, 2},
   * y = {3 + 40 + 100, 4 + 10 + 200} + bias 1; state = {1, 2} */
  ox_value *x = F32(3, DIMS(1, 1, 2), {1, 2}), *w = F32(3, DIMS(1, 1, 3), {1, 10, 100});
  ox_value *b = F32(1, DIMS(1), {1}), *past = F32(3, DIMS(1, 1, 2), {3, 4}), *out[2];
  ox_value *in[] = {x, w, b, past};
  CHECK_EQ_I(run("CausalConvWithState", 27, 0, NULL, 4, in, 2, out), 0);
  CHECK_F32(out[0], 2, {144, 215});
  CHECK_F32(out[1], 2, {1, 2});
  /* an input shorter than k - 1, no past: p = {0, 0, 5}; state {0, 5} */
  ox_value *in1[] = {F32(3, DIMS(1, 1, 1), {5}), w};
  CHECK_EQ_I(run("CausalConvWithState", 27, 0, NULL, 2, in1, 2, out), 0);
  CHECK_F32(out[0], 1, {500});
  CHECK_F32(out[1], 2, {0, 5});
  /* silu: y * sigmoid(y), y = 1 * 0.5 with kernel size 1 (an empty state) */
  ox_attr si[] = {attr_str("activation", "swish")};
  ox_value *in2[] = {F32(3, DIMS(1, 1, 1), {0.5f}), F32(3, DIMS(1, 1, 1), {1})};
  CHECK_EQ_I(run("CausalConvWithState", 27, 1, si, 2, in2, 2, out), 0);
  CHECK_F32(out[0], 1, {(float)(0.5 / (1 + exp(-0.5)))});
  CHECK(out[1] && out[1]->u.t.rank == 3 && out[1]->u.t.dims[2] == 0);
  /* errors: an unknown activation, a past_state of the wrong length */
  ox_attr re[] = {attr_str("activation", "relu")};
  CHECK(run("CausalConvWithState", 27, 1, re, 2, in2, 2, out) == OX_EINPUT);
  ox_value *bad[] = {x, w, NULL, F32(3, DIMS(1, 1, 1), {3})};
  CHECK(run("CausalConvWithState", 27, 0, NULL, 4, bad, 2, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "k - 1") != NULL);
}

static void test_linear_attention(void) {
  /* B = 1, T = 2, Hq = 2, Hkv = 1 (two query heads share the state), dk = 2,
   * dv = 1, scale 1. k1 = (1, 0), v1 = 2; k2 = (0, 1), v2 = 3.
   * linear: S1 = (2, 0), S2 = (2, 3).
   * queries: t1 (1, 1), (1, 0) -> 2, 2; t2 (1, 1), (0, 1) -> 5, 3 */
  ox_value *q = F32(3, DIMS(1, 2, 4), {1, 1, 1, 0, 1, 1, 0, 1});
  ox_value *k = F32(3, DIMS(1, 2, 2), {1, 0, 0, 1}), *v = F32(3, DIMS(1, 2, 1), {2, 3}), *out[2];
  ox_attr at[] = {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 1), attr_float("scale", 1),
                  attr_str("update_rule", "linear")};
  ox_value *in[] = {q, k, v};
  CHECK_EQ_I(run("LinearAttention", 27, 4, at, 3, in, 2, out), 0);
  CHECK_F32(out[0], 4, {2, 2, 5, 3});
  CHECK_F32(out[1], 2, {2, 3});
  /* the default scale is 1 / sqrt(dk); past_state (1, 1, 2, 1) = (1, 1) adds
   * (1, 1) . q to every output */
  ox_value *inp[] = {q, k, v, F32(4, DIMS(1, 1, 2, 1), {1, 1})};
  CHECK_EQ_I(run("LinearAttention", 27, 3, (ox_attr[]){at[0], at[1], at[3]}, 4, inp, 2, out), 0);
  float r = (float)(1 / sqrt(2.0));
  CHECK_F32(out[0], 4, {4 * r, 3 * r, 7 * r, 4 * r});
  CHECK_F32(out[1], 2, {3, 4});
  /* gated, per-head decay ln 0.5: S1 = (2, 0), S2 = 0.5 S1 + (0, 3) = (1, 3) */
  float g = logf(0.5f);
  ox_value *ing[] = {q, k, v, NULL, F32(3, DIMS(1, 2, 1), {g, g})};
  at[3] = attr_str("update_rule", "gated");
  CHECK_EQ_I(run("LinearAttention", 27, 4, at, 5, ing, 2, out), 0);
  CHECK_F32(out[0], 4, {2, 2, 4, 3});
  /* per-key-dim decay (0, ln 0.5) at t2 halves S's second row only, which is
   * 0: S2 = (2, 3) as without decay */
  ox_value *ingk[] = {q, k, v, NULL, F32(3, DIMS(1, 2, 2), {0, 0, 0, g})};
  CHECK_EQ_I(run("LinearAttention", 27, 4, at, 5, ingk, 2, out), 0);
  CHECK_F32(out[0], 4, {2, 2, 5, 3});
  /* gated_delta, decay ln 0.5, beta 0.5, k2 = (1, 1):
   * S1 = 0.5 * (2 - 0) k1 = (1, 0)
   * t2: decayed S = (0.5, 0); retrieved k2 . S = 0.5; u = 0.5 * (3 - 0.5) = 1.25;
   * S2 = (0.5 + 1.25, 1.25) = (1.75, 1.25); outputs (1, 1) -> 3, (0, 1) -> 1.25;
   * t1: (1, 1) -> 1, (1, 0) -> 1 */
  ox_value *k2 = F32(3, DIMS(1, 2, 2), {1, 0, 1, 1});
  ox_value *ingd[] = {q, k2, v, NULL, F32(3, DIMS(1, 2, 1), {g, g}), F32(3, DIMS(1, 2, 1), {0.5f, 0.5f})};
  at[3] = attr_str("update_rule", "gated_delta");
  CHECK_EQ_I(run("LinearAttention", 27, 4, at, 6, ingd, 2, out), 0);
  CHECK_F32(out[0], 4, {1, 1, 3, 1.25f});
  CHECK_F32(out[1], 2, {1.75f, 1.25f});
  /* float16 activations with a float state: present_state stays float */
  uint16_t hq[8], hk[4], hv[2];
  const float qv[8] = {1, 1, 1, 0, 1, 1, 0, 1}, kv[4] = {1, 0, 0, 1}, vv[2] = {2, 3};
  for (int i = 0; i < 8; i++) hq[i] = ox_f32_to_f16(qv[i]);
  for (int i = 0; i < 4; i++) hk[i] = ox_f32_to_f16(kv[i]);
  for (int i = 0; i < 2; i++) hv[i] = ox_f32_to_f16(vv[i]);
  ox_value *inh[] = {tensor(OX_FLOAT16, 3, DIMS(1, 2, 4), hq), tensor(OX_FLOAT16, 3, DIMS(1, 2, 2), hk),
                     tensor(OX_FLOAT16, 3, DIMS(1, 2, 1), hv), F32(4, DIMS(1, 1, 2, 1), {0, 0})};
  at[3] = attr_str("update_rule", "linear");
  CHECK_EQ_I(run("LinearAttention", 27, 4, at, 4, inh, 2, out), 0);
  CHECK(out[0] && out[0]->u.t.dt == OX_FLOAT16 && ox_f16_to_f32(((uint16_t *)out[0]->u.t.data)[2]) == 5);
  CHECK_F32(out[1], 2, {2, 3});
  /* errors: the rule's inputs, head counts, shapes */
  CHECK(run("LinearAttention", 27, 4, at, 5, ing, 2, out) == OX_EINPUT); /* linear with decay */
  CHECK(strstr(E.msg, "forbids the decay") != NULL);
  at[3] = attr_str("update_rule", "delta");
  CHECK(run("LinearAttention", 27, 4, at, 3, in, 2, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "requires the beta") != NULL);
  ox_attr h3[] = {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 3), attr_str("update_rule", "linear")};
  CHECK(run("LinearAttention", 27, 3, h3, 3, in, 2, out) == OX_EINPUT);
  CHECK(run("LinearAttention", 27, 1, h3 + 2, 3, in, 2, out) == OX_EINPUT); /* no head counts */
  ox_value *badp[] = {q, k, v, F32(4, DIMS(1, 1, 1, 2), {0, 0})};
  CHECK(run("LinearAttention", 27, 3, (ox_attr[]){at[0], at[1], h3[2]}, 4, badp, 2, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "(batch, kv_num_heads, d_k, d_v)") != NULL);
}

int main(void) {
  A = ox_arena_new();
  test_rotary();
  test_swiglu();
  test_causal_conv();
  test_linear_attention();
  ox_arena_free(A);
  return check_done("transformer");
}
