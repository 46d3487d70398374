/* ops/tensor.c: the data-movement ops: Concat, Split, Slice, Expand, Tile, Pad,
 * CenterCropPad, DepthToSpace, SpaceToDepth and ReverseSequence.
 *
 * They only move elements, so there is no per-type code: an element is
 * ox_dtype_size() bytes (a string is its {ptr, len} struct, sharing the bytes).
 * Three copy engines serve them all, each an odometer over the outer dims with
 * contiguous runs copied by memcpy (no div/mod per element):
 *   - block copies along one axis (Concat, Split, ReverseSequence);
 *   - remap(): y[o0..ok] = x[map0[o0], ..., mapk[ok]] with per-dim index maps,
 *     -1 meaning "the fill value" (Slice, Tile, Pad, CenterCropPad);
 *   - permute(): a transpose of a reshaped view (DepthToSpace, SpaceToDepth);
 * and Expand uses the broadcasting iterator of core/broadcast.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/kernel.h"
#include "twins.h"
#include "core/threads.h"

/* The tensor types, as the versions grew them. */
#define TS_13 (OX_TS_CLASSIC | OX_T(BFLOAT16))
#define TS_PAD11 (OX_TS_NUM)                       /* Pad-11: numeric, no bfloat16 */
#define TS_21 (TS_13 | OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) |      \
               OX_T(FLOAT8E5M2FNUZ) | OX_T(UINT4) | OX_T(INT4))
#define TS_23 (TS_21 | OX_T(FLOAT4E2M1))
#define TS_24 (TS_23 | OX_T(FLOAT8E8M0))
#define TS_25 (TS_24 | OX_T(UINT2) | OX_T(INT2))

/* ---- small helpers ---- */

static int64_t *ints_new(ox_ctx *c, int64_t n) { return ox_alloc_array(c->a, n + 1, sizeof(int64_t)); }

/* Input i (of nin; present, a tensor) as a list of int64 (1-D int32 or int64). */
static int ints_in(ox_ctx *c, ox_value **in, int nin, int i, int64_t **v, int64_t *n) {
  const ox_tensor *t;
  OX_TRY(ox_tensor_in(c, in, nin, i, &t));
  return ox_ints_of(c, i, in[i], v, n);
}

/* Fill n elements of es bytes at dst with *one (doubling memcpy). */
static void fill_elems(char *dst, int64_t n, const void *one, size_t es) {
  if (n <= 0) return;
  memcpy(dst, one, es);
  size_t done = es, total = (size_t)n * es;
  while (done < total) {
    size_t k = done < total - done ? done : total - done;
    memcpy(dst + done, dst, k);
    done += k;
  }
}

/* The zero of a dtype as the fill of Pad and CenterCropPad: 0, False, or the
 * empty string (not a NULL pointer). */
static void zero_elem(ox_dtype dt, void *buf) {
  memset(buf, 0, 16);
  if (dt == OX_STRING) ((ox_str *)buf)->p = "";
}

/* n elements of es bytes from src, `ss` bytes apart, to dst, `ds` bytes apart. */
static void copy_strided(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, size_t es) {
  switch (es) {
#define CASE(T)                                                                       \
  case sizeof(T):                                                                     \
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, sizeof(T));    \
    break;
    CASE(uint8_t)
    CASE(uint16_t)
    CASE(uint32_t)
    CASE(uint64_t)
#undef CASE
  default:
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, es);
  }
}

/* ---- remap: y[o_0, ..., o_k] = x[map_0[o_0], ..., map_k[o_k]] ----
 *
 * y's dims say how long each map is; a map entry of -1 selects *fill (which
 * may then not be NULL). Trailing dims whose maps are the identity merge into
 * one contiguous block; the last other dim is cut, once, into runs of a
 * constant source step: one memcpy per row for step 1 (Slice, Tile, the body
 * of Pad), a strided copy otherwise (negative steps, reflect, edge). */
static int remap(ox_ctx *c, const ox_tensor *x, ox_tensor *y, int64_t *const *map,
                 const void *fill) {
  size_t es = ox_dtype_size(x->dt);
  int r = y->rank;
  if (y->n == 0) return 0;
  if (x->n == 0) { /* every output element is padding */
    if (fill) fill_elems(y->data, y->n, fill, es);
    return 0;
  }
  if (r == 0) {
    memcpy(y->data, x->data, es);
    return 0;
  }
  /* dims k.. are the identity: one block of `blk` bytes */
  int k = r;
  for (; k > 0; k--) {
    int d = k - 1, id = x->dims[d] == y->dims[d];
    for (int64_t o = 0; id && o < y->dims[d]; o++) id = map[d][o] == o;
    if (!id) break;
  }
  int64_t blk = (int64_t)es;
  for (int d = k; d < r; d++) blk *= x->dims[d];
  if (k == 0) {
    memcpy(y->data, x->data, (size_t)y->n * es);
    return 0;
  }
  /* xs[d]: byte stride of x along d */
  int64_t *xs = ints_new(c, r), *idx = ints_new(c, r), *off = ints_new(c, r);
  const int64_t last = y->dims[k - 1], *lm = map[k - 1];
  /* runs along dim k-1: (out start, source index or -1, length, source step) */
  int64_t *run = ox_alloc_array(c->a, 4 * last + 4, sizeof(int64_t));
  if (!xs || !idx || !off || !run) return ox_oom(c->err, NULL);
  int64_t s = (int64_t)es;
  for (int d = r - 1; d >= 0; d--) {
    xs[d] = s;
    s *= x->dims[d];
  }
  int64_t nrun = 0;
  for (int64_t o = 0; o < last;) {
    int64_t o2 = o + 1, step = 1;
    if (lm[o] < 0) {
      while (o2 < last && lm[o2] < 0) o2++;
    } else if (o2 < last && lm[o2] >= 0) { /* a constant step: 1, 0 (edge), -1 (reflect) ... */
      step = lm[o2] - lm[o];
      while (o2 < last && lm[o2] >= 0 && lm[o2] - lm[o2 - 1] == step) o2++;
    }
    run[4 * nrun] = o;
    run[4 * nrun + 1] = lm[o];
    run[4 * nrun + 2] = o2 - o;
    run[4 * nrun + 3] = step;
    nrun++;
    o = o2;
  }
  const char *src = x->data;
  char *dst = y->data;
  int64_t rowbytes = last * blk, blkel = blk / (int64_t)es, xsl = xs[k - 1];
  /* the odometer over dims 0..k-2; off[d] is the byte offset of x's row
   * prefix through dim d, -1 when some map says "fill" */
  int outer = k - 1;
  for (int d = 0; d < outer; d++) {
    int64_t prev = d ? off[d - 1] : 0, m = map[d][0];
    off[d] = prev < 0 || m < 0 ? -1 : prev + m * xs[d];
  }
  for (;;) {
    int64_t base = outer ? off[outer - 1] : 0;
    if (base < 0) {
      fill_elems(dst, last * blkel, fill, es);
    } else {
      for (int64_t j = 0; j < nrun; j++) {
        const int64_t *rj = run + 4 * j;
        char *d = dst + rj[0] * blk;
        if (rj[1] < 0) fill_elems(d, rj[2] * blkel, fill, es);
        else if (rj[3] == 1) memcpy(d, src + base + rj[1] * xsl, (size_t)(rj[2] * blk));
        else copy_strided(d, blk, src + base + rj[1] * xsl, rj[3] * xsl, rj[2], (size_t)blk);
      }
    }
    dst += rowbytes;
    int d = outer - 1;
    while (d >= 0 && ++idx[d] == y->dims[d]) idx[d--] = 0;
    if (d < 0) break;
    for (; d < outer; d++) {
      int64_t prev = d ? off[d - 1] : 0, m = map[d][idx[d]];
      off[d] = prev < 0 || m < 0 ? -1 : prev + m * xs[d];
    }
  }
  return 0;
}

/* ---- permute: y = transpose(reshape(x, shape), perm), rank <= 6 ----
 *
 * The inner loop runs along one output dim: the last one when it reads x
 * contiguously (a memcpy), else the longer of the last one (strided reads) and
 * the one that reads x contiguously (strided writes): for DepthToSpace that is
 * W, not the blocksize. */
#define PERM_MAX 6
static void permute(const ox_tensor *x, ox_tensor *y, int r, const int64_t *shape,
                    const int *perm) {
  int64_t es = (int64_t)ox_dtype_size(x->dt);
  if (y->n == 0) return;
  int64_t st[PERM_MAX], od[PERM_MAX], os[PERM_MAX], ys[PERM_MAX], idx[PERM_MAX] = {0};
  int64_t s = es;
  for (int d = r - 1; d >= 0; d--) {
    st[d] = s;
    s *= shape[d];
  }
  for (int i = 0; i < r; i++) {
    od[i] = shape[perm[i]];
    os[i] = st[perm[i]];
  }
  s = es;
  for (int d = r - 1; d >= 0; d--) {
    ys[d] = s;
    s *= od[d];
  }
  int ci = r - 1;
  for (int d = 0; d < r; d++)
    if (os[d] == es && os[ci] != es && od[d] > od[ci]) ci = d;
  const char *src = x->data;
  char *dst = y->data;
  int64_t n = od[ci], ss = os[ci], ds = ys[ci], xo = 0, yo = 0;
  for (;;) {
    if (ss == es && ds == es) memcpy(dst + yo, src + xo, (size_t)(n * es));
    else copy_strided(dst + yo, ds, src + xo, ss, n, (size_t)es);
    int d = r - 1;
    for (; d >= 0; d--) {
      if (d == ci) continue;
      xo += os[d];
      yo += ys[d];
      if (++idx[d] < od[d]) break;
      xo -= os[d] * od[d];
      yo -= ys[d] * od[d];
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

/* ---- Concat ---- */

/* Concat-1: axis defaults to 1; 4: axis required; 11: negative axes documented. */
typedef struct {
  ox_value **in;
  int nin;
  const int64_t *chunk, *at; /* bytes of input i per row, and its place in y's row */
  int64_t row, outer;        /* bytes of a row of y, and its rows */
  char *y;
} concat_job;

/* Units lo .. hi-1 of CONCAT_UNIT bytes of y (the last one shorter), each
 * copied from the input rows it overlaps. */
#define CONCAT_UNIT 16384
static void concat_units(void *arg, int slot, int64_t lo, int64_t hi) {
  const concat_job *j = arg;
  int64_t pos = lo * CONCAT_UNIT, end = hi * CONCAT_UNIT, total = j->outer * j->row;
  if (end > total) end = total;
  int i = 0;
  while (pos < end) {
    int64_t o = pos / j->row, off = pos - o * j->row; /* y's row o, at byte off */
    while (off >= j->at[i] + j->chunk[i] || off < j->at[i]) i = (i + 1) % j->nin;
    int64_t in_off = off - j->at[i], len = j->chunk[i] - in_off;
    if (len > end - pos) len = end - pos;
    memcpy(j->y + pos, (const char *)j->in[i]->u.t.data + o * j->chunk[i] + in_off, (size_t)len);
    pos += len;
  }
}

/* ---- Concat and Split: the attributes, read once when the model is loaded ---- */

typedef struct {
  int64_t axis, num_outputs;
  int has_num_outputs;
  const int64_t *split; /* Split before 13: the attribute, NULL when absent */
  int64_t nsplit;
} cat_state;

static int concat_load(ox_ctx *c, void **state) {
  cat_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  if (!ox_attr_find(c, "axis") && c->version >= 4)
    return ox_fail(c->err, OX_EINPUT, "the attribute 'axis' is required");
  st->axis = ox_attr_int(c, "axis", 1);
  return 0;
}

static int split_load(ox_ctx *c, void **state) {
  cat_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->axis = ox_attr_int(c, "axis", 0);
  st->split = ox_attr_ints(c, "split", &st->nsplit);
  st->has_num_outputs = ox_attr_find(c, "num_outputs") != NULL;
  st->num_outputs = ox_attr_int(c, "num_outputs", 0);
  return 0;
}

static int concat(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *t0;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &t0));
  /* Negative axes are documented from 11 but taken at every version, as
   * onnxruntime does (PyTorch's opset-6 exports write them, e.g. GLU's Split). */
  int64_t a = ((const cat_state *)c->state)->axis;
  int axis;
  OX_TRY(ox_axis(c, a, t0->rank, 0, "axis", &axis));
  int r = t0->rank;
  int64_t *dims = ints_new(c, r), *chunk = ints_new(c, nin);
  if (!dims || !chunk) return ox_oom(c->err, NULL);
  memcpy(dims, t0->dims, (size_t)r * sizeof *dims);
  dims[axis] = 0;
  for (int i = 0; i < nin; i++) {
    const ox_tensor *t;
    OX_TRY(ox_tensor_in(c, in, nin, i, &t));
    OX_TRY(ox_same_dtype(c, i, t, t0->dt));
    int same = t->rank == r;
    for (int d = 0; same && d < r; d++) same = d == axis || t->dims[d] == t0->dims[d];
    if (!same) {
      char s0[256], s1[256];
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s and input 0 has %s; all dims but "
                     "axis %d must match", ox_input_name(c, i),
                     ox_shape_str(t->rank, t->dims, s1, sizeof s1),
                     ox_shape_str(r, t0->dims, s0, sizeof s0), axis);
    }
    if (dims[axis] > INT64_MAX - t->dims[axis])
      return ox_fail(c->err, OX_EINPUT, "the concatenated axis is too long");
    dims[axis] += t->dims[axis];
  }
  OX_TRY(ox_tensor_new_uninit(c->a, t0->dt, r, dims, &out[0], c->err)); /* every byte is copied */
  if (out[0]->u.t.n == 0) return 0;
  /* the output is not empty, so these products are within its size */
  int64_t inner = (int64_t)ox_dtype_size(t0->dt), outer = 1;
  for (int d = axis + 1; d < r; d++) inner *= t0->dims[d];
  for (int d = 0; d < axis; d++) outer *= t0->dims[d];
  int64_t *start = ints_new(c, nin); /* where input i starts in a row of y */
  if (!start) return ox_oom(c->err, NULL);
  for (int i = 0; i < nin; i++) {
    chunk[i] = in[i]->u.t.dims[axis] * inner;
    start[i] = i ? start[i - 1] + chunk[i - 1] : 0;
  }
  /* x_i: (outer, dims_i[axis] * inner) -> y: (outer, sum of them), copied
   * in units of y's bytes split over the threads */
  concat_job j = {in, nin, chunk, start, start[nin - 1] + chunk[nin - 1], outer, out[0]->u.t.data};
  int64_t bytes = outer * j.row, units = (bytes + CONCAT_UNIT - 1) / CONCAT_UNIT;
  int nch = ox_par_chunks_mem(c->threads, units, 2.0 * (double)bytes);
  if (nch <= 1) concat_units(&j, 0, 0, units);
  else ox_par_for(units, nch, concat_units, &j);
  return 0;
}

/* ---- Split ---- */

/* The lengths come from (by version):
 *   1:      the attribute 'split' or the optional input 'split' (of type T);
 *   2, 11:  the attribute 'split';
 *   13:     the optional input 'split' (int64);
 *   18:     that input, or the attribute 'num_outputs' (the last part may be
 *           smaller: parts of ceil(dim / num_outputs));
 * otherwise equal parts, one per output. */
static int split(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  if (nout < 1) return ox_fail(c->err, OX_EINPUT, "the node has no outputs");
  const cat_state *st = c->state;
  int64_t a = st->axis;
  int axis; /* negative axes at every version: see concat() */
  OX_TRY(ox_axis(c, a, x->rank, 0, "axis", &axis));
  int64_t dim = x->dims[axis], nsplit = -1, *sp = NULL;
  if (c->version < 13) {
    const int64_t *sa = st->split;
    nsplit = st->nsplit;
    if (sa) {
      sp = ints_new(c, nsplit);
      if (!sp) return ox_oom(c->err, NULL);
      memcpy(sp, sa, (size_t)nsplit * sizeof *sp);
    }
  }
  if (nin > 1 && in[1]) {
    if (c->version < 13 && sp)
      return ox_fail(c->err, OX_EINPUT, "split lengths are given both as attribute and input");
    const ox_tensor *s;
    OX_TRY(ox_tensor_in(c, in, nin, 1, &s));
    if (c->version < 13) { /* Split-1: the input is of type T (floats) */
      char sb[128];
      if (s->rank > 1)
        return ox_fail(c->err, OX_EINPUT, "%s must be 1-D; it has shape %s", ox_input_name(c, 1),
                       ox_shape_str(s->rank, s->dims, sb, sizeof sb));
      nsplit = s->n;
      sp = ints_new(c, nsplit);
      if (!sp) return ox_oom(c->err, NULL);
      for (int64_t i = 0; i < nsplit; i++) sp[i] = (int64_t)ox_load_f64(s->dt, s->data, i);
    } else {
      if (s->dt != OX_INT64)
        return ox_fail(c->err, OX_EINPUT, "%s (split) must be int64; it is %s",
                       ox_input_name(c, 1), ox_dtypes[s->dt].onnx_name);
      OX_TRY(ox_ints_of(c, 1, in[1], &sp, &nsplit));
    }
  }
  if (c->version >= 18 && st->has_num_outputs) {
    int64_t k = st->num_outputs;
    if (sp)
      return ox_fail(c->err, OX_EINPUT, "both the input 'split' and the attribute "
                     "'num_outputs' are given; give one");
    if (k < 1) return ox_fail(c->err, OX_EINPUT, "num_outputs = %lld; it must be positive", (long long)k);
    if (k != nout)
      return ox_fail(c->err, OX_EINPUT, "num_outputs = %lld but the node has %d outputs",
                     (long long)k, nout);
    /* Split-18: parts of ceil(dim / k), the last one smaller */
    int64_t part = dim / k + (dim % k != 0);
    if (part * (k - 1) > dim)
      return ox_fail(c->err, OX_EINPUT, "a dimension of %lld cannot be split into %lld parts "
                     "of %lld and a smaller last one", (long long)dim, (long long)k, (long long)part);
    nsplit = k;
    sp = ints_new(c, k);
    if (!sp) return ox_oom(c->err, NULL);
    for (int64_t i = 0; i < k; i++) sp[i] = i < k - 1 ? part : dim - part * (k - 1);
  }
  if (!sp) {
    if (dim % nout)
      return ox_fail(c->err, OX_EINPUT, "a dimension of %lld cannot be split into %d equal parts",
                     (long long)dim, nout);
    nsplit = nout;
    sp = ints_new(c, nout);
    if (!sp) return ox_oom(c->err, NULL);
    for (int i = 0; i < nout; i++) sp[i] = dim / nout;
  }
  if (nsplit != nout)
    return ox_fail(c->err, OX_EINPUT, "split has %lld lengths but the node has %d outputs",
                   (long long)nsplit, nout);
  for (int64_t i = 0; i < nsplit; i++)
    if (sp[i] < 0)
      return ox_fail(c->err, OX_EINPUT, "split[%lld] = %lld is negative", (long long)i, (long long)sp[i]);
  int64_t sum = 0;
  for (int64_t i = 0; i < nsplit; i++) {
    if (sp[i] > dim - sum) {
      sum = dim + 1;
      break;
    }
    sum += sp[i];
  }
  if (sum != dim) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "the split lengths do not add up to %lld, the length of "
                   "axis %d of shape %s", (long long)dim, axis,
                   ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  }
  int64_t *dims = ints_new(c, x->rank);
  if (!dims) return ox_oom(c->err, NULL);
  memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
  for (int i = 0; i < nout; i++) {
    dims[axis] = sp[i];
    OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, dims, &out[i], c->err));
  }
  if (x->n == 0) return 0;
  int64_t inner = (int64_t)ox_dtype_size(x->dt), outer = 1;
  for (int d = axis + 1; d < x->rank; d++) inner *= x->dims[d];
  for (int d = 0; d < axis; d++) outer *= x->dims[d];
  /* x: (outer, dim * inner) -> y_i: (outer, sp[i] * inner) */
  const char *src = x->data;
  for (int64_t o = 0; o < outer; o++)
    for (int i = 0; i < nout; i++) {
      int64_t n = sp[i] * inner;
      memcpy((char *)out[i]->u.t.data + o * n, src, (size_t)n);
      src += n;
    }
  return 0;
}

/* ---- Slice ---- */

/* The count and first index of a slice of a dim of length n (Slice-13's
 * rules, which state what earlier versions meant): negative starts and ends
 * count from the back; then starts clamp to [0, n] (step > 0) or [0, n-1]
 * (step < 0), ends to [0, n] or [-1, n-1]. INT64_MAX and INT64_MIN work. */
static int64_t slice_dim(int64_t n, int64_t start, int64_t end, int64_t step, int64_t *first) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  int64_t lo = 0, hi = step > 0 ? n : n - 1;
  start = start < lo ? lo : start > hi ? hi : start;
  lo = step > 0 ? 0 : -1;
  end = end < lo ? lo : end > hi ? hi : end;
  *first = start;
  if (n == 0) return 0;
  /* both within [-1, n]: no overflow; step = INT64_MIN handled unsigned */
  if (step > 0) return end > start ? 1 + (end - start - 1) / step : 0;
  uint64_t s = (uint64_t)0 - (uint64_t)step;
  return start > end ? 1 + (int64_t)((uint64_t)(start - end - 1) / s) : 0;
}

/* ---- Slice-1, Pad, CenterCropPad, DepthToSpace, SpaceToDepth,
 * ReverseSequence: the attributes, read once when the model is loaded ---- */

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP };
static const char *const pad_names[] = {"constant", "reflect", "edge", "wrap"};

typedef struct {
  const int64_t *starts, *ends, *axes, *pads; /* NULL: absent */
  int64_t nstarts, nends, naxes, npads, blocksize, batch_axis, time_axis;
  int mode; /* Pad: PAD_*; DepthToSpace: 1 for CRD */
  float value;
} part_state;

static int part_new(ox_ctx *c, void **state) {
  part_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->axes = ox_attr_ints(c, "axes", &st->naxes);
  return 0;
}

/* Slice-1: starts and ends given (axes: an empty list is all of them) */
static int slice_load(ox_ctx *c, void **state) {
  OX_TRY(part_new(c, state));
  part_state *st = *state;
  st->starts = ox_attr_ints(c, "starts", &st->nstarts);
  st->ends = ox_attr_ints(c, "ends", &st->nends);
  if (st->axes && st->naxes == 0) st->axes = NULL, st->naxes = -1;
  if (c->version < 10 && (!st->starts || !st->ends))
    return ox_fail(c->err, OX_EINPUT, "the attributes 'starts' and 'ends' are required");
  return 0;
}

/* Pad: the mode; before 11, the pads (Pad-1: 'paddings') and the value */
static int pad_load(ox_ctx *c, void **state) {
  OX_TRY(part_new(c, state));
  part_state *st = *state;
  const char *ms = ox_attr_string(c, "mode", "constant");
  if (!strcmp(ms, "constant")) st->mode = PAD_CONSTANT;
  else if (!strcmp(ms, "reflect")) st->mode = PAD_REFLECT;
  else if (!strcmp(ms, "edge")) st->mode = PAD_EDGE;
  else if (!strcmp(ms, "wrap") && c->version >= 19) st->mode = PAD_WRAP;
  else
    return ox_fail(c->err, OX_EINPUT, "mode '%s' is not one of constant, reflect, edge%s", ms,
                   c->version >= 19 ? ", wrap" : " (wrap needs opset 19)");
  if (c->version < 11) {
    const char *name = c->version < 2 ? "paddings" : "pads";
    st->pads = ox_attr_ints(c, name, &st->npads);
    if (!st->pads) return ox_fail(c->err, OX_EINPUT, "the attribute '%s' is required", name);
    st->value = ox_attr_float(c, "value", 0.0f);
  }
  return 0;
}

/* DepthToSpace, SpaceToDepth: blocksize given and positive; DepthToSpace-11's mode */
static int block_load(ox_ctx *c, void **state) {
  OX_TRY(part_new(c, state));
  part_state *st = *state;
  if (!ox_attr_find(c, "blocksize"))
    return ox_fail(c->err, OX_EINPUT, "the attribute 'blocksize' is required");
  st->blocksize = ox_attr_int(c, "blocksize", 0);
  if (st->blocksize < 1 || st->blocksize > 0x7fffffff)
    return ox_fail(c->err, OX_EINPUT, "blocksize = %lld; it must be positive", (long long)st->blocksize);
  const char *mode = c->version >= 11 ? ox_attr_string(c, "mode", "DCR") : "DCR";
  st->mode = !strcmp(mode, "CRD");
  if (!st->mode && strcmp(mode, "DCR")) return ox_fail(c->err, OX_EINPUT, "mode '%s' is not DCR or CRD", mode);
  return 0;
}

/* ReverseSequence: the batch and time axes, 0 and 1 in some order */
static int revseq_load(ox_ctx *c, void **state) {
  OX_TRY(part_new(c, state));
  part_state *st = *state;
  st->batch_axis = ox_attr_int(c, "batch_axis", 1), st->time_axis = ox_attr_int(c, "time_axis", 0);
  int64_t ba = st->batch_axis, ta = st->time_axis;
  if ((ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
    return ox_fail(c->err, OX_EINPUT, "batch_axis = %lld and time_axis = %lld; they must be 0 "
                   "and 1 in some order", (long long)ba, (long long)ta);
  return 0;
}

#define PART ((const part_state *)c->state)

/* Slice-1: attributes starts, ends, axes. Slice-10 on: inputs starts, ends,
 * axes, steps (steps from 10, negative axes documented from 11). */
static int slice(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  int r = x->rank;
  int64_t *starts, *ends, *axes = NULL, *steps = NULL, ns, ne, na = -1, nst = -1;
  if (c->version < 10) {
    starts = (int64_t *)PART->starts, ns = PART->nstarts;
    ends = (int64_t *)PART->ends, ne = PART->nends;
    axes = (int64_t *)PART->axes, na = PART->naxes;
  } else {
    OX_TRY(ints_in(c, in, nin, 1, &starts, &ns));
    OX_TRY(ints_in(c, in, nin, 2, &ends, &ne));
    if (nin > 3 && in[3]) OX_TRY(ints_in(c, in, nin, 3, &axes, &na));
    if (nin > 4 && in[4]) OX_TRY(ints_in(c, in, nin, 4, &steps, &nst));
  }
  if (ne != ns)
    return ox_fail(c->err, OX_EINPUT, "starts has %lld values and ends %lld; they must match",
                   (long long)ns, (long long)ne);
  if (axes && na != ns)
    return ox_fail(c->err, OX_EINPUT, "axes has %lld values and starts %lld; they must match",
                   (long long)na, (long long)ns);
  if (steps && nst != ns)
    return ox_fail(c->err, OX_EINPUT, "steps has %lld values and starts %lld; they must match",
                   (long long)nst, (long long)ns);
  if (!axes && ns > r)
    return ox_fail(c->err, OX_EINPUT, "starts has %lld values but the input has rank %d",
                   (long long)ns, r);
  int64_t *dims = ints_new(c, r);
  int64_t **map = ox_alloc_array(c->a, r + 1, sizeof *map);
  unsigned char *seen = ox_alloc(c->a, (size_t)r + 1);
  int64_t *first = ints_new(c, r), *step = ints_new(c, r);
  if (!dims || !map || !seen || !first || !step) return ox_oom(c->err, NULL);
  for (int d = 0; d < r; d++) {
    dims[d] = x->dims[d];
    first[d] = 0;
    step[d] = 1;
  }
  for (int64_t i = 0; i < ns; i++) {
    int a = (int)i;
    if (axes) OX_TRY(ox_axis(c, axes[i], r, 0, "axis", &a));
    if (seen[a]) return ox_fail(c->err, OX_EINPUT, "axis %d is repeated in axes", a);
    seen[a] = 1;
    int64_t st = steps ? steps[i] : 1;
    if (st == 0) return ox_fail(c->err, OX_EINPUT, "steps[%lld] is 0", (long long)i);
    step[a] = st;
    dims[a] = slice_dim(x->dims[a], starts[i], ends[i], st, &first[a]);
  }
  /* x: (d_0, ..., d_r-1) -> y: (count_0, ...); y[.., o, ..] = x[.., first + o * step, ..] */
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, r, dims, &out[0], c->err));
  if (out[0]->u.t.n == 0) return 0; /* no maps: (2, 2^62, 0) would need 2^62 entries */
  for (int d = 0; d < r; d++) {
    map[d] = ints_new(c, dims[d]);
    if (!map[d]) return ox_oom(c->err, NULL);
    for (int64_t o = 0, v = first[d]; o < dims[d]; o++, v += step[d]) map[d][o] = v;
  }
  return remap(c, x, &out[0]->u.t, map, NULL);
}

/* ---- Expand ---- */

/* Expand-8, -13: y = x * ones(shape) in numpy: bidirectional broadcasting, so
 * a 1 in shape keeps x's dim and shape may have fewer dims than x. */
static int expand(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  int64_t *shape, n;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ints_in(c, in, nin, 1, &shape, &n));
  for (int64_t i = 0; i < n; i++)
    if (shape[i] < 0)
      return ox_fail(c->err, OX_EINPUT, "shape[%lld] = %lld is negative", (long long)i,
                     (long long)shape[i]);
  if (n > OX_BCAST_MAX_RANK)
    return ox_fail(c->err, OX_EINPUT, "shape has %lld dims; at most %d are supported",
                   (long long)n, OX_BCAST_MAX_RANK);
  ox_tensor want = {.dt = x->dt, .rank = (int)n, .dims = shape};
  const ox_tensor *ts[2] = {x, &want};
  int rank;
  int64_t dims[OX_BCAST_MAX_RANK];
  OX_TRY(ox_broadcast_shape(2, ts, &rank, dims, c->err));
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, rank, dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (y->n == 0) return 0;
  ox_bcast b1;
  OX_TRY(ox_bcast_init(&b1, 1, ts, rank, dims, c->err));
  size_t es = ox_dtype_size(x->dt);
  const char *src = x->data;
  char *dst = y->data;
  do {
    char *d = dst + b1.out * (int64_t)es;
    const char *s = src + b1.off[0] * (int64_t)es;
    if (b1.step[0]) memcpy(d, s, (size_t)b1.inner * es);
    else fill_elems(d, b1.inner, s, es);
  } while (ox_bcast_next(&b1));
  return 0;
}

/* ---- Tile ---- */

/* y = np.tile(x, reps): y[o] = x[o mod dim] along each dim. */
static int tile_by(ox_ctx *c, const ox_tensor *x, const int64_t *reps, ox_value **out) {
  int r = x->rank;
  int64_t *dims = ints_new(c, r);
  int64_t **map = ox_alloc_array(c->a, r + 1, sizeof *map);
  if (!dims || !map) return ox_oom(c->err, NULL);
  for (int d = 0; d < r; d++) {
    if (reps[d] < 0)
      return ox_fail(c->err, OX_EINPUT, "repeats[%d] = %lld is negative", d, (long long)reps[d]);
    if (__builtin_mul_overflow(x->dims[d], reps[d], &dims[d]))
      return ox_fail(c->err, OX_EINPUT, "dim %d: %lld * %lld repeats is too large", d,
                     (long long)x->dims[d], (long long)reps[d]);
  }
  /* x: (d_0, ..., d_r-1) -> y: (d_0 * reps_0, ..., d_r-1 * reps_r-1) */
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, r, dims, &out[0], c->err));
  if (out[0]->u.t.n == 0) return 0;
  for (int d = 0; d < r; d++) {
    map[d] = ints_new(c, dims[d]);
    if (!map[d]) return ox_oom(c->err, NULL);
    for (int64_t o = 0, i = 0; o < dims[d]; o++) { /* i = o mod d_d, without dividing */
      map[d][o] = i;
      if (++i == x->dims[d]) i = 0;
    }
  }
  return remap(c, x, &out[0]->u.t, map, NULL);
}

/* Tile-6, -13: repeats is 1-D int64 with one count per dim. */
static int tile(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  int64_t *reps, n;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ints_in(c, in, nin, 1, &reps, &n));
  if (n != x->rank) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "repeats has %lld values for an input of shape %s; it "
                   "needs one per dim", (long long)n, ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  }
  return tile_by(c, x, reps, out);
}

/* Tile-1: inputs (input, tiles, axis): `tiles` copies along `axis`. */
static int tile1(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  int64_t tiles, a;
  int axis;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_scalar_i64(c, 1, in[1], &tiles));
  OX_TRY(ox_scalar_i64(c, 2, in[2], &a));
  OX_TRY(ox_axis(c, a, x->rank, 0, "axis", &axis));
  int64_t *reps = ints_new(c, x->rank);
  if (!reps) return ox_oom(c->err, NULL);
  for (int d = 0; d < x->rank; d++) reps[d] = d == axis ? tiles : 1;
  return tile_by(c, x, reps, out);
}

/* ---- Pad ---- */


/* The source index of output index o of a dim of length n padded by `before`
 * (-1: the constant). As numpy.pad: reflect mirrors about the edges without
 * repeating them (period 2n-2), wrap is periodic (19+), edge repeats the end
 * values; pads longer than the dim keep going the same way. */
static int64_t pad_src(int mode, int64_t o, int64_t before, int64_t n) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  switch (mode) {
  case PAD_EDGE: return i < 0 ? 0 : n - 1;
  case PAD_WRAP: i %= n; return i < 0 ? i + n : i;
  case PAD_REFLECT: {
    if (n == 1) return 0;
    int64_t p = 2 * (n - 1);
    i %= p;
    if (i < 0) i += p;
    return i < n ? i : p - i;
  }
  default: return -1;
  }
}

/* Pad-1: attribute 'paddings'; 2: 'pads'; both with the float 'value'.
 * (Pad-1's example reads paddings as [x1_begin, x1_end, ...], but its
 * attribute text and ONNX's reference implementation use the layout of every
 * later version, [x1_begin, x2_begin, ..., x1_end, x2_end, ...]; so do we.)
 * Pad-11: inputs pads (int64) and constant_value; 13: all tensor types;
 * 18: input axes (pads then has 2 values per axis); 19: mode wrap. */
static int pad(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  int r = x->rank;
  size_t es = ox_dtype_size(x->dt);
  int mode = PART->mode;

  /* pads, axes, the fill */
  unsigned char fill[16];
  zero_elem(x->dt, fill);
  int64_t *pads, np, *axes = NULL, na = r;
  if (c->version < 11) {
    pads = (int64_t *)PART->pads, np = PART->npads;
    ox_store_f64(x->dt, fill, 0, PART->value);
  } else {
    const ox_tensor *pt;
    OX_TRY(ox_tensor_in(c, in, nin, 1, &pt));
    if (pt->dt != OX_INT64)
      return ox_fail(c->err, OX_EINPUT, "%s (pads) must be int64; it is %s", ox_input_name(c, 1),
                     ox_dtypes[pt->dt].onnx_name);
    OX_TRY(ox_ints_of(c, 1, in[1], &pads, &np));
    if (nin > 2 && in[2]) {
      const ox_tensor *v;
      OX_TRY(ox_tensor_in(c, in, nin, 2, &v));
      OX_TRY(ox_same_dtype(c, 2, v, x->dt));
      if (v->n > 1) {
        char sb[128];
        return ox_fail(c->err, OX_EINPUT, "%s (constant_value) must be a scalar; it has shape %s",
                       ox_input_name(c, 2), ox_shape_str(v->rank, v->dims, sb, sizeof sb));
      }
      if (v->n == 1) memcpy(fill, v->data, es);
    }
    if (nin > 3 && in[3]) OX_TRY(ints_in(c, in, nin, 3, &axes, &na));
  }
  if (np != 2 * na)
    return ox_fail(c->err, OX_EINPUT, "pads has %lld values; it needs 2 per %s (%lld)",
                   (long long)np, axes ? "axis in axes" : "dim of the input", (long long)(2 * na));
  /* Negative pads remove elements first (as onnxruntime does); the other
   * modes then pad from what is left: axis d keeps x's [lo, lo + len), and
   * gets `before` new elements in front. */
  int64_t *lo = ints_new(c, r), *len = ints_new(c, r), *before = ints_new(c, r);
  int64_t *dims = ints_new(c, r);
  int64_t **map = ox_alloc_array(c->a, r + 1, sizeof *map);
  unsigned char *seen = ox_alloc(c->a, (size_t)r + 1);
  if (!lo || !len || !before || !dims || !map || !seen) return ox_oom(c->err, NULL);
  for (int d = 0; d < r; d++) {
    lo[d] = before[d] = 0;
    len[d] = dims[d] = x->dims[d];
  }
  for (int64_t i = 0; i < na; i++) {
    int a = (int)i;
    if (axes) OX_TRY(ox_axis(c, axes[i], r, 0, "axis", &a));
    if (seen[a]) return ox_fail(c->err, OX_EINPUT, "axis %d is repeated in axes", a);
    seen[a] = 1;
    int64_t b = pads[i], e = pads[na + i], n = x->dims[a];
    int64_t cb = b < -n ? n + 1 : b < 0 ? -b : 0, ce = e < -n ? n + 1 : e < 0 ? -e : 0;
    if (cb > n || ce > n - cb)
      return ox_fail(c->err, OX_EINPUT, "pads %lld and %lld remove more than the %lld elements "
                     "of axis %d", (long long)b, (long long)e, (long long)n, a);
    lo[a] = cb;
    len[a] = n - cb - ce;
    before[a] = b > 0 ? b : 0;
    if (__builtin_add_overflow(len[a], before[a], &dims[a]) ||
        __builtin_add_overflow(dims[a], e > 0 ? e : 0, &dims[a]))
      return ox_fail(c->err, OX_EINPUT, "pads %lld and %lld on axis %d are too large",
                     (long long)b, (long long)e, a);
    if (len[a] == 0 && dims[a] > 0 && mode != PAD_CONSTANT)
      return ox_fail(c->err, OX_EINPUT, "axis %d %s; %s padding needs elements to copy", a,
                     n ? "has no elements left after the negative pads" : "is empty", pad_names[mode]);
  }
  /* x: (d_0, ...) -> y: (len_0 + before_0 + after_0, ...) */
  OX_TRY(ox_tensor_new(c->a, x->dt, r, dims, &out[0], c->err));
  if (out[0]->u.t.n == 0) return 0;
  for (int d = 0; d < r; d++) {
    map[d] = ints_new(c, dims[d]);
    if (!map[d]) return ox_oom(c->err, NULL);
    for (int64_t o = 0; o < dims[d]; o++) {
      int64_t i = pad_src(mode, o, before[d], len[d]);
      map[d][o] = i < 0 ? -1 : lo[d] + i;
    }
  }
  return remap(c, x, &out[0]->u.t, map, fill);
}

/* ---- CenterCropPad ---- */

/* CenterCropPad-18: per axis, crop a centred window (its start rounded down)
 * or pad with zeros on both sides (an odd extra element on the right). */
static int center_crop_pad(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  int64_t *shape, n, na;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ints_in(c, in, nin, 1, &shape, &n));
  int r = x->rank;
  const int64_t *axes = PART->axes;
  na = axes ? PART->naxes : r;
  if (n != na)
    return ox_fail(c->err, OX_EINPUT, "shape has %lld values; it needs one per %s (%lld)",
                   (long long)n, axes ? "axis in axes" : "dim of the input", (long long)na);
  int64_t *dims = ints_new(c, r), *off = ints_new(c, r);
  int64_t **map = ox_alloc_array(c->a, r + 1, sizeof *map);
  unsigned char *seen = ox_alloc(c->a, (size_t)r + 1);
  if (!dims || !off || !map || !seen) return ox_oom(c->err, NULL);
  for (int d = 0; d < r; d++) {
    dims[d] = x->dims[d];
    off[d] = 0;
  }
  for (int64_t i = 0; i < n; i++) {
    int a = (int)i;
    if (axes) OX_TRY(ox_axis(c, axes[i], r, 0, "axis", &a));
    if (seen[a]) return ox_fail(c->err, OX_EINPUT, "axis %d is repeated in axes", a);
    seen[a] = 1;
    if (shape[i] < 0)
      return ox_fail(c->err, OX_EINPUT, "shape[%lld] = %lld is negative", (long long)i,
                     (long long)shape[i]);
    dims[a] = shape[i];
    /* y[o] = x[o + off]: off > 0 crops, off < 0 pads */
    off[a] = shape[i] <= x->dims[a] ? (x->dims[a] - shape[i]) / 2 : -((shape[i] - x->dims[a]) / 2);
  }
  OX_TRY(ox_tensor_new(c->a, x->dt, r, dims, &out[0], c->err));
  if (out[0]->u.t.n == 0) return 0;
  for (int d = 0; d < r; d++) {
    map[d] = ints_new(c, dims[d]);
    if (!map[d]) return ox_oom(c->err, NULL);
    for (int64_t o = 0; o < dims[d]; o++) {
      int64_t i = o + off[d];
      map[d][o] = i >= 0 && i < x->dims[d] ? i : -1;
    }
  }
  unsigned char fill[16];
  zero_elem(x->dt, fill);
  return remap(c, x, &out[0]->u.t, map, fill);
}

/* ---- DepthToSpace, SpaceToDepth ---- */

static int block_input(ox_ctx *c, ox_value **in, int nin, const ox_tensor **x, int64_t *bs) {
  OX_TRY(ox_tensor_in(c, in, nin, 0, x));
  if ((*x)->rank != 4) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "the input must have rank 4 (N, C, H, W); it has shape %s",
                   ox_shape_str((*x)->rank, (*x)->dims, sb, sizeof sb));
  }
  *bs = PART->blocksize;
  return 0;
}

/* DepthToSpace-1 is DCR; 11 adds mode CRD. */
static int depth_to_space(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  int64_t b = 1;
  OX_TRY(block_input(c, in, nin, &x, &b));
  int crd = PART->mode;
  /* x: (N, C, H, W) */
  int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
  if (C % (b * b))
    return ox_fail(c->err, OX_EINPUT, "channels (%lld) are not a multiple of blocksize^2 (%lld)",
                   (long long)C, (long long)(b * b));
  int64_t Cb = C / (b * b), Hb, Wb;
  if (__builtin_mul_overflow(H, b, &Hb) || __builtin_mul_overflow(W, b, &Wb))
    return ox_fail(c->err, OX_EINPUT, "the output is too large");
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 4, (int64_t[]){N, Cb, Hb, Wb}, &out[0], c->err));
  if (crd) { /* (N, C', b, b, H, W) -> (N, C', H, b, W, b) */
    static const int perm[] = {0, 1, 4, 2, 5, 3};
    permute(x, &out[0]->u.t, 6, (int64_t[]){N, Cb, b, b, H, W}, perm);
  } else { /* (N, b, b, C', H, W) -> (N, C', H, b, W, b) */
    static const int perm[] = {0, 3, 4, 1, 5, 2};
    permute(x, &out[0]->u.t, 6, (int64_t[]){N, b, b, Cb, H, W}, perm);
  }
  return 0;
}

static int space_to_depth(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  int64_t b = 1;
  OX_TRY(block_input(c, in, nin, &x, &b));
  /* x: (N, C, H, W) */
  int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], Cb;
  if (H % b || W % b)
    return ox_fail(c->err, OX_EINPUT, "height %lld and width %lld must be multiples of "
                   "blocksize %lld", (long long)H, (long long)W, (long long)b);
  if (__builtin_mul_overflow(C, b * b, &Cb))
    return ox_fail(c->err, OX_EINPUT, "the output is too large");
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, 4, (int64_t[]){N, Cb, H / b, W / b}, &out[0], c->err));
  /* (N, C, H/b, b, W/b, b) -> (N, b, b, C, H/b, W/b) */
  static const int perm[] = {0, 3, 5, 1, 2, 4};
  permute(x, &out[0]->u.t, 6, (int64_t[]){N, C, H / b, b, W / b, b}, perm);
  return 0;
}

/* ---- ReverseSequence ---- */

/* ReverseSequence-10: for batch i, the first sequence_lens[i] steps along the
 * time axis are reversed; the rest are copied. The axes are 0 and 1. */
static int reverse_sequence(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *lt;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &lt));
  int64_t ba = PART->batch_axis, ta = PART->time_axis;
  if (x->rank < 2) return ox_fail(c->err, OX_EINPUT, "the input must have rank 2 or more; it has rank %d", x->rank);
  if (lt->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s (sequence_lens) must be int64; it is %s",
                   ox_input_name(c, 1), ox_dtypes[lt->dt].onnx_name);
  int64_t B = x->dims[ba], T = x->dims[ta];
  if (lt->rank != 1 || lt->n != B) {
    char sb[128];
    return ox_fail(c->err, OX_EINPUT, "sequence_lens has shape %s; it must be (%lld,), one "
                   "length per batch", ox_shape_str(lt->rank, lt->dims, sb, sizeof sb), (long long)B);
  }
  const int64_t *lens = lt->data;
  for (int64_t i = 0; i < B; i++)
    if (lens[i] < 0 || lens[i] > T)
      return ox_fail(c->err, OX_EINPUT, "sequence_lens[%lld] = %lld is out of range [0, %lld]",
                     (long long)i, (long long)lens[i], (long long)T);
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  if (x->n == 0) return 0;
  /* x: (A0, A1, inner...); block: the contiguous bytes of one (a0, a1) */
  int64_t blk = (int64_t)ox_dtype_size(x->dt);
  for (int d = 2; d < x->rank; d++) blk *= x->dims[d];
  int64_t sb = ba == 0 ? x->dims[1] * blk : blk, st = ta == 0 ? x->dims[1] * blk : blk;
  const char *src = x->data;
  char *dst = out[0]->u.t.data;
  for (int64_t i = 0; i < B; i++)
    for (int64_t t = 0; t < T; t++) {
      int64_t s = t < lens[i] ? lens[i] - 1 - t : t;
      memcpy(dst + i * sb + t * st, src + i * sb + s * st, (size_t)blk);
    }
  return 0;
}

/* ---- the table ---- */

const ox_kernel ox_tensor_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Concat",           1, 0, OX_TS_FLOAT3,  1, -1, concat, "axis:int", concat_load },
  { "", "Concat",           4, 0, OX_TS_CLASSIC, 1, -1, concat, "axis:int:required", concat_load },
  /* negative axis */
  { "", "Concat",          11, 0, OX_TS_CLASSIC, 1, -1, concat, OX_ATTRS_OF(4), concat_load },
  { "", "Concat",          13, 0, TS_13,         1, -1, concat, OX_ATTRS_OF(4), concat_load },
  { "", "Split",            1, 0, OX_TS_FLOAT3,  1,  2, split, "axis:int,split:ints", split_load },
  { "", "Split",            2, 0, OX_TS_CLASSIC, 1,  1, split, "axis:int=0,split:ints", split_load },
  /* negative axis */
  { "", "Split",           11, 0, OX_TS_CLASSIC, 1,  1, split, OX_ATTRS_OF(2), split_load },
  { "", "Split",           13, 0, TS_13,         1,  2, split, "axis:int=0", split_load }, /* split input */
  /* num_outputs */
  { "", "Split",           18, 0, TS_13,         1,  2, split, "axis:int=0,num_outputs:int", split_load },
  { "", "Slice",            1, 0, OX_TS_CLASSIC, 1,  1, slice,
    "axes:ints,ends:ints:required,starts:ints:required", slice_load },
  { "", "Slice",           10, 0, OX_TS_CLASSIC, 3,  5, slice, "", slice_load },
  { "", "Slice",           11, 0, OX_TS_CLASSIC, 3,  5, slice, "", slice_load },
  { "", "Slice",           13, 0, TS_13,         3,  5, slice, "", slice_load },
  { "", "Expand",           8, 0, OX_TS_CLASSIC, 2,  2, expand, "" },
  { "", "Expand",          13, 0, TS_13,         2,  2, expand, "" },
  { "", "Tile",             1, 0, OX_TS_FLOAT3,  3,  3, tile1, "" },
  { "", "Tile",             6, 0, OX_TS_CLASSIC, 2,  2, tile, "" },
  { "", "Tile",            13, 0, TS_13,         2,  2, tile, "" },
  { "", "Pad",              1, 0, OX_TS_FLOAT3,  1,  1, pad,
    "mode:string=constant,paddings:ints:required,value:float=0.0", pad_load },
  { "", "Pad",              2, 0, OX_TS_FLOAT3,  1,  1, pad,
    "mode:string=constant,pads:ints:required,value:float=0.0", pad_load },
  { "", "Pad",             11, 0, TS_PAD11,      2,  3, pad, "mode:string=constant", pad_load },
  { "", "Pad",             13, 0, TS_13,         2,  3, pad, OX_ATTRS_OF(11), pad_load },
  { "", "Pad",             18, 0, TS_13,         2,  4, pad, OX_ATTRS_OF(11), pad_load }, /* axes */
  { "", "Pad",             19, 0, TS_13,         2,  4, pad, OX_ATTRS_OF(11), pad_load }, /* wrap */
  { "", "Pad",             21, 0, TS_21,         2,  4, pad, OX_ATTRS_OF(11), pad_load },
  { "", "Pad",             23, 0, TS_23,         2,  4, pad, OX_ATTRS_OF(11), pad_load },
  { "", "Pad",             24, 0, TS_24,         2,  4, pad, OX_ATTRS_OF(11), pad_load },
  { "", "Pad",             25, 0, TS_25,         2,  4, pad, OX_ATTRS_OF(11), pad_load },
  { "", "CenterCropPad",   18, 0, TS_13,         2,  2, center_crop_pad, "axes:ints", part_new },
  { "", "DepthToSpace",     1, 0, OX_TS_CLASSIC, 1,  1, depth_to_space, "blocksize:int:required", block_load },
  { "", "DepthToSpace",    11, 0, OX_TS_CLASSIC, 1,  1, depth_to_space,
    "blocksize:int:required,mode:string=DCR", block_load }, /* mode */
  { "", "DepthToSpace",    13, 0, TS_13,         1,  1, depth_to_space, OX_ATTRS_OF(11), block_load },
  { "", "SpaceToDepth",     1, 0, OX_TS_CLASSIC, 1,  1, space_to_depth, "blocksize:int:required", block_load },
  { "", "SpaceToDepth",    13, 0, TS_13,         1,  1, space_to_depth, OX_ATTRS_OF(1), block_load },
  { "", "ReverseSequence", 10, 0, OX_TS_CLASSIC, 2,  2, reverse_sequence,
    "batch_axis:int=1,time_axis:int=0", revseq_load },
  {0},
};

/* ---- for the rows of other families (ops/twins.h) ---- */

/* Slice-10's kernel (the experimental DynamicSlice-1, whose inputs are
 * Slice-10's first four, runs it at any opset) */
int ox_slice10_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  ox_ctx c10 = *c;
  c10.version = 10;
  return slice(&c10, nin, in, nout, out);
}

int ox_slice10_load(ox_ctx *c, void **state) {
  ox_ctx c10 = *c;
  c10.version = 10;
  return slice_load(&c10, state);
}
