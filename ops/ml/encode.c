/* ops/ml/encode.c: ai.onnx.ml feature and label encoders: ArrayFeatureExtractor,
 * Binarizer, CastMap, CategoryMapper, DictVectorizer, FeatureVectorizer,
 * Imputer, LabelEncoder (1, 2, 4), OneHotEncoder, ZipMap.
 *
 * The look-up ops (CategoryMapper, LabelEncoder, OneHotEncoder, DictVectorizer)
 * share one table: the keys sorted (by value, then by position) and searched
 * by bisection; a value is an elsize-byte copy from a column of values, so no
 * op has per-type code. Maps are a 1-D key tensor and a sequence of scalar
 * tensors (core/value.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"

/* ---- checks and attributes ---- */

/* A column of n elements of dtype dt: a list attribute (floats, ints,
 * strings) or a tensor attribute. p == NULL: the attribute is absent. */
typedef struct { ox_dtype dt; int64_t n; const void *p; const char *name; } col;

/* The attribute `name` as a column; absent leaves p NULL. A list of another
 * kind than `want` (OX_ATTR_FLOATS, _INTS, _STRINGS or _TENSOR) is an error. */
static int col_attr(ox_ctx *c, const char *name, ox_attr_type want, col *out) {
  static const char *what[] = {[OX_ATTR_FLOATS] = "a list of floats", [OX_ATTR_INTS] = "a list of ints",
                               [OX_ATTR_STRINGS] = "a list of strings", [OX_ATTR_TENSOR] = "a tensor"};
  *out = (col){OX_UNDEFINED, 0, NULL, name};
  const ox_attr *at = ox_attr_find(c, name);
  if (!at) return 0;
  if (at->type != want || (want == OX_ATTR_TENSOR && (!at->t || at->t->kind != OX_TENSOR)))
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' must be %s", name, what[want]);
  static const char empty[16];
  switch (want) {
  case OX_ATTR_FLOATS: *out = (col){OX_FLOAT, at->n, at->floats, name}; break;
  case OX_ATTR_INTS: *out = (col){OX_INT64, at->n, at->ints, name}; break;
  case OX_ATTR_STRINGS: *out = (col){OX_STRING, at->n, at->strings, name}; break;
  default: *out = (col){at->t->u.t.dt, at->t->u.t.n, at->t->u.t.data, name}; break;
  }
  if (!out->p) out->p = empty; /* an empty list is present, with n = 0 */
  return 0;
}

/* ---- the key table ---- */

typedef enum { K_INT, K_FLT, K_STR } kkind;
typedef struct { union { int64_t i; double f; ox_str s; } k; int64_t pos; } kent;
typedef struct { kkind kind; int64_t n; kent *e; } keyset;

static kkind kind_of(ox_dtype dt) {
  return dt == OX_STRING ? K_STR : ox_dtype_is_float(dt) ? K_FLT : K_INT;
}

/* Floats order with every NaN equal and last, so a NaN key matches any NaN
 * input (LabelEncoder-4; LabelEncoder-2's "bit-wise comparison" is there so
 * that NaN can be mapped too). -0.0 equals 0.0. */
static int kcmp(kkind kind, const kent *a, const kent *b) {
  switch (kind) {
  case K_INT: return (a->k.i > b->k.i) - (a->k.i < b->k.i);
  case K_FLT: {
    int na = isnan(a->k.f), nb = isnan(b->k.f);
    if (na || nb) return na - nb;
    return (a->k.f > b->k.f) - (a->k.f < b->k.f);
  }
  default: {
    int64_t m = a->k.s.n < b->k.s.n ? a->k.s.n : b->k.s.n;
    int r = m ? memcmp(a->k.s.p, b->k.s.p, (size_t)m) : 0;
    return r ? r : (a->k.s.n > b->k.s.n) - (a->k.s.n < b->k.s.n);
  }
  }
}
#define KSORT(K)                                                                      \
  static int sort_##K(const void *x, const void *y) {                                 \
    const kent *a = x, *b = y;                                                        \
    int r = kcmp(K, a, b);                                                            \
    return r ? r : (a->pos > b->pos) - (a->pos < b->pos);                             \
  }
KSORT(K_INT)
KSORT(K_FLT)
KSORT(K_STR)

/* Element i of data (dtype dt) as a key of `kind`. */
static void key_at(kkind kind, ox_dtype dt, const void *data, int64_t i, kent *out) {
  if (kind == K_STR) out->k.s = ((const ox_str *)data)[i];
  else if (kind == K_FLT) out->k.f = ox_load_f64(dt, data, i);
  else out->k.i = ox_load_i64(dt, data, i);
}

static int keyset_make(ox_ctx *c, ox_dtype dt, int64_t n, const void *data, keyset *ks) {
  ks->kind = kind_of(dt);
  ks->n = n;
  ks->e = ox_alloc_array(c->a, n ? n : 1, sizeof *ks->e);
  if (!ks->e) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < n; i++) {
    key_at(ks->kind, dt, data, i, &ks->e[i]);
    ks->e[i].pos = i;
  }
  static int (*const sorts[])(const void *, const void *) = {sort_K_INT, sort_K_FLT, sort_K_STR};
  if (n > 1) qsort(ks->e, (size_t)n, sizeof *ks->e, sorts[ks->kind]);
  return 0;
}

/* The position of key x in the table, or -1. Of repeated keys, the last one
 * wins everywhere: LabelEncoder-4 says so ("the last key takes precedence");
 * earlier versions and CategoryMapper say nothing, and onnxruntime's
 * LabelEncoder-1 takes the last one too. */
static int64_t keyset_find(const keyset *ks, const kent *x) {
  int64_t lo = 0, hi = ks->n; /* the first entry > x */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (kcmp(ks->kind, &ks->e[mid], x) <= 0) lo = mid + 1;
    else hi = mid;
  }
  lo--;
  return lo >= 0 && !kcmp(ks->kind, &ks->e[lo], x) ? ks->e[lo].pos : -1;
}

/* y = x with each element replaced by vals[position of it in keys], or by
 * *def where it is not a key. y has x's shape and vals' dtype. x's dtype must
 * be the keys' (checked by the callers, which name the attributes). */
static int lookup_map(ox_ctx *c, const ox_tensor *x, const col *keys, const col *vals,
                      const void *def, ox_value **out) {
  if (keys->n != vals->n)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' has %lld elements but '%s' has %lld; they must "
                   "be as long", keys->name, (long long)keys->n, vals->name, (long long)vals->n);
  keyset ks;
  OX_TRY(keyset_make(c, keys->dt, keys->n, keys->p, &ks));
  OX_TRY(ox_tensor_new(c->a, vals->dt, x->rank, x->dims, out, c->err));
  size_t es = ox_dtype_size(vals->dt);
  char *y = (*out)->u.t.data;
  for (int64_t i = 0; i < x->n; i++) {
    kent k;
    key_at(ks.kind, x->dt, x->data, i, &k);
    int64_t pos = keyset_find(&ks, &k);
    memcpy(y + (size_t)i * es, pos >= 0 ? (const char *)vals->p + (size_t)pos * es : def, es);
  }
  return 0;
}

static int dtype_mismatch(ox_ctx *c, const ox_tensor *x, const col *keys) {
  return ox_fail(c->err, OX_EINPUT, "%s is %s but the keys ('%s') are %s; they must be the same type",
                 ox_input_name(c, 0), ox_dtypes[x->dt].onnx_name, keys->name,
                 ox_dtypes[keys->dt].onnx_name);
}

/* Exactly one of the columns (of count n) must be present; *which gets it. */
static int one_of(ox_ctx *c, int n, const col *cols, const col **which) {
  *which = NULL;
  for (int i = 0; i < n; i++)
    if (cols[i].p) {
      if (*which)
        return ox_fail(c->err, OX_EINPUT, "attributes '%s' and '%s' are both set; give only one",
                       (*which)->name, cols[i].name);
      *which = &cols[i];
    }
  if (!*which) {
    char names[256] = "";
    for (int i = 0; i < n; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'", i ? ", " : "", cols[i].name);
    return ox_fail(c->err, OX_EINPUT, "one of the attributes %s is required", names);
  }
  return 0;
}

/* ---- ArrayFeatureExtractor ---- */

/* X: (..., C), Y: int64 indices of any shape (k elements) -> Z: (..., k);
 * a 1-D X gives Z: (1, k), as onnxruntime and the reference do. */
static int array_feature_extractor(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  OX_TRY(ox_need_tensor(c, in[1], 1));
  const ox_tensor *x = &in[0]->u.t, *ix = &in[1]->u.t;
  if (ix->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s (the indices) is %s; it must be int64", ox_input_name(c, 1),
                   ox_dtypes[ix->dt].onnx_name);
  if (x->rank == 0) return ox_fail(c->err, OX_EINPUT, "%s is a scalar; it needs at least one axis",
                                   ox_input_name(c, 0));
  int64_t C = x->dims[x->rank - 1], k = ix->n;
  const int64_t *idx = ix->data;
  for (int64_t j = 0; j < k; j++)
    if (idx[j] < 0 || idx[j] >= C)
      return ox_fail(c->err, OX_EINPUT, "index %lld (element %lld of %s) is out of range [0, %lld)",
                     (long long)idx[j], (long long)j, ox_input_name(c, 1), (long long)C);
  int rank = x->rank == 1 ? 2 : x->rank;
  int64_t *dims = ox_alloc_array(c->a, rank, sizeof *dims);
  if (!dims) return ox_oom(c->err, NULL);
  if (x->rank == 1) dims[0] = 1;
  else memcpy(dims, x->dims, (size_t)(rank - 1) * sizeof *dims);
  dims[rank - 1] = k;
  OX_TRY(ox_tensor_new(c->a, x->dt, rank, dims, &out[0], c->err));
  size_t es = ox_dtype_size(x->dt);
  int64_t rows = C ? x->n / C : 0;
  const char *src = x->data;
  char *dst = out[0]->u.t.data;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < k; j++)
      memcpy(dst + (size_t)(r * k + j) * es, src + (size_t)(r * C + idx[j]) * es, es);
  return 0;
}

/* ---- Binarizer ---- */

/* y = x > threshold ? 1 : 0, in x's type (a NaN is not greater: 0). */
static int binarizer(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  double th = ox_attr_float(c, "threshold", 0.0f);
  if (c->err->code) return c->err->code;
  const ox_tensor *x = &in[0]->u.t;
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, x->dims, &out[0], c->err));
  switch (x->dt) {
#define CASE(NAME, T)                                                                 \
  case OX_##NAME: {                                                                   \
    const T *xs = x->data;                                                            \
    T *y = out[0]->u.t.data;                                                          \
    for (int64_t i = 0; i < x->n; i++) y[i] = (double)xs[i] > th ? (T)1 : (T)0;      \
  } break;
    OX_NATIVE_TYPES(CASE)
#undef CASE
  default: return ox_fail(c->err, OX_EUNSUPPORTED, "Binarizer of %s", ox_dtypes[x->dt].onnx_name);
  }
  return 0;
}

/* ---- maps ---- */

/* Input i must be a map whose values are tensors; *key and *val get its
 * key and value element types. */
static int need_map(ox_ctx *c, ox_value **in, int i, ox_dtype *key, ox_dtype *val) {
  const ox_value *m = in[i];
  if (m && m->kind == OX_MAP && m->type && m->type->inner && m->type->inner->kind == OX_TENSOR &&
      m->u.map.keys && m->u.map.keys->kind == OX_TENSOR && m->u.map.values &&
      m->u.map.values->u.seq.n == m->u.map.keys->u.t.n) {
    *key = m->u.map.keys->u.t.dt;
    *val = m->type->inner->elem;
    return 0;
  }
  char desc[128];
  return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a map to tensors", ox_input_name(c, i),
                 m ? ox_value_desc(m, desc, sizeof desc) : "missing");
}

/* The data of value j of map input i: a one-element tensor of dtype dt. */
static int map_value(ox_ctx *c, int i, const ox_value *m, int64_t j, ox_dtype dt, const void **p) {
  const ox_value *v = m->u.map.values->u.seq.v[j];
  if (!v || v->kind != OX_TENSOR || v->u.t.dt != dt || v->u.t.n != 1)
    return ox_fail(c->err, OX_EINPUT, "value %lld of the map %s is not a single %s", (long long)j,
                   ox_input_name(c, i), ox_dtypes[dt].onnx_name);
  *p = v->u.t.data;
  return 0;
}

/* ---- CastMap ---- */

/* One value converted for CastMap as onnxruntime does (std::stof, std::stoll,
 * std::to_string: "%f"); a string that is not a number is an error. */
static int cast_one(ox_ctx *c, ox_dtype from, const void *src, ox_dtype to, void *dst) {
  if (from == OX_STRING && to != OX_STRING) {
    const char *p = ((const ox_str *)src)->p ? ((const ox_str *)src)->p : "";
    char *end;
    errno = 0;
    if (to == OX_FLOAT) *(float *)dst = strtof(p, &end);
    else *(int64_t *)dst = strtoll(p, &end, 10);
    if (end == p || errno == ERANGE)
      return ox_fail(c->err, OX_EINPUT, "map value '%s' is not a%s %s", p,
                     to == OX_FLOAT ? "" : "n", to == OX_FLOAT ? "float" : "int64");
    return 0;
  }
  if (from == OX_STRING || to == OX_FLOAT) { /* string -> string, float -> float */
    memcpy(dst, src, ox_dtype_size(to));
    return 0;
  }
  float f = *(const float *)src;
  if (to == OX_STRING) {
    char *p = ox_sprintf(c->a, "%f", (double)f);
    if (!p) return ox_oom(c->err, NULL);
    *(ox_str *)dst = (ox_str){p, (int64_t)strlen(p)};
  } else {
    if (!(f >= -0x1p63f && f < 0x1p63f))
      return ox_fail(c->err, OX_EINPUT, "map value %g does not fit int64", (double)f);
    *(int64_t *)dst = (int64_t)f;
  }
  return 0;
}

/* X: map(int64, string | float) -> Y: (1, n), the values in ascending key
 * order: DENSE, n = the map's size; SPARSE, n = max_map and value k at
 * position k (keys must be in [0, max_map)), the rest padded with 0 (or
 * "0.f" for strings, onnxruntime's pad). */
static int cast_map(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  ox_dtype kt, vt;
  OX_TRY(need_map(c, in, 0, &kt, &vt));
  if (!ox_dtype_is_signed_int(kt) && !ox_dtype_is_unsigned_int(kt))
    return ox_fail(c->err, OX_EINPUT, "%s has %s keys; CastMap needs int64 keys", ox_input_name(c, 0),
                   ox_dtypes[kt].onnx_name);
  const char *cast_to = ox_attr_string(c, "cast_to", "TO_FLOAT");
  const char *form = ox_attr_string(c, "map_form", "DENSE");
  int64_t max_map = ox_attr_int(c, "max_map", 1);
  if (c->err->code) return c->err->code;
  ox_dtype to = !strcmp(cast_to, "TO_FLOAT") ? OX_FLOAT : !strcmp(cast_to, "TO_STRING") ? OX_STRING
              : !strcmp(cast_to, "TO_INT64") ? OX_INT64 : OX_UNDEFINED;
  if (!to)
    return ox_fail(c->err, OX_EINPUT, "attribute cast_to = '%s'; expected TO_FLOAT, TO_STRING or TO_INT64",
                   cast_to);
  int sparse = !strcmp(form, "SPARSE");
  if (!sparse && strcmp(form, "DENSE"))
    return ox_fail(c->err, OX_EINPUT, "attribute map_form = '%s'; expected DENSE or SPARSE", form);
  if (sparse && max_map <= 0)
    return ox_fail(c->err, OX_EINPUT, "attribute max_map = %lld; it must be positive with SPARSE",
                   (long long)max_map);

  const ox_value *m = in[0];
  const ox_tensor *keys = &m->u.map.keys->u.t;
  keyset ks; /* the entries in key order */
  OX_TRY(keyset_make(c, kt, keys->n, keys->data, &ks));
  int64_t dims[2] = {1, sparse ? max_map : keys->n};
  OX_TRY(ox_tensor_new(c->a, to, 2, dims, &out[0], c->err));
  char *y = out[0]->u.t.data;
  size_t es = ox_dtype_size(to);
  if (sparse) { /* the pads first */
    static const ox_str pad = {"0.f", 3};
    if (to == OX_STRING)
      for (int64_t i = 0; i < max_map; i++) ((ox_str *)y)[i] = pad;
  }
  for (int64_t j = 0; j < ks.n; j++) {
    int64_t key = ks.e[j].k.i, slot = j;
    if (sparse) {
      if (key < 0 || key >= max_map)
        return ox_fail(c->err, OX_EINPUT, "map key %lld is out of range [0, %lld) (max_map) for SPARSE",
                       (long long)key, (long long)max_map);
      slot = key;
    }
    const void *v;
    OX_TRY(map_value(c, 0, m, ks.e[j].pos, vt, &v));
    OX_TRY(cast_one(c, vt, v, to, y + (size_t)slot * es));
  }
  return 0;
}

/* ---- CategoryMapper ---- */

/* string -> int64 through cats_strings -> cats_int64s (else default_int64),
 * int64 -> string the other way (else default_string); same shape. */
static int category_mapper(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  const ox_tensor *x = &in[0]->u.t;
  col ints, strs;
  OX_TRY(col_attr(c, "cats_int64s", OX_ATTR_INTS, &ints));
  OX_TRY(col_attr(c, "cats_strings", OX_ATTR_STRINGS, &strs));
  int64_t def_i = ox_attr_int(c, "default_int64", -1);
  const char *def_s = ox_attr_string(c, "default_string", "_Unused");
  if (c->err->code) return c->err->code;
  if (!ints.p || !strs.p)
    return ox_fail(c->err, OX_EINPUT, "attributes 'cats_int64s' and 'cats_strings' are both required");
  ox_str ds = {def_s, (int64_t)strlen(def_s)};
  return x->dt == OX_STRING ? lookup_map(c, x, &strs, &ints, &def_i, &out[0])
                            : lookup_map(c, x, &ints, &strs, &ds, &out[0]);
}

/* ---- DictVectorizer ---- */

/* X: map(K, V) -> Y: (1, len(vocabulary)) of V: the value of each vocabulary
 * key, 0 (or "") where the map lacks it. Map keys outside the vocabulary are
 * ignored, as onnxruntime and the reference do. */
static int dict_vectorizer(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  ox_dtype kt, vt;
  OX_TRY(need_map(c, in, 0, &kt, &vt));
  col vocab[2];
  const col *v;
  OX_TRY(col_attr(c, "string_vocabulary", OX_ATTR_STRINGS, &vocab[0]));
  OX_TRY(col_attr(c, "int64_vocabulary", OX_ATTR_INTS, &vocab[1]));
  OX_TRY(one_of(c, 2, vocab, &v));
  if ((kt == OX_STRING) != (v->dt == OX_STRING))
    return ox_fail(c->err, OX_EINPUT, "%s has %s keys; the vocabulary '%s' does not match",
                   ox_input_name(c, 0), ox_dtypes[kt].onnx_name, v->name);
  const ox_value *m = in[0];
  const ox_tensor *keys = &m->u.map.keys->u.t;
  keyset ks;
  OX_TRY(keyset_make(c, kt, keys->n, keys->data, &ks));
  int64_t dims[2] = {1, v->n};
  OX_TRY(ox_tensor_new(c->a, vt, 2, dims, &out[0], c->err));
  size_t es = ox_dtype_size(vt);
  char *y = out[0]->u.t.data;
  for (int64_t i = 0; i < v->n; i++) {
    kent k;
    key_at(ks.kind, v->dt, v->p, i, &k);
    int64_t pos = keyset_find(&ks, &k); /* a repeated map key: the last one, as in a dict */
    const void *val;
    if (pos < 0) {
      if (vt == OX_STRING) ((ox_str *)y)[i] = (ox_str){"", 0};
      continue;
    }
    OX_TRY(map_value(c, 0, m, pos, vt, &val));
    memcpy(y + (size_t)i * es, val, es);
  }
  return 0;
}

/* ---- FeatureVectorizer ---- */

/* Inputs X_i: (N, C_i...) (1-D: (1, C_i)), each seen as (N, prod of the rest)
 * -> Y: float (N, sum of inputdimensions): input i fills inputdimensions[i]
 * columns, cut or padded with zeros, as onnxruntime does. */
static int feature_vectorizer(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int64_t nd;
  const int64_t *dimsz = ox_attr_ints(c, "inputdimensions", &nd);
  if (c->err->code) return c->err->code;
  if (nd != nin)
    return ox_fail(c->err, OX_EINPUT, "attribute inputdimensions has %lld values for %d inputs; it "
                   "needs one per input", (long long)(nd < 0 ? 0 : nd), nin);
  int64_t total = 0, N = -1;
  for (int i = 0; i < nin; i++) {
    OX_TRY(ox_need_tensor(c, in[i], i));
    if (dimsz[i] < 0 || dimsz[i] > INT32_MAX)
      return ox_fail(c->err, OX_EINPUT, "inputdimensions[%d] = %lld is out of range", i, (long long)dimsz[i]);
    total += dimsz[i];
    const ox_tensor *x = &in[i]->u.t;
    int64_t n = x->rank >= 2 ? x->dims[0] : 1;
    if (N >= 0 && n != N)
      return ox_fail(c->err, OX_EINPUT, "%s has %lld rows but input 0 has %lld; they must agree",
                     ox_input_name(c, i), (long long)n, (long long)N);
    N = n;
  }
  int64_t dims[2] = {N, total};
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, 2, dims, &out[0], c->err));
  float *y = out[0]->u.t.data;
  int64_t off = 0;
  for (int i = 0; i < nin; i++) {
    const ox_tensor *x = &in[i]->u.t;
    int64_t C = N ? x->n / N : 0, w = C < dimsz[i] ? C : dimsz[i];
    for (int64_t r = 0; r < N; r++)
      for (int64_t j = 0; j < w; j++)
        y[r * total + off + j] = (float)ox_load_f64(x->dt, x->data, r * C + j);
    off += dimsz[i];
  }
  return 0;
}

/* ---- Imputer ---- */

/* X: (..., C) -> Y: x, with each element equal to the replaced value (any
 * NaN when that is NaN) set to imputed[j] of its column j (or imputed[0]).
 * Floats use the _float/_floats attributes, integers the _int64/_int64s ones. */
static int imputer(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  const ox_tensor *x = &in[0]->u.t;
  int isf = ox_dtype_is_float(x->dt);
  col fv, iv;
  OX_TRY(col_attr(c, "imputed_value_floats", OX_ATTR_FLOATS, &fv));
  OX_TRY(col_attr(c, "imputed_value_int64s", OX_ATTR_INTS, &iv));
  double rf = ox_attr_float(c, "replaced_value_float", 0.0f);
  int64_t ri = ox_attr_int(c, "replaced_value_int64", 0);
  if (c->err->code) return c->err->code;
  const col *v = isf ? &fv : &iv;
  if (!v->p || !v->n)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' is required for %s input", v->name,
                   ox_dtypes[x->dt].onnx_name);
  int64_t C = x->rank ? x->dims[x->rank - 1] : 1;
  if (v->n != 1 && v->n != C)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' has %lld values; it needs 1 or %lld (the last "
                   "dimension of %s)", v->name, (long long)v->n, (long long)C, ox_input_name(c, 0));
  ox_value *y;
  OX_TRY(ox_value_copy(c->a, in[0], &y, c->err));
  for (int64_t i = 0; i < x->n; i++) {
    int64_t j = v->n == 1 ? 0 : i % C;
    if (isf) {
      double e = ox_load_f64(x->dt, x->data, i);
      if (e == rf || (isnan(rf) && isnan(e)))
        ox_store_f64(x->dt, y->u.t.data, i, ((const float *)v->p)[j]);
    } else if (ox_load_i64(x->dt, x->data, i) == ri) {
      ox_store_i64(x->dt, y->u.t.data, i, ((const int64_t *)v->p)[j]);
    }
  }
  out[0] = y;
  return 0;
}

/* ---- LabelEncoder ---- */

/* LabelEncoder-1: string -> int64 by position in classes_strings (else
 * default_int64), int64 -> string by index (else default_string). */
static int label_encoder_1(ox_ctx *c, const ox_tensor *x, ox_value **out) {
  col cls;
  OX_TRY(col_attr(c, "classes_strings", OX_ATTR_STRINGS, &cls));
  int64_t def_i = ox_attr_int(c, "default_int64", -1);
  const char *def_s = ox_attr_string(c, "default_string", "_Unused");
  if (c->err->code) return c->err->code;
  if (!cls.p) return ox_fail(c->err, OX_EINPUT, "attribute 'classes_strings' is required");
  int64_t *pos = ox_alloc_array(c->a, cls.n ? cls.n : 1, sizeof *pos);
  if (!pos) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < cls.n; i++) pos[i] = i;
  col idx = {OX_INT64, cls.n, pos, "classes_strings"};
  ox_str ds = {def_s, (int64_t)strlen(def_s)};
  return x->dt == OX_STRING ? lookup_map(c, x, &cls, &idx, &def_i, out)
                            : lookup_map(c, x, &idx, &cls, &ds, out);
}

/* LabelEncoder-2 and -4: keys_* -> values_* (lists, or -4's tensors). The
 * default: default_tensor (-4) if given, else the default_* attribute of the
 * values' type, else "_Unused", -1 or -0.0 by that type. */
static int label_encoder(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  const ox_tensor *x = &in[0]->u.t;
  if (c->version < 2) return label_encoder_1(c, x, &out[0]);
  int nk = c->version >= 4 ? 4 : 3;
  col ks[4], vs[4];
  const col *keys, *vals;
  static const char *const kn[] = {"keys_strings", "keys_int64s", "keys_floats", "keys_tensor"};
  static const char *const vn[] = {"values_strings", "values_int64s", "values_floats", "values_tensor"};
  static const ox_attr_type at[] = {OX_ATTR_STRINGS, OX_ATTR_INTS, OX_ATTR_FLOATS, OX_ATTR_TENSOR};
  for (int i = 0; i < nk; i++) {
    OX_TRY(col_attr(c, kn[i], at[i], &ks[i]));
    OX_TRY(col_attr(c, vn[i], at[i], &vs[i]));
  }
  OX_TRY(one_of(c, nk, ks, &keys));
  OX_TRY(one_of(c, nk, vs, &vals));
  static const uint64_t allowed = OX_T(STRING) | OX_T(INT64) | OX_T(FLOAT) | OX_T(INT32) |
                                  OX_T(INT16) | OX_T(DOUBLE);
  const col *kv[] = {keys, vals};
  for (int i = 0; i < 2; i++)
    if (!(allowed & (UINT64_C(1) << kv[i]->dt)))
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' is a %s tensor; expected string, int64, "
                     "float, int32, int16 or double", kv[i]->name, ox_dtypes[kv[i]->dt].onnx_name);
  if (x->dt != keys->dt) return dtype_mismatch(c, x, keys);

  union { double f; int64_t i; ox_str s; } def = {0};
  const ox_attr *dt = c->version >= 4 ? ox_attr_find(c, "default_tensor") : NULL;
  if (dt) {
    if (dt->type != OX_ATTR_TENSOR || dt->t->u.t.dt != vals->dt || dt->t->u.t.n != 1)
      return ox_fail(c->err, OX_EINPUT, "attribute default_tensor must be one %s value, as the values",
                     ox_dtypes[vals->dt].onnx_name);
    memcpy(&def, dt->t->u.t.data, ox_dtype_size(vals->dt));
  } else if (vals->dt == OX_STRING) {
    const char *s = ox_attr_string(c, "default_string", "_Unused");
    def.s = (ox_str){s, (int64_t)strlen(s)};
  } else if (ox_dtype_is_float(vals->dt)) {
    ox_store_f64(vals->dt, &def, 0, vals->dt == OX_FLOAT ? ox_attr_float(c, "default_float", -0.0f) : -0.0);
  } else {
    ox_store_i64(vals->dt, &def, 0, vals->dt == OX_INT64 ? ox_attr_int(c, "default_int64", -1) : -1);
  }
  if (c->err->code) return c->err->code;
  return lookup_map(c, x, keys, vals, &def, &out[0]);
}

/* ---- OneHotEncoder ---- */

/* X: any shape -> Y: float (X's shape..., len(cats)) with a 1 at the position
 * of each element in cats_strings (string X) or cats_int64s (numbers, cast to
 * int64 by truncation). zeros = 0 makes an unknown category an error. */
static int one_hot_encoder(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  const ox_tensor *x = &in[0]->u.t;
  col cs, ci;
  OX_TRY(col_attr(c, "cats_strings", OX_ATTR_STRINGS, &cs));
  OX_TRY(col_attr(c, "cats_int64s", OX_ATTR_INTS, &ci));
  int64_t zeros = ox_attr_int(c, "zeros", 1);
  if (c->err->code) return c->err->code;
  const col *cats = x->dt == OX_STRING ? &cs : &ci;
  if (!cats->p || !cats->n)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' is required for %s input", cats->name,
                   ox_dtypes[x->dt].onnx_name);
  if (x->rank >= OX_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "%s has too many dimensions",
                                             ox_input_name(c, 0));
  keyset ks;
  OX_TRY(keyset_make(c, cats->dt, cats->n, cats->p, &ks));
  int64_t *dims = ox_alloc_array(c->a, x->rank + 1, sizeof *dims);
  if (!dims) return ox_oom(c->err, NULL);
  if (x->rank) memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
  dims[x->rank] = cats->n;
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, x->rank + 1, dims, &out[0], c->err));
  float *y = out[0]->u.t.data;
  for (int64_t i = 0; i < x->n; i++) {
    kent k;
    int64_t pos = -1;
    if (x->dt == OX_STRING || !ox_dtype_is_float(x->dt)) {
      key_at(ks.kind, x->dt, x->data, i, &k);
      pos = keyset_find(&ks, &k);
    } else {
      double f = ox_load_f64(x->dt, x->data, i);
      k.k.i = (int64_t)(f >= -0x1p63 && f < 0x1p63 ? f : 0);
      if (f >= -0x1p63 && f < 0x1p63) pos = keyset_find(&ks, &k);
    }
    if (pos >= 0) y[i * cats->n + pos] = 1.0f;
    else if (!zeros)
      return ox_fail(c->err, OX_EINPUT, "element %lld of %s is not a category and zeros = 0",
                     (long long)i, ox_input_name(c, 0));
  }
  return 0;
}

/* ---- ZipMap ---- */

/* X: float (N, C) or (C,) (N = 1) -> a sequence of N maps, map n = {label_j:
 * X[n, j]}, the labels in attribute order. The maps share one key tensor
 * and their values are scalar views of X (values are never written). */
static int zipmap(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  OX_TRY(ox_need_tensor(c, in[0], 0));
  const ox_tensor *x = &in[0]->u.t;
  col labels[2];
  const col *lab;
  OX_TRY(col_attr(c, "classlabels_strings", OX_ATTR_STRINGS, &labels[0]));
  OX_TRY(col_attr(c, "classlabels_int64s", OX_ATTR_INTS, &labels[1]));
  OX_TRY(one_of(c, 2, labels, &lab));
  if (x->rank < 1 || x->rank > 2) {
    char sb[256];
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s; ZipMap takes (N, C) or (C,)", ox_input_name(c, 0),
                   ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  }
  int64_t N = x->rank == 2 ? x->dims[0] : 1, C = x->dims[x->rank - 1];
  if (C != lab->n)
    return ox_fail(c->err, OX_EINPUT, "%s has %lld columns but '%s' has %lld labels; they must agree",
                   ox_input_name(c, 0), (long long)C, lab->name, (long long)lab->n);
  ox_value *keys;
  OX_TRY(ox_tensor_new(c->a, lab->dt, 1, &C, &keys, c->err));
  if (C) memcpy(keys->u.t.data, lab->p, (size_t)C * ox_dtype_size(lab->dt));
  const ox_type *ft = ox_type_tensor(OX_FLOAT), *mt = ox_type_map(c->a, lab->dt, ft);
  if (!mt) return ox_oom(c->err, NULL);
  OX_TRY(ox_seq_new(c->a, mt, N, &out[0], c->err));
  ox_value *maps = ox_alloc_array(c->a, N ? N : 1, sizeof *maps);
  ox_value *scal = ox_alloc_array(c->a, N * C > 0 ? N * C : 1, sizeof *scal);
  if (!maps || !scal) return ox_oom(c->err, NULL);
  static int64_t no_dims[1];
  const float *xs = x->data;
  for (int64_t n = 0; n < N; n++) {
    ox_value *vals;
    OX_TRY(ox_seq_new(c->a, ft, C, &vals, c->err));
    for (int64_t j = 0; j < C; j++) {
      ox_value *s = &scal[n * C + j];
      s->kind = OX_TENSOR;
      s->u.t = (ox_tensor){OX_FLOAT, 0, no_dims, 1, (void *)(xs + n * C + j)};
      vals->u.seq.v[j] = s;
    }
    maps[n].kind = OX_MAP;
    maps[n].type = mt;
    maps[n].u.map.keys = keys;
    maps[n].u.map.values = vals;
    out[0]->u.seq.v[n] = &maps[n];
  }
  return 0;
}

#define D "ai.onnx.ml"
#define TS_FDI (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(INT64) | OX_T(INT32))
const ox_kernel ox_ml_encode_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { D, "ArrayFeatureExtractor", 1, 0, TS_FDI | OX_T(STRING),      2,  2, array_feature_extractor,
    "" },
  { D, "Binarizer",             1, 0, TS_FDI,                     1,  1, binarizer,
    "threshold:float=0.0" },
  { D, "CastMap",               1, 0, OX_T(FLOAT) | OX_T(STRING), 1,  1, cast_map,
    "cast_to:string=TO_FLOAT,map_form:string=DENSE,max_map:int=1" },
  { D, "CategoryMapper",        1, 0, OX_T(STRING) | OX_T(INT64), 1,  1, category_mapper,
    "cats_int64s:ints,cats_strings:strings,default_int64:int=-1,default_string:string=_Unused" },
  { D, "DictVectorizer",        1, 0, OX_T(STRING) | OX_T(INT64) | OX_T(FLOAT) | OX_T(DOUBLE), 1,  1, dict_vectorizer,
    "int64_vocabulary:ints,string_vocabulary:strings" },
  { D, "FeatureVectorizer",     1, 0, TS_FDI,                     1, -1, feature_vectorizer,
    "inputdimensions:ints" },
  { D, "Imputer",               1, 0, TS_FDI,                     1,  1, imputer,
    "imputed_value_floats:floats,imputed_value_int64s:ints,replaced_value_float:float=0.0,"
    "replaced_value_int64:int=0" },
  { D, "LabelEncoder",          1, 0, OX_T(STRING) | OX_T(INT64), 1,  1, label_encoder,
    "classes_strings:strings,default_int64:int=-1,default_string:string=_Unused" },
  { D, "LabelEncoder",          2, 0, OX_T(STRING) | OX_T(INT64) | OX_T(FLOAT), 1,  1, label_encoder,
    "default_float:float=-0.0,default_int64:int=-1,default_string:string=_Unused,"
    "keys_floats:floats,keys_int64s:ints,keys_strings:strings,values_floats:floats,"
    "values_int64s:ints,values_strings:strings" },
  { D, "LabelEncoder",          4, 0, OX_T(STRING) | OX_T(INT64) | OX_T(FLOAT) | OX_T(INT32) |                                                     OX_T(INT16) | OX_T(DOUBLE), 1,  1, label_encoder,
    "default_float:float=-0.0,default_int64:int=-1,default_string:string=_Unused,"
    "default_tensor:tensor,keys_floats:floats,keys_int64s:ints,keys_strings:strings,"
    "keys_tensor:tensor,values_floats:floats,values_int64s:ints,values_strings:strings,"
    "values_tensor:tensor" },
  { D, "OneHotEncoder",         1, 0, TS_FDI | OX_T(STRING),      1,  1, one_hot_encoder,
    "cats_int64s:ints,cats_strings:strings,zeros:int=1" },
  { D, "ZipMap",                1, 0, OX_T(FLOAT),                1,  1, zipmap,
    "classlabels_int64s:ints,classlabels_strings:strings" },
  {0},
};
