/* tests/unit/test_json.c: io/json.c, reading and writing values as JSON. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "io/io.h"

static ox_arena *A;
static ox_err E;

/* ---- helpers ---- */

/* Decode text; on failure print the message (a test that expects success). */
static ox_value *decode(const char *text, const ox_type *want) {
  ox_value *v = NULL;
  ox_err_clear(&E);
  int rc = ox_json_decode(A, text, strlen(text), want, &v, NULL, &E);
  if (rc) fprintf(stderr, "unexpected error: %s\n  in: %.200s\n", E.msg, text);
  CHECK_EQ_I(rc, 0);
  return rc ? NULL : v;
}

/* Decode text that must fail with a message holding every word in `words`
 * (separated by '|'). */
static void decode_fails(const char *text, const ox_type *want, const char *words) {
  ox_value *v = NULL;
  ox_err_clear(&E);
  int rc = ox_json_decode(A, text, strlen(text), want, &v, NULL, &E);
  CHECK(rc != 0);
  CHECK(v == NULL);
  char buf[512];
  snprintf(buf, sizeof buf, "%s", words);
  for (char *w = strtok(buf, "|"); w; w = strtok(NULL, "|")) {
    if (!strstr(E.msg, w)) {
      fprintf(stderr, "message lacks \"%s\":\n  %s\n  in: %.200s\n", w, E.msg, text);
      CHECK(0);
    } else {
      CHECK(1);
    }
  }
}

/* Encode v; the text is malloc'd. */
static char *encode(const ox_value *v, const char *name) {
  ox_buf b = {0};
  ox_err_clear(&E);
  int rc = ox_json_encode(v, name, &b, &E);
  if (rc) fprintf(stderr, "encode failed: %s\n", E.msg);
  CHECK_EQ_I(rc, 0);
  char *s = malloc(b.n + 1);
  if (b.n) memcpy(s, b.p, b.n);
  s[b.n] = 0;
  ox_buf_free(&b);
  return s;
}

/* Same kind, type, shape and bytes (strings compared by content). */
static int same_value(const ox_value *x, const ox_value *y) {
  if (!x || !y) return x == y;
  if (x->kind != y->kind) return 0;
  if (!ox_type_eq(ox_value_type(A, x), ox_value_type(A, y))) return 0;
  switch (x->kind) {
  case OX_TENSOR: {
    const ox_tensor *a = &x->u.t, *b = &y->u.t;
    if (a->dt != b->dt || a->rank != b->rank || a->n != b->n) return 0;
    for (int k = 0; k < a->rank; k++)
      if (a->dims[k] != b->dims[k]) return 0;
    if (a->dt == OX_STRING) {
      for (int64_t i = 0; i < a->n; i++) {
        const ox_str *s = &((const ox_str *)a->data)[i], *t = &((const ox_str *)b->data)[i];
        if (s->n != t->n || memcmp(s->p, t->p, (size_t)s->n)) return 0;
      }
      return 1;
    }
    return !a->n || !memcmp(a->data, b->data, (size_t)a->n * ox_dtype_size(a->dt));
  }
  case OX_SEQUENCE:
    if (x->u.seq.n != y->u.seq.n) return 0;
    for (int64_t i = 0; i < x->u.seq.n; i++)
      if (!same_value(x->u.seq.v[i], y->u.seq.v[i])) return 0;
    return 1;
  case OX_OPTIONAL:
    return same_value(x->u.opt, y->u.opt);
  case OX_MAP:
    return same_value(x->u.map.keys, y->u.map.keys) && same_value(x->u.map.values, y->u.map.values);
  default:
    return 0;
  }
}

/* encode -> decode (with the value's own type declared, and without) -> same value. */
static char *round_trip(const ox_value *v) {
  char *text = encode(v, "val");
  const ox_type *types[2] = {NULL, ox_value_type(A, v)};
  for (int k = 0; k < 2; k++) {
    const char *name = NULL;
    ox_value *back = NULL;
    ox_err_clear(&E);
    int rc = ox_json_decode(A, text, strlen(text), types[k], &back, &name, &E);
    if (rc) fprintf(stderr, "round trip failed: %s\n  text: %.300s\n", E.msg, text);
    CHECK_EQ_I(rc, 0);
    CHECK_EQ_S(name, "val");
    int same = !rc && same_value(v, back);
    if (!same) fprintf(stderr, "round trip differs:\n%.600s\n", text);
    CHECK(same);
  }
  return text;
}

static ox_value *tensor1(ox_dtype dt, int64_t n) {
  ox_value *v = NULL;
  CHECK_EQ_I(ox_tensor_new(A, dt, 1, &n, &v, &E), 0);
  return v;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* ---- tensors ---- */

static void test_basic_form(void) {
  ox_value *v = decode("{\"dtype\": \"float32\", \"shape\": [2, 3], "
                       "\"data\": [[-1, 0, 1.5], [-2.25, 3.5, -4.75]]}", NULL);
  if (!v) return;
  const float want[6] = {-1, 0, 1.5f, -2.25f, 3.5f, -4.75f};
  CHECK_EQ_I(v->kind, OX_TENSOR);
  CHECK_EQ_I(v->u.t.dt, OX_FLOAT);
  CHECK_EQ_I(v->u.t.rank, 2);
  CHECK_EQ_I(v->u.t.dims[0], 2);
  CHECK_EQ_I(v->u.t.dims[1], 3);
  CHECK(!memcmp(v->u.t.data, want, sizeof want));

  char *text = encode(v, "x");
  CHECK(strstr(text, "\"name\": \"x\"") != NULL);
  CHECK(strstr(text, "\"dtype\": \"float32\"") != NULL);
  CHECK(strstr(text, "\"shape\": [2, 3]") != NULL);
  CHECK(strstr(text, "[[-1, 0, 1.5],") != NULL);
  CHECK(strstr(text, "[-2.25, 3.5, -4.75]]") != NULL);
  free(text);

  /* flat data, and no shape (inferred from the nesting) */
  ox_value *flat = decode("{\"dtype\": \"float\", \"shape\": [2, 3], \"data\": [-1, 0, 1.5, -2.25, 3.5, -4.75]}", NULL);
  CHECK(same_value(v, flat));
  ox_value *noshape = decode("{\"dtype\": \"FLOAT\", \"data\": [[-1, 0, 1.5], [-2.25, 3.5, -4.75]]}", NULL);
  CHECK(same_value(v, noshape));
  ox_value *flat1 = decode("{\"dtype\": \"float32\", \"data\": [1, 2, 3]}", NULL);
  if (flat1) CHECK_EQ_I(flat1->u.t.rank, 1);

  /* the name is handed back */
  const char *name = NULL;
  ox_value *nv = NULL;
  const char *named = "{\"name\": \"input_0\", \"dtype\": \"int8\", \"data\": [1]}";
  ox_err_clear(&E);
  CHECK_EQ_I(ox_json_decode(A, named, strlen(named), NULL, &nv, &name, &E), 0);
  CHECK_EQ_S(name, "input_0");

  /* a name that is not UTF-8 is written as base64 and read back */
  text = encode(flat1, "n\xff");
  CHECK(strstr(text, "\"name\": {\"base64\": \"bv8=\"}") != NULL);
  ox_err_clear(&E);
  CHECK_EQ_I(ox_json_decode(A, text, strlen(text), NULL, &nv, &name, &E), 0);
  CHECK_EQ_S(name, "n\xff");
  free(text);

  /* shortest float text */
  ox_value *f = tensor1(OX_FLOAT, 3);
  ((float *)f->u.t.data)[0] = 0.1f;
  ((float *)f->u.t.data)[1] = 1e-45f; /* the smallest subnormal */
  ((float *)f->u.t.data)[2] = 3.4028235e38f;
  text = round_trip(f);
  CHECK(strstr(text, "[0.1, 1e-45, 3.4028235e+38]") != NULL);
  free(text);
  ox_value *dbl = tensor1(OX_DOUBLE, 2);
  ((double *)dbl->u.t.data)[0] = 0.1;
  ((double *)dbl->u.t.data)[1] = 1.0 / 3;
  text = round_trip(dbl);
  CHECK(strstr(text, "[0.1, 0.3333333333333333]") != NULL);
  free(text);

  /* the declared type fills in a missing dtype, and bare data */
  ox_value *d1 = decode("{\"shape\": [2], \"data\": [7, 8]}", ox_type_tensor(OX_INT16));
  if (d1) CHECK_EQ_I(d1->u.t.dt, OX_INT16);
  ox_value *d2 = decode("[[1, 2], [3, 4]]", ox_type_tensor(OX_UINT8));
  if (d2) {
    CHECK_EQ_I(d2->u.t.rank, 2);
    CHECK_EQ_I(((uint8_t *)d2->u.t.data)[3], 4);
  }
  ox_value *d3 = decode("2.5", ox_type_tensor(OX_DOUBLE));
  if (d3) {
    CHECK_EQ_I(d3->u.t.rank, 0);
    CHECK(((double *)d3->u.t.data)[0] == 2.5);
  }
}

static void test_scalars_and_empty(void) {
  ox_value *a = decode("{\"dtype\": \"int32\", \"shape\": [], \"data\": 5}", NULL);
  ox_value *b = decode("{\"dtype\": \"int32\", \"shape\": [], \"data\": [5]}", NULL);
  ox_value *c = decode("{\"dtype\": \"int32\", \"data\": 5}", NULL);
  if (a && b && c) {
    CHECK_EQ_I(a->u.t.rank, 0);
    CHECK_EQ_I(a->u.t.n, 1);
    CHECK_EQ_I(((int32_t *)a->u.t.data)[0], 5);
    CHECK(same_value(a, b));
    CHECK(same_value(a, c));
    char *text = round_trip(a);
    CHECK(strstr(text, "\"shape\": [],") != NULL);
    CHECK(strstr(text, "\"data\": 5\n") != NULL);
    free(text);
  }

  /* zero-sized dimensions keep their shape, also when the zero is not the
   * last dim (test_reduce_sum_empty_set's (2, 0, 4) is written [[], []]) */
  int64_t shapes[6][3] = {{0, 3}, {2, 0}, {0, 0}, {2, 0, 4}, {0, 2, 3}, {3, 0, 0}};
  for (int k = 0; k < 6; k++) {
    ox_value *v;
    CHECK_EQ_I(ox_tensor_new(A, OX_FLOAT, k < 3 ? 2 : 3, shapes[k], &v, &E), 0);
    free(round_trip(v));
  }
  /* an empty tensor's dims may pass 2^53, where a JSON number is not exact:
   * written as decimal strings, as int64 data is, and read back the same */
  int64_t huge[4][2] = {{0, INT64_C(1) << 62}, {0, INT64_MAX}, {0, (INT64_C(1) << 53) + 1}, {0, INT64_C(1) << 53}};
  const char *as[4] = {"\"shape\": [0, \"4611686018427387904\"]", "\"shape\": [0, \"9223372036854775807\"]",
                       "\"shape\": [0, \"9007199254740993\"]", "\"shape\": [0, 9007199254740992]"};
  for (int k = 0; k < 4; k++) {
    ox_value *v;
    CHECK_EQ_I(ox_tensor_new(A, OX_FLOAT, 2, huge[k], &v, &E), 0);
    char *text = round_trip(v);
    if (!strstr(text, as[k])) fprintf(stderr, "not %s:\n%s\n", as[k], text);
    CHECK(strstr(text, as[k]) != NULL);
    free(text);
  }
  ox_value *z4 = decode("{\"dtype\": \"float32\", \"shape\": [2, 0, 4], \"data\": [[], []]}", NULL);
  if (z4) CHECK_EQ_I(z4->u.t.rank, 3);
  /* the lists must still follow the shape up to the zero dim */
  decode_fails("{\"dtype\": \"float32\", \"shape\": [2, 0, 4], \"data\": [[], [], []]}", NULL,
               "nested as (3, 0)|(2, 0, 4)");
  ox_value *z = decode("{\"dtype\": \"float32\", \"shape\": [0, 3], \"data\": []}", NULL);
  if (z) CHECK_EQ_I(z->u.t.n, 0);
  ox_value *z2 = decode("{\"dtype\": \"int64\", \"data\": [[], []]}", NULL);
  if (z2) {
    CHECK_EQ_I(z2->u.t.rank, 2);
    CHECK_EQ_I(z2->u.t.dims[0], 2);
    CHECK_EQ_I(z2->u.t.dims[1], 0);
  }
  ox_value *z3 = decode("{\"dtype\": \"str\", \"shape\": [0], \"data\": []}", NULL);
  if (z3) CHECK_EQ_I(z3->u.t.dt, OX_STRING);
}

/* A few values of every dtype, shape (2, 3), nested. */
static void test_every_dtype(void) {
  for (int id = 1; id < OX_DTYPE_MAX; id++) {
    ox_dtype dt = (ox_dtype)id;
    int64_t dims[2] = {2, 3};
    ox_value *v;
    CHECK_EQ_I(ox_tensor_new(A, dt, 2, dims, &v, &E), 0);
    static const double fvals[6] = {-1, 0, 1.5, -2.25, 3.5, -0.5};
    static const double e8m0[6] = {1, 0.5, 2, 4, 1024, 0.125};
    static const int64_t ivals[6] = {0, 1, -1, 2, -2, 1};
    for (int64_t i = 0; i < 6; i++) {
      void *d = v->u.t.data;
      if (dt == OX_STRING) {
        static const char *const s[6] = {"a", "", "héllo", "tab\there", "q\"uote\\", "\xff\xfe"};
        ((ox_str *)d)[i].p = s[i];
        ((ox_str *)d)[i].n = (int64_t)strlen(s[i]);
      } else if (dt == OX_COMPLEX64) {
        ((ox_c64 *)d)[i] = (ox_c64){(float)fvals[i], (float)-fvals[5 - i]};
      } else if (dt == OX_COMPLEX128) {
        ((ox_c128 *)d)[i] = (ox_c128){fvals[i] / 3, fvals[5 - i]};
      } else if (dt == OX_FLOAT8E8M0) {
        ox_store_f64(dt, d, i, e8m0[i]);
      } else if (dt == OX_FLOAT4E2M1 || ox_dtype_is_float(dt)) {
        ox_store_f64(dt, d, i, fvals[i]);
      } else if (ox_dtype_is_unsigned_int(dt) || dt == OX_BOOL) {
        ox_store_i64(dt, d, i, ivals[i] < 0 ? -ivals[i] : ivals[i]);
      } else {
        ox_store_i64(dt, d, i, ivals[i]);
      }
    }
    char *text = round_trip(v);
    char want[64];
    snprintf(want, sizeof want, "\"dtype\": \"%s\"", ox_dtype_name(dt));
    CHECK(strstr(text, want) != NULL);
    if (ox_dtype_is_float(dt) && dt != OX_FLOAT8E8M0 && dt != OX_DOUBLE)
      CHECK(strstr(text, "[[-1, 0, 1.5],") != NULL);
    if (dt == OX_BOOL) CHECK(strstr(text, "[[false, true, true],") != NULL);
    if (dt == OX_COMPLEX64) CHECK(strstr(text, "[[[-1, 0.5], [0, -3.5], [1.5, 2.25]],") != NULL);
    if (dt == OX_STRING) CHECK(strstr(text, "{\"base64\": \"//4=\"}") != NULL);
    if (dt == OX_INT4) CHECK(strstr(text, "[[0, 1, -1],") != NULL);
    free(text);
  }
}

/* Every bit pattern of the small types: each reads back to the same bits
 * (NaNs to some NaN). */
static void test_exhaustive_small(void) {
  static const ox_dtype types[] = {OX_FLOAT16, OX_BFLOAT16, OX_FLOAT8E4M3FN, OX_FLOAT8E4M3FNUZ,
                                   OX_FLOAT8E5M2, OX_FLOAT8E5M2FNUZ, OX_FLOAT8E8M0, OX_FLOAT4E2M1,
                                   OX_INT8, OX_UINT8, OX_INT16, OX_UINT16, OX_INT4, OX_UINT4,
                                   OX_INT2, OX_UINT2};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    ox_dtype dt = types[k];
    int bits = ox_dtypes[dt].file_bits;
    int64_t n = (int64_t)1 << bits;
    ox_value *v = tensor1(dt, n);
    for (int64_t i = 0; i < n; i++) {
      if (ox_dtype_is_float(dt)) {
        if (bits == 16) ((uint16_t *)v->u.t.data)[i] = (uint16_t)i;
        else ((uint8_t *)v->u.t.data)[i] = (uint8_t)i;
      } else {
        int64_t lo = ox_dtype_is_signed_int(dt) ? -(n / 2) : 0;
        ox_store_i64(dt, v->u.t.data, i, lo + i);
      }
    }
    char *text = encode(v, NULL);
    ox_value *back = decode(text, NULL);
    free(text);
    if (!back) continue;
    CHECK_EQ_I(back->u.t.dt, dt);
    CHECK_EQ_I(back->u.t.n, n);
    size_t es = ox_dtype_size(dt);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
      const uint8_t *x = (const uint8_t *)v->u.t.data + i * (int64_t)es;
      const uint8_t *y = (const uint8_t *)back->u.t.data + i * (int64_t)es;
      if (ox_dtype_is_float(dt) && isnan(ox_load_f64(dt, x, 0))) {
        if (!isnan(ox_load_f64(dt, y, 0))) bad++;
      } else if (memcmp(x, y, es)) {
        if (bad < 3) fprintf(stderr, "%s: element %lld does not read back\n", ox_dtype_name(dt), (long long)i);
        bad++;
      }
    }
    CHECK_EQ_I(bad, 0);
  }
}

/* Random bit patterns of the wide types read back exactly. */
static void test_random_wide(void) {
  static const ox_dtype types[] = {OX_FLOAT, OX_DOUBLE, OX_COMPLEX64, OX_COMPLEX128,
                                   OX_INT32, OX_UINT32, OX_INT64, OX_UINT64};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    ox_dtype dt = types[k];
    ox_value *v = tensor1(dt, 3000);
    size_t es = ox_dtype_size(dt);
    uint8_t *p = v->u.t.data;
    for (int64_t i = 0; i < 3000; i++) {
      for (size_t b = 0; b < es; b += 4) {
        uint32_t r = (uint32_t)rnd();
        /* floats: avoid NaN bit patterns (NaN payloads are not kept) */
        if ((dt == OX_FLOAT || dt == OX_COMPLEX64) && (r & 0x7f800000u) == 0x7f800000u) r &= 0xbfffffffu;
        if ((dt == OX_DOUBLE || dt == OX_COMPLEX128) && b % 8 == 4 && (r & 0x7ff00000u) == 0x7ff00000u)
          r &= 0xbfffffffu;
        memcpy(p + (size_t)i * es + b, &r, 4);
      }
    }
    free(round_trip(v));
  }
}

static void test_int64_extremes(void) {
  ox_value *v = tensor1(OX_INT64, 8);
  int64_t vals[8] = {INT64_MIN, INT64_MAX, (int64_t)1 << 53, -((int64_t)1 << 53),
                     ((int64_t)1 << 53) + 1, -((int64_t)1 << 53) - 1, 0, -1};
  memcpy(v->u.t.data, vals, sizeof vals);
  char *text = round_trip(v);
  CHECK(strstr(text, "[\"-9223372036854775808\", \"9223372036854775807\", 9007199254740992, "
                     "-9007199254740992, \"9007199254740993\",") != NULL);
  CHECK(strstr(text, "\"-9007199254740993\", 0, -1]") != NULL);
  free(text);

  ox_value *u = tensor1(OX_UINT64, 3);
  uint64_t uv[3] = {UINT64_MAX, (uint64_t)1 << 53, ((uint64_t)1 << 53) + 1};
  memcpy(u->u.t.data, uv, sizeof uv);
  text = round_trip(u);
  CHECK(strstr(text, "[\"18446744073709551615\", 9007199254740992, \"9007199254740993\"]") != NULL);
  free(text);

  /* strings are read for any integer type, numbers up to 2^53 for int64 */
  ox_value *s = decode("{\"dtype\": \"int64\", \"data\": [\"-9223372036854775808\", \"+12\", 9007199254740992, 1e3]}", NULL);
  if (s) {
    CHECK(((int64_t *)s->u.t.data)[0] == INT64_MIN);
    CHECK_EQ_I(((int64_t *)s->u.t.data)[1], 12);
    CHECK_EQ_I(((int64_t *)s->u.t.data)[2], (int64_t)1 << 53);
    CHECK_EQ_I(((int64_t *)s->u.t.data)[3], 1000);
  }
  ox_value *s8 = decode("{\"dtype\": \"int8\", \"data\": [\"-128\", 127, -0]}", NULL);
  if (s8) CHECK_EQ_I(((int8_t *)s8->u.t.data)[0], -128);
}

static void test_nan_inf(void) {
  ox_value *v = decode("{\"dtype\": \"float32\", \"data\": [\"nan\", \"NaN\", \"inf\", \"-inf\", "
                       "\"Infinity\", \"-Infinity\", 1e999, -0.0]}", NULL);
  if (v) {
    const float *f = v->u.t.data;
    CHECK(isnan(f[0]) && isnan(f[1]));
    CHECK(isinf(f[2]) && f[2] > 0);
    CHECK(isinf(f[3]) && f[3] < 0);
    CHECK(isinf(f[4]) && f[4] > 0);
    CHECK(isinf(f[5]) && f[5] < 0);
    CHECK(isinf(f[6]) && f[6] > 0);
    CHECK(f[7] == 0 && signbit(f[7]));
    char *text = encode(v, NULL);
    CHECK(strstr(text, "[\"nan\", \"nan\", \"inf\", \"-inf\", \"inf\", \"-inf\", \"inf\", -0]") != NULL);
    ox_value *back = decode(text, NULL);
    if (back) {
      const float *g = back->u.t.data;
      CHECK(isnan(g[0]) && isnan(g[1]));
      CHECK(!memcmp(f + 2, g + 2, 6 * sizeof *f));
    }
    free(text);
  }
  static const ox_dtype types[] = {OX_DOUBLE, OX_FLOAT16, OX_BFLOAT16, OX_FLOAT8E5M2};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    ox_value *t = tensor1(types[k], 3);
    ox_store_f64(types[k], t->u.t.data, 0, NAN);
    ox_store_f64(types[k], t->u.t.data, 1, INFINITY);
    ox_store_f64(types[k], t->u.t.data, 2, -INFINITY);
    if (types[k] == OX_FLOAT8E5M2) /* ox_store_f64 saturates float8, as Cast does */
      memcpy(t->u.t.data, "\x7f\x7c\xfc", 3);
    char *text = encode(t, NULL);
    CHECK(strstr(text, "[\"nan\", \"inf\", \"-inf\"]") != NULL);
    ox_value *back = decode(text, NULL);
    if (back) {
      CHECK(isnan(ox_load_f64(types[k], back->u.t.data, 0)));
      CHECK(ox_load_f64(types[k], back->u.t.data, 1) == INFINITY);
      CHECK(ox_load_f64(types[k], back->u.t.data, 2) == -INFINITY);
    }
    free(text);
  }
  /* float8e4m3fn has NaN but no infinity */
  ox_value *e = decode("{\"dtype\": \"float8_e4m3fn\", \"data\": [\"nan\", 448, -448]}", NULL);
  if (e) {
    CHECK(isnan(ox_load_f64(OX_FLOAT8E4M3FN, e->u.t.data, 0)));
    CHECK(ox_load_f64(OX_FLOAT8E4M3FN, e->u.t.data, 1) == 448);
  }
}

static void test_complex(void) {
  ox_value *v = decode("{\"dtype\": \"complex64\", \"shape\": [2, 2], "
                       "\"data\": [[[1, 2], [3, -4]], [[0.5, 0], [\"nan\", \"-inf\"]]]}", NULL);
  if (v) {
    const ox_c64 *c = v->u.t.data;
    CHECK(c[0].re == 1 && c[0].im == 2);
    CHECK(c[1].re == 3 && c[1].im == -4);
    CHECK(c[2].re == 0.5f && c[2].im == 0);
    CHECK(isnan(c[3].re) && isinf(c[3].im) && c[3].im < 0);
  }
  /* flat, and shape from the nesting */
  ox_value *flat = decode("{\"dtype\": \"complex128\", \"shape\": [2, 2], \"data\": [[1, 2], [3, 4], [5, 6], [7, 8]]}", NULL);
  ox_value *nest = decode("{\"dtype\": \"complex128\", \"data\": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}", NULL);
  if (flat && nest) {
    CHECK(same_value(flat, nest));
    CHECK(((ox_c128 *)nest->u.t.data)[3].im == 8);
  }
  ox_value *scalar = decode("{\"dtype\": \"complex64\", \"shape\": [], \"data\": [1.5, -2]}", NULL);
  if (scalar) {
    CHECK_EQ_I(scalar->u.t.rank, 0);
    CHECK(((ox_c64 *)scalar->u.t.data)[0].im == -2);
    char *text = round_trip(scalar);
    CHECK(strstr(text, "\"data\": [1.5, -2]") != NULL);
    free(text);
  }
}

static void test_strings(void) {
  ox_value *v = tensor1(OX_STRING, 6);
  static const char nul[] = {'a', 0, 'b'};
  ox_str s[6] = {{"plain", 5}, {"\xff\xfe\x80", 3}, {nul, 3}, {"ü€😀", 9},
                 {"\xed\xa0\x80", 3} /* a surrogate: not UTF-8 */, {"\"\\\n\x01", 4}};
  memcpy(v->u.t.data, s, sizeof s);
  char *text = round_trip(v);
  CHECK(strstr(text, "\"plain\"") != NULL);
  CHECK(strstr(text, "{\"base64\": \"//6A\"}") != NULL);
  CHECK(strstr(text, "{\"base64\": \"YQBi\"}") != NULL);
  CHECK(strstr(text, "\"ü€😀\"") != NULL);
  CHECK(strstr(text, "{\"base64\": \"7aCA\"}") != NULL);
  CHECK(strstr(text, "\"\\\"\\\\\\n\\u0001\"") != NULL);
  free(text);

  ox_value *r = decode("{\"dtype\": \"str\", \"data\": [\"x\\u00e9\", {\"base64\": \"AAEC\"}, {\"base64\": \"_-8\"}]}", NULL);
  if (r) {
    const ox_str *t = r->u.t.data;
    CHECK_EQ_I(t[0].n, 3);
    CHECK(!memcmp(t[0].p, "x\xc3\xa9", 3));
    CHECK_EQ_I(t[1].n, 3);
    CHECK(!memcmp(t[1].p, "\0\1\2", 3));
    CHECK_EQ_I(t[2].n, 2);
    CHECK(!memcmp(t[2].p, "\xff\xef", 2));
  }
  /* a scalar string given bare, for a declared tensor(string) */
  ox_value *b = decode("{\"base64\": \"/w==\"}", ox_type_tensor(OX_STRING));
  if (b) CHECK_EQ_I(((ox_str *)b->u.t.data)[0].n, 1);
}

/* "\u0000" is a NUL byte inside the string, read exactly (cJSON alone would
 * cut the string there); keys, type names and names holding one are refused. */
static void test_nul_in_strings(void) {
  /* a NUL, a literal backslash-u0000, a raw 0xFF byte beside a NUL, a map key */
  ox_value *r = decode("{\"dtype\": \"str\", \"data\": [\"a\\u0000b\", \"\\\\u0000\", \"\xff\\u0000\xff\", "
                       "\"\\u0000\"]}", NULL);
  if (r) {
    const ox_str *t = r->u.t.data;
    CHECK_EQ_I(t[0].n, 3);
    CHECK(!memcmp(t[0].p, "a\0b", 3));
    CHECK_EQ_I(t[1].n, 6);
    CHECK(!memcmp(t[1].p, "\\u0000", 6));
    CHECK_EQ_I(t[2].n, 3);
    CHECK(!memcmp(t[2].p, "\xff\0\xff", 3));
    CHECK_EQ_I(t[3].n, 1);
    CHECK(!memcmp(t[3].p, "\0", 1));
  }
  ox_value *m = decode("{\"map\": [[\"k\\u0000\", 1], [\"k\", 2]], \"value_type\": \"int64\"}", NULL);
  if (m) {
    const ox_str *k = m->u.map.keys->u.t.data;
    CHECK_EQ_I(k[0].n, 2);
    CHECK_EQ_I(k[1].n, 1);
  }
  /* without the escape, a raw 0xFF byte stays as it is */
  ox_value *f = decode("{\"dtype\": \"str\", \"data\": [\"\xff\x01\"]}", NULL);
  if (f) CHECK_EQ_I(((ox_str *)f->u.t.data)[0].n, 2);
  decode_fails("{\"dtype\": \"float32\\u0000\", \"data\": [1]}", NULL, "\"dtype\" holds \"\\u0000\"");
  decode_fails("{\"dtype\": \"float32\", \"data\\u0000\": [1]}", NULL, "a key in a tensor holds");
  decode_fails("{\"elem_type\": \"float\\u0000\", \"sequence\": []}", NULL, "\"elem_type\" holds");
  decode_fails("{\"dtype\": \"str\", \"data\": [{\"base64\": \"QQ==\\u0000\"}]}", NULL, "not base64");
  /* a syntax error after the escape still gives the column in the text as written */
  decode_fails("{\"dtype\": \"str\", \"data\": [\"\\u0000\" x]}", NULL, "column 36, near \"x]}\"");
  ox_value *v = NULL;
  const char *name = NULL, *text = "{\"name\": \"x\\u0000y\", \"dtype\": \"int64\", \"data\": [1]}";
  ox_err_clear(&E);
  CHECK(ox_json_decode(A, text, strlen(text), NULL, &v, &name, &E) != 0);
  CHECK(strstr(E.msg, "name: holds a NUL byte") != NULL);
  CHECK(name == NULL);
}

static void test_bool(void) {
  ox_value *v = decode("{\"dtype\": \"bool\", \"data\": [true, false, 1, 0]}", NULL);
  if (v) CHECK(!memcmp(v->u.t.data, "\1\0\1\0", 4));
  char *text = encode(v, NULL);
  CHECK(strstr(text, "[true, false, true, false]") != NULL);
  free(text);
}

/* ---- sequences, optionals, maps ---- */

static void test_sequences(void) {
  ox_value *e = decode("{\"sequence\": [], \"elem_dtype\": \"float32\"}", NULL);
  if (e) {
    CHECK_EQ_I(e->kind, OX_SEQUENCE);
    CHECK_EQ_I(e->u.seq.n, 0);
    CHECK(ox_type_eq(e->type->inner, ox_type_tensor(OX_FLOAT)));
    char *text = round_trip(e);
    CHECK(strstr(text, "\"elem_dtype\": \"float32\"") != NULL);
    CHECK(strstr(text, "\"sequence\": []") != NULL);
    free(text);
  }
  /* an empty sequence takes its type from the model */
  const ox_type *seq_i64 = ox_type_seq(A, ox_type_tensor(OX_INT64));
  ox_value *e2 = decode("{\"sequence\": []}", seq_i64);
  if (e2) CHECK(ox_type_eq(e2->type, seq_i64));

  ox_value *s = decode("{\"sequence\": [{\"dtype\": \"int64\", \"data\": [1, 2]}, "
                       "{\"dtype\": \"int64\", \"shape\": [], \"data\": 3}]}", NULL);
  if (s) {
    CHECK_EQ_I(s->u.seq.n, 2);
    CHECK(ox_type_eq(s->type, seq_i64));
    CHECK_EQ_I(s->u.seq.v[1]->u.t.rank, 0);
    free(round_trip(s));
  }
  /* elements may leave out the dtype when the sequence gives it */
  ox_value *s2 = decode("{\"elem_dtype\": \"uint8\", \"sequence\": [{\"data\": [1, 2]}, [3], 4]}", NULL);
  if (s2) {
    CHECK_EQ_I(s2->u.seq.n, 3);
    CHECK_EQ_I(s2->u.seq.v[2]->u.t.dt, OX_UINT8);
  }

  /* nested */
  const char *nested = "{\"elem_type\": \"seq(tensor(float))\", \"sequence\": ["
                       "{\"sequence\": [{\"dtype\": \"float32\", \"data\": [1]}]},"
                       "{\"sequence\": [], \"elem_dtype\": \"float32\"}]}";
  ox_value *n = decode(nested, NULL);
  if (n) {
    CHECK_EQ_I(n->u.seq.n, 2);
    CHECK_EQ_I(n->u.seq.v[0]->kind, OX_SEQUENCE);
    char tb[64];
    CHECK_EQ_S(ox_type_str(n->type, tb, sizeof tb), "seq(seq(tensor(float)))");
    char *text = round_trip(n);
    CHECK(strstr(text, "\"elem_type\": \"seq(tensor(float))\"") != NULL);
    free(text);
  }
  ox_value *n2 = decode("{\"elem_type\": \"sequence( tensor(int32) )\", \"sequence\": []}", NULL);
  if (n2) CHECK_EQ_I(n2->type->inner->kind, OX_SEQUENCE);
}

static void test_optionals(void) {
  const ox_type *opt_f = ox_type_opt(A, ox_type_tensor(OX_FLOAT));
  ox_value *p = decode("{\"optional\": {\"dtype\": \"float32\", \"data\": [1, 2]}, \"elem_dtype\": \"float32\"}", NULL);
  if (p) {
    CHECK_EQ_I(p->kind, OX_OPTIONAL);
    CHECK(p->u.opt != NULL);
    char *text = round_trip(p);
    CHECK(strstr(text, "\"optional\": {") != NULL);
    free(text);
  }
  ox_value *a = decode("{\"optional\": null, \"elem_dtype\": \"float32\"}", NULL);
  if (a) {
    CHECK(a->u.opt == NULL);
    CHECK(ox_type_eq(a->type->inner, ox_type_tensor(OX_FLOAT)));
    char *text = round_trip(a);
    CHECK(strstr(text, "\"optional\": null") != NULL);
    free(text);
  }
  ox_value *q = decode("{\"optional\": null, \"elem_type\": \"seq(tensor(int64))\"}", NULL);
  if (q) {
    CHECK_EQ_I(q->type->inner->kind, OX_SEQUENCE);
    char *text = round_trip(q);
    CHECK(strstr(text, "\"elem_type\": \"seq(tensor(int64))\"") != NULL);
    free(text);
  }
  /* an element type left open ("?"), as an absent optional read from a .pb
   * without a declared type has it (ONNX's elem_type UNDEFINED): written and
   * read back; the model's declared type fills it in */
  ox_value *open;
  CHECK(!ox_opt_new(A, ox_type_parse(A, "?", OX_TYPE_OPEN, NULL, 0), NULL, &open, &E));
  char *ot = round_trip(open);
  CHECK(strstr(ot, "\"elem_dtype\": \"?\"") != NULL);
  ox_value *filled = decode(ot, opt_f);
  if (filled) CHECK(ox_type_eq(filled->type, opt_f));
  free(ot);
  ox_value *es = decode("{\"sequence\": [], \"elem_type\": \"seq(tensor(?))\"}", NULL);
  if (es) free(round_trip(es));
  decode_fails("{\"optional\": null, \"elem_type\": \"seq(tensor(?))\"}",
               ox_type_opt(A, ox_type_tensor(OX_FLOAT)), "optional(seq(tensor(?)))|optional(tensor(float))");

  /* optional of a sequence, type from the element */
  ox_value *os = decode("{\"optional\": {\"sequence\": [], \"elem_dtype\": \"int32\"}}", NULL);
  if (os) free(round_trip(os));

  /* the model declares optional(X): a plain X, or null */
  ox_value *w1 = decode("{\"dtype\": \"float32\", \"data\": [1]}", opt_f);
  if (w1) CHECK(w1->kind == OX_OPTIONAL && w1->u.opt && w1->u.opt->u.t.dt == OX_FLOAT);
  ox_value *w2 = decode("null", opt_f);
  if (w2) CHECK(w2->kind == OX_OPTIONAL && !w2->u.opt);
  ox_value *w3 = decode("{\"optional\": null}", opt_f);
  if (w3) CHECK(w3->kind == OX_OPTIONAL && !w3->u.opt);
}

static void test_maps(void) {
  ox_value *m = decode("{\"map\": [[1, 0.5], [-2, 0.25]], \"key_dtype\": \"int64\", "
                       "\"value_type\": \"tensor(float)\"}", NULL);
  if (m) {
    CHECK_EQ_I(m->kind, OX_MAP);
    char tb[64];
    CHECK_EQ_S(ox_type_str(m->type, tb, sizeof tb), "map(int64, tensor(float))");
    CHECK_EQ_I(m->u.map.keys->u.t.n, 2);
    CHECK_EQ_I(((int64_t *)m->u.map.keys->u.t.data)[1], -2);
    CHECK(((float *)m->u.map.values->u.seq.v[1]->u.t.data)[0] == 0.25f);
    char *text = round_trip(m);
    CHECK(strstr(text, "\"key_dtype\": \"int64\"") != NULL);
    CHECK(strstr(text, "\"value_type\": \"tensor(float)\"") != NULL);
    CHECK(strstr(text, "[1, 0.5],") != NULL);
    free(text);
  }
  /* object form, string keys, key type inferred */
  ox_value *o = decode("{\"map\": {\"a\": 1, \"b\": 2}, \"value_type\": \"int32\"}", NULL);
  if (o) {
    CHECK_EQ_I(o->u.map.keys->u.t.dt, OX_STRING);
    CHECK_EQ_S(((ox_str *)o->u.map.keys->u.t.data)[1].p, "b");
    free(round_trip(o));
  }
  /* integer keys from an object's string keys */
  ox_value *oi = decode("{\"map\": {\"7\": [1, 2]}, \"key_dtype\": \"uint8\", \"value_type\": \"tensor(double)\"}", NULL);
  if (oi) {
    CHECK_EQ_I(((uint8_t *)oi->u.map.keys->u.t.data)[0], 7);
    CHECK_EQ_I(oi->u.map.values->u.seq.v[0]->u.t.n, 2);
    free(round_trip(oi));
  }
  /* full values, value type from the first one; a map of sequences */
  ox_value *f = decode("{\"map\": [[\"k\", {\"dtype\": \"float32\", \"shape\": [2, 1], \"data\": [1, 2]}]]}", NULL);
  if (f) free(round_trip(f));
  ox_value *ms = decode("{\"key_dtype\": \"str\", \"value_type\": \"seq(tensor(int64))\", "
                        "\"map\": [[\"x\", {\"sequence\": [{\"dtype\": \"int64\", \"data\": [1]}]}]]}", NULL);
  if (ms) free(round_trip(ms));
  ox_value *me = decode("{\"map\": [], \"key_dtype\": \"int64\", \"value_type\": \"tensor(float)\"}", NULL);
  if (me) {
    CHECK_EQ_I(me->u.map.keys->u.t.n, 0);
    free(round_trip(me));
  }
  /* a sequence of maps, with the type from the model */
  const ox_type *mt = ox_type_map(A, OX_STRING, ox_type_tensor(OX_FLOAT));
  const ox_type *smt = ox_type_seq(A, mt);
  ox_value *sm = decode("{\"sequence\": [{\"map\": [[\"a\", 1]]}, {\"map\": []}]}", smt);
  if (sm) {
    CHECK(ox_type_eq(sm->type, smt));
    free(round_trip(sm));
  }
}

/* ---- protobuf JSON (MessageToJson of a TensorProto) ---- */

static void test_protobuf_json(void) {
  ox_value *ref = decode("{\"dtype\": \"float32\", \"data\": [[-1, 0, 1.5], [-2.25, 3.5, -4.75]]}", NULL);
  const char *raw = "{\n  \"dims\": [\"2\", \"3\"],\n  \"dataType\": 1,\n  \"name\": \"x\",\n"
                    "  \"rawData\": \"AACAvwAAAAAAAMA/AAAQwAAAYEAAAJjA\"\n}";
  const char *name = NULL;
  ox_value *v = NULL;
  ox_err_clear(&E);
  CHECK_EQ_I(ox_json_decode(A, raw, strlen(raw), NULL, &v, &name, &E), 0);
  CHECK_EQ_S(name, "x");
  CHECK(same_value(ref, v));
  ox_value *fd = decode("{\"dims\": [\"2\", \"3\"], \"data_type\": 1, "
                        "\"float_data\": [-1.0, 0.0, 1.5, -2.25, 3.5, -4.75]}", NULL);
  CHECK(same_value(ref, fd));
  ox_value *nan = decode("{\"dims\": [\"3\"], \"dataType\": 1, \"floatData\": [\"NaN\", \"Infinity\", \"-Infinity\"]}", NULL);
  if (nan) CHECK(isnan(((float *)nan->u.t.data)[0]) && isinf(((float *)nan->u.t.data)[2]));

  ox_value *i64 = decode("{\"dims\": [\"3\"], \"dataType\": 7, "
                         "\"int64Data\": [\"-9223372036854775808\", \"5\", \"9223372036854775807\"]}", NULL);
  ox_value *i64raw = decode("{\"dims\": [\"3\"], \"dataType\": 7, \"rawData\": \"AAAAAAAAAIAFAAAAAAAAAP////////9/\"}", NULL);
  if (i64 && i64raw) {
    CHECK(((int64_t *)i64->u.t.data)[0] == INT64_MIN);
    CHECK(((int64_t *)i64->u.t.data)[2] == INT64_MAX);
    CHECK(same_value(i64, i64raw));
  }
  ox_value *u64 = decode("{\"dims\": [\"2\"], \"dataType\": 13, \"uint64Data\": [\"18446744073709551615\", \"7\"]}", NULL);
  if (u64) CHECK(((uint64_t *)u64->u.t.data)[0] == UINT64_MAX);
  ox_value *str = decode("{\"dims\": [\"2\"], \"data_type\": 8, \"string_data\": [\"YWI=\", \"/wA=\"]}", NULL);
  if (str) {
    const ox_str *s = str->u.t.data;
    CHECK(s[0].n == 2 && !memcmp(s[0].p, "ab", 2));
    CHECK(s[1].n == 2 && !memcmp(s[1].p, "\xff\0", 2));
  }
  /* a scalar has no dims */
  ox_value *sc = decode("{\"dataType\": 6, \"int32Data\": [-7]}", NULL);
  if (sc) CHECK(sc->u.t.rank == 0 && ((int32_t *)sc->u.t.data)[0] == -7);
  /* float16 in int32Data holds the bits */
  ox_value *h = decode("{\"dims\": [\"2\"], \"dataType\": 10, \"int32Data\": [15360, 49152]}", NULL);
  if (h) CHECK(ox_load_f64(OX_FLOAT16, h->u.t.data, 0) == 1 && ox_load_f64(OX_FLOAT16, h->u.t.data, 1) == -2);
  /* int4 packed two per byte, low nibble first: [-8, 7, -1, 0, 3] */
  ox_value *i4 = decode("{\"dims\": [\"5\"], \"dataType\": 22, \"rawData\": \"eA8D\"}", NULL);
  ox_value *i4b = decode("{\"dims\": [\"5\"], \"dataType\": 22, \"int32Data\": [120, 15, 3]}", NULL);
  ox_value *i4ref = decode("{\"dtype\": \"int4\", \"data\": [-8, 7, -1, 0, 3]}", NULL);
  CHECK(i4 && same_value(i4, i4ref));
  CHECK(i4b && same_value(i4b, i4ref));
  /* uint2 four per byte */
  ox_value *u2 = decode("{\"dims\": [\"6\"], \"dataType\": 25, \"rawData\": \"5As=\"}", NULL);
  ox_value *u2ref = decode("{\"dtype\": \"uint2\", \"data\": [0, 1, 2, 3, 3, 2]}", NULL);
  CHECK(u2 && same_value(u2, u2ref));
  ox_value *c = decode("{\"dims\": [\"2\"], \"dataType\": 14, \"floatData\": [1, 2, 3, -4]}", NULL);
  ox_value *craw = decode("{\"dims\": [\"2\"], \"dataType\": 14, \"rawData\": \"AACAPwAAAEAAAEBAAACAwA==\"}", NULL);
  ox_value *cref = decode("{\"dtype\": \"complex64\", \"data\": [[1, 2], [3, -4]]}", NULL);
  CHECK(c && same_value(c, cref));
  CHECK(craw && same_value(craw, cref));
  ox_value *d = decode("{\"dims\": [\"2\"], \"dataType\": 11, \"rawData\": \"AAAAAAAA9D8AAAAAAADgvw==\"}", NULL);
  if (d) CHECK(((double *)d->u.t.data)[0] == 1.25 && ((double *)d->u.t.data)[1] == -0.5);
  ox_value *b = decode("{\"dims\": [\"3\"], \"dataType\": 9, \"rawData\": \"AQAB\"}", NULL);
  if (b) CHECK(!memcmp(b->u.t.data, "\1\0\1", 3));
  /* an empty tensor has no data field at all */
  ox_value *z = decode("{\"dims\": [\"0\", \"4\"], \"dataType\": 1}", NULL);
  if (z) CHECK_EQ_I(z->u.t.n, 0);
  /* the declared type is checked here too */
  ox_value *w = decode("{\"dims\": [\"1\"], \"dataType\": 1, \"floatData\": [2]}", ox_type_tensor(OX_FLOAT));
  CHECK(w != NULL);

  decode_fails("{\"dims\": [\"2\", \"3\"], \"dataType\": 1, \"rawData\": \"AACAvw==\"}", NULL,
               "rawData|4 bytes|needs 24");
  decode_fails("{\"dims\": [\"3\"], \"dataType\": 1, \"floatData\": [1, 2]}", NULL, "floatData|2 values|needs 3");
  decode_fails("{\"dims\": [\"3\"], \"dataType\": 7, \"floatData\": [1, 2, 3]}", NULL, "cannot hold int64");
  decode_fails("{\"dims\": [\"1\"], \"dataType\": 1, \"rawData\": \"AACAvw==\", \"floatData\": [1]}", NULL,
               "both");
  decode_fails("{\"dims\": [\"1\"], \"dataType\": 1, \"rawData\": \"A*==\"}", NULL, "base64");
  decode_fails("{\"dims\": [\"2\"], \"dataType\": 1}", NULL, "no data");
  decode_fails("{\"dims\": [\"2\"], \"dataType\": 99, \"floatData\": [1, 2]}", NULL, "unknown dtype 99");
  decode_fails("{\"dims\": [\"2\"]}", NULL, "dataType");
  decode_fails("{\"dims\": [\"1\"], \"dataType\": 3, \"int32Data\": [200]}", NULL, "200 does not fit int8");
  decode_fails("{\"dims\": [\"1\"], \"dataType\": 1, \"dataLocation\": \"EXTERNAL\", "
               "\"externalData\": [{\"key\": \"location\", \"value\": \"w.bin\"}]}", NULL, "external data");
}

/* ---- errors ---- */

static void test_errors(void) {
  decode_fails("{\"dtype\": \"float32\",\n  \"data\": [1, 2,, 3]}", NULL, "invalid JSON|line 2|column");
  decode_fails("{\"dtype\": \"float32\", \"data\": [1]} extra", NULL, "invalid JSON|line 1");
  decode_fails("{\"dtype\": \"float32\", \"data\": [1", NULL, "invalid JSON");
  decode_fails("", NULL, "empty");
  decode_fails("  \n ", NULL, "empty");
  decode_fails("{\"dtype\": \"floot32\", \"data\": [1]}", NULL, "unknown dtype \"floot32\"");
  decode_fails("{\"dtype\": 3.5, \"data\": [1]}", NULL, "unknown dtype");
  decode_fails("{\"dtype\": \"float32\", \"shape\": [2, 3], \"data\": [1, 2, 3, 4, 5]}", NULL,
               "data has 5 elements; shape (2, 3) needs 6");
  decode_fails("{\"dtype\": \"float32\", \"shape\": [2, 3], \"data\": [[1, 2], [3, 4], [5, 6]]}", NULL,
               "nested as (3, 2)|(2, 3)");
  decode_fails("{\"dtype\": \"float32\", \"shape\": [], \"data\": []}", NULL, "data has 0 elements; shape () needs 1");
  decode_fails("{\"dtype\": \"float32\", \"data\": [[1, 2, 3], [4, 5]]}", NULL,
               "ragged|data[1]|data[0]|(3,)|(2,)");
  decode_fails("{\"dtype\": \"float32\", \"data\": [1, [2]]}", NULL, "ragged|data[1]|single value");
  decode_fails("{\"dtype\": \"uint8\", \"data\": [1, 300]}", NULL, "data[1]: 300 does not fit uint8");
  decode_fails("{\"dtype\": \"int8\", \"data\": [[1, -129]]}", NULL, "data[0][1]: -129 does not fit int8");
  decode_fails("{\"dtype\": \"int4\", \"data\": [8]}", NULL, "8 does not fit int4");
  decode_fails("{\"dtype\": \"uint64\", \"data\": [-1]}", NULL, "-1 does not fit uint64");
  decode_fails("{\"dtype\": \"uint64\", \"data\": [\"18446744073709551616\"]}", NULL, "does not fit uint64");
  decode_fails("{\"dtype\": \"int64\", \"data\": [\"9223372036854775808\"]}", NULL, "9223372036854775808 does not fit int64");
  decode_fails("{\"dtype\": \"int64\", \"data\": [9223372036854775807]}", NULL, "2^53|string");
  decode_fails("{\"dtype\": \"int32\", \"data\": [1.5]}", NULL, "1.5 is not an integer");
  decode_fails("{\"dtype\": \"int32\", \"data\": [\"abc\"]}", NULL, "expected an integer|\"abc\"");
  decode_fails("{\"dtype\": \"float32\", \"data\": [1, \"abc\"]}", NULL, "data[1]|expected a number|\"abc\"");
  decode_fails("{\"dtype\": \"float32\", \"data\": [true]}", NULL, "expected a number|true");
  decode_fails("{\"dtype\": \"float16\", \"data\": [null]}", NULL, "expected a number|null");
  decode_fails("{\"dtype\": \"bool\", \"data\": [2]}", NULL, "expected true or false");
  decode_fails("{\"dtype\": \"float8_e4m3fn\", \"data\": [\"inf\"]}", NULL, "float8_e4m3fn has no infinity");
  decode_fails("{\"dtype\": \"float4_e2m1fn\", \"data\": [\"nan\"]}", NULL, "float4_e2m1fn has no NaN");
  decode_fails("{\"dtype\": \"str\", \"data\": [5]}", NULL, "expected a string");
  decode_fails("{\"dtype\": \"str\", \"data\": [{\"base64\": \"@@\"}]}", NULL, "base64");
  decode_fails("{\"dtype\": \"complex64\", \"data\": [1, 2, 3]}", NULL, "expected [re, im]");
  decode_fails("{\"dtype\": \"float32\", \"shape\": [1000000000000, 1000000000000], \"data\": []}", NULL,
               "too large");
  decode_fails("{\"dtype\": \"float32\", \"shape\": [100000, 100000], \"data\": [1]}", NULL,
               "data has 1 element; shape (100000, 100000) needs 10000000000");
  decode_fails("{\"dtype\": \"float32\", \"shape\": [2, -1], \"data\": []}", NULL, "shape[1]|negative");
  decode_fails("{\"dtype\": \"float32\", \"shape\": 3, \"data\": []}", NULL, "shape");
  decode_fails("{\"dtype\": \"float32\", \"shape\": [1.5], \"data\": []}", NULL, "not an integer");
  decode_fails("{\"dtype\": \"float32\", \"shpae\": [2], \"data\": [1, 2]}", NULL, "unknown key \"shpae\"");
  decode_fails("{\"dtype\": \"float32\"}", NULL, "no \"data\"");
  decode_fails("{\"data\": [1]}", NULL, "no \"dtype\"");
  decode_fails("[1, 2]", NULL, "needs its dtype");
  decode_fails("5", NULL, "needs its dtype");
  decode_fails("null", NULL, "absent optional");
  decode_fails("{\"foo\": 1}", NULL, "expected a tensor");
  decode_fails("{\"name\": 5, \"dtype\": \"int8\", \"data\": [1]}", NULL, "name: expected a string");
  decode_fails("[1]", ox_type_seq(A, ox_type_tensor(OX_FLOAT)), "expected a seq(tensor(float)), got a list");

  /* the declared type */
  decode_fails("{\"dtype\": \"int64\", \"data\": [1]}", ox_type_tensor(OX_FLOAT),
               "tensor(int64)|declares tensor(float)");
  decode_fails("{\"sequence\": [], \"elem_dtype\": \"int64\"}", ox_type_seq(A, ox_type_tensor(OX_FLOAT)),
               "seq(tensor(int64))|declares seq(tensor(float))");
  decode_fails("{\"dtype\": \"float32\", \"data\": [1]}", ox_type_seq(A, ox_type_tensor(OX_FLOAT)),
               "declares seq(tensor(float))");

  /* sequences, optionals, maps */
  decode_fails("{\"sequence\": []}", NULL, "empty sequence|elem_dtype");
  decode_fails("{\"sequence\": 5, \"elem_dtype\": \"float32\"}", NULL, "must be a list");
  decode_fails("{\"sequence\": [], \"elem_dtype\": \"flaot\"}", NULL, "elem_dtype|unknown type \"flaot\"");
  decode_fails("{\"sequence\": [], \"elem_type\": \"seq(tensor(float)\"}", NULL, "elem_type|expected ')'");
  decode_fails("{\"sequence\": [], \"elem_type\": \"tensor(float) x\"}", NULL, "elem_type|at the end");
  decode_fails("{\"sequence\": [{\"dtype\": \"float32\", \"data\": [1]}, {\"dtype\": \"int64\", \"data\": [1]}]}",
               NULL, "sequence[1]|tensor(int64) in a sequence of tensor(float)");
  decode_fails("{\"sequence\": [{\"dtype\": \"float32\", \"data\": [1, [2]]}], \"elem_dtype\": \"float32\"}", NULL,
               "ragged|sequence[0].data[1]");
  decode_fails("{\"sequence\": [{\"dtype\": \"uint8\", \"data\": [1, 256]}]}", NULL,
               "sequence[0].data[1]: 256 does not fit uint8");
  decode_fails("{\"optional\": null}", NULL, "absent optional|elem_dtype");
  decode_fails("{\"optional\": {\"dtype\": \"int8\", \"data\": [1]}, \"elem_dtype\": \"float32\"}", NULL,
               "optional|tensor(int8) in an optional of tensor(float)");
  decode_fails("{\"map\": [[1]], \"key_dtype\": \"int64\", \"value_type\": \"tensor(float)\"}", NULL,
               "map[0]|[key, value] pair");
  decode_fails("{\"map\": [[300, 1]], \"key_dtype\": \"uint8\", \"value_type\": \"tensor(float)\"}", NULL,
               "300 does not fit uint8");
  decode_fails("{\"map\": {\"x\": 1}, \"key_dtype\": \"int64\", \"value_type\": \"tensor(float)\"}", NULL,
               "map[0]|expected an integer");
  decode_fails("{\"map\": [[1, 2]], \"key_dtype\": \"float32\", \"value_type\": \"tensor(float)\"}", NULL,
               "integers or strings");
  decode_fails("{\"map\": []}", NULL, "empty map");
  decode_fails("{\"map\": [[1, 2]], \"key_dtype\": \"int64\"}", NULL, "needs its dtype");
  decode_fails("{\"map\": [[1, {\"dtype\": \"int8\", \"data\": [1]}]], \"value_type\": \"tensor(float)\"}", NULL,
               "tensor(int8) in a map of tensor(float)");

  /* deep nesting and odd bytes do not crash */
  char deep[5000];
  size_t k = 0;
  k += (size_t)snprintf(deep, sizeof deep, "{\"dtype\": \"float32\", \"data\": ");
  for (int i = 0; i < 100; i++) deep[k++] = '[';
  deep[k++] = '1';
  for (int i = 0; i < 100; i++) deep[k++] = ']';
  deep[k++] = '}';
  deep[k] = 0;
  decode_fails(deep, NULL, "nested more than 64");
  const char with_nul[] = "{\"dtype\": \"int8\", \"data\": [1]}\0x";
  ox_value *v = NULL;
  ox_err_clear(&E);
  CHECK(ox_json_decode(A, with_nul, sizeof with_nul - 1, NULL, &v, NULL, &E) != 0);
  CHECK(strstr(E.msg, "NUL") != NULL);
}

/* core/value.c's ox_type_parse, the one parser of type strings (the command
 * line's --input and -a NAME:type=, and "elem_type" here) */
static void test_type_strings(void) {
  char why[160], tb[256];
  const char *ok[][2] = {
      {"tensor(float)", "tensor(float)"},
      {"tensor( float )", "tensor(float)"},
      {" seq ( tensor(int64) ) ", "seq(tensor(int64))"},
      {"sequence(tensor(int64))", "seq(tensor(int64))"},
      {"optional(seq(tensor(uint8)))", "optional(seq(tensor(uint8)))"},
      {"map(string,tensor(float))", "map(string, tensor(float))"},
      {"map( int64 ,\n seq(tensor(double)))", "map(int64, seq(tensor(double)))"},
      {"float32", "tensor(float)"},
      {"FLOAT16", "tensor(float16)"},
  };
  for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
    const ox_type *t = ox_type_parse(A, ok[k][0], 0, why, sizeof why);
    if (!t) fprintf(stderr, "'%s': %s\n", ok[k][0], why);
    CHECK_EQ_S(t ? ox_type_str(t, tb, sizeof tb) : "NULL", ok[k][1]);
  }
  const char *bad[][2] = {
      {"tensor(flaot)", "unknown dtype \"flaot\""},
      {"tensor(float", "expected ')'"},
      {"tensor(float))", "unexpected \")\" at the end"},
      {"seq tensor(float)", "expected '('"},
      {"map(string tensor(float))", "expected ','"},
      {"", "expected tensor(...)"},
      {"?", "unknown type \"?\""},
      {"tensor(?)", "unknown dtype \"?\""},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    why[0] = 0;
    CHECK(!ox_type_parse(A, bad[k][0], 0, why, sizeof why));
    if (!strstr(why, bad[k][1])) fprintf(stderr, "'%s': '%s' lacks '%s'\n", bad[k][0], why, bad[k][1]);
    CHECK(strstr(why, bad[k][1]) != NULL);
  }
  /* "?" (left open) only where asked for; it prints back the same */
  const ox_type *t = ox_type_parse(A, "optional( seq(tensor(?)) )", OX_TYPE_OPEN, why, sizeof why);
  CHECK_EQ_S(t ? ox_type_str(t, tb, sizeof tb) : "NULL", "optional(seq(tensor(?)))");
  CHECK(!ox_type_parse(A, NULL, 0, NULL, 0));
  CHECK(!ox_type_parse(A, "seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(float)))))))))))))))))))))))))))))))))", 0, why, sizeof why));
  CHECK(strstr(why, "nested too deeply") != NULL);
}

int main(void) {
  A = ox_arena_new();
  test_type_strings();
  test_basic_form();
  test_scalars_and_empty();
  test_every_dtype();
  test_exhaustive_small();
  test_random_wide();
  test_int64_extremes();
  test_nan_inf();
  test_complex();
  test_strings();
  test_nul_in_strings();
  test_bool();
  test_sequences();
  test_optionals();
  test_maps();
  test_protobuf_json();
  test_errors();
  ox_arena_free(A);
  return check_done("json");
}
