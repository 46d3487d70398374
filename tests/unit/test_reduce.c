/* tests/unit/test_reduce.c: the reductions, ArgMax/ArgMin and the softmax
 * family, called through the registry with a hand-made node. Expected values
 * are computed here independently (naive loops, hand arithmetic). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "core/cpu.h"
#include "core/half.h"
#include "core/threads.h"

#define DIMS(...) (int64_t[]){__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, dims, (float[])__VA_ARGS__)
#define I64V(n, ...) tensor(OX_INT64, 1, DIMS(n), (int64_t[])__VA_ARGS__)

#define CLOSE(v, n, ...) close_r(v, n, (float[])__VA_ARGS__, 1e-6)

/* Float elements within a relative tolerance (and 1e-7 absolute). */
static int close_r(const ox_value *v, int64_t n, const float *want, double rtol) {
  return close_f32(v, n, want, 1e-7, rtol);
}

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, 1, out);
}

/* x: (2, 3, 4) = 0 .. 23 */
static ox_value *x234(void) {
  float d[24];
  for (int i = 0; i < 24; i++) d[i] = (float)i;
  return tensor(OX_FLOAT, 3, DIMS(2, 3, 4), d);
}

/* Non-contiguous axes {0, 2} against a naive triple loop, every op that is a
 * plain fold; and the shape with and without keepdims. */
static void test_axes_odometer(void) {
  ox_value *y;
  int64_t ax[] = {0, 2};
  ox_attr at[] = {attr_ints("axes", 2, ax), attr_int("keepdims", 1)};
  CHECK_EQ_I(run("ReduceSum", 11, 2, at, 1, (ox_value *[]){x234()}, &y), 0);
  CHECK(shape_is(y, 3, DIMS(1, 3, 1)));
  float want[3] = {0};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++) want[j] += (float)(i * 12 + j * 4 + k);
  CHECK(close_r(y, 3, want, 1e-6));

  /* the same axes as input 1 at opset 18, keepdims 0, negative axis */
  ox_attr kd0 = attr_int("keepdims", 0);
  CHECK_EQ_I(run("ReduceMax", 18, 1, &kd0, 2, (ox_value *[]){x234(), I64V(2, {-1, 0})}, &y), 0);
  CHECK(shape_is(y, 1, DIMS(3)));
  CHECK(CLOSE(y, 3, {15, 19, 23}));

  /* middle axis only: the run (inner 4) is kept, accumulated row-wise */
  int64_t ax1[] = {1};
  ox_attr a1 = attr_ints("axes", 1, ax1);
  CHECK_EQ_I(run("ReduceMean", 13, 1, &a1, 1, (ox_value *[]){x234()}, &y), 0);
  CHECK(shape_is(y, 3, DIMS(2, 1, 4)));
  CHECK(CLOSE(y, 8, {4, 5, 6, 7, 16, 17, 18, 19}));

  /* ReduceProd over the last axis of row 0: 0*1*2*3, 4*5*6*7, 8*9*10*11 */
  int64_t ax2[] = {2};
  ox_attr a2 = attr_ints("axes", 1, ax2);
  CHECK_EQ_I(run("ReduceProd", 13, 1, &a2, 1, (ox_value *[]){x234()}, &y), 0);
  CHECK(CLOSE(y, 6, {0, 840, 7920, 32760, 93024, 212520}));

  /* default: all axes */
  CHECK_EQ_I(run("ReduceL1", 1, 0, NULL, 1, (ox_value *[]){x234()}, &y), 0);
  CHECK(shape_is(y, 3, DIMS(1, 1, 1)));
  CHECK(CLOSE(y, 1, {276}));
  CHECK_EQ_I(run("ReduceSumSquare", 13, 0, NULL, 1, (ox_value *[]){x234()}, &y), 0);
  CHECK(CLOSE(y, 1, {4324})); /* sum of i^2, i < 24 = 23*24*47/6 */
  CHECK_EQ_I(run("ReduceL2", 18, 0, NULL, 1, (ox_value *[]){x234()}, &y), 0);
  CHECK(CLOSE(y, 1, {65.757128}));
}

/* noop_with_empty_axes: an empty (or absent) axes input reduces nothing, but
 * the composite ops still apply their elementwise steps. */
static void test_noop(void) {
  ox_value *y, *x = F32(1, DIMS(3), {1, 4, 9});
  ox_value *empty = tensor(OX_INT64, 1, DIMS(0), NULL);
  ox_attr noop = attr_int("noop_with_empty_axes", 1);
  CHECK_EQ_I(run("ReduceSum", 13, 1, &noop, 2, (ox_value *[]){x, empty}, &y), 0);
  CHECK(shape_is(y, 1, DIMS(3)) && CLOSE(y, 3, {1, 4, 9}));
  CHECK_EQ_I(run("ReduceSum", 13, 1, &noop, 1, (ox_value *[]){x}, &y), 0);
  CHECK(CLOSE(y, 3, {1, 4, 9}));
  CHECK_EQ_I(run("ReduceSumSquare", 18, 1, &noop, 2, (ox_value *[]){x, empty}, &y), 0);
  CHECK(CLOSE(y, 3, {1, 16, 81}));
  CHECK_EQ_I(run("ReduceLogSum", 18, 1, &noop, 2, (ox_value *[]){x, empty}, &y), 0);
  CHECK(CLOSE(y, 3, {0, 1.3862944f, 2.1972246f}));
  CHECK_EQ_I(run("ReduceL2", 18, 1, &noop, 1, (ox_value *[]){x}, &y), 0);
  CHECK(CLOSE(y, 3, {1, 4, 9}));
  /* without noop, empty axes mean all axes */
  CHECK_EQ_I(run("ReduceSum", 13, 0, NULL, 2, (ox_value *[]){x, empty}, &y), 0);
  CHECK(shape_is(y, 1, DIMS(1)) && CLOSE(y, 1, {14}));
}

/* Reductions over an empty set give the op's identity. */
static void test_empty_set(void) {
  ox_value *y;
  int64_t ax[] = {1};
  ox_attr a = attr_ints("axes", 1, ax);
  ox_value *xf = tensor(OX_FLOAT, 2, DIMS(2, 0), NULL);
  CHECK_EQ_I(run("ReduceSum", 11, 1, &a, 1, (ox_value *[]){xf}, &y), 0);
  CHECK(shape_is(y, 2, DIMS(2, 1)) && CLOSE(y, 2, {0, 0}));
  CHECK_EQ_I(run("ReduceProd", 11, 1, &a, 1, (ox_value *[]){xf}, &y), 0);
  CHECK(CLOSE(y, 2, {1, 1}));
  CHECK_EQ_I(run("ReduceMax", 13, 1, &a, 1, (ox_value *[]){xf}, &y), 0);
  CHECK(CLOSE(y, 2, {-INFINITY, -INFINITY}));
  CHECK_EQ_I(run("ReduceMin", 13, 1, &a, 1, (ox_value *[]){xf}, &y), 0);
  CHECK(CLOSE(y, 2, {INFINITY, INFINITY}));
  CHECK_EQ_I(run("ReduceLogSum", 13, 1, &a, 1, (ox_value *[]){xf}, &y), 0);
  CHECK(CLOSE(y, 2, {-INFINITY, -INFINITY}));
  CHECK_EQ_I(run("ReduceLogSumExp", 13, 1, &a, 1, (ox_value *[]){xf}, &y), 0);
  CHECK(CLOSE(y, 2, {-INFINITY, -INFINITY}));
  CHECK_EQ_I(run("ReduceMean", 13, 1, &a, 1, (ox_value *[]){xf}, &y), 0);
  CHECK(CLOSE(y, 2, {NAN, NAN}));

  /* integers: the type's min for Max, its max for Min */
  ox_value *xi = tensor(OX_INT32, 2, DIMS(2, 0), NULL);
  CHECK_EQ_I(run("ReduceMax", 13, 1, &a, 1, (ox_value *[]){xi}, &y), 0);
  CHECK_EQ_I(((int32_t *)y->u.t.data)[1], INT32_MIN);
  ox_value *xu = tensor(OX_UINT8, 2, DIMS(2, 0), NULL);
  CHECK_EQ_I(run("ReduceMin", 13, 1, &a, 1, (ox_value *[]){xu}, &y), 0);
  CHECK_EQ_I(((uint8_t *)y->u.t.data)[0], 255);
  /* bool (from 20): Min over nothing is True, Max is False */
  ox_value *xb = tensor(OX_BOOL, 2, DIMS(2, 0), NULL);
  CHECK_EQ_I(run("ReduceMin", 20, 0, NULL, 2, (ox_value *[]){xb, I64V(1, {1})}, &y), 0);
  CHECK(y->u.t.dt == OX_BOOL && ((uint8_t *)y->u.t.data)[0] == 1);
  CHECK_EQ_I(run("ReduceMax", 20, 0, NULL, 2, (ox_value *[]){xb, I64V(1, {1})}, &y), 0);
  CHECK_EQ_I(((uint8_t *)y->u.t.data)[0], 0);
  /* bool values: Max is any, Min is all */
  ox_value *b = tensor(OX_BOOL, 2, DIMS(2, 2), (uint8_t[]){1, 0, 1, 1});
  CHECK_EQ_I(run("ReduceMin", 20, 0, NULL, 2, (ox_value *[]){b, I64V(1, {1})}, &y), 0);
  CHECK(((uint8_t *)y->u.t.data)[0] == 0 && ((uint8_t *)y->u.t.data)[1] == 1);
}

static void test_precision(void) {
  ox_value *y;
  /* int64 sums stay exact past 2^53 */
  int64_t big = (INT64_C(1) << 53) + 1;
  ox_value *xi = tensor(OX_INT64, 1, DIMS(3), (int64_t[]){big, 2, big});
  CHECK_EQ_I(run("ReduceSum", 1, 0, NULL, 1, (ox_value *[]){xi}, &y), 0);
  CHECK_EQ_I(*(int64_t *)y->u.t.data, 2 * big + 2);
  /* integer Mean truncates toward zero: (-7 + 0) / 2 = -3 */
  ox_value *x32 = tensor(OX_INT32, 1, DIMS(2), (int32_t[]){-7, 0});
  CHECK_EQ_I(run("ReduceMean", 1, 0, NULL, 1, (ox_value *[]){x32}, &y), 0);
  CHECK_EQ_I(*(int32_t *)y->u.t.data, -3);
  /* a float sum of 2^24 + 4 ones: float accumulation would stop at 2^24 */
  int64_t n = (1 << 24) + 4;
  ox_value *x = tensor(OX_FLOAT, 1, &n, NULL);
  for (int64_t i = 0; i < n; i++) ((float *)x->u.t.data)[i] = 1.0f;
  CHECK_EQ_I(run("ReduceSum", 13, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  CHECK_EQ_I((int64_t)*(float *)y->u.t.data, n);
  /* LogSumExp of large values does not overflow: log(e^1000 + e^1000) */
  ox_value *xl = F32(1, DIMS(3), {1000, 1000, -INFINITY});
  CHECK_EQ_I(run("ReduceLogSumExp", 13, 0, NULL, 1, (ox_value *[]){xl}, &y), 0);
  CHECK(CLOSE(y, 1, {1000.6931472f}));
  /* float16: 0.1 + 0.2 + 0.9 summed in float, rounded once: 0x3CCD = 1.2001953 */
  ox_value *xh = tensor(OX_FLOAT16, 1, DIMS(3),
                        (uint16_t[]){ox_f32_to_f16(0.1f), ox_f32_to_f16(0.2f), ox_f32_to_f16(0.9f)});
  CHECK_EQ_I(run("ReduceSum", 13, 0, NULL, 1, (ox_value *[]){xh}, &y), 0);
  CHECK(y->u.t.dt == OX_FLOAT16);
  CHECK_EQ_I(*(uint16_t *)y->u.t.data, 0x3CCD);
  /* NaN propagates through Max */
  ox_value *xn = F32(1, DIMS(3), {1, NAN, 3});
  CHECK_EQ_I(run("ReduceMax", 13, 0, NULL, 1, (ox_value *[]){xn}, &y), 0);
  CHECK(isnan(*(float *)y->u.t.data));
}

/* Odd corners: a full reduction without keepdims is a scalar; LogSumExp of
 * infinities; integer L2 and LogSum truncate; a scalar input reduces to
 * itself. */
static void test_corners(void) {
  ox_value *y;
  ox_attr kd0 = attr_int("keepdims", 0);
  CHECK_EQ_I(run("ReduceSum", 11, 1, &kd0, 1, (ox_value *[]){x234()}, &y), 0);
  CHECK(shape_is(y, 0, NULL) && CLOSE(y, 1, {276}));
  CHECK_EQ_I(run("ReduceLogSumExp", 18, 0, NULL, 1,
                 (ox_value *[]){F32(1, DIMS(2), {INFINITY, 1})}, &y), 0);
  CHECK(CLOSE(y, 1, {INFINITY}));
  CHECK_EQ_I(run("ReduceLogSumExp", 18, 0, NULL, 1,
                 (ox_value *[]){F32(1, DIMS(2), {-INFINITY, -INFINITY})}, &y), 0);
  CHECK(CLOSE(y, 1, {-INFINITY}));
  /* sqrt(3^2 + 4^2 + 1) = 5.099 -> 5 */
  ox_value *xi = tensor(OX_INT32, 1, DIMS(3), (int32_t[]){3, -4, 1});
  CHECK_EQ_I(run("ReduceL2", 13, 0, NULL, 1, (ox_value *[]){xi}, &y), 0);
  CHECK_EQ_I(*(int32_t *)y->u.t.data, 5);
  CHECK_EQ_I(run("ReduceL1", 13, 0, NULL, 1, (ox_value *[]){xi}, &y), 0);
  CHECK_EQ_I(*(int32_t *)y->u.t.data, 8);
  /* int64 min: |x| wraps as numpy's abs does, no undefined behaviour */
  ox_value *xm = tensor(OX_INT64, 1, DIMS(2), (int64_t[]){INT64_MIN, 5});
  CHECK_EQ_I(run("ReduceMin", 13, 0, NULL, 1, (ox_value *[]){xm}, &y), 0);
  CHECK(*(int64_t *)y->u.t.data == INT64_MIN);
  CHECK_EQ_I(run("ReduceProd", 13, 0, NULL, 1, (ox_value *[]){xm}, &y), 0);
  CHECK(*(int64_t *)y->u.t.data == INT64_MIN); /* -2^63 * 5 wraps to -2^63 */
  /* a scalar: no axes to reduce, the value comes back (squared here) */
  CHECK_EQ_I(run("ReduceSumSquare", 13, 0, NULL, 1, (ox_value *[]){tensor(OX_FLOAT, 0, NULL, (float[]){3})}, &y), 0);
  CHECK(shape_is(y, 0, NULL) && CLOSE(y, 1, {9}));
  /* a long reduced run with a tail (len % 4 != 0) and per-row outputs */
  float d[2 * 7];
  for (int i = 0; i < 14; i++) d[i] = (float)(i % 7 == 3 ? 50 + i : i);
  int64_t ax[] = {1};
  ox_attr a = attr_ints("axes", 1, ax);
  CHECK_EQ_I(run("ReduceMax", 13, 1, &a, 1, (ox_value *[]){tensor(OX_FLOAT, 2, DIMS(2, 7), d)}, &y), 0);
  CHECK(CLOSE(y, 2, {53, 60}));
  CHECK_EQ_I(run("ReduceSum", 11, 1, &a, 1, (ox_value *[]){tensor(OX_FLOAT, 2, DIMS(2, 7), d)}, &y), 0);
  CHECK(CLOSE(y, 2, {0 + 1 + 2 + 53 + 4 + 5 + 6, 7 + 8 + 9 + 60 + 11 + 12 + 13}));
}

static void test_errors(void) {
  ox_value *y;
  int64_t dup[] = {1, -2};
  ox_attr a = attr_ints("axes", 2, dup);
  CHECK_FAILS(run("ReduceSum", 11, 1, &a, 1, (ox_value *[]){x234()}, &y), "twice");
  int64_t oob[] = {3};
  ox_attr b = attr_ints("axes", 1, oob);
  CHECK_FAILS(run("ReduceMin", 11, 1, &b, 1, (ox_value *[]){x234()}, &y), "out of range");
  CHECK_FAILS(run("ReduceMean", 18, 0, NULL, 2, (ox_value *[]){x234(), I64V(1, {-4})}, &y),
              "out of range");
  CHECK_FAILS(run("ReduceMean", 18, 1, &b, 1, (ox_value *[]){x234()}, &y), "axes");
  ox_attr ax = attr_int("axis", 2);
  CHECK_FAILS(run("ArgMax", 13, 1, &ax, 1, (ox_value *[]){F32(1, DIMS(2), {1, 2})}, &y),
              "out of range");
  ox_attr ax1 = attr_int("axis", 1);
  CHECK_FAILS(run("ArgMin", 13, 1, &ax1, 1, (ox_value *[]){tensor(OX_FLOAT, 2, DIMS(2, 0), NULL)}, &y),
              "size 0");
}

static void test_arg(void) {
  ox_value *y, *x = F32(2, DIMS(2, 3), {2, 5, 5, 7, 1, 7});
  ox_attr at[] = {attr_int("axis", 1), attr_int("keepdims", 0), attr_int("select_last_index", 1)};
  CHECK_EQ_I(run("ArgMax", 13, 2, at, 1, (ox_value *[]){x}, &y), 0);
  CHECK(shape_is(y, 1, DIMS(2)));
  CHECK(((int64_t *)y->u.t.data)[0] == 1 && ((int64_t *)y->u.t.data)[1] == 0);
  CHECK_EQ_I(run("ArgMax", 13, 3, at, 1, (ox_value *[]){x}, &y), 0);
  CHECK(((int64_t *)y->u.t.data)[0] == 2 && ((int64_t *)y->u.t.data)[1] == 2);
  /* axis 0 (default), keepdims: (1, 3) */
  CHECK_EQ_I(run("ArgMin", 11, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  CHECK(shape_is(y, 2, DIMS(1, 3)));
  int64_t *r = y->u.t.data;
  CHECK(r[0] == 0 && r[1] == 1 && r[2] == 0);
  /* NaN is the extreme for both, the first one found */
  ox_value *xn = F32(1, DIMS(4), {1, NAN, 9, NAN});
  CHECK_EQ_I(run("ArgMin", 13, 0, NULL, 1, (ox_value *[]){xn}, &y), 0);
  CHECK_EQ_I(*(int64_t *)y->u.t.data, 1);
  /* uint64 beyond double's precision */
  ox_value *xu = tensor(OX_UINT64, 1, DIMS(2), (uint64_t[]){UINT64_MAX - 1, UINT64_MAX});
  CHECK_EQ_I(run("ArgMax", 13, 0, NULL, 1, (ox_value *[]){xu}, &y), 0);
  CHECK_EQ_I(*(int64_t *)y->u.t.data, 1);
}

/* Before 13, x is coerced to 2-D at axis; from 13, axis is one dim. */
static void test_softmax_axis(void) {
  ox_value *y, *x = F32(3, DIMS(1, 2, 2), {0, 1, 2, 3});
  ox_attr ax = attr_int("axis", 1);
  double e0 = 1, e1 = exp(1.0), e2 = exp(2.0), e3 = exp(3.0), s = e0 + e1 + e2 + e3;
  CHECK_EQ_I(run("Softmax", 11, 1, &ax, 1, (ox_value *[]){x}, &y), 0);
  CHECK(shape_is(y, 3, DIMS(1, 2, 2)));
  CHECK(close_r(y, 4, (float[]){(float)(e0 / s), (float)(e1 / s), (float)(e2 / s), (float)(e3 / s)}, 1e-6));
  CHECK_EQ_I(run("Softmax", 13, 1, &ax, 1, (ox_value *[]){x}, &y), 0);
  float a = (float)(1 / (1 + e2)), b = (float)(e2 / (1 + e2));
  CHECK(close_r(y, 4, (float[]){a, a, b, b}, 1e-6));
  /* default axis: 1 before 13 (rows of 4), -1 from 13 (pairs) */
  CHECK_EQ_I(run("LogSoftmax", 1, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  CHECK(close_r(y, 4, (float[]){(float)-log(s), (float)(1 - log(s)), (float)(2 - log(s)),
                                  (float)(3 - log(s))}, 1e-6));
  CHECK_EQ_I(run("LogSoftmax", 13, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  float l = (float)-log(1 + e1);
  CHECK(close_r(y, 4, (float[]){l, 1 + l, l, 1 + l}, 1e-6));
  /* large values: no overflow */
  CHECK_EQ_I(run("LogSoftmax", 13, 0, NULL, 1, (ox_value *[]){F32(1, DIMS(2), {1000, 1000})}, &y), 0);
  CHECK(CLOSE(y, 2, {-0.6931472f, -0.6931472f}));
  /* Hardmax: 1 at the first maximum only */
  ox_value *xh = F32(2, DIMS(2, 3), {3, 7, 7, 1, 0, -1});
  CHECK_EQ_I(run("Hardmax", 13, 0, NULL, 1, (ox_value *[]){xh}, &y), 0);
  CHECK(CLOSE(y, 6, {0, 1, 0, 1, 0, 0}));
  ox_attr ax0 = attr_int("axis", 0);
  CHECK_EQ_I(run("Hardmax", 11, 1, &ax0, 1, (ox_value *[]){xh}, &y), 0); /* all 6 as one row */
  CHECK(CLOSE(y, 6, {0, 1, 0, 0, 0, 0}));
}

/* |got - want| in ULPs of float at want (its subnormals' spacing below the
 * least normal) */
static double ulps(float got, long double want) {
  int e;
  frexpl(want, &e);
  long double u = ldexpl(1, (e - 24 < -149 ? -149 : e - 24));
  return (double)(fabsl((long double)got - want) / u);
}
/* Softmax and LogSoftmax along rows of every length from 1 to 48 and of
 * 197 and 1003, whose ends are not a whole vector (the row kernel's last,
 * overlapping vector), against long double: within test_ulp.c's bounds (7
 * and 1.5 ULPs), three rows each, uniform in [-8, 8). */
static void test_softmax_rows(void) {
  enum { R = 3, MAXN = 1003 };
  static float xs[R * MAXN];
  double worst[2] = {0, 0};
  for (int k = 1; k <= 50; k++) {
    int n = k <= 48 ? k : k == 49 ? 197 : MAXN;
    for (int i = 0; i < R * n; i++) xs[i] = (float)((double)kit_rnd32() / 268435456.0 - 8);
    for (int lg = 0; lg < 2; lg++) {
      ox_mark mk = ox_arena_mark(A);
      ox_value *y = NULL;
      ox_attr ax = attr_int("axis", -1);
      CHECK_EQ_I(run(lg ? "LogSoftmax" : "Softmax", 13, 1, &ax, 1,
                     (ox_value *[]){tensor(OX_FLOAT, 2, DIMS(R, n), xs)}, &y), 0);
      for (int r = 0; y && r < R; r++) {
        const float *x = xs + r * n, *got = (const float *)y->u.t.data + r * n;
        long double m = -INFINITY, s = 0;
        for (int j = 0; j < n; j++) m = x[j] > m ? x[j] : m;
        for (int j = 0; j < n; j++) s += expl(x[j] - m);
        for (int j = 0; j < n; j++) {
          double e = ulps(got[j], lg ? (x[j] - m) - logl(s) : expl(x[j] - m) / s);
          if (e > worst[lg]) worst[lg] = e;
          if (e > (lg ? 1.5 : 7) && worst[lg] == e)
            fprintf(stderr, "%s row of %d, [%d]: %.2f ULPs\n", lg ? "LogSoftmax" : "Softmax", n, j, e);
        }
      }
      ox_arena_release(A, mk);
    }
  }
  CHECK(worst[0] <= 7);
  CHECK(worst[1] <= 1.5);
}

/* The float Softmax/LogSoftmax kernel (ops/reduce_rows.h) element by
 * element, in its documented expressions and order of operations: the
 * maximum (the first of 0 and -0 in the order lane k of the whole 16-float
 * vectors, the lanes in turn, then the last n % 16), e^(x - m) as Cephes'
 * expf with x - m carried by two-sum, the sum in 16 float lanes folded into
 * double every 64 vectors then the tail in order (LogSoftmax: in double
 * lanes, lanes k and k + 8 paired), e * (float)(1/s) or (x - m) -
 * log1p(s - 1). The kernel's builds for AVX2 and AVX-512 fuse the
 * multiply-adds (fmaf here), the generic one on x86-64 does not. This
 * file's own a * b + c stay two roundings: gcc contracts nothing in ISO C
 * (-std=c11), and x86-64's baseline has no FMA to contract into. */
static int ref_fused;
static float fmadd(float a, float b, float c) { return ref_fused ? fmaf(a, b, c) : a * b + c; }
static float ref_exp(float x, float m) {
  float mm = 0.f + m;
  float t = x - mm, a = t + mm, b = t - a, err = (x - a) + (-mm - b);
  int under = -87.33654f > t;
  if (under) t = 0;
  float k = fmadd(t, 1.44269504088896341f, 12582912.f), n = k - 12582912.f;
  float r = fmadd(-n, 0.693359375f, t);
  r = r + fmadd(n, 2.12194440e-4f, err);
  float p = 1.9875691500e-4f;
  p = fmadd(p, r, 1.3981999507e-3f);
  p = fmadd(p, r, 8.3334519073e-3f);
  p = fmadd(p, r, 4.1665795894e-2f);
  p = fmadd(p, r, 1.6666665459e-1f);
  p = fmadd(p, r, 5.0000001201e-1f);
  p = fmadd(p * r, r, r) + 1.f;
  uint32_t kb, eb;
  float s;
  memcpy(&kb, &k, 4);
  eb = (kb + (uint32_t)(127 - 0x4B400000)) << 23;
  memcpy(&s, &eb, 4);
  return under ? 0.f : p * s;
}
static void ref_soft(const float *x, float *y, int n, int lg) {
  int nv = n / 16 * 16;
  float vm[16], m = -INFINITY;
  for (int q = 0; q < 16; q++) vm[q] = -INFINITY;
  for (int i = 0; i < nv; i++) vm[i % 16] = x[i] > vm[i % 16] ? x[i] : vm[i % 16];
  for (int q = 0; q < 16; q++) m = vm[q] > m ? vm[q] : m;
  for (int j = nv; j < n; j++) m = x[j] > m ? x[j] : m;
  double s = 0;
  if (!lg) {
    for (int b = 0; b < nv; b += 1024) {
      float vs[16] = {0};
      for (int i = b; i < nv && i < b + 1024; i++) vs[i % 16] += (y[i] = ref_exp(x[i], m));
      for (int q = 0; q < 16; q++) s += vs[q];
    }
    for (int j = nv; j < n; j++) s += (y[j] = ref_exp(x[j], m));
    float f = (float)(1 / s);
    for (int j = 0; j < n; j++) y[j] = y[j] * f;
  } else {
    double s0[16] = {0};
    for (int i = 0; i < nv; i++) s0[i % 16] += ref_exp(x[i], m);
    for (int q = 0; q < 8; q++) s += s0[q] + s0[q + 8];
    for (int j = nv; j < n; j++) s += ref_exp(x[j], m);
    float ls = (float)log1p(s - 1);
    for (int j = 0; j < n; j++) y[j] = (x[j] - m) - ls;
  }
}

static float hostile(int kind, int i, int n, float base) {
  uint32_t r = kit_rnd32(), u;
  float f;
  double un = (double)kit_rnd32() / 4294967296.0;
  switch (kind) {
  case 0: return (float)(un * 16 - 8);
  case 1: return (float)((un - 0.5) * 200); /* lanes that underflow, folds not exact */
  case 2:
    switch (r % 23) {
    case 0: u = 0x7fc00000u | (kit_rnd32() & 0x3fffff); break;
    case 1: u = 0xffc00000u | (kit_rnd32() & 0x3fffff); break;
    case 2: return INFINITY;
    case 3: return -INFINITY;
    case 4: return -0.f;
    case 5: return 0.f;
    case 6: return 3e38f;
    case 7: return -3e38f;
    case 8: u = kit_rnd32() & 0x807fffffu; break; /* subnormal */
    default: return (float)(un * 16 - 8);
    }
    memcpy(&f, &u, 4);
    return f;
  case 3: /* any bits */
    memcpy(&f, &r, 4);
    return f;
  case 4: return r % 3 == 0 ? -0.f : r % 3 == 1 ? 0.f : -(float)un * 100; /* a zero maximum */
  case 5: return i == (int)(r % (uint32_t)n) ? 50.f : base - 87.33654f + (float)(un - 0.5) * 2; /* near underflow */
  case 6: return -INFINITY;
  case 7: return r % 5 ? -INFINITY : (float)un;
  case 8: return base + (float)((un - 0.5) * 1e-3); /* large, close together */
  case 9: return (float)(un * 30 - 30);
  case 10: return r % 7 ? -1e4f + (float)un : (float)un; /* masked */
  case 11: return r % 2 ? 1e-30f * (float)un : 1.f + (float)un; /* x - m inexact */
  case 12: return (float)(un * 20 - 20) + (i % 16 == 3 ? -200.f : 0.f); /* one lane underflows */
  default: return 0;
  }
}

/* Softmax and LogSoftmax of float rows of every length from 1 to 300 and
 * some of 1000 to 2100 (whole vectors, part vectors, one block of lane sums
 * and more), 13 kinds of data (NaN of both signs, +-inf, -inf rows, 0 and
 * -0 maxima, subnormals, huge values, values at expf's underflow, lanes
 * that underflow), against ref_soft: the same bits, or NaN where it gives
 * NaN. On x86-64 only (where the fusing of each build is known). */
static void test_softmax_bits(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  enum { KINDS = 13, MAXN = 2100 };
  static float xs[KINDS * MAXN], want[MAXN];
  static const int longer[] = {1000, 1023, 1024, 1025, 1039, 1040, 1041, 1056, 2048, 2100};
  ref_fused = ox_cpu_level() >= OX_CPU_AVX2;
  long bad = 0, rows = 0;
  for (int li = 0; li < 300 + (int)(sizeof longer / sizeof *longer); li++) {
    int n = li < 300 ? li + 1 : longer[li - 300];
    for (int k = 0; k < KINDS; k++) {
      float base = k == 8 ? (float)((int32_t)kit_rnd32() % 1000000) : (float)(kit_rnd32() % 10);
      for (int i = 0; i < n; i++) xs[k * n + i] = hostile(k, i, n, base);
    }
    for (int lg = 0; lg < 2; lg++) {
      ox_mark mk = ox_arena_mark(A);
      ox_value *y = NULL;
      ox_attr ax = attr_int("axis", -1);
      CHECK_EQ_I(run(lg ? "LogSoftmax" : "Softmax", 13, 1, &ax, 1,
                     (ox_value *[]){tensor(OX_FLOAT, 2, DIMS(KINDS, n), xs)}, &y), 0);
      for (int k = 0; y && k < KINDS; k++, rows++) {
        const float *got = (const float *)y->u.t.data + k * n;
        ref_soft(xs + k * n, want, n, lg);
        for (int j = 0; j < n; j++) {
          uint32_t a, b;
          memcpy(&a, got + j, 4), memcpy(&b, want + j, 4);
          if (a != b && !(got[j] != got[j] && want[j] != want[j])) {
            if (bad++ < 5)
              fprintf(stderr, "%s row of %d, kind %d, [%d]: %08x, want %08x\n",
                      lg ? "LogSoftmax" : "Softmax", n, k, j, (unsigned)a, (unsigned)b);
            break;
          }
        }
      }
      ox_arena_release(A, mk);
    }
  }
  CHECK_EQ_I(rows, 2 * KINDS * 310);
  CHECK_EQ_I(bad, 0);
#endif
}

/* The softmax family on float16 and bfloat16 is the float32 kernel on the
 * widened input, narrowed once: byte for byte narrow(op(widen(x))), which
 * the float32 op run here gives. Inputs hold NaN of both signs, +-Inf,
 * subnormals of the type, -0, and values whose exps narrow near a tie;
 * shapes with rows of one slice (inner 1: 5, 128, 3000 long, the last longer
 * than a block of slices) and with columns (inner 3), outer counts that
 * leave a part block; one thread and three (the slots' blocks). */
static void test_softmax_small_floats(void) {
  static const struct { int64_t outer, d, inner; } shapes[] = {
      {37, 5, 1}, {33, 128, 1}, {3, 3000, 1}, {7, 6, 3}, {1, 1, 1}};
  static const char *ops[] = {"Softmax", "LogSoftmax", "Hardmax"};
  int bad = 0, cases = 0;
  for (int bf = 0; bf < 2; bf++)
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
      int64_t o = shapes[sh].outer, d = shapes[sh].d, in = shapes[sh].inner, n = o * d * in;
      uint16_t *h = malloc(sizeof *h * (size_t)n);
      float *f = malloc(sizeof *f * (size_t)n);
      for (int64_t i = 0; i < n; i++) {
        uint32_t r = kit_rnd32();
        float v = (float)((int32_t)(r >> 8) - (1 << 23)) / (float)(1 << 20); /* [-8, 8) */
        switch (r % 61) {
        case 0: v = NAN; break;
        case 1: v = -NAN; break;
        case 2: v = INFINITY; break;
        case 3: v = -INFINITY; break;
        case 4: v = -0.f; break;
        case 5: v = bf ? 1e-39f : 3e-6f; break; /* subnormal in the type */
        case 6: v = bf ? -1e-39f : -5.9e-8f; break;
        case 7: v = 60000.f; break;
        default: break;
        }
        h[i] = bf ? ox_f32_to_bf16(v) : ox_f32_to_f16(v);
      }
      if (bf) ox_bf16_to_f32_n(h, f, n);
      else ox_f16_to_f32_n(h, f, n);
      int64_t dims[3] = {o, d, in};
      for (int k = 0; k < 3; k++)
        for (int th = 1; th <= 3; th += 2) {
          ox_mark mk = ox_arena_mark(A);
          ox_attr ax = attr_int("axis", 1);
          ox_value *yh = NULL, *yf = NULL;
          ox_set_threads(th), ox_par_set_min(th > 1 ? 0 : -1, th > 1 ? 0 : -1);
          CHECK_EQ_I(run(ops[k], 13, 1, &ax, 1, (ox_value *[]){tensor(bf ? OX_BFLOAT16 : OX_FLOAT16, 3, dims, h)}, &yh), 0);
          ox_set_threads(1), ox_par_set_min(-1, -1);
          CHECK_EQ_I(run(ops[k], 13, 1, &ax, 1, (ox_value *[]){tensor(OX_FLOAT, 3, dims, f)}, &yf), 0);
          if (yh && yf) {
            uint16_t *want = malloc(sizeof *want * (size_t)n);
            if (bf) ox_f32_to_bf16_n(yf->u.t.data, want, n);
            else ox_f32_to_f16_n(yf->u.t.data, want, n);
            const uint16_t *got = yh->u.t.data;
            for (int64_t i = 0; i < n; i++)
              if (got[i] != want[i] && bad++ < 5)
                fprintf(stderr, "%s %s (%lld, %lld, %lld) threads %d [%lld]: %04x, want %04x\n", ops[k],
                        bf ? "bfloat16" : "float16", (long long)o, (long long)d, (long long)in, th,
                        (long long)i, got[i], want[i]);
            free(want);
            cases++;
          }
          ox_arena_release(A, mk);
        }
      free(h);
      free(f);
    }
  CHECK_EQ_I(cases, 2 * 5 * 3 * 2);
  CHECK_EQ_I(bad, 0);
}

static void test_table(void) {
  CHECK_EQ_I(ox_registry_find("", "ReduceSum", 12)->since, 11);
  CHECK_EQ_I(ox_registry_find("", "ReduceSum", 25)->max_in, 2);
  CHECK_EQ_I(ox_registry_find("", "ReduceMean", 17)->max_in, 1);
  CHECK_EQ_I(ox_registry_find("", "ReduceMax", 19)->since, 18);
  CHECK(ox_registry_find("", "ReduceMax", 20)->types & OX_T(BOOL));
  CHECK(!(ox_registry_find("", "ReduceMax", 19)->types & OX_T(BOOL)));
  CHECK(!(ox_registry_find("", "ReduceSum", 12)->types & OX_T(BFLOAT16)));
  CHECK_EQ_I(ox_registry_find("", "ArgMax", 12)->since, 12);
  CHECK_EQ_I(ox_registry_find("", "Softmax", 12)->since, 11);
}

int main(void) {
  A = ox_arena_new();
  test_axes_odometer();
  test_softmax_small_floats();
  test_noop();
  test_empty_set();
  test_precision();
  test_corners();
  test_errors();
  test_arg();
  test_softmax_axis();
  test_softmax_rows();
  test_softmax_bits();
  test_table();
  ox_arena_free(A);
  return check_done("reduce");
}
