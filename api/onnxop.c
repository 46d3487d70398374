/* api/onnxop.c: the public API (include/onnxop.h) over core/, io/ and proto/.
 *
 * Ownership: every model and value handle points to a holder, a reference-
 * counted arena. A value shares its holder with the values it came with (the
 * outputs of one run, the elements taken out of a sequence); a run's holder
 * also holds the holders of the model and of the inputs, since an output may
 * be an initializer or an input itself (Identity). A holder goes when the
 * last handle on it does. Nothing here is process-wide: a run has its own
 * options (core/eval.h ox_run_opts), memory account (core/arena.h
 * ox_memctx) and kernel thread count, all set on the calling thread for the
 * run's duration. The onnxop command goes through the same bodies, by the
 * entries api/api.h declares. */
#define _GNU_SOURCE /* fopencookie: the trace handed to a write function */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/compare.h"
#include "../core/load.h"
#include "../core/ox.h"
#include "../core/threads.h"
#include "../include/onnxop.h"
#include "../io/io.h"
#include "../proto/proto.h"
#include "api.h"

/* ---- errors ---- */

struct onnxop_error {
  int code;
  const char *msg;
};
/* what an error that could not be made says (onnxop_error_free skips it) */
static onnxop_error oom_error = {ONNXOP_ERR_NOMEM, "out of memory"};

const char *onnxop_version(void) { return OX_VERSION; }
int onnxop_error_code(const onnxop_error *e) { return e ? e->code : ONNXOP_OK; }
const char *onnxop_error_message(const onnxop_error *e) { return e ? e->msg : ""; }
int onnxop_error_exit_status(const onnxop_error *e) {
  return !e ? 0 : e->code == ONNXOP_ERR_NOMEM || e->code == ONNXOP_ERR_CANCELLED ? 1 : e->code;
}

void onnxop_error_free(onnxop_error *e) {
  if (!e || e == &oom_error) return;
  free((char *)e->msg);
  free(e);
}

/* Hand e (code and message, with `pre` in front when not NULL) to the
 * caller; returns the code. */
static int give(onnxop_error **err, const ox_err *e, const char *pre) {
  int code = e->code ? e->code : ONNXOP_ERR_INPUT;
  if (!err) return code;
  onnxop_error_free(*err);
  *err = &oom_error;
  onnxop_error *x = ox_heap_malloc(sizeof *x);
  size_t lp = pre ? strlen(pre) + 2 : 0, lm = strlen(e->msg);
  char *msg = x ? ox_heap_malloc(lp + lm + 1) : NULL;
  if (!msg) {
    free(x);
    return code;
  }
  if (pre) snprintf(msg, lp + 1, "%s: ", pre);
  memcpy(msg + lp, e->msg, lm + 1);
  x->code = code;
  x->msg = msg;
  *err = x;
  return code;
}

static int failf(onnxop_error **err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(onnxop_error **err, int code, const char *fmt, ...) {
  ox_err e = {code, ""};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.msg, sizeof e.msg, fmt, ap);
  va_end(ap);
  return give(err, &e, NULL);
}

static int oom(onnxop_error **err) {
  ox_err e = {0};
  ox_oom(&e, NULL);
  return give(err, &e, NULL);
}

/* ---- holders ---- */

typedef struct holder {
  ox_arena *a;
  ox_memctx mem;        /* a run's own account (the arena counts against it) */
  int refs;             /* handles and holders holding it (atomic) */
  int ndeps;
  struct holder **deps; /* what its values may share */
} holder;

/* A holder with a fresh arena; own: counted against an account of its own
 * with that limit (0: the default), else against the thread's. */
static holder *holder_new(int own, size_t limit) {
  holder *h = ox_heap_calloc(1, sizeof *h);
  if (!h) return NULL;
  h->mem.limit = limit;
  h->mem.source = "max_memory"; /* the run options' name for the limit */
  ox_memctx *was = own ? ox_mem_use(&h->mem) : NULL;
  h->a = ox_arena_new();
  if (own) ox_mem_use(was);
  if (!h->a) {
    free(h);
    return NULL;
  }
  return h;
}

static void hold(holder *h) { __atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED); }

static void drop(holder *h) {
  if (!h || __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL)) return;
  ox_arena_free(h->a);
  for (int i = 0; i < h->ndeps; i++) drop(h->deps[i]);
  free(h->deps);
  free(h);
}

/* A holder no handle took yet (a failure on the way) */
static void discard(holder *h) {
  hold(h);
  drop(h);
}

/* ---- values ---- */

struct onnxop_value {
  holder *h;
  ox_value *v;
  const char *name; /* stored in the file it came from, or NULL */
};

static int handle(holder *h, ox_value *v, const char *name, onnxop_value **out, onnxop_error **err) {
  onnxop_value *x = ox_heap_malloc(sizeof *x);
  if (!x) return oom(err);
  x->h = h;
  x->v = v;
  x->name = name;
  hold(h);
  *out = x;
  return 0;
}

/* a new value in a new holder, or the error (the holder discarded) */
static int new_value(holder *h, int rc, ox_err *e, ox_value *v, const char *name, const char *pre,
                     onnxop_value **out, onnxop_error **err) {
  if (!rc) rc = handle(h, v, name, out, err);
  else give(err, e, pre);
  if (rc) discard(h);
  return rc;
}

void onnxop_value_free(onnxop_value *v) {
  if (!v) return;
  drop(v->h);
  free(v);
}

void onnxop_values_free(onnxop_value **v, int n) {
  if (!v) return;
  for (int i = 0; i < n; i++) onnxop_value_free(v[i]);
  free(v);
}

const char *onnxop_dtype_name(int dtype) { return ox_dtype_valid(dtype) ? ox_dtypes[dtype].onnx_name : NULL; }
size_t onnxop_dtype_size(int dtype) {
  return ox_dtype_valid(dtype) && dtype != OX_STRING ? ox_dtype_size((ox_dtype)dtype) : 0;
}

/* the checks tensor_new and tensor_wrap share; 0, or the error */
static int check_shape(int dtype, int rank, const int64_t *dims, onnxop_value **out, onnxop_error **err) {
  if (!out) return failf(err, ONNXOP_ERR_USAGE, "out is NULL");
  *out = NULL;
  if (!ox_dtype_valid(dtype)) return failf(err, ONNXOP_ERR_USAGE, "%d is not an element type (1 to %d)", dtype, OX_DTYPE_MAX - 1);
  if (rank < 0 || rank > OX_MAX_RANK) return failf(err, ONNXOP_ERR_USAGE, "rank %d is not from 0 to %d", rank, OX_MAX_RANK);
  if (rank && !dims) return failf(err, ONNXOP_ERR_USAGE, "dims is NULL for rank %d", rank);
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0) return failf(err, ONNXOP_ERR_USAGE, "dim %d is %lld (dims are >= 0)", i, (long long)dims[i]);
  return 0;
}

/* The types stored one element a byte that hold fewer values than a byte
 * does: an element outside them (a bool of 2, an int4 of 100) would be a
 * value no kernel expects. 0, or the error naming the first. */
static int check_elements(int dtype, const void *data, int64_t n, onnxop_error **err) {
  int lo = 0, hi;
  switch (dtype) {
  case OX_BOOL: hi = 1; break;
  case OX_UINT4: case OX_FLOAT4E2M1: hi = 15; break;
  case OX_INT4: lo = -8, hi = 7; break;
  case OX_UINT2: hi = 3; break;
  case OX_INT2: lo = -2, hi = 1; break;
  default: return 0;
  }
  int sign = dtype == OX_INT4 || dtype == OX_INT2;
  for (int64_t i = 0; data && i < n; i++) {
    int x = sign ? ((const int8_t *)data)[i] : ((const uint8_t *)data)[i];
    if (x < lo || x > hi)
      return failf(err, ONNXOP_ERR_USAGE, "element %lld is %d; a %s holds %d to %d (one a byte)", (long long)i, x,
                   ox_dtypes[dtype].onnx_name, lo, hi);
  }
  return 0;
}

int onnxop_tensor_new(int dtype, int rank, const int64_t *dims, const void *data, onnxop_value **out,
                      onnxop_error **err) {
  OX_TRY(check_shape(dtype, rank, dims, out, err));
  int64_t n = ox_numel(rank, dims, onnxop_dtype_size(dtype));
  if (n >= 0) OX_TRY(check_elements(dtype, data, n, err));
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *v = NULL;
  int rc = ox_tensor_new(h->a, (ox_dtype)dtype, rank, dims, &v, &e);
  if (!rc && data && dtype == OX_STRING) {
    const char *const *s = data;
    ox_str *d = v->u.t.data;
    for (int64_t i = 0; i < v->u.t.n && !rc; i++) {
      if (!s[i]) rc = ox_fail(&e, OX_EUSAGE, "string %lld is NULL", (long long)i);
      else if (!(d[i].p = ox_strdup(h->a, s[i]))) rc = ox_oom(&e, NULL);
      else d[i].n = (int64_t)strlen(s[i]);
    }
  } else if (!rc && data && v->u.t.n) {
    memcpy(v->u.t.data, data, (size_t)v->u.t.n * ox_dtype_size((ox_dtype)dtype));
  }
  return new_value(h, rc, &e, v, NULL, NULL, out, err);
}

int onnxop_tensor_wrap(int dtype, int rank, const int64_t *dims, const void *data, onnxop_value **out,
                       onnxop_error **err) {
  OX_TRY(check_shape(dtype, rank, dims, out, err));
  if (dtype == OX_STRING)
    return failf(err, ONNXOP_ERR_USAGE, "a string tensor cannot wrap the caller's memory (use onnxop_tensor_new)");
  size_t size = ox_dtype_size((ox_dtype)dtype), align = size > 8 ? 8 : size;
  int64_t n = ox_numel(rank, dims, size);
  if (n < 0) return failf(err, ONNXOP_ERR_INPUT, "the shape's element count overflows");
  if (n && !data) return failf(err, ONNXOP_ERR_USAGE, "data is NULL for %lld elements", (long long)n);
  if ((uintptr_t)data % align)
    return failf(err, ONNXOP_ERR_USAGE, "data is not aligned for %s (%zu bytes)", ox_dtypes[dtype].onnx_name, align);
  OX_TRY(check_elements(dtype, data, n, err));
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_value *v = ox_alloc(h->a, sizeof *v);
  int64_t *d = ox_alloc_array(h->a, rank ? rank : 1, sizeof *d);
  ox_err e = {0};
  int rc = v && d ? 0 : ox_oom(&e, NULL);
  if (!rc) {
    if (rank) memcpy(d, dims, (size_t)rank * sizeof *d);
    v->kind = OX_TENSOR;
    v->u.t = (ox_tensor){(ox_dtype)dtype, rank, d, n, (void *)data};
  }
  return new_value(h, rc, &e, v, NULL, NULL, out, err);
}

int onnxop_tensor_new_strings(int rank, const int64_t *dims, const char *const *s, const size_t *len,
                              onnxop_value **out, onnxop_error **err) {
  OX_TRY(check_shape(OX_STRING, rank, dims, out, err));
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *v = NULL;
  int rc = ox_tensor_new(h->a, OX_STRING, rank, dims, &v, &e);
  ox_str *d = rc ? NULL : v->u.t.data;
  for (int64_t i = 0; s && !rc && i < v->u.t.n; i++) {
    size_t n = len ? len[i] : s[i] ? strlen(s[i]) : 0;
    if (!s[i] && n) rc = ox_fail(&e, OX_EUSAGE, "string %lld is NULL (its length %zu)", (long long)i, n);
    else if (!(d[i].p = ox_strndup(h->a, s[i], n))) rc = ox_oom(&e, "string %lld (%zu bytes)", (long long)i, n);
    else d[i].n = (int64_t)n;
  }
  return new_value(h, rc, &e, v, NULL, NULL, out, err);
}

/* "dir/x.pb" -> "dir", "x.pb" -> "." (in the arena) */
static const char *dir_of(ox_arena *a, const char *path) {
  const char *s = strrchr(path, '/');
  return !s ? "." : s == path ? "/" : ox_strndup(a, path, (size_t)(s - path));
}

/* type_str parsed into *t (NULL for NULL); 0 or the error */
static int want_type(ox_arena *a, const char *type_str, const ox_type **t, ox_err *e) {
  char why[256] = "";
  *t = NULL;
  if (!type_str) return 0;
  if ((*t = ox_type_parse(a, type_str, 0, why, sizeof why))) return 0;
  return *why ? ox_fail(e, OX_EUSAGE, "bad type '%s': %s", type_str, why) : ox_oom(e, NULL);
}

/* 0, or the error when v is not of type t (NULL: any) */
static int check_fits(const ox_value *v, const ox_type *t, ox_err *e) {
  char got[160], want[160];
  if (!t || ox_value_fits(v, t)) return 0;
  return ox_fail(e, OX_EINPUT, "the value is %s, not %s", ox_value_desc(v, got, sizeof got),
                 ox_type_str(t, want, sizeof want));
}

/* Decode len bytes (NUL after them) of format f as type t (NULL: any) */
static int decode(ox_arena *a, const uint8_t *p, size_t len, int f, const ox_type *t, ox_value **v, const char **name,
                  ox_err *e) {
  if (f == ONNXOP_FORMAT_AUTO) {
    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\n' || p[i] == '\t' || p[i] == '\r')) i++;
    f = i < len && p[i] == '{' ? ONNXOP_FORMAT_JSON : len >= 6 && !memcmp(p, "\x93NUMPY", 6) ? ONNXOP_FORMAT_NPY
                                                                                            : ONNXOP_FORMAT_PB;
  }
  int rc;
  switch (f) {
  case ONNXOP_FORMAT_PB: rc = ox_pb_decode(a, p, len, t, NULL, v, name, e); break;
  case ONNXOP_FORMAT_JSON: rc = ox_json_decode(a, (const char *)p, len, t, v, name, e); break;
  case ONNXOP_FORMAT_NPY: rc = ox_npy_decode(a, p, len, t, v, e); break;
  default: return ox_fail(e, OX_EUSAGE, "unknown format %d (pb, json or npy: 1, 2, 3)", f);
  }
  return rc ? rc : check_fits(*v, t, e);
}

_Static_assert(ONNXOP_FORMAT_AUTO == (int)OX_FMT_UNKNOWN && ONNXOP_FORMAT_PB == (int)OX_FMT_PB &&
                   ONNXOP_FORMAT_JSON == (int)OX_FMT_JSON && ONNXOP_FORMAT_NPY == (int)OX_FMT_NPY,
               "the public formats are io/io.h's (AUTO: by the extension)");

/* onnxop_value_read and ox_api_value_read: the type as a string (type_str,
 * parsed here) or as o->type */
static int read_value(const char *path, int format, const char *type_str, const ox_api_read_opts *o,
                      onnxop_value **out, onnxop_error **err) {
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *v = NULL;
  const char *name = NULL, *dir = o->basedir ? o->basedir : dir_of(h->a, path);
  const ox_type *t = o->type;
  int rc = dir ? 0 : ox_oom(&e, NULL);
  if (!rc && type_str) rc = want_type(h->a, type_str, &t, &e);
  if (!rc) rc = o->cli_forms ? ox_load_value(h->a, path, t, dir, &v, &name, &e)
                             : ox_read_value(h->a, path, (ox_format)format, t, dir, &v, &name, &e);
  if (!rc && o->check_type) rc = check_fits(v, t, &e);
  return new_value(h, rc, &e, v, name, o->with_path ? path : NULL, out, err);
}

int ox_api_value_read(const char *path, int format, const ox_api_read_opts *o, onnxop_value **out,
                      onnxop_error **err) {
  *out = NULL;
  return read_value(path, format, NULL, o, out, err);
}

int onnxop_value_read(const char *path, int format, const char *type, onnxop_value **out, onnxop_error **err) {
  if (!path || !out) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", path ? "out" : "path");
  *out = NULL;
  if (format < ONNXOP_FORMAT_AUTO || format > ONNXOP_FORMAT_NPY)
    return failf(err, ONNXOP_ERR_USAGE, "%s: unknown format %d (pb, json or npy: 1, 2, 3)", path, format);
  /* external data from the file's folder; the value must be of type */
  ox_api_read_opts o = {.check_type = 1, .with_path = 1};
  return read_value(path, format, type, &o, out, err);
}

int onnxop_value_read_buffer(const void *buf, size_t len, int format, const char *type, onnxop_value **out,
                             onnxop_error **err) {
  if (!buf || !out) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", buf ? "out" : "buf");
  *out = NULL;
  if (format < ONNXOP_FORMAT_AUTO || format > ONNXOP_FORMAT_NPY)
    return failf(err, ONNXOP_ERR_USAGE, "unknown format %d (pb, json or npy: 1, 2, 3)", format);
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *v = NULL;
  const char *name = NULL;
  const ox_type *t = NULL;
  int rc = want_type(h->a, type, &t, &e);
  uint8_t *p = rc ? NULL : len < SIZE_MAX ? ox_alloc_uninit(h->a, len + 1) : NULL; /* NUL-terminated for JSON */
  if (!rc && !p) rc = ox_oom(&e, NULL);
  if (!rc) {
    memcpy(p, buf, len);
    p[len] = 0;
    rc = decode(h->a, p, len, format, t, &v, &name, &e);
  }
  return new_value(h, rc, &e, v, name, NULL, out, err);
}

const char *onnxop_value_name(const onnxop_value *v) { return v ? v->name : NULL; }

int ox_api_value_wrap(ox_value *v, onnxop_value **out, onnxop_error **err) {
  *out = NULL;
  holder *h = holder_new(0, 0); /* holds nothing but what runs hang on it */
  if (!h) return oom(err);
  return new_value(h, 0, NULL, v, NULL, NULL, out, err);
}

const ox_value *ox_api_value(const onnxop_value *v) { return v ? v->v : NULL; }

/* elements copied into a sequence or optional of type elem (type_str, or
 * the first element's type) */
static int make_container(int seq, const char *type_str, int64_t n, const onnxop_value *const *elems,
                          onnxop_value **out, onnxop_error **err) {
  const char *what = seq ? "sequence" : "optional";
  if (!out) return failf(err, ONNXOP_ERR_USAGE, "out is NULL");
  *out = NULL;
  if (n < 0 || (n && !elems)) return failf(err, ONNXOP_ERR_USAGE, "%s: %lld elements at %p", what, (long long)n, (const void *)elems);
  for (int64_t i = 0; i < n; i++)
    if (!elems[i]) return failf(err, ONNXOP_ERR_USAGE, "%s: element %lld is NULL", what, (long long)i);
  if (!type_str && !n) return failf(err, ONNXOP_ERR_USAGE, "an empty %s needs its element type", what);
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *v = NULL;
  char why[256] = "", got[160], want[160];
  /* the element's type copied: it lives in the element's holder */
  const ox_type *t = type_str ? ox_type_parse(h->a, type_str, 0, why, sizeof why)
                              : ox_type_copy(h->a, ox_value_type(h->a, elems[0]->v));
  int rc = 0;
  if (!t) rc = *why ? ox_fail(&e, OX_EUSAGE, "%s: bad element type '%s': %s", what, type_str, why) : ox_oom(&e, NULL);
  if (!rc) rc = seq ? ox_seq_new(h->a, t, n, &v, &e) : ox_opt_new(h->a, t, NULL, &v, &e);
  for (int64_t i = 0; i < n && !rc; i++) {
    ox_value *c;
    if (!ox_value_fits(elems[i]->v, t))
      rc = ox_fail(&e, OX_EINPUT, "%s: element %lld is %s; the %s holds %s", what, (long long)i,
                   ox_value_desc(elems[i]->v, got, sizeof got), what, ox_type_str(t, want, sizeof want));
    else if (!(rc = ox_value_copy(h->a, elems[i]->v, &c, &e))) {
      if (seq) v->u.seq.v[i] = c;
      else v->u.opt = c;
    }
  }
  return new_value(h, rc, &e, v, NULL, NULL, out, err);
}

int onnxop_sequence_new(const char *elem_type, int64_t n, const onnxop_value *const *elems, onnxop_value **out,
                        onnxop_error **err) {
  return make_container(1, elem_type, n, elems, out, err);
}

int onnxop_optional_new(const char *elem_type, const onnxop_value *elem, onnxop_value **out, onnxop_error **err) {
  return make_container(0, elem_type, elem ? 1 : 0, elem ? &elem : NULL, out, err);
}

int onnxop_map_new(const onnxop_value *keys, const onnxop_value *values, onnxop_value **out, onnxop_error **err) {
  if (!out || !keys || !values) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !out ? "out" : !keys ? "keys" : "values");
  *out = NULL;
  const ox_value *k = keys->v, *vs = values->v;
  char d[160];
  if (k->kind != OX_TENSOR || k->u.t.rank != 1)
    return failf(err, ONNXOP_ERR_USAGE, "map keys must be a 1-D tensor, not %s%s", ox_value_desc(k, d, sizeof d),
                 k->kind == OX_TENSOR ? " of another rank" : "");
  ox_dtype kt = k->u.t.dt;
  /* as MapProto allows them: [u]int8 to [u]int64, or strings */
  if (kt != OX_STRING && kt != OX_INT8 && kt != OX_INT16 && kt != OX_INT32 && kt != OX_INT64 && kt != OX_UINT8 &&
      kt != OX_UINT16 && kt != OX_UINT32 && kt != OX_UINT64)
    return failf(err, ONNXOP_ERR_USAGE, "map keys must be integers or strings, not %s", ox_dtypes[kt].onnx_name);
  if (vs->kind != OX_SEQUENCE)
    return failf(err, ONNXOP_ERR_USAGE, "map values must be a sequence, not %s", ox_value_desc(vs, d, sizeof d));
  if (vs->u.seq.n != k->u.t.n)
    return failf(err, ONNXOP_ERR_USAGE, "a map of %lld keys and %lld values", (long long)k->u.t.n, (long long)vs->u.seq.n);
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *mv = ox_alloc(h->a, sizeof *mv), *kc = NULL, *vc = NULL;
  int rc = mv ? 0 : ox_oom(&e, NULL);
  if (!rc) rc = ox_value_copy(h->a, k, &kc, &e);
  if (!rc) rc = ox_value_copy(h->a, vs, &vc, &e);
  /* of the copy's value type, which lives in h as the copy does */
  const ox_type *mt = rc ? NULL : ox_type_map(h->a, kt, vc->type->inner);
  if (!rc && !mt) rc = ox_oom(&e, NULL);
  if (!rc) *mv = (ox_value){.kind = OX_MAP, .type = mt, .u.map = {kc, vc}};
  return new_value(h, rc, &e, mv, NULL, NULL, out, err);
}

int onnxop_value_copy(const onnxop_value *v, onnxop_value **out, onnxop_error **err) {
  if (!out || !v) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !out ? "out" : "the value");
  *out = NULL;
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *c = NULL;
  const char *name = v->name ? ox_strdup(h->a, v->name) : NULL;
  int rc = v->name && !name ? ox_oom(&e, NULL) : ox_value_copy(h->a, v->v, &c, &e);
  return new_value(h, rc, &e, c, name, NULL, out, err);
}

int onnxop_value_kind(const onnxop_value *v) { return v ? (int)v->v->kind : 0; }

const char *onnxop_value_type(const onnxop_value *v, char *buf, size_t n) {
  if (!buf || !n) return buf;
  buf[0] = 0;
  if (v) ox_type_str(ox_value_type(NULL, v->v), buf, n);
  return buf;
}

static const ox_tensor *tensor_of(const onnxop_value *v) {
  return v && v->v->kind == OX_TENSOR ? &v->v->u.t : NULL;
}
int onnxop_value_dtype(const onnxop_value *v) { return tensor_of(v) ? (int)tensor_of(v)->dt : 0; }
int onnxop_value_rank(const onnxop_value *v) { return tensor_of(v) ? tensor_of(v)->rank : -1; }
const int64_t *onnxop_value_dims(const onnxop_value *v) { return tensor_of(v) ? tensor_of(v)->dims : NULL; }
int64_t onnxop_value_numel(const onnxop_value *v) { return tensor_of(v) ? tensor_of(v)->n : -1; }
const void *onnxop_value_data(const onnxop_value *v) {
  const ox_tensor *t = tensor_of(v);
  return t && t->dt != OX_STRING && t->n ? t->data : NULL;
}
const char *onnxop_value_string(const onnxop_value *v, int64_t i, size_t *len) {
  const ox_tensor *t = tensor_of(v);
  if (!t || t->dt != OX_STRING || i < 0 || i >= t->n) return NULL;
  const ox_str *s = (const ox_str *)t->data + i;
  if (len) *len = (size_t)s->n;
  return s->p ? s->p : "";
}

int64_t onnxop_sequence_length(const onnxop_value *v) {
  return v && v->v->kind == OX_SEQUENCE ? v->v->u.seq.n : -1;
}
int onnxop_optional_has_element(const onnxop_value *v) {
  return v && v->v->kind == OX_OPTIONAL ? v->v->u.opt != NULL : -1;
}

/* a new handle on part of v (same holder) */
static int part(const onnxop_value *v, ox_kind kind, ox_value *(*pick)(const ox_value *, int64_t), int64_t i,
                onnxop_value **out, onnxop_error **err) {
  static const char *const names[] = {"", "a tensor", "a sequence", "an optional", "a map"};
  if (!out) return failf(err, ONNXOP_ERR_USAGE, "out is NULL");
  *out = NULL;
  if (!v || v->v->kind != kind) return failf(err, ONNXOP_ERR_USAGE, "the value is not %s", names[kind]);
  ox_value *p = pick(v->v, i);
  if (!p) return failf(err, ONNXOP_ERR_USAGE, kind == OX_SEQUENCE ? "index %lld is out of range" : "the optional is empty",
                       (long long)i);
  return handle(v->h, p, NULL, out, err);
}
static ox_value *seq_at(const ox_value *v, int64_t i) { return i >= 0 && i < v->u.seq.n ? v->u.seq.v[i] : NULL; }
static ox_value *opt_el(const ox_value *v, int64_t i) { return v->u.opt; }
static ox_value *map_keys(const ox_value *v, int64_t i) { return v->u.map.keys; }
static ox_value *map_vals(const ox_value *v, int64_t i) { return v->u.map.values; }

int onnxop_sequence_at(const onnxop_value *v, int64_t i, onnxop_value **out, onnxop_error **err) {
  return part(v, OX_SEQUENCE, seq_at, i, out, err);
}
int onnxop_optional_element(const onnxop_value *v, onnxop_value **out, onnxop_error **err) {
  return part(v, OX_OPTIONAL, opt_el, 0, out, err);
}
int onnxop_map_keys(const onnxop_value *v, onnxop_value **out, onnxop_error **err) {
  return part(v, OX_MAP, map_keys, 0, out, err);
}
int onnxop_map_values(const onnxop_value *v, onnxop_value **out, onnxop_error **err) {
  return part(v, OX_MAP, map_vals, 0, out, err);
}

/* ---- writing ---- */

static int encode(const onnxop_value *v, const char *name, int f, ox_out *o, ox_err *e) {
  switch (f) {
  case ONNXOP_FORMAT_PB: return ox_pb_write(v->v, name, o, e);
  case ONNXOP_FORMAT_JSON: return ox_json_write(v->v, name, o, e);
  case ONNXOP_FORMAT_NPY: return ox_npy_write(v->v, o, e);
  default: return ox_fail(e, OX_EUSAGE, "unknown format %d (pb, json or npy: 1, 2, 3)", f);
  }
}

static int out_status(ox_out *o, ox_err *e) {
  int er = ox_out_finish(o);
  if (!er) return 0;
  return er == ENOMEM ? ox_oom(e, NULL) : ox_fail(e, OX_EINPUT, "write error: %s", strerror(er));
}

int onnxop_value_write_buffer(const onnxop_value *v, const char *name, int format, void **buf, size_t *len,
                              onnxop_error **err) {
  if (!v || !buf || !len) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !v ? "the value" : !buf ? "buf" : "len");
  *buf = NULL;
  *len = 0;
  ox_err e = {0};
  ox_buf b = {0};
  ox_out o;
  ox_out_buf(&o, &b);
  int rc = format == ONNXOP_FORMAT_AUTO ? ox_fail(&e, OX_EUSAGE, "a buffer needs a format (pb, json or npy)")
                                        : encode(v, name, format, &o, &e);
  int rc2 = out_status(&o, &e);
  if (rc || rc2) {
    ox_buf_free(&b);
    return give(err, &e, NULL);
  }
  if (!b.p && !(b.p = ox_mem_malloc(1))) return oom(err); /* an empty encoding: still a buffer */
  *buf = b.p;
  *len = b.n;
  return 0;
}

void onnxop_free(void *p) { ox_mem_free(p); }

typedef struct { const onnxop_value *v; const char *name; int f; } write_args;
static int put_value(void *arg, ox_out *o, ox_err *e) {
  const write_args *w = arg;
  return encode(w->v, w->name, w->f, o, e);
}

int onnxop_value_write(const onnxop_value *v, const char *name, const char *path, int format, onnxop_error **err) {
  if (!v || !path) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !v ? "the value" : "path");
  ox_err e = {0};
  int f = format ? format : (int)ox_format_of(path);
  if (f < ONNXOP_FORMAT_PB || f > ONNXOP_FORMAT_NPY)
    return failf(err, ONNXOP_ERR_USAGE, "%s: cannot tell the format (use .pb, .json or .npy, or give one)", path);
  if (f == ONNXOP_FORMAT_NPY && ox_npy_can_hold(v->v, &e)) return give(err, &e, path); /* before any file */
  /* a temporary beside path, renamed over it (io/io.h) */
  write_args w = {v, name, f};
  return ox_write_file_atomic(path, put_value, &w, &e) ? give(err, &e, path) : 0;
}

/* ---- models ---- */

struct onnxop_model {
  holder *h;
  ox_model *m;
  int nin;           /* the real inputs (initializers left out) */
  int *in;           /* their indexes in m->graph->in */
  const char **in_type, **out_type;
  /* onnxop_model_value_name's list: the real inputs, the initializers, the
   * main graph's node outputs in run order; node i's output j is value
   * out_val[out_off[i] + j] (-1: an output left out) */
  int nval;
  const char **val;
  int *out_off, *out_val;
  /* ox_model_order's, found before preparing put the nodes in order */
  const char *order_note;
  int nunsorted;
};

void onnxop_model_free(onnxop_model *m) {
  if (!m) return;
  drop(m->h);
  free(m);
}

static const char *type_string(ox_arena *a, const ox_type *t, int *bad) {
  char buf[512];
  if (!t) return NULL;
  const char *s = ox_strdup(a, ox_type_str(t, buf, sizeof buf));
  if (!s) *bad = 1;
  return s;
}

/* x's value list (struct onnxop_model: nval, val, out_off, out_val) */
static int list_values(ox_arena *a, onnxop_model *x, ox_err *e) {
  const ox_graph *g = x->m->graph;
  int64_t slots = 0;
  for (int i = 0; i < g->nnode; i++) slots += g->node[i].nout;
  int64_t cap = x->nin + (int64_t)g->ninit + slots;
  if (cap >= INT32_MAX) return ox_fail(e, OX_EINPUT, "the graph has more than %d values", INT32_MAX - 1);
  x->val = ox_alloc_array(a, cap + 1, sizeof *x->val);
  x->out_off = ox_alloc_array(a, g->nnode + 1, sizeof *x->out_off);
  x->out_val = ox_alloc_array(a, slots + 1, sizeof *x->out_val);
  if (!x->val || !x->out_off || !x->out_val) return ox_oom(e, NULL);
  int k = 0, q = 0;
  for (int i = 0; i < x->nin; i++) x->val[k++] = g->in[x->in[i]].name;
  for (int i = 0; i < g->ninit; i++) x->val[k++] = g->init_name[i];
  for (int i = 0; i < g->nnode; i++) {
    x->out_off[i] = q;
    for (int j = 0; j < g->node[i].nout; j++) {
      const char *o = g->node[i].out[j];
      x->out_val[q++] = o[0] ? k : -1;
      if (o[0]) x->val[k++] = o;
    }
  }
  x->nval = k;
  return 0;
}

/* load (path) or decode (buf) into a new model; with_path: the path starts
 * the messages */
static int model_new(const char *path, const void *buf, size_t len, int with_path, const ox_run_opts *ro,
                     onnxop_model **out, onnxop_error **err) {
  if (!out || (!path && !buf)) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", out ? (path ? "buf" : "path") : "out");
  *out = NULL;
  holder *h = holder_new(0, 0);
  onnxop_model *x = h ? ox_heap_calloc(1, sizeof *x) : NULL;
  if (!x) {
    if (h) discard(h);
    return oom(err);
  }
  ox_err e = {0};
  int rc = path ? ox_model_load(h->a, path, &x->m, &e) : ox_model_decode(h->a, buf, len, NULL, &x->m, &e);
  /* whether the nodes are in order, before ox_prepare sorts them (its
   * model check, run first, refuses what the walk would stumble on) */
  if (!rc) rc = ox_model_check(h->a, x->m, &e);
  if (!rc) rc = ox_model_order(h->a, x->m, &x->order_note, &x->nunsorted, &e);
  if (!rc) rc = ox_prepare_with(h->a, x->m, ro, &e);
  if (!rc) {
    const ox_graph *g = x->m->graph;
    int bad = 0;
    x->in = ox_alloc_array(h->a, g->nin + 1, sizeof *x->in);
    x->in_type = ox_alloc_array(h->a, g->nin + 1, sizeof *x->in_type);
    x->out_type = ox_alloc_array(h->a, g->nout + 1, sizeof *x->out_type);
    if (x->in && x->in_type && x->out_type) {
      x->nin = ox_graph_real_inputs(g, x->in);
      for (int i = 0; i < x->nin; i++) x->in_type[i] = type_string(h->a, g->in[x->in[i]].type, &bad);
      for (int i = 0; i < g->nout; i++) x->out_type[i] = type_string(h->a, g->out[i].type, &bad);
    }
    if (bad || !x->in || !x->in_type || !x->out_type) rc = ox_oom(&e, NULL);
  }
  if (!rc) rc = list_values(h->a, x, &e);
  if (rc) {
    free(x);
    discard(h);
    return give(err, &e, with_path ? path : NULL);
  }
  x->h = h;
  hold(h);
  *out = x;
  return 0;
}

int onnxop_model_load(const char *path, onnxop_model **out, onnxop_error **err) {
  if (!path) return failf(err, ONNXOP_ERR_USAGE, "path is NULL");
  return model_new(path, NULL, 0, 1, NULL, out, err);
}

int ox_api_model_load(const char *path, int with_path, const ox_run_opts *ro, onnxop_model **out,
                      onnxop_error **err) {
  return model_new(path, NULL, 0, with_path, ro, out, err);
}

int ox_api_model_read(ox_arena *a, const char *path, ox_model **out, ox_err *e) {
  return ox_model_load(a, path, out, e);
}

int ox_api_run_values(ox_arena *a, const onnxop_model *m, const ox_run_opts *ro, ox_value **in, ox_value **out,
                      ox_err *e) {
  return ox_run_with(a, m->m, ro, in, out, e);
}

int ox_api_value_load(ox_arena *a, const char *path, const ox_type *want, ox_value **out, const char **name,
                      ox_err *e) {
  return ox_load_value(a, path, want, NULL, out, name, e);
}

int ox_api_value_json(ox_arena *a, const char *text, size_t len, const ox_type *want, ox_value **out,
                      ox_err *e) {
  return ox_json_decode(a, text, len, want, out, NULL, e);
}

int ox_api_model_prepare(ox_arena *a, ox_model *m, const ox_run_opts *ro, ox_err *e) {
  return ox_prepare_with(a, m, ro, e);
}

int ox_api_model_run(ox_arena *a, const ox_model *m, const ox_run_opts *ro, ox_value **in, ox_value **out,
                     ox_err *e) {
  return ox_run_with(a, m, ro, in, out, e);
}

int ox_api_model_encode(ox_arena *a, const ox_model *m, uint8_t **data, size_t *len, ox_err *e) {
  return ox_model_encode(a, m, data, len, e);
}

const ox_model *ox_api_model(const onnxop_model *m) { return m->m; }
const char *ox_api_model_order(const onnxop_model *m, int *count) {
  *count = m->nunsorted;
  return m->order_note;
}

int onnxop_model_load_buffer(const void *buf, size_t len, onnxop_model **out, onnxop_error **err) {
  if (!buf) return failf(err, ONNXOP_ERR_USAGE, "buf is NULL");
  return model_new(NULL, buf, len, 0, NULL, out, err);
}

/* the preparation options of load flags, or a usage error */
static int load_flags(unsigned flags, ox_run_opts *ro, onnxop_error **err) {
  if (flags & ~ONNXOP_LOAD_RELEASE_PACKED) return failf(err, ONNXOP_ERR_USAGE, "unknown load flags 0x%x", flags);
  *ro = (ox_run_opts){0};
  ro->release_packed = (flags & ONNXOP_LOAD_RELEASE_PACKED) != 0;
  return 0;
}

int onnxop_model_load_with(const char *path, unsigned flags, onnxop_model **out, onnxop_error **err) {
  ox_run_opts ro;
  if (!path) return failf(err, ONNXOP_ERR_USAGE, "path is NULL");
  if (load_flags(flags, &ro, err)) return ONNXOP_ERR_USAGE;
  return model_new(path, NULL, 0, 1, &ro, out, err);
}

int onnxop_model_load_buffer_with(const void *buf, size_t len, unsigned flags, onnxop_model **out,
                                  onnxop_error **err) {
  ox_run_opts ro;
  if (!buf) return failf(err, ONNXOP_ERR_USAGE, "buf is NULL");
  if (load_flags(flags, &ro, err)) return ONNXOP_ERR_USAGE;
  return model_new(NULL, buf, len, 0, &ro, out, err);
}

int onnxop_model_input_count(const onnxop_model *m) { return m ? m->nin : 0; }
const char *onnxop_model_input_name(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->nin ? m->m->graph->in[m->in[i]].name : NULL;
}
const char *onnxop_model_input_type(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->nin ? m->in_type[i] : NULL;
}
int onnxop_model_output_count(const onnxop_model *m) { return m ? m->m->graph->nout : 0; }
const char *onnxop_model_output_name(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->m->graph->nout ? m->m->graph->out[i].name : NULL;
}
const char *onnxop_model_output_type(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->m->graph->nout ? m->out_type[i] : NULL;
}

/* the declared shape of v: its rank, and dim d (-1 with *name) */
static int vi_rank(const ox_valueinfo *v) {
  return v && v->type && v->type->kind == OX_TENSOR ? v->rank : -1;
}
static int64_t vi_dim(const ox_valueinfo *v, int d, const char **name) {
  if (name) *name = NULL;
  if (d < 0 || d >= vi_rank(v)) return -1;
  if (name && v->dims[d] < 0 && v->dim_param) *name = v->dim_param[d];
  return v->dims[d];
}
static const ox_valueinfo *input_vi(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->nin ? &m->m->graph->in[m->in[i]] : NULL;
}
static const ox_valueinfo *output_vi(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->m->graph->nout ? &m->m->graph->out[i] : NULL;
}
int onnxop_model_input_rank(const onnxop_model *m, int i) { return vi_rank(input_vi(m, i)); }
int64_t onnxop_model_input_dim(const onnxop_model *m, int i, int d, const char **name) {
  return vi_dim(input_vi(m, i), d, name);
}
int onnxop_model_output_rank(const onnxop_model *m, int i) { return vi_rank(output_vi(m, i)); }
int64_t onnxop_model_output_dim(const onnxop_model *m, int i, int d, const char **name) {
  return vi_dim(output_vi(m, i), d, name);
}

int64_t onnxop_model_ir_version(const onnxop_model *m) { return m ? m->m->ir_version : -1; }
int onnxop_model_opset_count(const onnxop_model *m) { return m ? m->m->nopset : 0; }
const char *onnxop_model_opset_domain(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->m->nopset ? (m->m->opset[i].domain ? m->m->opset[i].domain : "") : NULL;
}
int64_t onnxop_model_opset_version(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->m->nopset ? m->m->opset[i].version : -1;
}
int onnxop_model_value_count(const onnxop_model *m) { return m ? m->nval : 0; }
const char *onnxop_model_value_name(const onnxop_model *m, int i) {
  return m && i >= 0 && i < m->nval ? m->val[i] : NULL;
}

int onnxop_op_supported(const char *domain, const char *op, int64_t opset, char *why, size_t n) {
  if (why && n) why[0] = 0;
  if (!op) return -1;
  if (ox_registry_find(domain, op, opset)) return 1;
  if (why && n) ox_registry_why(domain, op, opset, why, n);
  return 0;
}

/* ---- running ---- */

struct onnxop_run_options {
  int threads;       /* 0: unset (1) */
  size_t max_memory; /* 0: the default */
  double timeout;    /* 0: none */
  int seeded;
  uint32_t seed;
  const volatile int *cancel;   /* non-zero: stop */
  double progress_s;            /* the progress handler and how often */
  int (*progress)(void *arg);
  void *progress_arg;
  onnxop_node_fn node_fn;       /* the node callback */
  void *node_arg;
  int trace;                    /* ONNXOP_TRACE_* */
  onnxop_write_fn trace_write;  /* NULL: stderr */
  void *trace_arg;
};

onnxop_run_options *onnxop_run_options_new(void) { return ox_heap_calloc(1, sizeof(onnxop_run_options)); }
void onnxop_run_options_free(onnxop_run_options *o) { free(o); }

int onnxop_run_options_set_threads(onnxop_run_options *o, int n) {
  if (!o || n < 0 || n > OX_MAX_THREADS) return ONNXOP_ERR_USAGE;
  o->threads = n ? n : ox_cpu_count();
  return 0;
}
int onnxop_run_options_set_max_memory(onnxop_run_options *o, size_t bytes) {
  if (!o) return ONNXOP_ERR_USAGE;
  o->max_memory = bytes;
  return 0;
}
int onnxop_run_options_set_timeout(onnxop_run_options *o, double seconds) {
  if (!o || !(seconds >= 0) || isinf(seconds)) return ONNXOP_ERR_USAGE;
  o->timeout = seconds;
  return 0;
}
int onnxop_run_options_set_seed(onnxop_run_options *o, uint32_t seed) {
  if (!o) return ONNXOP_ERR_USAGE;
  o->seeded = 1;
  o->seed = seed;
  return 0;
}
int onnxop_run_options_set_cancel(onnxop_run_options *o, const volatile int *flag) {
  if (!o) return ONNXOP_ERR_USAGE;
  o->cancel = flag;
  return 0;
}
int onnxop_run_options_set_progress(onnxop_run_options *o, double interval, int (*fn)(void *arg), void *arg) {
  if (!o || !(interval >= 0) || isinf(interval)) return ONNXOP_ERR_USAGE;
  o->progress_s = interval;
  o->progress = fn;
  o->progress_arg = arg;
  return 0;
}
int onnxop_run_options_set_node_callback(onnxop_run_options *o, onnxop_node_fn fn, void *arg) {
  if (!o) return ONNXOP_ERR_USAGE;
  o->node_fn = fn;
  o->node_arg = arg;
  return 0;
}
int onnxop_run_options_set_trace(onnxop_run_options *o, int what, onnxop_write_fn write, void *arg) {
  if (!o || (what & ~(ONNXOP_TRACE_NODES | ONNXOP_TRACE_TIME | ONNXOP_TRACE_SUMMARY))) return ONNXOP_ERR_USAGE;
  _Static_assert((int)ONNXOP_TRACE_NODES == (int)OX_TRACE_NODES && (int)ONNXOP_TRACE_TIME == (int)OX_TRACE_TIME &&
                     (int)ONNXOP_TRACE_SUMMARY == (int)OX_TRACE_SUMMARY, "core/eval.h's bits");
  o->trace = what;
  o->trace_write = write;
  o->trace_arg = arg;
  return 0;
}

/* ---- what a public run adds to the evaluator's options: the cancel flag,
 * the progress handler, the node callback, the named outputs ---- */

typedef struct {
  const onnxop_run_options *o;
  const onnxop_model *m;
  holder *h;         /* the run's (run_model sets it) */
  ox_memctx *outer;  /* the account before the run's own (run_model sets it): what the
                      * callbacks make (onnxop_value_copy) outlives the run's */
  double next_us;    /* when the progress handler is next due */
  /* onnxop_run_outputs: wanted[k] for value k of m's list (NULL: none
   * wanted); got[k], the copy of a node's output, in keep (made on the
   * run's memory account when first needed; it holds h, whose account it
   * counts against) */
  char *wanted;
  ox_value **got;
  holder *keep;
} run_state;

static double mono_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ox_run_opts.check: before every node and Loop or Scan iteration */
static int run_check(void *arg, ox_err *e) {
  run_state *s = arg;
  const onnxop_run_options *o = s->o;
  if (o->cancel && *o->cancel) return ox_fail(e, ONNXOP_ERR_CANCELLED, "the run was cancelled");
  if (o->progress && mono_us() >= s->next_us) {
    ox_memctx *run = ox_mem_use(s->outer);
    int stop = o->progress(o->progress_arg);
    ox_mem_use(run);
    if (stop) return ox_fail(e, ONNXOP_ERR_CANCELLED, "the progress handler stopped the run");
    s->next_us = mono_us() + o->progress_s * 1e6;
  }
  return 0;
}

/* Copy the wanted outputs of main-graph node n into s->keep */
static int keep_outputs(run_state *s, const ox_node *n, ox_value **out, ox_err *e) {
  const ox_graph *g = s->m->m->graph;
  const int *val = s->m->out_val + s->m->out_off[n - g->node];
  for (int j = 0; j < n->nout; j++) {
    int k = val[j];
    if (k < 0 || !s->wanted[k] || !out[j]) continue;
    if (!s->keep) {
      if (!(s->keep = holder_new(0, 0)) || !(s->keep->deps = ox_heap_malloc(sizeof *s->keep->deps))) return ox_oom(e, NULL);
      hold(s->h);
      s->keep->deps[s->keep->ndeps++] = s->h;
      hold(s->keep); /* the state's own hold, dropped when the run ends */
    }
    OX_TRY(ox_value_copy(s->keep->a, out[j], &s->got[k], e));
  }
  return 0;
}

/* ox_run_opts.hook: after every node that succeeds */
static int run_hook(void *arg, const ox_node *n, int depth, ox_value **out, ox_err *e) {
  run_state *s = arg;
  if (s->wanted && depth == 0) OX_TRY(keep_outputs(s, n, out, e));
  if (!s->o || !s->o->node_fn) return 0;
  /* handles on the outputs for the call's duration, in the run's holder */
  struct onnxop_value few[16], *hv = n->nout <= 16 ? few : ox_heap_calloc((size_t)n->nout, sizeof *hv);
  const onnxop_value *fewp[16], **hp = n->nout <= 16 ? fewp : ox_heap_calloc((size_t)n->nout, sizeof *hp);
  int rc = 0;
  if (!hv || !hp) rc = ox_oom(e, NULL);
  for (int j = 0; !rc && j < n->nout; j++) {
    hv[j] = (struct onnxop_value){s->h, out[j], NULL};
    hp[j] = out[j] && n->out[j][0] ? &hv[j] : NULL;
  }
  onnxop_node_info info = {n->name, n->op, n->domain ? n->domain : "", n->version, depth, n->nout, n->out, hp};
  if (!rc) {
    ox_memctx *run = ox_mem_use(s->outer);
    int stop = s->o->node_fn(s->o->node_arg, &info);
    ox_mem_use(run);
    if (stop) rc = ox_fail(e, ONNXOP_ERR_CANCELLED, "the node callback stopped the run");
  }
  if (hv != few) free(hv);
  if (hp != fewp) free(hp);
  return rc;
}

/* the trace handed to the options' write function */
static ssize_t trace_put(void *cookie, const char *buf, size_t n) {
  const onnxop_run_options *o = cookie;
  o->trace_write(o->trace_arg, buf, n);
  return (ssize_t)n;
}

/* "'a', 'b'" for a message about m's inputs */
static void input_list(const onnxop_model *m, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < m->nin && k + 8 < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s'%s'", i ? ", " : "", onnxop_model_input_name(m, i));
  if (!m->nin) snprintf(buf, n, "none");
}

/* where values[i] goes: its index in the graph's inputs; -1 with err set */
static int slot_of(const onnxop_model *m, int i, const char *const *names, onnxop_error **err) {
  char list[900];
  if (!names) {
    if (i < m->nin) return m->in[i];
    input_list(m, list, sizeof list);
    failf(err, ONNXOP_ERR_USAGE, "too many inputs: the model takes %d (%s)", m->nin, list);
    return -1;
  }
  if (!names[i]) {
    failf(err, ONNXOP_ERR_USAGE, "the name of input %d is NULL", i);
    return -1;
  }
  for (int k = 0; k < m->nin; k++)
    if (!strcmp(onnxop_model_input_name(m, k), names[i])) return m->in[k];
  input_list(m, list, sizeof list);
  failf(err, ONNXOP_ERR_USAGE, "the model has no input named '%s' (its inputs: %s)", names[i], list);
  return -1;
}

/* The run itself, for onnxop_run and ox_api_run: in[k] is the value of the
 * graph's input k (NULL: not given). own: on a memory account of its own
 * with that limit (0: the default) and with `threads` kernel threads; else
 * on the calling thread's account and ro's thread count (0: the
 * process's). st (NULL: none): the state ro's check and hook take, told
 * the run's holder. */
static int run_model(const onnxop_model *m, const ox_run_opts *ro, int own, size_t limit, int threads,
                     const onnxop_value *const *in, run_state *st, onnxop_value ***outputs, int *n_out,
                     onnxop_error **err) {
  const ox_graph *g = m->m->graph;
  int given = 0;
  for (int k = 0; k < g->nin; k++) given += in[k] != NULL;
  holder *h = holder_new(own, limit);
  if (!h) return oom(err);
  /* what the outputs may share: the model (initializers) and the inputs */
  h->deps = ox_heap_calloc((size_t)given + 1, sizeof *h->deps);
  ox_value **vin = ox_alloc_array(h->a, g->nin + 1, sizeof *vin);
  ox_value **out = ox_alloc_array(h->a, g->nout + 1, sizeof *out);
  onnxop_value **res = ox_heap_calloc((size_t)g->nout + 1, sizeof *res);
  if (!h->deps || !vin || !out || !res) {
    free(res);
    discard(h);
    return oom(err);
  }
  hold(m->h);
  h->deps[h->ndeps++] = m->h;
  for (int k = 0; k < g->nin; k++)
    if (in[k]) {
      vin[k] = in[k]->v;
      hold(in[k]->h);
      h->deps[h->ndeps++] = in[k]->h;
    }
  ox_err e = {0};
  /* held while it runs (a node callback's handles point to it) and while
   * the handles are made: a failure frees them, then h */
  hold(h);
  if (st) st->h = h;
  /* the thread count travels in the run's options (to its kernels' ox_ctx) */
  ox_run_opts rt = {0};
  if (ro) rt = *ro;
  if (own) rt.threads = threads;
  ox_memctx *mem_was = own ? ox_mem_use(&h->mem) : NULL;
  if (st) st->outer = mem_was;
  int rc = ox_run_with(h->a, m->m, &rt, vin, out, &e);
  if (own) ox_mem_use(mem_was);
  for (int i = 0; i < g->nout && !rc; i++)
    if (handle(h, out[i], NULL, &res[i], err)) rc = ONNXOP_ERR_NOMEM;
  if (rc) {
    if (e.code) give(err, &e, NULL);
    for (int i = 0; i < g->nout; i++) onnxop_value_free(res[i]);
    free(res);
    drop(h);
    return rc;
  }
  drop(h); /* the outputs hold it now (none: it goes) */
  *outputs = res;
  *n_out = g->nout;
  return 0;
}

/* An empty optional of the type m declares for graph input k (left out) */
static int absent_input(const onnxop_model *m, int k, onnxop_value **out, onnxop_error **err) {
  const ox_type *t = m->m->graph->in[k].type;
  holder *h = holder_new(0, 0);
  if (!h) return oom(err);
  ox_err e = {0};
  ox_value *v = NULL;
  int rc = t && t->kind == OX_OPTIONAL ? ox_opt_new(h->a, t->inner, NULL, &v, &e)
                                       : ox_fail(&e, OX_EINPUT, "input '%s' was not given", m->m->graph->in[k].name);
  return new_value(h, rc, &e, v, NULL, NULL, out, err);
}

/* onnxop_run_outputs' values after the run: want[j] is value idx[j] of m's
 * list; in[k] what the run took for graph input k */
static int pick_values(const run_state *s, const onnxop_value *const *in, int n_want, const int *idx,
                       onnxop_value **x, onnxop_error **err) {
  const onnxop_model *m = s->m;
  const ox_graph *g = m->m->graph;
  int rc = 0;
  for (int j = 0; j < n_want && !rc; j++) {
    int k = idx[j];
    if (k < m->nin) {
      const onnxop_value *v = in[m->in[k]];
      rc = v ? handle(v->h, v->v, NULL, &x[j], err) : absent_input(m, m->in[k], &x[j], err);
    } else if (k < m->nin + g->ninit) {
      rc = handle(m->h, g->init[k - m->nin], NULL, &x[j], err);
    } else {
      rc = s->got[k] ? handle(s->keep, s->got[k], NULL, &x[j], err)
                     : failf(err, ONNXOP_ERR_INPUT, "no node made '%s'", m->val[k]);
    }
  }
  return rc;
}

/* onnxop_run and onnxop_run_outputs (want NULL: the model's outputs) */
static int run_public(const onnxop_model *m, const onnxop_run_options *o, int n_in, const char *const *names,
                      const onnxop_value *const *values, int n_want, const char *const *want, onnxop_value ***outputs,
                      int *n_out, onnxop_error **err) {
  if (n_in < 0 || (n_in && !values)) return failf(err, ONNXOP_ERR_USAGE, "%d inputs at %p", n_in, (const void *)values);
  for (int i = 0; i < n_in; i++)
    if (!values[i]) return failf(err, ONNXOP_ERR_USAGE, "input %d is NULL", i);
  const ox_graph *g = m->m->graph;
  /* in[k]: the value of the graph's input k */
  const onnxop_value **in = ox_heap_calloc((size_t)g->nin + 1, sizeof *in);
  if (!in) return oom(err);
  for (int i = 0; i < n_in; i++) {
    int k = slot_of(m, i, names, err);
    if (k >= 0 && in[k]) {
      failf(err, ONNXOP_ERR_USAGE, "input '%s' is given twice", g->in[k].name);
      k = -1;
    }
    if (k < 0) {
      free(in);
      return ONNXOP_ERR_USAGE;
    }
    in[k] = values[i];
  }
  ox_run_opts ro = {0};
  if (o && o->timeout > 0) {
    ro.deadline_us = ox_deadline_us(o->timeout);
    ro.timeout_s = o->timeout;
    ro.timeout_source = "timeout";
  }
  ro.seeded = o ? o->seeded : 0;
  ro.seed = o ? o->seed : 0;
  run_state st = {.o = o, .m = m};
  int *idx = NULL, rc = 0;
  if (want) { /* each wanted name's place in m's value list */
    idx = ox_heap_calloc((size_t)n_want + 1, sizeof *idx);
    st.wanted = ox_heap_calloc((size_t)m->nval + 1, 1);
    st.got = ox_heap_calloc((size_t)m->nval + 1, sizeof *st.got);
    if (!idx || !st.wanted || !st.got) rc = oom(err);
    for (int j = 0; j < n_want && !rc; j++) {
      int k = j < m->nval && want[j] && !strcmp(want[j], m->val[j]) ? j : -1; /* the list in order: no search */
      for (int q = 0; k < 0 && want[j] && q < m->nval; q++)
        if (!strcmp(want[j], m->val[q])) k = q;
      if (k < 0) rc = want[j] ? failf(err, ONNXOP_ERR_USAGE, "the model has no value named '%s'", want[j])
                              : failf(err, ONNXOP_ERR_USAGE, "the name of wanted value %d is NULL", j);
      else if (k >= m->nin && k < m->nin + g->ninit && ox_model_released(m->m, g->init[k - m->nin]->u.t.data))
        rc = failf(err, ONNXOP_ERR_USAGE,
                   "initializer '%s' is no longer held: the model was loaded to give back the weights its "
                   "kernels packed (ONNXOP_LOAD_RELEASE_PACKED); load it keeping them to read it", want[j]);
      else idx[j] = k, st.wanted[k] = 1;
    }
  }
  if (o && (o->cancel || o->progress)) {
    ro.check = run_check;
    ro.check_arg = &st;
    st.next_us = mono_us() + o->progress_s * 1e6;
  }
  if (want || (o && o->node_fn)) {
    ro.hook = run_hook;
    ro.hook_arg = &st;
  }
  FILE *tf = NULL;
  if (!rc && o && o->trace) {
    ro.trace = o->trace;
    if (o->trace_write) { /* line by line to the write function */
      tf = fopencookie((void *)o, "w", (cookie_io_functions_t){.write = trace_put});
      if (!tf || setvbuf(tf, NULL, _IOLBF, BUFSIZ)) rc = oom(err);
      ro.trace_file = tf;
    }
  }
  onnxop_value **res = NULL;
  int nres = 0;
  if (!rc)
    rc = run_model(m, &ro, 1, o ? o->max_memory : 0, o && o->threads ? o->threads : 1, in, &st, &res, &nres, err);
  if (tf) fclose(tf);
  if (!rc && want) { /* the wanted values in place of the outputs */
    onnxop_value **x = ox_heap_calloc((size_t)n_want + 1, sizeof *x);
    rc = x ? pick_values(&st, in, n_want, idx, x, err) : oom(err);
    if (x && rc) onnxop_values_free(x, n_want);
    onnxop_values_free(res, nres);
    res = rc ? NULL : x;
    nres = rc ? 0 : n_want;
  }
  if (!rc) {
    *outputs = res;
    *n_out = nres;
  }
  if (st.keep) drop(st.keep);
  free(st.wanted);
  free(st.got);
  free(idx);
  free(in);
  return rc;
}

int onnxop_run(const onnxop_model *m, const onnxop_run_options *o, int n_in, const char *const *names,
               const onnxop_value *const *values, onnxop_value ***outputs, int *n_out, onnxop_error **err) {
  if (!m || !outputs || !n_out) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !m ? "the model" : !outputs ? "outputs" : "n_out");
  *outputs = NULL;
  *n_out = 0;
  return run_public(m, o, n_in, names, values, 0, NULL, outputs, n_out, err);
}

int onnxop_run_outputs(const onnxop_model *m, const onnxop_run_options *o, int n_in, const char *const *names,
                       const onnxop_value *const *values, int n_want, const char *const *want, onnxop_value ***outputs,
                       onnxop_error **err) {
  if (!m || !outputs) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !m ? "the model" : "outputs");
  *outputs = NULL;
  if (n_want < 0 || (n_want && !want)) return failf(err, ONNXOP_ERR_USAGE, "%d wanted values at %p", n_want, (const void *)want);
  int n = 0;
  static const char *const none[1];
  return run_public(m, o, n_in, names, values, n_want, want ? want : none, outputs, &n, err);
}

int ox_api_run(const onnxop_model *m, const ox_run_opts *ro, const onnxop_value *const *in, onnxop_value ***outputs,
               int *n_out, onnxop_error **err) {
  *outputs = NULL;
  *n_out = 0;
  return run_model(m, ro, 0, 0, 0, in, NULL, outputs, n_out, err);
}

/* ---- comparing ---- */

int onnxop_compare(const onnxop_value *got, const onnxop_value *expected, double atol, double rtol,
                   onnxop_compare_report *report, onnxop_error **err) {
  if (!got || !expected) {
    failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !got ? "got" : "expected");
    return -1;
  }
  if (!(atol >= 0) || !(rtol >= 0)) {
    failf(err, ONNXOP_ERR_USAGE, "the tolerances must be numbers >= 0 (atol %g, rtol %g)", atol, rtol);
    return -1;
  }
  ox_cmp r;
  int differ = ox_compare_full(got->v, expected->v, rtol, atol, &r) != 0;
  if (report) {
    memset(report, 0, sizeof *report);
    report->differ = differ;
    report->structural = r.structural;
    report->total = r.total;
    report->bad = r.bad;
    report->max_abs = r.numeric ? r.max_abs : 0;
    report->max_rel = r.numeric ? r.max_rel : 0;
    snprintf(report->why, sizeof report->why, "%s", differ ? r.why : "");
  }
  return differ;
}
