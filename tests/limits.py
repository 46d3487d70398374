#!/usr/bin/env python3
"""tests/limits.py BUILD: --max-memory and --timeout hold, measured from outside.

Each case runs BUILD/onnxop as a child and measures its peak resident memory
(wait4's ru_maxrss) and its wall time. A case passes when onnxop exits with
the expected status and message, its peak RSS stays under the memory limit
plus SLACK (32 MiB: the binary, its libraries, stdio buffers), and it ends
within its time budget. A watchdog kills a child whose RSS passes twice the
bound or whose time runs out, so that a regression can't take the machine down.

The inputs are written here from a few lines each (no numpy, no onnx package:
protobuf by hand, as tests/bad/gen.c does):
  json_big       10 MB of JSON numbers: cJSON's tree would take ~300 MB
  png_bomb       a 67-byte PNG whose header claims 2^31-1 x 2^31-1 pixels
  model_big      a 6 MB model of 3 million empty nodes: protobuf-c would
                 unpack it into ~300 MB of structs
  pb_seq_big     the same for a .pb value: a SequenceProto of 3 million empty
                 TensorProtos
  npz_big        an .npz of 80 MB, stored, under a 64 MiB limit
  npz_bomb       an .npz member of 60 MB of zeros, deflated to ~60 KB (this
                 one held already: the declared size is checked)
  stdin_pipe_big 160 MB of .npy through a pipe to --in -
  model_weights  a model of 24 MiB of weights (raw_data) under 64 MiB: loads
  model_weights_once  40 MiB of weights in five initializers under 64 MiB:
                 loads and runs (the weights are read once and held once)
  matmul_weights_once  five MatMuls over 40 MiB of constant weights run in a
                 peak RSS of 72 MiB: packed once, their originals given back
  chain_reuse    ConstantOfShape to 16 MB of floats, eight Relus, a
                 ReduceSum, under --max-memory 64M: it fits because each
                 value's memory is given back after its last reader (nine
                 16 MB values held to the end would not)
  adds           twenty Adds of (1, 4096) + (4096, 1) initializers, each
                 summed: under --max-memory 200M it runs (constant folding
                 held every 64 MiB result)
  fold_spin      spin.onnx's Loop, then twenty such Adds at 8192: --timeout
                 0.5 is reached within 3 s (folding took 8.6-18 s first)
  npz_members    an .npz of 2,000 one-float members (np.savez's layout):
                 `show` under --max-memory 64M (it crashed when formatting a
                 member's name failed), and `run` of a Sum of 2,000 inputs
                 from it under 200M (each member re-read the archive: 15 s
                 and 1.6 GB)
  npz_directory  an .npz of 100,000 members, one read (the directory's
                 names were compared pairwise: 75 s)
  save_loop      --save-intermediates-subgraphs of a Loop of 3,000
                 iterations: bounded in CPU time (the names of the files
                 were found by trying ~2, ~3, ... against every name taken:
                 minutes), the files on disk named as documented
  tolerances_big a --tolerances file of 200,000 lines (grown one line at a
                 time: 30 s under ASan)
  limit_in_use   --max-memory refusals say what is in use
  loop_timeout   a Loop of 2^62 iterations with a constant-memory body under
                 --timeout 0.5 (and ONNXOP_TIMEOUT), for run and bench; and
                 make --case under a timeout that has passed before it runs;
                 as a test case, under `onnxop --timeout 1 test`
and usage errors for malformed --timeout / ONNXOP_TIMEOUT values.

With BUILD ending in /asan, RSS is not checked (the sanitizer's shadow memory
and quarantine are part of it); statuses, messages and times still are.

  tests/limits.py BUILD --seq-bench N...   time a Loop of N SequenceInserts
                                           at the end (not a test: a report)
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib

MIB = 1 << 20
SLACK = 32 * MIB


# ---- protobuf by hand: a message is a list of (field << 3 | wire type, payload) ----
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_int(field, v):
    return varint(field << 3) + varint(v & 0xFFFFFFFFFFFFFFFF)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(field << 3 | 2) + varint(len(b)) + b


def tensor_type(elem):  # TypeProto { tensor_type { elem_type } }
    return f_bytes(1, f_int(1, elem))


def seq_type(inner):  # TypeProto { sequence_type { elem_type } }
    return f_bytes(4, f_bytes(1, inner))


def value_info(name, typ):
    return f_bytes(1, name) + f_bytes(2, typ)


def node(op, ins, outs, name, attrs=b""):
    b = b"".join(f_bytes(1, i) for i in ins) + b"".join(f_bytes(2, o) for o in outs)
    return b + f_bytes(3, name) + f_bytes(4, op) + attrs


def attr_int(name, v):
    return f_bytes(5, f_bytes(1, name) + f_int(3, v) + f_int(20, 2))


def attr_graph(name, g):
    return f_bytes(5, f_bytes(1, name) + f_bytes(6, g) + f_int(20, 5))


def graph(nodes, inputs, outputs, name="g"):
    b = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, name)
    b += b"".join(f_bytes(11, i) for i in inputs) + b"".join(f_bytes(12, o) for o in outputs)
    return b


def model(g, opset):
    return f_int(1, 8) + f_bytes(8, f_bytes(1, "") + f_int(2, opset)) + f_bytes(7, g)


FLOAT, UINT8, INT64, BOOL = 1, 2, 7, 9


def npy(dtype, shape, data):
    """A version 1.0 .npy file: header padded to 64 bytes, then the data."""
    sh = "(" + "".join("%d," % d for d in shape) + ")"
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, sh)
    pad = (64 - (10 + len(h) + 1) % 64) % 64
    h = h + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def generate(d):
    os.makedirs(d, exist_ok=True)
    x = value_info("x", tensor_type(FLOAT))
    write(f"{d}/id.onnx", model(graph([node("Identity", ["x"], ["y"], "id")], [x], [value_info("y", tensor_type(FLOAT))]), 21))
    seqf = seq_type(tensor_type(FLOAT))
    write(f"{d}/id_seq.onnx", model(graph([node("Identity", ["x"], ["y"], "id")], [value_info("x", seqf)], [value_info("y", seqf)]), 21))
    write(f"{d}/img.onnx", model(graph([node("ImageDecoder", ["s"], ["img"], "dec")],
                                       [value_info("s", tensor_type(UINT8))], [value_info("img", tensor_type(UINT8))]), 20))
    # 5 million zeros: 10 MB of text, 5 million cJSON nodes
    n = 5_000_000
    write(f"{d}/big.json", b'{"dtype": "float32", "shape": [%d], "data": [' % n + b"0," * (n - 1) + b"0]}")
    # PNG: signature, IHDR (2^31-1 x 2^31-1, 8-bit RGB), one empty IDAT, IEND
    w = h = 0x7FFFFFFF
    png = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += png_chunk(b"IDAT", zlib.compress(b"")) + png_chunk(b"IEND", b"")
    write(f"{d}/bomb.png.npy", npy("|u1", [len(png)], png))
    # a model of 3 million empty NodeProtos (2 bytes each): 6 MB
    g = f_bytes(1, b"") * 3_000_000 + f_bytes(2, "g")
    write(f"{d}/big.onnx", model(g, 21))
    # a SequenceProto of 3 million empty TensorProtos (tensor_values = 3)
    write(f"{d}/big_seq.pb", f_int(2, 1) + f_bytes(3, b"") * 3_000_000)
    # an .npz of 80 MB, stored
    with zipfile.ZipFile(f"{d}/big.npz", "w", zipfile.ZIP_STORED) as z:
        z.writestr("x.npy", npy("<f4", [20_000_000], bytes(80_000_000)))
    # 160 MB for standard input, through a pipe
    write(f"{d}/big.npy", npy("<f4", [40_000_000], bytes(160_000_000)))
    # a model whose initializer holds 24 MiB (raw_data), over a third of 64 MiB
    init = f_int(1, 6 * MIB) + f_int(2, FLOAT) + f_bytes(8, "w") + f_bytes(9, bytes(24 * MIB))
    write(f"{d}/weights.onnx", model(graph([node("Identity", ["w"], ["y"], "id")], [],
                                           [value_info("y", tensor_type(FLOAT))]) + f_bytes(5, init), 21))  # 5: initializer
    # 40 MiB of weights in five initializers of 8 MiB (raw_data), under 64 MiB
    inits = b"".join(f_bytes(5, f_int(1, 2 * MIB) + f_int(2, FLOAT) + f_bytes(8, f"w{k}") +
                             f_bytes(9, bytes([k]) * (8 * MIB))) for k in range(5))
    write(f"{d}/weights5.onnx", model(graph([node("Identity", ["w4"], ["y"], "id")], [],
                                            [value_info("y", tensor_type(FLOAT))]) + inits, 21))
    # five MatMuls x (4, 1024) @ Wk (1024, 2048): 40 MiB of weights that only
    # MatMul reads, summed
    winit = b"".join(f_bytes(5, f_int(1, 1024) + f_int(1, 2048) + f_int(2, FLOAT) + f_bytes(8, f"w{k}") +
                             f_bytes(9, struct.pack("<f", 0.001 * (k + 1)) * (1024 * 2048))) for k in range(5))
    mms = [node("MatMul", ["x", f"w{k}"], [f"p{k}"], f"mm{k}") for k in range(5)]
    write(f"{d}/matmuls.onnx", model(graph(mms + [node("Sum", [f"p{k}" for k in range(5)], ["y"], "sum")],
                                           [value_info("x", tensor_type(FLOAT))],
                                           [value_info("y", tensor_type(FLOAT))]) + winit, 21))
    # an .npz member of 60 MB of zeros, deflated (about 60 KB)
    with zipfile.ZipFile(f"{d}/bomb.npz", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.npy", npy("<f4", [15_000_000], bytes(60_000_000)))
    # Loop(M, cond, v) with body (i, cond_in, v_in) -> (Identity(cond_in), Identity(v_in))
    body = graph([node("Identity", ["cond_in"], ["cond_out"], "keep_going"), node("Identity", ["v_in"], ["v_out"], "same")],
                 [value_info("i", tensor_type(INT64)), value_info("cond_in", tensor_type(BOOL)),
                  value_info("v_in", tensor_type(FLOAT))],
                 [value_info("cond_out", tensor_type(BOOL)), value_info("v_out", tensor_type(FLOAT))], "body")
    write(f"{d}/spin.onnx", model(graph([node("Loop", ["M", "c", "v"], ["v_final"], "spin", attr_graph("body", body))],
                                        [value_info("M", tensor_type(INT64)), value_info("c", tensor_type(BOOL)),
                                         value_info("v", tensor_type(FLOAT))],
                                        [value_info("v_final", tensor_type(FLOAT))]), 16))
    # the same Loop as a test case of 2^62 iterations
    os.makedirs(f"{d}/spin_cases/test_spin/test_data_set_0", exist_ok=True)
    write(f"{d}/spin_cases/test_spin/model.onnx", open(f"{d}/spin.onnx", "rb").read())
    ds = f"{d}/spin_cases/test_spin/test_data_set_0"
    write(f"{ds}/input_0.pb", f_int(2, INT64) + f_bytes(9, struct.pack("<q", 1 << 62)))
    write(f"{ds}/input_1.pb", f_int(2, BOOL) + f_bytes(9, b"\x01"))
    write(f"{ds}/input_2.pb", f_int(2, FLOAT) + f_bytes(9, struct.pack("<f", 1)))
    write(f"{ds}/output_0.pb", f_int(2, FLOAT) + f_bytes(9, struct.pack("<f", 1)))
    # ConstantOfShape(n) (floats), eight Relus, ReduceSum over all axes
    chain = [node("ConstantOfShape", ["n"], ["r0"], "fill")]
    chain += [node("Relu", [f"r{k}"], [f"r{k + 1}"], f"relu{k}") for k in range(8)]
    chain.append(node("ReduceSum", ["r8"], ["s"], "sum", attr_int("keepdims", 0)))
    write(f"{d}/chain.onnx", model(graph(chain, [value_info("n", tensor_type(INT64))],
                                         [value_info("s", tensor_type(FLOAT))]), 13))
    # K Adds of a: (1, S) + b: (S, 1) initializers, each (S, S) summed by a
    # ReduceSum (issue 27: constant folding once computed and kept every
    # Add, 5.2 GB for twenty of S = 8192); fold_spin: the same after a Loop
    # of 2^62 iterations (spin.onnx's)
    def adds(k, side, first=()):
        ones = lambda n: struct.pack("<f", 1) * n
        init = lambda name, d0, d1: f_int(1, d0) + f_int(1, d1) + f_int(2, FLOAT) + f_bytes(8, name) + f_bytes(9, ones(d0 * d1))
        nodes, outs = list(first), []
        for i in range(k):
            nodes.append(node("Add", ["a", "b"], [f"s{i}"], f"add{i}"))
            nodes.append(node("ReduceSum", [f"s{i}"], [f"r{i}"], f"sum{i}", attr_int("keepdims", 0)))
            outs.append(value_info(f"r{i}", tensor_type(FLOAT)))
        return nodes, outs, f_bytes(5, init("a", 1, side)) + f_bytes(5, init("b", side, 1))

    nodes, outs, inits = adds(20, 4096)
    write(f"{d}/adds.onnx", model(graph(nodes, [], outs) + inits, 13))
    spin_node = node("Loop", ["M", "c", "v"], ["v_final"], "spin", attr_graph("body", body))
    nodes, outs, inits = adds(20, 8192, [spin_node])
    write(f"{d}/fold_spin.onnx", model(graph(nodes, [value_info("M", tensor_type(INT64)), value_info("c", tensor_type(BOOL)),
                                                     value_info("v", tensor_type(FLOAT))],
                                             [value_info("v_final", tensor_type(FLOAT))] + outs) + inits, 16))
    # an .npz of 2,000 one-float members m0..m1999, stored as np.savez stores them,
    # and a Sum of 2,000 inputs of those names
    one = lambda v: npy("<f4", [1], struct.pack("<f", v))
    with zipfile.ZipFile(f"{d}/members.npz", "w", zipfile.ZIP_STORED) as z:
        for k in range(2000):
            z.writestr(f"m{k}.npy", one(k))
    write(f"{d}/sum2000.onnx", model(graph([node("Sum", [f"m{k}" for k in range(2000)], ["y"], "sum")],
                                           [value_info(f"m{k}", tensor_type(FLOAT)) for k in range(2000)],
                                           [value_info("y", tensor_type(FLOAT))]), 13))
    # an .npz of 100,000 members (zip64: more than 65,535)
    with zipfile.ZipFile(f"{d}/many.npz", "w", zipfile.ZIP_STORED) as z:
        for k in range(100_000):
            z.writestr(f"m{k}.npy", one(1))
    # the spin Loop, after a main-graph value with the name the body's value
    # has: the first iteration's file is v_out~2
    write(f"{d}/spin_named.onnx", model(graph([node("Identity", ["v"], ["v_out"], "named"),
                                               node("Loop", ["M", "c", "v_out"], ["v_final"], "spin", attr_graph("body", body))],
                                              [value_info("M", tensor_type(INT64)), value_info("c", tensor_type(BOOL)),
                                               value_info("v", tensor_type(FLOAT))],
                                              [value_info("v_final", tensor_type(FLOAT))]), 16))
    # a case that passes, and a tolerance file of 200,000 lines that name other cases
    ds = f"{d}/id_cases/test_id/test_data_set_0"
    os.makedirs(ds, exist_ok=True)
    write(f"{d}/id_cases/test_id/model.onnx", open(f"{d}/id.onnx", "rb").read())
    write(f"{ds}/input_0.pb", f_int(1, 1) + f_int(2, FLOAT) + f_bytes(9, struct.pack("<f", 1)))
    write(f"{ds}/output_0.pb", f_int(1, 1) + f_int(2, FLOAT) + f_bytes(9, struct.pack("<f", 1.25)))
    write(f"{d}/tol_big.txt", b"".join(b"test_x%d atol=0.1\n" % k for k in range(200_000)) + b"test_id rtol=0.5\n")
    # Loop(M, "", s) with body (i, cond_in, s_in) -> (Identity(cond_in), SequenceInsert(s_in, i));
    # the graph gives SequenceLength(s_final)
    seqi = seq_type(tensor_type(INT64))
    body = graph([node("Identity", ["cond_in"], ["cond_out"], "keep_going"), node("SequenceInsert", ["s_in", "i"], ["s_out"], "append")],
                 [value_info("i", tensor_type(INT64)), value_info("cond_in", tensor_type(BOOL)), value_info("s_in", seqi)],
                 [value_info("cond_out", tensor_type(BOOL)), value_info("s_out", seqi)], "body")
    write(f"{d}/grow.onnx", model(graph([node("SequenceEmpty", [], ["s0"], "empty", attr_int("dtype", INT64)),
                                         node("Loop", ["M", "", "s0"], ["s_final"], "grow", attr_graph("body", body)),
                                         node("SequenceLength", ["s_final"], ["n"], "length")],
                                        [value_info("M", tensor_type(INT64))], [value_info("n", tensor_type(INT64))]), 16))


# ---- running a child: exit status, stderr, peak RSS, time ----
def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(cmd, env, out_dir, max_rss, max_secs):
    """Run cmd; (exit status, stderr, peak RSS in bytes, seconds, killed why,
    CPU seconds)."""
    err_path = f"{out_dir}/stderr.txt"
    with open(err_path, "wb") as err, open(os.devnull, "wb") as null:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=null, stderr=err, stdin=subprocess.DEVNULL, env=env)
        killed = ""
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            secs = time.monotonic() - t0
            if not killed and max_rss and rss_kib(p.pid) * 1024 > 2 * max_rss:
                killed = "killed by the test: RSS above twice the bound"
                os.kill(p.pid, signal.SIGKILL)
            elif not killed and secs > max_secs:
                killed = f"killed by the test after {max_secs:.0f} s"
                os.kill(p.pid, signal.SIGKILL)
            time.sleep(0.005)
        secs = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    with open(err_path, "rb") as f:
        stderr = f.read().decode(errors="replace")
    return p.returncode, stderr, ru.ru_maxrss * 1024, secs, killed, ru.ru_utime + ru.ru_stime


class Run:
    def __init__(self, build):
        self.x = f"{build}/onnxop"
        self.check_rss = not build.rstrip("/").endswith("asan")
        self.passed = self.failed = 0

    def case(self, name, args, code, frags, limit=None, max_secs=60, env=None, out_dir=None, pipe_in=None,
             stdout_too=False, max_cpu=None, then=None, max_rss=None):
        """limit: the --max-memory given (bytes), for the RSS bound; pipe_in: a
        file fed to standard input through a pipe (cat FILE | onnxop ...; the
        peak RSS is then the larger of the two); stdout_too: frags are looked
        for in stdout too; max_cpu: a bound on the CPU seconds the child
        takes (for work whose wall time the file system or a busy machine
        blurs); then: a function called after the run that returns a list of
        what is wrong (files on disk, say); max_rss: a bound on the peak RSS
        (bytes) of its own, without --max-memory."""
        e = dict(os.environ)
        e.pop("ONNXOP_TIMEOUT", None)
        e.pop("ONNXOP_MAX_MEMORY", None)
        e.update(env or {})
        bound = limit + SLACK if limit and self.check_rss else 0
        if max_rss and self.check_rss:
            bound = max_rss
        cmd = [self.x] + args
        if pipe_in:
            cmd = ["sh", "-c", 'cat "$0" | "$@"', pipe_in] + cmd
        if stdout_too:
            cmd = ["sh", "-c", '"$@" 1>&2', "sh"] + cmd
        got, err, rss, secs, killed, cpu = measure(cmd, e, out_dir, bound, max_secs)
        why = []
        if killed:
            why.append(killed)
        if got != code:
            why.append(f"exit {got}, expected {code}")
        if "Sanitizer" in err or "runtime error:" in err:
            why.append("a sanitizer report")
        for f in frags:
            if f not in err:
                why.append(f"stderr lacks '{f}'")
        if bound and rss > bound:
            why.append(f"peak RSS {rss / MIB:.0f} MiB, over the limit + {SLACK // MIB} MiB ({bound / MIB:.0f} MiB)")
        if secs > max_secs:
            why.append(f"took {secs:.1f} s, more than {max_secs} s")
        if max_cpu is not None and cpu > max_cpu:
            why.append(f"took {cpu:.1f} s of CPU, more than {max_cpu} s")
        if then and not killed:
            why += then()
        if why:
            self.failed += 1
            print(f"FAIL {name}: " + "; ".join(why) + f"\n    stderr: {err.strip()[:400]}")
        else:
            self.passed += 1
            print(f"ok {name}: exit {got}, peak RSS {rss / MIB:.0f} MiB, {secs:.2f} s")


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    d = f"{build}/limits-tests"
    if len(sys.argv) > 2 and sys.argv[2] == "--generate":
        generate(d)
        return 0
    # in a child: a parent's RSS counts in ru_maxrss of the children it forks
    # (the kernel keeps the high-water mark across exec)
    subprocess.run([sys.executable, __file__, build, "--generate"], check=True)
    r = Run(build)
    if len(sys.argv) > 2 and sys.argv[2] == "--seq-bench":
        for n in sys.argv[3:]:
            t0 = time.monotonic()
            p = subprocess.run([r.x, "run", f"{d}/grow.onnx", "--in", f"int64[]:{n}"], capture_output=True, text=True)
            print(f"{n} SequenceInserts in a Loop: {time.monotonic() - t0:.2f} s, exit {p.returncode}: {p.stdout.strip()} {p.stderr.strip()}")
        return 0
    lim = 64 * MIB
    mm = ["--max-memory", "64M"]
    reached = "memory limit"
    c = lambda name, *a, **k: r.case(name, *a, out_dir=d, **k)
    c("json_big", mm + ["run", f"{d}/id.onnx", "--in", f"{d}/big.json"], 1, [reached, "big.json"], lim)
    c("png_bomb", mm + ["run", f"{d}/img.onnx", "--in", f"{d}/bomb.png.npy"], 1,
      [reached, "2147483647 x 2147483647", "node 'dec'"], lim, max_secs=10)
    c("model_big", mm + ["run", f"{d}/big.onnx"], 1, [reached, "big.onnx"], lim)
    c("model_big_info", mm + ["info", f"{d}/big.onnx"], 1, [reached, "big.onnx"], lim)
    c("pb_seq_big", mm + ["run", f"{d}/id_seq.onnx", "--in", f"{d}/big_seq.pb"], 1, [reached, "big_seq.pb"], lim)
    c("npz_big", mm + ["run", f"{d}/id.onnx", "--in", f"{d}/big.npz"], 1, [reached, "big.npz"], lim)
    c("npz_bomb", mm + ["run", f"{d}/id.onnx", "--in", f"{d}/bomb.npz"], 1, [reached, "bomb.npz"], lim)
    # standard input through a pipe is counted as it is read: refused once
    # the buffer would pass the limit, not after it has taken all 160 MB
    c("stdin_pipe_big", mm + ["run", f"{d}/id.onnx", "--in", "-"], 1, [reached, "standard input"], lim,
      pipe_in=f"{d}/big.npy")
    # the model file is read into one buffer of its size, dropped once
    # unpacked: 24 MiB of weights load under 64 MiB (a doubling buffer of
    # 32 MiB, kept while the weights were decoded, passed the limit)
    c("model_weights", mm + ["info", f"{d}/weights.onnx"], 0, [], lim)
    # the weights are read once and held once (proto/strip.c): 40 MiB of
    # them load and run under 64 MiB (read whole and then unpacked, they
    # were held twice: 80 MiB)
    c("model_weights_once", mm + ["info", f"{d}/weights5.onnx"], 0, [], lim)
    out5 = f"{d}/w5_out/output_0.pb"
    shutil.rmtree(f"{d}/w5_out", ignore_errors=True)
    c("model_weights_once_run", mm + ["run", f"{d}/weights5.onnx", "--out-dir", f"{d}/w5_out"], 0, [], lim,
      then=lambda: [] if os.path.exists(out5) and os.path.getsize(out5) > 8 * MIB else [f"{out5}: not 8 MiB of floats"])
    # MatMul's weights are packed once and their originals given back: 40 MiB
    # of them run in a peak of 40 MiB + 32 (held beside their packed forms:
    # 80 + 32)
    c("matmul_weights_once", ["run", f"{d}/matmuls.onnx", "--in", "x=float32[4,1024]:" + ",".join(["1"] * 4096)],
      0, [], max_rss=72 * MIB)
    # an input whose K does not fit a MatMul whose B was given back: the
    # shapes are said (B was rebuilt first, and under 86 MiB that ran out
    # of memory instead)
    c("matmul_released_bad_k", ["--max-memory", "86M", "run", f"{d}/matmuls.onnx", "--in",
                                "x=float32[4,1000]:" + ",".join(["1"] * 4000)],
      1, ["node 'mm0' MatMul-13: inner dimensions differ: a is (4, 1000), b is (1024, 2048)"], 86 * MIB)
    c("json_big_env", ["run", f"{d}/id.onnx", "--in", f"{d}/big.json"], 1, [reached], lim,
      env={"ONNXOP_MAX_MEMORY": "64M"})

    c("chain_reuse", mm + ["run", f"{d}/chain.onnx", "--in", "int64[1]:4194304"], 0, [], lim)

    # .npz members: the archive and its directory read once for all of them
    c("npz_members_show", mm + ["show", f"{d}/members.npz"], 0, [], lim, max_secs=20)
    c("npz_members_run", ["--max-memory", "200M", "run", f"{d}/sum2000.onnx", "--in", f"{d}/members.npz"], 0, [],
      200 * MIB, max_secs=20)
    c("npz_directory", ["run", f"{d}/id.onnx", "--in", f"{d}/many.npz:m99999"], 0, [], max_secs=20)

    # --save-intermediates-subgraphs of 3,000 Loop iterations: every value
    # its file, the clashes numbered ~2, ~3, ... around a name a value has
    # (in memory where the system has a tmpfs: ext4 can take half a minute to
    # create 6,000 files where as many were just deleted)
    save = tempfile.mkdtemp(prefix="onnxop-limits-", dir="/dev/shm" if os.path.isdir("/dev/shm") else d) + "/saved"

    def saved_files():
        try:
            files = set(os.listdir(save))
            index = json.load(open(f"{save}/index.json"))["values"]
        except (OSError, ValueError) as x:
            return [f"{save}: {x}"]
        want = {"v_out.pb", "v_final.pb", "index.json", "cond_out.pb"}
        want |= {f"v_out~{k}.pb" for k in range(2, 3002)} | {f"cond_out~{k}.pb" for k in range(2, 3001)}
        why = []
        if files != want:
            why.append(f"{save} holds {len(files)} files, not the {len(want)} expected: "
                       f"{sorted(files - want)[:5]} more, {sorted(want - files)[:5]} missing")
        if len(index) != len(want) - 1 or {x["file"] for x in index} != want - {"index.json"}:
            why.append("index.json does not list each file once")
        return why
    shutil.rmtree(save, ignore_errors=True)
    c("save_loop", ["run", f"{d}/spin_named.onnx", "--in", "int64[]:3000", "--in", "bool[]:1", "--in", "float32[]:1",
                    "--save-intermediates", save, "--save-intermediates-subgraphs"], 0, [], max_secs=60, max_cpu=10,
      then=saved_files)
    shutil.rmtree(os.path.dirname(save), ignore_errors=True)

    # 200,000 tolerance lines, read in linear time
    c("tolerances_big", ["test", "--tolerances", f"{d}/tol_big.txt", f"{d}/id_cases"], 0, ["1 passed, 0 failed"],
      max_secs=20, stdout_too=True)

    # a refusal says what is in use when that is why (the model, inputs and
    # arenas hold most of these limits; the first allocation they refuse
    # differs)
    for m in ["800000", "1000000", "1048576"]:
        c(f"limit_in_use_{m}", ["--max-memory", m, "run", f"{d}/id.onnx", "--in", "float32[4]:1,2,3,4"], 1,
          ["memory limit", " bytes are in use"], max_secs=10)

    # --timeout: a Loop of 2^62 iterations stops within the time limit
    spin = [f"{d}/spin.onnx", "--in", '{"dtype": "int64", "shape": [], "data": "4611686018427387904"}', "--in", "bool[]:1", "--in", "float32[]:1"]
    msg = ["node 'spin' Loop-16", "time limit of 0.5 s"]
    c("loop_timeout_run", ["run", "--timeout", "0.5"] + spin, 1, msg, max_secs=3)
    c("loop_timeout_first", ["--timeout", "0.5", "run"] + spin, 1, msg, max_secs=3)
    c("loop_timeout_env", ["run"] + spin, 1, ["node 'spin' Loop-16", "time limit of 0.5 s", "ONNXOP_TIMEOUT"],
      max_secs=3, env={"ONNXOP_TIMEOUT": "0.5"})
    c("loop_timeout_bench", ["bench", "--timeout", "0.5"] + spin, 1, msg, max_secs=3)
    c("loop_timeout_over_env", ["run", "--timeout", "0.25"] + spin, 1, ["time limit of 0.25 s"], max_secs=3,
      env={"ONNXOP_TIMEOUT": "100"})
    c("make_case_timeout", ["make", "Identity", "--opset", "21", "--input", "x:float32[1]", "--case", f"{d}/case", "--in", "float32[1]:1",
                            "--timeout", "0.000001"], 1, ["node 'node' Identity-21", "time limit of 1e-06 s"], max_secs=5)
    # a --timeout before `test` is test's own, per case
    c("test_timeout_global", ["--timeout", "1", "test", f"{d}/spin_cases"], 1,
      ["TIMEOUT test_spin: timed out after 1 s", "0 passed, 1 failed"], max_secs=10, stdout_too=True)
    c("test_timeout_global_decimal", ["--timeout", "0.5", "test", f"{d}/spin_cases"], 1,
      ["TIMEOUT test_spin: timed out after 0.5 s"], max_secs=5, stdout_too=True)
    c("test_timeout_bad", ["test", "--timeout=0", f"{d}/spin_cases"], 2,
      ["--timeout needs a number of seconds above 0"], max_secs=5)
    c("loop_short_within_timeout", ["run", "--timeout", "30", f"{d}/spin.onnx", "--in", "int64[]:1000", "--in", "bool[]:1",
                                    "--in", "float32[]:1"], 0, [], max_secs=30)
    for bad in ["-1", "nan", "abc", "", "1e400", "0x10", "inf"]:
        c(f"timeout_bad_{bad or 'empty'}", ["run", "--timeout", bad] + spin, 2, ["--timeout", f"'{bad}'"], max_secs=5)
    c("timeout_bad_env", ["run"] + spin, 2, ["ONNXOP_TIMEOUT", "'-2'"], max_secs=5, env={"ONNXOP_TIMEOUT": "-2"})
    c("timeout_missing", ["run"] + spin + ["--timeout"], 2, ["--timeout needs"], max_secs=5)

    # load time: constant folding keeps to its budget (twenty 64 MiB Adds of
    # initializers run under 200M: the model was refused, its folds holding
    # 1.25 GB), and --timeout bounds loading too (the twenty Adds at 8192
    # took 8.6-18 s to fold before the run's first node was reached)
    c("fold_adds", ["--max-memory", "200M", "run", f"{d}/adds.onnx"], 0, [], 200 * MIB, max_secs=60)
    c("fold_timeout", ["run", "--timeout", "0.5", f"{d}/fold_spin.onnx"] + spin[1:], 1, msg, max_secs=3)

    print(f"limits: {r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
