/* tests/unit/test_signal.c: DFT, STFT, the windows, MelWeightMatrix and the
 * losses (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), called through
 * the registry with a hand-made node. Expected values come from naive O(n^2)
 * transforms in double and hand arithmetic. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KIT_IN_NAMES {"a", "b", "c", "d", "e"}
#define KIT_OUT_NAMES {"y", "z"}
#include "kit.h"
#include "core/fft.h"

#define DIMS(...) (int64_t[]){__VA_ARGS__}
#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, dims, (float[])__VA_ARGS__)
static ox_value *i64s(int64_t v) { return tensor(OX_INT64, 0, NULL, &v); }

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               int nout, ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, nout, out);
}

static unsigned rng = 12345;
static double rnd(void) {
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* Naive DFT of n complex values (zero padded / truncated from len). */
static void naive_dft(const double *re, const double *im, int64_t len, int64_t n, int inv,
                      double *ore, double *oim) {
  for (int64_t k = 0; k < n; k++) {
    double sr = 0, si = 0;
    for (int64_t j = 0; j < n && j < len; j++) {
      double t = (inv ? 2 : -2) * M_PI * (double)((k * j) % n) / (double)n;
      sr += re[j] * cos(t) - im[j] * sin(t);
      si += re[j] * sin(t) + im[j] * cos(t);
    }
    ore[k] = inv ? sr / (double)n : sr, oim[k] = inv ? si / (double)n : si;
  }
}

/* Complex DFT of lengths covering the radix-2/4/8, odd-radix, generic and Bluestein paths,
 * forward and inverse, with dft_length padding and truncation, in double. */
static void test_dft_lengths(void) {
  static const int64_t lens[][2] = {{5, 5}, {8, 8}, {16, 16}, {17, 17}, {100, 100},
                                    {7, 12}, {12, 7}, {1000, 1000}, {3, 1}};
  for (size_t t = 0; t < sizeof lens / sizeof *lens; t++)
    for (int inv = 0; inv < 2; inv++) {
      int64_t len = lens[t][0], n = lens[t][1];
      double x[2000], re[1000], im[1000], wr[1000], wi[1000];
      for (int64_t j = 0; j < len; j++) re[j] = x[2 * j] = rnd(), im[j] = x[2 * j + 1] = rnd();
      /* x: (1, len, 2) */
      ox_value *xv = tensor(OX_DOUBLE, 3, DIMS(1, len, 2), x), *y;
      ox_attr at = attr_int("inverse", inv);
      CHECK_EQ_I(run("DFT", 20, 1, &at, 2, (ox_value *[]){xv, i64s(n)}, 1, &y), 0);
      CHECK(shape_is(y, 3, DIMS(1, n, 2)));
      naive_dft(re, im, len, n, inv, wr, wi);
      double want[2000];
      for (int64_t k = 0; k < n; k++) want[2 * k] = wr[k], want[2 * k + 1] = wi[k];
      CHECK(close_d(y, 2 * n, want, 1e-9, 1e-9));
    }
}

/* RFFT of a real signal, then IRFFT back (DFT-20, onesided): odd and even n. */
static void test_rfft_irfft(void) {
  for (int64_t n = 5; n <= 8; n++) {
    double x[8], re[8], zero[8] = {0}, wr[8], wi[8];
    for (int64_t j = 0; j < n; j++) re[j] = x[j] = rnd();
    ox_value *xv = tensor(OX_DOUBLE, 3, DIMS(1, n, 1), x), *y, *z;
    ox_attr a1 = attr_int("onesided", 1);
    CHECK_EQ_I(run("DFT", 20, 1, &a1, 1, (ox_value *[]){xv}, 1, &y), 0);
    int64_t h = n / 2 + 1;
    CHECK(shape_is(y, 3, DIMS(1, h, 2)));
    naive_dft(re, zero, n, n, 0, wr, wi);
    double want[16];
    for (int64_t k = 0; k < h; k++) want[2 * k] = wr[k], want[2 * k + 1] = wi[k];
    CHECK(close_d(y, 2 * h, want, 1e-9, 1e-9));
    /* back: the one-sided spectrum and dft_length n give the real signal */
    ox_attr a2[] = {attr_int("onesided", 1), attr_int("inverse", 1)};
    CHECK_EQ_I(run("DFT", 20, 2, a2, 2, (ox_value *[]){y, i64s(n)}, 1, &z), 0);
    CHECK(shape_is(z, 3, DIMS(1, n, 1)));
    CHECK(close_d(z, n, x, 1e-9, 1e-9));
  }
}

/* DFT-17 takes axis as an attribute (default 1), DFT-20 as input 2 (default
 * -2); a transform along the first signal dim of a (2, 3, 4, 1) input. */
static void test_dft_axis(void) {
  double x[24], want[48];
  for (int i = 0; i < 24; i++) x[i] = rnd();
  /* along axis 1 (length 3) for each (b, k) */
  for (int b = 0; b < 2; b++)
    for (int k = 0; k < 4; k++) {
      double re[3], zero[3] = {0}, wr[3], wi[3];
      for (int j = 0; j < 3; j++) re[j] = x[b * 12 + j * 4 + k];
      naive_dft(re, zero, 3, 3, 0, wr, wi);
      for (int j = 0; j < 3; j++) {
        want[((b * 3 + j) * 4 + k) * 2] = wr[j];
        want[((b * 3 + j) * 4 + k) * 2 + 1] = wi[j];
      }
    }
  ox_value *xv = tensor(OX_DOUBLE, 4, DIMS(2, 3, 4, 1), x), *y;
  CHECK_EQ_I(run("DFT", 17, 0, NULL, 1, (ox_value *[]){xv}, 1, &y), 0);
  CHECK(shape_is(y, 4, DIMS(2, 3, 4, 2)));
  CHECK(close_d(y, 48, want, 1e-9, 1e-9));
  CHECK_EQ_I(run("DFT", 20, 0, NULL, 3, (ox_value *[]){xv, NULL, i64s(-3)}, 1, &y), 0);
  CHECK(close_d(y, 48, want, 1e-9, 1e-9));
  /* the last dim holds the complex parts: not an axis */
  CHECK_EQ_I(run("DFT", 20, 0, NULL, 3, (ox_value *[]){xv, NULL, i64s(-1)}, 1, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "axis -1") != NULL);
  CHECK_EQ_I(run("DFT", 20, 0, NULL, 3, (ox_value *[]){xv, NULL, i64s(3)}, 1, &y), OX_EINPUT);
  /* float16 input rounds once on store */
  ox_value *h = tensor(OX_FLOAT16, 2, DIMS(2, 1), (uint16_t[]){0x3c00, 0x4000}); /* 1, 2 */
  CHECK_EQ_I(run("DFT", 20, 1, (ox_attr[]){attr_int("onesided", 0)}, 3,
                 (ox_value *[]){h, NULL, i64s(0)}, 1, &y), 0);
  CHECK(close_d(y, 4, (double[]){3, 0, -1, 0}, 0, 0));
  /* onesided: RFFT takes real input only, IRFFT complex only (DFT-17/20) */
  CHECK_EQ_I(run("DFT", 20, 2, (ox_attr[]){attr_int("onesided", 1), attr_int("inverse", 1)}, 1,
                 (ox_value *[]){xv}, 1, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "needs complex input") != NULL);
  ox_value *cx = tensor(OX_DOUBLE, 2, DIMS(2, 2), (double[]){1, 0, 2, 0});
  CHECK_EQ_I(run("DFT", 17, 2, (ox_attr[]){attr_int("onesided", 1), attr_int("axis", 0)}, 1, (ox_value *[]){cx}, 1, &y),
             OX_EINPUT);
  CHECK(strstr(E.msg, "needs real input") != NULL);
}

static void test_windows(void) {
  ox_value *y;
  /* Hann periodic, 4: sin^2(pi n / 4) */
  CHECK_EQ_I(run("HannWindow", 17, 0, NULL, 1, (ox_value *[]){i64s(4)}, 1, &y), 0);
  CHECK(y && y->u.t.dt == OX_FLOAT && shape_is(y, 1, DIMS(4)));
  CHECK(close_d(y, 4, (double[]){0, 0.5, 1, 0.5}, 1e-7, 1e-7));
  /* symmetric, 5 */
  ox_attr sym = attr_int("periodic", 0);
  CHECK_EQ_I(run("HannWindow", 17, 1, &sym, 1, (ox_value *[]){i64s(5)}, 1, &y), 0);
  CHECK(close_d(y, 5, (double[]){0, 0.5, 1, 0.5, 0}, 1e-7, 1e-7));
  /* Hamming 25/46 - 21/46 cos(2 pi n / N), periodic N = 4 */
  CHECK_EQ_I(run("HammingWindow", 17, 0, NULL, 1, (ox_value *[]){i64s(4)}, 1, &y), 0);
  CHECK(close_d(y, 4, (double[]){4.0 / 46, 25.0 / 46, 46.0 / 46, 25.0 / 46}, 1e-7, 1e-7));
  /* Blackman symmetric, 3: 0.42 - 0.5 cos(pi n) + 0.08 cos(2 pi n) */
  CHECK_EQ_I(run("BlackmanWindow", 17, 1, &sym, 1, (ox_value *[]){i64s(3)}, 1, &y), 0);
  CHECK(close_d(y, 3, (double[]){0, 1, 0}, 1e-6, 1e-6));
  /* output_datatype double and int32 (truncated) */
  ox_attr dd[] = {attr_int("output_datatype", OX_DOUBLE)};
  CHECK_EQ_I(run("HannWindow", 17, 1, dd, 1, (ox_value *[]){i64s(4)}, 1, &y), 0);
  CHECK(y && y->u.t.dt == OX_DOUBLE);
  ox_attr di[] = {attr_int("output_datatype", OX_INT32)};
  CHECK_EQ_I(run("HannWindow", 17, 1, di, 1, (ox_value *[]){i64s(4)}, 1, &y), 0);
  CHECK(y && y->u.t.dt == OX_INT32 && close_d(y, 4, (double[]){0, 0, 1, 0}, 0, 0));
  ox_attr ds[] = {attr_int("output_datatype", OX_STRING)};
  CHECK_EQ_I(run("HannWindow", 17, 1, ds, 1, (ox_value *[]){i64s(4)}, 1, &y), OX_EINPUT);
  CHECK_EQ_I(run("HannWindow", 17, 0, NULL, 1, (ox_value *[]){i64s(-1)}, 1, &y), OX_EINPUT);
}

/* STFT against naive DFTs of windowed frames; onesided default. */
static void test_stft(void) {
  double x[2 * 10], w[4] = {0.5, 1, 1, 0.5};
  for (int i = 0; i < 20; i++) x[i] = rnd();
  ox_value *xv = tensor(OX_DOUBLE, 3, DIMS(2, 10, 1), x), *wv = tensor(OX_DOUBLE, 1, DIMS(4), w), *y;
  CHECK_EQ_I(run("STFT", 17, 0, NULL, 3, (ox_value *[]){xv, i64s(3), wv}, 1, &y), 0);
  /* frames 1 + (10 - 4) / 3 = 3, bins 4/2 + 1 = 3 */
  CHECK(shape_is(y, 4, DIMS(2, 3, 3, 2)));
  double want[36];
  for (int b = 0; b < 2; b++)
    for (int f = 0; f < 3; f++) {
      double re[4], zero[4] = {0}, wr[4], wi[4];
      for (int t = 0; t < 4; t++) re[t] = x[b * 10 + f * 3 + t] * w[t];
      naive_dft(re, zero, 4, 4, 0, wr, wi);
      for (int k = 0; k < 3; k++) {
        want[((b * 3 + f) * 3 + k) * 2] = wr[k];
        want[((b * 3 + f) * 3 + k) * 2 + 1] = wi[k];
      }
    }
  CHECK(close_d(y, 36, want, 1e-9, 1e-9));
  /* frame_length disagreeing with the window */
  CHECK_EQ_I(run("STFT", 17, 0, NULL, 4, (ox_value *[]){xv, i64s(3), wv, i64s(5)}, 1, &y), OX_EINPUT);
  CHECK_EQ_I(run("STFT", 17, 0, NULL, 2, (ox_value *[]){xv, i64s(0)}, 1, &y), OX_EINPUT);
}

/* MelWeightMatrix: 2 bins over a DFT of 8 at 8000 Hz from 0 to 4000 Hz. By
 * hand: mel(4000) = 2146.06..., step = mel / 4; edges at mel 0, s, 2s, 3s
 * -> 0, 426, 1114, 2220 Hz -> bins floor(9 f / 8000) = 0, 0, 1, 2. */
static void test_mel(void) {
  ox_value *y;
  ox_value *lo = tensor(OX_FLOAT, 0, NULL, (float[]){0}), *hi = tensor(OX_FLOAT, 0, NULL, (float[]){4000});
  CHECK_EQ_I(run("MelWeightMatrix", 17, 0, NULL, 5, (ox_value *[]){i64s(2), i64s(8), i64s(8000), lo, hi}, 1, &y), 0);
  CHECK(shape_is(y, 2, DIMS(5, 2)));
  /* band 0: (0, 0, 1): low == center -> out[0][0] = 1, falling 0 -> 1: out[0][0] = 1
   * band 1: (0, 1, 2): rising out[0][1] = 0, out[1][1] = 1; falling out[1][1] = 1 */
  CHECK(close_d(y, 10, (double[]){1, 0, 0, 1, 0, 0, 0, 0, 0, 0}, 0, 0));
}

static void test_nll(void) {
  /* x: (2, 3) log-probs; target (2) */
  ox_value *x = F32(2, DIMS(2, 3), {-1, -2, -3, -4, -5, -6});
  ox_value *t = tensor(OX_INT64, 1, DIMS(2), (int64_t[]){2, 0});
  ox_value *w = F32(1, DIMS(3), {0.5f, 1, 2}), *y;
  ox_attr none = attr_str("reduction", "none"), sum = attr_str("reduction", "sum");
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 13, 1, &none, 2, (ox_value *[]){x, t}, 1, &y), 0);
  CHECK(shape_is(y, 1, DIMS(2)) && close_d(y, 2, (double[]){3, 4}, 1e-7, 1e-7));
  /* weighted mean: (2*3 + 0.5*4) / (2 + 0.5) */
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 22, 0, NULL, 3, (ox_value *[]){x, t, w}, 1, &y), 0);
  CHECK(shape_is(y, 0, NULL) && close_d(y, 1, (double[]){8.0 / 2.5}, 1e-7, 1e-7));
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 12, 1, &sum, 3, (ox_value *[]){x, t, w}, 1, &y), 0);
  CHECK(close_d(y, 1, (double[]){8}, 1e-7, 1e-7));
  /* ignore_index 0 drops the second sample from the mean's numerator and
   * denominator; an ignored label may be out of range (-1 here) */
  ox_attr ii[] = {attr_int("ignore_index", 0)};
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 13, 1, ii, 3, (ox_value *[]){x, t, w}, 1, &y), 0);
  CHECK(close_d(y, 1, (double[]){3}, 1e-7, 1e-7));
  ox_value *tn = tensor(OX_INT32, 1, DIMS(2), (int32_t[]){-1, 1});
  ox_attr iin[] = {attr_int("ignore_index", -1)};
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 13, 1, iin, 2, (ox_value *[]){x, tn}, 1, &y), 0);
  CHECK(close_d(y, 1, (double[]){5}, 1e-7, 1e-7));
  /* out of range without ignore_index */
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 13, 0, NULL, 2, (ox_value *[]){x, tn}, 1, &y), OX_EINPUT);
  CHECK(strstr(E.msg, "outside [0, 3)") != NULL);
  /* N-D: x (1, 2, 2) target (1, 2) */
  ox_value *x3 = F32(3, DIMS(1, 2, 2), {-1, -2, -3, -4});
  ox_value *t3 = tensor(OX_INT64, 2, DIMS(1, 2), (int64_t[]){1, 0});
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 13, 1, &none, 2, (ox_value *[]){x3, t3}, 1, &y), 0);
  CHECK(shape_is(y, 2, DIMS(1, 2)) && close_d(y, 2, (double[]){3, 2}, 1e-7, 1e-7));
  ox_value *tbad = tensor(OX_INT64, 2, DIMS(1, 3), (int64_t[]){1, 0, 0});
  CHECK_EQ_I(run("NegativeLogLikelihoodLoss", 13, 0, NULL, 2, (ox_value *[]){x3, tbad}, 1, &y), OX_EINPUT);
}

static void test_sce(void) {
  /* scores (1, 2): log_softmax of (0, log 3) = (log 1/4, log 3/4) */
  ox_value *x = F32(2, DIMS(1, 2), {0, (float)log(3.0)});
  ox_value *t = tensor(OX_INT64, 1, DIMS(1), (int64_t[]){0}), *y[2];
  CHECK_EQ_I(run("SoftmaxCrossEntropyLoss", 13, 0, NULL, 2, (ox_value *[]){x, t}, 2, y), 0);
  CHECK(close_d(y[0], 1, (double[]){log(4.0)}, 1e-6, 1e-6));
  CHECK(shape_is(y[1], 2, DIMS(1, 2)) && close_d(y[1], 2, (double[]){log(0.25), log(0.75)}, 1e-6, 1e-6));
  /* large scores do not overflow (max subtracted) */
  ox_value *big = tensor(OX_DOUBLE, 2, DIMS(1, 2), (double[]){1000, 1000});
  CHECK_EQ_I(run("SoftmaxCrossEntropyLoss", 12, 0, NULL, 2, (ox_value *[]){big, t}, 1, y), 0);
  CHECK(close_d(y[0], 1, (double[]){log(2.0)}, 1e-12, 1e-12));
  /* float16 scores */
  ox_value *h = tensor(OX_FLOAT16, 2, DIMS(1, 2), (uint16_t[]){0x3c00, 0x3c00});
  CHECK_EQ_I(run("SoftmaxCrossEntropyLoss", 13, 0, NULL, 2, (ox_value *[]){h, t}, 1, y), 0);
  CHECK(y[0] && y[0]->u.t.dt == OX_FLOAT16 && close_d(y[0], 1, (double[]){log(2.0)}, 1e-3, 1e-3));
  ox_attr bad = attr_str("reduction", "max");
  CHECK_EQ_I(run("SoftmaxCrossEntropyLoss", 13, 1, &bad, 2, (ox_value *[]){x, t}, 1, y), OX_EINPUT);
}

/* Which precision each DFT runs in, and its 1/n, as numpy's dispatch picks
 * them for ONNX's reference (ops/signal.c fft_dt and inv_n): the op's output
 * must equal core/fft's transform in that precision, rounded once. The
 * signal 0, 10, ..., 90 tells the two precisions apart: at k = 5, where the
 * exact value is 0, float gives 1.9e-7 (inverse) and -1.9e-6 (forward). */
static int fft_matches(const ox_value *y, int work_dt, const double *x, int xc, int inverse, double fct) {
  double in[20], out[20];
  float inf[20], outf[20];
  for (int j = 0; j < 10 * xc; j++) in[j] = x[j], inf[j] = (float)x[j];
  ox_fft *p = ox_fft_plan(A, work_dt, 10, 0);
  if (!p || !y) return 0;
  int f = work_dt == OX_FLOAT;
  ox_fft_line l = {.x = f ? (void *)inf : (void *)in, .xs = xc, .nin = 10, .xc = xc,
                   .y = f ? (void *)outf : (void *)out, .ys = 2, .ny = 10};
  ox_fft_c2c(p, &l, inverse, fct);
  for (int k = 0; k < 20; k++) {
    float want = f ? outf[k] : (float)out[k];
    float got = y->u.t.dt == OX_FLOAT ? ((const float *)y->u.t.data)[k]
                                      : ox_f16_to_f32(((const uint16_t *)y->u.t.data)[k]);
    if (y->u.t.dt == OX_FLOAT16) want = ox_f16_to_f32(ox_f32_to_f16(want));
    if (memcmp(&got, &want, sizeof got)) {
      fprintf(stderr, "DFT bin %d %s: got %.9g, want %.9g\n", k / 2, k % 2 ? "im" : "re", got, want);
      return 0;
    }
  }
  return 1;
}

static void test_dft_precision(void) {
  double re[10], cx[20];
  float ref[10], cxf[20];
  uint16_t reh[10], cxh[20];
  for (int j = 0; j < 10; j++) {
    re[j] = ref[j] = (float)(10 * j), reh[j] = ox_f32_to_f16(ref[j]);
    cx[2 * j] = cxf[2 * j] = (float)(10 * j), cx[2 * j + 1] = cxf[2 * j + 1] = 0;
    cxh[2 * j] = ox_f32_to_f16(cxf[2 * j]), cxh[2 * j + 1] = 0;
  }
  ox_attr inv = attr_int("inverse", 1);
  ox_value *y;
  /* forward, real float32: numpy's fft gets the Python int 1 as fct and runs
   * the double loop */
  CHECK_EQ_I(run("DFT", 20, 0, NULL, 1, (ox_value *[]){tensor(OX_FLOAT, 3, DIMS(1, 10, 1), ref)}, 1, &y), 0);
  CHECK(fft_matches(y, OX_DOUBLE, re, 1, 0, 1));
  CHECK(y && fabsf(((float *)y->u.t.data)[11]) < 1e-12f);
  /* forward, complex float32: still the double loop */
  CHECK_EQ_I(run("DFT", 20, 0, NULL, 1, (ox_value *[]){tensor(OX_FLOAT, 3, DIMS(1, 10, 2), cxf)}, 1, &y), 0);
  CHECK(fft_matches(y, OX_DOUBLE, cx, 2, 0, 1));
  /* inverse, complex float32: (complex64, float32) is the float loop */
  CHECK_EQ_I(run("DFT", 20, 1, &inv, 1, (ox_value *[]){tensor(OX_FLOAT, 3, DIMS(1, 10, 2), cxf)}, 1, &y), 0);
  CHECK(fft_matches(y, OX_FLOAT, cx, 2, 1, 1.0f / 10.0f));
  CHECK(y && ((float *)y->u.t.data)[11] == 1.9073487e-07f);
  /* inverse, real float32: (float32, float32) falls to the double loop, with
   * fct still 1/10 in float32 */
  CHECK_EQ_I(run("DFT", 20, 1, &inv, 1, (ox_value *[]){tensor(OX_FLOAT, 3, DIMS(1, 10, 1), ref)}, 1, &y), 0);
  CHECK(fft_matches(y, OX_DOUBLE, re, 1, 1, (double)(1.0f / 10.0f)));
  /* inverse, complex float16: the reference makes complex64 from it, so the
   * float loop with a float32 fct */
  CHECK_EQ_I(run("DFT", 20, 1, &inv, 1, (ox_value *[]){tensor(OX_FLOAT16, 3, DIMS(1, 10, 2), cxh)}, 1, &y), 0);
  CHECK(fft_matches(y, OX_FLOAT, cx, 2, 1, 1.0f / 10.0f));
  /* inverse, real float16: the double loop with fct = 1/10 in float16
   * (0.0999755859375) */
  CHECK_EQ_I(run("DFT", 20, 1, &inv, 1, (ox_value *[]){tensor(OX_FLOAT16, 3, DIMS(1, 10, 1), reh)}, 1, &y), 0);
  CHECK(fft_matches(y, OX_DOUBLE, re, 1, 1, 0.0999755859375));
}

int main(void) {
  A = ox_arena_new();
  test_dft_lengths();
  test_rfft_irfft();
  test_dft_precision();
  test_dft_axis();
  test_windows();
  test_stft();
  test_mel();
  test_nll();
  test_sce();
  ox_arena_free(A);
  return check_done("signal");
}
