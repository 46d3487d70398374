#!/usr/bin/python3
"""tests/cases/gen_contrib.py ORT_DIR: onnxruntime's own tests of its com.microsoft
transformer operators (and the two it registers in ai.onnx), written as ONNX
test cases tests/cases/ms_* and, for ai.onnx's experimental operators, exp_* (model.onnx, test_data_set_0/input_K.pb and
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
import subprocess
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


# ---- cases whose expected outputs onnxruntime-node computes ----
# onnxruntime has no fixed-value test for these (its GroupQueryAttention tests
# compare with a PyTorch reference on random inputs); tests/cases/README.md
# allows outputs computed by onnxruntime-node, with its version. ORT_DIR_NODE
# (env ORT_NODE_DIR, default /tmp/ort) holds node_modules/onnxruntime-node;
# bench/ort.js runs it, one thread, graph optimisation off. A case with `ref`
# has onnxruntime compute the same values from an equivalent graph of
# operators its CPU provider runs (ref: (op, domain, attrs, inputs) nodes).
ORT_TOL = {np.float32: (1e-5, 1e-4), np.float16: (0.0025, 0.001), np.float64: (1e-5, 1e-5)}
ORT_TOL_WHY = "onnxruntime's OpTester defaults (test/unittest_util/checkers.cc) for the output type"


def ort_version(node_dir):
    return json.load(open(os.path.join(node_dir, "node_modules/onnxruntime-node/package.json")))["version"]


def model_of(nodes, inputs, out_names, out_types, domain, opset, name):
    vi = lambda n, a: helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))
    gin = [vi("input_%d" % i, a) for i, a in enumerate(inputs) if a is not None]
    gout = [helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(t)], None)
            for n, t in zip(out_names, out_types) if n]
    imports = [helper.make_opsetid("", 17 if domain else opset)]
    if domain:
        imports.append(helper.make_opsetid(domain, opset))
    m = helper.make_model(helper.make_graph(nodes, name, gin, gout), opset_imports=imports)
    m.ir_version = 8
    return m


def ort_run(node_dir, model, inputs, tmp):
    """onnxruntime-node's outputs of model for inputs (arrays; None absent)"""
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    onnx.save(model, os.path.join(tmp, "model.onnx"))
    files = []
    for i, a in enumerate(inputs):
        if a is not None:
            f = os.path.join(tmp, "input_%d.pb" % i)
            open(f, "wb").write(numpy_helper.from_array(a, "input_%d" % i).SerializeToString())
            files.append(f)
    env = dict(os.environ, ORT_DIR=node_dir, ORT_OUT_DIR=os.path.join(tmp, "out"))
    r = subprocess.run(["node", os.path.join(HERE, "../../bench/ort.js"), os.path.join(tmp, "model.onnx"), "1", "0"] +
                       files, env=env, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("onnxruntime refused %s: %s" % (model.graph.name, r.stderr[-600:]))
    outs = []
    for k in range(len(model.graph.output)):
        t = onnx.TensorProto()
        t.ParseFromString(open(os.path.join(tmp, "out", "output_%d.pb" % k), "rb").read())
        outs.append(numpy_helper.to_array(t))
    return outs


def ort_case(node_dir, name, op, domain, opset, attrs, inputs, out_types, note, ref=None):
    """out_types: the node's outputs' numpy types, None for an output left unnamed"""
    out_names = ["" if t is None else "output_%d" % k for k, t in enumerate(out_types)]
    while out_names and not out_names[-1]:
        out_names.pop()
    in_names = ["" if a is None else "input_%d" % i for i, a in enumerate(inputs)]
    while in_names and not in_names[-1]:
        in_names.pop()
    node = helper.make_node(op, in_names, out_names, domain=domain or None)
    node.attribute.extend(helper.make_attribute(k, v) for k, v in sorted(attrs.items()))
    if ref:
        nodes = []
        for i, (rop, rdom, rattrs, rin, rout) in enumerate(ref):
            n = helper.make_node(rop, rin, rout, domain=rdom or None, name="ref%d" % i)
            n.attribute.extend(helper.make_attribute(k, v) for k, v in sorted(rattrs.items()))
            nodes.append(n)
        m = model_of(nodes, inputs, out_names, out_types, domain, opset, name)
    else:
        m = model_of([node], inputs, out_names, out_types, domain, opset, name)
    outs = ort_run(node_dir, m, inputs, "/tmp/gen_contrib_ort")
    named = [t for t in out_types[:len(out_names)] if t is not None]
    tol = ORT_TOL[named[0]]
    full = [None] * len(out_names)
    it = iter(outs)
    for k, n in enumerate(out_names):
        if n:
            full[k] = next(it)
    src = ("Expected outputs computed by onnxruntime-node %s (CPU, one thread, graph optimisation off)%s: %s "
           "Tolerance atol %g, rtol %g: %s." % (ort_version(node_dir),
                                                " from the equivalent graph " + " + ".join(r[0] for r in ref) if ref
                                                else "", note, tol[0], tol[1], ORT_TOL_WHY))
    write_case(name, op, domain, opset, [helper.make_attribute(k, v) for k, v in sorted(attrs.items())],
               inputs, full, src, tol[0], tol[1])
    return name


def rnd(seed, shape, lo=-1.0, hi=1.0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype(dtype)


def gen_ort(node_dir):
    made = []
    ms = "com.microsoft"
    f32, f16 = np.float32, np.float16

    def gqa(name, B, S, N, Nkv, D, P, seqlens, total, note, packed=False, rotary=False, inter=0, attrs=None,
            dtype=f32, pos=None, bias=None, sink=None, qk=0, seed=1):
        at = {"num_heads": N, "kv_num_heads": Nkv}
        at.update(attrs or {})
        if rotary:
            at["do_rotary"] = 1
            at["rotary_interleaved"] = inter
        if qk:
            at["qk_output"] = qk
        if packed:
            q = rnd(seed, (B, S, (N + 2 * Nkv) * D), dtype=dtype)
            k = v = None
        else:
            q = rnd(seed, (B, S, N * D), dtype=dtype)
            k = rnd(seed + 1, (B, S, Nkv * D), dtype=dtype)
            v = rnd(seed + 2, (B, S, Nkv * D), dtype=dtype)
        pk = rnd(seed + 3, (B, Nkv, P, D), dtype=dtype) if P is not None else None
        pv = rnd(seed + 4, (B, Nkv, P, D), dtype=dtype) if P is not None else None
        cs = sn = None
        if rotary:
            half = D // 2
            inv = 1.0 / (10000 ** (np.arange(half) / half))
            ang = np.outer(np.arange(total + 4), inv)
            cs, sn = np.cos(ang).astype(dtype), np.sin(ang).astype(dtype)
        ins = [q, k, v, pk, pv, np.array(seqlens, np.int32), np.array([total], np.int32), cs, sn, pos, bias, sink]
        outs = [dtype, dtype, dtype] + ([dtype] if qk else [])
        made.append(ort_case(node_dir, "ms_group_query_attention_" + name, "GroupQueryAttention", ms, 1, at, ins,
                             outs, note))

    gqa("prompt", 1, 4, 2, 1, 16, None, [3], 4, "GroupQueryAttention, a first prompt of 4 tokens, 2 query heads "
        "sharing 1 kv head, no past.")
    gqa("decode", 2, 1, 4, 2, 16, 5, [5, 3], 6, "GroupQueryAttention, one token per batch after pasts of 5 and 3 "
        "tokens (seqlens_k 5 and 3: batch 1 leaves two rows of its past buffer unread), present 6 long.")
    gqa("chunk", 1, 3, 2, 2, 8, 4, [6], 7, "GroupQueryAttention, a later chunk of 3 prompt tokens after 4 past "
        "ones (head size 8).")
    gqa("packed", 2, 3, 4, 2, 8, None, [2, 2], 3, "GroupQueryAttention with packed QKV, a first prompt.",
        packed=True)
    gqa("rotary", 1, 4, 2, 1, 16, None, [3], 4, "GroupQueryAttention with do_rotary (cos/sin caches of "
        "1/10000^(i/8)), a first prompt.", rotary=True)
    gqa("rotary_interleaved_decode", 2, 1, 2, 2, 32, 6, [6, 4], 7, "GroupQueryAttention with interleaved rotary "
        "after pasts of 6 and 4 tokens.", rotary=True, inter=1)
    gqa("rotary_position_ids", 1, 2, 2, 1, 16, 3, [4], 5, "GroupQueryAttention with rotary and position_ids, a "
        "later chunk.", rotary=True, pos=np.array([[3, 4]], np.int64))
    gqa("local_window", 1, 6, 2, 1, 8, None, [5], 6, "GroupQueryAttention with local_window_size 2, a prompt.",
        attrs={"local_window_size": 2})
    gqa("local_window_decode", 1, 1, 2, 1, 8, 7, [7], 8, "GroupQueryAttention with local_window_size 3, one token "
        "after 7.", attrs={"local_window_size": 3})
    gqa("softcap", 1, 4, 2, 2, 8, None, [3], 4, "GroupQueryAttention with softcap 0.5 and scale 2.",
        attrs={"softcap": 0.5, "scale": 2.0})
    gqa("smooth_softmax", 1, 3, 2, 1, 8, None, [2], 3, "GroupQueryAttention with smooth_softmax 1.",
        attrs={"smooth_softmax": 1})
    gqa("head_sink", 2, 1, 2, 1, 8, 2, [2, 1], 3, "GroupQueryAttention with head_sink (0.5, -1).",
        sink=np.array([0.5, -1.0], f32))
    gqa("attention_bias", 1, 3, 2, 1, 8, None, [2], 3, "GroupQueryAttention with an attention_bias (1, 2, 3, 3).",
        bias=rnd(9, (1, 2, 3, 3)))
    gqa("qk_before_softmax", 1, 3, 2, 1, 8, None, [2], 3, "GroupQueryAttention with qk_output 1 (the scores before "
        "the softmax, the keys left out 0).", qk=1, attrs={"local_window_size": 2})
    gqa("qk_after_softmax", 2, 1, 2, 1, 8, 3, [3, 2], 4, "GroupQueryAttention with qk_output 2 (the "
        "probabilities).", qk=2)
    gqa("float16", 2, 1, 4, 2, 16, 4, [4, 2], 5, "GroupQueryAttention in float16.", dtype=f16)

    def one(name, op, dom, opset, attrs, ins, outs, note, ref=None):
        made.append(ort_case(node_dir, "ms_" + name, op, dom, opset, attrs, ins, outs, note, ref))

    x = rnd(20, (2, 3, 8), -3, 3)
    one("quick_gelu_default", "QuickGelu", ms, 1, {}, [x], [f32], "QuickGelu with alpha's default 1.702.")
    one("quick_gelu_alpha", "QuickGelu", ms, 1, {"alpha": 1.0}, [x], [f32], "QuickGelu with alpha 1 (SiLU).")
    one("quick_gelu_float16", "QuickGelu", ms, 1, {}, [x.astype(f16)], [f16], "QuickGelu in float16 (onnxruntime "
        "runs its function body).")
    one("quick_gelu_double", "QuickGelu", ms, 1, {"alpha": 0.5}, [x.astype(np.float64)], [np.float64],
        "QuickGelu in double with alpha 0.5 (onnxruntime runs its function body).")
    one("gelu_float16", "Gelu", ms, 1, {}, [x.astype(f16)], [f16], "Gelu in float16.")
    one("bias_gelu", "BiasGelu", ms, 1, {}, [x, rnd(21, (8,))], [f32], "BiasGelu, X (2, 3, 8), bias (8).")
    one("fast_gelu_bias_large", "FastGelu", ms, 1, {}, [rnd(22, (3, 40), -6, 6), rnd(23, (40,))], [f32],
        "FastGelu with a bias, values from -6 to 6.")

    # normalizations
    x3 = rnd(30, (2, 3, 16), -2, 2)
    g16, b16 = rnd(31, (16,), 0.5, 1.5), rnd(32, (16,))
    one("layer_normalization_v1", "LayerNormalization", "", 13, {"epsilon": 1e-3}, [x3, g16, b16], [f32, f32, f32],
        "onnxruntime's LayerNormalization-1 in ai.onnx (a model importing opset 13), with Mean and InvStdDev.")
    one("layer_normalization_v1_axis1", "LayerNormalization", "", 11, {"axis": 1},
        [x3, rnd(33, (3, 16), 0.5, 1.5), None], [f32], "onnxruntime's LayerNormalization-1 at opset 11, axis 1, "
        "no bias.")
    one("simplified_layer_normalization_inv", "SimplifiedLayerNormalization", "", 14, {"epsilon": 1e-4},
        [x3, g16], [f32, f32], "onnxruntime's SimplifiedLayerNormalization-1, with inv_std_var.")
    sk = rnd(34, (2, 3, 16), -2, 2)
    one("skip_layer_normalization_all", "SkipLayerNormalization", ms, 1, {"epsilon": 1e-5},
        [x3, sk, g16, b16, rnd(35, (16,))], [f32, None, None, f32], "SkipLayerNormalization with beta, bias and "
        "input_skip_bias_sum (onnxruntime's CPU kernel leaves mean and inv_std_var unwritten: not asked for).")
    one("skip_layer_normalization_skip_bcast", "SkipLayerNormalization", ms, 1, {},
        [x3, rnd(36, (3, 16)), g16], [f32], "SkipLayerNormalization with a skip of (sequence_length, hidden_size), "
        "no beta, epsilon's default 1e-12.")
    one("skip_layer_normalization_float16", "SkipLayerNormalization", ms, 1, {"epsilon": 1e-5},
        [x3.astype(f16), rnd(37, (1, 3, 16)).astype(f16), g16.astype(f16), b16.astype(f16)], [f16],
        "SkipLayerNormalization in float16, skip (1, sequence_length, hidden_size).")
    one("skip_simplified_layer_normalization_bias", "SkipSimplifiedLayerNormalization", ms, 1, {"epsilon": 1e-6},
        [rnd(38, (5, 16), -2, 2), rnd(39, (5, 16)), g16, rnd(40, (16,))], [f32, None, None, f32],
        "SkipSimplifiedLayerNormalization of a 2-D input with bias, and input_skip_bias_sum.")
    V, P, Hh = 11, 7, 16
    we, pe, se = rnd(41, (V, Hh)), rnd(42, (P, Hh)), rnd(43, (2, Hh))
    ids = np.array([[1, 4, 10, 0, 3], [7, 2, 2, 9, 5]], np.int32)
    seg = np.array([[0, 0, 1, 1, 1], [0, 1, 1, 1, 0]], np.int32)
    msk = np.array([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]], np.int32)
    one("embed_layer_normalization", "EmbedLayerNormalization", ms, 1, {"epsilon": 1e-5},
        [ids, seg, we, pe, se, g16, b16, msk], [f32, np.int32, f32], "EmbedLayerNormalization with segments and a "
        "mask, and mask_index and embedding_sum.")
    one("embed_layer_normalization_no_segment", "EmbedLayerNormalization", ms, 1, {},
        [ids, None, we, pe, None, g16, b16, None, np.array([[6, 5, 4, 3, 2]], np.int32)], [f32, np.int32],
        "EmbedLayerNormalization without segments (DistilBERT), position_ids (1, S); mask_index 0 without a mask.")

    # rotary embedding
    half = 8
    inv = 1.0 / (10000 ** (np.arange(half) / half))
    ang = np.outer(np.arange(12), inv)
    cs, sn = np.cos(ang).astype(f32), np.sin(ang).astype(f32)
    one("rotary_embedding_4d_scalar_pos", "RotaryEmbedding", ms, 1, {}, [rnd(50, (2, 3, 4, 16)),
        np.array([5], np.int64), cs, sn], [f32], "RotaryEmbedding of a (B, N, S, H) input, positions from 5.")
    one("rotary_embedding_partial", "RotaryEmbedding", ms, 1, {"num_heads": 2, "rotary_embedding_dim": 16,
        "interleaved": 1}, [rnd(51, (1, 3, 64)), np.array([[0, 2, 9]], np.int64), cs, sn], [f32],
        "RotaryEmbedding, interleaved, rotary_embedding_dim 16 of head size 32.")
    one("rotary_embedding_float16", "RotaryEmbedding", ms, 1, {}, [rnd(52, (2, 2, 32)).astype(f16),
        np.array([[1, 2], [3, 4]], np.int64), cs.astype(f16), sn.astype(f16)], [f16],
        "RotaryEmbedding in float16, (B, S, hidden) with num_heads from the caches.")

    # attention
    def att(name, B, S, Hin, N, note, attrs=None, mask=None, past=None, ab=None, present=False, qkv=None, seed=60):
        at = {"num_heads": N}
        at.update(attrs or {})
        tot = sum(qkv) if qkv else 3 * Hin
        if qkv:
            at["qkv_hidden_sizes"] = list(qkv)
        ins = [rnd(seed, (B, S, Hin)), rnd(seed + 1, (Hin, tot), -0.5, 0.5), rnd(seed + 2, (tot,)), mask, past, ab]
        vh = qkv[2] if qkv else Hin
        one("attention_" + name, "Attention", ms, 1, at, ins, [f32, f32] if present else [f32], note)

    att("basic", 2, 3, 8, 2, "Attention, no mask.")
    att("mask_key_lengths", 2, 3, 8, 2, "Attention with mask_index (B): the valid keys per batch.",
        mask=np.array([2, 3], np.int32))
    att("mask_end_start", 2, 4, 8, 2, "Attention with mask_index (2B): end then start positions.",
        mask=np.array([3, 4, 1, 0], np.int32))
    att("mask_raw_2d", 2, 3, 8, 2, "Attention with a raw (B, T) mask and mask_filter_value -1e4 (default).",
        mask=np.array([[1, 0, 1], [1, 1, 0]], np.int32))
    att("mask_3d_unidirectional", 1, 4, 8, 2, "Attention with a (B, S, T) mask and unidirectional 1.",
        attrs={"unidirectional": 1}, mask=np.array([[[1, 1, 1, 0], [1, 1, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1]]],
                                                   np.int32))
    att("past_present", 2, 1, 8, 2, "Attention with past (2, B, N, 3, head) and present, one token.",
        past=rnd(70, (2, 2, 2, 3, 4)), present=True)
    att("past_unidirectional", 1, 2, 8, 2, "Attention, unidirectional, two tokens after a past of 2.",
        attrs={"unidirectional": 1}, past=rnd(71, (2, 1, 2, 2, 4)), present=True)
    att("qkv_hidden_sizes", 2, 3, 8, 2, "Attention with qkv_hidden_sizes (8, 8, 4) and scale 0.3.",
        attrs={"scale": 0.3}, qkv=(8, 8, 4))
    att("attention_bias", 2, 3, 8, 2, "Attention with attention_bias (1, N, S, T).", ab=rnd(72, (1, 2, 3, 3)))
    att("mask_filter", 1, 3, 8, 2, "Attention with a key-length mask and mask_filter_value -100.",
        attrs={"mask_filter_value": -100.0}, mask=np.array([1], np.int32))

    def mha(name, B, S, L, hid, N, note, attrs=None, kd4=False, bias=False, mask=None, ab=None, past=0,
            outs=(True,), seed=80):
        at = {"num_heads": N}
        at.update(attrs or {})
        D = hid // N
        k = rnd(seed + 1, (B, N, L, D) if kd4 else (B, L, hid))
        v = rnd(seed + 2, (B, N, L, D) if kd4 else (B, L, hid))
        pk = rnd(seed + 4, (B, N, past, D)) if past else None
        pv = rnd(seed + 5, (B, N, past, D)) if past else None
        ins = [rnd(seed, (B, S, hid)), k, v, rnd(seed + 3, (3 * hid,)) if bias else None, mask, ab, pk, pv]
        one("multi_head_attention_" + name, "MultiHeadAttention", ms, 1, at, ins,
            [f32 if o else None for o in outs], note)

    mha("cross", 2, 2, 3, 8, 2, "MultiHeadAttention, cross attention (kv length 3) with bias.", bias=True)
    mha("key_padding_2d", 2, 3, 3, 8, 2, "MultiHeadAttention with a (B, T) key padding mask.",
        mask=np.array([[1, 1, 0], [1, 0, 1]], np.int32))
    mha("key_lengths_unidirectional", 2, 3, 3, 8, 2, "MultiHeadAttention, unidirectional, key lengths (B).",
        attrs={"unidirectional": 1}, mask=np.array([3, 2], np.int32))
    mha("bnsh_kv", 1, 2, 3, 8, 2, "MultiHeadAttention with 4-D (B, N, L, H) key and value and bias (on Q only).",
        kd4=True, bias=True)
    mha("past_qk", 1, 2, 2, 8, 2, "MultiHeadAttention with past, presents and qk (the scores after "
        "attention_bias).", past=3, ab=rnd(90, (1, 2, 2, 5)), outs=(True, True, True, True))
    mha("scale_filter", 1, 2, 2, 8, 1, "MultiHeadAttention with scale 0.25, mask_filter_value -5 and a 3-D mask.",
        attrs={"scale": 0.25, "mask_filter_value": -5.0}, mask=np.array([[[1, 0], [0, 1]]], np.int32))

    # operators onnxruntime runs on GPUs only: its CPU provider computes the
    # same values from an equivalent graph
    d = rnd(100, (2, 3, 4, 5), -3, 3)
    one("bias_softmax_inner", "BiasSoftmax", ms, 1, {"axis": 3, "is_inner_broadcast": 1},
        [d, rnd(101, (2, 1, 1, 5), -3, 3)], [f32], "BiasSoftmax, bias (2, 1, 1, 5) broadcast over heads and rows.",
        ref=[("Add", "", {}, ["input_0", "input_1"], ["s"]), ("Softmax", "", {"axis": -1}, ["s"], ["output_0"])])
    one("bias_softmax_outer", "BiasSoftmax", ms, 1, {"axis": -1, "is_inner_broadcast": 0},
        [d, rnd(102, (3, 4, 5), -3, 3)], [f32], "BiasSoftmax, bias (3, 4, 5) broadcast over the batch.",
        ref=[("Add", "", {}, ["input_0", "input_1"], ["s"]), ("Softmax", "", {"axis": -1}, ["s"], ["output_0"])])
    one("bias_softmax_double", "BiasSoftmax", ms, 1, {"axis": 3, "is_inner_broadcast": 1},
        [d.astype(np.float64), rnd(103, (2, 1, 1, 5), -3, 3, np.float64)], [np.float64], "BiasSoftmax in double.",
        ref=[("Add", "", {}, ["input_0", "input_1"], ["s"]), ("Softmax", "", {"axis": -1}, ["s"], ["output_0"])])
    one("gemm_fast_gelu", "GemmFastGelu", ms, 1, {}, [rnd(104, (2, 3, 6)), rnd(105, (6, 5)), rnd(106, (5,))],
        [f32], "GemmFastGelu: X (2, 3, 6) times W (6, 5), bias (5).",
        ref=[("MatMul", "", {}, ["input_0", "input_1"], ["m"]),
             ("FastGelu", ms, {}, ["m", "input_2"], ["output_0"])])
    one("gemm_fast_gelu_no_bias", "GemmFastGelu", ms, 1, {}, [rnd(107, (4, 6)), rnd(108, (6, 3))], [f32],
        "GemmFastGelu without bias.", ref=[("MatMul", "", {}, ["input_0", "input_1"], ["m"]),
                                           ("FastGelu", ms, {}, ["m"], ["output_0"])])
    xs = rnd(109, (2, 3, 8)).astype(f16)
    one("bias_add_float16", "BiasAdd", ms, 1, {}, [xs, rnd(110, (8,)).astype(f16), rnd(111, (2, 3, 8)).astype(f16)],
        [f16], "BiasAdd in float16.", ref=[("Add", "", {}, ["input_0", "input_1"], ["s"]),
                                           ("Add", "", {}, ["s", "input_2"], ["output_0"])])
    return made


def hand_case(name, op, opset, attrs, inputs, outputs, note):
    write_case(name, op, "", opset, [helper.make_attribute(k, v) for k, v in sorted(attrs.items())], inputs,
               outputs, "Expected output by hand: " + note, 1e-6, 1e-6)
    return name


def gen_experimental(node_dir):
    """ai.onnx's experimental operators (tests/op-versions-experimental.txt)"""
    made = []
    f32 = np.float32

    def one(name, op, opset, attrs, ins, outs, note):
        made.append(ort_case(node_dir, "exp_" + name, op, "", opset, attrs, ins, outs, note))

    img = rnd(200, (2, 3, 4, 5), -2, 2)
    one("image_scaler", "ImageScaler", 8, {"scale": 2.5, "bias": [0.5, -1.0, 3.0]}, [img], [f32],
        "ImageScaler-1 (experimental), scale 2.5 and a bias per channel, at opset 8.")
    one("crop_border", "Crop", 7, {"border": [1, 0, 2, 1]}, [img], [f32],
        "Crop-1 (experimental) by border (left 1, top 0, right 2, bottom 1).")
    one("crop_scale", "Crop", 7, {"border": [1, 1, 0, 0], "scale": [2, 3]}, [img], [f32],
        "Crop-1 (experimental) to scale (2, 3) from the border's top left (1, 1).")
    one("affine", "Affine", 6, {"alpha": -1.5, "beta": 0.25}, [img], [f32], "Affine-1 (experimental).")
    one("scale", "Scale", 6, {"scale": 0.125}, [img], [f32], "Scale-1 (experimental).")
    one("scaled_tanh", "ScaledTanh", 6, {"alpha": 2.0, "beta": 0.5}, [img], [f32], "ScaledTanh-1 (experimental).")
    one("parametric_softplus", "ParametricSoftplus", 6, {"alpha": 1.5, "beta": 3.0}, [img * 20], [f32],
        "ParametricSoftplus-1 (experimental), x from -40 to 40.")
    one("thresholded_relu_v1", "ThresholdedRelu", 9, {"alpha": 0.5}, [img], [f32],
        "ThresholdedRelu-1 (experimental) at opset 9, alpha 0.5.")
    one("mvn_v1", "MeanVarianceNormalization", 8, {}, [img], [f32],
        "MeanVarianceNormalization-1 (experimental) at opset 8, per channel.")
    one("mvn_v1_across_mean_only", "MeanVarianceNormalization", 7, {"across_channels": 1, "normalize_variance": 0},
        [img], [f32], "MeanVarianceNormalization-1 across channels, mean only.")
    one("dynamic_slice", "DynamicSlice", 8, {}, [img, np.array([0, 1], np.int64), np.array([2, -1], np.int64),
        np.array([1, 3], np.int64)], [f32], "DynamicSlice-1 (experimental: Slice-10's inputs) at opset 8.")

    made.append(hand_case("exp_given_tensor_fill", "GivenTensorFill", 6, {"shape": [2, 3],
                          "values": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}, [], [np.arange(1, 7, dtype=f32).reshape(2, 3)],
                          "GivenTensorFill-1 (experimental, onnxruntime has no kernel for it) with shape (2, 3): "
                          "its values in order, [[1, 2, 3], [4, 5, 6]]."))
    made.append(hand_case("exp_given_tensor_fill_input_shape", "GivenTensorFill", 6, {"extra_shape": [2],
                          "values": [0.5, 1.5, 2.5, 3.5]}, [np.zeros((2,), f32)],
                          [np.array([[0.5, 1.5], [2.5, 3.5]], f32)],
                          "GivenTensorFill-1 with an input of shape (2) and extra_shape (2): output (2, 2) of the "
                          "input's type, its values in order."))
    made.append(hand_case("exp_constant_fill", "ConstantFill", 6, {"dtype": 7, "value": 3.0, "input_as_shape": 1,
                          "extra_shape": [2]}, [np.array([2, 1], np.int64)], [np.full((2, 1, 2), 3, np.int64)],
                          "ConstantFill-1 (experimental), dtype int64, value 3, input_as_shape with input [2, 1] "
                          "and extra_shape [2]: a (2, 1, 2) tensor of 3s."))
    w = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], f32)  # (O 3, I 4)
    made.append(hand_case("exp_embedding", "Embedding", 1, {"input_dim": 4, "output_dim": 3,
                          "weights": numpy_helper.from_array(w, "weights")}, [np.array([2, 0, 3], np.int64)],
                          [np.array([[3, 7, 11], [1, 5, 9], [4, 8, 12]], f32)],
                          "Embedding-1 (experimental), weights (output_dim 3, input_dim 4) as the Changelog gives "
                          "them: index i picks column i, so [2, 0, 3] gives [[3, 7, 11], [1, 5, 9], [4, 8, 12]]."))
    X = np.array([[1, 2, 3], [4, 5, 6]], f32)
    W = np.array([[1, 0, -1], [2, 1, 0]], f32)
    made.append(hand_case("exp_fc", "FC", 1, {}, [X, W, np.array([10, 20], f32)],
                          [np.array([[1 - 3 + 10, 2 + 2 + 20], [4 - 6 + 10, 8 + 5 + 20]], f32)],
                          "FC-1 (experimental, Caffe2's FC): Y = X W^T + B with X [[1,2,3],[4,5,6]], W [[1,0,-1],"
                          "[2,1,0]], B [10, 20]: [[8, 24], [8, 33]]."))
    hp = np.array([[[0.5, -1.0], [2.0, 0.0]]], f32)
    gates = np.array([[[9, 9, 0.0, 1.0, 0.5, -0.5], [9, 9, 2.0, 0.0, 1.0, 1.0]]], f32)
    sig = lambda v: 1 / (1 + np.exp(-v))
    row0 = hp[0, 0] * sig(gates[0, 0, 2:4]) + np.tanh(gates[0, 0, 4:6]) * (1 - sig(gates[0, 0, 2:4]))
    made.append(hand_case("exp_gru_unit", "GRUUnit", 1, {"drop_states": 1},
                          [hp, gates, np.array([3, 1], f32), np.array([1], f32)],
                          [np.array([[row0, [0, 0]]], f32)],
                          "GRUUnit-1 (experimental, Caffe2's GRUUnit) at t 1: batch 0 (length 3) is "
                          "h sigmoid(u) + tanh(o) (1 - sigmoid(u)) with u, o its second and third gate blocks "
                          "(u (0, 1), o (0.5, -0.5)); batch 1 (length 1) is past its end: 0 with drop_states."))
    made.append(hand_case("exp_loop_index_tensor", "LoopIndexTensor", 1, {"axis": 1},
                          [np.arange(24, dtype=f32).reshape(2, 3, 4), np.array(2, np.int32)],
                          [np.array([[8, 9, 10, 11], [20, 21, 22, 23]], f32)],
                          "LoopIndexTensor-1 (experimental): T (2, 3, 4) of 0..23 at index 2 of axis 1: "
                          "T[:, 2, :] = [[8..11], [20..23]]."))
    return made


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    ort_dir = sys.argv[1]
    for d in os.listdir(HERE):
        if (d.startswith("ms_") or d.startswith("exp_")) and os.path.isdir(os.path.join(HERE, d)):
            shutil.rmtree(os.path.join(HERE, d))
    made = web_cases(ort_dir)
    made += gen_ort(os.environ.get("ORT_NODE_DIR", "/tmp/ort"))
    made += gen_experimental(os.environ.get("ORT_NODE_DIR", "/tmp/ort"))
    print("%d cases" % len(made))


main()
