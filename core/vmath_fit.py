#!/usr/bin/python3
"""core/vmath_fit.py: the polynomials of core/vmath.c's erf and erfc.

Prints ERF_SMALL and ERFC_TAB as core/vmath.c holds them (C hex floats),
and the largest relative errors of the double evaluation vmath_body.h does
(Horner in plain double arithmetic: Python's floats are IEEE doubles; the
exponential from the math library), over dense samples:

  erf(a)          = a P(a^2)                 0 <= a <= 2   (degree 17)
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


def worst(f, ref, lo, hi, n=2000):
    w = 0.0
    for i in range(n):
        a = lo + (hi - lo) * (i + 0.5) / n
        r = ref(mp.mpf(a))
        w = max(w, abs(float((f(a) - r) / r)))
    return math.log2(w)


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
