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

#define FN(name) name##_generic
#define TARGET
#include "core/vmath_body.h"
#if OX_X86_DISPATCH
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
  PICK(hardsigmoid, x, y, n, (double)alpha, (double)beta);
}
void ox_hardswish_f32(const float *x, float *y, int64_t n) { PICK(hardswish, x, y, n); }
