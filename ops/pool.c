/* ops/pool.c: pooling: MaxPool, AveragePool, LpPool, their Global forms,
 * MaxUnpool, MaxRoiPool and RoiAlign.
 *
 * A pooling window is the product of one tap range per spatial axis. The
 * ranges are computed once per output index of each axis (first input index,
 * number of valid taps, taps counted with padding), so the loops over a window
 * do no division and no bounds tests: the last axis reads a contiguous input
 * row (stride = dilation). Floats accumulate averages and Lp sums in double;
 * float16 and bfloat16 are widened to float once and rounded once on store. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"

/* One rounding per operation and gcc's cheap vectoriser cost model, for
 * the row loops: the Makefile's ROW_FLAGS for this file. */

#define MAXSP 8 /* spatial dimensions supported */

/* x must be (N, C, D1, ...) with 1 to MAXSP spatial axes (0 allowed for the
 * Global pools when allow0). */
static int check_nc(ox_ctx *c, const ox_tensor *x, int allow0) {
  char s1[128];
  if (x->rank < (allow0 ? 2 : 3) || x->rank - 2 > MAXSP)
    return ox_fail(c->err, OX_EINPUT, "X has shape %s; expected (N, C, D1, ...) with %d to %d spatial axes",
                   ox_shape_str(x->rank, x->dims, s1, sizeof s1), allow0 ? 0 : 1, MAXSP);
  return 0;
}

/* ---- window geometry ---- */

typedef struct {
  int nd;
  int64_t in[MAXSP], out[MAXSP], k[MAXSP], s[MAXSP], d[MAXSP], pb[MAXSP], pe[MAXSP];
  int64_t nin, nout; /* spatial products */
  /* per axis j and output index o: the first input index of the window's
   * valid taps, their count, and the taps counted with padding */
  int64_t *first[MAXSP], *ntap[MAXSP], *npad[MAXSP];
} pgeom;



/* A double as int64, NaN as 0 and the rest clamped to +-2^40 (no UB casts of
 * hostile coordinates). */
static int64_t to_i64(double v) {
  if (!(v == v)) return 0;
  if (v > 1099511627776.0) return INT64_C(1099511627776);
  if (v < -1099511627776.0) return -INT64_C(1099511627776);
  return (int64_t)v;
}


/* The tap tables of every axis, from in, out, k, s, d, pb, pe. An empty
 * output, (N, C, out...) of x: (N, C, in...), needs none (and its other dims
 * may be huge: (0, 1, 2^62, 2^62)); run_pool does nothing then. */
static int pgeom_tables(ox_ctx *c, const ox_tensor *x, pgeom *g) {
  int64_t od[2 + MAXSP] = {x->dims[0], x->dims[1]};
  memcpy(od + 2, g->out, (size_t)g->nd * sizeof *od);
  if (ox_numel(2 + g->nd, od, 0) == 0) {
    g->nin = g->nout = 0;
    return 0;
  }
  g->nin = ox_numel(g->nd, g->in, 8);
  g->nout = ox_numel(g->nd, g->out, 8);
  if (g->nin < 0 || g->nout < 0) return ox_fail(c->err, OX_EINPUT, "the pooling's shapes are too large");
  for (int j = 0; j < g->nd; j++) {
    int64_t n = g->out[j] + 1;
    g->first[j] = ox_alloc_array(c->a, n, sizeof(int64_t));
    g->ntap[j] = ox_alloc_array(c->a, n, sizeof(int64_t));
    g->npad[j] = ox_alloc_array(c->a, n, sizeof(int64_t));
    if (!g->first[j] || !g->ntap[j] || !g->npad[j]) return ox_oom(c->err, NULL);
    for (int64_t o = 0; o < g->out[j]; o++) {
      int64_t start = o * g->s[j] - g->pb[j], d = g->d[j], k = g->k[j];
      int64_t lo = start < 0 ? ox_ceil_div(-start, d) : 0, hi = ox_ceil_div(g->in[j] - start, d);
      int64_t hp = ox_ceil_div(g->in[j] + g->pe[j] - start, d); /* taps inside the explicit pads */
      if (hi > k) hi = k;
      if (hp > k) hp = k;
      if (hi < lo) hi = lo;
      if (hp < 0) hp = 0;
      g->first[j][o] = start + lo * d;
      g->ntap[j][o] = hi - lo;
      g->npad[j][o] = hp;
    }
  }
  return 0;
}


/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hooks of this file keep for a node (the attributes its
 * op-version lacks keep their defaults). */
typedef struct {
  ox_ints kernel_shape, strides, dilations, pads, pooled_shape;
  int auto_pad, ceil_mode, storage_order, count_include_pad;
  double p;              /* LpPool, GlobalLpPool */
  int roi_max, roi_half; /* RoiAlign: mode max; half_pixel */
  int64_t out_h, out_w, sampling_ratio;
  double spatial_scale;
} pool_state;

/* p: a float attribute in LpPool-1 and GlobalLpPool-1, an int from -2 on. */
static int lp_p(ox_ctx *c, double *p) {
  const ox_attr *a = ox_attr_find(c, "p");
  *p = !a ? 2 : c->version < 2 ? (double)ox_attr_float(c, "p", 2) : (double)ox_attr_int(c, "p", 2);
  if (!(*p > 0) || !isfinite(*p)) return ox_fail(c->err, OX_EINPUT, "p is %g; it must be positive", *p);
  return 0;
}

/* The global pools: p alone (GlobalLpPool) */
static int global_load(ox_ctx *c, void **state) {
  pool_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  st->p = 2;
  return ox_node_attr(c->node, "p") ? lp_p(c, &st->p) : 0;
}

/* MaxRoiPool */
static int roipool_load(ox_ctx *c, void **state) {
  OX_TRY(global_load(c, state));
  pool_state *st = *state;
  OX_TRY(ox_window_attr(c, "pooled_shape", 1, &st->pooled_shape));
  st->spatial_scale = ox_attr_float(c, "spatial_scale", 1);
  return 0;
}

/* The windowed pools and MaxUnpool */
static int pool_load(ox_ctx *c, void **state) {
  OX_TRY(global_load(c, state));
  pool_state *st = *state;
  if (!ox_attr_ints(c, "kernel_shape", &st->kernel_shape.n))
    return ox_fail(c->err, OX_EINPUT, "kernel_shape is required");
  OX_TRY(ox_window_attr(c, "kernel_shape", 1, &st->kernel_shape));
  OX_TRY(ox_window_attr(c, "strides", 1, &st->strides));
  OX_TRY(ox_window_attr(c, "dilations", 1, &st->dilations));
  OX_TRY(ox_window_attr(c, "pads", 0, &st->pads));
  st->ceil_mode = ox_attr_int(c, "ceil_mode", 0) != 0;
  OX_TRY(ox_auto_pad(c, &st->auto_pad));
  int64_t so = ox_attr_int(c, "storage_order", 0);
  if (so != 0 && so != 1)
    return ox_fail(c->err, OX_EINPUT, "storage_order is %lld; it must be 0 (row major) or 1 (column major)", (long long)so);
  st->storage_order = (int)so;
  st->count_include_pad = ox_attr_int(c, "count_include_pad", 0) != 0;
  return 0;
}

/* RoiAlign */
static int roialign_load(ox_ctx *c, void **state) {
  pool_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  const char *mode = ox_attr_string(c, "mode", "avg");
  st->roi_max = !strcmp(mode, "max");
  if (!st->roi_max && strcmp(mode, "avg")) return ox_fail(c->err, OX_EINPUT, "mode is '%s'; it must be avg or max", mode);
  const char *ctm = c->version >= 16 ? ox_attr_string(c, "coordinate_transformation_mode", "half_pixel") : "output_half_pixel";
  st->roi_half = !strcmp(ctm, "half_pixel");
  if (!st->roi_half && strcmp(ctm, "output_half_pixel"))
    return ox_fail(c->err, OX_EINPUT, "coordinate_transformation_mode is '%s'; it must be half_pixel or output_half_pixel", ctm);
  st->out_h = ox_attr_int(c, "output_height", 1), st->out_w = ox_attr_int(c, "output_width", 1);
  st->sampling_ratio = ox_attr_int(c, "sampling_ratio", 0);
  st->spatial_scale = ox_attr_float(c, "spatial_scale", 1);
  if (st->out_h < 1 || st->out_w < 1 || st->sampling_ratio < 0)
    return ox_fail(c->err, OX_EINPUT, "output_height %lld, output_width %lld and sampling_ratio %lld must be positive (sampling_ratio may be 0)",
                   (long long)st->out_h, (long long)st->out_w, (long long)st->sampling_ratio);
  return 0;
}

/* kernel_shape, strides, dilations, pads, auto_pad and ceil_mode of a pooling
 * op on x: (N, C, D1..Dn). Output length along an axis (AveragePool-19,
 * MaxPool-12): floor or ceil((in + pads - ((k - 1) * d + 1)) / s + 1), where
 * with ceil_mode a last window starting in the end padding is dropped;
 * SAME_*: ceil(in / s) with the odd padding at the end (UPPER) or beginning
 * (LOWER); VALID: floor((in - ((k - 1) * d + 1)) / s) + 1. */
static int pool_geom(ox_ctx *c, const ox_tensor *x, pgeom *g) {
  const pool_state *st = c->state;
  int nd = x->rank - 2;
  int64_t pads[2 * MAXSP];
  g->nd = nd;
  OX_TRY(ox_window_vals(c, "kernel_shape", &st->kernel_shape, nd, 1, g->k));
  OX_TRY(ox_window_vals(c, "strides", &st->strides, nd, 1, g->s));
  OX_TRY(ox_window_vals(c, "dilations", &st->dilations, nd, 1, g->d));
  OX_TRY(ox_window_vals(c, "pads", &st->pads, 2 * nd, 0, pads));
  int ceil_mode = st->ceil_mode, mode = st->auto_pad;
  for (int j = 0; j < nd; j++) {
    int64_t in = x->dims[2 + j], dk = (g->k[j] - 1) * g->d[j] + 1, s = g->s[j];
    g->in[j] = in;
    g->pb[j] = pads[j];
    g->pe[j] = pads[nd + j];
    if (mode == OX_PAD_SAME_UPPER || mode == OX_PAD_SAME_LOWER) {
      g->out[j] = ox_ceil_div(in, s);
      int64_t total = (g->out[j] - 1) * s + dk - in;
      if (total < 0) total = 0;
      g->pb[j] = mode == OX_PAD_SAME_UPPER ? total / 2 : total - total / 2;
      g->pe[j] = total - g->pb[j];
      continue;
    }
    if (mode == OX_PAD_VALID) g->pb[j] = g->pe[j] = 0;
    /* span may be negative: a dilated kernel longer than the padded input
     * still gives ceil(span / s) + 1 = 1 window under ceil_mode (and 0 with
     * floor), as in the ONNX reference; only a negative length is refused. */
    int64_t span = in + g->pb[j] + g->pe[j] - dk;
    int64_t q = span >= 0 ? span / s : -ox_ceil_div(-span, s); /* floor(span / s) */
    if (ceil_mode && mode == OX_PAD_NOTSET && q * s != span) q++;
    if (q + 1 < 0)
      return ox_fail(c->err, OX_EINPUT,
                     "the kernel (%lld with dilation) is larger than the padded input (%lld) "
                     "along spatial axis %d",
                     (long long)dk, (long long)(in + g->pb[j] + g->pe[j]), j);
    if (g->pb[j] >= dk || g->pe[j] >= dk)
      return ox_fail(c->err, OX_EINPUT, "pads along spatial axis %d (%lld, %lld) must be smaller "
                     "than the kernel (%lld with dilation)", j, (long long)g->pb[j],
                     (long long)g->pe[j], (long long)dk);
    g->out[j] = q + 1;
    if (ceil_mode && mode == OX_PAD_NOTSET && g->out[j] > 0 && (g->out[j] - 1) * s >= in + g->pb[j])
      g->out[j]--;
  }
  return pgeom_tables(c, x, g);
}

/* The whole spatial extent as one window (the Global pools). */
static int global_geom(ox_ctx *c, const ox_tensor *x, pgeom *g) {
  g->nd = x->rank - 2;
  for (int j = 0; j < g->nd; j++) {
    g->in[j] = g->k[j] = x->dims[2 + j];
    g->out[j] = g->s[j] = g->d[j] = 1;
    g->pb[j] = g->pe[j] = 0;
  }
  return pgeom_tables(c, x, g);
}

/* ---- the pooling loop, once per type ---- */

enum { POOL_MAX, POOL_AVG, POOL_LP };

typedef struct {
  int kind;
  int count_pad;   /* AVG: divide by the taps inside the explicit pads */
  double p;        /* LP */
  int64_t *idx;    /* MAX: the Indices output (NULL: not wanted) */
  int col_major;   /* MAX: storage_order 1 */
} pool_opts;

/* Row-major spatial index r of g->in as storage_order 1 (column-major) wants. */
static int64_t col_major_index(const pgeom *g, int64_t r) {
  int64_t out = 0, str = 1, coord[MAXSP];
  for (int j = g->nd - 1; j >= 0; j--) coord[j] = r % g->in[j], r /= g->in[j];
  for (int j = 0; j < g->nd; j++) out += coord[j] * str, str *= g->in[j];
  return out;
}

static double lp_term(double v, double p) {
  v = fabs(v);
  return p == 2 ? v * v : p == 1 ? v : pow(v, p);
}

/* x: (planes, in...), y: (planes, out...). For every output point: an
 * odometer over the outer axes' taps, the last axis a contiguous row read
 * with stride dL. One function per (kind, type): INIT, STEP(v, at) and
 * FINISH(div) are the kind's accumulator. */
#define POOL_FN(NAME, T, ACC, INIT, STEP, FINISH)                                     \
  static void NAME(const pgeom *g, const pool_opts *po, int64_t planes, const void *xv, void *yv) { \
    const T *x = xv;                                                                  \
    T *y = yv;                                                                        \
    const int nd = g->nd, L = nd - 1, count_pad = po->count_pad, col_major = po->col_major; \
    const double p = po->p;                                                           \
    int64_t *const idx = po->idx;                                                     \
    int64_t istr[MAXSP], oidx[MAXSP] = {0}, tidx[MAXSP], step[MAXSP], lim[MAXSP];     \
    istr[L] = 1;                                                                      \
    for (int j = L - 1; j >= 0; j--) istr[j] = istr[j + 1] * g->in[j + 1];            \
    for (int j = 0; j < L; j++) step[j] = g->d[j] * istr[j];                          \
    const int64_t W = g->out[L], rows = g->nout / W, dL = g->d[L];                    \
    const int64_t *firstL = g->first[L], *ntapL = g->ntap[L], *npadL = g->npad[L];    \
    (void)p, (void)idx, (void)col_major, (void)count_pad, (void)npadL;                \
    for (int64_t pl = 0; pl < planes; pl++) {                                         \
      const T *xp = x + pl * g->nin;                                                  \
      for (int64_t r = 0; r < rows; r++) {                                            \
        /* the outer axes of this output row: base offset and tap counts */          \
        int64_t base = 0, outer_taps = 1, outer_pad = 1;                              \
        for (int j = 0; j < L; j++) {                                                 \
          base += g->first[j][oidx[j]] * istr[j];                                     \
          lim[j] = g->ntap[j][oidx[j]];                                               \
          outer_taps *= lim[j];                                                       \
          outer_pad *= g->npad[j][oidx[j]];                                           \
        }                                                                             \
        (void)outer_pad;                                                              \
        T *yr = y + (pl * rows + r) * W;                                              \
        int64_t *ir = idx ? idx + (pl * rows + r) * W : NULL;                         \
        (void)ir;                                                                     \
        for (int64_t ow = 0; ow < W; ow++) {                                          \
          const int64_t nt = ntapL[ow];                                               \
          const int64_t cnt = outer_taps * nt;                                        \
          ACC acc;                                                                    \
          int64_t arg = -1;                                                           \
          (void)arg;                                                                  \
          INIT;                                                                       \
          if (cnt > 0) {                                                              \
            int64_t off = base + firstL[ow];                                          \
            for (int j = 0; j < L; j++) tidx[j] = 0;                                  \
            for (;;) {                                                                \
              const T *row = xp + off;                                                \
              for (int64_t t = 0; t < nt; t++) { STEP(row[t * dL], off + t * dL); }   \
              int j = L - 1; /* odometer over the outer axes' taps */                 \
              for (; j >= 0; j--) {                                                   \
                off += step[j];                                                       \
                if (++tidx[j] < lim[j]) break;                                        \
                off -= step[j] * lim[j];                                              \
                tidx[j] = 0;                                                          \
              }                                                                       \
              if (j < 0) break;                                                       \
            }                                                                         \
          }                                                                           \
          FINISH;                                                                     \
        }                                                                             \
        for (int j = L - 1; j >= 0; j--) {                                            \
          if (++oidx[j] < g->out[j]) break;                                           \
          oidx[j] = 0;                                                                \
        }                                                                             \
      }                                                                               \
    }                                                                                 \
  }

/* MAX: the first largest value and its index (NaN never replaces a value) */
#define MAX_INIT acc = 0
#define MAX_STEP(v, at) if (arg < 0 || (v) > acc) acc = (v), arg = (at)
#define MAX_FINISH                                                                    \
  yr[ow] = acc;                                                                       \
  if (ir) ir[ow] = pl * g->nin + (arg < 0 ? 0 : col_major ? col_major_index(g, arg) : arg)
/* AVG: divided by the valid taps, or with count_include_pad by the taps
 * inside the explicit padding */
#define AVG_INIT acc = 0
#define AVG_STEP(v, at) acc += (v)
#define AVG_FINISH                                                                    \
  do {                                                                                \
    int64_t div = count_pad ? outer_pad * npadL[ow] : cnt;                            \
    yr[ow] = div > 0 ? acc / div : 0;                                                 \
  } while (0)
#define LP_INIT acc = 0
#define LP_STEP(v, at) acc += lp_term((v), p)
#define LP_FINISH yr[ow] = pow(acc, 1.0 / p)

/* MAX without Indices: branch-free from the type's lowest value (NaN is
 * skipped, as std::max in onnxruntime); an empty window gives 0 */
#define MAXV_STEP(v, at) acc = (v) > acc ? (v) : acc
#define MAXV_FINISH yr[ow] = cnt > 0 ? acc : 0
POOL_FN(max_f32, float, float, MAX_INIT, MAX_STEP, MAX_FINISH)
POOL_FN(max_f64, double, double, MAX_INIT, MAX_STEP, MAX_FINISH)
POOL_FN(max_i8, int8_t, int8_t, MAX_INIT, MAX_STEP, MAX_FINISH)
POOL_FN(max_u8, uint8_t, uint8_t, MAX_INIT, MAX_STEP, MAX_FINISH)
POOL_FN(maxv_f32, float, float, acc = -INFINITY, MAXV_STEP, MAXV_FINISH)
POOL_FN(maxv_f64, double, double, acc = -INFINITY, MAXV_STEP, MAXV_FINISH)
POOL_FN(maxv_i8, int8_t, int8_t, acc = INT8_MIN, MAXV_STEP, MAXV_FINISH)
POOL_FN(maxv_u8, uint8_t, uint8_t, acc = 0, MAXV_STEP, MAXV_FINISH)
POOL_FN(avg_f32, float, double, AVG_INIT, AVG_STEP, AVG_FINISH)
POOL_FN(avg_f64, double, double, AVG_INIT, AVG_STEP, AVG_FINISH)
POOL_FN(lp_f32, float, double, LP_INIT, LP_STEP, LP_FINISH)
POOL_FN(lp_f64, double, double, LP_INIT, LP_STEP, LP_FINISH)
#undef POOL_FN

typedef void (*pool_fn)(const pgeom *g, const pool_opts *po, int64_t planes, const void *x, void *y);

/* ---- 2-D float MaxPool (without Indices) and AveragePool, a row at a time ----
 * For output rows lo .. hi-1 (over all planes): the window's input rows are
 * folded into a row of accumulators, one tap column at a time, so the loop
 * runs along the output columns (the columns whose window lies wholly inside
 * the input: vectorised; the ones at the edges through the tap tables). The
 * taps of each output are folded in the loops' order above (window row, then
 * column), so the results are the same bits. acc: out[1] floats (MAX) or
 * doubles (AVG) of scratch. */
typedef struct {
  const pgeom *g;
  const pool_opts *po;
  const float *x;
  float *y;
  void **acc; /* per thread slot */
} pool2d_job;

/* the output columns [*c0, *c1) whose windows are whole and unpadded */
static void whole_cols(const pgeom *g, int64_t *c0, int64_t *c1) {
  int64_t s = g->s[1], pb = g->pb[1], span = (g->k[1] - 1) * g->d[1];
  *c0 = pb > 0 ? ox_ceil_div(pb, s) : 0;
  *c1 = g->in[1] - span + pb > 0 ? ox_ceil_div(g->in[1] - span + pb, s) : 0; /* o*s - pb + span < in */
  if (*c1 > g->out[1]) *c1 = g->out[1];
  if (*c1 < *c0) *c1 = *c0;
}

static void pool2d_rows(void *arg, int slot, int64_t lo, int64_t hi) {
  const pool2d_job *j = arg;
  const pgeom *g = j->g;
  const int max = j->po->kind == POOL_MAX, count_pad = j->po->count_pad;
  const int64_t OH = g->out[0], OW = g->out[1], IW = g->in[1], s1 = g->s[1], d0 = g->d[0], d1 = g->d[1];
  const int64_t k1 = g->k[1], pb1 = g->pb[1];
  int64_t c0, c1;
  whole_cols(g, &c0, &c1);
  float *fa = j->acc[slot];
  double *da = j->acc[slot];
  /* MaxPool 2x2, stride 2 along the row, every window whole along it */
  const int max2 = max && k1 == 2 && s1 == 2 && d1 == 1 && c0 == 0 && c1 == OW;
  for (int64_t r = lo; r < hi; r++) {
    int64_t pl = r / OH, oh = r % OH, nh = g->ntap[0][oh];
    const float *xp = j->x + pl * g->nin + g->first[0][oh] * IW;
    float *yr = j->y + r * OW;
    if (max2 && nh == 2) {
      /* the loops below in one: the same four taps in the same order, each
       * kept only when greater (NaN never; of equal values, the first) */
      const float *r0 = xp - pb1, *r1 = xp + d0 * IW - pb1;
      for (int64_t o = 0; o < OW; o++) {
        float m = -INFINITY, v;
        v = r0[2 * o], m = v > m ? v : m;
        v = r0[2 * o + 1], m = v > m ? v : m;
        v = r1[2 * o], m = v > m ? v : m;
        v = r1[2 * o + 1], m = v > m ? v : m;
        yr[o] = m;
      }
      continue;
    }
    if (max)
      for (int64_t o = 0; o < OW; o++) fa[o] = -INFINITY;
    else
      for (int64_t o = 0; o < OW; o++) da[o] = 0;
    for (int64_t i = 0; i < nh; i++) {
      const float *row = xp + i * d0 * IW;
      for (int64_t o = 0; o < c0; o++) /* the left edge */
        for (int64_t t = 0, f = g->first[1][o], nt = g->ntap[1][o]; t < nt; t++) {
          float v = row[f + t * d1];
          if (max) fa[o] = v > fa[o] ? v : fa[o];
          else da[o] += v;
        }
      if (c1 - c0 < 8) { /* few whole windows (a global pool): each along its taps */
        for (int64_t o = c0; o < c1; o++) {
          const float *ro = row + o * s1 - pb1;
          if (max)
            for (int64_t t = 0; t < k1; t++) fa[o] = ro[t * d1] > fa[o] ? ro[t * d1] : fa[o];
          else
            for (int64_t t = 0; t < k1; t++) da[o] += ro[t * d1];
        }
      } else {
        for (int64_t t = 0; t < k1; t++) { /* whole windows: tap t of each */
          const float *rt = row + t * d1 - pb1;
          /* strides 1 and 2 as constants, so that the loops vectorise */
#define WHOLE(S)                                                                      \
  if (max)                                                                            \
    for (int64_t o = c0; o < c1; o++) fa[o] = rt[o * (S)] > fa[o] ? rt[o * (S)] : fa[o]; \
  else                                                                                \
    for (int64_t o = c0; o < c1; o++) da[o] += rt[o * (S)];
          if (s1 == 1) {
            WHOLE(1)
          } else if (s1 == 2) {
            WHOLE(2)
          } else {
            WHOLE(s1)
          }
#undef WHOLE
        }
      }
      for (int64_t o = c1; o < OW; o++) /* the right edge */
        for (int64_t t = 0, f = g->first[1][o], nt = g->ntap[1][o]; t < nt; t++) {
          float v = row[f + t * d1];
          if (max) fa[o] = v > fa[o] ? v : fa[o];
          else da[o] += v;
        }
    }
    for (int64_t o = 0; o < OW; o++) {
      int64_t cnt = nh * g->ntap[1][o];
      if (max) {
        yr[o] = cnt > 0 ? fa[o] : 0;
      } else {
        int64_t div = count_pad ? g->npad[0][oh] * g->npad[1][o] : cnt;
        yr[o] = div > 0 ? (float)(da[o] / div) : 0;
      }
    }
  }
}

/* The global pools (one window, the whole plane): planes lo .. hi-1, four
 * at a time, each summed (or maxed) over its elements in order in a chain
 * of its own, so the four run side by side; the same order, and bits, as
 * pool2d_rows. */
static void global_planes(void *arg, int slot, int64_t lo, int64_t hi) {
  const pool2d_job *j = arg;
  const int max = j->po->kind == POOL_MAX;
  const int64_t n = j->g->nin;
  int64_t p = lo;
  for (; p + 4 <= hi; p += 4) {
    const float *x0 = j->x + p * n, *x1 = x0 + n, *x2 = x1 + n, *x3 = x2 + n;
    if (max) {
      float a0 = -INFINITY, a1 = -INFINITY, a2 = -INFINITY, a3 = -INFINITY;
      for (int64_t i = 0; i < n; i++) {
        a0 = x0[i] > a0 ? x0[i] : a0;
        a1 = x1[i] > a1 ? x1[i] : a1;
        a2 = x2[i] > a2 ? x2[i] : a2;
        a3 = x3[i] > a3 ? x3[i] : a3;
      }
      j->y[p] = a0, j->y[p + 1] = a1, j->y[p + 2] = a2, j->y[p + 3] = a3;
    } else {
      double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (int64_t i = 0; i < n; i++) a0 += x0[i], a1 += x1[i], a2 += x2[i], a3 += x3[i];
      j->y[p] = (float)(a0 / n), j->y[p + 1] = (float)(a1 / n), j->y[p + 2] = (float)(a2 / n),
      j->y[p + 3] = (float)(a3 / n);
    }
  }
  for (; p < hi; p++) {
    const float *x0 = j->x + p * n;
    float m = -INFINITY;
    double a = 0;
    for (int64_t i = 0; i < n; i++) {
      m = x0[i] > m ? x0[i] : m;
      a += x0[i];
    }
    j->y[p] = max ? m : (float)(a / n);
  }
}

/* 2-D float MAX without Indices or AVG, over the threads by output rows; 0
 * when done, -1 when the case is not one of these, or an error */
static int pool2d(ox_ctx *c, int64_t planes, const pgeom *g, const pool_opts *po, float *xf, float *yf) {
  if (g->nd != 2 || (po->kind == POOL_MAX && po->idx) || po->kind == POOL_LP) return -1;
  int64_t rows = planes * g->out[0];
  int global = g->out[0] == 1 && g->out[1] == 1 && g->nin > 0 && g->ntap[0][0] == g->in[0] &&
               g->ntap[1][0] == g->in[1] && g->d[0] == 1 && g->d[1] == 1 && g->first[0][0] == 0 &&
               g->first[1][0] == 0 && (po->kind == POOL_MAX || !po->count_pad || g->npad[0][0] * g->npad[1][0] == g->nin);
  if (global) { /* a window of the whole plane, no padding counted */
    pool2d_job j = {g, po, xf, yf, NULL};
    int nch = ox_par_chunks_mem(c->threads, planes, 4.0 * (double)planes * (double)g->nin);
    if (nch <= 1) global_planes(&j, 0, 0, planes);
    else ox_par_for(planes, nch, global_planes, &j);
    return 0;
  }
  /* a window element costs a load and a compare or add: about 0.2 ns */
  int nch = ox_par_chunks(c->threads, rows, 16.0 * (double)rows * (double)g->out[1] * (double)(g->k[0] * g->k[1]));
  void *acc[OX_MAX_THREADS];
  for (int i = 0; i < nch; i++) /* the arena is single-threaded: before the fan-out */
    if (!(acc[i] = ox_alloc_array(c->a, g->out[1] + 1, sizeof(double)))) return ox_oom(c->err, NULL);
  pool2d_job j = {g, po, xf, yf, acc};
  if (nch <= 1) pool2d_rows(&j, 0, 0, rows);
  else ox_par_for(rows, nch, pool2d_rows, &j);
  return 0;
}

/* The loop for a kind and a (float or native) type; NULL if none. */
static pool_fn pool_fn_of(int kind, int with_idx, ox_dtype dt) {
  switch (dt) {
  case OX_FLOAT: return kind == POOL_MAX ? (with_idx ? max_f32 : maxv_f32) : kind == POOL_AVG ? avg_f32 : lp_f32;
  case OX_DOUBLE: return kind == POOL_MAX ? (with_idx ? max_f64 : maxv_f64) : kind == POOL_AVG ? avg_f64 : lp_f64;
  case OX_INT8: return kind == POOL_MAX ? (with_idx ? max_i8 : maxv_i8) : NULL;
  case OX_UINT8: return kind == POOL_MAX ? (with_idx ? max_u8 : maxv_u8) : NULL;
  default: return NULL;
  }
}

/* y (N, C, out...) = pool(x); small floats through float. */
static int run_pool(ox_ctx *c, const ox_tensor *x, const pgeom *g, const pool_opts *po, ox_tensor *y) {
  if (y->n == 0) return 0;
  int64_t planes = x->dims[0] * x->dims[1];
  if (g->nd == 0) { /* Global pools of (N, C): each value is its own window */
    pgeom g1 = *g;
    int64_t one = 1, zero = 0;
    g1.nd = 1;
    g1.in[0] = g1.out[0] = g1.k[0] = g1.s[0] = g1.d[0] = 1;
    g1.pb[0] = g1.pe[0] = 0;
    g1.nin = g1.nout = 1;
    g1.first[0] = &zero;
    g1.ntap[0] = g1.npad[0] = &one;
    return run_pool(c, x, &g1, po, y);
  }
  if (x->dt == OX_FLOAT) {
    int rc = pool2d(c, planes, g, po, x->data, y->data);
    if (rc >= 0) return rc;
  }
  pool_fn fn = pool_fn_of(po->kind, po->idx != NULL, x->dt);
  if (fn) {
    fn(g, po, planes, x->data, y->data);
    return 0;
  }
  if (!ox_dtype_is_small_float(x->dt))
    return ox_fail(c->err, OX_EUNSUPPORTED, "this pooling of %s is not supported", ox_dtypes[x->dt].onnx_name);
  /* small floats through float, a block of planes (about 1M elements) at
   * a time, so that the float copies stay in cache: a float16 MaxPool of
   * (1, 64, 1024, 1024) widened all of X first, 256 MiB, 3.4 times the
   * time of the float32 one. Indices count from the start of X: with them,
   * all planes at once. */
  int64_t per = po->idx || g->nin == 0 ? planes : (1 << 20) / g->nin;
  per = per < 1 ? 1 : per > planes ? planes : per;
  float *xf = ox_alloc_array(c->a, per * g->nin, sizeof *xf), *yf = ox_alloc_array(c->a, per * g->nout, sizeof *yf);
  if (!xf || !yf) return ox_oom(c->err, NULL);
  for (int64_t p0 = 0; p0 < planes; p0 += per) {
    int64_t np = planes - p0 < per ? planes - p0 : per;
    ox_widen_f32_n(x->dt, x->data, p0 * g->nin, np * g->nin, xf);
    int rc = pool2d(c, np, g, po, xf, yf);
    if (rc > 0) return rc;
    if (rc < 0) pool_fn_of(po->kind, po->idx != NULL, OX_FLOAT)(g, po, np, xf, yf);
    ox_narrow_f32_n(yf, np * g->nout, y->dt, y->data, p0 * g->nout);
  }
  return 0;
}

static int new_out(ox_ctx *c, const ox_tensor *x, const pgeom *g, ox_dtype dt, ox_value **out) {
  int64_t dims[MAXSP + 2] = {x->dims[0], x->dims[1]};
  for (int j = 0; j < g->nd; j++) dims[2 + j] = g->out[j];
  return ox_tensor_new(c->a, dt, x->rank, dims, out, c->err);
}

/* ---- MaxPool-1, -8, -10, -11, -12, -22 ---- */

static int maxpool(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  pgeom g;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(check_nc(c, x, 0));
  OX_TRY(pool_geom(c, x, &g));
  pool_opts po = {POOL_MAX, 0, 0, NULL, ((const pool_state *)c->state)->storage_order};
  OX_TRY(new_out(c, x, &g, x->dt, &out[0]));
  if (nout > 1) { /* Indices (MaxPool-8) */
    OX_TRY(new_out(c, x, &g, OX_INT64, &out[1]));
    po.idx = out[1]->u.t.data;
  }
  return run_pool(c, x, &g, &po, &out[0]->u.t);
}

/* ---- AveragePool-1, -7, -10, -11, -19, -22 ---- */

static int avgpool(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  pgeom g;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(check_nc(c, x, 0));
  OX_TRY(pool_geom(c, x, &g));
  /* count_include_pad (AveragePool-7): padding counts, but not the part of a
   * ceil_mode window past the end padding */
  pool_opts po = {POOL_AVG, ((const pool_state *)c->state)->count_include_pad, 0, NULL, 0};
  OX_TRY(new_out(c, x, &g, x->dt, &out[0]));
  return run_pool(c, x, &g, &po, &out[0]->u.t);
}

/* ---- LpPool-1, -2, -11, -18, -22 ---- */

static int lppool(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  pgeom g;
  pool_opts po = {POOL_LP, 0, ((const pool_state *)c->state)->p, NULL, 0};
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(check_nc(c, x, 0));
  OX_TRY(pool_geom(c, x, &g));
  OX_TRY(new_out(c, x, &g, x->dt, &out[0]));
  return run_pool(c, x, &g, &po, &out[0]->u.t);
}

/* ---- GlobalAveragePool, GlobalMaxPool, GlobalLpPool: (N, C, D...) -> (N, C, 1...) ---- */

static int global_pool(ox_ctx *c, int nin, ox_value **in, int kind, ox_value **out) {
  const ox_tensor *x;
  pgeom g;
  pool_opts po = {kind, 0, ((const pool_state *)c->state)->p, NULL, 0};
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(check_nc(c, x, 1));
  OX_TRY(global_geom(c, x, &g));
  OX_TRY(new_out(c, x, &g, x->dt, &out[0]));
  return run_pool(c, x, &g, &po, &out[0]->u.t);
}

static int global_avg(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return global_pool(c, nin, in, POOL_AVG, out);
}
static int global_max(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return global_pool(c, nin, in, POOL_MAX, out);
}
static int global_lp(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  return global_pool(c, nin, in, POOL_LP, out);
}

/* ---- MaxUnpool-9, -11, -22 ---- */

/* X, I: (N, C, D1..Dn); the default output is (N, C, (D - 1) * s + k - pads);
 * I indexes that shape flattened (as MaxPool made it). A larger output_shape
 * keeps it in its leading corner and fills the rest with zeros. */
static int maxunpool(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *ix;
  char s1[128], s2[128];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &ix));
  OX_TRY(check_nc(c, x, 0));
  if (ix->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "I is %s; it must be int64", ox_dtypes[ix->dt].onnx_name);
  if (ix->rank != x->rank || memcmp(ix->dims, x->dims, sizeof *x->dims * (size_t)x->rank))
    return ox_fail(c->err, OX_EINPUT, "I has shape %s but X has shape %s; they must match",
                   ox_shape_str(ix->rank, ix->dims, s1, sizeof s1), ox_shape_str(x->rank, x->dims, s2, sizeof s2));
  int nd = x->rank - 2;
  int64_t k[MAXSP], s[MAXSP], pads[2 * MAXSP], inf[MAXSP + 2] = {x->dims[0], x->dims[1]}, od[MAXSP + 2];
  const pool_state *st = c->state;
  OX_TRY(ox_window_vals(c, "kernel_shape", &st->kernel_shape, nd, 1, k));
  OX_TRY(ox_window_vals(c, "strides", &st->strides, nd, 1, s));
  OX_TRY(ox_window_vals(c, "pads", &st->pads, 2 * nd, 0, pads));
  for (int j = 0; j < nd; j++) {
    inf[2 + j] = (x->dims[2 + j] - 1) * s[j] + k[j] - pads[j] - pads[nd + j];
    if (inf[2 + j] < 0)
      return ox_fail(c->err, OX_EINPUT, "the output along spatial axis %d would be %lld long", j, (long long)inf[2 + j]);
  }
  memcpy(od, inf, sizeof od);
  if (nin > 2 && in[2]) {
    int64_t *sh, n;
    OX_TRY(ox_ints_of(c, 2, in[2], &sh, &n));
    if (n != x->rank)
      return ox_fail(c->err, OX_EINPUT, "output_shape has %lld values; expected %d (the rank of X)", (long long)n, x->rank);
    for (int j = 0; j < x->rank; j++) {
      if (sh[j] < inf[j])
        return ox_fail(c->err, OX_EINPUT, "output_shape %s is smaller than the unpooled shape %s",
                       ox_shape_str(x->rank, sh, s1, sizeof s1), ox_shape_str(x->rank, inf, s2, sizeof s2));
      od[j] = sh[j];
    }
  }
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, od, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  int64_t total = ox_numel(x->rank, inf, 0), es = (int64_t)ox_dtype_size(x->dt);
  const int64_t *I = ix->data;
  for (int64_t i = 0; i < x->n; i++) {
    int64_t r = I[i];
    if (r < 0 || r >= total)
      return ox_fail(c->err, OX_EINPUT, "I[%lld] is %lld; it must be in [0, %lld)", (long long)i,
                     (long long)r, (long long)total);
    int64_t o = 0, str = 1; /* r in the unpooled shape -> the same point of the output */
    for (int j = x->rank - 1; j >= 0; j--) {
      o += (r % inf[j]) * str;
      r /= inf[j];
      str *= od[j];
    }
    memcpy((char *)y->data + o * es, (const char *)x->data + i * es, (size_t)es);
  }
  return 0;
}

/* ---- MaxRoiPool-1, -22 ---- */

/* x: (N, C, H, W), rois: (R, 5) of [batch, x1, y1, x2, y2] -> (R, C, ph, pw).
 * As Caffe's RoIPool: corners scaled and rounded, bins of (size + 1) / pooled
 * cells, floor/ceil at their edges, an empty bin gives 0. */
static int maxroipool(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *rois;
  char s1[128];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &rois));
  if (x->rank != 4)
    return ox_fail(c->err, OX_EINPUT, "X has shape %s; expected (N, C, H, W)", ox_shape_str(x->rank, x->dims, s1, sizeof s1));
  if (rois->dt != x->dt || rois->rank != 2 || rois->dims[1] != 5)
    return ox_fail(c->err, OX_EINPUT, "rois is %s of shape %s; expected (num_rois, 5) of X's type",
                   ox_dtypes[rois->dt].onnx_name, ox_shape_str(rois->rank, rois->dims, s1, sizeof s1));
  const pool_state *st = c->state;
  int64_t ps[2];
  if (!st->pooled_shape.v) return ox_fail(c->err, OX_EINPUT, "pooled_shape is required");
  OX_TRY(ox_window_vals(c, "pooled_shape", &st->pooled_shape, 2, 1, ps));
  double scale = st->spatial_scale;
  int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], R = rois->dims[0];
  OX_TRY(ox_tensor_new(c->a, x->dt, 4, (int64_t[]){R, C, ps[0], ps[1]}, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  double *yd = ox_alloc_array(c->a, y->n, sizeof *yd);
  if (!yd) return ox_oom(c->err, NULL);
  for (int64_t r = 0; r < R; r++) {
    double roi[5];
    for (int i = 0; i < 5; i++) roi[i] = ox_load_f64(rois->dt, rois->data, r * 5 + i);
    if (!(roi[0] >= 0 && roi[0] < (double)N))
      return ox_fail(c->err, OX_EINPUT, "rois[%lld] has batch index %g; X has %lld images", (long long)r, roi[0], (long long)N);
    int64_t bi = (int64_t)roi[0];
    int64_t x1 = to_i64(round(roi[1] * scale)), y1 = to_i64(round(roi[2] * scale));
    int64_t x2 = to_i64(round(roi[3] * scale)), y2 = to_i64(round(roi[4] * scale));
    int64_t rw = x2 - x1 + 1 > 1 ? x2 - x1 + 1 : 1, rh = y2 - y1 + 1 > 1 ? y2 - y1 + 1 : 1;
    double bh = (double)rh / (double)ps[0], bw = (double)rw / (double)ps[1];
    for (int64_t ch = 0; ch < C; ch++) {
      int64_t plane = (bi * C + ch) * H * W;
      double *yp = yd + (r * C + ch) * ps[0] * ps[1];
      for (int64_t ph = 0; ph < ps[0]; ph++) {
        int64_t hs = to_i64(floor(ph * bh)) + y1, he = to_i64(ceil((ph + 1) * bh)) + y1;
        hs = hs < 0 ? 0 : hs > H ? H : hs;
        he = he < 0 ? 0 : he > H ? H : he;
        for (int64_t pw = 0; pw < ps[1]; pw++) {
          int64_t ws = to_i64(floor(pw * bw)) + x1, we = to_i64(ceil((pw + 1) * bw)) + x1;
          ws = ws < 0 ? 0 : ws > W ? W : ws;
          we = we < 0 ? 0 : we > W ? W : we;
          double m = (he <= hs || we <= ws) ? 0 : -DBL_MAX;
          for (int64_t h = hs; h < he; h++)
            for (int64_t w = ws; w < we; w++)
              if (ox_load_f64(x->dt, x->data, plane + h * W + w) > m) m = ox_load_f64(x->dt, x->data, plane + h * W + w);
          yp[ph * ps[1] + pw] = m;
        }
      }
    }
  }
  for (int64_t i = 0; i < y->n; i++) ox_store_f64(y->dt, y->data, i, yd[i]);
  return 0;
}

/* ---- RoiAlign-10, -16, -22 ---- */

/* x: (N, C, H, W), rois: (R, 4) of [x1, y1, x2, y2], batch_indices: (R,)
 * -> (R, C, output_height, output_width). Each bin averages (or, mode max,
 * takes the largest of) bilinear samples on a sampling_ratio grid (adaptive:
 * ceil(roi size / output size)). RoiAlign-16 half_pixel shifts the scaled
 * corners by -0.5; RoiAlign-10 (output_half_pixel) does not and makes each
 * roi at least 1x1. Mode max takes the largest weighted corner, as
 * onnxruntime and the reference implementation do. */
static int roialign(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *rois, *bix;
  char s1[128];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &rois));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &bix));
  if (x->rank != 4)
    return ox_fail(c->err, OX_EINPUT, "X has shape %s; expected (N, C, H, W)", ox_shape_str(x->rank, x->dims, s1, sizeof s1));
  if (rois->dt != x->dt || rois->rank != 2 || rois->dims[1] != 4)
    return ox_fail(c->err, OX_EINPUT, "rois is %s of shape %s; expected (num_rois, 4) of X's type",
                   ox_dtypes[rois->dt].onnx_name, ox_shape_str(rois->rank, rois->dims, s1, sizeof s1));
  int64_t R = rois->dims[0];
  if (bix->dt != OX_INT64 || bix->rank != 1 || bix->dims[0] != R)
    return ox_fail(c->err, OX_EINPUT, "batch_indices is %s of shape %s; expected (%lld,) int64",
                   ox_dtypes[bix->dt].onnx_name, ox_shape_str(bix->rank, bix->dims, s1, sizeof s1), (long long)R);
  const pool_state *st = c->state;
  int is_max = st->roi_max, half = st->roi_half;
  int64_t oh = st->out_h, ow = st->out_w, sr = st->sampling_ratio;
  double scale = st->spatial_scale;
  int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
  OX_TRY(ox_tensor_new(c->a, x->dt, 4, (int64_t[]){R, C, oh, ow}, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  double *yd = ox_alloc_array(c->a, y->n, sizeof *yd);
  if (!yd) return ox_oom(c->err, NULL);
  const int64_t *bi = bix->data;
  for (int64_t r = 0; r < R; r++) {
    if (bi[r] < 0 || bi[r] >= N)
      return ox_fail(c->err, OX_EINPUT, "batch_indices[%lld] is %lld; X has %lld images", (long long)r, (long long)bi[r], (long long)N);
    /* The sample positions are worked out in the rois' type, one rounding
     * per operation, as the ONNX reference (numpy 2) and onnxruntime do: a
     * sample at exactly -1 or at the last row stays in. */
    ox_dtype t = rois->dt;
    double off = half ? 0.5 : 0;
    double x1 = ox_round_to(t, ox_round_to(t, ox_load_f64(t, rois->data, r * 4) * scale) - off);
    double y1 = ox_round_to(t, ox_round_to(t, ox_load_f64(t, rois->data, r * 4 + 1) * scale) - off);
    double x2 = ox_round_to(t, ox_round_to(t, ox_load_f64(t, rois->data, r * 4 + 2) * scale) - off);
    double y2 = ox_round_to(t, ox_round_to(t, ox_load_f64(t, rois->data, r * 4 + 3) * scale) - off);
    double rw = ox_round_to(t, x2 - x1), rh = ox_round_to(t, y2 - y1);
    if (!half) {
      if (rw < 1) rw = 1;
      if (rh < 1) rh = 1;
    }
    double bh = ox_round_to(t, rh / (double)oh), bw = ox_round_to(t, rw / (double)ow);
    int64_t gh = sr > 0 ? sr : to_i64(ceil(bh)), gw = sr > 0 ? sr : to_i64(ceil(bw));
    if (gh < 0) gh = 0;
    if (gw < 0) gw = 0;
    if (gh > (1 << 20) || gw > (1 << 20))
      return ox_fail(c->err, OX_EINPUT, "roi %lld needs a %lld x %lld sampling grid; too large", (long long)r, (long long)gh, (long long)gw);
    double count = gh * gw > 1 ? (double)(gh * gw) : 1;
    for (int64_t ch = 0; ch < C; ch++) {
      int64_t pbase = (bi[r] * C + ch) * H * W;
      for (int64_t ph = 0; ph < oh; ph++)
        for (int64_t pw = 0; pw < ow; pw++) {
          double acc = 0;
          int first = 1;
          for (int64_t iy = 0; iy < gh; iy++) {
            /* y1 + ph * bh + (iy + 0.5) * bh / gh, rounded as the reference's */
            double yy = ox_round_to(t, ox_round_to(t, y1 + ox_round_to(t, (double)ph * bh)) +
                                           ox_round_to(t, ox_round_to(t, ((double)iy + 0.5) * bh) / (double)gh));
            for (int64_t ix = 0; ix < gw; ix++) {
              double xx = ox_round_to(t, ox_round_to(t, x1 + ox_round_to(t, (double)pw * bw)) +
                                             ox_round_to(t, ox_round_to(t, ((double)ix + 0.5) * bw) / (double)gw));
              double v = 0;
              if (!(yy < -1.0 || yy > (double)H || xx < -1.0 || xx > (double)W)) {
                double sy = yy < 0 ? 0 : yy, sx = xx < 0 ? 0 : xx;
                int64_t yl = (int64_t)sy, xl = (int64_t)sx, yh, xh;
                if (yl >= H - 1) yh = yl = H - 1, sy = (double)yl;
                else yh = yl + 1;
                if (xl >= W - 1) xh = xl = W - 1, sx = (double)xl;
                else xh = xl + 1;
                double ly = sy - (double)yl, lx = sx - (double)xl, hy = 1 - ly, hx = 1 - lx;
                double v1 = ox_load_f64(x->dt, x->data, pbase + yl * W + xl) * hy * hx;
                double v2 = ox_load_f64(x->dt, x->data, pbase + yl * W + xh) * hy * lx;
                double v3 = ox_load_f64(x->dt, x->data, pbase + yh * W + xl) * ly * hx;
                double v4 = ox_load_f64(x->dt, x->data, pbase + yh * W + xh) * ly * lx;
                if (is_max) {
                  v = v1 > v2 ? v1 : v2;
                  v = v > v3 ? v : v3;
                  v = v > v4 ? v : v4;
                } else {
                  v = v1 + v2 + v3 + v4;
                }
              }
              if (is_max) acc = first || v > acc ? v : acc;
              else acc += v;
              first = 0;
            }
          }
          yd[((r * C + ch) * oh + ph) * ow + pw] = is_max ? acc : acc / count;
        }
    }
  }
  for (int64_t i = 0; i < y->n; i++) ox_store_f64(y->dt, y->data, i, yd[i]);
  return 0;
}

#define TS_MAXPOOL12 (OX_TS_FLOAT3 | OX_T(INT8) | OX_T(UINT8))

const ox_kernel ox_pool_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "MaxPool",            1, 0, OX_TS_FLOAT3, 1, 1, maxpool,
    "auto_pad:string=NOTSET,kernel_shape:ints:required,pads:ints,strides:ints", pool_load },
  { "", "MaxPool",            8, 0, OX_TS_FLOAT3, 1, 1, maxpool,
    "auto_pad:string=NOTSET,kernel_shape:ints:required,pads:ints,storage_order:int=0,"
    "strides:ints", pool_load }, /* Indices */
  { "", "MaxPool",           10, 0, OX_TS_FLOAT3, 1, 1, maxpool,
    "auto_pad:string=NOTSET,ceil_mode:int=0,dilations:ints,kernel_shape:ints:required,"
    "pads:ints,storage_order:int=0,strides:ints", pool_load }, /* ceil_mode, dilations */
  { "", "MaxPool",           11, 0, OX_TS_FLOAT3, 1, 1, maxpool, OX_ATTRS_OF(10), pool_load },
  { "", "MaxPool",           12, 0, TS_MAXPOOL12, 1, 1, maxpool, OX_ATTRS_OF(10), pool_load }, /* int8, uint8 */
  { "", "MaxPool",           22, 0, TS_MAXPOOL12 | OX_T(BFLOAT16), 1, 1, maxpool, OX_ATTRS_OF(10), pool_load },
  { "", "AveragePool",        1, 0, OX_TS_FLOAT3, 1, 1, avgpool,
    "auto_pad:string=NOTSET,kernel_shape:ints:required,pads:ints,strides:ints", pool_load },
  { "", "AveragePool",        7, 0, OX_TS_FLOAT3, 1, 1, avgpool,
    "auto_pad:string=NOTSET,count_include_pad:int=0,kernel_shape:ints:required,pads:ints,"
    "strides:ints", pool_load }, /* count_include_pad */
  { "", "AveragePool",       10, 0, OX_TS_FLOAT3, 1, 1, avgpool,
    "auto_pad:string=NOTSET,ceil_mode:int=0,count_include_pad:int=0,kernel_shape:ints:required,"
    "pads:ints,strides:ints", pool_load }, /* ceil_mode */
  { "", "AveragePool",       11, 0, OX_TS_FLOAT3, 1, 1, avgpool, OX_ATTRS_OF(10), pool_load },
  { "", "AveragePool",       19, 0, OX_TS_FLOAT3, 1, 1, avgpool,
    "auto_pad:string=NOTSET,ceil_mode:int=0,count_include_pad:int=0,dilations:ints,"
    "kernel_shape:ints:required,pads:ints,strides:ints", pool_load }, /* dilations */
  { "", "AveragePool",       22, 0, OX_TS_FLOAT4, 1, 1, avgpool, OX_ATTRS_OF(19), pool_load },
  { "", "LpPool",             1, 0, OX_TS_FLOAT3, 1, 1, lppool,
    "auto_pad:string=NOTSET,kernel_shape:ints,p:float=2.0,pads:ints,strides:ints", pool_load }, /* p float */
  /* p int */
  { "", "LpPool",             2, 0, OX_TS_FLOAT3, 1, 1, lppool,
    "auto_pad:string=NOTSET,kernel_shape:ints:required,p:int=2,pads:ints,strides:ints", pool_load },
  { "", "LpPool",            11, 0, OX_TS_FLOAT3, 1, 1, lppool, OX_ATTRS_OF(2), pool_load },
  { "", "LpPool",            18, 0, OX_TS_FLOAT3, 1, 1, lppool,
    "auto_pad:string=NOTSET,ceil_mode:int=0,dilations:ints,kernel_shape:ints:required,p:int=2,"
    "pads:ints,strides:ints", pool_load }, /* ceil_mode, dilations */
  { "", "LpPool",            22, 0, OX_TS_FLOAT4, 1, 1, lppool, OX_ATTRS_OF(18), pool_load },
  { "", "GlobalAveragePool",  1, 0, OX_TS_FLOAT3, 1, 1, global_avg, "", global_load },
  { "", "GlobalAveragePool", 22, 0, OX_TS_FLOAT4, 1, 1, global_avg, "", global_load },
  { "", "GlobalMaxPool",      1, 0, OX_TS_FLOAT3, 1, 1, global_max, "", global_load },
  { "", "GlobalMaxPool",     22, 0, OX_TS_FLOAT4, 1, 1, global_max, "", global_load },
  { "", "GlobalLpPool",       1, 0, OX_TS_FLOAT3, 1, 1, global_lp, "p:float=2.0", global_load }, /* p float */
  { "", "GlobalLpPool",       2, 0, OX_TS_FLOAT3, 1, 1, global_lp, "p:int=2", global_load },
  { "", "GlobalLpPool",      22, 0, OX_TS_FLOAT4, 1, 1, global_lp, "p:int=2", global_load },
  { "", "MaxUnpool",          9, 0, OX_TS_FLOAT3, 2, 3, maxunpool,
    "kernel_shape:ints:required,pads:ints,strides:ints", pool_load },
  { "", "MaxUnpool",         11, 0, OX_TS_FLOAT3, 2, 3, maxunpool, OX_ATTRS_OF(9), pool_load },
  { "", "MaxUnpool",         22, 0, OX_TS_FLOAT4, 2, 3, maxunpool, OX_ATTRS_OF(9), pool_load },
  { "", "MaxRoiPool",         1, 0, OX_TS_FLOAT3, 2, 2, maxroipool,
    "pooled_shape:ints:required,spatial_scale:float=1.0", roipool_load },
  { "", "MaxRoiPool",        22, 0, OX_TS_FLOAT4, 2, 2, maxroipool, OX_ATTRS_OF(1), roipool_load },
  { "", "RoiAlign",          10, 0, OX_TS_FLOAT3, 3, 3, roialign,
    "mode:string=avg,output_height:int=1,output_width:int=1,sampling_ratio:int=0,"
    "spatial_scale:float=1.0", roialign_load },
  { "", "RoiAlign",          16, 0, OX_TS_FLOAT3, 3, 3, roialign,
    "coordinate_transformation_mode:string=half_pixel,mode:string=avg,output_height:int=1,"
    "output_width:int=1,sampling_ratio:int=0,spatial_scale:float=1.0", roialign_load }, /* half_pixel */
  { "", "RoiAlign",          22, 0, OX_TS_FLOAT4, 3, 3, roialign, OX_ATTRS_OF(16), roialign_load },
  {0},
};
