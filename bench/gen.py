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
SHAPE is D0,D1,... or an empty string for a scalar.
  gen.py seqat MODEL.onnx N             SequenceConstruct(x0..x{N-1}) -> SequenceAt(1)

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


if __name__ == "__main__":
    {"tensor": tensor, "fill": fill, "seqat": seqat, "opset": opset, "noshape": noshape}[sys.argv[1]](*sys.argv[2:])
