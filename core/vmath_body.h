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
#ifndef PICK16 /* tab[i[0] & 15], ..., tab[i[7] & 15]: 8 of the 16 doubles tab[0..15] */
#define PICK16(tab, i)                                                                \
  ((vd){(tab)[(i)[0] & 15], (tab)[(i)[1] & 15], (tab)[(i)[2] & 15], (tab)[(i)[3] & 15], \
        (tab)[(i)[4] & 15], (tab)[(i)[5] & 15], (tab)[(i)[6] & 15], (tab)[(i)[7] & 15]})
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

/* a < b and a == b lane by lane, as a comparison's all-ones or zero lanes.
 * GCC makes 8 scalar compares of a 64-byte vector's where the target has no
 * 64-byte compare; CMP_LANES (core/vmath.c: 4 for AVX2, 2 for SSE2) has
 * it compare that many lanes at a time instead: the same results. */
#ifndef CMP_LANES
#define CMP_LANES 8
#endif
#if CMP_LANES == 8
#define VCMP(a, op, b) ((vl)((a)op(b)))
#elif CMP_LANES == 4
#define VCMP(a, op, b)                                                                \
  ({                                                                                  \
    typedef int64_t vl4 __attribute__((vector_size(32)));                             \
    vd a_ = (a), b_ = (b);                                                            \
    vl4 m0_ = __builtin_shufflevector(a_, a_, 0, 1, 2, 3) op __builtin_shufflevector(b_, b_, 0, 1, 2, 3); \
    vl4 m1_ = __builtin_shufflevector(a_, a_, 4, 5, 6, 7) op __builtin_shufflevector(b_, b_, 4, 5, 6, 7); \
    (vl) __builtin_shufflevector(m0_, m1_, 0, 1, 2, 3, 4, 5, 6, 7);                  \
  })
#else
#define VCMP(a, op, b)                                                                \
  ({                                                                                  \
    typedef int64_t vl2 __attribute__((vector_size(16)));                             \
    typedef int64_t vl4 __attribute__((vector_size(32)));                             \
    vd a_ = (a), b_ = (b);                                                            \
    vl2 m0_ = __builtin_shufflevector(a_, a_, 0, 1) op __builtin_shufflevector(b_, b_, 0, 1); \
    vl2 m1_ = __builtin_shufflevector(a_, a_, 2, 3) op __builtin_shufflevector(b_, b_, 2, 3); \
    vl2 m2_ = __builtin_shufflevector(a_, a_, 4, 5) op __builtin_shufflevector(b_, b_, 4, 5); \
    vl2 m3_ = __builtin_shufflevector(a_, a_, 6, 7) op __builtin_shufflevector(b_, b_, 6, 7); \
    vl4 l_ = __builtin_shufflevector(m0_, m1_, 0, 1, 2, 3), h_ = __builtin_shufflevector(m2_, m3_, 0, 1, 2, 3); \
    (vl) __builtin_shufflevector(l_, h_, 0, 1, 2, 3, 4, 5, 6, 7);                    \
  })
#endif
INL vl FN(vlt)(vd a, vd b) { return VCMP(a, <, b); }
INL vl FN(veq)(vd a, vd b) { return VCMP(a, ==, b); }
INL vd FN(vmin)(vd a, vd b) { return vsel(FN(vlt)(a, b), a, b); }
INL vd FN(vmax)(vd a, vd b) { return vsel(FN(vlt)(b, a), a, b); }

/* 1 / (1 + e^-t), t any double (NaN lanes: garbage, masked by the caller):
 * e = e^-|t|, taken as 0 below e^-708 (far below a float32's reach, and so
 * sigmoid(-inf) is 0), then 1 / (1 + e) for t >= 0 and e / (1 + e) below;
 * within 2^-45 */
INL vd FN(vsigmoid)(vd t) {
  vd a = vabs(t);
  vd e = vsel(FN(vlt)(vsplat(708.0), a), vsplat(0.0), FN(vexp)(-FN(vmin)(a, vsplat(708.0))));
  /* one division: the numerator picked first (the same quotient, one
   * divider's pass instead of two) */
  return vsel(FN(vlt)(t, vsplat(0.0)), e, vsplat(1.0)) / (1.0 + e);
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
  vd r = vsel(FN(vlt)(a, vsplat(0.0625)), p, q);
  return (vd)((vl)r | ((vl)t & vsign)); /* the sign of t */
}

/* erf a for 0 <= a <= 4 - 1/64 (the float erf is 1 from 3.93 on): a R_m(u)
 * with R_m one of the 16 pieces of ERF_PIECES (core/vmath.c), each fit to
 * erf(a) / a on a width of 8/31: h = 31/8 a (exact), m = h rounded to an
 * integer (a tie either way: both pieces reach it), u = h - m in [-1/2, 1/2]
 * (exact). R_0(0) is 2/sqrt(pi) rounded, so a tiny a gets a 2/sqrt(pi), as
 * the exact value nearly is. Each lane takes its own piece's coefficients:
 * no lane's result depends on another's, and no branch. R_m by Estrin's
 * scheme; within 2^-47 (core/vmath_fit.py). */
INL vd FN(verf4)(vd a) {
  const double shift = 0x1.8p52; /* adding it rounds to an integer, left in the low bits */
  vd h = a * 3.875, k = h + shift;
  vd u = h - (k - shift);
  vl m = (vl)k; /* PICK16 reads its low 4 bits: m */
#define C(j) PICK16(ERF_PIECES[9 - (j)], m) /* the coefficient of u^j */
  vd u2 = u * u, u4 = u2 * u2, u8 = u4 * u4;
  vd q0 = C(1) * u + C(0), q1 = C(3) * u + C(2), q2 = C(5) * u + C(4), q3 = C(7) * u + C(6);
  vd q4 = C(9) * u + C(8);
#undef C
  return a * (q4 * u8 + ((q3 * u2 + q2) * u4 + (q1 * u2 + q0)));
}

/* erf a for 0 <= a <= 2 (lanes above: garbage, the caller masks them):
 * a P(a^2) with ERF_SMALL (core/vmath.c), by Estrin's scheme (a chain of 6
 * multiply-adds, not 17); within 2^-50, and 1 - erf a within 2^-42 */
INL vd FN(verf2)(vd a) {
  vd s = a * a, s2 = s * s, s4 = s2 * s2, s8 = s4 * s4, s16 = s8 * s8;
  vd q[9];
#pragma GCC unroll 9
  for (int i = 0; i < 9; i++) /* c_(2i+1) s + c_(2i), c_k the coefficient of s^k */
    q[i] = ERF_SMALL[16 - 2 * i] * s + ERF_SMALL[17 - 2 * i];
  vd r0 = q[1] * s2 + q[0], r1 = q[3] * s2 + q[2], r2 = q[5] * s2 + q[4], r3 = q[7] * s2 + q[6];
  vd w0 = r1 * s4 + r0, w1 = r3 * s4 + r2;
  return a * (q[8] * s16 + (w1 * s8 + w0));
}

/* e^(a^2) erfc a for 2 <= a <= 10.5 (no cancellation: 1 - erf a would lose
 * erfc's own digits): Q_r(1/a) / a with ERFC_TAB's two regions, split at 4;
 * within 2^-47 */
INL vd FN(verfcx)(vd a) {
  vl m = FN(vlt)(vsplat(4.0), a);
  vd u = 1.0 / a, p = vsel(m, vsplat(ERFC_TAB[0][1]), vsplat(ERFC_TAB[0][0]));
#pragma GCC unroll 12
  for (int k = 1; k < 12; k++) p = p * u + vsel(m, vsplat(ERFC_TAB[k][1]), vsplat(ERFC_TAB[k][0]));
  return u * p;
}

/* any lane of a comparison's mask set */
INL int FN(vany)(vl m) {
  int64_t o = 0;
  for (int i = 0; i < 8; i++) o |= m[i];
  return o != 0;
}

#ifdef QUICK
/* The quick sigmoid and tanh (core/vmath.h's ox_sigmoid_fast_f32 and
 * ox_tanh_fast_f32, the AVX-512 build only: QFMA and QANY, one fused
 * multiply-add and "any lane set"): the bits of vsigmoid's and vtanh's
 * floats for less work. e^-a (0 <= a <= 80) by a table: -a = (16 n + j)
 * ln2/16 + r with |r| <= ln2/32, e^-a = 2^n 2^(j/16) e^r, e^r by its Taylor
 * series to r^5 (the rest below 2^-42.6), 2^(j/16) from EXP2_16
 * (core/vmath.c), 2^n added to the exponent: within 2^-42 of e^-a, where
 * vexp is within 2^-46. The sigmoid in double is then within 2^-41 of the
 * exact value, the tanh (by e^-2a - 1, qexpm1) within 2^-44, so within
 * 2^13 units of the double's last place, and vsigmoid's and vtanh's within
 * 2^11. Where a result is 2^14 units or more from a tie
 * between two floats (its 29 bits below float's precision that far from
 * 2^28), the exact value and the exact path's result are on its side of
 * the tie: the same float. Else, or where a lane is out of range (NaN
 * included), ok is 0 and the caller takes the exact path for the 8 lanes
 * (a lane in 2^14 is near a tie: a vector in some 2000). */
/* x = k ln2/16 + r, |r| <= ln2/32, k = 16 n + j in the low bits of *t */
INL vd FN(qreduce)(vd x, vd *t) {
  const double shift = 0x1.8p52;
  *t = QFMA(x, vsplat(23.083120654223414), vsplat(shift)); /* x 16/ln2 */
  vd k = *t - shift;
  vd r = QFMA(k, vsplat(-6.93147180369123816490e-01 / 16), x);
  return QFMA(k, vsplat(-1.90821492927058770002e-10 / 16), r);
}
INL vd FN(qexp)(vd x) { /* e^x, -160 <= x <= 0 */
  vd t, r = FN(qreduce)(x, &t);
  /* e^r - 1 = r + r^2 (1/2 + r/6 + r^2 (1/24 + r/120)), a short chain */
  vd r2 = r * r;
  vd p = QFMA(r2, QFMA(r, vsplat(1.0 / 120), vsplat(1.0 / 24)), QFMA(r, vsplat(1.0 / 6), vsplat(0.5)));
  p = QFMA(r2, p, r);
  vl kb = (vl)t; /* k in the low bits: j in the low 4, n above */
  vd tj = PICK16(EXP2_16, kb);
  vd y = QFMA(tj, p, tj);
  /* bits(t) << 48 is k << 48 (the shift's bits end in 48 zeros); without
   * j's bits, n << 52: n added to y's exponent */
  return (vd)((vl)y + ((kb << 48) & ((vl){0} + (int64_t)0xfff0000000000000ULL)));
}
/* lanes whose result y > 0 is too near a tie between two floats for the
 * quick path to pick */
INL vl FN(qtie)(vd y) {
  const int64_t W = (int64_t)1 << 14, M = ((int64_t)1 << 29) - 1;
  vl l = ((vl)y + (W - ((int64_t)1 << 28))) & M;
  return l < 2 * W;
}
INL int FN(qsigmoid)(vd t, vd *out) {
  vd na = (vd)((vl)t | vsign); /* -|t| */
  vl bad = ~FN(vlt)(vsplat(-80.0), na); /* and NaN */
  vd e = FN(qexp)(FN(vmax)(na, vsplat(-80.0)));
  vd y = vsel(FN(vlt)(t, vsplat(0.0)), e, vsplat(1.0)) / (1.0 + e);
  *out = y;
  return !QANY(bad | FN(qtie)(y));
}
/* e^x - 1 for -40 <= x <= 0 as (s - 1) + s p with s = 2^n 2^(j/16) and p
 * = e^r - 1 to r^6 (the rest below 2^-50.9): no cancellation near x = 0,
 * where s is 1 and the result p; within 2^-50.5 absolute, so 2^-45
 * relative from x = -ln2/32 on (s - 1 is then 2^-5.5 or more) and 2^-51
 * below */
INL vd FN(qexpm1)(vd x) {
  vd t, r = FN(qreduce)(x, &t);
  /* e^r - 1 = r + r^2 (1/2 + r/6 + r^2 (1/24 + r/120 + r^2/720)) */
  vd r2 = r * r;
  vd p = QFMA(r2, vsplat(1.0 / 720), QFMA(r, vsplat(1.0 / 120), vsplat(1.0 / 24)));
  p = QFMA(r2, p, QFMA(r, vsplat(1.0 / 6), vsplat(0.5)));
  p = QFMA(r2, p, r);
  vl kb = (vl)t;
  vd tj = PICK16(EXP2_16, kb);
  vd sc = (vd)((vl)tj + ((kb << 48) & ((vl){0} + (int64_t)0xfff0000000000000ULL))); /* 2^n tj */
  return QFMA(sc, p, sc - 1.0);
}
/* tanh a = -m / (2 + m) with m = e^-2a - 1 (a = |t| < 20): within 2^-44 */
INL int FN(qtanh)(vd t, vd *out) {
  vd a = vabs(t);
  vl bad = ~(FN(vlt)(a, vsplat(20.0)) & FN(vlt)(vsplat(0x1p-60), a)); /* and NaN */
  vd m = FN(qexpm1)(-2.0 * FN(vmin)(a, vsplat(20.0)));
  vd r = vabs(m / (2.0 + m));
  *out = (vd)((vl)r | ((vl)t & vsign));
  return !QANY(bad | FN(qtie)(r));
}
#endif

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
    __builtin_convertvector(vsel(FN(veq)(v, v), (BODY), v), vf8); /* NaN stays NaN */  \
  }))

/* HardSigmoid: max(0, min(1, alpha x + beta)), alpha x + beta correctly
 * rounded to float; the clamps run on the rounded floats, which rounding
 * (monotonic; 0 and 1 are floats) leaves the same. With FMA8 (the AVX2 and
 * AVX-512 builds), one fused multiply-add in float; without, alpha x (exact
 * in double) + beta rounded to odd in double: two-sum's error, when not 0,
 * moves an even sum one step toward it. A double rounded to odd rounds to
 * the correct float (53 >= 24 + 2 bits; Boldo and Melquiond), so every
 * build gives the same bits. NaN stays NaN (it compares false). */
TARGET static void FN(hardsigmoid)(const float *x, float *y, int64_t n, float alpha, float beta) {
#ifdef FMA8
  FLOOP(({
    vf8 r = FMA8(f, fsplat(alpha), fsplat(beta));
    fsel(r < 0, fsplat(0), fsel(r > 1, fsplat(1), r));
  }));
#else /* one lane at a time: SSE2 has no 64-bit compares for the vector form */
  for (int64_t i = 0; i < n; i++) {
    double p = (double)x[i] * alpha, s = p + beta, bv = s - p;
    double err = (p - (s - bv)) + (beta - bv); /* NaN for an infinite x */
    uint64_t b;
    memcpy(&b, &s, sizeof b);
    /* inexact and even: one step away from 0 where err has s's sign, else toward */
    if (err != 0 && err == err && !(b & 1)) b += (err > 0) == (s > 0) ? 1 : UINT64_MAX;
    memcpy(&s, &b, sizeof s);
    float r = (float)s;
    r = 0 > r ? 0 : r; /* maxss and minss: NaN stays */
    y[i] = 1 < r ? 1 : r;
  }
#endif
}
/* HardSwish: x max(0, min(1, x/6 + 1/2)): x * 0 (-0, or NaN for -inf) up
 * to -3, x from 3 on, x (x + 3) / 6 between in double, which loses nothing
 * at -3, where x / 6 + 0.5 in float cancels; NaN stays NaN */
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
#ifdef QUICK
/* The quick loops: 32 floats at a time, four chains of 8 lanes for the
 * out-of-order core to overlap (each is a long chain of dependent steps),
 * the last ones through a buffer; QF(v, &r) the quick path, EX(v) the
 * exact one, taken for 8 lanes where QF gives up (NaN stays NaN there). */
#define QONE(QF, EX, v, r)                                                            \
  do {                                                                                \
    if (!QF(v, &r)) r = vsel(FN(veq)(v, v), EX(v), v);                                \
  } while (0)
#define QLOOP(QF, EX)                                                                 \
  do {                                                                                \
    for (int64_t i = 0; i < n; i += 32) {                                             \
      int64_t m = n - i < 32 ? n - i : 32;                                            \
      float b[32] = {0};                                                              \
      const float *src = x + i;                                                       \
      if (m < 32) memcpy(b, x + i, (size_t)m * sizeof *x), src = b;                   \
      vf8 f0, f1, f2, f3;                                                             \
      memcpy(&f0, src, sizeof f0), memcpy(&f1, src + 8, sizeof f1);                   \
      memcpy(&f2, src + 16, sizeof f2), memcpy(&f3, src + 24, sizeof f3);             \
      vd v0 = TO_D(f0), v1 = TO_D(f1), v2 = TO_D(f2), v3 = TO_D(f3), r0, r1, r2, r3;  \
      QONE(QF, EX, v0, r0);                                                           \
      QONE(QF, EX, v1, r1);                                                           \
      QONE(QF, EX, v2, r2);                                                           \
      QONE(QF, EX, v3, r3);                                                           \
      f0 = __builtin_convertvector(r0, vf8), f1 = __builtin_convertvector(r1, vf8);   \
      f2 = __builtin_convertvector(r2, vf8), f3 = __builtin_convertvector(r3, vf8);   \
      float *dst = m < 32 ? b : y + i;                                                \
      memcpy(dst, &f0, sizeof f0), memcpy(dst + 8, &f1, sizeof f1);                   \
      memcpy(dst + 16, &f2, sizeof f2), memcpy(dst + 24, &f3, sizeof f3);             \
      if (m < 32) memcpy(y + i, b, (size_t)m * sizeof *y);                            \
    }                                                                                 \
  } while (0)
TARGET static void FN(sigmoid_fast)(const float *x, float *y, int64_t n) {
  QLOOP(FN(qsigmoid), FN(vsigmoid));
}
TARGET static void FN(tanh_fast)(const float *x, float *y, int64_t n) {
  QLOOP(FN(qtanh), FN(vtanh));
}
#undef QLOOP
#undef QONE
#endif
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
    vd e = vsel(FN(vlt)(v, vsplat(-708.0)), vsplat(0.0), FN(vexp)(FN(vmax)(FN(vmin)(v, vsplat(40.0)), vsplat(-708.0))));
    vd m = e * (e + 2.0);
    v * (m / (m + 2.0));
  }));
}

/* erf v = sign(v) erf a, a = |v|, by verf4: past a = 3.93 the float result
 * is 1 (erfc a is below half an ULP of 1), so a stops at 4 - 1/64 (NaN lanes
 * too: VLOOP gives them NaN). */
TARGET static void FN(erf)(const float *x, float *y, int64_t n) {
  VLOOP(({
    vd r = FN(verf4)(FN(vmin)(vabs(v), vsplat(3.984375)));
    (vd)((vl)r | ((vl)v & vsign));
  }));
}
/* 0.5 v erfc(-v / sqrt 2) with z = |v| / sqrt 2: erfc(-z) = 1 + erf z, or
 * 2 - erfc z above z = 2; erfc(z) = 1 - erf z, or above 2 e^(-v^2 / 2)
 * (e^(z^2) erfc z) (v^2 / 2 exact in double), for v < 0. Past z = 10.5
 * erfc(z) is taken as 0: the result is below a float's least subnormal,
 * and -inf gives -inf * 0, NaN, as the definition does. */
TARGET static void FN(gelu)(const float *x, float *y, int64_t n) {
  VLOOP(({
    vd z = vabs(v) * 0.70710678118654752440;
    vl far = FN(vlt)(vsplat(10.5), z);
    z = FN(vmin)(z, vsplat(10.5));
    vd p = FN(verf2)(FN(vmin)(z, vsplat(2.0)));
    vd pos = 1.0 + p, neg = 1.0 - p;
    vl hi = FN(vlt)(vsplat(2.0), z);
    if (FN(vany)(hi)) {
      vd ec = FN(vexp)(-FN(vmin)(0.5 * (v * v), vsplat(110.25))) * FN(verfcx)(FN(vmax)(z, vsplat(2.0)));
      pos = vsel(hi, 2.0 - ec, pos);
      neg = vsel(hi, ec, neg);
    }
    neg = vsel(far, vsplat(0.0), neg);
    (0.5 * v) * vsel(FN(vlt)(v, vsplat(0.0)), neg, pos);
  }));
}

#undef VLOOP
#undef FLOOP
#undef INL
#undef FN
#undef TARGET
#undef TO_D
#undef PICK16
#undef QUICK
#undef CMP_LANES
#undef VCMP
