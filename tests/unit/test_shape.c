/* tests/unit/test_shape.c: the shape-family kernels (Reshape, Flatten, Squeeze,
 * Unsqueeze, Shape, Size, ConstantOfShape, EyeLike, Range, Trilu, OneHot,
 * Transpose), called directly through the registry with a hand-made node. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"

/* ---- building values ---- */

#define DIMS(...) {__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, (int64_t[])dims, (float[])__VA_ARGS__)
#define I64V(n, ...) tensor(OX_INT64, 1, (int64_t[]){n}, (int64_t[])__VA_ARGS__)
static ox_value *i64(int64_t x) { return tensor(OX_INT64, 0, NULL, &x); }
static ox_value *i32(int32_t x) { return tensor(OX_INT32, 0, NULL, &x); }
static ox_value *f32(float x) { return tensor(OX_FLOAT, 0, NULL, &x); }
/* float 0, 1, 2, ... of the given shape */
static ox_value *iota_f32(int rank, const int64_t *dims) {
  ox_value *v = tensor(OX_FLOAT, rank, dims, NULL);
  float *p = v->u.t.data;
  for (int64_t i = 0; i < v->u.t.n; i++) p[i] = (float)i;
  return v;
}

#define SHAPE(v, rank, dims) shape_is(v, rank, (int64_t[])dims)
#define IS_F32(v, rank, dims, ...) same_bytes(v, OX_FLOAT, rank, (int64_t[])dims, (float[])__VA_ARGS__)
#define IS_I64(v, rank, dims, ...) same_bytes(v, OX_INT64, rank, (int64_t[])dims, (int64_t[])__VA_ARGS__)
#define IS_I32(v, rank, dims, ...) same_bytes(v, OX_INT32, rank, (int64_t[])dims, (int32_t[])__VA_ARGS__)

/* ---- attributes ---- */

#define INTS(name, ...) attr_ints(name, sizeof((int64_t[])__VA_ARGS__) / sizeof(int64_t), (int64_t[])__VA_ARGS__)

/* ---- running one node ---- */

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, 1, out);
}
#define IN(...) (ox_value *[]){__VA_ARGS__}
#define NIN(...) (int)(sizeof((ox_value *[]){__VA_ARGS__}) / sizeof(ox_value *)), IN(__VA_ARGS__)
#define ATTRS(...) (int)(sizeof((ox_attr[]){__VA_ARGS__}) / sizeof(ox_attr)), (ox_attr[]){__VA_ARGS__}

/* ---- the table ---- */

static void test_table(void) {
  extern const ox_kernel ox_shape_kernels[];
  check_rows(ox_shape_kernels, NULL, 0);
  CHECK_EQ_I(ox_registry_find("", "Reshape", 4)->since, 1);
  CHECK_EQ_I(ox_registry_find("", "Reshape", 14)->since, 14);
  CHECK_EQ_I(ox_registry_find("", "Squeeze", 12)->since, 11);
  CHECK_EQ_I(ox_registry_find("", "Range", 26)->since, 11);
  CHECK_EQ_I(ox_registry_find("", "Range", 27)->since, 27);
  CHECK(ox_registry_find("", "Range", 10) == NULL);
  CHECK(ox_registry_find("", "Trilu", 13) == NULL);
  /* bfloat16 Range only from 27; float16 Transpose before 13 but not bfloat16 */
  CHECK(!(ox_registry_find("", "Range", 26)->types & OX_T(BFLOAT16)));
  CHECK(ox_registry_find("", "Range", 27)->types & OX_T(BFLOAT16));
  CHECK(!(ox_registry_find("", "Transpose", 12)->types & OX_T(BFLOAT16)));
  CHECK(ox_registry_find("", "Transpose", 25)->types & OX_T(INT2));
  CHECK(!(ox_registry_find("", "Reshape", 1)->types & OX_T(INT64)));
}

/* ---- Reshape ---- */

static void test_reshape(void) {
  ox_value *x = iota_f32(3, (int64_t[]){2, 3, 4}), *y;
  /* 0 copies the input's dim, -1 is inferred */
  CHECK_EQ_I(run("Reshape", 13, 0, NULL, NIN(x, I64V(2, {0, -1})), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(2, 12)));
  CHECK(y->u.t.data == x->u.t.data); /* shared, not copied */
  CHECK(x->u.t.rank == 3);           /* the input's header is untouched */
  CHECK_EQ_I(run("Reshape", 5, 0, NULL, NIN(x, I64V(3, {-1, 0, 2})), &y), 0);
  CHECK(SHAPE(y, 3, DIMS(4, 3, 2)));
  CHECK_EQ_I(run("Reshape", 14, 0, NULL, NIN(x, I64V(1, {24})), &y), 0);
  CHECK(SHAPE(y, 1, DIMS(24)));
  /* int32 shapes are taken too */
  CHECK_EQ_I(run("Reshape", 14, 0, NULL,
                 NIN(x, tensor(OX_INT32, 1, (int64_t[]){2}, (int32_t[]){6, 4})), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(6, 4)));
  /* Reshape-1: the shape attribute */
  CHECK_EQ_I(run("Reshape", 1, ATTRS(INTS("shape", {0, 12})), NIN(x), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(2, 12)));
  CHECK_FAILS(run("Reshape", 1, 0, NULL, NIN(x), &y), "'shape' is required");

  /* allowzero (14): 0 is a real 0 */
  ox_value *e = tensor(OX_FLOAT, 2, (int64_t[]){0, 3}, NULL);
  CHECK_EQ_I(run("Reshape", 14, ATTRS(attr_int("allowzero", 1)), NIN(e, I64V(3, {3, 0, 5})), &y), 0);
  CHECK(SHAPE(y, 3, DIMS(3, 0, 5)));
  CHECK_FAILS(run("Reshape", 14, ATTRS(attr_int("allowzero", 1)), NIN(e, I64V(2, {0, -1})), &y),
              "both 0 and -1");
  /* without allowzero, the 0 copies input dim 0 (= 0), and -1 cannot be inferred */
  CHECK_FAILS(run("Reshape", 14, 0, NULL, NIN(e, I64V(2, {0, -1})), &y), "cannot be inferred");
  /* before 14 allowzero is not read: 0 copies */
  CHECK_EQ_I(run("Reshape", 13, ATTRS(attr_int("allowzero", 1)), NIN(x, I64V(2, {0, -1})), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(2, 12)));

  /* errors */
  CHECK_FAILS(run("Reshape", 14, 0, NULL, NIN(x, I64V(2, {-2, 12})), &y),
              "negative dimension -2 at index 0; only -1");
  CHECK_FAILS(run("Reshape", 14, 0, NULL, NIN(x, I64V(2, {-1, -1})), &y), "more than one -1");
  CHECK_FAILS(run("Reshape", 14, 0, NULL, NIN(x, I64V(2, {5, 5})), &y),
              "cannot reshape a tensor of shape (2, 3, 4) (24 elements) into (5, 5) (25 elements)");
  CHECK_FAILS(run("Reshape", 14, 0, NULL, NIN(x, I64V(2, {5, -1})), &y), "cannot be inferred");
  CHECK_FAILS(run("Reshape", 14, 0, NULL, NIN(x, I64V(4, {1, 1, 1, 0})), &y), "has rank 3");
  CHECK_FAILS(run("Reshape", 14, 0, NULL, NIN(x, I64V(3, {INT64_MAX, 4, 4})), &y), "too large");

  /* scalars: () <-> (1,) */
  ox_value *s = f32(7);
  CHECK_EQ_I(run("Reshape", 14, 0, NULL, NIN(s, I64V(1, {-1})), &y), 0);
  CHECK(IS_F32(y, 1, DIMS(1), {7}));
  CHECK_EQ_I(run("Reshape", 14, 0, NULL, NIN(y, tensor(OX_INT64, 1, (int64_t[]){0}, NULL)), &y), 0);
  CHECK(IS_F32(y, 0, DIMS(0), {7}));
}

/* ---- Flatten ---- */

static void test_flatten(void) {
  ox_value *x = iota_f32(4, (int64_t[]){2, 3, 4, 5}), *y;
  CHECK_EQ_I(run("Flatten", 13, 0, NULL, NIN(x), &y), 0); /* axis 1 */
  CHECK(SHAPE(y, 2, DIMS(2, 60)));
  CHECK(y->u.t.data == x->u.t.data);
  CHECK_EQ_I(run("Flatten", 13, ATTRS(attr_int("axis", 0)), NIN(x), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(1, 120)));
  CHECK_EQ_I(run("Flatten", 13, ATTRS(attr_int("axis", 4)), NIN(x), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(120, 1)));
  CHECK_EQ_I(run("Flatten", 11, ATTRS(attr_int("axis", -1)), NIN(x), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(24, 5)));
  CHECK_EQ_I(run("Flatten", 11, ATTRS(attr_int("axis", -4)), NIN(x), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(1, 120)));
  /* negative axes only from 11; out of range */
  CHECK_FAILS(run("Flatten", 9, ATTRS(attr_int("axis", -1)), NIN(x), &y), "out of range [0, 4]");
  CHECK_FAILS(run("Flatten", 13, ATTRS(attr_int("axis", -5)), NIN(x), &y), "out of range [-4, 4]");
  CHECK_FAILS(run("Flatten", 13, ATTRS(attr_int("axis", 5)), NIN(x), &y), "out of range");
  /* a zero dim */
  ox_value *e = tensor(OX_FLOAT, 3, (int64_t[]){2, 0, 3}, NULL);
  CHECK_EQ_I(run("Flatten", 13, ATTRS(attr_int("axis", 2)), NIN(e), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(0, 3)));
}

/* ---- Squeeze and Unsqueeze ---- */

static void test_squeeze(void) {
  ox_value *x = iota_f32(4, (int64_t[]){1, 3, 1, 2}), *y;
  CHECK_EQ_I(run("Squeeze", 13, 0, NULL, NIN(x), &y), 0); /* every 1 */
  CHECK(SHAPE(y, 2, DIMS(3, 2)));
  CHECK(y->u.t.data == x->u.t.data);
  CHECK_EQ_I(run("Squeeze", 13, 0, NULL, NIN(x, I64V(1, {-2})), &y), 0);
  CHECK(SHAPE(y, 3, DIMS(1, 3, 2)));
  CHECK_EQ_I(run("Squeeze", 13, 0, NULL, NIN(x, NULL), &y), 0); /* optional input absent */
  CHECK(SHAPE(y, 2, DIMS(3, 2)));
  /* attribute before 13; negative from 11 */
  CHECK_EQ_I(run("Squeeze", 1, ATTRS(INTS("axes", {2, 0})), NIN(x), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(3, 2)));
  CHECK_EQ_I(run("Squeeze", 11, ATTRS(INTS("axes", {-4})), NIN(x), &y), 0);
  CHECK(SHAPE(y, 3, DIMS(3, 1, 2)));
  CHECK_FAILS(run("Squeeze", 1, ATTRS(INTS("axes", {-4})), NIN(x), &y), "from opset 11");
  /* errors: a dim that is not 1, out of range, repeated */
  CHECK_FAILS(run("Squeeze", 13, 0, NULL, NIN(x, I64V(1, {1})), &y),
              "cannot squeeze axis 1 of shape (1, 3, 1, 2): its dimension is 3, not 1");
  CHECK_FAILS(run("Squeeze", 13, 0, NULL, NIN(x, I64V(1, {4})), &y), "out of range [-4, 3]");
  CHECK_FAILS(run("Squeeze", 13, 0, NULL, NIN(x, I64V(2, {0, -4})), &y), "more than once");
  /* a scalar stays a scalar; (1,) becomes a scalar */
  CHECK_EQ_I(run("Squeeze", 13, 0, NULL, NIN(f32(3)), &y), 0);
  CHECK(IS_F32(y, 0, DIMS(0), {3}));
  CHECK_EQ_I(run("Squeeze", 13, 0, NULL, NIN(F32(1, DIMS(1), {4})), &y), 0);
  CHECK(IS_F32(y, 0, DIMS(0), {4}));
}

static void test_unsqueeze(void) {
  ox_value *x = iota_f32(2, (int64_t[]){3, 4}), *y;
  /* axes name positions in the output, in any order */
  CHECK_EQ_I(run("Unsqueeze", 13, 0, NULL, NIN(x, I64V(2, {3, 0})), &y), 0);
  CHECK(SHAPE(y, 4, DIMS(1, 3, 4, 1)));
  CHECK(y->u.t.data == x->u.t.data);
  CHECK_EQ_I(run("Unsqueeze", 13, 0, NULL, NIN(x, I64V(1, {-1})), &y), 0);
  CHECK(SHAPE(y, 3, DIMS(3, 4, 1)));
  CHECK_EQ_I(run("Unsqueeze", 13, 0, NULL, NIN(x, I64V(3, {1, 4, 2})), &y), 0);
  CHECK(SHAPE(y, 5, DIMS(3, 1, 1, 4, 1)));
  CHECK_EQ_I(run("Unsqueeze", 1, ATTRS(INTS("axes", {2, 0})), NIN(x), &y), 0);
  CHECK(SHAPE(y, 4, DIMS(1, 3, 1, 4)));
  CHECK_EQ_I(run("Unsqueeze", 11, ATTRS(INTS("axes", {-3})), NIN(x), &y), 0);
  CHECK(SHAPE(y, 3, DIMS(1, 3, 4)));
  CHECK_FAILS(run("Unsqueeze", 11, ATTRS(INTS("axes", {-4})), NIN(x), &y), "out of range [-3, 2]");
  CHECK_EQ_I(run("Unsqueeze", 13, 0, NULL, NIN(f32(2), I64V(1, {0})), &y), 0);
  CHECK(IS_F32(y, 1, DIMS(1), {2}));
  CHECK_FAILS(run("Unsqueeze", 1, 0, NULL, NIN(x), &y), "axes are required");
  CHECK_FAILS(run("Unsqueeze", 1, ATTRS(INTS("axes", {-1})), NIN(x), &y), "from opset 11");
  CHECK_FAILS(run("Unsqueeze", 13, 0, NULL, NIN(x, I64V(1, {3})), &y), "out of range [-3, 2]");
  CHECK_FAILS(run("Unsqueeze", 13, 0, NULL, NIN(x, I64V(2, {0, -4})), &y), "more than once");
}

/* ---- Shape and Size ---- */

static void test_shape_size(void) {
  ox_value *x = tensor(OX_UINT8, 4, (int64_t[]){2, 3, 4, 5}, NULL), *y;
  CHECK_EQ_I(run("Shape", 1, 0, NULL, NIN(x), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(4), {2, 3, 4, 5}));
  /* start and end arrive in 15; before, they are not read */
  CHECK_EQ_I(run("Shape", 13, ATTRS(attr_int("start", 1)), NIN(x), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(4), {2, 3, 4, 5}));
  CHECK_EQ_I(run("Shape", 15, ATTRS(attr_int("start", 1), attr_int("end", -1)), NIN(x), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(2), {3, 4}));
  CHECK_EQ_I(run("Shape", 15, ATTRS(attr_int("start", -10), attr_int("end", 10)), NIN(x), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(4), {2, 3, 4, 5})); /* clamped to [0, r] */
  CHECK_EQ_I(run("Shape", 15, ATTRS(attr_int("start", 3), attr_int("end", 1)), NIN(x), &y), 0);
  CHECK(SHAPE(y, 1, DIMS(0)));
  CHECK_EQ_I(run("Shape", 15, ATTRS(attr_int("start", -1)), NIN(x), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(1), {5}));
  CHECK_EQ_I(run("Shape", 25, 0, NULL, NIN(f32(1)), &y), 0);
  CHECK(SHAPE(y, 1, DIMS(0)));

  CHECK_EQ_I(run("Size", 1, 0, NULL, NIN(x), &y), 0);
  CHECK(IS_I64(y, 0, DIMS(0), {120}));
  CHECK_EQ_I(run("Size", 25, 0, NULL, NIN(tensor(OX_STRING, 2, (int64_t[]){0, 7}, NULL)), &y), 0);
  CHECK(IS_I64(y, 0, DIMS(0), {0}));
}

/* ---- ConstantOfShape and EyeLike ---- */

static void test_constant_of_shape(void) {
  ox_value *y;
  CHECK_EQ_I(run("ConstantOfShape", 9, 0, NULL, NIN(I64V(2, {2, 3})), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 3), {0, 0, 0, 0, 0, 0})); /* default float 0 */
  ox_value *v = tensor(OX_INT32, 1, (int64_t[]){1}, (int32_t[]){-7});
  CHECK_EQ_I(run("ConstantOfShape", 20, ATTRS(attr_tensor("value", v)), NIN(I64V(2, {1, 3})), &y), 0);
  CHECK(IS_I32(y, 2, DIMS(1, 3), {-7, -7, -7}));
  /* empty shape: a scalar */
  CHECK_EQ_I(run("ConstantOfShape", 20, ATTRS(attr_tensor("value", v)),
                 NIN(tensor(OX_INT64, 1, (int64_t[]){0}, NULL)), &y), 0);
  CHECK(IS_I32(y, 0, DIMS(0), {-7}));
  /* a zero dim */
  CHECK_EQ_I(run("ConstantOfShape", 9, ATTRS(attr_tensor("value", v)), NIN(I64V(2, {4, 0})), &y), 0);
  CHECK(SHAPE(y, 2, DIMS(4, 0)));
  /* a long fill: every element set (the doubling copies) */
  ox_value *d = tensor(OX_DOUBLE, 0, NULL, (double[]){2.5});
  CHECK_EQ_I(run("ConstantOfShape", 25, ATTRS(attr_tensor("value", d)), NIN(I64V(2, {37, 29})), &y), 0);
  int ok = SHAPE(y, 2, DIMS(37, 29)) && y->u.t.dt == OX_DOUBLE;
  for (int64_t i = 0; ok && i < y->u.t.n; i++) ok = ((double *)y->u.t.data)[i] == 2.5;
  CHECK(ok);
  /* errors: negative dim, several values, types of later versions */
  CHECK_FAILS(run("ConstantOfShape", 9, 0, NULL, NIN(I64V(2, {2, -1})), &y), "negative dimension");
  CHECK_FAILS(run("ConstantOfShape", 9, ATTRS(attr_tensor("value", I64V(2, {1, 2}))),
                  NIN(I64V(1, {2})), &y), "one element");
  ox_value *bf = tensor(OX_BFLOAT16, 1, (int64_t[]){1}, (uint16_t[]){0x3f80});
  CHECK_FAILS(run("ConstantOfShape", 19, ATTRS(attr_tensor("value", bf)), NIN(I64V(1, {2})), &y),
              "bfloat16; ConstantOfShape-9 does not make that type" /* the row 9-19 runs as 9 */);
  CHECK_EQ_I(run("ConstantOfShape", 20, ATTRS(attr_tensor("value", bf)), NIN(I64V(1, {2})), &y), 0);
  CHECK(same_bytes(y, OX_BFLOAT16, 1, (int64_t[]){2}, (uint16_t[]){0x3f80, 0x3f80}));
  ox_value *st = tensor(OX_STRING, 1, (int64_t[]){1}, (ox_str[]){{"a", 1}});
  CHECK_FAILS(run("ConstantOfShape", 25, ATTRS(attr_tensor("value", st)), NIN(I64V(1, {2})), &y),
              "does not make that type");
}

static void test_eye_like(void) {
  ox_value *x = tensor(OX_INT32, 2, (int64_t[]){3, 4}, NULL), *y;
  CHECK_EQ_I(run("EyeLike", 9, 0, NULL, NIN(x), &y), 0);
  CHECK(IS_I32(y, 2, DIMS(3, 4), {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
  CHECK_EQ_I(run("EyeLike", 9, ATTRS(attr_int("k", 2)), NIN(x), &y), 0);
  CHECK(IS_I32(y, 2, DIMS(3, 4), {0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
  CHECK_EQ_I(run("EyeLike", 9, ATTRS(attr_int("k", -1), attr_int("dtype", OX_FLOAT)), NIN(x), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
  CHECK_EQ_I(run("EyeLike", 9, ATTRS(attr_int("k", INT64_MIN)), NIN(x), &y), 0);
  CHECK(IS_I32(y, 2, DIMS(3, 4), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  CHECK_EQ_I(run("EyeLike", 9, ATTRS(attr_int("k", INT64_MAX)), NIN(x), &y), 0);
  CHECK(IS_I32(y, 2, DIMS(3, 4), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  /* float16 ones; bfloat16 from 22 */
  CHECK_EQ_I(run("EyeLike", 9, ATTRS(attr_int("dtype", OX_FLOAT16)), NIN(x), &y), 0);
  CHECK_EQ_I(((uint16_t *)y->u.t.data)[5], 0x3c00);
  CHECK_FAILS(run("EyeLike", 9, ATTRS(attr_int("dtype", OX_BFLOAT16)), NIN(x), &y), "not allowed");
  CHECK_EQ_I(run("EyeLike", 22, ATTRS(attr_int("dtype", OX_BFLOAT16)), NIN(x), &y), 0);
  CHECK_EQ_I(((uint16_t *)y->u.t.data)[10], 0x3f80);
  CHECK_FAILS(run("EyeLike", 22, ATTRS(attr_int("dtype", OX_STRING)), NIN(x), &y), "not allowed");
  CHECK_FAILS(run("EyeLike", 22, 0, NULL, NIN(F32(1, DIMS(2), {1, 2})), &y), "must be 2-D");
}

/* ---- Range ---- */

static void test_range(void) {
  ox_value *y;
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(i32(10), i32(4), i32(-2)), &y), 0);
  CHECK(IS_I32(y, 1, DIMS(3), {10, 8, 6}));
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(i64(3), i64(9), i64(3)), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(2), {3, 6}));
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(i64(3), i64(10), i64(3)), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(3), {3, 6, 9})); /* ceil */
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(i64(5), i64(1), i64(1)), &y), 0);
  CHECK(SHAPE(y, 1, DIMS(0))); /* max(..., 0) */
  /* the whole int64 range, exactly (no double on the way) */
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(i64(INT64_MIN), i64(INT64_MAX), i64(INT64_MAX)), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(3), {INT64_MIN, -1, INT64_MAX - 1}));
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(i64(INT64_MAX), i64(INT64_MAX - 3), i64(-1)), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(3), {INT64_MAX, INT64_MAX - 1, INT64_MAX - 2}));
  /* int16 */
  CHECK_EQ_I(run("Range", 11, 0, NULL,
                 NIN(tensor(OX_INT16, 0, NULL, (int16_t[]){-3}), tensor(OX_INT16, 0, NULL, (int16_t[]){3}),
                     tensor(OX_INT16, 0, NULL, (int16_t[]){4})), &y), 0);
  CHECK(same_bytes(y, OX_INT16, 1, (int64_t[]){2}, (int16_t[]){-3, 1}));
  /* floats */
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(f32(1), f32(5), f32(2)), &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {1, 3}));
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(f32(0), f32(1), f32(0.25f)), &y), 0);
  CHECK(IS_F32(y, 1, DIMS(4), {0, 0.25f, 0.5f, 0.75f}));
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(f32(1), f32(0), f32(-0.3f)), &y), 0);
  CHECK(SHAPE(y, 1, DIMS(4)));
  ox_value *d0 = tensor(OX_DOUBLE, 0, NULL, (double[]){0.5}), *d1 = tensor(OX_DOUBLE, 0, NULL, (double[]){2}),
           *d2 = tensor(OX_DOUBLE, 0, NULL, (double[]){0.5});
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(d0, d1, d2), &y), 0);
  CHECK(same_bytes(y, OX_DOUBLE, 1, (int64_t[]){3}, (double[]){0.5, 1, 1.5}));
  /* float16 from 27, computed in float (stash_type) and rounded once */
  ox_value *h1 = tensor(OX_FLOAT16, 0, NULL, (uint16_t[]){0x3c00}),  /* 1 */
      *h5 = tensor(OX_FLOAT16, 0, NULL, (uint16_t[]){0x4500}),       /* 5 */
      *h2 = tensor(OX_FLOAT16, 0, NULL, (uint16_t[]){0x4000});       /* 2 */
  CHECK_EQ_I(run("Range", 27, 0, NULL, NIN(h1, h5, h2), &y), 0);
  CHECK(same_bytes(y, OX_FLOAT16, 1, (int64_t[]){2}, (uint16_t[]){0x3c00, 0x4200}));
  CHECK_EQ_I(run("Range", 27, ATTRS(attr_int("stash_type", OX_DOUBLE)), NIN(h1, h5, h2), &y), 0);
  CHECK(same_bytes(y, OX_FLOAT16, 1, (int64_t[]){2}, (uint16_t[]){0x3c00, 0x4200}));
  CHECK_FAILS(run("Range", 27, ATTRS(attr_int("stash_type", 7)), NIN(h1, h5, h2), &y), "stash_type 7");
  /* errors */
  CHECK_FAILS(run("Range", 11, 0, NULL, NIN(i64(0), i64(5), i64(0)), &y), "delta is 0");
  CHECK_FAILS(run("Range", 11, 0, NULL, NIN(f32(0), f32(5), f32(0)), &y), "delta is 0");
  CHECK_FAILS(run("Range", 11, 0, NULL, NIN(f32(0), f32(1.0f / 0.0f), f32(1)), &y), "no finite length");
  CHECK_FAILS(run("Range", 11, 0, NULL, NIN(i64(0), i32(5), i64(1)), &y), "the same type");
  CHECK_FAILS(run("Range", 11, 0, NULL, NIN(i64(0), I64V(2, {5, 6}), i64(1)), &y), "must be a scalar");
  /* a 1-element (1,) tensor counts as a scalar */
  CHECK_EQ_I(run("Range", 11, 0, NULL, NIN(I64V(1, {0}), i64(2), i64(1)), &y), 0);
  CHECK(IS_I64(y, 1, DIMS(2), {0, 1}));
}

/* ---- Trilu ---- */

static void test_trilu(void) {
  ox_value *x = iota_f32(2, (int64_t[]){3, 4}), *y;
  /* x = [[0 1 2 3] [4 5 6 7] [8 9 10 11]] */
  CHECK_EQ_I(run("Trilu", 14, 0, NULL, NIN(x), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 1, 2, 3, 0, 5, 6, 7, 0, 0, 10, 11}));
  CHECK_EQ_I(run("Trilu", 14, 0, NULL, NIN(x, i64(1)), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11}));
  CHECK_EQ_I(run("Trilu", 14, 0, NULL, NIN(x, i64(-1)), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11}));
  CHECK_EQ_I(run("Trilu", 14, ATTRS(attr_int("upper", 0)), NIN(x), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0}));
  CHECK_EQ_I(run("Trilu", 14, ATTRS(attr_int("upper", 0)), NIN(x, i64(-2)), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0}));
  CHECK_EQ_I(run("Trilu", 14, ATTRS(attr_int("upper", 0)), NIN(x, i64(INT64_MAX)), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  CHECK_EQ_I(run("Trilu", 14, 0, NULL, NIN(x, i64(INT64_MIN)), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  CHECK_EQ_I(run("Trilu", 14, 0, NULL, NIN(x, i64(100)), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  /* batches: (2, 2, 2) */
  ox_value *b = iota_f32(3, (int64_t[]){2, 2, 2});
  CHECK_EQ_I(run("Trilu", 14, 0, NULL, NIN(b), &y), 0);
  CHECK(IS_F32(y, 3, DIMS(2, 2, 2), {0, 1, 0, 3, 4, 5, 0, 7}));
  /* strings: the zeroed part is the empty string */
  ox_value *s = tensor(OX_STRING, 2, (int64_t[]){2, 2}, (ox_str[]){{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}});
  CHECK_EQ_I(run("Trilu", 14, 0, NULL, NIN(s), &y), 0);
  const ox_str *ys = y->u.t.data;
  CHECK(ys[2].p && ys[2].n == 0 && !strcmp(ys[3].p, "d") && !strcmp(ys[1].p, "b"));
  CHECK_FAILS(run("Trilu", 14, 0, NULL, NIN(F32(1, DIMS(2), {1, 2})), &y), "rank 2 or more");
}

/* ---- OneHot ---- */

static void test_one_hot(void) {
  ox_value *y, *vals = F32(1, DIMS(2), {-1, 5});
  ox_value *ix = I64V(4, {0, 2, -1, 3}); /* depth 3: -1 wraps to 2 (11), 3 is out */
  CHECK_EQ_I(run("OneHot", 11, 0, NULL, NIN(ix, i64(3), vals), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(4, 3), {5, -1, -1, -1, -1, 5, -1, -1, 5, -1, -1, -1}));
  /* OneHot-9: indices outside [0, depth) are all off */
  CHECK_EQ_I(run("OneHot", 9, 0, NULL, NIN(ix, i64(3), vals), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(4, 3), {5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1}));
  /* axis 0: (depth, 4) */
  CHECK_EQ_I(run("OneHot", 11, ATTRS(attr_int("axis", 0)), NIN(ix, i64(3), vals), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 4), {5, -1, -1, -1, -1, -1, -1, -1, -1, 5, 5, -1}));
  /* indices (2, 2), axis -2 -> (2, depth, 2); float indices and depth truncate */
  ox_value *fx = F32(2, DIMS(2, 2), {1.7f, 0, -1.2f, 1});
  ox_value *iv = tensor(OX_INT32, 1, (int64_t[]){2}, (int32_t[]){0, 1});
  CHECK_EQ_I(run("OneHot", 11, ATTRS(attr_int("axis", -2)), NIN(fx, f32(2.9f), iv), &y), 0);
  CHECK(IS_I32(y, 3, DIMS(2, 2, 2), {0, 1, 1, 0, 0, 0, 1, 1}));
  CHECK_FAILS(run("OneHot", 11, ATTRS(attr_int("axis", 2)), NIN(ix, i64(3), vals), &y), "out of range");
  CHECK_FAILS(run("OneHot", 11, 0, NULL, NIN(ix, i64(-3), vals), &y), "must not be negative");
  CHECK_FAILS(run("OneHot", 11, 0, NULL, NIN(ix, i64(3), F32(1, DIMS(3), {0, 1, 2})), &y), "shape (2,)");
  CHECK_FAILS(run("OneHot", 11, 0, NULL, NIN(ix, I64V(2, {3, 3}), vals), &y), "one element");
  /* string values */
  ox_value *sv = tensor(OX_STRING, 1, (int64_t[]){2}, (ox_str[]){{"off", 3}, {"on", 2}});
  CHECK_EQ_I(run("OneHot", 11, 0, NULL, NIN(I64V(1, {1}), i64(2), sv), &y), 0);
  const ox_str *s = y->u.t.data;
  CHECK(SHAPE(y, 2, DIMS(1, 2)) && !strcmp(s[0].p, "off") && !strcmp(s[1].p, "on"));
}

/* ---- Transpose ---- */

/* Transpose x (its elements' bytes) by perm with a naive index computation,
 * and compare with the kernel's output. */
static int transpose_matches(const ox_value *x, const int64_t *perm, const ox_value *y) {
  const ox_tensor *t = &x->u.t;
  int r = t->rank;
  size_t es = ox_dtype_size(t->dt);
  int64_t xstr[16], yd[16], idx[16];
  for (int i = r - 1, s = 1; i >= 0; i--) {
    xstr[i] = s;
    s *= (int)t->dims[i];
  }
  for (int i = 0; i < r; i++) yd[i] = t->dims[perm[i]];
  if (!shape_is(y, r, yd) || y->u.t.dt != t->dt) return 0;
  for (int64_t o = 0; o < t->n; o++) {
    int64_t rem = o, src = 0;
    for (int i = r - 1; i >= 0; i--) {
      idx[i] = rem % yd[i];
      rem /= yd[i];
    }
    for (int i = 0; i < r; i++) src += idx[i] * xstr[perm[i]];
    if (memcmp((char *)y->u.t.data + o * es, (char *)t->data + src * es, es)) return 0;
  }
  return 1;
}

/* A tensor of dtype dt and shape dims with distinct bytes in every element. */
static ox_value *pattern(ox_dtype dt, int rank, const int64_t *dims) {
  ox_value *v = tensor(dt, rank, dims, NULL);
  size_t es = ox_dtype_size(dt);
  unsigned char *p = v->u.t.data;
  if (dt == OX_STRING) {
    ox_str *s = v->u.t.data;
    for (int64_t i = 0; i < v->u.t.n; i++) s[i] = (ox_str){ox_sprintf(A, "%lld", (long long)i), 0};
    for (int64_t i = 0; i < v->u.t.n; i++) s[i].n = (int64_t)strlen(s[i].p);
    return v;
  }
  for (int64_t i = 0; i < v->u.t.n; i++)
    for (size_t b = 0; b < es; b++) p[i * es + b] = (unsigned char)((i >> (8 * (b % 4))) + b * 7);
  return v;
}

static void check_transpose(ox_dtype dt, int rank, const int64_t *dims, const int64_t *perm) {
  ox_value *x = pattern(dt, rank, dims), *y;
  int64_t p[16];
  if (perm) memcpy(p, perm, (size_t)rank * sizeof *p);
  else
    for (int i = 0; i < rank; i++) p[i] = rank - 1 - i;
  int rc = perm ? run("Transpose", 25, ATTRS(attr_ints("perm", rank, p)), NIN(x), &y)
                : run("Transpose", 25, 0, NULL, NIN(x), &y);
  CHECK_EQ_I(rc, 0);
  int ok = !rc && transpose_matches(x, p, y);
  if (!ok) {
    char sb[128];
    fprintf(stderr, "transpose of %s %s wrong\n", ox_dtype_name(dt),
            ox_shape_str(rank, dims, sb, sizeof sb));
  }
  CHECK(ok);
}

/* All permutations of rank r by Heap's algorithm. */
static void all_perms(ox_dtype dt, int r, const int64_t *dims) {
  int64_t p[8];
  int c[8] = {0};
  for (int i = 0; i < r; i++) p[i] = i;
  check_transpose(dt, r, dims, p);
  for (int i = 1; i < r;) {
    if (c[i] < i) {
      int j = i % 2 ? c[i] : 0;
      int64_t t = p[j];
      p[j] = p[i];
      p[i] = t;
      check_transpose(dt, r, dims, p);
      c[i]++;
      i = 1;
    } else {
      c[i++] = 0;
    }
  }
}

static void test_transpose(void) {
  /* an odd shape, every element size: 1, 2, 4, 8, 16 (complex128, strings) */
  ox_dtype dts[] = {OX_UINT8, OX_BOOL, OX_FLOAT16, OX_BFLOAT16, OX_FLOAT, OX_INT32, OX_DOUBLE,
                    OX_INT64, OX_COMPLEX64, OX_COMPLEX128, OX_STRING, OX_INT4, OX_FLOAT8E8M0};
  for (size_t i = 0; i < sizeof dts / sizeof *dts; i++)
    check_transpose(dts[i], 3, (int64_t[]){3, 37, 41}, (int64_t[]){2, 0, 1});
  /* every permutation of rank 3 and 4, with a size-1 dim and odd sizes */
  all_perms(OX_FLOAT, 3, (int64_t[]){3, 37, 41});
  all_perms(OX_INT64, 4, (int64_t[]){5, 1, 33, 7});
  all_perms(OX_UINT16, 4, (int64_t[]){2, 3, 4, 5});
  all_perms(OX_COMPLEX128, 4, (int64_t[]){3, 2, 1, 35});
  /* short rows kept whole (2 to 16 bytes) become one wider element */
  all_perms(OX_UINT16, 4, (int64_t[]){3, 5, 7, 4});
  all_perms(OX_FLOAT, 4, (int64_t[]){6, 9, 2, 2});
  all_perms(OX_UINT8, 4, (int64_t[]){33, 5, 3, 2});
  check_transpose(OX_FLOAT, 3, (int64_t[]){37, 41, 2}, (int64_t[]){1, 0, 2});
  check_transpose(OX_FLOAT, 3, (int64_t[]){37, 41, 3}, (int64_t[]){1, 0, 2});
  /* bigger than one tile on both moved dims, and the default (reversed) perm */
  check_transpose(OX_FLOAT, 2, (int64_t[]){70, 90}, NULL);
  check_transpose(OX_DOUBLE, 3, (int64_t[]){65, 2, 67}, NULL);
  check_transpose(OX_UINT8, 5, (int64_t[]){2, 3, 1, 4, 5}, (int64_t[]){4, 2, 0, 3, 1});
  check_transpose(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, NULL);
  check_transpose(OX_FLOAT, 1, (int64_t[]){5}, NULL);
  check_transpose(OX_FLOAT, 0, NULL, NULL);
  check_transpose(OX_FLOAT, 3, (int64_t[]){4, 0, 3}, (int64_t[]){2, 1, 0});

  /* small, explicit */
  ox_value *x = iota_f32(2, (int64_t[]){2, 3}), *y;
  CHECK_EQ_I(run("Transpose", 1, 0, NULL, NIN(x), &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 2), {0, 3, 1, 4, 2, 5}));
  CHECK_FAILS(run("Transpose", 13, ATTRS(INTS("perm", {0, 0})), NIN(x), &y), "not a permutation");
  CHECK_FAILS(run("Transpose", 13, ATTRS(INTS("perm", {0, 2})), NIN(x), &y), "not a permutation");
  CHECK_FAILS(run("Transpose", 13, ATTRS(INTS("perm", {-1, 0})), NIN(x), &y), "not a permutation");
  CHECK_FAILS(run("Transpose", 13, ATTRS(INTS("perm", {1, 0, 2})), NIN(x), &y),
              "perm has 3 entries; the input has rank 2");
}

int main(void) {
  A = ox_arena_new();
  test_table();
  test_reshape();
  test_flatten();
  test_squeeze();
  test_unsqueeze();
  test_shape_size();
  test_constant_of_shape();
  test_eye_like();
  test_range();
  test_trilu();
  test_one_hot();
  test_transpose();
  ox_arena_free(A);
  return check_done("shape");
}
