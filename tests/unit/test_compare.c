/* tests/unit/test_compare.c: core/compare's error statistics (compare
 * --check-error-stat) and non-finite counts (compare --validate). */
#include <math.h>

#include "../../core/compare.h"
#include "check.h"
#include "kit.h"

static void test_stat(void) {
  /* numpy.quantile's default (linear): quantile([1, 2, 3, 4], 0.25) = 1.75 */
  double v[4] = {4, 1, 3, 2};
  CHECK(ox_error_stat(v, 4, OX_STAT_QUANTILE, 0.25) == 1.75);
  CHECK(ox_error_stat(v, 4, OX_STAT_QUANTILE, 1) == 4);
  CHECK(ox_error_stat(v, 4, OX_STAT_QUANTILE, 0) == 1);
  CHECK(ox_error_stat(v, 4, OX_STAT_MEDIAN, 0) == 2.5); /* numpy.median([1, 2, 3, 4]) */
  CHECK(ox_error_stat(v, 4, OX_STAT_MEAN, 0) == 2.5);
  CHECK(ox_error_stat(v, 4, OX_STAT_MAX, 0) == 4);
  double odd[3] = {9, 1, 5};
  CHECK(ox_error_stat(odd, 3, OX_STAT_MEDIAN, 0) == 5);
  /* infinities: inf beside inf is inf, never inf - inf = NaN */
  double inf[3] = {INFINITY, 0, INFINITY};
  CHECK(isinf(ox_error_stat(inf, 3, OX_STAT_QUANTILE, 0.75)));
  CHECK(isinf(ox_error_stat(inf, 3, OX_STAT_MEAN, 0)));
  CHECK(ox_error_stat(inf, 0, OX_STAT_MAX, 0) == 0);
}

static void test_errors(void) {
  const float g[6] = {1, NAN, NAN, INFINITY, 2.5f, 0}, w[6] = {1, NAN, 3, INFINITY, 2, 0};
  ox_value *gv = vec(OX_FLOAT, 6, g), *wv = vec(OX_FLOAT, 6, w);
  ox_cmp r;
  ox_compare_full(gv, wv, 1e-3, 1e-7, &r);
  CHECK_EQ_I(r.bad, 2);
  CHECK_EQ_I(r.bad_exact, 0);
  double a[12], rel[12];
  CHECK_EQ_I(ox_compare_errors(gv, wv, a, rel), 6);
  CHECK(a[0] == 0 && rel[0] == 0);     /* equal */
  CHECK(a[1] == 0 && rel[1] == 0);     /* NaN and NaN */
  CHECK(isinf(a[2]) && isinf(rel[2])); /* NaN against a number */
  CHECK(a[3] == 0 && rel[3] == 0);     /* the same infinity */
  CHECK(a[4] == 0.5 && rel[4] == 0.25);
  CHECK(a[5] == 0 && rel[5] == 0);
  int64_t nan, ninf;
  ox_cmp_at at;
  ox_count_nonfinite(gv, &nan, &ninf, &at);
  CHECK_EQ_I(nan, 2);
  CHECK_EQ_I(ninf, 1);
  CHECK_EQ_I(at.i, 1);
  /* integers are counted as exact mismatches and give no errors */
  const int32_t gi[3] = {1, 2, 3}, wi[3] = {1, 2, 4};
  ox_value *giv = vec(OX_INT32, 3, gi), *wiv = vec(OX_INT32, 3, wi);
  ox_compare_full(giv, wiv, 1, 1, &r);
  CHECK_EQ_I(r.bad_exact, 1);
  CHECK_EQ_I(ox_compare_errors(giv, wiv, a, rel), 0);
  ox_count_nonfinite(giv, &nan, &ninf, &at);
  CHECK_EQ_I(nan + ninf, 0);
}

int main(void) {
  A = ox_arena_new();
  test_stat();
  test_errors();
  ox_arena_free(A);
  return check_done("compare");
}
