/* tests/unit/test_index.c: the index family (Gather*, Scatter*, Compress,
 * NonZero, TopK, Unique, CumSum, CumProd), called through the registry with a
 * hand-made node. Expected values are worked out by hand from the spec. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               int nout, ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, nout, out);
}

/* ---- building values ---- */

#define DIMS(...) ((int64_t[]){__VA_ARGS__})
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, dims, (float[])__VA_ARGS__)
#define I64(rank, dims, ...) tensor(OX_INT64, rank, dims, (int64_t[])__VA_ARGS__)
#define I32(rank, dims, ...) tensor(OX_INT32, rank, dims, (int32_t[])__VA_ARGS__)
#define BOOLS(rank, dims, ...) tensor(OX_BOOL, rank, dims, (uint8_t[])__VA_ARGS__)
#define U16(dt, rank, dims, ...) tensor(dt, rank, dims, (uint16_t[])__VA_ARGS__)

#define IS_F32(v, rank, dims, ...) same_bytes(v, OX_FLOAT, rank, dims, (float[])__VA_ARGS__)
#define IS_I64(v, rank, dims, ...) same_bytes(v, OX_INT64, rank, dims, (int64_t[])__VA_ARGS__)
#define IS_I32(v, rank, dims, ...) same_bytes(v, OX_INT32, rank, dims, (int32_t[])__VA_ARGS__)
#define IS_U16(v, dt, rank, dims, ...) same_bytes(v, dt, rank, dims, (uint16_t[])__VA_ARGS__)

/* ---- running one node ---- */

#define IN(...) (int)(sizeof((ox_value *[]){__VA_ARGS__}) / sizeof(ox_value *)), (ox_value *[]){__VA_ARGS__}
#define ATTRS(...) (int)(sizeof((ox_attr[]){__VA_ARGS__}) / sizeof(ox_attr)), (ox_attr[]){__VA_ARGS__}
#define NOATTR 0, NULL

/* ---- the table ---- */

static void test_table(void) {
  extern const ox_kernel ox_index_kernels[];
  check_rows(ox_index_kernels, "Scatter", 10);
  CHECK(ox_registry_find("", "Scatter", 11) == NULL); /* deprecated in 11 */
  CHECK_EQ_I(ox_registry_find("", "Scatter", 10)->since, 9);
  CHECK_EQ_I(ox_registry_find("", "TopK", 9)->max_in, 1);
  CHECK_EQ_I(ox_registry_find("", "TopK", 23)->since, 11);
  CHECK(!(ox_registry_find("", "TopK", 23)->types & OX_T(BFLOAT16)));
  CHECK(ox_registry_find("", "TopK", 24)->types & OX_T(BFLOAT16));
  CHECK(ox_registry_find("", "CumProd", 25) == NULL);
  CHECK(!(ox_registry_find("", "Gather", 12)->types & OX_T(BFLOAT16)));
  CHECK(ox_registry_find("", "Gather", 13)->types & OX_T(STRING));
}

/* ---- Gather ---- */

static void test_gather(void) {
  ox_value *x = F32(2, DIMS(3, 2), {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f}), *y[1];
  /* axis 0, indices (2, 2) with a negative one: output (2, 2, 2) */
  CHECK_EQ_I(run("Gather", 13, NOATTR, IN(x, I64(2, DIMS(2, 2), {0, 1, -1, 2})), 1, y), 0);
  CHECK(IS_F32(y[0], 3, DIMS(2, 2, 2), {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f, 4.5f, 5.7f}));
  /* axis 1, a scalar index: output (3,) */
  CHECK_EQ_I(run("Gather", 11, ATTRS(attr_int("axis", 1)), IN(x, I32(0, NULL, {-2})), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {1.0f, 2.3f, 4.5f}));
  /* axis -1 with int32 (1, 2) indices: output (3, 1, 2) */
  CHECK_EQ_I(run("Gather", 1, ATTRS(attr_int("axis", -1)), IN(x, I32(2, DIMS(1, 2), {1, 0})), 1, y), 0);
  CHECK(IS_F32(y[0], 3, DIMS(3, 1, 2), {1.2f, 1.0f, 3.4f, 2.3f, 5.7f, 4.5f}));
  /* strings move as {ptr, len} */
  ox_str s[3] = {{"a", 1}, {"bc", 2}, {"", 0}};
  ox_value *xs = tensor(OX_STRING, 1, DIMS(3), s);
  CHECK_EQ_I(run("Gather", 13, NOATTR, IN(xs, I64(1, DIMS(3), {2, 1, 1})), 1, y), 0);
  ox_str *ys = y[0]->u.t.data;
  CHECK(ys[0].n == 0 && ys[1].n == 2 && !strcmp(ys[2].p, "bc"));
  /* empty indices give an empty output */
  CHECK_EQ_I(run("Gather", 13, NOATTR, IN(x, I64(1, DIMS(0), {0})), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(0, 2), {0}));

  CHECK_FAILS(run("Gather", 13, NOATTR, IN(x, I64(1, DIMS(2), {0, 3})), 1, y),
              "index 3 is out of range [-3, 2] for axis 0 of size 3");
  CHECK_FAILS(run("Gather", 13, ATTRS(attr_int("axis", 1)), IN(x, I64(1, DIMS(1), {-3})), 1, y),
              "index -3 is out of range [-2, 1] for axis 1 of size 2");
  CHECK_FAILS(run("Gather", 13, ATTRS(attr_int("axis", 2)), IN(x, I64(1, DIMS(1), {0})), 1, y),
              "axis 2 is out of range [-2, 1]");
  CHECK_FAILS(run("Gather", 13, NOATTR, IN(x, F32(1, DIMS(1), {0})), 1, y),
              "(the indices) is float; it must be int32 or int64");
  CHECK_FAILS(run("Gather", 13, NOATTR, IN(F32(0, NULL, {1}), I64(0, NULL, {0})), 1, y),
              "must have rank >= 1");
}

static void test_gather_elements(void) {
  ox_value *x = I32(2, DIMS(3, 3), {1, 2, 3, 4, 5, 6, 7, 8, 9}), *y[1];
  /* the spec's example 2, axis 0, with -1 for 2 */
  CHECK_EQ_I(run("GatherElements", 13, NOATTR, IN(x, I64(2, DIMS(2, 3), {1, -1, 0, 2, 0, 0})), 1, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(2, 3), {4, 8, 3, 7, 2, 3}));
  /* axis 1, indices (2, 2) smaller than the data: out[i][j] = x[i][idx[i][j]] */
  CHECK_EQ_I(run("GatherElements", 11, ATTRS(attr_int("axis", 1)),
                 IN(x, I32(2, DIMS(2, 2), {2, 0, 1, 1})), 1, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(2, 2), {3, 1, 5, 5}));
  /* 3-D, axis 1: out[i][j][k] = x[i][idx][k] */
  ox_value *x3 = I32(3, DIMS(2, 2, 2), {0, 1, 2, 3, 4, 5, 6, 7});
  CHECK_EQ_I(run("GatherElements", 13, ATTRS(attr_int("axis", 1)),
                 IN(x3, I64(3, DIMS(2, 1, 2), {1, 0, 0, 1})), 1, y), 0);
  CHECK(IS_I32(y[0], 3, DIMS(2, 1, 2), {2, 1, 4, 7}));

  CHECK_FAILS(run("GatherElements", 13, NOATTR, IN(x, I64(1, DIMS(3), {0, 1, 2})), 1, y),
              "it must have the rank of the data (3, 3)");
  CHECK_FAILS(run("GatherElements", 13, NOATTR, IN(x, I64(2, DIMS(1, 4), {0, 0, 0, 0})), 1, y),
              "larger than the data (3, 3) along axis 1");
  CHECK_FAILS(run("GatherElements", 13, NOATTR, IN(x, I64(2, DIMS(1, 2), {0, -4})), 1, y),
              "index -4 is out of range [-3, 2] for axis 0 of size 3");
}

static void test_gather_nd(void) {
  ox_value *x = I32(3, DIMS(2, 2, 2), {0, 1, 2, 3, 4, 5, 6, 7}), *y[1];
  /* example 3: tuples of 2 pick rows */
  CHECK_EQ_I(run("GatherND", 11, NOATTR, IN(x, I64(2, DIMS(2, 2), {0, 1, 1, 0})), 1, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(2, 2), {2, 3, 4, 5}));
  /* full tuples pick elements; negatives count from the back */
  CHECK_EQ_I(run("GatherND", 13, NOATTR, IN(x, I64(2, DIMS(2, 3), {1, -1, 0, 0, 0, -1})), 1, y), 0);
  CHECK(IS_I32(y[0], 1, DIMS(2), {6, 1}));
  /* example 5: batch_dims 1 */
  CHECK_EQ_I(run("GatherND", 12, ATTRS(attr_int("batch_dims", 1)), IN(x, I64(2, DIMS(2, 1), {1, 0})), 1, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(2, 2), {2, 3, 4, 5}));
  /* batch_dims 1 with full tuples: y[b] = x[b][i][j] */
  CHECK_EQ_I(run("GatherND", 13, ATTRS(attr_int("batch_dims", 1)),
                 IN(x, I64(3, DIMS(2, 1, 2), {1, 1, 0, 1})), 1, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(2, 1), {3, 5}));

  CHECK_FAILS(run("GatherND", 13, NOATTR, IN(x, I64(2, DIMS(1, 4), {0, 0, 0, 0})), 1, y),
              "its last dim (the tuple length) must be in [1, 3]");
  CHECK_FAILS(run("GatherND", 13, ATTRS(attr_int("batch_dims", 1)), IN(x, I64(2, DIMS(3, 1), {0, 0, 0})), 1, y),
              "differ in batch dim 0");
  CHECK_FAILS(run("GatherND", 13, NOATTR, IN(x, I64(2, DIMS(1, 2), {0, 2})), 1, y),
              "index 2 is out of range [-2, 1] for axis 1 of size 2");
  CHECK_FAILS(run("GatherND", 11, ATTRS(attr_int("batch_dims", 1)), IN(x, I64(2, DIMS(2, 1), {1, 0})), 1, y),
              "attribute 'batch_dims' needs opset 12 or later");
  CHECK_FAILS(run("GatherND", 13, NOATTR, IN(x, I32(2, DIMS(1, 1), {0})), 1, y),
              "is int32; it must be int64");
}

/* ---- scatters ---- */

static void test_scatter_elements(void) {
  ox_value *x = F32(2, DIMS(3, 3), {0, 0, 0, 0, 0, 0, 0, 0, 0}), *y[1];
  ox_value *ind = I64(2, DIMS(2, 3), {1, 0, 2, 0, 2, 1});
  ox_value *upd = F32(2, DIMS(2, 3), {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f});
  /* the spec's example 1 */
  CHECK_EQ_I(run("ScatterElements", 11, NOATTR, IN(x, ind, upd), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(3, 3), {2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f}));
  CHECK(((float *)x->u.t.data)[0] == 0); /* the input is untouched */
  /* Scatter-9 is the same op */
  CHECK_EQ_I(run("Scatter", 9, NOATTR, IN(x, ind, upd), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(3, 3), {2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f}));

  /* duplicates: add sums them, none keeps the last, mul multiplies */
  ox_value *d = F32(2, DIMS(1, 5), {1, 2, 3, 4, 5});
  ox_value *di = I64(2, DIMS(1, 3), {1, 1, -1}), *du = F32(2, DIMS(1, 3), {10, 20, 3});
  ox_attr ax1 = attr_int("axis", 1);
  CHECK_EQ_I(run("ScatterElements", 16, ATTRS(ax1, attr_str("reduction", "add")), IN(d, di, du), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(1, 5), {1, 32, 3, 4, 8}));
  CHECK_EQ_I(run("ScatterElements", 16, ATTRS(ax1, attr_str("reduction", "mul")), IN(d, di, du), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(1, 5), {1, 400, 3, 4, 15}));
  CHECK_EQ_I(run("ScatterElements", 13, ATTRS(ax1), IN(d, di, du), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(1, 5), {1, 20, 3, 4, 3}));
  /* max and min from 18; NaN wins either way */
  ox_value *nu = F32(2, DIMS(1, 3), {10, NAN, 3});
  CHECK_EQ_I(run("ScatterElements", 18, ATTRS(ax1, attr_str("reduction", "max")), IN(d, di, nu), 1, y), 0);
  float *yf = y[0]->u.t.data;
  CHECK(isnan(yf[1]) && yf[4] == 5 && yf[0] == 1);
  CHECK_EQ_I(run("ScatterElements", 18, ATTRS(ax1, attr_str("reduction", "min")), IN(d, di, du), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(1, 5), {1, 2, 3, 4, 3}));
  CHECK_FAILS(run("ScatterElements", 16, ATTRS(ax1, attr_str("reduction", "max")), IN(d, di, du), 1, y),
              "reduction 'max' is not one of none, add, mul (max and min need opset 18)");
  CHECK_FAILS(run("ScatterElements", 13, ATTRS(ax1, attr_str("reduction", "add")), IN(d, di, du), 1, y),
              "attribute 'reduction' needs opset 16 or later");
  CHECK_FAILS(run("ScatterElements", 18, ATTRS(ax1, attr_str("reduction", "sum")), IN(d, di, du), 1, y),
              "reduction 'sum' is not one of none, add, mul, max, min");

  /* integers wrap: int32 max + 1 */
  ox_value *xi = I32(1, DIMS(2), {INT32_MAX, -7}), *yi[1];
  CHECK_EQ_I(run("ScatterElements", 18, ATTRS(attr_str("reduction", "add")),
                 IN(xi, I64(1, DIMS(2), {0, 1}), I32(1, DIMS(2), {1, 3})), 1, yi), 0);
  CHECK(IS_I32(yi[0], 1, DIMS(2), {INT32_MIN, -4}));
  CHECK_EQ_I(run("ScatterElements", 18, ATTRS(attr_str("reduction", "mul")),
                 IN(xi, I64(1, DIMS(2), {1, 1}), I32(1, DIMS(2), {-2, 3})), 1, yi), 0);
  CHECK(IS_I32(yi[0], 1, DIMS(2), {INT32_MAX, 42}));
  /* float16 adds round at each step: 2048 + 1 + 1 stays 2048 (ulp 2 there) */
  ox_value *h = U16(OX_FLOAT16, 1, DIMS(1), {0x6800}); /* 2048 */
  CHECK_EQ_I(run("ScatterElements", 18, ATTRS(attr_str("reduction", "add")),
                 IN(h, I64(1, DIMS(2), {0, 0}), U16(OX_FLOAT16, 1, DIMS(2), {0x3c00, 0x3c00})), 1, y), 0);
  CHECK(IS_U16(y[0], OX_FLOAT16, 1, DIMS(1), {0x6800}));
  /* strings: no reduction */
  ox_str s[2] = {{"a", 1}, {"b", 1}};
  ox_value *xs = tensor(OX_STRING, 1, DIMS(2), s);
  CHECK_EQ_I(run("ScatterElements", 18, NOATTR, IN(xs, I64(1, DIMS(1), {0}), tensor(OX_STRING, 1, DIMS(1), s + 1)), 1, y), 0);
  CHECK(!strcmp(((ox_str *)y[0]->u.t.data)[0].p, "b"));
  CHECK_FAILS(run("ScatterElements", 18, ATTRS(attr_str("reduction", "add")),
                  IN(xs, I64(1, DIMS(1), {0}), tensor(OX_STRING, 1, DIMS(1), s)), 1, y),
              "reduction 'add' is not defined for string");

  CHECK_FAILS(run("ScatterElements", 18, NOATTR, IN(x, ind, F32(2, DIMS(3, 2), {0, 0, 0, 0, 0, 0})), 1, y),
              "(the updates) has shape (3, 2); it must have the shape of the indices (2, 3)");
  CHECK_FAILS(run("ScatterElements", 18, NOATTR, IN(x, ind, I64(2, DIMS(2, 3), {0, 0, 0, 0, 0, 0})), 1, y),
              "is int64 but input 0 is float; they must have the same type");
  CHECK_FAILS(run("ScatterElements", 18, NOATTR, IN(x, I64(2, DIMS(2, 3), {1, 0, 2, 0, 3, 1}), upd), 1, y),
              "index 3 is out of range [-3, 2] for axis 0 of size 3");
}

static void test_scatter_nd(void) {
  ox_value *x = I32(1, DIMS(8), {1, 2, 3, 4, 5, 6, 7, 8}), *y[1];
  ox_value *ind = I64(2, DIMS(4, 1), {4, 3, 1, -1}), *upd = I32(1, DIMS(4), {9, 10, 11, 12});
  CHECK_EQ_I(run("ScatterND", 11, NOATTR, IN(x, ind, upd), 1, y), 0);
  CHECK(IS_I32(y[0], 1, DIMS(8), {1, 11, 3, 10, 9, 6, 7, 12}));
  /* slices: rows of a (3, 2) */
  ox_value *m = I32(2, DIMS(3, 2), {1, 2, 3, 4, 5, 6});
  ox_value *ri = I64(2, DIMS(2, 1), {2, 2}), *ru = I32(2, DIMS(2, 2), {2, 3, 10, 10});
  CHECK_EQ_I(run("ScatterND", 16, ATTRS(attr_str("reduction", "mul")), IN(m, ri, ru), 1, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(3, 2), {1, 2, 3, 4, 100, 180}));
  CHECK_EQ_I(run("ScatterND", 18, ATTRS(attr_str("reduction", "min")), IN(m, ri, ru), 1, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(3, 2), {1, 2, 3, 4, 2, 3}));
  CHECK_FAILS(run("ScatterND", 18, NOATTR, IN(m, ri, I32(2, DIMS(2, 3), {0, 0, 0, 0, 0, 0})), 1, y),
              "(the updates) has shape (2, 3); with indices (2, 1) and data (3, 2) it must be "
              "indices.shape[:-1] + data.shape[1:]");
  CHECK_FAILS(run("ScatterND", 18, NOATTR, IN(m, I64(2, DIMS(1, 2), {1, 2}), I32(1, DIMS(1), {0})), 1, y),
              "index 2 is out of range [-2, 1] for axis 1 of size 2");
}

static void test_tensor_scatter(void) {
  ox_value *y[1];
  /* past (2, 4, 1), update (2, 2, 1) along axis -2 */
  ox_value *past = I32(3, DIMS(2, 4, 1), {0, 1, 2, 3, 10, 11, 12, 13});
  ox_value *upd = I32(3, DIMS(2, 2, 1), {7, 8, 9, 6});
  CHECK_EQ_I(run("TensorScatter", 24, NOATTR, IN(past, upd), 1, y), 0);
  CHECK(IS_I32(y[0], 3, DIMS(2, 4, 1), {7, 8, 2, 3, 9, 6, 12, 13}));
  CHECK_EQ_I(run("TensorScatter", 24, NOATTR, IN(past, upd, I64(1, DIMS(2), {2, 1})), 1, y), 0);
  CHECK(IS_I32(y[0], 3, DIMS(2, 4, 1), {0, 1, 7, 8, 10, 9, 6, 13}));
  /* circular: batch 0 writes at 3 then wraps to 0; -1 means 3 too */
  ox_attr circ = attr_str("mode", "circular");
  CHECK_EQ_I(run("TensorScatter", 24, ATTRS(circ), IN(past, upd, I64(1, DIMS(2), {3, -1})), 1, y), 0);
  CHECK(IS_I32(y[0], 3, DIMS(2, 4, 1), {8, 1, 2, 7, 6, 11, 12, 9}));
  /* axis 1 of (1, 3, 2): rows of 2 */
  ox_value *p2 = I32(3, DIMS(1, 3, 2), {1, 2, 3, 4, 5, 6});
  CHECK_EQ_I(run("TensorScatter", 24, ATTRS(attr_int("axis", 1)),
                 IN(p2, I32(3, DIMS(1, 1, 2), {9, 9}), I64(1, DIMS(1), {2})), 1, y), 0);
  CHECK(IS_I32(y[0], 3, DIMS(1, 3, 2), {1, 2, 3, 4, 9, 9}));
  CHECK_FAILS(run("TensorScatter", 24, NOATTR, IN(past, upd, I64(1, DIMS(2), {3, 0})), 1, y),
              "write index 3 of batch 0 with 2 updates leaves the cache's axis of size 4 (linear mode)");
  CHECK_FAILS(run("TensorScatter", 24, ATTRS(attr_int("axis", 0)), IN(past, upd), 1, y),
              "axis may not be 0");
  CHECK_FAILS(run("TensorScatter", 24, NOATTR, IN(past, I32(3, DIMS(2, 5, 1), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0})), 1, y),
              "it must match the past cache (2, 4, 1) except along axis 1, where it may not be longer");
  CHECK_FAILS(run("TensorScatter", 24, ATTRS(attr_str("mode", "ring")), IN(past, upd), 1, y),
              "mode 'ring' is not one of linear, circular");
}

/* ---- Compress, NonZero ---- */

static void test_compress(void) {
  ox_value *x = F32(2, DIMS(3, 2), {1, 2, 3, 4, 5, 6}), *y[1];
  CHECK_EQ_I(run("Compress", 11, ATTRS(attr_int("axis", 0)), IN(x, BOOLS(1, DIMS(3), {0, 1, 1})), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(2, 2), {3, 4, 5, 6}));
  CHECK_EQ_I(run("Compress", 11, ATTRS(attr_int("axis", -1)), IN(x, BOOLS(1, DIMS(1), {0})), 1, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(3, 0), {0}));
  /* no axis: flattened; a short condition drops the rest */
  CHECK_EQ_I(run("Compress", 9, NOATTR, IN(x, BOOLS(1, DIMS(5), {0, 1, 0, 0, 1})), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(2), {2, 5}));
  CHECK_FAILS(run("Compress", 11, NOATTR, IN(x, I64(1, DIMS(1), {1})), 1, y),
              "(the condition) is int64 of shape (1,); it must be a 1-D bool tensor");
}

static void test_nonzero(void) {
  ox_value *y[1];
  /* -0.0 is zero, NaN is not */
  CHECK_EQ_I(run("NonZero", 13, NOATTR, IN(F32(2, DIMS(2, 2), {-0.0f, NAN, 3, 0})), 1, y), 0);
  CHECK(IS_I64(y[0], 2, DIMS(2, 2), {0, 1, 1, 0}));
  /* a scalar gives (0, nnz) */
  CHECK_EQ_I(run("NonZero", 9, NOATTR, IN(I32(0, NULL, {5})), 1, y), 0);
  CHECK(IS_I64(y[0], 2, DIMS(0, 1), {0}));
  /* float16 negative zero (0x8000); strings: non-empty */
  CHECK_EQ_I(run("NonZero", 13, NOATTR, IN(U16(OX_BFLOAT16, 1, DIMS(3), {0x8000, 0x0001, 0})), 1, y), 0);
  CHECK(IS_I64(y[0], 2, DIMS(1, 1), {1}));
  ox_str s[3] = {{"", 0}, {"x", 1}, {"yz", 2}};
  CHECK_EQ_I(run("NonZero", 13, NOATTR, IN(tensor(OX_STRING, 1, DIMS(3), s)), 1, y), 0);
  CHECK(IS_I64(y[0], 2, DIMS(1, 2), {1, 2}));
  /* 3-D, row-major order */
  CHECK_EQ_I(run("NonZero", 13, NOATTR, IN(BOOLS(3, DIMS(2, 1, 2), {0, 1, 1, 1})), 1, y), 0);
  CHECK(IS_I64(y[0], 2, DIMS(3, 3), {0, 1, 1, 0, 0, 0, 1, 0, 1}));
}

/* ---- TopK ---- */

static void test_topk(void) {
  ox_value *y[2];
  ox_value *x = F32(2, DIMS(2, 4), {3, 1, 3, 2, 0, 0, NAN, -1});
  ox_value *k2 = I64(1, DIMS(1), {2}), *k3 = I64(1, DIMS(1), {3});
  /* ties keep the lower index first; NaN is the largest */
  CHECK_EQ_I(run("TopK", 11, NOATTR, IN(x, k3), 2, y), 0);
  float *v = y[0]->u.t.data;
  CHECK(v[0] == 3 && v[1] == 3 && v[2] == 2 && isnan(v[3]) && v[4] == 0 && v[5] == 0);
  CHECK(IS_I64(y[1], 2, DIMS(2, 3), {0, 2, 3, 2, 0, 1}));
  /* smallest: ties still lower index first */
  CHECK_EQ_I(run("TopK", 11, ATTRS(attr_int("largest", 0)), IN(x, k3), 2, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(2, 3), {1, 2, 3, -1, 0, 0}));
  CHECK(IS_I64(y[1], 2, DIMS(2, 3), {1, 3, 0, 3, 0, 1}));
  /* axis 0 */
  CHECK_EQ_I(run("TopK", 10, ATTRS(attr_int("axis", 0)), IN(x, I64(1, DIMS(1), {1})), 2, y), 0);
  v = y[0]->u.t.data;
  CHECK(v[0] == 3 && v[1] == 1 && isnan(v[2]) && v[3] == 2);
  CHECK(IS_I64(y[1], 2, DIMS(1, 4), {0, 0, 1, 0}));
  /* TopK-1: k is an attribute */
  CHECK_EQ_I(run("TopK", 1, ATTRS(attr_int("k", 2)), IN(F32(1, DIMS(4), {1, 4, 4, 2})), 2, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(2), {4, 4}));
  CHECK(IS_I64(y[1], 1, DIMS(2), {1, 2}));
  CHECK_FAILS(run("TopK", 1, NOATTR, IN(x), 2, y), "the attribute 'k' is required");
  CHECK_FAILS(run("TopK", 10, ATTRS(attr_int("largest", 0)), IN(x, k2), 2, y),
              "attribute 'largest' needs opset 11 or later");
  /* float16 compares as float, values keep their bits: -0 and +0 tie */
  ox_value *h = U16(OX_FLOAT16, 1, DIMS(4), {0x8000, 0x3c00, 0x0000, 0xbc00}); /* -0, 1, 0, -1 */
  CHECK_EQ_I(run("TopK", 11, NOATTR, IN(h, k3), 2, y), 0);
  CHECK(IS_U16(y[0], OX_FLOAT16, 1, DIMS(3), {0x3c00, 0x8000, 0x0000}));
  CHECK(IS_I64(y[1], 1, DIMS(3), {1, 0, 2}));
  /* unsigned 64-bit beyond int64 */
  ox_value *u = tensor(OX_UINT64, 1, DIMS(3), (uint64_t[]){1, UINT64_MAX, 1ull << 63});
  CHECK_EQ_I(run("TopK", 11, NOATTR, IN(u, k2), 2, y), 0);
  CHECK(same_bytes(y[0], OX_UINT64, 1, DIMS(2), (uint64_t[]){UINT64_MAX, 1ull << 63}));
  /* k = 0 gives empty outputs */
  CHECK_EQ_I(run("TopK", 11, NOATTR, IN(x, I64(1, DIMS(1), {0})), 2, y), 0);
  CHECK(IS_I64(y[1], 2, DIMS(2, 0), {0}));
  CHECK_FAILS(run("TopK", 11, NOATTR, IN(x, I64(1, DIMS(1), {5})), 2, y),
              "k = 5 is out of range [0, 4] for axis 1 of size 4");
  CHECK_FAILS(run("TopK", 11, NOATTR, IN(x, I64(1, DIMS(1), {-1})), 2, y), "k = -1 is out of range");
  /* a longer row goes through the merge, not only the insertion sort */
  float big[40];
  for (int i = 0; i < 40; i++) big[i] = (float)((i * 7) % 10);
  CHECK_EQ_I(run("TopK", 11, NOATTR, IN(tensor(OX_FLOAT, 1, DIMS(40), big), I64(1, DIMS(1), {5})), 2, y), 0);
  /* 9 occurs at i with 7i % 10 == 9: i = 7, 17, 27, 37; then 8 at i = 4 */
  CHECK(IS_F32(y[0], 1, DIMS(5), {9, 9, 9, 9, 8}));
  CHECK(IS_I64(y[1], 1, DIMS(5), {7, 17, 27, 37, 4}));
  /* the heap (k <= s / 4) and the full sort agree, ties and all, either way */
  for (int largest = 0; largest < 2; largest++) {
    ox_value *yh[2], *ys[2], *xb = tensor(OX_FLOAT, 1, DIMS(40), big);
    CHECK_EQ_I(run("TopK", 11, ATTRS(attr_int("largest", largest)), IN(xb, I64(1, DIMS(1), {10})), 2, yh), 0);
    CHECK_EQ_I(run("TopK", 11, ATTRS(attr_int("largest", largest)), IN(xb, I64(1, DIMS(1), {40})), 2, ys), 0);
    CHECK(!memcmp(yh[1]->u.t.data, ys[1]->u.t.data, 10 * sizeof(int64_t)));
    CHECK(!memcmp(yh[0]->u.t.data, ys[0]->u.t.data, 10 * sizeof(float)));
    int64_t *si = ys[1]->u.t.data;
    float *sv = ys[0]->u.t.data;
    int ok = 1; /* the full sort is ordered, ties by the lower index */
    for (int i = 1; i < 40; i++)
      ok &= largest ? (sv[i - 1] > sv[i] || (sv[i - 1] == sv[i] && si[i - 1] < si[i]))
                    : (sv[i - 1] < sv[i] || (sv[i - 1] == sv[i] && si[i - 1] < si[i]));
    CHECK(ok);
  }
  /* smallest 4 of the 40: the four 0s at i = 0, 10, 20, 30 */
  CHECK_EQ_I(run("TopK", 11, ATTRS(attr_int("largest", 0)), IN(tensor(OX_FLOAT, 1, DIMS(40), big), I64(1, DIMS(1), {4})), 2, y), 0);
  CHECK(IS_I64(y[1], 1, DIMS(4), {0, 10, 20, 30}));
}

/* ---- Unique ---- */

static void test_unique(void) {
  ox_value *y[4];
  ox_value *x = F32(1, DIMS(6), {2, 1, 1, 3, 4, 3});
  /* example 1, unsorted */
  CHECK_EQ_I(run("Unique", 11, ATTRS(attr_int("sorted", 0)), IN(x), 4, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(4), {2, 1, 3, 4}));
  CHECK(IS_I64(y[1], 1, DIMS(4), {0, 1, 3, 4}));
  CHECK(IS_I64(y[2], 1, DIMS(6), {0, 1, 1, 2, 3, 2}));
  CHECK(IS_I64(y[3], 1, DIMS(4), {1, 2, 2, 1}));
  /* sorted */
  CHECK_EQ_I(run("Unique", 11, NOATTR, IN(x), 4, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(4), {1, 2, 3, 4}));
  CHECK(IS_I64(y[1], 1, DIMS(4), {1, 0, 3, 4}));
  CHECK(IS_I64(y[2], 1, DIMS(6), {1, 0, 0, 2, 3, 2}));
  CHECK(IS_I64(y[3], 1, DIMS(4), {2, 1, 2, 1}));
  /* example 4: axis 1 of (2, 4, 2), slices compared lexicographically */
  ox_value *x4 = F32(3, DIMS(2, 4, 2), {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1});
  CHECK_EQ_I(run("Unique", 11, ATTRS(attr_int("axis", 1)), IN(x4), 4, y), 0);
  CHECK(IS_F32(y[0], 3, DIMS(2, 3, 2), {0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}));
  CHECK(IS_I64(y[1], 1, DIMS(3), {1, 0, 2}));
  CHECK(IS_I64(y[2], 1, DIMS(4), {1, 0, 2, 0}));
  CHECK(IS_I64(y[3], 1, DIMS(3), {2, 1, 1}));
  /* the same unsorted: first-occurrence order */
  CHECK_EQ_I(run("Unique", 11, ATTRS(attr_int("axis", -2), attr_int("sorted", 0)), IN(x4), 4, y), 0);
  CHECK(IS_F32(y[0], 3, DIMS(2, 3, 2), {1, 1, 0, 1, 2, 1, 1, 1, 0, 1, 2, 1}));
  CHECK(IS_I64(y[1], 1, DIMS(3), {0, 1, 2}));
  CHECK(IS_I64(y[2], 1, DIMS(4), {0, 1, 2, 1}));
  /* rows of a (3, 2) where the later columns decide: [1, 0] < [1, 5] */
  ox_value *xr = I32(2, DIMS(3, 2), {1, 5, 1, 0, 1, 5});
  CHECK_EQ_I(run("Unique", 11, ATTRS(attr_int("axis", 0)), IN(xr), 4, y), 0);
  CHECK(IS_I32(y[0], 2, DIMS(2, 2), {1, 0, 1, 5}));
  CHECK(IS_I64(y[2], 1, DIMS(3), {1, 0, 1}));
  /* -0 and 0 are one value: Y keeps the first occurrence's bits; NaNs are one, last */
  CHECK_EQ_I(run("Unique", 11, NOATTR, IN(F32(1, DIMS(5), {NAN, -0.0f, 0.0f, NAN, -1})), 4, y), 0);
  float *v = y[0]->u.t.data;
  CHECK(y[0]->u.t.n == 3 && v[0] == -1 && v[1] == 0 && signbit(v[1]) && isnan(v[2]));
  CHECK(IS_I64(y[3], 1, DIMS(3), {1, 2, 2}));
  /* strings: byte order, shorter first */
  ox_str s[4] = {{"b", 1}, {"ab", 2}, {"a", 1}, {"b", 1}};
  CHECK_EQ_I(run("Unique", 11, NOATTR, IN(tensor(OX_STRING, 2, DIMS(2, 2), s)), 2, y), 0);
  ox_str *ys = y[0]->u.t.data;
  CHECK(y[0]->u.t.n == 3 && !strcmp(ys[0].p, "a") && !strcmp(ys[1].p, "ab") && !strcmp(ys[2].p, "b"));
  CHECK(IS_I64(y[1], 1, DIMS(3), {2, 1, 0}));
  /* empty input */
  CHECK_EQ_I(run("Unique", 11, NOATTR, IN(F32(1, DIMS(0), {0})), 4, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(0), {0}) && IS_I64(y[2], 1, DIMS(0), {0}));
  CHECK_FAILS(run("Unique", 11, ATTRS(attr_int("axis", 1)), IN(x), 1, y), "axis 1 is out of range [-1, 0]");
}

/* ---- CumSum, CumProd ---- */

static void test_cumulative(void) {
  ox_value *y[1];
  ox_value *x = F32(1, DIMS(3), {1, 2, 3}), *a0 = I32(0, NULL, {0});
  CHECK_EQ_I(run("CumSum", 14, NOATTR, IN(x, a0), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {1, 3, 6}));
  CHECK_EQ_I(run("CumSum", 11, ATTRS(attr_int("exclusive", 1)), IN(x, a0), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {0, 1, 3}));
  CHECK_EQ_I(run("CumSum", 14, ATTRS(attr_int("reverse", 1)), IN(x, a0), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {6, 5, 3}));
  CHECK_EQ_I(run("CumSum", 14, ATTRS(attr_int("reverse", 1), attr_int("exclusive", 1)), IN(x, a0), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {5, 3, 0}));
  CHECK_EQ_I(run("CumProd", 26, ATTRS(attr_int("reverse", 1), attr_int("exclusive", 1)), IN(x, a0), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {6, 3, 1}));
  CHECK_EQ_I(run("CumProd", 26, ATTRS(attr_int("exclusive", 1)), IN(x, a0), 1, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {1, 1, 2}));
  /* 2-D along each axis; the axis may be a 1-element int64 */
  ox_value *m = I64(2, DIMS(2, 3), {1, 2, 3, 4, 5, 6});
  CHECK_EQ_I(run("CumSum", 14, NOATTR, IN(m, I64(1, DIMS(1), {-1})), 1, y), 0);
  CHECK(IS_I64(y[0], 2, DIMS(2, 3), {1, 3, 6, 4, 9, 15}));
  CHECK_EQ_I(run("CumProd", 26, ATTRS(attr_int("reverse", 1)), IN(m, a0), 1, y), 0);
  CHECK(IS_I64(y[0], 2, DIMS(2, 3), {4, 10, 18, 4, 5, 6}));
  /* integers wrap */
  CHECK_EQ_I(run("CumSum", 14, NOATTR, IN(I32(1, DIMS(2), {INT32_MAX, 2}), a0), 1, y), 0);
  CHECK(IS_I32(y[0], 1, DIMS(2), {INT32_MAX, INT32_MIN + 1}));
  /* float16 rounds at every step: 2048, +1 -> 2048, +1 -> 2048 */
  CHECK_EQ_I(run("CumSum", 14, NOATTR, IN(U16(OX_FLOAT16, 1, DIMS(3), {0x6800, 0x3c00, 0x3c00}), a0), 1, y), 0);
  CHECK(IS_U16(y[0], OX_FLOAT16, 1, DIMS(3), {0x6800, 0x6800, 0x6800}));
  CHECK_FAILS(run("CumSum", 14, NOATTR, IN(x, I32(0, NULL, {1})), 1, y), "axis 1 is out of range [-1, 0]");
  CHECK_FAILS(run("CumSum", 14, NOATTR, IN(x, F32(0, NULL, {0})), 1, y),
              "(the axis) is float; it must be int32 or int64");
  CHECK_FAILS(run("CumSum", 14, NOATTR, IN(x, I64(1, DIMS(2), {0, 0})), 1, y), "must be a scalar");
}

int main(void) {
  A = ox_arena_new();
  test_table();
  test_gather();
  test_gather_elements();
  test_gather_nd();
  test_scatter_elements();
  test_scatter_nd();
  test_tensor_scatter();
  test_compress();
  test_nonzero();
  test_topk();
  test_unique();
  test_cumulative();
  ox_arena_free(A);
  return check_done("index");
}
