"""Lifetimes: inputs, sessions and evaluators deleted before the outputs are
read. The tests run as they are, and again (with test_values.py) in a
python3 under AddressSanitizer: the library's test build as a shared library
(BUILD/asan/libonnxop.so.0, `make build/asan/libonnxop.so.0`) with libasan
preloaded, so that a use after free or an overflow in the library fails."""

import gc
import os
import re
import subprocess
import sys
import threading

import numpy as np
from onnx import TensorProto, helper

import models
import onnxop
from conftest import BUILD, ROOT
from onnxop.reference import ReferenceEvaluator

UNDER_ASAN = os.environ.get("ONNXOP_UNDER_ASAN") == "1"


def chain():
    """y = Identity(x); z = Add(x, x); a graph whose output is its input too."""
    t = models.tensor_type(TensorProto.FLOAT, [3])
    return models.model([helper.make_node("Identity", ["x"], ["y"]), helper.make_node("Add", ["x", "x"], ["z"])],
                        [("x", t)], [("y", t), ("z", t), ("x", t)], opset=14)


def test_inputs_and_session_deleted_before_outputs_are_read():
    x = np.arange(3, dtype=np.float32)
    s = onnxop.Session(chain())
    outs = s.run(None, {"x": x})
    x[:] = -1  # the input's memory changes, and goes
    del x, s
    gc.collect()
    y, z, xx = outs
    assert y.tolist() == [0, 1, 2] and z.tolist() == [0, 2, 4] and xx.tolist() == [0, 1, 2]
    y[0] = 7  # writable, and its own
    assert xx[0] == 0


def test_evaluator_deleted_before_outputs_are_read():
    x = np.arange(3, dtype=np.float32)
    ref = ReferenceEvaluator(chain())
    everything = ref.run(None, {"x": x}, intermediate=True)
    some = ref.run(["z"], {"x": x})
    del ref, x
    gc.collect()
    assert everything["z"].tolist() == [0, 2, 4] and some[0].tolist() == [0, 2, 4]


def test_strings_sequences_and_maps_outlive_their_session():
    st = models.tensor_type(TensorProto.STRING)
    s = onnxop.Session(models.passthrough(models.seq_type(models.map_type(TensorProto.STRING, st))))
    (y,) = s.run(None, {"x": [{"k\x00": np.array(["v\x00w"], dtype=object)}]})
    del s
    gc.collect()
    assert y[0]["k\x00"].tolist() == ["v\x00w"]


def test_threads_and_sessions_going():
    t = models.tensor_type(TensorProto.FLOAT, [32, 32])
    m = models.model([helper.make_node("MatMul", ["a", "a"], ["b"])], [("a", t)], [("b", t)], opset=14)
    a = np.random.default_rng(2).standard_normal((32, 32)).astype(np.float32)
    results = []

    def work():
        s = onnxop.Session(m)
        for _ in range(10):
            results.append(s.run(None, {"a": a})[0])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    gc.collect()
    assert len(results) == 80 and all(r.tobytes() == results[0].tobytes() for r in results)


def test_under_asan():
    if UNDER_ASAN:
        return
    lib = os.path.join(BUILD, "asan", "libonnxop.so.0")
    assert os.path.exists(lib), f"{lib} is missing: make {os.path.relpath(lib, ROOT)}"
    asan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, LD_PRELOAD=asan, ONNXOP_LIBRARY=lib, ONNXOP_UNDER_ASAN="1",
               # Python's own allocations live to the end: leaks are not looked for
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        os.path.join(here, "test_lifetime.py"), os.path.join(here, "test_values.py")],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    report = p.stdout[-3000:] + p.stderr[-3000:]
    assert p.returncode == 0 and "AddressSanitizer" not in p.stderr and "runtime error" not in p.stderr, report
    assert re.search(r"python: [1-9][0-9]* passed, 0 failed", p.stdout), report


def test_asan_is_there():
    """Under ASan, the library is the test build, with libasan loaded."""
    if not UNDER_ASAN:
        return
    with open("/proc/self/maps") as f:
        maps = f.read()
    assert "libasan" in maps and os.path.join("asan", "libonnxop.so.0") in maps
