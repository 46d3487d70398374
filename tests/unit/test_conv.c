/* tests/unit/test_conv.c: Conv, ConvTranspose, ConvInteger and the pools of
 * ops/conv.c and ops/pool.c against naive reference loops written here
 * (1-D, 2-D and 3-D; groups, strides, dilations, pads, auto_pad, bias;
 * im2col tiles; count_include_pad, ceil_mode, Indices), called through the
 * registry with a hand-made node; and the error messages. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/eval.h"
#include "core/gemm.h"
#include "core/half.h"
#include "core/threads.h"
#include "kit.h"
#include "ops/conv.h"

static unsigned rng = 2024;
static double rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

static ox_value *random_tensor(ox_dtype dt, int rank, const int64_t *dims) {
  ox_value *v = tensor(dt, rank, dims, NULL);
  for (int64_t i = 0; i < v->u.t.n; i++) ox_store_f64(dt, v->u.t.data, i, rnd());
  return v;
}
static double at(const ox_value *v, int64_t i) { return ox_load_f64(v->u.t.dt, v->u.t.data, i); }

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in, int nout,
               ox_value **out) {
  int rc = kit_run("", op, opset, nattr, attr, nin, in, nout, out);
  if (rc && rc != OX_EINPUT) fprintf(stderr, "%s: %s\n", op, E.msg);
  return rc;
}

/* Does y have dims and values want (within tol relative to magnitude)? */
static int close_to(const ox_value *y, int rank, const int64_t *dims, const double *want, double tol,
                    const char *what) {
  if (!y || y->u.t.rank != rank) {
    fprintf(stderr, "%s: wrong rank\n", what);
    return 0;
  }
  for (int i = 0; i < rank; i++)
    if (y->u.t.dims[i] != dims[i]) {
      fprintf(stderr, "%s: dim %d is %lld, want %lld\n", what, i, (long long)y->u.t.dims[i], (long long)dims[i]);
      return 0;
    }
  for (int64_t i = 0; i < y->u.t.n; i++)
    if (!(fabs(at(y, i) - want[i]) <= tol * (1 + fabs(want[i])))) {
      fprintf(stderr, "%s: element %lld is %.9g, want %.9g\n", what, (long long)i, at(y, i), want[i]);
      return 0;
    }
  return 1;
}

/* ---- a naive N-D convolution ---- */

typedef struct {
  int nd;
  int64_t N, C, M, G;
  int64_t in[3], k[3], s[3], d[3], pads[6];
  const char *auto_pad; /* NULL: explicit pads */
  int bias;
} conv_case;

/* Output dims and the begin pads the case implies (Conv-11 rules). */
static void conv_out(const conv_case *cc, int64_t *out, int64_t *pb) {
  for (int j = 0; j < cc->nd; j++) {
    int64_t dk = (cc->k[j] - 1) * cc->d[j] + 1;
    if (cc->auto_pad && strncmp(cc->auto_pad, "SAME", 4) == 0) {
      out[j] = (cc->in[j] + cc->s[j] - 1) / cc->s[j];
      int64_t tot = (out[j] - 1) * cc->s[j] + dk - cc->in[j];
      if (tot < 0) tot = 0;
      pb[j] = strcmp(cc->auto_pad, "SAME_UPPER") == 0 ? tot / 2 : tot - tot / 2;
    } else if (cc->auto_pad) { /* VALID */
      out[j] = (cc->in[j] - dk) / cc->s[j] + 1;
      pb[j] = 0;
    } else {
      out[j] = (cc->in[j] + cc->pads[j] + cc->pads[cc->nd + j] - dk) / cc->s[j] + 1;
      pb[j] = cc->pads[j];
    }
  }
}

/* Conv's attributes for a case: group, strides, dilations, kernel_shape and
 * pads or auto_pad; returns how many (at most 5). */
static int conv_attrs(int nd, int64_t G, const int64_t *s, const int64_t *d, const int64_t *k,
                      const int64_t *pads, const char *auto_pad, ox_attr *at_) {
  int na = 0;
  at_[na++] = attr_int("group", G);
  at_[na++] = attr_ints("strides", nd, s);
  at_[na++] = attr_ints("dilations", nd, d);
  at_[na++] = attr_ints("kernel_shape", nd, k);
  if (auto_pad) at_[na++] = attr_str("auto_pad", auto_pad);
  else at_[na++] = attr_ints("pads", 2 * nd, pads);
  return na;
}

static void run_conv_case(const conv_case *cc, ox_dtype dt, const char *label) {
  int nd = cc->nd;
  int64_t xd[5] = {cc->N, cc->C}, wd[5] = {cc->M, cc->C / cc->G}, out[3], pb[3], yd[5] = {cc->N, cc->M};
  for (int j = 0; j < nd; j++) xd[2 + j] = cc->in[j], wd[2 + j] = cc->k[j];
  conv_out(cc, out, pb);
  for (int j = 0; j < nd; j++) yd[2 + j] = out[j];
  ox_value *in[3] = {random_tensor(dt, nd + 2, xd), random_tensor(dt, nd + 2, wd),
                     cc->bias ? random_tensor(dt, 1, (int64_t[]){cc->M}) : NULL};
  int64_t Cg = cc->C / cc->G, Mg = cc->M / cc->G, nout = 1, nin = 1, nk = 1;
  for (int j = 0; j < nd; j++) nout *= out[j], nin *= cc->in[j], nk *= cc->k[j];
  double *want = calloc((size_t)(cc->N * cc->M * nout), sizeof *want);
  for (int64_t n = 0; n < cc->N; n++)
    for (int64_t m = 0; m < cc->M; m++)
      for (int64_t o = 0; o < nout; o++) {
        double acc = cc->bias ? at(in[2], m) : 0;
        int64_t oi[3], r = o;
        for (int j = nd - 1; j >= 0; j--) oi[j] = r % out[j], r /= out[j];
        for (int64_t ci = 0; ci < Cg; ci++)
          for (int64_t kk = 0; kk < nk; kk++) {
            int64_t ki[3], q = kk, xi = 0, ok = 1;
            for (int j = nd - 1; j >= 0; j--) ki[j] = q % cc->k[j], q /= cc->k[j];
            for (int j = 0; j < nd; j++) {
              int64_t i = oi[j] * cc->s[j] + ki[j] * cc->d[j] - pb[j];
              if (i < 0 || i >= cc->in[j]) ok = 0;
              xi = xi * cc->in[j] + i;
            }
            if (!ok) continue;
            int64_t c = (m / Mg) * Cg + ci;
            acc += at(in[0], (n * cc->C + c) * nin + xi) * at(in[1], (m * Cg + ci) * nk + kk);
          }
        want[(n * cc->M + m) * nout + o] = acc;
      }
  ox_attr at_[6];
  int na = conv_attrs(nd, cc->G, cc->s, cc->d, cc->k, cc->pads, cc->auto_pad, at_);
  ox_value *y;
  CHECK_EQ_I(run("Conv", dt == OX_FLOAT16 ? 11 : 22, na, at_, cc->bias ? 3 : 2, in, 1, &y), 0);
  double tol = dt == OX_DOUBLE ? 1e-12 : dt == OX_FLOAT ? 1e-5 : 2e-2;
  CHECK(close_to(y, nd + 2, yd, want, tol * (double)(Cg * nk), label));
  free(want);
}

static void test_conv(void) {
  conv_case cases[] = {
      /* 2-D: plain, pads, strides, dilations, asymmetric pads, bias */
      {2, 1, 3, 4, 1, {5, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1},
      {2, 2, 4, 6, 2, {7, 5}, {3, 2}, {2, 1}, {1, 2}, {0, 1, 2, 0}, NULL, 1},
      {2, 1, 6, 6, 6, {6, 6}, {3, 3}, {1, 2}, {2, 1}, {2, 1, 2, 1}, NULL, 0}, /* depthwise */
      {2, 2, 4, 8, 4, {5, 21}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, /* depthwise x2 */
      {3, 1, 3, 3, 3, {3, 4, 18}, {2, 2, 3}, {1, 1, 1}, {1, 1, 2}, {1, 0, 0, 0, 1, 2}, NULL, 0},
      {2, 1, 4, 8, 2, {5, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1}, /* 1x1 grouped */
      {2, 2, 5, 3, 1, {4, 7}, {1, 1}, {2, 3}, {1, 1}, {0, 0, 0, 0}, NULL, 0}, /* 1x1 strided */
      /* auto_pad */
      {2, 1, 2, 3, 1, {6, 7}, {3, 2}, {2, 2}, {1, 1}, {0}, "SAME_UPPER", 1}, /* odd total pads */
      {2, 1, 2, 3, 1, {6, 7}, {3, 2}, {2, 2}, {1, 1}, {0}, "SAME_LOWER", 0},
      {2, 1, 2, 3, 1, {5, 6}, {4, 2}, {1, 3}, {1, 2}, {0}, "VALID", 1},
      /* 1-D and 3-D */
      {1, 2, 3, 4, 1, {9}, {3}, {2}, {2}, {1, 2}, NULL, 1},
      {1, 1, 4, 4, 4, {6}, {2}, {1}, {1}, {1, 0}, NULL, 0},
      {3, 1, 2, 4, 2, {4, 5, 3}, {2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}, NULL, 1},
      /* several im2col tiles: C/g * K * W * 4 > 256 KiB */
      {2, 1, 64, 3, 1, {5, 300}, {3, 5}, {1, 1}, {1, 1}, {1, 2, 1, 2}, NULL, 1},
      /* a pointwise product in several column tiles */
      {2, 1, 64, 3, 1, {50, 50}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1},
  };
  char label[64];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(label, sizeof label, "conv case %zu float", i);
    run_conv_case(&cases[i], OX_FLOAT, label);
    snprintf(label, sizeof label, "conv case %zu double", i);
    run_conv_case(&cases[i], OX_DOUBLE, label);
  }
  snprintf(label, sizeof label, "conv case 1 float16");
  run_conv_case(&cases[1], OX_FLOAT16, label);
}

/* ---- the float paths of ops/conv_paths.c against the naive loop ----
 * Each case runs under every GEMM/vector level the CPU has (0 portable, 1
 * AVX2, 2 AVX-512) and with 1, 2 and 3 threads: every result within
 * rounding of a float64 loop over the same (rounded) inputs, and the bytes
 * the same for every thread count. The fixed cases aim at each path (direct:
 * depthwise and few channels per group, 1-D and 2-D; gemv: at most 4 output
 * positions; packed GEMM: the rest, in several tiles and with work enough to
 * split); the random ones mix everything. */

typedef struct {
  int nd;
  int64_t N, G, Cg, Mg, in[3], k[3], s[3], d[3], pads[6];
  const char *auto_pad;
  int bias;
} path_case;

static uint64_t prng = 88172645463325252u;
static int path_quick; /* run_path_case: the best level only, 1 and 2 threads */
static int64_t pick(int64_t lo, int64_t hi) { /* uniform in [lo, hi] */
  prng ^= prng << 13, prng ^= prng >> 7, prng ^= prng << 17;
  return lo + (int64_t)(prng % (uint64_t)(hi - lo + 1));
}

/* y and a bound on its rounding error for case pc on inputs in[] */
static int path_reference(const path_case *pc, ox_value **in, int64_t *yd, double **want, double **bound) {
  conv_case cc = {pc->nd, pc->N, pc->G * pc->Cg, pc->G * pc->Mg, pc->G, {0}, {0}, {0}, {0}, {0}, pc->auto_pad, pc->bias};
  int nd = pc->nd;
  for (int j = 0; j < nd; j++) {
    cc.in[j] = pc->in[j], cc.k[j] = pc->k[j], cc.s[j] = pc->s[j], cc.d[j] = pc->d[j];
    cc.pads[j] = pc->pads[j], cc.pads[nd + j] = pc->pads[nd + j];
  }
  int64_t out[3], pb[3], nout = 1, nin = 1, nk = 1;
  conv_out(&cc, out, pb);
  yd[0] = cc.N, yd[1] = cc.M;
  for (int j = 0; j < nd; j++) {
    int64_t dk = (cc.k[j] - 1) * cc.d[j] + 1, padded = cc.in[j];
    if (!pc->auto_pad) padded += cc.pads[j] + cc.pads[nd + j];
    if (padded < dk || out[j] < 1) return 0; /* the op refuses it */
    yd[2 + j] = out[j], nout *= out[j], nin *= cc.in[j], nk *= cc.k[j];
  }
  int64_t total = cc.N * cc.M * nout;
  *want = calloc((size_t)total, sizeof **want);
  *bound = calloc((size_t)total, sizeof **bound);
  for (int64_t n = 0; n < cc.N; n++)
    for (int64_t m = 0; m < cc.M; m++)
      for (int64_t o = 0; o < nout; o++) {
        double acc = pc->bias ? at(in[2], m) : 0, mag = fabs(acc);
        int64_t oi[3], r = o;
        for (int j = nd - 1; j >= 0; j--) oi[j] = r % out[j], r /= out[j];
        for (int64_t ci = 0; ci < pc->Cg; ci++)
          for (int64_t kk = 0; kk < nk; kk++) {
            int64_t ki[3], q = kk, xi = 0, ok = 1;
            for (int j = nd - 1; j >= 0; j--) ki[j] = q % cc.k[j], q /= cc.k[j];
            for (int j = 0; j < nd; j++) {
              int64_t i = oi[j] * cc.s[j] + ki[j] * cc.d[j] - pb[j];
              if (i < 0 || i >= cc.in[j]) ok = 0;
              xi = xi * cc.in[j] + i;
            }
            if (!ok) continue;
            double t = at(in[0], (n * cc.C + (m / pc->Mg) * pc->Cg + ci) * nin + xi) * at(in[1], (m * pc->Cg + ci) * nk + kk);
            acc += t, mag += fabs(t);
          }
        (*want)[(n * cc.M + m) * nout + o] = acc;
        (*bound)[(n * cc.M + m) * nout + o] = mag;
      }
  return 1;
}

/* One run's y against want: within scale * bound[i] + out_eps * |want[i]|
 * (rounding), and the same bytes as the one-thread run's, which th == 1
 * keeps in *first. */
static int check_run(const ox_value *y, const double *want, const double *bound, double scale, double out_eps,
                     void **first, int isa, int th, const char *label) {
  for (int64_t i = 0; i < y->u.t.n; i++)
    if (!(fabs(at(y, i) - want[i]) <= scale * bound[i] + out_eps * fabs(want[i]) + 1e-30)) {
      fprintf(stderr, "%s: isa %d threads %d: element %lld is %.9g, want %.9g\n", label, isa, th,
              (long long)i, at(y, i), want[i]);
      return 0;
    }
  size_t bytes = (size_t)y->u.t.n * ox_dtype_size(y->u.t.dt);
  if (th == 1) *first = memcpy(malloc(bytes), y->u.t.data, bytes);
  else if (memcmp(*first, y->u.t.data, bytes)) {
    fprintf(stderr, "%s: isa %d: %d threads differ from one\n", label, isa, th);
    return 0;
  }
  return 1;
}


/* ---- one input channel per group: the operations of each output ----
 * ops/conv_paths.c's direct and planar paths give each output of a 2-D
 * (or 1-D) Conv with one input channel per group the same operations:
 * 0 + bias, then for each kernel row whose input row is inside the image,
 * each kernel column in order, acc + w * x with x the input or the zero of
 * a horizontal pad (one rounding: a fused multiply-add at the AVX2 and
 * AVX-512 levels; two on the portable one). The bytes are pinned here
 * against that sum, at every level and for 1 and 3 threads, on shapes that
 * make the planar path's bands split (rows whose windows leave the image,
 * bands longer than its run, windows wholly in the pads), with strides,
 * dilations and depth multipliers. */
/* ---- the order checkers' driver ----
 * A case's inputs and its 2-D view (a 1-D case is one row), and a driver
 * that runs Conv on them at every level with 1 and 3 threads and holds
 * every element's bytes to what a callback says that element's operations
 * give at that level. */
typedef struct {
  const path_case *pc;
  ox_dtype dt;
  int64_t C, M, P, nk;
  int64_t in2[2], k2[2], s2[2], d2[2], pb2[2], o2[2]; /* (rows, columns) */
  int64_t yd[4];
  ox_value *in[3];
} order_view;

static void order_setup(order_view *o, const path_case *pc, ox_dtype dt) {
  int nd = pc->nd;
  o->pc = pc, o->dt = dt, o->C = pc->G * pc->Cg, o->M = pc->G * pc->Mg;
  int64_t pe2[2] = {0, pc->pads[1]};
  o->in2[0] = 1, o->in2[1] = pc->in[0], o->k2[0] = 1, o->k2[1] = pc->k[0], o->s2[0] = 1, o->s2[1] = pc->s[0];
  o->d2[0] = 1, o->d2[1] = pc->d[0], o->pb2[0] = 0, o->pb2[1] = pc->pads[0];
  if (nd == 2)
    for (int j = 0; j < 2; j++)
      o->in2[j] = pc->in[j], o->k2[j] = pc->k[j], o->s2[j] = pc->s[j], o->d2[j] = pc->d[j],
      o->pb2[j] = pc->pads[j], pe2[j] = pc->pads[2 + j];
  int64_t xd[4] = {pc->N, o->C}, wd[4] = {o->M, pc->Cg};
  o->yd[0] = pc->N, o->yd[1] = o->M;
  for (int j = 0; j < nd; j++) xd[2 + j] = pc->in[j], wd[2 + j] = pc->k[j];
  for (int j = 0; j < 2; j++)
    o->o2[j] = (o->in2[j] + o->pb2[j] + pe2[j] - (o->k2[j] - 1) * o->d2[j] - 1) / o->s2[j] + 1;
  for (int j = 0; j < nd; j++) o->yd[2 + j] = o->o2[2 - nd + j];
  o->P = o->o2[0] * o->o2[1], o->nk = o->k2[0] * o->k2[1];
  o->in[0] = random_tensor(dt, nd + 2, xd);
  o->in[1] = random_tensor(dt, nd + 2, wd);
  o->in[2] = pc->bias ? random_tensor(dt, 1, (int64_t[]){o->M}) : NULL;
}

/* input element (n, channel ch, row iy, column ix) of o, 0 in the pads */
static double order_x(const order_view *o, int64_t n, int64_t ch, int64_t iy, int64_t ix) {
  if (iy < 0 || iy >= o->in2[0] || ix < 0 || ix >= o->in2[1]) return 0;
  return at(o->in[0], ((n * o->C + ch) * o->in2[0] + iy) * o->in2[1] + ix);
}

/* the value element e of Y must have at level isa, in o's type */
typedef double (*order_want_fn)(const order_view *o, int64_t e, int isa);

static int order_check(const order_view *o, order_want_fn want, const char *label) {
  const path_case *pc = o->pc;
  ox_attr at_[6];
  int na = conv_attrs(pc->nd, pc->G, pc->s, pc->d, pc->k, pc->pads, NULL, at_);
  int ok = 1, levels = ox_cpu_level();
  for (int isa = 0; isa <= levels && ok; isa++) {
    ox_gemm_max_isa(isa);
    for (int th = 1; th <= 3 && ok; th += 2) {
      ox_set_threads(th);
      ox_value *y;
      CHECK_EQ_I(run("Conv", 11, na, at_, pc->bias ? 3 : 2, (ox_value **)o->in, 1, &y), 0);
      if (!y || !shape_is(y, pc->nd + 2, o->yd)) {
        fprintf(stderr, "%s: wrong shape\n", label);
        ok = 0;
        break;
      }
      for (int64_t e = 0; e < y->u.t.n && ok; e++) {
        double w = want(o, e, isa);
        float wf = (float)w;
        const void *wb = o->dt == OX_FLOAT ? (const void *)&wf : (const void *)&w;
        if (memcmp((const char *)y->u.t.data + (size_t)e * ox_dtype_size(o->dt), wb, ox_dtype_size(o->dt))) {
          fprintf(stderr, "%s: isa %d threads %d: element %lld is %.17g, want %.17g\n", label, isa, th,
                  (long long)e, at(y, e), w);
          ok = 0;
        }
      }
    }
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  return ok;
}

/* ---- one input channel per group: the operations of each output ----
 * ops/conv_paths.c's direct and planar paths give each output of a 2-D
 * (or 1-D) Conv with one input channel per group the same operations:
 * 0 + bias, then for each kernel row whose input row is inside the image,
 * each kernel column in order, acc + w * x with x the input or the zero of
 * a horizontal pad (one rounding: a fused multiply-add at the AVX2 and
 * AVX-512 levels; two on the portable one). The bytes are pinned here
 * against that sum, at every level and for 1 and 3 threads, on shapes that
 * make the planar path's bands split (rows whose windows leave the image,
 * bands longer than its run, windows wholly in the pads), with strides,
 * dilations and depth multipliers. */
static double depthwise_want(const order_view *o, int64_t e, int isa) {
  const path_case *pc = o->pc;
  int64_t P = o->P, m = e / P % o->M, n = e / P / o->M, oy = e % P / o->o2[1], ox = e % P % o->o2[1], c = m / pc->Mg;
  double acc = 0; /* each step rounded to dt: float in double, or double */
  if (pc->bias) acc = o->dt == OX_FLOAT ? (float)(0.0f + (float)at(o->in[2], m)) : 0.0 + at(o->in[2], m);
  for (int64_t ky = 0; ky < o->k2[0]; ky++) {
    int64_t iy = oy * o->s2[0] + ky * o->d2[0] - o->pb2[0];
    if (iy < 0 || iy >= o->in2[0]) continue;
    for (int64_t kx = 0; kx < o->k2[1]; kx++) {
      double xv = order_x(o, n, c, iy, ox * o->s2[1] + kx * o->d2[1] - o->pb2[1]);
      double wv = at(o->in[1], m * o->nk + ky * o->k2[1] + kx);
      if (o->dt == OX_FLOAT) acc = isa ? fmaf((float)wv, (float)xv, (float)acc) : (float)acc + (float)wv * (float)xv;
      else acc = isa ? fma(wv, xv, acc) : acc + wv * xv;
    }
  }
  return acc;
}

static void test_conv_depthwise_order(void) {
  /* nd, N, G, Cg (1), Mg, in, k, s, d, pads (begin..., end...) */
  path_case cases[] = {
      {2, 1, 7, 1, 1, {10, 10}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, NULL, 1},   /* ocr_det's 10x10 5x5 */
      {2, 1, 9, 1, 1, {2, 96}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, NULL, 1},    /* ocr_cls: every row at a border */
      {2, 1, 3, 1, 1, {70, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 0},   /* bands of 52 of 70 rows */
      {2, 2, 5, 1, 2, {13, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, NULL, 1},   /* stride 2, multiplier 2 */
      {2, 1, 4, 1, 3, {17, 23}, {3, 4}, {2, 3}, {2, 2}, {2, 0, 1, 3}, NULL, 1},   /* strides 2, 3, dilated */
      {2, 1, 3, 1, 1, {6, 9}, {5, 5}, {2, 1}, {1, 1}, {2, 2, 2, 2}, NULL, 1},     /* ocr_cls' stride (2, 1) */
      {2, 1, 2, 1, 1, {4, 5}, {3, 3}, {1, 1}, {1, 1}, {5, 6, 4, 7}, NULL, 1},     /* windows wholly in the pads */
      {2, 1, 2, 1, 1, {9, 8}, {2, 3}, {3, 2}, {3, 3}, {0, 0, 0, 0}, NULL, 1},     /* no pads, dilation > stride */
      {2, 1, 3, 1, 1, {1, 40}, {1, 9}, {1, 1}, {1, 1}, {0, 4, 0, 4}, NULL, 1},    /* one row */
      {1, 2, 3, 1, 1, {300}, {7}, {3}, {2}, {4, 1}, NULL, 1},                     /* 1-D */
      {2, 1, 16, 1, 1, {20, 20}, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}, NULL, 0},  /* ocr_det's stride 2 */
  };
  char label[96];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    for (int f64 = 0; f64 < 2; f64++) {
      order_view o;
      order_setup(&o, &cases[i], f64 ? OX_DOUBLE : OX_FLOAT);
      snprintf(label, sizeof label, "depthwise order case %zu %s", i, f64 ? "double" : "float");
      CHECK(order_check(&o, depthwise_want, label));
    }
  }
}

/* ---- the packed GEMM's operations, in place or packed ----
 * A float Conv through core/gemm.h's product (ops/conv_paths.c: packed
 * im2col, or the implicit GEMM that reads X in place for stride 1 with
 * few output channels) gives each output: per block of 256 rows k of
 * im2col (channel, then kernel position; a pad is a term of 0), acc = 0,
 * acc + w * x over the block in order (one rounding at the AVX2 and
 * AVX-512 levels, two on the portable one), then y = acc (+ bias) for the
 * first block and acc + y after. Pinned at every level, 1 and 3 threads,
 * with K past one block, pads, dilations, groups, and slivers that end past
 * X's last element. */
static double gemm_want(const order_view *o, int64_t e, int isa) {
  const path_case *pc = o->pc;
  int64_t P = o->P, m = e / P % o->M, n = e / P / o->M, oy = e % P / o->o2[1], ox = e % P % o->o2[1], gi = m / pc->Mg;
  int64_t nk = o->nk, K = pc->Cg * nk;
  float acc = 0, want = 0; /* float16 X, W and B widened exactly */
  for (int64_t k = 0; k < K; k++) {
    int64_t ci = k / nk, ky = k % nk / o->k2[1], kx = k % o->k2[1];
    float xv = (float)order_x(o, n, gi * pc->Cg + ci, oy + ky * o->d2[0] - o->pb2[0], ox + kx * o->d2[1] - o->pb2[1]);
    float wv = (float)at(o->in[1], m * K + k);
    acc = isa ? fmaf(wv, xv, acc) : acc + wv * xv;
    if (k % 256 == 255 || k == K - 1) { /* the block's end */
      want = k < 256 ? (pc->bias ? acc + (float)at(o->in[2], m) : acc) : acc + want;
      acc = 0;
    }
  }
  return want;
}

static void test_conv_gemm_order(void) {
  /* nd, N, G, Cg, Mg, in, k, s (1), d, pads (begin..., end...) */
  path_case cases[] = {
      {2, 1, 1, 96, 24, {12, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, /* ocr_det's 96 -> 24, K 864 */
      {2, 2, 2, 30, 12, {9, 50}, {3, 3}, {1, 1}, {2, 3}, {2, 3, 2, 3}, NULL, 1},  /* groups, dilated, K 270 */
      {2, 1, 1, 30, 9, {7, 8}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 0},    /* no pads: runs past X's end */
      {2, 1, 1, 43, 32, {6, 61}, {2, 3}, {1, 1}, {1, 1}, {1, 0, 0, 2}, NULL, 1},  /* 4 slivers of rows, K 258 */
      {1, 2, 1, 70, 8, {50}, {5}, {1}, {2}, {3, 1}, NULL, 1},                     /* 1-D, K 350 */
      {2, 1, 1, 8, 16, {40, 40}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1},  /* 1x1: packed */
      {2, 1, 1, 24, 24, {10, 32}, {1, 3}, {1, 1}, {1, 1}, {0, 1, 0, 1}, NULL, 1}, /* wake_emb's K 72: packed */
      {2, 1, 1, 16, 64, {10, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 0}, /* many rows: packed */
  };
  char label[96];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    order_view o;
    order_setup(&o, &cases[i], OX_FLOAT);
    snprintf(label, sizeof label, "gemm order case %zu", i);
    CHECK(order_check(&o, gemm_want, label));
  }
}

/* ---- the implicit GEMM over padded copies of bands of rows ----
 * A padded stride-1 Conv with few output channels copies each band of
 * output rows' input rows, zero-padded (and widened from float16), and
 * runs the implicit GEMM over the copy (ox_conv_float's path
 * OX_CONV_IN_BAND): each output keeps gemm_want's operations. Pinned at
 * every level, 1 and 3 threads, on odd shapes: pads asymmetric and past
 * the kernel's reach (rows of bias only), dilations 2 and 4, groups, batch
 * 2, 1-D, bands whose last one is short, and a K of more than 2048 (its A
 * packed block after block, read as one). Then two inputs larger than
 * any whole padded copy (ops/conv_paths.c's PAD_MAX, 64 MiB) or widened
 * one (float16 X of more than WIDEN_MAX), with 6 slivers of output
 * channels, which take that path (before it: the packed GEMM, its im2col
 * reading X unpadded), and one whose band of BAND_MIN rows would pass
 * BAND_MAX (16 MiB), which stays packed, at the best level: with one
 * thread, their rows at the bands' edges and the image's held to
 * gemm_want; with two, the same bytes. */
static void case_geom(const path_case *pc, ox_conv_geom *g) {
  *g = (ox_conv_geom){.nd = pc->nd, .nimg = 1, .npos = 1, .nker = 1};
  for (int j = 0; j < pc->nd; j++) {
    g->img[j] = pc->in[j], g->ker[j] = pc->k[j], g->s[j] = pc->s[j], g->d[j] = pc->d[j];
    g->pb[j] = pc->pads[j], g->pe[j] = pc->pads[pc->nd + j];
    g->pos[j] = (pc->in[j] + g->pb[j] + g->pe[j] - (pc->k[j] - 1) * pc->d[j] - 1) / pc->s[j] + 1;
    g->nimg *= g->img[j], g->npos *= g->pos[j], g->nker *= g->ker[j];
  }
}

static void test_conv_bands(void) {
  /* nd, N, G, Cg, Mg, in, k, s (1), d, pads (begin..., end...) */
  path_case cases[] = {
      {2, 2, 1, 40, 16, {37, 70}, {3, 3}, {1, 1}, {1, 1}, {2, 0, 1, 3}, NULL, 1}, /* pads asymmetric, batch 2 */
      {2, 1, 1, 64, 16, {30, 41}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, NULL, 1}, /* dilation 2, K 576 */
      {2, 1, 1, 32, 24, {25, 33}, {3, 3}, {1, 1}, {4, 4}, {4, 4, 4, 4}, NULL, 1}, /* dilation 4 */
      {2, 2, 2, 36, 16, {20, 19}, {3, 3}, {1, 1}, {1, 2}, {1, 2, 1, 2}, NULL, 1}, /* groups, K 324 */
      {2, 1, 1, 32, 8, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {3, 0, 0, 3}, NULL, 1},   /* rows wholly in the pads */
      {2, 1, 1, 64, 16, {45, 100}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 0}, /* bands of 38 and 7 rows */
      {1, 2, 1, 70, 8, {50}, {5}, {1}, {2}, {3, 1}, NULL, 1},                     /* 1-D, K 350 */
      {2, 1, 1, 240, 16, {9, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, /* K 2160: 9 blocks */
  };
  char label[96];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    order_view o;
    order_setup(&o, &cases[i], OX_FLOAT);
    snprintf(label, sizeof label, "band case %zu", i);
    CHECK(order_check(&o, gemm_want, label));
  }
  /* X of 128 x 362 x 362 floats (padded: 64.7 MiB), and of 64 x 258 x
   * 258 float16 (4.26 M elements) */
  struct {
    path_case pc;
    ox_dtype dt;
    ox_conv_path want;
    int64_t rows[12]; /* output rows checked, -1 ends */
  } big[] = {
      {{2, 1, 1, 128, 48, {362, 362}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_IN_BAND,
       {0, 3, 4, 181, 361, -1}}, /* one thread: bands of 4 rows */
      {{2, 1, 1, 64, 48, {258, 258}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT16, OX_CONV_IN_BAND,
       {0, 12, 13, 257, -1}}, /* bands of 13 rows */
      /* a band of 4 rows of 224 x 3202 floats (6 with the halo: 16.4 MiB)
       * past BAND_MAX: packed */
      {{2, 1, 1, 224, 8, {4, 3200}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_PACKED,
       {0, 3, -1}},
  };
  int isa = ox_cpu_level();
  for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
    const path_case *pc = &big[i].pc;
    order_view o;
    order_setup(&o, pc, big[i].dt);
    ox_conv_geom g;
    case_geom(pc, &g);
    size_t ys = ox_dtype_size(big[i].dt);
    void *first = NULL;
    for (int th = 1; th <= 2; th++) {
      ox_value *y = tensor(big[i].dt, 4, o.yd, NULL);
      ox_ctx c = {.a = A, .err = &E, .threads = th};
      ox_conv_took got = {0};
      ox_err_clear(&E);
      CHECK_EQ_I(ox_conv_float(&c, &o.in[0]->u.t, &o.in[1]->u.t, &o.in[2]->u.t, pc->G, &g, NULL, &y->u.t, &got), 0);
      CHECK_EQ_I((int)got.path, (int)big[i].want);
      int64_t Ho = o.o2[0], Wo = o.o2[1], bad = 0;
      for (int64_t m = 0; th == 1 && m < o.M; m++) /* two threads: the bytes of one */
        for (int r = 0; big[i].rows[r] >= 0; r++)
          for (int64_t ox = 0; ox < Wo; ox++) {
            int64_t e = (m * Ho + big[i].rows[r]) * Wo + ox;
            float wf = (float)gemm_want(&o, e, isa);
            uint16_t wh = ox_f32_to_f16(wf);
            const void *wb = big[i].dt == OX_FLOAT ? (const void *)&wf : (const void *)&wh;
            if (memcmp((const char *)y->u.t.data + (size_t)e * ys, wb, ys) && bad++ < 3)
              fprintf(stderr, "big band case %zu threads %d: element %lld is %.9g, want %.9g\n", i, th,
                      (long long)e, at(y, e), (double)wf);
          }
      CHECK_EQ_I(bad, 0);
      size_t bytes = (size_t)y->u.t.n * ys;
      if (th == 1) first = memcpy(malloc(bytes), y->u.t.data, bytes);
      else CHECK(!memcmp(first, y->u.t.data, bytes));
    }
    free(first);
  }
}

/* ---- which path a shape takes ----
 * ox_conv_float reports the way it computed a call and the items it cut
 * the work into (ox_conv_took); the choice is pinned here for the shapes
 * each rule of ops/conv_paths.c's conv_float_run is about, at every level
 * (their tiles' rows: 6 or 8, so the cases keep clear of that edge), and
 * the call's bytes are the Conv op's (the same call behind the registry).
 * With two threads, the direct and in-place paths cut a lone image and
 * channel block into bands of output rows, at least two per thread
 * (items2), the bytes those of one thread. */
typedef struct {
  path_case pc;
  ox_dtype dt;
  ox_conv_path want;
  int64_t items2; /* items with two threads; 0: not pinned */
  const char *what;
} choice_case;

static void test_conv_path_choice(void) {
  /* nd, N, G, Cg, Mg, in, k, s, d, pads (begin..., end...), auto_pad, bias */
  choice_case cases[] = {
      {{2, 1, 1, 24, 24, {74, 32}, {1, 3}, {1, 1}, {1, 1}, {0, 1, 0, 1}, NULL, 1}, OX_FLOAT, OX_CONV_PACKED, 0,
       "wake_emb's 24 -> 24, kernel 1x3, K 72 (under 256: packed)"},
      {{2, 1, 1, 96, 24, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_IN_BAND, 4,
       "ocr_det's 96 -> 24, K 864, pads (over padded copies of bands of rows)"},
      {{1, 2, 1, 70, 8, {50}, {5}, {1}, {2}, {3, 1}, NULL, 1}, OX_FLOAT, OX_CONV_IN_BAND, 0,
       "1-D 70 -> 8, kernel 5, K 350, pads"},
      {{2, 1, 1, 96, 40, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_PACKED, 0,
       "96 -> 40, K 864, pads: 5 to 7 slivers of rows, X small (the padded copy)"},
      {{2, 1, 1, 32, 16, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 0}, OX_FLOAT, OX_CONV_IN_PLACE, 0,
       "32 -> 16, K 288, no pads"},
      {{2, 1, 1, 16, 16, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 0}, OX_FLOAT, OX_CONV_PACKED, 0,
       "16 -> 16, K 144"},
      {{2, 1, 1, 32, 64, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_PACKED, 0,
       "32 -> 64, K 288: many output channels"},
      {{2, 1, 1, 288, 16, {12, 12}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1}, OX_FLOAT, OX_CONV_PACKED, 0,
       "1x1 288 -> 16"},
      {{2, 1, 1, 64, 16, {13, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_PACKED, 0,
       "64 -> 16, K 576, stride 2"},
      {{2, 1, 1, 96, 24, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT16, OX_CONV_IN_BAND, 0,
       "ocr_det's 96 -> 24 in float16 (X widened first, Y rounded once)"},
      {{2, 1, 1, 96, 24, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_DOUBLE, OX_CONV_PACKED, 0,
       "ocr_det's 96 -> 24 in double"},
      {{2, 1, 1, 256, 64, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_KBLOCKED, 0,
       "256 -> 64, K 2304"},
      {{2, 1, 1, 256, 16, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_IN_BAND, 0,
       "256 -> 16, K 2304, pads: in bands"},
      {{2, 1, 1, 256, 16, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1}, OX_FLOAT, OX_CONV_KBLOCKED, 0,
       "256 -> 16, K 2304, no pads"},
      {{2, 1, 8, 1, 1, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_PLANAR, 0,
       "depthwise 3x3"},
      {{2, 1, 1, 64, 1, {40, 33}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, OX_FLOAT, OX_CONV_DIRECT, 4,
       "IS-Net's side outputs: 64 -> 1"},
      {{2, 1, 1, 16, 32, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1}, OX_FLOAT, OX_CONV_GEMV, 0,
       "16 -> 32 over 2x2 positions"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const path_case *pc = &cases[i].pc;
    int nd = pc->nd;
    ox_dtype dt = cases[i].dt;
    int64_t C = pc->G * pc->Cg, M = pc->G * pc->Mg, xd[4] = {pc->N, C}, wd[4] = {M, pc->Cg}, yd[4] = {pc->N, M};
    ox_conv_geom g = {.nd = nd, .nimg = 1, .npos = 1, .nker = 1};
    for (int j = 0; j < nd; j++) {
      xd[2 + j] = pc->in[j], wd[2 + j] = pc->k[j];
      g.img[j] = pc->in[j], g.ker[j] = pc->k[j], g.s[j] = pc->s[j], g.d[j] = pc->d[j];
      g.pb[j] = pc->pads[j], g.pe[j] = pc->pads[nd + j];
      g.pos[j] = (pc->in[j] + g.pb[j] + g.pe[j] - (pc->k[j] - 1) * pc->d[j] - 1) / pc->s[j] + 1;
      yd[2 + j] = g.pos[j], g.nimg *= g.img[j], g.npos *= g.pos[j], g.nker *= g.ker[j];
    }
    ox_value *in[3] = {random_tensor(dt, nd + 2, xd), random_tensor(dt, nd + 2, wd),
                       pc->bias ? random_tensor(dt, 1, &M) : NULL};
    ox_attr at_[6];
    int na = conv_attrs(nd, pc->G, pc->s, pc->d, pc->k, pc->pads, NULL, at_);
    for (int isa = 0; isa <= ox_cpu_level(); isa++) {
      ox_gemm_max_isa(isa);
      ox_value *y = NULL, *ref = NULL;
      for (int th = 1; th <= 2; th++) {
        ox_value *yt = tensor(dt, nd + 2, yd, NULL);
        ox_ctx c = {.a = A, .err = &E, .threads = th};
        ox_conv_took got = {0};
        ox_err_clear(&E);
        ox_par_set_min(0, 0); /* any work splits: the cut is the paths', not the pool's threshold */
        CHECK_EQ_I(ox_conv_float(&c, &in[0]->u.t, &in[1]->u.t, pc->bias ? &in[2]->u.t : NULL, pc->G, &g, NULL,
                                 &yt->u.t, &got),
                   0);
        ox_par_set_min(-1, -1);
        if (got.path != cases[i].want || (th == 2 && cases[i].items2 && got.items != cases[i].items2))
          fprintf(stderr, "path choice %zu (%s) isa %d threads %d: path %d, %lld items; want %d, %lld\n", i,
                  cases[i].what, isa, th, (int)got.path, (long long)got.items, (int)cases[i].want,
                  (long long)cases[i].items2);
        CHECK_EQ_I((int)got.path, (int)cases[i].want);
        if (th == 2 && cases[i].items2) CHECK_EQ_I(got.items, cases[i].items2);
        if (th == 1) y = yt;
        else CHECK(same_bytes(yt, dt, nd + 2, yd, y->u.t.data));
      }
      CHECK_EQ_I(run("Conv", dt == OX_FLOAT16 ? 11 : 22, na, at_, pc->bias ? 3 : 2, in, 1, &ref), 0);
      CHECK(ref && same_bytes(ref, dt, nd + 2, yd, y->u.t.data));
    }
    ox_gemm_max_isa(-1);
  }
}

/* ---- weights prepared once per model (the load hook of ops/conv.c) ----
 * op on in[] as a model whose inputs 1.. (W, B, zero points) are
 * initializers, W every other call a Constant node's value instead:
 * ox_prepare packs W once (the first member of the node's state), then two runs of
 * the model must give the same bytes as `ref` (the op called directly,
 * packing per call) under the current level and thread count. *prepped
 * receives whether the node got a preparation. */
static int prepared_same(const char *op, int opset, int na, ox_attr *at_, int nin, ox_value **in,
                         const ox_value *ref, int *prepped, int isa_at_run, const char *label) {
  static const char *names[4] = {"x0", "x1", "x2", "x3"}, *outs[1] = {"y0"}, *w_out[1] = {"x1"};
  const char *in_names[4];
  const char *init_name[3];
  ox_value *init[3];
  int ninit = 0;
  /* W an initializer, or (every other call) a Constant node's value */
  static int via_constant;
  via_constant = !via_constant;
  for (int i = 0; i < nin; i++) {
    in_names[i] = in[i] ? names[i] : "";
    if (i && in[i] && !(i == 1 && via_constant)) init_name[ninit] = names[i], init[ninit++] = in[i];
  }
  ox_attr value = attr_tensor("value", in[1]);
  ox_node nodes[2] = {kit_node("Constant", 0, NULL, 1, w_out), kit_node(op, nin, in_names, 1, outs)};
  nodes[0].nattr = 1, nodes[0].attr = &value;
  nodes[1].nattr = na, nodes[1].attr = at_;
  ox_valueinfo gi[] = {{.name = "x0", .rank = -1}}, go[] = {{.name = "y0", .rank = -1}};
  ox_graph g = {"prep", 1 + via_constant, nodes + !via_constant, 1, gi, 1, go, ninit, init_name, init, 0, NULL};
  ox_opset ops[] = {{"", opset}};
  ox_model m = {"prep", ".", 8, 1, ops, &g, 0, NULL};
  ox_err_clear(&E);
  if (ox_prepare(A, &m, &E)) {
    fprintf(stderr, "%s: prepare: %s\n", label, E.msg);
    return 0;
  }
  *prepped = 0;
  for (int i = 0; i < g.nnode; i++) {
    const void *const *st = g.node[i].state; /* the preparation is its first member */
    *prepped |= !strcmp(g.node[i].op, op) && st && *st;
  }
  if (isa_at_run >= 0) ox_gemm_max_isa(isa_at_run); /* another micro-kernel than the packed one */
  size_t bytes = (size_t)ref->u.t.n * ox_dtype_size(ref->u.t.dt);
  for (int r = 0; r < 2; r++) {
    ox_value *xin[1] = {in[0]}, *y[1] = {NULL};
    if (ox_run(A, &m, xin, y, &E) || !y[0] || y[0]->u.t.n != ref->u.t.n || memcmp(y[0]->u.t.data, ref->u.t.data, bytes)) {
      fprintf(stderr, "%s: run %d of the prepared model differs from the direct call (%s)\n", label, r, E.msg);
      return 0;
    }
  }
  return 1;
}

static int run_path_case(const path_case *pc, ox_dtype dt, const char *label) {
  int nd = pc->nd;
  int64_t C = pc->G * pc->Cg, M = pc->G * pc->Mg;
  int64_t xd[5] = {pc->N, C}, wd[5] = {M, pc->Cg}, yd[5];
  for (int j = 0; j < nd; j++) xd[2 + j] = pc->in[j], wd[2 + j] = pc->k[j];
  ox_value *in[3] = {random_tensor(dt, nd + 2, xd), random_tensor(dt, nd + 2, wd),
                     pc->bias ? random_tensor(dt, 1, (int64_t[]){M}) : NULL};
  double *want, *bound;
  if (!path_reference(pc, in, yd, &want, &bound)) return 0;
  ox_attr at_[6];
  int na = conv_attrs(nd, pc->G, pc->s, pc->d, pc->k, pc->pads, pc->auto_pad, at_);
  /* rounding: float accumulates within about K ulps of the sum of |terms|;
   * float16 and bfloat16 then round once more */
  double eps = dt == OX_DOUBLE ? 0x1p-52 : 0x1p-23, out_eps = dt == OX_FLOAT16 ? 0x1p-10 : dt == OX_BFLOAT16 ? 0x1p-7 : 0;
  int64_t K = pc->Cg;
  for (int j = 0; j < nd; j++) K *= pc->k[j];
  int levels = ox_cpu_level(), ok = 1;
  for (int isa = path_quick ? levels : 0; isa <= levels && ok; isa++) {
    ox_gemm_max_isa(isa);
    void *first = NULL;
    for (int th = 1; th <= 3 - path_quick && ok; th++) {
      ox_set_threads(th);
      ox_value *y;
      CHECK_EQ_I(run("Conv", dt == OX_FLOAT16 ? 11 : 22, na, at_, pc->bias ? 3 : 2, in, 1, &y), 0);
      if (!y || !shape_is(y, nd + 2, yd)) {
        fprintf(stderr, "%s: wrong shape\n", label);
        ok = 0;
        break;
      }
      ok = check_run(y, want, bound, 4 * eps * (double)(K + 1), out_eps, &first, isa, th, label);
      /* the same through a model whose W is an initializer, packed once:
       * for this level, and packed at the best level but run at this one */
      int prepped = 0;
      ok = ok && prepared_same("Conv", dt == OX_FLOAT16 ? 11 : 22, na, at_, pc->bias ? 3 : 2, in, y, &prepped, -1, label);
      if (ok && isa < levels) {
        ox_gemm_max_isa(-1);
        ok = prepared_same("Conv", dt == OX_FLOAT16 ? 11 : 22, na, at_, pc->bias ? 3 : 2, in, y, &prepped, isa, label);
      }
      CHECK(prepped);
    }
    free(first);
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  CHECK(ok);
  free(want);
  free(bound);
  return 1;
}

static void test_conv_paths(void) {
  path_case fixed[] = {
      /* direct (fewer output channels per group than the GEMM tile's rows):
       * depthwise 3x3 and 5x5, strides 1 and 2, work enough to split */
      {2, 1, 48, 1, 1, {40, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1},
      {2, 2, 24, 1, 1, {41, 40}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 1, 2}, NULL, 0},
      {2, 1, 40, 1, 1, {20, 45}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, NULL, 1},
      {2, 1, 32, 1, 1, {24, 50}, {5, 5}, {2, 1}, {1, 1}, {2, 2, 2, 2}, NULL, 1},
      {2, 1, 16, 1, 2, {30, 33}, {3, 3}, {2, 3}, {2, 2}, {2, 0, 1, 3}, NULL, 1}, /* multiplier 2, dilated */
      {2, 1, 4, 3, 5, {21, 70}, {3, 2}, {1, 2}, {1, 1}, {0, 1, 1, 0}, NULL, 1},  /* 3 in, 5 out per group */
      {2, 1, 1, 64, 1, {40, 33}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1}, /* one output channel */
      {1, 2, 8, 1, 1, {300}, {7}, {3}, {2}, {4, 1}, NULL, 1},                    /* 1-D */
      {2, 1, 6, 1, 1, {9, 5}, {2, 3}, {1, 1}, {1, 1}, {0}, "SAME_LOWER", 0},
      /* gemv: 1x1 maps, and at most 4 positions */
      {2, 2, 1, 99, 24, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1},
      {2, 1, 2, 5, 9, {3, 4}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 0, 1}, NULL, 1},
      /* packed GEMM: 1x1, 3x3, strided, dilated, 1-D long kernel, 3-D, one
       * input channel */
      {2, 1, 1, 1, 24, {76, 32}, {3, 3}, {1, 1}, {1, 1}, {0, 1, 0, 1}, NULL, 1},
      {2, 1, 1, 48, 40, {37, 29}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL, 1},
      {2, 2, 1, 24, 20, {19, 23}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 0},
      {2, 1, 1, 3, 16, {64, 63}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, NULL, 1},
      {2, 1, 2, 16, 12, {33, 30}, {3, 3}, {1, 1}, {2, 3}, {2, 3, 2, 3}, NULL, 1},
      {2, 1, 1, 9, 10, {20, 21}, {1, 1}, {2, 3}, {1, 1}, {0, 0, 0, 0}, NULL, 0},
      {1, 1, 1, 1, 40, {4000}, {128}, {40}, {1}, {0, 0}, NULL, 1},
      {1, 1, 1, 2, 33, {900}, {64}, {8}, {1}, {30, 3}, NULL, 1},
      {3, 1, 1, 5, 9, {6, 7, 9}, {2, 3, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 2, 1}, NULL, 1},
      {3, 2, 3, 1, 1, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, NULL, 0}, /* depthwise 3-D */
      {2, 1, 1, 64, 16, {5, 300}, {3, 5}, {1, 1}, {1, 1}, {1, 2, 1, 2}, NULL, 1}, /* several tiles */
      {2, 1, 1, 8, 8, {60, 1}, {5, 1}, {1, 1}, {1, 1}, {2, 0, 2, 0}, NULL, 1},    /* (T, 1): as 1-D */
      {2, 2, 1, 12, 10, {20, 6}, {3, 1}, {1, 1}, {2, 1}, {2, 0, 1, 0}, NULL, 1},  /* (T, F), kernel (3, 1): flattened */
      {3, 1, 1, 5, 9, {7, 4, 3}, {2, 1, 1}, {1, 1, 1}, {3, 1, 1}, {1, 0, 0, 2, 0, 0}, NULL, 0},
      {2, 1, 3, 1, 2, {30, 5}, {3, 1}, {1, 1}, {1, 1}, {1, 0, 1, 0}, NULL, 1},   /* the same, direct */
      {2, 1, 1, 10, 12, {7, 9}, {3, 3}, {2, 2}, {1, 1}, {0}, "SAME_UPPER", 1},
      {2, 1, 1, 10, 12, {7, 9}, {2, 4}, {1, 1}, {1, 1}, {0}, "VALID", 0},
  };
  char label[96];
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
    snprintf(label, sizeof label, "path case %zu float", i);
    CHECK(run_path_case(&fixed[i], OX_FLOAT, label));
    snprintf(label, sizeof label, "path case %zu double", i);
    CHECK(run_path_case(&fixed[i], OX_DOUBLE, label));
    snprintf(label, sizeof label, "path case %zu float16", i);
    CHECK(run_path_case(&fixed[i], i % 2 ? OX_FLOAT16 : OX_BFLOAT16, label));
  }
  /* a float16 X too large to be converted whole (more than 4M elements):
   * converted run by run, strided, through both the direct path and the
   * GEMM; and with stride 1 along the last axis, pads, rows outside the
   * image and a dilation, as the GEMM's im2col widens each tap's run */
  path_case big[] = {
      {2, 1, 1, 1, 2, {2049, 2049}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 0, 1}, NULL, 1},
      {2, 1, 1, 5, 8, {920, 920}, {3, 3}, {3, 3}, {1, 1}, {1, 0, 1, 1}, NULL, 1},
      {2, 1, 1, 2, 8, {1450, 1450}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1},
      {2, 1, 1, 1, 8, {2049, 2049}, {2, 4}, {1, 1}, {2, 3}, {1, 5, 0, 2}, NULL, 0},
  };
  path_quick = 1; /* the best level, 1 and 2 threads */
  for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
    snprintf(label, sizeof label, "large float16 case %zu", i);
    CHECK(run_path_case(&big[i], OX_FLOAT16, label));
  }
  path_quick = 0;
  /* random shapes */
  static const char *modes[] = {NULL, NULL, NULL, "SAME_UPPER", "SAME_LOWER", "VALID"};
  for (int r = 0; r < 60; r++) {
    path_case pc = {0};
    pc.nd = (int)pick(1, 3);
    pc.N = pick(1, 2);
    pc.G = pick(0, 2) ? 1 : pick(2, 6);
    pc.Cg = pick(0, 2) ? pick(1, 4) : pick(5, 20);
    pc.Mg = pick(0, 2) ? pick(1, 4) : pick(5, 20);
    pc.auto_pad = modes[pick(0, 5)];
    pc.bias = (int)pick(0, 1);
    for (int j = 0; j < pc.nd; j++) {
      pc.in[j] = pick(1, pc.nd == 1 ? 60 : pc.nd == 2 ? 25 : 9);
      pc.k[j] = pick(1, pc.nd == 1 ? 9 : 4);
      pc.s[j] = pick(1, 3);
      pc.d[j] = pick(0, 3) ? 1 : 2;
      pc.pads[j] = pick(0, 2), pc.pads[pc.nd + j] = pick(0, 2);
    }
    snprintf(label, sizeof label, "random path case %d float", r);
    if (!run_path_case(&pc, OX_FLOAT, label)) continue; /* a kernel larger than the input */
    snprintf(label, sizeof label, "random path case %d double", r);
    CHECK(run_path_case(&pc, OX_DOUBLE, label));
  }
}

/* ---- the packed GEMM over long K, block by block (ops/conv_paths.c's
 * "kblocked" mode) ----
 * A float Conv whose K = C / G * kernel positions exceeds 2048 packs and
 * multiplies its im2col one block of 256 rows at a time, adding each block's
 * product into Y. It must give every element the bits of the whole-K product
 * it replaced, which is ox_sgemm on the im2col matrix (core/gemm.h: the
 * packed product's operations, sums restarting from C every 256 of K), onto
 * the bias (beta 1) or into nothing (beta 0); float16 rounds that once. The
 * cases put block edges inside a channel's taps and inside a block of
 * pack_cols' taps (a 1-D kernel of 300), pads (the partial pieces), strides,
 * dilations, groups, two images and several tiles of positions; every level
 * and 1 and 3 threads. A wrong block offset in the packed weights or in
 * im2col's rows, a block left out or added twice, or a bias added per block
 * changes the bits. */
typedef struct {
  int nd;
  int64_t N, G, Cg, Mg, in[2], k[2], s[2], d[2], pads[4];
  int bias;
} kblock_case;

static void kblock_reference(const kblock_case *kc, const ox_value *x, const ox_value *w, const ox_value *b,
                             const int64_t *out, int isa, float *y) {
  int nd = kc->nd;
  int64_t C = kc->G * kc->Cg, nk = 1, P = 1, nin = 1;
  for (int j = 0; j < nd; j++) nk *= kc->k[j], P *= out[j], nin *= kc->in[j];
  int64_t K = kc->Cg * nk;
  float *cols = calloc((size_t)(K * P), sizeof *cols), *wf = malloc((size_t)(kc->Mg * K) * sizeof *wf);
  ox_gemm_max_isa(isa);
  for (int64_t n = 0; n < kc->N; n++)
    for (int64_t g = 0; g < kc->G; g++) {
      /* cols (K, P): row ci * nk + kernel position, column output position */
      for (int64_t ci = 0; ci < kc->Cg; ci++)
        for (int64_t kk = 0; kk < nk; kk++)
          for (int64_t o = 0; o < P; o++) {
            int64_t ki[2] = {nd == 2 ? kk / kc->k[1] : kk, kk % kc->k[nd - 1]};
            int64_t oi[2] = {nd == 2 ? o / out[1] : o, o % out[nd - 1]}, xi = 0, ok = 1;
            for (int j = 0; j < nd; j++) {
              int64_t i = oi[j] * kc->s[j] + ki[j] * kc->d[j] - kc->pads[j];
              ok &= i >= 0 && i < kc->in[j];
              xi = xi * kc->in[j] + i;
            }
            if (ok) cols[(ci * nk + kk) * P + o] = (float)at(x, (n * C + g * kc->Cg + ci) * nin + xi);
          }
      for (int64_t i = 0; i < kc->Mg * K; i++) wf[i] = (float)at(w, g * kc->Mg * K + i);
      float *yg = y + (n * kc->G + g) * kc->Mg * P;
      for (int64_t m = 0; m < kc->Mg; m++)
        for (int64_t o = 0; o < P; o++) yg[m * P + o] = b ? (float)at(b, g * kc->Mg + m) : 0;
      ox_sgemm(1, kc->Mg, P, K, wf, K, 0, cols, P, 0, yg, P, 1.0f, b ? 1.0f : 0.0f);
    }
  free(cols);
  free(wf);
}

static void test_conv_kblocked(void) {
  kblock_case cases[] = {
      /* K 2250: 8 blocks of 256 and one of 202, edges inside channels */
      {2, 1, 1, 250, 24, {20, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 1},
      /* dilated, two images, no bias: K 2160 */
      {2, 2, 1, 240, 16, {19, 23}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, 0},
      /* strided, two groups: K 2070 */
      {2, 1, 2, 230, 10, {31, 29}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 0, 1}, 1},
      /* 1-D, a kernel of 300 (more than a block, and than pack_cols' taps): K 2100 */
      {1, 1, 1, 7, 9, {700}, {300}, {1}, {1}, {20, 7}, 1},
      /* 1x1 over 2100 channels, several tiles of positions */
      {2, 1, 1, 2100, 12, {30, 41}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 1},
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    const kblock_case *kc = &cases[ci];
    int nd = kc->nd;
    int64_t C = kc->G * kc->Cg, M = kc->G * kc->Mg, xd[4] = {kc->N, C}, wd[4] = {M, kc->Cg}, yd[4] = {kc->N, M};
    int64_t out[2], P = 1;
    for (int j = 0; j < nd; j++) {
      xd[2 + j] = kc->in[j], wd[2 + j] = kc->k[j];
      out[j] = (kc->in[j] + kc->pads[j] + kc->pads[nd + j] - (kc->k[j] - 1) * kc->d[j] - 1) / kc->s[j] + 1;
      yd[2 + j] = out[j], P *= out[j];
    }
    for (int f16 = 0; f16 < 2; f16++) {
      ox_dtype dt = f16 ? OX_FLOAT16 : OX_FLOAT;
      ox_value *in[3] = {random_tensor(dt, nd + 2, xd), random_tensor(dt, nd + 2, wd),
                         kc->bias ? random_tensor(dt, 1, &M) : NULL};
      ox_attr at_[6];
      int na = conv_attrs(nd, kc->G, kc->s, kc->d, kc->k, kc->pads, NULL, at_);
      float *want = malloc((size_t)(kc->N * M * P) * sizeof *want);
      for (int isa = 0; isa <= ox_cpu_level(); isa++) {
        kblock_reference(kc, in[0], in[1], in[2], out, isa, want);
        for (int th = 1; th <= 3; th += 2) {
          ox_set_threads(th);
          ox_value *y = NULL;
          CHECK_EQ_I(run("Conv", f16 ? 11 : 22, na, at_, kc->bias ? 3 : 2, in, 1, &y), 0);
          int same = y && shape_is(y, nd + 2, yd);
          for (int64_t i = 0; same && i < y->u.t.n; i++) {
            float got = (float)at(y, i), exp = f16 ? ox_f16_to_f32(ox_f32_to_f16(want[i])) : want[i];
            if (memcmp(&got, &exp, sizeof got)) {
              fprintf(stderr, "kblocked case %zu %s isa %d threads %d: element %lld is %.9g, the whole-K product %.9g\n",
                      ci, f16 ? "float16" : "float", isa, th, (long long)i, got, exp);
              same = 0;
            }
          }
          CHECK(same);
        }
      }
      ox_set_threads(1);
      ox_gemm_max_isa(-1);
      free(want);
    }
  }
}

/* No input channels (an empty channel axis): every output is the bias, or
 * 0, on every path (GEMM, direct, GEMV, ConvInteger, ConvTranspose). It
 * divided by zero in the GEMM path's tile sizing once. */
static void test_conv_no_channels(void) {
  int64_t Ms[3] = {8, 1, 8}, sides[3] = {6, 6, 2};
  for (int i = 0; i < 3; i++) {
    ox_value *in[3] = {tensor(OX_FLOAT, 4, (int64_t[]){1, 0, sides[i], sides[i]}, NULL),
                       tensor(OX_FLOAT, 4, (int64_t[]){Ms[i], 0, 1, 2}, NULL),
                       random_tensor(OX_FLOAT, 1, &Ms[i])}, *y;
    CHECK_EQ_I(run("Conv", 22, 0, NULL, 3, in, 1, &y), 0);
    int64_t per = sides[i] * (sides[i] - 1), ok = y && y->u.t.n == Ms[i] * per;
    for (int64_t k = 0; ok && k < y->u.t.n; k++) ok = at(y, k) == at(in[2], k / per);
    CHECK(ok);
  }
  ox_value *qi[2] = {tensor(OX_UINT8, 4, (int64_t[]){1, 0, 5, 5}, NULL), tensor(OX_UINT8, 4, (int64_t[]){9, 0, 3, 3}, NULL)}, *y;
  CHECK_EQ_I(run("ConvInteger", 10, 0, NULL, 2, qi, 1, &y), 0);
  int ok = y && y->u.t.n == 9 * 9;
  for (int64_t k = 0; ok && k < y->u.t.n; k++) ok = ((int32_t *)y->u.t.data)[k] == 0;
  CHECK(ok);
  ox_value *ti[3] = {tensor(OX_FLOAT, 4, (int64_t[]){1, 0, 4, 4}, NULL), tensor(OX_FLOAT, 4, (int64_t[]){0, 3, 2, 2}, NULL),
                     random_tensor(OX_FLOAT, 1, (int64_t[]){3})};
  CHECK_EQ_I(run("ConvTranspose", 22, 0, NULL, 3, ti, 1, &y), 0);
  ok = y && y->u.t.n == 3 * 25;
  for (int64_t k = 0; ok && k < y->u.t.n; k++) ok = at(y, k) == at(ti[2], k / 25);
  CHECK(ok);
}

static void test_conv_errors(void) {
  ox_value *y, *in[3];
  in[0] = random_tensor(OX_FLOAT, 4, (int64_t[]){1, 3, 5, 5});
  in[1] = random_tensor(OX_FLOAT, 4, (int64_t[]){2, 2, 3, 3});
  CHECK_FAILS(run("Conv", 11, 0, NULL, 2, in, 1, &y), "channel mismatch");
  in[1] = random_tensor(OX_FLOAT, 4, (int64_t[]){2, 3, 7, 3});
  CHECK_FAILS(run("Conv", 11, 0, NULL, 2, in, 1, &y), "larger than the padded input");
  in[1] = random_tensor(OX_FLOAT, 4, (int64_t[]){2, 3, 3, 3});
  ox_attr bad[1] = {attr_ints("pads", 3, (int64_t[]){1, 1, 1})};
  CHECK_FAILS(run("Conv", 11, 1, bad, 2, in, 1, &y), "pads has 3 values");
  ox_attr ap[1] = {attr_str("auto_pad", "SAME")};
  CHECK_FAILS(run("Conv", 11, 1, ap, 2, in, 1, &y), "auto_pad");
  in[2] = random_tensor(OX_FLOAT, 1, (int64_t[]){3});
  CHECK_FAILS(run("Conv", 11, 0, NULL, 3, in, 1, &y), "one per output channel");
  ox_attr g[1] = {attr_int("group", 2)};
  in[1] = random_tensor(OX_FLOAT, 4, (int64_t[]){2, 1, 3, 3});
  CHECK_FAILS(run("Conv", 11, 1, g, 2, in, 1, &y), "channel mismatch");
  in[0] = random_tensor(OX_FLOAT, 2, (int64_t[]){1, 3});
  CHECK_FAILS(run("Conv", 11, 0, NULL, 2, in, 1, &y), "expected (N, C, D1, ...)");
}

/* ConvTranspose against scatter loops: y[n, m, i * s + k * d - pb] += x * w */
static void test_convtranspose(void) {
  int64_t N = 2, C = 4, G = 2, Mg = 3, H = 4, Wd = 3, kh = 3, kw = 2, s[2] = {2, 3}, d[2] = {1, 2};
  int64_t pads[4] = {1, 0, 0, 2}, op[2] = {1, 0};
  int64_t oh = s[0] * (H - 1) + op[0] + (kh - 1) * d[0] + 1 - pads[0] - pads[2];
  int64_t ow = s[1] * (Wd - 1) + op[1] + (kw - 1) * d[1] + 1 - pads[1] - pads[3];
  ox_value *in[3] = {random_tensor(OX_DOUBLE, 4, (int64_t[]){N, C, H, Wd}),
                     random_tensor(OX_DOUBLE, 4, (int64_t[]){C, Mg, kh, kw}),
                     random_tensor(OX_DOUBLE, 1, (int64_t[]){G * Mg})};
  int64_t M = G * Mg, Cg = C / G;
  double *want = calloc((size_t)(N * M * oh * ow), sizeof *want);
  for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < M; m++)
      for (int64_t i = 0; i < oh * ow; i++) want[(n * M + m) * oh * ow + i] = at(in[2], m);
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t mg = 0; mg < Mg; mg++)
        for (int64_t h = 0; h < H; h++)
          for (int64_t w = 0; w < Wd; w++)
            for (int64_t a = 0; a < kh; a++)
              for (int64_t b = 0; b < kw; b++) {
                int64_t yh = h * s[0] + a * d[0] - pads[0], yw = w * s[1] + b * d[1] - pads[1];
                if (yh < 0 || yh >= oh || yw < 0 || yw >= ow) continue;
                int64_t m = (c / Cg) * Mg + mg;
                want[((n * M + m) * oh + yh) * ow + yw] +=
                    at(in[0], ((n * C + c) * H + h) * Wd + w) * at(in[1], ((c * Mg + mg) * kh + a) * kw + b);
              }
  ox_attr at_[5] = {attr_int("group", G), attr_ints("strides", 2, s), attr_ints("dilations", 2, d),
                    attr_ints("pads", 4, pads), attr_ints("output_padding", 2, op)};
  ox_value *y;
  CHECK_EQ_I(run("ConvTranspose", 11, 5, at_, 3, in, 1, &y), 0);
  CHECK(close_to(y, 4, (int64_t[]){N, M, oh, ow}, want, 1e-12, "convtranspose"));
  free(want);
  /* output_shape larger than the full result: zeros (plus bias) at the end */
  ox_value *x1 = random_tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 2}), *w1 = random_tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 2});
  ox_value *in1[2] = {x1, w1};
  ox_attr os[1] = {attr_ints("output_shape", 1, (int64_t[]){5})};
  CHECK_EQ_I(run("ConvTranspose", 11, 1, os, 2, in1, 1, &y), 0);
  double x0 = at(x1, 0), xx = at(x1, 1), w0 = at(w1, 0), ww = at(w1, 1);
  CHECK(close_to(y, 3, (int64_t[]){1, 1, 5}, (double[]){x0 * w0, x0 * ww + xx * w0, xx * ww, 0, 0}, 1e-6, "convtranspose output_shape"));
  /* SAME with a kernel shorter than the stride: the output (in * s = 12) is
   * one longer than the full one (11); total padding -1 halves as the
   * reference's floor division: -1 at the beginning for SAME_UPPER (values
   * from onnx/reference/ops/op_conv_transpose.py run with numpy) */
  ox_value *in2[2] = {tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 4}, (float[]){1, 2, 3, 4}),
                      tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 2}, (float[]){1, 1})};
  ox_attr su[2] = {attr_ints("strides", 1, (int64_t[]){3}), attr_str("auto_pad", "SAME_UPPER")};
  CHECK_EQ_I(run("ConvTranspose", 22, 2, su, 2, in2, 1, &y), 0);
  CHECK(close_to(y, 3, (int64_t[]){1, 1, 12}, (double[]){0, 1, 1, 0, 2, 2, 0, 3, 3, 0, 4, 4}, 0, "same_upper short kernel"));
  su[1] = attr_str("auto_pad", "SAME_LOWER");
  CHECK_EQ_I(run("ConvTranspose", 22, 2, su, 2, in2, 1, &y), 0);
  CHECK(close_to(y, 3, (int64_t[]){1, 1, 12}, (double[]){1, 1, 0, 2, 2, 0, 3, 3, 0, 4, 4, 0}, 0, "same_lower short kernel"));
}

/* ConvTranspose on random shapes against the scatter loop, under every
 * level and 1-3 threads (the same bytes for each count): 1-D to 3-D,
 * groups, strides, dilations, pads (begin and end), output_padding, bias,
 * batch 2; float, double and float16. */
static void run_convt_case(int nd, int64_t N, int64_t G, int64_t Cg, int64_t Mg, const int64_t *in,
                           const int64_t *k, const int64_t *s, const int64_t *d, const int64_t *pads,
                           const int64_t *op, int bias, ox_dtype dt, const char *label) {
  int64_t C = G * Cg, M = G * Mg, xd[5] = {N, C}, wd[5] = {C, Mg}, yd[5] = {N, M}, nin = 1, nout = 1, nk = 1;
  for (int j = 0; j < nd; j++) {
    xd[2 + j] = in[j], wd[2 + j] = k[j];
    yd[2 + j] = s[j] * (in[j] - 1) + op[j] + (k[j] - 1) * d[j] + 1 - pads[j] - pads[nd + j];
    if (yd[2 + j] < 1) return;
    nin *= in[j], nout *= yd[2 + j], nk *= k[j];
  }
  ox_value *x = random_tensor(dt, nd + 2, xd), *w = random_tensor(dt, nd + 2, wd);
  ox_value *b = bias ? random_tensor(dt, 1, (int64_t[]){M}) : NULL;
  double *want = calloc((size_t)(N * M * nout), sizeof *want), *mag = calloc((size_t)(N * M * nout), sizeof *mag);
  for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < M; m++)
      for (int64_t i = 0; i < nout; i++) {
        want[(n * M + m) * nout + i] = bias ? at(b, m) : 0;
        mag[(n * M + m) * nout + i] = fabs(want[(n * M + m) * nout + i]);
      }
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t mg = 0; mg < Mg; mg++)
        for (int64_t i = 0; i < nin; i++)
          for (int64_t kk = 0; kk < nk; kk++) {
            int64_t ii[3], ki[3], r = i, q = kk, yi = 0, ok = 1;
            for (int j = nd - 1; j >= 0; j--) ii[j] = r % in[j], r /= in[j], ki[j] = q % k[j], q /= k[j];
            for (int j = 0; j < nd; j++) {
              int64_t o = ii[j] * s[j] + ki[j] * d[j] - pads[j];
              if (o < 0 || o >= yd[2 + j]) ok = 0;
              yi = yi * yd[2 + j] + o;
            }
            if (!ok) continue;
            int64_t m = (c / Cg) * Mg + mg, e = (n * M + m) * nout + yi;
            double t = at(x, (n * C + c) * nin + i) * at(w, (c * Mg + mg) * nk + kk);
            want[e] += t, mag[e] += fabs(t);
          }
  ox_attr at_[5] = {attr_int("group", G), attr_ints("strides", nd, s), attr_ints("dilations", nd, d),
                    attr_ints("pads", 2 * nd, pads), attr_ints("output_padding", nd, op)};
  ox_value *ins[3] = {x, w, b};
  double eps = dt == OX_DOUBLE ? 0x1p-52 : 0x1p-23, out_eps = dt == OX_FLOAT16 ? 0x1p-10 : 0;
  int levels = ox_cpu_level(), ok = 1;
  for (int isa = 0; isa <= levels && ok; isa++) {
    ox_gemm_max_isa(isa);
    void *first = NULL;
    for (int th = 1; th <= 3 && ok; th++) {
      ox_set_threads(th);
      ox_value *y;
      CHECK_EQ_I(run("ConvTranspose", dt == OX_FLOAT16 ? 11 : 22, 5, at_, bias ? 3 : 2, ins, 1, &y), 0);
      if (!y || !shape_is(y, nd + 2, yd)) {
        fprintf(stderr, "%s: wrong shape\n", label);
        ok = 0;
        break;
      }
      ok = check_run(y, want, mag, 4 * eps * (double)(Cg * nk + 1), out_eps, &first, isa, th, label);
    }
    free(first);
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  CHECK(ok);
  free(want);
  free(mag);
}

static void test_convtranspose_paths(void) {
  char label[96];
  /* work enough to split: a decoder's 2x2 stride-2 upsampling, and 3x3 */
  run_convt_case(2, 1, 1, 24, 24, (int64_t[]){40, 37}, (int64_t[]){2, 2}, (int64_t[]){2, 2}, (int64_t[]){1, 1},
                 (int64_t[]){0, 0, 0, 0}, (int64_t[]){0, 0}, 1, OX_FLOAT, "convt 2x2 s2");
  run_convt_case(2, 2, 2, 8, 6, (int64_t[]){30, 31}, (int64_t[]){3, 3}, (int64_t[]){2, 1}, (int64_t[]){1, 2},
                 (int64_t[]){1, 0, 2, 1}, (int64_t[]){1, 0}, 1, OX_FLOAT, "convt 3x3 groups");
  run_convt_case(2, 1, 1, 5, 4, (int64_t[]){9, 6}, (int64_t[]){3, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 1},
                 (int64_t[]){1, 0, 2, 0}, (int64_t[]){0, 0}, 1, OX_DOUBLE, "convt (3, 1) flattened");
  for (int r = 0; r < 40; r++) {
    int nd = (int)pick(1, 3);
    int64_t in[3], k[3], s[3], d[3], pads[6], op[3];
    for (int j = 0; j < nd; j++) {
      in[j] = pick(1, nd == 1 ? 40 : nd == 2 ? 12 : 5);
      k[j] = pick(1, 4), s[j] = pick(1, 3), d[j] = pick(1, 2);
      pads[j] = pick(0, 2), pads[nd + j] = pick(0, 2);
      op[j] = pick(0, s[j] > d[j] ? d[j] : s[j]) % s[j]; /* output_padding below the stride */
    }
    ox_dtype dt = r % 3 == 0 ? OX_FLOAT : r % 3 == 1 ? OX_DOUBLE : OX_FLOAT16;
    snprintf(label, sizeof label, "random convt case %d", r);
    run_convt_case(nd, pick(1, 2), pick(0, 2) ? 1 : pick(2, 3), pick(1, 6), pick(1, 6), in, k, s, d, pads, op,
                   (int)pick(0, 1), dt, label);
  }
}

static void test_conv_integer(void) {
  /* x: uint8 (1, 1, 3, 3), zero point 1; w: int8 (2, 1, 2, 2), zero points per channel */
  ox_value *in[4];
  in[0] = tensor(OX_UINT8, 4, (int64_t[]){1, 1, 3, 3}, NULL);
  in[1] = tensor(OX_INT8, 4, (int64_t[]){2, 1, 2, 2}, NULL);
  in[2] = tensor(OX_UINT8, 0, NULL, NULL);
  in[3] = tensor(OX_INT8, 1, (int64_t[]){2}, NULL);
  uint8_t xs[9] = {2, 3, 4, 5, 6, 7, 8, 9, 255};
  int8_t ws[8] = {1, 1, 1, 1, -128, 0, 0, 127};
  memcpy(in[0]->u.t.data, xs, 9);
  memcpy(in[1]->u.t.data, ws, 8);
  ((uint8_t *)in[2]->u.t.data)[0] = 1;
  ((int8_t *)in[3]->u.t.data)[0] = 0;
  ((int8_t *)in[3]->u.t.data)[1] = -1;
  double want[8];
  for (int m = 0; m < 2; m++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        double acc = 0;
        for (int a = 0; a < 2; a++)
          for (int b = 0; b < 2; b++)
            acc += (xs[(i + a) * 3 + j + b] - 1.0) * (ws[m * 4 + a * 2 + b] - (m ? -1.0 : 0.0));
        want[m * 4 + i * 2 + j] = acc;
      }
  ox_value *y;
  CHECK_EQ_I(run("ConvInteger", 10, 0, NULL, 4, in, 1, &y), 0);
  CHECK(y && y->u.t.dt == OX_INT32);
  CHECK(close_to(y, 4, (int64_t[]){1, 2, 2, 2}, want, 0, "convinteger"));
}

/* ConvInteger on random shapes (the path_case shapes) against an int64
 * loop: exact, under every level (the VNNI product and the portable one)
 * and thread count; x and w each int8 or uint8 (extremes included), zero
 * points absent, scalar or one per output channel. */
static void run_int8_case(const path_case *pc, ox_dtype xdt, ox_dtype wdt, int zmode, const char *label) {
  int nd = pc->nd;
  int64_t C = pc->G * pc->Cg, M = pc->G * pc->Mg, xd[5] = {pc->N, C}, wd[5] = {M, pc->Cg}, yd[5];
  for (int j = 0; j < nd; j++) xd[2 + j] = pc->in[j], wd[2 + j] = pc->k[j];
  ox_value *in[4] = {tensor(xdt, nd + 2, xd, NULL), tensor(wdt, nd + 2, wd, NULL), NULL, NULL};
  for (int i = 0; i < 2; i++) {
    ox_tensor *t = &in[i]->u.t;
    for (int64_t k = 0; k < t->n; k++) /* a few extremes among uniform bytes */
      ((uint8_t *)t->data)[k] = (uint8_t)(pick(0, 9) == 0 ? (pick(0, 1) ? 0x7f : 0x80) : pick(0, 255));
  }
  if (zmode) {
    in[2] = tensor(xdt, 0, NULL, NULL);
    ((uint8_t *)in[2]->u.t.data)[0] = (uint8_t)pick(0, 255);
    int64_t nz = zmode == 2 ? M : 1;
    in[3] = zmode == 2 ? tensor(wdt, 1, &nz, NULL) : tensor(wdt, 0, NULL, NULL);
    for (int64_t m = 0; m < nz; m++) ((uint8_t *)in[3]->u.t.data)[m] = (uint8_t)pick(0, 255);
  }
  double *want, *bound;
  /* the reference through the float loop with the zero points subtracted */
  ox_value *xf = tensor(OX_DOUBLE, nd + 2, xd, NULL), *wf = tensor(OX_DOUBLE, nd + 2, wd, NULL);
  double xz = zmode ? at(in[2], 0) : 0;
  for (int64_t k = 0; k < xf->u.t.n; k++) ((double *)xf->u.t.data)[k] = at(in[0], k) - xz;
  int64_t per = wf->u.t.n / M;
  for (int64_t k = 0; k < wf->u.t.n; k++)
    ((double *)wf->u.t.data)[k] = at(in[1], k) - (zmode ? at(in[3], zmode == 2 ? k / per : 0) : 0);
  ox_value *fin[3] = {xf, wf, NULL};
  path_case nb = *pc;
  nb.bias = 0;
  if (!path_reference(&nb, fin, yd, &want, &bound)) return;
  ox_attr at_[6];
  int na = conv_attrs(nd, pc->G, pc->s, pc->d, pc->k, pc->pads, pc->auto_pad, at_);
  int levels = ox_cpu_level(), ok = 1;
  for (int isa = 0; isa <= levels && ok; isa++) {
    ox_gemm_max_isa(isa);
    for (int th = 1; th <= 3 && ok; th++) {
      ox_set_threads(th);
      ox_value *y;
      CHECK_EQ_I(run("ConvInteger", 10, na, at_, zmode ? 4 : 2, in, 1, &y), 0);
      if (!y || !shape_is(y, nd + 2, yd) || y->u.t.dt != OX_INT32) {
        fprintf(stderr, "%s: wrong shape or type\n", label);
        ok = 0;
        break;
      }
      for (int64_t i = 0; i < y->u.t.n && ok; i++)
        if (((int32_t *)y->u.t.data)[i] != (int32_t)(int64_t)want[i]) {
          fprintf(stderr, "%s: isa %d threads %d: element %lld is %d, want %.0f\n", label, isa, th,
                  (long long)i, ((int32_t *)y->u.t.data)[i], want[i]);
          ok = 0;
        }
      int prepped = 0;
      ok = ok && prepared_same("ConvInteger", 10, na, at_, zmode ? 4 : 2, in, y, &prepped, -1, label);
      if (ok && isa < levels) {
        ox_gemm_max_isa(-1);
        ok = prepared_same("ConvInteger", 10, na, at_, zmode ? 4 : 2, in, y, &prepped, isa, label);
      }
      CHECK(prepped);
    }
  }
  ox_set_threads(1);
  ox_gemm_max_isa(-1);
  CHECK(ok);
  if (zmode) { /* QLinearConv on the same sums: + B, times x_scale w_scale / y_scale (in float), + y_zero_point */
    int64_t nz = zmode == 2 ? M : 1;
    float xs = 0.02f, ys = 0.7f;
    ox_value *q[9] = {in[0], vec(OX_FLOAT, -1, &xs), in[2], in[1], tensor(OX_FLOAT, zmode == 2, &nz, NULL), in[3],
                      vec(OX_FLOAT, -1, &ys), tensor(xdt, 0, NULL, NULL), tensor(OX_INT32, 1, &M, NULL)};
    for (int64_t m = 0; m < nz; m++) ((float *)q[4]->u.t.data)[m] = (float)(0.001 + 0.01 * (double)pick(1, 50));
    ((uint8_t *)q[7]->u.t.data)[0] = (uint8_t)pick(0, 255);
    for (int64_t m = 0; m < M; m++) ((int32_t *)q[8]->u.t.data)[m] = (int32_t)pick(-3000, 3000);
    ox_value *y;
    CHECK_EQ_I(run("QLinearConv", 10, na, at_, 9, q, 1, &y), 0);
    int64_t yper = y ? y->u.t.n / (pc->N * M) : 0;
    double lo = xdt == OX_UINT8 ? 0 : -128, hi = xdt == OX_UINT8 ? 255 : 127;
    for (int64_t i = 0; y && i < y->u.t.n && ok; i++) {
      int64_t m = i / yper % M;
      float mult = xs * ((float *)q[4]->u.t.data)[zmode == 2 ? m : 0];
      mult = mult / ys;
      double r = nearbyint((want[i] + ((int32_t *)q[8]->u.t.data)[m]) * (double)mult + at(q[7], 0));
      r = r < lo ? lo : r > hi ? hi : r;
      if (at(y, i) != r) {
        fprintf(stderr, "%s: QLinearConv element %lld is %g, want %g\n", label, (long long)i, at(y, i), r);
        ok = 0;
      }
    }
    CHECK(ok);
  }
  free(want);
  free(bound);
}

static void test_conv_integer_paths(void) {
  path_case fixed[] = {
      {2, 1, 1, 64, 32, {30, 33}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 0}, /* work enough to split */
      {2, 2, 2, 5, 3, {9, 11}, {3, 2}, {2, 1}, {2, 1}, {1, 0, 2, 1}, NULL, 0},
      {2, 1, 1, 7, 1, {6, 5}, {3, 3}, {1, 1}, {1, 1}, {0}, "SAME_UPPER", 0},
      {1, 1, 1, 3, 50, {200}, {17}, {3}, {1}, {5, 2}, NULL, 0},
      {3, 1, 1, 4, 9, {4, 5, 6}, {2, 2, 3}, {1, 2, 1}, {1, 1, 1}, {1, 0, 0, 0, 1, 2}, NULL, 0},
  };
  static const ox_dtype types[2] = {OX_UINT8, OX_INT8};
  char label[96];
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    for (int t = 0; t < 4; t++) {
      snprintf(label, sizeof label, "convinteger case %zu types %d", i, t);
      run_int8_case(&fixed[i], types[t & 1], types[t >> 1], (int)((i + (size_t)t) % 3), label);
    }
  static const char *modes[] = {NULL, NULL, "SAME_LOWER", "VALID"};
  for (int r = 0; r < 30; r++) {
    path_case pc = {0};
    pc.nd = (int)pick(1, 3);
    pc.N = pick(1, 2);
    pc.G = pick(0, 2) ? 1 : pick(2, 4);
    pc.Cg = pick(1, 12), pc.Mg = pick(1, 20);
    pc.auto_pad = modes[pick(0, 3)];
    for (int j = 0; j < pc.nd; j++) {
      pc.in[j] = pick(1, pc.nd == 1 ? 60 : pc.nd == 2 ? 20 : 7);
      pc.k[j] = pick(1, 4), pc.s[j] = pick(1, 3), pc.d[j] = pick(1, 2);
      pc.pads[j] = pick(0, 2), pc.pads[pc.nd + j] = pick(0, 2);
    }
    snprintf(label, sizeof label, "random convinteger case %d", r);
    run_int8_case(&pc, types[r & 1], types[(r >> 1) & 1], r % 3, label);
  }
}

/* Col2Im: blocks (2, 2) over a (2, 3) image overlap in the middle column */
static void test_col2im(void) {
  ox_value *in[3], *y;
  in[0] = tensor(OX_INT32, 3, (int64_t[]){1, 4, 2}, NULL);
  int32_t xs[8] = {1, 2, 1, 2, 1, 2, 1, 2};
  memcpy(in[0]->u.t.data, xs, sizeof xs);
  in[1] = tensor(OX_INT64, 1, (int64_t[]){2}, NULL);
  in[2] = tensor(OX_INT64, 1, (int64_t[]){2}, NULL);
  ((int64_t *)in[1]->u.t.data)[0] = 2, ((int64_t *)in[1]->u.t.data)[1] = 3;
  ((int64_t *)in[2]->u.t.data)[0] = 2, ((int64_t *)in[2]->u.t.data)[1] = 2;
  CHECK_EQ_I(run("Col2Im", 18, 0, NULL, 3, in, 1, &y), 0);
  CHECK(close_to(y, 4, (int64_t[]){1, 1, 2, 3}, (double[]){1, 3, 2, 1, 3, 2}, 0, "col2im"));
  ((int64_t *)in[1]->u.t.data)[1] = 4; /* 3 blocks now, the input has 2 */
  CHECK_FAILS(run("Col2Im", 18, 0, NULL, 3, in, 1, &y), "expected (N, C * 4, 3)");
}

/* ---- pools against naive loops ---- */

typedef struct {
  int nd;
  int64_t in[3], k[3], s[3], d[3], pads[6];
  int ceil_mode, count_pad;
} pool_case;

enum { P_MAX, P_AVG, P_LP };

static void run_pool_case(const pool_case *pc, int kind, const char *label) {
  int nd = pc->nd;
  int64_t N = 2, C = 3, xd[5] = {N, C}, out[3], yd[5] = {N, C}, nin = 1, nout = 1;
  for (int j = 0; j < nd; j++) {
    int64_t dk = (pc->k[j] - 1) * pc->d[j] + 1, span = pc->in[j] + pc->pads[j] + pc->pads[nd + j] - dk;
    out[j] = (pc->ceil_mode ? (span + pc->s[j] - 1) / pc->s[j] : span / pc->s[j]) + 1;
    if (pc->ceil_mode && (out[j] - 1) * pc->s[j] >= pc->in[j] + pc->pads[j]) out[j]--;
    xd[2 + j] = pc->in[j], yd[2 + j] = out[j];
    nin *= pc->in[j], nout *= out[j];
  }
  ox_value *x = random_tensor(OX_FLOAT, nd + 2, xd);
  double *want = calloc((size_t)(N * C * nout), sizeof *want), *wix = calloc((size_t)(N * C * nout), sizeof *wix);
  for (int64_t pl = 0; pl < N * C; pl++)
    for (int64_t o = 0; o < nout; o++) {
      int64_t oi[3], r = o;
      for (int j = nd - 1; j >= 0; j--) oi[j] = r % out[j], r /= out[j];
      double acc = 0, best = -INFINITY;
      int64_t cnt = 0, cntpad = 0, arg = -1;
      int64_t nk = 1;
      for (int j = 0; j < nd; j++) nk *= pc->k[j];
      for (int64_t kk = 0; kk < nk; kk++) {
        int64_t ki[3], q = kk, xi = 0, ok = 1, inpad = 1;
        for (int j = nd - 1; j >= 0; j--) ki[j] = q % pc->k[j], q /= pc->k[j];
        for (int j = 0; j < nd; j++) {
          int64_t i = oi[j] * pc->s[j] + ki[j] * pc->d[j] - pc->pads[j];
          if (i < 0 || i >= pc->in[j]) ok = 0;
          if (i >= pc->in[j] + pc->pads[nd + j]) inpad = 0;
          xi = xi * pc->in[j] + i;
        }
        cntpad += inpad;
        if (!ok) continue;
        double v = at(x, pl * nin + xi);
        cnt++;
        acc += kind == P_LP ? v * v : v;
        if (v > best) best = v, arg = pl * nin + xi;
      }
      want[pl * nout + o] = kind == P_MAX ? best : kind == P_LP ? sqrt(acc) : acc / (double)(pc->count_pad ? cntpad : cnt);
      wix[pl * nout + o] = (double)arg;
    }
  ox_attr at_[7];
  int na = 0;
  at_[na++] = attr_ints("kernel_shape", nd, pc->k);
  at_[na++] = attr_ints("strides", nd, pc->s);
  at_[na++] = attr_ints("dilations", nd, pc->d);
  at_[na++] = attr_ints("pads", 2 * nd, pc->pads);
  at_[na++] = attr_int("ceil_mode", pc->ceil_mode);
  if (kind == P_AVG) at_[na++] = attr_int("count_include_pad", pc->count_pad);
  ox_value *y[2], *in[1] = {x};
  const char *op = kind == P_MAX ? "MaxPool" : kind == P_AVG ? "AveragePool" : "LpPool";
  CHECK_EQ_I(run(op, kind == P_AVG ? 19 : 18, na, at_, 1, in, kind == P_MAX ? 2 : 1, y), 0);
  CHECK(close_to(y[0], nd + 2, yd, want, 1e-5, label));
  if (kind == P_MAX) { /* with Indices, then without (another loop) */
    CHECK(close_to(y[1], nd + 2, yd, wix, 0, label));
    CHECK_EQ_I(run(op, 12, na, at_, 1, in, 1, y), 0);
    CHECK(close_to(y[0], nd + 2, yd, want, 1e-5, label));
  }
  free(want);
  free(wix);
}

static void test_pools(void) {
  pool_case cases[] = {
      {2, {5, 6}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 0, 0},
      {2, {5, 6}, {3, 2}, {2, 2}, {1, 1}, {1, 1, 1, 0}, 0, 1},
      {2, {5, 6}, {3, 2}, {2, 2}, {1, 1}, {1, 1, 1, 0}, 1, 1},
      {2, {7, 7}, {2, 3}, {3, 2}, {2, 2}, {1, 0, 0, 2}, 1, 0},
      {1, {9}, {4}, {3}, {1}, {2, 1}, 1, 1},
      {1, {8}, {3}, {1}, {3}, {0, 0}, 0, 0},
      {3, {4, 5, 6}, {2, 3, 2}, {2, 1, 3}, {1, 1, 2}, {1, 0, 1, 1, 2, 0}, 1, 1},
  };
  char label[64];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int kind = 0; kind < 3; kind++) {
      snprintf(label, sizeof label, "pool case %zu kind %d", i, kind);
      run_pool_case(&cases[i], kind, label);
    }
}

static void test_pool_misc(void) {
  ox_value *y[2], *in[3];
  /* storage_order 1: the index of element (h, w) is h + w * H */
  in[0] = tensor(OX_FLOAT, 4, (int64_t[]){1, 1, 2, 3}, NULL);
  float xs[6] = {1, 9, 2, 3, 4, 8};
  memcpy(in[0]->u.t.data, xs, sizeof xs);
  ox_attr so[2] = {attr_ints("kernel_shape", 2, (int64_t[]){2, 2}), attr_int("storage_order", 1)};
  CHECK_EQ_I(run("MaxPool", 12, 2, so, 1, in, 2, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 1, 1, 2}, (double[]){9, 9}, 0, "maxpool so"));
  CHECK(close_to(y[1], 4, (int64_t[]){1, 1, 1, 2}, (double[]){2, 2}, 0, "maxpool so idx"));
  /* int8 MaxPool-12 */
  in[0] = tensor(OX_INT8, 3, (int64_t[]){1, 1, 4}, NULL);
  int8_t xi[4] = {-5, -128, 7, 3};
  memcpy(in[0]->u.t.data, xi, 4);
  ox_attr k2[1] = {attr_ints("kernel_shape", 1, (int64_t[]){2})};
  CHECK_EQ_I(run("MaxPool", 12, 1, k2, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 3, (int64_t[]){1, 1, 3}, (double[]){-5, 7, 7}, 0, "maxpool int8"));
  /* SAME_UPPER / SAME_LOWER: pads (0, 1) and (1, 0) for in 4, k 2, s 1 */
  in[0] = tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 4}, NULL);
  float x4[4] = {1, 2, 3, 4};
  memcpy(in[0]->u.t.data, x4, sizeof x4);
  ox_attr su[2] = {attr_ints("kernel_shape", 1, (int64_t[]){2}), attr_str("auto_pad", "SAME_UPPER")};
  CHECK_EQ_I(run("AveragePool", 11, 2, su, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 3, (int64_t[]){1, 1, 4}, (double[]){1.5, 2.5, 3.5, 4}, 1e-6, "avg same_upper"));
  su[1] = attr_str("auto_pad", "SAME_LOWER");
  CHECK_EQ_I(run("AveragePool", 11, 2, su, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 3, (int64_t[]){1, 1, 4}, (double[]){1, 1.5, 2.5, 3.5}, 1e-6, "avg same_lower"));
  /* Global pools */
  in[0] = tensor(OX_DOUBLE, 4, (int64_t[]){1, 2, 1, 2}, NULL);
  double g4[4] = {3, 4, -1, 2};
  memcpy(in[0]->u.t.data, g4, sizeof g4);
  CHECK_EQ_I(run("GlobalAveragePool", 1, 0, NULL, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 2, 1, 1}, (double[]){3.5, 0.5}, 1e-12, "gap"));
  CHECK_EQ_I(run("GlobalMaxPool", 1, 0, NULL, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 2, 1, 1}, (double[]){4, 2}, 0, "gmp"));
  CHECK_EQ_I(run("GlobalLpPool", 2, 0, NULL, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 2, 1, 1}, (double[]){5, sqrt(5)}, 1e-12, "glp"));
  /* MaxUnpool undoes MaxPool's Indices */
  in[0] = tensor(OX_FLOAT, 4, (int64_t[]){1, 1, 1, 2}, NULL);
  in[1] = tensor(OX_INT64, 4, (int64_t[]){1, 1, 1, 2}, NULL);
  ((float *)in[0]->u.t.data)[0] = 5, ((float *)in[0]->u.t.data)[1] = 6;
  ((int64_t *)in[1]->u.t.data)[0] = 2, ((int64_t *)in[1]->u.t.data)[1] = 1;
  ox_attr ku[2] = {attr_ints("kernel_shape", 2, (int64_t[]){2, 2}), attr_ints("strides", 2, (int64_t[]){2, 2})};
  CHECK_EQ_I(run("MaxUnpool", 11, 2, ku, 2, in, 1, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 1, 2, 4}, (double[]){0, 6, 5, 0, 0, 0, 0, 0}, 0, "maxunpool"));
  ((int64_t *)in[1]->u.t.data)[1] = 8;
  CHECK_FAILS(run("MaxUnpool", 11, 2, ku, 2, in, 1, y), "I[1] is 8");
  /* errors */
  in[0] = random_tensor(OX_FLOAT, 4, (int64_t[]){1, 1, 3, 3});
  /* a kernel longer than the input: floor((3 - 4) / 1 + 1) = 0 windows, an
   * empty output as in the reference; one more and the length is negative */
  ox_attr k4[1] = {attr_ints("kernel_shape", 2, (int64_t[]){4, 2})};
  CHECK_EQ_I(run("MaxPool", 12, 1, k4, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 1, 0, 2}, NULL, 0, "maxpool k4"));
  ox_attr big[1] = {attr_ints("kernel_shape", 2, (int64_t[]){5, 2})};
  CHECK_FAILS(run("MaxPool", 12, 1, big, 1, in, 1, y), "larger than the padded input");
  /* ceil_mode: dilated kernel 5 over 3 rows, stride 2: ceil(-2 / 2 + 1) is
   * still 0, but over 4 rows ceil(-1 / 2 + 1) = 1 window, rows 0 and 2 */
  ox_attr dk[4] = {attr_ints("kernel_shape", 2, (int64_t[]){3, 1}), attr_ints("dilations", 2, (int64_t[]){2, 1}),
                   attr_ints("strides", 2, (int64_t[]){2, 1}), attr_int("ceil_mode", 1)};
  in[0] = tensor(OX_FLOAT, 4, (int64_t[]){1, 1, 4, 1}, NULL);
  for (int i = 0; i < 4; i++) ((float *)in[0]->u.t.data)[i] = (float)(i + 1);
  CHECK_EQ_I(run("MaxPool", 12, 4, dk, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 1, 1, 1}, (double[]){3}, 0, "maxpool ceil past end"));
  CHECK_EQ_I(run("AveragePool", 19, 4, dk, 1, in, 1, y), 0);
  CHECK(close_to(y[0], 4, (int64_t[]){1, 1, 1, 1}, (double[]){2}, 0, "avgpool ceil past end"));
  in[0] = random_tensor(OX_FLOAT, 4, (int64_t[]){1, 1, 3, 3});
  CHECK_FAILS(run("AveragePool", 11, 0, NULL, 1, in, 1, y), "kernel_shape is required");
  ox_attr bp[2] = {attr_ints("kernel_shape", 2, (int64_t[]){2, 2}), attr_ints("pads", 2, (int64_t[]){1, 1})};
  CHECK_FAILS(run("AveragePool", 11, 2, bp, 1, in, 1, y), "pads has 2 values");
}

int main(void) {
  A = ox_arena_new();
  test_conv();
  test_conv_paths();
  test_conv_depthwise_order();
  test_conv_gemm_order();
  test_conv_bands();
  test_conv_path_choice();
  test_conv_kblocked();
  test_conv_no_channels();
  test_conv_errors();
  test_convtranspose();
  test_convtranspose_paths();
  test_conv_integer();
  test_conv_integer_paths();
  test_col2im();
  test_pools();
  test_pool_misc();
  ox_arena_free(A);
  return check_done("conv");
}
