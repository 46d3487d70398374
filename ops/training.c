/* ops/training.c: the optimizers of the ai.onnx.preview.training domain:
 * Adagrad, Adam and Momentum (standard and nesterov), version 1.
 *
 * Inputs: R (learning rate, a float or double scalar), T (update count, an
 * int64 scalar), then k groups of n tensors each: X1..Xn, G1..Gn and the
 * accumulators (Adagrad: H; Momentum: V; Adam: V then H). Outputs: the new
 * X1..Xn followed by the new accumulators in the same order. Every tensor of
 * the groups has the dtype of X1 (float or double); a tensor's G and
 * accumulators have its X's shape.
 *
 * One body serves float and double: elements are read into double, updated in
 * double (the formulas of the spec, written once per op), and stored once in
 * the tensors' type. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel.h"

enum { ADAGRAD, ADAM, MOMENTUM, NESTEROV };

typedef struct {
  int op;
  double r, decay, eps, norm, norm_post, alpha, beta;
  int64_t t;
} params;

static inline double ld(const ox_tensor *t, int64_t i) {
  return t->dt == OX_FLOAT ? (double)((const float *)t->data)[i] : ((const double *)t->data)[i];
}
static inline void st(ox_tensor *t, int64_t i, double v) {
  if (t->dt == OX_FLOAT) ((float *)t->data)[i] = (float)v;
  else ((double *)t->data)[i] = v;
}

/* Update one tensor: x, g and acc[0..nacc-1] in; xo and acc_out[...] out. */
static void update(const params *p, const ox_tensor *x, const ox_tensor *g,
                   const ox_tensor *const *acc, ox_tensor *xo, ox_tensor *const *acco) {
  /* The scalar factors, as the spec computes them once per call. */
  double r_adj = p->r, beta_adj = p->beta;
  if (p->op == ADAGRAD) r_adj = p->r / (1.0 + (double)p->t * p->decay);
  if (p->op == ADAM && p->t > 0)
    r_adj = p->r * sqrt(1.0 - pow(p->beta, (double)p->t)) / (1.0 - pow(p->alpha, (double)p->t));
  if ((p->op == MOMENTUM || p->op == NESTEROV) && p->t <= 0) beta_adj = 1.0;
  for (int64_t i = 0; i < x->n; i++) {
    double xv = ld(x, i), gr = p->norm * xv + ld(g, i), xn;
    switch (p->op) {
    case ADAGRAD: {
      double h = ld(acc[0], i) + gr * gr;
      xn = xv - r_adj * gr / (sqrt(h) + p->eps);
      st(acco[0], i, h);
    } break;
    case ADAM: {
      double v = p->alpha * ld(acc[0], i) + (1.0 - p->alpha) * gr;
      double h = p->beta * ld(acc[1], i) + (1.0 - p->beta) * gr * gr;
      xn = (1.0 - p->norm_post) * (xv - r_adj * (v / (sqrt(h) + p->eps)));
      st(acco[0], i, v);
      st(acco[1], i, h);
    } break;
    default: { /* MOMENTUM, NESTEROV */
      double v = p->alpha * ld(acc[0], i) + beta_adj * gr;
      xn = p->op == MOMENTUM ? xv - p->r * v : xv - p->r * (gr + p->alpha * v);
      st(acco[0], i, v);
    } break;
    }
    st(xo, i, xn);
  }
}

static const char *const group_names[4][4] = {
    [ADAGRAD] = {"X", "G", "H"},
    [ADAM] = {"X", "G", "V", "H"},
    [MOMENTUM] = {"X", "G", "V"},
    [NESTEROV] = {"X", "G", "V"},
};
static const char *const group_list[4] = {
    [ADAGRAD] = "X..., G..., H...", [ADAM] = "X..., G..., V..., H...",
    [MOMENTUM] = "X..., G..., V...", [NESTEROV] = "X..., G..., V..."};

static int required(ox_ctx *c, const char *name) {
  if (ox_attr_find(c, name)) return 0;
  return ox_fail(c->err, OX_EINPUT, "attribute '%s' is required", name);
}

/* k: the number of groups (X, G and the accumulators). */
static int optimize(ox_ctx *c, params *p, int k, int nin, ox_value **in, int nout,
                    ox_value **out) {
  if (c->err->code) return c->err->code; /* a mistyped attribute */
  const char *const *gn = group_names[p->op];
  if ((nin - 2) % k)
    return ox_fail(c->err, OX_EINPUT,
                   "%d inputs: expected R, T, then %s (%d groups of as many tensors), "
                   "but %d tensors do not split into %d equal groups",
                   nin, group_list[p->op], k, nin - 2, k);
  int n = (nin - 2) / k;
  if (nout != (k - 1) * n)
    return ox_fail(c->err, OX_EINPUT,
                   "%d outputs: %d optimized tensors need %d (the new X and %d accumulator%s each)",
                   nout, n, (k - 1) * n, k - 2, k > 3 ? "s" : "");
  for (int i = 0; i < nin; i++)
    if (!in[i] || in[i]->kind != OX_TENSOR)
      return ox_fail(c->err, OX_EINPUT, "%s must be a tensor", ox_input_name(c, i));
  const ox_tensor *rt = &in[0]->u.t;
  if ((rt->dt != OX_FLOAT && rt->dt != OX_DOUBLE) || rt->n != 1 || rt->rank > 1)
    return ox_fail(c->err, OX_EINPUT, "%s (the learning rate R) must be a float or double scalar",
                   ox_input_name(c, 0));
  p->r = ld(rt, 0);
  if (in[1]->u.t.dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s (the update count T) must be an int64 scalar",
                   ox_input_name(c, 1));
  OX_TRY(ox_scalar_i64(c, 1, in[1], &p->t));
  ox_dtype dt = in[2]->u.t.dt;
  char b1[64], b2[64];
  for (int j = 0; j < n; j++) {
    const ox_tensor *x = &in[2 + j]->u.t;
    for (int g = 0; g < k; g++) {
      int ii = 2 + g * n + j;
      const ox_tensor *t = &in[ii]->u.t;
      if (t->dt != dt)
        return ox_fail(c->err, OX_EINPUT, "%s (%s%d) is %s, but X1 is %s", ox_input_name(c, ii),
                       gn[g], j + 1, ox_dtype_name(t->dt), ox_dtype_name(dt));
      int same = t->rank == x->rank;
      for (int d = 0; same && d < x->rank; d++) same = t->dims[d] == x->dims[d];
      if (!same)
        return ox_fail(c->err, OX_EINPUT, "%s (%s%d) has shape %s, but X%d has shape %s",
                       ox_input_name(c, ii), gn[g], j + 1,
                       ox_shape_str(t->rank, t->dims, b1, sizeof b1), j + 1,
                       ox_shape_str(x->rank, x->dims, b2, sizeof b2));
    }
  }
  for (int j = 0; j < n; j++) {
    const ox_tensor *x = &in[2 + j]->u.t;
    const ox_tensor *acc[2] = {NULL, NULL};
    ox_tensor *acco[2] = {NULL, NULL};
    for (int o = 0; o < k - 1; o++) {
      OX_TRY(ox_tensor_new(c->a, dt, x->rank, x->dims, &out[o * n + j], c->err));
      if (o) {
        acc[o - 1] = &in[2 + (o + 1) * n + j]->u.t;
        acco[o - 1] = &out[o * n + j]->u.t;
      }
    }
    update(p, x, &in[2 + n + j]->u.t, acc, &out[j]->u.t, acco);
  }
  return 0;
}

static int adagrad(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  params p = {.op = ADAGRAD,
              .decay = ox_attr_float(c, "decay_factor", 0.0f),
              .eps = ox_attr_float(c, "epsilon", 1e-6f),
              .norm = ox_attr_float(c, "norm_coefficient", 0.0f)};
  return optimize(c, &p, 3, nin, in, nout, out);
}

static int adam(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  params p = {.op = ADAM,
              .alpha = ox_attr_float(c, "alpha", 0.9f),
              .beta = ox_attr_float(c, "beta", 0.999f),
              .eps = ox_attr_float(c, "epsilon", 1e-6f),
              .norm = ox_attr_float(c, "norm_coefficient", 0.0f),
              .norm_post = ox_attr_float(c, "norm_coefficient_post", 0.0f)};
  return optimize(c, &p, 4, nin, in, nout, out);
}

static int momentum(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(required(c, "alpha"));
  OX_TRY(required(c, "beta"));
  OX_TRY(required(c, "norm_coefficient"));
  OX_TRY(required(c, "mode"));
  const char *mode = ox_attr_string(c, "mode", "standard");
  params p = {.alpha = ox_attr_float(c, "alpha", 0.0f),
              .beta = ox_attr_float(c, "beta", 0.0f),
              .norm = ox_attr_float(c, "norm_coefficient", 0.0f)};
  if (c->err->code) return c->err->code;
  if (!strcmp(mode, "standard")) p.op = MOMENTUM;
  else if (!strcmp(mode, "nesterov")) p.op = NESTEROV;
  else return ox_fail(c->err, OX_EINPUT, "mode '%s' is not 'standard' or 'nesterov'", mode);
  return optimize(c, &p, 3, nin, in, nout, out);
}

#define TD "ai.onnx.preview.training"
#define TS_FD (OX_T(FLOAT) | OX_T(DOUBLE))

const ox_kernel ox_training_kernels[] = {
/*  domain op          since until      tin types  in     fn */
  { TD, "Adagrad",     1, OX_LATEST, 2, TS_FD, 5, -1, adagrad },
  { TD, "Adam",        1, OX_LATEST, 2, TS_FD, 6, -1, adam },
  { TD, "Momentum",    1, OX_LATEST, 2, TS_FD, 5, -1, momentum },
  {0},
};
