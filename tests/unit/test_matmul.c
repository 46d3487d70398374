/* tests/unit/test_matmul.c: the GEMM of core/gemm.c against a plain triple
 * loop (every micro-kernel the CPU has, odd shapes, transposes, strides,
 * alpha/beta), and the MatMul, Gemm, MatMulInteger, Einsum and Det kernels
 * called through the registry with a hand-made node. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "core/eval.h"
#include "core/gemm.h"
#include "core/gemv.h"
#include "core/cpu.h"
#include "core/half.h"
#include "core/threads.h"

/* ---- the GEMM against a triple loop ---- */

static unsigned rng = 12345;
static double rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* Compare ox_sgemm / ox_dgemm on (M, N, K) with transposes, leading
 * dimensions padded by `pad`, alpha and beta, against a double (long double
 * for double) triple loop. The bound scales with K: each term adds at most
 * one rounding of the accumulator. Returns the number of bad elements. */
static int gemm_case(int dbl, int64_t M, int64_t N, int64_t K, int ta, int tb, int64_t pad,
                     double alpha, double beta) {
  int64_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
  int64_t na = (ta ? K : M) * lda, nb = (tb ? N : K) * ldb, nc = M * ldc;
  double *a = malloc(sizeof(double) * (size_t)(na + 1)), *b = malloc(sizeof(double) * (size_t)(nb + 1));
  double *c0 = malloc(sizeof(double) * (size_t)(nc + 1));
  void *cv = malloc(sizeof(double) * (size_t)(nc + 1));
  void *av = malloc(sizeof(double) * (size_t)(na + 1)), *bv = malloc(sizeof(double) * (size_t)(nb + 1));
  for (int64_t i = 0; i < na; i++) a[i] = rnd();
  for (int64_t i = 0; i < nb; i++) b[i] = rnd();
  for (int64_t i = 0; i < nc; i++) c0[i] = rnd();
  for (int64_t i = 0; i < na; i++) dbl ? (((double *)av)[i] = a[i]) : (((float *)av)[i] = (float)a[i]);
  for (int64_t i = 0; i < nb; i++) dbl ? (((double *)bv)[i] = b[i]) : (((float *)bv)[i] = (float)b[i]);
  for (int64_t i = 0; i < nc; i++) dbl ? (((double *)cv)[i] = c0[i]) : (((float *)cv)[i] = (float)c0[i]);
  if (dbl)
    ox_dgemm(0, M, N, K, av, lda, ta, bv, ldb, tb, cv, ldc, alpha, beta);
  else
    ox_sgemm(0, M, N, K, av, lda, ta, bv, ldb, tb, cv, ldc, (float)alpha, (float)beta);
  double eps = dbl ? 1.1e-16 : 6e-8;
  int bad = 0;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < ldc; j++) {
      double got = dbl ? ((double *)cv)[i * ldc + j] : ((float *)cv)[i * ldc + j];
      double c = dbl ? c0[i * ldc + j] : (float)c0[i * ldc + j];
      if (j >= N) { /* padding is never written */
        bad += got != c;
        continue;
      }
      long double s = 0, mag = 0;
      for (int64_t k = 0; k < K; k++) {
        double x = dbl ? (ta ? a[k * lda + i] : a[i * lda + k]) : (float)(ta ? a[k * lda + i] : a[i * lda + k]);
        double y = dbl ? (tb ? b[j * ldb + k] : b[k * ldb + j]) : (float)(tb ? b[j * ldb + k] : b[k * ldb + j]);
        s += (long double)x * y;
        mag += fabs(x * y);
      }
      double want = (double)(alpha * s + (beta == 0 ? 0 : beta * c));
      double tol = 2 * eps * ((double)(K + 2) * fabs(alpha) * (double)mag + fabs(beta * c) + fabs(want));
      if (!(fabs(got - want) <= tol)) {
        if (bad < 3)
          fprintf(stderr, "gemm %s %s M=%lld N=%lld K=%lld ta=%d tb=%d: (%lld,%lld) got %.9g want %.9g\n",
                  dbl ? "double" : "float", ox_gemm_isa(), (long long)M, (long long)N, (long long)K,
                  ta, tb, (long long)i, (long long)j, got, want);
        bad++;
      }
    }
  free(a), free(b), free(c0), free(cv), free(av), free(bv);
  return bad;
}

static void test_gemm(void) {
  static const int64_t sizes[] = {1, 2, 3, 5, 8, 17, 33, 65, 130};
  enum { NS = sizeof sizes / sizeof *sizes };
  for (int isa = 0; isa <= 2; isa++) {
    ox_gemm_max_isa(isa);
    int bad = 0, cases = 0;
    for (int dbl = 0; dbl < 2; dbl++)
      for (int mi = 0; mi < NS; mi++)
        for (int ni = 0; ni < NS; ni++)
          for (int ki = 0; ki < NS; ki++) {
            if ((mi + 2 * ni + 3 * ki + dbl) % 3) continue; /* a third of the shapes */
            int t = (mi + ni + ki) % 4;
            double alpha = (mi + ki) % 3 == 0 ? 1 : -0.75, beta = ni % 3 == 0 ? 0 : (ni % 3 == 1 ? 1 : 0.5);
            bad += gemm_case(dbl, sizes[mi], sizes[ni], sizes[ki], t & 1, t >> 1, (mi + ni) % 2 * 3,
                             alpha, beta);
            cases++;
          }
    /* shapes that cross the K, M and N blocks (256, 72..128, 768..3072) */
    bad += gemm_case(0, 13, 3100, 260, 0, 0, 0, 1, 0);
    bad += gemm_case(0, 300, 70, 520, 1, 1, 1, 0.5, 1);
    bad += gemm_case(1, 150, 800, 260, 0, 1, 0, 1, 1);
    bad += gemm_case(1, 70, 1600, 40, 1, 0, 2, 2, 0);
    CHECK(cases > 400);
    CHECK_EQ_I(bad, 0);
  }
  ox_gemm_max_isa(-1);
  CHECK(ox_gemm_isa() != NULL);

  /* beta = 0: C is not read, so NaN there does not leak; K = 0: C = beta * C */
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4] = {NAN, NAN, NAN, NAN};
  ox_sgemm(0, 2, 2, 3, a, 3, 0, b, 2, 0, c, 2, 1, 0); /* (2,3) x (3,2) */
  CHECK(c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11);
  float d[4] = {1, 2, NAN, 4};
  ox_sgemm(0, 2, 2, 0, a, 1, 0, b, 2, 0, d, 2, 1, 2);
  CHECK(d[0] == 2 && d[1] == 4 && isnan(d[2]) && d[3] == 8);
  ox_sgemm(0, 2, 2, 0, a, 1, 0, b, 2, 0, d, 2, 1, 0);
  CHECK(d[0] == 0 && d[2] == 0);
  double x[2] = {3, 4}, y[1] = {0};
  ox_dgemm(0, 1, 1, 2, x, 2, 0, x, 1, 0, y, 1, 1, 0); /* a dot product */
  CHECK(y[0] == 25);
}

/* Small products take the blocked kernel as large ones do: each element of
 * an (M, N, K) product has the bits it has in an (M, N + W, K) product
 * (the same columns, the same K blocks), for sizes M N K at most 4096 that
 * once took a plain loop (separate multiply and add where the kernel fuses
 * them), and for wider ones. Every micro-kernel the CPU has. */
static void test_gemm_small(void) {
  static const int64_t shapes[][3] = {/* M, N, K; none thin (M, N > 4) */
    {16, 16, 16}, {5, 5, 5}, {8, 8, 64}, {12, 20, 16}, {6, 9, 3}, {16, 5, 48}, {7, 33, 17}, {20, 12, 300}};
  for (int isa = 0; isa <= 2; isa++) {
    ox_gemm_max_isa(isa);
    int bad = 0;
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
      for (int t = 0; t < 4; t++) {
        int ta = t & 1, tb = t >> 1;
        int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], W = N + 64; /* the wide one */
        float *a = malloc(sizeof(float) * (size_t)(M * K)), *b = malloc(sizeof(float) * (size_t)(W * K));
        float *c = malloc(sizeof(float) * (size_t)(M * N)), *cw = malloc(sizeof(float) * (size_t)(M * W));
        for (int64_t i = 0; i < M * K; i++) a[i] = (float)rnd();
        for (int64_t i = 0; i < W * K; i++) b[i] = (float)rnd();
        for (int64_t i = 0; i < M * N; i++) c[i] = (float)rnd();
        for (int64_t i = 0; i < M; i++)
          for (int64_t j = 0; j < W; j++) cw[i * W + j] = j < N ? c[i * N + j] : 0;
        /* b: (K, W) or, transposed, (W, K); the narrow product reads its first N columns */
        float beta = s % 2 ? 0.5f : 0;
        ox_sgemm(0, M, N, K, a, ta ? M : K, ta, b, tb ? K : W, tb, c, N, 1.25f, beta);
        ox_sgemm(0, M, W, K, a, ta ? M : K, ta, b, tb ? K : W, tb, cw, W, 1.25f, beta);
        for (int64_t i = 0; i < M; i++) bad += memcmp(c + i * N, cw + i * W, (size_t)N * sizeof(float)) != 0;
        free(a), free(b), free(c), free(cw);
      }
    if (bad) fprintf(stderr, "small products under %s: %d rows differ from the wide product's\n", ox_gemm_isa(), bad);
    CHECK_EQ_I(bad, 0);
  }
  ox_gemm_max_isa(-1);
}

/* The AVX2 and AVX-512 kernels' order for one element of ox_sgemm (the
 * bits every path must keep): for each 256 of K, s = fma(a, b, s) from 0
 * in k order, then C = alpha s for the first block (C = alpha s + beta C
 * when beta is not 0, beta C fused into the add) and C = alpha s + C for
 * the later ones. */
static float kernel_order(const float *a, int64_t sa, const float *b, int64_t sb, int64_t K, float alpha,
                          float beta, float c) {
  for (int64_t k0 = 0; k0 < K; k0 += 256) {
    float s = 0;
    for (int64_t k = k0; k < K && k < k0 + 256; k++) s = fmaf(a[k * sa], b[k * sb], s);
    float y = alpha * s, bt = k0 ? 1 : beta;
    c = bt == 0 ? y : fmaf(bt, c, y);
  }
  return c;
}

/* Products whose last row sliver is not whole (197 = 24 * 8 + 5: ViT's
 * tokens; 8 s + 6; 6 s + 5), whose last column sliver is not whole (N =
 * 197), with K over one block or two (300), beta 0 and not: every element
 * the bits of kernel_order at each level with FMA (the AVX-512 kernel takes
 * the last 5 or 6 rows with 6 rows of accumulators, and stores a partial
 * sliver's whole vectors as vectors), by ox_sgemm at 1 and 3 threads and by
 * ox_sgemm_pack_a / ox_sgemm_packed; and at every level the rows the same
 * bits as in a product of 8 more rows. */
static void test_gemm_edge_rows(void) {
  static const int64_t shapes[][3] = {/* M, N, K */
    {197, 96, 64}, {197, 197, 64}, {5, 48, 300}, {6, 53, 300}, {13, 197, 40}, {14, 64, 197}, {29, 96, 20},
    {197, 197, 300}};
  for (int isa = ox_cpu_level(); isa >= 0; isa--) {
    ox_gemm_max_isa(isa);
    ox_gemm_plan gp = ox_sgemm_plan_now();
    int bad = 0;
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
      int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], M2 = M + 8;
      float alpha = s % 2 ? 1.25f : 1, beta = s % 3 ? 0.5f : 0;
      float *a = malloc(sizeof(float) * (size_t)(M2 * K)), *b = malloc(sizeof(float) * (size_t)(K * N));
      float *c0 = malloc(sizeof(float) * (size_t)(M2 * N)), *c = malloc(sizeof(float) * (size_t)(M2 * N));
      float *c2 = malloc(sizeof(float) * (size_t)(M2 * N));
      int64_t mp = (M + gp.mr - 1) / gp.mr * gp.mr, np = (N + gp.nr - 1) / gp.nr * gp.nr;
      float *pa = aligned_alloc(64, (size_t)(mp * K + 16) / 16 * 64); /* whole 64 bytes */
      float *pb = aligned_alloc(64, (size_t)(np * K + 16) / 16 * 64);
      for (int64_t i = 0; i < M2 * K; i++) a[i] = (float)rnd();
      for (int64_t i = 0; i < K * N; i++) b[i] = (float)rnd();
      for (int64_t i = 0; i < M2 * N; i++) c0[i] = (float)rnd();
      for (int th = 1; th <= 3; th += 2) {
        memcpy(c, c0, sizeof(float) * (size_t)(M * N));
        memcpy(c2, c0, sizeof(float) * (size_t)(M2 * N));
        ox_sgemm(th, M, N, K, a, K, 0, b, N, 0, c, N, alpha, beta);
        ox_sgemm(th, M2, N, K, a, K, 0, b, N, 0, c2, N, alpha, beta);
        bad += memcmp(c, c2, sizeof(float) * (size_t)(M * N)) != 0;
        for (int64_t i = 0; isa >= 1 && i < M; i++)
          for (int64_t j = 0; j < N; j++) {
            float want = kernel_order(a + i * K, 1, b + j, N, K, alpha, beta, c0[i * N + j]);
            if (memcmp(&c[i * N + j], &want, sizeof want)) {
              if (bad < 3)
                fprintf(stderr, "edge rows %s M=%lld N=%lld K=%lld (%lld,%lld): got %.9g want %.9g\n", ox_gemm_isa(),
                        (long long)M, (long long)N, (long long)K, (long long)i, (long long)j, c[i * N + j], want);
              bad++;
            }
          }
      }
      /* the pre-packed operands (alpha 1): the bits of ox_sgemm */
      ox_sgemm_pack_a(&gp, M, K, a, K, 0, pa);
      ox_sgemm_pack_b(&gp, K, N, b, N, pb);
      memcpy(c, c0, sizeof(float) * (size_t)(M * N));
      memcpy(c2, c0, sizeof(float) * (size_t)(M * N));
      ox_sgemm_packed(&gp, M, N, K, pa, pb, c, N, beta);
      ox_sgemm(1, M, N, K, a, K, 0, b, N, 0, c2, N, 1, beta);
      bad += memcmp(c, c2, sizeof(float) * (size_t)(M * N)) != 0;
      free(a), free(b), free(c0), free(c), free(c2), free(pa), free(pb);
    }
    if (bad) fprintf(stderr, "edge rows under %s: %d differ\n", ox_gemm_isa(), bad);
    CHECK_EQ_I(bad, 0);
  }
  ox_gemm_max_isa(-1);
}

/* ---- running one node ---- */

#define T_(dt, ctype, rank, dims, ...) tensor(dt, rank, dims, (ctype[])__VA_ARGS__)
#define F32(rank, dims, ...) T_(OX_FLOAT, float, rank, dims, __VA_ARGS__)
#define DIMS(...) ((int64_t[]){__VA_ARGS__})

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  int rc = kit_run("", op, opset, nattr, attr, nin, in, 1, out);
  if (rc && rc != OX_EINPUT) fprintf(stderr, "%s: %s\n", op, E.msg);
  return rc;
}

/* Shape and elements (as doubles, within tol) of a tensor. */
static int is(const ox_value *v, ox_dtype dt, int rank, const int64_t *dims, const double *want,
              double tol) {
  return shape_is(v, rank, dims) && v->u.t.dt == dt && close_d(v, v->u.t.n, want, tol, 0);
}
#define IS(v, dt, rank, dims, ...) is(v, dt, rank, dims, (double[])__VA_ARGS__, 1e-5)

/* ---- MatMul ---- */

static void test_matmul_op(void) {
  ox_value *y, *in[4];
  /* 1-D x 1-D: a scalar */
  in[0] = F32(1, DIMS(3), {1, 2, 3});
  in[1] = F32(1, DIMS(3), {4, 5, 6});
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 0, DIMS(0), {32}));
  /* (2, 2, 3) x (3,): (2, 2) */
  in[0] = F32(3, DIMS(2, 2, 3), {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  CHECK_EQ_I(run("MatMul", 1, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {4, 5, 6, 15}));
  /* (3,) x (2, 3, 2): (2, 2) */
  in[0] = F32(1, DIMS(3), {1, 2, 3});
  in[1] = F32(3, DIMS(2, 3, 2), {1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1});
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {1, 2, 3, 3}));
  /* batch broadcasting: (2, 1, 1, 2) x (3, 2, 1): (2, 3, 1, 1) */
  in[0] = F32(4, DIMS(2, 1, 1, 2), {1, 2, 3, 4});
  in[1] = F32(3, DIMS(3, 2, 1), {1, 1, 1, 0, 0, 1});
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 4, DIMS(2, 3, 1, 1), {3, 1, 2, 7, 3, 4}));
  /* double and float16 */
  in[0] = T_(OX_DOUBLE, double, 2, DIMS(1, 2), {0.1, 0.2});
  in[1] = T_(OX_DOUBLE, double, 2, DIMS(2, 1), {3, 4});
  CHECK_EQ_I(run("MatMul", 9, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_DOUBLE, 2, DIMS(1, 1), {0.1 * 3 + 0.2 * 4}));
  in[0] = T_(OX_FLOAT16, uint16_t, 2, DIMS(1, 2), {0x3c00, 0x4000}); /* 1, 2 */
  in[1] = T_(OX_FLOAT16, uint16_t, 2, DIMS(2, 1), {0x4200, 0x3800}); /* 3, 0.5 */
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT16, 2, DIMS(1, 1), {4}));
  /* int32 wraps around in its own width; int64 is exact past 2^53 */
  in[0] = T_(OX_INT32, int32_t, 2, DIMS(1, 2), {65536, -3});
  in[1] = T_(OX_INT32, int32_t, 2, DIMS(2, 1), {65536, 7});
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK_EQ_I(((int32_t *)y->u.t.data)[0], -21);
  in[0] = T_(OX_INT64, int64_t, 2, DIMS(1, 2), {INT64_C(1) << 60, 3});
  in[1] = T_(OX_INT64, int64_t, 2, DIMS(2, 1), {2, 1});
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(((int64_t *)y->u.t.data)[0] == (INT64_C(1) << 61) + 3);
  in[0] = T_(OX_UINT64, uint64_t, 1, DIMS(2), {UINT64_MAX, 2});
  in[1] = T_(OX_UINT64, uint64_t, 1, DIMS(2), {1, 3});
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(((uint64_t *)y->u.t.data)[0] == 5);
  /* empty dims */
  in[0] = tensor(OX_FLOAT, 2, (int64_t[]){0, 3}, NULL);
  in[1] = tensor(OX_FLOAT, 2, (int64_t[]){3, 2}, NULL);
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(y->u.t.rank == 2 && y->u.t.dims[0] == 0 && y->u.t.dims[1] == 2);
  in[0] = tensor(OX_FLOAT, 2, (int64_t[]){2, 0}, NULL);
  in[1] = tensor(OX_FLOAT, 2, (int64_t[]){0, 2}, NULL);
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {0, 0, 0, 0}));
  /* errors */
  in[0] = tensor(OX_FLOAT, 2, (int64_t[]){2, 3}, NULL);
  in[1] = tensor(OX_FLOAT, 2, (int64_t[]){4, 5}, NULL);
  CHECK_FAILS(run("MatMul", 13, 0, NULL, 2, in, &y), "inner dimensions differ: a is (2, 3), b is (4, 5)");
  in[0] = tensor(OX_FLOAT, 3, (int64_t[]){2, 2, 3}, NULL);
  in[1] = tensor(OX_FLOAT, 3, (int64_t[]){3, 3, 1}, NULL);
  CHECK_FAILS(run("MatMul", 13, 0, NULL, 2, in, &y), "batch dimensions do not broadcast");
  in[0] = tensor(OX_FLOAT, 0, NULL, NULL);
  CHECK_FAILS(run("MatMul", 13, 0, NULL, 2, in, &y), "scalar");
  in[0] = tensor(OX_DOUBLE, 2, (int64_t[]){2, 3}, NULL);
  in[1] = tensor(OX_FLOAT, 2, (int64_t[]){3, 3}, NULL);
  CHECK_FAILS(run("MatMul", 13, 0, NULL, 2, in, &y), "same type");

  /* a bigger product against a naive loop, batched on both sides */
  int64_t M = 37, K = 70, N = 19;
  ox_value *a = tensor(OX_FLOAT, 3, (int64_t[]){3, M, K}, NULL);
  ox_value *b = tensor(OX_FLOAT, 4, (int64_t[]){2, 1, K, N}, NULL);
  float *ad = a->u.t.data, *bd = b->u.t.data;
  for (int64_t i = 0; i < a->u.t.n; i++) ad[i] = (float)rnd();
  for (int64_t i = 0; i < b->u.t.n; i++) bd[i] = (float)rnd();
  in[0] = a;
  in[1] = b;
  CHECK_EQ_I(run("MatMul", 13, 0, NULL, 2, in, &y), 0);
  int bad = 0;
  CHECK(y && y->u.t.rank == 4 && y->u.t.dims[0] == 2 && y->u.t.dims[1] == 3);
  for (int64_t p = 0; y && p < 2; p++)
    for (int64_t q = 0; q < 3; q++)
      for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
          double s = 0;
          for (int64_t k = 0; k < K; k++) s += (double)ad[(q * M + i) * K + k] * bd[(p * K + k) * N + j];
          bad += fabs(((float *)y->u.t.data)[((p * 3 + q) * M + i) * N + j] - s) > 1e-4;
        }
  CHECK_EQ_I(bad, 0);
}

/* ---- Gemm ---- */

static void test_gemm_op(void) {
  ox_value *y, *in[3];
  /* A' = A^T: (2, 3) -> (3, 2); B: (2, 2); C: (2,) broadcast over rows */
  in[0] = F32(2, DIMS(2, 3), {1, 2, 3, 4, 5, 6});
  in[1] = F32(2, DIMS(2, 2), {1, 0, 0, 1});
  in[2] = F32(1, DIMS(2), {10, 20});
  ox_attr at[4] = {attr_int("transA", 1), attr_float("alpha", 2), attr_float("beta", 0.5f)};
  CHECK_EQ_I(run("Gemm", 13, 3, at, 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(3, 2), {7, 18, 9, 20, 11, 22}));
  /* transB, no C (Gemm-11 on) */
  ox_attr tb[1] = {attr_int("transB", 1)};
  in[1] = F32(2, DIMS(1, 3), {1, 1, 1});
  CHECK_EQ_I(run("Gemm", 11, 1, tb, 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 1), {6, 15}));
  /* C: (2, 1) broadcast over columns; beta 0 ignores NaN in C */
  in[1] = F32(2, DIMS(3, 2), {1, 0, 0, 1, 0, 0});
  in[2] = F32(2, DIMS(2, 1), {100, 200});
  CHECK_EQ_I(run("Gemm", 7, 0, NULL, 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {101, 102, 204, 205}));
  in[2] = F32(0, DIMS(0), {NAN});
  ox_attr b0[1] = {attr_float("beta", 0)};
  CHECK_EQ_I(run("Gemm", 13, 1, b0, 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {1, 2, 4, 5}));
  /* Gemm-6: C must be (M, N) unless broadcast = 1 */
  in[2] = F32(1, DIMS(2), {1, 2});
  CHECK_FAILS(run("Gemm", 6, 0, NULL, 3, in, &y), "C has shape (2,)");
  ox_attr bc[1] = {attr_int("broadcast", 1)};
  CHECK_EQ_I(run("Gemm", 6, 1, bc, 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {2, 4, 5, 7}));
  /* errors */
  in[2] = F32(1, DIMS(3), {1, 2, 3});
  CHECK_FAILS(run("Gemm", 13, 0, NULL, 3, in, &y), "C has shape (3,); it must broadcast to (M, N) = (2, 2)");
  in[1] = F32(2, DIMS(2, 2), {1, 0, 0, 1});
  CHECK_FAILS(run("Gemm", 13, 0, NULL, 2, in, &y), "inner dimensions differ");
  in[1] = F32(1, DIMS(3), {1, 0, 0});
  CHECK_FAILS(run("Gemm", 13, 0, NULL, 2, in, &y), "must be 2-D");
  /* integers: exact product, alpha scales and truncates */
  in[0] = T_(OX_INT64, int64_t, 2, DIMS(1, 2), {INT64_C(1) << 55, 1});
  in[1] = T_(OX_INT64, int64_t, 2, DIMS(2, 1), {1, 1});
  in[2] = T_(OX_INT64, int64_t, 0, DIMS(0), {5});
  CHECK_EQ_I(run("Gemm", 13, 0, NULL, 3, in, &y), 0);
  CHECK(((int64_t *)y->u.t.data)[0] == (INT64_C(1) << 55) + 6);
  in[0] = T_(OX_INT32, int32_t, 2, DIMS(1, 2), {3, 4});
  in[1] = T_(OX_INT32, int32_t, 2, DIMS(2, 2), {1, -1, 1, -1});
  in[2] = T_(OX_INT32, int32_t, 1, DIMS(2), {1, 1});
  ox_attr al[1] = {attr_float("alpha", 0.5f)};
  CHECK_EQ_I(run("Gemm", 13, 1, al, 3, in, &y), 0);
  CHECK(IS(y, OX_INT32, 2, DIMS(1, 2), {4, -2})); /* 3.5 + 1 -> 4, -3.5 + 1 -> -2 */
  /* bfloat16 from Gemm-13 */
  in[0] = T_(OX_BFLOAT16, uint16_t, 2, DIMS(1, 1), {0x4040}); /* 3 */
  in[1] = T_(OX_BFLOAT16, uint16_t, 2, DIMS(1, 1), {0x4000}); /* 2 */
  CHECK_EQ_I(run("Gemm", 13, 0, NULL, 2, in, &y), 0);
  CHECK(IS(y, OX_BFLOAT16, 2, DIMS(1, 1), {6}));
}

/* ---- MatMulInteger ---- */

static void test_matmul_integer(void) {
  ox_value *y, *in[4];
  /* A: (2, 3) uint8, a_zero_point per row (2,); B: (3, 2) int8, b_zero_point per column (2,) */
  in[0] = T_(OX_UINT8, uint8_t, 2, DIMS(2, 3), {10, 11, 12, 255, 0, 1});
  in[1] = T_(OX_INT8, int8_t, 2, DIMS(3, 2), {1, -128, 2, 127, 3, 0});
  in[2] = T_(OX_UINT8, uint8_t, 1, DIMS(2), {10, 1});
  in[3] = T_(OX_INT8, int8_t, 1, DIMS(2), {1, -1});
  CHECK_EQ_I(run("MatMulInteger", 10, 0, NULL, 4, in, &y), 0);
  /* A - zp: {0,1,2},{254,-1,0}; B - zp: {0,-127},{1,128},{2,1} */
  CHECK(IS(y, OX_INT32, 2, DIMS(2, 2), {5, 130, -1, 254 * -127 - 128}));
  in[2] = T_(OX_UINT8, uint8_t, 0, DIMS(0), {1});
  CHECK_EQ_I(run("MatMulInteger", 10, 0, NULL, 3, in, &y), 0);
  CHECK(IS(y, OX_INT32, 2, DIMS(2, 2), {9 + 20 + 33, -9 * 128 + 10 * 127, 254 - 2, 254 * -128 - 127}));
  in[2] = T_(OX_INT8, int8_t, 0, DIMS(0), {1});
  CHECK_FAILS(run("MatMulInteger", 10, 0, NULL, 3, in, &y), "must have the type of A");
  in[2] = T_(OX_UINT8, uint8_t, 1, DIMS(4), {1, 2, 3, 4});
  CHECK_FAILS(run("MatMulInteger", 10, 0, NULL, 3, in, &y), "does not fit A");
}

/* The 8-bit GEMM path against a loop over (a - az)(b - bz) in int64
 * (wrapped to int32 as the spec's int32 sums): every pairing of int8 and
 * uint8, zero points absent, per tensor and per column of B, a batch folded
 * into one tall product and a batch of B's own, odd sizes (vector tails,
 * partial slivers), K = 0; the portable and the best micro-kernels; 1 and 3
 * threads. */
static int mmi_case(const char *label, ox_dtype ta, ox_dtype tb, int ra, const int64_t *da, int rb,
                    const int64_t *db, int zak, int zbk) {
  int64_t M = da[ra - 2], K = da[ra - 1], N = db[rb - 1], batch = 1;
  for (int d = 0; d < ra - 2; d++) batch *= da[d];
  int64_t na = batch * M * K, nb = (rb > 2 ? batch : 1) * K * N;
  uint8_t *a = malloc((size_t)na + 1), *b = malloc((size_t)nb + 1), za = 0, zb[256];
  int32_t *want = malloc(sizeof(int32_t) * (size_t)(batch * M * N + 1));
  if (!a || !b || !want || N > 256) return 1;
  for (int64_t i = 0; i < na; i++) a[i] = (uint8_t)(rnd() * 128 + 128);
  for (int64_t i = 0; i < nb; i++) b[i] = (uint8_t)(rnd() * 128 + 128);
  za = (uint8_t)(rnd() * 128 + 128);
  for (int64_t n = 0; n < N; n++) zb[n] = (uint8_t)(rnd() * 128 + 128);
#define VAL(dt, v) ((dt) == OX_INT8 ? (int64_t)(int8_t)(v) : (int64_t)(v))
  for (int64_t t = 0; t < batch; t++)
    for (int64_t i = 0; i < M; i++)
      for (int64_t n = 0; n < N; n++) {
        int64_t s = 0, az = zak ? VAL(ta, za) : 0, bz = zbk == 2 ? VAL(tb, zb[n]) : zbk ? VAL(tb, zb[0]) : 0;
        const uint8_t *bm = b + (rb > 2 ? t : 0) * K * N;
        for (int64_t k = 0; k < K; k++)
          s += (VAL(ta, a[(t * M + i) * K + k]) - az) * (VAL(tb, bm[k * N + n]) - bz);
        want[(t * M + i) * N + n] = (int32_t)(uint32_t)(uint64_t)s;
      }
#undef VAL
  ox_value *in[4] = {tensor(ta, ra, da, a), tensor(tb, rb, db, b), NULL, NULL};
  int nin = 2;
  if (zak || zbk) in[2] = tensor(ta, 0, NULL, &za), nin = 3;
  if (zbk) in[3] = zbk == 2 ? tensor(tb, 1, &N, zb) : tensor(tb, 0, NULL, zb), nin = 4;
  if (!zak && zbk) in[2] = NULL;
  int bad = 0;
  for (int isa = 0; isa < 2; isa++)
    for (int th = 1; th <= 3; th += 2) {
      ox_gemm_max_isa(isa ? -1 : 0);
      ox_set_threads(th);
      ox_value *y = NULL;
      if (run("MatMulInteger", 10, 0, NULL, nin, in, &y) || !y || y->u.t.dt != OX_INT32 ||
          y->u.t.n != batch * M * N) {
        bad++;
        continue;
      }
      for (int64_t i = 0; i < y->u.t.n; i++)
        if (((int32_t *)y->u.t.data)[i] != want[i]) {
          fprintf(stderr, "%s (isa %d, %d threads): element %lld is %d, want %d\n", label, isa, th,
                  (long long)i, ((int32_t *)y->u.t.data)[i], want[i]);
          bad++;
          break;
        }
    }
  ox_gemm_max_isa(-1);
  ox_set_threads(1);
  free(a);
  free(b);
  free(want);
  return bad;
}

static void test_matmul_int8(void) {
  CHECK_EQ_I(mmi_case("u8 s8 scalar zps", OX_UINT8, OX_INT8, 2, DIMS(7, 13), 2, DIMS(13, 19), 1, 1), 0);
  CHECK_EQ_I(mmi_case("s8 u8 batch, zb per column", OX_INT8, OX_UINT8, 3, DIMS(2, 5, 33), 2,
                      DIMS(33, 48), 1, 2), 0);
  CHECK_EQ_I(mmi_case("u8 u8 batched B", OX_UINT8, OX_UINT8, 3, DIMS(3, 4, 9), 3, DIMS(3, 9, 5), 1, 1), 0);
  CHECK_EQ_I(mmi_case("s8 s8 zb per column only", OX_INT8, OX_INT8, 2, DIMS(65, 70), 2, DIMS(70, 33), 0, 2), 0);
  CHECK_EQ_I(mmi_case("u8 s8 no zps", OX_UINT8, OX_INT8, 2, DIMS(5, 4), 2, DIMS(4, 3), 0, 0), 0);
  CHECK_EQ_I(mmi_case("u8 u8 K = 0", OX_UINT8, OX_UINT8, 2, DIMS(3, 0), 2, DIMS(0, 4), 1, 1), 0);
  /* int8 B (stored flipped) in two whole slivers of 48 columns and a part,
   * K not a multiple of 4 (the rows past K stay zero) */
  CHECK_EQ_I(mmi_case("u8 s8 slivers", OX_UINT8, OX_INT8, 3, DIMS(2, 9, 37), 2, DIMS(37, 100), 1, 1), 0);
  /* A read in place (K whole groups of 4, no flip): signed A, its last
   * tile of rows moved up over the one before */
  CHECK_EQ_I(mmi_case("s8 u8 in place", OX_INT8, OX_UINT8, 2, DIMS(19, 24), 2, DIMS(24, 50), 1, 2), 0);
  CHECK_EQ_I(mmi_case("u8 s8 in place, 8 rows", OX_UINT8, OX_INT8, 3, DIMS(2, 8, 8), 2, DIMS(8, 49), 1, 1), 0);
  /* big enough to be split over the threads */
  CHECK_EQ_I(mmi_case("u8 s8 threads", OX_UINT8, OX_INT8, 2, DIMS(301, 256), 2, DIMS(256, 64), 1, 2), 0);
}

/* ---- Einsum ---- */

static int einsum(const char *eq, int nin, ox_value **in, ox_value **y) {
  ox_attr at[1] = {attr_str("equation", eq)};
  return run("Einsum", 12, 1, at, nin, in, y);
}

static void test_einsum(void) {
  ox_value *y, *in[3];
  ox_value *m = F32(2, DIMS(2, 3), {1, 2, 3, 4, 5, 6});
  ox_value *sq = F32(2, DIMS(2, 2), {1, 2, 3, 4});
  in[0] = m;
  in[1] = F32(2, DIMS(3, 1), {1, 1, 2});
  CHECK_EQ_I(einsum("ij,jk->ik", 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 1), {9, 21}));
  CHECK_EQ_I(einsum("ij,jk", 2, in, &y), 0); /* implicit: i, k */
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 1), {9, 21}));
  CHECK_EQ_I(einsum("ij->ji", 1, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(3, 2), {1, 4, 2, 5, 3, 6}));
  CHECK_EQ_I(einsum("ba", 1, in, &y), 0); /* implicit: a, b, so a transpose */
  CHECK(IS(y, OX_FLOAT, 2, DIMS(3, 2), {1, 4, 2, 5, 3, 6}));
  CHECK_EQ_I(einsum("ij->", 1, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 0, DIMS(0), {21}));
  CHECK_EQ_I(einsum(" i j -> j ", 1, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 1, DIMS(3), {5, 7, 9}));
  /* a summed label of size 0: a sum over nothing, zeros */
  CHECK_EQ_I(einsum("ij,jk->ik", 2, (ox_value *[]){tensor(OX_FLOAT, 2, DIMS(2, 0), NULL),
                                                   tensor(OX_FLOAT, 2, DIMS(0, 3), NULL)}, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 3), {0, 0, 0, 0, 0, 0}));
  in[0] = sq;
  CHECK_EQ_I(einsum("ii", 1, in, &y), 0); /* trace */
  CHECK(IS(y, OX_FLOAT, 0, DIMS(0), {5}));
  CHECK_EQ_I(einsum("ii->i", 1, in, &y), 0); /* diagonal */
  CHECK(IS(y, OX_FLOAT, 1, DIMS(2), {1, 4}));
  /* ellipsis, broadcast against a shorter ellipsis */
  in[0] = F32(3, DIMS(2, 1, 2), {1, 2, 3, 4});
  in[1] = F32(2, DIMS(3, 2), {1, 0, 0, 1, 1, 1});
  CHECK_EQ_I(einsum("...i,...i->...", 2, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 3), {1, 2, 3, 3, 4, 7}));
  CHECK_EQ_I(einsum("...i,...i", 2, in, &y), 0); /* implicit: the ellipsis dims */
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 3), {1, 2, 3, 3, 4, 7}));
  in[0] = F32(3, DIMS(2, 2, 2), {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK_EQ_I(einsum("...ij->...ji", 1, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 3, DIMS(2, 2, 2), {1, 3, 2, 4, 5, 7, 6, 8}));
  CHECK_EQ_I(einsum("bij,bjk->bik", 2, (ox_value *[]){in[0], in[0]}, &y), 0);
  CHECK(IS(y, OX_FLOAT, 3, DIMS(2, 2, 2), {7, 10, 15, 22, 67, 78, 91, 106}));
  /* attention-style, through the batched GEMM: batch b, h; m q; n k; summed d */
  {
    int64_t B = 2, H = 3, Q = 4, D = 5, K = 6;
    ox_value *q = tensor(OX_FLOAT, 4, DIMS(B, H, Q, D), NULL), *k = tensor(OX_FLOAT, 4, DIMS(B, K, H, D), NULL);
    float *qd = q->u.t.data, *kd = k->u.t.data;
    for (int64_t i = 0; i < q->u.t.n; i++) qd[i] = (float)rnd();
    for (int64_t i = 0; i < k->u.t.n; i++) kd[i] = (float)rnd();
    for (int dbl = 0; dbl < 2; dbl++) {
      ox_value *pair[2] = {q, k};
      if (dbl) { /* the same values as double */
        for (int i = 0; i < 2; i++) {
          ox_value *v = tensor(OX_DOUBLE, 4, pair[i]->u.t.dims, NULL);
          for (int64_t j = 0; j < v->u.t.n; j++) ((double *)v->u.t.data)[j] = ((float *)pair[i]->u.t.data)[j];
          pair[i] = v;
        }
      }
      CHECK_EQ_I(einsum("bhqd,bkhd->bhqk", 2, pair, &y), 0);
      int bad = 0;
      CHECK(y && y->u.t.rank == 4 && y->u.t.dims[3] == K && y->u.t.dt == (dbl ? OX_DOUBLE : OX_FLOAT));
      for (int64_t b = 0; y && b < B; b++)
        for (int64_t h = 0; h < H; h++)
          for (int64_t i = 0; i < Q; i++)
            for (int64_t j = 0; j < K; j++) {
              double sum = 0;
              for (int64_t d = 0; d < D; d++)
                sum += (double)qd[((b * H + h) * Q + i) * D + d] * kd[((b * K + j) * H + h) * D + d];
              bad += fabs(ox_load_f64(y->u.t.dt, y->u.t.data, ((b * H + h) * Q + i) * K + j) - sum) > 1e-5;
            }
      CHECK_EQ_I(bad, 0);
    }
    /* output labels in another order than (batch, m, n) */
    in[0] = m;
    in[1] = F32(2, DIMS(3, 2), {1, 0, 0, 1, 1, 1});
    CHECK_EQ_I(einsum("ij,jk->ki", 2, in, &y), 0);
    CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {4, 10, 5, 11}));
    CHECK_EQ_I(einsum("ij,kl->ljki", 2, (ox_value *[]){sq, sq}, &y), 0); /* an outer product */
    /* y[l][j][k][i] = sq[i][j] * sq[k][l] */
    CHECK(y && y->u.t.rank == 4 && ((float *)y->u.t.data)[1] == 3 * 1 &&
          ((float *)y->u.t.data)[4] == 2 * 1 && ((float *)y->u.t.data)[15] == 4 * 4 &&
          ((float *)y->u.t.data)[8] == 1 * 2);
    /* a label summed in one operand only goes the general way */
    CHECK_EQ_I(einsum("ij,jk->k", 2, in, &y), 0);
    CHECK(IS(y, OX_FLOAT, 1, DIMS(2), {14, 16}));
  }
  /* three float operands: contracted two at a time */
  in[0] = m;                                        /* (2, 3) */
  in[1] = F32(2, DIMS(3, 2), {1, 0, 0, 1, 1, 1});   /* (3, 2) */
  in[2] = F32(2, DIMS(2, 2), {1, 2, 3, 4});         /* (2, 2) */
  CHECK_EQ_I(einsum("ij,jk,kl->il", 3, in, &y), 0); /* (m in[1]) = {{4, 5}, {10, 11}} */
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {19, 28, 43, 64}));
  CHECK_EQ_I(einsum("ij,jk,kl->li", 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {19, 43, 28, 64}));
  CHECK_EQ_I(einsum("ij,jk,kl", 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 2, DIMS(2, 2), {19, 28, 43, 64}));
  CHECK_EQ_I(einsum("ij,jk,kl->l", 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 1, DIMS(2), {62, 92}));
  in[2] = F32(1, DIMS(2), {1, -1});
  CHECK_EQ_I(einsum("ij,ab,k->k", 3, in, &y), 0); /* 21 * 4 * in[2] */
  CHECK(IS(y, OX_FLOAT, 1, DIMS(2), {84, -84}));
  in[0] = T_(OX_FLOAT16, uint16_t, 1, DIMS(2), {0x3c00, 0x4000}); /* 1, 2 */
  in[1] = T_(OX_FLOAT16, uint16_t, 1, DIMS(2), {0x4000, 0x4000}); /* 2, 2 */
  in[2] = T_(OX_FLOAT16, uint16_t, 1, DIMS(2), {0x3800, 0x3800}); /* 0.5, 0.5 */
  CHECK_EQ_I(einsum("i,i,i->i", 3, in, &y), 0);
  CHECK(IS(y, OX_FLOAT16, 1, DIMS(2), {1, 2}));
  /* three operands, and integers */
  in[0] = T_(OX_INT32, int32_t, 1, DIMS(2), {1, 2});
  in[1] = T_(OX_INT32, int32_t, 1, DIMS(3), {1, 10, 100});
  in[2] = T_(OX_INT32, int32_t, 1, DIMS(2), {3, 4});
  CHECK_EQ_I(einsum("i,j,i->j", 3, in, &y), 0);
  CHECK(IS(y, OX_INT32, 1, DIMS(3), {11, 110, 1100}));
  in[0] = T_(OX_UINT8, uint8_t, 1, DIMS(2), {200, 100});
  CHECK_EQ_I(einsum("i->", 1, in, &y), 0);
  CHECK(IS(y, OX_UINT8, 0, DIMS(0), {44})); /* 300 mod 256 */
  /* errors */
  in[0] = m;
  CHECK_FAILS(einsum("ijk->i", 1, in, &y), "3 labels but its operand has rank 2");
  CHECK_FAILS(einsum("ij->k", 1, in, &y), "output label 'k' is not in any input");
  CHECK_FAILS(einsum("ij,ij->i", 1, in, &y), "2 terms for 1 inputs");
  CHECK_FAILS(einsum("i1->i", 1, in, &y), "labels are letters");
  in[1] = sq;
  CHECK_FAILS(einsum("ij,jk->ik", 2, in, &y), "label 'j' is 3 in one place and 2 in another");
}

/* ---- Det ---- */

static void test_det(void) {
  ox_value *y, *in[1];
  in[0] = F32(2, DIMS(2, 2), {1, 2, 3, 4});
  CHECK_EQ_I(run("Det", 11, 0, NULL, 1, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 0, DIMS(0), {-2}));
  /* batch of (3, 3): a permutation (pivoting needed), a singular one */
  in[0] = F32(3, DIMS(2, 3, 3), {0, 1, 0, 0, 0, 2, 3, 0, 0, 1, 2, 3, 2, 4, 6, 0, 1, 1});
  CHECK_EQ_I(run("Det", 22, 0, NULL, 1, in, &y), 0);
  CHECK(IS(y, OX_FLOAT, 1, DIMS(2), {6, 0}));
  in[0] = T_(OX_DOUBLE, double, 2, DIMS(3, 3), {2, -1, 0, -1, 2, -1, 0, -1, 2});
  CHECK_EQ_I(run("Det", 11, 0, NULL, 1, in, &y), 0);
  CHECK(IS(y, OX_DOUBLE, 0, DIMS(0), {4}));
  in[0] = F32(2, DIMS(2, 3), {1, 2, 3, 4, 5, 6});
  CHECK_FAILS(run("Det", 11, 0, NULL, 1, in, &y), "X has shape (2, 3); it must be (..., n, n)");
}

/* ---- the table ---- */

static void test_table(void) {
  extern const ox_kernel ox_matmul_kernels[];
  check_rows(ox_matmul_kernels, NULL, 0);
  CHECK(ox_registry_find("", "Gemm", 12)->min_in == 2);
  CHECK(ox_registry_find("", "Gemm", 10)->min_in == 3);
  CHECK(ox_registry_find("", "MatMul", 8)->types & OX_T(FLOAT16));
  CHECK(!(ox_registry_find("", "MatMul", 12)->types & OX_T(BFLOAT16)));
  CHECK(ox_registry_find("", "Det", 22)->types & OX_T(BFLOAT16));
}


/* ---- MatMul with a constant B, packed once per model (its load hook) ----
 * a (rank 2 or 3) x B (K, N) as a model whose B is an initializer or a
 * Constant's value: ox_prepare packs B (the first member of the node's
 * state set), and every run, at
 * every level (packed at the best one, run at each) and 1-3 threads, is
 * within the GEMM's rounding of a double loop, with the same bytes for
 * every thread count and the same as the call without a preparation at
 * the level it was packed for. */
static void prepared_case(int64_t B0, int64_t M, int64_t K, int64_t N, int via_constant) {
  int64_t ad[3] = {B0, M, K}, bd[2] = {K, N};
  int ar = B0 ? 3 : 2;
  ox_value *a = tensor(OX_FLOAT, ar, B0 ? ad : ad + 1, NULL), *b = tensor(OX_FLOAT, 2, bd, NULL);
  for (int64_t i = 0; i < a->u.t.n; i++) ((float *)a->u.t.data)[i] = (float)rnd();
  for (int64_t i = 0; i < b->u.t.n; i++) ((float *)b->u.t.data)[i] = (float)rnd();
  static const char *in_[2] = {"a", "b"}, *out_[1] = {"y"}, *bout[1] = {"b"};
  ox_attr value = attr_tensor("value", b);
  ox_node nodes[2] = {kit_node("Constant", 0, NULL, 1, bout), kit_node("MatMul", 2, in_, 1, out_)};
  nodes[0].nattr = 1, nodes[0].attr = &value;
  const char *init_name[1] = {"b"};
  ox_value *init[1] = {b};
  ox_valueinfo gi[] = {{.name = "a", .rank = -1}}, go[] = {{.name = "y", .rank = -1}};
  ox_graph g = {"mm", 1 + via_constant, nodes + !via_constant, 1, gi, 1, go, !via_constant, init_name, init, 0, NULL};
  ox_opset ops[] = {{"", 13}};
  ox_model m = {"mm", ".", 8, 1, ops, &g, 0, NULL};
  ox_err_clear(&E);
  CHECK_EQ_I(ox_prepare(A, &m, &E), 0);
  const void *const *st = g.node[g.nnode - 1].state;
  CHECK(st && *st); /* the preparation is the state's first member */
  int64_t rows = (B0 ? B0 : 1) * M, bad = 0;
  double *want = calloc((size_t)(rows * N), sizeof *want), *mag = calloc((size_t)(rows * N), sizeof *mag);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < N; j++)
      for (int64_t k = 0; k < K; k++) {
        double t = (double)((float *)a->u.t.data)[i * K + k] * ((float *)b->u.t.data)[k * N + j];
        want[i * N + j] += t, mag[i * N + j] += fabs(t);
      }
  int levels = ox_cpu_level();
  for (int isa = levels; isa >= 0; isa--) {
    ox_gemm_max_isa(isa);
    void *first = NULL;
    for (int th = 1; th <= 3; th++) {
      ox_set_threads(th);
      ox_value *xin[1] = {a}, *y[1] = {NULL};
      CHECK_EQ_I(ox_run(A, &m, xin, y, &E), 0);
      if (!y[0] || y[0]->u.t.n != rows * N) {
        bad++;
        continue;
      }
      const float *yv = y[0]->u.t.data;
      for (int64_t i = 0; i < rows * N; i++)
        bad += !(fabs(yv[i] - want[i]) <= 0x1p-23 * 4 * (double)(K + 1) * mag[i] + 1e-30);
      if (th == 1) {
        first = memcpy(malloc((size_t)(rows * N) * 4), yv, (size_t)(rows * N) * 4);
        /* the bits of the product from B unpacked */
        float *ref = malloc((size_t)(rows * N) * 4);
        ox_sgemm_any(1, rows, N, K, a->u.t.data, K, 0, b->u.t.data, N, 0, ref, N, 1, 0);
        bad += memcmp(ref, yv, (size_t)(rows * N) * 4) != 0;
        free(ref);
      } else
        bad += memcmp(first, yv, (size_t)(rows * N) * 4) != 0;
    }
    free(first);
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  CHECK_EQ_I(bad, 0);
  free(want);
  free(mag);
}

/* ---- MatMulInteger with a constant B, packed once per model ----
 * a (ta) x B (tb, K x N) an initializer, with zero points az (graph input)
 * and bz (per tensor or per column; an initializer); ox_prepare packs B
 * (the state's first member set), and every run, at every level and 1-3
 * threads, equals a loop over (a - az)(b - bz) in int64 wrapped to int32
 * (a uint8 B with an int8 A: the signs the packing assumed do not hold, so
 * the product packs B per call). */
static void mmi_prepared_case(ox_dtype ta, ox_dtype tb, int64_t B0, int64_t M, int64_t K, int64_t N, int zbk) {
  int64_t ad[3] = {B0, M, K}, bd[2] = {K, N};
  int ar = B0 ? 3 : 2;
  ox_value *a = tensor(ta, ar, B0 ? ad : ad + 1, NULL), *b = tensor(tb, 2, bd, NULL);
  ox_value *za = tensor(ta, 0, NULL, NULL), *zb = zbk == 2 ? tensor(tb, 1, &N, NULL) : tensor(tb, 0, NULL, NULL);
  uint8_t *av = a->u.t.data, *bv = b->u.t.data, *zav = za->u.t.data, *zbv = zb->u.t.data;
  for (int64_t i = 0; i < a->u.t.n; i++) av[i] = (uint8_t)(rnd() * 128 + 128);
  for (int64_t i = 0; i < b->u.t.n; i++) bv[i] = (uint8_t)(rnd() * 128 + 128);
  zav[0] = (uint8_t)(rnd() * 128 + 128);
  for (int64_t i = 0; i < zb->u.t.n; i++) zbv[i] = zbk ? (uint8_t)(rnd() * 128 + 128) : 0;
  static const char *in_[4] = {"a", "b", "za", "zb"}, *out_[1] = {"y"};
  ox_node nodes[1] = {kit_node("MatMulInteger", 4, in_, 1, out_)};
  const char *init_name[2] = {"b", "zb"};
  ox_value *init[2] = {b, zb};
  ox_valueinfo gi[] = {{.name = "a", .rank = -1}, {.name = "za", .rank = -1}}, go[] = {{.name = "y", .rank = -1}};
  ox_graph g = {"mmi", 1, nodes, 2, gi, 1, go, 2, init_name, init, 0, NULL};
  ox_opset ops[] = {{"", 13}};
  ox_model m = {"mmi", ".", 8, 1, ops, &g, 0, NULL};
  ox_err_clear(&E);
  CHECK_EQ_I(ox_prepare(A, &m, &E), 0);
  const void *const *st = g.node[0].state;
  CHECK(st && *st);
  int64_t rows = (B0 ? B0 : 1) * M, bad = 0;
  int32_t *want = calloc((size_t)(rows * N), sizeof *want);
#define VAL(dt, v) ((dt) == OX_INT8 ? (int64_t)(int8_t)(v) : (int64_t)(v))
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < N; j++) {
      int64_t sum = 0, bz = VAL(tb, zbv[zbk == 2 ? j : 0]);
      for (int64_t k = 0; k < K; k++) sum += (VAL(ta, av[i * K + k]) - VAL(ta, zav[0])) * (VAL(tb, bv[k * N + j]) - bz);
      want[i * N + j] = (int32_t)(uint32_t)(uint64_t)sum;
    }
#undef VAL
  for (int isa = ox_cpu_level(); isa >= 0; isa--) {
    ox_gemm_max_isa(isa);
    for (int th = 1; th <= 3; th++) {
      ox_set_threads(th);
      ox_value *xin[2] = {a, za}, *y[1] = {NULL};
      CHECK_EQ_I(ox_run(A, &m, xin, y, &E), 0);
      if (!y[0] || y[0]->u.t.dt != OX_INT32 || y[0]->u.t.n != rows * N) {
        bad++;
        continue;
      }
      bad += memcmp(y[0]->u.t.data, want, (size_t)(rows * N) * 4) != 0;
    }
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  CHECK_EQ_I(bad, 0);
  free(want);
}

/* ---- com.microsoft's 8-bit products with a constant B ----
 * DynamicQuantizeMatMul (float A, quantized per call) and
 * MatMulIntegerToFloat (uint8 A) by an int8 B initializer, b_scale per
 * column, a zero point and a bias: B is packed at load (the state's first
 * member set), and every run, at every level and 1-3 threads, gives the
 * bytes of the same node with B a graph input (packed per call). */
static void contrib_prepared_case(int dqm, int64_t M, int64_t K, int64_t N) {
  int64_t ad[2] = {M, K}, bd[2] = {K, N};
  ox_value *a = tensor(dqm ? OX_FLOAT : OX_UINT8, 2, ad, NULL), *b = tensor(OX_INT8, 2, bd, NULL);
  ox_value *as = tensor(OX_FLOAT, 0, NULL, NULL), *az = tensor(OX_UINT8, 0, NULL, NULL);
  ox_value *bs = tensor(OX_FLOAT, 1, &N, NULL), *bz = tensor(OX_INT8, 1, &N, NULL), *bias = tensor(OX_FLOAT, 1, &N, NULL);
  for (int64_t i = 0; i < a->u.t.n; i++) {
    if (dqm) ((float *)a->u.t.data)[i] = (float)(rnd() * 4 - 2);
    else ((uint8_t *)a->u.t.data)[i] = (uint8_t)(rnd() * 255);
  }
  for (int64_t i = 0; i < b->u.t.n; i++) ((int8_t *)b->u.t.data)[i] = (int8_t)(rnd() * 255 - 127);
  for (int64_t j = 0; j < N; j++) {
    ((float *)bs->u.t.data)[j] = (float)(rnd() * 0.01 + 0.001);
    ((int8_t *)bz->u.t.data)[j] = (int8_t)(rnd() * 9 - 4);
    ((float *)bias->u.t.data)[j] = (float)(rnd() - 0.5);
  }
  *(float *)as->u.t.data = 0.02f, *(uint8_t *)az->u.t.data = 131;
  /* DynamicQuantizeMatMul(A, B, b_scale, b_zero_point, bias);
   * MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias) */
  static const char *dq_in[5] = {"a", "b", "bs", "bz", "bias"}, *mf_in[7] = {"a", "b", "as", "bs", "az", "bz", "bias"};
  static const char *out_[1] = {"y"};
  const char *op = dqm ? "DynamicQuantizeMatMul" : "MatMulIntegerToFloat";
  int nin = dqm ? 5 : 7;
  ox_node n1 = kit_node(op, nin, dqm ? dq_in : mf_in, 1, out_), n2 = n1;
  n1.domain = n2.domain = "com.microsoft";
  const char *init_name[1] = {"b"};
  ox_value *init[1] = {b};
  /* gc: b an initializer (the other inputs graph inputs); gv: b the last graph input too */
  ox_valueinfo gi[] = {{.name = "a", .rank = -1}, {.name = "as", .rank = -1}, {.name = "bs", .rank = -1},
                       {.name = "az", .rank = -1}, {.name = "bz", .rank = -1}, {.name = "bias", .rank = -1},
                       {.name = "b", .rank = -1}},
               go[] = {{.name = "y", .rank = -1}};
  ox_graph gc = {"qc", 1, &n1, 6, gi, 1, go, 1, init_name, init, 0, NULL};
  ox_graph gv = {"qv", 1, &n2, 7, gi, 1, go, 0, NULL, NULL, 0, NULL};
  ox_opset ops[] = {{"", 13}, {"com.microsoft", 1}};
  ox_model mc = {"qc", ".", 8, 2, ops, &gc, 0, NULL}, mv = {"qv", ".", 8, 2, ops, &gv, 0, NULL};
  ox_err_clear(&E);
  CHECK_EQ_I(ox_prepare(A, &mc, &E), 0);
  CHECK_EQ_I(ox_prepare(A, &mv, &E), 0);
  const void *const *st = gc.node[0].state;
  CHECK(st && *st); /* B packed at load */
  int bad = 0;
  for (int isa = ox_cpu_level(); isa >= 0; isa--) {
    ox_gemm_max_isa(isa);
    ox_set_threads(1);
    ox_value *xv[7] = {a, as, bs, az, bz, bias, b}, *yv[1] = {NULL};
    CHECK_EQ_I(ox_run(A, &mv, xv, yv, &E), 0);
    for (int th = 1; th <= 3; th++) {
      ox_set_threads(th);
      ox_value *yc[1] = {NULL};
      CHECK_EQ_I(ox_run(A, &mc, xv, yc, &E), 0);
      if (!yv[0] || !yc[0] || yc[0]->u.t.n != M * N || yv[0]->u.t.n != M * N ||
          memcmp(yc[0]->u.t.data, yv[0]->u.t.data, (size_t)(M * N) * 4)) {
        fprintf(stderr, "%s %lld x %lld x %lld, isa %d, %d threads: not the bytes of B packed per call\n", op,
                (long long)M, (long long)K, (long long)N, isa, th);
        bad++;
      }
    }
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  CHECK_EQ_I(bad, 0);
}

static void test_contrib_prepared(void) {
  contrib_prepared_case(1, 128, 96, 144);
  contrib_prepared_case(1, 3, 37, 100); /* a decode step's rows, K not whole groups */
  contrib_prepared_case(0, 33, 64, 50);
  contrib_prepared_case(0, 1, 20, 48);
}

static void test_matmul_integer_prepared(void) {
  /* quantize_dynamic's form: uint8 A, int8 B with a zero point of 0 */
  mmi_prepared_case(OX_UINT8, OX_INT8, 0, 128, 96, 144, 0);
  mmi_prepared_case(OX_UINT8, OX_INT8, 2, 9, 37, 100, 1);  /* K not whole groups, a partial sliver */
  mmi_prepared_case(OX_UINT8, OX_UINT8, 0, 33, 64, 50, 2); /* B read as b - 128, bz per column */
  mmi_prepared_case(OX_INT8, OX_INT8, 0, 17, 20, 48, 1);   /* A read as a + 128 */
  mmi_prepared_case(OX_INT8, OX_UINT8, 0, 5, 8, 7, 1);     /* not the packed signs: B per call */
}

static void test_matmul_prepared(void) {
  static const int64_t shapes[][4] = {/* batch (0: none), M, K, N */
    {0, 40, 120, 6625}, {0, 17, 33, 50}, {3, 9, 64, 97}, {0, 300, 20, 7}, {2, 130, 7, 49}, {0, 8, 300, 200},
    {0, 197, 64, 300}, /* 197 rows: one row block (of up to 256) */
    {0, 197, 600, 100}, {2, 500, 20, 60}}; /* A packed per row block at 1 thread, and at 3 (8 blocks) */
  for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++)
    prepared_case(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], i % 2);
}

/* ---- a MatMul or Gemm node with a constant B, against the same node with
 * B a graph input ----
 * m[0]: B an initializer (the model prepare packs it); m[1]: B a graph
 * input between a and c (c: the node's third input, when nin is 3). The
 * graphs point into the struct: it stays where it was made. */
typedef struct {
  const char *init_name[1];
  ox_value *init[1];
  ox_node n[2];
  ox_valueinfo gi1[2], gi2[3], go[1];
  ox_graph g[2];
  ox_opset ops[1];
  ox_model m[2];
} const_b;
static void const_b_init(const_b *cb, const char *op, int nin, ox_value *b, int nattr, ox_attr *at1, ox_attr *at2) {
  static const char *in_[3] = {"a", "b", "c"}, *out_[1] = {"y"};
  cb->init_name[0] = "b", cb->init[0] = b;
  cb->n[0] = kit_node(op, nin, in_, 1, out_), cb->n[1] = kit_node(op, nin, in_, 1, out_);
  cb->n[0].nattr = cb->n[1].nattr = nattr, cb->n[0].attr = at1, cb->n[1].attr = at2;
  cb->gi1[0] = (ox_valueinfo){.name = "a", .rank = -1}, cb->gi1[1] = (ox_valueinfo){.name = "c", .rank = -1};
  for (int i = 0; i < 3; i++) cb->gi2[i] = (ox_valueinfo){.name = in_[i], .rank = -1};
  cb->go[0] = (ox_valueinfo){.name = "y", .rank = -1};
  cb->g[0] = (ox_graph){op, 1, &cb->n[0], nin - 1, cb->gi1, 1, cb->go, 1, cb->init_name, cb->init, 0, NULL};
  cb->g[1] = (ox_graph){op, 1, &cb->n[1], nin, cb->gi2, 1, cb->go, 0, NULL, NULL, 0, NULL};
  cb->ops[0] = (ox_opset){"", 13};
  for (int i = 0; i < 2; i++) cb->m[i] = (ox_model){op, ".", 8, 1, cb->ops, &cb->g[i], 0, NULL};
}
/* m[0] prepared with release_packed (B packed, given back), m[1] as it is */
static void const_b_prepare(const_b *cb) {
  ox_run_opts ro = {0};
  ro.release_packed = 1;
  ox_err_clear(&E);
  CHECK_EQ_I(ox_prepare_with(A, &cb->m[0], &ro, &E), 0);
  CHECK_EQ_I(ox_prepare(A, &cb->m[1], &E), 0);
}
/* m[0] on x1 and m[1] on x2 at each ISA level and 1 and 3 threads: y (n
 * elements of dt) the same bytes from both, else a line naming `what` */
static void const_b_same(const_b *cb, ox_value **x1, ox_value **x2, ox_dtype dt, int64_t n, const char *what) {
  int bad = 0;
  for (int isa = ox_cpu_level(); isa >= 0; isa--)
    for (int th = 1; th <= 3; th += 2) {
      ox_gemm_max_isa(isa);
      ox_set_threads(th);
      ox_value *y1[1] = {NULL}, *y2[1] = {NULL};
      CHECK_EQ_I(ox_run(A, &cb->m[0], x1, y1, &E), 0);
      CHECK_EQ_I(ox_run(A, &cb->m[1], x2, y2, &E), 0);
      if (!y1[0] || !y2[0] || y1[0]->u.t.n != n || y2[0]->u.t.n != n || y1[0]->u.t.dt != dt ||
          y2[0]->u.t.dt != dt || memcmp(y1[0]->u.t.data, y2[0]->u.t.data, (size_t)n * ox_dtype_size(dt))) {
        fprintf(stderr, "%s: isa %d, %d threads: not the same bytes\n", what, isa, th);
        bad++;
      }
    }
  ox_gemm_max_isa(-1);
  ox_set_threads(1);
  CHECK_EQ_I(bad, 0);
}

/* ---- a constant B given back once packed (release_packed) ----
 * B (K, N), an initializer of 64 KiB or more that only MatMul reads: preparing
 * with release_packed gives its pages back (the model lists it, and it reads
 * as zeros), and every product still reads it through its packed form --
 * thin ones (M <= 4 rows, N <= 4 columns) sliver by sliver, a vector A and
 * each ISA level below the packed one from B rebuilt out of it -- each the
 * same bytes as the product with B as a graph input, at 1 and 3 threads. */
static void released_case(int ar, int64_t M, int64_t K, int64_t N) {
  int64_t ad[2] = {M, K}, bd[2] = {K, N};
  ox_value *a = tensor(OX_FLOAT, ar, ar == 2 ? ad : ad + 1, NULL), *b = tensor(OX_FLOAT, 2, bd, NULL),
           *b_in = tensor(OX_FLOAT, 2, bd, NULL);
  for (int64_t i = 0; i < a->u.t.n; i++) ((float *)a->u.t.data)[i] = (float)rnd();
  for (int64_t i = 0; i < b->u.t.n; i++) ((float *)b->u.t.data)[i] = ((float *)b_in->u.t.data)[i] = (float)rnd();
  const_b cb;
  const_b_init(&cb, "MatMul", 2, b, 0, NULL, NULL);
  const_b_prepare(&cb);
  CHECK(cb.m[0].nreleased == 1 && cb.m[0].released[0] == b->u.t.data);
  CHECK(((float *)b->u.t.data)[b->u.t.n / 2] == 0); /* an inner page, given back */
  /* preparing it again would pack those zeros: refused */
  ox_run_opts ro = {0};
  ro.release_packed = 1;
  CHECK_FAILS(ox_prepare_with(A, &cb.m[0], &ro, &E), "it cannot be prepared again");
  ox_err_clear(&E);
  /* an A whose K does not fit: the shapes are said, B is not rebuilt first */
  int64_t wrong[2] = {M, K + 1};
  ox_value *aw = tensor(OX_FLOAT, 2, wrong, NULL), *xw[1] = {aw}, *yw[1] = {NULL};
  CHECK_FAILS(ox_run(A, &cb.m[0], xw, yw, &E), "inner dimensions differ");
  ox_err_clear(&E);
  char what[96];
  snprintf(what, sizeof what, "released_case(%d, %lld, %lld, %lld)", ar, (long long)M, (long long)K, (long long)N);
  ox_value *x1[1] = {a}, *x2[2] = {a, b_in};
  const_b_same(&cb, x1, x2, OX_FLOAT, M * N, what);
}

static void test_matmul_released(void) {
  released_case(2, 1, 300, 200);  /* one row: thin */
  released_case(2, 4, 128, 301);  /* four rows, a partial sliver */
  released_case(2, 40, 120, 400); /* the packed GEMM */
  released_case(2, 300, 4096, 4); /* four columns: thin on B's side */
  released_case(1, 1, 256, 97);   /* a vector A: B rebuilt */
  released_case(2, 40, 1024, 301); /* packed two blocks of rows at load, each given back as packed */
}

/* ---- Gemm with a constant float B, packed at load (issue 30) ----
 * Y = alpha op(A) op(B) + beta C, B an initializer (stored (N, K) when
 * transB) that only Gemm reads, prepared with release_packed: B is packed
 * once and, from 64 KiB, given back; every run, at each ISA level and at 1
 * and 3 threads, must be the same bytes as the unprepared Gemm given op(B)
 * itself as a graph input with transB 0. (A B transposed, once packed, is
 * summed over k in order as an untransposed one is: for a thin product the
 * unprepared transB path takes dot products split over vector lanes, whose
 * last bits may differ; that is why the reference is op(B) untransposed.)
 * ckind: 0 no C, 1 C (N), 2 C (M, N), 3 C (M, 1). */
static void gemm_released_case(int64_t M, int64_t K, int64_t N, int ta, int tb, float alpha, float beta, int ckind) {
  int64_t ad[2] = {ta ? K : M, ta ? M : K}, bd[2] = {tb ? N : K, tb ? K : N}, od[2] = {K, N};
  int64_t cd[3][2] = {{N, 0}, {M, N}, {M, 1}};
  ox_value *a = tensor(OX_FLOAT, 2, ad, NULL), *b = tensor(OX_FLOAT, 2, bd, NULL), *bop = tensor(OX_FLOAT, 2, od, NULL);
  ox_value *cv = ckind ? tensor(OX_FLOAT, ckind == 1 ? 1 : 2, cd[ckind - 1], NULL) : NULL;
  for (int64_t i = 0; i < a->u.t.n; i++) ((float *)a->u.t.data)[i] = (float)rnd();
  for (int64_t i = 0; i < b->u.t.n; i++) ((float *)b->u.t.data)[i] = (float)rnd();
  for (int64_t k = 0; k < K; k++)
    for (int64_t j = 0; j < N; j++)
      ((float *)bop->u.t.data)[k * N + j] = ((float *)b->u.t.data)[tb ? j * K + k : k * N + j];
  for (int64_t i = 0; cv && i < cv->u.t.n; i++) ((float *)cv->u.t.data)[i] = (float)rnd();
  ox_attr at1[4] = {attr_int("transA", ta), attr_int("transB", tb), attr_float("alpha", alpha),
                    attr_float("beta", beta)};
  ox_attr at2[4] = {attr_int("transA", ta), attr_int("transB", 0), attr_float("alpha", alpha),
                    attr_float("beta", beta)};
  const_b cb;
  const_b_init(&cb, "Gemm", ckind ? 3 : 2, b, 4, at1, at2);
  float *b0 = malloc((size_t)b->u.t.n * 4);
  if (b0) memcpy(b0, b->u.t.data, (size_t)b->u.t.n * 4);
  const_b_prepare(&cb);
  /* packed and given back when every product reads only the packing: not
   * with transA or N <= OX_THIN (never packed), nor with alpha != 1 (only
   * the thin products read the packing; the others take the original, not
   * op(B) rebuilt on each call) */
  int gone = b->u.t.n * 4 >= 65536 && !ta && N > 4 && alpha == 1;
  CHECK_EQ_I(cb.m[0].nreleased, gone);
  if (gone) CHECK(cb.m[0].released[0] == b->u.t.data && ((float *)b->u.t.data)[b->u.t.n / 2] == 0);
  else CHECK(b0 && !memcmp(b->u.t.data, b0, (size_t)b->u.t.n * 4)); /* kept whole */
  free(b0);
  char what[128];
  snprintf(what, sizeof what, "gemm_released_case(%lld, %lld, %lld, ta %d, tb %d, %g, %g, C %d)", (long long)M,
           (long long)K, (long long)N, ta, tb, alpha, beta, ckind);
  ox_value *x1[2] = {a, cv}, *x2[3] = {a, bop, cv};
  const_b_same(&cb, x1, x2, OX_FLOAT, M * N, what);
}

static void test_gemm_released(void) {
  gemm_released_case(1, 768, 256, 0, 0, 1, 1, 1);    /* one row with a bias: a decode step's nn.Linear */
  gemm_released_case(1, 256, 300, 0, 1, 1, 1, 1);   /* the same with transB (B: (N, K)) */
  gemm_released_case(3, 200, 130, 0, 0, 0.5f, 2, 2); /* thin, alpha and beta, C (M, N) */
  gemm_released_case(4, 128, 301, 0, 1, 1, 1, 3);   /* four rows, C (M, 1), a partial sliver */
  gemm_released_case(2, 100, 90, 0, 0, 1, 1, 0);    /* no C, B under 64 KiB: kept */
  gemm_released_case(40, 120, 400, 0, 0, 1, 1, 1);  /* the packed GEMM, bias */
  gemm_released_case(70, 300, 200, 0, 1, 1, 0.5f, 2); /* the packed GEMM, transB, beta */
  gemm_released_case(40, 120, 400, 0, 0, 0.5f, 1, 1); /* alpha: B kept for the packed GEMM */
  gemm_released_case(2, 120, 400, 0, 0, 0.5f, 1, 1);  /* alpha: the thin product reads the packing */
  gemm_released_case(3, 256, 300, 1, 0, 1, 1, 1);   /* transposed A: not packed */
  gemm_released_case(300, 4096, 4, 0, 1, 1, 1, 1);  /* four columns: thin on B's side, not packed */
  gemm_released_case(40, 700, 1000, 0, 1, 1, 1, 1); /* transB, packed in three blocks of slivers */
}

/* ---- the peak while a large B is packed and given back ----
 * ox_prepare_with(release_packed) packs a 48 MiB B a block of rows at a
 * time and gives each block's pages back as it goes (ox_ctx.discard_inputs),
 * so the process's peak RSS grows by about a block, not by the packed copy
 * (before: the whole B and its packed form were held at once, +48 MiB).
 * The peak is reset through /proc/self/clear_refs (Linux 4.0 on); where
 * that cannot be written the peak is not measured, and the test says so. */
static long status_kib(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n)) v = strtol(line + n, NULL, 10);
  if (f) fclose(f);
  return v;
}
static int reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return 0;
  int ok = fputs("5", f) >= 0;
  return (fclose(f) == 0) & ok;
}
/* B (K, N) of dt (float, or float16: 48 MiB either way) prepared with
 * release_packed: the peak over the start under 16 MiB; then the product
 * through the packing, y[i][j] = sum_k a[i][k] b[k][j], within float32's
 * rounding of K terms of a float64 loop (float16: rounded once on store) */
static void release_peak_case(ox_dtype dt, int64_t N) {
  int64_t K = 1536, bd[2] = {K, N}, ad[2] = {2, K};
  ox_value *b = tensor(dt, 2, bd, NULL), *a = tensor(dt, 2, ad, NULL);
  int f16 = dt == OX_FLOAT16;
  for (int64_t i = 0; i < b->u.t.n; i++) {
    float f = (float)(i % 1021) / 1021;
    if (f16) ((uint16_t *)b->u.t.data)[i] = ox_f32_to_f16(f);
    else ((float *)b->u.t.data)[i] = f;
  }
  for (int64_t i = 0; i < a->u.t.n; i++) {
    float f = (float)rnd();
    if (f16) ((uint16_t *)a->u.t.data)[i] = ox_f32_to_f16(f);
    else ((float *)a->u.t.data)[i] = f;
  }
  const_b cb;
  const_b_init(&cb, "MatMul", 2, b, 0, NULL, NULL);
  ox_run_opts ro = {0};
  ro.release_packed = 1;
  ox_err_clear(&E);
  int measured = reset_peak();
  long before = status_kib("VmRSS:");
  measured = measured && before > 0 && reset_peak();
  CHECK_EQ_I(ox_prepare_with(A, &cb.m[0], &ro, &E), 0);
  long peak = status_kib("VmHWM:");
  CHECK(cb.m[0].nreleased == 1);
  if (!measured || peak < 0) {
    fprintf(stderr, "release_peak_case(%s): /proc/self/clear_refs cannot reset the peak here: not measured\n",
            ox_dtypes[dt].onnx_name);
  } else if (peak - before >= 16 * 1024) {
    fprintf(stderr, "release_peak_case(%s): packing a 48 MiB B raised the peak RSS by %ld KiB\n",
            ox_dtypes[dt].onnx_name, peak - before);
    CHECK(0);
  }
  ox_value *x[1] = {a}, *y[1] = {NULL};
  CHECK_EQ_I(ox_run(A, &cb.m[0], x, y, &E), 0);
  int bad = !y[0] || y[0]->u.t.n != 2 * N;
  for (int64_t i = 0; !bad && i < 2; i++)
    for (int64_t j = 0; j < N; j += 997) {
      double s = 0, m = 0;
      for (int64_t k = 0; k < K; k++) {
        float bk = (float)((k * N + j) % 1021) / 1021;
        double t = f16 ? (double)ox_f16_to_f32(((uint16_t *)a->u.t.data)[i * K + k]) * ox_f16_to_f32(ox_f32_to_f16(bk))
                       : (double)((float *)a->u.t.data)[i * K + k] * bk;
        s += t, m += fabs(t);
      }
      double yij = f16 ? ox_f16_to_f32(((uint16_t *)y[0]->u.t.data)[i * N + j]) : ((float *)y[0]->u.t.data)[i * N + j];
      bad += fabs(yij - s) > 1e-6 * (double)K * m + (f16 ? 0x1p-10 * fabs(s) : 0);
    }
  CHECK_EQ_I(bad, 0);
}
static void test_release_peak(void) { release_peak_case(OX_FLOAT, 8192); }

/* ---- float16 and bfloat16 MatMul with a constant B (issue 30) ----
 * The load hook widens B to float and packs it once; each run widens A,
 * multiplies in float and rounds once on store. The result must be the
 * same bytes as the same MatMul with B a graph input (widened and packed
 * per call, no preparation), at every level and for 1-3 threads; and the
 * preparation must be made (before, only a float B was prepared, and a
 * float16 BERT widened and packed each weight on every call). */
static void prepared_small_case(ox_dtype dt, int64_t B0, int64_t M, int64_t K, int64_t N) {
  int64_t ad[3] = {B0, M, K}, bd[2] = {K, N};
  int ar = B0 ? 3 : 2;
  ox_value *a = tensor(dt, ar, B0 ? ad : ad + 1, NULL), *b = tensor(dt, 2, bd, NULL);
  for (int k = 0; k < 2; k++) {
    ox_tensor *t = k ? &b->u.t : &a->u.t;
    for (int64_t i = 0; i < t->n; i++) {
      float f = (float)rnd();
      ((uint16_t *)t->data)[i] = dt == OX_FLOAT16 ? ox_f32_to_f16(f) : ox_f32_to_bf16(f);
    }
  }
  static const char *in_[2] = {"a", "b"}, *out_[1] = {"y"};
  ox_node node = kit_node("MatMul", 2, in_, 1, out_);
  const char *init_name[1] = {"b"};
  ox_value *init[1] = {b};
  ox_valueinfo gi[] = {{.name = "a", .rank = -1}, {.name = "b", .rank = -1}}, go[] = {{.name = "y", .rank = -1}};
  ox_opset ops[] = {{"", 13}};
  /* gc: b an initializer (prepared); gv: b a graph input */
  ox_graph gc = {"mmc", 1, &node, 1, gi, 1, go, 1, init_name, init, 0, NULL};
  ox_model mc = {"mmc", ".", 8, 1, ops, &gc, 0, NULL};
  ox_node nodev = kit_node("MatMul", 2, in_, 1, out_);
  ox_graph gv = {"mmv", 1, &nodev, 2, gi, 1, go, 0, NULL, NULL, 0, NULL};
  ox_model mv = {"mmv", ".", 8, 1, ops, &gv, 0, NULL};
  ox_err_clear(&E);
  CHECK_EQ_I(ox_prepare(A, &mc, &E), 0);
  CHECK_EQ_I(ox_prepare(A, &mv, &E), 0);
  const void *const *st = gc.node[0].state;
  CHECK(st && *st); /* prepared: B packed at load */
  int64_t n = (B0 ? B0 : 1) * M * N;
  int bad = 0;
  for (int isa = ox_cpu_level(); isa >= 0; isa--) {
    ox_gemm_max_isa(isa);
    ox_set_threads(1);
    ox_value *xv[2] = {a, b}, *yv[1] = {NULL};
    CHECK_EQ_I(ox_run(A, &mv, xv, yv, &E), 0);
    if (!yv[0] || yv[0]->u.t.n != n || yv[0]->u.t.dt != dt) {
      bad++;
      continue;
    }
    for (int th = 1; th <= 3; th++) {
      ox_set_threads(th);
      ox_value *xc[1] = {a}, *yc[1] = {NULL};
      CHECK_EQ_I(ox_run(A, &mc, xc, yc, &E), 0);
      if (!yc[0] || yc[0]->u.t.n != n || yc[0]->u.t.dt != dt) {
        bad++;
        continue;
      }
      if (memcmp(yc[0]->u.t.data, yv[0]->u.t.data, (size_t)n * 2)) {
        fprintf(stderr, "%s MatMul (%lld, %lld, %lld, %lld) isa %d threads %d: not the bytes of the unprepared call\n",
                ox_dtypes[dt].onnx_name, (long long)B0, (long long)M, (long long)K, (long long)N, isa, th);
        bad++;
      }
    }
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  CHECK_EQ_I(bad, 0);
}

static void test_matmul_prepared_small(void) {
  static const int64_t shapes[][4] = {/* batch (0: none), M, K, N */
    {0, 40, 300, 97}, {2, 65, 33, 130}, {0, 3, 64, 50}, {0, 128, 64, 768},
    {0, 40, 300, 1000}}; /* widened and packed in two blocks of rows */
  for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++) {
    prepared_small_case(OX_FLOAT16, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
    prepared_small_case(OX_BFLOAT16, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
  }
}

/* ---- float16 and bfloat16 B packed as they are (pb16) ----
 * ox_sgemm_packed_h and ox_sgemm_thin_packed_h against ox_sgemm_packed and
 * ox_sgemm_thin_packed from the same B widened and packed as floats: the
 * same bytes, at every level, for M = 1, 3, 8 and 100 rows, K past one
 * block of 256 and N not a multiple of nr, beta 0 and not; B with
 * subnormals, Inf and (a second pass) NaN of both signs, which
 * OX_PB16_NONAN must not be claimed for. */
static uint16_t half_of(ox_dtype dt, float f) { return dt == OX_FLOAT16 ? ox_f32_to_f16(f) : ox_f32_to_bf16(f); }
static int pb16_case(ox_dtype dt, int64_t M, int64_t K, int64_t N, int nan, float beta) {
  int bad = 0;
  uint16_t *bh = malloc((size_t)(K * N) * 2);
  float *bw = malloc((size_t)(K * N) * 4), *a = malloc((size_t)(M * K) * 4);
  for (int64_t i = 0; i < K * N; i++) {
    float f = (float)rnd();
    if (i % 61 == 5) f *= 0x1p-20f; /* subnormal in float16 */
    if (i % 509 == 7) f = i % 2 ? INFINITY : -INFINITY;
    bh[i] = half_of(dt, f);
    if (nan && i % 97 == 3) bh[i] = dt == OX_FLOAT16 ? (i % 2 ? 0xFC01 : 0x7D55) : (i % 2 ? 0xFF81 : 0x7F8A);
  }
  ox_widen_f32_n(dt, bh, 0, K * N, bw);
  for (int64_t i = 0; i < M * K; i++) a[i] = (float)rnd();
  unsigned kind = (dt == OX_BFLOAT16 ? OX_PB16_BF16 : 0) | (nan ? 0 : OX_PB16_NONAN);
  for (int isa = ox_cpu_level(); isa >= 0; isa--) {
    ox_gemm_max_isa(isa);
    ox_gemm_plan p = ox_sgemm_plan_now();
    int64_t nr = p.nr, np = (N + nr - 1) / nr * nr, mp = (M + p.mr - 1) / p.mr * p.mr;
    float *pb = ox_mem_scratch((size_t)(np * K) * 4), *pa = malloc((size_t)(mp * K) * 4);
    uint16_t *pb16 = ox_mem_scratch((size_t)(np * K) * 2);
    float *c0 = malloc((size_t)(M * N) * 4), *c1 = malloc((size_t)(M * N) * 4);
    ox_sgemm_pack_b(&p, K, N, bw, N, pb);
    ox_gemm_pack_b_rows(&p, K, N, 0, K / 3, bh, N, 2, pb16); /* in two blocks of rows, as the load hook may */
    ox_gemm_pack_b_rows(&p, K, N, K / 3, K, bh + K / 3 * N, N, 2, pb16);
    ox_sgemm_pack_a(&p, M, K, a, K, 0, pa);
    for (int64_t i = 0; i < M * N; i++) c0[i] = c1[i] = (float)rnd();
    ox_sgemm_packed(&p, M, N, K, pa, pb, c0, N, beta);
    ox_sgemm_packed_h(&p, M, N, K, pa, pb16, kind, c1, N, beta);
    int gemm_bad = memcmp(c0, c1, (size_t)(M * N) * 4) != 0, thin_bad = 0;
    if (M <= OX_THIN)
      for (int th = 1; th <= 3; th += 2) {
        for (int64_t i = 0; i < M * N; i++) c0[i] = c1[i] = (float)rnd();
        ox_sgemm_thin_packed(th, M, N, K, a, K, pb, nr, c0, N, 1.5f, beta);
        ox_sgemm_thin_packed_h(th, M, N, K, a, K, pb16, kind, nr, c1, N, 1.5f, beta);
        thin_bad += memcmp(c0, c1, (size_t)(M * N) * 4) != 0;
      }
    if (gemm_bad || thin_bad)
      fprintf(stderr, "pb16 %s M=%lld K=%lld N=%lld nan=%d beta=%g isa %d: %s not the bytes of the float pb\n",
              ox_dtypes[dt].onnx_name, (long long)M, (long long)K, (long long)N, nan, beta, isa,
              gemm_bad ? "packed" : "thin");
    bad += gemm_bad + thin_bad;
    ox_mem_scratch_free(pb), ox_mem_scratch_free(pb16);
    free(pa), free(c0), free(c1);
  }
  ox_gemm_max_isa(-1);
  free(bh), free(bw), free(a);
  return bad;
}

static void test_pb16(void) {
  /* (K, N): the last sliver of AVX-512's 48 columns 1, 2, 34, 4 and 14 wide */
  static const int64_t shapes[][2] = {{300, 97}, {513, 50}, {64, 130}, {256, 4}, {300, 110}};
  static const int64_t rows[] = {1, 3, 8, 100};
  int bad = 0;
  for (int d = 0; d < 2; d++)
    for (int s = 0; s < 5; s++)
      for (int r = 0; r < 4; r++)
        for (int nan = 0; nan < 2; nan++)
          bad += pb16_case(d ? OX_BFLOAT16 : OX_FLOAT16, rows[r], shapes[s][0], shapes[s][1], nan, r % 2 ? 0.5f : 0);
  CHECK_EQ_I(bad, 0);
}

/* ---- a constant float16 or bfloat16 B held once, as pb16 ----
 * B (K, N) an initializer that only MatMul reads: preparing with
 * release_packed packs it as it is (2 bytes an element: the state's
 * preparation holds pb16, no float pb) and gives the original back (before,
 * it was widened into a float pb beside the original, kept for the thin
 * products: 3 times the bytes). Every product, GEMM, thin (M <= 4, or 4
 * columns), a vector A and each ISA level below the packing's (B rebuilt),
 * is the same bytes as the product with B a graph input, at 1 and 3
 * threads, B with and without NaN. */
typedef struct { /* the head of ops/matmul.c's mm_prep */
  const ox_tensor *b;
  ox_gemm_plan gp;
  int64_t K, N;
  const float *pb;
  const uint16_t *pb16;
} mm_prep_head;
static void released_small_case(ox_dtype dt, int ar, int64_t M, int64_t K, int64_t N, int nan) {
  int64_t ad[2] = {M, K}, bd[2] = {K, N};
  ox_value *a = tensor(dt, ar, ar == 2 ? ad : ad + 1, NULL), *b = tensor(dt, 2, bd, NULL),
           *b_in = tensor(dt, 2, bd, NULL);
  for (int64_t i = 0; i < a->u.t.n; i++) ((uint16_t *)a->u.t.data)[i] = half_of(dt, (float)rnd());
  for (int64_t i = 0; i < b->u.t.n; i++) {
    uint16_t h = half_of(dt, (float)rnd());
    if (nan && i % 89 == 1) h = dt == OX_FLOAT16 ? 0xFE01 : 0x7FC1;
    ((uint16_t *)b->u.t.data)[i] = ((uint16_t *)b_in->u.t.data)[i] = h;
  }
  const_b cb;
  const_b_init(&cb, "MatMul", 2, b, 0, NULL, NULL);
  const_b_prepare(&cb);
  const mm_prep_head *const *st = cb.g[0].node[0].state;
  CHECK(st && *st && !(*st)->pb && (*st)->pb16); /* held as pb16 only */
  CHECK(cb.m[0].nreleased == 1 && cb.m[0].released[0] == b->u.t.data); /* the original given back */
  CHECK(((uint16_t *)b->u.t.data)[b->u.t.n / 2] == 0);
  char what[128];
  snprintf(what, sizeof what, "released_small_case(%s, %d, %lld, %lld, %lld, nan %d)", ox_dtypes[dt].onnx_name, ar,
           (long long)M, (long long)K, (long long)N, nan);
  ox_value *x1[1] = {a}, *x2[2] = {a, b_in};
  const_b_same(&cb, x1, x2, dt, M * N, what);
}

static void test_matmul_released_small(void) {
  for (int d = 0; d < 2; d++) {
    ox_dtype dt = d ? OX_BFLOAT16 : OX_FLOAT16;
    for (int nan = 0; nan < 2; nan++) {
      released_small_case(dt, 2, 1, 300, 200, nan);   /* one row: thin, from pb16 */
      released_small_case(dt, 2, 3, 513, 301, nan);   /* three rows, a partial sliver */
      released_small_case(dt, 2, 8, 300, 130, nan);   /* the packed GEMM */
      released_small_case(dt, 2, 100, 520, 97, nan);  /* K past two blocks, N not a multiple of nr */
      released_small_case(dt, 2, 300, 8192, 4, nan);  /* four columns: thin on B's side, B rebuilt */
      released_small_case(dt, 1, 1, 256, 257, nan);   /* a vector A: B rebuilt */
    }
  }
  released_small_case(OX_FLOAT16, 2, 40, 1024, 601, 0); /* packed in blocks of rows, each given back */
}

/* Gemm with a constant float16 or bfloat16 B (not transposed) packed at
 * load as pb16: given back when alpha is 1 (every product reads pb16 only),
 * and every product, at every level and 1 and 3 threads, the same bytes as
 * the same Gemm with B a graph input (widened per call, as before: with
 * transB too, which is not packed). */
static void gemm_released_small_case(ox_dtype dt, int64_t M, int64_t K, int64_t N, int tb, float alpha, float beta,
                                     int ckind) {
  int64_t ad[2] = {M, K}, bd[2] = {tb ? N : K, tb ? K : N};
  int64_t cd[3][2] = {{N, 0}, {M, N}, {M, 1}};
  ox_value *a = tensor(dt, 2, ad, NULL), *b = tensor(dt, 2, bd, NULL), *b_in = tensor(dt, 2, bd, NULL);
  ox_value *cv = ckind ? tensor(dt, ckind == 1 ? 1 : 2, cd[ckind - 1], NULL) : NULL;
  for (int64_t i = 0; i < a->u.t.n; i++) ((uint16_t *)a->u.t.data)[i] = half_of(dt, (float)rnd());
  for (int64_t i = 0; i < b->u.t.n; i++)
    ((uint16_t *)b->u.t.data)[i] = ((uint16_t *)b_in->u.t.data)[i] = half_of(dt, (float)rnd());
  for (int64_t i = 0; cv && i < cv->u.t.n; i++) ((uint16_t *)cv->u.t.data)[i] = half_of(dt, (float)rnd());
  ox_attr at[4] = {attr_int("transA", 0), attr_int("transB", tb), attr_float("alpha", alpha), attr_float("beta", beta)};
  const_b cb;
  const_b_init(&cb, "Gemm", ckind ? 3 : 2, b, 4, at, at);
  const_b_prepare(&cb);
  int gone = b->u.t.n * 2 >= 65536 && !tb && N > 4 && alpha == 1;
  CHECK_EQ_I(cb.m[0].nreleased, gone);
  if (gone) CHECK(cb.m[0].released[0] == b->u.t.data && ((uint16_t *)b->u.t.data)[b->u.t.n / 2] == 0);
  else CHECK(!memcmp(b->u.t.data, b_in->u.t.data, (size_t)b->u.t.n * 2));
  char what[128];
  snprintf(what, sizeof what, "gemm_released_small_case(%s, %lld, %lld, %lld, tb %d, %g, %g, C %d)",
           ox_dtypes[dt].onnx_name, (long long)M, (long long)K, (long long)N, tb, alpha, beta, ckind);
  ox_value *x1[2] = {a, cv}, *x2[3] = {a, b_in, cv};
  const_b_same(&cb, x1, x2, dt, M * N, what);
}
static void test_gemm_released_small(void) {
  for (int d = 0; d < 2; d++) {
    ox_dtype dt = d ? OX_BFLOAT16 : OX_FLOAT16;
    gemm_released_small_case(dt, 1, 768, 256, 0, 1, 1, 1);     /* a decode step's nn.Linear, bias */
    gemm_released_small_case(dt, 3, 300, 130, 0, 0.5f, 2, 2);  /* thin, alpha and beta, C (M, N): B kept */
    gemm_released_small_case(dt, 4, 128, 301, 0, 1, 1, 3);     /* four rows, C (M, 1), a partial sliver */
    gemm_released_small_case(dt, 40, 520, 400, 0, 1, 1, 1);    /* the packed GEMM, K past two blocks */
    gemm_released_small_case(dt, 70, 300, 200, 0, 1, 0.5f, 2); /* the packed GEMM, beta */
    gemm_released_small_case(dt, 40, 120, 400, 0, 0.5f, 1, 1); /* alpha: B kept for the packed GEMM */
    gemm_released_small_case(dt, 2, 256, 300, 1, 1, 1, 1);     /* transB: not packed, widened per call */
    gemm_released_small_case(dt, 8, 300, 4, 0, 1, 1, 1);       /* four columns: not packed */
  }
}

/* The peak RSS of preparing a 48 MiB float16 B with release_packed: about
 * a block over the start (before: +96 MiB of float pb, the original kept),
 * as for a float B; then a product within float's rounding of a float64
 * loop. */
static void test_release_peak_f16(void) { release_peak_case(OX_FLOAT16, 16384); }

int main(void) {
  A = ox_arena_new();
  test_pb16();
  test_matmul_released_small();
  test_release_peak_f16();
  test_gemm_released_small();
  test_gemm();
  test_gemm_small();
  test_gemm_edge_rows();
  test_matmul_op();
  test_matmul_prepared();
  test_matmul_released();
  test_gemm_released();
  test_release_peak();
  test_matmul_prepared_small();
  test_gemm_op();
  test_matmul_integer();
  test_matmul_int8();
  test_matmul_integer_prepared();
  test_contrib_prepared();
  test_einsum();
  test_det();
  test_table();
  ox_arena_free(A);
  return check_done("matmul");
}
