"""onnxop.Session: a model run on Python values, as onnxruntime's InferenceSession.

    sess = onnxop.Session("model.onnx")
    (y,) = sess.run(None, {"x": np.ones((2, 3), np.float32)})

Runs of one Session may go on in several threads at once (the library
releases the GIL while it runs), and give the bytes of runs one after
another. In the main thread, Ctrl-C stops a long run at its next node (a
single long node runs to its end) and raises KeyboardInterrupt.
"""

import os
import threading

import numpy as np

from . import errors, values
from .capi import ffi, lib
from .values import ONNX

__all__ = ["NodeArg", "Session", "load_model"]


class NodeArg:
    """An input or output as the model declares it.

    ``name``; ``type``, the ONNX type string ("tensor(float)",
    "seq(tensor(int64))") or None when undeclared; ``shape``, a list of one
    entry a dim (an int, the dim's symbolic name, or None when unknown), or
    None when the model declares no shape (and for what is not a tensor).
    """

    __slots__ = ("name", "type", "shape")

    def __init__(self, name, type, shape):
        self.name = name
        self.type = type
        self.shape = shape

    def __repr__(self):
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


def _string(p):
    return ffi.string(p).decode("utf-8", "backslashreplace") if p != ffi.NULL else None


def load_model(model, keep_weights=True):
    """A library model (freed when collected) from a path, bytes or an
    onnx.ModelProto; keep_weights False: the initializers its kernels pack
    are given back once packed (ONNXOP_LOAD_RELEASE_PACKED)."""
    out = ffi.new("onnxop_model **")
    err = ffi.new("onnxop_error **")
    flags = 0 if keep_weights else lib.ONNXOP_LOAD_RELEASE_PACKED
    if isinstance(model, (str, os.PathLike)):
        rc = lib.onnxop_model_load_with(os.fsencode(model), flags, out, err)
    else:
        if hasattr(model, "SerializeToString"):
            model = model.SerializeToString()
        if not isinstance(model, (bytes, bytearray, memoryview)):
            raise errors.UsageError(f"a model is a path, bytes or an onnx.ModelProto, not {type(model).__name__}")
        rc = lib.onnxop_model_load_buffer_with(ffi.from_buffer(model), len(model), flags, out, err)
    if rc:
        errors.raise_error(err)
    return ffi.gc(out[0], lib.onnxop_model_free)


def _arg(m, i, name, type_, rank, dim, dim_name):
    shape = None
    r = rank(m, i)
    if r >= 0:
        shape = []
        for d in range(r):
            size = dim(m, i, d, dim_name)
            shape.append(size if size >= 0 else _string(dim_name[0]))
    return NodeArg(_string(name(m, i)), _string(type_(m, i)), shape)


# ---- Ctrl-C during a run in the main thread ----
#
# Python runs its signal handlers in the main thread, between two steps of
# Python code; the library runs C code. So a run on the main thread has a
# progress handler that the library calls every POLL seconds: Python code,
# during which a pending SIGINT's handler runs and raises KeyboardInterrupt.
# That exception (whatever the handler raises) is kept, the run's cancel flag
# set, and the run stops at its next check; run() then raises it.

POLL = 0.05
_MAIN = threading.main_thread().ident
_LOCK = threading.Lock()


class _Interrupt:
    flag = None  # the cancel flag of the main thread's current run
    exc = None   # what a signal handler raised during it


def _poll_error(exc_type, exc, tb):
    _Interrupt.exc = exc
    if _Interrupt.flag is not None:
        _Interrupt.flag[0] = 1


@ffi.callback("int(void *)", error=0, onerror=_poll_error)
def _poll(arg):
    return 0


class _Scratch(threading.local):
    """What a run hands the library to fill in, one set a thread."""

    def __init__(self, n_in):
        self.out = ffi.new("onnxop_value ***")
        self.n_out = ffi.new("int *")
        self.err = ffi.new("onnxop_error **")
        self.value = ffi.new("onnxop_value **")
        self.vals = ffi.new("onnxop_value *[]", max(n_in, 1))
        self.main = threading.get_ident() == _MAIN


@ffi.callback("void(void *, const char *, size_t)")
def _write_trace(arg, text, n):
    ffi.from_handle(arg).write(ffi.unpack(text, n).decode("utf-8", "backslashreplace"))


class Session:
    """A loaded model and how to run it.

    ``model``: a path, the model's bytes, or an ``onnx.ModelProto``.
    ``threads``: the kernels' threads (0: one per CPU; results never depend
    on it). ``max_memory``: bytes a run may allocate (None: three quarters
    of physical memory), past which it raises OutOfMemoryError.
    ``timeout``: seconds a run may take (checked before every node), past
    which it raises onnxop.TimeoutError. ``seed``: random operators without
    a seed attribute draw from numpy's RandomState(seed). ``trace``: a text
    stream (sys.stderr) that each run writes what ``onnxop run --trace``
    prints to: each node with its inputs and outputs summarised, or with
    ``trace_summary=True`` (for a large graph) the nodes run per op and the
    first output holding NaN or Inf, after the run. ``keep_weights``: False (the default) gives back the memory
    of each initializer of 64 KiB or more that only the kernels which packed
    it read (MatMul's, Gemm's and Conv's constant weights) once the model is
    prepared, so that the weights are not held twice, as ``onnxop run``
    does; ``run`` returns graph outputs only, so nothing is lost. True keeps
    them all (the reference evaluator does: its intermediate results hold
    the initializers).
    """

    def __init__(self, model, *, threads=1, max_memory=None, timeout=None, seed=None, trace=None,
                 trace_summary=False, keep_weights=False):
        for name, flag in (("trace_summary", trace_summary), ("keep_weights", keep_weights)):
            if not isinstance(flag, bool):
                raise errors.UsageError(f"{name} must be True or False, not {flag!r}")
        self._model = load_model(model, keep_weights)
        m = self._model
        dim_name = ffi.new("const char **")
        self._inputs = [_arg(m, i, lib.onnxop_model_input_name, lib.onnxop_model_input_type,
                             lib.onnxop_model_input_rank, lib.onnxop_model_input_dim, dim_name)
                        for i in range(lib.onnxop_model_input_count(m))]
        self._outputs = [_arg(m, i, lib.onnxop_model_output_name, lib.onnxop_model_output_type,
                              lib.onnxop_model_output_rank, lib.onnxop_model_output_dim, dim_name)
                         for i in range(lib.onnxop_model_output_count(m))]
        # input name -> (its place, its name for the library, its declared
        # type, whether an array goes to it as a tensor at once)
        self._in = {}
        for i, a in enumerate(self._inputs):
            t = values.parse_type(a.type)
            self._in[a.name] = (i, ffi.new("char[]", a.name.encode()), t, t is None or t[0] == "tensor")
        self._out = {a.name: i for i, a in enumerate(self._outputs)}
        self._scratch = _Scratch(len(self._inputs))
        self._dims = {}  # shape -> int64_t[] (the library copies dims: one a shape will do)
        self._trace = ffi.new_handle(trace) if trace is not None else None
        self._trace_what = lib.ONNXOP_TRACE_NODES | (lib.ONNXOP_TRACE_SUMMARY if trace_summary else 0)
        self._settings = (threads, max_memory, timeout, seed)
        # the main thread's options: with the progress handler and the
        # cancel flag; the other threads' (made when one first runs): without
        self._flag = ffi.new("int *")
        self._main_opts = self._options(*self._settings)
        lib.onnxop_run_options_set_cancel(self._main_opts, self._flag)
        lib.onnxop_run_options_set_progress(self._main_opts, POLL, _poll, ffi.NULL)
        self._opts = None

    def _options(self, threads, max_memory, timeout, seed):
        o = lib.onnxop_run_options_new()
        if o == ffi.NULL:
            raise errors.OutOfMemoryError("out of memory")
        o = ffi.gc(o, lib.onnxop_run_options_free)
        if not isinstance(threads, int) or lib.onnxop_run_options_set_threads(o, threads):
            raise errors.UsageError(f"threads must be from 1 to 256, or 0 (one per CPU), not {threads!r}")
        if max_memory is not None and (not isinstance(max_memory, int) or max_memory <= 0
                                       or lib.onnxop_run_options_set_max_memory(o, max_memory)):
            raise errors.UsageError(f"max_memory must be a number of bytes > 0, not {max_memory!r}")
        if timeout is not None and (not isinstance(timeout, (int, float)) or not timeout > 0
                                    or lib.onnxop_run_options_set_timeout(o, float(timeout))):
            raise errors.UsageError(f"timeout must be a number of seconds > 0, not {timeout!r}")
        if seed is not None:
            if not isinstance(seed, int) or not 0 <= seed < 2**32:
                raise errors.UsageError(f"seed must be an integer from 0 to 2**32 - 1, not {seed!r}")
            lib.onnxop_run_options_set_seed(o, seed)
        if self._trace is not None:
            lib.onnxop_run_options_set_trace(o, self._trace_what, _write_trace, self._trace)
        return o

    def _other_options(self):
        with _LOCK:
            if self._opts is None:
                self._opts = self._options(*self._settings)
        return self._opts

    def get_inputs(self):
        """The inputs a run takes (initializers left out), as NodeArgs."""
        return list(self._inputs)

    def get_outputs(self):
        """The outputs a run returns, as NodeArgs."""
        return list(self._outputs)

    def run(self, output_names, input_feed, run_options=None):
        """Run the model: ``input_feed`` maps input names to values; returns
        the outputs named in ``output_names`` (None: all), in that order."""
        if run_options is not None:
            raise errors.UsageError("run_options is not supported (give the options to Session)")
        if output_names:
            pick = []
            for name in output_names:
                if name not in self._out:
                    have = ", ".join(repr(n) for n in self._out) or "none"
                    raise errors.UsageError(f"the model has no output named {name!r} (its outputs: {have})")
                pick.append(self._out[name])
        else:
            pick = range(len(self._outputs))
        outputs, n = self._run(input_feed, None)
        try:
            return [values.from_value(outputs[i]) for i in pick]
        finally:
            lib.onnxop_values_free(outputs, n)

    def _run(self, input_feed, want):
        """The library's run: its outputs (want None: the model's) and their count."""
        sc = self._scratch
        keep, vals, names = [], [], []
        positional = len(input_feed) == len(self._inputs)  # every input, each in its place
        try:
            for name, x in input_feed.items():
                info = self._in.get(name)
                if info is None:  # the library says which inputs there are
                    info = (-1, ffi.new("char[]", str(name).encode()), None, False)
                    keep.append(info[1])
                    positional = False
                v = None
                # an array for a tensor, C-contiguous and aligned: wrapped as it is
                if info[3] and type(x) is np.ndarray and x.flags.carray:
                    code = ONNX.get(x.dtype)
                    if code is not None:
                        dims = self._dims.get(x.shape) or self._dims_of(x.shape)
                        if lib.onnxop_tensor_wrap(code, x.ndim, dims, ffi.from_buffer(x), sc.value, sc.err):
                            errors.raise_error(sc.err)
                        v = sc.value[0]
                        keep.append(x)
                if v is None:
                    v = values.to_value(x, info[2], keep)
                vals.append(v)
                names.append(info[1])
                if positional:
                    sc.vals[info[0]] = v
            if positional:
                return self._call(sc, ffi.NULL, sc.vals, len(vals), want)
            return self._call(sc, ffi.new("char *[]", names), ffi.new("onnxop_value *[]", vals), len(vals), want)
        finally:
            for v in vals:
                lib.onnxop_value_free(v)

    def _dims_of(self, shape):
        """dims for the library (it copies them: one a shape does for every run)."""
        if len(self._dims) > 256:
            self._dims.clear()
        d = self._dims[shape] = ffi.new("int64_t[]", shape) if shape else ffi.NULL
        return d

    def _call(self, sc, c_names, c_vals, n_in, want):
        out, n_out, err = sc.out, sc.n_out, sc.err
        main = sc.main
        opts = self._main_opts if main else self._opts or self._other_options()
        if main:
            was = (_Interrupt.flag, _Interrupt.exc)
            _Interrupt.flag, _Interrupt.exc = self._flag, None
            self._flag[0] = 0
        try:
            if want is None:
                rc = lib.onnxop_run(self._model, opts, n_in, c_names, c_vals, out, n_out, err)
            else:
                c_want = ffi.new("char *[]", want)
                rc = lib.onnxop_run_outputs(self._model, opts, n_in, c_names, c_vals, len(want), c_want, out, err)
                n_out[0] = len(want)
        finally:
            if main:
                interrupted = _Interrupt.exc
                _Interrupt.flag, _Interrupt.exc = was
        if main and interrupted is not None:  # Ctrl-C (or what a signal handler raised)
            if not rc:
                lib.onnxop_values_free(out[0], n_out[0])
            else:
                lib.onnxop_error_free(err[0])
            raise interrupted
        if rc:
            errors.raise_error(err)
        return out[0], n_out[0]
