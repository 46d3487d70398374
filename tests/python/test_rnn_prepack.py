"""RNN, GRU and LSTM with constant weights: the load hook packs W and R once
(ops/rnn.c), and a run with them gives the same bytes as the same node with
W, R and B given as inputs (packed per run), over the cells, directions,
batch sizes of one, a few and more than a row sliver (8 rows), hidden sizes
with partial column slivers and past one K block of 256, sequence_lens and
peepholes."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxop

F32 = TensorProto.FLOAT


def rnn_model(op, S, N, I, H, direction, const, extra=None, lens=None, peep=False):
    """One node on X (S, N, I); W, R, B initializers when const, else graph inputs."""
    rng = np.random.default_rng(4321 + S * 7 + N * 11 + H)
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    D = 2 if direction == "bidirectional" else 1
    k = 1 / np.sqrt(H)
    w = rng.uniform(-k, k, (D, G * H, I)).astype(np.float32)
    r = rng.uniform(-k, k, (D, G * H, H)).astype(np.float32)
    b = rng.uniform(-k, k, (D, 2 * G * H)).astype(np.float32)
    vals = {"W": w, "R": r, "B": b}
    if lens is not None:
        vals["L"] = np.array(lens, np.int32)
    if peep:
        vals["P"] = rng.uniform(-k, k, (D, 3 * H)).astype(np.float32)
    inputs = ["X", "W", "R", "B", "L" if lens is not None else ""]
    if peep:
        inputs += ["", "", "P"]
    while inputs[-1] == "":
        inputs.pop()
    attrs = dict(hidden_size=H, direction=direction, **(extra or {}))
    outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, inputs, outs, **attrs)
    gin = [helper.make_tensor_value_info("X", F32, [S, N, I])]
    inits = []
    for n in ("W", "R", "B", "P"):
        if n not in vals or n not in inputs:
            continue
        if const:
            inits.append(numpy_helper.from_array(vals[n], n))
        else:
            gin.append(helper.make_tensor_value_info(n, F32, list(vals[n].shape)))
    if "L" in inputs:
        inits.append(numpy_helper.from_array(vals["L"], "L"))
    gout = [helper.make_tensor_value_info(o, F32, None) for o in outs]
    g = helper.make_graph([node], op.lower(), gin, gout, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    x = rng.uniform(-1, 1, (S, N, I)).astype(np.float32)
    feeds = {"X": x}
    if not const:
        feeds.update({n: vals[n] for n in ("W", "R", "B", "P") if n in inputs})
    return m.SerializeToString(), feeds, vals


CASES = [
    ("LSTM", 5, 2, 7, 37, "bidirectional", None, None, False),
    ("LSTM", 4, 1, 9, 64, "forward", None, None, False),
    ("LSTM", 3, 9, 5, 21, "reverse", None, [3, 1, 2, 3, 0, 3, 2, 1, 3], True),
    ("LSTM", 3, 3, 6, 300, "bidirectional", None, None, False),
    ("GRU", 4, 3, 5, 29, "bidirectional", None, None, False),
    ("GRU", 4, 2, 5, 29, "forward", {"linear_before_reset": 1}, None, False),
    ("GRU", 3, 1, 4, 260, "forward", None, None, False),
    ("RNN", 5, 6, 3, 50, "bidirectional", None, [5, 2, 4, 1, 5, 3], False),
    ("RNN", 4, 8, 3, 17, "forward", None, None, False),
]


@pytest.mark.parametrize("op,S,N,I,H,direction,extra,lens,peep", CASES)
def test_constant_weights_give_the_bytes_of_weights_as_inputs(op, S, N, I, H, direction, extra, lens, peep):
    mc, fc, _ = rnn_model(op, S, N, I, H, direction, True, extra, lens, peep)
    mi, fi, _ = rnn_model(op, S, N, I, H, direction, False, extra, lens, peep)
    for threads in (1, 2):
        got_c = onnxop.Session(mc, threads=threads).run(None, fc)
        got_i = onnxop.Session(mi, threads=threads).run(None, fi)
        assert len(got_c) == len(got_i) == (3 if op == "LSTM" else 2)
        for a, b in zip(got_c, got_i):
            assert a.shape == b.shape and a.dtype == b.dtype == np.float32
            assert a.tobytes() == b.tobytes(), f"{op} {direction} N={N} H={H} threads={threads}"
            assert np.isfinite(a).all() and np.abs(a).max() > 0

