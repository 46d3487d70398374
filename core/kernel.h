/* core/kernel.h: helpers for writing a kernel body once for many dtypes.
 *
 * - Native types compute in their own C type: expand a body with the X-macro
 *   lists below inside a switch on the dtype.
 * - The small floats (float16, bfloat16, the float8s, float4e2m1, float8e8m0)
 *   compute in float: widen the input once, run the float body, narrow the
 *   result once on store (round to nearest even; Cast's saturate default).
 *
 *   switch (dt) {
 *   #define CASE(NAME, T) case OX_##NAME: { const T *x = in; T *y = out; \
 *       for (int64_t i = 0; i < n; i++) y[i] = (T)fabs((double)x[i]); } break;
 *     OX_NATIVE_TYPES(CASE)
 *   #undef CASE
 *   }
 */
#ifndef OX_KERNEL_H
#define OX_KERNEL_H

#include "registry.h"
#include "broadcast.h"
#include "cpu.h"

/* X(NAME, C type) */
#define OX_NATIVE_FLOATS(X) X(FLOAT, float) X(DOUBLE, double)
#define OX_NATIVE_SINTS(X) X(INT8, int8_t) X(INT16, int16_t) X(INT32, int32_t) X(INT64, int64_t)
#define OX_NATIVE_UINTS(X) X(UINT8, uint8_t) X(UINT16, uint16_t) X(UINT32, uint32_t) X(UINT64, uint64_t)
#define OX_NATIVE_INTS(X) OX_NATIVE_SINTS(X) OX_NATIVE_UINTS(X)
#define OX_NATIVE_TYPES(X) OX_NATIVE_FLOATS(X) OX_NATIVE_INTS(X)

/* ---- one function built per vector width ----
 * A loop written once in plain C (or GCC vector extensions), defined three
 * times by DEF(SUF, TARGET) with OX_BY_WIDTHS: portable (SSE2 on x86-64),
 * AVX2 and AVX-512, so that the compiler vectorises each for its width; and
 * called with OX_AT_WIDTH(fn, args...), which picks fn_generic, fn_avx2 or
 * fn_avx512 by the CPU (core/cpu.h), as core/gemm.c picks its kernels. With
 * nothing fused (no fp-contract), every width gives the same bits. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OX_BY_WIDTHS(DEF)                                                             \
  DEF(generic, )                                                                      \
  DEF(avx2, __attribute__((target("avx2"))))                                          \
  DEF(avx512, __attribute__((target("avx512f,avx2"))))
#define OX_AT_WIDTH(fn, ...)                                                          \
  (ox_cpu_level() == OX_CPU_AVX512 ? fn##_avx512(__VA_ARGS__)                         \
   : ox_cpu_level() == OX_CPU_AVX2 ? fn##_avx2(__VA_ARGS__) : fn##_generic(__VA_ARGS__))
#else
#define OX_BY_WIDTHS(DEF) DEF(generic, )
#define OX_AT_WIDTH(fn, ...) fn##_generic(__VA_ARGS__)
#endif

/* Type sets for registry rows */
#define OX_TS_SMALL_FLOATS                                                            \
  (OX_T(FLOAT16) | OX_T(BFLOAT16) | OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) |      \
   OX_T(FLOAT8E5M2) | OX_T(FLOAT8E5M2FNUZ) | OX_T(FLOAT4E2M1) | OX_T(FLOAT8E8M0))
#define OX_TS_FLOAT3 (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(FLOAT16))        /* before opset 13 */
#define OX_TS_FLOAT4 (OX_TS_FLOAT3 | OX_T(BFLOAT16))                     /* 13 on */
#define OX_TS_NUM (OX_TS_INTS | OX_TS_FLOAT3)                             /* "all numeric" */
#define OX_TS_NUM13 (OX_TS_NUM | OX_T(BFLOAT16))
#define OX_TS_SINTS (OX_T(INT8) | OX_T(INT16) | OX_T(INT32) | OX_T(INT64))
#define OX_TS_UINTS (OX_T(UINT8) | OX_T(UINT16) | OX_T(UINT32) | OX_T(UINT64))
#define OX_TS_4BIT (OX_T(INT4) | OX_T(UINT4))

/* float16, bfloat16, the float8s, float4e2m1, float8e8m0 */
int ox_dtype_is_small_float(ox_dtype dt);

/* A float32 copy of a small-float (or any real numeric) tensor's data, in the
 * arena; NULL (with e set) when out of memory. */
float *ox_widen_f32(ox_arena *a, const ox_tensor *t, ox_err *e);
/* *f <- t with its data widened to float32 (ox_widen_f32), same shape; t
 * NULL: nothing. */
int ox_widen_tensor(ox_ctx *c, const ox_tensor *t, ox_tensor *f);
/* Store float32 values into a tensor of any real numeric dtype, rounding once
 * (RNE; float8 saturating as Cast's default). */
void ox_narrow_f32(const float *src, ox_tensor *dst);

/* A double copy of a real numeric tensor's data (any real dtype; integers
 * exact up to 2^53, bool 0/1), in the arena; NULL (with e set) when out of
 * memory. */
double *ox_widen_f64(ox_arena *a, const ox_tensor *t, ox_err *e);
/* How ox_narrow_f64 stores a double into an integer or bool tensor; the
 * caller picks what the op's reference does. */
typedef enum {
  /* toward zero (NaN 0; out of range wraps as ox_store_f64 does, bool is
   * v != 0): numpy's astype and item assignment, e.g. the window ops and
   * GridSample */
  OX_TO_INT_TRUNC,
  /* to nearest, ties to even, then clamped to the type's range (NaN 0; bool
   * 0 or 1): onnx's saturate_cast, e.g. Resize */
  OX_TO_INT_ROUND_SAT,
} ox_to_int;
/* Store src (dst->n doubles) into dst of any real numeric dtype: float and
 * double round once, the small floats through float (as ox_narrow_f32),
 * integers and bool as `how` says. Fails (e set) for strings and complex
 * types, or when out of memory. */
int ox_narrow_f64(ox_arena *a, const double *src, ox_tensor *dst, ox_to_int how, ox_err *e);

/* The common preamble of an elementwise op: the broadcast output shape of the
 * inputs, a new output tensor of dtype `dt` (ox_elementwise_new), and the
 * iterator over them. The output's data is not zeroed (except strings): the
 * op writes every element. */
int ox_elementwise_out(ox_ctx *c, int n, const ox_tensor *const *ins, ox_dtype dt,
                       ox_value **out, ox_bcast *b);
/* An elementwise op's output of dtype dt and shape (rank, dims): over the
 * memory of one of the inputs ins[0 .. n-1] when it has that dtype and shape
 * and the evaluator offered it (the node is its last reader and nothing else
 * holds it: ox_live_take, core/arena.h); else new, not zeroed (strings are).
 * The op must read each element of its inputs before it writes the same
 * element of the output, as a plain elementwise loop does. */
int ox_elementwise_new(ox_ctx *c, int n, const ox_tensor *const *ins, ox_dtype dt, int rank,
                       const int64_t *dims, ox_value **out);

/* Input i (of nin) as a tensor: absent (or i >= nin) or not a tensor is an
 * error naming the input (the registry checks only its element type). */
int ox_tensor_in(ox_ctx *c, ox_value **in, int nin, int i, const ox_tensor **t);
/* The same check of input i's value v (NULL: absent): "input 1 'B' is
 * missing", "input 1 'B' is seq(tensor(float)); expected a tensor". */
int ox_need_tensor(ox_ctx *c, const ox_value *v, int i);

/* An optional input i: *t is NULL when it is absent (or i >= nin), else as
 * ox_tensor_in. */
int ox_opt_tensor_in(ox_ctx *c, ox_value **in, int nin, int i, const ox_tensor **t);
/* Input i's tensor t must have the element type of input 0, `want`: else an
 * error naming both ("input 1 'B' is int32 but input 0 is float; they must
 * have the same type"). */
int ox_same_dtype(ox_ctx *c, int i, const ox_tensor *t, ox_dtype want);
/* The same against input j's tensor u, in the same words. */
int ox_same_dtype_as(ox_ctx *c, int i, const ox_tensor *t, int j, const ox_tensor *u);

/* An int64 read of a tensor that must be a scalar or 1-element tensor of an
 * integer type (positions, axes, counts); the message names the input. */
int ox_scalar_i64(ox_ctx *c, int input, const ox_value *v, int64_t *out);
/* The values of a 1-D (or scalar) int32/int64 tensor as int64 (axes, shapes,
 * pads); *n receives the count. Arena memory. */
int ox_ints_of(ox_ctx *c, int input, const ox_value *v, int64_t **vals, int64_t *n);
/* An int attribute (def when absent) that must lie in [lo, hi], narrowed to
 * int only after that check: a value outside is refused naming it, as
 * "attribute 'layout' is 4294967297; it must be 0 or 1", never wrapped by a
 * cast (2^32 + 1 would act as 1). lo and hi must fit an int. */
int ox_attr_int_in(ox_ctx *c, const char *name, int64_t def, int64_t lo, int64_t hi, int *out);
/* Normalise an axis in [-rank, rank-1] (or [-rank-1, rank] when `extra`);
 * the message names the attribute or input. */
int ox_axis(ox_ctx *c, int64_t axis, int rank, int extra, const char *what, int *out);

/* ---- window ops (Conv, pools, QLinearConv) ---- */
enum { OX_PAD_NOTSET, OX_PAD_SAME_UPPER, OX_PAD_SAME_LOWER, OX_PAD_VALID };
/* The auto_pad attribute (default NOTSET); a bad value is an error. */
int ox_auto_pad(ox_ctx *c, int *mode);
/* An ints attribute of exactly n values, each in [lo, 2^24] (so window
 * arithmetic cannot overflow), in two steps, as a row's load hook does not
 * know the spatial axes: ox_window_attr at load (each value in [lo, 2^24]),
 * then ox_window_vals in the kernel (exactly n values; each `def` when
 * absent). */
typedef struct { const int64_t *v; int64_t n; } ox_ints; /* v NULL, n -1: absent */
int ox_window_attr(ox_ctx *c, const char *name, int64_t lo, ox_ints *out);
int ox_window_vals(ox_ctx *c, const char *name, const ox_ints *v, int n, int64_t def, int64_t *out);
/* Both steps at once, for a kernel that reads its attributes itself. */
int ox_window_ints(ox_ctx *c, const char *name, int n, int64_t def, int64_t lo, int64_t *out);

/* ---- prepared once per model ----
 * A row's load hook (core/registry.h) may prepare work from a constant
 * input (ox_const_input), e.g. weights packed for the GEMM, in the model's
 * memory. A kernel uses it only when its input is that very tensor: */
/* Whether v is the tensor t a preparation was made from, or a view of it
 * (a Constant's output shares its data): the same data, type and shape. */
static inline int ox_prep_matches(const ox_value *v, const ox_tensor *t) {
  if (!v || v->kind != OX_TENSOR || v->u.t.data != t->data || v->u.t.dt != t->dt || v->u.t.rank != t->rank)
    return 0;
  for (int d = 0; d < t->rank; d++)
    if (v->u.t.dims[d] != t->dims[d]) return 0;
  return 1;
}

#endif
