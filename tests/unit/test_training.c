/* tests/unit/test_training.c: Adagrad, Adam and Momentum (ai.onnx.preview.training),
 * called through the registry with a hand-made node. Expected values are worked
 * out by hand from the formulas of the spec, with inputs chosen so that the
 * square roots are exact. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KIT_IN_NAMES {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
#define KIT_OUT_NAMES KIT_IN_NAMES
#include "kit.h"

#define TD "ai.onnx.preview.training"

#define DIMS(...) (int64_t[]){__VA_ARGS__}
#define F32(n, ...) tensor(OX_FLOAT, 1, DIMS(n), (float[])__VA_ARGS__)
#define F64(n, ...) tensor(OX_DOUBLE, 1, DIMS(n), (double[])__VA_ARGS__)
#define RATE(r) tensor(OX_FLOAT, 0, NULL, (float[]){r})
#define COUNT(t) tensor(OX_INT64, 0, NULL, (int64_t[]){t})

static int run(const char *op, int nattr, ox_attr *attr, int nin, ox_value **in, int nout,
               ox_value **out) {
  return kit_run(TD, op, 1, nattr, attr, nin, in, nout, out);
}

/* Float or double elements within 1e-6 (relative) and 1e-7. */
static int close_to(const ox_value *v, int64_t n, const double *want) {
  return close_d(v, n, want, 1e-7, 1e-6);
}
#define CLOSE(v, n, ...) CHECK(close_to(v, n, (double[])__VA_ARGS__))

/* R = 0.5, T = 1, decay 1: r = 0.5 / (1 + 1) = 0.25. H = [0, 9] + G^2 = [9, 25];
 * X = [1, 2] - 0.25 * [3, 4] / [3, 5] = [0.75, 1.8]. Two tensors at once: the
 * second, a single element, with norm_coefficient 0 as well. */
static void test_adagrad(void) {
  ox_attr at[] = {attr_float("decay_factor", 1), attr_float("epsilon", 0)};
  ox_value *in[] = {RATE(0.5f), COUNT(1), F32(2, {1, 2}), F32(1, {7}),
                    F32(2, {3, 4}), F32(1, {4}), F32(2, {0, 9}), F32(1, {0})};
  ox_value *out[4];
  CHECK_EQ_I(run("Adagrad", 2, at, 8, in, 4, out), 0);
  CLOSE(out[0], 2, {0.75, 1.8});
  CLOSE(out[1], 1, {7 - 0.25 * 4 / 4.0});
  CLOSE(out[2], 2, {9, 25});
  CLOSE(out[3], 1, {16});
}

/* double. alpha 0.5, beta 0.75, T = 1: r = R sqrt(1 - 0.75) / (1 - 0.5) = R.
 * V = 0.5 * 0 + 0.5 * 2 = 1; H = 0.75 * 0 + 0.25 * 4 = 1; X = 1 - 0.25 * 1 / 1
 * = 0.75, then times (1 - 0.5) = 0.375. With T = 0 no bias correction: the
 * same here by construction, so T = 0 checks r = R with norm_coefficient 0.5:
 * g = 0.5 * 1 + 2 = 2.5, V = 1.25, H = 0.25 * 6.25 = 1.5625 (sqrt 1.25),
 * X = (1 - 0.25 * 1.25 / 1.25) * 0.5 = 0.375. */
static void test_adam(void) {
  ox_attr at[] = {attr_float("alpha", 0.5f), attr_float("beta", 0.75f), attr_float("epsilon", 0),
                  attr_float("norm_coefficient_post", 0.5f), attr_float("norm_coefficient", 0.5f)};
  ox_value *in[] = {RATE(0.25f), COUNT(1), F64(1, {1}), F64(1, {2}), F64(1, {0}), F64(1, {0})};
  ox_value *out[3];
  CHECK_EQ_I(run("Adam", 4, at, 6, in, 3, out), 0);
  CHECK(out[0] && out[0]->u.t.dt == OX_DOUBLE);
  CLOSE(out[0], 1, {0.375});
  CLOSE(out[1], 1, {1});
  CLOSE(out[2], 1, {1});
  in[1] = COUNT(0);
  CHECK_EQ_I(run("Adam", 5, at, 6, in, 3, out), 0);
  CLOSE(out[0], 1, {0.375});
  CLOSE(out[1], 1, {1.25});
  CLOSE(out[2], 1, {1.5625});
}

/* alpha 0.5, beta 2, R = 0.5, X = 1, G = 1, V = 2.
 * standard, T = 1: V = 1 + 2 = 3, X = 1 - 0.5 * 3 = -0.5.
 * standard, T = 0 (beta taken as 1): V = 2, X = 0.
 * nesterov, T = 1: V = 3, X = 1 - 0.5 * (1 + 0.5 * 3) = -0.25. */
static void test_momentum(void) {
  ox_attr at[] = {attr_float("alpha", 0.5f), attr_float("beta", 2), attr_float("norm_coefficient", 0),
                  attr_str("mode", "standard")};
  ox_value *in[] = {RATE(0.5f), COUNT(1), F32(1, {1}), F32(1, {1}), F32(1, {2})};
  ox_value *out[2];
  CHECK_EQ_I(run("Momentum", 4, at, 5, in, 2, out), 0);
  CLOSE(out[0], 1, {-0.5});
  CLOSE(out[1], 1, {3});
  in[1] = COUNT(0);
  CHECK_EQ_I(run("Momentum", 4, at, 5, in, 2, out), 0);
  CLOSE(out[0], 1, {0});
  CLOSE(out[1], 1, {2});
  in[1] = COUNT(1);
  at[3] = attr_str("mode", "nesterov");
  CHECK_EQ_I(run("Momentum", 4, at, 5, in, 2, out), 0);
  CLOSE(out[0], 1, {-0.25});
  CLOSE(out[1], 1, {3});
}

static void test_errors(void) {
  ox_attr at[] = {attr_float("alpha", 0.5f), attr_float("beta", 2), attr_float("norm_coefficient", 0),
                  attr_str("mode", "sideways")};
  ox_value *in[] = {RATE(0.5f), COUNT(1), F32(2, {1, 2}), F32(1, {1}), F32(2, {2, 3}),
                    F32(2, {2, 3})};
  ox_value *out[4];
  CHECK_FAILS(run("Momentum", 4, at, 5, in, 2, out), "mode 'sideways'");
  CHECK_FAILS(run("Momentum", 3, at, 5, in, 2, out), "attribute 'mode' is required");
  at[3] = attr_str("mode", "standard");
  CHECK_FAILS(run("Momentum", 4, at, 5, in, 2, out), "(G1) has shape (1,), but X1 has shape (2,)");
  CHECK_FAILS(run("Momentum", 4, at, 6, in, 2, out), "do not split into 3 equal groups");
  in[3] = F32(2, {1, 1});
  CHECK_FAILS(run("Momentum", 4, at, 5, in, 3, out), "3 outputs: 1 optimized tensors need 2");
  in[4] = F64(2, {2, 3});
  CHECK_FAILS(run("Momentum", 4, at, 5, in, 2, out), "(V1) is float64, but X1 is float32");
  in[4] = F32(2, {2, 3});
  in[0] = F32(2, {1, 2});
  CHECK_FAILS(run("Momentum", 4, at, 5, in, 2, out), "learning rate R");
  in[0] = RATE(0.5f);
  in[1] = tensor(OX_INT32, 0, NULL, (int32_t[]){1});
  CHECK_FAILS(run("Momentum", 4, at, 5, in, 2, out), "update count T");
}

/* ---- Gradient: models built in memory, checked against central differences ---- */

static ox_node gnode(const char *op, int nin, const char **in, const char *out1) {
  const char **o = ox_alloc(A, sizeof *o);
  *o = out1;
  return (ox_node){.name = out1, .op = op, .domain = "", .nin = nin, .in = in, .nout = 1, .out = o};
}
#define IN(...) ((const char *[]){__VA_ARGS__})
#define NIN(...) (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), IN(__VA_ARGS__)

static ox_attr strs(const char *name, int n, ox_str *v) {
  return (ox_attr){.name = name, .type = OX_ATTR_STRINGS, .n = n, .strings = v};
}

/* Sum of output 0 of m at inputs in, with input k's element i moved by h. */
static double y_sum(ox_model *m, ox_value **in, int k, int64_t i, double h, int nout) {
  ox_value *out[8] = {0};
  double *p = in[k]->u.t.data, keep = p[i];
  p[i] = keep + h;
  ox_err e = {0};
  int rc = ox_run(A, m, in, out, &e);
  p[i] = keep;
  if (rc) {
    fprintf(stderr, "run: %s\n", e.msg);
    return NAN;
  }
  double s = 0;
  for (int64_t j = 0; j < out[0]->u.t.n; j++) s += ox_load_f64(out[0]->u.t.dt, out[0]->u.t.data, j);
  return s;
}

/* Outputs 1.. of m are the gradients of output 0 with respect to the graph
 * inputs xk[0..nx-1] (double tensors): compare each element with
 * (f(x + h) - f(x - h)) / 2h. */
static int grads_ok(ox_model *m, ox_value **in, int nx, const int *xk, int nout) {
  ox_value *out[8] = {0};
  ox_err e = {0};
  if (ox_prepare(A, m, &e) || ox_run(A, m, in, out, &e)) {
    fprintf(stderr, "gradient model: %s\n", e.msg);
    return 0;
  }
  int ok = 1;
  for (int q = 0; q < nx; q++) {
    const ox_tensor *x = &in[xk[q]]->u.t, *gq = &out[1 + q]->u.t;
    if (gq->dt != x->dt || gq->n != x->n) return 0;
    for (int64_t i = 0; i < x->n; i++) {
      double h = 1e-6, want = (y_sum(m, in, xk[q], i, h, nout) - y_sum(m, in, xk[q], i, -h, nout)) / (2 * h);
      double got = ((double *)gq->data)[i];
      if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) {
        fprintf(stderr, "d/d input %d [%lld]: got %.9g, differences say %.9g\n", xk[q], (long long)i, got, want);
        ok = 0;
      }
    }
  }
  return ok;
}

static ox_valueinfo gvi(const char *name) { return (ox_valueinfo){.name = name, .rank = -1}; }

static void test_gradient(void) {
  static ox_opset ops[] = {{"", 18}, {TD, 1}};
  /* y = ReduceMean(Sub(R, Log(Abs(R)))) with R = Reshape(Exp(Tanh(Sigmoid(X W + b) * c)) / d, [4]):
   * X (2, 3), W (3, 2), b (2,), c (1,), d (2, 1); xs = W, b, c, zs = X, d */
  {
    ox_node n[12];
    int k = 0;
    n[k++] = gnode("MatMul", NIN("X", "W"), "H");
    n[k++] = gnode("Add", NIN("H", "b"), "P");
    n[k++] = gnode("Sigmoid", NIN("P"), "S");
    n[k++] = gnode("Mul", NIN("S", "c"), "T");
    n[k++] = gnode("Tanh", NIN("T"), "U");
    n[k++] = gnode("Exp", NIN("U"), "E");
    n[k++] = gnode("Div", NIN("E", "d"), "D");
    n[k++] = gnode("Reshape", NIN("D", "shape"), "R");
    n[k++] = gnode("Abs", NIN("R"), "AR");
    n[k++] = gnode("Log", NIN("AR"), "LR");
    n[k++] = gnode("Sub", NIN("R", "LR"), "Q");
    n[k++] = gnode("ReduceMean", NIN("Q"), "y");
    ox_node gr[13];
    memcpy(gr, n, sizeof n);
    static const char *gout[] = {"dW", "db", "dc"};
    gr[12] = (ox_node){.name = "grad", .op = "Gradient", .domain = TD, .nin = 5,
                       .in = IN("W", "b", "c", "X", "d"), .nout = 3, .out = gout};
    ox_attr ga[] = {strs("xs", 3, (ox_str[]){{"W", 1}, {"b", 1}, {"c", 1}}),
                    strs("zs", 2, (ox_str[]){{"X", 1}, {"d", 1}}),
                    {.name = "y", .type = OX_ATTR_STRING, .s = {"y", 1}}};
    gr[12].attr = ga;
    gr[12].nattr = 3;
    ox_valueinfo gi[] = {gvi("X"), gvi("W"), gvi("b"), gvi("c"), gvi("d")};
    ox_valueinfo go[] = {gvi("y"), gvi("dW"), gvi("db"), gvi("dc")};
    const char *init_name[] = {"shape"};
    ox_value *init[] = {tensor(OX_INT64, 1, DIMS(1), (int64_t[]){4})};
    ox_graph g = {.name = "g", .nnode = 13, .node = gr, .nin = 5, .in = gi, .nout = 4, .out = go,
                  .ninit = 1, .init_name = init_name, .init = init};
    ox_model m = {.path = "mem", .dir = ".", .ir_version = 8, .nopset = 2, .opset = ops, .graph = &g};
    ox_value *in[] = {tensor(OX_DOUBLE, 2, DIMS(2, 3), (double[]){0.5, -1, 2, 1.5, 0.25, -0.75}),
                      tensor(OX_DOUBLE, 2, DIMS(3, 2), (double[]){0.1, -0.2, 0.3, 0.4, -0.5, 0.6}),
                      F64(2, {0.05, -0.1}), F64(1, {1.5}),
                      tensor(OX_DOUBLE, 2, DIMS(2, 1), (double[]){2, 0.5})};
    CHECK(grads_ok(&m, in, 3, (int[]){1, 2, 3}, 4));
  }
  /* Gemm (transA, alpha, beta, C broadcast), Transpose, Unsqueeze, Squeeze,
   * Sum and Mean with broadcasting, Relu, Sqrt, Reciprocal, Neg, Identity,
   * ReduceSum over axis 1:
   * y = ReduceSum(Sum(Relu(G), Neg(Sqrt(Reciprocal(v))), Mean(Identity(Transpose(G)), v')), [1])
   * with G = Gemm(a, B, C): a (3, 2) transposed, B (3, 2), C (2,); v (2, 1) */
  {
    ox_node n[12];
    int k = 0;
    n[k++] = gnode("Gemm", NIN("a", "B", "C"), "G");
    n[k - 1].attr = (ox_attr[]){{.name = "transA", .type = OX_ATTR_INT, .i = 1},
                                {.name = "alpha", .type = OX_ATTR_FLOAT, .f = 0.5f},
                                {.name = "beta", .type = OX_ATTR_FLOAT, .f = 2}};
    n[k - 1].nattr = 3;
    n[k++] = gnode("Relu", NIN("G"), "RG");
    n[k++] = gnode("Reciprocal", NIN("v"), "rv");
    n[k++] = gnode("Sqrt", NIN("rv"), "sv");
    n[k++] = gnode("Neg", NIN("sv"), "nv");
    n[k++] = gnode("Transpose", NIN("G"), "GT");
    n[k++] = gnode("Identity", NIN("GT"), "IG");
    n[k++] = gnode("Unsqueeze", NIN("v", "ax0"), "uv");
    n[k++] = gnode("Squeeze", NIN("uv", "ax0"), "v2");
    n[k++] = gnode("Mean", NIN("IG", "v2"), "M");
    n[k++] = gnode("Sum", NIN("RG", "nv", "M"), "S");
    n[k++] = gnode("ReduceSum", NIN("S", "ax1"), "y");
    ox_node gr[13];
    memcpy(gr, n, sizeof n);
    static const char *gout[] = {"da", "dB", "dC", "dv"};
    gr[12] = (ox_node){.name = "grad", .op = "Gradient", .domain = TD, .nin = 4,
                       .in = IN("a", "B", "C", "v"), .nout = 4, .out = gout};
    ox_attr ga[] = {strs("xs", 4, (ox_str[]){{"a", 1}, {"B", 1}, {"C", 1}, {"v", 1}}),
                    {.name = "y", .type = OX_ATTR_STRING, .s = {"y", 1}}};
    gr[12].attr = ga;
    gr[12].nattr = 2;
    ox_valueinfo gi[] = {gvi("a"), gvi("B"), gvi("C"), gvi("v")};
    ox_valueinfo go[] = {gvi("y"), gvi("da"), gvi("dB"), gvi("dC"), gvi("dv")};
    const char *init_name[] = {"ax0", "ax1"};
    ox_value *init[] = {tensor(OX_INT64, 1, DIMS(1), (int64_t[]){0}),
                        tensor(OX_INT64, 1, DIMS(1), (int64_t[]){1})};
    ox_graph g = {.name = "g", .nnode = 13, .node = gr, .nin = 4, .in = gi, .nout = 5, .out = go,
                  .ninit = 2, .init_name = init_name, .init = init};
    ox_model m = {.path = "mem", .dir = ".", .ir_version = 8, .nopset = 2, .opset = ops, .graph = &g};
    ox_value *in[] = {tensor(OX_DOUBLE, 2, DIMS(3, 2), (double[]){0.5, -1, 2, 1.5, 0.25, -0.75}),
                      tensor(OX_DOUBLE, 2, DIMS(3, 2), (double[]){0.1, -0.2, 0.3, 0.4, -0.5, 0.6}),
                      F64(2, {0.05, -0.1}), tensor(OX_DOUBLE, 2, DIMS(2, 1), (double[]){2, 0.5})};
    CHECK(grads_ok(&m, in, 4, (int[]){0, 1, 2, 3}, 5));
  }
  /* MatMul with 1-D and broadcast batch operands: y = MatMul(p (2, 1, 2, 3), q (3,)) */
  {
    ox_node gr[2] = {gnode("MatMul", NIN("p", "q"), "y")};
    static const char *gout[] = {"dp", "dq"};
    ox_attr ga[] = {strs("xs", 2, (ox_str[]){{"p", 1}, {"q", 1}}),
                    {.name = "y", .type = OX_ATTR_STRING, .s = {"y", 1}}};
    gr[1] = (ox_node){.name = "grad", .op = "Gradient", .domain = TD, .nin = 2, .in = IN("p", "q"),
                      .nout = 2, .out = gout, .nattr = 2, .attr = ga};
    ox_valueinfo gi[] = {gvi("p"), gvi("q")}, go[] = {gvi("y"), gvi("dp"), gvi("dq")};
    ox_graph g = {.name = "g", .nnode = 2, .node = gr, .nin = 2, .in = gi, .nout = 3, .out = go};
    ox_model m = {.path = "mem", .dir = ".", .ir_version = 8, .nopset = 2, .opset = ops, .graph = &g};
    double pv[12];
    for (int i = 0; i < 12; i++) pv[i] = 0.1 * i - 0.5;
    ox_value *in[] = {tensor(OX_DOUBLE, 4, DIMS(2, 1, 2, 3), pv), F64(3, {1, -2, 0.5})};
    CHECK(grads_ok(&m, in, 2, (int[]){0, 1}, 3));
  }
  /* a path through integers carries no gradient: y = x * Cast(Shape(x)) gives
   * dy/dx = 3 (float x of shape (3,)); an op without a rule on the path is an
   * error naming it */
  {
    ox_node gr[4] = {gnode("Shape", NIN("x"), "s"), gnode("Cast", NIN("s"), "sf"),
                     gnode("Mul", NIN("x", "sf"), "y")};
    gr[1].attr = (ox_attr[]){{.name = "to", .type = OX_ATTR_INT, .i = OX_FLOAT}};
    gr[1].nattr = 1;
    static const char *gout[] = {"dx"};
    ox_attr ga[] = {strs("xs", 1, (ox_str[]){{"x", 1}}),
                    {.name = "y", .type = OX_ATTR_STRING, .s = {"y", 1}}};
    gr[3] = (ox_node){.name = "grad", .op = "Gradient", .domain = TD, .nin = 1, .in = IN("x"),
                      .nout = 1, .out = gout, .nattr = 2, .attr = ga};
    ox_valueinfo gi[] = {gvi("x")}, go[] = {gvi("y"), gvi("dx")};
    ox_graph g = {.name = "g", .nnode = 4, .node = gr, .nin = 1, .in = gi, .nout = 2, .out = go};
    ox_model m = {.path = "mem", .dir = ".", .ir_version = 8, .nopset = 2, .opset = ops, .graph = &g};
    ox_value *in[] = {F32(3, {1, 2, 3})}, *out[2] = {0};
    ox_err e = {0};
    CHECK_EQ_I(ox_prepare(A, &m, &e), 0);
    CHECK_EQ_I(ox_run(A, &m, in, out, &e), 0);
    CHECK(out[1] && out[1]->u.t.dt == OX_FLOAT && close_to(out[1], 3, (double[]){3, 3, 3}));
    /* now through Cos */
    gr[2] = gnode("Cos", NIN("x"), "y");
    ox_model m2 = m;
    ox_err_clear(&e);
    CHECK_EQ_I(ox_prepare(A, &m2, &e), 0);
    CHECK_EQ_I(ox_run(A, &m2, in, out, &e), OX_EUNSUPPORTED);
    CHECK(strstr(e.msg, "cannot differentiate through Cos (node 'y'") != NULL);
    CHECK(strstr(e.msg, "node 'grad' Gradient-1") != NULL);
    /* y independent of x: a zero gradient */
    gr[2] = gnode("Cos", NIN("sf"), "y");
    ox_err_clear(&e);
    CHECK_EQ_I(ox_prepare(A, &m2, &e), 0);
    CHECK_EQ_I(ox_run(A, &m2, in, out, &e), 0);
    CHECK(out[1] && close_to(out[1], 3, (double[]){0, 0, 0}));
    /* xs not a float tensor */
    ox_value *xi[] = {tensor(OX_INT32, 1, DIMS(3), (int32_t[]){1, 2, 3})};
    ox_err_clear(&e);
    CHECK_EQ_I(ox_run(A, &m2, xi, out, &e), OX_EINPUT);
    CHECK(strstr(e.msg, "gradients are taken with respect to float tensors") != NULL);
  }
}

int main(void) {
  A = ox_arena_new();
  test_adagrad();
  test_adam();
  test_momentum();
  test_errors();
  test_gradient();
  return check_done("training");
}
