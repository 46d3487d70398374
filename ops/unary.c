/* ops/unary.c: the elementwise unary ops and activations (Abs ... Atanh, IsNaN,
 * IsInf, Not, BitwiseNot, Relu ... Swish, Clip), every version.
 *
 * One driver, unary(), holds the only switch over the dtype. Each dtype case
 * (from the X-macro lists of core/kernel.h) expands, through the op lists
 * below, one tight loop per op whose body is the op's per-element macro:
 *
 *   <Op>_F(E, v)  float and double in their own precision (tgmath picks
 *                 expf or exp from E); the small floats (float16, bfloat16,
 *                 float8) widen to float, run the float body and round once
 *                 on store
 *   <Op>_S(E, v)  signed integers, in their own width
 *   <Op>_U(E, v)  unsigned integers
 *   <Op>_B(E, v)  float in, bool out (IsNaN, IsInf)
 *
 * `q` is the op's parameters (attributes, Clip's bounds), read once before
 * the loop into a local the compiler keeps in registers. */
#include <float.h>
#include <stdint.h>
#include <string.h>
#include <tgmath.h>

#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"
#include "core/vexp.h"

/* gcc's -O2 vectorises only loops whose trip count needs no scalar epilogue
 * (its "very cheap" cost model), which is none of the loops below; the cheap
 * model vectorises the loops of the simple ops (Abs, Neg, Relu, Clip, ...). */
/* One rounding per operation, as the reference: no multiply-add fused in
 * the builds with FMA (gcc's ISO C mode fuses none; clang would) */
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap")
/* and the ops with a multiply on one side of a choice (LeakyRelu) vectorise
 * only when it may run on both: floating-point exceptions are never looked
 * at here, so evaluating it on both sides changes no result */
#pragma GCC optimize("no-trapping-math")
#endif

/* ---- the ops ---- */

/* X(Op): ops with a float body (GeluTanh is Gelu with approximate="tanh") */
#define F_OPS(X) F_KOPS(X) X(GeluTanh)
#define F_KOPS(X)                                                                     \
  X(Abs) X(Neg) X(Reciprocal) X(Sqrt) X(Exp) X(Log) X(Ceil) X(Floor) X(Round)         \
  X(Sign) X(Erf) X(Sin) X(Cos) X(Tan) X(Asin) X(Acos) X(Atan) X(Sinh) X(Cosh) X(Tanh) \
  X(Asinh) X(Acosh) X(Atanh) X(Relu) X(LeakyRelu) X(Elu) X(Selu) X(Celu) X(Gelu)      \
  X(Sigmoid) X(HardSigmoid) X(HardSwish) X(Softplus) X(Softsign) X(Mish)  \
  X(ThresholdedRelu) X(Shrink) X(Swish) X(Clip)
/* ops with a float input and a bool output */
#define B_OPS(X) X(IsNaN) X(IsInf)
/* ops with signed / unsigned integer bodies */
#define S_OPS(X) X(Abs) X(Neg) X(Sign) X(Erf) X(Relu) X(Shrink) X(Clip) X(BitwiseNot)
#define U_OPS(X) X(Abs) X(Sign) X(Erf) X(Shrink) X(Clip) X(BitwiseNot)

enum {
#define X(Op) OP_##Op,
  F_OPS(X) B_OPS(X)
#undef X
  OP_BitwiseNot, OP_Not,
};

typedef struct {
  float alpha, beta, gamma;  /* activations' attributes; Shrink: alpha lambd, beta bias */
  int neg, pos;              /* IsInf: detect_negative, detect_positive */
  double lo, hi;             /* Clip on floats */
  int64_t ilo, ihi;          /* Clip on integers (the bits of the value, for uint64) */
  int64_t sb_int;            /* Shrink on integers: floor(bias) ... */
  int sb_frac;               /* ... and whether bias has a fraction */
} prm;

/* -- float bodies: E is float or double, v one element -- */
#define CLAMP01(E, t) ((t) < 0 ? (E)0 : (t) > 1 ? (E)1 : (t)) /* keeps NaN */
/* 1/(1+e^-t), without overflow for large |t| */
#define SIGMOID(E, t) ((t) >= 0 ? (E)1 / ((E)1 + exp(-(t))) : exp(t) / ((E)1 + exp(t)))
/* ln(1+e^t), without overflow for large t */
#define SOFTPLUS(E, t) ((t) > 0 ? (t) + log1p(exp(-(t))) : log1p(exp(t)))

#define Abs_F(E, v) fabs(v)
#define Neg_F(E, v) (-(v))
#define Reciprocal_F(E, v) ((E)1 / (v))
#define Sqrt_F(E, v) sqrt(v)
#define Exp_F(E, v) exp(v)
#define Log_F(E, v) log(v)
#define Ceil_F(E, v) ceil(v)
#define Floor_F(E, v) floor(v)
#define Round_F(E, v) rint(v) /* Round-11: halves to even (the default rounding mode) */
#define Sign_F(E, v) ((v) > 0 ? (E)1 : (v) < 0 ? (E)-1 : (v)) /* 0, -0 and NaN stay */
#define Erf_F(E, v) erf(v)
#define Sin_F(E, v) sin(v)
#define Cos_F(E, v) cos(v)
#define Tan_F(E, v) tan(v)
#define Asin_F(E, v) asin(v)
#define Acos_F(E, v) acos(v)
#define Atan_F(E, v) atan(v)
#define Sinh_F(E, v) sinh(v)
#define Cosh_F(E, v) cosh(v)
#define Tanh_F(E, v) tanh(v)
#define Asinh_F(E, v) asinh(v)
#define Acosh_F(E, v) acosh(v)
#define Atanh_F(E, v) atanh(v)
#define Relu_F(E, v) ((v) < 0 ? (E)0 : (v)) /* NaN stays, as np.maximum */
#define LeakyRelu_F(E, v) ((v) < 0 ? (E)q.alpha * (v) : (v))
#define Elu_F(E, v) ((v) < 0 ? (E)q.alpha * expm1(v) : (v))
#define Selu_F(E, v) ((v) > 0 ? (E)q.gamma * (v) : (E)q.gamma * (E)q.alpha * expm1(v))
/* Celu-12: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
#define Celu_F(E, v) ((v) > 0 ? (v) : (E)q.alpha * expm1((v) / (E)q.alpha))
/* Gelu-20: 0.5 x (1 + erf(x / sqrt 2)); "tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
#define Gelu_F(E, v) ((E)0.5 * (v) * ((E)1 + erf((v) * (E)0.70710678118654752440)))
#define GeluTanh_F(E, v)                                                              \
  ((E)0.5 * (v) *                                                                     \
   ((E)1 + tanh((E)0.79788456080286535588 * ((v) + (E)0.044715 * (v) * (v) * (v)))))
#define Sigmoid_F(E, v) SIGMOID(E, v)
#define HardSigmoid_F(E, v) CLAMP01(E, (E)q.alpha * (v) + (E)q.beta)
/* HardSwish-14: x * HardSigmoid(x) with alpha = 1/6, beta = 0.5 */
#define HardSwish_F(E, v) ((v) * CLAMP01(E, (v) * (E)(1.0f / 6) + (E)0.5))
#define Softplus_F(E, v) SOFTPLUS(E, v)
#define Softsign_F(E, v) ((v) / ((E)1 + fabs(v)))
#define Mish_F(E, v) ((v) * tanh(SOFTPLUS(E, v)))
#define ThresholdedRelu_F(E, v) ((v) > (E)q.alpha ? (v) : (E)0)
/* Shrink-9: x < -lambd: x + bias; x > lambd: x - bias; else 0 */
#define Shrink_F(E, v)                                                                \
  ((v) < -(E)q.alpha ? (v) + (E)q.beta : (v) > (E)q.alpha ? (v) - (E)q.beta : (E)0)
#define Swish_F(E, v) ((v) * SIGMOID(E, (E)q.alpha * (v)))
/* Clip = min(max(x, lo), hi): all hi when lo > hi (Clip-13's text); NaN stays */
#define CLIP(E, v, lo, hi) (((v) < (lo) ? (lo) : (v)) > (hi) ? (hi) : ((v) < (lo) ? (lo) : (v)))
#define Clip_F(E, v) CLIP(E, v, (E)q.lo, (E)q.hi)

#define IsNaN_B(E, v) ((uint8_t)isnan(v))
#define IsInf_B(E, v) ((uint8_t)(isinf(v) && ((v) > 0 ? q.pos : q.neg)))

/* -- integer bodies -- */
/* -x wrapping (Neg(-128) is -128 in int8), without signed overflow */
#define NEG_S(E, v) ((E)(UINT64_C(0) - (uint64_t)(v)))
#define Abs_S(E, v) ((v) < 0 ? NEG_S(E, v) : (v))
#define Abs_U(E, v) (v)
#define Neg_S(E, v) NEG_S(E, v)
#define Sign_S(E, v) ((E)(((v) > 0) - ((v) < 0)))
#define Sign_U(E, v) ((E)((v) > 0))
/* Erf-9 on integers: erf(x) truncated, so -1, 0 or 1; the double is exact enough */
#define Erf_S(E, v) ((E)erf((double)(v)))
#define Erf_U(E, v) ((E)erf((double)(v)))
#define Relu_S(E, v) ((v) < 0 ? (E)0 : (v)) /* Relu-14 */
#define Shrink_S(E, v) ((E)shrink_int((double)(v), (int64_t)(v), q))
#define Shrink_U(E, v) Shrink_S(E, v)
#define Clip_S(E, v) CLIP(E, v, (E)q.ilo, (E)q.ihi)
#define Clip_U(E, v) Clip_S(E, v)
#define BitwiseNot_S(E, v) ((E)~(v))
#define BitwiseNot_U(E, v) ((E)~(v))

/* Shrink on an integer x (as numpy: the float result truncated toward zero).
 * The comparisons are in double (x's rounding matters only beyond 2^53); the
 * result is exact: x + bias = (x + floor(bias)) + frac, truncated. */
static inline int64_t shrink_int(double d, int64_t x, prm q) {
  uint64_t s;
  if (d < -(double)q.alpha) s = (uint64_t)x + (uint64_t)q.sb_int;      /* x + bias */
  else if (d > (double)q.alpha) s = (uint64_t)x - (uint64_t)q.sb_int - (uint64_t)q.sb_frac;
  else return 0;                                                          /* x - bias */
  /* s is floor(result); truncation toward zero adds 1 to a negative s when
   * the result had a fraction */
  int64_t r = (int64_t)s;
  return q.sb_frac && r < 0 ? r + 1 : r;
}

/* ---- parameters ---- */

static int need_tensor(ox_ctx *c, const ox_value *v, int i) {
  if (v->kind == OX_TENSOR) return 0;
  char desc[128];
  return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a tensor", ox_input_name(c, i),
                 ox_value_desc(v, desc, sizeof desc));
}

/* The largest finite value of a float dtype Clip takes. */
static double float_max(ox_dtype dt) {
  switch (dt) {
  case OX_DOUBLE: return DBL_MAX;
  case OX_FLOAT16: return 65504.0;
  case OX_BFLOAT16: return ox_bf16_to_f32(0x7F7F);
  default: return FLT_MAX;
  }
}

/* Clip's bounds. Absent ones are the type's lowest and largest values, which
 * is what Clip's text says ("numeric_limits::lowest() and max()"): -Inf and
 * Inf become the largest finite values, as in onnxruntime. */
static int clip_bounds(ox_ctx *c, int nin, ox_value **in, prm *q) {
  ox_dtype dt = in[0]->u.t.dt;
  int isint = !ox_dtype_is_float(dt);
  if (isint) {
    int bits = (int)ox_dtype_size(dt) * 8;
    if (ox_dtype_is_signed_int(dt)) {
      q->ihi = (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
      q->ilo = -q->ihi - 1;
    } else {
      q->ilo = 0;
      q->ihi = (int64_t)(bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
    }
  } else {
    q->hi = float_max(dt);
    q->lo = -q->hi;
  }
  if (c->version < 11) { /* Clip-1, -6: float attributes (consumed_inputs is ignored) */
    const ox_attr *mn = ox_attr_find(c, "min"), *mx = ox_attr_find(c, "max");
    if (mn) q->lo = ox_attr_float(c, "min", 0);
    if (mx) q->hi = ox_attr_float(c, "max", 0);
    return c->err->code;
  }
  /* Clip-11 on: optional inputs min and max, scalars of the input's type */
  for (int i = 1; i < nin && i < 3; i++) {
    const ox_value *v = in[i];
    if (!v) continue;
    OX_TRY(need_tensor(c, v, i));
    const ox_tensor *t = &v->u.t;
    if (t->dt != dt)
      return ox_fail(c->err, OX_EINPUT, "%s (%s) is %s; it must have the input's type %s",
                     ox_input_name(c, i), i == 1 ? "min" : "max", ox_dtype_name(t->dt),
                     ox_dtype_name(dt));
    if (t->n != 1 || t->rank > 1) {
      char sb[128];
      return ox_fail(c->err, OX_EINPUT, "%s (%s) must be a scalar; it has shape %s",
                     ox_input_name(c, i), i == 1 ? "min" : "max",
                     ox_shape_str(t->rank, t->dims, sb, sizeof sb));
    }
    if (isint) {
      /* the exact value (its bits, for uint64): int64 never goes through double */
      int64_t b = ox_dtype_is_signed_int(dt) ? ox_load_i64(dt, t->data, 0)
                                             : (int64_t)ox_load_u64(dt, t->data, 0);
      *(i == 1 ? &q->ilo : &q->ihi) = b;
    } else {
      *(i == 1 ? &q->lo : &q->hi) = ox_load_f64(dt, t->data, 0);
    }
  }
  return 0;
}

/* Read op's attributes into q; may switch *op (Gelu's approximation). */
static int params(ox_ctx *c, int *op, int nin, ox_value **in, prm *q) {
  switch (*op) {
  case OP_LeakyRelu: q->alpha = ox_attr_float(c, "alpha", 0.01f); break;
  case OP_Elu:
  case OP_Celu:
  case OP_ThresholdedRelu:
  case OP_Swish: q->alpha = ox_attr_float(c, "alpha", 1.0f); break;
  case OP_Selu:
    /* Selu-6 made the defaults the float32 values of the exact constants */
    q->alpha = ox_attr_float(c, "alpha", c->version < 6 ? 1.6732f : 1.67326319217681884765625f);
    q->gamma = ox_attr_float(c, "gamma", c->version < 6 ? 1.0507f : 1.05070102214813232421875f);
    break;
  case OP_HardSigmoid:
    q->alpha = ox_attr_float(c, "alpha", 0.2f);
    q->beta = ox_attr_float(c, "beta", 0.5f);
    break;
  case OP_Shrink: {
    q->alpha = ox_attr_float(c, "lambd", 0.5f);
    q->beta = ox_attr_float(c, "bias", 0.0f);
    double fl = floor((double)q->beta);
    if (ox_dtype_is_float(in[0]->u.t.dt)) break;
    if (!(fabs(fl) < 9.2e18))
      return ox_fail(c->err, OX_EINPUT, "bias %g is out of range for %s", (double)q->beta,
                     ox_dtype_name(in[0]->u.t.dt));
    q->sb_int = (int64_t)fl;
    q->sb_frac = fl != (double)q->beta;
    break;
  }
  case OP_IsInf:
    q->neg = ox_attr_int(c, "detect_negative", 1) != 0;
    q->pos = ox_attr_int(c, "detect_positive", 1) != 0;
    break;
  case OP_Gelu: {
    const char *a = ox_attr_string(c, "approximate", "none");
    if (!strcmp(a, "tanh")) *op = OP_GeluTanh;
    else if (strcmp(a, "none"))
      return ox_fail(c->err, OX_EINPUT, "attribute 'approximate' is \"%s\"; it must be "
                     "\"none\" or \"tanh\"", a);
    break;
  }
  case OP_Clip: return clip_bounds(c, nin, in, q);
  }
  return c->err->code;
}

/* ---- the driver ---- */

/* One loop per op for the element type E (a typedef in each dtype case). */
#define LOOP(Op, BODY) \
  case OP_##Op: for (int64_t i = 0; i < n; i++) ys[i] = BODY(E, xs[i]); break;
#define F_CASE(Op) LOOP(Op, Op##_F)
#define S_CASE(Op) LOOP(Op, Op##_S)
#define U_CASE(Op) LOOP(Op, Op##_U)
#define B_CASE(Op) \
  case OP_##Op: for (int64_t i = 0; i < n; i++) bs[i] = Op##_B(E, xs[i]); break;

/* x: any shape; y: the same shape, of x's type (bool for IsNaN, IsInf);
 * elements [lo, lo + n) */
#define FLOAT_TYPE(NAME, T)                                                           \
  case OX_##NAME: {                                                                   \
    typedef T E;                                                                      \
    const E *xs = (const E *)x->data + lo;                                            \
    E *ys = (E *)y->data + lo;                                                        \
    uint8_t *bs = (uint8_t *)y->data + lo;                                            \
    switch (op) { F_OPS(F_CASE) B_OPS(B_CASE) default: return -1; }                  \
  } break;
#define SINT_TYPE(NAME, T)                                                            \
  case OX_##NAME: {                                                                   \
    typedef T E;                                                                      \
    const E *xs = (const E *)x->data + lo;                                            \
    E *ys = (E *)y->data + lo;                                                        \
    switch (op) { S_OPS(S_CASE) default: return -1; }                                 \
  } break;
#define UINT_TYPE(NAME, T)                                                            \
  case OX_##NAME: {                                                                   \
    typedef T E;                                                                      \
    const E *xs = (const E *)x->data + lo;                                            \
    E *ys = (E *)y->data + lo;                                                        \
    switch (op) { U_OPS(U_CASE) default: return -1; }                                 \
  } break;

/* The small floats go through float a block at a time (widened into, and
 * narrowed from, a buffer on the stack). */
#define BLOCK 1024

/* ---- the activations between convolutions, float32, per vector width ----
 * Relu, LeakyRelu, Clip, HardSigmoid, HardSwish, Abs and Neg on float32 as one
 * function built per vector width (OX_BY_WIDTHS, core/kernel.h): the same
 * per-element expressions (no multiply-adds fused), so the same bits. */
#define FAST_OPS(X) X(Relu) X(LeakyRelu) X(Clip) X(HardSigmoid) X(HardSwish) X(Abs) X(Neg)
#define FAST_CASE(Op) \
  case OP_##Op: for (int64_t i = 0; i < n; i++) ys[i] = Op##_F(E, xs[i]); return 1;
#define FAST_FN(SUF, TARGET)                                                          \
  TARGET static int fast_##SUF(int op, const prm q, const float *xs, float *ys, int64_t n) { \
    typedef float E;                                                                  \
    switch (op) {                                                                     \
      FAST_OPS(FAST_CASE)                                                             \
    default: return 0;                                                                \
    }                                                                                 \
  }
OX_BY_WIDTHS(FAST_FN)

/* Sigmoid on float, 4 at a time: e = e^-|t| (core/vexp.h, within 1.4 ulp),
 * then 1 / (1 + e) for t >= 0 and e / (1 + e) below; within 3 ulp of the
 * exact value (the reference, numpy's 1 / (1 + exp(-x)) in float32, is
 * within 2 or 3 too). t below -87.3 gives 0 (a subnormal below 2^-126 in
 * the reference, and 0 from -88.7 on, where its exp overflows). NaN stays
 * NaN. libm's exp per element took 42 ms of IS-Net's 7M sigmoids. */
static inline ox_v4f sigmoid4(ox_v4f t) {
  const ox_v4f one = {1, 1, 1, 1};
  const ox_v4i sign = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
  ox_v4i neg = t < (ox_v4f){0, 0, 0, 0};
  ox_v4f e = ox_exp4_le0((ox_v4f)((ox_v4i)t | sign)); /* e^-|t| */
  ox_v4f d = one + e, pos = one / d, below = e / d;
  return (ox_v4f)(((ox_v4i)below & neg) | ((ox_v4i)pos & ~neg));
}
static void sigmoid_f32(const float *xs, float *ys, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) { /* memcpy of a constant 16: one unaligned load or store */
    ox_v4f t;
    memcpy(&t, xs + i, sizeof t);
    t = sigmoid4(t);
    memcpy(ys + i, &t, sizeof t);
  }
  if (i < n) {
    float b[4] = {0, 0, 0, 0};
    memcpy(b, xs + i, (size_t)(n - i) * sizeof *b);
    ox_v4f t;
    memcpy(&t, b, sizeof t);
    t = sigmoid4(t);
    memcpy(b, &t, sizeof t);
    memcpy(ys + i, b, (size_t)(n - i) * sizeof *b);
  }
}

/* y = op(x) for elements [lo, hi): -1 when op does not take x's dtype. y may
 * be x itself (each element is read before it is written). */
static int compute(int op, const prm q, const ox_tensor *x, ox_tensor *y, int64_t lo, int64_t hi) {
  int64_t n = hi - lo;
  if (x->dt == OX_FLOAT && OX_AT_WIDTH(fast, op, q, (const float *)x->data + lo, (float *)y->data + lo, n)) return 0;
  if (x->dt == OX_FLOAT && op == OP_Sigmoid) {
    sigmoid_f32((const float *)x->data + lo, (float *)y->data + lo, n);
    return 0;
  }
  switch (x->dt) {
    OX_NATIVE_FLOATS(FLOAT_TYPE)
    OX_NATIVE_SINTS(SINT_TYPE)
    OX_NATIVE_UINTS(UINT_TYPE)
  case OX_BOOL: {
    const uint8_t *xs = (const uint8_t *)x->data + lo;
    uint8_t *ys = (uint8_t *)y->data + lo;
    if (op != OP_Not) return -1;
    for (int64_t i = 0; i < n; i++) ys[i] = !xs[i];
  } break;
  default: {
    if (!ox_dtype_is_small_float(x->dt) || op == OP_BitwiseNot || op == OP_Not) return -1;
    /* float16, bfloat16, float8: in float, rounded once on store */
    int pred = op == OP_IsNaN || op == OP_IsInf;
    float buf[BLOCK];
    for (int64_t b0 = lo; b0 < hi; b0 += BLOCK) {
      int64_t n = hi - b0 < BLOCK ? hi - b0 : BLOCK;
      ox_widen_f32_n(x->dt, x->data, b0, n, buf);
      typedef float E;
      const E *xs = buf;
      E *ys = buf;
      uint8_t *bs = (uint8_t *)y->data + b0;
      if (op == OP_Sigmoid) sigmoid_f32(xs, ys, n);
      else if (!OX_AT_WIDTH(fast, op, q, xs, ys, n))
        switch (op) { F_OPS(F_CASE) B_OPS(B_CASE) default: return -1; }
      if (!pred) ox_narrow_f32_n(buf, n, y->dt, y->data, b0);
    }
  } break;
  }
  return 0;
}

typedef struct { int op; prm q; const ox_tensor *x; ox_tensor *y; } unary_job;

static void unary_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const unary_job *j = arg;
  compute(j->op, j->q, j->x, j->y, lo, hi);
}

/* The ops whose elements cost a call of the math library (the rest are a
 * compare or two). */
static int costly(int op) {
  switch (op) {
  case OP_Abs: case OP_Neg: case OP_Relu: case OP_LeakyRelu: case OP_HardSigmoid:
  case OP_HardSwish: case OP_ThresholdedRelu: case OP_Shrink: case OP_Clip: case OP_Sign:
  case OP_IsNaN: case OP_IsInf: case OP_BitwiseNot: case OP_Not: case OP_Reciprocal:
  case OP_Softsign: case OP_Ceil: case OP_Floor: case OP_Round: case OP_Sqrt:
    return 0;
  default:
    return 1;
  }
}

static int unary(ox_ctx *c, int op, int nin, ox_value **in, ox_value **out) {
  OX_TRY(need_tensor(c, in[0], 0));
  const ox_tensor *x = &in[0]->u.t;
  prm p = {0};
  OX_TRY(params(c, &op, nin, in, &p));
  int pred = op == OP_IsNaN || op == OP_IsInf;
  if (pred) OX_TRY(ox_tensor_new_uninit(c->a, OX_BOOL, x->rank, x->dims, &out[0], c->err));
  else OX_TRY(ox_elementwise_new(c, 1, &x, x->dt, x->rank, x->dims, &out[0]));
  ox_tensor *y = &out[0]->u.t;
  if (compute(op, p, x, y, 0, 0)) /* nothing computed: does op take x's dtype? */
    return ox_fail(c->err, OX_EUNSUPPORTED, "%s is %s, which this op does not take",
                   ox_input_name(c, 0), ox_dtype_name(x->dt));
  int64_t n = x->n;
  /* a costly element is a call of the math library or its vector form: 2
   * to 20 ns */
  int nch = costly(op) ? ox_par_chunks(n, 256.0 * (double)n)
                       : ox_par_chunks_mem(n, (double)(ox_dtype_size(x->dt) + ox_dtype_size(y->dt)) * (double)n);
  unary_job j = {op, p, x, y};
  if (nch <= 1) compute(op, p, x, y, 0, n);
  else ox_par_for(n, nch, unary_chunk, &j);
  return 0;
}

/* One kernel per op, each a call of the driver. */
#define KERNEL(Op)                                                                    \
  static int Op##_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {    \
    return unary(c, OP_##Op, nin, in, out);                                           \
  }
F_KOPS(KERNEL)
B_OPS(KERNEL)
KERNEL(BitwiseNot)
KERNEL(Not)

/* ---- the table ---- */

#define F3 OX_TS_FLOAT3                       /* float16, float, double */
#define F4 OX_TS_FLOAT4                       /* and bfloat16 */
#define F8 (OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) | OX_T(FLOAT8E5M2FNUZ))
/* One input of a type in `types`; the -1 rows' consumed_inputs is ignored. */

const ox_kernel ox_unary_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Abs",              1, 0, F3,                         1, 1, Abs_k, "consumed_inputs:ints" },
  { "", "Abs",              6, 0, OX_TS_NUM,                  1, 1, Abs_k, "" },
  { "", "Abs",             13, 0, OX_TS_NUM13,                1, 1, Abs_k, "" },
  { "", "Neg",              1, 0, F3,                         1, 1, Neg_k, "consumed_inputs:ints" },
  { "", "Neg",              6, 0, F3 | OX_TS_SINTS,           1, 1, Neg_k, "" },
  { "", "Neg",             13, 0, F4 | OX_TS_SINTS,           1, 1, Neg_k, "" },
  { "", "Reciprocal",       1, 0, F3,                         1, 1, Reciprocal_k,
    "consumed_inputs:ints" },
  { "", "Reciprocal",       6, 0, F3,                         1, 1, Reciprocal_k, "" },
  { "", "Reciprocal",      13, 0, F4,                         1, 1, Reciprocal_k, "" },
  { "", "Sqrt",             1, 0, F3,                         1, 1, Sqrt_k,
    "consumed_inputs:ints" },
  { "", "Sqrt",             6, 0, F3,                         1, 1, Sqrt_k, "" },
  { "", "Sqrt",            13, 0, F4,                         1, 1, Sqrt_k, "" },
  { "", "Exp",              1, 0, F3,                         1, 1, Exp_k, "consumed_inputs:ints" },
  { "", "Exp",              6, 0, F3,                         1, 1, Exp_k, "" },
  { "", "Exp",             13, 0, F4,                         1, 1, Exp_k, "" },
  { "", "Log",              1, 0, F3,                         1, 1, Log_k, "consumed_inputs:ints" },
  { "", "Log",              6, 0, F3,                         1, 1, Log_k, "" },
  { "", "Log",             13, 0, F4,                         1, 1, Log_k, "" },
  { "", "Ceil",             1, 0, F3,                         1, 1, Ceil_k,
    "consumed_inputs:ints" },
  { "", "Ceil",             6, 0, F3,                         1, 1, Ceil_k, "" },
  { "", "Ceil",            13, 0, F4,                         1, 1, Ceil_k, "" },
  { "", "Floor",            1, 0, F3,                         1, 1, Floor_k,
    "consumed_inputs:ints" },
  { "", "Floor",            6, 0, F3,                         1, 1, Floor_k, "" },
  { "", "Floor",           13, 0, F4,                         1, 1, Floor_k, "" },
  { "", "Tanh",             1, 0, F3,                         1, 1, Tanh_k,
    "consumed_inputs:ints" },
  { "", "Tanh",             6, 0, F3,                         1, 1, Tanh_k, "" },
  { "", "Tanh",            13, 0, F4,                         1, 1, Tanh_k, "" },
  { "", "Sigmoid",          1, 0, F3,                         1, 1, Sigmoid_k,
    "consumed_inputs:ints" },
  { "", "Sigmoid",          6, 0, F3,                         1, 1, Sigmoid_k, "" },
  { "", "Sigmoid",         13, 0, F4,                         1, 1, Sigmoid_k, "" },
  { "", "Round",           11, 0, F3,                         1, 1, Round_k, "" },
  { "", "Round",           22, 0, F4,                         1, 1, Round_k, "" },
  { "", "Sign",             9, 0, OX_TS_NUM,                  1, 1, Sign_k, "" },
  { "", "Sign",            13, 0, OX_TS_NUM13,                1, 1, Sign_k, "" },
  { "", "Erf",              9, 0, OX_TS_NUM,                  1, 1, Erf_k, "" },
  { "", "Erf",             13, 0, F4,                         1, 1, Erf_k, "" },
  { "", "Sin",              7, 0, F3,                         1, 1, Sin_k, "" },
  { "", "Sin",             22, 0, F4,                         1, 1, Sin_k, "" },
  { "", "Cos",              7, 0, F3,                         1, 1, Cos_k, "" },
  { "", "Cos",             22, 0, F4,                         1, 1, Cos_k, "" },
  { "", "Tan",              7, 0, F3,                         1, 1, Tan_k, "" },
  { "", "Tan",             22, 0, F4,                         1, 1, Tan_k, "" },
  { "", "Asin",             7, 0, F3,                         1, 1, Asin_k, "" },
  { "", "Asin",            22, 0, F4,                         1, 1, Asin_k, "" },
  { "", "Acos",             7, 0, F3,                         1, 1, Acos_k, "" },
  { "", "Acos",            22, 0, F4,                         1, 1, Acos_k, "" },
  { "", "Atan",             7, 0, F3,                         1, 1, Atan_k, "" },
  { "", "Atan",            22, 0, F4,                         1, 1, Atan_k, "" },
  { "", "Sinh",             9, 0, F3,                         1, 1, Sinh_k, "" },
  { "", "Sinh",            22, 0, F4,                         1, 1, Sinh_k, "" },
  { "", "Cosh",             9, 0, F3,                         1, 1, Cosh_k, "" },
  { "", "Cosh",            22, 0, F4,                         1, 1, Cosh_k, "" },
  { "", "Asinh",            9, 0, F3,                         1, 1, Asinh_k, "" },
  { "", "Asinh",           22, 0, F4,                         1, 1, Asinh_k, "" },
  { "", "Acosh",            9, 0, F3,                         1, 1, Acosh_k, "" },
  { "", "Acosh",           22, 0, F4,                         1, 1, Acosh_k, "" },
  { "", "Atanh",            9, 0, F3,                         1, 1, Atanh_k, "" },
  { "", "Atanh",           22, 0, F4,                         1, 1, Atanh_k, "" },
  { "", "IsNaN",            9, 0, F3,                         1, 1, IsNaN_k, "" },
  { "", "IsNaN",           13, 0, F4,                         1, 1, IsNaN_k, "" },
  { "", "IsNaN",           20, 0, F4 | F8,                    1, 1, IsNaN_k, "" },
  { "", "IsInf",           10, 0, OX_T(FLOAT) | OX_T(DOUBLE), 1, 1, IsInf_k,
    "detect_negative:int=1,detect_positive:int=1" },
  { "", "IsInf",           20, 0, F4 | F8,                    1, 1, IsInf_k, OX_ATTRS_OF(10) },
  { "", "Not",              1, 0, OX_T(BOOL),                 1, 1, Not_k, "" },
  { "", "BitwiseNot",      18, 0, OX_TS_INTS,                 1, 1, BitwiseNot_k, "" },
  { "", "Relu",             1, 0, F3,                         1, 1, Relu_k,
    "consumed_inputs:ints" },
  { "", "Relu",             6, 0, F3,                         1, 1, Relu_k, "" },
  { "", "Relu",            13, 0, F4,                         1, 1, Relu_k, "" },
  { "", "Relu",            14, 0, F4 | OX_TS_SINTS,           1, 1, Relu_k, "" },
  { "", "LeakyRelu",        1, 0, F3,                         1, 1, LeakyRelu_k,
    "alpha:float=0.01,consumed_inputs:ints" },
  { "", "LeakyRelu",        6, 0, F3,                         1, 1, LeakyRelu_k,
    "alpha:float=0.01" },
  { "", "LeakyRelu",       16, 0, F4,                         1, 1, LeakyRelu_k, OX_ATTRS_OF(6) },
  { "", "Elu",              1, 0, F3,                         1, 1, Elu_k,
    "alpha:float=1.0,consumed_inputs:ints" },
  { "", "Elu",              6, 0, F3,                         1, 1, Elu_k, "alpha:float=1.0" },
  { "", "Elu",             22, 0, F4,                         1, 1, Elu_k, OX_ATTRS_OF(6) },
  { "", "Selu",             1, 0, F3,                         1, 1, Selu_k,
    "alpha:float=1.6732,consumed_inputs:ints,gamma:float=1.0507" },
  { "", "Selu",             6, 0, F3,                         1, 1, Selu_k,
    "alpha:float=1.67326,gamma:float=1.0507" },
  { "", "Selu",            22, 0, F4,                         1, 1, Selu_k, OX_ATTRS_OF(6) },
  { "", "HardSigmoid",      1, 0, F3,                         1, 1, HardSigmoid_k,
    "alpha:float=0.2,beta:float=0.5,consumed_inputs:ints" },
  { "", "HardSigmoid",      6, 0, F3,                         1, 1, HardSigmoid_k,
    "alpha:float=0.2,beta:float=0.5" },
  { "", "HardSigmoid",     22, 0, F4,                         1, 1, HardSigmoid_k, OX_ATTRS_OF(6) },
  { "", "Celu",            12, 0, OX_T(FLOAT),                1, 1, Celu_k, "alpha:float=1.0" },
  { "", "Celu",            28, 0, F4,                         1, 1, Celu_k, OX_ATTRS_OF(12) },
  { "", "Gelu",            20, 0, F4,                         1, 1, Gelu_k,
    "approximate:string=none" },
  { "", "HardSwish",       14, 0, F3,                         1, 1, HardSwish_k, "" },
  { "", "HardSwish",       22, 0, F4,                         1, 1, HardSwish_k, "" },
  { "", "Softplus",         1, 0, F3,                         1, 1, Softplus_k, "" },
  { "", "Softplus",        22, 0, F4,                         1, 1, Softplus_k, "" },
  { "", "Softsign",         1, 0, F3,                         1, 1, Softsign_k, "" },
  { "", "Softsign",        22, 0, F4,                         1, 1, Softsign_k, "" },
  { "", "Mish",            18, 0, F3,                         1, 1, Mish_k, "" },
  { "", "Mish",            22, 0, F4,                         1, 1, Mish_k, "" },
  { "", "ThresholdedRelu", 10, 0, F3,                         1, 1, ThresholdedRelu_k,
    "alpha:float=1.0" },
  { "", "ThresholdedRelu", 22, 0, F4,                         1, 1, ThresholdedRelu_k,
    OX_ATTRS_OF(10) },
  { "", "Shrink",           9, 0, OX_TS_NUM,                  1, 1, Shrink_k,
    "bias:float=0.0,lambd:float=0.5" },
  { "", "Swish",           24, 0, F4,                         1, 1, Swish_k, "alpha:float=1.0" },
  /* Clip-1, -6: min and max attributes; 11 on: optional min and max inputs */
  { "", "Clip",             1, 0, F3,                         1, 1, Clip_k,
    "consumed_inputs:ints,max:float,min:float" },
  { "", "Clip",             6, 0, F3,                         1, 1, Clip_k,
    "max:float=3.402823e+38,min:float=-3.402823e+38" },
  { "", "Clip",            11, 0, F3,                         1, 3, Clip_k, "" },
  { "", "Clip",            12, 0, OX_TS_NUM,                  1, 3, Clip_k, "" },
  { "", "Clip",            13, 0, OX_TS_NUM13,                1, 3, Clip_k, "" },
  {0},
};
