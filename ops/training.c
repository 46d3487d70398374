/* ops/training.c: the ai.onnx.preview.training domain, version 1: the
 * optimizers Adagrad, Adam and Momentum (standard and nesterov), and Gradient
 * (reverse-mode differentiation of the enclosing graph, at the end).
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

#include "core/eval.h"
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

/* ---- Gradient ----
 *
 * Gradient(xs, zs, y): the derivative of y with respect to each tensor named
 * in xs, at the values the node's inputs give for xs then zs. The graph
 * differentiated is the one holding the Gradient node (the main graph or a
 * subgraph): the nodes that y depends on back to the names of xs and zs. It
 * runs in three steps:
 *
 * 1. forward: those nodes run again as a subgraph (ox_run_subgraph) whose
 *    inputs are xs and zs bound to the node's inputs, so intermediate values
 *    are those at the given point; other names they read (initializers, graph
 *    inputs, outer values) come from the enclosing scope.
 * 2. the nodes on a path from xs to y through float tensors must be of the ops
 *    below; any other is an error naming it. Paths through non-float values
 *    (Shape, comparisons, integer indices) carry no gradient.
 * 3. reverse mode: dy starts as ones (so a non-scalar y gives the gradient of
 *    the sum of its elements), then each node, last to first, adds its
 *    inputs' shares, reducing over the axes numpy broadcasting stretched.
 *
 * Differentiable: Add, Sub, Mul, Div, Neg, Identity, Relu, Sigmoid, Tanh,
 * Exp, Log, Sqrt, Abs, Reciprocal, Sum, Mean, MatMul, Gemm, Reshape, Flatten,
 * Squeeze, Unsqueeze, Transpose, ReduceSum, ReduceMean. Nodes with subgraphs
 * and another Gradient node may not be in the differentiated graph, and a
 * Gradient inside a function body is refused (its graph is not a model
 * graph). Everything is computed in double; each output has its x's type. */

#define DIFF_OPS_TEXT                                                                          \
  "Add, Sub, Mul, Div, Neg, Identity, Relu, Sigmoid, Tanh, Exp, Log, Sqrt, Abs, Reciprocal, " \
  "Sum, Mean, MatMul, Gemm, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, ReduceSum, "      \
  "ReduceMean"

/* name -> int, open addressing, fixed capacity (at least twice the names) */
typedef struct { int64_t cap; const char **key; int *val; } strmap;

static int sm_init(ox_arena *a, strmap *m, int64_t expect) {
  m->cap = 16;
  while (m->cap < expect * 2) m->cap *= 2;
  m->key = ox_alloc_array(a, m->cap, sizeof *m->key);
  m->val = ox_alloc_array(a, m->cap, sizeof *m->val);
  return m->key && m->val;
}
static uint64_t sm_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  while (*s) h = (h ^ (uint8_t)*s++) * 1099511628211ull;
  return h;
}
/* The value slot of k, inserted with -1 when new. */
static int *sm_slot(strmap *m, const char *k) {
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = sm_hash(k) & mask;; i = (i + 1) & mask) {
    if (!m->key[i]) {
      m->key[i] = k;
      m->val[i] = -1;
      return &m->val[i];
    }
    if (!strcmp(m->key[i], k)) return &m->val[i];
  }
}
static int sm_get(const strmap *m, const char *k) {
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = sm_hash(k) & mask; m->key[i]; i = (i + 1) & mask)
    if (!strcmp(m->key[i], k)) return m->val[i];
  return -1;
}

/* A name of the differentiated graph: its value, that value in double (d,
 * loaded on first use) and dy/d(name) (g, NULL until some node adds to it). */
typedef struct {
  const char *name;
  ox_value *v;
  double *d, *g;
  int active; /* a float tensor that depends on xs */
} gslot;

typedef struct {
  ox_ctx *c;
  strmap map; /* name -> index in s */
  gslot *s;
  int n;
} gctx;

static gslot *slot_at(gctx *G, const char *name) {
  int i = name[0] ? sm_get(&G->map, name) : -1;
  return i >= 0 ? &G->s[i] : NULL;
}

static const double *vals(gctx *G, gslot *s) {
  if (s->d) return s->d;
  const ox_tensor *t = &s->v->u.t;
  s->d = ox_alloc_array(G->c->a, t->n ? t->n : 1, sizeof *s->d);
  if (!s->d) {
    ox_oom(G->c->err, NULL);
    return NULL;
  }
  for (int64_t i = 0; i < t->n; i++) s->d[i] = ox_load_f64(t->dt, t->data, i);
  return s->d;
}

/* The gradient buffer of an input to add into; NULL when the input is
 * inactive (nothing to add) or out of memory (c->err set). */
static double *grad_of(gctx *G, gslot *s) {
  if (!s || !s->active) return NULL;
  if (!s->g) {
    s->g = ox_alloc_array(G->c->a, s->v->u.t.n ? s->v->u.t.n : 1, sizeof *s->g);
    if (!s->g) ox_oom(G->c->err, NULL);
  }
  return s->g;
}

/* For each element of the (rank, dims) shape, row-major, the flat offset of
 * the element of an (xrank, xdims) tensor that numpy broadcasting reads there. */
static int64_t *bcast_offsets(gctx *G, int xrank, const int64_t *xdims, int rank, const int64_t *dims) {
  int64_t n = ox_numel(rank, dims, 0), st[OX_MAX_RANK] = {0}, idx[OX_MAX_RANK] = {0};
  int64_t *off = ox_alloc_array(G->c->a, n > 0 ? n : 1, sizeof *off);
  if (n < 0 || !off || rank > OX_MAX_RANK) {
    ox_oom(G->c->err, NULL);
    return NULL;
  }
  int64_t s = 1;
  for (int d = rank - 1, k = xrank - 1; d >= 0 && k >= 0 && n > 0; d--, k--) { /* n = 0: no offsets */
    st[d] = xdims[k] == 1 ? 0 : s;
    s *= xdims[k];
  }
  int64_t o = 0;
  for (int64_t i = 0; i < n; i++) {
    off[i] = o;
    for (int d = rank - 1; d >= 0; d--) {
      o += st[d];
      if (++idx[d] < dims[d]) break;
      o -= st[d] * dims[d];
      idx[d] = 0;
    }
  }
  return off;
}

/* ---- the rules: add each active input's share of dy/d(output) ----
 * in[i]: the node's inputs (NULL when missing), out[0]: its output, whose g
 * is set. */

#define T_(s) (&(s)->v->u.t)

/* Add, Sub, Mul, Div: z = a op b, broadcast. */
static int back_binary(gctx *G, const ox_node *n, gslot **in, gslot **out) {
  const ox_tensor *z = T_(out[0]);
  const double *a = vals(G, in[0]), *b = vals(G, in[1]), *g = out[0]->g;
  double *ga = grad_of(G, in[0]), *gb = grad_of(G, in[1]);
  int64_t *oa = bcast_offsets(G, T_(in[0])->rank, T_(in[0])->dims, z->rank, z->dims);
  int64_t *ob = bcast_offsets(G, T_(in[1])->rank, T_(in[1])->dims, z->rank, z->dims);
  if (!a || !b || !oa || !ob || G->c->err->code) return G->c->err->code;
  char op = n->op[0]; /* A(dd), S(ub), M(ul), D(iv) */
  for (int64_t i = 0; i < z->n; i++) {
    double av = a[oa[i]], bv = b[ob[i]], gi = g[i];
    if (ga) ga[oa[i]] += op == 'M' ? gi * bv : op == 'D' ? gi / bv : gi;
    if (gb) gb[ob[i]] += op == 'M' ? gi * av : op == 'D' ? -gi * av / (bv * bv) : op == 'S' ? -gi : gi;
  }
  return 0;
}

/* Sum, Mean: z = (x1 + ... + xk) [/ k], broadcast. */
static int back_sum(gctx *G, const ox_node *n, gslot **in, gslot **out) {
  const ox_tensor *z = T_(out[0]);
  double scale = n->op[0] == 'M' ? 1.0 / n->nin : 1.0;
  for (int k = 0; k < n->nin; k++) {
    double *gk = grad_of(G, in[k]);
    if (!gk) continue;
    int64_t *o = bcast_offsets(G, T_(in[k])->rank, T_(in[k])->dims, z->rank, z->dims);
    if (!o) return G->c->err->code;
    for (int64_t i = 0; i < z->n; i++) gk[o[i]] += scale * out[0]->g[i];
  }
  return G->c->err->code;
}

/* Elementwise unary ops: dx = dz * f'(x), written with x or z = f(x). */
static int back_unary(gctx *G, const ox_node *n, gslot **in, gslot **out) {
  double *gx = grad_of(G, in[0]);
  const double *x = vals(G, in[0]), *z = vals(G, out[0]), *g = out[0]->g;
  if (!gx || !x || !z) return G->c->err->code;
  const char *op = n->op;
  for (int64_t i = 0; i < T_(out[0])->n; i++) {
    double d;
    if (!strcmp(op, "Neg")) d = -1;
    else if (!strcmp(op, "Relu")) d = x[i] > 0;
    else if (!strcmp(op, "Sigmoid")) d = z[i] * (1 - z[i]);
    else if (!strcmp(op, "Tanh")) d = 1 - z[i] * z[i];
    else if (!strcmp(op, "Exp")) d = z[i];
    else if (!strcmp(op, "Log")) d = 1 / x[i];
    else if (!strcmp(op, "Sqrt")) d = 0.5 / z[i];
    else if (!strcmp(op, "Abs")) d = (x[i] > 0) - (x[i] < 0);
    else if (!strcmp(op, "Reciprocal")) d = -z[i] * z[i];
    else d = 1; /* Identity, and the ops that only reshape */
    gx[i] += g[i] * d;
  }
  return 0;
}

/* Transpose: z[i...] = x[i[perm]...]; dx gathers dz back. */
static int back_transpose(gctx *G, const ox_node *n, gslot **in, gslot **out) {
  double *gx = grad_of(G, in[0]);
  if (!gx) return G->c->err->code;
  const ox_tensor *x = T_(in[0]), *z = T_(out[0]);
  int r = x->rank;
  int64_t np, perm[OX_MAX_RANK], xst[OX_MAX_RANK], st[OX_MAX_RANK], idx[OX_MAX_RANK] = {0};
  ox_ctx nc = *G->c;
  nc.node = n;
  const int64_t *p = ox_attr_ints(&nc, "perm", &np);
  for (int d = 0; d < r; d++) perm[d] = p && np == r ? p[d] : r - 1 - d;
  int64_t s = x->n ? 1 : 0; /* empty x: its dims may multiply beyond int64; nothing to walk */
  for (int d = r - 1; d >= 0; d--) {
    xst[d] = s;
    s *= x->dims[d];
  }
  for (int d = 0; d < r; d++) st[d] = xst[perm[d]];
  int64_t o = 0;
  for (int64_t i = 0; i < z->n; i++) {
    gx[o] += out[0]->g[i];
    for (int d = r - 1; d >= 0; d--) {
      o += st[d];
      if (++idx[d] < z->dims[d]) break;
      o -= st[d] * z->dims[d];
      idx[d] = 0;
    }
  }
  return 0;
}

/* MatMul (numpy's matmul): a (..., M, K) or (K,), b (..., K, N) or (K,);
 * batch dims broadcast. da = dz b^T, db = a^T dz, each summed over the batch
 * entries that read it. */
static int back_matmul(gctx *G, const ox_node *n, gslot **in, gslot **out) {
  const ox_tensor *A = T_(in[0]), *B = T_(in[1]);
  const double *a = vals(G, in[0]), *b = vals(G, in[1]), *g = out[0]->g;
  double *ga = grad_of(G, in[0]), *gb = grad_of(G, in[1]);
  if (!a || !b || G->c->err->code) return G->c->err->code;
  int ra = A->rank, rb = B->rank;
  int64_t M = ra >= 2 ? A->dims[ra - 2] : 1, K = A->dims[ra - 1], N = rb >= 2 ? B->dims[rb - 1] : 1;
  int na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0, nr = na > nb ? na : nb;
  int64_t bd[OX_MAX_RANK];
  for (int d = 0; d < nr; d++) {
    int ka = d - (nr - na), kb = d - (nr - nb);
    int64_t da = ka >= 0 ? A->dims[ka] : 1, db = kb >= 0 ? B->dims[kb] : 1;
    bd[d] = da == 1 ? db : da;
  }
  int64_t *oa = bcast_offsets(G, na, A->dims, nr, bd), *ob = bcast_offsets(G, nb, B->dims, nr, bd);
  if (!oa || !ob) return G->c->err->code;
  int64_t batches = ox_numel(nr, bd, 0);
  for (int64_t q = 0; q < batches; q++) {
    const double *aq = a + oa[q] * M * K, *bq = b + ob[q] * K * N, *gq = g + q * M * N;
    if (ga)
      for (int64_t m = 0; m < M; m++)
        for (int64_t k = 0; k < K; k++) {
          double s = 0;
          for (int64_t j = 0; j < N; j++) s += gq[m * N + j] * bq[k * N + j];
          ga[oa[q] * M * K + m * K + k] += s;
        }
    if (gb)
      for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) {
          double s = 0;
          for (int64_t m = 0; m < M; m++) s += aq[m * K + k] * gq[m * N + j];
          gb[ob[q] * K * N + k * N + j] += s;
        }
  }
  return 0;
}

/* Gemm: z = alpha a' b' + beta c with a' = transA ? a^T : a (M, K),
 * b' = transB ? b^T : b (K, N), c broadcast to (M, N). */
static int back_gemm(gctx *G, const ox_node *n, gslot **in, gslot **out) {
  ox_ctx nc = *G->c;
  nc.node = n;
  double alpha = ox_attr_float(&nc, "alpha", 1.0f), beta = ox_attr_float(&nc, "beta", 1.0f);
  int ta = ox_attr_int(&nc, "transA", 0) != 0, tb = ox_attr_int(&nc, "transB", 0) != 0;
  if (nc.err->code) return nc.err->code;
  const ox_tensor *z = T_(out[0]);
  const double *a = vals(G, in[0]), *b = vals(G, in[1]), *g = out[0]->g;
  double *ga = grad_of(G, in[0]), *gb = grad_of(G, in[1]);
  if (!a || !b || G->c->err->code) return G->c->err->code;
  int64_t M = z->dims[0], N = z->dims[1], K = ta ? T_(in[0])->dims[0] : T_(in[0])->dims[1];
#define AI(m, k) (ta ? (k) * M + (m) : (m) * K + (k))
#define BI(k, j) (tb ? (j) * K + (k) : (k) * N + (j))
  if (ga)
    for (int64_t m = 0; m < M; m++)
      for (int64_t k = 0; k < K; k++) {
        double s = 0;
        for (int64_t j = 0; j < N; j++) s += g[m * N + j] * b[BI(k, j)];
        ga[AI(m, k)] += alpha * s;
      }
  if (gb)
    for (int64_t k = 0; k < K; k++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t m = 0; m < M; m++) s += a[AI(m, k)] * g[m * N + j];
        gb[BI(k, j)] += alpha * s;
      }
#undef AI
#undef BI
  double *gc = n->nin > 2 ? grad_of(G, in[2]) : NULL;
  if (gc) {
    int64_t *o = bcast_offsets(G, T_(in[2])->rank, T_(in[2])->dims, z->rank, z->dims);
    if (!o) return G->c->err->code;
    for (int64_t i = 0; i < z->n; i++) gc[o[i]] += beta * g[i];
  }
  return G->c->err->code;
}

/* ReduceSum, ReduceMean: dx = dz broadcast back over the reduced axes (taken
 * as the reduce kernels take them: input 1 from ReduceSum-13 and
 * ReduceMean-18, the attribute before), divided by the count for the mean. */
static int back_reduce(gctx *G, const ox_node *n, gslot **in, gslot **out) {
  double *gx = grad_of(G, in[0]);
  if (!gx) return G->c->err->code;
  const ox_tensor *x = T_(in[0]);
  ox_ctx nc = *G->c;
  nc.node = n;
  int mean = !strcmp(n->op, "ReduceMean");
  int from_input = n->version >= (mean ? 18 : 13);
  int64_t na = -1, *axes = NULL;
  int noop = 0;
  if (from_input) {
    noop = ox_attr_int(&nc, "noop_with_empty_axes", 0) != 0;
    if (n->nin > 1 && in[1]) OX_TRY(ox_ints_of(&nc, 1, in[1]->v, &axes, &na));
  } else {
    axes = (int64_t *)ox_attr_ints(&nc, "axes", &na);
  }
  if (nc.err->code) return nc.err->code;
  int64_t kd[OX_MAX_RANK], count = 1;
  uint8_t red[OX_MAX_RANK];
  memset(red, na <= 0 && !noop, sizeof red);
  for (int64_t i = 0; i < na; i++) {
    int d;
    OX_TRY(ox_axis(&nc, axes[i], x->rank, 0, "axis", &d));
    red[d] = 1;
  }
  for (int d = 0; d < x->rank; d++) {
    kd[d] = red[d] ? 1 : x->dims[d];
    if (red[d] && x->n) count *= x->dims[d]; /* (empty x: nothing to spread, count unused) */
  }
  /* dz holds the kept-dims shape's elements in the same order either way */
  int64_t *o = bcast_offsets(G, x->rank, kd, x->rank, x->dims);
  if (!o) return G->c->err->code;
  double scale = mean && count ? 1.0 / (double)count : 1.0;
  for (int64_t i = 0; i < x->n; i++) gx[i] += scale * out[0]->g[o[i]];
  return 0;
}

typedef int (*back_fn)(gctx *G, const ox_node *n, gslot **in, gslot **out);

static back_fn rule_of(const char *op) {
  static const struct { const char *op; back_fn fn; } rules[] = {
      {"Add", back_binary}, {"Sub", back_binary}, {"Mul", back_binary}, {"Div", back_binary},
      {"Sum", back_sum}, {"Mean", back_sum}, {"MatMul", back_matmul}, {"Gemm", back_gemm},
      {"Transpose", back_transpose}, {"ReduceSum", back_reduce}, {"ReduceMean", back_reduce},
      {"Neg", back_unary}, {"Identity", back_unary}, {"Relu", back_unary},
      {"Sigmoid", back_unary}, {"Tanh", back_unary}, {"Exp", back_unary}, {"Log", back_unary},
      {"Sqrt", back_unary}, {"Abs", back_unary}, {"Reciprocal", back_unary},
      /* same elements, another shape: dx = dz element by element */
      {"Reshape", back_unary}, {"Flatten", back_unary}, {"Squeeze", back_unary},
      {"Unsqueeze", back_unary}};
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    if (!strcmp(rules[i].op, op)) return rules[i].fn;
  return NULL;
}

/* The graph whose node array holds n: the main graph or a subgraph at any
 * depth (NULL for a function body's node, which is a copy). */
static const ox_graph *graph_of(const ox_graph *g, const ox_node *n, int depth) {
  if (!g || depth > 64) return NULL;
  uintptr_t p = (uintptr_t)n, lo = (uintptr_t)g->node;
  if (g->nnode && p >= lo && p < lo + (uintptr_t)g->nnode * sizeof *n) return g;
  for (int i = 0; i < g->nnode; i++)
    for (int j = 0; j < g->node[i].nattr; j++) {
      const ox_attr *at = &g->node[i].attr[j];
      const ox_graph *r = graph_of(at->g, n, depth + 1);
      for (int64_t q = 0; !r && at->graphs && q < at->n; q++) r = graph_of(at->graphs[q], n, depth + 1);
      if (r) return r;
    }
  return NULL;
}

static int strings_attr(ox_ctx *c, const char *name, int required, const ox_str **v, int64_t *n) {
  const ox_attr *at = ox_attr_find(c, name);
  *v = NULL;
  *n = 0;
  if (!at) return required ? ox_fail(c->err, OX_EINPUT, "attribute '%s' is required", name) : 0;
  if (at->type != OX_ATTR_STRINGS)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' must be a list of strings", name);
  *v = at->strings;
  *n = at->n;
  return 0;
}

static int gradient(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_str *xs, *zs;
  int64_t nx, nz;
  OX_TRY(strings_attr(c, "xs", 1, &xs, &nx));
  OX_TRY(strings_attr(c, "zs", 0, &zs, &nz));
  const ox_attr *ya = ox_attr_find(c, "y");
  if (!ya || ya->type != OX_ATTR_STRING)
    return ox_fail(c->err, OX_EINPUT, "attribute 'y' (a string) is required");
  const char *y = ya->s.p;
  if (nin != nx + nz)
    return ox_fail(c->err, OX_EINPUT, "%d inputs, but xs and zs name %lld tensors (the inputs "
                   "are their values, in that order)", nin, (long long)(nx + nz));
  if (nout > nx)
    return ox_fail(c->err, OX_EINPUT, "%d outputs, but xs names %lld tensors (one gradient each)",
                   nout, (long long)nx);
  char desc[128];
  for (int i = 0; i < nin; i++) {
    if (!in[i]) return ox_fail(c->err, OX_EINPUT, "input %d is missing", i);
    if (i < nx && (in[i]->kind != OX_TENSOR || !ox_dtype_is_float(in[i]->u.t.dt)))
      return ox_fail(c->err, OX_EINPUT, "%s (the value of xs[%d] '%s') is %s; gradients are "
                     "taken with respect to float tensors", ox_input_name(c, i), i, xs[i].p,
                     ox_value_desc(in[i], desc, sizeof desc));
  }
  const ox_graph *g = graph_of(c->model ? c->model->graph : NULL, c->node, 0);
  if (!g)
    return ox_fail(c->err, OX_EUNSUPPORTED, "the node is not in the model's graph or a subgraph "
                   "(a function body?), so the graph it differentiates is unknown");

  /* producers of g's names, and the leaves xs and zs */
  int64_t nnames = 1 + nin;
  for (int i = 0; i < g->nnode; i++) nnames += g->node[i].nin + g->node[i].nout;
  strmap prod;
  gctx G = {.c = c};
  G.s = ox_alloc_array(c->a, nnames, sizeof *G.s);
  if (!sm_init(c->a, &prod, nnames) || !sm_init(c->a, &G.map, nnames) || !G.s)
    return ox_oom(c->err, NULL);
  for (int i = 0; i < g->nnode; i++)
    for (int k = 0; k < g->node[i].nout; k++)
      if (g->node[i].out[k][0]) *sm_slot(&prod, g->node[i].out[k]) = i;
  for (int i = 0; i < nin; i++) {
    const char *nm = i < nx ? xs[i].p : zs[i - nx].p;
    int *s = sm_slot(&G.map, nm);
    if (*s >= 0) return ox_fail(c->err, OX_EINPUT, "'%s' appears twice in xs and zs", nm);
    *s = G.n;
    G.s[G.n++] = (gslot){.name = nm, .v = in[i], .active = i < nx};
  }

  /* the nodes y depends on, back to the leaves */
  uint8_t *need = ox_alloc_array(c->a, g->nnode ? g->nnode : 1, 1);
  const char **stack = ox_alloc_array(c->a, nnames, sizeof *stack);
  if (!need || !stack) return ox_oom(c->err, NULL);
  int64_t sp = 0;
  stack[sp++] = y;
  while (sp) {
    const char *nm = stack[--sp];
    if (sm_get(&G.map, nm) >= 0) continue; /* a leaf */
    int j = sm_get(&prod, nm);
    if (j < 0 || need[j]) continue; /* an initializer, graph input or outer name */
    const ox_node *m = &g->node[j];
    if (m == c->node || !strcmp(m->op, "Gradient"))
      return ox_fail(c->err, OX_EUNSUPPORTED, "y '%s' depends on Gradient node '%s': "
                     "differentiating a Gradient is not supported", y, m->name);
    for (int k = 0; k < m->nattr; k++)
      if (m->attr[k].g || m->attr[k].graphs)
        return ox_fail(c->err, OX_EUNSUPPORTED, "y '%s' depends on node '%s' %s, which has a "
                       "subgraph: Gradient cannot evaluate through it", y, m->name, m->op);
    need[j] = 1;
    for (int k = 0; k < m->nin; k++)
      if (m->in[k][0]) stack[sp++] = m->in[k];
  }

  /* 1. forward: the needed nodes as a subgraph of the leaves; its outputs are
   * every name they read or write (collect_outputs finds outer ones too) */
  int nn = 0;
  for (int i = 0; i < g->nnode; i++) nn += need[i];
  ox_graph fg = {.name = "forward", .nnode = nn, .nin = nin, .nout = 0};
  fg.node = ox_alloc_array(c->a, nn ? nn : 1, sizeof *fg.node);
  fg.in = ox_alloc_array(c->a, nin, sizeof *fg.in);
  fg.out = ox_alloc_array(c->a, nnames, sizeof *fg.out);
  if (!fg.node || !fg.in || !fg.out) return ox_oom(c->err, NULL);
  for (int i = 0; i < nin; i++) fg.in[i] = (ox_valueinfo){.name = G.s[i].name, .rank = -1};
  int first = G.n;
  for (int i = 0, q = 0; i < g->nnode; i++) {
    if (!need[i]) continue;
    const ox_node *m = &g->node[i];
    fg.node[q++] = *m;
    for (int k = 0; k < m->nin + m->nout; k++) {
      const char *nm = k < m->nin ? m->in[k] : m->out[k - m->nin];
      if (!nm[0]) continue;
      int *s = sm_slot(&G.map, nm);
      if (*s >= 0) continue;
      *s = G.n;
      G.s[G.n++] = (gslot){.name = nm};
      fg.out[fg.nout++] = (ox_valueinfo){.name = nm, .rank = -1};
    }
  }
  if (sm_get(&G.map, y) < 0) { /* y is neither a leaf nor made by a node: an outer name */
    *sm_slot(&G.map, y) = G.n;
    G.s[G.n++] = (gslot){.name = y};
    fg.out[fg.nout++] = (ox_valueinfo){.name = y, .rank = -1};
  }
  ox_value **fv = ox_alloc_array(c->a, fg.nout ? fg.nout : 1, sizeof *fv);
  if (!fv) return ox_oom(c->err, NULL);
  OX_TRY(ox_run_subgraph(c, "forward graph", &fg, nin, in, fv));
  for (int i = 0; i < fg.nout; i++) G.s[first + i].v = fv[i];

  /* 2. which values depend on xs through float tensors; their ops must have rules */
  for (int i = 0; i < nn; i++) {
    const ox_node *m = &fg.node[i];
    int act = 0;
    for (int k = 0; k < m->nin; k++) {
      gslot *s = slot_at(&G, m->in[k]);
      act |= s && s->active;
    }
    if (!act) continue;
    int any = 0;
    for (int k = 0; k < m->nout; k++) {
      gslot *s = slot_at(&G, m->out[k]);
      if (s && s->v && s->v->kind == OX_TENSOR && ox_dtype_is_float(s->v->u.t.dt))
        any = s->active = 1;
    }
    if (any && (!ox_domain_eq(m->domain, "") || !rule_of(m->op)))
      return ox_fail(c->err, OX_EUNSUPPORTED, "Gradient: cannot differentiate through %s (node "
                     "'%s', on the path from xs to y '%s'); the differentiable ops are " DIFF_OPS_TEXT,
                     m->op, m->name, y);
  }

  /* 3. reverse mode from dy = ones */
  gslot *ys = slot_at(&G, y);
  if (ys && ys->active) {
    if (!grad_of(&G, ys)) return c->err->code;
    for (int64_t i = 0; i < ys->v->u.t.n; i++) ys->g[i] = 1;
    gslot **ins = ox_alloc_array(c->a, nnames, sizeof *ins);
    if (!ins) return ox_oom(c->err, NULL);
    for (int i = nn - 1; i >= 0; i--) {
      const ox_node *m = &fg.node[i];
      gslot *o = m->nout ? slot_at(&G, m->out[0]) : NULL;
      if (!o || !o->active || !o->g) continue; /* carries no gradient to y */
      for (int k = 0; k < m->nin; k++) ins[k] = slot_at(&G, m->in[k]);
      int rc = rule_of(m->op)(&G, m, ins, &o);
      if (rc) {
        ox_prefix(c->err, "Gradient: differentiating node '%s' %s: ", m->name, m->op);
        return rc;
      }
    }
  }
  for (int i = 0; i < nout; i++) {
    const ox_tensor *x = &in[i]->u.t;
    OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, &out[i], c->err));
    if (G.s[i].g)
      for (int64_t k = 0; k < x->n; k++) ox_store_f64(x->dt, out[i]->u.t.data, k, G.s[i].g[k]);
  }
  return 0;
}

#define TD "ai.onnx.preview.training"
#define TS_FD (OX_T(FLOAT) | OX_T(DOUBLE))

const ox_kernel ox_training_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { TD, "Adagrad",  1, 2, TS_FD,         5, -1, adagrad,
    "decay_factor:float=0.0,epsilon:float=0.0,norm_coefficient:float=0.0" },
  { TD, "Adam",     1, 2, TS_FD,         6, -1, adam,
    "alpha:float=0.9,beta:float=0.999,epsilon:float=0.0,norm_coefficient:float=0.0,"
    "norm_coefficient_post:float=0.0" },
  { TD, "Gradient", 1, 0, OX_TS_CLASSIC, 1, -1, gradient,
    "xs:strings:required,y:string:required,zs:strings" },
  { TD, "Momentum", 1, 2, TS_FD,         5, -1, momentum,
    "alpha:float:required,beta:float:required,mode:string:required,"
    "norm_coefficient:float:required" },
  {0},
};
