"""onnxop.expect() and onnxop.compare(): cases in the ONNX test layout, as
`onnxop make --case` writes them, that `onnxop test` passes and onnx's
checker accepts; outputs given checked against onnxop's."""

import json
import os

import numpy as np
import onnx
import onnx.numpy_helper
import pytest
from onnx import TensorProto, helper

import models
import onnxop
from conftest import cli


def test_a_node_case_passes_onnxop_test_and_the_checker(tmp_path):
    suite = str(tmp_path / "s")
    x = np.array([[-1.5, 2], [0, -3]], np.float32)
    got = onnxop.expect(helper.make_node("Relu", ["x"], ["y"]), inputs=[x], name="test_relu", suite=suite, opset=14)
    assert got[0].tolist() == [[0, 2], [0, 0]]
    case = os.path.join(suite, "test_relu")
    assert sorted(os.listdir(case)) == ["data.json", "model.onnx", "test_data_set_0"]
    assert sorted(os.listdir(os.path.join(case, "test_data_set_0"))) == ["input_0.pb", "output_0.pb"]
    rc, out, err = cli("test", suite)
    assert rc == 0 and out.strip().endswith("1 passed, 0 failed"), out + err
    m = onnx.load(os.path.join(case, "model.onnx"))
    onnx.checker.check_model(m, full_check=True)
    assert [o.version for o in m.opset_import] == [14] and m.ir_version == 7  # as onnx's VERSION_TABLE
    # the input and output as onnx's numpy_helper reads them
    t = onnx.TensorProto()
    with open(os.path.join(case, "test_data_set_0", "input_0.pb"), "rb") as f:
        t.ParseFromString(f.read())
    assert t.name == "x" and onnx.numpy_helper.to_array(t).tolist() == x.tolist()
    prov = json.load(open(os.path.join(case, "data.json")))["provenance"]
    assert prov["op"] == "Relu" and prov["opset"] == 14 and prov["command"][:3] == ["onnxop", "make", "Relu"]


def test_attributes_of_each_kind(tmp_path):
    suite = str(tmp_path / "s")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    onnxop.expect(helper.make_node("Gemm", ["a", "b"], ["c"], alpha=0.5, transB=1), inputs=[a, a], name="test_gemm",
                  suite=suite)
    onnxop.expect(helper.make_node("Transpose", ["a"], ["t"], perm=[1, 0]), inputs=[a], name="test_transpose",
                  suite=suite)
    onnxop.expect(helper.make_node("Pad", ["a", "p"], ["y"], mode="reflect"), inputs=[a, np.array([0, 1, 0, 1])],
                  name="test_pad", suite=suite)
    value = helper.make_tensor("v", TensorProto.INT32, [1], [7])
    (y,) = onnxop.expect(helper.make_node("ConstantOfShape", ["s"], ["y"], value=value), inputs=[np.array([2, 2])],
                         name="test_cos", suite=suite)
    assert y.dtype == np.int32 and y.tolist() == [[7, 7], [7, 7]]
    s = np.array(["a", "b\x00c"], dtype=object)
    onnxop.expect(helper.make_node("Identity", ["s"], ["t"]), inputs=[s], name="test_strings", suite=suite)
    rc, out, err = cli("test", suite)
    assert rc == 0 and out.strip().endswith("5 passed, 0 failed"), out + err
    with pytest.raises(onnxop.UsageError, match="is a GRAPH, which onnxop make does not take"):
        body = helper.make_graph([], "b", [], [])
        onnxop.expect(helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body),
                      inputs=[np.array(True)], name="test_if", suite=suite)


def test_outputs_given_are_checked(tmp_path):
    suite = str(tmp_path / "s")
    node = helper.make_node("Add", ["a", "b"], ["c"])
    a, b = np.array([1, 2], np.float32), np.array([0.5, 0.25], np.float32)
    onnxop.expect(node, inputs=[a, b], outputs=[a + b], name="test_add", suite=suite)
    with pytest.raises(onnxop.MismatchError) as e:
        onnxop.expect(node, inputs=[a, b], outputs=[np.array([1.5, 2.5], np.float32)], name="test_bad", suite=suite)
    assert isinstance(e.value, AssertionError)
    assert "1 of 2 elements differ (rtol 0.001, atol 1e-07)" in str(e.value)
    assert "element [1]: expected 2.25, got 2.5" in str(e.value)
    assert not os.path.exists(os.path.join(suite, "test_bad"))
    # within the tolerance given, which data.json records
    onnxop.expect(node, inputs=[a, b], outputs=[a + b + 1e-4], rtol=1e-3, atol=1e-3, name="test_tol", suite=suite)
    d = json.load(open(os.path.join(suite, "test_tol", "data.json")))
    assert d["rtol"] == 1e-3 and d["atol"] == 1e-3


def test_a_model_case(tmp_path):
    suite = str(tmp_path / "s")
    t = models.tensor_type(TensorProto.FLOAT, [2])
    m = models.model([helper.make_node("Mul", ["x", "x"], ["y"])], [("x", t)], [("y", t)], opset=14, ir=7)
    (y,) = onnxop.expect(m, inputs=[np.array([3, -1], np.float32)], name="test_sq", suite=suite)
    assert y.tolist() == [9, 1]
    rc, out, err = cli("test", suite)
    assert rc == 0 and out.strip().endswith("1 passed, 0 failed"), out + err
    onnx.checker.check_model(onnx.load(os.path.join(suite, "test_sq", "model.onnx")), full_check=True)
    with pytest.raises(onnxop.MismatchError):
        onnxop.expect(m, inputs=[np.array([3, -1], np.float32)], outputs=[np.array([9, 2], np.float32)],
                      name="test_sq2", suite=suite)


def test_compare_is_onnxop_compare(tmp_path):
    got, want = np.array([1, 2, 3], np.float32), np.array([1, 2.5, 3], np.float32)
    r = onnxop.compare(got, want)
    assert not r and not r.matched
    np.save(tmp_path / "got.npy", got)
    np.save(tmp_path / "expected.npy", want)
    rc, out, _ = cli("compare", str(tmp_path / "got.npy"), str(tmp_path / "expected.npy"))
    assert rc == 1 and r.text == out.rstrip("\n").replace(str(tmp_path / "expected.npy"), "expected.pb")
    assert onnxop.compare(got, got) and "match (3 elements" in onnxop.compare(got, got).text
    assert onnxop.compare(got, want, atol=1)
    assert not onnxop.compare([got], [got, got])  # a sequence of another length
    assert onnxop.compare({"k": got}, {"k": got})
