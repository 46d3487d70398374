#!/bin/sh
# tests/cli/run.sh BUILD [SUITE]: golden tests of the command line (stdout, stderr, exit codes).
# The seed pages' examples run from .pb and from JSON and must print what the
# pages show; each error case must give its exit code, a message naming the
# file/node/input, and no output file.
B=${1:-build}
X="$B/onnxop"
S=tests/seeds
G=tests/cli/golden
T="$B/cli-tests"
rm -rf "$T" && mkdir -p "$T" || exit 1
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE NAME CMD...: run CMD, keep stdout/stderr in $T/NAME.{out,err}, check the code
expect() {
  code=$1 name=$2
  shift 2
  "$@" >"$T/$name.out" 2>"$T/$name.err"
  got=$?
  if [ "$got" = "$code" ]; then ok; else bad "$name: exit $got, expected $code: $(head -c 400 "$T/$name.err")"; fi
}
# same_text NAME GOLDEN: stdout of NAME equals the golden file
same_text() {
  if cmp -s "$T/$1.out" "$2"; then ok; else bad "$1: stdout differs from $2:"; diff "$2" "$T/$1.out" | head -20; fi
}
# err_has NAME TEXT: stderr of NAME contains TEXT
err_has() {
  if grep -qF -- "$2" "$T/$1.err"; then ok; else bad "$1: stderr lacks '$2': $(head -c 400 "$T/$1.err")"; fi
}
# same_err NAME FILE: stderr of NAME equals FILE
same_err() {
  if cmp -s "$T/$1.err" "$2"; then ok; else bad "$1: stderr differs from $2:"; diff "$2" "$T/$1.err" | head -20; fi
}
out_has() {
  if grep -qF -- "$2" "$T/$1.out"; then ok; else bad "$1: stdout lacks '$2': $(head -c 400 "$T/$1.out")"; fi
}
# out_lacks NAME TEXT: stdout of NAME does not contain TEXT
out_lacks() {
  if grep -qF -- "$2" "$T/$1.out"; then bad "$1: stdout has '$2'"; else ok; fi
}
no_file() {
  if [ -e "$1" ] || ls "$1".tmp.* >/dev/null 2>&1; then bad "$1 exists after a failed run"; else ok; fi
}

# ---- the seed examples: models ----
expect 0 make_seqat "$X" make SequenceAt --opset 11 --input 'input_seq:seq(tensor(float))' \
  --input 'position:int64[]' --output 'output_tensor:float32[?,?]' -o "$T/sequence_at.onnx"
expect 0 make_oge_seq "$X" make OptionalGetElement --opset 15 \
  --input 'opt_seq:optional(seq(tensor(int32)))' --output 'output_sequence:seq(tensor(int32))' -o "$T/oge_seq.onnx"
expect 0 make_oge_t "$X" make OptionalGetElement --opset 18 \
  --input 'opt_value:optional(tensor(float))' --output 'output:float32[?,?]' -o "$T/oge_tensor.onnx"
expect 0 make_id "$X" make Identity --opset 21 --input 'x:float32[?,?]' --output 'output_tensor:float32[?,?]' -o "$T/identity.onnx"

# JSON inputs -> .pb inputs
for f in seq3 pos_neg pos_pos0 pos_pos2 opt_seq opt_tensor; do
  expect 0 "convert_$f" "$X" convert "$S/$f.json" "$T/$f.pb"
done

# ---- the seed examples print what the pages show, from JSON and from .pb ----
for p in neg pos0 pos2; do
  for ext in json pb; do
    d="$S"
    [ $ext = pb ] && d="$T"
    expect 0 "seqat_${p}_$ext" "$X" run "$T/sequence_at.onnx" --in "$d/seq3.$ext" --in "$d/pos_$p.$ext"
    same_text "seqat_${p}_$ext" "$G/sequence_at_$p.txt"
  done
done
for ext in json pb; do
  d="$S"
  [ $ext = pb ] && d="$T"
  expect 0 "oge_seq_$ext" "$X" run "$T/oge_seq.onnx" --in "$d/opt_seq.$ext"
  same_text "oge_seq_$ext" "$G/optional_get_element_optional_sequence.txt"
  expect 0 "oge_t_$ext" "$X" run "$T/oge_tensor.onnx" --in "opt_value=$d/opt_tensor.$ext"
  same_text "oge_t_$ext" "$G/optional_get_element_optional_tensor.txt"
done

# ---- the seed examples as ONNX test cases, expected outputs from the pages ----
mkcase() { # NAME MODEL WANT INPUT...
  c="$T/cases/$1" model=$2 want=$3
  shift 3
  mkdir -p "$c/test_data_set_0" && cp "$model" "$c/model.onnx"
  k=0
  for i in "$@"; do cp "$i" "$c/test_data_set_0/input_$k.pb"; k=$((k + 1)); done
  "$X" convert "$want" "$c/test_data_set_0/output_0.pb"
}
mkcase test_cc_sequence_at_neg "$T/sequence_at.onnx" "$S/want_neg.json" "$T/seq3.pb" "$T/pos_neg.pb"
mkcase test_cc_sequence_at_pos0 "$T/sequence_at.onnx" "$S/want_pos0.json" "$T/seq3.pb" "$T/pos_pos0.pb"
mkcase test_cc_sequence_at_pos2 "$T/sequence_at.onnx" "$S/want_pos2.json" "$T/seq3.pb" "$T/pos_pos2.pb"
mkcase test_cc_optional_get_element_optional_sequence "$T/oge_seq.onnx" "$S/want_opt_seq.json" "$T/opt_seq.pb"
mkcase test_cc_optional_get_element_optional_tensor "$T/oge_tensor.onnx" "$S/want_opt_tensor.json" "$T/opt_tensor.pb"
expect 0 seed_cases "$X" test "$T/cases"
out_has seed_cases "5 passed, 0 failed"
# a crashing case is reported as such and the run goes on (ONNXOP_TEST_CRASH
# is a hook of the test build; the plain build ignores it, as every hook)
if "$X" --version | grep -q "test build"; then
  ONNXOP_TEST_CRASH=test_cc_sequence_at_pos0 expect 1 crash_case "$X" test -j 2 "$T/cases"
  out_has crash_case "CRASH test_cc_sequence_at_pos0: crashed (signal 6"
  out_has crash_case "1 crash; 4 passed, 1 failed"
else
  ONNXOP_TEST_CRASH=test_cc_sequence_at_pos0 ONNXOP_FAIL_ALLOC=1 expect 0 crash_hook_ignored "$X" test -j 2 "$T/cases"
  out_has crash_hook_ignored "5 passed, 0 failed"
  if strings "$X" | grep -q 'ONNXOP_TEST_\|ONNXOP_FAIL_ALLOC'; then bad "the plain build names a test hook"; else ok; fi
fi
# a wrong expected value is caught, with the index and both values
mkcase wrong "$T/sequence_at.onnx" "$S/want_pos0.json" "$T/seq3.pb" "$T/pos_pos2.pb"
expect 1 wrong_case "$X" test "$T/cases/wrong"
out_has wrong_case "FAIL wrong: test_data_set_0 output 0 'output_tensor': element [0, 0]: expected -1, got 6"
out_has wrong_case "0 passed, 1 failed"
# a case's files are files whatever the case folder is called: test reads
# them through the library (api/api.h), never as a JSON literal ('{...}') or
# an inline value (DTYPE[SHAPE]:values), as run's --in may
mkdir -p "$T/named"
cp -r "$T/cases/test_cc_sequence_at_neg" "$T/named/{neg}" && cp -r "$T/cases/test_cc_sequence_at_neg" "$T/named/float[1]:x"
XA=$(cd "$(dirname "$X")" && pwd)/$(basename "$X")
expect 0 test_odd_names env -C "$T/named" "$XA" test '{neg}' 'float[1]:x'
out_has test_odd_names "2 passed, 0 failed"

# a run that checks nothing, or less than a case claims, fails and says why
mkdir -p "$T/nocase"
expect 1 test_nothing "$X" test "$T/nocase"
out_has test_nothing "1 error; 0 passed, 1 failed"
err_has test_nothing "onnxop test: $T/nocase holds no test case (a folder with model.onnx, or a folder of them)"
err_has test_nothing "onnxop test: no tests ran: nothing was checked"
expect 1 test_nothing_json "$X" test --json "$T/nocase"
err_has test_nothing_json "no tests ran"
expect 1 test_data_set_path "$X" test "$T/cases/test_cc_sequence_at_neg/test_data_set_0/"
err_has test_data_set_path "is a data set, not a case: give the case folder ($T/cases/test_cc_sequence_at_neg)"
# one PATH without a case fails the run, though the others pass
expect 1 test_one_empty "$X" test "$T/cases/test_cc_sequence_at_neg" "$T/nocase"
out_has test_one_empty "1 error; 1 passed, 1 failed"
err_has test_one_empty "$T/nocase holds no test case"
# data sets missing or incomplete: each a failing case that says what is wrong
hc="$T/holes"
mk_hole() { # NAME: a copy of test_cc_sequence_at_neg (2 inputs, 1 output)
  rm -rf "${hc:?}/$1" && mkdir -p "$hc" && cp -r "$T/cases/test_cc_sequence_at_neg" "$hc/$1"
}
mk_hole h_no_sets && rm -r "$hc/h_no_sets/test_data_set_0"
mk_hole h_no_output && rm "$hc/h_no_output/test_data_set_0/output_0.pb"
mk_hole h_extra_output && cp "$hc/h_extra_output/test_data_set_0/output_0.pb" "$hc/h_extra_output/test_data_set_0/output_1.pb"
mk_hole h_output_gap && mv "$hc/h_output_gap/test_data_set_0/output_0.pb" "$hc/h_output_gap/test_data_set_0/output_1.pb"
mk_hole h_extra_input && cp "$hc/h_extra_input/test_data_set_0/input_1.pb" "$hc/h_extra_input/test_data_set_0/input_2.pb"
mk_hole h_few_inputs && rm "$hc/h_few_inputs/test_data_set_0/input_1.pb"
mk_hole h_input_gap && mv "$hc/h_input_gap/test_data_set_0/input_1.pb" "$hc/h_input_gap/test_data_set_0/input_2.pb"
mk_hole h_two_files && "$X" convert "$hc/h_two_files/test_data_set_0/input_0.pb" "$hc/h_two_files/test_data_set_0/input_0.json"
mk_hole h_second_set_short && cp -r "$hc/h_second_set_short/test_data_set_0" "$hc/h_second_set_short/test_data_set_1" &&
  rm "$hc/h_second_set_short/test_data_set_1/output_0.pb"
mk_hole h_complete
expect 1 test_holes "$X" test "$hc"
out_has test_holes "ERROR h_no_sets: no test_data_set_N folder"
out_has test_holes "ERROR h_no_output: test_data_set_0: no output_0 file: the expected value of output 0 'output_tensor' is missing"
out_has test_holes "ERROR h_extra_output: test_data_set_0: 2 expected outputs (output_0 to output_1) but the model has 1 output"
out_has test_holes "ERROR h_output_gap: test_data_set_0: output_0 is missing (there is output_1)"
out_has test_holes "ERROR h_extra_input: test_data_set_0: 3 input files (input_0 to input_2) but the model has 2 inputs"
out_has test_holes "ERROR h_few_inputs: test_data_set_0: no value for input 1 'position': the data set has 1 input file, the model 2 inputs"
out_has test_holes "ERROR h_input_gap: test_data_set_0: input_1 is missing (there is input_2)"
out_has test_holes "ERROR h_two_files: test_data_set_0: input_0 has two files (.pb, .npy or .json)"
out_has test_holes "ERROR h_second_set_short: test_data_set_1: no output_0 file"
out_has test_holes "9 error; 1 passed, 9 failed"
# --failures and --json change what is printed, not the exit status
expect 1 test_failures_status "$X" test --failures "$hc"
out_has test_failures_status "h_no_output: test_data_set_0: no output_0 file"
out_lacks test_failures_status "h_complete"
expect 0 test_failures_pass "$X" test --failures "$hc/h_complete"
printf 'h_complete: listed, but passes\n' >"$T/holes.xfail"
expect 1 test_failures_xpass "$X" test --failures --xfail "$T/holes.xfail" "$hc/h_complete"
expect 1 test_json_status "$X" test --json "$hc"

# --out-dir writes the ONNX test layout; the file reads back to the same value
expect 0 outdir "$X" run "$T/sequence_at.onnx" --in "$T/seq3.pb" --in "$T/pos_pos2.pb" --out-dir "$T/od"
expect 0 outdir_back "$X" run "$T/identity.onnx" --in "$T/od/output_0.pb"
same_text outdir_back "$G/sequence_at_pos2.txt"
# --out-dir and make --case create missing parent folders (mkdir -p), and a
# file in the way is an error that leaves nothing behind
expect 0 outdir_deep "$X" run "$T/sequence_at.onnx" --in "$T/seq3.pb" --in "$T/pos_pos2.pb" --out-dir "$T/deep/a/b"
if [ -f "$T/deep/a/b/output_0.pb" ]; then ok; else bad "outdir_deep: no $T/deep/a/b/output_0.pb"; fi
expect 0 make_case_deep "$X" make Abs --input 'x:float32[3]' --case "$T/deepcase/node/test_abs" --random 1
if [ -f "$T/deepcase/node/test_abs/test_data_set_0/output_0.pb" ]; then ok; else bad "make_case_deep: no output_0.pb"; fi
: >"$T/plainfile"
expect 1 outdir_file "$X" run "$T/sequence_at.onnx" --in "$T/seq3.pb" --in "$T/pos_pos2.pb" --out-dir "$T/plainfile/x"
err_has outdir_file "$T/plainfile/x: cannot create the folder: Not a directory"
expect 0 outdir_json "$X" run "$T/sequence_at.onnx" --in "$T/seq3.pb" --in "$T/pos_pos2.pb" --out-dir "$T/odj" --format json
expect 0 outdir_json_back "$X" run "$T/identity.onnx" --in "$T/odj/output_0.json"
same_text outdir_json_back "$G/sequence_at_pos2.txt"
expect 0 out_named "$X" run "$T/sequence_at.onnx" --in "$T/seq3.pb" --in "$T/pos_pos2.pb" --out "output_tensor=$T/named.pb"
expect 0 out_named_back "$X" run "$T/identity.onnx" --in "$T/named.pb"
same_text out_named_back "$G/sequence_at_pos2.txt"
# make --case writes a whole case that onnxop test accepts
expect 0 make_case "$X" make SequenceAt --opset 11 --case "$T/made" --in "$S/seq3.json" --in "$S/pos_pos2.json"
expect 0 made_case "$X" test "$T/made"

# ---- inputs from the shell: inline values, JSON literals, stdin; --trace/--time on stderr ----
expect 0 inline "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'position=int64[]:-2'
same_text inline "$G/sequence_at_neg.txt"
expect 0 json_literal "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in '{"dtype": "int64", "shape": [], "data": 2}'
same_text json_literal "$G/sequence_at_pos2.txt"
"$X" run "$T/sequence_at.onnx" --in input_seq=- --in "$S/pos_pos0.json" <"$T/seq3.pb" >"$T/stdin_pb.out" 2>"$T/stdin_pb.err"
same_text stdin_pb "$G/sequence_at_pos0.txt"
"$X" run "$T/sequence_at.onnx" --in - --in "$S/pos_pos2.json" <"$S/seq3.json" >"$T/stdin_json.out" 2>"$T/stdin_json.err"
same_text stdin_json "$G/sequence_at_pos2.txt"
# through a pipe too (a file, above, is read at its size; a pipe as it comes)
cat "$T/seq3.pb" | "$X" run "$T/sequence_at.onnx" --in input_seq=- --in "$S/pos_pos0.json" >"$T/stdin_pipe.out" 2>"$T/stdin_pipe.err"
same_text stdin_pipe "$G/sequence_at_pos0.txt"
expect 1 inline_bad "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'position=int64[2]:1'
err_has inline_bad "inline value: data has 1 element; shape (2,) needs 2"
expect 0 trace "$X" run --trace --time "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2'
same_text trace "$G/sequence_at_neg.txt"
err_has trace "node 'node' SequenceAt-11"
err_has trace "in  position: tensor(int64) () min -2 max -2 [-2]"
err_has trace "out output_tensor: tensor(float) (2, 3) min 0 max 5 [0, 1, 2, 3, ...]"
err_has trace " us  node 'node' SequenceAt-11"

# ---- compare ----
expect 0 cmp_match "$X" compare "$T/od/output_0.pb" "$S/want_pos2.json"
out_has cmp_match "match (6 elements"
expect 1 cmp_differ "$X" compare "$T/od/output_0.pb" "$S/want_pos0.json"
out_has cmp_differ "6 of 6 elements differ (rtol 0.001, atol 1e-07)"
out_has cmp_differ "worst absolute error 15.75 at [1, 2]: expected -4.75, got 11"
out_has cmp_differ "max ULP distance"
expect 1 cmp_json "$X" compare --json "$T/od/output_0.pb" "$S/want_pos0.json"
out_has cmp_json '"match":false,"elements":6,"mismatches":6,"max_abs":{"error":15.75,"index":"[1, 2]","expected":-4.75,"got":11}'
out_has cmp_json '"max_rel":{"error":"inf"'
expect 0 cmp_loose "$X" compare --atol 16 "$T/od/output_0.pb" "$S/want_pos0.json"
expect 1 cmp_kind "$X" compare "$T/od/output_0.pb" "$S/seq3.json"
out_has cmp_kind "differs: kind: expected seq(tensor(float)), got tensor(float)"
expect 0 cmp_dirs "$X" compare "$T/odj" "$T/od"
out_has cmp_dirs "output_0: match"
expect 1 cmp_dirs_differ "$X" compare "$T/cases/test_cc_sequence_at_neg/test_data_set_0" "$T/cases/test_cc_sequence_at_pos0/test_data_set_0"
# GOT lacking an output, or holding one EXPECTED lacks, is a difference (1), not a usage error
expect 1 cmp_missing "$X" compare "$T/nope.pb" "$S/want_pos0.json"
out_has cmp_missing "differs: missing: $T/nope.pb does not exist"
mkdir -p "$T/cmp_two" && cp "$T/od/output_0.pb" "$T/cmp_two/output_0.pb" && cp "$T/od/output_0.pb" "$T/cmp_two/output_1.pb"
expect 1 cmp_dir_missing "$X" compare "$T/od" "$T/cmp_two"
out_has cmp_dir_missing "output_0: match"
out_has cmp_dir_missing "output_1: differs: missing: $T/od has no output_1.pb, .json, .npy or .npz"
expect 1 cmp_dir_missing_json "$X" compare --json "$T/od" "$T/cmp_two"
out_has cmp_dir_missing_json '{"name":"output_1","match":false,"difference":"missing: '
expect 1 cmp_dir_extra "$X" compare "$T/cmp_two" "$T/od"
out_has cmp_dir_extra "output_1: differs: extra: $T/cmp_two/output_1.pb is in GOT but not in EXPECTED"
expect 1 cmp_dir_gone "$X" compare "$T/no_such_dir" "$T/od"
out_has cmp_dir_gone "output_0: differs: missing: $T/no_such_dir does not exist"
# an EXPECTED that cannot be read is rejected input (1), with its name
expect 1 cmp_want_missing "$X" compare "$T/od/output_0.pb" "$T/nope.pb"
err_has cmp_want_missing "nope.pb"
head -c 5 "$T/od/output_0.pb" >"$T/trunc_got.pb"
expect 1 cmp_got_bad "$X" compare "$T/trunc_got.pb" "$S/want_pos0.json"
err_has cmp_got_bad "trunc_got.pb"
out_lacks cmp_got_bad "missing"
expect 2 cmp_usage "$X" compare "$T/od/output_0.pb"
expect 2 cmp_bad_tol "$X" compare --rtol x "$T/od/output_0.pb" "$S/want_pos0.json"

# ---- show and info ----
expect 0 make_unknown "$X" make Frobnicate --force --opset 13 --input x:float32[2] -o "$T/unknown.onnx"
err_has make_unknown "onnxop make: warning: no operator 'Frobnicate' in ai.onnx"
head -c 20 "$T/seq3.pb" >"$T/trunc.pb"
head -c 30 "$T/sequence_at.onnx" >"$T/trunc.onnx"
expect 0 show_json "$X" show "$S/want_pos2.json"
same_text show_json "$G/show_pos2.txt"
expect 0 show_seq "$X" show --stats "$T/seq3.pb"
out_has show_seq "sequence(len=3), element_shape=(2, 3), element_dtype=float32"
out_has show_seq "[0] stats: min=-4.75 max=3.5 mean=-0.5 nan=0 inf=0"
expect 1 show_bad "$X" show "$T/trunc.pb"
err_has show_bad "trunc.pb"
expect 2 show_none "$X" show
expect 0 info "$X" info "$T/sequence_at.onnx"
out_has info "opset_import: ai.onnx 11"
out_has info "input_seq: seq(tensor(float))"
out_has info "SequenceAt-11 'node' (input_seq, position) -> (output_tensor)"
out_has info "every node can run in this build"
expect 0 info_unknown "$X" info "$T/unknown.onnx"
out_has info_unknown "Frobnicate 'node' (x) -> (output)  [unsupported in this build: opset 13]"
out_has info_unknown "1 node cannot run in this build (operator unsupported)"
expect 1 info_bad "$X" info "$T/trunc.onnx"
# a model run refuses at load (its structure): shown as far as it goes, then
# said invalid, and why; exit 1 (make writes it, with a warning)
"$X" make Add --force --input a:float32[2] --input a:float32[2] -o "$T/dup_input.onnx" 2>/dev/null
expect 1 info_invalid "$X" info "$T/dup_input.onnx"
out_has info_invalid "Add-14 'node' (a, a) -> (output)"
out_has info_invalid "  invalid: graph input 'a' is listed twice"
out_lacks info_invalid "every node can run"
err_has info_invalid "dup_input.onnx: invalid model: graph input 'a' is listed twice"
expect 1 info_invalid_json "$X" info --json "$T/dup_input.onnx"
out_has info_invalid_json '"unsupported":0,"invalid":"graph input '"'a'"' is listed twice"}'
# a node without a required attribute: make --force writes it with a warning, info
# marks it with run's message, run refuses it at load and writes nothing
expect 0 make_no_axis "$X" make Concat --force --opset 13 --input a:float32[2] --input b:float32[2] -o "$T/no_axis.onnx"
err_has make_no_axis "onnxop make: warning: node 'node' Concat-13: the attribute 'axis' is required"
expect 0 info_no_axis "$X" info "$T/no_axis.onnx"
out_has info_no_axis "Concat-13 'node' (a, b) -> (output)  [cannot run: the attribute 'axis' is required]"
out_has info_no_axis "1 node cannot run as written (an attribute is missing, undeclared or mistyped)"
out_lacks info_no_axis "cannot run in this build"
expect 0 info_no_axis_json "$X" info --json "$T/no_axis.onnx"
out_has info_no_axis_json '"supported":false,"problem":"the attribute '"'axis'"' is required","attributes":[]}'
out_has info_no_axis_json '"unsupported":1'
expect 1 run_no_axis "$X" run "$T/no_axis.onnx" --in 'float32[2]:1,2' --in 'float32[2]:3,4' --out "$T/never_axis.pb"
err_has run_no_axis "no_axis.onnx: node 'node' Concat-13: the attribute 'axis' is required"
no_file "$T/never_axis.pb"
# an attribute the op-version does not declare (MaxPool has no count_include_pad),
# or one of the wrong type, is refused at load as ONNX's checker does
expect 0 make_undeclared "$X" make MaxPool --force --opset 12 --input x:float32[1,1,2,2] -a kernel_shape=[2,2] -a count_include_pad=1 -o "$T/undeclared.onnx"
err_has make_undeclared "'count_include_pad' is not an attribute of MaxPool-12 (its attributes: auto_pad, ceil_mode, dilations, kernel_shape, pads, storage_order, strides)"
expect 1 run_undeclared "$X" run "$T/undeclared.onnx" --in 'float32[1,1,2,2]:1,2,3,4' --out "$T/never_undeclared.pb"
err_has run_undeclared "undeclared.onnx: node 'node' MaxPool-12: 'count_include_pad' is not an attribute of MaxPool-12"
no_file "$T/never_undeclared.pb"
expect 0 info_undeclared "$X" info "$T/undeclared.onnx"
out_has info_undeclared "[cannot run: 'count_include_pad' is not an attribute of MaxPool-12"
# MaxPool-8 has storage_order but not yet ceil_mode (10)
expect 0 make_later_attr "$X" make MaxPool --force --opset 8 --input x:float32[1,1,2,2] -a kernel_shape=[2,2] -a ceil_mode=1 -o "$T/later_attr.onnx"
expect 1 run_later_attr "$X" run "$T/later_attr.onnx" --in 'float32[1,1,2,2]:1,2,3,4'
err_has run_later_attr "'ceil_mode' is not an attribute of MaxPool-8"
expect 0 make_mistyped "$X" make MaxPool --force --opset 12 --input x:float32[1,1,2,2] -a kernel_shape=2.0 -o "$T/mistyped.onnx"
expect 1 run_mistyped "$X" run "$T/mistyped.onnx" --in 'float32[1,1,2,2]:1,2,3,4'
err_has run_mistyped "node 'node' MaxPool-12: attribute 'kernel_shape' is of type float; expected ints"
expect 0 ops_required "$X" ops If
out_has ops_required "  attributes: else_branch:graph (required), then_branch:graph (required)"
expect 0 ops_attrs "$X" ops MaxPool
# MaxPool-8 added storage_order, MaxPool-10 ceil_mode and dilations; defaults as the spec gives them
out_has ops_attrs "  attributes: auto_pad:string=NOTSET, kernel_shape:ints (required), pads:ints, strides:ints"
out_has ops_attrs "  attributes: auto_pad:string=NOTSET, kernel_shape:ints (required), pads:ints, storage_order:int=0, strides:ints"
expect 0 ops_no_attrs "$X" ops Relu
out_has ops_no_attrs "  attributes: none"
expect 0 ops_required_json "$X" ops --json Concat
out_has ops_required_json '"since":13,"until":null,"family":"tensor",'
out_has ops_required_json '"attributes":[{"name":"axis","type":"int","required":true}],"required":"axis:int"}]'
# defaults typed: numbers, strings, lists
expect 0 ops_default_json "$X" ops --json RNN
out_has ops_default_json '{"name":"activations","type":"strings","required":false,"default":["Tanh","Tanh"]}'
out_has ops_default_json '{"name":"direction","type":"string","required":false,"default":"forward"}'
out_has ops_default_json '{"name":"layout","type":"int","required":false,"default":0}'
expect 0 ops_default_float "$X" ops --json LeakyRelu
out_has ops_default_float '{"name":"alpha","type":"float","required":false,"default":0.01}'

# make xfail-update edits a list line by line: a listed case that still fails
# keeps its reason, one that passes loses its line, a new failure is added
# with onnxop's message; an unrunnable suite leaves the list alone
printf '%s\n' '# a header' 'h_no_sets: a reason written by hand' 'h_complete: it used to fail' >"$T/xfail.txt"
expect 0 xfail_update sh tests/xfail-update.sh "$B" --list "$T/xfail.txt" "$hc"
expect 0 xfail_update_list cat "$T/xfail.txt"
out_has xfail_update_list "# a header"
out_has xfail_update_list "h_no_sets: a reason written by hand"
out_has xfail_update_list "h_extra_input: test_data_set_0: 3 input files"
expect 1 xfail_update_passes grep -q h_complete "$T/xfail.txt"
cp "$T/xfail.txt" "$T/xfail.before"
expect 1 xfail_update_none sh tests/xfail-update.sh "$B" --list "$T/xfail.txt" "$T/nocase"
err_has xfail_update_none "left as it is"
expect 0 xfail_update_kept cmp "$T/xfail.txt" "$T/xfail.before"

# ---- errors: exit codes, messages, no output file ----
echo '{"dtype": "int64", "shape": [], "data": 3}' >"$T/pos3.json"
expect 1 out_of_range "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$T/pos3.json" --out "$T/never.pb"
err_has out_of_range "node 'node' SequenceAt-11: position 3 is out of range [-3, 2] for a sequence of 3 tensors"
no_file "$T/never.pb"
echo '{"dtype": "int64", "shape": [2], "data": [0, 1]}' >"$T/pos_vec.json"
expect 1 pos_not_scalar "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$T/pos_vec.json"
err_has pos_not_scalar "input 'position' has rank 1 (shape (2,)); the model declares rank 0"
expect 1 wrong_kind "$X" run "$T/sequence_at.onnx" --in "$S/want_pos0.json" --in "$S/pos_pos0.json" --out-dir "$T/never_dir"
err_has wrong_kind "input 'input_seq'"
no_file "$T/never_dir/output_0.pb"
expect 1 truncated_input "$X" run "$T/sequence_at.onnx" --in "$T/trunc.pb" --in "$T/pos_pos0.pb"
err_has truncated_input "trunc.pb"
echo '{"optional": null, "elem_type": "tensor(float)"}' >"$T/empty_opt.json"
expect 1 empty_optional "$X" run "$T/oge_tensor.onnx" --in "$T/empty_opt.json"
err_has empty_optional "OptionalGetElement-18"
expect 1 missing_model "$X" run "$T/nope.onnx"
err_has missing_model "nope.onnx"
expect 1 truncated_model "$X" run "$T/trunc.onnx"
err_has truncated_model "trunc.onnx"
expect 3 unsupported "$X" run "$T/unknown.onnx" --in "$S/pos_pos0.json"
err_has unsupported "unsupported operator Frobnicate (ai.onnx, opset 13)"
expect 0 make_seqat10 "$X" make SequenceAt --force --opset 10 --input 's:seq(tensor(float))' --input 'p:tensor(int64)' -o "$T/sequence_at10.onnx"
expect 3 unsupported_version "$X" run "$T/sequence_at10.onnx" --in "$S/seq3.json" --in "$S/pos_pos0.json"
err_has unsupported_version "unsupported operator SequenceAt (ai.onnx, opset 10): the operator first appears at opset 11"
expect 0 make_ter5 "$X" make TreeEnsembleRegressor --force --domain ai.onnx.ml --opset 5 --input 'X:float32[1,2]' --output Y -o "$T/ter5.onnx"
expect 3 deprecated_op "$X" run "$T/ter5.onnx" --in 'float32[1,2]:1,2'
err_has deprecated_op "unsupported operator TreeEnsembleRegressor (ai.onnx.ml, opset 5): ONNX deprecated the operator at opset 5; onnxop runs it for opsets 1 to 4"
expect 2 too_many_inputs "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$S/pos_pos0.json" --in "$S/pos_pos0.json"
expect 1 missing_input "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json"
err_has missing_input "input 'position' was not given"

# huge sizes are refused before allocation, by the memory limit
expect 0 make_cos "$X" make ConstantOfShape --opset 21 --input 's:int64[2]' -o "$T/cos.onnx"
expect 1 huge "$X" run "$T/cos.onnx" --in 'int64[2]:1000000,1000000' --out "$T/never_huge.pb"
err_has huge "node 'node' ConstantOfShape-21: a float32 tensor of shape (1000000, 1000000) needs 4000000000000 bytes, more than the memory limit allows"
no_file "$T/never_huge.pb"
expect 1 max_memory "$X" run --max-memory 1M "$T/cos.onnx" --in 'int64[2]:1000,1000'
err_has max_memory "(1048576 bytes; see --max-memory)"
expect 0 max_memory_ok "$X" run --max-memory 64M "$T/cos.onnx" --in 'int64[2]:1000,1000' --out "$T/cos_out.pb"
expect 2 max_memory_bad "$X" run --max-memory lots "$T/cos.onnx"
err_has max_memory_bad "--max-memory: 'lots' is not a size"
# --threads N: the same bytes for every N (products large enough to be split)
expect 0 make_mm_big "$X" make MatMul --input 'a:float32[300,257]' --input 'b:float32[257,301]' \
  --output y --case "$T/mm_big" --random 7
expect 0 make_conv_big "$X" make Conv --input 'x:float32[2,16,40,41]' --input 'w:float32[24,8,3,3]' \
  --input 'b:float32[24]' -a group=2 -a 'pads=[1, 1, 1, 1]' --output y --case "$T/conv_big" --random 7
# many small products, split by whole products
expect 0 make_mm_batch "$X" make MatMul --input 'a:float32[4096,8,8]' --input 'b:float32[4096,8,8]' \
  --output y --case "$T/mm_batch" --random 7
# Einsum's batched GEMM goes through the same split (q k^T per batch and head)
expect 0 make_ein_batch "$X" make Einsum --opset 12 -a 'equation=bhid,bhjd->bhij' \
  --input 'q:float32[4,8,40,24]' --input 'k:float32[4,8,36,24]' --output y --case "$T/ein_batch" --random 7
for c in mm_big conv_big mm_batch ein_batch; do
  for n in 1 2 3; do
    expect 0 "threads_${c}_$n" "$X" run --threads $n "$T/$c/model.onnx" \
      --in "$T/$c/test_data_set_0/input_0.pb" --in "$T/$c/test_data_set_0/input_1.pb" \
      $([ $c = conv_big ] && echo --in "$T/$c/test_data_set_0/input_2.pb") --out "$T/${c}_t$n.pb"
  done
  for n in 2 3; do
    if cmp -s "$T/${c}_t1.pb" "$T/${c}_t$n.pb"; then ok; else bad "$c: --threads $n differs from --threads 1"; fi
  done
done
expect 0 threads_env env ONNXOP_THREADS=2 "$X" run "$T/mm_big/model.onnx" \
  --in "$T/mm_big/test_data_set_0/input_0.pb" --in "$T/mm_big/test_data_set_0/input_1.pb" --out "$T/mm_big_env.pb"
if cmp -s "$T/mm_big_t1.pb" "$T/mm_big_env.pb"; then ok; else bad "ONNXOP_THREADS=2 differs from --threads 1"; fi
expect 2 threads_neg "$X" run --threads -1 "$T/mm_big/model.onnx"
err_has threads_neg "--threads: '-1' is not a thread count from 0 (one per CPU) to 256"
expect 2 threads_word "$X" run --threads x "$T/mm_big/model.onnx"
err_has threads_word "--threads: 'x' is not a thread count"
expect 2 threads_missing "$X" run "$T/mm_big/model.onnx" --threads
err_has threads_missing "--threads needs a count"
printf '%s\n' "onnxop run: --threads needs a count (0: one per CPU)" "Try 'onnxop run --help'." >"$T/threads_missing.want"
same_err threads_missing "$T/threads_missing.want"
expect 2 given_twice "$X" run "$T/sequence_at.onnx" --in "input_seq=$S/seq3.json" --in "input_seq=$S/seq3.json"
err_has given_twice "input 'input_seq' is given twice"

# ---- bench: times the evaluation alone; bad input and usage errors ----
expect 0 bench "$X" bench "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$S/pos_pos2.json" --runs 5 --warmup 1
out_has bench "sequence_at.onnx: runs=5 median_us="
out_has bench " bytes_in=80 bytes_out=24 threads=1 load_us="
expect 0 bench_threads "$X" bench --threads 2 "$T/mm_big/model.onnx" --in "$T/mm_big/test_data_set_0/input_0.pb" \
  --in "$T/mm_big/test_data_set_0/input_1.pb" --runs 2 --warmup 0
out_has bench_threads " threads=2"
expect 0 bench_named "$X" bench "$T/sequence_at.onnx" --in "position=int64[]:-2" --in "$S/seq3.json" --runs 1 --warmup 0
# --time: the one line on stdout, then a warm run's node times on stderr
expect 0 bench_time "$X" bench "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$S/pos_pos2.json" --runs 2 --time
out_has bench_time "sequence_at.onnx: runs=2 median_us="
err_has bench_time " us  node '"
err_has bench_time "SequenceAt"
out_lacks bench_time " us  node '"
expect 0 bench_help "$X" bench --help
out_has bench_help "usage: onnxop bench MODEL"
expect 1 bench_bad_input "$X" bench "$T/sequence_at.onnx" --in "$T/trunc.pb" --in "$S/pos_pos0.json"
err_has bench_bad_input "trunc.pb"
expect 1 bench_eval_fails "$X" bench "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$T/pos3.json"
err_has bench_eval_fails "position 3 is out of range"
expect 1 bench_missing_model "$X" bench "$T/nope.onnx"
expect 3 bench_unsupported "$X" bench "$T/unknown.onnx" --in "$S/pos_pos0.json"
expect 2 bench_no_model "$X" bench
expect 2 bench_bad_runs "$X" bench "$T/sequence_at.onnx" --runs 0
err_has bench_bad_runs "--runs needs a count from 1 to 100000000, not '0'"
# every bad count gives the option's own range (-1 was "0 to 100000000" for --runs)
expect 2 bench_bad_runs_neg "$X" bench "$T/sequence_at.onnx" --runs -1
err_has bench_bad_runs_neg "--runs needs a count from 1 to 100000000, not '-1'"
expect 2 bench_bad_runs_big "$X" bench "$T/sequence_at.onnx" --runs 100000001
err_has bench_bad_runs_big "--runs needs a count from 1 to 100000000, not '100000001'"
expect 2 bench_bad_warmup_neg "$X" bench "$T/sequence_at.onnx" --warmup -1
err_has bench_bad_warmup_neg "--warmup needs a count from 0 to 100000000, not '-1'"
expect 2 bench_bad_runs_missing "$X" bench "$T/sequence_at.onnx" --runs
err_has bench_bad_runs_missing "--runs needs a count from 1 to 100000000"
expect 2 bench_bad_warmup "$X" bench "$T/sequence_at.onnx" --warmup x
err_has bench_bad_warmup "--warmup needs a count"
expect 2 bench_too_many "$X" bench "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$S/pos_pos0.json" --in "$S/pos_pos0.json"

# ---- output that cannot be written: a full disk, a closed pipe ----
# full CODE NAME FD CMD...: run CMD with FD (1: stdout, 2: stderr) on
# /dev/full, the other stream kept in $T/NAME.out or $T/NAME.err
full() {
  code=$1 name=$2 fd=$3
  shift 3
  if [ "$fd" = 1 ]; then "$@" >/dev/full 2>"$T/$name.err"; else "$@" >"$T/$name.out" 2>/dev/full; fi
  got=$?
  if [ "$got" = "$code" ]; then ok; else bad "$name: exit $got with fd $fd on /dev/full, expected $code"; fi
}
if [ -w /dev/full ]; then
  expect 0 full_big_make "$X" run "$T/cos.onnx" --in 'int64[2]:100,300' --out "$T/big.pb"
  full 1 full_help 1 "$X" --help
  err_has full_help "onnxop: cannot write to standard output: No space left on device"
  full 1 full_version 1 "$X" --version
  full 1 full_run_help 1 "$X" run --help
  full 1 full_run 1 "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2'
  err_has full_run "cannot write to standard output"
  full 1 full_trace_out 1 "$X" run --trace "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2'
  # a trace that cannot be written fails the run, before any output file is written
  full 1 full_trace 2 "$X" run --trace "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2' --out "$T/never_trace.pb"
  no_file "$T/never_trace.pb"
  full 1 full_time 2 "$X" run --time "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2'
  full 1 full_show 1 "$X" show "$S/want_pos2.json"
  full 1 full_show_stats 1 "$X" show --stats "$T/seq3.pb"
  # show stops at the first failed write: the bad file after it is never read
  full 1 full_show_big 1 "$X" show --full "$T/big.pb" "$T/trunc.pb"
  err_has full_show_big "cannot write to standard output"
  if grep -q trunc.pb "$T/full_show_big.err"; then bad "full_show_big: show went on after a failed write"; else ok; fi
  full 1 full_info 1 "$X" info "$T/sequence_at.onnx"
  full 1 full_info_json 1 "$X" info --json "$T/sequence_at.onnx"
  full 1 full_ops 1 "$X" ops
  full 1 full_ops_one 1 "$X" ops SequenceAt
  full 1 full_ops_json 1 "$X" ops --json
  full 1 full_compare 1 "$X" compare "$T/od/output_0.pb" "$S/want_pos2.json"
  full 1 full_compare_json 1 "$X" compare --json "$T/od/output_0.pb" "$S/want_pos2.json"
  full 1 full_test 1 "$X" test "$T/cases/test_cc_sequence_at_neg"
  full 1 full_test_json 1 "$X" test --json "$T/cases/test_cc_sequence_at_neg"
  full 1 full_test_verbose 1 "$X" test -v -j 2 "$T/cases/test_cc_sequence_at_neg" "$T/cases/test_cc_sequence_at_pos0"
  full 1 full_bench 1 "$X" bench "$T/sequence_at.onnx" --in "$S/seq3.json" --in "$S/pos_pos2.json" --runs 1 --warmup 0
  # a warning that cannot be shown fails the command too
  full 1 full_make_warning 2 "$X" make Concat --force --opset 13 --input a:float32[2] --input b:float32[2] -o "$T/no_axis2.onnx"
  # failures keep their status when their message cannot be written
  full 1 full_err_run 2 "$X" run "$T/nope.onnx"
  full 1 full_err_compare 2 "$X" compare "$T/od/output_0.pb" "$S/want_pos0.json"
  full 2 full_err_usage 2 "$X" run
  full 3 full_err_unsupported 2 "$X" run "$T/unknown.onnx" --in "$S/pos_pos0.json"
  # nothing printed, nothing lost: a quiet success stays 0
  full 0 full_quiet 1 "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2' --out "$T/quiet.pb"
  full 0 full_quiet_err 2 "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2' --out "$T/quiet.pb"
fi
# stdout closed (>&-): an error only when something was to be printed
"$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2' >&- 2>"$T/closed_print.err"
if [ $? = 1 ]; then ok; else bad "closed_print: exit 0 with stdout closed"; fi
err_has closed_print "onnxop: cannot write to standard output: Bad file descriptor"
"$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:-2' --out "$T/quiet2.pb" >&- 2>"$T/closed_quiet.err"
if [ $? = 0 ]; then ok; else bad "closed_quiet: $(cat "$T/closed_quiet.err")"; fi
# a closed pipe with SIGPIPE ignored (as under some shells and services): exit 1
(
  trap '' PIPE
  "$X" show --full "$T/big.pb" "$T/big.pb" 2>"$T/pipe_show.err"
  echo $? >"$T/pipe_show.rc"
) | head -c 10 >/dev/null
if [ "$(cat "$T/pipe_show.rc")" = 1 ]; then ok; else bad "pipe_show: exit $(cat "$T/pipe_show.rc") into a closed pipe, expected 1"; fi
err_has pipe_show "onnxop: cannot write to standard output"

# ---- usage ----
expect 2 no_args "$X"
err_has no_args "usage: onnxop COMMAND [ARGS]"
# global options and no command: the same usage as no arguments at all; an
# error in them names no command (not "onnxop --threads: ...")
expect 2 no_cmd_threads "$X" --threads 2
same_err no_cmd_threads "$T/no_args.err"
expect 2 no_cmd_max_memory "$X" --max-memory 1G
same_err no_cmd_max_memory "$T/no_args.err"
expect 2 no_cmd_both "$X" --threads 2 --max-memory 1G
same_err no_cmd_both "$T/no_args.err"
printf '%s\n' "onnxop: --threads needs a count (0: one per CPU)" "Try 'onnxop --help'." >"$T/no_cmd_threads_missing.want"
expect 2 no_cmd_threads_missing "$X" --threads
same_err no_cmd_threads_missing "$T/no_cmd_threads_missing.want"
printf '%s\n' "onnxop: --max-memory needs a size such as 512M or 4G" "Try 'onnxop --help'." >"$T/no_cmd_mm_missing.want"
expect 2 no_cmd_mm_missing "$X" --threads 2 --max-memory
same_err no_cmd_mm_missing "$T/no_cmd_mm_missing.want"
printf '%s\n' "onnxop: --threads: 'x' is not a thread count from 0 (one per CPU) to 256" "Try 'onnxop --help'." >"$T/no_cmd_threads_bad.want"
expect 2 no_cmd_threads_bad "$X" --threads x
same_err no_cmd_threads_bad "$T/no_cmd_threads_bad.want"
printf '%s\n' "onnxop: ONNXOP_SEED is 'x'; it must be a number from 0 to 4294967295" "Try 'onnxop --help'." >"$T/no_cmd_seed_bad.want"
expect 2 no_cmd_seed_bad env ONNXOP_SEED=x "$X" --threads 2
same_err no_cmd_seed_bad "$T/no_cmd_seed_bad.want"
# ONNXOP_ISA: a level's name (accepted), anything else a usage error (the
# suites run at each level: tests/check.sh)
printf '%s\n' "onnxop: ONNXOP_ISA is 'avx3'; it must be generic, avx2 or avx512" "Try 'onnxop --help'." >"$T/no_cmd_isa_bad.want"
expect 2 no_cmd_isa_bad env ONNXOP_ISA=avx3 "$X" --threads 2
same_err no_cmd_isa_bad "$T/no_cmd_isa_bad.want"
expect 0 isa_generic env ONNXOP_ISA=generic "$X" --threads 2 ops
expect 2 unknown_cmd "$X" frobnicate
err_has unknown_cmd "unknown command 'frobnicate'"
expect 2 run_no_model "$X" run
expect 2 run_bad_opt "$X" run "$T/sequence_at.onnx" --bogus
err_has run_bad_opt "unknown option '--bogus'"
expect 0 help "$X" --help
out_has help "usage: onnxop COMMAND"
out_has help "  --threads N         run the heavy kernels on up to N threads"
out_has help "  --max-memory SIZE   refuse to hold more than SIZE"
expect 0 run_help "$X" run --help
out_has run_help "--out-dir DIR"
# every --help lists its exit statuses, as the man page does
for c in run test ops make convert compare show info bench report; do
  expect 0 "exit_help_$c" "$X" $c --help
  out_has "exit_help_$c" "exit status:"
  out_has "exit_help_$c" "  2      usage error: a bad command line"
  out_has "exit_help_$c" "  128+N  killed by signal N"
done
for c in run make bench; do out_has "exit_help_$c" "  3      the model needs an operator (op, opset version, domain)"; done
out_has exit_help_ops "  3      no operator OP is implemented"
out_has help "  3      the model needs an operator (op, opset version, domain)"
expect 0 version "$X" --version
out_has version "onnxop "
expect 0 ops "$X" ops
out_has ops "SequenceAt"
out_has ops "OptionalGetElement"
expect 0 ops_one "$X" ops SequenceAt
out_has ops_one "ai.onnx SequenceAt 11+"
expect 3 ops_none "$X" ops NoSuchOp
expect 0 ops_no_input "$X" ops RandomNormal
out_has ops_no_input "  output element types: float, float16, double"
expect 0 ops_json "$X" ops --json SequenceAt
out_has ops_json '[{"domain":"ai.onnx","op":"SequenceAt","since":11,"until":null,"family":"sequence","types":["float","uint8","int8","uint16","int16","int32","int64","string","bool","float16","double","uint32","uint64","complex64","complex128"],"attributes":[]}]'
expect 0 ops_json_all "$X" ops --json
out_has ops_json_all '"op":"OptionalGetElement","since":18,"until":null'
expect 2 test_no_path "$X" test

# ---- .npy and .npz ----
. tests/cli/npy.sh
# compare: an .npz member GOT lacks, or has in excess, is a difference
expect 0 npz_x_only "$X" convert "$N/bundle.npz:x" "$T/x_only.npz"
expect 1 cmp_npz_missing "$X" compare "$T/x_only.npz" "$N/bundle.npz"
out_has cmp_npz_missing "x: match"
out_has cmp_npz_missing "pos: differs: missing: $T/x_only.npz has no member 'pos'"
expect 1 cmp_npz_extra "$X" compare "$N/bundle.npz" "$T/x_only.npz"
out_has cmp_npz_extra "pos: differs: extra: $N/bundle.npz:pos is in GOT but not in EXPECTED"
expect 1 cmp_npz_member "$X" compare "$T/x_only.npz:pos" "$N/bundle.npz:pos"
out_has cmp_npz_member "differs: missing: $T/x_only.npz has no member 'pos'"
# make -a with a list of strings: [a, b] and a,b; a '[' never closed is refused
echo '{"dtype": "string", "shape": [3], "data": ["a", "b", "c"]}' >"$T/abc.json"
expect 0 make_strings_list "$X" make StringNormalizer --opset 10 -a 'stopwords=[a, b]' --input 'X:string[3]' -o "$T/sn1.onnx"
expect 0 run_strings_list "$X" run "$T/sn1.onnx" --in "$T/abc.json"
out_has run_strings_list "['c']"
expect 0 make_strings_kind "$X" make StringNormalizer --opset 10 -a 'stopwords:strings=b,c' --input 'X:string[3]' -o "$T/sn2.onnx"
expect 0 run_strings_kind "$X" run "$T/sn2.onnx" --in "$T/abc.json"
out_has run_strings_kind "['a']"
expect 2 make_strings_open "$X" make StringNormalizer --opset 10 -a 'stopwords:strings=[a,b' --input 'X:string[3]' -o "$T/sn3.onnx"
err_has make_strings_open "opens a list with '[' but does not close it"
no_file "$T/sn3.onnx"
# a case folder of .npy files (as run --format npy writes them) is a test case too
mkdir -p "$T/npycase/test_data_set_0"
expect 0 npycase_make "$X" make Add --opset 14 --input 'A:float32[3]' --input 'B:float32[3]' --output C -o "$T/npycase/model.onnx"
expect 0 npycase_in0 "$X" convert 'float32[3]:1,2,3' "$T/npycase/test_data_set_0/input_0.npy"
expect 0 npycase_in1 "$X" convert 'float32[3]:10,20,30' "$T/npycase/test_data_set_0/input_1.npy"
expect 0 npycase_out "$X" convert 'float32[3]:11,22,33' "$T/npycase/test_data_set_0/output_0.npy"
expect 0 npycase_test "$X" test "$T/npycase"
out_has npycase_test "1 passed, 0 failed"
expect 0 npycase_wrong "$X" convert 'float32[3]:11,22,34' "$T/npycase/test_data_set_0/output_0.npy"
expect 1 npycase_test_wrong "$X" test "$T/npycase"
out_has npycase_test_wrong "0 passed, 1 failed"
# ONNXOP_SEED: an unseeded RandomNormal draws as if seeded with it
expect 0 make_rn "$X" make RandomNormal --opset 1 -a 'shape=[4]' --output y -o "$T/rn.onnx"
expect 0 make_rn5 "$X" make RandomNormal --opset 1 -a 'shape=[4]' -a seed=5.0 --output y -o "$T/rn5.onnx"
expect 0 rn_env env ONNXOP_SEED=5 "$X" run "$T/rn.onnx"
expect 0 rn_seed5 "$X" run "$T/rn5.onnx"
same_text rn_env "$T/rn_seed5.out"
expect 2 rn_bad_seed env ONNXOP_SEED=-1 "$X" run "$T/rn.onnx"
err_has rn_bad_seed "ONNXOP_SEED is '-1'; it must be a number from 0 to 4294967295"
# usage errors after the cases were collected (the ASan run checks they are freed)
expect 2 test_bad_j_after_path "$X" test "$T/cases" -j 65
err_has test_bad_j_after_path "-j needs a number from 0 (one per CPU) to 64, not '65'"
# the shared option conventions (cli/opts.c): -j 0 is one per CPU, as
# --threads 0; --opt=value; fractions of a second; -- ends the options
expect 0 test_j0 "$X" test -j 0 --timeout=0.5 "$T/cases/test_cc_sequence_at_neg"
out_has test_j0 "1 passed, 0 failed"
expect 0 test_jobs_eq "$X" test --jobs=2 -- "$T/cases/test_cc_sequence_at_neg"
out_has test_jobs_eq "1 passed, 0 failed"
expect 2 test_opt_suggest "$X" test --fail-fats "$T/cases"
err_has test_opt_suggest "unknown option '--fail-fats'; did you mean '--fail-fast'?"
expect 2 test_bad_xfail_after_path "$X" test "$T/cases" --xfail "$T/no-such-list.txt"
err_has test_bad_xfail_after_path "cannot read the expected-failure list"
# ---- test --json, info --json, make --random ----
. tests/cli/json_make.sh
# ---- authoring suites: round trips, make, run, info, conventions ----
. tests/cli/suites.sh
# ---- strict where the spec is: Constant-1, NLL-13, GroupNormalization-18, IR 14 ----
. tests/cli/strict.sh

# ---- what make, spec files, convert and compare refuse or keep (issue 27) ----
. tests/cli/contract.sh

# ---- onnxop test as a runner, onnxop report ----
SUITE=$2
. tests/cli/runner.sh
# ---- onnxop report and test -k on hostile input ----
. tests/cli/report.sh
# ---- com.microsoft, experimental and onnxruntime's ai.onnx operators ----
. tests/cli/contrib.sh
# ---- graphs in the wild: out of order, two writers of a name, 3000 nodes ----
. tests/cli/graphs.sh

# ---- elementwise followers fused into their Conv ----
. tests/cli/fuse.sh

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
