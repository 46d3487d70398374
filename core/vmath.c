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

/* erf and erfc (core/vmath_body.h's verf4, verf2 and verfcx), as
 * core/vmath_fit.py fits and prints them (Chebyshev, mpmath at 40 digits),
 * with the largest errors of their double evaluation: */
/* erf(a) / a in 16 pieces of [0, 4], piece m in u = 31/8 a - m, -1/2 <= u <= 1/2: u^9 first; erf rel 2^-47.8 */
static const double ERF_PIECES[10][16] __attribute__((aligned(64))) = {
  {0x1.a666666666666p-141, -0x1.34eac81b93c3dp-27, -0x1.261e4bd0e2139p-27, -0x1.a4e93c59894bcp-31, 0x1.637b971a1a69dp-28, 0x1.45fe4170c4c77p-28, 0x1.25b8a4df10354p-30, -0x1.79b72fb56a8d5p-30, -0x1.98b4970c8523ep-30, -0x1.5445e4093ccb7p-31, 0x1.197b20feb897ep-36, 0x1.9b26f9670b370p-33, 0x1.258ddc87a4f5dp-33, 0x1.f1125c5f300b7p-35, 0x1.0965db1cdeae6p-36, 0x1.18d3bda122d8dp-40},
  {0x1.b65c1b27fe7f6p-24, 0x1.e9aa82cc7775dp-25, -0x1.00faeecbeb97ap-25, -0x1.3ddc4dd58bc76p-24, -0x1.acca2ef9d946cp-25, -0x1.193d9e7c5d9c3p-30, 0x1.b72f7ca23622bp-26, 0x1.800638e504810p-26, 0x1.174159d729ddcp-27, -0x1.9934feb12dc78p-30, -0x1.0747356ac2f30p-28, -0x1.6bc2536e94c67p-29, -0x1.37dbc5272b8aap-30, -0x1.48f0b4b0b2f19p-32, -0x1.0aac8d9799ec8p-38, 0x1.e589fd97c811ep-35},
  {-0x1.c19999999999ap-142, 0x1.75845ca5bc036p-21, 0x1.ae0ce742171b1p-21, 0x1.66460012fe871p-22, -0x1.afcfe37dc6581p-23, -0x1.af4cbad175037p-22, -0x1.2bbec91dbad7fp-22, -0x1.3338b197d49e3p-24, 0x1.b5d0c6d0f385ep-25, 0x1.34381d5582bcep-24, 0x1.8e13ddbc55485p-25, 0x1.4c6126dbb95f3p-26, 0x1.3b570f1b3f55bp-28, -0x1.60801e2387f81p-31, -0x1.b3b7657211db2p-30, -0x1.62749c390906ep-30},
  {-0x1.0a444f8c43b4ap-17, -0x1.6297fbd9a22a9p-18, 0x1.8e78ac134c5bap-22, 0x1.316c3b6dde9e1p-18, 0x1.48a30db1df7e4p-18, 0x1.56ba566f118a0p-19, 0x1.8ab14d78b6032p-25, -0x1.38767629eb3e7p-20, -0x1.3979ae44b63fep-20, -0x1.742484cf49511p-21, -0x1.213b71972b97dp-22, -0x1.8584bb0909bc6p-25, 0x1.0cb1296787ba2p-25, 0x1.621e58b5a6dc6p-25, 0x1.13a6fe2554834p-25, 0x1.760829007bdd9p-26},
  {0x1.379999999999ap-144, -0x1.616f02b76fb82p-15, -0x1.e023f8f06beb7p-15, -0x1.564142b7f5f74p-15, -0x1.6241a55c6b303p-17, 0x1.a339b6e91461cp-17, 0x1.4cfac844eb565p-16, 0x1.08560f43a9f58p-16, 0x1.178cc69a03b3bp-17, 0x1.67a18963a3765p-19, -0x1.f421ac8f47520p-24, -0x1.03267419072bfp-20, -0x1.00ae1f987890bp-20, -0x1.82ef9ff726d32p-21, -0x1.0b2cb126fed8fp-21, -0x1.6a05a772b945ep-22},
  {0x1.06626d12d054bp-11, 0x1.974164667e2eep-12, 0x1.07701dc65bc41p-13, -0x1.10b1cdf097fcfp-13, -0x1.0fd26a34ab36ap-12, -0x1.047a9e8802e87p-12, -0x1.521ebb1fdc89ep-13, -0x1.2244d7d694586p-14, -0x1.2e6f564c18d81p-17, 0x1.2251b8df615cep-16, 0x1.7bf558de79d3bp-16, 0x1.453c877a20191p-16, 0x1.e2f7f513b7fdcp-17, 0x1.55871ec21fa20p-17, 0x1.e0392352f6225p-18, 0x1.55e79fb880517p-18},
  {-0x1.3666666666666p-148, 0x1.e4a34c3c0d3f5p-10, 0x1.7c60cfc1d01dep-9, 0x1.778e8531ca530p-9, 0x1.0ad3136031ca9p-9, 0x1.015dbaf5ae9adp-10, 0x1.3b6333a533ed0p-13, -0x1.3e26b4b58926ap-12, -0x1.d5100ec43d846p-12, -0x1.b9c63720fe2f1p-12, -0x1.6122c519c556fp-12, -0x1.078941b2f371fp-12, -0x1.8175cc90a2322p-13, -0x1.1b3bd01ab705bp-13, -0x1.a69f00ae575c5p-14, -0x1.40f9b83e7c859p-14},
  {-0x1.9a671ed5c2460p-6, -0x1.6b1c10b96c03ep-6, -0x1.e400b181fa0d3p-7, -0x1.802942a1aa6cap-8, 0x1.a868937b2ed2fp-10, 0x1.91f1e30e6a1bdp-8, 0x1.fb71a5f1483d1p-8, 0x1.e654adebefc05p-8, 0x1.9895d2191c9c3p-8, 0x1.417c49136e3e2p-8, 0x1.ed40c45d547e3p-9, 0x1.7a11af7b2f79ap-9, 0x1.252da95ef0205p-9, 0x1.ce1532fe4db40p-10, 0x1.72259749baf40p-10, 0x1.2cf93e37209cep-10},
  {0x1.5e66666666666p-154, -0x1.8a631eafe2257p-5, -0x1.5ea38ecd9da0fp-4, -0x1.b30ffb0945afbp-4, -0x1.c2b89daf78883p-4, -0x1.a0cb3c1bdec77p-4, -0x1.663fddb2c05d3p-4, -0x1.27364cd73c0e5p-4, -0x1.ddfb039fd405cp-5, -0x1.82d6057f20bcbp-5, -0x1.3c2c0b549c5d8p-5, -0x1.0610c7203c179p-5, -0x1.b8c73b9750b32p-6, -0x1.77a6422aae28bp-6, -0x1.43ea59c26e8e0p-6, -0x1.1a2b2264a2c03p-6},
  {0x1.20dd750429b6dp+0, 0x1.1a9421684b25ep+0, 0x1.0924260eb336dp+0, 0x1.e06954cc19144p-1, 0x1.a868ceb26c688p-1, 0x1.71ce01dd82caap-1, 0x1.413a893649c82p-1, 0x1.186a9818f6db4p-1, 0x1.ee43118e7dc5dp-2, 0x1.b8704c1a03416p-2, 0x1.8cb21e411e08ep-2, 0x1.68b4ae7a0a29cp-2, 0x1.4aa9a8e421c1cp-2, 0x1.313ae9df2d6f1p-2, 0x1.1b6db0dac7febp-2, 0x1.088887c5ac67bp-2},
};
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
/* 2^(j/16), j = 0 to 15, rounded (core/vmath_body.h's qexp) */
static const double EXP2_16[16] __attribute__((aligned(64))) = {
  0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
  0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
  0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
  0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0,
};

#define FN(name) name##_generic
#define TARGET
#define CMP_LANES 2
#include "core/vmath_body.h"
#if OX_X86_DISPATCH
/* alpha x + beta in float, fused (HardSigmoid) */
#define FMA8(a, b, c) ((vf8)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define FN(name) name##_avx2
#define TARGET OX_TARGET_AVX2
#define CMP_LANES 4
#include "core/vmath_body.h"
#define FN(name) name##_avx512
#define TARGET OX_TARGET_AVX512
/* gcc 12 makes four instructions of __builtin_convertvector's 8 floats to
 * 8 doubles here: vcvtps2pd's one */
#define TO_D(f) ((vd)_mm512_cvtps_pd((__m256)(f)))
/* tab[i[0] & 15], ..., tab[i[7] & 15]: one vpermt2pd */
#define PICK16(tab, i) ((vd)_mm512_permutex2var_pd(_mm512_load_pd(tab), (__m512i)(i), _mm512_load_pd((tab) + 8)))
#define QUICK /* the quick sigmoid and tanh: their table lookup is one instruction here */
#define QFMA(a, b, c) ((vd)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
#define QANY(m) (_mm512_test_epi64_mask((__m512i)(m), (__m512i)(m)) != 0)
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
#if OX_X86_DISPATCH
void ox_sigmoid_fast_f32(const float *x, float *y, int64_t n) {
  if (level() == OX_CPU_AVX512) sigmoid_fast_avx512(x, y, n);
  else ox_sigmoid_f32(x, y, n);
}
void ox_tanh_fast_f32(const float *x, float *y, int64_t n) {
  if (level() == OX_CPU_AVX512) tanh_fast_avx512(x, y, n);
  else ox_tanh_f32(x, y, n);
}
#else
void ox_sigmoid_fast_f32(const float *x, float *y, int64_t n) { ox_sigmoid_f32(x, y, n); }
void ox_tanh_fast_f32(const float *x, float *y, int64_t n) { ox_tanh_f32(x, y, n); }
#endif
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
