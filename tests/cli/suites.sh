# tests/cli/suites.sh: authoring suites (issue 20): round trips, make's models
# and data, looking inside, command-line conventions. Sourced by
# tests/cli/run.sh (uses its X, T, S and helpers).
SH=../shared/onnx-node-tests
DEB=/usr/share/libonnx-testdata/data/node

# ---- round trips: values of the suites that JSON could not hold ----
# an empty SequenceProto (elem_type TENSOR, no element) is a sequence, not an optional
if [ -d "$SH" ]; then
  expect 0 show_empty_seq "$X" show "$SH/test_loop13_seq/test_data_set_0/input_2.pb"
  out_has show_empty_seq "seq_empty: sequence(len=0)"
  # .pb -> .json -> .pb: an empty tensor whose zero dim is not last, an
  # absent optional (elem_type UNDEFINED), an empty sequence
  for f in test_reduce_sum_empty_set/test_data_set_0/input_0 \
           test_optional_has_element_empty_optional_input/test_data_set_0/input_0 \
           test_loop13_seq/test_data_set_0/input_2; do
    n=$(echo "$f" | cut -d/ -f1)
    expect 0 "rt_json_$n" "$X" convert "$SH/$f.pb" "$T/rt_$n.json"
    expect 0 "rt_pb_$n" "$X" convert "$T/rt_$n.json" "$T/rt_$n.pb"
    expect 0 "rt_cmp_$n" "$X" compare "$T/rt_$n.pb" "$SH/$f.pb"
  done
  out_has show_empty_seq "[]"
fi
# the absent optional's open element type ("?") is filled in from the model
expect 0 rt_opt_model "$X" make OptionalHasElement --opset 18 --input 'x:optional(tensor(float))' --output 'y:bool[]' -o "$T/rt_ohe.onnx"
printf '{"optional": null, "elem_dtype": "?"}' >"$T/rt_open.json"
expect 0 rt_opt_run "$X" run "$T/rt_ohe.onnx" --in "$T/rt_open.json"
out_has rt_opt_run "False"

# ---- one parser of type strings: blanks inside, as in JSON ----
expect 0 type_blanks "$X" make Identity --input 'x:tensor( float )' --output 'y: tensor( float ) ' --case "$T/type_blanks" --in 'x=float32[2]:1,2'
expect 2 type_bad "$X" make Identity --input 'x:tensor(flaot)' -o "$T/type_bad.onnx"
err_has type_bad "'tensor(flaot)' is not a type: unknown dtype \"flaot\""
no_file "$T/type_bad.onnx"

# ---- models every tool accepts ----
# the IR version the opsets need (onnx's helper.VERSION_TABLE), or --ir-version
expect 0 mk_ir13 "$X" make Relu --opset 13 --input x:float32[3,4] -o "$T/mk_ir13.onnx"
expect 0 mk_ir13_info "$X" info "$T/mk_ir13.onnx"
out_has mk_ir13_info "ir_version: 7"
out_has mk_ir13_info "    x: tensor(float) (3, 4)"
out_has mk_ir13_info "    output: tensor(float) (3, 4)"
expect 0 mk_ir_new "$X" make Relu --input x:float32[3] -o "$T/mk_ir_new.onnx"
expect 0 mk_ir_new_info "$X" info "$T/mk_ir_new.onnx"
out_has mk_ir_new_info "ir_version: 13"
out_has mk_ir_new_info "opset_import: ai.onnx 28"
expect 0 mk_ir_given "$X" make Relu --opset 13 --ir-version 8 --input x:float32[3] -o "$T/mk_ir_given.onnx"
expect 0 mk_ir_given_info "$X" info "$T/mk_ir_given.onnx"
out_has mk_ir_given_info "ir_version: 8"
expect 2 mk_ir_old "$X" make Relu --opset 13 --ir-version 6 --input x:float32[3] -o "$T/never.onnx"
err_has mk_ir_old "onnxop make: --ir-version 6 is too old: ai.onnx opset 13 needs IR version 7 or later"
expect 2 mk_ir_future "$X" make Relu --ir-version 99 --input x:float32[3] -o "$T/never.onnx"
err_has mk_ir_future "--ir-version 99 is past the newest IR version onnxop knows (14)"
# an opset past the newest the registry knows is an error; each domain has its own default
expect 2 mk_opset99 "$X" make Relu --opset 99 --input x:float32[3] -o "$T/never.onnx"
err_has mk_opset99 "onnxop make: ai.onnx opset 99 is past the newest onnxop knows (28)"
expect 2 mk_ml99 "$X" make Binarizer --domain ai.onnx.ml --opset 6 --input x:float32[3] -o "$T/never.onnx"
err_has mk_ml99 "ai.onnx.ml opset 6 is past the newest onnxop knows (5)"
no_file "$T/never.onnx"
expect 0 mk_ml "$X" make Binarizer --domain ai.onnx.ml --input x:float32[3] -o "$T/mk_ml.onnx"
expect 0 mk_ml_info "$X" info "$T/mk_ml.onnx"
out_has mk_ml_info "opset_import: ai.onnx.ml 5, ai.onnx 21"
out_has mk_ml_info "ir_version: 10"
expect 0 mk_ml3 "$X" make Binarizer --domain ai.onnx.ml --opset 3 --input x:float32[3] -o "$T/mk_ml3.onnx"
expect 0 mk_ml3_info "$X" info "$T/mk_ml3.onnx"
out_has mk_ml3_info "opset_import: ai.onnx.ml 3, ai.onnx 16"
out_has mk_ml3_info "ir_version: 8"
# symbolic dims stay dim_params; --dim gives the size to evaluate with, and an
# output dim that follows the symbol is named after it
expect 0 mk_dim "$X" make Add --opset 14 --input 'a:float32[N,3]' --input 'b:float32[3]' --dim N=4 -o "$T/mk_dim.onnx"
expect 0 mk_dim_info "$X" info "$T/mk_dim.onnx"
out_has mk_dim_info "    a: tensor(float) (N, 3)"
out_has mk_dim_info "    output: tensor(float) (N, 3)"
expect 0 mk_dim_json "$X" info --json "$T/mk_dim.onnx"
out_has mk_dim_json '{"name":"a","type":"tensor(float)","shape":["N",3]}'
expect 2 mk_dim_missing "$X" make Add --opset 14 --input 'a:float32[N,3]' --input 'b:float32[3]' -o "$T/never.onnx"
err_has mk_dim_missing "input 'a' is drawn, and its symbolic dim N needs a size: --dim N=SIZE"
expect 2 mk_dim_bad "$X" make Add --dim 'N=x' --input 'a:float32[N,3]' -o "$T/never.onnx"
err_has mk_dim_bad "--dim needs NAME=SIZE (such as N=4), not 'N=x'"
# a tensor input or output without a shape is refused (onnx.checker refuses it)
expect 2 mk_noshape "$X" make Relu --input 'x:tensor(float)' -o "$T/never.onnx"
err_has mk_noshape "onnxop make: input 'x' needs a shape (onnx.checker refuses a tensor without one)"
expect 2 mk_out_untyped "$X" make SequenceAt --opset 11 --input 's:seq(tensor(float))' --input 'p:int64[]' -o "$T/never.onnx"
err_has mk_out_untyped "onnxop make: cannot compute the outputs' types: input 's' is drawn"
expect 2 mk_out_shapeless "$X" make SequenceAt --opset 11 --input 's:seq(tensor(float))' --input 'p:int64[]' --output 'y:tensor(float)' -o "$T/never.onnx"
err_has mk_out_shapeless "cannot compute the shape of output 'y'"
expect 2 mk_out_wrong "$X" make Relu --input 'x:float32[2]' --output 'y:float16[2]' -o "$T/never.onnx"
err_has mk_out_wrong "output 'y' is declared tensor(float16) but Relu computes tensor(float)"
no_file "$T/never.onnx"
# --case: shapes from the values
expect 0 mk_case_shape "$X" make Add --opset 14 --case "$T/mk_case_shape" --in 'float32[2,3]:1,2,3,4,5,6' --in 'float32[3]:1,1,1'
expect 0 mk_case_shape_info "$X" info "$T/mk_case_shape/model.onnx"
out_has mk_case_shape_info "    input_0: tensor(float) (2, 3)"
out_has mk_case_shape_info "    output: tensor(float) (2, 3)"
# an unknown operator is an error with a suggestion (--force writes it anyway)
expect 2 mk_typo "$X" make Addd --input a:float32[2] -o "$T/never.onnx"
err_has mk_typo "onnxop make: no operator 'Addd' in ai.onnx; did you mean 'Add'? (--force writes the model anyway)"
expect 2 mk_wrong_domain "$X" make Binarizer --input a:float32[2] -o "$T/never.onnx"
err_has mk_wrong_domain "no operator 'Binarizer' in ai.onnx; it is in ai.onnx.ml: --domain ai.onnx.ml"
expect 3 mk_removed "$X" make Upsample --opset 10 --input a:float32[2] -o "$T/never.onnx"
err_has mk_removed "Upsample-10 (ai.onnx): ONNX deprecated the operator at opset 10"
expect 2 mk_domain "$X" make Foo --domain com.example --input a:float32[2] -o "$T/never.onnx"
err_has mk_domain "onnxop knows no operator of domain 'com.example'"
no_file "$T/never.onnx"
expect 0 mk_domain_force "$X" make Foo --domain com.example --opset 1 --force --input a:float32[2] --output 'b:float32[2]' -o "$T/mk_foo.onnx"
expect 0 mk_domain_force_info "$X" info "$T/mk_foo.onnx"
out_has mk_domain_force_info "opset_import: com.example 1, ai.onnx 28"
expect 2 mk_out_wrong_shape "$X" make Relu --input 'x:float32[2]' --output 'y:float32[3]' -o "$T/never.onnx"
err_has mk_out_wrong_shape "output 'y' is declared float32[3] but Relu computes shape (2,)"
no_file "$T/never.onnx"

# ---- data for real suites ----
# --range: floats in [LO, HI), integers LO to HI inclusive
expect 0 rg_int "$X" make Identity --input 'i:int64[64]' --range i=2:3 --case "$T/rg_int" --random 5
expect 0 rg_int_show "$X" show --stats "$T/rg_int/test_data_set_0/input_0.pb"
out_has rg_int_show "min=2 max=3"
expect 0 rg_float "$X" make Identity --input 'x:float32[64]' --range x=10:11 --case "$T/rg_float" --random 5
expect 0 rg_float_show "$X" show --stats "$T/rg_float/test_data_set_0/input_0.pb"
out_has rg_float_show "min=10.0"
expect 2 rg_unknown "$X" make Identity --input 'x:float32[2]' --range y=0:1 --case "$T/never" --random 1
err_has rg_unknown "--range y=0:1: the node has no input named 'y'"
expect 2 rg_typo "$X" make Identity --input 'xs:float32[2]' --range xz=0:1 --case "$T/never" --random 1
err_has rg_typo "did you mean 'xs'?"
expect 2 rg_bad "$X" make Identity --input 'x:float32[2]' --range x=1:0 --case "$T/never" --random 1
err_has rg_bad "--range needs NAME=LO:HI with LO <= HI (such as x=0:1), not 'x=1:0'"
expect 2 rg_u8 "$X" make Identity --input 'x:uint8[2]' --range x=-1:3 --case "$T/never" --random 1
err_has rg_u8 "--range x=-1:3: a uint8 input takes integers from 0 to 255"
no_file "$T/never"
# drawn inputs whose outputs hold NaN or Inf are refused, naming the input and the flags
expect 1 nan_refused "$X" make Log --input 'x:float32[16]' --case "$T/never" --random 3
err_has nan_refused "output 'output' of data set 0 holds NaN or infinity for the drawn inputs: draw 'x' in range (--range x=LO:HI"
err_has nan_refused "or keep them with --allow-nan"
no_file "$T/never"
expect 0 nan_allowed "$X" make Log --input 'x:float32[16]' --case "$T/nan_allowed" --random 3 --allow-nan
expect 0 nan_ranged "$X" make Log --input 'x:float32[16]' --case "$T/nan_ranged" --random 3 --range x=0.5:2
# --datasets N: one seed, N data sets, each drawn in turn; given values repeat
expect 0 ds3 "$X" make Gather --input 'x:float32[4,2]' --input 'i:int64[2]' --in 'i=int64[2]:3,0' --case "$T/ds3" --random 9 --datasets 3
for k in 0 1 2; do [ -f "$T/ds3/test_data_set_$k/output_0.pb" ] && ok || bad "ds3: no test_data_set_$k"; done
if cmp -s "$T/ds3/test_data_set_0/input_0.pb" "$T/ds3/test_data_set_1/input_0.pb"; then bad "ds3: data sets 0 and 1 drew the same"; else ok; fi
if cmp -s "$T/ds3/test_data_set_0/input_1.pb" "$T/ds3/test_data_set_2/input_1.pb"; then ok; else bad "ds3: the given input differs between data sets"; fi
expect 0 ds3_test "$X" test "$T/ds3"
out_has ds3_test "1 passed, 0 failed"
# a case folder with data the new case would not write is refused, not mixed
expect 1 ds_stale "$X" make Gather --input 'x:float32[4,2]' --input 'i:int64[2]' --in 'i=int64[2]:3,0' --case "$T/ds3" --random 9
err_has ds_stale "is from before (this case writes 1 data set); remove it first"
expect 1 ds_stale_in "$X" make Relu --input 'x:float32[4,2]' --case "$T/ds3" --random 9 --datasets 3
err_has ds_stale_in "input_1.pb is from before (this case writes input_0.pb .. input_0.pb); remove it first"
# data.json: tolerances and provenance
expect 0 prov "$X" make Sqrt --input 'x:float32[3]' --range x=0:1 --case "$T/prov" --random 11 --rtol 1e-5 --atol 1e-6
expect 0 prov_json python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["provenance"]; print(d["rtol"], d["atol"], p["onnxop"], p["seed"], p["opset"], p["ir_version"], " ".join(p["command"]))' "$T/prov/data.json"
out_has prov_json "1e-05 1e-06 $(sed -n 's/#define OX_VERSION "\(.*\)"/\1/p' core/ox.h) 11 28 13 onnxop make Sqrt --input x:float32[3] --range x=0:1 --case $T/prov --random 11 --rtol 1e-5 --atol 1e-6"
# sweeps: --for-each-type over the row's types (or a list), --for-each-opset over the since-versions
expect 0 sweep_type "$X" make Relu --input 'x:T[3,4]' --for-each-type T --suite "$T/sweep" --random 0
for c in float double float16 bfloat16 int8 int32 int64; do [ -f "$T/sweep/test_relu_$c/model.onnx" ] && ok || bad "sweep_type: no test_relu_$c"; done
expect 0 sweep_type_info "$X" info "$T/sweep/test_relu_float16/model.onnx"
out_has sweep_type_info "    x: tensor(float16) (3, 4)"
expect 0 sweep_type_test "$X" test "$T/sweep"
out_has sweep_type_test "8 passed, 0 failed"
expect 0 sweep_list "$X" make Add --input 'a:T[2]' --input 'b:T[2]' --for-each-type T=float,int32 --for-each-opset --suite "$T/sweep2" --random 0
for c in v1_float v6_int32 v7_float v13_int32 v14_float v14_int32; do [ -d "$T/sweep2/test_add_$c" ] && ok || bad "sweep_list: no test_add_$c"; done
[ -d "$T/sweep2/test_add_v1_int32" ] && bad "sweep_list: Add-1 takes no int32" || ok
expect 0 sweep_list_test "$X" test "$T/sweep2"
out_has sweep_list_test "9 passed, 0 failed"
expect 2 sweep_no_suite "$X" make Relu --input 'x:T[3]' --for-each-type T --case "$T/never" --random 0
err_has sweep_no_suite "--for-each-type and --for-each-opset write several cases: give --suite DIR"
expect 2 sweep_dtype "$X" make Relu --input 'x:T[3]' --for-each-type float --suite "$T/never" --random 0
err_has sweep_dtype "--for-each-type needs a placeholder such as T (not a dtype)"
no_file "$T/never"
# --spec FILE --suite DIR: the example under tests/spec, run by test
expect 0 spec "$X" make --spec tests/spec/example.json --suite "$T/spec"
expect 0 spec_test "$X" test "$T/spec"
out_has spec_test "13 passed, 0 failed"
expect 0 spec_show "$X" show "$T/spec/test_gather_rows/test_data_set_0/input_1.pb" "$T/spec/test_transpose_symbolic/test_data_set_0/input_0.pb"
out_has spec_show "[4, 0, 4]"
out_has spec_show "shape=(2, 3)"
expect 0 spec_info "$X" info "$T/spec/test_transpose_symbolic/model.onnx"
out_has spec_info "    output: tensor(float) (3, N)"
expect 0 spec_prov python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["provenance"]; print(p["spec"], p["entry"]["name"], p["sweep"])' "$T/spec/test_relu_float16/data.json"
out_has spec_prov "tests/spec/example.json test_relu {'T': 'float16'}"
printf '{"cases": [{"op": "Relu", "inputs": [{"name": "x", "type": "float32[2]", "rnage": [0, 1]}]}]}' >"$T/spec_typo.json"
expect 2 spec_typo "$X" make --spec "$T/spec_typo.json" --suite "$T/never"
err_has spec_typo "case 0: \"inputs\"[0] has no key \"rnage\"; did you mean \"range\"?"
# all or nothing: a bad case leaves no case of the spec behind
printf '{"cases": [{"name": "a", "op": "Relu", "inputs": [{"name": "x", "type": "float32[2]"}]}, {"name": "b", "op": "Relu", "opset": 99, "inputs": [{"name": "x", "type": "float32[2]"}]}]}' >"$T/spec_bad.json"
expect 2 spec_bad "$X" make --spec "$T/spec_bad.json" --suite "$T/never"
err_has spec_bad "case 'b': ai.onnx opset 99 is past the newest onnxop knows (28)"
no_file "$T/never"
expect 2 spec_with_op "$X" make Relu --spec tests/spec/example.json --suite "$T/never"
err_has spec_with_op "with --spec the cases come from tests/spec/example.json"
# a few hundred cases in well under a second per hundred
python3 -c '
import json, sys
ops = ["Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Floor", "Ceil", "Softsign", "Erf"]
cases = [{"name": "c%03d" % i, "op": ops[i % 10], "inputs": [{"name": "x", "type": "float32[4,5]", "range": [0, 1]}],
          "seed": i} for i in range(300)]
json.dump({"cases": cases}, open(sys.argv[1], "w"))' "$T/spec300.json"
# CPU time (user + system), which a busy machine does not stretch as it does the wall time
expect 0 spec300 python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("cpu %.3f" % (u.ru_utime + u.ru_stime))
sys.exit(r.returncode)' "$X" make --spec "$T/spec300.json" --suite "$T/spec300"
secs=$(sed -n 's/^cpu //p' "$T/spec300.out")
case $B in
*asan*) ;; # ASan runs three times slower: timed in the plain build only
*) if [ "$(echo "${secs:-9} < 2.0" | bc)" = 1 ]; then ok; else bad "spec300: 300 cases took $secs s of CPU (want < 2 s)"; fi ;;
esac
expect 0 spec300_test "$X" test "$T/spec300"
out_has spec300_test "300 passed, 0 failed"

# ---- looking inside ----
# run --save-intermediates DIR: every node output, names made safe, index.json
expect 0 si_model "$X" make Relu --input 'x:float32[2]' --output '../evil/y:float32[2]' -o "$T/si_relu.onnx"
expect 0 si_run "$X" run "$T/si_relu.onnx" --in 'float32[2]:-1,2' --save-intermediates "$T/si"
[ -f "$T/si/_._evil_y.pb" ] && ok || bad "si_run: no $T/si/_._evil_y.pb: $(ls "$T/si" 2>&1)"
[ -e "$T/evil" ] && bad "si_run: a file outside DIR" || ok
expect 0 si_index python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["values"]; print(d)' "$T/si/index.json"
out_has si_index "{'file': '_._evil_y.pb', 'name': '../evil/y', 'node': 'node', 'op': 'Relu', 'domain': 'ai.onnx', 'depth': 0}"
expect 0 si_show "$X" show "$T/si/_._evil_y.pb"
out_has si_show "../evil/y: shape=(2,), dtype=float32"
if [ -d "$SH" ]; then
  L="$SH/test_loop11"
  expect 0 si_loop "$X" run "$L/model.onnx" --in "$L/test_data_set_0/input_0.pb" --in "$L/test_data_set_0/input_1.pb" \
    --in "$L/test_data_set_0/input_2.pb" --save-intermediates "$T/si_loop"
  expect 0 si_loop_n sh -c 'ls "$1" | wc -l' sh "$T/si_loop"
  out_has si_loop_n "3"
  expect 0 si_loop_sub "$X" run "$L/model.onnx" --in "$L/test_data_set_0/input_0.pb" --in "$L/test_data_set_0/input_1.pb" \
    --in "$L/test_data_set_0/input_2.pb" --save-intermediates "$T/si_sub" --save-intermediates-subgraphs
  for f in res_y res_scan y_out y_out~5 slice_out~3; do [ -f "$T/si_sub/$f.pb" ] && ok || bad "si_loop_sub: no $f.pb"; done
  expect 0 si_loop_cmp "$X" compare "$T/si_sub/res_scan.pb" "$L/test_data_set_0/output_1.pb"
fi
# a failed run leaves no intermediate behind
expect 1 si_fail "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'int64[]:7' --save-intermediates "$T/si_fail"
no_file "$T/si_fail"
expect 2 si_sub_alone "$X" run "$T/si_relu.onnx" --in 'float32[2]:1,2' --save-intermediates-subgraphs
err_has si_sub_alone "--save-intermediates-subgraphs needs --save-intermediates DIR"
# run --random SEED draws as make --random does (--dim for symbolic dims)
expect 0 rr_make "$X" make Add --opset 14 --input a:float32[2,3] --input b:float32[3] --case "$T/rr" --random 42
expect 0 rr_run "$X" run "$T/rr/model.onnx" --random 42 --out-dir "$T/rr_out"
expect 0 rr_cmp "$X" compare "$T/rr_out" "$T/rr/test_data_set_0" --rtol 0 --atol 0
expect 0 rr_dim "$X" run "$T/mk_dim.onnx" --random 1 --dim N=5
out_has rr_dim "output: shape=(5, 3), dtype=float32"
expect 2 rr_no_dim "$X" run "$T/mk_dim.onnx" --random 1
err_has rr_no_dim "--random: input 'a' has the symbolic dim N: give its size with --dim N=SIZE"
expect 2 rr_dim_alone "$X" run "$T/mk_dim.onnx" --dim N=5
err_has rr_dim_alone "--dim is for --random"
# --format json without --out-dir: the outputs as one JSON list on standard output
expect 0 fj "$X" run "$T/rr/model.onnx" --random 42 --format json
expect 0 fj_parse python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d), d[0]["name"], d[0]["shape"])' "$T/fj.out"
out_has fj_parse "1 output [2, 3]"
expect 2 fj_pb "$X" run "$T/rr/model.onnx" --random 42 --format pb
err_has fj_pb "--format pb needs --out-dir DIR or --out FILE ('-': standard output)"
# '-' names standard output for --out and convert
expect 0 dash_json "$X" run "$T/rr/model.onnx" --random 42 --out -
cp "$T/dash_json.out" "$T/dash_json.json"
expect 0 dash_json_back "$X" compare "$T/dash_json.json" "$T/rr/test_data_set_0/output_0.pb"
expect 0 dash_pb "$X" run "$T/rr/model.onnx" --random 42 --out - --format pb
cp "$T/dash_pb.out" "$T/dash_pb.pb"
expect 0 dash_pb_back "$X" compare "$T/dash_pb.pb" "$T/rr/test_data_set_0/output_0.pb" --rtol 0 --atol 0
expect 0 conv_dash "$X" convert "$T/rr/test_data_set_0/input_0.pb" -
out_has conv_dash '"name": "a",'
expect 0 conv_dash_npy "$X" convert --format npy "$T/rr/test_data_set_0/input_0.pb" -
cp "$T/conv_dash_npy.out" "$T/conv_dash.npy"
expect 0 conv_dash_npy_back "$X" compare "$T/conv_dash.npy" "$T/rr/test_data_set_0/input_0.pb" --rtol 0 --atol 0
expect 2 conv_fmt_clash "$X" convert --format npy "$T/rr/test_data_set_0/input_0.pb" "$T/x.json"
err_has conv_fmt_clash "--format is for OUT '-'"
# info: attributes (values; tensors as dtype and shape) and initializer stats, text and JSON
P=/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx
if [ -f "$P" ]; then
  expect 0 info_attrs "$X" info "$P"
  out_has info_attrs "      kernel_shape: [3, 2]"
  out_has info_attrs "      group: 1"
  out_has info_attrs "    1: tensor(float) (4, 3, 3, 2) min=-0.231854305 max=0.227064773 mean=-0.0198621327 nan=0 inf=0"
  expect 0 info_attrs_json "$X" info --json "$P"
  out_has info_attrs_json '{"name":"kernel_shape","type":"ints","value":[3,2]}'
  out_has info_attrs_json '"shape":[4,3,3,2],"min":-0.23185430467128754,"max":0.227064773440361,"mean":-0.019862132664355967,"nan":0,"inf":0}'
fi
expect 0 info_tensor_attr_make "$X" make ConstantOfShape --opset 21 -a 'value:tensor=float32[1]:2.5' -a 'x:float=1' --force --input 's:int64[2]' -o "$T/cos_attr.onnx"
expect 0 info_tensor_attr "$X" info "$T/cos_attr.onnx"
out_has info_tensor_attr "      value: tensor float32 (1,)"
expect 0 info_tensor_attr_json "$X" info --json "$T/cos_attr.onnx"
out_has info_tensor_attr_json '{"name":"value","type":"tensor","value":{"dtype":"float32","shape":[1]}}'

# ---- command-line conventions ----
# --opt=value for every long option, -- ends the options
expect 0 eq_opts "$X" make Relu --opset=13 --input=x:float32[2] --output=y -o "$T/eq.onnx"
expect 0 eq_info "$X" info --json "$T/eq.onnx"
out_has eq_info '"opset_import":[{"domain":"ai.onnx","version":13}]'
expect 0 eq_run "$X" run "$T/eq.onnx" --in=float32[2]:-1,2 --out="$T/eq_y.json" --threads=2 --max-memory=64M --timeout=0.5
expect 0 eq_compare "$X" compare --rtol=0 --atol=0 "$T/eq_y.json" "$T/eq_y.json"
expect 0 eq_bench "$X" bench "$T/eq.onnx" --in=float32[2]:1,2 --runs=2 --warmup=0
expect 2 eq_flag "$X" info --json=yes "$T/eq.onnx"
err_has eq_flag "onnxop info: --json takes no value (not '--json=yes')"
printf '{"dtype": "float32", "data": [1]}' >"$T/-dash.json"
expect 0 dashdash "$X" show -- "$T/-dash.json"
expect 0 dashdash_name sh -c 'cd "$1" && "$2" show -- -dash.json' sh "$T" "$(pwd)/$X"
out_has dashdash_name "-dash.json: shape=(1,), dtype=float32"
expect 2 dashdash_not "$X" show "-dash.json"
err_has dashdash_not "unknown option '-dash.json'"
# onnxop help CMD is onnxop CMD --help
expect 0 help_cmd "$X" help make
expect 0 help_cmd_direct "$X" make --help
if cmp -s "$T/help_cmd.out" "$T/help_cmd_direct.out"; then ok; else bad "help make differs from make --help"; fi
# did-you-mean: commands, options, operators
expect 2 dym_cmd "$X" mkae Relu
err_has dym_cmd "onnxop: unknown command 'mkae'; did you mean 'make'?"
expect 2 dym_opt "$X" make Relu --opst 13 --input x:float32[2] -o "$T/never.onnx"
err_has dym_opt "onnxop make: unknown option '--opst'; did you mean '--opset'?"
expect 2 dym_opt_eq "$X" run "$T/eq.onnx" --formt=json
err_has dym_opt_eq "onnxop run: unknown option '--formt'; did you mean '--format'?"
expect 3 dym_op "$X" ops Sofmax
err_has dym_op "onnxop ops: no operator 'Sofmax' is implemented; did you mean 'Softmax'?"
expect 3 dym_op_case "$X" ops relu
err_has dym_op_case "did you mean 'Relu'?"
# an environment variable's error names the variable
expect 2 env_threads env ONNXOP_THREADS=lots "$X" ops Relu
err_has env_threads "ONNXOP_THREADS: 'lots' is not a thread count"
expect 2 env_memory env ONNXOP_MAX_MEMORY=lots "$X" ops Relu
err_has env_memory "ONNXOP_MAX_MEMORY: 'lots' is not a size"
expect 2 env_timeout env ONNXOP_TIMEOUT=soon "$X" ops Relu
err_has env_timeout "ONNXOP_TIMEOUT is 'soon'"
expect 2 opt_threads "$X" --threads=lots ops Relu
err_has opt_threads "--threads: 'lots' is not a thread count"
# bash completion: commands, options, operator names; make install puts it in place
if command -v bash >/dev/null; then
  expect 0 comp bash -c '. cli/onnxop.bash
c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _onnxop; echo "$*: ${COMPREPLY[*]}"; }
c "$1" ma; c "$1" make Sof; c "$1" make Relu --for-each-t; c "$1" run m.onnx --format=j; c "$1" help co' sh "$X"
  out_has comp "ma: make"
  out_has comp "make Sof: Softmax SoftmaxCrossEntropyLoss Softplus Softsign"
  out_has comp "make Relu --for-each-t: --for-each-type"
  out_has comp "run m.onnx --format=j: json"
  out_has comp "help co: convert compare"
fi
case $B in
*asan*) ;;
*)
  expect 0 install make --no-print-directory -s install DESTDIR="$(pwd)/$T/root" PREFIX=/usr B="$B"
  for f in bin/onnxop share/man/man1/onnxop.1 share/bash-completion/completions/onnxop share/man/man3/onnxop.3 \
    include/onnxop.h lib/libonnxop.a lib/libonnxop.so.$(sed -n 's/#define OX_VERSION "\(.*\)"/\1/p' core/ox.h) lib/libonnxop.so.0 lib/libonnxop.so lib/pkgconfig/onnxop.pc; do
    [ -e "$T/root/usr/$f" ] && ok || bad "make install: no /usr/$f"
  done
  # and make uninstall takes every one of them away again
  expect 0 uninstall make --no-print-directory -s uninstall DESTDIR="$(pwd)/$T/root" PREFIX=/usr B="$B"
  left=$(find "$T/root" -type f -o -type l)
  [ -z "$left" ] && ok || bad "make uninstall left $left"
  # the man pages: no words run together, no groff warning
  expect 0 man_lint python3 tests/man_lint.py man/onnxop.1
  expect 0 man_lint3 python3 tests/man_lint.py man/onnxop.3
  ;;
esac
