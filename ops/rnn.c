/* ops/rnn.c: the recurrent layers RNN, GRU and LSTM (every version: 1, 7, 14, 22;
 * GRU-3 too).
 *
 * One driver serves the three cells. Per direction, the input projection of
 * every time step is one GEMM, xw = X W^T + Wb (+ Rb where it can be folded),
 * over X as (seq_length * batch, input_size); each step then multiplies the
 * hidden state by R^T (one GEMM for the batch, whose store adds the step's
 * row of X W^T and the biases) and runs the gate arithmetic row by row. float and double compute in their own type; float16 and
 * bfloat16 are widened to float and rounded once on store.
 *
 * Semantics the spec leaves open follow onnxruntime:
 * - sequence_lens: batch row b runs sequence_lens[b] steps; Y past them is
 *   zero and Y_h / Y_c hold the state after the last valid step (zero for a
 *   length of 0, as onnxruntime; the spec says nothing). The reverse
 *   direction walks each row from its own last valid step back to 0.
 * - clip bounds the input of the gate activations f and g (not LSTM's h).
 * - activation names are case-insensitive; alpha and beta are consumed in
 *   order by the functions that take them (ACTS below), defaults as the ONNX
 *   operators of the same name (LeakyRelu 0.01, ThresholdedRelu 1, Elu 1,
 *   HardSigmoid 0.2 and 0.5; ScaledTanh 1 and 1, Affine 1 and 0). A list of
 *   one direction's functions given for bidirectional serves both.
 * - LSTM input_forget couples the gates: f = 1 - i. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/gemm.h"
#include "core/gemv.h"
#include "core/cpu.h"
#include "core/kernel.h"
#include "core/threads.h"
#include "core/vmath.h"

enum { CELL_RNN, CELL_GRU, CELL_LSTM };
enum { A_RELU, A_TANH, A_SIGMOID, A_AFFINE, A_LEAKY, A_THRELU, A_STANH, A_HSIG, A_ELU,
       A_SOFTSIGN, A_SOFTPLUS };

typedef struct { int kind; double alpha, beta; } act;

/* The weights a node's load hook packs once, from constant float W and R
 * (ONNX Runtime's PrePack): wp, W^T (I, D*G*H) as core/gemm.h's pb for the
 * input product of every direction at once; rp[d], direction d's R^T
 * (H, G*H), or for GRU without linear_before_reset its z and r columns
 * (H, 2*H), and rph[d] its h columns (H, H). A run uses them only for those
 * very tensors (ox_prep_matches) and while gp is the current plan. */
typedef struct {
  const ox_tensor *w, *r;
  ox_gemm_plan gp;
  const float *wp, *rp[2], *rph[2];
} rnn_prep;

/* X(name, kind, uses alpha, default alpha, uses beta, default beta) */
#define ACTS(X)                                                                       \
  X("Relu", A_RELU, 0, 0, 0, 0) X("Tanh", A_TANH, 0, 0, 0, 0)                         \
  X("Sigmoid", A_SIGMOID, 0, 0, 0, 0) X("Affine", A_AFFINE, 1, 1.0, 1, 0.0)           \
  X("LeakyRelu", A_LEAKY, 1, 0.01, 0, 0) X("ThresholdedRelu", A_THRELU, 1, 1.0, 0, 0) \
  X("ScaledTanh", A_STANH, 1, 1.0, 1, 1.0) X("HardSigmoid", A_HSIG, 1, 0.2, 1, 0.5)   \
  X("Elu", A_ELU, 1, 1.0, 0, 0) X("Softsign", A_SOFTSIGN, 0, 0, 0, 0)                 \
  X("Softplus", A_SOFTPLUS, 0, 0, 0, 0)

/* Everything one run needs, inputs already seq-major in the work type
 * (float or double). */
typedef struct {
  int cell, G;                /* gates per direction: 1, 3, 4 */
  int64_t S, N, I, H, D;      /* seq_length, batch, input_size, hidden_size, directions */
  int reverse;                /* direction == "reverse" (D == 1) */
  int lbr, input_forget;      /* GRU linear_before_reset, LSTM input_forget */
  int has_clip;
  double clip;
  act acts[2][3];             /* per direction: f (, g (, h)) */
  const int64_t *len;         /* (N,) */
  const void *x, *w, *r, *b, *h0, *c0, *p; /* x (S, N, I), w (D, G*H, I), r (D, G*H, H),
                                              b (D, 2*G*H), h0 c0 (D, N, H), p (D, 3*H);
                                              b h0 c0 p may be NULL */
  void *y, *yh, *yc;          /* (S, D, N, H), (D, N, H), (D, N, H), zeroed */
  const rnn_prep *pp;         /* W and R packed at load (float), or NULL */
} job;

/* ---- the recurrent product's kernel (float, AVX2 and AVX-512 plans) ----
 * C (N, ncols) = h (N, K), read in place (rows ldh apart), x the packed
 * R^T's column slivers [s0, s1) (pb), as core/gemm.h's packed product
 * computes it, element for element the same operations: a multiply-add
 * chain over k from 0 in blocks of 256 (gemm.c's KC), each later block's
 * sum added to C's. Here a sliver of a few rows multiplies only those rows
 * and stores whole vectors (the GEMM stores a tile of fewer rows than its
 * MR through a buffer, one float at a time), and one or two rows take two
 * column slivers at once (more sums in flight). The rows of each sliver
 * are summed the same way whatever their count, so a batch row's bits do
 * not depend on the batch. h is not packed: each step's row is broadcast
 * from where it is.
 *
 * The epilogue (rec_add_f below): with xr, the columns j < ne of row i are
 * stored as (xr[i][j] + bias[j]) + sum (bias NULL: xr[i][j] + sum), the
 * gates' input part and biases added while the row is in registers, in the
 * order the separate passes added them (so the same bits). */
typedef struct {
  const float *const *xr; /* (N) rows of the input part, or NULL: none */
  const float *bias;      /* (ne) or NULL */
  int64_t ne;             /* the columns [0, ne) that get it */
} rec_add_f;
typedef struct {
  const double *const *xr;
  const double *bias;
  int64_t ne;
} rec_add_d;
#if OX_X86_DISPATCH
#include <immintrin.h>
enum { REC_KC = 256 };
#define UNROLL _Pragma("GCC unroll 8")
#define NUQ(q) ((q) == NS - 1 ? NUL : NU) /* the vectors used of sliver q */
/* The body for vectors V of VL floats, NV of them per column sliver (NR
 * = NV * VL), MR rows at most; MX rows (m of them, 1 to MR), NS slivers
 * of which the first NU vectors are used, NUL in the last (fewer than NV
 * in a partial sliver: its zero padding is not read), the first at column
 * c0 of C's rows. REG keeps a loaded vector in a register (gcc otherwise folds
 * the load into each row's multiply-add: one load per row). */
#define REC_BODY(V, VL, NV, MR, LOAD, STORE, SET1, FMA, ADD, ZERO)                     \
  const float *hrow[MR];                                                                \
  for (int r = 0; r < MR; r++) hrow[r] = h + (r < m ? r : m - 1) * ldh;                 \
  for (int64_t kb = 0; kb < K; kb += REC_KC) {                                          \
    int64_t kc = K - kb < REC_KC ? K - kb : REC_KC;                                     \
    int last = kb + kc >= K; /* the epilogue's block */                                 \
    V acc[2][MR][NV]; /* the first NS, MX of them used */                              \
    if (last && ad->xr) /* the epilogue's rows of xw (not in cache: one row a step), */ \
      for (int r = 0; r < MX && r < m; r++) /* non-temporal: R^T keeps L2 */            \
        for (int64_t e = 0; e < NS * NV * VL && e < nc; e += 16)                        \
          __builtin_prefetch(ad->xr[r] + c0 + e, 0, 0);                                 \
    UNROLL for (int q = 0; q < NS; q++)                                                 \
      UNROLL for (int r = 0; r < MX; r++)                                               \
        UNROLL for (int v = 0; v < NV; v++) if (v < NUQ(q)) acc[q][r][v] = ZERO;        \
    const float *bp = pb + kb * NV * VL;                                                \
    for (int64_t k = kb; k < kb + kc; k++, bp += NV * VL) {                             \
      V b[2][NV];                                                                       \
      UNROLL for (int q = 0; q < NS; q++)                                               \
        UNROLL for (int v = 0; v < NV; v++) if (v < NUQ(q)) {                           \
          b[q][v] = LOAD(bp + q * K * NV * VL + v * VL);                                \
          if (MX > 1) __asm__("" : "+v"(b[q][v]));                                      \
        }                                                                               \
      UNROLL for (int r = 0; r < MX; r++) {                                             \
        V a = SET1(hrow[r][k]);                                                         \
        UNROLL for (int q = 0; q < NS; q++)                                             \
          UNROLL for (int v = 0; v < NV; v++) if (v < NUQ(q)) acc[q][r][v] = FMA(a, b[q][v], acc[q][r][v]); \
      }                                                                                 \
    }                                                                                   \
    for (int q = 0; q < NS; q++)                                                        \
      for (int r = 0; r < MX && r < m; r++)                                             \
        for (int v = 0; v < NUQ(q); v++) {                                              \
          int64_t j = q * NV * VL + v * VL; /* the column in C */                       \
          if (j >= nc) break;                                                           \
          float *dst = C + r * ldc + j;                                                 \
          const float *xs = last && ad->xr ? ad->xr[r] + c0 + j : NULL;                 \
          const float *bs = ad->bias ? ad->bias + c0 + j : NULL;                        \
          int64_t ne = ad->ne - c0 - j; /* columns of this vector with the epilogue */  \
          V y = acc[q][r][v];                                                           \
          if (j + VL <= nc && (!xs || ne >= VL || ne <= 0)) {                           \
            if (kb > 0) y = ADD(y, LOAD(dst));                                          \
            if (xs && ne > 0) y = ADD(bs ? ADD(LOAD(xs), LOAD(bs)) : LOAD(xs), y);      \
            STORE(dst, y);                                                              \
          } else { /* the last columns, or the vector the epilogue ends in */           \
            float t[VL];                                                                \
            STORE(t, y);                                                                \
            for (int64_t e = 0; e < nc - j && e < VL; e++) {                            \
              float u = kb > 0 ? t[e] + dst[e] : t[e];                                  \
              if (xs && e < ne) u = (bs ? xs[e] + bs[e] : xs[e]) + u;                   \
              dst[e] = u;                                                               \
            }                                                                           \
          }                                                                             \
        }                                                                               \
  }

#define L512(p) _mm512_loadu_ps(p)
#define S512(p, y) _mm512_storeu_ps(p, y)
static inline __attribute__((always_inline)) OX_TARGET_AVX512 void rec512(
    const int NS, const int MX, const int NU, const int NUL, int64_t m, int64_t K, const float *h, int64_t ldh,
    const float *pb,
    float *C, int64_t ldc, int64_t nc, int64_t c0, const rec_add_f *ad) {
  REC_BODY(__m512, 16, 3, 8, L512, S512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps,
           _mm512_setzero_ps())
}
#define L256(p) _mm256_loadu_ps(p)
#define S256(p, y) _mm256_storeu_ps(p, y)
static inline __attribute__((always_inline)) OX_TARGET_AVX2 void rec256(
    const int NS, const int MX, const int NU, const int NUL, int64_t m, int64_t K, const float *h, int64_t ldh,
    const float *pb,
    float *C, int64_t ldc, int64_t nc, int64_t c0, const rec_add_f *ad) {
  REC_BODY(__m256, 8, 2, 6, L256, S256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps,
           _mm256_setzero_ps())
}

/* Column slivers [s0, s1) of C (N, ncols), every row sliver of h; with
 * `back`, the slivers from the last to the first: steps that alternate
 * find the R^T slivers they start with still in L2 from the step before
 * (R^T of a hidden size of 256 is 1 MiB, what L2 holds: walked the same way
 * every step, each sliver would be evicted just before it is used again).
 * Each count of rows has its own body (no padding rows computed), and the
 * last, partial sliver its count of vectors; for 1 or 2 rows it goes with
 * the whole sliver before it when that has no pair (alone, its few sums
 * would wait on the multiply-add's latency). */
#define REC_CALL2(BODY, NS, MX, NU, NUL, s) \
  BODY(NS, MX, NU, NUL, m, K, a, ldh, pb + (s) * K * nr_, c + (s) * nr_, ldc, nc, (s) * nr_, &ai)
#define REC_CALL(BODY, NS, MX, NU, s) REC_CALL2(BODY, NS, MX, NU, NU, s)
#define REC_NU(BODY, MX, s)                                                             \
  do {                                                                                  \
    if (nu == 1) REC_CALL(BODY, 1, MX, 1, s);                                           \
    else if (nu == 2 || nr_ == 2 * vl_) REC_CALL(BODY, 1, MX, 2, s);                    \
    else REC_CALL(BODY, 1, MX, 3, s);                                                   \
  } while (0)
#define REC_DRIVER(NAME, BODY, TARGET, MR, NR, VL, MCASES)                               \
  TARGET static void NAME(int64_t N, int64_t K, int64_t ncols, const float *h, int64_t ldh,  \
                          const float *pb, int64_t s0, int64_t s1, float *C, int64_t ldc, int back, \
                          const rec_add_f *ad) {                                        \
    const int nr_ = NR, vl_ = VL;                                                       \
    for (int64_t i = 0; i < N; i += MR) {                                               \
      int64_t m = N - i < MR ? N - i : MR;                                              \
      const float *a = h + i * ldh;                                                     \
      float *c = C + i * ldc;                                                           \
      rec_add_f ai = {ad->xr ? ad->xr + i : NULL, ad->bias, ad->ne};                    \
      /* groups: npair pairs of whole slivers (1 or 2 rows), then single slivers */     \
      int64_t sf = ncols / NR < s1 ? ncols / NR : s1; /* [s0, sf): whole slivers */     \
      int64_t npair = m <= 2 && sf > s0 ? (sf - s0) / 2 : 0, ng = s1 - s0 - npair;      \
      /* fold: the last group a whole sliver and the partial one after it */           \
      int fold = m <= 2 && sf == s1 - 1 && s1 - s0 - 2 * npair == 2 && ncols % NR;       \
      ng -= fold;                                                                       \
      for (int64_t g = 0; g < ng; g++) {                                                \
        int64_t gg = back ? ng - 1 - g : g;                                             \
        if (fold && gg == npair) {                                                      \
          int64_t s = s0 + 2 * npair, nc = NR + ncols % NR, nu = (ncols % NR + VL - 1) / VL; \
          if (m == 1 && nu == 1) REC_CALL2(BODY, 2, 1, NR / VL, 1, s);                  \
          else if (m == 1 && (nu == 2 || NR == 2 * VL)) REC_CALL2(BODY, 2, 1, NR / VL, 2, s); \
          else if (m == 1) REC_CALL2(BODY, 2, 1, NR / VL, 3, s);                        \
          else if (nu == 1) REC_CALL2(BODY, 2, 2, NR / VL, 1, s);                       \
          else if (nu == 2 || NR == 2 * VL) REC_CALL2(BODY, 2, 2, NR / VL, 2, s);       \
          else REC_CALL2(BODY, 2, 2, NR / VL, 3, s);                                    \
          continue;                                                                     \
        }                                                                               \
        if (gg < npair) {                                                               \
          int64_t s = s0 + 2 * gg, nc = 2 * NR;                                         \
          if (m == 1) REC_CALL(BODY, 2, 1, NR / VL, s);                                 \
          else REC_CALL(BODY, 2, 2, NR / VL, s);                                        \
          continue;                                                                     \
        }                                                                               \
        int64_t s = s0 + 2 * npair + (gg - npair);                                      \
        int64_t nc = ncols - s * NR < NR ? ncols - s * NR : NR, nu = (nc + VL - 1) / VL; \
        switch (m) { MCASES(BODY) }                                                     \
      }                                                                                 \
    }                                                                                   \
  }
#define REC_M(B, n) case n: REC_NU(B, n, s); break;
#define REC_M6(B) REC_M(B, 1) REC_M(B, 2) REC_M(B, 3) REC_M(B, 4) REC_M(B, 5) default: REC_NU(B, 6, s); break;
#define REC_M8(B) REC_M(B, 1) REC_M(B, 2) REC_M(B, 3) REC_M(B, 4) REC_M(B, 5) REC_M(B, 6) REC_M(B, 7) \
  default: REC_NU(B, 8, s); break;
REC_DRIVER(rec_avx512, rec512, OX_TARGET_AVX512, 8, 48, 16, REC_M8)
REC_DRIVER(rec_avx2, rec256, OX_TARGET_AVX2, 6, 16, 8, REC_M6)

/* Whether the plan's kernel is one of these (else the GEMM computes the
 * product, from h packed) */
static int rec_fast_ok_f(const ox_gemm_plan *gp) {
  return (gp->level == OX_CPU_AVX512 && gp->mr == 8 && gp->nr == 48) ||
         (gp->level == OX_CPU_AVX2 && gp->mr == 6 && gp->nr == 16);
}
static void rec_fast_f(const ox_gemm_plan *gp, int64_t N, int64_t K, int64_t ncols, const float *h, int64_t ldh,
                       const float *pb, int64_t s0, int64_t s1, float *C, int64_t ldc, int back, const rec_add_f *ad) {
  if (gp->level == OX_CPU_AVX512) rec_avx512(N, K, ncols, h, ldh, pb, s0, s1, C, ldc, back, ad);
  else rec_avx2(N, K, ncols, h, ldh, pb, s0, s1, C, ldc, back, ad);
}
#else
static int rec_fast_ok_f(const ox_gemm_plan *gp) {
  (void)gp;
  return 0;
}
static void rec_fast_f(const ox_gemm_plan *gp, int64_t N, int64_t K, int64_t ncols, const float *h, int64_t ldh,
                       const float *pb, int64_t s0, int64_t s1, float *C, int64_t ldc, int back, const rec_add_f *ad) {
  (void)gp, (void)N, (void)K, (void)ncols, (void)h, (void)ldh, (void)pb, (void)s0, (void)s1, (void)C, (void)ldc;
  (void)back, (void)ad;
}
#endif

enum { IN_ROWS = 128 }; /* the input product's rows per item: their K block stays in L2 */

/* The per-type parts: activations over a vector, clip, and the driver
 * (ops/rnn_body.h): act_f, gate_f, run_f and act_d, gate_d, run_d. The
 * float gates' sigmoid and tanh run 8 at a time in double lanes
 * (core/vmath.h), rounded once as the scalar double loops round them: the
 * quick forms, ox_sigmoid_fast_f32 and ox_tanh_fast_f32, which give
 * ox_sigmoid_f32's and ox_tanh_f32's bits (tests/unit/test_unary.c). */
#define T float
#define FN(name) name##_f
#define GEMM ox_sgemm
#define G_PLAN ox_sgemm_plan_now
#define G_PACK_A ox_sgemm_pack_a
#define G_PACK_BT ox_sgemm_pack_bt
#define G_PACKED ox_sgemm_packed
#define REC_FAST rec_fast_f
#define REC_FAST_OK rec_fast_ok_f
#define VSIGMOID(x, n) ox_sigmoid_fast_f32(x, x, n)
#define VTANH(x, n) ox_tanh_fast_f32(x, x, n)
#include "rnn_body.h"
#define T double
#define FN(name) name##_d
#define GEMM ox_dgemm
#define G_PLAN ox_dgemm_plan_now
#define G_PACK_A ox_dgemm_pack_a
#define G_PACK_BT ox_dgemm_pack_bt
#define G_PACKED ox_dgemm_packed
#define REC_FAST(gp, N, K, ncols, h, ldh, pb, s0, s1, C, ldc, back, ad) (void)0
#define REC_FAST_OK(gp) 0
#define VSIGMOID(x, n) for (int64_t i_ = 0; i_ < (n); i_++) x[i_] = 1 / (1 + exp(-x[i_]))
#define VTANH(x, n) for (int64_t i_ = 0; i_ < (n); i_++) x[i_] = tanh(x[i_])
#include "rnn_body.h"

/* ---- attributes ---- */

static int act_parse(ox_ctx *c, const char *name, const float *alphas, int64_t nal, int64_t *ia,
                     const float *betas, int64_t nbe, int64_t *ib, act *out) {
#define X(NM, K, UA, DA, UB, DB)                                                      \
  if (!strcasecmp(name, NM)) {                                                        \
    out->kind = K;                                                                    \
    out->alpha = DA;                                                                  \
    out->beta = DB;                                                                   \
    if (UA && *ia < nal) out->alpha = alphas[(*ia)++];                                \
    if (UB && *ib < nbe) out->beta = betas[(*ib)++];                                  \
    return 0;                                                                         \
  }
  ACTS(X)
#undef X
  return ox_fail(c->err, OX_EINPUT,
                 "activation '%s' is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                 "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus", name);
}

/* activations, activation_alpha, activation_beta: nact functions per
 * direction (RNN 1: f; GRU 2: f, g; LSTM 3: f, g, h). */
static int acts_of(ox_ctx *c, job *j, int nact) {
  static const char *defaults[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  const ox_attr *at = ox_attr_find(c, "activations");
  const ox_attr *aa = ox_attr_find(c, "activation_alpha"), *ab = ox_attr_find(c, "activation_beta");
  if (at && at->type != OX_ATTR_STRINGS)
    return ox_fail(c->err, OX_EINPUT, "attribute 'activations' must be a list of strings");
  if ((aa && aa->type != OX_ATTR_FLOATS) || (ab && ab->type != OX_ATTR_FLOATS))
    return ox_fail(c->err, OX_EINPUT, "attributes 'activation_alpha' and 'activation_beta' must be lists of floats");
  int64_t n = at ? at->n : 0, ia = 0, ib = 0;
  if (at && n != nact && n != nact * j->D)
    return ox_fail(c->err, OX_EINPUT, "'activations' lists %lld functions; %s takes %d per direction (%lld directions)",
                   (long long)n, c->node->op, nact, (long long)j->D);
  for (int64_t d = 0; d < j->D; d++)
    for (int k = 0; k < nact; k++) {
      if (!at) {
        OX_TRY(act_parse(c, defaults[j->cell][k], NULL, 0, &ia, NULL, 0, &ib, &j->acts[d][k]));
        continue;
      }
      if (n == nact && d == 1) { /* one list for both directions */
        j->acts[1][k] = j->acts[0][k];
        continue;
      }
      OX_TRY(act_parse(c, at->strings[d * nact + k].p, aa ? aa->floats : NULL, aa ? aa->n : 0, &ia,
                       ab ? ab->floats : NULL, ab ? ab->n : 0, &ib, &j->acts[d][k]));
    }
  return 0;
}

/* ---- shapes and layout ---- */

/* dst (B, A, inner) = src (A, B, inner) with axes 0 and 1 swapped. */
static void swap01(const void *src, void *dst, int64_t A, int64_t B, size_t inner) {
  const char *s = src;
  char *o = dst;
  for (int64_t a = 0; a < A; a++)
    for (int64_t b = 0; b < B; b++) memcpy(o + (size_t)(b * A + a) * inner, s + (size_t)(a * B + b) * inner, inner);
}

static int want_shape(ox_ctx *c, int i, const ox_tensor *t, int rank, const int64_t *dims) {
  int ok = t->rank == rank;
  for (int k = 0; ok && k < rank; k++) ok = t->dims[k] == dims[k];
  if (ok) return 0;
  char s1[128], s2[128];
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; expected %s", ox_input_name(c, i),
                 ox_shape_str(t->rank, t->dims, s1, sizeof s1), ox_shape_str(rank, dims, s2, sizeof s2));
}

/* An optional input as a tensor of X's type (NULL when absent). */
static int opt_in(ox_ctx *c, int nin, ox_value **in, int i, ox_dtype dt, const ox_tensor **t) {
  *t = NULL;
  if (i >= nin || !in[i]) return 0;
  if (in[i]->kind != OX_TENSOR) return ox_fail(c->err, OX_EINPUT, "%s is not a tensor", ox_input_name(c, i));
  if (in[i]->u.t.dt != dt && i != 4)
    return ox_fail(c->err, OX_EINPUT, "%s is %s but X is %s; they must have the same type",
                   ox_input_name(c, i), ox_dtypes[in[i]->u.t.dt].onnx_name, ox_dtypes[dt].onnx_name);
  *t = &in[i]->u.t;
  return 0;
}

/* t's data in the work type wt (float for the small floats), seq-major:
 * with `swap`, axes 0 and 1 of a 3-D tensor are exchanged. */
static const void *work_data(ox_ctx *c, const ox_tensor *t, ox_dtype wt, int swap) {
  if (!t) return NULL;
  const void *d = t->data;
  if (t->dt != wt && !(d = ox_widen_f32(c->a, t, c->err))) return NULL;
  if (!swap) return d;
  void *o = ox_alloc_array(c->a, t->n + 1, ox_dtype_size(wt));
  if (!o) return ox_oom(c->err, NULL), NULL;
  swap01(d, o, t->dims[0], t->dims[1], (size_t)t->dims[2] * ox_dtype_size(wt));
  return o;
}

/* Output k of shape dims (layout-ordered) from the work buffer src
 * (seq-major, of c->a): swapped back for layout 1 and narrowed for small
 * floats; else src itself. */
static int put_out(ox_ctx *c, ox_dtype dt, ox_dtype wt, int rank, const int64_t *dims,
                   const void *src, int swap, int64_t A, int64_t B, int64_t inner, ox_value **out) {
  if (dt == wt && !swap) /* the work buffer is the output (an arena block, 64-byte aligned) */
    return ox_tensor_adopt(c->a, dt, rank, dims, (void *)src, out, c->err);
  OX_TRY(ox_tensor_new_uninit(c->a, dt, rank, dims, out, c->err)); /* every element written below */
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  const void *s = src;
  if (swap) {
    void *o = ox_alloc_array(c->a, y->n, ox_dtype_size(wt));
    if (!o) return ox_oom(c->err, NULL);
    swap01(src, o, A, B, (size_t)inner * ox_dtype_size(wt));
    s = o;
  }
  if (dt == wt) memcpy(y->data, s, (size_t)y->n * ox_dtype_size(wt));
  else ox_narrow_f32(s, y);
  return 0;
}

/* ---- the kernel ---- */

static int rnn_common(ox_ctx *c, int cell, int nin, ox_value **in, int nout, ox_value **out) {
  static const int gates[] = {1, 3, 4};
  job j = {.cell = cell, .G = gates[cell]};
  const ox_tensor *W, *R, *B, *L, *H0, *C0 = NULL, *P = NULL;
  for (int i = 0; i < 3; i++)
    if (!in[i] || in[i]->kind != OX_TENSOR)
      return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a tensor", ox_input_name(c, i),
                     in[i] ? "not a tensor" : "missing");
  const ox_tensor *X = &in[0]->u.t;
  ox_dtype dt = X->dt, wt = dt == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT;
  OX_TRY(opt_in(c, nin, in, 1, dt, &W));
  OX_TRY(opt_in(c, nin, in, 2, dt, &R));
  OX_TRY(opt_in(c, nin, in, 3, dt, &B));
  OX_TRY(opt_in(c, nin, in, 4, dt, &L));
  OX_TRY(opt_in(c, nin, in, 5, dt, &H0));
  if (cell == CELL_LSTM) {
    OX_TRY(opt_in(c, nin, in, 6, dt, &C0));
    OX_TRY(opt_in(c, nin, in, 7, dt, &P));
  }
  /* attributes */
  const char *dir = ox_attr_string(c, "direction", "forward");
  if (!strcmp(dir, "forward") || !strcmp(dir, "foward")) j.D = 1; /* -1's default is spelt "foward" */
  else if (!strcmp(dir, "reverse")) j.D = 1, j.reverse = 1;
  else if (!strcmp(dir, "bidirectional")) j.D = 2;
  else return ox_fail(c->err, OX_EINPUT, "direction '%s' is not forward, reverse or bidirectional", dir);
  int layout = 0; /* from -14 */
  if (c->version >= 14) OX_TRY(ox_attr_int_in(c, "layout", 0, 0, 1, &layout));
  j.lbr = cell == CELL_GRU && c->version >= 3 && ox_attr_int(c, "linear_before_reset", 0) != 0;
  j.input_forget = cell == CELL_LSTM && ox_attr_int(c, "input_forget", 0) != 0;
  const ox_attr *clip = ox_attr_find(c, "clip");
  if (clip) {
    j.has_clip = 1;
    j.clip = ox_attr_float(c, "clip", 0);
    if (!(j.clip >= 0)) return ox_fail(c->err, OX_EINPUT, "clip is %g; it must be a threshold >= 0", j.clip);
  }
  if (c->err->code) return c->err->code;
  /* shapes */
  char s1[128];
  if (X->rank != 3)
    return ox_fail(c->err, OX_EINPUT, "X has shape %s; expected 3 dims (%s)", ox_shape_str(X->rank, X->dims, s1, sizeof s1),
                   layout ? "batch_size, seq_length, input_size" : "seq_length, batch_size, input_size");
  j.S = X->dims[layout ? 1 : 0];
  j.N = X->dims[layout ? 0 : 1];
  j.I = X->dims[2];
  if (R->rank != 3) return ox_fail(c->err, OX_EINPUT, "R has shape %s; expected (num_directions, %d*hidden_size, hidden_size)",
                                   ox_shape_str(R->rank, R->dims, s1, sizeof s1), j.G);
  j.H = ox_attr_int(c, "hidden_size", R->dims[2]);
  if (j.H <= 0 || j.H > INT64_MAX / 8) return ox_fail(c->err, OX_EINPUT, "hidden_size %lld is not valid", (long long)j.H);
  int64_t GH = j.G * j.H, D = j.D, N = j.N, Hs = j.H;
  if (ox_numel(3, (int64_t[]){j.S > 0 ? j.S : 1, N, GH}, 8) < 0)
    return ox_fail(c->err, OX_EINPUT, "the gates of %lld steps x %lld batch rows x %lld are too many",
                   (long long)j.S, (long long)N, (long long)GH);
  OX_TRY(want_shape(c, 1, W, 3, (int64_t[]){D, GH, j.I}));
  OX_TRY(want_shape(c, 2, R, 3, (int64_t[]){D, GH, Hs}));
  if (B) OX_TRY(want_shape(c, 3, B, 2, (int64_t[]){D, 2 * GH}));
  int64_t hd[3] = {layout ? N : D, layout ? D : N, Hs};
  if (H0) OX_TRY(want_shape(c, 5, H0, 3, hd));
  if (C0) OX_TRY(want_shape(c, 6, C0, 3, hd));
  if (P) OX_TRY(want_shape(c, 7, P, 2, (int64_t[]){D, 3 * Hs}));
  int64_t *len = ox_alloc_array(c->a, N + 1, sizeof *len);
  if (!len) return ox_oom(c->err, NULL);
  for (int64_t b = 0; b < N; b++) len[b] = j.S;
  if (L) {
    if (L->dt != OX_INT32 && L->dt != OX_INT64)
      return ox_fail(c->err, OX_EINPUT, "sequence_lens is %s; T1 must be int32", ox_dtypes[L->dt].onnx_name);
    OX_TRY(want_shape(c, 4, L, 1, (int64_t[]){N}));
    for (int64_t b = 0; b < N; b++) {
      len[b] = L->dt == OX_INT32 ? ((const int32_t *)L->data)[b] : ((const int64_t *)L->data)[b];
      if (len[b] < 0 || len[b] > j.S)
        return ox_fail(c->err, OX_EINPUT, "sequence_lens[%lld] is %lld; it must be in [0, seq_length = %lld]",
                       (long long)b, (long long)len[b], (long long)j.S);
    }
  }
  j.len = len;
  OX_TRY(acts_of(c, &j, cell + 1));
  /* outputs: Y (S, D, N, H) or (N, S, D, H); Y_h, Y_c (D, N, H) or (N, D, H) */
  int64_t ydims[4] = {j.S, D, N, Hs}, ylay[4] = {N, j.S, D, Hs};
  if (ox_numel(4, ydims, 8) < 0) return ox_fail(c->err, OX_EINPUT, "the output Y is too large");
  size_t es = ox_dtype_size(wt);
  int want[3] = {0, 0, 0};
  for (int k = 0; k < nout && k < 3; k++) want[k] = c->node->out[k] && c->node->out[k][0];
  int full = 1; /* every row runs all S steps: every element of Y is written */
  for (int64_t b = 0; b < N; b++) full &= len[b] == j.S;
  if (want[0] && !(j.y = full ? ox_alloc_uninit(c->a, (size_t)(j.S * D * N * Hs + 1) * es)
                              : ox_alloc_array(c->a, j.S * D * N * Hs + 1, es)))
    return ox_oom(c->err, NULL);
  if (want[1] && !(j.yh = ox_alloc_array(c->a, D * N * Hs + 1, es))) return ox_oom(c->err, NULL);
  if (want[2] && cell == CELL_LSTM && !(j.yc = ox_alloc_array(c->a, D * N * Hs + 1, es))) return ox_oom(c->err, NULL);
  /* inputs in the work type, seq-major */
  if (!(j.x = work_data(c, X, wt, layout)) || !(j.w = work_data(c, W, wt, 0)) ||
      !(j.r = work_data(c, R, wt, 0)))
    return c->err->code ? c->err->code : ox_oom(c->err, NULL);
  if ((B && !(j.b = work_data(c, B, wt, 0))) || (H0 && !(j.h0 = work_data(c, H0, wt, layout))) ||
      (C0 && !(j.c0 = work_data(c, C0, wt, layout))) || (P && !(j.p = work_data(c, P, wt, 0))))
    return c->err->code ? c->err->code : ox_oom(c->err, NULL);
  const rnn_prep *pp = c->state;
  if (pp && pp->wp && dt == OX_FLOAT && ox_prep_matches(in[1], pp->w) && ox_prep_matches(in[2], pp->r)) {
    ox_gemm_plan now = ox_sgemm_plan_now();
    if (now.level == pp->gp.level && now.mr == pp->gp.mr && now.nr == pp->gp.nr) j.pp = pp;
  }
  /* seq_length 0: every row has length 0, outputs stay zero */
  if (j.S > 0 && N > 0) OX_TRY(wt == OX_DOUBLE ? run_d(c, &j) : run_f(c, &j));
  for (int k = 0; k < nout; k++) out[k] = NULL;
  if (want[0]) OX_TRY(put_out(c, dt, wt, 4, layout ? ylay : ydims, j.y, layout, j.S * D, N, Hs, &out[0]));
  if (want[1]) OX_TRY(put_out(c, dt, wt, 3, hd, j.yh, layout, D, N, Hs, &out[1]));
  if (want[2]) {
    if (cell != CELL_LSTM) return ox_fail(c->err, OX_EINPUT, "%s has at most 2 outputs", c->node->op);
    OX_TRY(put_out(c, dt, wt, 3, hd, j.yc, layout, D, N, Hs, &out[2]));
  }
  return 0;
}

/* The load hook: W and R packed for the GEMM when both are constant float
 * tensors of the shapes the attributes give (anything else is left to the
 * run, which reports it). */
static int rnn_load(ox_ctx *c, int cell, void **state) {
  static const int gates[] = {1, 3, 4};
  rnn_prep *pp = ox_alloc(c->a, sizeof *pp);
  if (!pp) return ox_oom(c->err, NULL);
  *state = pp;
  const ox_tensor *W, *R;
  OX_TRY(ox_const_input(c, 1, &W));
  OX_TRY(ox_const_input(c, 2, &R));
  if (!W || !R || W->dt != OX_FLOAT || R->dt != OX_FLOAT || W->rank != 3 || R->rank != 3) return 0;
  const char *dir = ox_attr_string(c, "direction", "forward");
  int64_t D = !strcmp(dir, "bidirectional") ? 2 : 1, G = gates[cell];
  int64_t H = ox_attr_int(c, "hidden_size", R->dims[2]), I = W->dims[2];
  int lbr = cell == CELL_GRU && c->version >= 3 && ox_attr_int(c, "linear_before_reset", 0) != 0;
  if (c->err->code) return c->err->code;
  if (H <= 0 || H > INT64_MAX / 8 || I <= 0 || W->dims[0] != D || W->dims[1] != G * H || R->dims[0] != D ||
      R->dims[1] != G * H || R->dims[2] != H)
    return 0;
  ox_gemm_plan gp = ox_sgemm_plan_now();
  int64_t nr = gp.nr, GH = G * H, split = cell == CELL_GRU && !lbr, ncz = split ? 2 * H : GH;
  int64_t nw = ox_numel(2, (int64_t[]){(D * GH + nr - 1) / nr * nr, I}, 4);
  int64_t nrp = ox_numel(2, (int64_t[]){(ncz + nr - 1) / nr * nr, H}, 4);
  int64_t nrh = ox_numel(2, (int64_t[]){(H + nr - 1) / nr * nr, H}, 4);
  if (nw < 0 || nrp < 0 || nrh < 0) return 0;
  float *wp = ox_alloc_uninit(c->a, (size_t)nw * 4);
  if (!wp) return ox_oom(c->err, NULL);
  ox_sgemm_pack_bt(&gp, I, D * GH, W->data, I, wp); /* W (D*G*H, I) read as W^T */
  for (int64_t d = 0; d < D; d++) {
    const float *Rd = (const float *)R->data + d * GH * H;
    float *rp = ox_alloc_uninit(c->a, (size_t)nrp * 4), *rph = NULL;
    if (!rp) return ox_oom(c->err, NULL);
    ox_sgemm_pack_bt(&gp, H, ncz, Rd, H, rp); /* R (G*H, H) read as R^T */
    if (split) {
      if (!(rph = ox_alloc_uninit(c->a, (size_t)nrh * 4))) return ox_oom(c->err, NULL);
      ox_sgemm_pack_bt(&gp, H, H, Rd + 2 * H * H, H, rph);
    }
    pp->rp[d] = rp, pp->rph[d] = rph;
  }
  pp->w = W, pp->r = R, pp->gp = gp, pp->wp = wp;
  return 0;
}
static int rnn_load_rnn(ox_ctx *c, void **state) { return rnn_load(c, CELL_RNN, state); }
static int rnn_load_gru(ox_ctx *c, void **state) { return rnn_load(c, CELL_GRU, state); }
static int rnn_load_lstm(ox_ctx *c, void **state) { return rnn_load(c, CELL_LSTM, state); }

static int rnn(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return rnn_common(c, CELL_RNN, nin, in, nout, out);
}
static int gru(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return rnn_common(c, CELL_GRU, nin, in, nout, out);
}
static int lstm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return rnn_common(c, CELL_LSTM, nin, in, nout, out);
}

const ox_kernel ox_rnn_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "RNN",   1, 0, OX_TS_FLOAT3, 3, 6, rnn,
    "activation_alpha:floats,activation_beta:floats,activations:strings=[Tanh Tanh],clip:float,"
    "direction:string=forward,hidden_size:int,output_sequence:int=0", rnn_load_rnn }, /* output_sequence */
  { "", "RNN",   7, 0, OX_TS_FLOAT3, 3, 6, rnn,
    "activation_alpha:floats,activation_beta:floats,activations:strings=[Tanh Tanh],clip:float,"
    "direction:string=forward,hidden_size:int", rnn_load_rnn },
  { "", "RNN",  14, 0, OX_TS_FLOAT3, 3, 6, rnn,
    "activation_alpha:floats,activation_beta:floats,activations:strings=[Tanh Tanh],clip:float,"
    "direction:string=forward,hidden_size:int,layout:int=0", rnn_load_rnn }, /* layout */
  { "", "RNN",  22, 0, OX_TS_FLOAT4, 3, 6, rnn, OX_ATTRS_OF(14), rnn_load_rnn }, /* bfloat16 */
  { "", "GRU",   1, 0, OX_TS_FLOAT3, 3, 6, gru,
    "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
    "direction:string=foward,hidden_size:int,output_sequence:int=0", rnn_load_gru },
  /* linear_before_reset */
  { "", "GRU",   3, 0, OX_TS_FLOAT3, 3, 6, gru,
    "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
    "direction:string=forward,hidden_size:int,linear_before_reset:int=0,output_sequence:int=0", rnn_load_gru },
  { "", "GRU",   7, 0, OX_TS_FLOAT3, 3, 6, gru,
    "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
    "direction:string=forward,hidden_size:int,linear_before_reset:int=0", rnn_load_gru },
  { "", "GRU",  14, 0, OX_TS_FLOAT3, 3, 6, gru,
    "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
    "direction:string=forward,hidden_size:int,layout:int=0,linear_before_reset:int=0", rnn_load_gru },
  { "", "GRU",  22, 0, OX_TS_FLOAT4, 3, 6, gru, OX_ATTRS_OF(14), rnn_load_gru },
  { "", "LSTM",  1, 0, OX_TS_FLOAT3, 3, 8, lstm,
    "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
    "direction:string=forward,hidden_size:int,input_forget:int=0,output_sequence:int=0", rnn_load_lstm },
  { "", "LSTM",  7, 0, OX_TS_FLOAT3, 3, 8, lstm,
    "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
    "direction:string=forward,hidden_size:int,input_forget:int=0", rnn_load_lstm },
  { "", "LSTM", 14, 0, OX_TS_FLOAT3, 3, 8, lstm,
    "activation_alpha:floats,activation_beta:floats,activations:strings,clip:float,"
    "direction:string=forward,hidden_size:int,input_forget:int=0,layout:int=0", rnn_load_lstm },
  { "", "LSTM", 22, 0, OX_TS_FLOAT4, 3, 8, lstm, OX_ATTRS_OF(14), rnn_load_lstm },
  {0},
};
