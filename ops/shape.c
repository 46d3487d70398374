/* ops/shape.c: ops that hand values over, reshape them or make them from a
 * shape: Identity, Constant, Reshape, Flatten, Squeeze, Unsqueeze, Shape,
 * Size, ConstantOfShape, EyeLike, Range, Trilu, OneHot and Transpose.
 *
 * Identity returns its input (sharing the data) and Constant returns its
 * attribute's tensor, or builds a small one from value_float(s), value_int(s)
 * or value_string(s). Reshape, Flatten, Squeeze and Unsqueeze share their
 * input's data under a new header (values are never mutated). The ops that
 * move data copy elements as ox_dtype_size() bytes, with no per-type code
 * (strings copy their ox_str struct, sharing the bytes). */
#include <stdio.h>
#include <string.h>

#include <math.h>

#include "core/cpu.h"
#include "core/kernel.h"
#include "core/threads.h"

#define T_BIT(dt) (UINT64_C(1) << (dt))

/* The tensor types, as each version grew them. */
#define TS_13 (OX_TS_CLASSIC | OX_T(BFLOAT16))
#define TS_19 (TS_13 | OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) |      \
               OX_T(FLOAT8E5M2FNUZ))
#define TS_21 (TS_19 | OX_T(UINT4) | OX_T(INT4))
#define TS_23 (TS_21 | OX_T(FLOAT4E2M1))
#define TS_24 (TS_23 | OX_T(FLOAT8E8M0))
#define TS_25 (TS_24 | OX_T(UINT2) | OX_T(INT2))

/* A copy of a value's header, sharing its data. */
static int share(ox_ctx *c, const ox_value *v, ox_value **out) {
  *out = ox_tensor_view(c->a, v);
  return *out ? 0 : ox_oom(c->err, NULL);
}

/* Identity-1 and -13 take tensors, -14 also sequences, -16 also optionals.
 * (The spec's sequence and optional types keep the 15 classic element types
 * while the tensor list grows; we do not hold sequences to the shorter list,
 * since SplitToSequence-24 itself makes sequences of bfloat16.) */
static int identity(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_value *v = in[0];
  int ok = v->kind == OX_TENSOR || (v->kind == OX_SEQUENCE && c->version >= 14) ||
           (v->kind == OX_OPTIONAL && c->version >= 16);
  if (!ok) {
    char desc[128];
    return ox_fail(c->err, OX_EINPUT, "%s is %s; Identity takes a tensor, a sequence (from "
                   "opset 14) or an optional (from opset 16)",
                   ox_input_name(c, 0), ox_value_desc(v, desc, sizeof desc));
  }
  return share(c, v, &out[0]);
}

/* ---- Constant ---- */

/* Its attributes: exactly one must be set, each from the version that added it. */
static const struct {
  const char *name;
  int since;
  ox_attr_type type;
} constant_attrs[] = {
    {"value", 1, OX_ATTR_TENSOR},
    {"sparse_value", 11, OX_ATTR_SPARSE_TENSOR}, /* the loader densifies it into attr->t */
    {"value_float", 12, OX_ATTR_FLOAT},
    {"value_floats", 12, OX_ATTR_FLOATS},
    {"value_int", 12, OX_ATTR_INT},
    {"value_ints", 12, OX_ATTR_INTS},
    {"value_string", 12, OX_ATTR_STRING},
    {"value_strings", 12, OX_ATTR_STRINGS},
};
enum { NCONST_ATTRS = sizeof constant_attrs / sizeof constant_attrs[0] };

extern const ox_kernel ox_shape_kernels[];

/* The first version whose Constant row allows dt (the table is the truth),
 * or 0 if none does. */
static int constant_since(ox_dtype dt) {
  for (const ox_kernel *k = ox_shape_kernels; k->op; k++)
    if (!strcmp(k->op, "Constant") && (k->types & (UINT64_C(1) << dt))) return k->since;
  return 0;
}

static const char *attr_type_name(int t) {
  static const char *names[] = {"undefined", "float", "int", "string", "tensor", "graph",
                                "floats", "ints", "strings", "tensors", "graphs",
                                "sparse_tensor", "sparse_tensors", "type_proto", "type_protos"};
  return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "unknown";
}

/* A new 1-D tensor of n elements of type dt, copied from src. */
static int vector(ox_ctx *c, ox_dtype dt, int64_t n, const void *src, ox_value **out) {
  OX_TRY(ox_tensor_new(c->a, dt, 1, &n, out, c->err));
  if (n) memcpy((*out)->u.t.data, src, (size_t)n * ox_dtype_size(dt));
  return 0;
}

static int constant(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_attr *at = NULL;
  int found = 0, which = -1;
  for (int i = 0; i < NCONST_ATTRS; i++) {
    const ox_attr *a = ox_attr_find(c, constant_attrs[i].name);
    if (!a) continue;
    if (c->version < constant_attrs[i].since)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' needs opset %d or later", a->name,
                     constant_attrs[i].since);
    found++;
    at = a;
    which = i;
  }
  if (found != 1) {
    if (c->version < 11)
      return ox_fail(c->err, OX_EINPUT, "the attribute 'value' is required");
    if (found == 0)
      return ox_fail(c->err, OX_EINPUT, "no value is given: set exactly one of value, "
                     "sparse_value%s", c->version >= 12 ? " or value_*" : "");
    /* the names only here: a Constant runs on every call of a subgraph */
    char names[256] = "";
    for (int i = 0, k = 0; i < NCONST_ATTRS; i++) {
      if (!ox_attr_find(c, constant_attrs[i].name)) continue;
      size_t len = strlen(names);
      snprintf(names + len, sizeof names - len, "%s%s", k++ ? ", " : "", constant_attrs[i].name);
    }
    return ox_fail(c->err, OX_EINPUT, "exactly one value attribute may be set; found %d (%s)",
                   found, names);
  }

  /* value and sparse_value (densified by the loader) both arrive in at->t. */
  ox_attr_type want = constant_attrs[which].type;
  int is_tensor = want == OX_ATTR_TENSOR || want == OX_ATTR_SPARSE_TENSOR;
  if (is_tensor ? !at->t : at->type != want)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' is of type %s; expected %s", at->name,
                   attr_type_name(at->type), attr_type_name(want));

  switch (want) {
  case OX_ATTR_TENSOR:
  case OX_ATTR_SPARSE_TENSOR: {
    const ox_value *t = at->t;
    if (t->kind != OX_TENSOR)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' does not hold a tensor", at->name);
    const char *dtn = ox_dtypes[t->u.t.dt].onnx_name;
    int since = constant_since(t->u.t.dt);
    if (!since)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' holds %s elements; Constant does "
                     "not allow that type", at->name, dtn);
    if (since > c->version)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' holds %s elements; Constant allows "
                     "that type from opset %d", at->name, dtn, since);
    return share(c, t, &out[0]);
  }
  case OX_ATTR_FLOAT: /* a float32 scalar */
    OX_TRY(ox_scalar_new(c->a, OX_FLOAT, &out[0], c->err));
    *(float *)out[0]->u.t.data = at->f;
    return 0;
  case OX_ATTR_INT: /* an int64 scalar */
    OX_TRY(ox_scalar_new(c->a, OX_INT64, &out[0], c->err));
    *(int64_t *)out[0]->u.t.data = at->i;
    return 0;
  case OX_ATTR_STRING: /* a string scalar (the bytes are shared) */
    OX_TRY(ox_scalar_new(c->a, OX_STRING, &out[0], c->err));
    *(ox_str *)out[0]->u.t.data = at->s;
    return 0;
  case OX_ATTR_FLOATS: return vector(c, OX_FLOAT, at->n, at->floats, &out[0]);
  case OX_ATTR_INTS: return vector(c, OX_INT64, at->n, at->ints, &out[0]);
  case OX_ATTR_STRINGS: return vector(c, OX_STRING, at->n, at->strings, &out[0]);
  default: return ox_fail(c->err, OX_EINPUT, "internal error: attribute type %d", want);
  }
}

/* ---- helpers shared by the ops below ---- */

/* A new header for x's data with another shape (values are never mutated, so
 * Reshape, Flatten, Squeeze and Unsqueeze share the data). The element count
 * must be unchanged; the callers check it. */
static int view_as(ox_ctx *c, const ox_value *x, int rank, const int64_t *dims, ox_value **out) {
  ox_value *v = ox_tensor_view(c->a, x);
  int64_t *d = ox_alloc_array(c->a, rank + 1, sizeof *d);
  if (!v || !d) return ox_oom(c->err, NULL);
  if (rank) memcpy(d, dims, (size_t)rank * sizeof *d);
  v->u.t.rank = rank;
  v->u.t.dims = d;
  *out = v;
  return 0;
}

/* Fill n elements of `size` bytes at dst with copies of *elem (doubling
 * memcpys: no per-type code). */
static void fill(void *dst, int64_t n, const void *elem, size_t size) {
  if (n <= 0) return;
  char *d = dst;
  size_t done = size, total = (size_t)n * size;
  memcpy(d, elem, size);
  while (done < total) {
    size_t k = done < total - done ? done : total - done;
    memcpy(d + done, d, k);
    done += k;
  }
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- Reshape ---- */

/* The output shape of Reshape from the requested one, want[0..n-1]:
 * -1 (at most once) is inferred from the element count; 0 copies the input's
 * dim at that index, unless allowzero (Reshape-14) makes it a real 0. Any
 * other negative value is an error. */
static int reshape_dims(ox_ctx *c, const ox_tensor *x, int64_t n, const int64_t *want,
                        int allowzero, int64_t *dims) {
  char sb[256], sx[256];
  int64_t infer = -1, known; /* the product of the dims other than -1 */
  int zero = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = want[i];
    if (d == -1) {
      if (infer >= 0)
        return ox_fail(c->err, OX_EINPUT, "shape %s has more than one -1",
                       ox_shape_str((int)n, want, sb, sizeof sb));
      infer = i;
      dims[i] = 1;
      continue;
    }
    if (d < -1)
      return ox_fail(c->err, OX_EINPUT, "shape %s has the negative dimension %lld at index "
                     "%lld; only -1 (inferred) is allowed",
                     ox_shape_str((int)n, want, sb, sizeof sb), (long long)d, (long long)i);
    if (d == 0 && !allowzero) {
      if (i >= x->rank)
        return ox_fail(c->err, OX_EINPUT, "shape %s has 0 (copy the input's dimension) at "
                       "index %lld, but the input has rank %d",
                       ox_shape_str((int)n, want, sb, sizeof sb), (long long)i, x->rank);
      d = x->dims[i];
    }
    if (d == 0) zero = 1;
    dims[i] = d;
  }
  /* a 0 anywhere makes it 0 (the -1's placeholder is 1): (2^62, 2^62, 0) is empty */
  known = ox_numel((int)n, dims, 0);
  if (known < 0)
    return ox_fail(c->err, OX_EINPUT, "shape %s is too large", ox_shape_str((int)n, want, sb, sizeof sb));
  if (infer >= 0) {
    /* Reshape-14: with allowzero = 1, a shape holding both 0 and -1 is invalid. */
    if (allowzero && zero)
      return ox_fail(c->err, OX_EINPUT, "shape %s holds both 0 and -1, which allowzero = 1 "
                     "does not allow", ox_shape_str((int)n, want, sb, sizeof sb));
    if (known == 0 || x->n % known)
      return ox_fail(c->err, OX_EINPUT, "cannot reshape a tensor of shape %s (%lld elements) "
                     "into %s: the -1 cannot be inferred",
                     ox_shape_str(x->rank, x->dims, sx, sizeof sx), (long long)x->n,
                     ox_shape_str((int)n, want, sb, sizeof sb));
    dims[infer] = x->n / known;
  } else if (known != x->n) {
    return ox_fail(c->err, OX_EINPUT, "cannot reshape a tensor of shape %s (%lld elements) "
                   "into %s (%lld elements)",
                   ox_shape_str(x->rank, x->dims, sx, sizeof sx), (long long)x->n,
                   ox_shape_str((int)n, dims, sb, sizeof sb), (long long)known);
  }
  return 0;
}

/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hooks of this file keep for a node (Reshape, Flatten,
 * Transpose): the attributes its op-version declares, each with its
 * default where the node leaves it out. */
typedef struct {
  const int64_t *shape, *perm, *axes; /* NULL: absent */
  int64_t nshape, nperm, naxes, axis, start, end, dtype, k, upper, stash;
  int allowzero, has_axis, has_end, has_dtype;
} shape_state;

static int shape_load(ox_ctx *c, void **state) {
  shape_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->shape = ox_attr_ints(c, "shape", &st->nshape);
  if (c->version >= 14) OX_TRY(ox_attr_int_in(c, "allowzero", 0, 0, 1, &st->allowzero));
  st->has_axis = ox_attr_find(c, "axis") != NULL; /* the default differs: Flatten 1, OneHot -1 */
  st->axis = ox_attr_int(c, "axis", 1);
  st->perm = ox_attr_ints(c, "perm", &st->nperm);
  st->axes = ox_attr_ints(c, "axes", &st->naxes);
  st->start = ox_attr_int(c, "start", 0);
  st->has_end = ox_attr_find(c, "end") != NULL;
  st->end = ox_attr_int(c, "end", 0);
  st->has_dtype = ox_attr_find(c, "dtype") != NULL;
  st->dtype = ox_attr_int(c, "dtype", 0);
  st->k = ox_attr_int(c, "k", 0);
  st->upper = ox_attr_int(c, "upper", 1);
  st->stash = ox_attr_int(c, "stash_type", OX_FLOAT);
  return 0;
}

/* Reshape-1: its shape attribute given */
static int reshape_load(ox_ctx *c, void **state) {
  OX_TRY(shape_load(c, state));
  if (c->version < 5 && !((shape_state *)*state)->shape)
    return ox_fail(c->err, OX_EINPUT, "the attribute 'shape' is required");
  return 0;
}

/* Reshape-1 takes the shape as an attribute; from 5 it is input 1 (int64);
 * allowzero arrives in 14. */
static int reshape(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  const int64_t *want;
  int64_t n;
  const shape_state *st = c->state;
  if (c->version < 5) {
    want = st->shape, n = st->nshape;
  } else {
    int64_t *w;
    OX_TRY(ox_ints_of(c, 1, in[1], &w, &n));
    want = w;
  }
  int allowzero = st->allowzero;
  if (n > INT32_MAX) return ox_fail(c->err, OX_EINPUT, "shape has %lld entries", (long long)n);
  int64_t *dims = ox_alloc_array(c->a, n + 1, sizeof *dims);
  if (!dims) return ox_oom(c->err, NULL);
  OX_TRY(reshape_dims(c, x, n, want, allowzero, dims));
  return view_as(c, in[0], (int)n, dims, &out[0]);
}

/* ---- Flatten ---- */

/* x: (d0, ..., d[axis-1], d[axis], ..., d[r-1]) -> (d0 * ... * d[axis-1], d[axis] * ... * d[r-1])
 * axis lies in [0, r]; from Flatten-11 also [-r, -1], counting from the back. */
static int flatten(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  int64_t axis = ((const shape_state *)c->state)->axis;
  int r = x->rank;
  int64_t lo = c->version >= 11 ? -r : 0;
  if (axis < lo || axis > r)
    return ox_fail(c->err, OX_EINPUT, "axis %lld is out of range [%lld, %d] for rank %d",
                   (long long)axis, (long long)lo, r, r);
  if (axis < 0) axis += r;
  int64_t dims[2] = {ox_numel((int)axis, x->dims, 0), ox_numel(r - (int)axis, x->dims + axis, 0)};
  if (dims[0] < 0 || dims[1] < 0) return ox_fail(c->err, OX_EINPUT, "the flattened shape is too large");
  return view_as(c, in[0], 2, dims, &out[0]);
}

/* ---- Squeeze and Unsqueeze ---- */

/* The axes: an attribute before opset 13, input 1 from 13. *n = -1 when absent. */
static int get_axes(ox_ctx *c, int nin, ox_value **in, const int64_t **axes, int64_t *n) {
  *axes = NULL;
  *n = -1;
  if (c->version < 13) {
    *axes = ((const shape_state *)c->state)->axes;
    *n = ((const shape_state *)c->state)->naxes;
    return 0;
  }
  if (nin > 1 && in[1]) {
    int64_t *v;
    OX_TRY(ox_ints_of(c, 1, in[1], &v, n));
    *axes = v;
  }
  return 0;
}

/* Normalise axes[0..n-1] against `rank` into mark[] (1 = named); negative
 * axes count from the back from opset 11; repeats are errors. */
static int mark_axes(ox_ctx *c, const int64_t *axes, int64_t n, int rank, char *mark) {
  for (int64_t i = 0; i < n; i++) {
    int64_t a = axes[i];
    if (a < 0 && c->version < 11)
      return ox_fail(c->err, OX_EINPUT, "axis %lld is negative; negative axes are allowed "
                     "from opset 11", (long long)a);
    if (a < -rank || a >= rank)
      return ox_fail(c->err, OX_EINPUT, "axis %lld is out of range [%d, %d]", (long long)a,
                     -rank, rank - 1);
    if (a < 0) a += rank;
    if (mark[a])
      return ox_fail(c->err, OX_EINPUT, "axis %lld is given more than once", (long long)axes[i]);
    mark[a] = 1;
  }
  return 0;
}

/* Without axes every dim of size 1 goes. (Squeeze-13 with an empty axes
 * tensor squeezes nothing, as the reference's np.squeeze(x, axis=()) does;
 * before 13 an empty list counts as absent.) */
static int squeeze(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  const int64_t *axes;
  int64_t n;
  OX_TRY(get_axes(c, nin, in, &axes, &n));
  if (c->version < 13 && n == 0) n = -1;
  int r = x->rank;
  char *mark = ox_alloc(c->a, (size_t)r + 1);
  int64_t *dims = ox_alloc_array(c->a, r + 1, sizeof *dims);
  if (!mark || !dims) return ox_oom(c->err, NULL);
  if (n < 0) {
    for (int i = 0; i < r; i++) mark[i] = x->dims[i] == 1;
  } else {
    OX_TRY(mark_axes(c, axes, n, r, mark));
    for (int i = 0; i < r; i++)
      if (mark[i] && x->dims[i] != 1) {
        char sb[256];
        return ox_fail(c->err, OX_EINPUT, "cannot squeeze axis %d of shape %s: its dimension "
                       "is %lld, not 1", i, ox_shape_str(r, x->dims, sb, sizeof sb),
                       (long long)x->dims[i]);
      }
  }
  int k = 0;
  for (int i = 0; i < r; i++)
    if (!mark[i]) dims[k++] = x->dims[i];
  return view_as(c, in[0], k, dims, &out[0]);
}

/* Axes name positions in the output, of rank r + len(axes) (Unsqueeze-1 says
 * "as seen in the output tensor"), so their order does not matter. */
static int unsqueeze(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  const int64_t *axes;
  int64_t n;
  OX_TRY(get_axes(c, nin, in, &axes, &n));
  if (n < 0) return ox_fail(c->err, OX_EINPUT, "the axes are required");
  if (n > INT32_MAX - x->rank) return ox_fail(c->err, OX_EINPUT, "too many axes");
  int r = x->rank + (int)n;
  char *mark = ox_alloc(c->a, (size_t)r + 1);
  int64_t *dims = ox_alloc_array(c->a, r + 1, sizeof *dims);
  if (!mark || !dims) return ox_oom(c->err, NULL);
  OX_TRY(mark_axes(c, axes, n, r, mark));
  for (int i = 0, k = 0; i < r; i++) dims[i] = mark[i] ? 1 : x->dims[k++];
  return view_as(c, in[0], r, dims, &out[0]);
}

/* ---- Shape and Size ---- */

/* Shape-15: start and end slice the shape; negative values count from the
 * back, and both are clamped to [0, r]. */
static int shape(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  int64_t r = x->rank, start = 0, end = r;
  if (c->version >= 15) {
    const shape_state *st = c->state;
    start = st->start;
    end = st->has_end ? st->end : r;
  }
  start = clamp64(start < 0 ? start + r : start, 0, r);
  end = clamp64(end < 0 ? end + r : end, 0, r);
  int64_t n = end > start ? end - start : 0;
  OX_TRY(ox_tensor_new(c->a, OX_INT64, 1, &n, &out[0], c->err));
  if (n) memcpy(out[0]->u.t.data, x->dims + start, (size_t)n * sizeof(int64_t));
  return 0;
}

static int size(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_scalar_new(c->a, OX_INT64, &out[0], c->err));
  *(int64_t *)out[0]->u.t.data = x->n;
  return 0;
}

/* ---- ConstantOfShape ---- */

#define TS_COS9 (OX_TS_INTS | OX_TS_FLOAT3 | OX_T(BOOL))
#define TS_COS20 (TS_COS9 | OX_T(BFLOAT16) | OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) |     \
                  OX_T(FLOAT8E5M2) | OX_T(FLOAT8E5M2FNUZ))
#define TS_COS21 (TS_COS20 | OX_TS_4BIT)
#define TS_COS23 (TS_COS21 | OX_T(FLOAT4E2M1))
#define TS_COS24 (TS_COS23 | OX_T(FLOAT8E8M0))
#define TS_COS25 (TS_COS24 | OX_T(UINT2) | OX_T(INT2))

/* The output types (T2) each version allows; the registry's mask constrains
 * the shape input. */
static uint64_t cos_types(int version) {
  return version >= 25 ? TS_COS25 : version >= 24 ? TS_COS24 : version >= 23 ? TS_COS23
       : version >= 21 ? TS_COS21 : version >= 20 ? TS_COS20 : TS_COS9;
}

/* input: (r,) int64, the output shape; empty gives a scalar. The value
 * attribute (one element) gives the dtype and value; default float 0. */
static int constant_of_shape(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int64_t *dims, r;
  OX_TRY(ox_ints_of(c, 0, in[0], &dims, &r));
  const ox_attr *at = ox_attr_find(c, "value");
  const ox_tensor *v = NULL;
  if (at) {
    if (!at->t || at->t->kind != OX_TENSOR)
      return ox_fail(c->err, OX_EINPUT, "attribute 'value' must be a tensor");
    v = &at->t->u.t;
    if (v->n != 1)
      return ox_fail(c->err, OX_EINPUT, "attribute 'value' must hold one element; it has %lld",
                     (long long)v->n);
    if (!(cos_types(c->version) & T_BIT(v->dt)))
      return ox_fail(c->err, OX_EINPUT, "attribute 'value' is %s; ConstantOfShape-%d does not "
                     "make that type", ox_dtypes[v->dt].onnx_name, c->version);
  }
  if (r > INT32_MAX) return ox_fail(c->err, OX_EINPUT, "shape has %lld entries", (long long)r);
  OX_TRY(ox_tensor_new(c->a, v ? v->dt : OX_FLOAT, (int)r, dims, &out[0], c->err));
  if (v) fill(out[0]->u.t.data, out[0]->u.t.n, v->data, ox_dtype_size(v->dt));
  return 0; /* else float zeros: the new tensor is zeroed */
}

/* ---- EyeLike ---- */

#define TS_EYE9 (OX_TS_INTS | OX_TS_FLOAT3 | OX_T(BOOL))
#define TS_EYE22 (TS_EYE9 | OX_T(BFLOAT16))

/* x: (N, M) -> y: (N, M), y[i, i + k] = 1 and 0 elsewhere; dtype (default:
 * x's type) picks the output type. */
static int eye_like(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  const shape_state *st = c->state;
  int64_t dt = st->has_dtype ? st->dtype : x->dt, k = st->k;
  uint64_t allowed = c->version >= 22 ? TS_EYE22 : TS_EYE9;
  if (dt <= 0 || dt >= OX_DTYPE_MAX || !(allowed & T_BIT(dt)))
    return ox_fail(c->err, OX_EINPUT, "dtype %lld%s%s%s is not allowed: the output must be a "
                   "real number or bool type", (long long)dt,
                   ox_dtype_valid(dt) ? " (" : "",
                   ox_dtype_valid(dt) ? ox_dtypes[dt].onnx_name : "",
                   ox_dtype_valid(dt) ? ")" : "");
  if (x->rank != 2) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "the input must be 2-D; it has shape %s",
                   ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  }
  OX_TRY(ox_tensor_new(c->a, (ox_dtype)dt, 2, x->dims, &out[0], c->err));
  int64_t n = x->dims[0], m = x->dims[1];
  size_t es = ox_dtype_size((ox_dtype)dt);
  unsigned char one[16];
  ox_store_f64((ox_dtype)dt, one, 0, 1.0);
  k = clamp64(k, -n, m); /* beyond these no diagonal element is inside */
  char *y = out[0]->u.t.data;
  /* rows i with 0 <= i + k < m */
  for (int64_t i = k < 0 ? -k : 0; i < n && i + k < m; i++)
    memcpy(y + (size_t)(i * m + i + k) * es, one, es);
  return 0;
}

/* ---- Range ---- */

/* Same dtype scalars start, limit, delta -> (count,), y[i] = start + i * delta,
 * count = max(ceil((limit - start) / delta), 0). Integers compute exactly in
 * 64 bits; float and double in double (the reference's np.arange). Range-27
 * adds float16 and bfloat16, computed in stash_type (float by default, or
 * double) and rounded once on store. */
static int range(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *t[3];
  static const char *what[3] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; i++) {
    OX_TRY(ox_tensor_in(c, in, nin, i, &t[i]));
    if (t[i]->n != 1 || t[i]->rank > 1) {
      char sb[256];
      return ox_fail(c->err, OX_EINPUT, "%s (%s) must be a scalar; it has shape %s",
                     ox_input_name(c, i), what[i], ox_shape_str(t[i]->rank, t[i]->dims, sb, sizeof sb));
    }
    if (t[i]->dt != t[0]->dt)
      return ox_fail(c->err, OX_EINPUT, "%s (%s) is %s but start is %s; all three must have "
                     "the same type", ox_input_name(c, i), what[i],
                     ox_dtypes[t[i]->dt].onnx_name, ox_dtypes[t[0]->dt].onnx_name);
  }
  ox_dtype dt = t[0]->dt;
  int64_t count;
  if (!ox_dtype_is_float(dt)) {
    int64_t s = ox_load_i64(dt, t[0]->data, 0), l = ox_load_i64(dt, t[1]->data, 0),
            d = ox_load_i64(dt, t[2]->data, 0);
    if (d == 0) return ox_fail(c->err, OX_EINPUT, "delta is 0");
    /* |limit - start| and |delta| as unsigned: exact even across the whole int64 range */
    uint64_t span = d > 0 ? (l > s ? (uint64_t)l - (uint64_t)s : 0)
                          : (s > l ? (uint64_t)s - (uint64_t)l : 0);
    uint64_t step = d > 0 ? (uint64_t)d : 0 - (uint64_t)d;
    uint64_t cnt = span / step + (span % step != 0);
    if (cnt > INT64_MAX) return ox_fail(c->err, OX_EINPUT, "the range is too long");
    count = (int64_t)cnt;
    OX_TRY(ox_tensor_new(c->a, dt, 1, &count, &out[0], c->err));
    void *y = out[0]->u.t.data;
    /* start + i * delta in wrapping unsigned arithmetic: every result fits T */
    uint64_t us = (uint64_t)s, ud = (uint64_t)d;
    switch (dt) {
#define CASE(NAME, T)                                                                     \
    case OX_##NAME: {                                                                     \
      T *p = y;                                                                           \
      for (int64_t i = 0; i < count; i++) p[i] = (T)(int64_t)(us + (uint64_t)i * ud);      \
      break;                                                                              \
    }
      OX_NATIVE_INTS(CASE)
#undef CASE
    default:
      for (int64_t i = 0; i < count; i++) ox_store_i64(dt, y, i, (int64_t)(us + (uint64_t)i * ud));
    }
    return 0;
  }
  double s = ox_load_f64(dt, t[0]->data, 0), l = ox_load_f64(dt, t[1]->data, 0),
         d = ox_load_f64(dt, t[2]->data, 0);
  if (d == 0) return ox_fail(c->err, OX_EINPUT, "delta is 0");
  double q = ceil((l - s) / d);
  if (q != q || q > 9.0e18)
    return ox_fail(c->err, OX_EINPUT, "range(%g, %g, %g) has no finite length", s, l, d);
  count = q > 0 ? (int64_t)q : 0;
  OX_TRY(ox_tensor_new(c->a, dt, 1, &count, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  int64_t stash = ((const shape_state *)c->state)->stash;
  if (dt == OX_DOUBLE || (ox_dtype_is_small_float(dt) && stash == OX_DOUBLE)) {
    if (dt == OX_DOUBLE) {
      double *p = y->data;
      for (int64_t i = 0; i < count; i++) p[i] = s + (double)i * d;
    } else {
      for (int64_t i = 0; i < count; i++) ox_store_f64(dt, y->data, i, s + (double)i * d);
    }
  } else if (dt == OX_FLOAT) {
    float *p = y->data;
    for (int64_t i = 0; i < count; i++) p[i] = (float)(s + (double)i * d);
  } else {
    if (stash != OX_FLOAT)
      return ox_fail(c->err, OX_EINPUT, "stash_type %lld is not supported; it must be 1 (float) "
                     "or 11 (double)", (long long)stash);
    float *f = ox_alloc_array(c->a, count, sizeof *f);
    if (!f && count) return ox_oom(c->err, NULL);
    float fs = (float)s, fd = (float)d;
    for (int64_t i = 0; i < count; i++) f[i] = fs + (float)i * fd;
    ox_narrow_f32(f, y);
  }
  return 0;
}

/* ---- Trilu ---- */

/* x: (*, N, M). upper keeps j >= i + k, lower keeps j <= i + k; the rest is
 * zero (the empty string for strings). k is input 1, a scalar, default 0. */
static int trilu(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  int64_t k = 0, upper = ((const shape_state *)c->state)->upper;
  if (nin > 1 && in[1]) OX_TRY(ox_scalar_i64(c, 1, in[1], &k));
  if (x->rank < 2) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "the input must have rank 2 or more; it has shape %s",
                   ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  }
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  if (!x->n) return 0;
  size_t es = ox_dtype_size(x->dt);
  if (x->dt == OX_STRING) fill(out[0]->u.t.data, x->n, &(ox_str){"", 0}, es);
  int64_t n = x->dims[x->rank - 2], m = x->dims[x->rank - 1], batch = x->n / (n * m);
  k = clamp64(k, -n - 1, m + 1); /* beyond these the result no longer changes */
  const char *src = x->data;
  char *dst = out[0]->u.t.data;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < n; i++) {
      /* the kept columns [lo, hi) of row i */
      int64_t lo = upper ? clamp64(i + k, 0, m) : 0, hi = upper ? m : clamp64(i + k + 1, 0, m);
      size_t row = (size_t)((b * n + i) * m);
      if (hi > lo) memcpy(dst + (row + (size_t)lo) * es, src + (row + (size_t)lo) * es,
                          (size_t)(hi - lo) * es);
    }
  return 0;
}

/* ---- OneHot ---- */

/* indices: (l..., r...) -> y: (l..., depth, r...) with depth at `axis`;
 * y = values[1] (on) where the index along depth equals indices, values[0]
 * (off) elsewhere. Non-integer indices and depth are truncated to int64.
 * OneHot-11 wraps indices in [-depth, -1]; OneHot-9 treats any index outside
 * [0, depth) as all off. */
static int one_hot(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *dep, *val;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &dep));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &val));
  char sb[256];
  if (!(OX_TS_NUM & T_BIT(dep->dt)))
    return ox_fail(c->err, OX_EINPUT, "%s (depth) is %s; it must be a number",
                   ox_input_name(c, 1), ox_dtypes[dep->dt].onnx_name);
  if (dep->n != 1 || dep->rank > 1)
    return ox_fail(c->err, OX_EINPUT, "%s (depth) must hold one element; it has shape %s",
                   ox_input_name(c, 1), ox_shape_str(dep->rank, dep->dims, sb, sizeof sb));
  if (val->rank != 1 || val->n != 2)
    return ox_fail(c->err, OX_EINPUT, "%s (values) must have shape (2,): [off, on]; it has "
                   "shape %s", ox_input_name(c, 2), ox_shape_str(val->rank, val->dims, sb, sizeof sb));
  if (!(OX_TS_CLASSIC & T_BIT(val->dt)))
    return ox_fail(c->err, OX_EINPUT, "%s (values) is %s, which OneHot does not allow",
                   ox_input_name(c, 2), ox_dtypes[val->dt].onnx_name);
  if (ox_dtype_is_float(dep->dt)) {
    double d = ox_load_f64(dep->dt, dep->data, 0);
    if (!(d >= 0 && d < 9.0e18))
      return ox_fail(c->err, OX_EINPUT, "depth %g must be a non-negative number", d);
  }
  int64_t depth = ox_load_i64(dep->dt, dep->data, 0);
  if (depth < 0 || (dep->dt == OX_UINT64 && ox_load_u64(dep->dt, dep->data, 0) > INT64_MAX))
    return ox_fail(c->err, OX_EINPUT, "depth %lld must not be negative", (long long)depth);
  const shape_state *st = c->state;
  int64_t ax = st->has_axis ? st->axis : -1;
  int axis, r = x->rank;
  OX_TRY(ox_axis(c, ax, r, 1, "axis", &axis));

  int64_t *dims = ox_alloc_array(c->a, r + 1, sizeof *dims);
  if (!dims) return ox_oom(c->err, NULL);
  for (int i = 0, j = 0; i <= r; i++) dims[i] = i == axis ? depth : x->dims[j++];
  OX_TRY(ox_tensor_new(c->a, val->dt, r + 1, dims, &out[0], c->err));
  size_t es = ox_dtype_size(val->dt);
  const char *off = val->data, *on = off + es;
  char *y = out[0]->u.t.data;
  fill(y, out[0]->u.t.n, off, es);
  if (!out[0]->u.t.n) return 0;
  int64_t inner = ox_numel(r - axis, x->dims + axis, 0), outer = inner ? x->n / inner : 0;
  int wrap = c->version >= 11, fl = ox_dtype_is_float(x->dt);
  for (int64_t o = 0, e = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++, e++) {
      int64_t v;
      if (fl) { /* truncate; NaN and huge values are out of range */
        double d = ox_load_f64(x->dt, x->data, e);
        v = d > -9.0e18 && d < 9.0e18 ? (int64_t)d : -1 - depth;
      } else {
        v = ox_load_i64(x->dt, x->data, e);
        if (x->dt == OX_UINT64 && ox_load_u64(x->dt, x->data, e) > INT64_MAX) v = -1 - depth;
      }
      if (v < 0 && wrap) v += depth;
      if (v >= 0 && v < depth) memcpy(y + (size_t)((o * depth + v) * inner + i) * es, on, es);
    }
  return 0;
}

/* ---- Transpose ---- */

/* A 16-byte element (complex128, ox_str) copied as one unit. */
typedef struct { uint64_t lo, hi; } elem16;

enum { TILE = 32 };

/* One (nb, na) block of the output: y[j * ys + i] = x[j + i * xs] (element
 * offsets) for j < nb, i < na: output rows are contiguous; the input's
 * contiguous dim is j. Tiled TILE x TILE so that the TILE input lines a tile
 * reads stay in cache while the tile's output rows are written. */
#define TILE_COPY(T)                                                                     \
  static void tile_##T(char *yb, const char *xb, int64_t nb, int64_t na, int64_t ys,    \
                       int64_t xs) {                                                     \
    T *y = (T *)yb;                                                                      \
    const T *x = (const T *)xb;                                                          \
    for (int64_t jb = 0; jb < nb; jb += TILE)                                            \
      for (int64_t ib = 0; ib < na; ib += TILE) {                                        \
        int64_t je = jb + TILE < nb ? jb + TILE : nb, ie = ib + TILE < na ? ib + TILE : na; \
        for (int64_t j = jb; j < je; j++) {                                              \
          T *yr = y + j * ys;                                                            \
          const T *xc = x + j;                                                           \
          for (int64_t i = ib; i < ie; i++) memcpy(&yr[i], &xc[i * xs], sizeof(T));      \
        }                                                                                \
      }                                                                                  \
  }
TILE_COPY(uint8_t)
TILE_COPY(uint16_t)
TILE_COPY(uint64_t)
TILE_COPY(elem16)
#undef TILE_COPY

/* 4-byte elements (float, int32) move in square blocks transposed in
 * registers: 8 x 8 with 32-byte vectors where the CPU has AVX2 (three rounds
 * of shuffles, as _mm256_unpack/shuffle/permute2f128 do), else 4 x 4 with
 * 16-byte vectors (SSE2's unpack and movlhps); picked at run time. The
 * 32-byte rows move with AVX's unaligned load and store: a memcpy into a
 * vector, under gcc's generic tuning, went as two 16-byte halves through the
 * stack, and the 32-byte reload of them waited on store forwarding (a
 * (12, 128, 64) float transpose 29 -> 19.5 us). */
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef uint32_t v8u __attribute__((vector_size(32)));
#define SHUF __builtin_shufflevector
#define BLOCK4(y, ys, x, xs)                                                             \
  do {                                                                                   \
    v4u r_[4], t_[4];                                                                    \
    for (int i_ = 0; i_ < 4; i_++) memcpy(&r_[i_], (x) + i_ * (xs), 16);                  \
    t_[0] = SHUF(r_[0], r_[1], 0, 4, 1, 5), t_[1] = SHUF(r_[0], r_[1], 2, 6, 3, 7);      \
    t_[2] = SHUF(r_[2], r_[3], 0, 4, 1, 5), t_[3] = SHUF(r_[2], r_[3], 2, 6, 3, 7);      \
    r_[0] = SHUF(t_[0], t_[2], 0, 1, 4, 5), r_[1] = SHUF(t_[0], t_[2], 2, 3, 6, 7);      \
    r_[2] = SHUF(t_[1], t_[3], 0, 1, 4, 5), r_[3] = SHUF(t_[1], t_[3], 2, 3, 6, 7);      \
    for (int j_ = 0; j_ < 4; j_++) memcpy((y) + j_ * (ys), &r_[j_], 16);                  \
  } while (0)
#define BLOCK8(y, ys, x, xs)                                                             \
  do {                                                                                   \
    v8u r_[8], t_[8], u_[8];                                                             \
    for (int i_ = 0; i_ < 8; i_++)                                                       \
      r_[i_] = (v8u)_mm256_loadu_si256((const __m256i *)((x) + i_ * (xs)));              \
    for (int i_ = 0; i_ < 8; i_ += 2) {                                                  \
      t_[i_] = SHUF(r_[i_], r_[i_ + 1], 0, 8, 1, 9, 4, 12, 5, 13);                       \
      t_[i_ + 1] = SHUF(r_[i_], r_[i_ + 1], 2, 10, 3, 11, 6, 14, 7, 15);                 \
    }                                                                                    \
    for (int i_ = 0; i_ < 8; i_ += 4) {                                                  \
      u_[i_] = SHUF(t_[i_], t_[i_ + 2], 0, 1, 8, 9, 4, 5, 12, 13);                       \
      u_[i_ + 1] = SHUF(t_[i_], t_[i_ + 2], 2, 3, 10, 11, 6, 7, 14, 15);                 \
      u_[i_ + 2] = SHUF(t_[i_ + 1], t_[i_ + 3], 0, 1, 8, 9, 4, 5, 12, 13);               \
      u_[i_ + 3] = SHUF(t_[i_ + 1], t_[i_ + 3], 2, 3, 10, 11, 6, 7, 14, 15);             \
    }                                                                                    \
    for (int j_ = 0; j_ < 4; j_++) { /* u_[j_]: columns j_, j_ + 4 of rows 0-3 */        \
      v8u lo_ = SHUF(u_[j_], u_[j_ + 4], 0, 1, 2, 3, 8, 9, 10, 11);                      \
      v8u hi_ = SHUF(u_[j_], u_[j_ + 4], 4, 5, 6, 7, 12, 13, 14, 15);                    \
      _mm256_storeu_si256((__m256i *)((y) + j_ * (ys)), (__m256i)lo_);                   \
      _mm256_storeu_si256((__m256i *)((y) + (j_ + 4) * (ys)), (__m256i)hi_);             \
    }                                                                                    \
  } while (0)

#define TILE_U32(NAME, B, BLOCK, TARGET)                                                 \
  TARGET static void NAME(char *yb, const char *xb, int64_t nb, int64_t na, int64_t ys,  \
                          int64_t xs) {                                                  \
    uint32_t *y = (uint32_t *)yb;                                                        \
    const uint32_t *x = (const uint32_t *)xb;                                            \
    for (int64_t jb = 0; jb < nb; jb += TILE)                                            \
      for (int64_t ib = 0; ib < na; ib += TILE) {                                        \
        int64_t je = jb + TILE < nb ? jb + TILE : nb, ie = ib + TILE < na ? ib + TILE : na; \
        int64_t j = jb;                                                                  \
        for (; j + B <= je; j += B) {                                                    \
          int64_t i = ib;                                                                \
          for (; i + B <= ie; i += B) BLOCK(y + j * ys + i, ys, x + j + i * xs, xs);     \
          for (; i < ie; i++)                                                            \
            for (int64_t k = j; k < j + B; k++) y[k * ys + i] = x[k + i * xs];           \
        }                                                                                \
        for (; j < je; j++)                                                              \
          for (int64_t i = ib; i < ie; i++) y[j * ys + i] = x[j + i * xs];               \
      }                                                                                  \
  }
TILE_U32(tile_u32_4, 4, BLOCK4, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
TILE_U32(tile_u32_8, 8, BLOCK8, __attribute__((target("avx2"))))
static void tile_uint32_t(char *yb, const char *xb, int64_t nb, int64_t na, int64_t ys,
                          int64_t xs) {
  (ox_cpu_level() >= OX_CPU_AVX2 ? tile_u32_8 : tile_u32_4)(yb, xb, nb, na, ys, xs);
}
#else
#define tile_uint32_t tile_u32_4
#endif
#undef SHUF

typedef void (*tile_fn)(char *, const char *, int64_t, int64_t, int64_t, int64_t);

/* Permute x (dims, data, element size es) by perm into y (already shaped).
 * Dims of size 1 are dropped and runs of input dims that stay adjacent and
 * in order are merged first; then either the innermost output dim is
 * contiguous in the input (copy rows with memcpy) or the two dims that move
 * (the output's innermost, and the input's innermost) are copied in tiles.
 * The other dims are walked with an odometer: no div/mod per element. */

/* Step the odometer over dims 0..n-1 (the last varies fastest), moving the
 * input and output offsets by their strides; 0 when it wraps past the end. */
static int odometer(int n, const int64_t *od, const int64_t *is, const int64_t *os, int64_t *idx,
                    int64_t *xo, int64_t *yo) {
  for (int k = n - 1; k >= 0; k--) {
    *xo += is[k];
    *yo += os[k];
    if (++idx[k] < od[k]) return 1;
    *xo -= is[k] * od[k];
    *yo -= os[k] * od[k];
    idx[k] = 0;
  }
  return 0;
}

/* The walk after the merging, split over the threads by output dim 0:
 * chunk [lo, hi) starts at index lo of dim 0 and takes hi - lo of it. */
typedef struct {
  const char *x;
  char *y;
  size_t es, row; /* element size; rows mode: bytes per row */
  int m, b;       /* merged dims; the tiled output dim, or -1: rows mode */
  const int64_t *od, *is, *os; /* in tiles mode od[b] = od[m - 1] = 1 */
  int64_t na, xs, nb, ys;      /* the tiles (tile_fn) */
  tile_fn tile;
  int64_t *slots;              /* 2 m per slot: a chunk's od and odometer */
} transpose_job;

static void transpose_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const transpose_job *j = arg;
  int m = j->m;
  int64_t *od = j->slots + (size_t)slot * 2 * (size_t)m, *idx = od + m, nb = j->nb;
  for (int k = 0; k < m; k++) od[k] = j->od[k], idx[k] = 0;
  if (j->b == 0) nb = hi - lo;
  else od[0] = hi - lo;
  int64_t xo = lo * j->is[0], yo = lo * j->os[0];
  for (;;) {
    if (j->b < 0) memcpy(j->y + (size_t)yo * j->es, j->x + (size_t)xo * j->es, j->row);
    else j->tile(j->y + (size_t)yo * j->es, j->x + (size_t)xo * j->es, nb, j->na, j->ys, j->xs);
    if (!odometer(m - 1, od, j->is, j->os, idx, &xo, &yo)) break;
  }
}

static int transpose_data(ox_ctx *c, const ox_tensor *x, const int64_t *perm, char *y, size_t es) {
  int r = x->rank;
  if (!x->n) return 0;
  /* input strides (elements) of each input axis */
  int64_t *xstr = ox_alloc_array(c->a, 4 * (int64_t)r + 4, sizeof(int64_t));
  if (!xstr) return ox_oom(c->err, NULL);
  int64_t *od = xstr + r + 1, *is = od + r + 1, *os = is + r + 1;
  int64_t s = 1;
  for (int i = r - 1; i >= 0; i--) {
    xstr[i] = s;
    s *= x->dims[i];
  }
  /* merged output dims: od[k] with input stride is[k] */
  int m = 0;
  for (int i = 0; i < r; i++) {
    int64_t d = x->dims[perm[i]];
    if (d == 1) continue;
    if (m && is[m - 1] == xstr[perm[i]] * d) { /* input axis perm[i] directly follows the previous one */
      od[m - 1] *= d;
      is[m - 1] = xstr[perm[i]];
      continue;
    }
    od[m] = d;
    is[m] = xstr[perm[i]];
    m++;
  }
  if (m <= 1) { /* at most one dim of size > 1: nothing moves */
    memcpy(y, x->data, (size_t)x->n * es);
    return 0;
  }
  s = 1;
  for (int k = m - 1; k >= 0; k--) {
    os[k] = s;
    s *= od[k];
  }
  transpose_job j = {.x = x->data, .y = y, .es = es, .od = od, .is = is, .os = os, .b = -1};
  double bytes = 2.0 * (double)x->n * (double)es;
  size_t row = (size_t)od[m - 1] * es;
  if (is[m - 1] == 1 && (row == 2 || row == 4 || row == 8 || row == 16)) {
    /* Short rows contiguous in both, e.g. (N, M, 4) floats -> (M, N, 4): make
     * each row one element of `row` bytes (the other strides are multiples
     * of its length) and tile the remaining dims. */
    int64_t len = od[m - 1];
    m--;
    for (int k = 0; k < m; k++) {
      is[k] /= len;
      os[k] /= len;
    }
    es = row;
  } else if (is[m - 1] == 1) { /* rows of od[m-1] contiguous elements in both */
    j.row = row;
  }
  int64_t items = od[0];
  if (!j.row) {
    /* the output dim b that is the input's innermost (stride 1) and a = m - 1;
     * the merging above leaves is[m-1] != 1 here */
    int b = 0;
    while (b < m - 1 && is[b] != 1) b++;
    if (m < 2 || is[b] != 1 || is[m - 1] == 1)
      return ox_fail(c->err, OX_EINPUT, "internal error: transpose strides");
    j.na = od[m - 1], j.xs = is[m - 1], j.nb = od[b], j.ys = os[b], j.b = b;
    switch (es) {
    case 1: j.tile = tile_uint8_t; break;
    case 2: j.tile = tile_uint16_t; break;
    case 4: j.tile = tile_uint32_t; break;
    case 8: j.tile = tile_uint64_t; break;
    case 16: j.tile = tile_elem16; break;
    default: return ox_fail(c->err, OX_EINPUT, "internal error: element size %zu", es);
    }
    /* the odometer walks the other dims (od[b] and od[m-1] set to 1) */
    od[b] = 1;
    od[m - 1] = 1;
  }
  j.es = es;
  j.m = m;
  int nch = ox_par_chunks_mem(c->threads, items, bytes);
  if (!(j.slots = ox_alloc_array(c->a, 2 * (int64_t)m * nch, sizeof *j.slots))) return ox_oom(c->err, NULL);
  if (nch <= 1) transpose_chunk(&j, 0, 0, items);
  else ox_par_for(items, nch, transpose_chunk, &j);
  return 0;
}

/* perm (default: reversed axes) must be a permutation of 0..r-1;
 * y.dims[i] = x.dims[perm[i]]. */
static int transpose(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  const shape_state *st = c->state;
  int64_t np = st->nperm;
  const int64_t *p = st->perm;
  int r = x->rank;
  int64_t *perm = ox_alloc_array(c->a, 2 * (int64_t)r + 2, sizeof *perm), *dims = perm + r + 1;
  char *seen = ox_alloc(c->a, (size_t)r + 1);
  if (!perm || !seen) return ox_oom(c->err, NULL);
  if (!p) {
    for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
  } else {
    if (np != r)
      return ox_fail(c->err, OX_EINPUT, "perm has %lld entries; the input has rank %d",
                     (long long)np, r);
    for (int i = 0; i < r; i++) {
      if (p[i] < 0 || p[i] >= r || seen[p[i]])
        return ox_fail(c->err, OX_EINPUT, "perm is not a permutation of 0..%d: entry %d is %lld",
                       r - 1, i, (long long)p[i]);
      seen[p[i]] = 1;
      perm[i] = p[i];
    }
  }
  for (int i = 0; i < r; i++) dims[i] = x->dims[perm[i]];
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, r, dims, &out[0], c->err)); /* every element written */
  return transpose_data(c, x, perm, out[0]->u.t.data, ox_dtype_size(x->dt));
}

#define TS_RANGE (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(INT16) | OX_T(INT32) | OX_T(INT64))

/* Identity constrains input 0; Constant has no input, so its `types` column
 * says which dtypes its value tensor may have (the kernel checks them).
 * Constant-1 lists only float16, float and double, but exporters of the
 * opset 1-8 era wrote int64 constants (Reshape shapes) that runtimes accept,
 * so we take the classic 15 there as Constant-9 does.
 * ConstantOfShape constrains its shape input (int64); the kernel checks the
 * value's type (cos_types). OneHot constrains indices; the kernel checks
 * depth and values. */
const ox_kernel ox_shape_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Identity",         1,  0, OX_TS_CLASSIC, 1, 1, identity, "" },
  { "", "Identity",        13,  0, TS_13,         1, 1, identity, "" },
  { "", "Identity",        14,  0, TS_13,         1, 1, identity, "" }, /* + sequences */
  { "", "Identity",        16,  0, TS_13,         1, 1, identity, "" }, /* + optionals */
  { "", "Identity",        19,  0, TS_19,         1, 1, identity, "" },
  { "", "Identity",        21,  0, TS_21,         1, 1, identity, "" },
  { "", "Identity",        23,  0, TS_23,         1, 1, identity, "" },
  { "", "Identity",        24,  0, TS_24,         1, 1, identity, "" },
  { "", "Identity",        25,  0, TS_25,         1, 1, identity, "" },
  { "", "Constant",         1, -1, OX_TS_FLOAT3, 0, 0, constant, "value:tensor:required" },
  { "", "Constant",         9, -1, OX_TS_CLASSIC, 0, 0, constant, OX_ATTRS_OF(1) },
  { "", "Constant",        11, -1, OX_TS_CLASSIC, 0, 0, constant,
    "sparse_value:sparse_tensor,value:tensor" }, /* + sparse_value */
  { "", "Constant",        12, -1, OX_TS_CLASSIC, 0, 0, constant,
    "sparse_value:sparse_tensor,value:tensor,value_float:float,value_floats:floats,"
    "value_int:int,value_ints:ints,value_string:string,value_strings:strings" }, /* + value_* */
  { "", "Constant",        13, -1, TS_13,         0, 0, constant, OX_ATTRS_OF(12) },
  { "", "Constant",        19, -1, TS_19,         0, 0, constant, OX_ATTRS_OF(12) },
  { "", "Constant",        21, -1, TS_21,         0, 0, constant, OX_ATTRS_OF(12) },
  { "", "Constant",        23, -1, TS_23,         0, 0, constant, OX_ATTRS_OF(12) },
  { "", "Constant",        24, -1, TS_24,         0, 0, constant, OX_ATTRS_OF(12) },
  { "", "Constant",        25, -1, TS_25,         0, 0, constant, OX_ATTRS_OF(12) },
  { "", "Reshape",          1,  0, OX_TS_FLOAT3,  1, 1, reshape,
    "consumed_inputs:ints,shape:ints", reshape_load }, /* shape attribute */
  { "", "Reshape",          5,  0, OX_TS_CLASSIC, 2, 2, reshape, "", reshape_load }, /* shape input */
  { "", "Reshape",         13,  0, TS_13,         2, 2, reshape, "", reshape_load },
  /* + allowzero */
  { "", "Reshape",         14,  0, TS_13,         2, 2, reshape, "allowzero:int=0", reshape_load },
  { "", "Reshape",         19,  0, TS_19,         2, 2, reshape, OX_ATTRS_OF(14), reshape_load },
  { "", "Reshape",         21,  0, TS_21,         2, 2, reshape, OX_ATTRS_OF(14), reshape_load },
  { "", "Reshape",         23,  0, TS_23,         2, 2, reshape, OX_ATTRS_OF(14), reshape_load },
  { "", "Reshape",         24,  0, TS_24,         2, 2, reshape, OX_ATTRS_OF(14), reshape_load },
  { "", "Reshape",         25,  0, TS_25,         2, 2, reshape, OX_ATTRS_OF(14), reshape_load },
  { "", "Flatten",          1,  0, OX_TS_FLOAT3,  1, 1, flatten, "axis:int=1", shape_load },
  { "", "Flatten",          9,  0, OX_TS_CLASSIC, 1, 1, flatten, "axis:int=1", shape_load },
  /* + negative axis */
  { "", "Flatten",         11,  0, OX_TS_CLASSIC, 1, 1, flatten, "axis:int=1", shape_load },
  { "", "Flatten",         13,  0, TS_13,         1, 1, flatten, "axis:int=1", shape_load },
  { "", "Flatten",         21,  0, TS_21,         1, 1, flatten, "axis:int=1", shape_load },
  { "", "Flatten",         23,  0, TS_23,         1, 1, flatten, "axis:int=1", shape_load },
  { "", "Flatten",         24,  0, TS_24,         1, 1, flatten, "axis:int=1", shape_load },
  { "", "Flatten",         25,  0, TS_25,         1, 1, flatten, "axis:int=1", shape_load },
  { "", "Squeeze",          1,  0, OX_TS_CLASSIC, 1, 1, squeeze, "axes:ints", shape_load }, /* axes attribute */
  /* + negative axes */
  { "", "Squeeze",         11,  0, OX_TS_CLASSIC, 1, 1, squeeze, "axes:ints", shape_load },
  { "", "Squeeze",         13,  0, TS_13,         1, 2, squeeze, "", shape_load }, /* axes input */
  { "", "Squeeze",         21,  0, TS_21,         1, 2, squeeze, "", shape_load },
  { "", "Squeeze",         23,  0, TS_23,         1, 2, squeeze, "", shape_load },
  { "", "Squeeze",         24,  0, TS_24,         1, 2, squeeze, "", shape_load },
  { "", "Squeeze",         25,  0, TS_25,         1, 2, squeeze, "", shape_load },
  { "", "Unsqueeze",        1,  0, OX_TS_CLASSIC, 1, 1, unsqueeze, "axes:ints:required", shape_load },
  { "", "Unsqueeze",       11,  0, OX_TS_CLASSIC, 1, 1, unsqueeze, OX_ATTRS_OF(1), shape_load },
  { "", "Unsqueeze",       13,  0, TS_13,         2, 2, unsqueeze, "", shape_load },
  { "", "Unsqueeze",       21,  0, TS_21,         2, 2, unsqueeze, "", shape_load },
  { "", "Unsqueeze",       23,  0, TS_23,         2, 2, unsqueeze, "", shape_load },
  { "", "Unsqueeze",       24,  0, TS_24,         2, 2, unsqueeze, "", shape_load },
  { "", "Unsqueeze",       25,  0, TS_25,         2, 2, unsqueeze, "", shape_load },
  { "", "Shape",            1,  0, OX_TS_CLASSIC, 1, 1, shape, "", shape_load },
  { "", "Shape",           13,  0, TS_13,         1, 1, shape, "", shape_load },
  /* + start, end */
  { "", "Shape",           15,  0, TS_13,         1, 1, shape, "end:int,start:int=0", shape_load },
  { "", "Shape",           19,  0, TS_19,         1, 1, shape, OX_ATTRS_OF(15), shape_load },
  { "", "Shape",           21,  0, TS_21,         1, 1, shape, OX_ATTRS_OF(15), shape_load },
  { "", "Shape",           23,  0, TS_23,         1, 1, shape, OX_ATTRS_OF(15), shape_load },
  { "", "Shape",           24,  0, TS_24,         1, 1, shape, OX_ATTRS_OF(15), shape_load },
  { "", "Shape",           25,  0, TS_25,         1, 1, shape, OX_ATTRS_OF(15), shape_load },
  { "", "Size",             1,  0, OX_TS_CLASSIC, 1, 1, size, "" },
  { "", "Size",            13,  0, TS_13,         1, 1, size, "" },
  { "", "Size",            19,  0, TS_19,         1, 1, size, "" },
  { "", "Size",            21,  0, TS_21,         1, 1, size, "" },
  { "", "Size",            23,  0, TS_23,         1, 1, size, "" },
  { "", "Size",            24,  0, TS_24,         1, 1, size, "" },
  { "", "Size",            25,  0, TS_25,         1, 1, size, "" },
  { "", "ConstantOfShape",  9,  0, OX_T(INT64),   1, 1, constant_of_shape, "value:tensor" },
  { "", "ConstantOfShape", 20,  0, OX_T(INT64),   1, 1, constant_of_shape, "value:tensor" },
  { "", "ConstantOfShape", 21,  0, OX_T(INT64),   1, 1, constant_of_shape, "value:tensor" },
  { "", "ConstantOfShape", 23,  0, OX_T(INT64),   1, 1, constant_of_shape, "value:tensor" },
  { "", "ConstantOfShape", 24,  0, OX_T(INT64),   1, 1, constant_of_shape, "value:tensor" },
  { "", "ConstantOfShape", 25,  0, OX_T(INT64),   1, 1, constant_of_shape, "value:tensor" },
  { "", "EyeLike",          9,  0, TS_EYE9,       1, 1, eye_like, "dtype:int,k:int=0", shape_load },
  { "", "EyeLike",         22,  0, TS_EYE22,      1, 1, eye_like, OX_ATTRS_OF(9), shape_load },
  { "", "Range",           11,  0, TS_RANGE,      3, 3, range, "", shape_load },
  { "", "Range",           27,  0, TS_RANGE | OX_T(FLOAT16) | OX_T(BFLOAT16), 3, 3, range,
    "stash_type:int=1", shape_load }, /* + stash_type */
  { "", "Trilu",           14,  0, TS_13,         1, 2, trilu, "upper:int=1", shape_load },
  { "", "OneHot",           9,  0, OX_TS_NUM,     3, 3, one_hot, "axis:int=-1", shape_load },
  /* + negative indices */
  { "", "OneHot",          11,  0, OX_TS_NUM,     3, 3, one_hot, "axis:int=-1", shape_load },
  { "", "Transpose",        1,  0, OX_TS_CLASSIC, 1, 1, transpose, "perm:ints", shape_load },
  { "", "Transpose",       13,  0, TS_13,         1, 1, transpose, "perm:ints", shape_load },
  { "", "Transpose",       21,  0, TS_21,         1, 1, transpose, "perm:ints", shape_load },
  { "", "Transpose",       23,  0, TS_23,         1, 1, transpose, "perm:ints", shape_load },
  { "", "Transpose",       24,  0, TS_24,         1, 1, transpose, "perm:ints", shape_load },
  { "", "Transpose",       25,  0, TS_25,         1, 1, transpose, "perm:ints", shape_load },
  {0},
};
