/* ops/contrib_quant.c: onnxruntime's com.microsoft quantized operators, as
 * its docs/ContribOperators.md gives their schemas and its CPU kernels
 * (onnxruntime/contrib_ops/cpu/quantization/) compute them: MatMulNBits,
 * GatherBlockQuantized, MatMulIntegerToFloat, DynamicQuantizeMatMul, QGemm,
 * QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax,
 * QLinearConcat, QLinearAveragePool, QLinearGlobalAveragePool, and
 * com.microsoft's QuantizeLinear and DequantizeLinear.
 *
 * Where an ai.onnx operator computes the same thing the row calls its kernel
 * (ops/twins.h): QuantizeLinear and DequantizeLinear are those of opset 21;
 * the 8-bit products (MatMulIntegerToFloat, DynamicQuantizeMatMul, QGemm)
 * are MatMulInteger's (ox_matmul_integer_prepared_k, core/gemm.h's
 * ox_i8gemm; a constant B of the first two packed at load, as
 * MatMulInteger's), and DynamicQuantizeMatMul quantizes A as
 * DynamicQuantizeLinear does.
 *
 * Where onnxruntime's kernels compute in their own way, onnxop does the
 * same, so that a model gives the bytes onnxruntime gives: the lookup tables
 * of QLinearSigmoid, QLinearLeakyRelu and QLinearConcat (256 entries, each
 * x dequantized in float, transformed, quantized with round half to even),
 * QLinearSoftmax's table of exponentials in float, QLinearAdd and
 * QLinearMul in float, the requantization of QGemm and
 * QLinearGlobalAveragePool (float product, clamp, round half to even). The
 * differences from the documentation are said where they are. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "core/gemm.h"
#include "core/gemv.h"
#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"
#include "twins.h"

#if defined(__clang__)
#pragma clang fp contract(fast)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=fast")
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define TS_I8 (OX_T(INT8) | OX_T(UINT8))
#define TS_F3 (OX_T(FLOAT) | OX_T(FLOAT16) | OX_T(BFLOAT16))

/* ---- helpers ---- */

static int bad_shape(ox_ctx *c, int i, const ox_tensor *t, const char *want) {
  char b[128];
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must be %s", ox_input_name(c, i),
                 ox_shape_str(t->rank, t->dims, b, sizeof b), want);
}

static int type_is(ox_ctx *c, int i, const ox_tensor *t, uint64_t mask, const char *what) {
  if (mask & (UINT64_C(1) << t->dt)) return 0;
  char list[256] = "";
  size_t n = 0;
  for (int d = 1; d < OX_DTYPE_MAX && n < sizeof list - 32; d++)
    if (mask & (UINT64_C(1) << d))
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", ox_dtypes[d].onnx_name);
  return ox_fail(c->err, OX_EINPUT, "%s is %s; %s must be %s%s", ox_input_name(c, i), ox_dtypes[t->dt].onnx_name,
                 what, strchr(list, ',') ? "one of " : "", list);
}

/* A scalar or a 1-element 1-D tensor (onnxruntime's IsScalarOr1ElementVector). */
static int is_scalar(const ox_tensor *t) { return t->rank == 0 || (t->rank == 1 && t->dims[0] == 1); }

static int want_scalar(ox_ctx *c, int i, const ox_tensor *t) {
  return is_scalar(t) ? 0 : bad_shape(c, i, t, "a scalar or a 1-element 1-D tensor");
}

/* t's values as float: its own data when t is float, else a widened copy. */
/* Input i's tensor t must have the element type of input ref, r (ox_same_dtype
 * names input 0 as the reference; these operators' reference is often
 * another input). */
static int same_as(ox_ctx *c, int i, const ox_tensor *t, int ref, const ox_tensor *r) {
  if (t->dt == r->dt) return 0;
  return ox_fail(c->err, OX_EINPUT, "%s is %s but %s is %s; they must have the same type", ox_input_name(c, i),
                 ox_dtypes[t->dt].onnx_name, ox_input_name(c, ref), ox_dtypes[r->dt].onnx_name);
}

static const float *fin(ox_ctx *c, const ox_tensor *t) {
  if (!t) return NULL;
  if (t->dt == OX_FLOAT) return t->data;
  return ox_widen_f32(c->a, t, c->err);
}

/* ---- MatMulNBits-1 ----
 * Y (..., N) = A (..., K) x W^T + bias, W (N, K) quantized block-wise along
 * K: column n's k-th value q (bits wide, the bits of row n of B in k order,
 * low bits first) is
 *   w = (q - z) * s
 * with s and z the scale and zero point of its block (k / block_size, or
 * g_idx[k]): the documentation's formula; onnxruntime's own dequantizing
 * loops compute q * s + (-s * z), the same number up to a rounding. Zero
 * points come packed (uint8, bits wide, as B), unpacked (A's type, and not
 * rounded to integers) or not at all (2^(bits - 1)).
 *
 * onnxruntime's CPU kernel takes bits 2, 4 and 8 (the schema says 2 to 8),
 * float zero points and g_idx with 4 bits only (onnxop: any of the three);
 * accuracy_level lets it quantize A to 8 bits (level 4) where MLAS can,
 * which changes its results by up to the test's 0.1 + 2%: onnxop ignores
 * it, and computes in float at every level.
 *
 * Two paths, by the rows of A (all its leading dims, M):
 *   M <= NB_THIN: a product read in place (nbits_body.h's gemv4 for 4 bits;
 *       else each column dequantized into a scratch row and dotted);
 *   larger: core/gemm.h's packed product, B dequantized into its packed
 *       layout a KC x nc block at a time from B regrouped by 16 columns
 *       (nb_regroup: once per model for a constant B, by the row's load hook). */

#define NB_THIN 4
/* columns of W per step of the packed product: a multiple of 16 and of
 * every plan's nr (8, 16, 48) */
#define NB_NC 96

typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));

typedef struct {
  int64_t K, N, M, bits, bs, kb, blob; /* kb = ceil(K / bs) blocks a column, blob = bs * bits / 8 bytes each */
  const uint8_t *b;                    /* B (N, kb, blob) */
  const float *s;                      /* scales (N, kb) */
  const uint8_t *zq;                   /* packed zero points (N, zrow bytes), or NULL */
  int64_t zrow;
  const float *zf;                     /* unpacked zero points (N, kb), or NULL */
  const int32_t *gidx;                 /* the block of each k, or NULL */
  const float *a;                      /* A (M, K) */
  float *y;                            /* Y (M, N) */
} nb_job;

/* The zero point of column n's block b, as a float. */
static inline float nb_zero(const nb_job *j, int64_t n, int64_t b) {
  if (j->zf) return j->zf[n * j->kb + b];
  if (!j->zq) return (float)(1 << (j->bits - 1));
  int64_t bit = b * j->bits;
  return (float)((j->zq[n * j->zrow + bit / 8] >> (bit % 8)) & ((1 << j->bits) - 1));
}

/* A's rows for gemv4: each row's values deinterleaved by 32 (ae[m][16 c + i]
 * = a[32 c + 2 i], ao[m][16 c + i] = a[32 c + 2 i + 1], 0 past K) and its
 * sum over each block. */
typedef struct {
  int M;
  float *ae[NB_THIN], *ao[NB_THIN], *asum[NB_THIN];
} nb_rows;

#define NB_NAME(x) nb_##x##_generic
#define NB_TARGET
#define NB_WIDEN(p, q) for (int l_ = 0; l_ < 16; l_++) q[l_] = (p)[l_]
#include "nbits_body.h"
#if OX_X86_DISPATCH
#define NB_NAME(x) nb_##x##_avx2
#define NB_TARGET OX_TARGET_AVX2
#define NB_WIDEN(p, q)                                                                \
  do {                                                                                \
    __m128i b_ = _mm_loadu_si128((const __m128i *)(p));                               \
    __m256i lo_ = _mm256_cvtepu8_epi32(b_), hi_ = _mm256_cvtepu8_epi32(_mm_srli_si128(b_, 8)); \
    memcpy(&q, &lo_, 32);                                                             \
    memcpy((char *)&q + 32, &hi_, 32);                                                \
  } while (0)
#include "nbits_body.h"
#define NB_NAME(x) nb_##x##_avx512
#define NB_TARGET OX_TARGET_AVX512
#define NB_WIDEN(p, q)                                                                \
  do {                                                                                \
    __m512i w_ = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(p)));         \
    memcpy(&q, &w_, 64);                                                              \
  } while (0)
#include "nbits_body.h"
/* the level the GEMM uses, so that ox_gemm_max_isa caps these too (tests) */
static int nb_level(void) {
  const char *isa = ox_gemm_isa();
  return !strcmp(isa, "avx512f") ? OX_CPU_AVX512 : !strcmp(isa, "avx2+fma") ? OX_CPU_AVX2 : OX_CPU_GENERIC;
}
#define NB_AT(fn, ...)                                                                \
  (nb_level() == OX_CPU_AVX512 ? nb_##fn##_avx512(__VA_ARGS__)                        \
   : nb_level() == OX_CPU_AVX2 ? nb_##fn##_avx2(__VA_ARGS__) : nb_##fn##_generic(__VA_ARGS__))
#else
#define NB_AT(fn, ...) nb_##fn##_generic(__VA_ARGS__)
#endif

/* B (N, kb * blob bytes) regrouped by 16 columns for fill_pb: byte jj of
 * unit u of group g is byte u of row 16 g + jj (0 past N). */
static void nb_regroup(const uint8_t *b, int64_t N, int64_t rowbytes, uint8_t *qk) {
  for (int64_t g = 0; g < (N + 15) / 16; g++)
    for (int64_t jj = 0; jj < 16; jj++) {
      int64_t n = 16 * g + jj;
      uint8_t *dst = qk + g * rowbytes * 16 + jj;
      if (n >= N) {
        for (int64_t u = 0; u < rowbytes; u++) dst[u * 16] = 0;
        continue;
      }
      const uint8_t *src = b + n * rowbytes;
      for (int64_t u = 0; u < rowbytes; u++) dst[u * 16] = src[u];
    }
}

/* The attributes, checked as onnxruntime's kernel and helper check them. */
typedef struct {
  int64_t K, N, bits, bs, kb, blob;
} nb_attrs;

static int nb_attrs_of(ox_ctx *c, nb_attrs *at) {
  at->K = ox_attr_int(c, "K", 0);
  at->N = ox_attr_int(c, "N", 0);
  at->bits = ox_attr_int(c, "bits", 4);
  at->bs = ox_attr_int(c, "block_size", 0);
  if (c->err->code) return c->err->code;
  if (at->bits != 2 && at->bits != 4 && at->bits != 8) {
    if (at->bits >= 2 && at->bits <= 8)
      return ox_fail(c->err, OX_EUNSUPPORTED, "bits is %lld; onnxruntime's CPU kernel takes 2, 4 or 8 (its schema "
                     "allows 2 to 8), and so does onnxop", (long long)at->bits);
    return ox_fail(c->err, OX_EINPUT, "bits is %lld; it must be 2, 4 or 8", (long long)at->bits);
  }
  if (at->bs < 16 || (at->bs & (at->bs - 1)) || at->bs > (INT64_C(1) << 30))
    return ox_fail(c->err, OX_EINPUT, "block_size is %lld; it must be a power of 2 from 16 to 2^30", (long long)at->bs);
  if (at->K < 1 || at->N < 1 || at->K > (INT64_C(1) << 40) || at->N > (INT64_C(1) << 40))
    return ox_fail(c->err, OX_EINPUT, "K is %lld and N %lld; each must be from 1 to 2^40", (long long)at->K,
                   (long long)at->N);
  at->kb = (at->K + at->bs - 1) / at->bs;
  at->blob = at->bs * at->bits / 8;
  return 0;
}

/* MatMulNBits with a constant B (N, k_blocks, blob_size): B's bytes
 * regrouped by 16 columns for the packed product (nb_regroup). A call uses
 * it only when its input 1 is that tensor (ox_prep_matches). */
typedef struct {
  const ox_tensor *b; /* NULL: B is not a constant the hook could regroup */
  const uint8_t *qk;
} nb_prep;

/* The row's load hook: a constant B regrouped once (an initializer or a
 * Constant's value); its state holds none otherwise, nor for attributes the
 * kernel refuses (the kernel says what is wrong). */
static int matmul_nbits_load(ox_ctx *c, void **state) {
  const ox_node *n = c->node;
  const ox_tensor *b;
  ox_arena *a = c->a;
  nb_prep *p = ox_alloc(a, sizeof *p);
  if (!p) return ox_oom(c->err, NULL);
  p->b = NULL, p->qk = NULL;
  *state = p;
  OX_TRY(ox_const_input(c, 1, &b));
  if (!b) return 0;
  const ox_attr *aK = ox_node_attr(n, "K"), *aN = ox_node_attr(n, "N"), *abs = ox_node_attr(n, "block_size");
  const ox_attr *abits = ox_node_attr(n, "bits");
  if (!aK || !aN || !abs || aK->type != OX_ATTR_INT || aN->type != OX_ATTR_INT || abs->type != OX_ATTR_INT ||
      (abits && abits->type != OX_ATTR_INT) || b->dt != OX_UINT8 || b->rank != 3)
    return 0; /* the kernel says what is wrong */
  int64_t K = aK->i, N = aN->i, bs = abs->i, bits = abits ? abits->i : 4;
  if ((bits != 2 && bits != 4 && bits != 8) || bs < 16 || (bs & (bs - 1)) || bs > (INT64_C(1) << 30) || K < 1 ||
      N < 1 || K > (INT64_C(1) << 40) || N > (INT64_C(1) << 40))
    return 0;
  int64_t kb = (K + bs - 1) / bs, blob = bs * bits / 8;
  if (b->dims[0] != N || b->dims[1] != kb || b->dims[2] != blob) return 0;
  uint8_t *qk = ox_alloc_array(a, (N + 15) / 16 * 16, (size_t)(kb * blob));
  if (!qk) return ox_oom(c->err, "for MatMulNBits' B, regrouped");
  nb_regroup(b->data, N, kb * blob, qk);
  p->b = b;
  p->qk = qk;
  return 0;
}

/* ---- the thin path ---- */

typedef struct {
  const nb_job *j;
  const nb_rows *r;
  float **wrow; /* per slot: one column of W, dequantized (general path) */
} nb_thin_arg;

/* W's column n, dequantized into w[0 .. K) */
static void nb_dequant_col(const nb_job *j, int64_t n, float *w) {
  const uint8_t *row = j->b + n * j->kb * j->blob;
  const int mask = (1 << j->bits) - 1;
  int64_t cur = -1;
  float s = 0, z = 0;
  for (int64_t k = 0; k < j->K; k++) {
    int64_t blk = j->gidx ? j->gidx[k] : k / j->bs;
    if (blk != cur) {
      s = j->s[n * j->kb + blk];
      z = nb_zero(j, n, blk);
      cur = blk;
    }
    int64_t bit = k * j->bits;
    int q = (row[bit / 8] >> (bit % 8)) & mask;
    w[k] = ((float)q - z) * s;
  }
}

static void nb_thin_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const nb_thin_arg *t = arg;
  const nb_job *j = t->j;
  if (t->r) { /* 4 bits, blocks by k */
    NB_AT(gemv4, j, t->r, lo, hi);
    return;
  }
  float *w = t->wrow[slot];
  for (int64_t n = lo; n < hi; n++) {
    nb_dequant_col(j, n, w);
    /* one thread: a chunk's, or (nch 1) work too small to split */
    ox_sgemm_thin(1, j->M, 1, j->K, j->a, j->K, 0, w, j->K, 1, j->y + n, j->N, 1, 0);
  }
}

static int nb_thin(ox_ctx *c, const nb_job *j) {
  nb_thin_arg t = {j, NULL, NULL};
  nb_rows r = {(int)j->M, {0}, {0}, {0}};
  int nch = ox_par_chunks(c->threads, j->N, 2.0 * (double)j->M * (double)j->N * (double)j->K);
  if (j->bits == 4 && !j->gidx) {
    int64_t chunks = (j->kb * j->bs + 31) / 32 + 1; /* 16-byte pieces of a row, and one more */
    for (int m = 0; m < r.M; m++) {
      r.ae[m] = ox_alloc_array(c->a, chunks * 16, sizeof(float));
      r.ao[m] = ox_alloc_array(c->a, chunks * 16, sizeof(float));
      r.asum[m] = ox_alloc_array(c->a, (j->kb + 15) / 16 * 16, sizeof(float));
      if (!r.ae[m] || !r.ao[m] || !r.asum[m]) return ox_oom(c->err, NULL);
      const float *a = j->a + m * j->K;
      for (int64_t k = 0; k < j->K; k++) {
        (k % 2 ? r.ao[m] : r.ae[m])[k / 32 * 16 + k % 32 / 2] = a[k];
        r.asum[m][k / j->bs] += a[k];
      }
    }
    t.r = &r;
  } else {
    t.wrow = ox_alloc_array(c->a, nch, sizeof *t.wrow);
    if (!t.wrow) return ox_oom(c->err, NULL);
    for (int s = 0; s < nch; s++)
      if (!(t.wrow[s] = ox_alloc_array(c->a, j->K, sizeof(float)))) return ox_oom(c->err, NULL);
  }
  if (nch <= 1) nb_thin_chunk(&t, 0, 0, j->N);
  else ox_par_for(j->N, nch, nb_thin_chunk, &t);
  return 0;
}

/* ---- the packed path ---- */

typedef struct {
  const nb_job *j;
  const uint8_t *qk;
  ox_gemm_plan gp;
  const float *pa;  /* A packed, one KC block after another */
  int64_t pasz;     /* floats of one block's packing (KC columns) */
  float **pb;       /* per slot: KC x NB_NC */
} nb_gemm_arg;

static void nb_gemm_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const nb_gemm_arg *g = arg;
  const nb_job *j = g->j;
  const int64_t KC = 256;
  for (int64_t u = lo; u < hi; u++) { /* u: a step of NB_NC columns */
    int64_t j0 = u * NB_NC, nc = j->N - j0 < NB_NC ? j->N - j0 : NB_NC;
    for (int64_t k0 = 0, blk = 0; k0 < j->K; k0 += KC, blk++) {
      int64_t kc = j->K - k0 < KC ? j->K - k0 : KC;
      NB_AT(fill_pb, j, g->qk, j0, nc, k0, kc, g->pb[slot], g->gp.nr);
      ox_sgemm_packed(&g->gp, j->M, nc, kc, g->pa + blk * g->pasz, g->pb[slot], j->y + j0, j->N, k0 ? 1.0f : 0.0f);
    }
  }
}

static int nb_gemm(ox_ctx *c, const nb_job *j, const uint8_t *qk) {
  const int64_t KC = 256;
  nb_gemm_arg g = {j, qk, ox_sgemm_plan_now(), NULL, 0, NULL};
  if (!qk) { /* B is not a constant: regroup it for this call */
    uint8_t *q = ox_alloc_array(c->a, (j->N + 15) / 16 * 16, (size_t)(j->kb * j->blob));
    if (!q) return ox_oom(c->err, NULL);
    nb_regroup(j->b, j->N, j->kb * j->blob, q);
    g.qk = q;
  }
  int64_t mr = g.gp.mr, nblk = (j->K + KC - 1) / KC;
  g.pasz = (j->M + mr - 1) / mr * mr * KC;
  float *pa = ox_alloc_array(c->a, nblk, (size_t)g.pasz * sizeof(float));
  if (!pa) return ox_oom(c->err, NULL);
  for (int64_t b = 0; b < nblk; b++) {
    int64_t k0 = b * KC, kc = j->K - k0 < KC ? j->K - k0 : KC;
    ox_sgemm_pack_a(&g.gp, j->M, kc, j->a + k0, j->K, 0, pa + b * g.pasz);
  }
  g.pa = pa;
  int64_t steps = (j->N + NB_NC - 1) / NB_NC;
  int nch = ox_par_chunks(c->threads, steps, 2.0 * (double)j->M * (double)j->N * (double)j->K);
  g.pb = ox_alloc_array(c->a, nch, sizeof *g.pb);
  if (!g.pb) return ox_oom(c->err, NULL);
  for (int s = 0; s < nch; s++)
    if (!(g.pb[s] = ox_alloc_array(c->a, KC * NB_NC, sizeof(float)))) return ox_oom(c->err, NULL);
  if (nch <= 1) nb_gemm_chunk(&g, 0, 0, steps);
  else ox_par_for(steps, nch, nb_gemm_chunk, &g);
  return 0;
}

static int matmul_nbits(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  nb_attrs at = {0};
  OX_TRY(nb_attrs_of(c, &at));
  const ox_tensor *A, *B, *S, *Z = NULL, *G = NULL, *bias = NULL;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &A));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &B));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &S));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &Z));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &G));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 5, &bias));
  char want[160], s1[128];
  /* A (..., K) */
  if (A->rank < 1 || A->dims[A->rank - 1] != at.K) {
    snprintf(want, sizeof want, "(..., %lld): its last dim is attribute K", (long long)at.K);
    return bad_shape(c, 0, A, want);
  }
  /* B (N, k_blocks, blob_size) uint8 */
  OX_TRY(type_is(c, 1, B, OX_T(UINT8), "B (T2)"));
  if (B->rank != 3 || B->dims[0] != at.N || B->dims[1] != at.kb || B->dims[2] != at.blob) {
    snprintf(want, sizeof want, "(N %lld, k_blocks %lld, blob_size %lld) for K %lld, bits %lld and block_size %lld",
             (long long)at.N, (long long)at.kb, (long long)at.blob, (long long)at.K, (long long)at.bits,
             (long long)at.bs);
    return bad_shape(c, 1, B, want);
  }
  /* scales (N, k_blocks), or (N * k_blocks) as older models have them */
  OX_TRY(ox_same_dtype(c, 2, S, A->dt));
  if (!((S->rank == 2 && S->dims[0] == at.N && S->dims[1] == at.kb) || (S->rank == 1 && S->dims[0] == at.N * at.kb))) {
    snprintf(want, sizeof want, "(N %lld, k_blocks %lld), or (%lld)", (long long)at.N, (long long)at.kb,
             (long long)(at.N * at.kb));
    return bad_shape(c, 2, S, want);
  }
  int64_t zrow = (at.kb * at.bits + 7) / 8;
  if (Z && Z->dt == OX_UINT8) { /* packed: (N, ceil(k_blocks * bits / 8)) */
    if (!((Z->rank == 2 && Z->dims[0] == at.N && Z->dims[1] == zrow) || (Z->rank == 1 && Z->dims[0] == at.N * zrow))) {
      snprintf(want, sizeof want, "(N %lld, %lld): k_blocks %lld zero points of %lld bits packed in bytes, or (%lld)",
               (long long)at.N, (long long)zrow, (long long)at.kb, (long long)at.bits, (long long)(at.N * zrow));
      return bad_shape(c, 3, Z, want);
    }
  } else if (Z) { /* unpacked: the scales' type and shape */
    if (Z->dt != S->dt)
      return ox_fail(c->err, OX_EINPUT, "%s is %s; zero points must be uint8 (packed) or the scales' type (%s)",
                     ox_input_name(c, 3), ox_dtypes[Z->dt].onnx_name, ox_dtypes[S->dt].onnx_name);
    if (!((Z->rank == 2 && Z->dims[0] == at.N && Z->dims[1] == at.kb) || (Z->rank == 1 && Z->dims[0] == at.N * at.kb))) {
      snprintf(want, sizeof want, "(N %lld, k_blocks %lld) as the scales, or (%lld)", (long long)at.N,
               (long long)at.kb, (long long)(at.N * at.kb));
      return bad_shape(c, 3, Z, want);
    }
  }
  if (G) { /* g_idx (K), or (k_blocks * block_size): the block of each k */
    OX_TRY(type_is(c, 4, G, OX_T(INT32), "g_idx (T4)"));
    if (G->rank != 1 || (G->dims[0] != at.K && G->dims[0] != at.kb * at.bs)) {
      snprintf(want, sizeof want, "(K %lld), or (%lld)", (long long)at.K, (long long)(at.kb * at.bs));
      return bad_shape(c, 4, G, want);
    }
    const int32_t *g = G->data;
    for (int64_t k = 0; k < at.K; k++)
      if (g[k] < 0 || g[k] >= at.kb)
        return ox_fail(c->err, OX_EINPUT, "%s[%lld] is %d; a block index must be in [0, %lld)", ox_input_name(c, 4),
                       (long long)k, (int)g[k], (long long)at.kb);
  }
  if (bias) {
    OX_TRY(ox_same_dtype(c, 5, bias, A->dt));
    if (bias->rank != 1 || bias->dims[0] != at.N) {
      snprintf(want, sizeof want, "(N %lld)", (long long)at.N);
      return bad_shape(c, 5, bias, want);
    }
  }
  int64_t ydims[OX_BCAST_MAX_RANK + 1];
  if (A->rank > OX_BCAST_MAX_RANK)
    return ox_fail(c->err, OX_EINPUT, "A has rank %d; at most %d", A->rank, OX_BCAST_MAX_RANK);
  memcpy(ydims, A->dims, sizeof *ydims * (size_t)A->rank);
  ydims[A->rank - 1] = at.N;
  OX_TRY(ox_tensor_new_uninit(c->a, A->dt, A->rank, ydims, out, c->err));
  ox_tensor *Y = &(*out)->u.t;
  if (Y->n == 0) return 0;
  (void)s1;
  nb_job j = {at.K, at.N, A->n / at.K, at.bits, at.bs, at.kb, at.blob, B->data, NULL, NULL, zrow, NULL,
              G ? G->data : NULL, NULL, NULL};
  if (!(j.a = fin(c, A)) || !(j.s = fin(c, S))) return c->err->code;
  if (Z && Z->dt == OX_UINT8) j.zq = Z->data;
  else if (Z && !(j.zf = fin(c, Z))) return c->err->code;
  float *y = A->dt == OX_FLOAT ? Y->data : ox_alloc_array(c->a, Y->n, sizeof(float));
  if (!y) return ox_oom(c->err, NULL);
  j.y = y;
  if (j.M <= NB_THIN) {
    OX_TRY(nb_thin(c, &j));
  } else {
    const nb_prep *pp = c->state;
    OX_TRY(nb_gemm(c, &j, pp->b && ox_prep_matches(in[1], pp->b) ? pp->qk : NULL));
  }
  if (bias) {
    const float *bv = fin(c, bias);
    if (!bv) return c->err->code;
    for (int64_t m = 0; m < j.M; m++)
      for (int64_t n = 0; n < j.N; n++) y[m * j.N + n] += bv[n];
  }
  if (y != Y->data) ox_narrow_f32(y, Y);
  return 0;
}


/* ---- GatherBlockQuantized-1 ----
 * Gather along gather_axis of data quantized block-wise along
 * quantize_axis, dequantized as onnxruntime's kernel does:
 *   output = (float)(q - z) * s   (then rounded to float16 when scales are)
 * data int4 or uint4 (any axes; zero point 0 when absent), or uint8 (bits 8,
 * or 4 with two values a byte, low nibble first; then gather_axis 0 and
 * quantize_axis the last, its dim counted in bytes, the output's in values;
 * zero point 2^(bits - 1) when absent). scales has data's shape with the
 * quantize axis ceil(dim / block_size); zero_points the scales' shape (for
 * 4-bit uint8, its quantize axis ceil(scales' / 2)). */
static int gather_block_quantized(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *ix, *sc, *zp;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &ix));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &sc));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &zp));
  int64_t bits = ox_attr_int(c, "bits", 4), bs = ox_attr_int(c, "block_size", 128);
  int64_t gax = ox_attr_int(c, "gather_axis", 0), qax = ox_attr_int(c, "quantize_axis", 1);
  if (c->err->code) return c->err->code;
  if (bs < 16 || (bs & (bs - 1)) || bs > (INT64_C(1) << 30))
    return ox_fail(c->err, OX_EINPUT, "block_size is %lld; it must be a power of 2 from 16 to 2^30", (long long)bs);
  if (bits != 4 && bits != 8) return ox_fail(c->err, OX_EINPUT, "bits is %lld; it must be 4 or 8", (long long)bits);
  OX_TRY(type_is(c, 1, ix, OX_T(INT32) | OX_T(INT64), "indices (Tind)"));
  OX_TRY(type_is(c, 2, sc, OX_T(FLOAT) | OX_T(FLOAT16), "scales (T2; onnxruntime's CPU kernel does not take bfloat16)"));
  if (zp && zp->dt != x->dt)
    return ox_fail(c->err, OX_EINPUT, "%s is %s; it must have data's type (%s)", ox_input_name(c, 3),
                   ox_dtypes[zp->dt].onnx_name, ox_dtypes[x->dt].onnx_name);
  int r = x->rank, ga, qa;
  if (r < 1) return bad_shape(c, 0, x, "of rank 1 or more");
  OX_TRY(ox_axis(c, gax, r, 0, "gather_axis", &ga));
  OX_TRY(ox_axis(c, qax, r, 0, "quantize_axis", &qa));
  int u8 = x->dt == OX_UINT8;
  int64_t comp = u8 ? 8 / bits : 1; /* values a byte of data */
  if (u8 && (ga != 0 || qa != r - 1 || ga == qa))
    return ox_fail(c->err, OX_EINPUT, "uint8 data needs gather_axis 0 and quantize_axis the last axis (%d), and "
                   "rank 2 or more; they are %d and %d", r - 1, ga, qa);
  if (!u8 && bits != 4)
    return ox_fail(c->err, OX_EINPUT, "bits is %lld; %s data is 4 bits", (long long)bits, ox_dtypes[x->dt].onnx_name);
  /* the values' shape (uint8 4-bit: the last dim doubled) */
  int64_t vd[OX_BCAST_MAX_RANK];
  if (r > OX_BCAST_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "data has rank %d; at most %d", r, OX_BCAST_MAX_RANK);
  memcpy(vd, x->dims, sizeof *vd * (size_t)r);
  vd[qa] *= comp;
  char want[128];
  int ok = sc->rank == r;
  for (int d = 0; ok && d < r; d++) ok = sc->dims[d] == (d == qa ? (vd[d] + bs - 1) / bs : vd[d]);
  if (!ok) {
    snprintf(want, sizeof want, "data's shape with dim %d = ceil(%lld / block_size %lld)", qa, (long long)vd[qa],
             (long long)bs);
    return bad_shape(c, 2, sc, want);
  }
  int zcomp = u8 && bits == 4 ? 2 : 1;
  if (zp) {
    ok = zp->rank == r;
    for (int d = 0; ok && d < r; d++) ok = zp->dims[d] == (d == qa ? (sc->dims[d] + zcomp - 1) / zcomp : sc->dims[d]);
    if (!ok) return bad_shape(c, 3, zp, zcomp > 1 ? "the scales' shape with the quantize axis halved (rounded up)"
                                                  : "the scales' shape");
  }
  /* output: data's dims before gather_axis, indices' dims, data's after (in values) */
  int orank = r - 1 + ix->rank;
  if (orank > OX_BCAST_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "the output's rank %d is over %d", orank, OX_BCAST_MAX_RANK);
  int64_t od[OX_BCAST_MAX_RANK];
  int k = 0;
  for (int d = 0; d < ga; d++) od[k++] = vd[d];
  for (int d = 0; d < ix->rank; d++) od[k++] = ix->dims[d];
  for (int d = ga + 1; d < r; d++) od[k++] = vd[d];
  OX_TRY(ox_tensor_new_uninit(c->a, sc->dt, orank, od, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (!y->n) return 0;
  /* data as (gM, gdim, gblock) in values, indices (gN); quantized as (qM, qdim, qN) */
  int64_t gM = 1, gblock = 1, qN = 1, gdim = vd[ga], qdim = vd[qa], gN = ix->n;
  for (int d = 0; d < ga; d++) gM *= vd[d];
  for (int d = ga + 1; d < r; d++) gblock *= vd[d];
  for (int d = qa + 1; d < r; d++) qN *= vd[d];
  int64_t sblock = (qdim + bs - 1) / bs * qN; /* scales per (qM) slice */
  const float *s = fin(c, sc);
  float *yf = sc->dt == OX_FLOAT ? y->data : ox_alloc_array(c->a, y->n, sizeof(float));
  if (!s || !yf) return c->err->code ? c->err->code : ox_oom(c->err, NULL);
  int32_t defz = u8 ? (int32_t)1 << (bits - 1) : 0;
  for (int64_t i = 0; i < gM * gN; i++) {
    int64_t m = i / gN, t = i % gN;
    int64_t idx = ox_load_i64(ix->dt, ix->data, t);
    if (idx < -gdim || idx >= gdim)
      return ox_fail(c->err, OX_EINPUT, "%s holds %lld at %lld; indices must be in [%lld, %lld]", ox_input_name(c, 1),
                     (long long)idx, (long long)t, (long long)-gdim, (long long)(gdim - 1));
    if (idx < 0) idx += gdim;
    int64_t base = (m * gdim + idx) * gblock; /* value index in data */
    float *dst = yf + i * gblock;
    for (int64_t e = 0; e < gblock; e++) {
      int64_t v = base + e; /* the value's index in data, flat */
      int32_t q;
      if (u8 && bits == 8) q = ((const uint8_t *)x->data)[v];
      else if (u8) q = (((const uint8_t *)x->data)[v >> 1] >> ((v & 1) * 4)) & 15;
      else q = (int32_t)ox_load_i64(x->dt, x->data, v); /* int4 and uint4: a value a byte */
      int64_t qx = v / (qdim * qN), qy = v % (qdim * qN) / qN, qz = v % qN;
      int64_t si = qx * sblock + qy / bs * qN + qz;
      int32_t z = defz;
      if (zp && u8 && bits == 4) z = (((const uint8_t *)zp->data)[si >> 1] >> ((si & 1) * 4)) & 15;
      else if (zp) z = (int32_t)ox_load_i64(zp->dt, zp->data, si);
      dst[e] = (float)(q - z) * s[si];
    }
  }
  if (yf != y->data) ox_narrow_f32(yf, y);
  return 0;
}

/* ---- QuantizeLinear-1 and DequantizeLinear-1 (com.microsoft) ----
 * QuantizeLinear-21's and DequantizeLinear-21's kernels (ops/quant.c): the
 * same formulas, types and axis (default 1: per tensor for a scalar scale,
 * per axis for a 1-D one); the schema has no block_size, saturate or
 * output_dtype, so their defaults hold. */
static int ms_quantize(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  ox_ctx c21 = *c;
  c21.version = 21;
  return ox_quantize_k(&c21, nin, in, nout, out);
}

static int ms_dequantize(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  ox_ctx c21 = *c;
  c21.version = 21;
  return ox_dequantize_k(&c21, nin, in, nout, out);
}

/* both rows' load hook: the -21 kernels' state, read at that version */
static int ms_quant_load(ox_ctx *c, void **state) {
  ox_ctx c21 = *c;
  c21.version = 21;
  return ox_quant_load(&c21, state);
}

/* ---- the 8-bit products to float ----
 * acc = MatMulInteger(A, B, a_zero_point, b_zero_point) (int32, exact), then
 *   y = (float)acc * m + bias,   m = a_scale * b_scale (float)
 * as onnxruntime's output processor computes it, m per column when b_scale
 * is per column. A scale of another shape (b_scale not a scalar, (N) or
 * B's shape with dim -2 of 1; MatMulIntegerToFloat's a_scale not a scalar)
 * multiplies the result afterwards, broadcast, bias included: onnxruntime's
 * kernel does that, and onnxop does the same. */

/* Is a b_scale or b_zero_point of shape p one onnxruntime's product takes
 * (IsBQuantParamSupported)? */
static int b_param_ok(const ox_tensor *p, const ox_tensor *b) {
  if (is_scalar(p)) return 1;
  if (p->rank == 1 && b->rank == 2 && p->dims[0] == b->dims[1]) return 1;
  if (p->rank != b->rank || p->rank <= 1 || p->dims[p->rank - 2] != 1) return 0;
  for (int d = 0; d < p->rank; d++)
    if (d != p->rank - 2 && p->dims[d] != b->dims[d]) return 0;
  return 1;
}

/* y (float, acc's shape) <- (float)acc * (a_s * bscale) + bias; bscale (NULL:
 * 1) broadcast against y, bias (NULL: none) along the last dim. */
static int scale_bias(ox_ctx *c, const ox_tensor *acc, float a_s, const ox_tensor *bscale, const ox_tensor *bias,
                      ox_value **out) {
  OX_TRY(ox_tensor_new_uninit(c->a, OX_FLOAT, acc->rank, acc->dims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (!y->n) return 0;
  const int32_t *A = acc->data;
  const float *bv = bias ? bias->data : NULL;
  float *Y = y->data;
  int64_t N = acc->rank ? acc->dims[acc->rank - 1] : 1;
  if (!bscale) {
    for (int64_t i = 0; i < y->n; i++) Y[i] = (float)A[i] * a_s + (bv ? bv[i % N] : 0.0f);
    return 0;
  }
  ox_bcast it;
  OX_TRY(ox_bcast_init(&it, 1, (const ox_tensor *[]){bscale}, y->rank, y->dims, c->err));
  const float *S = bscale->data;
  do {
    for (int64_t i = 0; i < it.inner; i++) {
      int64_t o = it.out + i;
      float m = a_s * S[it.off[0] + i * it.step[0]];
      Y[o] = (float)A[o] * m;
      if (bv) Y[o] += bv[o % N];
    }
  } while (ox_bcast_next(&it));
  return 0;
}

/* y *= s, s broadcast against y (the scales onnxruntime applies last) */
static int scale_after(ox_ctx *c, ox_tensor *y, const ox_tensor *s, int si) {
  for (int d = 0; d < s->rank; d++) { /* s must broadcast to y without growing it */
    int64_t sd = s->dims[s->rank - 1 - d], yd = d < y->rank ? y->dims[y->rank - 1 - d] : 1;
    if (d >= y->rank || (sd != 1 && sd != yd)) {
      char b1[128];
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s, which does not broadcast to the output %s",
                     ox_input_name(c, si), ox_shape_str(s->rank, s->dims, b1, sizeof b1),
                     ox_shape_str(y->rank, y->dims, (char[128]){0}, 128));
    }
  }
  if (!y->n) return 0;
  ox_bcast it;
  OX_TRY(ox_bcast_init(&it, 1, (const ox_tensor *[]){s}, y->rank, y->dims, c->err));
  float *Y = y->data;
  const float *S = s->data;
  do {
    for (int64_t i = 0; i < it.inner; i++) Y[it.out + i] *= S[it.off[0] + i * it.step[0]];
  } while (ox_bcast_next(&it));
  return 0;
}

/* MatMulInteger's kernel on (a, b, az, bz) -> *acc (int32); prep: the
 * row's ox_matmul_integer_load state (its B packed at load), or NULL */
static int int_product(ox_ctx *c, const void *prep, ox_value *a, ox_value *b, ox_value *az, ox_value *bz,
                       const ox_tensor **acc) {
  ox_value *ins[4] = {a, b, az, bz}, *res = NULL;
  ox_ctx c10 = *c;
  c10.version = 10;
  OX_TRY(ox_matmul_integer_prepared_k(&c10, prep, 4, ins, &res));
  *acc = &res->u.t;
  return 0;
}

static int bias_check(ox_ctx *c, int i, const ox_tensor *bias, const ox_tensor *b) {
  int64_t N = b->rank ? b->dims[b->rank - 1] : 1;
  if (bias->rank == 1 && bias->dims[0] == N) return 0;
  char want[64];
  snprintf(want, sizeof want, "(%lld), B's last dim", (long long)N);
  return bad_shape(c, i, bias, want);
}

/* ---- MatMulIntegerToFloat-1 ---- */
static int matmul_integer_to_float(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *a, *b, *as, *bs, *az, *bz, *bias;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &a));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &as));
  OX_TRY(ox_tensor_in(c, in, nin, 3, &bs));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &az));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 5, &bz));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 6, &bias));
  OX_TRY(type_is(c, 1, b, TS_I8, "B (T2)"));
  if (a->dt == OX_INT8 && b->dt != OX_INT8)
    return ox_fail(c->err, OX_EINPUT, "A is int8 and B uint8; onnxruntime's kernel takes int8 A with int8 B only");
  OX_TRY(type_is(c, 2, as, OX_T(FLOAT), "a_scale (T3)"));
  OX_TRY(type_is(c, 3, bs, OX_T(FLOAT), "b_scale (T3)"));
  if (bias) {
    OX_TRY(type_is(c, 6, bias, OX_T(FLOAT), "bias (T3)"));
    OX_TRY(bias_check(c, 6, bias, b));
  }
  if (az) {
    OX_TRY(ox_same_dtype(c, 4, az, a->dt));
    if (!is_scalar(az))
      return bad_shape(c, 4, az, "a scalar or a 1-element 1-D tensor (onnxruntime's kernel has no per-row zero "
                       "point)");
  }
  if (bz) OX_TRY(same_as(c, 5, bz, 1, b));
  /* onnxruntime swaps the scales when a fusion put them the wrong way round
   * (FixupScaleTensor): a_scale not a scalar and not (..., 1), or b_scale
   * of rank 2 or more whose dim -2 is not 1 */
  int sa = 2, sb = 3;
  if (!is_scalar(as)) {
    if (as->rank == 1 || as->dims[as->rank - 1] != 1) sa = 3, sb = 2;
  } else if (!is_scalar(bs)) {
    if (bs->rank > 1 && bs->dims[bs->rank - 2] != 1) sa = 3, sb = 2;
  }
  const ox_tensor *As = sa == 2 ? as : bs, *Bs = sb == 3 ? bs : as;
  const ox_tensor *acc;
  OX_TRY(int_product(c, c->state, in[0], in[1], az ? in[4] : NULL, bz ? in[5] : NULL, &acc));
  int a_scalar = is_scalar(As), b_ok = b_param_ok(Bs, b);
  float a_s = a_scalar ? ((const float *)As->data)[0] : 1.0f;
  OX_TRY(scale_bias(c, acc, a_s, b_ok ? Bs : NULL, bias, out));
  if (!a_scalar) OX_TRY(scale_after(c, &(*out)->u.t, As, sa));
  if (!b_ok) OX_TRY(scale_after(c, &(*out)->u.t, Bs, sb));
  return 0;
}

/* ---- DynamicQuantizeMatMul-1 ----
 * A quantized to uint8 as DynamicQuantizeLinear-11 does (its kernel:
 * onnxruntime's GetQuantizationParameter and the spec agree), then the
 * product above with a_scale and a_zero_point from it. */
static int dynamic_quantize_matmul(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *b, *bs, *bz, *bias;
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &bs));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &bz));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &bias));
  OX_TRY(type_is(c, 1, b, TS_I8, "B (T2)"));
  OX_TRY(type_is(c, 2, bs, OX_T(FLOAT), "b_scale (T1)"));
  if (bz) OX_TRY(same_as(c, 3, bz, 1, b));
  if (bias) {
    OX_TRY(type_is(c, 4, bias, OX_T(FLOAT), "bias (T1)"));
    OX_TRY(bias_check(c, 4, bias, b));
  }
  ox_value *q[3] = {NULL, NULL, NULL};
  ox_ctx c11 = *c;
  c11.version = 11;
  OX_TRY(ox_dynamic_quantize_k(&c11, 1, in, 3, q));
  const ox_tensor *acc;
  OX_TRY(int_product(c, c->state, q[0], in[1], q[2], bz ? in[3] : NULL, &acc));
  int b_ok = b_param_ok(bs, b);
  OX_TRY(scale_bias(c, acc, ((const float *)q[1]->u.t.data)[0], b_ok ? bs : NULL, bias, out));
  if (!b_ok) OX_TRY(scale_after(c, &(*out)->u.t, bs, 2));
  return 0;
}

/* ---- QGemm-1 ----
 * acc = (A - a_zero_point) (B - b_zero_point) + C (int32; MatMulInteger's
 * kernel on op(A), op(B)), then with y_zero_point, quantized as
 * onnxruntime's requantizing processor does:
 *   y = clamp(round_even((float)acc * m), lo - yz, hi - yz) + yz
 * with m = alpha * a_scale * b_scale / y_scale in float (per column for a
 * per-column b_scale); without, y = (float)acc * m, float, y_scale (when
 * given alone) still dividing m. */
static int qgemm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *t[9];
  for (int i = 0; i < 9; i++)
    OX_TRY(i < 6 ? ox_tensor_in(c, in, nin, i, &t[i]) : ox_opt_tensor_in(c, in, nin, i, &t[i]));
  const ox_tensor *a = t[0], *as = t[1], *az = t[2], *b = t[3], *bs = t[4], *bz = t[5], *cc = t[6], *ys = t[7],
                  *yz = t[8];
  int ta = (int)ox_attr_int(c, "transA", 0) != 0, tb = (int)ox_attr_int(c, "transB", 0) != 0;
  float alpha = ox_attr_float(c, "alpha", 1.0f);
  if (c->err->code) return c->err->code;
  OX_TRY(type_is(c, 3, b, TS_I8, "B (TB)"));
  if (a->dt == OX_INT8 && b->dt != OX_INT8)
    return ox_fail(c->err, OX_EINPUT, "A is int8 and B uint8; onnxruntime's kernel takes int8 A with int8 B only");
  for (int i = 1; i <= 7; i += 3)
    if (t[i]) OX_TRY(type_is(c, i, t[i], OX_T(FLOAT), "a scale (T)"));
  OX_TRY(ox_same_dtype(c, 2, az, a->dt));
  OX_TRY(same_as(c, 5, bz, 3, b));
  if (cc) OX_TRY(type_is(c, 6, cc, OX_T(INT32), "C (TC)"));
  if (yz) {
    OX_TRY(ox_same_dtype(c, 8, yz, a->dt));
    if (!ys) return ox_fail(c->err, OX_EINPUT, "y_zero_point is given without y_scale");
  }
  if (a->rank != 2 || b->rank != 2) return bad_shape(c, a->rank != 2 ? 0 : 3, a->rank != 2 ? a : b, "2-D");
  int64_t M = ta ? a->dims[1] : a->dims[0], K = ta ? a->dims[0] : a->dims[1];
  int64_t N = tb ? b->dims[0] : b->dims[1], Kb = tb ? b->dims[1] : b->dims[0];
  if (K != Kb) {
    char b1[64], b2[64];
    return ox_fail(c->err, OX_EINPUT, "A %s (transA %d) and B %s (transB %d) do not multiply",
                   ox_shape_str(a->rank, a->dims, b1, sizeof b1), ta, ox_shape_str(b->rank, b->dims, b2, sizeof b2), tb);
  }
  OX_TRY(want_scalar(c, 1, as));
  OX_TRY(want_scalar(c, 2, az));
  if (ys) OX_TRY(want_scalar(c, 7, ys));
  if (yz) OX_TRY(want_scalar(c, 8, yz));
  /* b_scale and b_zero_point: scalars, or (1) or (N), of one shape */
  char want[96];
  snprintf(want, sizeof want, "a scalar or 1-D of 1 or N (%lld) elements", (long long)N);
  for (int i = 4; i <= 5; i++) {
    const ox_tensor *p = t[i];
    if (p && !(p->rank == 0 || (p->rank == 1 && (p->dims[0] == 1 || p->dims[0] == N)))) return bad_shape(c, i, p, want);
  }
  if (bz && (bz->rank != bs->rank || (bs->rank && bs->dims[0] != bz->dims[0])))
    return ox_fail(c->err, OX_EINPUT, "b_scale and b_zero_point must have one shape");
  /* op(A) and op(B) as (M, K) and (K, N) */
  ox_value *A2 = in[0], *B2 = in[3];
  for (int k = 0; k < 2; k++) {
    if (!(k ? tb : ta)) continue;
    const ox_tensor *x = k ? b : a;
    ox_value *v;
    OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 2, (int64_t[]){x->dims[1], x->dims[0]}, &v, c->err));
    const uint8_t *src = x->data;
    uint8_t *dst = v->u.t.data;
    for (int64_t i = 0; i < x->dims[0]; i++)
      for (int64_t j = 0; j < x->dims[1]; j++) dst[j * x->dims[0] + i] = src[i * x->dims[1] + j];
    if (k) B2 = v;
    else A2 = v;
  }
  /* b_zero_point (1) or (N): MatMulInteger's (N) broadcasts along the columns */
  const ox_tensor *acc;
  OX_TRY(int_product(c, NULL, A2, B2, in[2], bz ? in[5] : NULL, &acc));
  int32_t *S = acc->data;
  if (cc) { /* C broadcast to (M, N) */
    ox_bcast it;
    if (ox_bcast_init(&it, 1, (const ox_tensor *[]){cc}, 2, (int64_t[]){M, N}, c->err)) {
      char b1[64];
      ox_err_clear(c->err);
      return ox_fail(c->err, OX_EINPUT, "C has shape %s; it must broadcast to (%lld, %lld)",
                     ox_shape_str(cc->rank, cc->dims, b1, sizeof b1), (long long)M, (long long)N);
    }
    const int32_t *Cv = cc->data;
    if (M > 0 && N > 0)
      do {
        for (int64_t i = 0; i < it.inner; i++)
          S[it.out + i] = (int32_t)((uint32_t)S[it.out + i] + (uint32_t)Cv[it.off[0] + i * it.step[0]]);
      } while (ox_bcast_next(&it));
  }
  /* the multipliers, as onnxruntime's ComputeOutputScale: alpha * a_scale * b_scale[i] / y_scale */
  int64_t nm = bs->n;
  float *m = ox_alloc_array(c->a, nm, sizeof *m);
  if (!m) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < nm; i++) {
    m[i] = alpha * ((const float *)as->data)[0] * ((const float *)bs->data)[i];
    if (ys) m[i] /= ((const float *)ys->data)[0];
  }
  ox_dtype odt = yz ? yz->dt : OX_FLOAT;
  OX_TRY(ox_tensor_new_uninit(c->a, odt, 2, (int64_t[]){M, N}, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      float v = (float)S[i * N + j] * m[nm == 1 ? 0 : j];
      if (!yz) {
        ((float *)y->data)[i * N + j] = v;
        continue;
      }
      int32_t z = (int32_t)ox_load_i64(yz->dt, yz->data, 0);
      int32_t lo = yz->dt == OX_UINT8 ? 0 : -128, hi = lo + 255;
      float fl = (float)(lo - z), fh = (float)(hi - z);
      v = !(v >= fl) ? fl : v > fh ? fh : v; /* NaN to lo - yz, as maxps puts it */
      int32_t q = (int32_t)nearbyintf(v) + z;
      ox_store_i64(yz->dt, y->data, i * N + j, q);
    }
  return 0;
}


/* ---- the QLinear elementwise ops ----
 * Scales and zero points are per tensor (scalars); a zero point left out is
 * 0. The 8-bit values go through float as onnxruntime's MLAS kernels take
 * them on x86-64 (onnxop follows its AVX2 build, the one its CPU package
 * runs on such a CPU), rounding half to even and saturating:
 *   QLinearAdd: ra = sa / sc, rb = sb / sc, f = zc - (ra za + rb zb);
 *               y = fma(a, ra, fma(b, rb, f)) (with a scalar operand, which
 *               the kernel takes as b: f += b rb, then fma(a, ra, f))
 *   QLinearMul: y = (float)((a - za)(b - zb)) * (sa sb / sc) + zc
 * (the documentation: y = quantize(dequantize(a) op dequantize(b)), which
 * these equal but for the rounding of the last bit). */

/* the scalar parameters of input i (a scale) and i + 1 (its zero point) */
static int qparam(ox_ctx *c, ox_value **in, int nin, int i, const ox_tensor *x, int xi, float *s, int32_t *z) {
  const ox_tensor *st, *zt;
  OX_TRY(ox_tensor_in(c, in, nin, i, &st));
  OX_TRY(ox_opt_tensor_in(c, in, nin, i + 1, &zt));
  OX_TRY(type_is(c, i, st, OX_T(FLOAT), "a scale"));
  OX_TRY(want_scalar(c, i, st));
  *s = ((const float *)st->data)[0];
  *z = 0;
  if (zt) {
    if (x) OX_TRY(same_as(c, i + 1, zt, xi, x));
    OX_TRY(want_scalar(c, i + 1, zt));
    *z = (int32_t)ox_load_i64(zt->dt, zt->data, 0);
  }
  return 0;
}

/* _mm256_cvtps_epi32 then the saturating packs: to nearest even, NaN and
 * values past int32 as INT32_MIN, then clamped to the 8-bit type */
static int32_t sat8(float v, int sgn) {
  int32_t i = !(v >= -2147483648.0f && v < 2147483648.0f) ? INT32_MIN : (int32_t)nearbyintf(v);
  int32_t lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
  return i < lo ? lo : i > hi ? hi : i;
}

static int qlinear_binary(ox_ctx *c, int nin, ox_value **in, ox_value **out, int mul) {
  const ox_tensor *a, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &a));
  OX_TRY(ox_tensor_in(c, in, nin, 3, &b));
  OX_TRY(ox_same_dtype(c, 3, b, a->dt));
  float sa, sb, sc;
  int32_t za, zb, zc;
  OX_TRY(qparam(c, in, nin, 1, a, 0, &sa, &za));
  OX_TRY(qparam(c, in, nin, 4, a, 0, &sb, &zb));
  OX_TRY(qparam(c, in, nin, 6, a, 0, &sc, &zc));
  ox_bcast it;
  OX_TRY(ox_elementwise_out(c, 2, (const ox_tensor *[]){a, b}, a->dt, out, &it));
  ox_tensor *y = &(*out)->u.t;
  if (!y->n) return 0;
  int sgn = a->dt == OX_INT8;
  float ra = sa / sc, rb = sb / sc, fixed = (float)zc - (ra * (float)za + rb * (float)zb), rm = sa * sb / sc;
  /* which operand onnxruntime's broadcast loop gives the kernel as the scalar */
  int sa1 = a->n == 1 && b->n != 1, sb1 = b->n == 1;
  float fa = fixed, fb = fixed;
  if (!mul && sb1) fb = fixed + (float)(int32_t)ox_load_i64(b->dt, b->data, 0) * rb;
  if (!mul && sa1) fa = fixed + (float)(int32_t)ox_load_i64(a->dt, a->data, 0) * ra;
  do {
    for (int64_t i = 0; i < it.inner; i++) {
      int32_t va = (int32_t)ox_load_i64(a->dt, a->data, it.off[0] + i * it.step[0]);
      int32_t vb = (int32_t)ox_load_i64(b->dt, b->data, it.off[1] + i * it.step[1]);
      float v;
      if (mul) v = (float)((va - za) * (vb - zb)) * rm + (float)zc;
      else if (sb1) v = fmaf((float)va, ra, fb);
      else if (sa1) v = fmaf((float)vb, rb, fa);
      else v = fmaf((float)va, ra, fmaf((float)vb, rb, fixed));
      ox_store_i64(y->dt, y->data, it.out + i, sat8(v, sgn));
    }
  } while (ox_bcast_next(&it));
  return 0;
}

static int qlinear_add(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return qlinear_binary(c, nin, in, out, 0);
}

static int qlinear_mul(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return qlinear_binary(c, nin, in, out, 1);
}

/* ---- lookup tables: QLinearSigmoid, QLinearLeakyRelu, QLinearConcat ----
 * onnxruntime's QlinearBuildLookupTable: for each of the 256 byte values x,
 *   v = x_scale * (x - x_zero_point)   (float)
 *   table[x] = saturate(round_even(f(v) / y_scale) + y_zero_point)
 * (MLAS's quantization: the division in float), then y = table[x]. */
enum { LUT_IDENTITY, LUT_SIGMOID, LUT_LEAKY };

/* MLAS's logistic (MlasComputeLogistic, its FMA build): x clamped to
 * [-18, 18], a rational approximation p(x) / q(x) + 0.5, clamped to [0, 1]
 * (within a few float ulps of the sigmoid; the table is built from it so
 * that its ties fall as onnxruntime's do) */
static float mlas_logistic(float x) {
  x = x < -18.0f ? -18.0f : x > 18.0f ? 18.0f : x;
  float x2 = x * x;
  float p = fmaf(x2, 4.37031012579801e-11f, 1.15627324459942e-07f);
  p = fmaf(p, x2, 6.08574864600143e-05f);
  p = fmaf(p, x2, 8.51377133304701e-03f);
  p = fmaf(p, x2, 2.48287947061529e-01f);
  p = p * x;
  float q = fmaf(x2, 6.10247389755681e-13f, 5.76102136993427e-09f);
  q = fmaf(q, x2, 6.29106785017040e-06f);
  q = fmaf(q, x2, 1.70198817374094e-03f);
  q = fmaf(q, x2, 1.16817656904453e-01f);
  q = fmaf(q, x2, 9.93151921023180e-01f);
  float y = p / q + 0.5f;
  return y < 0 ? 0 : y > 1 ? 1 : y;
}

static void build_lut(uint8_t *table, int sgn, float xs, int32_t xz, float ys, int32_t yz, int f, float alpha) {
  for (int i = 0; i < 256; i++) {
    int32_t x = sgn ? (int32_t)(int8_t)i : i;
    float v = xs * (float)(x - xz);
    if (f == LUT_SIGMOID) v = mlas_logistic(v);
    else if (f == LUT_LEAKY) v = v >= 0.0f ? v : alpha * v;
    float q = nearbyintf(v / ys) + (float)yz;
    float lo = sgn ? -128.0f : 0.0f, hi = sgn ? 127.0f : 255.0f;
    q = !(q >= lo) ? lo : q > hi ? hi : q;
    table[i] = (uint8_t)(sgn ? (uint8_t)(int8_t)q : (uint8_t)q);
  }
}

static int qlinear_lut(ox_ctx *c, int nin, ox_value **in, ox_value **out, int f) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  float xs, ys, alpha = f == LUT_LEAKY ? ox_attr_float(c, "alpha", 0.01f) : 0;
  int32_t xz, yz;
  if (c->err->code) return c->err->code;
  OX_TRY(qparam(c, in, nin, 1, x, 0, &xs, &xz));
  OX_TRY(qparam(c, in, nin, 3, x, 0, &ys, &yz));
  uint8_t table[256];
  build_lut(table, x->dt == OX_INT8, xs, xz, ys, yz, f, alpha);
  OX_TRY(ox_elementwise_new(c, 1, &x, x->dt, x->rank, x->dims, out));
  const uint8_t *X = x->data;
  uint8_t *Y = (*out)->u.t.data;
  for (int64_t i = 0; i < x->n; i++) Y[i] = table[X[i]];
  return 0;
}

static int qlinear_sigmoid(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return qlinear_lut(c, nin, in, out, LUT_SIGMOID);
}

static int qlinear_leaky_relu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return qlinear_lut(c, nin, in, out, LUT_LEAKY);
}

/* ---- QLinearConcat-1 ----
 * inputs: Y_scale, Y_zero_point, then (tensor, scale, zero point) for each
 * tensor; each is requantized to Y's parameters through a table (copied as
 * it is when its scale and zero point are Y's), then concatenated. */
static int qlinear_concat(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  if (nin < 5 || (nin - 2) % 3)
    return ox_fail(c->err, OX_EINPUT, "QLinearConcat has %d inputs; it takes Y_scale, Y_zero_point and then a "
                   "(tensor, scale, zero point) triple for each input", nin);
  const ox_tensor *yzt;
  float ys;
  int32_t yz;
  OX_TRY(ox_tensor_in(c, in, nin, 1, &yzt));
  OX_TRY(qparam(c, in, nin, 0, NULL, 0, &ys, &yz));
  int n = (nin - 2) / 3;
  const ox_tensor **xs = ox_alloc_array(c->a, n, sizeof *xs);
  uint8_t *tables = ox_alloc_array(c->a, n, 256);
  int *copy = ox_alloc_array(c->a, n, sizeof *copy);
  if (!xs || !tables || !copy) return ox_oom(c->err, NULL);
  for (int k = 0; k < n; k++) {
    OX_TRY(ox_tensor_in(c, in, nin, 2 + 3 * k, &xs[k]));
    OX_TRY(same_as(c, 2 + 3 * k, xs[k], 1, yzt));
    const ox_tensor *zt;
    OX_TRY(ox_tensor_in(c, in, nin, 4 + 3 * k, &zt)); /* each zero point is required here */
    float s;
    int32_t z;
    OX_TRY(qparam(c, in, nin, 3 + 3 * k, xs[k], 2 + 3 * k, &s, &z));
    copy[k] = s == ys && z == yz;
    if (!copy[k]) build_lut(tables + 256 * k, yzt->dt == OX_INT8, s, z, ys, yz, LUT_IDENTITY, 0);
  }
  int64_t axis = ox_attr_int(c, "axis", 0);
  if (c->err->code) return c->err->code;
  int r = xs[0]->rank, ax;
  OX_TRY(ox_axis(c, axis, r, 0, "axis", &ax));
  int64_t dims[OX_BCAST_MAX_RANK];
  if (r > OX_BCAST_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "rank %d is over %d", r, OX_BCAST_MAX_RANK);
  memcpy(dims, xs[0]->dims, sizeof *dims * (size_t)r);
  dims[ax] = 0;
  for (int k = 0; k < n; k++) {
    int same = xs[k]->rank == r;
    for (int d = 0; same && d < r; d++) same = d == ax || xs[k]->dims[d] == xs[0]->dims[d];
    if (!same) {
      char b1[128], b2[128];
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s but %s %s; they may differ only along axis %d",
                     ox_input_name(c, 2 + 3 * k), ox_shape_str(xs[k]->rank, xs[k]->dims, b1, sizeof b1),
                     ox_input_name(c, 2), ox_shape_str(r, xs[0]->dims, b2, sizeof b2), ax);
    }
    dims[ax] += xs[k]->dims[ax];
  }
  OX_TRY(ox_tensor_new_uninit(c->a, yzt->dt, r, dims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (!y->n) return 0;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < ax; d++) outer *= dims[d];
  for (int d = ax + 1; d < r; d++) inner *= dims[d];
  uint8_t *Y = y->data;
  int64_t ypitch = dims[ax] * inner, off = 0;
  for (int k = 0; k < n; k++) {
    int64_t pitch = xs[k]->dims[ax] * inner;
    const uint8_t *X = xs[k]->data, *tb = tables + 256 * k;
    for (int64_t o = 0; o < outer && pitch; o++) {
      uint8_t *dst = Y + o * ypitch + off;
      const uint8_t *src = X + o * pitch;
      if (copy[k]) memcpy(dst, src, (size_t)pitch);
      else
        for (int64_t i = 0; i < pitch; i++) dst[i] = tb[src[i]];
    }
    off += pitch;
  }
  return 0;
}

/* ---- QLinearSoftmax-1 ----
 * onnxruntime's kernel, step by step (its tests expect its bytes): a table
 * of 256 exponentials in float,
 *   table[i] = (float)exp((i - 255 + shift) * x_scale),
 *   shift = max(0, log(FLT_MAX / D) - 5) / x_scale
 * (D the softmax's length), indexed so that each row's largest value reads
 * entry 255; per row the entries summed in float in order, and
 *   y = nearbyint(entry * floor(1 / y_scale) / sum) + y_zero_point,
 * above 255 clamped to 255 (for int8, cast: values past 127 wrap, as the
 * kernel's do). opset below 13 takes the dims from axis on as one (D their
 * product); 13 on, axis alone. x_zero_point is not used (a softmax does not
 * depend on it). */
static int qlinear_softmax(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  float xs, ys;
  int32_t xz, yz;
  OX_TRY(qparam(c, in, nin, 1, x, 0, &xs, &xz));
  OX_TRY(qparam(c, in, nin, 3, x, 0, &ys, &yz));
  int64_t opset = ox_attr_int(c, "opset", 0), axis = ox_attr_int(c, "axis", -1);
  if (c->err->code) return c->err->code;
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (!y->n) return 0;
  int ax;
  OX_TRY(ox_axis(c, axis, x->rank, 0, "axis", &ax));
  int64_t outer = 1, D = 1, inner = 1;
  for (int d = 0; d < ax; d++) outer *= x->dims[d];
  if (opset < 13)
    for (int d = ax; d < x->rank; d++) D *= x->dims[d];
  else {
    D = x->dims[ax];
    for (int d = ax + 1; d < x->rank; d++) inner *= x->dims[d];
  }
  int sgn = x->dt == OX_INT8;
  /* the table as the kernel builds it: FLT_MAX / D in float, its log in
   * double, 5 of its bits kept spare (EXP_OUT_DTYPE float) */
  float table[256];
  double shift = log((double)(3.40282347e38f / (float)D));
  shift = (shift - 5 > 0 ? shift - 5 : 0) / (double)xs;
  for (int i = 0; i < 256; i++) {
    uint8_t idx = (uint8_t)(sgn ? i - 128 : i);
    table[idx] = (float)exp(((double)i - 255 + shift) * (double)xs);
  }
  float ysf = floorf(1.0f / ys);
  const uint8_t *X = x->data;
  uint8_t *Y = y->data;
  float *row = ox_alloc_array(c->a, D, sizeof *row);
  if (!row) return ox_oom(c->err, NULL);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in_ = 0; in_ < inner; in_++) {
      int64_t base = o * D * inner + in_;
      /* the row's largest value */
      int32_t xmax = sgn ? -128 : 0;
      for (int64_t d = 0; d < D; d++) {
        int32_t v = sgn ? (int32_t)(int8_t)X[base + d * inner] : X[base + d * inner];
        if (v > xmax) xmax = v;
      }
      float sum = 0;
      for (int64_t d = 0; d < D; d++) {
        int32_t v = sgn ? (int32_t)(int8_t)X[base + d * inner] : X[base + d * inner];
        /* uint8: entry 255 - xmax + x; int8: entry (uint8)(127 - xmax + x) */
        row[d] = sgn ? table[(uint8_t)(127 - xmax + v)] : table[255 - xmax + v];
        sum += row[d];
      }
      for (int64_t d = 0; d < D; d++) {
        float q = sum == 0 ? 0 : nearbyintf(row[d] * ysf / sum);
        int32_t vq = (int32_t)(q > 2e9f ? 2e9f : q) + yz;
        Y[base + d * inner] = vq > 255 ? (uint8_t)255 : (uint8_t)vq;
      }
    }
  return 0;
}


/* ---- QLinearGlobalAveragePool-1 and QLinearAveragePool-1 ----
 * The global pool is MLAS's integer one: per channel
 *   acc = sum(x) - x_zero_point * image_size   (int32)
 *   y = clamp(round_even((float)acc * m), lo - yz, hi - yz) + yz,
 *   m = x_scale / (y_scale * image_size)   (float)
 * which MLAS refuses (and onnxop with it) for an image of 2^24 values or
 * more, or m below 2^-32 or from 256 on (the output would be constant). */
static int global_pool_q(ox_ctx *c, const ox_tensor *x, float xs, int32_t xz, float ys, int32_t yz, int cl,
                         ox_tensor *y) {
  int64_t N = x->dims[0], C = cl ? x->dims[x->rank - 1] : x->dims[1], img = 1;
  for (int d = cl ? 1 : 2; d < (cl ? x->rank - 1 : x->rank); d++) img *= x->dims[d];
  if (!y->n) return 0;
  if (img >= 0x1000000)
    return ox_fail(c->err, OX_EINPUT, "the image has %lld values; onnxruntime's (MLAS's) average takes fewer than 2^24",
                   (long long)img);
  float m = xs / (ys * (float)img);
  if (!(m >= 0x1.0p-32f && m < 256.0f))
    return ox_fail(c->err, OX_EINPUT, "x_scale / (y_scale * %lld values) is %g; onnxruntime's (MLAS's) average takes "
                   "it in [2^-32, 256) only, past which every output is one constant", (long long)img, (double)m);
  int sgn = x->dt == OX_INT8;
  float lo = (float)((sgn ? -128 : 0) - yz), hi = (float)((sgn ? 127 : 255) - yz);
  const uint8_t *X = x->data;
  uint8_t *Y = y->data;
  for (int64_t n = 0; n < N; n++)
    for (int64_t ch = 0; ch < C; ch++) {
      int32_t acc = (int32_t)((uint32_t)-xz * (uint32_t)img);
      for (int64_t i = 0; i < img; i++) {
        uint8_t b = cl ? X[(n * img + i) * C + ch] : X[(n * C + ch) * img + i];
        acc += sgn ? (int32_t)(int8_t)b : (int32_t)b;
      }
      float v = (float)acc * m;
      v = !(v >= lo) ? lo : v > hi ? hi : v;
      int32_t q = (int32_t)nearbyintf(v) + yz;
      Y[n * C + ch] = (uint8_t)q;
    }
  return 0;
}

static int qlinear_global_average_pool(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  float xs, ys;
  int32_t xz, yz;
  OX_TRY(qparam(c, in, nin, 1, x, 0, &xs, &xz));
  OX_TRY(qparam(c, in, nin, 3, x, 0, &ys, &yz));
  int cl = ox_attr_int(c, "channels_last", 0) != 0;
  if (c->err->code) return c->err->code;
  if (x->rank < 3) return bad_shape(c, 0, x, cl ? "(N, D1, ..., C): rank 3 or more" : "(N, C, D1, ...): rank 3 or more");
  int64_t od[OX_BCAST_MAX_RANK];
  if (x->rank > OX_BCAST_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "X has rank %d; at most %d", x->rank, OX_BCAST_MAX_RANK);
  for (int d = 0; d < x->rank; d++) od[d] = (cl ? d >= 1 && d < x->rank - 1 : d >= 2) ? 1 : x->dims[d];
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, od, out, c->err));
  return global_pool_q(c, x, xs, xz, ys, yz, cl, &(*out)->u.t);
}

/* QLinearAveragePool (1 to 3 spatial dims, as onnxruntime's kernel): x
 * dequantized in float (x_scale * (x - x_zero_point)), each window summed in
 * float in order, divided by its count (the kernel's size with
 * count_include_pad, else the window inside the image; a window is clipped
 * at the image's end, not at the end padding), and quantized as
 *   y = saturate(nearbyint(v / y_scale + y_zero_point)).
 * Output sizes as onnxruntime's pools compute them (ceil_mode, auto_pad;
 * SAME_LOWER puts the odd pad at the start). A kernel that covers the image
 * without padding takes the global pool's integer path, as onnxruntime's
 * kernel does. */
static int qlinear_average_pool(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  float xs, ys;
  int32_t xz, yz;
  OX_TRY(qparam(c, in, nin, 1, x, 0, &xs, &xz));
  OX_TRY(qparam(c, in, nin, 3, x, 0, &ys, &yz));
  int cl = ox_attr_int(c, "channels_last", 0) != 0, cip = ox_attr_int(c, "count_include_pad", 0) != 0;
  int ceil_mode = ox_attr_int(c, "ceil_mode", 0) != 0, mode;
  if (c->err->code) return c->err->code;
  /* onnxruntime takes an empty auto_pad as NOTSET (its tests give "") */
  const char *ap = ox_attr_string(c, "auto_pad", "NOTSET");
  if (!ap[0]) mode = OX_PAD_NOTSET;
  else OX_TRY(ox_auto_pad(c, &mode));
  int ns = x->rank - 2;
  if (ns < 1 || ns > 3)
    return bad_shape(c, 0, x, "of rank 3 to 5 (onnxruntime's kernel pools 1 to 3 spatial dims)");
  int64_t ks[3], st[3], pd[6], sp[3], od[3];
  OX_TRY(ox_window_ints(c, "kernel_shape", ns, 0, 1, ks));
  OX_TRY(ox_window_ints(c, "strides", ns, 1, 1, st));
  OX_TRY(ox_window_ints(c, "pads", 2 * ns, 0, 0, pd));
  int64_t N = x->dims[0], C = cl ? x->dims[x->rank - 1] : x->dims[1];
  for (int i = 0; i < ns; i++) sp[i] = x->dims[cl ? 1 + i : 2 + i];
  for (int i = 0; i < ns; i++) {
    if (ks[i] < 1) return ox_fail(c->err, OX_EINPUT, "kernel_shape is required, of %d values of 1 or more", ns);
    if (pd[i] >= ks[i] || pd[ns + i] >= ks[i])
      return ox_fail(c->err, OX_EINPUT, "pads along spatial dim %d are %lld and %lld; each must be smaller than the "
                     "kernel (%lld)", i, (long long)pd[i], (long long)pd[ns + i], (long long)ks[i]);
    if (mode == OX_PAD_VALID) pd[i] = pd[ns + i] = 0;
    if (mode == OX_PAD_SAME_UPPER || mode == OX_PAD_SAME_LOWER) {
      int64_t need = ((sp[i] + st[i] - 1) / st[i] - 1) * st[i] + ks[i] - sp[i];
      pd[i] = mode == OX_PAD_SAME_LOWER ? (need + 1) / 2 : need / 2;
      pd[ns + i] = need - pd[i];
    }
    int64_t num = sp[i] + pd[i] + pd[ns + i] - (ks[i] - 1) - 1;
    od[i] = num / st[i] + 1;
    if (ceil_mode) {
      od[i] = (int64_t)ceilf((float)num / (float)st[i]) + 1;
      if ((od[i] - 1) * st[i] >= sp[i] + pd[i]) od[i]--;
    }
    if (od[i] < 0 || num < -st[i])
      return ox_fail(c->err, OX_EINPUT, "the kernel (%lld) is larger than the padded input (%lld) along spatial dim %d",
                     (long long)ks[i], (long long)(sp[i] + pd[i] + pd[ns + i]), i);
  }
  int64_t ydims[5];
  ydims[0] = N;
  for (int i = 0; i < ns; i++) ydims[cl ? 1 + i : 2 + i] = od[i];
  ydims[cl ? x->rank - 1 : 1] = C;
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, ydims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (!y->n) return 0;
  int global = 1;
  for (int i = 0; i < ns; i++) global = global && ks[i] == sp[i] && pd[i] == 0 && pd[ns + i] == 0;
  if (global) return global_pool_q(c, x, xs, xz, ys, yz, cl, y);
  for (int i = ns; i < 3; i++) ks[i] = st[i] = sp[i] = od[i] = 1, pd[i] = pd[3 + i] = 0;
  int sgn = x->dt == OX_INT8;
  const uint8_t *X = x->data;
  uint8_t *Y = y->data;
  int64_t img = sp[0] * sp[1] * sp[2], oimg = od[0] * od[1] * od[2], kall = ks[0] * ks[1] * ks[2];
  int32_t lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
  for (int64_t n = 0; n < N; n++)
    for (int64_t ch = 0; ch < C; ch++)
      for (int64_t o0 = 0; o0 < od[0]; o0++)
        for (int64_t o1 = 0; o1 < od[1]; o1++)
          for (int64_t o2 = 0; o2 < od[2]; o2++) {
            int64_t s0 = o0 * st[0] - pd[0], s1 = o1 * st[1] - pd[1], s2 = o2 * st[2] - pd[2];
            int64_t e0 = s0 + ks[0] < sp[0] ? s0 + ks[0] : sp[0], e1 = s1 + ks[1] < sp[1] ? s1 + ks[1] : sp[1];
            int64_t e2 = s2 + ks[2] < sp[2] ? s2 + ks[2] : sp[2];
            s0 = s0 > 0 ? s0 : 0, s1 = s1 > 0 ? s1 : 0, s2 = s2 > 0 ? s2 : 0;
            float sum = 0;
            for (int64_t i0 = s0; i0 < e0; i0++)
              for (int64_t i1 = s1; i1 < e1; i1++)
                for (int64_t i2 = s2; i2 < e2; i2++) {
                  int64_t p = (i0 * sp[1] + i1) * sp[2] + i2;
                  uint8_t b = cl ? X[(n * img + p) * C + ch] : X[(n * C + ch) * img + p];
                  sum += xs * (float)((sgn ? (int32_t)(int8_t)b : (int32_t)b) - xz);
                }
            int64_t cnt = cip ? kall : (e0 - s0) * (e1 - s1) * (e2 - s2);
            sum /= (float)cnt;
            float v = nearbyintf(sum / ys + (float)yz);
            int32_t q = !(v >= (float)lo) ? lo : v > (float)hi ? hi : (int32_t)v;
            int64_t op = (o0 * od[1] + o1) * od[2] + o2;
            Y[cl ? (n * oimg + op) * C + ch : (n * C + ch) * oimg + op] = (uint8_t)q;
          }
  return 0;
}

/* The quantized operators onnxruntime's CPU provider registers that onnxop
 * does not run (`onnxop ops` gives the reason). */
#define LEGACY_4BIT                                                                                             \
  "an older 4-bit format (bitsandbytes' NF4/FP4 blocks, MLAS's own blob layout), which onnxruntime's "         \
  "quantizer no longer writes: MatMulNBits took its place, and onnxop runs that"
#define QUANT_TRANSFORMER                                                                                       \
  "a quantized transformer block (onnxruntime's dynamic-quantization fusions of 2020-2022 BERT exports); "     \
  "onnxop runs the float blocks and MatMulIntegerToFloat, which quantizers write today"
#define NHWC_INTERNAL                                                                                           \
  "onnxruntime's NHWC layout pass writes it into its in-memory graph at session start; exported models do "   \
  "not hold it (ai.onnx's QLinearConv is the saved form, and onnxop runs that)"

const ox_kernel ox_contrib_quant_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "com.microsoft", "DequantizeLinear",         1, 0, TS_I8 | OX_T(INT16) | OX_T(UINT16) | OX_T(INT32) | OX_TS_4BIT,
    2, 3, ms_dequantize, "axis:int", ms_quant_load },
  { "com.microsoft", "DynamicQuantizeMatMul",    1, 0, OX_T(FLOAT), 3, 5, dynamic_quantize_matmul, "",
    ox_matmul_integer_load },
  { "com.microsoft", "GatherBlockQuantized",     1, 0, OX_TS_4BIT | OX_T(UINT8), 3, 4, gather_block_quantized,
    "bits:int=4,block_size:int=128,gather_axis:int=0,quantize_axis:int=1" },
  { "com.microsoft", "MatMulIntegerToFloat",     1, 0, TS_I8, 4, 7, matmul_integer_to_float, "",
    ox_matmul_integer_load },
  { "com.microsoft", "MatMulNBits",              1, 0, TS_F3, 3, 6, matmul_nbits,
    "K:int:required,N:int:required,accuracy_level:int=0,bits:int=4,block_size:int:required",
    matmul_nbits_load },
  { "com.microsoft", "QGemm",                    1, 0, TS_I8, 6, 9, qgemm, "alpha:float=1.0,transA:int=0,transB:int=0" },
  { "com.microsoft", "QLinearAdd",               1, 0, TS_I8, 2, 8, qlinear_add, "" },
  { "com.microsoft", "QLinearAveragePool",       1, 0, TS_I8, 2, 5, qlinear_average_pool,
    "auto_pad:string=NOTSET,ceil_mode:int=0,channels_last:int=0,count_include_pad:int=0,"
    "kernel_shape:ints:required,pads:ints,strides:ints" },
  { "com.microsoft", "QLinearConcat",            1, 1, TS_I8, 5, -1, qlinear_concat, "axis:int:required" },
  { "com.microsoft", "QLinearGlobalAveragePool", 1, 0, TS_I8, 5, 5, qlinear_global_average_pool,
    "channels_last:int=0" },
  { "com.microsoft", "QLinearLeakyRelu",         1, 0, TS_I8, 2, 5, qlinear_leaky_relu, "alpha:float=0.01" },
  { "com.microsoft", "QLinearMul",               1, 0, TS_I8, 2, 8, qlinear_mul, "" },
  { "com.microsoft", "QLinearSigmoid",           1, 0, TS_I8, 2, 5, qlinear_sigmoid, "" },
  { "com.microsoft", "QLinearSoftmax",           1, 0, TS_I8, 2, 5, qlinear_softmax, "axis:int=-1,opset:int:required" },
  { "com.microsoft", "QuantizeLinear",           1, 0, OX_T(FLOAT) | OX_T(FLOAT16), 2, 3, ms_quantize, "axis:int", ms_quant_load },
  { "com.microsoft", "DynamicQuantizeLSTM",      1, OX_NOT_RUN("an LSTM with int8 weights quantized at run time; "
    "onnxruntime's quantizer writes it for LSTMs alone, and onnxop runs the float LSTM") },
  { "com.microsoft", "MatMulBnb4",               1, OX_NOT_RUN(LEGACY_4BIT) },
  { "com.microsoft", "MatMulFpQ4",               1, OX_NOT_RUN(LEGACY_4BIT) },
  { "com.microsoft", "MatMulInteger16",          1, OX_NOT_RUN("MatMulInteger on int16, which no quantizer or "
    "exporter writes (onnxruntime's own tests are its only users)") },
  { "com.microsoft", "QAttention",               1, OX_NOT_RUN(QUANT_TRANSFORMER) },
  { "com.microsoft", "QLinearConv",              1, OX_NOT_RUN(NHWC_INTERNAL) },
  { "com.microsoft", "QLinearWhere",             1, OX_NOT_RUN("a quantized Where that onnxruntime's quantizer "
    "does not write") },
  { "com.microsoft", "QMoE",                     1, OX_NOT_RUN("a quantized mixture of experts, with onnxruntime's "
    "own expert routing and weight layouts; not done") },
  {0},
};
