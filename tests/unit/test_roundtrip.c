/* tests/unit/test_roundtrip.c: every .pb of the two conformance suites goes
 * .pb -> .json -> .pb to the same value, and through .npy and .npz where numpy
 * has the type, read without a declared type as `onnxop convert` reads them.
 *
 *   test_roundtrip [DIR...]   (default: ../shared/onnx-node-tests and
 *                              /usr/share/libonnx-testdata/data; a missing
 *                              default folder is said and skipped, but not
 *                              both, and a folder named or walked that
 *                              holds no .pb file is a failure; under ASan
 *                              every 4th file)
 *
 * "The same value": kind, type, name, shape and elements; floats bit for bit
 * except that any NaN equals any NaN (JSON keeps neither sign nor payload). */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "io/io.h"

static ox_arena *A;
static int64_t files, npy_files, seen;

/* Under AddressSanitizer (three times slower) every 4th file: the plain
 * build walks them all; this one looks for memory errors on a sample. */
#ifdef __SANITIZE_ADDRESS__
#define EVERY 4
#else
#define EVERY 1
#endif

static int same_elem(const ox_tensor *a, const ox_tensor *b, int64_t i) {
  size_t es = ox_dtype_size(a->dt);
  const char *p = (const char *)a->data + (size_t)i * es, *q = (const char *)b->data + (size_t)i * es;
  if (a->dt == OX_STRING) {
    const ox_str *s = (const ox_str *)p, *t = (const ox_str *)q;
    return s->n == t->n && !memcmp(s->p, t->p, (size_t)s->n);
  }
  if (!memcmp(p, q, es)) return 1;
  if (ox_dtype_is_float(a->dt)) {
    double x = ox_load_f64(a->dt, a->data, i), y = ox_load_f64(b->dt, b->data, i);
    return x != x && y != y;
  }
  if (ox_dtype_is_complex(a->dt)) { /* each part a NaN, or the same bits */
    int w = (int)es / 2;
    for (int k = 0; k < 2; k++) {
      double x = w == 4 ? ((const float *)p)[k] : ((const double *)p)[k];
      double y = w == 4 ? ((const float *)q)[k] : ((const double *)q)[k];
      if (memcmp(p + k * w, q + k * w, (size_t)w) && !(x != x && y != y)) return 0;
    }
    return 1;
  }
  return 0;
}

/* 0 when x and y are the same value; else why, in buf. */
static int differ(const ox_value *x, const ox_value *y, char *buf, size_t n) {
  char t1[256], t2[256];
  if (!x || !y) {
    if (x != y) snprintf(buf, n, "one of them is missing");
    return x != y;
  }
  if (x->kind != y->kind || !ox_type_eq(ox_value_type(A, x), ox_value_type(A, y))) {
    snprintf(buf, n, "%s became %s", ox_type_str(ox_value_type(A, x), t1, sizeof t1),
             ox_type_str(ox_value_type(A, y), t2, sizeof t2));
    return 1;
  }
  switch (x->kind) {
  case OX_TENSOR: {
    const ox_tensor *a = &x->u.t, *b = &y->u.t;
    if (a->rank != b->rank || a->n != b->n || (a->rank && memcmp(a->dims, b->dims, (size_t)a->rank * 8))) {
      snprintf(buf, n, "shape %s became %s", ox_shape_str(a->rank, a->dims, t1, sizeof t1),
               ox_shape_str(b->rank, b->dims, t2, sizeof t2));
      return 1;
    }
    for (int64_t i = 0; i < a->n; i++)
      if (!same_elem(a, b, i)) {
        snprintf(buf, n, "element %lld differs", (long long)i);
        return 1;
      }
    return 0;
  }
  case OX_SEQUENCE:
    if (x->u.seq.n != y->u.seq.n) {
      snprintf(buf, n, "length %lld became %lld", (long long)x->u.seq.n, (long long)y->u.seq.n);
      return 1;
    }
    for (int64_t i = 0; i < x->u.seq.n; i++)
      if (differ(x->u.seq.v[i], y->u.seq.v[i], buf, n)) return 1;
    return 0;
  case OX_OPTIONAL:
    return differ(x->u.opt, y->u.opt, buf, n);
  case OX_MAP:
    return differ(x->u.map.keys, y->u.map.keys, buf, n) || differ(x->u.map.values, y->u.map.values, buf, n);
  default:
    snprintf(buf, n, "unknown kind");
    return 1;
  }
}

static int same_name(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* One failure: the file, the step and why. */
static void fail(const char *path, const char *step, const char *why) {
  check_fail_++;
  fprintf(stderr, "FAIL %s: %s: %s\n", path, step, why);
}

/* encoded bytes -> value, checked against v and name */
static int back(const char *path, const char *step, ox_format f, const ox_buf *b, const ox_value *v,
                const char *name, ox_value **out) {
  ox_err e = {0};
  const char *got_name = NULL;
  int rc;
  if (f == OX_FMT_JSON) rc = ox_json_decode(A, (const char *)b->p, b->n, NULL, out, &got_name, &e);
  else if (f == OX_FMT_PB) rc = ox_pb_decode(A, b->p, b->n, NULL, NULL, out, &got_name, &e);
  else if (f == OX_FMT_NPY) rc = ox_npy_decode(A, b->p, b->n, NULL, out, &e), got_name = name;
  else rc = ox_npz_decode(A, b->p, b->n, NULL, NULL, out, &got_name, &e);
  char why[512];
  if (rc) {
    fail(path, step, e.msg);
    return -1;
  }
  if (differ(v, *out, why, sizeof why)) {
    fail(path, step, why);
    return -1;
  }
  if (f != OX_FMT_NPZ && !same_name(name, got_name)) {
    fail(path, step, "the name changed");
    return -1;
  }
  check_pass_++;
  return 0;
}

static void one_file(const char *path) {
  ox_mark mk = ox_arena_mark(A);
  ox_err e = {0};
  uint8_t *data;
  size_t len;
  ox_value *v = NULL, *j = NULL, *p = NULL;
  const char *name = NULL;
  files++;
  if (ox_read_file(A, path, &data, &len, &e) || ox_pb_decode(A, data, len, NULL, NULL, &v, &name, &e)) {
    fail(path, "read", e.msg);
    goto done;
  }
  ox_buf b = {0};
  /* .pb -> .json -> .pb */
  if (ox_json_encode(v, name, &b, &e)) fail(path, "to .json", e.msg);
  else if (!back(path, ".json", OX_FMT_JSON, &b, v, name, &j)) {
    b.n = 0;
    if (ox_pb_encode(j, name, &b, &e)) fail(path, ".json to .pb", e.msg);
    else back(path, ".json to .pb", OX_FMT_PB, &b, v, name, &p);
  }
  /* .npy and .npz, where numpy has the type */
  ox_err_clear(&e);
  if (v->kind == OX_TENSOR && !ox_npy_can_hold(v, &e)) {
    npy_files++;
    b.n = 0;
    if (ox_npy_encode(v, &b, &e)) fail(path, "to .npy", e.msg);
    else back(path, ".npy", OX_FMT_NPY, &b, v, name, &p);
    b.n = 0;
    const ox_value *vs[1] = {v};
    const char *names[1] = {name};
    if (ox_npz_encode(1, vs, names, &b, &e)) fail(path, "to .npz", e.msg);
    else back(path, ".npz", OX_FMT_NPZ, &b, v, name, &p);
  }
  ox_buf_free(&b);
done:
  ox_arena_release(A, mk);
}

static int by_name(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *de; (de = readdir(d));) {
    if (de->d_name[0] == '.') continue;
    if (n == cap && !(names = realloc(names, (cap = cap * 2 + 64) * sizeof *names))) abort();
    names[n++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name); /* the same order on every machine */
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    size_t l = strlen(names[i]);
    if (!lstat(path, &st) && S_ISDIR(st.st_mode)) walk(path);
    else if (S_ISREG(st.st_mode) && l > 3 && !strcmp(names[i] + l - 3, ".pb") && seen++ % EVERY == 0)
      one_file(path);
    free(names[i]);
  }
  free(names);
}

int main(int argc, char **argv) {
  const char *defaults[] = {"../shared/onnx-node-tests", "/usr/share/libonnx-testdata/data"};
  const char *const *dirs = argc > 1 ? (const char *const *)argv + 1 : defaults;
  int ndirs = argc > 1 ? argc - 1 : 2;
  A = ox_arena_new();
  int walked = 0;
  for (int i = 0; i < ndirs; i++) {
    struct stat st;
    if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode)) {
      printf("%s is not here; not walked\n", dirs[i]);
      CHECK(argc == 1); /* a folder named on the command line must be there */
      continue;
    }
    int64_t f0 = files, n0 = npy_files;
    walk(dirs[i]);
    walked++;
    printf("%s: %lld .pb files, %lld also through .npy and .npz\n", dirs[i], (long long)(files - f0),
           (long long)(npy_files - n0));
    CHECK(files > f0); /* a folder without .pb files checked nothing */
  }
  CHECK(walked > 0);
  ox_arena_free(A);
  return check_done("roundtrip");
}
