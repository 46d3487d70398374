"""The 1802 cases of the node-test suite through Session.run: the cases that
pass are those `onnxop test` passes, and the outputs are the bytes `onnxop
run --out-dir` writes. Skipped, saying so, when the suite is absent."""

import os

import pytest

import onnxop
import suite
from conftest import need_suite
from onnxop import values


def run_case(case, make_runner):
    """'pass', 'fail', 'error' or 'unsupported' for a case run through the
    Python layer (make_runner(model_path) -> (runner, inputs, outputs): a
    runner(feeds) returns the outputs in order), and its outputs of data set 0."""
    first = None
    try:
        runner, inputs, outputs = make_runner(os.path.join(case, "model.onnx"))
        rtol, atol = suite.tolerances(case)
        status = "pass"
        for ds in suite.data_sets(case):
            ins, want = suite.files(ds)
            feeds = {inputs[k][0]: values.read_pb(f, inputs[k][1]) for k, f in enumerate(ins)}
            got = runner(feeds)
            if first is None:
                first = got
            if len(want) != len(got) or not all(suite.matches(g, w, outputs[k][1], rtol, atol)
                                                for k, (g, w) in enumerate(zip(got, want))):
                status = "fail"
    except onnxop.UnsupportedError:
        return "unsupported", None
    except onnxop.Error:
        return "error", None
    return status, first


def session_runner(path):
    s = onnxop.Session(path, seed=0)
    ins = [(a.name, a.type) for a in s.get_inputs()]
    outs = [(a.name, a.type) for a in s.get_outputs()]
    return (lambda feeds: s.run(None, feeds)), ins, outs


def check_suite(make_runner, tmp_path):
    root = need_suite()
    names = [os.path.basename(c) for c in suite.cases(root)]
    assert len(names) >= 1800
    want = suite.cli_statuses(root)
    got, first = {}, {}
    for name in names:
        got[name], first[name] = run_case(os.path.join(root, name), make_runner)
    passed = {n for n in names if got[n] == "pass"}
    cli_passed = {n for n in names if want.get(n) == "pass"}
    assert sorted(passed - cli_passed) == [] and sorted(cli_passed - passed) == []
    # unsupported where the command says so
    assert {n for n in names if got[n] == "unsupported"} == {n for n in names if want.get(n) == "unsupported"}
    # the bytes of `onnxop run --out-dir` for data set 0 of every case that runs
    ran = suite.cli_outputs(root, names, str(tmp_path))
    assert ran >= {n for n in names if first[n] is not None}
    differ = []
    for name in sorted(n for n in names if first[n] is not None):
        _, _, outs = make_runner(os.path.join(root, name, "model.onnx"))
        for k, ((out_name, out_type), value) in enumerate(zip(outs, first[name])):
            with open(os.path.join(tmp_path, name, f"output_{k}.pb"), "rb") as f:
                if suite.to_pb(value, out_type, out_name) != f.read():
                    differ.append(f"{name} output {k}")
    assert differ == []
    return len(passed)


def test_suite_through_session(tmp_path):
    assert check_suite(session_runner, tmp_path) >= 1790
