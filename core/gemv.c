/* core/gemv.c: thin products read in place (see gemv.h).
 *
 * The work is R <= OX_THIN rows of op(A) against op(B), output Y(r, j) at
 * Y[r * rs + j * cs]; a product whose op(B) is the thin side is turned round
 * (Y^T = op(B)^T op(A)^T: B's rows become the R rows, and the output is
 * written transposed through the strides).
 *
 *   dot  (op(B) stored (N, K)): four columns at a time, each a dot product of
 *        an A row and a B row, in vector lanes then summed across the lanes;
 *   axpy (op(B) stored (K, N)): a tile of four vectors of columns, each output
 *        a sum over k in order, as B's rows stream past.
 *
 * Columns are split over the threads in whole tiles (4 columns; 4 vectors of
 * columns), so which code computes a column never depends on the split. The
 * template below the line is instantiated per element type and target, as
 * core/gemm.c is. */
#ifndef GEMV_T /* ---- the file proper ---- */

#include <string.h>

#include "arena.h"
#include "cpu.h"
#include "gemm.h"
#include "gemv.h"
#include "threads.h"

#if defined(__clang__)
#pragma clang fp contract(fast)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=fast")
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef double v2d __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_X86_DISPATCH 1
#else
#define HAVE_X86_DISPATCH 0
#endif

/* one thin product, as the template's entry takes it */
typedef struct {
  int R;
  int64_t N, K;
  const void *A;
  int64_t lda;
  int ta;
  const void *B;
  int64_t ldb;
  int tb;
  void *Y;
  int64_t rs, cs;
  double alpha, beta;
  /* axpy: the running sums of a band of `band` tiles, one buffer per thread
   * slot (band 0: a band of TW tiles on the stack) */
  int64_t band;
  void *acc[OX_MAX_THREADS];
  unsigned kind; /* ox_sgemm_thin_packed_h: what its pb16 holds (core/gemm.h) */
} thin_job;

/* bytes of running sums an axpy band keeps (in L2): 128 KiB of each row of
 * B for a product of one row */
#define ACC_BYTES 131072

#define KB 512 /* the k block a transposed A's rows are gathered in */
#define KB4 8 /* axpy: rows of B a tile takes in registers before it stores its sums */
#define HK 64 /* packed 2-byte B: rows of a sliver widened at a time */

#define GEMV_T float
#define GEMV_V v4f
#define GEMV_NAME(x) x##_s_generic
#define GEMV_HALF 1
#define GEMV_TARGET
#include "gemv.c"

#define GEMV_T double
#define GEMV_V v2d
#define GEMV_NAME(x) x##_d_generic
#define GEMV_TARGET
#include "gemv.c"

#if HAVE_X86_DISPATCH
#define GEMV_T float
#define GEMV_V v8f
#define GEMV_NAME(x) x##_s_avx2
#define GEMV_HALF 1
#define GEMV_TARGET __attribute__((target("avx2,fma")))
#include "gemv.c"

#define GEMV_T double
#define GEMV_V v4d
#define GEMV_NAME(x) x##_d_avx2
#define GEMV_TARGET __attribute__((target("avx2,fma")))
#include "gemv.c"

#define GEMV_T float
#define GEMV_V v16f
#define GEMV_NAME(x) x##_s_avx512
#define GEMV_HALF 1
#define GEMV_TARGET __attribute__((target("avx512f,avx2,fma")))
#include "gemv.c"

#define GEMV_T double
#define GEMV_V v8d
#define GEMV_NAME(x) x##_d_avx512
#define GEMV_TARGET __attribute__((target("avx512f,avx2,fma")))
#include "gemv.c"
#else
#define tiles_s_avx2 tiles_s_generic
#define tiles_s_avx512 tiles_s_generic
#define tiles_d_avx2 tiles_d_generic
#define tiles_d_avx512 tiles_d_generic
#define tile_cols_s_avx2 tile_cols_s_generic
#define tile_cols_s_avx512 tile_cols_s_generic
#define tile_cols_d_avx2 tile_cols_d_generic
#define tile_cols_d_avx512 tile_cols_d_generic
#define slivers_s_avx2 slivers_s_generic
#define slivers_s_avx512 slivers_s_generic
#define slivers_d_avx2 slivers_d_generic
#define slivers_d_avx512 slivers_d_generic
#define slivers_h_s_avx2 slivers_h_s_generic
#define slivers_h_s_avx512 slivers_h_s_generic
#endif

int ox_gemm_is_thin(int64_t M, int64_t N, int64_t K) {
  return M > 0 && N > 0 && K > 0 && (M <= OX_THIN || N <= OX_THIN);
}

/* The level the GEMM uses (so ox_gemm_max_isa caps this too, for tests). */
static int level(void) {
  const char *isa = ox_gemm_isa();
  return !strcmp(isa, "avx512f") ? OX_CPU_AVX512 : !strcmp(isa, "avx2+fma") ? OX_CPU_AVX2 : OX_CPU_GENERIC;
}

typedef void (*tiles_fn)(const thin_job *j, int slot, int64_t lo, int64_t hi);
typedef struct { const thin_job *j; tiles_fn fn; } par_arg;
static void par_tiles(void *arg, int slot, int64_t lo, int64_t hi) {
  const par_arg *p = arg;
  p->fn(p->j, slot, lo, hi);
}

/* Set up the job (turned round when op(B) is the thin side), then run its
 * tiles, on the pool when it is big enough. */
static void thin_run(int threads, int dbl, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda, int ta,
                     const void *B, int64_t ldb, int tb, void *C, int64_t ldc, double alpha,
                     double beta) {
  thin_job j;
  if (M <= OX_THIN) {
    j = (thin_job){(int)M, N, K, A, lda, ta, B, ldb, tb, C, ldc, 1, alpha, beta, 0, {0}};
  } else { /* Y^T (N, M) = op(B)^T op(A)^T */
    j = (thin_job){(int)N, M, K, B, ldb, !tb, A, lda, !ta, C, 1, ldc, alpha, beta, 0, {0}};
  }
  int lv = level();
  tiles_fn fn;
  int64_t cols;
  if (dbl) {
    fn = lv == OX_CPU_AVX512 ? tiles_d_avx512 : lv == OX_CPU_AVX2 ? tiles_d_avx2 : tiles_d_generic;
    cols = lv == OX_CPU_AVX512 ? tile_cols_d_avx512(&j) : lv == OX_CPU_AVX2 ? tile_cols_d_avx2(&j) : tile_cols_d_generic(&j);
  } else {
    fn = lv == OX_CPU_AVX512 ? tiles_s_avx512 : lv == OX_CPU_AVX2 ? tiles_s_avx2 : tiles_s_generic;
    cols = lv == OX_CPU_AVX512 ? tile_cols_s_avx512(&j) : lv == OX_CPU_AVX2 ? tile_cols_s_avx2(&j) : tile_cols_s_generic(&j);
  }
  int64_t ntiles = (j.N + cols - 1) / cols;
  int nch = ox_par_chunks(threads, ntiles, 2.0 * (double)j.R * (double)j.N * (double)K);
  if (!j.tb && ntiles > 1) { /* the axpy's bands: as wide as ACC_BYTES of sums allow */
    size_t tile = (size_t)j.R * (size_t)cols * (dbl ? sizeof(double) : sizeof(float));
    int64_t per = (ntiles + nch - 1) / nch;
    j.band = (int64_t)(ACC_BYTES / tile) < per ? (int64_t)(ACC_BYTES / tile) : per;
    for (int c = 0; c < nch && j.band; c++) /* before the fan-out: counted in this run's memory */
      if (!(j.acc[c] = ox_mem_scratch((size_t)j.band * tile))) j.band = 0;
  }
  par_arg p = {&j, fn};
  if (nch <= 1) fn(&j, 0, 0, ntiles);
  else ox_par_for(ntiles, nch, par_tiles, &p);
  for (int c = 0; c < nch; c++) ox_mem_scratch_free(j.acc[c]);
}

/* K <= 0: C = beta * C (as ox_sgemm) */
#define EMPTY_K(T)                                                                    \
  for (int64_t i = 0; i < M; i++)                                                     \
    for (int64_t jj = 0; jj < N; jj++) C[i * ldc + jj] = beta == 0 ? (T)0 : beta * C[i * ldc + jj];

void ox_sgemm_thin(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int transA,
                   const float *B, int64_t ldb, int transB, float *C, int64_t ldc, float alpha,
                   float beta) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    EMPTY_K(float)
    return;
  }
  thin_run(threads, 0, M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta);
}

void ox_dgemm_thin(int threads, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, int transA,
                   const double *B, int64_t ldb, int transB, double *C, int64_t ldc, double alpha,
                   double beta) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    EMPTY_K(double)
    return;
  }
  thin_run(threads, 1, M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta);
}

/* ox_sgemm_thin_packed from a float pb, or (h) ox_sgemm_thin_packed_h
 * from a pb16 of `kind`: the slivers, on the pool when it is big enough */
static void thin_packed(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const void *pb,
                        int h, unsigned kind, int64_t nr, float *C, int64_t ldc, float alpha, float beta) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    EMPTY_K(float)
    return;
  }
  thin_job j = {(int)M, N, K, A, lda, 0, pb, nr, 0, C, ldc, 1, alpha, beta, 0, {0}, kind};
  int lv = level();
  tiles_fn fn = h ? (lv == OX_CPU_AVX512 ? slivers_h_s_avx512 : lv == OX_CPU_AVX2 ? slivers_h_s_avx2 : slivers_h_s_generic)
                  : (lv == OX_CPU_AVX512 ? slivers_s_avx512 : lv == OX_CPU_AVX2 ? slivers_s_avx2 : slivers_s_generic);
  int64_t ns = (N + nr - 1) / nr;
  int nch = ox_par_chunks(threads, ns, 2.0 * (double)M * (double)N * (double)K);
  par_arg p = {&j, fn};
  if (nch <= 1) fn(&j, 0, 0, ns);
  else ox_par_for(ns, nch, par_tiles, &p);
}

void ox_sgemm_thin_packed(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                          const float *pb, int64_t nr, float *C, int64_t ldc, float alpha, float beta) {
  thin_packed(threads, M, N, K, A, lda, pb, 0, 0, nr, C, ldc, alpha, beta);
}

void ox_sgemm_thin_packed_h(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                            const uint16_t *pb16, unsigned kind, int64_t nr, float *C, int64_t ldc, float alpha,
                            float beta) {
  thin_packed(threads, M, N, K, A, lda, pb16, 1, kind, nr, C, ldc, alpha, beta);
}

void ox_sgemm_any(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int transA,
                  const float *B, int64_t ldb, int transB, float *C, int64_t ldc, float alpha,
                  float beta) {
  (ox_gemm_is_thin(M, N, K) ? ox_sgemm_thin : ox_sgemm)(threads, M, N, K, A, lda, transA, B, ldb, transB, C,
                                                        ldc, alpha, beta);
}

void ox_dgemm_any(int threads, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, int transA,
                  const double *B, int64_t ldb, int transB, double *C, int64_t ldc, double alpha,
                  double beta) {
  (ox_gemm_is_thin(M, N, K) ? ox_dgemm_thin : ox_dgemm)(threads, M, N, K, A, lda, transA, B, ldb, transB, C,
                                                        ldc, alpha, beta);
}

#else /* ---- the template: one instance per (type, target) ---- */

#define T GEMV_T
#define V GEMV_V
#define L ((int)(sizeof(V) / sizeof(T)))
#define TW ((int)(4096 / (4 * sizeof(V)))) /* tiles of a band: 4 KiB of a row (acc: 16 KiB) */
#define TARGET GEMV_TARGET
#define INLINE static inline __attribute__((always_inline)) TARGET

INLINE V GEMV_NAME(load)(const T *p) {
  V v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Y(r, j) = alpha * s + beta * Y(r, j) (beta 0: Y is not read) */
INLINE void GEMV_NAME(put)(const thin_job *j, int r, int64_t col, T s) {
  T *y = (T *)j->Y + r * j->rs + col * j->cs;
  *y = j->beta == 0 ? (T)j->alpha * s : (T)j->alpha * s + (T)j->beta * *y;
}

/* dot: columns c0 .. c0+3 (those below N) of R rows; R a constant after
 * inlining, so the 4 R accumulators stay in registers */
INLINE void GEMV_NAME(dot4)(const thin_job *j, const int R, int64_t c0) {
  const T *A = j->A, *B = j->B;
  int64_t K = j->K, nc = j->N - c0 < 4 ? j->N - c0 : 4;
  V acc[OX_THIN][4];
  T tail[OX_THIN][4];
  for (int r = 0; r < R; r++)
    for (int c = 0; c < 4; c++) {
      acc[r][c] = (V){0};
      tail[r][c] = 0;
    }
  T buf[OX_THIN][KB];
  for (int64_t kb = 0; kb < K; kb += KB) {
    int64_t kn = K - kb < KB ? K - kb : KB;
    const T *a[OX_THIN], *b[4];
    for (int r = 0; r < R; r++) {
      if (j->ta) { /* op(A) row r is strided: gather this block */
        for (int64_t k = 0; k < kn; k++) buf[r][k] = A[(kb + k) * j->lda + r];
        a[r] = buf[r];
      } else {
        a[r] = A + r * j->lda + kb;
      }
    }
    for (int c = 0; c < 4; c++) b[c] = B + (c0 + (c < nc ? c : 0)) * j->ldb + kb;
    int64_t k = 0;
    for (; k + L <= kn; k += L) {
      V b0 = GEMV_NAME(load)(b[0] + k), b1 = GEMV_NAME(load)(b[1] + k);
      V b2 = GEMV_NAME(load)(b[2] + k), b3 = GEMV_NAME(load)(b[3] + k);
      for (int r = 0; r < R; r++) {
        V av = GEMV_NAME(load)(a[r] + k);
        acc[r][0] += av * b0;
        acc[r][1] += av * b1;
        acc[r][2] += av * b2;
        acc[r][3] += av * b3;
      }
    }
    for (; k < kn; k++)
      for (int r = 0; r < R; r++)
        for (int c = 0; c < 4; c++) tail[r][c] += a[r][k] * b[c][k];
  }
  for (int r = 0; r < R; r++)
    for (int c = 0; c < nc; c++) {
      T s = 0;
      for (int l = 0; l < L; l++) s += acc[r][c][l];
      GEMV_NAME(put)(j, r, c0 + c, s + tail[r][c]);
    }
}

/* axpy: tiles t0 .. t1-1 (4L columns each; those below N) of R rows, each
 * output summed over k in order. B (K, N) is read a band of tiles at a
 * time (the job's band, its sums in acc: up to ACC_BYTES; or TW tiles, 4
 * KiB of each row, on the stack), KB4 rows at a time: each of the band's
 * tiles takes its KB4 rows' terms in registers, then keeps its running sums
 * in acc for the next rows. So B is read as KB4 streams along whole rows
 * (one tile down all of K read 256 bytes of each row: 8.5 GB/s of B where a
 * streaming read gets 18; 8 streams of whole rows read the 154 MB of
 * [768, 50257] at up to 27 GB/s, 16 at 16, 4 at 22). The sums are the same float operations in the
 * same order as one pass down K: each partial sum is a float either way. */
INLINE void GEMV_NAME(axpy_band)(const thin_job *j, const int R, int64_t t0, int64_t t1, V *acc) {
  const T *A = j->A, *B = j->B;
  int64_t K = j->K, lda = j->lda, ldb = j->ldb, N = j->N;
  T part[OX_THIN][4 * L]; /* the last, partial tile's */
  for (int64_t kb = 0; kb < K; kb += KB4) {
    int64_t ke = K - kb < KB4 ? K : kb + KB4;
    for (int64_t t = t0; t < t1; t++) {
      int64_t c0 = t * 4 * L, nc = N - c0 < 4 * L ? N - c0 : 4 * L;
      V *a = acc + (t - t0) * R * 4; /* a[r * 4 + v] */
      if (nc == 4 * L) {
        V s[OX_THIN][4];
#pragma GCC unroll 4
        for (int r = 0; r < R; r++)
#pragma GCC unroll 4
          for (int v = 0; v < 4; v++) s[r][v] = kb ? a[r * 4 + v] : (V){0};
        for (int64_t k = kb; k < ke; k++) {
          const T *bk = B + k * ldb + c0;
          V b0 = GEMV_NAME(load)(bk), b1 = GEMV_NAME(load)(bk + L);
          V b2 = GEMV_NAME(load)(bk + 2 * L), b3 = GEMV_NAME(load)(bk + 3 * L);
#pragma GCC unroll 4
          for (int r = 0; r < R; r++) {
            T ar = j->ta ? A[k * lda + r] : A[r * lda + k];
            s[r][0] += ar * b0;
            s[r][1] += ar * b1;
            s[r][2] += ar * b2;
            s[r][3] += ar * b3;
          }
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++)
#pragma GCC unroll 4
          for (int v = 0; v < 4; v++) a[r * 4 + v] = s[r][v];
      } else { /* the last, partial tile: a column at a time, in the same order over k */
        for (int64_t c = 0; c < nc; c++)
          for (int r = 0; r < R; r++) {
            T sc = kb ? part[r][c] : 0;
            for (int64_t k = kb; k < ke; k++) sc += (j->ta ? A[k * lda + r] : A[r * lda + k]) * B[k * ldb + c0 + c];
            part[r][c] = sc;
          }
      }
    }
  }
  for (int64_t t = t0; t < t1; t++) {
    int64_t c0 = t * 4 * L, nc = N - c0 < 4 * L ? N - c0 : 4 * L;
    const V *a = acc + (t - t0) * R * 4;
    for (int r = 0; r < R; r++)
      for (int64_t c = 0; c < nc; c++) {
        T y;
        if (nc == 4 * L) memcpy(&y, (const T *)&a[r * 4 + c / L] + c % L, sizeof y);
        else y = part[r][c];
        GEMV_NAME(put)(j, r, c0 + c, y);
      }
  }
}

/* the columns one tile covers */
static int64_t GEMV_NAME(tile_cols)(const thin_job *j) { return j->tb ? 4 : 4 * L; }

/* tiles lo .. hi-1 */
TARGET static void GEMV_NAME(tiles)(const thin_job *j, int slot, int64_t lo, int64_t hi) {
  int64_t w = GEMV_NAME(tile_cols)(j);
  if (!j->tb) { /* bands of the job's band, or TW tiles with their sums on the stack */
    V stack[TW * OX_THIN * 4];
    int64_t band = j->band ? j->band : TW;
    V *acc = j->band ? j->acc[slot] : stack;
    for (int64_t t = lo; t < hi; t += band) {
      int64_t te = hi - t < band ? hi : t + band;
      switch (j->R) {
      case 1: GEMV_NAME(axpy_band)(j, 1, t, te, acc); break;
      case 2: GEMV_NAME(axpy_band)(j, 2, t, te, acc); break;
      case 3: GEMV_NAME(axpy_band)(j, 3, t, te, acc); break;
      case 4: GEMV_NAME(axpy_band)(j, 4, t, te, acc); break;
      }
    }
    return;
  }
  for (int64_t t = lo; t < hi; t++) {
    int64_t c0 = t * w;
#define ROWS(R)                                                                       \
  case R:                                                                             \
    GEMV_NAME(dot4)(j, R, c0);                                                        \
    break;
    switch (j->R) {
      ROWS(1)
      ROWS(2)
      ROWS(3)
      ROWS(4)
    }
#undef ROWS
  }
}

/* sliver: how many rows of B ahead each step asks for the next line into
 * L2 (prefetcht2): a decode step's weights stream from memory (490 MB for
 * GPT-2-small), where the hardware's prefetch alone left one core at about
 * 19 GB/s. One line per row of the sliver, 16 rows (3 KiB of a 48-column
 * sliver) ahead: GPT-2's step 5-11% shorter in alternated runs. A line per
 * vector gained a little more there but cost 50% on weights already in L3
 * (bench/run.sh's dec_gemm, 76 -> 114 us); this costs 76 -> 91 us there
 * (dec_ffn2 103 -> 107 us), ORT's being 115-130. */
#define PF_ROWS 16
/* packed: sliver s of a B packed for the GEMM (core/gemm.h's pb: slivers
 * of nr = NVS * L columns by all K, zero past N) against R rows of A (not
 * transposed); each output a sum over k in order, the axpy's operations, so
 * the same bytes as the product from B unpacked. With h (instances with
 * GEMV_HALF), B is a pb16 of j->kind: HK rows of the sliver at a time
 * widened into wb (exactly), then the same operations on them, over k in
 * order: the same bytes as from the float pb. Only the float pb's rows are
 * prefetched: the pb16's are read a block at a time by the widening, which
 * the hardware's prefetch keeps fed; every software prefetch of them tried
 * (a line a row, PF_ROWS ahead or a block ahead, into L2 or L1, or the next
 * block's lines at once) made 24 float16 [1, 768] x [768, 3072] and
 * [3072, 768] products (113 MB of B) 15-45% slower. */
INLINE void GEMV_NAME(sliver)(const thin_job *j, const int R, const int NVS, int64_t s, const int h) {
  const T *A = j->A;
  int64_t K = j->K, lda = j->lda, w = NVS * L, c0 = s * w, nc = j->N - c0 < w ? j->N - c0 : w;
  size_t es = h ? 2 : sizeof(T);
  const char *B = (const char *)j->B + (size_t)(s * K * w) * es; /* the sliver as stored: (K, w) */
  int64_t kstep = h ? HK : K; /* rows a block: the float pb's are read in place */
#ifdef GEMV_HALF
  T wb[HK * 4 * L] __attribute__((aligned(64))); /* (HK, w) */
#endif
  V acc[OX_THIN][4];
#pragma GCC unroll 4
  for (int r = 0; r < R; r++)
#pragma GCC unroll 4
    for (int v = 0; v < NVS; v++) acc[r][v] = (V){0};
  for (int64_t kb = 0; kb < K; kb += kstep) {
    int64_t kn = K - kb < kstep ? K - kb : kstep;
    const T *rows = (const T *)B + kb * w;
#ifdef GEMV_HALF
    if (h) {
      ox_pb16_widen(j->kind, (const uint16_t *)B + kb * w, wb, kn * w);
      rows = wb;
    }
#endif
    for (int64_t k = 0; k < kn; k++) {
      const T *bk = rows + k * w;
      V b[4];
      if (!h) __builtin_prefetch(bk + PF_ROWS * w, 0, 1);
#pragma GCC unroll 4
      for (int v = 0; v < NVS; v++) b[v] = GEMV_NAME(load)(bk + v * L);
#pragma GCC unroll 4
      for (int r = 0; r < R; r++) {
        T ar = A[r * lda + kb + k];
#pragma GCC unroll 4
        for (int v = 0; v < NVS; v++) acc[r][v] += ar * b[v];
      }
    }
  }
  for (int r = 0; r < R; r++)
    for (int64_t c = 0; c < nc; c++) {
      T y;
      memcpy(&y, (const T *)&acc[r][c / L] + c % L, sizeof y);
      GEMV_NAME(put)(j, r, c0 + c, y);
    }
}

#ifndef SLIVER_DISPATCH
/* Inside a loop over slivers s: FN(J, R, NVS, s, H) for J's R rows (1 to
 * 4) and NVS vectors of columns (1 to 4), constants for FN's unrolled
 * loops, then the next sliver; any other count falls through */
#define SLIVER_ROWS_(FN, J, S, H, R)                                                    \
  case (R) * 8 + 1: FN(J, R, 1, S, H); continue;                                       \
  case (R) * 8 + 2: FN(J, R, 2, S, H); continue;                                       \
  case (R) * 8 + 3: FN(J, R, 3, S, H); continue;                                       \
  case (R) * 8 + 4: FN(J, R, 4, S, H); continue;
#define SLIVER_DISPATCH(FN, J, NVS, S, H)                                               \
  switch ((J)->R * 8 + (NVS)) {                                                         \
    SLIVER_ROWS_(FN, J, S, H, 1) SLIVER_ROWS_(FN, J, S, H, 2)                           \
    SLIVER_ROWS_(FN, J, S, H, 3) SLIVER_ROWS_(FN, J, S, H, 4)                           \
  }
#endif

/* element i of the job's packed B as T (h: of its pb16, widened) */
INLINE T GEMV_NAME(pb_at)(const thin_job *j, int64_t i, const int h) {
#ifdef GEMV_HALF
  if (h) {
    T b;
    ox_pb16_widen(j->kind, (const uint16_t *)j->B + i, &b, 1);
    return b;
  }
#endif
  return ((const T *)j->B)[i];
}

/* slivers lo .. hi-1 (j->ldb: nr, a multiple of L up to 4 L; else a
 * column at a time, in the same order over k) of a float pb, or (h) a
 * pb16 */
INLINE void GEMV_NAME(slivers_of)(const thin_job *j, int64_t lo, int64_t hi, const int h) {
  int64_t nr = j->ldb;
  int nvs = nr % L == 0 && nr / L >= 1 && nr / L <= 4 ? (int)(nr / L) : 0;
  for (int64_t s = lo; s < hi; s++) {
    SLIVER_DISPATCH(GEMV_NAME(sliver), j, nvs, s, h)
    const T *A = j->A;
    int64_t c0 = s * nr, nc = j->N - c0 < nr ? j->N - c0 : nr;
    for (int r = 0; r < j->R; r++)
      for (int64_t c = 0; c < nc; c++) {
        T sc = 0;
        for (int64_t k = 0; k < j->K; k++) sc += A[r * j->lda + k] * GEMV_NAME(pb_at)(j, (s * j->K + k) * nr + c, h);
        GEMV_NAME(put)(j, r, c0 + c, sc);
      }
  }
}

TARGET __attribute__((unused)) static void GEMV_NAME(slivers)(const thin_job *j, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  GEMV_NAME(slivers_of)(j, lo, hi, 0);
}

#ifdef GEMV_HALF
TARGET static void GEMV_NAME(slivers_h)(const thin_job *j, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  GEMV_NAME(slivers_of)(j, lo, hi, 1);
}
#undef GEMV_HALF
#endif

#undef T
#undef V
#undef L
#undef TW
#undef TARGET
#undef INLINE
#undef GEMV_T
#undef GEMV_V
#undef GEMV_NAME
#undef GEMV_TARGET
#endif
