#!/usr/bin/python3
"""tests/quant_models.py BUILD: models that use com.microsoft's quantized and
fused operators, run by onnxop beside onnxruntime.

The models are onnxruntime's own test models that hold those operators
(onnxruntime/test/testdata/ at COMMIT below): a keyword-spotting model of
its minimal-build tests (FusedGemm), the QDQ graphs of its constant-folding
and QDQ tests in their com.microsoft form (QuantizeLinear and
DequantizeLinear, 8 and 16 bits; not the one whose output is uint16, which
bench/ort.js cannot write), the graphs of its MatMul fusion tests
(FusedMatMul with transposes, transBatch and alpha), and its MatMulNBits
runtime-optimisation model. They are fetched into BUILD/quant-models/ (from
ORT_SRC, a checkout, when set; else from raw.githubusercontent.com) and
never committed. Each gets seeded inputs (floats in [-1, 1), integers over
their type's range; symbolic dims 2), and its outputs from `onnxop run` are
compared with onnxruntime-node's (bench/ort.js: CPU, one thread, graph
optimisation off; ORT_DIR holds node_modules/onnxruntime-node): floats within
TOL, integers exactly.

Prints one line per model and exits 1 when a model does not match.
"""
import os
import shutil
import subprocess
import sys
import urllib.request

import numpy as np
import onnx
from onnx import numpy_helper

COMMIT = "735e69a396afe7e1bdfbc6b38c1d43eeb68b8484"  # onnxruntime main, 2026-02-13
DIR = "onnxruntime/test/testdata/"
MODELS = [
    "ort_minimal_e2e_test_data/test_voice_commands/model.onnx",
    "transform/runtime_optimization/matmulnbits_add.onnx",
    "transform/fusion/constant_folding_dequantizelinear.qdq_contrib.onnx",
    "transform/fusion/constant_folding_dequantizelinear.qdq16_contrib.onnx",
    "transform/fusion/constant_folding_qdq_node_unit.qdq_contrib.onnx",
    "transform/fusion/constant_folding_qdq_node_unit.graph_output.qdq_contrib.onnx",
    "transform/fusion/constant_folding_qdq_node_unit.graph_output.qdq16_contrib.onnx",
    "transform/qdq_with_multi_consumer_dq_nodes.fixed.qdq_contrib.onnx",
    "transform/qdq_with_multi_consumer_dq_nodes.fixed.qdq16_contrib.onnx",
    "transform/fusion/matmul_scale_transposescalematmul_in0_in1_out.onnx",
    "transform/fusion/transpose_matmul_2d_fusion_from_transpose_scale_matmul.onnx",
    "transform/fusion/transpose_matmul_trans_batch_fusion3.onnx",
    "transform/fusion/transpose_matmul_trans_batch_fusion_invalid_case3.onnx",
]
TOL = (1e-4, 1e-4)  # float outputs: (atol, rtol)
HERE = os.path.dirname(os.path.abspath(__file__))


def fetch(dst):
    os.makedirs(dst, exist_ok=True)
    for m in MODELS:
        out = os.path.join(dst, m.replace("/", "_"))
        if os.path.exists(out):
            continue
        src = os.environ.get("ORT_SRC")
        if src:
            shutil.copyfile(os.path.join(src, DIR, m), out)
        else:
            url = "https://raw.githubusercontent.com/microsoft/onnxruntime/%s/%s%s" % (COMMIT, DIR, m)
            with urllib.request.urlopen(url) as r, open(out + ".tmp", "wb") as f:
                f.write(r.read())
            os.rename(out + ".tmp", out)


def inputs_of(model, seed):
    init = {i.name for i in model.graph.initializer}
    rng = np.random.RandomState(seed)
    ins = []
    for i in model.graph.input:
        if i.name in init:
            continue
        tt = i.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else 2 for d in tt.shape.dim]
        dt = np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type])
        if dt.kind in "iu":
            a = rng.randint(np.iinfo(dt).min, int(np.iinfo(dt).max) + 1, dims).astype(dt)
        else:
            a = rng.uniform(-1, 1, dims).astype(dt)
        ins.append((i.name, a))
    return ins


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def compare(build, model_path, ins, work):
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    files = []
    for n, a in ins:
        f = os.path.join(work, "in_%d.pb" % len(files))
        open(f, "wb").write(numpy_helper.from_array(a, n).SerializeToString())
        files.append((n, f))
    r = run([os.path.join(build, "onnxop"), "run", model_path, "--out-dir", os.path.join(work, "ox")] +
            sum([["--in", "%s=%s" % nf] for nf in files], []))
    env = dict(os.environ, ORT_OUT_DIR=os.path.join(work, "ort"))
    o = run(["node", os.path.join(HERE, "../bench/ort.js"), model_path, "1", "0"] + [f for _, f in files], env)
    if r.returncode:
        return "onnxop refused (exit %d): %s" % (r.returncode, r.stderr.strip().splitlines()[-1]), False
    if o.returncode:
        return "onnxruntime refused: " + o.stderr.strip()[-300:], False
    m = onnx.load(model_path)
    worst, ok = [], True
    for k, out in enumerate(m.graph.output):
        t1, t2 = onnx.TensorProto(), onnx.TensorProto()
        t1.ParseFromString(open(os.path.join(work, "ox", "output_%d.pb" % k), "rb").read())
        t2.ParseFromString(open(os.path.join(work, "ort", "output_%d.pb" % k), "rb").read())
        u, v = numpy_helper.to_array(t1), numpy_helper.to_array(t2)
        if u.shape != v.shape or u.dtype != v.dtype:
            ok = False
            worst.append("%s: %s %s, onnxruntime %s %s" % (out.name, u.dtype, u.shape, v.dtype, v.shape))
            continue
        atol, rtol = TOL if u.dtype.kind == "f" else (0, 0)
        u, v = u.astype(np.float64), v.astype(np.float64)
        d = np.abs(u - v)
        bad = d > atol + rtol * np.abs(v)
        ok &= not bad.any()
        worst.append("%s max |diff| %.3g%s" % (out.name, d.max() if d.size else 0, " MISMATCH" if bad.any() else ""))
    return ("match" if ok else "MISMATCH") + ": " + "; ".join(worst), ok


def main():
    if len(sys.argv) != 2 or not os.environ.get("ORT_DIR"):
        raise SystemExit(__doc__)
    build = sys.argv[1]
    d = os.path.join(build, "quant-models")
    fetch(d)
    failed = 0
    for seed, m in enumerate(MODELS):
        name = m.replace("/", "_")
        path = os.path.join(d, name)
        msg, ok = compare(build, path, inputs_of(onnx.load(path), seed), os.path.join(d, "work", name))
        print("%-78s %s" % (name, msg))
        failed += not ok
    print("quant models: %d of %d match onnxruntime" % (len(MODELS) - failed, len(MODELS)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
