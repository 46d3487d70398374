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
err_has mk_ir_future "--ir-version 99 is past the newest IR version onnxop knows (13)"
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
