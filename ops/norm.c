/* ops/norm.c: the normalizations (BatchNormalization, InstanceNormalization,
 * LayerNormalization, GroupNormalization, RMSNormalization, LpNormalization,
 * MeanVarianceNormalization, LRN) and Dropout.
 *
 * Every op here is memory-bound and its statistics need more precision than
 * the element type, so each widens its inputs once to double (small floats
 * through float), computes in double, and rounds once on store. There is no
 * per-type code: the bodies are written once on doubles. Means and variances
 * are two passes over each contiguous row (mean, then the sum of squared
 * deviations), which keeps constant rows exactly at variance 0. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/fuse.h"
#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"
#include "core/random.h"
#include "twins.h"

/* One rounding per operation and gcc's cheap vectoriser cost model, for
 * the row loops: the Makefile's ROW_FLAGS for this file. */

/* ---- widening and narrowing ---- */

/* A double copy of t's data (arena memory), NULL with c->err set. */
static double *load_d(ox_ctx *c, const ox_tensor *t) {
  double *d = ox_alloc_array(c->a, t->n + 1, sizeof *d);
  if (!d) {
    ox_oom(c->err, NULL);
    return NULL;
  }
  switch (t->dt) {
#define CASE(NAME, T)                                                                \
  case OX_##NAME: {                                                                  \
    const T *s = t->data;                                                            \
    for (int64_t i = 0; i < t->n; i++) d[i] = (double)s[i];                          \
  } break;
    OX_NATIVE_TYPES(CASE)
#undef CASE
  default: { /* the small floats: exact in float */
    const float *f = ox_widen_f32(c->a, t, c->err);
    if (!f) return NULL;
    for (int64_t i = 0; i < t->n; i++) d[i] = f[i];
  }
  }
  return d;
}

/* Store src into t (rounding once for float and double; the small floats go
 * through float, as every small-float kernel does). */
static int store_d(ox_ctx *c, const double *src, ox_tensor *t) {
  switch (t->dt) {
  case OX_FLOAT: {
    float *y = t->data;
    for (int64_t i = 0; i < t->n; i++) y[i] = (float)src[i];
  } break;
  case OX_DOUBLE:
    if (t->n) memcpy(t->data, src, (size_t)t->n * sizeof *src);
    break;
  default: {
    float *f = ox_alloc_array(c->a, t->n + 1, sizeof *f);
    if (!f) return ox_oom(c->err, NULL);
    for (int64_t i = 0; i < t->n; i++) f[i] = (float)src[i];
    ox_narrow_f32(f, t);
  }
  }
  return 0;
}

/* A new tensor like x (dtype dt) holding y. */
static int emit(ox_ctx *c, ox_dtype dt, int rank, const int64_t *dims, const double *y,
                ox_value **out) {
  OX_TRY(ox_tensor_new(c->a, dt, rank, dims, out, c->err));
  return store_d(c, y, &(*out)->u.t);
}

static double *scratch(ox_ctx *c, int64_t n) {
  double *d = ox_alloc_array(c->a, n + 1, sizeof *d);
  if (!d) ox_oom(c->err, NULL);
  return d;
}

/* Is output i requested (listed with a non-empty name)? */
static int wanted(ox_ctx *c, int nout, int i) {
  return i < nout && c->node->out && c->node->out[i] && c->node->out[i][0];
}

/* An empty x gives an empty y of its shape. Every op returns early this way,
 * so that below, any product of some of x's dims is at most x->n (no
 * overflow, no long loops over rows of nothing). */
static int empty_out(ox_ctx *c, const ox_tensor *x, ox_dtype dt, ox_value **out) {
  return ox_tensor_new(c->a, dt, x->rank, x->dims, out, c->err);
}

/* x: (N, C, S...) as N, C and the product S of the spatial dims. */
static int split_nc(ox_ctx *c, const ox_tensor *x, int64_t *N, int64_t *C, int64_t *S) {
  if (x->rank < 2) return ox_fail(c->err, OX_EINPUT, "input 0 has rank %d; it must be (N, C, ...)", x->rank);
  *N = x->dims[0];
  *C = x->dims[1];
  *S = x->n ? 1 : 0;
  for (int i = 2; i < x->rank && x->n; i++) *S *= x->dims[i]; /* <= x->n */
  return 0;
}

/* A per-channel parameter (input i) of n elements, as doubles. */
static int param(ox_ctx *c, ox_value **in, int i, int64_t n, const char *what, double **out) {
  const ox_tensor *p = &in[i]->u.t;
  if (in[i]->kind != OX_TENSOR || !ox_dtype_is_float(p->dt))
    return ox_fail(c->err, OX_EINPUT, "%s must be a float tensor", ox_input_name(c, i));
  if (p->n != n) {
    char b[96];
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must hold %s: %lld elements",
                   ox_input_name(c, i), ox_shape_str(p->rank, p->dims, b, sizeof b), what,
                   (long long)n);
  }
  return (*out = load_d(c, p)) ? 0 : c->err->code;
}

/* ---- the row normalization every op builds on ----
 * x, y: (rows, len). Per row: mean m (0 unless `center`), variance v (mean of
 * squared deviations), inv = 1/sqrt(v + eps); y = (x - m) * inv. */
static void norm_rows(const double *x, double *y, int64_t rows, int64_t len, double eps,
                      int center, double *mean_out, double *inv_out) {
  for (int64_t r = 0; r < rows; r++) {
    const double *xr = x + r * len;
    double *yr = y + r * len, m = 0, v = 0;
    if (center && len) {
      for (int64_t j = 0; j < len; j++) m += xr[j];
      m /= (double)len;
    }
    for (int64_t j = 0; j < len; j++) {
      double d = xr[j] - m;
      v += d * d;
    }
    if (len) v /= (double)len;
    double inv = 1.0 / sqrt(v + eps);
    for (int64_t j = 0; j < len; j++) yr[j] = (xr[j] - m) * inv;
    if (mean_out) mean_out[r] = m;
    if (inv_out) inv_out[r] = inv;
  }
}

/* y: (N, C, S) <- y * a[c] + b[c] */
static void affine_nc(double *y, int64_t N, int64_t C, int64_t S, const double *a, const double *b) {
  for (int64_t n = 0; n < N; n++)
    for (int64_t ch = 0; ch < C; ch++) {
      double *yr = y + (n * C + ch) * S, ac = a[ch], bc = b ? b[ch] : 0;
      for (int64_t s = 0; s < S; s++) yr[s] = yr[s] * ac + bc;
    }
}

/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hooks of this family keep for a node: each attribute its
 * op-version declares (the names do not clash across the family's ops), with
 * the default where the node leaves it out. */
typedef struct {
  double eps, mom, alpha, beta, bias, ratio;
  int is_test, training_mode, spatial, seeded, seed_ok;
  uint32_t seed;
  int64_t axis, stash, p, size, num_groups, naxes;
  const int64_t *axes; /* NULL: absent */
} norm_state;

static int norm_load(ox_ctx *c, void **state) {
  norm_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->eps = ox_attr_float(c, "epsilon", 1e-5f);
  st->mom = ox_attr_float(c, "momentum", 0.9f);
  st->is_test = ox_attr_int(c, "is_test", 0) != 0;
  st->training_mode = ox_attr_int(c, "training_mode", 0) != 0;
  st->spatial = ox_attr_int(c, "spatial", 1) != 0;
  st->axis = ox_attr_int(c, "axis", -1);
  st->stash = ox_attr_int(c, "stash_type", 1);
  st->p = ox_attr_int(c, "p", 2);
  st->size = ox_attr_int(c, "size", 1);
  st->num_groups = ox_attr_int(c, "num_groups", 1);
  st->alpha = ox_attr_float(c, "alpha", 1e-4f);
  st->beta = ox_attr_float(c, "beta", 0.75f);
  st->bias = ox_attr_float(c, "bias", 1.0f);
  st->ratio = ox_attr_float(c, "ratio", 0.5f);
  st->axes = ox_attr_ints(c, "axes", &st->naxes);
  /* Dropout's seed: refused only when training draws from it (dropout) */
  const ox_attr *seed = ox_attr_find(c, "seed");
  st->seeded = seed != NULL;
  st->seed_ok = seed && seed->type == OX_ATTR_INT && seed->i >= 0 && seed->i <= UINT32_MAX;
  st->seed = st->seed_ok ? (uint32_t)seed->i : 0;
  return 0;
}

/* LayerNormalization, RMSNormalization: stash_type a float type */
static int layer_load(ox_ctx *c, void **state) {
  OX_TRY(norm_load(c, state));
  int64_t stash = ((norm_state *)*state)->stash;
  if (stash != OX_FLOAT && stash != OX_BFLOAT16 && stash != OX_DOUBLE && stash != OX_FLOAT16)
    return ox_fail(c->err, OX_EINPUT, "stash_type %lld is not a float type id", (long long)stash);
  return 0;
}

/* LpNormalization: p 1 or 2 */
static int lpnorm_load(ox_ctx *c, void **state) {
  OX_TRY(norm_load(c, state));
  int64_t p = ((norm_state *)*state)->p;
  if (p != 1 && p != 2) return ox_fail(c->err, OX_EINPUT, "p is %lld; only 1 and 2 are supported", (long long)p);
  return 0;
}

/* GroupNormalization: num_groups given */
static int groupnorm_load(ox_ctx *c, void **state) {
  if (!ox_attr_find(c, "num_groups")) return ox_fail(c->err, OX_EINPUT, "attribute 'num_groups' is required");
  return norm_load(c, state);
}

/* LRN: size given and positive */
static int lrn_load(ox_ctx *c, void **state) {
  if (!ox_attr_find(c, "size")) return ox_fail(c->err, OX_EINPUT, "attribute 'size' is required");
  OX_TRY(norm_load(c, state));
  int64_t size = ((norm_state *)*state)->size;
  if (size <= 0) return ox_fail(c->err, OX_EINPUT, "size is %lld; it must be positive", (long long)size);
  return 0;
}

/* ---- BatchNormalization ---- */

/* y = x * a[k] + b[k] for the rows lo .. hi-1 of (N, K) of x and y: (N, K,
 * L), float or double (y may be x: each element is read, then written). In
 * double, one rounding per operation; the float rows built per vector width
 * (OX_BY_WIDTHS, core/kernel.h), nothing fused, so the same bits. */
typedef struct { const ox_tensor *x; ox_tensor *y; int64_t K, L; const double *a, *b; } affine_job;

#define AFFINE_FN(SUF, TARGET)                                                        \
  TARGET static void affine_f32_##SUF(const float *xr, float *yr, int64_t L, double ak, double bk) { \
    for (int64_t l = 0; l < L; l++) yr[l] = (float)(xr[l] * ak + bk);                 \
  }
OX_BY_WIDTHS(AFFINE_FN)

static void affine_rows(void *arg, int slot, int64_t lo, int64_t hi) {
  const affine_job *j = arg;
  int64_t K = j->K, L = j->L;
  if (j->x->dt == OX_FLOAT) {
    for (int64_t r = lo; r < hi; r++)
      OX_AT_WIDTH(affine_f32, (const float *)j->x->data + r * L, (float *)j->y->data + r * L, L,
                  j->a[r % K], j->b[r % K]);
    return;
  }
  const double *xs = j->x->data;
  double *ys = j->y->data;
  for (int64_t r = lo; r < hi; r++) {
    const double *xr = xs + r * L;
    double *yr = ys + r * L, ak = j->a[r % K], bk = j->b[r % K];
    for (int64_t l = 0; l < L; l++) yr[l] = xr[l] * ak + bk;
  }
}

/* y = x * a[k] + b[k], x and y: (N, K, L), read and written in their own type
 * (float and double directly, over the threads by rows; the small floats
 * through double). */
static int affine_typed(ox_ctx *c, const ox_tensor *x, ox_tensor *y, int64_t N, int64_t K,
                        int64_t L, const double *a, const double *b) {
  switch (x->dt) {
  case OX_FLOAT:
  case OX_DOUBLE: {
    affine_job j = {x, y, K, L, a, b};
    int nch = ox_par_chunks_mem(c->threads, N * K, 2.0 * (double)ox_dtype_size(x->dt) * (double)x->n);
    if (nch <= 1) affine_rows(&j, 0, 0, N * K);
    else ox_par_for(N * K, nch, affine_rows, &j);
    return 0;
  }
  default: {
    double *xd = load_d(c, x);
    if (!xd) return c->err->code;
    affine_nc(xd, N, K, L, a, b);
    return store_d(c, xd, y);
  }
  }
}

/* x: (N, K, L), statistics per k over N and L: mean[k], var[k] (population). */
static void batch_stats(const double *x, int64_t N, int64_t K, int64_t L, double *mean, double *var) {
  double cnt = (double)N * (double)L;
  for (int64_t k = 0; k < K; k++) mean[k] = var[k] = 0;
  for (int64_t n = 0; n < N; n++)
    for (int64_t k = 0; k < K; k++) {
      const double *xr = x + (n * K + k) * L;
      double s = 0;
      for (int64_t l = 0; l < L; l++) s += xr[l];
      mean[k] += s;
    }
  for (int64_t k = 0; k < K; k++) mean[k] = cnt > 0 ? mean[k] / cnt : 0;
  for (int64_t n = 0; n < N; n++)
    for (int64_t k = 0; k < K; k++) {
      const double *xr = x + (n * K + k) * L;
      double s = 0, m = mean[k];
      for (int64_t l = 0; l < L; l++) s += (xr[l] - m) * (xr[l] - m);
      var[k] += s;
    }
  for (int64_t k = 0; k < K; k++) var[k] = cnt > 0 ? var[k] / cnt : 0;
}

/* y = x * a[k] + sh[k]: a = scale / sqrt(var + eps), sh = B - mean * a */
static void bn_coeffs(int64_t K, const double *sc, const double *b, const double *mean, const double *var,
                      double eps, double *a, double *sh) {
  for (int64_t k = 0; k < K; k++) {
    a[k] = sc[k] / sqrt(var[k] + eps);
    sh[k] = b[k] - mean[k] * a[k];
  }
}

/* ---- BatchNormalization as an epilogue (core/fuse.h) ---- */

typedef struct { const double *a, *sh; } bn_epi;

/* affine_rows' float row, for output channel ch */
static void bn_epi_row(const void *arg, const float *x, int64_t sx, const float *b, int64_t sb, float *z,
                       int64_t n, int64_t ch) {
  (void)sx, (void)b, (void)sb;
  const bn_epi *e = arg;
  OX_AT_WIDTH(affine_f32, x, z, n, e->a[ch], e->sh[ch]);
}

/* Inference only (9 on: spatial; training_mode 0 from 14; before 14, Y its
 * only output), the four parameters constants of M values each: the
 * coefficients batchnorm computes, once. */
int ox_batchnorm_epi(ox_ctx *c, int64_t M, ox_epi_step *s) {
  const ox_node *n = c->node;
  const norm_state *at = c->state;
  if (M <= 0 || strcmp(n->op, "BatchNormalization") || (n->domain && n->domain[0]) || c->version < 9 || !at ||
      n->nin != 5) /* M 0: a MatMul's followers, no channels */
    return 0;
  if (c->version >= 14 ? at->training_mode != 0 : wanted(c, n->nout, 1)) return 0;
  for (int i = 1; i < n->nout; i++)
    if (n->out[i][0]) return 0;
  ox_err err = {0}, *keep = c->err;
  c->err = &err;
  double *p[4] = {0};
  ox_value v[4];
  ox_value *in[5] = {NULL, &v[0], &v[1], &v[2], &v[3]};
  for (int i = 1; i < 5; i++) {
    const ox_tensor *t = NULL;
    if (ox_const_input(c, i, &t) || !t) break;
    memset(&v[i - 1], 0, sizeof v[i - 1]);
    v[i - 1].kind = OX_TENSOR;
    v[i - 1].u.t = *t;
    if (param(c, in, i, M, "one per channel", &p[i - 1])) break;
  }
  bn_epi *e = NULL;
  double *a = scratch(c, M), *sh = scratch(c, M);
  if (p[0] && p[1] && p[2] && p[3] && a && sh && (e = ox_alloc(c->a, sizeof *e))) {
    bn_coeffs(M, p[0], p[1], p[2], p[3], at->eps, a, sh);
    e->a = a, e->sh = sh;
    s->fn = bn_epi_row;
    s->arg = e;
    s->form = OX_EPI_F_AFFINE, s->k = a, s->sh = sh; /* affine_f32's expression */
  }
  c->err = keep;
  return e != NULL; /* one data input (the rest are parameters) */
}

/* BatchNormalization 1-15. Inference: y = (x - mean) / sqrt(var + eps) *
 * scale + B per channel. Training (training_mode from 14; before 14, when
 * is_test is 0 (1, 6) and more than Y is asked for): the batch's own mean and
 * population variance normalize, and running = input * momentum + batch *
 * (1 - momentum) are outputs 1 and 2; before 14, outputs 3 and 4 are the
 * batch mean and variance (saved_mean, saved_var). spatial = 0 (1-7): the
 * parameters are (C, D1, ..., Dn), one per feature, statistics over N only. */
static int batchnorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin;
  const ox_tensor *x = &in[0]->u.t;
  int64_t N = 0, C = 0, S = 0;
  if (x->rank == 1 && c->version >= 9) {
    /* "The op also accepts single dimension input of size N in which case C
     * is assumed to be 1" (BatchNormalization-9, -14, -15): x is (N, 1) */
    N = x->dims[0];
    C = 1;
    S = x->n ? 1 : 0;
  } else if (x->rank < 2) {
    return ox_fail(c->err, OX_EINPUT, "input 0 has rank %d; it must be (N, C, ...)%s", x->rank,
                   c->version >= 9 ? " or (N,)" : "");
  } else {
    OX_TRY(split_nc(c, x, &N, &C, &S));
  }
  if (!x->n) { /* Y empty; running statistics unchanged */
    OX_TRY(empty_out(c, x, x->dt, &out[0]));
    for (int i = 1; i < nout && i < 3; i++)
      if (!(out[i] = ox_tensor_view(c->a, in[i + 2]))) return ox_oom(c->err, NULL);
    return 0;
  }
  const norm_state *at = c->state;
  double eps = at->eps, mom = at->mom;
  int train;
  if (c->version >= 14) train = at->training_mode;
  else train = (c->version >= 7 || !at->is_test) && wanted(c, nout, 1);
  int spatial = c->version >= 9 ? 1 : at->spatial;
  /* x: (N, K, L): K features, each with L elements per instance */
  int64_t K = spatial ? C : C * S, L = spatial ? S : 1;
  const char *what = spatial ? "one per channel" : "one per feature (C x D1 x ... x Dn)";
  double *sc, *b, *mean, *var;
  OX_TRY(param(c, in, 1, K, what, &sc));
  OX_TRY(param(c, in, 2, K, what, &b));
  OX_TRY(param(c, in, 3, K, what, &mean));
  OX_TRY(param(c, in, 4, K, what, &var));
  double *a = scratch(c, K), *sh = scratch(c, K), *bm = scratch(c, K), *bv = scratch(c, K);
  if (!a || !sh || !bm || !bv) return c->err->code;
  if (train) {
    double *xd = load_d(c, x);
    if (!xd) return c->err->code;
    batch_stats(xd, N, K, L, bm, bv);
  }
  const double *um = train ? bm : mean, *uv = train ? bv : var;
  bn_coeffs(K, sc, b, um, uv, eps, a, sh);
  /* written over x when it dies here (ox_elementwise_new): inference reads
   * each element once, before its output */
  if (train) OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  else OX_TRY(ox_elementwise_new(c, 1, &x, x->dt, x->rank, x->dims, &out[0]));
  OX_TRY(affine_typed(c, x, &out[0]->u.t, N, K, L, a, sh));
  if (!train) {
    if (c->version >= 14 && (wanted(c, nout, 1) || wanted(c, nout, 2)))
      return ox_fail(c->err, OX_EINPUT, "running_mean and running_var are outputs only when training_mode is 1");
    return 0;
  }
  for (int64_t k = 0; k < K; k++) { /* the running statistics */
    a[k] = mean[k] * mom + bm[k] * (1 - mom);
    sh[k] = var[k] * mom + bv[k] * (1 - mom);
  }
  const ox_tensor *im = &in[3]->u.t, *iv = &in[4]->u.t;
  if (nout > 1) OX_TRY(emit(c, im->dt, im->rank, im->dims, a, &out[1]));
  if (nout > 2) OX_TRY(emit(c, iv->dt, iv->rank, iv->dims, sh, &out[2]));
  if (nout > 3) OX_TRY(emit(c, im->dt, im->rank, im->dims, bm, &out[3]));
  if (nout > 4) OX_TRY(emit(c, iv->dt, iv->rank, iv->dims, bv, &out[4]));
  return 0;
}

/* ---- InstanceNormalization, GroupNormalization ---- */

/* x: (N, C, S) normalized per (n, group of C/G channels); scale and bias per
 * channel (or per group: gscale). */
static int group_norm(ox_ctx *c, ox_value **in, ox_value **out, int64_t G, int per_group) {
  const ox_tensor *x = &in[0]->u.t;
  int64_t N = 0, C = 0, S = 0;
  OX_TRY(split_nc(c, x, &N, &C, &S));
  if (!x->n) return empty_out(c, x, x->dt, &out[0]);
  double eps = ((const norm_state *)c->state)->eps;
  if (G <= 0 || C % G)
    return ox_fail(c->err, OX_EINPUT, "num_groups %lld must be positive and divide the %lld channels",
                   (long long)G, (long long)C);
  int64_t cpg = C / G; /* channels per group */
  double *sc, *b, *ac = scratch(c, C), *bc = scratch(c, C);
  if (!ac || !bc) return c->err->code;
  const char *what = per_group ? "one per group" : "one per channel";
  OX_TRY(param(c, in, 1, per_group ? G : C, what, &sc));
  OX_TRY(param(c, in, 2, per_group ? G : C, what, &b));
  for (int64_t g = 0, ch = 0; g < G; g++)
    for (int64_t j = 0; j < cpg; j++, ch++) {
      ac[ch] = per_group ? sc[g] : sc[ch];
      bc[ch] = per_group ? b[g] : b[ch];
    }
  double *xd = load_d(c, x), *y = scratch(c, x->n);
  if (!xd || !y) return c->err->code;
  norm_rows(xd, y, N * G, cpg * S, eps, 1, NULL, NULL);
  affine_nc(y, N, C, S, ac, bc);
  return emit(c, x->dt, x->rank, x->dims, y, &out[0]);
}

static int instancenorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  const ox_tensor *x = &in[0]->u.t;
  if (x->rank < 2) return ox_fail(c->err, OX_EINPUT, "input 0 has rank %d; it must be (N, C, ...)", x->rank);
  return group_norm(c, in, out, x->dims[1] ? x->dims[1] : 1, 0);
}

/* GroupNormalization-18: scale and bias per group; 21: per channel. */
static int groupnorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  return group_norm(c, in, out, ((const norm_state *)c->state)->num_groups, c->version < 21);
}

/* ---- LayerNormalization, RMSNormalization ---- */

/* Parameter input i unidirectionally broadcast to x (rank r), expanded to its
 * period: the trailing dims of x it spans, at least the normalized ones from
 * `axis`. *pat receives period doubles; x is a repetition of (x->n / period,
 * period). */
static int bcast_param(ox_ctx *c, ox_value **in, int i, const ox_tensor *x, int axis, double **pat,
                       int64_t *period) {
  const ox_tensor *p = &in[i]->u.t;
  int r = x->rank, m = r - axis;
  char b1[96], b2[96];
  if (p->rank > r) goto bad;
  if (p->rank > m) m = p->rank;
  for (int k = 1; k <= p->rank; k++)
    if (p->dims[p->rank - k] != 1 && p->dims[p->rank - k] != x->dims[r - k]) goto bad;
  /* pattern: x's trailing m dims; the parameter's strides, 0 where broadcast */
  int64_t per = 1, *st = ox_alloc_array(c->a, m + 1, sizeof *st), *idx = ox_alloc_array(c->a, m + 1, sizeof *idx);
  if (!st || !idx) return ox_oom(c->err, NULL);
  const int64_t *d = x->dims + (r - m);
  for (int64_t k = m - 1, s = 1; k >= 0; k--) { /* the parameter's row-major strides */
    int64_t pk = p->rank - (m - k);
    st[k] = pk >= 0 && p->dims[pk] != 1 ? s : 0;
    if (pk >= 0) s *= p->dims[pk];
    idx[k] = 0;
  }
  for (int k = 0; k < m; k++) per *= d[k];
  double *pv = load_d(c, p), *o = scratch(c, per);
  if (!pv || !o) return c->err->code;
  int64_t off = 0;
  for (int64_t j = 0; j < per; j++) { /* odometer over the pattern */
    o[j] = pv[off];
    for (int k = m - 1; k >= 0; k--) {
      off += st[k];
      if (++idx[k] < d[k]) break;
      off -= st[k] * d[k];
      idx[k] = 0;
    }
  }
  *pat = o;
  *period = per;
  return 0;
bad:
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it does not broadcast to X's %s",
                 ox_input_name(c, i), ox_shape_str(p->rank, p->dims, b1, sizeof b1),
                 ox_shape_str(x->rank, x->dims, b2, sizeof b2));
}

/* y: (n / period, period) <- y * s + b, s and b of `period` elements. */
static void affine_rep(double *y, int64_t n, const double *s, int64_t ps, const double *b, int64_t pb) {
  for (int64_t o = 0; o < n; o += ps) {
    double *yr = y + o;
    for (int64_t j = 0; j < ps; j++) yr[j] *= s[j];
  }
  if (b)
    for (int64_t o = 0; o < n; o += pb) {
      double *yr = y + o;
      for (int64_t j = 0; j < pb; j++) yr[j] += b[j];
    }
}

/* One row of a float LayerNormalization with a per-element scale and bias
 * (the common case): norm_rows and affine_rep's operations in one pass
 * over the row for y, in double, rounded once: the mean and the squared
 * deviations summed in 8 double lanes, then the lanes pairwise (within the
 * same 0.5 ULP: a double's rounding is far below a float's), then y =
 * ((x - m) inv) s + b as affine_rep computes it. Built per vector width;
 * nothing fused, so every width gives the same bits. */
#define LN_ROW_FN(SUF, TARGET)                                                        \
  TARGET static void ln_row_f32_##SUF(const float *x, float *y, int64_t len, const double *s, \
                                      const double *b, double eps, double *mo, double *io) { \
    double a[8] = {0}, q[8] = {0};                                                    \
    int64_t j = 0, w = len / 8 * 8;                                                   \
    for (; j < w; j += 8)                                                             \
      for (int l = 0; l < 8; l++) a[l] += x[j + l];                                   \
    double m = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));     \
    for (; j < len; j++) m += x[j];                                                   \
    m /= (double)len;                                                                 \
    for (j = 0; j < w; j += 8)                                                        \
      for (int l = 0; l < 8; l++) {                                                   \
        double d = x[j + l] - m;                                                      \
        q[l] += d * d;                                                                \
      }                                                                               \
    double v = ((q[0] + q[1]) + (q[2] + q[3])) + ((q[4] + q[5]) + (q[6] + q[7]));     \
    for (; j < len; j++) {                                                            \
      double d = x[j] - m;                                                            \
      v += d * d;                                                                     \
    }                                                                                 \
    v /= (double)len;                                                                 \
    double inv = 1.0 / sqrt(v + eps);                                                 \
    if (b)                                                                            \
      for (j = 0; j < len; j++) y[j] = (float)(((x[j] - m) * inv) * s[j] + b[j]);     \
    else                                                                              \
      for (j = 0; j < len; j++) y[j] = (float)(((x[j] - m) * inv) * s[j]);            \
    *mo = m, *io = inv;                                                               \
  }
OX_BY_WIDTHS(LN_ROW_FN)

/* x, y: (rows, len) of type dt (float, or float16 / bfloat16: a row
 * widened into the slot's buf, normalized there, and narrowed on store,
 * the rounding store_d gives the slow path) */
typedef struct {
  const void *x;
  void *y;
  ox_dtype dt;
  int64_t len;
  const double *s, *b;
  double eps, *mean, *inv;
  float *buf; /* small floats: 2 len floats per slot */
} ln_job;
static void ln_rows(void *arg, int slot, int64_t lo, int64_t hi) {
  const ln_job *j = arg;
  int64_t len = j->len;
  float *xr = j->buf ? j->buf + (size_t)slot * 2 * (size_t)len : NULL, *yr = xr ? xr + len : NULL;
  for (int64_t r = lo; r < hi; r++) {
    if (j->dt == OX_FLOAT) {
      OX_AT_WIDTH(ln_row_f32, (const float *)j->x + r * len, (float *)j->y + r * len, len, j->s, j->b, j->eps,
                  j->mean + r, j->inv + r);
      continue;
    }
    ox_widen_f32_n(j->dt, j->x, r * len, len, xr);
    OX_AT_WIDTH(ln_row_f32, xr, yr, len, j->s, j->b, j->eps, j->mean + r, j->inv + r);
    ox_narrow_f32_n(yr, len, j->dt, j->y, r * len);
  }
}

/* LayerNormalization-17 (center = 1) and RMSNormalization-23 (center = 0):
 * x: (outer, len) with len the product of dims axis..r-1. Mean and InvStdDev
 * (LayerNormalization's outputs 1, 2) are (d0, ..., d[axis-1], 1, ..., 1) of
 * the stash_type. RMSNormalization's Y has the scale's type (V). */
static int layer_like(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out, int center) {
  const ox_tensor *x = &in[0]->u.t;
  int r = x->rank, axis;
  if (r == 0) return ox_fail(c->err, OX_EINPUT, "input 0 is a scalar; it needs rank >= 1");
  const norm_state *at = c->state;
  OX_TRY(ox_axis(c, at->axis, r, 0, "axis", &axis));
  double eps = at->eps;
  int64_t stash = at->stash;
  if (!x->n) return empty_out(c, x, center ? x->dt : in[1]->u.t.dt, &out[0]); /* Mean, InvStdDev: not made */
  int64_t len = 1;
  for (int i = axis; i < r; i++) len *= x->dims[i];
  int64_t rows = ox_numel(axis, x->dims, 8);
  if (rows < 0) return ox_fail(c->err, OX_EINPUT, "input 0's leading dims are too large");
  const ox_tensor *st = &in[1]->u.t;
  if (!center && !ox_dtype_is_float(st->dt))
    return ox_fail(c->err, OX_EINPUT, "%s must be a float tensor", ox_input_name(c, 1));
  double *s, *b = NULL, *mean = scratch(c, rows), *inv = scratch(c, rows);
  int64_t ps, pb = 1;
  if (!mean || !inv) return c->err->code;
  OX_TRY(bcast_param(c, in, 1, x, axis, &s, &ps));
  if (nin > 2 && in[2]) OX_TRY(bcast_param(c, in, 2, x, axis, &b, &pb));
  int small = x->dt == OX_FLOAT16 || x->dt == OX_BFLOAT16;
  if ((x->dt == OX_FLOAT || small) && center && len > 0 && ps == len && (!b || pb == len)) {
    /* a row at a time, over the threads */
    OX_TRY(ox_tensor_new_uninit(c->a, x->dt, r, x->dims, &out[0], c->err));
    int nch = ox_par_chunks_mem(c->threads, rows, 8.0 * (double)x->n);
    ln_job j = {x->data, out[0]->u.t.data, x->dt, len, s, b, eps, mean, inv, NULL};
    if (small && !(j.buf = ox_alloc_array(c->a, ox_numel(2, (int64_t[]){2 * nch, len}, 4), sizeof *j.buf)))
      return ox_oom(c->err, NULL);
    ox_par_for(rows, nch, ln_rows, &j);
  } else {
    double *xd = load_d(c, x), *y = scratch(c, x->n);
    if (!xd || !y) return c->err->code;
    norm_rows(xd, y, rows, len, eps, center, mean, inv);
    affine_rep(y, x->n, s, ps, b, pb);
    OX_TRY(emit(c, center ? x->dt : st->dt, r, x->dims, y, &out[0]));
  }
  /* onnxruntime's SimplifiedLayerNormalization-1 (RMS, c->version 1) has
   * InvStdDev as its output 1 */
  if (nout > 1 && (center || c->version < 17)) {
    int64_t *sd = ox_alloc_array(c->a, r, sizeof *sd);
    if (!sd) return ox_oom(c->err, NULL);
    for (int i = 0; i < r; i++) sd[i] = i < axis ? x->dims[i] : 1;
    if (center) OX_TRY(emit(c, (ox_dtype)stash, r, sd, mean, &out[1]));
    else OX_TRY(emit(c, (ox_dtype)stash, r, sd, inv, &out[1]));
    if (nout > 2 && center) OX_TRY(emit(c, (ox_dtype)stash, r, sd, inv, &out[2]));
  }
  return 0;
}

static int layernorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return layer_like(c, nin, in, nout, out, 1);
}
static int rmsnorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return layer_like(c, nin, in, nout, out, 0);
}

/* ---- LpNormalization ---- */

/* x: (outer, d, inner); y = x / ||x||_p along d; a zero norm gives 0. */
static int lpnorm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  const ox_tensor *x = &in[0]->u.t;
  int axis;
  if (x->rank == 0) return ox_fail(c->err, OX_EINPUT, "input 0 is a scalar; it needs rank >= 1");
  const norm_state *at = c->state;
  OX_TRY(ox_axis(c, at->axis, x->rank, 0, "axis", &axis));
  int64_t p = at->p;
  if (!x->n) return empty_out(c, x, x->dt, &out[0]);
  int64_t outer = 1, d = x->dims[axis], inner = 1;
  for (int i = 0; i < axis; i++) outer *= x->dims[i];
  for (int i = axis + 1; i < x->rank; i++) inner *= x->dims[i];
  double *xd = load_d(c, x), *y = scratch(c, x->n), *nr = scratch(c, inner);
  if (!xd || !y || !nr) return c->err->code;
  for (int64_t o = 0; o < outer; o++) {
    const double *xo = xd + o * d * inner;
    double *yo = y + o * d * inner;
    for (int64_t i = 0; i < inner; i++) nr[i] = 0;
    for (int64_t k = 0; k < d; k++) {
      const double *xr = xo + k * inner;
      if (p == 1) for (int64_t i = 0; i < inner; i++) nr[i] += fabs(xr[i]);
      else for (int64_t i = 0; i < inner; i++) nr[i] += xr[i] * xr[i];
    }
    for (int64_t i = 0; i < inner; i++) { /* reciprocal; 0 for a zero norm */
      double n = p == 2 ? sqrt(nr[i]) : nr[i];
      nr[i] = n == 0 ? 0 : 1 / n;
    }
    for (int64_t k = 0; k < d; k++)
      for (int64_t i = 0; i < inner; i++) yo[k * inner + i] = xo[k * inner + i] * nr[i];
  }
  return emit(c, x->dt, x->rank, x->dims, y, &out[0]);
}

/* ---- MeanVarianceNormalization ---- */

/* y = (x - mean) / (sqrt(var) + 1e-9) with mean and (population) variance
 * over `axes` (default 0, 2, 3), as the function body of 9 and 13. x is walked
 * as runs of its last dim; each run has a base slot in the statistics (the
 * kept dims' index) and a step (1 if the last dim is kept, else 0). */
static int mvn(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  const ox_tensor *x = &in[0]->u.t;
  int r = x->rank;
  int64_t na = ((const norm_state *)c->state)->naxes, defaxes[] = {0, 2, 3};
  const int64_t *axes = ((const norm_state *)c->state)->axes;
  if (!axes) axes = defaxes, na = 3;
  if (!x->n) return empty_out(c, x, x->dt, &out[0]);
  uint8_t *red = ox_alloc_array(c->a, r + 1, 1);
  int64_t *kst = ox_alloc_array(c->a, r + 1, sizeof *kst), *idx = ox_alloc_array(c->a, r + 1, sizeof *idx);
  if (!red || !kst || !idx) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < na; i++) {
    int a;
    OX_TRY(ox_axis(c, axes[i], r, 0, "axis", &a));
    red[a] = 1;
  }
  int64_t slots = 1;
  for (int k = r - 1; k >= 0; k--) {
    kst[k] = red[k] ? 0 : slots;
    if (!red[k]) slots *= x->dims[k];
  }
  double *xd = load_d(c, x), *y = scratch(c, x->n), *m = scratch(c, slots), *v = scratch(c, slots);
  double *cnt = scratch(c, slots);
  if (!xd || !y || !m || !v || !cnt) return c->err->code;
  int64_t last = r ? x->dims[r - 1] : 1, step = r ? kst[r - 1] : 0;
  int64_t runs = last ? x->n / last : 0, *base = ox_alloc_array(c->a, runs + 1, sizeof *base);
  if (!base) return ox_oom(c->err, NULL);
  for (int64_t q = 0, off = 0; q < runs; q++) { /* odometer over dims 0..r-2 */
    base[q] = off;
    for (int k = r - 2; k >= 0; k--) {
      off += kst[k];
      if (++idx[k] < x->dims[k]) break;
      off -= kst[k] * x->dims[k];
      idx[k] = 0;
    }
  }
  for (int64_t s = 0; s < slots; s++) m[s] = v[s] = cnt[s] = 0;
  for (int64_t q = 0; q < runs; q++) {
    const double *xr = xd + q * last;
    double *mr = m + base[q], *cr = cnt + base[q];
    for (int64_t j = 0; j < last; j++) mr[j * step] += xr[j], cr[j * step] += 1;
  }
  for (int64_t s = 0; s < slots; s++) m[s] = cnt[s] ? m[s] / cnt[s] : 0;
  for (int64_t q = 0; q < runs; q++) {
    const double *xr = xd + q * last, *mr = m + base[q];
    double *vr = v + base[q];
    for (int64_t j = 0; j < last; j++) vr[j * step] += (xr[j] - mr[j * step]) * (xr[j] - mr[j * step]);
  }
  for (int64_t s = 0; s < slots; s++) v[s] = 1 / (sqrt(cnt[s] ? v[s] / cnt[s] : 0) + 1e-9);
  for (int64_t q = 0; q < runs; q++) {
    const double *xr = xd + q * last, *mr = m + base[q], *vr = v + base[q];
    double *yr = y + q * last;
    for (int64_t j = 0; j < last; j++) yr[j] = (xr[j] - mr[j * step]) * vr[j * step];
  }
  return emit(c, x->dt, r, x->dims, y, &out[0]);
}

/* ---- LRN ---- */

/* x: (N, C, S). y = x / (bias + alpha / size * sum of x^2 over channels
 * c - floor((size-1)/2) .. c + ceil((size-1)/2)) ^ beta. */
static int lrn(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  const ox_tensor *x = &in[0]->u.t;
  int64_t N = 0, C = 0, S = 0;
  OX_TRY(split_nc(c, x, &N, &C, &S));
  if (!x->n) return empty_out(c, x, x->dt, &out[0]);
  const norm_state *at = c->state;
  int64_t size = at->size;
  double alpha = at->alpha, beta = at->beta;
  double bias = at->bias, k = alpha / (double)size;
  int64_t lo = (size - 1) / 2, hi = size / 2; /* floor and ceil of (size-1)/2 */
  double *xd = load_d(c, x), *y = scratch(c, x->n), *sq = scratch(c, S);
  if (!xd || !y || !sq) return c->err->code;
  for (int64_t n = 0; n < N; n++)
    for (int64_t ch = 0; ch < C; ch++) {
      int64_t b = ch - lo < 0 ? 0 : ch - lo, e = ch > C - 1 - hi ? C - 1 : ch + hi;
      for (int64_t s = 0; s < S; s++) sq[s] = 0;
      for (int64_t i = b; i <= e; i++) {
        const double *xr = xd + (n * C + i) * S;
        for (int64_t s = 0; s < S; s++) sq[s] += xr[s] * xr[s];
      }
      const double *xr = xd + (n * C + ch) * S;
      double *yr = y + (n * C + ch) * S;
      for (int64_t s = 0; s < S; s++) yr[s] = xr[s] / pow(bias + k * sq[s], beta);
    }
  return emit(c, x->dt, x->rank, x->dims, y, &out[0]);
}

/* ---- Dropout ---- */

/* Inference (before 12 always; from 12 unless training_mode is true, or when
 * ratio is 0): output = input, mask all true (of type T before 10, bool from
 * 10). Training: mask = uniform >= ratio, output = x * mask / (1 - ratio), the
 * uniforms from numpy's RandomState(seed) as the ONNX reference draws them
 * (core/random.h); without a seed the generator is seeded from the OS, as the
 * spec says ("if not specified we will auto generate one"). */
static int dropout(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x = &in[0]->u.t;
  double ratio = 0.5;
  int train = 0;
  if (c->version >= 12) {
    if (nin > 1 && in[1]) {
      const ox_tensor *rt = &in[1]->u.t;
      if (in[1]->kind != OX_TENSOR || rt->n != 1 || !ox_dtype_is_float(rt->dt))
        return ox_fail(c->err, OX_EINPUT, "%s must be a float scalar", ox_input_name(c, 1));
      ratio = ox_load_f64(rt->dt, rt->data, 0);
    }
    if (nin > 2 && in[2]) {
      const ox_tensor *tm = &in[2]->u.t;
      if (in[2]->kind != OX_TENSOR || tm->n != 1 || tm->dt != OX_BOOL)
        return ox_fail(c->err, OX_EINPUT, "%s must be a bool scalar", ox_input_name(c, 2));
      train = ((const uint8_t *)tm->data)[0] != 0;
    }
  } else {
    ratio = ((const norm_state *)c->state)->ratio;
  }
  if (!(ratio >= 0 && ratio <= 1))
    return ox_fail(c->err, OX_EINPUT, "ratio is %g; it must be in [0, 1]", ratio);
  if (!train || ratio == 0) {
    out[0] = ox_tensor_view(c->a, in[0]);
    if (!out[0]) return ox_oom(c->err, NULL);
    if (nout > 1) {
      ox_dtype mt = c->version >= 10 ? OX_BOOL : x->dt;
      OX_TRY(ox_tensor_new(c->a, mt, x->rank, x->dims, &out[1], c->err));
      if (mt == OX_BOOL) {
        if (x->n) memset(out[1]->u.t.data, 1, (size_t)x->n);
      } else {
        double *one = scratch(c, x->n);
        if (!one) return c->err->code;
        for (int64_t i = 0; i < x->n; i++) one[i] = 1;
        OX_TRY(store_d(c, one, &out[1]->u.t));
      }
    }
    return 0;
  }
  ox_mt19937 *mt = ox_alloc(c->a, sizeof *mt);
  if (!mt) return ox_oom(c->err, NULL);
  const norm_state *at = c->state;
  if (!at->seeded) ox_mt_seed_entropy(mt, c->run);
  else if (!at->seed_ok)
    return ox_fail(c->err, OX_EINPUT, "attribute 'seed' must be an int in [0, 2^32-1] "
                   "(numpy's RandomState refuses others)");
  else ox_mt_seed(mt, at->seed);
  double scale = ratio < 1 ? 1 / (1 - ratio) : 0;
  double *xd = load_d(c, x);
  if (!xd) return c->err->code;
  ox_value *mv = NULL;
  OX_TRY(ox_tensor_new(c->a, OX_BOOL, x->rank, x->dims, &mv, c->err));
  uint8_t *mask = mv->u.t.data;
  for (int64_t i = 0; i < x->n; i++) {
    double u = ox_mt_double(mt);
    mask[i] = u >= ratio;
    xd[i] = mask[i] ? xd[i] * scale : 0;
  }
  OX_TRY(emit(c, x->dt, x->rank, x->dims, xd, &out[0]));
  if (nout > 1) out[1] = mv;
  return 0;
}

#define F3 OX_TS_FLOAT3
#define F4 OX_TS_FLOAT4
#define F8 (OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) | OX_T(FLOAT8E5M2FNUZ))

const ox_kernel ox_norm_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "BatchNormalization",         1, 0, F3,      5, 5, batchnorm,
    "consumed_inputs:ints:required,epsilon:float=1e-05,is_test:int=0,momentum:float=0.9,"
    "spatial:int=1", norm_load },
  { "", "BatchNormalization",         6, 0, F3,      5, 5, batchnorm,
    "epsilon:float=1e-05,is_test:int=0,momentum:float=0.9,spatial:int=1", norm_load },
  { "", "BatchNormalization",         7, 0, F3,      5, 5, batchnorm,
    "epsilon:float=1e-05,momentum:float=0.9,spatial:int=1", norm_load },
  { "", "BatchNormalization",         9, 0, F3,      5, 5, batchnorm,
    "epsilon:float=1e-05,momentum:float=0.9", norm_load },
  { "", "BatchNormalization",        14, 0, F4,      5, 5, batchnorm,
    "epsilon:float=1e-05,momentum:float=0.9,training_mode:int=0", norm_load },
  { "", "BatchNormalization",        15, 0, F4,      5, 5, batchnorm, OX_ATTRS_OF(14), norm_load },
  { "", "InstanceNormalization",      1, 0, F3,      3, 3, instancenorm,
    "consumed_inputs:ints,epsilon:float=1e-05", norm_load },
  { "", "InstanceNormalization",      6, 0, F3,      3, 3, instancenorm, "epsilon:float=1e-05", norm_load },
  { "", "InstanceNormalization",     22, 0, F4,      3, 3, instancenorm, OX_ATTRS_OF(6), norm_load },
  { "", "LayerNormalization",        17, 0, F4,      2, 3, layernorm,
    "axis:int=-1,epsilon:float=1e-05,stash_type:int=1", layer_load },
  { "", "GroupNormalization",        18, 0, F4,      3, 3, groupnorm,
    "epsilon:float=1e-05,num_groups:int:required", groupnorm_load }, /* deprecated: ox_registry_deprecation */
  { "", "GroupNormalization",        21, 0, F4,      3, 3, groupnorm,
    "epsilon:float=1e-05,num_groups:int:required,stash_type:int=1", groupnorm_load },
  { "", "RMSNormalization",          23, 0, F4,      2, 2, rmsnorm,
    "axis:int=-1,epsilon:float=1e-05,stash_type:int=1", layer_load },
  { "", "LpNormalization",            1, 0, F3,      1, 1, lpnorm, "axis:int=-1,p:int=2", lpnorm_load },
  { "", "LpNormalization",           22, 0, F4,      1, 1, lpnorm, OX_ATTRS_OF(1), lpnorm_load },
  { "", "MeanVarianceNormalization",  9, 0, F3,      1, 1, mvn, "axes:ints=[0 2 3]", norm_load },
  { "", "MeanVarianceNormalization", 13, 0, F4,      1, 1, mvn, OX_ATTRS_OF(9), norm_load },
  { "", "LRN",                        1, 0, F3,      1, 1, lrn,
    "alpha:float=0.0001,beta:float=0.75,bias:float=1.0,size:int:required", lrn_load },
  { "", "LRN",                       13, 0, F4,      1, 1, lrn, OX_ATTRS_OF(1), lrn_load },
  { "", "Dropout",                    1, 0, F3,      1, 1, dropout,
    "consumed_inputs:ints,is_test:int=0,ratio:float=0.5", norm_load },
  { "", "Dropout",                    6, 0, F3,      1, 1, dropout,
    "is_test:int=0,ratio:float=0.5", norm_load },
  { "", "Dropout",                    7, 0, F3,      1, 1, dropout, "ratio:float=0.5", norm_load },
  { "", "Dropout",                   10, 0, F3,      1, 1, dropout, OX_ATTRS_OF(7), norm_load },
  { "", "Dropout",                   12, 0, F3,      1, 3, dropout, "seed:int", norm_load },
  { "", "Dropout",                   13, 0, F4,      1, 3, dropout, "seed:int", norm_load },
  { "", "Dropout",                   22, 0, F4 | F8, 1, 3, dropout, "seed:int", norm_load },
  {0},
};

/* ---- for the rows of other families (ops/twins.h) ---- */

int ox_layernorm_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return layernorm(c, nin, in, nout, out);
}

int ox_rmsnorm_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return rmsnorm(c, nin, in, nout, out);
}

int ox_layernorm_load(ox_ctx *c, void **state) {
  return layer_load(c, state);
}
