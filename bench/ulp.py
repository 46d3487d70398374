#!/usr/bin/python3
"""bench/ulp.py BUILD [N]: the float32 elementwise ops' largest error in
ULPs, onnxop beside numpy computing the ONNX reference's formula, as a
Markdown table (the README's).

For each op (and sampled attributes) it draws N float32 inputs (default 2^20;
seeded, so every run draws the same): the op's edges and special values, the
whole float line (subnormals, infinities, NaN), the op's domain spread by
exponent and its useful range by value, as tests/unit/test_ulp.c does; runs
onnxop on them (`onnxop make` writes the one-node model, `onnxop run` reads
and writes .npy); computes numpy's float32 result with the expression onnx's
node-test generators (onnx/backend/test/case/node/*.py) use for the op's
expected outputs; and measures both against the float64 value of the op's
definition, evaluated in forms that do not cancel (numpy's float64 functions
and math.erfc), whose own error is far below a float32 ULP.

An error is |got - exact| / ulp(exact), ulp(exact) the spacing of float32
numbers at the exact value (2^-149 below 2^-126). NaN must meet NaN, an
infinity itself, an exact 0 a 0 of the same sign, and a value beyond
float32's largest the infinity: else "inf". tests/unit/test_ulp.c (in `make
check`) holds onnxop to its bounds, over float64 against MPFR too.

    /usr/bin/python3 bench/ulp.py build            # Debian's python3 with numpy
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

np.seterr(all="ignore")
F32 = np.float32
SQ2PI = math.sqrt(2 / math.pi)
erf64 = np.frompyfunc(math.erf, 1, 1)
erfc64 = np.frompyfunc(math.erfc, 1, 1)


def erf(x):
    return erf64(x).astype(np.float64)


def erfc(x):
    return erfc64(x).astype(np.float64)


def sigmoid64(t):
    e = np.exp(-np.abs(t))
    return np.where(t >= 0, 1 / (1 + e), e / (1 + e))


def clip01(t):
    return np.where(t < 0, 0.0, np.where(t > 1, 1.0, t))


# (label, op, attributes, domain lo hi, useful range a b, edges,
#  exact in float64, numpy's float32 as onnx's generators write it)
# the attributes' values are float32, as a node holds them
def a32(v):
    return float(F32(v))


OPS = [
    ("Exp", "Exp", {}, (-np.inf, np.inf), (-104, 89), [88.72284, -87.33655, -103.27893],
     np.exp, np.exp),
    ("Log", "Log", {}, (0, np.inf), (0, 10), [1], np.log, np.log),
    ("Erf", "Erf", {}, (-np.inf, np.inf), (-6, 6), [0], erf,
     lambda x: erf(x).astype(F32)),
    ("Sin", "Sin", {}, (-np.inf, np.inf), (-100, 100), [3.14159265, 1e22], np.sin, np.sin),
    ("Cos", "Cos", {}, (-np.inf, np.inf), (-100, 100), [1.57079633, 1e22], np.cos, np.cos),
    ("Tan", "Tan", {}, (-np.inf, np.inf), (-100, 100), [1.57079633, 1e22], np.tan, np.tan),
    ("Asin", "Asin", {}, (-1, 1), (-1, 1), [0.5], np.arcsin, np.arcsin),
    ("Acos", "Acos", {}, (-1, 1), (-1, 1), [0.5], np.arccos, np.arccos),
    ("Atan", "Atan", {}, (-np.inf, np.inf), (-20, 20), [0], np.arctan, np.arctan),
    ("Sinh", "Sinh", {}, (-np.inf, np.inf), (-90, 90), [89.415985], np.sinh, np.sinh),
    ("Cosh", "Cosh", {}, (-np.inf, np.inf), (-90, 90), [89.415985], np.cosh, np.cosh),
    ("Tanh", "Tanh", {}, (-np.inf, np.inf), (-10, 10), [0.55, 9.01], np.tanh, np.tanh),
    ("Asinh", "Asinh", {}, (-np.inf, np.inf), (-20, 20), [0], np.arcsinh, np.arcsinh),
    ("Acosh", "Acosh", {}, (1, np.inf), (1, 20), [1], np.arccosh, np.arccosh),
    ("Atanh", "Atanh", {}, (-1, 1), (-1, 1), [0.5], np.arctanh, np.arctanh),
    ("Sigmoid", "Sigmoid", {}, (-np.inf, np.inf), (-110, 30), [-87.33655, -103.27893],
     sigmoid64, lambda x: 1.0 / (1.0 + np.exp(np.negative(x)))),
    ("Softplus", "Softplus", {}, (-np.inf, np.inf), (-110, 30), [-103.27893, 88.72284],
     lambda x: np.logaddexp(0, x), lambda x: np.log(np.exp(x) + 1)),
    ("Softsign", "Softsign", {}, (-np.inf, np.inf), (-100, 100), [0],
     lambda x: x / (1 + np.abs(x)), lambda x: x / (1 + np.abs(x))),
    ("Mish", "Mish", {}, (-np.inf, np.inf), (-110, 30), [-103.27893, 88.72284],
     lambda x: x * np.tanh(np.logaddexp(0, x)), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    ("Gelu", "Gelu", {}, (-np.inf, np.inf), (-16, 8), [-5, -6, -14.2],
     lambda x: 0.5 * x * erfc(-x / math.sqrt(2)),
     lambda x: (0.5 * x * (1 + erf(x / np.sqrt(2)))).astype(F32)),
    ("Gelu tanh", "Gelu", {"approximate": "tanh"}, (-np.inf, np.inf), (-16, 8), [-5, -6, -14.2],
     lambda x: x * sigmoid64(2 * SQ2PI * (x + 0.044715 * x * x * x)),
     lambda x: (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * np.power(x, 3)))))
     .astype(F32)),
    ("HardSwish", "HardSwish", {}, (-np.inf, np.inf), (-5, 5), [-3, 3],
     lambda x: x * clip01((x + 3) / 6),
     lambda x: x * np.maximum(0, np.minimum(1, 1 / 6 * x + 0.5))),
    ("HardSigmoid", "HardSigmoid", {}, (-np.inf, np.inf), (-5, 5), [-2.5, 2.5],
     lambda x: clip01(a32(0.2) * x + 0.5), lambda x: np.clip(x * F32(0.2) + F32(0.5), 0, 1)),
    ("Elu", "Elu", {}, (-np.inf, np.inf), (-20, 5), [-1e-7],
     lambda x: np.where(x < 0, np.expm1(x), x),
     lambda x: np.clip(x, 0, np.inf) + (np.exp(np.clip(x, -np.inf, 0)) - 1) * 1.0),
    ("Elu alpha 0.3", "Elu", {"alpha": 0.3}, (-np.inf, np.inf), (-20, 5), [-1e-7],
     lambda x: np.where(x < 0, a32(0.3) * np.expm1(x), x),
     lambda x: np.clip(x, 0, np.inf) + (np.exp(np.clip(x, -np.inf, 0)) - 1) * F32(0.3)),
    ("Selu", "Selu", {}, (-np.inf, np.inf), (-20, 5), [-1e-7],
     lambda x: np.where(x > 0, a32(1.05070102214813232421875) * x,
                        a32(1.05070102214813232421875) * a32(1.67326319217681884765625) * np.expm1(x)),
     lambda x: np.clip(x, 0, np.inf) * F32(1.05070102214813232421875)
     + (np.exp(np.clip(x, -np.inf, 0)) - 1) * F32(1.67326319217681884765625)
     * F32(1.05070102214813232421875)),
    ("Celu", "Celu", {}, (-np.inf, np.inf), (-20, 5), [-1e-7],
     lambda x: np.where(x > 0, x, np.expm1(x)),
     lambda x: np.maximum(0, x) + np.minimum(0, 1.0 * (np.exp(x / 1.0) - 1))),
    ("Celu alpha 0.7", "Celu", {"alpha": 0.7}, (-np.inf, np.inf), (-20, 5), [-1e-7],
     lambda x: np.where(x > 0, x, a32(0.7) * np.expm1(x / a32(0.7))),
     lambda x: np.maximum(0, x) + np.minimum(0, F32(0.7) * (np.exp(x / F32(0.7)) - 1))),
    ("Swish", "Swish", {}, (-np.inf, np.inf), (-110, 30), [-90, -105],
     lambda x: x * sigmoid64(x), lambda x: x * (1 / (1 + np.exp(np.negative(x))))),
    ("LeakyRelu", "LeakyRelu", {}, (-np.inf, np.inf), (-10, 10), [0],
     lambda x: np.where(x < 0, a32(0.01) * x, x),
     lambda x: np.clip(x, 0, np.inf) + np.clip(x, -np.inf, 0) * F32(0.01)),
    ("Pow", "Pow", {}, (0, np.inf), (-40, 40), [], np.power, np.power),
]
# Mish-18, Gelu-20, Swish-24, the rest at onnxop make's newest opset
SPECIALS = [0.0, 1e-45, 2**-126, 1.1754942e-38, 1e-30, 1e-10, 1e-5, 0.5, 1, 2, 3, 10, 100,
            1e10, 3.4028235e38, np.inf, np.nan]


def spread(rng, lo, hi, n):
    """n float32s whose bits are uniform between those of the magnitudes lo, hi"""
    a = np.array([lo], F32).view(np.uint32)[0]
    b = np.array([hi], F32).view(np.uint32)[0]
    return rng.integers(int(a), int(b) + 1, n, dtype=np.uint64).astype(np.uint32).view(F32)


def inputs(rng, dom, rng_ab, edges, n):
    lo, hi = (max(v, -3.4028235e38) if v < 0 else min(v, 3.4028235e38) for v in dom)
    first = []
    for s in SPECIALS + [v for e in edges for v in
                         (F32(e), np.nextafter(F32(e), F32(np.inf)), np.nextafter(F32(e), F32(-np.inf)))]:
        first += [s, -s]
    first = np.array(first, F32)
    k = n - len(first)
    kind = np.arange(k) % 16
    x = np.empty(k, F32)
    m = kind == 0  # the whole line
    x[m] = rng.integers(0, 2**32, int(m.sum()), dtype=np.uint64).astype(np.uint32).view(F32)
    m = (kind >= 1) & (kind < 7)  # the domain, by exponent
    cnt = int(m.sum())
    neg = (rng.integers(0, 2, cnt) == 1) if lo < 0 < hi else np.full(cnt, hi <= 0)
    mag_pos = spread(rng, max(lo, 0.0), hi, cnt) if hi > 0 else np.zeros(cnt, F32)
    mag_neg = spread(rng, max(-hi, 0.0), -lo, cnt) if lo < 0 else np.zeros(cnt, F32)
    x[m] = np.where(neg, -mag_neg, mag_pos)
    m = kind >= 7  # the useful range, by value
    x[m] = rng.uniform(rng_ab[0], rng_ab[1], int(m.sum())).astype(F32)
    return np.concatenate([first, x])


def ulps(got, want):
    """the error of each float32 in got against the float64 want"""
    got = got.astype(np.float64)
    e = np.full(want.shape, np.inf)
    nw, ng = np.isnan(want), np.isnan(got)
    e[nw & ng] = 0
    e[np.isinf(want) & (got == want)] = 0
    fin = np.isfinite(want) & ~ng
    big = fin & (np.abs(want) >= 2.0**128 - 2.0**103)  # rounds to infinity
    e[big & np.isinf(got) & (np.sign(got) == np.sign(want))] = 0
    m = fin & ~big & np.isfinite(got)
    w, g = want[m], got[m]
    ex = np.maximum(np.frexp(w)[1] - 1, -126) - 23
    err = np.abs(g - w) / np.ldexp(1.0, ex)
    zero = w == 0  # a zero of the other sign is counted apart (signs())
    err[zero] = np.abs(g[zero]) / 2.0**-149
    e[m] = err
    return e


def signs(got, want):
    """how many exact zeros got has with the other sign"""
    return int(((want == 0) & (got == 0) & (np.signbit(got) != np.signbit(want))).sum())


def worst(e, x):
    i = int(np.argmax(e))
    return e[i], x[i]


def fmt(v):
    return "inf" if np.isinf(v) else "%.2g" % v if v >= 1e4 else "%.2f" % v


def run_onnxop(onnxop, tmp, label, op, attrs, x, y=None):
    model = os.path.join(tmp, "m.onnx")
    cmd = [onnxop, "make", op, "--input", "x:float32[N]", "--dim", "N=4", "-o", model]
    if y is not None:
        cmd += ["--input", "y:float32[N]"]
    for k, v in attrs.items():
        cmd += ["-a", "%s=%s" % (k, v)]
    subprocess.run(cmd, check=True, capture_output=True)
    np.save(os.path.join(tmp, "x.npy"), x)
    cmd = [onnxop, "run", model, "--in", "x=" + os.path.join(tmp, "x.npy"),
           "--out", os.path.join(tmp, "out.npy")]
    if y is not None:
        np.save(os.path.join(tmp, "y.npy"), y)
        cmd += ["--in", "y=" + os.path.join(tmp, "y.npy")]
    subprocess.run(cmd, check=True, capture_output=True)
    return np.load(os.path.join(tmp, "out.npy"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    onnxop = os.path.join(sys.argv[1], "onnxop")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 20
    print("| op | onnxop | numpy | numpy's worst input |")
    print("|---|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, op, attrs, dom, ab, edges, exact, ref in OPS:
            rng = np.random.default_rng(20261206)
            x = inputs(rng, dom, ab, edges, n)
            y = None
            if op == "Pow":  # exponents: small integers, halves, the range; negative bases with integers
                k = np.arange(len(x))
                y = np.where(k % 4 == 0, rng.integers(-10, 11, len(x)),
                             np.where(k % 4 == 1, rng.integers(-20, 21, len(x)) / 2,
                                      rng.uniform(ab[0], ab[1], len(x)))).astype(F32)
                x = np.where(k % 8 == 5, -x, x)
                y = np.where(k % 8 == 5, np.round(y), np.where(k % 16 == 7, 2, y)).astype(F32)
                want = exact(x.astype(np.float64), y.astype(np.float64))
                ours = run_onnxop(onnxop, tmp, label, op, attrs, x, y)
                theirs = ref(x, y)
            else:
                want = exact(x.astype(np.float64))
                ours = run_onnxop(onnxop, tmp, label, op, attrs, x)
                theirs = ref(x)
            theirs = np.asarray(theirs, F32)
            eo = ulps(ours, want).max()
            en, at = worst(ulps(theirs, want), x)
            so, sn = signs(ours, want), signs(theirs, want)
            print("| %s | %s%s | %s%s | %.9g |" % (label, fmt(eo), " (%d -0)" % so if so else "",
                                                fmt(en), " (±0)" if sn else "", at), flush=True)
    print("\n(±0): a zero of the other sign where the exact value is a signed zero "
          "(numpy's Elu, Selu, Celu and LeakyRelu give +0 for -0)")


if __name__ == "__main__":
    main()
