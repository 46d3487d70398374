#!/usr/bin/python3
"""bench/gen.py: seeded inputs and the one multi-node model for make bench.

  gen.py tensor FILE.pb SEED D0,D1,...  float32 uniform in [-1, 1), numpy's
                                        PCG64 seeded with SEED (deterministic)
  gen.py seqat MODEL.onnx N             SequenceConstruct(x0..x{N-1}) -> SequenceAt(1)

Uses python3-onnx and numpy (Debian: python3-onnx, a build dependency of
onnxop). The single-node models come from 'onnxop make'.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tensor(path, seed, shape):
    dims = [int(d) for d in shape.split(",")]
    rng = np.random.default_rng(int(seed))
    a = (rng.random(dims, dtype=np.float32) * 2 - 1).astype(np.float32)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(a).SerializeToString())


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


if __name__ == "__main__":
    {"tensor": tensor, "seqat": seqat}[sys.argv[1]](*sys.argv[2:])
