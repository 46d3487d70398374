#!/usr/bin/env python3
"""tests/faults.py BUILD [--full] [--suite=DIR] [--sites] [NAME...]: every
allocation failure is handled (DIR: ../shared/onnx-node-tests, for the
kernels scenario's cases beside Debian's; NAME: only these scenarios).

Fault injection as SQLite's tests do it. BUILD must be a test build (the ASan
build: compiled with -DOX_FAULT_INJECTION), where ONNXOP_FAIL_ALLOC=N makes
the N-th allocation request of the process fail (core/arena.h lists what
counts: every arena allocation, ox_mem_* and ox_heap_* call, so also the
buffers of cJSON, protobuf-c, zlib, the image decoders and io/'s ox_buf and
ox_out) and prints one line naming its callers.

Each scenario below (a CLI command on small inputs) runs once failing
nothing (the reference), with ONNXOP_FAIL_ALLOC_TRACE naming the callers of
every request; then once for each request N whose call path (its DEPTH = 2
innermost callers outside the allocators, as source lines; FAULT_DEPTH=K
for more) no earlier request of any scenario had, with ONNXOP_FAIL_ALLOC=N:
a Loop's 1000 iterations through one path cost one run, not 1000, and the
model loading every scenario shares is failed once (--full: every N, some
20000 runs). Deeper keys fail the same sites more often: 3 and 5 gave ~850
and ~1000 runs for the same 335 sites, and no more defects. Each failing run must:
  - exit 1, with "out of memory" in its output (ox_oom's message);
  - not crash, and print no sanitizer report (ASan, UBSan, and LeakSanitizer:
    detect_leaks=1, so nothing is leaked on the way out);
  - leave no file behind (no output, no temporary, no folder) in its
    working folder (the inputs are elsewhere, read only).
A run may also survive its failure (GEMM falls back to a plain loop when its
packing buffers are refused): then it must exit 0 and leave the reference's
output, byte for byte.

At the end: how many runs, how many distinct allocation sites were failed
(the first caller outside core/arena.c and io/buf.c, as file:line, by
addr2line), and the failures, each with its N and callers.
"""
import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

JOBS = int(os.environ.get("FAULT_JOBS", "2"))
DEPTH = int(os.environ.get("FAULT_DEPTH", "2"))     # a call path: the innermost DEPTH callers outside the allocators
DEBIAN = "/usr/share/libonnx-testdata/data/node"
# node-test cases for the kernels scenario, one or two per op family (those
# of ../shared/onnx-node-tests, or else Debian's, that exist)
KERNELS = """conv_with_strides_padding convtranspose_1d deform_conv_with_padding gemm_default_matrix_bias
matmul_2d einsum_batch_matmul maxpool_2d_pads averagepool_2d_default lppool_2d_default lstm_defaults
gru_defaults rnn_seq_length dft stft melweightmatrix blackmanwindow quantizelinear dequantizelinear
resize_upsample_scales_linear nonmaxsuppression_center_point_box_format top_k scan9_sum
layer_normalization_2d_axis0 instancenorm_example group_normalization_example batchnorm_example gather_0
scatter_elements_with_axis reduce_sum_default_axes_keepdims_example cumsum_1d
tfidfvectorizer_tf_only_bigrams_skip0 unique_sorted_with_axis roialign_aligned_false gridsample col2im
center_crop_pad_crop mvn affine_grid_2d rotary_embedding attention_3d regex_full_match_basic
string_split_basic string_concat strnormalizer_export_monday_casesensintive_lower
ai_onnx_ml_label_encoder_string_int ai_onnx_ml_array_feature_extractor ai_onnx_ml_tree_ensemble_single_tree
image_decoder_decode_jpeg_bgr image_decoder_decode_png_rgb softmax_cross_entropy_mean
sequence_map_extract_shapes split_to_sequence_1 optional_has_element_optional_input hardmax_example
bitshift_right_uint8 loop13_seq if_opt tile expand_dim_changed slice concat_2d_axis_0
transpose_all_permutations_0 where_example compress_0 onehot_with_axis depthtospace_crd_mode
reshape_reordered_all_dims qlinearconv qlinearmatmul_2D_uint8_float32 dynamicquantizelinear matmulinteger
convinteger_with_padding adagrad adam momentum nllloss_NCd1 sequence_insert_at_front add_bcast
pow mod_mixed_sign_float32 cast_FLOAT_to_STRING gather_elements_0 gathernd_example_float32 scatternd
reduce_log_sum_exp_default_axes_keepdims_example argmax_default_axis_example lrn
maxunpool_export_without_output_shape globalmaxpool sequence_map_add_2_sequences optional_get_element_tensor
range_int32_type_negative_delta shape clip_default_inbounds einsum_sum isinf castlike_FLOAT_to_BFLOAT16
bitwise_and_i16_3d split_variable_parts_1d_opset18 squeeze unsqueeze_axis_0 resize_downsample_sizes_cubic
upsample_nearest""".split()
WRAPPERS = ("core/arena.c", "io/buf.c")  # not a site: the allocators themselves
SAN = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: ")
INJECTED = re.compile(r"^onnxop: ONNXOP_FAIL_ALLOC=(\d+): this allocation fails:(.*)$", re.M)
TRACED = re.compile(r"^onnxop: ONNXOP_FAIL_ALLOC: request (\d+):(.*)$", re.M)


# the programs whose frames name call paths: onnxop, and the test programs
# scenarios run instead (Scenario.exe)
OWN = {"onnxop"}


def own_frames(frames):
    """"onnxop+0x1f x.so+0x2 api-suite+0x3" -> the frames of OWN programs"""
    return tuple(f for f in frames.split() if f.split("+")[0] in OWN)


def tree(d):
    """The files and folders under d, relative, with their sizes."""
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(root, n)
            out[os.path.relpath(p, d)] = None if os.path.isdir(p) else open(p, "rb").read()
    return out


class Scenario:
    def __init__(self, name, args, stdin=None, env=None, timed=False, varying=(), reports=(), exe=None):
        """timed: stdout holds timings, so a surviving run's differs;
        varying: files that hold timings (compared by name, not content);
        reports: files a run that failed may leave, when they say why (a
        case that ran out of memory is an error the JUnit report records);
        exe: the program to run instead of onnxop (a test program of the
        library's, linked with the test build's libonnxop.a)"""
        self.name, self.args, self.stdin, self.env, self.timed = name, args, stdin, env or {}, timed
        self.varying, self.reports = set(varying), set(reports)
        self.exe = exe


def xfailed(path):
    """The case names an expected-failure list holds ("test_x: why" lines)."""
    with open(path) as f:
        return {line.split(":", 1)[0].strip() for line in f if line.startswith("test_")}


def scenarios(x, d, shared):
    """The scenarios, on inputs made in d with the binary x (no injection)."""
    def sh(*a, **k):
        subprocess.run([x] + list(a), check=True, capture_output=True, **k)

    def case(name):  # a Debian node-test case: its model and data set 0
        c = f"{DEBIAN}/{name}"
        ins = sorted(f for f in os.listdir(f"{c}/test_data_set_0") if f.startswith("input_"))
        return f"{c}/model.onnx", [f"{c}/test_data_set_0/{f}" for f in ins], f"{c}/test_data_set_0"

    s = []
    have_debian = os.path.isdir(DEBIAN)
    # one-node models of our own: an Add with float inputs, a sequence model
    sh("make", "Add", "--input", "a:float32[2,3]", "--input", "b:float32[3]", "-o", f"{d}/add.onnx")
    sh("convert", "float32[2,3]:1,2,3,4,5,6", f"{d}/a.npy")
    sh("convert", "float32[3]:0.5,-1,2", f"{d}/b.json")
    sh("convert", "float32[3]:0.5,-1,2", f"{d}/b.npz")
    sh("make", "SequenceAt", "--opset", "11", "--input", "input_seq:seq(tensor(float))",
       "--input", "position:int64[]", "--output", "output_tensor:float32[?,?]", "-o", f"{d}/seq_at.onnx")
    sh("convert", "tests/seeds/seq3.json", f"{d}/seq3.pb")
    s.append(Scenario("run_add_npy_json", ["run", f"{d}/add.onnx", "--in", f"{d}/a.npy", "--in", f"{d}/b.json",
                                           "--out", "y.npz"]))
    s.append(Scenario("run_add_npz_stdout", ["run", f"{d}/add.onnx", "--in", f"a={d}/a.npy", "--in", f"{d}/b.npz"]))
    s.append(Scenario("run_seq_stdin", ["run", f"{d}/seq_at.onnx", "--in", "-", "--in", "int64[]:-1",
                                        "--out", "y.json"], stdin=f"{d}/seq3.pb"))
    s.append(Scenario("bench", ["bench", f"{d}/add.onnx", "--in", f"{d}/a.npy", "--in", f"{d}/b.json", "--runs", "2",
                                "--warmup", "1"], timed=True))
    s.append(Scenario("make_case", ["make", "Gemm", "--input", "a:float32[3,4]", "--input", "b:float32[4,5]",
                                    "-a", "alpha=0.5", "--case", "case", "--random", "7"]))
    s.append(Scenario("convert_json_npz", ["convert", "tests/seeds/want_pos0.json", "v.npz"]))
    s.append(Scenario("convert_pb_json", ["convert", f"{d}/seq3.pb", "v.json"]))
    s.append(Scenario("show_stats", ["show", "--stats", f"{d}/a.npy", f"{d}/seq3.pb", "tests/seeds/opt_seq.json"]))
    s.append(Scenario("info_json", ["info", "--json", f"{d}/seq_at.onnx"]))
    s.append(Scenario("make_spec", ["make", "--spec", "tests/spec/example.json", "--suite", "suite"]))
    # a sweep whose case names make derives from the op (no --name)
    s.append(Scenario("make_sweep", ["make", "Relu", "--input", "x:T[2]", "--for-each-type", "T=float,double",
                                     "--for-each-opset", "--random", "1", "--suite", "suite"]))
    s.append(Scenario("run_random_save", ["run", f"{d}/add.onnx", "--random", "3", "--save-intermediates", "inter",
                                          "--out", "y.pb"]))
    s.append(Scenario("compare_stat_validate", ["compare", f"{d}/b.json", f"{d}/b.npz", "--check-error-stat",
                                                "quantile=0.5", "--validate", "--json"]))
    if have_debian:
        for name, cmd in [("test_loop11", "run_loop_outdir"), ("test_if", "run_if_outdir"),
                          ("test_sequence_insert_at_back", "run_seqinsert_outdir")]:
            m, ins, _ = case(name)
            args = ["run", m]
            for i in ins:
                args += ["--in", i]
            s.append(Scenario(cmd, args + ["--out-dir", "out"]))
        m, ins, ds = case("test_if_seq")
        s.append(Scenario("compare_folders", ["compare", ds, ds, "--json"]))
        os.makedirs(f"{d}/suite", exist_ok=True)
        for name in ["test_loop11", "test_sequence_map_add_2_sequences"]:
            if not os.path.exists(f"{d}/suite/{name}"):
                shutil.copytree(f"{DEBIAN}/{name}", f"{d}/suite/{name}")
        s.append(Scenario("test_suite", ["test", "-j", "1", f"{d}/suite"]))
        s.append(Scenario("test_junit_tap", ["test", "-j", "1", "-q", f"{d}/suite", "--junit", "r.xml", "--tap"],
                          timed=True, varying=["r.xml"], reports=["r.xml"]))
        sh("test", "-j", "1", "-q", f"{d}/suite", "--junit", f"{d}/r.xml", "--json", cwd=d)
        s.append(Scenario("report_junit", ["report", f"{d}/r.xml", "--json", "--junit", "merged.xml"], timed=True,
                          varying=["merged.xml"]))
        r = subprocess.run([x, "test", "-j", "1", "-q", f"{d}/suite", "--json"], capture_output=True, cwd=d)
        with open(f"{d}/r.json", "wb") as f:
            f.write(r.stdout)
        s.append(Scenario("report_json", ["report", "-v", f"{d}/r.json"]))
        s.append(Scenario("test_k", ["test", "--list", "-k", r"\<test_(loop|seq)", "--exclude", "(a)\\1", f"{d}/suite"]))
        # the same cases through the library (tests/api/suite.c, which exits 1
        # saying the error, "out of memory", when a run fails)
        api = os.path.join(os.path.dirname(x), "api-suite")
        if os.path.exists(api):
            s.append(Scenario("api_suite", [f"{d}/suite/test_loop11", f"{d}/suite/test_sequence_map_add_2_sequences"],
                              exe=api))
    # one case of each op family, in one `test` worker: from the shared suite
    # when it is there, else Debian's, never a case on that suite's
    # expected-failure list (its reference run would fail); made anew each
    # time, so that what an earlier run chose (without the suite) never stays
    shutil.rmtree(f"{d}/kernels", ignore_errors=True)
    os.makedirs(f"{d}/kernels")
    for name in KERNELS:
        for root, xfail in [(shared, "tests/xfail/onnx-node-tests.txt"), (DEBIAN, "tests/xfail/debian-node.txt")]:
            src = f"{root}/test_{name}"
            if root and os.path.isdir(src) and not os.path.exists(f"{d}/kernels/test_{name}"):
                if f"test_{name}" not in xfailed(xfail):
                    shutil.copytree(src, f"{d}/kernels/test_{name}")
                break
    if os.listdir(f"{d}/kernels"):
        s.append(Scenario("test_kernels", ["test", "-j", "1", f"{d}/kernels"]))
    return s


class Runner:
    def __init__(self, build, full):
        self.x = os.path.abspath(f"{build}/onnxop")
        self.exes = {"onnxop": self.x}  # a frame's program name -> its path, for addr2line
        self.full = full
        self.work = os.path.abspath(f"{build}/fault-tests")
        self.runs = 0
        self.failures = []   # (scenario, N, why, output, callers)
        self.failed = {}     # callers (onnxop frames) -> how many runs failed a request there
        self.counts = {}     # scenario -> allocation requests in its reference run
        self.refs = {}       # scenario -> (stdout, files) of the reference run
        self.lock = threading.Lock()
        self.where = {}      # frame (PROGRAM+OFFSET) -> file:line

    def env(self, sc, n, trace=False):
        e = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99",
                 UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98", ONNXOP_FAIL_ALLOC=str(n))
        if trace:
            e["ONNXOP_FAIL_ALLOC_TRACE"] = "1"
        e.update(sc.env)
        return e

    def run(self, sc, n, wd, trace=False):
        if os.path.exists(wd):
            shutil.rmtree(wd)
        os.makedirs(wd)
        stdin = open(sc.stdin, "rb") if sc.stdin else subprocess.DEVNULL
        args = [a if not a.startswith("tests/") else os.path.abspath(a) for a in sc.args]
        p = subprocess.run([sc.exe or self.x] + args, cwd=wd, stdin=stdin, capture_output=True, env=self.env(sc, n, trace),
                           timeout=120)
        if sc.stdin:
            stdin.close()
        out = (p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), tree(wd))
        shutil.rmtree(wd, ignore_errors=True)
        return out

    def reference(self, sc):
        """Run sc once failing nothing, each request naming its callers: the
        output to compare with, and which N has which callers."""
        rc, out, err, t = self.run(sc, 0, f"{self.work}/run-{sc.name}-ref", trace=True)
        self.refs[sc.name] = (out, t)
        if rc != 0 or SAN.search(err):
            self.failures.append((sc.name, 0, f"the reference run exits {rc}", TRACED.sub("", err), ""))
            return {}
        reqs = {}
        for n, frames in TRACED.findall(err):
            reqs.setdefault(int(n), set()).add(own_frames(frames))
        self.counts[sc.name] = max(reqs, default=0)
        return reqs

    def check(self, job):
        sc, n = job
        rc, out, err, t = self.run(sc, n, f"{self.work}/run-{sc.name}-{n}")
        hits = INJECTED.findall(err)
        rest = INJECTED.sub("", err)
        ref_out, ref_tree = self.refs[sc.name]
        why = None
        if SAN.search(err):
            why = "sanitizer report"
        elif rc < 0 or rc >= 128:
            why = f"killed (status {rc})"
        elif rc == 1 and hits:
            if "out of memory" not in rest + out:
                why = "exit 1 without 'out of memory'"
            elif {k for k in t if k not in sc.reports or b"out of memory" not in t[k]}:
                why = f"left {sorted(t)}"
        elif rc == 0:
            if sc.varying:
                t = {k: (None if k in sc.varying else v) for k, v in t.items()}
                ref_tree = {k: (None if k in sc.varying else v) for k, v in ref_tree.items()}
            if (out != ref_out and not sc.timed) or t != ref_tree:
                why = "exit 0 with an output that differs from the reference run's"
        else:
            why = f"exit {rc}, not 1" + ("" if hits else " (and no request failed)")
        with self.lock:
            self.runs += 1
            for _, frames in hits:
                key = own_frames(frames)
                self.failed[key] = self.failed.get(key, 0) + 1
            if why:
                self.failures.append((sc.name, n, why, (rest.strip() + "\n" + out.strip())[-1500:],
                                      hits[0][1] if hits else ""))

    def lines(self, keys):
        """callers (PROGRAM+OFFSET frames of onnxop or a test program) ->
        their source lines outside the allocators, innermost first
        (addr2line, once per new frame)."""
        frames = sorted({f for k in keys for f in k} - set(self.where))
        root = os.getcwd() + "/"
        for exe, path in self.exes.items():
            mine = [f for f in frames if f.split("+")[0] == exe]
            if not mine:
                continue
            p = subprocess.run(["addr2line", "-e", path] + [hex(int(f.split("+")[1], 16) - 1) for f in mine],
                               capture_output=True, text=True)
            for f, l in zip(mine, p.stdout.splitlines()):
                self.where[f] = re.sub(r" \(discriminator \d+\)", "", l).replace(root, "")
        out = {}
        for k in keys:
            own = [self.where.get(f, "?") for f in k]
            out[k] = tuple(l for l in own if not l.startswith(("?", "/")) and not l.startswith(WRAPPERS))
        return out

    def symbolize(self, keys):
        """callers -> (site, path): site the first frame outside the allocators."""
        return {k: (v[0] if v else "?", " < ".join(v[:5])) for k, v in self.lines(keys).items()}


def main():
    argv = sys.argv[1:]
    build = argv[0] if argv else "build/asan"
    full = "--full" in argv
    only = [a for a in argv[1:] if not a.startswith("-")]
    r = Runner(build, full)
    probe = subprocess.run([r.x, "--version"], capture_output=True, text=True)
    if "test build" not in probe.stdout:
        print(f"faults: {r.x} is not a test build (no ONNXOP_FAIL_ALLOC); 0 passed, 0 failed")
        return 0
    os.makedirs(r.work, exist_ok=True)
    t0 = time.monotonic()
    shared = next((a.split("=", 1)[1] for a in argv if a.startswith("--suite=")), "")
    scs = [s for s in scenarios(r.x, r.work, shared) if not only or s.name in only]
    for sc in scs:
        if sc.exe:
            r.exes[os.path.basename(sc.exe)] = sc.exe
            OWN.add(os.path.basename(sc.exe))
    # the references first (also which request has which callers), then the
    # plan: each request whose callers no earlier request had (--full: all)
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        reqs = list(ex.map(r.reference, scs))
    lines = r.lines({k for rq in reqs for keys in rq.values() for k in keys})
    plan, tried = [], set()
    for sc, rq in zip(scs, reqs):
        for n in sorted(rq):
            paths = {lines[k][:DEPTH] for k in rq[n]}
            if r.full or not paths <= tried:
                plan.append((sc, n))
                tried |= paths
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        list(ex.map(r.check, plan))
    names = r.symbolize(list(r.failed))
    sites = {names[k][0] for k in r.failed}
    for sc in scs:
        runs = sum(1 for s, _ in plan if s is sc)
        print(f"  {sc.name}: {r.counts.get(sc.name, 0)} allocation requests, {runs} runs")
    # the failures, the first of each scenario, site and kind (with how many)
    seen = {}
    for f in r.failures:
        k = own_frames(f[4]) if len(f) > 4 else ()
        site, path = r.symbolize([k]).get(k, ("?", "?")) if k else ("?", "?")
        key = (f[0], site, f[2].split(" ")[0])
        if key in seen:
            seen[key][1] += 1
            continue
        seen[key] = [f, 1, path]
    for (name, site, _), (f, count, path) in seen.items():
        more = f" (and {count - 1} more N failing there)" if count > 1 else ""
        print(f"FAIL {name} ONNXOP_FAIL_ALLOC={f[1]}: {f[2]}{more}\n    at {path}")
        print("    " + f[3].strip().replace("\n", "\n    ")[:800])
    if "--sites" in argv:
        for s in sorted(sites):
            print(f"  site {s}")
    total = sum(r.counts.values())
    sampled = "every request" if full else "the first request of each call path"
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"faults: {r.runs} runs of {total} requests ({sampled}) in {time.monotonic() - t0:.0f} s "
          f"({ru.ru_utime + ru.ru_stime:.0f} s of CPU): {len(r.failed)} call paths and {len(sites)} allocation "
          f"sites failed")
    print(f"faults: {len(scs) - len({f[0] for f in r.failures})} passed, {len({f[0] for f in r.failures})} failed")
    return 1 if r.failures else 0


if __name__ == "__main__":
    sys.exit(main())
