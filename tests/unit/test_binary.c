/* tests/unit/test_binary.c: the binary family (ops/binary.c), called through
 * the registry with a hand-made node. Expected values are worked out by hand
 * from the spec (Python's % for Mod, C's truncation for Div, ...). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "core/half.h"
#include "core/threads.h"

#define DIMS(...) {__VA_ARGS__}
#define T(dt, ctype, rank, dims, ...) tensor(OX_##dt, rank, (int64_t[])dims, (ctype[])__VA_ARGS__)

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, 1, out);
}
#define RUN(op, opset, out, ...)                                                      \
  run(op, opset, 0, NULL, sizeof((ox_value *[]){__VA_ARGS__}) / sizeof(ox_value *),   \
      (ox_value *[]){__VA_ARGS__}, out)

#define IS(v, dt, ctype, rank, dims, ...) same_bytes(v, OX_##dt, rank, (int64_t[])dims, (ctype[])__VA_ARGS__)

static void test_arith_broadcast(void) {
  ox_value *r;
  /* (2, 3) + (3,) and (2, 1) * (1, 3) */
  ox_value *a = T(FLOAT, float, 2, DIMS(2, 3), {1, 2, 3, 4, 5, 6});
  CHECK_EQ_I(RUN("Add", 14, &r, a, T(FLOAT, float, 1, DIMS(3), {10, 20, 30})), 0);
  CHECK(IS(r, FLOAT, float, 2, DIMS(2, 3), {11, 22, 33, 14, 25, 36}));
  CHECK_EQ_I(RUN("Mul", 14, &r, T(INT32, int32_t, 2, DIMS(2, 1), {2, 3}),
                 T(INT32, int32_t, 2, DIMS(1, 3), {1, 10, 100})), 0);
  CHECK(IS(r, INT32, int32_t, 2, DIMS(2, 3), {2, 20, 200, 3, 30, 300}));
  /* scalar on the left */
  CHECK_EQ_I(RUN("Sub", 14, &r, T(DOUBLE, double, 0, DIMS(0), {1}), a ? T(DOUBLE, double, 1, DIMS(2), {0.5, 4}) : NULL), 0);
  CHECK(IS(r, DOUBLE, double, 1, DIMS(2), {0.5, -3}));
  /* int8 wraps: 100 + 100 = 200 - 256 = -56; uint16 65535 * 65535 = 1 mod 2^16 */
  CHECK_EQ_I(RUN("Add", 14, &r, T(INT8, int8_t, 1, DIMS(1), {100}), T(INT8, int8_t, 1, DIMS(1), {100})), 0);
  CHECK(IS(r, INT8, int8_t, 1, DIMS(1), {-56}));
  CHECK_EQ_I(RUN("Mul", 14, &r, T(UINT16, uint16_t, 1, DIMS(1), {65535}), T(UINT16, uint16_t, 1, DIMS(1), {65535})), 0);
  CHECK(IS(r, UINT16, uint16_t, 1, DIMS(1), {1}));
  /* shapes that do not broadcast */
  CHECK_FAILS(RUN("Add", 14, &r, T(FLOAT, float, 1, DIMS(2), {1, 2}), T(FLOAT, float, 1, DIMS(3), {1, 2, 3})),
              "cannot be broadcast");
  /* mixed types */
  CHECK_FAILS(RUN("Add", 14, &r, a, T(INT32, int32_t, 1, DIMS(1), {1})), "same type");
  /* empty output */
  CHECK_EQ_I(RUN("Add", 14, &r, T(FLOAT, float, 2, DIMS(0, 3), {0}), T(FLOAT, float, 1, DIMS(3), {1, 2, 3})), 0);
  CHECK(r && r->u.t.n == 0 && r->u.t.rank == 2 && r->u.t.dims[1] == 3);
}

/* Add-1..6: no numpy broadcasting; broadcast=1 with axis matches B at a run of A's dims. */
static void test_legacy_broadcast(void) {
  ox_value *r;
  ox_value *a = T(FLOAT, float, 3, DIMS(2, 3, 2), {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1});
  ox_value *b = T(FLOAT, float, 1, DIMS(3), {10, 20, 30});
  ox_attr at[2] = {attr_int("broadcast", 1), attr_int("axis", 1)};
  CHECK_EQ_I(run("Add", 6, 2, at, 2, (ox_value *[]){a, b}, &r), 0);
  CHECK(IS(r, FLOAT, float, 3, DIMS(2, 3, 2), {10, 10, 20, 20, 30, 30, 11, 11, 21, 21, 31, 31}));
  /* without axis, suffix matching: B (2,) on A's last dim */
  ox_value *b2 = T(FLOAT, float, 1, DIMS(2), {1, 2});
  CHECK_EQ_I(run("Sub", 1, 1, at, 2, (ox_value *[]){a, b2}, &r), 0);
  CHECK(IS(r, FLOAT, float, 3, DIMS(2, 3, 2), {-1, -2, -1, -2, -1, -2, 0, -1, 0, -1, 0, -1}));
  /* without broadcast=1 the shapes must be equal */
  CHECK_FAILS(run("Add", 6, 0, NULL, 2, (ox_value *[]){a, b2}, &r), "broadcast is not set");
  /* B of the wrong dims for the axis */
  ox_attr at0[2] = {attr_int("broadcast", 1), attr_int("axis", 0)};
  CHECK_FAILS(run("Mul", 6, 2, at0, 2, (ox_value *[]){a, b}, &r), "does not match");
  /* a dim of 1 in B stretches (PyTorch's opset-6 exports): (2, 1) against (2, 3) */
  ox_attr bc1 = attr_int("broadcast", 1);
  CHECK_EQ_I(run("Add", 6, 1, &bc1, 2, (ox_value *[]){T(FLOAT, float, 2, DIMS(2, 3), {0, 1, 2, 3, 4, 5}),
                                                      T(FLOAT, float, 2, DIMS(2, 1), {10, 20})}, &r), 0);
  CHECK(IS(r, FLOAT, float, 2, DIMS(2, 3), {10, 11, 12, 23, 24, 25}));
  /* a 1-element B of rank 2 is shared */
  CHECK_EQ_I(run("Mul", 6, 1, at, 2, (ox_value *[]){a, T(FLOAT, float, 2, DIMS(1, 1), {3})}, &r), 0);
  CHECK(IS(r, FLOAT, float, 3, DIMS(2, 3, 2), {0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3}));
}

static void test_div_mod(void) {
  ox_value *r;
  /* integer Div truncates toward zero: -7/2 = -3, 7/-2 = -3 */
  CHECK_EQ_I(RUN("Div", 14, &r, T(INT32, int32_t, 1, DIMS(3), {-7, 7, 9}), T(INT32, int32_t, 1, DIMS(3), {2, -2, 3})), 0);
  CHECK(IS(r, INT32, int32_t, 1, DIMS(3), {-3, -3, 3}));
  /* INT64_MIN / -1 wraps to INT64_MIN instead of trapping */
  CHECK_EQ_I(RUN("Div", 14, &r, T(INT64, int64_t, 1, DIMS(1), {INT64_MIN}), T(INT64, int64_t, 1, DIMS(1), {-1})), 0);
  CHECK(IS(r, INT64, int64_t, 1, DIMS(1), {INT64_MIN}));
  CHECK_FAILS(RUN("Div", 14, &r, T(INT32, int32_t, 1, DIMS(2), {1, 2}), T(INT32, int32_t, 1, DIMS(2), {1, 0})),
              "division by zero");
  /* float division by zero is IEEE */
  CHECK_EQ_I(RUN("Div", 14, &r, T(FLOAT, float, 1, DIMS(1), {1}), T(FLOAT, float, 1, DIMS(1), {0})), 0);
  CHECK(r && isinf(((float *)r->u.t.data)[0]));

  /* Mod fmod=0: Python's %, the sign of the divisor */
  ox_value *x = T(INT32, int32_t, 1, DIMS(4), {-7, 7, -7, 7}), *y = T(INT32, int32_t, 1, DIMS(4), {3, -3, -3, 3});
  CHECK_EQ_I(RUN("Mod", 13, &r, x, y), 0);
  CHECK(IS(r, INT32, int32_t, 1, DIMS(4), {2, -2, -1, 1}));
  /* fmod=1: C's fmod, the sign of the dividend */
  ox_attr f1 = attr_int("fmod", 1);
  CHECK_EQ_I(run("Mod", 13, 1, &f1, 2, (ox_value *[]){x, y}, &r), 0);
  CHECK(IS(r, INT32, int32_t, 1, DIMS(4), {-1, 1, -1, 1}));
  CHECK_EQ_I(run("Mod", 13, 1, &f1, 2,
                 (ox_value *[]){T(DOUBLE, double, 1, DIMS(2), {-7.5, 7.5}), T(DOUBLE, double, 1, DIMS(1), {2})}, &r), 0);
  CHECK(IS(r, DOUBLE, double, 1, DIMS(2), {-1.5, 1.5}));
  /* int8 -128 mod -1 = 0 without trapping; uint8 mod */
  CHECK_EQ_I(RUN("Mod", 13, &r, T(INT8, int8_t, 1, DIMS(1), {-128}), T(INT8, int8_t, 1, DIMS(1), {-1})), 0);
  CHECK(IS(r, INT8, int8_t, 1, DIMS(1), {0}));
  CHECK_EQ_I(RUN("Mod", 13, &r, T(UINT8, uint8_t, 1, DIMS(2), {250, 7}), T(UINT8, uint8_t, 1, DIMS(1), {7})), 0);
  CHECK(IS(r, UINT8, uint8_t, 1, DIMS(2), {5, 0}));
  CHECK_FAILS(RUN("Mod", 13, &r, x, T(INT32, int32_t, 1, DIMS(1), {0})), "modulus by zero");
  CHECK_FAILS(RUN("Mod", 13, &r, T(FLOAT, float, 1, DIMS(1), {1}), T(FLOAT, float, 1, DIMS(1), {2})),
              "fmod must be 1");
}

static void test_compare(void) {
  ox_value *r;
  /* int64 exact: 2^53 + 1 > 2^53 (equal as doubles) */
  int64_t big = (int64_t)1 << 53;
  CHECK_EQ_I(RUN("Greater", 13, &r, T(INT64, int64_t, 1, DIMS(2), {big + 1, big}), T(INT64, int64_t, 1, DIMS(1), {big})), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(2), {1, 0}));
  CHECK_EQ_I(RUN("Equal", 13, &r, T(UINT64, uint64_t, 1, DIMS(2), {UINT64_MAX, UINT64_MAX - 1}),
                 T(UINT64, uint64_t, 0, DIMS(0), {UINT64_MAX})), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(2), {1, 0}));
  CHECK_EQ_I(RUN("LessOrEqual", 16, &r, T(INT8, int8_t, 1, DIMS(3), {-1, 0, 1}), T(INT8, int8_t, 0, DIMS(0), {0})), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(3), {1, 1, 0}));
  /* NaN compares false, also for !=-like ops */
  CHECK_EQ_I(RUN("GreaterOrEqual", 16, &r, T(FLOAT, float, 1, DIMS(2), {NAN, 1}), T(FLOAT, float, 1, DIMS(2), {NAN, 1})), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(2), {0, 1}));
  /* Equal on strings (opset 19), with broadcasting */
  ox_value *s = T(STRING, ox_str, 1, DIMS(3), {{"ab", 2}, {"a", 1}, {"", 0}});
  CHECK_EQ_I(RUN("Equal", 19, &r, s, T(STRING, ox_str, 0, DIMS(0), {{"a", 1}})), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(3), {0, 1, 0}));
  /* logic */
  ox_value *p = T(BOOL, uint8_t, 1, DIMS(4), {0, 0, 1, 1}), *q = T(BOOL, uint8_t, 1, DIMS(4), {0, 1, 0, 1});
  CHECK_EQ_I(RUN("And", 7, &r, p, q), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(4), {0, 0, 0, 1}));
  CHECK_EQ_I(RUN("Or", 7, &r, p, q), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(4), {0, 1, 1, 1}));
  CHECK_EQ_I(RUN("Xor", 7, &r, p, q), 0);
  CHECK(IS(r, BOOL, uint8_t, 1, DIMS(4), {0, 1, 1, 0}));
}

static void test_bits(void) {
  ox_value *r;
  ox_attr left = attr_str("direction", "LEFT"), right = attr_str("direction", "RIGHT");
  ox_value *x = T(UINT8, uint8_t, 1, DIMS(4), {1, 1, 0x80, 0xff}), *s = T(UINT8, uint8_t, 1, DIMS(4), {1, 7, 1, 8});
  CHECK_EQ_I(run("BitShift", 11, 1, &left, 2, (ox_value *[]){x, s}, &r), 0);
  CHECK(IS(r, UINT8, uint8_t, 1, DIMS(4), {2, 0x80, 0, 0})); /* shifted out; by 8: 0 */
  CHECK_EQ_I(run("BitShift", 11, 1, &right, 2, (ox_value *[]){x, s}, &r), 0);
  CHECK(IS(r, UINT8, uint8_t, 1, DIMS(4), {0, 0, 0x40, 0}));
  ox_value *x64 = T(UINT64, uint64_t, 1, DIMS(2), {1, 1}), *s64 = T(UINT64, uint64_t, 1, DIMS(2), {63, 64});
  CHECK_EQ_I(run("BitShift", 11, 1, &left, 2, (ox_value *[]){x64, s64}, &r), 0);
  CHECK(IS(r, UINT64, uint64_t, 1, DIMS(2), {(uint64_t)1 << 63, 0}));
  ox_attr bad = attr_str("direction", "UP");
  CHECK_FAILS(run("BitShift", 11, 1, &bad, 2, (ox_value *[]){x, s}, &r), "LEFT");
  CHECK_FAILS(run("BitShift", 11, 0, NULL, 2, (ox_value *[]){x, s}, &r), "direction");
  CHECK_EQ_I(RUN("BitwiseAnd", 18, &r, T(INT16, int16_t, 1, DIMS(2), {-1, 0x0f0f}), T(INT16, int16_t, 0, DIMS(0), {0x00ff})), 0);
  CHECK(IS(r, INT16, int16_t, 1, DIMS(2), {0x00ff, 0x000f}));
  CHECK_EQ_I(RUN("BitwiseXor", 18, &r, T(INT32, int32_t, 1, DIMS(1), {-1}), T(INT32, int32_t, 1, DIMS(1), {5})), 0);
  CHECK(IS(r, INT32, int32_t, 1, DIMS(1), {~5}));
}

static void test_pow(void) {
  ox_value *r;
  /* int base, int exponent: exact (3^39 = 4052555153018976267 does not fit a double) */
  CHECK_EQ_I(RUN("Pow", 15, &r, T(INT64, int64_t, 1, DIMS(2), {3, -2}), T(INT64, int64_t, 1, DIMS(2), {39, 3})), 0);
  CHECK(IS(r, INT64, int64_t, 1, DIMS(2), {INT64_C(4052555153018976267), -8}));
  /* int base, float exponent: in double, truncated: 2^0.5 = 1.41 -> 1, 10^1.5 = 31.6 -> 31 */
  CHECK_EQ_I(RUN("Pow", 15, &r, T(INT32, int32_t, 1, DIMS(2), {2, 10}), T(FLOAT, float, 1, DIMS(2), {0.5f, 1.5f})), 0);
  CHECK(IS(r, INT32, int32_t, 1, DIMS(2), {1, 31}));
  /* float base, uint8 exponent */
  CHECK_EQ_I(RUN("Pow", 15, &r, T(FLOAT, float, 1, DIMS(2), {2, -3}), T(UINT8, uint8_t, 0, DIMS(0), {3})), 0);
  CHECK(IS(r, FLOAT, float, 1, DIMS(2), {8, -27}));
  /* float x^3 (a scalar exponent 3, GELU's tanh form): x^3 rounded as the
   * exact value is, within 0.5 + 2^-29 ULP; powf was up to 0.82 ULP off and
   * gave the neighbours of these five (-0x1.604986p+5 for the first) */
  {
    static const float x[] = {-0x1.c401e8p+1f, -0x1.21p+0f, -0x1.de289p+0f, 0x1.7ea21p+1f, -0x1.37p-5f,
                              0.0f, -0.0f, INFINITY, -INFINITY, 1e13f, 1e-15f, 3.0f};
    enum { NX = sizeof x / sizeof *x };
    CHECK_EQ_I(RUN("Pow", 15, &r, tensor(OX_FLOAT, 1, (int64_t[]){NX}, x), T(FLOAT, float, 0, DIMS(0), {3})), 0);
    int ok = r && r->u.t.n == NX;
    for (int i = 0; ok && i < NX; i++) {
      float want = (float)((long double)x[i] * x[i] * x[i]), got = ((float *)r->u.t.data)[i];
      ok = !memcmp(&want, &got, sizeof got);
      if (!ok) fprintf(stderr, "Pow(%a, 3) = %a, want %a\n", x[i], got, want);
    }
    CHECK(ok);
    float nan = NAN;
    CHECK_EQ_I(RUN("Pow", 15, &r, tensor(OX_FLOAT, 1, (int64_t[]){1}, &nan), T(INT64, int64_t, 0, DIMS(0), {3})), 0);
    CHECK(r && isnan(((float *)r->u.t.data)[0]));
  }
  /* before opset 12 both must have one type */
  CHECK_FAILS(RUN("Pow", 7, &r, T(FLOAT, float, 1, DIMS(1), {2}), T(DOUBLE, double, 1, DIMS(1), {2})), "same type");
  CHECK_FAILS(RUN("Pow", 15, &r, T(INT32, int32_t, 1, DIMS(1), {2}), T(INT32, int32_t, 1, DIMS(1), {-1})),
              "negative");
}

static void test_variadic(void) {
  ox_value *r;
  ox_value *a = T(FLOAT, float, 2, DIMS(2, 1), {1, 2}), *b = T(FLOAT, float, 1, DIMS(3), {10, 20, 30}),
           *c = T(FLOAT, float, 0, DIMS(0), {100});
  CHECK_EQ_I(RUN("Sum", 13, &r, a, b, c), 0);
  CHECK(IS(r, FLOAT, float, 2, DIMS(2, 3), {111, 121, 131, 112, 122, 132}));
  CHECK_EQ_I(RUN("Mean", 13, &r, T(DOUBLE, double, 1, DIMS(1), {1}), T(DOUBLE, double, 1, DIMS(1), {2}),
                 T(DOUBLE, double, 1, DIMS(1), {4})), 0);
  CHECK(IS(r, DOUBLE, double, 1, DIMS(1), {7.0 / 3}));
  /* Max/Min propagate NaN from either side */
  ox_value *x = T(FLOAT, float, 1, DIMS(3), {NAN, 1, 5}), *y = T(FLOAT, float, 1, DIMS(3), {1, NAN, 2});
  CHECK_EQ_I(RUN("Max", 13, &r, x, y), 0);
  float *m = r ? r->u.t.data : NULL;
  CHECK(m && isnan(m[0]) && isnan(m[1]) && m[2] == 5);
  CHECK_EQ_I(RUN("Min", 13, &r, x, y), 0);
  m = r ? r->u.t.data : NULL;
  CHECK(m && isnan(m[0]) && isnan(m[1]) && m[2] == 2);
  /* uint64 extremes, exact */
  CHECK_EQ_I(RUN("Max", 13, &r, T(UINT64, uint64_t, 1, DIMS(2), {UINT64_MAX - 1, 0}),
                 T(UINT64, uint64_t, 1, DIMS(2), {UINT64_MAX, 1})), 0);
  CHECK(IS(r, UINT64, uint64_t, 1, DIMS(2), {UINT64_MAX, 1}));
  /* one input: itself */
  CHECK_EQ_I(RUN("Min", 13, &r, b), 0);
  CHECK(IS(r, FLOAT, float, 1, DIMS(3), {10, 20, 30}));
  /* before opset 8 the shapes must be equal */
  CHECK_FAILS(RUN("Sum", 6, &r, a, b), "shapes must be equal");
  /* float16: computed in float and rounded once: 0.1 + 0.2 + 0.3 -> 0.6 (0x38cd) */
  uint16_t h1 = ox_f32_to_f16(0.1f), h2 = ox_f32_to_f16(0.2f), h3 = ox_f32_to_f16(0.3f);
  CHECK_EQ_I(RUN("Sum", 13, &r, T(FLOAT16, uint16_t, 1, DIMS(1), {h1}), T(FLOAT16, uint16_t, 1, DIMS(1), {h2}),
                 T(FLOAT16, uint16_t, 1, DIMS(1), {h3})), 0);
  float want = ox_f16_to_f32(h1) + ox_f16_to_f32(h2) + ox_f16_to_f32(h3);
  CHECK(IS(r, FLOAT16, uint16_t, 1, DIMS(1), {ox_f32_to_f16(want)}));
  CHECK_EQ_I(((uint16_t *)r->u.t.data)[0], 0x38cd);
}

static void test_prelu_where(void) {
  ox_value *r;
  /* slope (3,) broadcasts to X (2, 3) */
  ox_value *x = T(FLOAT, float, 2, DIMS(2, 3), {-1, 2, -3, 4, -5, 6});
  CHECK_EQ_I(RUN("PRelu", 16, &r, x, T(FLOAT, float, 1, DIMS(3), {0.5f, 0.25f, 2})), 0);
  CHECK(IS(r, FLOAT, float, 2, DIMS(2, 3), {-0.5f, 2, -6, 4, -1.25f, 6}));
  /* slope (2,): not numpy-broadcastable, taken along X's dim of length 2 (channel) */
  CHECK_EQ_I(RUN("PRelu", 6, &r, x, T(FLOAT, float, 1, DIMS(2), {0.5f, 0.25f})), 0);
  CHECK(IS(r, FLOAT, float, 2, DIMS(2, 3), {-0.5f, 2, -1.5f, 4, -1.25f, 6}));
  /* slope may not grow X */
  CHECK_FAILS(RUN("PRelu", 16, &r, T(FLOAT, float, 1, DIMS(1), {-1}), T(FLOAT, float, 1, DIMS(4), {1, 2, 3, 4})),
              "does not broadcast");
  /* int32 PRelu */
  CHECK_EQ_I(RUN("PRelu", 16, &r, T(INT32, int32_t, 1, DIMS(2), {-3, 3}), T(INT32, int32_t, 1, DIMS(1), {2})), 0);
  CHECK(IS(r, INT32, int32_t, 1, DIMS(2), {-6, 3}));

  /* Where: cond (2, 1), X (1, 2) strings, Y scalar */
  ox_value *cond = T(BOOL, uint8_t, 2, DIMS(2, 1), {1, 0});
  ox_value *xs = T(STRING, ox_str, 2, DIMS(1, 2), {{"a", 1}, {"bc", 2}});
  ox_value *ys = T(STRING, ox_str, 0, DIMS(0), {{"z", 1}});
  CHECK_EQ_I(RUN("Where", 16, &r, cond, xs, ys), 0);
  ox_str *o = r ? r->u.t.data : NULL;
  CHECK(r && r->u.t.rank == 2 && r->u.t.dims[0] == 2 && r->u.t.dims[1] == 2);
  CHECK(o && !strcmp(o[0].p, "a") && !strcmp(o[1].p, "bc") && !strcmp(o[2].p, "z") && !strcmp(o[3].p, "z"));
  /* complex128 (16 bytes) and int8, all steps 1 */
  ox_value *c3 = T(BOOL, uint8_t, 1, DIMS(3), {0, 1, 0});
  CHECK_EQ_I(RUN("Where", 16, &r, c3, T(INT8, int8_t, 1, DIMS(3), {1, 2, 3}), T(INT8, int8_t, 1, DIMS(3), {-1, -2, -3})), 0);
  CHECK(IS(r, INT8, int8_t, 1, DIMS(3), {-1, 2, -3}));
  CHECK_EQ_I(RUN("Where", 16, &r, c3, T(COMPLEX128, ox_c128, 0, DIMS(0), {{1, 2}}),
                 T(COMPLEX128, ox_c128, 1, DIMS(3), {{3, 4}, {5, 6}, {7, 8}})), 0);
  CHECK(IS(r, COMPLEX128, ox_c128, 1, DIMS(3), {{3, 4}, {1, 2}, {7, 8}}));
  CHECK_FAILS(RUN("Where", 16, &r, T(INT32, int32_t, 1, DIMS(1), {1}), xs, ys), "must be bool");
  CHECK_FAILS(RUN("Where", 16, &r, cond, xs, T(FLOAT, float, 1, DIMS(1), {1})), "same type");
}

/* Rows of each op are ordered, without gaps or overlaps. */
/* float16 Add, Sub, Mul, Div are the float32 op on the widened inputs,
 * narrowed once: byte for byte narrow(op(widen(a), widen(b))) of the
 * float32 kernel run here, for the broadcasts a net has ((R, C) with (R,
 * C), with a (1, 1, 1, C) mask, with a scalar either side, (R, 1) with (1,
 * C)), runs with tails, at each float16 level (scalar, F16C, AVX-512F) and
 * on one and three threads. The operands hold NaNs (payloads, both signs),
 * +-Inf, -0, subnormals and values at rounding ties; one set has lanes with
 * two NaNs, which the in-register path hands back to the float kernel
 * (whose operand order picks the sign). */
static void test_float16_arith(void) {
  static const struct { int ra; int64_t da[4]; int rb; int64_t db[4]; } forms[] = {
      {2, {9, 37}, 2, {9, 37}}, {4, {1, 3, 5, 37}, 4, {1, 1, 1, 37}}, {2, {9, 37}, 0, {0}},
      {0, {0}, 2, {9, 37}},     {2, {9, 1}, 2, {1, 37}},             {1, {1500}, 1, {1500}}};
  static const char *ops[] = {"Add", "Sub", "Mul", "Div"};
  static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x83FF, 0x7BFF, 0xFBFF, 0x7C00,
                                     0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFD23, 0x3C01, 0x1400};
  int bad = 0, cases = 0;
  for (int nanpairs = 0; nanpairs < 2; nanpairs++)
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
      int64_t na = 1, nb = 1;
      for (int k = 0; k < forms[f].ra; k++) na *= forms[f].da[k];
      for (int k = 0; k < forms[f].rb; k++) nb *= forms[f].db[k];
      uint16_t *h[2] = {malloc(2 * (size_t)na), malloc(2 * (size_t)nb)};
      float *w[2] = {malloc(4 * (size_t)na), malloc(4 * (size_t)nb)};
      for (int t = 0; t < 2; t++)
        for (int64_t i = 0; i < (t ? nb : na); i++) {
          uint32_t r = kit_rnd32();
          uint16_t v = (uint16_t)r;
          if ((v & 0x7C00) == 0x7C00) v &= 0xBFFF; /* random NaNs and Infs made finite */
          if (r >> 16 & 1) v = special[(r >> 17) % (sizeof special / sizeof *special)];
          if (!nanpairs && (v & 0x7FFF) > 0x7C00 && t) v = 0x3C00; /* no NaN in b: never two */
          h[t][i] = v;
        }
      ox_f16_to_f32_n(h[0], w[0], na);
      ox_f16_to_f32_n(h[1], w[1], nb);
      for (int op = 0; op < 4; op++)
        for (int lv = 0; lv <= 2; lv++)
          for (int th = 1; th <= 3; th += 2) {
            ox_mark mk = ox_arena_mark(A);
            ox_value *zf = NULL, *zh = NULL;
            CHECK_EQ_I(RUN(ops[op], 14, &zf, tensor(OX_FLOAT, forms[f].ra, forms[f].da, w[0]),
                           tensor(OX_FLOAT, forms[f].rb, forms[f].db, w[1])), 0);
            ox_half_max_isa(lv);
            ox_set_threads(th), ox_par_set_min(th > 1 ? 0 : -1, th > 1 ? 0 : -1);
            CHECK_EQ_I(RUN(ops[op], 14, &zh, tensor(OX_FLOAT16, forms[f].ra, forms[f].da, h[0]),
                           tensor(OX_FLOAT16, forms[f].rb, forms[f].db, h[1])), 0);
            ox_set_threads(1), ox_par_set_min(-1, -1);
            ox_half_max_isa(-1);
            if (zf && zh && zf->u.t.n == zh->u.t.n) {
              int64_t n = zf->u.t.n;
              uint16_t *want = malloc(2 * (size_t)n);
              ox_f32_to_f16_n(zf->u.t.data, want, n);
              const uint16_t *got = zh->u.t.data;
              for (int64_t i = 0; i < n; i++)
                if (got[i] != want[i] && bad++ < 5)
                  fprintf(stderr, "float16 %s form %d level %d threads %d [%lld]: %04x, want %04x\n", ops[op],
                          (int)f, lv, th, (long long)i, got[i], want[i]);
              free(want);
              cases++;
            }
            ox_arena_release(A, mk);
          }
      for (int t = 0; t < 2; t++) free(h[t]), free(w[t]);
    }
  CHECK_EQ_I(cases, 2 * 6 * 4 * 3 * 2);
  CHECK_EQ_I(bad, 0);
}

/* The same in place: Z written over A (the evaluator offers an input that
 * dies), with lanes of two NaNs in some blocks, which are then computed
 * from A as it was. A (64, 1024) with a (1, 1024) row; the float32 op on
 * copies gives the bytes. */
static void test_float16_arith_in_place(void) {
  enum { R = 64, C = 1024 };
  uint16_t *h = malloc(2 * R * C), b[C];
  float *w = malloc(4 * R * C), wb[C];
  for (int i = 0; i < R * C; i++) {
    uint32_t r = kit_rnd32();
    h[i] = (uint16_t)(r & 0xBFFF); /* finite */
    if ((r >> 20) % 97 == 0) h[i] = (r >> 16 & 1) ? 0x7E00 : 0xFD23;
  }
  for (int i = 0; i < C; i++) b[i] = i % 300 == 7 ? 0x7E01 : (uint16_t)(kit_rnd32() & 0xBFFF);
  h[5 * C + 7] = 0xFE00, h[40 * C + 607] = 0x7E00, h[41 * C + 1] = 0xFC01; /* lanes of two NaNs */
  ox_f16_to_f32_n(h, w, R * C);
  ox_f16_to_f32_n(b, wb, C);
  for (int op = 0; op < 4; op++) {
    static const char *ops[] = {"Add", "Sub", "Mul", "Div"};
    ox_value *zf = NULL, *zh = NULL;
    CHECK_EQ_I(RUN(ops[op], 14, &zf, tensor(OX_FLOAT, 2, (int64_t[]){R, C}, w), tensor(OX_FLOAT, 2, (int64_t[]){1, C}, wb)), 0);
    ox_live_begin(A);
    ox_value *a = tensor(OX_FLOAT16, 2, (int64_t[]){R, C}, h);
    ox_live_ref(A, a->u.t.data);
    ox_live_offer(A, a->u.t.data);
    CHECK_EQ_I(RUN(ops[op], 14, &zh, a, tensor(OX_FLOAT16, 2, (int64_t[]){1, C}, b)), 0);
    ox_live_offers_end(A);
    CHECK(zh && zh->u.t.data == a->u.t.data); /* written over A */
    if (zf && zh) {
      uint16_t *want = malloc(2 * R * C);
      ox_f32_to_f16_n(zf->u.t.data, want, R * C);
      CHECK(!memcmp(zh->u.t.data, want, 2 * R * C));
      free(want);
    }
    ox_live_end(A);
  }
  free(h);
  free(w);
}

/* A lane whose operands are both NaN: Add and Mul give the first operand's
 * NaN (quieted), as Sub and Div do, wherever the lane falls in a row (the
 * vector body or its tail: rows of 1 to 40, a row either side or held) and
 * on one and three threads; float16 the same rounded (the canonical NaN of
 * a's sign), at each float16 level. The old float32 kernel let the compiler
 * order the operands, differently in its vector body and its tail. */
static void test_nan_pairs(void) {
  static const char *ops[] = {"Add", "Mul"};
  float x[40], y[40];
  uint16_t hx[40], hy[40];
  for (int i = 0; i < 40; i++) {
    uint32_t u = i % 3 ? 0xFFC00001u : 0xFF800001u, v = 0x7FC00002u; /* -qNaN, -sNaN; +qNaN */
    memcpy(&x[i], &u, 4), memcpy(&y[i], &v, 4);
    hx[i] = i % 3 ? 0xFD23 : 0xFC01, hy[i] = 0x7E01;
  }
  int bad = 0;
  for (int op = 0; op < 2; op++)
    for (int form = 0; form < 3; form++) /* 0: rows; 1: a held; 2: b held */
      for (int64_t len = 1; len <= 40; len++)
        for (int th = 1; th <= 3; th += 2)
          for (int lv = -1; lv <= 2; lv++) {
            ox_mark mk = ox_arena_mark(A);
            int64_t one = 1;
            ox_value *zf = NULL, *zh = NULL;
            ox_set_threads(th), ox_par_set_min(th > 1 ? 0 : -1, th > 1 ? 0 : -1);
            ox_half_max_isa(lv);
            CHECK_EQ_I(RUN(ops[op], 14, &zf, tensor(OX_FLOAT, 1, form == 1 ? &one : &len, x),
                           tensor(OX_FLOAT, 1, form == 2 ? &one : &len, y)), 0);
            CHECK_EQ_I(RUN(ops[op], 14, &zh, tensor(OX_FLOAT16, 1, form == 1 ? &one : &len, hx),
                           tensor(OX_FLOAT16, 1, form == 2 ? &one : &len, hy)), 0);
            ox_half_max_isa(-1);
            ox_set_threads(1), ox_par_set_min(-1, -1);
            for (int64_t i = 0; zf && zh && i < len; i++) {
              uint32_t got, want;
              float xi = x[form == 1 ? 0 : i];
              memcpy(&got, (float *)zf->u.t.data + i, 4), memcpy(&want, &xi, 4);
              want |= 0x400000; /* quieted */
              uint16_t h = ((uint16_t *)zh->u.t.data)[i];
              if ((got != want || h != 0xFE00) && bad++ < 5)
                fprintf(stderr, "%s form %d len %lld threads %d level %d [%lld]: %08x %04x, want %08x fe00\n",
                        ops[op], form, (long long)len, th, lv, (long long)i, (unsigned)got, h, (unsigned)want);
            }
            ox_arena_release(A, mk);
          }
  CHECK_EQ_I(bad, 0);
}

static void test_table(void) {
  extern const ox_kernel ox_binary_kernels[];
  check_rows(ox_binary_kernels, NULL, 0);
  CHECK_EQ_I(ox_registry_find("", "Add", 13)->since, 13);
  CHECK(ox_registry_find("", "Mod", 9) == NULL);
  CHECK(ox_registry_find("", "Equal", 19)->types & OX_T(STRING));
  CHECK(!(ox_registry_find("", "Equal", 18)->types & OX_T(STRING)));
}

int main(void) {
  A = ox_arena_new();
  test_float16_arith();
  test_float16_arith_in_place();
  test_nan_pairs();
  test_table();
  test_arith_broadcast();
  test_legacy_broadcast();
  test_div_mod();
  test_compare();
  test_bits();
  test_pow();
  test_variadic();
  test_prelu_where();
  ox_arena_free(A);
  return check_done("binary");
}
