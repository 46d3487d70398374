"""onnxop.reference.ReferenceEvaluator: every kind of proto onnx.reference's
takes, run()'s arguments, intermediate results, verbose, new_ops; and the
node-test suite through it."""

import numpy as np
import onnx
import pytest
from onnx import AttributeProto, TensorProto, helper

import models
import onnxop
from onnxop.reference import ReferenceEvaluator
from test_suite import check_suite

F = TensorProto.FLOAT


def two_nodes():
    t = models.tensor_type(F, [2])
    return models.model([helper.make_node("Add", ["x", "w"], ["s"], name="add"),
                         helper.make_node("Mul", ["s", "x"], ["y"], name="mul")],
                        [("x", t)], [("y", t)], opset=14, inits=[helper.make_tensor("w", F, [2], [1, 2])])


def test_model_path_and_bytes(tmp_path):
    x = np.array([1, 2], np.float32)
    m = two_nodes()
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    for proto in [m, str(path), m.SerializeToString()]:
        ref = ReferenceEvaluator(proto)
        assert ref.input_names == ["x"] and ref.output_names == ["y"] and ref.opsets == {"": 14}
        (y,) = ref.run(None, {"x": x})
        assert y.tolist() == [2, 8]
    assert str(ReferenceEvaluator(m)) == "ReferenceEvaluator(x) -> y"
    with pytest.raises(ValueError, match="opsets must be None"):
        ReferenceEvaluator(m, opsets={"": 14})


def test_intermediate_and_named_results():
    ref = ReferenceEvaluator(two_nodes())
    x = np.array([1, 2], np.float32)
    r = ref.run(None, {"x": x}, intermediate=True)
    assert list(r) == ["", "x", "w", "s", "y"] and r[""] is None and r["x"] is x
    assert r["w"].tolist() == [1, 2] and r["s"].tolist() == [2, 4] and r["y"].tolist() == [2, 8]
    s, y = ref.run(["s", "y"], {"x": x})
    assert s.tolist() == [2, 4] and y.tolist() == [2, 8]
    assert ref.run(["w"], {"x": x})[0].tolist() == [1, 2]
    with pytest.raises(onnxop.UsageError, match="the model has no value named 'nope'"):
        ref.run(["nope"], {"x": x})
    # feeds the model does not take are ignored, as onnx.reference does
    assert ref.run(None, {"x": x, "other": 1})[0].tolist() == [2, 8]


def test_graph_with_opsets():
    g = two_nodes().graph
    ref = ReferenceEvaluator(g, opsets={"": 14})
    assert ref.run(None, {"x": np.array([0, 1], np.float32)})[0].tolist() == [0, 3]
    with pytest.raises(TypeError, match="opsets must be a dictionary"):
        ReferenceEvaluator(g)


def scale_function():
    """Scale(x) = x * alpha, alpha an attribute (default 3)."""
    body = [helper.make_node("Constant", [], ["a"], value_float=0.0),
            helper.make_node("Mul", ["x", "a"], ["y"])]
    ref = AttributeProto()
    ref.name = "value_float"
    ref.ref_attr_name = "alpha"
    ref.type = AttributeProto.FLOAT
    del body[0].attribute[:]
    body[0].attribute.append(ref)
    f = helper.make_function("custom", "Scale", ["x"], ["y"], body, [helper.make_opsetid("", 18)], ["alpha"])
    return f


def test_function_with_attributes_at_run_time():
    f = scale_function()
    ref = ReferenceEvaluator(f)
    x = np.array([1, -2], np.float32)
    assert ref.input_names == ["x"] and ref.output_names == ["y"]
    assert ref.run(None, {"x": x}, attributes={"alpha": 2.0})[0].tolist() == [2, -4]
    assert ref.run(None, {"x": x}, attributes={"alpha": 0.5})[0].tolist() == [0.5, -1]
    # its intermediate results are the body's
    r = ref.run(None, {"x": x}, attributes={"alpha": 2.0}, intermediate=True)
    assert r["a"].tolist() == 2.0 and r["y"].tolist() == [2, -4]
    with pytest.raises(TypeError):
        ref.run(None, {"x": x})


def test_graph_calling_a_function():
    f = scale_function()
    t = models.tensor_type(F, [2])
    g = helper.make_graph([helper.make_node("Scale", ["x"], ["y"], domain="custom", alpha=4.0)], "g",
                          [helper.make_value_info("x", t)], [helper.make_value_info("y", t)])
    ref = ReferenceEvaluator(g, opsets={"": 18, "custom": 1}, functions=[f])
    assert ref.run(None, {"x": np.array([1, 2], np.float32)})[0].tolist() == [4, 8]


def test_node():
    node = helper.make_node("Add", ["a", "b"], ["c"])
    ref = ReferenceEvaluator(node)
    assert ref.opsets == {"": onnx.defs.onnx_opset_version()}
    (c,) = ref.run(None, {"a": np.array([1, 2]), "b": np.array([3, 4])})
    assert c.tolist() == [4, 6] and c.dtype == np.int64
    (s,) = ReferenceEvaluator(helper.make_node("SequenceConstruct", ["a", "b"], ["s"])).run(
        None, {"a": np.ones(1, np.float32), "b": np.zeros(2, np.float32)})
    assert [e.tolist() for e in s] == [[1], [0, 0]]


def test_verbose_prints_the_trace(capsys):
    ref = ReferenceEvaluator(two_nodes(), verbose=1)
    ref.run(None, {"x": np.array([1, 2], np.float32)})
    out = capsys.readouterr().out
    assert out.startswith("node 'add' Add-14\n  in  x: tensor(float) (2,) min 1 max 2 [1, 2]\n")
    assert "node 'mul' Mul-14\n" in out and "  out y: tensor(float) (2,) min 2 max 8 [2, 8]\n" in out
    ReferenceEvaluator(two_nodes()).run(None, {"x": np.array([1, 2], np.float32)})
    assert capsys.readouterr().out == ""


def test_new_ops_are_refused():
    class Custom:
        op_domain = "custom"

    with pytest.raises(onnxop.UsageError, match="new_ops is not supported"):
        ReferenceEvaluator(two_nodes(), new_ops=[Custom])
    ReferenceEvaluator(two_nodes(), new_ops=[])  # none: nothing to refuse


def reference_runner(path):
    ref = ReferenceEvaluator(path, seed=0)
    s = ref._session
    ins = [(a.name, a.type) for a in s.get_inputs()]
    outs = [(a.name, a.type) for a in s.get_outputs()]
    return (lambda feeds: ref.run(None, feeds)), ins, outs


def test_suite_through_reference_evaluator(tmp_path):
    assert check_suite(reference_runner, tmp_path) >= 1790
