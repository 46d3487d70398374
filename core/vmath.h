/* core/vmath.h: float32 math over arrays, 8 lanes of double at a time, each
 * result rounded once from a double within 2^-44 of the exact value, so within
 * 0.5 + 2^-20 ULP of float32 (nearly always the correctly rounded float):
 * what ops/unary.c (Sigmoid, Tanh, Swish, Gelu's tanh form, Mish,
 * HardSigmoid, HardSwish) and ops/rnn.c (the gates' sigmoid and tanh) run on
 * float. Built for SSE2, AVX2
 * and AVX-512 (core/vmath.c), one picked by the CPU; nothing fused, so every
 * build gives the same bits. Subnormal inputs and results, signed zeros,
 * infinities and NaN are the exact function's (NaN in, NaN out; and where
 * the definition gives inf * 0, as Swish, Mish and Gelu do at -inf, NaN).
 * y may be x; n may be 0. */
#ifndef OX_VMATH_H
#define OX_VMATH_H

#include <stdint.h>

/* 1 / (1 + e^-x) */
void ox_sigmoid_f32(const float *x, float *y, int64_t n);
/* tanh x */
void ox_tanh_f32(const float *x, float *y, int64_t n);
/* The same bits as ox_sigmoid_f32 and ox_tanh_f32 for every float (every
 * one of the 2^32 tested), quicker: on AVX-512 a table-driven e^x and fused
 * multiply-adds in double, and the exact path only for the rare 8 lanes
 * where a result is near a tie between two floats; on other CPUs those
 * functions. What ops/rnn.c's float gates run. */
void ox_sigmoid_fast_f32(const float *x, float *y, int64_t n);
void ox_tanh_fast_f32(const float *x, float *y, int64_t n);
/* x sigmoid(alpha x) (Swish; SiLU for alpha 1) */
void ox_swish_f32(const float *x, float *y, int64_t n, float alpha);
/* Gelu's tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed
 * as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)), which does not cancel */
void ox_gelu_tanh_f32(const float *x, float *y, int64_t n);
/* Mish: x tanh(ln(1 + e^x)), computed as x n / (n + 2) with n = e^x (e^x + 2) */
void ox_mish_f32(const float *x, float *y, int64_t n);
/* erf x: within 2^-47 of the exact value before the rounding to float */
void ox_erf_f32(const float *x, float *y, int64_t n);
/* Gelu (the erf form): 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2),
 * erfc in one piece where x < 0 (no cancellation); within 2^-42 */
void ox_gelu_erf_f32(const float *x, float *y, int64_t n);

/* HardSigmoid: max(0, min(1, alpha x + beta)), alpha x + beta rounded once */
void ox_hardsigmoid_f32(const float *x, float *y, int64_t n, float alpha, float beta);
/* HardSwish: x max(0, min(1, x / 6 + 1/2)) = x (x + 3) / 6 between -3 and 3 */
void ox_hardswish_f32(const float *x, float *y, int64_t n);

/* For tests: run no build above `level` (OX_CPU_GENERIC, _AVX2; -1 lifts the
 * limit), as ox_gemm_max_isa does for the GEMM. */
void ox_vmath_max_isa(int level);

#endif
