/* tests/unit/test_fft.c: core/fft against a direct DFT in long double, for
 * lengths that reach every pass (2, 4, 8, the odd radices 3/5/7/11, the
 * generic radix, Bluestein) in float and double, and against numbers numpy
 * 2's pocketfft produced (the suite's test_dft_inverse). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/dtype.h"
#include "core/fft.h"

static ox_arena *A;

static unsigned rng = 2024;
static double rnd(void) {
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 65536.0 - 0.5;
}

/* y_k = fct * sum_j x_j e^(-+2 pi i jk/n), exact enough to judge both
 * precisions (the roots of unity from one table, jk reduced mod n) */
static void direct(const double *x, int64_t n, int inverse, double fct, double *y) {
  static long double wc[4 * 1024], ws[4 * 1024];
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int64_t m = 0; m < n; m++) {
    long double a = (inverse ? 2 : -2) * pi * (long double)m / (long double)n;
    wc[m] = cosl(a), ws[m] = sinl(a);
  }
  for (int64_t k = 0; k < n; k++) {
    long double re = 0, im = 0;
    for (int64_t j = 0, m = 0; j < n; j++, m += k) {
      if (m >= n) m -= n;
      re += x[2 * j] * wc[m] - x[2 * j + 1] * ws[m];
      im += x[2 * j] * ws[m] + x[2 * j + 1] * wc[m];
    }
    y[2 * k] = (double)(re * fct), y[2 * k + 1] = (double)(im * fct);
  }
}

/* max |got - want| / max |want| */
static double rel_err(const double *got, const double *want, int64_t m) {
  double e = 0, w = 1e-300;
  for (int64_t i = 0; i < m; i++) {
    if (fabs(got[i] - want[i]) > e) e = fabs(got[i] - want[i]);
    if (fabs(want[i]) > w) w = fabs(want[i]);
  }
  return e / w;
}

enum { MAXN = 2200 };
static double x[2 * MAXN], want[2 * MAXN], got[2 * MAXN];
static float xf[2 * MAXN], yf[2 * MAXN];

/* c2c and c2r of length n in dt, checked against the direct DFT */
static void check_length(int dt, int64_t n) {
  double tol = (dt == OX_FLOAT ? 4e-7 : 1e-15) * (4 + log2((double)n));
  int dbl = dt == OX_DOUBLE;
  for (int inverse = 0; inverse < 2; inverse++) {
    for (int64_t j = 0; j < 2 * n; j++) x[j] = dbl ? rnd() : (double)(xf[j] = (float)rnd());
    /* numpy's ifft scales by 1/n in the data's precision */
    double fct = !inverse ? 1 : dbl ? 1.0 / (double)n : (double)(1.0f / (float)n);
    direct(x, n, inverse, fct, want);
    ox_fft *p = ox_fft_plan(A, dt, n, 0);
    CHECK(p != NULL);
    if (!p) return;
    ox_fft_line l = {.x = dbl ? (void *)x : (void *)xf, .xs = 2, .nin = n, .xc = 2,
                     .y = dbl ? (void *)got : (void *)yf, .ys = 2, .ny = n};
    ox_fft_c2c(p, &l, inverse, fct);
    if (!dbl)
      for (int64_t j = 0; j < 2 * n; j++) got[j] = yf[j];
    double e = rel_err(got, want, 2 * n);
    if (e > tol) fprintf(stderr, "c2c %s n=%lld inverse=%d: relative error %g > %g\n", dbl ? "double" : "float", (long long)n, inverse, e, tol);
    CHECK(e <= tol);
  }
  /* c2r: a Hermitian spectrum from bins 0 .. n/2 gives n reals */
  int64_t h = n / 2 + 1;
  for (int64_t k = 0; k < h; k++) {
    double re = rnd(), im = (k == 0 || 2 * k == n) ? 0 : rnd();
    x[2 * k] = re, x[2 * k + 1] = im;
    if (k) x[2 * (n - k)] = re, x[2 * (n - k) + 1] = -im;
  }
  for (int64_t j = 0; j < 2 * h; j++) xf[j] = (float)x[j];
  if (!dbl)
    for (int64_t j = 0; j < 2 * n; j++) x[j] = (float)x[j];
  direct(x, n, 1, 1.0 / (double)n, want);
  ox_fft *p = ox_fft_plan(A, dt, n, 1);
  CHECK(p != NULL);
  if (!p) return;
  ox_fft_line l = {.x = dbl ? (void *)x : (void *)xf, .xs = 2, .nin = h, .xc = 2,
                   .y = dbl ? (void *)got : (void *)yf, .ys = 1, .ny = n};
  ox_fft_c2r(p, &l, 1.0 / (double)n);
  if (!dbl)
    for (int64_t j = 0; j < n; j++) got[j] = yf[j];
  double wr[MAXN];
  for (int64_t j = 0; j < n; j++) wr[j] = want[2 * j];
  double e = rel_err(got, wr, n);
  if (e > tol) fprintf(stderr, "c2r %s n=%lld: relative error %g > %g\n", dbl ? "double" : "float", (long long)n, e, tol);
  CHECK(e <= tol);
}

static void test_lengths(void) {
  /* 1..64 covers 2, 4, 8 and 3/5/7/11 in every mix with small ones; 13, 17,
   * 26, 39, 53, 97 and 169 the generic radix; 1009 and 2018 (a prime over 50
   * whose square exceeds n, cheaper by Bluestein) the Bluestein path, 2018
   * through an even Bluestein length */
  static const int64_t more[] = {77, 88, 96, 97, 121, 128, 169, 210, 256, 360, 1009, 2018};
  for (int d = 0; d < 2; d++) {
    int dt = d ? OX_DOUBLE : OX_FLOAT;
    for (int64_t n = 1; n <= 64; n++) check_length(dt, n);
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) check_length(dt, more[i]);
  }
}

/* The suite's test_dft_inverse holds numpy 2's ifft of the complex64
 * column 0, 10, ..., 90 (pocketfft in float32): its bits, bin by bin
 * (re, im). The exact values are -5 +- i*5*cot(pi*k/10) (and 45 at k=0);
 * the float32 rounding noise, such as -5.0000005 at k=4 and 1.9073487e-07
 * where k=5's exact 0 is, comes only from pocketfft's operation order. */
static void test_numpy_bits(void) {
  static const uint32_t want_bits[20] = {
      1110704128, 0,          3231711232, 3245750007, 3231711232, 3235657883, 3231711232,
      3228073568, 3231711233, 3218076373, 3231711232, 877448397,  3231711233, 1070592725,
      3231711232, 1080589917, 3231711232, 1088174235, 3231711232, 1098266359};
  float in[20], out[20];
  for (int j = 0; j < 10; j++) in[2 * j] = (float)(10 * j), in[2 * j + 1] = 0;
  ox_fft *p = ox_fft_plan(A, OX_FLOAT, 10, 0);
  CHECK(p != NULL);
  if (!p) return;
  ox_fft_line l = {.x = in, .xs = 2, .nin = 10, .xc = 2, .y = out, .ys = 2, .ny = 10};
  ox_fft_c2c(p, &l, 1, 1.0f / 10.0f);
  uint32_t got_bits[20];
  memcpy(got_bits, out, sizeof got_bits);
  for (int i = 0; i < 20; i++) {
    if (got_bits[i] != want_bits[i])
      fprintf(stderr, "ifft bin %d %s: got %.9g, numpy 2 gives the float with bits %u\n", i / 2,
              i % 2 ? "im" : "re", out[i], (unsigned)want_bits[i]);
    CHECK_EQ_I(got_bits[i], want_bits[i]);
  }
}

/* Cut and zero-padded inputs, real input, strided lines and ny < n */
static void test_lines(void) {
  double in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[16];
  ox_fft *p = ox_fft_plan(A, OX_DOUBLE, 4, 0);
  CHECK(p != NULL);
  if (!p) return;
  /* real input at stride 2 (1, 3, 5, 7), first 3 bins */
  memset(out, 0, sizeof out);
  ox_fft_line l = {.x = in, .xs = 2, .nin = 4, .xc = 1, .y = out, .ys = 2, .ny = 3};
  ox_fft_c2c(p, &l, 0, 1);
  double w1[6] = {16, 0, -4, 4, -4, 0};
  CHECK(memcmp(out, w1, sizeof w1) == 0 && out[6] == 0);
  /* two real inputs zero-padded to 4 */
  l = (ox_fft_line){.x = in, .xs = 1, .nin = 2, .xc = 1, .y = out, .ys = 2, .ny = 4};
  ox_fft_c2c(p, &l, 0, 1);
  double w2[8] = {3, 0, 1, -2, -1, 0, 1, 2};
  CHECK(memcmp(out, w2, sizeof w2) == 0);
  /* six reals cut to 4 */
  l.nin = 6;
  ox_fft_c2c(p, &l, 0, 1);
  double w3[8] = {10, 0, -2, 2, -2, 0, -2, -2};
  CHECK(memcmp(out, w3, sizeof w3) == 0);
  /* irfft of bins (10, 0), (-2, 2), (-2, 0) gives 1, 2, 3, 4; extra bins ignored */
  ox_fft *r = ox_fft_plan(A, OX_DOUBLE, 4, 1);
  CHECK(r != NULL);
  if (!r) return;
  double bins[10] = {10, 99, -2, 2, -2, 99, 7, 7, 7, 7};
  l = (ox_fft_line){.x = bins, .xs = 2, .nin = 5, .xc = 2, .y = out, .ys = 1, .ny = 4};
  ox_fft_c2r(r, &l, 0.25);
  double w4[4] = {1, 2, 3, 4};
  CHECK(memcmp(out, w4, sizeof w4) == 0);
  /* missing bins are zero: only bin 0 */
  l.nin = 1;
  ox_fft_c2r(r, &l, 0.25);
  double w5[4] = {2.5, 2.5, 2.5, 2.5};
  CHECK(memcmp(out, w5, sizeof w5) == 0);
  CHECK(ox_fft_plan(A, OX_INT32, 4, 0) == NULL);
  CHECK(ox_fft_plan(A, OX_FLOAT, 0, 0) == NULL);
}

int main(void) {
  A = ox_arena_new();
  test_lines();
  test_numpy_bits();
  test_lengths();
  ox_arena_free(A);
  return check_done("fft");
}
