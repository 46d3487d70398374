#!/bin/sh
# bench/process.sh [BUILD]: whole-process costs of onnxop, each beside its target.
#
#   1. onnxop run on a small node (Add of two 3-element inline values, output
#      printed): wall time per run (hyperfine -N, the mean of 300 runs after
#      20 warm-ups, beside /bin/true's as the floor; without hyperfine, the
#      mean of RUNS runs of a shell loop, an upper bound: it includes the
#      shell's fork and exec) and peak RSS (/usr/bin/time %M).
#                                                 targets: <= 2 ms, <= 5 MiB
#   2. onnxop test on ../shared/onnx-node-tests, one invocation: wall time and
#      peak RSS.                                  target:  <= 5 s
#   3. onnxop run on a large input (Add of two 4M-element float tensors from
#      .pb files, the output written to a .pb): peak RSS.
#                          target: <= 1.25 x (input + output bytes) + 16 MiB
#
# Needs /usr/bin/time (Debian package 'time'; installed when run as root, as
# is hyperfine), and bench/gen.py's inputs
# (made into BUILD/bench/ as 'make bench' makes them).
B=${1:-build}
X="$B/onnxop"
D="$B/bench"
RUNS=${RUNS:-50}
SUITE=${SUITE:-../shared/onnx-node-tests}
PY=${PYTHON:-/usr/bin/python3}
HERE=$(dirname "$0")
[ -x "$X" ] || { echo "bench/process.sh: $X not built" >&2; exit 1; }
if [ ! -x /usr/bin/time ]; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y time >/dev/null || exit 1
  else echo "bench/process.sh: needs /usr/bin/time: apt-get install time" >&2; exit 1; fi
fi
# hyperfine (Debian package 'hyperfine') times the small run without a shell;
# without it, a shell loop does (an upper bound: it adds the shell's fork+exec)
HYPERFINE=$(command -v hyperfine)
if [ -z "$HYPERFINE" ] && [ "$(id -u)" = 0 ]; then
  apt-get install -y hyperfine >/dev/null 2>&1 && HYPERFINE=$(command -v hyperfine)
fi
mkdir -p "$D/process" || exit 1
P="$D/process"
miss=0
# row WHAT VALUE TARGET UNIT: print, and count a miss when VALUE > TARGET
row() {
  if [ "$3" = - ]; then
    printf '%-44s %12s\n' "$1" "$2 $4"
    return
  fi
  ok=ok
  awk -v v="$2" -v t="$3" 'BEGIN { exit !(v > t) }' && ok=MISS && miss=$((miss + 1))
  printf '%-44s %12s %12s  %s\n' "$1" "$2 $4" "<= $3 $4" "$ok"
}
kib_to_mib() { awk -v k="$1" 'BEGIN { printf "%.2f", k / 1024 }'; }
printf '%-44s %12s %12s\n' measure value target

# 1. a small node
"$X" make Add --opset 14 --input 'A:float32[3]' --input 'B:float32[3]' --output C -o "$P/small.onnx" || exit 1
set -- run "$P/small.onnx" --in 'float32[3]:1,2,3' --in 'float32[3]:4,5,6'
"$X" "$@" >/dev/null || exit 1
if [ -n "$HYPERFINE" ]; then
  # the process alone (-N: no shell), and /bin/true as the floor
  hf() { # hf JSON CMD: mean ms of CMD over 300 runs after 20 warm-ups
    "$HYPERFINE" -N --warmup 20 -r 300 --style none --export-json "$1" "$2" >/dev/null 2>&1 || return 1
    "$PY" -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["mean"] * 1e3))' "$1"
  }
  row "run, small node: wall per run (hyperfine)" "$(hf "$P/small.json" "$X $*")" 2 ms
  row "  (floor: /bin/true, hyperfine)" "$(hf "$P/true.json" /bin/true)" - ms
else
  t0=$(date +%s%N)
  i=0
  while [ $i -lt "$RUNS" ]; do "$X" "$@" >/dev/null; i=$((i + 1)); done
  t1=$(date +%s%N)
  row "run, small node: wall per run (shell loop)" "$(awk -v a="$t0" -v b="$t1" -v n="$RUNS" 'BEGIN { printf "%.2f", (b - a) / n / 1e6 }')" 2 ms
  # the floor on this machine: the same loop running /bin/true
  t0=$(date +%s%N)
  i=0
  while [ $i -lt "$RUNS" ]; do /bin/true; i=$((i + 1)); done
  t1=$(date +%s%N)
  row "  (floor: /bin/true, same loop)" "$(awk -v a="$t0" -v b="$t1" -v n="$RUNS" 'BEGIN { printf "%.2f", (b - a) / n / 1e6 }')" - ms
fi
/usr/bin/time -f %M -o "$P/small.time" "$X" "$@" >/dev/null
row "run, small node: peak RSS" "$(kib_to_mib "$(tail -1 "$P/small.time")")" 5 MiB

# 2. the node-test suite in one invocation
if [ -d "$SUITE" ]; then
  xf=
  [ -f tests/xfail/onnx-node-tests.txt ] && xf="--xfail tests/xfail/onnx-node-tests.txt"
  /usr/bin/time -f '%e %M' -o "$P/suite.time" "$X" test $xf "$SUITE" >"$P/suite.out" 2>&1
  tail -1 "$P/suite.out" | sed 's/^/  (suite: /; s/$/)/'
  row "test $(basename "$SUITE"): wall" "$(cut -d' ' -f1 "$P/suite.time" | tail -1)" 5 s
  row "test $(basename "$SUITE"): peak RSS (one case)" "$(kib_to_mib "$(tail -1 "$P/suite.time" | cut -d' ' -f2)")" - MiB
else
  echo "  ($SUITE not found: suite skipped)"
fi

# 3. a large input: Add 4M + 4M float32 from .pb files, written to a .pb
c="$D/add"
mkdir -p "$c"
"$X" make Add --opset 14 --input 'A:float32[4194304]' --input 'B:float32[4194304]' --output C -o "$c/model.onnx" || exit 1
[ -s "$c/in0.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/in0.pb" 1 4194304 || exit 1
[ -s "$c/in1.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/in1.pb" 2 4194304 || exit 1
rm -f "$P/large_out.pb"
/usr/bin/time -f '%e %M' -o "$P/large.time" "$X" run "$c/model.onnx" --in "$c/in0.pb" --in "$c/in1.pb" --out "$P/large_out.pb" || exit 1
io=$((4194304 * 4 * 3))
row "run, Add 4M+4M float32 .pb: peak RSS" "$(kib_to_mib "$(tail -1 "$P/large.time" | cut -d' ' -f2)")" \
  "$(awk -v b="$io" 'BEGIN { printf "%.2f", (1.25 * b + 16 * 1048576) / 1048576 }')" MiB
row "run, Add 4M+4M float32 .pb: wall" "$(tail -1 "$P/large.time" | cut -d' ' -f1)" - s
rm -f "$P/large_out.pb"
[ "$miss" = 0 ] || echo "$miss target(s) missed"
exit 0
