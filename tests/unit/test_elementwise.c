/* tests/unit/test_elementwise.c: the elementwise fast paths against plain
 * per-element computations:
 *   - binary ops (float32, float16, int32) on random broadcast shapes (odd
 *     sizes, 1s, empty dims) against a naive index computation, bit for bit;
 *     float16 is float32 arithmetic rounded once;
 *   - large outputs split over 1, 2 and 3 threads: the same bytes;
 *   - the float32 activations (one build per vector width) against their
 *     formulas, bit for bit; unary ops in float16 (a block at a time) equal
 *     to the float32 op on the widened input, rounded once; LeakyRelu's -0
 *     and NaN;
 *   - Pow with a scalar exponent 2: x * x exactly, the shape broadcast;
 *   - the evaluator writing an output over an input that dies there: a chain
 *     of elementwise nodes runs in one block, and a node reading its dying
 *     input twice is left alone. */
#include "kit.h"
#include "core/threads.h"

static int rnd(int n) { return (int)(kit_rnd32() % (unsigned)n); }
static float rndf(void) { return (float)((double)kit_rnd32() / 4294967296.0 * 4 - 2); }

static ox_value *random_tensor(ox_dtype dt, int rank, const int64_t *dims) {
  ox_value *v = tensor(dt, rank, dims, NULL);
  for (int64_t i = 0; i < v->u.t.n; i++) {
    float x = rndf();
    if (dt == OX_FLOAT) ((float *)v->u.t.data)[i] = x;
    else if (dt == OX_FLOAT16) ((uint16_t *)v->u.t.data)[i] = ox_f32_to_f16(x);
    else ((int32_t *)v->u.t.data)[i] = (int32_t)(x * 50) | 1; /* odd: never 0 */
  }
  return v;
}

typedef struct { const char *op; int bool_out; } binop_t;
static const binop_t BIN[] = {{"Add", 0}, {"Sub", 0}, {"Mul", 0}, {"Div", 0}, {"Max", 0}, {"Min", 0}, {"Less", 1}};

static double f_op(const char *op, double a, double b) {
  if (!strcmp(op, "Add")) return a + b;
  if (!strcmp(op, "Sub")) return a - b;
  if (!strcmp(op, "Mul")) return a * b;
  if (!strcmp(op, "Max")) return a > b ? a : b;
  if (!strcmp(op, "Min")) return a < b ? a : b;
  if (!strcmp(op, "Less")) return a < b;
  return a / b;
}

/* z = op(a, b) checked element by element; returns the bad ones */
static int check_binary(const char *op, int bool_out, const ox_value *a, const ox_value *b, const ox_value *z) {
  const ox_tensor *ta = &a->u.t, *tb = &b->u.t, *Z = &z->u.t;
  int bad = 0;
  for (int64_t i = 0; i < Z->n; i++) {
    int64_t ia = kit_bcast_off(ta, Z->rank, Z->dims, i), ib = kit_bcast_off(tb, Z->rank, Z->dims, i);
    int ok;
    if (ta->dt == OX_INT32) {
      int32_t x = ((int32_t *)ta->data)[ia], y = ((int32_t *)tb->data)[ib];
      int64_t w = !strcmp(op, "Add") ? (int64_t)x + y : !strcmp(op, "Sub") ? (int64_t)x - y
                  : !strcmp(op, "Mul") ? (int64_t)x * y : !strcmp(op, "Div") ? x / y
                  : !strcmp(op, "Max") ? (x > y ? x : y) : !strcmp(op, "Min") ? (x < y ? x : y) : x < y;
      ok = bool_out ? ((uint8_t *)Z->data)[i] == (uint8_t)w : ((int32_t *)Z->data)[i] == (int32_t)w;
    } else {
      float x = ta->dt == OX_FLOAT ? ((float *)ta->data)[ia] : ox_f16_to_f32(((uint16_t *)ta->data)[ia]);
      float y = tb->dt == OX_FLOAT ? ((float *)tb->data)[ib] : ox_f16_to_f32(((uint16_t *)tb->data)[ib]);
      float w = (float)f_op(op, x, y); /* float arithmetic: each op rounds once in float */
      if (!strcmp(op, "Add")) w = x + y;
      else if (!strcmp(op, "Sub")) w = x - y;
      else if (!strcmp(op, "Mul")) w = x * y;
      else if (!strcmp(op, "Div")) w = x / y;
      if (bool_out) ok = ((uint8_t *)Z->data)[i] == (uint8_t)w;
      else if (Z->dt == OX_FLOAT) ok = !memcmp(&((float *)Z->data)[i], &w, 4);
      else ok = ((uint16_t *)Z->data)[i] == ox_f32_to_f16(w);
    }
    if (!ok) bad++;
  }
  return bad;
}

static int same_bytes_of(const ox_value *x, const ox_value *y) {
  return x && y && x->u.t.n == y->u.t.n && x->u.t.dt == y->u.t.dt &&
         !memcmp(x->u.t.data, y->u.t.data, (size_t)x->u.t.n * ox_dtype_size(x->u.t.dt));
}

int main(void) {
  A = ox_arena_new();

  /* ---- random broadcast shapes ---- */
  static const ox_dtype DTS[] = {OX_FLOAT, OX_FLOAT16, OX_INT32};
  int bad = 0, cases = 0;
  for (int iter = 0; iter < 600; iter++) {
    int rank = rnd(5);
    int64_t dims[4], da[4], db[4];
    for (int d = 0; d < rank; d++) dims[d] = rnd(8) == 0 ? 1 : 1 + rnd(7);
    if (rnd(30) == 0 && rank) dims[rnd(rank)] = 0;
    int ra = rnd(rank + 1), rb = rnd(rank + 1);
    for (int d = 0; d < ra; d++) da[d] = rnd(3) == 0 ? 1 : dims[rank - ra + d];
    for (int d = 0; d < rb; d++) db[d] = rnd(3) == 0 ? 1 : dims[rank - rb + d];
    ox_dtype dt = DTS[iter % 3];
    const binop_t *op = &BIN[rnd((int)(sizeof BIN / sizeof *BIN))];
    ox_value *a = random_tensor(dt, ra, da), *b = random_tensor(dt, rb, db), *z = NULL;
    if (kit_run("", op->op, 14, 0, NULL, 2, (ox_value *[]){a, b}, 1, &z)) {
      fprintf(stderr, "%s: %s\n", op->op, E.msg);
      bad++;
      continue;
    }
    int nb = check_binary(op->op, op->bool_out, a, b, z);
    if (nb) fprintf(stderr, "%s %s: %d bad elements\n", op->op, ox_dtype_name(dt), nb);
    bad += nb != 0;
    cases++;
  }
  CHECK_EQ_I(bad, 0);
  CHECK(cases >= 500);

  /* ---- large outputs over 1, 2, 3 threads: per channel, scalar, same shape ---- */
  {
    int64_t big[3] = {3, 97, 1031}, ch[2] = {97, 1}, one[1] = {1};
    for (int k = 0; k < 3; k++) {
      ox_dtype dt = k == 2 ? OX_FLOAT16 : OX_FLOAT;
      ox_value *a = random_tensor(dt, 3, big);
      ox_value *b = k == 0 ? random_tensor(dt, 2, ch) : k == 1 ? random_tensor(dt, 1, one) : random_tensor(dt, 3, big);
      const char *op = k == 1 ? "Mul" : "Add";
      ox_value *z[3] = {0};
      for (int t = 0; t < 3; t++) {
        ox_set_threads(t + 1);
        CHECK_EQ_I(kit_run("", op, 14, 0, NULL, 2, (ox_value *[]){a, b}, 1, &z[t]), 0);
      }
      ox_set_threads(1);
      CHECK(same_bytes_of(z[0], z[1]) && same_bytes_of(z[0], z[2]));
      CHECK_EQ_I(check_binary(op, 0, a, b, z[2]), 0);
      /* a unary op on it too */
      ox_value *u[3] = {0};
      ox_attr al[] = {attr_float("alpha", 0.3f)};
      for (int t = 0; t < 3; t++) {
        ox_set_threads(t + 1);
        CHECK_EQ_I(kit_run("", "LeakyRelu", 16, 1, al, 1, &a, 1, &u[t]), 0);
      }
      ox_set_threads(1);
      CHECK(same_bytes_of(u[0], u[1]) && same_bytes_of(u[0], u[2]));
    }
  }

  /* ---- the float32 activations (built per vector width) against their
   * formulas, one rounding per operation (HardSigmoid and HardSwish in
   * double, rounded once); NaN, -0 and Inf among them ---- */
  {
    int64_t d[1] = {4099};
    ox_value *x = tensor(OX_FLOAT, 1, d, NULL);
    float *px = x->u.t.data;
    for (int64_t i = 0; i < d[0]; i++) px[i] = rndf() * 5;
    px[0] = NAN, px[1] = -0.0f, px[2] = INFINITY, px[3] = -INFINITY, px[4] = 3, px[5] = -3, px[6] = 6.5f;
    static const char *ops[] = {"Relu", "LeakyRelu", "Clip", "HardSigmoid", "HardSwish", "Abs", "Neg"};
    static const int vers[] = {14, 16, 6, 6, 14, 13, 13};
    for (int k = 0; k < 7; k++) {
      ox_attr at[] = {attr_float("min", -0.5f), attr_float("max", 0.75f)}, al[] = {attr_float("alpha", 0.3f)};
      int clip = k == 2, leaky = k == 1;
      ox_value *y = NULL;
      CHECK_EQ_I(kit_run("", ops[k], vers[k], clip ? 2 : leaky, clip ? at : al, 1, &x, 1, &y), 0);
      int nb = 0;
      for (int64_t i = 0; y && i < d[0]; i++) {
        float v = px[i], w, t;
        double td; /* HardSigmoid and HardSwish compute in double */
        switch (k) {
        case 0: w = v < 0 ? 0 : v; break;
        case 1: w = v < 0 ? 0.3f * v : v; break;
        case 2: t = v < -0.5f ? -0.5f : v; w = t > 0.75f ? 0.75f : t; break;
        case 3: td = (double)0.2f * v + 0.5; w = (float)(td < 0 ? 0 : td > 1 ? 1 : td); break;
        case 4: td = ((double)v + 3) * (1.0 / 6); w = (float)(v * (td < 0 ? 0 : td > 1 ? 1 : td)); break;
        case 5: w = fabsf(v); break;
        default: w = -v;
        }
        float got = ((float *)y->u.t.data)[i];
        nb += !(isnan(w) ? isnan(got) : !memcmp(&got, &w, 4));
      }
      if (nb) fprintf(stderr, "%s: %d bad\n", ops[k], nb);
      CHECK_EQ_I(nb, 0);
    }
  }

  /* ---- Sigmoid in float32 (8 lanes of double, core/vmath.h): within 3 ulp of
   * 1 / (1 + e^-x) in double, over [-100, 100], the specials and a tail of
   * 3; below the smallest normal float (x < -87.3) 0 is as good ---- */
  {
    int64_t d[1] = {4003};
    ox_value *x = tensor(OX_FLOAT, 1, d, NULL), *y = NULL;
    float *xv = x->u.t.data;
    for (int64_t i = 0; i < d[0]; i++) xv[i] = -100.0f + 200.0f * (float)i / (float)(d[0] - 1);
    float special[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-30f, -1e-30f, 88.0f, -87.0f, -87.5f, 17.0f, -17.0f};
    memcpy(xv, special, sizeof special);
    CHECK_EQ_I(kit_run("", "Sigmoid", 13, 0, NULL, 1, &x, 1, &y), 0);
    int nb = 0;
    for (int64_t i = 0; y && i < d[0]; i++) {
      double want = 1.0 / (1.0 + exp(-(double)xv[i]));
      float got = ((float *)y->u.t.data)[i];
      int ok = isnan(xv[i]) ? isnan(got)
               : want < 0x1p-126 ? got >= 0 && got < 0x1p-126
                                 : fabs(got - want) <= 3 * ldexp(1.0, ilogb(want) - 23);
      if (!ok && nb++ < 5) fprintf(stderr, "Sigmoid(%.9g) = %.9g, want %.9g\n", xv[i], got, want);
    }
    CHECK_EQ_I(nb, 0);
  }

  /* ---- unary in float16: the float32 op on the widened input, rounded once ---- */
  {
    static const char *ops[] = {"Relu", "LeakyRelu", "Clip", "HardSigmoid", "HardSwish", "Sigmoid", "Tanh", "Sqrt"};
    static const int vers[] = {14, 16, 6, 6, 14, 13, 13, 13};
    int64_t d[1] = {1000 + 333};
    ox_value *h = random_tensor(OX_FLOAT16, 1, d), *f = tensor(OX_FLOAT, 1, d, NULL);
    ((uint16_t *)h->u.t.data)[5] = 0x7E00;  /* NaN */
    ((uint16_t *)h->u.t.data)[6] = 0x8000;  /* -0 */
    ((uint16_t *)h->u.t.data)[7] = 0xFC00;  /* -Inf */
    ((uint16_t *)h->u.t.data)[8] = 0x0001;  /* the smallest subnormal */
    for (int64_t i = 0; i < d[0]; i++) ((float *)f->u.t.data)[i] = ox_f16_to_f32(((uint16_t *)h->u.t.data)[i]);
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
      ox_value *yh = NULL, *yf = NULL;
      ox_attr at[] = {attr_float("min", -0.5f), attr_float("max", 0.75f)};
      int na = !strcmp(ops[k], "Clip") ? 2 : 0;
      CHECK_EQ_I(kit_run("", ops[k], vers[k], na, at, 1, &h, 1, &yh), 0);
      CHECK_EQ_I(kit_run("", ops[k], vers[k], na, at, 1, &f, 1, &yf), 0);
      int nb = 0;
      for (int64_t i = 0; yh && yf && i < d[0]; i++)
        nb += ((uint16_t *)yh->u.t.data)[i] != ox_f32_to_f16(((float *)yf->u.t.data)[i]);
      if (nb) fprintf(stderr, "%s float16: %d bad\n", ops[k], nb);
      CHECK_EQ_I(nb, 0);
    }
    /* LeakyRelu keeps -0 and NaN (as np.where(x < 0, alpha * x, x)) */
    float lv[4] = {-0.0f, NAN, -2, 3};
    ox_value *x = tensor(OX_FLOAT, 1, (int64_t[]){4}, lv), *y = NULL;
    ox_attr al[] = {attr_float("alpha", 0.5f)};
    CHECK_EQ_I(kit_run("", "LeakyRelu", 16, 1, al, 1, &x, 1, &y), 0);
    float *py = y->u.t.data;
    CHECK(signbit(py[0]) && py[0] == 0 && isnan(py[1]) && py[2] == -1 && py[3] == 3);
  }

  /* ---- Cast between float and float16 / bfloat16: the scalar conversions'
   * bits, every float16 code, over 1, 2 and 3 threads ---- */
  {
    int64_t d[1] = {65536 * 3};
    ox_value *codes = tensor(OX_FLOAT16, 1, d, NULL), *fl = tensor(OX_FLOAT, 1, d, NULL);
    for (int64_t i = 0; i < d[0]; i++) {
      ((uint16_t *)codes->u.t.data)[i] = (uint16_t)i;
      ((float *)fl->u.t.data)[i] = i % 3 ? rndf() * ldexpf(1, (int)(i % 40) - 16) : ox_f16_to_f32((uint16_t)i) * 1.0004f;
    }
    for (int bf = 0; bf < 2; bf++) {
      ox_value *w[3] = {0}, *h[3] = {0};
      ox_attr to_f[] = {attr_int("to", OX_FLOAT)}, to_h[] = {attr_int("to", bf ? OX_BFLOAT16 : OX_FLOAT16)};
      codes->u.t.dt = bf ? OX_BFLOAT16 : OX_FLOAT16;
      for (int t = 0; t < 3; t++) {
        ox_set_threads(t + 1);
        CHECK_EQ_I(kit_run("", "Cast", 19, 1, to_f, 1, &codes, 1, &w[t]), 0);
        CHECK_EQ_I(kit_run("", "Cast", 19, 1, to_h, 1, &fl, 1, &h[t]), 0);
      }
      ox_set_threads(1);
      CHECK(same_bytes_of(w[0], w[1]) && same_bytes_of(w[0], w[2]));
      CHECK(same_bytes_of(h[0], h[1]) && same_bytes_of(h[0], h[2]));
      int nb = 0;
      for (int64_t i = 0; i < d[0]; i++) {
        uint16_t c = (uint16_t)i;
        float want = bf ? ox_bf16_to_f32(c) : ox_f16_to_f32(c), got = ((float *)w[0]->u.t.data)[i];
        float x = ((float *)fl->u.t.data)[i];
        nb += memcmp(&got, &want, 4) != 0;
        nb += ((uint16_t *)h[0]->u.t.data)[i] != (bf ? ox_f32_to_bf16(x) : ox_f32_to_f16(x));
      }
      CHECK_EQ_I(nb, 0);
    }
    codes->u.t.dt = OX_FLOAT16;
  }

  /* ---- Pow with exponent 2 ---- */
  {
    int64_t d[1] = {777};
    ox_value *x = random_tensor(OX_FLOAT, 1, d), *two = tensor(OX_FLOAT, 0, NULL, (float[]){2});
    ox_value *two64 = tensor(OX_INT64, 0, NULL, (int64_t[]){2}), *y = NULL, *y2 = NULL;
    ((float *)x->u.t.data)[3] = NAN;
    ((float *)x->u.t.data)[4] = -INFINITY;
    ((float *)x->u.t.data)[5] = -0.0f;
    CHECK_EQ_I(kit_run("", "Pow", 15, 0, NULL, 2, (ox_value *[]){x, two}, 1, &y), 0);
    CHECK_EQ_I(kit_run("", "Pow", 15, 0, NULL, 2, (ox_value *[]){x, two64}, 1, &y2), 0);
    int nb = 0;
    for (int64_t i = 0; i < d[0]; i++) {
      float v = ((float *)x->u.t.data)[i], w = v * v;
      nb += memcmp(&((float *)y->u.t.data)[i], &w, 4) != 0 || memcmp(&((float *)y2->u.t.data)[i], &w, 4) != 0;
      nb += isfinite(v) && !(fabsf(w - powf(v, 2)) <= 1e-6f * w);
    }
    CHECK_EQ_I(nb, 0);
    /* a (1, 1, 1) exponent broadcasts x to (1, 1, 3) */
    ox_value *x3 = tensor(OX_FLOAT, 1, (int64_t[]){3}, (float[]){1, -2, 3});
    ox_value *t3 = tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, (float[]){2}), *y3 = NULL;
    CHECK_EQ_I(kit_run("", "Pow", 15, 0, NULL, 2, (ox_value *[]){x3, t3}, 1, &y3), 0);
    CHECK(y3 && y3->u.t.rank == 3 && y3->u.t.dims[2] == 3 && ((float *)y3->u.t.data)[1] == 4);
  }

  /* ---- outputs written over dying inputs, through the evaluator ---- */
  {
    /* x -> Relu -> a -> Neg -> b -> Abs -> c: one 1 MiB block besides x's */
    static const char *x_[] = {"x"}, *a_[] = {"a"}, *b_[] = {"b"}, *c_[] = {"c"};
    ox_node ns[] = {kit_node("Relu", 1, x_, 1, a_), kit_node("Neg", 1, a_, 1, b_), kit_node("Abs", 1, b_, 1, c_)};
    ox_valueinfo gi[] = {{.name = "x", .rank = -1}}, go[] = {{.name = "c", .rank = -1}};
    ox_graph g = {"chain", 3, ns, 1, gi, 1, go, 0, NULL, NULL, 0, NULL};
    ox_opset ops[] = {{"", 16}};
    ox_model m = {"mem", ".", 10, 1, ops, &g, 0, NULL};
    CHECK_EQ_I(ox_prepare(A, &m, &E), 0);
    int64_t d[1] = {262144};
    ox_value *x = random_tensor(OX_FLOAT, 1, d), *in[] = {x}, *out[1] = {0};
    /* within one block (and a chunk or two) more: not two */
    size_t lim = ox_memory_limit();
    ox_set_memory_limit(ox_memory_in_use() + (1 << 20) + (600 << 10));
    int rc = ox_run(A, &m, in, out, &E);
    ox_set_memory_limit(lim);
    CHECK_EQ_I(rc, 0);
    if (rc) fprintf(stderr, "chain: %s\n", E.msg);
    int nb = rc ? 1 : 0;
    for (int64_t i = 0; !rc && i < d[0]; i++) {
      float v = ((float *)x->u.t.data)[i];
      nb += ((float *)out[0]->u.t.data)[i] != (v > 0 ? v : 0);
    }
    CHECK_EQ_I(nb, 0);

    /* a = Relu(x); s = Sum(a, x, a): a dies at Sum, which reads it twice */
    static const char *sin_[] = {"a", "x", "a"}, *s_[] = {"s"};
    ox_node ns2[] = {kit_node("Relu", 1, x_, 1, a_), kit_node("Sum", 3, sin_, 1, s_)};
    ox_valueinfo go2[] = {{.name = "s", .rank = -1}};
    ox_graph g2 = {"twice", 2, ns2, 1, gi, 1, go2, 0, NULL, NULL, 0, NULL};
    ox_model m2 = {"mem", ".", 10, 1, ops, &g2, 0, NULL};
    CHECK_EQ_I(ox_prepare(A, &m2, &E), 0);
    CHECK_EQ_I(ox_run(A, &m2, in, out, &E), 0);
    nb = 0;
    for (int64_t i = 0; i < d[0]; i++) {
      float v = ((float *)x->u.t.data)[i], r = v > 0 ? v : 0;
      nb += ((float *)out[0]->u.t.data)[i] != (r + v) + r;
    }
    CHECK_EQ_I(nb, 0);
  }

  ox_arena_free(A);
  return check_done("elementwise");
}
