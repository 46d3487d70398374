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
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/compare.h"
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
  return !e ? 0 : e->code == ONNXOP_ERR_NOMEM ? 1 : e->code;
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
  const ox_type *t = type_str ? ox_type_parse(h->a, type_str, 0, why, sizeof why) : ox_value_type(h->a, elems[0]->v);
  int rc = 0;
  if (!t) rc = *why || !type_str ? ox_fail(&e, OX_EUSAGE, "%s: bad element type '%s': %s", what, type_str, why)
                                 : ox_oom(&e, NULL);
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

const ox_model *ox_api_model(const onnxop_model *m) { return m->m; }

int onnxop_model_load_buffer(const void *buf, size_t len, onnxop_model **out, onnxop_error **err) {
  if (!buf) return failf(err, ONNXOP_ERR_USAGE, "buf is NULL");
  return model_new(NULL, buf, len, 0, NULL, out, err);
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

/* ---- running ---- */

struct onnxop_run_options {
  int threads;       /* 0: unset (1) */
  size_t max_memory; /* 0: the default */
  double timeout;    /* 0: none */
  int seeded;
  uint32_t seed;
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
 * on the calling thread's account and thread count. */
static int run_model(const onnxop_model *m, const ox_run_opts *ro, int own, size_t limit, int threads,
                     const onnxop_value *const *in, onnxop_value ***outputs, int *n_out, onnxop_error **err) {
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
  int threads_was = own ? ox_set_run_threads(threads) : 0;
  ox_memctx *mem_was = own ? ox_mem_use(&h->mem) : NULL;
  int rc = ox_run_with(h->a, m->m, ro, vin, out, &e);
  if (own) {
    ox_mem_use(mem_was);
    ox_set_run_threads(threads_was);
  }
  hold(h); /* while the handles are made: a failure frees them, then h */
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

int onnxop_run(const onnxop_model *m, const onnxop_run_options *o, int n_in, const char *const *names,
               const onnxop_value *const *values, onnxop_value ***outputs, int *n_out, onnxop_error **err) {
  if (!m || !outputs || !n_out) return failf(err, ONNXOP_ERR_USAGE, "%s is NULL", !m ? "the model" : !outputs ? "outputs" : "n_out");
  *outputs = NULL;
  *n_out = 0;
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
  int rc = run_model(m, &ro, 1, o ? o->max_memory : 0, o && o->threads ? o->threads : 1, in, outputs, n_out, err);
  free(in);
  return rc;
}

int ox_api_run(const onnxop_model *m, const ox_run_opts *ro, const onnxop_value *const *in, onnxop_value ***outputs,
               int *n_out, onnxop_error **err) {
  *outputs = NULL;
  *n_out = 0;
  return run_model(m, ro, 0, 0, 0, in, outputs, n_out, err);
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
