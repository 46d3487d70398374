"""The node-test suite through the Python layer, beside `onnxop test` and
`onnxop run --out-dir` on the same cases (test_suite.py, test_reference.py)."""

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

from conftest import ONNXOP
from onnxop import values
from onnxop.capi import ffi, lib


def to_pb(x, type_str, name):
    """x as the .pb bytes the library writes for it, named name."""
    keep = []
    v = values.to_value(x, values.parse_type(type_str), keep)
    buf = ffi.new("void **")
    size = ffi.new("size_t *")
    err = ffi.new("onnxop_error **")
    try:
        if lib.onnxop_value_write_buffer(v, name.encode(), lib.ONNXOP_FORMAT_PB, buf, size, err):
            from onnxop import errors
            errors.raise_error(err)
        try:
            return ffi.unpack(ffi.cast("char *", buf[0]), size[0])
        finally:
            lib.onnxop_free(buf[0])
    finally:
        lib.onnxop_value_free(v)


def tolerances(case):
    """onnxop test's: rtol 1e-3, atol 1e-7, or the case's data.json."""
    rtol, atol = 1e-3, 1e-7
    path = os.path.join(case, "data.json")
    if os.path.exists(path):
        with open(path) as f:
            d = json.load(f)
        rtol, atol = d.get("rtol", rtol), d.get("atol", atol)
    return rtol, atol


def matches(got, want_pb, type_str, rtol, atol):
    """Whether got is the value of the .pb file want_pb within the tolerances (onnxop_compare)."""
    keep = []
    g = values.to_value(got, values.parse_type(type_str), keep)
    out = ffi.new("onnxop_value **")
    err = ffi.new("onnxop_error **")
    try:
        if lib.onnxop_value_read(want_pb.encode(), lib.ONNXOP_FORMAT_PB, type_str.encode() if type_str else ffi.NULL,
                                 out, err):
            lib.onnxop_error_free(err[0])
            return False
        try:
            return lib.onnxop_compare(g, out[0], atol, rtol, ffi.NULL, ffi.NULL) == 0
        finally:
            lib.onnxop_value_free(out[0])
    finally:
        lib.onnxop_value_free(g)


def cases(suite):
    return sorted(os.path.join(suite, d) for d in os.listdir(suite)
                  if d.startswith("test_") and os.path.isdir(os.path.join(suite, d)))


def data_sets(case):
    return sorted(os.path.join(case, d) for d in os.listdir(case) if d.startswith("test_data_set_"))


def files(data_set):
    """A data set's input_K.pb and output_K.pb, K from 0: as many as it holds."""
    names = os.listdir(data_set)
    count = {k: sum(1 for f in names if f.startswith(k + "_") and f.endswith(".pb")) for k in ("input", "output")}
    return tuple([os.path.join(data_set, f"{k}_{n}.pb") for n in range(count[k])] for k in ("input", "output"))


def cli_statuses(suite, *args):
    """`onnxop test --json SUITE`: case name -> status."""
    p = subprocess.run([ONNXOP, "test", "-q", "--json", *args, suite], capture_output=True, text=True)
    report = json.loads(p.stdout)
    return {c["name"]: c["status"]
            for c in report["cases"]}


def cli_outputs(suite, names, out_root, jobs=2):
    """`onnxop run --out-dir OUT_ROOT/NAME` on data set 0 of each case; the
    names whose run succeeded."""
    def one(name):
        case = os.path.join(suite, name)
        args = [ONNXOP, "run", os.path.join(case, "model.onnx")]
        for f in files(os.path.join(case, "test_data_set_0"))[0]:
            args += ["--in", f]
        args += ["--out-dir", os.path.join(out_root, name)]
        env = dict(os.environ, ONNXOP_SEED="0")
        return name, subprocess.run(args, capture_output=True, env=env).returncode == 0

    with ThreadPoolExecutor(jobs) as pool:
        return {name for name, ok in pool.map(one, names) if ok}
