#!/usr/bin/python3
"""tests/cli/fuse_gen.py DIR: models whose Convs have elementwise followers
(core/fuse.h), and their inputs, for tests/cli/fuse.sh. Seeded; nothing kept.

  fuse.onnx   x (1, 4, 9, 7), r (1, 8, 9, 7):
              Conv 3x3 (packed GEMM) -> BatchNormalization -> Relu -> Add(r)
              -> HardSwish as Add 3 / Clip 0 6 / Div 6 / Mul (output y);
              Conv depthwise 3x3 (direct) -> LeakyRelu -> Max(0.1) -> Sub per
              channel (output d); Conv 9x7 to 1x1 (gemv) -> Sigmoid (output s);
              Conv 1x1 -> Relu, whose Relu value is also an output (u, v):
              not fused past it; MatMul of y (1, 8, 9, 7) by a constant
              (7, 40) -> Add(bias of 40) -> Relu (output mm)
  x.pb, r.pb  inputs with a few NaN, infinities and negative zeros
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(30)


def t(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)


C, M = 4, 8
inits = [
    t("W", rng.standard_normal((M, C, 3, 3)) * 0.3), t("B", rng.standard_normal(M)),
    t("bn_s", rng.uniform(0.5, 2, M)), t("bn_b", rng.standard_normal(M)),
    t("bn_m", rng.standard_normal(M) * 0.1), t("bn_v", rng.uniform(0.5, 2, M)),
    t("three", [3.0]), t("zero", 0.0), t("six", 6.0),
    t("Wd", rng.standard_normal((M, 1, 3, 3))), t("tenth", [0.1]),
    t("pc", rng.standard_normal((M, 1, 1))),
    t("Wg", rng.standard_normal((M, M, 9, 7)) * 0.05), t("Bg", rng.standard_normal(M)),
    t("W1", rng.standard_normal((M, M, 1, 1))),
    t("Wm", rng.standard_normal((7, 40))), t("bm", rng.standard_normal(40)),
]
nodes = [
    helper.make_node("Conv", ["x", "W", "B"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c", "bn_s", "bn_b", "bn_m", "bn_v"], ["bn"], name="bn", epsilon=1e-3),
    helper.make_node("Relu", ["bn"], ["re"], name="relu"),
    helper.make_node("Add", ["re", "r"], ["res"], name="residual"),
    helper.make_node("Add", ["res", "three"], ["h1"], name="hs_add"),
    helper.make_node("Clip", ["h1", "zero", "six"], ["h2"], name="hs_clip"),
    helper.make_node("Div", ["h2", "six"], ["h3"], name="hs_div"),
    helper.make_node("Mul", ["res", "h3"], ["y"], name="hs_mul"),
    helper.make_node("Conv", ["y", "Wd"], ["dc"], name="dw", group=M, pads=[1, 1, 1, 1]),
    helper.make_node("LeakyRelu", ["dc"], ["lr"], name="leaky", alpha=0.2),
    helper.make_node("Max", ["lr", "tenth"], ["mx"], name="max"),
    helper.make_node("Sub", ["pc", "mx"], ["d"], name="sub"),
    helper.make_node("Conv", ["y", "Wg", "Bg"], ["g"], name="gv"),
    helper.make_node("Sigmoid", ["g"], ["s"], name="sig"),
    helper.make_node("Conv", ["d", "W1"], ["u0"], name="pw"),
    helper.make_node("Relu", ["u0"], ["u"], name="relu_out"),
    helper.make_node("Neg", ["u"], ["v"], name="neg"),
    helper.make_node("MatMul", ["y", "Wm"], ["mm0"], name="mm"),
    helper.make_node("Add", ["bm", "mm0"], ["mmb"], name="mm_bias"),
    helper.make_node("Relu", ["mmb"], ["mm_out"], name="mm_relu"),
]
graph = helper.make_graph(
    nodes, "fuse",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, 9, 7]),
     helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, M, 9, 7])],
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
     for n, s in (("y", [1, M, 9, 7]), ("d", [1, M, 9, 7]), ("s", [1, M, 1, 1]), ("u", [1, M, 9, 7]),
                  ("v", [1, M, 9, 7]), ("mm_out", [1, M, 9, 40]))],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "fuse.onnx"))

x = rng.standard_normal((1, C, 9, 7)).astype(np.float32)
r = (rng.standard_normal((1, M, 9, 7)) * 2).astype(np.float32)
x[0, 1, 4, 3] = np.nan
r[0, 2, 0, 0] = np.inf
r[0, 3, 5, 5] = -np.inf
r[0, 5, 1, 2] = np.nan
r[0, 6, 2, 2] = -0.0
for name, a in (("x", x), ("r", r)):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())
