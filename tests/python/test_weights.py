"""Large tensor data in a model (proto/strip.c): raw_data of 64 KiB and more
is read straight into the tensors, never held twice, wherever a TensorProto
sits (initializers, Constant attributes, subgraphs, sparse initializers),
for every element type's layout, from a path and from bytes alike; bytes
the fast path leaves alone load as before."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import models
import onnxop
import onnxop.reference
from conftest import ROOT, cli
from onnxop import values
from onnxop.capi import ffi, lib

F = TensorProto.FLOAT
BIG = 1 << 16  # floats: 256 KiB of raw_data


def both(m, tmp_path, feeds=None):
    """The outputs of m run from a file and from bytes (they must agree)."""
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    a = onnxop.Session(str(path)).run(None, feeds or {})
    b = onnxop.Session(m.SerializeToString()).run(None, feeds or {})
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    return a


def test_initializer(tmp_path):
    w = np.arange(BIG, dtype=np.float32) / 7
    m = models.model([helper.make_node("Add", ["w", "x"], ["y"])], [("x", models.tensor_type(F, [BIG]))],
                     [("y", models.tensor_type(F, [BIG]))], inits=[numpy_helper.from_array(w, "w")])
    x = np.full(BIG, 0.5, np.float32)
    (y,) = both(m, tmp_path, {"x": x})
    assert np.array_equal(y, w + x)


def test_constant_attribute_and_subgraph(tmp_path):
    c = np.linspace(-1, 1, BIG, dtype=np.float32)
    d = np.arange(BIG, dtype=np.float32)
    branch = helper.make_graph([helper.make_node("Identity", ["d"], ["z"])], "then", [],
                               [helper.make_tensor_value_info("z", F, [BIG])],
                               initializer=[numpy_helper.from_array(d, "d")])
    nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(c)),
             helper.make_node("If", ["cond"], ["z"], then_branch=branch, else_branch=branch)]
    m = models.model(nodes, [("cond", models.tensor_type(TensorProto.BOOL, []))],
                     [("c", models.tensor_type(F, [BIG])), ("z", models.tensor_type(F, [BIG]))])
    got_c, got_z = both(m, tmp_path, {"cond": np.array(True)})
    assert np.array_equal(got_c, c) and np.array_equal(got_z, d)


def test_sparse_initializer(tmp_path):
    # values [BIG] at every other position of a [2 * BIG] tensor
    vals = numpy_helper.from_array(np.arange(1, BIG + 1, dtype=np.float32), "s")
    idx = numpy_helper.from_array(np.arange(0, 2 * BIG, 2, dtype=np.int64))
    sp = helper.make_sparse_tensor(vals, idx, [2 * BIG])
    g = helper.make_graph([helper.make_node("Identity", ["s"], ["y"])], "g", [],
                          [helper.make_tensor_value_info("y", F, [2 * BIG])], sparse_initializer=[sp])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", models.OPSET)])
    m.ir_version = models.IR
    (y,) = both(m, tmp_path)
    want = np.zeros(2 * BIG, np.float32)
    want[::2] = np.arange(1, BIG + 1)
    assert np.array_equal(y, want)


def raw_tensor(name, data_type, dims, raw):
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, data_type, raw
    t.dims.extend(dims)
    return t


def test_bool_and_int4_layouts(tmp_path):
    # bool: any nonzero byte is true (onnx.proto); int4: two values a byte,
    # unpacked; both take the tensor's own layout, not the bytes as they are
    n = 1 << 17
    raw_b = bytes([0, 2, 1, 255] * (n // 4))
    raw_4 = bytes([0x7F, 0x8A] * (n // 4))  # 15 -> -1, 7; 10 -> -6, 8 -> -8
    inits = [raw_tensor("b", TensorProto.BOOL, [n], raw_b), raw_tensor("q", 22, [n], raw_4)]
    nodes = [helper.make_node("Identity", ["b"], ["yb"]), helper.make_node("Cast", ["q"], ["yq"], to=F)]
    m = models.model(nodes, [], [("yb", models.tensor_type(TensorProto.BOOL, [n])),
                                 ("yq", models.tensor_type(F, [n]))], inits=inits)
    yb, yq = both(m, tmp_path)
    assert yb.tolist() == [False, True, True, True] * (n // 4)
    assert yq.tolist() == [-1.0, 7.0, -6.0, -8.0] * (n // 4)


def test_marker_field_already_there(tmp_path):
    # a TensorProto that carries the field number proto/strip.c marks with
    # (unknown to onnx): the fast path leaves the model alone, and it loads
    # as before, the unknown field ignored
    w = numpy_helper.from_array(np.arange(BIG, dtype=np.float32), "w")
    field = (536870911 << 3) | 2
    key = bytearray()
    while field > 0x7F:
        key.append((field & 0x7F) | 0x80)
        field >>= 7
    key.append(field)
    w.ParseFromString(w.SerializeToString() + bytes(key) + b"\x01\x00")
    m = models.model([helper.make_node("Identity", ["w"], ["y"])], [], [("y", models.tensor_type(F, [BIG]))],
                     inits=[w])
    (y,) = both(m, tmp_path)
    assert np.array_equal(y, np.arange(BIG, dtype=np.float32))


def test_truncated_in_the_data(tmp_path):
    w = numpy_helper.from_array(np.ones(BIG, np.float32), "w")
    m = models.model([helper.make_node("Identity", ["w"], ["y"])], [], [("y", models.tensor_type(F, [BIG]))],
                     inits=[w])
    data = m.SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[: len(data) // 2])
    rc, out, err = cli("info", str(path))
    assert rc == 1 and "cut.onnx: not a valid ONNX model (truncated or corrupt)" in err
    with pytest.raises(onnxop.InputError, match=r"not a valid ONNX model \(truncated or corrupt\)"):
        onnxop.Session(data[: len(data) // 2])


def test_bytes_held_once(tmp_path):
    # 40 MiB of weights from bytes: loading them adds about 40 MiB to the
    # process's peak, not 80 (protobuf-c's copy and then the tensors')
    mib = 1 << 20
    inits = [raw_tensor(f"w{k}", F, [2 * mib], bytes([k]) * (8 * mib)) for k in range(5)]
    m = models.model([helper.make_node("Identity", ["w4"], ["y"])], [], [("y", models.tensor_type(F, [2 * mib]))],
                     inits=inits)
    path = tmp_path / "w.onnx"
    path.write_bytes(m.SerializeToString())
    # VmHWM: this process's peak (getrusage's ru_maxrss starts from pytest's)
    script = textwrap.dedent("""
        import os, sys
        import onnxop
        def peak_kib():
            with open("/proc/self/status") as f:
                return int(next(l for l in f if l.startswith("VmHWM:")).split()[1])
        data = bytearray(os.path.getsize(sys.argv[1]))  # one buffer, filled in place
        with open(sys.argv[1], "rb", buffering=0) as f:
            assert f.readinto(data) == len(data)
        before = peak_kib()
        s = onnxop.Session(data)
        print((peak_kib() - before) // 1024)
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    grew = int(p.stdout)
    assert 30 <= grew <= 56, f"loading 40 MiB of weights from bytes raised the peak by {grew} MiB"


def packed_chain(n, size):
    """x (1, size) through n MatMuls by constant (size, size) weights w0..w{n-1}."""
    rng = np.random.RandomState(5)
    ws = [rng.uniform(-1, 1, (size, size)).astype(np.float32) / size for _ in range(n)]
    nodes = [helper.make_node("MatMul", ["x" if k == 0 else f"h{k}", f"w{k}"], [f"h{k + 1}" if k < n - 1 else "y"])
             for k in range(n)]
    m = models.model(nodes, [("x", models.tensor_type(F, [1, size]))], [("y", models.tensor_type(F, [1, size]))],
                     inits=[numpy_helper.from_array(w, f"w{k}") for k, w in enumerate(ws)])
    return m, ws


def test_packed_weights_given_back(tmp_path):
    # A MatMul's constant weights are packed at load. A Session gives the
    # originals back by default (as `onnxop run` does; keep_weights=True
    # keeps them): same outputs. The library then refuses to return such an
    # initializer by name (onnxop_run_outputs), saying why, while a node's
    # output and a graph input still come back; the reference evaluator,
    # whose intermediate results include the initializers, keeps them.
    m, ws = packed_chain(3, 256)
    x = np.linspace(-1, 1, 256, dtype=np.float32).reshape(1, 256)
    for model in (m, m.SerializeToString()):
        given_back, kept = onnxop.Session(model), onnxop.Session(model, keep_weights=True)
        (y1,), (y2,) = given_back.run(None, {"x": x}), kept.run(None, {"x": x})
        assert np.array_equal(y1, y2)
        with pytest.raises(onnxop.UsageError, match="initializer 'w1' is no longer held"):
            given_back._run({"x": x}, [ffi.new("char[]", b"w1")])
        outs, n = given_back._run({"x": x}, [ffi.new("char[]", b"h1"), ffi.new("char[]", b"x")])
        try:
            h1, x1 = (values.from_value(outs[i]) for i in range(n))
        finally:
            lib.onnxop_values_free(outs, n)
        assert np.array_equal(x1, x) and np.allclose(h1, x @ ws[0], rtol=1e-5, atol=1e-6)
    r = onnxop.reference.ReferenceEvaluator(m).run(None, {"x": x}, intermediate=True)
    assert all(np.array_equal(r[f"w{k}"], w) for k, w in enumerate(ws))
    with pytest.raises(onnxop.UsageError, match="keep_weights"):
        onnxop.Session(m, keep_weights="yes")
    err = ffi.new("onnxop_error **")
    out = ffi.new("onnxop_model **")
    data = m.SerializeToString()
    assert lib.onnxop_model_load_buffer_with(data, len(data), 2, out, err) == lib.ONNXOP_ERR_USAGE
    assert "unknown load flags 0x2" in ffi.string(lib.onnxop_error_message(err[0])).decode()
    lib.onnxop_error_free(err[0])


def test_packed_weights_held_once(tmp_path):
    # 8 MatMuls by 4 MiB weights (32 MiB): once the Session is made, the
    # process holds the packed weights only, about 32 MiB more than before,
    # where keep_weights=True holds 64; and its peak while loading stays
    # under 1.25 times the weights (each original goes once packed)
    m, _ = packed_chain(8, 1024)
    path = tmp_path / "w.onnx"
    path.write_bytes(m.SerializeToString())
    script = textwrap.dedent("""
        import sys
        import onnxop
        def kib(key):
            with open("/proc/self/status") as f:
                return int(next(l for l in f if l.startswith(key + ":")).split()[1])
        rss, peak = kib("VmRSS"), kib("VmHWM")
        s = onnxop.Session(sys.argv[1], keep_weights=sys.argv[2] == "keep")
        print((kib("VmRSS") - rss) // 1024, (kib("VmHWM") - max(peak, rss)) // 1024)
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    grew = {}
    for how in ("keep", "give"):
        p = subprocess.run([sys.executable, "-c", script, str(path), how], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        grew[how] = [int(v) for v in p.stdout.split()]
    assert 56 <= grew["keep"][0] <= 72, f"kept: the process grew by {grew['keep'][0]} MiB"
    assert 28 <= grew["give"][0] <= 40, f"given back: the process grew by {grew['give'][0]} MiB"
    assert grew["give"][1] <= 40, f"given back: the peak grew by {grew['give'][1]} MiB"
