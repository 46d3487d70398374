/* tests/unit/test_kernel.c: the shared kernel helpers of core/kernel.c that
 * replaced per-file copies: ox_widen_f64 / ox_narrow_f64 (a double buffer in
 * and out of a tensor of any real dtype, integers as the caller's reference
 * stores them) and the input helpers ox_opt_tensor_in / ox_same_dtype. */
#include "kit.h"

#define DIMS(...) (int64_t[]){__VA_ARGS__}

static void test_widen(void) {
  /* integers exactly (2^53 + 1 would not be: doubles stop there) */
  int64_t i64[] = {INT64_C(9007199254740992), -3};
  double *d = ox_widen_f64(A, &tensor(OX_INT64, 1, DIMS(2), i64)->u.t, &E);
  CHECK(d && d[0] == 9007199254740992.0 && d[1] == -3);
  uint16_t h[] = {0x3C00, 0xC000}; /* float16 1, -2 */
  d = ox_widen_f64(A, &tensor(OX_FLOAT16, 1, DIMS(2), h)->u.t, &E);
  CHECK(d && d[0] == 1 && d[1] == -2);
  uint8_t b[] = {1, 0};
  d = ox_widen_f64(A, &tensor(OX_BOOL, 1, DIMS(2), b)->u.t, &E);
  CHECK(d && d[0] == 1 && d[1] == 0);
  d = ox_widen_f64(A, &tensor(OX_FLOAT, 1, DIMS(0), NULL)->u.t, &E); /* empty: a buffer still */
  CHECK(d != NULL);
}

static void test_narrow(void) {
  const double v[] = {2.5, 3.5, -2.5, -2.7, 300, -300, NAN};
  /* truncation, as numpy's astype: toward zero, NaN 0 */
  ox_tensor *t = &tensor(OX_INT32, 1, DIMS(7), NULL)->u.t;
  CHECK_EQ_I(ox_narrow_f64(A, v, t, OX_TO_INT_TRUNC, &E), 0);
  const int32_t *i = t->data;
  CHECK(i[0] == 2 && i[1] == 3 && i[2] == -2 && i[3] == -2 && i[4] == 300 && i[5] == -300 && i[6] == 0);
  /* saturate_cast: half to even, clamped */
  t = &tensor(OX_INT8, 1, DIMS(7), NULL)->u.t;
  CHECK_EQ_I(ox_narrow_f64(A, v, t, OX_TO_INT_ROUND_SAT, &E), 0);
  const int8_t *s = t->data;
  CHECK(s[0] == 2 && s[1] == 4 && s[2] == -2 && s[3] == -3 && s[4] == 127 && s[5] == -128 && s[6] == 0);
  t = &tensor(OX_UINT64, 1, DIMS(7), NULL)->u.t;
  CHECK_EQ_I(ox_narrow_f64(A, v, t, OX_TO_INT_ROUND_SAT, &E), 0);
  const uint64_t *u = t->data;
  CHECK(u[0] == 2 && u[3] == 0 && u[4] == 300 && u[5] == 0);
  /* bool: v != 0 truncating (as Cast), 0 or 1 after rounding */
  const double b[] = {0.4, 0.6, -0.4};
  t = &tensor(OX_BOOL, 1, DIMS(3), NULL)->u.t;
  CHECK_EQ_I(ox_narrow_f64(A, b, t, OX_TO_INT_TRUNC, &E), 0);
  CHECK(!memcmp(t->data, (uint8_t[]){1, 1, 1}, 3));
  CHECK_EQ_I(ox_narrow_f64(A, b, t, OX_TO_INT_ROUND_SAT, &E), 0);
  CHECK(!memcmp(t->data, (uint8_t[]){0, 1, 0}, 3));
  /* floats round once (float16 through float, as ox_narrow_f32) */
  t = &tensor(OX_FLOAT16, 1, DIMS(1), NULL)->u.t;
  CHECK_EQ_I(ox_narrow_f64(A, (double[]){1.0 / 3}, t, OX_TO_INT_TRUNC, &E), 0);
  CHECK_EQ_I(*(uint16_t *)t->data, ox_f32_to_f16(1.0f / 3));
  t = &tensor(OX_DOUBLE, 1, DIMS(2), NULL)->u.t;
  CHECK_EQ_I(ox_narrow_f64(A, v, t, OX_TO_INT_TRUNC, &E), 0);
  CHECK(((double *)t->data)[0] == 2.5);
  /* no real numbers in a string */
  t = &tensor(OX_STRING, 1, DIMS(1), NULL)->u.t;
  ox_err_clear(&E);
  CHECK_FAILS(ox_narrow_f64(A, v, t, OX_TO_INT_TRUNC, &E), "cannot store real numbers as");
}

static void test_inputs(void) {
  static const char *names[] = {"X", "B"};
  ox_node nd = {.name = "n", .op = "Op", .domain = "", .nin = 2, .in = names};
  ox_ctx c = {.a = A, .err = &E, .node = &nd};
  ox_value *in[2] = {tensor(OX_FLOAT, 1, DIMS(1), NULL), NULL};
  const ox_tensor *t = (const ox_tensor *)1;
  CHECK_EQ_I(ox_opt_tensor_in(&c, in, 2, 1, &t), 0); /* absent */
  CHECK(t == NULL);
  CHECK_EQ_I(ox_opt_tensor_in(&c, in, 1, 5, &t), 0); /* past nin */
  CHECK(t == NULL);
  CHECK_EQ_I(ox_opt_tensor_in(&c, in, 2, 0, &t), 0);
  CHECK(t == &in[0]->u.t);
  in[1] = tensor(OX_INT32, 1, DIMS(1), NULL);
  ox_err_clear(&E);
  CHECK_FAILS(ox_same_dtype(&c, 1, &in[1]->u.t, OX_FLOAT),
              "input 1 'B' is int32 but input 0 is float; they must have the same type");
  CHECK_EQ_I(ox_same_dtype(&c, 1, &in[1]->u.t, OX_INT32), 0);
  /* one helper of each kind (issue 29): against input j, in the same words */
  ox_err_clear(&E);
  CHECK_FAILS(ox_same_dtype_as(&c, 1, &in[1]->u.t, 0, &in[0]->u.t),
              "input 1 'B' is int32 but input 0 'X' is float; they must have the same type");
  CHECK_EQ_I(ox_same_dtype_as(&c, 0, &in[0]->u.t, 0, &in[0]->u.t), 0);
  ox_err_clear(&E);
  CHECK_FAILS(ox_need_tensor(&c, NULL, 1), "input 1 'B' is missing");
  ox_value *seq;
  CHECK_EQ_I(ox_seq_new(A, ox_type_tensor(OX_FLOAT), 0, &seq, &E), 0);
  ox_err_clear(&E);
  CHECK_FAILS(ox_need_tensor(&c, seq, 0), "input 0 'X' is seq(tensor(float))");
  CHECK_FAILS(ox_need_tensor(&c, seq, 0), "; expected a tensor");
  CHECK_EQ_I(ox_need_tensor(&c, in[0], 0), 0);
}

int main(void) {
  A = ox_arena_new();
  test_widen();
  test_narrow();
  test_inputs();
  ox_arena_free(A);
  return check_done("kernel");
}
