/* ops/index.c: indexing ops: Gather, GatherElements, GatherND, Scatter,
 * ScatterElements, ScatterND, TensorScatter, Compress, NonZero, TopK, Unique,
 * CumSum, CumProd.
 *
 * Gathers, scatters (without reduction) and Compress only move elements: they
 * copy ox_dtype_size() bytes (a string element is its ox_str struct, sharing
 * the bytes), so they have no per-type code. What looks at values is written
 * once and expanded per type with the lists of core/kernel.h: the scatter
 * reductions, the comparisons of TopK and Unique, the running sums and
 * products of CumSum and CumProd. float16 and bfloat16 are widened to float
 * for comparing or computing; outputs that are picked from the input (TopK's
 * values, Unique's Y) keep the input's bits.
 *
 * Every index input is checked before anything is written: an index outside
 * [-s, s-1] for an axis of size s is an error naming the index and the axis. */
#include <math.h>
#include <string.h>

#include "core/kernel.h"

/* The tensor types, as the versions grew them. */
#define TS_ALL OX_TS_CLASSIC                        /* the 15 classic types */
#define TS_ALL13 (OX_TS_CLASSIC | OX_T(BFLOAT16))   /* opset 13 added bfloat16 */
#define TS_ALL24 (TS_ALL13 | OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) | \
                  OX_T(FLOAT8E5M2FNUZ) | OX_T(UINT4) | OX_T(INT4) | OX_T(FLOAT4E2M1) |      \
                  OX_T(FLOAT8E8M0))
#define TS_CUM11 (OX_T(INT32) | OX_T(INT64) | OX_T(UINT32) | OX_T(UINT64) | OX_T(FLOAT) | \
                  OX_T(DOUBLE))
#define TS_CUM14 (TS_CUM11 | OX_T(FLOAT16) | OX_T(BFLOAT16))

/* ---- helpers shared by the ops ---- */

static int need_tensors(ox_ctx *c, int nin, ox_value **in) {
  for (int i = 0; i < nin; i++)
    if (in[i]) OX_TRY(ox_need_tensor(c, in[i], i));
  return 0;
}

static int need_rank1(ox_ctx *c, const ox_tensor *x) {
  if (x->rank >= 1) return 0;
  return ox_fail(c->err, OX_EINPUT, "%s must have rank >= 1; it is a scalar",
                 ox_input_name(c, 0));
}

/* The product of dims[from..to) of t, which holds elements (so it fits); 0 for an empty t. */
static int span(ox_ctx *c, const ox_tensor *t, int from, int to, int64_t *out) {
  if (!t->n) { /* nothing to walk; (2^62, 2^62, 0) has spans beyond int64 */
    *out = 0;
    return 0;
  }
  int64_t n = ox_numel(to - from, t->dims + from, 0);
  if (n < 0) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "shape %s is too large",
                   ox_shape_str(t->rank, t->dims, sb, sizeof sb));
  }
  *out = n;
  return 0;
}

static int64_t *alloc_i64(ox_ctx *c, int64_t n) {
  int64_t *p = ox_alloc_array(c->a, n + 1, sizeof *p);
  if (!p) ox_oom(c->err, "for %lld indices", (long long)n);
  return p;
}

/* The values of index input i as int64 (int64 data is used in place); int32
 * too when allow32 (Tind), else int64 only (GatherND, ScatterND). */
static int index_values(ox_ctx *c, int i, const ox_tensor *t, int allow32, const int64_t **out) {
  if (t->dt == OX_INT64) {
    *out = t->data;
    return 0;
  }
  if (t->dt != OX_INT32 || !allow32)
    return ox_fail(c->err, OX_EINPUT, "%s (the indices) is %s; it must be %s",
                   ox_input_name(c, i), ox_dtypes[t->dt].onnx_name,
                   allow32 ? "int32 or int64" : "int64");
  int64_t *p = alloc_i64(c, t->n);
  if (!p) return OX_EINPUT;
  const int32_t *s = t->data;
  for (int64_t k = 0; k < t->n; k++) p[k] = s[k];
  *out = p;
  return 0;
}

static int bad_index(ox_ctx *c, int64_t v, int axis, int64_t size) {
  if (size == 0)
    return ox_fail(c->err, OX_EINPUT, "index %lld is out of range: axis %d of the data has size 0",
                   (long long)v, axis);
  return ox_fail(c->err, OX_EINPUT, "index %lld is out of range [%lld, %lld] for axis %d of size %lld",
                 (long long)v, (long long)-size, (long long)(size - 1), axis, (long long)size);
}

/* An attribute that the node's version does not have yet is an error. */
static int not_before(ox_ctx *c, const char *name, int since) {
  if (c->version >= since || !ox_attr_find(c, name)) return 0;
  return ox_fail(c->err, OX_EINPUT, "attribute '%s' needs opset %d or later", name, since);
}

/* A shape in a message. */
static const char *shp(const ox_tensor *t, char *buf, size_t n) {
  return ox_shape_str(t->rank, t->dims, buf, n);
}

/* Row-major element strides of t (arena memory). */
static int64_t *strides_of(ox_ctx *c, const ox_tensor *t) {
  int64_t *st = alloc_i64(c, t->rank);
  if (!st) return NULL;
  int64_t s = t->n ? 1 : 0; /* empty: all 0 (the dims may multiply beyond int64), never used */
  for (int d = t->rank - 1; d >= 0; d--) {
    st[d] = s;
    s *= t->dims[d];
  }
  return st;
}

/* y[i] = x[off[i]] for n elements of es bytes. */
static void take(void *y, const void *x, const int64_t *off, int64_t n, size_t es) {
  switch (es) {
#define TAKE(SIZE, U)                                                                 \
  case SIZE: {                                                                        \
    U *d = y;                                                                         \
    const U *s = x;                                                                   \
    for (int64_t i = 0; i < n; i++) d[i] = s[off[i]];                                 \
  } break;
    TAKE(1, uint8_t) TAKE(2, uint16_t) TAKE(4, uint32_t) TAKE(8, uint64_t)
#undef TAKE
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy((char *)y + (size_t)i * es, (const char *)x + (size_t)off[i] * es, es);
  }
}

/* A new tensor of x's dtype and shape holding a copy of x's elements. */
static int copy_of(ox_ctx *c, const ox_tensor *x, ox_value **out) {
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, out, c->err));
  if (x->n) memcpy((*out)->u.t.data, x->data, (size_t)x->n * ox_dtype_size(x->dt));
  return 0;
}

/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hooks of this file keep for a node: each attribute its
 * op-version declares (raw where the default differs by op: axis), parsed
 * and checked where that needs no input. */
typedef struct {
  int has_axis, red, circular, has_k, largest, sorted, exclusive, reverse;
  int64_t axis, batch_dims, k;
} index_state;

static int get_reduction(ox_ctx *c, int *red);

static int index_load(ox_ctx *c, void **state) {
  index_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->has_axis = ox_attr_find(c, "axis") != NULL;
  st->axis = ox_attr_int(c, "axis", 0);
  OX_TRY(get_reduction(c, &st->red));
  OX_TRY(not_before(c, "batch_dims", 12));
  st->batch_dims = ox_attr_int(c, "batch_dims", 0);
  if (st->batch_dims < 0 || st->batch_dims > 64)
    return ox_fail(c->err, OX_EINPUT, "batch_dims %lld is out of range", (long long)st->batch_dims);
  const char *mode = ox_attr_string(c, "mode", "linear");
  st->circular = !strcmp(mode, "circular");
  if (!st->circular && strcmp(mode, "linear"))
    return ox_fail(c->err, OX_EINPUT, "mode '%s' is not one of linear, circular", mode);
  st->has_k = ox_attr_find(c, "k") != NULL;
  st->k = ox_attr_int(c, "k", 0);
  OX_TRY(not_before(c, "largest", 11));
  OX_TRY(not_before(c, "sorted", 11));
  st->largest = ox_attr_int(c, "largest", 1) != 0;
  st->sorted = ox_attr_int(c, "sorted", 1) != 0;
  st->exclusive = ox_attr_int(c, "exclusive", 0) != 0;
  st->reverse = ox_attr_int(c, "reverse", 0) != 0;
  return 0;
}

/* TopK-1: k is an attribute, required */
static int topk_load(ox_ctx *c, void **state) {
  OX_TRY(index_load(c, state));
  if (c->version < 10 && !((index_state *)*state)->has_k)
    return ox_fail(c->err, OX_EINPUT, "the attribute 'k' is required");
  return 0;
}

#define ST ((const index_state *)c->state)

/* ---- Gather ---- */

/* Gather-1, -11, -13: the same op (11 documented negative indices; 13 added
 * bfloat16). output[o, i..., n] = data[o, indices[i...], n] along axis. */
static int gather(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *it = &in[1]->u.t;
  OX_TRY(need_rank1(c, x));
  int axis;
  OX_TRY(ox_axis(c, ST->axis, x->rank, 0, "axis", &axis));
  const int64_t *idx = NULL;
  OX_TRY(index_values(c, 1, it, 1, &idx));

  /* data: (outer, s, inner); indices: (m); output: (outer, m, inner) */
  int64_t outer, inner, s = x->dims[axis], m = it->n;
  OX_TRY(span(c, x, 0, axis, &outer));
  OX_TRY(span(c, x, axis + 1, x->rank, &inner));
  int64_t *k = alloc_i64(c, m);
  if (!k) return OX_EINPUT;
  for (int64_t i = 0; i < m; i++) {
    int64_t v = idx[i];
    k[i] = v < 0 ? v + s : v;
    if (k[i] < 0 || k[i] >= s) return bad_index(c, v, axis, s);
  }

  int rank = x->rank - 1 + it->rank;
  int64_t *dims = alloc_i64(c, rank);
  if (!dims) return OX_EINPUT;
  memcpy(dims, x->dims, (size_t)axis * sizeof *dims);
  memcpy(dims + axis, it->dims, (size_t)it->rank * sizeof *dims);
  memcpy(dims + axis + it->rank, x->dims + axis + 1, (size_t)(x->rank - axis - 1) * sizeof *dims);
  OX_TRY(ox_tensor_new(c->a, x->dt, rank, dims, &out[0], c->err));
  if (!out[0]->u.t.n) return 0;

  size_t es = ox_dtype_size(x->dt);
  char *y = out[0]->u.t.data;
  const char *src = x->data;
  if (inner == 1) { /* one element per index: no memcpy call per element */
    for (int64_t o = 0; o < outer; o++)
      take(y + (size_t)(o * m) * es, src + (size_t)(o * s) * es, k, m, es);
    return 0;
  }
  size_t row = (size_t)inner * es;
  for (int64_t o = 0; o < outer; o++) {
    const char *xo = src + (size_t)(o * s) * row;
    for (int64_t i = 0; i < m; i++, y += row) memcpy(y, xo + (size_t)k[i] * row, row);
  }
  return 0;
}

/* ---- GatherElements, ScatterElements, Scatter ---- */

/* For each element of `indices` (input ii; the rank of data, no dim larger
 * than data's except along axis) the flat offset into data of the element it
 * names: its own coordinates, with the one along axis replaced by its value. */
static int element_offsets(ox_ctx *c, const ox_tensor *x, int ii, const ox_tensor *it, int axis,
                           int64_t **out) {
  char sa[256], sb[256];
  int r = x->rank;
  if (it->rank != r)
    return ox_fail(c->err, OX_EINPUT, "%s (the indices) has shape %s; it must have the rank "
                   "of the data %s", ox_input_name(c, ii), shp(it, sa, sizeof sa), shp(x, sb, sizeof sb));
  for (int d = 0; d < r; d++)
    if (d != axis && it->dims[d] > x->dims[d])
      return ox_fail(c->err, OX_EINPUT, "%s (the indices) has shape %s, larger than the data "
                     "%s along axis %d", ox_input_name(c, ii), shp(it, sa, sizeof sa),
                     shp(x, sb, sizeof sb), d);
  const int64_t *idx = NULL;
  OX_TRY(index_values(c, ii, it, 1, &idx));
  int64_t *off = alloc_i64(c, it->n), *st = strides_of(c, x), *coord = alloc_i64(c, r);
  if (!off || !st || !coord) return OX_EINPUT;
  *out = off;
  if (!it->n) return 0;

  /* an odometer over the dims of indices but the last; the last is the inner loop */
  int64_t s = x->dims[axis], sax = st[axis], last = it->dims[r - 1];
  int64_t step = r - 1 == axis ? 0 : 1, base = 0, i = 0;
  for (;;) {
    for (int64_t j = 0; j < last; j++, i++) {
      int64_t v = idx[i], k = v < 0 ? v + s : v;
      if (k < 0 || k >= s) return bad_index(c, v, axis, s);
      off[i] = base + j * step + k * sax;
    }
    int d = r - 2;
    for (; d >= 0; d--) {
      if (d != axis) base += st[d];
      if (++coord[d] < it->dims[d]) break;
      if (d != axis) base -= coord[d] * st[d];
      coord[d] = 0;
    }
    if (d < 0) return 0;
  }
}

/* GatherElements-11, -13 (bfloat16): output has the shape of indices. */
static int gather_elements(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *it = &in[1]->u.t;
  OX_TRY(need_rank1(c, x));
  int axis;
  OX_TRY(ox_axis(c, ST->axis, x->rank, 0, "axis", &axis));
  int64_t *off;
  OX_TRY(element_offsets(c, x, 1, it, axis, &off));
  OX_TRY(ox_tensor_new(c->a, x->dt, it->rank, it->dims, &out[0], c->err));
  take(out[0]->u.t.data, x->data, off, it->n, ox_dtype_size(x->dt));
  return 0;
}

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };
static const char *const red_names[] = {"none", "add", "mul", "max", "min"};

/* The reduction attribute of ScatterElements and ScatterND: from opset 16
 * none, add, mul; from 18 also max, min. */
static int get_reduction(ox_ctx *c, int *red) {
  *red = RED_NONE;
  if (c->version < 16) return not_before(c, "reduction", 16);
  const char *s = ox_attr_string(c, "reduction", "none");
  int n = c->version >= 18 ? 5 : 3;
  for (int i = 0; i < n; i++)
    if (!strcmp(s, red_names[i])) {
      *red = i;
      return 0;
    }
  return ox_fail(c->err, OX_EINPUT, "reduction '%s' is not one of none, add, mul%s%s", s,
                 c->version >= 18 ? ", max, min" : "",
                 c->version < 18 && (!strcmp(s, "max") || !strcmp(s, "min"))
                     ? " (max and min need opset 18)" : "");
}

/* Integer arithmetic wraps (computed in uint64_t: no signed overflow). */
#define I_ADD(T, a, b) ((T)((uint64_t)(a) + (uint64_t)(b)))
#define I_MUL(T, a, b) ((T)((uint64_t)(a) * (uint64_t)(b)))
#define F_ADD(T, a, b) ((T)((a) + (b)))
#define F_MUL(T, a, b) ((T)((a) * (b)))
#define NEVER_NAN(v) 0
#define IS_NAN(v) isnan(v)
/* max and min propagate NaN (as numpy's maximum and minimum) */
#define MAX_OF(ISNAN, a, b) ((ISNAN(a) || (a) >= (b)) && !ISNAN(b) ? (a) : (b))
#define MIN_OF(ISNAN, a, b) ((ISNAN(a) || (a) <= (b)) && !ISNAN(b) ? (a) : (b))

/* y[off[k] + j] = f(y[off[k] + j], u[k * len + j]) for cnt slices of len
 * elements (f: the reduction; none replaces). Later updates of one element
 * see the earlier ones, as the reference's loop does. */
static int scatter_apply(ox_ctx *c, ox_dtype dt, int red, void *y, const int64_t *off, int64_t cnt,
                         int64_t len, const void *u) {
  size_t es = ox_dtype_size(dt);
  if (red == RED_NONE) {
    if (len == 1) {
      for (int64_t k = 0; k < cnt; k++)
        memcpy((char *)y + (size_t)off[k] * es, (const char *)u + (size_t)k * es, es);
    } else {
      size_t row = (size_t)len * es;
      for (int64_t k = 0; k < cnt; k++)
        memcpy((char *)y + (size_t)off[k] * es, (const char *)u + (size_t)k * row, row);
    }
    return 0;
  }
  switch (dt) {
#define REDUCE(T, ADD, MUL, ISNAN)                                                    \
  {                                                                                   \
    T *yy = y;                                                                        \
    const T *uu = u;                                                                  \
    for (int64_t k = 0; k < cnt; k++) {                                               \
      T *d = yy + off[k];                                                             \
      const T *s = uu + k * len;                                                      \
      switch (red) {                                                                  \
      case RED_ADD: for (int64_t j = 0; j < len; j++) d[j] = ADD(T, d[j], s[j]); break; \
      case RED_MUL: for (int64_t j = 0; j < len; j++) d[j] = MUL(T, d[j], s[j]); break; \
      case RED_MAX: for (int64_t j = 0; j < len; j++) d[j] = MAX_OF(ISNAN, d[j], s[j]); break; \
      default: for (int64_t j = 0; j < len; j++) d[j] = MIN_OF(ISNAN, d[j], s[j]); break; \
      }                                                                               \
    }                                                                                 \
  } return 0;
#define RED_I(NAME, T) case OX_##NAME: REDUCE(T, I_ADD, I_MUL, NEVER_NAN)
#define RED_F(NAME, T) case OX_##NAME: REDUCE(T, F_ADD, F_MUL, IS_NAN)
    OX_NATIVE_INTS(RED_I)
    OX_NATIVE_FLOATS(RED_F)
#undef RED_I
#undef RED_F
#undef REDUCE
  case OX_FLOAT16:
  case OX_BFLOAT16: { /* computed in float, rounded at each step as numpy's float16 */
    float (*ld)(uint16_t) = dt == OX_FLOAT16 ? ox_f16_to_f32 : ox_bf16_to_f32;
    uint16_t (*st)(float) = dt == OX_FLOAT16 ? ox_f32_to_f16 : ox_f32_to_bf16;
    uint16_t *yy = y;
    const uint16_t *uu = u;
    for (int64_t k = 0; k < cnt; k++)
      for (int64_t j = 0; j < len; j++) {
        float a = ld(yy[off[k] + j]), b = ld(uu[k * len + j]);
        float r = red == RED_ADD ? a + b : red == RED_MUL ? a * b
                : red == RED_MAX ? MAX_OF(IS_NAN, a, b) : MIN_OF(IS_NAN, a, b);
        yy[off[k] + j] = st(r);
      }
    return 0;
  }
  case OX_BOOL: { /* as numpy's bool: add and max are or, mul and min are and */
    uint8_t *yy = y;
    const uint8_t *uu = u;
    int is_or = red == RED_ADD || red == RED_MAX;
    for (int64_t k = 0; k < cnt; k++)
      for (int64_t j = 0; j < len; j++) {
        uint8_t *d = yy + off[k] + j, s = uu[k * len + j];
        *d = is_or ? (*d | s) : (*d & s);
      }
    return 0;
  }
#define CPLX(NAME, T)                                                                 \
  case OX_##NAME: {                                                                   \
    if (red != RED_ADD && red != RED_MUL) break;                                      \
    T *yy = y;                                                                        \
    const T *uu = u;                                                                  \
    for (int64_t k = 0; k < cnt; k++)                                                 \
      for (int64_t j = 0; j < len; j++) {                                             \
        T *d = yy + off[k] + j, s = uu[k * len + j], r;                               \
        if (red == RED_ADD) r.re = d->re + s.re, r.im = d->im + s.im;                 \
        else r.re = d->re * s.re - d->im * s.im, r.im = d->re * s.im + d->im * s.re;  \
        *d = r;                                                                       \
      }                                                                               \
    return 0;                                                                         \
  }
    CPLX(COMPLEX64, ox_c64)
    CPLX(COMPLEX128, ox_c128)
#undef CPLX
  default: break;
  }
  return ox_fail(c->err, OX_EINPUT, "reduction '%s' is not defined for %s", red_names[red],
                 ox_dtypes[dt].onnx_name);
}

/* ScatterElements-11, -13 (bfloat16), -16 (reduction add, mul), -18 (max,
 * min); Scatter-9 is ScatterElements-11 under its old name. */
static int scatter_elements(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *it = &in[1]->u.t, *u = &in[2]->u.t;
  OX_TRY(need_rank1(c, x));
  OX_TRY(ox_same_dtype(c, 2, u, x->dt));
  int axis, red = ST->red;
  OX_TRY(ox_axis(c, ST->axis, x->rank, 0, "axis", &axis));
  if (u->rank != it->rank || memcmp(u->dims, it->dims, (size_t)u->rank * sizeof *u->dims)) {
    char sa[256], sb[256];
    return ox_fail(c->err, OX_EINPUT, "%s (the updates) has shape %s; it must have the shape "
                   "of the indices %s", ox_input_name(c, 2), shp(u, sa, sizeof sa),
                   shp(it, sb, sizeof sb));
  }
  int64_t *off;
  OX_TRY(element_offsets(c, x, 1, it, axis, &off));
  OX_TRY(copy_of(c, x, &out[0]));
  return scatter_apply(c, x->dt, red, out[0]->u.t.data, off, it->n, 1, u->data);
}

/* ---- GatherND, ScatterND ---- */

/* indices (input ii): (B..., I..., k), a tuple of k indices into data
 * (B..., D_b, ..., D_{b+k-1}, S...) per position, b = batch_dims. Gives the
 * flat element offset into data of each tuple's slice and the slice length
 * prod(S...). Every tuple is checked. */
static int tuple_offsets(ox_ctx *c, const ox_tensor *x, int ii, const ox_tensor *it, int b,
                         int64_t **off_out, int64_t *ntup_out, int64_t *slice_out) {
  char sa[256], sb[256];
  int r = x->rank, q = it->rank;
  if (q < 1)
    return ox_fail(c->err, OX_EINPUT, "%s (the indices) must have rank >= 1; it is a scalar",
                   ox_input_name(c, ii));
  if (b < 0 || b >= q || b >= r)
    return ox_fail(c->err, OX_EINPUT, "batch_dims %d must be in [0, %d) (less than the ranks of "
                   "data and indices)", b, q < r ? q : r);
  for (int d = 0; d < b; d++)
    if (it->dims[d] != x->dims[d])
      return ox_fail(c->err, OX_EINPUT, "the indices %s and the data %s differ in batch dim %d",
                     shp(it, sa, sizeof sa), shp(x, sb, sizeof sb), d);
  int64_t k = it->dims[q - 1];
  if (k < 1 || k > r - b)
    return ox_fail(c->err, OX_EINPUT, "%s (the indices) has shape %s: its last dim (the tuple "
                   "length) must be in [1, %d] for data of shape %s%s", ox_input_name(c, ii),
                   shp(it, sa, sizeof sa), r - b, shp(x, sb, sizeof sb),
                   b ? " after the batch dims" : "");
  const int64_t *idx = NULL;
  OX_TRY(index_values(c, ii, it, 0, &idx));
  int64_t nb, per, slice, *st = strides_of(c, x);
  if (!st) return OX_EINPUT;
  OX_TRY(span(c, it, 0, b, &nb));
  OX_TRY(span(c, it, b, q - 1, &per));
  OX_TRY(span(c, x, b + (int)k, r, &slice));
  int64_t *off = alloc_i64(c, nb * per);
  if (!off) return OX_EINPUT;
  int64_t xbatch = b ? st[b - 1] : 0; /* elements per batch of data */
  const int64_t *t = idx;
  for (int64_t bi = 0, i = 0; bi < nb; bi++)
    for (int64_t p = 0; p < per; p++, i++, t += k) {
      int64_t o = bi * xbatch;
      for (int j = 0; j < k; j++) {
        int64_t s = x->dims[b + j], v = t[j], w = v < 0 ? v + s : v;
        if (w < 0 || w >= s) return bad_index(c, v, b + j, s);
        o += w * st[b + j];
      }
      off[i] = o;
    }
  *off_out = off;
  *ntup_out = nb * per;
  *slice_out = slice;
  return 0;
}

/* GatherND-11; -12 added batch_dims; -13 bfloat16.
 * output: indices.shape[:-1] ++ data.shape[b + k:] */
static int gather_nd(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *it = &in[1]->u.t;
  OX_TRY(need_rank1(c, x));
  int64_t b = ST->batch_dims;
  int64_t *off, ntup, slice;
  OX_TRY(tuple_offsets(c, x, 1, it, (int)b, &off, &ntup, &slice));
  int k = (int)it->dims[it->rank - 1], rank = it->rank - 1 + x->rank - (int)b - k;
  int64_t *dims = alloc_i64(c, rank);
  if (!dims) return OX_EINPUT;
  memcpy(dims, it->dims, (size_t)(it->rank - 1) * sizeof *dims);
  memcpy(dims + it->rank - 1, x->dims + b + k, (size_t)(x->rank - b - k) * sizeof *dims);
  OX_TRY(ox_tensor_new(c->a, x->dt, rank, dims, &out[0], c->err));
  size_t es = ox_dtype_size(x->dt);
  if (slice == 1) {
    take(out[0]->u.t.data, x->data, off, ntup, es);
    return 0;
  }
  size_t row = (size_t)slice * es;
  char *y = out[0]->u.t.data;
  for (int64_t i = 0; i < ntup; i++, y += row) memcpy(y, (const char *)x->data + (size_t)off[i] * es, row);
  return 0;
}

/* ScatterND-11, -13 (bfloat16), -16 (reduction add, mul), -18 (max, min).
 * updates: indices.shape[:-1] ++ data.shape[k:] */
static int scatter_nd(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *it = &in[1]->u.t, *u = &in[2]->u.t;
  OX_TRY(need_rank1(c, x));
  OX_TRY(ox_same_dtype(c, 2, u, x->dt));
  int red = ST->red;
  int64_t *off, ntup, slice;
  OX_TRY(tuple_offsets(c, x, 1, it, 0, &off, &ntup, &slice));
  int k = (int)it->dims[it->rank - 1], want = it->rank - 1 + x->rank - k;
  int ok = u->rank == want && !memcmp(u->dims, it->dims, (size_t)(it->rank - 1) * sizeof *u->dims) &&
           !memcmp(u->dims + it->rank - 1, x->dims + k, (size_t)(x->rank - k) * sizeof *u->dims);
  if (!ok) {
    char sa[256], sb[256], sc[256];
    return ox_fail(c->err, OX_EINPUT, "%s (the updates) has shape %s; with indices %s and data "
                   "%s it must be indices.shape[:-1] + data.shape[%d:]", ox_input_name(c, 2),
                   shp(u, sa, sizeof sa), shp(it, sb, sizeof sb), shp(x, sc, sizeof sc), k);
  }
  OX_TRY(copy_of(c, x, &out[0]));
  return scatter_apply(c, x->dt, red, out[0]->u.t.data, off, ntup, slice, u->data);
}

/* ---- TensorScatter ---- */

/* TensorScatter-24: a KV-cache update. past: (B, ..., M, inner...) with M
 * along axis (not 0); update: (B, ..., S, inner...), S <= M; each batch b
 * writes its S rows at write_indices[b] + 0..S-1 (0 when absent), modulo M
 * in circular mode, or all inside [0, M) in linear mode. */
static int tensor_scatter(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *u = &in[1]->u.t;
  char sa[256], sb[256];
  OX_TRY(ox_same_dtype(c, 1, u, x->dt));
  if (x->rank < 2)
    return ox_fail(c->err, OX_EINPUT, "%s (the past cache) must have rank >= 2; it has shape %s",
                   ox_input_name(c, 0), shp(x, sa, sizeof sa));
  int axis;
  OX_TRY(ox_axis(c, ST->has_axis ? ST->axis : -2, x->rank, 0, "axis", &axis));
  if (axis == 0) return ox_fail(c->err, OX_EINPUT, "axis may not be 0 (the batch dimension)");
  int circular = ST->circular;
  int ok = u->rank == x->rank;
  for (int d = 0; ok && d < x->rank; d++)
    ok = d == axis ? u->dims[d] <= x->dims[d] : u->dims[d] == x->dims[d];
  if (!ok)
    return ox_fail(c->err, OX_EINPUT, "%s (the update) has shape %s; it must match the past "
                   "cache %s except along axis %d, where it may not be longer",
                   ox_input_name(c, 1), shp(u, sa, sizeof sa), shp(x, sb, sizeof sb), axis);
  int64_t nb = x->dims[0], m = x->dims[axis], sl = u->dims[axis], per, inner;
  const int64_t *w = NULL;
  if (nin > 2 && in[2]) {
    const ox_tensor *wt = &in[2]->u.t;
    if (wt->dt != OX_INT64 || wt->rank != 1 || wt->dims[0] != nb)
      return ox_fail(c->err, OX_EINPUT, "%s (the write indices) is %s of shape %s; it must be "
                     "int64 of shape (%lld,)", ox_input_name(c, 2), ox_dtypes[wt->dt].onnx_name,
                     shp(wt, sa, sizeof sa), (long long)nb);
    w = wt->data;
  }
  OX_TRY(span(c, x, 1, axis, &per));
  OX_TRY(span(c, x, axis + 1, x->rank, &inner));
  if (!circular && sl)
    for (int64_t b = 0; b < nb; b++) {
      int64_t w0 = w ? w[b] : 0;
      if (w0 < 0 || w0 > m - sl)
        return ox_fail(c->err, OX_EINPUT, "write index %lld of batch %lld with %lld updates "
                       "leaves the cache's axis of size %lld (linear mode)", (long long)w0,
                       (long long)b, (long long)sl, (long long)m);
    }
  if (circular && sl && !m)
    return ox_fail(c->err, OX_EINPUT, "the cache's axis %d has size 0", axis);
  OX_TRY(copy_of(c, x, &out[0]));
  if (!u->n) return 0;

  /* y: (nb, per, m, inner); update: (nb, per, sl, inner) */
  size_t row = (size_t)inner * ox_dtype_size(x->dt);
  char *y = out[0]->u.t.data;
  const char *src = u->data;
  for (int64_t b = 0; b < nb; b++) {
    int64_t w0 = w ? w[b] : 0;
    if (circular) w0 = ((w0 % m) + m) % m;
    for (int64_t p = 0; p < per; p++) {
      char *yo = y + (size_t)((b * per + p) * m) * row;
      for (int64_t t = 0, at = w0; t < sl; t++, src += row) {
        memcpy(yo + (size_t)at * row, src, row);
        if (++at == m) at = 0; /* only reached in circular mode */
      }
    }
  }
  return 0;
}

/* ---- Compress ---- */

/* Compress-9, -11 (documented negative axis). Without axis the input is
 * flattened. A condition shorter than the axis drops the rest; entries past
 * the axis's end are ignored (as onnxruntime does). */
static int compress(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *cd = &in[1]->u.t;
  if (cd->dt != OX_BOOL || cd->rank != 1) {
    char sa[256];
    return ox_fail(c->err, OX_EINPUT, "%s (the condition) is %s of shape %s; it must be a 1-D "
                   "bool tensor", ox_input_name(c, 1), ox_dtypes[cd->dt].onnx_name,
                   shp(cd, sa, sizeof sa));
  }
  /* x: (outer, s, inner), or (1, n, 1) flattened */
  int64_t outer = 1, s = x->n, inner = 1;
  int axis = -1;
  if (ST->has_axis) {
    OX_TRY(need_rank1(c, x));
    OX_TRY(ox_axis(c, ST->axis, x->rank, 0, "axis", &axis));
    s = x->dims[axis];
    OX_TRY(span(c, x, 0, axis, &outer));
    OX_TRY(span(c, x, axis + 1, x->rank, &inner));
  }
  const uint8_t *cond = cd->data;
  int64_t lim = cd->n < s ? cd->n : s, cnt = 0;
  int64_t *sel = alloc_i64(c, lim);
  if (!sel) return OX_EINPUT;
  for (int64_t i = 0; i < lim; i++)
    if (cond[i]) sel[cnt++] = i;

  if (axis < 0) OX_TRY(ox_tensor_new(c->a, x->dt, 1, &cnt, &out[0], c->err));
  else {
    int64_t *dims = alloc_i64(c, x->rank);
    if (!dims) return OX_EINPUT;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[axis] = cnt;
    OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, dims, &out[0], c->err));
  }
  if (!out[0]->u.t.n) return 0;
  size_t es = ox_dtype_size(x->dt), row = (size_t)inner * es;
  char *y = out[0]->u.t.data;
  if (inner == 1) {
    for (int64_t o = 0; o < outer; o++)
      take(y + (size_t)(o * cnt) * es, (const char *)x->data + (size_t)(o * s) * es, sel, cnt, es);
    return 0;
  }
  for (int64_t o = 0; o < outer; o++) {
    const char *xo = (const char *)x->data + (size_t)(o * s) * row;
    for (int64_t i = 0; i < cnt; i++, y += row) memcpy(y, xo + (size_t)sel[i] * row, row);
  }
  return 0;
}

/* ---- NonZero ---- */

/* nz[i] = whether element i is not zero: -0.0 is zero, NaN is not; a string
 * is non-zero when not empty (numpy); a complex number when either part is. */
static void nonzero_mask(const ox_tensor *x, uint8_t *nz) {
  int64_t n = x->n;
  switch (x->dt) {
#define NZ(NAME, T)                                                                   \
  case OX_##NAME: {                                                                   \
    const T *v = x->data;                                                             \
    for (int64_t i = 0; i < n; i++) nz[i] = v[i] != 0;                                \
  } break;
    OX_NATIVE_TYPES(NZ)
#undef NZ
  case OX_FLOAT16:
  case OX_BFLOAT16: { /* every bit but the sign */
    const uint16_t *v = x->data;
    for (int64_t i = 0; i < n; i++) nz[i] = (v[i] & 0x7fff) != 0;
  } break;
  case OX_BOOL: {
    const uint8_t *v = x->data;
    for (int64_t i = 0; i < n; i++) nz[i] = v[i] != 0;
  } break;
  case OX_COMPLEX64: {
    const ox_c64 *v = x->data;
    for (int64_t i = 0; i < n; i++) nz[i] = v[i].re != 0 || v[i].im != 0;
  } break;
  case OX_COMPLEX128: {
    const ox_c128 *v = x->data;
    for (int64_t i = 0; i < n; i++) nz[i] = v[i].re != 0 || v[i].im != 0;
  } break;
  case OX_STRING: {
    const ox_str *v = x->data;
    for (int64_t i = 0; i < n; i++) nz[i] = v[i].n != 0;
  } break;
  default: /* the other one-byte-per-element types */
    for (int64_t i = 0; i < n; i++) nz[i] = ox_load_f64(x->dt, x->data, i) != 0;
  }
}

/* NonZero-9, -13 (bfloat16): Y (rank, nnz), the coordinates of the non-zero
 * elements in row-major order; a scalar gives (0, nnz). */
static int nonzero(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t;
  uint8_t *nz = ox_alloc(c->a, (size_t)x->n + 1);
  int64_t *coord = alloc_i64(c, x->rank);
  if (!nz || !coord) return ox_oom(c->err, NULL);
  nonzero_mask(x, nz);
  int64_t cnt = 0;
  for (int64_t i = 0; i < x->n; i++) cnt += nz[i];
  int64_t dims[2] = {x->rank, cnt};
  OX_TRY(ox_tensor_new(c->a, OX_INT64, 2, dims, &out[0], c->err));
  if (!x->rank || !cnt) return 0;
  int64_t *y = out[0]->u.t.data, r = x->rank, j = 0;
  for (int64_t i = 0; i < x->n; i++) {
    if (nz[i]) {
      for (int d = 0; d < r; d++) y[d * cnt + j] = coord[d];
      j++;
    }
    for (int d = (int)r - 1; d >= 0 && ++coord[d] == x->dims[d]; d--) coord[d] = 0;
  }
  return 0;
}

/* ---- sorting for TopK and Unique ---- */

/* Element comparators on flat offsets a, b of one buffer: -1, 0 or 1.
 * NaN sorts after every number and equals NaN (as numpy's sort and unique). */
typedef int (*elem_cmp)(const void *x, int64_t a, int64_t b);

#define CMP_BODY(NAME, T, ISNAN)                                                      \
  static int cmp_##NAME(const void *p, int64_t a, int64_t b) {                        \
    const T *x = p;                                                                   \
    T u = x[a], v = x[b];                                                             \
    if (u < v) return -1;                                                             \
    if (v < u) return 1;                                                              \
    return (ISNAN(u) != 0) - (ISNAN(v) != 0);                                         \
  }
#define CMP_I(NAME, T) CMP_BODY(NAME, T, NEVER_NAN)
#define CMP_F(NAME, T) CMP_BODY(NAME, T, IS_NAN)
OX_NATIVE_INTS(CMP_I)
OX_NATIVE_FLOATS(CMP_F)
#undef CMP_I
#undef CMP_F

static int cmp_double(double u, double v) {
  if (u < v) return -1;
  if (v < u) return 1;
  return (isnan(u) != 0) - (isnan(v) != 0);
}
/* complex: real parts first, then imaginary (numpy's order) */
#define CMP_CPLX(NAME, T)                                                             \
  static int cmp_##NAME(const void *p, int64_t a, int64_t b) {                        \
    const T *x = p;                                                                   \
    int r = cmp_double(x[a].re, x[b].re);                                             \
    return r ? r : cmp_double(x[a].im, x[b].im);                                      \
  }
CMP_CPLX(COMPLEX64, ox_c64)
CMP_CPLX(COMPLEX128, ox_c128)
#undef CMP_CPLX

/* strings: bytes, then length (UTF-8 byte order is code point order) */
static int cmp_STRING(const void *p, int64_t a, int64_t b) {
  const ox_str *x = p;
  int64_t n = x[a].n < x[b].n ? x[a].n : x[b].n;
  int r = n ? memcmp(x[a].p, x[b].p, (size_t)n) : 0;
  if (r) return r < 0 ? -1 : 1;
  return (x[a].n > x[b].n) - (x[a].n < x[b].n);
}

/* The comparator for dt and the buffer it compares: small floats are widened
 * to float once (the caller still takes output elements from the input). */
static int comparator(ox_ctx *c, const ox_tensor *x, elem_cmp *cmp, const void **data) {
  *data = x->data;
  switch (x->dt) {
#define CASE(NAME, T) case OX_##NAME: *cmp = cmp_##NAME; return 0;
    OX_NATIVE_TYPES(CASE)
    CASE(COMPLEX64, ox_c64)
    CASE(COMPLEX128, ox_c128)
    CASE(STRING, ox_str)
#undef CASE
  case OX_BOOL: *cmp = cmp_UINT8; return 0;
  default:
    if (!ox_dtype_is_small_float(x->dt)) break;
    *cmp = cmp_FLOAT;
    *data = ox_widen_f32(c->a, x, c->err);
    return *data ? 0 : OX_EINPUT;
  }
  return ox_fail(c->err, OX_EINPUT, "cannot compare %s elements", ox_dtypes[x->dt].onnx_name);
}

/* What is sorted: positions a in [0, n) naming slices of the buffer. Slice a
 * is outer x inner elements starting at base + a * stride, its rows ostride
 * apart (TopK and flat Unique: single elements, outer = inner = 1). */
typedef struct {
  elem_cmp cmp;
  const void *x;
  int64_t base, stride, outer, ostride, inner;
  int desc;
} sort_key;

static int key_cmp(const sort_key *k, int64_t a, int64_t b) {
  int64_t pa = k->base + a * k->stride, pb = k->base + b * k->stride;
  if (k->outer == 1 && k->inner == 1) { /* TopK, flat Unique: one element */
    int r = k->cmp(k->x, pa, pb);
    return k->desc ? -r : r;
  }
  for (int64_t o = 0; o < k->outer; o++, pa += k->ostride, pb += k->ostride)
    for (int64_t j = 0; j < k->inner; j++) {
      int r = k->cmp(k->x, pa + j, pb + j);
      if (r) return k->desc ? -r : r;
    }
  return 0;
}

/* Stable merge sort of idx[0..n) by key_cmp; tmp has room for n/2 + 1.
 * Stability breaks ties by the lower position, as TopK and Unique need. */
static void msort(int64_t *idx, int64_t *tmp, int64_t n, const sort_key *k) {
  if (n <= 16) {
    for (int64_t i = 1; i < n; i++) {
      int64_t v = idx[i], j = i;
      for (; j > 0 && key_cmp(k, v, idx[j - 1]) < 0; j--) idx[j] = idx[j - 1];
      idx[j] = v;
    }
    return;
  }
  int64_t h = n / 2;
  msort(idx, tmp, h, k);
  msort(idx + h, tmp, n - h, k);
  if (key_cmp(k, idx[h - 1], idx[h]) <= 0) return; /* already in order */
  memcpy(tmp, idx, (size_t)h * sizeof *tmp);
  int64_t i = 0, j = h, o = 0;
  while (i < h && j < n) idx[o++] = key_cmp(k, idx[j], tmp[i]) < 0 ? idx[j++] : tmp[i++];
  while (i < h) idx[o++] = tmp[i++];
}

/* ---- TopK ---- */

/* a before b: by key, then the lower position (a total order) */
static int before(const sort_key *k, int64_t a, int64_t b) {
  int r = key_cmp(k, a, b);
  return r < 0 || (r == 0 && a < b);
}

/* h[0..n) is a heap whose root comes last in the order (the worst kept). */
static void sift_down(int64_t *h, int64_t n, int64_t i, const sort_key *k) {
  for (;;) {
    int64_t l = 2 * i + 1, w = i;
    if (l < n && before(k, h[w], h[l])) w = l;
    if (l + 1 < n && before(k, h[w], h[l + 1])) w = l + 1;
    if (w == i) return;
    int64_t t = h[i];
    h[i] = h[w];
    h[w] = t;
    i = w;
  }
}

/* The first kk (>= 1) of positions 0..s-1 in order, into idx[0..kk): a heap
 * of the best kk seen, O(s log kk), then sorted in place. For small k. */
static void select_first(int64_t *idx, int64_t s, int64_t kk, const sort_key *k) {
  for (int64_t i = 0; i < kk; i++) idx[i] = i;
  for (int64_t i = kk / 2 - 1; i >= 0; i--) sift_down(idx, kk, i, k);
  for (int64_t i = kk; i < s; i++)
    if (before(k, i, idx[0])) {
      idx[0] = i;
      sift_down(idx, kk, 0, k);
    }
  for (int64_t n = kk; n > 1; n--) { /* heap sort: the worst goes to the end */
    int64_t t = idx[0];
    idx[0] = idx[n - 1];
    idx[n - 1] = t;
    sift_down(idx, n - 1, 0, k);
  }
}

/* TopK-1 (k an attribute, float types), -10 (K an input), -11 (largest,
 * sorted; integer types), -24 (bfloat16). Equal values keep the lower index
 * first; NaN is larger than every number (numpy's order, which the reference
 * uses). The result is always sorted, which sorted = 0 allows. */
static int topk(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t;
  int64_t k;
  if (c->version < 10) {
    k = ST->k;
  } else {
    if (in[1]->u.t.dt != OX_INT64)
      return ox_fail(c->err, OX_EINPUT, "%s (K) is %s; it must be int64", ox_input_name(c, 1),
                     ox_dtypes[in[1]->u.t.dt].onnx_name);
    OX_TRY(ox_scalar_i64(c, 1, in[1], &k));
  }
  int axis, largest = ST->largest;
  OX_TRY(ox_axis(c, ST->has_axis ? ST->axis : -1, x->rank, 0, "axis", &axis));
  int64_t s = x->dims[axis], outer, inner;
  if (k < 0 || k > s)
    return ox_fail(c->err, OX_EINPUT, "k = %lld is out of range [0, %lld] for axis %d of size %lld",
                   (long long)k, (long long)s, axis, (long long)s);
  OX_TRY(span(c, x, 0, axis, &outer));
  OX_TRY(span(c, x, axis + 1, x->rank, &inner));

  /* x: (outer, s, inner); Values, Indices: (outer, k, inner) */
  int64_t *dims = alloc_i64(c, x->rank);
  if (!dims) return OX_EINPUT;
  memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
  dims[axis] = k;
  ox_value *vals, *inds;
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, dims, &vals, c->err));
  OX_TRY(ox_tensor_new(c->a, OX_INT64, x->rank, dims, &inds, c->err));
  out[0] = vals;
  if (nout > 1) out[1] = inds;
  if (!vals->u.t.n) return 0;

  sort_key key = {.stride = inner, .outer = 1, .inner = 1, .desc = largest};
  OX_TRY(comparator(c, x, &key.cmp, &key.x));
  int64_t *idx = alloc_i64(c, s), *tmp = alloc_i64(c, s / 2 + 1);
  if (!idx || !tmp) return OX_EINPUT;
  size_t es = ox_dtype_size(x->dt);
  int64_t *yi = inds->u.t.data;
  char *yv = vals->u.t.data;
  const char *xs = x->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      key.base = o * s * inner + j;
      if (k <= s / 4) select_first(idx, s, k, &key);
      else {
        for (int64_t i = 0; i < s; i++) idx[i] = i;
        msort(idx, tmp, s, &key);
      }
      for (int64_t t = 0; t < k; t++) {
        int64_t at = (o * k + t) * inner + j;
        yi[at] = idx[t];
        memcpy(yv + (size_t)at * es, xs + (size_t)(key.base + idx[t] * inner) * es, es);
      }
    }
  return 0;
}

/* ---- Unique ---- */

/* Unique-11: the distinct elements (no axis: of the flattened input) or
 * slices along axis, sorted ascending (slices lexicographically, as numpy) or
 * in the order of first occurrence; indices: the first occurrence of each;
 * inverse_indices: for each input element or slice, its place in Y; counts. */

/* Unique along `axis` of an empty x: its m slices are all empty, so all
 * equal: one unique slice when m > 0 (Y has 1 along axis), none otherwise.
 * (The other dims may multiply beyond int64: no sort, no walk.) */
static int unique_empty(ox_ctx *c, const ox_tensor *x, int axis, int nout, ox_value **out) {
  int64_t m = x->dims[axis], u = m ? 1 : 0, *dims = alloc_i64(c, x->rank);
  if (!dims) return OX_EINPUT;
  memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
  dims[axis] = u;
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, dims, &out[0], c->err));
  const int64_t len[3] = {u, m, u}; /* indices [0], inverse_indices all 0, counts [m] */
  for (int i = 1; i < nout && i < 4; i++) {
    OX_TRY(ox_tensor_new(c->a, OX_INT64, 1, &len[i - 1], &out[i], c->err));
    if (u && i == 3) ((int64_t *)out[i]->u.t.data)[0] = m;
  }
  return 0;
}

static int unique(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t;
  int has_axis = ST->has_axis, axis = 0;
  int sorted = ST->sorted;
  /* x: (outer, m, inner) with axis; (1, n, 1) without */
  int64_t outer = 1, m = x->n, inner = 1;
  if (has_axis) {
    OX_TRY(ox_axis(c, ST->axis, x->rank, 0, "axis", &axis));
    m = x->dims[axis];
    if (!x->n) return unique_empty(c, x, axis, nout, out);
    OX_TRY(span(c, x, 0, axis, &outer));
    OX_TRY(span(c, x, axis + 1, x->rank, &inner));
  }
  sort_key key = {.stride = inner, .outer = outer, .ostride = m * inner, .inner = inner};
  OX_TRY(comparator(c, x, &key.cmp, &key.x));
  int64_t *idx = alloc_i64(c, m), *tmp = alloc_i64(c, m / 2 + 1), *first = alloc_i64(c, m),
          *cnt = alloc_i64(c, m), *inv = alloc_i64(c, m);
  if (!idx || !tmp || !first || !cnt || !inv) return OX_EINPUT;
  for (int64_t i = 0; i < m; i++) idx[i] = i;
  msort(idx, tmp, m, &key);

  /* runs of equal slices; stability makes a run's head its first occurrence */
  int64_t u = 0;
  for (int64_t i = 0; i < m; i++) {
    if (i == 0 || key_cmp(&key, idx[i - 1], idx[i])) first[u++] = idx[i];
    cnt[u - 1]++;
    inv[idx[i]] = u - 1;
  }
  if (!sorted) { /* renumber the runs by first occurrence */
    int64_t *run_at = alloc_i64(c, m), *place = alloc_i64(c, u), *f2 = alloc_i64(c, u),
            *c2 = alloc_i64(c, u);
    if (!run_at || !place || !f2 || !c2) return OX_EINPUT;
    for (int64_t i = 0; i < m; i++) run_at[i] = -1;
    for (int64_t g = 0; g < u; g++) run_at[first[g]] = g;
    for (int64_t i = 0, p = 0; i < m; i++)
      if (run_at[i] >= 0) {
        int64_t g = run_at[i];
        place[g] = p;
        f2[p] = first[g];
        c2[p++] = cnt[g];
      }
    for (int64_t i = 0; i < m; i++) inv[i] = place[inv[i]];
    first = f2;
    cnt = c2;
  }

  /* Y: (outer, u, inner) with axis, (u) without, elements taken from x */
  ox_value *y;
  if (has_axis) {
    int64_t *dims = alloc_i64(c, x->rank);
    if (!dims) return OX_EINPUT;
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[axis] = u;
    OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, dims, &y, c->err));
  } else {
    OX_TRY(ox_tensor_new(c->a, x->dt, 1, &u, &y, c->err));
  }
  size_t es = ox_dtype_size(x->dt), row = (size_t)inner * es;
  char *yd = y->u.t.data;
  if (y->u.t.n)
    for (int64_t o = 0; o < outer; o++) {
      const char *xo = (const char *)x->data + (size_t)(o * m) * row;
      for (int64_t g = 0; g < u; g++, yd += row) memcpy(yd, xo + (size_t)first[g] * row, row);
    }
  out[0] = y;

  const int64_t *src[3] = {first, inv, cnt}, len[3] = {u, m, u};
  for (int i = 1; i < nout && i < 4; i++) {
    OX_TRY(ox_tensor_new(c->a, OX_INT64, 1, &len[i - 1], &out[i], c->err));
    if (len[i - 1]) memcpy(out[i]->u.t.data, src[i - 1], (size_t)len[i - 1] * sizeof(int64_t));
  }
  return 0;
}

/* ---- CumSum, CumProd ---- */

static float round_f16(float v) { return ox_f16_to_f32(ox_f32_to_f16(v)); }
static float round_bf16(float v) { return ox_bf16_to_f32(ox_f32_to_bf16(v)); }
#define R_ADD(T, a, b) rnd((a) + (b))
#define R_MUL(T, a, b) rnd((a) * (b))

/* y[o, t, :] = y[o, t-1, :] op x[o, t, :] (exclusive: op x[o, t-1, :], and
 * y[o, 0, :] = the identity); reverse runs t from the end. */
#define CUM_LOOP(T, OP, ONE, y, x)                                                    \
  for (int64_t o = 0; o < outer; o++) {                                               \
    const T *xo = (x) + o * s * inner;                                                \
    T *yo = (y) + o * s * inner;                                                      \
    for (int64_t t = 0; t < s; t++) {                                                 \
      T *yr = yo + start + t * step;                                                  \
      const T *xr = xo + start + t * step;                                            \
      if (t == 0) {                                                                   \
        for (int64_t j = 0; j < inner; j++) yr[j] = exclusive ? (T)(ONE) : xr[j];     \
      } else {                                                                        \
        const T *yp = yr - step, *xp = exclusive ? xr - step : xr;                    \
        for (int64_t j = 0; j < inner; j++) yr[j] = OP(T, yp[j], xp[j]);              \
      }                                                                               \
    }                                                                                 \
  }

/* CumSum-11, -14 (float16, bfloat16); CumProd-26. float16 and bfloat16 are
 * computed in float and rounded at every step, as numpy accumulates them. */
static int cumulative(ox_ctx *c, int nin, ox_value **in, ox_value **out, int prod) {
  OX_TRY(need_tensors(c, nin, in));
  const ox_tensor *x = &in[0]->u.t, *at = &in[1]->u.t;
  if (at->dt != OX_INT32 && at->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s (the axis) is %s; it must be int32 or int64",
                   ox_input_name(c, 1), ox_dtypes[at->dt].onnx_name);
  int64_t a;
  int axis;
  OX_TRY(ox_scalar_i64(c, 1, in[1], &a));
  OX_TRY(ox_axis(c, a, x->rank, 0, "axis", &axis));
  int exclusive = ST->exclusive, reverse = ST->reverse;
  /* x, y: (outer, s, inner) */
  int64_t outer, inner, s = x->dims[axis];
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  ox_tensor *yt = &out[0]->u.t;
  if (!yt->n) return 0; /* (and the spans below might not fit: (0, 2^62, 2^62)) */
  OX_TRY(span(c, x, 0, axis, &outer));
  OX_TRY(span(c, x, axis + 1, x->rank, &inner));
  int64_t start = reverse ? (s - 1) * inner : 0, step = reverse ? -inner : inner;

  switch (x->dt) {
#define CUM_I(NAME, T)                                                                \
  case OX_##NAME:                                                                     \
    if (prod) { CUM_LOOP(T, I_MUL, 1, (T *)yt->data, (const T *)x->data) }            \
    else { CUM_LOOP(T, I_ADD, 0, (T *)yt->data, (const T *)x->data) }                 \
    return 0;
#define CUM_F(NAME, T)                                                                \
  case OX_##NAME:                                                                     \
    if (prod) { CUM_LOOP(T, F_MUL, 1, (T *)yt->data, (const T *)x->data) }            \
    else { CUM_LOOP(T, F_ADD, 0, (T *)yt->data, (const T *)x->data) }                 \
    return 0;
    OX_NATIVE_INTS(CUM_I)
    OX_NATIVE_FLOATS(CUM_F)
#undef CUM_I
#undef CUM_F
  case OX_FLOAT16:
  case OX_BFLOAT16: {
    float (*rnd)(float) = x->dt == OX_FLOAT16 ? round_f16 : round_bf16;
    float *xf = ox_widen_f32(c->a, x, c->err), *yf = ox_alloc_array(c->a, yt->n, sizeof *yf);
    if (!xf || !yf) return ox_oom(c->err, NULL);
    if (prod) { CUM_LOOP(float, R_MUL, 1, yf, xf) }
    else { CUM_LOOP(float, R_ADD, 0, yf, xf) }
    ox_narrow_f32(yf, yt); /* exact: every value is already rounded */
    return 0;
  }
  default:
    return ox_fail(c->err, OX_EINPUT, "%s elements are not supported", ox_dtypes[x->dt].onnx_name);
  }
}

static int cumsum(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return cumulative(c, nin, in, out, 0);
}
static int cumprod(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return cumulative(c, nin, in, out, 1);
}

/* One row per since-version; tin 0 (the data) is the input T constrains. */
const ox_kernel ox_index_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Gather",           1, 0, TS_ALL,       2, 2, gather, "axis:int=0", index_load },
  { "", "Gather",          11, 0, TS_ALL,       2, 2, gather, "axis:int=0", index_load },
  { "", "Gather",          13, 0, TS_ALL13,     2, 2, gather, "axis:int=0", index_load },
  { "", "GatherElements",  11, 0, TS_ALL,       2, 2, gather_elements, "axis:int=0", index_load },
  { "", "GatherElements",  13, 0, TS_ALL13,     2, 2, gather_elements, "axis:int=0", index_load },
  { "", "GatherND",        11, 0, TS_ALL,       2, 2, gather_nd, "", index_load },
  /* + batch_dims */
  { "", "GatherND",        12, 0, TS_ALL,       2, 2, gather_nd, "batch_dims:int=0", index_load },
  { "", "GatherND",        13, 0, TS_ALL13,     2, 2, gather_nd, OX_ATTRS_OF(12), index_load },
  /* deprecated in 11 */
  { "", "Scatter",          9, 0, TS_ALL,       3, 3, scatter_elements, "axis:int=0", index_load },
  { "", "Scatter",              11, OX_REMOVED }, /* ScatterElements replaces it */
  { "", "ScatterElements", 11, 0, TS_ALL,       3, 3, scatter_elements, "axis:int=0", index_load },
  { "", "ScatterElements", 13, 0, TS_ALL13,     3, 3, scatter_elements, "axis:int=0", index_load },
  { "", "ScatterElements", 16, 0, TS_ALL13,     3, 3, scatter_elements,
    "axis:int=0,reduction:string=none", index_load }, /* + add, mul */
  { "", "ScatterElements", 18, 0, TS_ALL13,     3, 3, scatter_elements, OX_ATTRS_OF(16), index_load }, /* + max, min */
  { "", "ScatterND",       11, 0, TS_ALL,       3, 3, scatter_nd, "", index_load },
  { "", "ScatterND",       13, 0, TS_ALL13,     3, 3, scatter_nd, "", index_load },
  { "", "ScatterND",       16, 0, TS_ALL13,     3, 3, scatter_nd, "reduction:string=none", index_load },
  { "", "ScatterND",       18, 0, TS_ALL13,     3, 3, scatter_nd, OX_ATTRS_OF(16), index_load },
  { "", "TensorScatter",   24, 0, TS_ALL24,     2, 3, tensor_scatter,
    "axis:int=-2,mode:string=linear", index_load },
  { "", "Compress",         9, 0, TS_ALL,       2, 2, compress, "axis:int", index_load },
  { "", "Compress",        11, 0, TS_ALL,       2, 2, compress, "axis:int", index_load },
  { "", "NonZero",          9, 0, TS_ALL,       1, 1, nonzero, "" },
  { "", "NonZero",         13, 0, TS_ALL13,     1, 1, nonzero, "" },
  { "", "TopK",             1, 0, OX_TS_FLOAT3, 1, 1, topk, "axis:int=-1,k:int:required", topk_load },
  { "", "TopK",            10, 0, OX_TS_FLOAT3, 2, 2, topk, "axis:int=-1", topk_load },
  { "", "TopK",            11, 0, OX_TS_NUM,    2, 2, topk,
    "axis:int=-1,largest:int=1,sorted:int=1", topk_load },
  { "", "TopK",            24, 0, OX_TS_NUM13,  2, 2, topk, OX_ATTRS_OF(11), topk_load },
  { "", "Unique",          11, 0, TS_ALL,       1, 1, unique, "axis:int,sorted:int=1", index_load },
  { "", "CumSum",          11, 0, TS_CUM11,     2, 2, cumsum, "exclusive:int=0,reverse:int=0", index_load },
  { "", "CumSum",          14, 0, TS_CUM14,     2, 2, cumsum, OX_ATTRS_OF(11), index_load },
  { "", "CumProd",         26, 0, TS_CUM14,     2, 2, cumprod, "exclusive:int=0,reverse:int=0", index_load },
  {0},
};
