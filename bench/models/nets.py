#!/usr/bin/python3
"""bench/models/nets.py: the generated models of 'make bench-models'.

  nets.py KIND OUT.onnx [LAYERS]

Writes model KIND with seeded weights (numpy's PCG64; the same bytes on
every run with the same numpy), in the node sequence the exporters write,
for bench/models/manifest.txt's 'generate KIND' lines (fetch.py calls this
at bench time; nothing generated is ever committed). LAYERS (default: the
real net's) makes a smaller one, for trying things out.

  bert         BERT-base encoder (12 layers, hidden 768, 12 heads, FFN 3072,
               vocabulary 30522), sequence 128, as PyTorch's exporter writes
               it at opset 17 (HF BertModel): Gather of the three embeddings,
               LayerNormalization; the mask as Unsqueeze, Cast, Sub, Mul;
               per layer MatMul+Add for Q, K and V, Reshape and Transpose into
               heads, MatMul, Div, Add mask, Softmax, MatMul, Transpose,
               Reshape, MatMul+Add, Add, LayerNormalization, MatMul+Add, Gelu
               as Div/Erf/Add/Mul/Mul, MatMul+Add, Add, LayerNormalization;
               the pooler (Gather, Gemm, Tanh)
  bert_gelu20  the same at opset 20, Gelu as the Gelu-20 op
  bert_fp16    bert as onnxruntime's float16 converter writes it
               (convert_float_to_float16, keep_io_types: every float
               initializer float16, clamped to +-65504; Cast to float made
               Cast to float16; the float outputs Cast back to float)
  bert_int8    bert as onnxruntime's quantize_dynamic writes it (QOperator
               format, int8 weights, per tensor): each MatMul with a constant
               weight becomes DynamicQuantizeLinear (one per input tensor),
               MatMulInteger, Cast, Mul of the scales, Mul; each Gather of a
               constant table Gather of uint8, then DequantizeLinear
  gpt2         GPT-2 small (12 layers, hidden 768, vocabulary 50257), one
               decode step with a 127-token KV cache, as the exporter writes
               HF GPT2LMHeadModel with past at opset 17: Conv1D as Reshape,
               Gemm, Reshape; Split of QKV; the cache joined with Concat;
               Where of the causal mask; GELU in its tanh form (Mul, Pow,
               Mul, Add, Mul, Tanh, Add, Mul); the tied LM head as a MatMul
               with the embedding transposed (768 x 50257)
  vit          ViT-B/16 at 224x224 (HF ViTForImageClassification, opset 17):
               Conv patchify, Reshape, Transpose, Expand and Concat of the
               class token, Add of the positions, 12 pre-norm layers (Gelu as
               Div/Erf/Add/Mul/Mul), LayerNormalization, Gather, Gemm
  lstm         a byte-level bidirectional LSTM as PyTorch exports nn.LSTM at
               opset 9: Gather of a 256 x 64 embedding, two bidirectional
               LSTM layers of hidden 256 (Transpose and Reshape between),
               MatMul+Add to 256 classes; 256 bytes, batch 2
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = TensorProto.FLOAT


class Graph:
    """Nodes and initializers in the order they are made."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.n = 0
        self.consts = {}

    def init(self, name, a):
        self.inits.append(numpy_helper.from_array(np.array(a, order="C", copy=True), name))
        return name

    def weight(self, name, shape, std=0.02):
        return self.init(name, (self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)))

    def ln_params(self, name, n):
        g = self.init(name + ".weight", (1 + 0.1 * self.rng.standard_normal(n, dtype=np.float32)).astype(np.float32))
        b = self.init(name + ".bias", (0.02 * self.rng.standard_normal(n, dtype=np.float32)).astype(np.float32))
        return g, b

    def const(self, value, dtype=np.float32):
        """A scalar or small constant, as the exporter folds them (one
        initializer per distinct value)."""
        a = np.array(value, dtype=dtype)
        key = (a.dtype.str, a.shape, a.tobytes())
        if key not in self.consts:
            self.consts[key] = self.init(f"onnx::Const_{len(self.consts)}", a)
        return self.consts[key]

    def node(self, op, inputs, name, nout=1, **attrs):
        outs = [f"{name}_output_{k}" for k in range(nout)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if nout == 1 else outs

    def model(self, name, opset):
        g = helper.make_graph(self.nodes, name, self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="onnxop bench/models/nets.py")
        m.ir_version = 9 if opset >= 19 else 8
        return m


def linear(g, x, pre, n_in, n_out):
    """torch.nn.Linear on a 3-D input: MatMul with W^T (n_in, n_out), then Add of the bias."""
    w = g.weight(f"onnx::MatMul_{pre}", (n_in, n_out))
    b = g.init(f"{pre}.bias", (0.02 * g.rng.standard_normal(n_out, dtype=np.float32)).astype(np.float32))
    y = g.node("MatMul", [x, w], f"/{pre}/MatMul")
    return g.node("Add", [b, y], f"/{pre}/Add")


def layer_norm(g, x, pre, n, eps):
    sc, bi = g.ln_params(pre, n)
    return g.node("LayerNormalization", [x, sc, bi], f"/{pre}/LayerNormalization", axis=-1, epsilon=eps)


def gelu(g, x, pre, form):
    if form == "op20":
        return g.node("Gelu", [x], f"/{pre}/Gelu")
    # torch's erf form: x * 0.5 * (1 + erf(x / sqrt 2)) as it exports it
    d = g.node("Div", [x, g.const(1.4142135381698608)], f"/{pre}/Div")
    e = g.node("Erf", [d], f"/{pre}/Erf")
    a = g.node("Add", [e, g.const(1.0)], f"/{pre}/Add")
    m = g.node("Mul", [x, a], f"/{pre}/Mul")
    return g.node("Mul", [m, g.const(0.5)], f"/{pre}/Mul_1")


def attention(g, x, pre, S, H, heads, mask):
    """HF BertSelfAttention / ViTSelfAttention: x (1, S, H) -> (1, S, H)."""
    dh = H // heads
    q = linear(g, x, f"{pre}/query", H, H)
    k = linear(g, x, f"{pre}/key", H, H)
    v = linear(g, x, f"{pre}/value", H, H)
    split = g.const([1, S, heads, dh], np.int64)
    q = g.node("Transpose", [g.node("Reshape", [q, split], f"/{pre}/Reshape")], f"/{pre}/Transpose", perm=[0, 2, 1, 3])
    k = g.node("Transpose", [g.node("Reshape", [k, split], f"/{pre}/Reshape_1")], f"/{pre}/Transpose_1", perm=[0, 2, 3, 1])
    v = g.node("Transpose", [g.node("Reshape", [v, split], f"/{pre}/Reshape_2")], f"/{pre}/Transpose_2", perm=[0, 2, 1, 3])
    s = g.node("MatMul", [q, k], f"/{pre}/MatMul")
    s = g.node("Div", [s, g.const(float(np.sqrt(dh)))], f"/{pre}/Div")
    if mask is not None:
        s = g.node("Add", [s, mask], f"/{pre}/Add")
    p = g.node("Softmax", [s], f"/{pre}/Softmax", axis=-1)
    c = g.node("MatMul", [p, v], f"/{pre}/MatMul_1")
    c = g.node("Transpose", [c], f"/{pre}/Transpose_3", perm=[0, 2, 1, 3])
    return g.node("Reshape", [c, g.const([1, S, H], np.int64)], f"/{pre}/Reshape_3")


def bert(layers=12, gelu_form="erf", S=128, H=768, heads=12, FF=3072, V=30522, opset=17):
    g = Graph(1001)
    g.inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, [1, S])
                for n in ("input_ids", "attention_mask", "token_type_ids")]
    pre = "embeddings"
    we = g.weight(f"{pre}.word_embeddings.weight", (V, H))
    pe = g.weight(f"{pre}.position_embeddings.weight", (512, H))
    te = g.weight(f"{pre}.token_type_embeddings.weight", (2, H))
    x = g.node("Gather", [we, "input_ids"], f"/{pre}/word_embeddings/Gather")
    t = g.node("Gather", [te, "token_type_ids"], f"/{pre}/token_type_embeddings/Gather")
    x = g.node("Add", [x, t], f"/{pre}/Add")
    pos = g.init("/embeddings/position_ids", np.arange(S, dtype=np.int64).reshape(1, S))
    p = g.node("Gather", [pe, pos], f"/{pre}/position_embeddings/Gather")
    x = g.node("Add", [x, p], f"/{pre}/Add_1")
    x = layer_norm(g, x, f"{pre}/LayerNorm", H, 1e-12)
    # the extended mask: (1 - mask[:, None, None, :]) * finfo(float32).min
    m = g.node("Unsqueeze", ["attention_mask", g.const([1], np.int64)], "/Unsqueeze")
    m = g.node("Unsqueeze", [m, g.const([2], np.int64)], "/Unsqueeze_1")
    m = g.node("Cast", [m], "/Cast", to=F32)
    m = g.node("Sub", [g.const(1.0), m], "/Sub")
    mask = g.node("Mul", [m, g.const(-3.4028234663852886e38)], "/Mul")
    for i in range(layers):
        pre = f"encoder/layer.{i}"
        a = attention(g, x, f"{pre}/attention/self", S, H, heads, mask)
        a = linear(g, a, f"{pre}/attention/output/dense", H, H)
        x = layer_norm(g, g.node("Add", [a, x], f"/{pre}/attention/output/Add"),
                       f"{pre}/attention/output/LayerNorm", H, 1e-12)
        f = linear(g, x, f"{pre}/intermediate/dense", H, FF)
        f = gelu(g, f, f"{pre}/intermediate/intermediate_act_fn", gelu_form)
        f = linear(g, f, f"{pre}/output/dense", FF, H)
        x = layer_norm(g, g.node("Add", [f, x], f"/{pre}/output/Add"), f"{pre}/output/LayerNorm", H, 1e-12)
    g.nodes[-1].output[0] = "last_hidden_state"
    x = "last_hidden_state"
    c = g.node("Gather", [x, g.const(0, np.int64)], "/pooler/Gather", axis=1)
    w = g.weight("pooler.dense.weight", (H, H))
    b = g.init("pooler.dense.bias", np.zeros(H, np.float32))
    c = g.node("Gemm", [c, w, b], "/pooler/dense/Gemm", alpha=1.0, beta=1.0, transB=1)
    g.nodes.append(helper.make_node("Tanh", [c], ["pooler_output"], name="/pooler/activation/Tanh"))
    g.outputs = [helper.make_tensor_value_info("last_hidden_state", F32, [1, S, H]),
                 helper.make_tensor_value_info("pooler_output", F32, [1, H])]
    return g.model("bert", opset)


def gpt2(layers=12, P=127, H=768, heads=12, V=50257, NPOS=1024):
    g = Graph(2002)
    dh, T = H // heads, P + 1
    g.inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, 1]),
                helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, 1]),
                helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, T])]
    for i in range(layers):
        for kv in ("key", "value"):
            g.inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kv}", F32, [1, heads, P, dh]))
    g.outputs = [helper.make_tensor_value_info("logits", F32, [1, 1, V])]
    wte = g.weight("transformer.wte.weight", (V, H))
    wpe = g.weight("transformer.wpe.weight", (NPOS, H), 0.01)
    x = g.node("Gather", [wte, "input_ids"], "/transformer/wte/Gather")
    p = g.node("Gather", [wpe, "position_ids"], "/transformer/wpe/Gather")
    x = g.node("Add", [x, p], "/transformer/Add")
    m = g.node("Unsqueeze", ["attention_mask", g.const([1, 2], np.int64)], "/transformer/Unsqueeze")
    m = g.node("Cast", [m], "/transformer/Cast", to=F32)
    m = g.node("Sub", [g.const(1.0), m], "/transformer/Sub")
    mask = g.node("Mul", [m, g.const(-3.4028234663852886e38)], "/transformer/Mul")
    bias = g.init("transformer.h.bias", np.tril(np.ones((NPOS, NPOS), bool)).reshape(1, 1, NPOS, NPOS))
    neg = g.const(-3.4028234663852886e38)

    def conv1d(x, pre, n_in, n_out):
        """HF Conv1D: addmm(bias, x.view(-1, n_in), W) -> Reshape, Gemm, Reshape."""
        w = g.weight(f"{pre}.weight", (n_in, n_out))
        b = g.init(f"{pre}.bias", (0.02 * g.rng.standard_normal(n_out, dtype=np.float32)).astype(np.float32))
        r = g.node("Reshape", [x, g.const([-1, n_in], np.int64)], f"/{pre}/Reshape")
        y = g.node("Gemm", [r, w, b], f"/{pre}/Gemm", alpha=1.0, beta=1.0)
        return g.node("Reshape", [y, g.const([1, 1, n_out], np.int64)], f"/{pre}/Reshape_1")

    for i in range(layers):
        pre = f"transformer/h.{i}"
        h = layer_norm(g, x, f"{pre}/ln_1", H, 1e-5)
        qkv = conv1d(h, f"{pre}/attn/c_attn", H, 3 * H)
        q, k, v = g.node("Split", [qkv, g.const([H, H, H], np.int64)], f"/{pre}/attn/Split", nout=3, axis=2)
        heads_shape = g.const([1, 1, heads, dh], np.int64)
        q, k, v = (g.node("Transpose", [g.node("Reshape", [t, heads_shape], f"/{pre}/attn/Reshape_{n}")],
                          f"/{pre}/attn/Transpose_{n}", perm=[0, 2, 1, 3]) for n, t in enumerate((q, k, v)))
        k = g.node("Concat", [f"past_key_values.{i}.key", k], f"/{pre}/attn/Concat", axis=-2)
        v = g.node("Concat", [f"past_key_values.{i}.value", v], f"/{pre}/attn/Concat_1", axis=-2)
        g.nodes[-2].output[0] = f"present.{i}.key"
        g.nodes[-1].output[0] = f"present.{i}.value"
        k, v = f"present.{i}.key", f"present.{i}.value"
        g.outputs += [helper.make_tensor_value_info(f"present.{i}.{kv}", F32, [1, heads, T, dh])
                      for kv in ("key", "value")]
        kt = g.node("Transpose", [k], f"/{pre}/attn/Transpose_3", perm=[0, 1, 3, 2])
        s = g.node("MatMul", [q, kt], f"/{pre}/attn/MatMul")
        s = g.node("Div", [s, g.const(float(np.sqrt(dh)))], f"/{pre}/attn/Div")
        cm = g.node("Slice", [bias, g.const([T - 1, 0], np.int64), g.const([T, T], np.int64),
                              g.const([2, 3], np.int64)], f"/{pre}/attn/Slice")
        s = g.node("Where", [cm, s, neg], f"/{pre}/attn/Where")
        s = g.node("Add", [s, mask], f"/{pre}/attn/Add")
        s = g.node("Softmax", [s], f"/{pre}/attn/Softmax", axis=-1)
        a = g.node("MatMul", [s, v], f"/{pre}/attn/MatMul_1")
        a = g.node("Transpose", [a], f"/{pre}/attn/Transpose_4", perm=[0, 2, 1, 3])
        a = g.node("Reshape", [a, g.const([1, 1, H], np.int64)], f"/{pre}/attn/Reshape_3")
        a = conv1d(a, f"{pre}/attn/c_proj", H, H)
        x = g.node("Add", [a, x], f"/{pre}/Add")
        h = layer_norm(g, x, f"{pre}/ln_2", H, 1e-5)
        f = conv1d(h, f"{pre}/mlp/c_fc", H, 4 * H)
        # gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        n = f"/{pre}/mlp/act"
        half = g.node("Mul", [g.const(0.5), f], f"{n}/Mul")
        cube = g.node("Pow", [f, g.const(3.0)], f"{n}/Pow")
        c = g.node("Mul", [g.const(0.044715), cube], f"{n}/Mul_1")
        c = g.node("Add", [f, c], f"{n}/Add")
        c = g.node("Mul", [g.const(0.7978845608028654), c], f"{n}/Mul_2")
        c = g.node("Tanh", [c], f"{n}/Tanh")
        c = g.node("Add", [g.const(1.0), c], f"{n}/Add_1")
        f = g.node("Mul", [half, c], f"{n}/Mul_3")
        f = conv1d(f, f"{pre}/mlp/c_proj", 4 * H, H)
        x = g.node("Add", [x, f], f"/{pre}/Add_1")
    x = layer_norm(g, x, "transformer/ln_f", H, 1e-5)
    # the tied head: the exporter folds wte's transpose into an initializer
    wt = g.init("onnx::MatMul_lm_head", np.ascontiguousarray(numpy_helper.to_array(g.inits[0]).T))
    g.nodes.append(helper.make_node("MatMul", [x, wt], ["logits"], name="/lm_head/MatMul"))
    return g.model("gpt2", 17)


def vit(layers=12, H=768, heads=12, FF=3072, img=224, patch=16, classes=1000):
    g = Graph(3003)
    n = (img // patch) ** 2
    S = n + 1
    g.inputs = [helper.make_tensor_value_info("pixel_values", F32, [1, 3, img, img])]
    g.outputs = [helper.make_tensor_value_info("logits", F32, [1, classes])]
    pre = "vit/embeddings"
    w = g.weight(f"{pre}.patch_embeddings.projection.weight", (H, 3, patch, patch))
    b = g.init(f"{pre}.patch_embeddings.projection.bias", np.zeros(H, np.float32))
    x = g.node("Conv", ["pixel_values", w, b], f"/{pre}/patch_embeddings/projection/Conv",
               dilations=[1, 1], group=1, kernel_shape=[patch, patch], pads=[0, 0, 0, 0], strides=[patch, patch])
    x = g.node("Reshape", [x, g.const([1, H, n], np.int64)], f"/{pre}/patch_embeddings/Reshape")
    x = g.node("Transpose", [x], f"/{pre}/patch_embeddings/Transpose", perm=[0, 2, 1])
    cls = g.weight(f"{pre}.cls_token", (1, 1, H))
    cls = g.node("Expand", [cls, g.const([1, 1, H], np.int64)], f"/{pre}/Expand")
    x = g.node("Concat", [cls, x], f"/{pre}/Concat", axis=1)
    x = g.node("Add", [x, g.weight(f"{pre}.position_embeddings", (1, S, H))], f"/{pre}/Add")
    for i in range(layers):
        pre = f"vit/encoder/layer.{i}"
        h = layer_norm(g, x, f"{pre}/layernorm_before", H, 1e-12)
        a = attention(g, h, f"{pre}/attention/attention", S, H, heads, None)
        a = linear(g, a, f"{pre}/attention/output/dense", H, H)
        x = g.node("Add", [a, x], f"/{pre}/Add")
        h = layer_norm(g, x, f"{pre}/layernorm_after", H, 1e-12)
        f = linear(g, h, f"{pre}/intermediate/dense", H, FF)
        f = gelu(g, f, f"{pre}/intermediate/intermediate_act_fn", "erf")
        f = linear(g, f, f"{pre}/output/dense", FF, H)
        x = g.node("Add", [f, x], f"/{pre}/output/Add")
    x = layer_norm(g, x, "vit/layernorm", H, 1e-12)
    c = g.node("Gather", [x, g.const(0, np.int64)], "/Gather", axis=1)
    w = g.weight("classifier.weight", (classes, H))
    b = g.init("classifier.bias", np.zeros(classes, np.float32))
    g.nodes.append(helper.make_node("Gemm", [c, w, b], ["logits"], name="/classifier/Gemm",
                                    alpha=1.0, beta=1.0, transB=1))
    return g.model("vit", 17)


def lstm(layers=2, S=256, N=2, E=64, H=256, C=256):
    g = Graph(4004)
    g.inputs = [helper.make_tensor_value_info("bytes", TensorProto.INT64, [S, N])]
    g.outputs = [helper.make_tensor_value_info("logits", F32, [S, N, C])]
    x = g.node("Gather", [g.weight("embed.weight", (256, E), 1.0), "bytes"], "/embed/Gather")
    I = E
    k = 1 / np.sqrt(H)  # torch's init: uniform(-1/sqrt(H), 1/sqrt(H))
    for i in range(layers):
        w = g.init(f"onnx::LSTM_W_{i}", g.rng.uniform(-k, k, (2, 4 * H, I)).astype(np.float32))
        r = g.init(f"onnx::LSTM_R_{i}", g.rng.uniform(-k, k, (2, 4 * H, H)).astype(np.float32))
        b = g.init(f"onnx::LSTM_B_{i}", g.rng.uniform(-k, k, (2, 8 * H)).astype(np.float32))
        y = g.node("LSTM", [x, w, r, b], f"/lstm/LSTM_{i}", nout=3, direction="bidirectional", hidden_size=H)[0]
        y = g.node("Transpose", [y], f"/lstm/Transpose_{i}", perm=[0, 2, 1, 3])  # (S, N, 2, H)
        x = g.node("Reshape", [y, g.const([0, 0, -1], np.int64)], f"/lstm/Reshape_{i}")
        I = 2 * H
    w = g.weight("onnx::MatMul_head", (2 * H, C), 0.05)
    y = g.node("MatMul", [x, w], "/head/MatMul")
    g.nodes.append(helper.make_node("Add", [y, g.init("head.bias", np.zeros(C, np.float32))], ["logits"],
                                    name="/head/Add"))
    return g.model("lstm", 9)


# ---- what onnxruntime's tools make of a float32 model ----

def to_fp16(m):
    """onnxruntime.transformers.float16.convert_float_to_float16(m,
    keep_io_types=True): float initializers and Constant values to float16
    (clamped to the finite range, tiny values to the least normal-ish
    5.96e-8 as it does), Cast to float made Cast to float16, float graph
    inputs Cast to float16 first and float outputs Cast back at the end."""
    g = m.graph
    lo, hi = 5.96e-08, 65504.0

    def f16(a):
        a = a.astype(np.float64)
        a = np.where((np.abs(a) < lo) & (a != 0), np.sign(a) * lo, a)
        return np.clip(a, -hi, hi).astype(np.float16)

    for i, t in enumerate(g.initializer):
        if t.data_type == F32:
            g.initializer[i].CopyFrom(numpy_helper.from_array(f16(numpy_helper.to_array(t)), t.name))
    for n in g.node:
        for a in n.attribute:
            if n.op_type == "Cast" and a.name == "to" and a.i == F32:
                a.i = TensorProto.FLOAT16
    nodes = list(g.node)
    for k, v in enumerate(g.input):
        if v.type.tensor_type.elem_type == F32:
            new = v.name + "_fp16"
            for n in nodes:
                for j, s in enumerate(n.input):
                    if s == v.name:
                        n.input[j] = new
            nodes.insert(0, helper.make_node("Cast", [v.name], [new], name=f"graph_input_cast{k}",
                                             to=TensorProto.FLOAT16))
    for k, v in enumerate(g.output):
        if v.type.tensor_type.elem_type == F32:
            new = v.name + "_fp16"
            for n in nodes:
                for j, s in enumerate(n.output):
                    if s == v.name:
                        n.output[j] = new
                for j, s in enumerate(n.input):
                    if s == v.name:
                        n.input[j] = new
            nodes.append(helper.make_node("Cast", [new], [v.name], name=f"graph_output_cast{k}", to=F32))
    del g.node[:]
    g.node.extend(nodes)
    return m


def quantize_dynamic(m):
    """onnxruntime.quantization.quantize_dynamic(m, weight_type=QInt8)
    (QOperator format, per tensor, MatMulConstBOnly): each MatMul whose B is
    an initializer becomes
      DynamicQuantizeLinear(X) -> X_quantized, X_scale, X_zero_point  (once per X)
      MatMulInteger(X_quantized, W_quantized, X_zero_point, W_zero_point)
      Cast(to float), Mul(X_scale, W_scale), Mul
    with W int8, symmetric (zero point 0, scale max|W| / 127); each Gather of
    an initializer table Gather of the table in uint8 (asymmetric, over its
    range and 0), then DequantizeLinear."""
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    keep, added, done = [], [], set()
    nodes = []
    for n in g.node:
        if n.op_type == "MatMul" and n.input[1] in inits and inits[n.input[1]].data_type == F32:
            x, wname, out = n.input[0], n.input[1], n.output[0]
            w = numpy_helper.to_array(inits[wname])
            scale = np.float32(max(float(np.abs(w).max()), 1e-8) / 127)
            q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
            if wname not in done:
                added += [numpy_helper.from_array(q, wname + "_quantized"),
                          numpy_helper.from_array(np.array(scale, np.float32), wname + "_scale"),
                          numpy_helper.from_array(np.array(0, np.int8), wname + "_zero_point")]
                done.add(wname)
            if x + "_quantized" not in done:
                nodes.append(helper.make_node("DynamicQuantizeLinear", [x],
                                              [x + "_quantized", x + "_scale", x + "_zero_point"],
                                              name=x + "_QuantizeLinear"))
                done.add(x + "_quantized")
            nodes.append(helper.make_node("MatMulInteger", [x + "_quantized", wname + "_quantized",
                                                            x + "_zero_point", wname + "_zero_point"],
                                          [out + "_output_quantized"], name=n.name + "_quant"))
            nodes.append(helper.make_node("Cast", [out + "_output_quantized"],
                                          [out + "_output_quantized_cast_output"],
                                          name=n.name + "_quant_output_scale_mul_cast", to=F32))
            nodes.append(helper.make_node("Mul", [x + "_scale", wname + "_scale"],
                                          [n.name + "_quant_scales_mul:0"], name=n.name + "_quant_scales_mul"))
            nodes.append(helper.make_node("Mul", [out + "_output_quantized_cast_output",
                                                  n.name + "_quant_scales_mul:0"], [out],
                                          name=n.name + "_quant_output_scale_mul"))
            continue
        if n.op_type == "Gather" and n.input[0] in inits and inits[n.input[0]].data_type == F32 and \
                len(numpy_helper.to_array(inits[n.input[0]]).shape) == 2:
            tname, out = n.input[0], n.output[0]
            t = numpy_helper.to_array(inits[tname])
            lo_, hi_ = min(float(t.min()), 0.0), max(float(t.max()), 0.0)
            scale = np.float32((hi_ - lo_) / 255 or 1.0)
            zp = np.uint8(np.clip(np.rint(-lo_ / scale), 0, 255))
            q = np.clip(np.rint(t / scale) + zp, 0, 255).astype(np.uint8)
            added += [numpy_helper.from_array(q, tname + "_quantized"),
                      numpy_helper.from_array(np.array(scale, np.float32), tname + "_scale"),
                      numpy_helper.from_array(np.array(zp, np.uint8), tname + "_zero_point")]
            nodes.append(helper.make_node("Gather", [tname + "_quantized", n.input[1]], [out + "_quantized"],
                                          name=n.name + "_quant", **{a.name: helper.get_attribute_value(a)
                                                                     for a in n.attribute}))
            nodes.append(helper.make_node("DequantizeLinear", [out + "_quantized", tname + "_scale",
                                                               tname + "_zero_point"], [out],
                                          name=out + "_DequantizeLinear"))
            done.add(tname)
            continue
        nodes.append(n)
    used = {s for n in nodes for s in n.input}
    keep = [t for t in g.initializer if t.name in used] + [t for t in added if t.name in used]
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep)
    return m


KINDS = {
    "bert": lambda L: bert(L),
    "bert_gelu20": lambda L: bert(L, gelu_form="op20", opset=20),
    "bert_fp16": lambda L: to_fp16(bert(L)),
    "bert_int8": lambda L: quantize_dynamic(bert(L)),
    "gpt2": lambda L: gpt2(L),
    "vit": lambda L: vit(L),
    "lstm": lambda L: lstm(L),
}


def make(kind, out, layers=None):
    if kind not in KINDS:
        raise SystemExit(f"nets.py: no model kind '{kind}' (there: {' '.join(KINDS)})")
    m = KINDS[kind](layers or {"lstm": 2}.get(kind, 12))
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(m.SerializeToString())
    os.replace(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit("usage: bench/models/nets.py KIND OUT.onnx [LAYERS]")
    make(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else None)
