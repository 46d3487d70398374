"""onnxop.backend: onnxop as an onnx backend (onnx.backend.base).

    import onnx.backend.test, onnxop.backend
    backend_test = onnx.backend.test.BackendTest(onnxop.backend, __name__)
    globals().update(backend_test.test_cases)       # then: pytest this file

    rep = onnxop.backend.prepare(model)             # an onnx.ModelProto
    outputs = rep.run([x, y])                      # by position (or a dict by name)

The module's functions are the backend's (prepare, run_model, run_node,
supports_device, is_compatible), as onnx's BackendTest calls them; the
classes are OnnxopBackend and OnnxopBackendRep. The device is "CPU".

Values are as onnx 1.12's numpy_helper has them: a bfloat16 tensor is a
float32 array of its values (onnx.mapping), and onnx 1.12's test data holds
bfloat16 inputs as uint16 bit patterns; so a bfloat16 input takes either (a
float32 rounded to the nearest bfloat16, ties to even) and a bfloat16 output
is a float32 array; the other types numpy lacks are their bits. With
ml_dtypes importable, they are ml_dtypes arrays instead, as newer onnx has.
"""

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from . import errors, values
from .capi import ffi, lib
from .session import Session

__all__ = ["OnnxopBackend", "OnnxopBackendRep", "is_compatible", "prepare", "run_model", "run_node",
           "supports_device"]


class OnnxopBackendRep(BackendRep):
    """A prepared model: run(inputs) with inputs a list (by position) or a dict (by name)."""

    def __init__(self, session):
        self.session = session
        self._names = [a.name for a in session.get_inputs()]
        self._outputs = [a.name for a in session.get_outputs()]
        # inputs of a type numpy lacks: name -> its ONNX element type's name
        self._bits = {}
        for a in session.get_inputs():
            t = values.parse_type(a.type)
            if t and t[0] == "tensor" and values.CODES.get(t[1]) in values.BITS:
                self._bits[a.name] = t[1]

    def run(self, inputs, **kwargs):
        if isinstance(inputs, dict):
            feeds = inputs
        else:
            if not isinstance(inputs, (list, tuple)):
                inputs = [inputs]
            if len(inputs) > len(self._names):
                raise errors.UsageError(f"{len(inputs)} inputs for a model that takes {len(self._names)}")
            feeds = dict(zip(self._names, inputs))
        feeds = {k: _bits_in(v, self._bits.get(k)) for k, v in feeds.items()}
        outs = [_bits_out(o) for o in self.session.run(None, feeds)]
        return namedtupledict("Outputs", self._outputs)(*outs)


def _bits_in(x, dtype):
    """x for an input of a type numpy lacks (dtype): its bits, or for
    bfloat16 a float32 array of values."""
    if dtype is None or not isinstance(x, np.ndarray):
        return x
    if dtype == "bfloat16" and x.dtype == np.float32:
        u = np.ascontiguousarray(x).view(np.uint32).astype(np.uint64)
        rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16  # to nearest, ties to even
        nan = np.isnan(x)
        bits = np.where(nan, (u >> 16) | 0x40, rounded).astype(np.uint16)  # a NaN stays one
        return values.Tensor(bits, dtype)
    return values.Tensor(x, dtype) if x.dtype.kind in "iu" else x


def _bits_out(x):
    """An output of a type numpy lacks as onnx 1.12 holds it."""
    if not isinstance(x, values.Tensor):
        return x
    if x.dtype == "bfloat16":
        return (x.bits.astype(np.uint32) << 16).view(np.float32)
    return x.bits


class OnnxopBackend(Backend):
    """onnxop through onnx's Backend interface."""

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        """Whether onnxop runs every node of the model's main graph."""
        opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
        local = {(f.domain, f.name) for f in model.functions}
        for node in model.graph.node:
            if (node.domain, node.op_type) in local:
                continue
            version = opsets.get(node.domain or "ai.onnx")
            if version is None or lib.onnxop_op_supported(node.domain.encode(), node.op_type.encode(), version,
                                                          ffi.NULL, 0) != 1:
                return False
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        """A BackendRep of the model (an onnx.ModelProto, bytes or a path);
        kwargs: Session's (threads, max_memory, timeout, seed)."""
        cls._device(device)
        return OnnxopBackendRep(Session(model, **kwargs))

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Run one NodeProto on inputs (by position, or a dict by name), in a
        model importing kwargs' opset_version (default: onnx's newest)."""
        opset = kwargs.pop("opset_version", onnx.defs.onnx_opset_version())
        names = [n for n in node.input if n]
        graph = onnx.helper.make_graph(
            [node], "run_node", [onnx.helper.make_value_info(n, onnx.TypeProto()) for n in names],
            [onnx.helper.make_value_info(n, onnx.TypeProto()) for n in node.output if n])
        ops = [onnx.helper.make_opsetid("", opset)]
        if node.domain not in ("", "ai.onnx"):
            ops.append(onnx.helper.make_opsetid(node.domain, 1))
        model = onnx.helper.make_model(graph, opset_imports=ops)
        if not isinstance(inputs, dict):
            inputs = dict(zip(names, inputs))
        return cls.run_model(model, inputs, device, **kwargs)

    @classmethod
    def supports_device(cls, device):
        try:
            return Device(device).type == DeviceType.CPU
        except AttributeError:
            return False

    @classmethod
    def _device(cls, device):
        if not cls.supports_device(device):
            raise errors.UsageError(f"onnxop runs on the CPU, not {device!r}")


is_compatible = OnnxopBackend.is_compatible
prepare = OnnxopBackend.prepare
run_model = OnnxopBackend.run_model
run_node = OnnxopBackend.run_node
supports_device = OnnxopBackend.supports_device
