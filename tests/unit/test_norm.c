/* tests/unit/test_norm.c: the normalizations and Dropout, called through the
 * registry with a hand-made node. Expected values are worked out here by hand
 * or with naive loops. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "core/threads.h"

#define DIMS(...) (int64_t[]){__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, dims, (float[])__VA_ARGS__)

#define CHECK_F32(v, n, ...) CHECK(close_f32(v, n, (float[])__VA_ARGS__, 1e-5, 1e-5))

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               int nout, ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, nout, out);
}

static void test_batchnorm(void) {
  /* x: (N=2, C=2, 2) */
  ox_value *x = F32(3, DIMS(2, 2, 2), {1, 3, 10, 20, 5, 7, 30, 40});
  ox_value *s = F32(1, DIMS(2), {2, 1}), *b = F32(1, DIMS(2), {1, -1});
  ox_value *m = F32(1, DIMS(2), {4, 25}), *v = F32(1, DIMS(2), {4, 100});
  ox_value *in[] = {x, s, b, m, v}, *out[5];
  ox_attr eps0 = attr_float("epsilon", 0);
  /* inference: (x - m) / sqrt(v) * s + b */
  CHECK_EQ_I(run("BatchNormalization", 15, 1, &eps0, 5, in, 1, out), 0);
  CHECK_F32(out[0], 8, {-2, 0, -2.5f, -1.5f, 2, 4, -0.5f, 0.5f});
  /* training (15): channel 0 = {1, 3, 5, 7}: mean 4, var 5; channel 1 =
   * {10, 20, 30, 40}: mean 25, var 125. momentum 0.5: running = (in + batch) / 2 */
  ox_attr at[] = {eps0, attr_int("training_mode", 1), attr_float("momentum", 0.5f)};
  CHECK_EQ_I(run("BatchNormalization", 15, 3, at, 5, in, 3, out), 0);
  double r5 = 1 / sqrt(5.0), r125 = 1 / sqrt(125.0);
  CHECK_F32(out[0], 8, {(float)(-3 * r5 * 2 + 1), (float)(-1 * r5 * 2 + 1), (float)(-15 * r125 - 1),
                        (float)(-5 * r125 - 1), (float)(1 * r5 * 2 + 1), (float)(3 * r5 * 2 + 1),
                        (float)(5 * r125 - 1), (float)(15 * r125 - 1)});
  CHECK_F32(out[1], 2, {4, 25});
  CHECK_F32(out[2], 2, {4.5f, 112.5f});
  /* extra outputs without training_mode are an error (14 on) */
  CHECK(run("BatchNormalization", 15, 1, &eps0, 5, in, 3, out) == OX_EINPUT);
  /* a parameter of the wrong size */
  ox_value *bad[] = {x, F32(1, DIMS(3), {1, 1, 1}), b, m, v};
  CHECK(run("BatchNormalization", 9, 0, NULL, 5, bad, 1, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "one per channel") != NULL);
  /* spatial = 0 (7): one parameter per (c, d) feature */
  ox_value *s4 = F32(2, DIMS(2, 2), {1, 1, 1, 2}), *b4 = F32(2, DIMS(2, 2), {0, 0, 0, 0});
  ox_value *m4 = F32(2, DIMS(2, 2), {0, 0, 0, 20}), *v4 = F32(2, DIMS(2, 2), {1, 1, 1, 4});
  ox_value *in7[] = {x, s4, b4, m4, v4};
  ox_attr sp[] = {eps0, attr_int("spatial", 0)};
  CHECK_EQ_I(run("BatchNormalization", 7, 2, sp, 5, in7, 1, out), 0);
  CHECK_F32(out[0], 8, {1, 3, 10, 0, 5, 7, 30, 20});
}

static void test_instance_group(void) {
  /* x: (1, 4, 2); channel 3 is constant, so its output is the bias alone */
  ox_value *x = F32(3, DIMS(1, 4, 2), {0, 2, 1, 3, -1, 1, 5, 5});
  ox_value *s = F32(1, DIMS(4), {1, 2, 3, 4}), *b = F32(1, DIMS(4), {0, 0, 1, 7});
  ox_value *in[] = {x, s, b}, *out[1];
  ox_attr eps0 = attr_float("epsilon", 0);
  CHECK_EQ_I(run("InstanceNormalization", 6, 0, NULL, 3, in, 1, out), 0); /* epsilon 1e-5 */
  CHECK_F32(out[0], 8, {-1, 1, -2, 2, -2, 4, 7, 7});
  /* GroupNormalization-21, 2 groups: {0, 2, 1, 3} mean 1.5 var 1.25;
   * {-1, 1, 5, 5} mean 2.5 var 6.75; scale per channel */
  ox_attr ga[] = {eps0, attr_int("num_groups", 2)};
  CHECK_EQ_I(run("GroupNormalization", 21, 2, ga, 3, in, 1, out), 0);
  double i1 = 1 / sqrt(1.25), i2 = 1 / sqrt(6.75);
  CHECK_F32(out[0], 8, {(float)(-1.5 * i1), (float)(0.5 * i1), (float)(-0.5 * i1 * 2),
                        (float)(1.5 * i1 * 2), (float)(-3.5 * i2 * 3 + 1), (float)(-1.5 * i2 * 3 + 1),
                        (float)(2.5 * i2 * 4 + 7), (float)(2.5 * i2 * 4 + 7)});
  /* GroupNormalization-18: scale and bias per group */
  ox_value *in18[] = {x, F32(1, DIMS(2), {2, 1}), F32(1, DIMS(2), {0, 1})};
  CHECK_EQ_I(run("GroupNormalization", 18, 2, ga, 3, in18, 1, out), 0);
  CHECK_F32(out[0], 8, {(float)(-1.5 * i1 * 2), (float)(0.5 * i1 * 2), (float)(-0.5 * i1 * 2),
                        (float)(1.5 * i1 * 2), (float)(-3.5 * i2 + 1), (float)(-1.5 * i2 + 1),
                        (float)(2.5 * i2 + 1), (float)(2.5 * i2 + 1)});
  /* 21 rejects per-group parameters; 3 groups do not divide 4 channels */
  CHECK(run("GroupNormalization", 21, 2, ga, 3, in18, 1, out) == OX_EINPUT);
  ox_attr g3[] = {eps0, attr_int("num_groups", 3)};
  CHECK(run("GroupNormalization", 21, 2, g3, 3, in, 1, out) == OX_EINPUT);
  CHECK(strstr(E.msg, "divide") != NULL);
}

static void test_layer_rms(void) {
  /* x: (2, 2), axis 1: rows {1, 3} (mean 2, var 1) and {2, 2} (var 0) */
  ox_value *x = F32(2, DIMS(2, 2), {1, 3, 2, 2});
  ox_value *s = F32(1, DIMS(2), {1, 2}), *b = F32(1, DIMS(2), {0.5f, 0});
  ox_value *in[] = {x, s, b}, *out[3];
  ox_attr la[] = {attr_float("epsilon", 0), attr_int("axis", 1)};
  CHECK_EQ_I(run("LayerNormalization", 17, 2, la, 3, in, 3, out), 0);
  /* the row of zero variance, with epsilon 0, is 0 * inf = NaN */
  const float *y = out[0]->u.t.data;
  CHECK(y[0] == -0.5f && y[1] == 2 && isnan(y[2]) && isnan(y[3]));
  CHECK(out[1] && out[1]->u.t.rank == 2 && out[1]->u.t.dims[0] == 2 && out[1]->u.t.dims[1] == 1);
  CHECK_F32(out[1], 2, {2, 2});
  CHECK(out[2] && ((float *)out[2]->u.t.data)[0] == 1 && isinf(((float *)out[2]->u.t.data)[1]));
  /* with epsilon 1 and no bias; float16 input rounds once */
  uint16_t h[4] = {ox_f32_to_f16(1), ox_f32_to_f16(3), ox_f32_to_f16(2), ox_f32_to_f16(2)};
  uint16_t hs[2] = {ox_f32_to_f16(1), ox_f32_to_f16(1)};
  ox_value *inh[] = {tensor(OX_FLOAT16, 2, DIMS(2, 2), h), tensor(OX_FLOAT16, 1, DIMS(2), hs)};
  ox_attr le[] = {attr_float("epsilon", 1)};
  CHECK_EQ_I(run("LayerNormalization", 17, 1, le, 2, inh, 1, out), 0);
  CHECK(out[0]->u.t.dt == OX_FLOAT16);
  CHECK(out[0]->u.t.dt == OX_FLOAT16 &&
        ((uint16_t *)out[0]->u.t.data)[0] == ox_f32_to_f16((float)(-1 / sqrt(2.0))) &&
        ((uint16_t *)out[0]->u.t.data)[2] == ox_f32_to_f16(0));
  /* a scale that does not broadcast */
  ox_value *bad[] = {x, F32(1, DIMS(3), {1, 1, 1})};
  CHECK(run("LayerNormalization", 17, 2, la, 2, bad, 1, out) == OX_EINPUT);
  /* RMSNormalization-23: {3, 4}: rms sqrt(12.5); scale broadcast over rows */
  ox_value *xr = F32(2, DIMS(2, 2), {3, 4, 0, 2});
  ox_value *inr[] = {xr, F32(1, DIMS(2), {1, 10})};
  ox_attr ra[] = {attr_float("epsilon", 0)};
  CHECK_EQ_I(run("RMSNormalization", 23, 1, ra, 2, inr, 1, out), 0);
  CHECK_F32(out[0], 4, {(float)(3 / sqrt(12.5)), (float)(40 / sqrt(12.5)), 0, (float)(20 / sqrt(2.0))});
}

/* LayerNormalization-17 on float16 and bfloat16 (a float16 BERT's every
 * LayerNormalization): rows of 300 (not a multiple of the 8 lanes) at 1
 * and 3 threads, with and without a bias, against a double loop (mean,
 * then the squared deviations, y = ((x - m) inv) s + b) rounded once
 * through float as every small-float kernel rounds; Mean and InvStdDev
 * (float, stash_type 1) to a float's rounding of the same. */
static void layer_small_case(ox_dtype dt, int with_bias, int threads) {
  enum { ROWS = 37, LEN = 300 };
  uint16_t *hx = malloc(ROWS * LEN * 2), hs[LEN], hb[LEN];
  uint32_t seed = 12345u + (uint32_t)dt * 7u + (uint32_t)with_bias;
  float (*wid)(uint16_t) = dt == OX_FLOAT16 ? ox_f16_to_f32 : ox_bf16_to_f32;
  uint16_t (*nar)(float) = dt == OX_FLOAT16 ? ox_f32_to_f16 : ox_f32_to_bf16;
  for (int i = 0; i < ROWS * LEN + 2 * LEN; i++) {
    seed = seed * 1664525u + 1013904223u;
    float v = (float)((int32_t)(seed >> 8) - (1 << 23)) / (float)(1 << 22); /* [-2, 2) */
    if (i < ROWS * LEN) hx[i] = nar(v + (float)(i / LEN % 5));               /* rows of different means */
    else if (i < ROWS * LEN + LEN) hs[i - ROWS * LEN] = nar(v);
    else hb[i - ROWS * LEN - LEN] = nar(v);
  }
  ox_value *in[3] = {tensor(dt, 2, DIMS(ROWS, LEN), hx), tensor(dt, 1, DIMS(LEN), hs), tensor(dt, 1, DIMS(LEN), hb)};
  ox_value *out[3] = {NULL};
  ox_attr la[] = {attr_float("epsilon", 1e-5f), attr_int("axis", -1)};
  ox_set_threads(threads);
  CHECK_EQ_I(run("LayerNormalization", 17, 2, la, with_bias ? 3 : 2, in, 3, out), 0);
  ox_set_threads(1);
  int bad = 0;
  if (!out[0] || out[0]->u.t.dt != dt || out[0]->u.t.n != ROWS * LEN || !out[1] || !out[2]) bad = -1;
  for (int r = 0; bad >= 0 && r < ROWS; r++) {
    double m = 0, v = 0;
    for (int j = 0; j < LEN; j++) m += wid(hx[r * LEN + j]);
    m /= LEN;
    for (int j = 0; j < LEN; j++) v += (wid(hx[r * LEN + j]) - m) * (wid(hx[r * LEN + j]) - m);
    v /= LEN;
    double inv = 1 / sqrt(v + (double)1e-5f);
    for (int j = 0; j < LEN; j++) {
      double y = ((wid(hx[r * LEN + j]) - m) * inv) * wid(hs[j]);
      if (with_bias) y += wid(hb[j]);
      bad += ((uint16_t *)out[0]->u.t.data)[r * LEN + j] != nar((float)y);
    }
    bad += ((float *)out[1]->u.t.data)[r] != (float)m || ((float *)out[2]->u.t.data)[r] != (float)inv;
  }
  if (bad) fprintf(stderr, "LayerNormalization %s, bias %d, %d threads: %d wrong\n", ox_dtypes[dt].onnx_name, with_bias,
                   threads, bad);
  CHECK_EQ_I(bad, 0);
  free(hx);
}

/* float LayerNormalization split over 3 threads down to single rows
 * (ox_par_set_min(0, 0)): the same bytes as on one thread, each row within
 * a float's error of a double computation. The float rows have no widening
 * buffer; the slots past 0 once formed theirs as NULL + an offset (19e8626):
 * undefined, which clang's UBSan reports; GCC's, which the sanitized build
 * uses, does not, so this covers the split rather than catching that. */
static void test_layer_float_threads(void) {
  enum { ROWS = 37, LEN = 300 };
  float *x = malloc(ROWS * LEN * 4), s[LEN];
  uint32_t seed = 777u;
  for (int i = 0; i < ROWS * LEN + LEN; i++) {
    seed = seed * 1664525u + 1013904223u;
    float v = (float)((int32_t)(seed >> 8) - (1 << 23)) / (float)(1 << 22); /* [-2, 2) */
    if (i < ROWS * LEN) x[i] = v + (float)(i / LEN % 5);
    else s[i - ROWS * LEN] = v;
  }
  ox_value *in[2] = {tensor(OX_FLOAT, 2, DIMS(ROWS, LEN), x), tensor(OX_FLOAT, 1, DIMS(LEN), s)};
  ox_value *o1[3] = {NULL}, *o3[3] = {NULL};
  ox_attr la[] = {attr_float("epsilon", 1e-5f), attr_int("axis", -1)};
  CHECK_EQ_I(run("LayerNormalization", 17, 2, la, 2, in, 1, o1), 0);
  ox_set_threads(3), ox_par_set_min(0, 0);
  CHECK_EQ_I(run("LayerNormalization", 17, 2, la, 2, in, 1, o3), 0);
  ox_set_threads(1), ox_par_set_min(-1, -1);
  int ok = o1[0] && o3[0] && o1[0]->u.t.n == ROWS * LEN && o3[0]->u.t.n == ROWS * LEN;
  CHECK(ok && !memcmp(o1[0]->u.t.data, o3[0]->u.t.data, ROWS * LEN * 4));
  double worst = 0;
  for (int r = 0; ok && r < ROWS; r++) {
    double m = 0, v = 0;
    for (int j = 0; j < LEN; j++) m += x[r * LEN + j];
    m /= LEN;
    for (int j = 0; j < LEN; j++) v += (x[r * LEN + j] - m) * (x[r * LEN + j] - m);
    double inv = 1 / sqrt(v / LEN + (double)1e-5f);
    for (int j = 0; j < LEN; j++) {
      double e = fabs(((float *)o3[0]->u.t.data)[r * LEN + j] - (x[r * LEN + j] - m) * inv * s[j]);
      if (e > worst) worst = e;
    }
  }
  CHECK(ok && worst < 1e-5);
  free(x);
}

static void test_layer_small_floats(void) {
  for (int t = 1; t <= 3; t += 2) {
    layer_small_case(OX_FLOAT16, 1, t);
    layer_small_case(OX_FLOAT16, 0, t);
    layer_small_case(OX_BFLOAT16, 1, t);
  }
}

static void test_lp_mvn_lrn(void) {
  ox_value *x = F32(2, DIMS(2, 3), {1, -2, 1, 0, 0, 0}), *out[2];
  ox_value *in[] = {x};
  ox_attr p1[] = {attr_int("p", 1)}, ax0[] = {attr_int("axis", 0)}, p3[] = {attr_int("p", 3)};
  CHECK_EQ_I(run("LpNormalization", 1, 1, p1, 1, in, 1, out), 0);
  CHECK_F32(out[0], 6, {0.25f, -0.5f, 0.25f, 0, 0, 0}); /* a zero norm gives 0 */
  CHECK_EQ_I(run("LpNormalization", 22, 1, ax0, 1, in, 1, out), 0);
  CHECK_F32(out[0], 6, {1, -1, 1, 0, 0, 0});
  CHECK(run("LpNormalization", 22, 1, p3, 1, in, 1, out) == OX_EINPUT);
  /* MVN over axis 1 of (2, 3): row {1, -2, 1} mean 0, var 2; constant row gives 0 */
  int64_t axes[] = {1};
  ox_attr ma[] = {{.name = "axes", .type = OX_ATTR_INTS, .n = 1, .ints = axes}};
  CHECK_EQ_I(run("MeanVarianceNormalization", 13, 1, ma, 1, in, 1, out), 0);
  double r2 = 1 / (sqrt(2.0) + 1e-9);
  CHECK_F32(out[0], 6, {(float)r2, (float)(-2 * r2), (float)r2, 0, 0, 0});
  /* MVN with axes {0}: columns {1, 0}, {-2, 0}, {1, 0} */
  int64_t axes0[] = {0};
  ox_attr m0[] = {{.name = "axes", .type = OX_ATTR_INTS, .n = 1, .ints = axes0}};
  CHECK_EQ_I(run("MeanVarianceNormalization", 9, 1, m0, 1, in, 1, out), 0);
  CHECK_F32(out[0], 6, {1, -1, 1, -1, 1, -1});
  /* LRN size 2 over (1, 3, 1): window {c, c+1}: squares 1, 4, 9 */
  ox_value *xl[] = {F32(3, DIMS(1, 3, 1), {1, 2, 3})};
  ox_attr la[] = {attr_int("size", 2), attr_float("alpha", 2), attr_float("beta", 1),
                  attr_float("bias", 1)};
  CHECK_EQ_I(run("LRN", 13, 4, la, 1, xl, 1, out), 0);
  CHECK_F32(out[0], 3, {1.0f / 6, 2.0f / 14, 3.0f / 10});
}

static void test_dropout(void) {
  ox_value *x = F32(1, DIMS(4), {1, 2, 3, 4}), *out[2];
  float r0 = 0, r5 = 0.5f, r2 = 2;
  uint8_t t1 = 1;
  ox_value *tm = tensor(OX_BOOL, 0, NULL, &t1);
  /* training with ratio 0 is the identity; the mask is all true */
  ox_value *in[] = {x, tensor(OX_FLOAT, 0, NULL, &r0), tm};
  CHECK_EQ_I(run("Dropout", 13, 0, NULL, 3, in, 2, out), 0);
  CHECK_F32(out[0], 4, {1, 2, 3, 4});
  CHECK(out[1]->u.t.dt == OX_BOOL && !memcmp(out[1]->u.t.data, "\1\1\1\1", 4));
  /* inference (no training_mode): ratio ignored */
  ox_value *in2[] = {x, tensor(OX_FLOAT, 0, NULL, &r5)};
  CHECK_EQ_I(run("Dropout", 12, 0, NULL, 2, in2, 1, out), 0);
  CHECK_F32(out[0], 4, {1, 2, 3, 4});
  /* training with ratio 0.5: kept elements doubled, the mask says which */
  ox_value *in3[] = {x, tensor(OX_FLOAT, 0, NULL, &r5), tm};
  ox_attr seed[] = {attr_int("seed", 0)};
  CHECK_EQ_I(run("Dropout", 22, 1, seed, 3, in3, 2, out), 0);
  int ok = 1;
  for (int i = 0; i < 4; i++) {
    float g = ((float *)out[0]->u.t.data)[i];
    ok &= ((uint8_t *)out[1]->u.t.data)[i] ? g == 2 * (i + 1) : g == 0;
  }
  CHECK(ok);
  /* numpy RandomState(0).uniform(0, 1, 4) = 0.5488, 0.7152, 0.6028, 0.5449: all >= 0.5 */
  CHECK(!memcmp(out[1]->u.t.data, "\1\1\1\1", 4));
  /* a ratio outside [0, 1] */
  ox_value *in4[] = {x, tensor(OX_FLOAT, 0, NULL, &r2), tm};
  CHECK(run("Dropout", 13, 0, NULL, 3, in4, 1, out) == OX_EINPUT);
  /* before 10 the mask has the data's type */
  ox_value *in7[] = {x};
  CHECK_EQ_I(run("Dropout", 7, 0, NULL, 1, in7, 2, out), 0);
  CHECK_F32(out[1], 4, {1, 1, 1, 1});
}

/* Empty inputs give empty outputs, whatever the other dims. */
static void test_empty(void) {
  ox_value *x = tensor(OX_FLOAT, 3, DIMS(0, 3, (int64_t)1 << 40), NULL), *out[3];
  ox_value *p = F32(1, DIMS(3), {1, 1, 1});
  ox_value *in[] = {x, p, p, p, p};
  CHECK_EQ_I(run("BatchNormalization", 15, 0, NULL, 5, in, 1, out), 0);
  CHECK(out[0] && out[0]->u.t.n == 0 && out[0]->u.t.rank == 3);
  CHECK_EQ_I(run("InstanceNormalization", 22, 0, NULL, 3, in, 1, out), 0);
  CHECK(out[0] && out[0]->u.t.n == 0);
  CHECK_EQ_I(run("LRN", 13, 1, (ox_attr[]){attr_int("size", 3)}, 1, in, 1, out), 0);
  CHECK(out[0] && out[0]->u.t.n == 0);
  CHECK_EQ_I(run("MeanVarianceNormalization", 13, 0, NULL, 1, in, 1, out), 0);
  CHECK(out[0] && out[0]->u.t.n == 0);
}

int main(void) {
  A = ox_arena_new();
  test_batchnorm();
  test_instance_group();
  test_layer_rms();
  test_layer_small_floats();
  test_layer_float_threads();
  test_lp_mvn_lrn();
  test_dropout();
  test_empty();
  ox_arena_free(A);
  return check_done("norm");
}
