# tests/cli/fuse.sh: elementwise followers computed by their Conv or MatMul
# (core/fuse.h; sourced by tests/cli/run.sh; the model is
# tests/cli/fuse_gen.py's): the same bytes fused and not
# (ONNXOP_NO_FUSE=1), on one thread and on two; --time says which nodes ran
# fused; --trace (values printed) runs every node on its own.
F="$T/fuse"
if ! /usr/bin/python3 tests/cli/fuse_gen.py "$F" >"$T/fuse_gen.err" 2>&1; then
  bad "fuse: tests/cli/fuse_gen.py failed: $(head -c 400 "$T/fuse_gen.err")"
else
  FI="--in x=$F/x.pb --in r=$F/r.pb"
  expect 0 fuse_on "$X" run "$F/fuse.onnx" $FI --out-dir "$F/on"
  expect 0 fuse_on2 "$X" run --threads 2 "$F/fuse.onnx" $FI --out-dir "$F/on2"
  expect 0 fuse_off env ONNXOP_NO_FUSE=1 "$X" run "$F/fuse.onnx" $FI --out-dir "$F/off"
  for i in 0 1 2 3 4 5; do
    cmp -s "$F/on/output_$i.pb" "$F/off/output_$i.pb" && ok || bad "fuse: output $i differs fused and not"
    cmp -s "$F/on2/output_$i.pb" "$F/off/output_$i.pb" && ok || bad "fuse: output $i differs fused on 2 threads"
  done
  expect 0 fuse_time "$X" bench "$F/fuse.onnx" $FI --runs 1 --warmup 0 --time
  for n in "'bn' BatchNormalization-9 (computed by node 'conv')" "'residual' Add-13 (computed by node 'conv')" \
      "'hs_mul' Mul-13 (computed by node 'conv')" "'max' Max-13 (computed by node 'dw')" \
      "'sub' Sub-13 (computed by node 'dw')" "'sig' Sigmoid-13 (computed by node 'gv')" \
      "'relu_out' Relu-13 (computed by node 'pw')" "'mm_bias' Add-13 (computed by node 'mm')" \
      "'mm_relu' Relu-13 (computed by node 'mm')"; do
    err_has fuse_time "fused  node $n"
  done
  # u is an output and Neg reads it: Neg is not fused past it
  grep -q "us  node 'neg' Neg-13" "$T/fuse_time.err" && ok || bad "fuse: Neg did not run on its own"
  expect 0 fuse_time_off env ONNXOP_NO_FUSE=1 "$X" bench "$F/fuse.onnx" $FI --runs 1 --warmup 0 --time
  grep -q fused "$T/fuse_time_off.err" && bad "fuse: ONNXOP_NO_FUSE=1 still fuses" || ok
  expect 0 fuse_trace "$X" run "$F/fuse.onnx" $FI --trace --out-dir "$F/tr"
  err_has fuse_trace "node 'relu' Relu-13"
  grep -q fused "$T/fuse_trace.err" && bad "fuse: --trace fuses" || ok
fi

# MaxPool 2x2 stride 2 (ops/pool.c's fast rows): taps in order, NaN never
# kept, of equal zeros the first (-0 in the second window), all NaN -inf
expect 0 maxpool2_make "$X" make MaxPool --opset 12 -a kernel_shape=[2,2] -a strides=[2,2] \
  --input 'x:float32[1,1,2,8]' -o "$T/maxpool2.onnx"
expect 0 maxpool2_run "$X" run "$T/maxpool2.onnx" --format npy --out-dir "$T/maxpool2" \
  --in 'x=float32[1,1,2,8]:nan,1,-0,0,-inf,nan,0,-0,nan,-2,0,-0,nan,nan,-0,0'
expect 0 maxpool2_want "$X" convert 'float32[1,1,1,4]:1,-0,-inf,0' "$T/maxpool2_want.npy"
cmp -s "$T/maxpool2/output_0.npy" "$T/maxpool2_want.npy" && ok || bad "maxpool2: not [1, -0, -inf, 0]"
if [ -s "$F/fuse.onnx" ]; then
  # --save-intermediates sees every value, the fused ones too
  expect 0 fuse_save "$X" run "$F/fuse.onnx" $FI --save-intermediates "$F/si" --out-dir "$F/si_out"
  for v in c bn re res h1 h2 h3 dc lr mx g u0 mm0 mmb; do
    [ -s "$F/si/$v.pb" ] && ok || bad "fuse: --save-intermediates did not write $v"
  done
fi
