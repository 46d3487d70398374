/* ops/contrib_other.c: the rest of the com.microsoft operators onnxruntime's
 * CPU provider registers (its contrib_ops/cpu/cpu_contrib_kernels.cc) that
 * onnxop knows but does not run, each with the reason `onnxop ops` and the
 * "unsupported operator" message give. The quantized and fused ones are
 * listed beside their sets (ops/contrib_quant.c, ops/contrib_fused.c), the
 * generation loops in ops/contrib_generation.c. */
#include "core/kernel.h"

#define IN_AI_ONNX(twin)                                                                                     \
  "com.microsoft's form of an operator ONNX later made its own (" twin "), which exporters write; onnxop "   \
  "runs that one"
#define LOOP_STEP                                                                                            \
  "a step of onnxruntime's generation loops (BeamSearch, GreedySearch, Sampling), which onnxop does not run"

const ox_kernel ox_contrib_other_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "com.microsoft", "AttnLSTM",                        1, OX_NOT_RUN("an LSTM with an attention mechanism of "
    "onnxruntime's own; not done") },
  { "com.microsoft", "BifurcationDetector",             1, OX_NOT_RUN(LOOP_STEP) },
  { "com.microsoft", "CDist",                           1, OX_NOT_RUN("pairwise distances, which skl2onnx writes "
    "only when asked for onnxruntime's domain; not done") },
  { "com.microsoft", "ConvTransposeWithDynamicPads",    1, OX_NOT_RUN("ConvTranspose with its pads as an input; "
    "not done") },
  { "com.microsoft", "CropAndResize",                   1, OX_NOT_RUN("TensorFlow's crop_and_resize; not done") },
  { "com.microsoft", "DecoderMaskedMultiHeadAttention", 1, OX_NOT_RUN("the decoding attention of the subgraphs "
    "onnxruntime's BeamSearch and GreedySearch drive, which onnxop does not run") },
  { "com.microsoft", "DynamicTimeWarping",              1, OX_NOT_RUN("a step of onnxruntime's Whisper "
    "timestamp alignment, which its own optimizer writes; not done") },
  { "com.microsoft", "ExpandDims",                      1, OX_NOT_RUN(IN_AI_ONNX("Unsqueeze")) },
  { "com.microsoft", "GatherND",                        1, OX_NOT_RUN(IN_AI_ONNX("GatherND-11")) },
  { "com.microsoft", "GridSample",                      1, OX_NOT_RUN(IN_AI_ONNX("GridSample-16")) },
  { "com.microsoft", "Inverse",                         1, OX_NOT_RUN("a batched matrix inverse, which the ONNX spec "
    "lacks; not done") },
  { "com.microsoft", "MaxpoolWithMask",                 1, OX_NOT_RUN("a MaxPool with a mask input; not done") },
  { "com.microsoft", "MoE",                             1, OX_NOT_RUN("a mixture of experts with onnxruntime's own "
    "routing; not done") },
  { "com.microsoft", "MurmurHash3",                     1, OX_NOT_RUN("a string and integer hash; not done") },
  { "com.microsoft", "NGramRepeatBlock",                1, OX_NOT_RUN(LOOP_STEP) },
  { "com.microsoft", "Pad",                             1, OX_NOT_RUN(IN_AI_ONNX("Pad-11")) },
  { "com.microsoft", "Range",                           1, OX_NOT_RUN(IN_AI_ONNX("Range-11")) },
  { "com.microsoft", "SampleOp",                        1, OX_NOT_RUN("onnxruntime's example of a contrib kernel; "
    "no model uses it") },
  { "com.microsoft", "SparseAttention",                 1, OX_NOT_RUN("block-sparse attention with onnxruntime's "
    "own sparse layout; not done") },
  { "com.microsoft", "SparseToDenseMatMul",             1, OX_NOT_RUN("a product with a sparse-tensor input; not "
    "done") },
  { "com.microsoft", "Tokenizer",                       1, OX_NOT_RUN("text preprocessing of onnxruntime's own "
    "(onnxruntime-extensions' tokenizers took its place); not done") },
  { "com.microsoft", "Trilu",                           1, OX_NOT_RUN(IN_AI_ONNX("Trilu-14")) },
  { "com.microsoft", "UnfoldTensor",                    1, OX_NOT_RUN("a step of onnxruntime's Whisper timestamp "
    "alignment, which its own optimizer writes; not done") },
  { "com.microsoft", "Unique",                          1, OX_NOT_RUN(IN_AI_ONNX("Unique-11")) },
  { "com.microsoft", "WordConvEmbedding",               1, OX_NOT_RUN("a character-CNN word embedding of "
    "onnxruntime's own; not done") },
  {0},
};
