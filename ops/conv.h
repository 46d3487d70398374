/* ops/conv.h: what the files of the conv family share (ops/conv.c: the ops,
 * their shapes and the registry rows; ops/conv_paths.c: Conv's and
 * ConvInteger's arithmetic). */
#ifndef OX_OPS_CONV_H
#define OX_OPS_CONV_H

#include "core/kernel.h"

#define OX_CONV_MAXSP 8 /* spatial dimensions supported */

/* Window geometry: an "image" of spatial dims img[] and a grid of window
 * positions pos[]: window p covers img index p * s + k * d - pb for k in
 * [0, ker). For Conv the image is X and the positions are Y; for
 * ConvTranspose and Col2Im the image is the output and the positions are the
 * input. nimg, npos and nker are the products (-1 where one overflows). */
typedef struct {
  int nd;
  int64_t img[OX_CONV_MAXSP], pos[OX_CONV_MAXSP], ker[OX_CONV_MAXSP], s[OX_CONV_MAXSP],
      d[OX_CONV_MAXSP], pb[OX_CONV_MAXSP], pe[OX_CONV_MAXSP];
  int64_t nimg, npos, nker;
} ox_conv_geom;

/* y = conv(x, w) + b for x, w, b of one float type (float, double, float16,
 * bfloat16; the small ones computed in float and rounded once on store).
 * x: (N, C, img...), w: (M, C / G, ker...), b: (M) or NULL, y: (N, M, pos...)
 * with y->n > 0; the shapes are checked. Splits over ox_threads(), the same
 * bytes for any count. */
int ox_conv_float(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, const ox_tensor *b, int64_t G,
                  const ox_conv_geom *g, ox_tensor *y);

/* ConvTranspose: y (zeroed) = convtranspose(x, w) + b, types as
 * ox_conv_float; x: (N, C, pos...), w: (C, M / G, ker...), y: (N, M,
 * img...) with y->n > 0. */
int ox_convtranspose_float(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, const ox_tensor *b,
                           int64_t G, const ox_conv_geom *g, ox_tensor *y);

/* img (C, img...) += col (C * nker, (o1 - o0) * pos[last]): col2im of the
 * outer positions [o0, o1) (ops/conv.c), for float, double and the other
 * types Col2Im takes. */
void ox_conv_col2im(const ox_conv_geom *g, int64_t C, ox_dtype dt, void *img, const void *col, int64_t o0,
                    int64_t o1);

/* ConvInteger: y (int32) = conv(x - xz, w - wz), exact modulo 2^32. x and w
 * int8 or uint8, xz one value of x's type, wz NULL or a scalar or one per
 * output channel of w's type; shapes as ox_conv_float. */
int ox_conv_int8(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, int64_t xz, const ox_tensor *wz,
                 int64_t G, const ox_conv_geom *g, ox_tensor *y);

#endif
