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
expect 0 rt_opt_model "$X" make OptionalHasElement --opset 18 --input 'x:optional(tensor(float))' --output y -o "$T/rt_ohe.onnx"
printf '{"optional": null, "elem_dtype": "?"}' >"$T/rt_open.json"
expect 0 rt_opt_run "$X" run "$T/rt_ohe.onnx" --in "$T/rt_open.json"
out_has rt_opt_run "False"

# ---- one parser of type strings: blanks inside, as in JSON ----
expect 0 type_blanks "$X" make Identity --input 'x:tensor( float )' --output 'y: tensor(float) ' -o "$T/type_blanks.onnx"
expect 2 type_bad "$X" make Identity --input 'x:tensor(flaot)' -o "$T/type_bad.onnx"
err_has type_bad "'tensor(flaot)' is not a type: unknown dtype \"flaot\""
no_file "$T/type_bad.onnx"
