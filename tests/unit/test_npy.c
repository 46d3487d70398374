/* tests/unit/test_npy.c: .npy and .npz. Files written byte by byte from
 * numpy's documented format read as they should; every dtype .npy carries
 * round-trips; the others are refused naming the formats that can hold them;
 * hostile files are refused with their reason. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/io.h"
#include "check.h"

static ox_arena *A;

/* A .npy file: preamble, header padded to 64 bytes, then data. */
static size_t mk_npy(uint8_t *out, int major, const char *dict, const void *data, size_t n) {
  size_t pre = major == 1 ? 10 : 12, hl = strlen(dict) + 1;
  size_t pad = (64 - (pre + hl) % 64) % 64;
  hl += pad;
  memcpy(out, "\x93NUMPY", 6);
  out[6] = (uint8_t)major;
  out[7] = 0;
  out[8] = (uint8_t)hl;
  out[9] = (uint8_t)(hl >> 8);
  if (major > 1) out[10] = out[11] = 0;
  memcpy(out + pre, dict, strlen(dict));
  memset(out + pre + strlen(dict), ' ', pad);
  out[pre + hl - 1] = '\n';
  memcpy(out + pre + hl, data, n);
  return pre + hl + n;
}

static int load(const uint8_t *b, size_t n, ox_value **v, ox_err *e) {
  ox_err_clear(e);
  return ox_npy_decode(A, b, n, NULL, v, e);
}

static void test_known_files(void) {
  uint8_t buf[512];
  ox_value *v;
  ox_err e = {0};
  /* float32 (2, 3), C order: exactly numpy's header text */
  const float f[6] = {-1, 0, 1.5f, -2.25f, 3.5f, -4.75f};
  size_t n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f, sizeof f);
  CHECK_EQ_I(n, 128 + 24);
  CHECK_EQ_I(load(buf, n, &v, &e), 0);
  CHECK_EQ_I(v->u.t.dt, OX_FLOAT);
  CHECK_EQ_I(v->u.t.rank, 2);
  CHECK_EQ_I(v->u.t.dims[1], 3);
  CHECK(!memcmp(v->u.t.data, f, sizeof f));
  /* and onnxop writes exactly those bytes */
  ox_buf b = {0};
  CHECK_EQ_I(ox_npy_encode(v, &b, &e), 0);
  CHECK_EQ_I(b.n, n);
  CHECK(b.n == n && !memcmp(b.p, buf, n));
  ox_buf_free(&b);

  /* int16, big-endian, Fortran order, (2, 3), version 2.0: column-major data */
  const uint8_t be[12] = {0, 1, 0, 4, 0, 2, 0, 5, 0, 3, 1, 0}; /* 1 4 2 5 3 256 */
  n = mk_npy(buf, 2, "{'shape': (2, 3), 'fortran_order': True, 'descr': '>i2'}", be, sizeof be);
  CHECK_EQ_I(load(buf, n, &v, &e), 0);
  const int16_t want16[6] = {1, 2, 3, 4, 5, 256};
  CHECK(v->u.t.dt == OX_INT16 && !memcmp(v->u.t.data, want16, sizeof want16));

  /* unicode strings, version 3.0, Fortran order (2, 1) is C order already */
  const uint32_t u[4] = {'h', 0xe9, 0x1F600, 0};
  n = mk_npy(buf, 3, "{'descr': '<U2', 'fortran_order': True, 'shape': (2, 1)}", u, sizeof u);
  CHECK_EQ_I(load(buf, n, &v, &e), 0);
  const ox_str *s = v->u.t.data;
  CHECK(v->u.t.dt == OX_STRING && s[0].n == 3 && !memcmp(s[0].p, "h\xc3\xa9", 3));
  CHECK(s[1].n == 4 && !memcmp(s[1].p, "\xf0\x9f\x98\x80", 4));

  /* bool, Python 2 longs in the shape, a scalar */
  const uint8_t bl[3] = {1, 0, 2};
  n = mk_npy(buf, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3L,), }", bl, 3);
  CHECK_EQ_I(load(buf, n, &v, &e), 0);
  CHECK(v->u.t.dt == OX_BOOL && ((uint8_t *)v->u.t.data)[2] == 1);
  const double d = 2.5;
  n = mk_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", &d, 8);
  CHECK_EQ_I(load(buf, n, &v, &e), 0);
  CHECK(v->u.t.rank == 0 && v->u.t.n == 1 && *(double *)v->u.t.data == 2.5);

  /* a declared bfloat16 takes uint16 bits; a declared float refuses int64 */
  const uint16_t h = 0x3f80;
  n = mk_npy(buf, 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", &h, 2);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_npy_decode(A, buf, n, ox_type_tensor(OX_BFLOAT16), &v, &e), 0);
  CHECK_EQ_I(v->u.t.dt, OX_BFLOAT16);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_npy_decode(A, buf, n, ox_type_tensor(OX_FLOAT), &v, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "the file holds tensor(uint16) but the model declares tensor(float)");
}

/* every dtype: written and read back, or refused with the formats that can */
static void test_round_trips(void) {
  for (int d = 1; d < OX_DTYPE_MAX; d++) {
    ox_value *v, *w = NULL;
    ox_err e = {0};
    int64_t dims[2] = {2, 3};
    CHECK_EQ_I(ox_tensor_new(A, (ox_dtype)d, 2, dims, &v, &e), 0);
    if (d == OX_STRING) {
      static const char *t[6] = {"", "a", "h\xc3\xa9llo", "\xe6\x97\xa5", "\xf0\x9f\x98\x80x", "zz"};
      for (int i = 0; i < 6; i++) ((ox_str *)v->u.t.data)[i] = (ox_str){t[i], (int64_t)strlen(t[i])};
    } else {
      uint8_t *p = v->u.t.data;
      for (size_t i = 0; i < 6 * ox_dtype_size((ox_dtype)d); i++) p[i] = (uint8_t)(i * 7 + 1);
      if (d == OX_BOOL)
        for (int i = 0; i < 6; i++) p[i] &= 1;
      if (d == OX_FLOAT16) /* no NaN payloads: finite halves */
        for (int i = 0; i < 6; i++) p[2 * i + 1] &= 0x3f;
    }
    ox_buf b = {0};
    int rc = ox_npy_encode(v, &b, &e);
    const char *nm = ox_dtypes[d].onnx_name;
    int carried = d <= OX_UINT64 || d == OX_COMPLEX64 || d == OX_COMPLEX128;
    if (!carried) {
      char want[200];
      snprintf(want, sizeof want, "numpy's .npy format has no %s dtype: use .pb or .json", nm);
      CHECK_EQ_I(rc, OX_EINPUT);
      CHECK_EQ_S(e.msg, want);
      ox_buf_free(&b);
      continue;
    }
    CHECK_EQ_I(rc, 0);
    CHECK_EQ_I((10 + (b.p[8] | b.p[9] << 8)) % 64, 0);
    CHECK_EQ_I(load(b.p, b.n, &w, &e), 0);
    int same = w && w->u.t.dt == (ox_dtype)d && w->u.t.n == 6 && w->u.t.dims[0] == 2;
    if (same && d == OX_STRING)
      for (int i = 0; i < 6; i++) {
        const ox_str *x = &((ox_str *)v->u.t.data)[i], *y = &((ox_str *)w->u.t.data)[i];
        same &= x->n == y->n && !memcmp(x->p, y->p, (size_t)x->n);
      }
    else if (same)
      same = !memcmp(v->u.t.data, w->u.t.data, 6 * ox_dtype_size((ox_dtype)d));
    if (!same) fprintf(stderr, "round trip of %s differs\n", nm);
    CHECK(same);
    /* and as a member of an .npz */
    ox_buf z = {0};
    const char *names[2] = {"a", "b"};
    const ox_value *vals[2] = {v, v};
    CHECK_EQ_I(ox_npz_encode(2, vals, names, &z, &e), 0);
    ox_err_clear(&e);
    CHECK_EQ_I(ox_npz_decode(A, z.p, z.n, "b", NULL, &w, NULL, &e), 0);
    CHECK(w && w->u.t.dt == (ox_dtype)d);
    ox_buf_free(&z);
    ox_buf_free(&b);
  }
  /* a sequence, and strings .npy cannot carry */
  ox_value *s;
  ox_err e = {0};
  CHECK_EQ_I(ox_seq_new(A, ox_type_tensor(OX_FLOAT), 0, &s, &e), 0);
  ox_buf b = {0};
  CHECK_EQ_I(ox_npy_encode(s, &b, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "a .npy file holds one tensor, and this is a seq(tensor(float)): use .pb or .json");
  ox_value *t;
  int64_t one = 1;
  CHECK_EQ_I(ox_tensor_new(A, OX_STRING, 1, &one, &t, &e), 0);
  ((ox_str *)t->u.t.data)[0] = (ox_str){"\xff", 1};
  ox_err_clear(&e);
  CHECK_EQ_I(ox_npy_encode(t, &b, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "string element 0 is not UTF-8, and .npy's '<U' strings are Unicode: use .pb or .json");
  ox_buf_free(&b);
}

static void expect_bad(const uint8_t *b, size_t n, const char *msg) {
  ox_value *v = NULL;
  ox_err e = {0};
  int rc = ox_npy_decode(A, b, n, NULL, &v, &e);
  CHECK(rc != 0);
  if (!strstr(e.msg, msg)) fprintf(stderr, "want '%s' in '%s'\n", msg, e.msg);
  CHECK(strstr(e.msg, msg) != NULL);
}

static void test_hostile_npy(void) {
  uint8_t buf[512];
  const float f[6] = {0};
  size_t n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f, sizeof f);
  for (size_t k = 0; k < n; k++) expect_bad(buf, k, ""); /* every truncation is refused */
  buf[8] = 0xff;
  buf[9] = 0xff;
  expect_bad(buf, n, "the .npy header length 65535 runs past the end of the file");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", f, 4);
  expect_bad(buf, n, "is too large");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807,), }", f, 4);
  expect_bad(buf, n, "is too large");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", f, 4);
  expect_bad(buf, n, "a dimension in 'shape' is too large");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3000000,), }", f, 24);
  expect_bad(buf, n, "the data is short: shape (3000000,) of '<f4' needs 12000000 bytes, the file has 24");
  n = mk_npy(buf, 1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", f, 8);
  expect_bad(buf, n, "object arrays (dtype '|O')");
  n = mk_npy(buf, 1, "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }", f, 4);
  expect_bad(buf, n, "structured dtypes");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'shape': (1,), }", f, 4);
  expect_bad(buf, n, "it needs 'descr', 'fortran_order' and 'shape', once each");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}", f, 4);
  expect_bad(buf, n, "once each");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", f, 4);
  expect_bad(buf, n, "'fortran_order' is neither True nor False");
  n = mk_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", f, 4);
  expect_bad(buf, n, "text after the dict");
  n = mk_npy(buf, 1, "{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }", "\0\0\x11\0", 4);
  expect_bad(buf, n, "holds U+110000");
  n = mk_npy(buf, 1, "{'descr': '<f3', 'fortran_order': False, 'shape': (1,), }", f, 3);
  expect_bad(buf, n, "dtype '<f3' is not supported");
  /* 65 dimensions */
  char dict[400] = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; i++) strcat(dict, "1,");
  strcat(dict, "), }");
  n = mk_npy(buf, 1, dict, f, 4);
  expect_bad(buf, n, "more than 64 dimensions");
  /* U0 elements: no data, still refused past the memory limit */
  n = mk_npy(buf, 1, "{'descr': '<U0', 'fortran_order': False, 'shape': (1000000000000000,), }", f, 0);
  expect_bad(buf, n, "more than the memory limit allows");
}

/* A stored zip of one member, built by hand. */
static size_t mk_zip(uint8_t *out, const char *name, const uint8_t *data, uint32_t n, int method, uint32_t usize) {
  size_t nl = strlen(name), at = 0;
  uint32_t crc = (uint32_t)crc32(0, data, n);
  uint8_t lh[30] = {0x50, 0x4b, 3, 4, 20, 0, 0, 0, (uint8_t)method, 0, 0, 0, 0x21, 0};
  memcpy(lh + 14, &crc, 4);
  memcpy(lh + 18, &n, 4);
  memcpy(lh + 22, &usize, 4);
  lh[26] = (uint8_t)nl;
  memcpy(out, lh, 30);
  memcpy(out + 30, name, nl);
  memcpy(out + 30 + nl, data, n);
  at = 30 + nl + n;
  uint8_t ch[46] = {0x50, 0x4b, 1, 2, 20, 0, 20, 0, 0, 0, (uint8_t)method, 0, 0, 0, 0x21, 0};
  memcpy(ch + 16, &crc, 4);
  memcpy(ch + 20, &n, 4);
  memcpy(ch + 24, &usize, 4);
  ch[28] = (uint8_t)nl;
  memcpy(out + at, ch, 46);
  memcpy(out + at + 46, name, nl);
  uint32_t cdsize = (uint32_t)(46 + nl), cdoff = (uint32_t)at;
  at += cdsize;
  uint8_t eo[22] = {0x50, 0x4b, 5, 6, 0, 0, 0, 0, 1, 0, 1, 0};
  memcpy(eo + 12, &cdsize, 4);
  memcpy(eo + 16, &cdoff, 4);
  memcpy(out + at, eo, 22);
  return at + 22;
}

static void expect_bad_npz(const uint8_t *b, size_t n, const char *msg) {
  ox_value *v = NULL;
  ox_err e = {0};
  int rc = ox_npz_decode(A, b, n, NULL, NULL, &v, NULL, &e);
  CHECK(rc != 0);
  if (!strstr(e.msg, msg)) fprintf(stderr, "want '%s' in '%s'\n", msg, e.msg);
  CHECK(strstr(e.msg, msg) != NULL);
}

static void test_npz(void) {
  static uint8_t npy[256], zip[1 << 16];
  const float f[2] = {1, 2};
  size_t n = mk_npy(npy, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", f, sizeof f);
  size_t zn = mk_zip(zip, "x.npy", npy, (uint32_t)n, 0, (uint32_t)n);
  ox_value *v = NULL;
  ox_err e = {0};
  const char *name = NULL;
  CHECK_EQ_I(ox_npz_decode(A, zip, zn, NULL, NULL, &v, &name, &e), 0);
  CHECK_EQ_S(name, "x");
  CHECK(v && v->u.t.n == 2 && ((float *)v->u.t.data)[1] == 2);
  for (size_t k = 0; k < zn; k++) expect_bad_npz(zip, k, ""); /* every truncation */
  /* deflate */
  uint8_t def[512];
  z_stream s;
  memset(&s, 0, sizeof s);
  deflateInit2(&s, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  s.next_in = npy;
  s.avail_in = (uInt)n;
  s.next_out = def;
  s.avail_out = sizeof def;
  deflate(&s, Z_FINISH);
  uint32_t dn = (uint32_t)s.total_out;
  deflateEnd(&s);
  zn = mk_zip(zip, "x.npy", def, dn, 8, (uint32_t)n);
  /* mk_zip took the CRC of the deflated bytes: fix it to the npy's */
  uint32_t crc = (uint32_t)crc32(0, npy, (uInt)n);
  memcpy(zip + 14, &crc, 4);
  memcpy(zip + 30 + 5 + dn + 16, &crc, 4);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_npz_decode(A, zip, zn, "x.npy", NULL, &v, NULL, &e), 0);
  CHECK(v && ((float *)v->u.t.data)[0] == 1);
  /* declared sizes that lie */
  uint8_t z2[sizeof zip];
  memcpy(z2, zip, zn);
  uint32_t lie = (uint32_t)n - 1;
  memcpy(z2 + 30 + 5 + dn + 24, &lie, 4);
  expect_bad_npz(z2, zn, "bytes, not its declared 135");
  lie = (uint32_t)n + 1;
  memcpy(z2 + 30 + 5 + dn + 24, &lie, 4);
  expect_bad_npz(z2, zn, "bytes, not its declared");
  lie = 0xfffffff0u;
  memcpy(z2 + 30 + 5 + dn + 24, &lie, 4);
  size_t lim = ox_memory_limit();
  ox_set_memory_limit(1 << 30);
  expect_bad_npz(z2, zn, "more than the memory limit allows");
  ox_set_memory_limit(lim);
  memcpy(z2, zip, zn);
  z2[30 + 5 + 3] ^= 0x55;
  expect_bad_npz(z2, zn, ""); /* corrupt deflate data or CRC */
  /* names with paths */
  zn = mk_zip(zip, "a/x.npy", npy, (uint32_t)n, 0, (uint32_t)n);
  expect_bad_npz(zip, zn, "has a path or an empty name");
  zn = mk_zip(zip, "..", npy, (uint32_t)n, 0, (uint32_t)n);
  expect_bad_npz(zip, zn, "has a path or an empty name");
  /* a central directory that points outside the file */
  zn = mk_zip(zip, "x.npy", npy, (uint32_t)n, 0, (uint32_t)n);
  memcpy(z2, zip, zn);
  uint32_t off = 0xfffffff0u;
  memcpy(z2 + zn - 6, &off, 4);
  expect_bad_npz(z2, zn, "the central directory");
  memcpy(z2, zip, zn);
  memcpy(z2 + 30 + 5 + n + 42, &off, 4);
  expect_bad_npz(z2, zn, "has no local header at offset");
  memcpy(z2, zip, zn);
  z2[zn - 12] = 0xff; /* 255 entries in a 51-byte directory */
  z2[zn - 14] = 0xff;
  expect_bad_npz(z2, zn, "entries cannot fit");
}

/* an archive read once for many members (ox_npz_open_buffer): members by
 * position and by name, decoded into another arena than the directory's;
 * names given twice refused when read and when written */
static void test_npz_handle(void) {
  ox_err e = {0};
  ox_value *x, *y, *w = NULL;
  int64_t one[1] = {1};
  CHECK_EQ_I(ox_tensor_new(A, OX_FLOAT, 1, one, &x, &e), 0);
  CHECK_EQ_I(ox_tensor_new(A, OX_INT64, 1, one, &y, &e), 0);
  ((float *)x->u.t.data)[0] = 1.5f;
  ((int64_t *)y->u.t.data)[0] = -7;
  const ox_value *vals[3] = {x, y, x};
  const char *names[3] = {"xa", "xb", NULL};
  ox_buf z = {0};
  CHECK_EQ_I(ox_npz_encode(3, vals, names, &z, &e), 0);
  ox_arena *T = ox_arena_new(), *B = ox_arena_new();
  ox_npz *h = NULL;
  CHECK_EQ_I(ox_npz_open_buffer(T, z.p, z.n, &h, &e), 0);
  CHECK_EQ_I(ox_npz_count(h), 3);
  CHECK_EQ_S(ox_npz_keys(h)[0], "xa");
  CHECK_EQ_S(ox_npz_keys(h)[2], "arr_2");
  CHECK_EQ_I(ox_npz_find(h, "xb"), 1);
  CHECK_EQ_I(ox_npz_find(h, "xb.npy"), 1); /* the name as stored */
  CHECK_EQ_I(ox_npz_find(h, "x"), -1);
  CHECK_EQ_I(ox_npz_find(h, "xbb"), -1);
  CHECK_EQ_I(ox_npz_find(h, "arr_2"), 2);
  int64_t k = -2;
  CHECK_EQ_I(ox_npz_member(h, "nope", &k, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "the .npz archive has no member 'nope' (it holds xa, xb, arr_2)");
  ox_err_clear(&e);
  CHECK_EQ_I(ox_npz_get(B, h, 1, NULL, &w, &e), 0);
  /* the value holds nothing of the directory's arena (ASan would say) */
  ox_arena_free(T);
  CHECK(w && w->u.t.dt == OX_INT64 && ((int64_t *)w->u.t.data)[0] == -7);
  T = ox_arena_new();
  CHECK_EQ_I(ox_npz_open_buffer(T, z.p, z.n, &h, &e), 0);
  CHECK_EQ_I(ox_npz_get(B, h, 0, ox_type_tensor(OX_INT64), &w, &e), OX_EINPUT); /* the declared type */
  CHECK(strstr(e.msg, "member 'xa.npy': the file holds") != NULL);
  ox_err_clear(&e);
  /* a name twice in an archive: "xb.npy" renamed "xa.npy" in both its headers */
  for (size_t i = 0; i + 6 <= z.n; i++)
    if (!memcmp(z.p + i, "xb.npy", 6)) z.p[i + 1] = 'a';
  CHECK_EQ_I(ox_npz_open_buffer(T, z.p, z.n, &h, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "the archive holds 'xa' twice");
  ox_buf_free(&z);
  /* and when written: arr_1 is the second value's name when it has none */
  const char *clash[2] = {"arr_1", NULL};
  ox_err_clear(&e);
  CHECK_EQ_I(ox_npz_encode(2, vals, clash, &z, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "two values are named 'arr_1'");
  ox_buf_free(&z);
  /* 65,535 members: the count is 0xffff with no zip64 record, as Python's
   * zipfile writes it too, and every name is found */
  enum { MANY = 65535 };
  const ox_value **mv = malloc(MANY * sizeof *mv);
  CHECK(mv != NULL);
  for (int i = 0; mv && i < MANY; i++) mv[i] = x;
  ox_err_clear(&e);
  CHECK_EQ_I(ox_npz_encode(MANY, mv, NULL, &z, &e), 0);
  CHECK_EQ_I(ox_npz_open_buffer(T, z.p, z.n, &h, &e), 0);
  CHECK_EQ_I(ox_npz_count(h), MANY);
  CHECK_EQ_I(ox_npz_find(h, "arr_65534"), MANY - 1);
  CHECK_EQ_I(ox_npz_find(h, "arr_0"), 0);
  CHECK_EQ_I(ox_npz_get(B, h, MANY - 1, NULL, &w, &e), 0);
  CHECK(w && ((float *)w->u.t.data)[0] == 1.5f);
  ox_buf_free(&z);
  free(mv);
  ox_arena_free(T);
  ox_arena_free(B);
}

int main(void) {
  A = ox_arena_new();
  test_npz_handle();
  test_known_files();
  test_round_trips();
  test_hostile_npy();
  test_npz();
  ox_arena_free(A);
  return check_done("npy");
}
