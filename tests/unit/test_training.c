/* tests/unit/test_training.c: Adagrad, Adam and Momentum (ai.onnx.preview.training),
 * called through the registry with a hand-made node. Expected values are worked
 * out by hand from the formulas of the spec, with inputs chosen so that the
 * square roots are exact. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/ox.h"

#define TD "ai.onnx.preview.training"

static ox_arena *A;
static ox_err E;

static ox_value *tensor(ox_dtype dt, int rank, const int64_t *dims, const void *data) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, dt, rank, dims, &v, &E)) {
    fprintf(stderr, "tensor: %s\n", E.msg);
    return NULL;
  }
  if (v->u.t.n && data) memcpy(v->u.t.data, data, (size_t)v->u.t.n * ox_dtype_size(dt));
  return v;
}
#define DIMS(...) (int64_t[]){__VA_ARGS__}
#define F32(n, ...) tensor(OX_FLOAT, 1, DIMS(n), (float[])__VA_ARGS__)
#define F64(n, ...) tensor(OX_DOUBLE, 1, DIMS(n), (double[])__VA_ARGS__)
#define RATE(r) tensor(OX_FLOAT, 0, NULL, (float[]){r})
#define COUNT(t) tensor(OX_INT64, 0, NULL, (int64_t[]){t})

static ox_attr attr_f(const char *name, float f) {
  return (ox_attr){.name = name, .type = OX_ATTR_FLOAT, .f = f};
}
static ox_attr attr_s(const char *name, const char *s) {
  return (ox_attr){.name = name, .type = OX_ATTR_STRING, .s = {s, (int64_t)strlen(s)}};
}

static int run(const char *op, int nattr, ox_attr *attr, int nin, ox_value **in, int nout,
               ox_value **out) {
  static const char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
  const ox_kernel *k = ox_registry_find(TD, op, 1);
  if (!k) {
    fprintf(stderr, "no kernel for %s\n", op);
    return -1;
  }
  ox_node n = {.name = "n0", .op = op, .domain = TD, .nin = nin, .in = names, .nout = nout,
               .out = names, .nattr = nattr, .attr = attr, .version = 1, .k = k};
  ox_ctx c = {.a = A, .err = &E, .node = &n, .version = 1};
  ox_err_clear(&E);
  for (int i = 0; i < nout; i++) out[i] = NULL;
  int rc = k->fn(&c, nin, in, nout, out);
  if (!rc && E.code) rc = E.code;
  return rc;
}

static int close_to(const ox_value *v, int64_t n, const double *want) {
  if (!v || v->kind != OX_TENSOR || v->u.t.n != n) return 0;
  for (int64_t i = 0; i < n; i++) {
    double g = v->u.t.dt == OX_FLOAT ? ((float *)v->u.t.data)[i] : ((double *)v->u.t.data)[i];
    if (fabs(g - want[i]) > 1e-6 * fabs(want[i]) + 1e-7) {
      fprintf(stderr, "element %lld: got %.9g want %.9g\n", (long long)i, g, want[i]);
      return 0;
    }
  }
  return 1;
}
#define CLOSE(v, n, ...) CHECK(close_to(v, n, (double[])__VA_ARGS__))

#define CHECK_FAILS(call, part)                                                       \
  do {                                                                                \
    int rc_ = (call);                                                                 \
    CHECK_EQ_I(rc_, OX_EINPUT);                                                       \
    if (!strstr(E.msg, part)) {                                                       \
      check_fail_++;                                                                  \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, E.msg, part); \
    } else check_pass_++;                                                             \
  } while (0)

/* R = 0.5, T = 1, decay 1: r = 0.5 / (1 + 1) = 0.25. H = [0, 9] + G^2 = [9, 25];
 * X = [1, 2] - 0.25 * [3, 4] / [3, 5] = [0.75, 1.8]. Two tensors at once: the
 * second, a single element, with norm_coefficient 0 as well. */
static void test_adagrad(void) {
  ox_attr at[] = {attr_f("decay_factor", 1), attr_f("epsilon", 0)};
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
  ox_attr at[] = {attr_f("alpha", 0.5f), attr_f("beta", 0.75f), attr_f("epsilon", 0),
                  attr_f("norm_coefficient_post", 0.5f), attr_f("norm_coefficient", 0.5f)};
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
  ox_attr at[] = {attr_f("alpha", 0.5f), attr_f("beta", 2), attr_f("norm_coefficient", 0),
                  attr_s("mode", "standard")};
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
  at[3] = attr_s("mode", "nesterov");
  CHECK_EQ_I(run("Momentum", 4, at, 5, in, 2, out), 0);
  CLOSE(out[0], 1, {-0.25});
  CLOSE(out[1], 1, {3});
}

static void test_errors(void) {
  ox_attr at[] = {attr_f("alpha", 0.5f), attr_f("beta", 2), attr_f("norm_coefficient", 0),
                  attr_s("mode", "sideways")};
  ox_value *in[] = {RATE(0.5f), COUNT(1), F32(2, {1, 2}), F32(1, {1}), F32(2, {2, 3}),
                    F32(2, {2, 3})};
  ox_value *out[4];
  CHECK_FAILS(run("Momentum", 4, at, 5, in, 2, out), "mode 'sideways'");
  CHECK_FAILS(run("Momentum", 3, at, 5, in, 2, out), "attribute 'mode' is required");
  at[3] = attr_s("mode", "standard");
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

int main(void) {
  A = ox_arena_new();
  test_adagrad();
  test_adam();
  test_momentum();
  test_errors();
  return check_done("training");
}
