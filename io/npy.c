/* io/npy.c: numpy's .npy (one array) and .npz (a zip archive of .npy
 * members, one per name), read and written without numpy.
 *
 * .npy (numpy/lib/format.py): "\x93NUMPY", major, minor, the header length
 * (2 bytes little-endian in 1.0, 4 in 2.0 and 3.0), the header: a Python dict
 * literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded
 * with spaces and ending in '\n', then the data. Read: versions 1.0-3.0,
 * either byte order, C or Fortran order (transposed on load), bool, the
 * integers, float16/32/64, complex64/128, and strings ('<U' UTF-32 and '|S'
 * bytes). Written: 1.0, little-endian, C order, strings as '<U'.
 *
 * .npz: a zip archive; member "x.npy" is the array named x. Read: stored and
 * deflate members, zip64 records; written: stored members with their CRC32.
 *
 * Everything in a file is checked against the file's length before it is
 * used, and sizes against the memory limit before anything is allocated. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io.h"

/* ---------------------------------------------------------------------------
 * dtypes: which ONNX types .npy carries, and as what
 * ------------------------------------------------------------------------- */

/* numpy's kind letter for dt ('b', 'i', 'u', 'f', 'c', 'U'), or 0 when
 * numpy's .npy has no such dtype (bfloat16, the float8s, the 4- and 2-bit
 * types, e8m0). Derived from the dtype list, not a table. */
static char npy_kind(ox_dtype dt) {
  const ox_dtype_info *d = &ox_dtypes[dt];
  if (!ox_dtype_valid((int)dt)) return 0;
  if (dt == OX_STRING) return 'U';
  if (dt == OX_BOOL) return 'b';
  if (d->file_bits != (int)(8 * d->size)) return 0; /* packed: int4, float4, int2... */
  if (ox_dtype_is_complex(dt)) return 'c';
  if (ox_dtype_is_signed_int(dt)) return 'i';
  if (ox_dtype_is_unsigned_int(dt)) return 'u';
  if (ox_dtype_is_float(dt)) { /* float16/32/64 only: numpy names them float<bits> */
    char nm[16];
    snprintf(nm, sizeof nm, "float%d", d->file_bits);
    return strcmp(d->numpy_name, nm) ? 0 : 'f';
  }
  return 0;
}

static ox_dtype from_kind(char kind, size_t size) {
  for (int d = 1; d < OX_DTYPE_MAX; d++)
    if (npy_kind((ox_dtype)d) == kind && (kind == 'U' || ox_dtype_size((ox_dtype)d) == size))
      return (ox_dtype)d;
  return OX_UNDEFINED;
}

static int host_le(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one;
}

/* Swap the bytes of n units of `size` bytes in place. */
static void swap_units(uint8_t *p, int64_t n, size_t size) {
  if (size < 2) return;
  for (int64_t i = 0; i < n; i++, p += size)
    for (size_t a = 0, b = size - 1; a < b; a++, b--) {
      uint8_t t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---------------------------------------------------------------------------
 * The .npy header: a Python dict literal
 * ------------------------------------------------------------------------- */

typedef struct {
  char descr[64];
  int have_descr, have_fortran, have_shape;
  int fortran;
  int rank;
  int64_t dims[OX_MAX_RANK];
} npy_header;

typedef struct { const char *p, *end; ox_err *e; } lex;

static void ws(lex *l) {
  while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r')) l->p++;
}

static int lit(lex *l, const char *s) {
  size_t n = strlen(s);
  ws(l);
  if ((size_t)(l->end - l->p) >= n && !memcmp(l->p, s, n)) {
    l->p += n;
    return 1;
  }
  return 0;
}

/* A quoted string (no escapes: numpy's keys and descrs have none). */
static int str_lit(lex *l, char *out, size_t cap) {
  ws(l);
  if (l->p >= l->end || (*l->p != '\'' && *l->p != '"')) return 0;
  char q = *l->p++;
  size_t n = 0;
  while (l->p < l->end && *l->p != q) {
    if (*l->p == '\\' || n + 1 >= cap) return 0;
    out[n++] = *l->p++;
  }
  if (l->p >= l->end) return 0;
  l->p++;
  out[n] = 0;
  return 1;
}

static int hdr_bad(lex *l, const char *what) {
  return ox_fail(l->e, OX_EINPUT, "bad .npy header: %s", what);
}

static int parse_header(const char *text, size_t n, npy_header *h, ox_err *e) {
  lex l = {text, text + n, e};
  memset(h, 0, sizeof *h);
  if (!lit(&l, "{")) return hdr_bad(&l, "it is not a dict");
  for (;;) {
    if (lit(&l, "}")) break;
    char key[32];
    if (!str_lit(&l, key, sizeof key)) return hdr_bad(&l, "expected a quoted key");
    if (!lit(&l, ":")) return hdr_bad(&l, "expected ':' after a key");
    if (!strcmp(key, "descr")) {
      ws(&l);
      if (l.p < l.end && *l.p == '[')
        return ox_fail(e, OX_EINPUT, "structured dtypes (a list of fields in 'descr') are "
                       "not supported; save each field as an array of its own");
      if (!str_lit(&l, h->descr, sizeof h->descr)) return hdr_bad(&l, "'descr' is not a dtype string");
      h->have_descr++;
    } else if (!strcmp(key, "fortran_order")) {
      if (lit(&l, "True")) h->fortran = 1;
      else if (lit(&l, "False")) h->fortran = 0;
      else return hdr_bad(&l, "'fortran_order' is neither True nor False");
      h->have_fortran++;
    } else if (!strcmp(key, "shape")) {
      if (!lit(&l, "(")) return hdr_bad(&l, "'shape' is not a tuple");
      h->rank = 0;
      while (!lit(&l, ")")) {
        ws(&l);
        if (l.p >= l.end || *l.p < '0' || *l.p > '9') return hdr_bad(&l, "'shape' holds something other than sizes");
        int64_t v = 0;
        while (l.p < l.end && *l.p >= '0' && *l.p <= '9') {
          if (v > (INT64_MAX - 9) / 10) return hdr_bad(&l, "a dimension in 'shape' is too large");
          v = v * 10 + (*l.p++ - '0');
        }
        if (l.p < l.end && *l.p == 'L') l.p++; /* Python 2's long */
        if (h->rank >= OX_MAX_RANK)
          return ox_fail(e, OX_EINPUT, "the array has more than %d dimensions, more than onnxop supports",
                         OX_MAX_RANK);
        h->dims[h->rank++] = v;
        if (!lit(&l, ",")) {
          if (!lit(&l, ")")) return hdr_bad(&l, "'shape' is not a tuple");
          break;
        }
      }
      h->have_shape++;
    } else {
      return ox_fail(e, OX_EINPUT, "bad .npy header: unknown key '%s'", key);
    }
    if (!lit(&l, ",")) {
      if (!lit(&l, "}")) return hdr_bad(&l, "expected ',' or '}'");
      break;
    }
  }
  ws(&l);
  if (l.p != l.end) return hdr_bad(&l, "text after the dict");
  if (h->have_descr != 1 || h->have_fortran != 1 || h->have_shape != 1)
    return hdr_bad(&l, "it needs 'descr', 'fortran_order' and 'shape', once each");
  return 0;
}

/* descr -> dtype, byte order (1: big-endian) and bytes per element */
static int parse_descr(const char *d, ox_dtype *dt, int *big, size_t *itemsize, ox_err *e) {
  const char *p = d;
  *big = !host_le();
  if (*p == '<' || *p == '>' || *p == '|' || *p == '=') {
    if (*p == '<') *big = 0;
    if (*p == '>') *big = 1;
    p++;
  }
  char kind = *p ? *p++ : 0;
  if (kind == 'O')
    return ox_fail(e, OX_EINPUT, "object arrays (dtype '%s') hold pickled Python objects; "
                   "onnxop does not read them", d);
  if (kind == 'V') return ox_fail(e, OX_EINPUT, "dtype '%s' (void, raw records) is not supported", d);
  unsigned long long n = 0;
  const char *digits = p;
  while (*p >= '0' && *p <= '9' && n < (1ull << 40)) n = n * 10 + (unsigned)(*p++ - '0');
  if (*p || p == digits || n >= (1ull << 40) || !strchr("biufcUS", kind ? kind : 'x'))
    return ox_fail(e, OX_EINPUT, "dtype '%s' is not supported (bool, integers, float16/32/64, "
                   "complex64/128 and strings are)", d);
  char k = kind == 'S' ? 'U' : kind;
  *dt = from_kind(k, (size_t)n);
  if (!*dt) return ox_fail(e, OX_EINPUT, "dtype '%s' is not supported", d);
  *itemsize = kind == 'U' ? (size_t)n * 4 : (size_t)n;
  return 0;
}

/* ---------------------------------------------------------------------------
 * Reading .npy
 * ------------------------------------------------------------------------- */

/* Copy a Fortran-order array (first index fastest) into C order. */
static void fortran_to_c(uint8_t *dst, const uint8_t *src, int rank, const int64_t *dims, int64_t n,
                         size_t es) {
  int64_t idx[OX_MAX_RANK] = {0}, fstride[OX_MAX_RANK];
  int64_t s = 1;
  for (int d = 0; d < rank; d++) {
    fstride[d] = s;
    s *= dims[d];
  }
  int64_t off = 0; /* element offset in src of idx */
  for (int64_t i = 0; i < n; i++) {
    memcpy(dst + (size_t)i * es, src + (size_t)off * es, es);
    for (int d = rank - 1; d >= 0; d--) { /* C-order odometer */
      if (++idx[d] < dims[d]) {
        off += fstride[d];
        break;
      }
      off -= (idx[d] - 1) * fstride[d];
      idx[d] = 0;
    }
  }
}

/* Append code point c as UTF-8. */
static size_t put_utf8(char *o, uint32_t c) {
  if (c < 0x80) { o[0] = (char)c; return 1; }
  if (c < 0x800) { o[0] = (char)(0xc0 | c >> 6); o[1] = (char)(0x80 | (c & 0x3f)); return 2; }
  if (c < 0x10000) {
    o[0] = (char)(0xe0 | c >> 12); o[1] = (char)(0x80 | (c >> 6 & 0x3f)); o[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | c >> 18); o[1] = (char)(0x80 | (c >> 12 & 0x3f));
  o[2] = (char)(0x80 | (c >> 6 & 0x3f)); o[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* Strings: 'U' (UTF-32 code units, to UTF-8) or 'S' (bytes); numpy drops
 * trailing NULs. */
static int load_strings(ox_arena *a, ox_tensor *t, const uint8_t *raw, size_t itemsize, int unicode,
                        int big, ox_err *e) {
  ox_str *s = t->data;
  size_t units = unicode ? itemsize / 4 : itemsize;
  for (int64_t i = 0; i < t->n; i++) {
    const uint8_t *p = raw + (size_t)i * itemsize;
    size_t len = units;
    if (unicode) {
      while (len && !rd32(p + 4 * (len - 1))) len--; /* zero is zero in both orders */
      char *o = ox_alloc(a, len * 4 + 1);
      if (!o) return ox_oom(e, NULL);
      size_t at = 0;
      for (size_t k = 0; k < len; k++) {
        const uint8_t *q = p + 4 * k;
        uint32_t c = big ? (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3] : rd32(q);
        if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
          return ox_fail(e, OX_EINPUT, "string element %lld holds U+%X, which is not a Unicode character",
                         (long long)i, c);
        at += put_utf8(o + at, c);
      }
      s[i].p = o;
      s[i].n = (int64_t)at;
    } else {
      while (len && !p[len - 1]) len--;
      char *o = ox_strndup(a, (const char *)p, len);
      if (!o) return ox_oom(e, NULL);
      s[i].p = o;
      s[i].n = (int64_t)len;
    }
  }
  return 0;
}

static int decode_npy(ox_arena *a, const uint8_t *buf, size_t len, ox_value **out, ox_err *e) {
  static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (len < 10 || memcmp(buf, magic, 6))
    return ox_fail(e, OX_EINPUT, "not a .npy file (no \\x93NUMPY magic)");
  int major = buf[6], minor = buf[7];
  if (major < 1 || major > 3 || minor != 0)
    return ox_fail(e, OX_EINPUT, ".npy version %d.%d is not one onnxop reads (1.0, 2.0, 3.0)", major, minor);
  size_t pre = major == 1 ? 10 : 12;
  if (len < pre) return ox_fail(e, OX_EINPUT, "the .npy file ends inside its preamble");
  uint64_t hl = major == 1 ? rd16(buf + 8) : rd32(buf + 8);
  if (hl > len - pre)
    return ox_fail(e, OX_EINPUT, "the .npy header length %llu runs past the end of the file (%zu bytes)",
                   (unsigned long long)hl, len);
  npy_header h;
  OX_TRY(parse_header((const char *)buf + pre, (size_t)hl, &h, e));
  ox_dtype dt = OX_UNDEFINED;
  int big = 0;
  size_t itemsize = 0;
  OX_TRY(parse_descr(h.descr, &dt, &big, &itemsize, e));
  char sb[256];
  int64_t n = ox_numel(h.rank, h.dims, itemsize);
  if (n < 0)
    return ox_fail(e, OX_EINPUT, "shape %s of '%s' is too large", ox_shape_str(h.rank, h.dims, sb, sizeof sb), h.descr);
  uint64_t need = (uint64_t)n * itemsize, have = len - pre - hl;
  if (have < need)
    return ox_fail(e, OX_EINPUT, "the data is short: shape %s of '%s' needs %llu bytes, the file has %llu",
                   ox_shape_str(h.rank, h.dims, sb, sizeof sb), h.descr, (unsigned long long)need,
                   (unsigned long long)have);
  if (have > need)
    return ox_fail(e, OX_EINPUT, "%llu bytes follow the data of shape %s of '%s'",
                   (unsigned long long)(have - need), ox_shape_str(h.rank, h.dims, sb, sizeof sb), h.descr);
  const uint8_t *raw = buf + pre + hl;
  ox_value *v;
  OX_TRY(ox_tensor_new_uninit(a, dt, h.rank, h.dims, &v, e)); /* every element is written below */
  ox_tensor *t = &v->u.t;
  int transpose = h.fortran && h.rank > 1 && n > 1;
  if (dt == OX_STRING) {
    if (transpose && itemsize) {
      uint8_t *c = ox_alloc(a, (size_t)need);
      if (!c) return ox_oom(e, NULL);
      fortran_to_c(c, raw, h.rank, h.dims, n, itemsize);
      raw = c;
    }
    OX_TRY(load_strings(a, t, raw, itemsize, h.descr[strspn(h.descr, "<>|=")] == 'U', big, e));
  } else if (n) {
    if (transpose) fortran_to_c(t->data, raw, h.rank, h.dims, n, itemsize);
    else memcpy(t->data, raw, (size_t)need);
    if (big != !host_le()) {
      int cx = ox_dtype_is_complex(dt);
      swap_units(t->data, cx ? 2 * n : n, cx ? itemsize / 2 : itemsize);
    }
    if (dt == OX_BOOL)
      for (int64_t i = 0; i < n; i++) ((uint8_t *)t->data)[i] = ((uint8_t *)t->data)[i] != 0;
  }
  *out = v;
  return 0;
}

/* The declared type must fit; uint16 is taken as bfloat16 when that is
 * declared (numpy has no bfloat16: such data is saved as its bits). */
static int check_want(ox_arena *a, ox_value *v, const ox_type *want, ox_err *e) {
  if (!want) return 0;
  if (want->kind == OX_TENSOR && want->elem == OX_BFLOAT16 && v->u.t.dt == OX_UINT16) {
    v->u.t.dt = OX_BFLOAT16;
    v->type = ox_type_tensor(OX_BFLOAT16);
  }
  if (ox_value_fits(v, want)) return 0;
  char b1[256], b2[256];
  (void)a;
  return ox_fail(e, OX_EINPUT, "the file holds %s but the model declares %s%s", ox_value_desc(v, b1, sizeof b1),
                 ox_type_str(want, b2, sizeof b2),
                 want->kind != OX_TENSOR ? " (.npy holds tensors only: use .pb or .json)" : "");
}

int ox_npy_decode(ox_arena *a, const uint8_t *buf, size_t len, const ox_type *want, ox_value **out,
                  ox_err *e) {
  ox_value *v = NULL;
  OX_TRY(decode_npy(a, buf, len, &v, e));
  OX_TRY(check_want(a, v, want, e));
  *out = v;
  return 0;
}

/* ---------------------------------------------------------------------------
 * Writing .npy
 * ------------------------------------------------------------------------- */

/* Code points of a UTF-8 string, or -1 if it is not valid UTF-8 (overlong
 * forms, surrogates and values past U+10FFFF are not). With o, decoded into it. */
static int64_t utf8_decode(const ox_str *s, uint32_t *o) {
  const uint8_t *p = (const uint8_t *)s->p, *end = p + s->n;
  int64_t n = 0;
  while (p < end) {
    uint32_t c = *p++;
    int more = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : -1;
    if (more < 0 || end - p < more) return -1;
    if (more) c &= 0x3fu >> more;
    for (int k = 0; k < more; k++) {
      if ((p[k] & 0xc0) != 0x80) return -1;
      c = c << 6 | (p[k] & 0x3f);
    }
    p += more;
    if ((more == 2 && c < 0x800) || (more == 3 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
      return -1;
    if (o) o[n] = c;
    n++;
  }
  return n;
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

int ox_npy_can_hold(const ox_value *v, ox_err *e) {
  char b[256];
  if (!v) return ox_fail(e, OX_EINPUT, "no value to write");
  if (v->kind != OX_TENSOR)
    return ox_fail(e, OX_EINPUT, "a .npy file holds one tensor, and this is a %s: use .pb or .json",
                   ox_value_desc(v, b, sizeof b));
  if (!npy_kind(v->u.t.dt))
    return ox_fail(e, OX_EINPUT, "numpy's .npy format has no %s dtype: use .pb or .json",
                   ox_dtypes[v->u.t.dt].onnx_name);
  return 0;
}

/* The header of v's .npy (preamble, dict, padding, '\n') into h; *es: the
 * bytes per element in the file; *maxcp: code points per string element. */
static int write_header(const ox_value *v, ox_buf *h, size_t *es_out, int64_t *maxcp_out, ox_err *e) {
  OX_TRY(ox_npy_can_hold(v, e));
  const ox_tensor *t = &v->u.t;
  char descr[32];
  size_t es = ox_dtype_size(t->dt);
  int64_t maxcp = 1; /* numpy writes '<U1' for an array of empty strings */
  if (t->dt == OX_STRING) {
    const ox_str *s = t->data;
    for (int64_t i = 0; i < t->n; i++) {
      int64_t c = utf8_decode(&s[i], NULL);
      if (c < 0)
        return ox_fail(e, OX_EINPUT, "string element %lld is not UTF-8, and .npy's '<U' strings are "
                       "Unicode: use .pb or .json", (long long)i);
      if (s[i].n && !s[i].p[s[i].n - 1])
        return ox_fail(e, OX_EINPUT, "string element %lld ends with a NUL, which .npy drops: "
                       "use .pb or .json", (long long)i);
      if (c > maxcp) maxcp = c;
    }
    if (maxcp > INT32_MAX / 4) return ox_fail(e, OX_EINPUT, "a string is too long for .npy");
    snprintf(descr, sizeof descr, "<U%lld", (long long)maxcp);
    es = (size_t)maxcp * 4;
  } else {
    snprintf(descr, sizeof descr, "%c%c%zu", es == 1 ? '|' : '<', npy_kind(t->dt), es);
  }
  if (t->n && es && (uint64_t)t->n > (uint64_t)SIZE_MAX / es) return ox_fail(e, OX_EINPUT, "the array is too large");
  ox_buf d = {0};
  int bad = ox_buf_printf(&d, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int k = 0; k < t->rank; k++)
    bad |= ox_buf_printf(&d, "%s%lld%s", k ? ", " : "", (long long)t->dims[k], t->rank == 1 ? "," : "");
  bad |= ox_buf_printf(&d, "), }");
  /* pad with spaces so that the data starts on a 64-byte boundary; '\n' last */
  size_t pre = 10, total = pre + d.n + 1;
  int v2 = 0;
  if (total - pre > 65535) v2 = 1, pre = 12, total = pre + d.n + 1;
  size_t pad = (64 - total % 64) % 64;
  for (size_t i = 0; i < pad && !bad; i++) bad |= ox_buf_put(&d, " ", 1);
  bad |= ox_buf_put(&d, "\n", 1);
  uint8_t pream[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (uint8_t)(v2 ? 2 : 1), 0};
  put32(pream + 8, (uint32_t)d.n);
  bad |= ox_buf_put(h, pream, pre);
  bad |= ox_buf_put(h, d.p, d.n);
  ox_buf_free(&d);
  if (bad) return ox_oom(e, NULL);
  *es_out = es;
  *maxcp_out = maxcp;
  return 0;
}

/* The elements of t as .npy stores them, es bytes each, in bounded pieces. */
static void npy_data(const ox_tensor *t, size_t es, int64_t maxcp, ox_out *o) {
  if (t->dt == OX_STRING) { /* '<U': maxcp UTF-32 code units each, zero-padded */
    const ox_str *s = t->data;
    uint32_t *cp = ox_mem_malloc((size_t)maxcp * sizeof *cp);
    uint8_t *el = ox_mem_malloc(es);
    if ((!cp || !el) && !o->err) o->err = ENOMEM;
    for (int64_t i = 0; cp && el && !o->err && i < t->n; i++) {
      int64_t c = utf8_decode(&s[i], cp);
      memset(el, 0, es);
      for (int64_t k = 0; k < c; k++) put32(el + 4 * (size_t)k, cp[k]);
      ox_out_put(o, el, es);
    }
    ox_mem_free(cp);
    ox_mem_free(el);
    return;
  }
  size_t nbytes = (size_t)t->n * es;
  if (host_le()) { /* the file's layout: straight from the tensor */
    ox_out_put(o, t->data, nbytes);
    return;
  }
  int cx = ox_dtype_is_complex(t->dt);
  uint8_t tmp[65536];
  size_t step = sizeof tmp / es * es;
  for (size_t at = 0; at < nbytes && !o->err; at += step) {
    size_t k = nbytes - at < step ? nbytes - at : step;
    memcpy(tmp, (const uint8_t *)t->data + at, k);
    swap_units(tmp, (int64_t)(cx ? 2 * (k / es) : k / es), cx ? es / 2 : es);
    ox_out_put(o, tmp, k);
  }
}

/* The error of a failed stream: out of memory, or the file's write error. */
static int out_fail(ox_out *o, ox_err *e) {
  if (o->err == ENOMEM) return ox_oom(e, NULL);
  return ox_fail(e, OX_EINPUT, "write error: %s", strerror(o->err));
}

int ox_npy_write(const ox_value *v, ox_out *o, ox_err *e) {
  ox_buf h = {0};
  size_t es;
  int64_t maxcp;
  int rc = write_header(v, &h, &es, &maxcp, e);
  if (!rc) {
    ox_out_put(o, h.p, h.n);
    npy_data(&v->u.t, es, maxcp, o);
    if (o->err) rc = out_fail(o, e);
  }
  ox_buf_free(&h);
  return rc;
}

int ox_npy_encode(const ox_value *v, ox_buf *out, ox_err *e) {
  ox_out o;
  ox_out_buf(&o, out);
  int rc = ox_npy_write(v, &o, e);
  ox_out_finish(&o);
  if (rc) out->n = o.base;
  return rc;
}

/* ---------------------------------------------------------------------------
 * .npz: the zip archive
 * ------------------------------------------------------------------------- */

enum { SIG_LOCAL = 0x04034b50, SIG_CENTRAL = 0x02014b50, SIG_END = 0x06054b50,
       SIG_END64 = 0x06064b50, SIG_LOC64 = 0x07064b50 };

typedef struct {
  char *name;          /* as stored */
  char *key;           /* without ".npy" */
  int method;
  uint32_t crc;
  uint64_t csize, usize, off;
} zentry;

/* Keys in order, the earlier entry first among equal keys. */
static int cmp_key(const void *x, const void *y) {
  const zentry *p = *(const zentry *const *)x, *q = *(const zentry *const *)y;
  int c = strcmp(p->key, q->key);
  return c ? c : (p > q) - (p < q);
}

/* The central directory of an archive, every entry checked against the file;
 * *sorted: the entries by key (no key twice), for ox_npz_find. */
static int zip_list(ox_arena *a, const uint8_t *buf, size_t len, zentry **out, int64_t *count,
                    const zentry ***sorted, ox_err *e) {
  if (len < 22) return ox_fail(e, OX_EINPUT, "not a zip archive (too short for one)");
  size_t pos = len - 22, stop = len - 22 > 65535 ? len - 22 - 65535 : 0;
  for (;; pos--) {
    if (rd32(buf + pos) == SIG_END && pos + 22 + rd16(buf + pos + 20) <= len) break;
    if (pos == stop) return ox_fail(e, OX_EINPUT, "not a zip archive (no end of central directory record)");
  }
  const uint8_t *end = buf + pos;
  uint64_t n = rd16(end + 10), cdsize = rd32(end + 12), cdoff = rd32(end + 16);
  size_t cdlimit = pos;
  if (rd16(end + 4) || rd16(end + 6)) {
    if (rd16(end + 4) != 0xffff) return ox_fail(e, OX_EINPUT, "zip archives split over several disks are not supported");
  }
  int has_loc64 = pos >= 20 && rd32(buf + pos - 20) == SIG_LOC64;
  /* zip64: the record the locator points to holds the values; a count of
   * 0xffff without one is 65535 entries (Python's zipfile writes such
   * archives) */
  if ((n == 0xffff && has_loc64) || cdsize == 0xffffffff || cdoff == 0xffffffff) {
    if (!has_loc64) return ox_fail(e, OX_EINPUT, "bad zip archive: zip64 sizes but no zip64 locator");
    uint64_t e64 = rd64(buf + pos - 20 + 8);
    if (e64 > pos - 20 || pos - 20 - e64 < 56 || rd32(buf + e64) != SIG_END64)
      return ox_fail(e, OX_EINPUT, "bad zip archive: the zip64 end record is not where the locator says");
    n = rd64(buf + e64 + 32);
    cdsize = rd64(buf + e64 + 40);
    cdoff = rd64(buf + e64 + 48);
    cdlimit = (size_t)e64;
  }
  if (cdoff > cdlimit || cdsize > cdlimit - cdoff)
    return ox_fail(e, OX_EINPUT, "bad zip archive: the central directory (offset %llu, %llu bytes) is outside the file",
                   (unsigned long long)cdoff, (unsigned long long)cdsize);
  if (n > cdsize / 46)
    return ox_fail(e, OX_EINPUT, "bad zip archive: %llu entries cannot fit a %llu-byte central directory",
                   (unsigned long long)n, (unsigned long long)cdsize);
  zentry *z = ox_alloc_array(a, (int64_t)n + 1, sizeof *z);
  if (!z) return ox_oom(e, NULL);
  const uint8_t *p = buf + cdoff, *cdend = buf + cdoff + cdsize;
  for (uint64_t i = 0; i < n; i++) {
    if (cdend - p < 46 || rd32(p) != SIG_CENTRAL)
      return ox_fail(e, OX_EINPUT, "bad zip archive: central directory entry %llu is broken", (unsigned long long)i);
    uint32_t flags = rd16(p + 8), nl = rd16(p + 28), xl = rd16(p + 30), cl = rd16(p + 32);
    if ((size_t)(cdend - p) - 46 < (size_t)nl + xl + cl)
      return ox_fail(e, OX_EINPUT, "bad zip archive: central directory entry %llu runs past the directory",
                     (unsigned long long)i);
    zentry *ze = &z[i];
    ze->name = ox_strndup(a, (const char *)p + 46, nl);
    if (!ze->name) return ox_oom(e, NULL);
    ze->method = (int)rd16(p + 10);
    ze->crc = rd32(p + 16);
    ze->csize = rd32(p + 20);
    ze->usize = rd32(p + 24);
    ze->off = rd32(p + 42);
    /* zip64 extra field: the 8-byte values of the fields that are 0xffffffff */
    const uint8_t *x = p + 46 + nl, *xend = x + xl;
    while (xend - x >= 4) {
      uint32_t id = rd16(x), sz = rd16(x + 2);
      if ((size_t)(xend - x) - 4 < sz) break;
      if (id == 1) {
        const uint8_t *q = x + 4, *qend = q + sz;
        uint64_t *f[3] = {&ze->usize, &ze->csize, &ze->off};
        for (int k = 0; k < 3; k++)
          if (*f[k] == 0xffffffff) {
            if (qend - q < 8) return ox_fail(e, OX_EINPUT, "bad zip archive: member '%s' has a short zip64 field", ze->name);
            *f[k] = rd64(q);
            q += 8;
          }
      }
      x += 4 + sz;
    }
    p += 46 + (size_t)nl + xl + cl;
    /* names are keys, never paths */
    if (!nl || memchr(ze->name, 0, nl) || strchr(ze->name, '/') || strchr(ze->name, '\\') || ze->name[0] == '.')
      return ox_fail(e, OX_EINPUT, "zip member '%s' has a path or an empty name; an .npz holds plain names",
                     ze->name);
    if (flags & 1) return ox_fail(e, OX_EINPUT, "zip member '%s' is encrypted", ze->name);
    if (ze->method != 0 && ze->method != 8)
      return ox_fail(e, OX_EINPUT, "zip member '%s' uses compression method %d (stored and deflate are read)",
                     ze->name, ze->method);
    size_t kl = nl >= 4 && !strcmp(ze->name + nl - 4, ".npy") ? nl - 4 : nl;
    ze->key = ox_strndup(a, ze->name, kl);
    if (!ze->key) return ox_oom(e, NULL);
    /* the member's data: after its local header, before the central directory */
    if (ze->off > cdoff || cdoff - ze->off < 30 || rd32(buf + ze->off) != SIG_LOCAL)
      return ox_fail(e, OX_EINPUT, "bad zip archive: member '%s' has no local header at offset %llu", ze->name,
                     (unsigned long long)ze->off);
    uint64_t data = ze->off + 30 + rd16(buf + ze->off + 26) + rd16(buf + ze->off + 28);
    if (data > cdoff || ze->csize > cdoff - data)
      return ox_fail(e, OX_EINPUT, "bad zip archive: member '%s' (%llu bytes at offset %llu) runs past its end",
                     ze->name, (unsigned long long)ze->csize, (unsigned long long)data);
    ze->off = data;
    if (ze->method == 0 && ze->csize != ze->usize)
      return ox_fail(e, OX_EINPUT, "bad zip archive: stored member '%s' has two sizes", ze->name);
  }
  /* a key twice: sorted, they are neighbours (n log n, where comparing each
   * entry with those before it took n^2 / 2 string comparisons: minutes for
   * a hostile directory of a million entries) */
  const zentry **by = ox_alloc_array(a, (int64_t)n + 1, sizeof *by);
  if (!by) return ox_oom(e, NULL);
  for (uint64_t i = 0; i < n; i++) by[i] = &z[i];
  qsort(by, (size_t)n, sizeof *by, cmp_key);
  for (uint64_t i = 1; i < n; i++)
    if (!strcmp(by[i]->key, by[i - 1]->key)) return ox_fail(e, OX_EINPUT, "the archive holds '%s' twice", by[i]->key);
  *out = z;
  *count = (int64_t)n;
  *sorted = by;
  return 0;
}

/* zlib's state and window (about 40 KB) count against --max-memory too. */
static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return ox_mem_malloc((size_t)items * size);
}
static void z_free(voidpf opaque, voidpf p) {
  (void)opaque;
  ox_mem_free(p);
}

/* The bytes of one member, inflated (into a) and checked against its CRC. */
static int zip_extract(ox_arena *a, const uint8_t *buf, const zentry *z, const uint8_t **data, size_t *len,
                       ox_err *e) {
  const uint8_t *src = buf + z->off;
  if (z->method == 0) {
    *data = src;
    *len = (size_t)z->usize;
  } else {
    size_t lim = ox_memory_limit(), in_use = ox_memory_in_use();
    char ls[200];
    ox_memory_limit_str(ls, sizeof ls);
    if (z->usize > lim || z->usize > UINT32_MAX * (uint64_t)1024)
      return ox_fail(e, OX_ENOMEM, "it declares %llu bytes uncompressed, more than the memory "
                     "limit allows (%s)", (unsigned long long)z->usize, ls);
    if (in_use > lim || z->usize > lim - in_use)
      return ox_fail(e, OX_ENOMEM, "the memory limit (%s) is reached: %zu bytes are "
                     "in use, and it declares %llu bytes uncompressed", ls, in_use, (unsigned long long)z->usize);
    uint8_t *o = ox_alloc_uninit(a, (size_t)z->usize + 1); /* inflate fills what is used */
    if (!o) return ox_oom(e, "inflating it");
    z_stream s;
    memset(&s, 0, sizeof s);
    s.zalloc = z_alloc;
    s.zfree = z_free;
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK) return ox_oom(e, "starting zlib");
    uint64_t in_left = z->csize, out_left = z->usize + 1; /* one more: to see if it overflows */
    s.next_in = (Bytef *)src;
    s.next_out = o;
    int rc = Z_OK;
    while (rc == Z_OK) {
      uInt ai = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
      uInt ao = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
      s.avail_in = ai;
      s.avail_out = ao;
      rc = inflate(&s, Z_NO_FLUSH);
      in_left -= ai - s.avail_in;
      out_left -= ao - s.avail_out;
      if (rc == Z_OK && ai == s.avail_in && ao == s.avail_out) rc = Z_BUF_ERROR; /* no progress */
    }
    uint64_t got = z->usize + 1 - out_left;
    inflateEnd(&s);
    if (rc != Z_STREAM_END) {
      if (got > z->usize)
        return ox_fail(e, OX_EINPUT, "it inflates to more than its declared %llu bytes",
                       (unsigned long long)z->usize);
      return ox_fail(e, OX_EINPUT, "not valid deflate data (truncated or corrupt)");
    }
    if (got != z->usize)
      return ox_fail(e, OX_EINPUT, "it inflates to %llu bytes, not its declared %llu",
                     (unsigned long long)got, (unsigned long long)z->usize);
    *data = o;
    *len = (size_t)z->usize;
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  const uint8_t *p = *data;
  for (size_t left = *len; left;) {
    uInt k = left > (1u << 30) ? (1u << 30) : (uInt)left;
    crc = crc32(crc, p, k);
    p += k;
    left -= k;
  }
  if ((uint32_t)crc != z->crc)
    return ox_fail(e, OX_EINPUT, "corrupt (CRC32 %08x, the archive says %08x)",
                   (unsigned)crc, (unsigned)z->crc);
  return 0;
}

/* An archive read once: its bytes (not copied) and its directory. */
struct ox_npz {
  const uint8_t *buf;
  size_t len;
  zentry *z;
  int64_t n;
  const zentry **by_key; /* z[] by key, for ox_npz_find */
  const char **keys;     /* z[i].key, for ox_npz_keys */
};

int ox_npz_open_buffer(ox_arena *a, const uint8_t *buf, size_t len, ox_npz **out, ox_err *e) {
  ox_npz *z = ox_alloc(a, sizeof *z);
  if (!z) return ox_oom(e, NULL);
  z->buf = buf;
  z->len = len;
  OX_TRY(zip_list(a, buf, len, &z->z, &z->n, &z->by_key, e));
  if (!(z->keys = ox_alloc_array(a, z->n + 1, sizeof *z->keys))) return ox_oom(e, NULL);
  for (int64_t i = 0; i < z->n; i++) z->keys[i] = z->z[i].key;
  *out = z;
  return 0;
}

int64_t ox_npz_count(const ox_npz *z) { return z->n; }
const char *const *ox_npz_keys(const ox_npz *z) { return z->keys; }

/* The entry whose key is k[0, kl), or NULL (binary search). */
static const zentry *by_key(const ox_npz *z, const char *k, size_t kl) {
  int64_t lo = 0, hi = z->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    const char *key = z->by_key[mid]->key;
    int c = strncmp(key, k, kl);
    if (!c) c = key[kl] != 0; /* k is a prefix of key: key is after it */
    if (!c) return z->by_key[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

int64_t ox_npz_find(const ox_npz *z, const char *member) {
  size_t ml = strlen(member);
  const zentry *hit = by_key(z, member, ml);
  if (!hit && ml > 4 && !strcmp(member + ml - 4, ".npy")) { /* "x.npy": the member stored as x.npy */
    hit = by_key(z, member, ml - 4);
    if (hit && strcmp(hit->name, member)) hit = NULL; /* key "x" of a member stored as "x" */
  }
  return hit ? hit - z->z : -1;
}

int ox_npz_member(const ox_npz *z, const char *member, int64_t *i, ox_err *e) {
  if ((*i = ox_npz_find(z, member)) >= 0) return 0;
  ox_buf b = {0};
  for (int64_t k = 0; k < z->n && k < 20; k++) ox_buf_printf(&b, "%s%s", k ? ", " : "", z->z[k].key);
  int rc = ox_fail(e, OX_EINPUT, "the .npz archive has no member '%s' (it holds %s%s)", member,
                   b.p ? (char *)b.p : "", z->n > 20 ? ", ..." : "");
  ox_buf_free(&b);
  return rc;
}

int ox_npz_get(ox_arena *a, const ox_npz *z, int64_t i, const ox_type *want, ox_value **out, ox_err *e) {
  const zentry *ze = &z->z[i];
  const uint8_t *data = NULL;
  size_t n = 0;
  /* a deflated member is inflated into scratch memory, given back once decoded */
  ox_arena *t = ze->method ? ox_arena_new() : NULL;
  int rc = ze->method && !t ? ox_oom(e, NULL) : zip_extract(t, z->buf, ze, &data, &n, e);
  if (!rc) rc = ox_npy_decode(a, data, n, want, out, e);
  ox_arena_free(t);
  if (rc) ox_prefix(e, "member '%s': ", ze->name);
  return rc;
}

int ox_npz_list(ox_arena *a, const uint8_t *buf, size_t len, const char ***names, int64_t *n, ox_err *e) {
  ox_npz *z;
  OX_TRY(ox_npz_open_buffer(a, buf, len, &z, e));
  *names = z->keys;
  *n = z->n;
  return 0;
}

/* The directory is read into scratch memory: the value (in a) holds only
 * its own bytes and name. */
int ox_npz_decode(ox_arena *a, const uint8_t *buf, size_t len, const char *member, const ox_type *want,
                  ox_value **out, const char **name_out, ox_err *e) {
  ox_npz *z;
  int64_t pick = -1;
  if (name_out) *name_out = NULL;
  ox_arena *t = ox_arena_new();
  if (!t) return ox_oom(e, NULL);
  int rc = ox_npz_open_buffer(t, buf, len, &z, e);
  if (!rc && !z->n)
    rc = ox_fail(e, OX_EINPUT, "the .npz archive is empty");
  else if (!rc && !member && z->n > 1)
    rc = ox_fail(e, OX_EUSAGE, "the .npz archive holds %lld arrays (%s, %s%s); name one as FILE.npz:NAME",
                 (long long)z->n, z->z[0].key, z->z[1].key, z->n > 2 ? ", ..." : "");
  else if (!rc && member)
    rc = ox_npz_member(z, member, &pick, e);
  else if (!rc)
    pick = 0;
  if (!rc) rc = ox_npz_get(a, z, pick, want, out, e);
  if (!rc && name_out && !(*name_out = ox_strdup(a, z->z[pick].key))) rc = ox_oom(e, NULL);
  ox_arena_free(t);
  return rc;
}

/* ---- writing: stored members, fixed timestamps (the same values give the same bytes) ----
 * Each member is streamed: its local header goes first with the sizes (known
 * from the .npy header and the element count) and a CRC of 0, which is patched
 * once the data has gone by (a plain local header, as numpy's zipfile reads). */

static void le16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static int put16b(ox_buf *b, uint32_t v) {
  uint8_t p[2];
  le16(p, v);
  return ox_buf_put(b, p, 2);
}
static int put32b(ox_buf *b, uint32_t v) {
  uint8_t p[4];
  put32(p, v);
  return ox_buf_put(b, p, 4);
}

/* The members' names: names[i], or arr_i when it is NULL or empty. */
static const char *member_name(const char *const *names, int i, char dflt[32]) {
  if (names && names[i] && names[i][0]) return names[i];
  snprintf(dflt, 32, "arr_%d", i);
  return dflt;
}

typedef struct { const char *name; int i; } named;

static int cmp_named(const void *x, const void *y) {
  const named *p = x, *q = y;
  int c = strcmp(p->name, q->name);
  return c ? c : (p->i > q->i) - (p->i < q->i);
}

/* A name given twice (arr_K too): sorted, they are neighbours (n log n,
 * where comparing each with all before it took minutes for 65,535). */
static int twice(int n, const char *const *names, ox_err *e) {
  named *v = ox_mem_malloc(((size_t)n + 1) * sizeof *v);
  char (*dflt)[32] = ox_mem_malloc(((size_t)n + 1) * sizeof *dflt);
  int rc = v && dflt ? 0 : ox_oom(e, NULL);
  for (int i = 0; !rc && i < n; i++) v[i] = (named){member_name(names, i, dflt[i]), i};
  if (!rc) qsort(v, (size_t)n, sizeof *v, cmp_named);
  for (int i = 1; !rc && i < n; i++)
    if (!strcmp(v[i].name, v[i - 1].name)) rc = ox_fail(e, OX_EINPUT, "two values are named '%s'", v[i].name);
  ox_mem_free(v);
  ox_mem_free(dflt);
  return rc;
}

int ox_npz_write(int n, const ox_value *const *vals, const char *const *names, ox_out *o, ox_err *e) {
  ox_buf cd = {0};
  uint64_t start = o->n;
  int rc = n > 1 ? twice(n, names, e) : 0, bad = 0;
  for (int i = 0; i < n && !rc; i++) {
    char dflt[32];
    const char *nm = member_name(names, i, dflt);
    if (strchr(nm, '/') || strchr(nm, '\\') || nm[0] == '.') {
      rc = ox_fail(e, OX_EINPUT, "cannot name an .npz member '%s' (no paths in names)", nm);
      break;
    }
    size_t nl = strlen(nm) + 4;
    if (rc || nl > 65535) {
      if (!rc) rc = ox_fail(e, OX_EINPUT, "the name '%s' is too long for a zip member", nm);
      break;
    }
    ox_buf h = {0};
    size_t es;
    int64_t maxcp;
    if ((rc = write_header(vals[i], &h, &es, &maxcp, e))) {
      ox_prefix(e, "'%s': ", nm);
      ox_buf_free(&h);
      break;
    }
    uint64_t size = h.n + (uint64_t)vals[i]->u.t.n * es, off = o->n - start;
    if (size >= 0xffffffffu || off >= 0xffffffffu) {
      ox_buf_free(&h);
      rc = ox_fail(e, OX_EINPUT, "'%s': more than 4 GiB; .npz members are written without zip64", nm);
      break;
    }
    /* local header: version 2.0, no flags, stored, 1980-01-01 00:00, CRC for now 0 */
    uint8_t lh[30] = {0};
    put32(lh, SIG_LOCAL);
    le16(lh + 4, 20);
    le16(lh + 12, 0x21);
    put32(lh + 18, (uint32_t)size);
    put32(lh + 22, (uint32_t)size);
    le16(lh + 26, (uint32_t)nl);
    ox_out_put(o, lh, sizeof lh);
    ox_out_put(o, nm, nl - 4);
    ox_out_put(o, ".npy", 4);
    o->crc_on = 1;
    o->crc = crc32(0L, Z_NULL, 0);
    ox_out_put(o, h.p, h.n);
    npy_data(&vals[i]->u.t, es, maxcp, o);
    o->crc_on = 0;
    ox_buf_free(&h);
    uint8_t crc[4];
    put32(crc, (uint32_t)o->crc);
    ox_out_patch(o, start + off + 14, crc, 4);
    if (o->err) {
      rc = out_fail(o, e);
      break;
    }
    bad |= put32b(&cd, SIG_CENTRAL) | put16b(&cd, 20) | put16b(&cd, 20) | put16b(&cd, 0) | put16b(&cd, 0) |
           put16b(&cd, 0) | put16b(&cd, 0x21) | put32b(&cd, (uint32_t)o->crc) | put32b(&cd, (uint32_t)size) |
           put32b(&cd, (uint32_t)size) | put16b(&cd, (uint32_t)nl) | put16b(&cd, 0) | put16b(&cd, 0) |
           put16b(&cd, 0) | put16b(&cd, 0) | put32b(&cd, 0) | put32b(&cd, (uint32_t)off) |
           ox_buf_printf(&cd, "%s.npy", nm);
    if (bad) rc = ox_oom(e, NULL);
  }
  if (!rc && (n > 65535 || o->n - start >= 0xffffffffu || cd.n >= 0xffffffffu))
    rc = ox_fail(e, OX_EINPUT, "the archive is too large for a zip without zip64");
  if (!rc) {
    uint32_t cdoff = (uint32_t)(o->n - start), cdsize = (uint32_t)cd.n;
    bad |= put32b(&cd, SIG_END) | put16b(&cd, 0) | put16b(&cd, 0) | put16b(&cd, (uint32_t)n) |
           put16b(&cd, (uint32_t)n) | put32b(&cd, cdsize) | put32b(&cd, cdoff) | put16b(&cd, 0);
    if (bad) rc = ox_oom(e, NULL);
    else if (ox_out_put(o, cd.p, cd.n)) rc = out_fail(o, e);
  }
  ox_buf_free(&cd);
  return rc;
}

int ox_npz_encode(int n, const ox_value *const *vals, const char *const *names, ox_buf *out, ox_err *e) {
  ox_out o;
  ox_out_buf(&o, out);
  int rc = ox_npz_write(n, vals, names, &o, e);
  ox_out_finish(&o);
  if (rc) out->n = o.base;
  return rc;
}
