#!/usr/bin/python3
"""tests/cases/gen_graphs.py [ORT_NODE_DIR]: small transformer graphs in the
node sequences real exporters write, the patterns of the exported graphs
tests/real_graphs.py runs beside onnxruntime, for `make check` to hold
without them.

  graph_gpt2_block_past   a GPT-2 block at one new token with a past of 3
                          (PyTorch 1.6's export at opset 11, as gpt2_past.onnx):
                          LayerNorm as ReduceMean/Sub/Pow/Sqrt/Div, the QKV
                          MatMul + Add and Split, heads by Reshape (its shape
                          from Shape/Gather/Unsqueeze/Concat) and Transpose,
                          the past split by Gather and joined by Concat,
                          present by Unsqueeze + Concat, the causal mask
                          sliced from a constant and applied as w*b - 1e4*(1-b),
                          Softmax, GELU in its tanh form (Pow, Tanh)
  graph_bert_layer_mask   a BERT layer with embeddings (PyTorch's export at
                          opset 17): Gather of word, position and token-type
                          embeddings, LayerNormalization-17, the padding mask
                          as Unsqueeze/Cast/Sub/Mul added to the scores, GELU
                          as Div/Erf/Add/Mul, Softmax; its nodes listed out of
                          topological order as onnxruntime's optimiser writes
                          them (bert_toy_optimized.onnx), which onnxop runs in
                          dependency order with a warning

Weights and inputs are seeded (numpy RandomState), token ids inside the
vocabulary, the mask with padding. The expected outputs are onnxruntime-node's
(bench/ort.js: CPU, one thread, graph optimisation off; ORT_NODE_DIR, default
/tmp/ort, holds node_modules/onnxruntime-node), computed once and kept; each
case's SOURCE says so with its version.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
TOL = (1e-5, 1e-4)  # onnxruntime's OpTester defaults for float32 (test/unittest_util/checkers.cc)


class Graph:
    """nodes named and numbered as PyTorch's exporter names them"""

    def __init__(self, seed):
        self.nodes, self.inits, self.k = [], [], 0
        self.rng = np.random.RandomState(seed)

    def op(self, op, ins, nout=1, **attrs):
        self.k += 1
        outs = ["%d" % (100 + self.k * 4 + j) for j in range(nout)]
        self.nodes.append(helper.make_node(op, ins, outs, name="%s_%d" % (op, self.k), **attrs))
        return outs[0] if nout == 1 else outs

    def const(self, value, dtype=np.int64):
        return self.op("Constant", [], value=numpy_helper.from_array(np.array(value, dtype)))

    def weight(self, name, shape, scale=0.3):
        self.inits.append(numpy_helper.from_array((self.rng.uniform(-1, 1, shape) * scale).astype(np.float32), name))
        return name

    def layer_norm_decomposed(self, x, h, name):
        mean = self.op("ReduceMean", [x], axes=[-1])
        d = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Pow", [d, self.const(2.0, np.float32)])], axes=[-1])
        std = self.op("Sqrt", [self.op("Add", [var, self.const(1e-5, np.float32)])])
        y = self.op("Div", [d, std])
        y = self.op("Mul", [y, self.weight(name + ".weight", [h], 1.0)])
        return self.op("Add", [y, self.weight(name + ".bias", [h], 0.1)])

    def linear(self, x, n_in, n_out, name):
        y = self.op("MatMul", [x, self.weight(name + ".weight", [n_in, n_out])])
        return self.op("Add", [y, self.weight(name + ".bias", [n_out], 0.1)])

    def shape_of(self, x, dims, tail):
        """Concat(Unsqueeze(Gather(Shape(x), d)) for d in dims, tail): the
        shape a Reshape takes, as the exporter computes it"""
        parts = []
        for d in dims:
            g = self.op("Gather", [self.op("Shape", [x]), self.const(d)], axis=0)
            parts.append(self.op("Unsqueeze", [g], axes=[0]))
        return self.op("Concat", parts + [self.const(tail)], axis=0)


def gpt2_block_past(seed):
    B, S, P, H, N = 2, 1, 3, 8, 2
    D, T = H // N, P + 1
    g = Graph(seed)
    x = "input_0"
    past = "input_1"
    h1 = g.layer_norm_decomposed(x, H, "ln_1")
    qkv = g.linear(h1, H, 3 * H, "attn.c_attn")
    q, k, v = g.op("Split", [qkv], 3, axis=2, split=[H, H, H])

    def heads(t, perm):
        shape = g.shape_of(t, [0, 1], [N, D])
        return g.op("Transpose", [g.op("Reshape", [t, shape])], perm=perm)
    q = heads(q, [0, 2, 1, 3])        # (B, N, S, D)
    k = heads(k, [0, 2, 3, 1])        # (B, N, D, S)
    v = heads(v, [0, 2, 1, 3])        # (B, N, S, D)
    past_k = g.op("Transpose", [g.op("Gather", [past, g.const(0)], axis=0)], perm=[0, 1, 3, 2])  # (B, N, D, P)
    past_v = g.op("Gather", [past, g.const(1)], axis=0)                                          # (B, N, P, D)
    k = g.op("Concat", [past_k, k], axis=-1)    # (B, N, D, T)
    v = g.op("Concat", [past_v, v], axis=-2)    # (B, N, T, D)
    k_t = g.op("Transpose", [k], perm=[0, 1, 3, 2])
    present = g.op("Concat", [g.op("Unsqueeze", [k_t], axes=[0]), g.op("Unsqueeze", [v], axes=[0])], axis=0)
    w = g.op("Div", [g.op("MatMul", [q, k]), g.const(float(np.sqrt(D)), np.float32)])    # (B, N, S, T)
    # the causal mask: bias[:, :, T - S:T, :T] of a constant lower triangle
    bias = g.const(np.tril(np.ones((1, 1, 8, 8))), np.float32)
    b = g.op("Slice", [bias, g.const([T - S]), g.const([T]), g.const([2])])
    b = g.op("Slice", [b, g.const([0]), g.const([T]), g.const([3])])
    w = g.op("Sub", [g.op("Mul", [w, b]), g.op("Mul", [g.const(1e4, np.float32),
                                                        g.op("Sub", [g.const(1.0, np.float32), b])])])
    w = g.op("Softmax", [w], axis=3)
    a = g.op("Transpose", [g.op("MatMul", [w, v])], perm=[0, 2, 1, 3])   # (B, S, N, D)
    a = g.op("Reshape", [a, g.shape_of(a, [0, 1], [H])])
    x2 = g.op("Add", [x, g.linear(a, H, H, "attn.c_proj")])
    h2 = g.linear(g.layer_norm_decomposed(x2, H, "ln_2"), H, 4 * H, "mlp.c_fc")
    # gelu(x) = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    c = g.op("Mul", [g.const(0.044715, np.float32), g.op("Pow", [h2, g.const(3.0, np.float32)])])
    t = g.op("Tanh", [g.op("Mul", [g.const(float(np.sqrt(2 / np.pi)), np.float32), g.op("Add", [h2, c])])])
    gelu = g.op("Mul", [g.op("Mul", [g.const(0.5, np.float32), h2]), g.op("Add", [g.const(1.0, np.float32), t])])
    y = g.op("Add", [x2, g.linear(gelu, 4 * H, H, "mlp.c_proj")])
    rng = np.random.RandomState(seed + 1000)
    ins = [rng.uniform(-1, 1, (B, S, H)).astype(np.float32), rng.uniform(-1, 1, (2, B, N, P, D)).astype(np.float32)]
    return g, ins, [(y, "output_0"), (present, "output_1")], 11


def bert_layer_mask(seed):
    B, S, H, N, V = 2, 5, 8, 2, 16
    D = H // N
    g = Graph(seed)
    ids, types, mask = "input_0", "input_1", "input_2"
    pos = g.op("Unsqueeze", [g.op("Range", [g.const(0), g.op("Gather", [g.op("Shape", [ids]), g.const(1)], axis=0),
                                           g.const(1)]), g.const([0])])
    e = g.op("Add", [g.op("Gather", [g.weight("word_embeddings", [V, H]), ids], axis=0),
                     g.op("Gather", [g.weight("position_embeddings", [S, H]), pos], axis=0)])
    e = g.op("Add", [e, g.op("Gather", [g.weight("token_type_embeddings", [2, H]), types], axis=0)])
    x = g.op("LayerNormalization", [e, g.weight("emb_ln.weight", [H], 1.0), g.weight("emb_ln.bias", [H], 0.1)],
             axis=-1, epsilon=1e-12)
    # (1 - mask) * -10000 over (B, 1, 1, S)
    m = g.op("Cast", [g.op("Unsqueeze", [mask, g.const([1, 2])])], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.const(1.0, np.float32), m]), g.const(-10000.0, np.float32)])

    def heads(t, perm):
        return g.op("Transpose", [g.op("Reshape", [t, g.const([B, S, N, D])])], perm=perm)
    q = heads(g.linear(x, H, H, "query"), [0, 2, 1, 3])
    k = heads(g.linear(x, H, H, "key"), [0, 2, 3, 1])
    v = heads(g.linear(x, H, H, "value"), [0, 2, 1, 3])
    w = g.op("Add", [g.op("Div", [g.op("MatMul", [q, k]), g.const(float(np.sqrt(D)), np.float32)]), m])
    a = g.op("MatMul", [g.op("Softmax", [w], axis=-1), v])
    a = g.op("Reshape", [g.op("Transpose", [a], perm=[0, 2, 1, 3]), g.const([B, S, H])])
    x = g.op("LayerNormalization", [g.op("Add", [g.linear(a, H, H, "attn_out"), x]), g.weight("ln1.weight", [H], 1.0),
                                    g.weight("ln1.bias", [H], 0.1)], axis=-1, epsilon=1e-12)
    h = g.linear(x, H, 4 * H, "intermediate")
    # gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2)))
    gelu = g.op("Mul", [g.op("Mul", [h, g.op("Add", [g.op("Erf", [g.op("Div", [h, g.const(1.4142135, np.float32)])]),
                                                   g.const(1.0, np.float32)])]), g.const(0.5, np.float32)])
    y = g.op("LayerNormalization", [g.op("Add", [g.linear(gelu, 4 * H, H, "output"), x]),
                                    g.weight("ln2.weight", [H], 1.0), g.weight("ln2.bias", [H], 0.1)],
             axis=-1, epsilon=1e-12)
    # listed as onnxruntime's optimiser leaves a graph: the Constants and the
    # mask's nodes after the nodes that read them
    late = [n for n in g.nodes if n.op_type in ("Constant", "Cast", "Unsqueeze", "Range")]
    g.nodes = [n for n in g.nodes if n not in late] + late
    rng = np.random.RandomState(seed + 1000)
    ins = [rng.randint(0, V, (B, S)).astype(np.int64), rng.randint(0, 2, (B, S)).astype(np.int64),
           np.ones((B, S), np.int64)]
    ins[2][1, -2:] = 0   # the second sequence padded
    return g, ins, [(y, "output_0")], 17


def ort_version(node_dir):
    return json.load(open(os.path.join(node_dir, "node_modules/onnxruntime-node/package.json")))["version"]


def write(node_dir, name, made, what):
    g, ins, outs, opset = made
    # the graph's outputs under their case names (Identity, as exporters add them)
    nodes = list(g.nodes) + [helper.make_node("Identity", [t], [n], name="output_%s" % n) for t, n in outs]
    vi = lambda n, a: helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))
    gin = [vi("input_%d" % i, a) for i, a in enumerate(ins)]
    gout = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for _, n in outs]
    model = helper.make_model(helper.make_graph(nodes, name, gin, gout, g.inits),
                              opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tests/cases/gen_graphs.py")
    model.ir_version = 8
    d = os.path.join(HERE, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    files = []
    for i, a in enumerate(ins):
        f = os.path.join(d, "test_data_set_0", "input_%d.pb" % i)
        open(f, "wb").write(numpy_helper.from_array(a, "input_%d" % i).SerializeToString())
        files.append(f)
    tmp = "/tmp/gen_graphs_ort"
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    env = dict(os.environ, ORT_DIR=node_dir, ORT_OUT_DIR=tmp)
    r = subprocess.run(["node", os.path.join(HERE, "../../bench/ort.js"), os.path.join(d, "model.onnx"), "1", "0"] +
                       files, env=env, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("onnxruntime refused %s: %s" % (name, r.stderr[-600:]))
    for k, (_, n) in enumerate(outs):
        t = onnx.TensorProto()
        t.ParseFromString(open(os.path.join(tmp, "output_%d.pb" % k), "rb").read())
        t.name = n
        open(os.path.join(d, "test_data_set_0", "output_%d.pb" % k), "wb").write(t.SerializeToString())
    json.dump({"atol": TOL[0], "rtol": TOL[1]}, open(os.path.join(d, "data.json"), "w"))
    open(os.path.join(d, "SOURCE"), "w").write(
        "Expected outputs computed by onnxruntime-node %s (CPU, one thread, graph optimisation off): %s, made by "
        "tests/cases/gen_graphs.py (seeded). Tolerance atol %g, rtol %g: onnxruntime's OpTester defaults "
        "(test/unittest_util/checkers.cc) for float32.\n" % (ort_version(node_dir), what, TOL[0], TOL[1]))


def main():
    node_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ORT_NODE_DIR", "/tmp/ort")
    write(node_dir, "graph_gpt2_block_past", gpt2_block_past(1),
          "a GPT-2 block at one new token with a past of 3, in PyTorch 1.6's node sequence at opset 11")
    write(node_dir, "graph_bert_layer_mask", bert_layer_mask(2),
          "a BERT layer with embeddings and a padded mask, in PyTorch's node sequence at opset 17, its nodes "
          "listed out of topological order")


main()
