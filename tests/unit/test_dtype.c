/* tests/unit/test_dtype.c: scalar conversions (core/convert.c).
 *
 * The conversions are checked against references written independently here:
 * each format's value formula, and a "nearest code" search (binary search over
 * the codes, ties to the even code) that knows nothing of bit tricks. Known
 * vectors come from the ONNX conformance data (test_cast_*). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/dtype.h"

/* ---- reference formats ---- */

typedef struct {
  const char *name;
  ox_dtype dt;     /* 0 for float16 / bfloat16 / float4 */
  int ebits, mbits, bias;
  unsigned max;    /* largest finite code */
  int has_inf, uz; /* IEEE-like Inf; fnuz */
  unsigned sign;
} rfmt;

static const rfmt R_F16 = {"f16", OX_UNDEFINED, 5, 10, 15, 0x7BFF, 1, 0, 0x8000};
static const rfmt R_BF16 = {"bf16", OX_UNDEFINED, 8, 7, 127, 0x7F7F, 1, 0, 0x8000};
static const rfmt R_F8[] = {
    {"e4m3fn", OX_FLOAT8E4M3FN, 4, 3, 7, 0x7E, 0, 0, 0x80},
    {"e4m3fnuz", OX_FLOAT8E4M3FNUZ, 4, 3, 8, 0x7F, 0, 1, 0x80},
    {"e5m2", OX_FLOAT8E5M2, 5, 2, 15, 0x7B, 1, 0, 0x80},
    {"e5m2fnuz", OX_FLOAT8E5M2FNUZ, 5, 2, 16, 0x7F, 0, 1, 0x80},
};
static const rfmt R_F4 = {"f4", OX_UNDEFINED, 2, 1, 1, 0x7, 0, 0, 0x8};

/* The value of a non-negative finite code, straight from the format's
 * definition (Float8.md): 2^(E - bias) * 1.M, or 2^(1 - bias) * 0.M. */
static double rval(const rfmt *F, unsigned c) {
  unsigned e = c >> F->mbits, m = c & ((1u << F->mbits) - 1);
  double frac = m / pow(2, F->mbits);
  return e ? pow(2, (int)e - F->bias) * (1 + frac) : pow(2, 1 - F->bias) * frac;
}

static int is_nan_code(const rfmt *F, unsigned c) {
  unsigned mag = c & (F->sign - 1);
  if (F->uz) return c == F->sign;
  if (F->has_inf) return mag > F->max + 1;
  return mag > F->max;
}

/* Nearest code to x >= 0 (finite), ties to the even code; returns max + 1 for
 * "overflow", i.e. when x rounded to the format's precision with an unbounded
 * exponent exceeds the largest finite value. */
static unsigned rnear(const rfmt *F, double x) {
  unsigned lo = 0, hi = F->max; /* largest code with value <= x */
  if (x >= rval(F, F->max)) lo = F->max;
  else
    while (lo < hi) {
      unsigned mid = (lo + hi + 1) / 2;
      if (rval(F, mid) <= x) lo = mid; else hi = mid - 1;
    }
  double a = rval(F, lo);
  if (lo == F->max) { /* above max: the next step would be max + ulp(max) */
    double next = a + (a - rval(F, F->max - 1));
    if (x - a < next - x || (x - a == next - x && (lo & 1) == 0)) return lo;
    return F->max + 1;
  }
  double b = rval(F, lo + 1);
  if (x - a < b - x) return lo;
  if (x - a > b - x) return lo + 1;
  return (lo & 1) ? lo + 1 : lo;
}

/* Expected code for x under Cast's rules (the saturate tables in Operators.md). */
static unsigned rencode(const rfmt *F, double x, int saturate) {
  unsigned s = signbit(x) ? F->sign : 0;
  /* the canonical NaN: Inf with the top mantissa bit (quiet), or all ones */
  unsigned nan = F->uz ? F->sign : (s | (F->max + 1 + (F->has_inf ? 1u << (F->mbits - 1) : 0)));
  if (isnan(x) && F == &R_F4) return s ? 0x0 : 0x8; /* no NaN: ml_dtypes' choice */
  if (isnan(x)) return nan;
  unsigned c = isinf(x) ? F->max + 1 : rnear(F, fabs(x));
  if (c > F->max) {
    if (saturate) c = F->max;
    else if (F->has_inf) c = F->max + 1;
    else return nan;
  }
  if (F->uz && c == 0) return 0;
  return c | s;
}

/* ---- the functions under test, by format ---- */

static float dec(const rfmt *F, unsigned c) {
  if (F == &R_F16) return ox_f16_to_f32((uint16_t)c);
  if (F == &R_BF16) return ox_bf16_to_f32((uint16_t)c);
  if (F == &R_F4) return ox_f4_to_f32((uint8_t)c);
  return ox_f8_to_f32(F->dt, (uint8_t)c);
}
static unsigned enc(const rfmt *F, float x, int saturate) {
  if (F == &R_F16) return ox_f32_to_f16(x);
  if (F == &R_BF16) return ox_f32_to_bf16(x);
  if (F == &R_F4) return ox_f32_to_f4(x);
  return ox_f32_to_f8(F->dt, x, saturate);
}

static float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* Checks code c and its negation decode to the reference values, and that every
 * code survives decode + encode (NaN codes as some NaN code). Returns the number
 * of mismatches, printing the first few. */
static int roundtrip_all(const rfmt *F, int saturate) {
  int bad = 0;
  unsigned n = F->sign << 1;
  for (unsigned c = 0; c < n; c++) {
    float v = dec(F, c);
    unsigned back = enc(F, v, saturate);
    int ok;
    if (is_nan_code(F, c)) ok = isnan(v) && is_nan_code(F, back);
    else {
      unsigned mag = c & (F->sign - 1);
      double want = mag > F->max ? INFINITY : rval(F, mag);
      if (c & F->sign) want = -want;
      /* saturate turns Inf into the largest finite value (Cast-19 table) */
      unsigned want_back = saturate && mag > F->max ? (F->max | (c & F->sign)) : c;
      ok = (double)v == want && !!signbit(v) == !!(c & F->sign) && back == want_back;
    }
    if (!ok && bad++ < 5)
      fprintf(stderr, "  %s code 0x%x: decodes to %g, encodes back to 0x%x\n",
              F->name, c, (double)v, back);
  }
  return bad;
}

/* Compares enc() with rencode() on every code's value, every midpoint between
 * neighbouring codes and the floats just either side of it, both signs, and
 * a few out-of-range values. */
static int nearest_all(const rfmt *F, int saturate) {
  int bad = 0;
  for (unsigned c = 0; c <= F->max + 1; c++) {
    double a = rval(F, c > F->max ? F->max : c);
    double b = c < F->max ? rval(F, c + 1) : a + (a - rval(F, F->max - 1));
    float mid = (float)((a + b) / 2); /* exact: one more bit than the format */
    float xs[] = {(float)a, mid, nextafterf(mid, 0), nextafterf(mid, INFINITY),
                  (float)b, (float)(4 * b), 1e30f, INFINITY, NAN};
    for (size_t k = 0; k < sizeof xs / sizeof *xs; k++)
      for (int sg = 0; sg < 2; sg++) {
        float x = sg ? -xs[k] : xs[k];
        unsigned got = enc(F, x, saturate), want = rencode(F, x, saturate);
        if (got != want && bad++ < 5)
          fprintf(stderr, "  %s(sat=%d) of %.9g: got 0x%x, want 0x%x\n", F->name,
                  saturate, (double)x, got, want);
      }
  }
  return bad;
}

/* ---- float16 / bfloat16 ---- */

static void test_f16(void) {
  CHECK_EQ_I(roundtrip_all(&R_F16, 0), 0);
  CHECK_EQ_I(nearest_all(&R_F16, 0), 0);

  CHECK_EQ_I(ox_f32_to_f16(1.0f), 0x3C00);
  CHECK_EQ_I(ox_f32_to_f16(-2.0f), 0xC000);
  CHECK_EQ_I(ox_f32_to_f16(-0.0f), 0x8000);
  CHECK_EQ_I(ox_f32_to_f16(65504.0f), 0x7BFF);
  /* ties to even */
  CHECK_EQ_I(ox_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3C00);        /* -> 1.0 */
  CHECK_EQ_I(ox_f32_to_f16(1.0f + 3 * ldexpf(1, -11)), 0x3C02);    /* -> 1 + 2^-9 */
  CHECK_EQ_I(ox_f32_to_f16(nextafterf(1.0f + ldexpf(1, -11), 2)), 0x3C01);
  /* overflow */
  CHECK_EQ_I(ox_f32_to_f16(65519.0f), 0x7BFF);
  CHECK_EQ_I(ox_f32_to_f16(65520.0f), 0x7C00);
  CHECK_EQ_I(ox_f32_to_f16(-65520.0f), 0xFC00);
  CHECK_EQ_I(ox_f32_to_f16(1e10f), 0x7C00);
  CHECK_EQ_I(ox_f32_to_f16(INFINITY), 0x7C00);
  CHECK_EQ_I(ox_f32_to_f16(-INFINITY), 0xFC00);
  /* subnormals */
  CHECK_EQ_I(ox_f32_to_f16(ldexpf(1, -24)), 0x0001);
  CHECK_EQ_I(ox_f32_to_f16(ldexpf(1, -25)), 0x0000);           /* tie -> 0 */
  CHECK_EQ_I(ox_f32_to_f16(-ldexpf(1, -25)), 0x8000);
  CHECK_EQ_I(ox_f32_to_f16(3 * ldexpf(1, -26)), 0x0001);       /* 0.75 ulp -> up */
  CHECK_EQ_I(ox_f32_to_f16(3 * ldexpf(1, -25)), 0x0002);       /* 1.5 -> 2 (even) */
  CHECK_EQ_I(ox_f32_to_f16(ldexpf(1, -14)), 0x0400);           /* smallest normal */
  CHECK_EQ_I(ox_f32_to_f16(ldexpf(1023, -24)), 0x03FF);        /* largest subnormal */
  CHECK_EQ_I(ox_f32_to_f16(bits_f(1)), 0x0000);                /* float subnormal */
  CHECK(ox_f16_to_f32(0x0001) == ldexpf(1, -24));
  CHECK(ox_f16_to_f32(0x7BFF) == 65504.0f);
  CHECK(ox_f16_to_f32(0x7C00) == INFINITY);
  CHECK(ox_f16_to_f32(0xFC00) == -INFINITY);
  /* NaN stays a quiet NaN */
  CHECK(isnan(ox_f16_to_f32(0x7E00)) && isnan(ox_f16_to_f32(0x7C01)));
  CHECK((f_bits(ox_f16_to_f32(0x7C01)) & 0x400000) != 0);
  uint16_t h = ox_f32_to_f16(NAN);
  CHECK((h & 0x7C00) == 0x7C00 && (h & 0x3FF) && (h & 0x200));
  CHECK_EQ_I(ox_f32_to_f16(-NAN) & 0x8000, 0x8000);
}

static void test_bf16(void) {
  CHECK_EQ_I(roundtrip_all(&R_BF16, 0), 0);
  CHECK_EQ_I(nearest_all(&R_BF16, 0), 0);

  /* Cross-check with the usual bit formula on a spread of float bit patterns. */
  int bad = 0;
  for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 7919) {
    float f = bits_f((uint32_t)u);
    if (isnan(f)) continue;
    uint32_t b = (uint32_t)u;
    uint32_t want = (b + 0x7FFF + ((b >> 16) & 1)) >> 16;
    if (ox_f32_to_bf16(f) != want && bad++ < 5)
      fprintf(stderr, "  bf16 of 0x%08x: got 0x%04x, want 0x%04x\n", b,
              ox_f32_to_bf16(f), want);
  }
  CHECK_EQ_I(bad, 0);

  CHECK_EQ_I(ox_f32_to_bf16(1.0f), 0x3F80);
  CHECK_EQ_I(ox_f32_to_bf16(1.0f + ldexpf(1, -8)), 0x3F80);      /* tie -> even */
  CHECK_EQ_I(ox_f32_to_bf16(1.0f + 3 * ldexpf(1, -8)), 0x3F82);  /* tie -> even */
  CHECK_EQ_I(ox_f32_to_bf16(FLT_MAX), 0x7F80);            /* rounds up to Inf */
  CHECK_EQ_I(ox_f32_to_bf16(INFINITY), 0x7F80);
  CHECK_EQ_I(ox_f32_to_bf16(-0.0f), 0x8000);
  CHECK_EQ_I(ox_f32_to_bf16(bits_f(0x00010000)), 0x0001);        /* subnormal */
  CHECK_EQ_I(ox_f32_to_bf16(bits_f(0x00008000)), 0x0000);        /* tie -> 0 */
  CHECK_EQ_I(ox_f32_to_bf16(bits_f(0x00018000)), 0x0002);        /* tie -> 2 */
  uint16_t h = ox_f32_to_bf16(NAN);
  CHECK((h & 0x7F80) == 0x7F80 && (h & 0x7F));
  CHECK(isnan(ox_bf16_to_f32(0x7F81)));
  CHECK((f_bits(ox_bf16_to_f32(0x7F81)) & 0x400000) != 0); /* quieted */
  CHECK(ox_bf16_to_f32(0xC040) == -3.0f);
}

/* ---- float8 ---- */

static void test_f8(void) {
  for (int k = 0; k < 4; k++) {
    const rfmt *F = &R_F8[k];
    CHECK_EQ_I(roundtrip_all(F, 1), 0);
    CHECK_EQ_I(roundtrip_all(F, 0), 0);
    CHECK_EQ_I(nearest_all(F, 1), 0);
    CHECK_EQ_I(nearest_all(F, 0), 0);
  }

  /* known values (Float8.md) */
  CHECK(ox_f8_to_f32(OX_FLOAT8E4M3FN, 0x7E) == 448.0f);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FN, 448.0f, 1), 0x7E);
  CHECK(isnan(ox_f8_to_f32(OX_FLOAT8E4M3FN, 0x7F)));
  CHECK(isnan(ox_f8_to_f32(OX_FLOAT8E4M3FN, 0xFF)));
  CHECK(ox_f8_to_f32(OX_FLOAT8E4M3FN, 0x01) == ldexpf(1, -9));
  CHECK(ox_f8_to_f32(OX_FLOAT8E4M3FNUZ, 0x7F) == 240.0f);
  CHECK(ox_f8_to_f32(OX_FLOAT8E4M3FNUZ, 0x01) == ldexpf(1, -10));
  CHECK(isnan(ox_f8_to_f32(OX_FLOAT8E4M3FNUZ, 0x80)));
  CHECK(ox_f8_to_f32(OX_FLOAT8E5M2, 0x7B) == 57344.0f);
  CHECK(ox_f8_to_f32(OX_FLOAT8E5M2, 0x7C) == INFINITY);
  CHECK(ox_f8_to_f32(OX_FLOAT8E5M2, 0xFC) == -INFINITY);
  CHECK(isnan(ox_f8_to_f32(OX_FLOAT8E5M2, 0x7D)));
  CHECK(ox_f8_to_f32(OX_FLOAT8E5M2, 0x01) == ldexpf(1, -16));
  CHECK(ox_f8_to_f32(OX_FLOAT8E5M2FNUZ, 0x7F) == 57344.0f);
  CHECK(ox_f8_to_f32(OX_FLOAT8E5M2FNUZ, 0x01) == ldexpf(1, -17));
  CHECK(isnan(ox_f8_to_f32(OX_FLOAT8E5M2FNUZ, 0x80)));

  /* overflow edges: e4m3fn 464 ties to 448 (even), above is out of range */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FN, 464.0f, 0), 0x7E);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FN, 465.0f, 0), 0x7F);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FN, 465.0f, 1), 0x7E);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FN, -1e6f, 0), 0xFF);   /* -NaN */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FNUZ, 248.0f, 0), 0x80); /* ties up: odd max */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FNUZ, 247.0f, 0), 0x7F);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E4M3FNUZ, -0.0f, 0), 0x00);  /* no -0 */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2, 61440.0f, 0), 0x7C);   /* -> Inf */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2, 61439.0f, 0), 0x7B);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2, 61440.0f, 1), 0x7B);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2, -INFINITY, 0), 0xFC);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2, -INFINITY, 1), 0xFB);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2FNUZ, INFINITY, 0), 0x80);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2FNUZ, INFINITY, 1), 0x7F);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E5M2, -NAN, 1), 0xFE);

  /* The ONNX conformance vectors: test_cast_FLOAT_to_FLOAT8* (saturate=1) and
   * test_cast_no_saturate_FLOAT_to_FLOAT8* (saturate=0). */
  static const float in[15] = {0.47892547f, 0.48033667f, 0.49968487f, 0.81910545f,
                               0.47031248f, 0.7229038f,  1000000.0f,  1e-7f,
                               NAN,         INFINITY,    INFINITY,    -INFINITY,
                               -1e-7f,      1e-7f,       -1000000.0f};
  static const struct { ox_dtype dt; int sat; uint8_t out[15]; } vec[] = {
      {OX_FLOAT8E4M3FN, 1, {0x2f, 0x2f, 0x30, 0x35, 0x2f, 0x34, 0x7e, 0x00, 0x7f, 0x7e, 0x7e, 0xfe, 0x80, 0x00, 0xfe}},
      {OX_FLOAT8E4M3FNUZ, 1, {0x37, 0x37, 0x38, 0x3d, 0x37, 0x3c, 0x7f, 0x00, 0x80, 0x7f, 0x7f, 0xff, 0x00, 0x00, 0xff}},
      {OX_FLOAT8E5M2, 1, {0x38, 0x38, 0x38, 0x3b, 0x38, 0x3a, 0x7b, 0x00, 0x7e, 0x7b, 0x7b, 0xfb, 0x80, 0x00, 0xfb}},
      {OX_FLOAT8E5M2FNUZ, 1, {0x3c, 0x3c, 0x3c, 0x3f, 0x3c, 0x3e, 0x7f, 0x00, 0x80, 0x7f, 0x7f, 0xff, 0x00, 0x00, 0xff}},
      {OX_FLOAT8E4M3FN, 0, {0x2f, 0x2f, 0x30, 0x35, 0x2f, 0x34, 0x7f, 0x00, 0x7f, 0x7f, 0x7f, 0xff, 0x80, 0x00, 0xff}},
      {OX_FLOAT8E4M3FNUZ, 0, {0x37, 0x37, 0x38, 0x3d, 0x37, 0x3c, 0x80, 0x00, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x80}},
      {OX_FLOAT8E5M2, 0, {0x38, 0x38, 0x38, 0x3b, 0x38, 0x3a, 0x7c, 0x00, 0x7e, 0x7c, 0x7c, 0xfc, 0x80, 0x00, 0xfc}},
      {OX_FLOAT8E5M2FNUZ, 0, {0x3c, 0x3c, 0x3c, 0x3f, 0x3c, 0x3e, 0x80, 0x00, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x80}},
  };
  for (size_t v = 0; v < sizeof vec / sizeof *vec; v++)
    for (int j = 0; j < 15; j++)
      CHECK_EQ_I(ox_f32_to_f8(vec[v].dt, in[j], vec[v].sat), vec[v].out[j]);
}

/* ---- float8e8m0 ---- */

static void test_e8m0(void) {
  int bad = 0;
  for (unsigned c = 0; c < 256; c++) {
    float v = ox_f8_to_f32(OX_FLOAT8E8M0, (uint8_t)c);
    int ok = c == 0xFF ? isnan(v) : v == ldexpf(1, (int)c - 127);
    ok = ok && ox_f32_to_f8(OX_FLOAT8E8M0, v, 1) == c && ox_f32_to_f8(OX_FLOAT8E8M0, v, 0) == c;
    if (!ok && bad++ < 5) fprintf(stderr, "  e8m0 code 0x%x -> %g\n", c, (double)v);
  }
  CHECK_EQ_I(bad, 0);
  /* test_cast_e8m0_FLOAT_to_FLOAT8E8M0 (round_mode up, saturate) */
  static const float in[8] = {0.0f, 0.124f, 0.25f, 0.5f, 1.1f, 2.0f, 4.0f, 8.0f};
  static const uint8_t out[8] = {0x00, 0x7c, 0x7d, 0x7e, 0x80, 0x80, 0x81, 0x82};
  for (int j = 0; j < 8; j++) CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, in[j], 1), out[j]);
  /* the special values of Cast-25's table */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, NAN, 1), 0xFF);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, INFINITY, 1), 0xFE);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, INFINITY, 0), 0xFF);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, 0.0f, 0), 0xFF);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, 1.5f * ldexpf(1, 127), 1), 0xFE);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, 1.5f * ldexpf(1, 127), 0), 0xFF);
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, ldexpf(1, -130), 1), 0x00); /* up to 2^-127 */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, ldexpf(3, -128), 1), 0x01); /* 1.5*2^-127 up */
  CHECK_EQ_I(ox_f32_to_f8(OX_FLOAT8E8M0, -4.0f, 1), 0x81);           /* |x| */
}

/* ---- float4e2m1 ---- */

static void test_f4(void) {
  static const float vals[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (unsigned c = 0; c < 16; c++) {
    float want = (c & 8) ? -vals[c & 7] : vals[c & 7];
    float v = ox_f4_to_f32((uint8_t)c);
    CHECK(v == want && !!signbit(v) == !!(c & 8));
    CHECK_EQ_I(ox_f32_to_f4(v), c);
  }
  CHECK_EQ_I(ox_f4_to_f32(0xF7) == 6.0f, 1); /* only the low 4 bits count */
  CHECK_EQ_I(nearest_all(&R_F4, 1), 0);
  CHECK_EQ_I(ox_f32_to_f4(0.25f), 0x0);  /* tie -> 0 */
  CHECK_EQ_I(ox_f32_to_f4(0.75f), 0x2);  /* tie -> 1.0 */
  CHECK_EQ_I(ox_f32_to_f4(1.25f), 0x2);  /* tie -> 1.0 */
  CHECK_EQ_I(ox_f32_to_f4(1.75f), 0x4);  /* tie -> 2.0 */
  CHECK_EQ_I(ox_f32_to_f4(2.5f), 0x4);   /* tie -> 2.0 */
  CHECK_EQ_I(ox_f32_to_f4(3.5f), 0x6);   /* tie -> 4.0 */
  CHECK_EQ_I(ox_f32_to_f4(5.0f), 0x6);   /* tie -> 4.0 */
  CHECK_EQ_I(ox_f32_to_f4(5.01f), 0x7);
  CHECK_EQ_I(ox_f32_to_f4(7.0f), 0x7);   /* saturates */
  CHECK_EQ_I(ox_f32_to_f4(-7.0f), 0xF);
  CHECK_EQ_I(ox_f32_to_f4(-INFINITY), 0xF);
  CHECK_EQ_I(ox_f32_to_f4(-0.0f), 0x8);
  /* test_cast_FLOAT_to_FLOAT4E2M1 (NaN -> 0x8, as ml_dtypes does) */
  static const float in[15] = {0.48f, 0.25f, 1.05f, -3.5f, -8, 9, 1000000, 1e-7f,
                               NAN, INFINITY, INFINITY, -INFINITY, -4, 0.01f, -0.0f};
  static const uint8_t out[15] = {0x1, 0x0, 0x2, 0xe, 0xf, 0x7, 0x7, 0x0,
                                  0x8, 0x7, 0x7, 0xf, 0xe, 0x0, 0x8};
  for (int j = 0; j < 15; j++) CHECK_EQ_I(ox_f32_to_f4(in[j]), out[j]);
}

/* ---- load / store ---- */

static void test_load_store(void) {
  unsigned char buf[4 * 16];
  for (int d = 1; d < OX_DTYPE_MAX; d++) {
    ox_dtype dt = (ox_dtype)d;
    if (dt == OX_STRING) continue;
    int sgn = ox_dtype_is_signed_int(dt) || (ox_dtype_is_float(dt) && dt != OX_FLOAT8E8M0) ||
              ox_dtype_is_complex(dt);
    int bad = 0;
    /* values every non-bool dtype holds exactly (int2 holds -2..1) */
    static const double vs[] = {1, 0, -1, -2};
    for (int k = 0; k < 4; k++) {
      double v = vs[k];
      if (v < 0 && !sgn) continue;
      if (dt == OX_BOOL && v != 0 && v != 1) continue;
      if (dt == OX_FLOAT8E8M0 && v == 0) continue; /* e8m0 has no zero */
      memset(buf, 0xAB, sizeof buf);
      ox_store_f64(dt, buf, 2, v);
      int ok = ox_load_f64(dt, buf, 2) == v && ox_load_i64(dt, buf, 2) == (int64_t)v &&
               ox_load_u64(dt, buf, 2) == (uint64_t)(int64_t)v;
      ox_store_i64(dt, buf, 1, (int64_t)v);
      ok = ok && ox_load_f64(dt, buf, 1) == v;
      /* neighbours untouched */
      size_t sz = ox_dtype_size(dt);
      ok = ok && buf[sz - 1] == 0xAB && buf[3 * sz] == 0xAB;
      if (!ok && bad++ < 3) fprintf(stderr, "  load/store %s of %g\n", ox_dtype_name(dt), v);
    }
    CHECK_EQ_I(bad, 0);
  }

  /* every dtype's element is where ox_dtype_size says */
  float f4[4] = {0};
  ox_store_f64(OX_FLOAT, f4, 3, 2.5);
  CHECK(f4[3] == 2.5f && f4[2] == 0);
  int16_t i16[3] = {0};
  ox_store_i64(OX_INT16, i16, 1, -300);
  CHECK_EQ_I(i16[1], -300);
  CHECK_EQ_I(ox_load_i64(OX_INT16, i16, 1), -300);
  CHECK_EQ_I(ox_load_u64(OX_INT16, i16, 1), (uint64_t)(int64_t)-300);

  /* small integer types: one element per byte, wrapping to their width */
  int8_t s8[2];
  uint8_t u8[2];
  ox_store_i64(OX_INT4, s8, 0, 7);   CHECK_EQ_I(s8[0], 7);
  ox_store_i64(OX_INT4, s8, 0, 8);   CHECK_EQ_I(s8[0], -8);
  ox_store_i64(OX_INT4, s8, 0, -9);  CHECK_EQ_I(s8[0], 7);
  ox_store_i64(OX_INT4, s8, 1, -3);  CHECK_EQ_I(ox_load_i64(OX_INT4, s8, 1), -3);
  ox_store_i64(OX_UINT4, u8, 0, 17); CHECK_EQ_I(u8[0], 1);
  ox_store_i64(OX_UINT4, u8, 0, -1); CHECK_EQ_I(u8[0], 15);
  ox_store_i64(OX_INT2, s8, 0, 2);   CHECK_EQ_I(s8[0], -2);
  ox_store_i64(OX_INT2, s8, 0, -3);  CHECK_EQ_I(s8[0], 1);
  ox_store_i64(OX_UINT2, u8, 0, 5);  CHECK_EQ_I(u8[0], 1);
  ox_store_f64(OX_INT4, s8, 0, -5.9); CHECK_EQ_I(s8[0], -5); /* truncates */
  ox_store_f64(OX_UINT8, u8, 0, 300); CHECK_EQ_I(u8[0], 44); /* wraps */
  ox_store_i64(OX_INT8, s8, 0, 200); CHECK_EQ_I(s8[0], -56); /* Cast's example */

  /* bool: 0/1 in a byte; nonzero (and NaN) is true */
  ox_store_i64(OX_BOOL, u8, 0, 5);      CHECK_EQ_I(u8[0], 1);
  ox_store_f64(OX_BOOL, u8, 0, 0.5);    CHECK_EQ_I(u8[0], 1);
  ox_store_f64(OX_BOOL, u8, 0, NAN);    CHECK_EQ_I(u8[0], 1);
  ox_store_f64(OX_BOOL, u8, 0, -0.0);   CHECK_EQ_I(u8[0], 0);

  /* 64-bit integers are exact */
  int64_t i64[1];
  uint64_t u64[1];
  ox_store_i64(OX_INT64, i64, 0, INT64_MIN);
  CHECK(ox_load_i64(OX_INT64, i64, 0) == INT64_MIN);
  ox_store_i64(OX_INT64, i64, 0, INT64_MAX);
  CHECK(ox_load_i64(OX_INT64, i64, 0) == INT64_MAX);
  ox_store_i64(OX_UINT64, u64, 0, -1);
  CHECK(ox_load_u64(OX_UINT64, u64, 0) == UINT64_MAX);
  CHECK(ox_load_i64(OX_UINT64, u64, 0) == -1);
  CHECK(ox_load_f64(OX_UINT64, u64, 0) == 18446744073709551616.0);
  ox_store_f64(OX_UINT64, u64, 0, 1e19);
  CHECK(u64[0] == UINT64_C(10000000000000000000));
  ox_store_f64(OX_INT64, i64, 0, -1e300); /* out of range: clamped, no UB */
  CHECK(i64[0] == INT64_MIN);
  int32_t i32[1];
  ox_store_f64(OX_INT32, i32, 0, NAN);
  CHECK_EQ_I(i32[0], 0);

  /* complex: real part in, imaginary part 0 */
  ox_c64 c64[2];
  ox_c128 c128[2];
  ox_store_f64(OX_COMPLEX64, c64, 1, 2.5);
  CHECK(c64[1].re == 2.5f && c64[1].im == 0);
  c64[1].im = 7;
  CHECK(ox_load_f64(OX_COMPLEX64, c64, 1) == 2.5);
  ox_store_i64(OX_COMPLEX128, c128, 1, -3);
  CHECK(c128[1].re == -3 && c128[1].im == 0);
  CHECK_EQ_I(ox_load_i64(OX_COMPLEX128, c128, 1), -3);

  /* floats: doubles round once, straight to the target */
  uint16_t h[1];
  ox_store_f64(OX_FLOAT16, h, 0, 1 + ldexp(1, -11) + ldexp(1, -40));
  CHECK_EQ_I(h[0], 0x3C01); /* via float it would tie to 0x3C00 */
  ox_store_f64(OX_FLOAT16, h, 0, 1e6);
  CHECK_EQ_I(h[0], 0x7C00);
  ox_store_f64(OX_FLOAT16, h, 0, -2.5);
  CHECK(ox_load_f64(OX_FLOAT16, h, 0) == -2.5);
  ox_store_i64(OX_BFLOAT16, h, 0, (INT64_C(1) << 62) + (INT64_C(1) << 54) + 1);
  CHECK_EQ_I(h[0], 0x5E81); /* just above the tie: rounds up */
  ox_store_i64(OX_BFLOAT16, h, 0, (INT64_C(1) << 62) + (INT64_C(1) << 54));
  CHECK_EQ_I(h[0], 0x5E80); /* the tie itself: to even */
  ox_store_i64(OX_FLOAT, f4, 0, (INT64_C(1) << 24) + 1);
  CHECK(f4[0] == 16777216.0f);
  ox_store_f64(OX_FLOAT, f4, 0, 0.1);
  CHECK(f4[0] == 0.1f);
  ox_store_f64(OX_FLOAT16, h, 0, 1.5);
  CHECK_EQ_I(ox_load_i64(OX_FLOAT16, h, 0), 1); /* truncates */
  CHECK_EQ_I(ox_load_u64(OX_FLOAT16, h, 0), 1);
  ox_store_f64(OX_FLOAT, f4, 0, NAN);
  CHECK_EQ_I(ox_load_i64(OX_FLOAT, f4, 0), 0);

  /* small floats: Cast's defaults (saturate; e8m0 rounds up) */
  ox_store_f64(OX_FLOAT8E4M3FN, u8, 0, 1000);  CHECK_EQ_I(u8[0], 0x7E);
  ox_store_f64(OX_FLOAT8E5M2, u8, 0, -1e9);    CHECK_EQ_I(u8[0], 0xFB);
  ox_store_f64(OX_FLOAT8E8M0, u8, 0, 3);       CHECK_EQ_I(u8[0], 0x81);
  ox_store_f64(OX_FLOAT4E2M1, u8, 0, -2.9);    CHECK_EQ_I(u8[0], 0xD);
  CHECK(ox_load_f64(OX_FLOAT4E2M1, u8, 0) == -3.0);
  CHECK(ox_load_f64(OX_FLOAT8E8M0, (uint8_t[]){0x81}, 0) == 4.0);
}

/* ox_round_to: one rounding to the type's precision, nothing for double or
 * the types that are not floats */
static void test_round_to(void) {
  CHECK(ox_round_to(OX_DOUBLE, 0.1) == 0.1);
  CHECK(ox_round_to(OX_FLOAT, 0.1) == (double)0.1f);
  CHECK(ox_round_to(OX_FLOAT, 0.1) != 0.1);
  CHECK(ox_round_to(OX_FLOAT16, 0.1) == 0.0999755859375); /* 0x2E66 */
  CHECK(ox_round_to(OX_BFLOAT16, 0.1) == 0.10009765625);  /* 0x3DCD */
  /* -2 + 2/3 + 1/3 in float32 stays inside -1, in double it falls below */
  double b = ox_round_to(OX_FLOAT, 2.0 / 3);
  CHECK(ox_round_to(OX_FLOAT, ox_round_to(OX_FLOAT, -2 + b) + ox_round_to(OX_FLOAT, 0.5 * b)) >= -1);
  CHECK(-2 + 2.0 / 3 + 0.5 * (2.0 / 3) < -1);
  /* once, from the double: 1 + 2^-11 + 2^-40 is above float16's midpoint
   * 1 + 2^-11 (through float it would be the midpoint and go to 1) */
  CHECK(ox_round_to(OX_FLOAT16, 1 + 0x1p-11 + 0x1p-40) == 1 + 0x1p-10);
  /* not a float type: the value itself (a kernel passes its precision type) */
  CHECK(ox_round_to(OX_INT32, 2.7) == 2.7);
  CHECK(ox_round_to(OX_UINT8, -1.5) == -1.5);
}

int main(void) {
  test_f16();
  test_bf16();
  test_f8();
  test_e8m0();
  test_f4();
  test_load_store();
  test_round_to();
  return check_done("dtype");
}
