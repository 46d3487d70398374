#!/usr/bin/python3
"""bench/reduce_err.py BUILD: the error of the float32 reductions and
softmax-like ops over long rows, against float64, as a Markdown table (the
README's).

For rows of 10^3 to 10^7 elements (20 rows of 10^3 ... one of 10^7; seeded
data), it runs onnxop (`onnxop make -o`, `onnxop run` on .npy) on ReduceSum,
ReduceMean, ReduceLogSumExp, ReduceL2 (opset 13, ReduceSum 11: axes an attribute; over the last axis),
ReduceSum over the first axis of a (n/16, 16) tensor (the path that adds
rows into a row of accumulators), Softmax and LogSoftmax (the last axis) and
LayerNormalization (the last axis, scale 1, epsilon 1e-5), and prints the
largest error in float32 ULPs of the exact value: the sums through
math.fsum (exact, then rounded to double), the rest in float64 from those.
Data: uniform in [0, 1) for the sums and L2 (a positive sum's error is its
ULPs), N(0, 1) times 4 for the rest; and ReduceSum of N(0, 1) data, whose
sum may cancel, as |error| / (2^-24 sum |x|).

    /usr/bin/python3 bench/reduce_err.py build
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

F32 = np.float32
U = 2.0**-24


def ulps(got, want):
    """the largest error of the float32s got against the float64s want"""
    got = np.asarray(got, np.float64).ravel()
    want = np.asarray(want, np.float64).ravel()
    ex = np.maximum(np.frexp(want)[1] - 1, -126) - 23
    return float((np.abs(got - want) / np.ldexp(1.0, ex)).max())


def onnxop_run(onnxop, tmp, op, x, attrs, opset, extra=None):
    model = os.path.join(tmp, "m.onnx")
    cmd = [onnxop, "make", op, "--opset", str(opset), "--input", "x:float32[R,N]",
           "--dim", "R=1", "--dim", "N=4", "-o", model]
    if extra is not None:
        cmd += ["--input", "s:float32[N]"]
    for k, v in attrs.items():
        cmd += ["-a", "%s=%s" % (k, v)]
    subprocess.run(cmd, check=True, capture_output=True)
    np.save(os.path.join(tmp, "x.npy"), x)
    run = [onnxop, "run", model, "--in", "x=" + os.path.join(tmp, "x.npy")]
    if extra is not None:
        np.save(os.path.join(tmp, "s.npy"), extra)
        run += ["--in", "s=" + os.path.join(tmp, "s.npy")]
    run += ["--out", os.path.join(tmp, "y.npy")]
    subprocess.run(run, check=True, capture_output=True)
    return np.load(os.path.join(tmp, "y.npy"))


def fsum_rows(a):
    return np.array([math.fsum(r) for r in a])


def softmax64(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    s = fsum_rows(e)[:, None]
    return e / s, (x - m) - np.log(s)


def layernorm64(x, eps):
    n = x.shape[1]
    m = fsum_rows(x)[:, None] / n
    d = x - m
    v = fsum_rows(d * d)[:, None] / n
    return d / np.sqrt(v + eps)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    onnxop = os.path.join(sys.argv[1], "onnxop")
    sizes = [10**3, 10**4, 10**5, 10**6, 10**7]
    rows = {}  # label -> [error per size]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            r = max(1, min(20, 10**6 // n * 2))
            rng = np.random.default_rng(n)
            pos = rng.random((r, n), dtype=F32)
            nrm = (rng.standard_normal((r, n)) * 4).astype(F32)
            p64, n64 = pos.astype(np.float64), nrm.astype(np.float64)
            last = {"axes": "[1]", "keepdims": 0}

            def put(label, err):
                rows.setdefault(label, []).append(err)

            s = fsum_rows(p64)
            put("ReduceSum, [0, 1)", ulps(onnxop_run(onnxop, tmp, "ReduceSum", pos, last, 11), s))
            put("ReduceMean, [0, 1)",
                ulps(onnxop_run(onnxop, tmp, "ReduceMean", pos, last, 13), s / n))
            col = pos.reshape(-1, 16)  # (r n / 16, 16) over the first axis
            put("ReduceSum over the first axis, [0, 1)",
                ulps(onnxop_run(onnxop, tmp, "ReduceSum", col, {"axes": "[0]", "keepdims": 0}, 11),
                     fsum_rows(col.astype(np.float64).T)))
            got = onnxop_run(onnxop, tmp, "ReduceSum", nrm, last, 11).astype(np.float64)
            put("ReduceSum, N(0, 16): error / (2^-24 Σ|x|)",
                float((np.abs(got - fsum_rows(n64)) / (U * fsum_rows(np.abs(n64)))).max()))
            put("ReduceL2, [0, 1)", ulps(onnxop_run(onnxop, tmp, "ReduceL2", pos, last, 13),
                                         np.sqrt(fsum_rows(p64 * p64))))
            m = n64.max(axis=1)
            lse = np.log(fsum_rows(np.exp(n64 - m[:, None]))) + m
            put("ReduceLogSumExp, N(0, 16)",
                ulps(onnxop_run(onnxop, tmp, "ReduceLogSumExp", nrm, last, 13), lse))
            sm, lsm = softmax64(n64)
            put("Softmax, N(0, 16)", ulps(onnxop_run(onnxop, tmp, "Softmax", nrm, {}, 13), sm))
            put("LogSoftmax, N(0, 16)",
                ulps(onnxop_run(onnxop, tmp, "LogSoftmax", nrm, {}, 13), lsm))
            ln = onnxop_run(onnxop, tmp, "LayerNormalization", nrm, {}, 17, np.ones(n, F32))
            put("LayerNormalization, N(0, 16)", ulps(ln, layernorm64(n64, float(F32(1e-5)))))
            print("n = %d done" % n, file=sys.stderr, flush=True)
    print("| op, data | " + " | ".join("10^%d" % round(math.log10(n)) for n in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for label, errs in rows.items():
        print("| %s | %s |" % (label, " | ".join("%.2f" % e for e in errs)))


if __name__ == "__main__":
    main()
