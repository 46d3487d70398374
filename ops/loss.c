/* ops/loss.c: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
 *
 * Both gather -logp[n, t[n, d], d] with an optional per-class weight and an
 * ignored label, then reduce (none, sum, or mean = sum(w l) / sum(w)). The
 * scores are read into double once; sums and the log-softmax run in double;
 * results are stored once in the input's type (float16/bfloat16 rounded once). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel.h"

/* ---- the attributes, read once when the model is loaded ---- */

/* reduction (0 none, 1 sum, 2 mean) and ignore_index */
typedef struct {
  int mode, has_ignore;
  int64_t ignore_index;
} loss_state;

static int loss_load(ox_ctx *c, void **state) {
  loss_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  const char *red = ox_attr_string(c, "reduction", "mean");
  st->mode = !strcmp(red, "none") ? 0 : !strcmp(red, "sum") ? 1 : !strcmp(red, "mean") ? 2 : -1;
  if (st->mode < 0) return ox_fail(c->err, OX_EINPUT, "reduction '%s' is not none, sum or mean", red);
  st->has_ignore = ox_attr_find(c, "ignore_index") != NULL;
  st->ignore_index = ox_attr_int(c, "ignore_index", 0);
  return 0;
}

/* The shared tail: lp is (N, C, D) log-probabilities (NLL: the input itself).
 * in[1]: target (N, d1, ..., dk); in[2]: optional weight (C). */
static int loss(ox_ctx *c, int nin, ox_value **in, const ox_tensor *x, const double *lp,
                ox_value **out) {
  const ox_tensor *t = &in[1]->u.t;
  const ox_tensor *w = nin > 2 && in[2] ? &in[2]->u.t : NULL;
  const loss_state *st = c->state;
  int has_ignore = st->has_ignore;
  int64_t ii = st->ignore_index;
  int mode = st->mode;
  if (t->dt != OX_INT32 && t->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s must be int32 or int64", ox_input_name(c, 1));
  int64_t N = x->dims[0], C = x->dims[1], D = N ? ox_numel(x->rank - 2, x->dims + 2, 0) : 0;
  int shape_ok = t->rank == x->rank - 1 && t->dims[0] == N;
  for (int i = 2; shape_ok && i < x->rank; i++) shape_ok = t->dims[i - 1] == x->dims[i];
  if (!shape_ok) {
    char a[128], b[128];
    return ox_fail(c->err, OX_EINPUT, "target shape %s does not match input shape %s without its class dim",
                   ox_shape_str(t->rank, t->dims, a, sizeof a), ox_shape_str(x->rank, x->dims, b, sizeof b));
  }
  if (w && (w->rank != 1 || w->dims[0] != C || w->dt != x->dt))
    return ox_fail(c->err, OX_EINPUT, "weight must be a 1-D tensor of %lld classes of the input's type", (long long)C);
  double *wd = w ? ox_widen_f64(c->a, w, c->err) : NULL;
  if (w && !wd) return c->err->code;
  if (mode == 0) OX_TRY(ox_tensor_new(c->a, x->dt, t->rank, t->dims, &out[0], c->err));
  else OX_TRY(ox_scalar_new(c->a, x->dt, &out[0], c->err));
  double *l = ox_alloc_array(c->a, t->n + 1, sizeof *l);
  if (!l) return ox_oom(c->err, NULL);
  double sum = 0, wsum = 0;
  for (int64_t n = 0; n < N; n++)
    for (int64_t d = 0; d < D; d++) {
      int64_t i = n * D + d;
      int64_t k = t->dt == OX_INT32 ? ((const int32_t *)t->data)[i] : ((const int64_t *)t->data)[i];
      if (has_ignore && k == ii) { l[i] = 0; continue; }
      if (k < 0 || k >= C)
        return ox_fail(c->err, OX_EINPUT, "target %lld at %lld is outside [0, %lld) and not ignore_index",
                       (long long)k, (long long)i, (long long)C);
      double wk = wd ? wd[k] : 1.0;
      l[i] = -lp[(n * C + k) * D + d] * wk;
      sum += l[i], wsum += wk;
    }
  ox_tensor *y = &out[0]->u.t;
  if (mode == 0) return ox_narrow_f64(c->a, l, y, OX_TO_INT_TRUNC, c->err);
  /* mean: sum(w l) / sum(w), the weights of ignored targets 0 (NLL-13) */
  double r = mode == 1 ? sum : sum / wsum;
  return ox_narrow_f64(c->a, &r, y, OX_TO_INT_TRUNC, c->err);
}

static int check_x(ox_ctx *c, const ox_tensor *x) {
  if (x->rank < 2) return ox_fail(c->err, OX_EINPUT, "input must be (N, C, d1, ..., dk); got rank %d", x->rank);
  /* with N = 0 there is nothing to walk, and d1 * ... * dk need not fit */
  if (x->dims[0] && ox_numel(x->rank - 2, x->dims + 2, 0) < 0)
    return ox_fail(c->err, OX_EINPUT, "input dims overflow");
  return 0;
}

static int nll_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x = &in[0]->u.t; /* x: (N, C, d1, ..., dk) log-probabilities */
  OX_TRY(check_x(c, x));
  double *xd = ox_widen_f64(c->a, x, c->err);
  if (!xd) return c->err->code;
  return loss(c, nin, in, x, xd, out);
}

static int sce_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x = &in[0]->u.t; /* scores: (N, C, d1, ..., dk) */
  OX_TRY(check_x(c, x));
  double *lp = ox_widen_f64(c->a, x, c->err);
  int64_t N = x->dims[0], C = x->dims[1], D = N ? ox_numel(x->rank - 2, x->dims + 2, 0) : 0;
  double *m = ox_alloc_array(c->a, D + 1, sizeof *m), *s = ox_alloc_array(c->a, D + 1, sizeof *s);
  if (!lp) return c->err->code;
  if (!m || !s) return ox_oom(c->err, NULL);
  /* log_softmax over the class axis: rows of D contiguous values per class */
  for (int64_t n = 0; n < N && C > 0; n++) {
    double *p = lp + n * C * D;
    memcpy(m, p, (size_t)D * sizeof *m);
    for (int64_t k = 1; k < C; k++)
      for (int64_t d = 0; d < D; d++) m[d] = p[k * D + d] > m[d] ? p[k * D + d] : m[d];
    memset(s, 0, (size_t)D * sizeof *s);
    for (int64_t k = 0; k < C; k++)
      for (int64_t d = 0; d < D; d++) s[d] += exp(p[k * D + d] - m[d]);
    for (int64_t d = 0; d < D; d++) s[d] = m[d] + log(s[d]);
    for (int64_t k = 0; k < C; k++)
      for (int64_t d = 0; d < D; d++) p[k * D + d] -= s[d];
  }
  OX_TRY(loss(c, nin, in, x, lp, out));
  if (nout > 1) { /* log_prob: (N, C, d1, ..., dk) */
    OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, &out[1], c->err));
    OX_TRY(ox_narrow_f64(c->a, lp, &out[1]->u.t, OX_TO_INT_TRUNC, c->err));
  }
  return 0;
}

const ox_kernel ox_loss_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "NegativeLogLikelihoodLoss", 12, 0, OX_TS_FLOAT3, 2, 3, nll_k,
    "ignore_index:int,reduction:string=mean", loss_load },
  { "", "NegativeLogLikelihoodLoss", 13, 0, OX_TS_FLOAT3, 2, 3, nll_k, OX_ATTRS_OF(12), loss_load },
  { "", "NegativeLogLikelihoodLoss", 22, 0, OX_TS_FLOAT4, 2, 3, nll_k, OX_ATTRS_OF(12), loss_load },
  { "", "SoftmaxCrossEntropyLoss",   12, 0, OX_TS_FLOAT3, 2, 3, sce_k,
    "ignore_index:int,reduction:string=mean", loss_load },
  { "", "SoftmaxCrossEntropyLoss",   13, 0, OX_TS_FLOAT4, 2, 3, sce_k, OX_ATTRS_OF(12), loss_load },
  {0},
};
