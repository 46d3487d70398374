#!/usr/bin/python3
"""core/vmath_fit.py: the polynomials of core/vmath.c's erf and erfc.

Prints ERF_PIECES, ERF_SMALL and ERFC_TAB as core/vmath.c holds them (C hex
floats), and the largest relative errors of the double evaluation
vmath_body.h does (Horner or Estrin as there, in plain double arithmetic:
Python's floats are IEEE doubles; the exponential from the math library),
over dense samples:

  erf(a)          = a R_m(31/8 a - m)        0 <= a <= 4   (16 pieces, degree 9;
                                                            m = 31/8 a rounded)
  erf(a)          = a P(a^2)                 0 <= a <= 2   (degree 17; Gelu)
  e^(a^2) erfc(a) = Q_r(1/a) / a             2 <  a <= 4     (r = 0, degree 11)
                                             4 <  a <= 10.5  (r = 1, degree 11)

Chebyshev fits (mpmath's chebyfit) to the functions at 40 digits. Needs
mpmath (Debian: python3-mpmath); not part of the build or the tests, which
check the result (tests/unit/test_ulp.c: Erf and Gelu within 0.51 ULP).
"""
import math

import mpmath as mp

mp.mp.dps = 40


def fit(f, lo, hi, n):
    return [float(c) for c in mp.chebyfit(f, [mp.mpf(lo), mp.mpf(hi)], n)]


def horner(c, x):
    r = c[0]
    for k in c[1:]:
        r = r * x + k
    return r


def erfcx(a):
    a = mp.mpf(a)
    return mp.erfc(a) * mp.exp(a * a)


P = fit(lambda s: mp.erf(mp.sqrt(s)) / mp.sqrt(s) if s > 0 else 2 / mp.sqrt(mp.pi), 0, 4, 18)
Q = [fit(lambda u: erfcx(1 / u) / u, mp.mpf(1) / 4, mp.mpf(1) / 2, 12),
     fit(lambda u: erfcx(1 / u) / u, 1 / mp.mpf(10.5), mp.mpf(1) / 4, 12)]


# erf(a) / a on piece m, a = (u + m) / (31/8) for u in [-1/2, 1/2]; piece
# 0's u^0 term is 2/sqrt(pi) rounded, so that a tiny a gives a 2/sqrt(pi)
S = mp.mpf(31) / 8
R = [fit(lambda u, m=m: mp.erf((u + m) / S) / ((u + m) / S) if u + m != 0 else 2 / mp.sqrt(mp.pi),
         -0.5, 0.5, 10) for m in range(16)]
R[0][-1] = float(2 / mp.sqrt(mp.pi))


def erf_pieces(a):
    """vmath_body.h's verf4: R_m by Estrin's scheme, c the coefficient of u^j"""
    h = a * 3.875
    m = round(h)  # (ties to even, as adding 1.5 2^52 rounds)
    u = h - m
    c = R[m][::-1]
    u2 = u * u
    u4 = u2 * u2
    u8 = u4 * u4
    q = [c[2 * i + 1] * u + c[2 * i] for i in range(5)]
    return a * (q[4] * u8 + ((q[3] * u2 + q[2]) * u4 + (q[1] * u2 + q[0])))


def worst(f, ref, lo, hi, n=2000):
    w = 0.0
    for i in range(n):
        a = lo + (hi - lo) * (i + 0.5) / n
        r = ref(mp.mpf(a))
        w = max(w, abs(float((f(a) - r) / r)))
    return math.log2(w)


print("/* erf(a) / a in 16 pieces of [0, 4], piece m in u = 31/8 a - m, -1/2 <= u <= 1/2: u^9 first; "
      "erf rel 2^%.1f */" % worst(erf_pieces, mp.erf, 0, 3.984375, 40000))
print("static const double ERF_PIECES[10][16] __attribute__((aligned(64))) = {")
for k in range(10):
    print("  {" + ", ".join(R[m][k].hex() for m in range(16)) + "},")
print("};")
print("/* erf(a) / a in s = a^2, 0 <= a <= 2: t^17 first */")
print("static const double ERF_SMALL[18] = {" + ", ".join(c.hex() for c in P) + "};")
print("/* e^(a^2) erfc(a) a in u = 1/a, for 2 < a <= 4 and 4 < a <= 10.5: t^11 first */")
print("static const double ERFC_TAB[12][2] = {")
for k in range(12):
    print("  {%s, %s}," % (Q[0][k].hex(), Q[1][k].hex()))
print("};")
print("/* erf rel 2^%.1f, 1 - erf rel 2^%.1f on [0, 2]; erfc rel 2^%.1f on [2, 4], 2^%.1f on [4, 10.5] */" % (
    worst(lambda a: a * horner(P, a * a), mp.erf, 0, 2),
    worst(lambda a: 1 - a * horner(P, a * a), mp.erfc, 0, 2),
    worst(lambda a: math.exp(-a * a) * horner(Q[0], 1 / a) / a, mp.erfc, 2, 4),
    worst(lambda a: math.exp(-a * a) * horner(Q[1], 1 / a) / a, mp.erfc, 4, 10.5)))
