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
