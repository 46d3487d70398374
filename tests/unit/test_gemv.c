/* tests/unit/test_gemv.c: the thin products of core/gemv.c (one side a
 * vector or a few rows) against a long double triple loop, for every build
 * the CPU runs (generic, AVX2, AVX-512), every transpose, padded leading
 * dimensions, alpha and beta, odd and empty sizes; the same bytes with 1, 2
 * and 3 threads; and Gemm and MatMul through the registry taking that path
 * and agreeing with the blocked GEMM. And the products from a packed B
 * (ox_sgemm_thin_packed, _h) at levels whose vectors do not divide its
 * slivers: the bytes of the product from B unpacked. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "core/gemm.h"
#include "core/gemv.h"
#include "core/half.h"
#include "core/threads.h"

static unsigned rng = 777;
static double rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* ox_[sd]gemm_thin on (M, N, K) against the loop; the bound grows with K (one
 * rounding of the accumulator per term). Returns the bad elements. */
static int thin_case(int dbl, int64_t M, int64_t N, int64_t K, int ta, int tb, int64_t pad,
                     double alpha, double beta) {
  int64_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
  int64_t na = (ta ? K : M) * lda, nb = (tb ? N : K) * ldb, nc = M * ldc;
  double *a = malloc(sizeof(double) * (size_t)(na + 1)), *b = malloc(sizeof(double) * (size_t)(nb + 1));
  double *c0 = malloc(sizeof(double) * (size_t)(nc + 1));
  void *av = malloc(sizeof(double) * (size_t)(na + 1)), *bv = malloc(sizeof(double) * (size_t)(nb + 1));
  void *cv = malloc(sizeof(double) * (size_t)(nc + 1));
  for (int64_t i = 0; i < na; i++) a[i] = dbl ? rnd() : (float)rnd();
  for (int64_t i = 0; i < nb; i++) b[i] = dbl ? rnd() : (float)rnd();
  for (int64_t i = 0; i < nc; i++) c0[i] = dbl ? rnd() : (float)rnd();
  for (int64_t i = 0; i < na; i++) dbl ? (((double *)av)[i] = a[i]) : (((float *)av)[i] = (float)a[i]);
  for (int64_t i = 0; i < nb; i++) dbl ? (((double *)bv)[i] = b[i]) : (((float *)bv)[i] = (float)b[i]);
  for (int64_t i = 0; i < nc; i++) dbl ? (((double *)cv)[i] = c0[i]) : (((float *)cv)[i] = (float)c0[i]);
  if (dbl) ox_dgemm_thin(0, M, N, K, av, lda, ta, bv, ldb, tb, cv, ldc, alpha, beta);
  else ox_sgemm_thin(0, M, N, K, av, lda, ta, bv, ldb, tb, cv, ldc, (float)alpha, (float)beta);
  double eps = dbl ? 1.2e-16 : 6e-8;
  int bad = 0;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < ldc; j++) {
      double got = dbl ? ((double *)cv)[i * ldc + j] : ((float *)cv)[i * ldc + j];
      if (j >= N) { /* padding is never written */
        bad += got != c0[i * ldc + j];
        continue;
      }
      long double s = 0, mag = 0;
      for (int64_t k = 0; k < K; k++) {
        double x = ta ? a[k * lda + i] : a[i * lda + k], y = tb ? b[j * ldb + k] : b[k * ldb + j];
        s += (long double)x * y;
        mag += fabs(x * y);
      }
      long double want = (long double)alpha * s + (beta == 0 ? 0 : (long double)beta * c0[i * ldc + j]);
      double tol = (double)(K + 4) * eps * (fabs(alpha) * (double)mag + fabs(beta * c0[i * ldc + j]) + 1e-30);
      if (!(fabsl((long double)got - want) <= tol)) {
        if (bad < 3)
          fprintf(stderr, "thin %s M=%lld N=%lld K=%lld ta=%d tb=%d pad=%lld (%lld,%lld): got %.9g want %.9Lg\n",
                  dbl ? "double" : "float", (long long)M, (long long)N, (long long)K, ta, tb, (long long)pad,
                  (long long)i, (long long)j, got, want);
        bad++;
      }
    }
  free(a);
  free(b);
  free(c0);
  free(av);
  free(bv);
  free(cv);
  return bad;
}

/* the same product with 1, 2 and 3 threads: the same bytes */
static int threads_same(int64_t M, int64_t N, int64_t K, int ta, int tb) {
  int64_t lda = ta ? M : K, ldb = tb ? K : N;
  float *a = malloc(sizeof(float) * (size_t)(M * K)), *b = malloc(sizeof(float) * (size_t)(N * K));
  float *c[3];
  for (int64_t i = 0; i < M * K; i++) a[i] = (float)rnd();
  for (int64_t i = 0; i < N * K; i++) b[i] = (float)rnd();
  int same = 1;
  for (int t = 0; t < 3; t++) {
    c[t] = malloc(sizeof(float) * (size_t)(M * N));
    ox_set_threads(t + 1);
    ox_sgemm_thin(0, M, N, K, a, lda, ta, b, ldb, tb, c[t], N, 1, 0);
    if (t) same &= !memcmp(c[0], c[t], sizeof(float) * (size_t)(M * N));
  }
  ox_set_threads(1);
  free(a);
  free(b);
  for (int t = 0; t < 3; t++) free(c[t]);
  return same;
}

/* The axpy form (op(B) stored (K, N)) sums each output over k in order, one
 * multiply-add at a time: with FMA (the AVX2 and AVX-512 builds) the
 * chain fmaf(a_k, b_k, s) from s = 0, whatever bands of columns and blocks
 * of k it reads B in; the portable build rounds the product first. Rows 1
 * to 4, columns over two bands and a partial tile, K over several blocks. */
static int axpy_exact(int lv, int64_t M, int64_t N, int64_t K) {
  float *a = malloc(sizeof(float) * (size_t)(M * K)), *b = malloc(sizeof(float) * (size_t)(K * N));
  float *c = malloc(sizeof(float) * (size_t)(M * N));
  for (int64_t i = 0; i < M * K; i++) a[i] = (float)rnd();
  for (int64_t i = 0; i < K * N; i++) b[i] = (float)rnd();
  ox_sgemm_thin(0, M, N, K, a, K, 0, b, N, 0, c, N, 1, 0);
  int bad = 0;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      float s = 0;
      for (int64_t k = 0; k < K; k++) {
        if (lv) s = fmaf(a[i * K + k], b[k * N + j], s);
        else {
          volatile float p = a[i * K + k] * b[k * N + j];
          s = s + p;
        }
      }
      bad += memcmp(&s, &c[i * N + j], sizeof s) != 0;
    }
  free(a), free(b), free(c);
  return bad;
}

/* B (K, N) packed at the best level (slivers of its nr: 48 columns for
 * AVX-512), as floats or (h) float16, then ox_sgemm_thin_packed(_h) at
 * each level: where the level's vectors do not make up a sliver (48 is 6
 * AVX2 vectors, 12 SSE ones) it sums a column at a time, in the same
 * order over k, so the bytes of ox_sgemm_thin from B (widened) unpacked,
 * at 1 and 3 threads. Returns the bad products. */
static int packed_levels(int h, int64_t M, int64_t K, int64_t N) {
  ox_gemm_max_isa(-1);
  ox_gemm_plan gp = ox_sgemm_plan_now();
  int64_t nr = gp.nr, np = (N + nr - 1) / nr * nr;
  float *a = malloc(sizeof(float) * (size_t)(M * K)), *bw = malloc(sizeof(float) * (size_t)(K * N));
  uint16_t *bh = malloc(2 * (size_t)(K * N));
  void *pb = malloc((h ? 2 : 4) * (size_t)(np * K));
  float *c0 = malloc(sizeof(float) * (size_t)(M * N)), *c1 = malloc(sizeof(float) * (size_t)(M * N));
  for (int64_t i = 0; i < M * K; i++) a[i] = (float)rnd();
  for (int64_t i = 0; i < K * N; i++) {
    bh[i] = ox_f32_to_f16((float)rnd());
    bw[i] = h ? ox_f16_to_f32(bh[i]) : (float)rnd();
  }
  ox_gemm_pack_b_rows(&gp, K, N, 0, K, h ? (const void *)bh : bw, N, h ? 2 : 4, pb);
  int bad = 0;
  for (int lv = ox_cpu_level(); lv >= 0; lv--)
    for (int th = 1; th <= 3; th += 2) {
      ox_gemm_max_isa(lv);
      for (int64_t i = 0; i < M * N; i++) c0[i] = c1[i] = (float)rnd();
      ox_sgemm_thin(1, M, N, K, a, K, 0, bw, N, 0, c0, N, 1.5f, 0.5f);
      if (h) ox_sgemm_thin_packed_h(th, M, N, K, a, K, pb, OX_PB16_NONAN, nr, c1, N, 1.5f, 0.5f);
      else ox_sgemm_thin_packed(th, M, N, K, a, K, pb, nr, c1, N, 1.5f, 0.5f);
      if (memcmp(c0, c1, sizeof(float) * (size_t)(M * N))) {
        fprintf(stderr, "thin_packed%s M=%lld K=%lld N=%lld nr=%lld under %s, %d threads: not the bytes from B\n",
                h ? "_h" : "", (long long)M, (long long)K, (long long)N, (long long)nr, ox_gemm_isa(), th);
        bad++;
      }
    }
  ox_gemm_max_isa(-1);
  free(a), free(bw), free(bh), free(pb), free(c0), free(c1);
  return bad;
}

int main(void) {
  A = ox_arena_new();
  CHECK(ox_gemm_is_thin(1, 128, 3264));
  CHECK(ox_gemm_is_thin(1000, 3, 50));
  CHECK(!ox_gemm_is_thin(5, 5, 50));
  CHECK(!ox_gemm_is_thin(0, 5, 50));

  /* every build, shapes around the tile widths (4 columns; 4 vectors) */
  static const int64_t Ns[] = {1, 3, 4, 5, 17, 63, 64, 65, 130};
  static const int64_t Ks[] = {1, 7, 16, 31, 520, 1100};
  static const int64_t Ms[] = {5, 33, 200};
  for (int lv = 0; lv <= 2; lv++) {
    ox_gemm_max_isa(lv);
    int bad = 0;
    for (int dbl = 0; dbl < 2; dbl++)
      for (int t = 0; t < 4; t++) {
        int ta = t & 1, tb = t >> 1;
        for (int64_t M = 1; M <= OX_THIN; M++)
          for (size_t n = 0; n < sizeof Ns / sizeof *Ns; n++)
            for (size_t k = 0; k < sizeof Ks / sizeof *Ks; k++)
              bad += thin_case(dbl, M, Ns[n], Ks[k], ta, tb, (M + n + k) % 3 ? 0 : 3, 1, 0);
        /* op(B) the thin side: the product turned round */
        for (size_t m = 0; m < sizeof Ms / sizeof *Ms; m++)
          for (int64_t N = 1; N <= OX_THIN; N++)
            for (size_t k = 0; k < sizeof Ks / sizeof *Ks; k++)
              bad += thin_case(dbl, Ms[m], N, Ks[k], ta, tb, k % 2 ? 2 : 0, 1, 0);
        bad += thin_case(dbl, 3, 70, 33, ta, tb, 1, 0.5, 2);
        bad += thin_case(dbl, 70, 2, 33, ta, tb, 1, -1.5, 1);
      }
    CHECK_EQ_I(bad, 0);
    if (bad) fprintf(stderr, "build %s: %d bad elements\n", ox_gemm_isa(), bad);
  }
  ox_gemm_max_isa(-1);

  for (int lv = 0; lv <= 2; lv++) {
    ox_gemm_max_isa(lv);
    if (strcmp(ox_gemm_isa(), lv == 0 ? "generic" : lv == 1 ? "avx2+fma" : "avx512f")) continue; /* not on this CPU */
    int bad = 0;
    for (int64_t M = 1; M <= OX_THIN; M++) bad += axpy_exact(lv, M, 2000, 100) + axpy_exact(lv, M, 70, 17);
    if (bad) fprintf(stderr, "axpy under %s: %d elements not the in-order sum\n", ox_gemm_isa(), bad);
    CHECK_EQ_I(bad, 0);
  }
  ox_gemm_max_isa(-1);

  for (int h = 0; h < 2; h++)
    for (int64_t M = 1; M <= OX_THIN; M++) CHECK_EQ_I(packed_levels(h, M, 300, 97) + packed_levels(h, M, 70, 200), 0);

  /* K = 0: C = beta * C; beta = 0 never reads C (a NaN there stays out) */
  {
    float c[4] = {NAN, NAN, 3, 4}, one = 1;
    ox_sgemm_thin(0, 1, 2, 0, &one, 1, 0, &one, 2, 0, c, 2, 1, 0);
    CHECK(c[0] == 0 && c[1] == 0);
    ox_sgemm_thin(0, 1, 2, 0, &one, 1, 0, &one, 2, 0, c + 2, 2, 1, 2);
    CHECK(c[2] == 6 && c[3] == 8);
    float a[3] = {1, 2, 3}, b[6] = {1, 1, 1, 2, 2, 2}, y[2] = {NAN, NAN};
    ox_sgemm_thin(0, 1, 2, 3, a, 3, 0, b, 3, 1, y, 2, 1, 0);
    CHECK(y[0] == 6 && y[1] == 12);
    ox_sgemm_thin(0, 0, 2, 3, a, 3, 0, b, 3, 1, y, 2, 1, 0); /* nothing */
    CHECK(y[0] == 6);
  }

  /* threads: dot, axpy, turned round (2 M N K above the pool's threshold) */
  CHECK(threads_same(1, 1000, 1100, 0, 1));
  CHECK(threads_same(3, 1000, 1100, 1, 0));
  CHECK(threads_same(1000, 2, 700, 0, 0));

  /* Gemm (1, 3264) x (128, 3264)^T + C and MatMul (4, 1024) x (1024, 1024)
   * through the registry: the thin path, against the blocked GEMM */
  {
    int64_t K = 3264, N = 128;
    ox_value *a = tensor(OX_FLOAT, 2, (int64_t[]){1, K}, NULL), *b = tensor(OX_FLOAT, 2, (int64_t[]){N, K}, NULL);
    ox_value *cc = tensor(OX_FLOAT, 1, (int64_t[]){N}, NULL), *y = NULL;
    float *pa = a->u.t.data, *pb = b->u.t.data, *pc = cc->u.t.data;
    for (int64_t i = 0; i < K; i++) pa[i] = (float)rnd();
    for (int64_t i = 0; i < N * K; i++) pb[i] = (float)rnd();
    for (int64_t i = 0; i < N; i++) pc[i] = (float)rnd();
    ox_attr at[] = {attr_int("transB", 1)};
    CHECK_EQ_I(kit_run("", "Gemm", 13, 1, at, 3, (ox_value *[]){a, b, cc}, 1, &y), 0);
    float ref[128];
    for (int64_t j = 0; j < N; j++) ref[j] = pc[j];
    ox_sgemm(0, 1, N, K, pa, K, 0, pb, K, 1, ref, N, 1, 1);
    int close = y && y->u.t.n == N;
    for (int64_t j = 0; close && j < N; j++) close = fabsf(((float *)y->u.t.data)[j] - ref[j]) <= 1e-4f;
    CHECK(close);

    int64_t M = 4, K2 = 1024, N2 = 1024;
    ox_value *x = tensor(OX_FLOAT, 2, (int64_t[]){M, K2}, NULL), *w = tensor(OX_FLOAT, 2, (int64_t[]){K2, N2}, NULL);
    float *px = x->u.t.data, *pw = w->u.t.data;
    for (int64_t i = 0; i < M * K2; i++) px[i] = (float)rnd();
    for (int64_t i = 0; i < K2 * N2; i++) pw[i] = (float)rnd();
    CHECK_EQ_I(kit_run("", "MatMul", 13, 0, NULL, 2, (ox_value *[]){x, w}, 1, &y), 0);
    float *r2 = malloc(sizeof(float) * (size_t)(M * N2));
    ox_sgemm(0, M, N2, K2, px, K2, 0, pw, N2, 0, r2, N2, 1, 0);
    close = y && y->u.t.n == M * N2;
    for (int64_t j = 0; close && j < M * N2; j++) close = fabsf(((float *)y->u.t.data)[j] - r2[j]) <= 1e-4f;
    CHECK(close);
    free(r2);
  }

  ox_arena_free(A);
  return check_done("gemv");
}
