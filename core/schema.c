/* core/schema.c: attribute declarations of every ONNX op-version (see
 * schema.h).
 *
 * The rows restate the "#### Attributes" lists of docs/Changelog.md and
 * docs/Changelog-ml.md of onnx/onnx at f7546912 (2026-08-22), one row per
 * "### Op-N" heading: each "<dt><tt>name</tt> : type" entry, with "list of
 * ints" written ints (and so on) and ":required" where the entry says
 * "(required)". An op-version whose page lists no attributes has "" (the
 * deprecated ones too, except GroupNormalization-18, which onnxop runs). When
 * ONNX adds an op-version, add its row here and its kernel row in ops/;
 * tests/unit/test_schema.c checks that the two tables agree. */
#include "schema.h"

#include <stdio.h>
#include <string.h>

#include "registry.h"

const ox_schema ox_schemas[] = {
    {"", "Abs", 1, "consumed_inputs:ints"},
    {"", "Abs", 6, ""},
    {"", "Abs", 13, ""},
    {"", "Acos", 7, ""},
    {"", "Acos", 22, ""},
    {"", "Acosh", 9, ""},
    {"", "Acosh", 22, ""},
    {"", "Add", 1, "axis:int,broadcast:int,consumed_inputs:ints"},
    {"", "Add", 6, "axis:int,broadcast:int"},
    {"", "Add", 7, ""},
    {"", "Add", 13, ""},
    {"", "Add", 14, ""},
    {"", "AffineGrid", 20, "align_corners:int"},
    {"", "And", 1, "axis:int,broadcast:int"},
    {"", "And", 7, ""},
    {"", "ArgMax", 1, "axis:int,keepdims:int"},
    {"", "ArgMax", 11, "axis:int,keepdims:int"},
    {"", "ArgMax", 12, "axis:int,keepdims:int,select_last_index:int"},
    {"", "ArgMax", 13, "axis:int,keepdims:int,select_last_index:int"},
    {"", "ArgMin", 1, "axis:int,keepdims:int"},
    {"", "ArgMin", 11, "axis:int,keepdims:int"},
    {"", "ArgMin", 12, "axis:int,keepdims:int,select_last_index:int"},
    {"", "ArgMin", 13, "axis:int,keepdims:int,select_last_index:int"},
    {"", "Asin", 7, ""},
    {"", "Asin", 22, ""},
    {"", "Asinh", 9, ""},
    {"", "Asinh", 22, ""},
    {"", "Atan", 7, ""},
    {"", "Atan", 22, ""},
    {"", "Atanh", 9, ""},
    {"", "Atanh", 22, ""},
    {"", "Attention", 23,
     "is_causal:int,kv_num_heads:int,q_num_heads:int,qk_matmul_output_mode:int,scale:float,"
     "softcap:float,softmax_precision:int"},
    {"", "Attention", 24,
     "is_causal:int,kv_num_heads:int,q_num_heads:int,qk_matmul_output_mode:int,scale:float,"
     "softcap:float,softmax_precision:int"},
    {"", "Attention", 25,
     "is_causal:int,kv_num_heads:int,left_window_size:int,q_num_heads:int,"
     "qk_matmul_output_mode:int,right_window_size:int,scale:float,softcap:float,"
     "softmax_precision:int"},
    {"", "AveragePool", 1, "auto_pad:string,kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "AveragePool", 7,
     "auto_pad:string,count_include_pad:int,kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "AveragePool", 10,
     "auto_pad:string,ceil_mode:int,count_include_pad:int,kernel_shape:ints:required,"
     "pads:ints,strides:ints"},
    {"", "AveragePool", 11,
     "auto_pad:string,ceil_mode:int,count_include_pad:int,kernel_shape:ints:required,"
     "pads:ints,strides:ints"},
    {"", "AveragePool", 19,
     "auto_pad:string,ceil_mode:int,count_include_pad:int,dilations:ints,"
     "kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "AveragePool", 22,
     "auto_pad:string,ceil_mode:int,count_include_pad:int,dilations:ints,"
     "kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "BatchNormalization", 1,
     "consumed_inputs:ints:required,epsilon:float,is_test:int,momentum:float,spatial:int"},
    {"", "BatchNormalization", 6, "epsilon:float,is_test:int,momentum:float,spatial:int"},
    {"", "BatchNormalization", 7, "epsilon:float,momentum:float,spatial:int"},
    {"", "BatchNormalization", 9, "epsilon:float,momentum:float"},
    {"", "BatchNormalization", 14, "epsilon:float,momentum:float,training_mode:int"},
    {"", "BatchNormalization", 15, "epsilon:float,momentum:float,training_mode:int"},
    {"", "Bernoulli", 15, "dtype:int,seed:float"},
    {"", "Bernoulli", 22, "dtype:int,seed:float"},
    {"", "BitCast", 26, "to:int:required"},
    {"", "BitShift", 11, "direction:string:required"},
    {"", "BitwiseAnd", 18, ""},
    {"", "BitwiseNot", 18, ""},
    {"", "BitwiseOr", 18, ""},
    {"", "BitwiseXor", 18, ""},
    {"", "BlackmanWindow", 17, "output_datatype:int,periodic:int"},
    {"", "Cast", 1, "to:string:required"},
    {"", "Cast", 6, "to:int:required"},
    {"", "Cast", 9, "to:int:required"},
    {"", "Cast", 13, "to:int:required"},
    {"", "Cast", 19, "saturate:int,to:int:required"},
    {"", "Cast", 21, "saturate:int,to:int:required"},
    {"", "Cast", 23, "saturate:int,to:int:required"},
    {"", "Cast", 24, "round_mode:string,saturate:int,to:int:required"},
    {"", "Cast", 25, "round_mode:string,saturate:int,to:int:required"},
    {"", "CastLike", 15, ""},
    {"", "CastLike", 19, "saturate:int"},
    {"", "CastLike", 21, "saturate:int"},
    {"", "CastLike", 23, "saturate:int"},
    {"", "CastLike", 24, "round_mode:string,saturate:int"},
    {"", "CastLike", 25, "round_mode:string,saturate:int"},
    {"", "CausalConvWithState", 27, "activation:string"},
    {"", "Ceil", 1, "consumed_inputs:ints"},
    {"", "Ceil", 6, ""},
    {"", "Ceil", 13, ""},
    {"", "Celu", 12, "alpha:float"},
    {"", "Celu", 28, "alpha:float"},
    {"", "CenterCropPad", 18, "axes:ints"},
    {"", "Clip", 1, "consumed_inputs:ints,max:float,min:float"},
    {"", "Clip", 6, "max:float,min:float"},
    {"", "Clip", 11, ""},
    {"", "Clip", 12, ""},
    {"", "Clip", 13, ""},
    {"", "Col2Im", 18, "dilations:ints,pads:ints,strides:ints"},
    {"", "Compress", 9, "axis:int"},
    {"", "Compress", 11, "axis:int"},
    {"", "Concat", 1, "axis:int"},
    {"", "Concat", 4, "axis:int:required"},
    {"", "Concat", 11, "axis:int:required"},
    {"", "Concat", 13, "axis:int:required"},
    {"", "ConcatFromSequence", 11, "axis:int:required,new_axis:int"},
    {"", "Constant", 1, "value:tensor:required"},
    {"", "Constant", 9, "value:tensor:required"},
    {"", "Constant", 11, "sparse_value:sparse_tensor,value:tensor"},
    {"", "Constant", 12,
     "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
     "value_int:int,value_ints:ints,value_string:string,value_strings:strings"},
    {"", "Constant", 13,
     "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
     "value_int:int,value_ints:ints,value_string:string,value_strings:strings"},
    {"", "Constant", 19,
     "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
     "value_int:int,value_ints:ints,value_string:string,value_strings:strings"},
    {"", "Constant", 21,
     "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
     "value_int:int,value_ints:ints,value_string:string,value_strings:strings"},
    {"", "Constant", 23,
     "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
     "value_int:int,value_ints:ints,value_string:string,value_strings:strings"},
    {"", "Constant", 24,
     "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
     "value_int:int,value_ints:ints,value_string:string,value_strings:strings"},
    {"", "Constant", 25,
     "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
     "value_int:int,value_ints:ints,value_string:string,value_strings:strings"},
    {"", "ConstantOfShape", 9, "value:tensor"},
    {"", "ConstantOfShape", 20, "value:tensor"},
    {"", "ConstantOfShape", 21, "value:tensor"},
    {"", "ConstantOfShape", 23, "value:tensor"},
    {"", "ConstantOfShape", 24, "value:tensor"},
    {"", "ConstantOfShape", 25, "value:tensor"},
    {"", "Conv", 1,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,pads:ints,strides:ints"},
    {"", "Conv", 11,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,pads:ints,strides:ints"},
    {"", "Conv", 22,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,pads:ints,strides:ints"},
    {"", "ConvInteger", 10,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,pads:ints,strides:ints"},
    {"", "ConvTranspose", 1,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,output_padding:ints,"
     "output_shape:ints,pads:ints,strides:ints"},
    {"", "ConvTranspose", 11,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,output_padding:ints,"
     "output_shape:ints,pads:ints,strides:ints"},
    {"", "ConvTranspose", 22,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,output_padding:ints,"
     "output_shape:ints,pads:ints,strides:ints"},
    {"", "Cos", 7, ""},
    {"", "Cos", 22, ""},
    {"", "Cosh", 9, ""},
    {"", "Cosh", 22, ""},
    {"", "CumProd", 26, "exclusive:int,reverse:int"},
    {"", "CumSum", 11, "exclusive:int,reverse:int"},
    {"", "CumSum", 14, "exclusive:int,reverse:int"},
    {"", "DFT", 17, "axis:int,inverse:int,onesided:int"},
    {"", "DFT", 20, "inverse:int,onesided:int"},
    {"", "DeformConv", 19,
     "dilations:ints,group:int,kernel_shape:ints,offset_group:int,pads:ints,strides:ints"},
    {"", "DeformConv", 22,
     "dilations:ints,group:int,kernel_shape:ints,offset_group:int,pads:ints,strides:ints"},
    {"", "DepthToSpace", 1, "blocksize:int:required"},
    {"", "DepthToSpace", 11, "blocksize:int:required,mode:string"},
    {"", "DepthToSpace", 13, "blocksize:int:required,mode:string"},
    {"", "DequantizeLinear", 10, ""},
    {"", "DequantizeLinear", 13, "axis:int"},
    {"", "DequantizeLinear", 19, "axis:int"},
    {"", "DequantizeLinear", 21, "axis:int,block_size:int"},
    {"", "DequantizeLinear", 23, "axis:int,block_size:int,output_dtype:int"},
    {"", "DequantizeLinear", 24, "axis:int,block_size:int,output_dtype:int"},
    {"", "DequantizeLinear", 25, "axis:int,block_size:int,output_dtype:int"},
    {"", "Det", 11, ""},
    {"", "Det", 22, ""},
    {"", "Div", 1, "axis:int,broadcast:int,consumed_inputs:ints"},
    {"", "Div", 6, "axis:int,broadcast:int"},
    {"", "Div", 7, ""},
    {"", "Div", 13, ""},
    {"", "Div", 14, ""},
    {"", "Dropout", 1, "consumed_inputs:ints,is_test:int,ratio:float"},
    {"", "Dropout", 6, "is_test:int,ratio:float"},
    {"", "Dropout", 7, "ratio:float"},
    {"", "Dropout", 10, "ratio:float"},
    {"", "Dropout", 12, "seed:int"},
    {"", "Dropout", 13, "seed:int"},
    {"", "Dropout", 22, "seed:int"},
    {"", "DynamicQuantizeLinear", 11, ""},
    {"", "Einsum", 12, "equation:string:required"},
    {"", "Elu", 1, "alpha:float,consumed_inputs:ints"},
    {"", "Elu", 6, "alpha:float"},
    {"", "Elu", 22, "alpha:float"},
    {"", "Equal", 1, "axis:int,broadcast:int"},
    {"", "Equal", 7, ""},
    {"", "Equal", 11, ""},
    {"", "Equal", 13, ""},
    {"", "Equal", 19, ""},
    {"", "Erf", 9, ""},
    {"", "Erf", 13, ""},
    {"", "Exp", 1, "consumed_inputs:ints"},
    {"", "Exp", 6, ""},
    {"", "Exp", 13, ""},
    {"", "Expand", 8, ""},
    {"", "Expand", 13, ""},
    {"", "EyeLike", 9, "dtype:int,k:int"},
    {"", "EyeLike", 22, "dtype:int,k:int"},
    {"", "Flatten", 1, "axis:int"},
    {"", "Flatten", 9, "axis:int"},
    {"", "Flatten", 11, "axis:int"},
    {"", "Flatten", 13, "axis:int"},
    {"", "Flatten", 21, "axis:int"},
    {"", "Flatten", 23, "axis:int"},
    {"", "Flatten", 24, "axis:int"},
    {"", "Flatten", 25, "axis:int"},
    {"", "Floor", 1, "consumed_inputs:ints"},
    {"", "Floor", 6, ""},
    {"", "Floor", 13, ""},
    {"", "GRU", 1,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,output_sequence:int"},
    {"", "GRU", 3,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,linear_before_reset:int,output_sequence:int"},
    {"", "GRU", 7,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,linear_before_reset:int"},
    {"", "GRU", 14,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,layout:int,linear_before_reset:int"},
    {"", "GRU", 22,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,layout:int,linear_before_reset:int"},
    {"", "Gather", 1, "axis:int"},
    {"", "Gather", 11, "axis:int"},
    {"", "Gather", 13, "axis:int"},
    {"", "GatherElements", 11, "axis:int"},
    {"", "GatherElements", 13, "axis:int"},
    {"", "GatherND", 11, ""},
    {"", "GatherND", 12, "batch_dims:int"},
    {"", "GatherND", 13, "batch_dims:int"},
    {"", "Gelu", 20, "approximate:string"},
    {"", "Gemm", 1, "alpha:float,beta:float,broadcast:int,transA:int,transB:int"},
    {"", "Gemm", 6, "alpha:float,beta:float,broadcast:int,transA:int,transB:int"},
    {"", "Gemm", 7, "alpha:float,beta:float,transA:int,transB:int"},
    {"", "Gemm", 9, "alpha:float,beta:float,transA:int,transB:int"},
    {"", "Gemm", 11, "alpha:float,beta:float,transA:int,transB:int"},
    {"", "Gemm", 13, "alpha:float,beta:float,transA:int,transB:int"},
    {"", "GlobalAveragePool", 1, ""},
    {"", "GlobalAveragePool", 22, ""},
    {"", "GlobalLpPool", 1, "p:float"},
    {"", "GlobalLpPool", 2, "p:int"},
    {"", "GlobalLpPool", 22, "p:int"},
    {"", "GlobalMaxPool", 1, ""},
    {"", "GlobalMaxPool", 22, ""},
    {"", "Greater", 1, "axis:int,broadcast:int"},
    {"", "Greater", 7, ""},
    {"", "Greater", 9, ""},
    {"", "Greater", 13, ""},
    {"", "GreaterOrEqual", 12, ""},
    {"", "GreaterOrEqual", 16, ""},
    {"", "GridSample", 16, "align_corners:int,mode:string,padding_mode:string"},
    {"", "GridSample", 20, "align_corners:int,mode:string,padding_mode:string"},
    {"", "GridSample", 22, "align_corners:int,mode:string,padding_mode:string"},
    /* GroupNormalization-18: the current Changelog marks it deprecated and no
     * longer lists its attributes; these are from onnx 1.16's, when it was
     * current (onnxop still runs it, as the issue asks for both versions) */
    {"", "GroupNormalization", 18, "epsilon:float,num_groups:int:required"},
    {"", "GroupNormalization", 21, "epsilon:float,num_groups:int:required,stash_type:int"},
    {"", "HammingWindow", 17, "output_datatype:int,periodic:int"},
    {"", "HannWindow", 17, "output_datatype:int,periodic:int"},
    {"", "HardSigmoid", 1, "alpha:float,beta:float,consumed_inputs:ints"},
    {"", "HardSigmoid", 6, "alpha:float,beta:float"},
    {"", "HardSigmoid", 22, "alpha:float,beta:float"},
    {"", "HardSwish", 14, ""},
    {"", "HardSwish", 22, ""},
    {"", "Hardmax", 1, "axis:int"},
    {"", "Hardmax", 11, "axis:int"},
    {"", "Hardmax", 13, "axis:int"},
    {"", "Identity", 1, ""},
    {"", "Identity", 13, ""},
    {"", "Identity", 14, ""},
    {"", "Identity", 16, ""},
    {"", "Identity", 19, ""},
    {"", "Identity", 21, ""},
    {"", "Identity", 23, ""},
    {"", "Identity", 24, ""},
    {"", "Identity", 25, ""},
    {"", "If", 1, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 11, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 13, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 16, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 19, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 21, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 23, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 24, "else_branch:graph:required,then_branch:graph:required"},
    {"", "If", 25, "else_branch:graph:required,then_branch:graph:required"},
    {"", "ImageDecoder", 20, "pixel_format:string"},
    {"", "InstanceNormalization", 1, "consumed_inputs:ints,epsilon:float"},
    {"", "InstanceNormalization", 6, "epsilon:float"},
    {"", "InstanceNormalization", 22, "epsilon:float"},
    {"", "IsInf", 10, "detect_negative:int,detect_positive:int"},
    {"", "IsInf", 20, "detect_negative:int,detect_positive:int"},
    {"", "IsNaN", 9, ""},
    {"", "IsNaN", 13, ""},
    {"", "IsNaN", 20, ""},
    {"", "LRN", 1, "alpha:float,beta:float,bias:float,size:int:required"},
    {"", "LRN", 13, "alpha:float,beta:float,bias:float,size:int:required"},
    {"", "LSTM", 1,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,input_forget:int,output_sequence:int"},
    {"", "LSTM", 7,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,input_forget:int"},
    {"", "LSTM", 14,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,input_forget:int,layout:int"},
    {"", "LSTM", 22,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,input_forget:int,layout:int"},
    {"", "LayerNormalization", 17, "axis:int,epsilon:float,stash_type:int"},
    {"", "LeakyRelu", 1, "alpha:float,consumed_inputs:ints"},
    {"", "LeakyRelu", 6, "alpha:float"},
    {"", "LeakyRelu", 16, "alpha:float"},
    {"", "Less", 1, "axis:int,broadcast:int"},
    {"", "Less", 7, ""},
    {"", "Less", 9, ""},
    {"", "Less", 13, ""},
    {"", "LessOrEqual", 12, ""},
    {"", "LessOrEqual", 16, ""},
    {"", "LinearAttention", 27,
     "chunk_size:int,kv_num_heads:int:required,q_num_heads:int:required,scale:float,"
     "update_rule:string"},
    {"", "Log", 1, "consumed_inputs:ints"},
    {"", "Log", 6, ""},
    {"", "Log", 13, ""},
    {"", "LogSoftmax", 1, "axis:int"},
    {"", "LogSoftmax", 11, "axis:int"},
    {"", "LogSoftmax", 13, "axis:int"},
    {"", "Loop", 1, "body:graph:required"},
    {"", "Loop", 11, "body:graph:required"},
    {"", "Loop", 13, "body:graph:required"},
    {"", "Loop", 16, "body:graph:required"},
    {"", "Loop", 19, "body:graph:required"},
    {"", "Loop", 21, "body:graph:required"},
    {"", "Loop", 23, "body:graph:required"},
    {"", "Loop", 24, "body:graph:required"},
    {"", "Loop", 25, "body:graph:required"},
    {"", "LpNormalization", 1, "axis:int,p:int"},
    {"", "LpNormalization", 22, "axis:int,p:int"},
    {"", "LpPool", 1, "auto_pad:string,kernel_shape:ints,p:float,pads:ints,strides:ints"},
    {"", "LpPool", 2, "auto_pad:string,kernel_shape:ints:required,p:int,pads:ints,strides:ints"},
    {"", "LpPool", 11, "auto_pad:string,kernel_shape:ints:required,p:int,pads:ints,strides:ints"},
    {"", "LpPool", 18,
     "auto_pad:string,ceil_mode:int,dilations:ints,kernel_shape:ints:required,p:int,pads:ints,"
     "strides:ints"},
    {"", "LpPool", 22,
     "auto_pad:string,ceil_mode:int,dilations:ints,kernel_shape:ints:required,p:int,pads:ints,"
     "strides:ints"},
    {"", "MatMul", 1, ""},
    {"", "MatMul", 9, ""},
    {"", "MatMul", 13, ""},
    {"", "MatMulInteger", 10, ""},
    {"", "Max", 1, "consumed_inputs:ints"},
    {"", "Max", 6, ""},
    {"", "Max", 8, ""},
    {"", "Max", 12, ""},
    {"", "Max", 13, ""},
    {"", "MaxPool", 1, "auto_pad:string,kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "MaxPool", 8,
     "auto_pad:string,kernel_shape:ints:required,pads:ints,storage_order:int,strides:ints"},
    {"", "MaxPool", 10,
     "auto_pad:string,ceil_mode:int,dilations:ints,kernel_shape:ints:required,pads:ints,"
     "storage_order:int,strides:ints"},
    {"", "MaxPool", 11,
     "auto_pad:string,ceil_mode:int,dilations:ints,kernel_shape:ints:required,pads:ints,"
     "storage_order:int,strides:ints"},
    {"", "MaxPool", 12,
     "auto_pad:string,ceil_mode:int,dilations:ints,kernel_shape:ints:required,pads:ints,"
     "storage_order:int,strides:ints"},
    {"", "MaxPool", 22,
     "auto_pad:string,ceil_mode:int,dilations:ints,kernel_shape:ints:required,pads:ints,"
     "storage_order:int,strides:ints"},
    {"", "MaxRoiPool", 1, "pooled_shape:ints:required,spatial_scale:float"},
    {"", "MaxRoiPool", 22, "pooled_shape:ints:required,spatial_scale:float"},
    {"", "MaxUnpool", 9, "kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "MaxUnpool", 11, "kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "MaxUnpool", 22, "kernel_shape:ints:required,pads:ints,strides:ints"},
    {"", "Mean", 1, "consumed_inputs:ints"},
    {"", "Mean", 6, ""},
    {"", "Mean", 8, ""},
    {"", "Mean", 13, ""},
    {"", "MeanVarianceNormalization", 9, "axes:ints"},
    {"", "MeanVarianceNormalization", 13, "axes:ints"},
    {"", "MelWeightMatrix", 17, "output_datatype:int"},
    {"", "Min", 1, "consumed_inputs:ints"},
    {"", "Min", 6, ""},
    {"", "Min", 8, ""},
    {"", "Min", 12, ""},
    {"", "Min", 13, ""},
    {"", "Mish", 18, ""},
    {"", "Mish", 22, ""},
    {"", "Mod", 10, "fmod:int"},
    {"", "Mod", 13, "fmod:int"},
    {"", "Mul", 1, "axis:int,broadcast:int,consumed_inputs:ints"},
    {"", "Mul", 6, "axis:int,broadcast:int"},
    {"", "Mul", 7, ""},
    {"", "Mul", 13, ""},
    {"", "Mul", 14, ""},
    {"", "Multinomial", 7, "dtype:int,sample_size:int,seed:float"},
    {"", "Multinomial", 22, "dtype:int,sample_size:int,seed:float"},
    {"", "Neg", 1, "consumed_inputs:ints"},
    {"", "Neg", 6, ""},
    {"", "Neg", 13, ""},
    {"", "NegativeLogLikelihoodLoss", 12, "ignore_index:int,reduction:string"},
    {"", "NegativeLogLikelihoodLoss", 13, "ignore_index:int,reduction:string"},
    {"", "NegativeLogLikelihoodLoss", 22, "ignore_index:int,reduction:string"},
    {"", "NonMaxSuppression", 10, "center_point_box:int"},
    {"", "NonMaxSuppression", 11, "center_point_box:int"},
    {"", "NonZero", 9, ""},
    {"", "NonZero", 13, ""},
    {"", "Not", 1, ""},
    {"", "OneHot", 9, "axis:int"},
    {"", "OneHot", 11, "axis:int"},
    {"", "Optional", 15, "type:type_proto"},
    {"", "OptionalGetElement", 15, ""},
    {"", "OptionalGetElement", 18, ""},
    {"", "OptionalHasElement", 15, ""},
    {"", "OptionalHasElement", 18, ""},
    {"", "Or", 1, "axis:int,broadcast:int"},
    {"", "Or", 7, ""},
    {"", "PRelu", 1, "consumed_inputs:ints"},
    {"", "PRelu", 6, ""},
    {"", "PRelu", 7, ""},
    {"", "PRelu", 9, ""},
    {"", "PRelu", 16, ""},
    {"", "Pad", 1, "mode:string,paddings:ints:required,value:float"},
    {"", "Pad", 2, "mode:string,pads:ints:required,value:float"},
    {"", "Pad", 11, "mode:string"},
    {"", "Pad", 13, "mode:string"},
    {"", "Pad", 18, "mode:string"},
    {"", "Pad", 19, "mode:string"},
    {"", "Pad", 21, "mode:string"},
    {"", "Pad", 23, "mode:string"},
    {"", "Pad", 24, "mode:string"},
    {"", "Pad", 25, "mode:string"},
    {"", "Pow", 1, "axis:int,broadcast:int"},
    {"", "Pow", 7, ""},
    {"", "Pow", 12, ""},
    {"", "Pow", 13, ""},
    {"", "Pow", 15, ""},
    {"", "QLinearConv", 10,
     "auto_pad:string,dilations:ints,group:int,kernel_shape:ints,pads:ints,strides:ints"},
    {"", "QLinearMatMul", 10, ""},
    {"", "QLinearMatMul", 21, ""},
    {"", "QuantizeLinear", 10, ""},
    {"", "QuantizeLinear", 13, "axis:int"},
    {"", "QuantizeLinear", 19, "axis:int,saturate:int"},
    {"", "QuantizeLinear", 21, "axis:int,block_size:int,output_dtype:int,saturate:int"},
    {"", "QuantizeLinear", 23,
     "axis:int,block_size:int,output_dtype:int,precision:int,saturate:int"},
    {"", "QuantizeLinear", 24,
     "axis:int,block_size:int,output_dtype:int,precision:int,saturate:int"},
    {"", "QuantizeLinear", 25,
     "axis:int,block_size:int,output_dtype:int,precision:int,saturate:int"},
    {"", "RMSNormalization", 23, "axis:int,epsilon:float,stash_type:int"},
    {"", "RNN", 1,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,output_sequence:int"},
    {"", "RNN", 7,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int"},
    {"", "RNN", 14,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,layout:int"},
    {"", "RNN", 22,
     "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
     "direction:string,hidden_size:int,layout:int"},
    {"", "RandomNormal", 1, "dtype:int,mean:float,scale:float,seed:float,shape:ints:required"},
    {"", "RandomNormal", 22, "dtype:int,mean:float,scale:float,seed:float,shape:ints:required"},
    {"", "RandomNormalLike", 1, "dtype:int,mean:float,scale:float,seed:float"},
    {"", "RandomNormalLike", 22, "dtype:int,mean:float,scale:float,seed:float"},
    {"", "RandomUniform", 1, "dtype:int,high:float,low:float,seed:float,shape:ints:required"},
    {"", "RandomUniform", 22, "dtype:int,high:float,low:float,seed:float,shape:ints:required"},
    {"", "RandomUniformLike", 1, "dtype:int,high:float,low:float,seed:float"},
    {"", "RandomUniformLike", 22, "dtype:int,high:float,low:float,seed:float"},
    {"", "Range", 11, ""},
    {"", "Range", 27, "stash_type:int"},
    {"", "Reciprocal", 1, "consumed_inputs:ints"},
    {"", "Reciprocal", 6, ""},
    {"", "Reciprocal", 13, ""},
    {"", "ReduceL1", 1, "axes:ints,keepdims:int"},
    {"", "ReduceL1", 11, "axes:ints,keepdims:int"},
    {"", "ReduceL1", 13, "axes:ints,keepdims:int"},
    {"", "ReduceL1", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceL2", 1, "axes:ints,keepdims:int"},
    {"", "ReduceL2", 11, "axes:ints,keepdims:int"},
    {"", "ReduceL2", 13, "axes:ints,keepdims:int"},
    {"", "ReduceL2", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceLogSum", 1, "axes:ints,keepdims:int"},
    {"", "ReduceLogSum", 11, "axes:ints,keepdims:int"},
    {"", "ReduceLogSum", 13, "axes:ints,keepdims:int"},
    {"", "ReduceLogSum", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceLogSumExp", 1, "axes:ints,keepdims:int"},
    {"", "ReduceLogSumExp", 11, "axes:ints,keepdims:int"},
    {"", "ReduceLogSumExp", 13, "axes:ints,keepdims:int"},
    {"", "ReduceLogSumExp", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceMax", 1, "axes:ints,keepdims:int"},
    {"", "ReduceMax", 11, "axes:ints,keepdims:int"},
    {"", "ReduceMax", 12, "axes:ints,keepdims:int"},
    {"", "ReduceMax", 13, "axes:ints,keepdims:int"},
    {"", "ReduceMax", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceMax", 20, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceMean", 1, "axes:ints,keepdims:int"},
    {"", "ReduceMean", 11, "axes:ints,keepdims:int"},
    {"", "ReduceMean", 13, "axes:ints,keepdims:int"},
    {"", "ReduceMean", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceMin", 1, "axes:ints,keepdims:int"},
    {"", "ReduceMin", 11, "axes:ints,keepdims:int"},
    {"", "ReduceMin", 12, "axes:ints,keepdims:int"},
    {"", "ReduceMin", 13, "axes:ints,keepdims:int"},
    {"", "ReduceMin", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceMin", 20, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceProd", 1, "axes:ints,keepdims:int"},
    {"", "ReduceProd", 11, "axes:ints,keepdims:int"},
    {"", "ReduceProd", 13, "axes:ints,keepdims:int"},
    {"", "ReduceProd", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceSum", 1, "axes:ints,keepdims:int"},
    {"", "ReduceSum", 11, "axes:ints,keepdims:int"},
    {"", "ReduceSum", 13, "keepdims:int,noop_with_empty_axes:int"},
    {"", "ReduceSumSquare", 1, "axes:ints,keepdims:int"},
    {"", "ReduceSumSquare", 11, "axes:ints,keepdims:int"},
    {"", "ReduceSumSquare", 13, "axes:ints,keepdims:int"},
    {"", "ReduceSumSquare", 18, "keepdims:int,noop_with_empty_axes:int"},
    {"", "RegexFullMatch", 20, "pattern:string"},
    {"", "Relu", 1, "consumed_inputs:ints"},
    {"", "Relu", 6, ""},
    {"", "Relu", 13, ""},
    {"", "Relu", 14, ""},
    {"", "Reshape", 1, "consumed_inputs:ints,shape:ints"},
    {"", "Reshape", 5, ""},
    {"", "Reshape", 13, ""},
    {"", "Reshape", 14, "allowzero:int"},
    {"", "Reshape", 19, "allowzero:int"},
    {"", "Reshape", 21, "allowzero:int"},
    {"", "Reshape", 23, "allowzero:int"},
    {"", "Reshape", 24, "allowzero:int"},
    {"", "Reshape", 25, "allowzero:int"},
    {"", "Resize", 10, "mode:string"},
    {"", "Resize", 11,
     "coordinate_transformation_mode:string,cubic_coeff_a:float,exclude_outside:int,"
     "extrapolation_value:float,mode:string,nearest_mode:string"},
    {"", "Resize", 13,
     "coordinate_transformation_mode:string,cubic_coeff_a:float,exclude_outside:int,"
     "extrapolation_value:float,mode:string,nearest_mode:string"},
    {"", "Resize", 18,
     "antialias:int,axes:ints,coordinate_transformation_mode:string,cubic_coeff_a:float,"
     "exclude_outside:int,extrapolation_value:float,keep_aspect_ratio_policy:string,"
     "mode:string,nearest_mode:string"},
    {"", "Resize", 19,
     "antialias:int,axes:ints,coordinate_transformation_mode:string,cubic_coeff_a:float,"
     "exclude_outside:int,extrapolation_value:float,keep_aspect_ratio_policy:string,"
     "mode:string,nearest_mode:string"},
    {"", "ReverseSequence", 10, "batch_axis:int,time_axis:int"},
    {"", "RoiAlign", 10,
     "mode:string,output_height:int,output_width:int,sampling_ratio:int,spatial_scale:float"},
    {"", "RoiAlign", 16,
     "coordinate_transformation_mode:string,mode:string,output_height:int,output_width:int,"
     "sampling_ratio:int,spatial_scale:float"},
    {"", "RoiAlign", 22,
     "coordinate_transformation_mode:string,mode:string,output_height:int,output_width:int,"
     "sampling_ratio:int,spatial_scale:float"},
    {"", "RotaryEmbedding", 23, "interleaved:int,num_heads:int,rotary_embedding_dim:int"},
    {"", "Round", 11, ""},
    {"", "Round", 22, ""},
    {"", "STFT", 17, "onesided:int"},
    {"", "Scan", 8, "body:graph:required,directions:ints,num_scan_inputs:int:required"},
    {"", "Scan", 9,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scan", 11,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scan", 16,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scan", 19,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scan", 21,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scan", 23,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scan", 24,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scan", 25,
     "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
     "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints"},
    {"", "Scatter", 9, "axis:int"},
    {"", "Scatter", 11, ""},
    {"", "ScatterElements", 11, "axis:int"},
    {"", "ScatterElements", 13, "axis:int"},
    {"", "ScatterElements", 16, "axis:int,reduction:string"},
    {"", "ScatterElements", 18, "axis:int,reduction:string"},
    {"", "ScatterND", 11, ""},
    {"", "ScatterND", 13, ""},
    {"", "ScatterND", 16, "reduction:string"},
    {"", "ScatterND", 18, "reduction:string"},
    {"", "Selu", 1, "alpha:float,consumed_inputs:ints,gamma:float"},
    {"", "Selu", 6, "alpha:float,gamma:float"},
    {"", "Selu", 22, "alpha:float,gamma:float"},
    {"", "SequenceAt", 11, ""},
    {"", "SequenceConstruct", 11, ""},
    {"", "SequenceEmpty", 11, "dtype:int"},
    {"", "SequenceErase", 11, ""},
    {"", "SequenceInsert", 11, ""},
    {"", "SequenceLength", 11, ""},
    {"", "SequenceMap", 17, "body:graph:required"},
    {"", "Shape", 1, ""},
    {"", "Shape", 13, ""},
    {"", "Shape", 15, "end:int,start:int"},
    {"", "Shape", 19, "end:int,start:int"},
    {"", "Shape", 21, "end:int,start:int"},
    {"", "Shape", 23, "end:int,start:int"},
    {"", "Shape", 24, "end:int,start:int"},
    {"", "Shape", 25, "end:int,start:int"},
    {"", "Shrink", 9, "bias:float,lambd:float"},
    {"", "Sigmoid", 1, "consumed_inputs:ints"},
    {"", "Sigmoid", 6, ""},
    {"", "Sigmoid", 13, ""},
    {"", "Sign", 9, ""},
    {"", "Sign", 13, ""},
    {"", "Sin", 7, ""},
    {"", "Sin", 22, ""},
    {"", "Sinh", 9, ""},
    {"", "Sinh", 22, ""},
    {"", "Size", 1, ""},
    {"", "Size", 13, ""},
    {"", "Size", 19, ""},
    {"", "Size", 21, ""},
    {"", "Size", 23, ""},
    {"", "Size", 24, ""},
    {"", "Size", 25, ""},
    {"", "Slice", 1, "axes:ints,ends:ints:required,starts:ints:required"},
    {"", "Slice", 10, ""},
    {"", "Slice", 11, ""},
    {"", "Slice", 13, ""},
    {"", "Softmax", 1, "axis:int"},
    {"", "Softmax", 11, "axis:int"},
    {"", "Softmax", 13, "axis:int"},
    {"", "SoftmaxCrossEntropyLoss", 12, "ignore_index:int,reduction:string"},
    {"", "SoftmaxCrossEntropyLoss", 13, "ignore_index:int,reduction:string"},
    {"", "Softplus", 1, ""},
    {"", "Softplus", 22, ""},
    {"", "Softsign", 1, ""},
    {"", "Softsign", 22, ""},
    {"", "SpaceToDepth", 1, "blocksize:int:required"},
    {"", "SpaceToDepth", 13, "blocksize:int:required"},
    {"", "Split", 1, "axis:int,split:ints"},
    {"", "Split", 2, "axis:int,split:ints"},
    {"", "Split", 11, "axis:int,split:ints"},
    {"", "Split", 13, "axis:int"},
    {"", "Split", 18, "axis:int,num_outputs:int"},
    {"", "SplitToSequence", 11, "axis:int,keepdims:int"},
    {"", "SplitToSequence", 24, "axis:int,keepdims:int"},
    {"", "Sqrt", 1, "consumed_inputs:ints"},
    {"", "Sqrt", 6, ""},
    {"", "Sqrt", 13, ""},
    {"", "Squeeze", 1, "axes:ints"},
    {"", "Squeeze", 11, "axes:ints"},
    {"", "Squeeze", 13, ""},
    {"", "Squeeze", 21, ""},
    {"", "Squeeze", 23, ""},
    {"", "Squeeze", 24, ""},
    {"", "Squeeze", 25, ""},
    {"", "StringConcat", 20, ""},
    {"", "StringNormalizer", 10,
     "case_change_action:string,is_case_sensitive:int,locale:string,stopwords:strings"},
    {"", "StringSplit", 20, "delimiter:string,maxsplit:int"},
    {"", "Sub", 1, "axis:int,broadcast:int,consumed_inputs:ints"},
    {"", "Sub", 6, "axis:int,broadcast:int"},
    {"", "Sub", 7, ""},
    {"", "Sub", 13, ""},
    {"", "Sub", 14, ""},
    {"", "Sum", 1, "consumed_inputs:ints"},
    {"", "Sum", 6, ""},
    {"", "Sum", 8, ""},
    {"", "Sum", 13, ""},
    {"", "SwiGLU", 28, "alpha:float"},
    {"", "Swish", 24, "alpha:float"},
    {"", "Tan", 7, ""},
    {"", "Tan", 22, ""},
    {"", "Tanh", 1, "consumed_inputs:ints"},
    {"", "Tanh", 6, ""},
    {"", "Tanh", 13, ""},
    {"", "TensorScatter", 24, "axis:int,mode:string"},
    {"", "TfIdfVectorizer", 9,
     "max_gram_length:int:required,max_skip_count:int:required,min_gram_length:int:required,"
     "mode:string:required,ngram_counts:ints:required,ngram_indexes:ints:required,"
     "pool_int64s:ints,pool_strings:strings,weights:floats"},
    {"", "ThresholdedRelu", 10, "alpha:float"},
    {"", "ThresholdedRelu", 22, "alpha:float"},
    {"", "Tile", 1, ""},
    {"", "Tile", 6, ""},
    {"", "Tile", 13, ""},
    {"", "TopK", 1, "axis:int,k:int:required"},
    {"", "TopK", 10, "axis:int"},
    {"", "TopK", 11, "axis:int,largest:int,sorted:int"},
    {"", "TopK", 24, "axis:int,largest:int,sorted:int"},
    {"", "Transpose", 1, "perm:ints"},
    {"", "Transpose", 13, "perm:ints"},
    {"", "Transpose", 21, "perm:ints"},
    {"", "Transpose", 23, "perm:ints"},
    {"", "Transpose", 24, "perm:ints"},
    {"", "Transpose", 25, "perm:ints"},
    {"", "Trilu", 14, "upper:int"},
    {"", "Unique", 11, "axis:int,sorted:int"},
    {"", "Unsqueeze", 1, "axes:ints:required"},
    {"", "Unsqueeze", 11, "axes:ints:required"},
    {"", "Unsqueeze", 13, ""},
    {"", "Unsqueeze", 21, ""},
    {"", "Unsqueeze", 23, ""},
    {"", "Unsqueeze", 24, ""},
    {"", "Unsqueeze", 25, ""},
    {"", "Upsample", 1, "height_scale:float:required,mode:string,width_scale:float:required"},
    {"", "Upsample", 7, "mode:string,scales:floats:required"},
    {"", "Upsample", 9, "mode:string"},
    {"", "Upsample", 10, ""},
    {"", "Where", 9, ""},
    {"", "Where", 16, ""},
    {"", "Xor", 1, "axis:int,broadcast:int"},
    {"", "Xor", 7, ""},
    {"ai.onnx.ml", "ArrayFeatureExtractor", 1, ""},
    {"ai.onnx.ml", "Binarizer", 1, "threshold:float"},
    {"ai.onnx.ml", "CastMap", 1, "cast_to:string,map_form:string,max_map:int"},
    {"ai.onnx.ml", "CategoryMapper", 1,
     "cats_int64s:ints,cats_strings:strings,default_int64:int,default_string:string"},
    {"ai.onnx.ml", "DictVectorizer", 1, "int64_vocabulary:ints,string_vocabulary:strings"},
    {"ai.onnx.ml", "FeatureVectorizer", 1, "inputdimensions:ints"},
    {"ai.onnx.ml", "Imputer", 1,
     "imputed_value_floats:floats,imputed_value_int64s:ints,replaced_value_float:float,"
     "replaced_value_int64:int"},
    {"ai.onnx.ml", "LabelEncoder", 1,
     "classes_strings:strings,default_int64:int,default_string:string"},
    {"ai.onnx.ml", "LabelEncoder", 2,
     "default_float:float,default_int64:int,default_string:string,keys_floats:floats,"
     "keys_int64s:ints,keys_strings:strings,values_floats:floats,values_int64s:ints,"
     "values_strings:strings"},
    {"ai.onnx.ml", "LabelEncoder", 4,
     "default_float:float,default_int64:int,default_string:string,default_tensor:tensor,"
     "keys_floats:floats,keys_int64s:ints,keys_strings:strings,keys_tensor:tensor,"
     "values_floats:floats,values_int64s:ints,values_strings:strings,values_tensor:tensor"},
    {"ai.onnx.ml", "LinearClassifier", 1,
     "classlabels_ints:ints,classlabels_strings:strings,coefficients:floats:required,"
     "intercepts:floats,multi_class:int,post_transform:string"},
    {"ai.onnx.ml", "LinearRegressor", 1,
     "coefficients:floats,intercepts:floats,post_transform:string,targets:int"},
    {"ai.onnx.ml", "Normalizer", 1, "norm:string"},
    {"ai.onnx.ml", "OneHotEncoder", 1, "cats_int64s:ints,cats_strings:strings,zeros:int"},
    {"ai.onnx.ml", "SVMClassifier", 1,
     "classlabels_ints:ints,classlabels_strings:strings,coefficients:floats,"
     "kernel_params:floats,kernel_type:string,post_transform:string,prob_a:floats,"
     "prob_b:floats,rho:floats,support_vectors:floats,vectors_per_class:ints"},
    {"ai.onnx.ml", "SVMRegressor", 1,
     "coefficients:floats,kernel_params:floats,kernel_type:string,n_supports:int,"
     "one_class:int,post_transform:string,rho:floats,support_vectors:floats"},
    {"ai.onnx.ml", "Scaler", 1, "offset:floats,scale:floats"},
    {"ai.onnx.ml", "TreeEnsemble", 5,
     "aggregate_function:int,leaf_targetids:ints:required,leaf_weights:tensor:required,"
     "membership_values:tensor,n_targets:int,nodes_falseleafs:ints:required,"
     "nodes_falsenodeids:ints:required,nodes_featureids:ints:required,nodes_hitrates:tensor,"
     "nodes_missing_value_tracks_true:ints,nodes_modes:tensor:required,"
     "nodes_splits:tensor:required,nodes_trueleafs:ints:required,"
     "nodes_truenodeids:ints:required,post_transform:int,tree_roots:ints:required"},
    {"ai.onnx.ml", "TreeEnsembleClassifier", 1,
     "base_values:floats,class_ids:ints,class_nodeids:ints,class_treeids:ints,"
     "class_weights:floats,classlabels_int64s:ints,classlabels_strings:strings,"
     "nodes_falsenodeids:ints,nodes_featureids:ints,nodes_hitrates:floats,"
     "nodes_missing_value_tracks_true:ints,nodes_modes:strings,nodes_nodeids:ints,"
     "nodes_treeids:ints,nodes_truenodeids:ints,nodes_values:floats,post_transform:string"},
    {"ai.onnx.ml", "TreeEnsembleClassifier", 3,
     "base_values:floats,base_values_as_tensor:tensor,class_ids:ints,class_nodeids:ints,"
     "class_treeids:ints,class_weights:floats,class_weights_as_tensor:tensor,"
     "classlabels_int64s:ints,classlabels_strings:strings,nodes_falsenodeids:ints,"
     "nodes_featureids:ints,nodes_hitrates:floats,nodes_hitrates_as_tensor:tensor,"
     "nodes_missing_value_tracks_true:ints,nodes_modes:strings,nodes_nodeids:ints,"
     "nodes_treeids:ints,nodes_truenodeids:ints,nodes_values:floats,"
     "nodes_values_as_tensor:tensor,post_transform:string"},
    {"ai.onnx.ml", "TreeEnsembleClassifier", 5, ""},
    {"ai.onnx.ml", "TreeEnsembleRegressor", 1,
     "aggregate_function:string,base_values:floats,n_targets:int,nodes_falsenodeids:ints,"
     "nodes_featureids:ints,nodes_hitrates:floats,nodes_missing_value_tracks_true:ints,"
     "nodes_modes:strings,nodes_nodeids:ints,nodes_treeids:ints,nodes_truenodeids:ints,"
     "nodes_values:floats,post_transform:string,target_ids:ints,target_nodeids:ints,"
     "target_treeids:ints,target_weights:floats"},
    {"ai.onnx.ml", "TreeEnsembleRegressor", 3,
     "aggregate_function:string,base_values:floats,base_values_as_tensor:tensor,n_targets:int,"
     "nodes_falsenodeids:ints,nodes_featureids:ints,nodes_hitrates:floats,"
     "nodes_hitrates_as_tensor:tensor,nodes_missing_value_tracks_true:ints,"
     "nodes_modes:strings,nodes_nodeids:ints,nodes_treeids:ints,nodes_truenodeids:ints,"
     "nodes_values:floats,nodes_values_as_tensor:tensor,post_transform:string,target_ids:ints,"
     "target_nodeids:ints,target_treeids:ints,target_weights:floats,"
     "target_weights_as_tensor:tensor"},
    {"ai.onnx.ml", "TreeEnsembleRegressor", 5, ""},
    {"ai.onnx.ml", "ZipMap", 1, "classlabels_int64s:ints,classlabels_strings:strings"},
    {"ai.onnx.preview", "FlexAttention", 1,
     "prob_mod:graph,scale:float,score_mod:graph,softmax_precision:int"},
    {"ai.onnx.preview.training", "Adagrad", 1,
     "decay_factor:float,epsilon:float,norm_coefficient:float"},
    {"ai.onnx.preview.training", "Adam", 1,
     "alpha:float,beta:float,epsilon:float,norm_coefficient:float,norm_coefficient_post:float"},
    {"ai.onnx.preview.training", "Gradient", 1, "xs:strings:required,y:string:required,zs:strings"},
    {"ai.onnx.preview.training", "Momentum", 1,
     "alpha:float:required,beta:float:required,mode:string:required,"
     "norm_coefficient:float:required"},
};
const int ox_nschemas = (int)(sizeof ox_schemas / sizeof *ox_schemas);

/* -1, 0, 1 as (domain, op) of row r sorts before, at, after (domain, op). */
static int cmp_row(const ox_schema *r, const char *domain, const char *op) {
  int c = strcmp(r->domain, domain);
  return c ? c : strcmp(r->op, op);
}

const ox_schema *ox_schema_find(const char *domain, const char *op, int64_t opset) {
  if (!domain || !strcmp(domain, "ai.onnx")) domain = "";
  /* binary search for the first row of (domain, op): nodes are checked one by
   * one at load, so a model of 100k nodes must not scan the table each time */
  int lo = 0, hi = ox_nschemas;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (cmp_row(&ox_schemas[mid], domain, op) < 0) lo = mid + 1;
    else hi = mid;
  }
  const ox_schema *best = NULL;
  for (int i = lo; i < ox_nschemas && !cmp_row(&ox_schemas[i], domain, op); i++)
    if (ox_schemas[i].since <= opset) best = &ox_schemas[i];
  return best;
}

/* Find "name:" at the start of an entry of s->attrs; *type receives the type
 * word. 0 if not declared. */
static int declared(const ox_schema *s, const char *name, char *type, size_t ntype) {
  size_t len = strlen(name);
  for (const char *p = s->attrs; *p;) {
    size_t elen = strcspn(p, ",");
    if (elen > len && !strncmp(p, name, len) && p[len] == ':') {
      const char *t = p + len + 1;
      size_t tlen = strcspn(t, ":,");
      snprintf(type, ntype, "%.*s", (int)tlen, t);
      return 1;
    }
    p += elen + (p[elen] == ',');
  }
  return 0;
}

/* "a, b, c" from "a:int,b:ints:required,c:float" (cut short with "..."). */
static const char *names_of(const ox_schema *s, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (const char *p = s->attrs; *p;) {
    size_t elen = strcspn(p, ","), nlen = strcspn(p, ":,");
    if (k + nlen + 6 >= n) {
      snprintf(buf + k, n - k, "...");
      break;
    }
    k += (size_t)snprintf(buf + k, n - k, "%s%.*s", k ? ", " : "", (int)nlen, p);
    p += elen + (p[elen] == ',');
  }
  return buf[0] ? buf : "none";
}

int ox_schema_check(const ox_schema *s, const ox_node *n, ox_err *e) {
  char type[32], names[200];
  for (int j = 0; j < n->nattr; j++) {
    const ox_attr *at = &n->attr[j];
    if (!declared(s, at->name, type, sizeof type))
      return ox_fail(e, OX_EINPUT, "'%s' is not an attribute of %s-%d (its attributes: %s)",
                     at->name, s->op, s->since, names_of(s, names, sizeof names));
    if (!at->ref_attr_name && strcmp(ox_attr_type_name(at->type), type))
      return ox_fail(e, OX_EINPUT, "attribute '%s' is of type %s; expected %s", at->name,
                     ox_attr_type_name(at->type), type);
  }
  for (const char *p = s->attrs; *p;) {
    size_t elen = strcspn(p, ","), nlen = strcspn(p, ":,");
    if (elen > nlen + 9 && !strncmp(p + elen - 9, ":required", 9)) {
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)nlen, p);
      if (!ox_node_attr(n, name)) return ox_fail(e, OX_EINPUT, "the attribute '%s' is required", name);
    }
    p += elen + (p[elen] == ',');
  }
  return 0;
}
