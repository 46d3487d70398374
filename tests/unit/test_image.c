/* tests/unit/test_image.c: Resize, Upsample, GridSample, AffineGrid and
 * NonMaxSuppression called through the registry with a hand-made node.
 * Expected values are worked out by hand here (see the comments). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/half.h"
#include "core/threads.h"
#include "kit.h"

#define DIMS(...) (int64_t[]){__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, dims, (float[])__VA_ARGS__)
#define I64V(n, ...) tensor(OX_INT64, 1, DIMS(n), (int64_t[])__VA_ARGS__)

#define CLOSE(v, n, ...) CHECK(close_f32(v, n, (float[])__VA_ARGS__, 1e-5, 0))

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, 1, out);
}

static void test_resize(void) {
  ox_value *y = NULL;
  /* linear, half_pixel, x = [1, 2] scaled by 2: source coords -0.25, 0.25,
   * 0.75, 1.25 (the ends clamp): 1, 1.25, 1.75, 2 */
  {
    ox_attr at[] = {attr_str("mode", "linear")};
    ox_value *in[] = {F32(1, DIMS(2), {1, 2}), NULL, F32(1, DIMS(1), {2})};
    CHECK_EQ_I(run("Resize", 19, 1, at, 3, in, &y), 0);
    CHECK(shape_is(y, 1, DIMS(4)));
    CLOSE(y, 4, {1, 1.25f, 1.75f, 2});
  }
  /* scales give floor(in * scale): 3 * 0.6 = 1.8 -> 1; half_pixel nearest:
   * (0 + 0.5) / 0.6 - 0.5 = 0.333 -> index 0 */
  {
    ox_value *in[] = {F32(1, DIMS(3), {5, 6, 7}), NULL, F32(1, DIMS(1), {0.6f})};
    CHECK_EQ_I(run("Resize", 13, 0, NULL, 3, in, &y), 0);
    CHECK(shape_is(y, 1, DIMS(1)));
    CLOSE(y, 1, {5});
  }
  /* nearest_mode on a half: asymmetric, scale 2 on [10, 20] -> x = 0, 0.5, 1, 1.5;
   * round_prefer_floor takes 0.5 -> 0, round_prefer_ceil 0.5 -> 1, ceil 1.5 -> 2 (clamped 1) */
  {
    int32_t x[] = {10, 20};
    ox_value *in[] = {tensor(OX_INT32, 1, DIMS(2), x), NULL, F32(1, DIMS(1), {2})};
    ox_attr at[] = {attr_str("coordinate_transformation_mode", "asymmetric"),
                    attr_str("nearest_mode", "round_prefer_floor")};
    CHECK_EQ_I(run("Resize", 13, 2, at, 3, in, &y), 0);
    const int32_t *g = y->u.t.data;
    CHECK(y->u.t.dt == OX_INT32 && g[0] == 10 && g[1] == 10 && g[2] == 20 && g[3] == 20);
    at[1] = attr_str("nearest_mode", "round_prefer_ceil");
    CHECK_EQ_I(run("Resize", 13, 2, at, 3, in, &y), 0);
    g = y->u.t.data;
    CHECK(g[0] == 10 && g[1] == 20 && g[2] == 20 && g[3] == 20);
    at[1] = attr_str("nearest_mode", "floor");
    CHECK_EQ_I(run("Resize", 13, 2, at, 3, in, &y), 0);
    g = y->u.t.data;
    CHECK(g[0] == 10 && g[1] == 10 && g[2] == 20 && g[3] == 20);
  }
  /* integers in linear mode round half to even: uint8 [1, 2] to 3 with
   * align_corners -> 1, 1.5, 2 -> 1, 2, 2; [0, 1] -> 0, 0.5, 1 -> 0, 0, 1 */
  {
    uint8_t x[] = {1, 2, 0, 1};
    ox_value *in[] = {tensor(OX_UINT8, 2, DIMS(2, 2), x), NULL, NULL, I64V(2, {2, 3})};
    ox_attr at[] = {attr_str("mode", "linear"),
                    attr_str("coordinate_transformation_mode", "align_corners")};
    CHECK_EQ_I(run("Resize", 13, 2, at, 4, in, &y), 0);
    CHECK(shape_is(y, 2, DIMS(2, 3)));
    const uint8_t *g = y->u.t.data;
    CHECK(g[0] == 1 && g[1] == 2 && g[2] == 2 && g[3] == 0 && g[4] == 0 && g[5] == 1);
  }
  /* tf_crop_and_resize: roi [0.5, 1.5] on 3 elements [0, 10, 20] to 3:
   * x = o * 1 * 2 / 2 + 1 = 1, 2, 3 -> 10, 20, extrapolated (-1) */
  {
    ox_value *in[] = {F32(1, DIMS(3), {0, 10, 20}), F32(1, DIMS(2), {0.5f, 1.5f}), NULL,
                      I64V(1, {3})};
    ox_attr at[] = {attr_str("mode", "linear"),
                    attr_str("coordinate_transformation_mode", "tf_crop_and_resize"),
                    attr_float("extrapolation_value", -1)};
    CHECK_EQ_I(run("Resize", 13, 3, at, 4, in, &y), 0);
    CLOSE(y, 3, {10, 20, -1});
  }
  /* cubic with A = -0.5 at x = 0.5 between 4 points: weights -1/16, 9/16, 9/16, -1/16.
   * [0, 0, 16, 0] align_corners 4 -> 7: o = 3 is x = 1.5 (16 * 9/16 = 9), o = 4 is x = 2 */
  {
    ox_value *in[] = {F32(1, DIMS(4), {0, 0, 16, 0}), NULL, NULL, I64V(1, {7})};
    ox_attr at[] = {attr_str("mode", "cubic"), attr_float("cubic_coeff_a", -0.5f),
                    attr_str("coordinate_transformation_mode", "align_corners")};
    CHECK_EQ_I(run("Resize", 13, 3, at, 4, in, &y), 0);
    CHECK(y && fabs(((float *)y->u.t.data)[3] - 9) < 1e-5 &&
          fabs(((float *)y->u.t.data)[4] - 16) < 1e-5);
  }
  /* exclude_outside: [0, 16, 0] asymmetric scale 2, o = 1 is x = 0.5: taps -1..2
   * weigh -1/16, 9/16, 9/16, -1/16 (A = -0.5); tap -1 dropped, the rest sum to
   * 17/16: 16 * (9/16) / (17/16) = 144/17; kept (clamped) it is 9 */
  {
    ox_value *in[] = {F32(1, DIMS(3), {0, 16, 0}), NULL, F32(1, DIMS(1), {2})};
    ox_attr at[] = {attr_str("mode", "cubic"), attr_float("cubic_coeff_a", -0.5f),
                    attr_str("coordinate_transformation_mode", "asymmetric"),
                    attr_int("exclude_outside", 1)};
    CHECK_EQ_I(run("Resize", 13, 4, at, 3, in, &y), 0);
    CHECK(y && fabs(((float *)y->u.t.data)[1] - 144.0 / 17) < 1e-5);
    CHECK_EQ_I(run("Resize", 13, 3, at, 3, in, &y), 0);
    CHECK(y && fabs(((float *)y->u.t.data)[1] - 9) < 1e-5);
  }
  /* 18: axes and keep_aspect_ratio_policy not_larger: (2, 4) to sizes (4, 4)
   * on axes (0, 1) -> scale min(2, 1) = 1 -> (2, 4) unchanged */
  {
    ox_value *in[] = {F32(2, DIMS(2, 4), {1, 2, 3, 4, 5, 6, 7, 8}), NULL, NULL, I64V(2, {4, 4})};
    ox_attr at[] = {attr_str("keep_aspect_ratio_policy", "not_larger")};
    CHECK_EQ_I(run("Resize", 18, 1, at, 4, in, &y), 0);
    CHECK(shape_is(y, 2, DIMS(2, 4)));
    at[0] = attr_str("keep_aspect_ratio_policy", "not_smaller"); /* scale 2 -> (4, 8) */
    CHECK_EQ_I(run("Resize", 18, 1, at, 4, in, &y), 0);
    CHECK(shape_is(y, 2, DIMS(4, 8)));
  }
  /* nearest copies int64 exactly (2^62 + 1 does not fit a double) */
  {
    ox_value *in[] = {I64V(2, {((int64_t)1 << 62) + 1, -3}), NULL, F32(1, DIMS(1), {2})};
    CHECK_EQ_I(run("Resize", 19, 0, NULL, 3, in, &y), 0);
    const int64_t *g = y->u.t.data;
    CHECK(y->u.t.dt == OX_INT64 && g[0] == ((int64_t)1 << 62) + 1 && g[1] == g[0] && g[3] == -3);
  }
  /* float16 linear: [1, 2] (0x3C00, 0x4000) -> 1, 1.25, 1.75, 2 (0x3D00, 0x3F00
   * are exact in float16) */
  {
    uint16_t h[] = {0x3C00, 0x4000};
    ox_value *in[] = {tensor(OX_FLOAT16, 1, DIMS(2), h), NULL, F32(1, DIMS(1), {2})};
    ox_attr at[] = {attr_str("mode", "linear")};
    CHECK_EQ_I(run("Resize", 13, 1, at, 3, in, &y), 0);
    const uint16_t *g = y->u.t.data;
    CHECK(y->u.t.dt == OX_FLOAT16 && g[0] == 0x3C00 && g[1] == 0x3D00 && g[2] == 0x3F00 &&
          g[3] == 0x4000);
  }
  /* int8 linear saturates nothing but rounds: [-3, 4] align_corners to 3 ->
   * -3, 0.5, 4 -> -3, 0, 4 (half to even) */
  {
    int8_t x8[] = {-3, 4};
    ox_value *in[] = {tensor(OX_INT8, 1, DIMS(2), x8), NULL, NULL, I64V(1, {3})};
    ox_attr at[] = {attr_str("mode", "linear"),
                    attr_str("coordinate_transformation_mode", "align_corners")};
    CHECK_EQ_I(run("Resize", 13, 2, at, 4, in, &y), 0);
    const int8_t *g = y->u.t.data;
    CHECK(g[0] == -3 && g[1] == 0 && g[2] == 4);
  }
  /* errors */
  {
    ox_value *in[] = {F32(1, DIMS(2), {1, 2}), NULL, F32(1, DIMS(1), {2}), I64V(1, {4})};
    CHECK_FAILS(run("Resize", 13, 0, NULL, 4, in, &y), "only one of scales and sizes");
    ox_value *in2[] = {F32(1, DIMS(2), {1, 2}), NULL, F32(1, DIMS(2), {2, 2})};
    CHECK_FAILS(run("Resize", 13, 0, NULL, 3, in2, &y), "scales has 2 values for 1 axes");
    ox_value *in3[] = {F32(1, DIMS(2), {1, 2}), NULL, F32(1, DIMS(1), {-1})};
    CHECK_FAILS(run("Resize", 13, 0, NULL, 3, in3, &y), "not a positive");
    /* antialias at a tiny scale would need millions of taps */
    ox_value *in4[] = {tensor(OX_FLOAT, 1, DIMS(10000), NULL), NULL, F32(1, DIMS(1), {2e-4f})};
    ox_attr aa[] = {attr_str("mode", "linear"), attr_int("antialias", 1)};
    CHECK_FAILS(run("Resize", 18, 2, aa, 3, in4, &y), "too small for antialias");
    /* a huge scale is refused by the size checks, not crashed on */
    ox_value *in5[] = {F32(1, DIMS(2), {1, 2}), NULL, F32(1, DIMS(1), {1e30f})};
    CHECK_EQ_I(run("Resize", 13, 0, NULL, 3, in5, &y), OX_EINPUT);
    /* sizes 0: an empty output */
    ox_value *in6[] = {F32(1, DIMS(2), {1, 2}), NULL, NULL, I64V(1, {0})};
    CHECK_EQ_I(run("Resize", 13, 0, NULL, 4, in6, &y), 0);
    CHECK(shape_is(y, 1, DIMS(0)));
    ox_attr at[] = {attr_str("mode", "area")};
    CHECK_FAILS(run("Resize", 13, 1, at, 3, in2, &y), "mode 'area'");
  }
  /* Upsample-7: scales attribute, nearest repeats */
  {
    float sc[] = {1, 3};
    ox_attr at[] = {attr_floats("scales", 2, sc)};
    ox_value *in[] = {F32(2, DIMS(1, 2), {1, 2})};
    CHECK_EQ_I(run("Upsample", 7, 1, at, 1, in, &y), 0);
    CHECK(shape_is(y, 2, DIMS(1, 6)));
    CLOSE(y, 6, {1, 1, 1, 2, 2, 2});
  }
}

/* Linear and cubic over the last two axes of float32 run as one pass over
 * the output rows (ops/image.c, lin2_rows); its result must be the bytes of
 * the two passes it replaces, which are those of resizing along H alone,
 * then along W alone (each pass's result is float; the taps of an axis
 * depend on that axis only). Odd widths (the vector loops' tails), -0 and
 * large values in X, upsampling (AVX-512: windows of 16 per 8 outputs),
 * downsampling by more than 2 (gathers), cubic and antialias, and 1 and 2
 * threads. */
static void test_resize_two_axes(void) {
  static const struct {
    const char *mode, *ct;
    int opset, antialias;
    int64_t H, W, OH, OW;
  } cases[] = {
      {"linear", "half_pixel", 13, 0, 7, 13, 14, 26},     {"linear", "half_pixel", 13, 0, 16, 37, 32, 74},
      {"linear", "align_corners", 13, 0, 5, 9, 11, 23},   {"linear", "asymmetric", 13, 0, 6, 40, 9, 61},
      {"linear", "pytorch_half_pixel", 13, 0, 9, 50, 4, 17}, {"linear", "half_pixel", 13, 0, 12, 100, 5, 29},
      {"cubic", "half_pixel", 13, 0, 8, 21, 16, 42},      {"linear", "half_pixel", 18, 1, 20, 90, 7, 31},
      {"cubic", "half_pixel", 18, 1, 10, 33, 4, 12},
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    int64_t N = 2, C = 3, H = cases[ci].H, W = cases[ci].W, OH = cases[ci].OH, OW = cases[ci].OW;
    float *x = ox_alloc_array(A, N * C * H * W, sizeof *x);
    for (int64_t i = 0; i < N * C * H * W; i++)
      x[i] = i % 17 == 0 ? -0.0f : i % 29 == 0 ? 3e38f : ((float)(kit_rnd32() % 20001) - 10000.0f) / 997.0f;
    ox_attr at[] = {attr_str("mode", cases[ci].mode), attr_str("coordinate_transformation_mode", cases[ci].ct),
                    attr_int("antialias", 1)};
    int nat = cases[ci].antialias ? 3 : 2, op = cases[ci].opset;
    ox_value *X = tensor(OX_FLOAT, 4, DIMS(N, C, H, W), x), *t = NULL, *want = NULL, *got = NULL;
    ox_value *in_h[] = {X, NULL, NULL, I64V(4, {N, C, OH, W})};
    CHECK_EQ_I(run("Resize", op, nat, at, 4, in_h, &t), 0);
    if (!t) continue;
    ox_value *in_w[] = {t, NULL, NULL, I64V(4, {N, C, OH, OW})};
    CHECK_EQ_I(run("Resize", op, nat, at, 4, in_w, &want), 0);
    for (int th = 1; th <= 2 && want; th++) {
      ox_set_threads(th), ox_par_set_min(th > 1 ? 0 : -1, th > 1 ? 0 : -1);
      ox_value *in_b[] = {X, NULL, NULL, I64V(4, {N, C, OH, OW})};
      CHECK_EQ_I(run("Resize", op, nat, at, 4, in_b, &got), 0);
      ox_set_threads(1), ox_par_set_min(-1, -1);
      if (!got) continue;
      if (!same_bytes(got, OX_FLOAT, 4, DIMS(N, C, OH, OW), want->u.t.data)) {
        check_fail_++;
        fprintf(stderr, "resize two axes case %zu (%s %s), %d threads: not the two passes' bytes\n", ci,
                cases[ci].mode, cases[ci].ct, th);
      } else check_pass_++;
    }
    /* float16: computed in float from X widened, rounded once on store, so
     * the float32 result (of X rounded to float16, widened) rounded */
    uint16_t *xh = ox_alloc_array(A, N * C * H * W, sizeof *xh);
    float *xw = ox_alloc_array(A, N * C * H * W, sizeof *xw);
    ox_f32_to_f16_n(x, xh, N * C * H * W);
    ox_f16_to_f32_n(xh, xw, N * C * H * W);
    ox_value *in_f[] = {tensor(OX_FLOAT, 4, DIMS(N, C, H, W), xw), NULL, NULL, I64V(4, {N, C, OH, OW})};
    ox_value *in_hf[] = {tensor(OX_FLOAT16, 4, DIMS(N, C, H, W), xh), NULL, NULL, I64V(4, {N, C, OH, OW})};
    ox_value *yf = NULL, *yh = NULL;
    CHECK_EQ_I(run("Resize", op, nat, at, 4, in_f, &yf), 0);
    CHECK_EQ_I(run("Resize", op, nat, at, 4, in_hf, &yh), 0);
    if (!yf || !yh) continue;
    uint16_t *wh = ox_alloc_array(A, N * C * OH * OW, sizeof *wh);
    ox_f32_to_f16_n(yf->u.t.data, wh, N * C * OH * OW);
    CHECK(same_bytes(yh, OX_FLOAT16, 4, DIMS(N, C, OH, OW), wh));
  }
}

static void test_grid_sample(void) {
  ox_value *y = NULL;
  /* X: (1, 1, 2, 2) = [[1, 2], [3, 4]]; align_corners 0 maps -1..1 to -0.5..1.5:
   * (0, 0) is the centre: 2.5; (x=-1, y=-1) is (-0.5, -0.5): zeros padding gives
   * 1/4 of pixel (0, 0) = 0.25, border clamps to (0, 0) = 1 */
  ox_value *x = F32(4, DIMS(1, 1, 2, 2), {1, 2, 3, 4});
  ox_value *in[] = {x, F32(4, DIMS(1, 1, 2, 2), {0, 0, -1, -1})};
  CHECK_EQ_I(run("GridSample", 16, 0, NULL, 2, in, &y), 0);
  CHECK(shape_is(y, 4, DIMS(1, 1, 1, 2)));
  CLOSE(y, 2, {2.5f, 0.25f});
  ox_attr at[] = {attr_str("padding_mode", "border"), attr_str("mode", "bilinear")};
  CHECK_EQ_I(run("GridSample", 16, 2, at, 2, in, &y), 0);
  CLOSE(y, 2, {2.5f, 1});
  /* 20 names the mode "linear": "bilinear" is refused there */
  CHECK_FAILS(run("GridSample", 20, 2, at, 2, in, &y), "mode 'bilinear'");
  /* nearest rounds half to even: x = 0 with align_corners 1 on width 2 is 0.5
   * -> 0; grid (x=0.0, y=1) -> row 1, col 0 = 3 */
  ox_attr an[] = {attr_str("mode", "nearest"), attr_int("align_corners", 1)};
  ox_value *in2[] = {x, F32(4, DIMS(1, 1, 1, 2), {0, 1})};
  CHECK_EQ_I(run("GridSample", 20, 2, an, 2, in2, &y), 0);
  CLOSE(y, 1, {3});
  /* reflection, align_corners 1, 1-D (20): X = [0, 10, 20], x = 1.5 (grid
   * 2.0) -> 2 + 0.5 beyond the border 2 -> reflected to 1.5 -> 15 */
  ox_attr ar[] = {attr_str("padding_mode", "reflection"), attr_int("align_corners", 1)};
  ox_value *in3[] = {F32(3, DIMS(1, 1, 3), {0, 10, 20}), F32(3, DIMS(1, 1, 1), {1.5f})};
  CHECK_EQ_I(run("GridSample", 20, 2, ar, 2, in3, &y), 0);
  CLOSE(y, 1, {15});
  /* integers truncate toward zero, as the reference's assignment into an
   * array of X's type does (Resize rounds: saturate_cast). X = [0, 3, -3]
   * (1-D, align_corners 1): x = 0.5 -> 1.5 -> 1, x = 1.5 -> 0 -> 0, and
   * x = 1.25 (grid 0.25) -> 3 - 6 * 0.25 = 1.5 -> 1 */
  {
    int32_t xi[] = {0, 3, -3};
    ox_attr al[] = {attr_int("align_corners", 1)};
    ox_value *ini[] = {tensor(OX_INT32, 3, DIMS(1, 1, 3), xi),
                       F32(3, DIMS(1, 3, 1), {-0.5f, 0.5f, 0.25f})};
    CHECK_EQ_I(run("GridSample", 20, 1, al, 2, ini, &y), 0);
    const int32_t *g = y->u.t.data;
    CHECK(y->u.t.dt == OX_INT32 && shape_is(y, 3, DIMS(1, 1, 3)));
    CHECK_EQ_I(g[0], 1);
    CHECK_EQ_I(g[1], 0);
    CHECK_EQ_I(g[2], 1);
    int32_t xn[] = {0, -3};
    ox_value *inn[] = {tensor(OX_INT32, 3, DIMS(1, 1, 2), xn), F32(3, DIMS(1, 1, 1), {0})};
    CHECK_EQ_I(run("GridSample", 20, 1, al, 2, inn, &y), 0);
    CHECK_EQ_I(((const int32_t *)y->u.t.data)[0], -1); /* -1.5 -> -1 */
  }
  /* errors: mismatched grid */
  ox_value *bad[] = {x, F32(4, DIMS(1, 1, 1, 3), {0, 0, 0})};
  CHECK_FAILS(run("GridSample", 16, 0, NULL, 2, bad, &y), "grid must be");
}

static void test_affine_grid(void) {
  ox_value *y = NULL;
  /* identity theta, size (1, 1, 2, 3), align_corners 0: x = -2/3, 0, 2/3 and
   * y = -1/2, 1/2; the grid is (1, 2, 3, 2) of (x, y) */
  ox_value *in[] = {F32(3, DIMS(1, 2, 3), {1, 0, 0, 0, 1, 0}), I64V(4, {1, 1, 2, 3})};
  CHECK_EQ_I(run("AffineGrid", 20, 0, NULL, 2, in, &y), 0);
  CHECK(shape_is(y, 4, DIMS(1, 2, 3, 2)));
  float t = 2.0f / 3;
  CLOSE(y, 12, {-t, -0.5f, 0, -0.5f, t, -0.5f, -t, 0.5f, 0, 0.5f, t, 0.5f});
  /* align_corners 1 and a translation: x = -1, 0, 1 plus 0.5; y = -1, 1 times 2 */
  ox_attr at[] = {attr_int("align_corners", 1)};
  ox_value *in2[] = {F32(3, DIMS(1, 2, 3), {1, 0, 0.5f, 0, 2, 0}), I64V(4, {1, 1, 2, 3})};
  CHECK_EQ_I(run("AffineGrid", 20, 1, at, 2, in2, &y), 0);
  CLOSE(y, 12, {-0.5f, -2, 0.5f, -2, 1.5f, -2, -0.5f, 2, 0.5f, 2, 1.5f, 2});
  ox_value *bad[] = {F32(3, DIMS(1, 2, 3), {1, 0, 0, 0, 1, 0}), I64V(5, {1, 1, 2, 3, 4})};
  CHECK_FAILS(run("AffineGrid", 20, 0, NULL, 2, bad, &y), "theta must be (N, 3, 4)");
}

static void test_nms(void) {
  ox_value *y = NULL;
  /* boxes [y1, x1, y2, x2]: A = (0,0)-(1,1), B = (0,0.1)-(1,1.1) overlaps A with
   * IoU 0.9 / 1.1 = 0.818, C = (0,2)-(1,3) apart. Scores 0.9, 0.95, 0.5. */
  ox_value *boxes = F32(3, DIMS(1, 3, 4), {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3});
  ox_value *scores = F32(3, DIMS(1, 1, 3), {0.9f, 0.95f, 0.5f});
  ox_value *in[] = {boxes, scores, I64V(1, {3}), F32(1, DIMS(1), {0.5f}), NULL};
  CHECK_EQ_I(run("NonMaxSuppression", 11, 0, NULL, 4, in, &y), 0);
  CHECK(shape_is(y, 2, DIMS(2, 3)));
  const int64_t *g = y->u.t.data;
  CHECK(g[2] == 1 && g[5] == 2); /* B first (higher score), A suppressed, then C */
  /* IoU 0.818 is not > 0.82: A is kept */
  in[3] = F32(1, DIMS(1), {0.82f});
  CHECK_EQ_I(run("NonMaxSuppression", 11, 0, NULL, 4, in, &y), 0);
  CHECK(shape_is(y, 2, DIMS(3, 3)));
  /* score_threshold is strict: 0.5 drops C; max_output 1 keeps only B */
  in[3] = F32(1, DIMS(1), {0.5f});
  in[4] = F32(1, DIMS(1), {0.5f});
  CHECK_EQ_I(run("NonMaxSuppression", 11, 0, NULL, 5, in, &y), 0);
  CHECK(shape_is(y, 2, DIMS(1, 3)) && ((int64_t *)y->u.t.data)[2] == 1);
  in[2] = I64V(1, {1});
  in[4] = NULL;
  CHECK_EQ_I(run("NonMaxSuppression", 10, 0, NULL, 4, in, &y), 0);
  CHECK(shape_is(y, 2, DIMS(1, 3)) && ((int64_t *)y->u.t.data)[2] == 1);
  /* no max_output_boxes_per_class: nothing is selected */
  CHECK_EQ_I(run("NonMaxSuppression", 11, 0, NULL, 2, in, &y), 0);
  CHECK(shape_is(y, 2, DIMS(0, 3)));
  /* center_point_box 1: [xc, yc, w, h]; equal scores keep the lower index */
  ox_attr at[] = {attr_int("center_point_box", 1)};
  ox_value *in2[] = {F32(3, DIMS(1, 2, 4), {0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1}),
                     F32(3, DIMS(1, 1, 2), {0.7f, 0.7f}), I64V(1, {5})};
  CHECK_EQ_I(run("NonMaxSuppression", 11, 1, at, 3, in2, &y), 0);
  CHECK(shape_is(y, 2, DIMS(1, 3)) && ((int64_t *)y->u.t.data)[2] == 0);
  ox_value *bad[] = {F32(3, DIMS(1, 2, 3), {0, 0, 0, 0, 0, 0}), scores};
  CHECK_FAILS(run("NonMaxSuppression", 11, 0, NULL, 2, bad, &y), "boxes must be");
}

int main(void) {
  A = ox_arena_new();
  test_resize();
  test_resize_two_axes();
  test_grid_sample();
  test_affine_grid();
  test_nms();
  ox_arena_free(A);
  return check_done("image");
}
