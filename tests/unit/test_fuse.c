/* tests/unit/test_fuse.c: a float MatMul by a constant B (K, N) computing
 * its elementwise followers on each finished block of its output (core/
 * fuse.h; issue 30): the exporters' MatMul -> Add(bias of N), the GELU
 * chain, activations, a residual. Each graph is built by hand, prepared and
 * run with fusion on and with ONNXOP_NO_FUSE=1, at 1-3 threads: the outputs
 * must be the same bytes and shape, and --time's trace must list exactly
 * the followers expected as fused (computed by the MatMul), on the packed
 * GEMM's blocks and after a thin product (at most 4 rows). Not fused: a
 * MatMul whose output another node reads or the graph outputs, a constant
 * per row (not per column), a constant that adds axes to the output.
 * The same groups in float16 (a float16 MatMul by a constant float16 B):
 * fused, each step rounded as its unfused float16 kernel rounds, the bytes
 * of the unfused nodes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "core/eval.h"
#include "core/fuse.h"
#include "core/half.h"

static unsigned rng = 4242;
static float rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static ox_value *random_tensor(int rank, const int64_t *dims) {
  ox_value *v = tensor(OX_FLOAT, rank, dims, NULL);
  for (int64_t i = 0; v && i < v->u.t.n; i++) ((float *)v->u.t.data)[i] = rnd();
  return v;
}

static ox_value *scalar(float f) { return tensor(OX_FLOAT, 0, NULL, &f); }

/* float16: uniform in [-scale, scale), rounded to float16 */
static ox_value *random_half(int rank, const int64_t *dims, float scale) {
  ox_value *v = tensor(OX_FLOAT16, rank, dims, NULL);
  for (int64_t i = 0; v && i < v->u.t.n; i++) {
    float f = rnd() * scale;
    ox_f32_to_f16_n(&f, (uint16_t *)v->u.t.data + i, 1);
  }
  return v;
}

static ox_value *scalar_half(float f) {
  uint16_t h;
  ox_f32_to_f16_n(&f, &h, 1);
  return tensor(OX_FLOAT16, 0, NULL, &h);
}

/* a node of a case: op, inputs, one output */
typedef struct {
  const char *op;
  int nin;
  const char *in[5];
  const char *out[1];
} step;

/* a graph: nodes, inputs (graph inputs, values given), initializers, outputs */
typedef struct {
  const char *label;
  int nnode;
  const step *node;
  int nin;
  const char *in_name[2];
  ox_value *in[2];
  int ninit;
  const char *init_name[9];
  ox_value *init[9];
  int nout;
  const char *out_name[2];
} graph;

/* Prepare and run gr with fusion on or off, on `threads`: 0, the outputs in
 * out, *fused the followers --time lists as fused; else the code. */
static int run_graph(const graph *gr, int fuse, int threads, ox_value **out, int *fused) {
  ox_node nodes[10];
  const char *names[10][6]; /* preparing rewrites a node's names */
  for (int i = 0; i < gr->nnode; i++) {
    const step *st = &gr->node[i];
    for (int k = 0; k < 5; k++) names[i][k] = st->in[k];
    names[i][5] = st->out[0];
    nodes[i] = kit_node(st->op, st->nin, names[i], 1, names[i] + 5);
  }
  ox_valueinfo gi[2], go[2];
  for (int i = 0; i < gr->nin; i++) gi[i] = (ox_valueinfo){.name = gr->in_name[i], .rank = -1};
  for (int i = 0; i < gr->nout; i++) go[i] = (ox_valueinfo){.name = gr->out_name[i], .rank = -1};
  ox_graph g = {gr->label, gr->nnode, nodes, gr->nin, gi, gr->nout, go, gr->ninit, (const char **)gr->init_name,
                (ox_value **)gr->init, 0, NULL};
  ox_opset ops[] = {{"", 20}}; /* Gelu-20 */
  ox_model m = {gr->label, ".", 8, 1, ops, &g, 0, NULL};
  if (fuse) unsetenv("ONNXOP_NO_FUSE");
  else setenv("ONNXOP_NO_FUSE", "1", 1);
  ox_err_clear(&E);
  int rc = ox_prepare(A, &m, &E);
  unsetenv("ONNXOP_NO_FUSE");
  if (rc) return rc;
  FILE *f = tmpfile();
  if (!f) return -1;
  ox_run_opts ro = {0};
  ro.trace = OX_TRACE_TIME, ro.trace_file = f, ro.threads = threads;
  ox_value *in[2] = {gr->in[0], gr->in[1]};
  rc = ox_run_with(A, &m, &ro, in, out, &E);
  rewind(f);
  char line[512];
  *fused = 0;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "fused  node") && strstr(line, gr->node[0].op[0] == 'C' ? "(computed by node 'Conv')"
                                                                                : "(computed by node 'MatMul')"))
      ++*fused;
  fclose(f);
  return rc;
}

static int same_value(const ox_value *a, const ox_value *b) {
  if (!a || !b || a->u.t.dt != b->u.t.dt || a->u.t.rank != b->u.t.rank || a->u.t.n != b->u.t.n) return 0;
  for (int d = 0; d < a->u.t.rank; d++)
    if (a->u.t.dims[d] != b->u.t.dims[d]) return 0;
  return !memcmp(a->u.t.data, b->u.t.data, (size_t)a->u.t.n * ox_dtype_size(a->u.t.dt));
}

/* gr fused (want_fused followers computed by the MatMul) and not: the same
 * bytes and shapes, at 1-3 threads. */
static void fuse_case(const graph *gr, int want_fused) {
  ox_value *off[2] = {NULL, NULL};
  int fused = -1, bad = 0;
  CHECK_EQ_I(run_graph(gr, 0, 1, off, &fused), 0);
  CHECK_EQ_I(fused, 0); /* ONNXOP_NO_FUSE=1: every node on its own */
  for (int th = 1; th <= 3; th++) {
    ox_value *on[2] = {NULL, NULL};
    CHECK_EQ_I(run_graph(gr, 1, th, on, &fused), 0);
    if (fused != want_fused) {
      fprintf(stderr, "%s, %d threads: %d fused, want %d\n", gr->label, th, fused, want_fused);
      bad++;
    }
    for (int i = 0; i < gr->nout; i++)
      if (!same_value(on[i], off[i])) {
        fprintf(stderr, "%s, %d threads: output %d not the bytes (or shape) of the unfused run\n", gr->label, th, i);
        bad++;
      }
  }
  CHECK_EQ_I(bad, 0);
}

/* GELU as the exporters write it: Add(bias), then x * (erf(x / sqrt2) + 1)
 * * 0.5. The biased value is read by Div and by the Mul, both in the group:
 * all six fused (before Erf was a step, only the Add was). */
static const step gelu[] = {
  {"MatMul", 2, {"a", "w"}, {"y"}},  {"Add", 2, {"y", "bias"}, {"z"}}, {"Div", 2, {"z", "sqrt2"}, {"d"}},
  {"Erf", 1, {"d"}, {"e"}},          {"Add", 2, {"e", "one"}, {"f"}},  {"Mul", 2, {"z", "f"}, {"g"}},
  {"Mul", 2, {"g", "half"}, {"out"}},
};

/* the bias first, activations, a residual (a graph input), a scalar: all
 * five fused */
static const step act[] = {
  {"MatMul", 2, {"a", "w"}, {"y"}}, {"Add", 2, {"bias", "y"}, {"z"}}, {"Relu", 1, {"z"}, {"u"}},
  {"Tanh", 1, {"u"}, {"t"}},        {"Add", 2, {"t", "r"}, {"v"}},    {"Mul", 2, {"v", "half"}, {"out"}},
};

/* y read by Neg too: nothing fused (both values are made) */
static const step shared[] = {
  {"MatMul", 2, {"a", "w"}, {"y"}}, {"Add", 2, {"y", "bias"}, {"out"}}, {"Neg", 1, {"y"}, {"n"}},
};

/* y a graph output: nothing fused */
static const step y_out[] = {{"MatMul", 2, {"a", "w"}, {"y"}}, {"Add", 2, {"y", "bias"}, {"out"}}};

static void test_matmul_epilogue(void) {
  int64_t wd[2] = {64, 200}, bd1 = 200, bd2[2] = {1, 200}, a3[3] = {2, 37, 64};
  ox_value *w = random_tensor(2, wd), *bias = random_tensor(1, &bd1), *bias2 = random_tensor(2, bd2);
  ox_value *sqrt2 = scalar(1.41421354f), *one = scalar(1.0f), *half = scalar(0.5f);

  /* A (2, 37, 64): two batches stacked, 74 rows */
  graph g1 = {"gelu", 7, gelu, 1, {"a"}, {random_tensor(3, a3)}, 5, {"w", "bias", "sqrt2", "one", "half"},
              {w, bias, sqrt2, one, half}, 1, {"out"}};
  fuse_case(&g1, 6);
  /* Gelu-20 (approximate none) after the bias */
  static const step gelu20[] = {{"MatMul", 2, {"a", "w"}, {"y"}}, {"Add", 2, {"y", "bias"}, {"z"}},
                                {"Gelu", 1, {"z"}, {"out"}}};
  graph g0 = {"gelu20", 3, gelu20, 1, {"a"}, {random_tensor(3, a3)}, 2, {"w", "bias"}, {w, bias}, 1, {"out"}};
  fuse_case(&g0, 2);

  /* A (300, 64) x (64, 200): several row blocks, split over the threads;
   * bias (1, 200); r (300, 200) */
  int64_t a2[2] = {300, 64}, rd[2] = {300, 200};
  graph g2 = {"act", 6, act, 2, {"a", "r"}, {random_tensor(2, a2), random_tensor(2, rd)}, 3, {"w", "bias", "half"},
              {w, bias2, half}, 1, {"out"}};
  fuse_case(&g2, 5);
  /* a (3, 64): a thin product (core/gemv.h on the packed B), then the steps */
  int64_t at[2] = {3, 64}, rt[2] = {3, 200};
  g2.in[0] = random_tensor(2, at), g2.in[1] = random_tensor(2, rt);
  fuse_case(&g2, 5);
  /* a (2, 2, 64): thin, two batches of two rows stacked */
  int64_t at3[3] = {2, 2, 64}, rt3[3] = {2, 2, 200};
  g2.in[0] = random_tensor(3, at3), g2.in[1] = random_tensor(3, rt3);
  fuse_case(&g2, 5);

  graph g3 = {"shared", 3, shared, 1, {"a"}, {random_tensor(2, a2)}, 2, {"w", "bias"}, {w, bias}, 2, {"out", "n"}};
  fuse_case(&g3, 0);
  graph g4 = {"y_out", 2, y_out, 1, {"a"}, {random_tensor(2, a2)}, 2, {"w", "bias"}, {w, bias}, 2, {"out", "y"}};
  fuse_case(&g4, 0);

  /* a constant per row, (200, 1), with as many rows as columns: not per
   * column, not fused */
  int64_t a200[2] = {200, 64}, rowd[2] = {200, 1};
  graph g5 = {"per_row", 2, y_out, 1, {"a"}, {random_tensor(2, a200)}, 2, {"w", "bias"},
              {w, random_tensor(2, rowd)}, 1, {"out"}};
  fuse_case(&g5, 0);

  /* a bias (1, 1, 200) on a (300, 200) product: the output is (1, 300,
   * 200); fused, the MatMul's output would keep rank 2, so the step is
   * refused when it runs */
  int64_t b3[3] = {1, 1, 200};
  graph g6 = {"rank", 2, y_out, 1, {"a"}, {random_tensor(2, a2)}, 2, {"w", "bias"}, {w, random_tensor(3, b3)}, 1,
              {"out"}};
  fuse_case(&g6, 0);
  /* a scalar (1, 1, 1) alike */
  float hv = 0.5f;
  graph g7 = g6;
  g7.init[1] = tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, &hv);
  fuse_case(&g7, 0);
  /* the same on a (2, 37, 64) A: the output has rank 3, fused */
  g6.in[0] = random_tensor(3, a3);
  fuse_case(&g6, 1);
}

/* float16: the GELU chain (its Div, Erf, Add, Mul, Mul on values of every
 * size: a product of 64 terms of [-1, 1) by [-1, 1), then rounded at each
 * step as the unfused nodes round), the bias, activations, a float16
 * residual, on the packed GEMM's blocks at 1-3 threads. A Clip is not a
 * float16 step (its bounds): the group stops before it. */
static void test_matmul_epilogue_half(void) {
  int64_t wd[2] = {64, 200}, bd1 = 200, bd2[2] = {1, 200}, a3[3] = {2, 37, 64};
  ox_value *w = random_half(2, wd, 1), *bias = random_half(1, &bd1, 1), *bias2 = random_half(2, bd2, 1);
  ox_value *sqrt2 = scalar_half(1.41421354f), *one = scalar_half(1.0f), *half = scalar_half(0.5f);
  graph g1 = {"gelu_f16", 7, gelu, 1, {"a"}, {random_half(3, a3, 1)}, 5, {"w", "bias", "sqrt2", "one", "half"},
              {w, bias, sqrt2, one, half}, 1, {"out"}};
  fuse_case(&g1, 6);
  /* large values: float16's range and rounding matter (x / sqrt2 and the
   * sums overflow to Inf for some, Erf saturates) */
  g1.in[0] = random_half(3, a3, 300);
  fuse_case(&g1, 6);
  static const step gelu20[] = {{"MatMul", 2, {"a", "w"}, {"y"}}, {"Add", 2, {"y", "bias"}, {"z"}},
                                {"Gelu", 1, {"z"}, {"out"}}};
  graph g0 = {"gelu20_f16", 3, gelu20, 1, {"a"}, {random_half(3, a3, 4)}, 2, {"w", "bias"}, {w, bias}, 1, {"out"}};
  fuse_case(&g0, 2);
  int64_t a2[2] = {300, 64}, rd[2] = {300, 200};
  graph g2 = {"act_f16", 6, act, 2, {"a", "r"}, {random_half(2, a2, 2), random_half(2, rd, 2)}, 3,
              {"w", "bias", "half"}, {w, bias2, half}, 1, {"out"}};
  fuse_case(&g2, 5);
  /* Clip after the bias: only the Add fused */
  static const step clip[] = {{"MatMul", 2, {"a", "w"}, {"y"}}, {"Add", 2, {"y", "bias"}, {"z"}},
                              {"Clip", 1, {"z"}, {"out"}}};
  graph g3 = {"clip_f16", 3, clip, 1, {"a"}, {random_half(2, a2, 1)}, 2, {"w", "bias"}, {w, bias}, 1, {"out"}};
  fuse_case(&g3, 1);
}

/* ---- a Conv's followers in one pass (core/fuse.c, onepass) ----
 * BatchNormalization, a Mul and an Add per channel, Relu, Clip and Paddle's
 * HardSwish (Add 3, Clip 0 6, Mul, Div 6) after a Conv: fused, every element
 * the bytes of the unfused nodes, on values the steps' corner cases reach
 * (x (1, 1, 5, 67), scaled per channel by powers of two: NaN, -Inf, Inf,
 * -0, -3 and 3 where x + 3 and x - 3 cancel, 6, tiny and huge values,
 * random ones in [-8, 8)); rows of 335 positions, more than a block. */
static const step conv_bn_hsw[] = {
  {"Conv", 2, {"x", "w"}, {"y"}},
  {"BatchNormalization", 5, {"y", "s", "b", "mean", "var"}, {"z"}},
  {"Add", 2, {"z", "three"}, {"t"}},
  {"Clip", 3, {"t", "zero", "six"}, {"u"}},
  {"Mul", 2, {"z", "u"}, {"v"}},
  {"Div", 2, {"v", "six"}, {"out"}},
};
/* the det model's: a Mul and an Add per channel, then HardSwish */
static const step conv_affine_hsw[] = {
  {"Conv", 2, {"x", "w"}, {"y"}},     {"Mul", 2, {"y", "s"}, {"y1"}},          {"Add", 2, {"b", "y1"}, {"z"}},
  {"Add", 2, {"z", "three"}, {"t"}},  {"Clip", 3, {"t", "zero", "six"}, {"u"}}, {"Mul", 2, {"z", "u"}, {"v"}},
  {"Div", 2, {"v", "six"}, {"out"}},
};
/* BatchNormalization, Relu, Sub and Div of a constant first */
static const step conv_bn_relu[] = {
  {"Conv", 2, {"x", "w"}, {"y"}},      {"BatchNormalization", 5, {"y", "s", "b", "mean", "var"}, {"z"}},
  {"Relu", 1, {"z"}, {"r"}},           {"Sub", 2, {"three", "r"}, {"q"}},
  {"Div", 2, {"q", "six"}, {"out"}},
};
/* ocr_det's: a scalar Mul and Add, HardSwish, then a scalar Mul and Add
 * (PP-LCNet's learnable affine after the activation) */
static const step conv_hsw_affine[] = {
  {"Conv", 2, {"x", "w"}, {"y"}},    {"Mul", 2, {"s", "y"}, {"y1"}},           {"Add", 2, {"y1", "b"}, {"z"}},
  {"Add", 2, {"z", "three"}, {"t"}}, {"Clip", 3, {"t", "zero", "six"}, {"u"}}, {"Mul", 2, {"z", "u"}, {"v"}},
  {"Div", 2, {"v", "six"}, {"h"}},   {"Mul", 2, {"s", "h"}, {"h1"}},            {"Add", 2, {"h1", "b"}, {"out"}},
};
/* HardSwish's Mul the other way round, Mul(u, z): not the one-pass form,
 * step by step (the same bytes all the same) */
static const step conv_hsw_swapped[] = {
  {"Conv", 2, {"x", "w"}, {"y"}},     {"Add", 2, {"y", "three"}, {"t"}}, {"Clip", 3, {"t", "zero", "six"}, {"u"}},
  {"Mul", 2, {"u", "y"}, {"v"}},      {"Div", 2, {"v", "six"}, {"out"}},
};

static void test_conv_epilogue(void) {
  int64_t xd[4] = {1, 1, 5, 67}, wd[4] = {3, 1, 1, 1}, pd = 3, cd[3] = {3, 1, 1};
  ox_value *x = random_tensor(4, xd);
  float *xs = x->u.t.data;
  const float special[] = {NAN, -INFINITY, INFINITY, -0.0f, 0.0f, -3.0f, 3.0f, 6.0f, -6.0f, 1e-40f, -1e-40f,
                           3e38f, -3e38f, 1.5f, -1.5f, 0.1f};
  for (int64_t i = 0; i < x->u.t.n; i++)
    xs[i] = i < (int64_t)(sizeof special / sizeof special[0]) ? special[i] : xs[i] * 8;
  float wv[3] = {1, -2, 0.5f}, mv[3] = {0.25f, -1, 3}, vv[3] = {1, 0.5f, 2};
  ox_value *w = tensor(OX_FLOAT, 4, wd, wv), *sc = random_tensor(1, &pd), *b = random_tensor(1, &pd);
  ox_value *mean = tensor(OX_FLOAT, 1, &pd, mv), *var = tensor(OX_FLOAT, 1, &pd, vv);
  ox_value *three = scalar(3), *zero = scalar(0), *six = scalar(6);
  graph g1 = {"conv_bn_hswish", 6, conv_bn_hsw, 1, {"x"}, {x}, 8,
              {"w", "s", "b", "mean", "var", "three", "zero", "six"}, {w, sc, b, mean, var, three, zero, six}, 1,
              {"out"}};
  fuse_case(&g1, 5);
  graph g2 = {"conv_affine_hswish", 7, conv_affine_hsw, 1, {"x"}, {x}, 6, {"w", "s", "b", "three", "zero", "six"},
              {w, random_tensor(3, cd), random_tensor(3, cd), three, zero, six}, 1, {"out"}};
  fuse_case(&g2, 6);
  graph g3 = {"conv_bn_relu", 5, conv_bn_relu, 1, {"x"}, {x}, 7, {"w", "s", "b", "mean", "var", "three", "six"},
              {w, sc, b, mean, var, three, six}, 1, {"out"}};
  fuse_case(&g3, 4);
  ox_value *s1 = scalar(0.75f), *b1 = scalar(-0.5f);
  graph g5 = {"conv_hswish_affine", 9, conv_hsw_affine, 1, {"x"}, {x}, 6, {"w", "s", "b", "three", "zero", "six"},
              {w, s1, b1, three, zero, six}, 1, {"out"}};
  fuse_case(&g5, 8);
  graph g4 = {"conv_hswish_swapped", 5, conv_hsw_swapped, 1, {"x"}, {x}, 4, {"w", "three", "zero", "six"},
              {w, three, zero, six}, 1, {"out"}};
  fuse_case(&g4, 4);
}

/* which groups ox_epi_check gives the one pass: in-place steps on register
 * 0 with constants, then HardSwish's four in their order; not when the Mul
 * reads its inputs the other way, a step reads a residual (FULL), or the
 * group is float16 */
static void test_onepass_plan(void) {
  static const float three = 3, six = 6, per_ch[3] = {1, 2, 3};
  static const double k[3] = {1, 2, 3}, sh[3] = {0, 1, 2};
  ox_epi e = {0};
  e.dt = OX_FLOAT, e.rank = 2, e.nstep = 6, e.nreg = 2;
  ox_epi_in r0 = {.kind = OX_EPI_REG, .reg = 0}, r1 = {.kind = OX_EPI_REG, .reg = 1};
  ox_epi_in c3 = {.kind = OX_EPI_SCALAR, .data = &three}, c6 = {.kind = OX_EPI_SCALAR, .data = &six};
  ox_epi_in ch = {.kind = OX_EPI_CHANNEL, .data = per_ch};
  e.step[0] = (ox_epi_step){.form = OX_EPI_F_AFFINE, .k = k, .sh = sh, .nin = 1, .in = {r0}, .dst = 0};
  e.step[1] = (ox_epi_step){.form = OX_EPI_F_SUB, .nin = 2, .in = {ch, r0}, .dst = 0};
  e.step[2] = (ox_epi_step){.form = OX_EPI_F_ADD, .nin = 2, .in = {r0, c3}, .dst = 1};
  e.step[3] = (ox_epi_step){.form = OX_EPI_F_CLIP, .lo = 0, .hi = 6, .nin = 1, .in = {r1}, .dst = 1};
  e.step[4] = (ox_epi_step){.form = OX_EPI_F_MUL, .nin = 2, .in = {r0, r1}, .dst = 0};
  e.step[5] = (ox_epi_step){.form = OX_EPI_F_DIV, .nin = 2, .in = {r0, c6}, .dst = 0};
  int64_t yd[3] = {1, 3, 5};
  ox_value *y = tensor(OX_FLOAT, 3, yd, NULL);
  ox_epi_bound b = {.e = &e};
  CHECK_EQ_I(ox_epi_check(&b, &y->u.t), 1);
  CHECK_EQ_I(b.onepass, 1);
  CHECK_EQ_I(b.nop, 3);
  CHECK_EQ_I(b.op[0], 0);
  CHECK_EQ_I(b.op[1], 1);
  CHECK_EQ_I(b.op[2], -3); /* HardSwish from step 2 */
  e.nstep = 2; /* the in-place steps alone */
  CHECK_EQ_I(ox_epi_check(&b, &y->u.t), 1);
  CHECK_EQ_I(b.onepass, 1);
  CHECK_EQ_I(b.nop, 2);
  e.step[6] = e.step[1], e.step[7] = e.step[0], e.nstep = 8; /* in-place steps after HardSwish */
  CHECK_EQ_I(ox_epi_check(&b, &y->u.t), 1);
  CHECK_EQ_I(b.onepass, 1);
  CHECK_EQ_I(b.nop, 5);
  CHECK_EQ_I(b.op[2], -3);
  CHECK_EQ_I(b.op[4], 7);
  e.nstep = 5; /* HardSwish without its Div */
  CHECK_EQ_I(ox_epi_check(&b, &y->u.t), 1);
  CHECK_EQ_I(b.onepass, 0);
  e.nstep = 6;
  e.step[4].in[0] = r1, e.step[4].in[1] = r0; /* Mul(r, x) */
  CHECK_EQ_I(ox_epi_check(&b, &y->u.t), 1);
  CHECK_EQ_I(b.onepass, 0);
  e.step[4].in[0] = r0, e.step[4].in[1] = r1;
  e.step[1].in[0] = (ox_epi_in){.kind = OX_EPI_FULL, .name = "r"}; /* a residual */
  ox_epi_bound bf = {.e = &e};
  bf.full[1][0] = &y->u.t;
  CHECK_EQ_I(ox_epi_check(&bf, &y->u.t), 1);
  CHECK_EQ_I(bf.onepass, 0);
  e.step[1].in[0] = ch;
  e.step[1].form = OX_EPI_F_NONE; /* a step only its fn knows */
  CHECK_EQ_I(ox_epi_check(&b, &y->u.t), 1);
  CHECK_EQ_I(b.onepass, 0);
}

/* A Conv's bias added by its followers' pass (ops/conv_paths.c,
 * late_bias): the packed GEMM's acc, then acc + bias, the bytes of the
 * bias filled in first and added by the product. 16 output channels (the
 * packed GEMM, not the direct path), K 1 (the corner values of x), K 300
 * (more than one block of 256: there the bias must be filled in first, its
 * add is inside the sum), and with a NaN in the bias (filled in first);
 * HardSwish (the one pass) and Tanh (step by step after the add). */
static const step conv_b_hsw[] = {
  {"Conv", 3, {"x", "w", "bias"}, {"y"}},  {"Add", 2, {"y", "three"}, {"t"}},
  {"Clip", 3, {"t", "zero", "six"}, {"u"}}, {"Mul", 2, {"y", "u"}, {"v"}},
  {"Div", 2, {"v", "six"}, {"out"}},
};
static const step conv_b_tanh[] = {
  {"Conv", 3, {"x", "w", "bias"}, {"y"}}, {"Tanh", 1, {"y"}, {"t"}}, {"Mul", 2, {"t", "six"}, {"out"}},
};

static void test_conv_bias_epilogue(void) {
  int64_t xd[4] = {1, 1, 5, 67}, wd[4] = {16, 1, 1, 1}, bd = 16;
  ox_value *x = random_tensor(4, xd);
  float *xs = x->u.t.data;
  const float special[] = {NAN, -INFINITY, INFINITY, -0.0f, 0.0f, -3.0f, 3.0f, 6.0f, -6.0f, 1e-40f, 3e38f};
  for (int64_t i = 0; i < x->u.t.n; i++)
    xs[i] = i < (int64_t)(sizeof special / sizeof special[0]) ? special[i] : xs[i] * 8;
  float wv[16];
  for (int i = 0; i < 16; i++) wv[i] = (float)(1 << (i % 4)) * (i % 2 ? -1.0f : 1.0f);
  ox_value *w = tensor(OX_FLOAT, 4, wd, wv), *bias = random_tensor(1, &bd);
  ox_value *three = scalar(3), *zero = scalar(0), *six = scalar(6);
  graph g1 = {"conv_bias_hswish", 5, conv_b_hsw, 1, {"x"}, {x}, 5, {"w", "bias", "three", "zero", "six"},
              {w, bias, three, zero, six}, 1, {"out"}};
  fuse_case(&g1, 4);
  graph g2 = {"conv_bias_tanh", 3, conv_b_tanh, 1, {"x"}, {x}, 3, {"w", "bias", "six"}, {w, bias, six}, 1,
              {"out"}};
  fuse_case(&g2, 2);
  int64_t xd300[4] = {1, 300, 4, 40}, wd300[4] = {16, 300, 1, 1};
  g1.label = "conv_bias_hswish_k300", g1.in[0] = random_tensor(4, xd300), g1.init[0] = random_tensor(4, wd300);
  fuse_case(&g1, 4);
  ox_value *bnan = random_tensor(1, &bd);
  ((float *)bnan->u.t.data)[5] = NAN;
  g2.label = "conv_bias_nan_tanh", g2.init[1] = bnan;
  fuse_case(&g2, 2);
  g1.label = "conv_bias_nan_hswish", g1.in[0] = x, g1.init[0] = w, g1.init[1] = bnan;
  fuse_case(&g1, 4);
}

/* float16 Convs (IS-Net's float16 export): Relu, a residual Add and a
 * scalar Mul after a Conv with a bias, fused and rounded as the unfused
 * float16 kernels round, the bytes of the unfused nodes, on each of the
 * Conv's paths: the packed GEMM (3x3, 16 channels), the direct one (3
 * output channels), the gemv (2 output positions), K past 2048 (kblocked),
 * the implicit GEMM (K 288, few output channels); values large enough that float16's rounding matters. */
static void test_conv_epilogue_half(void) {
  static const step conv_relu_res[] = {
    {"Conv", 3, {"x", "w", "b"}, {"y"}}, {"Relu", 1, {"y"}, {"u"}},
    {"Add", 2, {"u", "r"}, {"v"}},       {"Mul", 2, {"v", "half"}, {"out"}},
  };
  static const struct { const char *label; int64_t x[4], w[4]; } shapes[] = {
    {"conv_f16_packed", {1, 8, 12, 37}, {16, 8, 3, 3}}, {"conv_f16_direct", {2, 8, 9, 21}, {3, 8, 3, 3}},
    {"conv_f16_gemv", {1, 8, 3, 4}, {16, 8, 3, 3}},     {"conv_f16_kblocked", {1, 256, 5, 9}, {8, 256, 3, 3}},
    {"conv_f16_implicit", {1, 32, 12, 37}, {16, 32, 3, 3}}, /* K 288: ops/conv_paths.c's implicit GEMM */
  };
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    const int64_t *xd = shapes[i].x, *wd = shapes[i].w;
    int64_t yd[4] = {xd[0], wd[0], xd[2] - 2, xd[3] - 2}, bd = wd[0];
    graph g = {shapes[i].label, 4, conv_relu_res, 2, {"x", "r"},
               {random_half(4, xd, 4), random_half(4, yd, 8)}, 3, {"w", "b", "half"},
               {random_half(4, wd, 2), random_half(1, &bd, 4), scalar_half(0.5f)}, 1, {"out"}};
    fuse_case(&g, 3);
  }
}

int main(void) {
  A = ox_arena_new();
  test_matmul_epilogue();
  test_matmul_epilogue_half();
  test_conv_epilogue();
  test_onepass_plan();
  test_conv_bias_epilogue();
  test_conv_epilogue_half();
  ox_arena_free(A);
  return check_done("fuse");
}
