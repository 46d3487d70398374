/* core/cpu.c: the CPU's vector level (see cpu.h). */
#include "cpu.h"

#include <string.h>

#include "dtype.h"

int ox_cpu_level(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  /* pool threads may ask at once: relaxed atomics (each computes the same value) */
  static int have = -1;
  int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
  if (h < 0) {
    __builtin_cpu_init();
    h = __builtin_cpu_supports("avx512f") ? OX_CPU_AVX512
        : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? OX_CPU_AVX2
                                                                         : OX_CPU_GENERIC;
    __atomic_store_n(&have, h, __ATOMIC_RELAXED);
  }
  return h;
#else
  return OX_CPU_GENERIC;
#endif
}

int ox_cpu_has_vnni(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static int have = -1;
  int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
  if (h < 0) {
    __builtin_cpu_init();
    h = ox_cpu_level() == OX_CPU_AVX512 && __builtin_cpu_supports("avx512vnni") &&
        __builtin_cpu_supports("avx512bw");
    __atomic_store_n(&have, h, __ATOMIC_RELAXED);
  }
  return h;
#else
  return 0;
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
static int has_f16c(void) {
  static int have = -1;
  int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
  if (h < 0) {
    /* F16C (CPUID 1, ECX bit 29), with AVX known usable (the AVX2 level);
     * clang's __builtin_cpu_supports does not know "f16c" */
    unsigned a, b, c, d;
    h = ox_cpu_level() >= OX_CPU_AVX2 && __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1);
    __atomic_store_n(&have, h, __ATOMIC_RELAXED);
  }
  return h;
}
__attribute__((target("avx,f16c"))) static int64_t f16_to_f32_f16c(const uint16_t *s, int64_t n, float *d) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + i))));
  return i;
}
__attribute__((target("avx,f16c"))) static int64_t f32_to_f16_f16c(const float *s, int64_t n, uint16_t *d) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i *)(void *)(d + i), _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
  return i;
}
#endif

/* The vector loops take 8 at a time; the last 1 to 7 go through an
 * 8-element buffer, so that no element takes the slow scalar route. */
void ox_f16_to_f32_row(const uint16_t *src, int64_t n, float *dst) {
  int64_t i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (has_f16c()) {
    i = f16_to_f32_f16c(src, n, dst);
    if (i < n) {
      uint16_t h[8] = {0};
      float f[8];
      memcpy(h, src + i, (size_t)(n - i) * sizeof *h);
      f16_to_f32_f16c(h, 8, f);
      memcpy(dst + i, f, (size_t)(n - i) * sizeof *f);
      return;
    }
  }
#endif
  for (; i < n; i++) dst[i] = ox_f16_to_f32(src[i]);
}

void ox_f32_to_f16_row(const float *src, int64_t n, uint16_t *dst) {
  int64_t i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (has_f16c()) {
    i = f32_to_f16_f16c(src, n, dst);
    if (i < n) {
      float f[8] = {0};
      uint16_t h[8];
      memcpy(f, src + i, (size_t)(n - i) * sizeof *f);
      f32_to_f16_f16c(f, 8, h);
      memcpy(dst + i, h, (size_t)(n - i) * sizeof *h);
      return;
    }
  }
#endif
  for (; i < n; i++) dst[i] = ox_f32_to_f16(src[i]);
}
