/* ops/quant.c: linear quantization: QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear, QLinearMatMul and QLinearConv.
 *
 * Quantize/Dequantize view x as (outer, D, inner) around the axis. A scale
 * (and its zero point) is per tensor (one element), per axis (1-D of D) or
 * blocked (x's shape with D replaced by ceil(D / block_size)); for each row
 * (o, d) of `inner` elements the parameters are one value (step 0) or, when
 * blocked, a contiguous row of `inner` values (step 1), so the inner loop has
 * no div/mod. Parameters are read once into double arrays; the elements are
 * computed in double, rounded once to the precision the spec names, and
 * stored by an output loop written once per kind (integers clamp, float8s
 * round with Cast's saturate rule, float4 always saturates).
 *
 * The quantized products subtract the zero points exactly: QLinearConv
 * through ConvInteger's 8-bit product (ops/conv.h, int32 sums), QLinearMatMul
 * through MatMulInteger's (int32 sums, its B packed at load when constant)
 * where no sum can pass int32's range, else in double through the blocked
 * GEMM (exact: every partial sum of 8-bit products is far below 2^53); both
 * requantize with the multiplier a_scale * b_scale / y_scale computed in
 * float, as the reference does. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "core/cpu.h"
#include "core/gemm.h"
#include "core/kernel.h"
#include "ops/twins.h"
#include "core/threads.h"
#include "ops/conv.h"

#define TS_F8                                                                         \
  (OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) | OX_T(FLOAT8E5M2FNUZ))
#define TS_I8 (OX_T(INT8) | OX_T(UINT8))
#define TS_2BIT (OX_T(INT2) | OX_T(UINT2))
/* DequantizeLinear's x (T1) as versions grew it; QuantizeLinear's y is the
 * same set without int32. */
#define TS_DQ10 (TS_I8 | OX_T(INT32))
#define TS_DQ19 (TS_DQ10 | TS_F8)
#define TS_DQ21 (TS_DQ19 | OX_T(INT16) | OX_T(UINT16) | OX_TS_4BIT)
#define TS_DQ23 (TS_DQ21 | OX_T(FLOAT4E2M1))
#define TS_DQ25 (TS_DQ23 | TS_2BIT)
#define TS_Q10_X (OX_T(FLOAT) | OX_T(INT32))
#define TS_Q19_X (TS_Q10_X | OX_T(FLOAT16) | OX_T(BFLOAT16))
#define TS_FP3 (OX_T(FLOAT) | OX_T(FLOAT16) | OX_T(BFLOAT16))

/* X(NAME, storage type, min, max): the integer outputs of QuantizeLinear
 * (4-bit and 2-bit types one element per byte, see core/dtype.h). */
#define QINT_TYPES(X)                                                                 \
  X(UINT8, uint8_t, 0, 255) X(INT8, int8_t, -128, 127)                                \
  X(UINT16, uint16_t, 0, 65535) X(INT16, int16_t, -32768, 32767)                      \
  X(UINT4, uint8_t, 0, 15) X(INT4, int8_t, -8, 7)                                     \
  X(UINT2, uint8_t, 0, 3) X(INT2, int8_t, -2, 1)

static int type_in(ox_ctx *c, int i, const ox_tensor *t, uint64_t mask, const char *what) {
  if (mask & (UINT64_C(1) << t->dt)) return 0;
  char list[512] = "";
  size_t n = 0;
  for (int d = 1; d < OX_DTYPE_MAX && n < sizeof list - 32; d++)
    if (mask & (UINT64_C(1) << d))
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", ox_dtypes[d].onnx_name);
  return ox_fail(c->err, OX_EINPUT, "%s is %s; %s must be one of %s", ox_input_name(c, i),
                 ox_dtypes[t->dt].onnx_name, what, list);
}

/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hook keeps for a node: each attribute its op-version has
 * (the others keep their defaults) */
typedef struct {
  int64_t axis, block, odt, prec, group;
  int saturate, auto_pad;
  ox_ints kernel_shape, strides, dilations, pads;
} quant_state;

int ox_quant_load(ox_ctx *c, void **state) {
  quant_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  int v = c->version;
  st->axis = ox_attr_int(c, "axis", 1);
  st->block = ox_attr_int(c, "block_size", 0);
  st->odt = ox_attr_int(c, "output_dtype", 0);
  st->saturate = 1;
  if (v >= 19) OX_TRY(ox_attr_int_in(c, "saturate", 1, 0, 1, &st->saturate));
  st->prec = ox_attr_int(c, "precision", 0);
  st->group = ox_attr_int(c, "group", 1);
  OX_TRY(ox_auto_pad(c, &st->auto_pad));
  OX_TRY(ox_window_attr(c, "kernel_shape", 1, &st->kernel_shape));
  OX_TRY(ox_window_attr(c, "strides", 1, &st->strides));
  OX_TRY(ox_window_attr(c, "dilations", 1, &st->dilations));
  OX_TRY(ox_window_attr(c, "pads", 0, &st->pads));
  return 0;
}
#define QST ((const quant_state *)c->state)

/* ---- the (outer, D, inner) layout of x and its parameters ---- */

typedef struct {
  int64_t outer, dim, inner; /* x: (outer, D, inner) around the axis */
  int kind;                  /* 0 per tensor, 1 per axis, 2 blocked */
  int64_t block, sdim;       /* blocked: scale (outer, sdim, inner), sdim = ceil(D / block) */
} qlayout;

static int qlayout_make(ox_ctx *c, const ox_tensor *x, const ox_tensor *s, const ox_tensor *zp,
                        int sidx, qlayout *L) {
  char s1[256], s2[256];
  int64_t axis = c->version >= 13 ? QST->axis : 1;
  int64_t block = c->version >= 21 ? QST->block : 0;
  if (zp) { /* zero point: the scale's shape */
    int same = zp->rank == s->rank || (zp->n == 1 && s->n == 1);
    for (int d = 0; same && d < zp->rank && zp->rank == s->rank; d++) same = zp->dims[d] == s->dims[d];
    if (!same)
      return ox_fail(c->err, OX_EINPUT, "the zero point has shape %s but the scale %s; they must match",
                     ox_shape_str(zp->rank, zp->dims, s1, sizeof s1),
                     ox_shape_str(s->rank, s->dims, s2, sizeof s2));
  }
  memset(L, 0, sizeof *L);
  L->outer = 1, L->dim = 1, L->inner = x->n;
  if (s->n == 1) return 0; /* per tensor: a scalar or a 1-element tensor (block_size unused) */
  if (c->version < 13 || (c->version < 21 && s->rank > 1))
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s; at opset %d it must be a %s",
                   ox_input_name(c, sidx), ox_shape_str(s->rank, s->dims, s1, sizeof s1), c->version,
                   c->version < 13 ? "scalar" : "scalar or a 1-D tensor");
  int ax;
  OX_TRY(ox_axis(c, axis, x->rank, 0, "axis", &ax));
  L->dim = x->dims[ax];
  L->inner = 1;
  if (!x->n) L->outer = L->inner = 0; /* nothing to walk, and (2^62, 2^62, 0) would overflow */
  for (int d = 0; d < ax && x->n; d++) L->outer *= x->dims[d];
  for (int d = ax + 1; d < x->rank && x->n; d++) L->inner *= x->dims[d];
  if (block == 0) { /* per axis */
    if (s->rank != 1 || s->dims[0] != L->dim)
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s; per-axis quantization along axis %d of "
                     "x %s needs (%lld,)", ox_input_name(c, sidx),
                     ox_shape_str(s->rank, s->dims, s1, sizeof s1), ax,
                     ox_shape_str(x->rank, x->dims, s2, sizeof s2), (long long)L->dim);
    L->kind = 1;
    return 0;
  }
  /* blocked (21): scale (D0, ..., ceil(Di / B), ..., Dn) */
  if (block < 0)
    return ox_fail(c->err, OX_EINPUT, "block_size is %lld; it must be positive", (long long)block);
  int ok = s->rank == x->rank;
  for (int d = 0; ok && d < x->rank; d++)
    ok = d == ax ? s->dims[d] == (x->dims[d] + block - 1) / block : s->dims[d] == x->dims[d];
  if (!ok)
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s; blocked quantization of x %s along axis %d "
                   "with block_size %lld needs x's shape with dim %d = ceil(%lld / %lld)",
                   ox_input_name(c, sidx), ox_shape_str(s->rank, s->dims, s1, sizeof s1),
                   ox_shape_str(x->rank, x->dims, s2, sizeof s2), ax, (long long)block, ax,
                   (long long)L->dim, (long long)block);
  L->kind = 2;
  L->block = block;
  L->sdim = s->dims[ax];
  return 0;
}

/* What QuantizeLinear and DequantizeLinear start with: the layout, the
 * output y (x's shape, of type yt) and, unless y is empty, x, the scale and
 * the zero point (NULL when absent) as doubles. */
static int q_start(ox_ctx *c, const ox_tensor *x, const ox_tensor *s, const ox_tensor *zp,
                   ox_dtype yt, ox_value **out, qlayout *L, double **xd, double **sd, double **zd) {
  OX_TRY(qlayout_make(c, x, s, zp, 1, L));
  OX_TRY(ox_tensor_new(c->a, yt, x->rank, x->dims, out, c->err));
  *xd = *sd = *zd = NULL;
  if ((*out)->u.t.n == 0) return 0;
  if (!(*xd = ox_widen_f64(c->a, x, c->err)) || !(*sd = ox_widen_f64(c->a, s, c->err)))
    return c->err->code;
  if (zp && !(*zd = ox_widen_f64(c->a, zp, c->err))) return c->err->code;
  return 0;
}

/* Visit every row (o, d) of x: BODY sees xo (element offset of the row), po
 * (parameter offset) and ps (parameter step along the row, 0 or 1). */
#define FOR_ROWS(L, ...)                                                             \
  do {                                                                                \
    int64_t xo = 0;                                                                   \
    for (int64_t o = 0; o < (L).outer; o++)                                           \
      for (int64_t d = 0, bi = 0, bk = 0; d < (L).dim; d++) {                         \
        int64_t po = (L).kind == 0 ? 0 : (L).kind == 1 ? d : (o * (L).sdim + bi) * (L).inner; \
        int64_t ps = (L).kind == 2;                                                   \
        __VA_ARGS__;                                                                  \
        xo += (L).inner;                                                              \
        if (++bk == (L).block) bk = 0, bi++;                                          \
      }                                                                               \
  } while (0)

/* ---- QuantizeLinear-10, -13, -19, -21, -23, -24, -25 ---- */

static int q8_run(ox_ctx *c, int dq, const ox_tensor *x, const ox_tensor *s, const ox_tensor *zp,
                  ox_dtype yt, const qlayout *L, ox_value **out);

/* The type numpy's x / y divides in for x of type a and y of type b: the
 * common type, float32 for two different small floats, float64 as soon as
 * one is double or int32 (int32 / int32 too: true division). */
static ox_dtype div_type(ox_dtype a, ox_dtype b) {
  if (a == OX_DOUBLE || b == OX_DOUBLE || a == OX_INT32 || b == OX_INT32) return OX_DOUBLE;
  return a == b ? a : OX_FLOAT;
}

/* x / scale as the reference divides: in type p, the operands first cast to
 * p when `precision` asks for it. */
static double qdiv(ox_dtype p, int cast, double x, double s) {
  return cast ? ox_round_to(p, ox_round_to(p, x) / ox_round_to(p, s)) : ox_round_to(p, x / s);
}

static int quantize(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *s, *zp;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &s));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &zp));
  int v = c->version;
  /* y_scale: float (10, 13); x's type (19, 21); T2 (23); e8m0 too (24) */
  uint64_t ts = v < 19 ? OX_T(FLOAT) : v < 23 ? (UINT64_C(1) << x->dt)
              : v < 24 ? TS_Q19_X : TS_Q19_X | OX_T(FLOAT8E8M0);
  OX_TRY(type_in(c, 1, s, ts, v >= 19 && v < 23 ? "y_scale (T1, the type of x)" : "y_scale"));
  uint64_t ty = v < 19 ? TS_I8 : v < 21 ? TS_I8 | TS_F8 : v < 23 ? (TS_DQ21 & ~OX_T(INT32))
              : v < 25 ? (TS_DQ23 & ~OX_T(INT32)) : (TS_DQ25 & ~OX_T(INT32));
  int64_t odt = v >= 21 ? QST->odt : 0;
  int saturate = v >= 19 ? QST->saturate : 1;
  int64_t prec = v >= 23 ? QST->prec : 0;
  ox_dtype yt = OX_UINT8;
  if (zp) {
    OX_TRY(type_in(c, 2, zp, ty, "y_zero_point"));
    if (odt && odt != zp->dt)
      return ox_fail(c->err, OX_EINPUT, "output_dtype is %lld but y_zero_point is %s; they must agree",
                     (long long)odt, ox_dtypes[zp->dt].onnx_name);
    yt = zp->dt;
  } else if (odt) {
    if (!ox_dtype_valid(odt) || !(ty & (UINT64_C(1) << odt)))
      return ox_fail(c->err, OX_EINPUT, "output_dtype %lld is not a type QuantizeLinear-%d makes",
                     (long long)odt, v);
    yt = (ox_dtype)odt;
  }
  /* The division runs in numpy's promotion of x's and y_scale's types (the
   * reference's x / y_scale: float16 with float32 divides in float32); with
   * `precision` (23) both are first cast to it (x.astype(p) / y_scale.astype(p)). */
  ox_dtype st = s->dt == OX_FLOAT8E8M0 ? OX_FLOAT : s->dt; /* e8m0 (24): powers of 2, divide in float */
  ox_dtype pt = div_type(x->dt, st);
  if (prec) {
    if (prec != OX_FLOAT && prec != OX_FLOAT16 && prec != OX_BFLOAT16 && prec != OX_DOUBLE)
      return ox_fail(c->err, OX_EINPUT, "precision %lld is not a float type", (long long)prec);
    pt = (ox_dtype)prec;
  }
  int cast = prec != 0;
  qlayout L;
  /* float x and scale to 8 bits, per tensor or per axis: in float, 8 lanes at
   * a time (q8_run); the same values, see there */
  if (x->dt == OX_FLOAT && s->dt == OX_FLOAT && pt == OX_FLOAT && !cast &&
      (yt == OX_UINT8 || yt == OX_INT8)) {
    OX_TRY(qlayout_make(c, x, s, zp, 1, &L));
    if (L.kind != 2) return q8_run(c, 0, x, s, zp, yt, &L, out);
  }
  double *xd, *sd, *zd;
  OX_TRY(q_start(c, x, s, zp, yt, out, &L, &xd, &sd, &zd));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  /* q = x / scale at the division's precision, then per output kind:
   * integers: rint (ties to even) + zero point, clamped to the type's range
   * (NaN to the minimum, as the reference's int32 cast gives);
   * float8 (19): q + zero point, rounded with the saturate rule;
   * float4e2m1 (23): q + zero point, always saturating. */
  switch (yt) {
#define CASE(NAME, T, LO, HI)                                                         \
  case OX_##NAME: {                                                                   \
    T *Y = y->data;                                                                   \
    FOR_ROWS(L, {                                                                     \
      const double *sp = sd + po, *zpp = zd ? zd + po : NULL;                         \
      for (int64_t i = 0; i < L.inner; i++) {                                         \
        double r = nearbyint(qdiv(pt, cast, xd[xo + i], sp[i * ps]));                 \
        if (zpp) r += zpp[i * ps];                                                    \
        Y[xo + i] = !(r >= (LO)) ? (T)(LO) : r > (HI) ? (T)(HI) : (T)r;               \
      }                                                                               \
    });                                                                               \
    break;                                                                            \
  }
    QINT_TYPES(CASE)
#undef CASE
  default: { /* float8s and float4e2m1 */
    uint8_t *Y = y->data;
    int f4 = yt == OX_FLOAT4E2M1;
    FOR_ROWS(L, {
      const double *sp = sd + po, *zpp = zd ? zd + po : NULL;
      for (int64_t i = 0; i < L.inner; i++) {
        double r = qdiv(pt, cast, xd[xo + i], sp[i * ps]);
        if (zpp && zpp[i * ps] != 0) r += zpp[i * ps]; /* a zero point of 0 keeps -0 */
        Y[xo + i] = f4 ? ox_f32_to_f4((float)r) : ox_f32_to_f8(yt, (float)r, saturate);
      }
    });
  }
  }
  return 0;
}

/* ---- DequantizeLinear-10, -13, -19, -21, -23, -24, -25 ---- */

static int dequantize(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x, *s, *zp;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &s));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &zp));
  int v = c->version;
  uint64_t ts = v < 19 ? OX_T(FLOAT) : v < 24 ? TS_FP3 : TS_FP3 | OX_T(FLOAT8E8M0);
  OX_TRY(type_in(c, 1, s, ts, "x_scale"));
  if (zp && zp->dt != x->dt)
    return ox_fail(c->err, OX_EINPUT, "x_zero_point is %s but x is %s; they must have the same type",
                   ox_dtypes[zp->dt].onnx_name, ox_dtypes[x->dt].onnx_name);
  int64_t odt = v >= 23 ? QST->odt : 0;
  ox_dtype yt = s->dt;
  if (odt) {
    if (odt != OX_FLOAT && odt != OX_FLOAT16 && odt != OX_BFLOAT16)
      return ox_fail(c->err, OX_EINPUT, "output_dtype %lld must be float, float16 or bfloat16",
                     (long long)odt);
    yt = (ox_dtype)odt;
  } else if (yt == OX_FLOAT8E8M0) {
    return ox_fail(c->err, OX_EINPUT, "x_scale is float8e8m0; output_dtype must name the output type");
  }
  qlayout L;
  /* 8-bit x to float with a float scale, per tensor or per axis: in float
   * (q8_run), the same values */
  if ((x->dt == OX_UINT8 || x->dt == OX_INT8) && s->dt == OX_FLOAT && yt == OX_FLOAT) {
    OX_TRY(qlayout_make(c, x, s, zp, 1, &L));
    if (L.kind != 2) return q8_run(c, 1, x, s, zp, OX_FLOAT, &L, out);
  }
  double *xd, *sd, *zd;
  OX_TRY(q_start(c, x, s, zp, yt, out, &L, &xd, &sd, &zd));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  /* y = (x - zero point) * scale: the difference is exact in double, the
   * product rounds once to the output type (23: "the output type determines
   * the precision of the multiplication"). */
#define DQ_LOOP(T, STORE)                                                             \
  do {                                                                                \
    T *Y = y->data;                                                                   \
    FOR_ROWS(L, {                                                                     \
      const double *sp = sd + po, *zpp = zd ? zd + po : NULL;                         \
      if (zpp)                                                                        \
        for (int64_t i = 0; i < L.inner; i++)                                         \
          Y[xo + i] = STORE((xd[xo + i] - zpp[i * ps]) * sp[i * ps]);                 \
      else                                                                            \
        for (int64_t i = 0; i < L.inner; i++) Y[xo + i] = STORE(xd[xo + i] * sp[i * ps]); \
    });                                                                               \
  } while (0)
#define ST_F(r) ((float)(r))
#define ST_H(r) ox_f32_to_f16((float)(r))
#define ST_B(r) ox_f32_to_bf16((float)(r))
  switch (yt) {
  case OX_FLOAT: DQ_LOOP(float, ST_F); break;
  case OX_FLOAT16: DQ_LOOP(uint16_t, ST_H); break;
  default: DQ_LOOP(uint16_t, ST_B); break;
  }
#undef ST_F
#undef ST_H
#undef ST_B
#undef DQ_LOOP
  return 0;
}

/* ---- DynamicQuantizeLinear-11 ---- */

/* Two passes over x, each split over the threads: the range (each chunk's
 * min and max, then theirs: the same values in any order) and the
 * quantization (element by element). On x86-64 with AVX2 both run 8 lanes
 * at a time; a lane does what the scalar loop does, so the bytes are the
 * same: min/max skip NaN (vminps/vmaxps return the second operand when one
 * is NaN, as fminf/fmaxf return the other), the division is IEEE, rounding
 * is to nearest even (nearbyintf in the default mode), and the clamp sends
 * NaN to 0. */
typedef struct {
  const float *x;
  uint8_t *y;
  float scale, zp;
  float lo[OX_MAX_THREADS], hi[OX_MAX_THREADS]; /* per slot */
} dql_job;

static void range_plain(const float *x, int64_t n, float *lo, float *hi) {
  float l = *lo, h = *hi;
  for (int64_t i = 0; i < n; i++) {
    l = fminf(l, x[i]);
    h = fmaxf(h, x[i]);
  }
  *lo = l, *hi = h;
}

/* y = saturate(round(x / scale) + zp) into uint8 or, with sgn, int8 (NaN:
 * the type's minimum) */
static void quant_plain(const float *x, uint8_t *y, int64_t n, float scale, float zp, int sgn) {
  float lo = sgn ? -128.0f : 0.0f, hi = sgn ? 127.0f : 255.0f;
  for (int64_t i = 0; i < n; i++) {
    float r = nearbyintf(x[i] / scale) + zp;
    r = !(r >= lo) ? lo : r > hi ? hi : r;
    y[i] = sgn ? (uint8_t)(int8_t)r : (uint8_t)r;
  }
}

#if OX_X86_DISPATCH
OX_TARGET_AVX2 static void range_avx2(const float *x, int64_t n, float *lo, float *hi) {
  __m256 l = _mm256_set1_ps(*lo), h = _mm256_set1_ps(*hi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    l = _mm256_min_ps(v, l); /* NaN in v: l kept */
    h = _mm256_max_ps(v, h);
  }
  float ls[8], hs[8];
  _mm256_storeu_ps(ls, l);
  _mm256_storeu_ps(hs, h);
  for (int k = 0; k < 8; k++) {
    *lo = fminf(*lo, ls[k]);
    *hi = fmaxf(*hi, hs[k]);
  }
  range_plain(x + i, n - i, lo, hi);
}

OX_TARGET_AVX2 static __m256i quant8_avx2(const float *x, __m256 s, __m256 z, __m256 lo,
                                          __m256 hi) {
  __m256 r = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x), s),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm256_max_ps(_mm256_add_ps(r, z), lo); /* NaN: lo */
  return _mm256_cvtps_epi32(_mm256_min_ps(r, hi));
}

OX_TARGET_AVX2 static void quant_avx2(const float *x, uint8_t *y, int64_t n, float scale,
                                      float zp, int sgn) {
  __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(zp);
  __m256 lo = _mm256_set1_ps(sgn ? -128.0f : 0.0f), hi = _mm256_set1_ps(sgn ? 127.0f : 255.0f);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a = quant8_avx2(x + i, s, z, lo, hi), b = quant8_avx2(x + i + 8, s, z, lo, hi);
    __m256i c = quant8_avx2(x + i + 16, s, z, lo, hi), d = quant8_avx2(x + i + 24, s, z, lo, hi);
    /* in range in 32 bits -> 16 -> 8 (per 128-bit lane), then the lanes in order */
    __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
    __m256i q = sgn ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
    _mm256_storeu_si256((__m256i *)(y + i), _mm256_permutevar8x32_epi32(q, order));
  }
  quant_plain(x + i, y + i, n - i, scale, zp, sgn);
}
#endif

/* For tests: at most this level (core/cpu.h's: 0 the plain loops, 1 AVX2;
 * -1 the best the CPU has, the default). */
void ox_quant_max_isa(int level);
static int quant_cap = OX_CPU_AVX512;
void ox_quant_max_isa(int level) { quant_cap = level < 0 ? OX_CPU_AVX512 : level; }

static int dql_avx2(void) {
#if OX_X86_DISPATCH
  return ox_cpu_level() >= OX_CPU_AVX2 && quant_cap >= OX_CPU_AVX2;
#else
  return 0;
#endif
}

static void dql_range_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  dql_job *j = arg;
  float l = 0, h = 0;
#if OX_X86_DISPATCH
  if (dql_avx2()) range_avx2(j->x + lo, hi - lo, &l, &h);
  else
#endif
    range_plain(j->x + lo, hi - lo, &l, &h);
  j->lo[slot] = fminf(j->lo[slot], l);
  j->hi[slot] = fmaxf(j->hi[slot], h);
}

static void dql_quant_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  dql_job *j = arg;
#if OX_X86_DISPATCH
  if (dql_avx2()) quant_avx2(j->x + lo, j->y + lo, hi - lo, j->scale, j->zp, 0);
  else
#endif
    quant_plain(j->x + lo, j->y + lo, hi - lo, j->scale, j->zp, 0);
}

/* uint8 only: the range [min(0, min x), max(0, max x)] maps onto [0, 255];
 * scale and zero point in float as the spec's formulas (and the reference)
 * compute them; NaN elements are skipped by the range. */
static int dynamic_quantize(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  dql_job *j = ox_alloc(c->a, sizeof *j);
  if (!j) return ox_oom(c->err, NULL);
  j->x = x->data;
  int nch = ox_par_chunks_mem(c->threads, x->n, 4.0 * (double)x->n);
  for (int k = 0; k < nch; k++) j->lo[k] = j->hi[k] = 0;
  if (nch <= 1) dql_range_chunk(j, 0, 0, x->n);
  else ox_par_for(x->n, nch, dql_range_chunk, j);
  float lo = 0, hi = 0;
  for (int k = 0; k < nch; k++) {
    lo = fminf(lo, j->lo[k]);
    hi = fmaxf(hi, j->hi[k]);
  }
  float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
  float zp0 = 0.0f - lo / scale;
  float zp = nearbyintf(zp0 < 0 ? 0 : zp0 > 255 ? 255 : zp0);
  ox_value *y, *ys, *yz;
  OX_TRY(ox_tensor_new_uninit(c->a, OX_UINT8, x->rank, x->dims, &y, c->err));
  OX_TRY(ox_scalar_new(c->a, OX_FLOAT, &ys, c->err));
  OX_TRY(ox_scalar_new(c->a, OX_UINT8, &yz, c->err));
  j->y = y->u.t.data;
  j->scale = scale;
  j->zp = zp;
  nch = ox_par_chunks_mem(c->threads, x->n, 5.0 * (double)x->n);
  if (nch <= 1) dql_quant_chunk(j, 0, 0, x->n);
  else ox_par_for(x->n, nch, dql_quant_chunk, j);
  *(float *)ys->u.t.data = scale;
  *(uint8_t *)yz->u.t.data = (uint8_t)zp;
  ox_value *res[3] = {y, ys, yz};
  for (int k = 0; k < nout && k < 3; k++) out[k] = res[k];
  return 0;
}

/* The 8-bit paths of QuantizeLinear (float x and y_scale to uint8 or int8)
 * and DequantizeLinear (uint8 or int8 x and a float x_scale to float), per
 * tensor or per axis: rows of `inner` elements with one scale and zero
 * point, cut into pieces of Q8_PIECE elements split over the threads.
 *
 * Quantize: the reference divides in float32 (numpy's x / y_scale), rounds
 * half to even and adds the zero point: in float that is the same number
 * while |round(x / scale)| < 2^24, and past that both saturate alike (the
 * zero point is at most 255).
 * Dequantize: x - zero point is an integer of at most 9 bits, exact in
 * float, and its product with the scale (33 bits at most) is exact in
 * double: rounding it once to float, as the reference does, is the float
 * product. */
#define Q8_PIECE 16384
typedef struct {
  int dq;              /* 0 quantize: x float, y 8-bit; 1 dequantize: the other way */
  const char *x;
  char *y;
  const float *scale;  /* per row of the axis (one for per tensor) */
  const float *zq;     /* quantize: the zero points as floats */
  const int32_t *zd;   /* dequantize: as int32 */
  int64_t dim, inner, pieces;
  int kind, sgn;       /* per axis; the 8-bit side signed */
} q8_job;

static void dq8_plain(const uint8_t *x, float *y, int64_t n, float s, int32_t z, int sgn) {
  if (sgn)
    for (int64_t i = 0; i < n; i++) y[i] = (float)((int32_t)(int8_t)x[i] - z) * s;
  else
    for (int64_t i = 0; i < n; i++) y[i] = (float)((int32_t)x[i] - z) * s;
}

#if OX_X86_DISPATCH
OX_TARGET_AVX2 static void dq8_avx2(const uint8_t *x, float *y, int64_t n, float s, int32_t z,
                                    int sgn) {
  __m256 sv = _mm256_set1_ps(s);
  __m256i zv = _mm256_set1_epi32(z);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i b = _mm_loadl_epi64((const __m128i *)(x + i));
    __m256i v = sgn ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    __m256 d = _mm256_cvtepi32_ps(_mm256_sub_epi32(v, zv));
    _mm256_storeu_ps(y + i, _mm256_mul_ps(d, sv));
  }
  dq8_plain(x + i, y + i, n - i, s, z, sgn);
}
#endif

static void q8_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  const q8_job *j = arg;
  size_t xs = j->dq ? 1 : sizeof(float), ys = j->dq ? sizeof(float) : 1;
  for (int64_t u = lo; u < hi; u++) {
    int64_t row = u / j->pieces, p0 = u % j->pieces * Q8_PIECE;
    int64_t n = j->inner - p0 < Q8_PIECE ? j->inner - p0 : Q8_PIECE, d = j->kind ? row % j->dim : 0;
    const void *x = j->x + (size_t)(row * j->inner + p0) * xs;
    void *y = j->y + (size_t)(row * j->inner + p0) * ys;
#if OX_X86_DISPATCH
    if (dql_avx2()) {
      if (j->dq) dq8_avx2(x, y, n, j->scale[d], j->zd[d], j->sgn);
      else quant_avx2(x, y, n, j->scale[d], j->zq[d], j->sgn);
      continue;
    }
#endif
    if (j->dq) dq8_plain(x, y, n, j->scale[d], j->zd[d], j->sgn);
    else quant_plain(x, y, n, j->scale[d], j->zq[d], j->sgn);
  }
}

/* y (yt) from x, as above; zp: NULL, or the scale's shape and yt's (quantize)
 * or x's (dequantize) type */
static int q8_run(ox_ctx *c, int dq, const ox_tensor *x, const ox_tensor *s, const ox_tensor *zp,
                  ox_dtype yt, const qlayout *L, ox_value **out) {
  OX_TRY(ox_tensor_new_uninit(c->a, yt, x->rank, x->dims, out, c->err));
  if (!x->n) return 0;
  float *zq = ox_alloc_array(c->a, s->n, sizeof *zq);
  int32_t *zd = ox_alloc_array(c->a, s->n, sizeof *zd);
  if (!zq || !zd) return ox_oom(c->err, NULL);
  for (int64_t d = 0; d < s->n; d++) {
    zd[d] = zp ? (int32_t)ox_load_i64(zp->dt, zp->data, d) : 0;
    zq[d] = (float)zd[d];
  }
  q8_job j = {dq, x->data, (*out)->u.t.data, s->data, zq, zd, L->dim, L->inner,
              (L->inner + Q8_PIECE - 1) / Q8_PIECE, L->kind, (dq ? x->dt : yt) == OX_INT8};
  int64_t units = L->outer * L->dim * j.pieces;
  int nch = ox_par_chunks_mem(c->threads, units, (double)(ox_dtype_size(x->dt) + ox_dtype_size(yt)) * (double)x->n);
  if (nch <= 1) q8_chunk(&j, 0, 0, units);
  else ox_par_for(units, nch, q8_chunk, &j);
  return 0;
}

/* ---- the quantized products ---- */

/* v - zp as doubles, zp broadcast against v (shape checked by the iterator);
 * a per-row parameter of a matrix, (M,) for v (..., M, K), is viewed as
 * (M, 1) first. */
static void rows_view(const ox_tensor *p, const ox_tensor *v, ox_tensor *view, int64_t *dims2) {
  *view = *p;
  if (v->rank >= 2 && p->rank == 1 && p->n > 1 && p->dims[0] == v->dims[v->rank - 2]) {
    dims2[0] = p->dims[0], dims2[1] = 1;
    view->rank = 2;
    view->dims = dims2;
  }
}

static double *minus_zp(ox_ctx *c, const ox_tensor *v, const ox_tensor *zp, const char *what) {
  double *d = ox_alloc_array(c->a, v->n + 1, sizeof *d), *X = ox_widen_f64(c->a, v, c->err),
         *Z = ox_widen_f64(c->a, zp, c->err);
  if (!d || !X || !Z) {
    if (!c->err->code) ox_oom(c->err, NULL);
    return NULL;
  }
  if (v->n == 0) return d;
  ox_bcast it;
  if (ox_bcast_init(&it, 2, (const ox_tensor *[]){v, zp}, v->rank, v->dims, c->err)) {
    ox_prefix(c->err, "%s: ", what);
    return NULL;
  }
  do {
    for (int64_t i = 0; i < it.inner; i++)
      d[it.out + i] = X[it.off[0] + i * it.step[0]] - Z[it.off[1] + i * it.step[1]];
  } while (ox_bcast_next(&it));
  return d;
}

/* Store r[0..n) (acc * multiplier + zero point) into y from element o:
 * integers rint (ties to even) and clamp, float8s round saturating (r is
 * overwritten). The clamp comes first, NaN to lo: lo and hi are integers,
 * so it commutes with the rounding, and the rounding of a value so small
 * is adding and subtracting 1.5 * 2^52 (nearbyint's result in any rounding
 * mode, without a call to libm per element). On x86 in SSE2's maxpd and
 * minpd, which compute exactly the clamp's `v > lo ? v : lo`: written in C,
 * gcc made branches of it (and of the conversion after) that random data
 * mispredicts. */
static void clamp_round(double *r, int64_t n, double lo, double hi) {
  const double big = 0x1.8p52;
  int64_t i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  const __m128d L = _mm_set1_pd(lo), H = _mm_set1_pd(hi), B = _mm_set1_pd(big);
  for (; i + 2 <= n; i += 2) {
    __m128d v = _mm_min_pd(_mm_max_pd(_mm_loadu_pd(r + i), L), H);
    _mm_storeu_pd(r + i, _mm_sub_pd(_mm_add_pd(v, B), B));
  }
#endif
  for (; i < n; i++) {
    double v = r[i] > lo ? r[i] : lo;
    v = v < hi ? v : hi;
    r[i] = (v + big) - big;
  }
}
static void store_q(ox_dtype dt, void *y, int64_t o, double *r, int64_t n) {
  switch (dt) {
#define CASE(NAME, T, LO, HI)                                                         \
  case OX_##NAME: {                                                                   \
    T *Y = (T *)y + o;                                                                \
    clamp_round(r, n, LO, HI);                                                        \
    for (int64_t i = 0; i < n; i++) Y[i] = (T)(int32_t)r[i];                          \
    break;                                                                            \
  }
    QINT_TYPES(CASE)
#undef CASE
  default:
    for (int64_t i = 0; i < n; i++) ((uint8_t *)y)[o + i] = ox_f32_to_f8(dt, (float)r[i], 1);
  }
}

/* y = requant(acc): acc (full dims (..., M, N)), per element the multiplier
 * a_scale * b_scale / y_scale computed in the scales' type (as the reference's
 * numpy arithmetic does), then + y_zero_point. The multipliers of a run of
 * the iterator depend only on where it reads the three scales: computed
 * once for a run that reads each scale at one place (per tensor), else
 * again only when a run reads them elsewhere than the run before. */
static int requantize(ox_ctx *c, int rank, const int64_t *dims, const double *acc,
                      const ox_tensor *as, const ox_tensor *bs, const ox_tensor *ys,
                      const ox_tensor *yz, ox_tensor *y) {
  double *AS = ox_widen_f64(c->a, as, c->err), *BS = ox_widen_f64(c->a, bs, c->err);
  double *YS = ox_widen_f64(c->a, ys, c->err), *YZ = ox_widen_f64(c->a, yz, c->err);
  if (!AS || !BS || !YS || !YZ) return c->err->code;
  ox_dtype st = ys->dt;
  ox_bcast it;
  OX_TRY(ox_bcast_init(&it, 4, (const ox_tensor *[]){as, bs, ys, yz}, rank, dims, c->err));
  if (it.n == 0) return 0;
  int one = !it.step[0] && !it.step[1] && !it.step[2]; /* one multiplier a run */
  double *r = ox_alloc_array(c->a, it.inner + 1, sizeof *r), *m = ox_alloc_array(c->a, one ? 1 : it.inner + 1, sizeof *m);
  if (!r || !m) return ox_oom(c->err, NULL);
  int64_t at[3] = {-1, -1, -1}; /* where the run before read the scales */
  do {
    if (it.off[0] != at[0] || it.off[1] != at[1] || it.off[2] != at[2]) {
      for (int64_t i = 0; i < (one ? 1 : it.inner); i++)
        m[i] = ox_round_to(st, ox_round_to(st, AS[it.off[0] + i * it.step[0]] * BS[it.off[1] + i * it.step[1]]) /
                                   YS[it.off[2] + i * it.step[2]]);
      at[0] = it.off[0], at[1] = it.off[1], at[2] = it.off[2];
    }
    const double *ac = acc + it.out;
    if (one && !it.step[3]) { /* per tensor: a loop that vectorises */
      double m0 = m[0], z0 = YZ[it.off[3]];
      for (int64_t i = 0; i < it.inner; i++) r[i] = ac[i] * m0 + z0;
    } else {
      for (int64_t i = 0; i < it.inner; i++) r[i] = ac[i] * m[one ? 0 : i] + YZ[it.off[3] + i * it.step[3]];
    }
    store_q(y->dt, y->data, it.out, r, it.inner);
  } while (ox_bcast_next(&it));
  return 0;
}

/* ---- QLinearMatMul-10, -21 ----
 * acc = (a - a_zero_point) (b - b_zero_point), exact, then requantized.
 * For 8-bit integers, zero points per tensor, per row of a or per column
 * of b, and K <= 33025 (|acc| <= K * 255 * 255 < 2^31), MatMulInteger's
 * kernel gives acc in int32 exactly (with b packed at load, its hook
 * reading input 3): the same values as the double product, which takes
 * every other case (float8, other zero-point shapes, longer sums). */
enum { QLMM_INT_K = 33025 };

/* zp is a scalar, or (len,) of a per-row or per-column parameter */
static int zp_simple(const ox_tensor *zp, int64_t len) { return zp->n == 1 || (zp->rank == 1 && zp->dims[0] == len); }

static int qlinear_matmul_load(ox_ctx *c, void **state) { return ox_matmul_integer_load_b(c, 3, state); }

/* acc as doubles from MatMulInteger's int32 sums, or NULL (not that case,
 * or c->err set) */
static double *qlmm_int_acc(ox_ctx *c, ox_value **in, const ox_tensor *a, const ox_tensor *az, const ox_tensor *b,
                            const ox_tensor *bz, int64_t M, int64_t K, int64_t N) {
  const uint64_t i8 = OX_T(INT8) | OX_T(UINT8);
  if (!(i8 >> a->dt & 1) || !(i8 >> b->dt & 1) || K > QLMM_INT_K || !zp_simple(az, a->rank >= 2 ? M : 1) ||
      !zp_simple(bz, b->rank >= 2 ? N : 1) || (az->n > 1 && a->rank < 2) || (bz->n > 1 && b->rank < 2))
    return NULL;
  ox_value *mi[4] = {in[0], in[3], in[2], in[5]}, *acc = NULL; /* A, B, a_zero_point, b_zero_point */
  if (ox_matmul_integer_prepared_k(c, c->state, 4, mi, &acc)) return NULL;
  const ox_tensor *t = &acc->u.t;
  double *d = ox_alloc_uninit(c->a, (size_t)(t->n + 1) * sizeof *d); /* all written */
  if (!d) {
    ox_oom(c->err, NULL);
    return NULL;
  }
  for (int64_t i = 0; i < t->n; i++) d[i] = ((const int32_t *)t->data)[i];
  return d;
}

static int qlinear_matmul(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *t[8];
  char s1[256], s2[256];
  for (int i = 0; i < 8; i++) OX_TRY(ox_tensor_in(c, in, nin, i, &t[i]));
  const ox_tensor *a = t[0], *as = t[1], *az = t[2], *b = t[3], *bs = t[4], *bz = t[5];
  const ox_tensor *ys = t[6], *yz = t[7];
  int v21 = c->version >= 21;
  uint64_t tq = v21 ? TS_I8 | TS_F8 : TS_I8, tsc = v21 ? TS_FP3 : OX_T(FLOAT);
  OX_TRY(type_in(c, 3, b, tq, "T2"));
  OX_TRY(type_in(c, 7, yz, tq, "T3"));
  for (int k = 0; k < 3; k++) { /* the scales: inputs 1, 4, 6 */
    int i = k == 0 ? 1 : k == 1 ? 4 : 6;
    OX_TRY(type_in(c, i, t[i], tsc, "the scale"));
    if (t[i]->dt != as->dt)
      return ox_fail(c->err, OX_EINPUT, "%s is %s but a_scale is %s; the scales share one type",
                     ox_input_name(c, i), ox_dtypes[t[i]->dt].onnx_name, ox_dtypes[as->dt].onnx_name);
  }
  if (az->dt != a->dt || bz->dt != b->dt)
    return ox_fail(c->err, OX_EINPUT, "%s must have the type of %s", az->dt != a->dt ? "a_zero_point" : "b_zero_point",
                   az->dt != a->dt ? "a" : "b");
  if (ys->n != 1 || yz->n != 1)
    return ox_fail(c->err, OX_EINPUT, "y_scale and y_zero_point must be scalars (per tensor)");
  for (int k = 0; k < 2; k++) { /* a scale and its zero point: the same shape */
    const ox_tensor *sc = k ? bs : as, *zp = k ? bz : az;
    int same = sc->rank == zp->rank || (sc->n == 1 && zp->n == 1);
    for (int d = 0; same && sc->rank == zp->rank && d < sc->rank; d++) same = sc->dims[d] == zp->dims[d];
    if (!same)
      return ox_fail(c->err, OX_EINPUT, "%s_scale has shape %s but %s_zero_point %s; they must match",
                     k ? "b" : "a", ox_shape_str(sc->rank, sc->dims, s1, sizeof s1), k ? "b" : "a",
                     ox_shape_str(zp->rank, zp->dims, s2, sizeof s2));
  }
  if (a->rank < 1 || b->rank < 1)
    return ox_fail(c->err, OX_EINPUT, "a and b must have rank 1 or more");
  /* numpy.matmul shapes: a (..., M, K) or (K,), b (..., K, N) or (K,) */
  int ra = a->rank, rb = b->rank;
  int64_t M = ra >= 2 ? a->dims[ra - 2] : 1, K = a->dims[ra - 1];
  int64_t N = rb >= 2 ? b->dims[rb - 1] : 1, Kb = rb >= 2 ? b->dims[rb - 2] : b->dims[0];
  if (K != Kb)
    return ox_fail(c->err, OX_EINPUT, "inner dimensions differ: a is %s, b is %s",
                   ox_shape_str(ra, a->dims, s1, sizeof s1), ox_shape_str(rb, b->dims, s2, sizeof s2));
  int na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0, nbd = na > nb ? na : nb;
  if (nbd + 2 > OX_BCAST_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "rank over %d", OX_BCAST_MAX_RANK);
  int64_t full[OX_BCAST_MAX_RANK], sa[OX_BCAST_MAX_RANK], sb[OX_BCAST_MAX_RANK], odims[OX_BCAST_MAX_RANK];
  int64_t stra = M * K, strb = K * N;
  for (int d = nbd - 1; d >= 0; d--) {
    int da = d - (nbd - na), db = d - (nbd - nb);
    int64_t x = da >= 0 ? a->dims[da] : 1, z = db >= 0 ? b->dims[db] : 1;
    if (x != z && x != 1 && z != 1)
      return ox_fail(c->err, OX_EINPUT, "batch dimensions do not broadcast: a is %s, b is %s",
                     ox_shape_str(ra, a->dims, s1, sizeof s1), ox_shape_str(rb, b->dims, s2, sizeof s2));
    full[d] = x == 1 ? z : x;
    sa[d] = x == 1 ? 0 : stra;
    sb[d] = z == 1 ? 0 : strb;
    stra *= x, strb *= z;
  }
  full[nbd] = M, full[nbd + 1] = N;
  int orank = 0;
  for (int d = 0; d < nbd; d++) odims[orank++] = full[d];
  if (ra >= 2) odims[orank++] = M;
  if (rb >= 2) odims[orank++] = N;
  OX_TRY(ox_tensor_new_uninit(c->a, yz->dt, orank, odims, out, c->err)); /* requantize writes it all */
  ox_tensor *y = &(*out)->u.t;
  ox_tensor azv, asv;
  int64_t d2a[2], d2s[2];
  rows_view(as, a, &asv, d2s);
  double *iacc = qlmm_int_acc(c, in, a, az, b, bz, M, K, N);
  if (iacc) return requantize(c, nbd + 2, full, iacc, &asv, bs, ys, yz, y);
  if (c->err->code) return c->err->code;
  /* a - a_zero_point (per row), b - b_zero_point (per column): exact */
  rows_view(az, a, &azv, d2a);
  double *A = minus_zp(c, a, &azv, "a_zero_point"), *B = A ? minus_zp(c, b, bz, "b_zero_point") : NULL;
  if (!A || !B) return c->err->code;
  double *acc = ox_alloc_array(c->a, y->n + 1, sizeof *acc);
  if (!acc) return ox_oom(c->err, NULL);
  int64_t nbatch = y->n / (M * N > 0 ? M * N : 1), idx[OX_BCAST_MAX_RANK] = {0}, oa = 0, ob = 0;
  for (int64_t bt = 0; bt < nbatch && M * N > 0; bt++) { /* odometer over the batch dims */
    ox_dgemm(c->threads, M, N, K, A + oa, K, 0, B + ob, N, 0, acc + bt * M * N, N, 1, 0);
    for (int d = nbd - 1; d >= 0; d--) {
      oa += sa[d], ob += sb[d];
      if (++idx[d] < full[d]) break;
      oa -= sa[d] * full[d], ob -= sb[d] * full[d];
      idx[d] = 0;
    }
  }
  return requantize(c, nbd + 2, full, acc, &asv, bs, ys, yz, y);
}

/* ---- QLinearConv-10 ---- */

#define QC_MAXSP 8 /* spatial dims */


static int qlinear_conv(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *t[9];
  char s1[256], s2[256];
  for (int i = 0; i < 9; i++) /* y_zero_point (8) is optional */
    OX_TRY(i == 8 ? ox_opt_tensor_in(c, in, nin, i, &t[i]) : ox_tensor_in(c, in, nin, i, &t[i]));
  const ox_tensor *x = t[0], *xs = t[1], *xz = t[2], *w = t[3], *ws = t[4], *wz = t[5];
  const ox_tensor *ys = t[6], *yz = t[7], *bias = t[8];
  OX_TRY(type_in(c, 3, w, TS_I8, "T2"));
  OX_TRY(type_in(c, 7, yz, TS_I8, "T3"));
  for (int k = 0; k < 3; k++) {
    int i = k == 0 ? 1 : k == 1 ? 4 : 6;
    OX_TRY(type_in(c, i, t[i], OX_T(FLOAT), "the scale"));
  }
  if (xz->dt != x->dt || wz->dt != w->dt)
    return ox_fail(c->err, OX_EINPUT, "%s must have the type of %s",
                   xz->dt != x->dt ? "x_zero_point" : "w_zero_point", xz->dt != x->dt ? "x" : "w");
  if (bias) OX_TRY(type_in(c, 8, bias, OX_T(INT32), "B (T4)"));
  if (xs->n != 1 || xz->n != 1 || ys->n != 1 || yz->n != 1)
    return ox_fail(c->err, OX_EINPUT, "x_scale, x_zero_point, y_scale and y_zero_point must be scalars");
  /* x: (N, C, D1, ..., Dn), w: (M, C / group, k1, ..., kn) */
  int ns = x->rank - 2;
  if (ns < 1 || ns > QC_MAXSP || w->rank != x->rank)
    return ox_fail(c->err, OX_EINPUT, "x %s and w %s must both be (N, C, D1, ...) with 1 to %d spatial dims",
                   ox_shape_str(x->rank, x->dims, s1, sizeof s1),
                   ox_shape_str(w->rank, w->dims, s2, sizeof s2), QC_MAXSP);
  int64_t N = x->dims[0], C = x->dims[1], M = w->dims[0], Cg = w->dims[1];
  int64_t group = QST->group;
  int mode = QST->auto_pad;
  if (group < 1 || C != Cg * group || M % group)
    return ox_fail(c->err, OX_EINPUT, "x %s, w %s and group %lld do not fit: C must be w's dim 1 "
                   "times group, and M a multiple of group", ox_shape_str(x->rank, x->dims, s1, sizeof s1),
                   ox_shape_str(w->rank, w->dims, s2, sizeof s2), (long long)group);
  for (int k = 0; k < 2; k++) { /* w_scale, w_zero_point: scalar or (M,) */
    const ox_tensor *p = k ? wz : ws;
    if (p->n != 1 && !(p->rank == 1 && p->dims[0] == M))
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must be a scalar or (%lld,)",
                     k ? "w_zero_point" : "w_scale", ox_shape_str(p->rank, p->dims, s1, sizeof s1), (long long)M);
  }
  if (bias && !(bias->rank == 1 && bias->dims[0] == M))
    return ox_fail(c->err, OX_EINPUT, "B has shape %s; it must be (%lld,)",
                   ox_shape_str(bias->rank, bias->dims, s1, sizeof s1), (long long)M);
  int64_t ks[QC_MAXSP], st[QC_MAXSP], dl[QC_MAXSP], pd[2 * QC_MAXSP], od[QC_MAXSP];
  OX_TRY(ox_window_vals(c, "kernel_shape", &QST->kernel_shape, ns, 0, ks)); /* absent: 0, taken from w */
  OX_TRY(ox_window_vals(c, "strides", &QST->strides, ns, 1, st));
  OX_TRY(ox_window_vals(c, "dilations", &QST->dilations, ns, 1, dl));
  OX_TRY(ox_window_vals(c, "pads", &QST->pads, 2 * ns, 0, pd));
  for (int i = 0; i < ns; i++) {
    if (ks[i] == 0) ks[i] = w->dims[2 + i];
    if (ks[i] != w->dims[2 + i])
      return ox_fail(c->err, OX_EINPUT, "kernel_shape[%d] is %lld but w has %lld there", i,
                     (long long)ks[i], (long long)w->dims[2 + i]);
    int64_t Di = x->dims[2 + i], span = (ks[i] - 1) * dl[i] + 1;
    if (mode == OX_PAD_SAME_UPPER || mode == OX_PAD_SAME_LOWER) {
      od[i] = (Di + st[i] - 1) / st[i];
      int64_t total = (od[i] - 1) * st[i] + span - Di;
      if (total < 0) total = 0;
      pd[i] = mode == OX_PAD_SAME_UPPER ? total / 2 : total - total / 2;
      pd[ns + i] = total - pd[i];
    } else {
      if (mode == OX_PAD_VALID) pd[i] = pd[ns + i] = 0;
      int64_t len = Di + pd[i] + pd[ns + i] - span;
      if (len < 0)
        return ox_fail(c->err, OX_EINPUT, "the kernel (extent %lld) is larger than the padded input (%lld) "
                       "along spatial dim %d", (long long)span, (long long)(Di + pd[i] + pd[ns + i]), i);
      od[i] = len / st[i] + 1;
    }
  }
  int64_t ydims[2 + QC_MAXSP] = {N, M};
  memcpy(ydims + 2, od, sizeof(int64_t) * (size_t)ns);
  OX_TRY(ox_tensor_new(c->a, yz->dt, x->rank, ydims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  /* taps per window, and output positions (<= y->n); an empty w may have
   * taps beyond int64 */
  int64_t K = ox_numel(ns, ks, 0), P = ox_numel(ns, od, 0);
  if (K < 0) return ox_fail(c->err, OX_EINPUT, "the kernel is too large");
  /* the exact sums of (x - x_zero_point)(w - w_zero_point) by ConvInteger's
   * 8-bit product (ops/conv.h), padding adding nothing */
  ox_conv_geom g = {.nd = ns, .npos = P, .nker = K};
  for (int i = 0; i < ns; i++) {
    g.img[i] = x->dims[2 + i], g.pos[i] = od[i], g.ker[i] = ks[i];
    g.s[i] = st[i], g.d[i] = dl[i], g.pb[i] = pd[i], g.pe[i] = pd[ns + i];
  }
  g.nimg = ox_numel(ns, g.img, 1);
  ox_value *sums;
  OX_TRY(ox_tensor_new(c->a, OX_INT32, x->rank, ydims, &sums, c->err));
  OX_TRY(ox_conv_int8(c, x, w, ox_load_i64(xz->dt, xz->data, 0), wz, group, &g, &sums->u.t));
  /* y = sums + B times the channel's multiplier (x_scale * w_scale /
   * y_scale in float, as requantize computes it), + y_zero_point, rounded
   * to even and clamped; every scale here is a float scalar but w_scale,
   * which may be one per output channel */
  const int32_t *S32 = sums->u.t.data, *Bv = bias ? bias->data : NULL;
  float fxs = ((const float *)xs->data)[0], fys = ((const float *)ys->data)[0];
  double yzv = (double)ox_load_i64(yz->dt, yz->data, 0), lo = yz->dt == OX_UINT8 ? 0 : -128, hi = lo + 255;
  for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < M; m++) {
      float mf = fxs * ((const float *)ws->data)[ws->n == 1 ? 0 : m];
      double mult = (double)(mf / fys), b = Bv ? (double)Bv[m] : 0;
      int64_t o = (n * M + m) * P;
      for (int64_t p = 0; p < P; p++) {
        double v = ((double)S32[o + p] + b) * mult + yzv;
        /* NaN and below to lo, above to hi, else to even: |v| < 2^51 here */
        double r = !(v >= lo) ? lo : v > hi ? hi : (v + 0x1.8p52) - 0x1.8p52;
        if (yz->dt == OX_UINT8) ((uint8_t *)y->data)[o + p] = (uint8_t)r;
        else ((int8_t *)y->data)[o + p] = (int8_t)r;
      }
    }
  return 0;
}

/* The kernels com.microsoft's QuantizeLinear and DequantizeLinear and
 * DynamicQuantizeMatMul run too (ops/twins.h). */
int ox_quantize_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return quantize(c, nin, in, nout, out);
}
int ox_dequantize_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return dequantize(c, nin, in, nout, out);
}
int ox_dynamic_quantize_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return dynamic_quantize(c, nin, in, nout, out);
}

const ox_kernel ox_quant_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "QuantizeLinear",        10, 0, TS_Q10_X,      2, 3, quantize, "", ox_quant_load },
  { "", "QuantizeLinear",        13, 0, TS_Q10_X,      2, 3, quantize, "axis:int=1", ox_quant_load }, /* axis */
  { "", "QuantizeLinear",        19, 0, TS_Q19_X,      2, 3, quantize,
    "axis:int=1,saturate:int=1", ox_quant_load }, /* float8, saturate */
  { "", "QuantizeLinear",        21, 0, TS_Q19_X,      2, 3, quantize,
    "axis:int=1,block_size:int=0,output_dtype:int=0,saturate:int=1", ox_quant_load }, /* blocked, 16/4-bit */
  /* float4, precision */
  { "", "QuantizeLinear",        23, 0, TS_Q19_X,      2, 3, quantize,
    "axis:int=1,block_size:int=0,output_dtype:int=0,precision:int=0,saturate:int=1", ox_quant_load },
  /* e8m0 scale */
  { "", "QuantizeLinear",        24, 0, TS_Q19_X,      2, 3, quantize, OX_ATTRS_OF(23), ox_quant_load },
  { "", "QuantizeLinear",        25, 0, TS_Q19_X,      2, 3, quantize, OX_ATTRS_OF(23), ox_quant_load }, /* 2-bit */
  { "", "DequantizeLinear",      10, 0, TS_DQ10,       2, 3, dequantize, "", ox_quant_load },
  { "", "DequantizeLinear",      13, 0, TS_DQ10,       2, 3, dequantize, "axis:int=1", ox_quant_load },
  { "", "DequantizeLinear",      19, 0, TS_DQ19,       2, 3, dequantize, "axis:int=1", ox_quant_load },
  { "", "DequantizeLinear",      21, 0, TS_DQ21,       2, 3, dequantize,
    "axis:int=1,block_size:int=0", ox_quant_load },
  { "", "DequantizeLinear",      23, 0, TS_DQ23,       2, 3, dequantize,
    "axis:int=1,block_size:int=0,output_dtype:int=0", ox_quant_load },
  { "", "DequantizeLinear",      24, 0, TS_DQ23,       2, 3, dequantize, OX_ATTRS_OF(23), ox_quant_load },
  { "", "DequantizeLinear",      25, 0, TS_DQ25,       2, 3, dequantize, OX_ATTRS_OF(23), ox_quant_load },
  { "", "DynamicQuantizeLinear", 11, 0, OX_T(FLOAT),   1, 1, dynamic_quantize, "" },
  { "", "QLinearMatMul",         10, 0, TS_I8,         8, 8, qlinear_matmul, "", qlinear_matmul_load },
  /* float8, float16 scales */
  { "", "QLinearMatMul",         21, 0, TS_I8 | TS_F8, 8, 8, qlinear_matmul, "", qlinear_matmul_load },
  { "", "QLinearConv",           10, 0, TS_I8,         8, 9, qlinear_conv,
    "auto_pad:string=NOTSET,dilations:ints,group:int=1,kernel_shape:ints,pads:ints,"
    "strides:ints", ox_quant_load },
  {0},
};
