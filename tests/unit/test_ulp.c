/* tests/unit/test_ulp.c: the elementwise math ops' error in ULPs, swept over
 * each op's domain, against a reference computed in higher precision; fails
 * when an op's largest error passes its bound, and prints the table.
 *
 *   float32  2^20 inputs per op (ONNXOP_ULP_N=N to change; 2^16 under the
 *            sanitizers): the whole float line (subnormals, signed zeros,
 *            infinities, NaN), the op's domain spread by exponent, its useful
 *            range spread by value, and the edges (overflow, underflow, the
 *            ends of the domain) one by one; against the long double value
 *            of the op's definition (the attributes as the float32 values
 *            the node holds), whose own error is some 2^-11 of a float64
 *            ULP (checked against MPFR below); and the lower vector builds
 *            (core/vmath.h: SSE2, AVX2) must give the same bits
 *   float64  2^16 inputs per op (ONNXOP_ULP_N64; 2^12 under the
 *            sanitizers), spread the same way, against MPFR at 160 bits
 *            (long double is not exact enough where float64 ops compute in
 *            it)
 *   float16, bfloat16   every one of the 65536 inputs: the result must be
 *            the 16-bit rounding of a value within 1 float32 ULP of the
 *            exact one ("correctly rounded from a float32 result")
 *   the references' primitives (expl, erfcl, tanhl, ...) against MPFR at 192
 *            bits on 2^12 inputs each: within 2^-6 ULP of a float64
 *   rows     reductions and the softmax family over rows of 10^4, along
 *            the last axis and the first, against long double
 *
 * An error is |got - exact| / ulp(exact), ulp(exact) the spacing of the
 * format's numbers at the exact value (its subnormals' below the smallest
 * normal). NaN must meet NaN, an infinity the same infinity, and an exact
 * zero a zero of the same sign; an exact value beyond the largest finite
 * number must round to the infinity. Any other mismatch is an error of
 * "inf". */
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/vmath.h"
#include "kit.h"

typedef long double ld;

#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_N (1 << 16)
#define DEFAULT_N64 (1 << 12)
#else
#define DEFAULT_N (1 << 20)
#define DEFAULT_N64 (1 << 16)
#endif

/* ---- the references: p holds the attributes (float32 values) ---- */

static ld sigmoid_l(ld x) { return x >= 0 ? 1 / (1 + expl(-x)) : expl(x) / (1 + expl(x)); }
static ld softplus_l(ld x) { return x > 0 ? x + log1pl(expl(-x)) : log1pl(expl(x)); }
static ld clamp01_l(ld t) { return t < 0 ? 0 : t > 1 ? 1 : t; }

#define R(name, expr) \
  static ld name(ld x, const float *p) { (void)p; return (expr); }
R(r_reciprocal, 1 / x)
R(r_sqrt, sqrtl(x))
R(r_exp, expl(x))
R(r_log, logl(x))
R(r_erf, erfl(x))
R(r_sin, sinl(x))
R(r_cos, cosl(x))
R(r_tan, tanl(x))
R(r_asin, asinl(x))
R(r_acos, acosl(x))
R(r_atan, atanl(x))
R(r_sinh, sinhl(x))
R(r_cosh, coshl(x))
R(r_tanh, tanhl(x))
R(r_asinh, asinhl(x))
R(r_acosh, acoshl(x))
R(r_atanh, atanhl(x))
R(r_abs, fabsl(x))
R(r_neg, -x)
R(r_ceil, ceill(x))
R(r_floor, floorl(x))
R(r_round, rintl(x))
R(r_sign, x > 0 ? 1 : x < 0 ? -1 : x)
R(r_relu, x < 0 ? 0 : x)
R(r_leakyrelu, x < 0 ? (ld)p[0] * x : x)
R(r_elu, x < 0 ? (ld)p[0] * expm1l(x) : x)
R(r_selu, x > 0 ? (ld)p[1] * x : (ld)p[1] * (ld)p[0] * expm1l(x))
R(r_celu, x > 0 ? x : (ld)p[0] * expm1l(x / (ld)p[0]))
/* Gelu: 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2), which does
 * not cancel for negative x */
R(r_gelu, 0.5L * x * erfcl(-x / sqrtl(2.0L)))
/* the tanh form: 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3) */
R(r_gelu_tanh, x * sigmoid_l(2 * sqrtl(2 / 3.14159265358979323846264338327950288L) *
                            (x + 0.044715L * x * x * x)))
R(r_sigmoid, sigmoid_l(x))
R(r_hardsigmoid, clamp01_l((ld)p[0] * x + (ld)p[1]))
/* HardSwish-14: x max(0, min(1, x / 6 + 1 / 2)), alpha 1/6 as the text says */
R(r_hardswish, x * clamp01_l((x + 3) / 6))
R(r_softplus, softplus_l(x))
R(r_softsign, x / (1 + fabsl(x)))
R(r_mish, x * tanhl(softplus_l(x)))
R(r_thresholdedrelu, x > (ld)p[0] ? x : 0)
R(r_shrink, x < -(ld)p[0] ? x + (ld)p[1] : x > (ld)p[0] ? x - (ld)p[1] : 0)
R(r_swish, x * sigmoid_l((ld)p[0] * x))
R(r_clip, x < (ld)p[0] ? (ld)p[0] : x > (ld)p[1] ? (ld)p[1] : x)
#undef R
/* two inputs */
static ld r_pow(ld x, ld y) { return powl(x, y); }
static ld r_add(ld x, ld y) { return x + y; }
static ld r_sub(ld x, ld y) { return x - y; }
static ld r_mul(ld x, ld y) { return x * y; }
static ld r_div(ld x, ld y) { return x / y; }

/* ---- the same references in MPFR, at 160 bits: the float64 column's ---- */

#define PREC 160
static mpfr_t T1, T2, T3; /* scratch */
#define RN MPFR_RNDN
typedef mpfr_ptr mo;
typedef mpfr_srcptr mi;

static void ms_sigmoid(mo y, mi t) { /* y = 1 / (1 + e^-t), y not t */
  if (mpfr_sgn(t) >= 0) {
    mpfr_neg(y, t, RN), mpfr_exp(y, y, RN), mpfr_add_ui(y, y, 1, RN), mpfr_ui_div(y, 1, y, RN);
  } else {
    mpfr_exp(T3, t, RN), mpfr_add_ui(y, T3, 1, RN), mpfr_div(y, T3, y, RN);
  }
}
static void ms_softplus(mo y, mi x) { /* y = ln(1 + e^x), y not x */
  if (mpfr_sgn(x) > 0) mpfr_neg(y, x, RN), mpfr_exp(y, y, RN), mpfr_log1p(y, y, RN), mpfr_add(y, y, x, RN);
  else mpfr_exp(y, x, RN), mpfr_log1p(y, y, RN);
}
static void ms_clamp01(mo y) {
  if (mpfr_sgn(y) < 0) mpfr_set_ui(y, 0, RN);
  else if (mpfr_cmp_ui(y, 1) > 0) mpfr_set_ui(y, 1, RN);
}

#define M(name, ...) \
  static void name(mo y, mi x, const float *p) { (void)p; __VA_ARGS__; }
#define M1(name, fn) M(name, fn(y, x, RN))
M(m_reciprocal, mpfr_ui_div(y, 1, x, RN))
M1(m_sqrt, mpfr_sqrt)
M1(m_exp, mpfr_exp)
M1(m_log, mpfr_log)
M1(m_erf, mpfr_erf)
M1(m_sin, mpfr_sin)
M1(m_cos, mpfr_cos)
M1(m_tan, mpfr_tan)
M1(m_asin, mpfr_asin)
M1(m_acos, mpfr_acos)
M1(m_atan, mpfr_atan)
M1(m_sinh, mpfr_sinh)
M1(m_cosh, mpfr_cosh)
M1(m_tanh, mpfr_tanh)
M1(m_asinh, mpfr_asinh)
M1(m_acosh, mpfr_acosh)
M1(m_atanh, mpfr_atanh)
M1(m_abs, mpfr_abs)
M1(m_neg, mpfr_neg)
M(m_ceil, mpfr_ceil(y, x))
M(m_floor, mpfr_floor(y, x))
M(m_round, mpfr_rint(y, x, RN))
M(m_sign, if (mpfr_nan_p(x) || mpfr_zero_p(x)) mpfr_set(y, x, RN); else mpfr_set_si(y, mpfr_sgn(x), RN))
M(m_relu, if (mpfr_sgn(x) < 0) mpfr_set_ui(y, 0, RN); else mpfr_set(y, x, RN))
M(m_leakyrelu, if (mpfr_sgn(x) < 0) mpfr_mul_d(y, x, p[0], RN); else mpfr_set(y, x, RN))
M(m_elu, if (mpfr_sgn(x) < 0) mpfr_expm1(y, x, RN), mpfr_mul_d(y, y, p[0], RN); else mpfr_set(y, x, RN))
M(m_selu, if (mpfr_sgn(x) > 0) mpfr_mul_d(y, x, p[1], RN);
  else mpfr_expm1(y, x, RN), mpfr_mul_d(y, y, p[0], RN), mpfr_mul_d(y, y, p[1], RN))
M(m_celu, if (mpfr_sgn(x) > 0) mpfr_set(y, x, RN);
  else mpfr_div_d(y, x, p[0], RN), mpfr_expm1(y, y, RN), mpfr_mul_d(y, y, p[0], RN))
M(m_gelu, mpfr_sqrt_ui(T1, 2, RN), mpfr_div(T1, x, T1, RN), mpfr_neg(T1, T1, RN),
  mpfr_erfc(T1, T1, RN), mpfr_mul(y, T1, x, RN), mpfr_div_ui(y, y, 2, RN))
M(m_gelu_tanh, mpfr_const_pi(T1, RN), mpfr_ui_div(T1, 2, T1, RN), mpfr_sqrt(T1, T1, RN),
  mpfr_set_str(T2, "0.044715", 10, RN), mpfr_mul(T2, T2, x, RN), mpfr_mul(T2, T2, x, RN),
  mpfr_mul(T2, T2, x, RN), mpfr_add(T2, T2, x, RN), mpfr_mul(T2, T2, T1, RN),
  mpfr_mul_ui(T2, T2, 2, RN), ms_sigmoid(T1, T2), mpfr_mul(y, T1, x, RN))
M(m_sigmoid, ms_sigmoid(y, x))
M(m_hardsigmoid, mpfr_mul_d(y, x, p[0], RN), mpfr_add_d(y, y, p[1], RN), ms_clamp01(y))
M(m_hardswish, mpfr_add_ui(T1, x, 3, RN), mpfr_div_ui(T1, T1, 6, RN), ms_clamp01(T1),
  mpfr_mul(y, T1, x, RN))
M(m_softplus, ms_softplus(y, x))
M(m_softsign, mpfr_abs(T1, x, RN), mpfr_add_ui(T1, T1, 1, RN), mpfr_div(y, x, T1, RN))
M(m_mish, ms_softplus(T1, x), mpfr_tanh(T1, T1, RN), mpfr_mul(y, T1, x, RN))
M(m_thresholdedrelu, if (mpfr_cmp_d(x, p[0]) > 0) mpfr_set(y, x, RN); else mpfr_set_ui(y, 0, RN))
M(m_shrink, if (mpfr_cmp_d(x, -p[0]) < 0) mpfr_add_d(y, x, p[1], RN);
  else if (mpfr_cmp_d(x, p[0]) > 0) mpfr_sub_d(y, x, p[1], RN); else mpfr_set_ui(y, 0, RN))
M(m_swish, mpfr_mul_d(T1, x, p[0], RN), ms_sigmoid(T2, T1), mpfr_mul(y, T2, x, RN))
M(m_clip, if (mpfr_cmp_d(x, p[0]) < 0) mpfr_set_d(y, p[0], RN);
  else if (mpfr_cmp_d(x, p[1]) > 0) mpfr_set_d(y, p[1], RN); else mpfr_set(y, x, RN))
#undef M
#undef M1
static void m_pow(mo z, mi x, mi y) { mpfr_pow(z, x, y, RN); }
static void m_add(mo z, mi x, mi y) { mpfr_add(z, x, y, RN); }
static void m_sub(mo z, mi x, mi y) { mpfr_sub(z, x, y, RN); }
static void m_mul(mo z, mi x, mi y) { mpfr_mul(z, x, y, RN); }
static void m_div(mo z, mi x, mi y) { mpfr_div(z, x, y, RN); }

/* ---- the ops ---- */

enum { F32, F64, F16, BF16, NDT };
static const ox_dtype DT[NDT] = {OX_FLOAT, OX_DOUBLE, OX_FLOAT16, OX_BFLOAT16};
static const char *DTN[NDT] = {"float32", "float64", "float16", "bfloat16"};

typedef struct {
  const char *label;                 /* the row of the table */
  const char *op;
  ld (*ref)(ld, const float *);      /* one input: long double (float32) */
  void (*mref)(mo, mi, const float *); /* and MPFR (float64) */
  ld (*ref2)(ld, ld);                /* or two */
  void (*mref2)(mo, mi, mi);
  const char *an[2];                 /* attributes (float), or "approximate" */
  float av[2];
  const char *astr;                  /* Gelu's approximate */
  double lo, hi;                     /* the domain (outside it: NaN, or the edge's value) */
  double a, b;                       /* the useful range, sampled by value */
  double bound[2];                   /* largest error allowed: float32, float64 */
  double edge[6];                    /* inputs worth trying one by one (and their neighbours) */
} sweep_op;

#define INF INFINITY
/* f: the references r_f and m_f; b32, b64: the bounds */
#define U(label, op, f, lo, hi, a, b, b32, b64, ...) \
  {label, op, r_##f, m_##f, NULL, NULL, {0}, {0}, NULL, lo, hi, a, b, {b32, b64}, {__VA_ARGS__}}
#define UA(label, op, f, n0, v0, n1, v1, lo, hi, a, b, b32, b64, ...) \
  {label, op, r_##f, m_##f, NULL, NULL, {n0, n1}, {v0, v1}, NULL, lo, hi, a, b, {b32, b64}, {__VA_ARGS__}}
#define BIN(label, op, f, lo, hi, a, b, b32, b64) \
  {label, op, NULL, NULL, r_##f, m_##f, {0}, {0}, NULL, lo, hi, a, b, {b32, b64}, {0}}

/* The bounds: 0 for the exact ops; 0.5 for one IEEE operation (correctly
 * rounded); 0.51 for the ops computed in a wider type and rounded once;
 * 1 for the math library's own functions: glibc's expf (0.502 ULP at most),
 * logf and powf (0.82), sinf and cosf (0.56), and its double exp, log, pow,
 * sin, cos, tan, asin, acos, atan (below 0.6) */
static const sweep_op OPS[] = {
  /* exact or correctly rounded */
  U("Abs", "Abs", abs, -INF, INF, -10, 10, 0, 0, 0),
  U("Neg", "Neg", neg, -INF, INF, -10, 10, 0, 0, 0),
  U("Ceil", "Ceil", ceil, -INF, INF, -1e7, 1e7, 0, 0, 0.5, -0.5),
  U("Floor", "Floor", floor, -INF, INF, -1e7, 1e7, 0, 0, 0.5, -0.5),
  U("Round", "Round", round, -INF, INF, -1e7, 1e7, 0, 0, 0.5, -0.5, 1.5, 2.5),
  U("Sign", "Sign", sign, -INF, INF, -10, 10, 0, 0, 0),
  U("Relu", "Relu", relu, -INF, INF, -10, 10, 0, 0, 0),
  U("Reciprocal", "Reciprocal", reciprocal, -INF, INF, -10, 10, 0.5, 0.5, 0),
  U("Sqrt", "Sqrt", sqrt, 0, INF, 0, 100, 0.5, 0.5, 0),
  /* the math library's functions */
  U("Exp", "Exp", exp, -INF, INF, -750, 710, 1, 1, 88.72284, -87.33655, -103.27893, -745.1, 709.78),
  U("Log", "Log", log, 0, INF, 0, 10, 1, 1, 1),
  U("Erf", "Erf", erf, -INF, INF, -6, 6, 0.51, 0.51, 0),
  U("Sin", "Sin", sin, -INF, INF, -100, 100, 1, 1, 3.14159265, 1e22),
  U("Cos", "Cos", cos, -INF, INF, -100, 100, 1, 1, 1.57079633, 1e22),
  U("Tan", "Tan", tan, -INF, INF, -100, 100, 0.51, 1, 1.57079633, 1e22),
  U("Asin", "Asin", asin, -1, 1, -1, 1, 0.51, 1, 0.5),
  U("Acos", "Acos", acos, -1, 1, -1, 1, 0.51, 1, 0.5),
  U("Atan", "Atan", atan, -INF, INF, -20, 20, 0.51, 1, 0),
  U("Sinh", "Sinh", sinh, -INF, INF, -712, 712, 0.51, 0.51, 89.415985, 710.4758),
  U("Cosh", "Cosh", cosh, -INF, INF, -712, 712, 0.51, 0.51, 89.415985, 710.4758),
  U("Tanh", "Tanh", tanh, -INF, INF, -20, 20, 0.51, 0.51, 0.55, 9.01, 22),
  U("Asinh", "Asinh", asinh, -INF, INF, -20, 20, 0.51, 0.51, 0),
  U("Acosh", "Acosh", acosh, 1, INF, 1, 20, 0.51, 0.51, 1),
  U("Atanh", "Atanh", atanh, -1, 1, -1, 1, 0.51, 0.51, 0.5),
  /* the activations, default and sampled attributes */
  U("Sigmoid", "Sigmoid", sigmoid, -INF, INF, -750, 40, 0.51, 0.51, -87.33655, -103.27893, -745.1),
  U("Softplus", "Softplus", softplus, -INF, INF, -750, 40, 0.51, 0.51, -103.27893, 88.72284),
  U("Softsign", "Softsign", softsign, -INF, INF, -100, 100, 0.51, 0.51, 0),
  U("Mish", "Mish", mish, -INF, INF, -750, 40, 0.51, 0.51, -103.27893, 88.72284),
  U("Gelu", "Gelu", gelu, -INF, INF, -40, 8, 0.51, 0.51, -5, -6, -14.2, -38.5),
  {"Gelu tanh", "Gelu", r_gelu_tanh, m_gelu_tanh, NULL, NULL, {0}, {0}, "tanh", -INF, INF, -20, 8, {0.51, 0.51},
   {-5, -6, -14.2, -5e12}},
  U("HardSwish", "HardSwish", hardswish, -INF, INF, -5, 5, 0.51, 0.51, -3, 3, -2.9999998),
  UA("HardSigmoid", "HardSigmoid", hardsigmoid, "alpha", 0.2f, "beta", 0.5f, -INF, INF, -5, 5,
     0.51, 0.51, -2.5, 2.5),
  UA("HardSigmoid 0.35,0.1", "HardSigmoid", hardsigmoid, "alpha", 0.35f, "beta", 0.1f, -INF,
     INF, -5, 5, 0.51, 0.51, -0.2857143),
  UA("Elu", "Elu", elu, "alpha", 1.0f, NULL, 0, -INF, INF, -20, 5, 0.51, 0.51, -1e-7),
  UA("Elu 0.3", "Elu", elu, "alpha", 0.3f, NULL, 0, -INF, INF, -20, 5, 0.51, 0.51, -1e-7),
  UA("Selu", "Selu", selu, "alpha", 1.67326319217681884765625f, "gamma",
     1.05070102214813232421875f, -INF, INF, -20, 5, 0.51, 0.51, -1e-7),
  UA("Selu 2,0.5", "Selu", selu, "alpha", 2.0f, "gamma", 0.5f, -INF, INF, -20, 5, 0.51, 0.51, -1e-7),
  UA("Celu", "Celu", celu, "alpha", 1.0f, NULL, 0, -INF, INF, -20, 5, 0.51, 0.51, -1e-7),
  UA("Celu 0.7", "Celu", celu, "alpha", 0.7f, NULL, 0, -INF, INF, -20, 5, 0.51, 0.51, -1e-7),
  UA("Celu 3", "Celu", celu, "alpha", 3.0f, NULL, 0, -INF, INF, -40, 5, 0.51, 0.51, -1e-7),
  UA("Swish", "Swish", swish, "alpha", 1.0f, NULL, 0, -INF, INF, -750, 40, 0.51, 0.51, -90, -105),
  UA("Swish 1.702", "Swish", swish, "alpha", 1.702f, NULL, 0, -INF, INF, -450, 30, 0.51, 0.51, -60),
  UA("LeakyRelu", "LeakyRelu", leakyrelu, "alpha", 0.01f, NULL, 0, -INF, INF, -10, 10, 0.5,
     0.5, 0),
  UA("LeakyRelu 0.3", "LeakyRelu", leakyrelu, "alpha", 0.3f, NULL, 0, -INF, INF, -10, 10, 0.5,
     0.5, 0),
  UA("ThresholdedRelu", "ThresholdedRelu", thresholdedrelu, "alpha", 1.0f, NULL, 0, -INF, INF,
     -5, 5, 0, 0, 1),
  UA("Shrink", "Shrink", shrink, "lambd", 0.5f, "bias", 0.0f, -INF, INF, -5, 5, 0.5, 0.5, 0.5),
  UA("Shrink 1.5,0.25", "Shrink", shrink, "lambd", 1.5f, "bias", 0.25f, -INF, INF, -5, 5, 0.5,
     0.5, 1.5),
  UA("Clip -0.5,0.75", "Clip", clip, "min", -0.5f, "max", 0.75f, -INF, INF, -2, 2, 0, 0, 0),
  /* two inputs: x over the domain, y over [a, b] */
  BIN("Pow", "Pow", pow, 0, INF, -40, 40, 1, 1),
  BIN("Add", "Add", add, -INF, INF, -10, 10, 0.5, 0.5),
  BIN("Sub", "Sub", sub, -INF, INF, -10, 10, 0.5, 0.5),
  BIN("Mul", "Mul", mul, -INF, INF, -10, 10, 0.5, 0.5),
  BIN("Div", "Div", div, -INF, INF, -10, 10, 0.5, 0.5),
};
#define NOPS (sizeof OPS / sizeof *OPS)

/* ---- errors ---- */

/* ULP at the exact value w in a format of `mant` fraction bits whose
 * smallest normal exponent is emin. */
static ld ulp_at(ld w, int mant, int emin) {
  int e = w == 0 ? emin : ilogbl(w);
  if (e < emin) e = emin;
  return ldexpl(1, e - mant);
}
/* The error of got (a value of a format: mant, emin, the largest finite
 * `maxf`) against the exact w. */
static double err_of(ld got, ld w, int mant, int emin, ld maxf) {
  if (isnan(w)) return isnan(got) ? 0 : INF;
  if (isnan(got)) return INF;
  if (isinf(w)) return got == w ? 0 : INF;
  if (w == 0) return got == 0 && signbit(got) == signbit(w) ? 0 : got == 0 ? INF : (double)(fabsl(got) / ulp_at(0, mant, emin));
  ld u = ulp_at(w, mant, emin);
  if (isinf(got)) /* right when w rounds to it: |w| >= max + ulp/2 */
    return (got > 0) == (w > 0) && fabsl(w) >= maxf + u / 2 ? 0 : INF;
  return (double)(fabsl(got - w) / u);
}
static double err32(float g, ld w) { return err_of(g, w, 23, -126, FLT_MAX); }
static double err64(double g, ld w) { return err_of(g, w, 52, -1022, DBL_MAX); }

/* ---- inputs ---- */

static uint64_t rnd64(void) { return (uint64_t)kit_rnd32() << 32 | kit_rnd32(); }
static double unif(double a, double b) { return a + (b - a) * ((double)(rnd64() >> 11) * 0x1p-53); }

/* A float64 whose bits are uniform between those of the magnitudes lo < hi
 * (both >= 0): spread by exponent, subnormals included. */
static double spread64(double lo, double hi) {
  uint64_t a, b;
  memcpy(&a, &lo, 8), memcpy(&b, &hi, 8);
  uint64_t k = a + rnd64() % (b - a + 1);
  double d;
  memcpy(&d, &k, 8);
  return d;
}
static float spread32(float lo, float hi) {
  uint32_t a, b;
  memcpy(&a, &lo, 4), memcpy(&b, &hi, 4);
  uint32_t k = a + (uint32_t)(rnd64() % ((uint64_t)b - a + 1));
  float f;
  memcpy(&f, &k, 4);
  return f;
}
/* One input of the domain [lo, hi], spread by exponent, in precision `dt`. */
static double in_domain(int dt, double lo, double hi) {
  double big = dt == F64 ? DBL_MAX : FLT_MAX;
  lo = lo < -big ? -big : lo, hi = hi > big ? big : hi;
  int neg = lo < 0 && (hi <= 0 || rnd64() & 1);
  double mlo = neg ? (hi < 0 ? -hi : 0) : (lo > 0 ? lo : 0), mhi = neg ? -lo : hi;
  double m = dt == F64 ? spread64(mlo, mhi) : spread32((float)mlo, (float)mhi);
  return neg ? -m : m;
}
/* Any value of the format: uniform bits (NaNs and infinities included). */
static double any_bits(int dt) {
  uint64_t k = rnd64();
  if (dt == F64) {
    double d;
    memcpy(&d, &k, 8);
    return d;
  }
  uint32_t k32 = (uint32_t)k;
  float f;
  memcpy(&f, &k32, 4);
  return f;
}

/* the values every op is tried on, with their negatives */
static const double SPECIAL[] = {0, 0x1p-149, 0x1p-126, 0x1.fffffcp-127, 0x1p-1074, 0x1p-1022,
                                 FLT_MIN, 1e-30, 1e-10, 1e-5, 0.5, 1, 2, 3, 10, 100, 1e10,
                                 FLT_MAX, 1e100, DBL_MAX, INF, NAN};

/* Fill x (n values, n > 100) for op o in precision dt (F32 or F64). */
static void inputs(const sweep_op *o, int dt, double *x, int64_t n) {
  int64_t k = 0;
  for (size_t i = 0; i < sizeof SPECIAL / sizeof *SPECIAL; i++) x[k++] = SPECIAL[i], x[k++] = -SPECIAL[i];
  for (int i = 0; i < 6 && o->edge[i] != 0; i++) { /* an edge, its neighbours and its negatives */
    double e = o->edge[i];
    if (dt == F64) {
      x[k++] = e, x[k++] = nextafter(e, INF), x[k++] = nextafter(e, -INF);
    } else {
      x[k++] = (float)e, x[k++] = nextafterf((float)e, INF), x[k++] = nextafterf((float)e, -INF);
    }
    for (int j = 0; j < 3; j++, k++) x[k] = -x[k - 3];
  }
  for (int64_t i = 0; i < k; i++) x[i] = dt == F64 ? x[i] : (double)(float)x[i];
  for (; k < n; k++) {
    int r = (int)(k % 16);
    double v;
    if (r == 0) v = any_bits(dt);
    else if (r < 7) v = in_domain(dt, o->lo, o->hi);
    else v = unif(o->a, o->b);
    x[k] = dt == F64 ? v : (double)(float)v;
  }
}

/* ---- running ---- */

static int nattrs(const sweep_op *o, ox_attr *at) {
  int na = 0;
  for (int i = 0; i < 2; i++)
    if (o->an[i]) at[na++] = attr_float(o->an[i], o->av[i]);
  if (o->astr) at[na++] = attr_str("approximate", o->astr);
  return na;
}

/* the opset the op runs at: the latest, but Clip's last with min and max as
 * attributes */
static int opset_of(const sweep_op *o) { return strcmp(o->op, "Clip") ? 28 : 6; }
/* Does the op take dtype dt? */
static int takes(const sweep_op *o, int dt) {
  const ox_kernel *k = ox_registry_find("", o->op, opset_of(o));
  return k && (k->types & (UINT64_C(1) << DT[dt]));
}

/* y = op(x[, x2]) in dtype dt; NULL (and a failed check) on an error */
static ox_value *run(const sweep_op *o, ox_dtype dt, ox_value *x, ox_value *x2) {
  ox_attr at[3];
  int na = nattrs(o, at);
  ox_value *in[2] = {x, x2}, *y = NULL;
  int rc = kit_run("", o->op, opset_of(o), na, at, x2 ? 2 : 1, in, 1, &y);
  if (rc) fprintf(stderr, "%s %s: %s\n", o->label, ox_dtype_name(dt), E.msg);
  CHECK_EQ_I(rc, 0);
  return rc ? NULL : y;
}

typedef struct {
  double max;      /* the largest error */
  double at, at2;  /* its input(s) */
  double got, want;
  int64_t n, over; /* inputs tried; errors over the bound */
} result;

static void note(result *r, double e, double bound, double x, double x2, double got, ld want) {
  r->n++;
  if (e > bound) r->over++;
  if (e > r->max || (isinf(e) && !isinf(r->max))) {
    r->max = e, r->at = x, r->at2 = x2, r->got = got, r->want = (double)want;
  }
}

/* float32 or float64: n inputs against the references */
static result sweep(const sweep_op *o, int dt, int64_t n) {
  result r = {0};
  ox_mark m = ox_arena_mark(A);
  double *x = malloc((size_t)n * sizeof *x), *x2 = o->ref2 ? malloc((size_t)n * sizeof *x2) : NULL;
  inputs(o, dt, x, n);
  if (x2) { /* the exponent: small integers, halves, the useful range; x < 0 with integers */
    for (int64_t i = 0; i < n; i++) {
      int r4 = (int)(i % 4);
      double y = r4 == 0 ? (double)((int)(kit_rnd32() % 21) - 10)
                 : r4 == 1 ? (double)((int)(kit_rnd32() % 41) - 20) / 2
                           : unif(o->a, o->b);
      if (!strcmp(o->op, "Pow")) {
        if (i % 8 == 5) x[i] = -x[i], y = (double)((int)(kit_rnd32() % 41) - 20);
        if (i % 16 == 7) y = 2;
      } else {
        y = i % 2 ? unif(o->a, o->b) : in_domain(dt, -INF, INF);
      }
      x2[i] = dt == F64 ? y : (double)(float)y;
    }
  }
  ox_dtype t = DT[dt];
  ox_value *vx = vec(t, n, NULL), *vy = x2 ? vec(t, n, NULL) : NULL;
  for (int64_t i = 0; i < n; i++) {
    ox_store_f64(t, vx->u.t.data, i, x[i]);
    if (vy) ox_store_f64(t, vy->u.t.data, i, x2[i]);
  }
  ox_value *y = run(o, t, vx, vy);
  /* the lower vector builds (core/vmath.h) give the same bits */
  for (int isa = OX_CPU_GENERIC; y && dt == F32 && isa < ox_cpu_level(); isa++) {
    ox_vmath_max_isa(isa);
    ox_value *yl = run(o, t, vx, vy);
    ox_vmath_max_isa(-1);
    int same = yl && !memcmp(yl->u.t.data, y->u.t.data, (size_t)n * sizeof(float));
    if (!same) fprintf(stderr, "%s: the %s build gives other bits\n", o->label, isa ? "AVX2" : "SSE2");
    CHECK(same);
  }
  mpfr_t mx, mx2, my;
  mpfr_inits2(PREC, mx, mx2, my, (mpfr_ptr)0);
  for (int64_t i = 0; y && i < n; i++) {
    ld want;
    if (dt == F64) { /* the float64 column against MPFR */
      mpfr_set_d(mx, x[i], RN);
      if (o->mref2) mpfr_set_d(mx2, x2[i], RN), o->mref2(my, mx, mx2);
      else o->mref(my, mx, o->av);
      want = mpfr_get_ld(my, RN);
    } else {
      want = o->ref2 ? o->ref2(x[i], x2[i]) : o->ref(x[i], o->av);
    }
    double got = ox_load_f64(t, y->u.t.data, i);
    double e = dt == F64 ? err64(got, want) : err32((float)got, want);
    note(&r, e, o->bound[dt], x[i], x2 ? x2[i] : 0, got, want);
  }
  mpfr_clears(mx, mx2, my, (mpfr_ptr)0);
  free(x), free(x2);
  ox_arena_release(A, m);
  return r;
}

/* float16 or bfloat16: every input; the result must be the rounding of a
 * value within 1 float32 ULP of the exact one. Returns the inputs that are
 * not, and in *cr those not correctly rounded from the exact value. */
static uint16_t to16(int dt, float f) { return dt == F16 ? ox_f32_to_f16(f) : ox_f32_to_bf16(f); }
static float from16(int dt, uint16_t h) { return dt == F16 ? ox_f16_to_f32(h) : ox_bf16_to_f32(h); }
/* the 16-bit rounding of the exact w, rounded once (w -> float32 rounds to
 * odd first, so that the second rounding is right) */
static uint16_t round16(int dt, ld w) {
  if (isnan(w) || isinf(w) || w == 0) return to16(dt, (float)w);
  float f = (float)w;
  if ((ld)f != w && fabsf(f) <= FLT_MAX) { /* round to odd: the odd neighbour */
    uint32_t b;
    memcpy(&b, &f, 4);
    if (!(b & 1)) {
      float g = (ld)f < w ? nextafterf(f, INF) : nextafterf(f, -INF);
      memcpy(&b, &g, 4);
      if (b & 1) f = g;
    }
  }
  return to16(dt, f);
}
static int64_t sweep16(const sweep_op *o, int dt, int64_t *cr, int64_t *nin, double *bad_x) {
  if (o->ref2 || !takes(o, dt)) return -1;
  ox_mark m = ox_arena_mark(A);
  ox_value *vx = vec(DT[dt], 65536, NULL);
  for (int i = 0; i < 65536; i++) ((uint16_t *)vx->u.t.data)[i] = (uint16_t)i;
  ox_value *y = run(o, DT[dt], vx, NULL);
  int64_t bad = 0;
  *cr = 0, *nin = 0;
  for (int i = 0; y && i < 65536; i++) {
    float x = from16(dt, (uint16_t)i);
    ld w = o->ref(x, o->av);
    uint16_t got = ((uint16_t *)y->u.t.data)[i];
    float g = from16(dt, got);
    (*nin)++;
    if (isnan(w) ? isnan(g) : got == round16(dt, w)) continue;
    (*cr)++;
    /* within 1 float32 ULP of w: the 16-bit roundings of w -+ 1 ulp */
    ld u = ulp_at(w, 23, -126);
    uint16_t a = round16(dt, w - u), b = round16(dt, w + u);
    int ok = !isnan(w) && w != 0 && from16(dt, a) <= g && g <= from16(dt, b);
    if (!ok && bad++ == 0) *bad_x = x;
  }
  ox_arena_release(A, m);
  return bad;
}

/* ---- the references' primitives against MPFR ---- */

typedef struct {
  const char *name;
  ld (*f)(ld);
  int (*m)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
  double lo, hi;
} prim;
static const prim PRIMS[] = {
  {"expl", expl, mpfr_exp, -11000, 11000},   {"expm1l", expm1l, mpfr_expm1, -50, 50},
  {"logl", logl, mpfr_log, 0, INF},          {"log1pl", log1pl, mpfr_log1p, -1, INF},
  {"erfl", erfl, mpfr_erf, -10, 10},         {"erfcl", erfcl, mpfr_erfc, -10, 100},
  {"sinl", sinl, mpfr_sin, -1e30, 1e30},     {"cosl", cosl, mpfr_cos, -1e30, 1e30},
  {"tanl", tanl, mpfr_tan, -1e30, 1e30},     {"asinl", asinl, mpfr_asin, -1, 1},
  {"acosl", acosl, mpfr_acos, -1, 1},        {"atanl", atanl, mpfr_atan, -INF, INF},
  {"sinhl", sinhl, mpfr_sinh, -11000, 11000}, {"coshl", coshl, mpfr_cosh, -11000, 11000},
  {"tanhl", tanhl, mpfr_tanh, -INF, INF},    {"asinhl", asinhl, mpfr_asinh, -INF, INF},
  {"acoshl", acoshl, mpfr_acosh, 1, INF},    {"atanhl", atanhl, mpfr_atanh, -1, 1},
};

/* the largest error of f over n inputs, in ULPs of long double */
static double prim_err(const prim *p, int n) {
  mpfr_t a, b;
  mpfr_init2(a, 192), mpfr_init2(b, 192);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    ld x = i % 2 ? (ld)unif(p->lo > -1e300 ? p->lo : -1e300, p->hi < 1e300 ? p->hi : 1e300)
                 : (ld)in_domain(F64, p->lo, p->hi);
    ld got = p->f(x);
    mpfr_set_ld(a, x, MPFR_RNDN);
    p->m(b, a, MPFR_RNDN);
    ld w = mpfr_get_ld(b, MPFR_RNDN);
    if (isnan(w) || isinf(w) || w == 0 || fabsl(w) < LDBL_MIN) continue;
    mpfr_set_ld(a, got, MPFR_RNDN);
    mpfr_sub(a, a, b, MPFR_RNDN); /* got - exact, exactly enough */
    ld e = fabsl(mpfr_get_ld(a, MPFR_RNDN)) / ulp_at(w, 63, -16382);
    if (e > worst) worst = (double)e;
  }
  mpfr_clear(a), mpfr_clear(b);
  return worst;
}

/* ---- reductions and the softmax family over rows of 10^4 ----
 * x: (4, 10^4) along the last axis (the row kernels) and (10^4, 4) along
 * the first (the column kernels); N(0, 16) data (uniform in [0, 1) for the
 * sums), against long double. */
typedef struct {
  const char *label, *op;
  int opset, axis0, positive, spike; /* spike: a row's first element 6 above its maximum */
  double bound;
} row_op;
static const row_op ROWS[] = {
  {"Softmax", "Softmax", 13, 0, 0, 0, 7},
  {"Softmax, first axis", "Softmax", 13, 1, 0, 0, 7},
  {"LogSoftmax", "LogSoftmax", 13, 0, 0, 0, 1.5},
  {"LogSoftmax, first axis", "LogSoftmax", 13, 1, 0, 0, 1.5},
  {"LogSoftmax, one large", "LogSoftmax", 13, 0, 0, 1, 1.5},
  {"LogSoftmax, one large, first axis", "LogSoftmax", 13, 1, 0, 1, 1.5},
  {"ReduceSum", "ReduceSum", 11, 0, 1, 0, 1},
  {"ReduceSum, first axis", "ReduceSum", 11, 1, 1, 0, 1},
  {"ReduceLogSumExp", "ReduceLogSumExp", 13, 0, 0, 0, 0.51},
  {"ReduceL2", "ReduceL2", 13, 0, 1, 0, 0.51},
  {"LayerNormalization", "LayerNormalization", 17, 0, 0, 0, 0.51},
};
static double rows_check(const row_op *o) {
  enum { R = 4, L = 10000 };
  ox_mark mk = ox_arena_mark(A);
  static float xs[R * L];
  static ld ref[R * L];
  for (int i = 0; i < R * L; i++) { /* Box-Muller */
    double u = (kit_rnd32() + 1.0) / 4294967297.0, v = kit_rnd32() / 4294967296.0;
    xs[i] = o->positive ? (float)v : (float)(4 * sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
  }
  /* element (r, j) of the row view is xs[r * L + j], or xs[j * R + r] along the first axis */
#define AT(r, j) (o->axis0 ? (j) * R + (r) : (r) * L + (j))
  int nout = R * L;
  for (int r = 0; r < R && o->spike; r++) {
    float m = -INFINITY;
    for (int j = 0; j < L; j++) m = xs[AT(r, j)] > m ? xs[AT(r, j)] : m;
    xs[AT(r, 0)] = m + 6;
  }
  for (int r = 0; r < R; r++) {
    ld m = -INFINITY, s = 0, s2 = 0, mean = 0, var = 0;
    for (int j = 0; j < L; j++) m = xs[AT(r, j)] > m ? xs[AT(r, j)] : m;
    for (int j = 0; j < L; j++) {
      ld v = xs[AT(r, j)];
      s += expl(v - m), s2 += v * v, mean += v;
    }
    mean /= L;
    for (int j = 0; j < L; j++) var += (xs[AT(r, j)] - mean) * (xs[AT(r, j)] - mean);
    var /= L;
    if (!strcmp(o->op, "ReduceSum")) ref[r] = mean * L, nout = R;
    else if (!strcmp(o->op, "ReduceLogSumExp")) ref[r] = logl(s) + m, nout = R;
    else if (!strcmp(o->op, "ReduceL2")) ref[r] = sqrtl(s2), nout = R;
    for (int j = 0; j < L && nout > R; j++) {
      ld v = xs[AT(r, j)];
      ref[AT(r, j)] = !strcmp(o->op, "Softmax") ? expl(v - m) / s
                      : !strcmp(o->op, "LogSoftmax") ? (v - m) - logl(s)
                      : (v - mean) / sqrtl(var + (ld)1e-5f);
    }
  }
  int64_t dims[2] = {o->axis0 ? L : R, o->axis0 ? R : L};
  ox_value *in[2] = {tensor(OX_FLOAT, 2, dims, xs), NULL}, *y = NULL;
  ox_attr at[2];
  int na = 0;
  int64_t ax = o->axis0 ? 0 : 1;
  if (!strcmp(o->op, "Softmax") || !strcmp(o->op, "LogSoftmax")) at[na++] = attr_int("axis", ax);
  else if (!strcmp(o->op, "LayerNormalization")) {
    static float ones[L];
    for (int j = 0; j < L; j++) ones[j] = 1;
    in[1] = vec(OX_FLOAT, L, ones);
  } else {
    at[na++] = attr_ints("axes", 1, &ax);
    at[na++] = attr_int("keepdims", 0);
  }
  CHECK_EQ_I(kit_run("", o->op, o->opset, na, at, in[1] ? 2 : 1, in, 1, &y), 0);
  double worst = 0;
  for (int i = 0; y && i < nout; i++) {
    double e = err32(((float *)y->u.t.data)[i], ref[i]);
    worst = e > worst ? e : worst;
  }
#undef AT
  ox_arena_release(A, mk);
  return worst;
}

static void fmt_err(char *s, size_t n, double e) {
  if (isinf(e)) snprintf(s, n, "inf");
  else if (e >= 1e4) snprintf(s, n, "%.2g", e);
  else snprintf(s, n, "%.3f", e);
}

int main(void) {
  A = ox_arena_new();
  const char *env = getenv("ONNXOP_ULP_N");
  int64_t n = env && atoll(env) > 200 ? atoll(env) : DEFAULT_N;
  env = getenv("ONNXOP_ULP_N64");
  int64_t n64 = env && atoll(env) > 200 ? atoll(env) : DEFAULT_N64;
  mpfr_inits2(PREC, T1, T2, T3, (mpfr_ptr)0);

  /* the references first: every primitive within 2^-6 ULP of a float64,
   * which is 32 ULPs of long double */
  printf("the references' primitives against MPFR (192 bits), ULPs of long double:\n");
  for (size_t i = 0; i < sizeof PRIMS / sizeof *PRIMS; i++) {
    double e = prim_err(&PRIMS[i], 4096);
    printf("  %-7s %.2f\n", PRIMS[i].name, e);
    if (!(e <= 32)) fprintf(stderr, "%s: %.2f ULPs of long double from MPFR\n", PRIMS[i].name, e);
    CHECK(e <= 32);
  }

  printf("\nThe largest error in ULPs (the bound): float32 over %lld inputs per op against long "
         "double, float64 over %lld against MPFR; float16 and bfloat16: of all 65536 inputs, "
         "the results not correctly rounded from the exact value\n\n",
         (long long)n, (long long)n64);
  printf("| op | float32 | float64 | float16 | bfloat16 |\n|---|---:|---:|---:|---:|\n");
  for (size_t k = 0; k < NOPS; k++) {
    const sweep_op *o = &OPS[k];
    char cell[2][96];
    for (int dt = F32; dt <= F64; dt++) {
      if (!takes(o, dt)) {
        cell[dt][0] = 0;
        continue;
      }
      result r = sweep(o, dt, dt == F64 ? n64 : n);
      char e[32];
      fmt_err(e, sizeof e, r.max);
      snprintf(cell[dt], sizeof cell[dt], "%s (%g)", e, o->bound[dt]);
      if (r.over) {
        char y[48] = "";
        if (o->ref2) snprintf(y, sizeof y, ", y = %.17g", r.at2);
        fprintf(stderr, "%s %s: %lld of %lld inputs past %g ULP; the worst, %s ULP: x = %.17g%s: "
                "got %.17g, want %.17g\n", o->label, DTN[dt], (long long)r.over, (long long)r.n,
                o->bound[dt], e, r.at, y, r.got, r.want);
      }
      CHECK_EQ_I(r.over, 0);
    }
    char c16[2][64];
    for (int dt = F16; dt <= BF16; dt++) {
      int64_t cr = 0, nin = 0;
      double bx = 0;
      int64_t bad = sweep16(o, dt, &cr, &nin, &bx);
      if (bad < 0) c16[dt - F16][0] = 0;
      else snprintf(c16[dt - F16], sizeof c16[0], "%lld", (long long)cr);
      if (bad > 0)
        fprintf(stderr, "%s %s: %lld inputs are not rounded from within 1 float32 ULP; the first: x = %.9g\n",
                o->label, DTN[dt], (long long)bad, bx);
      if (bad >= 0) CHECK_EQ_I(bad, 0);
    }
    printf("| %s | %s | %s | %s | %s |\n", o->label, cell[F32], cell[F64], c16[0], c16[1]);
    fflush(stdout);
  }
  printf("\nReductions and the softmax family over rows of 10^4 float32s (4 rows; N(0, 16) "
         "data, [0, 1) for the sums), against long double: max error in ULPs (bound)\n\n");
  printf("| op | float32 |\n|---|---:|\n");
  for (size_t k = 0; k < sizeof ROWS / sizeof *ROWS; k++) {
    double e = rows_check(&ROWS[k]);
    char c[32];
    fmt_err(c, sizeof c, e);
    printf("| %s | %s (%g) |\n", ROWS[k].label, c, ROWS[k].bound);
    if (!(e <= ROWS[k].bound)) fprintf(stderr, "%s: %s ULP, past its bound %g\n", ROWS[k].label, c, ROWS[k].bound);
    CHECK(e <= ROWS[k].bound);
  }
  mpfr_clears(T1, T2, T3, (mpfr_ptr)0);
  mpfr_free_cache();
  ox_arena_free(A);
  return check_done("ulp");
}
