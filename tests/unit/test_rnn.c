/* tests/unit/test_rnn.c: RNN, GRU and LSTM through the registry against a
 * plain scalar reference written here from the spec's equations (one time
 * step, one batch row, one hidden unit at a time, in double), over
 * directions, sequence_lens, layout, clip, activation lists, peepholes,
 * input_forget and linear_before_reset; a few values computed by hand; and
 * the error messages. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KIT_IN_NAMES {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"}
#define KIT_OUT_NAMES {"Y", "Y_h", "Y_c"}
#include "kit.h"
#include "core/gemm.h"
#include "core/threads.h"

static unsigned rng = 777;
static double rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* ---- running one node ---- */

/* A tensor of dt holding vals (NULL: zeros) rounded to dt. */
static ox_value *dtensor(ox_dtype dt, int rank, const int64_t *dims, const double *vals) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, dt, rank, dims, &v, &E)) {
    fprintf(stderr, "tensor: %s\n", E.msg);
    return NULL;
  }
  for (int64_t i = 0; i < v->u.t.n; i++) ox_store_f64(dt, v->u.t.data, i, vals ? vals[i] : 0);
  return v;
}

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               int nout, ox_value **out) {
  int rc = kit_run("", op, opset, nattr, attr, nin, in, nout, out);
  if (rc && rc != OX_EINPUT) fprintf(stderr, "%s: %s\n", op, E.msg);
  return rc;
}

/* ---- the reference ---- */

typedef struct { const char *name; double alpha, beta; } ract;

static double ract_apply(const ract *a, double x) {
  const char *n = a->name;
  if (!strcasecmp(n, "Relu")) return x > 0 ? x : 0;
  if (!strcasecmp(n, "Tanh")) return tanh(x);
  if (!strcasecmp(n, "Sigmoid")) return 1 / (1 + exp(-x));
  if (!strcasecmp(n, "Affine")) return a->alpha * x + a->beta;
  if (!strcasecmp(n, "LeakyRelu")) return x >= 0 ? x : a->alpha * x;
  if (!strcasecmp(n, "ThresholdedRelu")) return x >= a->alpha ? x : 0;
  if (!strcasecmp(n, "ScaledTanh")) return a->alpha * tanh(a->beta * x);
  if (!strcasecmp(n, "HardSigmoid")) return fmin(fmax(a->alpha * x + a->beta, 0), 1);
  if (!strcasecmp(n, "Elu")) return x >= 0 ? x : a->alpha * (exp(x) - 1);
  if (!strcasecmp(n, "Softsign")) return x / (1 + fabs(x));
  if (!strcasecmp(n, "Softplus")) return log(1 + exp(x));
  abort();
}

typedef struct {
  const char *op;        /* "RNN", "GRU", "LSTM" */
  const char *dir;       /* NULL: default */
  int S, N, I, H, layout, lbr, input_forget, bias, init, peep;
  const int *lens;       /* NULL: full */
  double clip;           /* 0: none */
  double wscale;         /* W and R in [-wscale, wscale) (0: 1.5, as the rest) */
  int nact;              /* activations given (0: default) */
  ract acts[6];
  int nalpha, nbeta;
  float alphas[6], betas[6];
  ox_dtype dt;
} rcase;

/* Element access in the layout-ordered tensors. */
#define XI(l, t, b, i) ((l) ? (((int64_t)(b) * S + (t)) * I + (i)) : (((int64_t)(t) * N + (b)) * I + (i)))
#define SI(l, d, b, k) ((l) ? (((int64_t)(b) * D + (d)) * H + (k)) : (((int64_t)(d) * N + (b)) * H + (k)))
#define YI(l, t, d, b, k) ((l) ? ((((int64_t)(b) * S + (t)) * D + (d)) * H + (k)) : ((((int64_t)(t) * D + (d)) * N + (b)) * H + (k)))

static double clipv(const rcase *rc, double v) {
  return rc->clip > 0 ? fmin(fmax(v, -rc->clip), rc->clip) : v;
}

/* x: X, w: W, r: R, b: B, h0, c0, p as the op takes them (layout-ordered);
 * outputs y, yh, yc likewise. */
static void reference(const rcase *rc, const ract acts[2][3], const double *x, const double *w,
                      const double *r, const double *b, const double *h0, const double *c0,
                      const double *p, double *y, double *yh, double *yc) {
  int S = rc->S, N = rc->N, I = rc->I, H = rc->H;
  int bidi = rc->dir && !strcmp(rc->dir, "bidirectional"), D = bidi ? 2 : 1;
  int cell = !strcmp(rc->op, "RNN") ? 0 : !strcmp(rc->op, "GRU") ? 1 : 2, G = cell == 0 ? 1 : cell == 1 ? 3 : 4;
  int l = rc->layout;
  memset(y, 0, sizeof(double) * (size_t)(S * D * N * H));
  double *h = calloc((size_t)H, sizeof *h), *cc = calloc((size_t)H, sizeof *cc), *hn = calloc((size_t)H, sizeof *hn);
  double *g = calloc((size_t)(G * H), sizeof *g), *rg = calloc((size_t)H, sizeof *rg);
  for (int d = 0; d < D; d++) {
    int rev = d == 1 || (rc->dir && !strcmp(rc->dir, "reverse"));
    const double *Wd = w + (int64_t)d * G * H * I, *Rd = r + (int64_t)d * G * H * H;
    const double *Bd = b ? b + (int64_t)d * 2 * G * H : NULL, *Pd = p ? p + (int64_t)d * 3 * H : NULL;
    const ract *f = &acts[d][0], *gg = &acts[d][1], *hh = &acts[d][2];
    for (int n = 0; n < N; n++) {
      int len = rc->lens ? rc->lens[n] : S;
      for (int k = 0; k < H; k++) {
        h[k] = h0 ? h0[SI(l, d, n, k)] : 0;
        cc[k] = c0 ? c0[SI(l, d, n, k)] : 0;
      }
      for (int s = 0; s < len; s++) {
        int t = rev ? len - 1 - s : s;
        /* g[q] = Xt W_q^T + Wb_q (+ Ht-1 R_q^T + Rb_q, except GRU's h gate) */
        for (int q = 0; q < G * H; q++) {
          double v = Bd ? Bd[q] : 0;
          for (int i = 0; i < I; i++) v += x[XI(l, t, n, i)] * Wd[q * I + i];
          if (!(cell == 1 && q >= 2 * H)) {
            v += Bd ? Bd[G * H + q] : 0;
            for (int k = 0; k < H; k++) v += h[k] * Rd[q * H + k];
          }
          g[q] = v;
        }
        if (cell == 0) {
          for (int k = 0; k < H; k++) hn[k] = ract_apply(f, clipv(rc, g[k]));
        } else if (cell == 1) {
          for (int k = 0; k < H; k++) rg[k] = ract_apply(f, clipv(rc, g[H + k]));
          for (int k = 0; k < H; k++) {
            double z = ract_apply(f, clipv(rc, g[k])), rr = rg[k], hr = 0;
            double rb = Bd ? Bd[G * H + 2 * H + k] : 0;
            if (rc->lbr) {
              for (int m = 0; m < H; m++) hr += h[m] * Rd[(2 * H + k) * H + m];
              hr = rr * (hr + rb);
            } else {
              for (int m = 0; m < H; m++) hr += rg[m] * h[m] * Rd[(2 * H + k) * H + m];
              hr += rb;
            }
            double ht = ract_apply(gg, clipv(rc, g[2 * H + k] + hr));
            hn[k] = (1 - z) * ht + z * h[k];
          }
        } else {
          for (int k = 0; k < H; k++) {
            double pi = Pd ? Pd[k] : 0, po = Pd ? Pd[H + k] : 0, pf = Pd ? Pd[2 * H + k] : 0;
            double it = ract_apply(f, clipv(rc, g[k] + pi * cc[k]));
            double ft = rc->input_forget ? 1 - it : ract_apply(f, clipv(rc, g[2 * H + k] + pf * cc[k]));
            double ct = ract_apply(gg, clipv(rc, g[3 * H + k]));
            double C = ft * cc[k] + it * ct;
            double ot = ract_apply(f, clipv(rc, g[H + k] + po * C));
            cc[k] = C;
            hn[k] = ot * ract_apply(hh, C);
          }
        }
        for (int k = 0; k < H; k++) {
          h[k] = hn[k];
          y[YI(l, t, d, n, k)] = h[k];
        }
      }
      for (int k = 0; k < H; k++) { /* length 0: a zero state (onnxruntime) */
        yh[SI(l, d, n, k)] = len ? h[k] : 0;
        if (yc) yc[SI(l, d, n, k)] = len ? cc[k] : 0;
      }
    }
  }
  free(h), free(cc), free(hn), free(g), free(rg);
}

static int close_all(const char *what, const ox_value *v, const double *want, int64_t n, double tol) {
  if (!v || v->kind != OX_TENSOR || v->u.t.n != n) {
    fprintf(stderr, "%s: missing or wrong size\n", what);
    return 0;
  }
  for (int64_t i = 0; i < n; i++) {
    double got = ox_load_f64(v->u.t.dt, v->u.t.data, i);
    if (!(fabs(got - want[i]) <= tol * (1 + fabs(want[i])))) {
      fprintf(stderr, "%s element %lld: got %.9g want %.9g\n", what, (long long)i, got, want[i]);
      return 0;
    }
  }
  return 1;
}

/* Run one case through the kernel (at opset 22, or 14 for float16) and
 * compare Y, Y_h (and Y_c) with the reference. */
static void check_case(const char *label, rcase rc, int opset) {
  int S = rc.S, N = rc.N, I = rc.I, H = rc.H, l = rc.layout;
  int bidi = rc.dir && !strcmp(rc.dir, "bidirectional"), D = bidi ? 2 : 1;
  int cell = !strcmp(rc.op, "RNN") ? 0 : !strcmp(rc.op, "GRU") ? 1 : 2, G = cell == 0 ? 1 : cell == 1 ? 3 : 4;
  ox_dtype dt = rc.dt ? rc.dt : OX_FLOAT;
  int64_t nx = (int64_t)S * N * I, nw = (int64_t)D * G * H * I, nr = (int64_t)D * G * H * H;
  int64_t nb = (int64_t)D * 2 * G * H, ns = (int64_t)D * N * H, np = (int64_t)D * 3 * H, ny = (int64_t)S * D * N * H;
  double *x = malloc(sizeof(double) * (size_t)(nx + nw + nr + nb + 2 * ns + np + ny + 2 * ns + 8));
  double *w = x + nx, *r = w + nw, *b = r + nr, *h0 = b + nb, *c0 = h0 + ns, *p = c0 + ns;
  double *y = p + np, *yh = y + ny, *yc = yh + ns;
  double scale = dt == OX_FLOAT16 || dt == OX_BFLOAT16 ? 1.0 : 1.5;
  for (int64_t i = 0; i < nx + nw + nr + nb + 2 * ns + np; i++) {
    double v = rnd() * scale;
    if (dt == OX_FLOAT16) v = ox_f16_to_f32(ox_f32_to_f16((float)v)); /* exactly representable */
    if (dt == OX_BFLOAT16) v = ox_bf16_to_f32(ox_f32_to_bf16((float)v));
    x[i] = v;
  }
  if (rc.wscale > 0) /* weights as trained nets have them: the sums stay well-conditioned at large H */
    for (int64_t i = 0; i < nw + nr; i++) w[i] *= rc.wscale / scale;
  /* activations as the kernel reads them */
  static const char *defs[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  ract acts[2][3];
  int nf = cell + 1, ia = 0, ib = 0;
  for (int d = 0; d < D; d++)
    for (int k = 0; k < nf; k++) {
      if (!rc.nact) {
        acts[d][k] = (ract){defs[cell][k], 0, 0};
        continue;
      }
      int idx = rc.nact == nf ? k : d * nf + k;
      if (rc.nact == nf && d == 1) { acts[1][k] = acts[0][k]; continue; }
      ract a = rc.acts[idx];
      /* alpha and beta, consumed in order by the functions that take them */
      const char *nm = a.name;
      int ua = !strcasecmp(nm, "Affine") || !strcasecmp(nm, "LeakyRelu") || !strcasecmp(nm, "ThresholdedRelu") ||
               !strcasecmp(nm, "ScaledTanh") || !strcasecmp(nm, "HardSigmoid") || !strcasecmp(nm, "Elu");
      int ub = !strcasecmp(nm, "Affine") || !strcasecmp(nm, "ScaledTanh") || !strcasecmp(nm, "HardSigmoid");
      if (ua && ia < rc.nalpha) a.alpha = rc.alphas[ia++];
      if (ub && ib < rc.nbeta) a.beta = rc.betas[ib++];
      acts[d][k] = a;
    }
  reference(&rc, (const ract(*)[3])acts, x, w, r, rc.bias ? b : NULL, rc.init ? h0 : NULL,
            rc.init && cell == 2 ? c0 : NULL, rc.peep ? p : NULL, y, yh, cell == 2 ? yc : NULL);
  /* the node */
  ox_value *in[8] = {0};
  int64_t xd[3] = {l ? N : S, l ? S : N, I}, sd[3] = {l ? N : D, l ? D : N, H};
  in[0] = dtensor(dt, 3, xd, x);
  in[1] = dtensor(dt, 3, (int64_t[]){D, G * H, I}, w);
  in[2] = dtensor(dt, 3, (int64_t[]){D, G * H, H}, r);
  if (rc.bias) in[3] = dtensor(dt, 2, (int64_t[]){D, 2 * G * H}, b);
  if (rc.lens) {
    double lv[16];
    for (int n = 0; n < N; n++) lv[n] = rc.lens[n];
    in[4] = dtensor(OX_INT32, 1, (int64_t[]){N}, lv);
  }
  if (rc.init) in[5] = dtensor(dt, 3, sd, h0);
  if (rc.init && cell == 2) in[6] = dtensor(dt, 3, sd, c0);
  if (rc.peep) in[7] = dtensor(dt, 2, (int64_t[]){D, 3 * H}, p);
  int nin = cell == 2 ? 8 : 6;
  while (nin > 3 && !in[nin - 1]) nin--;
  ox_attr at[12];
  int na = 0;
  at[na++] = (ox_attr){.name = "hidden_size", .type = OX_ATTR_INT, .i = H};
  if (rc.dir) at[na++] = (ox_attr){.name = "direction", .type = OX_ATTR_STRING, .s = {rc.dir, (int64_t)strlen(rc.dir)}};
  if (l) at[na++] = (ox_attr){.name = "layout", .type = OX_ATTR_INT, .i = 1};
  if (rc.lbr) at[na++] = (ox_attr){.name = "linear_before_reset", .type = OX_ATTR_INT, .i = 1};
  if (rc.input_forget) at[na++] = (ox_attr){.name = "input_forget", .type = OX_ATTR_INT, .i = 1};
  if (rc.clip > 0) at[na++] = (ox_attr){.name = "clip", .type = OX_ATTR_FLOAT, .f = (float)rc.clip};
  ox_str names[6];
  if (rc.nact) {
    for (int i = 0; i < rc.nact; i++) names[i] = (ox_str){rc.acts[i].name, (int64_t)strlen(rc.acts[i].name)};
    at[na++] = (ox_attr){.name = "activations", .type = OX_ATTR_STRINGS, .n = rc.nact, .strings = names};
  }
  if (rc.nalpha) at[na++] = (ox_attr){.name = "activation_alpha", .type = OX_ATTR_FLOATS, .n = rc.nalpha, .floats = rc.alphas};
  if (rc.nbeta) at[na++] = (ox_attr){.name = "activation_beta", .type = OX_ATTR_FLOATS, .n = rc.nbeta, .floats = rc.betas};
  ox_value *out[3];
  int nout = cell == 2 ? 3 : 2;
  int rcode = run(rc.op, opset, na, at, nin, in, nout, out);
  CHECK_EQ_I(rcode, 0);
  if (rcode) {
    fprintf(stderr, "%s: %s\n", label, E.msg);
    free(x);
    return;
  }
  double tol = dt == OX_DOUBLE ? 1e-12 : dt == OX_FLOAT16 ? 4e-3 : dt == OX_BFLOAT16 ? 1.6e-2 : 2e-5;
  int ok = close_all("Y", out[0], y, ny, tol) && close_all("Y_h", out[1], yh, ns, tol) &&
           (cell != 2 || close_all("Y_c", out[2], yc, ns, tol));
  if (!ok) fprintf(stderr, "  in case %s\n", label);
  CHECK(ok);
  CHECK(out[0] && out[0]->u.t.rank == 4 && out[0]->u.t.dims[l ? 0 : 1] == (l ? N : D));
  CHECK(out[0] && out[0]->u.t.dt == dt);
  free(x);
}

static void test_against_reference(void) {
  static const int lens3[] = {3, 1, 0}, lens2[] = {2, 4};
  /* RNN */
  check_case("rnn defaults", (rcase){.op = "RNN", .S = 4, .N = 3, .I = 5, .H = 6}, 22);
  check_case("rnn bidi bias init", (rcase){.op = "RNN", .dir = "bidirectional", .S = 3, .N = 2, .I = 3, .H = 4, .bias = 1, .init = 1}, 7);
  check_case("rnn reverse lens", (rcase){.op = "RNN", .dir = "reverse", .S = 3, .N = 3, .I = 2, .H = 3, .bias = 1, .lens = lens3}, 22);
  check_case("rnn layout1 bidi lens", (rcase){.op = "RNN", .dir = "bidirectional", .S = 4, .N = 2, .I = 3, .H = 2, .layout = 1, .init = 1, .lens = lens2}, 14);
  check_case("rnn relu clip", (rcase){.op = "RNN", .S = 5, .N = 2, .I = 3, .H = 3, .bias = 1, .clip = 0.5,
                                      .nact = 1, .acts = {{"Relu"}}}, 22);
  check_case("rnn affine/leaky bidi", (rcase){.op = "RNN", .dir = "bidirectional", .S = 3, .N = 2, .I = 3, .H = 3, .bias = 1,
                                              .nact = 2, .acts = {{"Affine"}, {"LeakyRelu"}}, .nalpha = 2, .alphas = {0.5f, 0.2f},
                                              .nbeta = 1, .betas = {0.25f}}, 22);
  /* GRU */
  check_case("gru defaults", (rcase){.op = "GRU", .S = 3, .N = 2, .I = 4, .H = 5}, 22);
  check_case("gru bias init", (rcase){.op = "GRU", .S = 4, .N = 3, .I = 3, .H = 4, .bias = 1, .init = 1}, 7);
  check_case("gru lbr bias", (rcase){.op = "GRU", .S = 4, .N = 3, .I = 3, .H = 4, .bias = 1, .init = 1, .lbr = 1}, 14);
  check_case("gru lbr bidi lens", (rcase){.op = "GRU", .dir = "bidirectional", .S = 3, .N = 3, .I = 2, .H = 3, .bias = 1,
                                          .lbr = 1, .lens = lens3}, 22);
  check_case("gru reverse layout1 lens", (rcase){.op = "GRU", .dir = "reverse", .S = 4, .N = 2, .I = 3, .H = 2, .bias = 1,
                                                 .layout = 1, .init = 1, .lens = lens2}, 22);
  check_case("gru hardsigmoid/softsign clip", (rcase){.op = "GRU", .S = 3, .N = 2, .I = 3, .H = 3, .bias = 1, .clip = 0.7,
                                                      .nact = 2, .acts = {{"HardSigmoid"}, {"Softsign"}},
                                                      .nalpha = 1, .alphas = {0.3f}, .nbeta = 1, .betas = {0.4f}}, 22);
  check_case("gru 4 acts bidi", (rcase){.op = "GRU", .dir = "bidirectional", .S = 3, .N = 2, .I = 2, .H = 3, .bias = 1,
                                        .nact = 4, .acts = {{"Sigmoid"}, {"Elu"}, {"sigmoid"}, {"ScaledTanh"}},
                                        .nalpha = 2, .alphas = {0.7f, 1.3f}, .nbeta = 1, .betas = {0.8f}}, 22);
  /* LSTM */
  check_case("lstm defaults", (rcase){.op = "LSTM", .S = 3, .N = 2, .I = 4, .H = 5}, 22);
  check_case("lstm peepholes init", (rcase){.op = "LSTM", .S = 4, .N = 3, .I = 3, .H = 4, .bias = 1, .init = 1, .peep = 1}, 7);
  check_case("lstm input_forget", (rcase){.op = "LSTM", .S = 3, .N = 2, .I = 3, .H = 3, .bias = 1, .init = 1, .peep = 1,
                                          .input_forget = 1}, 22);
  check_case("lstm bidi layout1 lens", (rcase){.op = "LSTM", .dir = "bidirectional", .S = 4, .N = 2, .I = 3, .H = 3, .bias = 1,
                                               .init = 1, .peep = 1, .layout = 1, .lens = lens2}, 14);
  check_case("lstm reverse lens0 clip", (rcase){.op = "LSTM", .dir = "reverse", .S = 3, .N = 3, .I = 2, .H = 2, .bias = 1,
                                                .init = 1, .lens = lens3, .clip = 0.3}, 22);
  check_case("lstm acts", (rcase){.op = "LSTM", .S = 3, .N = 2, .I = 2, .H = 3, .bias = 1,
                                  .nact = 3, .acts = {{"Softplus"}, {"ThresholdedRelu"}, {"Relu"}},
                                  .nalpha = 1, .alphas = {0.1f}}, 1);
  /* double and float16 */
  check_case("lstm double", (rcase){.op = "LSTM", .dir = "bidirectional", .S = 5, .N = 3, .I = 4, .H = 6, .bias = 1,
                                    .init = 1, .peep = 1, .dt = OX_DOUBLE}, 22);
  check_case("gru double", (rcase){.op = "GRU", .S = 5, .N = 3, .I = 4, .H = 6, .bias = 1, .dt = OX_DOUBLE}, 22);
  check_case("rnn float16", (rcase){.op = "RNN", .S = 3, .N = 2, .I = 3, .H = 4, .bias = 1, .dt = OX_FLOAT16}, 14);
  check_case("gru bfloat16", (rcase){.op = "GRU", .dir = "bidirectional", .S = 3, .N = 2, .I = 3, .H = 4, .bias = 1,
                                    .dt = OX_BFLOAT16}, 22);
  check_case("lstm 1x1x1", (rcase){.op = "LSTM", .S = 1, .N = 1, .I = 1, .H = 1}, 14);
  /* a batch of one (the VAD nets' LSTM): thin products (core/gemv.h), the
   * weights read in place, sizes past the vector widths with odd tails */
  check_case("lstm batch 1", (rcase){.op = "LSTM", .S = 3, .N = 1, .I = 37, .H = 45, .bias = 1,
                                     .init = 1, .peep = 1}, 22);
  check_case("gru batch 1 double", (rcase){.op = "GRU", .dir = "bidirectional", .S = 2, .N = 1, .I = 19,
                                           .H = 21, .bias = 1, .init = 1, .dt = OX_DOUBLE}, 22);
  /* bigger: the GEMM's blocked paths */
  check_case("lstm large", (rcase){.op = "LSTM", .dir = "bidirectional", .S = 7, .N = 9, .I = 37, .H = 45, .bias = 1,
                                   .init = 1, .peep = 1}, 22);
}

/* The gates' pre-activations come out of the recurrent product's store
 * (ops/rnn.c's rec_add_f: the step's row of X W^T and the biases added to
 * the first columns, the rest left to the cell; on the portable plan, a
 * pass after the GEMM): against the reference at batch sizes that take
 * each row path of the kernel (1 and 2: pairs of column slivers; 3: a
 * sliver of 4 rows; 5 and 9: whole slivers and one row more), hidden
 * sizes whose gate boundaries fall inside a vector (GRU's z, r | h at 2H)
 * or past the K block of 256, with and without biases, clip, each
 * direction and short rows, on the AVX-512, AVX2 and portable plans. */
static void test_fused_gates(void) {
  static const int batches[] = {1, 2, 3, 5, 9}, hiddens[] = {13, 48, 100, 261};
  static const int lens9[] = {5, 0, 3, 5, 1, 4, 5, 2, 5};
  static const char *dirs[] = {"forward", "reverse", "bidirectional"};
  static const int isas[] = {-1, OX_CPU_AVX2, OX_CPU_GENERIC};
  int k = 0;
  for (int ii = 0; ii < 3; ii++)
    for (int bi = 0; bi < 5; bi++)
      for (int hi = 0; hi < 4; hi++)
        for (int ci = 0; ci < 4; ci++, k++) {
          int N = batches[bi], H = hiddens[hi];
          if (H > 200 && (N > 3 || ii)) continue; /* the big ones once */
          rcase rc = {.op = ci == 0 ? "RNN" : ci == 3 ? "LSTM" : "GRU", .dir = dirs[k % 3], .S = 5, .N = N,
                      .I = 7, .H = H, .bias = k % 4 != 1, .init = 1, .lbr = ci == 2, .peep = ci == 3 && k % 2,
                      .lens = k % 5 == 2 ? lens9 : NULL, .clip = k % 3 == 1 ? 0.6 : 0,
                      .wscale = 1.5 / sqrt(H)};
          char label[128];
          snprintf(label, sizeof label, "fused gates: %s%s N=%d H=%d %s bias=%d clip=%g lens=%d isa=%d", rc.op,
                   rc.lbr ? " lbr" : "", N, H, rc.dir, rc.bias, rc.clip, rc.lens != NULL, isas[ii]);
          ox_gemm_max_isa(isas[ii]);
          check_case(label, rc, 22);
          ox_gemm_max_isa(-1);
        }
}

/* Values by hand: H = I = N = 1. */
static void test_by_hand(void) {
  ox_value *in[8] = {0}, *out[3];
  ox_attr at[2] = {{.name = "hidden_size", .type = OX_ATTR_INT, .i = 1}};
  /* RNN, f = Tanh: h1 = tanh(1 * 0.5) = 0.46211716, h2 = tanh(2 * 0.5 + 0.46211716 * 2) */
  in[0] = dtensor(OX_FLOAT, 3, (int64_t[]){2, 1, 1}, (double[]){1, 2});
  in[1] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, (double[]){0.5});
  in[2] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, (double[]){2});
  CHECK_EQ_I(run("RNN", 14, 1, at, 3, in, 2, out), 0);
  double h1 = tanh(0.5), h2 = tanh(1 + 2 * h1);
  CHECK(out[0] && fabs(ox_load_f64(OX_FLOAT, out[0]->u.t.data, 0) - h1) < 1e-6);
  CHECK(out[0] && fabs(ox_load_f64(OX_FLOAT, out[0]->u.t.data, 1) - h2) < 1e-6);
  CHECK(out[1] && fabs(ox_load_f64(OX_FLOAT, out[1]->u.t.data, 0) - h2) < 1e-6);
  /* sequence_lens 1 of 2: Y[1] is 0 and Y_h is h1 */
  in[4] = dtensor(OX_INT32, 1, (int64_t[]){1}, (double[]){1});
  CHECK_EQ_I(run("RNN", 14, 1, at, 5, in, 2, out), 0);
  CHECK(out[0] && ox_load_f64(OX_FLOAT, out[0]->u.t.data, 1) == 0);
  CHECK(out[1] && fabs(ox_load_f64(OX_FLOAT, out[1]->u.t.data, 0) - h1) < 1e-6);
  /* reverse, sequence_lens 1: the only step is t = 0, from the zero state */
  at[1] = (ox_attr){.name = "direction", .type = OX_ATTR_STRING, .s = {"reverse", 7}};
  CHECK_EQ_I(run("RNN", 14, 2, at, 5, in, 2, out), 0);
  CHECK(out[0] && fabs(ox_load_f64(OX_FLOAT, out[0]->u.t.data, 0) - h1) < 1e-6);
  CHECK(out[0] && ox_load_f64(OX_FLOAT, out[0]->u.t.data, 1) == 0);
  /* Softplus far out: 100, not inf; ThresholdedRelu keeps x == alpha (x >= alpha) */
  in[0] = dtensor(OX_FLOAT, 3, (int64_t[]){2, 1, 1}, (double[]){100, 2});
  in[1] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, (double[]){1});
  in[2] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, (double[]){0});
  in[4] = NULL;
  ox_str sp = {"Softplus", 8}, tr = {"ThresholdedRelu", 15};
  ox_attr aa[3] = {{.name = "hidden_size", .type = OX_ATTR_INT, .i = 1},
                   {.name = "activations", .type = OX_ATTR_STRINGS, .n = 1, .strings = &sp},
                   {.name = "activation_alpha", .type = OX_ATTR_FLOATS, .n = 1, .floats = (float[]){2}}};
  CHECK_EQ_I(run("RNN", 22, 2, aa, 3, in, 2, out), 0);
  CHECK(out[0] && ox_load_f64(OX_FLOAT, out[0]->u.t.data, 0) == 100);
  aa[1].strings = &tr;
  CHECK_EQ_I(run("RNN", 22, 3, aa, 3, in, 2, out), 0);
  CHECK(out[0] && ox_load_f64(OX_FLOAT, out[0]->u.t.data, 1) == 2);
  /* LSTM with input_forget and every weight 0 but W_c = 1, x = 2:
   * i = o = f(0) = 0.5, f = 1 - i = 0.5, c~ = tanh(2), C = 0.5 tanh(2), H = 0.5 tanh(C) */
  in[4] = NULL;
  double wl[4] = {0, 0, 0, 1};
  in[0] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, (double[]){2});
  in[1] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 4, 1}, wl);
  in[2] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 4, 1}, NULL);
  in[6] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 1, 1}, (double[]){4}); /* C0 = 4 */
  ox_attr la[2] = {{.name = "hidden_size", .type = OX_ATTR_INT, .i = 1},
                   {.name = "input_forget", .type = OX_ATTR_INT, .i = 1}};
  CHECK_EQ_I(run("LSTM", 22, 2, la, 7, in, 3, out), 0);
  double C = 0.5 * 4 + 0.5 * tanh(2), Hh = 0.5 * tanh(C);
  CHECK(out[2] && fabs(ox_load_f64(OX_FLOAT, out[2]->u.t.data, 0) - C) < 1e-6);
  CHECK(out[1] && fabs(ox_load_f64(OX_FLOAT, out[1]->u.t.data, 0) - Hh) < 1e-6);
  in[6] = NULL;
}

static void test_errors(void) {
  ox_value *in[8] = {0}, *out[3];
  ox_attr at[3] = {{.name = "hidden_size", .type = OX_ATTR_INT, .i = 2}};
  in[0] = dtensor(OX_FLOAT, 3, (int64_t[]){2, 1, 3}, NULL);
  in[1] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 6, 3}, NULL);
  in[2] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 6, 2}, NULL);
  CHECK_EQ_I(run("GRU", 22, 1, at, 3, in, 2, out), 0);
  CHECK_FAILS(run("RNN", 22, 1, at, 3, in, 2, out), "expected (1, 2, 3)");
  in[4] = dtensor(OX_INT32, 1, (int64_t[]){1}, (double[]){3});
  CHECK_FAILS(run("GRU", 22, 1, at, 5, in, 2, out), "sequence_lens[0] is 3");
  in[4] = NULL;
  at[1] = (ox_attr){.name = "direction", .type = OX_ATTR_STRING, .s = {"sideways", 8}};
  CHECK_FAILS(run("GRU", 22, 2, at, 3, in, 2, out), "direction 'sideways'");
  ox_str acts[2] = {{"Sigmoid", 7}, {"Cosh", 4}};
  at[1] = (ox_attr){.name = "activations", .type = OX_ATTR_STRINGS, .n = 2, .strings = acts};
  CHECK_FAILS(run("GRU", 22, 2, at, 3, in, 2, out), "activation 'Cosh'");
  at[1].n = 1;
  CHECK_FAILS(run("GRU", 22, 2, at, 3, in, 2, out), "lists 1 functions");
  in[5] = dtensor(OX_FLOAT, 3, (int64_t[]){1, 2, 2}, NULL);
  CHECK_FAILS(run("GRU", 22, 1, at, 6, in, 2, out), "input 5");
  in[5] = dtensor(OX_DOUBLE, 3, (int64_t[]){1, 1, 2}, NULL);
  CHECK_FAILS(run("GRU", 22, 1, at, 6, in, 2, out), "same type");
}

/* The recurrent product runs on the GEMM's micro-kernel at every batch
 * size, so a batch row's outputs do not depend on the rows beside it: row b
 * of a batch of N has the bits of the same row run alone (batch 1 took the
 * thin product, summed in another order, before), and rows b and b + 1 the
 * bits of the two run as a batch of 2 (ops/rnn.c's kernel takes 1 or 2 rows
 * by pairs of column slivers, the last whole one with the partial one);
 * and the same bits with 1 thread and with 2 (the columns split). Hidden
 * sizes that end in a partial sliver of columns. */
static void test_batch_rows(void) {
  static const struct { const char *op; int lbr; } cells[] = {{"RNN", 0}, {"GRU", 0}, {"GRU", 1}, {"LSTM", 0}};
  enum { S = 4, N = 6, I = 11, ROW = 4 };
  for (int ci = 0; ci < 4; ci++)
    for (int bidi = 0; bidi < 2; bidi++)
      for (int dbl = 0; dbl < 2; dbl++) {
        int H = ci == 3 ? 37 : 29, G = ci == 0 ? 1 : ci == 3 ? 4 : 3, D = bidi + 1;
        int lstm = ci == 3;
        ox_dtype dt = dbl ? OX_DOUBLE : OX_FLOAT;
        int64_t nx = (int64_t)S * N * I, nw = (int64_t)D * G * H * I, nr = (int64_t)D * G * H * H;
        int64_t nb = (int64_t)D * 2 * G * H, ns = (int64_t)D * N * H;
        double *v = malloc(sizeof(double) * (size_t)(nx + nw + nr + nb + 2 * ns));
        for (int64_t i = 0; i < nx + nw + nr + nb + 2 * ns; i++) v[i] = rnd();
        double *x = v, *w = x + nx, *r = w + nw, *b = r + nr, *h0 = b + nb, *c0 = h0 + ns;
        /* row ROW alone: x (S, 1, I), initial states (D, 1, H) */
        double x1[S * I], h1[2 * 64], c1[2 * 64];
        for (int t = 0; t < S; t++) memcpy(x1 + t * I, x + ((int64_t)t * N + ROW) * I, sizeof(double) * I);
        for (int d = 0; d < D; d++) {
          memcpy(h1 + d * H, h0 + ((int64_t)d * N + ROW) * H, sizeof(double) * (size_t)H);
          memcpy(c1 + d * H, c0 + ((int64_t)d * N + ROW) * H, sizeof(double) * (size_t)H);
        }
        /* rows ROW and ROW + 1 as a batch of 2: x (S, 2, I), states (D, 2, H) */
        double x2[S * 2 * I], h2[2 * 2 * 64], c2[2 * 2 * 64];
        for (int t = 0; t < S; t++) memcpy(x2 + t * 2 * I, x + ((int64_t)t * N + ROW) * I, sizeof(double) * 2 * I);
        for (int d = 0; d < D; d++) {
          memcpy(h2 + d * 2 * H, h0 + ((int64_t)d * N + ROW) * H, sizeof(double) * (size_t)(2 * H));
          memcpy(c2 + d * 2 * H, c0 + ((int64_t)d * N + ROW) * H, sizeof(double) * (size_t)(2 * H));
        }
        ox_attr at[3] = {attr_int("hidden_size", H), attr_str("direction", bidi ? "bidirectional" : "forward"),
                         attr_int("linear_before_reset", 1)};
        int na = cells[ci].lbr ? 3 : 2, nin = lstm ? 7 : 6;
        ox_value *out[4][3] = {{0}};
        for (int k = 0; k < 4; k++) { /* k 0: the batch; 1: the row alone; 2: the batch on 2 threads; 3: 2 rows */
          int n = k == 1 ? 1 : k == 3 ? 2 : N;
          const double *xk = k == 1 ? x1 : k == 3 ? x2 : x, *hk = k == 1 ? h1 : k == 3 ? h2 : h0;
          const double *ck = k == 1 ? c1 : k == 3 ? c2 : c0;
          ox_value *in[7] = {dtensor(dt, 3, (int64_t[]){S, n, I}, xk),
                             dtensor(dt, 3, (int64_t[]){D, G * H, I}, w), dtensor(dt, 3, (int64_t[]){D, G * H, H}, r),
                             dtensor(dt, 2, (int64_t[]){D, 2 * G * H}, b), NULL,
                             dtensor(dt, 3, (int64_t[]){D, n, H}, hk), dtensor(dt, 3, (int64_t[]){D, n, H}, ck)};
          if (k == 2) ox_set_threads(2), ox_par_set_min(0, 0);
          CHECK_EQ_I(run(cells[ci].op, 14, na, at, nin, in, lstm ? 3 : 2, out[k]), 0);
          ox_set_threads(1), ox_par_set_min(-1, -1);
        }
        int64_t es = dbl ? 8 : 4, bad = 0;
        for (int o = 0; o < (lstm ? 3 : 2) && out[0][o] && out[1][o] && out[2][o] && out[3][o]; o++) {
          const char *yb = out[0][o]->u.t.data, *y1 = out[1][o]->u.t.data, *y2 = out[2][o]->u.t.data;
          const char *y3 = out[3][o]->u.t.data;
          int64_t outer = o == 0 ? (int64_t)S * D : D; /* Y (S, D, N, H); Y_h, Y_c (D, N, H) */
          for (int64_t q = 0; q < outer; q++) {
            bad += memcmp(yb + ((q * N + ROW) * H) * es, y1 + q * H * es, (size_t)(H * es)) != 0;
            bad += memcmp(yb + ((q * N + ROW) * H) * es, y3 + q * 2 * H * es, (size_t)(2 * H * es)) != 0;
          }
          bad += memcmp(yb, y2, (size_t)(out[0][o]->u.t.n * es)) != 0;
        }
        if (bad)
          fprintf(stderr, "%s%s %s %s: %lld rows differ between batch sizes or thread counts\n", cells[ci].op,
                  cells[ci].lbr ? " (linear_before_reset)" : "", bidi ? "bidirectional" : "forward",
                  dbl ? "double" : "float", (long long)bad);
        CHECK_EQ_I(bad, 0);
        free(v);
      }
}

int main(void) {
  A = ox_arena_new();
  test_by_hand();
  test_batch_rows();
  test_against_reference();
  test_fused_gates();
  test_errors();
  ox_arena_free(A);
  return check_done("rnn");
}
