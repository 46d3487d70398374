/* ops/image.c: resampling and detection ops: Resize, Upsample, GridSample,
 * AffineGrid, NonMaxSuppression.
 *
 * Resize is separable: each resized axis is one pass over (outer, in, inner)
 * -> (outer, out, inner), with the source indices and weights of every output
 * index computed once per axis (as the reference's _interpolate_1d_along_axis).
 * nearest gathers bytes (any dtype, exact); linear and cubic compute in float
 * for float32 and the small floats (widened once, narrowed once on store) and
 * in double for double and the integers, which round half to even and
 * saturate on store, as numpy_helper.saturate_cast. The last pass writes
 * straight into the output when it has the work type. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"

/* One rounding per operation and gcc's cheap vectoriser cost model, for
 * the row loops: the Makefile's ROW_FLAGS for this file. */

/* The float values of an optional 1-D input (roi, scales); n = 0 if absent. */
static int floats_of(ox_ctx *c, const ox_value *v, double **vals, int64_t *n) {
  *n = 0;
  *vals = NULL;
  if (!v) return 0;
  if (v->kind != OX_TENSOR || !ox_dtype_is_float(v->u.t.dt) || v->u.t.rank > 1)
    return ox_fail(c->err, OX_EINPUT, "%s must be a 1-D float tensor", "roi/scales");
  *n = v->u.t.n;
  *vals = ox_widen_f64(c->a, &v->u.t, c->err);
  return *vals ? 0 : OX_EINPUT;
}

/* ---- Resize ---- */

enum { CT_HALF, CT_HALF_SYM, CT_PYTORCH, CT_ALIGN, CT_ASYM, CT_TF_CROP, CT_TF_HALF_NN };
enum { NM_FLOOR_PREF, NM_CEIL_PREF, NM_FLOOR, NM_CEIL, NM_SIMPLE };
enum { M_NEAREST, M_LINEAR, M_CUBIC };

typedef struct {
  int mode, ct, nm, exclude, antialias;
  double a;        /* cubic_coeff_a */
  ox_dtype roi_dt; /* tf_crop_and_resize: roi's type, in which its arithmetic runs */
} rz_opts;

/* One axis: K taps per output index. */
typedef struct {
  int K;
  int64_t *idx; /* (O, K) source indices, clamped */
  double *w;    /* (O, K) weights (absent for nearest) */
  uint8_t *ext; /* (O) EXT_VALUE, EXT_ZERO or 0 per output index; NULL if none */
} axis_taps;

/* Output indices whose value does not come from the input: tf_crop_and_resize's
 * extrapolated ones, and nearest's with exclude_outside whose pixel lies
 * outside (its only weight is dropped, leaving 0, as in the ONNX reference). */
enum { EXT_VALUE = 1, EXT_ZERO = 2 };

static int mark_ext(ox_ctx *c, axis_taps *t, int64_t O, int64_t o, uint8_t kind) {
  if (!t->ext && !(t->ext = ox_alloc(c->a, (size_t)O)))
    return ox_oom(c->err, NULL);
  if (t->ext[o] != EXT_VALUE) t->ext[o] = kind; /* the extrapolation is applied last */
  return 0;
}

static double cubic_w(double x, double A) {
  x = fabs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}

/* The source coordinate of output index o (W in, O out, s scale, roi lo/hi).
 * tf_crop_and_resize: the ONNX reference (op_resize.py) does the roi's own
 * arithmetic, hi - lo and lo * (W - 1), in roi's type (numpy >= 2 keeps
 * float32 * int in float32), the rest in double. It decides which output
 * pixels are extrapolated and, for nearest, ties; so onnxop rounds there too. */
static double src_coord(const rz_opts *p, double o, double s, int64_t W, int64_t O, double lo,
                        double hi) {
  double ow = s * (double)W; /* the real-valued output width */
  switch (p->ct) {
  case CT_ALIGN: return ow == 1 ? 0 : o * (double)(W - 1) / (ow - 1);
  case CT_ASYM: return o / s;
  case CT_TF_CROP: {
    ox_dtype t = p->roi_dt;
    double d = ox_round_to(t, hi - lo), base = ox_round_to(t, lo * (double)(W - 1));
    return (ow == 1 ? ox_round_to(t, ox_round_to(t, d * (double)(W - 1)) / 2)
                    : o * d * (double)(W - 1) / (ow - 1)) + base;
  }
  case CT_PYTORCH: return ow == 1 ? -0.5 : (o + 0.5) / s - 0.5;
  case CT_HALF_SYM: { /* 19: centre the implicit roi on the output canvas */
    double adj = (double)O / ow, off = (double)W / 2 * (1 - adj);
    return off + (o + 0.5) / s - 0.5;
  }
  case CT_TF_HALF_NN: return (o + 0.5) / s; /* 11 only */
  default: return (o + 0.5) / s - 0.5;
  }
}

static int build_taps(ox_ctx *c, const rz_opts *p, int64_t W, int64_t O, double s, double lo,
                      double hi, axis_taps *t) {
  double sc = s < 1 ? s : 1; /* antialias widens the kernel when downsampling (18) */
  double kd = p->mode == M_NEAREST ? 1
              : p->antialias ? 2 - 2 * (floor((p->mode == M_LINEAR ? -1 : -2) / sc) + 1)
              : p->mode == M_LINEAR ? 2 : 4;
  if (!(kd <= 4096)) return ox_fail(c->err, OX_EINPUT, "scale %g is too small for antialias", s);
  int K = (int)kd;
  t->K = K;
  t->idx = ox_alloc_array(c->a, O * K, sizeof *t->idx);
  t->w = p->mode == M_NEAREST ? NULL : ox_alloc_array(c->a, O * K, sizeof *t->w);
  t->ext = NULL;
  if (!t->idx || (p->mode != M_NEAREST && !t->w))
    return ox_oom(c->err, NULL);
  for (int64_t o = 0; o < O; o++) {
    double x = src_coord(p, (double)o, s, W, O, lo, hi);
    if (p->ct == CT_TF_CROP && (x < 0 || x > (double)(W - 1)))
      OX_TRY(mark_ext(c, t, O, o, EXT_VALUE));
    if (!isfinite(x) || fabs(x) > 0x1p52) x = 0;
    double fl = floor(x);
    /* the window prefers the pixel left of x: an integral x counts as ratio 1 */
    int64_t xi = (int64_t)fl;
    double r = x - fl;
    if (r == 0) { xi--; r = 1; }
    int64_t *id = t->idx + o * K;
    if (p->mode == M_NEAREST) {
      int up;
      switch (p->nm) {
      case NM_CEIL_PREF: up = r >= 0.5; break;
      case NM_FLOOR: up = r == 1; break;
      case NM_CEIL: up = 1; break;
      case NM_SIMPLE: up = r == 1 || s < 1; break; /* 10: floor up, ceil down (as onnxruntime) */
      default: up = r > 0.5;
      }
      int64_t j = xi + up;
      if (p->exclude && (j < 0 || j >= W)) OX_TRY(mark_ext(c, t, O, o, EXT_ZERO));
      id[0] = j < 0 ? 0 : j >= W ? W - 1 : j;
      continue;
    }
    double *w = t->w + o * K, sum = 0;
    for (int k = 0; k < K; k++) {
      int64_t off = k - K / 2 + 1; /* taps xi - K/2 + 1 .. xi + K/2 */
      double d = (double)off - r;
      if (p->mode == M_LINEAR) w[k] = p->antialias ? fmax(0, 1 - fabs(d * sc)) : (k ? r : 1 - r);
      else w[k] = cubic_w(p->antialias ? d * sc : d, p->a);
      id[k] = xi + off;
    }
    if (p->antialias)
      for (int k = 0; k < K; k++) sum += w[k];
    if (p->antialias && sum != 0)
      for (int k = 0; k < K; k++) w[k] /= sum;
    if (p->exclude) { /* weights outside the input dropped and the rest renormalised */
      sum = 0;
      for (int k = 0; k < K; k++) {
        if (id[k] < 0 || id[k] >= W) w[k] = 0;
        sum += w[k];
      }
      if (sum != 0)
        for (int k = 0; k < K; k++) w[k] /= sum;
    }
    for (int k = 0; k < K; k++) id[k] = id[k] < 0 ? 0 : id[k] >= W ? W - 1 : id[k];
  }
  return 0;
}

/* x: (outer, W, inner) -> y: (outer, O, inner), y[o] = sum_k w[o,k] x[idx[o,k]],
 * for the outer indices [u0, u1); y starts zeroed. T: float for the float32
 * and small-float types, double for the rest (the weights are double either
 * way). */
#define INTERP_PASS(NAME, T)                                                         \
  static void NAME(const T *x, T *y, int64_t u0, int64_t u1, int64_t W, int64_t O,   \
                   int64_t inner, const axis_taps *t) {                              \
    int K = t->K;                                                                    \
    for (int64_t u = u0; u < u1; u++) {                                              \
      const T *xu = x + u * W * inner;                                               \
      T *yu = y + u * O * inner;                                                     \
      if (inner == 1) {                                                              \
        for (int64_t o = 0; o < O; o++) {                                            \
          const int64_t *id = t->idx + o * K;                                        \
          const double *w = t->w + o * K;                                            \
          double acc = 0;                                                            \
          for (int k = 0; k < K; k++) acc += w[k] * (double)xu[id[k]];               \
          yu[o] = (T)acc;                                                            \
        }                                                                            \
        continue;                                                                    \
      }                                                                              \
      for (int64_t o = 0; o < O; o++) {                                              \
        T *yr = yu + o * inner;                                                      \
        for (int k = 0; k < K; k++) {                                                \
          const T *xr = xu + t->idx[o * K + k] * inner;                              \
          T w = (T)t->w[o * K + k];                                                  \
          for (int64_t i = 0; i < inner; i++) yr[i] += w * xr[i];                    \
        }                                                                            \
      }                                                                              \
    }                                                                                \
  }
INTERP_PASS(interp_f32, float)
INTERP_PASS(interp_f64, double)

/* Nearest: x: (outer, W, inner) -> y: (outer, O, inner) by byte copies, for
 * the outer indices [u0, u1). */
static void gather_pass(const char *x, char *y, int64_t u0, int64_t u1, int64_t W, int64_t O,
                        int64_t inner, size_t es, const axis_taps *t) {
  size_t row = (size_t)inner * es;
  for (int64_t u = u0; u < u1; u++) {
    const char *xu = x + (size_t)(u * W) * row;
    char *yu = y + (size_t)(u * O) * row;
    switch (row) {
#define COPY(N, T)                                                                   \
    case N: for (int64_t o = 0; o < O; o++) ((T *)yu)[o] = ((const T *)xu)[t->idx[o]]; break;
      COPY(1, uint8_t) COPY(2, uint16_t) COPY(4, uint32_t) COPY(8, uint64_t)
#undef COPY
    default:
      for (int64_t o = 0; o < O; o++) memcpy(yu + (size_t)o * row, xu + (size_t)t->idx[o] * row, row);
    }
  }
}

/* Set every hyperplane of axis d whose index is extrapolated to the value `v`
 * (es bytes). y: (outer, O, inner). */
/* y: (outer, O, inner); v: the extrapolation value as one element. A zeroed
 * element is 0 in every work type (and the empty string). */
static void fill_ext(char *y, int64_t outer, int64_t O, int64_t inner, size_t es,
                     const uint8_t *ext, const void *v) {
  static const char zero[16];
  for (int64_t u = 0; u < outer; u++)
    for (int64_t o = 0; o < O; o++) {
      if (!ext[o]) continue;
      const void *e = ext[o] == EXT_VALUE ? v : zero;
      char *p = y + (size_t)((u * O + o) * inner) * es;
      for (int64_t i = 0; i < inner; i++) memcpy(p + (size_t)i * es, e, es);
    }
}

/* One pass, its outer indices split over the threads (each output element is
 * computed alike in any chunk: the same bytes for every thread count). */
typedef struct {
  int wk; /* W_BYTES, W_F32, W_F64 of resize_run */
  const void *src;
  void *dst;
  int64_t W, O, inner;
  size_t es;
  const axis_taps *t;
} pass_job;

static void pass_chunk(void *arg, int slot, int64_t u0, int64_t u1) {
  const pass_job *j = arg;
  if (j->wk == 0) gather_pass(j->src, j->dst, u0, u1, j->W, j->O, j->inner, j->es, j->t);
  else if (j->wk == 1) interp_f32(j->src, j->dst, u0, u1, j->W, j->O, j->inner, j->t);
  else interp_f64(j->src, j->dst, u0, u1, j->W, j->O, j->inner, j->t);
}

static void run_pass(int threads, const pass_job *j, int64_t outer) {
  /* a tap of an output element: about 0.2 ns */
  double work = (double)outer * (double)j->O * (double)j->inner * (double)(j->t->K + 1) * 16;
  int nch = ox_par_chunks(threads, outer, work);
  if (nch <= 1) pass_chunk((void *)j, 0, 0, outer);
  else ox_par_for(outer, nch, pass_chunk, (void *)j);
}

/* Nearest on the last two axes only (NCHW upsampling), in one pass: output
 * rows lo .. hi-1 of (planes, OH), each gathered from its input row, or
 * copied from the row before when both come from the same input row. */
typedef struct {
  const char *x;
  char *y;
  int64_t H, W, OH, OW;
  size_t es;
  const axis_taps *th, *tw;
} near2_job;

static void near2_rows(void *arg, int slot, int64_t lo, int64_t hi) {
  const near2_job *j = arg;
  size_t es = j->es, orow = (size_t)j->OW * es;
  for (int64_t r = lo; r < hi; r++) {
    int64_t pl = r / j->OH, oh = r % j->OH, ih = j->th->idx[oh];
    char *yr = j->y + (size_t)r * orow;
    if (r > lo && oh > 0 && j->th->idx[oh - 1] == ih) {
      memcpy(yr, yr - orow, orow);
      continue;
    }
    const char *xr = j->x + (size_t)(pl * j->H + ih) * (size_t)j->W * es;
    const int64_t *iw = j->tw->idx;
    switch (es) {
#define COPY(N, T)                                                                   \
    case N: for (int64_t o = 0; o < j->OW; o++) ((T *)yr)[o] = ((const T *)xr)[iw[o]]; break;
      COPY(1, uint8_t) COPY(2, uint16_t) COPY(4, uint32_t) COPY(8, uint64_t)
#undef COPY
    default:
      for (int64_t o = 0; o < j->OW; o++) memcpy(yr + (size_t)o * es, xr + (size_t)iw[o] * es, es);
    }
  }
}

/* Linear or cubic of the last two axes of float32 or a small float (NCHW
 * upsampling), in one pass over the output rows, without the passes'
 * (planes, OH, W) intermediate: for output row (plane, oh), its source rows
 * are combined along H into a row of W floats as interp_f32's H pass
 * computes them (float, from 0, tap by tap), then that row along W as its
 * W pass does (inner 1: double, from 0, tap by tap, one rounding to
 * float), and a small float's row rounded once on store: each element gets
 * the passes' operations, so the same bytes. The W pass gathers its taps
 * (tw's indices and weights transposed, (K, OW), so that the AVX2 and
 * AVX-512 builds load them as vectors). */
typedef struct {
  const float *x; /* X, or its float copy */
  void *y;
  ox_dtype yt;
  int64_t H, W, OH, OW;
  const axis_taps *th;
  int Kw;
  const int32_t *iwt; /* (Kw, OW): tw's indices */
  const double *wwt;  /* (Kw, OW): tw's weights */
  /* AVX-512 without gathers, when each block of 8 outputs reads at most 16
   * consecutive floats per tap (upsampling): win[k * nblk + b] the first,
   * rel (Kw, OW) each index less its block's first */
  const int32_t *win, *rel;
  int64_t nblk;
  /* per slot: a row of W + 16 floats (16 read past its end, never used),
   * then, for a small float Y, a row of OW */
  float *rows;
} lin2_job;

/* the H pass of output row oh of plane pl into row (W floats) */
static inline void lin2_hrow(const lin2_job *j, int64_t pl, int64_t oh, float *row) {
  int K = j->th->K;
  for (int k = 0; k < K; k++) {
    const float *xr = j->x + (pl * j->H + j->th->idx[oh * K + k]) * j->W;
    float w = (float)j->th->w[oh * K + k];
    if (k == 0)
      for (int64_t i = 0; i < j->W; i++) row[i] = 0.0f + w * xr[i]; /* 0 + -0 is +0, as in the pass */
    else
      for (int64_t i = 0; i < j->W; i++) row[i] += w * xr[i];
  }
}

/* the W pass of outputs [o0, OW) of one row */
static inline void lin2_wtail(const lin2_job *j, const float *row, float *yr, int64_t o0) {
  for (int64_t o = o0; o < j->OW; o++) {
    double acc = 0;
    for (int k = 0; k < j->Kw; k++) acc += j->wwt[k * j->OW + o] * (double)row[j->iwt[k * j->OW + o]];
    yr[o] = (float)acc;
  }
}

/* rows [lo, hi) of Y, W_PASS(j, row, yr) computing a row's W pass */
#define LIN2_ROWS(j, row, lo, hi, W_PASS)                                              \
  for (int64_t r_ = (lo); r_ < (hi); r_++) {                                           \
    lin2_hrow(j, r_ / (j)->OH, r_ % (j)->OH, row);                                     \
    float *yr = (j)->yt == OX_FLOAT ? (float *)(j)->y + r_ * (j)->OW : (row) + (j)->W + 16; \
    W_PASS(j, row, yr);                                                                \
    if ((j)->yt != OX_FLOAT) ox_narrow_f32_n(yr, (j)->OW, (j)->yt, (j)->y, r_ * (j)->OW); \
  }

#define LIN2_W_GENERIC(j, row, yr) lin2_wtail(j, row, yr, 0)
static void lin2_rows_generic(const lin2_job *j, float *row, int64_t lo, int64_t hi) {
  LIN2_ROWS(j, row, lo, hi, LIN2_W_GENERIC)
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
__attribute__((target("avx2"))) static inline void lin2_w_avx2(const lin2_job *j, const float *row, float *yr) {
  int64_t OW = j->OW, o = 0;
  for (; o + 4 <= OW; o += 4) {
    __m256d acc = _mm256_setzero_pd();
    for (int k = 0; k < j->Kw; k++) {
      __m128i id = _mm_loadu_si128((const __m128i *)(j->iwt + k * OW + o));
      __m256d v = _mm256_cvtps_pd(_mm_i32gather_ps(row, id, 4));
      acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_loadu_pd(j->wwt + k * OW + o), v));
    }
    _mm_storeu_ps(yr + o, _mm256_cvtpd_ps(acc));
  }
  lin2_wtail(j, row, yr, o);
}
__attribute__((target("avx2"))) static void lin2_rows_avx2(const lin2_job *j, float *row, int64_t lo, int64_t hi) {
  LIN2_ROWS(j, row, lo, hi, lin2_w_avx2)
}

__attribute__((target("avx512f,avx2"))) static inline void lin2_w_avx512(const lin2_job *j, const float *row,
                                                                          float *yr) {
  int64_t OW = j->OW, o = 0;
  for (; j->win && o + 8 <= OW; o += 8) { /* a window of 16 per tap, permuted */
    __m512d acc = _mm512_setzero_pd();
    for (int k = 0; k < j->Kw; k++) {
      __m512 w16 = _mm512_loadu_ps(row + j->win[k * j->nblk + o / 8]);
      __m512i id = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(j->rel + k * OW + o)));
      __m512d v = _mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_permutexvar_ps(id, w16)));
      acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_loadu_pd(j->wwt + k * OW + o), v));
    }
    _mm256_storeu_ps(yr + o, _mm512_cvtpd_ps(acc));
  }
  for (; o + 8 <= OW; o += 8) { /* gathered */
    __m512d acc = _mm512_setzero_pd();
    for (int k = 0; k < j->Kw; k++) {
      __m256i id = _mm256_loadu_si256((const __m256i *)(j->iwt + k * OW + o));
      __m512d v = _mm512_cvtps_pd(_mm256_i32gather_ps(row, id, 4));
      acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_loadu_pd(j->wwt + k * OW + o), v));
    }
    _mm256_storeu_ps(yr + o, _mm512_cvtpd_ps(acc));
  }
  lin2_wtail(j, row, yr, o);
}
__attribute__((target("avx512f,avx2"))) static void lin2_rows_avx512(const lin2_job *j, float *row, int64_t lo,
                                                                      int64_t hi) {
  LIN2_ROWS(j, row, lo, hi, lin2_w_avx512)
}
#endif

static void lin2_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const lin2_job *j = arg;
  float *row = j->rows + (size_t)slot * (size_t)(j->W + 16 + (j->yt == OX_FLOAT ? 0 : j->OW));
  OX_AT_WIDTH(lin2_rows, j, row, lo, hi);
}

/* Y (uninitialised, not empty) <- X resized along its last two axes by the
 * taps th and tw (none extrapolated) */
static int lin2_run(ox_ctx *c, const ox_tensor *X, ox_tensor *Y, const axis_taps *th, const axis_taps *tw) {
  int r = X->rank, Kw = tw->K;
  int64_t OW = Y->dims[r - 1], rows = Y->n / OW;
  const float *x = X->dt == OX_FLOAT ? X->data : ox_widen_f32(c->a, X, c->err); /* as the passes read it */
  if (!x) return ox_oom(c->err, NULL);
  lin2_job j = {x, Y->data, Y->dt, X->dims[r - 2], X->dims[r - 1], Y->dims[r - 2], OW, th, Kw, NULL, NULL,
                NULL, NULL, 0, NULL};
  int32_t *iwt = ox_alloc_array(c->a, (int64_t)Kw * OW, sizeof *iwt);
  double *wwt = ox_alloc_array(c->a, (int64_t)Kw * OW, sizeof *wwt);
  if (!iwt || !wwt) return ox_oom(c->err, NULL);
  for (int64_t o = 0; o < OW; o++)
    for (int k = 0; k < Kw; k++) {
      iwt[k * OW + o] = (int32_t)tw->idx[o * Kw + k];
      wwt[k * OW + o] = tw->w[o * Kw + k];
    }
  j.iwt = iwt, j.wwt = wwt;
  /* the windows of 16 for AVX-512, if every block of 8 fits one */
  int64_t nblk = OW / 8;
  int32_t *win = nblk ? ox_alloc_array(c->a, (int64_t)Kw * nblk, sizeof *win) : NULL;
  int32_t *rel = nblk ? ox_alloc_array(c->a, (int64_t)Kw * OW, sizeof *rel) : NULL;
  int fits = win && rel;
  for (int k = 0; k < Kw && fits; k++)
    for (int64_t b = 0; b < nblk && fits; b++) {
      const int32_t *id = iwt + k * OW + b * 8;
      int32_t lo = id[0], hi = id[0];
      for (int q = 1; q < 8; q++) lo = id[q] < lo ? id[q] : lo, hi = id[q] > hi ? id[q] : hi;
      fits = hi - lo < 16;
      win[k * nblk + b] = lo;
      for (int q = 0; q < 8; q++) rel[k * OW + b * 8 + q] = id[q] - lo;
    }
  if (fits) j.win = win, j.rel = rel, j.nblk = nblk;
  /* a tap of an output element: about 0.2 ns, as run_pass */
  double work = (double)Y->n * (double)(th->K + Kw) * 16;
  int nch = ox_par_chunks(c->threads, rows, work);
  int64_t slot = j.W + 16 + (Y->dt == OX_FLOAT ? 0 : OW);
  if (!(j.rows = ox_alloc_array(c->a, (int64_t)(nch > 1 ? nch : 1) * slot, sizeof *j.rows)))
    return ox_oom(c->err, NULL); /* zeroed: the 16 past a row's end are read, never used */
  if (nch <= 1) lin2_chunk(&j, 0, 0, rows);
  else ox_par_for(rows, nch, lin2_chunk, &j);
  return 0;
}

static int parse_enum(ox_ctx *c, const char *attr, const char *val, const char *const *names,
                      int n, int *out) {
  for (int i = 0; i < n; i++)
    if (names[i] && !strcmp(val, names[i])) { *out = i; return 0; }
  return ox_fail(c->err, OX_EINPUT, "%s '%s' is not supported", attr, val);
}

/* The resize itself, after the output shape and per-axis scales are known.
 * scale[d], roi[d], roi[r + d] per axis d; do[d]: axis d is resized. */
static int resize_run(ox_ctx *c, const rz_opts *p, const ox_tensor *X, const int64_t *odims,
                      const double *scale, const double *roi, const uint8_t *doax,
                      double extrap, ox_value **out) {
  int r = X->rank;
  /* the work buffers: the elements themselves (nearest), float or double */
  enum { W_BYTES, W_F32, W_F64 } wk = p->mode == M_NEAREST ? W_BYTES
      : X->dt == OX_FLOAT || ox_dtype_is_small_float(X->dt) ? W_F32 : W_F64;
  /* linear or cubic of the last two axes of float32 or a small float, when nothing is
   * extrapolated: lin2_rows, which writes every element */
  int lin2 = wk == W_F32 && r >= 2 && doax[r - 1] && doax[r - 2] && X->n > 0 &&
             X->dims[r - 1] > 1 && X->dims[r - 1] <= INT32_MAX; /* W 1: the H pass is in double */
  for (int d = 0; d < r - 2 && lin2; d++) lin2 = !doax[d];
  axis_taps lh = {0}, lw = {0}; /* their taps along H and W */
  if (lin2) {
    OX_TRY(build_taps(c, p, X->dims[r - 2], odims[r - 2], scale[r - 2], roi[r - 2], roi[2 * r - 2], &lh));
    OX_TRY(build_taps(c, p, X->dims[r - 1], odims[r - 1], scale[r - 1], roi[r - 1], roi[2 * r - 1], &lw));
    lin2 = !lh.ext && !lw.ext;
  }
  /* nearest and lin2 write every element; the passes add into zeros */
  if (wk == W_BYTES || lin2) OX_TRY(ox_tensor_new_uninit(c->a, X->dt, r, odims, out, c->err));
  else OX_TRY(ox_tensor_new(c->a, X->dt, r, odims, out, c->err));
  ox_tensor *Y = &(*out)->u.t;
  if (lin2 && Y->n > 0) return lin2_run(c, X, Y, &lh, &lw);
  if (Y->n == 0) return 0;
  if (X->n == 0) return ox_fail(c->err, OX_EINPUT, "cannot resize an empty input to a non-empty output");
  if (wk != W_BYTES && (X->dt == OX_STRING || ox_dtype_is_complex(X->dt)))
    return ox_fail(c->err, OX_EINPUT, "mode linear/cubic needs real numbers, not %s",
                   ox_dtype_name(X->dt));
  size_t es = wk == W_BYTES ? ox_dtype_size(X->dt) : wk == W_F32 ? sizeof(float) : sizeof(double);
  /* the last pass writes straight into y when y has the work type */
  int direct = wk == W_BYTES || (wk == W_F32 && X->dt == OX_FLOAT) ||
               (wk == W_F64 && X->dt == OX_DOUBLE), last = -1;
  for (int d = 0; d < r; d++)
    if (doax[d]) last = d;
  int64_t cur[16];
  memcpy(cur, X->dims, (size_t)r * sizeof *cur);
  axis_taps *taps = ox_alloc_array(c->a, r, sizeof *taps);
  if (!taps) return ox_oom(c->err, NULL);
  const void *src = wk == W_BYTES || X->dt == OX_FLOAT ? X->data
                    : wk == W_F32 ? (const void *)ox_widen_f32(c->a, X, c->err)
                                  : (const void *)ox_widen_f64(c->a, X, c->err);
  if (!src) return ox_oom(c->err, NULL);
  int anyext = 0, anyval = 0;
  int last2 = wk == W_BYTES && r >= 2 && doax[r - 1] && doax[r - 2];
  for (int d = 0; d < r - 2 && last2; d++) last2 = !doax[d];
  if (last2) { /* nearest of the last two axes: one pass, when nothing is extrapolated */
    axis_taps th, tw;
    int64_t H = X->dims[r - 2], W = X->dims[r - 1];
    OX_TRY(build_taps(c, p, H, odims[r - 2], scale[r - 2], roi[r - 2], roi[2 * r - 2], &th));
    OX_TRY(build_taps(c, p, W, odims[r - 1], scale[r - 1], roi[r - 1], roi[2 * r - 1], &tw));
    if (!th.ext && !tw.ext) {
      int64_t rows = Y->n / odims[r - 1];
      near2_job j = {X->data, Y->data, H, W, odims[r - 2], odims[r - 1], es, &th, &tw};
      int nch = ox_par_chunks_mem(c->threads, rows, 2.0 * (double)es * (double)Y->n);
      if (nch <= 1) near2_rows(&j, 0, 0, rows);
      else ox_par_for(rows, nch, near2_rows, &j);
      return 0;
    }
  }
  for (int d = 0; d < r; d++) {
    if (!doax[d]) continue;
    OX_TRY(build_taps(c, p, X->dims[d], odims[d], scale[d], roi[d], roi[r + d], &taps[d]));
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < d; k++) outer *= cur[k];
    for (int k = d + 1; k < r; k++) inner *= cur[k];
    int64_t n = outer * odims[d] * inner; /* <= the output's count: no overflow */
    void *dst = d == last && direct ? Y->data
                : wk == W_BYTES ? ox_alloc_uninit(c->a, (size_t)n * es) : ox_alloc_array(c->a, n, es);
    if (!dst) return ox_oom(c->err, NULL);
    pass_job pj = {(int)wk, src, dst, cur[d], odims[d], inner, es, &taps[d]};
    run_pass(c->threads, &pj, outer);
    cur[d] = odims[d];
    src = dst;
    anyext |= taps[d].ext != NULL;
    for (int64_t o = 0; taps[d].ext && o < odims[d]; o++) anyval |= taps[d].ext[o] == EXT_VALUE;
  }
  if (anyext) { /* marked positions get the extrapolation value or 0, the last axis's mark wins */
    char val[16] = {0}; /* the value as one work element */
    float vf = (float)extrap;
    if (!anyval) {
    } else if (wk == W_F32) memcpy(val, &vf, sizeof vf);
    else if (wk == W_F64) memcpy(val, &extrap, sizeof extrap);
    else if (X->dt == OX_STRING || ox_dtype_is_complex(X->dt))
      return ox_fail(c->err, OX_EINPUT, "extrapolation_value cannot be stored as %s",
                     ox_dtype_name(X->dt));
    else {
      ox_tensor tmp = {.dt = X->dt, .rank = 0, .dims = NULL, .n = 1, .data = val};
      OX_TRY(ox_narrow_f64(c->a, &extrap, &tmp, OX_TO_INT_ROUND_SAT, c->err));
    }
    for (int d = 0; d < r; d++) {
      if (!doax[d] || !taps[d].ext) continue;
      int64_t outer = 1, inner = 1;
      for (int k = 0; k < d; k++) outer *= cur[k];
      for (int k = d + 1; k < r; k++) inner *= cur[k];
      fill_ext((void *)src, outer, cur[d], inner, es, taps[d].ext, val);
    }
  }
  if (src == Y->data) return 0;
  if (wk == W_BYTES) memcpy(Y->data, src, (size_t)Y->n * es);
  else if (wk == W_F32) ox_narrow_f32(src, Y);
  else return ox_narrow_f64(c->a, src, Y, OX_TO_INT_ROUND_SAT, c->err); /* saturate_cast */
  return 0;
}

static int resize(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *X = &in[0]->u.t;
  int r = X->rank, v = c->version;
  if (r > 16) return ox_fail(c->err, OX_EINPUT, "rank %d is above 16", r);
  static const char *const modes[] = {"nearest", "linear", "cubic"};
  static const char *const cts[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                    "align_corners", "asymmetric", "tf_crop_and_resize",
                                    "tf_half_pixel_for_nn"};
  static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  rz_opts p = {.roi_dt = OX_DOUBLE};
  OX_TRY(parse_enum(c, "mode", ox_attr_string(c, "mode", "nearest"), modes, v >= 11 ? 3 : 2,
                    &p.mode));
  if (v >= 11) {
    const char *ct = ox_attr_string(c, "coordinate_transformation_mode", "half_pixel");
    if ((v < 19 && !strcmp(ct, "half_pixel_symmetric")) ||
        (v >= 13 && !strcmp(ct, "tf_half_pixel_for_nn")))
      return ox_fail(c->err, OX_EINPUT, "coordinate_transformation_mode '%s' is not in Resize-%d",
                     ct, v);
    OX_TRY(parse_enum(c, "coordinate_transformation_mode", ct, cts, 7, &p.ct));
    OX_TRY(parse_enum(c, "nearest_mode", ox_attr_string(c, "nearest_mode", "round_prefer_floor"),
                      nms, 4, &p.nm));
    p.a = ox_attr_float(c, "cubic_coeff_a", -0.75f);
    p.exclude = ox_attr_int(c, "exclude_outside", 0) != 0;
  } else { /* Resize-10, Upsample: asymmetric */
    p.ct = CT_ASYM;
    p.nm = NM_SIMPLE;
  }
  double extrap = ox_attr_float(c, "extrapolation_value", 0.0f);
  int keep = 0;
  int64_t naxes = r, *axes = NULL;
  if (v >= 18) {
    p.antialias = ox_attr_int(c, "antialias", 0) != 0;
    static const char *const kp[] = {"stretch", "not_larger", "not_smaller"};
    OX_TRY(parse_enum(c, "keep_aspect_ratio_policy",
                      ox_attr_string(c, "keep_aspect_ratio_policy", "stretch"), kp, 3, &keep));
    const int64_t *ax = ox_attr_ints(c, "axes", &naxes);
    if (ax) {
      axes = ox_alloc_array(c->a, naxes ? naxes : 1, sizeof *axes);
      if (!axes) return ox_oom(c->err, NULL);
      uint32_t seen = 0;
      for (int64_t i = 0; i < naxes; i++) {
        int a;
        OX_TRY(ox_axis(c, ax[i], r, 0, "axes", &a));
        if (seen >> a & 1) return ox_fail(c->err, OX_EINPUT, "axes repeats axis %d", a);
        seen |= 1u << a;
        axes[i] = a;
      }
    } else naxes = r;
  }
  if (!axes) {
    axes = ox_alloc_array(c->a, r ? r : 1, sizeof *axes);
    if (!axes) return ox_oom(c->err, NULL);
    for (int i = 0; i < r; i++) axes[i] = i;
  }
  if (p.mode == M_NEAREST) p.antialias = 0;

  /* inputs: 10: (X, scales); 11+: (X, roi, scales, sizes), empty = absent */
  double *sv, *rv = NULL;
  int64_t ns, nr = 0, nsz = 0, *sz = NULL;
  if (v < 11) OX_TRY(floats_of(c, in[1], &sv, &ns));
  else {
    OX_TRY(floats_of(c, nin > 1 ? in[1] : NULL, &rv, &nr));
    if (nr) p.roi_dt = in[1]->u.t.dt;
    OX_TRY(floats_of(c, nin > 2 ? in[2] : NULL, &sv, &ns));
    if (nin > 3 && in[3] && in[3]->u.t.n > 0) OX_TRY(ox_ints_of(c, 3, in[3], &sz, &nsz));
  }
  double scale[16], roi[32];
  int64_t od[16];
  uint8_t doax[16] = {0};
  for (int d = 0; d < r; d++) { scale[d] = 1; od[d] = X->dims[d]; roi[d] = 0; roi[r + d] = 1; }
  if (ns && nsz) return ox_fail(c->err, OX_EINPUT, "only one of scales and sizes may be given");
  if (ns) {
    if (ns != naxes)
      return ox_fail(c->err, OX_EINPUT, "scales has %lld values for %lld axes", (long long)ns,
                     (long long)naxes);
    for (int64_t i = 0; i < ns; i++) {
      double s = sv[i], o = s * (double)X->dims[axes[i]];
      if (!(s > 0) || !isfinite(s))
        return ox_fail(c->err, OX_EINPUT, "scale %g is not a positive finite factor", s);
      if (!(o <= 0x1p62))
        return ox_fail(c->err, OX_EINPUT, "scale %g makes axis %lld %g long, more than 2^62", s,
                       (long long)axes[i], o);
      scale[axes[i]] = s;
      od[axes[i]] = (int64_t)o;
    }
  } else if (nsz) {
    if (nsz != naxes)
      return ox_fail(c->err, OX_EINPUT, "sizes has %lld values for %lld axes", (long long)nsz,
                     (long long)naxes);
    for (int64_t i = 0; i < nsz; i++) {
      int64_t d = axes[i];
      if (sz[i] < 0) return ox_fail(c->err, OX_EINPUT, "sizes has a negative value");
      if (X->dims[d] == 0 && sz[i]) return ox_fail(c->err, OX_EINPUT, "cannot resize an empty axis");
      od[d] = sz[i];
      scale[d] = X->dims[d] ? (double)sz[i] / (double)X->dims[d] : 1;
    }
    if (keep) { /* 18: one scale for the listed axes, sizes rounded half up */
      double s = scale[axes[0]];
      for (int64_t i = 1; i < naxes; i++)
        s = keep == 1 ? fmin(s, scale[axes[i]]) : fmax(s, scale[axes[i]]);
      for (int64_t i = 0; i < naxes; i++) {
        scale[axes[i]] = s;
        double o = s * (double)X->dims[axes[i]] + 0.5;
        if (!(o < 0x1p62)) return ox_fail(c->err, OX_EINPUT, "the output size overflows");
        od[axes[i]] = (int64_t)o;
      }
    }
  } else return ox_fail(c->err, OX_EINPUT, "one of scales and sizes must be given");
  if (p.ct == CT_TF_CROP && nr) {
    if (nr != 2 * naxes)
      return ox_fail(c->err, OX_EINPUT, "roi has %lld values; %lld expected", (long long)nr,
                     (long long)(2 * naxes));
    for (int64_t i = 0; i < naxes; i++) {
      roi[axes[i]] = rv[i];
      roi[r + axes[i]] = rv[naxes + i];
    }
  }
  for (int d = 0; d < r; d++)
    doax[d] = !(fabs(scale[d] - 1) < 1e-9 && od[d] == X->dims[d] &&
                (p.ct != CT_TF_CROP || (roi[d] == 0 && roi[r + d] == 1)));
  return resize_run(c, &p, X, od, scale, roi, doax, extrap, out);
}

/* Upsample-1 (experimental: height_scale and width_scale on a 4-D X), -7
 * (scales attribute) and -9 (scales input): Resize-10's semantics. */
static int upsample(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *X = &in[0]->u.t;
  int r = X->rank;
  if (r > 16) return ox_fail(c->err, OX_EINPUT, "rank %d is above 16", r);
  double *sv, scale[16], roi[32];
  int64_t ns, od[16];
  uint8_t doax[16];
  if (c->version < 7) {
    /* X: (N, C, H, W); both scales are required. */
    const ox_attr *h = ox_attr_find(c, "height_scale"), *w = ox_attr_find(c, "width_scale");
    if (r != 4) return ox_fail(c->err, OX_EINPUT, "X has rank %d; Upsample-1 takes (N, C, H, W)", r);
    if (!h || h->type != OX_ATTR_FLOAT || !w || w->type != OX_ATTR_FLOAT)
      return ox_fail(c->err, OX_EINPUT, "attributes 'height_scale' and 'width_scale' (float) are required");
    ns = 4;
    sv = ox_alloc_array(c->a, 4, sizeof *sv);
    if (!sv) return ox_oom(c->err, NULL);
    sv[0] = sv[1] = 1;
    sv[2] = h->f;
    sv[3] = w->f;
  } else if (c->version < 9) {
    const ox_attr *a = ox_attr_find(c, "scales");
    if (!a || a->type != OX_ATTR_FLOATS)
      return ox_fail(c->err, OX_EINPUT, "attribute 'scales' (floats) is required");
    ns = a->n;
    sv = ox_alloc_array(c->a, ns ? ns : 1, sizeof *sv);
    if (!sv) return ox_oom(c->err, NULL);
    for (int64_t i = 0; i < ns; i++) sv[i] = a->floats[i];
  } else OX_TRY(floats_of(c, nin > 1 ? in[1] : NULL, &sv, &ns));
  if (ns != r)
    return ox_fail(c->err, OX_EINPUT, "scales has %lld values for rank %d", (long long)ns, r);
  rz_opts p = {.ct = CT_ASYM, .nm = NM_SIMPLE};
  static const char *const modes[] = {"nearest", "linear", "bilinear"};
  OX_TRY(parse_enum(c, "mode", ox_attr_string(c, "mode", "nearest"), modes, 3, &p.mode));
  if (p.mode == 2) p.mode = M_LINEAR;
  for (int d = 0; d < r; d++) {
    double o = sv[d] * (double)X->dims[d];
    if (!(sv[d] >= 1) || !isfinite(sv[d]))
      return ox_fail(c->err, OX_EINPUT, "scale %g must be a finite factor >= 1", sv[d]);
    if (!(o <= 0x1p62))
      return ox_fail(c->err, OX_EINPUT, "scale %g makes axis %d %g long, more than 2^62", sv[d], d, o);
    scale[d] = sv[d];
    od[d] = (int64_t)o;
    roi[d] = 0;
    roi[r + d] = 1;
    doax[d] = !(scale[d] == 1 && od[d] == X->dims[d]);
  }
  return resize_run(c, &p, X, od, scale, roi, doax, 0, out);
}


/* ---- GridSample ---- */

/* Reflect x into [lo, hi] by the near border until inside (16). */
static double reflect(double x, double lo, double hi) {
  double rng = hi - lo;
  if (!(rng > 0)) return lo;
  if (x < lo) {
    double dx = lo - x, n = floor(dx / rng), r = dx - n * rng;
    return fmod(n, 2) == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    double dx = x - hi, n = floor(dx / rng), r = dx - n * rng;
    return fmod(n, 2) == 0 ? hi - r : lo + r;
  }
  return x;
}

enum { PAD_ZEROS, PAD_BORDER, PAD_REFLECT };

/* The source index of tap i along an axis of size D (-1: a zero of the
 * zeros padding). */
static inline int64_t gs_pixel(int64_t i, int64_t D, int pad, double lo, double hi) {
  if (i >= 0 && i < D) return i;
  if (pad == PAD_ZEROS) return -1;
  if (pad == PAD_BORDER) return i < 0 ? 0 : D - 1;
  int64_t j = (int64_t)reflect((double)i, lo, hi);
  return j < 0 ? 0 : j >= D ? D - 1 : j;
}

static int grid_sample(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin; (void)nout;
  const ox_tensor *X = &in[0]->u.t, *G = &in[1]->u.t;
  int v = c->version, k = X->rank - 2;
  /* X: (N, C, D1..Dk); grid: (N, O1..Ok, k), grid[..., 0] indexing Dk (x) */
  if (k < 1 || k > 8 || (v < 20 && k != 2))
    return ox_fail(c->err, OX_EINPUT, "X has rank %d; GridSample-%d takes %s", X->rank, v,
                   v < 20 ? "rank 4 (N, C, H, W)" : "rank 3 to 10 (N, C, D1, ...)");
  if (!ox_dtype_is_float(G->dt))
    return ox_fail(c->err, OX_EINPUT, "grid must be a float tensor, not %s", ox_dtype_name(G->dt));
  if (G->rank != X->rank || G->dims[0] != X->dims[0] || G->dims[G->rank - 1] != k)
    return ox_fail(c->err, OX_EINPUT,
                   "grid must be (N, O1..O%d, %d) for X (N, C, ...); N or the last dim disagree", k, k);
  static const char *const m16[] = {"bilinear", "nearest", "bicubic"};
  static const char *const m20[] = {"linear", "nearest", "cubic"};
  static const char *const pads[] = {"zeros", "border", "reflection"};
  int mode = 0, pad = 0;
  OX_TRY(parse_enum(c, "mode", ox_attr_string(c, "mode", v < 20 ? "bilinear" : "linear"),
                    v < 20 ? m16 : m20, 3, &mode));
  OX_TRY(parse_enum(c, "padding_mode", ox_attr_string(c, "padding_mode", "zeros"), pads, 3, &pad));
  int align = ox_attr_int(c, "align_corners", 0) != 0;
  int K = mode == 1 ? 1 : mode == 0 ? 2 : 4;
  int64_t nt = 1; /* taps per output point: K^k */
  for (int i = 0; i < k; i++) nt *= K;
  if (nt > 65536) return ox_fail(c->err, OX_EINPUT, "too many interpolation taps");
  int64_t N = X->dims[0], C = X->dims[1], yd[10], npt = 1, S = 1;
  yd[0] = N;
  yd[1] = C;
  for (int i = 0; i < k; i++) yd[2 + i] = G->dims[1 + i];
  OX_TRY(ox_tensor_new(c->a, X->dt, X->rank, yd, out, c->err));
  ox_tensor *Y = &(*out)->u.t;
  if (Y->n == 0) return 0;
  /* Y holds elements, so its grid dims multiply within int64; X's spatial
   * dims may not when X is empty ((0, 1, 2^62, 2^62)): 0 then */
  for (int i = 0; i < k; i++) npt *= G->dims[1 + i];
  S = ox_numel(k, X->dims + 2, 0);
  if (S < 0) return ox_fail(c->err, OX_EINPUT, "X's spatial dims are too large");
  if (S == 0) return ox_fail(c->err, OX_EINPUT, "X has an empty spatial dim");
  int bytes = mode == 1; /* nearest copies elements of any dtype */
  if (!bytes && (X->dt == OX_STRING || ox_dtype_is_complex(X->dt)))
    return ox_fail(c->err, OX_EINPUT, "modes linear/cubic need real numbers, not %s",
                   ox_dtype_name(X->dt));
  /* work in float for float32 and the small floats, in double otherwise */
  int f32 = !bytes && (X->dt == OX_FLOAT || ox_dtype_is_small_float(X->dt));
  const double *g = ox_widen_f64(c->a, G, c->err), *x = bytes || f32 ? NULL : ox_widen_f64(c->a, X, c->err);
  const float *xf = !f32 ? NULL : X->dt == OX_FLOAT ? X->data : ox_widen_f32(c->a, X, c->err);
  double *y = bytes || f32 ? NULL : ox_alloc_array(c->a, Y->n, sizeof *y);
  float *yf = !f32 ? NULL : X->dt == OX_FLOAT ? Y->data : ox_alloc_array(c->a, Y->n, sizeof *yf);
  int64_t *off = ox_alloc_array(c->a, nt, sizeof *off), idx[8][4], str[8];
  double *w = ox_alloc_array(c->a, nt, sizeof *w), wt[8][4];
  if (!g || (!bytes && !f32 && (!x || !y)) || (f32 && (!xf || !yf)) || !off || !w) return ox_oom(c->err, NULL);
  str[k - 1] = 1;
  for (int i = k - 2; i >= 0; i--) str[i] = str[i + 1] * X->dims[3 + i];
  size_t es = ox_dtype_size(X->dt);
  static const ox_str empty = {"", 0};
  char zero[16] = {0};
  if (X->dt == OX_STRING) memcpy(zero, &empty, sizeof empty);
  for (int64_t n = 0; n < N; n++)
    for (int64_t p = 0; p < npt; p++) {
      const double *gp = g + (n * npt + p) * k;
      for (int i = 0; i < k; i++) { /* axis i of X is grid component k-1-i */
        int64_t D = X->dims[2 + i];
        double lo = align ? 0 : -0.5, hi = align ? (double)D - 1 : (double)D - 0.5;
        double gv = gp[k - 1 - i];
        float xn = (float)(align ? (gv + 1) / 2 * (double)(D - 1) : ((gv + 1) * (double)D - 1) / 2);
        double xc = xn; /* the reference denormalises in float32 */
        if (!isfinite(xc)) xc = -2.0 * (double)D - 8; /* NaN/inf: far outside */
        if (mode == 1) xc = nearbyint(xc); /* ties to even, as PyTorch */
        if (xc < lo || xc > hi) {
          if (pad == PAD_BORDER) xc = xc < 0 ? 0 : xc > (double)(D - 1) ? (double)(D - 1) : xc;
          else if (pad == PAD_REFLECT) xc = reflect(xc, lo, hi);
        }
        if (fabs(xc) > 0x1p40) xc = xc < 0 ? -0x1p40 : 0x1p40;
        if (mode == 1) {
          idx[i][0] = gs_pixel((int64_t)xc, D, pad, lo, hi); /* int cast truncates */
          wt[i][0] = 1;
          continue;
        }
        double fl = floor(xc), t = xc - fl;
        int64_t x0 = (int64_t)fl;
        if (mode == 0) {
          wt[i][0] = 1 - t;
          wt[i][1] = t;
          idx[i][0] = gs_pixel(x0, D, pad, lo, hi);
          idx[i][1] = gs_pixel(x0 + 1, D, pad, lo, hi);
        } else {
          for (int j = 0; j < 4; j++) {
            wt[i][j] = cubic_w((double)(j - 1) - t, -0.75);
            idx[i][j] = gs_pixel(x0 - 1 + j, D, pad, lo, hi);
          }
        }
      }
      /* the K^k taps: offsets and product weights (-1: a zero) */
      int q[8] = {0}; /* an odometer over the taps of each axis */
      for (int64_t j = 0; j < nt; j++) {
        int64_t o = 0;
        double ww = 1;
        for (int i = 0; i < k; i++) {
          int64_t id = idx[i][q[i]];
          o = o < 0 || id < 0 ? -1 : o + id * str[i];
          ww *= wt[i][q[i]];
        }
        off[j] = o;
        w[j] = ww;
        for (int i = k - 1; i >= 0 && ++q[i] == K; i--) q[i] = 0;
      }
      for (int64_t ch = 0; ch < C; ch++) {
        int64_t base = (n * C + ch) * S, yo = (n * C + ch) * npt + p;
        if (bytes) {
          const char *src = off[0] < 0 ? zero : (const char *)X->data + (size_t)(base + off[0]) * es;
          memcpy((char *)Y->data + (size_t)yo * es, src, es);
          continue;
        }
        double acc = 0;
        if (f32) {
          for (int64_t j = 0; j < nt; j++)
            if (off[j] >= 0) acc += w[j] * xf[base + off[j]];
          yf[yo] = (float)acc;
          continue;
        }
        for (int64_t j = 0; j < nt; j++)
          if (off[j] >= 0) acc += w[j] * x[base + off[j]];
        y[yo] = acc;
      }
    }
  if (bytes || (f32 && yf == Y->data)) return 0;
  if (f32) {
    ox_narrow_f32(yf, Y);
    return 0;
  }
  /* integers truncate: the reference assigns each double into an array of
   * X's type (op_grid_sample.py), which numpy truncates, unlike Resize's
   * saturate_cast */
  return ox_narrow_f64(c->a, y, Y, OX_TO_INT_TRUNC, c->err);
}

/* ---- AffineGrid-20 ---- */

static int affine_grid(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin; (void)nout;
  const ox_tensor *T = &in[0]->u.t;
  int64_t *sz, ns;
  OX_TRY(ox_ints_of(c, 1, in[1], &sz, &ns));
  if (ns != 4 && ns != 5)
    return ox_fail(c->err, OX_EINPUT, "size must be (N, C, H, W) or (N, C, D, H, W), not %lld values",
                   (long long)ns);
  int k = (int)ns - 2; /* 2-D or 3-D */
  /* theta: (N, 2, 3) or (N, 3, 4) */
  if (T->rank != 3 || T->dims[0] != sz[0] || T->dims[1] != k || T->dims[2] != k + 1)
    return ox_fail(c->err, OX_EINPUT, "theta must be (N, %d, %d) with N = size[0] = %lld", k,
                   k + 1, (long long)sz[0]);
  int64_t gd[5], npt = 1;
  gd[0] = sz[0];
  for (int i = 0; i < k; i++) {
    if (sz[2 + i] < 0) return ox_fail(c->err, OX_EINPUT, "size has a negative dim");
    gd[1 + i] = sz[2 + i];
  }
  gd[1 + k] = k;
  OX_TRY(ox_tensor_new(c->a, T->dt, k + 2, gd, out, c->err));
  ox_tensor *Y = &(*out)->u.t;
  if (Y->n == 0) return 0;
  for (int i = 0; i < k; i++) npt *= gd[1 + i];
  int align = ox_attr_int(c, "align_corners", 0) != 0;
  const double *th = ox_widen_f64(c->a, T, c->err);
  double *y = ox_alloc_array(c->a, Y->n, sizeof *y), *base[3];
  if (!th || !y) return ox_oom(c->err, NULL);
  /* base[i]: the normalised coordinates along spatial dim i (D, H, W order) */
  for (int i = 0; i < k; i++) {
    int64_t n = gd[1 + i];
    if (!(base[i] = ox_alloc_array(c->a, n, sizeof(double))))
      return ox_oom(c->err, NULL);
    for (int64_t j = 0; j < n; j++)
      base[i][j] = align ? (n == 1 ? -1 : -1 + 2.0 * (double)j / (double)(n - 1))
                         : -1 + (2.0 * (double)j + 1) / (double)n;
  }
  int64_t ix[3] = {0, 0, 0};
  for (int64_t n = 0; n < gd[0]; n++) {
    const double *t = th + n * k * (k + 1);
    double *yn = y + n * npt * k;
    memset(ix, 0, sizeof ix);
    for (int64_t p = 0; p < npt; p++) {
      double h[4]; /* (x, y[, z], 1): x along the last dim */
      for (int i = 0; i < k; i++) h[i] = base[k - 1 - i][ix[k - 1 - i]];
      h[k] = 1;
      for (int r = 0; r < k; r++) {
        double acc = 0;
        for (int j = 0; j <= k; j++) acc += t[r * (k + 1) + j] * h[j];
        yn[p * k + r] = acc;
      }
      for (int i = k - 1; i >= 0 && ++ix[i] == gd[1 + i]; i--) ix[i] = 0;
    }
  }
  return ox_narrow_f64(c->a, y, Y, OX_TO_INT_TRUNC, c->err); /* Y is a float type */
}

/* ---- NonMaxSuppression (10, 11) ---- */

typedef struct { float s; int64_t i; } scored;

/* Score descending, then index ascending (NaN last). */
static int by_score(const void *a, const void *b) {
  const scored *x = a, *y = b;
  int xn = x->s != x->s, yn = y->s != y->s;
  if (xn != yn) return xn - yn;
  if (!xn && x->s != y->s) return x->s > y->s ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* Box corners (x1, y1, x2, y2) with x1 <= x2, y1 <= y2. */
static void corners(const float *b, int center, double *q) {
  if (center) {
    q[0] = b[0] - b[2] / 2.0; q[2] = b[0] + b[2] / 2.0;
    q[1] = b[1] - b[3] / 2.0; q[3] = b[1] + b[3] / 2.0;
  } else { /* [y1, x1, y2, x2], any diagonal pair */
    q[0] = fmin(b[1], b[3]); q[2] = fmax(b[1], b[3]);
    q[1] = fmin(b[0], b[2]); q[3] = fmax(b[0], b[2]);
  }
}

static int suppresses(const double *a, const double *b, double thr) {
  double ix0 = fmax(a[0], b[0]), ix1 = fmin(a[2], b[2]);
  if (ix1 <= ix0) return 0;
  double iy0 = fmax(a[1], b[1]), iy1 = fmin(a[3], b[3]);
  if (iy1 <= iy0) return 0;
  double inter = (ix1 - ix0) * (iy1 - iy0);
  double a1 = (a[2] - a[0]) * (a[3] - a[1]), a2 = (b[2] - b[0]) * (b[3] - b[1]);
  double uni = a1 + a2 - inter;
  if (inter <= 0 || a1 <= 0 || a2 <= 0 || uni <= 0) return 0;
  return inter / uni > thr;
}

static int nms(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nout;
  const ox_tensor *B = &in[0]->u.t, *Sc = &in[1]->u.t;
  /* boxes: (N, M, 4); scores: (N, C, M) */
  if (B->rank != 3 || B->dims[2] != 4 || Sc->rank != 3 || Sc->dims[0] != B->dims[0] ||
      Sc->dims[2] != B->dims[1])
    return ox_fail(c->err, OX_EINPUT, "boxes must be (N, M, 4) and scores (N, C, M)");
  if (Sc->dt != OX_FLOAT) return ox_fail(c->err, OX_EINPUT, "scores must be float");
  int64_t maxout = 0;
  double iou = 0, sth = 0;
  int has_sth = 0;
  if (nin > 2 && in[2] && in[2]->u.t.n) {
    OX_TRY(ox_scalar_i64(c, 2, in[2], &maxout));
    if (maxout < 0) maxout = 0;
  }
  for (int i = 3; i < nin && i < 5; i++) {
    if (!in[i] || !in[i]->u.t.n) continue;
    if (in[i]->u.t.dt != OX_FLOAT || in[i]->u.t.n != 1)
      return ox_fail(c->err, OX_EINPUT, "%s must be a float scalar", ox_input_name(c, i));
    double t = ((const float *)in[i]->u.t.data)[0];
    if (i == 3) iou = t;
    else { sth = t; has_sth = 1; }
  }
  int center = ox_attr_int(c, "center_point_box", 0) != 0;
  int64_t N = B->dims[0], M = B->dims[1], C = Sc->dims[1];
  if (!B->n || !Sc->n) /* no box or no class: nothing selected (M may be 2^62 when N is 0) */
    return ox_tensor_new(c->a, OX_INT64, 2, (int64_t[]){0, 3}, out, c->err);
  int64_t keep = maxout < M ? maxout : M, cap = ox_numel(3, (int64_t[]){N, C, keep}, 3 * 8);
  if (cap < 0) return ox_fail(c->err, OX_EINPUT, "too many boxes");
  int64_t *sel = ox_alloc_array(c->a, cap ? cap * 3 : 3, sizeof *sel), ns = 0;
  scored *cand = ox_alloc_array(c->a, M ? M : 1, sizeof *cand);
  double *q = ox_alloc_array(c->a, M ? M * 4 : 4, sizeof *q);
  int64_t *kept = ox_alloc_array(c->a, keep ? keep : 1, sizeof *kept);
  if (!sel || !cand || !q || !kept) return ox_oom(c->err, NULL);
  const float *bx = B->data, *sc = Sc->data;
  for (int64_t n = 0; n < N && keep; n++) {
    for (int64_t m = 0; m < M; m++) corners(bx + (n * M + m) * 4, center, q + m * 4);
    for (int64_t cl = 0; cl < C; cl++) {
      const float *s = sc + (n * C + cl) * M;
      int64_t nc = 0, nk = 0;
      for (int64_t m = 0; m < M; m++)
        if (!has_sth || s[m] > sth) cand[nc++] = (scored){s[m], m};
      qsort(cand, (size_t)nc, sizeof *cand, by_score);
      for (int64_t j = 0; j < nc && nk < keep; j++) {
        int ok = 1;
        for (int64_t t = 0; t < nk && ok; t++)
          ok = !suppresses(q + cand[j].i * 4, q + kept[t] * 4, iou);
        if (!ok) continue;
        kept[nk++] = cand[j].i;
        sel[ns * 3] = n;
        sel[ns * 3 + 1] = cl;
        sel[ns * 3 + 2] = cand[j].i;
        ns++;
      }
    }
  }
  OX_TRY(ox_tensor_new(c->a, OX_INT64, 2, (int64_t[]){ns, 3}, out, c->err));
  if (ns) memcpy(out[0]->u.t.data, sel, (size_t)ns * 3 * sizeof *sel);
  return 0;
}

#define TS_ALL10 (OX_TS_CLASSIC)
#define TS_ALL13 (OX_TS_CLASSIC | OX_T(BFLOAT16))

const ox_kernel ox_image_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  /* experimental */
  { "", "Upsample",           1, 0, OX_TS_FLOAT3 | OX_T(BOOL) | OX_T(INT32) | OX_T(INT64), 1, 1, upsample,
    "height_scale:float:required,mode:string=nearest,width_scale:float:required" },
  { "", "Upsample",           7, 0, TS_ALL10,     1, 1, upsample,
    "mode:string=nearest,scales:floats:required" },
  { "", "Upsample",           9, 0, TS_ALL10,     2, 2, upsample, "mode:string=nearest" },
  { "", "Upsample",          10, OX_REMOVED }, /* Resize replaces it */
  { "", "Resize",            10, 0, TS_ALL10,     2, 2, resize, "mode:string=nearest" },
  { "", "Resize",            11, 0, TS_ALL10,     3, 4, resize,
    "coordinate_transformation_mode:string=half_pixel,cubic_coeff_a:float=-0.75,"
    "exclude_outside:int=0,extrapolation_value:float=0.0,mode:string=nearest,"
    "nearest_mode:string=round_prefer_floor" },
  { "", "Resize",            13, 0, TS_ALL13,     1, 4, resize, OX_ATTRS_OF(11) },
  { "", "Resize",            18, 0, TS_ALL13,     1, 4, resize,
    "antialias:int=0,axes:ints,coordinate_transformation_mode:string=half_pixel,"
    "cubic_coeff_a:float=-0.75,exclude_outside:int=0,extrapolation_value:float=0.0,"
    "keep_aspect_ratio_policy:string=stretch,mode:string=nearest,"
    "nearest_mode:string=round_prefer_floor" },
  { "", "Resize",            19, 0, TS_ALL13,     1, 4, resize, OX_ATTRS_OF(18) },
  { "", "GridSample",        16, 0, TS_ALL10,     2, 2, grid_sample,
    "align_corners:int=0,mode:string=bilinear,padding_mode:string=zeros" },
  { "", "GridSample",        20, 0, TS_ALL10,     2, 2, grid_sample,
    "align_corners:int=0,mode:string=linear,padding_mode:string=zeros" }, /* N-D; linear/cubic */
  { "", "GridSample",        22, 0, TS_ALL13,     2, 2, grid_sample, OX_ATTRS_OF(20) }, /* + bfloat16 */
  { "", "AffineGrid",        20, 0, OX_TS_FLOAT4, 2, 2, affine_grid, "align_corners:int=0" },
  { "", "NonMaxSuppression", 10, 0, OX_T(FLOAT),  2, 5, nms, "center_point_box:int=0" },
  { "", "NonMaxSuppression", 11, 0, OX_T(FLOAT),  2, 5, nms, OX_ATTRS_OF(10) },
  {0},
};
