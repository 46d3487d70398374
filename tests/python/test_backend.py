"""onnx 1.12's BackendTest through onnxop.backend, over Debian's
libonnx-testdata (node, simple, pytorch-operator, pytorch-converted): the
cases that pass are those `onnxop test` passes on the same folders.

What the test does to onnx 1.12's runner, and why:
- Comparing: the runner's assert_similar_outputs tests `dtype == np.object`,
  which numpy 1.24 removed (an AttributeError for every case), and compares
  the elements of a sequence output as if each were a list of outputs (a
  TypeError for 0-d elements: test_loop16_seq_none), and cannot compare an
  absent optional (None); a subclass's compares the same way (dtypes equal,
  objects exactly, numbers with assert_allclose and the case's rtol and
  atol), element by element.
- The data: the runner reads onnx's own package data (Debian's python3-onnx
  ships none); it reads DEBIAN_DATA instead, without 'real' (its cases
  download models from the network).
- Map inputs: the runner leaves out an input it cannot load ("Loading proto
  of that specific type (Map/Sparse Tensor) is currently not supported") and
  runs the model on the others; a subclass loads MapProto inputs as dicts
  (numpy_helper.to_dict). Sparse tensors stay unsupported (no case has one).
Random operators without a seed draw from RandomState(0) (ONNXOP_SEED=0),
as in `onnxop test`. Nothing is skipped beyond 'real'; the cases `onnxop test` fails (its
expected-failure lists, tests/xfail/debian-*.txt, say why) are expected to
fail here, and fail the run if they pass.
"""

import os
import unittest

import numpy as np
import onnx
import onnx.backend.test
import pytest
from onnx import numpy_helper
from onnx.backend.test import loader
from onnx.backend.test import runner as onnx_runner

import onnxop.backend
import suite
from conftest import DEBIAN

KINDS = ("node", "simple", "pytorch-operator", "pytorch-converted")
os.environ.setdefault("ONNXOP_SEED", "0")  # as onnxop test sets it


def _load_model_tests(data_dir=DEBIAN, kind=None):
    return loader.load_model_tests(data_dir, kind) if kind in KINDS else []


onnx_runner.load_model_tests = _load_model_tests  # the name the runner calls


class Runner(onnx.backend.test.BackendTest):
    """onnx 1.12's runner, loading map inputs instead of leaving them out,
    and comparing without np.object, sequence by element."""

    @classmethod
    def assert_similar_outputs(cls, ref_outputs, outputs, rtol, atol):
        np.testing.assert_equal(len(outputs), len(ref_outputs))
        for ref, out in zip(ref_outputs, outputs):
            cls.assert_similar_value(ref, out, rtol, atol)

    @classmethod
    def assert_similar_value(cls, ref, out, rtol, atol):
        if isinstance(ref, (list, tuple)) or isinstance(out, (list, tuple)):
            assert isinstance(out, (list, tuple)) and isinstance(ref, (list, tuple)) and len(out) == len(ref)
            for r, o in zip(ref, out):
                cls.assert_similar_value(r, o, rtol, atol)
        elif ref is None or out is None:
            assert ref is None and out is None
        elif isinstance(ref, dict):
            assert isinstance(out, dict) and list(out) == list(ref)
            for k in ref:
                cls.assert_similar_value(ref[k], out[k], rtol, atol)
        else:
            np.testing.assert_equal(out.dtype, ref.dtype)
            if ref.dtype == object:
                np.testing.assert_array_equal(out, ref)
            else:
                np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)

    def _load_proto(self, proto_filename, target_list, model_type_proto):
        if model_type_proto.HasField("map_type"):
            m = onnx.MapProto()
            with open(proto_filename, "rb") as f:
                m.ParseFromString(f.read())
            target_list.append(numpy_helper.to_dict(m))
            return
        super()._load_proto(proto_filename, target_list, model_type_proto)


def cli_failing():
    """The cases `onnxop test` does not pass on the four folders."""
    bad = set()
    for kind in KINDS:
        bad |= {name for name, status in suite.cli_statuses(os.path.join(DEBIAN, kind)).items() if status != "pass"}
    return bad


if not os.path.isdir(DEBIAN):
    pytest.skip(f"Debian's ONNX test data {DEBIAN} is missing (apt-get install libonnx-testdata)",
                allow_module_level=True)

FAILING = cli_failing()
backend_test = Runner(onnxop.backend, __name__)
for _name in sorted(FAILING):
    backend_test.xfail(f"^{_name}_cpu$")
# the cases, one test each: pytest collects them from here
globals().update(backend_test.test_cases)


def test_passing_set_equals_onnxop_tests():
    """All the cases in one unittest run: the set that passes, exactly."""
    cases = Runner(onnxop.backend, __name__ + "_all")
    tests = unittest.TestSuite()
    for case in cases.test_cases.values():  # not its test_suite: that sorts classes, a TypeError
        tests.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    ran = {t.id().split(".")[-1] for t in tests}  # before the run, which lets the tests go
    result = unittest.TestResult()
    tests.run(result)
    ran = {n[:-len("_cpu")] for n in ran if n.endswith("_cpu")}
    not_passed = {t.id().split(".")[-1][:-len("_cpu")] for t, _ in result.failures + result.errors + result.skipped
                  if t.id().endswith("_cpu")}
    passed = ran - not_passed
    assert len(ran) >= 1000
    all_cases = set()
    for kind in KINDS:
        all_cases |= {os.path.basename(c) for c in suite.cases(os.path.join(DEBIAN, kind))}
    assert ran == all_cases
    assert sorted(passed & FAILING) == [] and sorted((all_cases - FAILING) - passed) == []


def test_the_backend_functions():
    """prepare, run_model, run_node, supports_device and is_compatible, by hand."""
    t = onnx.helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, [2])
    node = onnx.helper.make_node("Add", ["a", "b"], ["c"])
    g = onnx.helper.make_graph([node], "g", [onnx.helper.make_value_info("a", t), onnx.helper.make_value_info("b", t)],
                               [onnx.helper.make_value_info("c", t)])
    model = onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 14)])
    a, b = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    rep = onnxop.backend.prepare(model, "CPU")
    out = rep.run([a, b])
    assert out[0].tolist() == [4, 6] and out["c"].tolist() == [4, 6] and out.c.tolist() == [4, 6]
    assert rep.run({"b": b, "a": a})[0].tolist() == [4, 6]
    assert onnxop.backend.run_model(model, [a, b])[0].tolist() == [4, 6]
    assert onnxop.backend.run_node(node, [a, b])[0].tolist() == [4, 6]
    assert onnxop.backend.run_node(node, [a, b], opset_version=7)[0].tolist() == [4, 6]
    assert onnxop.backend.supports_device("CPU") and not onnxop.backend.supports_device("CUDA")
    assert onnxop.backend.is_compatible(model)
    model.graph.node[0].op_type = "Abz"
    assert not onnxop.backend.is_compatible(model)
    with pytest.raises(onnxop.UsageError, match="onnxop runs on the CPU, not 'CUDA'"):
        onnxop.backend.prepare(model, "CUDA")
    # bfloat16 as onnx 1.12 holds it: float32 values in and out (uint16 bits in too)
    bt = onnx.helper.make_tensor_type_proto(onnx.TensorProto.BFLOAT16, [3])
    ident = onnx.helper.make_model(
        onnx.helper.make_graph([onnx.helper.make_node("Identity", ["x"], ["y"])], "g",
                               [onnx.helper.make_value_info("x", bt)], [onnx.helper.make_value_info("y", bt)]),
        opset_imports=[onnx.helper.make_opsetid("", 14)])
    x = np.array([1.5, -2, 1 + 2**-10], np.float32)  # the last rounds to 1 (ties to even)
    (y,) = onnxop.backend.run_model(ident, [x])
    assert y.dtype == np.float32 and y.tolist() == [1.5, -2, 1]
    (y,) = onnxop.backend.run_model(ident, [np.array([0x3FC0, 0xC000, 0x7FC0], np.uint16)])
    assert y.tolist()[:2] == [1.5, -2] and np.isnan(y[2])
