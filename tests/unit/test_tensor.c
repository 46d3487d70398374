/* tests/unit/test_tensor.c: the data-movement kernels of ops/tensor.c (Concat,
 * Split, Slice, Expand, Tile, Pad, CenterCropPad, DepthToSpace, SpaceToDepth,
 * ReverseSequence), called through the registry with a hand-made node.
 * Expected values are written out by hand or computed by naive indexing. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"

static int runn(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
                int nout, ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, nout, out);
}
static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, 1, out);
}

/* ---- building values ---- */

#define DIMS(...) {__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, (int64_t[])dims, (float[])__VA_ARGS__)
#define I64V(n, ...) tensor(OX_INT64, 1, (int64_t[]){n}, (int64_t[])__VA_ARGS__)

/* 0, 1, ..., n-1 as floats in the given shape. */
static ox_value *iota(int rank, const int64_t *dims) {
  ox_value *v = tensor(OX_FLOAT, rank, dims, NULL);
  float *p = v->u.t.data;
  for (int64_t i = 0; i < v->u.t.n; i++) p[i] = (float)i;
  return v;
}

static int is_f32(const ox_value *v, int rank, const int64_t *dims, const float *want) {
  if (!v || v->kind != OX_TENSOR || v->u.t.dt != OX_FLOAT || v->u.t.rank != rank) return 0;
  for (int i = 0; i < rank; i++)
    if (v->u.t.dims[i] != dims[i]) return 0;
  const float *p = v->u.t.data;
  for (int64_t i = 0; i < v->u.t.n; i++)
    if (p[i] != want[i]) {
      fprintf(stderr, "  element %lld: %g != %g\n", (long long)i, p[i], want[i]);
      return 0;
    }
  return 1;
}
#define IS_F32(v, rank, dims, ...) is_f32(v, rank, (int64_t[])dims, (float[])__VA_ARGS__)

/* ---- attributes ---- */

#define ATTR_INTS(nm, cnt, ...) ((ox_attr){.name = nm, .type = OX_ATTR_INTS, .n = cnt, .ints = (int64_t[])__VA_ARGS__})

/* ---- running one node ---- */

/* ---- the table ---- */

static void test_table(void) {
  extern const ox_kernel ox_tensor_kernels[];
  check_rows(ox_tensor_kernels, NULL, 0);
  CHECK(ox_registry_find("", "Expand", 7) == NULL);
  CHECK_EQ_I(ox_registry_find("", "Pad", 20)->since, 19);
  CHECK_EQ_I(ox_registry_find("", "Split", 17)->since, 13);
  CHECK(ox_registry_find("", "Pad", 25)->types & OX_T(INT2));
  CHECK(!(ox_registry_find("", "Pad", 12)->types & OX_T(STRING)));
}

/* ---- Concat, Split ---- */

static void test_concat(void) {
  ox_value *a = F32(2, DIMS(2, 1), {1, 2}), *b = F32(2, DIMS(2, 2), {3, 4, 5, 6}), *y;
  ox_attr ax = attr_int("axis", -1);
  CHECK_EQ_I(run("Concat", 13, 1, &ax, 2, (ox_value *[]){a, b}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 3), {1, 3, 4, 2, 5, 6}));
  /* taken before 11 too, as onnxruntime does */
  CHECK_EQ_I(run("Concat", 4, 1, &ax, 2, (ox_value *[]){a, b}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 3), {1, 3, 4, 2, 5, 6}));
  ax.i = 0;
  CHECK_FAILS(run("Concat", 13, 1, &ax, 2, (ox_value *[]){a, b}, &y),
              "input 1 'x1' has shape (2, 2) and input 0 has (2, 1); all dims but axis 0 must match");
  CHECK_FAILS(run("Concat", 13, 0, NULL, 2, (ox_value *[]){a, b}, &y), "'axis' is required");
  /* Concat-1: axis defaults to 1 */
  CHECK_EQ_I(run("Concat", 1, 0, NULL, 2, (ox_value *[]){b, a}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 3), {3, 4, 1, 5, 6, 2}));
  /* an empty input along the axis */
  ox_value *e = tensor(OX_FLOAT, 2, (int64_t[]){2, 0}, NULL);
  ax.i = 1;
  CHECK_EQ_I(run("Concat", 13, 1, &ax, 3, (ox_value *[]){e, a, e}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 1), {1, 2}));
}

static void test_split(void) {
  ox_value *x = iota(1, (int64_t[]){7}), *y[4];
  /* Split-18 num_outputs: parts of ceil(7/3) = 3, the last one 1 */
  ox_attr no = attr_int("num_outputs", 3);
  CHECK_EQ_I(runn("Split", 18, 1, &no, 1, (ox_value *[]){x}, 3, y), 0);
  CHECK(IS_F32(y[0], 1, DIMS(3), {0, 1, 2}));
  CHECK(IS_F32(y[1], 1, DIMS(3), {3, 4, 5}));
  CHECK(IS_F32(y[2], 1, DIMS(1), {6}));
  CHECK_FAILS(runn("Split", 18, 1, &no, 1, (ox_value *[]){x}, 2, y),
              "num_outputs = 3 but the node has 2 outputs");
  /* 5 into 4 parts of 2 cannot be done */
  ox_value *x5 = iota(1, (int64_t[]){5});
  no.i = 4;
  CHECK_FAILS(runn("Split", 18, 1, &no, 1, (ox_value *[]){x5}, 4, y), "cannot be split into 4 parts");
  /* without lengths, equal parts only */
  CHECK_FAILS(runn("Split", 13, 0, NULL, 1, (ox_value *[]){x}, 2, y),
              "a dimension of 7 cannot be split into 2 equal parts");
  /* Split-13: the input; zero-length parts */
  CHECK_EQ_I(runn("Split", 13, 0, NULL, 2, (ox_value *[]){x, I64V(3, {0, 7, 0})}, 3, y), 0);
  CHECK(y[0]->u.t.dims[0] == 0 && y[2]->u.t.dims[0] == 0);
  CHECK(IS_F32(y[1], 1, DIMS(7), {0, 1, 2, 3, 4, 5, 6}));
  CHECK_FAILS(runn("Split", 13, 0, NULL, 2, (ox_value *[]){x, I64V(2, {3, 3})}, 2, y),
              "do not add up to 7");
  CHECK_FAILS(runn("Split", 13, 0, NULL, 2, (ox_value *[]){x, I64V(2, {8, -1})}, 2, y),
              "split[1] = -1 is negative");
  /* Split-2 attribute along axis 1 of (2, 3) */
  ox_value *m = iota(2, (int64_t[]){2, 3});
  ox_attr at[2] = {attr_int("axis", 1), ATTR_INTS("split", 2, {1, 2})};
  CHECK_EQ_I(runn("Split", 2, 2, at, 1, (ox_value *[]){m}, 2, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(2, 1), {0, 3}));
  CHECK(IS_F32(y[1], 2, DIMS(2, 2), {1, 2, 4, 5}));
  /* Split-1: lengths as a second input of type T */
  CHECK_EQ_I(runn("Split", 1, 1, at, 2, (ox_value *[]){m, F32(1, DIMS(2), {2, 1})}, 2, y), 0);
  CHECK(IS_F32(y[0], 2, DIMS(2, 2), {0, 1, 3, 4}));
  CHECK(IS_F32(y[1], 2, DIMS(2, 1), {2, 5}));
}

/* ---- Slice ---- */

static void test_slice(void) {
  ox_value *x = iota(1, (int64_t[]){5}), *y;
  /* negative step from the end to the front: INT64_MAX start, INT64_MIN end */
  CHECK_EQ_I(run("Slice", 13, 0, NULL, 5,
                 (ox_value *[]){x, I64V(1, {INT64_MAX}), I64V(1, {INT64_MIN}), I64V(1, {0}),
                                I64V(1, {-1})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(5), {4, 3, 2, 1, 0}));
  /* step -2 from -1 to -5 (exclusive): 4, 2 */
  CHECK_EQ_I(run("Slice", 13, 0, NULL, 5,
                 (ox_value *[]){x, I64V(1, {-1}), I64V(1, {-5}), I64V(1, {0}), I64V(1, {-2})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {4, 2}));
  /* a step of INT64_MIN takes one element */
  CHECK_EQ_I(run("Slice", 13, 0, NULL, 5,
                 (ox_value *[]){x, I64V(1, {3}), I64V(1, {INT64_MIN}), I64V(1, {0}),
                                I64V(1, {INT64_MIN})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(1), {3}));
  /* out-of-range starts clamp: start 10 with step 1 is empty, start -10 is 0 */
  CHECK_EQ_I(run("Slice", 13, 0, NULL, 3, (ox_value *[]){x, I64V(1, {10}), I64V(1, {20})}, &y), 0);
  CHECK_EQ_I(y->u.t.dims[0], 0);
  CHECK_EQ_I(run("Slice", 13, 0, NULL, 3, (ox_value *[]){x, I64V(1, {-10}), I64V(1, {2})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {0, 1}));
  /* 2-D: rows reversed, every other column, with negative axes */
  ox_value *m = iota(2, (int64_t[]){3, 4});
  CHECK_EQ_I(run("Slice", 13, 0, NULL, 5,
                 (ox_value *[]){m, I64V(2, {-1, 1}), I64V(2, {INT64_MIN, 100}), I64V(2, {-2, -1}),
                                I64V(2, {-1, 2})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 2), {9, 11, 5, 7, 1, 3}));
  CHECK_FAILS(run("Slice", 13, 0, NULL, 5,
                  (ox_value *[]){m, I64V(1, {0}), I64V(1, {1}), I64V(1, {0}), I64V(1, {0})}, &y),
              "steps[0] is 0");
  CHECK_FAILS(run("Slice", 13, 0, NULL, 4,
                  (ox_value *[]){m, I64V(2, {0, 0}), I64V(2, {1, 1}), I64V(2, {1, -1})}, &y),
              "axis 1 is repeated");
  CHECK_FAILS(run("Slice", 13, 0, NULL, 4,
                  (ox_value *[]){m, I64V(1, {0}), I64V(1, {1}), I64V(1, {2})}, &y),
              "axis 2 is out of range [-2, 1]");
  /* Slice-1: attributes */
  ox_attr at[3] = {ATTR_INTS("starts", 1, {1}), ATTR_INTS("ends", 1, {-1}), ATTR_INTS("axes", 1, {1})};
  CHECK_EQ_I(run("Slice", 1, 3, at, 1, (ox_value *[]){m}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 2), {1, 2, 5, 6, 9, 10}));
}

/* ---- Expand, Tile ---- */

static void test_expand_tile(void) {
  ox_value *x = F32(2, DIMS(3, 1), {1, 2, 3}), *y;
  /* bidirectional: (3, 1) with shape (2, 1, 2) -> (2, 3, 2) */
  CHECK_EQ_I(run("Expand", 13, 0, NULL, 2, (ox_value *[]){x, I64V(3, {2, 1, 2})}, &y), 0);
  CHECK(IS_F32(y, 3, DIMS(2, 3, 2), {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  /* a shape shorter than the input keeps the input's dims */
  CHECK_EQ_I(run("Expand", 8, 0, NULL, 2, (ox_value *[]){x, I64V(1, {1})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 1), {1, 2, 3}));
  /* (3, 1) against (2,) is (3, 2) */
  CHECK_EQ_I(run("Expand", 13, 0, NULL, 2, (ox_value *[]){x, I64V(1, {2})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 2), {1, 1, 2, 2, 3, 3}));
  CHECK_FAILS(run("Expand", 13, 0, NULL, 2, (ox_value *[]){x, I64V(2, {2, 1})}, &y),
              "cannot be broadcast");
  CHECK_FAILS(run("Expand", 13, 0, NULL, 2, (ox_value *[]){x, I64V(1, {-1})}, &y),
              "shape[0] = -1 is negative");

  ox_value *m = F32(2, DIMS(2, 2), {1, 2, 3, 4});
  CHECK_EQ_I(run("Tile", 13, 0, NULL, 2, (ox_value *[]){m, I64V(2, {2, 3})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(4, 6), {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                  1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  CHECK_EQ_I(run("Tile", 6, 0, NULL, 2, (ox_value *[]){m, I64V(2, {1, 0})}, &y), 0);
  CHECK(y->u.t.n == 0 && y->u.t.dims[0] == 2 && y->u.t.dims[1] == 0);
  CHECK_FAILS(run("Tile", 13, 0, NULL, 2, (ox_value *[]){m, I64V(2, {1, -2})}, &y),
              "repeats[1] = -2 is negative");
  CHECK_FAILS(run("Tile", 13, 0, NULL, 2, (ox_value *[]){m, I64V(1, {2})}, &y),
              "repeats has 1 values for an input of shape (2, 2)");
  /* Tile-1: tiles along one axis */
  int64_t t = 2, a = 0;
  CHECK_EQ_I(run("Tile", 1, 0, NULL, 3,
                 (ox_value *[]){m, tensor(OX_INT64, 0, NULL, &t), tensor(OX_INT64, 0, NULL, &a)}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(4, 2), {1, 2, 3, 4, 1, 2, 3, 4}));
}

/* ---- Pad, CenterCropPad ---- */

static void test_pad(void) {
  ox_value *x = F32(1, DIMS(3), {1, 2, 3}), *y;
  /* reflect beyond the length: numpy.pad's period 2n-2 = 4 */
  ox_attr md = attr_str("mode", "reflect");
  CHECK_EQ_I(run("Pad", 13, 1, &md, 2, (ox_value *[]){x, I64V(2, {5, 4})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(12), {2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}));
  md = attr_str("mode", "wrap");
  CHECK_EQ_I(run("Pad", 19, 1, &md, 2, (ox_value *[]){x, I64V(2, {4, 2})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(9), {3, 1, 2, 3, 1, 2, 3, 1, 2}));
  CHECK_FAILS(run("Pad", 18, 1, &md, 2, (ox_value *[]){x, I64V(2, {1, 1})}, &y),
              "wrap needs opset 19");
  /* negative pads crop first: [1, 2, 3, 4] -> [1, 2, 3], then wrap 2 in front */
  ox_value *x4 = F32(1, DIMS(4), {1, 2, 3, 4});
  CHECK_EQ_I(run("Pad", 19, 1, &md, 2, (ox_value *[]){x4, I64V(2, {2, -1})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(5), {2, 3, 1, 2, 3}));
  CHECK_FAILS(run("Pad", 19, 1, &md, 2, (ox_value *[]){x4, I64V(2, {1, -4})}, &y),
              "axis 0 has no elements left after the negative pads");
  md = attr_str("mode", "edge");
  CHECK_EQ_I(run("Pad", 13, 1, &md, 2, (ox_value *[]){x, I64V(2, {2, 1})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(6), {1, 1, 1, 2, 3, 3}));
  /* constant with a value, negative pads crop */
  CHECK_EQ_I(run("Pad", 11, 0, NULL, 3,
                 (ox_value *[]){x, I64V(2, {-1, 2}), F32(0, DIMS(0), {9})}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(4), {2, 3, 9, 9}));
  CHECK_FAILS(run("Pad", 11, 0, NULL, 2, (ox_value *[]){x, I64V(2, {-2, -2})}, &y),
              "remove more than the 3 elements");
  CHECK_FAILS(run("Pad", 11, 0, NULL, 2, (ox_value *[]){x, I64V(1, {1})}, &y),
              "pads has 1 values; it needs 2 per dim of the input (2)");
  /* Pad-18 axes: pad only the last axis of (2, 2) */
  ox_value *m = F32(2, DIMS(2, 2), {1, 2, 3, 4});
  CHECK_EQ_I(run("Pad", 18, 0, NULL, 4,
                 (ox_value *[]){m, I64V(2, {1, 0}), NULL, I64V(1, {-1})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 3), {0, 1, 2, 0, 3, 4}));
  /* Pad-2: attributes pads and value; reflect in 2-D */
  ox_attr at[3] = {ATTR_INTS("pads", 4, {1, 0, 0, 1}), attr_float("value", 1.5f), attr_str("mode", "constant")};
  CHECK_EQ_I(run("Pad", 2, 3, at, 1, (ox_value *[]){m}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 3), {1.5f, 1.5f, 1.5f, 1, 2, 1.5f, 3, 4, 1.5f}));
  at[0].name = "paddings"; /* Pad-1 names it paddings */
  CHECK_EQ_I(run("Pad", 1, 3, at, 1, (ox_value *[]){m}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(3, 3), {1.5f, 1.5f, 1.5f, 1, 2, 1.5f, 3, 4, 1.5f}));
  /* strings: the default constant is "" */
  ox_str s[2] = {{"a", 1}, {"bc", 2}};
  ox_value *xs = tensor(OX_STRING, 1, (int64_t[]){2}, s);
  CHECK_EQ_I(run("Pad", 13, 0, NULL, 2, (ox_value *[]){xs, I64V(2, {1, 1})}, &y), 0);
  const ox_str *ys = y->u.t.data;
  CHECK(y->u.t.n == 4 && ys[0].p && ys[0].n == 0 && !strcmp(ys[1].p, "a") && !strcmp(ys[2].p, "bc") &&
        ys[3].n == 0);
}

static void test_center_crop_pad(void) {
  ox_value *x = iota(2, (int64_t[]){5, 2}), *y;
  /* crop 5 -> 2 starts at (5-2)/2 = 1; pad 2 -> 5 puts 1 left, 2 right */
  CHECK_EQ_I(run("CenterCropPad", 18, 0, NULL, 2, (ox_value *[]){x, I64V(2, {2, 5})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 5), {0, 2, 3, 0, 0, 0, 4, 5, 0, 0}));
  ox_attr ax = ATTR_INTS("axes", 1, {-2});
  CHECK_EQ_I(run("CenterCropPad", 18, 1, &ax, 2, (ox_value *[]){x, I64V(1, {4})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(4, 2), {0, 1, 2, 3, 4, 5, 6, 7}));
  CHECK_FAILS(run("CenterCropPad", 18, 1, &ax, 2, (ox_value *[]){x, I64V(2, {1, 1})}, &y),
              "shape has 2 values; it needs one per axis in axes (1)");
}

/* ---- DepthToSpace, SpaceToDepth ---- */

/* DepthToSpace (both modes) against their index formulas, and SpaceToDepth
 * as the inverse of DCR, for x: (N, C, H, W) and blocksize B. */
static void depth_space_case(int N, int C, int H, int W, int B) {
  int Cb = C / (B * B), total = N * C * H * W;
  ox_value *x = iota(4, (int64_t[]){N, C, H, W}), *y, *z;
  float *want = ox_alloc(A, (size_t)total * sizeof *want);
  for (int crd = 0; crd < 2; crd++) {
    /* DCR: y[n, c, h*B + i, w*B + j] = x[n, (i*B + j)*Cb + c, h, w]
     * CRD: y[n, c, h*B + i, w*B + j] = x[n, c*B*B + i*B + j, h, w] */
    ox_attr at[2] = {attr_int("blocksize", B), attr_str("mode", crd ? "CRD" : "DCR")};
    CHECK_EQ_I(run("DepthToSpace", crd ? 11 : 13, crd ? 2 : 1, at, 1, (ox_value *[]){x}, &y), 0);
    for (int n = 0; n < N; n++)
      for (int c = 0; c < Cb; c++)
        for (int h = 0; h < H * B; h++)
          for (int w = 0; w < W * B; w++) {
            int i = h % B, j = w % B, ch = crd ? c * B * B + i * B + j : (i * B + j) * Cb + c;
            want[((n * Cb + c) * H * B + h) * W * B + w] = (float)(((n * C + ch) * H + h / B) * W + w / B);
          }
    CHECK(is_f32(y, 4, (int64_t[]){N, Cb, H * B, W * B}, want));
    if (crd) continue;
    /* SpaceToDepth undoes DCR */
    CHECK_EQ_I(run("SpaceToDepth", 13, 1, at, 1, (ox_value *[]){y}, &z), 0);
    CHECK(z->u.t.dims[1] == C && z->u.t.dims[2] == H && z->u.t.dims[3] == W);
    CHECK(memcmp(z->u.t.data, x->u.t.data, (size_t)total * sizeof *want) == 0);
  }
}

static void test_depth_space(void) {
  depth_space_case(2, 8, 2, 3, 2);
  depth_space_case(1, 4, 3, 1, 2); /* W = 1: the blocksize is the longer inner dim */
  depth_space_case(2, 18, 1, 5, 3);
  depth_space_case(1, 1, 2, 2, 1);
  depth_space_case(3, 32, 2, 2, 4);
  ox_value *x = iota(4, (int64_t[]){2, 8, 2, 3}), *y;
  ox_attr md = attr_int("blocksize", 3);
  CHECK_FAILS(run("DepthToSpace", 13, 1, &md, 1, (ox_value *[]){x}, &y),
              "channels (8) are not a multiple of blocksize^2 (9)");
  CHECK_FAILS(run("SpaceToDepth", 13, 1, &md, 1, (ox_value *[]){x}, &y),
              "height 2 and width 3 must be multiples of blocksize 3");
  md.i = 0;
  CHECK_FAILS(run("SpaceToDepth", 13, 1, &md, 1, (ox_value *[]){x}, &y), "blocksize = 0");
}

/* ---- ReverseSequence ---- */

static void test_reverse_sequence(void) {
  /* x: (T=3, B=2, 2) */
  ox_value *x = iota(3, (int64_t[]){3, 2, 2}), *y;
  CHECK_EQ_I(run("ReverseSequence", 10, 0, NULL, 2, (ox_value *[]){x, I64V(2, {3, 2})}, &y), 0);
  CHECK(IS_F32(y, 3, DIMS(3, 2, 2), {8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 10, 11}));
  ox_attr at[2] = {attr_int("batch_axis", 0), attr_int("time_axis", 1)};
  /* x: (B=3, T=2, 2) */
  CHECK_EQ_I(run("ReverseSequence", 10, 2, at, 2, (ox_value *[]){x, I64V(3, {0, 1, 2})}, &y), 0);
  CHECK(IS_F32(y, 3, DIMS(3, 2, 2), {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 8, 9}));
  CHECK_FAILS(run("ReverseSequence", 10, 2, at, 2, (ox_value *[]){x, I64V(3, {0, 3, 2})}, &y),
              "sequence_lens[1] = 3 is out of range [0, 2]");
  CHECK_FAILS(run("ReverseSequence", 10, 2, at, 2, (ox_value *[]){x, I64V(2, {0, 1})}, &y),
              "sequence_lens has shape (2,); it must be (3,)");
}

/* ---- against naive indexing ---- */

static uint64_t rng = 88172645463325252u;
static int64_t rnd(int64_t n) { /* xorshift64, in [0, n) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (int64_t)(rng % (uint64_t)n);
}

/* Random 4-D Slices and Pads (every mode) checked element by element against
 * the index formulas, with float32 and float64 data (blocks of 4 and 8 bytes
 * go through different copy paths). */
static void test_random(void) {
  for (int iter = 0; iter < 300; iter++) {
    int64_t d[4], n = 1;
    for (int i = 0; i < 4; i++) n *= d[i] = 1 + rnd(4);
    ox_dtype dt = iter & 1 ? OX_DOUBLE : OX_FLOAT;
    ox_value *x = tensor(dt, 4, d, NULL), *y;
    for (int64_t i = 0; i < n; i++) ox_store_f64(dt, x->u.t.data, i, (double)i);
    /* Slice with random starts, ends and steps (some huge) on every axis */
    int64_t st[4], en[4], sp[4], ax[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++) {
      st[i] = rnd(2 * d[i] + 3) - d[i] - 1;
      en[i] = rnd(5) == 0 ? (rnd(2) ? INT64_MAX : INT64_MIN) : rnd(2 * d[i] + 3) - d[i] - 1;
      sp[i] = rnd(7) - 3;
      if (sp[i] == 0) sp[i] = 1;
    }
    ox_value *in[5] = {x, I64V(4, {st[0], st[1], st[2], st[3]}), I64V(4, {en[0], en[1], en[2], en[3]}),
                       I64V(4, {ax[0], ax[1], ax[2], ax[3]}), I64V(4, {sp[0], sp[1], sp[2], sp[3]})};
    CHECK_EQ_I(run("Slice", 13, 0, NULL, 5, in, &y), 0);
    /* the effective start of each axis and the source index of output index o */
    int64_t first[4], cnt[4];
    int ok = 1;
    for (int i = 0; i < 4; i++) {
      int64_t s0 = st[i] < 0 ? st[i] + d[i] : st[i], e0 = en[i] < 0 && en[i] != INT64_MIN ? en[i] + d[i] : en[i];
      if (en[i] == INT64_MIN) e0 = -1;
      if (sp[i] > 0) {
        s0 = s0 < 0 ? 0 : s0 > d[i] ? d[i] : s0;
        e0 = e0 < 0 ? 0 : e0 > d[i] ? d[i] : e0;
      } else {
        s0 = s0 < 0 ? 0 : s0 > d[i] - 1 ? d[i] - 1 : s0;
        e0 = e0 < -1 ? -1 : e0 > d[i] - 1 ? d[i] - 1 : e0;
      }
      cnt[i] = 0;
      for (int64_t v = s0; sp[i] > 0 ? v < e0 : v > e0; v += sp[i]) cnt[i]++;
      first[i] = s0;
      ok &= y->u.t.dims[i] == cnt[i];
    }
    CHECK(ok);
    for (int64_t i0 = 0; ok && i0 < cnt[0]; i0++)
      for (int64_t i1 = 0; i1 < cnt[1]; i1++)
        for (int64_t i2 = 0; i2 < cnt[2]; i2++)
          for (int64_t i3 = 0; i3 < cnt[3]; i3++) {
            int64_t o = ((i0 * cnt[1] + i1) * cnt[2] + i2) * cnt[3] + i3;
            int64_t s = (((first[0] + i0 * sp[0]) * d[1] + first[1] + i1 * sp[1]) * d[2] +
                         first[2] + i2 * sp[2]) * d[3] + first[3] + i3 * sp[3];
            if (ox_load_f64(dt, y->u.t.data, o) != (double)s) ok = 0;
          }
    CHECK(ok);

    /* Pad: random pads in [-1, 6] per side, each mode */
    static const char *modes[] = {"constant", "reflect", "edge", "wrap"};
    const char *mode = modes[iter % 4];
    int64_t pb[4], pe[4], od[4];
    for (int i = 0; i < 4; i++) {
      pb[i] = rnd(8) - 1;
      pe[i] = rnd(8) - 1;
      if ((pb[i] < 0) + (pe[i] < 0) >= d[i]) pb[i] = pe[i] = 0; /* keep an element */
      od[i] = d[i] + pb[i] + pe[i];
    }
    ox_attr md = attr_str("mode", mode);
    ox_value *cv = tensor(dt, 0, NULL, NULL);
    ox_store_f64(dt, cv->u.t.data, 0, -7);
    ox_value *pin[3] = {x, I64V(8, {pb[0], pb[1], pb[2], pb[3], pe[0], pe[1], pe[2], pe[3]}), cv};
    CHECK_EQ_I(run("Pad", 19, 1, &md, 3, pin, &y), 0);
    ok = 1;
    for (int i = 0; i < 4; i++) ok &= y->u.t.dims[i] == od[i];
    int64_t o = 0, id[4];
    for (id[0] = 0; ok && id[0] < od[0]; id[0]++)
      for (id[1] = 0; id[1] < od[1]; id[1]++)
        for (id[2] = 0; id[2] < od[2]; id[2]++)
          for (id[3] = 0; id[3] < od[3]; id[3]++, o++) {
            int64_t s = 0, fillv = 0;
            for (int i = 0; i < 4; i++) {
              /* negative pads crop first; the modes pad what is left */
              int64_t lo = pb[i] < 0 ? -pb[i] : 0, m = d[i] - lo - (pe[i] < 0 ? -pe[i] : 0);
              int64_t j = id[i] - (pb[i] > 0 ? pb[i] : 0);
              if (j < 0 || j >= m) {
                if (iter % 4 == 0) fillv = 1;
                else if (iter % 4 == 2) j = j < 0 ? 0 : m - 1;
                else if (iter % 4 == 3) j = ((j % m) + m) % m;
                else if (m == 1) j = 0;
                else /* reflect by unfolding, one bounce at a time */
                  while (j < 0 || j >= m) j = j < 0 ? -j : 2 * (m - 1) - j;
              }
              s = s * d[i] + lo + j;
            }
            if (ox_load_f64(dt, y->u.t.data, o) != (fillv ? -7.0 : (double)s)) ok = 0;
          }
    if (!ok) fprintf(stderr, "Pad %s of (%lld, %lld, %lld, %lld) differs\n", mode, (long long)d[0],
                     (long long)d[1], (long long)d[2], (long long)d[3]);
    CHECK(ok);
  }
}

/* Scalars, strings, bool. */
static void test_small_cases(void) {
  float v = 5;
  ox_value *s = tensor(OX_FLOAT, 0, NULL, &v), *y;
  CHECK_EQ_I(run("Expand", 13, 0, NULL, 2, (ox_value *[]){s, tensor(OX_INT64, 1, (int64_t[]){0}, NULL)}, &y), 0);
  CHECK(y->u.t.rank == 0 && *(float *)y->u.t.data == 5);
  CHECK_EQ_I(run("Expand", 13, 0, NULL, 2, (ox_value *[]){s, I64V(2, {2, 2})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 2), {5, 5, 5, 5}));
  CHECK_EQ_I(run("Pad", 13, 0, NULL, 2, (ox_value *[]){s, tensor(OX_INT64, 1, (int64_t[]){0}, NULL)}, &y), 0);
  CHECK(y->u.t.rank == 0 && *(float *)y->u.t.data == 5);
  CHECK_EQ_I(run("Tile", 13, 0, NULL, 2, (ox_value *[]){s, tensor(OX_INT64, 1, (int64_t[]){0}, NULL)}, &y), 0);
  CHECK(y->u.t.rank == 0 && *(float *)y->u.t.data == 5);
  ox_attr ax = attr_int("axis", 0);
  CHECK_FAILS(run("Concat", 13, 1, &ax, 1, (ox_value *[]){s}, &y), "axis 0 is out of range");

  ox_str a[2] = {{"x", 1}, {"yz", 2}}, b[1] = {{"w", 1}};
  ox_value *sa = tensor(OX_STRING, 1, (int64_t[]){2}, a), *sb = tensor(OX_STRING, 1, (int64_t[]){1}, b);
  CHECK_EQ_I(run("Concat", 13, 1, &ax, 2, (ox_value *[]){sb, sa}, &y), 0);
  const ox_str *ys = y->u.t.data;
  CHECK(y->u.t.n == 3 && !strcmp(ys[0].p, "w") && !strcmp(ys[1].p, "x") && !strcmp(ys[2].p, "yz"));
  CHECK_FAILS(run("Concat", 13, 1, &ax, 2, (ox_value *[]){sb, F32(1, DIMS(1), {1})}, &y),
              "input 1 'x1' is float but input 0 is string");
  CHECK_EQ_I(run("Tile", 13, 0, NULL, 2, (ox_value *[]){sa, I64V(1, {2})}, &y), 0);
  ys = y->u.t.data;
  CHECK(y->u.t.n == 4 && !strcmp(ys[2].p, "x") && !strcmp(ys[3].p, "yz"));
  /* empty inputs: padding an empty axis gives all fill; the rest stay empty */
  ox_value *e = tensor(OX_FLOAT, 2, (int64_t[]){0, 2}, NULL);
  CHECK_EQ_I(run("Pad", 11, 0, NULL, 3, (ox_value *[]){e, I64V(4, {1, 0, 0, 1}), F32(0, DIMS(0), {4})}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(1, 3), {4, 4, 4}));
  ox_attr edge = attr_str("mode", "edge");
  CHECK_FAILS(run("Pad", 11, 1, &edge, 2, (ox_value *[]){e, I64V(4, {1, 0, 0, 0})}, &y),
              "axis 0 is empty; edge padding needs elements to copy");
  CHECK_EQ_I(run("Slice", 13, 0, NULL, 5, (ox_value *[]){e, I64V(1, {-1}), I64V(1, {INT64_MIN}),
                                                         I64V(1, {0}), I64V(1, {-1})}, &y), 0);
  CHECK(y->u.t.n == 0 && y->u.t.dims[0] == 0 && y->u.t.dims[1] == 2);
  ox_value *ys2[2];
  ox_attr ax1 = attr_int("axis", 1);
  CHECK_EQ_I(runn("Split", 13, 1, &ax1, 1, (ox_value *[]){e}, 2, ys2), 0);
  CHECK(ys2[0]->u.t.dims[0] == 0 && ys2[1]->u.t.dims[1] == 1);
  ox_attr bsz = attr_int("blocksize", 2);
  CHECK_EQ_I(run("DepthToSpace", 13, 1, &bsz, 1, (ox_value *[]){tensor(OX_FLOAT, 4, (int64_t[]){0, 4, 1, 1}, NULL)}, &y), 0);
  CHECK(y->u.t.n == 0 && y->u.t.dims[1] == 1 && y->u.t.dims[2] == 2);
  /* a sequence where a tensor is expected */
  ox_value *seq = NULL;
  ox_seq_new(A, ox_type_tensor(OX_FLOAT), 0, &seq, &E);
  CHECK_FAILS(run("Concat", 13, 1, &ax, 1, (ox_value *[]){seq}, &y), "expected a tensor");
}

int main(void) {
  A = ox_arena_new();
  test_table();
  test_concat();
  test_split();
  test_slice();
  test_expand_tile();
  test_pad();
  test_center_crop_pad();
  test_depth_space();
  test_reverse_sequence();
  test_random();
  test_small_cases();
  ox_arena_free(A);
  return check_done("tensor");
}
