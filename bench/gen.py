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


if __name__ == "__main__":
    {"tensor": tensor, "fill": fill, "prefix": prefix, "seqat": seqat, "rnn": rnn}[sys.argv[1]](*sys.argv[2:])
