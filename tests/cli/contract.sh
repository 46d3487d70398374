# tests/cli/contract.sh: sourced by tests/cli/run.sh (its $X, $T, expect,
# err_has, out_has, no_file, ok, bad). What make, spec files, the global
# options, convert and compare must refuse, keep or agree on (issue 27,
# items 9 to 13).

# ---- make writes no model onnx.checker refuses: an attribute given twice ----
expect 2 make_attr_twice "$X" make LeakyRelu --opset 16 --input 'x:float32[2]' -a alpha=0.1 -a alpha=0.2 -o "$T/twice.onnx"
err_has make_attr_twice "attribute 'alpha' is given twice (-a alpha=0.2)"
no_file "$T/twice.onnx"
printf '{"cases": [{"name": "t", "op": "LeakyRelu", "attributes": {"alpha": 0.1, "alpha:float": 0.2}, "inputs": [{"name": "x", "type": "float32[2]"}]}]}' >"$T/spec_twice.json"
expect 2 spec_attr_twice "$X" make --spec "$T/spec_twice.json" --suite "$T/never"
err_has spec_attr_twice "case 0 ('t'): attribute \"alpha\" is given twice"
no_file "$T/never"

# ---- a spec's numbers: what data.json cannot hold, or --random refuses, is refused ----
# 1e400 is infinity to a JSON parser; data.json would hold null, which test refuses
printf '{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "type": "float32[2]"}], "rtol": 1e400}]}' >"$T/spec_inf.json"
expect 2 spec_rtol_inf "$X" make --spec "$T/spec_inf.json" --suite "$T/never"
err_has spec_rtol_inf "case 0 ('t'): \"rtol\" must be a finite number >= 0"
no_file "$T/never"
printf '{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "type": "float32[2]", "range": [-1e400, 1]}]}]}' >"$T/spec_inf_range.json"
expect 2 spec_range_inf "$X" make --spec "$T/spec_inf_range.json" --suite "$T/never"
err_has spec_range_inf "\"range\" must be [LO, HI], two finite numbers with LO <= HI"
# a seed past 2^64-1 is refused as --random refuses it, never clamped
for s in '"18446744073709551616"' '"99999999999999999999999"' '" 5"' '"+5"' '"-1"' '""' '18446744073709551616' '1.5'; do
  printf '{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "type": "float32[2]"}], "seed": %s}]}' "$s" >"$T/spec_seed.json"
  expect 2 spec_seed "$X" make --spec "$T/spec_seed.json" --suite "$T/never"
  err_has spec_seed "\"seed\" must be a whole number from 0 to 2^64-1"
  no_file "$T/never"
done
expect 2 random_seed_big "$X" make Relu --input 'x:float32[2]' --case "$T/never" --random 18446744073709551616
err_has random_seed_big "--random needs a seed: a number from 0 to 2^64-1"
# the largest seed is taken both ways, and gives the same bytes
printf '{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "type": "float32[3]"}], "seed": "18446744073709551615"}]}' >"$T/spec_seed_max.json"
expect 0 spec_seed_max "$X" make --spec "$T/spec_seed_max.json" --suite "$T/seedmax"
expect 0 random_seed_max "$X" make Relu --input 'x:float32[3]' --case "$T/seedmax_cli" --random 18446744073709551615
if cmp -s "$T/seedmax/t/test_data_set_0/input_0.pb" "$T/seedmax_cli/test_data_set_0/input_0.pb"; then ok; else bad "spec seed 2^64-1 draws other bytes than --random 2^64-1"; fi
# a sweep of no type writes nothing: refused, not a silent success
printf '{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "type": "T[2]"}], "for_each_type": {"T": []}}]}' >"$T/spec_no_types.json"
expect 2 spec_no_types "$X" make --spec "$T/spec_no_types.json" --suite "$T/never"
err_has spec_no_types "\"for_each_type\": no types in the list"
no_file "$T/never"
expect 2 sweep_no_types "$X" make Relu --input 'x:T[2]' --for-each-type T= --suite "$T/never" --random 0
err_has sweep_no_types "--for-each-type T=: no types given"
expect 2 sweep_none_taken "$X" make Relu --input 'x:T[2]' --for-each-type T=string,bool --suite "$T/never" --random 0
err_has sweep_none_taken "--for-each-type T=string,bool: Relu takes none of these types"
no_file "$T/never"

# ---- --max-memory: only a size; NaN, infinity and hex are usage errors ----
for m in nan NaNK inf 0x10 ' 5'; do
  expect 2 max_memory_bad "$X" --max-memory "$m" ops Relu
  err_has max_memory_bad "--max-memory: '$m' is not a size such as 512M or 4G"
done
expect 2 max_memory_env_nan env ONNXOP_MAX_MEMORY=nan "$X" ops Relu
err_has max_memory_env_nan "ONNXOP_MAX_MEMORY: 'nan' is not a size such as 512M or 4G"
expect 0 max_memory_fraction "$X" --max-memory 1.5G ops Relu

# ---- values round-trip: a dim beyond 2^53 is written as JSON reads it ----
expect 0 json_big_dim "$X" convert 'float32[0,4611686018427387904]:' "$T/big_dim.json"
expect 0 json_big_dim_read "$X" convert "$T/big_dim.json" "$T/big_dim.pb"
expect 0 json_big_dim_show "$X" show "$T/big_dim.pb"
out_has json_big_dim_show "shape=(0, 4611686018427387904)"
expect 0 json_big_dim_stdout "$X" convert "$T/big_dim.pb" -
out_has json_big_dim_stdout '"shape": [0, "4611686018427387904"]'

# ---- compare: one rule, the same with GOT and EXPECTED swapped ----
expect 0 cmp_t "$X" convert 'float32[2]:1,2' "$T/cmp_t.pb"
expect 0 cmp_t_json "$X" convert 'float32[2]:1,2' "$T/cmp_t.json"
printf '{"optional": {"dtype": "float32", "shape": [2], "data": [1, 2]}}' >"$T/cmp_ot.json"
expect 0 cmp_ot "$X" convert "$T/cmp_ot.json" "$T/cmp_ot.pb"
printf '{"optional": {"dtype": "float32", "shape": [2], "data": [1, 3]}}' >"$T/cmp_ot3.json"
printf '{"optional": null, "elem_type": "tensor(float)"}' >"$T/cmp_none.json"
printf '{"sequence": [], "elem_dtype": "float32"}' >"$T/cmp_es.json"
expect 0 cmp_es "$X" convert "$T/cmp_es.json" "$T/cmp_es.pb"
printf '{"sequence": [], "elem_dtype": "int64"}' >"$T/cmp_esi.json"
# both_ways CODE NAME A B [TEXT]: compare A B and B A give CODE (and TEXT)
both_ways() {
  expect "$1" "$2" "$X" compare "$3" "$4"
  [ -n "$5" ] && out_has "$2" "$5"
  expect "$1" "$2_swapped" "$X" compare "$4" "$3"
  [ -n "$5" ] && out_has "$2_swapped" "$5"
}
both_ways 0 cmp_tensor_optional "$T/cmp_t.pb" "$T/cmp_ot.pb" "match (2 elements"
both_ways 0 cmp_tensor_optional_json "$T/cmp_t.json" "$T/cmp_ot.pb" "match (2 elements"
both_ways 0 cmp_tensor_optional_json2 "$T/cmp_t.pb" "$T/cmp_ot.json" "match (2 elements"
both_ways 1 cmp_tensor_optional_other "$T/cmp_t.pb" "$T/cmp_ot3.json" "1 of 2 elements differ"
both_ways 1 cmp_tensor_none "$T/cmp_t.pb" "$T/cmp_none.json" "optional: expected"
both_ways 1 cmp_some_none "$T/cmp_ot.json" "$T/cmp_none.json" "optional: expected"
both_ways 0 cmp_empty_seq "$T/cmp_es.json" "$T/cmp_es.pb" "match (0 elements)"
both_ways 1 cmp_empty_seq_types "$T/cmp_es.json" "$T/cmp_esi.json" "differs: type: expected seq(tensor("
# the same rule in `onnxop test`: an expected output written as a plain
# tensor matches an optional output, and an optional one a tensor output
expect 0 cmp_case_model "$X" make Optional --opset 15 --input 'x:float32[2]' --case "$T/optcase" --in 'float32[2]:1,2'
expect 0 cmp_case_plain "$X" convert "$T/cmp_t.pb" "$T/optcase/test_data_set_0/output_0.pb"
expect 0 cmp_case_test "$X" test "$T/optcase"
out_has cmp_case_test "1 passed, 0 failed"

# ---- a spec's "file" is a path in the spec's folder, wherever the spec is ----
# (from the working folder, "-" read standard input and "float32[2]:1,2" was
# an inline value; from any other folder both were files)
mkdir -p "$T/specdir"
printf '{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "file": "-"}]}]}' >"$T/specdir/dash.json"
printf '{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "file": "float32[2]:1,2"}]}]}' >"$T/specdir/inline.json"
expect 2 spec_file_dash sh -c 'cd "$1" && echo "{\"dtype\": \"float32\", \"shape\": [2], \"data\": [1, 2]}" | "$2" make --spec dash.json --suite never' sh "$T/specdir" "$(cd "$(dirname "$X")" && pwd)/onnxop"
err_has spec_file_dash "input 'x': ./-: unknown value format"
expect 2 spec_file_inline sh -c 'cd "$1" && "$2" make --spec inline.json --suite never' sh "$T/specdir" "$(cd "$(dirname "$X")" && pwd)/onnxop"
err_has spec_file_inline "input 'x': ./float32[2]:1,2: unknown value format"
no_file "$T/specdir/never"
