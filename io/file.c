/* io/file.c: reading whole files, writing outputs all-or-nothing, and
 * dispatching value files to their format by extension.
 *
 * Outputs are written to "<path>.tmp.<pid>" and renamed only when the whole
 * run has succeeded (ox_commit_files), so a failed run leaves no output file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

int ox_mkdir_p(const char *dir) {
  struct stat st;
  if (!stat(dir, &st)) {
    if (S_ISDIR(st.st_mode)) return 0;
    errno = ENOTDIR;
    return -1;
  }
  size_t n = strlen(dir);
  char *p = malloc(n + 1);
  if (!p) return -1;
  memcpy(p, dir, n + 1);
  /* each parent in turn: "a", "a/b", ...; "a//b" and a trailing "/" are fine */
  int rc = 0;
  for (size_t i = 1; i <= n && !rc; i++)
    if (p[i] == '/' || p[i] == 0) {
      char c = p[i];
      p[i] = 0;
      if (p[i - 1] != '/' && mkdir(p, 0777) && errno != EEXIST) rc = -1;
      else if (!stat(p, &st) && !S_ISDIR(st.st_mode)) errno = ENOTDIR, rc = -1;
      p[i] = c;
    }
  free(p);
  return rc;
}

int ox_read_file(ox_arena *a, const char *path, uint8_t **data, size_t *len, ox_err *e) {
  FILE *f = fopen(path, "rb");
  if (!f) return ox_fail(e, OX_EINPUT, "cannot open: %s", strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
    fclose(f);
    return ox_fail(e, OX_EINPUT, "not a regular file");
  }
  size_t n = (size_t)st.st_size;
  uint8_t *p = ox_alloc(a, n + 1);
  if (!p) {
    fclose(f);
    return ox_fail(e, OX_EINPUT, "out of memory reading %zu bytes", n);
  }
  size_t got = n ? fread(p, 1, n, f) : 0;
  int err = ferror(f);
  fclose(f);
  if (err || got != n) return ox_fail(e, OX_EINPUT, "read error");
  p[n] = 0;
  *data = p;
  *len = n;
  return 0;
}

/* ---- all-or-nothing outputs ---- */

typedef struct { char *tmp, *final; } pending;
static pending *pend;
static int npend;

int ox_write_file_tmp(const char *path, const ox_buf *b, ox_err *e) {
  /* refuse what the final rename would fail on, before anything is renamed */
  struct stat st;
  if (!stat(path, &st) && S_ISDIR(st.st_mode)) return ox_fail(e, OX_EINPUT, "is a folder");
  for (int i = 0; i < npend; i++)
    if (!strcmp(pend[i].final, path)) return ox_fail(e, OX_EUSAGE, "is given for two outputs");
  char *tmp = malloc(strlen(path) + 32), *fin = strdup(path);
  pending *np = realloc(pend, (size_t)(npend + 1) * sizeof *pend);
  if (!tmp || !fin || !np) {
    free(tmp);
    free(fin);
    if (np) pend = np;
    return ox_fail(e, OX_EINPUT, "out of memory");
  }
  pend = np;
  sprintf(tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    int er = errno;
    free(tmp);
    free(fin);
    return ox_fail(e, OX_EINPUT, "cannot write: %s", strerror(er));
  }
  pend[npend].tmp = tmp;
  pend[npend].final = fin;
  npend++;
  size_t put = b->n ? fwrite(b->p, 1, b->n, f) : 0;
  int bad = put != b->n;
  if (fclose(f)) bad = 1;
  if (bad) return ox_fail(e, OX_EINPUT, "write error: %s", strerror(errno));
  return 0;
}

static void forget(void) {
  for (int i = 0; i < npend; i++) {
    free(pend[i].tmp);
    free(pend[i].final);
  }
  free(pend);
  pend = NULL;
  npend = 0;
}

int ox_commit_files(ox_err *e) {
  for (int i = 0; i < npend; i++)
    if (rename(pend[i].tmp, pend[i].final)) {
      int er = errno;
      ox_fail(e, OX_EINPUT, "%s: cannot rename into place: %s", pend[i].final, strerror(er));
      for (int j = i; j < npend; j++) remove(pend[j].tmp);
      forget();
      return OX_EINPUT;
    }
  forget();
  return 0;
}

void ox_discard_files(void) {
  for (int i = 0; i < npend; i++) remove(pend[i].tmp);
  forget();
}

/* ---- formats ---- */

/* The ':' of "bundle.npz:x", or NULL (the last ".npz:" with no '/' after it). */
static const char *npz_colon(const char *path) {
  const char *c = NULL;
  for (const char *p = path; (p = strchr(p, ':')); p++)
    if (p - path > 4 && !strncasecmp(p - 4, ".npz", 4) && !strchr(p, '/')) c = p;
  return c;
}

ox_format ox_format_of(const char *path) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (npz_colon(path)) return OX_FMT_NPZ;
  if (!dot || (slash && dot < slash)) return OX_FMT_UNKNOWN;
  if (!strcasecmp(dot, ".pb")) return OX_FMT_PB;
  if (!strcasecmp(dot, ".json")) return OX_FMT_JSON;
  if (!strcasecmp(dot, ".npy")) return OX_FMT_NPY;
  if (!strcasecmp(dot, ".npz")) return OX_FMT_NPZ;
  return OX_FMT_UNKNOWN;
}

const char *ox_npz_split(ox_arena *a, const char *path, const char **member) {
  const char *c = npz_colon(path);
  struct stat st;
  *member = NULL;
  if (!c || !stat(path, &st)) return path;
  char *file = ox_strndup(a, path, (size_t)(c - path));
  if (!file) return path;
  *member = c + 1;
  return file;
}

int ox_npz_members(ox_arena *a, const char *path, const char ***names, int64_t *n, ox_err *e) {
  uint8_t *data;
  size_t len;
  OX_TRY(ox_read_file(a, path, &data, &len, e));
  return ox_npz_list(a, data, len, names, n, e);
}

/* DTYPE[SHAPE]:v,v,... e.g. float32[2,3]:1,2,3,4,5,6 (no '/' can appear
 * before the ':', so no path looks like this) */
static int is_inline(const char *s) {
  size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  if (!n || s[n] != '[') return 0;
  size_t m = strspn(s + n + 1, "0123456789, ");
  return s[n + 1 + m] == ']' && s[n + 2 + m] == ':';
}

/* [+-]digits, nothing else: an integer that io/json.c reads exactly from a
 * JSON string, however long. */
static int plain_integer(const char *p, size_t n) {
  size_t i = n && (p[0] == '+' || p[0] == '-');
  if (i == n) return 0;
  for (; i < n; i++)
    if (p[i] < '0' || p[i] > '9') return 0;
  return 1;
}

/* Append p[0..n) to b as a JSON string. */
static int put_json_string(ox_buf *b, const char *p, size_t n) {
  int ok = ox_buf_put(b, "\"", 1) == 0;
  for (size_t i = 0; ok && i < n; i++) {
    if (p[i] == '"' || p[i] == '\\') ok = ox_buf_put(b, "\\", 1) == 0;
    ok = ok && ox_buf_put(b, &p[i], 1) == 0;
  }
  return ok && ox_buf_put(b, "\"", 1) == 0;
}

/* cJSON reads a number through a 64-byte buffer: a longer one fails to
 * parse. Longer tokens go through strtod here instead (see below). */
#define CJSON_NUMBER_MAX 63

/* The inline form, rewritten as the JSON form and parsed by io/json.c. Every
 * token is read whole (there is no token buffer to cut it short):
 *   - dims, and values of an integer type written as [+-]digits, become JSON
 *     strings, which io/json.c reads exactly (beyond 2^53 too) and
 *     range-checks;
 *   - other numbers stay JSON numbers; one longer than cJSON reads, or one
 *     JSON cannot spell (0x1p4, Infinity), becomes a form of the double
 *     strtod makes of it that reads back the same ("%.17g", "inf", "nan"),
 *     so it is the value cJSON would have read from the whole text;
 *   - anything else is a JSON string (for string tensors, and to be refused
 *     with its text quoted for the others). */
static int load_inline(ox_arena *a, const char *s, const ox_type *want, ox_value **out, ox_err *e) {
  ox_buf b = {0};
  const char *br = strchr(s, '['), *colon = strstr(s, "]:");
  char dt[32];
  size_t dl = (size_t)(br - s) < sizeof dt ? (size_t)(br - s) : sizeof dt - 1;
  memcpy(dt, s, dl);
  dt[dl] = 0;
  ox_dtype dtype = ox_dtype_from_name(dt);
  int is_str = dtype == OX_STRING;
  int is_int = dtype != OX_BOOL && (ox_dtype_is_signed_int(dtype) || ox_dtype_is_unsigned_int(dtype));
  int ok = ox_buf_printf(&b, "{\"dtype\": \"%s\", \"shape\": [", dt) == 0;
  /* the shape: digits, commas and blanks (is_inline checked); "[]" and "[ ]" are scalars */
  const char *p = br + 1;
  if (strspn(p, " ") == (size_t)(colon - p)) p = colon;
  for (int first = 1; ok && p < colon; first = 0) {
    size_t l = strcspn(p, ",]");
    const char *q = p;
    size_t t = l;
    while (t && *q == ' ') q++, t--;
    while (t && q[t - 1] == ' ') t--;
    ok = ox_buf_printf(&b, "%s", first ? "" : ", ") == 0 && put_json_string(&b, q, t);
    p += l;
    if (*p == ',') p++;
  }
  ok = ok && ox_buf_printf(&b, "], \"data\": [") == 0;
  p = colon + 2;
  for (int first = 1; ok && *p; first = 0) {
    size_t l = strcspn(p, ",");
    while (l && p[0] == ' ') p++, l--;
    size_t t = l;
    while (t && p[t - 1] == ' ') t--;
    ok = ox_buf_printf(&b, "%s", first ? "" : ", ") == 0;
    /* the token, NUL-terminated, at the end of b (ox_buf keeps a NUL after its bytes) */
    size_t at = b.n;
    ok = ok && ox_buf_put(&b, p, t) == 0;
    if (ok) {
      char *tok = (char *)b.p + at, *end;
      double v = strtod(tok, &end);
      int number = !is_str && t && !*end && strcmp(tok, "nan") && strcmp(tok, "inf") && strcmp(tok, "-inf");
      int literal = !is_str && (!strcmp(tok, "true") || !strcmp(tok, "false"));
      if (number && is_int && plain_integer(tok, t)) {
        b.n = at;
        ok = put_json_string(&b, p, t);
      } else if (number && (t > CJSON_NUMBER_MAX || strspn(tok, "+-0123456789.eE") != t)) {
        b.n = at;
        if (v != v || v - v != 0) /* nan, inf: their JSON spelling */
          ok = ox_buf_printf(&b, "\"%s\"", v != v ? "nan" : v < 0 ? "-inf" : "inf") == 0;
        else
          ok = ox_buf_printf(&b, "%.17g", v) == 0;
      } else if (!number && !literal) {
        b.n = at;
        ok = put_json_string(&b, p, t);
      }
    }
    p += l;
    if (*p == ',') p++;
  }
  ok = ok && ox_buf_printf(&b, "]}") == 0;
  int rc = ok ? ox_json_decode(a, (const char *)b.p, b.n, want, out, NULL, e)
              : ox_fail(e, OX_EINPUT, "out of memory");
  ox_buf_free(&b);
  if (rc) ox_prefix(e, "inline value: ");
  return rc;
}

static int read_stdin(ox_arena *a, uint8_t **data, size_t *len, ox_err *e) {
  ox_buf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
    if (ox_buf_put(&b, chunk, n)) {
      ox_buf_free(&b);
      return ox_fail(e, OX_EINPUT, "out of memory reading standard input");
    }
  uint8_t *p = ox_alloc(a, b.n + 1);
  if (!p) {
    ox_buf_free(&b);
    return ox_fail(e, OX_EINPUT, "out of memory reading standard input");
  }
  if (b.n) memcpy(p, b.p, b.n);
  *data = p;
  *len = b.n;
  ox_buf_free(&b);
  return 0;
}

int ox_load_value(ox_arena *a, const char *path, const ox_type *want, const char *basedir,
                  ox_value **out, const char **name_out, ox_err *e) {
  if (name_out) *name_out = NULL;
  if (is_inline(path)) return load_inline(a, path, want, out, e);
  if (path[0] == '{') /* a JSON literal */
    return ox_json_decode(a, path, strlen(path), want, out, name_out, e);
  if (!strcmp(path, "-")) { /* standard input: JSON if it starts with '{', else .pb */
    uint8_t *data;
    size_t len, i = 0;
    OX_TRY(read_stdin(a, &data, &len, e));
    while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r')) i++;
    if (i < len && data[i] == '{') return ox_json_decode(a, (const char *)data, len, want, out, name_out, e);
    if (len >= 6 && !memcmp(data, "\x93NUMPY", 6)) return ox_npy_decode(a, data, len, want, out, e);
    if (len >= 4 && !memcmp(data, "PK\3\4", 4)) return ox_npz_decode(a, data, len, NULL, want, out, name_out, e);
    return ox_pb_decode(a, data, len, want, basedir, out, name_out, e);
  }
  ox_format f = ox_format_of(path);
  if (f == OX_FMT_UNKNOWN)
    return ox_fail(e, OX_EUSAGE, "unknown value format (expected a .pb, .json, .npy or .npz file)");
  const char *member = NULL;
  if (f == OX_FMT_NPZ) path = ox_npz_split(a, path, &member);
  uint8_t *data;
  size_t len;
  if (f == OX_FMT_PB) { /* the file's bytes are needed only while decoding */
    ox_arena *t = ox_arena_new();
    if (!t) return ox_fail(e, OX_EINPUT, "out of memory");
    int rc = ox_read_file(t, path, &data, &len, e);
    if (!rc) rc = ox_pb_decode(a, data, len, want, basedir, out, name_out, e);
    ox_arena_free(t);
    return rc;
  }
  OX_TRY(ox_read_file(a, path, &data, &len, e));
  switch (f) {
  case OX_FMT_PB: return ox_pb_decode(a, data, len, want, basedir, out, name_out, e);
  case OX_FMT_NPY: return ox_npy_decode(a, data, len, want, out, e);
  case OX_FMT_NPZ: return ox_npz_decode(a, data, len, member, want, out, name_out, e);
  default: return ox_json_decode(a, (const char *)data, len, want, out, name_out, e);
  }
}

int ox_save_value(const char *path, ox_format f, const ox_value *v, const char *name, ox_err *e) {
  if (f == OX_FMT_NPZ) return ox_save_npz(path, 1, &v, &name, e);
  ox_buf b = {0};
  int rc = f == OX_FMT_JSON ? ox_json_encode(v, name, &b, e)
           : f == OX_FMT_NPY ? ox_npy_encode(v, &b, e)
                             : ox_pb_encode(v, name, &b, e);
  if (!rc) rc = ox_write_file_tmp(path, &b, e);
  ox_buf_free(&b);
  return rc;
}

int ox_save_npz(const char *path, int n, const ox_value *const *v, const char *const *names, ox_err *e) {
  ox_buf b = {0};
  int rc = ox_npz_encode(n, v, names, &b, e);
  if (!rc) rc = ox_write_file_tmp(path, &b, e);
  ox_buf_free(&b);
  return rc;
}
