/* io/json.c: values as JSON, in forms a person can write by hand.
 *
 * TENSOR
 *   {"name": "x", "dtype": "float32", "shape": [2, 3],
 *    "data": [[-1, 0, 1.5], [-2.25, 3.5, -4.75]]}
 *   - "name" is optional; only the outermost one is handed to the caller.
 *   - "dtype": any name ox_dtype_from_name knows: numpy names (float32, float16,
 *     bfloat16, float8_e4m3fn, int4, complex64, bool, str...), ONNX names
 *     (float, double, string...) or enum names (FLOAT). It may be left out
 *     when the model declares the type.
 *   - "shape": optional; without it the shape is the nesting of "data".
 *     Dims are integers as int64 elements are (below): a dim beyond 2^53 (of
 *     an empty tensor, such as shape [0, 4611686018427387904]) is written
 *     as a decimal string, and read as a number or a string.
 *   - "data": nested by the shape, or flat (row-major) with as many elements.
 *     A scalar has "shape": [] and "data": 5 (or [5]). Always written nested.
 *   When the model declares a tensor type, bare data (5, [1, 2], ...) is a
 *   tensor of that type too.
 * Elements:
 *   - float32/float64: JSON numbers, written as the shortest decimal that
 *     reads back to the same value. NaN and infinities are the strings "nan",
 *     "inf", "-inf" (also read: "NaN", "Infinity", "-Infinity", any case);
 *     the sign and payload of a NaN are not kept.
 *   - float16, bfloat16, float8*, float4_e2m1fn, float8_e8m0fnu: written as
 *     their value (the shortest decimal that reads back to the same bits);
 *     read as any number and converted by ox_store_f64: to nearest, ties to
 *     even (e8m0 rounds up), float8 values beyond the largest finite one
 *     saturate as Cast does. "inf" is refused where the format has no
 *     infinity, "nan" for float4.
 *   - integers: JSON numbers or decimal strings ("-12"). A JSON number is a
 *     double to most parsers, so int64/uint64 values beyond +-2^53 are written
 *     as decimal strings ("9223372036854775807") and a JSON number beyond
 *     +-2^53 is refused for them. A value out of range is an error.
 *   - bool: true/false (0/1 also read).
 *   - complex64/complex128: [re, im], each a float as above, one level below
 *     the shape: shape [2] -> [[1, 0], [0.5, -2]]. Always a pair.
 *   - strings: JSON strings ("\u0000" is a NUL byte, read exactly). Bytes
 *     that are not UTF-8 are {"base64": "..."}.
 *
 * SEQUENCE
 *   {"elem_dtype": "float32", "sequence": [<tensor>, ...]}
 *   {"elem_type": "seq(tensor(float))", "sequence": [{"sequence": [...]}, ...]}
 *   "elem_dtype" names a tensor element type; "elem_type" is an ONNX type
 *   string (tensor(float), seq(tensor(int64)), optional(...), map(K, V)).
 *   Either key takes either form. Needed for an empty sequence unless the model
 *   declares the type; otherwise the first element gives it. Written for every
 *   sequence: elem_dtype for tensor elements, elem_type for anything else.
 *
 * OPTIONAL
 *   {"elem_dtype": "float32", "optional": <value>}
 *   {"elem_type": "seq(tensor(float))", "optional": null}    (absent)
 *   When the model declares optional(X), a plain value of type X is read as
 *   a present optional and a bare null as an absent one.
 *
 * MAP
 *   {"key_dtype": "int64", "value_type": "tensor(float)",
 *    "map": [[1, 0.5], [2, {"dtype": "float32", "shape": [2], "data": [1, 2]}]]}
 *   - "map": a list of [key, value] pairs, in order. An object {"k": v, ...}
 *     is also read (its keys are strings, parsed as integers for integer
 *     key types).
 *   - "key_dtype": an integer type or str; "value_type": an ONNX type string
 *     (a plain dtype name means tensor(dtype)). Both may be left out when the
 *     model declares the type; otherwise the key type is int64 for number keys
 *     and str for string keys, and the first value gives the value type.
 *   - A value is any value in the forms above; when value_type is a tensor
 *     type a value may also be bare data (0.5, [1, 2]). Scalar tensor values
 *     are written bare, others in full.
 *
 * ONNX TensorProto as protobuf JSON (what onnx's MessageToJson writes), read
 * only, in camelCase or snake_case:
 *   {"dims": ["2", "3"], "dataType": 1, "name": "x", "rawData": "<base64>"}
 *   with the data in rawData (little-endian; 4-bit types two per byte, low
 *   nibble first; 2-bit types four per byte, low bits first) or in floatData,
 *   doubleData, int32Data, int64Data, uint64Data or stringData (base64), as
 *   onnx.proto describes. External data and segments are not supported.
 *
 * Unknown keys are errors (to catch typos such as "shpae"). Messages say
 * where: "sequence[1].data[0][2]: 300 does not fit uint8"; syntax errors give
 * the line and column.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io.h"

#define MAX_RANK 64
#define EXACT_LIMIT 9007199254740992.0 /* 2^53: every integer up to here is a double */
#define WRAP_COLUMN 100                /* long rows of data wrap after this column */

/* ======================================================================== */
/* Numbers as text                                                          */
/* ======================================================================== */

/* The shortest decimal that strtod reads back as x (x finite). */
static void fmt_double(char *buf, size_t n, double x) {
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, n, "%.*g", p, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* The shortest decimal that reads back as x, whether read as a float
 * (strtof) or read as a double and then rounded to float (as we read it). */
static void fmt_float(char *buf, size_t n, float x) {
  for (int p = 1; p <= 9; p++) {
    snprintf(buf, n, "%.*g", p, (double)x);
    if (strtof(buf, NULL) == x && (float)strtod(buf, NULL) == x) return;
  }
  snprintf(buf, n, "%.17g", (double)x);
}

/* Element i of a small float type (float16, bfloat16, float8*, float4):
 * the shortest decimal whose rounding (ox_store_f64) gives the same bits. */
static void fmt_small_float(char *buf, size_t n, ox_dtype dt, const void *data, int64_t i) {
  double x = ox_load_f64(dt, data, i);
  size_t size = ox_dtype_size(dt);
  const uint8_t *orig = (const uint8_t *)data + (size_t)i * size;
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, n, "%.*g", p, x);
    uint8_t back[8] = {0};
    ox_store_f64(dt, back, 0, strtod(buf, NULL));
    if (!memcmp(back, orig, size)) return;
  }
  fmt_double(buf, n, x);
}

/* "123" or "-45" (an optional sign and digits, nothing else) into sign and
 * magnitude. Returns 1, 0 if s is not such a number, -1 if it overflows. */
static int parse_decimal(const char *s, int *neg, uint64_t *mag) {
  *neg = 0;
  if (*s == '-' || *s == '+') *neg = *s++ == '-';
  if (!isdigit((unsigned char)*s)) return 0;
  uint64_t m = 0;
  int overflow = 0;
  for (; isdigit((unsigned char)*s); s++) {
    unsigned digit = (unsigned)(*s - '0');
    if (m > (UINT64_MAX - digit) / 10) overflow = 1;
    else m = m * 10 + digit;
  }
  if (*s) return 0;
  *mag = m;
  return overflow ? -1 : 1;
}

/* The range of an integer type (bool counts as 0..1). */
static void int_range(ox_dtype dt, int64_t *lo, uint64_t *hi) {
  switch (dt) {
  case OX_INT8:   *lo = INT8_MIN;  *hi = INT8_MAX;   break;
  case OX_UINT8:  *lo = 0;         *hi = UINT8_MAX;  break;
  case OX_INT16:  *lo = INT16_MIN; *hi = INT16_MAX;  break;
  case OX_UINT16: *lo = 0;         *hi = UINT16_MAX; break;
  case OX_INT32:  *lo = INT32_MIN; *hi = INT32_MAX;  break;
  case OX_UINT32: *lo = 0;         *hi = UINT32_MAX; break;
  case OX_INT64:  *lo = INT64_MIN; *hi = INT64_MAX;  break;
  case OX_UINT64: *lo = 0;         *hi = UINT64_MAX; break;
  case OX_INT4:   *lo = -8;        *hi = 7;          break;
  case OX_UINT4:  *lo = 0;         *hi = 15;         break;
  case OX_INT2:   *lo = -2;        *hi = 1;          break;
  case OX_UINT2:  *lo = 0;         *hi = 3;          break;
  default:        *lo = 0;         *hi = 1;          break; /* bool */
  }
}

static int int_fits(ox_dtype dt, int neg, uint64_t mag) {
  int64_t lo;
  uint64_t hi;
  int_range(dt, &lo, &hi);
  if (neg && mag) return lo < 0 && mag - 1 <= (uint64_t)(-(lo + 1));
  return mag <= hi;
}

/* Store sign and magnitude (already checked to fit) as element i. */
static void store_int(ox_dtype dt, void *data, int64_t i, int neg, uint64_t mag) {
  if (dt == OX_UINT64) {
    ((uint64_t *)data)[i] = mag;
    return;
  }
  int64_t v;
  if (!neg) v = (int64_t)mag;
  else if (mag == (uint64_t)INT64_MAX + 1) v = INT64_MIN;
  else v = -(int64_t)mag;
  ox_store_i64(dt, data, i, v);
}

/* ======================================================================== */
/* Base64 (RFC 4648; URL-safe letters and missing padding are read too)     */
/* ======================================================================== */

static const char b64_letters[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/* Decode s into a NUL-terminated arena buffer. Returns 0, -1 for text that
 * is not base64, -2 when out of memory. */
static int b64_decode(ox_arena *a, const char *s, uint8_t **out, int64_t *out_n) {
  size_t len = strlen(s);
  uint8_t *p = ox_alloc(a, len / 4 * 3 + 4);
  if (!p) return -2;
  uint32_t acc = 0;
  int bits = 0, padding = 0;
  int64_t n = 0;
  for (size_t i = 0; i < len; i++) {
    int c = (unsigned char)s[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding++;
      continue;
    }
    int v = b64_value(c);
    if (v < 0 || padding) return -1;
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      p[n++] = (uint8_t)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  if (bits >= 6) return -1; /* one letter alone in its group of four */
  *out = p;
  *out_n = n;
  return 0;
}

/* ======================================================================== */
/* Decoding                                                                 */
/* ======================================================================== */

typedef struct {
  ox_arena *a;
  ox_err *e;
  char path[512]; /* where we are, for messages: "sequence[2].data[0][1]" */
  size_t plen;
  int depth;      /* values open around the one being read */
  int marked;     /* the text was rewritten by mark_nuls: strings hold marks */
} dec;

/* NUL bytes in strings. cJSON keeps strings as C strings, so it would cut
 * "a\u0000b" to "a"; but a string element holding a NUL is a legal ONNX
 * string. When the text has that escape, mark_nuls rewrites it before cJSON
 * parses it: "\u0000" becomes the two bytes NUL_MARK 1, and a raw NUL_MARK
 * byte becomes NUL_MARK 2, so the two stay apart (0xFF is never part of
 * UTF-8: only a text that is not UTF-8 holds one). get_bytes undoes both in
 * string values; a name holding a NUL is refused, and a key or a type name
 * holding one matches nothing and is refused as unknown. */
#define NUL_MARK 0xFF

/* Call put(arg, bytes, n) for the rewritten text, piece by piece. Outside
 * strings a backslash or a 0xFF byte is a syntax error either way. */
static void mark_walk(const char *text, size_t len, void (*put)(void *, const char *, size_t, size_t),
                      void *arg) {
  static const char nul[2] = {(char)NUL_MARK, 1}, mark[2] = {(char)NUL_MARK, 2};
  for (size_t i = 0; i < len;) {
    if (text[i] == '\\' && len - i >= 6 && !memcmp(text + i + 1, "u0000", 5)) {
      put(arg, nul, 2, i);
      i += 6;
    } else if (text[i] == '\\' && len - i >= 2) { /* any other escape, "\\" too */
      put(arg, text + i, 2, i);
      i += 2;
    } else if ((unsigned char)text[i] == NUL_MARK) {
      put(arg, mark, 2, i);
      i++;
    } else {
      put(arg, text + i, 1, i);
      i++;
    }
  }
}
typedef struct { char *p; size_t n, at, orig; } mark_out;
static void mark_put(void *arg, const char *s, size_t n, size_t from) {
  mark_out *o = arg;
  if (o->p) memcpy(o->p + o->n, s, n);
  if (o->n <= o->at && o->at < o->n + n) o->orig = from; /* offset `at` came from `from` */
  o->n += n;
}
/* The rewritten text (from ox_mem_malloc, NUL-terminated), *n its length; NULL when
 * out of memory. */
static char *mark_nuls(const char *text, size_t len, size_t *n) {
  mark_out o = {NULL, 0, SIZE_MAX, 0};
  mark_walk(text, len, mark_put, &o);
  if (!(o.p = ox_mem_malloc(o.n + 1))) return NULL;
  *n = o.n;
  o.n = 0;
  mark_walk(text, len, mark_put, &o);
  o.p[o.n] = 0;
  return o.p;
}
/* The offset in the original text of offset `at` of the rewritten one. */
static size_t unmarked_offset(const char *text, size_t len, size_t at) {
  mark_out o = {NULL, 0, at, len};
  mark_walk(text, len, mark_put, &o);
  return o.orig;
}

/* Append to the path; returns the old length for path_pop. */
static size_t path_push(dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(dec *d, const char *fmt, ...) {
  size_t old = d->plen;
  if (d->plen < sizeof d->path - 1) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->path + d->plen, sizeof d->path - d->plen, fmt, ap);
    va_end(ap);
    d->plen += strlen(d->path + d->plen);
  }
  return old;
}
static void path_pop(dec *d, size_t old) {
  d->plen = old;
  d->path[old] = 0;
}
static size_t push_key(dec *d, const char *key) {
  return path_push(d, d->plen ? ".%s" : "%s", key);
}
static size_t push_index(dec *d, int64_t i) { return path_push(d, "[%lld]", (long long)i); }

/* Fail with the current path in front: "sequence[1].data[0]: 300 does not fit uint8". */
static int bad(dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(dec *d, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (d->plen) return ox_fail(d->e, OX_EINPUT, "%s: %s", d->path, msg);
  return ox_fail(d->e, OX_EINPUT, "%s", msg);
}

static int out_of_memory(dec *d) { return d->plen ? ox_oom(d->e, "reading %s", d->path) : ox_oom(d->e, NULL); }

/* A key or a type name holding "\u0000" (see mark_nuls): refused by name. */
static int has_nul(dec *d, const char *s) {
  for (; d->marked && *s; s++)
    if ((unsigned char)s[0] == NUL_MARK && s[1] == 1) return 1;
  return 0;
}

/* A JSON node in words, for messages: `the string "abc"`, "1.5", "a list". */
static const char *jdesc(const cJSON *j, char *buf, size_t n) {
  if (cJSON_IsString(j)) {
    size_t len = strlen(j->valuestring);
    snprintf(buf, n, "the string \"%.40s%s\"", j->valuestring, len > 40 ? "..." : "");
  } else if (cJSON_IsNumber(j)) {
    fmt_double(buf, n, j->valuedouble);
  } else if (cJSON_IsTrue(j)) {
    snprintf(buf, n, "true");
  } else if (cJSON_IsFalse(j)) {
    snprintf(buf, n, "false");
  } else if (cJSON_IsNull(j)) {
    snprintf(buf, n, "null");
  } else if (cJSON_IsArray(j)) {
    snprintf(buf, n, "a list");
  } else {
    snprintf(buf, n, "an object");
  }
  return buf;
}

static const cJSON *get(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* A protobuf JSON field under its camelCase or its snake_case name. */
static const cJSON *get2(const cJSON *obj, const char *camel, const char *snake) {
  const cJSON *j = get(obj, camel);
  return j ? j : get(obj, snake);
}

static int64_t list_len(const cJSON *j) {
  int64_t n = 0;
  for (const cJSON *c = j->child; c; c = c->next) n++;
  return n;
}

/* Only the listed keys may appear in obj (catches typos such as "shpae"). */
static int check_keys(dec *d, const cJSON *obj, const char *what, const char *const *keys) {
  for (const cJSON *c = obj->child; c; c = c->next) {
    if (has_nul(d, c->string)) return bad(d, "a key in %s holds \"\\u0000\"", what);
    int known = 0;
    for (int k = 0; keys[k] && !known; k++) known = !strcmp(c->string, keys[k]);
    if (known) continue;
    char list[512] = "";
    size_t at = 0;
    for (int k = 0; keys[k] && at < sizeof list; k++)
      at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", keys[k]);
    return bad(d, "unknown key \"%s\" in %s (expected %s)", c->string, what, list);
  }
  return 0;
}

static int new_tensor(dec *d, ox_dtype dt, int rank, const int64_t *dims, ox_value **out) {
  int rc = ox_tensor_new(d->a, dt, rank, dims, out, d->e);
  if (rc && d->plen) ox_prefix(d->e, "%s: ", d->path);
  return rc;
}

/* ---- scalars ---- */

/* An integer from a JSON number or a decimal string, checked against dt's range. */
static int get_int(dec *d, const cJSON *j, ox_dtype dt, int *neg, uint64_t *mag) {
  const char *dn = ox_dtype_name(dt);
  char text[64];
  if (cJSON_IsNumber(j)) {
    double x = j->valuedouble;
    fmt_double(text, sizeof text, x);
    if (!isfinite(x) || x != floor(x)) return bad(d, "%s is not an integer (%s)", text, dn);
    if (fabs(x) >= 18446744073709551616.0) return bad(d, "%s does not fit %s", text, dn);
    if (fabs(x) > EXACT_LIMIT && (dt == OX_INT64 || dt == OX_UINT64))
      return bad(d, "%s is beyond 2^53, where JSON numbers lose precision; write %s values "
                    "this large as decimal strings, such as \"9223372036854775807\"", text, dn);
    *neg = x < 0;
    *mag = (uint64_t)fabs(x);
  } else if (cJSON_IsString(j)) {
    int r = parse_decimal(j->valuestring, neg, mag);
    if (r < 0) return bad(d, "%.40s does not fit %s", j->valuestring, dn);
    if (r == 0) return bad(d, "expected an integer for %s, got %s", dn, jdesc(j, text, sizeof text));
  } else {
    return bad(d, "expected an integer for %s, got %s", dn, jdesc(j, text, sizeof text));
  }
  if (!int_fits(dt, *neg, *mag))
    return bad(d, "%s%llu does not fit %s", *neg ? "-" : "", (unsigned long long)*mag, dn);
  return 0;
}

/* A float from a JSON number or "nan", "inf", "-inf", "Infinity"... */
static int get_float(dec *d, const cJSON *j, ox_dtype dt, double *v) {
  if (cJSON_IsNumber(j)) {
    *v = j->valuedouble;
    return 0;
  }
  if (cJSON_IsString(j)) {
    const char *s = j->valuestring;
    int neg = 0;
    if (*s == '-' || *s == '+') neg = *s++ == '-';
    if (!strcasecmp(s, "nan")) {
      *v = NAN;
      return 0;
    }
    if (!strcasecmp(s, "inf") || !strcasecmp(s, "infinity")) {
      *v = neg ? -INFINITY : INFINITY;
      return 0;
    }
  }
  char desc[80];
  return bad(d, "expected a number for %s, got %s", ox_dtype_name(dt), jdesc(j, desc, sizeof desc));
}

/* A string element: a JSON string or {"base64": "..."}; the bytes go to the arena. */
static int get_bytes(dec *d, const cJSON *j, ox_str *out) {
  if (cJSON_IsString(j)) {
    size_t n = strlen(j->valuestring);
    char *p = ox_strndup(d->a, j->valuestring, n);
    if (!p) return out_of_memory(d);
    if (d->marked) { /* undo mark_nuls: NUL_MARK 1 is a NUL, NUL_MARK 2 a NUL_MARK */
      size_t k = 0;
      for (size_t i = 0; i < n; i++, k++) {
        p[k] = p[i];
        if ((unsigned char)p[i] == NUL_MARK && i + 1 < n) p[k] = p[++i] == 1 ? 0 : (char)NUL_MARK;
      }
      p[k] = 0;
      n = k;
    }
    out->p = p;
    out->n = (int64_t)n;
    return 0;
  }
  const cJSON *b = cJSON_IsObject(j) ? get(j, "base64") : NULL;
  if (b && cJSON_IsString(b) && !j->child->next) {
    uint8_t *p;
    int rc = b64_decode(d->a, b->valuestring, &p, &out->n);
    if (rc == -2) return out_of_memory(d);
    if (rc) return bad(d, "\"base64\" holds text that is not base64");
    out->p = (const char *)p;
    return 0;
  }
  char desc[80];
  return bad(d, "expected a string (or {\"base64\": \"...\"}) for str, got %s",
             jdesc(j, desc, sizeof desc));
}

/* Set element i of a tensor of type dt from the JSON leaf j. */
static int set_elem(dec *d, const cJSON *j, ox_dtype dt, void *data, int64_t i) {
  char desc[80];
  if (dt == OX_STRING) return get_bytes(d, j, &((ox_str *)data)[i]);
  if (dt == OX_BOOL) {
    if (cJSON_IsBool(j)) ((uint8_t *)data)[i] = cJSON_IsTrue(j) ? 1 : 0;
    else if (cJSON_IsNumber(j) && (j->valuedouble == 0 || j->valuedouble == 1))
      ((uint8_t *)data)[i] = j->valuedouble == 1;
    else return bad(d, "expected true or false (or 0/1) for bool, got %s", jdesc(j, desc, sizeof desc));
    return 0;
  }
  if (ox_dtype_is_complex(dt)) {
    /* a complex number is two floats of the part type, side by side */
    ox_dtype part = dt == OX_COMPLEX64 ? OX_FLOAT : OX_DOUBLE;
    if (!cJSON_IsArray(j))
      return bad(d, "expected [re, im] for %s, got %s", ox_dtype_name(dt), jdesc(j, desc, sizeof desc));
    double re, im;
    OX_TRY(get_float(d, j->child, dt, &re));
    OX_TRY(get_float(d, j->child->next, dt, &im));
    ox_store_f64(part, data, 2 * i, re);
    ox_store_f64(part, data, 2 * i + 1, im);
    return 0;
  }
  if (ox_dtype_is_float(dt)) {
    double v;
    OX_TRY(get_float(d, j, dt, &v));
    int has_inf = dt == OX_FLOAT || dt == OX_DOUBLE || dt == OX_FLOAT16 || dt == OX_BFLOAT16 ||
                  dt == OX_FLOAT8E5M2;
    if (isinf(v) && !has_inf) return bad(d, "%s has no infinity", ox_dtype_name(dt));
    if (isnan(v) && dt == OX_FLOAT4E2M1) return bad(d, "%s has no NaN", ox_dtype_name(dt));
    /* ox_store_f64 saturates float8 as Cast does; an infinity stays one */
    if (isinf(v) && dt == OX_FLOAT8E5M2) ((uint8_t *)data)[i] = ox_f32_to_f8(dt, (float)v, 0);
    else ox_store_f64(dt, data, i, v);
    return 0;
  }
  int neg;
  uint64_t mag;
  OX_TRY(get_int(d, j, dt, &neg, &mag));
  store_int(dt, data, i, neg, mag);
  return 0;
}

/* ---- dtypes, shapes and type strings ---- */

static int dtype_from_json(dec *d, const cJSON *j, const char *key, ox_dtype *dt) {
  if (cJSON_IsString(j) && has_nul(d, j->valuestring)) return bad(d, "\"%s\" holds \"\\u0000\"", key);
  if (cJSON_IsString(j)) {
    *dt = ox_dtype_from_name(j->valuestring);
    if (!*dt) return bad(d, "unknown dtype \"%.60s\" in \"%s\"", j->valuestring, key);
    return 0;
  }
  if (cJSON_IsNumber(j) && j->valuedouble == floor(j->valuedouble) && j->valuedouble >= 0 &&
      j->valuedouble < OX_DTYPE_MAX && ox_dtype_valid((int)j->valuedouble)) {
    *dt = (ox_dtype)(int)j->valuedouble;
    return 0;
  }
  char desc[80];
  if (cJSON_IsNumber(j)) return bad(d, "unknown dtype %s in \"%s\"", jdesc(j, desc, sizeof desc), key);
  return bad(d, "\"%s\" must be a dtype name such as \"float32\", not %s", key,
             jdesc(j, desc, sizeof desc));
}

/* "shape" (or protobuf "dims"): a list of integers >= 0, numbers or strings. */
static int dims_from_json(dec *d, const cJSON *j, const char *key, int *rank, int64_t *dims) {
  if (!cJSON_IsArray(j)) return bad(d, "\"%s\" must be a list of dimensions, like [2, 3]", key);
  int64_t n = list_len(j);
  if (n > MAX_RANK) return bad(d, "\"%s\" has %lld dimensions; at most %d are supported", key,
                               (long long)n, MAX_RANK);
  int r = 0;
  size_t mark = push_key(d, key);
  for (const cJSON *c = j->child; c; c = c->next, r++) {
    size_t m2 = push_index(d, r);
    int neg;
    uint64_t mag;
    int rc = get_int(d, c, OX_INT64, &neg, &mag);
    if (!rc && neg && mag) rc = bad(d, "-%llu is negative; dimensions must be >= 0", (unsigned long long)mag);
    path_pop(d, m2);
    if (rc) {
      path_pop(d, mark);
      return rc;
    }
    dims[r] = (int64_t)mag;
  }
  path_pop(d, mark);
  *rank = r;
  return 0;
}

/* A type from "elem_type"/"elem_dtype"/"value_type": a dtype name or a type
 * string, read by core/value.c's ox_type_parse. "?" (an element type left
 * open: what an empty sequence or absent optional read from a .pb holds) is
 * taken, so that what ox_json_write writes for them reads back. */
static int type_from_json(dec *d, const cJSON *j, const char *key, const ox_type **t) {
  char desc[80], why[160];
  if (!cJSON_IsString(j))
    return bad(d, "\"%s\" must be a type such as \"float32\" or \"seq(tensor(float))\", not %s",
               key, jdesc(j, desc, sizeof desc));
  if (has_nul(d, j->valuestring)) return bad(d, "\"%s\" holds \"\\u0000\"", key);
  if (!(*t = ox_type_parse(d->a, j->valuestring, OX_TYPE_OPEN, why, sizeof why)) && !why[0])
    return out_of_memory(d);
  if (!*t)
    return bad(d, "bad \"%s\" \"%.100s\": %s", key, j->valuestring, why);
  return 0;
}

/* The element type a sequence or optional declares ("elem_type" or
 * "elem_dtype"; either takes a dtype name or a type string), or NULL. */
static int declared_elem_type(dec *d, const cJSON *j, const ox_type **t) {
  const cJSON *et = get(j, "elem_type"), *ed = get(j, "elem_dtype");
  *t = NULL;
  if (et && ed) return bad(d, "give \"elem_type\" or \"elem_dtype\", not both");
  if (et) return type_from_json(d, et, "elem_type", t);
  if (ed) return type_from_json(d, ed, "elem_dtype", t);
  return 0;
}

/* The element type of a sequence or optional: the one the JSON gives (NULL:
 * none), with what it leaves open ("?") filled in from the model's declared
 * type when that is of the same kind. */
static const ox_type *with_declared(dec *d, const ox_type *elem, const ox_type *want, ox_kind kind) {
  if (!want || want->kind != kind) return elem;
  if (!elem) return want->inner;
  const ox_type *u = ox_type_unify(d->a, elem, want->inner);
  return u ? u : elem; /* a conflict is said where the value is checked */
}

static int type_mismatch(dec *d, const ox_value *v, const char *where, const ox_type *t) {
  char got[256], want[256];
  return bad(d, "a %s in %s of %s", ox_value_desc(v, got, sizeof got), where,
             ox_type_str(t, want, sizeof want));
}

/* ---- tensors ---- */

/* Is j one element of dt (as opposed to a list of elements)? A complex
 * element is a pair of non-lists. */
static int is_leaf(const cJSON *j, ox_dtype dt) {
  if (!cJSON_IsArray(j)) return 1;
  if (!ox_dtype_is_complex(dt)) return 0;
  const cJSON *re = j->child;
  return re && re->next && !re->next->next && !cJSON_IsArray(re) && !cJSON_IsArray(re->next);
}

static const char *nest_desc(int rank, const int64_t *dims, char *buf, size_t n) {
  char sb[256];
  if (rank == 0) snprintf(buf, n, "a single value");
  else snprintf(buf, n, "a list of shape %s", ox_shape_str(rank, dims, sb, sizeof sb));
  return buf;
}

/* The shape of the nested lists j (rank 0 for a single element), checking
 * that all siblings agree. dims has room for `room` entries. */
static int nest_shape(dec *d, const cJSON *j, ox_dtype dt, int *rank, int64_t *dims, int room) {
  if (is_leaf(j, dt)) {
    *rank = 0;
    return 0;
  }
  if (room == 0) return bad(d, "data is nested more than %d levels deep", MAX_RANK);
  int64_t n = 0, sub[MAX_RANK];
  int r0 = 0;
  for (const cJSON *c = j->child; c; c = c->next, n++) {
    int r = 0;
    size_t mark = push_index(d, n);
    int rc = nest_shape(d, c, dt, &r, n == 0 ? dims + 1 : sub, room - 1);
    path_pop(d, mark);
    if (rc) return rc;
    if (n == 0) {
      r0 = r;
    } else if (r != r0 || memcmp(sub, dims + 1, (size_t)r * sizeof *sub)) {
      char p1[600], p0[600], s1[300], s0[300];
      snprintf(p1, sizeof p1, "%s[%lld]", d->path, (long long)n);
      snprintf(p0, sizeof p0, "%s[0]", d->path);
      return ox_fail(d->e, OX_EINPUT, "ragged nesting: %s is %s but %s is %s", p1,
                     nest_desc(r, sub, s1, sizeof s1), p0, nest_desc(r0, dims + 1, s0, sizeof s0));
    }
  }
  dims[0] = n;
  *rank = 1 + r0;
  return 0;
}

/* Store the leaves of j, in order, from element *at on. */
static int fill(dec *d, const cJSON *j, ox_dtype dt, void *data, int64_t *at) {
  if (is_leaf(j, dt)) return set_elem(d, j, dt, data, (*at)++);
  int64_t i = 0;
  for (const cJSON *c = j->child; c; c = c->next, i++) {
    size_t mark = push_index(d, i);
    int rc = fill(d, c, dt, data, at);
    path_pop(d, mark);
    if (rc) return rc;
  }
  return 0;
}

/* A tensor of type dt from "data" (nested or flat); rank < 0: no "shape",
 * take it from the nesting. */
static int dec_data(dec *d, ox_dtype dt, int rank, const int64_t *dims, const cJSON *jdata,
                    ox_value **out) {
  int nrank = 0;
  int64_t ndims[MAX_RANK];
  size_t mark = push_key(d, "data");
  int rc = nest_shape(d, jdata, dt, &nrank, ndims, MAX_RANK);
  path_pop(d, mark);
  if (rc) return rc;
  /* the lists are all present, so this product is at most their total size */
  int64_t leaves = ox_numel(nrank, ndims, 0);
  if (rank < 0) {
    rank = nrank;
    dims = ndims;
  }
  int64_t n = ox_numel(rank, dims, ox_dtype_size(dt));
  if (n < 0) return new_tensor(d, dt, rank, dims, out); /* says what is wrong */
  int same = rank == nrank && !memcmp(dims, ndims, (size_t)rank * sizeof *dims);
  /* an empty tensor's lists stop at its first zero dim: (2, 0, 4) is [[], []] */
  int empty_prefix = n == 0 && leaves == 0 && nrank <= rank && !memcmp(dims, ndims, (size_t)nrank * sizeof *dims);
  if (!same && !empty_prefix && !(nrank <= 1 && leaves == n)) {
    char sb[256], nb[256];
    if (leaves == n)
      return bad(d, "data is nested as %s but \"shape\" is %s", ox_shape_str(nrank, ndims, nb, sizeof nb),
                 ox_shape_str(rank, dims, sb, sizeof sb));
    return bad(d, "data has %lld element%s; shape %s needs %lld", (long long)leaves,
               leaves == 1 ? "" : "s", ox_shape_str(rank, dims, sb, sizeof sb), (long long)n);
  }
  OX_TRY(new_tensor(d, dt, rank, dims, out));
  int64_t at = 0;
  mark = push_key(d, "data");
  rc = fill(d, jdata, dt, (*out)->u.t.data, &at);
  path_pop(d, mark);
  return rc;
}

/* {"dtype": ..., "shape": ..., "data": ...} */
static int dec_tensor(dec *d, const cJSON *j, const ox_type *want, ox_value **out) {
  static const char *const keys[] = {"name", "dtype", "shape", "data", NULL};
  OX_TRY(check_keys(d, j, "a tensor", keys));
  ox_dtype dt;
  const cJSON *jdt = get(j, "dtype"), *jshape = get(j, "shape"), *jdata = get(j, "data");
  if (jdt) OX_TRY(dtype_from_json(d, jdt, "dtype", &dt));
  else if (want && want->kind == OX_TENSOR) dt = want->elem;
  else return bad(d, "the tensor has no \"dtype\" (such as \"dtype\": \"float32\")");
  if (!jdata) return bad(d, "the tensor has no \"data\"");
  int rank = -1;
  int64_t dims[MAX_RANK];
  if (jshape) OX_TRY(dims_from_json(d, jshape, "shape", &rank, dims));
  return dec_data(d, dt, rank, dims, jdata, out);
}

/* ---- TensorProto in protobuf's JSON mapping ---- */

static const char *const pb_keys[] = {
    "name", "dims", "dataType", "data_type", "rawData", "raw_data", "floatData", "float_data",
    "int32Data", "int32_data", "stringData", "string_data", "int64Data", "int64_data",
    "doubleData", "double_data", "uint64Data", "uint64_data", "docString", "doc_string",
    "externalData", "external_data", "dataLocation", "data_location", "segment",
    "metadataProps", "metadata_props", NULL};

/* Keys that only a TensorProto has (not "name", which every form may have). */
static int is_pb_tensor(const cJSON *j) {
  for (int k = 1; pb_keys[k]; k++)
    if (get(j, pb_keys[k])) return 1;
  return 0;
}

static int host_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* count values of `width` bytes each, little-endian in src, into dst. */
static void copy_le(void *dst, const uint8_t *src, int64_t count, size_t width) {
  if (host_little_endian()) {
    memcpy(dst, src, (size_t)count * width);
    return;
  }
  uint8_t *o = dst;
  for (int64_t i = 0; i < count; i++)
    for (size_t b = 0; b < width; b++) o[(size_t)i * width + b] = src[(size_t)i * width + width - 1 - b];
}

/* Unpack n elements of a 4-bit or 2-bit type, several per byte, low bits first. */
static void unpack_bits(ox_dtype dt, const uint8_t *src, int64_t n, void *dst) {
  int bits = ox_dtypes[dt].file_bits, per = 8 / bits;
  for (int64_t i = 0; i < n; i++) {
    int v = src[i / per] >> (bits * (int)(i % per)) & ((1 << bits) - 1);
    if (ox_dtype_is_signed_int(dt) && v >> (bits - 1)) v -= 1 << bits; /* sign-extend */
    if (dt == OX_FLOAT4E2M1) ((uint8_t *)dst)[i] = (uint8_t)v;
    else ox_store_i64(dt, dst, i, v);
  }
}

static int pb_has_data(const cJSON *f) {
  return f && !(cJSON_IsArray(f) && !f->child) && !(cJSON_IsString(f) && !f->valuestring[0]);
}

/* What the repeated field `field` can hold for dt: values per element x2
 * for complex, packed for 4/2-bit in int32_data. 0 if it cannot hold dt. */
static int pb_field_fits(const char *field, ox_dtype dt) {
  if (!strcmp(field, "float")) return dt == OX_FLOAT || dt == OX_COMPLEX64;
  if (!strcmp(field, "double")) return dt == OX_DOUBLE || dt == OX_COMPLEX128;
  if (!strcmp(field, "int64")) return dt == OX_INT64;
  if (!strcmp(field, "uint64")) return dt == OX_UINT32 || dt == OX_UINT64;
  if (!strcmp(field, "string")) return dt == OX_STRING;
  if (!strcmp(field, "raw")) return dt != OX_STRING;
  /* int32_data: every small type, floats as their bits */
  return !(dt == OX_FLOAT || dt == OX_DOUBLE || dt == OX_INT64 || dt == OX_UINT32 ||
           dt == OX_UINT64 || dt == OX_STRING || ox_dtype_is_complex(dt));
}

/* Fill t from the repeated field f (one of float/double/int32/int64/uint64/string). */
static int pb_fill_list(dec *d, const cJSON *f, const char *field, ox_tensor *t) {
  ox_dtype dt = t->dt;
  int bits = ox_dtypes[dt].file_bits;
  int packed = !strcmp(field, "int32") && bits < 8 && bits > 0;
  uint8_t *bytes = NULL;
  if (packed && !(bytes = ox_alloc(d->a, (size_t)list_len(f) + 1))) return out_of_memory(d);
  int64_t i = 0;
  for (const cJSON *c = f->child; c; c = c->next, i++) {
    size_t mark = push_index(d, i);
    int rc = 0, neg;
    uint64_t mag;
    double v;
    if (!strcmp(field, "float") || !strcmp(field, "double")) {
      /* complex: re, im, re, im... which is how the parts lie in memory */
      ox_dtype part = ox_dtype_is_complex(dt) ? (dt == OX_COMPLEX64 ? OX_FLOAT : OX_DOUBLE) : dt;
      if (!(rc = get_float(d, c, part, &v))) ox_store_f64(part, t->data, i, v);
    } else if (!strcmp(field, "string")) {
      ox_str *s = &((ox_str *)t->data)[i];
      uint8_t *p;
      int r = cJSON_IsString(c) ? b64_decode(d->a, c->valuestring, &p, &s->n) : -1;
      if (r == -2) rc = out_of_memory(d);
      else if (r) rc = bad(d, "expected a base64 string");
      else s->p = (const char *)p;
    } else if (packed) {
      if (!(rc = get_int(d, c, OX_INT32, &neg, &mag)) && ((neg && mag > 128) || (!neg && mag > 255)))
        rc = bad(d, "%s%llu is not a byte of packed %s values", neg ? "-" : "",
                 (unsigned long long)mag, ox_dtype_name(dt));
      if (!rc) bytes[i] = (uint8_t)(neg ? 256 - mag : mag);
    } else if (!strcmp(field, "int32") && ox_dtype_is_float(dt)) {
      /* float16, bfloat16 and float8 types: the bits of each value */
      ox_dtype bits_type = ox_dtype_size(dt) == 2 ? OX_UINT16 : OX_UINT8;
      if (!(rc = get_int(d, c, bits_type, &neg, &mag))) store_int(bits_type, t->data, i, neg, mag);
    } else {
      if (!(rc = get_int(d, c, dt, &neg, &mag))) store_int(dt, t->data, i, neg, mag);
    }
    path_pop(d, mark);
    if (rc) return rc;
  }
  if (packed) unpack_bits(dt, bytes, t->n, t->data);
  return 0;
}

static int dec_pb_tensor(dec *d, const cJSON *j, ox_value **out) {
  OX_TRY(check_keys(d, j, "a TensorProto", pb_keys));
  const cJSON *loc = get2(j, "dataLocation", "data_location");
  if (get2(j, "externalData", "external_data") ||
      (loc && !(cJSON_IsString(loc) && !strcmp(loc->valuestring, "DEFAULT")) &&
       !(cJSON_IsNumber(loc) && loc->valuedouble == 0)))
    return ox_fail(d->e, OX_EINPUT,
                   "%s%sexternal data is not supported in JSON (use a .pb file)", d->path,
                   d->plen ? ": " : "");
  if (get(j, "segment"))
    return ox_fail(d->e, OX_EINPUT, "%s%ssegmented tensors are not supported", d->path,
                   d->plen ? ": " : "");
  const cJSON *jdt = get2(j, "dataType", "data_type"), *jdims = get(j, "dims");
  if (!jdt) return bad(d, "the TensorProto has no \"dataType\"");
  ox_dtype dt;
  OX_TRY(dtype_from_json(d, jdt, get(j, "dataType") ? "dataType" : "data_type", &dt));
  int rank = 0;
  int64_t dims[MAX_RANK];
  if (jdims) OX_TRY(dims_from_json(d, jdims, "dims", &rank, dims));
  int64_t n = ox_numel(rank, dims, ox_dtype_size(dt));
  if (n < 0) return new_tensor(d, dt, rank, dims, out);

  /* which field holds the data: at most one */
  static const char *const fields[][3] = {
      {"raw", "rawData", "raw_data"},         {"float", "floatData", "float_data"},
      {"double", "doubleData", "double_data"}, {"int32", "int32Data", "int32_data"},
      {"int64", "int64Data", "int64_data"},    {"uint64", "uint64Data", "uint64_data"},
      {"string", "stringData", "string_data"}};
  const cJSON *f = NULL;
  const char *field = NULL, *fname = NULL;
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
    const cJSON *g = get2(j, fields[k][1], fields[k][2]);
    if (!pb_has_data(g)) continue;
    const char *gname = get(j, fields[k][1]) ? fields[k][1] : fields[k][2];
    if (f) return bad(d, "the TensorProto has both \"%s\" and \"%s\"; its data must be in one", fname, gname);
    f = g;
    field = fields[k][0];
    fname = gname;
  }
  char sb[256];
  ox_shape_str(rank, dims, sb, sizeof sb);
  if (!f) {
    if (n) return bad(d, "the TensorProto has no data (\"rawData\" or a field such as \"floatData\") "
                         "for its %lld elements", (long long)n);
    return new_tensor(d, dt, rank, dims, out);
  }
  if (!pb_field_fits(field, dt))
    return bad(d, "\"%s\" cannot hold %s data", fname, ox_dtype_name(dt));

  size_t mark = push_key(d, fname);
  int rc;
  int bits = ox_dtypes[dt].file_bits;
  if (!strcmp(field, "raw")) {
    uint8_t *raw;
    int64_t nraw;
    int64_t need = bits % 8 == 0 ? n * (bits / 8) : n / (8 / bits) + (n % (8 / bits) != 0);
    rc = cJSON_IsString(f) ? b64_decode(d->a, f->valuestring, &raw, &nraw) : -1;
    if (rc == -2) rc = out_of_memory(d);
    else if (rc) rc = bad(d, "expected a base64 string");
    else if (nraw != need)
      rc = bad(d, "%lld bytes; a %s tensor of shape %s needs %lld", (long long)nraw,
               ox_dtype_name(dt), sb, (long long)need);
    else if (!(rc = new_tensor(d, dt, rank, dims, out))) {
      ox_tensor *t = &(*out)->u.t;
      if (bits < 8) {
        unpack_bits(dt, raw, n, t->data);
      } else {
        int parts = ox_dtype_is_complex(dt) ? 2 : 1;
        copy_le(t->data, raw, n * parts, ox_dtype_size(dt) / (size_t)parts);
        if (dt == OX_BOOL)
          for (int64_t i = 0; i < n; i++) ((uint8_t *)t->data)[i] = ((uint8_t *)t->data)[i] != 0;
      }
    }
  } else {
    int64_t have = cJSON_IsArray(f) ? list_len(f) : -1;
    int64_t need = ox_dtype_is_complex(dt) ? 2 * n : n;
    if (!strcmp(field, "int32") && bits > 0 && bits < 8) need = n / (8 / bits) + (n % (8 / bits) != 0);
    if (have < 0) rc = bad(d, "expected a list");
    else if (have != need)
      rc = bad(d, "%lld values; a %s tensor of shape %s needs %lld", (long long)have,
               ox_dtype_name(dt), sb, (long long)need);
    else if (!(rc = new_tensor(d, dt, rank, dims, out)))
      rc = pb_fill_list(d, f, field, &(*out)->u.t);
  }
  path_pop(d, mark);
  return rc;
}

/* ---- sequences, optionals, maps ---- */

static int dec_value(dec *d, const cJSON *j, const ox_type *want, ox_value **out);

static int dec_seq(dec *d, const cJSON *j, const ox_type *want, ox_value **out) {
  static const char *const keys[] = {"name", "sequence", "elem_dtype", "elem_type", NULL};
  OX_TRY(check_keys(d, j, "a sequence", keys));
  const cJSON *items = get(j, "sequence");
  if (!cJSON_IsArray(items)) return bad(d, "\"sequence\" must be a list of values");
  const ox_type *elem;
  OX_TRY(declared_elem_type(d, j, &elem));
  elem = with_declared(d, elem, want, OX_SEQUENCE);
  int64_t n = list_len(items);
  if (!elem && n == 0)
    return bad(d, "an empty sequence needs \"elem_dtype\" (or \"elem_type\") to say what it holds");
  ox_value **els = ox_alloc_array(d->a, n, sizeof *els);
  if (!els) return out_of_memory(d);
  size_t mark = push_key(d, "sequence");
  int64_t i = 0;
  for (const cJSON *c = items->child; c; c = c->next, i++) {
    size_t m2 = push_index(d, i);
    int rc = dec_value(d, c, elem, &els[i]);
    if (!rc && !elem) elem = ox_value_type(d->a, els[i]);
    if (!rc && !elem) rc = out_of_memory(d);
    if (!rc && !ox_value_fits(els[i], elem)) rc = type_mismatch(d, els[i], "a sequence", elem);
    path_pop(d, m2);
    if (rc) {
      path_pop(d, mark);
      return rc;
    }
  }
  path_pop(d, mark);
  OX_TRY(ox_seq_new(d->a, elem, n, out, d->e));
  if (n) memcpy((*out)->u.seq.v, els, (size_t)n * sizeof *els);
  return 0;
}

static int dec_opt(dec *d, const cJSON *j, const ox_type *want, ox_value **out) {
  static const char *const keys[] = {"name", "optional", "elem_dtype", "elem_type", NULL};
  OX_TRY(check_keys(d, j, "an optional", keys));
  const cJSON *x = get(j, "optional");
  const ox_type *elem;
  OX_TRY(declared_elem_type(d, j, &elem));
  elem = with_declared(d, elem, want, OX_OPTIONAL);
  ox_value *v = NULL;
  if (cJSON_IsNull(x)) {
    if (!elem)
      return bad(d, "an absent optional (null) needs \"elem_dtype\" (or \"elem_type\") to say what it would hold");
  } else {
    size_t mark = push_key(d, "optional");
    int rc = dec_value(d, x, elem, &v);
    if (!rc && !elem && !(elem = ox_value_type(d->a, v))) rc = out_of_memory(d);
    if (!rc && !ox_value_fits(v, elem)) rc = type_mismatch(d, v, "an optional", elem);
    path_pop(d, mark);
    if (rc) return rc;
  }
  return ox_opt_new(d->a, elem, v, out, d->e);
}

static int dec_map(dec *d, const cJSON *j, const ox_type *want, ox_value **out) {
  static const char *const keys[] = {"name", "map", "key_dtype", "value_type", NULL};
  OX_TRY(check_keys(d, j, "a map", keys));
  const cJSON *m = get(j, "map"), *jk = get(j, "key_dtype"), *jv = get(j, "value_type");
  int as_object = cJSON_IsObject(m);
  if (!as_object && !cJSON_IsArray(m))
    return bad(d, "\"map\" must be a list of [key, value] pairs (or an object)");
  int64_t n = list_len(m);
  const cJSON *first_key = !m->child ? NULL : as_object ? m->child : m->child->child;

  ox_dtype kdt = OX_UNDEFINED;
  const ox_type *vtype = NULL;
  if (jk) OX_TRY(dtype_from_json(d, jk, "key_dtype", &kdt));
  else if (want && want->kind == OX_MAP) kdt = want->elem;
  else if (as_object || cJSON_IsString(first_key)) kdt = OX_STRING;
  else if (cJSON_IsNumber(first_key)) kdt = OX_INT64;
  else if (!n) return bad(d, "an empty map needs \"key_dtype\" and \"value_type\"");
  else return bad(d, "cannot tell the type of the keys; give \"key_dtype\"");
  if (kdt != OX_STRING && !ox_dtype_is_signed_int(kdt) && !ox_dtype_is_unsigned_int(kdt))
    return bad(d, "map keys must be integers or strings, not %s", ox_dtype_name(kdt));
  if (jv) OX_TRY(type_from_json(d, jv, "value_type", &vtype));
  else if (want && want->kind == OX_MAP) vtype = want->inner;
  else if (!n) return bad(d, "an empty map needs \"value_type\"");

  ox_value *keys_t, **vals = ox_alloc_array(d->a, n, sizeof *vals);
  if (!vals) return out_of_memory(d);
  OX_TRY(new_tensor(d, kdt, 1, &n, &keys_t));
  size_t mark = push_key(d, "map");
  int64_t i = 0;
  int rc = 0;
  for (const cJSON *c = m->child; c && !rc; c = c->next, i++) {
    size_t m2 = push_index(d, i);
    const cJSON *key = NULL, *val = NULL;
    cJSON *key_node = NULL; /* a JSON string for an object's key */
    if (as_object) {
      key = key_node = cJSON_CreateString(c->string);
      val = c;
      if (!key_node) rc = out_of_memory(d);
    } else if (cJSON_IsArray(c) && list_len(c) == 2) {
      key = c->child;
      val = c->child->next;
    } else {
      rc = bad(d, "expected a [key, value] pair");
    }
    if (!rc) rc = set_elem(d, key, kdt, keys_t->u.t.data, i);
    if (!rc) rc = dec_value(d, val, vtype, &vals[i]);
    if (!rc && !vtype && !(vtype = ox_value_type(d->a, vals[i]))) rc = out_of_memory(d);
    if (!rc && !ox_value_fits(vals[i], vtype)) rc = type_mismatch(d, vals[i], "a map", vtype);
    cJSON_Delete(key_node);
    path_pop(d, m2);
  }
  path_pop(d, mark);
  if (rc) return rc;
  ox_value *mv = ox_alloc(d->a, sizeof *mv), *values;
  const ox_type *mt = ox_type_map(d->a, kdt, vtype);
  if (!mv || !mt) return out_of_memory(d);
  OX_TRY(ox_seq_new(d->a, vtype, n, &values, d->e));
  if (n) memcpy(values->u.seq.v, vals, (size_t)n * sizeof *vals);
  mv->kind = OX_MAP;
  mv->type = mt;
  mv->u.map.keys = keys_t;
  mv->u.map.values = values;
  *out = mv;
  return 0;
}

/* Any value. want (may be NULL) is the type expected here: it fills in
 * what the JSON leaves out; the caller checks the result against it. */
static int dec_value_in(dec *d, const cJSON *j, const ox_type *want, ox_value **out);

/* Values nest at most as deep as in .pb files (OX_PROTO_MAX_DEPTH), whatever
 * cJSON's own limit. */
static int dec_value(dec *d, const cJSON *j, const ox_type *want, ox_value **out) {
  if (d->depth > 64) return bad(d, "values nested more than %d deep", 64);
  d->depth++;
  int rc = dec_value_in(d, j, want, out);
  d->depth--;
  return rc;
}

static int dec_value_in(dec *d, const cJSON *j, const ox_type *want, ox_value **out) {
  int is_object = cJSON_IsObject(j);
  /* optional(X) declared: a plain X is a present optional, null an absent one */
  if (want && want->kind == OX_OPTIONAL && !(is_object && get(j, "optional"))) {
    ox_value *v = NULL;
    if (!cJSON_IsNull(j)) OX_TRY(dec_value(d, j, want->inner, &v));
    return ox_opt_new(d->a, want->inner, v, out, d->e);
  }
  if (is_object) {
    if (get(j, "sequence")) return dec_seq(d, j, want, out);
    if (get(j, "optional")) return dec_opt(d, j, want, out);
    if (get(j, "map")) return dec_map(d, j, want, out);
    if (get(j, "dtype") || get(j, "data") || get(j, "shape")) return dec_tensor(d, j, want, out);
    if (is_pb_tensor(j)) return dec_pb_tensor(d, j, out);
    if (!(get(j, "base64") && !j->child->next)) /* {"base64": ...} is bare string data */
      return bad(d, "expected a tensor {\"dtype\": ..., \"shape\": ..., \"data\": ...}, a sequence "
                    "{\"sequence\": [...]}, an optional {\"optional\": ...} or a map {\"map\": [...]}");
  }
  if (cJSON_IsNull(j)) return bad(d, "null stands only for an absent optional");
  if (want && want->kind == OX_TENSOR) return dec_data(d, want->elem, -1, NULL, j, out);
  char desc[80], tb[256];
  if (want) return bad(d, "expected a %s, got %s", ox_type_str(want, tb, sizeof tb), jdesc(j, desc, sizeof desc));
  return bad(d, "%s needs its dtype: write {\"dtype\": ..., \"shape\": ..., \"data\": ...}",
             jdesc(j, desc, sizeof desc));
}

/* Where the parser stopped, as "line 3, column 14". */
static int json_syntax_error(const char *text, size_t len, size_t at, ox_err *e) {
  int line = 1, col = 1;
  for (size_t i = 0; i < at && i < len; i++) {
    if (text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  if (at >= len) return ox_fail(e, OX_EINPUT, "invalid JSON: unexpected end of the text (line %d, column %d)", line, col);
  char near[24];
  size_t k = 0;
  for (; k < 20 && at + k < len && text[at + k] != '\n' && text[at + k] != '\r'; k++) {
    unsigned char c = (unsigned char)text[at + k];
    near[k] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  near[k] = 0;
  return ox_fail(e, OX_EINPUT, "invalid JSON at line %d, column %d, near \"%s\"", line, col, near);
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
static void count_cjson(void) {
  cJSON_Hooks h = {ox_mem_malloc, ox_mem_free};
  cJSON_InitHooks(&h);
}
void ox_json_hooks(void) { pthread_once(&hooks_once, count_cjson); }

void ox_cjson_add(cJSON *o, const char *key, cJSON *item) {
  if (!cJSON_AddItemToObject(o, key, item)) cJSON_Delete(item);
}
void ox_cjson_push(cJSON *arr, cJSON *item) {
  if (!cJSON_AddItemToArray(arr, item)) cJSON_Delete(item);
}

int ox_json_decode(ox_arena *a, const char *text, size_t len, const ox_type *want,
                   ox_value **out, const char **name_out, ox_err *e) {
  if (name_out) *name_out = NULL;
  *out = NULL;
  size_t at = 0;
  while (at < len && isspace((unsigned char)text[at])) at++;
  if (at == len) return ox_fail(e, OX_EINPUT, "invalid JSON: the text is empty");
  const char *nul = memchr(text, 0, len);
  if (nul) return ox_fail(e, OX_EINPUT, "invalid JSON: a NUL byte at offset %zu", (size_t)(nul - text));

  /* cJSON's tree (about 64 bytes a number) counts against --max-memory */
  pthread_once(&hooks_once, count_cjson);
  size_t refused = ox_mem_failures();
  /* a \u0000 inside a string is marked first (mark_nuls): cJSON keeps C strings */
  int marked = 0;
  for (const char *q = text; !marked && (q = memchr(q, '\\', len - (size_t)(q - text))); q++)
    marked = len - (size_t)(q - text) >= 6 && !memcmp(q + 1, "u0000", 5);
  size_t clen = len;
  char *copy = marked ? mark_nuls(text, len, &clen) : ox_mem_malloc(len + 1);
  if (!copy) return ox_oom(e, "for %zu bytes of JSON", len);
  if (!marked) {
    memcpy(copy, text, len);
    copy[len] = 0;
  }
  /* cJSON wants the NUL terminator inside the length to reject trailing text */
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(copy, clen + 1, &end, 1);
  if (!root) {
    size_t bad = end ? (size_t)(end - copy) : clen;
    int rc = ox_mem_failures() != refused
                 ? ox_oom(e, "parsing %zu bytes of JSON", len)
                 : json_syntax_error(text, len, marked ? unmarked_offset(text, len, bad) : bad, e);
    ox_mem_free(copy);
    return rc;
  }
  ox_mem_free(copy);

  dec d = {.a = a, .e = e, .marked = marked};
  int rc = 0;
  const cJSON *jname = cJSON_IsObject(root) ? get(root, "name") : NULL;
  if (jname) { /* a string, or {"base64": ...} as we write names that are not UTF-8 */
    ox_str s;
    size_t mark = push_key(&d, "name");
    rc = get_bytes(&d, jname, &s);
    if (!rc && memchr(s.p, 0, (size_t)s.n))
      rc = bad(&d, "holds a NUL byte, which no ONNX name can hold");
    path_pop(&d, mark);
    if (!rc && name_out) *name_out = s.p;
  }
  ox_value *v = NULL;
  if (!rc) rc = dec_value(&d, root, want, &v);
  if (!rc && want && !ox_value_fits(v, want)) {
    /* parts the JSON leaves open ("elem_dtype": "?") come from want */
    const ox_type *u = ox_type_unify(a, ox_value_type(a, v), want);
    if (u) ox_value_refine(a, v, u);
    if (!u || !ox_value_fits(v, want)) {
      char got[256], exp[256];
      rc = ox_fail(e, OX_EINPUT, "the JSON holds a %s but the model declares %s",
                   ox_value_desc(v, got, sizeof got), ox_type_str(want, exp, sizeof exp));
    }
  }
  cJSON_Delete(root);
  if (rc) {
    if (name_out) *name_out = NULL;
    return rc;
  }
  *out = v;
  return 0;
}

/* ======================================================================== */
/* Encoding                                                                 */
/* ======================================================================== */

typedef struct {
  ox_out *o;
  ox_err *e;
  uint64_t line_start; /* offset in o where the current line began, for wrapping */
} wr;

static void put(wr *w, const char *s, size_t n) { ox_out_put(w->o, s, n); }
static void puts_w(wr *w, const char *s) { put(w, s, strlen(s)); }
static void spaces(wr *w, size_t n) {
  static const char sp[] = "                                ";
  for (; n > sizeof sp - 1; n -= sizeof sp - 1) put(w, sp, sizeof sp - 1);
  put(w, sp, n);
}
static void newline(wr *w, size_t indent) {
  put(w, "\n", 1);
  w->line_start = w->o->n;
  spaces(w, indent);
}
static size_t column(const wr *w) { return (size_t)(w->o->n - w->line_start); }

/* Strict UTF-8 (no overlong forms, surrogates or NUL bytes). */
static int utf8_ok(const uint8_t *s, int64_t n) {
  for (int64_t i = 0; i < n;) {
    uint8_t c = s[i];
    if (c == 0) return 0;
    if (c < 0x80) {
      i++;
      continue;
    }
    int len;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
      min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
      min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
      min = 0x10000;
    } else {
      return 0;
    }
    if (n - i < len) return 0;
    for (int k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    i += len;
  }
  return 1;
}

/* Bytes as a JSON string, or {"base64": "..."} when they are not UTF-8. */
static void enc_bytes(wr *w, const char *p, int64_t n) {
  const uint8_t *s = (const uint8_t *)(p ? p : "");
  if (!utf8_ok(s, n)) {
    puts_w(w, "{\"base64\": \"");
    for (int64_t i = 0; i < n; i += 3) {
      uint32_t v = (uint32_t)s[i] << 16;
      if (i + 1 < n) v |= (uint32_t)s[i + 1] << 8;
      if (i + 2 < n) v |= s[i + 2];
      char q[4] = {b64_letters[v >> 18 & 63], b64_letters[v >> 12 & 63],
                   i + 1 < n ? b64_letters[v >> 6 & 63] : '=', i + 2 < n ? b64_letters[v & 63] : '='};
      put(w, q, 4);
    }
    puts_w(w, "\"}");
    return;
  }
  put(w, "\"", 1);
  int64_t run = 0; /* bytes not yet written that need no escape */
  for (int64_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      run++;
      continue;
    }
    put(w, (const char *)s + i - run, (size_t)run);
    run = 0;
    char esc[8];
    switch (c) {
    case '"': puts_w(w, "\\\""); break;
    case '\\': puts_w(w, "\\\\"); break;
    case '\n': puts_w(w, "\\n"); break;
    case '\r': puts_w(w, "\\r"); break;
    case '\t': puts_w(w, "\\t"); break;
    case '\b': puts_w(w, "\\b"); break;
    case '\f': puts_w(w, "\\f"); break;
    default:
      snprintf(esc, sizeof esc, "\\u%04x", c);
      puts_w(w, esc);
    }
  }
  put(w, (const char *)s + n - run, (size_t)run);
  put(w, "\"", 1);
}

/* A float as JSON: a number, or "nan", "inf", "-inf". part: FLOAT or DOUBLE. */
static void enc_float(wr *w, double x, ox_dtype part) {
  char buf[40];
  if (isnan(x)) snprintf(buf, sizeof buf, "\"nan\"");
  else if (isinf(x)) snprintf(buf, sizeof buf, x < 0 ? "\"-inf\"" : "\"inf\"");
  else if (part == OX_FLOAT) fmt_float(buf, sizeof buf, (float)x);
  else fmt_double(buf, sizeof buf, x);
  puts_w(w, buf);
}

/* Element i of t. */
static void enc_elem(wr *w, const ox_tensor *t, int64_t i) {
  char buf[48];
  ox_dtype dt = t->dt;
  switch (dt) {
  case OX_STRING: {
    const ox_str *s = &((const ox_str *)t->data)[i];
    enc_bytes(w, s->p, s->n);
    return;
  }
  case OX_BOOL:
    puts_w(w, ((const uint8_t *)t->data)[i] ? "true" : "false");
    return;
  case OX_FLOAT:
    enc_float(w, ((const float *)t->data)[i], OX_FLOAT);
    return;
  case OX_DOUBLE:
    enc_float(w, ((const double *)t->data)[i], OX_DOUBLE);
    return;
  case OX_COMPLEX64:
  case OX_COMPLEX128: {
    ox_dtype part = dt == OX_COMPLEX64 ? OX_FLOAT : OX_DOUBLE;
    put(w, "[", 1);
    enc_float(w, ox_load_f64(part, t->data, 2 * i), part);
    put(w, ", ", 2);
    enc_float(w, ox_load_f64(part, t->data, 2 * i + 1), part);
    put(w, "]", 1);
    return;
  }
  default:
    break;
  }
  if (ox_dtype_is_float(dt)) { /* the small floats */
    double x = ox_load_f64(dt, t->data, i);
    if (isnan(x) || isinf(x)) enc_float(w, x, OX_DOUBLE);
    else {
      fmt_small_float(buf, sizeof buf, dt, t->data, i);
      puts_w(w, buf);
    }
  } else if (dt == OX_UINT64) {
    uint64_t u = ox_load_u64(dt, t->data, i);
    snprintf(buf, sizeof buf, u <= (uint64_t)EXACT_LIMIT ? "%llu" : "\"%llu\"", (unsigned long long)u);
    puts_w(w, buf);
  } else {
    int64_t v = ox_load_i64(dt, t->data, i);
    int exact = v >= -(int64_t)EXACT_LIMIT && v <= (int64_t)EXACT_LIMIT;
    snprintf(buf, sizeof buf, exact ? "%lld" : "\"%lld\"", (long long)v);
    puts_w(w, buf);
  }
}

/* Dimension `level` of t, elements from *at on; col: the column of the
 * outermost '[' (inner lists line up under it). */
static void enc_level(wr *w, const ox_tensor *t, int level, int64_t *at, size_t col) {
  put(w, "[", 1);
  int innermost = level == t->rank - 1;
  for (int64_t i = 0; i < t->dims[level] && !w->o->err; i++) { /* a failed write ends it */
    if (i) {
      put(w, ",", 1);
      if (!innermost || column(w) > WRAP_COLUMN) newline(w, col + (size_t)level + 1);
      else put(w, " ", 1);
    }
    if (innermost) enc_elem(w, t, (*at)++);
    else enc_level(w, t, level + 1, at, col);
  }
  put(w, "]", 1);
}

static void enc_data(wr *w, const ox_tensor *t) {
  if (t->rank == 0) {
    enc_elem(w, t, 0);
    return;
  }
  int64_t at = 0;
  enc_level(w, t, 0, &at, column(w));
}

static int enc_value(wr *w, const ox_value *v, size_t indent, const char *name);

/* "elem_dtype": "float32" for tensor elements, "elem_type": "seq(...)" otherwise. */
static void enc_elem_type(wr *w, const ox_type *t, size_t indent) {
  char tb[256];
  newline(w, indent);
  if (t->kind == OX_TENSOR) {
    puts_w(w, "\"elem_dtype\": \"");
    puts_w(w, ox_dtype_name(t->elem));
  } else {
    puts_w(w, "\"elem_type\": \"");
    puts_w(w, ox_type_str(t, tb, sizeof tb));
  }
  puts_w(w, "\",");
}

static int enc_tensor(wr *w, const ox_tensor *t, size_t indent) {
  char buf[32];
  if (!ox_dtype_valid((int)t->dt)) return ox_fail(w->e, OX_EINPUT, "cannot write a tensor of unknown type %d", (int)t->dt);
  newline(w, indent);
  puts_w(w, "\"dtype\": \"");
  puts_w(w, ox_dtype_name(t->dt));
  puts_w(w, "\",");
  newline(w, indent);
  puts_w(w, "\"shape\": [");
  for (int k = 0; k < t->rank; k++) { /* past 2^53 a string, as int64 data is */
    int exact = t->dims[k] <= (int64_t)EXACT_LIMIT;
    snprintf(buf, sizeof buf, exact ? "%s%lld" : "%s\"%lld\"", k ? ", " : "", (long long)t->dims[k]);
    puts_w(w, buf);
  }
  puts_w(w, "],");
  newline(w, indent);
  puts_w(w, "\"data\": ");
  enc_data(w, t);
  return 0;
}

static int enc_value(wr *w, const ox_value *v, size_t indent, const char *name) {
  if (!v) return ox_fail(w->e, OX_EINPUT, "cannot write a missing value as JSON");
  if (v->kind != OX_TENSOR && !v->type)
    return ox_fail(w->e, OX_EINPUT, "cannot write a value without a type as JSON");
  size_t in = indent + 2;
  put(w, "{", 1);
  if (name) {
    newline(w, in);
    puts_w(w, "\"name\": ");
    enc_bytes(w, name, (int64_t)strlen(name));
    put(w, ",", 1);
  }
  switch (v->kind) {
  case OX_TENSOR:
    OX_TRY(enc_tensor(w, &v->u.t, in));
    break;
  case OX_SEQUENCE:
    enc_elem_type(w, v->type->inner, in);
    newline(w, in);
    puts_w(w, "\"sequence\": [");
    for (int64_t i = 0; i < v->u.seq.n; i++) {
      newline(w, in + 2);
      OX_TRY(enc_value(w, v->u.seq.v[i], in + 2, NULL));
      if (i + 1 < v->u.seq.n) put(w, ",", 1);
    }
    if (v->u.seq.n) newline(w, in);
    put(w, "]", 1);
    break;
  case OX_OPTIONAL:
    enc_elem_type(w, v->type->inner, in);
    newline(w, in);
    puts_w(w, "\"optional\": ");
    if (v->u.opt) OX_TRY(enc_value(w, v->u.opt, in, NULL));
    else puts_w(w, "null");
    break;
  case OX_MAP: {
    const ox_value *keys = v->u.map.keys, *vals = v->u.map.values;
    char tb[256];
    if (!keys || keys->kind != OX_TENSOR || !vals || vals->kind != OX_SEQUENCE ||
        vals->u.seq.n != keys->u.t.n)
      return ox_fail(w->e, OX_EINPUT, "cannot write a malformed map as JSON");
    newline(w, in);
    puts_w(w, "\"key_dtype\": \"");
    puts_w(w, ox_dtype_name(keys->u.t.dt));
    puts_w(w, "\",");
    newline(w, in);
    puts_w(w, "\"value_type\": \"");
    puts_w(w, ox_type_str(v->type->inner, tb, sizeof tb));
    puts_w(w, "\",");
    newline(w, in);
    puts_w(w, "\"map\": [");
    for (int64_t i = 0; i < keys->u.t.n; i++) {
      const ox_value *x = vals->u.seq.v[i];
      newline(w, in + 2);
      put(w, "[", 1);
      enc_elem(w, &keys->u.t, i);
      put(w, ", ", 2);
      if (x && x->kind == OX_TENSOR && x->u.t.rank == 0) enc_elem(w, &x->u.t, 0); /* bare scalar */
      else OX_TRY(enc_value(w, x, in + 2, NULL));
      put(w, "]", 1);
      if (i + 1 < keys->u.t.n) put(w, ",", 1);
    }
    if (keys->u.t.n) newline(w, in);
    put(w, "]", 1);
    break;
  }
  default:
    return ox_fail(w->e, OX_EINPUT, "cannot write a value of unknown kind %d as JSON", (int)v->kind);
  }
  newline(w, indent);
  put(w, "}", 1);
  return 0;
}

int ox_json_encode(const ox_value *v, const char *name, ox_buf *out, ox_err *e) {
  ox_out o;
  ox_out_buf(&o, out);
  int rc = ox_json_write(v, name, &o, e);
  ox_out_finish(&o);
  if (rc) out->n = o.base;
  return rc;
}

int ox_json_write(const ox_value *v, const char *name, ox_out *o, ox_err *e) {
  wr w = {.o = o, .e = e, .line_start = o->n};
  OX_TRY(enc_value(&w, v, 0, name));
  put(&w, "\n", 1);
  if (o->err == ENOMEM) return ox_oom(e, "while writing JSON");
  if (o->err) return ox_fail(e, OX_EINPUT, "write error: %s", strerror(o->err));
  return 0;
}
