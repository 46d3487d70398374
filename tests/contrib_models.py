#!/usr/bin/python3
"""tests/contrib_models.py BUILD: real models that use com.microsoft's operators,
run by onnxop beside onnxruntime.

The models are onnxruntime's own transformer test models (the graphs its
optimizer fuses BERT, GPT-2, Whisper, Phi-3.5-vision, Phi-4-vision and
Gemma 3 attention blocks into: Attention, MultiHeadAttention,
SkipLayerNormalization, EmbedLayerNormalization, FastGelu, BiasGelu,
QuickGelu, GemmFastGelu), from onnxruntime's repository at COMMIT below
(onnxruntime/test/python/transformers/test_data/models/). They are fetched
into BUILD/contrib-models/ (from ORT_SRC, a checkout, when set; else from
raw.githubusercontent.com) and never committed. Each gets seeded inputs
(floats in [-1, 1), masks of ones, ids below 10, positions counting up; the
symbolic dims below), and its outputs from `onnxop run` are compared with
onnxruntime-node's (bench/ort.js: CPU, one thread, graph optimisation off;
ORT_DIR holds node_modules/onnxruntime-node) within TOL.

Three of the models use com.microsoft operators without importing the
domain, which onnxruntime tolerates and onnxop refuses (`onnxop run --help`
says so): each is run as it is (onnxop must refuse it, naming the import),
then with the import added.

Prints one line per model and exits 1 when a model does not match.
"""
import os
import shutil
import subprocess
import sys
import urllib.request

import numpy as np
import onnx
from onnx import helper, numpy_helper

COMMIT = "735e69a396afe7e1bdfbc6b38c1d43eeb68b8484"  # onnxruntime main, 2026-02-13
DIR = "onnxruntime/test/python/transformers/test_data/models/"
MODELS = [
    "attention_mha.onnx", "attention_opt.onnx", "attention_with_varied_qkv_opt.onnx", "bert_3d_attention_opt.onnx",
    "pruned_attention_opt.onnx", "gpt2_attention_opt_skiplayernorm.onnx", "gpt2_attention_opt_no_skiplayernorm.onnx",
    "gpt2_attention_add_opt_skiplayernorm.onnx", "gpt2_megatron_opt_skiplayernorm.onnx",
    "gpt2_megatron_opt_no_skiplayernorm.onnx", "gemmfastgelu_withbias_opt.onnx", "gemmfastgelu_nobias_opt.onnx",
    "phi-3.5-v-instruct-vision-attention.onnx", "phi-3.5-v-instruct-vision-quickgelu.onnx",
    "phi-4-v-instruct-vision-attention.onnx", "gemma3-vision-attention_fp32.onnx", "gemma3-vision-attention_fp16.onnx",
] + ["whisper/%s_%s_%s.onnx" % (w, t, k) for w in ("hf", "oai") for t in ("fp32", "fp16")
     for k in ("encoder_self_attention", "decoder_attention_no_past", "decoder_attention_with_past",
               "decoder_attention_no_past_split_bias", "decoder_attention_with_past_split_bias")]
DIMS = {"batch_size": 2, "batch": 2, "sequence_length": 3, "seq_len": 3, "seq": 3, "past_sequence_length": 4,
        "past_seq_len": 4, "past_sequence_length + sequence_length": 7}
TOL = {1: (1e-4, 1e-4), 10: (5e-3, 5e-3)}  # float32, float16: (atol, rtol)
# Models where onnxruntime is the less accurate of the two, with the evidence
# and the tolerance that admits it: name -> (atol, why)
LOOSE = {
    name: (3e-3, "the last SkipLayerNormalization's rows have mean 4161 and variance 0.7; onnxruntime's one-pass "
                 "variance (E[x^2] - E[x]^2 in float) loses three digits there: from onnxop's intermediates, "
                 "its output is 0.0020 from a float64 evaluation, onnxop's (two passes) 0.0006")
    for name in ("gpt2_attention_opt_skiplayernorm.onnx", "gpt2_attention_add_opt_skiplayernorm.onnx")}
LOOSE["gpt2_attention_opt_no_skiplayernorm.onnx"] = (
    1e-3, "its last LayerNormalization's rows have mean 4161 and variance 0.65; onnxruntime's one-pass variance "
          "loses three digits there: from onnxop's intermediates, its output is 3.1e-4 from a float64 evaluation, "
          "onnxop's 1.2e-7 (its misspelt 'epsion' is ignored by both, as onnxruntime's LayerNormalization-1 allows "
          "unchecked attributes)")
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
        dims = [d.dim_value if d.HasField("dim_value") else DIMS[d.dim_param] for d in tt.shape.dim]
        dt = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type]
        if "mask" in i.name:
            a = np.ones(dims, dt)
        elif "position" in i.name:
            a = np.broadcast_to(np.arange(dims[-1]), dims).astype(dt)
        elif np.dtype(dt).kind in "iu":
            a = rng.randint(0, 10, dims).astype(dt)
        else:
            a = rng.uniform(-1, 1, dims).astype(dt)
        ins.append((i.name, a))
    return ins


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def for_ort(model_path, out_path):
    """onnxruntime's CPU provider has no GemmFastGelu: the same model with each
    GemmFastGelu(X, W, bias) as MatMul(X, W) then FastGelu(., bias)"""
    m = onnx.load(model_path)
    if not any(n.op_type == "GemmFastGelu" for n in m.graph.node):
        return model_path
    nodes = []
    for i, n in enumerate(m.graph.node):
        if n.op_type != "GemmFastGelu":
            nodes.append(n)
            continue
        t = "gemm_fast_gelu_%d" % i
        nodes.append(helper.make_node("MatMul", list(n.input[:2]), [t], name=n.name + "_matmul"))
        nodes.append(helper.make_node("FastGelu", [t] + list(n.input[2:3]), list(n.output), name=n.name + "_gelu",
                                      domain="com.microsoft"))
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    onnx.save(m, out_path)
    return out_path


def compare(build, name, model_path, ins, work):
    x = os.path.join(build, "onnxop")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    files = []
    for n, a in ins:
        f = os.path.join(work, "in_%d.pb" % len(files))
        open(f, "wb").write(numpy_helper.from_array(a, n).SerializeToString())
        files.append((n, f))
    r = run([x, "run", model_path, "--out-dir", os.path.join(work, "ox")] + sum([["--in", "%s=%s" % nf] for nf in files],
                                                                               []))
    env = dict(os.environ, ORT_OUT_DIR=os.path.join(work, "ort"))
    ort_model = for_ort(model_path, os.path.join(work, "for_ort.onnx"))
    o = run(["node", os.path.join(HERE, "../bench/ort.js"), ort_model, "1", "0"] + [f for _, f in files], env)
    if r.returncode and o.returncode:
        return ("both refuse it: onnxop (exit %d) %s; onnxruntime %s" %
                (r.returncode, r.stderr.strip().splitlines()[-1].split(": ", 2)[-1],
                 o.stderr.strip().splitlines()[-1].split("Status Message: ")[-1])), True, r
    if r.returncode:
        return "onnxop refused (exit %d): %s" % (r.returncode, r.stderr.strip().splitlines()[-1]), False, r
    if o.returncode:
        return "onnxruntime refused: " + o.stderr.strip()[-300:], False, r
    loose = LOOSE.get(name)
    m = onnx.load(model_path)
    worst, ok = [], True
    for k, out in enumerate(m.graph.output):
        atol, rtol = TOL.get(out.type.tensor_type.elem_type, (1e-4, 1e-4))
        if loose:
            atol = loose[0]
        a = os.path.join(work, "ox", "output_%d.pb" % k)
        b = os.path.join(work, "ort", "output_%d.pb" % k)
        t1, t2 = onnx.TensorProto(), onnx.TensorProto()
        t1.ParseFromString(open(a, "rb").read())
        t2.ParseFromString(open(b, "rb").read())
        u, v = numpy_helper.to_array(t1).astype(np.float64), numpy_helper.to_array(t2).astype(np.float64)
        if u.shape != v.shape:
            ok = False
            worst.append("%s: shape %s, onnxruntime %s" % (out.name, u.shape, v.shape))
            continue
        d = np.abs(u - v)
        bad = d > atol + rtol * np.abs(v)
        ok &= not bad.any()
        worst.append("%s max |diff| %.3g%s" % (out.name, d.max() if d.size else 0, " MISMATCH" if bad.any() else ""))
    return (("match" if ok else "MISMATCH") + ": " + "; ".join(worst) +
            (" (atol %g: %s)" % loose if loose else "") + (" (onnxruntime ran MatMul + FastGelu)" if ort_model !=
                                                           model_path else "")), ok, r


def main():
    if len(sys.argv) != 2 or not os.environ.get("ORT_DIR"):
        raise SystemExit(__doc__)
    build = sys.argv[1]
    d = os.path.join(build, "contrib-models")
    fetch(d)
    failed = 0
    for seed, m in enumerate(MODELS):
        name = m.replace("/", "_")
        path = os.path.join(d, name)
        model = onnx.load(path)
        ins = inputs_of(model, seed)
        uses = any(n.domain == "com.microsoft" for n in model.graph.node)
        imports = any(o.domain == "com.microsoft" for o in model.opset_import)
        if uses and not imports:
            msg, ok, r = compare(build, name, path, ins, os.path.join(d, "work", name))
            refused = r.returncode == 1 and "imports no opset for domain 'com.microsoft'" in r.stderr
            print("%-60s as it is: %s" % (name, "refused, naming the missing import (onnxruntime runs it)"
                                          if refused else "NOT REFUSED: " + msg))
            failed += not refused
            model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
            path = os.path.join(d, name.replace(".onnx", "_imported.onnx"))
            onnx.save(model, path)
            name += " (import added)"
        msg, ok, _ = compare(build, name, path, ins, os.path.join(d, "work", os.path.basename(path)))
        print("%-60s %s" % (name, msg))
        failed += not ok
    print("contrib models: %d of %d match onnxruntime" % (len(MODELS) - failed, len(MODELS)))
    sys.exit(1 if failed else 0)


main()
