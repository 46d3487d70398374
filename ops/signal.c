/* ops/signal.c: DFT, STFT, the windows (HannWindow, HammingWindow,
 * BlackmanWindow) and MelWeightMatrix.
 *
 * Transforms run in double on complex lines gathered along the axis: an
 * iterative radix-2 FFT for powers of two, Bluestein's chirp-z (through a
 * radix-2 FFT of size >= 2n-1) for other lengths above a small cutoff, and a
 * direct DFT with an incremental twiddle index (no mod) below it. Inputs are
 * read into double once and the result stored once (float16/bfloat16 through
 * float, rounded once). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel.h"

typedef struct { double re, im; } cpx;

#define NOMEM(c) ox_fail((c)->err, OX_EINPUT, "out of memory")

/* ---- double copies of float tensors ---- */

/* A double copy of a float tensor's data (any float dtype). */
static double *load_f64(ox_ctx *c, const ox_tensor *t) {
  double *d = ox_alloc_array(c->a, t->n + 1, sizeof *d);
  if (!d) { NOMEM(c); return NULL; }
  switch (t->dt) {
  case OX_FLOAT: { const float *s = t->data; for (int64_t i = 0; i < t->n; i++) d[i] = s[i]; } break;
  case OX_DOUBLE: memcpy(d, t->data, (size_t)t->n * sizeof *d); break;
  default: {
    float *s = ox_widen_f32(c->a, t, c->err);
    if (!s) return NULL;
    for (int64_t i = 0; i < t->n; i++) d[i] = s[i];
  }
  }
  return d;
}

/* Store doubles into a tensor of any real numeric dtype: floats round once,
 * integers truncate toward zero (numpy's astype). */
static int store_f64(ox_ctx *c, const double *d, ox_tensor *t) {
  switch (t->dt) {
  case OX_FLOAT: { float *y = t->data; for (int64_t i = 0; i < t->n; i++) y[i] = (float)d[i]; } break;
  case OX_DOUBLE: memcpy(t->data, d, (size_t)t->n * sizeof *d); break;
  default:
    if (ox_dtype_is_small_float(t->dt)) {
      float *f = ox_alloc_array(c->a, t->n + 1, sizeof *f);
      if (!f) return NOMEM(c);
      for (int64_t i = 0; i < t->n; i++) f[i] = (float)d[i];
      ox_narrow_f32(f, t);
    } else {
      for (int64_t i = 0; i < t->n; i++) ox_store_f64(t->dt, t->data, i, d[i]);
    }
  }
  return 0;
}

/* ---- FFT plans ---- */

enum { DIRECT_MAX = 16 };

typedef struct plan {
  int64_t n;
  int kind;       /* 0 direct, 1 radix-2, 2 Bluestein */
  cpx *w;         /* direct: w[k] = e^{-2 pi i k/n}; radix-2: n/2 twiddles */
  int64_t *rev;   /* radix-2: bit reversal */
  /* Bluestein: chirp a[k] = e^{-i pi k^2/n}, the transformed conjugate chirp
   * b (size m), a radix-2 plan of size m and a work line */
  cpx *chirp, *bhat, *work;
  struct plan *sub;
} plan;

static int is_pow2(int64_t n) { return n > 0 && !(n & (n - 1)); }

static int plan_init(ox_ctx *c, plan *p, int64_t n);

static void fft_radix2(const plan *p, cpx *x, int inv) {
  int64_t n = p->n;
  for (int64_t i = 0; i < n; i++)
    if (p->rev[i] > i) { cpx t = x[i]; x[i] = x[p->rev[i]]; x[p->rev[i]] = t; }
  for (int64_t len = 2; len <= n; len <<= 1) {
    int64_t half = len >> 1, step = n / len;
    for (int64_t s = 0; s < n; s += len)
      for (int64_t j = 0, tw = 0; j < half; j++, tw += step) {
        cpx w = p->w[tw];
        if (inv) w.im = -w.im;
        cpx a = x[s + j], b = x[s + j + half];
        cpx t = {b.re * w.re - b.im * w.im, b.re * w.im + b.im * w.re};
        x[s + j] = (cpx){a.re + t.re, a.im + t.im};
        x[s + j + half] = (cpx){a.re - t.re, a.im - t.im};
      }
  }
}

/* Unnormalised transform in place: sign -1 (forward) or +1 (inv). */
static void fft(const plan *p, cpx *x, cpx *tmp, int inv) {
  int64_t n = p->n;
  if (p->kind == 1) { fft_radix2(p, x, inv); return; }
  if (p->kind == 0) {
    for (int64_t k = 0; k < n; k++) {
      double re = 0, im = 0;
      for (int64_t j = 0, idx = 0; j < n; j++) { /* idx = k*j mod n */
        cpx w = p->w[idx];
        if (inv) w.im = -w.im;
        re += x[j].re * w.re - x[j].im * w.im;
        im += x[j].re * w.im + x[j].im * w.re;
        idx += k;
        if (idx >= n) idx -= n;
      }
      tmp[k] = (cpx){re, im};
    }
    memcpy(x, tmp, (size_t)n * sizeof *x);
    return;
  }
  /* Bluestein: jk = (j^2 + k^2 - (k-j)^2)/2, so with a_k = e^{-i pi k^2/n}
   * X[k] = a_k sum_j (x_j a_j) conj(a_(k-j)): a circular convolution of
   * size m >= 2n-1. The inverse conjugates every a. */
  int64_t m = p->sub->n;
  cpx *u = p->work;
  for (int64_t j = 0; j < n; j++) {
    cpx a = p->chirp[j];
    if (inv) a.im = -a.im;
    u[j] = (cpx){x[j].re * a.re - x[j].im * a.im, x[j].re * a.im + x[j].im * a.re};
  }
  memset(u + n, 0, (size_t)(m - n) * sizeof *u);
  fft_radix2(p->sub, u, 0);
  const cpx *bh = p->bhat + (inv ? m : 0);
  for (int64_t j = 0; j < m; j++) {
    cpx a = u[j], b = bh[j];
    u[j] = (cpx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  fft_radix2(p->sub, u, 1);
  double s = 1.0 / (double)m;
  for (int64_t k = 0; k < n; k++) {
    cpx a = p->chirp[k];
    if (inv) a.im = -a.im;
    cpx v = {u[k].re * s, u[k].im * s};
    x[k] = (cpx){v.re * a.re - v.im * a.im, v.re * a.im + v.im * a.re};
  }
}

static int plan_init(ox_ctx *c, plan *p, int64_t n) {
  memset(p, 0, sizeof *p);
  p->n = n;
  if (n <= 0) return 0;
  if (is_pow2(n)) {
    p->kind = 1;
    p->w = ox_alloc_array(c->a, n / 2 + 1, sizeof *p->w);
    p->rev = ox_alloc_array(c->a, n, sizeof *p->rev);
    if (!p->w || !p->rev) return NOMEM(c);
    for (int64_t k = 0; k < n / 2; k++) {
      double t = -2.0 * M_PI * (double)k / (double)n;
      p->w[k] = (cpx){cos(t), sin(t)};
    }
    int bits = 0;
    while ((INT64_C(1) << bits) < n) bits++;
    for (int64_t i = 0; i < n; i++) {
      int64_t r = 0;
      for (int b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      p->rev[i] = r;
    }
    return 0;
  }
  if (n <= DIRECT_MAX) {
    p->kind = 0;
    p->w = ox_alloc_array(c->a, n, sizeof *p->w);
    if (!p->w) return NOMEM(c);
    for (int64_t k = 0; k < n; k++) {
      double t = -2.0 * M_PI * (double)k / (double)n;
      p->w[k] = (cpx){cos(t), sin(t)};
    }
    return 0;
  }
  if (n > (INT64_C(1) << 40)) return ox_fail(c->err, OX_EINPUT, "DFT length %lld is too large", (long long)n);
  p->kind = 2;
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  p->sub = ox_alloc(c->a, sizeof *p->sub);
  p->chirp = ox_alloc_array(c->a, n, sizeof *p->chirp);
  p->bhat = ox_alloc_array(c->a, 2 * m, sizeof *p->bhat);
  p->work = ox_alloc_array(c->a, m, sizeof *p->work);
  if (!p->sub || !p->chirp || !p->bhat || !p->work) return NOMEM(c);
  OX_TRY(plan_init(c, p->sub, m));
  /* k^2 mod 2n keeps the angle exact for large k */
  for (int64_t k = 0, k2 = 0; k < n; k++) {
    double t = -M_PI * (double)k2 / (double)n;
    p->chirp[k] = (cpx){cos(t), sin(t)};
    k2 += 2 * k + 1;
    while (k2 >= 2 * n) k2 -= 2 * n;
  }
  /* b_j = conj(a_j) for |j| < n, wrapped; forward at bhat[0..m), inverse at bhat[m..2m) */
  for (int inv = 0; inv < 2; inv++) {
    cpx *b = p->bhat + inv * m;
    memset(b, 0, (size_t)m * sizeof *b);
    for (int64_t j = 0; j < n; j++) {
      cpx a = p->chirp[j];
      cpx v = inv ? a : (cpx){a.re, -a.im};
      b[j] = v;
      if (j) b[m - j] = v;
    }
    fft_radix2(p->sub, b, 0);
  }
  return 0;
}

/* ---- DFT ---- */

/* One transform along `axis` of x (outer, len, inner, ic) into
 * y (outer, olen, inner, oc): n = dft_length; real input has ic = 1. */
typedef struct {
  int64_t outer, len, inner, ic, olen, oc, n;
  int inverse, onesided;
} dft_shape;

typedef struct { plan p; cpx *line, *tmp; } dft_work;

static int dft_prepare(ox_ctx *c, int64_t n, dft_work *w) {
  OX_TRY(plan_init(c, &w->p, n));
  w->line = ox_alloc_array(c->a, n + 1, sizeof *w->line);
  w->tmp = ox_alloc_array(c->a, n + 1, sizeof *w->tmp);
  return w->line && w->tmp ? 0 : NOMEM(c);
}

static void dft_run(const dft_work *w, const dft_shape *s, const double *x, double *y) {
  int64_t n = s->n;
  cpx *line = w->line, *tmp = w->tmp;
  int irfft = s->inverse && s->onesided;
  /* IRFFT (DFT-20): numpy's irfft reads the first n/2+1 bins, extends them
   * Hermitian-symmetrically, and keeps the real part of the inverse. */
  int64_t use = irfft ? n / 2 + 1 : n;
  if (use > s->len) use = s->len;
  double scale = s->inverse ? 1.0 / (double)n : 1.0;
  int64_t xs = s->inner * s->ic, ys = s->inner * s->oc;
  for (int64_t o = 0; o < s->outer; o++)
    for (int64_t i = 0; i < s->inner; i++) {
      const double *xp = x + (o * s->len * s->inner + i) * s->ic;
      double *yp = y + (o * s->olen * s->inner + i) * s->oc;
      int64_t j = 0;
      if (s->ic == 2)
        for (; j < use; j++) line[j] = (cpx){xp[j * xs], xp[j * xs + 1]};
      else
        for (; j < use; j++) line[j] = (cpx){xp[j * xs], 0};
      for (; j < n; j++) line[j] = (cpx){0, 0};
      if (irfft)
        for (int64_t k = n / 2 + 1; k < n; k++) line[k] = (cpx){line[n - k].re, -line[n - k].im};
      fft(&w->p, line, tmp, s->inverse);
      if (s->oc == 2)
        for (int64_t k = 0; k < s->olen; k++) {
          yp[k * ys] = line[k].re * scale;
          yp[k * ys + 1] = line[k].im * scale;
        }
      else
        for (int64_t k = 0; k < s->olen; k++) yp[k * ys] = line[k].re * scale;
    }
}

static int dft_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x = &in[0]->u.t; /* x: (d0, ..., d[r-2], 1 or 2) */
  int r = x->rank;
  int64_t inverse = ox_attr_int(c, "inverse", 0), onesided = ox_attr_int(c, "onesided", 0);
  int64_t axis = -2;
  if (c->version < 20) axis = ox_attr_int(c, "axis", 1); /* DFT-17: an attribute */
  if (c->err->code) return c->err->code;
  if (c->version >= 20 && nin > 2 && in[2]) OX_TRY(ox_scalar_i64(c, 2, in[2], &axis));
  if (r < 2 || (x->dims[r - 1] != 1 && x->dims[r - 1] != 2))
    return ox_fail(c->err, OX_EINPUT, "input must have rank >= 2 with a last dim of 1 (real) or 2 (complex); got rank %d", r);
  /* accepted axes: [-r, -2] and [0, r-2] */
  if (axis < -r || axis > r - 2 || axis == -1)
    return ox_fail(c->err, OX_EINPUT, "axis %lld is out of range for rank %d (the last dim holds complex parts)", (long long)axis, r);
  int ax = (int)(axis < 0 ? axis + r : axis);
  dft_shape s = {.outer = 1, .inner = 1, .ic = x->dims[r - 1], .len = x->dims[ax],
                 .inverse = inverse != 0, .onesided = onesided != 0};
  for (int d = 0; d < ax; d++) s.outer *= x->dims[d];
  for (int d = ax + 1; d < r - 1; d++) s.inner *= x->dims[d];
  s.n = s.inverse && s.onesided ? 2 * (s.len - 1) : s.len;
  if (nin > 1 && in[1]) {
    OX_TRY(ox_scalar_i64(c, 1, in[1], &s.n));
    if (s.n < 1) return ox_fail(c->err, OX_EINPUT, "dft_length must be positive; got %lld", (long long)s.n);
  }
  if (s.n < 1) return ox_fail(c->err, OX_EINPUT, "DFT length must be positive (signal dim %lld)", (long long)s.len);
  if (s.onesided && !s.inverse) s.olen = s.n / 2 + 1, s.oc = 2; /* RFFT */
  else if (s.onesided) s.olen = s.n, s.oc = 1;                    /* IRFFT */
  else s.olen = s.n, s.oc = 2;
  int64_t *dims = ox_alloc_array(c->a, r, sizeof *dims);
  if (!dims) return NOMEM(c);
  memcpy(dims, x->dims, (size_t)r * sizeof *dims);
  dims[ax] = s.olen, dims[r - 1] = s.oc;
  OX_TRY(ox_tensor_new(c->a, x->dt, r, dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!y->n || !x->n) return 0;
  double *xd = load_f64(c, x), *yd = ox_alloc_array(c->a, y->n, sizeof *yd);
  if (!xd) return c->err->code;
  if (!yd) return NOMEM(c);
  dft_work wk;
  OX_TRY(dft_prepare(c, s.n, &wk));
  dft_run(&wk, &s, xd, yd);
  return store_f64(c, yd, y);
}

/* ---- STFT-17 ---- */

static int stft_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x = &in[0]->u.t; /* signal: (B, L, 1 or 2) */
  int64_t onesided = ox_attr_int(c, "onesided", 1);
  if (c->err->code) return c->err->code;
  if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
    return ox_fail(c->err, OX_EINPUT, "signal must be (batch, length, 1 or 2); got rank %d", x->rank);
  int64_t step, B = x->dims[0], L = x->dims[1], ic = x->dims[2];
  OX_TRY(ox_scalar_i64(c, 1, in[1], &step));
  if (step < 1) return ox_fail(c->err, OX_EINPUT, "frame_step must be positive; got %lld", (long long)step);
  const ox_tensor *w = nin > 2 && in[2] ? &in[2]->u.t : NULL; /* window: (W) */
  if (w && w->rank != 1) return ox_fail(c->err, OX_EINPUT, "window must have rank 1; got rank %d", w->rank);
  if (w && w->dt != x->dt) return ox_fail(c->err, OX_EINPUT, "window must have the signal's type");
  int64_t fl = w ? w->dims[0] : L;
  if (nin > 3 && in[3]) {
    OX_TRY(ox_scalar_i64(c, 3, in[3], &fl));
    if (w && w->dims[0] != fl)
      return ox_fail(c->err, OX_EINPUT, "window length %lld differs from frame_length %lld", (long long)w->dims[0], (long long)fl);
  }
  if (fl < 1 || fl > L)
    return ox_fail(c->err, OX_EINPUT, "frame_length %lld must be in [1, %lld] (the signal length)", (long long)fl, (long long)L);
  int64_t frames = 1 + (L - fl) / step;
  int64_t bins = onesided ? fl / 2 + 1 : fl;
  /* y: (B, frames, bins, 2) */
  OX_TRY(ox_tensor_new(c->a, x->dt, 4, (int64_t[]){B, frames, bins, 2}, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!y->n) return 0;
  double *xd = load_f64(c, x), *wd = w ? load_f64(c, w) : NULL;
  double *fr = ox_alloc_array(c->a, fl * ic, sizeof *fr), *yd = ox_alloc_array(c->a, y->n, sizeof *yd);
  if (!xd || (w && !wd)) return c->err->code;
  if (!fr || !yd) return NOMEM(c);
  dft_shape s = {.outer = 1, .inner = 1, .len = fl, .ic = ic, .n = fl, .olen = bins, .oc = 2};
  dft_work wk; /* one plan for every frame */
  OX_TRY(dft_prepare(c, fl, &wk));
  for (int64_t b = 0; b < B; b++)
    for (int64_t f = 0; f < frames; f++) {
      const double *xp = xd + (b * L + f * step) * ic; /* frame: (fl, ic) */
      if (wd)
        for (int64_t t = 0; t < fl; t++)
          for (int64_t k = 0; k < ic; k++) fr[t * ic + k] = xp[t * ic + k] * wd[t];
      else
        memcpy(fr, xp, (size_t)(fl * ic) * sizeof *fr);
      dft_run(&wk, &s, fr, yd + (b * frames + f) * bins * 2);
    }
  return store_f64(c, yd, y);
}

/* ---- windows (17) ---- */

enum { HANN, HAMMING, BLACKMAN };

static int window(ox_ctx *c, ox_value **in, ox_value **out, int kind) {
  int64_t size, dt = ox_attr_int(c, "output_datatype", OX_FLOAT), periodic = ox_attr_int(c, "periodic", 1);
  if (c->err->code) return c->err->code;
  OX_TRY(ox_scalar_i64(c, 0, in[0], &size));
  if (size < 0) return ox_fail(c->err, OX_EINPUT, "size must be >= 0; got %lld", (long long)size);
  const uint64_t ok = OX_TS_INTS | OX_TS_FLOAT4;
  if (!ox_dtype_valid((int)dt) || !(ok & (UINT64_C(1) << dt)))
    return ox_fail(c->err, OX_EINPUT, "output_datatype %lld is not a numeric type", (long long)dt);
  OX_TRY(ox_tensor_new(c->a, (ox_dtype)dt, 1, &size, &out[0], c->err));
  double *v = ox_alloc_array(c->a, size + 1, sizeof *v);
  if (!v) return NOMEM(c);
  /* periodic: N = size; symmetric: N = size - 1 */
  double N = (double)(periodic ? size : size - 1), t = 2.0 * M_PI / N;
  for (int64_t i = 0; i < size; i++) {
    double a = t * (double)i;
    v[i] = kind == HANN ? 0.5 - 0.5 * cos(a)
         : kind == HAMMING ? 25.0 / 46.0 - 21.0 / 46.0 * cos(a)
         : 0.42 - 0.5 * cos(a) + 0.08 * cos(2 * a);
  }
  return store_f64(c, v, &out[0]->u.t);
}

static int hann_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  return window(c, in, out, HANN);
}
static int hamming_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  return window(c, in, out, HAMMING);
}
static int blackman_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  return window(c, in, out, BLACKMAN);
}

/* ---- MelWeightMatrix-17 ---- */

static int scalar_f64(ox_ctx *c, int i, const ox_value *v, double *out) {
  if (v->kind != OX_TENSOR || v->u.t.n != 1 || !ox_dtype_is_float(v->u.t.dt))
    return ox_fail(c->err, OX_EINPUT, "%s must be a one-element float tensor", ox_input_name(c, i));
  *out = ox_load_f64(v->u.t.dt, v->u.t.data, 0);
  return 0;
}

static int mel_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  int64_t nmel, dftl, rate, dt = ox_attr_int(c, "output_datatype", OX_FLOAT);
  double lo, hi;
  if (c->err->code) return c->err->code;
  OX_TRY(ox_scalar_i64(c, 0, in[0], &nmel));
  OX_TRY(ox_scalar_i64(c, 1, in[1], &dftl));
  OX_TRY(ox_scalar_i64(c, 2, in[2], &rate));
  OX_TRY(scalar_f64(c, 3, in[3], &lo));
  OX_TRY(scalar_f64(c, 4, in[4], &hi));
  const uint64_t ok = OX_TS_INTS | OX_TS_FLOAT4;
  if (!ox_dtype_valid((int)dt) || !(ok & (UINT64_C(1) << dt)))
    return ox_fail(c->err, OX_EINPUT, "output_datatype %lld is not a numeric type", (long long)dt);
  if (nmel < 1 || dftl < 1 || rate < 1)
    return ox_fail(c->err, OX_EINPUT, "num_mel_bins, dft_length and sample_rate must be positive");
  if (nmel > (INT64_C(1) << 40)) return ox_fail(c->err, OX_EINPUT, "num_mel_bins %lld is too large", (long long)nmel);
  int64_t nspec = dftl / 2 + 1;
  /* out: (dft_length/2 + 1, num_mel_bins) */
  OX_TRY(ox_tensor_new(c->a, (ox_dtype)dt, 2, (int64_t[]){nspec, nmel}, &out[0], c->err));
  double *o = ox_alloc_array(c->a, nspec * nmel, sizeof *o);
  int64_t *fb = ox_alloc_array(c->a, nmel + 2, sizeof *fb);
  if (!o || !fb) return NOMEM(c);
  /* as the reference: nmel + 2 points evenly spaced in mel over
   * [lo, hi) with step (hi - lo) / (nmel + 2), mapped to DFT bins by
   * floor((dft_length + 1) * f / sample_rate) */
  double mlo = 2595.0 * log10(1.0 + lo / 700.0), mhi = 2595.0 * log10(1.0 + hi / 700.0);
  double step = (mhi - mlo) / (double)(nmel + 2);
  for (int64_t i = 0; i < nmel + 2; i++) {
    double f = 700.0 * (pow(10.0, ((double)i * step + mlo) / 2595.0) - 1.0);
    double b = floor((double)(dftl + 1) * f / (double)rate);
    if (!(b >= 0 && b < (double)nspec))
      return ox_fail(c->err, OX_EINPUT, "mel band edge %g Hz falls outside the %lld spectrogram bins", f, (long long)nspec);
    fb[i] = (int64_t)b;
  }
  for (int64_t i = 0; i < nmel; i++) {
    int64_t l = fb[i], m = fb[i + 1], h = fb[i + 2];
    if (m == l) o[m * nmel + i] = 1;
    else
      for (int64_t j = l; j <= m; j++) o[j * nmel + i] = (double)(j - l) / (double)(m - l);
    for (int64_t j = m; j < h; j++) o[j * nmel + i] = (double)(h - j) / (double)(h - m);
  }
  return store_f64(c, o, &out[0]->u.t);
}

#define TS_IDX (OX_T(INT32) | OX_T(INT64))
#define TS_NUMOUT (OX_TS_INTS | OX_TS_FLOAT4)

const ox_kernel ox_signal_kernels[] = {
    /* dom, op, since, until, tin, types, min_in, max_in, fn */
    {"", "DFT", 17, 19, 0, OX_TS_FLOAT4, 1, 2, dft_k},
    {"", "DFT", 20, OX_LATEST, 0, OX_TS_FLOAT4, 1, 3, dft_k},
    {"", "STFT", 17, OX_LATEST, 0, OX_TS_FLOAT4, 2, 4, stft_k},
    {"", "HannWindow", 17, OX_LATEST, 0, TS_IDX, 1, 1, hann_k},
    {"", "HammingWindow", 17, OX_LATEST, 0, TS_IDX, 1, 1, hamming_k},
    {"", "BlackmanWindow", 17, OX_LATEST, 0, TS_IDX, 1, 1, blackman_k},
    {"", "MelWeightMatrix", 17, OX_LATEST, 0, TS_IDX, 5, 5, mel_k},
    {0},
};
