# tests/cli/json_make.sh: test --json, info --json and make --random, sourced
# by tests/cli/run.sh (uses its X, T, S and helpers, and the cases it made).
jsonok() { # NAME: stdout of NAME is one valid JSON document
  if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/$1.out" 2>/dev/null; then ok; else bad "$1: stdout is not JSON: $(head -c 300 "$T/$1.out")"; fi
}

# ---- test --json: per-case results and the totals; the exit status as without it ----
expect 1 test_json "$X" test --json "$T/cases"
jsonok test_json
out_has test_json '{"name":"test_cc_sequence_at_neg","path":"'"$T"'/cases/test_cc_sequence_at_neg","status":"pass","message":null,"seconds":'
out_has test_json '{"name":"wrong","path":"'"$T"'/cases/wrong","status":"fail","message":"test_data_set_0 output 0 '"'"'output_tensor'"'"': element [0, 0]: expected -1, got 6'
out_has test_json '"stale":[],"duplicates":[],"statuses":{"pass":5,"fail":1,"error":0,"unsupported":0,"crash":0,"timeout":0,"xfail":0,"xpass":0,"stale":0,"duplicate":0},"shard":null,"selected":6,"run":6,"not_run":0,"xfail":null,"passed":5,"failed":1,"xfailed":0,"xpassed":0}'
printf 'wrong: a wrong expected value\ntest_cc_sequence_at_neg: listed, but passes\ntest_gone: no such case\n' >"$T/xf.txt"
expect 1 test_json_xfail "$X" test --json --xfail "$T/xf.txt" "$T/cases"
jsonok test_json_xfail
out_has test_json_xfail '{"name":"wrong","path":"'"$T"'/cases/wrong","status":"xfail","message":"test_data_set_0 output 0'
out_has test_json_xfail '{"name":"test_cc_sequence_at_neg","path":"'"$T"'/cases/test_cc_sequence_at_neg","status":"xpass","message":"passes, but '"$T/xf.txt"' lists it as failing (listed, but passes)"'
out_has test_json_xfail '"stale":["test_gone"],"duplicates":[],"statuses":{"pass":4,"fail":0,"error":0,"unsupported":0,"crash":0,"timeout":0,"xfail":1,"xpass":1,"stale":1,"duplicate":0},"shard":null,"selected":6,"run":6,"not_run":0,"xfail":"'"$T/xf.txt"'","passed":4,"failed":2,"xfailed":1,"xpassed":1}'
expect 0 test_json_pass "$X" test --json "$T/made"
out_has test_json_pass '"passed":1,"failed":0,"xfailed":0,"xpassed":0}'
expect 2 test_json_failures "$X" test --json --failures "$T/cases"
err_has test_json_failures "onnxop test: use one of --json, --tap and --failures, not both --json and --failures"
expect 0 test_help_json "$X" test --help
out_has test_help_json "--json             print one JSON object instead"

# ---- info --json: the facts info prints ----
expect 0 info_json "$X" info --json "$T/sequence_at.onnx"
jsonok info_json
out_has info_json '"ir_version":6,"opset_import":[{"domain":"ai.onnx","version":11}],"graph":"SequenceAt_graph","inputs":[{"name":"input_seq","type":"seq(tensor(float))","shape":null},{"name":"position","type":"tensor(int64)","shape":[]}],"outputs":[{"name":"output_tensor","type":"tensor(float)","shape":[null,null]}],"initializers":[],"nodes":[{"op":"SequenceAt","domain":"ai.onnx","opset":11,"since":11,"name":"node","inputs":["input_seq","position"],"outputs":["output_tensor"],"function":false,"supported":true,"attributes":[]}],"functions":[],"unsupported":0}'
expect 0 info_json_unknown "$X" info --json "$T/unknown.onnx"
out_has info_json_unknown '"inputs":[{"name":"x","type":"tensor(float)","shape":[2]}]'
out_has info_json_unknown '{"op":"Frobnicate","domain":"ai.onnx","opset":13,"since":null,"name":"node","inputs":["x"],"outputs":["output"],"function":false,"supported":false,"attributes":[]}'
out_has info_json_unknown '"unsupported":1}'
expect 1 info_json_bad "$X" info --json "$T/trunc.onnx"
err_has info_json_bad "trunc.onnx"
expect 2 info_json_none "$X" info --json
err_has info_json_none "onnxop info: no MODEL given"
expect 0 info_help "$X" info --help
out_has info_help "--json   the same facts as one JSON object"

# ---- make --case DIR --random SEED: inputs drawn from the declared types, reproducibly ----
expect 0 make_random "$X" make Add --input a:float32[2,3] --input b:float32[3] --case "$T/rnd1" --random 42
expect 0 make_random_again "$X" make Add --input a:float32[2,3] --input b:float32[3] --case "$T/rnd2" --random 42
expect 0 make_random_other "$X" make Add --input a:float32[2,3] --input b:float32[3] --case "$T/rnd3" --random 43
for k in 0 1; do
  if cmp -s "$T/rnd1/test_data_set_0/input_$k.pb" "$T/rnd2/test_data_set_0/input_$k.pb"; then ok; else bad "make_random: input_$k.pb differs for the same seed"; fi
done
if cmp -s "$T/rnd1/test_data_set_0/input_0.pb" "$T/rnd3/test_data_set_0/input_0.pb"; then bad "make_random: seeds 42 and 43 give the same input"; else ok; fi
# the generator is pinned: these are seed 42's first values on every machine
expect 0 make_random_show "$X" show "$T/rnd1/test_data_set_0/input_0.pb" "$T/rnd1/test_data_set_0/input_1.pb"
out_has make_random_show "[[ 0.48312977, -0.68017924, -0.44279775],"
out_has make_random_show "[-0.5631896 ,  0.60126376, -0.32013792]"
expect 0 make_random_case "$X" test "$T/rnd1"
out_has make_random_case "1 passed, 0 failed"
expect 0 make_random_types "$X" make Identity --opset 25 --input x:int2[6] --case "$T/rnd4" --random 7
expect 0 make_random_types_show "$X" show "$T/rnd4/test_data_set_0/input_0.pb"
out_has make_random_types_show "[ 1, -2,  0,  1,  0, -1]"
expect 0 make_random_str "$X" make Identity --input x:string[2,2] --case "$T/rnd5" --random 7
expect 0 make_random_str_show "$X" show "$T/rnd5/test_data_set_0/input_0.pb"
out_has make_random_str_show "dtype=str"
expect 2 make_random_no_shape "$X" make Identity --input 'x:float32[?]' --case "$T/never_rnd" --random 1
err_has make_random_no_shape "onnxop make: input 'x' is drawn, and that needs a tensor type with a whole shape, not float32[?] (--input x:DTYPE[SHAPE], such as float32[2,3])"
no_file "$T/never_rnd"
expect 2 make_random_seq "$X" make SequenceLength --opset 11 --input 'x:seq(tensor(float))' --case "$T/never_rnd" --random 1
err_has make_random_seq "input 'x' is drawn, and that needs a tensor type with a whole shape"
expect 2 make_random_bad_seed "$X" make Identity --input 'x:float32[2]' --case "$T/never_rnd" --random -1
err_has make_random_bad_seed "onnxop make: --random needs a seed: a number from 0 to 2^64-1, not '-1'"
expect 2 make_random_no_case "$X" make Identity --input 'x:float32[2]' -o "$T/never_rnd.onnx" --random 1
err_has make_random_no_case "onnxop make: --random is for --case"
no_file "$T/never_rnd.onnx"
# --in and --random combine: the given input stays as given, the others are drawn
expect 0 make_random_and_in "$X" make Gather --input 'x:float32[5,2]' --input 'i:int64[3]' --case "$T/rnd_in" --random 1 --in 'i=int64[3]:4,0,4'
expect 0 make_random_and_in_show "$X" show "$T/rnd_in/test_data_set_0/input_1.pb" "$T/rnd_in/test_data_set_0/output_0.pb"
out_has make_random_and_in_show "[4, 0, 4]"
out_has make_random_and_in_show "output: shape=(3, 2), dtype=float32"
expect 0 make_help_random "$X" make --help
out_has make_help_random "--random SEED      draw the inputs --in does not give"
