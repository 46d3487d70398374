/* core/vmath.c: float32 math over arrays in double lanes (core/vmath.h),
 * built for SSE2, AVX2 and AVX-512 from core/vmath_body.h; the CPU's best
 * picked at run time. One rounding per operation, nothing fused, so the
 * builds give the same bits. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"
#if OX_X86_DISPATCH
#include <immintrin.h>
#endif
#include "core/vmath.h"

#if defined(__clang__)
#pragma clang fp contract(off)
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi" /* 64-byte vectors in the inlined helpers */
#endif

typedef double vd __attribute__((vector_size(64)));
typedef int64_t vl __attribute__((vector_size(64)));
typedef float vf8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(32)));

/* m ? a : b lane by lane (m: a comparison's all-ones or zero lanes) */
#define vsel(m, a, b) ((vd)(((vl)(m) & (vl)(a)) | (~(vl)(m) & (vl)(b))))
#define vsplat(d) ((vd){0} + (d)) /* (not for -0.0: 0 + -0.0 is +0.0) */
#define vsign ((vl){0} + INT64_MIN)  /* the sign bits */
#define vabs(a) ((vd)((vl)(a) & ~vsign))
/* the same for 8 floats */
#define fsel(m, a, b) ((vf8)(((vi8)(m) & (vi8)(a)) | (~(vi8)(m) & (vi8)(b))))
#define fsplat(f) ((vf8){0} + (f))

/* erf and erfc (core/vmath_body.h's verf2 and verfcx), as core/vmath_fit.py
 * fits and prints them (Chebyshev, mpmath at 40 digits), with the largest
 * errors of their double evaluation: */
/* erf(a) / a in s = a^2, 0 <= a <= 2: t^17 first */
static const double ERF_SMALL[18] = {-0x1.09a15768d5d49p-56, 0x1.b1b0d8cc7927fp-51, -0x1.71a0410c5de70p-46, 0x1.c488090085b98p-42, -0x1.ca202de6efd68p-38, 0x1.9b62ceb2bfb32p-34, -0x1.5158146e02ac4p-30, 0x1.fca59caa93699p-27, -0x1.5f71236054ef6p-23, 0x1.b9e6591fd7f36p-20, -0x1.f4d2501b36aeep-17, 0x1.f9a32606db265p-14, -0x1.c02db3f2f59e7p-11, 0x1.565bcd0deecc7p-8, -0x1.b82ce312833dfp-6, 0x1.ce2f21a0429d7p-4, -0x1.812746b0379e2p-2, 0x1.20dd750429b6dp+0};
/* e^(a^2) erfc(a) a in u = 1/a, for 2 < a <= 4 and 4 < a <= 10.5: t^11 first */
static const double ERFC_TAB[12][2] = {
  {0x1.83147a94e6e4ep-1, -0x1.35958a34b2e31p+3},
  {-0x1.d90fdc4a174c9p+1, 0x1.6a67403f6a4aep+4},
  {0x1.05d888a1cd5bdp+3, -0x1.68404894e05d5p+4},
  {-0x1.5577640feccbfp+3, 0x1.6360cc95c6871p+3},
  {0x1.1924de43dcc26p+3, -0x1.a78f7919add3fp+0},
  {-0x1.15aff3995c9e1p+2, -0x1.959d5029eb478p-1},
  {0x1.ad0f10888e13cp-1, -0x1.feb22e921f41dp-6},
  {0x1.1721ec2b54d89p-2, 0x1.b405ca941d5e4p-2},
  {0x1.34181a2b276e5p-6, -0x1.524a740202046p-13},
  {-0x1.2275631e2ff45p-2, -0x1.20dbbae5e60e4p-2},
  {0x1.40d95f2b4b4b4p-14, -0x1.5d57b4d509facp-23},
  {0x1.20dd3ca74363ap-1, 0x1.20dd7513edd5ap-1},
};
/* erf rel 2^-50.5, 1 - erf rel 2^-42.8 on [0, 2]; erfc rel 2^-47.0 on [2, 4], 2^-47.0 on [4, 10.5] */

#define FN(name) name##_generic
#define TARGET
#include "core/vmath_body.h"
#if OX_X86_DISPATCH
/* alpha x + beta in float, fused (HardSigmoid) */
#define FMA8(a, b, c) ((vf8)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define FN(name) name##_avx2
#define TARGET OX_TARGET_AVX2
#include "core/vmath_body.h"
#define FN(name) name##_avx512
#define TARGET OX_TARGET_AVX512
/* gcc 12 makes four instructions of __builtin_convertvector's 8 floats to
 * 8 doubles here: vcvtps2pd's one */
#define TO_D(f) ((vd)_mm512_cvtps_pd((__m256)(f)))
#include "core/vmath_body.h"
#define PICK(fn, ...)                                                                 \
  (level() == OX_CPU_AVX512 ? fn##_avx512(__VA_ARGS__)                                \
   : level() == OX_CPU_AVX2 ? fn##_avx2(__VA_ARGS__)                                  \
                            : fn##_generic(__VA_ARGS__))
#else
#define PICK(fn, ...) fn##_generic(__VA_ARGS__)
#endif

/* The build to run: the CPU's best, within the limit a test sets. */
static int isa_limit = OX_CPU_AVX512;
void ox_vmath_max_isa(int level) {
  isa_limit = level < 0 || level > OX_CPU_AVX512 ? OX_CPU_AVX512 : level;
}
static int level(void) {
  int h = ox_cpu_level();
  return h < isa_limit ? h : isa_limit;
}

void ox_sigmoid_f32(const float *x, float *y, int64_t n) { PICK(sigmoid, x, y, n); }
void ox_tanh_f32(const float *x, float *y, int64_t n) { PICK(tanh, x, y, n); }
void ox_swish_f32(const float *x, float *y, int64_t n, float alpha) {
  PICK(swish, x, y, n, (double)alpha);
}
void ox_gelu_tanh_f32(const float *x, float *y, int64_t n) { PICK(gelu_tanh, x, y, n); }
void ox_mish_f32(const float *x, float *y, int64_t n) { PICK(mish, x, y, n); }
void ox_hardsigmoid_f32(const float *x, float *y, int64_t n, float alpha, float beta) {
  PICK(hardsigmoid, x, y, n, alpha, beta);
}
void ox_hardswish_f32(const float *x, float *y, int64_t n) { PICK(hardswish, x, y, n); }
void ox_erf_f32(const float *x, float *y, int64_t n) { PICK(erf, x, y, n); }
void ox_gelu_erf_f32(const float *x, float *y, int64_t n) { PICK(gelu, x, y, n); }
