/* ops/contrib_transformer.c: onnxruntime's com.microsoft transformer
 * operators, as its docs/ContribOperators.md gives their schemas and its CPU
 * kernels (onnxruntime/contrib_ops/cpu/) compute them; BiasAdd,
 * BiasSplitGelu, BiasSoftmax and GemmFastGelu have GPU kernels only, and
 * follow those and their tests. Also the two operators onnxruntime registers
 * in ai.onnx itself: LayerNormalization below opset 17 and
 * SimplifiedLayerNormalization (`run` warns that a model uses them).
 *
 * Where an ai.onnx operator computes the same thing the row calls its kernel
 * (ops/twins.h, ops/attention.h): Gelu is Gelu-20, FastGelu Gelu-20's tanh
 * form, QuickGelu Swish-24's loop, RotaryEmbedding RotaryEmbedding-23's
 * rotation, the attentions Attention-23's core, LayerNormalization-1
 * LayerNormalization-17 and SimplifiedLayerNormalization-1 RMSNormalization-23.
 *
 * float16 and bfloat16 compute in float (widened once, rounded once on
 * store), as onnxruntime's CPU kernels do; the activations and BiasSoftmax
 * also take double, computed in double. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/gemm.h"
#include "core/kernel.h"
#include "core/vmath.h"
#include "attention.h"
#include "twins.h"

/* ---- helpers ---- */

/* t's values as float: its own data when t is float, else a widened copy. */
static const float *fin(ox_ctx *c, const ox_tensor *t) {
  if (t->dt == OX_FLOAT) return t->data;
  return ox_widen_f32(c->a, t, c->err);
}

/* Where a float result for t goes: t's own data when t is float, else a
 * scratch buffer that fdone rounds into t. */
static float *fout(ox_ctx *c, ox_tensor *t) {
  if (t->dt == OX_FLOAT) return t->data;
  float *f = ox_alloc_array(c->a, t->n + 1, sizeof *f);
  if (!f) ox_oom(c->err, NULL);
  return f;
}

static void fdone(const float *f, ox_tensor *t) {
  if (f != t->data) ox_narrow_f32(f, t);
}

/* A float scratch buffer of n elements, zeroed. */
static float *fscratch(ox_ctx *c, int64_t n) {
  float *f = ox_alloc_array(c->a, n + 1, sizeof *f);
  if (!f) ox_oom(c->err, NULL);
  return f;
}

static int want_out(ox_ctx *c, int nout, int i) {
  return i < nout && c->node->out && c->node->out[i] && c->node->out[i][0];
}

static int bad_shape(ox_ctx *c, int i, const ox_tensor *t, const char *want) {
  char b[128];
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must be %s", ox_input_name(c, i),
                 ox_shape_str(t->rank, t->dims, b, sizeof b), want);
}

/* Input i must have input 0's element type. */
static int same_type(ox_ctx *c, int i, const ox_tensor *t, const ox_tensor *x) {
  return ox_same_dtype(c, i, t, x->dt);
}

static int int32_type(ox_ctx *c, int i, const ox_tensor *t) {
  if (t->dt == OX_INT32) return 0;
  return ox_fail(c->err, OX_EINPUT, "%s is %s; it must be int32", ox_input_name(c, i), ox_dtypes[t->dt].onnx_name);
}

/* A 1-D input i of n elements (a bias, gamma, beta). */
static int vec_of(ox_ctx *c, int i, const ox_tensor *t, int64_t n, const char *what) {
  if (t->rank == 1 && t->dims[0] == n) return 0;
  char want[96];
  snprintf(want, sizeof want, "(%lld) (%s)", (long long)n, what);
  return bad_shape(c, i, t, want);
}

/* ---- the GELU family ----
 * y = f(x + bias), bias (optional) a 1-D tensor of x's last dim. */
enum { ACT_GELU, ACT_GELU_TANH, ACT_QUICK };

static double act_d(int act, double v, double alpha) {
  switch (act) {
  case ACT_GELU: return 0.5 * v * erfc(-v * M_SQRT1_2);
  case ACT_GELU_TANH: return 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  default: return v / (1 + exp(-alpha * v));
  }
}

static int act_bias(ox_ctx *c, int nin, ox_value **in, ox_value **out, int act, int bias_in, float alpha) {
  const ox_tensor *x, *b = NULL;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  if (bias_in) OX_TRY(ox_opt_tensor_in(c, in, nin, 1, &b));
  int64_t H = x->rank ? x->dims[x->rank - 1] : 1;
  if (b) {
    OX_TRY(same_type(c, 1, b, x));
    /* onnxruntime's FastGelu test passes a scalar bias with a scalar X */
    if (!(b->n == H && b->rank <= 1)) return vec_of(c, 1, b, H, "X's last dim");
  }
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!x->n) return 0;
  if (x->dt == OX_DOUBLE) {
    const double *xs = x->data, *bs = b ? b->data : NULL;
    double *ys = y->data;
    for (int64_t i = 0; i < x->n; i++) ys[i] = act_d(act, xs[i] + (bs ? bs[i % H] : 0), alpha);
    return 0;
  }
  const float *xs = fin(c, x), *bs = b ? fin(c, b) : NULL;
  float *ys = fout(c, y);
  if (!xs || (b && !bs) || !ys) return c->err->code;
  const float *src = xs;
  if (bs) { /* x + bias, added in float as onnxruntime does */
    for (int64_t i = 0; i < x->n; i += H)
      for (int64_t j = 0; j < H; j++) ys[i + j] = xs[i + j] + bs[j];
    src = ys;
  }
  if (act == ACT_QUICK) ox_swish_f32(src, ys, x->n, alpha);
  else ox_gelu_f32(src, ys, x->n, act == ACT_GELU_TANH);
  fdone(ys, y);
  return 0;
}

static int bias_gelu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  if (nin < 2 || !in[1]) return ox_fail(c->err, OX_EINPUT, "%s is missing", ox_input_name(c, 1));
  return act_bias(c, nin, in, out, ACT_GELU, 1, 0);
}

static int fast_gelu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return act_bias(c, nin, in, out, ACT_GELU_TANH, 1, 0);
}

static int quick_gelu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  float alpha = ox_attr_float(c, "alpha", 1.702f);
  if (c->err->code) return c->err->code;
  return act_bias(c, nin, in, out, ACT_QUICK, 0, alpha);
}

/* GemmFastGelu: FastGelu(X · W + bias); X (..., K), W (K, N), bias (N). */
static int gemm_fast_gelu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *w, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &w));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &b));
  OX_TRY(same_type(c, 1, w, x));
  if (x->rank < 1) return bad_shape(c, 0, x, "(..., K) (rank 1 or more)");
  int64_t K = x->dims[x->rank - 1];
  if (w->rank != 2 || w->dims[0] != K) return bad_shape(c, 1, w, "(K, N) with K X's last dim");
  int64_t N = w->dims[1];
  if (b) {
    OX_TRY(same_type(c, 2, b, x));
    OX_TRY(vec_of(c, 2, b, N, "W's last dim"));
  }
  int64_t dims[OX_MAX_RANK];
  memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
  dims[x->rank - 1] = N;
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!y->n) return 0;
  int64_t M = K ? x->n / K : y->n / N;
  const float *xs = fin(c, x), *ws = xs ? fin(c, w) : NULL, *bs = b && ws ? fin(c, b) : NULL;
  float *ys = fout(c, y);
  if (!xs || !ws || (b && !bs) || !ys) return c->err->code;
  for (int64_t i = 0; bs && i < M; i++) memcpy(ys + i * N, bs, (size_t)N * sizeof *ys);
  ox_sgemm(c->threads, M, N, K, xs, K, 0, ws, N, 0, ys, N, 1.0f, bs ? 1.0f : 0.0f);
  ox_gelu_f32(ys, ys, y->n, 1);
  fdone(ys, y);
  return 0;
}

/* BiasAdd: Y = X + bias + skip; X, skip (N, S, C), bias (C). */
static int bias_add(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *b, *s;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &s));
  OX_TRY(same_type(c, 1, b, x));
  OX_TRY(same_type(c, 2, s, x));
  if (x->rank != 3) return bad_shape(c, 0, x, "(batch_size, image_size, channels)");
  int64_t C = x->dims[2];
  OX_TRY(vec_of(c, 1, b, C, "channels"));
  if (s->rank != 3 || memcmp(s->dims, x->dims, 3 * sizeof *x->dims)) return bad_shape(c, 2, s, "X's shape");
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 3, x->dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!x->n) return 0;
  const float *xs = fin(c, x), *bs = xs ? fin(c, b) : NULL, *ss = bs ? fin(c, s) : NULL;
  float *ys = fout(c, y);
  if (!xs || !bs || !ss || !ys) return c->err->code;
  for (int64_t i = 0; i < x->n; i += C)
    for (int64_t j = 0; j < C; j++) ys[i + j] = xs[i + j] + bs[j] + ss[i + j];
  fdone(ys, y);
  return 0;
}

/* BiasSplitGelu: v = X + bias; Y = v[..., :D/2] * Gelu(v[..., D/2:]) (erf
 * form); X (N, S, D), bias (D), Y (N, S, D/2). */
static int bias_split_gelu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(same_type(c, 1, b, x));
  if (x->rank != 3 || x->dims[2] % 2) return bad_shape(c, 0, x, "(batch_size, image_size, hidden_size), hidden_size even");
  int64_t D = x->dims[2], h = D / 2;
  OX_TRY(vec_of(c, 1, b, D, "hidden_size"));
  int64_t dims[3] = {x->dims[0], x->dims[1], h};
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 3, dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!y->n) return 0;
  const float *xs = fin(c, x), *bs = xs ? fin(c, b) : NULL;
  float *ys = fout(c, y), *g = fscratch(c, y->n);
  if (!xs || !bs || !ys || !g) return c->err->code;
  int64_t rows = y->n / h;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < h; j++) g[r * h + j] = xs[r * D + h + j] + bs[h + j];
  ox_gelu_f32(g, g, y->n, 0);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < h; j++) ys[r * h + j] = (xs[r * D + j] + bs[j]) * g[r * h + j];
  fdone(ys, y);
  return 0;
}

/* BiasSoftmax: softmax over dims axis.. of data + bias, bias broadcast to
 * data as numpy broadcasts it (right-aligned; the tests' reference does so);
 * is_inner_broadcast tells onnxruntime's GPU kernel which of two such
 * patterns it is. Computed in double, rounded once. */
static int bias_softmax(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(same_type(c, 1, b, x));
  int axis;
  OX_TRY(ox_axis(c, ox_attr_int(c, "axis", 1), x->rank, 0, "axis", &axis));
  ox_attr_int(c, "is_inner_broadcast", 0);
  if (c->err->code) return c->err->code;
  if (b->rank > x->rank) goto bad;
  for (int k = 1; k <= b->rank; k++)
    if (b->dims[b->rank - k] != 1 && b->dims[b->rank - k] != x->dims[x->rank - k]) goto bad;
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!x->n) return 0;
  double *xd = ox_widen_f64(c->a, x, c->err), *bd = xd ? ox_widen_f64(c->a, b, c->err) : NULL;
  if (!xd || !bd) return c->err->code;
  /* bias strides over x's dims, 0 where it broadcasts */
  int64_t bst[OX_MAX_RANK], idx[OX_MAX_RANK] = {0}, off = 0;
  for (int k = x->rank - 1, s = 1; k >= 0; k--) {
    int bk = k - (x->rank - b->rank);
    bst[k] = bk >= 0 && b->dims[bk] != 1 ? s : 0;
    if (bk >= 0) s *= (int)b->dims[bk];
  }
  for (int64_t i = 0; i < x->n; i++) { /* odometer over x */
    xd[i] += bd[off];
    for (int k = x->rank - 1; k >= 0; k--) {
      off += bst[k];
      if (++idx[k] < x->dims[k]) break;
      off -= bst[k] * x->dims[k];
      idx[k] = 0;
    }
  }
  int64_t len = 1;
  for (int k = axis; k < x->rank; k++) len *= x->dims[k];
  for (int64_t r = 0; r < x->n; r += len) {
    double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < len; j++) m = xd[r + j] > m ? xd[r + j] : m;
    for (int64_t j = 0; j < len; j++) s += (xd[r + j] = exp(xd[r + j] - m));
    for (int64_t j = 0; j < len; j++) xd[r + j] /= s;
  }
  return ox_narrow_f64(c->a, xd, y, OX_TO_INT_TRUNC, c->err);
bad: {
  char b1[96], b2[96];
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it does not broadcast to data's %s", ox_input_name(c, 1),
                 ox_shape_str(b->rank, b->dims, b1, sizeof b1), ox_shape_str(x->rank, x->dims, b2, sizeof b2));
}
}

/* ---- SkipLayerNormalization, SkipSimplifiedLayerNormalization ----
 * v = input + skip (+ bias); output = (v - mean) / sqrt(var + epsilon) *
 * gamma + beta (Simplified: v / sqrt(mean(v^2) + epsilon) * gamma) over the
 * last dim; input_skip_bias_sum = v. input (B, S, H) or (tokens, H); skip
 * of input's shape, or (1, S, H) or (S, H) repeated over the batch. mean and
 * inv_std_var (float, (..., 1)) are the statistics (onnxruntime's CPU kernel
 * leaves them unwritten). The row's sums are taken in double, two passes. */
static void skip_row(const float *x, const float *s, const float *bias, const float *gamma, const float *beta,
                     int64_t H, float eps, int simplified, float *y, float *sum, float *mean_out, float *inv_out) {
  double m = 0, v = 0;
  for (int64_t j = 0; j < H; j++) {
    float t = x[j] + s[j];
    if (bias) t += bias[j];
    y[j] = t;
    m += t;
  }
  if (sum) memcpy(sum, y, (size_t)H * sizeof *y);
  m = simplified ? 0 : m / (double)H;
  for (int64_t j = 0; j < H; j++) {
    double d = y[j] - m;
    v += d * d;
  }
  float mf = (float)m, inv = (float)(1.0 / sqrt(v / (double)H + eps));
  if (beta)
    for (int64_t j = 0; j < H; j++) y[j] = (y[j] - mf) * inv * gamma[j] + beta[j];
  else
    for (int64_t j = 0; j < H; j++) y[j] = (y[j] - mf) * inv * gamma[j];
  if (mean_out) *mean_out = mf;
  if (inv_out) *inv_out = inv;
}

static int skip_norm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out, int simplified) {
  const ox_tensor *x, *s, *g, *be = NULL, *bi = NULL;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &s));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &g));
  if (!simplified) OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &be));
  OX_TRY(ox_opt_tensor_in(c, in, nin, simplified ? 3 : 4, &bi));
  float eps = ox_attr_float(c, "epsilon", 1e-12f);
  if (c->err->code) return c->err->code;
  if (!(eps >= 0)) return ox_fail(c->err, OX_EINPUT, "epsilon is %g; it must be >= 0", (double)eps);
  if (x->rank != 3 && x->rank != 2)
    return bad_shape(c, 0, x, "(batch_size, sequence_length, hidden_size) or (token_count, hidden_size)");
  int64_t H = x->dims[x->rank - 1];
  OX_TRY(same_type(c, 1, s, x));
  OX_TRY(same_type(c, 2, g, x));
  /* skip: input's shape, or for a 3-D input (1, S, H) or (S, H) */
  int same = s->rank == x->rank && !memcmp(s->dims, x->dims, (size_t)x->rank * sizeof *x->dims);
  int tail = x->rank == 3 && ((s->rank == 3 && s->dims[0] == 1) || s->rank == 2) &&
             s->dims[s->rank - 1] == H && s->dims[s->rank - 2] == x->dims[1];
  if (!same && !tail)
    return bad_shape(c, 1, s, x->rank == 3 ? "input's shape, or (1, sequence_length, hidden_size) or "
                                             "(sequence_length, hidden_size)" : "input's shape");
  OX_TRY(vec_of(c, 2, g, H, "hidden_size"));
  if (be) {
    OX_TRY(same_type(c, 3, be, x));
    OX_TRY(vec_of(c, 3, be, H, "hidden_size"));
  }
  if (bi) {
    int i = simplified ? 3 : 4;
    OX_TRY(same_type(c, i, bi, x));
    OX_TRY(vec_of(c, i, bi, H, "hidden_size"));
  }
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  int64_t sd[3] = {x->dims[0], x->dims[1], 1};
  sd[x->rank - 1] = 1;
  ox_tensor *mt = NULL, *it = NULL, *st = NULL;
  if (want_out(c, nout, 1)) {
    OX_TRY(ox_tensor_new(c->a, OX_FLOAT, x->rank, sd, &out[1], c->err));
    mt = &out[1]->u.t;
  }
  if (want_out(c, nout, 2)) {
    OX_TRY(ox_tensor_new(c->a, OX_FLOAT, x->rank, sd, &out[2], c->err));
    it = &out[2]->u.t;
  }
  if (want_out(c, nout, 3)) {
    OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, &out[3], c->err));
    st = &out[3]->u.t;
  }
  ox_tensor *y = &out[0]->u.t;
  if (!x->n) return 0;
  const float *xs = fin(c, x), *ss = xs ? fin(c, s) : NULL, *gs = ss ? fin(c, g) : NULL;
  const float *bes = be && gs ? fin(c, be) : NULL, *bis = bi && gs ? fin(c, bi) : NULL;
  float *ys = fout(c, y), *sums = st ? fout(c, st) : NULL;
  if (!xs || !ss || !gs || (be && !bes) || (bi && !bis) || !ys || (st && !sums)) return c->err->code;
  int64_t rows = x->n / H;
  for (int64_t r = 0; r < rows; r++) {
    int64_t o = r * H;
    skip_row(xs + o, ss + o % s->n, bis, gs, bes, H, eps, simplified, ys + o, sums ? sums + o : NULL,
             mt ? (float *)mt->data + r : NULL, it ? (float *)it->data + r : NULL);
  }
  fdone(ys, y);
  if (st) fdone(sums, st);
  return 0;
}

static int skip_layernorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return skip_norm(c, nin, in, nout, out, 0);
}

static int skip_simplified_layernorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return skip_norm(c, nin, in, nout, out, 1);
}

/* ---- EmbedLayerNormalization ----
 * Per token (b, s): v = word[input_ids] + position[position_ids, or s] (+
 * segment[segment_ids]); output = LayerNorm(v) with gamma, beta, epsilon;
 * embedding_sum = v; mask_index (B) = the count of 1s in each mask row (0
 * without a mask). ids are int32; position_ids (B, S) or (1, S). */
static int embed_layernorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *ids, *seg, *we, *pe, *se, *g, *be, *mask, *pos;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &ids));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 1, &seg));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &we));
  OX_TRY(ox_tensor_in(c, in, nin, 3, &pe));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &se));
  OX_TRY(ox_tensor_in(c, in, nin, 5, &g));
  OX_TRY(ox_tensor_in(c, in, nin, 6, &be));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 7, &mask));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 8, &pos));
  float eps = ox_attr_float(c, "epsilon", 1e-12f);
  ox_attr_int(c, "mask_index_type", 1);
  if (c->err->code) return c->err->code;
  OX_TRY(int32_type(c, 0, ids));
  if (ids->rank != 2) return bad_shape(c, 0, ids, "(batch_size, sequence_length)");
  int64_t B = ids->dims[0], S = ids->dims[1];
  if (seg && (!!int32_type(c, 1, seg) || seg->rank != 2 || seg->dims[0] != B || seg->dims[1] != S))
    return c->err->code ? c->err->code : bad_shape(c, 1, seg, "input_ids' shape");
  if (mask && (!!int32_type(c, 7, mask) || mask->rank != 2 || mask->dims[0] != B || mask->dims[1] != S))
    return c->err->code ? c->err->code : bad_shape(c, 7, mask, "input_ids' shape");
  if (pos && (!!int32_type(c, 8, pos) || pos->rank != 2 || (pos->dims[0] != B && pos->dims[0] != 1) ||
              pos->dims[1] != S))
    return c->err->code ? c->err->code : bad_shape(c, 8, pos, "(batch_size or 1, sequence_length)");
  if (we->rank != 2) return bad_shape(c, 2, we, "(vocab_size, hidden_size)");
  int64_t H = we->dims[1];
  OX_TRY(same_type(c, 3, pe, we));
  if (pe->rank != 2 || pe->dims[1] != H) return bad_shape(c, 3, pe, "(max_positions, hidden_size)");
  if (se) {
    OX_TRY(same_type(c, 4, se, we));
    if (se->rank != 2 || se->dims[1] != H) return bad_shape(c, 4, se, "(segments, hidden_size)");
  }
  if (!seg != !se)
    return ox_fail(c->err, OX_EINPUT, "segment_ids and segment_embedding must be given together");
  OX_TRY(same_type(c, 5, g, we));
  OX_TRY(vec_of(c, 5, g, H, "hidden_size"));
  OX_TRY(same_type(c, 6, be, we));
  OX_TRY(vec_of(c, 6, be, H, "hidden_size"));
  int64_t od[3] = {B, S, H}, md[1] = {B};
  OX_TRY(ox_tensor_new_uninit(c->a, we->dt, 3, od, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t, *sum = NULL;
  if (want_out(c, nout, 1)) OX_TRY(ox_tensor_new(c->a, OX_INT32, 1, md, &out[1], c->err));
  if (want_out(c, nout, 2)) {
    OX_TRY(ox_tensor_new_uninit(c->a, we->dt, 3, od, &out[2], c->err));
    sum = &out[2]->u.t;
  }
  if (want_out(c, nout, 1) && mask) {
    const int32_t *m = mask->data;
    int32_t *mi = out[1]->u.t.data;
    for (int64_t b = 0; b < B; b++)
      for (int64_t s = 0; s < S; s++) mi[b] += m[b * S + s] == 1;
  }
  if (!y->n) return 0;
  const float *ws = fin(c, we), *ps = ws ? fin(c, pe) : NULL, *ss = se && ps ? fin(c, se) : NULL;
  const float *gs = ps ? fin(c, g) : NULL, *bs = gs ? fin(c, be) : NULL;
  float *ys = fout(c, y), *sums = sum ? fout(c, sum) : NULL;
  if (!ws || !ps || (se && !ss) || !gs || !bs || !ys || (sum && !sums)) return c->err->code;
  const int32_t *id = ids->data, *sg = seg ? seg->data : NULL, *pd = pos ? pos->data : NULL;
  for (int64_t t = 0; t < B * S; t++) {
    int64_t w = id[t], p = pd ? pd[pos->dims[0] == 1 ? t % S : t] : t % S, q = sg ? sg[t] : 0;
    if (w < 0 || w >= we->dims[0])
      return ox_fail(c->err, OX_EINPUT, "input_ids[%lld] is %lld; word_embedding has %lld rows", (long long)t,
                     (long long)w, (long long)we->dims[0]);
    if (p < 0 || p >= pe->dims[0])
      return ox_fail(c->err, OX_EINPUT, "the position of token %lld is %lld; position_embedding has %lld rows",
                     (long long)t, (long long)p, (long long)pe->dims[0]);
    if (sg && (q < 0 || q >= se->dims[0]))
      return ox_fail(c->err, OX_EINPUT, "segment_ids[%lld] is %lld; segment_embedding has %lld rows", (long long)t,
                     (long long)q, (long long)se->dims[0]);
    float *yr = ys + t * H;
    const float *wr = ws + w * H, *pr = ps + p * H, *sr = sg ? ss + q * H : NULL;
    double m = 0, v = 0;
    for (int64_t j = 0; j < H; j++) {
      float e = wr[j] + pr[j];
      if (sr) e += sr[j];
      yr[j] = e;
      m += e;
    }
    if (sums) memcpy(sums + t * H, yr, (size_t)H * sizeof *yr);
    m /= (double)H;
    for (int64_t j = 0; j < H; j++) v += (yr[j] - m) * (yr[j] - m);
    float mf = (float)m, inv = (float)(1.0 / sqrt(v / (double)H + eps));
    for (int64_t j = 0; j < H; j++) yr[j] = (yr[j] - mf) * inv * gs[j] + bs[j];
  }
  fdone(ys, y);
  if (sum) fdone(sums, sum);
  return 0;
}

/* ---- RotaryEmbedding ----
 * input (B, S, hidden) or (B, N, S, head_size); position_ids int64: one
 * value (the first position; positions p + s) or (B, S); cos_cache,
 * sin_cache (max_position, rotary_dim / 2). head_size is num_heads' share
 * of hidden, or (rotary_embedding_dim 0) the caches' width * 2. The cache
 * row of a position is read at its own width (onnxruntime's kernel steps by
 * rotary_dim / 2, the same when the caches are that wide, as its checks
 * otherwise require). RotaryEmbedding-23's rotation. */
static int rotary_embedding(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *pos, *cs, *sn;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &pos));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &cs));
  OX_TRY(ox_tensor_in(c, in, nin, 3, &sn));
  OX_TRY(same_type(c, 2, cs, x));
  OX_TRY(same_type(c, 3, sn, x));
  int64_t nh = ox_attr_int(c, "num_heads", 0), rd = ox_attr_int(c, "rotary_embedding_dim", 0);
  int inter = ox_attr_int(c, "interleaved", 0) != 0;
  ox_attr_float(c, "scale", 1.0f); /* not used by the kernel */
  ox_attr_int(c, "is_packed_batching", 0);
  if (c->err->code) return c->err->code;
  if (pos->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s is %s; it must be int64", ox_input_name(c, 1), ox_dtypes[pos->dt].onnx_name);
  if (x->rank != 3 && x->rank != 4)
    return bad_shape(c, 0, x, "(batch_size, sequence_length, hidden_size) or (batch_size, num_heads, "
                              "sequence_length, head_size)");
  if (cs->rank != 2) return bad_shape(c, 2, cs, "(max_sequence_length, rotary_dim / 2)");
  if (sn->rank != 2 || sn->dims[0] != cs->dims[0] || sn->dims[1] != cs->dims[1])
    return bad_shape(c, 3, sn, "cos_cache's shape");
  if (rd > 0 && nh <= 0)
    return ox_fail(c->err, OX_EINPUT, "num_heads must be given (positive) with rotary_embedding_dim");
  if (nh < 0 || rd < 0) return ox_fail(c->err, OX_EINPUT, "num_heads and rotary_embedding_dim must not be negative");
  int four = x->rank == 4;
  int64_t B = x->dims[0], S = x->dims[four ? 2 : 1];
  int64_t hidden = four ? x->dims[1] * x->dims[3] : x->dims[2];
  int64_t D = rd == 0 ? cs->dims[1] * 2 : (nh ? hidden / nh : 0);
  if (four && rd == 0) D = x->dims[3];
  if (D <= 0 || hidden % D || (nh && hidden != nh * D))
    return ox_fail(c->err, OX_EINPUT, "%s: head_size %lld (%s) does not divide its hidden size %lld",
                   ox_input_name(c, 0), (long long)D, rd ? "hidden / num_heads" : "cos_cache's width * 2",
                   (long long)hidden);
  int64_t H = hidden / D;
  if (four && x->dims[3] != D) return bad_shape(c, 0, x, "(batch_size, num_heads, sequence_length, head_size)");
  int64_t rot = rd ? rd : D;
  if (rot > D || rot % 2)
    return ox_fail(c->err, OX_EINPUT, "rotary_embedding_dim %lld must be even and at most head_size %lld",
                   (long long)rot, (long long)D);
  if (cs->dims[1] < rot / 2) {
    char want[96];
    snprintf(want, sizeof want, "(max_sequence_length, %lld) (rotary_dim / 2)", (long long)(rot / 2));
    return bad_shape(c, 2, cs, want);
  }
  int one = pos->n == 1 && pos->rank <= 1;
  if (!one && (pos->rank != 2 || pos->dims[0] != B || pos->dims[1] != S))
    return bad_shape(c, 1, pos, "one value, or (batch_size, sequence_length)");
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!x->n) return 0;
  int64_t *rows = ox_alloc_array(c->a, B * S + 1, sizeof *rows);
  if (!rows) return ox_oom(c->err, NULL);
  const int64_t *pid = pos->data;
  for (int64_t b = 0; b < B; b++)
    for (int64_t s = 0; s < S; s++) {
      int64_t p = one ? pid[0] + s : pid[b * S + s];
      if (p < 0 || p >= cs->dims[0])
        return ox_fail(c->err, OX_EINPUT, "position %lld (batch %lld, token %lld) is outside cos_cache's %lld rows",
                       (long long)p, (long long)b, (long long)s, (long long)cs->dims[0]);
      rows[b * S + s] = p;
    }
  const float *xs = fin(c, x), *cf = xs ? fin(c, cs) : NULL, *sf = cf ? fin(c, sn) : NULL;
  float *ys = fout(c, y);
  if (!xs || !cf || !sf || !ys) return c->err->code;
  ox_rope r = {B, H, S, D, rot, inter, {0, 0, 0}, cf, sf, cs->dims[1], rows};
  if (four) r.st[0] = H * S * D, r.st[1] = S * D, r.st[2] = D;
  else r.st[0] = S * H * D, r.st[1] = D, r.st[2] = H * D;
  ox_rope_f32(&r, xs, ys);
  fdone(ys, y);
  return 0;
}

/* ---- the attentions' masks ----
 * onnxruntime's CPU attention (attention_helper.h, PrepareMask) turns the
 * mask into an additive bias: 0 for a key attended, mask_filter_value for one
 * masked, and with unidirectional (causal) and more than one query the keys
 * after each query's position set to the float's lowest value; the
 * attention_bias input adds to it. The formats of mask_index / key padding
 * mask (int32):
 *   (B)          the valid keys per batch: keys from that index on masked
 *   (2B)         end positions then start positions (Attention only)
 *   (3B + 2)     read as (B): its first B values (as the CPU kernel does)
 *   (B, T)       1 attended, 0 masked, per batch
 *   (B, S, T)    the same per query
 * bias: (B, Nb, S, T) floats, Nb = N when attention_bias has a head dim,
 * else 1. */
static int build_bias(ox_ctx *c, int mi, const ox_tensor *mask, const ox_tensor *ab, int causal, float filter,
                      int64_t B, int64_t N, int64_t S, int64_t T, int64_t past, int allow_2b, float **out,
                      int64_t bs[4]) {
  *out = NULL;
  if (!mask && !ab && !causal) return 0;
  int64_t Nb = ab && ab->dims[1] != 1 ? N : 1, bd[4] = {B, Nb, S, T};
  if (ox_numel(4, bd, sizeof(float)) < 0) return ox_oom(c->err, NULL);
  float *bias = fscratch(c, B * Nb * S * T);
  if (!bias) return c->err->code;
  float *m = bias; /* the mask part, (B, S, T), in head 0 of each batch */
  int64_t st = S * T, bst = Nb * st;
  if (mask) {
    const int32_t *mv = mask->data;
    int kind = mask->rank == 3 ? 3 : mask->rank == 2 ? 2 : allow_2b && mask->dims[0] == 2 * B ? 4 : 1;
    for (int64_t b = 0; b < B; b++) {
      float *mb = m + b * bst;
      for (int64_t i = 0; i < S; i++)
        for (int64_t j = 0; j < T; j++) {
          int keep;
          switch (kind) {
          case 3: keep = mv[(b * S + i) * T + j] > 0; break;
          case 2: keep = mv[b * T + j] > 0; break;
          case 4: keep = j < mv[b] && j >= (mv[B + b] < T ? mv[B + b] : T); break;
          default: keep = j < mv[b]; break;
          }
          mb[i * T + j] = keep ? 0.0f : filter;
        }
    }
  }
  if (causal)
    for (int64_t b = 0; b < B; b++)
      for (int64_t i = 0; i + 1 < S; i++)
        for (int64_t j = past + i + 1; j < T; j++) m[b * bst + i * T + j] = -FLT_MAX;
  /* the other heads start from the mask too */
  for (int64_t b = 0; b < B; b++)
    for (int64_t h = 1; h < Nb; h++) memcpy(m + b * bst + h * st, m + b * bst, (size_t)st * sizeof *m);
  if (ab) { /* (B or 1, N or 1, S, T) */
    const float *a = fin(c, ab);
    if (!a) return c->err->code;
    for (int64_t b = 0; b < B; b++)
      for (int64_t h = 0; h < Nb; h++) {
        const float *ar = a + (ab->dims[0] == 1 ? 0 : b) * ab->dims[1] * st + (ab->dims[1] == 1 ? 0 : h) * st;
        float *br = bias + b * bst + h * st;
        for (int64_t k = 0; k < st; k++) br[k] = ar[k] + br[k];
      }
  }
  bs[0] = bst, bs[1] = Nb == 1 ? 0 : st, bs[2] = T, bs[3] = 1;
  *out = bias;
  (void)mi;
  return 0;
}

/* The mask's shape, as the kernels accept it. */
static int check_mask(ox_ctx *c, int mi, const ox_tensor *m, int64_t B, int64_t S, int64_t T, int allow_2b) {
  OX_TRY(int32_type(c, mi, m));
  if (m->rank == 4)
    return ox_fail(c->err, OX_EUNSUPPORTED, "%s is 4-D (Megatron's (batch_size, 1, max_sequence_length, "
                   "max_sequence_length)): not supported (onnxruntime's CPU kernel refuses it too)",
                   ox_input_name(c, mi));
  int ok = (m->rank == 1 && (m->dims[0] == B || m->dims[0] == 3 * B + 2 || (allow_2b && m->dims[0] == 2 * B))) ||
           (m->rank == 2 && m->dims[0] == B && m->dims[1] == T) ||
           (m->rank == 3 && m->dims[0] == B && m->dims[1] == S && m->dims[2] == T);
  if (ok) return 0;
  char want[200];
  snprintf(want, sizeof want, "(%lld)%s, (3 * batch_size + 2), (%lld, %lld) or (%lld, %lld, %lld) (batch_size, "
           "[sequence_length,] total_sequence_length)", (long long)B, allow_2b ? ", (2 * batch_size)" : "",
           (long long)B, (long long)T, (long long)B, (long long)S, (long long)T);
  return bad_shape(c, mi, m, want);
}

static int check_attention_bias(ox_ctx *c, int i, const ox_tensor *ab, const ox_tensor *x, int64_t B, int64_t N,
                                int64_t S, int64_t T) {
  OX_TRY(same_type(c, i, ab, x));
  if (ab->rank == 4 && (ab->dims[0] == B || ab->dims[0] == 1) && (ab->dims[1] == N || ab->dims[1] == 1) &&
      ab->dims[2] == S && ab->dims[3] == T)
    return 0;
  char want[160];
  snprintf(want, sizeof want, "(%lld or 1, %lld or 1, %lld, %lld) (batch_size, num_heads, sequence_length, "
           "total_sequence_length)", (long long)B, (long long)N, (long long)S, (long long)T);
  return bad_shape(c, i, ab, want);
}

/* ---- Attention ----
 * input (B, S, Hin) · weights (Hin, q + k + v) + bias: Q, K, V, each (B, S,
 * N * head); past (2, B, N, P, head) before K and V; present (2, B, N, P +
 * S, head); output (B, S, v). */
static int contrib_attention(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *w, *bias, *mask, *past, *ab, *psl;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &w));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &bias));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &mask));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &past));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 5, &ab));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 6, &psl));
  int64_t N = ox_attr_int(c, "num_heads", 0), nq;
  int uni = ox_attr_int(c, "unidirectional", 0) != 0;
  int share = ox_attr_int(c, "past_present_share_buffer", 0) != 0;
  int rotary = ox_attr_int(c, "do_rotary", 0) != 0;
  float filter = ox_attr_float(c, "mask_filter_value", -10000.0f);
  float scale = ox_attr_float(c, "scale", 0.0f);
  ox_attr_int(c, "rotary_embedding_dim", 0);
  const int64_t *qkv = ox_attr_ints(c, "qkv_hidden_sizes", &nq);
  if (c->err->code) return c->err->code;
  if (rotary)
    return ox_fail(c->err, OX_EUNSUPPORTED, "do_rotary is not supported (onnxruntime's CPU kernel does not "
                   "implement it either: use MultiHeadAttention with RotaryEmbedding)");
  if (N <= 0) return ox_fail(c->err, OX_EINPUT, "num_heads is %lld; it must be positive", (long long)N);
  OX_TRY(same_type(c, 1, w, x));
  if (x->rank != 3) return bad_shape(c, 0, x, "(batch_size, sequence_length, input_hidden_size)");
  int64_t B = x->dims[0], S = x->dims[1], Hin = x->dims[2];
  if (w->rank != 2 || w->dims[0] != Hin) return bad_shape(c, 1, w, "(input_hidden_size, q + k + v hidden sizes)");
  int64_t tot = w->dims[1], qh, kh, vh;
  if (qkv) {
    if (nq != 3) return ox_fail(c->err, OX_EINPUT, "qkv_hidden_sizes has %lld values; it must have 3", (long long)nq);
    qh = qkv[0], kh = qkv[1], vh = qkv[2];
    if (qh <= 0 || kh <= 0 || vh <= 0 || qh % N || kh % N || vh % N)
      return ox_fail(c->err, OX_EINPUT, "qkv_hidden_sizes (%lld, %lld, %lld) must be positive multiples of "
                     "num_heads %lld", (long long)qh, (long long)kh, (long long)vh, (long long)N);
    if (qh != kh) return ox_fail(c->err, OX_EINPUT, "qkv_hidden_sizes: Q's (%lld) and K's (%lld) must be equal",
                                 (long long)qh, (long long)kh);
    if (qh + kh + vh != tot)
      return ox_fail(c->err, OX_EINPUT, "weights has %lld columns; qkv_hidden_sizes sum to %lld", (long long)tot,
                     (long long)(qh + kh + vh));
  } else {
    if (tot % 3 || (tot / 3) % N)
      return ox_fail(c->err, OX_EINPUT, "weights has %lld columns: 3 * hidden_size, hidden_size a multiple of "
                     "num_heads %lld, is needed", (long long)tot, (long long)N);
    qh = kh = vh = tot / 3;
  }
  if (bias) {
    OX_TRY(same_type(c, 2, bias, x));
    OX_TRY(vec_of(c, 2, bias, tot, "q + k + v hidden sizes"));
  }
  int64_t D = qh / N, Dv = vh / N, P = 0;
  if (past && ab) return ox_fail(c->err, OX_EINPUT, "past and attention_bias cannot be given together");
  if (past) {
    OX_TRY(same_type(c, 4, past, x));
    if (kh != vh) return ox_fail(c->err, OX_EINPUT, "past needs K and V of one hidden size");
    if (past->rank != 5 || past->dims[0] != 2 || past->dims[1] != B || past->dims[2] != N || past->dims[4] != D)
      return bad_shape(c, 4, past, "(2, batch_size, num_heads, past_sequence_length, head_size)");
    if (share)
      return ox_fail(c->err, OX_EUNSUPPORTED, "past_present_share_buffer with past is not supported (onnxruntime's "
                     "CPU kernel refuses it too)");
    P = past->dims[3];
  }
  (void)psl;
  int64_t T = P + S;
  if (mask) OX_TRY(check_mask(c, 3, mask, B, S, T, 1));
  if (mask && mask->rank == 2 && mask->dims[1] == 1) mask = NULL; /* a dummy (B, 1) mask */
  if (ab) OX_TRY(check_attention_bias(c, 5, ab, x, B, N, S, T));

  int64_t od[3] = {B, S, vh};
  OX_TRY(ox_tensor_new(c->a, x->dt, 3, od, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t, *pres = NULL;
  if (want_out(c, nout, 1)) {
    int64_t pd[5] = {2, B, N, T, D};
    OX_TRY(ox_tensor_new(c->a, x->dt, 5, pd, &out[1], c->err));
    pres = &out[1]->u.t;
  }
  if (!y->n && !pres) return 0;
  if (!B || !S) return 0;
  int64_t pd5[5] = {2, B, N, T, D}, pj[3] = {B, S, tot}; /* the scratch buffers below */
  if (ox_numel(5, pd5, sizeof(float)) < 0 || ox_numel(3, pj, sizeof(float)) < 0) return ox_oom(c->err, NULL);
  /* the projection: qkvb (B * S, tot) = input · weights + bias */
  const float *xs = fin(c, x), *ws = xs ? fin(c, w) : NULL, *bsv = bias && ws ? fin(c, bias) : NULL;
  float *proj = fscratch(c, B * S * tot);
  if (!xs || !ws || (bias && !bsv) || !proj) return c->err->code;
  for (int64_t r = 0; bsv && r < B * S; r++) memcpy(proj + r * tot, bsv, (size_t)tot * sizeof *proj);
  ox_sgemm(c->threads, B * S, tot, Hin, xs, Hin, 0, ws, tot, 0, proj, tot, 1.0f, bsv ? 1.0f : 0.0f);
  ox_att_args a = {.B = B, .Hq = N, .Hkv = N, .S = S, .T = T, .D = D, .Dv = Dv, .left = -1};
  a.scale = scale == 0.0f ? 1.0 / sqrt((double)D) : scale;
  a.qs[0] = S * tot, a.qs[1] = D, a.qs[2] = tot;
  a.ys[0] = S * vh, a.ys[1] = Dv, a.ys[2] = vh;
  const float *k = proj + qh, *v = proj + qh + kh;
  if (past || pres) { /* K and V of (B, N, T, head), the past first */
    float *kc = fscratch(c, 2 * B * N * T * D);
    const float *ps = past ? fin(c, past) : NULL;
    if (!kc || (past && !ps)) return c->err->code;
    for (int64_t t = 0; t < 2; t++)
      for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < N; h++) {
          float *dst = kc + ((t * B + b) * N + h) * T * D;
          if (P) memcpy(dst, ps + ((t * B + b) * N + h) * P * D, (size_t)(P * D) * sizeof *dst);
          for (int64_t s = 0; s < S; s++)
            memcpy(dst + (P + s) * D, proj + (b * S + s) * tot + qh + t * kh + h * D, (size_t)D * sizeof *dst);
        }
    if (pres) {
      float *pf = fout(c, pres);
      if (!pf) return c->err->code;
      if (pf != pres->data || pres->dt == OX_FLOAT) memcpy(pf, kc, (size_t)pres->n * sizeof *pf);
      fdone(pf, pres);
    }
    k = kc, v = kc + B * N * T * D;
    a.ks[0] = N * T * D, a.ks[1] = T * D, a.ks[2] = D;
    a.vs[0] = N * T * D, a.vs[1] = T * D, a.vs[2] = D;
  } else {
    a.ks[0] = S * tot, a.ks[1] = D, a.ks[2] = tot;
    a.vs[0] = S * tot, a.vs[1] = Dv, a.vs[2] = tot;
  }
  float *bb;
  OX_TRY(build_bias(c, 3, mask, ab, uni && S > 1, filter, B, N, S, T, P, 1, &bb, a.bs));
  a.bias = bb, a.blen = T;
  float *ys = fout(c, y);
  if (!ys) return c->err->code;
  if (ys == y->data) memset(ys, 0, (size_t)y->n * sizeof *ys);
  OX_TRY(ox_attention_f32(c, &a, proj, k, v, ys, NULL));
  fdone(ys, y);
  return 0;
}

/* ---- MultiHeadAttention ----
 * query (B, S, hidden); key, value (B, L, hidden) projected here by bias
 * (q, k, v parts), or (B, N, L, head) already projected (no bias);
 * past_key, past_value (B, N, P, head) before them; present_* (B, N, P + L,
 * head); qk (B, N, S, P + L): the scores after the mask and attention_bias.
 * The past is attended whether or not the present outputs are asked for, as
 * the documentation says (onnxruntime's CPU kernel, without them, multiplies
 * probabilities over the past and new keys by the new values alone, reading
 * past their end; its js/web tests expect that, and are left out).
 * onnxruntime's CPU kernel does not implement packed QKV or KV, nor (outside
 * beam search's DecoderMaskedMultiHeadAttention path) past_sequence_length
 * and cache_indirection: those are refused. */
static int contrib_mha(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *q, *k = NULL, *v = NULL, *bias, *mask, *ab, *pk, *pv, *psl, *ci;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &q));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 1, &k));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &v));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &bias));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &mask));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 5, &ab));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 6, &pk));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 7, &pv));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 8, &psl));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 9, &ci));
  int64_t N = ox_attr_int(c, "num_heads", 0);
  int uni = ox_attr_int(c, "unidirectional", 0) != 0;
  float filter = ox_attr_float(c, "mask_filter_value", -10000.0f);
  float scale = ox_attr_float(c, "scale", 0.0f);
  if (c->err->code) return c->err->code;
  if (N <= 0) return ox_fail(c->err, OX_EINPUT, "num_heads is %lld; it must be positive", (long long)N);
  if (q->rank == 5 || (k && k->rank == 5) || !k || !v)
    return ox_fail(c->err, OX_EUNSUPPORTED, "packed QKV or KV (query or key of rank 5, or key and value absent) is "
                   "not supported (onnxruntime's CPU kernel does not implement it either)");
  if (psl || ci)
    return ox_fail(c->err, OX_EUNSUPPORTED, "past_sequence_length and cache_indirection (beam search's "
                   "decoder-masked attention) are not supported");
  if (q->rank != 3) return bad_shape(c, 0, q, "(batch_size, sequence_length, hidden_size)");
  int64_t B = q->dims[0], S = q->dims[1], hid = q->dims[2];
  if (hid % N)
    return ox_fail(c->err, OX_EINPUT, "query's hidden size %lld is not a multiple of num_heads %lld", (long long)hid,
                   (long long)N);
  int64_t D = hid / N, L, vh, Dv;
  OX_TRY(same_type(c, 1, k, q));
  OX_TRY(same_type(c, 2, v, q));
  int bnsh = k->rank == 4;
  if (k->rank != v->rank || (k->rank != 3 && k->rank != 4))
    return bad_shape(c, 1, k, "(batch_size, kv_sequence_length, hidden_size) or (batch_size, num_heads, "
                              "kv_sequence_length, head_size), of value's rank");
  if (!bnsh) {
    if (k->dims[0] != B || k->dims[2] != hid) return bad_shape(c, 1, k, "(batch_size, kv_sequence_length, hidden_size)");
    if (v->dims[0] != B || v->dims[1] != k->dims[1])
      return bad_shape(c, 2, v, "(batch_size, kv_sequence_length, v_hidden_size)");
    L = k->dims[1], vh = v->dims[2];
    if (vh % N)
      return ox_fail(c->err, OX_EINPUT, "value's hidden size %lld is not a multiple of num_heads %lld", (long long)vh,
                     (long long)N);
  } else {
    if (k->dims[0] != B || k->dims[1] != N || k->dims[3] != D)
      return bad_shape(c, 1, k, "(batch_size, num_heads, kv_sequence_length, head_size)");
    if (memcmp(v->dims, k->dims, 4 * sizeof *k->dims)) return bad_shape(c, 2, v, "key's shape");
    L = k->dims[2], vh = hid;
  }
  Dv = vh / N;
  if (bias) {
    OX_TRY(same_type(c, 3, bias, q));
    OX_TRY(vec_of(c, 3, bias, 2 * hid + vh, "2 * hidden_size + v_hidden_size"));
  }
  if (!pk != !pv) return ox_fail(c->err, OX_EINPUT, "past_key and past_value must be given together");
  int64_t P = 0;
  if (pk) {
    OX_TRY(same_type(c, 6, pk, q));
    OX_TRY(same_type(c, 7, pv, q));
    if (pk->rank != 4 || pk->dims[0] != B || pk->dims[1] != N || pk->dims[3] != D)
      return bad_shape(c, 6, pk, "(batch_size, num_heads, past_sequence_length, head_size)");
    P = pk->dims[2];
    if (pv->rank != 4 || pv->dims[0] != B || pv->dims[1] != N || pv->dims[2] != P || pv->dims[3] != Dv)
      return bad_shape(c, 7, pv, "(batch_size, num_heads, past_sequence_length, v_head_size) with past_key's length");
  }
  int64_t T = P + L;
  if (mask) OX_TRY(check_mask(c, 4, mask, B, S, T, 0));
  if (ab) OX_TRY(check_attention_bias(c, 5, ab, q, B, N, S, T));

  int64_t od[3] = {B, S, vh}, kd[4] = {B, N, T, D}, vd[4] = {B, N, T, Dv}, qd[4] = {B, N, S, T};
  OX_TRY(ox_tensor_new(c->a, q->dt, 3, od, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t, *prk = NULL, *prv = NULL, *qkt = NULL;
  if (want_out(c, nout, 1)) {
    OX_TRY(ox_tensor_new(c->a, q->dt, 4, kd, &out[1], c->err));
    prk = &out[1]->u.t;
  }
  if (want_out(c, nout, 2)) {
    OX_TRY(ox_tensor_new(c->a, q->dt, 4, vd, &out[2], c->err));
    prv = &out[2]->u.t;
  }
  if (want_out(c, nout, 3)) {
    OX_TRY(ox_tensor_new(c->a, q->dt, 4, qd, &out[3], c->err));
    qkt = &out[3]->u.t;
  }
  if (!B || !S) return 0;
  const float *qs = fin(c, q), *ks = qs ? fin(c, k) : NULL, *vs = ks ? fin(c, v) : NULL;
  const float *bsv = bias && vs ? fin(c, bias) : NULL;
  if (!qs || !ks || !vs || (bias && !bsv)) return c->err->code;
  /* the bias onto Q, and onto a 3-D K and V (copies) */
  if (bsv) {
    float *q2 = fscratch(c, q->n), *k2 = bnsh ? NULL : fscratch(c, k->n), *v2 = bnsh ? NULL : fscratch(c, v->n);
    if (!q2 || (!bnsh && (!k2 || !v2))) return c->err->code;
    for (int64_t i = 0; i < q->n; i++) q2[i] = qs[i] + bsv[i % hid];
    for (int64_t i = 0; k2 && i < k->n; i++) k2[i] = ks[i] + bsv[hid + i % hid];
    for (int64_t i = 0; v2 && i < v->n; i++) v2[i] = vs[i] + bsv[2 * hid + i % vh];
    qs = q2;
    if (!bnsh) ks = k2, vs = v2;
  }
  ox_att_args a = {.B = B, .Hq = N, .Hkv = N, .S = S, .T = T, .D = D, .Dv = Dv, .left = -1, .qk_mode = 2};
  a.scale = scale == 0.0f ? 1.0 / sqrt((double)D) : scale;
  a.qs[0] = S * hid, a.qs[1] = D, a.qs[2] = hid;
  a.ys[0] = S * vh, a.ys[1] = Dv, a.ys[2] = vh;
  if (bnsh) {
    a.ks[0] = N * L * D, a.ks[1] = L * D, a.ks[2] = D;
    a.vs[0] = N * L * D, a.vs[1] = L * D, a.vs[2] = D;
  } else {
    a.ks[0] = L * hid, a.ks[1] = D, a.ks[2] = hid;
    a.vs[0] = L * vh, a.vs[1] = Dv, a.vs[2] = vh;
  }
  if (pk || prk || prv) { /* present K, V (B, N, T, head): the past, then the new */
    const float *pks = pk ? fin(c, pk) : NULL, *pvs = pk && pks ? fin(c, pv) : NULL;
    float *kc = fscratch(c, B * N * T * D), *vc = fscratch(c, B * N * T * Dv);
    if ((pk && (!pks || !pvs)) || !kc || !vc) return c->err->code;
    for (int64_t b = 0; b < B; b++)
      for (int64_t h = 0; h < N; h++) {
        float *kr = kc + (b * N + h) * T * D, *vr = vc + (b * N + h) * T * Dv;
        if (P) {
          memcpy(kr, pks + (b * N + h) * P * D, (size_t)(P * D) * sizeof *kr);
          memcpy(vr, pvs + (b * N + h) * P * Dv, (size_t)(P * Dv) * sizeof *vr);
        }
        for (int64_t l = 0; l < L; l++) {
          memcpy(kr + (P + l) * D, ks + b * a.ks[0] + h * a.ks[1] + l * a.ks[2], (size_t)D * sizeof *kr);
          memcpy(vr + (P + l) * Dv, vs + b * a.vs[0] + h * a.vs[1] + l * a.vs[2], (size_t)Dv * sizeof *vr);
        }
      }
    if (prk) ox_narrow_f32(kc, prk);
    if (prv) ox_narrow_f32(vc, prv);
    ks = kc, vs = vc;
    a.ks[0] = N * T * D, a.ks[1] = T * D, a.ks[2] = D;
    a.vs[0] = N * T * Dv, a.vs[1] = T * Dv, a.vs[2] = Dv;
  }
  float *bb;
  OX_TRY(build_bias(c, 4, mask, ab, uni && S > 1, filter, B, N, S, T, P, 0, &bb, a.bs));
  a.bias = bb, a.blen = T;
  float *ys = fout(c, y), *qk = qkt ? fout(c, qkt) : NULL;
  if (!ys || (qkt && !qk)) return c->err->code;
  OX_TRY(ox_attention_f32(c, &a, qs, ks, vs, ys, qk));
  fdone(ys, y);
  if (qkt) fdone(qk, qkt);
  return 0;
}

/* ---- GroupQueryAttention ----
 * query (B, S, N * head) with key, value (B, S, Nkv * head), or packed
 * (B, S, (N + 2 Nkv) * head) without them; past_key, past_value (B, Nkv, P,
 * head); seqlens_k (B) int32: each batch's total length - 1; the scalar
 * total_sequence_length; cos_cache, sin_cache (max_len, rotary_dim / 2) with
 * do_rotary; position_ids (B, S) int64; attention_bias (B or 1, N or 1, S,
 * total); head_sink (N). As onnxruntime's CPU kernel (gqa_attention_base.h):
 *   - the first prompt is S == total_sequence_length: its queries sit at
 *     positions 0..S-1; otherwise batch b's past is seqlens_k[b] + 1 - S
 *     (S 1, or more with a batch of 1: a later chunk of the prompt);
 *   - present (B, Nkv, max(total, P), head) holds each batch's past rows,
 *     then its S new ones (rotated), zeros after;
 *   - each query attends causally to the keys up to its position, within
 *     local_window_size of it; softcap, then attention_bias, on the scores;
 *   - smooth_softmax (or head_sink: its value per head, else 0) adds a
 *     logit to each softmax's denominator;
 *   - output_qk (B, N, S, total): the scores before the softmax (qk_output 1;
 *     the keys left out 0) or the probabilities (2).
 * Quantized caches (k_quant_type, v_quant_type other than NONE) are not
 * supported. */
static int contrib_gqa(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *q, *k, *v, *pk, *pv, *sk, *ts, *cs, *sn, *pos, *ab, *hs;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &q));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 1, &k));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &v));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &pk));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &pv));
  OX_TRY(ox_tensor_in(c, in, nin, 5, &sk));
  OX_TRY(ox_tensor_in(c, in, nin, 6, &ts));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 7, &cs));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 8, &sn));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 9, &pos));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 10, &ab));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 11, &hs));
  if ((nin > 12 && in[12]) || (nin > 13 && in[13]))
    return ox_fail(c->err, OX_EUNSUPPORTED, "k_scale and v_scale (a quantized KV cache) are not supported");
  int64_t N = ox_attr_int(c, "num_heads", 0), Nkv = ox_attr_int(c, "kv_num_heads", 0);
  float scale = ox_attr_float(c, "scale", 0.0f), softcap = ox_attr_float(c, "softcap", 0.0f);
  int64_t lws = ox_attr_int(c, "local_window_size", -1), qko = ox_attr_int(c, "qk_output", 0);
  int rotary = ox_attr_int(c, "do_rotary", 0) == 1, inter = ox_attr_int(c, "rotary_interleaved", 0) == 1;
  int smooth = ox_attr_int(c, "smooth_softmax", -1) == 1;
  const char *kq = ox_attr_string(c, "k_quant_type", "NONE"), *vq = ox_attr_string(c, "v_quant_type", "NONE");
  ox_attr_int(c, "kv_cache_bit_width", 0);
  if (c->err->code) return c->err->code;
  if (strcmp(kq, "NONE") || strcmp(vq, "NONE"))
    return ox_fail(c->err, OX_EUNSUPPORTED, "k_quant_type \"%s\", v_quant_type \"%s\": a quantized KV cache is not "
                   "supported", kq, vq);
  if (N <= 0 || Nkv <= 0 || N % Nkv)
    return ox_fail(c->err, OX_EINPUT, "num_heads (%lld) must be a positive multiple of kv_num_heads (%lld)",
                   (long long)N, (long long)Nkv);
  if (lws < -1 || lws == 0)
    return ox_fail(c->err, OX_EINPUT, "local_window_size is %lld; it must be -1 or positive", (long long)lws);
  if (qko < 0 || qko > 2)
    return ox_fail(c->err, OX_EINPUT, "qk_output is %lld; it must be 0, 1 or 2", (long long)qko);
  if (qko && !want_out(c, nout, 3))
    return ox_fail(c->err, OX_EINPUT, "qk_output is %lld but the node has no output_qk", (long long)qko);
  if (q->rank != 3) return bad_shape(c, 0, q, "(batch_size, sequence_length, hidden_size)");
  int64_t B = q->dims[0], S = q->dims[1], D;
  int packed = !k;
  if (packed) {
    if (v) return ox_fail(c->err, OX_EINPUT, "key and value must be given together, or both left out (packed QKV)");
    if (q->dims[2] % (N + 2 * Nkv))
      return ox_fail(c->err, OX_EINPUT, "the packed query's last dim %lld is not a multiple of num_heads + 2 * "
                     "kv_num_heads = %lld", (long long)q->dims[2], (long long)(N + 2 * Nkv));
    D = q->dims[2] / (N + 2 * Nkv);
  } else {
    if (!v) return ox_fail(c->err, OX_EINPUT, "key and value must be given together, or both left out (packed QKV)");
    if (q->dims[2] % N)
      return ox_fail(c->err, OX_EINPUT, "query's hidden size %lld is not a multiple of num_heads %lld",
                     (long long)q->dims[2], (long long)N);
    D = q->dims[2] / N;
    OX_TRY(same_type(c, 1, k, q));
    OX_TRY(same_type(c, 2, v, q));
    if (k->rank != 3 || k->dims[0] != B || k->dims[1] != S || k->dims[2] != Nkv * D)
      return bad_shape(c, 1, k, "(batch_size, sequence_length, kv_num_heads * head_size)");
    if (v->rank != 3 || memcmp(v->dims, k->dims, 3 * sizeof *k->dims)) return bad_shape(c, 2, v, "key's shape");
  }
  if (D % 8)
    return ox_fail(c->err, OX_EINPUT, "head_size is %lld; onnxruntime's kernel needs a multiple of 8", (long long)D);
  if (!pk != !pv) return ox_fail(c->err, OX_EINPUT, "past_key and past_value must be given together");
  int64_t P = 0;
  if (pk) {
    OX_TRY(same_type(c, 3, pk, q));
    OX_TRY(same_type(c, 4, pv, q));
    if (pk->rank != 4 || pk->dims[0] != B || pk->dims[1] != Nkv || pk->dims[3] != D)
      return bad_shape(c, 3, pk, "(batch_size, kv_num_heads, past_sequence_length, head_size)");
    P = pk->dims[2];
    if (pv->rank != 4 || memcmp(pv->dims, pk->dims, 4 * sizeof *pk->dims)) return bad_shape(c, 4, pv, "past_key's shape");
  }
  OX_TRY(int32_type(c, 5, sk));
  if (sk->rank != 1 || sk->dims[0] != B) return bad_shape(c, 5, sk, "(batch_size)");
  OX_TRY(int32_type(c, 6, ts));
  if (ts->n != 1 || ts->rank > 1) return bad_shape(c, 6, ts, "one value");
  int64_t total = ((const int32_t *)ts->data)[0];
  int first = S == total;
  if (total < 1 || total < S)
    return ox_fail(c->err, OX_EINPUT, "total_sequence_length is %lld; it must be at least sequence_length %lld",
                   (long long)total, (long long)S);
  if (!first && S > 1 && B != 1)
    return ox_fail(c->err, OX_EINPUT, "a later chunk of a prompt (sequence_length %lld < total_sequence_length "
                   "%lld) needs a batch of 1", (long long)S, (long long)total);
  int64_t Pp = total > P ? total : P; /* present's length */
  int64_t *nk = ox_alloc_array(c->a, 2 * B + 1, sizeof *nk), *pb = nk ? nk + B : NULL;
  if (!nk) return ox_oom(c->err, NULL);
  const int32_t *skv = sk->data;
  for (int64_t b = 0; b < B; b++) {
    int64_t tb = (int64_t)skv[b] + 1;
    pb[b] = first ? 0 : tb - S;
    nk[b] = tb;
    if (tb < 1 || tb > total)
      return ox_fail(c->err, OX_EINPUT, "seqlens_k[%lld] is %lld; it must be from 0 to total_sequence_length - 1 = "
                     "%lld", (long long)b, (long long)skv[b], (long long)(total - 1));
    if (!first && pb[b] < 0)
      return ox_fail(c->err, OX_EINPUT, "seqlens_k[%lld] is %lld: a total length of %lld is shorter than the %lld new "
                     "tokens", (long long)b, (long long)skv[b], (long long)tb, (long long)S);
    if (pb[b] > P)
      return ox_fail(c->err, OX_EINPUT, "seqlens_k[%lld] is %lld: batch %lld has %lld past tokens, but past_key holds "
                     "%lld", (long long)b, (long long)skv[b], (long long)b, (long long)pb[b], (long long)P);
  }
  int64_t rd = 0;
  if (!cs != !sn) return ox_fail(c->err, OX_EINPUT, "cos_cache and sin_cache must be given together");
  if (rotary) {
    if (!cs) return ox_fail(c->err, OX_EINPUT, "do_rotary needs cos_cache and sin_cache");
    OX_TRY(same_type(c, 7, cs, q));
    OX_TRY(same_type(c, 8, sn, q));
    if (D % 16)
      return ox_fail(c->err, OX_EINPUT, "head_size is %lld; rotary needs a multiple of 16", (long long)D);
    if (cs->rank != 2 || cs->dims[0] < total || cs->dims[1] > D / 2 || cs->dims[1] % 8 || cs->dims[1] == 0)
      return bad_shape(c, 7, cs, "(at least total_sequence_length, a multiple of 8 up to head_size / 2)");
    if (sn->rank != 2 || memcmp(sn->dims, cs->dims, 2 * sizeof *cs->dims)) return bad_shape(c, 8, sn, "cos_cache's shape");
    rd = cs->dims[1] * 2;
  }
  if (pos) {
    if (pos->dt != OX_INT64)
      return ox_fail(c->err, OX_EINPUT, "%s is %s; it must be int64", ox_input_name(c, 9), ox_dtypes[pos->dt].onnx_name);
    if (pos->rank != 2 || pos->dims[0] != B || pos->dims[1] < S)
      return bad_shape(c, 9, pos, "(batch_size, sequence_length or more)");
  }
  if (ab) OX_TRY(check_attention_bias(c, 10, ab, q, B, N, S, total));
  if (hs) {
    OX_TRY(same_type(c, 11, hs, q));
    OX_TRY(vec_of(c, 11, hs, N, "num_heads"));
  }

  int64_t od[3] = {B, S, N * D}, pd[4] = {B, Nkv, Pp, D}, qd[4] = {B, N, S, total};
  OX_TRY(ox_tensor_new(c->a, q->dt, 3, od, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t, *prk = NULL, *prv = NULL, *qkt = NULL;
  if (want_out(c, nout, 1)) {
    OX_TRY(ox_tensor_new(c->a, q->dt, 4, pd, &out[1], c->err));
    prk = &out[1]->u.t;
  }
  if (want_out(c, nout, 2)) {
    OX_TRY(ox_tensor_new(c->a, q->dt, 4, pd, &out[2], c->err));
    prv = &out[2]->u.t;
  }
  if (want_out(c, nout, 3)) {
    OX_TRY(ox_tensor_new(c->a, q->dt, 4, qd, &out[3], c->err));
    qkt = &out[3]->u.t;
  }
  if (!B || !S) return 0;
  const float *qs = fin(c, q), *ks = packed || !qs ? NULL : fin(c, k), *vs = ks ? fin(c, v) : NULL;
  if (!qs || (!packed && (!ks || !vs))) return c->err->code;
  int64_t W = packed ? (N + 2 * Nkv) * D : N * D, Wk = packed ? W : Nkv * D; /* row widths */
  const float *kin = packed ? qs + N * D : ks, *vin = packed ? qs + (N + Nkv) * D : vs;
  const float *qa = qs;
  if (rotary) { /* Q and the new K rotated (copies), positions per (b, s) */
    int64_t *rows = ox_alloc_array(c->a, B * S + 1, sizeof *rows);
    const float *cf = fin(c, cs), *sf = cf ? fin(c, sn) : NULL;
    float *q2 = fscratch(c, B * S * N * D), *k2 = fscratch(c, B * S * Nkv * D);
    if (!rows) return ox_oom(c->err, NULL);
    if (!cf || !sf || !q2 || !k2) return c->err->code;
    const int64_t *pid = pos ? pos->data : NULL;
    for (int64_t b = 0; b < B; b++)
      for (int64_t s = 0; s < S; s++) {
        int64_t p = first ? (pid ? pid[0] : 0) + s : pid ? pid[b * pos->dims[1] + s] : pb[b] + s < nk[b] ? pb[b] + s : 1;
        if (p < 0 || p >= cs->dims[0])
          return ox_fail(c->err, OX_EINPUT, "position %lld (batch %lld, token %lld) is outside cos_cache's %lld rows",
                         (long long)p, (long long)b, (long long)s, (long long)cs->dims[0]);
        rows[b * S + s] = p;
      }
    ox_rope r = {B, N, S, D, rd, inter, {S * W, D, W}, cf, sf, cs->dims[1], rows};
    for (int64_t i = 0; i < B * S; i++) memcpy(q2 + i * N * D, qs + i * W, (size_t)(N * D) * sizeof *q2);
    r.st[0] = S * N * D, r.st[2] = N * D;
    ox_rope_f32(&r, q2, q2);
    for (int64_t i = 0; i < B * S; i++) memcpy(k2 + i * Nkv * D, kin + i * Wk, (size_t)(Nkv * D) * sizeof *k2);
    r.H = Nkv, r.st[0] = S * Nkv * D, r.st[2] = Nkv * D;
    ox_rope_f32(&r, k2, k2);
    qa = q2, kin = k2, W = N * D, Wk = Nkv * D;
  }
  /* present K and V: each batch's past rows, its new rows, zeros */
  const float *pks = pk ? fin(c, pk) : NULL, *pvs = pk && pks ? fin(c, pv) : NULL;
  int64_t cd[4] = {B, Nkv, Pp, D};
  if (ox_numel(4, cd, sizeof(float)) < 0) return ox_oom(c->err, NULL);
  /* (straight into present_key and present_value when they are float) */
  float *kc = prk && prk->dt == OX_FLOAT ? prk->data : fscratch(c, B * Nkv * Pp * D);
  float *vc = prv && prv->dt == OX_FLOAT ? prv->data : fscratch(c, B * Nkv * Pp * D);
  if ((pk && (!pks || !pvs)) || !kc || !vc) return c->err->code;
  int64_t Wv = packed ? (N + 2 * Nkv) * D : Nkv * D;
  for (int64_t b = 0; b < B; b++)
    for (int64_t h = 0; h < Nkv; h++) {
      float *kr = kc + (b * Nkv + h) * Pp * D, *vr = vc + (b * Nkv + h) * Pp * D;
      if (pb[b]) {
        memcpy(kr, pks + (b * Nkv + h) * P * D, (size_t)(pb[b] * D) * sizeof *kr);
        memcpy(vr, pvs + (b * Nkv + h) * P * D, (size_t)(pb[b] * D) * sizeof *vr);
      }
      for (int64_t s = 0; s < S && pb[b] + s < Pp; s++) {
        memcpy(kr + (pb[b] + s) * D, kin + (b * S + s) * Wk + h * D, (size_t)D * sizeof *kr);
        memcpy(vr + (pb[b] + s) * D, vin + (b * S + s) * Wv + h * D, (size_t)D * sizeof *vr);
      }
    }
  if (prk && kc != prk->data) ox_narrow_f32(kc, prk);
  if (prv && vc != prv->data) ox_narrow_f32(vc, prv);
  float *sink = NULL;
  if (smooth || hs) {
    sink = fscratch(c, N);
    const float *h = hs ? fin(c, hs) : NULL;
    if (!sink || (hs && !h)) return c->err->code;
    if (h) memcpy(sink, h, (size_t)N * sizeof *sink);
  }
  ox_att_args a = {.B = B, .Hq = N, .Hkv = Nkv, .S = S, .T = total, .D = D, .Dv = D, .causal = 1, .pastb = pb,
                   .nkeys = nk, .left = lws > 0 ? lws - 1 : -1, .sink = sink, .softcap = softcap > 0 ? softcap : 0,
                   .qk_mode = qko == 1 ? 4 : 3, .zero_masked_rows = 1};
  a.scale = scale == 0.0f ? 1.0 / sqrt((double)D) : scale;
  a.qs[0] = S * W, a.qs[1] = D, a.qs[2] = W;
  a.ks[0] = Nkv * Pp * D, a.ks[1] = Pp * D, a.ks[2] = D;
  a.vs[0] = Nkv * Pp * D, a.vs[1] = Pp * D, a.vs[2] = D;
  a.ys[0] = S * N * D, a.ys[1] = D, a.ys[2] = N * D;
  if (ab) {
    a.bias = fin(c, ab);
    if (!a.bias) return c->err->code;
    int64_t st = S * total;
    a.bs[0] = ab->dims[0] == 1 ? 0 : ab->dims[1] * st, a.bs[1] = ab->dims[1] == 1 ? 0 : st, a.bs[2] = total, a.bs[3] = 1;
    a.blen = total;
  }
  float *ys = fout(c, y), *qk = qkt ? fout(c, qkt) : NULL;
  if (!ys || (qkt && !qk)) return c->err->code;
  OX_TRY(ox_attention_f32(c, &a, qa, kc, vc, ys, qko ? qk : NULL));
  fdone(ys, y);
  if (qkt) fdone(qk, qkt);
  return 0;
}

/* ---- the rows ---- */

#define F2 (OX_T(FLOAT) | OX_T(FLOAT16))
#define F3 (OX_T(FLOAT) | OX_T(FLOAT16) | OX_T(BFLOAT16))
#define F4 (OX_TS_FLOAT3 | OX_T(BFLOAT16))

const ox_kernel ox_contrib_transformer_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  /* onnxruntime's registrations in ai.onnx (LayerNormalization from 17 is the spec's) */
  { "", "LayerNormalization",                     1, 0, F4, 2, 3, ox_layernorm_k,
    "axis:int=-1,epsilon:float=1e-05,stash_type:int=1", ox_layernorm_load },
  { "", "SimplifiedLayerNormalization",           1, 0, F4, 2, 2, ox_rmsnorm_k,
    "axis:int=-1,epsilon:float=1e-05,stash_type:int=1", ox_layernorm_load },
  { "com.microsoft", "Attention",                 1, 0, F3, 2, 7, contrib_attention,
    "do_rotary:int,mask_filter_value:float,num_heads:int:required,past_present_share_buffer:int,"
    "qkv_hidden_sizes:ints,rotary_embedding_dim:int,scale:float,unidirectional:int=0" },
  { "com.microsoft", "BiasAdd",                   1, 0, F2, 3, 3, bias_add, "" },
  { "com.microsoft", "BiasGelu",                  1, 0, F4, 2, 2, bias_gelu, "" },
  { "com.microsoft", "BiasSoftmax",               1, 0, OX_TS_FLOAT3, 2, 2, bias_softmax,
    "axis:int=1,is_inner_broadcast:int:required" },
  { "com.microsoft", "BiasSplitGelu",             1, 0, F2, 2, 2, bias_split_gelu, "" },
  { "com.microsoft", "EmbedLayerNormalization",   1, 2, F2, 1, 9, embed_layernorm,
    "epsilon:float=1e-12,mask_index_type:int" },
  { "com.microsoft", "FastGelu",                  1, 0, F4, 1, 2, fast_gelu, "" },
  { "com.microsoft", "Gelu",                      1, 0, F4, 1, 1, ox_gelu_k, "", ox_gelu_load },
  { "com.microsoft", "GemmFastGelu",              1, 0, F3, 2, 3, gemm_fast_gelu, "" },
  { "com.microsoft", "GroupQueryAttention",       1, 0, F3, 1, 14, contrib_gqa,
    "do_rotary:int,k_quant_type:string=NONE,kv_cache_bit_width:int,kv_num_heads:int:required,"
    "local_window_size:int=-1,num_heads:int:required,qk_output:int=0,rotary_interleaved:int,scale:float,"
    "smooth_softmax:int=-1,softcap:float,v_quant_type:string=NONE" },
  { "com.microsoft", "MultiHeadAttention",        1, 0, F3, 1, 10, contrib_mha,
    "mask_filter_value:float,num_heads:int:required,scale:float,unidirectional:int=0" },
  { "com.microsoft", "QuickGelu",                 1, 0, F4, 1, 1, quick_gelu, "alpha:float=1.702" },
  { "com.microsoft", "RotaryEmbedding",           1, 0, F3, 4, 4, rotary_embedding,
    "interleaved:int,is_packed_batching:int,num_heads:int,rotary_embedding_dim:int,scale:float" },
  { "com.microsoft", "SkipLayerNormalization",    1, 0, F3, 3, 5, skip_layernorm, "epsilon:float=1e-12" },
  { "com.microsoft", "SkipSimplifiedLayerNormalization", 1, 0, F3, 3, 4, skip_simplified_layernorm,
    "epsilon:float=1e-12" },
  {0},
};
