/* tests/unit/test_fastpaths.c: the fast paths of Resize, Concat and
 * BatchNormalization against their general ones:
 *   - Resize nearest of the last two axes (one pass) against the same resize
 *     of a (N, C, H, W, 1) view, which takes the axis-by-axis passes: random
 *     sizes, scales up and down, each nearest_mode and coordinate transform;
 *   - Resize (nearest, linear, cubic) and Concat and BatchNormalization over
 *     1, 2 and 3 threads: the same bytes;
 *   - BatchNormalization against its formula in double, rounded once. */
#include "kit.h"
#include "core/threads.h"

static int rnd(int n) { return (int)(kit_rnd32() % (unsigned)n); }

static ox_value *randf(int rank, const int64_t *dims) {
  ox_value *v = tensor(OX_FLOAT, rank, dims, NULL);
  for (int64_t i = 0; i < v->u.t.n; i++) ((float *)v->u.t.data)[i] = (float)(kit_rnd32() % 20001) / 1000.0f - 10;
  return v;
}

static int same_data(const ox_value *a, const ox_value *b) {
  return a && b && a->u.t.n == b->u.t.n && a->u.t.dt == b->u.t.dt &&
         !memcmp(a->u.t.data, b->u.t.data, (size_t)a->u.t.n * ox_dtype_size(a->u.t.dt));
}

/* op with the inputs on 1, 2 and 3 threads: the same bytes */
static int threads_agree(const char *op, int opset, int nattr, ox_attr *at, int nin, ox_value **in) {
  ox_value *y[3] = {0};
  for (int t = 0; t < 3; t++) {
    ox_set_threads(t + 1);
    if (kit_run("", op, opset, nattr, at, nin, in, 1, &y[t])) {
      fprintf(stderr, "%s: %s\n", op, E.msg);
      ox_set_threads(1);
      return 0;
    }
  }
  ox_set_threads(1);
  return same_data(y[0], y[1]) && same_data(y[0], y[2]);
}

int main(void) {
  A = ox_arena_new();
  static const char *nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  static const char *cts[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"};
  int bad = 0;
  for (int iter = 0; iter < 200; iter++) {
    int64_t N = 1 + rnd(2), C = 1 + rnd(3), H = 1 + rnd(9), W = 1 + rnd(9);
    float sh = (float)(1 + rnd(12)) / 4, sw = (float)(1 + rnd(12)) / 4;
    int64_t d4[4] = {N, C, H, W}, d5[5] = {N, C, H, W, 1};
    ox_value *x4 = randf(4, d4), *x5 = ox_tensor_view(A, x4);
    x5->u.t.rank = 5;
    x5->u.t.dims = d5;
    ox_value *s4 = tensor(OX_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, sh, sw});
    ox_value *s5 = tensor(OX_FLOAT, 1, (int64_t[]){5}, (float[]){1, 1, sh, sw, 1});
    ox_attr at[] = {attr_str("mode", "nearest"), attr_str("nearest_mode", nms[rnd(4)]),
                    attr_str("coordinate_transformation_mode", cts[rnd(4)])};
    ox_value *y4 = NULL, *y5 = NULL;
    CHECK_EQ_I(kit_run("", "Resize", 13, 3, at, 3, (ox_value *[]){x4, NULL, s4}, 1, &y4), 0);
    CHECK_EQ_I(kit_run("", "Resize", 13, 3, at, 3, (ox_value *[]){x5, NULL, s5}, 1, &y5), 0);
    if (!same_data(y4, y5)) bad++;
  }
  CHECK_EQ_I(bad, 0);

  /* over the threads */
  {
    int64_t d[4] = {1, 24, 60, 70};
    ox_value *x = randf(4, d), *z = randf(4, d);
    ox_value *s = tensor(OX_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
    static const char *modes[] = {"nearest", "linear", "cubic"};
    for (int m = 0; m < 3; m++) {
      ox_attr at[] = {attr_str("mode", modes[m])};
      CHECK(threads_agree("Resize", 13, 1, at, 3, (ox_value *[]){x, NULL, s}));
    }
    ox_attr ax[] = {attr_int("axis", 1)}, ax2[] = {attr_int("axis", 2)};
    CHECK(threads_agree("Concat", 13, 1, ax, 2, (ox_value *[]){x, z}));
    CHECK(threads_agree("Concat", 13, 1, ax2, 3, (ox_value *[]){x, z, x}));
    /* BatchNormalization: y = (x - mean) / sqrt(var + eps) * scale + B */
    ox_value *sc = randf(1, (int64_t[]){24}), *b = randf(1, (int64_t[]){24}), *mean = randf(1, (int64_t[]){24});
    ox_value *var = tensor(OX_FLOAT, 1, (int64_t[]){24}, NULL);
    for (int k = 0; k < 24; k++) ((float *)var->u.t.data)[k] = 0.5f + (float)k / 10;
    ox_value *bn_in[] = {x, sc, b, mean, var}, *y = NULL;
    CHECK(threads_agree("BatchNormalization", 15, 0, NULL, 5, bn_in));
    CHECK_EQ_I(kit_run("", "BatchNormalization", 15, 0, NULL, 5, bn_in, 1, &y), 0);
    int nb = 0;
    for (int64_t i = 0; y && i < x->u.t.n; i++) {
      int64_t k = (i / (60 * 70)) % 24;
      double a = (double)((float *)sc->u.t.data)[k] / sqrt((double)((float *)var->u.t.data)[k] + (double)1e-5f);
      double sft = (double)((float *)b->u.t.data)[k] - (double)((float *)mean->u.t.data)[k] * a;
      nb += ((float *)y->u.t.data)[i] != (float)((double)((float *)x->u.t.data)[i] * a + sft);
    }
    CHECK_EQ_I(nb, 0);
  }
  ox_arena_free(A);
  return check_done("fastpaths");
}
