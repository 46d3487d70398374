/* ops/binary.c: elementwise ops of two or more inputs.
 *
 *   arithmetic   Add Sub Mul Div Pow Mod, PRelu
 *   variadic     Sum Mean Min Max
 *   comparison   Equal Less LessOrEqual Greater GreaterOrEqual  (bool out)
 *   logic        And Or Xor (bool)
 *   bits         BitShift, BitwiseAnd BitwiseOr BitwiseXor
 *   selection    Where
 *
 * Every op walks the one broadcasting iterator (core/broadcast.h). The type
 * dispatch is written once, in native(): a switch on the dtype whose cases
 * expand, per type, a switch on the op whose cases expand WALK2 with the op's
 * per-element expression. The small floats (float16, bfloat16, float8...) are
 * widened to float first, computed in float and narrowed once on store.
 * Integers compute natively in their own width, wrapping (through unsigned
 * arithmetic, so overflow is never undefined); int64 never goes through
 * double, so int64/uint64 comparisons are exact. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/fuse.h"
#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"

/* One rounding per operation and gcc's cheap vectoriser cost model: the
 * Makefile's ROW_FLAGS for this file. */
#if defined(__GNUC__) && !defined(__clang__)
/* PRelu's multiply on one side of a choice vectorises only when it may run
 * on both: no result changes (floating-point exceptions are never read) */
#pragma GCC optimize("no-trapping-math")
#endif

typedef enum {
  ADD, SUB, MUL, DIV, MOD, FMOD, POW, MIN, MAX, PRELU, BAND, BOR, BXOR, SHL, SHR,
  /* bool results from here on */
  EQ, LT, LE, GT, GE, AND, OR, XOR,
} binop;

static int bool_result(binop op) { return op >= EQ; }

/* The wrapping arithmetic type of each element type: unsigned for integers
 * (unsigned int for the narrow ones, so uint16 * uint16 never overflows an
 * int), the type itself for floats. */
#define W_float float
#define W_double double
#define W_int8_t unsigned
#define W_int16_t unsigned
#define W_int32_t uint32_t
#define W_int64_t uint64_t
#define W_uint8_t unsigned
#define W_uint16_t unsigned
#define W_uint32_t uint32_t
#define W_uint64_t uint64_t
#define fmod_float fmodf
#define fmod_double fmod
#define pow_float powf
#define pow_double pow

/* z = EXPR(a, b) over the broadcast of A (elements TA) and B (TB) into Z (TZ),
 * for the output elements [lo, hi) (the whole output, or one thread's
 * chunk of it). The inner loop is specialised on the inputs' steps (both 1,
 * one of them 0, both 0) so that each variant is a plain loop the compiler
 * vectorises. */
#define WALK2(TA, TB, TZ, EXPR)                                                       \
  do {                                                                                \
    const TA *xa_ = A->data;                                                          \
    const TB *xb_ = B->data;                                                          \
    TZ *zz_ = Z->data;                                                                \
    ox_bcast_seek(it, lo);                                                            \
    for (int64_t pos_ = lo, col_, n; pos_ < hi; pos_ += n) {                         \
      if (pos_ > lo) ox_bcast_next(it);                                               \
      n = ox_bcast_run(it, pos_, hi, &col_);                                          \
      const TA *x = xa_ + it->off[0] + col_ * it->step[0];                            \
      const TB *y = xb_ + it->off[1] + col_ * it->step[1];                            \
      TZ *z = zz_ + pos_;                                                             \
      if (it->step[0] && it->step[1]) {                                               \
        for (int64_t i = 0; i < n; i++) {                                             \
          TA a = x[i];                                                                \
          TB b = y[i];                                                                \
          z[i] = (TZ)(EXPR);                                                          \
        }                                                                             \
      } else if (it->step[0]) {                                                       \
        TB b = y[0];                                                                  \
        for (int64_t i = 0; i < n; i++) {                                             \
          TA a = x[i];                                                                \
          z[i] = (TZ)(EXPR);                                                          \
        }                                                                             \
      } else if (it->step[1]) {                                                       \
        TA a = x[0];                                                                  \
        for (int64_t i = 0; i < n; i++) {                                             \
          TB b = y[i];                                                                \
          z[i] = (TZ)(EXPR);                                                          \
        }                                                                             \
      } else {                                                                        \
        TA a = x[0];                                                                  \
        TB b = y[0];                                                                  \
        TZ r = (TZ)(EXPR);                                                            \
        for (int64_t i = 0; i < n; i++) z[i] = r;                                     \
      }                                                                               \
    }                                                                                 \
  } while (0)

/* ---- the per-element expressions, by the types they apply to ----
 * OP(op, result type, expression of a and b); T is the element type, W its
 * wrapping type. Integer Div/Mod never see b == 0 (binary() rejects it first),
 * and b == -1 is taken apart so that INT_MIN / -1 wraps instead of trapping. */
#define OPS_ALL(T, W)                                                                 \
  OP(ADD, T, (W)a + (W)b)                                                             \
  OP(SUB, T, (W)a - (W)b)                                                             \
  OP(MUL, T, (W)a * (W)b)                                                             \
  OP(EQ, uint8_t, a == b)                                                             \
  OP(LT, uint8_t, a < b)                                                              \
  OP(LE, uint8_t, a <= b)                                                             \
  OP(GT, uint8_t, a > b)                                                              \
  OP(GE, uint8_t, a >= b)
/* Min/Max propagate NaN as numpy's minimum/maximum do. Float Mod is always
 * fmod (the sign of the dividend). */
#define OPS_FLOAT(T, W)                                                               \
  OP(DIV, T, a / b)                                                                   \
  OP(FMOD, T, fmod_##T(a, b))                                                         \
  OP(POW, T, pow_##T(a, b))                                                           \
  OP(MIN, T, (a < b || a != a) ? a : b)                                               \
  OP(MAX, T, (a > b || a != a) ? a : b)                                               \
  OP(PRELU, T, a < 0 ? a * b : a)
#define OPS_INT(T, W)                                                                 \
  OP(MIN, T, a < b ? a : b)                                                           \
  OP(MAX, T, a > b ? a : b)                                                           \
  OP(BAND, T, a & b)                                                                  \
  OP(BOR, T, a | b)                                                                   \
  OP(BXOR, T, a ^ b)
/* Div truncates toward zero (C's /); FMOD takes the dividend's sign (C's %);
 * MOD the divisor's sign, as Python's % (Mod with fmod=0). */
#define OPS_SINT(T, W)                                                                \
  OP(DIV, T, b == -1 ? (W)0 - (W)a : (W)(a / b))                                      \
  OP(FMOD, T, b == -1 ? 0 : a % b)                                                    \
  OP(MOD, T, b == -1 ? 0 : (a % b != 0 && (a % b < 0) != (b < 0)) ? a % b + b : a % b) \
  OP(PRELU, T, a < 0 ? (W)a * (W)b : (W)a)
/* BitShift by the width or more gives 0 (as numpy), never C's undefined shift. */
#define OPS_UINT(T, W)                                                                \
  OP(DIV, T, a / b)                                                                   \
  OP(FMOD, T, a % b)                                                                  \
  OP(MOD, T, a % b)                                                                   \
  OP(PRELU, T, b ? a : a) /* x < 0 never holds */                                     \
  OP(SHL, T, (uint64_t)b < 8 * sizeof(T) ? (W)a << b : 0)                             \
  OP(SHR, T, (uint64_t)b < 8 * sizeof(T) ? a >> b : 0)
/* bool: Equal, and the logic ops (any nonzero byte is true) */
#define OPS_BOOL(T, W)                                                                \
  OP(EQ, uint8_t, (a != 0) == (b != 0))                                               \
  OP(AND, uint8_t, (a != 0) & (b != 0))                                               \
  OP(OR, uint8_t, (a != 0) | (b != 0))                                                \
  OP(XOR, uint8_t, (a != 0) != (b != 0))

/* ---- float32 arithmetic, built per vector width ----
 * The rows of the ops real nets run most (Add, Sub, Mul, Div, Max, Min on
 * float32) as one function built per vector width (OX_BY_WIDTHS, core/
 * kernel.h): the same expressions, one IEEE operation per element, so the
 * same bits at every width. z = x op y over n elements, sx and sy
 * each 1 or 0 (an operand held for the row).
 * Add and Mul commute, and the compiler orders their operands as it likes
 * (differently in a vector body and its scalar tail), while x86 gives the
 * first operand's NaN when both are NaN: so a NaN a is taken first
 * explicitly (a + a, a * a: a quieted), and a lane of two NaNs gives a's
 * wherever it falls in a row, whatever the width or the thread split, as
 * Sub and Div do. */
#define FROW_OP(NAME, EXPR)                                                           \
  case NAME:                                                                          \
    if (sx && sy) for (int64_t i = 0; i < n; i++) { float a = x[i], b = y[i]; z[i] = EXPR; } \
    else if (sx) { float b = y[0]; for (int64_t i = 0; i < n; i++) { float a = x[i]; z[i] = EXPR; } } \
    else if (sy) { float a = x[0]; for (int64_t i = 0; i < n; i++) { float b = y[i]; z[i] = EXPR; } } \
    else { float a = x[0], b = y[0], r = EXPR; for (int64_t i = 0; i < n; i++) z[i] = r; } \
    break;
#define FROW_FN(SUF, TARGET)                                                          \
  TARGET static void frow_##SUF(binop op, const float *x, int64_t sx, const float *y, int64_t sy, \
                                float *z, int64_t n) {                                \
    switch (op) {                                                                     \
      FROW_OP(ADD, a != a ? a + a : a + b)                                            \
      FROW_OP(SUB, a - b)                                                             \
      FROW_OP(MUL, a != a ? a * a : a * b)                                            \
      FROW_OP(DIV, a / b)                                                             \
      FROW_OP(MIN, (a < b || a != a) ? a : b)                                         \
      FROW_OP(MAX, (a > b || a != a) ? a : b)                                         \
    default: break;                                                                   \
    }                                                                                 \
  }
OX_BY_WIDTHS(FROW_FN)

/* The float32 ops above over the output elements [lo, hi): 1, or 0 when
 * (op, dtype) is not one of them. */
static int float_rows(binop op, const ox_tensor *A, const ox_tensor *B, ox_tensor *Z, ox_bcast *it,
                      int64_t lo, int64_t hi) {
  if (A->dt != OX_FLOAT || !(op == ADD || op == SUB || op == MUL || op == DIV || op == MIN || op == MAX))
    return 0;
  const float *xa = A->data, *xb = B->data;
  float *zz = Z->data;
  ox_bcast_seek(it, lo);
  for (int64_t pos = lo, col, n; pos < hi; pos += n) {
    if (pos > lo) ox_bcast_next(it);
    n = ox_bcast_run(it, pos, hi, &col);
    OX_AT_WIDTH(frow, op, xa + it->off[0] + col * it->step[0], it->step[0],
                xb + it->off[1] + col * it->step[1], it->step[1], zz + pos, n);
  }
  return 1;
}

/* ---- as an epilogue (core/fuse.h): float_rows' row ---- */

static void epi_row(const void *arg, const float *a, int64_t sa, const float *b, int64_t sb, float *z, int64_t n,
                    int64_t ch) {
  (void)ch;
  OX_AT_WIDTH(frow, *(const binop *)arg, a, sa, b, sb, z, n);
}

/* Add, Sub, Mul, Div of two inputs (numpy broadcasting: opset 7 on), Max and
 * Min of two (opset 8 on): z = op(input 0, input 1), as binary_k and
 * variadic compute them on float32. */
int ox_binary_epi(ox_ctx *c, int64_t M, ox_epi_step *s) {
  (void)M;
  static const struct { const char *name; binop op; int since; } ops[] = {
    {"Add", ADD, 7}, {"Sub", SUB, 7}, {"Mul", MUL, 7}, {"Div", DIV, 7}, {"Max", MAX, 8}, {"Min", MIN, 8},
  };
  static const binop codes[] = {ADD, SUB, MUL, DIV, MAX, MIN};
  const ox_node *n = c->node;
  if ((n->domain && n->domain[0]) || n->nin != 2) return 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(n->op, ops[i].name) && c->version >= ops[i].since) {
      static const int forms[] = {OX_EPI_F_ADD, OX_EPI_F_SUB, OX_EPI_F_MUL, OX_EPI_F_DIV, OX_EPI_F_NONE,
                                  OX_EPI_F_NONE};
      s->fn = epi_row;
      s->arg = &codes[i];
      s->form = forms[i]; /* FROW_OP's expressions */
      return 2; /* two data inputs */
    }
  return 0;
}

/* The one type dispatch. A, B: same dtype (float, double, an integer or
 * bool); Z: the output (that dtype, or bool); it: the iterator over them.
 * Returns -1 when the pair (op, dtype) has no expression. */
static int native(binop op, const ox_tensor *A, const ox_tensor *B, ox_tensor *Z, ox_bcast *it,
                  int64_t lo, int64_t hi) {
  if (float_rows(op, A, B, Z, it, lo, hi)) return 0;
#define OP(NAME, TZ, EXPR)                                                            \
  case NAME: WALK2(T_, T_, TZ, EXPR); return 0;
#define TYPE_CASE(NAME, T, L1, L2)                                                    \
  case OX_##NAME: {                                                                   \
    typedef T T_;                                                                     \
    switch (op) {                                                                     \
      OPS_ALL(T, W_##T)                                                               \
      L1(T, W_##T)                                                                    \
      L2(T, W_##T)                                                                    \
    default: return -1;                                                               \
    }                                                                                 \
  }
#define NONE(T, W)
#define F_CASE(NAME, T) TYPE_CASE(NAME, T, OPS_FLOAT, NONE)
#define S_CASE(NAME, T) TYPE_CASE(NAME, T, OPS_INT, OPS_SINT)
#define U_CASE(NAME, T) TYPE_CASE(NAME, T, OPS_INT, OPS_UINT)
  switch (A->dt) {
    OX_NATIVE_FLOATS(F_CASE)
    OX_NATIVE_SINTS(S_CASE)
    OX_NATIVE_UINTS(U_CASE)
  case OX_BOOL: {
    typedef uint8_t T_;
    switch (op) {
      OPS_BOOL(uint8_t, unsigned)
    default: return -1;
    }
  }
  default: return -1;
  }
#undef OP
#undef TYPE_CASE
#undef NONE
#undef F_CASE
#undef S_CASE
#undef U_CASE
}

static const char *const op_names[] = {
    "Add", "Sub", "Mul", "Div", "Mod", "Mod", "Pow", "Min", "Max", "PRelu", "BitwiseAnd",
    "BitwiseOr", "BitwiseXor", "BitShift", "BitShift", "Equal", "Less", "LessOrEqual",
    "Greater", "GreaterOrEqual", "And", "Or", "Xor"};

/* ---- helpers ---- */

/* Input i a tensor of input 0's element type */
static int same_type(ox_ctx *c, ox_value **in, int i) {
  OX_TRY(ox_need_tensor(c, in[i], i));
  return ox_same_dtype(c, i, &in[i]->u.t, in[0]->u.t.dt);
}

/* A copy of t converted to dt (FLOAT, DOUBLE or INT64), in the arena. */
static ox_tensor *convert(ox_ctx *c, const ox_tensor *t, ox_dtype dt) {
  ox_tensor *r = ox_alloc(c->a, sizeof *r);
  void *d = NULL;
  if (r && dt == OX_FLOAT) {
    d = ox_widen_f32(c->a, t, c->err);
  } else if (r && (d = ox_alloc_array(c->a, t->n + 1, 8))) {
    if (dt == OX_DOUBLE)
      for (int64_t i = 0; i < t->n; i++) ((double *)d)[i] = ox_load_f64(t->dt, t->data, i);
    else
      for (int64_t i = 0; i < t->n; i++) ((int64_t *)d)[i] = ox_load_i64(t->dt, t->data, i);
  }
  if (!r || !d) {
    ox_oom(c->err, NULL);
    return NULL;
  }
  *r = *t;
  r->dt = dt;
  r->data = d;
  return r;
}

/* A new tensor of dtype dt holding the (float) values of src, rounded once. */
static int narrow(ox_ctx *c, const ox_tensor *src, ox_dtype dt, ox_value **out) {
  OX_TRY(ox_tensor_new(c->a, dt, src->rank, src->dims, out, c->err));
  ox_narrow_f32(src->data, &(*out)->u.t);
  return 0;
}

/* The small floats (float16, bfloat16, float8): Z = A op B for the output
 * elements [lo, hi), in float, a block at a time (float16 arithmetic in
 * registers where it can: below): each block's inputs widened
 * into buffers on the stack, computed by native() over them (as a row of one
 * block, through an iterator of its own), the result narrowed once into Z
 * (bool results written straight). */
#define SBLOCK 512
static void small_floats(binop op, const ox_tensor *A, const ox_tensor *B, ox_tensor *Z, ox_bcast *it,
                         int64_t lo, int64_t hi) {
  float xa[SBLOCK], xb[SBLOCK], xz[SBLOCK];
  ox_bcast bi; /* one row of one block: only what native() reads is set */
  bi.nin = 2;
  bi.rank = 1;
  bi.off[0] = bi.off[1] = 0;
  ox_tensor fa = {.dt = OX_FLOAT, .data = xa}, fb = {.dt = OX_FLOAT, .data = xb};
  ox_tensor fz = {.dt = bool_result(op) ? OX_BOOL : OX_FLOAT};
  /* float16 Add, Sub, Mul, Div: a block in registers, when ox_f16_arith_n
   * takes it (the same bits; a block it declines is computed below, from
   * inputs it left as they were) */
  int f16 = A->dt == OX_FLOAT16 && (op == ADD || op == SUB || op == MUL || op == DIV);
  int f16op = op == ADD ? OX_F16_ADD : op == SUB ? OX_F16_SUB : op == MUL ? OX_F16_MUL : OX_F16_DIV;
  ox_bcast_seek(it, lo);
  for (int64_t pos = lo, col, n; pos < hi; pos += n) {
    if (pos > lo) ox_bcast_next(it);
    n = ox_bcast_run(it, pos, hi, &col);
    for (int64_t b0 = 0; b0 < n; b0 += SBLOCK) {
      int64_t m = n - b0 < SBLOCK ? n - b0 : SBLOCK;
      uint16_t *z16 = (uint16_t *)Z->data + pos + b0;
      if (f16 && ox_f16_arith_n(f16op, (const uint16_t *)A->data + it->off[0] + (col + b0) * it->step[0],
                                it->step[0], (const uint16_t *)B->data + it->off[1] + (col + b0) * it->step[1],
                                it->step[1], z16, m))
        continue;
      ox_widen_f32_n(A->dt, A->data, it->off[0] + (col + b0) * it->step[0], it->step[0] ? m : 1, xa);
      ox_widen_f32_n(B->dt, B->data, it->off[1] + (col + b0) * it->step[1], it->step[1] ? m : 1, xb);
      bi.n = bi.inner = m;
      bi.step[0] = it->step[0];
      bi.step[1] = it->step[1];
      fz.data = fz.dt == OX_BOOL ? (void *)((uint8_t *)Z->data + pos + b0) : xz;
      native(op, &fa, &fb, &fz, &bi, 0, m);
      if (fz.dt != OX_BOOL) ox_narrow_f32_n(xz, m, Z->dt, Z->data, pos + b0);
    }
  }
}

/* Z = A op B over iterator it, the output split over the threads when it is
 * large (each element is computed alike in any chunk: the same bytes for
 * every thread count). */
typedef struct { binop op; const ox_tensor *A, *B; ox_tensor *Z; const ox_bcast *it; } walk_job;

static void walk_range(const walk_job *j, ox_bcast *it, int64_t lo, int64_t hi) {
  if (ox_dtype_is_small_float(j->A->dt)) small_floats(j->op, j->A, j->B, j->Z, it, lo, hi);
  else native(j->op, j->A, j->B, j->Z, it, lo, hi);
}

static void walk_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const walk_job *j = arg;
  ox_bcast it = *j->it;
  walk_range(j, &it, lo, hi);
}

static int walk(ox_ctx *c, binop op, const ox_tensor *A, const ox_tensor *B, ox_tensor *Z, ox_bcast *it) {
  /* nothing computed: is (op, dtype) implemented? (the small floats: in float) */
  ox_tensor f = {.dt = OX_FLOAT}, fz = {.dt = bool_result(op) ? OX_BOOL : OX_FLOAT};
  int small = ox_dtype_is_small_float(A->dt);
  if (small ? native(op, &f, &f, &fz, it, 0, 0) : native(op, A, B, Z, it, 0, 0))
    return ox_fail(c->err, OX_EUNSUPPORTED, "%s is not implemented for %s", op_names[op],
                   ox_dtypes[A->dt].onnx_name);
  /* an element costs its bytes' traffic (the small floats' conversions
   * about as much again); Pow and Mod some arithmetic */
  size_t bytes = ox_dtype_size(A->dt) + ox_dtype_size(B->dt) + ox_dtype_size(Z->dt);
  int nch = op == POW || op == FMOD || op == MOD ? ox_par_chunks(c->threads, it->n, 128.0 * (double)it->n)
                                                 : ox_par_chunks_mem(c->threads, it->n, (small ? 2.0 : 1.0) * (double)bytes * (double)it->n);
  walk_job j = {op, A, B, Z, it};
  if (nch <= 1) walk_range(&j, it, 0, it->n);
  else ox_par_for(it->n, nch, walk_chunk, &j);
  return 0;
}

/* out = A op B, A and B of one native dtype (or bool), numpy broadcasting. */
static int apply(ox_ctx *c, binop op, const ox_tensor *A, const ox_tensor *B, ox_value **out) {
  ox_bcast it;
  ox_dtype zt = bool_result(op) ? OX_BOOL : A->dt;
  OX_TRY(ox_elementwise_out(c, 2, (const ox_tensor *[]){A, B}, zt, out, &it));
  if (it.n == 0) return 0;
  return walk(c, op, A, B, &(*out)->u.t, &it);
}

/* Does any element of the integer tensor t equal zero? */
static int any_zero(const ox_tensor *t) {
  size_t s = ox_dtype_size(t->dt);
  static const uint8_t zero[16];
  const uint8_t *p = t->data;
  for (int64_t i = 0; i < t->n; i++)
    if (!memcmp(p + (size_t)i * s, zero, s)) return 1;
  return 0;
}

/* out = A op B for A and B of one dtype: the small floats are computed in
 * float and rounded once (small_floats); integer division by zero is an
 * error. */
static int binary(ox_ctx *c, binop op, const ox_tensor *A, const ox_tensor *B, ox_value **out) {
  ox_dtype dt = A->dt;
  if ((op == DIV || op == MOD || op == FMOD) && !ox_dtype_is_float(dt) && any_zero(B))
    return ox_fail(c->err, OX_EINPUT, "integer %s by zero: the divisor (input 1) holds a 0",
                   op == DIV ? "division" : "modulus");
  return apply(c, op, A, B, out);
}

/* ---- the attributes, read once when the model is loaded ---- */

/* The legacy broadcasting versions' broadcast and axis (opset < 7), Mod's
 * fmod, BitShift's direction. */
typedef struct {
  int broadcast, has_axis, fmod, left;
  int64_t axis;
} binary_state;

static int binary_load(ox_ctx *c, void **state) {
  binary_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->broadcast = ox_attr_int(c, "broadcast", 0) != 0;
  st->has_axis = ox_attr_find(c, "axis") != NULL;
  st->axis = ox_attr_int(c, "axis", 0);
  return 0;
}

/* Mod: fmod 0 or 1 */
static int mod_load(ox_ctx *c, void **state) {
  OX_TRY(binary_load(c, state));
  binary_state *st = *state;
  int64_t f = ox_attr_int(c, "fmod", 0);
  if (f != 0 && f != 1) return ox_fail(c->err, OX_EINPUT, "fmod is %lld; it must be 0 or 1", (long long)f);
  st->fmod = (int)f;
  return 0;
}

/* BitShift: direction "LEFT" or "RIGHT", required */
static int bitshift_load(ox_ctx *c, void **state) {
  OX_TRY(binary_load(c, state));
  const char *d = ox_attr_string(c, "direction", NULL);
  if (!d) return ox_fail(c->err, OX_EINPUT, "the attribute 'direction' is required");
  if (strcmp(d, "LEFT") && strcmp(d, "RIGHT"))
    return ox_fail(c->err, OX_EINPUT, "direction is '%s'; it must be \"LEFT\" or \"RIGHT\"", d);
  ((binary_state *)*state)->left = d[0] == 'L';
  return 0;
}

/* Opset 1-6 (Add, Sub, Mul, Div, Pow, the comparisons, And/Or/Xor): no numpy
 * broadcasting. Without broadcast=1 the shapes must be equal; with it, B has
 * one element, or its shape is a contiguous run of A's dims starting at
 * `axis` (default: the trailing dims). B is returned as a view of A's rank. */
static int legacy_view(ox_ctx *c, const ox_tensor *A, const ox_tensor *B, const ox_tensor **Bv) {
  char s1[256], s2[256];
  ox_shape_str(A->rank, A->dims, s1, sizeof s1);
  ox_shape_str(B->rank, B->dims, s2, sizeof s2);
  *Bv = B;
  int same = A->rank == B->rank;
  for (int d = 0; same && d < A->rank; d++) same = A->dims[d] == B->dims[d];
  if (same) return 0;
  const binary_state *st = c->state;
  if (!st->broadcast)
    return ox_fail(c->err, OX_EINPUT, "shapes %s and %s differ and broadcast is not set "
                   "(before opset 7, B broadcasts only with broadcast=1)", s1, s2);
  ox_tensor *v = ox_alloc(c->a, sizeof *v);
  int64_t *dims = ox_alloc_array(c->a, A->rank + 1, sizeof *dims);
  if (!v || !dims) return ox_oom(c->err, NULL);
  *v = *B;
  if (B->n == 1) { /* a scalar or 1-element tensor: shared by every element */
    v->rank = 0;
    *Bv = v;
    return 0;
  }
  int64_t start = st->has_axis ? st->axis : A->rank - B->rank;
  if (st->has_axis && start < 0) start += A->rank;
  int ok = start >= 0 && start + B->rank <= A->rank;
  /* The spec's "1-dim expansion doesn't work yet" aside, PyTorch exported
   * B of shape (2, 1) against A (2, 3) at opset 6; a dim of 1 stretches. */
  for (int d = 0; ok && d < B->rank; d++) ok = B->dims[d] == A->dims[start + d] || B->dims[d] == 1;
  if (!ok)
    return ox_fail(c->err, OX_EINPUT, "B of shape %s does not match the dims of A %s at axis "
                   "%lld (legacy broadcast of opset < 7)", s2, s1, (long long)start);
  for (int d = 0; d < A->rank; d++)
    dims[d] = d >= start && d < start + B->rank ? B->dims[d - start] : 1;
  v->rank = A->rank;
  v->dims = dims;
  *Bv = v;
  return 0;
}

/* The two-input ops of one type T: tensors of one dtype; legacy broadcast
 * before opset 7 (the ops listed at legacy_view). */
static int binary_k(ox_ctx *c, binop op, ox_value **in, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  OX_TRY(same_type(c, in, 1));
  const ox_tensor *A = &in[0]->u.t, *B = &in[1]->u.t;
  if (c->version < 7) OX_TRY(legacy_view(c, A, B, &B));
  if (A->dt == OX_STRING) { /* Equal-19 */
    ox_bcast bc, *it = &bc;
    OX_TRY(ox_elementwise_out(c, 2, (const ox_tensor *[]){A, B}, OX_BOOL, out, it));
    ox_tensor *Z = &(*out)->u.t;
    int64_t lo = 0, hi = it->n;
    if (it->n)
      WALK2(ox_str, ox_str, uint8_t, a.n == b.n && (a.n == 0 || !memcmp(a.p, b.p, (size_t)a.n)));
    return 0;
  }
  return binary(c, op, A, B, out);
}

#define BINARY_FN(name, OP)                                                           \
  static int name(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {      \
    return binary_k(c, OP, in, out);                                                  \
  }
BINARY_FN(add_k, ADD)
BINARY_FN(sub_k, SUB)
BINARY_FN(mul_k, MUL)
BINARY_FN(div_k, DIV)
BINARY_FN(equal_k, EQ)
BINARY_FN(less_k, LT)
BINARY_FN(less_equal_k, LE)
BINARY_FN(greater_k, GT)
BINARY_FN(greater_equal_k, GE)
BINARY_FN(and_k, AND)
BINARY_FN(or_k, OR)
BINARY_FN(xor_k, XOR)
BINARY_FN(bitand_k, BAND)
BINARY_FN(bitor_k, BOR)
BINARY_FN(bitxor_k, BXOR)

/* Mod-10/13: fmod=0 is integer mod with the divisor's sign (Python's %);
 * fmod=1 is C's fmod (the dividend's sign). Floats require fmod=1. */
static int mod_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  int f = ((const binary_state *)c->state)->fmod;
  if (!f && ox_dtype_is_float(in[0]->u.t.dt))
    return ox_fail(c->err, OX_EINPUT, "fmod must be 1 for floating-point inputs (%s)",
                   ox_dtypes[in[0]->u.t.dt].onnx_name);
  return binary_k(c, f ? FMOD : MOD, in, out);
}

/* BitShift-11: direction "LEFT" or "RIGHT" (required). */
static int bitshift_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return binary_k(c, ((const binary_state *)c->state)->left ? SHL : SHR, in, out);
}

/* Pow: from opset 12 the exponent Y may have another type than the base X
 * (T1: any numeric); Z has X's type (np.power(x, y).astype(x.dtype)).
 *   X float, Y another type: computed in float (double for a double X)
 *   X int32/int64, Y an integer: exact integer power, wrapping
 *   X int32/int64, Y a float: computed in double, truncated (saturating) */
static int64_t ipow(int64_t x, int64_t e) { /* e >= 0 */
  uint64_t r = 1, p = (uint64_t)x;
  for (; e; e >>= 1, p *= p)
    if (e & 1) r *= p;
  return (int64_t)r;
}

static int pow_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  OX_TRY(ox_need_tensor(c, in[1], 1));
  const ox_tensor *X = &in[0]->u.t, *Y = &in[1]->u.t;
  uint64_t ty = c->version >= 15 ? OX_TS_NUM13 : OX_TS_NUM;
  if (c->version < 12)
    OX_TRY(same_type(c, in, 1));
  else if (!(ty & (UINT64_C(1) << Y->dt)))
    return ox_fail(c->err, OX_EINPUT, "%s (the exponent) is %s; Pow-%d takes a numeric type",
                   ox_input_name(c, 1), ox_dtypes[Y->dt].onnx_name, c->version);
  if (c->version < 7) OX_TRY(legacy_view(c, X, Y, &Y));
  /* a scalar exponent of 2 (LayerNorm's variance, as exported): x * x, the
   * correctly rounded square that powf approaches, at a multiply's cost */
  if (ox_dtype_is_float(X->dt) && Y->n == 1 && Y->rank <= X->rank && Y->dt != OX_STRING &&
      ox_load_f64(Y->dt, Y->data, 0) == 2)
    return binary(c, MUL, X, X, out);
  /* a scalar exponent of 3 on float (GELU's tanh form, as GPT-2 exports
   * it): x^3 in double, x * x exact there, one rounding of the product and
   * one to float: within 0.5 + 2^-29 ULP, where powf gives up to 0.82 */
  if (X->dt == OX_FLOAT && Y->n == 1 && Y->rank <= X->rank && Y->dt != OX_STRING &&
      ox_load_f64(Y->dt, Y->data, 0) == 3) {
    OX_TRY(ox_elementwise_new(c, 1, (const ox_tensor *[]){X}, OX_FLOAT, X->rank, X->dims, out));
    const float *x = X->data;
    float *z = (*out)->u.t.data;
    for (int64_t i = 0; i < X->n; i++) z[i] = (float)((double)x[i] * x[i] * x[i]);
    return 0;
  }
  if (X->dt == Y->dt && ox_dtype_is_float(X->dt)) return binary(c, POW, X, Y, out);
  switch (X->dt) {
  case OX_DOUBLE: {
    const ox_tensor *y = convert(c, Y, OX_DOUBLE);
    return y ? apply(c, POW, X, y, out) : c->err->code;
  }
  case OX_INT32:
  case OX_INT64: {
    if (ox_dtype_is_float(Y->dt)) { /* in double, then truncated */
      const ox_tensor *x = convert(c, X, OX_DOUBLE), *y = x ? convert(c, Y, OX_DOUBLE) : NULL;
      ox_value *tmp;
      if (!y) return c->err->code;
      OX_TRY(apply(c, POW, x, y, &tmp));
      OX_TRY(ox_tensor_new(c->a, X->dt, tmp->u.t.rank, tmp->u.t.dims, out, c->err));
      for (int64_t i = 0; i < tmp->u.t.n; i++)
        ox_store_i64(X->dt, (*out)->u.t.data, i, ox_load_i64(OX_DOUBLE, tmp->u.t.data, i));
      return 0;
    }
    const ox_tensor *B = convert(c, Y, OX_INT64), *A = X;
    if (!B) return c->err->code;
    for (int64_t i = 0; i < B->n; i++)
      if (((int64_t *)B->data)[i] < 0)
        return ox_fail(c->err, OX_EINPUT, "an integer base raised to a negative integer "
                       "exponent (%lld) has no integer result",
                       (long long)((int64_t *)B->data)[i]);
    ox_bcast bc, *it = &bc;
    OX_TRY(ox_elementwise_out(c, 2, (const ox_tensor *[]){A, B}, X->dt, out, it));
    ox_tensor *Z = &(*out)->u.t;
    int64_t lo = 0, hi = it->n;
    if (!it->n) return 0;
    if (X->dt == OX_INT32) WALK2(int32_t, int64_t, int32_t, ipow(a, b));
    else WALK2(int64_t, int64_t, int64_t, ipow(a, b));
    return 0;
  }
  default: { /* float and the small floats: in float, rounded once */
    const ox_tensor *x = convert(c, X, OX_FLOAT), *y = x ? convert(c, Y, OX_FLOAT) : NULL;
    ox_value *tmp;
    if (!y) return c->err->code;
    OX_TRY(apply(c, POW, x, y, &tmp));
    if (X->dt == OX_FLOAT) {
      *out = tmp;
      return 0;
    }
    return narrow(c, &tmp->u.t, X->dt, out);
  }
  }
}

/* PRelu: Y = X < 0 ? slope * X : X. From opset 7 slope broadcasts to X
 * unidirectionally (numpy rules, the result keeps X's shape). Before that,
 * and as onnx's reference does when numpy rules fail, a 1-D slope of length
 * d is taken along the one dim of X that equals d (the channel). */
static int prelu_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  OX_TRY(same_type(c, in, 1));
  const ox_tensor *X = &in[0]->u.t, *S = &in[1]->u.t;
  int rank;
  int64_t dims[OX_BCAST_MAX_RANK];
  ox_err e2 = {0};
  int ok = !ox_broadcast_shape(2, (const ox_tensor *[]){X, S}, &rank, dims, &e2) &&
           rank == X->rank;
  for (int d = 0; ok && d < rank; d++) ok = dims[d] == X->dims[d];
  if (!ok) {
    int found = -1, count = 0;
    if (S->rank == 1)
      for (int d = 0; d < X->rank; d++)
        if (X->dims[d] == S->dims[0]) found = d, count++;
    char s1[256], s2[256];
    if (count != 1)
      return ox_fail(c->err, OX_EINPUT, "slope of shape %s does not broadcast to X of shape %s",
                     ox_shape_str(S->rank, S->dims, s2, sizeof s2),
                     ox_shape_str(X->rank, X->dims, s1, sizeof s1));
    /* slope: (C,) seen as (C, 1, ..., 1) from X's dim `found` */
    ox_tensor *v = ox_alloc(c->a, sizeof *v);
    if (!v) return ox_oom(c->err, NULL);
    *v = *S;
    int64_t *vd = ox_alloc_array(c->a, X->rank - found, sizeof *vd);
    if (!vd) return ox_oom(c->err, NULL);
    for (int d = 0; d < X->rank - found; d++) vd[d] = d ? 1 : S->dims[0];
    v->rank = X->rank - found;
    v->dims = vd;
    S = v;
  }
  return binary(c, PRELU, X, S, out);
}

/* Does t broadcast to z's shape (unidirectionally)? */
static int fits(const ox_tensor *t, const ox_tensor *z) {
  if (t->rank > z->rank) return 0;
  for (int d = 0; d < t->rank; d++) {
    int64_t v = t->dims[d], w = z->dims[z->rank - t->rank + d];
    if (v != w && v != 1) return 0;
  }
  return 1;
}

/* Z = A op B into an existing Z of their broadcast shape. Z may be A: each
 * element of A is read before the same element of Z is written. */
static int apply_into(ox_ctx *c, binop op, const ox_tensor *A, const ox_tensor *B, ox_tensor *Z) {
  ox_bcast it;
  OX_TRY(ox_bcast_init(&it, 2, (const ox_tensor *[]){A, B}, Z->rank, Z->dims, c->err));
  if (it.n == 0) return 0;
  return walk(c, op, A, B, Z, &it);
}

/* Sum, Mean, Min, Max: a fold of the binary op over 1..n inputs, numpy
 * broadcasting from opset 8 (before that, all shapes must be equal). The
 * small floats are widened once and rounded once at the end; Mean divides the
 * sum by n. */
static int variadic(ox_ctx *c, binop op, int mean, int nin, ox_value **in, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  for (int i = 1; i < nin; i++) OX_TRY(same_type(c, in, i));
  const ox_tensor *t0 = &in[0]->u.t;
  if (c->version < 8)
    for (int i = 1; i < nin; i++) {
      const ox_tensor *t = &in[i]->u.t;
      int same = t->rank == t0->rank;
      for (int d = 0; same && d < t->rank; d++) same = t->dims[d] == t0->dims[d];
      char s1[256], s2[256];
      if (!same)
        return ox_fail(c->err, OX_EINPUT, "%s has shape %s but input 0 has %s; before opset 8 "
                       "all shapes must be equal", ox_input_name(c, i),
                       ox_shape_str(t->rank, t->dims, s1, sizeof s1),
                       ox_shape_str(t0->rank, t0->dims, s2, sizeof s2));
    }
  ox_dtype dt = t0->dt;
  int small = ox_dtype_is_small_float(dt);
  const ox_tensor *acc = small ? convert(c, t0, OX_FLOAT) : t0;
  if (!acc) return c->err->code;
  ox_value *r = NULL;
  for (int i = 1; i < nin; i++) {
    const ox_tensor *t = small ? convert(c, &in[i]->u.t, OX_FLOAT) : &in[i]->u.t;
    if (!t) return c->err->code;
    if (r && fits(t, &r->u.t)) { /* in place: no new tensor per input */
      OX_TRY(apply_into(c, op, acc, t, &r->u.t));
      continue;
    }
    OX_TRY(apply(c, op, acc, t, &r));
    acc = &r->u.t;
  }
  if (mean && nin > 1) {
    ox_value *n;
    OX_TRY(ox_scalar_new(c->a, acc->dt, &n, c->err));
    ox_store_f64(acc->dt, n->u.t.data, 0, nin);
    OX_TRY(apply_into(c, DIV, acc, &n->u.t, &r->u.t));
  }
  if (small) return narrow(c, acc, dt, out);
  if (!r) { /* one input: its value */
    *out = ox_tensor_view(c->a, in[0]);
    return *out ? 0 : ox_oom(c->err, NULL);
  }
  *out = r;
  return 0;
}

static int sum_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return variadic(c, ADD, 0, nin, in, out);
}
static int mean_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return variadic(c, ADD, 1, nin, in, out);
}
static int min_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return variadic(c, MIN, 0, nin, in, out);
}
static int max_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return variadic(c, MAX, 0, nin, in, out);
}

/* Where-9/16: Z = cond ? X : Y, three-way numpy broadcasting. Only moves
 * data, so any element type goes by its size (strings copy their {ptr, len}). */
typedef struct { uint64_t lo, hi; } b16;
#define ELEM_SIZES(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t) X(16, b16)

static int where_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  for (int i = 0; i < 3; i++) OX_TRY(ox_need_tensor(c, in[i], i));
  if (in[0]->u.t.dt != OX_BOOL)
    return ox_fail(c->err, OX_EINPUT, "%s (the condition) is %s; it must be bool",
                   ox_input_name(c, 0), ox_dtypes[in[0]->u.t.dt].onnx_name);
  if (in[2]->u.t.dt != in[1]->u.t.dt)
    return ox_fail(c->err, OX_EINPUT, "%s is %s but input 1 is %s; they must have the same type",
                   ox_input_name(c, 2), ox_dtypes[in[2]->u.t.dt].onnx_name,
                   ox_dtypes[in[1]->u.t.dt].onnx_name);
  const ox_tensor *C = &in[0]->u.t, *X = &in[1]->u.t, *Y = &in[2]->u.t;
  ox_bcast bc, *it = &bc;
  OX_TRY(ox_elementwise_out(c, 3, (const ox_tensor *[]){C, X, Y}, X->dt, out, it));
  if (!it->n) return 0;
  const uint8_t *cc = C->data;
  /* c: cond, x, y: (out) broadcast; z = c ? x : y */
#define SIZE_CASE(S, T)                                                               \
  case S: {                                                                           \
    const T *xx = X->data, *yy = Y->data;                                             \
    T *zz = (*out)->u.t.data;                                                         \
    do {                                                                              \
      const uint8_t *k = cc + it->off[0];                                             \
      const T *x = xx + it->off[1], *y = yy + it->off[2];                             \
      T *z = zz + it->out;                                                            \
      int64_t s0 = it->step[0], s1 = it->step[1], s2 = it->step[2], n = it->inner;    \
      if (s0 && s1 && s2)                                                             \
        for (int64_t i = 0; i < n; i++) z[i] = k[i] ? x[i] : y[i];                    \
      else if (!s0)                                                                   \
        for (int64_t i = 0; i < n; i++) z[i] = k[0] ? x[i * s1] : y[i * s2];          \
      else                                                                            \
        for (int64_t i = 0; i < n; i++) z[i] = k[i] ? x[i * s1] : y[i * s2];          \
    } while (ox_bcast_next(it));                                                      \
    return 0;                                                                         \
  }
  switch (ox_dtype_size(X->dt)) {
    ELEM_SIZES(SIZE_CASE)
  default:
    return ox_fail(c->err, OX_EINPUT, "Where: elements of %zu bytes",
                   ox_dtype_size(X->dt));
  }
#undef SIZE_CASE
}

/* ---- the table ---- */

#define F3 OX_TS_FLOAT3
#define F4 OX_TS_FLOAT4
/* "high-precision numeric" of Add/Sub/Mul/Div 6-13 */
#define HP (OX_T(UINT32) | OX_T(UINT64) | OX_T(INT32) | OX_T(INT64) | F3)
#define NUM OX_TS_NUM
#define NUM13 OX_TS_NUM13
#define POW_T12 (OX_T(INT32) | OX_T(INT64) | F3)
#define PRELU_T9 (F3 | OX_T(UINT32) | OX_T(UINT64) | OX_T(INT32) | OX_T(INT64))
#define BOOL_T OX_T(BOOL)
#define EQ_T1 (OX_T(BOOL) | OX_T(INT32) | OX_T(INT64))
/* the attributes of the legacy broadcasting versions, the same for every op
 * of this family: opset 1 (with consumed_inputs), then 6 */
#define BCAST1 "axis:int,broadcast:int=0,consumed_inputs:ints"
#define BCAST6 "axis:int,broadcast:int=0"

const ox_kernel ox_binary_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Add",             1, 0, F3,                        2,  2, add_k, BCAST1, binary_load }, /* broadcast, axis */
  { "", "Add",             6, 0, HP,                        2,  2, add_k, BCAST6, binary_load },
  /* numpy broadcasting */
  { "", "Add",             7, 0, HP,                        2,  2, add_k, "" },
  { "", "Add",            13, 0, HP | OX_T(BFLOAT16),       2,  2, add_k, "" },
  { "", "Add",            14, 0, NUM13,                     2,  2, add_k, "" },
  { "", "Sub",             1, 0, F3,                        2,  2, sub_k, BCAST1, binary_load },
  { "", "Sub",             6, 0, HP,                        2,  2, sub_k, BCAST6, binary_load },
  { "", "Sub",             7, 0, HP,                        2,  2, sub_k, "" },
  { "", "Sub",            13, 0, HP | OX_T(BFLOAT16),       2,  2, sub_k, "" },
  { "", "Sub",            14, 0, NUM13,                     2,  2, sub_k, "" },
  { "", "Mul",             1, 0, F3,                        2,  2, mul_k, BCAST1, binary_load },
  { "", "Mul",             6, 0, HP,                        2,  2, mul_k, BCAST6, binary_load },
  { "", "Mul",             7, 0, HP,                        2,  2, mul_k, "" },
  { "", "Mul",            13, 0, HP | OX_T(BFLOAT16),       2,  2, mul_k, "" },
  { "", "Mul",            14, 0, NUM13,                     2,  2, mul_k, "" },
  { "", "Div",             1, 0, F3,                        2,  2, div_k, BCAST1, binary_load },
  { "", "Div",             6, 0, HP,                        2,  2, div_k, BCAST6, binary_load },
  { "", "Div",             7, 0, HP,                        2,  2, div_k, "" },
  { "", "Div",            13, 0, HP | OX_T(BFLOAT16),       2,  2, div_k, "" },
  { "", "Div",            14, 0, NUM13,                     2,  2, div_k, "" },
  { "", "Pow",             1, 0, F3,                        2,  2, pow_k, BCAST6, binary_load },
  { "", "Pow",             7, 0, F3,                        2,  2, pow_k, "" },
  { "", "Pow",            12, 0, POW_T12,                   2,  2, pow_k, "" }, /* Y: T1 */
  { "", "Pow",            13, 0, POW_T12 | OX_T(BFLOAT16),  2,  2, pow_k, "" },
  { "", "Pow",            15, 0, POW_T12 | OX_T(BFLOAT16),  2,  2, pow_k, "" }, /* T1 + bf16 */
  { "", "Mod",            10, 0, NUM,                       2,  2, mod_k, "fmod:int=0", mod_load },
  { "", "Mod",            13, 0, NUM13,                     2,  2, mod_k, "fmod:int=0", mod_load },
  { "", "Sum",             1, 0, F3,                        1, -1, sum_k, "consumed_inputs:ints" },
  { "", "Sum",             6, 0, F3,                        1, -1, sum_k, "" },
  { "", "Sum",             8, 0, F3,                        1, -1, sum_k, "" }, /* broadcasting */
  { "", "Sum",            13, 0, F4,                        1, -1, sum_k, "" },
  { "", "Mean",            1, 0, F3,                        1, -1, mean_k, "consumed_inputs:ints" },
  { "", "Mean",            6, 0, F3,                        1, -1, mean_k, "" },
  { "", "Mean",            8, 0, F3,                        1, -1, mean_k, "" },
  { "", "Mean",           13, 0, F4,                        1, -1, mean_k, "" },
  { "", "Min",             1, 0, F3,                        1, -1, min_k, "consumed_inputs:ints" },
  { "", "Min",             6, 0, F3,                        1, -1, min_k, "" },
  { "", "Min",             8, 0, F3,                        1, -1, min_k, "" },
  { "", "Min",            12, 0, NUM,                       1, -1, min_k, "" },
  { "", "Min",            13, 0, NUM13,                     1, -1, min_k, "" },
  { "", "Max",             1, 0, F3,                        1, -1, max_k, "consumed_inputs:ints" },
  { "", "Max",             6, 0, F3,                        1, -1, max_k, "" },
  { "", "Max",             8, 0, F3,                        1, -1, max_k, "" },
  { "", "Max",            12, 0, NUM,                       1, -1, max_k, "" },
  { "", "Max",            13, 0, NUM13,                     1, -1, max_k, "" },
  { "", "PRelu",           1, 0, F3,                        2,  2, prelu_k,
    "consumed_inputs:ints" },
  { "", "PRelu",           6, 0, F3,                        2,  2, prelu_k, "" },
  /* unidirectional */
  { "", "PRelu",           7, 0, F3,                        2,  2, prelu_k, "" },
  { "", "PRelu",           9, 0, PRELU_T9,                  2,  2, prelu_k, "" },
  { "", "PRelu",          16, 0, PRELU_T9 | OX_T(BFLOAT16), 2,  2, prelu_k, "" },
  { "", "Equal",           1, 0, EQ_T1,                     2,  2, equal_k, BCAST6, binary_load },
  { "", "Equal",           7, 0, EQ_T1,                     2,  2, equal_k, "" },
  { "", "Equal",          11, 0, BOOL_T | NUM,              2,  2, equal_k, "" },
  { "", "Equal",          13, 0, BOOL_T | NUM13,            2,  2, equal_k, "" },
  { "", "Equal",          19, 0, BOOL_T | NUM13 | OX_T(STRING), 2,  2, equal_k, "" },
  { "", "Less",            1, 0, F3,                        2,  2, less_k, BCAST6, binary_load },
  { "", "Less",            7, 0, F3,                        2,  2, less_k, "" },
  { "", "Less",            9, 0, NUM,                       2,  2, less_k, "" },
  { "", "Less",           13, 0, NUM13,                     2,  2, less_k, "" },
  { "", "LessOrEqual",    12, 0, NUM,                       2,  2, less_equal_k, "" },
  { "", "LessOrEqual",    16, 0, NUM13,                     2,  2, less_equal_k, "" },
  { "", "Greater",         1, 0, F3,                        2,  2, greater_k, BCAST6, binary_load },
  { "", "Greater",         7, 0, F3,                        2,  2, greater_k, "" },
  { "", "Greater",         9, 0, NUM,                       2,  2, greater_k, "" },
  { "", "Greater",        13, 0, NUM13,                     2,  2, greater_k, "" },
  { "", "GreaterOrEqual", 12, 0, NUM,                       2,  2, greater_equal_k, "" },
  { "", "GreaterOrEqual", 16, 0, NUM13,                     2,  2, greater_equal_k, "" },
  { "", "And",             1, 0, BOOL_T,                    2,  2, and_k, BCAST6, binary_load },
  { "", "And",             7, 0, BOOL_T,                    2,  2, and_k, "" },
  { "", "Or",              1, 0, BOOL_T,                    2,  2, or_k, BCAST6, binary_load },
  { "", "Or",              7, 0, BOOL_T,                    2,  2, or_k, "" },
  { "", "Xor",             1, 0, BOOL_T,                    2,  2, xor_k, BCAST6, binary_load },
  { "", "Xor",             7, 0, BOOL_T,                    2,  2, xor_k, "" },
  { "", "BitShift",       11, 0, OX_TS_UINTS,               2,  2, bitshift_k,
    "direction:string:required", bitshift_load },
  { "", "BitwiseAnd",     18, 0, OX_TS_INTS,                2,  2, bitand_k, "" },
  { "", "BitwiseOr",      18, 0, OX_TS_INTS,                2,  2, bitor_k, "" },
  { "", "BitwiseXor",     18, 0, OX_TS_INTS,                2,  2, bitxor_k, "" },
  { "", "Where",           9, 1, OX_TS_CLASSIC,             3,  3, where_k, "" },
  { "", "Where",          16, 1, OX_TS_CLASSIC | OX_T(BFLOAT16), 3,  3, where_k, "" },
  {0},
};
