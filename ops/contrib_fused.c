/* ops/contrib_fused.c: onnxruntime's com.microsoft fused operators, each the
 * ai.onnx kernel it fuses (ops/twins.h) followed by what the fusion added:
 *   FusedConv-1    Conv, + Z, then an MLAS activation
 *   FusedGemm-1    Gemm, then an activation of onnxruntime's functors
 *   FusedMatMul-1  MatMul on A and B transposed as asked, times alpha
 *   TransposeMatMul-1  FusedMatMul's older name (no transBatch attributes)
 * The definition is onnxruntime's CPU kernels (contrib_ops/cpu/fused_conv.cc,
 * fused_gemm.cc, fused_matmul.cc); its CPU provider registers them for float
 * only, onnxop takes the schemas' float types. */
#include <math.h>
#include <string.h>

#include "core/kernel.h"
#include "ops/twins.h"

/* ---- activations ----
 * FusedConv's `activation` and `activation_params` are MLAS's
 * (GetFusedActivationAttr: Relu, Tanh, Sigmoid, LeakyRelu alpha, Clip min
 * max, HardSigmoid alpha beta); FusedGemm's `activation` and
 * `activation_alpha`, `_beta`, `_gamma` are onnxruntime's elementwise
 * functors (ElementWiseRangedTransform::Create), each parameter required. */
enum { ACT_NONE, ACT_RELU, ACT_TANH, ACT_SIGMOID, ACT_LEAKY, ACT_CLIP, ACT_HARDSIGMOID, ACT_ELU, ACT_CELU,
       ACT_SELU, ACT_SOFTPLUS, ACT_SOFTSIGN, ACT_THRESHOLDED, ACT_PSOFTPLUS, ACT_SCALEDTANH };

typedef struct {
  int kind;
  float p[2];
} act;

static double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

static double act_apply(const act *a, double x) {
  double p0 = a->p[0], p1 = a->p[1];
  switch (a->kind) {
  case ACT_RELU: return x > 0 ? x : 0;
  case ACT_TANH: return tanh(x);
  case ACT_SIGMOID: return 1.0 / (1.0 + exp(-x));
  case ACT_LEAKY: return x >= 0 ? x : p0 * x;
  case ACT_CLIP: return x < p0 ? p0 : x > p1 ? p1 : x; /* MLAS: max(x, min), then min(., max) */
  case ACT_HARDSIGMOID: {
    double v = p0 * x + p1;
    return v < 0 ? 0 : v > 1 ? 1 : v;
  }
  case ACT_ELU: return x >= 0 ? x : p0 * (exp(x) - 1);
  case ACT_CELU: return (x > 0 ? x : 0) + fmin(0.0, p0 * (exp(x / p0) - 1));
  case ACT_SELU: return p1 * (x > 0 ? x : p0 * exp(x) - p0); /* alpha p0, gamma p1 */
  case ACT_SOFTPLUS: return softplus(x);
  case ACT_SOFTSIGN: return x / (1 + fabs(x));
  case ACT_THRESHOLDED: return x > p0 ? x : 0;
  case ACT_PSOFTPLUS: return p0 * softplus(x * p1);
  case ACT_SCALEDTANH: return p0 * tanh(x * p1);
  default: return x;
  }
}

/* y <- activation(y), in place (float16 and bfloat16 through float) */
static int act_tensor(ox_ctx *c, const act *a, ox_tensor *y) {
  if (a->kind == ACT_NONE || !y->n) return 0;
  if (y->dt == OX_DOUBLE) {
    double *Y = y->data;
    for (int64_t i = 0; i < y->n; i++) Y[i] = act_apply(a, Y[i]);
    return 0;
  }
  float *Y = y->dt == OX_FLOAT ? y->data : ox_widen_f32(c->a, y, c->err);
  if (!Y) return c->err->code ? c->err->code : ox_oom(c->err, NULL);
  for (int64_t i = 0; i < y->n; i++) Y[i] = (float)act_apply(a, Y[i]);
  if (Y != y->data) ox_narrow_f32(Y, y);
  return 0;
}

/* FusedConv's activation: MLAS's kinds, activation_params their count */
static int conv_act_of(ox_ctx *c, act *a) {
  static const struct {
    const char *name;
    int kind, nparams;
  } kinds[] = {{"Relu", ACT_RELU, 0},   {"Tanh", ACT_TANH, 0}, {"Sigmoid", ACT_SIGMOID, 0},
               {"LeakyRelu", ACT_LEAKY, 1}, {"Clip", ACT_CLIP, 2}, {"HardSigmoid", ACT_HARDSIGMOID, 2}};
  memset(a, 0, sizeof *a);
  const ox_attr *at = ox_attr_find(c, "activation");
  if (!at) return 0; /* identity */
  const char *s = ox_attr_string(c, "activation", "");
  if (c->err->code) return c->err->code;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    if (strcmp(s, kinds[k].name)) continue;
    a->kind = kinds[k].kind;
    if (!kinds[k].nparams) return 0;
    const ox_attr *pa = ox_attr_find(c, "activation_params");
    if (!pa || pa->type != OX_ATTR_FLOATS || pa->n != kinds[k].nparams)
      return ox_fail(c->err, OX_EINPUT, "activation %s needs %d activation_params; the node has %lld", s,
                     kinds[k].nparams, pa && pa->type == OX_ATTR_FLOATS ? (long long)pa->n : 0LL);
    for (int i = 0; i < kinds[k].nparams; i++) a->p[i] = pa->floats[i];
    return 0;
  }
  return ox_fail(c->err, OX_EINPUT, "activation '%s' is not one FusedConv takes (Relu, Tanh, Sigmoid, LeakyRelu, "
                 "Clip, HardSigmoid)", s);
}

/* FusedGemm's activation: the functors' kinds, each parameter an attribute
 * activation_NAME that must be given */
static int gemm_act_of(ox_ctx *c, act *a) {
  static const struct {
    const char *name;
    int kind;
    const char *p0, *p1;
  } kinds[] = {{"Relu", ACT_RELU, 0, 0},
               {"Tanh", ACT_TANH, 0, 0},
               {"Sigmoid", ACT_SIGMOID, 0, 0},
               {"Softplus", ACT_SOFTPLUS, 0, 0},
               {"Softsign", ACT_SOFTSIGN, 0, 0},
               {"LeakyRelu", ACT_LEAKY, "activation_alpha", 0},
               {"Elu", ACT_ELU, "activation_alpha", 0},
               {"Celu", ACT_CELU, "activation_alpha", 0},
               {"ThresholdedRelu", ACT_THRESHOLDED, "activation_alpha", 0},
               {"HardSigmoid", ACT_HARDSIGMOID, "activation_alpha", "activation_beta"},
               {"Selu", ACT_SELU, "activation_alpha", "activation_gamma"},
               {"ParametricSoftplus", ACT_PSOFTPLUS, "activation_alpha", "activation_beta"},
               {"ScaledTanh", ACT_SCALEDTANH, "activation_alpha", "activation_beta"}};
  memset(a, 0, sizeof *a);
  const char *s = ox_attr_string(c, "activation", "");
  if (c->err->code) return c->err->code;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    if (strcmp(s, kinds[k].name)) continue;
    a->kind = kinds[k].kind;
    const char *pn[2] = {kinds[k].p0, kinds[k].p1};
    for (int i = 0; i < 2 && pn[i]; i++) {
      const ox_attr *pa = ox_attr_find(c, pn[i]);
      if (!pa || pa->type != OX_ATTR_FLOAT)
        return ox_fail(c->err, OX_EINPUT, "activation %s needs the float attribute %s", s, pn[i]);
      a->p[i] = pa->f;
    }
    return 0;
  }
  return ox_fail(c->err, OX_EINPUT, "activation '%s' is not one FusedGemm takes (Relu, Tanh, Sigmoid, Softplus, "
                 "Softsign, LeakyRelu, Elu, Celu, ThresholdedRelu, HardSigmoid, Selu, ParametricSoftplus, "
                 "ScaledTanh)", s);
}

/* ---- FusedConv-1 ----
 * Y = activation(Conv(X, W, B) + Z), Z (optional) of Y's shape exactly, as
 * onnxruntime's Conv<float> adds its fused "sum" input. */
static int fused_conv(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  act a;
  OX_TRY(conv_act_of(c, &a));
  const ox_tensor *z = NULL;
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &z));
  ox_ctx c11 = *c;
  c11.version = 11;
  OX_TRY(ox_conv_k(&c11, nin < 3 ? nin : 3, in, nout, out));
  ox_tensor *y = &(*out)->u.t;
  if (z) {
    OX_TRY(ox_same_dtype(c, 3, z, y->dt));
    int same = z->rank == y->rank;
    for (int d = 0; same && d < y->rank; d++) same = z->dims[d] == y->dims[d];
    if (!same) {
      char b1[128], b2[128];
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must be the output's, %s", ox_input_name(c, 3),
                     ox_shape_str(z->rank, z->dims, b1, sizeof b1), ox_shape_str(y->rank, y->dims, b2, sizeof b2));
    }
    for (int64_t i = 0; i < y->n; i++)
      ox_store_f64(y->dt, y->data, i, ox_load_f64(y->dt, y->data, i) + ox_load_f64(z->dt, z->data, i));
  }
  return act_tensor(c, &a, y);
}

/* ---- FusedGemm-1 ----
 * Y = activation(alpha op(A) op(B) + beta C): Gemm-13's kernel, then the
 * activation (onnxruntime requires one: an empty or unknown name is
 * refused). */
static int fused_gemm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  act a;
  OX_TRY(gemm_act_of(c, &a));
  ox_ctx c13 = *c;
  c13.version = 13;
  OX_TRY(ox_gemm_k(&c13, nin, in, nout, out));
  return act_tensor(c, &a, &(*out)->u.t);
}

/* ---- FusedMatMul-1, TransposeMatMul-1 ----
 * Y = alpha * MatMul(A', B') with, for an input X of rank r:
 *   transBatchX: X' = transpose(X, (1, ..., r-2, 0, r-1))   (r >= 3, both
 *                inputs of one rank, as onnxruntime's MatMulComputeHelper)
 *   transX:      the last two dims of that swapped (ignored for a 1-D X)
 * so both: X' = transpose(X, (1, ..., r-2, r-1, 0)). */
static int transposed(ox_ctx *c, ox_value *v, int tr, int tb, ox_value **res) {
  const ox_tensor *x = &v->u.t;
  int r = x->rank;
  if ((!tr && !tb) || r < 2) {
    *res = v;
    return 0;
  }
  int perm[OX_MAX_RANK];
  for (int d = 0; d < r; d++) perm[d] = d;
  if (tb) {
    for (int d = 0; d < r - 2; d++) perm[d] = d + 1;
    perm[r - 2] = 0;
  }
  if (tr) {
    int t = perm[r - 2];
    perm[r - 2] = perm[r - 1];
    perm[r - 1] = t;
  }
  int64_t od[OX_MAX_RANK], st[OX_MAX_RANK], sst[OX_MAX_RANK];
  /* sst: x's strides in elements; st: x's stride of output dim d */
  sst[r - 1] = 1;
  for (int d = r - 2; d >= 0; d--) sst[d] = sst[d + 1] * x->dims[d + 1];
  for (int d = 0; d < r; d++) od[d] = x->dims[perm[d]], st[d] = sst[perm[d]];
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, r, od, res, c->err));
  size_t es = ox_dtype_size(x->dt);
  const char *src = x->data;
  char *dst = (*res)->u.t.data;
  int64_t idx[OX_MAX_RANK] = {0};
  for (int64_t i = 0; i < x->n; i++) {
    int64_t off = 0;
    for (int d = 0; d < r; d++) off += idx[d] * st[d];
    memcpy(dst + i * es, src + off * es, es);
    for (int d = r - 1; d >= 0 && ++idx[d] == od[d]; d--) idx[d] = 0;
  }
  return 0;
}

static int fused_matmul(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *a, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &a));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(ox_same_dtype(c, 1, b, a->dt));
  int ta = ox_attr_int(c, "transA", 0) != 0, tb = ox_attr_int(c, "transB", 0) != 0;
  int tba = ox_attr_int(c, "transBatchA", 0) != 0, tbb = ox_attr_int(c, "transBatchB", 0) != 0;
  float alpha = ox_attr_float(c, "alpha", 1.0f);
  if (c->err->code) return c->err->code;
  if ((tba || tbb) && (a->rank < 3 || a->rank != b->rank)) {
    char b1[128], b2[128];
    return ox_fail(c->err, OX_EINPUT, "transBatchA and transBatchB need A and B of one rank, 3 or more; A is %s, B "
                   "is %s", ox_shape_str(a->rank, a->dims, b1, sizeof b1),
                   ox_shape_str(b->rank, b->dims, b2, sizeof b2));
  }
  ox_value *ab[2];
  OX_TRY(transposed(c, in[0], ta, tba, &ab[0]));
  OX_TRY(transposed(c, in[1], tb, tbb, &ab[1]));
  const ox_tensor *a2 = &ab[0]->u.t, *b2 = &ab[1]->u.t;
  if (a2->rank >= 1 && b2->rank >= 1) { /* the inner dims, named as the node's attributes make them */
    int64_t ka = a2->dims[a2->rank - 1], kb = b2->dims[b2->rank == 1 ? 0 : b2->rank - 2];
    if (ka != kb) {
      char b1[128], b2s[128], b3[128], b4[128];
      return ox_fail(c->err, OX_EINPUT, "A %s taken as %s (transA %d, transBatchA %d) and B %s taken as %s "
                     "(transB %d, transBatchB %d) do not multiply: %lld against %lld",
                     ox_shape_str(a->rank, a->dims, b1, sizeof b1), ox_shape_str(a2->rank, a2->dims, b2s, sizeof b2s),
                     ta, tba, ox_shape_str(b->rank, b->dims, b3, sizeof b3),
                     ox_shape_str(b2->rank, b2->dims, b4, sizeof b4), tb, tbb, (long long)ka, (long long)kb);
    }
  }
  ox_ctx c13 = *c;
  c13.version = 13;
  OX_TRY(ox_matmul_k(&c13, 2, ab, nout, out));
  ox_tensor *y = &(*out)->u.t;
  if (alpha != 1.0f)
    for (int64_t i = 0; i < y->n; i++)
      ox_store_f64(y->dt, y->data, i, (float)alpha * ox_load_f64(y->dt, y->data, i));
  return 0;
}

/* The NHWC forms onnxruntime's CPU provider registers, which onnxop does not
 * run (`onnxop ops` gives the reason). */
#define NHWC_INTERNAL                                                                                           \
  "onnxruntime's NHWC layout pass writes it into its in-memory graph at session start; exported models do "   \
  "not hold it (the NCHW form is the saved one, and onnxop runs that)"

/* The rows' load hooks: the state of the ai.onnx kernel each calls, read at
 * that kernel's version (Conv-11, Gemm-13, MatMul-13) */
static int fused_conv_load(ox_ctx *c, void **state) {
  ox_ctx c11 = *c;
  c11.version = 11;
  return ox_conv_load(&c11, state);
}
static int fused_gemm_load(ox_ctx *c, void **state) {
  ox_ctx c13 = *c;
  c13.version = 13;
  return ox_gemm_load(&c13, state);
}
static int fused_matmul_load(ox_ctx *c, void **state) {
  ox_ctx c13 = *c;
  c13.version = 13;
  return ox_matmul_load(&c13, state);
}

const ox_kernel ox_contrib_fused_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "com.microsoft", "FusedConv",       1, 0, OX_TS_FLOAT3, 2, 4, fused_conv,
    "activation:string,activation_params:floats,auto_pad:string=NOTSET,dilations:ints,group:int=1,"
    "kernel_shape:ints,pads:ints,strides:ints", fused_conv_load },
  { "com.microsoft", "FusedGemm",       1, 0, OX_TS_FLOAT3, 2, 3, fused_gemm,
    "activation:string,activation_alpha:float,activation_beta:float,activation_gamma:float,alpha:float=1.0,"
    "beta:float=1.0,transA:int=0,transB:int=0", fused_gemm_load },
  { "com.microsoft", "FusedMatMul",     1, 0, OX_TS_FLOAT4, 2, 2, fused_matmul,
    "alpha:float=1.0,transA:int=0,transB:int=0,transBatchA:int=0,transBatchB:int=0", fused_matmul_load },
  { "com.microsoft", "TransposeMatMul", 1, 0, OX_TS_FLOAT4, 2, 2, fused_matmul,
    "alpha:float=1.0,transA:int=0,transB:int=0", fused_matmul_load },
  { "com.microsoft", "NhwcFusedConv",   1, OX_NOT_RUN(NHWC_INTERNAL) },
  { "com.microsoft", "NhwcMaxPool",     1, OX_NOT_RUN(NHWC_INTERNAL) },
  {0},
};
