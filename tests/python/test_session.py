"""onnxop.Session: loading, introspection, run's arguments, the options
(threads, max_memory, timeout, seed, the trace), each error class with the command's
message, runs in 8 threads, Ctrl-C."""

import io
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from onnx import TensorProto, helper

import models
import onnxop
from conftest import ROOT, cli


def add_model(shape=("N", 3)):
    t = models.tensor_type(TensorProto.FLOAT, shape)
    return models.model([helper.make_node("Add", ["a", "b"], ["c"], name="add0")], [("a", t), ("b", t)],
                        [("c", t)], opset=14)


def test_model_from_path_bytes_and_proto(tmp_path):
    m = add_model()
    path = tmp_path / "add.onnx"
    path.write_bytes(m.SerializeToString())
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for source in [str(path), path, m.SerializeToString(), m, bytearray(m.SerializeToString())]:
        (c,) = onnxop.Session(source).run(None, {"a": a, "b": a})
        assert np.array_equal(c, a + a)
    with pytest.raises(onnxop.UsageError, match="a model is a path, bytes or an onnx.ModelProto, not int"):
        onnxop.Session(3)
    with pytest.raises(onnxop.InputError, match=r"nope.onnx: cannot open model"):
        onnxop.Session(str(tmp_path / "nope.onnx"))


def test_inputs_and_outputs():
    s = onnxop.Session(add_model(("N", None, 3)))
    ins, outs = s.get_inputs(), s.get_outputs()
    assert [(a.name, a.type, a.shape) for a in ins] == [("a", "tensor(float)", ["N", None, 3]),
                                                        ("b", "tensor(float)", ["N", None, 3])]
    assert [(a.name, a.type, a.shape) for a in outs] == [("c", "tensor(float)", ["N", None, 3])]
    seq = onnxop.Session(models.passthrough(models.seq_type(models.tensor_type(TensorProto.INT64))))
    assert seq.get_inputs()[0].type == "seq(tensor(int64))" and seq.get_inputs()[0].shape is None
    assert repr(ins[0]) == "NodeArg(name='a', type='tensor(float)', shape=['N', None, 3])"


def test_run_arguments():
    s = onnxop.Session(add_model())
    a = np.ones((1, 3), np.float32)
    assert len(s.run(None, {"a": a, "b": a})) == 1
    assert len(s.run([], {"a": a, "b": a})) == 1
    (c,) = s.run(["c"], {"b": a, "a": a})
    assert c.tolist() == [[2, 2, 2]]
    with pytest.raises(onnxop.UsageError, match=r"the model has no output named 'd' \(its outputs: 'c'\)"):
        s.run(["d"], {"a": a, "b": a})
    with pytest.raises(onnxop.UsageError, match=r"the model has no input named 'z' \(its inputs: 'a', 'b'\)"):
        s.run(None, {"a": a, "z": a})
    with pytest.raises(onnxop.InputError, match="input 'b' was not given"):
        s.run(None, {"a": a})
    with pytest.raises(onnxop.UsageError, match="run_options is not supported"):
        s.run(None, {"a": a, "b": a}, object())


def test_options_are_checked():
    for kw, msg in [({"threads": -1}, "threads must be"), ({"threads": 1.5}, "threads must be"),
                    ({"max_memory": 0}, "max_memory must be"), ({"timeout": -1}, "timeout must be"),
                    ({"timeout": "1"}, "timeout must be"), ({"seed": 2**32}, "seed must be"),
                    ({"trace_summary": 1}, "trace_summary must be"), ({"keep_weights": None}, "keep_weights must be")]:
        with pytest.raises(onnxop.UsageError, match=msg):
            onnxop.Session(add_model(), **kw)


def test_trace_and_its_summary():
    # each node as `onnxop run --trace` prints it, or (trace_summary) the
    # nodes per op and the first output holding NaN or Inf, after the run
    t = models.tensor_type(TensorProto.FLOAT, [2])
    m = models.model([helper.make_node("Add", ["x", "x"], ["s"], name="add"),
                      helper.make_node("Mul", ["s", "x"], ["y"], name="mul")], [("x", t)], [("y", t)], opset=14)
    x = np.array([1, np.inf], np.float32)
    nodes, summary = io.StringIO(), io.StringIO()
    onnxop.Session(m, trace=nodes).run(None, {"x": x})
    onnxop.Session(m, trace=summary, trace_summary=True).run(None, {"x": x})
    assert nodes.getvalue().startswith("node 'add' Add-14\n  in  x: tensor(float) (2,) min 1 max inf [1, inf]\n")
    assert "node 'mul' Mul-14\n" in nodes.getvalue() and "summary" not in nodes.getvalue()
    assert summary.getvalue() == ("summary: 2 nodes run, by op:\n        1  Add-14\n        1  Mul-14\n"
                                  "first NaN or Inf: node 'add' Add-14, output 0 's': 0 NaN, 1 Inf\n")


def test_seed_and_threads():
    t = models.tensor_type(TensorProto.FLOAT, [64])
    m = models.model([helper.make_node("RandomUniformLike", ["x"], ["y"])], [("x", t)], [("y", t)], opset=22)
    x = np.zeros(64, np.float32)
    a = onnxop.Session(m, seed=5).run(None, {"x": x})[0]
    b = onnxop.Session(m, seed=5, threads=2).run(None, {"x": x})[0]
    c = onnxop.Session(m, seed=6).run(None, {"x": x})[0]
    assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()
    # numpy's RandomState(5), as the ONNX reference draws
    assert np.array_equal(a, np.random.RandomState(5).uniform(0, 1, 64).astype(np.float32))


def cli_message(tmp_path, model, *args):
    """What `onnxop run` says on standard error, without "onnxop: FILE: " in front."""
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    rc, _, err = cli("run", str(path), *args)
    return rc, err.strip()


def test_errors_carry_the_commands_messages(tmp_path):
    # input: a value of the wrong type (exit status 1); the command says so
    # of the file it read ("the file holds ..."), the library of the value
    np.save(tmp_path / "f.npy", np.ones((1, 3), np.float32))
    with pytest.raises(onnxop.InputError) as e:
        onnxop.Session(add_model()).run(None, {"a": np.ones((1, 3), np.int64), "b": np.ones((1, 3), np.float32)})
    assert e.value.exit_status == 1 and isinstance(e.value, ValueError)
    assert str(e.value) == "input 'a' is tensor(int64); the model declares tensor(float)"
    # unsupported: an operator this build lacks (exit status 3), refused at load
    bad = add_model()
    bad.graph.node[0].op_type = "Abz"
    with pytest.raises(onnxop.UnsupportedError) as e:
        onnxop.Session(bad)
    rc, msg = cli_message(tmp_path, bad, "--in", str(tmp_path / "f.npy"), "--in", str(tmp_path / "f.npy"))
    assert rc == 3 == e.value.exit_status and isinstance(e.value, NotImplementedError)
    assert str(e.value).startswith("unsupported operator Abz (ai.onnx, opset 14)") and msg.endswith(str(e.value))
    # usage (exit status 2): an input the model does not have
    with pytest.raises(onnxop.UsageError) as e:
        onnxop.Session(add_model()).run(None, {"q": np.ones(1)})
    assert e.value.exit_status == 2 and isinstance(e.value, TypeError)
    # an evaluation error names the node, as the command does
    t = models.tensor_type(TensorProto.FLOAT)
    m = models.model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r0")],
                     [("x", t), ("s", models.tensor_type(TensorProto.INT64))], [("y", t)], opset=14)
    np.save(tmp_path / "x.npy", np.ones(6, np.float32))
    np.save(tmp_path / "s.npy", np.array([4, 2]))
    with pytest.raises(onnxop.InputError) as e:
        onnxop.Session(m).run(None, {"x": np.ones(6, np.float32), "s": np.array([4, 2])})
    rc, msg = cli_message(tmp_path, m, "--in", str(tmp_path / "x.npy"), "--in", str(tmp_path / "s.npy"))
    assert rc == 1 and str(e.value).startswith("node 'r0' Reshape-14: ") and msg.endswith(str(e.value))


def test_max_memory(tmp_path):
    # three outputs of 4 MB each: the third passes a limit of 10 MB
    t = models.tensor_type(TensorProto.FLOAT, [1000, 1000])
    m = models.model([helper.make_node("Add", ["x", "x"], ["a"]), helper.make_node("Add", ["a", "x"], ["b"]),
                      helper.make_node("Mul", ["a", "b"], ["c"], name="mul")],
                     [("x", t)], [("a", t), ("b", t), ("c", t)], opset=14)
    x = np.ones((1000, 1000), np.float32)
    with pytest.raises(onnxop.OutOfMemoryError) as e:
        onnxop.Session(m, max_memory=10_000_000).run(None, {"x": x})
    assert isinstance(e.value, MemoryError) and e.value.exit_status == 1
    assert re.fullmatch(r"node 'mul' Mul-14: the memory limit \(10000000 bytes; see max_memory\) is reached: "
                        r"\d+ bytes are in use, and a float32 tensor of shape \(1000, 1000\) needs 4000000 more",
                        str(e.value)), str(e.value)
    # the limit is the run's: 16 MB is room enough
    a, b, c = onnxop.Session(m, max_memory=16_000_000).run(None, {"x": x})
    assert c[0, 0] == 6


def test_timeout():
    s = onnxop.Session(models.loop(10**8), timeout=0.2)
    t0 = time.monotonic()
    with pytest.raises(onnxop.TimeoutError) as e:
        s.run(None, {"x": np.zeros(4, np.float32)})
    assert time.monotonic() - t0 < 5
    assert isinstance(e.value, onnxop.InputError) and e.value.exit_status == 1
    assert "the time limit of 0.2 s (timeout) is reached" in str(e.value)
    (y,) = onnxop.Session(models.loop(100), timeout=60).run(None, {"x": np.zeros(4, np.float32)})
    assert y.tolist() == [100] * 4


def test_threads_give_the_bytes_of_sequential_runs():
    rng = np.random.default_rng(1)
    t = models.tensor_type(TensorProto.FLOAT, [64, 64])
    m = models.model([helper.make_node("MatMul", ["a", "b"], ["c"]), helper.make_node("Softmax", ["c"], ["d"])],
                     [("a", t), ("b", t)], [("d", t)], opset=14)
    s = onnxop.Session(m)
    feeds = [{"a": rng.standard_normal((64, 64)).astype(np.float32),
              "b": rng.standard_normal((64, 64)).astype(np.float32)} for _ in range(8)]
    want = [s.run(None, f)[0].tobytes() for f in feeds]
    got = [[] for _ in range(8)]

    def work(k):
        for r in range(20):
            got[k].append(s.run(None, feeds[(k + r) % 8])[0].tobytes())

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for k in range(8):
        assert got[k] == [want[(k + r) % 8] for r in range(20)]


CTRL_C = """
import os, signal, sys, threading, time
sys.path.insert(0, {python!r})
sys.path.insert(0, {tests!r})
import numpy as np
import models, onnxop
s = onnxop.Session(models.loop(10**9), timeout=20)
print("ready", flush=True)
t0 = time.monotonic()
try:
    s.run(None, {{"x": np.zeros(4, np.float32)}})
    print("finished")
except KeyboardInterrupt:
    print("KeyboardInterrupt after %.1f s" % (time.monotonic() - t0))
# the session runs again afterwards, not cancelled at once: to its time limit
s = onnxop.Session(models.loop(10**9), timeout=0.3)
try:
    s.run(None, {{"x": np.zeros(4, np.float32)}})
except onnxop.TimeoutError:
    print("again", flush=True)
"""


def test_ctrl_c_stops_a_long_run():
    script = CTRL_C.format(python=os.path.join(ROOT, "python"), tests=os.path.dirname(__file__))
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert out.startswith("KeyboardInterrupt after "), out
    assert float(out.split()[2]) < 3 and out.rstrip().endswith("again")


def test_op_supported_and_version():
    assert onnxop.op_supported("Abs", 13) == (True, "")
    ok, why = onnxop.op_supported("Abz", 13)
    assert not ok and "does not implement" in why
    assert onnxop.library_version() == onnxop.__version__
