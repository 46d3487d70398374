# tests/cli/contrib.sh: the domains beyond the spec (sourced by tests/cli/run.sh):
# com.microsoft (onnxruntime's), ai.onnx's experimental operators, and the
# operators onnxruntime registers in ai.onnx itself. `ops --domain`, the
# origin onnxop marks, warnings, and what onnxop refuses with a reason.
C="$T/contrib"
mkdir -p "$C"
expect 0 ops_domain_ms "$X" ops --domain com.microsoft
out_has ops_domain_ms "com.microsoft BeamSearch"
out_lacks ops_domain_ms "ai.onnx "
expect 0 ops_domain_onnx "$X" ops --domain ai.onnx
out_has ops_domain_onnx "ai.onnx       Identity"
out_lacks ops_domain_onnx "com.microsoft"
expect 3 ops_domain_unknown "$X" ops --domain com.example
err_has ops_domain_unknown "no operator of domain 'com.example' is implemented (its domains: "
err_has ops_domain_unknown "com.microsoft"
expect 3 ops_domain_elsewhere "$X" ops --domain ai.onnx.ml BeamSearch
err_has ops_domain_elsewhere "no operator 'BeamSearch' is implemented in ai.onnx.ml; it is in com.microsoft"
# the generation loops: known, not run, with the reason (ops, make, run)
expect 0 ops_beamsearch "$X" ops BeamSearch
out_has ops_beamsearch "not run: onnxop does not run onnxruntime's generation loops (BeamSearch, GreedySearch, Sampling, WhisperBeamSearch)"
expect 0 ops_greedy_json "$X" ops --json GreedySearch
out_has ops_greedy_json '"origin":"onnxruntime","not_run":"onnxop does not run'
expect 3 make_beamsearch "$X" make BeamSearch --domain com.microsoft --input 'input_ids:int32[1,3]' \
  --output 'sequences:int32[1,1,5]' -o "$C/bs.onnx"
err_has make_beamsearch "BeamSearch-1 (com.microsoft): onnxop does not run onnxruntime's generation loops"
no_file "$C/bs.onnx"
expect 0 make_beamsearch_force "$X" make BeamSearch --domain com.microsoft --force --input 'input_ids:int32[1,3]' \
  --output 'sequences:int32[1,1,5]' -o "$C/bs.onnx"
expect 3 run_beamsearch "$X" run "$C/bs.onnx" --random 1 --out-dir "$C/bs_out"
err_has run_beamsearch "unsupported operator BeamSearch (com.microsoft, opset 1): onnxop does not run onnxruntime's generation loops"
no_file "$C/bs_out"
# ai.onnx's experimental operators: marked by ops, warned about by run
expect 0 ops_imagescaler "$X" ops ImageScaler
out_has ops_imagescaler "ai.onnx ImageScaler 1+ (family experimental)"
out_has ops_imagescaler "  experimental: ImageScaler-1 is an experimental operator, which onnx 1.5 removed from the spec; onnxop runs it as onnxruntime does"
expect 0 ops_imagescaler_json "$X" ops --json ImageScaler
out_has ops_imagescaler_json '"family":"experimental","origin":"experimental"'
expect 0 ops_thresholdedrelu "$X" ops ThresholdedRelu
out_has ops_thresholdedrelu "ai.onnx ThresholdedRelu 1-9 (family experimental)"
out_has ops_thresholdedrelu "ai.onnx ThresholdedRelu 10-21 (family unary)"
expect 0 make_imagescaler "$X" make ImageScaler --opset 8 -a scale=2.0 -a 'bias=[1.0, 2.0]' --input 'x:float32[1,2,1,2]' -o "$C/imagescaler.onnx"
expect 0 run_imagescaler "$X" run "$C/imagescaler.onnx" --in 'x=float32[1,2,1,2]:1,2,3,4'
out_has run_imagescaler "[[[[ 3.,  5.]],"
err_has run_imagescaler "onnxop run: warning: node 'node': ImageScaler-1 is an experimental operator, which onnx 1.5 removed from the spec; onnxop runs it as onnxruntime does"
# onnxruntime's registrations in ai.onnx: LayerNormalization below 17, SimplifiedLayerNormalization
expect 0 ops_layernorm "$X" ops LayerNormalization
out_has ops_layernorm "ai.onnx LayerNormalization 1-16 (family contrib-transformer)"
out_has ops_layernorm "  onnxruntime: LayerNormalization below opset 17 is onnxruntime's registration in ai.onnx, not the ONNX spec's (which defines it from opset 17); onnxop runs it as onnxruntime does"
out_has ops_layernorm "ai.onnx LayerNormalization 17+ (family norm)"
expect 0 make_layernorm13 "$X" make LayerNormalization --opset 13 --input 'x:float32[1,4]' --input 's:float32[4]' -o "$C/ln13.onnx"
expect 0 run_layernorm13 "$X" run "$C/ln13.onnx" --in 'x=float32[1,4]:1,2,3,4' --in 's=float32[4]:1,1,1,1'
err_has run_layernorm13 "onnxop run: warning: node 'node': LayerNormalization below opset 17 is onnxruntime's registration in ai.onnx"
out_has run_layernorm13 "-1.3416"
expect 0 make_simplified "$X" make SimplifiedLayerNormalization --opset 14 --input 'x:float32[1,2]' --input 's:float32[2]' -o "$C/sln.onnx"
expect 0 run_simplified "$X" run "$C/sln.onnx" --in 'x=float32[1,2]:3,4' --in 's=float32[2]:1,2'
err_has run_simplified "onnxop run: warning: node 'node': SimplifiedLayerNormalization is onnxruntime's registration in ai.onnx, not an ONNX spec operator; onnxop runs it as onnxruntime does"
out_has run_simplified "[[0.8485"
# com.microsoft: make authors cases (the opset imports as for any domain); run warns nothing
expect 0 make_ms_gelu_case "$X" make Gelu --domain com.microsoft --input 'x:float32[2,3]' --random 7 --case "$C/ms_gelu"
expect 0 test_ms_gelu_case "$X" test "$C/ms_gelu"
out_has test_ms_gelu_case "1 passed, 0 failed"
expect 0 info_ms_gelu "$X" info "$C/ms_gelu/model.onnx"
out_has info_ms_gelu "com.microsoft"
expect 0 run_ms_gelu "$X" run "$C/ms_gelu/model.onnx" --random 1
out_lacks run_ms_gelu "warning"
if grep -q warning "$T/run_ms_gelu.err"; then bad "run_ms_gelu: a warning for a com.microsoft node"; else ok; fi
expect 2 make_ms_opset2 "$X" make Gelu --domain com.microsoft --opset 2 --input 'x:float32[2]' -o "$C/g2.onnx"
err_has make_ms_opset2 "com.microsoft opset 2 is past the newest onnxop knows (1)"
