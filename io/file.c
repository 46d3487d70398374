/* io/file.c: reading whole files, writing one file all or nothing (a
 * temporary beside it, renamed into place), and dispatching value files to
 * their format by extension.
 *
 * A temporary is created beside its file with O_CREAT|O_EXCL|O_NOFOLLOW
 * under an unpredictable name, so a file or symlink planted there is never
 * opened. The library writes one file at a time (ox_write_file_atomic); the
 * command's outputs, several renamed together and cleaned up on a signal,
 * are its own business (cli/files.c), on top of ox_temp_create: the library
 * has no process-wide state and installs no signal handler. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io.h"

/* ---- reading ---- */

int ox_read_file(ox_arena *a, const char *path, uint8_t **data, size_t *len, ox_err *e) {
  const char *why;
  FILE *f = ox_open_regular(path, &why);
  if (!f) return ox_fail(e, OX_EINPUT, "cannot open: %s", why);
  return ox_read_open_file(a, f, data, len, e);
}

int ox_read_open_file(ox_arena *a, FILE *f, uint8_t **data, size_t *len, ox_err *e) {
  struct stat st;
  if (fstat(fileno(f), &st)) {
    fclose(f);
    return ox_fail(e, OX_EINPUT, "cannot open: %s", strerror(errno));
  }
  size_t n = (size_t)st.st_size;
  uint8_t *p = ox_alloc(a, n + 1);
  if (!p) {
    fclose(f);
    return ox_oom(e, "reading %zu bytes", n);
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

/* ---- writing: temporaries, one file all or nothing ---- */

static void random_tag(char out[13]) {
  static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static uint64_t count;
  uint8_t r[12];
  if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) { /* no getrandom: a weaker mix */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 48 ^ ++count << 20;
    for (int i = 0; i < 12; i++) {
      x += UINT64_C(0x9e3779b97f4a7c15);
      uint64_t z = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
      r[i] = (uint8_t)((z ^ (z >> 27)) >> 32);
    }
  }
  for (int i = 0; i < 12; i++) out[i] = al[r[i] % 62];
  out[12] = 0;
}

void ox_temp_tag(char out[13]) { random_tag(out); }

int ox_temp_create(int dfd, const char *name, char *tmp, size_t room) {
  const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
  int keep = strlen(base) < OX_TEMP_KEPT ? (int)strlen(base) : OX_TEMP_KEPT;
  for (int tries = 0; tries < 100; tries++) {
    char tag[13];
    random_tag(tag);
    snprintf(tmp, room, "%.*s%.*s.tmp.%s", (int)(base - name), name, keep, base, tag);
    /* O_EXCL|O_NOFOLLOW: never a file or symlink that is there already;
     * 0666: the mode is 0666 & ~umask, as for any new file */
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1; /* errno EEXIST */
}

int ox_out_close(ox_out *o, ox_err *e) {
  int er = ox_out_finish(o);
  if (o->fd >= 0 && close(o->fd) && !er) er = errno;
  o->fd = -1;
  if (er) return er == ENOMEM ? ox_oom(e, NULL) : ox_fail(e, OX_EINPUT, "write error: %s", strerror(er));
  return 0;
}

int ox_write_file_atomic(const char *path, int (*put)(void *arg, ox_out *o, ox_err *e), void *arg, ox_err *e) {
  size_t room = strlen(path) + 32;
  char *tmp = ox_heap_malloc(room);
  if (!tmp) return ox_oom(e, NULL);
  int fd = ox_temp_create(AT_FDCWD, path, tmp, room);
  if (fd < 0) {
    int er = errno;
    free(tmp);
    return ox_fail(e, OX_EINPUT, "cannot create a file beside it: %s", strerror(er));
  }
  ox_out o;
  ox_out_fd(&o, fd);
  int rc = put(arg, &o, e);
  int rc2 = ox_out_close(&o, e);
  if (!rc && !rc2 && rename(tmp, path)) rc = ox_fail(e, OX_EINPUT, "cannot rename into place: %s", strerror(errno));
  if (rc || rc2) unlink(tmp);
  free(tmp);
  return rc ? rc : rc2;
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
  if (!file) return NULL;
  *member = c + 1;
  return file;
}

int ox_npz_open(ox_arena *a, const char *path, ox_npz **z, ox_err *e) {
  uint8_t *data;
  size_t len;
  if (!path) return ox_oom(e, NULL);
  OX_TRY(ox_read_file(a, path, &data, &len, e));
  return ox_npz_open_buffer(a, data, len, z, e);
}

int ox_npz_members(ox_arena *a, const char *path, const char ***names, int64_t *n, ox_err *e) {
  ox_npz *z;
  OX_TRY(ox_npz_open(a, path, &z, e));
  *names = (const char **)ox_npz_keys(z);
  *n = ox_npz_count(z);
  return 0;
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
              : ox_oom(e, NULL);
  ox_buf_free(&b);
  if (rc) ox_prefix(e, "inline value: ");
  return rc;
}

/* Standard input, whole, into the arena, counted against --max-memory. A
 * regular file (< FILE) is read straight into the arena at its size. A pipe
 * is read into an ox_buf, which counts as it grows (doubling), is cut to
 * size at the end and then copied into the arena: such an input is held
 * twice for a moment, so one over half the limit is refused, with the
 * limit's message. */
static int read_stdin(ox_arena *a, uint8_t **data, size_t *len, ox_err *e) {
  struct stat st;
  off_t at;
  if (!fstat(0, &st) && S_ISREG(st.st_mode) && (at = lseek(0, 0, SEEK_CUR)) >= 0 && at <= st.st_size) {
    size_t n = (size_t)(st.st_size - at);
    uint8_t *p = ox_alloc_uninit(a, n + 1);
    if (!p) return ox_oom(e, "reading standard input (%zu bytes)", n);
    size_t got = fread(p, 1, n, stdin);
    if (ferror(stdin)) return ox_fail(e, OX_EINPUT, "cannot read standard input: %s", strerror(errno));
    if (got == n && getc(stdin) != EOF)
      return ox_fail(e, OX_EINPUT, "standard input grew while it was read");
    p[got] = 0;
    *data = p;
    *len = got;
    return 0;
  }
  ox_buf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
    if (ox_buf_put(&b, chunk, n)) {
      ox_buf_free(&b);
      return ox_oom(e, "reading standard input");
    }
  if (ferror(stdin)) {
    int er = errno;
    ox_buf_free(&b);
    return ox_fail(e, OX_EINPUT, "cannot read standard input: %s", strerror(er));
  }
  if (b.cap > b.n + 1) { /* to size, before the copy (if that fails, the larger block does) */
    uint8_t *q = ox_mem_realloc(b.p, b.n + 1);
    if (q) b.p = q, b.cap = b.n + 1;
  }
  uint8_t *p = ox_alloc_uninit(a, b.n + 1);
  if (!p) {
    ox_buf_free(&b);
    return ox_oom(e, "reading standard input (%zu bytes)", b.n);
  }
  if (b.n) memcpy(p, b.p, b.n);
  p[b.n] = 0;
  *data = p;
  *len = b.n;
  ox_buf_free(&b);
  return 0;
}

int ox_read_value(ox_arena *a, const char *path, ox_format f, const ox_type *want, const char *basedir,
                  ox_value **out, const char **name_out, ox_err *e) {
  if (name_out) *name_out = NULL;
  if (!path) return ox_oom(e, NULL); /* a name that could not be formatted */
  if (f == OX_FMT_UNKNOWN && (f = ox_format_of(path)) == OX_FMT_UNKNOWN)
    return ox_fail(e, OX_EUSAGE, "unknown value format (expected a .pb, .json, .npy or .npz file)");
  const char *member = NULL;
  if (f == OX_FMT_NPZ && !(path = ox_npz_split(a, path, &member))) return ox_oom(e, NULL);
  uint8_t *data;
  size_t len;
  if (f != OX_FMT_JSON) { /* the file's bytes are needed only while decoding: the value copies them */
    ox_arena *t = ox_arena_new();
    if (!t) return ox_oom(e, NULL);
    int rc = ox_read_file(t, path, &data, &len, e);
    if (!rc && f == OX_FMT_PB) {
      rc = ox_pb_decode(a, data, len, want, basedir, out, name_out, e);
    } else if (!rc && f == OX_FMT_NPY) {
      rc = ox_npy_decode(a, data, len, want, out, e);
    } else if (!rc) {
      rc = ox_npz_decode(a, data, len, member, want, out, name_out, e);
    }
    ox_arena_free(t);
    return rc;
  }
  OX_TRY(ox_read_file(a, path, &data, &len, e));
  return ox_json_decode(a, (const char *)data, len, want, out, name_out, e);
}

int ox_load_value(ox_arena *a, const char *path, const ox_type *want, const char *basedir,
                  ox_value **out, const char **name_out, ox_err *e) {
  if (name_out) *name_out = NULL;
  if (!path) return ox_oom(e, NULL); /* a name that could not be formatted */
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
  return ox_read_value(a, path, OX_FMT_UNKNOWN, want, basedir, out, name_out, e);
}
