/* core/vmath_body.h: the functions of core/vmath.h, written once over 8
 * lanes of double with GCC vector extensions. core/vmath.c includes it once
 * per target with FN(name) (the name with the target's suffix) and TARGET
 * (empty, or the target attribute) defined, as ops/reduce.c includes
 * ops/reduce_rows.h. The lane helpers are always inlined: a 64-byte vector
 * passed between functions of different targets would change the ABI. */
#if !defined(FN) || !defined(TARGET)
#error "define FN, TARGET before including core/vmath_body.h"
#endif

#define INL TARGET static inline __attribute__((always_inline))
#ifndef TO_D /* 8 floats to 8 doubles */
#define TO_D(f) __builtin_convertvector(f, vd)
#endif

/* e^x for x in [-708, 708] (callers clamp; NaN lanes give garbage they mask):
 * x = n ln2 + r with |r| <= ln2/2 (ln2 in two parts, the first with 21 low
 * zero bits so that n * ln2_hi is exact), e^r by its Taylor series to r^11
 * (the first term left out is below 2^-47 of e^r), times 2^n built in the
 * exponent bits. Within 2^-46 of e^x. */
INL vd FN(vexp)(vd x) {
  const double shift = 0x1.8p52; /* adding it rounds to an integer, left in the low bits */
  vd t = x * 1.4426950408889634074 + shift;
  vd n = t - shift;
  vd r = (x - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
  vd p = r * (1.0 / 39916800) + 1.0 / 3628800;
  p = p * r + 1.0 / 362880;
  p = p * r + 1.0 / 40320;
  p = p * r + 1.0 / 5040;
  p = p * r + 1.0 / 720;
  p = p * r + 1.0 / 120;
  p = p * r + 1.0 / 24;
  p = p * r + 1.0 / 6;
  p = p * r + 0.5;
  p = p * r * r + r + 1.0;
  /* bits(t) - bits(shift) is n; (n + 1023) << 52 is 2^n */
  vl e = ((vl)t - 0x4338000000000000LL + 1023) << 52;
  return p * (vd)e;
}

INL vd FN(vmin)(vd a, vd b) { return vsel(a < b, a, b); }
INL vd FN(vmax)(vd a, vd b) { return vsel(a > b, a, b); }

/* 1 / (1 + e^-t), t any double (NaN lanes: garbage, masked by the caller):
 * e = e^-|t|, taken as 0 below e^-708 (far below a float32's reach, and so
 * sigmoid(-inf) is 0), then 1 / (1 + e) for t >= 0 and e / (1 + e) below;
 * within 2^-45 */
INL vd FN(vsigmoid)(vd t) {
  vd a = vabs(t);
  vd e = vsel(a > 708.0, vsplat(0.0), FN(vexp)(-FN(vmin)(a, vsplat(708.0))));
  vd d = 1.0 + e;
  return vsel(t < 0, e / d, 1.0 / d);
}

/* tanh t: for |t| < 1/16 its odd series to t^9 (the rest below 2^-47 of
 * it); above, (1 - e) / (1 + e) with e = e^-2|t| (|t| capped at 20, where
 * tanh is 1 in double to 2^-115), which loses at most 4 bits to the
 * cancellation at 1/16; the sign put back. Within 2^-42. */
INL vd FN(vtanh)(vd t) {
  vd a = vabs(t), s = t * t;
  vd p = s * (62.0 / 2835) - 17.0 / 315;
  p = p * s + 2.0 / 15;
  p = p * s - 1.0 / 3;
  p = p * s * a + a;
  vd e = FN(vexp)(-2.0 * FN(vmin)(a, vsplat(20.0)));
  vd q = (1.0 - e) / (1.0 + e);
  vd r = vsel(a < 0.0625, p, q);
  return (vd)((vl)r | ((vl)t & vsign)); /* the sign of t */
}

/* The array loops: FLOOP(BODY) sets y = BODY over 8 floats f at a time,
 * the tail through a buffer; VLOOP(BODY), with BODY an expression in v (the
 * 8 floats as doubles), rounds it once to float, NaN inputs giving NaN. */
#define FLOOP(BODY)                                                                   \
  do {                                                                                \
    int64_t i = 0;                                                                    \
    for (; i + 8 <= n; i += 8) {                                                      \
      vf8 f;                                                                          \
      memcpy(&f, x + i, sizeof f);                                                    \
      f = (BODY);                                                                     \
      memcpy(y + i, &f, sizeof f);                                                    \
    }                                                                                 \
    if (i < n) {                                                                      \
      float b[8] = {0};                                                               \
      vf8 f;                                                                          \
      memcpy(b, x + i, (size_t)(n - i) * sizeof *x);                                  \
      memcpy(&f, b, sizeof f);                                                        \
      f = (BODY);                                                                     \
      memcpy(b, &f, sizeof f);                                                        \
      memcpy(y + i, b, (size_t)(n - i) * sizeof *y);                                  \
    }                                                                                 \
  } while (0)
#define VLOOP(BODY)                                                                   \
  FLOOP(({                                                                            \
    vd v = TO_D(f);                                            \
    __builtin_convertvector(vsel(v == v, (BODY), v), vf8); /* NaN stays NaN */        \
  }))

/* HardSigmoid and HardSwish: only their products and sums need double
 * (alpha v exact, alpha v + beta rounded once; v (v + 3) / 6); the clamps
 * run on the rounded floats, which rounding (monotonic; 0 and 1 are floats)
 * leaves the same. NaN stays NaN. */
TARGET static void FN(hardsigmoid)(const float *x, float *y, int64_t n, double alpha,
                                   double beta) {
  FLOOP(({
    vf8 r = __builtin_convertvector(alpha * TO_D(f) + beta, vf8);
    fsel(r < 0, fsplat(0), fsel(r > 1, fsplat(1), r));
  }));
}
/* x max(0, min(1, x/6 + 1/2)): x * 0 (-0, or NaN for -inf) up to -3, x from
 * 3 on, x (x + 3) / 6 between, which loses nothing at -3, where x / 6 + 0.5
 * in float cancels */
TARGET static void FN(hardswish)(const float *x, float *y, int64_t n) {
  FLOOP(({
    vd v = TO_D(f);
    vf8 r = __builtin_convertvector(v * ((v + 3.0) * (1.0 / 6)), vf8);
    fsel(f <= -3, f * 0, fsel(f >= 3, f, r));
  }));
}

TARGET static void FN(sigmoid)(const float *x, float *y, int64_t n) {
  VLOOP(FN(vsigmoid)(v));
}
TARGET static void FN(tanh)(const float *x, float *y, int64_t n) {
  VLOOP(FN(vtanh)(v));
}
/* alpha v is exact in double (24-bit by 24-bit) */
TARGET static void FN(swish)(const float *x, float *y, int64_t n, double alpha) {
  VLOOP(v * FN(vsigmoid)(alpha * v));
}
/* u = sqrt(2/pi) (v + 0.044715 v^3), y = v sigmoid(2u); v^3 fits a double
 * for every float v */
TARGET static void FN(gelu_tanh)(const float *x, float *y, int64_t n) {
  VLOOP(v * FN(vsigmoid)(1.5957691216057307117 * (v + 0.044715 * (v * v * v))));
}
/* tanh(ln(1 + e)) = ((1 + e)^2 - 1) / ((1 + e)^2 + 1) = m / (m + 2) with
 * m = e (e + 2): no cancellation. Past v = 40, m / (m + 2) is 1 to 2^-114
 * (v is capped there); below -708 e is taken as 0: |v| e is far below
 * float's smallest subnormal there, as the exact value is (and -inf gives
 * -inf * 0, NaN, as the definition does). */
TARGET static void FN(mish)(const float *x, float *y, int64_t n) {
  VLOOP(({
    vd e = vsel(v < -708.0, vsplat(0.0), FN(vexp)(FN(vmax)(FN(vmin)(v, vsplat(40.0)), vsplat(-708.0))));
    vd m = e * (e + 2.0);
    v * (m / (m + 2.0));
  }));
}

#undef VLOOP
#undef FLOOP
#undef INL
#undef FN
#undef TARGET
#undef TO_D
