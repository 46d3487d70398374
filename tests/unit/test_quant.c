/* tests/unit/test_quant.c: QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear, QLinearMatMul and QLinearConv called through the
 * registry with a hand-made node; expected values worked out by hand. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/eval.h"
#include "core/threads.h"
#include "kit.h"

#define T_(dt, ctype, rank, dims, ...) tensor(dt, rank, dims, (ctype[])__VA_ARGS__)
#define F32(rank, dims, ...) T_(OX_FLOAT, float, rank, dims, __VA_ARGS__)
#define DIMS(...) ((int64_t[]){__VA_ARGS__})
#define SCALAR ((int64_t *)NULL)

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               int nout, ox_value **out) {
  int rc = kit_run("", op, opset, nattr, attr, nin, in, nout, out);
  if (rc && rc != OX_EINPUT) fprintf(stderr, "%s: %s\n", op, E.msg);
  return rc;
}

/* dtype, shape and exact elements (read as doubles). */
static int is(const ox_value *v, ox_dtype dt, int rank, const int64_t *dims, const double *want) {
  if (!v || v->kind != OX_TENSOR || v->u.t.dt != dt || v->u.t.rank != rank) {
    fprintf(stderr, "wrong dtype or rank\n");
    return 0;
  }
  for (int i = 0; i < rank; i++)
    if (v->u.t.dims[i] != dims[i]) return 0;
  for (int64_t i = 0; i < v->u.t.n; i++) {
    double g = ox_load_f64(dt, v->u.t.data, i);
    if (!(g == want[i] || (isnan(g) && isnan(want[i])))) {
      fprintf(stderr, "element %lld: %.9g, want %.9g\n", (long long)i, g, want[i]);
      return 0;
    }
  }
  return 1;
}
#define IS(v, dt, rank, dims, ...) is(v, dt, rank, dims, (double[])__VA_ARGS__)

static void test_quantize(void) {
  ox_value *y[1], *in[3];
  /* rounding is half to even; int8 saturates to [-128, 127] */
  in[0] = F32(1, DIMS(8), {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300, -300, NAN});
  in[1] = F32(0, SCALAR, {1});
  in[2] = T_(OX_INT8, int8_t, 0, SCALAR, {0});
  CHECK(!run("QuantizeLinear", 10, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_INT8, 1, DIMS(8), {0, 2, 2, -0, -2, 127, -128, -128}));
  /* no zero point: uint8, [0, 255]; zero point added after rounding */
  in[0] = F32(1, DIMS(4), {-1, 510, 3, 2.5f});
  in[1] = F32(0, SCALAR, {2});
  CHECK(!run("QuantizeLinear", 13, 0, NULL, 2, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 1, DIMS(4), {0, 255, 2, 1}));
  in[2] = T_(OX_UINT8, uint8_t, 0, SCALAR, {10});
  CHECK(!run("QuantizeLinear", 13, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 1, DIMS(4), {10, 255, 12, 11})); /* 1.25 -> 1 (+10) */
  /* per axis (13): x (2, 3), scale and zero point (3,) along axis 1 */
  in[0] = F32(2, DIMS(2, 3), {4, 4, 4, 8, 8, 8});
  in[1] = F32(1, DIMS(3), {1, 2, 4});
  in[2] = T_(OX_UINT8, uint8_t, 1, DIMS(3), {0, 1, 2});
  CHECK(!run("QuantizeLinear", 13, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 2, DIMS(2, 3), {4, 3, 3, 8, 5, 4}));
  /* ... along axis 0 (negative axis -2) */
  in[1] = F32(1, DIMS(2), {1, 4});
  in[2] = T_(OX_UINT8, uint8_t, 1, DIMS(2), {1, 0});
  ox_attr ax[1] = {attr_int("axis", -2)};
  CHECK(!run("QuantizeLinear", 13, 1, ax, 3, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 2, DIMS(2, 3), {5, 5, 5, 2, 2, 2}));
  /* int32 x (10): x / y_scale divides in double as numpy's int32 / float32
   * does, so 3 / 0.4f = 7.4999999 rounds to 7 (in float32 the quotient would
   * be 7.5 and round to 8) */
  ox_value *in_i32[2] = {T_(OX_INT32, int32_t, 1, DIMS(3), {3, 7, 11}), F32(0, SCALAR, {0.4f})};
  CHECK(!run("QuantizeLinear", 10, 0, NULL, 2, in_i32, 1, y));
  CHECK(IS(y[0], OX_UINT8, 1, DIMS(3), {7, 17, 27}));
  /* opset 10 takes scalars only */
  CHECK_FAILS(run("QuantizeLinear", 10, 0, NULL, 3, in, 1, y), "scalar");
  /* a zero point that does not match the scale */
  in[2] = T_(OX_UINT8, uint8_t, 1, DIMS(3), {1, 0, 0});
  CHECK_FAILS(run("QuantizeLinear", 13, 1, ax, 3, in, 1, y), "must match");
  /* blocked (21): x (2, 5), axis 1, block 2: scale (2, 3), the last block short */
  in[0] = F32(2, DIMS(2, 5), {2, 2, 2, 2, 8, 1, 1, 9, 9, 9});
  in[1] = F32(2, DIMS(2, 3), {1, 2, 4, 1, 3, 2});
  in[2] = T_(OX_INT8, int8_t, 2, DIMS(2, 3), {0, 0, 1, 0, -1, 0});
  ox_attr bl[2] = {attr_int("axis", 1), attr_int("block_size", 2)};
  CHECK(!run("QuantizeLinear", 21, 2, bl, 3, in, 1, y));
  CHECK(IS(y[0], OX_INT8, 2, DIMS(2, 5), {2, 2, 1, 1, 3, 1, 1, 2, 2, 4}));
  /* ceil(5 / 2) = 3 blocks: a scale of 2 columns is wrong */
  in[1] = F32(2, DIMS(2, 2), {1, 2, 4, 1});
  in[2] = NULL;
  CHECK_FAILS(run("QuantizeLinear", 21, 2, bl, 2, in, 1, y), "ceil(5 / 2)");
  /* 4-bit and 2-bit outputs (one element per byte, signed ones sign-extended) */
  in[0] = F32(1, DIMS(4), {-9, 8, 3.5f, -2.5f});
  in[1] = F32(0, SCALAR, {1});
  in[2] = T_(OX_INT4, int8_t, 0, SCALAR, {0});
  CHECK(!run("QuantizeLinear", 21, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_INT4, 1, DIMS(4), {-8, 7, 4, -2}));
  CHECK(((int8_t *)y[0]->u.t.data)[0] == -8);
  in[2] = T_(OX_UINT4, uint8_t, 0, SCALAR, {1});
  CHECK(!run("QuantizeLinear", 21, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_UINT4, 1, DIMS(4), {0, 9, 5, 0}));
  ox_attr od[1] = {attr_int("output_dtype", OX_INT2)};
  CHECK(!run("QuantizeLinear", 25, 1, od, 2, in, 1, y));
  CHECK(IS(y[0], OX_INT2, 1, DIMS(4), {-2, 1, 1, -2}));
  CHECK(((int8_t *)y[0]->u.t.data)[3] == -2);
  od[0] = attr_int("output_dtype", OX_UINT2);
  CHECK(!run("QuantizeLinear", 25, 1, od, 2, in, 1, y));
  CHECK(IS(y[0], OX_UINT2, 1, DIMS(4), {0, 3, 3, 0}));
  /* 2-bit types are new in 25; output_dtype must agree with the zero point */
  CHECK_FAILS(run("QuantizeLinear", 24, 1, od, 2, in, 1, y), "output_dtype");
  CHECK_FAILS(run("QuantizeLinear", 25, 1, od, 3, in, 1, y), "must agree");
  /* int16 / uint16 (21) */
  in[0] = F32(1, DIMS(3), {-40000, 40000, 70000});
  in[2] = T_(OX_INT16, int16_t, 0, SCALAR, {0});
  CHECK(!run("QuantizeLinear", 21, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_INT16, 1, DIMS(3), {-32768, 32767, 32767}));
  in[2] = T_(OX_UINT16, uint16_t, 0, SCALAR, {0});
  CHECK(!run("QuantizeLinear", 21, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_UINT16, 1, DIMS(3), {0, 40000, 65535}));
  /* float8 (19): saturate=1 clamps to 448 (0x7E), saturate=0 gives NaN (0x7F) */
  in[0] = F32(1, DIMS(3), {1000, -1000, 0.3f});
  in[2] = T_(OX_FLOAT8E4M3FN, uint8_t, 0, SCALAR, {0});
  CHECK(!run("QuantizeLinear", 19, 0, NULL, 3, in, 1, y));
  CHECK(((uint8_t *)y[0]->u.t.data)[0] == 0x7E && ((uint8_t *)y[0]->u.t.data)[1] == 0xFE);
  CHECK(ox_f8_to_f32(OX_FLOAT8E4M3FN, ((uint8_t *)y[0]->u.t.data)[2]) == 0.3125f);
  ox_attr sat[1] = {attr_int("saturate", 0)};
  CHECK(!run("QuantizeLinear", 19, 1, sat, 3, in, 1, y));
  CHECK((((uint8_t *)y[0]->u.t.data)[0] & 0x7F) == 0x7F);
  /* e5m2 without saturation: Inf */
  in[2] = T_(OX_FLOAT8E5M2, uint8_t, 0, SCALAR, {0});
  in[0] = F32(1, DIMS(1), {1e6f});
  CHECK(!run("QuantizeLinear", 19, 1, sat, 3, in, 1, y));
  CHECK(((uint8_t *)y[0]->u.t.data)[0] == 0x7C);
  /* float4e2m1 (23): always saturates to 6 */
  in[0] = F32(1, DIMS(3), {100, -2.4f, 1.25f});
  od[0] = attr_int("output_dtype", OX_FLOAT4E2M1);
  CHECK(!run("QuantizeLinear", 23, 1, od, 2, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT4E2M1, 1, DIMS(3), {6, -2, 1})); /* 1.25: tie to even (1.0) */
  CHECK_FAILS(run("QuantizeLinear", 21, 1, od, 2, in, 1, y), "output_dtype");
  /* the division rounds to y_scale's type before rint: 2047 / 585 =
   * 3.49915 is 3.5 in float16 (grid 2^-9 there), so 4 (even); in float 3 */
  in[0] = T_(OX_FLOAT16, uint16_t, 1, DIMS(1), {ox_f32_to_f16(2047)});
  in[1] = T_(OX_FLOAT16, uint16_t, 0, SCALAR, {ox_f32_to_f16(585)});
  CHECK(!run("QuantizeLinear", 19, 0, NULL, 2, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 1, DIMS(1), {4}));
  ox_attr pr[1] = {attr_int("precision", OX_FLOAT)};
  CHECK(!run("QuantizeLinear", 23, 1, pr, 2, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 1, DIMS(1), {3}));
  /* 19-21: y_scale must have x's type */
  in[1] = F32(0, SCALAR, {585});
  CHECK_FAILS(run("QuantizeLinear", 21, 0, NULL, 2, in, 1, y), "y_scale");
  /* int32 input */
  in[0] = T_(OX_INT32, int32_t, 1, DIMS(3), {5, 7, -7});
  in[1] = F32(0, SCALAR, {2});
  in[2] = T_(OX_INT8, int8_t, 0, SCALAR, {0});
  CHECK(!run("QuantizeLinear", 10, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_INT8, 1, DIMS(3), {2, 4, -4}));
}

static void test_dequantize(void) {
  ox_value *y[1], *in[3];
  in[0] = T_(OX_UINT8, uint8_t, 1, DIMS(4), {0, 3, 128, 255});
  in[1] = F32(0, SCALAR, {2});
  in[2] = T_(OX_UINT8, uint8_t, 0, SCALAR, {128});
  CHECK(!run("DequantizeLinear", 10, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT, 1, DIMS(4), {-256, -250, 0, 254}));
  /* int32 (x - zero point) is exact: 16777217 - 1 = 2^24 (in float,
   * x would round to 2^24 first and give 2^24 - 1) */
  in[0] = T_(OX_INT32, int32_t, 1, DIMS(1), {16777217});
  in[1] = F32(0, SCALAR, {1});
  in[2] = T_(OX_INT32, int32_t, 0, SCALAR, {1});
  CHECK(!run("DequantizeLinear", 13, 0, NULL, 3, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT, 1, DIMS(1), {16777216}));
  in[2] = T_(OX_UINT8, uint8_t, 0, SCALAR, {1});
  CHECK_FAILS(run("DequantizeLinear", 13, 0, NULL, 3, in, 1, y), "same type");
  /* per axis, axis 0 of (2, 2) */
  in[0] = T_(OX_INT8, int8_t, 2, DIMS(2, 2), {1, 2, 3, 4});
  in[1] = F32(1, DIMS(2), {10, 0.5f});
  in[2] = T_(OX_INT8, int8_t, 1, DIMS(2), {1, -4});
  ox_attr ax[1] = {attr_int("axis", 0)};
  CHECK(!run("DequantizeLinear", 13, 1, ax, 3, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT, 2, DIMS(2, 2), {0, 10, 3.5, 4}));
  /* blocked (21), axis 0 of (3, 2), block 2: scale (2, 2) */
  in[0] = T_(OX_INT4, int8_t, 2, DIMS(3, 2), {1, 2, 3, 4, -8, 7});
  in[1] = F32(2, DIMS(2, 2), {1, 2, 3, 4});
  in[2] = T_(OX_INT4, int8_t, 2, DIMS(2, 2), {0, 1, -1, 0});
  ox_attr bl[2] = {attr_int("axis", 0), attr_int("block_size", 2)};
  CHECK(!run("DequantizeLinear", 21, 2, bl, 3, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT, 2, DIMS(3, 2), {1, 2, 3, 6, -21, 28}));
  /* float16 scale: float16 output, rounded once: 1/3 * 3 */
  in[0] = T_(OX_UINT2, uint8_t, 1, DIMS(2), {3, 1});
  in[1] = T_(OX_FLOAT16, uint16_t, 0, SCALAR, {ox_f32_to_f16(0.1f)});
  in[2] = NULL;
  CHECK(!run("DequantizeLinear", 25, 0, NULL, 2, in, 1, y));
  CHECK(y[0]->u.t.dt == OX_FLOAT16);
  CHECK(((uint16_t *)y[0]->u.t.data)[0] ==
        ox_f32_to_f16((float)(3.0 * (double)ox_f16_to_f32(ox_f32_to_f16(0.1f)))));
  CHECK_FAILS(run("DequantizeLinear", 24, 0, NULL, 2, in, 1, y), "type not in");
  /* output_dtype (23) */
  ox_attr od[1] = {attr_int("output_dtype", OX_FLOAT)};
  CHECK(!run("DequantizeLinear", 25, 1, od, 2, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT, 1, DIMS(2), {(float)(3.0 * (double)ox_f16_to_f32(ox_f32_to_f16(0.1f))),
                                         ox_f16_to_f32(ox_f32_to_f16(0.1f))}));
  /* float8 and float4 inputs */
  in[0] = T_(OX_FLOAT8E4M3FN, uint8_t, 1, DIMS(2), {0x7E, 0xB8}); /* 448, -1 */
  in[1] = F32(0, SCALAR, {2});
  CHECK(!run("DequantizeLinear", 19, 0, NULL, 2, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT, 1, DIMS(2), {896, -2}));
  in[0] = T_(OX_FLOAT4E2M1, uint8_t, 1, DIMS(3), {0x7, 0xF, 0x1}); /* 6, -6, 0.5 */
  CHECK(!run("DequantizeLinear", 23, 0, NULL, 2, in, 1, y));
  CHECK(IS(y[0], OX_FLOAT, 1, DIMS(3), {12, -12, 1}));
}

static void test_dynamic(void) {
  ox_value *y[3], *in[1];
  /* the spec's example: range [-3, 2], scale 5/255, zero point rint(153);
   * 0.5 / scale is 25.4999991 exactly but 25.5 once the float division
   * rounds, so rint gives 26 (even), and 179 */
  in[0] = F32(1, DIMS(6), {0, 2, -3, -2.5f, 1.34f, 0.5f});
  CHECK(!run("DynamicQuantizeLinear", 11, 0, NULL, 1, in, 3, y));
  CHECK(0.5f / (5.0f / 255.0f) == 25.5f);
  CHECK(IS(y[0], OX_UINT8, 1, DIMS(6), {153, 255, 0, 26, 221, 179}));
  CHECK(*(float *)y[1]->u.t.data == 5.0f / 255.0f);
  CHECK(IS(y[2], OX_UINT8, 0, SCALAR, {153}));
  /* all positive: the range is adjusted to include 0, zero point 0 */
  in[0] = F32(1, DIMS(2), {1, 51});
  CHECK(!run("DynamicQuantizeLinear", 11, 0, NULL, 1, in, 3, y));
  CHECK(IS(y[0], OX_UINT8, 1, DIMS(2), {5, 255}));
  CHECK(IS(y[2], OX_UINT8, 0, SCALAR, {0}));
  /* all zero: scale 1/255 */
  in[0] = F32(1, DIMS(1), {0});
  CHECK(!run("DynamicQuantizeLinear", 11, 0, NULL, 1, in, 3, y));
  CHECK(*(float *)y[1]->u.t.data == 1.0f / 255.0f);
}

/* DynamicQuantizeLinear's vector path (AVX2 where the CPU has it) and its
 * threads against a plain loop written here from the spec: odd lengths (the
 * vector body and the scalar tail), ties at .5 (round half to even), NaN
 * (skipped by the range, quantized to 0), +-Inf (a NaN scale: every element
 * 0), values clamped at both ends, and 1 and 3 threads. */
void ox_quant_max_isa(int level);

static void dql_expect(const float *x, int64_t n, uint8_t *q, float *scale, uint8_t *zp) {
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < n; i++) {
    if (x[i] < lo) lo = x[i]; /* NaN compares false: skipped */
    if (x[i] > hi) hi = x[i];
  }
  float s = (hi == lo ? 1.0f : hi - lo) / 255.0f, z0 = 0.0f - lo / s;
  float z = nearbyintf(z0 < 0 ? 0 : z0 > 255 ? 255 : z0);
  for (int64_t i = 0; i < n; i++) {
    float r = nearbyintf(x[i] / s) + z;
    q[i] = !(r >= 0) ? 0 : r > 255 ? 255 : (uint8_t)r;
  }
  *scale = s, *zp = (uint8_t)z;
}

static void dql_case(const char *label, float *x, int64_t n) {
  uint8_t *want = malloc((size_t)n + 1);
  CHECK(want != NULL);
  if (!want) return;
  float ws;
  uint8_t wz;
  dql_expect(x, n, want, &ws, &wz);
  for (int isa = 0; isa <= 1; isa++)
    for (int th = 1; th <= 3; th += 2) {
      ox_quant_max_isa(isa ? -1 : 0);
      ox_set_threads(th);
      ox_value *in[1] = {tensor(OX_FLOAT, 1, (int64_t[]){n}, x)}, *y[3] = {0};
      CHECK(!run("DynamicQuantizeLinear", 11, 0, NULL, 1, in, 3, y));
      if (!y[0]) continue;
      float gs = *(float *)y[1]->u.t.data;
      uint8_t gz = *(uint8_t *)y[2]->u.t.data;
      int same = memcmp(&gs, &ws, sizeof gs) == 0 && gz == wz;
      for (int64_t i = 0; same && i < n; i++)
        if (((uint8_t *)y[0]->u.t.data)[i] != want[i]) {
          fprintf(stderr, "%s (isa %d, %d threads): element %lld is %d, want %d\n", label, isa,
                  th, (long long)i, ((uint8_t *)y[0]->u.t.data)[i], want[i]);
          same = 0;
        }
      if (!same) fprintf(stderr, "%s (isa %d, %d threads) differs\n", label, isa, th);
      CHECK(same);
    }
  ox_quant_max_isa(-1);
  ox_set_threads(1);
  free(want);
}

static void test_dynamic_paths(void) {
  enum { BIG = (1 << 20) + 77 };
  float *x = malloc(BIG * sizeof *x);
  CHECK(x != NULL);
  if (!x) return;
  uint32_t r = 12345;
  for (int64_t i = 0; i < BIG; i++) {
    r = r * 1664525u + 1013904223u;
    x[i] = ((float)(r >> 8) / 16777216.0f - 0.3f) * 7.0f;
  }
  int64_t lens[] = {1, 7, 8, 31, 32, 33, 100, 1027};
  char label[64];
  for (int k = 0; k < 8; k++) {
    snprintf(label, sizeof label, "dql random %lld", (long long)lens[k]);
    dql_case(label, x + 3, lens[k]);
  }
  /* ties: the range [0, 255] makes the scale exactly 1, so the halves are
   * exact ties of x / scale */
  float t[67];
  for (int i = 0; i < 67; i++) t[i] = (float)i * 0.5f + (i % 3 == 0 ? 0 : 120.0f);
  t[66] = 255.0f; /* scale exactly 1 */
  dql_case("dql ties", t, 67);
  /* NaN among values; an Inf (NaN scale) */
  for (int i = 0; i < 67; i++) t[i] = (i % 5 == 0) ? NAN : (float)(i - 40) * 0.37f;
  dql_case("dql nan", t, 67);
  t[10] = INFINITY;
  dql_case("dql inf", t, 67);
  for (int i = 0; i < 67; i++) t[i] = (i & 1) ? -0.0f : 0.0f;
  dql_case("dql zeros", t, 67);
  dql_case("dql big", x, BIG);
  free(x);
}

/* QuantizeLinear's float path to 8 bits (quantize8: AVX2 where the CPU has
 * it, rows cut into pieces over the threads) against the reference written
 * here as numpy computes it: float32 quotient, rint, + zero point in double,
 * clamp (NaN to the minimum). Per tensor and per axis, uint8 and int8, odd
 * row lengths, ties, NaN, +-Inf, huge values; plain and AVX2; 1 and 3
 * threads. */
/* Run op on in[] with the plain and the best build (ox_quant_max_isa), on 1
 * and 3 threads: the number of runs whose output 0 is not yt with the n
 * elements of es bytes at want. */
static int paths_agree(const char *label, const char *op, int opset, int nattr, ox_attr *at,
                       int nin, ox_value **in, ox_dtype yt, const void *want, size_t es, int64_t n) {
  int bad = 0;
  for (int isa = 0; isa <= 1; isa++)
    for (int th = 1; th <= 3; th += 2) {
      ox_quant_max_isa(isa ? -1 : 0);
      ox_set_threads(th);
      ox_value *y[1] = {0};
      if (run(op, opset, nattr, at, nin, in, 1, y) || !y[0] || y[0]->u.t.dt != yt || y[0]->u.t.n != n) {
        bad++;
        continue;
      }
      const char *got = y[0]->u.t.data, *w = want;
      for (int64_t i = 0; i < n; i++)
        if (memcmp(got + (size_t)i * es, w + (size_t)i * es, es)) {
          fprintf(stderr, "%s (isa %d, %d threads): element %lld differs\n", label, isa, th, (long long)i);
          bad++;
          break;
        }
    }
  ox_quant_max_isa(-1);
  ox_set_threads(1);
  return bad;
}

static int q8_case(const char *label, int opset, ox_dtype yt, int rank, const int64_t *dims,
                   int axis, const float *x, const float *sc, const uint8_t *zp) {
  int64_t n = 1, D = 1, inner = 1;
  for (int d = 0; d < rank; d++) n *= dims[d];
  if (axis >= 0) {
    D = dims[axis];
    for (int d = axis + 1; d < rank; d++) inner *= dims[d];
  }
  uint8_t *want = malloc((size_t)n + 1);
  if (!want) return 1;
  double lo = yt == OX_INT8 ? -128 : 0, hi = yt == OX_INT8 ? 127 : 255;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = axis >= 0 ? i / inner % D : 0;
    double z = yt == OX_INT8 ? (double)(int8_t)zp[d] : (double)zp[d];
    double r = nearbyint((double)(float)((double)x[i] / (double)sc[d])) + z;
    r = !(r >= lo) ? lo : r > hi ? hi : r;
    want[i] = yt == OX_INT8 ? (uint8_t)(int8_t)r : (uint8_t)r;
  }
  int64_t sd = D;
  ox_value *in[3] = {tensor(OX_FLOAT, rank, dims, x),
                     axis >= 0 ? tensor(OX_FLOAT, 1, &sd, sc) : tensor(OX_FLOAT, 0, NULL, sc),
                     axis >= 0 ? tensor(yt, 1, &sd, zp) : tensor(yt, 0, NULL, zp)};
  ox_attr ax[1] = {attr_int("axis", axis)};
  int bad = paths_agree(label, "QuantizeLinear", opset, axis >= 0, ax, 3, in, yt, want, 1, n);
  free(want);
  return bad;
}

static void test_quantize8(void) {
  enum { BIG = (1 << 20) + 45 };
  float *x = malloc(BIG * sizeof *x);
  CHECK(x != NULL);
  if (!x) return;
  uint32_t r = 777;
  for (int64_t i = 0; i < BIG; i++) {
    r = r * 1664525u + 1013904223u;
    x[i] = ((float)(r >> 8) / 16777216.0f - 0.5f) * 90.0f;
    if (i % 97 == 0) x[i] = (float)(i % 400) * 0.25f - 50.0f; /* ties of x / 0.5 */
  }
  x[5] = NAN, x[40] = INFINITY, x[41] = -INFINITY, x[42] = 1e30f, x[43] = -1e30f, x[44] = -0.0f;
  float sc[7] = {0.5f, 0.37f, 1.0f, 3.0f, 0.01f, 2.5f, 0.5f};
  uint8_t zu[7] = {128, 0, 255, 3, 77, 200, 1}, zs[7] = {0, 0x80, 0x7F, 5, 0xFB, 10, 0xFF};
  CHECK_EQ_I(q8_case("q8 u8 per tensor", 13, OX_UINT8, 1, DIMS(1037), -1, x, sc, zu), 0);
  CHECK_EQ_I(q8_case("q8 s8 per tensor (10)", 10, OX_INT8, 2, DIMS(3, 35), -1, x + 1, sc + 1, zs + 1), 0);
  CHECK_EQ_I(q8_case("q8 u8 per axis", 13, OX_UINT8, 3, DIMS(2, 7, 37), 1, x + 3, sc, zu), 0);
  CHECK_EQ_I(q8_case("q8 s8 per axis 0", 19, OX_INT8, 2, DIMS(7, 99), 0, x, sc, zs), 0);
  CHECK_EQ_I(q8_case("q8 u8 big", 13, OX_UINT8, 1, DIMS(BIG), -1, x, sc + 4, zu + 4), 0);
  CHECK_EQ_I(q8_case("q8 s8 big per axis", 13, OX_INT8, 2, DIMS(7, BIG / 7), 0, x, sc, zs), 0);
  free(x);
}

/* DequantizeLinear's 8-bit float path (dequantize8) against the reference's
 * computation written out: (x - zero point) in double, times the scale,
 * rounded once to float. uint8 and int8, per tensor and per axis, odd rows,
 * a negative, a tiny, an infinite and a NaN scale; plain and AVX2; 1 and 3
 * threads; compared bit for bit. */
static int dq8_case(const char *label, ox_dtype xt, int rank, const int64_t *dims, int axis,
                    const uint8_t *x, const float *sc, const uint8_t *zp) {
  int64_t n = 1, D = 1, inner = 1;
  for (int d = 0; d < rank; d++) n *= dims[d];
  if (axis >= 0) {
    D = dims[axis];
    for (int d = axis + 1; d < rank; d++) inner *= dims[d];
  }
  float *want = malloc(sizeof(float) * (size_t)(n + 1));
  if (!want) return 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = axis >= 0 ? i / inner % D : 0;
    double v = xt == OX_INT8 ? (double)(int8_t)x[i] - (double)(int8_t)zp[d] : (double)x[i] - (double)zp[d];
    want[i] = (float)(v * (double)sc[d]);
  }
  int64_t sd = D;
  ox_value *in[3] = {tensor(xt, rank, dims, x),
                     axis >= 0 ? tensor(OX_FLOAT, 1, &sd, sc) : tensor(OX_FLOAT, 0, NULL, sc),
                     axis >= 0 ? tensor(xt, 1, &sd, zp) : tensor(xt, 0, NULL, zp)};
  ox_attr ax[1] = {attr_int("axis", axis)};
  int bad = paths_agree(label, "DequantizeLinear", 13, axis >= 0, ax, 3, in, OX_FLOAT, want,
                        sizeof(float), n);
  free(want);
  return bad;
}

static void test_dequantize8(void) {
  enum { BIG = (1 << 20) + 21 };
  uint8_t *x = malloc(BIG);
  CHECK(x != NULL);
  if (!x) return;
  uint32_t r = 4242;
  for (int64_t i = 0; i < BIG; i++) {
    r = r * 1664525u + 1013904223u;
    x[i] = (uint8_t)(r >> 24);
  }
  float sc[5] = {0.0173f, -2.5f, 1e-30f, INFINITY, NAN};
  uint8_t zu[5] = {128, 0, 255, 7, 3}, zs[5] = {0, 0x80, 0x7F, 0xF0, 1};
  CHECK_EQ_I(dq8_case("dq8 u8 per tensor", OX_UINT8, 1, DIMS(1031), -1, x, sc, zu), 0);
  CHECK_EQ_I(dq8_case("dq8 s8 per tensor", OX_INT8, 2, DIMS(3, 29), -1, x, sc + 1, zs + 1), 0);
  CHECK_EQ_I(dq8_case("dq8 u8 per axis", OX_UINT8, 3, DIMS(2, 5, 41), 1, x + 1, sc, zu), 0);
  CHECK_EQ_I(dq8_case("dq8 s8 per axis", OX_INT8, 2, DIMS(5, 77), 0, x + 2, sc, zs), 0);
  CHECK_EQ_I(dq8_case("dq8 s8 big", OX_INT8, 1, DIMS(BIG), -1, x, sc, zs), 0);
  free(x);
}

static void test_qlinear_matmul(void) {
  ox_value *y[1], *in[8];
  /* a per row ((M,) scale and zero point), b per column ((N,) scale) */
  in[0] = T_(OX_UINT8, uint8_t, 2, DIMS(2, 2), {1, 2, 3, 4});
  in[1] = F32(1, DIMS(2), {1, 2});
  in[2] = T_(OX_UINT8, uint8_t, 1, DIMS(2), {1, 0});
  in[3] = T_(OX_UINT8, uint8_t, 2, DIMS(2, 2), {1, 0, 0, 1}); /* identity */
  in[4] = F32(1, DIMS(2), {1, 3});
  in[5] = T_(OX_UINT8, uint8_t, 1, DIMS(2), {0, 0});
  in[6] = F32(0, SCALAR, {2});
  in[7] = T_(OX_UINT8, uint8_t, 0, SCALAR, {250});
  /* (a - zp) = [[0, 1], [3, 4]]; times a_s * b_s / y_s = [[0.5, 1.5], [1, 3]]:
   * [[0, 1.5 -> 2 (even)], [3, 12]] + 250, saturating at 255 */
  CHECK(!run("QLinearMatMul", 10, 0, NULL, 8, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 2, DIMS(2, 2), {250, 252, 253, 255}));
  /* batch dims broadcast: a (2, 1, 2) x b (2, 1) -> (2, 1) */
  in[0] = T_(OX_INT8, int8_t, 3, DIMS(2, 1, 2), {1, 2, 3, -4});
  in[1] = F32(0, SCALAR, {1});
  in[2] = T_(OX_INT8, int8_t, 0, SCALAR, {0});
  in[3] = T_(OX_INT8, int8_t, 2, DIMS(2, 1), {1, 1});
  in[4] = F32(0, SCALAR, {1});
  in[5] = T_(OX_INT8, int8_t, 0, SCALAR, {-1}); /* b - zp = 2 */
  in[6] = F32(0, SCALAR, {0.25f});
  in[7] = T_(OX_INT8, int8_t, 0, SCALAR, {-100});
  CHECK(!run("QLinearMatMul", 21, 0, NULL, 8, in, 1, y));
  CHECK(IS(y[0], OX_INT8, 3, DIMS(2, 1, 1), {-76, -108})); /* 6 * 4 - 100, -2 * 4 - 100 */
  /* mismatched inner dims and a zero point of another type */
  in[3] = T_(OX_INT8, int8_t, 2, DIMS(3, 1), {1, 1, 1});
  CHECK_FAILS(run("QLinearMatMul", 21, 0, NULL, 8, in, 1, y), "inner dimensions");
  in[2] = T_(OX_UINT8, uint8_t, 0, SCALAR, {0});
  CHECK_FAILS(run("QLinearMatMul", 21, 0, NULL, 8, in, 1, y), "a_zero_point");
  /* a scale and its zero point must have the same shape */
  in[2] = T_(OX_INT8, int8_t, 1, DIMS(2), {0, 0});
  CHECK_FAILS(run("QLinearMatMul", 21, 0, NULL, 8, in, 1, y), "must match");
}

/* ---- QLinearMatMul through MatMulInteger's int32 sums ----
 * Random 8-bit a and b of each signedness, zero points and scales per
 * tensor, per row of a and per column of b, batch dims and a 1-D a: every
 * element is the spec's value worked out here (the sum exact in int64, the
 * multiplier a_scale * b_scale / y_scale rounded to float after each step,
 * as the reference's numpy does, then + y_zero_point, rounded to even and
 * saturated). K = 33100 with extreme values makes a sum past int32's range:
 * that case must take the exact (double) product, not a wrapped one. */
static double qm_rnd(double lo, double hi) { return lo + (hi - lo) * (kit_rnd32() / 4294967296.0); }
static ox_value *qm_ints(ox_dtype dt, int rank, const int64_t *dims, int fixed) {
  ox_value *v = tensor(dt, rank, dims, NULL);
  for (int64_t i = 0; i < v->u.t.n; i++) {
    int64_t x = fixed != INT32_MIN ? fixed : dt == OX_INT8 ? (int64_t)(kit_rnd32() % 256) - 128 : kit_rnd32() % 256;
    if (dt == OX_INT8) ((int8_t *)v->u.t.data)[i] = (int8_t)x;
    else ((uint8_t *)v->u.t.data)[i] = (uint8_t)x;
  }
  return v;
}
static ox_value *qm_scales(int64_t n, double lo, double hi) {
  ox_value *v = n ? tensor(OX_FLOAT, 1, &n, NULL) : tensor(OX_FLOAT, 0, NULL, NULL);
  for (int64_t i = 0; i < v->u.t.n; i++) ((float *)v->u.t.data)[i] = (float)qm_rnd(lo, hi);
  return v;
}
/* a (B0, M, K) (B0 0: (M, K); M 0: (K,)) x b (K, N); per: 0 per tensor, 1
 * zero points and scales per row of a and per column of b */
static int qm_case(ox_dtype ta, ox_dtype tb, int64_t B0, int64_t M, int64_t K, int64_t N, int per, int extreme) {
  int64_t ad[3] = {B0, M, K}, bd[2] = {K, N}, m = M ? M : 1, nb = B0 ? B0 : 1;
  int ar = !M ? 1 : B0 ? 3 : 2;
  ox_value *in[8], *y[1];
  in[0] = qm_ints(ta, ar, !M ? ad + 2 : B0 ? ad : ad + 1, extreme ? (ta == OX_INT8 ? 127 : 255) : INT32_MIN);
  in[3] = qm_ints(tb, 2, bd, extreme ? (tb == OX_INT8 ? -128 : 0) : INT32_MIN);
  in[1] = qm_scales(per && M ? M : 0, 0.01, 0.05);
  in[2] = qm_ints(ta, per && M ? 1 : 0, &M, extreme ? 0 : INT32_MIN);
  in[4] = qm_scales(per ? N : 0, 0.01, 0.05);
  in[5] = qm_ints(tb, per ? 1 : 0, &N, extreme ? (tb == OX_INT8 ? 127 : 255) : INT32_MIN);
  in[6] = qm_scales(0, extreme ? 1e5 : 2, extreme ? 1e5 : 40);
  in[7] = qm_ints(OX_UINT8, 0, NULL, 128);
  if (run("QLinearMatMul", 10, 0, NULL, 8, in, 1, y)) return 1;
  const float *as = in[1]->u.t.data, *bs = in[4]->u.t.data, ys = *(const float *)in[6]->u.t.data;
  int bad = !y[0] || y[0]->u.t.dt != OX_UINT8 || y[0]->u.t.n != nb * m * N;
  for (int64_t q = 0; !bad && q < nb; q++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < N; j++) {
        int64_t za = ox_load_i64(ta, in[2]->u.t.data, in[2]->u.t.n > 1 ? i : 0);
        int64_t zb = ox_load_i64(tb, in[5]->u.t.data, in[5]->u.t.n > 1 ? j : 0), acc = 0;
        for (int64_t k = 0; k < K; k++)
          acc += (ox_load_i64(ta, in[0]->u.t.data, (q * m + i) * K + k) - za) *
                 (ox_load_i64(tb, in[3]->u.t.data, k * N + j) - zb);
        float mul = (float)((double)(float)((double)as[in[1]->u.t.n > 1 ? i : 0] * bs[in[4]->u.t.n > 1 ? j : 0]) / ys);
        double r = nearbyint((double)acc * mul + 128);
        uint8_t want = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        uint8_t got = ((const uint8_t *)y[0]->u.t.data)[(q * m + i) * N + j];
        if (got != want) {
          fprintf(stderr, "QLinearMatMul %s x %s (%lld, %lld, %lld, %lld) per %d: [%lld, %lld, %lld] %d, want %d\n",
                  ox_dtype_name(ta), ox_dtype_name(tb), (long long)B0, (long long)M, (long long)K, (long long)N,
                  per, (long long)q, (long long)i, (long long)j, got, want);
          bad = 1;
          break;
        }
      }
  return bad;
}
static void test_qlinear_matmul_int(void) {
  CHECK_EQ_I(qm_case(OX_UINT8, OX_INT8, 0, 37, 300, 70, 0, 0), 0);
  CHECK_EQ_I(qm_case(OX_INT8, OX_INT8, 0, 20, 129, 50, 1, 0), 0);
  CHECK_EQ_I(qm_case(OX_UINT8, OX_UINT8, 2, 9, 64, 33, 1, 0), 0);
  CHECK_EQ_I(qm_case(OX_INT8, OX_UINT8, 0, 5, 40, 7, 0, 0), 0);
  CHECK_EQ_I(qm_case(OX_UINT8, OX_INT8, 0, 0, 77, 19, 0, 0), 0); /* a 1-D a */
  CHECK_EQ_I(qm_case(OX_UINT8, OX_INT8, 0, 2, 33100, 3, 0, 1), 0); /* sums of -2.15e9: past int32 */
}

/* a constant b is packed at load, as MatMulInteger's (the state's first member set) */
static void test_qlinear_matmul_prepared(void) {
  int64_t K = 64, N = 96;
  ox_value *b = qm_ints(OX_INT8, 2, (int64_t[]){K, N}, INT32_MIN);
  static const char *in_[8] = {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, *out_[1] = {"y"};
  const char *init_name[1] = {"b"};
  ox_value *init[1] = {b};
  ox_node n = kit_node("QLinearMatMul", 8, in_, 1, out_);
  ox_valueinfo gi[] = {{.name = "a", .rank = -1}, {.name = "as", .rank = -1}, {.name = "az", .rank = -1},
                       {.name = "bs", .rank = -1}, {.name = "bz", .rank = -1}, {.name = "ys", .rank = -1},
                       {.name = "yz", .rank = -1}},
               go[] = {{.name = "y", .rank = -1}};
  ox_graph g = {"q", 1, &n, 7, gi, 1, go, 1, init_name, init, 0, NULL};
  ox_opset ops[] = {{"", 13}};
  ox_model m = {"q", ".", 8, 1, ops, &g, 0, NULL};
  ox_err_clear(&E);
  CHECK_EQ_I(ox_prepare(A, &m, &E), 0);
  const void *const *st = g.node[0].state;
  CHECK(st && *st);
}

static void test_qlinear_conv(void) {
  ox_value *y[1], *in[9];
  /* 1-D: x - x_zp = [0, 1, 2, 3], left pad 1; w (2, 1, 2) = [1, 1] and
   * [1, -1]; per-channel w_scale [1, 0.5]; bias [10, 3]:
   * ch0 (0, 1, 3, 5) + 10, times 1 / 2: [5, 5.5, 6.5, 7.5] -> 6, 6, 8 (even)
   * ch1 (0, -1, -1, -1) + 3, times 0.5 / 2: [0.75, 0.5, 0.5, 0.5] -> 1, 0 */
  in[0] = T_(OX_UINT8, uint8_t, 3, DIMS(1, 1, 4), {1, 2, 3, 4});
  in[1] = F32(0, SCALAR, {1});
  in[2] = T_(OX_UINT8, uint8_t, 0, SCALAR, {1});
  in[3] = T_(OX_INT8, int8_t, 3, DIMS(2, 1, 2), {1, 1, 1, -1});
  in[4] = F32(1, DIMS(2), {1, 0.5f});
  in[5] = T_(OX_INT8, int8_t, 0, SCALAR, {0});
  in[6] = F32(0, SCALAR, {2});
  in[7] = T_(OX_UINT8, uint8_t, 0, SCALAR, {100});
  in[8] = T_(OX_INT32, int32_t, 1, DIMS(2), {10, 3});
  ox_attr a1[1] = {attr_ints("pads", 2, (int64_t[]){1, 0})};
  CHECK(!run("QLinearConv", 10, 1, a1, 9, in, 1, y));
  CHECK(IS(y[0], OX_UINT8, 3, DIMS(1, 2, 4), {105, 106, 106, 108, 101, 100, 100, 100}));
  /* 2-D, group 2, stride 2, SAME_UPPER (total pad 1, at the end), w all ones */
  in[0] = T_(OX_INT8, int8_t, 4, DIMS(1, 2, 3, 3), {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  in[2] = T_(OX_INT8, int8_t, 0, SCALAR, {0});
  in[3] = T_(OX_INT8, int8_t, 4, DIMS(2, 1, 2, 2), {1, 1, 1, 1, 1, 1, 1, 1});
  in[4] = F32(0, SCALAR, {1});
  in[6] = F32(0, SCALAR, {1});
  in[7] = T_(OX_INT8, int8_t, 0, SCALAR, {0});
  ox_attr a2[3] = {attr_int("group", 2), attr_ints("strides", 2, (int64_t[]){2, 2}),
                   attr_str("auto_pad", "SAME_UPPER")};
  CHECK(!run("QLinearConv", 10, 3, a2, 8, in, 1, y));
  CHECK(IS(y[0], OX_INT8, 4, DIMS(1, 2, 2, 2), {12, 9, 15, 9, 4, 2, 2, 1}));
  /* channels that do not fit the group */
  a2[0] = attr_int("group", 3);
  CHECK_FAILS(run("QLinearConv", 10, 3, a2, 8, in, 1, y), "group");
}

int main(void) {
  A = ox_arena_new();
  test_quantize();
  test_dequantize();
  test_dynamic();
  test_dynamic_paths();
  test_quantize8();
  test_dequantize8();
  test_qlinear_matmul();
  test_qlinear_matmul_int();
  test_qlinear_matmul_prepared();
  test_qlinear_conv();
  ox_arena_free(A);
  return check_done("quant");
}
