/* core/cpu.c: the CPU's vector level (see cpu.h). */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

int ox_cpu_level_named(const char *name) {
  static const char *const names[] = {"generic", "avx2", "avx512"}; /* OX_CPU_* in order */
  for (int i = 0; name && i < 3; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

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
    int cap = ox_cpu_level_named(getenv("ONNXOP_ISA"));
    if (cap >= 0 && cap < h) h = cap;
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

