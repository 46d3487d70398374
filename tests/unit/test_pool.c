/* tests/unit/test_pool.c: the 2-D float MaxPool and AveragePool row kernel
 * (ops/pool.c, pool2d_rows) against the general window loop, which the same
 * pools in double still take: random shapes, kernels, strides 1 to 3,
 * dilations, explicit and automatic pads, ceil_mode, count_include_pad,
 * and the global pools; the float results equal the double ones rounded to float, bit for bit;
 * with 1, 2 and 3 threads the same bytes; and float16 through it. */
#include "kit.h"
#include "core/threads.h"

static int rnd(int n) { return (int)(kit_rnd32() % (unsigned)n); }

static int same(const ox_value *a, const ox_value *b) {
  return a && b && a->u.t.n == b->u.t.n && a->u.t.rank == b->u.t.rank &&
         !memcmp(a->u.t.dims, b->u.t.dims, sizeof(int64_t) * (size_t)a->u.t.rank) &&
         !memcmp(a->u.t.data, b->u.t.data, (size_t)a->u.t.n * ox_dtype_size(a->u.t.dt));
}

int main(void) {
  A = ox_arena_new();
  int bad = 0, runs = 0;
  for (int iter = 0; iter < 400; iter++) {
    int max = iter & 1;
    int64_t N = 1 + rnd(2), C = 1 + rnd(3), H = 1 + rnd(12), W = 1 + rnd(40);
    int64_t k[2] = {1 + rnd(4), 1 + rnd(4)}, s[2] = {1 + rnd(3), 1 + rnd(3)};
    int64_t d[2] = {1 + (rnd(4) == 0), 1 + (rnd(4) == 0)};
    int64_t pads[4];
    for (int j = 0; j < 2; j++) {
      int64_t dk = (k[j] - 1) * d[j] + 1;
      pads[j] = rnd((int)dk);
      pads[2 + j] = rnd((int)dk);
    }
    ox_attr at[8];
    int na = 0;
    at[na++] = attr_ints("kernel_shape", 2, k);
    at[na++] = attr_ints("strides", 2, s);
    if (max) at[na++] = attr_ints("dilations", 2, d);
    int ap = rnd(5);
    if (ap == 0) at[na++] = attr_str("auto_pad", rnd(2) ? "SAME_UPPER" : "SAME_LOWER");
    else if (ap == 1) at[na++] = attr_str("auto_pad", "VALID");
    else at[na++] = attr_ints("pads", 4, pads);
    if (ap >= 2 && rnd(2)) at[na++] = attr_int("ceil_mode", 1);
    if (!max && rnd(2)) at[na++] = attr_int("count_include_pad", 1);
    int64_t dims[4] = {N, C, H, W};
    ox_value *xf = tensor(OX_FLOAT, 4, dims, NULL), *xd = tensor(OX_DOUBLE, 4, dims, NULL);
    for (int64_t i = 0; i < xf->u.t.n; i++) {
      float v = (float)((int)(kit_rnd32() % 2001) - 1000) / 37.0f;
      ((float *)xf->u.t.data)[i] = v;
      ((double *)xd->u.t.data)[i] = v;
    }
    const char *op = max ? "MaxPool" : "AveragePool";
    int ver = max ? 12 : 19;
    ox_value *yf = NULL, *yd = NULL;
    ox_err_clear(&E);
    int rf = kit_run("", op, ver, na, at, 1, &xf, 1, &yf);
    ox_err_clear(&E);
    int rdd = kit_run("", op, ver, na, at, 1, &xd, 1, &yd);
    if (rf || rdd) { /* a geometry both refuse (a window past the padded input) */
      if (!rf != !rdd) bad++;
      continue;
    }
    runs++;
    int nb = yf->u.t.n != yd->u.t.n;
    for (int64_t i = 0; !nb && i < yf->u.t.n; i++)
      nb += ((float *)yf->u.t.data)[i] != (float)((double *)yd->u.t.data)[i];
    if (nb) {
      fprintf(stderr, "%s (%lld,%lld,%lld,%lld) k %lldx%lld s %lldx%lld d %lldx%lld: differs\n", op, (long long)N,
              (long long)C, (long long)H, (long long)W, (long long)k[0], (long long)k[1], (long long)s[0],
              (long long)s[1], (long long)d[0], (long long)d[1]);
      bad++;
    }
  }
  CHECK_EQ_I(bad, 0);
  CHECK(runs > 250);

  /* the global pools go the same way (one window of the whole plane) */
  for (int iter = 0; iter < 40; iter++) {
    int64_t dims[4] = {1 + rnd(2), 1 + rnd(4), 1 + rnd(30), 1 + rnd(30)};
    ox_value *xf = tensor(OX_FLOAT, 4, dims, NULL), *xd = tensor(OX_DOUBLE, 4, dims, NULL), *yf, *yd;
    for (int64_t i = 0; i < xf->u.t.n; i++) {
      float v = (float)((int)(kit_rnd32() % 2001) - 1000) / 37.0f;
      ((float *)xf->u.t.data)[i] = v;
      ((double *)xd->u.t.data)[i] = v;
    }
    const char *op = iter & 1 ? "GlobalMaxPool" : "GlobalAveragePool";
    CHECK_EQ_I(kit_run("", op, 1, 0, NULL, 1, &xf, 1, &yf), 0);
    CHECK_EQ_I(kit_run("", op, 1, 0, NULL, 1, &xd, 1, &yd), 0);
    int nb = 0;
    for (int64_t i = 0; i < yf->u.t.n; i++) nb += ((float *)yf->u.t.data)[i] != (float)((double *)yd->u.t.data)[i];
    CHECK_EQ_I(nb, 0);
  }

  /* a large one over 1, 2 and 3 threads; and in float16 (widened a block
   * of about 1M elements at a time: the second shape is 3 blocks, of 2, 2
   * and 1 planes) */
  int64_t shapes[2][4] = {{1, 16, 112, 112}, {1, 5, 600, 600}};
  for (int sh = 0; sh < 2; sh++) {
    int64_t *dims = shapes[sh], k[2] = {3, 3}, s[2] = {2, 2}, p[4] = {1, 1, 1, 1};
    ox_value *x = tensor(OX_FLOAT, 4, dims, NULL), *x16 = tensor(OX_FLOAT16, 4, dims, NULL);
    for (int64_t i = 0; i < x->u.t.n; i++) {
      ((float *)x->u.t.data)[i] = (float)(kit_rnd32() % 1000) / 7.0f;
      ((uint16_t *)x16->u.t.data)[i] = ox_f32_to_f16(((float *)x->u.t.data)[i]);
    }
    ox_attr at[] = {attr_ints("kernel_shape", 2, k), attr_ints("strides", 2, s), attr_ints("pads", 4, p)};
    for (int max = 0; max < 2; max++) {
      const char *op = max ? "MaxPool" : "AveragePool";
      ox_value *y[3] = {0}, *y16 = NULL;
      for (int t = 0; t < 3; t++) {
        ox_set_threads(t + 1);
        CHECK_EQ_I(kit_run("", op, max ? 12 : 19, 3, at, 1, &x, 1, &y[t]), 0);
      }
      ox_set_threads(1);
      CHECK(same(y[0], y[1]) && same(y[0], y[2]));
      CHECK_EQ_I(kit_run("", op, max ? 12 : 19, 3, at, 1, &x16, 1, &y16), 0);
      /* float16: the float pool of the widened input, rounded once */
      ox_value *xw = tensor(OX_FLOAT, 4, dims, NULL), *yw = NULL;
      for (int64_t i = 0; i < x->u.t.n; i++) ((float *)xw->u.t.data)[i] = ox_f16_to_f32(((uint16_t *)x16->u.t.data)[i]);
      CHECK_EQ_I(kit_run("", op, max ? 12 : 19, 3, at, 1, &xw, 1, &yw), 0);
      int nb = 0;
      for (int64_t i = 0; i < yw->u.t.n; i++)
        nb += ((uint16_t *)y16->u.t.data)[i] != ox_f32_to_f16(((float *)yw->u.t.data)[i]);
      CHECK_EQ_I(nb, 0);
    }
  }
  ox_arena_free(A);
  return check_done("pool");
}
