/* ops/sequence.c: the tensor-sequence ops of opset 11 (SequenceAt, SequenceConstruct,
 * SequenceEmpty, SequenceInsert, SequenceErase, SequenceLength, SplitToSequence,
 * ConcatFromSequence).
 *
 * These ops only move data, so there is no per-type code: elements are copied
 * as ox_dtype_size() bytes (strings copy their {ptr, len} struct, sharing the
 * bytes). Values are never written after they are made, so a sequence may hold
 * the very tensors it was built from, and SequenceAt may return a tensor that
 * shares its data with the sequence's element. */
#include <string.h>

#include "core/kernel.h"

/* ---- checks shared by the ops below ---- */

/* Input i must be a sequence of tensors (not a tensor, optional or map, nor a
 * sequence of maps). */
static int need_seq(ox_ctx *c, ox_value **in, int i) {
  const ox_value *v = in[i];
  if (v->kind == OX_SEQUENCE && v->type && v->type->inner && v->type->inner->kind == OX_TENSOR)
    return 0;
  char desc[128];
  return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a sequence of tensors",
                 ox_input_name(c, i), ox_value_desc(v, desc, sizeof desc));
}

/* The element dtype of a sequence (known even when it is empty). */
static ox_dtype seq_elem(const ox_value *s) { return s->type->inner->elem; }

/* Input i is a scalar position (int32 or int64) into a sequence of n tensors.
 * It must lie in [lo, hi] (lo = -n; hi = n - 1, or n for SequenceInsert);
 * a negative position counts from the back. The spec asks for a scalar, but
 * ONNX's own test_sequence_insert_at_front passes shape (1,), which
 * onnxruntime accepts, so one element of rank 1 is taken too. */
static int get_position(ox_ctx *c, ox_value **in, int i, int64_t n, int64_t hi,
                        int64_t *pos) {
  OX_TRY(ox_need_tensor(c, in[i], i));
  const ox_tensor *t = &in[i]->u.t;
  if (t->dt != OX_INT32 && t->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s (the position) is %s; it must be int32 or int64",
                   ox_input_name(c, i), ox_dtypes[t->dt].onnx_name);
  if (t->rank > 1 || t->n != 1) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "%s (the position) must be a scalar; it has shape %s",
                   ox_input_name(c, i), ox_shape_str(t->rank, t->dims, sb, sizeof sb));
  }
  int64_t p = ox_load_i64(t->dt, t->data, 0);
  if (hi < -n) /* only when n == 0 and hi == n - 1 */
    return ox_fail(c->err, OX_EINPUT, "position %lld is out of range: the sequence is empty",
                   (long long)p);
  if (p < -n || p > hi)
    return ox_fail(c->err, OX_EINPUT,
                   "position %lld is out of range [%lld, %lld] for a sequence of %lld tensors",
                   (long long)p, (long long)-n, (long long)hi, (long long)n);
  *pos = p < 0 ? p + n : p;
  return 0;
}

/* A copy of a value's header, sharing its data (values are never mutated). */
static int share(ox_ctx *c, const ox_value *v, ox_value **out) {
  *out = ox_tensor_view(c->a, v);
  return *out ? 0 : ox_oom(c->err, NULL);
}

/* ---- the ops ---- */

static int sequence_at(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_seq(c, in, 0));
  int64_t n = in[0]->u.seq.n, pos;
  OX_TRY(get_position(c, in, 1, n, n - 1, &pos));
  return share(c, in[0]->u.seq.v[pos], &out[0]);
}

static int sequence_construct(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  for (int i = 0; i < nin; i++) {
    if (!in[i])
      return ox_fail(c->err, OX_EINPUT, "input %d is missing; every input must be a tensor", i);
    OX_TRY(ox_need_tensor(c, in[i], i));
    OX_TRY(ox_same_dtype(c, i, &in[i]->u.t, in[0]->u.t.dt));
  }
  OX_TRY(ox_seq_new(c->a, ox_type_tensor(in[0]->u.t.dt), nin, &out[0], c->err));
  for (int i = 0; i < nin; i++) out[0]->u.seq.v[i] = in[i];
  return 0;
}

/* ---- the attributes, read once when the model is loaded ---- */

/* SequenceEmpty's dtype, SplitToSequence's and ConcatFromSequence's axis,
 * keepdims and new_axis */
typedef struct {
  int64_t dtype, axis, keepdims, new_axis;
  int has_axis;
} seq_state;

static int seq_load(ox_ctx *c, void **state) {
  seq_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->dtype = ox_attr_int(c, "dtype", OX_FLOAT);
  st->has_axis = ox_attr_find(c, "axis") != NULL;
  st->axis = ox_attr_int(c, "axis", 0);
  st->keepdims = ox_attr_int(c, "keepdims", 1);
  st->new_axis = ox_attr_int(c, "new_axis", 0);
  return 0;
}
#define SST ((const seq_state *)c->state)

static int sequence_empty(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int64_t dt = SST->dtype;
  if (dt <= 0 || dt >= OX_DTYPE_MAX)
    return ox_fail(c->err, OX_EINPUT, "attribute dtype = %lld is not a data type", (long long)dt);
  if (!(OX_TS_CLASSIC & (UINT64_C(1) << dt)))
    return ox_fail(c->err, OX_EINPUT,
                   "attribute dtype = %lld (%s) is not allowed; SequenceEmpty makes sequences "
                   "of the 15 classic tensor types only",
                   (long long)dt, ox_dtypes[dt].onnx_name);
  return ox_seq_new(c->a, ox_type_tensor((ox_dtype)dt), 0, &out[0], c->err);
}

static int sequence_insert(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_seq(c, in, 0));
  OX_TRY(ox_need_tensor(c, in[1], 1));
  const ox_value *s = in[0];
  if (in[1]->u.t.dt != seq_elem(s)) {
    char desc[128];
    return ox_fail(c->err, OX_EINPUT, "%s is %s; the sequence holds %s tensors",
                   ox_input_name(c, 1), ox_value_desc(in[1], desc, sizeof desc),
                   ox_dtypes[seq_elem(s)].onnx_name);
  }
  int64_t n = s->u.seq.n, pos = n; /* default: append at the back */
  if (nin > 2 && in[2]) OX_TRY(get_position(c, in, 2, n, n, &pos));
  /* at the back: in O(1) when s's array has room (a Loop growing a sequence) */
  if (pos == n) return ox_seq_append(c->a, s, in[1], &out[0], c->err);
  OX_TRY(ox_seq_new(c->a, s->type->inner, n + 1, &out[0], c->err));
  ox_value **v = out[0]->u.seq.v;
  for (int64_t i = 0; i < pos; i++) v[i] = s->u.seq.v[i];
  v[pos] = in[1];
  for (int64_t i = pos; i < n; i++) v[i + 1] = s->u.seq.v[i];
  return 0;
}

static int sequence_erase(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_seq(c, in, 0));
  const ox_value *s = in[0];
  int64_t n = s->u.seq.n, pos = n - 1; /* default: the last tensor */
  if (nin > 1 && in[1]) OX_TRY(get_position(c, in, 1, n, n - 1, &pos));
  else if (n == 0) return ox_fail(c->err, OX_EINPUT, "cannot erase from an empty sequence");
  OX_TRY(ox_seq_new(c->a, s->type->inner, n - 1, &out[0], c->err));
  ox_value **v = out[0]->u.seq.v;
  for (int64_t i = 0, j = 0; i < n; i++)
    if (i != pos) v[j++] = s->u.seq.v[i];
  return 0;
}

static int sequence_length(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_seq(c, in, 0));
  OX_TRY(ox_scalar_new(c->a, OX_INT64, &out[0], c->err));
  *(int64_t *)out[0]->u.t.data = in[0]->u.seq.n;
  return 0;
}

/* Copy `len` slices starting at slice `off` along the split axis.
 * x viewed as (outer, dim, inner), inner in bytes; y: (outer, len, inner). */
static void copy_slices(char *y, const char *x, int64_t outer, int64_t dim, int64_t inner,
                        int64_t off, int64_t len) {
  size_t row = (size_t)(len * inner);
  if (!row) return;
  for (int64_t o = 0; o < outer; o++)
    memcpy(y + (size_t)o * row, x + (size_t)((o * dim + off) * inner), row);
}

static int split_to_sequence(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  const ox_tensor *x = &in[0]->u.t; /* x: (d0, ..., d[axis], ..., d[r-1]) */
  int64_t axis = SST->axis, keepdims = SST->keepdims;
  int r = x->rank;
  if (r == 0) return ox_fail(c->err, OX_EINPUT, "cannot split a scalar");
  if (axis < -r || axis >= r)
    return ox_fail(c->err, OX_EINPUT, "axis %lld is out of range [%d, %d] for a tensor of rank %d",
                   (long long)axis, -r, r - 1, r);
  if (axis < 0) axis += r;
  int64_t dim = x->dims[axis];

  /* The length of each chunk along the axis. */
  const ox_value *sp = nin > 1 ? in[1] : NULL;
  int64_t nchunk, *len;
  if (!sp) { /* no split: chunks of 1, and keepdims = 0 drops the axis */
    nchunk = dim;
    len = ox_alloc_array(c->a, nchunk, sizeof *len);
    if (!len && nchunk) return ox_oom(c->err, NULL);
    for (int64_t i = 0; i < nchunk; i++) len[i] = 1;
  } else {
    OX_TRY(ox_need_tensor(c, in[1], 1));
    const ox_tensor *s = &sp->u.t;
    if (s->dt != OX_INT32 && s->dt != OX_INT64)
      return ox_fail(c->err, OX_EINPUT, "%s (split) is %s; it must be int32 or int64",
                     ox_input_name(c, 1), ox_dtypes[s->dt].onnx_name);
    if (s->rank == 0) { /* chunks of `size`; the last one may be shorter */
      int64_t size = ox_load_i64(s->dt, s->data, 0);
      if (size <= 0)
        return ox_fail(c->err, OX_EINPUT, "split is the scalar %lld; it must be positive",
                       (long long)size);
      nchunk = dim / size + (dim % size != 0);
      len = ox_alloc_array(c->a, nchunk, sizeof *len);
      if (!len && nchunk) return ox_oom(c->err, NULL);
      for (int64_t i = 0; i < nchunk; i++) len[i] = i < dim / size ? size : dim % size;
    } else if (s->rank == 1) { /* the given lengths, summing to dim */
      nchunk = s->n;
      len = ox_alloc_array(c->a, nchunk, sizeof *len);
      if (!len && nchunk) return ox_oom(c->err, NULL);
      int64_t sum = 0;
      for (int64_t i = 0; i < nchunk; i++) {
        len[i] = ox_load_i64(s->dt, s->data, i);
        if (len[i] < 0)
          return ox_fail(c->err, OX_EINPUT, "split[%lld] = %lld is negative", (long long)i,
                         (long long)len[i]);
        if (len[i] > dim - sum) /* the sum, without overflow, exceeds dim */
          return ox_fail(c->err, OX_EINPUT,
                         "split lengths add up to more than %lld, the size of axis %lld",
                         (long long)dim, (long long)axis);
        sum += len[i];
      }
      if (sum != dim)
        return ox_fail(c->err, OX_EINPUT,
                       "split lengths add up to %lld; they must add up to %lld, the size of axis %lld",
                       (long long)sum, (long long)dim, (long long)axis);
    } else {
      char sb[256];
      return ox_fail(c->err, OX_EINPUT, "split must be a scalar or 1-D; it has shape %s",
                     ox_shape_str(s->rank, s->dims, sb, sizeof sb));
    }
  }

  /* x viewed as (outer, dim, inner); inner in bytes. The products cannot
   * overflow, since x exists, unless x is empty: then there is nothing to copy. */
  int64_t outer = 0, inner = 0;
  if (x->n) {
    outer = 1, inner = (int64_t)ox_dtype_size(x->dt);
    for (int i = 0; i < axis; i++) outer *= x->dims[i];
    for (int i = (int)axis + 1; i < r; i++) inner *= x->dims[i];
  }
  int drop_axis = !sp && !keepdims; /* keepdims applies only without split */

  OX_TRY(ox_seq_new(c->a, ox_type_tensor(x->dt), nchunk, &out[0], c->err));
  int64_t *dims = ox_alloc_array(c->a, r, sizeof *dims);
  if (!dims) return ox_oom(c->err, NULL);
  int64_t off = 0;
  for (int64_t k = 0; k < nchunk; k++) {
    /* chunk k: x's shape with len[k] on the axis (or without the axis) */
    memcpy(dims, x->dims, (size_t)r * sizeof *dims);
    dims[axis] = len[k];
    if (drop_axis) memmove(dims + axis, dims + axis + 1, (size_t)(r - axis - 1) * sizeof *dims);
    ox_value *y;
    OX_TRY(ox_tensor_new(c->a, x->dt, r - drop_axis, dims, &y, c->err));
    copy_slices(y->u.t.data, x->data, outer, dim, inner, off, len[k]);
    out[0]->u.seq.v[k] = y;
    off += len[k];
  }
  return 0;
}

static int concat_from_sequence(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(need_seq(c, in, 0));
  const ox_value *s = in[0];
  if (!SST->has_axis)
    return ox_fail(c->err, OX_EINPUT, "the attribute 'axis' is required");
  int64_t axis = SST->axis, new_axis = SST->new_axis;
  if (new_axis != 0 && new_axis != 1)
    return ox_fail(c->err, OX_EINPUT, "new_axis is %lld; it must be 0 or 1", (long long)new_axis);
  int64_t n = s->u.seq.n;
  if (n == 0)
    return ox_fail(c->err, OX_EINPUT, "cannot concatenate an empty sequence (no shape to give the result)");

  /* Every tensor t: rank r. Without new_axis the output is (.., sum of
   * d[axis], ..) of rank r; with new_axis (np.stack) it is (.., n, ..) of
   * rank r + 1, and the range of axis grows by one (ConcatFromSequence-11). */
  const ox_tensor *t0 = &s->u.seq.v[0]->u.t;
  int r = t0->rank, rout = r + (int)new_axis;
  if (rout == 0)
    return ox_fail(c->err, OX_EINPUT, "cannot concatenate scalars unless new_axis is 1");
  if (axis < -rout || axis >= rout)
    return ox_fail(c->err, OX_EINPUT,
                   "axis %lld is out of range [%d, %d] for tensors of rank %d%s", (long long)axis,
                   -rout, rout - 1, r, new_axis ? " with new_axis = 1" : "");
  if (axis < 0) axis += rout;

  int64_t sum = 0; /* the output's size along axis */
  for (int64_t i = 0; i < n; i++) {
    const ox_tensor *t = &s->u.seq.v[i]->u.t;
    int same = t->rank == r;
    for (int d = 0; same && d < r; d++)
      if (t->dims[d] != t0->dims[d] && (new_axis || d != axis)) same = 0;
    if (!same) {
      char sb[256], sb0[256];
      return ox_fail(c->err, OX_EINPUT,
                     "tensor %lld has shape %s but tensor 0 has shape %s; %s", (long long)i,
                     ox_shape_str(t->rank, t->dims, sb, sizeof sb),
                     ox_shape_str(r, t0->dims, sb0, sizeof sb0),
                     new_axis ? "with new_axis = 1 all shapes must be equal"
                              : "all dimensions but the axis must agree");
    }
    int64_t len = new_axis ? 1 : t->dims[axis];
    if (len > INT64_MAX - sum) return ox_fail(c->err, OX_EINPUT, "the result is too large");
    sum += len;
  }

  int64_t *dims = ox_alloc_array(c->a, rout, sizeof *dims);
  if (!dims) return ox_oom(c->err, NULL);
  for (int d = 0; d < rout; d++) /* with new_axis, t0's dims shift right past the axis */
    dims[d] = d == axis ? sum : t0->dims[new_axis && d > axis ? d - 1 : d];
  OX_TRY(ox_tensor_new(c->a, t0->dt, rout, dims, &out[0], c->err));

  /* Each tensor viewed as (outer, len_i, inner), inner in bytes; the output
   * interleaves them: for each outer index, tensor 0's rows, tensor 1's, ... */
  if (out[0]->u.t.n == 0) return 0; /* (and the products below could overflow) */
  int64_t outer = 1, inner = (int64_t)ox_dtype_size(t0->dt);
  for (int d = 0; d < axis; d++) outer *= dims[d];
  for (int d = (int)axis + 1; d < rout; d++) inner *= dims[d];
  char *y = out[0]->u.t.data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n; i++) {
      const ox_tensor *t = &s->u.seq.v[i]->u.t;
      size_t row = (size_t)((new_axis ? 1 : t->dims[axis]) * inner);
      if (!row) continue;
      memcpy(y, (const char *)t->data + (size_t)o * row, row);
      y += row;
    }
  return 0;
}

/* Most sequence ops allow the 15 classic tensor types (no bfloat16, float8,
 * int4...); SplitToSequence-24 adds bfloat16. `types` constrains the element
 * type of input `tin` (for a sequence, the type of its tensors). */
#define TS_SEQ OX_TS_CLASSIC

const ox_kernel ox_sequence_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "SequenceAt",         11,  0, TS_SEQ,                  2,  2, sequence_at, "" },
  { "", "SequenceConstruct",  11,  0, TS_SEQ,                  1, -1, sequence_construct, "" },
  { "", "SequenceEmpty",      11, -1, TS_SEQ,                  0,  0, sequence_empty, "dtype:int", seq_load },
  { "", "SequenceInsert",     11,  0, TS_SEQ,                  2,  3, sequence_insert, "" },
  { "", "SequenceErase",      11,  0, TS_SEQ,                  1,  2, sequence_erase, "" },
  { "", "SequenceLength",     11,  0, TS_SEQ,                  1,  1, sequence_length, "" },
  { "", "SplitToSequence",    11,  0, TS_SEQ,                  1,  2, split_to_sequence,
    "axis:int=0,keepdims:int=1", seq_load },
  { "", "SplitToSequence",    24,  0, TS_SEQ | OX_T(BFLOAT16), 1,  2, split_to_sequence,
    OX_ATTRS_OF(11), seq_load },
  { "", "ConcatFromSequence", 11,  0, TS_SEQ,                  1,  1, concat_from_sequence,
    "axis:int:required,new_axis:int=0", seq_load },
  {0},
};
