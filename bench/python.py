#!/usr/bin/python3
"""bench/python.py BUILD [SUITE]: the Python section of `make bench`.

1. A small node (Add of two float32[16]): Session.run's time against
   onnxop_run's through the C API on the same model and inputs (bench/
   api_run.c, built here against BUILD/libonnxop.a: inputs wrapped once,
   each run's outputs freed). The issue's target: at most 15 us above.
   Medians of ROUNDS rounds of N calls, the two interleaved.
2. The node-test suite SUITE (default ../shared/onnx-node-tests) through
   Session.run as `onnxop test` runs it (load the model and the inputs,
   run, compare with the expected outputs), against `onnxop test -j 1`.
   The target: at most twice. The better of ROUNDS2 of each.

Each is timed twice: CPU time (the process's, or the command's as a
child), which a machine other jobs share changes little, and wall time.
3. onnx.reference.ReferenceEvaluator beside onnxop.reference's on the
   suite, when the installed onnx has it (not Debian 12's onnx 1.12:
   then it says so).

ROUNDS (default 7), N (default 2000), ROUNDS2 (default 3) from the
environment.
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
B = sys.argv[1] if len(sys.argv) > 1 else "build"
SUITE = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("SHARED_SUITE", os.path.join(ROOT, "..", "shared",
                                                                                          "onnx-node-tests"))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
os.environ.setdefault("ONNXOP_LIBRARY", os.path.join(B, "libonnxop.so.0"))
os.environ.setdefault("ONNXOP_BUILD", B)

import numpy as np  # noqa: E402

import onnxop  # noqa: E402
from onnxop.reference import ReferenceEvaluator as OnnxopEvaluator  # noqa: E402
import suite as cases  # noqa: E402  (tests/python/suite.py: reading and comparing as onnxop test does)

ROUNDS = int(os.environ.get("ROUNDS", "7"))
N = int(os.environ.get("N", "2000"))
ROUNDS2 = int(os.environ.get("ROUNDS2", "3"))
X = os.path.join(B, "onnxop")


def small_node(tmp):
    subprocess.run([X, "make", "Add", "--input", "a:float32[16]", "--input", "b:float32[16]", "--case",
                    os.path.join(tmp, "add"), "--random", "1"], check=True, capture_output=True)
    model = os.path.join(tmp, "add", "model.onnx")
    ins = [os.path.join(tmp, "add", "test_data_set_0", f"input_{k}.pb") for k in range(2)]
    prog = os.path.join(tmp, "api_run")
    libs = subprocess.run(["pkg-config", "--libs", "libprotobuf-c", "libcjson", "zlib", "libpcre2-8"],
                          capture_output=True, text=True).stdout.split()
    subprocess.run(["cc", "-O2", "-I", os.path.join(ROOT, "include"), "-o", prog, os.path.join(HERE, "api_run.c"),
                    os.path.join(B, "libonnxop.a"), *libs, "-lunistring", "-lm", "-pthread"], check=True)
    s = onnxop.Session(model)
    feeds = {a.name: cases.read_value(f, a.type) for a, f in zip(s.get_inputs(), ins)}
    c_cpu, c_wall, py_cpu, py_wall = [], [], [], []
    for _ in range(ROUNDS):
        cpu, wall = subprocess.run([prog, model, str(N), "1", *ins], check=True, capture_output=True,
                                   text=True).stdout.split()
        c_cpu.append(float(cpu) / 1e3)
        c_wall.append(float(wall) / 1e3)
        for _ in range(100):
            s.run(None, feeds)
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(N):
            s.run(None, feeds)
        py_cpu.append((time.process_time() - c0) / N * 1e6)
        py_wall.append((time.perf_counter() - w0) / N * 1e6)
    med = statistics.median
    print(f"small node (Add, float32[16]), medians of {ROUNDS} rounds of {N} runs:")
    print(f"  CPU time: Session.run {med(py_cpu):.2f} us, onnxop_run {med(c_cpu):.2f} us: "
          f"{med(py_cpu) - med(c_cpu):.2f} us above (target: 15)")
    print(f"  wall time: Session.run {med(py_wall):.2f} us, onnxop_run {med(c_wall):.2f} us: "
          f"{med(py_wall) - med(c_wall):.2f} us above (minimums {min(py_wall):.2f} and {min(c_wall):.2f} us)")


def run_suite(make_runner):
    """Every case as onnxop test runs it, through make_runner(path): (CPU, wall) seconds."""
    c0, w0 = time.process_time(), time.perf_counter()
    for case in cases.cases(SUITE):
        try:
            runner, inputs, outputs = make_runner(os.path.join(case, "model.onnx"))
            rtol, atol = cases.tolerances(case)
            for ds in cases.data_sets(case):
                ins, want = cases.files(ds)
                feeds = {inputs[k][0]: cases.read_value(f, inputs[k][1]) for k, f in enumerate(ins)}
                got = runner(feeds)
                for k, (g, w) in enumerate(zip(got, want)):
                    cases.matches(g, w, outputs[k][1], rtol, atol)
        except onnxop.Error:
            pass
    return time.process_time() - c0, time.perf_counter() - w0


def cli_suite():
    """`onnxop test -j 1 SUITE`: (CPU, wall) seconds."""
    r0, w0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([X, "test", "-q", "-j", "1", SUITE], capture_output=True, env=dict(os.environ, ONNXOP_SEED="0"))
    r1, w = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - w0
    return r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, w


def session_runner(path):
    s = onnxop.Session(path, seed=0)
    return ((lambda feeds: s.run(None, feeds)), [(a.name, a.type) for a in s.get_inputs()],
            [(a.name, a.type) for a in s.get_outputs()])


def reference_runner(cls):
    def make(path):
        ref = cls(path)
        s = onnxop.Session(path)  # the declared types, for reading the files
        return ((lambda feeds: ref.run(None, feeds)), [(a.name, a.type) for a in s.get_inputs()],
                [(a.name, a.type) for a in s.get_outputs()])
    return make


def whole_suite():
    if not os.path.isdir(SUITE):
        print(f"the node-test suite {SUITE} is missing: the suite is not timed")
        return
    cli, py = [], []
    for _ in range(ROUNDS2):
        cli.append(cli_suite())
        py.append(run_suite(session_runner))
    n = len(cases.cases(SUITE))
    pc, cc = min(t[0] for t in py), min(t[0] for t in cli)
    pw, cw = min(t[1] for t in py), min(t[1] for t in cli)
    print(f"the suite ({n} cases), the best of {ROUNDS2}: CPU time Session.run {pc:.2f} s, onnxop test -j 1 "
          f"{cc:.2f} s: {pc / cc:.2f}x (target: 2); wall time {pw:.2f} s and {cw:.2f} s: {pw / cw:.2f}x")
    ours = run_suite(reference_runner(OnnxopEvaluator))
    try:
        from onnx.reference import ReferenceEvaluator
    except ImportError:
        import onnx
        print(f"onnxop.reference.ReferenceEvaluator on the suite: {ours[0]:.2f} s CPU; onnx {onnx.__version__} "
              "has no onnx.reference, so its ReferenceEvaluator is not timed beside it")
        return
    theirs = run_suite(reference_runner(ReferenceEvaluator))
    print(f"ReferenceEvaluator on the suite, CPU time: onnx's {theirs[0]:.2f} s, onnxop's {ours[0]:.2f} s "
          f"({theirs[0] / ours[0]:.1f}x)")


def main():
    print("Python (bench/python.py):")
    with tempfile.TemporaryDirectory(prefix="onnxop-bench-py-") as tmp:
        small_node(tmp)
    whole_suite()


if __name__ == "__main__":
    main()
