/* core/cpu.h: which vector instructions the CPU runs, for the kernels that
 * are built several times (core/gemm.c, ops/reduce.c) and pick one build at
 * run time. */
#ifndef OX_CPU_H
#define OX_CPU_H

/* Levels, each including the ones below it. Off x86-64 only GENERIC. */
enum {
  OX_CPU_GENERIC, /* portable vector code: SSE2 on x86-64, NEON on ARM */
  OX_CPU_AVX2,    /* AVX2 and FMA */
  OX_CPU_AVX512   /* AVX-512F (with AVX2 and FMA) */
};

/* The highest level the CPU runs (read once, then cached; safe to call from
 * pool threads), or the environment variable ONNXOP_ISA's level when that is
 * lower: "generic", "avx2" or "avx512" (any other value caps nothing; the
 * command line refuses it). The cap runs the builds below the CPU's own on
 * it: tests of those builds, and a check that a result does not depend on
 * the build. Callers that cap it for tests (ox_gemm_max_isa) apply their
 * own cap. `const`: the answer never changes, so the compiler may read it once
 * per loop instead of calling it per row (ops/reduce.c picks a build per row). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((const))
#endif
int ox_cpu_level(void);

/* The level ONNXOP_ISA names (see ox_cpu_level), or -1 */
int ox_cpu_level_named(const char *name);

/* AVX-512 VNNI (8-bit dot products into 32-bit lanes, with AVX-512BW) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((const))
#endif
int ox_cpu_has_vnni(void);

/* For the code built once per level: OX_X86_DISPATCH is 1 where the AVX2
 * and AVX-512 builds exist (x86-64 with GCC or clang), and the function
 * attributes that make them. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OX_X86_DISPATCH 1
#define OX_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define OX_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#else
#define OX_X86_DISPATCH 0
#endif

#endif
