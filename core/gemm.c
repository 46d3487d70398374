/* core/gemm.c: blocked, packed GEMM for float and double (see gemm.h).
 *
 * The BLIS/GotoBLAS scheme: for each (KC x NC) block of op(B), packed into
 * NR-wide column slivers, and each (MC x KC) block of op(A), packed into
 * MR-tall row slivers, a micro-kernel keeps an (MR x NR) tile of C in
 * registers while it walks the K dimension of one A sliver and one B sliver:
 *
 *   pa: (MR, kc) sliver stored k-major, pa[k * MR + r] = op(A)(i + r, k)
 *   pb: (kc, NR) sliver stored k-major, pb[k * NR + j] = op(B)(k, j0 + j)
 *
 * Slivers are zero-padded to whole tiles, so the kernel has no edge cases in
 * its inner loop; partial tiles are written back through a small buffer.
 *
 * The code below the "template" line is written once and instantiated by
 * including this file into itself: float and double, each as a portable
 * build (16-byte vectors: SSE2 on x86-64, NEON on ARM), and on x86-64 also
 * as an AVX2+FMA build (32-byte vectors, 16 registers) and an AVX-512 build
 * (64-byte vectors, 32 registers): two instances, or six on x86-64, of which
 * the best the CPU has is picked at run time. Vector
 * extensions (`a[r] * b0` with b0 a vector) let GCC and clang pick the
 * instructions; fp-contract turns the multiply-adds into FMAs where the
 * target has them (the result may then differ from a plain loop by rounding,
 * as with every BLAS). */
#ifndef GEMM_T /* ---- the file proper ---- */

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "value.h"
#include "cpu.h"
#include "gemm.h"
#include "half.h"
#include "threads.h"

#if defined(__clang__)
#pragma clang fp contract(fast)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=fast")
#endif

typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef double v2d __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef double v8d __attribute__((vector_size(64)));


/* bytes of stack a small product packs its operands in (gemm's template) */
#define GEMM_SMALL 24576
/* bytes of pa a group of K blocks of a pre-packed product reads (packed's comment) */
#define PA_GROUP (2560 * 1024)
/* every instance's GEMM_KC, and the widest NR (float AVX-512's 48): the
 * block ox_sgemm_packed_h widens (the template checks them) */
#define H_KC 256
#define H_NR 48

/* 64-byte aligned scratch for n elements of `size` bytes; NULL if too big. */
static void *scratch(int64_t n, size_t size) {
  if (n <= 0 || (uint64_t)n > SIZE_MAX / 2 / size) return NULL;
  return ox_mem_scratch((size_t)n * size); /* counted against --max-memory; pooled */
}

/* The blocks: KC (k) fixes where the sums of an element restart from C,
 * so it is part of every result's bits and stays 256 everywhere; MC and NC
 * only say which tiles are computed together. A packed (KC x NC) panel of
 * B is meant to stay in L2 while every row block of A meets it: 384 KiB to
 * 768 KiB (with NC 1536, 1.5 MiB, an AVX-512 product of 3072 columns ran
 * at 60 GFLOP/s from L3 instead of 100 from L2). */

/* float, portable: 6 x 8 tile of 4-float vectors (12 accumulators) */
#define GEMM_T float
#define GEMM_I int32_t
#define GEMM_V v4f
#define GEMM_MR 6
#define GEMM_NV 2
#define GEMM_KC 256
#define GEMM_MC 96
#define GEMM_NC 512
#define GEMM_NAME(x) x##_s_generic
#define GEMM_TARGET
#include "gemm.c"

/* double, portable: 6 x 4 tile of 2-double vectors */
#define GEMM_T double
#define GEMM_I int64_t
#define GEMM_V v2d
#define GEMM_MR 6
#define GEMM_NV 2
#define GEMM_KC 256
#define GEMM_MC 72
#define GEMM_NC 256
#define GEMM_NAME(x) x##_d_generic
#define GEMM_TARGET
#include "gemm.c"

#if OX_X86_DISPATCH
/* float, AVX2+FMA: 6 x 16 tile of 8-float vectors (12 ymm accumulators) */
#define GEMM_T float
#define GEMM_I int32_t
#define GEMM_V v8f
#define GEMM_MR 6
#define GEMM_NV 2
#define GEMM_KC 256
#define GEMM_MC 120
#define GEMM_NC 768
#define GEMM_NAME(x) x##_s_avx2
#define GEMM_TARGET OX_TARGET_AVX2
#include "gemm.c"

/* double, AVX2+FMA: 6 x 8 tile of 4-double vectors */
#define GEMM_T double
#define GEMM_I int64_t
#define GEMM_V v4d
#define GEMM_MR 6
#define GEMM_NV 2
#define GEMM_KC 256
#define GEMM_MC 72
#define GEMM_NC 384
#define GEMM_NAME(x) x##_d_avx2
#define GEMM_TARGET OX_TARGET_AVX2
#include "gemm.c"

/* float, AVX-512: 8 x 48 tile of 16-float vectors (24 of the 32 zmm registers) */
#include <immintrin.h>
#define GEMM_H16 1 /* kernel_h: B read from a pb16 */
#define GEMM_T float
#define GEMM_I int32_t
#define GEMM_V v16f
#define GEMM_MR 8
#define GEMM_NV 3
#define GEMM_KC 256
#define GEMM_MC 128
#define GEMM_NC 384
#define GEMM_NAME(x) x##_s_avx512
#define GEMM_TARGET OX_TARGET_AVX512
#include "gemm.c"

/* double, AVX-512: 8 x 24 tile of 8-double vectors */
#define GEMM_T double
#define GEMM_I int64_t
#define GEMM_V v8d
#define GEMM_MR 8
#define GEMM_NV 3
#define GEMM_KC 256
#define GEMM_MC 64
#define GEMM_NC 384
#define GEMM_NAME(x) x##_d_avx512
#define GEMM_TARGET OX_TARGET_AVX512
#include "gemm.c"
#endif

/* ---- dispatch ---- */

static int isa_limit = OX_CPU_AVX512;

void ox_gemm_max_isa(int level) { isa_limit = level < 0 || level > OX_CPU_AVX512 ? OX_CPU_AVX512 : level; }

/* The best micro-kernel the CPU runs, within the limit. */
static int isa(void) {
  int h = ox_cpu_level();
  return h < isa_limit ? h : isa_limit;
}

const char *ox_gemm_isa(void) {
  static const char *names[] = {"generic", "avx2+fma", "avx512f"};
  return names[isa()];
}

/* The body of ox_sgemm and ox_dgemm: trivial shapes first, then the blocked
 * product, then (only if the packing buffers could not be allocated) a
 * plain loop. */
#define GEMM_ENTRY(T, SUF)                                                            \
  if (M <= 0 || N <= 0) return;                                                       \
  if (K <= 0) { /* C = beta * C */                                                    \
    for (int64_t i = 0; i < M; i++)                                                   \
      for (int64_t j = 0; j < N; j++)                                                 \
        C[i * ldc + j] = beta == 0 ? (T)0 : beta * C[i * ldc + j];                    \
    return;                                                                           \
  }                                                                                   \
  /* every size takes the blocked product (small ones pack on the stack), so \
   * an element's bits never depend on the product's size */                         \
  {                                                                                   \
    int level = isa();                                                                \
    if (level == OX_CPU_AVX512 &&                                                     \
        gemm_##SUF##_avx512(threads, M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta) == 0) \
      return;                                                                         \
    if (level == OX_CPU_AVX2 &&                                                       \
        gemm_##SUF##_avx2(threads, M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta) == 0) \
      return;                                                                         \
    if (gemm_##SUF##_generic(threads, M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta) == 0) \
      return;                                                                         \
  }                                                                                   \
  for (int64_t i = 0; i < M; i++)                                                     \
    for (int64_t j = 0; j < N; j++) {                                                 \
      T s = 0;                                                                        \
      for (int64_t k = 0; k < K; k++)                                                 \
        s += (transA ? A[k * lda + i] : A[i * lda + k]) *                             \
             (transB ? B[j * ldb + k] : B[k * ldb + j]);                              \
      T *c = &C[i * ldc + j];                                                         \
      *c = beta == 0 ? alpha * s : alpha * s + beta * *c;                             \
    }

#if !OX_X86_DISPATCH
#define gemm_s_avx2 gemm_s_generic
#define gemm_d_avx2 gemm_d_generic
#define gemm_s_avx512 gemm_s_generic
#define gemm_d_avx512 gemm_d_generic
#define pack_a_all_s_avx2 pack_a_all_s_generic
#define pack_a_all_s_avx512 pack_a_all_s_generic
#define packed_s_avx2 packed_s_generic
#define packed_s_avx512 packed_s_generic
#define pack_b_all_s_avx2 pack_b_all_s_generic
#define pack_b_all_s_avx512 pack_b_all_s_generic
#define pack_b_all_d_avx2 pack_b_all_d_generic
#define pack_b_all_d_avx512 pack_b_all_d_generic
#define pack_a_all_d_avx2 pack_a_all_d_generic
#define pack_a_all_d_avx512 pack_a_all_d_generic
#define packed_d_avx2 packed_d_generic
#define packed_d_avx512 packed_d_generic
#define kernel_s_avx2 kernel_s_generic
#define kernel_s_avx512 kernel_s_generic
#endif

void ox_sgemm(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int transA,
              const float *B, int64_t ldb, int transB, float *C, int64_t ldc, float alpha,
              float beta) {
  GEMM_ENTRY(float, s)
}

void ox_dgemm(int threads, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, int transA,
              const double *B, int64_t ldb, int transB, double *C, int64_t ldc, double alpha,
              double beta) {
  GEMM_ENTRY(double, d)
}

/* ---- pre-packed operands ---- */

ox_gemm_plan ox_sgemm_plan_now(void) {
  int level = isa();
  if (OX_X86_DISPATCH && level == OX_CPU_AVX512) return (ox_gemm_plan){level, 8, 48};
  if (OX_X86_DISPATCH && level == OX_CPU_AVX2) return (ox_gemm_plan){level, 6, 16};
  return (ox_gemm_plan){OX_CPU_GENERIC, 6, 8};
}

ox_gemm_plan ox_dgemm_plan_now(void) {
  int level = isa();
  if (OX_X86_DISPATCH && level == OX_CPU_AVX512) return (ox_gemm_plan){level, 8, 24};
  if (OX_X86_DISPATCH && level == OX_CPU_AVX2) return (ox_gemm_plan){level, 6, 8};
  return (ox_gemm_plan){OX_CPU_GENERIC, 6, 4};
}

#define PACKED_ENTRY(T, SUF)                                                          \
  void ox_##SUF##gemm_pack_a(const ox_gemm_plan *p, int64_t M, int64_t K, const T *A,    \
                             int64_t lda, int transA, T *pa) {                          \
    if (M <= 0 || K <= 0) return;                                                     \
    if (p->level == OX_CPU_AVX512) pack_a_all_##SUF##_avx512(M, K, A, lda, transA, pa);  \
    else if (p->level == OX_CPU_AVX2) pack_a_all_##SUF##_avx2(M, K, A, lda, transA, pa); \
    else pack_a_all_##SUF##_generic(M, K, A, lda, transA, pa);                        \
  }                                                                                   \
  void ox_##SUF##gemm_pack_b(const ox_gemm_plan *p, int64_t K, int64_t N, const T *B,    \
                             int64_t ldb, T *pb) {                                    \
    if (N <= 0 || K <= 0) return;                                                     \
    if (p->level == OX_CPU_AVX512) pack_b_all_##SUF##_avx512(K, N, B, ldb, 0, pb);      \
    else if (p->level == OX_CPU_AVX2) pack_b_all_##SUF##_avx2(K, N, B, ldb, 0, pb);     \
    else pack_b_all_##SUF##_generic(K, N, B, ldb, 0, pb);                             \
  }                                                                                   \
  void ox_##SUF##gemm_pack_bt(const ox_gemm_plan *p, int64_t K, int64_t N, const T *B,   \
                              int64_t ldb, T *pb) {                                   \
    if (N <= 0 || K <= 0) return;                                                     \
    if (p->level == OX_CPU_AVX512) pack_b_all_##SUF##_avx512(K, N, B, ldb, 1, pb);      \
    else if (p->level == OX_CPU_AVX2) pack_b_all_##SUF##_avx2(K, N, B, ldb, 1, pb);     \
    else pack_b_all_##SUF##_generic(K, N, B, ldb, 1, pb);                             \
  }                                                                                   \
  void ox_##SUF##gemm_packed(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K,     \
                             const T *pa, const T *pb, T *C, int64_t ldc, T beta) {    \
    if (M <= 0 || N <= 0) return;                                                     \
    if (K <= 0) {                                                                     \
      for (int64_t i = 0; i < M; i++)                                                 \
        for (int64_t j = 0; j < N; j++) C[i * ldc + j] = beta == 0 ? 0 : beta * C[i * ldc + j]; \
      return;                                                                         \
    }                                                                                 \
    if (p->level == OX_CPU_AVX512) packed_##SUF##_avx512(M, N, K, pa, pb, C, ldc, beta); \
    else if (p->level == OX_CPU_AVX2) packed_##SUF##_avx2(M, N, K, pa, pb, C, ldc, beta); \
    else packed_##SUF##_generic(M, N, K, pa, pb, C, ldc, beta);                       \
  }
PACKED_ENTRY(float, s)
PACKED_ENTRY(double, d)
#undef PACKED_ENTRY

/* Rows [k0, k1) of B (K, N), elements of es bytes, into their places in pb:
 * pb[(s * K + k) * nr + j] = B(k, s * nr + j), columns past N zero (gemm.h's
 * layout, as ox_sgemm_pack_b writes it whole); B holds those rows only,
 * B[(k - k0) * ldb + j]. A copy of the bits: any ISA's pb is this one, and
 * pb16 is pb's layout at 2 bytes an element. */
void ox_gemm_pack_b_rows(const ox_gemm_plan *p, int64_t K, int64_t N, int64_t k0, int64_t k1, const void *B,
                         int64_t ldb, size_t es, void *pb) {
  const char *src = B;
  char *dst0 = pb;
  int64_t nr = p->nr;
  for (int64_t k = k0; k < k1; k++, src += (size_t)ldb * es)
    for (int64_t j0 = 0; j0 < N; j0 += nr) {
      char *dst = dst0 + (size_t)((j0 / nr) * K + k) * (size_t)nr * es;
      int64_t w = N - j0 < nr ? N - j0 : nr;
      memcpy(dst, src + (size_t)j0 * es, (size_t)w * es);
      if (w < nr) memset(dst + (size_t)w * es, 0, (size_t)(nr - w) * es);
    }
}

/* ---- float16 and bfloat16 pre-packed B (see gemm.h) ---- */

#if OX_X86_DISPATCH
#include <immintrin.h>
/* n a multiple of 16: vcvtph2ps (AVX-512F), or bfloat16's bits moved up */
__attribute__((target("avx512f"))) static void widen_avx512(unsigned kind, const uint16_t *h, float *f, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(h + i));
    __m512 v = kind & OX_PB16_BF16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(x), 16))
                                   : _mm512_cvtph_ps(x);
    _mm512_storeu_ps(f + i, v);
  }
}
#endif

/* Without NaN, a float16 or bfloat16 widens to a float by the conversion
 * alone (subnormals included: vcvtph2ps ignores DAZ), the values of
 * core/half.h's functions, which also fix up NaN */
void ox_pb16_widen(unsigned kind, const uint16_t *h, float *f, int64_t n) {
#if OX_X86_DISPATCH
  if (kind & OX_PB16_NONAN && n % 16 == 0 && ox_cpu_level() >= OX_CPU_AVX512) {
    widen_avx512(kind, h, f, n);
    return;
  }
#endif
  if (kind & OX_PB16_BF16) ox_bf16_to_f32_n(h, f, n);
  else ox_f16_to_f32_n(h, f, n);
}

/* the float micro-kernels, as `packed` calls them */
typedef void (*s_kernel_fn)(int64_t kc, const float *restrict pa, const float *restrict pb, float *c,
                            int64_t ldc, int64_t mr, int64_t nr, const float *ab);

/* `packed`'s loops (its groups of K blocks, slivers, blocks and rows, the
 * same kernel calls) with each (kc x nr) block of a sliver of pb16 widened
 * into wb once: by the first row sliver's kernel as it reads the block
 * (kernel_h: AVX-512, no NaN), else before the row slivers
 * meet it. Widening is exact: the kernel reads the values it reads from a
 * float pb. The next block in memory is asked for into L2 meanwhile, a
 * part per row sliver: a B read once from memory in 2-byte elements
 * (BERT's float16 run, one core: 241 -> 236 ms with widening first). */
void ox_sgemm_packed_h(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const float *pa,
                       const uint16_t *pb16, unsigned kind, float *C, int64_t ldc, float beta) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) C[i * ldc + j] = beta == 0 ? 0 : beta * C[i * ldc + j];
    return;
  }
  s_kernel_fn kern = p->level == OX_CPU_AVX512 ? kernel_s_avx512 : p->level == OX_CPU_AVX2 ? kernel_s_avx2
                                                                                           : kernel_s_generic;
  int64_t MR = p->mr, NR = p->nr;
  float wb[H_KC * H_NR] __attribute__((aligned(64))); /* one block of a sliver, widened: (kc, NR) */
  int64_t kg = ox_max64(1, PA_GROUP / (ox_round_up(M, MR) * H_KC * (int64_t)sizeof(float))) * H_KC;
  int64_t nrow = (M + MR - 1) / MR, end = (N + NR - 1) / NR * NR * K; /* pb16's elements */
  for (int64_t pg = 0; pg < K; pg += kg)
    for (int64_t j = 0; j < N; j += NR)
      for (int64_t pc = pg; pc < K && pc < pg + kg; pc += H_KC) {
        int64_t kc = ox_min64(H_KC, K - pc), nr = ox_min64(NR, N - j);
        int64_t at = j * K + pc * NR; /* the block (kc, NR), contiguous */
        /* AVX-512, no NaN in pb16: the first row sliver's kernel
         * widens the block as it reads it (its conversions beside the
         * multiply-adds); else widened first */
        int fused = OX_X86_DISPATCH && p->level == OX_CPU_AVX512 && kind & OX_PB16_NONAN && nr > 4;
        if (!fused) ox_pb16_widen(kind, pb16 + at, wb, kc * NR);
        /* the next block in memory (the next one widened, but at a
         * group's end), asked for into L2 a part per row sliver */
        int64_t next = at + kc * NR, lines = ox_min64(kc * NR, end - next) * 2 / 64;
        float ab[2] = {1, pc == 0 ? beta : 1};
        for (int64_t i = 0, q = 0; i < M; i += MR, q++) {
          int64_t mr = ox_min64(MR, M - i);
          for (int64_t l = lines * q / nrow; l < lines * (q + 1) / nrow; l++)
            __builtin_prefetch(pb16 + next + l * 32, 0, 2);
          if (kc >= 64 && pc == pg) /* as `packed` */
            for (int64_t r = 0; r < mr; r++)
              for (int64_t l = 0; l < nr; l += 16) __builtin_prefetch(C + (i + r) * ldc + j + l, 1, 2);
#if OX_X86_DISPATCH
          if (fused && i == 0) {
            kernel_h_s_avx512(kc, pa + (i * K + pc * MR), pb16 + at, kind & OX_PB16_BF16, nrow > 1 ? wb : NULL,
                              C + i * ldc + j, ldc, mr, nr, ab);
            continue;
          }
#endif
          kern(kc, pa + (i * K + pc * MR), wb, C + i * ldc + j, ldc, mr, nr, ab);
        }
      }
}

/* ---- 8-bit products (see gemm.h) ----
 * Packed k-groups of 4 bytes: pa[((s * K4 + g) * mr + r) * 4 + q] =
 * A(s * mr + r, 4 g + q), pb[((s * K4 + g) * nr + j) * 4 + q] =
 * B(4 g + q, s * nr + j), zero past M, N and K. One step of the kernel
 * takes a group: with AVX-512 VNNI, vpdpbusd multiplies 4 unsigned bytes by
 * 4 signed ones and adds the 4 products to a 32-bit lane, for 16 columns at
 * once (a row's group broadcast against a vector of 16 columns' groups).
 * Sums wrap modulo 2^32, as the portable kernel's unsigned arithmetic does,
 * so both give the same bytes. */

#define I8_MR 8
#define I8_NV 3
#define I8_NR (I8_NV * 16)

ox_gemm_plan ox_i8gemm_plan_now(void) {
  if (OX_X86_DISPATCH && isa() == OX_CPU_AVX512 && ox_cpu_has_vnni())
    return (ox_gemm_plan){OX_CPU_AVX512, I8_MR, I8_NR};
  return (ox_gemm_plan){OX_CPU_GENERIC, I8_MR, 16};
}

/* a's or b's byte as the number it stands for */
static inline int32_t i8_val(uint8_t v, int is_signed) { return is_signed ? (int32_t)(int8_t)v : (int32_t)v; }

void ox_i8gemm_pack_a(const ox_gemm_plan *p, int64_t M, int64_t K, const uint8_t *A, int64_t lda,
                      uint8_t flip, int a_signed, uint8_t *pa, int32_t *rowsum) {
  int64_t mr = p->mr, K4 = (K + 3) / 4, Kw = K / 4; /* Kw: whole groups */
  uint32_t flip4 = flip * UINT32_C(0x01010101);
  for (int64_t s = 0; s * mr < M; s++)
    for (int64_t r = 0; r < mr; r++) {
      int64_t i = s * mr + r;
      uint8_t *d = pa + (s * K4 * mr + r) * 4; /* group g at d + g * mr * 4 */
      if (i >= M) {
        for (int64_t g = 0; g < K4; g++) memset(d + g * mr * 4, 0, 4);
        continue;
      }
      const uint8_t *src = A + i * lda;
      for (int64_t g = 0; g < Kw; g++) { /* 4 bytes at a time */
        uint32_t w;
        memcpy(&w, src + 4 * g, 4);
        w ^= flip4;
        memcpy(d + g * mr * 4, &w, 4);
      }
      for (int64_t k = 4 * Kw; k < 4 * K4; k++)
        d[(k / 4) * mr * 4 + k % 4] = k < K ? (uint8_t)(src[k] ^ flip) : 0;
      if (rowsum) {
        uint32_t sum = 0;
        if (a_signed)
          for (int64_t k = 0; k < K; k++) sum += (uint32_t)(int32_t)(int8_t)(src[k] ^ flip);
        else
          for (int64_t k = 0; k < K; k++) sum += (uint32_t)(uint8_t)(src[k] ^ flip);
        rowsum[i] = (int32_t)sum;
      }
    }
}
#if OX_X86_DISPATCH
#include <immintrin.h>
#define OX_TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx2,fma")))
static int i8_pack_b_vnni(int64_t K, int64_t N, const uint8_t *B, int64_t ldb, uint8_t flip, int b_signed,
                          uint8_t *pb, int32_t *colsum);
#endif
void ox_i8gemm_pack_b(const ox_gemm_plan *p, int64_t K, int64_t N, const uint8_t *B, int64_t ldb,
                      uint8_t flip, int b_signed, uint8_t *pb, int32_t *colsum) {
  int64_t nr = p->nr, K4 = (K + 3) / 4, s0 = 0;
#if OX_X86_DISPATCH
  /* whole slivers by vector; the rest below */
  if (p->level == OX_CPU_AVX512 && N >= I8_NR) {
    int64_t whole = N / I8_NR;
    i8_pack_b_vnni(K, whole * I8_NR, B, ldb, flip, b_signed, pb, colsum);
    s0 = whole;
  }
#endif
  for (int64_t s = s0; s * nr < N; s++) {
    int64_t n = ox_min64(nr, N - s * nr);
    uint8_t *d = pb + s * K4 * nr * 4;
    for (int64_t g = 0; g < K4; g++)
      for (int64_t j = 0; j < nr; j++)
        for (int q = 0; q < 4; q++) {
          int64_t k = 4 * g + q;
          d[(g * nr + j) * 4 + q] = j < n && k < K ? (uint8_t)(B[k * ldb + s * nr + j] ^ flip) : 0;
        }
    if (colsum)
      for (int64_t j = 0; j < n; j++) {
        uint32_t sum = 0;
        for (int64_t k = 0; k < K; k++) sum += (uint32_t)i8_val((uint8_t)(B[k * ldb + s * nr + j] ^ flip), b_signed);
        colsum[s * nr + j] = (int32_t)sum;
      }
  }
}

/* ox_i8gemm_zp's pointers moved to one tile's first row and column */
typedef struct {
  const int32_t *rs, *bz, *ct;
} i8_ep;

/* c (mr, nr) = the product of one sliver of pa and one of pb over K4
 * groups, plus the zero-point terms of ep (NULL: none) */
static void i8_kernel_generic(int64_t K4, const uint8_t *pa, int64_t ars, int64_t ags, const uint8_t *pb,
                              int32_t *c, int64_t ldc, int64_t mr, int64_t nr, int64_t NR, int a_signed,
                              const i8_ep *ep) {
  for (int64_t r = 0; r < mr; r++)
    for (int64_t j = 0; j < nr; j++) {
      uint32_t sum = 0;
      for (int64_t g = 0; g < K4; g++)
        for (int q = 0; q < 4; q++)
          sum += (uint32_t)(i8_val(pa[g * ags + r * ars + q], a_signed) *
                            i8_val(pb[(g * NR + j) * 4 + q], !a_signed));
      if (ep && ep->ct) sum += (uint32_t)ep->ct[j];
      if (ep && ep->rs) sum -= (uint32_t)ep->rs[r] * (uint32_t)ep->bz[j];
      c[r * ldc + j] = (int32_t)sum;
    }
}

#if OX_X86_DISPATCH
/* ox_i8gemm_pack_b of whole slivers (the bytes as stored, after the XOR
 * with flip): 4 rows of 16 columns interleaved into 64 bytes by two rounds
 * of unpacking, and the column sums by vpdpbusd against ones (unsigned
 * ones times the signed bytes, or the unsigned bytes times signed ones).
 * Rows past K are zero (not flipped). */
OX_TARGET_VNNI static int i8_pack_b_vnni(int64_t K, int64_t N, const uint8_t *B, int64_t ldb, uint8_t flip,
                                         int b_signed, uint8_t *pb, int32_t *colsum) {
  static const uint8_t zero[64];
  int64_t K4 = (K + 3) / 4;
  const __m512i ones = _mm512_set1_epi8(1);
  for (int64_t s = 0; s * I8_NR < N; s++) {
    __m512i sum[I8_NV];
    for (int v = 0; v < I8_NV; v++) sum[v] = _mm512_setzero_si512();
    uint8_t *d = pb + s * K4 * I8_NR * 4;
    for (int64_t g = 0; g < K4; g++, d += I8_NR * 4) {
      const uint8_t *r[4];
      __m128i f[4];
      for (int q = 0; q < 4; q++) {
        int in = 4 * g + q < K;
        r[q] = in ? B + (4 * g + q) * ldb + s * I8_NR : zero;
        f[q] = _mm_set1_epi8((char)(in ? flip : 0));
      }
      for (int v = 0; v < I8_NV; v++) {
        __m128i a0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(r[0] + 16 * v)), f[0]);
        __m128i a1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(r[1] + 16 * v)), f[1]);
        __m128i a2 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(r[2] + 16 * v)), f[2]);
        __m128i a3 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(r[3] + 16 * v)), f[3]);
        __m128i t0 = _mm_unpacklo_epi8(a0, a1), t1 = _mm_unpackhi_epi8(a0, a1);
        __m128i t2 = _mm_unpacklo_epi8(a2, a3), t3 = _mm_unpackhi_epi8(a2, a3);
        __m256i lo = _mm256_set_m128i(_mm_unpackhi_epi16(t0, t2), _mm_unpacklo_epi16(t0, t2));
        __m256i hi = _mm256_set_m128i(_mm_unpackhi_epi16(t1, t3), _mm_unpacklo_epi16(t1, t3));
        __m512i x = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
        _mm512_store_si512((void *)(d + 64 * v), x);
        if (colsum) sum[v] = b_signed ? _mm512_dpbusd_epi32(sum[v], ones, x) : _mm512_dpbusd_epi32(sum[v], x, ones);
      }
    }
    if (colsum)
      for (int v = 0; v < I8_NV; v++) _mm512_storeu_si512((void *)(colsum + s * I8_NR + 16 * v), sum[v]);
  }
  return 0;
}

/* nvx vectors of 16 columns; a_signed: pa holds the signed bytes (the
 * broadcast operand) and pb the unsigned ones, else the other way round.
 * Row r's group g of A at pa + r * ars + g * ags: (4, 4 * I8_MR) packed,
 * (lda, 4) read in place. */
static inline __attribute__((always_inline)) OX_TARGET_VNNI void i8_kernel_body(
    const int nvx, const int a_signed, int64_t K4, const uint8_t *pa, const int64_t ars, const int64_t ags,
    const uint8_t *pb, int32_t *c, int64_t ldc, int64_t mr, int64_t nr, const i8_ep *ep) {
  __m512i acc[I8_MR][I8_NV];
#pragma GCC unroll 8
  for (int r = 0; r < I8_MR; r++)
#pragma GCC unroll 3
    for (int v = 0; v < nvx; v++) acc[r][v] = _mm512_setzero_si512();
  for (int64_t g = 0; g < K4; g++, pa += ags, pb += I8_NR * 4) {
    __m512i b[I8_NV];
#pragma GCC unroll 3
    for (int v = 0; v < nvx; v++) b[v] = _mm512_load_si512((const void *)(pb + v * 64));
#pragma GCC unroll 8
    for (int r = 0; r < I8_MR; r++) {
      int32_t w;
      memcpy(&w, pa + r * ars, 4);
      __m512i a = _mm512_set1_epi32(w);
#pragma GCC unroll 3
      for (int v = 0; v < nvx; v++)
        acc[r][v] = a_signed ? _mm512_dpbusd_epi32(acc[r][v], b[v], a) : _mm512_dpbusd_epi32(acc[r][v], a, b[v]);
    }
  }
  if (ep)
    for (int v = 0; v < nvx; v++) {
      __m512i ct = ep->ct ? _mm512_loadu_si512((const void *)(ep->ct + v * 16)) : _mm512_setzero_si512();
      __m512i bz = ep->rs ? _mm512_loadu_si512((const void *)(ep->bz + v * 16)) : _mm512_setzero_si512();
      for (int r = 0; r < I8_MR; r++) {
        acc[r][v] = _mm512_add_epi32(acc[r][v], ct);
        if (ep->rs) acc[r][v] = _mm512_sub_epi32(acc[r][v], _mm512_mullo_epi32(_mm512_set1_epi32(ep->rs[r]), bz));
      }
    }
  if (mr == I8_MR && nr == nvx * 16) {
#pragma GCC unroll 8
    for (int r = 0; r < I8_MR; r++)
#pragma GCC unroll 3
      for (int v = 0; v < nvx; v++) _mm512_storeu_si512((void *)(c + r * ldc + v * 16), acc[r][v]);
    return;
  }
  int32_t tile[I8_MR][I8_NR] __attribute__((aligned(64)));
  for (int r = 0; r < I8_MR; r++)
    for (int v = 0; v < nvx; v++) _mm512_store_si512((void *)&tile[r][v * 16], acc[r][v]);
  for (int64_t r = 0; r < mr; r++) memcpy(c + r * ldc, tile[r], (size_t)nr * 4);
}

/* The whole 8 x 48 tile with its 24 accumulators as named variables, not
 * an array: GCC then keeps them in registers instead of copying each one
 * twice per step (a third of the speed). The same vpdpbusd per lane as
 * i8_kernel_body, so the same sums. */
#define I8_Z3(r) __m512i c##r##0 = _mm512_setzero_si512(), c##r##1 = c##r##0, c##r##2 = c##r##0;
#define I8_ROW3(r, SIGNED)                                                            \
  {                                                                                   \
    int32_t w_;                                                                       \
    memcpy(&w_, pa + (r) * ars, 4);                                                   \
    __m512i a_ = _mm512_set1_epi32(w_);                                               \
    if (SIGNED) {                                                                     \
      c##r##0 = _mm512_dpbusd_epi32(c##r##0, b0, a_);                                 \
      c##r##1 = _mm512_dpbusd_epi32(c##r##1, b1, a_);                                 \
      c##r##2 = _mm512_dpbusd_epi32(c##r##2, b2, a_);                                 \
    } else {                                                                          \
      c##r##0 = _mm512_dpbusd_epi32(c##r##0, a_, b0);                                 \
      c##r##1 = _mm512_dpbusd_epi32(c##r##1, a_, b1);                                 \
      c##r##2 = _mm512_dpbusd_epi32(c##r##2, a_, b2);                                 \
    }                                                                                 \
  }
#define I8_EP3(r)                                                                     \
  c##r##0 = _mm512_add_epi32(c##r##0, t0);                                            \
  c##r##1 = _mm512_add_epi32(c##r##1, t1);                                            \
  c##r##2 = _mm512_add_epi32(c##r##2, t2);                                            \
  if (ep->rs) {                                                                       \
    __m512i s_ = _mm512_set1_epi32(ep->rs[r]);                                        \
    c##r##0 = _mm512_sub_epi32(c##r##0, _mm512_mullo_epi32(s_, z0));                 \
    c##r##1 = _mm512_sub_epi32(c##r##1, _mm512_mullo_epi32(s_, z1));                 \
    c##r##2 = _mm512_sub_epi32(c##r##2, _mm512_mullo_epi32(s_, z2));                 \
  }
#define I8_PUT3(r)                                                                    \
  _mm512_storeu_si512((void *)(d + (r) * ld), c##r##0);                               \
  _mm512_storeu_si512((void *)(d + (r) * ld + 16), c##r##1);                          \
  _mm512_storeu_si512((void *)(d + (r) * ld + 32), c##r##2);
static inline __attribute__((always_inline)) OX_TARGET_VNNI void i8_kernel_full(
    const int a_signed, int64_t K4, const uint8_t *pa, const int64_t ars, const int64_t ags, const uint8_t *pb,
    int32_t *c, int64_t ldc, int64_t mr, int64_t nr, const i8_ep *ep) {
  I8_Z3(0) I8_Z3(1) I8_Z3(2) I8_Z3(3) I8_Z3(4) I8_Z3(5) I8_Z3(6) I8_Z3(7)
  for (int64_t g = 0; g < K4; g++, pa += ags, pb += I8_NR * 4) {
    __m512i b0 = _mm512_load_si512((const void *)pb), b1 = _mm512_load_si512((const void *)(pb + 64));
    __m512i b2 = _mm512_load_si512((const void *)(pb + 128));
    I8_ROW3(0, a_signed) I8_ROW3(1, a_signed) I8_ROW3(2, a_signed) I8_ROW3(3, a_signed)
    I8_ROW3(4, a_signed) I8_ROW3(5, a_signed) I8_ROW3(6, a_signed) I8_ROW3(7, a_signed)
  }
  if (ep) { /* the zero-point terms, on the registers */
    __m512i t0 = _mm512_setzero_si512(), t1 = t0, t2 = t0, z0 = t0, z1 = t0, z2 = t0;
    if (ep->ct) {
      t0 = _mm512_loadu_si512((const void *)ep->ct);
      t1 = _mm512_loadu_si512((const void *)(ep->ct + 16));
      t2 = _mm512_loadu_si512((const void *)(ep->ct + 32));
    }
    if (ep->rs) {
      z0 = _mm512_loadu_si512((const void *)ep->bz);
      z1 = _mm512_loadu_si512((const void *)(ep->bz + 16));
      z2 = _mm512_loadu_si512((const void *)(ep->bz + 32));
    }
    I8_EP3(0) I8_EP3(1) I8_EP3(2) I8_EP3(3) I8_EP3(4) I8_EP3(5) I8_EP3(6) I8_EP3(7)
  }
  int32_t tile[I8_MR][I8_NR] __attribute__((aligned(64)));
  int full = mr == I8_MR && nr == I8_NR;
  int32_t *d = full ? c : &tile[0][0];
  int64_t ld = full ? ldc : I8_NR;
  I8_PUT3(0) I8_PUT3(1) I8_PUT3(2) I8_PUT3(3) I8_PUT3(4) I8_PUT3(5) I8_PUT3(6) I8_PUT3(7)
  if (!full)
    for (int64_t r = 0; r < mr; r++) memcpy(c + r * ldc, tile[r], (size_t)nr * 4);
}
#undef I8_Z3
#undef I8_EP3
#undef I8_ROW3
#undef I8_PUT3

/* A packed (lda 0) or read in place (its row stride lda) */
OX_TARGET_VNNI static void i8_kernel_vnni(int64_t K4, const uint8_t *pa, int64_t lda, const uint8_t *pb,
                                          int32_t *c, int64_t ldc, int64_t mr, int64_t nr, int a_signed,
                                          const i8_ep *ep) {
#define I8_KERNELS(ARS, AGS)                                                                       \
  if (a_signed) {                                                                                  \
    if (nr <= 16) i8_kernel_body(1, 1, K4, pa, ARS, AGS, pb, c, ldc, mr, nr, ep);                  \
    else if (nr <= 32) i8_kernel_body(2, 1, K4, pa, ARS, AGS, pb, c, ldc, mr, nr, ep);             \
    else i8_kernel_full(1, K4, pa, ARS, AGS, pb, c, ldc, mr, nr, ep);                              \
  } else {                                                                                         \
    if (nr <= 16) i8_kernel_body(1, 0, K4, pa, ARS, AGS, pb, c, ldc, mr, nr, ep);                  \
    else if (nr <= 32) i8_kernel_body(2, 0, K4, pa, ARS, AGS, pb, c, ldc, mr, nr, ep);             \
    else i8_kernel_full(0, K4, pa, ARS, AGS, pb, c, ldc, mr, nr, ep);                              \
  }
  if (!lda) {
    I8_KERNELS(4, 4 * I8_MR)
  } else {
    I8_KERNELS(lda, 4)
  }
#undef I8_KERNELS
}
#endif

/* A packed (lda 0), or read in place (lda its row stride; M >= mr: the
 * last tile of rows moves up to end at row M, computing some rows twice,
 * the same bytes) */
static void i8_product(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const uint8_t *pa, int64_t lda,
                       const uint8_t *pb, int a_signed, int32_t *C, int64_t ldc, const ox_i8gemm_zp *zp) {
  int64_t mr = p->mr, nr = p->nr, K4 = (K + 3) / 4;
  int any = zp && (zp->rowsum || zp->colterm);
  for (int64_t j = 0; j < N; j += nr)
    for (int64_t i0 = 0; i0 < M; i0 += mr) {
      int64_t i = lda && i0 + mr > M ? M - mr : i0;
      const uint8_t *a = lda ? pa + i * lda : pa + i * K4 * 4, *b = pb + j * K4 * 4;
      int32_t *c = C + i * ldc + j;
      i8_ep ep = {NULL, NULL, NULL};
      if (any) {
        if (zp->rowsum) ep.rs = zp->rowsum + i, ep.bz = zp->bz + j;
        if (zp->colterm) ep.ct = zp->colterm + j;
      }
#if OX_X86_DISPATCH
      if (p->level == OX_CPU_AVX512) {
        i8_kernel_vnni(K4, a, lda, b, c, ldc, ox_min64(mr, M - i), ox_min64(nr, N - j), a_signed,
                       any ? &ep : NULL);
        continue;
      }
#endif
      i8_kernel_generic(K4, a, lda ? lda : 4, lda ? 4 : 4 * I8_MR, b, c, ldc, ox_min64(mr, M - i),
                        ox_min64(nr, N - j), nr, a_signed, any ? &ep : NULL);
    }
}

void ox_i8gemm_packed_zp(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const uint8_t *pa,
                         const uint8_t *pb, int a_signed, int32_t *C, int64_t ldc, const ox_i8gemm_zp *zp) {
  i8_product(p, M, N, K, pa, 0, pb, a_signed, C, ldc, zp);
}

void ox_i8gemm_rows_zp(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const uint8_t *A, int64_t lda,
                       const uint8_t *pb, int a_signed, int32_t *C, int64_t ldc, const ox_i8gemm_zp *zp) {
  i8_product(p, M, N, K, A, lda, pb, a_signed, C, ldc, zp);
}

void ox_i8gemm_packed(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const uint8_t *pa,
                      const uint8_t *pb, int a_signed, int32_t *C, int64_t ldc) {
  ox_i8gemm_packed_zp(p, M, N, K, pa, pb, a_signed, C, ldc, NULL);
}

#else /* ---- the template: one instance per (type, target) ---- */

#define T GEMM_T
#define V GEMM_V
#define MR GEMM_MR
/* 4 elements of T, and a shuffle of two of them (GCC's and clang's
 * builtins differ) */
typedef T GEMM_NAME(t4) __attribute__((vector_size(4 * sizeof(T))));
#define T4 GEMM_NAME(t4)
#if defined(__clang__)
#define SHUF4(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
typedef GEMM_I GEMM_NAME(i4) __attribute__((vector_size(4 * sizeof(T))));
#define SHUF4(a, b, i, j, k, l) __builtin_shuffle(a, b, (GEMM_NAME(i4)){i, j, k, l})
#endif
#if GEMM_MR == 8
/* 8 elements of T, and a shuffle of two of them (pack8) */
typedef T GEMM_NAME(t8) __attribute__((vector_size(8 * sizeof(T))));
#define T8 GEMM_NAME(t8)
#if defined(__clang__)
#define SHUF8(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
typedef GEMM_I GEMM_NAME(i8) __attribute__((vector_size(8 * sizeof(T))));
#define SHUF8(a, b, ...) __builtin_shuffle(a, b, (GEMM_NAME(i8)){__VA_ARGS__})
#endif
#endif
#define NV GEMM_NV
#define VL ((int)(sizeof(V) / sizeof(T)))
#define NR (NV * VL)

/* p[k * w + 0..3] <- s0[k], s0[ld + k], s0[2 ld + k], s0[3 ld + k] for k <
 * kc: four contiguous rows of a source written as four lanes of a packed
 * panel w wide, 4 k at a time transposed in registers (pack_a's rows of A,
 * pack_b's columns of a transposed B). */
GEMM_TARGET static inline __attribute__((always_inline)) void GEMM_NAME(pack4)(const T *s0, int64_t ld, int64_t kc, T *p, int64_t w) {
  const T *s1 = s0 + ld, *s2 = s1 + ld, *s3 = s2 + ld;
  int64_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    T4 a, b, c, d;
    memcpy(&a, s0 + k, sizeof a);
    memcpy(&b, s1 + k, sizeof b);
    memcpy(&c, s2 + k, sizeof c);
    memcpy(&d, s3 + k, sizeof d);
    T4 t0 = SHUF4(a, b, 0, 4, 1, 5), t1 = SHUF4(a, b, 2, 6, 3, 7);
    T4 t2 = SHUF4(c, d, 0, 4, 1, 5), t3 = SHUF4(c, d, 2, 6, 3, 7);
    T4 c0 = SHUF4(t0, t2, 0, 1, 4, 5), c1 = SHUF4(t0, t2, 2, 3, 6, 7);
    T4 c2 = SHUF4(t1, t3, 0, 1, 4, 5), c3 = SHUF4(t1, t3, 2, 3, 6, 7);
    memcpy(p + k * w, &c0, sizeof c0);
    memcpy(p + (k + 1) * w, &c1, sizeof c1);
    memcpy(p + (k + 2) * w, &c2, sizeof c2);
    memcpy(p + (k + 3) * w, &c3, sizeof c3);
  }
  for (; k < kc; k++) p[k * w] = s0[k], p[k * w + 1] = s1[k], p[k * w + 2] = s2[k], p[k * w + 3] = s3[k];
}

#if GEMM_MR == 8
/* p[k * 8 + 0..7] <- s0[k], s0[ld + k], ..., s0[7 ld + k] for k < kc: a
 * whole sliver of 8 rows, 8 k at a time transposed in registers (three
 * rounds of two-vector shuffles), half the loads and stores of two pack4s
 * (ViT's 197 x 3072 A: 2.4 MiB packed on every call). Values copied, not
 * computed: the same bits. */
GEMM_TARGET static inline __attribute__((always_inline)) void GEMM_NAME(pack8)(const T *s0, int64_t ld, int64_t kc, T *p) {
  int64_t k = 0;
  for (; k + 8 <= kc; k += 8) { /* named vectors: arrays of them went through the stack */
    T8 r0, r1, r2, r3, r4, r5, r6, r7;
    memcpy(&r0, s0 + k, sizeof r0), memcpy(&r1, s0 + ld + k, sizeof r1);
    memcpy(&r2, s0 + 2 * ld + k, sizeof r2), memcpy(&r3, s0 + 3 * ld + k, sizeof r3);
    memcpy(&r4, s0 + 4 * ld + k, sizeof r4), memcpy(&r5, s0 + 5 * ld + k, sizeof r5);
    memcpy(&r6, s0 + 6 * ld + k, sizeof r6), memcpy(&r7, s0 + 7 * ld + k, sizeof r7);
    /* rows i, i + 1 interleaved: t0 k 0 1 4 5 of rows 0 1, t1 k 2 3 6 7 */
    T8 t0 = SHUF8(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13), t1 = SHUF8(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);
    T8 t2 = SHUF8(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13), t3 = SHUF8(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);
    T8 t4 = SHUF8(r4, r5, 0, 8, 1, 9, 4, 12, 5, 13), t5 = SHUF8(r4, r5, 2, 10, 3, 11, 6, 14, 7, 15);
    T8 t6 = SHUF8(r6, r7, 0, 8, 1, 9, 4, 12, 5, 13), t7 = SHUF8(r6, r7, 2, 10, 3, 11, 6, 14, 7, 15);
    /* 4 rows: u0 k 0 and 4 of rows 0..3, u1 k 1 and 5, u2 k 2 and 6, u3 k 3 and 7; u4..u7 rows 4..7 */
    T8 u0 = SHUF8(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13), u1 = SHUF8(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    T8 u2 = SHUF8(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13), u3 = SHUF8(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
    T8 u4 = SHUF8(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13), u5 = SHUF8(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
    T8 u6 = SHUF8(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13), u7 = SHUF8(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
    /* k q: rows 0..3 from u(q), 4..7 from u(4 + q); k q + 4 the high halves */
    T8 c0 = SHUF8(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11), c4 = SHUF8(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
    T8 c1 = SHUF8(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11), c5 = SHUF8(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
    T8 c2 = SHUF8(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11), c6 = SHUF8(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
    T8 c3 = SHUF8(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11), c7 = SHUF8(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
    T *d = p + k * 8;
    memcpy(d, &c0, sizeof c0), memcpy(d + 8, &c1, sizeof c1), memcpy(d + 16, &c2, sizeof c2);
    memcpy(d + 24, &c3, sizeof c3), memcpy(d + 32, &c4, sizeof c4), memcpy(d + 40, &c5, sizeof c5);
    memcpy(d + 48, &c6, sizeof c6), memcpy(d + 56, &c7, sizeof c7);
  }
  for (; k < kc; k++)
    for (int i = 0; i < 8; i++) p[k * 8 + i] = s0[i * ld + k];
}
#endif

/* pa <- op(A)(i0 : i0 + mc, k0 : k0 + kc) as MR-row slivers, zero-padded. */
GEMM_TARGET static void GEMM_NAME(pack_a)(int64_t mc, int64_t kc, const T *A, int64_t lda,
                                          int trans, int64_t i0, int64_t k0, T *pa) {
  for (int64_t ip = 0; ip < mc; ip += MR, pa += MR * kc) {
    int64_t mr = ox_min64(MR, mc - ip);
    if (!trans) { /* A(i, k) = A[i * lda + k]: each row is contiguous */
      int64_t r = 0;
#if GEMM_MR == 8
      if (mr == 8) GEMM_NAME(pack8)(A + (i0 + ip) * lda + k0, lda, kc, pa), r = 8;
#endif
      for (; r + 4 <= mr; r += 4) /* 4 rows at a time */
        GEMM_NAME(pack4)(A + (i0 + ip + r) * lda + k0, lda, kc, pa + r, MR);
      for (; r < mr; r++) {
        const T *src = A + (i0 + ip + r) * lda + k0;
        for (int64_t k = 0; k < kc; k++) pa[k * MR + r] = src[k];
      }
    } else { /* A(i, k) = A[k * lda + i]: each k gives mr contiguous rows */
      for (int64_t k = 0; k < kc; k++) {
        const T *src = A + (k0 + k) * lda + i0 + ip;
        for (int64_t r = 0; r < mr; r++) pa[k * MR + r] = src[r];
      }
    }
    for (int64_t r = mr; r < MR; r++)
      for (int64_t k = 0; k < kc; k++) pa[k * MR + r] = 0;
  }
}

/* pb <- op(B)(k0 : k0 + kc, j0 : j0 + nc) as NR-column slivers, zero-padded. */
GEMM_TARGET static void GEMM_NAME(pack_b)(int64_t kc, int64_t nc, const T *B, int64_t ldb,
                                          int trans, int64_t k0, int64_t j0, T *pb) {
  for (int64_t jp = 0; jp < nc; jp += NR, pb += NR * kc) {
    int64_t nr = ox_min64(NR, nc - jp);
    if (!trans) { /* B(k, j) = B[k * ldb + j] */
      for (int64_t k = 0; k < kc; k++) {
        const T *src = B + (k0 + k) * ldb + j0 + jp;
        T *dst = pb + k * NR;
        if (nr == NR) { /* whole vectors (GCC 12 -O2 left the loop scalar) */
          for (int v = 0; v < NV; v++) {
            V x;
            memcpy(&x, src + v * VL, sizeof x);
            memcpy(dst + v * VL, &x, sizeof x);
          }
          continue;
        }
        int64_t j = 0;
        for (; j < nr; j++) dst[j] = src[j];
        for (; j < NR; j++) dst[j] = 0;
      }
    } else { /* B(k, j) = B[j * ldb + k]: each column is contiguous */
      int64_t j = 0;
      for (; j + 4 <= nr; j += 4) /* 4 columns at a time */
        GEMM_NAME(pack4)(B + (j0 + jp + j) * ldb + k0, ldb, kc, pb + j, NR);
      for (; j < nr; j++) {
        const T *src = B + (j0 + jp + j) * ldb + k0;
        for (int64_t k = 0; k < kc; k++) pb[k * NR + j] = src[k];
      }
      for (j = nr; j < NR; j++)
        for (int64_t k = 0; k < kc; k++) pb[k * NR + j] = 0;
    }
  }
}

#ifndef OPAQUE
/* The tiles' last step, y = alpha acc, then y + beta c: y is made opaque to
 * the compiler, so that where it fuses (fp-contract) it can only fuse beta c
 * into the add, in a whole tile's vectors and an edge's scalars alike
 * (alpha acc + beta c could fuse either product, and did differently in
 * the two under ASan). In a register where the target has a constraint
 * for vector registers: through memory ("+m"), each of a tile's 24
 * vectors went to the stack and back, one after another (a store and a
 * dependent load), about 2% of a 256-deep tile and more of a shallow one.
 * On x86 "v" (any of the 32 AVX-512 registers where the target has them,
 * else the 16 of SSE/AVX), not "x" (only the first 16): with "x", GCC 12
 * kept one of the AVX-512 tile's 24 accumulators on the stack through the
 * whole k loop (a load, FMA and store per step). */
#if defined(__x86_64__) || defined(__i386__)
#define OPAQUE(y) __asm__("" : "+v"(y))
#elif defined(__aarch64__)
#define OPAQUE(y) __asm__("" : "+w"(y))
#else
#define OPAQUE(y) __asm__("" : "+m"(y))
#endif
#endif
/* c: (mr, nr) tile of C <- alpha * pa * pb + beta * c (beta 0: c not read),
 * ab = {alpha, beta}. (Passed by address: as values, GCC keeps alpha in a
 * register through the loop and spills an accumulator on AVX2.) The body
 * computes the first nvx vectors of the tile's NR columns: nvx = NV for
 * whole slivers, 1 for a last sliver of at most VL columns (which would
 * otherwise multiply NV - 1 vectors of zeros); and the first mrx of its MR
 * rows (mr <= mrx): a product of one or two rows (a recurrent net's step,
 * a decoder's few tokens) does not multiply the zero rows of its sliver.
 * A column, and a row, gets the same operations in any of them.
 * h (float AVX-512 only): B is read from pbh, a block of a pb16 without
 * NaN (ox_sgemm_packed_h), widened as it is loaded (h 1, 2: float16, by
 * vcvtph2ps; 3, 4: bfloat16, its bits moved up), and (h 1, 3) each vector
 * so widened is also stored at its place in wout (kc, NR), for the tile's
 * other row slivers; pb is not read. The same values, so the same sums. */
static inline __attribute__((always_inline)) GEMM_TARGET void GEMM_NAME(kernel_body)(
    const int h, const int nvx, const int mrx, int64_t kc, const T *restrict pa, const T *restrict pb, T *c,
    int64_t ldc, int64_t mr, int64_t nr, const T *ab, const uint16_t *restrict pbh, T *wout) {
  (void)h, (void)pbh, (void)wout;
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < mrx; r++)
#pragma GCC unroll 4
    for (int v = 0; v < nvx; v++) acc[r][v] = (V){0};
  for (int64_t k = 0; k < kc; k++, pa += MR, pb += NR) {
    V b[NV];
#ifdef GEMM_H16
    if (h) {
#pragma GCC unroll 4
      for (int v = 0; v < nvx; v++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(pbh + k * NR + v * VL));
        b[v] = h >= 3 ? (V)_mm512_slli_epi32(_mm512_cvtepu16_epi32(x), 16) : (V)_mm512_cvtph_ps(x);
        if (h == 1 || h == 3) *(V *)(wout + k * NR + v * VL) = b[v];
      }
    } else {
#pragma GCC unroll 4
      for (int v = 0; v < nvx; v++) b[v] = *(const V *)(pb + v * VL);
    }
#else
#pragma GCC unroll 4
    for (int v = 0; v < nvx; v++) b[v] = *(const V *)(pb + v * VL);
#endif
#pragma GCC unroll 16
    for (int r = 0; r < mrx; r++) {
      T a = pa[r];
#pragma GCC unroll 4
      for (int v = 0; v < nvx; v++) acc[r][v] += a * b[v];
    }
  }
  T alpha = ab[0], beta = ab[1];
  if (nr == nvx * VL) { /* whole vectors: the first mr rows (the same operations as the scalars below) */
#pragma GCC unroll 16
    for (int r = 0; r < mrx; r++)
#pragma GCC unroll 4
      for (int v = 0; v < nvx; v++) {
        if (r >= mr) continue;
        T *p = c + r * ldc + v * VL;
        V y = alpha * acc[r][v];
        OPAQUE(y);
        if (beta != 0) {
          V old;
          memcpy(&old, p, sizeof old);
          y += beta * old;
        }
        memcpy(p, &y, sizeof y);
      }
    return;
  }
  T tile[MR][NR] __attribute__((aligned(64)));
  /* unrolled: acc stays in registers (a loop indexing it kept it in memory, spilled on every path) */
#pragma GCC unroll 16
  for (int r = 0; r < mrx; r++)
#pragma GCC unroll 4
    for (int v = 0; v < nvx; v++) *(V *)&tile[r][v * VL] = acc[r][v];
  for (int64_t r = 0; r < mr; r++)
    for (int64_t j = 0; j < nr; j++) {
      T *p = c + r * ldc + j, y = alpha * tile[r][j];
      OPAQUE(y);
      *p = beta == 0 ? y : y + beta * *p;
    }
}

#if GEMM_MR == 8
/* A last sliver of at most 4 columns (a product of 97 columns ends with
 * one): each column's MR rows as one vector (acc[j][r]), nc multiply-adds
 * of MR lanes per k where kernel_body would do MR of a whole vector. Each
 * element gets the same operations as there: acc += a * b over k in
 * order, then the same alpha and beta. The rows are a vector when MR
 * elements make one: 8 floats, or 8 doubles (the AVX-512 builds). */
static inline __attribute__((always_inline)) GEMM_TARGET void GEMM_NAME(cols_body)(
    const int nc, int64_t kc, const T *restrict pa, const T *restrict pb, T *c, int64_t ldc,
    int64_t mr, int64_t nr, const T *ab) {
  typedef T rows __attribute__((vector_size(MR * sizeof(T))));
  rows acc[4];
#pragma GCC unroll 4
  for (int j = 0; j < nc; j++) acc[j] = (rows){0};
  for (int64_t k = 0; k < kc; k++, pa += MR, pb += NR) {
    rows a;
    memcpy(&a, pa, sizeof a);
#pragma GCC unroll 4
    for (int j = 0; j < nc; j++) acc[j] += a * pb[j];
  }
  T alpha = ab[0], beta = ab[1];
  for (int64_t r = 0; r < mr; r++)
    for (int64_t j = 0; j < nr; j++) {
      T *p = c + r * ldc + j, y = alpha * acc[j][r];
      OPAQUE(y);
      *p = beta == 0 ? y : y + beta * *p;
    }
}
#endif

GEMM_TARGET static void GEMM_NAME(kernel)(int64_t kc, const T *restrict pa,
                                          const T *restrict pb, T *c, int64_t ldc, int64_t mr,
                                          int64_t nr, const T *ab) {
#if GEMM_MR == 8
  if (nr <= 4) {
    if (nr == 1) GEMM_NAME(cols_body)(1, kc, pa, pb, c, ldc, mr, nr, ab);
    else if (nr == 2) GEMM_NAME(cols_body)(2, kc, pa, pb, c, ldc, mr, nr, ab);
    else GEMM_NAME(cols_body)(4, kc, pa, pb, c, ldc, mr, nr, ab);
    return;
  }
#endif
  if (mr <= 2) { /* the rows of a thin product */
    if (nr <= VL) GEMM_NAME(kernel_body)(0, 1, 2, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
    else GEMM_NAME(kernel_body)(0, NV, 2, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
  } else if (mr <= 4) {
    if (nr <= VL) GEMM_NAME(kernel_body)(0, 1, 4, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
    else GEMM_NAME(kernel_body)(0, NV, 4, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
#if GEMM_MR == 8
  } else if (mr <= 6) { /* the last 5 or 6 rows (ViT's 197 tokens end with 5): 18 multiply-adds a step, not 24 */
    if (nr <= VL) GEMM_NAME(kernel_body)(0, 1, 6, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
    else GEMM_NAME(kernel_body)(0, NV, 6, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
#endif
  } else {
    if (nr <= VL) GEMM_NAME(kernel_body)(0, 1, MR, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
    else GEMM_NAME(kernel_body)(0, NV, MR, kc, pa, pb, c, ldc, mr, nr, ab, NULL, NULL);
  }
}

#ifdef GEMM_H16
/* kernel for the first row sliver of a tile whose B is a block of a pb16
 * without NaN (bf16: bfloat16, else float16): kernel_body's h, widening
 * the block into wout as it goes (wout NULL: not kept, the tile has no
 * other rows); nr > 4 (a last sliver of 4 columns or fewer: kernel on B
 * widened first) */
#define KERNEL_H(H)                                                                                        \
  if (mr <= 2) {                                                                                           \
    if (nr <= VL) GEMM_NAME(kernel_body)(H, 1, 2, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);              \
    else GEMM_NAME(kernel_body)(H, NV, 2, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);                      \
  } else if (mr <= 4) {                                                                                    \
    if (nr <= VL) GEMM_NAME(kernel_body)(H, 1, 4, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);              \
    else GEMM_NAME(kernel_body)(H, NV, 4, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);                      \
  } else if (mr <= 6) {                                                                                    \
    if (nr <= VL) GEMM_NAME(kernel_body)(H, 1, 6, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);              \
    else GEMM_NAME(kernel_body)(H, NV, 6, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);                      \
  } else {                                                                                                 \
    if (nr <= VL) GEMM_NAME(kernel_body)(H, 1, MR, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);             \
    else GEMM_NAME(kernel_body)(H, NV, MR, kc, pa, pb, c, ldc, mr, nr, ab, pbh, wout);                     \
  }
GEMM_TARGET static void GEMM_NAME(kernel_h)(int64_t kc, const T *restrict pa, const uint16_t *restrict pbh, int bf16,
                                            T *restrict wout, T *c, int64_t ldc, int64_t mr, int64_t nr, const T *ab) {
  const T *pb = pa; /* not read */
  if (!bf16 && wout) {
    KERNEL_H(1)
  } else if (!bf16) {
    KERNEL_H(2)
  } else if (wout) {
    KERNEL_H(3)
  } else {
    KERNEL_H(4)
  }
}
#undef KERNEL_H
#endif

/* The blocked product of rows [i0, i1) and columns [j0, j1) of C, with the
 * packing buffers pa and pb. Every tile of C is the same call of the kernel
 * (same K blocks, same full or partial tile) whatever the range, as long as
 * i0 is a multiple of MR and j0 of NR: so split products give the same bytes. */
GEMM_TARGET static void GEMM_NAME(blocked)(int64_t i0, int64_t i1, int64_t j0, int64_t j1,
                                           int64_t K, const T *A, int64_t lda, int transA,
                                           const T *B, int64_t ldb, int transB, T *C,
                                           int64_t ldc, T alpha, T beta, T *pa, T *pb) {
  for (int64_t jc = j0; jc < j1; jc += GEMM_NC) {
    int64_t nc = ox_min64(GEMM_NC, j1 - jc);
    for (int64_t pc = 0; pc < K; pc += GEMM_KC) {
      int64_t kc = ox_min64(GEMM_KC, K - pc);
      T ab[2] = {alpha, pc == 0 ? beta : (T)1}; /* later K blocks add to the first's */
      GEMM_NAME(pack_b)(kc, nc, B, ldb, transB, pc, jc, pb);
      for (int64_t ic = i0; ic < i1; ic += GEMM_MC) {
        int64_t mc = ox_min64(GEMM_MC, i1 - ic);
        GEMM_NAME(pack_a)(mc, kc, A, lda, transA, ic, pc, pa);
        for (int64_t jr = 0; jr < nc; jr += NR)
          for (int64_t ir = 0; ir < mc; ir += MR)
            GEMM_NAME(kernel)(kc, pa + ir * kc, pb + jr * kc, C + (ic + ir) * ldc + jc + jr,
                              ldc, ox_min64(MR, mc - ir), ox_min64(NR, nc - jr), ab);
      }
    }
  }
}

/* One product split for ox_par_for: each chunk is a range of MR-row (or
 * NR-column) units; each thread (slot) has its own packing buffers. */
typedef struct {
  int64_t M, N, K, lda, ldb, ldc;
  const T *A, *B;
  T *C, alpha, beta;
  int transA, transB, by_rows;
  T **pa, **pb;
  int64_t units, parts;
} GEMM_NAME(job);

GEMM_TARGET static void GEMM_NAME(chunk)(void *arg, int c, int64_t lo, int64_t hi) {
  const GEMM_NAME(job) *j = arg;
  /* lo, hi count parts: one per thread, as each part packs its own op(B) */
  lo = j->units * lo / j->parts, hi = j->units * hi / j->parts;
  int64_t i0 = 0, i1 = j->M, j0 = 0, j1 = j->N;
  if (j->by_rows) i0 = lo * MR, i1 = ox_min64(hi * MR, j->M);
  else j0 = lo * NR, j1 = ox_min64(hi * NR, j->N);
  GEMM_NAME(blocked)(i0, i1, j0, j1, j->K, j->A, j->lda, j->transA, j->B, j->ldb, j->transB,
                     j->C, j->ldc, j->alpha, j->beta, j->pa[c], j->pb[c]);
}

/* The blocked product, split over the thread pool when it is large; -1 if
 * the packing buffers cannot be allocated. */
GEMM_TARGET static int GEMM_NAME(gemm)(int threads, int64_t M, int64_t N, int64_t K, const T *A,
                                       int64_t lda, int transA, const T *B, int64_t ldb,
                                       int transB, T *C, int64_t ldc, T alpha, T beta) {
  int64_t kcmax = ox_min64(K, GEMM_KC);
  /* split the longer side of C (in tiles) */
  int by_rows = M >= N;
  int64_t units = by_rows ? (M + MR - 1) / MR : (N + NR - 1) / NR;
  int nch = ox_par_chunks(threads, units, 2.0 * (double)M * (double)N * (double)K);
  T *pa[OX_MAX_THREADS], *pb[OX_MAX_THREADS]; /* per thread (slot) */
  int64_t na = ox_round_up(ox_min64(M, GEMM_MC), MR) * kcmax, nb = ox_round_up(ox_min64(N, GEMM_NC), NR) * kcmax;
  if (nch == 1 && ox_round_up(na, 64) + nb <= GEMM_SMALL / (int64_t)sizeof(T)) {
    /* a small product (16 x 16 x 16, a batch of heads' 2 x 2): its packed
     * operands fit on the stack, where a heap buffer would cost as much as
     * the product; the same kernel calls as any other size */
    T buf[GEMM_SMALL / sizeof(T)] __attribute__((aligned(64)));
    pa[0] = buf, pb[0] = buf + ox_round_up(na, 64); /* pb 64-byte aligned */
    GEMM_NAME(job) j = {M, N, K, lda, ldb, ldc, A, B, C, alpha, beta, transA, transB, by_rows, pa, pb,
                        units, 1};
    GEMM_NAME(chunk)(&j, 0, 0, 1);
    return 0;
  }
  for (int c = 0; c < nch; c++) {
    pa[c] = scratch(na, sizeof(T));
    pb[c] = scratch(nb, sizeof(T));
    if (!pa[c] || !pb[c]) { /* fewer threads: the same result */
      ox_mem_scratch_free(pa[c]);
      ox_mem_scratch_free(pb[c]);
      nch = c;
      break;
    }
  }
  if (nch == 0) return -1;
  GEMM_NAME(job) j = {M, N, K, lda, ldb, ldc, A, B, C, alpha, beta, transA, transB, by_rows, pa, pb,
                      units, nch};
  if (nch == 1) GEMM_NAME(chunk)(&j, 0, 0, 1);
  else ox_par_for(nch, nch, GEMM_NAME(chunk), &j);
  for (int c = 0; c < nch; c++) {
    ox_mem_scratch_free(pa[c]);
    ox_mem_scratch_free(pb[c]);
  }
  return 0;
}

/* ---- pre-packed operands (see gemm.h) ---- */

/* pa <- op(A) (M, K) as MR-row slivers of the whole K; pb <- B (K, N) as
 * NR-column slivers of the whole K */
GEMM_TARGET static void GEMM_NAME(pack_a_all)(int64_t M, int64_t K, const T *A, int64_t lda,
                                              int trans, T *pa) {
  GEMM_NAME(pack_a)(M, K, A, lda, trans, 0, 0, pa);
}
GEMM_TARGET static void GEMM_NAME(pack_b_all)(int64_t K, int64_t N, const T *B, int64_t ldb, int trans,
                                              T *pb) {
  GEMM_NAME(pack_b)(K, N, B, ldb, trans, 0, 0, pb);
}

/* C (M, N) = pa x pb + beta * C, K in blocks of KC (as the blocked product):
 * for each group of K blocks whose part of pa (M x the group's k) stays in
 * L2 or close to it, one column sliver at a time, all the group's K blocks
 * of it, each block's sliver of pb (kc x NR, in L2) meeting every row
 * sliver of pa. The sliver's strip of C (M x NR) stays in cache from one K
 * block to the next, where a sweep of all of C per K block went out to L3
 * and back once C outgrew L2 (a BERT FFN's 128 x 3072, 1.5 MiB); pa is
 * swept once per sliver instead, so a group is bounded (PA_GROUP bytes:
 * 1 MiB and 2.5 MiB measured alike on a 1 MiB L2, 4 and 8 lost on a
 * 512 x 3072 pa). Measured on one AVX-512 core (GFLOP/s, min of 20, B cold):
 * 128 x 768 x 3072 107.8 -> 109.9, 128 x 3072 x 768 109.1 -> 111.0,
 * 197 x 3072 x 768 110.4 -> 112.1. Every tile still gets its kernel calls
 * in K order, the same calls: the same bits as any order. */
_Static_assert(GEMM_KC == H_KC && NR <= H_NR, "ox_sgemm_packed_h's block");
GEMM_TARGET static void GEMM_NAME(packed)(int64_t M, int64_t N, int64_t K, const T *pa,
                                          const T *pb, T *C, int64_t ldc, T beta) {
  /* K blocks per group (at least one: then the order of old, block by block) */
  int64_t kg = ox_max64(1, PA_GROUP / (ox_round_up(M, MR) * GEMM_KC * (int64_t)sizeof(T))) * GEMM_KC;
  for (int64_t pg = 0; pg < K; pg += kg)
    for (int64_t j = 0; j < N; j += NR)
      for (int64_t pc = pg; pc < K && pc < pg + kg; pc += GEMM_KC) {
        int64_t kc = ox_min64(GEMM_KC, K - pc);
        T ab[2] = {1, pc == 0 ? beta : (T)1};
        for (int64_t i = 0; i < M; i += MR) {
          int64_t mr = ox_min64(MR, M - i), nr = ox_min64(NR, N - j);
          /* the tile of C a group's first K block reads (unless beta is 0)
           * and writes, asked for into L2 while the kernel runs: C is
           * often fresh memory (a model's next activation); the group's
           * later blocks find it in cache. Prefetches change no bit; a
           * short call (small kc) is not worth them. */
          if (kc >= 64 && pc == pg)
            for (int64_t r = 0; r < mr; r++)
              for (int64_t l = 0; l < nr; l += 64 / (int64_t)sizeof(T)) __builtin_prefetch(C + (i + r) * ldc + j + l, 1, 2);
          GEMM_NAME(kernel)(kc, pa + (i * K + pc * MR), pb + (j * K + pc * NR), C + i * ldc + j, ldc, mr, nr, ab);
        }
      }
}

#undef T
#undef V
#undef MR
#undef SHUF4
#undef T4
#undef SHUF8
#undef T8
#undef GEMM_I
#undef NV
#undef VL
#undef NR
#undef GEMM_T
#undef GEMM_V
#undef GEMM_MR
#undef GEMM_NV
#undef GEMM_KC
#undef GEMM_MC
#undef GEMM_NC
#undef GEMM_NAME
#undef GEMM_TARGET
#undef GEMM_H16

#endif
