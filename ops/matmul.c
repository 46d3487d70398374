/* ops/matmul.c: matrix products: MatMul, Gemm, MatMulInteger, Einsum and Det.
 *
 * float and double go through the blocked GEMM of core/gemm.h (accumulating in
 * their own type, as onnxruntime does), or core/gemv.h's when one side is a
 * vector or a few rows (read in place, not packed); float16 and bfloat16 are widened to
 * float, multiplied, and rounded once on store. Integer products accumulate in
 * their own width with wrap-around (computed in the unsigned type of that
 * width, so overflow is defined), which is exact whenever the result fits.
 *
 * Einsum parses the equation into integer labels (ellipsis dims included),
 * contracts three or more float operands two at a time, and evaluates a pair
 * as a batched GEMM of (batch, m, k) and (batch, k, n) operands (gathered
 * into that order unless they are in it, or in it transposed); what a GEMM
 * cannot express (diagonals, a label summed within one operand, broadcast
 * ellipsis dims, integer types) runs one odometer over every label with
 * per-operand strides. Det is LU with partial
 * pivoting in double. MatMulInteger with per-tensor zero points (and B's per
 * column) runs on the 8-bit GEMM (matmul_int8), the other forms in int32. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/fuse.h"
#include "core/gemm.h"
#include "core/gemv.h"
#include "core/half.h"
#include "core/kernel.h"
#include "core/sys.h"
#include "ops/twins.h"
#include "core/threads.h"

/* Type sets as the versions grew them. */
#define TS_MM9 (OX_TS_FLOAT3 | OX_T(UINT32) | OX_T(UINT64) | OX_T(INT32) | OX_T(INT64))
#define TS_MM13 (TS_MM9 | OX_T(BFLOAT16))
#define TS_EINSUM (OX_TS_INTS | OX_TS_FLOAT3)
#define TS_I8 (OX_T(INT8) | OX_T(UINT8))

/* X(NAME, C type, unsigned type of its width: the integer accumulator) */
#define INT_ACC_TYPES(X)                                                              \
  X(INT8, int8_t, uint32_t) X(INT16, int16_t, uint32_t) X(INT32, int32_t, uint32_t)    \
  X(INT64, int64_t, uint64_t) X(UINT8, uint8_t, uint32_t) X(UINT16, uint16_t, uint32_t) \
  X(UINT32, uint32_t, uint32_t) X(UINT64, uint64_t, uint64_t)

/* ---- small helpers ---- */

/* ---- batched products: the numpy.matmul part shared by MatMul,
 * MatMulInteger and Einsum ---- */

typedef struct {
  int64_t M, N, K;   /* each product: (M, K) x (K, N) */
  int64_t nbatch;    /* number of products */
  int64_t *aoff, *boff; /* per product: element offset of its matrices in a and b */
  int ta, tb;        /* float and double only: a's matrices stored (K, M), b's (N, K) */
  int rank;          /* the output's */
  int64_t *dims;
} mm_plan;

/* numpy.matmul shapes: a (..., M, K) or (K,), b (..., K, N) or (K,); the
 * leading (batch) dims broadcast; a 1-D operand gets a dim of 1 added (in
 * front for a, behind for b) that the output then drops. */
static int mm_plan_make(ox_ctx *c, const ox_tensor *a, const ox_tensor *b, mm_plan *p) {
  char s1[256], s2[256];
  if (a->rank < 1 || b->rank < 1)
    return ox_fail(c->err, OX_EINPUT, "MatMul takes tensors of rank 1 or more; %s is a scalar",
                   a->rank < 1 ? "a" : "b");
  int ra = a->rank, rb = b->rank;
  p->ta = p->tb = 0;
  p->M = ra >= 2 ? a->dims[ra - 2] : 1;
  p->K = a->dims[ra - 1];
  int64_t kb = rb >= 2 ? b->dims[rb - 2] : b->dims[0];
  p->N = rb >= 2 ? b->dims[rb - 1] : 1;
  if (p->K != kb)
    return ox_fail(c->err, OX_EINPUT, "inner dimensions differ: a is %s, b is %s",
                   ox_shape_str(ra, a->dims, s1, sizeof s1), ox_shape_str(rb, b->dims, s2, sizeof s2));
  /* batch dims: a's first ra - 2, b's first rb - 2, right-aligned */
  int na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0, nbd = na > nb ? na : nb;
  p->rank = nbd + (ra >= 2) + (rb >= 2);
  p->dims = ox_alloc_array(c->a, p->rank + 1, sizeof *p->dims);
  int64_t *sa = ox_alloc_array(c->a, nbd + 1, sizeof *sa), *sb = ox_alloc_array(c->a, nbd + 1, sizeof *sb);
  if (!p->dims || !sa || !sb) return ox_oom(c->err, NULL);
  for (int d = nbd - 1; d >= 0; d--) {
    int da = d - (nbd - na), db = d - (nbd - nb);
    int64_t x = da >= 0 ? a->dims[da] : 1, y = db >= 0 ? b->dims[db] : 1;
    if (x != y && x != 1 && y != 1)
      return ox_fail(c->err, OX_EINPUT, "batch dimensions do not broadcast: a is %s, b is %s",
                     ox_shape_str(ra, a->dims, s1, sizeof s1), ox_shape_str(rb, b->dims, s2, sizeof s2));
    p->dims[d] = x == 1 ? y : x;
  }
  int r = nbd;
  if (ra >= 2) p->dims[r++] = p->M;
  if (rb >= 2) p->dims[r++] = p->N;
  int64_t ny = ox_numel(p->rank, p->dims, 8);
  if (ny < 0)
    return ox_fail(c->err, OX_EINPUT, "the product of %s and %s is too large",
                   ox_shape_str(ra, a->dims, s1, sizeof s1), ox_shape_str(rb, b->dims, s2, sizeof s2));
  if (ny == 0) { /* nothing to compute; the batch dims alone may not fit: (2^62, 2^62, 0, 2) */
    p->nbatch = 0;
    return 0;
  }
  /* y is not empty, so its batch dims, M and N fit, and a and b hold K * their
   * other dims elements (K may be 0: then every stride is 0) */
  int64_t stra = p->M * p->K, strb = p->K * p->N; /* element strides of the batch dims */
  for (int d = nbd - 1; d >= 0; d--) {
    int da = d - (nbd - na), db = d - (nbd - nb);
    int64_t x = da >= 0 ? a->dims[da] : 1, y = db >= 0 ? b->dims[db] : 1;
    sa[d] = x == 1 ? 0 : stra;
    sb[d] = y == 1 ? 0 : strb;
    stra *= x;
    strb *= y;
  }
  int64_t nbatch = ox_numel(nbd, p->dims, 0);
  /* b without batch dims: a's batches are one tall product (M * batch, K) x (K, N) */
  if (nb == 0 && nbatch > 0) {
    p->M *= nbatch;
    nbatch = 1;
    nbd = 0;
  }
  p->nbatch = nbatch;
  p->aoff = ox_alloc_array(c->a, nbatch + 1, sizeof *p->aoff);
  p->boff = ox_alloc_array(c->a, nbatch + 1, sizeof *p->boff);
  int64_t *idx = ox_alloc_array(c->a, nbd + 1, sizeof *idx);
  if (!p->aoff || !p->boff || !idx) return ox_oom(c->err, NULL);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < nbatch; i++) { /* odometer over the batch dims */
    p->aoff[i] = oa;
    p->boff[i] = ob;
    for (int d = nbd - 1; d >= 0; d--) {
      oa += sa[d];
      ob += sb[d];
      if (++idx[d] < p->dims[d]) break;
      oa -= sa[d] * p->dims[d];
      ob -= sb[d] * p->dims[d];
      idx[d] = 0;
    }
  }
  return 0;
}

/* The products of a plan, as mm_products and the pool's chunks see them. */
typedef struct {
  const mm_plan *p;
  ox_dtype dt;
  const void *a, *b;
  void *y;
  void **acc; /* integer types: one row of y per thread slot */
  int threads; /* the run's (c->threads): a product run inline may split */
} mm_job;

/* Products lo .. hi-1 of the plan, y = a x b for each: every element written.
 * acc: a row of y for the integer types. */
static void mm_products(const mm_job *job, void *acc, int64_t lo, int64_t hi) {
  const mm_plan *p = job->p;
  int64_t M = p->M, N = p->N, K = p->K, MN = M * N;
  switch (job->dt) {
  case OX_FLOAT:
    for (int64_t i = lo; i < hi; i++)
      ox_sgemm_any(job->threads, M, N, K, (const float *)job->a + p->aoff[i], p->ta ? M : K, p->ta,
               (const float *)job->b + p->boff[i], p->tb ? K : N, p->tb, (float *)job->y + i * MN, N, 1, 0);
    break;
  case OX_DOUBLE:
    for (int64_t i = lo; i < hi; i++)
      ox_dgemm_any(job->threads, M, N, K, (const double *)job->a + p->aoff[i], p->ta ? M : K, p->ta,
               (const double *)job->b + p->boff[i], p->tb ? K : N, p->tb, (double *)job->y + i * MN, N, 1, 0);
    break;
#define CASE(NAME, T, U)                                                              \
  case OX_##NAME:                                                                     \
    for (int64_t bt = lo; bt < hi; bt++) {                                            \
      const T *A = (const T *)job->a + p->aoff[bt], *B = (const T *)job->b + p->boff[bt]; \
      T *Y = (T *)job->y + bt * MN;                                                   \
      U *r = acc; /* one row of y */                                                  \
      for (int64_t i = 0; i < M; i++) {                                               \
        memset(r, 0, (size_t)N * sizeof *r);                                          \
        for (int64_t k = 0; k < K; k++) {                                             \
          U aik = (U)A[i * K + k];                                                    \
          const T *brow = B + k * N;                                                  \
          for (int64_t j = 0; j < N; j++) r[j] += aik * (U)brow[j];                   \
        }                                                                             \
        for (int64_t j = 0; j < N; j++) Y[i * N + j] = (T)r[j];                       \
      }                                                                               \
    }                                                                                 \
    break;
    INT_ACC_TYPES(CASE)
#undef CASE
  default:
    break;
  }
}

static void mm_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const mm_job *j = arg;
  mm_products(j, j->acc ? j->acc[slot] : NULL, lo, hi);
}

/* y = a x b for every product of the plan, every element written; y is of a's type.
 * Small floats come here already widened to float.
 *
 * Many products (at least 4 per thread: a batch of 8 x 8 matrices, 64
 * products of 64^3) are split over the thread pool by whole products; a few
 * products big enough for the GEMM to split its own tiles (ox_par_worth(2 M
 * N K)) are left to it, one product at a time.
 * Either way each product is computed as one thread computes it, so the
 * bytes are the same for every thread count. */
static int mm_run(ox_ctx *c, const mm_plan *p, const ox_tensor *a, const ox_tensor *b, void *y) {
  int ints = 0;
  switch (a->dt) {
  case OX_FLOAT:
  case OX_DOUBLE:
    break;
#define CASE(NAME, T, U) case OX_##NAME:
    INT_ACC_TYPES(CASE)
#undef CASE
    ints = 1;
    if (p->ta || p->tb)
      return ox_fail(c->err, OX_EINPUT, "internal error: a transposed %s product",
                     ox_dtypes[a->dt].onnx_name);
    break;
  default:
    return ox_fail(c->err, OX_EINPUT, "internal error: no product for %s",
                   ox_dtypes[a->dt].onnx_name);
  }
  double work = 2.0 * (double)p->M * (double)p->N * (double)p->K;
  /* by whole products when there are enough to share evenly: splitting each
   * of 64 products of 64^3 over the pool costs a hand-off per product */
  int nch = ox_par_worth(c->threads, work) && p->nbatch < 4 * ox_threads_of(c->threads)
                ? 1 : ox_par_chunks(c->threads, p->nbatch, work * (double)p->nbatch);
  void *acc[OX_MAX_THREADS];
  for (int s = 0; ints && s < nch; s++) /* the arena is single-threaded: before the fan-out */
    if (!(acc[s] = ox_alloc_array(c->a, p->N + 1, sizeof(uint64_t)))) return ox_oom(c->err, NULL);
  mm_job j = {p, a->dt, a->data, b->data, y, ints ? acc : NULL, c->threads};
  if (nch <= 1) mm_products(&j, ints ? acc[0] : NULL, 0, p->nbatch);
  else ox_par_for(p->nbatch, nch, mm_chunk, &j);
  return 0;
}

/* The small floats' products (float16, bfloat16, the float8s: dt), each
 * product's A and B widened into a buffer of its thread's, multiplied in
 * float as mm_products multiplies them, and its Y narrowed from a third:
 * the bytes of widening a and b whole, mm_run and narrowing y, without
 * float copies of whole operands (a batch of attention heads' products
 * then works in three buffers that stay in cache). */
typedef struct {
  const mm_plan *p;
  ox_dtype dt;
  const void *a, *b;
  void *y;
  float **buf; /* per thread slot: M * K + K * N + M * N floats */
  int threads;
} mm_small_job;

static void mm_small_products(const mm_small_job *j, float *buf, int64_t lo, int64_t hi) {
  const mm_plan *p = j->p;
  int64_t M = p->M, N = p->N, K = p->K;
  float *fa = buf, *fb = fa + M * K, *fy = fb + K * N; /* (M, K), (K, N), (M, N) */
  for (int64_t i = lo; i < hi; i++) {
    ox_widen_f32_n(j->dt, j->a, p->aoff[i], M * K, fa);
    ox_widen_f32_n(j->dt, j->b, p->boff[i], K * N, fb);
    ox_sgemm_any(j->threads, M, N, K, fa, K, 0, fb, N, 0, fy, N, 1, 0);
    ox_narrow_f32_n(fy, M * N, j->dt, j->y, i * M * N);
  }
}

static void mm_small_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const mm_small_job *j = arg;
  mm_small_products(j, j->buf[slot], lo, hi);
}

/* y = a x b for every product of the plan (not transposed), a, b and y of
 * a small float type; split over the threads as mm_run splits */
static int mm_run_small(ox_ctx *c, const mm_plan *p, const ox_tensor *a, const ox_tensor *b, ox_tensor *y) {
  double work = 2.0 * (double)p->M * (double)p->N * (double)p->K;
  int nch = ox_par_worth(c->threads, work) && p->nbatch < 4 * ox_threads_of(c->threads)
                ? 1 : ox_par_chunks(c->threads, p->nbatch, work * (double)p->nbatch);
  int64_t per = ox_numel(3, (int64_t[]){p->M * p->K + p->K * p->N + p->M * p->N, 1, 1}, 4);
  float *buf[OX_MAX_THREADS];
  int ok = per >= 0, s = 0;
  for (; ok && s < nch; s++) ok = (buf[s] = ox_mem_scratch((size_t)(per + 1) * sizeof **buf)) != NULL;
  if (ok) {
    mm_small_job j = {p, a->dt, a->data, b->data, y->data, buf, c->threads};
    if (nch <= 1) mm_small_products(&j, buf[0], 0, p->nbatch);
    else ox_par_for(p->nbatch, nch, mm_small_chunk, &j);
  }
  for (int k = 0; k < s - !ok; k++) ox_mem_scratch_free(buf[k]);
  return ok ? 0 : ox_oom(c->err, NULL);
}

/* out = a x b (numpy.matmul) of any type MatMul or Einsum takes. */
static int matmul_tensors(ox_ctx *c, const ox_tensor *a, const ox_tensor *b, ox_value **out) {
  mm_plan p;
  OX_TRY(mm_plan_make(c, a, b, &p));
  OX_TRY(ox_tensor_new_uninit(c->a, a->dt, p.rank, p.dims, out, c->err)); /* mm_run writes all */
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  if (!ox_dtype_is_small_float(a->dt)) return mm_run(c, &p, a, b, y->data);
  return mm_run_small(c, &p, a, b, y);
}

/* ---- MatMul-1, -9, -13 ---- */

/* MatMul with a constant B (K, N) of float, float16 or bfloat16: B packed
 * as core/gemm.h's pb for the plan `gp` by the load hook; a float16 or
 * bfloat16 B as it is, 2 bytes an element (pb16), widened a block at a
 * time as the products read it (exactly). A call uses it only when its
 * input 1 is that tensor (ox_prep_matches), A has its type and gp is still
 * the current plan. A float16 product so takes the same float operations
 * as through matmul_tensors (widened, multiplied, rounded once on store),
 * without widening and packing its weights on every call, and holds them
 * once, in their own bytes (bench model bert_fp16, 209 MB of float16
 * weights: a peak RSS of 563 MB with them widened to a float pb beside the
 * original, 231 MB so). */
typedef struct {
  const ox_tensor *b;
  ox_gemm_plan gp;
  int64_t K, N;
  const float *pb;      /* round_up(N, nr) * K floats; or NULL and: */
  const uint16_t *pb16; /* the same elements in b's 2-byte type (float16, bfloat16) */
  unsigned kind;        /* pb16's: core/gemm.h's OX_PB16_ flags */
} mm_prep;

/* Whether h[0 .. n), float16 (bf16 0) or bfloat16, holds a NaN: its bits
 * past the sign above those of Inf */
static int has_nan16(const uint16_t *h, int64_t n, int bf16) {
  unsigned inf = bf16 ? 0x7F80u : 0x7C00u, any = 0;
  for (int64_t i = 0; i < n; i++) any |= (h[i] & 0x7FFFu) > inf;
  return any != 0;
}

/* MatMul's state: the preparation of a constant B, or NULL (the first
 * member: tests/unit/test_matmul.c looks whether it is set) */
typedef struct {
  const mm_prep *pp;
} matmul_state;

/* The preparation of b (float, float16 or bfloat16, rank 2; op(B) = b, or
 * b transposed when tb (float only)) in the load arena: op(B) packed for
 * the GEMM, a block of b's rows at a time (float16, bfloat16: as pb16).
 * With `discard` (b is given back once packed: ox_ctx.discard_inputs) each
 * block's pages go as soon as it is packed, so that b and its packed form
 * are never both whole in memory (GPT-2's 147 MiB lm_head weight was). */
enum { PREP_BLOCK = 1 << 18 }; /* elements of b a block (1 MiB in float) */
static int mm_prep_new(ox_ctx *c, const ox_tensor *b, int tb, int discard, const mm_prep **out) {
  ox_arena *a = c->a;
  mm_prep *pp = ox_alloc(a, sizeof *pp);
  if (!pp) return ox_oom(c->err, NULL);
  pp->b = b, pp->gp = ox_sgemm_plan_now(), pp->K = b->dims[tb], pp->N = b->dims[!tb];
  size_t es = ox_dtype_size(b->dt); /* float 4; float16, bfloat16 2 (pb16) */
  int64_t nr = pp->gp.nr, sz = ox_numel(2, (int64_t[]){(pp->N + nr - 1) / nr * nr, pp->K}, (int)es);
  void *pk = sz < 0 ? NULL : ox_alloc_uninit(a, (size_t)sz * es);
  if (!pk) return ox_oom(c->err, NULL);
  /* a block of b's rows lands in every sliver of pk: in small pages, pk
   * grows as b goes (in huge ones, GPT-2's 147 MiB lm_head was both whole) */
  if (discard) ox_sys_small(pk, (size_t)sz * es);
  /* b's rows r0 to r1 - 1 a block: (K, N), rows of op(B); tb: (N, K),
   * columns of op(B), whole slivers of nr a block, packed as a B of their
   * own (its slivers are pb's from sliver r0 / nr on) */
  int64_t rows = b->dims[0], len = b->dims[1], blk = PREP_BLOCK / len > 1 ? PREP_BLOCK / len : 1;
  if (tb) blk = blk < nr ? nr : blk / nr * nr;
  if (blk > rows) blk = rows;
  int bf16 = b->dt == OX_BFLOAT16, nan = 0;
  for (int64_t r0 = 0; r0 < rows; r0 += blk) {
    int64_t r1 = r0 + blk < rows ? r0 + blk : rows;
    if (es == 2) nan |= has_nan16((const uint16_t *)b->data + r0 * len, (r1 - r0) * len, bf16);
    if (tb && es == 4) ox_sgemm_pack_bt(&pp->gp, pp->K, r1 - r0, (const float *)b->data + r0 * len, pp->K, (float *)pk + r0 * pp->K);
    else ox_gemm_pack_b_rows(&pp->gp, pp->K, pp->N, r0, r1, (const char *)b->data + (size_t)(r0 * len) * es, pp->N, es, pk);
    if (discard) ox_sys_discard((char *)b->data + (size_t)(r0 * len) * es, (size_t)((r1 - r0) * len) * es);
  }
  if (es == 2) pp->pb = NULL, pp->pb16 = pk;
  else pp->pb = pk, pp->pb16 = NULL;
  pp->kind = (bf16 ? OX_PB16_BF16 : 0) | (nan ? 0 : OX_PB16_NONAN);
  *out = pp;
  return 0;
}

int ox_matmul_load(ox_ctx *c, void **state) {
  matmul_state *st = ox_alloc(c->a, sizeof *st);
  const ox_tensor *b;
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  OX_TRY(ox_const_input(c, 1, &b));
  if (!b || !(b->dt == OX_FLOAT || b->dt == OX_FLOAT16 || b->dt == OX_BFLOAT16) || b->rank != 2 || b->n <= 0)
    return 0;
  /* B is read only through pb or pb16 from here on */
  OX_TRY(mm_prep_new(c, b, 0, c->discard_inputs >> 1 & 1u, &st->pp));
  c->packed_inputs |= 1u << 1;
  return 0;
}

/* y (M, N) = a x the prepared B: A packed per call, then blocks of rows by
 * groups of column slivers; every element the kernel's same operations in
 * any block, so the same bytes for any thread count */
/* rows of A per item: every item reads all of B (a 768 x 3072 weight is
 * 9 MiB, from memory), so few and tall; core/gemm.c's packed product
 * keeps the rows' part of pa near L2 itself. ViT's 197 tokens in one item
 * instead of two (104 and 93 rows): 768 x 3072 at 109.3 -> 111.7 GFLOP/s,
 * 3072 x 768 at 110.9 -> 112.5, one thread. */
enum { MM_ROWS = 256 };
typedef struct {
  const mm_prep *pp;
  int64_t M, rb, nrb, ncb, cols; /* row blocks of rb rows, column groups of `cols` (a multiple of nr) */
  const float *pa; /* A packed whole, or NULL: */
  const float *a;  /* A (M, K), each item packing its rows into */
  float **slot_pa; /* its thread slot's buffer (rb rows) */
  float *y;
  float beta; /* y = pa x pb + beta * y (0: y only written) */
  const ox_epi_bound *epi; /* MatMul: the followers applied to each finished block (core/fuse.h), or NULL */
} mm_prep_job;

static void mm_prep_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const mm_prep_job *j = arg;
  const mm_prep *pp = j->pp;
  for (int64_t t = lo; t < hi; t++) {
    int64_t rb = j->rb;
    int64_t r0 = t / j->ncb * rb, c0 = t % j->ncb * j->cols;
    int64_t rows = j->M - r0 < rb ? j->M - r0 : rb, cols = pp->N - c0 < j->cols ? pp->N - c0 : j->cols;
    const float *pa = j->pa ? j->pa + r0 * pp->K : j->slot_pa[slot];
    if (!j->pa) ox_sgemm_pack_a(&pp->gp, rows, pp->K, j->a + r0 * pp->K, pp->K, 0, j->slot_pa[slot]);
    float *y = j->y + r0 * pp->N + c0;
    if (pp->pb16)
      ox_sgemm_packed_h(&pp->gp, rows, cols, pp->K, pa, pp->pb16 + c0 * pp->K, pp->kind, y, pp->N, j->beta);
    else ox_sgemm_packed(&pp->gp, rows, cols, pp->K, pa, pp->pb + c0 * pp->K, y, pp->N, j->beta);
    for (int64_t r = 0; j->epi && r < rows; r++) /* the block's rows, while they are in cache */
      ox_epi_rows(j->epi, j->y + (r0 + r) * pp->N + c0, cols, 0, r0 + r, c0);
  }
}

/* yd (M, N) = ad (M, K) x the prepared B + beta * yd (beta 0: yd only
 * written): the bits of ox_sgemm with alpha 1 and that beta; then epi's
 * steps (NULL: none) on each finished block */
static int prepared_rows(ox_ctx *c, const mm_prep *pp, int64_t M, const float *ad, float *yd, float beta,
                         const ox_epi_bound *epi) {
  int64_t K = pp->K, mr = pp->gp.mr, nr = pp->gp.nr;
  double work = 2.0 * (double)M * (double)pp->N * (double)K;
  /* row blocks of at most MM_ROWS rows, as even as whole slivers of pa
   * allow (300 rows: 152 and 148, not 256 and 44, which would leave one
   * of two threads idle most of the time); the bits do not depend on them */
  int64_t nrb = (M + MM_ROWS - 1) / MM_ROWS, per_block = (M + nrb - 1) / nrb;
  int64_t rb = (per_block + mr - 1) / mr * mr;
  mm_prep_job j = {pp, M, rb, (M + rb - 1) / rb, 1, (pp->N + nr - 1) / nr * nr, NULL, ad, NULL, yd, beta, epi};
  int threads = ox_threads_of(c->threads);
  if (ox_par_worth(c->threads, work) && j.nrb < 2 * threads) { /* columns too, for the threads */
    int64_t per = (2 * threads + j.nrb - 1) / j.nrb, sl = (pp->N + nr - 1) / nr;
    j.cols = (sl + per - 1) / per * nr;
    j.ncb = (pp->N + j.cols - 1) / j.cols;
  }
  int64_t items = j.nrb * j.ncb;
  int nch = ox_par_chunks(c->threads, items, work);
  /* Whole row blocks: each item packs its own rows (rb x K) just before
   * multiplying them, so that they are still in cache (a 197 x 3072 A
   * packed whole is 2.4 MiB, written out and read back); blocks that
   * share rows (columns split for the threads) share A packed whole. The
   * same packed values either way: the same bits. */
  float *slot_pa[OX_MAX_THREADS];
  int64_t nslot = ox_numel(2, (int64_t[]){rb, K}, 4);
  int per_item = j.ncb == 1 && nslot > 0 && (uint64_t)nslot <= SIZE_MAX / 2 / sizeof(float);
  for (int s = 0; per_item && s < nch; s++)
    if (!(slot_pa[s] = ox_mem_scratch((size_t)nslot * sizeof(float)))) { /* then A packed whole */
      while (s > 0) ox_mem_scratch_free(slot_pa[--s]);
      per_item = 0;
    }
  float *pa = NULL;
  if (per_item) j.slot_pa = slot_pa;
  else {
    pa = ox_alloc_array(c->a, ox_numel(2, (int64_t[]){(M + mr - 1) / mr * mr, K}, 4), sizeof *pa);
    if (!pa) return ox_oom(c->err, NULL);
    ox_sgemm_pack_a(&pp->gp, M, K, ad, K, 0, pa);
    j.pa = pa;
  }
  ox_par_for(items, nch, mm_prep_chunk, &j);
  for (int s = 0; per_item && s < nch; s++) ox_mem_scratch_free(slot_pa[s]);
  return 0;
}

static int matmul_prepared(ox_ctx *c, const mm_prep *pp, const ox_tensor *a, ox_value **out) {
  mm_plan p;
  OX_TRY(mm_plan_make(c, a, pp->b, &p));
  OX_TRY(ox_tensor_new_uninit(c->a, a->dt, p.rank, p.dims, out, c->err)); /* every element written */
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  /* float16, bfloat16: A widened, the product in float, rounded once on store */
  const float *ad = a->data;
  float *yd = y->data;
  if (a->dt != OX_FLOAT) {
    ox_tensor af;
    OX_TRY(ox_widen_tensor(c, a, &af));
    ad = af.data;
    if (!(yd = ox_alloc_array(c->a, y->n, sizeof *yd))) return ox_oom(c->err, NULL);
  }
  /* b has no batch dims: one product (M, K) x (K, N), A's batches stacked;
   * the followers of a float or float16 product (ox_epi_check: of its type) */
  const ox_epi_bound *epi =
      c->epi && (a->dt == OX_FLOAT || a->dt == OX_FLOAT16) && ox_epi_check(c->epi, y) ? c->epi : NULL;
  OX_TRY(prepared_rows(c, pp, p.M, ad, yd, 0, epi));
  if (yd != y->data) ox_narrow_f32(yd, y);
  if (epi) c->epi->done = 1;
  return 0;
}

/* y = a x the prepared B for a product of M <= OX_THIN rows: core/gemv.h
 * reads the packed B in place, the same bytes as the thin product from B
 * unpacked (A's batches stacked as for matmul_prepared); then the followers
 * (core/fuse.h) */
static int matmul_prepared_thin(ox_ctx *c, const mm_prep *pp, const ox_tensor *a, ox_value **out) {
  mm_plan p;
  OX_TRY(mm_plan_make(c, a, pp->b, &p));
  OX_TRY(ox_tensor_new_uninit(c->a, OX_FLOAT, p.rank, p.dims, out, c->err)); /* every element written */
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  ox_sgemm_thin_packed(c->threads, p.M, pp->N, pp->K, a->data, pp->K, pp->pb, pp->gp.nr, y->data, pp->N, 1, 0);
  if (c->epi && ox_epi_check(c->epi, y)) { /* the followers, on the few rows still in cache */
    for (int64_t r = 0; r < y->n / pp->N; r++) ox_epi_rows(c->epi, (float *)y->data + r * pp->N, pp->N, 0, r, 0);
    c->epi->done = 1;
  }
  return 0;
}

/* y = a x the prepared float16 or bfloat16 B for a product of M <=
 * OX_THIN rows: A widened, core/gemv.h reading pb16 in place, y rounded
 * once; the bytes of matmul_tensors' thin product from B (each batch of
 * A's an axpy over B widened, in the same order over k) */
static int matmul_prepared_thin_h(ox_ctx *c, const mm_prep *pp, const ox_tensor *a, ox_value **out) {
  mm_plan p;
  OX_TRY(mm_plan_make(c, a, pp->b, &p));
  OX_TRY(ox_tensor_new_uninit(c->a, a->dt, p.rank, p.dims, out, c->err)); /* every element written */
  ox_tensor *y = &(*out)->u.t, af;
  if (y->n == 0) return 0;
  OX_TRY(ox_widen_tensor(c, a, &af));
  float *yd = ox_alloc_array(c->a, y->n, sizeof *yd);
  if (!yd) return ox_oom(c->err, NULL);
  ox_sgemm_thin_packed_h(c->threads, y->n / pp->N, pp->N, pp->K, af.data, pp->K, pp->pb16, pp->kind, pp->gp.nr, yd,
                         pp->N, 1, 0);
  ox_narrow_f32(yd, y);
  return 0;
}

/* op(B)'s data (K, N) in b's type, rebuilt from pb or pb16 (the original
 * may have been given back: ox_release_packed), for a product the prepared
 * paths do not take; b's dims are the original's (shared: (N, K) for a
 * Gemm with transB) */
static int unpacked_b(ox_ctx *c, const mm_prep *pp, ox_tensor *b) {
  *b = *pp->b;
  size_t es = pp->pb16 ? sizeof *pp->pb16 : sizeof *pp->pb;
  char *d = ox_alloc_array(c->a, pp->K * pp->N + 1, es);
  if (!d) return ox_oom(c->err, NULL);
  const char *src = pp->pb16 ? (const void *)pp->pb16 : (const void *)pp->pb;
  int64_t nr = pp->gp.nr;
  for (int64_t k = 0; k < pp->K; k++)
    for (int64_t jn = 0; jn < pp->N; jn++)
      memcpy(d + (size_t)(k * pp->N + jn) * es, src + (size_t)((jn / nr * pp->K + k) * nr + jn % nr) * es, es);
  b->data = d;
  return 0;
}

static int matmul(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *a, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &a));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(ox_same_dtype(c, 1, b, a->dt));
  const mm_prep *pp = ((const matmul_state *)c->state)->pp;
  if (pp && ox_prep_matches(in[1], pp->b)) {
    ox_gemm_plan now = ox_sgemm_plan_now();
    if (a->dt == pp->b->dt && a->rank >= 2 && a->dims[a->rank - 1] == pp->K && now.level == pp->gp.level &&
        now.mr == pp->gp.mr && now.nr == pp->gp.nr) {
      int64_t M = a->dims[a->rank - 2];
      for (int d = 0; d < a->rank - 2; d++) M *= a->dims[d];
      if (!ox_gemm_is_thin(M, pp->N, pp->K)) return matmul_prepared(c, pp, a, out);
      if (M <= OX_THIN) return pp->pb16 ? matmul_prepared_thin_h(c, pp, a, out) : matmul_prepared_thin(c, pp, a, out);
    }
    /* B may be gone (ox_release_node): a vector A, N <= OX_THIN columns (B
     * small), or another GEMM kernel chosen since (tests cap the ISA), take
     * B rebuilt from pb or pb16 */
    mm_plan p; /* shapes that do not fit are said before B is rebuilt */
    OX_TRY(mm_plan_make(c, a, pp->b, &p));
    ox_tensor bb;
    OX_TRY(unpacked_b(c, pp, &bb));
    return matmul_tensors(c, a, &bb, out);
  }
  return matmul_tensors(c, a, b, out);
}

/* ---- MatMulInteger-10 ---- */

/* x - zp as int32, zp broadcast numpy-style against x (already reshaped by
 * the caller where the spec's per-row form needs it). */
static int minus_zero_point(ox_ctx *c, const ox_tensor *x, const ox_tensor *zp, ox_tensor *r) {
  *r = *x;
  r->dt = OX_INT32;
  int32_t *d = ox_alloc_array(c->a, x->n + 1, sizeof *d);
  if (!d) return ox_oom(c->err, NULL);
  r->data = d;
  if (!zp) {
    for (int64_t i = 0; i < x->n; i++) d[i] = (int32_t)ox_load_i64(x->dt, x->data, i);
    return 0;
  }
  if (x->n == 0) return 0;
  ox_bcast it;
  OX_TRY(ox_bcast_init(&it, 2, (const ox_tensor *[]){x, zp}, x->rank, x->dims, c->err));
  do {
    for (int64_t i = 0; i < it.inner; i++)
      d[it.out + i] = (int32_t)(ox_load_i64(x->dt, x->data, it.off[0] + i * it.step[0]) -
                                ox_load_i64(zp->dt, zp->data, it.off[1] + i * it.step[1]));
  } while (ox_bcast_next(&it));
  return 0;
}

/* The 8-bit product (core/gemm.h's ox_i8gemm_*, AVX-512 VNNI where the CPU
 * has it) for zero points that are per tensor (one element, or none) for A,
 * and per tensor or per column of a 2-D B ((N,) or (1, N)) for B; the other
 * forms take minus_zero_point and the int32 product. vpdpbusd multiplies
 * unsigned bytes by signed ones: B is read signed and A unsigned (uint8 A
 * times int8 B, what quantize_dynamic writes, as stored), except int8 A
 * times uint8 B, the other way round; a pair of one type flips one side
 * (XOR 0x80: int8 read as v + 128, uint8 as v - 128), its zero point moved
 * with it. With a~, b~, az~, bz~ the values as read,
 *   sum_k (a - az)(b - bz) = sum a~ b~ - bz~ rowsum(a~) - az~ colsum(b~) + K az~ bz~
 * exactly, modulo 2^32 as the int32 sums wrap; the kernel adds the terms
 * as it stores each tile (rowsum only when some bz~ is not 0). Rows of each
 * product are split over the threads (integer sums: the same bytes for any
 * split). A constant 2-D B is packed once, at load (ox_matmul_integer_load). */
typedef struct {
  int a_signed;
  uint8_t fa, fb;
} mmi_signs;

static mmi_signs mmi_signs_of(ox_dtype adt, ox_dtype bdt) {
  mmi_signs s = {adt == OX_INT8 && bdt == OX_UINT8, 0, 0};
  if (!s.a_signed) s.fa = adt == OX_INT8 ? 0x80 : 0, s.fb = bdt == OX_UINT8 ? 0x80 : 0;
  return s;
}

/* a zero point as the flipped bytes read it */
static int32_t moved_zero_point(int32_t z, ox_dtype dt, uint8_t flip) {
  return flip ? z + (dt == OX_INT8 ? 128 : -128) : z;
}

/* B packed at load: a constant 2-D B, for the signs a uint8 A gives it */
typedef struct {
  const ox_tensor *b;
  ox_gemm_plan gp;
  mmi_signs sg;
  int64_t K, N;
  const uint8_t *pb;     /* round_up(N, nr) * round_up(K, 4) bytes */
  const int32_t *colsum; /* N */
} mmi_prep;

typedef struct {
  const mmi_prep *pp; /* NULL: B packed per call */
} mmi_state;

int ox_matmul_integer_load(ox_ctx *c, void **state) { return ox_matmul_integer_load_b(c, 1, state); }
int ox_matmul_integer_load_b(ox_ctx *c, int bi, void **state) {
  mmi_state *st = ox_alloc(c->a, sizeof *st);
  const ox_tensor *b;
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  OX_TRY(ox_const_input(c, bi, &b));
  if (!b || (b->dt != OX_INT8 && b->dt != OX_UINT8) || b->rank != 2 || b->n <= 0) return 0;
  mmi_prep *pp = ox_alloc(c->a, sizeof *pp);
  if (!pp) return ox_oom(c->err, NULL);
  *pp = (mmi_prep){.b = b, .gp = ox_i8gemm_plan_now(), .sg = mmi_signs_of(OX_UINT8, b->dt), .K = b->dims[0],
                   .N = b->dims[1]};
  int64_t sz = ox_numel(2, (int64_t[]){ox_round_up(pp->N, pp->gp.nr), ox_round_up(pp->K, 4)}, 1);
  uint8_t *pb = sz < 0 ? NULL : ox_alloc_uninit(c->a, (size_t)sz);
  int32_t *colsum = ox_alloc_array(c->a, pp->N, 4);
  if (!pb || !colsum) return ox_oom(c->err, NULL);
  ox_i8gemm_pack_b(&pp->gp, pp->K, pp->N, b->data, pp->N, pp->sg.fb, !pp->sg.a_signed, pb, colsum);
  pp->pb = pb, pp->colsum = colsum;
  st->pp = pp;
  return 0;
}

typedef struct {
  ox_gemm_plan gp;
  int64_t M, N, K, nsliv;
  int a_signed;
  const uint8_t *a; /* A read in place (not NULL), else pa */
  const uint8_t *pa, *pb;
  ox_i8gemm_zp zp; /* rowsum of all M rows (or NULL) */
  int32_t *y;
} mmi_job;

/* slivers [lo, hi) of mr rows; the last one takes the rows past them */
static void mmi_rows(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  const mmi_job *j = arg;
  int64_t mr = j->gp.mr, K4 = (j->K + 3) / 4, m0 = lo * mr, m1 = hi == j->nsliv ? j->M : hi * mr;
  ox_i8gemm_zp zp = j->zp;
  if (zp.rowsum) zp.rowsum += m0;
  if (j->a)
    ox_i8gemm_rows_zp(&j->gp, m1 - m0, j->N, j->K, j->a + m0 * j->K, j->K, j->pb, j->a_signed, j->y + m0 * j->N,
                      j->N, &zp);
  else
    ox_i8gemm_packed_zp(&j->gp, m1 - m0, j->N, j->K, j->pa + m0 * K4 * 4, j->pb, j->a_signed, j->y + m0 * j->N,
                        j->N, &zp);
}

/* each row's sum of its bytes, read signed or not (A read in place) */
static void row_sums(const uint8_t *a, int64_t M, int64_t K, int is_signed, int32_t *rowsum) {
  for (int64_t i = 0; i < M; i++, a += K) {
    uint32_t s = 0;
    if (is_signed)
      for (int64_t k = 0; k < K; k++) s += (uint32_t)(int32_t)(int8_t)a[k];
    else
      for (int64_t k = 0; k < K; k++) s += a[k];
    rowsum[i] = (int32_t)s;
  }
}

/* *done = 1 when this path computed out; pp: B packed at load, or NULL */
static int matmul_int8(ox_ctx *c, const ox_tensor *a, const ox_tensor *b, const ox_tensor *za,
                       const ox_tensor *zb, const mmi_prep *pp, ox_value **out, int *done) {
  *done = 0;
  if ((za && za->n != 1) || (zb && zb->n != 1 && !(b->rank == 2 && zb->n == b->dims[1] &&
                                                   (zb->rank == 1 || (zb->rank == 2 && zb->dims[0] == 1)))))
    return 0;
  mm_plan p;
  OX_TRY(mm_plan_make(c, a, b, &p));
  OX_TRY(ox_tensor_new_uninit(c->a, OX_INT32, p.rank, p.dims, out, c->err));
  *done = 1;
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  if (p.K == 0) { /* empty sums */
    memset(y->data, 0, (size_t)y->n * sizeof(int32_t));
    return 0;
  }
  mmi_signs sg = mmi_signs_of(a->dt, b->dt);
  mmi_job j = {.gp = ox_i8gemm_plan_now(), .M = p.M, .N = p.N, .K = p.K, .a_signed = sg.a_signed};
  if (pp && !(pp->gp.level == j.gp.level && pp->gp.mr == j.gp.mr && pp->gp.nr == j.gp.nr &&
              pp->sg.a_signed == sg.a_signed && pp->sg.fb == sg.fb && pp->K == p.K && pp->N == p.N))
    pp = NULL;
  int64_t mr = j.gp.mr, nr = j.gp.nr, K4 = (p.K + 3) / 4, Mp = ox_round_up(p.M, mr), Np = ox_round_up(p.N, nr);
  uint32_t az = (uint32_t)moved_zero_point(za ? (int32_t)ox_load_i64(za->dt, za->data, 0) : 0, a->dt, sg.fa);
  /* A read in place when its bytes need no flip and make whole groups of 4 */
  int direct = !sg.fa && p.K % 4 == 0 && p.M >= mr;
  uint8_t *pa = direct ? NULL : ox_alloc_uninit(c->a, (size_t)(Mp * K4 * 4));
  uint8_t *pb = pp ? NULL : ox_alloc_uninit(c->a, (size_t)(Np * K4 * 4));
  int32_t *colsum = pp ? NULL : ox_alloc_array(c->a, p.N, 4);
  int32_t *bzv = ox_alloc_array(c->a, Np, 4), *colterm = ox_alloc_array(c->a, Np, 4);
  if ((!direct && !pa) || (!pp && (!pb || !colsum)) || !bzv || !colterm) return ox_oom(c->err, NULL);
  int any_bz = 0;
  for (int64_t n = 0; n < p.N; n++) {
    int32_t z = zb ? (int32_t)ox_load_i64(zb->dt, zb->data, zb->n == 1 ? 0 : n) : 0;
    bzv[n] = moved_zero_point(z, b->dt, sg.fb);
    any_bz |= bzv[n] != 0;
  }
  int32_t *rowsum = any_bz ? ox_alloc_array(c->a, Mp, 4) : NULL;
  if (any_bz && !rowsum) return ox_oom(c->err, NULL);
  j.pa = pa, j.pb = pp ? pp->pb : pb;
  j.zp = (ox_i8gemm_zp){rowsum, bzv, colterm};
  int64_t MN = p.M * p.N, nsliv = direct ? p.M / mr : (p.M + mr - 1) / mr;
  j.nsliv = nsliv;
  double work = 2.0 * (double)p.M * (double)p.N * (double)p.K / 8;
  for (int64_t t = 0; t < p.nbatch; t++) {
    if (t == 0 || p.boff[t] != p.boff[t - 1]) {
      if (!pp)
        ox_i8gemm_pack_b(&j.gp, p.K, p.N, (const uint8_t *)b->data + p.boff[t], p.N, sg.fb, !sg.a_signed, pb,
                         colsum);
      const int32_t *cs = pp ? pp->colsum : colsum;
      for (int64_t n = 0; n < p.N; n++) /* modulo 2^32 */
        colterm[n] = (int32_t)((uint32_t)p.K * az * (uint32_t)bzv[n] - az * (uint32_t)cs[n]);
    }
    const uint8_t *at = (const uint8_t *)a->data + p.aoff[t];
    if (!direct) ox_i8gemm_pack_a(&j.gp, p.M, p.K, at, p.K, sg.fa, sg.a_signed, pa, rowsum);
    else if (rowsum) row_sums(at, p.M, p.K, sg.a_signed, rowsum);
    j.a = direct ? at : NULL;
    j.y = (int32_t *)y->data + t * MN;
    int nch = ox_par_chunks(c->threads, nsliv, work);
    if (nch <= 1) mmi_rows(&j, 0, 0, nsliv);
    else ox_par_for(nsliv, nch, mmi_rows, &j);
  }
  return 0;
}

/* pp: B packed at load (used when in[1] is its tensor), or NULL */
static int matmul_integer_pp(ox_ctx *c, int nin, ox_value **in, ox_value **out, const mmi_prep *pp) {
  const ox_tensor *a, *b, *zp[2] = {NULL, NULL};
  char s1[256], s2[256];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &a));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  if (!(TS_I8 & (UINT64_C(1) << b->dt)))
    return ox_fail(c->err, OX_EINPUT, "%s is %s; T2 must be int8 or uint8", ox_input_name(c, 1),
                   ox_dtypes[b->dt].onnx_name);
  for (int k = 0; k < 2; k++) {
    if (nin <= 2 + k || !in[2 + k]) continue;
    OX_TRY(ox_tensor_in(c, in, nin, 2 + k, &zp[k]));
    ox_dtype want = k ? b->dt : a->dt;
    if (zp[k]->dt != want)
      return ox_fail(c->err, OX_EINPUT, "%s is %s; it must have the type of %s (%s)",
                     ox_input_name(c, 2 + k), ox_dtypes[zp[k]->dt].onnx_name, k ? "B" : "A",
                     ox_dtypes[want].onnx_name);
  }
  /* a_zero_point per row: (M,) for a 2-D A means (M, 1); N-D forms such as
   * (D1, D2, M, 1) and b_zero_point's (N,) and (D1, D2, 1, N) broadcast as
   * they are. */
  ox_tensor zpa;
  int64_t zpa_dims[2];
  if (zp[0] && zp[0]->rank == 1 && zp[0]->n > 1 && a->rank >= 2 &&
      zp[0]->dims[0] == a->dims[a->rank - 2]) {
    zpa = *zp[0];
    zpa.rank = 2;
    zpa_dims[0] = zp[0]->dims[0];
    zpa_dims[1] = 1;
    zpa.dims = zpa_dims;
    zp[0] = &zpa;
  }
  for (int k = 0; k < 2; k++) {
    const ox_tensor *x = k ? b : a;
    if (!zp[k]) continue;
    int ok = zp[k]->rank <= x->rank;
    for (int d = 0; ok && d < zp[k]->rank; d++) {
      int64_t z = zp[k]->dims[zp[k]->rank - 1 - d], v = x->dims[x->rank - 1 - d];
      ok = z == 1 || z == v;
    }
    if (!ok)
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s, which does not fit %s of shape %s",
                     ox_input_name(c, 2 + k), ox_shape_str(zp[k]->rank, zp[k]->dims, s1, sizeof s1),
                     k ? "B" : "A", ox_shape_str(x->rank, x->dims, s2, sizeof s2));
  }
  int done; /* A's type (int8, uint8) the registry checked */
  if (pp && !ox_prep_matches(in[1], pp->b)) pp = NULL;
  OX_TRY(matmul_int8(c, a, b, zp[0], zp[1], pp, out, &done));
  if (done) return 0;
  ox_tensor a32, b32;
  OX_TRY(minus_zero_point(c, a, zp[0], &a32));
  OX_TRY(minus_zero_point(c, b, zp[1], &b32));
  return matmul_tensors(c, &a32, &b32, out);
}

static int matmul_integer(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  return matmul_integer_pp(c, nin, in, out, ((const mmi_state *)c->state)->pp);
}

/* ---- Gemm-1, -6, -7, -9, -11, -13 ---- */

/* Gemm's attributes, read once, and the preparation of a constant float
 * B, or float16 or bfloat16 B not transposed (op(B) packed: mm_prep), or
 * NULL */
typedef struct {
  int ta, tb, bcast; /* bcast: C broadcasts (always from Gemm-7 on) */
  float alpha, beta;
  const mm_prep *pp;
} gemm_state;

int ox_gemm_load(ox_ctx *c, void **state) {
  gemm_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  st->ta = ox_attr_int(c, "transA", 0) != 0;
  st->tb = ox_attr_int(c, "transB", 0) != 0;
  st->bcast = c->version >= 7 || ox_attr_int(c, "broadcast", 0) != 0;
  st->alpha = ox_attr_float(c, "alpha", 1.0f);
  st->beta = ox_attr_float(c, "beta", 1.0f);
  st->pp = NULL;
  *state = st;
  /* a constant float B (a decoder's every weight product, as exporters
   * write nn.Linear): op(B) packed once, and read only through pb (or
   * pb16: float16 and bfloat16) */
  const ox_tensor *b;
  OX_TRY(ox_const_input(c, 1, &b));
  /* Not for a transposed A or for N <= OX_THIN: gemm_prepared would only
   * rebuild op(B) from pb on every call; a float16 or bfloat16 B only
   * untransposed (pb16 is packed from rows of B; and a thin product with
   * transB would not keep the bits it has from B widened) */
  int half = (b && (b->dt == OX_FLOAT16 || b->dt == OX_BFLOAT16)) && !st->tb;
  if (b && (b->dt == OX_FLOAT || half) && b->rank == 2 && b->n > 0 && !st->ta && b->dims[!st->tb] > OX_THIN) {
    /* with alpha 1 every product reads pb only; with another alpha, only
     * the thin ones do: the original stays for the others */
    int packs = st->alpha == 1;
    OX_TRY(mm_prep_new(c, b, st->tb, packs && (c->discard_inputs >> 1 & 1u), &st->pp));
    if (packs) c->packed_inputs |= 1u << 1;
  }
  return 0;
}

/* C's element strides over Y's (M, N), 0 where it is broadcast; C must be
 * unidirectionally broadcastable to (M, N). Before Gemm-7 without broadcast=1
 * it must be (M, N) itself. */
static int gemm_c_strides(ox_ctx *c, const ox_tensor *ct, int64_t M, int64_t N, int64_t *si,
                          int64_t *sj) {
  char s1[256];
  int bcast = ((const gemm_state *)c->state)->bcast;
  int64_t cm = ct->rank == 2 ? ct->dims[0] : 1, cn = ct->rank >= 1 ? ct->dims[ct->rank - 1] : 1;
  int ok = ct->rank <= 2 && (cm == M || cm == 1) && (cn == N || cn == 1);
  if (!bcast) ok = ct->rank == 2 && cm == M && cn == N;
  if (!ok)
    return ox_fail(c->err, OX_EINPUT, "C has shape %s; it must %s (M, N) = (%lld, %lld)",
                   ox_shape_str(ct->rank, ct->dims, s1, sizeof s1),
                   bcast ? "broadcast to" : "be (without broadcast=1)", (long long)M, (long long)N);
  *si = cm == 1 ? 0 : cn;
  *sj = cn == 1 ? 0 : 1;
  return 0;
}

/* y[i] = v truncated toward zero, saturating at the type's limits (NaN: the
 * minimum, as numpy's astype gives on x86). */
static void store_trunc(ox_dtype dt, void *y, int64_t i, double v) {
  switch (dt) {
#define CASE(NAME, T, U)                                                              \
  case OX_##NAME: {                                                                   \
    int sgn = ox_dtype_is_signed_int(OX_##NAME), bits = (int)sizeof(T) * 8;           \
    double lo = sgn ? -ldexp(1, bits - 1) : 0, hi = ldexp(1, bits - sgn);             \
    T min = sgn ? (T)((U)1 << (bits - 1)) : 0;                                        \
    T max = sgn ? (T)(((U)1 << (bits - 1)) - 1) : (T)~(U)0;                           \
    v = trunc(v);                                                                     \
    ((T *)y)[i] = !(v >= lo) ? min : v >= hi ? max : (T)v;                            \
    break;                                                                            \
  }
    INT_ACC_TYPES(CASE)
#undef CASE
  default: ox_store_f64(dt, y, i, v);
  }
}

/* Y = alpha * A' B' + beta * C in float or double: Y <- C (broadcast), then
 * the GEMM with beta (beta 0: C is not read, so NaN in C does not leak). */
#define GEMM_FLOAT(T, FN)                                                             \
  /* Y (M, N) <- C, broadcast by its strides si, sj */                               \
  static void gemm_fill_##T(int64_t M, int64_t N, const T *C, int64_t si, int64_t sj, T *Y) { \
    for (int64_t i = 0; i < M; i++)                                                   \
      for (int64_t j = 0; j < N; j++) Y[i * N + j] = C[i * si + j * sj];              \
  }                                                                                   \
  static void gemm_##T(int threads, int64_t M, int64_t N, int64_t K, const T *A, int ta, const T *B, \
                       int tb, const T *C, int64_t si, int64_t sj, T *Y, T alpha, T beta) { \
    if (!C) beta = 0;                                                                 \
    if (beta != 0) gemm_fill_##T(M, N, C, si, sj, Y);                                 \
    FN(threads, M, N, K, A, ta ? M : K, ta, B, tb ? K : N, tb, Y, N, alpha, beta);    \
  }
GEMM_FLOAT(float, ox_sgemm_any)
GEMM_FLOAT(double, ox_dgemm_any)

/* Y (M, N) = alpha A op(B) + beta C for a float Gemm whose op(B) was
 * prepared at load (never with transA), A (M, K), C (NULL: none) and Y
 * floats (a float16 or bfloat16 Gemm's widened: then B untransposed): the
 * bits of gemm_float from B as it was (widened), with one exception: a
 * thin float product with transB, which gemm_float sums in dot products
 * split over vector lanes, is summed here over k in order, as one with B
 * untransposed is (both within a float sum's error). b: the original,
 * still there unless alpha is 1 (gemm_state). */
static int gemm_prepared(ox_ctx *c, const mm_prep *pp, int64_t M, int64_t N, const float *A, const ox_tensor *b,
                         int tb, const float *C, int64_t si, int64_t sj, float alpha, float beta, float *Y) {
  int64_t K = pp->K;
  if (!C) beta = 0;
  ox_gemm_plan now = ox_sgemm_plan_now();
  int same = now.level == pp->gp.level && now.mr == pp->gp.mr && now.nr == pp->gp.nr;
  int thin = ox_gemm_is_thin(M, N, K);
  /* ox_sgemm applies alpha per block of K: only alpha 1 keeps its bits
   * through the packed product (which has no alpha) */
  if (same && (thin ? M <= OX_THIN : alpha == 1)) {
    if (beta != 0) gemm_fill_float(M, N, C, si, sj, Y);
    if (thin && pp->pb16) ox_sgemm_thin_packed_h(c->threads, M, N, K, A, K, pp->pb16, pp->kind, pp->gp.nr, Y, N, alpha, beta);
    else if (thin) ox_sgemm_thin_packed(c->threads, M, N, K, A, K, pp->pb, pp->gp.nr, Y, N, alpha, beta);
    else OX_TRY(prepared_rows(c, pp, M, A, Y, beta, NULL));
    return 0;
  }
  ox_tensor bb; /* alpha 1: another plan than the packing's (tests): op(B) rebuilt */
  if (alpha != 1) bb = *b; /* the original was kept */
  else {
    OX_TRY(unpacked_b(c, pp, &bb));
    tb = 0;
  }
  ox_tensor bw = bb; /* float16, bfloat16: widened */
  if (bb.dt != OX_FLOAT) OX_TRY(ox_widen_tensor(c, &bb, &bw));
  gemm_float(c->threads, M, N, K, A, 0, bw.data, tb, C, si, sj, Y, alpha, beta);
  return 0;
}

static int gemm(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *a, *b, *ct = NULL;
  char s1[256], s2[256];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &a));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &b));
  OX_TRY(ox_same_dtype(c, 1, b, a->dt));
  if (nin > 2 && in[2]) {
    OX_TRY(ox_tensor_in(c, in, nin, 2, &ct));
    OX_TRY(ox_same_dtype(c, 2, ct, a->dt));
  }
  const gemm_state *st = c->state;
  int ta = st->ta, tb = st->tb;
  float alpha = st->alpha, beta = st->beta;
  if (a->rank != 2 || b->rank != 2)
    return ox_fail(c->err, OX_EINPUT, "A and B must be 2-D; A is %s, B is %s",
                   ox_shape_str(a->rank, a->dims, s1, sizeof s1), ox_shape_str(b->rank, b->dims, s2, sizeof s2));
  /* A': (M, K), B': (K, N) */
  int64_t M = a->dims[ta], K = a->dims[!ta], kb = b->dims[tb], N = b->dims[!tb];
  if (K != kb)
    return ox_fail(c->err, OX_EINPUT, "inner dimensions differ: A%s is %s, B%s is %s",
                   ta ? " (transposed)" : "", ox_shape_str(2, a->dims, s1, sizeof s1),
                   tb ? " (transposed)" : "", ox_shape_str(2, b->dims, s2, sizeof s2));
  int64_t si = 0, sj = 0;
  if (ct) OX_TRY(gemm_c_strides(c, ct, M, N, &si, &sj));
  int64_t dims[2] = {M, N};
  OX_TRY(ox_tensor_new(c->a, a->dt, 2, dims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  switch (a->dt) {
  case OX_FLOAT:
    if (st->pp && ox_prep_matches(in[1], st->pp->b))
      return gemm_prepared(c, st->pp, M, N, a->data, b, tb, ct ? ct->data : NULL, si, sj, alpha, beta, y->data);
    gemm_float(c->threads, M, N, K, a->data, ta, b->data, tb, ct ? ct->data : NULL, si, sj, y->data, alpha, beta);
    return 0;
  case OX_DOUBLE:
    gemm_double(c->threads, M, N, K, a->data, ta, b->data, tb, ct ? ct->data : NULL, si, sj, y->data, alpha,
                beta);
    return 0;
  case OX_FLOAT16:
  case OX_BFLOAT16: {
    ox_tensor af, bf, cf = {0};
    OX_TRY(ox_widen_tensor(c, a, &af));
    if (ct) OX_TRY(ox_widen_tensor(c, ct, &cf));
    float *yf = ox_alloc_array(c->a, y->n, sizeof *yf);
    if (!yf) return ox_oom(c->err, NULL);
    if (st->pp && ox_prep_matches(in[1], st->pp->b)) { /* B as pb16 */
      OX_TRY(gemm_prepared(c, st->pp, M, N, af.data, b, tb, ct ? cf.data : NULL, si, sj, alpha, beta, yf));
    } else {
      OX_TRY(ox_widen_tensor(c, b, &bf));
      gemm_float(c->threads, M, N, K, af.data, ta, bf.data, tb, ct ? cf.data : NULL, si, sj, yf, alpha, beta);
    }
    ox_narrow_f32(yf, y);
    return 0;
  }
  default: break;
  }
  /* Integers (Gemm-9 on): the product is exact in its own width; alpha and
   * beta other than 1 scale in double, as the reference's numpy does, and
   * the result is truncated back to the type. */
  mm_plan p = {.M = M, .N = N, .K = K, .nbatch = 1};
  int64_t zero = 0;
  p.aoff = p.boff = &zero;
  ox_tensor a2 = *a, b2 = *b; /* untransposed copies */
  if (ta || tb) {
    size_t es = ox_dtype_size(a->dt);
    for (int k = 0; k < 2; k++) {
      const ox_tensor *x = k ? b : a;
      if (!(k ? tb : ta)) continue;
      char *d = ox_alloc_array(c->a, x->n, es);
      if (!d) return ox_oom(c->err, NULL);
      int64_t R = x->dims[0], C = x->dims[1];
      for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < C; j++)
          memcpy(d + (j * R + i) * es, (const char *)x->data + (i * C + j) * es, es);
      *(k ? &b2 : &a2) = *x;
      (k ? &b2 : &a2)->data = d;
    }
  }
  OX_TRY(mm_run(c, &p, &a2, &b2, y->data));
  int use_c = ct && beta != 0;
  if (alpha == 1 && (!use_c || beta == 1)) {
    if (!use_c) return 0;
    switch (a->dt) {
#define CASE(NAME, T, U)                                                              \
  case OX_##NAME: {                                                                   \
    T *Y = y->data;                                                                   \
    const T *C = ct->data;                                                            \
    for (int64_t i = 0; i < M; i++)                                                   \
      for (int64_t j = 0; j < N; j++)                                                 \
        Y[i * N + j] = (T)((U)Y[i * N + j] + (U)C[i * si + j * sj]);                 \
    return 0;                                                                         \
  }
      INT_ACC_TYPES(CASE)
#undef CASE
    default: break;
    }
  }
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double v = (double)alpha * ox_load_f64(a->dt, y->data, i * N + j);
      if (use_c) v += (double)beta * ox_load_f64(a->dt, ct->data, i * si + j * sj);
      store_trunc(a->dt, y->data, i * N + j, v);
    }
  return 0;
}

/* ---- Det-11, -22 ---- */

/* det of the (n, n) matrix m (overwritten): LU with partial pivoting. */
static double det_lu(double *m, int64_t n) {
  double det = 1;
  for (int64_t k = 0; k < n; k++) {
    int64_t piv = k;
    for (int64_t i = k + 1; i < n; i++)
      if (fabs(m[i * n + k]) > fabs(m[piv * n + k])) piv = i;
    if (m[piv * n + k] == 0) return 0 * det; /* singular (keeps NaN) */
    if (piv != k) {
      for (int64_t j = 0; j < n; j++) {
        double t = m[k * n + j];
        m[k * n + j] = m[piv * n + j];
        m[piv * n + j] = t;
      }
      det = -det;
    }
    double p = m[k * n + k];
    det *= p;
    for (int64_t i = k + 1; i < n; i++) {
      double f = m[i * n + k] / p;
      if (f == 0) continue;
      for (int64_t j = k + 1; j < n; j++) m[i * n + j] -= f * m[k * n + j];
    }
  }
  return det;
}

static int det(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  char s1[256];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  /* x: (*, n, n) -> y: (*) */
  if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
    return ox_fail(c->err, OX_EINPUT, "X has shape %s; it must be (..., n, n)",
                   ox_shape_str(x->rank, x->dims, s1, sizeof s1));
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank - 2, x->dims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (!y->n) return 0; /* (n * n might not fit: (0, 2^62, 2^62)) */
  int64_t n = x->dims[x->rank - 1];
  double *m = ox_alloc_array(c->a, n * n + 1, sizeof *m);
  if (!m) return ox_oom(c->err, NULL);
  for (int64_t b = 0; b < y->n; b++) {
    for (int64_t i = 0; i < n * n; i++) m[i] = ox_load_f64(x->dt, x->data, b * n * n + i);
    ox_store_f64(y->dt, y->data, b, det_lu(m, n));
  }
  return 0;
}

/* ---- Einsum-12 ---- */

/* Labels: 'A'..'Z' are 0..25, 'a'..'z' 26..51, the ellipsis dims 52 on
 * (right-aligned: the last ellipsis dim of every operand is the same label). */
enum { NLETTERS = 52, MAXLABELS = NLETTERS + 64 };

static int letter(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  return -1;
}

typedef struct {
  int nlab;                 /* labels of the operand's dims, in order */
  int lab[OX_BCAST_MAX_RANK * 4];
} term;

/* Parse one term of the equation (s[0..len)) for an operand of rank `rank`
 * (-1: the output, whose ellipsis stands for all `nell` ellipsis labels). */
static int parse_term(ox_ctx *c, const char *s, size_t len, int rank, int *nell, term *t,
                      const char *what) {
  int nlet = 0, ell = -1;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == ' ') continue;
    if (s[i] == '.') {
      if (ell >= 0 || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.')
        return ox_fail(c->err, OX_EINPUT, "equation: %s has a malformed or second ellipsis", what);
      ell = nlet;
      i += 2;
      continue;
    }
    if (letter(s[i]) < 0)
      return ox_fail(c->err, OX_EINPUT, "equation: %s has '%c'; labels are letters", what, s[i]);
    nlet++;
  }
  int ne = 0;
  if (rank >= 0) {
    if (nlet > rank || (ell < 0 && nlet != rank))
      return ox_fail(c->err, OX_EINPUT, "equation: %s has %d labels but its operand has rank %d",
                     what, nlet, rank);
    ne = ell >= 0 ? rank - nlet : 0;
    if (ne > 64) return ox_fail(c->err, OX_EINPUT, "equation: ellipsis of more than 64 dims");
    if (ne > *nell) *nell = ne;
  } else {
    ne = ell >= 0 ? *nell : 0;
  }
  if (nlet + ne > (int)(sizeof t->lab / sizeof t->lab[0]))
    return ox_fail(c->err, OX_EINPUT, "equation: %s has too many labels", what);
  t->nlab = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == ' ') continue;
    if (s[i] == '.') {
      for (int e = 0; e < ne; e++) t->lab[t->nlab++] = -(ne - e); /* -ne..-1: fixed up later */
      i += 2;
      continue;
    }
    t->lab[t->nlab++] = letter(s[i]);
  }
  return 0;
}

/* dst[0..) = the elements of src (float or double: es 4 or 8) met walking
 * dims[0..nd) (outermost first) with the given element strides. */
static void gather(void *dst, const void *src, size_t es, int nd, const int64_t *dims,
                   const int64_t *strides) {
  int64_t idx[MAXLABELS] = {0}, off = 0, n = ox_numel(nd, dims, 0);
  int64_t inner = nd ? dims[nd - 1] : 1, step = nd ? strides[nd - 1] : 0;
  for (int64_t o = 0; o < n; o += inner) {
    if (es == 4)
      for (int64_t i = 0; i < inner; i++) ((float *)dst)[o + i] = ((const float *)src)[off + i * step];
    else
      for (int64_t i = 0; i < inner; i++) ((double *)dst)[o + i] = ((const double *)src)[off + i * step];
    for (int d = nd - 2; d >= 0; d--) {
      off += strides[d];
      if (++idx[d] < dims[d]) break;
      off -= strides[d] * dims[d];
      idx[d] = 0;
    }
  }
}

/* Whether walking dims (outermost first) with element strides str visits 0,
 * 1, 2, ... in turn (a dim of 1 may have any stride): a gather would copy. */
static int in_order(int nd, const int64_t *dims, const int64_t *str) {
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; d--) {
    if (dims[d] != 1 && str[d] != s) return 0;
    s *= dims[d];
  }
  return 1;
}

/* An operand of einsum_gemm as (batch, r, cl) matrices, where batch, r and
 * cl are groups of loop labels (positions; their sizes in ldims, the
 * operand's strides in st): its own data when it already is in that order
 * (*t = 0) or in (batch, cl, r) order (*t = 1: the GEMM reads the matrices
 * transposed), else a gathered copy (NULL: out of memory). */
static void *operand(ox_ctx *c, const void *src, size_t es, const int64_t *ldims, const int64_t *st,
                     const int *batch, int nb, const int *r, int nr, const int *cl, int ncl, int *t) {
  int64_t dims[MAXLABELS], str[MAXLABELS], tdims[MAXLABELS], tstr[MAXLABELS];
  int nd = 0, ntd = 0;
  for (int q = 0; q < nb; q++) dims[nd] = ldims[batch[q]], str[nd++] = st[batch[q]];
  for (int q = 0; q < nb; q++) tdims[ntd] = ldims[batch[q]], tstr[ntd++] = st[batch[q]];
  for (int q = 0; q < nr; q++) dims[nd] = ldims[r[q]], str[nd++] = st[r[q]];
  for (int q = 0; q < ncl; q++) dims[nd] = ldims[cl[q]], str[nd++] = st[cl[q]];
  for (int q = 0; q < ncl; q++) tdims[ntd] = ldims[cl[q]], tstr[ntd++] = st[cl[q]];
  for (int q = 0; q < nr; q++) tdims[ntd] = ldims[r[q]], tstr[ntd++] = st[r[q]];
  *t = 0;
  if (in_order(nd, dims, str)) return (void *)src; /* only read */
  if ((*t = in_order(ntd, tdims, tstr))) return (void *)src;
  void *d = ox_alloc_array(c->a, ox_numel(nd, dims, 0) + 1, es);
  if (d) gather(d, src, es, nd, dims, str);
  return d;
}

/* Einsum of two float (es 4) or double (es 8) operands as a batched GEMM:
 *   a: (batch, m, k) <- x0, b: (batch, k, n) <- x1, r = a b: (batch, m, n) -> y
 * where batch are the labels in both operands and the output, k those in
 * both and not the output, m those in x0 and the output only, n likewise for
 * x1. Leaves *done 0 (for the general loop) on diagonals, on labels summed
 * within one operand, and on broadcast ellipsis dims. */
static int einsum_gemm(ox_ctx *c, const ox_tensor *const *x, const term *terms, int nloop,
                       int nouter, const int *order, const int64_t *ldims,
                       const int64_t (*st)[MAXLABELS], const void *const *src, size_t es,
                       void *y, int *done) {
  int in[2][MAXLABELS] = {{0}};
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < terms[i].nlab; k++) {
      int l = terms[i].lab[k], j = 0;
      while (order[j] != l) j++;
      if (in[i][j] || x[i]->dims[k] != ldims[j]) return 0; /* a diagonal, or broadcast */
      in[i][j] = 1;
    }
  /* the groups, as loop-label positions */
  int bt[MAXLABELS], ms[MAXLABELS], ns[MAXLABELS], ks[MAXLABELS], nbt = 0, nm = 0, nn = 0, nk = 0;
  for (int j = 0; j < nloop; j++) {
    int out = j < nouter;
    if (in[0][j] && in[1][j] && out) bt[nbt++] = j;
    else if (in[0][j] && in[1][j]) ks[nk++] = j;
    else if (!out) return 0; /* summed within one operand */
    else if (in[0][j]) ms[nm++] = j;
    else if (in[1][j]) ns[nn++] = j;
    else return 0;
  }
  int64_t NB = 1, M = 1, N = 1, K = 1;
  for (int q = 0; q < nbt; q++) NB *= ldims[bt[q]];
  for (int q = 0; q < nm; q++) M *= ldims[ms[q]];
  for (int q = 0; q < nn; q++) N *= ldims[ns[q]];
  for (int q = 0; q < nk; q++) K *= ldims[ks[q]];
  /* a: (batch, m, k) from x0; b: (batch, k, n) from x1; in place when the
   * operands already are in that order (bij,bjk->bik) or in it with their
   * matrices transposed (bhid,bhjd->bhij's b) */
  int ta, tb;
  void *a = operand(c, src[0], es, ldims, st[0], bt, nbt, ms, nm, ks, nk, &ta);
  void *b = operand(c, src[1], es, ldims, st[1], bt, nbt, ks, nk, ns, nn, &tb);
  if (!a || !b) return ox_oom(c->err, NULL);
  /* y in output-label order: each output label's stride in r (batch, m, n);
   * when that is y's own order, the products are written straight into y */
  int64_t rs[MAXLABELS], str[MAXLABELS], s = 1;
  for (int q = nn - 1; q >= 0; q--) rs[ns[q]] = s, s *= ldims[ns[q]];
  for (int q = nm - 1; q >= 0; q--) rs[ms[q]] = s, s *= ldims[ms[q]];
  for (int q = nbt - 1; q >= 0; q--) rs[bt[q]] = s, s *= ldims[bt[q]];
  for (int j = 0; j < nouter; j++) str[j] = rs[j];
  int direct = in_order(nouter, ldims, str);
  void *r = direct ? y : ox_alloc_array(c->a, NB * M * N + 1, es);
  if (!r) return ox_oom(c->err, NULL);
  /* r = a b, product i at i M K in a (NB, M, K) or (NB, K, M) and at i K N in
   * b (NB, K, N) or (NB, N, K): through mm_run, which splits many small
   * products over the threads */
  mm_plan p = {.M = M, .N = N, .K = K, .nbatch = NB, .ta = ta, .tb = tb};
  p.aoff = ox_alloc_array(c->a, NB + 1, sizeof *p.aoff);
  p.boff = ox_alloc_array(c->a, NB + 1, sizeof *p.boff);
  if (!p.aoff || !p.boff) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < NB; i++) p.aoff[i] = i * M * K, p.boff[i] = i * K * N;
  ox_dtype dt = es == 4 ? OX_FLOAT : OX_DOUBLE;
  ox_tensor xa = {.dt = dt, .data = a}, xb = {.dt = dt, .data = b};
  OX_TRY(mm_run(c, &p, &xa, &xb, r));
  if (!direct) gather(y, r, es, nouter, ldims, str);
  *done = 1;
  return 0;
}

/* out = the einsum of nin operands x (their labels in terms) with output
 * labels ot, in x's dtype: native types compute in their own (integers wrap
 * in their width, floats accumulate in double in the general loop), small
 * floats come here widened to float. Sizes were checked by the caller. */
static int einsum_core(ox_ctx *c, int nin, const ox_tensor *const *x, const term *terms,
                       const term *ot, ox_value **out) {
  int64_t size[MAXLABELS];
  int count[MAXLABELS] = {0}, inout[MAXLABELS] = {0};
  for (int l = 0; l < MAXLABELS; l++) size[l] = 1;
  for (int i = 0; i < nin; i++)
    for (int k = 0; k < terms[i].nlab; k++) {
      int l = terms[i].lab[k];
      count[l]++;
      if (x[i]->dims[k] != 1) size[l] = x[i]->dims[k]; /* dims of 1 broadcast */
    }
  /* loop order: output labels, then the summed ones */
  int order[MAXLABELS], nloop = 0;
  for (int k = 0; k < ot->nlab; k++) {
    order[nloop++] = ot->lab[k];
    inout[ot->lab[k]] = 1;
  }
  int nouter = nloop;
  for (int l = 0; l < MAXLABELS; l++)
    if (count[l] && !inout[l]) order[nloop++] = l;
  int64_t ldims[MAXLABELS];
  for (int k = 0; k < nloop; k++) ldims[k] = size[order[k]];
  /* every path below writes all of y (a 1 MB memset was a tenth of a
   * (64, 64, 64) batched product), except a sum over nothing: zeros */
  OX_TRY(ox_tensor_new_uninit(c->a, x[0]->dt, nouter, ldims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  int64_t ninner = ox_numel(nloop - nouter, ldims + nouter, 0);
  if (y->n == 0) return 0;
  if (ninner < 0) return ox_fail(c->err, OX_EINPUT, "the sum for each output element has more than 2^63 terms");
  if (ninner == 0) { /* a sum over nothing */
    memset(y->data, 0, (size_t)y->n * ox_dtype_size(y->dt));
    return 0;
  }
  /* st[i][k]: input i's element stride along loop label k (repeated labels in
   * one term add up: a diagonal; broadcast dims of 1 get 0) */
  int64_t (*st)[MAXLABELS] = ox_alloc_array(c->a, nin, sizeof *st);
  int64_t *idx = ox_alloc_array(c->a, nloop + 1, sizeof *idx), *off = ox_alloc_array(c->a, nin, sizeof *off);
  const void **src = ox_alloc_array(c->a, nin, sizeof *src);
  if (!st || !idx || !off || !src) return ox_oom(c->err, NULL);
  for (int i = 0; i < nin; i++) {
    int64_t s = 1;
    for (int k = terms[i].nlab - 1; k >= 0; k--) {
      int l = terms[i].lab[k];
      for (int j = 0; j < nloop; j++)
        if (order[j] == l && x[i]->dims[k] != 1) st[i][j] += s;
      s *= x[i]->dims[k];
    }
    src[i] = x[i]->data;
  }
  ox_dtype dt = x[0]->dt;
  /* two float operands: a batched GEMM when the equation allows one */
  if (nin == 2 && (dt == OX_FLOAT || dt == OX_DOUBLE)) {
    int done = 0;
    OX_TRY(einsum_gemm(c, x, terms, nloop, nouter, order, ldims, (const int64_t(*)[MAXLABELS])st,
                       src, dt == OX_DOUBLE ? 8 : 4, y->data, &done));
    if (done) return 0;
  }
  /* y[o] = sum over the summed labels of prod_i x_i[off_i]: one odometer over
   * all loop labels, output labels outermost, so y is written in order */
#define EINSUM_LOOP(T, ACC)                                                           \
  do {                                                                                \
    T *Y = y->data;                                                                   \
    for (int64_t o = 0; o < y->n; o++) {                                              \
      ACC acc = 0;                                                                    \
      for (int64_t s = 0; s < ninner; s++) {                                          \
        ACC prod = 1;                                                                 \
        for (int i = 0; i < nin; i++) prod *= (ACC)((const T *)src[i])[off[i]];       \
        acc += prod;                                                                  \
        for (int k = nloop - 1; k >= 0; k--) {                                        \
          for (int i = 0; i < nin; i++) off[i] += st[i][k];                           \
          if (++idx[k] < ldims[k]) break;                                             \
          for (int i = 0; i < nin; i++) off[i] -= st[i][k] * ldims[k];                \
          idx[k] = 0;                                                                 \
        }                                                                             \
      }                                                                               \
      Y[o] = (T)acc;                                                                  \
    }                                                                                 \
  } while (0)
  switch (dt) {
  case OX_FLOAT: EINSUM_LOOP(float, double); break;
  case OX_DOUBLE: EINSUM_LOOP(double, double); break;
#define CASE(NAME, T, U)                                                              \
  case OX_##NAME: EINSUM_LOOP(T, U); break; /* wrap-around in U, stored as T */
    INT_ACC_TYPES(CASE)
#undef CASE
  default: return ox_fail(c->err, OX_EUNSUPPORTED, "Einsum of %s", ox_dtypes[dt].onnx_name);
  }
#undef EINSUM_LOOP
  return 0;
}

/* Einsum's state: its equation */
typedef struct {
  const char *eq;
} einsum_state;

static int einsum_load(ox_ctx *c, void **state) {
  einsum_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  st->eq = ox_attr_string(c, "equation", NULL);
  if (!st->eq) return ox_fail(c->err, OX_EINPUT, "attribute 'equation' is required");
  *state = st;
  return 0;
}

static int einsum(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const char *eq = ((const einsum_state *)c->state)->eq;
  const ox_tensor *x[64];
  if (nin > 64) return ox_fail(c->err, OX_EINPUT, "Einsum of more than 64 operands");
  for (int i = 0; i < nin; i++) {
    OX_TRY(ox_tensor_in(c, in, nin, i, &x[i]));
    OX_TRY(ox_same_dtype(c, i, x[i], x[0]->dt));
  }
  /* split "lhs->rhs" and the lhs terms at commas */
  const char *arrow = strstr(eq, "->"), *lhs_end = arrow ? arrow : eq + strlen(eq);
  term *terms = ox_alloc_array(c->a, nin + 1, sizeof *terms);
  if (!terms) return ox_oom(c->err, NULL);
  int nell = 0, nt = 0;
  for (const char *p = eq;; p++) {
    const char *comma = memchr(p, ',', (size_t)(lhs_end - p));
    const char *end = comma ? comma : lhs_end;
    if (nt < nin) {
      char what[32];
      snprintf(what, sizeof what, "term %d", nt);
      OX_TRY(parse_term(c, p, (size_t)(end - p), x[nt]->rank, &nell, &terms[nt], what));
    }
    nt++;
    if (!comma) break;
    p = comma;
  }
  if (nt != nin)
    return ox_fail(c->err, OX_EINPUT, "equation '%s' has %d terms for %d inputs", eq, nt, nin);
  /* ellipsis labels: an operand with e ellipsis dims uses the last e of nell */
  for (int i = 0; i < nin; i++)
    for (int k = 0; k < terms[i].nlab; k++)
      if (terms[i].lab[k] < 0) terms[i].lab[k] = NLETTERS + nell + terms[i].lab[k];
  /* label sizes must agree (ellipsis dims of 1 broadcast) */
  int64_t size[MAXLABELS];
  int count[MAXLABELS] = {0};
  for (int l = 0; l < MAXLABELS; l++) size[l] = -1;
  for (int i = 0; i < nin; i++)
    for (int k = 0; k < terms[i].nlab; k++) {
      int l = terms[i].lab[k];
      int64_t d = x[i]->dims[k];
      count[l]++;
      if (size[l] < 0 || (l >= NLETTERS && size[l] == 1)) size[l] = d;
      else if (d != size[l] && !(l >= NLETTERS && d == 1)) {
        if (l < NLETTERS)
          return ox_fail(c->err, OX_EINPUT, "equation: label '%c' is %lld in one place and %lld in "
                         "another (input %d)", l < 26 ? 'A' + l : 'a' + l - 26, (long long)size[l],
                         (long long)d, i);
        return ox_fail(c->err, OX_EINPUT, "equation: the ellipsis dims of input %d do not "
                       "broadcast with the others", i);
      }
    }
  /* output labels */
  term ot;
  if (arrow) {
    OX_TRY(parse_term(c, arrow + 2, strlen(arrow + 2), -1, &nell, &ot, "the output"));
    for (int k = 0; k < ot.nlab; k++) {
      if (ot.lab[k] < 0) ot.lab[k] = NLETTERS + nell + ot.lab[k];
      int l = ot.lab[k];
      if (l < NLETTERS && !count[l])
        return ox_fail(c->err, OX_EINPUT, "equation: output label '%c' is not in any input",
                       l < 26 ? 'A' + l : 'a' + l - 26);
      for (int j = 0; j < k; j++)
        if (ot.lab[j] == l)
          return ox_fail(c->err, OX_EINPUT, "equation: output label '%c' appears twice",
                         l < 26 ? 'A' + l : 'a' + l - 26);
    }
  } else { /* implicit: the ellipsis dims, then letters seen once, in ASCII order */
    ot.nlab = 0;
    for (int e = 0; e < nell; e++) ot.lab[ot.nlab++] = NLETTERS + e;
    for (int l = 0; l < NLETTERS; l++)
      if (count[l] == 1) ot.lab[ot.nlab++] = l;
  }
  ox_dtype dt = x[0]->dt;
  int small = ox_dtype_is_small_float(dt);
  ox_tensor *wide = NULL;
  if (small) { /* small floats compute in float, rounded once at the end */
    if (!(wide = ox_alloc_array(c->a, nin, sizeof *wide))) return ox_oom(c->err, NULL);
    for (int i = 0; i < nin; i++) {
      OX_TRY(ox_widen_tensor(c, x[i], &wide[i]));
      x[i] = &wide[i];
    }
  }
  /* three or more float operands: contract the first two into one operand
   * keeping the labels that the others or the output still need, and again,
   * so that each step is a (batched GEMM) product of two */
  ox_dtype ct = small ? OX_FLOAT : dt;
  int n = nin;
  while (n > 2 && (ct == OX_FLOAT || ct == OX_DOUBLE)) {
    term keep = {.nlab = 0};
    int seen[MAXLABELS] = {0};
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < terms[i].nlab; k++) {
        int l = terms[i].lab[k], needed = 0;
        for (int j = 2; j < n && !needed; j++)
          for (int q = 0; q < terms[j].nlab; q++) needed |= terms[j].lab[q] == l;
        for (int q = 0; q < ot.nlab; q++) needed |= ot.lab[q] == l;
        if (needed && !seen[l]) keep.lab[keep.nlab++] = l, seen[l] = 1;
      }
    ox_value *r;
    OX_TRY(einsum_core(c, 2, x, terms, &keep, &r));
    x[1] = &r->u.t;
    terms[1] = keep;
    for (int j = 1; j < n; j++) x[j - 1] = x[j], terms[j - 1] = terms[j];
    n--;
  }
  if (!small) return einsum_core(c, n, x, terms, &ot, out);
  ox_value *r;
  OX_TRY(einsum_core(c, n, x, terms, &ot, &r));
  OX_TRY(ox_tensor_new(c->a, dt, r->u.t.rank, r->u.t.dims, out, c->err));
  ox_narrow_f32(r->u.t.data, &(*out)->u.t);
  return 0;
}

/* The kernels onnxruntime's com.microsoft products run too (ops/twins.h). */
int ox_matmul_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) { return matmul(c, nin, in, nout, out); }
int ox_matmul_integer_prepared_k(ox_ctx *c, const void *state, int nin, ox_value **in, ox_value **out) {
  return matmul_integer_pp(c, nin, in, out, state ? ((const mmi_state *)state)->pp : NULL);
}
int ox_gemm_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) { return gemm(c, nin, in, nout, out); }

const ox_kernel ox_matmul_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "MatMul",         1, 0, OX_TS_FLOAT3, 2,  2, matmul, "", ox_matmul_load },
  { "", "MatMul",         9, 0, TS_MM9,       2,  2, matmul, "", ox_matmul_load },
  { "", "MatMul",        13, 0, TS_MM13,      2,  2, matmul, "", ox_matmul_load },
  /* broadcast attr */
  { "", "Gemm",           1, 0, OX_TS_FLOAT3, 3,  3, gemm,
    "alpha:float=1.0,beta:float=1.0,broadcast:int=0,transA:int=0,transB:int=0", ox_gemm_load },
  { "", "Gemm",           6, 0, OX_TS_FLOAT3, 3,  3, gemm, OX_ATTRS_OF(1), ox_gemm_load },
  { "", "Gemm",           7, 0, OX_TS_FLOAT3, 3,  3, gemm,
    "alpha:float=1.0,beta:float=1.0,transA:int=0,transB:int=0", ox_gemm_load }, /* numpy-style C */
  { "", "Gemm",           9, 0, TS_MM9,       3,  3, gemm, OX_ATTRS_OF(7), ox_gemm_load },
  { "", "Gemm",          11, 0, TS_MM9,       2,  3, gemm, OX_ATTRS_OF(7), ox_gemm_load }, /* C optional */
  { "", "Gemm",          13, 0, TS_MM13,      2,  3, gemm, OX_ATTRS_OF(7), ox_gemm_load },
  { "", "MatMulInteger", 10, 0, TS_I8,        2,  4, matmul_integer, "", ox_matmul_integer_load },
  { "", "Einsum",        12, 0, TS_EINSUM,    1, -1, einsum, "equation:string:required", einsum_load },
  { "", "Det",           11, 0, OX_TS_FLOAT3, 1,  1, det, "" },
  { "", "Det",           22, 0, OX_TS_FLOAT4, 1,  1, det, "" },
  {0},
};
