/* tests/unit/test_text.c: io/text.c prints values exactly as numpy does.
 *
 * The expected tensor bodies were made with numpy 1.24:
 *   np.array2string(np.array(..., dtype=...), separator=', ')
 * and str() for 0-d arrays. The seed pages' examples are checked whole. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/io.h"


static ox_arena *A;
static ox_err E;
static char got[1 << 16]; /* the last printed text */

static ox_value *tensor(ox_dtype dt, int rank, const int64_t *dims) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, dt, rank, dims, &v, &E)) {
    fprintf(stderr, "ox_tensor_new: %s\n", E.msg);
    exit(1);
  }
  return v;
}

static ox_value *f32(int rank, const int64_t *dims, const float *x) {
  ox_value *v = tensor(OX_FLOAT, rank, dims);
  memcpy(v->u.t.data, x, (size_t)v->u.t.n * sizeof *x);
  return v;
}

static ox_value *f64(int rank, const int64_t *dims, const double *x) {
  ox_value *v = tensor(OX_DOUBLE, rank, dims);
  memcpy(v->u.t.data, x, (size_t)v->u.t.n * sizeof *x);
  return v;
}

/* Any other type, from doubles (ox_store_f64) */
static ox_value *of(ox_dtype dt, int rank, const int64_t *dims, const double *x) {
  ox_value *v = tensor(dt, rank, dims);
  for (int64_t i = 0; i < v->u.t.n; i++) ox_store_f64(dt, v->u.t.data, i, x[i]);
  return v;
}

static ox_value *i64s(int rank, const int64_t *dims, const int64_t *x) {
  ox_value *v = tensor(OX_INT64, rank, dims);
  memcpy(v->u.t.data, x, (size_t)v->u.t.n * sizeof *x);
  return v;
}

static ox_value *strs(int n, const char *const *s) {
  int64_t d[1] = {n};
  ox_value *v = tensor(OX_STRING, 1, d);
  ox_str *p = v->u.t.data;
  for (int i = 0; i < n; i++) p[i] = (ox_str){s[i], (int64_t)strlen(s[i])};
  return v;
}

static ox_value *seq(const ox_type *elem, int n, ox_value *const *els) {
  ox_value *v = NULL;
  if (ox_seq_new(A, elem, n, &v, &E)) exit(1);
  for (int i = 0; i < n; i++) v->u.seq.v[i] = els[i];
  return v;
}

/* The numpy body of a tensor, continuation lines indented by `indent`. */
static const char *body_at(const ox_value *v, int indent) {
  ox_buf b = {0};
  int rc = ox_text_tensor(&b, &v->u.t, indent);
  snprintf(got, sizeof got, "%.*s", (int)b.n, b.p ? (const char *)b.p : "");
  ox_buf_free(&b);
  return rc ? "(error)" : got;
}
static const char *body(const ox_value *v) { return body_at(v, 0); }

/* What ox_text_print writes. */
static const char *printed_opt(const char *name, const ox_value *v, int indent, int full) {
  FILE *f = tmpfile();
  if (!f) return "(no tmpfile)";
  int rc = ox_text_print_full(f, name, v, indent, full);
  rewind(f);
  size_t n = fread(got, 1, sizeof got - 1, f);
  got[n] = 0;
  fclose(f);
  return rc ? "(error)" : got;
}
static const char *printed(const char *name, const ox_value *v, int indent) { return printed_opt(name, v, indent, 0); }

static void test_seed_pages(void) {
  int64_t d23[2] = {2, 3}, d4[1] = {4};
  float a[6] = {-1, 0, 1.5f, -2.25f, 3.5f, -4.75f};
  CHECK_EQ_S(printed("input_seq", f32(2, d23, a), 2),
             "  input_seq: shape=(2, 3), dtype=float32\n"
             "    [[-1.  ,  0.  ,  1.5 ],\n"
             "     [-2.25,  3.5 , -4.75]]\n");
  float b[6] = {0, 1, 2, 3, 4, 5};
  CHECK_EQ_S(printed("position", f32(2, d23, b), 2),
             "  position: shape=(2, 3), dtype=float32\n"
             "    [[0., 1., 2.],\n"
             "     [3., 4., 5.]]\n");
  float c[6] = {6, 7, 8, 9, 10, 11};
  CHECK_EQ_S(body(f32(2, d23, c)), "[[ 6.,  7.,  8.],\n [ 9., 10., 11.]]");
  int64_t m2 = -2;
  CHECK_EQ_S(printed("input_3", i64s(0, NULL, &m2), 2),
             "  input_3: shape=(), dtype=int64\n"
             "    -2\n");

  ox_value *v = tensor(OX_INT32, 1, d4);
  for (int i = 0; i < 4; i++) ((int32_t *)v->u.t.data)[i] = i + 1;
  CHECK_EQ_S(printed("opt_seq", v, 2),
             "  opt_seq: shape=(4,), dtype=int32\n"
             "    [1, 2, 3, 4]\n");
  CHECK_EQ_S(printed("output_sequence", seq(ox_type_tensor(OX_INT32), 1, &v), 2),
             "  output_sequence: sequence(len=1), element_shape=(4,), element_dtype=int32\n"
             "    [\n"
             "      [0] [1, 2, 3, 4]\n"
             "    ]\n");
}

static void test_floats(void) {
  int64_t d2[1] = {2}, d5[1] = {5};
  float small[2] = {1e-5f, 1.0f};
  CHECK_EQ_S(body(f32(1, d2, small)), "[1.e-05, 1.e+00]");
  float odd[5] = {NAN, INFINITY, -INFINITY, 1.5f, -2};
  CHECK_EQ_S(body(f32(1, d5, odd)), "[ nan,  inf, -inf,  1.5, -2. ]");
  double nan_inf[2] = {NAN, INFINITY};
  CHECK_EQ_S(body(f64(1, d2, nan_inf)), "[nan, inf]");
  int64_t d3[1] = {3};
  double big[3] = {1e20, 1.5, -2.0};
  CHECK_EQ_S(body(f64(1, d3, big)), "[ 1.0e+20,  1.5e+00, -2.0e+00]");
  float large[2] = {123456789.0f, 0.5f};
  CHECK_EQ_S(body(f32(1, d2, large)), "[1.2345679e+08, 5.0000000e-01]");
  double tie[2] = {0.001953125, 0.1}; /* 8 digits: the tie rounds to even */
  CHECK_EQ_S(body(f64(1, d2, tie)), "[0.00195312, 0.1       ]");
  /* float16 in its own precision */
  double h[5] = {0.1, 0.2, 65504, -3.14159, 6e-8};
  CHECK_EQ_S(body(of(OX_FLOAT16, 1, d5, h)),
             "[ 1.00e-01,  2.00e-01,  6.55e+04, -3.14e+00,  5.96e-08]");
  double h2[3] = {0.1, 0.5, -3.14};
  CHECK_EQ_S(body(of(OX_FLOAT16, 1, d3, h2)), "[ 0.1 ,  0.5 , -3.14]");
  /* the other small floats the same way (no numpy reference) */
  double bf[2] = {1.5, 0.1};
  CHECK_EQ_S(body(of(OX_BFLOAT16, 1, d2, bf)), "[1.5, 0.1]");
  double e4[3] = {0.5, 448, -3};
  CHECK_EQ_S(body(of(OX_FLOAT8E4M3FN, 1, d3, e4)), "[  0.5, 448. ,  -3. ]");
  double f4[3] = {0.5, 6, -1.5};
  CHECK_EQ_S(body(of(OX_FLOAT4E2M1, 1, d3, f4)), "[ 0.5,  6. , -1.5]");
  /* scalars print like str() of a numpy scalar */
  float x = 0.1f;
  CHECK_EQ_S(body(f32(0, NULL, &x)), "0.1");
  x = 1e-5f;
  CHECK_EQ_S(body(f32(0, NULL, &x)), "1e-05");
  x = NAN;
  CHECK_EQ_S(body(f32(0, NULL, &x)), "nan");
  x = -2.0f;
  CHECK_EQ_S(body(f32(0, NULL, &x)), "-2.0");
  double y = 123456789.123;
  CHECK_EQ_S(body(f64(0, NULL, &y)), "123456789.123");
  double hs = -3.14;
  CHECK_EQ_S(body(of(OX_FLOAT16, 0, NULL, &hs)), "-3.14");
}

static void test_complex(void) {
  int64_t d3[1] = {3};
  ox_value *v = tensor(OX_COMPLEX64, 1, d3);
  ox_c64 *c = v->u.t.data;
  c[0] = (ox_c64){1, 2};
  c[1] = (ox_c64){-0.0f, -1.5f}; /* Python's -1.5j */
  c[2] = (ox_c64){0.25f, 0};
  CHECK_EQ_S(body(v), "[ 1.  +2.j , -0.  -1.5j,  0.25+0.j ]");
  ox_value *w = tensor(OX_COMPLEX128, 1, d3);
  ox_c128 *z = w->u.t.data;
  z[0] = (ox_c128){NAN, NAN};
  z[1] = (ox_c128){1, 1};
  z[2] = (ox_c128){1, 0};
  CHECK_EQ_S(body(w), "[nan+nanj,  1. +1.j,  1. +0.j]");
  ox_value *s = tensor(OX_COMPLEX64, 0, NULL);
  *(ox_c64 *)s->u.t.data = (ox_c64){1, 2};
  CHECK_EQ_S(body(s), "(1+2j)");
  *(ox_c64 *)s->u.t.data = (ox_c64){0, 2};
  CHECK_EQ_S(body(s), "2j");
}

static void test_ints_bools_strings(void) {
  int64_t d3[1] = {3}, d2[1] = {2}, d22[2] = {2, 2};
  double bools[3] = {1, 0, 1};
  CHECK_EQ_S(body(of(OX_BOOL, 1, d3, bools)), "[ True, False,  True]");
  CHECK_EQ_S(body(of(OX_BOOL, 0, NULL, bools)), "True");
  double i16[4] = {1, -1000, 22, 5};
  CHECK_EQ_S(body(of(OX_INT16, 2, d22, i16)), "[[    1, -1000],\n [   22,     5]]");
  ox_value *u = tensor(OX_UINT64, 1, d2);
  ((uint64_t *)u->u.t.data)[0] = UINT64_MAX;
  ((uint64_t *)u->u.t.data)[1] = 7;
  CHECK_EQ_S(body(u), "[18446744073709551615,                    7]");
  int64_t lo[2] = {INT64_MIN, 7};
  CHECK_EQ_S(body(i64s(1, d2, lo)), "[-9223372036854775808,                    7]");

  const char *s[5] = {"a", "it's", "x\ny", "caf\xc3\xa9", ""};
  CHECK_EQ_S(body(strs(5, s)), "['a', \"it's\", 'x\\ny', 'caf\xc3\xa9', '']");
  const char *raw[2] = {"\xff", "\\"};
  CHECK_EQ_S(body(strs(2, raw)), "[b'\\xff', '\\\\']");
  CHECK_EQ_S(printed("s", strs(1, s), 0), "s: shape=(1,), dtype=str\n  ['a']\n");
}

static void test_layout(void) {
  /* 3-D: a blank line between the blocks */
  int64_t d234[3] = {2, 3, 4};
  int64_t x[24];
  for (int i = 0; i < 24; i++) x[i] = i;
  CHECK_EQ_S(body(i64s(3, d234, x)),
             "[[[ 0,  1,  2,  3],\n"
             "  [ 4,  5,  6,  7],\n"
             "  [ 8,  9, 10, 11]],\n"
             "\n"
             " [[12, 13, 14, 15],\n"
             "  [16, 17, 18, 19],\n"
             "  [20, 21, 22, 23]]]");

  /* a long row wraps at 75 columns; the value lines are indented, blank
   * lines are not */
  int64_t d100[1] = {100};
  ox_value *row = tensor(OX_INT32, 1, d100);
  for (int i = 0; i < 100; i++) ((int32_t *)row->u.t.data)[i] = i * 1000;
  const char *want =
      "[    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n"
      " 10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000,\n"
      " 20000, 21000, 22000, 23000, 24000, 25000, 26000, 27000, 28000, 29000,\n"
      " 30000, 31000, 32000, 33000, 34000, 35000, 36000, 37000, 38000, 39000,\n"
      " 40000, 41000, 42000, 43000, 44000, 45000, 46000, 47000, 48000, 49000,\n"
      " 50000, 51000, 52000, 53000, 54000, 55000, 56000, 57000, 58000, 59000,\n"
      " 60000, 61000, 62000, 63000, 64000, 65000, 66000, 67000, 68000, 69000,\n"
      " 70000, 71000, 72000, 73000, 74000, 75000, 76000, 77000, 78000, 79000,\n"
      " 80000, 81000, 82000, 83000, 84000, 85000, 86000, 87000, 88000, 89000,\n"
      " 90000, 91000, 92000, 93000, 94000, 95000, 96000, 97000, 98000, 99000]";
  CHECK_EQ_S(body(row), want);
  const char *at3 = body_at(row, 3);
  CHECK(!strncmp(at3, "[    0,  1000,", 14));
  CHECK(strstr(at3, "9000,\n    10000, 11000,") != NULL);
  CHECK(strstr(body_at(i64s(3, d234, x), 2), "11]],\n\n   [[12,") != NULL);

  /* more than 1000 elements: 3 at each end of every long axis */
  int64_t d2000[1] = {2000};
  ox_value *big = tensor(OX_FLOAT, 1, d2000);
  for (int i = 0; i < 2000; i++) ((float *)big->u.t.data)[i] = (float)i;
  CHECK_EQ_S(body(big), "[0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03, 1.999e+03]");
  int64_t d3x[3] = {2, 3, 2000};
  ox_value *cube = tensor(OX_INT32, 3, d3x);
  for (int i = 0; i < 12000; i++) ((int32_t *)cube->u.t.data)[i] = i;
  CHECK_EQ_S(body(cube),
             "[[[    0,     1,     2, ...,  1997,  1998,  1999],\n"
             "  [ 2000,  2001,  2002, ...,  3997,  3998,  3999],\n"
             "  [ 4000,  4001,  4002, ...,  5997,  5998,  5999]],\n"
             "\n"
             " [[ 6000,  6001,  6002, ...,  7997,  7998,  7999],\n"
             "  [ 8000,  8001,  8002, ...,  9997,  9998,  9999],\n"
             "  [10000, 10001, 10002, ..., 11997, 11998, 11999]]]");
  const char *all = printed_opt("big", big, 0, 1); /* everything: no "...", 2000 values */
  CHECK(strstr(all, "...") == NULL);
  CHECK(strstr(all, "1.999e+03]") != NULL && strstr(all, "1.000e+03") != NULL);
  CHECK(strstr(printed("big", big, 0), "...") != NULL); /* the option is per call: gone again */

  int64_t d0[1] = {0};
  CHECK_EQ_S(printed("e", tensor(OX_FLOAT, 1, d0), 0), "e: shape=(0,), dtype=float32\n  []\n");
}

static void test_containers(void) {
  const ox_type *tf = ox_type_tensor(OX_FLOAT);
  CHECK_EQ_S(printed("x", seq(tf, 0, NULL), 2),
             "  x: sequence(len=0), element_dtype=float32\n"
             "    []\n");

  ox_value *opt = NULL;
  CHECK_EQ_I(ox_opt_new(A, tf, NULL, &opt, &E), 0);
  CHECK_EQ_S(printed("x", opt, 2), "  x: optional(empty), element_type=tensor(float)\n");
  int64_t d2[1] = {2}, d11[2] = {1, 1}, d22[2] = {2, 2};
  float ab[2] = {1, 2.5f};
  CHECK_EQ_I(ox_opt_new(A, tf, f32(1, d2, ab), &opt, &E), 0);
  CHECK_EQ_S(printed("x", opt, 2),
             "  x: optional, shape=(2,), dtype=float32\n"
             "    [1. , 2.5]\n");

  /* elements over several lines line up under their first value */
  ox_value *m[2];
  int64_t q[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  m[0] = i64s(2, d22, q);
  m[1] = i64s(2, d22, q + 4);
  CHECK_EQ_S(printed("s", seq(ox_type_tensor(OX_INT64), 2, m), 0),
             "s: sequence(len=2), element_shape=(2, 2), element_dtype=int64\n"
             "  [\n"
             "    [0] [[1, 2],\n"
             "         [3, 4]]\n"
             "    [1] [[5, 6],\n"
             "         [7, 8]]\n"
             "  ]\n");

  /* shapes differ: each element gets its own header */
  float three = 3;
  ox_value *mixed[2] = {f32(1, d2, ab), f32(2, d11, &three)};
  CHECK_EQ_S(printed("s", seq(tf, 2, mixed), 0),
             "s: sequence(len=2), element_dtype=float32\n"
             "  [\n"
             "    [0] shape=(2,), dtype=float32\n"
             "      [1. , 2.5]\n"
             "    [1] shape=(1, 1), dtype=float32\n"
             "      [[3.]]\n"
             "  ]\n");

  /* a sequence of sequences */
  ox_value *inner = seq(tf, 1, mixed + 1);
  CHECK_EQ_S(printed("ss", seq(inner->type, 1, &inner), 0),
             "ss: sequence(len=1), element_type=seq(tensor(float))\n"
             "  [\n"
             "    [0] sequence(len=1), element_shape=(1, 1), element_dtype=float32\n"
             "      [\n"
             "        [0] [[3.]]\n"
             "      ]\n"
             "  ]\n");

  /* a map: int64 keys, float scalar values */
  ox_value *map = ox_alloc(A, sizeof *map);
  map->kind = OX_MAP;
  map->type = ox_type_map(A, OX_INT64, tf);
  int64_t keys[2] = {1, 7};
  map->u.map.keys = i64s(1, d2, keys);
  float half = 0.5f, m2 = -2.0f;
  ox_value *vals[2] = {f32(0, NULL, &half), f32(0, NULL, &m2)};
  map->u.map.values = seq(tf, 2, vals);
  CHECK_EQ_S(printed("m", map, 0),
             "m: map(len=2), key_dtype=int64, value_type=tensor(float)\n"
             "  {\n"
             "    1: 0.5\n"
             "    7: -2.0\n"
             "  }\n");
}

int main(void) {
  A = ox_arena_new();
  test_seed_pages();
  test_floats();
  test_complex();
  test_ints_bools_strings();
  test_layout();
  test_containers();
  ox_arena_free(A);
  return check_done("text");
}
