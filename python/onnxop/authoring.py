"""Writing test cases from Python: onnxop.expect() and onnxop.compare().

    node = onnx.helper.make_node("Relu", ["x"], ["y"])
    x = np.array([-1, 2], np.float32)
    onnxop.expect(node, inputs=[x], name="test_relu", suite="cases")       # outputs computed
    onnxop.expect(node, inputs=[x], outputs=[np.maximum(x, 0)], name="test_relu", suite="cases")

expect() writes a case in the ONNX test layout (NAME/model.onnx,
NAME/test_data_set_0/input_K.pb and output_K.pb, NAME/data.json) as
`onnxop make --case` does, by running that command: a node's model is made
by the same rules (the IR version its opset needs, the newest opset onnxop
knows unless opset= says, a type and shape on every input and output), and
data.json records the tolerances and the provenance. Outputs given are
checked against onnxop's first; a difference raises MismatchError with the
report `onnxop compare` prints, and writes nothing. A model (an
onnx.ModelProto) is written as given, with its inputs and onnxop's outputs.

compare(got, expected) is `onnxop compare` on two values: its report.

Both run the onnxop command: ONNXOP_COMMAND when set, else build/onnxop of
the source tree this package sits in, else `onnxop` on PATH.
"""

import json
import os
import shutil
import subprocess
import tempfile

from . import errors, values
from .capi import ffi, lib
from .session import Session

__all__ = ["MismatchError", "Report", "compare", "expect"]

# inputs up to this size go on make's command line as JSON (and so into
# data.json's provenance); larger ones through files
INLINE = 32 * 1024


class MismatchError(errors.Error, AssertionError):
    """Outputs given to expect() differ from onnxop's (the report of `onnxop compare`)."""


class Report:
    """What `onnxop compare` prints for two values: ``text``, and ``matched``
    (its exit status 0). True when they match."""

    def __init__(self, matched, text):
        self.matched = matched
        self.text = text

    def __bool__(self):
        return self.matched

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"Report(matched={self.matched}, text={self.text!r})"


def command():
    """The onnxop command expect() and compare() run."""
    env = os.environ.get("ONNXOP_COMMAND")
    if env:
        return env
    tree = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    built = os.path.join(tree, "build", "onnxop")
    if os.path.exists(os.path.join(tree, "include", "onnxop.h")) and os.path.exists(built):
        return built
    found = shutil.which("onnxop")
    if not found:
        raise errors.UsageError("the onnxop command is not found: install it (Debian's onnxop) "
                                "or set ONNXOP_COMMAND")
    return found


def _run(args, cwd=None):
    p = subprocess.run([command(), *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def _fail(rc, stderr):
    """The exception for the command's exit status and its message."""
    msg = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit status {rc}"
    if msg.startswith("onnxop "):  # "onnxop make: ..."
        msg = msg.split(": ", 1)[-1]
    elif msg.startswith("onnxop: "):
        msg = msg[len("onnxop: "):]
    cls = {2: errors.UsageError, 3: errors.UnsupportedError}.get(rc, errors.InputError)
    return cls(msg)


def _encode(x, type_str, fmt, name=None):
    """x as the bytes of a value file (the library's writer)."""
    keep = []
    v = values.to_value(x, values.parse_type(type_str), keep)
    buf = ffi.new("void **")
    size = ffi.new("size_t *")
    err = ffi.new("onnxop_error **")
    try:
        if lib.onnxop_value_write_buffer(v, name.encode() if name else ffi.NULL, fmt, buf, size, err):
            errors.raise_error(err)
        try:
            return ffi.unpack(ffi.cast("char *", buf[0]), size[0])
        finally:
            lib.onnxop_free(buf[0])
    finally:
        lib.onnxop_value_free(v)


def compare(got, expected, rtol=1e-3, atol=1e-7):
    """`onnxop compare` of got against expected (two values, as Session
    takes them): floats within atol + rtol * |expected| (NaN equals NaN),
    everything else exactly. Returns its Report."""
    with tempfile.TemporaryDirectory(prefix="onnxop-compare-") as tmp:
        for name, x in (("got.pb", got), ("expected.pb", expected)):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(_encode(x, None, lib.ONNXOP_FORMAT_PB))
        rc, out, err = _run(["compare", "got.pb", "expected.pb", "--rtol", repr(float(rtol)),
                             "--atol", repr(float(atol))], cwd=tmp)
    if rc not in (0, 1):
        raise _fail(rc, err)
    return Report(rc == 0, out.rstrip("\n"))


def _is(x, cls):
    onnx = __import__("onnx")
    return isinstance(x, getattr(onnx, cls))


def expect(node_or_model, inputs, name, outputs=None, opset=None, suite=".", rtol=None, atol=None):
    """Write the case SUITE/NAME for a NodeProto or ModelProto run on inputs
    (a list, in the order of the node's or graph's inputs); outputs, when
    given, must match onnxop's within rtol and atol (the defaults of
    `onnxop test`), which data.json records when given. Returns onnxop's
    outputs."""
    if not name or os.sep in name or name in (".", ".."):
        raise errors.UsageError(f"a case name is a folder name, not {name!r}")
    if _is(node_or_model, "ModelProto"):
        return _expect_model(node_or_model, list(inputs), name, outputs, suite, rtol, atol)
    if not _is(node_or_model, "NodeProto"):
        raise errors.UsageError(f"expect() takes an onnx NodeProto or ModelProto, not {type(node_or_model).__name__}")
    node = node_or_model
    with tempfile.TemporaryDirectory(prefix="onnxop-expect-") as tmp:
        args = _make_args(node, list(inputs), opset, rtol, atol, tmp)
        # onnxop's outputs first, in a case of its own, to check those given
        rc, _, err = _run(args + ["--case", os.path.join(tmp, "case")])
        if rc:
            raise _fail(rc, err)
        s = Session(os.path.join(tmp, "case", "model.onnx"))
        got = [values.read_pb(os.path.join(tmp, "case", "test_data_set_0", f"output_{k}.pb"), a.type)
               for k, a in enumerate(s.get_outputs())]
        _check(got, outputs, rtol, atol)
        os.makedirs(suite, exist_ok=True)
        rc, _, err = _run(args + ["--suite", suite, "--name", name])
        if rc:
            raise _fail(rc, err)
    return got


def _check(got, outputs, rtol, atol):
    if outputs is None:
        return
    outputs = list(outputs)
    if len(outputs) != len(got):
        raise MismatchError(f"{len(outputs)} outputs given; the node makes {len(got)}")
    reports = []
    for k, (g, want) in enumerate(zip(got, outputs)):
        r = compare(want, g, 1e-3 if rtol is None else rtol, 1e-7 if atol is None else atol)
        if not r:
            reports.append(f"output {k}: {r.text}")
    if reports:
        raise MismatchError("the outputs given differ from onnxop's:\n" + "\n".join(reports))


def _make_args(node, inputs, opset, rtol, atol, tmp):
    """`onnxop make`'s arguments for node on inputs (files in tmp when large)."""
    args = ["make", node.op_type, "--domain", node.domain or "ai.onnx"]
    if opset is not None:
        args += ["--opset", str(int(opset))]
    for a in node.attribute:
        args += ["-a", _attribute(a, tmp)]
    named = [n for n in node.input if n]
    if len(inputs) != len(named):
        raise errors.UsageError(f"{len(inputs)} inputs for a node that takes {len(named)} ({', '.join(named)})")
    for n in node.input:
        args += ["--input", n]
    for n in node.output:
        args += ["--output", n]
    for k, (n, x) in enumerate(zip(named, inputs)):
        text = _encode(x, None, lib.ONNXOP_FORMAT_JSON, n)
        if len(text) <= INLINE:
            args += ["--in", f"{n}={text.decode()}"]
        else:
            path = os.path.join(tmp, f"input_{k}.pb")
            with open(path, "wb") as f:
                f.write(_encode(x, None, lib.ONNXOP_FORMAT_PB, n))
            args += ["--in", f"{n}={path}"]
    if rtol is not None:
        args += ["--rtol", repr(float(rtol))]
    if atol is not None:
        args += ["--atol", repr(float(atol))]
    return args


def _attribute(a, tmp):
    """`-a NAME:KIND=VALUE` for make, or UsageError for a kind it cannot take."""
    onnx = __import__("onnx")
    A = onnx.AttributeProto
    if a.type == A.INT:
        return f"{a.name}:int={a.i}"
    if a.type == A.FLOAT:
        return f"{a.name}:float={a.f!r}"
    if a.type == A.STRING:
        return f"{a.name}:string={a.s.decode('utf-8', 'surrogateescape')}"
    if a.type == A.INTS:
        return f"{a.name}:ints=[{', '.join(str(i) for i in a.ints)}]"
    if a.type == A.FLOATS:
        return f"{a.name}:floats=[{', '.join(repr(f) for f in a.floats)}]"
    if a.type == A.STRINGS:
        items = [s.decode("utf-8", "surrogateescape") for s in a.strings]
        if any(c in s for s in items for c in ",[]") or any(s != s.strip() for s in items):
            raise errors.UsageError(f"attribute {a.name!r}: strings holding ',', '[', ']' or outer blanks "
                                    "cannot go through onnxop make: give expect() a ModelProto")
        return f"{a.name}:strings=[{', '.join(items)}]"
    if a.type == A.TENSOR:
        path = os.path.join(tmp, f"attr_{a.name}.pb")
        with open(path, "wb") as f:
            f.write(a.t.SerializeToString())
        return f"{a.name}:tensor=@{path}"
    kind = A.AttributeType.Name(a.type)
    raise errors.UsageError(f"attribute {a.name!r} is a {kind}, which onnxop make does not take: "
                            "give expect() a ModelProto (onnx.helper.make_model)")


def _expect_model(model, inputs, name, outputs, suite, rtol, atol):
    """A model's case: the model as given, its inputs, onnxop's outputs."""
    s = Session(model)
    ins, outs = s.get_inputs(), s.get_outputs()
    if len(inputs) != len(ins):
        raise errors.UsageError(f"{len(inputs)} inputs for a model that takes {len(ins)}")
    got = s.run(None, {a.name: x for a, x in zip(ins, inputs)})
    _check(got, outputs, rtol, atol)
    case = os.path.join(suite, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    files = {os.path.join(case, "model.onnx"): model.SerializeToString()}
    for k, (a, x) in enumerate(zip(ins, inputs)):
        files[os.path.join(data, f"input_{k}.pb")] = _encode(x, a.type, lib.ONNXOP_FORMAT_PB, a.name)
    for k, (a, x) in enumerate(zip(outs, got)):
        files[os.path.join(data, f"output_{k}.pb")] = _encode(x, a.type, lib.ONNXOP_FORMAT_PB, a.name)
    info = {"provenance": {"onnxop": ffi.string(lib.onnxop_version()).decode(),
                           "python": "onnxop.expect", "model": "given"}}
    if rtol is not None:
        info["rtol"] = float(rtol)
    if atol is not None:
        info["atol"] = float(atol)
    files[os.path.join(case, "data.json")] = (json.dumps(info, indent="\t") + "\n").encode()
    for path, data_bytes in files.items():
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data_bytes)
        os.replace(tmp, path)
    return got
