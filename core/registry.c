/* core/registry.c: the families of kernels, listed once, and lookup. */
#include <stdio.h>
#include <string.h>

#include "registry.h"

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

/* Every op family, in the order `onnxop ops` prints them. */
const ox_family ox_families[] = {
    {"shape", ox_shape_kernels},
    {"sequence", ox_sequence_kernels},
    {"optional", ox_optional_kernels},
    {"index", ox_index_kernels},
    {"binary", ox_binary_kernels},
    {"control", ox_control_kernels},
    {"unary", ox_unary_kernels},
    {"cast", ox_cast_kernels},
    {"tensor", ox_tensor_kernels},
    {"reduce", ox_reduce_kernels},
    {"matmul", ox_matmul_kernels},
    {"conv", ox_conv_kernels},
    {"pool", ox_pool_kernels},
    {"norm", ox_norm_kernels},
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
    {NULL, NULL},
};

const ox_kernel *ox_registry_find(const char *domain, const char *op, int64_t opset) {
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++)
      if (!strcmp(k->op, op) && ox_domain_eq(k->domain, domain) && k->since <= opset &&
          opset <= k->until)
        return k;
  return NULL;
}

int ox_registry_has_op(const char *domain, const char *op) {
  int lo, hi;
  return ox_registry_span(domain, op, &lo, &hi);
}

int ox_registry_span(const char *domain, const char *op, int *lo, int *hi) {
  int found = 0;
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++)
      if (!strcmp(k->op, op) && ox_domain_eq(k->domain, domain)) {
        if (!found || k->since < *lo) *lo = k->since;
        if (!found || k->until > *hi) *hi = k->until;
        found = 1;
      }
  return found;
}

const char *ox_registry_why(const char *domain, const char *op, int64_t opset, char *buf, size_t n) {
  int lo, hi;
  if (!ox_registry_span(domain, op, &lo, &hi))
    snprintf(buf, n, "onnxop does not implement this operator");
  else if (opset < lo)
    snprintf(buf, n, "the operator first appears at opset %d", lo);
  else if (opset > hi) /* a row ends before the latest opset only where ONNX removed the op */
    snprintf(buf, n, "ONNX deprecated the operator at opset %d; onnxop runs it for opsets %d to %d", hi + 1,
             lo, hi);
  else
    snprintf(buf, n, "no implementation for this version");
  return buf;
}

/* ---- attributes ---- */

const ox_attr *ox_attr_find(ox_ctx *c, const char *name) { return ox_node_attr(c->node, name); }

const char *ox_attr_type_name(ox_attr_type t) {
  static const char *names[] = {"undefined", "float", "int", "string", "tensor", "graph",
                                "floats", "ints", "strings", "tensors", "graphs",
                                "sparse_tensor", "sparse_tensors", "type_proto", "type_protos"};
  return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

static const ox_attr *typed(ox_ctx *c, const char *name, ox_attr_type want) {
  const ox_attr *at = ox_attr_find(c, name);
  if (!at) return NULL;
  if (at->type != want) {
    ox_fail(c->err, OX_EINPUT, "attribute '%s' is of type %s; expected %s", name,
            ox_attr_type_name(at->type), ox_attr_type_name(want));
    return NULL;
  }
  return at;
}

int64_t ox_attr_int(ox_ctx *c, const char *name, int64_t def) {
  const ox_attr *at = typed(c, name, OX_ATTR_INT);
  return at ? at->i : def;
}

float ox_attr_float(ox_ctx *c, const char *name, float def) {
  const ox_attr *at = typed(c, name, OX_ATTR_FLOAT);
  return at ? at->f : def;
}

const char *ox_attr_string(ox_ctx *c, const char *name, const char *def) {
  const ox_attr *at = typed(c, name, OX_ATTR_STRING);
  return at ? at->s.p : def;
}

const int64_t *ox_attr_ints(ox_ctx *c, const char *name, int64_t *n) {
  const ox_attr *at = typed(c, name, OX_ATTR_INTS);
  *n = at ? at->n : -1;
  return at ? at->ints : NULL;
}

const char *ox_input_name(ox_ctx *c, int i) {
  /* four buffers in turn, so one message may name up to four inputs */
  static _Thread_local char buf[4][300];
  static _Thread_local unsigned turn;
  char *b = buf[turn++ & 3];
  const char *nm = c->node && i < c->node->nin ? c->node->in[i] : "";
  snprintf(b, sizeof buf[0], "input %d '%s'", i, nm);
  return b;
}
