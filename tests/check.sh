#!/bin/sh
# tests/check.sh BUILD SHARED_SUITE DEBIAN_DATA [required|optional]: everything
# `make check` runs. SHARED_SUITE empty: the ONNX node-test suite is skipped on
# purpose; missing: skipped, saying so once, when optional (the default: a
# user's clone without it), a failure when required (named explicitly, as
# .ci/run does, so that CI can never pass by skipping it).
#   1. the unit tests, plain and under ASan+UBSan
#   2. the CLI tests (tests/cli/run.sh, tests/cli/files.py), the hostile
#      inputs (tests/bad), the limits (tests/limits.py), the allocation
#      failures (tests/faults.py, on the ASan build: the test build) and the
#      library (tests/api/run.sh); the Python layer (tests/python); the
#      Debian packages' file lists (tests/debian_check.py)
#   3. the conformance suites with their expected-failure lists, plain and
#      under ASan+UBSan
# Prints one line per part, then the totals as "N passed, M failed".
B=$1
SHARED=$2
DEBIAN=$3 # /usr/share/libonnx-testdata/data: node, simple, pytorch-operator, pytorch-converted
NEED=${4:-optional}
status=0
tp=0
tf=0
log="$B/check.log"
: >"$log"

count() { # add a "...: N passed, M failed" line to the totals
  line=$(printf '%s\n' "$1" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  p=$(printf '%s' "$line" | sed -E 's/^(.*[^0-9])?([0-9]+) passed.*/\2/')
  f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  tp=$((tp + ${p:-0}))
  tf=$((tf + ${f:-0}))
}

run() { # NAME CMD...
  name=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" >>"$log"
  last=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ $rc -ne 0 ]; then
    status=1
    printf '%s\n' "$out" | grep -E '^(FAIL|ERROR|UNSUPPORTED|CRASH|TIMEOUT|XPASS|STALE|DUPLICATE)|failed$|: CHECK|==[0-9]+==|runtime error' | head -40
    [ -n "$last" ] || tf=$((tf + 1))
  fi
  count "$out"
  echo "$name: ${last:-exit status $rc}"
}

# the 1802-case suite: decided once, here; every part below gets "" when it is
# not run (and uses Debian's cases where it has a fallback)
shared_state=run
if [ -z "$SHARED" ]; then
  shared_state=off
elif [ ! -d "$SHARED" ]; then
  if [ "$NEED" = required ]; then
    shared_state=missing
  else
    shared_state=absent
    echo "onnx-node-tests: the 1802-case suite is not at $SHARED, so the parts that need it"
    echo "  are skipped. onnx's node-test data of a release up to 1.22 has it (the folder"
    echo "  onnx/backend/test/data/node); run make check SHARED_SUITE=DIR to point at a copy."
  fi
  SHARED=""
fi

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0

# the tests of tests/unit/ (not whatever else lies in BUILD/unit: .d files,
# the binary of a test since removed)
for src in tests/unit/test_*.c; do
  t=$(basename "$src" .c)
  run "unit $t" "$B/unit/$t"
done
for src in tests/unit/test_*.c; do
  t=$(basename "$src" .c)
  run "unit (asan) $t" "$B/asan/unit/$t"
done
# the unit tests of kernels built per vector level, at the lower levels too
# (ONNXOP_ISA: on a CPU that has AVX-512, its AVX2 and portable builds)
for lv in avx2 generic; do
  for t in test_rnn test_reduce test_unary test_elementwise test_binary test_half test_image test_norm test_pool test_fuse test_gemm test_gemv test_matmul; do
    run "unit ($lv) $t" env ONNXOP_ISA=$lv "$B/unit/$t"
  done
done
# the folders keep to their jobs (nm over the objects); every file compiles
# without a warning (gcc, and clang where installed); gcc's static analyser
run "layers" sh tests/layers.sh "$B"
# the library keeps no state outside a run's context but what tests/globals.txt lists
run "globals" sh tests/globals.sh "$B"
run "warnings" sh tests/warnings.sh "$WARN"
run "analyzer" sh tests/analyzer.sh
for f in model pb json npy; do run "fuzz regressions (asan) $f" "$B/asan/fuzz-replay-$f" "$f" "tests/fuzz/regress/$f"; done
for f in tolerances xfail; do run "fuzz regressions (asan) $f" "$B/asan/fuzz-replay-$f" "$f" "tests/fuzz/regress/$f"; done
for f in report_junit report_json; do run "fuzz regressions (asan) $f" "$B/asan/fuzz-replay-$f" "$f" "tests/fuzz/regress/$f" "tests/fuzz/corpus/$f"; done
run "fuzz regressions (asan) spec" "$B/asan/fuzz-replay-spec" spec tests/fuzz/regress/spec
run "cli" sh tests/cli/run.sh "$B" "$SHARED"
run "cli (asan)" sh tests/cli/run.sh "$B/asan" "$SHARED"
# outputs on disk: temporaries, renames, signals, a full disk, streaming
# memory (numpy reads the streamed files when the system's python has it)
PY=python3
/usr/bin/python3 -c 'import numpy' 2>/dev/null && PY=/usr/bin/python3
run "files" "$PY" tests/cli/files.py "$B"
run "files (asan)" "$PY" tests/cli/files.py "$B/asan"
run "bad" sh tests/bad/run.sh "$B"
run "bad (asan)" sh tests/bad/run.sh "$B/asan"
run "limits" python3 tests/limits.py "$B"
run "limits (asan)" python3 tests/limits.py "$B/asan"
# models from `onnxop make`: Debian's onnx checker, and onnxruntime with ORT_DIR
run "checker" /usr/bin/python3 tests/checker.py "$B"
# every allocation failure handled: the test build fails each in turn
run "faults (asan)" python3 tests/faults.py "$B/asan" --suite="$SHARED"
# the library (tests/api/run.sh): built against an installed copy, under
# ASan+UBSan, and two threads at once under TSan (Debian's node cases when
# the shared suite is skipped)
API_SUITE=${SHARED:-$DEBIAN/node}
run "api" sh tests/api/run.sh "$B" "$API_SUITE"
run "api (asan)" sh tests/api/run.sh "$B" "$API_SUITE" asan
run "api threads (tsan)" sh tests/api/run.sh "$B" "$API_SUITE" tsan
# the Python layer (tests/python, pytest): values, Session, the reference
# evaluator, the backend, authoring, lifetimes under ASan; the node-test
# suite and Debian's through it
run "python" env ONNXOP_BUILD="$B" SHARED_SUITE="$SHARED" DEBIAN_DATA="$DEBIAN" PYTHONDONTWRITEBYTECODE=1 \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
# the Debian packages' file lists (debian/*.install) against what make install
# installs as debian/rules runs it (make deb builds the packages themselves)
run "debian" python3 tests/debian_check.py "$B"
# tests/deps.sh (the lock wait, --check) and a plain make without the packages
run "deps" sh tests/deps_test.sh

suite() { # NAME PATH XFAIL
  if [ ! -d "$2" ]; then
    echo "$1: $2 is missing"
    status=1
    return
  fi
  run "$1" "$B/onnxop" test --xfail "$3" "$2"
  run "$1 (asan)" "$B/asan/onnxop" test --timeout 600 --xfail "$3" "$2"
}
# the 1802-case suite: its absence fails the check, unless SHARED_SUITE was
# set empty on purpose (make check SHARED_SUITE=)
case $shared_state in
off) echo "onnx-node-tests: not run (SHARED_SUITE is empty)" ;;
absent) echo "onnx-node-tests: skipped (not found; see the first lines)" ;;
missing)
  echo "onnx-node-tests: the 1802-case suite $2 is missing, and it was named"
  echo "  (SHARED_SUITE=$2): put it there, or run make check without naming it"
  status=1
  tf=$((tf + 1))
  ;;
run) suite "onnx-node-tests" "$SHARED" tests/xfail/onnx-node-tests.txt ;;
esac
suite "own-cases" tests/cases tests/xfail/own-cases.txt
for d in node simple pytorch-operator pytorch-converted; do
  suite "debian-$d" "$DEBIAN/$d" "tests/xfail/debian-$d.txt"
done
# the same at the lower vector levels (ONNXOP_ISA): the AVX2 and portable
# builds, run on a CPU that has AVX-512 too (a level above the CPU's is its own)
for lv in avx2 generic; do
  [ "$shared_state" = run ] && run "onnx-node-tests ($lv)" env ONNXOP_ISA=$lv "$B/onnxop" test \
    --xfail tests/xfail/onnx-node-tests.txt "$SHARED"
  run "own-cases ($lv)" env ONNXOP_ISA=$lv "$B/onnxop" test --xfail tests/xfail/own-cases.txt tests/cases
  [ -d "$DEBIAN/node" ] && run "debian-node ($lv)" env ONNXOP_ISA=$lv "$B/onnxop" test \
    --xfail tests/xfail/debian-node.txt "$DEBIAN/node"
done

echo "check (all of the above; log in $log):"
echo "$tp passed, $tf failed"
[ $status = 0 ] && [ $tf = 0 ]
