#!/bin/sh
# tests/valgrind.sh BUILD SHARED_SUITE DEBIAN_DATA: valgrind memcheck on a fixed
# sample of cases (behind `make valgrind`; not part of `make check`, where the
# suites already run under ASan and UBSan). Each run must end with no memcheck
# error and no definite or indirect leak. The sample is deterministic: every
# 45th case of the shared suite, every 40th of Debian's node suite, the
# sequence, optional, map, Loop, If, Scan and string cases among them by name,
# and a few CLI commands (show, compare, convert to .npz, make --case).
# Prints one line per run and "valgrind: N passed, M failed".
B=${1:-build}
SHARED=${2:-../shared/onnx-node-tests}
DEBIAN=${3:-/usr/share/libonnx-testdata/data}
X="$B/onnxop"
command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)"; echo "valgrind: 0 passed, 1 failed"; exit 1; }
[ -x "$X" ] || { echo "valgrind: $X is missing (run make)"; echo "valgrind: 0 passed, 1 failed"; exit 1; }
T="$B/valgrind"
rm -rf "$T" && mkdir -p "$T"
VG="valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --quiet"
pass=0
fail=0

# vg NAME EXPECTED_STATUS CMD...: run CMD under memcheck
vg() {
  name=$1 want=$2
  shift 2
  $VG "$@" >"$T/$name.out" 2>"$T/$name.err"
  rc=$?
  if [ "$rc" = "$want" ]; then
    pass=$((pass + 1))
    echo "ok   $name"
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc, expected $want"
    grep -E '==[0-9]+==' "$T/$name.err" | head -20
  fi
}

# vgcase NAME CASE_DIR XFAIL: run the case's model on test_data_set_0's inputs,
# then compare with its outputs, each under memcheck (in one process each:
# `onnxop test` forks its workers, and a forked child's exit would report the
# parent's memory as lost). Cases on the expected-failure list are skipped.
vgcase() {
  name=$1 dir=$2 xf=$3
  base=$(basename "$dir")
  if [ -n "$xf" ] && grep -q "^$base:" "$xf"; then echo "skip $name (expected to fail)"; return; fi
  set --
  k=0
  while [ -f "$dir/test_data_set_0/input_$k.pb" ]; do
    set -- "$@" --in "$dir/test_data_set_0/input_$k.pb"
    k=$((k + 1))
  done
  rm -rf "$T/out" && mkdir -p "$T/out"
  vg "$name-run" 0 "$X" run "$dir/model.onnx" "$@" --out-dir "$T/out"
  vg "$name-compare" 0 "$X" compare "$T/out" "$dir/test_data_set_0"
}

# sample DIR STEP PATTERN: every STEP-th case folder of DIR, plus those matching PATTERN
sample() {
  ls "$1" | awk -v s="$2" -v p="$3" 'NR % s == 1 || $0 ~ p'
}

PICK='^test_(sequence_at|optional_get_element_optional_sequence|loop16_seq_none|if_seq|scan9_sum|range_float_type_positive_delta_expanded|string_split_basic|regex_full_match_basic|dft|image_decoder_decode_jpeg_rgb|attention_4d_gqa|lstm_defaults|ai_onnx_ml_tree_ensemble_set_membership)$'
if [ -d "$SHARED" ]; then
  for c in $(sample "$SHARED" 45 "$PICK"); do
    [ -f "$SHARED/$c/model.onnx" ] && vgcase "shared-$c" "$SHARED/$c" tests/xfail/onnx-node-tests.txt
  done
fi
if [ -d "$DEBIAN/node" ]; then
  for c in $(sample "$DEBIAN/node" 40 '^test_(optional_has_element|sequence_insert_at_back|loop11)$'); do
    [ -f "$DEBIAN/node/$c/model.onnx" ] && vgcase "debian-$c" "$DEBIAN/node/$c" tests/xfail/debian-node.txt
  done
fi
for c in $(ls tests/cases | awk 'NR % 10 == 1'); do
  [ -d "tests/cases/$c" ] && vgcase "own-$c" "tests/cases/$c" tests/xfail/own-cases.txt
done

# the CLI: values, compare, convert, make --case, and a rejected input
S=tests/seeds
vg cli-show 0 "$X" show --stats "$S/seq3.json" "$S/opt_seq.json"
vg cli-convert-npz 0 "$X" convert "$S/want_pos0.json" "$T/v.npz"
vg cli-make-case 0 "$X" make SequenceAt --opset 11 --case "$T/case" --in "$S/seq3.json" --in "$S/pos_neg.json"
vg cli-compare 0 "$X" compare "$T/case/test_data_set_0" "$T/case/test_data_set_0"
vg cli-compare-differ 1 "$X" compare "$S/want_pos0.json" "$S/want_neg.json"
vg cli-bad-input 1 "$X" run "$T/case/model.onnx" --in "$S/seq3.json" --in "$S/seq3.json"

echo "valgrind: $pass passed, $fail failed"
[ "$fail" = 0 ]
