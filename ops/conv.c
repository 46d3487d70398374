/* ops/conv.c: convolutions: Conv, ConvTranspose, ConvInteger, DeformConv, Col2Im.
 *
 * This file checks the shapes and attributes. The arithmetic of Conv,
 * ConvTranspose and ConvInteger is in ops/conv_paths.c (direct loops, a
 * GEMV, or im2col tiles packed straight into core/gemm.h's products, chosen
 * per call; ConvInteger on the 8-bit product, exact modulo 2^32 as the spec
 * allows). ConvTranspose is the reverse of im2col: col = W_g^T x X_g, then
 * col2im (here) adds the columns into the output; Col2Im is that last step
 * alone. DeformConv samples its own columns and multiplies them with the
 * blocked GEMM. float16 and bfloat16 compute in float and round once on
 * store. This file calls ops/conv_paths.c, never the other way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gemm.h"
#include "core/kernel.h"
#include "ops/twins.h"
#include "core/threads.h"
#include "ops/conv.h"

#define MAXSP OX_CONV_MAXSP

/* ---- window geometry (ops/conv.h) ---- */
typedef ox_conv_geom geom;

/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hooks of this file keep for a node: its attributes (those
 * its op-version lacks keep their defaults) and, for Conv and ConvInteger,
 * the preparation of a constant W (ops/conv.h). */
typedef struct {
  const ox_conv_prep *pp; /* first: tests/unit/test_conv.c looks whether it is set */
  int64_t group, offset_group;
  int auto_pad;
  ox_ints strides, dilations, pads, kernel_shape, output_padding, output_shape;
} conv_state;

/* ConvTranspose, DeformConv, Col2Im */
static int window_load(ox_ctx *c, void **state) {
  conv_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  st->group = ox_attr_int(c, "group", 1);
  if (st->group < 1) return ox_fail(c->err, OX_EINPUT, "group is %lld; it must be positive", (long long)st->group);
  st->offset_group = ox_attr_int(c, "offset_group", 1);
  OX_TRY(ox_auto_pad(c, &st->auto_pad));
  OX_TRY(ox_window_attr(c, "strides", 1, &st->strides));
  OX_TRY(ox_window_attr(c, "dilations", 1, &st->dilations));
  OX_TRY(ox_window_attr(c, "pads", 0, &st->pads));
  OX_TRY(ox_window_attr(c, "kernel_shape", 0, &st->kernel_shape));
  OX_TRY(ox_window_attr(c, "output_padding", 0, &st->output_padding));
  st->output_shape.v = ox_attr_ints(c, "output_shape", &st->output_shape.n);
  *state = st;
  return 0;
}

/* Conv and ConvInteger: a constant W packed for the GEMM too */
static int packing_load(ox_ctx *c, int integer, void **state) {
  OX_TRY(window_load(c, state));
  conv_state *st = *state;
  const ox_tensor *w;
  OX_TRY(ox_const_input(c, 1, &w));
  return w ? ox_conv_prepack(c->a, integer, st->group, w, &st->pp, c->err) : 0;
}
int ox_conv_load(ox_ctx *c, void **state) { return packing_load(c, 0, state); }
static int conv_integer_load(ox_ctx *c, void **state) { return packing_load(c, 1, state); }

/* strides, dilations and pads (begin, end) for nd spatial axes */
static int window_attrs(ox_ctx *c, int nd, geom *g) {
  const conv_state *st = c->state;
  int64_t pads[2 * MAXSP];
  g->nd = nd;
  OX_TRY(ox_window_vals(c, "strides", &st->strides, nd, 1, g->s));
  OX_TRY(ox_window_vals(c, "dilations", &st->dilations, nd, 1, g->d));
  OX_TRY(ox_window_vals(c, "pads", &st->pads, 2 * nd, 0, pads));
  for (int i = 0; i < nd; i++) g->pb[i] = pads[i], g->pe[i] = pads[nd + i];
  return 0;
}

/* The products, -1 where one overflows. That is an error (geom_fits) only
 * once the output is known not to be empty: an empty x or y may have
 * spatial dims that multiply beyond int64, (0, 1, 2^62, 2^62). */
static int geom_products(ox_ctx *c, geom *g) {
  g->nimg = ox_numel(g->nd, g->img, 8);
  g->npos = ox_numel(g->nd, g->pos, 8);
  g->nker = ox_numel(g->nd, g->ker, 8);
  return 0;
}
static int geom_fits(ox_ctx *c, const geom *g) {
  if (g->nimg < 0 || g->npos < 0 || g->nker < 0)
    return ox_fail(c->err, OX_EINPUT, "the convolution's shapes are too large");
  return 0;
}

/* Conv and ConvInteger: output positions from image, kernel and attributes.
 * Conv-11: SAME_* pads so that out = ceil(in / stride), the odd pixel at the
 * end for SAME_UPPER and at the beginning for SAME_LOWER. */
static int conv_positions(ox_ctx *c, geom *g) {
  int mode = ((const conv_state *)c->state)->auto_pad;
  for (int i = 0; i < g->nd; i++) {
    int64_t dk = (g->ker[i] - 1) * g->d[i] + 1, in = g->img[i];
    if (mode == OX_PAD_SAME_UPPER || mode == OX_PAD_SAME_LOWER) {
      int64_t out = (in + g->s[i] - 1) / g->s[i];
      int64_t total = (out - 1) * g->s[i] + dk - in;
      if (total < 0) total = 0;
      g->pb[i] = mode == OX_PAD_SAME_UPPER ? total / 2 : total - total / 2;
      g->pe[i] = total - g->pb[i];
    } else if (mode == OX_PAD_VALID) {
      g->pb[i] = g->pe[i] = 0;
    }
    int64_t padded = in + g->pb[i] + g->pe[i];
    if (padded < dk && padded > 0) /* an empty axis has no windows: an empty output */
      return ox_fail(c->err, OX_EINPUT,
                     "the kernel (%lld with dilation) is larger than the padded input (%lld) "
                     "along spatial axis %d",
                     (long long)dk, (long long)padded, i);
    g->pos[i] = padded < dk ? 0 : (padded - dk) / g->s[i] + 1;
  }
  return geom_products(c, g);
}

/* img (C, img...) += col (C * nker, npos); no positions (a spatial dim of
 * 0, as ConvTranspose's X may have) adds nothing */
static void col2im(ox_dtype dt, const void *col, int64_t C, const geom *g, void *img) {
  int64_t last = g->pos[g->nd - 1];
  if (last <= 0) return;
  ox_conv_col2im(g, C, dt, img, col, 0, g->npos / last);
}

/* ---- Conv-1, -11, -22 ---- */

/* Shapes and geometry of Conv and ConvInteger.
 * x: (N, C, D1..Dn), w: (M, C/group, k1..kn) */
static int conv_shapes(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, int64_t *group, geom *g,
                       int64_t *ydims) {
  char s1[256], s2[256];
  if (x->rank < 3 || x->rank - 2 > MAXSP)
    return ox_fail(c->err, OX_EINPUT, "X has shape %s; expected (N, C, D1, ...) with 1 to %d spatial axes",
                   ox_shape_str(x->rank, x->dims, s1, sizeof s1), MAXSP);
  if (w->rank != x->rank)
    return ox_fail(c->err, OX_EINPUT, "W has shape %s but X has shape %s; W must be (M, C/group, k1, ...) of X's rank",
                   ox_shape_str(w->rank, w->dims, s1, sizeof s1), ox_shape_str(x->rank, x->dims, s2, sizeof s2));
  int nd = x->rank - 2;
  const conv_state *st = c->state;
  *group = st->group;
  int64_t G = *group, C = x->dims[1], M = w->dims[0];
  if (C % G || w->dims[1] != C / G)
    return ox_fail(c->err, OX_EINPUT, "channel mismatch: X has %lld channels but W has %lld per group x %lld groups",
                   (long long)C, (long long)w->dims[1], (long long)G);
  if (M % G)
    return ox_fail(c->err, OX_EINPUT, "W has %lld output channels, not a multiple of group %lld",
                   (long long)M, (long long)G);
  OX_TRY(window_attrs(c, nd, g));
  int64_t ks[MAXSP];
  OX_TRY(ox_window_vals(c, "kernel_shape", &st->kernel_shape, nd, -1, ks));
  for (int i = 0; i < nd; i++) {
    if (ks[i] >= 0 && ks[i] != w->dims[2 + i])
      return ox_fail(c->err, OX_EINPUT, "kernel_shape[%d] is %lld but W has shape %s", i,
                     (long long)ks[i], ox_shape_str(w->rank, w->dims, s1, sizeof s1));
    g->ker[i] = w->dims[2 + i];
    g->img[i] = x->dims[2 + i];
    if (g->ker[i] < 1) return ox_fail(c->err, OX_EINPUT, "W has an empty kernel axis");
  }
  OX_TRY(conv_positions(c, g));
  ydims[0] = x->dims[0];
  ydims[1] = M;
  for (int i = 0; i < nd; i++) ydims[2 + i] = g->pos[i];
  return 0;
}

static int check_bias(ox_ctx *c, const ox_tensor *b, int64_t M, ox_dtype dt) {
  char s1[128];
  if (!b) return 0;
  OX_TRY(ox_same_dtype(c, 2, b, dt));
  if (b->n != M || b->rank != 1)
    return ox_fail(c->err, OX_EINPUT, "B has shape %s; expected (%lld,), one per output channel",
                   ox_shape_str(b->rank, b->dims, s1, sizeof s1), (long long)M);
  return 0;
}

/* The node's preparation (ops/conv.h) when it was made from this very W */
static const ox_conv_prep *prep_of(ox_ctx *c, const ox_value *w, int64_t G) {
  const ox_conv_prep *pp = ((const conv_state *)c->state)->pp;
  return pp && ox_prep_matches(w, pp->w) && pp->G == G ? pp : NULL;
}

static int conv(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *w, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &w));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &b));
  OX_TRY(ox_same_dtype(c, 1, w, x->dt));
  int64_t G = 1, ydims[MAXSP + 2];
  geom g;
  OX_TRY(conv_shapes(c, x, w, &G, &g, ydims));
  OX_TRY(check_bias(c, b, w->dims[0], x->dt));
  OX_TRY(ox_tensor_new_uninit(c->a, x->dt, x->rank, ydims, out, c->err)); /* every element written */
  if ((*out)->u.t.n == 0) return 0;
  OX_TRY(geom_fits(c, &g));
  return ox_conv_float(c, x, w, b, G, &g, prep_of(c, in[1], G), &(*out)->u.t, NULL);
}

/* ---- ConvInteger-10 ---- */

static int conv_integer(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *w, *xz, *wz;
  char s1[128];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &w));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &xz));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &wz));
  if (w->dt != OX_INT8 && w->dt != OX_UINT8)
    return ox_fail(c->err, OX_EINPUT, "w is %s; T2 must be int8 or uint8", ox_dtypes[w->dt].onnx_name);
  int64_t G = 1, ydims[MAXSP + 2];
  geom g;
  OX_TRY(conv_shapes(c, x, w, &G, &g, ydims));
  int64_t M = w->dims[0];
  /* x_zero_point: a scalar; w_zero_point: a scalar or one per output channel */
  if (xz && (xz->dt != x->dt || xz->n != 1))
    return ox_fail(c->err, OX_EINPUT, "x_zero_point must be one %s value; it is %s of shape %s",
                   ox_dtypes[x->dt].onnx_name, ox_dtypes[xz->dt].onnx_name,
                   ox_shape_str(xz->rank, xz->dims, s1, sizeof s1));
  if (wz && (wz->dt != w->dt || (wz->n != 1 && wz->n != M) || wz->rank > 1))
    return ox_fail(c->err, OX_EINPUT, "w_zero_point must be a %s scalar or have %lld values (one per "
                   "output channel); it is %s of shape %s", ox_dtypes[w->dt].onnx_name, (long long)M,
                   ox_dtypes[wz->dt].onnx_name, ox_shape_str(wz->rank, wz->dims, s1, sizeof s1));
  OX_TRY(ox_tensor_new_uninit(c->a, OX_INT32, x->rank, ydims, out, c->err)); /* every element written */
  if ((*out)->u.t.n == 0) return 0;
  OX_TRY(geom_fits(c, &g));
  return ox_conv_int8_prep(c, x, w, xz ? ox_load_i64(xz->dt, xz->data, 0) : 0, wz, G, &g, prep_of(c, in[1], G),
                           &(*out)->u.t);
}

/* ---- ConvTranspose-1, -11, -22 ---- */

/* x: (N, C, D1..Dn), w: (C, M/group, k1..kn), y: (N, M, O1..On) */
static int convtranspose_shapes(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, int64_t *group,
                                geom *g, int64_t *ydims) {
  char s1[256], s2[256];
  if (x->rank < 3 || x->rank - 2 > MAXSP)
    return ox_fail(c->err, OX_EINPUT, "X has shape %s; expected (N, C, D1, ...) with 1 to %d spatial axes",
                   ox_shape_str(x->rank, x->dims, s1, sizeof s1), MAXSP);
  if (w->rank != x->rank)
    return ox_fail(c->err, OX_EINPUT, "W has shape %s but X has shape %s; W must be (C, M/group, k1, ...) of X's rank",
                   ox_shape_str(w->rank, w->dims, s1, sizeof s1), ox_shape_str(x->rank, x->dims, s2, sizeof s2));
  const conv_state *st = c->state;
  int nd = x->rank - 2, mode = st->auto_pad;
  *group = st->group;
  int64_t G = *group, C = x->dims[1];
  if (w->dims[0] != C || C % G)
    return ox_fail(c->err, OX_EINPUT, "channel mismatch: X has %lld channels, W has %lld input channels, group %lld",
                   (long long)C, (long long)w->dims[0], (long long)G);
  if (w->dims[1] > INT64_MAX / G) /* M = W's dim 1 * group (any group divides 0 channels) */
    return ox_fail(c->err, OX_EINPUT, "group %lld times W's %lld output channels is too large",
                   (long long)G, (long long)w->dims[1]);
  OX_TRY(window_attrs(c, nd, g));
  int64_t ks[MAXSP], op[MAXSP], os[MAXSP], cnt = st->output_shape.n;
  OX_TRY(ox_window_vals(c, "kernel_shape", &st->kernel_shape, nd, -1, ks));
  OX_TRY(ox_window_vals(c, "output_padding", &st->output_padding, nd, 0, op));
  const int64_t *osv = st->output_shape.v;
  if (osv) { /* (O1..On), or (N, M, O1..On) as some exporters write it */
    if (cnt != nd && cnt != nd + 2)
      return ox_fail(c->err, OX_EINPUT, "output_shape has %lld values; expected %d", (long long)cnt, nd);
    for (int i = 0; i < nd; i++) os[i] = osv[cnt - nd + i];
  }
  for (int i = 0; i < nd; i++) {
    if (ks[i] >= 0 && ks[i] != w->dims[2 + i])
      return ox_fail(c->err, OX_EINPUT, "kernel_shape[%d] is %lld but W has shape %s", i,
                     (long long)ks[i], ox_shape_str(w->rank, w->dims, s1, sizeof s1));
    g->ker[i] = w->dims[2 + i];
    g->pos[i] = x->dims[2 + i];
    if (g->ker[i] < 1) return ox_fail(c->err, OX_EINPUT, "W has an empty kernel axis");
    if (g->pos[i] - 1 > (INT64_C(1) << 62) / g->s[i]) /* strides, pads, kernel and dilations are at most 2^24 */
      return ox_fail(c->err, OX_EINPUT, "the output along spatial axis %d is too large", i);
    int64_t full = g->s[i] * (g->pos[i] - 1) + op[i] + (g->ker[i] - 1) * g->d[i] + 1;
    int64_t o;
    if (osv || mode == OX_PAD_SAME_UPPER || mode == OX_PAD_SAME_LOWER) {
      o = osv ? os[i] : g->pos[i] * g->s[i];
      int64_t total = full - o;
      /* ConvTranspose-11: SAME_UPPER puts total/2 at the beginning; other modes
       * total - total/2. ConvTranspose-1 words it the other way round. The
       * halving is the reference's Python floor division: when SAME asks for
       * an output longer than the full one (total < 0: a kernel shorter than
       * the stride) the negative pads add zeros, an odd one at the beginning
       * for SAME_UPPER and at the end for SAME_LOWER. A longer output_shape
       * without auto_pad gets its zeros at the end (the reference pads
       * nothing there; onnxruntime does the same). */
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      int upper_half = c->version >= 11 ? mode == OX_PAD_SAME_UPPER : mode != OX_PAD_SAME_UPPER;
      g->pb[i] = upper_half ? half : total - half;
      if (total < 0 && mode != OX_PAD_SAME_UPPER && mode != OX_PAD_SAME_LOWER) g->pb[i] = 0;
      g->pe[i] = total - g->pb[i];
    } else {
      if (mode == OX_PAD_VALID) g->pb[i] = g->pe[i] = 0;
      o = full - g->pb[i] - g->pe[i];
    }
    if (o < 0)
      return ox_fail(c->err, OX_EINPUT, "the output along spatial axis %d would be %lld long", i, (long long)o);
    g->img[i] = o;
  }
  OX_TRY(geom_products(c, g));
  ydims[0] = x->dims[0];
  ydims[1] = w->dims[1] * G;
  for (int i = 0; i < nd; i++) ydims[2 + i] = g->img[i];
  return 0;
}

static int convtranspose(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *w, *b;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &w));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 2, &b));
  OX_TRY(ox_same_dtype(c, 1, w, x->dt));
  int64_t G = 1, ydims[MAXSP + 2];
  geom g;
  OX_TRY(convtranspose_shapes(c, x, w, &G, &g, ydims));
  OX_TRY(check_bias(c, b, ydims[1], x->dt));
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, ydims, out, c->err));
  if ((*out)->u.t.n == 0) return 0;
  OX_TRY(geom_fits(c, &g));
  return ox_convtranspose_float(c, x, w, b, G, &g, &(*out)->u.t);
}

/* ---- DeformConv-19, -22 ---- */

/* The value of a (dims...) plane at real coordinates p: multilinear between
 * the 2^nd neighbours, neighbours outside the image reading as zero (as
 * GridSample with align_corners and zero padding). */
#define SAMPLE_FN(SUF, T)                                                             \
  static double sample_##SUF(const T *plane, int nd, const int64_t *dims, const double *p) { \
    int64_t lo[MAXSP];                                                                \
    double fr[MAXSP], acc = 0;                                                        \
    for (int j = 0; j < nd; j++) {                                                    \
      if (!(p[j] > -1 && p[j] < (double)dims[j])) return 0;                           \
      double f = floor(p[j]);                                                         \
      lo[j] = (int64_t)f;                                                             \
      fr[j] = p[j] - f;                                                               \
    }                                                                                 \
    for (int corner = 0; corner < (1 << nd); corner++) {                              \
      double wgt = 1;                                                                 \
      int64_t off = 0;                                                                \
      int ok = 1;                                                                     \
      for (int j = 0; j < nd; j++) {                                                  \
        int up = corner >> j & 1;                                                     \
        int64_t i = lo[j] + up;                                                       \
        wgt *= up ? fr[j] : 1 - fr[j];                                                \
        if (i < 0 || i >= dims[j]) ok = 0;                                            \
        off = off * dims[j] + i;                                                      \
      }                                                                               \
      if (ok && wgt != 0) acc += wgt * (double)plane[off];                            \
    }                                                                                 \
    return acc;                                                                       \
  }
SAMPLE_FN(f32, float)
SAMPLE_FN(f64, double)
#undef SAMPLE_FN

/* x: (N, C, D1..Dn), w: (oC, C/group, k1..kn), offset: (N, og * K * n, o1..on)
 * laid out (N, og, k1..kn, n, o1..on), mask: (N, og * K, o1..on).
 * col (C/group * K, P) of one image and group holds mask * x sampled at
 * o * s - pb + k * d + offset; then Y_g = W_g x col as in Conv. */
static int deform_float(ox_ctx *c, ox_dtype dt, const ox_tensor *const *t, int64_t G, int64_t OG,
                        const geom *g, void *y) {
  const ox_tensor *x = t[0], *w = t[1], *off = t[2], *b = t[3], *mask = t[4];
  int64_t N = x->dims[0], C = x->dims[1], M = w->dims[0], Cg = C / G, Mg = M / G, Cog = C / OG;
  int64_t K = g->nker, Kg = Cg * K, P = g->npos;
  int nd = g->nd;
  size_t es = ox_dtype_size(dt);
  if (ox_numel(2, (int64_t[]){Kg, P}, es) < 0) return ox_fail(c->err, OX_EINPUT, "the convolution is too large");
  void *col = ox_alloc_array(c->a, Kg * P + 1, es);
  if (!col) return ox_oom(c->err, NULL);
  for (int64_t n = 0; n < N; n++)
    for (int64_t gi = 0; gi < G; gi++) {
      for (int64_t ci = 0; ci < Cg; ci++) {
        int64_t ch = gi * Cg + ci, og = ch / Cog;
        const char *plane = (const char *)x->data + (size_t)((n * C + ch) * g->nimg) * es;
        int64_t kidx[MAXSP] = {0};
        for (int64_t kp = 0; kp < K; kp++) {
          int64_t oidx[MAXSP] = {0};
          int64_t obase = ((n * OG + og) * K + kp) * nd * P, mbase = ((n * OG + og) * K + kp) * P;
          for (int64_t p = 0; p < P; p++) {
            double pt[MAXSP];
            for (int j = 0; j < nd; j++)
              pt[j] = (double)(oidx[j] * g->s[j] - g->pb[j] + kidx[j] * g->d[j]) +
                      ox_load_f64(dt, off->data, obase + j * P + p);
            double v = dt == OX_FLOAT ? sample_f32((const float *)plane, nd, g->img, pt)
                                      : sample_f64((const double *)plane, nd, g->img, pt);
            if (mask) v *= ox_load_f64(dt, mask->data, mbase + p);
            ox_store_f64(dt, col, (ci * K + kp) * P + p, v);
            for (int j = nd - 1; j >= 0; j--) {
              if (++oidx[j] < g->pos[j]) break;
              oidx[j] = 0;
            }
          }
          for (int j = nd - 1; j >= 0; j--) {
            if (++kidx[j] < g->ker[j]) break;
            kidx[j] = 0;
          }
        }
      }
      const char *wg = (const char *)w->data + (size_t)(gi * Mg * Kg) * es;
      char *yg = (char *)y + (size_t)((n * M + gi * Mg) * P) * es;
      for (int64_t m = 0; b && m < Mg; m++)
        for (int64_t p = 0; p < P; p++)
          ox_store_f64(dt, yg, m * P + p, ox_load_f64(dt, b->data, gi * Mg + m));
      if (dt == OX_FLOAT)
        ox_sgemm(c->threads, Mg, P, Kg, (const float *)wg, Kg, 0, col, P, 0, (float *)yg, P, 1, b ? 1 : 0);
      else
        ox_dgemm(c->threads, Mg, P, Kg, (const double *)wg, Kg, 0, col, P, 0, (double *)yg, P, 1, b ? 1 : 0);
    }
  return 0;
}

static int deform_conv(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *t[5];
  char s1[256], s2[256];
  OX_TRY(ox_tensor_in(c, in, nin, 0, &t[0]));
  OX_TRY(ox_tensor_in(c, in, nin, 1, &t[1]));
  OX_TRY(ox_tensor_in(c, in, nin, 2, &t[2]));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 3, &t[3]));
  OX_TRY(ox_opt_tensor_in(c, in, nin, 4, &t[4]));
  const ox_tensor *x = t[0], *w = t[1], *off = t[2], *mask = t[4];
  for (int i = 1; i < 5; i++)
    if (t[i]) OX_TRY(ox_same_dtype(c, i, t[i], x->dt));
  int64_t G = 1, OG = ((const conv_state *)c->state)->offset_group, ydims[MAXSP + 2];
  geom g;
  OX_TRY(conv_shapes(c, x, w, &G, &g, ydims));
  OX_TRY(geom_fits(c, &g));
  OX_TRY(check_bias(c, t[3], w->dims[0], x->dt));
  int nd = g.nd;
  if (OG < 1 || x->dims[1] % OG)
    return ox_fail(c->err, OX_EINPUT, "offset_group is %lld; it must be positive and divide the %lld input channels",
                   (long long)OG, (long long)x->dims[1]);
  /* offset: (N, og * K * n, o...), mask: (N, og * K, o...) */
  int64_t want[MAXSP + 2];
  memcpy(want, ydims, sizeof want);
  want[1] = OG * g.nker * nd;
  if (off->rank != x->rank || memcmp(off->dims, want, sizeof *want * (size_t)x->rank))
    return ox_fail(c->err, OX_EINPUT, "offset has shape %s; expected %s", ox_shape_str(off->rank, off->dims, s1, sizeof s1),
                   ox_shape_str(x->rank, want, s2, sizeof s2));
  want[1] = OG * g.nker;
  if (mask && (mask->rank != x->rank || memcmp(mask->dims, want, sizeof *want * (size_t)x->rank)))
    return ox_fail(c->err, OX_EINPUT, "mask has shape %s; expected %s", ox_shape_str(mask->rank, mask->dims, s1, sizeof s1),
                   ox_shape_str(x->rank, want, s2, sizeof s2));
  OX_TRY(ox_tensor_new(c->a, x->dt, x->rank, ydims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0) return 0;
  if (x->dt == OX_FLOAT || x->dt == OX_DOUBLE) return deform_float(c, x->dt, t, G, OG, &g, y->data);
  ox_tensor f[5];
  const ox_tensor *tf[5];
  for (int i = 0; i < 5; i++) {
    OX_TRY(ox_widen_tensor(c, t[i], &f[i]));
    tf[i] = t[i] ? &f[i] : NULL;
  }
  float *yf = ox_alloc_array(c->a, y->n, sizeof *yf);
  if (!yf) return ox_oom(c->err, NULL);
  OX_TRY(deform_float(c, OX_FLOAT, tf, G, OG, &g, yf));
  ox_narrow_f32(yf, y);
  return 0;
}

/* ---- Col2Im-18 ---- */

/* input: (N, C * prod(block_shape), L), image_shape (n,), block_shape (n,)
 * -> (N, C, image_shape...); L must be the number of block positions. */
static int col2im_op(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  char s1[128];
  int64_t *img, *blk, ni, nb;
  OX_TRY(ox_tensor_in(c, in, nin, 0, &x));
  OX_TRY(ox_ints_of(c, 1, in[1], &img, &ni));
  OX_TRY(ox_ints_of(c, 2, in[2], &blk, &nb));
  if (ni != nb || ni < 1 || ni > MAXSP)
    return ox_fail(c->err, OX_EINPUT, "image_shape has %lld values and block_shape %lld; they must "
                   "match (1 to %d)", (long long)ni, (long long)nb, MAXSP);
  if (x->rank != 3)
    return ox_fail(c->err, OX_EINPUT, "input has shape %s; expected (N, C * prod(block_shape), L)",
                   ox_shape_str(x->rank, x->dims, s1, sizeof s1));
  int nd = (int)ni;
  geom g;
  OX_TRY(window_attrs(c, nd, &g));
  for (int i = 0; i < nd; i++) {
    if (img[i] < 0 || blk[i] < 1)
      return ox_fail(c->err, OX_EINPUT, "image_shape[%d] is %lld and block_shape[%d] %lld", i,
                     (long long)img[i], i, (long long)blk[i]);
    g.img[i] = img[i];
    g.ker[i] = blk[i];
    int64_t dk = (blk[i] - 1) * g.d[i] + 1, padded = img[i] + g.pb[i] + g.pe[i];
    if (padded < dk)
      return ox_fail(c->err, OX_EINPUT, "the block (%lld with dilation) is larger than the padded "
                     "image (%lld) along axis %d", (long long)dk, (long long)padded, i);
    g.pos[i] = (padded - dk) / g.s[i] + 1;
  }
  OX_TRY(geom_products(c, &g));
  OX_TRY(geom_fits(c, &g));
  if (x->dims[1] % g.nker || x->dims[2] != g.npos)
    return ox_fail(c->err, OX_EINPUT, "input has shape %s; expected (N, C * %lld, %lld) for these "
                   "image and block shapes", ox_shape_str(x->rank, x->dims, s1, sizeof s1),
                   (long long)g.nker, (long long)g.npos);
  int64_t N = x->dims[0], C = x->dims[1] / g.nker, ydims[MAXSP + 2] = {N, C};
  for (int i = 0; i < nd; i++) ydims[2 + i] = img[i];
  OX_TRY(ox_tensor_new(c->a, x->dt, nd + 2, ydims, out, c->err));
  ox_tensor *y = &(*out)->u.t;
  if (y->n == 0 || x->n == 0) return 0;
  ox_dtype dt = x->dt;
  const void *xd = x->data;
  void *yd = y->data;
  if (ox_dtype_is_small_float(dt)) {
    xd = ox_widen_f32(c->a, x, c->err);
    yd = ox_alloc_array(c->a, y->n, 4);
    if (!xd || !yd) return ox_oom(c->err, NULL);
    dt = OX_FLOAT;
  } else if (!ox_conv_col2im_takes(dt)) {
    return ox_fail(c->err, OX_EUNSUPPORTED, "Col2Im of %s is not supported (overlapping blocks are summed)",
                   ox_dtypes[dt].onnx_name);
  }
  size_t es = ox_dtype_size(dt);
  for (int64_t n = 0; n < N; n++)
    col2im(dt, (const char *)xd + (size_t)(n * x->dims[1] * g.npos) * es, C, &g,
           (char *)yd + (size_t)(n * C * g.nimg) * es);
  if (yd != y->data) ox_narrow_f32(yd, y);
  return 0;
}

#define TS_COL2IM (OX_TS_CLASSIC | OX_T(BFLOAT16))

/* The kernels com.microsoft's FusedConv runs too (ops/twins.h). */
int ox_conv_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) { return conv(c, nin, in, nout, out); }

const ox_kernel ox_conv_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Conv",           1, 0, OX_TS_FLOAT3,             2, 3, conv,
    "auto_pad:string=NOTSET,dilations:ints,group:int=1,kernel_shape:ints,pads:ints,"
    "strides:ints", ox_conv_load },
  { "", "Conv",          11, 0, OX_TS_FLOAT3,             2, 3, conv, OX_ATTRS_OF(1), ox_conv_load },
  { "", "Conv",          22, 0, OX_TS_FLOAT4,             2, 3, conv, OX_ATTRS_OF(1), ox_conv_load },
  { "", "ConvTranspose",  1, 0, OX_TS_FLOAT3,             2, 3, convtranspose,
    "auto_pad:string=NOTSET,dilations:ints,group:int=1,kernel_shape:ints,output_padding:ints,"
    "output_shape:ints,pads:ints,strides:ints", window_load },
  { "", "ConvTranspose", 11, 0, OX_TS_FLOAT3,             2, 3, convtranspose, OX_ATTRS_OF(1), window_load },
  { "", "ConvTranspose", 22, 0, OX_TS_FLOAT4,             2, 3, convtranspose, OX_ATTRS_OF(1), window_load },
  { "", "ConvInteger",   10, 0, OX_T(INT8) | OX_T(UINT8), 2, 4, conv_integer,
    "auto_pad:string=NOTSET,dilations:ints,group:int=1,kernel_shape:ints,pads:ints,"
    "strides:ints", conv_integer_load },
  { "", "DeformConv",    19, 0, OX_TS_FLOAT3,             3, 5, deform_conv,
    "dilations:ints,group:int=1,kernel_shape:ints,offset_group:int=1,pads:ints,strides:ints", window_load },
  { "", "DeformConv",    22, 0, OX_TS_FLOAT4,             3, 5, deform_conv, OX_ATTRS_OF(19), window_load },
  { "", "Col2Im",        18, 0, TS_COL2IM,                3, 3, col2im_op,
    "dilations:ints,pads:ints,strides:ints", window_load },
  {0},
};
