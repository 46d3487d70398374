/* tests/unit/test_cast.c: Cast, CastLike and BitCast, called through the
 * registry with a hand-made node. Expected values are worked out by hand
 * from the spec (and numpy's printing rules), not taken from the kernel. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/threads.h"
#include "kit.h"

#define VEC(dt, T, ...) vec(dt, sizeof((T[])__VA_ARGS__) / sizeof(T), (T[])__VA_ARGS__)

static ox_value *strs(int n, const char **s) {
  ox_str tmp[16];
  for (int i = 0; i < n; i++) tmp[i] = (ox_str){s[i], (int64_t)strlen(s[i])};
  return vec(OX_STRING, n, tmp);
}

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **y) {
  return kit_run("", op, opset, nattr, attr, nin, in, 1, y);
}

/* Cast x to `to` at `opset` (with saturate / round_mode when given). */
static ox_value *cast(int opset, ox_value *x, ox_dtype to, int saturate, const char *rm) {
  ox_attr at[3];
  int n = 0;
  at[n++] = attr_int("to", to);
  if (saturate >= 0) at[n++] = attr_int("saturate", saturate);
  if (rm) at[n++] = attr_str("round_mode", rm);
  ox_value *y;
  if (run("Cast", opset, n, at, 1, &x, &y)) {
    fprintf(stderr, "Cast failed: %s\n", E.msg);
    return NULL;
  }
  CHECK(y && y->u.t.dt == to && y->u.t.n == x->u.t.n);
  return y;
}

#define I64(v, i) ox_load_i64((v)->u.t.dt, (v)->u.t.data, i)
#define F64(v, i) ox_load_f64((v)->u.t.dt, (v)->u.t.data, i)
#define U8(v, i) (((const uint8_t *)(v)->u.t.data)[i])
#define STR(v, i) (((const ox_str *)(v)->u.t.data)[i].p)

/* ---- the table ---- */

static void test_table(void) {
  extern const ox_kernel ox_cast_kernels[];
  check_rows(ox_cast_kernels, NULL, 0);
  /* one row per since-version of the Changelog */
  int cast_since[] = {1, 6, 9, 13, 19, 21, 23, 24, 25}, like_since[] = {15, 19, 21, 23, 24, 25};
  for (int i = 0; i < 9; i++) CHECK_EQ_I(ox_registry_find("", "Cast", cast_since[i])->since, cast_since[i]);
  for (int i = 0; i < 6; i++)
    CHECK_EQ_I(ox_registry_find("", "CastLike", like_since[i])->since, like_since[i]);
  CHECK(ox_registry_find("", "CastLike", 14) == NULL);
  CHECK(ox_registry_find("", "BitCast", 25) == NULL);
  CHECK(ox_registry_find("", "BitCast", 26) != NULL);
  /* strings from Cast-9, bfloat16 from 13, float8 from 19, int4 from 21, int2 from 25 */
  CHECK(!(ox_registry_find("", "Cast", 8)->types & OX_T(STRING)));
  CHECK(ox_registry_find("", "Cast", 9)->types & OX_T(STRING));
  CHECK(!(ox_registry_find("", "Cast", 12)->types & OX_T(BFLOAT16)));
  CHECK(ox_registry_find("", "Cast", 19)->types & OX_T(FLOAT8E5M2));
  CHECK(!(ox_registry_find("", "Cast", 20)->types & OX_T(INT4)));
  CHECK(!(ox_registry_find("", "Cast", 24)->types & OX_T(INT2)));
  CHECK(ox_registry_find("", "Cast", 25)->types & OX_T(INT2));
  CHECK(!(ox_registry_find("", "Cast", 25)->types & OX_T(COMPLEX64)));
}

/* ---- strings ---- */

static void test_string_to_number(void) {
  const char *s[] = {"1e-3", "inf", "-INF", "+INF", "NaN", " 2.5 ", "3.14", "1E8"};
  ox_value *y = cast(21, strs(8, s), OX_FLOAT, -1, NULL);
  const float *f = y->u.t.data;
  CHECK(f[0] == 0.001f);
  CHECK(isinf(f[1]) && f[1] > 0);
  CHECK(isinf(f[2]) && f[2] < 0);
  CHECK(isinf(f[3]) && f[3] > 0);
  CHECK(isnan(f[4]));
  CHECK(f[5] == 2.5f);
  CHECK(f[6] == 3.14f);
  CHECK(f[7] == 1e8f);

  /* "1e-3" to double is the double nearest 0.001, not the float's widening */
  y = cast(21, strs(1, s), OX_DOUBLE, -1, NULL);
  CHECK(((double *)y->u.t.data)[0] == 0.001);

  /* integers are read exactly (int64 does not fit a double); "100.5" truncates */
  const char *ints[] = {"9223372036854775807", "-9223372036854775808", "100.5", "-7", "1e3"};
  y = cast(13, strs(5, ints), OX_INT64, -1, NULL);
  CHECK(I64(y, 0) == INT64_MAX);
  CHECK(I64(y, 1) == INT64_MIN);
  CHECK_EQ_I(I64(y, 2), 100);
  CHECK_EQ_I(I64(y, 3), -7);
  CHECK_EQ_I(I64(y, 4), 1000);
  const char *big[] = {"18446744073709551615"};
  y = cast(13, strs(1, big), OX_UINT64, -1, NULL);
  CHECK(((uint64_t *)y->u.t.data)[0] == UINT64_MAX);

  const char *bools[] = {"0", "2", "0.0", "true", "False"};
  y = cast(13, strs(5, bools), OX_BOOL, -1, NULL);
  CHECK(U8(y, 0) == 0 && U8(y, 1) == 1 && U8(y, 2) == 0 && U8(y, 3) == 1 && U8(y, 4) == 0);

  /* not a number: an error naming the element */
  const char *bad[] = {"1", "abc"};
  ox_value *x = strs(2, bad);
  ox_attr at = attr_int("to", OX_FLOAT);
  CHECK_EQ_I(run("Cast", 13, 1, &at, 1, &x, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "element 1") && strstr(E.msg, "\"abc\""));
}

static void test_number_to_string(void) {
  /* float32: numpy str(np.float32(x)) -- shortest digits of the float */
  ox_value *y = cast(13, VEC(OX_FLOAT, float, {0.1f, 1e16f, 1e-5f, 100.0f, -0.0f, 0.0001f,
                                               123456789.0f, 1.5e-5f, 3.4028235e38f, 0.0f}),
                     OX_STRING, -1, NULL);
  /* 0.0001f is 9.99999974e-05 < 1e-4, so numpy prints it in scientific notation */
  const char *want[] = {"0.1", "1e+16", "1e-05", "100.0", "-0.0", "1e-04",
                        "123456790.0", "1.5e-05", "3.4028235e+38", "0.0"};
  for (int i = 0; i < 10; i++) CHECK_EQ_S(STR(y, i), want[i]);

  y = cast(13, VEC(OX_FLOAT, float, {NAN, INFINITY, -INFINITY, 1e15f, 0.3f}), OX_STRING, -1, NULL);
  CHECK_EQ_S(STR(y, 0), "nan");
  CHECK_EQ_S(STR(y, 1), "inf");
  CHECK_EQ_S(STR(y, 2), "-inf");
  CHECK_EQ_S(STR(y, 3), "1000000000000000.0"); /* positional below 1e16 */
  CHECK_EQ_S(STR(y, 4), "0.3");

  /* float64: Python repr */
  y = cast(13, VEC(OX_DOUBLE, double, {0.1, 1.0 / 3, 1e22, 5e-324, 2.5, 0.0001}), OX_STRING,
           -1, NULL);
  CHECK_EQ_S(STR(y, 5), "0.0001");
  CHECK_EQ_S(STR(y, 0), "0.1");
  CHECK_EQ_S(STR(y, 1), "0.3333333333333333");
  CHECK_EQ_S(STR(y, 2), "1e+22");
  CHECK_EQ_S(STR(y, 3), "5e-324");
  CHECK_EQ_S(STR(y, 4), "2.5");

  /* float16 0x2E66 = 0.0999755859375: shortest in half precision is "0.1";
   * 0x3C00 = 1.0; 0x7BFF = 65504, whose shortest is 65500 (ulp 32), as
   * numpy prints np.finfo(np.float16).max */
  y = cast(13, VEC(OX_FLOAT16, uint16_t, {0x2E66, 0x3C00, 0x7BFF}), OX_STRING, -1, NULL);
  CHECK_EQ_S(STR(y, 0), "0.1");
  CHECK_EQ_S(STR(y, 1), "1.0");
  CHECK_EQ_S(STR(y, 2), "65500.0");

  y = cast(13, VEC(OX_BOOL, uint8_t, {1, 0}), OX_STRING, -1, NULL);
  CHECK_EQ_S(STR(y, 0), "True");
  CHECK_EQ_S(STR(y, 1), "False");
  y = cast(13, VEC(OX_INT8, int8_t, {-5, 127}), OX_STRING, -1, NULL);
  CHECK_EQ_S(STR(y, 0), "-5");
  CHECK_EQ_S(STR(y, 1), "127");
  y = cast(13, VEC(OX_UINT64, uint64_t, {UINT64_MAX}), OX_STRING, -1, NULL);
  CHECK_EQ_S(STR(y, 0), "18446744073709551615");
  y = cast(13, VEC(OX_INT64, int64_t, {INT64_MIN}), OX_STRING, -1, NULL);
  CHECK_EQ_S(STR(y, 0), "-9223372036854775808");
}

/* ---- numbers ---- */

static void test_float_to_int(void) {
  /* NaN -> 0; truncation toward zero; out of range keeps the low bits */
  ox_value *x = VEC(OX_FLOAT, float, {NAN, 300.0f, -1.0f, 2.7f, -2.7f, 1e20f, -1e20f});
  ox_value *y = cast(13, x, OX_INT8, -1, NULL);
  CHECK_EQ_I(I64(y, 0), 0);
  CHECK_EQ_I(I64(y, 1), 44); /* 300 - 256 */
  CHECK_EQ_I(I64(y, 2), -1);
  CHECK_EQ_I(I64(y, 3), 2);
  CHECK_EQ_I(I64(y, 4), -2);
  y = cast(13, x, OX_UINT8, -1, NULL);
  CHECK_EQ_I(I64(y, 2), 255);
  y = cast(13, x, OX_INT64, -1, NULL);
  CHECK(I64(y, 5) == INT64_MAX && I64(y, 6) == INT64_MIN);
  y = cast(13, x, OX_BOOL, -1, NULL);
  CHECK(U8(y, 0) == 1 && U8(y, 3) == 1); /* NaN is not zero */
  y = cast(13, VEC(OX_FLOAT, float, {0.0f, -0.0f}), OX_BOOL, -1, NULL);
  CHECK(U8(y, 0) == 0 && U8(y, 1) == 0);

  /* 4-bit and 2-bit targets wrap (as the ONNX test data does) */
  x = VEC(OX_FLOAT, float, {-3, -2, 2, 3, -9, 15.5f});
  y = cast(25, x, OX_INT2, -1, NULL);
  CHECK(I64(y, 0) == 1 && I64(y, 1) == -2 && I64(y, 2) == -2 && I64(y, 3) == -1);
  y = cast(25, x, OX_UINT4, -1, NULL);
  CHECK(I64(y, 4) == 7 && I64(y, 5) == 15);
  y = cast(25, x, OX_INT4, -1, NULL);
  CHECK(I64(y, 4) == 7 && I64(y, 5) == -1);
}

static void test_int_to_int(void) {
  /* Cast-13's example: 200 (int16) -> -56 (int8) */
  ox_value *y = cast(13, VEC(OX_INT16, int16_t, {200, -1, 36}), OX_INT8, -1, NULL);
  CHECK(I64(y, 0) == -56 && I64(y, 1) == -1 && I64(y, 2) == 36);
  y = cast(13, VEC(OX_INT16, int16_t, {200, 0, 36}), OX_BOOL, -1, NULL);
  CHECK(U8(y, 0) == 1 && U8(y, 1) == 0 && U8(y, 2) == 1);
  y = cast(13, VEC(OX_UINT64, uint64_t, {UINT64_MAX}), OX_INT64, -1, NULL);
  CHECK_EQ_I(I64(y, 0), -1);
  y = cast(21, VEC(OX_INT64, int64_t, {17, -1, 8}), OX_UINT4, -1, NULL);
  CHECK(I64(y, 0) == 1 && I64(y, 1) == 15 && I64(y, 2) == 8);
  y = cast(21, VEC(OX_INT64, int64_t, {17, -1, 8}), OX_INT4, -1, NULL);
  CHECK(I64(y, 0) == 1 && I64(y, 1) == -1 && I64(y, 2) == -8);
  CHECK(((int8_t *)y->u.t.data)[2] == -8); /* stored sign-extended */
  /* int64 exact through int64, not through a double */
  y = cast(13, VEC(OX_INT64, int64_t, {INT64_MAX - 1}), OX_UINT64, -1, NULL);
  CHECK(((uint64_t *)y->u.t.data)[0] == (uint64_t)INT64_MAX - 1);
}

static void test_int_to_float(void) {
  /* 2^53 + 1 rounds to even: 2^53; uint64 max rounds to 2^64 */
  ox_value *y = cast(13, VEC(OX_INT64, int64_t, {(INT64_C(1) << 53) + 1}), OX_DOUBLE, -1, NULL);
  CHECK(((double *)y->u.t.data)[0] == 9007199254740992.0);
  y = cast(13, VEC(OX_UINT64, uint64_t, {UINT64_MAX}), OX_FLOAT, -1, NULL);
  CHECK(((float *)y->u.t.data)[0] == 18446744073709551616.0f);
  y = cast(13, VEC(OX_UINT64, uint64_t, {UINT64_MAX}), OX_DOUBLE, -1, NULL);
  CHECK(((double *)y->u.t.data)[0] == 18446744073709551616.0);
  /* int -> float16 out of range is +Inf (Cast-13) */
  y = cast(13, VEC(OX_INT32, int32_t, {70000, -70000, 3}), OX_FLOAT16, -1, NULL);
  CHECK(((uint16_t *)y->u.t.data)[0] == 0x7C00 && ((uint16_t *)y->u.t.data)[1] == 0xFC00);
  CHECK(((uint16_t *)y->u.t.data)[2] == 0x4200);
  y = cast(13, VEC(OX_BOOL, uint8_t, {1, 0}), OX_DOUBLE, -1, NULL);
  CHECK(F64(y, 0) == 1.0 && F64(y, 1) == 0.0);
}

/* The typed loops (every integer or bool source to float, double and the
 * 8- to 64-bit integers; double to float) against the scalar conversions of
 * core/convert.c, element by element, on bit patterns that cover each
 * type's range (wrapping, rounding, the sign bit); odd lengths, and one
 * large enough to be split over three threads. */
static void check_typed(ox_dtype from, ox_dtype to, int64_t n, uint64_t seed) {
  size_t fs = ox_dtype_size(from), ts = ox_dtype_size(to);
  uint8_t *xb = malloc((size_t)n * fs), *want = malloc((size_t)n * ts);
  CHECK(xb && want);
  if (!xb || !want) return;
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = seed ^ (seed >> 29);
    if (from == OX_BOOL) xb[i] = (uint8_t)(r >> 40) & 1;
    else if (from == OX_DOUBLE) ((double *)xb)[i] = (double)(int64_t)r / (double)(1 + (r >> 50));
    else memcpy(xb + (size_t)i * fs, &r, fs);
  }
  for (int64_t i = 0; i < n; i++) {
    if (to == OX_FLOAT && from == OX_DOUBLE) ((float *)want)[i] = (float)((double *)xb)[i];
    else if (to == OX_FLOAT && from == OX_UINT64) ((float *)want)[i] = (float)((uint64_t *)xb)[i];
    else if (to == OX_DOUBLE && from == OX_UINT64) ((double *)want)[i] = (double)((uint64_t *)xb)[i];
    else ox_store_i64(to, want, i, ox_load_i64(from, xb, i));
  }
  ox_value *x = vec(from, n, xb), *y = cast(13, x, to, -1, NULL);
  if (y && memcmp(y->u.t.data, want, (size_t)n * ts)) {
    int64_t i = 0;
    while (memcmp((uint8_t *)y->u.t.data + i * ts, want + i * ts, ts)) i++;
    fprintf(stderr, "Cast %s -> %s: element %lld differs\n", ox_dtypes[from].onnx_name,
            ox_dtypes[to].onnx_name, (long long)i);
    CHECK(0);
  }
  free(xb);
  free(want);
}

static void test_typed_pairs(void) {
  static const ox_dtype ints[] = {OX_INT8, OX_INT16, OX_INT32, OX_INT64, OX_UINT8,
                                  OX_UINT16, OX_UINT32, OX_UINT64, OX_BOOL};
  static const ox_dtype tos[] = {OX_FLOAT, OX_DOUBLE, OX_INT8, OX_INT16, OX_INT32,
                                 OX_INT64, OX_UINT8, OX_UINT16, OX_UINT32, OX_UINT64};
  for (int a = 0; a < 9; a++)
    for (int b = 0; b < 10; b++)
      if (ints[a] != tos[b]) check_typed(ints[a], tos[b], 1 + 37 * (a + b), (uint64_t)(a * 16 + b));
  check_typed(OX_DOUBLE, OX_FLOAT, 301, 99);
  ox_set_threads(3);
  check_typed(OX_INT32, OX_FLOAT, (1 << 20) + 13, 7);
  check_typed(OX_UINT64, OX_INT8, (1 << 20) + 5, 8);
  ox_set_threads(1);
}

static void test_float8(void) {
  ox_value *x = VEC(OX_FLOAT, float, {1e6f, -1e6f, INFINITY, NAN, 0.46875f});
  /* E4M3FN: max 448 = 0x7E, NaN 0x7F */
  ox_value *y = cast(19, x, OX_FLOAT8E4M3FN, -1, NULL);
  CHECK(U8(y, 0) == 0x7E && U8(y, 1) == 0xFE && U8(y, 2) == 0x7E && (U8(y, 3) & 0x7F) == 0x7F);
  CHECK(U8(y, 4) == 0x2F); /* 0.46875 = 1.875 * 2^-2: exponent 5, mantissa 7 */
  y = cast(19, x, OX_FLOAT8E4M3FN, 0, NULL);
  CHECK(U8(y, 0) == 0x7F && U8(y, 1) == 0xFF && U8(y, 2) == 0x7F);
  /* E5M2 without saturate keeps Inf: 0x7C */
  y = cast(19, x, OX_FLOAT8E5M2, 0, NULL);
  CHECK(U8(y, 0) == 0x7C && U8(y, 1) == 0xFC && U8(y, 2) == 0x7C);
  y = cast(19, x, OX_FLOAT8E5M2, 1, NULL);
  CHECK(U8(y, 0) == 0x7B && U8(y, 2) == 0x7B);
  /* E4M3FNUZ saturating: 1e6 -> 240 (0x7F); Inf -> NaN (0x80) in Cast-19..23,
   * FLT_MAX from Cast-24 (the table changed) */
  y = cast(19, x, OX_FLOAT8E4M3FNUZ, 1, NULL);
  CHECK(U8(y, 0) == 0x7F && U8(y, 2) == 0x80 && U8(y, 3) == 0x80);
  y = cast(25, x, OX_FLOAT8E4M3FNUZ, 1, NULL);
  CHECK(U8(y, 0) == 0x7F && U8(y, 1) == 0xFF && U8(y, 2) == 0x7F);
  y = cast(25, x, OX_FLOAT8E5M2FNUZ, 0, NULL);
  CHECK(U8(y, 0) == 0x80 && U8(y, 2) == 0x80);
  /* float8 -> float: 0x7E in E4M3FN is 448 */
  y = cast(19, VEC(OX_FLOAT8E4M3FN, uint8_t, {0x7E, 0x01}), OX_FLOAT, -1, NULL);
  CHECK(F64(y, 0) == 448.0 && F64(y, 1) == ldexp(1, -9));
}

static void test_e8m0(void) {
  ox_value *x = VEC(OX_FLOAT, float, {3.0f, 2.9f, 0.75f, 1.0f, 0.0f, 5.0f});
  /* code = log2 + 127. up: 3 -> 4, down: 3 -> 2, nearest (ties up): 3 -> 4, 2.9 -> 2 */
  ox_value *y = cast(24, x, OX_FLOAT8E8M0, -1, NULL);
  CHECK(U8(y, 0) == 129 && U8(y, 1) == 129 && U8(y, 2) == 127 && U8(y, 3) == 127);
  CHECK(U8(y, 4) == 0x00); /* 0, saturate + up: E8M0_MIN */
  y = cast(24, x, OX_FLOAT8E8M0, -1, "down");
  CHECK(U8(y, 0) == 128 && U8(y, 1) == 128 && U8(y, 2) == 126 && U8(y, 5) == 129);
  y = cast(25, x, OX_FLOAT8E8M0, 0, "nearest");
  CHECK(U8(y, 0) == 129 && U8(y, 1) == 128 && U8(y, 2) == 127 && U8(y, 3) == 127);
  CHECK(U8(y, 4) == 0xFF); /* 0, non-saturate + nearest: NaN */
  CHECK(U8(y, 5) == 129);  /* 5 = 1.25 * 4 -> 4 */

  ox_value *y2;
  ox_attr at[2] = {attr_int("to", OX_FLOAT8E8M0), attr_str("round_mode", "sideways")};
  CHECK_EQ_I(run("Cast", 24, 2, at, 1, &x, &y2), OX_EINPUT);
  CHECK(strstr(E.msg, "round_mode") != NULL);
}

static void test_float_to_float(void) {
  /* double -> float16 rounds once; 65520 is the first value that overflows */
  ox_value *y = cast(13, VEC(OX_DOUBLE, double, {65519.0, 65520.0, 1e-8}), OX_FLOAT16, -1, NULL);
  const uint16_t *h = y->u.t.data;
  CHECK(h[0] == 0x7BFF && h[1] == 0x7C00 && h[2] == 0x0000);
  /* float -> bfloat16: round to nearest even (0x3F808000 is a tie -> 0x3F80) */
  uint32_t bits[] = {0x3F808000u, 0x3F818000u, 0x3F808001u};
  float f[3];
  memcpy(f, bits, sizeof f);
  y = cast(13, vec(OX_FLOAT, 3, f), OX_BFLOAT16, -1, NULL);
  h = y->u.t.data;
  CHECK(h[0] == 0x3F80 && h[1] == 0x3F82 && h[2] == 0x3F81);
  /* same type: the data is shared */
  ox_value *x = VEC(OX_FLOAT, float, {1, 2});
  y = cast(13, x, OX_FLOAT, -1, NULL);
  CHECK(y->u.t.data == x->u.t.data);
}

/* ---- CastLike, Cast-1's string 'to', errors ---- */

static void test_cast_like_and_errors(void) {
  ox_value *x = VEC(OX_FLOAT, float, {1.5f, -2.5f}), *like = VEC(OX_INT32, int32_t, {0}), *y;
  CHECK_EQ_I(run("CastLike", 15, 0, NULL, 2, (ox_value *[]){x, like}, &y), 0);
  CHECK(y->u.t.dt == OX_INT32 && I64(y, 0) == 1 && I64(y, 1) == -2);
  /* CastLike-19's saturate */
  ox_value *big = VEC(OX_FLOAT, float, {1e6f}), *f8 = VEC(OX_FLOAT8E4M3FN, uint8_t, {0});
  ox_attr sat0 = attr_int("saturate", 0);
  CHECK_EQ_I(run("CastLike", 19, 1, &sat0, 2, (ox_value *[]){big, f8}, &y), 0);
  CHECK(U8(y, 0) == 0x7F);
  /* a target type the version does not allow */
  CHECK_EQ_I(run("CastLike", 15, 0, NULL, 2, (ox_value *[]){x, f8}, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "float8e4m3fn") != NULL);

  /* Cast-1 names the type */
  ox_attr to1 = attr_str("to", "DOUBLE");
  CHECK_EQ_I(run("Cast", 1, 1, &to1, 1, &x, &y), 0);
  CHECK(y->u.t.dt == OX_DOUBLE && F64(y, 1) == -2.5);
  /* to string before Cast-9, to complex ever: rejected */
  ox_attr to = attr_int("to", OX_STRING);
  CHECK_EQ_I(run("Cast", 6, 1, &to, 1, &x, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "string") != NULL);
  to = attr_int("to", OX_COMPLEX64);
  CHECK_EQ_I(run("Cast", 25, 1, &to, 1, &x, &y), OX_EINPUT);
  to = attr_int("to", 99);
  CHECK_EQ_I(run("Cast", 25, 1, &to, 1, &x, &y), OX_EINPUT);
  CHECK_EQ_I(run("Cast", 25, 0, NULL, 1, &x, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "'to'") != NULL);
}

static void test_bitcast(void) {
  ox_value *x = VEC(OX_FLOAT, float, {1.0f, -2.0f}), *y;
  ox_attr to = attr_int("to", OX_INT32);
  CHECK_EQ_I(run("BitCast", 26, 1, &to, 1, &x, &y), 0);
  CHECK(y->u.t.dt == OX_INT32 && I64(y, 0) == 0x3F800000 && I64(y, 1) == (int32_t)0xC0000000u);
  to = attr_int("to", OX_INT64);
  CHECK_EQ_I(run("BitCast", 26, 1, &to, 1, &x, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "32 bits") && strstr(E.msg, "64 bits"));
  /* 4-bit: int4 -1 is 0b1111 = uint4 15; uint4 8 is int4 -8 */
  x = VEC(OX_INT4, int8_t, {-1, 7});
  to = attr_int("to", OX_UINT4);
  CHECK_EQ_I(run("BitCast", 26, 1, &to, 1, &x, &y), 0);
  CHECK(U8(y, 0) == 15 && U8(y, 1) == 7);
  x = VEC(OX_UINT4, uint8_t, {8, 1});
  to = attr_int("to", OX_INT4);
  CHECK_EQ_I(run("BitCast", 26, 1, &to, 1, &x, &y), 0);
  CHECK(I64(y, 0) == -8 && I64(y, 1) == 1);
  /* complex64 <-> double: same width */
  x = VEC(OX_DOUBLE, double, {1.0});
  to = attr_int("to", OX_COMPLEX64);
  CHECK_EQ_I(run("BitCast", 26, 1, &to, 1, &x, &y), 0);
  to = attr_int("to", OX_STRING);
  CHECK_EQ_I(run("BitCast", 26, 1, &to, 1, &x, &y), OX_EINPUT);
}

int main(void) {
  A = ox_arena_new();
  test_table();
  test_string_to_number();
  test_number_to_string();
  test_float_to_int();
  test_int_to_int();
  test_int_to_float();
  test_typed_pairs();
  test_float8();
  test_e8m0();
  test_float_to_float();
  test_cast_like_and_errors();
  test_bitcast();
  ox_arena_free(A);
  return check_done("cast");
}
