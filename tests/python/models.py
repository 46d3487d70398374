"""Small models for the tests, made with onnx.helper."""

from onnx import TensorProto, TypeProto, helper

OPSET = 25  # the newest onnxop knows (Identity takes every element type there)
IR = 12


def tensor_type(elem, shape=None):
    t = TypeProto()
    t.tensor_type.elem_type = elem
    if shape is not None:
        t.tensor_type.shape.SetInParent()
        for d in shape:
            dim = t.tensor_type.shape.dim.add()
            if isinstance(d, str):
                dim.dim_param = d
            elif d is not None:
                dim.dim_value = d
    return t


def seq_type(elem):
    t = TypeProto()
    t.sequence_type.elem_type.CopyFrom(elem)
    return t


def optional_type(elem):
    t = TypeProto()
    t.optional_type.elem_type.CopyFrom(elem)
    return t


def map_type(key, value):
    t = TypeProto()
    t.map_type.key_type = key
    t.map_type.value_type.CopyFrom(value)
    return t


def model(nodes, inputs, outputs, opset=OPSET, inits=(), ir=IR, functions=()):
    """inputs, outputs: (name, TypeProto) pairs."""
    def info(n, t):  # t None: no type declared
        return helper.make_value_info(n, t if t is not None else TypeProto())
    g = helper.make_graph(nodes, "g", [info(n, t) for n, t in inputs], [info(n, t) for n, t in outputs],
                          initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], functions=list(functions))
    m.ir_version = ir
    return m


def passthrough(t):
    """A graph that returns its input x: as y through Identity; or, for a
    type that is or holds a map (which Identity does not take) and for no
    type, as x itself, with no node at all."""
    if t is None or "map_type" in str(t):
        return model([], [("x", t)], [("x", t)])
    return model([helper.make_node("Identity", ["x"], ["y"])], [("x", t)], [("y", t)])


def loop(trips):
    """y = x + 1, `trips` times over, in a Loop: a run as long as you like."""
    one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "one"], ["acc_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [4])],
        initializer=[one])
    trip = helper.make_tensor("trips", TensorProto.INT64, [], [trips])
    return model([helper.make_node("Loop", ["trips", "", "x"], ["y"], body=body)],
                 [("x", tensor_type(TensorProto.FLOAT, [4]))], [("y", tensor_type(TensorProto.FLOAT, [4]))],
                 inits=[trip])
