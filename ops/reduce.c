/* ops/reduce.c: the reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin,
 * ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
 * ReduceSumSquare), ArgMax and ArgMin, and the softmax family (Softmax,
 * LogSoftmax, Hardmax).
 *
 * Reductions: adjacent dims that are both reduced or both kept are merged
 * (dims of 1 dropped), so x is a row-major walk over `runs` contiguous runs of
 * the last merged group. Each output element owns one 8-byte accumulator; one
 * pass over x adds every run into them: a reduced run folds into a scalar, a
 * kept run adds elementwise into a row of accumulators. An odometer over the
 * outer groups gives each run's accumulator offset, so no element pays a
 * div/mod. Each op is written once as (accumulator type, init, accumulate,
 * finish) and expanded per type with the lists of core/kernel.h:
 *   floats accumulate in double; signed ints in int64 and unsigned ints in
 *   uint64, wrapping as numpy's sum in the type's own width does; the
 *   non-integral ops (L2, LogSum, LogSumExp) accumulate in double for every
 *   type. Small floats are widened to float once and narrowed once on store. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif
#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"

/* ---- float fast paths over contiguous rows, vectorised ----
 * Written once with GCC vector extensions (16 float lanes) and built three
 * times: portable (SSE2 on x86-64), AVX2+FMA and AVX-512, the best the CPU has
 * (ox_cpu_level) picked at run time, as core/gemm.c does. sum_row folds a run of floats
 * (ReduceSum/Mean over the last dims): 64 float lanes over blocks of 1024
 * elements, each block folded into a double; soft_rows is Softmax/LogSoftmax
 * of contiguous rows (attention's of 128 to 200, in one call) with a
 * polynomial expf (Cephes' expf, about 1 ulp). soft_row_ref is a row's
 * arithmetic as first written; soft_rows' AVX-512 path gives its bits for
 * every input by cheaper means (reduce_rows.h says which and why they are
 * the same). */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi" /* 64-byte vectors by value in inline helpers */
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi" /* 64-byte vectors by value in inline helpers */
/* multiply-adds fused where the target has FMA (the polynomial); clang fuses
 * within an expression by default */
#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast")
#endif
typedef float vf __attribute__((vector_size(64)));
typedef int32_t vi __attribute__((vector_size(64)));
typedef float vfu __attribute__((vector_size(64), aligned(4), may_alias)); /* unaligned */
#define VL 16
typedef float vf8 __attribute__((vector_size(32)));
typedef double vd8 __attribute__((vector_size(64)));
typedef float vf4 __attribute__((vector_size(16)));
typedef int32_t vi4 __attribute__((vector_size(16)));

/* Macros, not functions: a 64-byte vector passed to or returned from a
 * function built for another target changes the ABI (clang refuses it). */
#define vload(p) (*(const vfu *)(p))
#define vstore(p, v) (*(vfu *)(p) = (v))
#define vsel(m, a, b) ((vf)(((vi)(a) & (m)) | ((vi)(b) & ~(m))))
#define vsplat(f) ((vf){0} + (f))

/* The row functions (ops/reduce_rows.h), once per target: sum_row_generic,
 * sum_row_avx2, sum_row_avx512 ... */
#define FN(name) name##_generic
#define TARGET
#define ROWS_ISA 0
#include "reduce_rows.h"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FN(name) name##_avx2
#define TARGET __attribute__((target("avx2,fma")))
#define ROWS_ISA 1
#include "reduce_rows.h"
#define FN(name) name##_avx512
#define TARGET __attribute__((target("avx512f,avx2,fma")))
#define ROWS_ISA 2
#define WIDE_CMP /* 16 floats compared at once (reduce_rows.h's vgt) */
/* gcc 12 makes four instructions of __builtin_convertvector's 8 floats to
 * 8 doubles here: vcvtps2pd's one */
#define TO_D8(v) ((vd8)_mm512_cvtps_pd((__m256)(v)))
#include "reduce_rows.h"
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ROW_CALL(fn, ...)                                                            \
  (ox_cpu_level() == OX_CPU_AVX512 ? fn##_avx512(__VA_ARGS__)                        \
   : ox_cpu_level() == OX_CPU_AVX2  ? fn##_avx2(__VA_ARGS__)                          \
                                    : fn##_generic(__VA_ARGS__))
#else
#define ROW_CALL(fn, ...) fn##_generic(__VA_ARGS__)
#endif

/* ---- scalar helpers, picked per accumulator type with _Generic ---- */

static inline int64_t add_i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline uint64_t add_u(uint64_t a, uint64_t b) { return a + b; }
static inline double add_d(double a, double b) { return a + b; }
static inline int64_t mul_i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static inline uint64_t mul_u(uint64_t a, uint64_t b) { return a * b; }
static inline double mul_d(double a, double b) { return a * b; }
static inline int64_t abs_i(int64_t a) { return a < 0 ? (int64_t)(0 - (uint64_t)a) : a; }
static inline uint64_t abs_u(uint64_t a) { return a; }
static inline double abs_d(double a) { return fabs(a); }
static inline int nan_f(float v) { return v != v; }
static inline int nan_d(double v) { return v != v; }
static inline int nan_i(int64_t v) { (void)v; return 0; }

/* Wrapping integer arithmetic (signed overflow would be undefined). */
#define ADD(a, b) _Generic((a), int64_t: add_i, uint64_t: add_u, default: add_d)(a, b)
#define MUL(a, b) _Generic((a), int64_t: mul_i, uint64_t: mul_u, default: mul_d)(a, b)
#define ABS(a) _Generic((a), int64_t: abs_i, uint64_t: abs_u, default: abs_d)(a)
#define ISNAN(v) _Generic((v), float: nan_f, double: nan_d, default: nan_i)(v)

/* The lowest and highest value of T: the identities of Max and Min (-inf and
 * +inf for floats, the type's min and max for integers). */
#define LOWEST(T)                                                                    \
  _Generic((T)0, float: -INFINITY, double: -INFINITY, int8_t: INT8_MIN,              \
           int16_t: INT16_MIN, int32_t: INT32_MIN, int64_t: INT64_MIN, default: 0)
#define HIGHEST(T)                                                                   \
  _Generic((T)0, float: INFINITY, double: INFINITY, int8_t: INT8_MAX,                \
           int16_t: INT16_MAX, int32_t: INT32_MAX, int64_t: INT64_MAX,               \
           uint8_t: UINT8_MAX, uint16_t: UINT16_MAX, uint32_t: UINT32_MAX,           \
           uint64_t: UINT64_MAX)

/* A double result stored into an integer type saturates (NaN gives 0) rather
 * than being undefined. */
static inline int64_t d2i(double d) {
  return d != d ? 0 : d <= -0x1p63 ? INT64_MIN : d >= 0x1p63 ? INT64_MAX : (int64_t)d;
}
static inline uint64_t d2u(double d) {
  return d != d || d <= 0 ? 0 : d >= 0x1p64 ? UINT64_MAX : (uint64_t)d;
}
/* Store v (an accumulator or a double result) as a T. */
#define STORE(T, v)                                                                  \
  _Generic((v), double: _Generic((T)0, float: (T)(v), double: (T)(v),                \
                                 uint64_t: (T)d2u(v), default: (T)d2i(v)),           \
           default: (T)(v))

/* ---- the reductions: (accumulator type, init, accumulate, finish) ----
 * A: the type's accumulator (double, int64 or uint64); a: the accumulator; v:
 * an element as an A; n: the number of elements reduced into a; m: the
 * per-output maximum of LogSumExp's first pass. COMB(a, b) merges two partial
 * accumulators (a reduced run is folded into four, to break the dependency
 * chain). */
#define SUM_ACCT(A) A
#define SUM_INIT(T) 0
#define SUM_ACC(a, v, m) ADD(a, v)
#define SUM_COMB(a, b) ADD(a, b)
#define SUM_FIN(a, n, m) (a)

/* Mean over an empty set is undefined (numpy: NaN); integers give 0. */
#define MEAN_ACCT(A) A
#define MEAN_INIT(T) 0
#define MEAN_ACC(a, v, m) ADD(a, v)
#define MEAN_COMB(a, b) ADD(a, b)
#define MEAN_FIN(a, n, m) ((n) ? (a) / (n) : _Generic((a), double: NAN, default: 0))

/* NaN propagates, as numpy's maximum does. */
#define MAX_ACCT(A) A
#define MAX_INIT(T) LOWEST(T)
#define MAX_ACC(a, v, m) ((v) > (a) || ISNAN(v) ? (v) : (a))
#define MAX_COMB(a, b) MAX_ACC(a, b, 0)
#define MAX_FIN(a, n, m) (a)

#define MIN_ACCT(A) A
#define MIN_INIT(T) HIGHEST(T)
#define MIN_ACC(a, v, m) ((v) < (a) || ISNAN(v) ? (v) : (a))
#define MIN_COMB(a, b) MIN_ACC(a, b, 0)
#define MIN_FIN(a, n, m) (a)

#define PROD_ACCT(A) A
#define PROD_INIT(T) 1
#define PROD_ACC(a, v, m) MUL(a, v)
#define PROD_COMB(a, b) MUL(a, b)
#define PROD_FIN(a, n, m) (a)

#define L1_ACCT(A) A
#define L1_INIT(T) 0
#define L1_ACC(a, v, m) ADD(a, ABS(v))
#define L1_COMB(a, b) ADD(a, b)
#define L1_FIN(a, n, m) (a)

#define SUMSQ_ACCT(A) A
#define SUMSQ_INIT(T) 0
#define SUMSQ_ACC(a, v, m) ADD(a, MUL(v, v))
#define SUMSQ_COMB(a, b) ADD(a, b)
#define SUMSQ_FIN(a, n, m) (a)

#define L2_ACCT(A) double
#define L2_INIT(T) 0
#define L2_ACC(a, v, m) ((a) + (v) * (v))
#define L2_COMB(a, b) ((a) + (b))
#define L2_FIN(a, n, m) sqrt(a)

/* An empty set gives log(0) = -inf, as the spec says. */
#define LOGSUM_ACCT(A) double
#define LOGSUM_INIT(T) 0
#define LOGSUM_ACC(a, v, m) ((a) + (v))
#define LOGSUM_COMB(a, b) ((a) + (b))
#define LOGSUM_FIN(a, n, m) log(a)

/* log(sum(exp(v - m))) + m, m the largest finite element (0 if none); an
 * empty set gives log(0) = -inf. */
#define LSE_ACCT(A) double
#define LSE_INIT(T) 0
#define LSE_ACC(a, v, m) ((a) + exp((v) - (m)))
#define LSE_COMB(a, b) ((a) + (b))
#define LSE_FIN(a, n, m) (log(a) + (m))
/* LogSumExp's first pass: the maximum over the finite elements (NaN kept). */
#define FMAX_ACC(a, v, m) (ISNAN(v) || (!isinf(v) && (v) > (a)) ? (v) : (a))
#define FMAX_COMB(a, b) FMAX_ACC(a, b, 0)

#define REDUCE_OPS(X) X(SUM) X(MEAN) X(MAX) X(MIN) X(PROD) X(L1) X(L2) X(LOGSUM) X(LSE) X(SUMSQ)

enum {
#define ENUM(OP) R_##OP,
  REDUCE_OPS(ENUM)
#undef ENUM
};

/* x: (d0, ..., d[r-1]) merged into groups of alternating reduced/kept dims;
 * the last group is the contiguous run. */
typedef struct {
  int ng;           /* groups */
  int64_t *dim;     /* per group: its size */
  int64_t *ost;     /* per group: output stride (0 for a reduced group) */
  int64_t *idx;     /* odometer over groups 0..ng-2 */
  int64_t runs, len; /* x is `runs` runs of `len` elements */
  int red_last;     /* the run is reduced */
  int64_t out_n;    /* output elements */
  int64_t count;    /* elements reduced into each output element */
} plan;

/* The accumulator offset of the next run. */
static inline int64_t next_run(plan *p, int64_t yo) {
  for (int g = p->ng - 2; g >= 0; g--) {
    yo += p->ost[g];
    if (++p->idx[g] < p->dim[g]) return yo;
    yo -= p->ost[g] * p->dim[g];
    p->idx[g] = 0;
  }
  return yo;
}

/* acc[o] = ACC(acc[o], x) over every element x reduced into output o. */
#define PASS(T, A, ACC, COMB, INIT, acc, aux, FAST)                                 \
  do {                                                                               \
    memset(p->idx, 0, (size_t)p->ng * sizeof *p->idx);                               \
    int64_t yo = 0, len = p->len;                                                    \
    if ((FAST) && !p->red_last && p->ng == 2) { /* (reduced, kept): one acc row */   \
      ROW_CALL(add_rows, (double *)acc, (const float *)x, p->runs, len);             \
      break;                                                                         \
    }                                                                                \
    for (int64_t r = 0; r < p->runs; r++, yo = next_run(p, yo)) {                    \
      const T *xr = x + r * len;                                                     \
      if ((FAST) && p->red_last) { /* float sums: vectorised, in double */           \
        acc[yo] = (A)((double)acc[yo] + ROW_CALL(sum_row, (const float *)xr, len));  \
      } else if (p->red_last) { /* fold the run into one accumulator, in four parts */ \
        A a0 = acc[yo], a1 = (A)(INIT), a2 = a1, a3 = a1;                            \
        int64_t j = 0;                                                               \
        for (; j + 4 <= len; j += 4) {                                               \
          A v0 = (A)xr[j], v1 = (A)xr[j + 1], v2 = (A)xr[j + 2], v3 = (A)xr[j + 3];  \
          a0 = ACC(a0, v0, aux[yo]);                                                 \
          a1 = ACC(a1, v1, aux[yo]);                                                 \
          a2 = ACC(a2, v2, aux[yo]);                                                 \
          a3 = ACC(a3, v3, aux[yo]);                                                 \
        }                                                                            \
        for (; j < len; j++) {                                                       \
          A v = (A)xr[j];                                                            \
          a0 = ACC(a0, v, aux[yo]);                                                  \
        }                                                                            \
        a0 = COMB(a0, a1);                                                           \
        a2 = COMB(a2, a3);                                                           \
        acc[yo] = COMB(a0, a2);                                                      \
      } else if (FAST) { /* float sums over leading dims: a row at a time */       \
        ROW_CALL(add_row, (double *)(acc + yo), (const float *)xr, len);             \
      } else { /* add the run into a row of accumulators */                          \
        A *ar = acc + yo;                                                            \
        for (int64_t j = 0; j < len; j++) {                                          \
          A v = (A)xr[j];                                                            \
          ar[j] = ACC(ar[j], v, aux[yo + j]);                                        \
        }                                                                            \
      }                                                                              \
    }                                                                                \
  } while (0)

/* One op for the type T_ (accumulator A_) of the enclosing function. */
#define OP_CASE(OP)                                                                  \
  case R_##OP: {                                                                     \
    typedef OP##_ACCT(A_) acc_t;                                                     \
    acc_t *acc = accv;                                                               \
    double *aux = auxv;                                                              \
    for (int64_t i = 0; i < p->out_n; i++) acc[i] = (acc_t)OP##_INIT(T_);            \
    if (R_##OP == R_LSE) {                                                           \
      for (int64_t i = 0; i < p->out_n; i++) aux[i] = -INFINITY;                     \
      PASS(T_, double, FMAX_ACC, FMAX_COMB, -INFINITY, aux, aux, 0);               \
      for (int64_t i = 0; i < p->out_n; i++)                                         \
        if (isinf(aux[i])) aux[i] = 0; /* no finite element */                       \
    }                                                                                \
    PASS(T_, acc_t, OP##_ACC, OP##_COMB, OP##_INIT(T_), acc, aux,                  \
         _Generic((T_)0, float: 1, default: 0) && (R_##OP == R_SUM || R_##OP == R_MEAN)); \
    for (int64_t i = 0; i < p->out_n; i++)                                           \
      y[i] = STORE(T_, OP##_FIN(acc[i], p->count, aux[i]));                          \
  } break;

/* reduce_<NAME>(op, ...): every op for one type. */
#define TYPE_FN(NAME, T, A)                                                          \
  static void reduce_##NAME(int op, plan *p, const void *xv, void *yv, void *accv,  \
                            void *auxv) {                                            \
    typedef T T_;                                                                    \
    typedef A A_;                                                                    \
    const T_ *x = xv;                                                                \
    T_ *y = yv;                                                                      \
    switch (op) { REDUCE_OPS(OP_CASE) }                                              \
  }
#define FLOAT_FN(NAME, T) TYPE_FN(NAME, T, double)
#define SINT_FN(NAME, T) TYPE_FN(NAME, T, int64_t)
#define UINT_FN(NAME, T) TYPE_FN(NAME, T, uint64_t)
OX_NATIVE_FLOATS(FLOAT_FN)
OX_NATIVE_SINTS(SINT_FN)
OX_NATIVE_UINTS(UINT_FN)

/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hooks of this file keep for a node: the attributes its
 * op-version declares, each with its default where the node leaves it out. */
typedef struct {
  int keepdims, noop, select_last, has_axes;
  int64_t axis, naxes;
  const int64_t *axes; /* the axes attribute (NULL: absent) */
} reduce_state;

static int new_state(ox_ctx *c, void **state) {
  reduce_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->keepdims = ox_attr_int(c, "keepdims", 1) != 0;
  return 0;
}

/* the reductions */
static int reduce_load(ox_ctx *c, void **state) {
  OX_TRY(new_state(c, state));
  reduce_state *st = *state;
  st->has_axes = ox_attr_find(c, "axes") != NULL;
  st->axes = ox_attr_ints(c, "axes", &st->naxes);
  st->noop = ox_attr_int(c, "noop_with_empty_axes", 0) != 0;
  return 0;
}

/* ArgMax, ArgMin */
static int arg_load(ox_ctx *c, void **state) {
  OX_TRY(new_state(c, state));
  reduce_state *st = *state;
  st->axis = ox_attr_int(c, "axis", 0);
  st->select_last = c->version >= 12 ? ox_attr_int(c, "select_last_index", 0) != 0 : 0;
  return 0;
}

/* Softmax, LogSoftmax, Hardmax: axis 1 before opset 13, -1 from 13 */
static int softmax_load(ox_ctx *c, void **state) {
  OX_TRY(new_state(c, state));
  ((reduce_state *)*state)->axis = ox_attr_int(c, "axis", c->version >= 13 ? -1 : 1);
  return 0;
}

/* ---- axes ---- */

/* Which of x's `rank` dims are reduced (red[d] = 1): from the `axes`
 * attribute before opset 18 (ReduceSum: 13), from input 1 after. No axes, or
 * empty ones, mean all dims, or none when noop_with_empty_axes is set. */
static int get_axes(ox_ctx *c, int nin, ox_value **in, int rank, int axes_input,
                    uint8_t *red) {
  const reduce_state *st = c->state;
  const int64_t *axes = NULL;
  int64_t n = -1;
  int noop = 0;
  if (axes_input) {
    if (st->has_axes)
      return ox_fail(c->err, OX_EINPUT, "attribute 'axes' is not allowed from this version on; "
                     "axes are input 1");
    noop = st->noop;
    if (nin > 1 && in[1]) {
      int64_t *v;
      OX_TRY(ox_ints_of(c, 1, in[1], &v, &n));
      axes = v;
    }
  } else {
    axes = st->axes, n = st->naxes;
  }
  if (n <= 0) { /* absent or empty */
    memset(red, !noop, (size_t)rank);
    return 0;
  }
  memset(red, 0, (size_t)rank);
  for (int64_t i = 0; i < n; i++) {
    int d;
    OX_TRY(ox_axis(c, axes[i], rank, 0, "axis", &d));
    if (red[d])
      return ox_fail(c->err, OX_EINPUT, "axis %lld appears twice in axes (dim %d)",
                     (long long)axes[i], d);
    red[d] = 1;
  }
  return 0;
}

/* The output shape, and the merged view of x. */
static int make_plan(ox_ctx *c, const ox_tensor *x, const uint8_t *red, int keepdims,
                     plan *p, int *orank, int64_t *odims) {
  int r = x->rank;
  p->dim = ox_alloc_array(c->a, r + 1, sizeof *p->dim);
  p->ost = ox_alloc_array(c->a, r + 1, sizeof *p->ost);
  p->idx = ox_alloc_array(c->a, r + 1, sizeof *p->idx);
  uint8_t *gred = ox_alloc_array(c->a, r + 1, 1);
  if (!p->dim || !p->ost || !p->idx || !gred) return ox_oom(c->err, NULL);
  int ng = 0, k = 0;
  if (!x->n) {
    /* Nothing to walk, and the dims may multiply beyond int64 ((2^62, 2^62,
     * 0)): a non-empty output reduces the zero dim (count 0) and is only
     * initialised; ox_tensor_new refuses one too large. */
    for (int d = 0; d < r; d++)
      if (!red[d] || keepdims) odims[k++] = red[d] ? 1 : x->dims[d];
    *orank = k;
    p->dim[0] = 1;
    p->ost[0] = 1;
    p->ng = 1;
    p->out_n = ox_numel(k, odims, 0) > 0 ? ox_numel(k, odims, 0) : 0;
    p->count = 0;
    p->len = 1;
    p->red_last = 0;
    p->runs = 0;
    return 0;
  }
  p->count = 1;
  for (int d = 0; d < r; d++) {
    if (red[d]) p->count *= x->dims[d];
    if (!red[d] || keepdims) odims[k++] = red[d] ? 1 : x->dims[d];
    if (x->dims[d] == 1) continue;
    if (ng && gred[ng - 1] == red[d]) p->dim[ng - 1] *= x->dims[d];
    else p->dim[ng] = x->dims[d], gred[ng++] = red[d];
  }
  *orank = k;
  if (!ng) p->dim[0] = 1, gred[0] = 0, ng = 1;
  int64_t s = 1;
  for (int g = ng - 1; g >= 0; g--) {
    p->ost[g] = gred[g] ? 0 : s;
    if (!gred[g]) s *= p->dim[g];
  }
  p->ng = ng;
  p->out_n = s;
  p->len = p->dim[ng - 1];
  p->red_last = gred[ng - 1];
  p->runs = x->n ? x->n / p->len : 0;
  return 0;
}

static void reduce_native(ox_dtype dt, int op, plan *p, const void *x, void *y, void *acc,
                          void *aux) {
  switch (dt) {
#define CASE(NAME, T) case OX_##NAME: reduce_##NAME(op, p, x, y, acc, aux); break;
    OX_NATIVE_TYPES(CASE)
#undef CASE
  case OX_BOOL: reduce_UINT8(op, p, x, y, acc, aux); break; /* Max and Min only */
  default: break;
  }
}

/* A reduction split for ox_par_for, when the outermost group is kept: each
 * chunk is a range of its indices, a sub-plan over that slab of x with its
 * thread's (slot's) odometer. Each output element sees the same runs in the same order as
 * in one pass, so every thread count gives the same bytes. */
typedef struct {
  ox_dtype dt;
  int op;
  const plan *p;
  const char *x;
  char *y, *acc, *aux;
  size_t xes, yes;
  int64_t **dim, **idx; /* per thread (slot) */
} reduce_job;

static void reduce_chunk(void *arg, int ch, int64_t lo, int64_t hi) {
  const reduce_job *j = arg;
  plan q = *j->p;
  int64_t xstep = q.runs / q.dim[0] * q.len, ystep = q.ost[0]; /* per index of group 0 */
  q.dim = j->dim[ch];
  q.idx = j->idx[ch];
  memcpy(q.dim, j->p->dim, (size_t)q.ng * sizeof *q.dim);
  q.dim[0] = hi - lo;
  q.runs = q.runs / j->p->dim[0] * (hi - lo);
  q.out_n = ystep * (hi - lo);
  reduce_native(j->dt, j->op, &q, j->x + (size_t)(lo * xstep) * j->xes,
                j->y + (size_t)(lo * ystep) * j->yes, j->acc + (size_t)(lo * ystep) * 8,
                j->aux + (size_t)(lo * ystep) * 8);
}

/* reduce_native, over the thread pool when x is large and its outermost
 * group is kept (dim 0 of a ReduceSum over axis 1, say). */
static int reduce_par(ox_ctx *c, ox_dtype dt, int op, plan *p, const void *x, void *y,
                      void *acc, void *aux) {
  int nch = p->ng >= 2 && p->ost[0] ? ox_par_chunks(c->threads, p->dim[0], (double)p->runs * (double)p->len) : 1;
  if (nch <= 1) {
    reduce_native(dt, op, p, x, y, acc, aux);
    return 0;
  }
  reduce_job j = {dt, op, p, x, y, acc, aux, dt == OX_BOOL ? 1 : ox_dtype_size(dt),
                  dt == OX_BOOL ? 1 : ox_dtype_size(dt), NULL, NULL};
  j.dim = ox_alloc_array(c->a, nch, sizeof *j.dim);
  j.idx = ox_alloc_array(c->a, nch, sizeof *j.idx);
  if (!j.dim || !j.idx) return ox_oom(c->err, NULL);
  for (int ch = 0; ch < nch; ch++)
    if (!(j.dim[ch] = ox_alloc_array(c->a, p->ng, sizeof **j.dim)) ||
        !(j.idx[ch] = ox_alloc_array(c->a, p->ng, sizeof **j.idx)))
      return ox_oom(c->err, NULL);
  ox_par_for(p->dim[0], nch, reduce_chunk, &j);
  return 0;
}

static int reduce(ox_ctx *c, int nin, ox_value **in, ox_value **out, int op, int axes_input) {
  const ox_tensor *x = &in[0]->u.t; /* x: (d0, ..., d[r-1]) */
  int r = x->rank, orank = 0;
  int64_t keepdims = ((const reduce_state *)c->state)->keepdims;
  uint8_t *red = ox_alloc_array(c->a, r + 1, 1);
  int64_t *odims = ox_alloc_array(c->a, r + 1, sizeof *odims);
  if (!red || !odims) return ox_oom(c->err, NULL);
  OX_TRY(get_axes(c, nin, in, r, axes_input, red));
  plan p;
  OX_TRY(make_plan(c, x, red, keepdims != 0, &p, &orank, odims));
  /* y: x's shape with the reduced dims set to 1 (keepdims) or dropped */
  OX_TRY(ox_tensor_new(c->a, x->dt, orank, odims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  void *acc = ox_alloc_array(c->a, p.out_n + 1, 8), *aux = ox_alloc_array(c->a, p.out_n + 1, 8);
  if (!acc || !aux) return ox_oom(c->err, NULL);
  if (ox_dtype_is_small_float(x->dt)) { /* in float, rounded once on store */
    float *xf = ox_widen_f32(c->a, x, c->err);
    float *yf = ox_alloc_array(c->a, y->n + 1, sizeof *yf);
    if (!xf) return c->err->code;
    if (!yf) return ox_oom(c->err, NULL);
    OX_TRY(reduce_par(c, OX_FLOAT, op, &p, xf, yf, acc, aux));
    ox_narrow_f32(yf, y);
  } else {
    OX_TRY(reduce_par(c, x->dt, op, &p, x->data, y->data, acc, aux));
  }
  /* bool (Max/Min-20): Min over an empty set is True, not uint8's 255 */
  if (x->dt == OX_BOOL && op == R_MIN && p.count == 0) memset(y->data, 1, (size_t)y->n);
  return 0;
}

/* Axes come from input 1 from opset 18 (ReduceSum: 13); c->version is the
 * row's since-version. */
#define REDUCE_KERNEL(fn, OP, AXES_INPUT_FROM)                                       \
  static int fn(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {       \
    return reduce(c, nin, in, out, R_##OP, c->version >= AXES_INPUT_FROM);           \
  }
REDUCE_KERNEL(reduce_sum, SUM, 13)
REDUCE_KERNEL(reduce_mean, MEAN, 18)
REDUCE_KERNEL(reduce_max, MAX, 18)
REDUCE_KERNEL(reduce_min, MIN, 18)
REDUCE_KERNEL(reduce_prod, PROD, 18)
REDUCE_KERNEL(reduce_l1, L1, 18)
REDUCE_KERNEL(reduce_l2, L2, 18)
REDUCE_KERNEL(reduce_log_sum, LOGSUM, 18)
REDUCE_KERNEL(reduce_log_sum_exp, LSE, 18)
REDUCE_KERNEL(reduce_sum_square, SUMSQ, 18)

/* ---- ArgMax, ArgMin ---- */

/* Is v a better pick than the current best b? NaN counts as the extreme (as
 * numpy's argmax/argmin); `last` picks the last of equal values. */
#define ARG_BETTER(CMP, v, b, last)                                                  \
  (ISNAN(v) ? ((last) || !ISNAN(b)) : !ISNAN(b) && ((v)CMP(b) || ((last) && (v) == (b))))

#define ARG_CASE(NAME, T)                                                            \
  case OX_##NAME: {                                                                  \
    const T *x = xv;                                                                 \
    T *best = bestv;                                                                 \
    for (int64_t o = 0; o < outer; o++) {                                            \
      const T *xo = x + o * d * inner;                                               \
      int64_t *yo = y + o * inner;                                                   \
      for (int64_t j = 0; j < inner; j++) best[j] = xo[j], yo[j] = 0;                \
      for (int64_t k = 1; k < d; k++) {                                              \
        const T *xk = xo + k * inner;                                                \
        if (is_max) {                                                                \
          for (int64_t j = 0; j < inner; j++)                                        \
            if (ARG_BETTER(>, xk[j], best[j], last)) best[j] = xk[j], yo[j] = k;     \
        } else {                                                                     \
          for (int64_t j = 0; j < inner; j++)                                        \
            if (ARG_BETTER(<, xk[j], best[j], last)) best[j] = xk[j], yo[j] = k;     \
        }                                                                            \
      }                                                                              \
    }                                                                                \
  } break;

/* x: (outer, d, inner) -> y: (outer, inner), the index along d. */
static void arg_native(ox_dtype dt, int is_max, int last, const void *xv, int64_t *y,
                       int64_t outer, int64_t d, int64_t inner, void *bestv) {
  switch (dt) {
    OX_NATIVE_TYPES(ARG_CASE)
  default: break;
  }
}

/* The (outer, d, inner) view of x around `axis`. An empty x has outer and
 * inner 0 (its other dims may multiply beyond int64: (2^62, 2^62, 0)), and
 * nothing to walk. */
static void split_at(const ox_tensor *x, int axis, int64_t *outer, int64_t *d, int64_t *inner) {
  *outer = *inner = x->n ? 1 : 0;
  for (int i = 0; i < axis && x->n; i++) *outer *= x->dims[i];
  *d = axis < x->rank ? x->dims[axis] : 1;
  for (int i = axis + 1; i < x->rank && x->n; i++) *inner *= x->dims[i];
}

static int arg_reduce(ox_ctx *c, ox_value **in, ox_value **out, int is_max) {
  const ox_tensor *x = &in[0]->u.t;
  const reduce_state *st = c->state;
  int64_t axis_attr = st->axis, keepdims = st->keepdims, last = st->select_last;
  int r = x->rank, axis;
  if (r == 0) return ox_fail(c->err, OX_EINPUT, "the input is a scalar; it has no axis to search");
  OX_TRY(ox_axis(c, axis_attr, r, 0, "axis", &axis));
  int64_t outer, d, inner, *odims = ox_alloc_array(c->a, r, sizeof *odims);
  if (!odims) return ox_oom(c->err, NULL);
  split_at(x, axis, &outer, &d, &inner);
  int k = 0;
  for (int i = 0; i < r; i++)
    if (i != axis || keepdims) odims[k++] = i == axis ? 1 : x->dims[i];
  /* y: x's shape with dim `axis` set to 1 (keepdims) or dropped */
  OX_TRY(ox_tensor_new(c->a, OX_INT64, k, odims, &out[0], c->err));
  if (!out[0]->u.t.n) return 0;
  if (d == 0)
    return ox_fail(c->err, OX_EINPUT, "axis %d has size 0; there is no element to pick", axis);
  void *best = ox_alloc_array(c->a, inner, 8);
  if (!best) return ox_oom(c->err, NULL);
  const void *xd = x->data;
  ox_dtype dt = x->dt;
  if (ox_dtype_is_small_float(dt)) {
    if (!(xd = ox_widen_f32(c->a, x, c->err))) return c->err->code;
    dt = OX_FLOAT;
  }
  arg_native(dt, is_max, last != 0, xd, out[0]->u.t.data, outer, d, inner, best);
  return 0;
}

static int argmax(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return arg_reduce(c, in, out, 1);
}
static int argmin(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return arg_reduce(c, in, out, 0);
}

/* ---- Softmax, LogSoftmax, Hardmax ---- */

enum { SOFTMAX, LOGSOFTMAX, HARDMAX };

/* exp in T's own precision (expf for float: the output is float anyway). */
#define EXP(v) _Generic((v), float: expf, default: exp)(v)

/* x, y: (outer, d, inner); m, s: (inner) scratch: the maximum (exact in T)
 * and the sum of exp(x - m) (in double). */
#define SOFT_CASE(NAME, T)                                                           \
  case OX_##NAME: {                                                                  \
    const T *x = xv;                                                                 \
    T *y = yv;                                                                       \
    for (int64_t o = 0; o < outer; o++) {                                            \
      const T *xo = x + o * d * inner;                                               \
      T *yo = y + o * d * inner;                                                     \
      if (kind == HARDMAX) { /* 1 at the first maximum, as ArgMax */                 \
        for (int64_t j = 0; j < inner; j++) m[j] = xo[j], s[j] = 0;                  \
        for (int64_t k = 1; k < d; k++)                                              \
          for (int64_t j = 0; j < inner; j++)                                        \
            if (ARG_BETTER(>, (double)xo[k * inner + j], m[j], 0))                   \
              m[j] = xo[k * inner + j], s[j] = (double)k;                            \
        for (int64_t k = 0; k < d; k++)                                              \
          for (int64_t j = 0; j < inner; j++) yo[k * inner + j] = (T)(s[j] == (double)k); \
        continue;                                                                    \
      }                                                                              \
      if (inner == 1 && _Generic((T)0, float: 1, default: 0)) { /* every row at once */ \
        ROW_CALL(soft_rows, (const float *)xo, (float *)yo, outer - o, d, kind == LOGSOFTMAX); \
        break;                                                                       \
      }                                                                              \
      if (_Generic((T)0, float: 1, default: 0)) { /* m's doubles hold inner floats */ \
        ROW_CALL(soft_cols, (const float *)xo, (float *)yo, d, inner, (float *)m, s,  \
                 kind == LOGSOFTMAX);                                                \
        continue;                                                                    \
      }                                                                              \
      for (int64_t j = 0; j < inner; j++) m[j] = -INFINITY, s[j] = 0;                \
      for (int64_t k = 0; k < d; k++)                                                \
        for (int64_t j = 0; j < inner; j++) m[j] = MAX_ACC(m[j], (double)xo[k * inner + j], 0); \
      for (int64_t k = 0; k < d; k++)                                                \
        for (int64_t j = 0; j < inner; j++) {                                        \
          T e = EXP((T)(xo[k * inner + j] - (T)m[j]));                               \
          s[j] += e;                                                                 \
          if (kind == SOFTMAX) yo[k * inner + j] = e;                                \
        }                                                                            \
      /* softmax: e / s; log-softmax: x - (m + log s) */                            \
      for (int64_t j = 0; j < inner; j++) s[j] = kind == SOFTMAX ? 1 / s[j] : m[j] + log(s[j]); \
      for (int64_t k = 0; k < d; k++) {                                              \
        T *yk = yo + k * inner;                                                      \
        const T *xk = xo + k * inner;                                                \
        if (kind == SOFTMAX)                                                         \
          for (int64_t j = 0; j < inner; j++) yk[j] = (T)(yk[j] * s[j]);             \
        else                                                                         \
          for (int64_t j = 0; j < inner; j++) yk[j] = (T)(xk[j] - s[j]);             \
      }                                                                              \
    }                                                                                \
  } break;

static void soft_native(ox_dtype dt, int kind, const void *xv, void *yv, int64_t outer,
                        int64_t d, int64_t inner, double *m, double *s) {
  switch (dt) {
    OX_NATIVE_FLOATS(SOFT_CASE)
  default: break;
  }
}

/* The softmax family split over `outer` for ox_par_for; each thread (slot)
 * has its own m and s rows. Every (outer) slice is computed alone, so every thread
 * count gives the same bytes. */
typedef struct {
  ox_dtype dt;
  int kind;
  const char *x;
  char *y;
  size_t es;
  int64_t d, inner;
  double *m, *s;
  float *buf; /* small floats: x and y of a block (per slices) per slot, else NULL */
  int64_t per; /* slices a block */
} soft_job;

static void soft_chunk(void *arg, int ch, int64_t lo, int64_t hi) {
  const soft_job *j = arg;
  double *m = j->m + ch * j->inner, *s = j->s + ch * j->inner;
  if (!j->buf) {
    size_t off = (size_t)(lo * j->d * j->inner) * j->es;
    soft_native(j->dt, j->kind, j->x + off, j->y + off, hi - lo, j->d, j->inner, m, s);
    return;
  }
  /* a small float: a block of `per` (d, inner) slices widened into the
   * slot's xf, its float result yf narrowed once: the float kernel's bits,
   * rounded once */
  int64_t len = j->d * j->inner, per = j->per;
  float *xf = j->buf + (size_t)ch * 2 * (size_t)(per * len), *yf = xf + per * len;
  for (int64_t o = lo; o < hi; o += per) {
    int64_t k = hi - o < per ? hi - o : per;
    ox_widen_f32_n(j->dt, j->x, o * len, k * len, xf);
    soft_native(OX_FLOAT, j->kind, xf, yf, k, j->d, j->inner, m, s);
    ox_narrow_f32_n(yf, k * len, j->dt, j->y, o * len);
  }
}

/* x, y: (outer, d, inner) of dt: a native float, or a small float computed
 * in float a block of slices at a time (SOFT_BLOCK floats: a block's x
 * and y stay in L1) */
#define SOFT_BLOCK 2048
static int soft_par(ox_ctx *c, ox_dtype dt, int kind, const void *x, void *y, int64_t outer,
                    int64_t d, int64_t inner) {
  /* an element costs an exp and a few passes: about 2 ns */
  int nch = ox_par_chunks(c->threads, outer, 128.0 * (double)outer * (double)d * (double)inner);
  double *m = ox_alloc_array(c->a, nch * inner, sizeof *m), *s = ox_alloc_array(c->a, nch * inner, sizeof *s);
  if (!m || !s) return ox_oom(c->err, NULL);
  /* small floats: blocks of about SOFT_BLOCK elements, or one slice; at
   * most outer / nch slices, so the slots' blocks are at most x's elements
   * twice */
  int64_t per = SOFT_BLOCK / (d * inner), most = (outer + nch - 1) / nch;
  per = per < 1 ? 1 : per > most ? most : per;
  soft_job j = {dt, kind, x, y, ox_dtype_size(dt), d, inner, m, s, NULL, per};
  if (ox_dtype_is_small_float(dt) && !(j.buf = ox_alloc_array(c->a, 2 * nch * per * d * inner, sizeof *j.buf)))
    return ox_oom(c->err, NULL);
  ox_par_for(outer, nch, soft_chunk, &j);
  return 0;
}

/* Before opset 13, x is coerced to 2-D at `axis` (default 1):
 * (d0 * ... * d[axis-1], d[axis] * ... * d[r-1]), and the op works on its rows.
 * From 13 it works along the single dim `axis` (default -1). */
static int softmax_family(ox_ctx *c, ox_value **in, ox_value **out, int kind) {
  const ox_tensor *x = &in[0]->u.t;
  int v13 = c->version >= 13;
  int64_t axis_attr = ((const reduce_state *)c->state)->axis;
  int r = x->rank, axis;
  if (r == 0) return ox_fail(c->err, OX_EINPUT, "the input is a scalar; it needs rank >= 1");
  OX_TRY(ox_axis(c, axis_attr, r, 0, "axis", &axis));
  int64_t outer, d, inner;
  split_at(x, axis, &outer, &d, &inner);
  if (!v13) d *= inner, inner = 1; /* (N, D) */
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, r, x->dims, &out[0], c->err)); /* every element written */
  ox_tensor *y = &out[0]->u.t;
  if (!y->n) return 0;
  return soft_par(c, x->dt, kind, x->data, y->data, outer, d, inner);
}

static int softmax(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return softmax_family(c, in, out, SOFTMAX);
}
static int log_softmax(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return softmax_family(c, in, out, LOGSOFTMAX);
}
static int hardmax(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return softmax_family(c, in, out, HARDMAX);
}

/* ---- the table ---- */

/* "high-precision numeric": uint32, uint64, int32, int64, float16, float, double */
#define TS_HP (OX_T(UINT32) | OX_T(UINT64) | OX_T(INT32) | OX_T(INT64) | OX_TS_FLOAT3)
#define TS_HP13 (TS_HP | OX_T(BFLOAT16))
#define TS_MM12 (TS_HP | OX_T(UINT8) | OX_T(INT8))  /* ReduceMax/Min-12: + 8-bit ints */
#define TS_MM13 (TS_MM12 | OX_T(BFLOAT16))
#define TS_MM20 (TS_MM13 | OX_T(BOOL))               /* ReduceMax/Min-20: + bool */

const ox_kernel ox_reduce_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "ReduceSum",        1, 0, TS_HP,        1, 1, reduce_sum, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceSum",       11, 0, TS_HP,        1, 1, reduce_sum, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceSum",       13, 0, TS_HP13,      1, 2, reduce_sum,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load }, /* axes input */
  /* the common version history: 1, 11 (negative axes), 13 (+ bfloat16), 18 (axes
   * as input 1); ReduceMax/Min also 12 (+ int8, uint8) and 20 (+ bool) */
  { "", "ReduceMean",       1, 0, TS_HP,        1, 1, reduce_mean, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceMean",      11, 0, TS_HP,        1, 1, reduce_mean, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMean",      13, 0, TS_HP13,      1, 1, reduce_mean, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMean",      18, 0, TS_HP13,      1, 2, reduce_mean,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceMax",        1, 0, TS_HP,        1, 1, reduce_max, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceMax",       11, 0, TS_HP,        1, 1, reduce_max, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMax",       12, 0, TS_MM12,      1, 1, reduce_max, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMax",       13, 0, TS_MM13,      1, 1, reduce_max, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMax",       18, 0, TS_MM13,      1, 2, reduce_max,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceMax",       20, 0, TS_MM20,      1, 2, reduce_max, OX_ATTRS_OF(18), reduce_load },
  { "", "ReduceMin",        1, 0, TS_HP,        1, 1, reduce_min, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceMin",       11, 0, TS_HP,        1, 1, reduce_min, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMin",       12, 0, TS_MM12,      1, 1, reduce_min, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMin",       13, 0, TS_MM13,      1, 1, reduce_min, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceMin",       18, 0, TS_MM13,      1, 2, reduce_min,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceMin",       20, 0, TS_MM20,      1, 2, reduce_min, OX_ATTRS_OF(18), reduce_load },
  { "", "ReduceProd",       1, 0, TS_HP,        1, 1, reduce_prod, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceProd",      11, 0, TS_HP,        1, 1, reduce_prod, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceProd",      13, 0, TS_HP13,      1, 1, reduce_prod, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceProd",      18, 0, TS_HP13,      1, 2, reduce_prod,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceL1",         1, 0, TS_HP,        1, 1, reduce_l1, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceL1",        11, 0, TS_HP,        1, 1, reduce_l1, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceL1",        13, 0, TS_HP13,      1, 1, reduce_l1, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceL1",        18, 0, TS_HP13,      1, 2, reduce_l1,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceL2",         1, 0, TS_HP,        1, 1, reduce_l2, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceL2",        11, 0, TS_HP,        1, 1, reduce_l2, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceL2",        13, 0, TS_HP13,      1, 1, reduce_l2, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceL2",        18, 0, TS_HP13,      1, 2, reduce_l2,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceLogSum",     1, 0, TS_HP,        1, 1, reduce_log_sum, "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceLogSum",    11, 0, TS_HP,        1, 1, reduce_log_sum, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceLogSum",    13, 0, TS_HP13,      1, 1, reduce_log_sum, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceLogSum",    18, 0, TS_HP13,      1, 2, reduce_log_sum,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceLogSumExp",  1, 0, TS_HP,        1, 1, reduce_log_sum_exp,
    "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceLogSumExp", 11, 0, TS_HP,        1, 1, reduce_log_sum_exp, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceLogSumExp", 13, 0, TS_HP13,      1, 1, reduce_log_sum_exp, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceLogSumExp", 18, 0, TS_HP13,      1, 2, reduce_log_sum_exp,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  { "", "ReduceSumSquare",  1, 0, TS_HP,        1, 1, reduce_sum_square,
    "axes:ints,keepdims:int=1", reduce_load },
  { "", "ReduceSumSquare", 11, 0, TS_HP,        1, 1, reduce_sum_square, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceSumSquare", 13, 0, TS_HP13,      1, 1, reduce_sum_square, OX_ATTRS_OF(1), reduce_load },
  { "", "ReduceSumSquare", 18, 0, TS_HP13,      1, 2, reduce_sum_square,
    "keepdims:int=1,noop_with_empty_axes:int=0", reduce_load },
  /* ArgMax/Min: 1, 11 (negative axis), 12 (select_last_index), 13 (+ bfloat16) */
  { "", "ArgMax",           1, 0, OX_TS_NUM,    1, 1, argmax, "axis:int=0,keepdims:int=1", arg_load },
  { "", "ArgMax",          11, 0, OX_TS_NUM,    1, 1, argmax, OX_ATTRS_OF(1), arg_load },
  { "", "ArgMax",          12, 0, OX_TS_NUM,    1, 1, argmax,
    "axis:int=0,keepdims:int=1,select_last_index:int=0", arg_load },
  { "", "ArgMax",          13, 0, OX_TS_NUM13,  1, 1, argmax, OX_ATTRS_OF(12), arg_load },
  { "", "ArgMin",           1, 0, OX_TS_NUM,    1, 1, argmin, "axis:int=0,keepdims:int=1", arg_load },
  { "", "ArgMin",          11, 0, OX_TS_NUM,    1, 1, argmin, OX_ATTRS_OF(1), arg_load },
  { "", "ArgMin",          12, 0, OX_TS_NUM,    1, 1, argmin,
    "axis:int=0,keepdims:int=1,select_last_index:int=0", arg_load },
  { "", "ArgMin",          13, 0, OX_TS_NUM13,  1, 1, argmin, OX_ATTRS_OF(12), arg_load },
  /* Softmax family: 1, 11 (negative axis), 13 (one axis, default -1; + bfloat16) */
  { "", "Softmax",          1, 0, OX_TS_FLOAT3, 1, 1, softmax, "axis:int=1", softmax_load },
  { "", "Softmax",         11, 0, OX_TS_FLOAT3, 1, 1, softmax, "axis:int=1", softmax_load },
  { "", "Softmax",         13, 0, OX_TS_FLOAT4, 1, 1, softmax, "axis:int=-1", softmax_load },
  { "", "LogSoftmax",       1, 0, OX_TS_FLOAT3, 1, 1, log_softmax, "axis:int=1", softmax_load },
  { "", "LogSoftmax",      11, 0, OX_TS_FLOAT3, 1, 1, log_softmax, "axis:int=1", softmax_load },
  { "", "LogSoftmax",      13, 0, OX_TS_FLOAT4, 1, 1, log_softmax, "axis:int=-1", softmax_load },
  { "", "Hardmax",          1, 0, OX_TS_FLOAT3, 1, 1, hardmax, "axis:int=1", softmax_load },
  { "", "Hardmax",         11, 0, OX_TS_FLOAT3, 1, 1, hardmax, "axis:int=1", softmax_load },
  { "", "Hardmax",         13, 0, OX_TS_FLOAT4, 1, 1, hardmax, "axis:int=-1", softmax_load },
  {0},
};
