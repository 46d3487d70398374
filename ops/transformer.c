/* ops/transformer.c: RotaryEmbedding, SwiGLU, LinearAttention and CausalConvWithState.
 *
 * Every op here is defined on float, float16 and bfloat16 (SwiGLU on double
 * too). The small floats are widened to float once, the body runs on float,
 * and the result is rounded once on store; float tensors are read and
 * written in place. SwiGLU on double computes in double. LinearAttention
 * keeps its recurrent state in float whatever the state's element type, as
 * the spec's reference does. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/gemm.h"
#include "core/kernel.h"
#include "twins.h"

/* One rounding per operation and gcc's cheap vectoriser cost model, for
 * the row loops: the Makefile's ROW_FLAGS for this file. */

/* An optional input: *t is NULL when it is absent. */
/* One of float, float16, bfloat16 (for inputs the registry row does not check). */
static int float_type(ox_ctx *c, int i, const ox_tensor *t) {
  if (t->dt == OX_FLOAT || t->dt == OX_FLOAT16 || t->dt == OX_BFLOAT16) return 0;
  return ox_fail(c->err, OX_EINPUT, "%s is %s; it must be float, float16 or bfloat16",
                 ox_input_name(c, i), ox_dtypes[t->dt].onnx_name);
}

static int bad_shape(ox_ctx *c, int i, const ox_tensor *t, const char *want) {
  char b[96];
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must be %s", ox_input_name(c, i),
                 ox_shape_str(t->rank, t->dims, b, sizeof b), want);
}

/* t's data as float: the data itself for float, else a widened copy. */
static const float *f32_in(ox_ctx *c, const ox_tensor *t) {
  if (t->dt == OX_FLOAT) return t->data;
  return ox_widen_f32(c->a, t, c->err);
}

/* Where to compute t's values in float: its data for float, else scratch
 * that f32_done() rounds into t. */
static float *f32_out(ox_ctx *c, ox_tensor *t) {
  if (t->dt == OX_FLOAT) return t->data;
  float *f = ox_alloc_array(c->a, t->n + 1, sizeof *f);
  if (!f) ox_oom(c->err, NULL);
  return f;
}

static void f32_done(const float *f, ox_tensor *t) {
  if (t->dt != OX_FLOAT) ox_narrow_f32(f, t);
}

/* ---- RotaryEmbedding-23 ----
 * X: (B, H, S, D), or (B, S, H * D) with the num_heads attribute (ignored for
 * 4-D X, as the function body does). The first rd = rotary_embedding_dim (0:
 * D) of each head's D values rotate in pairs (x1, x2), the rest pass through:
 *   x1' = cos * x1 - sin * x2,   x2' = sin * x1 + cos * x2
 * the pairs being (i, i + rd/2) or, interleaved, (2i, 2i + 1), i < rd/2.
 * cos, sin: (P, >= rd/2) indexed by position_ids (B, S), or (B, S, >= rd/2)
 * without position_ids. The reference requires the caches' last dim to be
 * exactly rd/2; the function body slices the first rd/2 columns, which this
 * follows. The batch and sequence dims of position_ids (or of the 3-D caches)
 * may be 1 and broadcast, as both the reference and the function body allow. */
static int rotary(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *cs, *sn, *pos;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &cs));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &sn));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &pos));
  OX_TRY(ox_same_dtype(c, 1, cs, x->dt));
  OX_TRY(ox_same_dtype(c, 2, sn, x->dt));
  int64_t B, H, S, D, sb, sh, ss; /* element strides of b, h, s in X */
  if (x->rank == 4) { /* (B, H, S, D) */
    B = x->dims[0], H = x->dims[1], S = x->dims[2], D = x->dims[3];
    ss = D, sh = S * D, sb = H * S * D;
  } else if (x->rank == 3) { /* (B, S, H * D) */
    const ox_attr *a = ox_attr_find(c, "num_heads");
    if (!a) return ox_fail(c->err, OX_EINPUT, "%s is 3-D; the num_heads attribute must be given", ox_input_name(c, 0));
    H = ox_attr_int(c, "num_heads", 0);
    B = x->dims[0], S = x->dims[1];
    if (H <= 0 || x->dims[2] % H)
      return ox_fail(c->err, OX_EINPUT, "num_heads is %lld; it must be positive and divide X's last dim %lld",
                     (long long)H, (long long)x->dims[2]);
    D = x->dims[2] / H;
    sh = D, ss = H * D, sb = S * H * D;
  } else {
    return bad_shape(c, 0, x, "(batch, num_heads, seq, head_size) or (batch, seq, hidden)");
  }
  int64_t rd = ox_attr_int(c, "rotary_embedding_dim", 0);
  int inter = ox_attr_int(c, "interleaved", 0) != 0;
  if (rd == 0) rd = D;
  if (rd < 0 || rd > D || rd % 2)
    return ox_fail(c->err, OX_EINPUT,
                   "the rotary dimension is %lld (head_size %lld); it must be even and at most head_size",
                   (long long)rd, (long long)D);
  int64_t half = rd / 2;
  if (cs->rank != sn->rank || memcmp(cs->dims, sn->dims, (size_t)cs->rank * sizeof *cs->dims)) {
    char b1[96], b2[96], n1[320]; /* ox_input_name's buffer is reused */
    snprintf(n1, sizeof n1, "%s", ox_input_name(c, 1));
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s but %s has shape %s; they must match", n1,
                   ox_shape_str(cs->rank, cs->dims, b1, sizeof b1), ox_input_name(c, 2),
                   ox_shape_str(sn->rank, sn->dims, b2, sizeof b2));
  }
  int crank = pos ? 2 : 3;
  if (cs->rank != crank || cs->dims[crank - 1] < half) {
    char want[128];
    snprintf(want, sizeof want, pos ? "(max_position + 1, %lld) with position_ids"
                                    : "(batch, seq, %lld) without position_ids", (long long)half);
    return bad_shape(c, 1, cs, want);
  }
  int64_t cw = cs->dims[crank - 1]; /* a cache row's length */
  /* ib, is: the (broadcast) batch and sequence dims that index the cache rows */
  const ox_tensor *idx = pos ? pos : cs;
  if (pos && (pos->dt != OX_INT64))
    return ox_fail(c->err, OX_EINPUT, "%s is %s; it must be int64", ox_input_name(c, 3),
                   ox_dtypes[pos->dt].onnx_name);
  if ((pos && pos->rank != 2) || (idx->dims[0] != B && idx->dims[0] != 1) || (idx->dims[1] != S && idx->dims[1] != 1)) {
    char want[96];
    snprintf(want, sizeof want, "(%lld, %lld) (batch, seq)%s", (long long)B, (long long)S,
             pos ? "" : " and the rotary dimension / 2");
    return bad_shape(c, pos ? 3 : 1, idx, want);
  }
  int64_t ib = idx->dims[0], is = idx->dims[1];
  const int64_t *pid = pos ? pos->data : NULL;
  if (pos)
    for (int64_t i = 0; i < pos->n; i++)
      if (pid[i] < 0 || pid[i] >= cs->dims[0])
        return ox_fail(c->err, OX_EINPUT, "position_ids holds %lld; positions must be in [0, %lld) (cos_cache's rows)",
                       (long long)pid[i], (long long)cs->dims[0]);

  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!x->n) return 0;
  const float *xf = f32_in(c, x), *cf = f32_in(c, cs), *sf = f32_in(c, sn);
  float *yf = f32_out(c, y);
  int64_t *rows = ox_alloc_array(c->a, B * S + 1, sizeof *rows); /* B * S <= x->n */
  if (!rows) return ox_oom(c->err, NULL);
  if (!xf || !cf || !sf || !yf) return c->err->code;
  for (int64_t b = 0; b < B; b++)
    for (int64_t s = 0; s < S; s++) {
      int64_t k = (ib == 1 ? 0 : b) * is + (is == 1 ? 0 : s); /* the (b, s) entry */
      rows[b * S + s] = pos ? pid[k] : k;
    }
  ox_rope r = {B, H, S, D, rd, inter, {sb, sh, ss}, cf, sf, cw, rows};
  ox_rope_f32(&r, xf, yf);
  f32_done(yf, y);
  return 0;
}

/* The rotation itself, which com.microsoft's RotaryEmbedding and
 * GroupQueryAttention share (ops/twins.h): pair i of a head is (i, i + half)
 * or, interleaved, (2i, 2i + 1). */
void ox_rope_f32(const ox_rope *r, const float *x, float *y) {
  int64_t half = r->rd / 2, p1 = r->interleaved ? 2 : 1, p2 = r->interleaved ? 1 : half;
  for (int64_t b = 0; b < r->B; b++)
    for (int64_t s = 0; s < r->S; s++) {
      int64_t row = r->rows[b * r->S + s];
      const float *co = r->cos + row * r->cw, *si = r->sin + row * r->cw;
      for (int64_t h = 0; h < r->H; h++) {
        int64_t o = b * r->st[0] + h * r->st[1] + s * r->st[2];
        const float *xr = x + o;
        float *yr = y + o;
        for (int64_t i = 0; i < half; i++) {
          float x1 = xr[i * p1], x2 = xr[i * p1 + p2];
          yr[i * p1] = co[i] * x1 - si[i] * x2;
          yr[i * p1 + p2] = si[i] * x1 + co[i] * x2;
        }
        if (yr != xr)
          for (int64_t d = r->rd; d < r->D; d++) yr[d] = xr[d];
      }
    }
}

/* ---- SwiGLU-28 ----
 * Y = A * sigmoid(alpha * A) * B; A and B of one shape (no broadcasting). */
static int swiglu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *a, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &a));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(ox_same_dtype(c, 1, b, a->dt));
  if (a->rank != b->rank || memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims)) {
    char b1[96], b2[96];
    return ox_fail(c->err, OX_EINPUT, "A has shape %s but B has shape %s; SwiGLU does not broadcast",
                   ox_shape_str(a->rank, a->dims, b1, sizeof b1), ox_shape_str(b->rank, b->dims, b2, sizeof b2));
  }
  float alpha = ox_attr_float(c, "alpha", 1.0f);
  OX_TRY(ox_tensor_new(c->a, a->dt, a->rank, a->dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!a->n) return 0;
#define SWIGLU(T, EXP, XA, XB, Y)                                                    \
  for (int64_t i = 0; i < a->n; i++) {                                               \
    T v = (XA)[i];                                                                   \
    (Y)[i] = v / (1 + EXP(-(T)alpha * v)) * (XB)[i];                                 \
  }
  if (a->dt == OX_DOUBLE) {
    const double *xa = a->data, *xb = b->data;
    double *yd = y->data;
    SWIGLU(double, exp, xa, xb, yd)
  } else {
    const float *xa = f32_in(c, a), *xb = f32_in(c, b);
    float *yf = f32_out(c, y);
    if (!xa || !xb || !yf) return c->err->code;
    SWIGLU(float, expf, xa, xb, yf)
    f32_done(yf, y);
  }
#undef SWIGLU
  return 0;
}

/* ---- CausalConvWithState-27 ----
 * input: (B, C, L), weight: (C, 1, K), bias: (C), past_state: (B, C, K - 1)
 * (zeros when absent). With p = concat(past_state, input) along the last
 * axis, (B, C, L + K - 1):
 *   output[b, c, t] = act(bias[c] + sum_j weight[c, 0, j] * p[b, c, t + j])
 *   present_state = p[:, :, L:]  (the last K - 1 positions of p)
 * act: 'none', or 'silu' = 'swish': y * sigmoid(y). */
static int causal_conv(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *w, *bias, *past;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &w));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &bias));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &past));
  OX_TRY(ox_same_dtype(c, 1, w, x->dt));
  if (bias) OX_TRY(ox_same_dtype(c, 2, bias, x->dt));
  if (past) OX_TRY(ox_same_dtype(c, 3, past, x->dt));
  const char *act = ox_attr_string(c, "activation", "none");
  int silu = !strcmp(act, "silu") || !strcmp(act, "swish");
  if (!silu && strcmp(act, "none"))
    return ox_fail(c->err, OX_EINPUT, "activation is '%s'; it must be 'none', 'silu' or 'swish'", act);
  if (x->rank != 3) return bad_shape(c, 0, x, "(batch, channels, length)");
  int64_t B = x->dims[0], C = x->dims[1], L = x->dims[2];
  char want[128];
  snprintf(want, sizeof want, "(%lld, 1, k), k >= 1 (channels, 1, kernel size)", (long long)C);
  if (w->rank != 3 || w->dims[0] != C || w->dims[1] != 1 || w->dims[2] < 1) return bad_shape(c, 1, w, want);
  int64_t K = w->dims[2], K1 = K - 1;
  snprintf(want, sizeof want, "(%lld) (channels)", (long long)C);
  if (bias && (bias->rank != 1 || bias->dims[0] != C)) return bad_shape(c, 2, bias, want);
  snprintf(want, sizeof want, "(%lld, %lld, %lld) (batch, channels, k - 1)", (long long)B, (long long)C,
           (long long)K1);
  if (past && (past->rank != 3 || past->dims[0] != B || past->dims[1] != C || past->dims[2] != K1))
    return bad_shape(c, 3, past, want);

  int64_t sdims[3] = {B, C, K1};
  OX_TRY(ox_tensor_new(c->a, x->dt, 3, x->dims, &out[0], c->err));
  ox_value *st = NULL;
  OX_TRY(ox_tensor_new(c->a, x->dt, 3, sdims, &st, c->err));
  if (nout > 1) out[1] = st;
  if (!B || !C) return 0;
  /* p: one (channel, batch) row of the padded sequence at a time */
  int64_t P = L + K1;
  if (P < L) return ox_fail(c->err, OX_EINPUT, "input length plus kernel size overflows");
  float *p = ox_alloc_array(c->a, P + 1, sizeof *p);
  const float *xf = f32_in(c, x), *wf = f32_in(c, w);
  const float *bf = bias ? f32_in(c, bias) : NULL, *pf = past ? f32_in(c, past) : NULL;
  float *yf = f32_out(c, &out[0]->u.t), *sf = f32_out(c, &st->u.t);
  if (!p || !xf || !wf || (bias && !bf) || (past && !pf) || !yf || !sf) return c->err->code ? c->err->code : ox_oom(c->err, NULL);
  for (int64_t b = 0; b < B; b++)
    for (int64_t ch = 0; ch < C; ch++) {
      int64_t r = b * C + ch;
      if (pf) memcpy(p, pf + r * K1, (size_t)K1 * sizeof *p);
      else memset(p, 0, (size_t)K1 * sizeof *p);
      memcpy(p + K1, xf + r * L, (size_t)L * sizeof *p);
      const float *wr = wf + ch * K;
      float *yr = yf + r * L, b0 = bf ? bf[ch] : 0.0f;
      for (int64_t t = 0; t < L; t++) {
        float acc = b0;
        for (int64_t j = 0; j < K; j++) acc += wr[j] * p[t + j];
        yr[t] = silu ? acc / (1.0f + expf(-acc)) : acc;
      }
      memcpy(sf + r * K1, p + L, (size_t)K1 * sizeof *p);
    }
  f32_done(yf, &out[0]->u.t);
  f32_done(sf, &st->u.t);
  return 0;
}

/* y (dv) = alpha * x (1, dk) x S (dk, dv), a row of S at a time (a product
 * of one row would pay more for GEMM's packing than it computes) */
static void row_times_state(const float *restrict x, const float *restrict S, int64_t dk, int64_t dv,
                            float alpha, float *restrict y) {
  for (int64_t j = 0; j < dv; j++) y[j] = 0;
  for (int64_t i = 0; i < dk; i++) {
    const float *r = S + i * dv;
    float xi = x[i];
    for (int64_t j = 0; j < dv; j++) y[j] += xi * r[j];
  }
  if (alpha != 1.0f)
    for (int64_t j = 0; j < dv; j++) y[j] *= alpha;
}

/* ---- LinearAttention-27 ----
 * query: (B, T, Hq * dk), key: (B, T, Hkv * dk), value: (B, T, Hkv * dv),
 * past_state: (B, Hkv, dk, dv) (zeros when absent), decay: (B, T, Hkv) or
 * (B, T, Hkv * dk), beta: (B, T, Hkv) or (B, T, 1). Query head h reads the
 * state of kv head h / (Hq / Hkv). Per token t and kv head, on S (dk, dv):
 *   gated rules:  S = exp(g_t) * S           (g per head, or per row of S)
 *   delta rules:  u = beta_t * (v_t - S^T k_t)   else u = v_t
 *   S = S + k_t u^T;   o_t = scale * q_t^T S  for each query head of the group
 * (in gated_delta the retrieval S^T k_t reads the decayed S, as the spec's
 * formula says). The rule fixes which of decay and beta are given: the schema
 * requires the ones it uses and forbids the others. output: (B, T, Hq * dv)
 * of query's type; present_state: S after the last token, of past_state's type
 * (query's when past_state is absent). The state is kept in float. */
static int linear_attention(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *t[6];
  for (int i = 0; i < 6; i++)
    OX_TRY(i < 3 ? ox_tensor_in(c, in, nin, i, &t[i]) : ox_opt_tensor_in(c, in, nin, i, &t[i]));
  const ox_tensor *q = t[0], *k = t[1], *v = t[2], *past = t[3], *decay = t[4], *beta = t[5];
  for (int i = 1; i < 6; i++)
    if (t[i] && i != 3) OX_TRY(ox_same_dtype(c, i, t[i], q->dt));
  if (past) OX_TRY(float_type(c, 3, past));

  if (!ox_attr_find(c, "q_num_heads") || !ox_attr_find(c, "kv_num_heads"))
    return ox_fail(c->err, OX_EINPUT, "the q_num_heads and kv_num_heads attributes are required");
  int64_t Hq = ox_attr_int(c, "q_num_heads", 0), Hkv = ox_attr_int(c, "kv_num_heads", 0);
  if (Hq <= 0 || Hkv <= 0 || Hq % Hkv)
    return ox_fail(c->err, OX_EINPUT, "q_num_heads (%lld) must be a positive multiple of kv_num_heads (%lld)",
                   (long long)Hq, (long long)Hkv);
  const char *rule = ox_attr_string(c, "update_rule", "gated_delta");
  int gated, delta;
  if (!strcmp(rule, "linear")) gated = 0, delta = 0;
  else if (!strcmp(rule, "gated")) gated = 1, delta = 0;
  else if (!strcmp(rule, "delta")) gated = 0, delta = 1;
  else if (!strcmp(rule, "gated_delta")) gated = 1, delta = 1;
  else
    return ox_fail(c->err, OX_EINPUT, "update_rule is '%s'; it must be 'linear', 'gated', 'delta' or 'gated_delta'",
                   rule);
  if (gated != (decay != NULL))
    return ox_fail(c->err, OX_EINPUT, "update_rule '%s' %s the decay input (4)", rule, gated ? "requires" : "forbids");
  if (delta != (beta != NULL))
    return ox_fail(c->err, OX_EINPUT, "update_rule '%s' %s the beta input (5)", rule, delta ? "requires" : "forbids");

  for (int i = 0; i < 3; i++)
    if (t[i]->rank != 3) return bad_shape(c, i, t[i], "3-D (batch, seq, heads * head_size)");
  int64_t B = q->dims[0], T = q->dims[1];
  for (int i = 1; i < 6; i++) {
    if (!t[i] || i == 3) continue;
    if (t[i]->rank != 3 || t[i]->dims[0] != B || t[i]->dims[1] != T) {
      char want[96];
      snprintf(want, sizeof want, "3-D (%lld, %lld, ...) like query's (batch, seq)", (long long)B, (long long)T);
      return bad_shape(c, i, t[i], want);
    }
  }
  if (q->dims[2] % Hq)
    return ox_fail(c->err, OX_EINPUT, "query's last dim %lld is not a multiple of q_num_heads %lld",
                   (long long)q->dims[2], (long long)Hq);
  int64_t dk = q->dims[2] / Hq, G = Hq / Hkv;
  if (k->dims[2] != Hkv * dk)
    return ox_fail(c->err, OX_EINPUT, "key's last dim is %lld; it must be kv_num_heads * d_k = %lld * %lld",
                   (long long)k->dims[2], (long long)Hkv, (long long)dk);
  if (v->dims[2] % Hkv)
    return ox_fail(c->err, OX_EINPUT, "value's last dim %lld is not a multiple of kv_num_heads %lld",
                   (long long)v->dims[2], (long long)Hkv);
  int64_t dv = v->dims[2] / Hkv;
  if (dv && Hq > INT64_MAX / dv) return ox_fail(c->err, OX_EINPUT, "q_num_heads * d_v overflows");
  int64_t sdims[4] = {B, Hkv, dk, dv};
  if (past && (past->rank != 4 || memcmp(past->dims, sdims, sizeof sdims))) {
    char want[96];
    snprintf(want, sizeof want, "(%lld, %lld, %lld, %lld) (batch, kv_num_heads, d_k, d_v)", (long long)B,
             (long long)Hkv, (long long)dk, (long long)dv);
    return bad_shape(c, 3, past, want);
  }
  /* gw: decay values per (token, kv head): 1 (per head) or dk (per key dim);
   * bw: beta values per token: Hkv or 1 */
  int64_t gw = 0, bw = 0;
  if (decay) {
    if (decay->dims[2] == Hkv * dk) gw = dk; /* also when dk == 1: the same values */
    else if (decay->dims[2] == Hkv) gw = 1;
    else
      return ox_fail(c->err, OX_EINPUT, "decay's last dim is %lld; it must be kv_num_heads (%lld) or "
                     "kv_num_heads * d_k (%lld)", (long long)decay->dims[2], (long long)Hkv, (long long)(Hkv * dk));
  }
  if (beta) {
    if (beta->dims[2] != Hkv && beta->dims[2] != 1)
      return ox_fail(c->err, OX_EINPUT, "beta's last dim is %lld; it must be kv_num_heads (%lld) or 1",
                     (long long)beta->dims[2], (long long)Hkv);
    bw = beta->dims[2];
  }
  float scale = ox_attr_float(c, "scale", 0.0f);
  if (scale == 0.0f) scale = 1.0f / sqrtf((float)dk);
  (void)ox_attr_int(c, "chunk_size", 64); /* a tuning hint; the result does not depend on it */

  int64_t odims[3] = {B, T, Hq * dv};
  OX_TRY(ox_tensor_new(c->a, q->dt, 3, odims, &out[0], c->err));
  ox_value *st;
  OX_TRY(ox_tensor_new(c->a, past ? past->dt : q->dt, 4, sdims, &st, c->err));
  if (nout > 1) out[1] = st;
  int64_t SS = dk * dv; /* one head's state */
  float *S = ox_alloc_array(c->a, st->u.t.n + 1, sizeof *S);
  float *u = ox_alloc_array(c->a, dv + 1, sizeof *u);
  float *e = ox_alloc_array(c->a, dk + 1, sizeof *e), *ke = ox_alloc_array(c->a, dk + 1, sizeof *ke);
  if (!S || !u || !e || !ke) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < dk; i++) e[i] = 1.0f;
  if (past) {
    const float *pf = f32_in(c, past);
    if (!pf) return c->err->code;
    memcpy(S, pf, (size_t)st->u.t.n * sizeof *S);
  } else {
    memset(S, 0, (size_t)st->u.t.n * sizeof *S);
  }
  if (B && T && Hq && dv) {
    const float *qf = f32_in(c, q), *kf = f32_in(c, k), *vf = f32_in(c, v);
    const float *gf = decay ? f32_in(c, decay) : NULL, *bf = beta ? f32_in(c, beta) : NULL;
    float *of = f32_out(c, &out[0]->u.t);
    if (!qf || !kf || !vf || (decay && !gf) || (beta && !bf) || !of) return c->err->code;
    for (int64_t b = 0; b < B; b++)
      for (int64_t tt = 0; tt < T; tt++) {
        int64_t bt = b * T + tt;
        for (int64_t h = 0; h < Hkv; h++) {
          float *Sh = S + (b * Hkv + h) * SS; /* (dk, dv) */
          const float *kt = kf + (bt * Hkv + h) * dk, *vt = vf + (bt * Hkv + h) * dv;
          /* e: the decay factors of S's rows (1 for the ungated rules) */
          if (gated) {
            const float *g = gf + (bt * Hkv + h) * gw;
            if (gw == 1) {
              float e0 = expf(g[0]);
              for (int64_t i = 0; i < dk; i++) e[i] = e0;
            } else {
              for (int64_t i = 0; i < dk; i++) e[i] = expf(g[i]);
            }
          }
          const float *ut = vt;
          if (delta) { /* u = beta * (v - (e S)^T k), read as (e k)^T S: S is not decayed yet */
            float be = bf[bt * bw + (bw == 1 ? 0 : h)];
            for (int64_t i = 0; i < dk; i++) ke[i] = e[i] * kt[i];
            row_times_state(ke, Sh, dk, dv, 1.0f, u);
            for (int64_t j = 0; j < dv; j++) u[j] = be * (vt[j] - u[j]);
            ut = u;
          }
          for (int64_t i = 0; i < dk; i++) { /* S = e S + k u^T, one pass */
            float *restrict r = Sh + i * dv, ei = e[i], ki = kt[i];
            if (gated) for (int64_t j = 0; j < dv; j++) r[j] = ei * r[j] + ki * ut[j];
            else for (int64_t j = 0; j < dv; j++) r[j] += ki * ut[j];
          }
          /* the group's query heads h*G .. h*G+G-1 are contiguous:
           * O (G, dv) = scale * Q (G, dk) x S (dk, dv) */
          const float *qt = qf + (bt * Hq + h * G) * dk;
          float *ot = of + (bt * Hq + h * G) * dv;
          if (G == 1) row_times_state(qt, Sh, dk, dv, scale, ot);
          else ox_sgemm(c->threads, G, dv, dk, qt, dk, 0, Sh, dv, 0, ot, dv, scale, 0.0f);
        }
      }
    f32_done(of, &out[0]->u.t);
  }
  float *sf = f32_out(c, &st->u.t);
  if (!sf) return c->err->code;
  if (sf != S && st->u.t.n) memcpy(sf, S, (size_t)st->u.t.n * sizeof *S);
  f32_done(sf, &st->u.t);
  return 0;
}

#define F3 (OX_T(FLOAT) | OX_T(FLOAT16) | OX_T(BFLOAT16))

const ox_kernel ox_transformer_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "RotaryEmbedding",     23, 0, F3,                3, 4, rotary,
    "interleaved:int=0,num_heads:int,rotary_embedding_dim:int=0" },
  { "", "LinearAttention",     27, 0, F3,                3, 6, linear_attention,
    "chunk_size:int=64,kv_num_heads:int:required,q_num_heads:int:required,scale:float=0.0,"
    "update_rule:string=gated_delta" },
  { "", "CausalConvWithState", 27, 0, F3,                2, 4, causal_conv,
    "activation:string=none" },
  { "", "SwiGLU",              28, 0, F3 | OX_T(DOUBLE), 2, 2, swiglu, "alpha:float=1.0" },
  {0},
};
