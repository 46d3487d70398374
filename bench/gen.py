#!/usr/bin/python3
"""bench/gen.py: seeded inputs and the one multi-node model for make bench.

  gen.py tensor FILE.pb SEED D0,D1,...  float32 uniform in [-1, 1), numpy's
                                        PCG64 seeded with SEED (deterministic)
  gen.py tensor FILE.pb SEED SHAPE DTYPE LO HI [NAME]
                                        DTYPE (float32, float16, float64: uniform
                                        in [LO, HI), drawn in float32 for float16;
                                        int8, uint8, int32, int64: integers in
                                        [LO, HI]; bool: LO, HI unused), the
                                        tensor named NAME
  gen.py fill FILE.pb DTYPE SHAPE VALUE [NAME]
                                        every element VALUE
  gen.py prefix FILE.pb DTYPE SHAPE N [NAME]
                                        1 at the first N positions of the last
                                        axis, 0 after (an attention mask with
                                        padding)
SHAPE is D0,D1,... or an empty string for a scalar.
  gen.py seqat MODEL.onnx N             SequenceConstruct(x0..x{N-1}) -> SequenceAt(1)
  gen.py const MODEL.onnx NAME FILE.pb  graph input NAME made an initializer holding
                                        FILE.pb (a weight, constant as models have it)
  gen.py part NAME MODEL.onnx           a transformer's part (PARTS below: its
                                        graph inputs are the case's inputs, its
                                        weights seeded initializers)
  gen.py rnn MODEL.onnx CELL S N I H DIR
                                        one RNN, GRU or LSTM node (opset 14) on X
                                        (S, N, I), its W, R and B initializers
                                        seeded (uniform in +-1/sqrt(H), as
                                        torch's init); DIR forward or
                                        bidirectional

Uses python3-onnx and numpy (Debian: python3-onnx, a build dependency of
onnxop). The single-node models come from 'onnxop make'.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def dims_of(shape):
    return [int(d) for d in shape.split(",")] if shape else []


def save(path, a, name=""):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


def tensor(path, seed, shape, dtype="float32", lo="-1", hi="1", name=""):
    dims = dims_of(shape)
    rng = np.random.default_rng(int(seed))
    dt = np.dtype(dtype)
    if dtype == "float32" and (lo, hi) == ("-1", "1"):
        a = (rng.random(dims, dtype=np.float32) * 2 - 1).astype(np.float32)  # as ever
    elif dt.kind == "f":
        r = rng.random(dims, dtype=np.float64 if dt == np.float64 else np.float32)
        a = (float(lo) + (float(hi) - float(lo)) * r).astype(dt)
    elif dt.kind in "iu":
        a = rng.integers(int(lo), int(hi), dims, dtype=dt, endpoint=True)
    elif dt == np.bool_:
        a = rng.random(dims) < 0.5
    else:
        sys.exit(f"gen.py: no generator for dtype {dtype}")
    save(path, np.asarray(a, dtype=dt), name)


def fill(path, dtype, shape, value, name=""):
    dt = np.dtype(dtype)
    v = float(value) if dt.kind == "f" else int(value)
    save(path, np.full(dims_of(shape), v, dtype=dt), name)


def prefix(path, dtype, shape, n, name=""):
    a = np.zeros(dims_of(shape), dtype=np.dtype(dtype))
    a[..., :int(n)] = 1
    save(path, a, name)


def seqat(path, n):
    n = int(n)
    xs = [f"x{i}" for i in range(n)]
    nodes = [
        helper.make_node("SequenceConstruct", xs, ["seq"], name="construct"),
        helper.make_node("Constant", [], ["pos"], name="pos",
                         value=helper.make_tensor("pos", TensorProto.INT64, [], [1])),
        helper.make_node("SequenceAt", ["seq", "pos"], ["y"], name="at"),
    ]
    g = helper.make_graph(
        nodes, "seqat",
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, None) for x in xs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def _w(rng, shape, std=0.02):
    return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)


def _gelu_erf(x, y):
    """torch's exported erf form: Div, Erf, Add, Mul, Mul"""
    return [helper.make_node("Div", [x, "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
            helper.make_node("Add", ["e", "one"], ["a"]), helper.make_node("Mul", [x, "a"], ["m"]),
            helper.make_node("Mul", ["m", "half"], [y])]


def _gelu_tanh(x, y):
    """GPT-2's gelu_new as exported: Mul, Pow, Mul, Add, Mul, Tanh, Add, Mul"""
    return [helper.make_node("Mul", ["half", x], ["h"]), helper.make_node("Pow", [x, "three"], ["p"]),
            helper.make_node("Mul", ["c0", "p"], ["q"]), helper.make_node("Add", [x, "q"], ["s"]),
            helper.make_node("Mul", ["c1", "s"], ["u"]), helper.make_node("Tanh", ["u"], ["t"]),
            helper.make_node("Add", ["one", "t"], ["v"]), helper.make_node("Mul", ["h", "v"], [y])]


_SCALARS = {"sqrt2": 1.4142135381698608, "one": 1.0, "half": 0.5, "three": 3.0, "c0": 0.044715,
            "c1": 0.7978845608028654}

# NAME: (opset, nodes, inputs [(name, elem type, shape)], initializers {name: fn(rng)})
F = TensorProto.FLOAT
PARTS = {
    # an encoder's products (BERT-base, 128 tokens): weights as initializers
    "mm_qkv": (17, [helper.make_node("MatMul", ["x", "w"], ["y"])], [("x", F, [1, 128, 768])],
               {"w": lambda r: _w(r, (768, 768))}),
    "mm_ffn1": (17, [helper.make_node("MatMul", ["x", "w"], ["y"])], [("x", F, [1, 128, 768])],
                {"w": lambda r: _w(r, (768, 3072))}),
    "mm_ffn2": (17, [helper.make_node("MatMul", ["x", "w"], ["y"])], [("x", F, [1, 128, 3072])],
                {"w": lambda r: _w(r, (3072, 768))}),
    # the same in float16, as onnxruntime's float16 converter writes them (issue 30)
    "mm_qkv_f16": (17, [helper.make_node("MatMul", ["x", "w"], ["y"])], [("x", TensorProto.FLOAT16, [1, 128, 768])],
                   {"w": lambda r: _w(r, (768, 768)).astype(np.float16)}),
    "mm_ffn1_f16": (17, [helper.make_node("MatMul", ["x", "w"], ["y"])], [("x", TensorProto.FLOAT16, [1, 128, 768])],
                    {"w": lambda r: _w(r, (768, 3072)).astype(np.float16)}),
    "mm_heads": (17, [helper.make_node("MatMul", ["q", "k"], ["y"])],
                 [("q", F, [1, 12, 128, 64]), ("k", F, [1, 12, 64, 128])], {}),
    "mm_heads_v": (17, [helper.make_node("MatMul", ["p", "v"], ["y"])],
                   [("p", F, [1, 12, 128, 128]), ("v", F, [1, 12, 128, 64])], {}),
    "softmax_heads": (17, [helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [("x", F, [1, 12, 128, 128])], {}),
    "mask_add": (17, [helper.make_node("Add", ["x", "m"], ["y"])],
                 [("x", F, [1, 12, 128, 128]), ("m", F, [1, 1, 1, 128])], {}),
    "layernorm": (17, [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=1e-12)],
                  [("x", F, [1, 128, 768])],
                  {"g": lambda r: (1 + _w(r, (768,), 0.1)), "b": lambda r: _w(r, (768,))}),
    "gelu_erf": (17, _gelu_erf("x", "y"), [("x", F, [1, 128, 3072])], {}),
    "gelu20": (20, [helper.make_node("Gelu", ["x"], ["y"])], [("x", F, [1, 128, 3072])], {}),
    "gelu_tanh": (17, _gelu_tanh("x", "y"), [("x", F, [1, 128, 3072])], {}),
    "transpose_heads": (17, [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 1, 3])],
                        [("x", F, [1, 128, 12, 64])], {}),
    "gather_emb": (17, [helper.make_node("Gather", ["w", "ids"], ["y"])], [("ids", TensorProto.INT64, [1, 128])],
                   {"w": lambda r: _w(r, (30522, 768))}),
    # a decode step's parts (GPT-2 small, a 127-token cache)
    "dec_gemm": (17, [helper.make_node("Gemm", ["x", "w", "b"], ["y"])], [("x", F, [1, 768])],
                 {"w": lambda r: _w(r, (768, 2304)), "b": lambda r: _w(r, (2304,))}),
    "dec_ffn2": (17, [helper.make_node("Gemm", ["x", "w", "b"], ["y"])], [("x", F, [1, 3072])],
                 {"w": lambda r: _w(r, (3072, 768)), "b": lambda r: _w(r, (768,))}),
    "dec_head": (17, [helper.make_node("MatMul", ["x", "w"], ["y"])], [("x", F, [1, 1, 768])],
                 {"w": lambda r: _w(r, (768, 50257))}),
    "kv_concat": (17, [helper.make_node("Concat", ["past", "k"], ["y"], axis=2)],
                  [("past", F, [1, 12, 127, 64]), ("k", F, [1, 12, 1, 64])], {}),
    "dec_split": (17, [helper.make_node("Split", ["x", "sp"], ["q", "k", "v"], axis=2)], [("x", F, [1, 1, 2304])],
                  {"sp": lambda r: np.array([768, 768, 768], np.int64)}),
    "dec_heads": (17, [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 1, 3])],
                  [("x", F, [1, 1, 12, 64])], {}),
    "dec_kt": (17, [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 1, 3, 2])],
               [("x", F, [1, 12, 128, 64])], {}),
    "softmax_row": (17, [helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [("x", F, [1, 12, 1, 128])], {}),
    # ViT-B/16's (197 tokens): the Erf of its Div/Erf/Add/Mul/Mul GELU, its attention's Softmax
    "erf_vit": (17, [helper.make_node("Erf", ["x"], ["y"])], [("x", F, [1, 197, 3072])], {}),
    "softmax_vit": (17, [helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [("x", F, [1, 12, 197, 197])], {}),
}


def part(name, path):
    opset, nodes, ins, inits = PARTS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    used = {i for n in nodes for i in n.input}
    init = [numpy_helper.from_array(np.asarray(f(rng)), k) for k, f in inits.items()]
    init += [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in _SCALARS.items() if k in used]
    outs = [o for n in nodes for o in n.output if o not in used]
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(o, ins[0][1] if ins[0][1] == TensorProto.FLOAT16 else F, None)
                           for o in outs], init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9 if opset >= 19 else 8
    onnx.save(m, path)


def rnn(path, cell, S, N, I, H, direction):
    S, N, I, H = int(S), int(N), int(I), int(H)
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell]
    D = 2 if direction == "bidirectional" else 1
    rng = np.random.default_rng(G * 1000 + H)
    k = 1 / np.sqrt(H)
    inits = [numpy_helper.from_array(rng.uniform(-k, k, shape).astype(np.float32), name)
             for name, shape in (("W", (D, G * H, I)), ("R", (D, G * H, H)), ("B", (D, 2 * G * H)))]
    node = helper.make_node(cell, ["X", "W", "R", "B"], ["Y", "Y_h"], name=cell.lower(),
                            hidden_size=H, direction=direction)
    g = helper.make_graph(
        [node], cell.lower(), [helper.make_tensor_value_info("X", TensorProto.FLOAT, [S, N, I])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [S, D, N, H]),
         helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [D, N, H])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.save(m, path)


def opset(path, domain, version):
    """set the model's import of domain ("" for ai.onnx) to version: onnxop
    make imports the newest ai.onnx beside another domain, which onnxruntime
    may not load yet"""
    m = onnx.load(path)
    for o in m.opset_import:
        if o.domain == domain:
            o.version = int(version)
    onnx.save(m, path)


def noshape(path, *names):
    """drop the shapes declared for outputs `names` (onnxop make declares those
    its evaluation on stand-in inputs computed, which a data-dependent shape,
    such as a cache's length, need not keep)"""
    m = onnx.load(path)
    for o in m.graph.output:
        if o.name in names:
            o.type.tensor_type.ClearField("shape")
    onnx.save(m, path)


def const(path, name, tfile):
    """graph input name becomes an initializer holding tfile's tensor"""
    m = onnx.load(path)
    t = onnx.TensorProto()
    with open(tfile, "rb") as f:
        t.ParseFromString(f.read())
    t.name = name
    keep = [i for i in m.graph.input if i.name != name]
    if len(keep) == len(m.graph.input):
        sys.exit(f"gen.py: {path} has no input {name}")
    del m.graph.input[:]
    m.graph.input.extend(keep)
    m.graph.initializer.append(t)
    onnx.save(m, path)


if __name__ == "__main__":
    {"tensor": tensor, "fill": fill, "prefix": prefix, "seqat": seqat, "rnn": rnn, "part": part, "opset": opset,
     "noshape": noshape, "const": const}[sys.argv[1]](*sys.argv[2:])
