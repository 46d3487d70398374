/* ops/experimental.c: ai.onnx's experimental operators, which onnx's
 * Changelog listed until onnx 1.5 removed them, and which onnxruntime still
 * runs for the models that use them (tests/op-versions-experimental.txt
 * lists them with their attributes as the Changelog last gave them).
 * `onnxop ops` shows their family, experimental; `run` warns once per model.
 *
 * Where onnxruntime's CPU provider has a kernel (contrib_ops/cpu/: Affine,
 * Crop, DynamicSlice, ImageScaler, MeanVarianceNormalization-1,
 * ParametricSoftplus, Scale, ScaledTanh, ThresholdedRelu-1) they compute what
 * it computes; the others (ConstantFill, GivenTensorFill, Embedding, FC,
 * GRUUnit, LoopIndexTensor) what the Changelog's text and Caffe2, where they
 * came from, say. ThresholdedRelu-1 is ThresholdedRelu-10's kernel and
 * DynamicSlice-1 Slice-10's. Float types compute in float (double in
 * double), rounded once on store. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/gemm.h"
#include "core/kernel.h"
#include "twins.h"

static int bad_shape(ox_ctx *c, int i, const ox_tensor *t, const char *want) {
  char b[128];
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must be %s", ox_input_name(c, i),
                 ox_shape_str(t->rank, t->dims, b, sizeof b), want);
}

/* A float attribute the kernel needs (onnxruntime refuses a node without it). */
static int need_float(ox_ctx *c, const char *name, float *v) {
  const ox_attr *a = ox_attr_find(c, name);
  if (!a) return ox_fail(c->err, OX_EINPUT, "attribute '%s' is required by this kernel", name);
  *v = ox_attr_float(c, name, 0);
  return c->err->code;
}

/* ---- elementwise: y = f(x) in double, rounded once ---- */
enum { EW_AFFINE, EW_SCALE, EW_SCALED_TANH, EW_SOFTPLUS };

static int elementwise(ox_ctx *c, int nin, ox_value **in, ox_value **out, int f) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  float a = 1, b = 0;
  switch (f) {
  case EW_AFFINE:
    a = ox_attr_float(c, "alpha", 1.0f);
    b = ox_attr_float(c, "beta", 0.0f);
    break;
  case EW_SCALE: a = ox_attr_float(c, "scale", 1.0f); break;
  default: /* ScaledTanh, ParametricSoftplus: alpha and beta have no default */
    OX_TRY(need_float(c, "alpha", &a));
    OX_TRY(need_float(c, "beta", &b));
  }
  if (c->err->code) return c->err->code;
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  double *v = ox_widen_f64(c->a, x, c->err);
  if (!v) return c->err->code;
  for (int64_t i = 0; i < x->n; i++) {
    double t = v[i];
    switch (f) {
    case EW_AFFINE: v[i] = (double)a * t + b; break;
    case EW_SCALE: v[i] = (double)a * t; break;
    case EW_SCALED_TANH: v[i] = a * tanh(b * t); break;
    default: { /* alpha ln(1 + e^(beta x)), in a form that does not overflow */
      double u = b * t;
      v[i] = a * (u > 0 ? u + log1p(exp(-u)) : log1p(exp(u)));
    }
    }
  }
  return ox_narrow_f64(c->a, v, &out[0]->u.t, OX_TO_INT_TRUNC, c->err);
}

static int affine(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return elementwise(c, nin, in, out, EW_AFFINE);
}
static int scale(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return elementwise(c, nin, in, out, EW_SCALE);
}
static int scaled_tanh(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return elementwise(c, nin, in, out, EW_SCALED_TANH);
}
static int parametric_softplus(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return elementwise(c, nin, in, out, EW_SOFTPLUS);
}

/* ---- ImageScaler: y = scale * x + bias[c]; x (N, C, H, W) ---- */
static int image_scaler(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  float s = ox_attr_float(c, "scale", 1.0f);
  int64_t nb;
  const ox_attr *ba = ox_attr_find(c, "bias");
  const float *bias = ba && ba->type == OX_ATTR_FLOATS ? ba->floats : NULL;
  nb = bias ? ba->n : 0;
  if (c->err->code) return c->err->code;
  if (x->rank != 4) return bad_shape(c, 0, x, "(N, C, H, W)");
  int64_t C = x->dims[1], HW = x->dims[2] * x->dims[3];
  if (nb && nb != C)
    return ox_fail(c->err, OX_EINPUT, "attribute 'bias' has %lld values; X has %lld channels", (long long)nb,
                   (long long)C);
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 4, x->dims, &out[0], c->err));
  double *v = ox_widen_f64(c->a, x, c->err);
  if (!v) return c->err->code;
  /* in float, as onnxruntime computes it: scale * x rounded, then + bias */
  for (int64_t i = 0; i < x->n; i++) {
    float t = (float)((double)s * (float)v[i]);
    v[i] = (double)(t + (nb ? bias[(i / HW) % C] : 0.0f));
  }
  return ox_narrow_f64(c->a, v, &out[0]->u.t, OX_TO_INT_TRUNC, c->err);
}

/* ---- Crop: x (N, C, H, W) cropped by border (left, top, right, bottom), or
 * to scale (height, width) from the top left border ---- */
static int crop(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  int64_t nb, ns;
  const int64_t *b = ox_attr_ints(c, "border", &nb), *sc = ox_attr_ints(c, "scale", &ns);
  if (c->err->code) return c->err->code;
  if (!b || nb != 4)
    return ox_fail(c->err, OX_EINPUT, "attribute 'border' must have 4 values (left, top, right, bottom)");
  if (sc && ns != 2) return ox_fail(c->err, OX_EINPUT, "attribute 'scale' must have 2 values (height, width)");
  if (x->rank != 4) return bad_shape(c, 0, x, "(N, C, H, W)");
  int64_t H = x->dims[2], W = x->dims[3], l = b[0], t = b[1], r = b[2], bo = b[3];
  if (l < 0 || t < 0 || r < 0 || bo < 0 || (sc && (sc[0] < 0 || sc[1] < 0)))
    return ox_fail(c->err, OX_EINPUT, "border and scale must not be negative");
  if (H < t + bo || W < l + r)
    return ox_fail(c->err, OX_EINPUT, "X is %lld x %lld; the borders (%lld, %lld, %lld, %lld) do not fit",
                   (long long)H, (long long)W, (long long)l, (long long)t, (long long)r, (long long)bo);
  int64_t bottom = H - bo, right = W - r;
  if (sc) {
    bottom = t + sc[0], right = l + sc[1];
    if (bottom > H || right > W)
      return ox_fail(c->err, OX_EINPUT, "X is %lld x %lld; scale (%lld, %lld) from (%lld, %lld) does not fit",
                     (long long)H, (long long)W, (long long)sc[0], (long long)sc[1], (long long)t, (long long)l);
  }
  int64_t od[4] = {x->dims[0], x->dims[1], bottom - t, right - l};
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 4, od, &out[0], c->err));
  size_t es = ox_dtype_size(x->dt), row = (size_t)od[3] * es;
  char *dst = out[0]->u.t.data;
  const char *src = x->data;
  for (int64_t nc = 0; nc < od[0] * od[1] && row; nc++)
    for (int64_t y = t; y < bottom; y++, dst += row) memcpy(dst, src + (size_t)((nc * H + y) * W + l) * es, row);
  return 0;
}

/* ---- MeanVarianceNormalization-1: y = x - mean, / sqrt(mean((x - mean)^2))
 * with normalize_variance, over (0, 2, 3), or (0, 1, 2, 3) across_channels.
 * As onnxruntime's kernel: no epsilon (a constant run gives NaN). ---- */
static int mvn1(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  int across = ox_attr_int(c, "across_channels", 0) == 1, nv = ox_attr_int(c, "normalize_variance", 1) == 1;
  if (c->err->code) return c->err->code;
  if (x->rank != 4) return bad_shape(c, 0, x, "(N, C, H, W)");
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 4, x->dims, &out[0], c->err));
  double *v = ox_widen_f64(c->a, x, c->err);
  if (!v) return c->err->code;
  int64_t N = x->dims[0], C = x->dims[1], HW = x->dims[2] * x->dims[3];
  int64_t groups = across ? 1 : C, per = across ? C : 1; /* the channels one statistic covers */
  for (int64_t g = 0; g < groups; g++) {
    double m = 0, q = 0, cnt = (double)(N * per * HW);
    for (int64_t n = 0; n < N; n++)
      for (int64_t i = (n * C + g * per) * HW; i < (n * C + (g + 1) * per) * HW; i++) m += v[i];
    m = cnt ? m / cnt : 0;
    for (int64_t n = 0; n < N; n++)
      for (int64_t i = (n * C + g * per) * HW; i < (n * C + (g + 1) * per) * HW; i++) v[i] -= m, q += v[i] * v[i];
    if (!nv) continue;
    q = sqrt(cnt ? q / cnt : 0);
    for (int64_t n = 0; n < N; n++)
      for (int64_t i = (n * C + g * per) * HW; i < (n * C + (g + 1) * per) * HW; i++) v[i] /= q;
  }
  return ox_narrow_f64(c->a, v, &out[0]->u.t, OX_TO_INT_TRUNC, c->err);
}

/* ---- the fills ----
 * The output's shape: the `shape` attribute without an input; with one, the
 * input's values (input_as_shape) or its shape, then extra_shape. */
static int fill_shape(ox_ctx *c, int nin, ox_value **in, int64_t **dims, int *rank) {
  const ox_tensor *x;
  OX_TRY(ox_opt_tensor_in(c, in, nin, 0, &x));
  int64_t ns, ne;
  const int64_t *sh = ox_attr_ints(c, "shape", &ns), *ex = ox_attr_ints(c, "extra_shape", &ne);
  int as_shape = ox_attr_int(c, "input_as_shape", 0) != 0;
  if (c->err->code) return c->err->code;
  int64_t base = 0, *d;
  const int64_t *src = NULL;
  int64_t *vals = NULL;
  if (!x) {
    if (ex && ne) return ox_fail(c->err, OX_EINPUT, "extra_shape needs an input (the shape it extends)");
    if (as_shape) return ox_fail(c->err, OX_EINPUT, "input_as_shape needs an input");
    base = sh ? ns : 0, src = sh;
    ne = 0;
  } else {
    if (sh && ns) return ox_fail(c->err, OX_EINPUT, "the shape attribute cannot be given with an input");
    if (as_shape) {
      double *v = ox_widen_f64(c->a, x, c->err);
      if (!v) return c->err->code;
      if (x->rank > 1) return bad_shape(c, 0, x, "1-D (input_as_shape)");
      vals = ox_alloc_array(c->a, x->n + 1, sizeof *vals);
      if (!vals) return ox_oom(c->err, NULL);
      for (int64_t i = 0; i < x->n; i++) vals[i] = (int64_t)v[i];
      base = x->n, src = vals;
    } else {
      base = x->rank, src = x->dims;
    }
    if (!ex) ne = 0;
  }
  if (base + ne > OX_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "the shape has more than %d dims", OX_MAX_RANK);
  d = ox_alloc_array(c->a, base + ne + 1, sizeof *d);
  if (!d) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < base; i++) d[i] = src[i];
  for (int64_t i = 0; i < ne; i++) d[base + i] = ex[i];
  for (int64_t i = 0; i < base + ne; i++)
    if (d[i] < 0) return ox_fail(c->err, OX_EINPUT, "the output shape's dim %lld is %lld", (long long)i, (long long)d[i]);
  *dims = d, *rank = (int)(base + ne);
  return 0;
}

/* ConstantFill-1: `value` in the type `dtype` (float, int32, int64, bool). */
static int constant_fill(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  int64_t dt = ox_attr_int(c, "dtype", OX_FLOAT);
  float value = ox_attr_float(c, "value", 0.0f);
  if (c->err->code) return c->err->code;
  if (dt != OX_FLOAT && dt != OX_INT32 && dt != OX_INT64 && dt != OX_BOOL)
    return ox_fail(c->err, OX_EINPUT, "dtype %lld: ConstantFill makes float (1), int32 (6), int64 (7) or bool (9)",
                   (long long)dt);
  int64_t *d;
  int r;
  OX_TRY(fill_shape(c, nin, in, &d, &r));
  OX_TRY(ox_tensor_new_uninit(c->a, (ox_dtype)dt, r, d, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  for (int64_t i = 0; i < y->n; i++) {
    if (dt == OX_BOOL) ((uint8_t *)y->data)[i] = value != 0;
    else ox_store_f64(y->dt, y->data, i, dt == OX_FLOAT ? (double)value : trunc((double)value));
  }
  return 0;
}

/* GivenTensorFill-1: the tensor of `values` (as many as its elements), of
 * the input's type (float without one). */
static int given_tensor_fill(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  int64_t nv;
  const ox_attr *va = ox_attr_find(c, "values");
  const float *vals = va && va->type == OX_ATTR_FLOATS ? va->floats : NULL;
  nv = vals ? va->n : 0;
  int64_t *d;
  int r;
  OX_TRY(fill_shape(c, nin, in, &d, &r));
  ox_dtype dt = nin > 0 && in[0] && in[0]->kind == OX_TENSOR ? in[0]->u.t.dt : OX_FLOAT;
  OX_TRY(ox_tensor_new_uninit(c->a, dt, r, d, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (nv != y->n) {
    char b[96];
    return ox_fail(c->err, OX_EINPUT, "attribute 'values' has %lld values; the output %s has %lld elements",
                   (long long)nv, ox_shape_str(r, d, b, sizeof b), (long long)y->n);
  }
  for (int64_t i = 0; i < y->n; i++) ox_store_f64(y->dt, y->data, i, vals[i]);
  return 0;
}

/* ---- Embedding-1: output (N, O) = columns of weights (O, I), as the
 * Changelog gives its shape, picked by input (N) int64 in [0, I) ---- */
static int embedding(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  const ox_attr *wa = ox_attr_find(c, "weights");
  int64_t I = ox_attr_int(c, "input_dim", -1), O = ox_attr_int(c, "output_dim", -1);
  if (c->err->code) return c->err->code;
  if (!wa || wa->type != OX_ATTR_TENSOR || !wa->t || wa->t->kind != OX_TENSOR)
    return ox_fail(c->err, OX_EINPUT, "attribute 'weights' (a tensor) is required");
  const ox_tensor *w = &wa->t->u.t;
  if (x->dt != OX_INT64) return ox_fail(c->err, OX_EINPUT, "%s must be int64", ox_input_name(c, 0));
  if (x->rank != 1) return bad_shape(c, 0, x, "(N)");
  if (w->rank != 2 || !ox_dtype_is_float(w->dt) || (O >= 0 && w->dims[0] != O) || (I >= 0 && w->dims[1] != I)) {
    char b[96];
    return ox_fail(c->err, OX_EINPUT, "attribute 'weights' is %s %s; it must be floats of shape (output_dim, "
                   "input_dim)", ox_dtypes[w->dt].onnx_name, ox_shape_str(w->rank, w->dims, b, sizeof b));
  }
  O = w->dims[0], I = w->dims[1];
  int64_t od[2] = {x->dims[0], O};
  OX_TRY(ox_tensor_new_uninit(c->a, w->dt, 2, od, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  const int64_t *ids = x->data;
  size_t es = ox_dtype_size(w->dt);
  for (int64_t n = 0; n < x->n; n++) {
    if (ids[n] < 0 || ids[n] >= I)
      return ox_fail(c->err, OX_EINPUT, "input[%lld] is %lld; it must be in [0, %lld)", (long long)n,
                     (long long)ids[n], (long long)I);
    for (int64_t o = 0; o < O; o++)
      memcpy((char *)y->data + (size_t)(n * O + o) * es, (const char *)w->data + (size_t)(o * I + ids[n]) * es, es);
  }
  return 0;
}

/* ---- FC-1 (Caffe2's FC): Y (M, N) = X (M, K) · W (N, K)^T + B (N), X and W
 * flattened to 2-D at axis and axis_w ---- */
static int fc(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *w, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &w));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &b));
  OX_TRY(ox_same_dtype(c, 1, w, x->dt));
  OX_TRY(ox_same_dtype(c, 2, b, x->dt));
  int ax, aw;
  OX_TRY(ox_axis(c, ox_attr_int(c, "axis", 1), x->rank, 1, "axis", &ax));
  OX_TRY(ox_axis(c, ox_attr_int(c, "axis_w", 1), w->rank, 1, "axis_w", &aw));
  int64_t M = 1, K = 1, N = 1, Kw = 1;
  for (int i = 0; i < x->rank; i++) *(i < ax ? &M : &K) *= x->dims[i];
  for (int i = 0; i < w->rank; i++) *(i < aw ? &N : &Kw) *= w->dims[i];
  if (K != Kw)
    return ox_fail(c->err, OX_EINPUT, "X flattened at axis %d is (%lld, %lld) and W at axis_w %d is (%lld, %lld); "
                   "their second dims must agree", ax, (long long)M, (long long)K, aw, (long long)N, (long long)Kw);
  if (b->n != N) return bad_shape(c, 2, b, "(N), W's first dims");
  int64_t od[2] = {M, N};
  OX_TRY(ox_tensor_new(c->a, x->dt, 2, od, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!y->n) return 0;
  double *xd = ox_widen_f64(c->a, x, c->err), *wd = xd ? ox_widen_f64(c->a, w, c->err) : NULL;
  double *bd = wd ? ox_widen_f64(c->a, b, c->err) : NULL, *yd = ox_alloc_array(c->a, y->n + 1, sizeof *yd);
  if (!bd) return c->err->code;
  if (!yd) return ox_oom(c->err, NULL);
  for (int64_t m = 0; m < M; m++) memcpy(yd + m * N, bd, (size_t)N * sizeof *yd);
  if (K) ox_dgemm(c->threads, M, N, K, xd, K, 0, wd, K, 1, yd, N, 1.0, 1.0);
  return ox_narrow_f64(c->a, yd, y, OX_TO_INT_TRUNC, c->err);
}

/* ---- GRUUnit-1 (Caffe2's GRUUnit): per batch n and unit d, with u and o
 * the update and output gates (gates' second and third D-blocks; the reset
 * gate was applied before):
 *   h = h_prev * sigmoid(u) + tanh(o) * (1 - sigmoid(u))   when t < seq_lengths[n]
 *   h = drop_states ? 0 : h_prev                            otherwise
 * hidden_prev (..., N, D), gates (..., N, 3D), seq_lengths (N), t one value. */
static int gru_unit(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *h, *g, *sl, *tt;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &h));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &g));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &sl));
  OX_TRY(ox_tensor_in(c, in, nin, 3, &tt));
  OX_TRY(ox_same_dtype(c, 1, g, h->dt));
  int drop = ox_attr_int(c, "drop_states", 0) != 0;
  if (c->err->code) return c->err->code;
  if (h->rank < 2) return bad_shape(c, 0, h, "(..., N, D)");
  int64_t D = h->dims[h->rank - 1], N = h->n / (D ? D : 1);
  if (!D) N = h->dims[h->rank - 2];
  if (g->rank < 2 || g->dims[g->rank - 1] != 3 * D || g->n != 3 * h->n) return bad_shape(c, 1, g, "(..., N, 3 D)");
  if (sl->n != N) return bad_shape(c, 2, sl, "(N)");
  if (tt->n != 1) return bad_shape(c, 3, tt, "one value");
  OX_TRY(ox_tensor_new_uninit(c->a, h->dt, h->rank, h->dims, &out[0], c->err));
  double *hd = ox_widen_f64(c->a, h, c->err), *gd = hd ? ox_widen_f64(c->a, g, c->err) : NULL;
  double *sd = gd ? ox_widen_f64(c->a, sl, c->err) : NULL, *td = sd ? ox_widen_f64(c->a, tt, c->err) : NULL;
  if (!td) return c->err->code;
  for (int64_t n = 0; n < N; n++)
    for (int64_t d = 0; d < D; d++) {
      double *hv = hd + n * D + d;
      if (td[0] < sd[n]) {
        double u = 1 / (1 + exp(-gd[n * 3 * D + D + d])), o = tanh(gd[n * 3 * D + 2 * D + d]);
        *hv = *hv * u + o * (1 - u);
      } else if (drop) {
        *hv = 0;
      }
    }
  return ox_narrow_f64(c->a, hd, &out[0]->u.t, OX_TO_INT_TRUNC, c->err);
}

/* ---- LoopIndexTensor-1: the sub-tensor of T at index loop_idx (int32, one
 * value) along axis: T with that dim removed ---- */
static int loop_index_tensor(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *ix;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &ix));
  int axis;
  if (x->rank < 1) return bad_shape(c, 0, x, "of rank 1 or more");
  OX_TRY(ox_axis(c, ox_attr_int(c, "axis", 0), x->rank, 0, "axis", &axis));
  if (ix->dt != OX_INT32 || ix->n != 1)
    return ox_fail(c->err, OX_EINPUT, "%s must be one int32 value", ox_input_name(c, 1));
  int64_t i = ((const int32_t *)ix->data)[0], n = x->dims[axis];
  if (i < 0 || i >= n)
    return ox_fail(c->err, OX_EINPUT, "loop_idx is %lld; axis %d has %lld entries", (long long)i, axis, (long long)n);
  int64_t od[OX_MAX_RANK], outer = 1, inner = 1;
  for (int k = 0, j = 0; k < x->rank; k++) {
    if (k == axis) continue;
    od[j++] = x->dims[k];
    if (k < axis) outer *= x->dims[k];
    else inner *= x->dims[k];
  }
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank - 1, od, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (x->dt == OX_STRING) {
    ox_str *ys = y->data;
    const ox_str *xs = x->data;
    for (int64_t o = 0; o < outer; o++)
      for (int64_t k = 0; k < inner; k++) ys[o * inner + k] = xs[(o * n + i) * inner + k];
    return 0;
  }
  size_t es = ox_dtype_size(x->dt), row = (size_t)inner * es;
  for (int64_t o = 0; o < outer && row; o++)
    memcpy((char *)y->data + (size_t)o * row, (const char *)x->data + (size_t)(o * n + i) * row, row);
  return 0;
}

#define ATEN_WHY "ATen calls a PyTorch operator by name (PyTorch's exporter's fallback); onnxop has no PyTorch to call"
#define F3 OX_TS_FLOAT3

const ox_kernel ox_experimental_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "ATen",                       1, OX_NOT_RUN(ATEN_WHY) },
  { "", "Affine",                     1, 0, F3, 1, 1, affine, "alpha:float=1.0,beta:float=0.0" },
  { "", "ConstantFill",               1, -1, OX_T(FLOAT) | OX_T(INT32) | OX_T(INT64) | OX_T(BOOL), 0, 1,
    constant_fill, "dtype:int=1,extra_shape:ints,input_as_shape:int,shape:ints,value:float=0.0" },
  { "", "Crop",                       1, 0, F3, 1, 1, crop, "border:ints,scale:ints" },
  { "", "DynamicSlice",               1, 0, OX_TS_CLASSIC, 3, 4, ox_slice10_k, "", ox_slice10_load },
  { "", "Embedding",                  1, 0, OX_T(INT64), 1, 1, embedding,
    "input_dim:int,output_dim:int,weights:tensor" },
  { "", "FC",                         1, 0, F3, 3, 3, fc, "axis:int,axis_w:int" },
  { "", "GRUUnit",                    1, 0, F3, 4, 4, gru_unit, "drop_states:int" },
  { "", "GivenTensorFill",            1, 0, F3, 0, 1, given_tensor_fill,
    "extra_shape:ints,input_as_shape:int,shape:ints,values:floats" },
  { "", "ImageScaler",                1, 0, F3, 1, 1, image_scaler, "bias:floats,scale:float=1.0" },
  { "", "LoopIndexTensor",            1, 0, 0, 2, 2, loop_index_tensor, "axis:int" },
  { "", "MeanVarianceNormalization",  1, 0, F3, 1, 1, mvn1, "across_channels:int=0,normalize_variance:int=1" },
  { "", "ParametricSoftplus",         1, 0, F3, 1, 1, parametric_softplus, "alpha:float,beta:float" },
  { "", "Scale",                      1, 0, F3, 1, 1, scale, "scale:float=1.0" },
  { "", "ScaledTanh",                 1, 0, F3, 1, 1, scaled_tanh, "alpha:float,beta:float" },
  { "", "ThresholdedRelu",            1, 0, F3, 1, 1, ox_thresholded_relu_k, "alpha:float=1.0",
    ox_thresholded_relu_load },
  {0},
};
