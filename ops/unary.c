/* ops/unary.c: the elementwise unary ops and activations (Abs ... Atanh, IsNaN,
 * IsInf, Not, BitwiseNot, Relu ... Swish, Clip), every version.
 *
 * One driver, unary(), holds the only switch over the dtype. Each dtype case
 * (from the X-macro lists of core/kernel.h) expands, through the op lists
 * below, one tight loop per op whose body is the op's per-element macro:
 *
 *   <Op>_F(W, v)  float and double, computed in W (tgmath picks expf, exp
 *                 or expl from W): the element's own type or a wider one
 *                 (see OWN_OPS and WIDE_OPS); the small floats (float16,
 *                 bfloat16, float8) widen to float, run the float body and
 *                 round once on store
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

#include "core/fuse.h"
#include "core/half.h"
#include "core/kernel.h"
#include "twins.h"
#include "core/threads.h"
#include "core/vmath.h"

/* One rounding per operation and gcc's cheap vectoriser cost model: the
 * Makefile's ROW_FLAGS for this file. */
#if defined(__GNUC__) && !defined(__clang__)
/* The ops with a multiply on one side of a choice (LeakyRelu) vectorise
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

/* -- float bodies: W is the type they compute in, v one element of it --
 *
 * Every float op is within 1 ULP of its exact value (tests/unit/test_ulp.c
 * sweeps them), most within 0.5 + 2^-20, nearly always correctly rounded:
 *   OWN_OPS   in the element's own type: exact (Abs, Ceil, Relu, Clip...),
 *             one IEEE operation (Reciprocal, Sqrt, LeakyRelu, Shrink), or
 *             the math library's functions that are within 1 ULP in float
 *             and double (glibc's exp, log, sin, cos: 0.502 to 0.82 ULP);
 *             HardSigmoid through fma (alpha x + beta rounded once)
 *   WIDE_OPS  computed in a wider type and rounded once: float in double,
 *             double in long double (x87's 64-bit significand), so that the
 *             few ULPs of the wider computation are a small part of one ULP
 *             of the result
 *   TRIG_OPS  wide for float (glibc's tanf, asinf... promise no bound),
 *             their own for double (within 0.56 ULP in glibc)
 * Sigmoid, Tanh, Swish, Gelu's tanh form, Mish, HardSigmoid and HardSwish
 * on float run 8 lanes of double at a time (core/vmath.h); their bodies
 * below serve double.
 * The composites use forms that do not cancel: Gelu's 0.5 x (1 + erf(x/√2))
 * is 0.5 x erfc(-x/√2), its tanh form's 0.5 x (1 + tanh u) is x sigmoid(2u),
 * Mish's x tanh(softplus x) is x m / (m + 2) with m = e^x (e^x + 2). Where a
 * definition gives inf * 0 (Gelu, Mish, Swish, HardSwish at -inf; Softsign
 * at +-inf: inf / inf), the result is NaN, as the reference's. */
#define CLAMP01(W, t) ((t) < 0 ? (W)0 : (t) > 1 ? (W)1 : (t)) /* keeps NaN */
/* 1/(1+e^-t), without overflow for large |t| */
#define SIGMOID(W, t)                                                                 \
  ({ W t_ = (t), e_ = exp(-fabs(t_)); t_ >= 0 ? 1 / (1 + e_) : e_ / (1 + e_); })
/* ln(1+e^t), without overflow for large t */
#define SOFTPLUS(W, t) ((t) > 0 ? (t) + log1p(exp(-(t))) : log1p(exp(t)))

#define OWN_OPS(X)                                                                    \
  X(Abs) X(Neg) X(Reciprocal) X(Sqrt) X(Exp) X(Log) X(Ceil) X(Floor) X(Round) X(Sign)  \
  X(Sin) X(Cos) X(Relu) X(LeakyRelu) X(ThresholdedRelu) X(Shrink) X(Clip) X(HardSigmoid)
#define TRIG_OPS(X) X(Tan) X(Asin) X(Acos) X(Atan)
#define WIDE_OPS(X) WIDE_COMMON(X) X(Gelu) X(GeluTanh) X(Swish)
#define WIDE_COMMON(X)                                                                \
  X(Erf) X(Sinh) X(Cosh) X(Tanh) X(Asinh) X(Acosh) X(Atanh) X(Elu) X(Selu) X(Celu)   \
  X(Sigmoid) X(HardSwish) X(Softplus) X(Softsign) X(Mish)

#define Abs_F(W, v) fabs(v)
#define Neg_F(W, v) (-(v))
#define Reciprocal_F(W, v) ((W)1 / (v))
#define Sqrt_F(W, v) sqrt(v)
#define Exp_F(W, v) exp(v)
#define Log_F(W, v) log(v)
#define Ceil_F(W, v) ceil(v)
#define Floor_F(W, v) floor(v)
#define Round_F(W, v) rint(v) /* Round-11: halves to even (the default rounding mode) */
#define Sign_F(W, v) ((v) > 0 ? (W)1 : (v) < 0 ? (W)-1 : (v)) /* 0, -0 and NaN stay */
#define Erf_F(W, v) erf(v)
#define Sin_F(W, v) sin(v)
#define Cos_F(W, v) cos(v)
#define Tan_F(W, v) tan(v)
#define Asin_F(W, v) asin(v)
#define Acos_F(W, v) acos(v)
#define Atan_F(W, v) atan(v)
#define Sinh_F(W, v) sinh(v)
#define Cosh_F(W, v) cosh(v)
#define Tanh_F(W, v) tanh(v)
#define Asinh_F(W, v) asinh(v)
#define Acosh_F(W, v) acosh(v)
#define Atanh_F(W, v) atanh(v)
#define Relu_F(W, v) ((v) < 0 ? (W)0 : (v)) /* NaN stays, as np.maximum */
#define LeakyRelu_F(W, v) ((v) < 0 ? (W)q.alpha * (v) : (v))
#define Elu_F(W, v) ((v) < 0 ? (W)q.alpha * expm1(v) : (v))
#define Selu_F(W, v) ((v) > 0 ? (W)q.gamma * (v) : (W)q.gamma * (W)q.alpha * expm1(v))
/* Celu-12: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
#define Celu_F(W, v) ((v) > 0 ? (v) : (W)q.alpha * expm1((v) / (W)q.alpha))
/* Gelu-20: 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2) */
#define Gelu_F(W, v) ((W)0.5 * (v) * erfc(-(v) * (W)0.707106781186547524400844362104849039L))
/* "tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) = x sigmoid(2 sqrt(2/pi) (...)) */
#define GeluTanh_F(W, v)                                                              \
  ((v) * SIGMOID(W, (W)1.59576912160573071175978423973752L *                          \
                        ((v) + (W)0.044715L * (v) * (v) * (v))))
#define Sigmoid_F(W, v) SIGMOID(W, v)
/* alpha x + beta rounded once (float: core/vmath.h, in double, where alpha x is exact) */
#define HardSigmoid_F(W, v) CLAMP01(W, fma((W)q.alpha, (v), (W)q.beta))
/* HardSwish-14: x * HardSigmoid(x) with alpha = 1/6, beta = 0.5: x (x + 3) / 6 */
#define HardSwish_F(W, v) ((v) * CLAMP01(W, ((v) + 3) / 6))
#define Softplus_F(W, v) SOFTPLUS(W, v)
#define Softsign_F(W, v) ((v) / (1 + fabs(v)))
/* x tanh(ln(1 + e^x)) = x m / (m + 2), m = e^x (e^x + 2); past x = 40 the
 * quotient is 1 to 2^-114 */
#define Mish_F(W, v)                                                                  \
  ({ W v_ = (v), e_ = exp(v_ < 40 ? v_ : 40), m_ = e_ * (e_ + 2); v_ * (m_ / (m_ + 2)); })
#define ThresholdedRelu_F(W, v) ((v) > (W)q.alpha ? (v) : (W)0)
/* Shrink-9: x < -lambd: x + bias; x > lambd: x - bias; else 0 */
#define Shrink_F(W, v)                                                                \
  ((v) < -(W)q.alpha ? (v) + (W)q.beta : (v) > (W)q.alpha ? (v) - (W)q.beta : (W)0)
#define Swish_F(W, v) ((v) * SIGMOID(W, (W)q.alpha * (v)))
/* Clip = min(max(x, lo), hi): all hi when lo > hi (Clip-13's text); NaN stays */
#define CLIP(W, v, lo, hi) (((v) < (lo) ? (lo) : (v)) > (hi) ? (hi) : ((v) < (lo) ? (lo) : (v)))
#define Clip_F(W, v) CLIP(W, v, (W)q.lo, (W)q.hi)

/* Gelu, its tanh form and Swish on double, in long double with the argument
 * of erfc (z = -x/sqrt 2) and of the sigmoid (t = 2u, t = alpha x) carried
 * in two parts: near the end of double's range (z up to 27, t down to -745)
 * erfc(z) and sigmoid(t) multiply their argument's relative error by 2z^2
 * and |t|, which would make the 2^-64 of one long double most of a ULP of
 * the result. fmal gives a product's exact remainder; the constants are
 * given to 2^-128. */
static long double gelu_l(long double x) {
  const long double ch = 0xb.504f333f9de6484p-4L, cl = 0xb.2fb1366ea957d3ep-69L; /* 1/sqrt 2 */
  long double zh = -x * ch, zl = isfinite(x) ? fmal(-x, ch, -zh) - x * cl : 0;
  /* erfc(zh + zl) = erfc(zh) - 2/sqrt(pi) e^-zh^2 zl, to zl^2 */
  return 0.5L * x * (erfcl(zh) - 0x9.06eba8214db688dp-3L * expl(-zh * zh) * zl);
}
static long double gelu_tanh_l(long double x) {
  const long double ch = 0xc.c42299ea1b28468p-3L, cl = 0xf.cb3c500bab8e2ffp-68L; /* 2 sqrt(2/pi) */
  const long double dh = 0x9.22279526c5a57a5p-7L, dl = -0x8.43a29d1c7079669p-73L; /* ... 0.044715 */
  if (!isfinite(x)) return GeluTanh_F(long double, x);
  long double x2 = x * x, x2l = fmal(x, x, -x2);            /* x^2 = x2 + x2l */
  long double x3 = x2 * x, x3l = fmal(x2, x, -x3) + x2l * x; /* x^3 = x3 + x3l */
  long double a = ch * x, al = fmal(ch, x, -a) + cl * x;     /* C x = a + al */
  long double b = dh * x3, bl = fmal(dh, x3, -b) + dh * x3l + dl * x3; /* D x^3 = b + bl */
  long double t = a + b, bb = t - a, tl = (a - (t - bb)) + (b - bb) + al + bl;
  /* sigmoid(t + tl) = sigmoid(t) (1 + (1 - sigmoid(t)) tl), to tl^2 */
  long double sg = SIGMOID(long double, t);
  return x * (sg + sg * (1 - sg) * tl);
}

static long double swish_l(long double x, long double alpha) {
  long double t = alpha * x, tl = isfinite(t) ? fmal(alpha, x, -t) : 0; /* alpha x = t + tl */
  long double sg = SIGMOID(long double, t);
  return x * (sg + sg * (1 - sg) * tl);
}

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

/* What the load hook keeps for a node: its op (Gelu's approximation chosen)
 * and attributes. */
typedef struct {
  int op, has_min, has_max; /* Clip-1, -6: min and max given */
  prm q;
} unary_state;


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
    const unary_state *st = c->state;
    if (st->has_min) q->lo = st->q.lo;
    if (st->has_max) q->hi = st->q.hi;
    return 0;
  }
  /* Clip-11 on: optional inputs min and max, scalars of the input's type */
  for (int i = 1; i < nin && i < 3; i++) {
    const ox_value *v = in[i];
    if (!v) continue;
    OX_TRY(ox_need_tensor(c, v, i));
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

/* Read op's attributes into q; may switch *op (Gelu's approximation). Once,
 * when the model is loaded (unary_load). */
static int attr_params(ox_ctx *c, int *op, prm *q) {
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
  case OP_Shrink:
    q->alpha = ox_attr_float(c, "lambd", 0.5f);
    q->beta = ox_attr_float(c, "bias", 0.0f);
    break;
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
  case OP_Clip:
    q->lo = ox_attr_float(c, "min", 0);
    q->hi = ox_attr_float(c, "max", 0);
    break;
  }
  return c->err->code;
}

static int unary_load(ox_ctx *c, int op, void **state) {
  unary_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->op = op;
  st->has_min = ox_attr_find(c, "min") != NULL, st->has_max = ox_attr_find(c, "max") != NULL;
  return attr_params(c, &st->op, &st->q);
}

/* The parameters of this call: the attributes read at load, then what
 * depends on the input. */
static int params(ox_ctx *c, int *op, int nin, ox_value **in, prm *q) {
  const unary_state *st = c->state;
  if (!st) return 0; /* an op without attributes */
  *q = st->q;
  *op = st->op;
  switch (*op) {
  case OP_Shrink: {
    double fl = floor((double)q->beta);
    if (ox_dtype_is_float(in[0]->u.t.dt)) break;
    if (!(fabs(fl) < 9.2e18))
      return ox_fail(c->err, OX_EINPUT, "bias %g is out of range for %s", (double)q->beta,
                     ox_dtype_name(in[0]->u.t.dt));
    q->sb_int = (int64_t)fl;
    q->sb_frac = fl != (double)q->beta;
    break;
  }
  case OP_Clip: return clip_bounds(c, nin, in, q);
  }
  return 0;
}

/* ---- the driver ---- */

/* One loop per op for the element type E (a typedef in each dtype case):
 * OWN_CASE computes in E, WIDE_CASE in W and rounds once. */
#define LOOP(Op, BODY) \
  case OP_##Op: for (int64_t i = 0; i < n; i++) ys[i] = BODY(E, xs[i]); break;
#define OWN_CASE(Op) LOOP(Op, Op##_F)
#define WIDE_CASE(Op) \
  case OP_##Op: for (int64_t i = 0; i < n; i++) ys[i] = (E)Op##_F(W, (W)xs[i]); break;
#define S_CASE(Op) LOOP(Op, Op##_S)
#define U_CASE(Op) LOOP(Op, Op##_U)
#define B_CASE(Op) \
  case OP_##Op: for (int64_t i = 0; i < n; i++) bs[i] = Op##_B(E, xs[i]); break;
/* the ops on float (E float, W double) and on double (W long double) */
#define FLOAT_SWITCH \
  switch (op) { OWN_OPS(OWN_CASE) TRIG_OPS(WIDE_CASE) WIDE_OPS(WIDE_CASE) B_OPS(B_CASE) default: return -1; }
#define DOUBLE_SWITCH                                                                 \
  switch (op) {                                                                       \
    OWN_OPS(OWN_CASE) TRIG_OPS(OWN_CASE) WIDE_COMMON(WIDE_CASE) B_OPS(B_CASE)         \
    case OP_Gelu: for (int64_t i = 0; i < n; i++) ys[i] = (E)gelu_l(xs[i]); break;    \
    case OP_GeluTanh: for (int64_t i = 0; i < n; i++) ys[i] = (E)gelu_tanh_l(xs[i]); break; \
    case OP_Swish: for (int64_t i = 0; i < n; i++) ys[i] = (E)swish_l(xs[i], q.alpha); break; \
    default: return -1;                                                               \
  }

/* x: any shape; y: the same shape, of x's type (bool for IsNaN, IsInf);
 * elements [lo, lo + n) */
#define FLOAT_TYPE(NAME, T, WT, SWITCH)                                               \
  case OX_##NAME: {                                                                   \
    typedef T E;                                                                      \
    typedef WT W;                                                                     \
    const E *xs = (const E *)x->data + lo;                                            \
    E *ys = (E *)y->data + lo;                                                        \
    uint8_t *bs = (uint8_t *)y->data + lo;                                            \
    SWITCH                                                                            \
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
 * Relu, LeakyRelu, Clip, Abs and Neg on float32 as one function built per
 * vector width (OX_BY_WIDTHS, core/kernel.h): the same per-element
 * expressions (no multiply-adds fused), so the same bits. */
#define FAST_OPS(X) X(Relu) X(LeakyRelu) X(Clip) X(Abs) X(Neg)
#define FAST_CASE(Op) \
  case OP_##Op: for (int64_t i = 0; i < n; i++) ys[i] = Op##_F(float, xs[i]); return 1;
#define FAST_FN(SUF, TARGET)                                                          \
  TARGET static int fast_##SUF(int op, const prm q, const float *xs, float *ys, int64_t n) { \
    switch (op) {                                                                     \
      FAST_OPS(FAST_CASE)                                                             \
    default: return 0;                                                                \
    }                                                                                 \
  }
OX_BY_WIDTHS(FAST_FN)

/* Sigmoid, Tanh, Swish, Gelu's tanh form, Mish, HardSigmoid and HardSwish
 * on float: 8 lanes of double at a time (core/vmath.h), rounded once; 1 when
 * op is one of them. (libm's exp per element took 42 ms of IS-Net's 7M
 * sigmoids.) HardSigmoid's alpha x + beta is rounded once, and HardSwish's
 * x (x + 3) / 6 loses nothing at -3, where x / 6 + 0.5 in float cancels. */
static int vector_op(int op, const prm q, const float *xs, float *ys, int64_t n) {
  switch (op) {
  case OP_Sigmoid: ox_sigmoid_fast_f32(xs, ys, n); return 1; /* ox_sigmoid_f32's bits, quicker */
  case OP_Tanh: ox_tanh_fast_f32(xs, ys, n); return 1;
  case OP_Swish: ox_swish_f32(xs, ys, n, q.alpha); return 1;
  case OP_GeluTanh: ox_gelu_tanh_f32(xs, ys, n); return 1;
  case OP_Gelu: ox_gelu_erf_f32(xs, ys, n); return 1;
  case OP_Erf: ox_erf_f32(xs, ys, n); return 1;
  case OP_Mish: ox_mish_f32(xs, ys, n); return 1;
  case OP_HardSigmoid: ox_hardsigmoid_f32(xs, ys, n, q.alpha, q.beta); return 1;
  case OP_HardSwish: ox_hardswish_f32(xs, ys, n); return 1;
  default: return 0;
  }
}

/* compute's float16, bfloat16 and float8: in float, by blocks of BLOCK
 * elements (n, as FLOAT_SWITCH reads it), rounded once on store; -1 when op
 * does not take them */
static int compute_small(int op, const prm q, const ox_tensor *x, ox_tensor *y, int64_t lo, int64_t hi) {
  int pred = op == OP_IsNaN || op == OP_IsInf;
  float buf[BLOCK];
  for (int64_t b0 = lo; b0 < hi; b0 += BLOCK) {
    int64_t n = hi - b0 < BLOCK ? hi - b0 : BLOCK;
    ox_widen_f32_n(x->dt, x->data, b0, n, buf);
    typedef float E;
    typedef double W;
    const E *xs = buf;
    E *ys = buf;
    uint8_t *bs = (uint8_t *)y->data + b0;
    if (!OX_AT_WIDTH(fast, op, q, xs, ys, n) && !vector_op(op, q, xs, ys, n)) FLOAT_SWITCH
    if (!pred) ox_narrow_f32_n(buf, n, y->dt, y->data, b0);
  }
  return 0;
}

/* y = op(x) for elements [lo, hi): -1 when op does not take x's dtype. y may
 * be x itself (each element is read before it is written). */
static int compute(int op, const prm q, const ox_tensor *x, ox_tensor *y, int64_t lo, int64_t hi) {
  int64_t n = hi - lo;
  if (x->dt == OX_FLOAT && OX_AT_WIDTH(fast, op, q, (const float *)x->data + lo, (float *)y->data + lo, n)) return 0;
  if (x->dt == OX_FLOAT && vector_op(op, q, (const float *)x->data + lo, (float *)y->data + lo, n))
    return 0;
  switch (x->dt) {
    FLOAT_TYPE(FLOAT, float, double, FLOAT_SWITCH)
    FLOAT_TYPE(DOUBLE, double, long double, DOUBLE_SWITCH)
    OX_NATIVE_SINTS(SINT_TYPE)
    OX_NATIVE_UINTS(UINT_TYPE)
  case OX_BOOL: {
    const uint8_t *xs = (const uint8_t *)x->data + lo;
    uint8_t *ys = (uint8_t *)y->data + lo;
    if (op != OP_Not) return -1;
    for (int64_t i = 0; i < n; i++) ys[i] = !xs[i];
  } break;
  default:
    if (!ox_dtype_is_small_float(x->dt) || op == OP_BitwiseNot || op == OP_Not) return -1;
    return compute_small(op, q, x, y, lo, hi);
  }
  return 0;
}

/* ---- as an epilogue (core/fuse.h) ---- */

typedef struct { int op; prm q; } epi_arg;

/* compute()'s float path, on a row */
static void epi_row(const void *arg, const float *a, int64_t sa, const float *b, int64_t sb, float *z, int64_t n,
                    int64_t ch) {
  (void)sa, (void)b, (void)sb, (void)ch;
  const epi_arg *e = arg;
  if (!OX_AT_WIDTH(fast, e->op, e->q, a, z, n)) vector_op(e->op, e->q, a, z, n);
}

int ox_unary_epi(ox_ctx *c, int64_t M, ox_epi_step *s) {
  (void)M;
  static const struct { const char *name; int op; } ops[] = {
    {"Relu", OP_Relu}, {"LeakyRelu", OP_LeakyRelu}, {"Clip", OP_Clip}, {"Abs", OP_Abs}, {"Neg", OP_Neg},
    {"Sigmoid", OP_Sigmoid}, {"Tanh", OP_Tanh}, {"HardSigmoid", OP_HardSigmoid}, {"HardSwish", OP_HardSwish},
    {"Erf", OP_Erf}, {"Gelu", OP_Gelu}, /* Gelu-20: its state's op says which form */
  };
  const ox_node *n = c->node;
  int op = -1;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(n->op, ops[i].name)) op = ops[i].op;
  if (op < 0 || (n->domain && n->domain[0])) return 0;
  epi_arg *e = ox_alloc(c->a, sizeof *e);
  if (!e) return 0;
  memset(e, 0, sizeof *e);
  e->op = op;
  const unary_state *st = c->state;
  if (st) e->op = st->op, e->q = st->q;
  if (op == OP_Clip) {
    /* clip_bounds on a float input; Clip-11's min and max must be constants */
    ox_value x = {.kind = OX_TENSOR}, mm[2] = {{.kind = OX_TENSOR}, {.kind = OX_TENSOR}};
    x.u.t.dt = OX_FLOAT;
    ox_value *in[3] = {&x, NULL, NULL};
    for (int i = 1; c->version >= 11 && i < n->nin && i < 3; i++) {
      if (!n->in[i][0]) continue;
      const ox_tensor *t = NULL;
      if (ox_const_input(c, i, &t) || !t) return 0;
      mm[i - 1].u.t = *t;
      in[i] = &mm[i - 1];
    }
    ox_err err = {0}, *keep = c->err;
    c->err = &err;
    int rc = clip_bounds(c, n->nin < 3 ? n->nin : 3, in, &e->q);
    c->err = keep;
    if (rc) return 0;
  }
  s->fn = epi_row;
  s->arg = e;
  /* fast_'s expressions (Relu_F, Clip_F on float) */
  if (e->op == OP_Relu) s->form = OX_EPI_F_RELU;
  if (e->op == OP_Clip) s->form = OX_EPI_F_CLIP, s->lo = (float)e->q.lo, s->hi = (float)e->q.hi;
  return 1; /* one data input */
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
  OX_TRY(ox_need_tensor(c, in[0], 0));
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
  int nch = costly(op) ? ox_par_chunks(c->threads, n, 256.0 * (double)n)
                       : ox_par_chunks_mem(c->threads, n, (double)(ox_dtype_size(x->dt) + ox_dtype_size(y->dt)) * (double)n);
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

/* The load hooks of the ops with attributes. */
#define LOAD(Op)                                                                      \
  static int Op##_load(ox_ctx *c, void **state) { return unary_load(c, OP_##Op, state); }
LOAD(LeakyRelu)
LOAD(Elu)
LOAD(Celu)
LOAD(ThresholdedRelu)
LOAD(Swish)
LOAD(Selu)
LOAD(HardSigmoid)
LOAD(Shrink)
LOAD(IsInf)
LOAD(Gelu)
LOAD(Clip)

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
    "detect_negative:int=1,detect_positive:int=1", IsInf_load },
  { "", "IsInf",           20, 0, F4 | F8,                    1, 1, IsInf_k, OX_ATTRS_OF(10), IsInf_load },
  { "", "Not",              1, 0, OX_T(BOOL),                 1, 1, Not_k, "" },
  { "", "BitwiseNot",      18, 0, OX_TS_INTS,                 1, 1, BitwiseNot_k, "" },
  { "", "Relu",             1, 0, F3,                         1, 1, Relu_k,
    "consumed_inputs:ints" },
  { "", "Relu",             6, 0, F3,                         1, 1, Relu_k, "" },
  { "", "Relu",            13, 0, F4,                         1, 1, Relu_k, "" },
  { "", "Relu",            14, 0, F4 | OX_TS_SINTS,           1, 1, Relu_k, "" },
  { "", "LeakyRelu",        1, 0, F3,                         1, 1, LeakyRelu_k,
    "alpha:float=0.01,consumed_inputs:ints", LeakyRelu_load },
  { "", "LeakyRelu",        6, 0, F3,                         1, 1, LeakyRelu_k,
    "alpha:float=0.01", LeakyRelu_load },
  { "", "LeakyRelu",       16, 0, F4,                         1, 1, LeakyRelu_k, OX_ATTRS_OF(6), LeakyRelu_load },
  { "", "Elu",              1, 0, F3,                         1, 1, Elu_k,
    "alpha:float=1.0,consumed_inputs:ints", Elu_load },
  { "", "Elu",              6, 0, F3,                         1, 1, Elu_k, "alpha:float=1.0", Elu_load },
  { "", "Elu",             22, 0, F4,                         1, 1, Elu_k, OX_ATTRS_OF(6), Elu_load },
  { "", "Selu",             1, 0, F3,                         1, 1, Selu_k,
    "alpha:float=1.6732,consumed_inputs:ints,gamma:float=1.0507", Selu_load },
  { "", "Selu",             6, 0, F3,                         1, 1, Selu_k,
    "alpha:float=1.67326,gamma:float=1.0507", Selu_load },
  { "", "Selu",            22, 0, F4,                         1, 1, Selu_k, OX_ATTRS_OF(6), Selu_load },
  { "", "HardSigmoid",      1, 0, F3,                         1, 1, HardSigmoid_k,
    "alpha:float=0.2,beta:float=0.5,consumed_inputs:ints", HardSigmoid_load },
  { "", "HardSigmoid",      6, 0, F3,                         1, 1, HardSigmoid_k,
    "alpha:float=0.2,beta:float=0.5", HardSigmoid_load },
  { "", "HardSigmoid",     22, 0, F4,                         1, 1, HardSigmoid_k, OX_ATTRS_OF(6), HardSigmoid_load },
  { "", "Celu",            12, 0, OX_T(FLOAT),                1, 1, Celu_k, "alpha:float=1.0", Celu_load },
  { "", "Celu",            28, 0, F4,                         1, 1, Celu_k, OX_ATTRS_OF(12), Celu_load },
  { "", "Gelu",            20, 0, F4,                         1, 1, Gelu_k,
    "approximate:string=none", Gelu_load },
  { "", "HardSwish",       14, 0, F3,                         1, 1, HardSwish_k, "" },
  { "", "HardSwish",       22, 0, F4,                         1, 1, HardSwish_k, "" },
  { "", "Softplus",         1, 0, F3,                         1, 1, Softplus_k, "" },
  { "", "Softplus",        22, 0, F4,                         1, 1, Softplus_k, "" },
  { "", "Softsign",         1, 0, F3,                         1, 1, Softsign_k, "" },
  { "", "Softsign",        22, 0, F4,                         1, 1, Softsign_k, "" },
  { "", "Mish",            18, 0, F3,                         1, 1, Mish_k, "" },
  { "", "Mish",            22, 0, F4,                         1, 1, Mish_k, "" },
  { "", "ThresholdedRelu", 10, 0, F3,                         1, 1, ThresholdedRelu_k,
    "alpha:float=1.0", ThresholdedRelu_load },
  { "", "ThresholdedRelu", 22, 0, F4,                         1, 1, ThresholdedRelu_k,
    OX_ATTRS_OF(10), ThresholdedRelu_load },
  { "", "Shrink",           9, 0, OX_TS_NUM,                  1, 1, Shrink_k,
    "bias:float=0.0,lambd:float=0.5", Shrink_load },
  { "", "Swish",           24, 0, F4,                         1, 1, Swish_k, "alpha:float=1.0", Swish_load },
  /* Clip-1, -6: min and max attributes; 11 on: optional min and max inputs */
  { "", "Clip",             1, 0, F3,                         1, 1, Clip_k,
    "consumed_inputs:ints,max:float,min:float", Clip_load },
  { "", "Clip",             6, 0, F3,                         1, 1, Clip_k,
    "max:float=3.402823e+38,min:float=-3.402823e+38", Clip_load },
  { "", "Clip",            11, 0, F3,                         1, 3, Clip_k, "", Clip_load },
  { "", "Clip",            12, 0, OX_TS_NUM,                  1, 3, Clip_k, "", Clip_load },
  { "", "Clip",            13, 0, OX_TS_NUM13,                1, 3, Clip_k, "", Clip_load },
  {0},
};

/* ---- for the rows of other families (ops/twins.h) ---- */

void ox_gelu_f32(const float *x, float *y, int64_t n, int tanh_form) {
  int64_t dims[1] = {n};
  ox_tensor xt = {.dt = OX_FLOAT, .rank = 1, .dims = dims, .n = n, .data = (void *)x};
  ox_tensor yt = {.dt = OX_FLOAT, .rank = 1, .dims = dims, .n = n, .data = y};
  compute(tanh_form ? OP_GeluTanh : OP_Gelu, (prm){0}, &xt, &yt, 0, n);
}

int ox_gelu_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return Gelu_k(c, nin, in, nout, out);
}

int ox_thresholded_relu_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return ThresholdedRelu_k(c, nin, in, nout, out);
}

int ox_gelu_load(ox_ctx *c, void **state) {
  return Gelu_load(c, state);
}

int ox_thresholded_relu_load(ox_ctx *c, void **state) {
  return ThresholdedRelu_load(c, state);
}
