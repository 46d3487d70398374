"""onnxop from Python: an exact ONNX reference evaluator over libonnxop.

    import numpy as np, onnxop
    sess = onnxop.Session("model.onnx")             # as onnxruntime.InferenceSession
    (y,) = sess.run(None, {"x": np.ones((2, 3), np.float32)})

Two layers, as llama-cpp-python has them: :mod:`onnxop.capi` binds the C
library one to one (cffi's ABI mode: nothing compiled), and the rest is the
Pythonic layer on top of it:

- :class:`Session` (``run``, ``get_inputs``, ``get_outputs``);
- :mod:`onnxop.reference` (``ReferenceEvaluator``, as onnx.reference's);
- :mod:`onnxop.backend` (an onnx backend, for onnx's BackendTest);
- :func:`expect` and :func:`compare`, writing and checking test cases
  (:mod:`onnxop.authoring`);
- values: numpy arrays, :class:`Tensor` for the types numpy lacks, lists,
  None or the value for optionals, dicts (see :mod:`onnxop.values`);
- exceptions named for the exit-status classes of the onnxop command
  (:mod:`onnxop.errors`).
"""

from .authoring import MismatchError, Report, compare, expect
from .capi import ffi, lib
from .errors import (CancelledError, Error, InputError, OutOfMemoryError, TimeoutError, UnsupportedError,
                     UsageError)
from .session import NodeArg, Session
from .values import Tensor

__all__ = ["CancelledError", "Error", "InputError", "MismatchError", "NodeArg", "OutOfMemoryError", "Report",
           "Session", "Tensor", "TimeoutError", "UnsupportedError", "UsageError", "compare", "expect",
           "library_version", "op_supported"]

__version__ = "0.2.0"


def library_version():
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return ffi.string(lib.onnxop_version()).decode()


def op_supported(op, opset, domain=""):
    """(True, "") when this build runs operator op of domain for a model
    importing that opset version of the domain; else (False, why)."""
    why = ffi.new("char[]", 256)
    ok = lib.onnxop_op_supported(domain.encode(), op.encode(), opset, why, 256)
    return ok == 1, ffi.string(why).decode()
