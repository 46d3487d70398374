/* core/kernel.c: shared helpers for kernels (see kernel.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "half.h"
#include "kernel.h"

int ox_dtype_is_small_float(ox_dtype dt) {
  return ox_dtype_is_float(dt) && dt != OX_FLOAT && dt != OX_DOUBLE;
}

int ox_widen_tensor(ox_ctx *c, const ox_tensor *t, ox_tensor *f) {
  if (!t) return 0;
  *f = *t;
  f->dt = OX_FLOAT;
  f->data = ox_widen_f32(c->a, t, c->err);
  return f->data ? 0 : c->err->code;
}

float *ox_widen_f32(ox_arena *a, const ox_tensor *t, ox_err *e) {
  float *f = ox_alloc_array(a, t->n, sizeof *f);
  if (!f) {
    ox_oom(e, "for %lld floats", (long long)t->n);
    return NULL;
  }
  ox_widen_f32_n(t->dt, t->data, 0, t->n, f);
  return f;
}

void ox_narrow_f32(const float *src, ox_tensor *dst) { ox_narrow_f32_n(src, dst->n, dst->dt, dst->data, 0); }

int ox_elementwise_new(ox_ctx *c, int n, const ox_tensor *const *ins, ox_dtype dt, int rank,
                       const int64_t *dims, ox_value **out) {
  for (int k = 0; k < n; k++) {
    const ox_tensor *t = ins[k];
    if (t->dt != dt || dt == OX_STRING || t->rank != rank || !t->n ||
        memcmp(t->dims, dims, sizeof *dims * (size_t)rank) || !ox_live_take(c->a, t->data))
      continue;
    ox_value *v = ox_alloc(c->a, sizeof *v);
    int64_t *d = ox_alloc_array(c->a, rank, sizeof *d);
    if (!v || !d) return ox_oom(c->err, NULL);
    memcpy(d, dims, sizeof *dims * (size_t)rank);
    v->kind = OX_TENSOR;
    v->u.t = *t;
    v->u.t.dims = d;
    *out = v;
    return 0;
  }
  return ox_tensor_new_uninit(c->a, dt, rank, dims, out, c->err);
}

double *ox_widen_f64(ox_arena *a, const ox_tensor *t, ox_err *e) {
  double *d = ox_alloc_array(a, t->n ? t->n : 1, sizeof *d);
  if (!d) {
    ox_oom(e, "for %lld doubles", (long long)t->n);
    return NULL;
  }
  switch (t->dt) {
#define CASE(NAME, T)                                                                \
  case OX_##NAME: {                                                                  \
    const T *x = t->data;                                                            \
    for (int64_t i = 0; i < t->n; i++) d[i] = (double)x[i];                          \
    break;                                                                           \
  }
    OX_NATIVE_TYPES(CASE)
#undef CASE
  default:
    for (int64_t i = 0; i < t->n; i++) d[i] = ox_load_f64(t->dt, t->data, i);
  }
  return d;
}

/* Round half to even and clamp into [lo, hi] (NaN gives 0). */
static double round_sat(double v, double lo, double hi) {
  if (v != v) return 0;
  v = nearbyint(v);
  return v < lo ? lo : v > hi ? hi : v;
}
/* The range of an integer type as doubles; int64's and uint64's top is the
 * largest double below 2^63 and 2^64, so that the cast back stays defined. */
#define TLO(T) _Generic((T)0, int8_t: -128.0, int16_t: -32768.0, int32_t: -2147483648.0,  \
                        int64_t: -0x1p63, default: 0.0)
#define THI(T) _Generic((T)0, int8_t: 127.0, int16_t: 32767.0, int32_t: 2147483647.0,     \
                        int64_t: 0x1.fffffffffffffp62, uint8_t: 255.0, uint16_t: 65535.0,  \
                        uint32_t: 4294967295.0, default: 0x1.fffffffffffffp63)

int ox_narrow_f64(ox_arena *a, const double *src, ox_tensor *dst, ox_to_int how, ox_err *e) {
  int64_t n = dst->n;
  switch (dst->dt) {
  case OX_FLOAT: {
    float *y = dst->data;
    for (int64_t i = 0; i < n; i++) y[i] = (float)src[i];
    return 0;
  }
  case OX_DOUBLE:
    if (n) memcpy(dst->data, src, (size_t)n * sizeof *src);
    return 0;
#define CASE(NAME, T)                                                                \
  case OX_##NAME:                                                                    \
    if (how == OX_TO_INT_ROUND_SAT) {                                                \
      T *y = dst->data;                                                              \
      const double lo = TLO(T), hi = THI(T);                                         \
      for (int64_t i = 0; i < n; i++) y[i] = (T)round_sat(src[i], lo, hi);           \
      return 0;                                                                      \
    }                                                                                \
    break;
    OX_NATIVE_INTS(CASE)
#undef CASE
  case OX_BOOL:
    if (how == OX_TO_INT_ROUND_SAT) {
      uint8_t *y = dst->data;
      for (int64_t i = 0; i < n; i++) y[i] = round_sat(src[i], 0, 1) != 0;
      return 0;
    }
    break;
  default:
    if (ox_dtype_is_small_float(dst->dt)) {
      float *f = ox_alloc_array(a, n ? n : 1, sizeof *f);
      if (!f) return ox_oom(e, "for %lld floats", (long long)n);
      for (int64_t i = 0; i < n; i++) f[i] = (float)src[i];
      ox_narrow_f32(f, dst);
      return 0;
    }
    if (dst->dt == OX_STRING || ox_dtype_is_complex(dst->dt) || how == OX_TO_INT_ROUND_SAT)
      return ox_fail(e, OX_EINPUT, "cannot store real numbers as %s", ox_dtype_name(dst->dt));
  }
  /* OX_TO_INT_TRUNC: integers (the 2- and 4-bit ones too) and bool */
  for (int64_t i = 0; i < n; i++) ox_store_f64(dst->dt, dst->data, i, src[i]);
  return 0;
}

int ox_elementwise_out(ox_ctx *c, int n, const ox_tensor *const *ins, ox_dtype dt,
                       ox_value **out, ox_bcast *b) {
  int rank;
  int64_t dims[OX_BCAST_MAX_RANK];
  OX_TRY(ox_broadcast_shape(n, ins, &rank, dims, c->err));
  OX_TRY(ox_elementwise_new(c, n, ins, dt, rank, dims, out));
  return ox_bcast_init(b, n, ins, rank, dims, c->err);
}

int ox_need_tensor(ox_ctx *c, const ox_value *v, int i) {
  char desc[128];
  if (!v) return ox_fail(c->err, OX_EINPUT, "%s is missing", ox_input_name(c, i));
  if (v->kind != OX_TENSOR)
    return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a tensor", ox_input_name(c, i),
                   ox_value_desc(v, desc, sizeof desc));
  return 0;
}

int ox_tensor_in(ox_ctx *c, ox_value **in, int nin, int i, const ox_tensor **t) {
  OX_TRY(ox_need_tensor(c, i < nin ? in[i] : NULL, i));
  *t = &in[i]->u.t;
  return 0;
}

int ox_opt_tensor_in(ox_ctx *c, ox_value **in, int nin, int i, const ox_tensor **t) {
  *t = NULL;
  if (i >= nin || !in[i]) return 0;
  return ox_tensor_in(c, in, nin, i, t);
}

int ox_same_dtype(ox_ctx *c, int i, const ox_tensor *t, ox_dtype want) {
  if (t->dt == want) return 0;
  return ox_fail(c->err, OX_EINPUT, "%s is %s but input 0 is %s; they must have the same type",
                 ox_input_name(c, i), ox_dtypes[t->dt].onnx_name, ox_dtypes[want].onnx_name);
}

int ox_same_dtype_as(ox_ctx *c, int i, const ox_tensor *t, int j, const ox_tensor *u) {
  if (t->dt == u->dt) return 0;
  return ox_fail(c->err, OX_EINPUT, "%s is %s but %s is %s; they must have the same type",
                 ox_input_name(c, i), ox_dtypes[t->dt].onnx_name, ox_input_name(c, j),
                 ox_dtypes[u->dt].onnx_name);
}

int ox_scalar_i64(ox_ctx *c, int input, const ox_value *v, int64_t *out) {
  char sb[128];
  if (!v || v->kind != OX_TENSOR)
    return ox_fail(c->err, OX_EINPUT, "%s must be a tensor", ox_input_name(c, input));
  const ox_tensor *t = &v->u.t;
  if (t->n != 1 || t->rank > 1)
    return ox_fail(c->err, OX_EINPUT, "%s must be a scalar; it has shape %s", ox_input_name(c, input),
                   ox_shape_str(t->rank, t->dims, sb, sizeof sb));
  if (!ox_dtype_is_signed_int(t->dt) && !ox_dtype_is_unsigned_int(t->dt))
    return ox_fail(c->err, OX_EINPUT, "%s must be an integer; it is %s", ox_input_name(c, input),
                   ox_dtype_name(t->dt));
  *out = ox_load_i64(t->dt, t->data, 0);
  return 0;
}

int ox_ints_of(ox_ctx *c, int input, const ox_value *v, int64_t **vals, int64_t *n) {
  char sb[128];
  if (!v || v->kind != OX_TENSOR)
    return ox_fail(c->err, OX_EINPUT, "%s must be a tensor", ox_input_name(c, input));
  const ox_tensor *t = &v->u.t;
  if (t->rank > 1)
    return ox_fail(c->err, OX_EINPUT, "%s must be 1-D; it has shape %s", ox_input_name(c, input),
                   ox_shape_str(t->rank, t->dims, sb, sizeof sb));
  if (t->dt != OX_INT64 && t->dt != OX_INT32)
    return ox_fail(c->err, OX_EINPUT, "%s must be int64 or int32; it is %s", ox_input_name(c, input),
                   ox_dtype_name(t->dt));
  int64_t *p = ox_alloc_array(c->a, t->n + 1, sizeof *p);
  if (!p) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < t->n; i++) p[i] = ox_load_i64(t->dt, t->data, i);
  *vals = p;
  *n = t->n;
  return 0;
}

int ox_attr_int_in(ox_ctx *c, const char *name, int64_t def, int64_t lo, int64_t hi, int *out) {
  int64_t v = ox_attr_int(c, name, def);
  if (c->err->code) return c->err->code; /* of another type */
  if (v < lo || v > hi) {
    if (hi == lo + 1)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' is %lld; it must be %lld or %lld", name,
                     (long long)v, (long long)lo, (long long)hi);
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' is %lld; it must be in [%lld, %lld]", name,
                   (long long)v, (long long)lo, (long long)hi);
  }
  *out = (int)v;
  return 0;
}

int ox_axis(ox_ctx *c, int64_t axis, int rank, int extra, const char *what, int *out) {
  int64_t r = rank + (extra ? 1 : 0);
  if (axis < -r || axis >= r)
    return ox_fail(c->err, OX_EINPUT, "%s %lld is out of range [%lld, %lld] for rank %d", what,
                   (long long)axis, (long long)-r, (long long)(r - 1), rank);
  *out = (int)(axis < 0 ? axis + r : axis);
  return 0;
}

int ox_auto_pad(ox_ctx *c, int *mode) {
  const char *s = ox_attr_string(c, "auto_pad", "NOTSET");
  if (!strcmp(s, "NOTSET")) *mode = OX_PAD_NOTSET;
  else if (!strcmp(s, "SAME_UPPER")) *mode = OX_PAD_SAME_UPPER;
  else if (!strcmp(s, "SAME_LOWER")) *mode = OX_PAD_SAME_LOWER;
  else if (!strcmp(s, "VALID")) *mode = OX_PAD_VALID;
  else
    return ox_fail(c->err, OX_EINPUT,
                   "auto_pad is '%s'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID", s);
  return 0;
}

int ox_window_attr(ox_ctx *c, const char *name, int64_t lo, ox_ints *out) {
  out->v = ox_attr_ints(c, name, &out->n);
  for (int64_t i = 0; out->v && i < out->n; i++)
    if (out->v[i] < lo || out->v[i] > (INT64_C(1) << 24))
      return ox_fail(c->err, OX_EINPUT, "%s[%lld] is %lld; it must be in [%lld, 2^24]", name, (long long)i,
                     (long long)out->v[i], (long long)lo);
  return 0;
}

int ox_window_vals(ox_ctx *c, const char *name, const ox_ints *v, int n, int64_t def, int64_t *out) {
  if (!v->v) {
    for (int i = 0; i < n; i++) out[i] = def;
    return 0;
  }
  if (v->n != n)
    return ox_fail(c->err, OX_EINPUT, "%s has %lld values; expected %d (%s)", name, (long long)v->n,
                   n, n == 1 ? "one per spatial axis" : "one per spatial axis, or begins then ends");
  for (int i = 0; i < n; i++) out[i] = v->v[i];
  return 0;
}

int ox_window_ints(ox_ctx *c, const char *name, int n, int64_t def, int64_t lo, int64_t *out) {
  ox_ints v;
  OX_TRY(ox_window_attr(c, name, lo, &v));
  return ox_window_vals(c, name, &v, n, def, out);
}
