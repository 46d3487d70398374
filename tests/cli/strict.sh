# tests/cli/strict.sh, sourced by tests/cli/run.sh: where the spec is strict,
# onnxop is too (issue 32). Uses run.sh's X, T, expect, err_has, out_has.

# Constant-1 holds float16, float or double only (other types from Constant-9)
expect 0 strict_v_int64 "$X" convert 'int64[2]:1,2' "$T/strict_int64.pb"
expect 0 strict_v_float "$X" convert 'float32[2]:1,2' "$T/strict_float.pb"
expect 1 strict_const1_int64 "$X" make Constant --opset 1 -a "value=@$T/strict_int64.pb" --output y --case "$T/strict_c1"
err_has strict_const1_int64 "node 'node' Constant-1: attribute 'value' holds int64 elements; Constant allows that type from opset 9"
no_file "$T/strict_c1"
expect 0 strict_const1_float "$X" make Constant --opset 1 -a "value=@$T/strict_float.pb" --output y --case "$T/strict_c1f"
expect 0 strict_const9_int64 "$X" make Constant --opset 9 -a "value=@$T/strict_int64.pb" --output y --case "$T/strict_c9"

# NegativeLogLikelihoodLoss takes bfloat16 from opset 22, not at 13
expect 1 strict_nll13_bf16 "$X" make NegativeLogLikelihoodLoss --opset 13 --in 'bfloat16[2,3]:1,2,3,4,5,6' \
  --in 'int64[2]:0,2' --case "$T/strict_nll13"
err_has strict_nll13_bf16 "node 'node' NegativeLogLikelihoodLoss-13: input 0 'input_0' is tensor(bfloat16); its element type must be one of float, float16, double (NegativeLogLikelihoodLoss allows bfloat16 from opset 22)"
no_file "$T/strict_nll13"
expect 0 strict_nll13_model "$X" make NegativeLogLikelihoodLoss --opset 13 --input 'x:bfloat16[2,3]' --input 't:int64[2]' \
  --output 'loss:bfloat16[]' -o "$T/strict_nll13.onnx"
expect 1 strict_nll13_run "$X" run "$T/strict_nll13.onnx" --in 'bfloat16[2,3]:1,2,3,4,5,6' --in 'int64[2]:0,2'
err_has strict_nll13_run "strict_nll13.onnx: node 'node' NegativeLogLikelihoodLoss-13: input 0 'x' is tensor(bfloat16); its element type must be one of float, float16, double (NegativeLogLikelihoodLoss allows bfloat16 from opset 22)"
expect 0 strict_nll22_bf16 "$X" make NegativeLogLikelihoodLoss --opset 22 --in 'bfloat16[2,3]:1,2,3,4,5,6' \
  --in 'int64[2]:0,2' --case "$T/strict_nll22"

# GroupNormalization-18 is deprecated (onnx's checker refuses it) but old
# exports use it: make, info and run say so in one line, the same words
gn_dep="GroupNormalization-18 is deprecated (onnx's checker refuses it; GroupNormalization-21 replaces it)"
expect 0 strict_gn18_make "$X" make GroupNormalization --opset 18 -a num_groups=2 --input 'x:float32[1,4,2]' \
  --input 's:float32[2]' --input 'b:float32[2]' -o "$T/strict_gn18.onnx"
printf 'onnxop make: warning: %s\n' "$gn_dep" >"$T/strict_gn18_make.want"
same_err strict_gn18_make "$T/strict_gn18_make.want"
expect 0 strict_gn18_info "$X" info "$T/strict_gn18.onnx"
out_has strict_gn18_info "GroupNormalization-18 'node' (x, s, b) -> (output)  [warning: $gn_dep]"
expect 0 strict_gn18_info_json "$X" info --json "$T/strict_gn18.onnx"
out_has strict_gn18_info_json "\"warning\":\"$gn_dep\""
expect 0 strict_gn18_run "$X" run "$T/strict_gn18.onnx" --random 1
printf "onnxop run: warning: node 'node': %s\n" "$gn_dep" >"$T/strict_gn18_run.want"
same_err strict_gn18_run "$T/strict_gn18_run.want"
expect 0 strict_gn21_make "$X" make GroupNormalization --opset 21 -a num_groups=2 --input 'x:float32[1,4,2]' \
  --input 's:float32[4]' --input 'b:float32[4]' -o "$T/strict_gn21.onnx"
same_err strict_gn21_make /dev/null
expect 0 strict_gn21_run "$X" run "$T/strict_gn21.onnx" --random 1
same_err strict_gn21_run /dev/null
expect 0 strict_gn21_info "$X" info "$T/strict_gn21.onnx"
out_lacks strict_gn21_info "warning"

# IR version 14: onnx's onnx.proto has it (IR_VERSION), so --ir-version takes it
expect 0 strict_ir14 "$X" make Add --opset 14 --ir-version 14 --input 'a:float32[2]' --input 'b:float32[2]' \
  -o "$T/strict_ir14.onnx"
expect 0 strict_ir14_info "$X" info "$T/strict_ir14.onnx"
out_has strict_ir14_info "ir_version: 14"
expect 2 strict_ir15 "$X" make Add --opset 14 --ir-version 15 --input 'a:float32[2]' --input 'b:float32[2]' \
  -o "$T/strict_ir15.onnx"
err_has strict_ir15 "--ir-version 15 is past the newest IR version onnxop knows (14)"
no_file "$T/strict_ir15.onnx"
