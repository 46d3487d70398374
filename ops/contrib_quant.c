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
 * are MatMulInteger's (ox_matmul_integer_k and core/gemm.h's ox_i8gemm), and
 * DynamicQuantizeMatMul quantizes A as DynamicQuantizeLinear does.
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
#include "ops/prepack.h"
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
 *       (nb_regroup: once per model for a constant B, ops/prepack.c). */

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
    return ox_fail(c->err, OX_EINPUT, "block_size is %lld; it must be a power of 2, 16 or more", (long long)at->bs);
  if (at->K < 1 || at->N < 1 || at->K > (INT64_C(1) << 40) || at->N > (INT64_C(1) << 40))
    return ox_fail(c->err, OX_EINPUT, "K is %lld and N %lld; both must be 1 or more", (long long)at->K,
                   (long long)at->N);
  at->kb = (at->K + at->bs - 1) / at->bs;
  at->blob = at->bs * at->bits / 8;
  return 0;
}

/* A constant B regrouped once (ops/prepack.c calls this for a node whose B
 * is an initializer or a Constant's value). */
int ox_matmulnbits_prepack(ox_arena *a, const ox_node *n, const ox_tensor *b, const ox_matmulnbits_prep **out,
                           ox_err *e) {
  *out = NULL;
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
  ox_matmulnbits_prep *p = ox_alloc(a, sizeof *p);
  uint8_t *qk = ox_alloc_array(a, (N + 15) / 16 * 16, (size_t)(kb * blob));
  if (!p || !qk) return ox_oom(e, "for MatMulNBits' B, regrouped");
  nb_regroup(b->data, N, kb * blob, qk);
  p->b = b;
  p->qk = qk;
  *out = p;
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
    ox_sgemm_thin(j->M, 1, j->K, j->a, j->K, 0, w, j->K, 1, j->y + n, j->N, 1, 0);
  }
}

static int nb_thin(ox_ctx *c, const nb_job *j) {
  nb_thin_arg t = {j, NULL, NULL};
  nb_rows r = {(int)j->M, {0}, {0}, {0}};
  int nch = ox_par_chunks(j->N, 2.0 * (double)j->M * (double)j->N * (double)j->K);
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
  int nch = ox_par_chunks(steps, 2.0 * (double)j->M * (double)j->N * (double)j->K);
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
    const ox_matmulnbits_prep *pp = c->node->prep;
    OX_TRY(nb_gemm(c, &j, pp && ox_prep_matches(in[1], pp->b) ? pp->qk : NULL));
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

const ox_kernel ox_contrib_quant_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "com.microsoft", "MatMulNBits",              1, 0, TS_F3, 3, 6, matmul_nbits,
    "K:int:required,N:int:required,accuracy_level:int=0,bits:int=4,block_size:int:required" },
  {0},
};
