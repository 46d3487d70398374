/* ops/ml/linear.c: ai.onnx.ml linear models, Normalizer and Scaler.
 *
 * Every op here reads X (float, double, int64 or int32) as (N, C) rows of C
 * features (a 1-D X is one row) and writes float. Arithmetic is in double,
 * rounded once to float on store. */
#include <math.h>
#include <string.h>

#include "core/kernel.h"
#include "ops/ml/ml.h"

/* ---- shared ---- */

/* Input 0, which must be a tensor. */
static int tensor0(ox_ctx *c, ox_value **in, const ox_tensor **x) {
  const ox_value *v = in[0];
  if (!v || v->kind != OX_TENSOR) {
    char desc[128];
    return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a tensor", ox_input_name(c, 0),
                   v ? ox_value_desc(v, desc, sizeof desc) : "missing");
  }
  *x = &v->u.t;
  return 0;
}

/* Input 0 as rows: X (N, C), or (C,) as N = 1. */
static int rows_of(ox_ctx *c, ox_value **in, int64_t *N, int64_t *C) {
  const ox_tensor *x;
  OX_TRY(tensor0(c, in, &x));
  if (x->rank < 1 || x->rank > 2) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s; expected (N, C) or (C,)", ox_input_name(c, 0),
                   ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  }
  *N = x->rank == 2 ? x->dims[0] : 1;
  *C = x->dims[x->rank - 1];
  return 0;
}

/* A floats attribute: NULL and *n = 0 when absent (or empty). */
static const float *floats_attr(ox_ctx *c, const char *name, int64_t *n) {
  const ox_attr *at = ox_attr_find(c, name);
  *n = 0;
  if (!at) return NULL;
  if (at->type != OX_ATTR_FLOATS) {
    ox_fail(c->err, OX_EINPUT, "attribute '%s' must be a list of floats", name);
    return NULL;
  }
  *n = at->n;
  return at->n ? at->floats : NULL;
}

/* X's element i as a double. */
static double xat(const ox_tensor *x, int64_t i) { return ox_load_f64(x->dt, x->data, i); }

/* The linear model's weights: coefficients (E, C) and intercepts (E,) or none.
 * E = len(coefficients) / C; `targets` (when > 0) must equal it. */
typedef struct { const float *w, *b; int64_t E; } linear_model;

static int linear_attrs(ox_ctx *c, int64_t C, int64_t targets, linear_model *m) {
  int64_t nw, nb;
  m->w = floats_attr(c, "coefficients", &nw);
  m->b = floats_attr(c, "intercepts", &nb);
  if (c->err->code) return c->err->code;
  if (!nw) return ox_fail(c->err, OX_EINPUT, "attribute 'coefficients' is required");
  if (!C || nw % C)
    return ox_fail(c->err, OX_EINPUT, "attribute coefficients has %lld values, not a multiple of %lld "
                   "(the features of %s)", (long long)nw, (long long)C, ox_input_name(c, 0));
  m->E = nw / C;
  if (targets > 0 && m->E != targets)
    return ox_fail(c->err, OX_EINPUT, "attribute coefficients has %lld values: %lld targets of %lld "
                   "features, but targets = %lld", (long long)nw, (long long)m->E, (long long)C,
                   (long long)targets);
  if (nb && nb != m->E)
    return ox_fail(c->err, OX_EINPUT, "attribute intercepts has %lld values; it needs %lld, one per %s",
                   (long long)nb, (long long)m->E, targets > 0 ? "target" : "class");
  return 0;
}

/* s[e] = x[row] . w[e] + b[e] for the E rows of weights; xr: C doubles of
 * scratch (the row read once). */
static void linear_row(const linear_model *m, const ox_tensor *x, int64_t row, int64_t C, double *xr,
                       double *s) {
  for (int64_t j = 0; j < C; j++) xr[j] = xat(x, row * C + j);
  for (int64_t e = 0; e < m->E; e++) {
    const float *w = m->w + e * C;
    double acc = m->b ? m->b[e] : 0;
    for (int64_t j = 0; j < C; j++) acc += (double)w[j] * xr[j];
    s[e] = acc;
  }
}

/* ---- LinearClassifier ---- */

/* X: (N, C) -> Y: (N,) labels, Z: float (N, E) scores, E = the number of
 * classes. One row of coefficients with two labels is a binary model: its
 * scores are [-s, s] (as the ONNX reference; onnxruntime writes [1 - s, s]
 * for NONE and SOFTMAX). post_transform applies to the scores; the label is
 * that of the highest (transformed) score, the first one on ties.
 * multi_class does not change the arithmetic. */
static int linear_classifier(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int64_t N, C;
  OX_TRY(rows_of(c, in, &N, &C));
  const ox_tensor *x = &in[0]->u.t;
  linear_model m;
  int pt;
  OX_TRY(linear_attrs(c, C, 0, &m));
  OX_TRY(ox_ml_post_transform_attr(c, &pt));
  const ox_attr *li = ox_attr_find(c, "classlabels_ints"), *ls = ox_attr_find(c, "classlabels_strings");
  if ((li && li->type != OX_ATTR_INTS) || (ls && ls->type != OX_ATTR_STRINGS))
    return ox_fail(c->err, OX_EINPUT, "attributes classlabels_ints and classlabels_strings must be "
                   "lists of ints and of strings");
  if (!li == !ls)
    return ox_fail(c->err, OX_EINPUT, "exactly one of the attributes 'classlabels_ints' and "
                   "'classlabels_strings' is required");
  const ox_attr *lab = li ? li : ls;
  int binary = m.E == 1 && lab->n == 2;
  int64_t K = binary ? 2 : m.E; /* score columns */
  if (!binary && lab->n != m.E)
    return ox_fail(c->err, OX_EINPUT, "attribute %s has %lld labels for %lld classes (coefficients "
                   "has %lld rows of %lld)", lab->name, (long long)lab->n, (long long)m.E,
                   (long long)m.E, (long long)C);
  ox_dtype ldt = li ? OX_INT64 : OX_STRING;
  OX_TRY(ox_tensor_new(c->a, ldt, 1, &N, &out[0], c->err));
  int64_t zdims[2] = {N, K};
  ox_value *z;
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, 2, zdims, &z, c->err));
  if (nout > 1) out[1] = z;
  double *s = ox_alloc_array(c->a, K, sizeof *s), *xr = ox_alloc_array(c->a, C, sizeof *xr);
  if (!s || !xr) return ox_oom(c->err, NULL);
  for (int64_t n = 0; n < N; n++) {
    linear_row(&m, x, n, C, xr, binary ? s + 1 : s);
    if (binary) s[0] = -s[1];
    ox_ml_post_transform(pt, s, K);
    int64_t best = 0;
    for (int64_t k = 0; k < K; k++) {
      ((float *)z->u.t.data)[n * K + k] = (float)s[k];
      if (s[k] > s[best]) best = k;
    }
    if (li) ((int64_t *)out[0]->u.t.data)[n] = lab->ints[best];
    else ((ox_str *)out[0]->u.t.data)[n] = lab->strings[best];
  }
  return 0;
}

/* ---- LinearRegressor ---- */

/* X: (N, C) -> Y: float (N, targets) = X W^T + b, then post_transform over
 * each row of targets. */
static int linear_regressor(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int64_t N, C;
  OX_TRY(rows_of(c, in, &N, &C));
  const ox_tensor *x = &in[0]->u.t;
  int64_t targets = ox_attr_int(c, "targets", 1);
  if (c->err->code) return c->err->code;
  if (targets < 1)
    return ox_fail(c->err, OX_EINPUT, "attribute targets = %lld; it must be positive", (long long)targets);
  linear_model m;
  int pt;
  OX_TRY(linear_attrs(c, C, targets, &m));
  OX_TRY(ox_ml_post_transform_attr(c, &pt));
  int64_t dims[2] = {N, targets};
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, 2, dims, &out[0], c->err));
  double *s = ox_alloc_array(c->a, targets, sizeof *s), *xr = ox_alloc_array(c->a, C, sizeof *xr);
  if (!s || !xr) return ox_oom(c->err, NULL);
  float *y = out[0]->u.t.data;
  for (int64_t n = 0; n < N; n++) {
    linear_row(&m, x, n, C, xr, s);
    ox_ml_post_transform(pt, s, targets);
    for (int64_t k = 0; k < targets; k++) y[n * targets + k] = (float)s[k];
  }
  return 0;
}

/* ---- Normalizer ---- */

/* Each row of X (N, C) divided by its max (MAX: the largest value, not the
 * largest magnitude, as the spec writes max(X) and onnxruntime does; the
 * reference takes max |x|), its sum of magnitudes (L1) or its Euclidean
 * norm (L2: the spec's sqrt(X^2 / sum(X^2)) with X's sign kept, as both do).
 * A zero divisor leaves the row as it is. Y: float, X's shape. */
static int normalizer(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int64_t N, C;
  OX_TRY(rows_of(c, in, &N, &C));
  const ox_tensor *x = &in[0]->u.t;
  const char *norm = ox_attr_string(c, "norm", "MAX");
  if (c->err->code) return c->err->code;
  int mode = !strcmp(norm, "MAX") ? 0 : !strcmp(norm, "L1") ? 1 : !strcmp(norm, "L2") ? 2 : -1;
  if (mode < 0)
    return ox_fail(c->err, OX_EINPUT, "attribute norm = '%s'; expected MAX, L1 or L2", norm);
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, x->rank, x->dims, &out[0], c->err));
  float *y = out[0]->u.t.data;
  for (int64_t n = 0; n < N; n++) {
    double d = mode == 0 ? -INFINITY : 0;
    for (int64_t j = 0; j < C; j++) {
      double v = xat(x, n * C + j);
      if (mode == 0) d = v > d ? v : d;
      else d += mode == 1 ? fabs(v) : v * v;
    }
    if (mode == 2) d = sqrt(d);
    for (int64_t j = 0; j < C; j++) {
      double v = xat(x, n * C + j);
      y[n * C + j] = (float)(d != 0 ? v / d : v);
    }
  }
  return 0;
}

/* ---- Scaler ---- */

/* Y = (X - offset) * scale, float, X's shape; offset and scale have one
 * value per feature (X's last dimension) or one for all, and the same length
 * when both are given. An absent one is 0 (offset) or 1 (scale). */
static int scaler(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(tensor0(c, in, &x));
  int64_t no, ns;
  const float *off = floats_attr(c, "offset", &no), *sc = floats_attr(c, "scale", &ns);
  if (c->err->code) return c->err->code;
  int64_t C = x->rank ? x->dims[x->rank - 1] : 1;
  if (no && ns && no != ns)
    return ox_fail(c->err, OX_EINPUT, "attributes offset (%lld values) and scale (%lld) must be as long",
                   (long long)no, (long long)ns);
  int64_t k = no ? no : ns;
  if (k > 1 && k != C)
    return ox_fail(c->err, OX_EINPUT, "attributes offset and scale have %lld values; they need 1 or "
                   "%lld (the last dimension of %s)", (long long)k, (long long)C, ox_input_name(c, 0));
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, x->rank, x->dims, &out[0], c->err));
  float *y = out[0]->u.t.data;
  for (int64_t i = 0; i < x->n; i++) {
    int64_t j = k > 1 ? i % C : 0;
    y[i] = (float)((xat(x, i) - (off ? off[j] : 0.0)) * (sc ? sc[j] : 1.0));
  }
  return 0;
}

#define D "ai.onnx.ml"
#define TS_FDI (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(INT64) | OX_T(INT32))
const ox_kernel ox_ml_linear_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { D, "LinearClassifier", 1, 0, TS_FDI, 1, 1, linear_classifier,
    "classlabels_ints:ints,classlabels_strings:strings,coefficients:floats:required,"
    "intercepts:floats,multi_class:int=0,post_transform:string=NONE" },
  { D, "LinearRegressor",  1, 0, TS_FDI, 1, 1, linear_regressor,
    "coefficients:floats,intercepts:floats,post_transform:string=NONE,targets:int=1" },
  { D, "Normalizer",       1, 0, TS_FDI, 1, 1, normalizer, "norm:string=MAX" },
  { D, "Scaler",           1, 0, TS_FDI, 1, 1, scaler, "offset:floats,scale:floats" },
  {0},
};
