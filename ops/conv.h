/* ops/conv.h: what the files of the conv family share (ops/conv.c: the ops,
 * their shapes and the registry rows; ops/conv_paths.c: Conv's and
 * ConvInteger's arithmetic, and col2im). ops/conv.c calls ops/conv_paths.c,
 * never the other way. */
#ifndef OX_OPS_CONV_H
#define OX_OPS_CONV_H

#include "core/gemm.h"
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

/* What Conv and ConvInteger prepare once per model for a constant W
 * (ox_conv_prepack, from their load hook): used by a call only when its input
 * 1 is that tensor (ox_prep_matches) and `gp` is still the current plan
 * (ox_gemm_max_isa may change it), else the call packs its own. */
typedef struct ox_conv_prep {
  const ox_tensor *w; /* the constant W, (M, C / G, ker...) */
  int64_t G;         /* the node's group */
  ox_gemm_plan gp;   /* the micro-kernel pa is packed for */
  /* W_g packed as core/gemm.h's A, group after group, each round_up(M / G,
   * mr) rows: Conv in float (double for double; float16 and bfloat16
   * widened) by ox_sgemm_pack_a, K = C / G * nker (a float K over 2048 in
   * blocks of 256 columns, each packed as an A of its own: ops/conv_paths.c's
   * kblocked); ConvInteger by
   * ox_i8gemm_pack_a as ox_conv_int8 packs it. NULL: not packed (fewer
   * output channels per group than mr: the direct path reads W) */
  const void *pa;
  const int32_t *rowsum; /* ConvInteger: each output channel's sum of its stored weights */
  const float *wf;       /* a float16 or bfloat16 W widened to float when pa is NULL, else NULL */
} ox_conv_prep;

/* *out <- the preparation of a constant W for Conv (integer 0) or
 * ConvInteger (1) of group G, in a's memory; NULL (and 0) when there is
 * nothing to prepare or the shapes are wrong (the kernel says so when it
 * runs); an error only when out of memory. */
int ox_conv_prepack(ox_arena *a, int integer, int64_t G, const ox_tensor *w, const ox_conv_prep **out,
                    ox_err *e);

/* The ways ox_conv_float computes a call (ops/conv_paths.c's header says
 * when each is taken) */
typedef enum {
  OX_CONV_DIRECT = 1, /* fewer output channels per group than the GEMM tile's rows */
  OX_CONV_PLANAR,     /* the same with one input channel per group */
  OX_CONV_GEMV,       /* at most a few output positions */
  OX_CONV_PACKED,     /* the packed GEMM over whole-K tiles of im2col */
  OX_CONV_KBLOCKED,   /* the packed GEMM over a long K, block by block */
  OX_CONV_IN_PLACE,   /* the implicit GEMM, reading X in place */
  OX_CONV_IN_BAND     /* the implicit GEMM over zero-padded copies of bands of X's rows */
} ox_conv_path;

/* What a call of ox_conv_float did: its path, and how many items
 * (core/threads.h's ox_par_for) it cut the work into for the threads */
typedef struct {
  ox_conv_path path;
  int64_t items;
} ox_conv_took;

/* y = conv(x, w) + b for x, w, b of one float type (float, double, float16,
 * bfloat16; the small ones computed in float and rounded once on store).
 * x: (N, C, img...), w: (M, C / G, ker...), b: (M) or NULL, y: (N, M, pos...)
 * with y->n > 0; pp: w's preparation or NULL. The shapes are checked.
 * Splits over the run's threads (c->threads), the same bytes for any count.
 * *took (when took is not NULL) <- what the call did. */
int ox_conv_float(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, const ox_tensor *b, int64_t G,
                  const ox_conv_geom *g, const ox_conv_prep *pp, ox_tensor *y, ox_conv_took *took);

/* ConvTranspose: y (zeroed) = convtranspose(x, w) + b, types as
 * ox_conv_float; x: (N, C, pos...), w: (C, M / G, ker...), y: (N, M,
 * img...) with y->n > 0. */
int ox_convtranspose_float(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, const ox_tensor *b,
                           int64_t G, const ox_conv_geom *g, ox_tensor *y);

/* img (C, img...) += col (C * nker, (o1 - o0) * pos[last]): col2im of the
 * outer positions [o0, o1), for float, double and the other types Col2Im
 * takes (ox_conv_col2im_takes: the native numeric types, complex, bool). */
int ox_conv_col2im_takes(ox_dtype dt);
void ox_conv_col2im(const ox_conv_geom *g, int64_t C, ox_dtype dt, void *img, const void *col, int64_t o0,
                    int64_t o1);

/* ConvInteger: y (int32) = conv(x - xz, w - wz), exact modulo 2^32. x and w
 * int8 or uint8, xz one value of x's type, wz NULL or a scalar or one per
 * output channel of w's type; shapes and pp as ox_conv_float. */
int ox_conv_int8_prep(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, int64_t xz, const ox_tensor *wz,
                      int64_t G, const ox_conv_geom *g, const ox_conv_prep *pp, ox_tensor *y);
/* the same without a preparation (QLinearConv) */
int ox_conv_int8(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, int64_t xz, const ox_tensor *wz,
                 int64_t G, const ox_conv_geom *g, ox_tensor *y);

#endif
