/* tests/unit/test_compare.c: core/compare's error statistics (compare
 * --check-error-stat) and non-finite counts (compare --validate), and its
 * rule for optionals and empty sequences, the same both ways. */
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

static ox_value *opt(const ox_type *elem, ox_value *v) {
  ox_value *o = NULL;
  ox_err e = {0};
  CHECK_EQ_I(ox_opt_new(A, elem, v, &o, &e), 0);
  return o;
}

static ox_value *seq(const ox_type *elem, int64_t n, ox_value *const *v) {
  ox_value *s = NULL;
  ox_err e = {0};
  CHECK_EQ_I(ox_seq_new(A, elem, n, &s, &e), 0);
  for (int64_t i = 0; s && i < n; i++) s->u.seq.v[i] = v[i];
  return s;
}

/* got against want, and want against got: the same answer, and the
 * expected one (with `why` holding `says` when they differ) */
static void both_ways(const char *what, const ox_value *x, const ox_value *y, int differ, const char *says) {
  ox_cmp r1, r2;
  int d1 = ox_compare_full(x, y, 1e-3, 1e-7, &r1), d2 = ox_compare_full(y, x, 1e-3, 1e-7, &r2);
  if (d1 != differ || d2 != differ || (says && (!strstr(r1.why, says) || !strstr(r2.why, says))))
    fprintf(stderr, "%s: %s / %s (expected %s '%s')\n", what, d1 ? r1.why : "match", d2 ? r2.why : "match",
            differ ? "a difference" : "a match", says ? says : "");
  CHECK_EQ_I(d1, differ);
  CHECK_EQ_I(d2, differ);
  if (says) CHECK(strstr(r1.why, says) && strstr(r2.why, says));
}

static void test_symmetric(void) {
  const float f[2] = {1, 2}, f2[2] = {1, 3};
  const int64_t i[2] = {1, 2};
  ox_value *t = vec(OX_FLOAT, 2, f), *t2 = vec(OX_FLOAT, 2, f2), *ti = vec(OX_INT64, 2, i);
  const ox_type *tf = ox_type_tensor(OX_FLOAT), *topen = ox_type_tensor((ox_dtype)0);
  /* a present optional is what it holds */
  both_ways("optional(t) ~ t", opt(tf, t), t, 0, NULL);
  both_ways("optional(optional(t)) ~ t", opt(ox_type_opt(A, tf), opt(tf, t)), t, 0, NULL);
  both_ways("optional(t) ~ t2", opt(tf, t), t2, 1, "element [1]");
  both_ways("optional(t) ~ int64", opt(tf, t), ti, 1, "dtype");
  /* an absent one matches only an absent one: of an element type that agrees */
  both_ways("none ~ t", opt(tf, NULL), t, 1, "optional: expected");
  both_ways("none ~ optional(t)", opt(tf, NULL), opt(tf, t), 1, "optional: expected");
  both_ways("none ~ none", opt(tf, NULL), opt(tf, NULL), 0, NULL);
  both_ways("none ~ none(?)", opt(tf, NULL), opt(topen, NULL), 0, NULL);
  both_ways("none(float) ~ none(int64)", opt(tf, NULL), opt(ox_type_tensor(OX_INT64), NULL), 1, "type");
  /* empty sequences: an element type left open agrees with any */
  both_ways("[] float ~ [] ?", seq(tf, 0, NULL), seq(topen, 0, NULL), 0, NULL);
  both_ways("[] float ~ [] float", seq(tf, 0, NULL), seq(tf, 0, NULL), 0, NULL);
  both_ways("[] float ~ [] int64", seq(tf, 0, NULL), seq(ox_type_tensor(OX_INT64), 0, NULL), 1, "type");
  both_ways("[] optional(float) ~ [] float", seq(ox_type_opt(A, tf), 0, NULL), seq(tf, 0, NULL), 0, NULL);
  both_ways("[] ~ [t]", seq(tf, 0, NULL), seq(tf, 1, &t), 1, "sequence length");
  /* sequences element by element, optionals seen through there too */
  ox_value *ot = opt(tf, t), *none = opt(tf, NULL);
  both_ways("[optional(t)] ~ [t]", seq(ox_type_opt(A, tf), 1, &ot), seq(tf, 1, &t), 0, NULL);
  both_ways("[none] ~ [t]", seq(ox_type_opt(A, tf), 1, &none), seq(tf, 1, &t), 1, "sequence element 0: optional");
  both_ways("[t] ~ [t2]", seq(tf, 1, &t), seq(tf, 1, &t2), 1, "element seq[0][1]");
  /* the error statistics walk what the comparison matched */
  ox_cmp r;
  double a[4], rel[4];
  CHECK_EQ_I(ox_compare_full(opt(tf, t2), t, 1e-3, 1e-7, &r), 1);
  CHECK_EQ_I(ox_compare_errors(opt(tf, t2), t, a, rel), 2);
  CHECK(a[0] == 0 && a[1] == 1);
  CHECK_EQ_I(ox_compare_errors(t, opt(tf, t2), a, rel), 2);
}

int main(void) {
  A = ox_arena_new();
  test_stat();
  test_errors();
  test_symmetric();
  ox_arena_free(A);
  return check_done("compare");
}
