/* ops/ml/svm.c: ai.onnx.ml support vector machines: SVMClassifier-1 and
 * SVMRegressor-1.
 *
 * Two layouts, as libsvm and liblinear write them:
 * - SVC (support vectors given): K(x, sv) for each support vector, then for
 *   each pair of classes i < j a decision value from the two classes'
 *   coefficients; one-vs-one votes pick the class.
 * - linear (no support vectors): one row of coefficients per class (one row
 *   in all for the regressor), a dot product with x plus rho[0].
 * Where the spec is silent this follows onnxruntime, which wrote most of the
 * ONNX SVM models in use (see the comments for the few exceptions). */
#include <math.h>
#include <string.h>

#include "core/kernel.h"
#include "ops/ml/ml.h"

#define FAIL(...) ox_fail(c->err, OX_EINPUT, __VA_ARGS__)

enum { K_LINEAR, K_POLY, K_RBF, K_SIGMOID };

typedef struct {
  int kind;
  double gamma, coef0, degree;
} kern;

/* A floats attribute; absent: *n = 0 (an error when required). */
static int floats(ox_ctx *c, const char *name, int required, const float **v, int64_t *n) {
  const ox_attr *a = ox_attr_find(c, name);
  *v = NULL;
  *n = 0;
  if (!a) return required ? FAIL("attribute '%s' is required", name) : 0;
  if (a->type != OX_ATTR_FLOATS) return FAIL("attribute '%s' must be a list of floats", name);
  *v = a->floats;
  *n = a->n;
  return 0;
}

static int kernel_parse(ox_ctx *c, kern *k) {
  static const char *names[] = {"LINEAR", "POLY", "RBF", "SIGMOID"};
  const char *s = ox_attr_string(c, "kernel_type", "LINEAR");
  const float *p;
  int64_t n;
  if (c->err->code) return c->err->code;
  k->kind = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(s, names[i])) k->kind = i;
  if (k->kind < 0)
    return FAIL("kernel_type '%s' is not one of LINEAR, POLY, RBF, SIGMOID", s);
  OX_TRY(floats(c, "kernel_params", 0, &p, &n));
  if (n != 0 && n != 3)
    return FAIL("kernel_params has %lld values; expected gamma, coef0 and degree", (long long)n);
  k->gamma = n ? p[0] : 0;
  k->coef0 = n ? p[1] : 0;
  k->degree = n ? (double)(int64_t)p[2] : 0; /* an integer degree */
  return 0;
}

/* K(x, v) for x, v of F features (v as floats, from the attributes). */
static double kdot(const kern *k, const double *x, const float *v, int64_t F) {
  double s = 0;
  if (k->kind == K_RBF) {
    for (int64_t f = 0; f < F; f++) s += (x[f] - v[f]) * (x[f] - v[f]);
    return exp(-k->gamma * s);
  }
  for (int64_t f = 0; f < F; f++) s += x[f] * v[f];
  switch (k->kind) {
  case K_POLY: return pow(k->gamma * s + k->coef0, k->degree);
  case K_SIGMOID: return tanh(k->gamma * s + k->coef0);
  default: return s;
  }
}

/* X: (N, F) or (F,) as one row. */
static int rows(ox_ctx *c, const ox_tensor *x, int64_t *n, int64_t *F) {
  if (x->rank != 1 && x->rank != 2)
    return FAIL("%s has rank %d; expected (N, F) or (F)", ox_input_name(c, 0), x->rank);
  *n = x->rank == 1 ? 1 : x->dims[0];
  *F = x->dims[x->rank - 1];
  return 0;
}

static double *row_of(const ox_tensor *x, int64_t i, int64_t F, double *buf) {
  for (int64_t f = 0; f < F; f++) buf[f] = ox_load_f64(x->dt, x->data, i * F + f);
  return buf;
}

/* want < 0: a product that overflowed */
static int need(ox_ctx *c, const char *name, int64_t n, int64_t want, const char *why) {
  if (n == want) return 0;
  if (want < 0) return FAIL("attribute '%s' has %lld values; expected %s", name, (long long)n, why);
  return FAIL("attribute '%s' has %lld values; expected %lld (%s)", name, (long long)n,
              (long long)want, why);
}

/* SVMRegressor-1: Y (N, 1) float. With n_supports > 0,
 * y = sum_j coefficients[j] K(x, sv_j) + rho[0]; otherwise
 * y = coefficients . x + rho[0]. one_class: 1 if y > 0, else -1. */
static int regressor_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  kern k;
  int pt = OX_PT_NONE;
  const float *coef, *rho, *sv;
  int64_t ncoef, nrho, nsv, n, F;
  OX_TRY(kernel_parse(c, &k));
  OX_TRY(ox_ml_post_transform_attr(c, &pt));
  int64_t ns = ox_attr_int(c, "n_supports", 0), one_class = ox_attr_int(c, "one_class", 0);
  if (c->err->code) return c->err->code;
  OX_TRY(floats(c, "coefficients", 1, &coef, &ncoef));
  OX_TRY(floats(c, "rho", 1, &rho, &nrho));
  OX_TRY(floats(c, "support_vectors", 0, &sv, &nsv));
  if (nrho < 1) return FAIL("attribute 'rho' is empty");
  const ox_tensor *x = &in[0]->u.t;
  OX_TRY(rows(c, x, &n, &F));
  if (ns < 0) return FAIL("n_supports is %lld", (long long)ns);
  if (ns > 0) {
    OX_TRY(need(c, "support_vectors", nsv, ox_numel(2, (int64_t[]){ns, F}, 0),
                "n_supports times the features of X"));
    OX_TRY(need(c, "coefficients", ncoef, ns, "one per support vector"));
  } else {
    k.kind = K_LINEAR;
    OX_TRY(need(c, "coefficients", ncoef, F, "one per feature of X"));
  }
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, 2, (int64_t[]){n, 1}, &out[0], c->err));
  double *buf = ox_alloc_array(c->a, F > 0 ? F : 1, sizeof *buf);
  if (!buf) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < n; i++) {
    const double *xi = row_of(x, i, F, buf);
    double s = rho[0];
    if (ns > 0)
      for (int64_t j = 0; j < ns; j++) s += coef[j] * kdot(&k, xi, sv + j * F, F);
    else
      s += kdot(&k, xi, coef, F);
    if (one_class) s = s > 0 ? 1 : -1;
    ox_ml_post_transform(pt, &s, 1);
    ((float *)out[0]->u.t.data)[i] = (float)s;
  }
  return 0;
}

/* Pairwise probabilities r (k, k) to class probabilities p (k): the
 * iterative method of Wu, Lin and Weng (2004), libsvm's
 * multiclass_probability, which onnxruntime and onnx's reference both run. */
static void multiclass_probability(int64_t k, const double *r, double *p, double *Q, double *Qp) {
  double eps = 0.005 / (double)k;
  for (int64_t t = 0; t < k; t++) {
    p[t] = 1.0 / (double)k;
    Q[t * k + t] = 0;
    for (int64_t j = 0; j < t; j++) {
      Q[t * k + t] += r[j * k + t] * r[j * k + t];
      Q[t * k + j] = Q[j * k + t];
    }
    for (int64_t j = t + 1; j < k; j++) {
      Q[t * k + t] += r[j * k + t] * r[j * k + t];
      Q[t * k + j] = -r[j * k + t] * r[t * k + j];
    }
  }
  for (int64_t it = 0, max_iter = k > 100 ? k : 100; it < max_iter; it++) {
    double pQp = 0, max_err = 0;
    for (int64_t t = 0; t < k; t++) {
      Qp[t] = 0;
      for (int64_t j = 0; j < k; j++) Qp[t] += Q[t * k + j] * p[j];
      pQp += p[t] * Qp[t];
    }
    for (int64_t t = 0; t < k; t++)
      if (fabs(Qp[t] - pQp) > max_err) max_err = fabs(Qp[t] - pQp);
    if (max_err < eps) break;
    for (int64_t t = 0; t < k; t++) {
      double diff = (-Qp[t] + pQp) / Q[t * k + t];
      p[t] += diff;
      pQp = (pQp + diff * (diff * Q[t * k + t] + 2 * Qp[t])) / (1 + diff) / (1 + diff);
      for (int64_t j = 0; j < k; j++) {
        Qp[j] = (Qp[j] + diff * Q[t * k + j]) / (1 + diff);
        p[j] /= 1 + diff;
      }
    }
  }
}

/* SVMClassifier-1: Y (N) labels, Z (N, S) float scores, where S is
 * - the classes, in the linear layout and with prob_a/prob_b (Platt
 *   scaling per pair, then multiclass_probability);
 * - the k(k-1)/2 pairwise decision values in the SVC layout with k > 2
 *   classes; with 2 classes, [-s, s] for the one decision value s.
 * post_transform applies to each row of Z. */
static int classifier_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  kern k;
  int pt = OX_PT_NONE;
  const float *coef, *rho, *sv, *pa, *pb;
  const int64_t *li, *vpc;
  int64_t ncoef, nrho, nsv, npa, npb, nli, nvpc, n, F;
  OX_TRY(kernel_parse(c, &k));
  OX_TRY(ox_ml_post_transform_attr(c, &pt));
  OX_TRY(floats(c, "coefficients", 1, &coef, &ncoef));
  OX_TRY(floats(c, "rho", 1, &rho, &nrho));
  OX_TRY(floats(c, "support_vectors", 0, &sv, &nsv));
  OX_TRY(floats(c, "prob_a", 0, &pa, &npa));
  OX_TRY(floats(c, "prob_b", 0, &pb, &npb));
  OX_TRY(need(c, "prob_b", npb, npa, "as many as prob_a"));
  li = ox_attr_ints(c, "classlabels_ints", &nli);
  vpc = ox_attr_ints(c, "vectors_per_class", &nvpc);
  const ox_attr *ls = ox_attr_find(c, "classlabels_strings");
  if (c->err->code) return c->err->code;
  if (ls && ls->type != OX_ATTR_STRINGS)
    return FAIL("attribute 'classlabels_strings' must be a list of strings");
  int64_t nls = ls ? ls->n : 0;
  nli = li ? nli : 0;
  nvpc = vpc ? nvpc : 0;
  if ((nls > 0) == (nli > 0))
    return FAIL("exactly one of classlabels_strings and classlabels_ints must be given");
  int64_t nc = nls ? nls : nli, npair = nc * (nc - 1) / 2, vc = 0;
  if (nrho < 1) return FAIL("attribute 'rho' is empty");
  const ox_tensor *x = &in[0]->u.t;
  OX_TRY(rows(c, x, &n, &F));

  for (int64_t i = 0; i < nvpc; i++) {
    if (vpc[i] < 0 || vpc[i] > INT32_MAX)
      return FAIL("vectors_per_class[%lld] = %lld is not a count", (long long)i, (long long)vpc[i]);
    vc += vpc[i];
  }
  int svc = vc > 0, proba = npa > 0;
  int64_t S; /* scores per row */
  if (svc) {
    if (nc < 2) return FAIL("a support vector classifier needs at least two classes");
    OX_TRY(need(c, "vectors_per_class", nvpc, nc, "one per class"));
    OX_TRY(need(c, "support_vectors", nsv, ox_numel(2, (int64_t[]){vc, F}, 0),
                "the support vectors times the features of X"));
    OX_TRY(need(c, "coefficients", ncoef, ox_numel(2, (int64_t[]){nc - 1, vc}, 0),
                "classes - 1 times the support vectors"));
    if (nrho < npair) OX_TRY(need(c, "rho", nrho, npair, "one per pair of classes"));
    if (proba && npa < npair) OX_TRY(need(c, "prob_a", npa, npair, "one per pair of classes"));
    S = proba || nc == 2 ? nc : npair;
  } else {
    k.kind = K_LINEAR; /* liblinear: one row of coefficients per class */
    OX_TRY(need(c, "coefficients", ncoef, ox_numel(2, (int64_t[]){nc, F}, 0),
                "classes times the features of X"));
    S = nc;
  }
  int allpos = 1;
  for (int64_t i = 0; i < ncoef; i++) allpos &= coef[i] >= 0;

  OX_TRY(ox_tensor_new(c->a, nls ? OX_STRING : OX_INT64, 1, &n, &out[0], c->err));
  ox_value *z;
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, 2, (int64_t[]){n, S}, &z, c->err));
  int64_t nk = svc ? vc : 1, nr = proba ? nc * nc : 1;
  double *buf = ox_alloc_array(c->a, F > 0 ? F : 1, sizeof *buf);
  double *kv = ox_alloc_array(c->a, nk, sizeof *kv);
  double *sc = ox_alloc_array(c->a, npair > S ? npair : S, sizeof *sc);
  int64_t *votes = ox_alloc_array(c->a, nc, sizeof *votes);
  double *r = ox_alloc_array(c->a, nr, sizeof *r), *Q = ox_alloc_array(c->a, nr, sizeof *Q);
  double *Qp = ox_alloc_array(c->a, nc, sizeof *Qp);
  if (!buf || !kv || !sc || !votes || !r || !Q || !Qp) return ox_oom(c->err, NULL);

  for (int64_t row = 0; row < n; row++) {
    const double *xi = row_of(x, row, F, buf);
    int64_t best = 0;
    if (!svc) {
      /* linear: score_j = coef_j . x + rho[0] */
      for (int64_t j = 0; j < nc; j++) sc[j] = kdot(&k, xi, coef + j * F, F) + rho[0];
      for (int64_t j = 1; j < nc; j++)
        if (sc[j] > sc[best]) best = j;
      /* two classes without prob_a: class 1 when the top score m is >= 0.5
       * (non-negative coefficients) or > 0 (mixed), as onnxruntime and
       * onnx's reference decide */
      if (nc == 2 && !proba && ((allpos && sc[best] >= 0.5) || (!allpos && sc[best] > 0))) best = 1;
    } else {
      for (int64_t v = 0; v < vc; v++) kv[v] = kdot(&k, xi, sv + v * F, F);
      memset(votes, 0, (size_t)nc * sizeof *votes);
      /* coefficients (classes - 1, vc): pair (i, j) uses row j-1 over class
       * i's vectors and row i over class j's (libsvm's layout). */
      for (int64_t i = 0, p = 0, si = 0; i < nc; si += vpc[i], i++)
        for (int64_t j = i + 1, sj = si + vpc[i]; j < nc; sj += vpc[j], j++, p++) {
          double s = rho[p];
          for (int64_t m = 0; m < vpc[i]; m++) s += coef[(j - 1) * vc + si + m] * kv[si + m];
          for (int64_t m = 0; m < vpc[j]; m++) s += coef[i * vc + sj + m] * kv[sj + m];
          sc[p] = s;
          votes[s > 0 ? i : j]++;
        }
      for (int64_t j = 1; j < nc; j++)
        if (votes[j] > votes[best]) best = j;
      if (proba) {
        /* Platt scaling per pair, clipped as libsvm does */
        for (int64_t i = 0, p = 0; i < nc; i++)
          for (int64_t j = i + 1; j < nc; j++, p++) {
            double v = 1 - ox_ml_logistic(sc[p] * pa[p] + pb[p]);
            v = v < 1e-7 ? 1e-7 : v > 1 - 1e-7 ? 1 - 1e-7 : v;
            r[i * nc + j] = v;
            r[j * nc + i] = 1 - v;
          }
        multiclass_probability(nc, r, sc, Q, Qp);
      } else if (nc == 2) {
        /* one decision value s: Z = [-s, s] (onnxruntime for NONE; other
         * transforms apply to that pair as in onnx's reference) */
        sc[1] = sc[0];
        sc[0] = -sc[1];
      }
    }
    ox_ml_post_transform(pt, sc, S);
    float *zr = (float *)z->u.t.data + row * S;
    for (int64_t j = 0; j < S; j++) zr[j] = (float)sc[j];
    if (nls) ((ox_str *)out[0]->u.t.data)[row] = ls->strings[best];
    else ((int64_t *)out[0]->u.t.data)[row] = li[best];
  }
  if (nout > 1) out[1] = z;
  return 0;
}

#define TS_T1 (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(INT64) | OX_T(INT32))
const ox_kernel ox_ml_svm_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "ai.onnx.ml", "SVMClassifier", 1, 0, TS_T1, 1, 1, classifier_k,
    "classlabels_ints:ints,classlabels_strings:strings,coefficients:floats,"
    "kernel_params:floats,kernel_type:string=LINEAR,post_transform:string=NONE,prob_a:floats,"
    "prob_b:floats,rho:floats,support_vectors:floats,vectors_per_class:ints" },
  { "ai.onnx.ml", "SVMRegressor",  1, 0, TS_T1, 1, 1, regressor_k,
    "coefficients:floats,kernel_params:floats,kernel_type:string=LINEAR,n_supports:int=0,"
    "one_class:int=0,post_transform:string=NONE,rho:floats,support_vectors:floats" },
  {0},
};
