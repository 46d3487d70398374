/* ops/signal.c: DFT, STFT, the windows (HannWindow, HammingWindow,
 * BlackmanWindow) and MelWeightMatrix.
 *
 * DFT and STFT compute what ONNX's reference computes with numpy.fft, to
 * the bit: core/fft performs numpy's own operations (pocketfft's) in their
 * order, in the precision numpy's dispatch picks (fft_dt below). Lines
 * along the axis are read and written in place through strides. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/fft.h"
#include "core/kernel.h"

/* ---- the precision of a transform ----
 * ONNX's reference calls numpy.fft, and numpy (2.x) picks its float32 or
 * float64 loop by ufunc dispatch on (data, fct): an exact match takes
 * (complex64, float32) to the float loop; anything else falls back to the
 * first loop it can cast to safely, the double one. Forward transforms pass
 * fct as the Python int 1, and real input is not complex64, so:
 *  - an inverse transform of complex float32 (or float16/bfloat16, which the
 *    reference combines into complex64) input runs in float;
 *  - everything else runs in double (a float32 DFT rounds a double result
 *    once, as numpy's complex64 output does).
 * The inverse's fct is 1/n in the input's real type, even in the double
 * loop. */

static int fft_dt(const ox_tensor *x, int complex_in, int inverse) {
  return complex_in && inverse && x->dt != OX_DOUBLE ? OX_FLOAT : OX_DOUBLE;
}

/* 1/n as numpy's reciprocal(n, dtype) computes it: n converted to the type,
 * then divided in it (float16 and bfloat16 through float; a float16 n past
 * 65504 is inf and gives 0, as in numpy) */
static double inv_n(ox_dtype dt, int64_t n) {
  if (dt == OX_DOUBLE) return 1.0 / (double)n;
  if (dt == OX_FLOAT) return 1.0f / (float)n;
  return ox_round_to(dt, 1.0f / (float)ox_round_to(dt, (float)n));
}

/* t's values in precision dt: its own data, or a widened copy */
static const void *load_as(ox_ctx *c, const ox_tensor *t, int dt) {
  if ((int)t->dt == dt) return t->data;
  return dt == OX_DOUBLE ? (const void *)ox_widen_f64(c->a, t, c->err) : (const void *)ox_widen_f32(c->a, t, c->err);
}

/* where results in precision dt go: y's data, or a buffer store_as rounds
 * into y */
static void *out_buf(ox_ctx *c, ox_tensor *y, int dt) {
  if ((int)y->dt == dt) return y->data;
  void *b = ox_alloc_array(c->a, y->n, dt == OX_DOUBLE ? sizeof(double) : sizeof(float));
  if (!b) ox_oom(c->err, NULL);
  return b;
}

static int store_as(ox_ctx *c, const void *buf, ox_tensor *y, int dt) {
  if (buf == y->data) return 0;
  if (dt == OX_DOUBLE) return ox_narrow_f64(c->a, buf, y, OX_TO_INT_TRUNC, c->err);
  ox_narrow_f32(buf, y);
  return 0;
}

/* x * w rounded to x's type, as numpy multiplies two arrays of that type */
static double weigh(ox_dtype dt, double x, double w) {
  if (dt == OX_DOUBLE) return x * w;
  float f = (float)x * (float)w;
  return dt == OX_FLOAT ? f : ox_round_to(dt, f);
}

static ox_fft *plan(ox_ctx *c, int dt, int64_t n, int real) {
  if (n > (INT64_C(1) << 40)) {
    ox_fail(c->err, OX_EINPUT, "DFT length %lld is too large", (long long)n);
    return NULL;
  }
  ox_fft *p = ox_fft_plan(c->a, dt, n, real);
  if (!p) ox_oom(c->err, NULL);
  return p;
}

/* ---- the attributes, read once when the model is loaded ---- */

/* DFT's inverse, onesided and (DFT-17) axis; STFT's onesided; the windows'
 * and MelWeightMatrix's output_datatype and periodic */
typedef struct {
  int64_t inverse, onesided, axis, dtype, periodic;
} signal_state;

/* onesided: DFT's default is 0, STFT's 1 */
static int signal_read(ox_ctx *c, void **state, int onesided) {
  signal_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->inverse = ox_attr_int(c, "inverse", 0);
  st->onesided = ox_attr_int(c, "onesided", onesided);
  st->axis = ox_attr_int(c, "axis", 1);
  st->dtype = ox_attr_int(c, "output_datatype", OX_FLOAT);
  st->periodic = ox_attr_int(c, "periodic", 1);
  return 0;
}
static int signal_load(ox_ctx *c, void **state) { return signal_read(c, state, 0); }
static int stft_load(ox_ctx *c, void **state) { return signal_read(c, state, 1); }
#define GST ((const signal_state *)c->state)

/* ---- DFT ---- */

static int dft_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x = &in[0]->u.t; /* x: (d0, ..., d[r-2], 1 or 2) */
  int r = x->rank;
  int64_t inverse = GST->inverse, onesided = GST->onesided;
  int64_t axis = -2;
  if (c->version < 20) axis = GST->axis; /* DFT-17: an attribute */
  if (c->version >= 20 && nin > 2 && in[2]) OX_TRY(ox_scalar_i64(c, 2, in[2], &axis));
  if (r < 2 || (x->dims[r - 1] != 1 && x->dims[r - 1] != 2))
    return ox_fail(c->err, OX_EINPUT, "input must have rank >= 2 with a last dim of 1 (real) or 2 (complex); got rank %d", r);
  /* accepted axes: [-r, -2] and [0, r-2] */
  if (axis < -r || axis > r - 2 || axis == -1)
    return ox_fail(c->err, OX_EINPUT, "axis %lld is out of range for rank %d (the last dim holds complex parts)", (long long)axis, r);
  int ax = (int)(axis < 0 ? axis + r : axis);
  /* DFT-17 and 20: onesided forward is an RFFT (real input only), onesided
   * inverse an IRFFT (complex input only); ONNX's shape inference refuses
   * the other input kind */
  if (onesided && x->dims[r - 1] != (inverse ? 2 : 1))
    return ox_fail(c->err, OX_EINPUT, "onesided=1 with inverse=%d needs %s input (last dim %d); got last dim %lld",
                   inverse ? 1 : 0, inverse ? "complex" : "real", inverse ? 2 : 1, (long long)x->dims[r - 1]);
  /* x viewed as (outer, len, inner, ic) */
  int64_t outer = x->n ? 1 : 0, inner = outer, ic = x->dims[r - 1], len = x->dims[ax];
  for (int d = 0; d < ax && x->n; d++) outer *= x->dims[d]; /* empty x: (2^62, 2^62, 0) would overflow */
  for (int d = ax + 1; d < r - 1 && x->n; d++) inner *= x->dims[d];
  /* inverse with onesided is numpy's irfft (as ONNX's reference): the input
   * holds bins 0 .. n/2 and the output is real, n = 2 * (len - 1) unless
   * dft_length says otherwise */
  int irfft = inverse && onesided;
  int64_t n = irfft ? 2 * (len - 1) : len;
  if (nin > 1 && in[1]) {
    OX_TRY(ox_scalar_i64(c, 1, in[1], &n));
    if (n < 1) return ox_fail(c->err, OX_EINPUT, "dft_length must be positive; got %lld", (long long)n);
  }
  if (n < 1) return ox_fail(c->err, OX_EINPUT, "DFT length must be positive (signal dim %lld)", (long long)len);
  /* y viewed as (outer, olen, inner, oc) */
  int64_t olen = onesided && !inverse ? n / 2 + 1 : n, oc = irfft ? 1 : 2;
  int64_t *dims = ox_alloc_array(c->a, r, sizeof *dims);
  if (!dims) return ox_oom(c->err, NULL);
  memcpy(dims, x->dims, (size_t)r * sizeof *dims);
  dims[ax] = olen, dims[r - 1] = oc;
  OX_TRY(ox_tensor_new(c->a, x->dt, r, dims, &out[0], c->err));
  ox_tensor *y = &out[0]->u.t;
  if (!y->n || !x->n) return 0;
  int dt = fft_dt(x, ic == 2, inverse != 0);
  size_t es = dt == OX_DOUBLE ? sizeof(double) : sizeof(float);
  const char *xw = load_as(c, x, dt);
  char *yw = out_buf(c, y, dt);
  ox_fft *p = xw && yw ? plan(c, dt, n, irfft) : NULL;
  if (!p) return c->err->code;
  /* the reference's complex input is complex64 (or complex128), whose real
   * type sets fct's; real input keeps x's own type */
  double fct = !inverse ? 1 : inv_n(ic == 2 && x->dt != OX_DOUBLE ? OX_FLOAT : x->dt, n);
  ox_fft_line l = {.xs = inner * ic, .nin = len, .xc = (int)ic, .ys = inner * oc, .ny = olen};
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      l.x = xw + (size_t)((o * len * inner + i) * ic) * es;
      l.y = yw + (size_t)((o * olen * inner + i) * oc) * es;
      if (irfft) ox_fft_c2r(p, &l, fct);
      else ox_fft_c2c(p, &l, inverse != 0, fct);
    }
  return store_as(c, yw, y, dt);
}

/* ---- STFT-17 ---- */

static int stft_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *x = &in[0]->u.t; /* signal: (B, L, 1 or 2) */
  int64_t onesided = GST->onesided;
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
  /* ONNX's reference weights each frame in x's type (x * window) and then
   * calls numpy's forward fft, which runs in double (see fft_dt) */
  double *xd = ox_widen_f64(c->a, x, c->err), *wd = w ? ox_widen_f64(c->a, w, c->err) : NULL;
  double *fr = ox_alloc_array(c->a, fl * ic, sizeof *fr);
  double *yd = out_buf(c, y, OX_DOUBLE);
  if (!xd || (w && !wd) || !yd) return c->err->code;
  if (!fr) return ox_oom(c->err, NULL);
  ox_fft *p = plan(c, OX_DOUBLE, fl, 0);
  if (!p) return c->err->code;
  ox_fft_line l = {.x = fr, .xs = ic, .nin = fl, .xc = (int)ic, .ys = 2, .ny = bins};
  for (int64_t b = 0; b < B; b++)
    for (int64_t f = 0; f < frames; f++) {
      const double *xp = xd + (b * L + f * step) * ic; /* frame: (fl, ic) */
      for (int64_t t = 0; t < fl; t++)
        for (int64_t k = 0; k < ic; k++) fr[t * ic + k] = wd ? weigh(x->dt, xp[t * ic + k], wd[t]) : xp[t * ic + k];
      l.y = yd + (b * frames + f) * bins * 2;
      ox_fft_c2c(p, &l, 0, 1);
    }
  return store_as(c, yd, y, OX_DOUBLE);
}

/* ---- windows (17) ---- */

enum { HANN, HAMMING, BLACKMAN };

static int window(ox_ctx *c, ox_value **in, ox_value **out, int kind) {
  int64_t size, dt = GST->dtype, periodic = GST->periodic;
  OX_TRY(ox_scalar_i64(c, 0, in[0], &size));
  if (size < 0) return ox_fail(c->err, OX_EINPUT, "size must be >= 0; got %lld", (long long)size);
  const uint64_t ok = OX_TS_INTS | OX_TS_FLOAT4;
  if (!ox_dtype_valid(dt) || !(ok & (UINT64_C(1) << dt)))
    return ox_fail(c->err, OX_EINPUT, "output_datatype %lld is not a numeric type", (long long)dt);
  OX_TRY(ox_tensor_new(c->a, (ox_dtype)dt, 1, &size, &out[0], c->err));
  double *v = ox_alloc_array(c->a, size + 1, sizeof *v);
  if (!v) return ox_oom(c->err, NULL);
  /* periodic: N = size; symmetric: N = size - 1 (size 1 gives 0 / 0: NaN).
   * The formulas, and where they round, are the ONNX reference's (numpy 2):
   * Hann and Hamming take n = 0..size-1 in the output type, so n * pi is
   * rounded to it (float16: 3.140625 * n in float16); dividing by N (an
   * int64) goes to double. Blackman's n is int64 throughout. Integer outputs
   * truncate the double. */
  double N = (double)(periodic ? size : size - 1);
  int in_t = ox_dtype_is_float((ox_dtype)dt);
  double pi_t = in_t ? ox_round_to((ox_dtype)dt, M_PI) : M_PI;
  for (int64_t i = 0; i < size; i++) {
    double npi = in_t ? ox_round_to((ox_dtype)dt, ox_round_to((ox_dtype)dt, (double)i) * pi_t)
                      : (double)i * M_PI;
    if (kind == HANN) {
      double s = sin(npi / N); /* sin(n pi / N)^2 */
      v[i] = s * s;
    } else if (kind == HAMMING) {
      double alpha = 25.0 / 46.0;
      v[i] = alpha - cos(npi * 2 / N) * (1 - alpha);
    } else {
      double y = cos((double)i * (M_PI * 2) / N) * -0.5;
      y += cos((double)i * (M_PI * 4) / N) * 0.08;
      v[i] = y + 0.42;
    }
  }
  return ox_narrow_f64(c->a, v, &out[0]->u.t, OX_TO_INT_TRUNC, c->err);
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

/* 2595 log10(1 + hz / 700) with numpy's rounding in hz's type t: float16
 * and float32 round each step, constants included (2595 is 2596 in float16),
 * and numpy takes a float16 log10 through float. */
static double mel_of(ox_dtype t, double hz) {
  if (t == OX_DOUBLE) return 2595.0 * log10(1.0 + hz / 700.0);
  double r = ox_round_to(t, 1.0 + ox_round_to(t, hz / 700.0));
  return ox_round_to(t, ox_round_to(t, 2595.0) * ox_round_to(t, (double)log10f((float)r)));
}

/* a // b for doubles as Python and numpy define it (npy_divmod): the floor
 * of the exact quotient, which floor(a / b) can overshoot when a / b rounds
 * up to an integer. */
static double py_floordiv(double a, double b) {
  double mod = fmod(a, b), div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0;
  if (div == 0) return copysign(0.0, a / b);
  double fl = floor(div);
  return div - fl > 0.5 ? fl + 1.0 : fl;
}

static int mel_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  int64_t nmel, dftl, rate, dt = GST->dtype;
  double lo, hi;
  OX_TRY(ox_scalar_i64(c, 0, in[0], &nmel));
  OX_TRY(ox_scalar_i64(c, 1, in[1], &dftl));
  OX_TRY(ox_scalar_i64(c, 2, in[2], &rate));
  OX_TRY(scalar_f64(c, 3, in[3], &lo));
  OX_TRY(scalar_f64(c, 4, in[4], &hi));
  const uint64_t ok = OX_TS_INTS | OX_TS_FLOAT4;
  if (!ox_dtype_valid(dt) || !(ok & (UINT64_C(1) << dt)))
    return ox_fail(c->err, OX_EINPUT, "output_datatype %lld is not a numeric type", (long long)dt);
  if (nmel < 1 || dftl < 1 || rate < 1)
    return ox_fail(c->err, OX_EINPUT, "num_mel_bins, dft_length and sample_rate must be positive");
  if (nmel > (INT64_C(1) << 40)) return ox_fail(c->err, OX_EINPUT, "num_mel_bins %lld is too large", (long long)nmel);
  int64_t nspec = dftl / 2 + 1;
  /* out: (dft_length/2 + 1, num_mel_bins) */
  OX_TRY(ox_tensor_new(c->a, (ox_dtype)dt, 2, (int64_t[]){nspec, nmel}, &out[0], c->err));
  double *o = ox_alloc_array(c->a, nspec * nmel, sizeof *o);
  int64_t *fb = ox_alloc_array(c->a, nmel + 2, sizeof *fb);
  if (!o || !fb) return ox_oom(c->err, NULL);
  /* as the reference: nmel + 2 points evenly spaced in mel over
   * [lo, hi) with step (hi - lo) / (nmel + 2), mapped to DFT bins by
   * (dft_length + 1) * f // sample_rate. The two edges' mel values and the
   * step are computed in the edges' type, as numpy 2 does for the
   * reference, the rest in double; that decides which bin an edge falls in. */
  ox_dtype tlo = in[3]->u.t.dt, thi = in[4]->u.t.dt;
  double mlo = mel_of(tlo, lo), mhi = mel_of(thi, hi);
  ox_dtype tstep = tlo == OX_DOUBLE || thi == OX_DOUBLE ? OX_DOUBLE
                   : tlo == OX_FLOAT || thi == OX_FLOAT ? OX_FLOAT : tlo;
  double step = ox_round_to(tstep, ox_round_to(tstep, mhi - mlo) / (double)(nmel + 2));
  for (int64_t i = 0; i < nmel + 2; i++) {
    double f = 700.0 * (pow(10.0, ((double)i * step + mlo) / 2595.0) - 1.0);
    double b = py_floordiv((double)(dftl + 1) * f, (double)rate);
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
  return ox_narrow_f64(c->a, o, &out[0]->u.t, OX_TO_INT_TRUNC, c->err);
}

#define TS_IDX (OX_T(INT32) | OX_T(INT64))
#define TS_NUMOUT (OX_TS_INTS | OX_TS_FLOAT4)

const ox_kernel ox_signal_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "DFT",             17, 0, OX_TS_FLOAT4, 1, 2, dft_k,
    "axis:int=1,inverse:int=0,onesided:int=0", signal_load },
  { "", "DFT",             20, 0, OX_TS_FLOAT4, 1, 3, dft_k, "inverse:int=0,onesided:int=0", signal_load },
  { "", "STFT",            17, 0, OX_TS_FLOAT4, 2, 4, stft_k, "onesided:int=1", stft_load },
  { "", "HannWindow",      17, 0, TS_IDX,       1, 1, hann_k,
    "output_datatype:int=1,periodic:int=1", signal_load },
  { "", "HammingWindow",   17, 0, TS_IDX,       1, 1, hamming_k,
    "output_datatype:int=1,periodic:int=1", signal_load },
  { "", "BlackmanWindow",  17, 0, TS_IDX,       1, 1, blackman_k,
    "output_datatype:int=1,periodic:int=1", signal_load },
  { "", "MelWeightMatrix", 17, 0, TS_IDX,       5, 5, mel_k, "output_datatype:int=1", signal_load },
  {0},
};
