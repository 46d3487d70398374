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

