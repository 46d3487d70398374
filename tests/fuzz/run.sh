#!/bin/sh
# tests/fuzz/run.sh BUILD SECONDS SHARED_SUITE NAME...: build each libFuzzer
# harness with clang and run it for SECONDS, seeded from the suites and from the
# committed regression corpus. A crash is written into tests/fuzz/regress/NAME/,
# where `make check` replays it from then on: fix it, then commit the file.
B=$1
SECS=$2
SHARED=$3
shift 3
DEB=/usr/share/libonnx-testdata/data/node
status=0
for name in "$@"; do
  make --no-print-directory "$B/fuzz/fuzz-$name" || exit 1
  corpus="$B/fuzz/corpus-$name"
  mkdir -p "$corpus" "tests/fuzz/regress/$name"
  if [ -z "$(ls -A "$corpus")" ]; then # seed once
    # a corpus kept in the tree (tests/fuzz/corpus/NAME: minimized, every
    # edge the harness reached), for the harnesses that have one
    [ -d "tests/fuzz/corpus/$name" ] && cp "tests/fuzz/corpus/$name"/* "$corpus/"
    case $name in
    model) for m in "$SHARED"/*/model.onnx "$DEB"/*/model.onnx; do
             [ -f "$m" ] && cp "$m" "$corpus/$(basename "$(dirname "$m")").onnx"; done ;;
    pb) for f in "$SHARED"/*/test_data_set_0/input_0.pb "$DEB"/*/test_data_set_0/input_0.pb; do
          [ -f "$f" ] && { printf '\000' | cat - "$f" >"$corpus/$(basename "$(dirname "$(dirname "$f")")").pb"; }; done ;;
    json) cp tests/seeds/*.json "$corpus/" ;;
    npy) # the CLI tests' files: byte 0 picks the reader (0: .npy, 3/5: .npz)
       python3 tests/cli/npy_tool.py gen "$corpus" && rm -f "$corpus"/*.json "$corpus"/bad_zip_bomb.npz
       for f in "$corpus"/*.npy; do printf '\000' | cat - "$f" >"$f.in" && rm "$f"; done
       for f in "$corpus"/*.npz; do printf '\005' | cat - "$f" >"$f.in" && rm "$f"; done ;;
    xfail) cp tests/xfail/*.txt "$corpus/" ;; # the committed lists; tolerances: the seeds in regress/
    spec) cp tests/spec/*.json "$corpus/" ;; # and the committed corpus below
    esac
  fi
  echo "fuzz-$name: $SECS s"
  "$B/fuzz/fuzz-$name" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="tests/fuzz/regress/$name/" "$corpus" "tests/fuzz/regress/$name" 2>"$B/fuzz/$name.log"
  rc=$?
  grep -E "stat::number_of_executed_units|stat::peak_rss" "$B/fuzz/$name.log"
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz-$name: FOUND A CRASH (see $B/fuzz/$name.log; the input is in tests/fuzz/regress/$name/)"
    grep -E "ERROR|SUMMARY" "$B/fuzz/$name.log" | head -5
  fi
done
exit $status
