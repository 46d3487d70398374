/* ops/families.c: every family of operator rows, listed once (as Lua's
 * linit.c lists its libraries outside the core). core/registry.c knows the
 * row type (core/registry.h) and sorts what this list holds; it names no
 * operator. A new family file adds its table here. */
#include "core/fuse.h"
#include "core/registry.h"

extern const ox_kernel ox_sequence_kernels[], ox_optional_kernels[], ox_shape_kernels[];
extern const ox_kernel ox_index_kernels[];
extern const ox_kernel ox_binary_kernels[];
extern const ox_kernel ox_control_kernels[];
extern const ox_kernel ox_unary_kernels[];
extern const ox_kernel ox_cast_kernels[];
extern const ox_kernel ox_tensor_kernels[];
extern const ox_kernel ox_reduce_kernels[];
extern const ox_kernel ox_matmul_kernels[];
extern const ox_kernel ox_conv_kernels[];
extern const ox_kernel ox_pool_kernels[];
extern const ox_kernel ox_norm_kernels[];
extern const ox_kernel ox_quant_kernels[];
extern const ox_kernel ox_training_kernels[];
extern const ox_kernel ox_signal_kernels[];
extern const ox_kernel ox_loss_kernels[];
extern const ox_kernel ox_rnn_kernels[];
extern const ox_kernel ox_image_kernels[];
extern const ox_kernel ox_attention_kernels[];
extern const ox_kernel ox_transformer_kernels[];
extern const ox_kernel ox_random_kernels[];
extern const ox_kernel ox_imagedecoder_kernels[];
extern const ox_kernel ox_string_kernels[];
extern const ox_kernel ox_ml_encode_kernels[];
extern const ox_kernel ox_ml_linear_kernels[];
extern const ox_kernel ox_ml_tree_kernels[];
extern const ox_kernel ox_ml_svm_kernels[];
extern const ox_kernel ox_experimental_kernels[];
extern const ox_kernel ox_contrib_transformer_kernels[];
extern const ox_kernel ox_contrib_generation_kernels[];
extern const ox_kernel ox_contrib_quant_kernels[];
extern const ox_kernel ox_contrib_fused_kernels[];
extern const ox_kernel ox_contrib_other_kernels[];

/* Every op family, in the order `onnxop ops` prints them. */
const ox_family ox_families[] = {
    {"shape", ox_shape_kernels},
    {"sequence", ox_sequence_kernels},
    {"optional", ox_optional_kernels},
    {"index", ox_index_kernels},
    {"binary", ox_binary_kernels, ox_binary_epi},
    {"control", ox_control_kernels},
    {"unary", ox_unary_kernels, ox_unary_epi},
    {"cast", ox_cast_kernels},
    {"tensor", ox_tensor_kernels},
    {"reduce", ox_reduce_kernels},
    {"matmul", ox_matmul_kernels},
    {"conv", ox_conv_kernels},
    {"pool", ox_pool_kernels},
    {"norm", ox_norm_kernels, ox_batchnorm_epi},
    {"quant", ox_quant_kernels},
    {"training", ox_training_kernels},
    {"signal", ox_signal_kernels},
    {"loss", ox_loss_kernels},
    {"rnn", ox_rnn_kernels},
    {"image", ox_image_kernels},
    {"attention", ox_attention_kernels},
    {"transformer", ox_transformer_kernels},
    {"random", ox_random_kernels},
    {"imagedecoder", ox_imagedecoder_kernels},
    {"string", ox_string_kernels},
    {"ml-encode", ox_ml_encode_kernels},
    {"ml-linear", ox_ml_linear_kernels},
    {"ml-tree", ox_ml_tree_kernels},
    {"ml-svm", ox_ml_svm_kernels},
    {"experimental", ox_experimental_kernels},
    {"contrib-transformer", ox_contrib_transformer_kernels},
    {"contrib-generation", ox_contrib_generation_kernels},
    {"contrib-quant", ox_contrib_quant_kernels},
    {"contrib-fused", ox_contrib_fused_kernels},
    {"contrib-other", ox_contrib_other_kernels},
    {NULL, NULL, NULL},
};
