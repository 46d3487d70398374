/* tests/unit/test_unary.c: the unary ops and activations (ops/unary.c), called
 * through the registry with a hand-made node. Expected values are worked out
 * by hand or with Python's math module, not by the code under test. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define KIT_IN_NAMES {"x", "min", "max"}
#include "kit.h"
#include "core/vmath.h"

#define N_(...) (int64_t)(sizeof((__VA_ARGS__)) / sizeof((__VA_ARGS__)[0]))
#define VEC(dt, T, ...) vec(dt, N_((T[])__VA_ARGS__), (T[])__VA_ARGS__)
#define SCALAR(dt, T, x) vec(dt, -1, (T[]){x})

/* Run op at `opset` on nin inputs (NULL: absent); *out gets the result.
 * Input 0's type must be one the row takes. */
static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  int rc = kit_run("", op, opset, nattr, attr, nin, in, 1, out);
  CHECK(rc != OX_EINPUT || !strstr(E.msg, "row's mask"));
  return rc;
}
#define RUN1(op, opset, x, y) run(op, opset, 0, NULL, 1, (ox_value *[]){x}, y)

/* Does v hold exactly these elements of type dt (bitwise, so NaN == NaN and
 * -0 != 0)? */
static int same(const ox_value *v, ox_dtype dt, int64_t n, const void *want) {
  if (!v || v->kind != OX_TENSOR || v->u.t.dt != dt || v->u.t.n != n) return 0;
  return !n || !memcmp(v->u.t.data, want, (size_t)n * ox_dtype_size(dt));
}
#define IS(v, dt, T, ...) same(v, dt, N_((T[])__VA_ARGS__), (T[])__VA_ARGS__)

/* Are v's float elements within tol (relative) of want? */
static int near_f(const ox_value *v, int64_t n, const double *want, double tol) {
  if (!v || v->u.t.dt != OX_FLOAT || v->u.t.n != n) return 0;
  const float *y = v->u.t.data;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs((double)y[i] - want[i]);
    if (!(d <= tol * fmax(1.0, fabs(want[i])))) {
      fprintf(stderr, "  element %lld: %.9g, want %.9g\n", (long long)i, y[i], want[i]);
      return 0;
    }
  }
  return 1;
}
#define NEAR(v, ...) near_f(v, N_((double[])__VA_ARGS__), (double[])__VA_ARGS__, 1e-6)

/* ---- the table ---- */

static void test_table(void) {
  extern const ox_kernel ox_unary_kernels[];
  check_rows(ox_unary_kernels, NULL, 0);
  const ox_kernel *k;
  CHECK((k = ox_registry_find("", "Clip", 11)) && !(k->types & OX_T(INT8)) && k->max_in == 3);
  CHECK((k = ox_registry_find("", "Clip", 12)) && (k->types & OX_T(INT8)));
  CHECK((k = ox_registry_find("", "Clip", 10)) && k->max_in == 1);
  CHECK((k = ox_registry_find("", "Celu", 12)) && k->types == OX_T(FLOAT));
  CHECK((k = ox_registry_find("", "Celu", 28)) && (k->types & OX_T(BFLOAT16)));
  CHECK((k = ox_registry_find("", "IsInf", 10)) && !(k->types & OX_T(FLOAT16)));
  CHECK((k = ox_registry_find("", "IsNaN", 20)) && (k->types & OX_T(FLOAT8E5M2)));
  CHECK((k = ox_registry_find("", "Relu", 13)) && !(k->types & OX_T(INT32)));
  CHECK((k = ox_registry_find("", "Relu", 14)) && (k->types & OX_T(INT32)));
  CHECK((k = ox_registry_find("", "Neg", 6)) && !(k->types & OX_T(UINT8)));
  CHECK((k = ox_registry_find("", "Erf", 12)) && (k->types & OX_T(INT32)));
  CHECK((k = ox_registry_find("", "Erf", 13)) && !(k->types & OX_T(INT32)));
  CHECK(ox_registry_find("", "Swish", 23) == NULL);
  CHECK(ox_registry_find("", "Gelu", 19) == NULL);
  CHECK(ox_registry_find("", "Round", 10) == NULL);
  CHECK_EQ_I(ox_registry_find("", "Sin", 21)->since, 7);
  CHECK_EQ_I(ox_registry_find("", "LeakyRelu", 16)->since, 16);
}

/* ---- rounding and signs ---- */

static void test_round_sign(void) {
  ox_value *y;
  /* Round-11: halves go to the even neighbour; -0 and NaN stay */
  CHECK_EQ_I(RUN1("Round", 11, VEC(OX_FLOAT, float, {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, -4.5f,
                                                      2.3f, 0.9f, -0.0f, NAN}), &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -4.0f, 2.0f, 1.0f, -0.0f, NAN}));
  CHECK_EQ_I(RUN1("Round", 22, VEC(OX_DOUBLE, double, {3.5, -3.5, 1e300}), &y), 0);
  CHECK(IS(y, OX_DOUBLE, double, {4.0, -4.0, 1e300}));
  CHECK_EQ_I(RUN1("Sign", 13, VEC(OX_FLOAT, float, {-3.0f, 0.0f, 7.5f, NAN}), &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-1.0f, 0.0f, 1.0f, NAN}));
  CHECK_EQ_I(RUN1("Sign", 9, VEC(OX_INT16, int16_t, {-7, 0, 3, INT16_MIN}), &y), 0);
  CHECK(IS(y, OX_INT16, int16_t, {-1, 0, 1, -1}));
  CHECK_EQ_I(RUN1("Sign", 13, VEC(OX_UINT8, uint8_t, {0, 5, 255}), &y), 0);
  CHECK(IS(y, OX_UINT8, uint8_t, {0, 1, 1}));
  CHECK_EQ_I(RUN1("Ceil", 13, VEC(OX_FLOAT, float, {-1.5f, 1.2f}), &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-1.0f, 2.0f}));
  CHECK_EQ_I(RUN1("Floor", 13, VEC(OX_FLOAT, float, {-1.5f, 1.2f}), &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-2.0f, 1.0f}));
}

/* ---- integers in their own width ---- */

static void test_integers(void) {
  ox_value *y;
  /* Neg and Abs of the most negative value wrap, as numpy does */
  CHECK_EQ_I(RUN1("Neg", 13, VEC(OX_INT8, int8_t, {-128, -5, 0, 127}), &y), 0);
  CHECK(IS(y, OX_INT8, int8_t, {-128, 5, 0, -127}));
  CHECK_EQ_I(RUN1("Neg", 13, VEC(OX_INT32, int32_t, {INT32_MIN, 1}), &y), 0);
  CHECK(IS(y, OX_INT32, int32_t, {INT32_MIN, -1}));
  CHECK_EQ_I(RUN1("Abs", 13, VEC(OX_INT64, int64_t, {INT64_MIN + 1, -3, INT64_MAX}), &y), 0);
  CHECK(IS(y, OX_INT64, int64_t, {INT64_MAX, 3, INT64_MAX}));
  CHECK_EQ_I(RUN1("Abs", 6, VEC(OX_UINT64, uint64_t, {UINT64_MAX, 0}), &y), 0);
  CHECK(IS(y, OX_UINT64, uint64_t, {UINT64_MAX, 0}));
  CHECK_EQ_I(RUN1("Relu", 14, VEC(OX_INT8, int8_t, {-3, 0, 4}), &y), 0);
  CHECK(IS(y, OX_INT8, int8_t, {0, 0, 4}));
  CHECK_EQ_I(RUN1("BitwiseNot", 18, VEC(OX_UINT8, uint8_t, {0, 0x0F}), &y), 0);
  CHECK(IS(y, OX_UINT8, uint8_t, {0xFF, 0xF0}));
  CHECK_EQ_I(RUN1("BitwiseNot", 18, VEC(OX_INT32, int32_t, {0, -1, 5}), &y), 0);
  CHECK(IS(y, OX_INT32, int32_t, {-1, 0, -6}));
  CHECK_EQ_I(RUN1("Not", 1, VEC(OX_BOOL, uint8_t, {0, 1, 1}), &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {1, 0, 0}));
  /* Erf-9 on integers: erf(x) truncated toward zero */
  CHECK_EQ_I(RUN1("Erf", 9, VEC(OX_INT32, int32_t, {-10, -1, 0, 1, 10}), &y), 0);
  CHECK(IS(y, OX_INT32, int32_t, {-1, 0, 0, 0, 1}));
  /* Shrink on int32: -5 + 0.5 = -4.5 and 5 - 0.5 = 4.5 truncate to -4 and 4 */
  ox_attr sa[] = {attr_float("lambd", 1.5f), attr_float("bias", 0.5f)};
  CHECK_EQ_I(run("Shrink", 9, 2, sa, 1, (ox_value *[]){VEC(OX_INT32, int32_t, {-5, -1, 0, 1, 5})},
                 &y), 0);
  CHECK(IS(y, OX_INT32, int32_t, {-4, 0, 0, 0, 4}));
  /* an integral bias, on int64 values a double cannot hold */
  ox_attr sb[] = {attr_float("lambd", 0.5f), attr_float("bias", 1.0f)};
  CHECK_EQ_I(run("Shrink", 9, 2, sb, 1,
                 (ox_value *[]){VEC(OX_INT64, int64_t, {INT64_MAX, -INT64_MAX, 0})}, &y), 0);
  CHECK(IS(y, OX_INT64, int64_t, {INT64_MAX - 1, -INT64_MAX + 1, 0}));
}

/* ---- Clip ---- */

static void test_clip(void) {
  ox_value *y;
  ox_value *x = VEC(OX_FLOAT, float, {-2.0f, 0.0f, 3.0f, NAN});
  /* Clip-13: min > max makes every value max; NaN stays */
  CHECK_EQ_I(run("Clip", 13, 0, NULL, 3, (ox_value *[]){x, SCALAR(OX_FLOAT, float, 2.0f),
                                                         SCALAR(OX_FLOAT, float, 1.0f)}, &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {1.0f, 1.0f, 1.0f, NAN}));
  /* only max (min absent) */
  CHECK_EQ_I(run("Clip", 11, 0, NULL, 3, (ox_value *[]){x, NULL, SCALAR(OX_FLOAT, float, 1.0f)},
                 &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-2.0f, 0.0f, 1.0f, NAN}));
  /* no bounds: the float's own limits, so Inf becomes the largest float */
  CHECK_EQ_I(RUN1("Clip", 13, VEC(OX_FLOAT, float, {-INFINITY, 5.0f, INFINITY}), &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-3.40282346638528859811704183484516925440e+38f, 5.0f,
                                3.40282346638528859811704183484516925440e+38f}));
  /* Clip-6 and Clip-1: attributes */
  ox_attr a6[] = {attr_float("min", -1.0f), attr_float("max", 1.0f)};
  CHECK_EQ_I(run("Clip", 6, 2, a6, 1, (ox_value *[]){x}, &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-1.0f, 0.0f, 1.0f, NAN}));
  ox_attr a1[] = {attr_float("max", 0.5f)};
  CHECK_EQ_I(run("Clip", 1, 1, a1, 1, (ox_value *[]){x}, &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-2.0f, 0.0f, 0.5f, NAN}));
  /* int64 bounds next to the limits (a double would round INT64_MAX - 1 up) */
  CHECK_EQ_I(run("Clip", 12, 0, NULL, 3,
                 (ox_value *[]){VEC(OX_INT64, int64_t, {INT64_MAX, INT64_MAX - 1, INT64_MIN}),
                                NULL, SCALAR(OX_INT64, int64_t, INT64_MAX - 1)}, &y), 0);
  CHECK(IS(y, OX_INT64, int64_t, {INT64_MAX - 1, INT64_MAX - 1, INT64_MIN}));
  CHECK_EQ_I(run("Clip", 13, 0, NULL, 3,
                 (ox_value *[]){VEC(OX_UINT64, uint64_t, {UINT64_MAX, 5}),
                                SCALAR(OX_UINT64, uint64_t, 6), SCALAR(OX_UINT64, uint64_t,
                                                                       UINT64_MAX - 1)}, &y), 0);
  CHECK(IS(y, OX_UINT64, uint64_t, {UINT64_MAX - 1, 6}));
  CHECK_EQ_I(run("Clip", 12, 0, NULL, 2,
                 (ox_value *[]){VEC(OX_INT8, int8_t, {-128, 0, 127}), SCALAR(OX_INT8, int8_t, -5)},
                 &y), 0);
  CHECK(IS(y, OX_INT8, int8_t, {-5, 0, 127}));
  CHECK_EQ_I(RUN1("Clip", 13, VEC(OX_UINT8, uint8_t, {0, 255}), &y), 0);
  CHECK(IS(y, OX_UINT8, uint8_t, {0, 255}));
  /* errors */
  CHECK_FAILS(run("Clip", 13, 0, NULL, 2, (ox_value *[]){x, SCALAR(OX_DOUBLE, double, 1.0)}, &y),
              "input 1 'min' (min) is float64; it must have the input's type float32");
  CHECK_FAILS(run("Clip", 13, 0, NULL, 3,
                  (ox_value *[]){x, NULL, VEC(OX_FLOAT, float, {1.0f, 2.0f})}, &y),
              "input 2 'max' (max) must be a scalar; it has shape (2,)");
}

/* ---- floats: activations and predicates ---- */

static void test_activations(void) {
  ox_value *y;
  ox_value *x = VEC(OX_FLOAT, float, {-1.0f, 0.0f, 1.0f});
  /* Selu-1's defaults (1.6732, 1.0507) differ from Selu-6's float32 constants */
  CHECK_EQ_I(RUN1("Selu", 1, x, &y), 0);
  CHECK(NEAR(y, {-1.1112876898668622, 0.0, 1.0507}));
  CHECK_EQ_I(RUN1("Selu", 6, x, &y), 0);
  CHECK(NEAR(y, {-1.1113307412864784, 0.0, 1.05070102214813232421875}));
  /* Gelu-20, exact and tanh */
  CHECK_EQ_I(RUN1("Gelu", 20, x, &y), 0);
  CHECK(NEAR(y, {-0.15865525393145707, 0.0, 0.8413447460685429}));
  ox_attr gt[] = {attr_str("approximate", "tanh")};
  CHECK_EQ_I(run("Gelu", 20, 1, gt, 1, (ox_value *[]){x}, &y), 0);
  CHECK(NEAR(y, {-0.15880800939172324, 0.0, 0.8411919906082768}));
  ox_attr gb[] = {attr_str("approximate", "erf")};
  CHECK_FAILS(run("Gelu", 20, 1, gb, 1, (ox_value *[]){x}, &y),
              "attribute 'approximate' is \"erf\"; it must be \"none\" or \"tanh\"");
  /* large arguments neither overflow nor give NaN */
  ox_value *big = VEC(OX_FLOAT, float, {-100.0f, 0.0f, 100.0f});
  CHECK_EQ_I(RUN1("Softplus", 1, big, &y), 0);
  CHECK(NEAR(y, {0.0, 0.6931471805599453, 100.0}));
  CHECK_EQ_I(RUN1("Sigmoid", 13, big, &y), 0);
  CHECK(NEAR(y, {0.0, 0.5, 1.0}));
  CHECK_EQ_I(RUN1("Mish", 18, x, &y), 0);
  CHECK(NEAR(y, {-0.30340146137410895, 0.0, 0.8650983882673103}));
  ox_value *h = VEC(OX_FLOAT, float, {-3.0f, -1.0f, 1.0f, 3.0f});
  CHECK_EQ_I(RUN1("HardSwish", 14, h, &y), 0);
  CHECK(NEAR(y, {0.0, -1.0 / 3, 2.0 / 3, 3.0}));
  CHECK_EQ_I(RUN1("HardSigmoid", 6, h, &y), 0); /* alpha 0.2, beta 0.5 */
  CHECK(NEAR(y, {0.0, 0.3, 0.7, 1.0}));
  ox_attr ca[] = {attr_float("alpha", 2.0f)};
  CHECK_EQ_I(run("Celu", 12, 1, ca, 1, (ox_value *[]){x}, &y), 0);
  CHECK(NEAR(y, {-0.7869386805747332, 0.0, 1.0}));
  CHECK_EQ_I(RUN1("Swish", 24, x, &y), 0);
  CHECK(NEAR(y, {-0.2689414213699951, 0.0, 0.7310585786300049}));
  CHECK_EQ_I(RUN1("Softsign", 1, h, &y), 0);
  CHECK(NEAR(y, {-0.75, -0.5, 0.5, 0.75}));
  CHECK_EQ_I(RUN1("ThresholdedRelu", 10, VEC(OX_FLOAT, float, {1.0f, 1.5f}), &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {0.0f, 1.5f}));
  CHECK_EQ_I(RUN1("LeakyRelu", 16, x, &y), 0);
  CHECK(NEAR(y, {-0.01, 0.0, 1.0}));
  CHECK_EQ_I(RUN1("Elu", 6, x, &y), 0);
  CHECK(NEAR(y, {-0.6321205588285577, 0.0, 1.0}));
  CHECK_EQ_I(RUN1("Relu", 6, VEC(OX_FLOAT, float, {-1.0f, NAN}), &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {0.0f, NAN}));
  ox_attr sh[] = {attr_float("lambd", 1.5f), attr_float("bias", 0.5f)};
  CHECK_EQ_I(run("Shrink", 9, 2, sh, 1, (ox_value *[]){VEC(OX_FLOAT, float, {-2.0f, 1.0f, 2.0f})},
                 &y), 0);
  CHECK(IS(y, OX_FLOAT, float, {-1.5f, 0.0f, 1.5f}));
  /* doubles compute in double */
  CHECK_EQ_I(RUN1("Exp", 13, VEC(OX_DOUBLE, double, {1.0}), &y), 0);
  CHECK(y && fabs(((double *)y->u.t.data)[0] - 2.718281828459045) < 1e-15);
}

static void test_predicates(void) {
  ox_value *y;
  ox_value *x = VEC(OX_FLOAT, float, {-INFINITY, INFINITY, NAN, 1.0f});
  CHECK_EQ_I(RUN1("IsInf", 10, x, &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {1, 1, 0, 0}));
  ox_attr pos[] = {attr_int("detect_negative", 0)};
  CHECK_EQ_I(run("IsInf", 10, 1, pos, 1, (ox_value *[]){x}, &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {0, 1, 0, 0}));
  ox_attr neg[] = {attr_int("detect_positive", 0)};
  CHECK_EQ_I(run("IsInf", 20, 1, neg, 1, (ox_value *[]){x}, &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {1, 0, 0, 0}));
  CHECK_EQ_I(RUN1("IsNaN", 9, x, &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {0, 0, 1, 0}));
  /* float16 bits: NaN, -Inf, 1 */
  CHECK_EQ_I(RUN1("IsNaN", 13, VEC(OX_FLOAT16, uint16_t, {0x7E00, 0xFC00, 0x3C00}), &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {1, 0, 0}));
  CHECK_EQ_I(RUN1("IsInf", 20, VEC(OX_FLOAT16, uint16_t, {0x7E00, 0xFC00, 0x3C00}), &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {0, 1, 0}));
  /* IsNaN-20, IsInf-20 on float8: e4m3fn 0x7F is NaN, 0x7E is 448 (it has no
   * Inf); e5m2 0x7C is Inf, 0x7E NaN */
  CHECK_EQ_I(RUN1("IsNaN", 20, VEC(OX_FLOAT8E4M3FN, uint8_t, {0x7F, 0x7E, 0x00}), &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {1, 0, 0}));
  CHECK_EQ_I(RUN1("IsInf", 20, VEC(OX_FLOAT8E4M3FN, uint8_t, {0x7F, 0x7E}), &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {0, 0}));
  CHECK_EQ_I(RUN1("IsInf", 20, VEC(OX_FLOAT8E5M2, uint8_t, {0x7C, 0xFC, 0x7E, 0x3C}), &y), 0);
  CHECK(IS(y, OX_BOOL, uint8_t, {1, 1, 0, 0}));
}

/* ---- small floats round once on store ---- */

static void test_small_floats(void) {
  ox_value *y;
  /* sqrt(2) = 1.41421356 -> float16 1.4140625 (0x3DA8); sqrt(4) = 2 (0x4000) */
  CHECK_EQ_I(RUN1("Sqrt", 13, VEC(OX_FLOAT16, uint16_t, {0x4000, 0x4400}), &y), 0);
  CHECK(IS(y, OX_FLOAT16, uint16_t, {0x3DA8, 0x4000}));
  /* e = 2.71828 -> bfloat16 2.71875 (0x402E) */
  CHECK_EQ_I(RUN1("Exp", 13, VEC(OX_BFLOAT16, uint16_t, {0x3F80}), &y), 0);
  CHECK(IS(y, OX_BFLOAT16, uint16_t, {0x402E}));
  /* Clip-13 on bfloat16: bounds 0.5 (0x3F00) and 1 (0x3F80); 2 (0x4000) -> 1 */
  CHECK_EQ_I(run("Clip", 13, 0, NULL, 3,
                 (ox_value *[]){VEC(OX_BFLOAT16, uint16_t, {0x0000, 0x4000}),
                                SCALAR(OX_BFLOAT16, uint16_t, 0x3F00),
                                SCALAR(OX_BFLOAT16, uint16_t, 0x3F80)}, &y), 0);
  CHECK(IS(y, OX_BFLOAT16, uint16_t, {0x3F00, 0x3F80}));
  /* an empty tensor keeps its shape */
  ox_value *e = NULL;
  int64_t d[2] = {0, 3};
  CHECK_EQ_I(ox_tensor_new(A, OX_FLOAT16, 2, d, &e, &E), 0);
  CHECK_EQ_I(RUN1("Tanh", 13, e, &y), 0);
  CHECK(y && y->u.t.rank == 2 && y->u.t.dims[0] == 0 && y->u.t.dims[1] == 3 && y->u.t.n == 0);
}

/* Erf and Gelu on float run 8 lanes at a time: Erf's lanes each pick their
 * own polynomial piece, and Gelu takes a second, costlier path only for a
 * vector with a lane past |x| = 2 sqrt 2: a value's result must not depend
 * on its neighbours. Each of these values alone, and beside values of other
 * pieces and paths, at every lane; against libm's double erf and erfc
 * rounded to float (both are within 2^-42 of the exact values, far from a
 * rounding tie for these); under every vector build. */
static void test_erf_lanes(void) {
  static const float xs[] = {0.0f, -0.0f, 1e-30f, 0.3f, -0.99f, 1.0f, 1.7f, -1.99f, 2.0f, 2.01f, -2.9f, 3.5f,
                             -4.2f, 7.0f, -9.9f, -13.2f, -14.9f, 20.0f};
  enum { NX = sizeof xs / sizeof *xs };
  int bad = 0;
  for (int lv = 0; lv <= 2; lv++) /* every build the CPU runs (core/vmath.h) */
    for (int gelu = 0; gelu < 2; gelu++)
      for (int i = 0; i < NX; i++) {
        ox_vmath_max_isa(lv);
        float x = xs[i];
        double g = gelu ? 0.5 * x * erfc(-x * 0.70710678118654752440) : erf(x);
        float want = (float)g;
        for (int fill = 0; fill < 3; fill++) /* neighbours: small, large, mixed */
          for (int lane = 0; lane < 8; lane++) {
            float in[16], out[16];
            for (int k = 0; k < 16; k++) in[k] = fill == 0 ? 0.5f : fill == 1 ? -6.0f : (k % 2 ? 3.0f : -0.25f);
            in[lane] = x;
            (gelu ? ox_gelu_erf_f32 : ox_erf_f32)(in, out, 16);
            if (memcmp(&out[lane], &want, sizeof want)) {
              if (bad++ < 4)
                fprintf(stderr, "%s(%a) at lane %d (neighbours %d): %a, want %a\n", gelu ? "Gelu" : "Erf", x, lane,
                        fill, out[lane], want);
            }
          }
      }
  ox_vmath_max_isa(-1);
  CHECK_EQ_I(bad, 0);
  float inf = INFINITY, y[2];
  ox_gelu_erf_f32((float[]){-inf, inf}, y, 2); /* -inf * 0 is NaN, as the definition says */
  CHECK(isnan(y[0]) && y[1] == inf);
  ox_erf_f32((float[]){-inf, inf}, y, 2);
  CHECK(y[0] == -1 && y[1] == 1);
}

/* ---- correct rounding of Erf, Sigmoid and Tanh on float ----
 * Each result must be the float nearest the exact value (the long double
 * function's, some 2^-62 off), where that value is not within 2^-56 of a
 * tie between two floats; under every vector build. The inputs, both signs
 * of each: every float within 4096 steps of each of the function's edges
 * (where a piecewise or range-reduced kernel would go wrong), values spread
 * densely over a range, and every 251st float from 2^-40 to 1 (the pattern
 * of each binade's mantissas moves). */
typedef struct {
  const char *name;
  void (*f32)(const float *x, float *y, int64_t n); /* core/vmath.h */
  long double (*exact)(long double x);
} rounded_fn;

typedef struct {
  const rounded_fn *fn;
  int nfn;
  float x[4096];
  int n, bad, skipped, total;
} rounding_run;

static void rounding_flush(rounding_run *r) {
  float y[4096];
  for (int k = 0; k < r->nfn; k++) {
    const rounded_fn *fn = &r->fn[k];
    for (int lv = 0; lv <= 2; lv++) {
      ox_vmath_max_isa(lv);
      fn->f32(r->x, y, r->n);
      for (int i = 0; i < r->n; i++) {
        long double e = fn->exact(r->x[i]);
        float f = (float)e, g = (long double)f < e ? nextafterf(f, INFINITY) : nextafterf(f, -INFINITY);
        long double mid = ((long double)f + g) / 2;
        if (fabsl(e - mid) < fabsl(e) * 0x1p-56L) { /* too near a tie for the long double to tell */
          r->skipped += lv == 0;
          continue;
        }
        if (memcmp(&y[i], &f, sizeof f) && r->bad++ < 4)
          fprintf(stderr, "%s(%a) (build %d): %a, want %a\n", fn->name, r->x[i], lv, y[i], f);
      }
    }
    ox_vmath_max_isa(-1);
  }
  r->total += r->nfn * r->n;
  r->n = 0;
}

static void rounding_put(rounding_run *r, float v) {
  r->x[r->n++] = v, r->x[r->n++] = -v;
  if (r->n == 4096) rounding_flush(r);
}

/* fn's nfn functions on the inputs above: edges, then ndense values spread
 * over [lo, hi] */
static void rounding_check(const rounded_fn *fn, int nfn, const float *edges, int nedge, double lo, double hi,
                           int ndense) {
  rounding_run r = {.fn = fn, .nfn = nfn};
  for (int m = 0; m < nedge; m++) {
    float a = edges[m], b = a;
    for (int k = 0; k < 4096; k++) a = nextafterf(a, 0), b = nextafterf(b, INFINITY);
    for (float v = a; v <= b; v = nextafterf(v, INFINITY)) rounding_put(&r, v);
  }
  for (int k = 0; k < ndense; k++) rounding_put(&r, (float)(lo + (hi - lo) * k / ndense));
  uint32_t b0, b1;
  memcpy(&b0, &(float){0x1p-40f}, 4), memcpy(&b1, &(float){1.0f}, 4);
  for (uint32_t b = b0; b < b1; b += 251) {
    float v;
    memcpy(&v, &b, 4);
    rounding_put(&r, v);
  }
  rounding_flush(&r);
  CHECK_EQ_I(r.bad, 0);
  CHECK(r.skipped < r.total / 10000); /* the ties are rare */
}

static long double erf_exact(long double x) { return erfl(x); }
static long double sigmoid_exact(long double x) { return 1 / (1 + expl(-x)); }
static long double tanh_exact(long double x) { return tanhl(x); }

/* Erf is correctly rounded, not only within 0.51 ULP (test_ulp.c). Its
 * edges: each of core/vmath.c's 16 pieces' (a = (m + 1/2) 8/31), the clamp
 * (4 - 1/64) and 4; dense over [0, 4.5]. */
static void test_erf_rounding(void) {
  static const rounded_fn erf = {"Erf", ox_erf_f32, erf_exact};
  float edges[18];
  for (int m = 0; m < 18; m++) edges[m] = m < 16 ? (float)((m + 0.5) * 8 / 31) : m == 16 ? 3.984375f : 4.0f;
  rounding_check(&erf, 1, edges, 18, 0, 4.5, 1 << 20);
}

/* Sigmoid and Tanh (core/vmath.c) are correctly rounded too. Their edges:
 * -87 and 90 (where an exp's range would end or clamp), 20 (tanh's clamp),
 * 1/16 (where tanh's series gives way), where the results reach 1 (sigmoid:
 * 25 ln 2 = 17.33; tanh: 9.01) or float's least normal (sigmoid: -87.34),
 * and two multiples of ln2/32 (a table-driven exp's nodes); dense over
 * [-110, 20]. (A sigmoid whose exp is 2^-34.5 off fails 34 of them.) */
static void test_sigmoid_tanh_rounding(void) {
  static const rounded_fn fns[2] = {{"Sigmoid", ox_sigmoid_f32, sigmoid_exact}, {"Tanh", ox_tanh_f32, tanh_exact}};
  static const float edges[] = {-87.0f, 87.0f, 90.0f, 20.0f, 0.0625f, 17.33f, 9.01f, 87.34f, 1.0830424f, 5.1985f};
  rounding_check(fns, 2, edges, (int)(sizeof edges / sizeof *edges), -110, 20, 1 << 19);
}

/* ox_sigmoid_fast_f32 and ox_tanh_fast_f32 (the RNN gates') give the bits
 * of ox_sigmoid_f32 and ox_tanh_f32, under every vector build: on the hard
 * inputs below (the quick path must give way there), every float within
 * 4096 steps of the quick path's edges (80: sigmoid's range; 20 and 2^-60:
 * tanh's; 1/16: tanh's series; 17.33 and 9.01: where the results reach 1;
 * ln2/32, 3 ln2/32 and 3.5 ln2/32: where the table's index steps), then
 * every 257th float of all 2^32 (NaN, infinities and subnormals included).
 * Among those the test counts the inputs whose exact value is within 2^-37
 * of a tie between two floats, where the quick path must give way to the
 * exact one: at least a hundred must be checked. With OX_VMATH_ALL=1 in
 * the environment, every float under the AVX-512 build (the one with a
 * quick path; some 45 s). */
static long double tie_dist(int fn, float x) { /* the exact value's distance to a tie, relative */
  long double r = fn ? tanhl((long double)x) : 1 / (1 + expl(-(long double)x));
  float f = (float)r, g = (long double)f < r ? nextafterf(f, INFINITY) : nextafterf(f, -INFINITY);
  long double mid = ((long double)f + g) / 2;
  return r == 0 || isinf(g) ? 1 : fabsl(r - mid) / fabsl(r);
}
static int fast_checked(const float *x, int n, int *ties, int all) {
  float a[4096], b[4096];
  int bad = 0;
  for (int lv = all ? 2 : 0; lv <= 2; lv++) { /* all: AVX-512's build, the quick one */
    ox_vmath_max_isa(lv);
    for (int fn = 0; fn < 2; fn++) {
      (fn ? ox_tanh_f32 : ox_sigmoid_f32)(x, a, n);
      (fn ? ox_tanh_fast_f32 : ox_sigmoid_fast_f32)(x, b, n);
      for (int i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a) && bad++ < 4)
          fprintf(stderr, "%s(%a) (build %d): %a, want %a\n", fn ? "tanh_fast" : "sigmoid_fast", x[i], lv, b[i], a[i]);
      if (lv == 2 && !all)
        for (int i = 0; i < n; i += 7) *ties += tie_dist(fn, x[i]) < 0x1p-37L;
    }
  }
  ox_vmath_max_isa(-1);
  return bad;
}
/* The inputs (of all 2^32 floats) where the quick sigmoid alone, without
 * its test for a tie, gives another float than the exact path; for tanh,
 * where a first quick tanh, by (1 - e) / (1 + e) with e = e^-2a, did (the
 * one by e^-2a - 1 gets every float right even without the test). Each
 * within 2^-37 of a tie (tanh: and their negatives). */
static const float HARD_SIGMOID[] = {
    0x1.131916p-4f, 0x1.cce7b8p-4f, 0x1.aad92ep+0f, -0x1.3a06b6p-6f, -0x1.4c39aap-6f,
    -0x1.7633eap-6f, -0x1.8ce738p-6f, -0x1.caa048p-5f, -0x1.ff0dcap-5f, -0x1.e55dacp-3f,
    -0x1.7b8c3ep-2f, -0x1.a8a77cp-2f, -0x1.d098e6p-2f, -0x1.2dd64p-1f, -0x1.c7c59ep-1f,
    -0x1.ec3f7p+0f, -0x1.962c0cp+2f, -0x1.c7faf8p+2f, -0x1.1746bep+3f, -0x1.20f1ecp+3f,
    -0x1.957df2p+3f, -0x1.99b1d4p+3f, -0x1.d10b36p+3f, -0x1.39b1a6p+4f,
};
static const float HARD_TANH[] = {
    0x1.32b908p-4f, 0x1.34f928p-4f, 0x1.446c32p-4f, 0x1.8230acp-4f, 0x1.833bd2p-4f, 0x1.9333aap-4f,
    0x1.d926p-4f, 0x1.e40792p-4f, 0x1.e67d64p-4f, 0x1.e715d2p-4f, 0x1.eb58a2p-4f, 0x1.21522cp-3f,
    0x1.2a19a8p-3f, 0x1.755f16p-3f, 0x1.a37a3ap-3f, 0x1.a7962ap-3f, 0x1.d37f14p-3f, 0x1.fe5b8ep-3f,
    0x1.ff246ap-3f, 0x1.2ba586p-2f, 0x1.41985p-2f, 0x1.b00c9cp-2f, 0x1.b0b338p-2f, 0x1.d9ff12p-2f,
    0x1.dc0accp-2f, 0x1.1af802p-1f,
};
static void test_fast_sigmoid_tanh(void) {
  static const float edges[] = {80.0f, 20.0f, 0x1p-60f, 0.0625f, 17.33f, 9.01f, 0.0216608f, 0.0649825f, 0.0758130f};
  float x[4096];
  int n = 0, bad = 0, ties = 0;
  const char *all = getenv("OX_VMATH_ALL");
  int every = all && !strcmp(all, "1");
  uint64_t step = every ? 1 : 257;
#define PUT(v)                                                                        \
  do {                                                                                \
    x[n++] = (v);                                                                     \
    if (n == 4096) bad += fast_checked(x, n, &ties, every), n = 0;                    \
  } while (0)
  int near = 0;
  for (size_t m = 0; m < sizeof HARD_SIGMOID / sizeof *HARD_SIGMOID; m++) {
    near += tie_dist(0, HARD_SIGMOID[m]) < 0x1p-37L;
    PUT(HARD_SIGMOID[m]);
  }
  for (size_t m = 0; m < sizeof HARD_TANH / sizeof *HARD_TANH; m++) {
    near += tie_dist(1, HARD_TANH[m]) < 0x1p-37L;
    PUT(HARD_TANH[m]);
    PUT(-HARD_TANH[m]);
  }
  CHECK_EQ_I(near, sizeof HARD_SIGMOID / sizeof *HARD_SIGMOID + sizeof HARD_TANH / sizeof *HARD_TANH);
  for (size_t m = 0; m < sizeof edges / sizeof *edges; m++) {
    float lo = edges[m], hi = lo;
    for (int k = 0; k < 4096; k++) lo = nextafterf(lo, 0), hi = nextafterf(hi, INFINITY);
    for (float v = lo; v <= hi; v = nextafterf(v, INFINITY)) {
      PUT(v);
      PUT(-v);
    }
  }
  for (uint64_t u = 0; u <= UINT32_MAX; u += step) {
    uint32_t w = (uint32_t)u;
    float v;
    memcpy(&v, &w, sizeof v);
    PUT(v);
  }
#undef PUT
  bad += fast_checked(x, n, &ties, every);
  CHECK_EQ_I(bad, 0);
  CHECK(every || ties >= 100);
}

int main(void) {
  A = ox_arena_new();
  test_erf_lanes();
  test_erf_rounding();
  test_sigmoid_tanh_rounding();
  test_fast_sigmoid_tanh();
  test_table();
  test_round_sign();
  test_integers();
  test_clip();
  test_activations();
  test_predicates();
  test_small_floats();
  ox_arena_free(A);
  return check_done("unary");
}
