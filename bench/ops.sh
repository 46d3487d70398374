#!/bin/sh
# bench/ops.sh [BUILD] [SUITE]: each operator's time on its suite cases, so
# that a slow (say quadratic) kernel shows.
#
# Runs 'onnxop test --json -j 1' over SUITE (default ../shared/onnx-node-tests;
# one case at a time, so the timings don't compete) and charges each case's
# seconds (load, run and compare: a slow comparison shows too) to the one
# operator type of its model's main graph (Constant nodes aside); cases of
# several op types (_expanded ones, small graphs) go to "(several ops)".
# Prints, sorted by total time: operator, cases, total ms, the worst case and
# its ms; then the TOP slowest cases, whatever their ops. Needs python3 with
# the onnx package (Debian python3-onnx).
#
#   TOP=N (default 25 rows of each)
B=${1:-build}
SUITE=${2:-../shared/onnx-node-tests}
X="$B/onnxop"
PY=${PYTHON:-/usr/bin/python3}
TOP=${TOP:-25}
[ -x "$X" ] || { echo "bench/ops.sh: $X not built" >&2; exit 1; }
[ -d "$SUITE" ] || { echo "bench/ops.sh: no suite at $SUITE" >&2; exit 1; }
mkdir -p "$B/bench" || exit 1
J="$B/bench/ops.json"
"$X" test --json -j 1 "$SUITE" >"$J"
[ -s "$J" ] || { echo "bench/ops.sh: onnxop test printed nothing" >&2; exit 1; }
"$PY" - "$J" "$SUITE" "$TOP" <<'PYEOF'
import json, os, sys
import onnx

report, suite, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = json.load(open(report))["cases"]
ops = {}  # op -> [cases, total s, worst s, worst case]
for c in cases:
    path = os.path.join(suite, c["name"], "model.onnx")
    try:
        m = onnx.load(path, load_external_data=False)
        types = sorted({(n.domain or "ai.onnx") + ":" + n.op_type if n.domain not in ("", "ai.onnx") else n.op_type
                        for n in m.graph.node})
    except Exception:
        types = ["(model not readable: %s)" % c["name"]]
    if len(types) > 1:
        types = [t for t in types if t != "Constant"]
    types = types if len(types) <= 1 else ["(several ops)"]
    for t in types or ["(no nodes)"]:
        o = ops.setdefault(t, [0, 0.0, -1.0, ""])
        o[0] += 1
        o[1] += c["seconds"]
        if c["seconds"] > o[2]:
            o[2], o[3] = c["seconds"], c["name"]
total = sum(c["seconds"] for c in cases)
print("%d cases, %.1f ms in all (each case: load, run, compare)" % (len(cases), total * 1e3))
print()
print("%-28s %6s %10s %10s  %s" % ("operator", "cases", "total_ms", "worst_ms", "worst case"))
for t, (n, s, w, wc) in sorted(ops.items(), key=lambda kv: -kv[1][1])[:top]:
    print("%-28s %6d %10.2f %10.2f  %s" % (t, n, s * 1e3, w * 1e3, wc))
print()
print("%-60s %10s  %s" % ("slowest cases", "ms", "status"))
for c in sorted(cases, key=lambda c: -c["seconds"])[:top]:
    print("%-60s %10.2f  %s" % (c["name"], c["seconds"] * 1e3, c["status"]))
PYEOF
