/* tests/unit/test_gemm.c: the loop order of core/gemm.c's pre-packed
 * product (ox_sgemm_packed, ox_dgemm_packed) pinned to the bits of the
 * blocked one. The pre-packed product walks a column sliver through all
 * the K blocks of a group before the next sliver, groups of K blocks
 * bounded by the bytes of pa they read (PA_GROUP, 2.5 MiB); ox_sgemm walks
 * K blocks outermost. Both must give each element the kernel's operations:
 * for each 256 of K, s = fma(a, b, s) from 0 in k order, then C = s (+ beta
 * C fused) for the first block and C = s + C for the later ones. Shapes
 * whose pa makes one group of several K blocks (197 rows: ViT), groups of
 * three blocks with a group boundary inside K (700 rows), and groups of one
 * block (1400 rows); partial row and column slivers; beta 0 and not; and
 * the product split into row blocks (as ops/matmul.c's prepared MatMul
 * splits it) the same bytes as whole. And the packing of A (pack_a_case)
 * value for value where it goes, and of B a block of rows at a time
 * (pack_rows_case) for floats and 2-byte elements. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/cpu.h"
#include "core/gemm.h"

static unsigned rng = 4242;
static double rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* one element in the kernels' order (alpha 1), the FMA builds' bits */
static float kernel_order(const float *a, const float *b, int64_t sb, int64_t K, float beta, float c) {
  for (int64_t k0 = 0; k0 < K; k0 += 256) {
    float s = 0;
    for (int64_t k = k0; k < K && k < k0 + 256; k++) s = fmaf(a[k], b[k * sb], s);
    float bt = k0 ? 1 : beta;
    c = bt == 0 ? s : fmaf(bt, c, s);
  }
  return c;
}

static void *alloc64(size_t bytes) { return aligned_alloc(64, (bytes + 63) / 64 * 64); }

/* (M, N, K) at the current level: ox_sgemm_packed against kernel_order
 * (levels with FMA) and against ox_sgemm, whole and by row blocks of rb
 * rows (a multiple of mr). Returns the bad elements or rows. */
static int packed_case(int64_t M, int64_t N, int64_t K, float beta, int64_t rb) {
  ox_gemm_plan gp = ox_sgemm_plan_now();
  int64_t mp = (M + gp.mr - 1) / gp.mr * gp.mr, np = (N + gp.nr - 1) / gp.nr * gp.nr;
  float *a = malloc(sizeof(float) * (size_t)(M * K)), *b = malloc(sizeof(float) * (size_t)(K * N));
  float *c0 = malloc(sizeof(float) * (size_t)(M * N)), *c = malloc(sizeof(float) * (size_t)(M * N));
  float *c2 = malloc(sizeof(float) * (size_t)(M * N)), *c3 = malloc(sizeof(float) * (size_t)(M * N));
  float *pa = alloc64(sizeof(float) * (size_t)(mp * K)), *pb = alloc64(sizeof(float) * (size_t)(np * K));
  for (int64_t i = 0; i < M * K; i++) a[i] = (float)rnd();
  for (int64_t i = 0; i < K * N; i++) b[i] = (float)rnd();
  for (int64_t i = 0; i < M * N; i++) c0[i] = (float)rnd();
  ox_sgemm_pack_a(&gp, M, K, a, K, 0, pa);
  ox_sgemm_pack_b(&gp, K, N, b, N, pb);
  memcpy(c, c0, sizeof(float) * (size_t)(M * N));
  memcpy(c2, c0, sizeof(float) * (size_t)(M * N));
  memcpy(c3, c0, sizeof(float) * (size_t)(M * N));
  ox_sgemm_packed(&gp, M, N, K, pa, pb, c, N, beta);
  ox_sgemm(1, M, N, K, a, K, 0, b, N, 0, c2, N, 1, beta);
  for (int64_t r0 = 0; r0 < M; r0 += rb) /* row blocks, each packed on its own as prepared_rows does */
    ox_sgemm_packed(&gp, M - r0 < rb ? M - r0 : rb, N, K, pa + r0 * K, pb, c3 + r0 * N, N, beta);
  int bad = 0;
  for (int64_t i = 0; i < M; i++)
    bad += memcmp(c + i * N, c2 + i * N, sizeof(float) * (size_t)N) != 0 ||
           memcmp(c + i * N, c3 + i * N, sizeof(float) * (size_t)N) != 0;
  if (bad) fprintf(stderr, "packed %s M=%lld N=%lld K=%lld: %d rows not the blocked product's\n", ox_gemm_isa(),
                   (long long)M, (long long)N, (long long)K, bad);
  for (int64_t i = 0; gp.level >= OX_CPU_AVX2 && i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      float want = kernel_order(a + i * K, b + j, N, K, beta, c0[i * N + j]);
      if (memcmp(&c[i * N + j], &want, sizeof want)) {
        if (bad < 3)
          fprintf(stderr, "packed %s M=%lld N=%lld K=%lld (%lld,%lld): got %.9g want %.9g\n", ox_gemm_isa(),
                  (long long)M, (long long)N, (long long)K, (long long)i, (long long)j, c[i * N + j], want);
        bad++;
      }
    }
  free(a), free(b), free(c0), free(c), free(c2), free(c3), free(pa), free(pb);
  return bad;
}

/* the double product against ox_dgemm (the same template) */
static int packed_case_d(int64_t M, int64_t N, int64_t K, double beta) {
  ox_gemm_plan gp = ox_dgemm_plan_now();
  int64_t mp = (M + gp.mr - 1) / gp.mr * gp.mr, np = (N + gp.nr - 1) / gp.nr * gp.nr;
  double *a = malloc(sizeof(double) * (size_t)(M * K)), *b = malloc(sizeof(double) * (size_t)(K * N));
  double *c = malloc(sizeof(double) * (size_t)(M * N)), *c2 = malloc(sizeof(double) * (size_t)(M * N));
  double *pa = alloc64(sizeof(double) * (size_t)(mp * K)), *pb = alloc64(sizeof(double) * (size_t)(np * K));
  for (int64_t i = 0; i < M * K; i++) a[i] = rnd();
  for (int64_t i = 0; i < K * N; i++) b[i] = rnd();
  for (int64_t i = 0; i < M * N; i++) c[i] = c2[i] = rnd();
  ox_dgemm_pack_a(&gp, M, K, a, K, 0, pa);
  ox_dgemm_pack_b(&gp, K, N, b, N, pb);
  ox_dgemm_packed(&gp, M, N, K, pa, pb, c, N, beta);
  ox_dgemm(1, M, N, K, a, K, 0, b, N, 0, c2, N, 1, beta);
  int bad = memcmp(c, c2, sizeof(double) * (size_t)(M * N)) != 0;
  if (bad) fprintf(stderr, "packed double %s M=%lld N=%lld K=%lld: not the blocked product's\n", ox_gemm_isa(),
                   (long long)M, (long long)N, (long long)K);
  free(a), free(b), free(c), free(c2), free(pa), free(pb);
  return bad;
}

/* ox_[sd]gemm_pack_a against its definition, pa[(s K + k) mr + r] =
 * op(A)(s mr + r, k), zero past M: whole slivers of 8 rows (the AVX-512
 * builds transpose them 8 k at a time), a partial one, K with a tail of
 * k past the last 8, lda padded; A transposed too. Returns the bad ones. */
static int pack_a_case(int dbl, int64_t M, int64_t K, int ta) {
  ox_gemm_plan gp = dbl ? ox_dgemm_plan_now() : ox_sgemm_plan_now();
  int64_t mr = gp.mr, mp = (M + mr - 1) / mr * mr, lda = (ta ? M : K) + 3, n = (ta ? K : M) * lda;
  double *a = malloc(sizeof(double) * (size_t)n), *pa = malloc(sizeof(double) * (size_t)(mp * K));
  float *af = malloc(sizeof(float) * (size_t)n), *paf = malloc(sizeof(float) * (size_t)(mp * K));
  for (int64_t i = 0; i < n; i++) af[i] = (float)(a[i] = rnd());
  if (dbl) ox_dgemm_pack_a(&gp, M, K, a, lda, ta, pa);
  else ox_sgemm_pack_a(&gp, M, K, af, lda, ta, paf);
  int bad = 0;
  for (int64_t s = 0; s * mr < M; s++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t r = 0; r < mr; r++) {
        int64_t i = s * mr + r, at = (s * K + k) * mr + r, src = ta ? k * lda + i : i * lda + k;
        double want = i < M ? (dbl ? a[src] : af[src]) : 0, got = dbl ? pa[at] : paf[at];
        bad += got != want;
      }
  if (bad) fprintf(stderr, "pack_a %s %s M=%lld K=%lld ta=%d: %d wrong\n", dbl ? "double" : "float", ox_gemm_isa(),
                   (long long)M, (long long)K, ta, bad);
  free(a), free(pa), free(af), free(paf);
  return bad;
}

/* ox_gemm_pack_b_rows against its definition, pb[(s K + k) nr + j] =
 * B(k, s nr + j) (the element's bytes), zero past N, for es 4 and 2: B
 * given in three blocks of rows (ldb padded), each block's rows landing in
 * their places and every byte of pb written; with es 4 the bytes of
 * ox_sgemm_pack_b too. Returns the bad ones. */
static int pack_rows_case(size_t es, int64_t K, int64_t N) {
  ox_gemm_plan gp = ox_sgemm_plan_now();
  int64_t nr = gp.nr, np = (N + nr - 1) / nr * nr, ldb = N + 5, cut[4] = {0, K / 3, K / 3 + 1, K};
  unsigned char *b = malloc(es * (size_t)(K * ldb)), *pb = malloc(es * (size_t)(np * K));
  float *ref = malloc(sizeof(float) * (size_t)(np * K));
  for (int64_t i = 0; i < (int64_t)es * K * ldb; i++) b[i] = (unsigned char)(rnd() * 128 + 128);
  memset(pb, 0xA5, es * (size_t)(np * K));
  for (int c = 2; c >= 0; c--) /* the blocks in any order */
    ox_gemm_pack_b_rows(&gp, K, N, cut[c], cut[c + 1], b + (size_t)(cut[c] * ldb) * es, ldb, es, pb);
  int bad = 0;
  for (int64_t s = 0; s * nr < N; s++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t j = 0; j < nr; j++) {
        const unsigned char *got = pb + (size_t)((s * K + k) * nr + j) * es, *src = b + (size_t)(k * ldb + s * nr + j) * es;
        static const unsigned char zero[8];
        bad += memcmp(got, s * nr + j < N ? src : zero, es) != 0;
      }
  if (es == 4) {
    ox_sgemm_pack_b(&gp, K, N, (const float *)b, ldb, ref);
    bad += memcmp(ref, pb, sizeof(float) * (size_t)(np * K)) != 0;
  }
  if (bad) fprintf(stderr, "pack_b_rows es=%d %s K=%lld N=%lld: %d wrong\n", (int)es, ox_gemm_isa(), (long long)K,
                   (long long)N, bad);
  free(b), free(pb), free(ref);
  return bad;
}

int main(void) {
  static const int64_t shapes[][4] = {/* M, N, K, rows per block (a multiple of every mr: 6, 8) */
    {197, 101, 808, 96},   /* one group of 4 K blocks (the last partial); 24 slivers + 5 rows; 2 slivers + 5 columns */
    {700, 53, 1000, 336},  /* pa 700 KiB per K block: groups of 3 blocks, then 1 */
    {1400, 20, 600, 1400}, /* 1.4 MiB per K block: groups of one block (the order of ox_sgemm) */
    {40, 200, 3000, 24}};  /* a thin pa: one group of 12 blocks */
  for (int isa = ox_cpu_level(); isa >= 0; isa--) {
    ox_gemm_max_isa(isa);
    int bad = 0;
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
      for (int bt = 0; bt < 2; bt++)
        bad += packed_case(shapes[s][0], shapes[s][1], shapes[s][2], bt ? 0.5f : 0, shapes[s][3]);
    bad += packed_case_d(197, 30, 600, 0) + packed_case_d(900, 11, 700, -1.5);
    CHECK_EQ_I(bad, 0);
    int pbad = 0;
    for (int dbl = 0; dbl < 2; dbl++)
      for (int ta = 0; ta < 2; ta++)
        pbad += pack_a_case(dbl, 197, 301, ta) + pack_a_case(dbl, 16, 8, ta) + pack_a_case(dbl, 8, 5, ta) +
                pack_a_case(dbl, 3, 40, ta);
    for (size_t es = 2; es <= 4; es += 2)
      pbad += pack_rows_case(es, 300, 97) + pack_rows_case(es, 7, 48) + pack_rows_case(es, 64, 5);
    CHECK_EQ_I(pbad, 0);
  }
  ox_gemm_max_isa(-1);
  return check_done("gemm");
}
