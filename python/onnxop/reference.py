"""onnxop.reference.ReferenceEvaluator: onnx.reference's, evaluated by onnxop.

    from onnxop.reference import ReferenceEvaluator   # for: from onnx.reference import ...
    sess = ReferenceEvaluator("model.onnx")
    results = sess.run(None, {"X": X})

The constructor and run() take what onnx.reference.ReferenceEvaluator's take
(onnx 1.15 and later): ``proto`` is an onnx.ModelProto, a GraphProto (with
``opsets``), a FunctionProto (its attributes given to run()), a NodeProto,
a path or the model's bytes; ``functions`` the FunctionProtos a GraphProto,
FunctionProto or NodeProto calls. ``verbose`` prints, on standard output,
what ``onnxop run --trace`` prints. ``new_ops``, Python implementations of
operators, cannot run in onnxop and are refused. The keyword-only
``threads``, ``max_memory``, ``timeout`` and ``seed`` are Session's.

Values are onnxop's (onnxop.values): numpy arrays, lists for sequences,
None or the value for optionals, dicts for maps.
"""

import sys

from . import errors, values
from .capi import ffi, lib
from .session import Session

__all__ = ["ReferenceEvaluator"]


def _onnx():
    try:
        import onnx
    except ImportError:
        raise errors.UsageError("this kind of proto needs the onnx package (python3-onnx)") from None
    return onnx


class _Stdout:
    """Writes to whatever sys.stdout is when a line comes (pytest's capture too)."""

    def write(self, text):
        sys.stdout.write(text)


class ReferenceEvaluator:
    """Computes the outputs of an ONNX proto, as onnx.reference.ReferenceEvaluator."""

    def __init__(self, proto, opsets=None, functions=None, verbose=0, new_ops=None, optimized=True, *,
                 threads=1, max_memory=None, timeout=None, seed=None):
        if new_ops:
            raise errors.UsageError(
                "new_ops is not supported: onnxop runs the operators it implements (onnxop.op_supported), "
                "not Python ones; use onnx.reference.ReferenceEvaluator for those")
        self.verbose = verbose
        # every initializer kept: run(intermediate=True) returns them
        self._kw = dict(threads=threads, max_memory=max_memory, timeout=timeout, seed=seed,
                        trace=_Stdout() if verbose else None, keep_weights=True)
        self._sessions = {}  # FunctionProto: one a set of attributes
        self.proto_ = proto
        self.attributes_ = []
        self.functions_ = list(functions or [])
        if isinstance(proto, (str, bytes, bytearray)) or _is(proto, "ModelProto"):
            if opsets is not None:
                raise ValueError("opsets must be None if proto is ModelProto.")
            if functions is not None:
                raise ValueError("functions must be None if proto is ModelProto.")
            self._session = Session(proto, **self._kw)
            self._from_session(self._session)
            return
        onnx = _onnx()
        if isinstance(proto, onnx.GraphProto):
            if not isinstance(opsets, dict):
                raise TypeError("opsets must be a dictionary if proto is GraphProto.")
            self._session = Session(self._model(proto, opsets), **self._kw)
            self._from_session(self._session)
            self.opsets_ = dict(opsets)
        elif isinstance(proto, onnx.FunctionProto):
            if opsets is not None:
                raise ValueError("opsets must be None if proto is FunctionProto.")
            self.opsets_ = {d.domain: d.version for d in proto.opset_import}
            self.attributes_ = list(proto.attribute)
            self.input_names_ = list(proto.input)
            self.output_names_ = list(proto.output)
            self._session = None
        elif isinstance(proto, onnx.NodeProto):
            self.opsets_ = {proto.domain: 1 if proto.domain != "" else onnx.defs.onnx_opset_version()}
            graph = onnx.helper.make_graph([proto], "node", [_untyped(n) for n in proto.input if n],
                                           [_untyped(n) for n in proto.output if n])
            self._session = Session(self._model(graph, self.opsets_), **self._kw)
            self._from_session(self._session)
        else:
            raise TypeError(f"Unexpected type {type(proto)} for proto.")

    # ---- what onnx.reference's evaluator tells of itself ----

    @property
    def input_names(self):
        return self.input_names_

    @property
    def output_names(self):
        return self.output_names_

    @property
    def opsets(self):
        return self.opsets_

    def __str__(self):
        return f"{self.__class__.__name__}({', '.join(self.input_names)}) -> {', '.join(self.output_names)}"

    def _from_session(self, s):
        m = s._model
        self.input_names_ = [a.name for a in s.get_inputs()]
        self.output_names_ = [a.name for a in s.get_outputs()]
        self.opsets_ = {}
        for i in range(lib.onnxop_model_opset_count(m)):
            d = ffi.string(lib.onnxop_model_opset_domain(m, i)).decode()
            self.opsets_[d] = lib.onnxop_model_opset_version(m, i)

    def _model(self, graph, opsets):
        """A model of graph importing opsets, with the functions given."""
        onnx = _onnx()
        fns = [f.proto_ if isinstance(f, ReferenceEvaluator) else f for f in self.functions_]
        ops = [onnx.helper.make_opsetid(d, v) for d, v in opsets.items()]
        for f in fns:  # a function's domain needs an import too
            if f.domain not in opsets:
                ops.append(onnx.helper.make_opsetid(f.domain, 1))
                opsets = dict(opsets, **{f.domain: 1})
        return onnx.helper.make_model(graph, opset_imports=ops, functions=fns)

    def _function_session(self, attributes):
        """The Session of the FunctionProto's body with these attributes."""
        key = repr(sorted((k, repr(v)) for k, v in attributes.items()))
        s = self._sessions.get(key)
        if s is None:
            onnx = _onnx()
            f = self.proto_
            defaults = {a.name: a for a in getattr(f, "attribute_proto", ())}  # onnx 1.13 and later
            nodes = [_bind(n, attributes, defaults) for n in f.node]
            graph = onnx.helper.make_graph(nodes, f.name, [_untyped(n) for n in f.input],
                                           [_untyped(n) for n in f.output])
            s = self._sessions[key] = Session(self._model(graph, self.opsets_), **self._kw)
        return s

    # ---- running ----

    def run(self, output_names, feed_inputs, attributes=None, intermediate=False):
        """The outputs named in output_names (None: all), a list; or with
        intermediate=True a dict of every result by name: the inputs, the
        initializers and every node's outputs."""
        if output_names is None:
            output_names = self.output_names
        session = self._session
        if session is None:  # a FunctionProto
            if attributes is None:
                raise TypeError()
            session = self._function_session(attributes)
        known = set(self.input_names)
        feeds = {k: v for k, v in feed_inputs.items() if k in known}  # onnx.reference ignores the others
        if intermediate:
            m = session._model
            names = [ffi.string(lib.onnxop_model_value_name(m, i)).decode()
                     for i in range(lib.onnxop_model_value_count(m))]
            results = {"": None}  # as onnx.reference's: "" is a missing optional input
            for name, value in zip(names, self._fetch(session, feeds, names)):
                results[name] = feed_inputs[name] if name in feeds else value
            return results
        outs = set(self.output_names)
        if all(n in outs for n in output_names):
            return session.run(list(output_names), feeds)
        return self._fetch(session, feeds, list(output_names))

    @staticmethod
    def _fetch(session, feeds, names):
        """Any values of the graph by name (onnxop_run_outputs)."""
        c_names = [ffi.new("char[]", n.encode()) for n in names]
        outputs, n = session._run(feeds, c_names)
        try:
            return [values.from_value(outputs[i]) for i in range(n)]
        finally:
            lib.onnxop_values_free(outputs, n)


def _is(proto, cls):
    onnx = sys.modules.get("onnx")
    return onnx is not None and isinstance(proto, getattr(onnx, cls))


def _untyped(name):
    onnx = _onnx()
    return onnx.helper.make_value_info(name, onnx.TypeProto())


def _bind(node, attributes, defaults):
    """A copy of a function body's node with its attribute references
    (ref_attr_name) replaced by the run's attributes or the defaults, in its
    subgraphs too; a reference to neither is dropped."""
    onnx = _onnx()
    n = onnx.NodeProto()
    n.CopyFrom(node)
    del n.attribute[:]
    for a in node.attribute:
        if a.ref_attr_name:
            if a.ref_attr_name in attributes:
                v = attributes[a.ref_attr_name]
                if isinstance(v, onnx.AttributeProto):
                    b = onnx.AttributeProto()
                    b.CopyFrom(v)
                    b.name = a.name
                else:
                    b = onnx.helper.make_attribute(a.name, v)
                n.attribute.append(b)
            elif a.ref_attr_name in defaults:
                b = onnx.AttributeProto()
                b.CopyFrom(defaults[a.ref_attr_name])
                b.name = a.name
                n.attribute.append(b)
            continue
        b = onnx.AttributeProto()
        b.CopyFrom(a)
        if b.HasField("g"):
            _bind_graph(b.g, attributes, defaults)
        for g in b.graphs:
            _bind_graph(g, attributes, defaults)
        n.attribute.append(b)
    return n


def _bind_graph(g, attributes, defaults):
    nodes = [_bind(x, attributes, defaults) for x in g.node]
    del g.node[:]
    g.node.extend(nodes)
