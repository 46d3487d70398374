/* ops/conv_paths.c: the arithmetic of Conv (float and double; float16 and bfloat16
 * computed in float, rounded once on store).
 *
 * One of three, chosen per call from the shapes:
 *
 *  - direct: 1-D and 2-D convolutions with fewer output channels per group
 *    than the GEMM's register tile has rows (depthwise 3x3 and 5x5 at any
 *    stride, a last layer with one output channel), which the GEMM would
 *    pad with rows of zeros. Each input
 *    row is copied once into zero-padded "phase" rows (for stride s, s rows
 *    holding every s-th element), so that every kernel tap reads a
 *    contiguous run; an output row is then one vector loop that keeps its
 *    accumulators in registers over all taps.
 *    One input channel per group (depthwise 3x3 and 5x5 of MobileNets, any
 *    stride): "planar" instead, a channel is copied once, zero-padded, into
 *    sh x sw phase planes (planar_chunk), and a band of output rows whose
 *    windows meet the same input rows is one run over the flattened rows
 *    (row stride the plane's, its last few columns computed and dropped):
 *    every tap is one shift of the run, so that rows of 10 or 20 outputs
 *    fill whole vectors. Each output gets the direct path's operations in
 *    its order (bias, then the taps of the rows inside the image, row by
 *    row, the zeros of the horizontal pads included): the same bytes.
 *  - gemv: at most GEMV_MAX output positions (the 1x1 maps of
 *    squeeze-and-excite blocks): a dot product of each weight row with the
 *    position's column.
 *  - packed GEMM (everything else: 1x1, 3x3, strided, dilated, 1-D with long
 *    kernels, 3-D): the weights are packed once per call into the GEMM's A
 *    layout (core/gemm.h); the im2col columns of a tile of output positions
 *    are written straight into its packed B layout (one copy of the input per
 *    tile, never the whole im2col), then Y_tile = W_g x B_tile. A tile holds
 *    about TILE_BYTES of B, so that it stays in cache while the product
 *    reads it. A long K (more than 2048: kblocked) goes block by block of
 *    256: the weights packed block after block, a tile's im2col one block
 *    at a time. Float compute, stride 1, a kernel of more than one
 *    position and at most 4 slivers of output channels (ocr_det's 3x3 96
 *    -> 24; 8 over an X too large for a padded copy, IS-Net's 128 -> 64
 *    over 512 x 512): the "implicit GEMM" instead (igemm_chunk), a tile
 *    kernel that reads the rows of B as runs of X (no im2col): of X in
 *    place, or, with pads or a small float type, of a zero-padded float
 *    copy of the input rows of a band of output rows at a time; with the
 *    packed product's operations: the same bytes.
 *
 * Spatial axes of length 1 with a kernel of 1 and no padding are dropped
 * first: an (N, C, T, 1) convolution runs as the 1-D one it is.
 *
 * Threads: every path splits into items that each compute whole output
 * elements the same way whatever the split (core/threads.h): the same bytes
 * for any --threads. */
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "core/cpu.h"
#include "core/fuse.h"
#include "core/gemm.h"
#include "core/half.h"
#include "core/threads.h"
#include "ops/conv.h"

#if defined(__clang__)
#pragma clang fp contract(fast)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=fast")
#endif


#define GEMV_MAX 4                 /* output positions the gemv path takes */
#define TILE_BYTES (384 * 1024)    /* packed B per tile */
#define DIRECT_MB 8                /* output channels per direct item */
#define DIRECT_SLACK 64            /* bytes a direct row may read past its end (one vector) */
#define WIDEN_MAX (16 << 20)       /* bytes of a float copy of a float16 X */
#define EPI_ROWS 2048              /* direct: outputs per channel between two epilogue calls */
#define PACK_TAPS 32               /* kernel positions pack_cols handles at once */
#define PF_AHEAD 2                 /* pack_cols: channels between a prefetch and its copy */
#define KBLOCK 256                 /* core/gemm.c's KC: where each element's sum restarts from C */
#define PLANAR_BAND 2048           /* planar: outputs (with the dropped columns) per run */
#define PLANAR_MAX (4 << 20)       /* planar: bytes of a padded plane */
#define PAD_MAX (64 << 20)         /* bytes of a zero-padded copy of X (pad_input) */
#define BAND_BYTES (1 << 20)       /* implicit GEMM in bands: bytes of a band's copy */
#define BAND_MIN 4                 /* implicit GEMM in bands: output rows per band at least */
#define BAND_MAX (16 << 20)        /* implicit GEMM in bands: bytes of a band's copy at most */

typedef float v4f __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));


/* 64-byte aligned scratch of n bytes, counted against --max-memory and
 * pooled (ox_mem_scratch); *raw is the block this call owns, which
 * ox_mem_scratch_free takes (NULL where a prepacked one is used instead). */
static void *scratch(size_t n, void **raw) { return *raw = ox_mem_scratch(n); }

/* ---- element runs: the one place that reads X's type ---- */

/* n bytes of v, and a copy: inline for the short runs of pack_cols, where
 * a call to the C library costs more than the copy */
static inline void fill_bytes(char *d, size_t n, uint8_t v) {
  if (n > 256) {
    memset(d, v, n);
    return;
  }
  size_t i = 0;
  for (; i + 16 <= n; i += 16) memset(d + i, v, 16);
  for (; i + 4 <= n; i += 4) memset(d + i, v, 4);
  for (; i < n; i++) d[i] = (char)v;
}
static inline void zero_bytes(char *d, size_t n) { fill_bytes(d, n, 0); }
static inline void copy_bytes(char *d, const char *s, size_t n) {
  if (n > 256) {
    memcpy(d, s, n);
    return;
  }
  size_t i = 0;
  for (; i + 16 <= n; i += 16) memcpy(d + i, s + i, 16);
  for (; i + 4 <= n; i += 4) memcpy(d + i, s + i, 4);
  for (; i < n; i++) d[i] = s[i];
}

/* Into L1: the first and last line of the runs of n bytes at src[q] + off,
 * q in [q0, q1) (NULL ones skipped): pack_cols asks for a channel's taps
 * PF_AHEAD channels before it copies them. Their lines are planes apart,
 * beyond what the hardware's prefetchers follow; copying without this
 * stalled on each new line (IS-Net's 64 -> 16 over 512 x 512: 10% of the
 * Conv's time, 256 -> 64 over 256 x 256 8%). */
static inline void prefetch_taps(const char *const *src, int64_t q0, int64_t q1, size_t off, size_t n) {
  for (int64_t q = q0; q < q1; q++)
    if (src[q] && n) {
      __builtin_prefetch(src[q] + off, 0, 3);
      __builtin_prefetch(src[q] + off + n - 1, 0, 3);
    }
}

/* For each of count channels (cstep bytes apart in X), nk taps' runs of n
 * bytes: d <- src[q] + ci * cstep, d advancing by dstep, and by skip more
 * after each channel; the sizes of a whole sliver (8, 16 or 48 floats; 4, 8
 * or 24 doubles) as constants, so that the copies are inline vector moves */
static inline void copy_taps(char *d, size_t dstep, size_t skip, const char *const *src, int64_t nk,
                             size_t cstep, int64_t c0, int64_t count, size_t n) {
#define TAPS(N)                                                                       \
  for (int64_t ci = c0; ci < c0 + count; ci++, d += skip) {                           \
    if (ci + PF_AHEAD < c0 + count) prefetch_taps(src, 0, nk, (size_t)(ci + PF_AHEAD) * cstep, N); \
    for (int64_t q = 0; q < nk; q++, d += dstep) memcpy(d, src[q] + ci * cstep, N);   \
  }                                                                                   \
  return;
  if (n == 32) { TAPS(32) }
  if (n == 64) { TAPS(64) }
  if (n == 128) { TAPS(128) } /* a row of 32 floats (wake word nets' maps) */
  if (n == 192) { TAPS(192) }
#undef TAPS
  for (int64_t ci = c0; ci < c0 + count; ci++, d += skip) {
    if (ci + PF_AHEAD < c0 + count) prefetch_taps(src, 0, nk, (size_t)(ci + PF_AHEAD) * cstep, n);
    for (int64_t q = 0; q < nk; q++, d += dstep) copy_bytes(d, src[q] + ci * cstep, n);
  }
}

/* dst[i] = (compute type) src[i * s] for i < n: dst is float, or double for
 * double sources, or uint8 for 8-bit integers */
static void load_run(ox_dtype dt, const char *src, int64_t s, int64_t n, char *dst) {
  if (n <= 0) return;
  switch (dt) {
  case OX_FLOAT:
    if (s == 1) copy_bytes(dst, src, (size_t)n * 4);
    else {
      const float *x = (const float *)src;
      float *d = (float *)dst;
      int64_t i = 0;
#if defined(__SSE2__)
      if (s == 2) /* the even ones of 8 at a time (reading x[2i + 7] < x[2n - 1]) */
        for (; i + 5 <= n; i += 4)
          _mm_storeu_ps(d + i, _mm_shuffle_ps(_mm_loadu_ps(x + 2 * i), _mm_loadu_ps(x + 2 * i + 4),
                                              _MM_SHUFFLE(2, 0, 2, 0)));
#endif
      for (; i < n; i++) d[i] = x[i * s];
    }
    break;
  case OX_DOUBLE:
    if (s == 1) copy_bytes(dst, src, (size_t)n * 8);
    else {
      const double *x = (const double *)src;
      double *d = (double *)dst;
      for (int64_t i = 0; i < n; i++) d[i] = x[i * s];
    }
    break;
  case OX_UINT8: /* ConvInteger's x, which the product reads unsigned */
    if (s == 1) copy_bytes(dst, src, (size_t)n);
    else
      for (int64_t i = 0; i < n; i++) dst[i] = src[i * s];
    break;
  case OX_INT8: /* as uint8 x + 128 */
    for (int64_t i = 0; i < n; i++) dst[i] = (char)((uint8_t)src[i * s] ^ 0x80);
    break;
  case OX_FLOAT16: {
    const uint16_t *x = (const uint16_t *)src;
    float *d = (float *)dst;
    if (s == 1) ox_f16_to_f32_n(x, d, n);
    else
      for (int64_t i = 0; i < n; i++) d[i] = ox_f16_to_f32(x[i * s]);
    break;
  }
  default: { /* BFLOAT16 */
    const uint16_t *x = (const uint16_t *)src;
    float *d = (float *)dst;
    for (int64_t i = 0; i < n; i++) d[i] = ox_bf16_to_f32(x[i * s]);
    break;
  }
  }
}

/* y[i] = src[i] rounded once to y's small float type */
static void store_row(ox_dtype dt, char *y, const float *src, int64_t n) {
  uint16_t *d = (uint16_t *)y;
  if (dt == OX_FLOAT16)
    ox_f32_to_f16_n(src, d, n);
  else
    for (int64_t i = 0; i < n; i++) d[i] = ox_f32_to_bf16(src[i]);
}

/* ---- the call's plan ---- */

typedef struct {
  const ox_conv_geom *g;
  ox_dtype dt, ct;   /* X's type; the compute type (float, double; uint8 for ConvInteger) */
  ox_dtype yt;       /* Y's type (Conv: X's, unless X was widened to float) */
  size_t ys;         /* its size */
  uint8_t pad;       /* the byte im2col pads with: 0, or ConvInteger's x zero point */
  size_t xs, es;     /* their sizes */
  int level;         /* core/cpu.h's level (GEMM's cap applies) */
  ox_gemm_plan gp;
  const char *x;     /* x: (N, C, img...) */
  const char *w;     /* w: (M, Cg * nker) in the compute type */
  const char *b;     /* b: (M) in the compute type, or NULL */
  char *y;           /* y: (N, M, pos...) of type dt */
  int64_t N, C, M, G, Cg, Mg, K, P; /* K = Cg * nker, P = npos */
  /* packed GEMM */
  const char *pa;    /* the weights, group after group, each round_up(Mg, mr) x K (pack_weights) */
  int64_t nc, ntiles; /* packed GEMM: the widest tile's columns; tiles per image and group */
  int64_t mparts;     /* packed GEMM: parts of a group's output channels, each its own item */
  int64_t kblk;       /* packed GEMM: rows of B packed at once (K, or KBLOCK: kblocked) */
  int64_t *packed;    /* packed GEMM, per slot: the tile its buffer holds (-1: none) */
  int64_t nsl;        /* slivers of nr columns over P, spread evenly over the tiles (tile_cols) */
  const int64_t *tap; /* per kernel position: its index on each axis but the last,
                       * then the offset and the valid positions [lo, hi) on the last */
  int64_t istr[OX_CONV_MAXSP]; /* X's strides over the spatial axes */
  /* direct */
  int64_t H, Wi, Ho, Wo, kh, kw, sh, sw, dh, dw, ph, pw, Lph, mblocks;
  int64_t Wp; /* planar: the phase planes' row length (their rows: Lph);
               * implicit GEMM: the (padded) image's row length */
  int64_t bplane; /* implicit GEMM in bands: floats per channel of a band's
                   * copy (brows + (kh - 1) dh rows of Wp); 0: X in place */
  /* implicit GEMM: per row k of B, where X_g's flattened image holds it
   * (kofs, K of them); the image's rows (Wp long); implicit GEMM and
   * direct: bands of brows output rows per item, nbands per image and
   * group (direct: and block of channels) */
  int64_t brows, nbands;
  int64_t mblock; /* ConvTranspose: output channels per item */
  int64_t rtiles; /* ConvTranspose: its tiles of input rows, one per item; 0: all in one item */
  const int64_t *kofs; /* per kx: where its run starts within an input row's phase rows;
                        * planar: per tap, where output row 0 finds it (planar_chunk) */
  const int64_t *phase; /* per phase f: the part [a, z) of its row inside the input;
                         * planar: then per output row, its kernel rows [k0, k1) */
  /* ConvInteger: per output channel, its weights' zero point (moved as
   * gemm.h says) and the constant part of the zero-point terms */
  const int32_t *wz, *rowconst;
  const ox_conv_prep *prep; /* W prepared once per model, or NULL */
  int colsum; /* whether some wz is not zero: the terms need column sums */
  const ox_epi_bound *epi; /* float or float16 Conv: the followers applied to each finished row, or NULL */
  int late_bias;           /* packed GEMM, float, with followers: the bias added by them
                              (ox_epi_rows_bias), not filled into Y first (no bias NaN) */
  /* per thread (slot) scratch */
  char **buf;
  const char ***ptrs;
  char **wts;
} plan;

static int is_small(ox_dtype dt) { return dt != OX_FLOAT && dt != OX_DOUBLE; }

/* The fused followers (core/fuse.h) on n outputs of Y from element off on
 * (image img, channel ch, position pos0 in it): in place on a float Y; a
 * float16 Y's widened a chunk at a time, the steps run on them (rounding
 * as their unfused kernels do, ox_epi_rows) and narrowed back, exactly:
 * every step's result is already a float16's */
static void epi_y(const plan *p, int64_t off, int64_t n, int64_t img, int64_t ch, int64_t pos0) {
  if (!is_small(p->yt)) {
    ox_epi_rows(p->epi, (float *)p->y + off, n, img, ch, pos0);
    return;
  }
  float buf[512];
  for (int64_t j = 0; j < n; j += 512) {
    int64_t m = ox_min64(512, n - j);
    ox_widen_f32_n(p->yt, p->y, off + j, m, buf);
    ox_epi_rows(p->epi, buf, m, img, ch, pos0 + j);
    ox_narrow_f32_n(buf, m, p->yt, p->y, off + j);
  }
}

/* Whether a float product of K > 8 KBLOCK runs block by block of K (the
 * packed GEMM's "kblocked" mode): per tile of output positions, the im2col
 * rows of one KBLOCK block are packed, then multiplied by that block of the
 * weights (packed block after block, pack_weights) and added into Y, so
 * that both operands stay in L2 however long K is (a 3x3 Conv over 1024
 * channels: K 9216, whose weights are 9.4 MB and whose whole-K tile of
 * B was one sliver of 48 columns, 1.7 MB, the weights read from L3 for
 * every tile). Each element gets the operations of the whole-K product:
 * core/gemm.c's micro-kernel also restarts its sums from C every KBLOCK.
 * Shorter K keeps the whole-K tiles, whose Y is written once and whose next
 * tile's input is prefetched: blocked, a 3x3 Conv over 64 channels (K 576,
 * a last block of 64) took some 5% longer, over 128 (K 1152) 64 -> 64 and
 * 128 -> 256 the same to 4% longer; over 256 (K 2304, 256 x 256 -> 64)
 * 3% less, and 1024 -> 256 (64 x 64) 23% less. */
static int kblocked(ox_dtype ct, int64_t K) { return ct == OX_FLOAT && K > 8 * KBLOCK; }

/* ---- packed im2col ----
 * pb <- rows [ka, kb) and columns [j0, j0 + nc) of im2col(X_g) as
 * ceil(nc / nr) slivers of nr columns by kb - ka rows (core/gemm.h's B
 * layout; row k = ci * nker + kernel position). Columns run along the last
 * axis in pieces that stay within one row of output positions and one
 * sliver; each piece has one valid range per kernel position, shared by all
 * Cg channels. */
static void pack_cols(const plan *p, const char *xg, int64_t j0, int64_t nc, int64_t nr, int64_t ka, int64_t kb,
                      char *pb) {
  const ox_conv_geom *g = p->g;
  int nd = g->nd, L = nd - 1;
  int64_t W = g->pos[L], s = g->s[L], K = kb - ka, nker = g->nker, T = nd + 2;
  /* the channels the rows meet, and those they hold whole */
  int64_t c0 = ka / nker, c1 = ox_ceil_div(kb, nker), cf0 = ox_ceil_div(ka, nker), cf1 = kb / nker;
  size_t es = p->es, xs = p->xs, cstep = (size_t)g->nimg * xs;
  int same = s == 1 && p->dt == p->ct;
  for (int64_t j = j0; j < j0 + nc;) {
    int64_t o = j / W, ox = j % W, js = (j - j0) / nr, lane = (j - j0) % nr;
    int64_t end = ox_min64(ox_min64(j0 + nc, (o + 1) * W), j0 + (js + 1) * nr), n = end - j;
    int64_t oidx[OX_CONV_MAXSP], r = o;
    for (int a = L - 1; a >= 0; a--) oidx[a] = r % g->pos[a], r /= g->pos[a];
    /* Channel by channel, and within a channel tap by tap (a block of taps
     * at a time): the writes run in order (row ci * nker + kp), and the
     * taps of one channel, which read the same few lines of X, find them in
     * L1. Tap by tap over all channels would read every channel's lines
     * between two taps of one, and channels a power of two of bytes apart
     * (a 256x256 float map: 256 KiB) share cache sets, so they evict each
     * other and each tap reads its lines again from L3. */
    for (int64_t k0 = 0; k0 < nker; k0 += PACK_TAPS) {
      int64_t nk = ox_min64(PACK_TAPS, nker - k0), lo[PACK_TAPS], hi[PACK_TAPS];
      const char *src[PACK_TAPS];
      int whole = same;
      for (int64_t q = 0; q < nk; q++) {
        const int64_t *t = p->tap + (k0 + q) * T;
        int64_t base = 0, l = ox_min64(ox_max64(t[L + 1], ox), ox + n), h = ox_min64(t[L + 2], ox + n);
        for (int a = 0; a < L; a++) {
          int64_t i = oidx[a] * g->s[a] + t[a] * g->d[a] - g->pb[a];
          if (i < 0 || i >= g->img[a]) h = l;
          base += i * p->istr[a];
        }
        if (h < l) h = l;
        lo[q] = l, hi[q] = h;
        src[q] = h > l ? xg + (size_t)(base + l * s + t[L]) * xs : NULL;
        whole &= l == ox && h == ox + n;
      }
      size_t dstep = (size_t)nr * es, skip = (size_t)((nker - nk) * nr) * es;
      if (whole && cf1 > cf0)
        /* the common case: every tap's run inside the image, the same type:
         * plain copies, of a size the compiler sees for whole slivers */
        copy_taps(pb + (size_t)((js * K + cf0 * nker + k0 - ka) * nr + lane) * es, dstep, skip, src, nk, cstep,
                  cf0, cf1 - cf0, (size_t)n * es);
      for (int64_t ci = c0; ci < c1; ci++) {
        if (whole && ci >= cf0 && ci < cf1) continue;
        /* the taps [qa, qb) of this block whose rows are in [ka, kb) */
        int64_t r0 = ci * nker + k0, qa = ox_max64(ka - r0, 0), qb = ox_min64(kb - r0, nk);
        char *d = pb + (size_t)((js * K + r0 + qa - ka) * nr + lane) * es;
        size_t off = (size_t)ci * cstep;
        if (ci + PF_AHEAD < c1) prefetch_taps(src, qa, qb, (size_t)(ci + PF_AHEAD) * cstep, (size_t)n * xs * s);
        for (int64_t q = qa; q < qb; q++, d += dstep) {
          size_t pre = (size_t)(lo[q] - ox) * es, mid = (size_t)(hi[q] - lo[q]) * es;
          fill_bytes(d, pre, p->pad);
          if (src[q] && same) copy_bytes(d + pre, src[q] + off, mid);
          else if (src[q]) load_run(p->dt, src[q] + off, s, hi[q] - lo[q], d + pre);
          fill_bytes(d + pre + mid, (size_t)(ox + n - hi[q]) * es, p->pad);
        }
      }
    }
    j = end;
  }
  if (nc % nr) { /* the last sliver's columns past nc */
    int64_t js = nc / nr, used = nc % nr;
    for (int64_t k = 0; k < K; k++)
      memset(pb + (size_t)((js * K + k) * nr + used) * es, 0, (size_t)(nr - used) * es);
  }
}

/* Prefetch (into L2) what pack_cols(p, xg, j0, nc, ...) will read, for
 * channels [c0, c1): the lines of each tap's run, once per input row (the
 * taps along the last axis share them). */
static void prefetch_cols(const plan *p, const char *xg, int64_t j0, int64_t nc, int64_t c0, int64_t c1) {
  const ox_conv_geom *g = p->g;
  int nd = g->nd, L = nd - 1;
  int64_t W = g->pos[L], s = g->s[L], nker = g->nker, T = nd + 2, kw = g->ker[L];
  size_t xs = p->xs;
  for (int64_t j = j0; j < j0 + nc;) {
    int64_t o = j / W, ox = j % W, end = ox_min64(j0 + nc, (o + 1) * W), n = end - j;
    int64_t oidx[OX_CONV_MAXSP], r = o;
    for (int a = L - 1; a >= 0; a--) oidx[a] = r % g->pos[a], r /= g->pos[a];
    for (int64_t kp = 0; kp < nker; kp += kw) { /* the first tap of each row of the kernel */
      const int64_t *t = p->tap + kp * T;
      int64_t base = 0, ok = 1;
      for (int a = 0; a < L; a++) {
        int64_t i = oidx[a] * g->s[a] + t[a] * g->d[a] - g->pb[a];
        if (i < 0 || i >= g->img[a]) ok = 0;
        base += i * p->istr[a];
      }
      if (!ok) continue;
      int64_t lo = ox_max64(ox * s - g->pb[L], 0), hi = ox_min64((ox + n - 1) * s - g->pb[L] + (kw - 1) * g->d[L] + 1, g->img[L]);
      if (hi <= lo) continue;
      for (int64_t ci = c0; ci < c1; ci++) {
        const char *a = xg + (size_t)(ci * g->nimg + base + lo) * xs, *z = a + (size_t)(hi - lo) * xs;
        for (a = (const char *)((uintptr_t)a & ~(uintptr_t)63); a < z; a += 64) __builtin_prefetch(a, 0, 2);
      }
    }
    j = end;
  }
}

/* rows m of c (ldc apart, n columns) = bias[m], or nothing when no bias */
static void fill_bias(const plan *p, char *c, int64_t ldc, const char *bias, int64_t rows, int64_t n) {
  for (int64_t m = 0; m < rows; m++) {
    if (p->ct == OX_FLOAT) {
      float v = ((const float *)bias)[m], *r = (float *)c + m * ldc;
      v4f vv = (v4f){0} + v;
      int64_t j = 0;
      for (; j + 4 <= n; j += 4) memcpy(r + j, &vv, sizeof vv);
      for (; j < n; j++) r[j] = v;
    } else {
      double v = ((const double *)bias)[m], *r = (double *)c + m * ldc;
      for (int64_t j = 0; j < n; j++) r[j] = v;
    }
  }
}

/* Tiles of whole slivers of nr output positions, about TILE_BYTES of packed
 * B each (bytes per column: colbytes), or more tiles when that leaves
 * threads idle; the slivers spread evenly over the tiles (tile_cols), so
 * that two threads get equal shares of, say, 10 slivers in 4 tiles. With
 * too few slivers for that (a 1 x 40 map is one sliver of 48), the output
 * channels split instead, in parts of whole mr-row slivers. */
static void plan_tiles(plan *p, int run_threads, int64_t nr, int64_t colbytes, double work) {
  /* colbytes is 0 when there are no input channels: one tile */
  int64_t per = ox_max64(TILE_BYTES / ox_max64(colbytes, 1) / nr, 1); /* slivers per tile */
  p->nsl = ox_ceil_div(p->P, nr);
  p->ntiles = ox_ceil_div(p->nsl, per);
  p->mparts = 1;
  int threads = ox_threads_of(run_threads);
  int64_t msl = ox_ceil_div(p->Mg, p->gp.mr);
  if (ox_par_worth(run_threads, work) && p->N * p->G * p->nsl < 4 * threads && msl > 1)
    p->mparts = ox_min64(msl, 2 * threads);
  else if (ox_par_worth(run_threads, work) && p->N * p->G < 2 * threads)
    p->ntiles = ox_max64(p->ntiles, ox_min64(p->nsl, ox_ceil_div(2 * threads, p->N * p->G)));
  /* few items: a count the threads share evenly (a 1x1 Conv over 80 x 80 is
   * 5 tiles, 3 + 2 on two threads; 6 are 3 + 3) */
  int64_t per_tile = p->N * p->G * p->mparts;
  if (ox_par_worth(run_threads, work) && per_tile * p->ntiles < 8 * threads)
    for (int64_t t = p->ntiles; t <= p->nsl && t < p->ntiles + threads; t++)
      if (per_tile * t % threads == 0) {
        p->ntiles = t;
        break;
      }
  p->nc = ox_ceil_div(p->nsl, p->ntiles) * nr;
}

/* Tile t's columns: [*j0, *j0 + *nc), slivers [t nsl / ntiles, (t + 1) nsl /
 * ntiles); a column's arithmetic does not depend on its tile */
static void tile_cols(const plan *p, int64_t t, int64_t *j0, int64_t *nc) {
  int64_t nr = p->gp.nr, s0 = t * p->nsl / p->ntiles, s1 = (t + 1) * p->nsl / p->ntiles;
  *j0 = s0 * nr;
  *nc = ox_min64(s1 * nr, p->P) - *j0;
}

/* item t: part t % mparts of the output channels, tile t / mparts %
 * ntiles of group (t / mparts / ntiles) % G of image t / (mparts * ntiles *
 * G); a tile already in the slot's buffer is not packed again. Each element
 * is computed alike in any part or tile. */
static void gemm_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  size_t es = p->es, xs = p->xs;
  int64_t nr = p->gp.nr, mr = p->gp.mr, msl = ox_ceil_div(p->Mg, mr);
  char *pb = p->buf[slot];
  char *ctile = pb + (size_t)(p->kblk * ox_ceil_div(p->nc, nr) * nr) * es; /* small floats only */
  for (int64_t t = lo; t < hi; t++) {
    int64_t part = t % p->mparts, u = t / p->mparts;
    int64_t tile = u % p->ntiles, gi = u / p->ntiles % p->G, n = u / p->ntiles / p->G;
    int64_t j0, nc;
    tile_cols(p, tile, &j0, &nc);
    if (p->kblk < p->K) { /* kblocked */
      int64_t m0 = part * msl / p->mparts * mr, m1 = ox_min64((part + 1) * msl / p->mparts * mr, p->Mg);
      char *yt = p->y + (size_t)((n * p->M + gi * p->Mg + m0) * p->P + j0) * p->ys;
      float *c = is_small(p->yt) ? (float *)ctile : (float *)yt;
      int64_t ldc = is_small(p->yt) ? nc : p->P;
      if (p->b) fill_bias(p, (char *)c, ldc, p->b + (size_t)(gi * p->Mg + m0) * es, m1 - m0, nc);
      const char *xg = p->x + (size_t)((n * p->C + gi * p->Cg) * p->g->nimg) * xs;
      const float *pag = (const float *)p->pa + gi * msl * mr * p->K;
      for (int64_t k0 = 0; k0 < p->K; k0 += KBLOCK) {
        int64_t kc = ox_min64(KBLOCK, p->K - k0);
        pack_cols(p, xg, j0, nc, nr, k0, k0 + kc, pb);
        /* the next block's channels into L2 while this block's product runs */
        if (k0 + kc < p->K)
          prefetch_cols(p, xg, j0, nc, (k0 + kc) / p->g->nker,
                        ox_min64(ox_ceil_div(ox_min64(k0 + 2 * kc, p->K), p->g->nker), p->Cg));
        /* beta: the first block onto the bias (or into nothing), the rest onto the sum so far */
        ox_sgemm_packed(&p->gp, m1 - m0, nc, kc, pag + msl * mr * k0 + m0 * kc, (const float *)pb, c, ldc,
                        (k0 || p->b) ? 1 : 0);
      }
      for (int64_t m = 0; p->epi && m < m1 - m0; m++)
        ox_epi_rows(p->epi, c + m * ldc, nc, n, gi * p->Mg + m0 + m, j0);
      if (is_small(p->yt))
        for (int64_t m = 0; m < m1 - m0; m++) store_row(p->yt, yt + (size_t)(m * p->P) * p->ys, c + m * ldc, nc);
      continue;
    }
    if (p->packed[slot] != u) {
      pack_cols(p, p->x + (size_t)((n * p->C + gi * p->Cg) * p->g->nimg) * xs, j0, nc, nr, 0, p->K, pb);
      p->packed[slot] = u;
    }
    /* rows [m0, m1): whole mr-row slivers of the packed weights */
    int64_t m0 = part * msl / p->mparts * mr, m1 = ox_min64((part + 1) * msl / p->mparts * mr, p->Mg);
    char *yt = p->y + (size_t)((n * p->M + gi * p->Mg + m0) * p->P + j0) * p->ys;
    char *c = is_small(p->yt) ? ctile : yt;
    int64_t ldc = is_small(p->yt) ? nc : p->P;
    /* the bias: filled in for the product to add (beta 1), or late: added
     * by the followers' pass (the product's acc + bias, the same bits) */
    int late = p->late_bias && p->ct == OX_FLOAT;
    const float *bias = late ? (const float *)p->b + gi * p->Mg + m0 : NULL;
    float beta = p->b && !late ? 1 : 0;
    if (p->b && !late) fill_bias(p, c, ldc, p->b + (size_t)(gi * p->Mg + m0) * es, m1 - m0, nc);
    const char *pa = p->pa + (size_t)((gi * msl * mr + m0) * p->K) * es;
    int64_t nu = (t + 1) / p->mparts; /* the next item's tile */
    if (p->ct == OX_FLOAT && t + 1 < hi && nu != u && nu % p->ntiles) {
      /* the product in blocks of rows, the next tile's input fetched between them */
      int64_t ms = ox_ceil_div(m1 - m0, mr), nb = ox_min64(ms, 4), nj0, nnc;
      tile_cols(p, tile + 1, &nj0, &nnc);
      const char *xg = p->x + (size_t)((n * p->C + gi * p->Cg) * p->g->nimg) * xs;
      for (int64_t bl = 0; bl < nb; bl++) {
        int64_t b0 = ms * bl / nb * mr, b1 = ox_min64(ms * (bl + 1) / nb * mr, m1 - m0);
        prefetch_cols(p, xg, nj0, nnc, p->Cg * bl / nb, p->Cg * (bl + 1) / nb);
        ox_sgemm_packed(&p->gp, b1 - b0, nc, p->K, (const float *)pa + b0 * p->K, (const float *)pb,
                        (float *)c + b0 * ldc, ldc, beta);
        for (int64_t m = b0; p->epi && m < b1; m++) { /* the block's rows, while they are in cache */
          if (bias) ox_epi_rows_bias(p->epi, (float *)c + m * ldc, nc, n, gi * p->Mg + m0 + m, j0, bias[m]);
          else ox_epi_rows(p->epi, (float *)c + m * ldc, nc, n, gi * p->Mg + m0 + m, j0);
        }
      }
    } else if (p->ct == OX_FLOAT) {
      ox_sgemm_packed(&p->gp, m1 - m0, nc, p->K, (const float *)pa, (const float *)pb, (float *)c, ldc, beta);
      for (int64_t m = 0; p->epi && m < m1 - m0; m++) {
        if (bias) ox_epi_rows_bias(p->epi, (float *)c + m * ldc, nc, n, gi * p->Mg + m0 + m, j0, bias[m]);
        else ox_epi_rows(p->epi, (float *)c + m * ldc, nc, n, gi * p->Mg + m0 + m, j0);
      }
    } else
      ox_dgemm_packed(&p->gp, m1 - m0, nc, p->K, (const double *)pa, (const double *)pb, (double *)c,
                      ldc, p->b ? 1 : 0);
    if (is_small(p->yt))
      for (int64_t m = 0; m < m1 - m0; m++)
        store_row(p->yt, yt + (size_t)(m * p->P) * p->ys, (const float *)c + m * ldc, nc);
  }
}

/* ---- gemv ---- */

typedef float v8f __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));

/* sum of a[k] * b[k] in a fixed order: VL running sums, added up lane by
 * lane, then the tail. On the SSE2 baseline GCC splits each 32-byte vector
 * in two and keeps the sums on the stack (Silero VAD's Convs spent 3/4 of
 * their time in those loads and stores); the AVX2 build of the same lanes
 * is compiled without FMA (GCC would contract acc += x * y into one
 * rounding), so it gives the baseline's bytes. */
#define DOT_FN(SUF, T, V, TARGET)                                                     \
  TARGET static T dot_##SUF(const T *a, const T *b, int64_t n) {                       \
    enum { VL = sizeof(V) / sizeof(T) };                                              \
    V acc = {0};                                                                      \
    int64_t k = 0;                                                                    \
    for (; k + VL <= n; k += VL) {                                                    \
      V x, y;                                                                         \
      memcpy(&x, a + k, sizeof x);                                                    \
      memcpy(&y, b + k, sizeof y);                                                    \
      acc += x * y;                                                                   \
    }                                                                                 \
    T s = 0;                                                                          \
    for (int l = 0; l < VL; l++) s += acc[l];                                         \
    for (; k < n; k++) s += a[k] * b[k];                                              \
    return s;                                                                         \
  }
DOT_FN(f32, float, v8f, )
DOT_FN(f64, double, v4d, )
#if OX_X86_DISPATCH
DOT_FN(f32_avx2, float, v8f, __attribute__((target("avx2"))))
DOT_FN(f64_avx2, double, v4d, __attribute__((target("avx2"))))
#endif
#undef DOT_FN

/* the dot products for p's CPU level: the same bytes at every level */
static float dot_f32_at(const plan *p, const float *a, const float *b, int64_t n) {
#if OX_X86_DISPATCH
  if (p->level >= OX_CPU_AVX2) return dot_f32_avx2(a, b, n);
#endif
  return dot_f32(a, b, n);
}

static double dot_f64_at(const plan *p, const double *a, const double *b, int64_t n) {
#if OX_X86_DISPATCH
  if (p->level >= OX_CPU_AVX2) return dot_f64_avx2(a, b, n);
#endif
  return dot_f64(a, b, n);
}

/* item t: group t % G of image t / G, every position and output channel */
static void gemv_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  size_t es = p->es, xs = p->xs;
  char *col = p->buf[slot];
  for (int64_t t = lo; t < hi; t++) {
    int64_t gi = t % p->G, n = t / p->G;
    const char *xg = p->x + (size_t)((n * p->C + gi * p->Cg) * p->g->nimg) * xs;
    for (int64_t j = 0; j < p->P; j++) {
      pack_cols(p, xg, j, 1, 1, 0, p->K, col);
      for (int64_t m = 0; m < p->Mg; m++) {
        int64_t om = gi * p->Mg + m, yi = (n * p->M + om) * p->P + j;
        const char *wr = p->w + (size_t)(om * p->K) * es;
        if (p->ct == OX_DOUBLE) {
          double v = dot_f64_at(p, (const double *)wr, (const double *)col, p->K);
          ((double *)p->y)[yi] = p->b ? ((const double *)p->b)[om] + v : v;
        } else {
          float v = dot_f32_at(p, (const float *)wr, (const float *)col, p->K);
          v = p->b ? ((const float *)p->b)[om] + v : v;
          if (p->yt == OX_FLOAT) ((float *)p->y)[yi] = v;
          else store_row(p->yt, p->y + (size_t)yi * p->ys, &v, 1);
        }
      }
    }
    for (int64_t m = 0; p->epi && m < p->Mg; m++) {
      int64_t om = gi * p->Mg + m;
      epi_y(p, (n * p->M + om) * p->P, p->P, n, om, 0);
    }
  }
}

/* ---- direct ---- */

/* y[x] = b + sum over taps t of w[t] * src[t][x], x < n: vectors of two
 * widths, then one more vector for the rest (each x always the same way for
 * a given n). Reads up to DIRECT_SLACK bytes past src[t] + n. */
#define DIRECT_ROW(SUF, T, V, TARGET)                                                 \
  TARGET static void direct_row_##SUF(T *y, int64_t n, int nt, const T *const *src,    \
                                      const T *w, T b) {                              \
    enum { VL = sizeof(V) / sizeof(T) };                                              \
    int64_t x = 0;                                                                    \
    for (; x + 2 * VL <= n; x += 2 * VL) {                                            \
      V a0 = (V){0} + b, a1 = a0;                                                     \
      for (int t = 0; t < nt; t++) {                                                  \
        V s0, s1;                                                                     \
        memcpy(&s0, src[t] + x, sizeof s0);                                           \
        memcpy(&s1, src[t] + x + VL, sizeof s1);                                      \
        a0 += w[t] * s0;                                                              \
        a1 += w[t] * s1;                                                              \
      }                                                                               \
      memcpy(y + x, &a0, sizeof a0);                                                  \
      memcpy(y + x + VL, &a1, sizeof a1);                                             \
    }                                                                                 \
    /* then one vector at a time; the last one (n - x < VL) reads into the     \
     * slack past the rows (direct_chunk's buffer) and stores its lanes < n */  \
    for (; x < n; x += VL) {                                                          \
      V a0 = (V){0} + b;                                                              \
      for (int t = 0; t < nt; t++) {                                                  \
        V s0;                                                                         \
        memcpy(&s0, src[t] + x, sizeof s0);                                           \
        a0 += w[t] * s0;                                                              \
      }                                                                               \
      memcpy(y + x, &a0, (size_t)(n - x < VL ? n - x : VL) * sizeof(T));              \
    }                                                                                 \
  }

DIRECT_ROW(f32_generic, float, v4f, )
DIRECT_ROW(f64_generic, double, v2d, )
#if OX_X86_DISPATCH
typedef float v16f __attribute__((vector_size(64)));
typedef double v8d __attribute__((vector_size(64)));
DIRECT_ROW(f32_avx2, float, v8f, OX_TARGET_AVX2)
DIRECT_ROW(f64_avx2, double, v4d, OX_TARGET_AVX2)
DIRECT_ROW(f32_avx512, float, v16f, OX_TARGET_AVX512)
DIRECT_ROW(f64_avx512, double, v8d, OX_TARGET_AVX512)
#endif
#undef DIRECT_ROW

static void direct_row(const plan *p, char *y, int64_t n, int nt, const char *const *src, const char *w,
                       const char *b) {
  if (p->ct == OX_FLOAT) {
    const float *const *s = (const float *const *)src;
    float bv = b ? *(const float *)b : 0;
#if OX_X86_DISPATCH
    if (p->level == OX_CPU_AVX512) return direct_row_f32_avx512((float *)y, n, nt, s, (const float *)w, bv);
    if (p->level == OX_CPU_AVX2) return direct_row_f32_avx2((float *)y, n, nt, s, (const float *)w, bv);
#endif
    direct_row_f32_generic((float *)y, n, nt, s, (const float *)w, bv);
  } else {
    const double *const *s = (const double *const *)src;
    double bv = b ? *(const double *)b : 0;
#if OX_X86_DISPATCH
    if (p->level == OX_CPU_AVX512) return direct_row_f64_avx512((double *)y, n, nt, s, (const double *)w, bv);
    if (p->level == OX_CPU_AVX2) return direct_row_f64_avx2((double *)y, n, nt, s, (const double *)w, bv);
#endif
    direct_row_f64_generic((double *)y, n, nt, s, (const double *)w, bv);
  }
}

/* Phase row f of input row iy of channel plane x (H, Wi): r[i] =
 * x[iy][i * sw + f - pw] for i < Lph, zero where that falls outside the row. */
static void phase_row(const plan *p, const char *x, int64_t iy, int64_t f, char *r) {
  size_t es = p->es;
  int64_t a = p->phase[2 * f], z = p->phase[2 * f + 1];
  zero_bytes(r, (size_t)a * es);
  if (z > a)
    load_run(p->dt, x + (size_t)(iy * p->Wi + a * p->sw + f - p->pw) * p->xs, p->sw, z - a, r + (size_t)a * es);
  zero_bytes(r + (size_t)z * es, (size_t)(p->Lph - z) * es);
}

/* Output rows per band, where an item is a band of one of `units` (image,
 * group, ...) of `rows` output rows, `per_row` outputs each: about `target`
 * outputs, or fewer rows when that leaves threads idle (at least two bands
 * per thread in all). A band's outputs are computed as in any other: the
 * same bytes for any count. */
static int64_t band_rows(int run_threads, double work, int64_t units, int64_t rows, int64_t per_row,
                         int64_t target) {
  int64_t brows = ox_max64(1, target / ox_max64(per_row, 1));
  int threads = ox_threads_of(run_threads);
  if (ox_par_worth(run_threads, work) && units * ox_ceil_div(rows, brows) < 2 * threads)
    brows = ox_max64(1, rows / ox_ceil_div(2 * threads, units));
  return brows;
}

/* item t: output rows [b * brows, ...) (b = t % nbands) of output channels
 * [mb * DIRECT_MB, ...) of group (u / mblocks) % G of image u / (mblocks *
 * G), u = t / nbands. The phase rows of the S = (kh - 1) * dh + 1 input
 * rows an output row reads are kept in a ring (input row iy in slot iy %
 * S), each built once as the window moves down. */
static void direct_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  size_t es = p->es, xs = p->xs;
  int64_t S = (p->kh - 1) * p->dh + 1, plane = S * p->sw * p->Lph, kk = p->kh * p->kw;
  char *rows = p->buf[slot], *orow = rows + (size_t)(p->Cg * plane) * es + DIRECT_SLACK;
  const char **src = p->ptrs[slot];
  char *wt = p->wts[slot];
  for (int64_t t = lo; t < hi; t++) {
    int64_t u = t / p->nbands, mb = u % p->mblocks, gi = u / p->mblocks % p->G, n = u / p->mblocks / p->G;
    int64_t oy0 = t % p->nbands * p->brows, oy1 = ox_min64(oy0 + p->brows, p->Ho);
    const char *xg = p->x + (size_t)((n * p->C + gi * p->Cg) * p->H * p->Wi) * xs;
    int64_t m0 = gi * p->Mg + mb * DIRECT_MB, m1 = ox_min64(m0 + DIRECT_MB, (gi + 1) * p->Mg);
    int64_t built = 0; /* input rows below this one are built (or skipped) */
    int64_t ey = oy0;  /* fused followers: output rows below this one are done */
    for (int64_t oy = oy0; oy < oy1; oy++) {
      int64_t top = oy * p->sh - p->ph;
      for (int64_t iy = ox_max64(built, ox_max64(top, 0)); iy < ox_min64(top + S, p->H); iy++)
        for (int64_t ci = 0; ci < p->Cg; ci++)
          for (int64_t f = 0; f < p->sw; f++)
            phase_row(p, xg + (size_t)(ci * p->H * p->Wi) * xs, iy, f,
                      rows + (size_t)(ci * plane + ((iy % S) * p->sw + f) * p->Lph) * es);
      built = ox_max64(built, top + S);
      /* the taps that fall inside the image: (ci, ky) with iy in [0, H), every kx */
      int nt = 0, all = top >= 0 && top + (p->kh - 1) * p->dh < p->H;
      for (int64_t ci = 0; ci < p->Cg; ci++)
        for (int64_t ky = 0; ky < p->kh; ky++) {
          int64_t iy = top + ky * p->dh;
          if (iy < 0 || iy >= p->H) continue;
          const char *r = rows + (size_t)(ci * plane + (iy % S) * p->sw * p->Lph) * es;
          for (int64_t kx = 0; kx < p->kw; kx++) src[nt++] = r + (size_t)p->kofs[kx] * es;
        }
      for (int64_t m = m0; m < m1; m++) {
        const char *wm = p->w + (size_t)(m * p->K) * es;
        if (!all) { /* the weights of the taps above, in order */
          int nw = 0;
          for (int64_t ci = 0; ci < p->Cg; ci++)
            for (int64_t ky = 0; ky < p->kh; ky++) {
              int64_t iy = top + ky * p->dh;
              if (iy < 0 || iy >= p->H) continue;
              memcpy(wt + (size_t)nw * es, wm + (size_t)(ci * kk + ky * p->kw) * es, (size_t)p->kw * es);
              nw += (int)p->kw;
            }
          wm = wt;
        }
        int64_t yi = ((n * p->M + m) * p->Ho + oy) * p->Wo;
        const char *bm = p->b ? p->b + (size_t)m * es : NULL;
        if (!is_small(p->yt)) {
          direct_row(p, p->y + (size_t)yi * es, p->Wo, nt, src, wm, bm);
        } else {
          direct_row(p, orow, p->Wo, nt, src, wm, bm);
          store_row(p->yt, p->y + (size_t)yi * p->ys, (const float *)orow, p->Wo);
        }
      }
      /* the followers on a block of rows of each channel (one call per row
       * costs more than the steps on a short row), still in cache */
      if (p->epi && ((oy + 1 - ey) * p->Wo >= EPI_ROWS || oy == oy1 - 1)) {
        for (int64_t m = m0; m < m1; m++)
          epi_y(p, ((n * p->M + m) * p->Ho + ey) * p->Wo, (oy + 1 - ey) * p->Wo, n, m, ey * p->Wo);
        ey = oy + 1;
      }
    }
  }
}

/* ---- planar (depthwise, stride 1 along rows) ----
 * y[x] = b + sum over taps t of w[t] * src[off[t] + x], x < n, each x as
 * direct_row computes it (the same operations, in tap order): 4 vectors at
 * a time, then one; the last one reads up to one vector past src[off[t] +
 * n - 1] and stores its lanes below n. */
#define PLANAR_RUN(SUF, T, V, TARGET)                                                 \
  TARGET static void planar_run_##SUF(T *y, int64_t n, int nt, const T *src,           \
                                      const int64_t *off, const T *w, T b) {          \
    enum { VL = sizeof(V) / sizeof(T) };                                              \
    int64_t x = 0;                                                                    \
    for (; x + 4 * VL <= n; x += 4 * VL) {                                            \
      V a0 = (V){0} + b, a1 = a0, a2 = a0, a3 = a0;                                   \
      for (int t = 0; t < nt; t++) {                                                  \
        const T *s = src + off[t] + x;                                                \
        V s0, s1, s2, s3;                                                             \
        memcpy(&s0, s, sizeof s0);                                                    \
        memcpy(&s1, s + VL, sizeof s1);                                               \
        memcpy(&s2, s + 2 * VL, sizeof s2);                                           \
        memcpy(&s3, s + 3 * VL, sizeof s3);                                           \
        a0 += w[t] * s0;                                                              \
        a1 += w[t] * s1;                                                              \
        a2 += w[t] * s2;                                                              \
        a3 += w[t] * s3;                                                              \
      }                                                                               \
      memcpy(y + x, &a0, sizeof a0);                                                  \
      memcpy(y + x + VL, &a1, sizeof a1);                                             \
      memcpy(y + x + 2 * VL, &a2, sizeof a2);                                         \
      memcpy(y + x + 3 * VL, &a3, sizeof a3);                                         \
    }                                                                                 \
    for (; x < n; x += VL) {                                                          \
      V a0 = (V){0} + b;                                                              \
      for (int t = 0; t < nt; t++) {                                                  \
        V s0;                                                                         \
        memcpy(&s0, src + off[t] + x, sizeof s0);                                     \
        a0 += w[t] * s0;                                                              \
      }                                                                               \
      memcpy(y + x, &a0, (size_t)(n - x < VL ? n - x : VL) * sizeof(T));              \
    }                                                                                 \
  }

PLANAR_RUN(f32_generic, float, v4f, )
PLANAR_RUN(f64_generic, double, v2d, )
#if OX_X86_DISPATCH
PLANAR_RUN(f32_avx2, float, v8f, OX_TARGET_AVX2)
PLANAR_RUN(f64_avx2, double, v4d, OX_TARGET_AVX2)
PLANAR_RUN(f32_avx512, float, v16f, OX_TARGET_AVX512)
PLANAR_RUN(f64_avx512, double, v8d, OX_TARGET_AVX512)
#endif
#undef PLANAR_RUN

static void planar_run(const plan *p, char *y, int64_t n, int nt, const char *src, const int64_t *off,
                       const char *w, const char *b) {
  if (p->ct == OX_FLOAT) {
    const float *s = (const float *)src, *wf = (const float *)w;
    float bv = b ? *(const float *)b : 0;
#if OX_X86_DISPATCH
    if (p->level == OX_CPU_AVX512) return planar_run_f32_avx512((float *)y, n, nt, s, off, wf, bv);
    if (p->level == OX_CPU_AVX2) return planar_run_f32_avx2((float *)y, n, nt, s, off, wf, bv);
#endif
    planar_run_f32_generic((float *)y, n, nt, s, off, wf, bv);
  } else {
    const double *s = (const double *)src, *wd = (const double *)w;
    double bv = b ? *(const double *)b : 0;
#if OX_X86_DISPATCH
    if (p->level == OX_CPU_AVX512) return planar_run_f64_avx512((double *)y, n, nt, s, off, wd, bv);
    if (p->level == OX_CPU_AVX2) return planar_run_f64_avx2((double *)y, n, nt, s, off, wd, bv);
#endif
    planar_run_f64_generic((double *)y, n, nt, s, off, wd, bv);
  }
}

/* the kernel rows [*k0, *k1) whose input row top + ky * dh is inside [0, H) */
static void planar_rows(const plan *p, int64_t top, int64_t *k0, int64_t *k1) {
  int64_t a = top >= 0 ? 0 : ox_ceil_div(-top, p->dh), z = top >= p->H ? 0 : ox_ceil_div(p->H - top, p->dh);
  *k0 = ox_min64(a, p->kh);
  *k1 = ox_max64(ox_min64(z, p->kh), *k0);
}

/* item t: the Mg output channels of group t % G of image t / G (one input
 * channel). The channel zero-padded (ph rows above, pw columns before)
 * and split into sh x sw phase planes, (fy, fx) at plane + (fy * sw + fx)
 * * Hph * Wph: its row q, column j holds padded row q * sh + fy, column j
 * * sw + fx (stride 1: one plane, the padded channel). Output (oy, ox)'s
 * tap (ky, kx) is then plane ((ky dh) % sh, (kx dw) % sw) at row oy + ky dh
 * / sh, column ox + kx dw / sw: one shift of the flattened output rows (row
 * stride Wph) per tap. After the planes, DIRECT_SLACK bytes of zeros;
 * band: the run of a band of output rows (at most PLANAR_BAND elements, or
 * one row). */
static void planar_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  size_t es = p->es, xs = p->xs;
  int64_t Wph = p->Wp, Hph = p->Lph, H = p->H, Wo = p->Wo, sh = p->sh, sw = p->sw;
  int64_t nplane = sh * sw * Hph * Wph;
  char *plane = p->buf[slot];
  char *band = plane + ox_round_up((int64_t)((size_t)nplane * es + DIRECT_SLACK), 64);
  int64_t *off = (int64_t *)p->ptrs[slot];
  int64_t brows = ox_max64(PLANAR_BAND / Wph, 1); /* output rows per band */
  for (int64_t t = lo; t < hi; t++) {
    int64_t gi = t % p->G, n = t / p->G;
    const char *xc = p->x + (size_t)((n * p->C + gi) * H * p->Wi) * xs;
    for (int64_t q = 0; q < Hph; q++)
      for (int64_t fy = 0; fy < sh; fy++) /* padded row q * sh + fy */
        for (int64_t fx = 0; fx < sw; fx++) {
          char *d = plane + (size_t)(((fy * sw + fx) * Hph + q) * Wph) * es;
          int64_t iy = q * sh + fy - p->ph, a = p->phase[2 * fx], z = p->phase[2 * fx + 1];
          if (iy < 0 || iy >= H) { /* no tap reads it, but the last vector of a run may */
            zero_bytes(d, (size_t)Wph * es < DIRECT_SLACK ? (size_t)Wph * es : DIRECT_SLACK);
            continue;
          }
          zero_bytes(d, (size_t)a * es);
          if (z > a)
            load_run(p->dt, xc + (size_t)(iy * p->Wi + a * sw + fx - p->pw) * xs, sw, z - a, d + (size_t)a * es);
          zero_bytes(d + (size_t)z * es, (size_t)(Wph - z) * es);
        }
    memset(plane + (size_t)nplane * es, 0, DIRECT_SLACK);
    for (int64_t m = gi * p->Mg; m < (gi + 1) * p->Mg; m++) {
      const char *wm = p->w + (size_t)(m * p->K) * es, *bm = p->b ? p->b + (size_t)m * es : NULL;
      int64_t ey = 0; /* fused followers: output rows below this one are done */
      for (int64_t oy = 0; oy < p->Ho;) {
        /* the rows from oy on whose windows meet the same kernel rows [k0, k1) */
        int64_t k0 = p->phase[2 * (sw + oy)], k1 = p->phase[2 * (sw + oy) + 1], rows = 1;
        while (rows < brows && oy + rows < p->Ho && p->phase[2 * (sw + oy + rows)] == k0 &&
               p->phase[2 * (sw + oy + rows) + 1] == k1)
          rows++;
        int nt = 0;
        for (int64_t k = k0 * p->kw; k < k1 * p->kw; k++) off[nt++] = p->kofs[k] + oy * Wph;
        /* the taps' weights: kernel rows [k0, k1), contiguous in W's row;
         * one row of float or double Y (or rows without dropped columns)
         * straight into Y */
        int64_t yi = ((n * p->M + m) * p->Ho + oy) * Wo;
        int direct = !is_small(p->yt) && (rows == 1 || Wph == Wo);
        planar_run(p, direct ? p->y + (size_t)yi * es : band, (rows - 1) * Wph + Wo, nt, plane, off,
                   wm + (size_t)(k0 * p->kw) * es, bm);
        for (int64_t r = 0; r < rows && !direct; r++) {
          const char *src = band + (size_t)(r * Wph) * es;
          if (!is_small(p->yt)) memcpy(p->y + (size_t)(yi + r * Wo) * es, src, (size_t)Wo * es);
          else store_row(p->yt, p->y + (size_t)(yi + r * Wo) * p->ys, (const float *)src, Wo);
        }
        oy += rows;
        /* the followers on the rows done since the last call, once they are
         * EPI_ROWS outputs or at the last row (as direct_chunk) */
        if (p->epi && ((oy - ey) * Wo >= EPI_ROWS || oy == p->Ho)) {
          epi_y(p, ((n * p->M + m) * p->Ho + ey) * Wo, (oy - ey) * Wo, n, m, ey * Wo);
          ey = oy;
        }
      }
    }
  }
}

/* ---- implicit GEMM (stride 1: X in place, or padded copies of bands) ----
 * The packed GEMM's product without its B: with the image's rows Wp long,
 * output (oy, ox) is column j = oy * Wp + ox of a "flat" B whose row k
 * (input channel ci, kernel position (ky, kx)) is X_g's flattened image
 * shifted by kofs[k] = ci * nimg + ky dh Wp + kx dw: a sliver of columns is
 * a contiguous run of X for each k, read in place (the columns ox >= Wo of
 * each output row are computed and dropped). With pads, or X of a small
 * float type, the image is a band's copy instead (band_fill: its rows
 * padded to Wp, nimg its rows per channel, j counted from the band's first
 * row). Each element gets the packed
 * product's operations (core/gemm.c's kernel_body): per block of KBLOCK
 * rows, acc = 0, acc += a * b over k in order (a fused multiply-add at the
 * AVX2 and AVX-512 levels), then y = acc (the first block without bias)
 * or acc + y (y the bias, or the blocks before): the same bytes. */
#define IGEMM_TILE(SUF, V, MR, NV, TARGET)                                              \
  TARGET static void igemm_tile_##SUF(int64_t K, const float *pa, const float *xb, const int64_t *kofs, \
                                      const float *bias, float *t) {                    \
    enum { VL = sizeof(V) / sizeof(float), NR = NV * VL };                              \
    for (int64_t k0 = 0; k0 < K; k0 += KBLOCK) {                                        \
      int64_t k1 = k0 + KBLOCK < K ? k0 + KBLOCK : K;                                   \
      V acc[MR][NV];                                                                    \
      _Pragma("GCC unroll 8") for (int r = 0; r < MR; r++)                              \
        _Pragma("GCC unroll 3") for (int v = 0; v < NV; v++) acc[r][v] = (V){0};        \
      for (int64_t k = k0; k < k1; k++) {                                               \
        V b[NV];                                                                        \
        const float *src = xb + kofs[k];                                                \
        _Pragma("GCC unroll 3") for (int v = 0; v < NV; v++) memcpy(&b[v], src + v * VL, sizeof b[v]); \
        const float *a = pa + k * MR;                                                   \
        _Pragma("GCC unroll 8") for (int r = 0; r < MR; r++)                            \
          _Pragma("GCC unroll 3") for (int v = 0; v < NV; v++) acc[r][v] += a[r] * b[v]; \
      }                                                                                 \
      _Pragma("GCC unroll 8") for (int r = 0; r < MR; r++)                              \
        _Pragma("GCC unroll 3") for (int v = 0; v < NV; v++) {                          \
          V y = acc[r][v], old;                                                         \
          if (k0) memcpy(&old, t + r * NR + v * VL, sizeof old);                        \
          else                                                                          \
            for (int l = 0; l < VL; l++) old[l] = bias ? bias[r] : 0; /* -0 kept */     \
          if (k0 || bias) y = y + old;                                                  \
          memcpy(t + r * NR + v * VL, &y, sizeof y);                                    \
        }                                                                               \
    }                                                                                   \
  }
IGEMM_TILE(generic, v4f, 6, 2, )
#if OX_X86_DISPATCH
IGEMM_TILE(avx2, v8f, 6, 2, OX_TARGET_AVX2)
IGEMM_TILE(avx512, v16f, 8, 3, OX_TARGET_AVX512)
#endif
#undef IGEMM_TILE

/* the tile's rows (mr) and columns (nr) at p's level: those of its GEMM
 * plan (core/gemm.c), or 0 when no igemm_tile has them */
static int64_t igemm_nr(const plan *p) {
#if OX_X86_DISPATCH
  if (p->level == OX_CPU_AVX512) return p->gp.mr == 8 ? 48 : 0;
  if (p->level == OX_CPU_AVX2) return p->gp.mr == 6 ? 16 : 0;
#endif
  return p->level == OX_CPU_GENERIC && p->gp.mr == 6 ? 8 : 0;
}

static void igemm_tile(const plan *p, const float *pa, const float *xb, const int64_t *kofs, const float *bias,
                       float *t) {
#if OX_X86_DISPATCH
  if (p->level == OX_CPU_AVX512) return igemm_tile_avx512(p->K, pa, xb, kofs, bias, t);
  if (p->level == OX_CPU_AVX2) return igemm_tile_avx2(p->K, pa, xb, kofs, bias, t);
#endif
  igemm_tile_generic(p->K, pa, xb, kofs, bias, t);
}

/* Band copy: rows of X_g (Cg channels, H x Wi of type dt) into buf as
 * floats, zero-padded: channel ci's plane at ci * bplane holds padded rows
 * [oy0, oy0 + rows + (kh - 1) dh) (the rows output rows [oy0, oy0 + rows)
 * read at stride 1), each Wp long, pw zeros before its row of X; rows
 * outside X all zeros. The values pack_cols would give the same columns. */
static void band_fill(const plan *p, const char *xg, int64_t oy0, int64_t rows, float *buf) {
  int64_t R = rows + (p->kh - 1) * p->dh, Wp = p->Wp, Wi = p->Wi;
  size_t xs = p->xs;
  for (int64_t ci = 0; ci < p->Cg; ci++) {
    const char *xc = xg + (size_t)(ci * p->H * Wi) * xs;
    for (int64_t r = 0; r < R; r++) {
      float *d = buf + ci * p->bplane + r * Wp;
      int64_t iy = oy0 + r - p->ph;
      if (iy < 0 || iy >= p->H) {
        memset(d, 0, (size_t)Wp * 4);
        continue;
      }
      memset(d, 0, (size_t)p->pw * 4);
      load_run(p->dt, xc + (size_t)(iy * Wi) * xs, 1, Wi, (char *)(d + p->pw));
      memset(d + p->pw + Wi, 0, (size_t)(Wp - p->pw - Wi) * 4);
    }
    /* a short last band: zeros in the rows it leaves (read only for
     * columns that are dropped) */
    memset(buf + ci * p->bplane + R * Wp, 0, (size_t)(p->bplane - R * Wp) * 4);
  }
}

/* item t: output rows [oy0, oy1) = [b * brows, ...) of every output
 * channel of group (t / nbands) % G of image t / (nbands * G). In place
 * (bplane 0): X_g's image, unpadded, is read where it is, flat column j of
 * the band reading xb0 + j (xb0: X_g at row oy0); else (bplane) the band's
 * rows are first copied, zero-padded and as floats (band_fill), into the
 * slot's buffer, and read there. Sliver by sliver of nr flat columns, each
 * for every mr rows of channels, then its columns that are outputs stored
 * (rounded once for a small Y); the fused followers on the output rows the
 * slivers have passed, once they are EPI_ROWS outputs or the band's last.
 * A sliver that would read past X's end reads a copy of its runs instead
 * (the slot's buffer: K x nr, then the tile, then the band). */
static void igemm_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  const ox_conv_geom *g = p->g;
  int L = g->nd - 1;
  int64_t mr = p->gp.mr, nr = igemm_nr(p), msl = ox_ceil_div(p->Mg, mr), Wp = p->Wp, K = p->K;
  int64_t Wo = g->pos[L], Ho = g->nd == 2 ? g->pos[0] : 1;
  size_t ys = p->ys;
  float *cp = (float *)p->buf[slot], *tile = cp + K * nr, *band = tile + 16 * nr;
  /* where the runs end: X's end, or the band's (with the nr floats of
   * zeros after its last plane) */
  const float *xend = p->bplane ? band + p->Cg * p->bplane + nr : (const float *)p->x + p->N * p->C * g->nimg;
  int64_t kmax = 0;
  for (int64_t k = 0; k < K; k++) kmax = ox_max64(kmax, p->kofs[k]);
  for (int64_t t = lo; t < hi; t++) {
    int64_t b = t % p->nbands, gi = t / p->nbands % p->G, n = t / p->nbands / p->G;
    int64_t oy0 = b * p->brows, oy1 = ox_min64(oy0 + p->brows, Ho);
    int64_t j1 = (oy1 - oy0 - 1) * Wp + Wo; /* the band's flat columns [0, j1) */
    const float *xb0;
    if (p->bplane) {
      band_fill(p, p->x + (size_t)((n * p->C + gi * p->Cg) * p->H * p->Wi) * p->xs, oy0, oy1 - oy0, band);
      xb0 = band;
    } else xb0 = (const float *)p->x + (n * p->C + gi * p->Cg) * g->nimg + oy0 * Wp;
    char *yg = p->y + (size_t)((n * p->M + gi * p->Mg) * p->P) * ys;
    int64_t ey = oy0; /* fused followers: output rows below this one are done */
    for (int64_t j = 0; j < j1; j += nr) {
      const float *xb = xb0 + j;
      const int64_t *kofs = p->kofs;
      if (xb + kmax + nr > xend) { /* a copy of the runs, zeros past X's end */
        for (int64_t k = 0; k < K; k++) {
          const float *src = xb + p->kofs[k];
          int64_t n_ok = ox_max64(ox_min64(nr, xend - src), 0);
          memcpy(cp + k * nr, src, (size_t)n_ok * 4);
          memset(cp + k * nr + n_ok, 0, (size_t)(nr - n_ok) * 4);
        }
        xb = cp, kofs = p->kofs + K; /* k * nr */
      }
      for (int64_t s = 0; s < msl; s++) {
        const float *pa = (const float *)p->pa + (gi * msl + s) * mr * K;
        int64_t m0 = s * mr, rows = ox_min64(mr, p->Mg - m0);
        const float *bias = p->b ? (const float *)p->b + gi * p->Mg + m0 : NULL;
        float bpad[16] = {0};
        if (bias && rows < mr) { /* rows past Mg: any bias, never stored */
          memcpy(bpad, bias, (size_t)rows * 4);
          bias = bpad;
        }
        igemm_tile(p, pa, xb, kofs, bias, tile);
        /* the tile's columns that are outputs, run by run */
        for (int64_t c0 = 0; c0 < nr && j + c0 < j1;) {
          int64_t jj = j + c0, oy = oy0 + jj / Wp, ox = jj % Wp;
          if (ox >= Wo) { /* dropped columns up to the next row */
            c0 += Wp - ox;
            continue;
          }
          int64_t run = ox_min64(ox_min64(Wo - ox, nr - c0), j1 - jj);
          for (int64_t r = 0; r < rows; r++) {
            char *yr = yg + (size_t)((m0 + r) * p->P + oy * Wo + ox) * ys;
            if (is_small(p->yt)) store_row(p->yt, yr, tile + r * nr + c0, run);
            else memcpy(yr, tile + r * nr + c0, (size_t)run * 4);
          }
          c0 += run;
        }
      }
      /* the followers on the output rows the slivers have passed (row oy
       * ends before flat column (oy - oy0 + 1) Wp), while in cache */
      int64_t done = j + nr >= j1 ? oy1 : oy0 + (j + nr) / Wp;
      if (p->epi && done > ey && ((done - ey) * Wo >= EPI_ROWS || done == oy1)) {
        for (int64_t m = 0; m < p->Mg; m++) /* on Y as stored (a float16 one widened: epi_y) */
          epi_y(p, (n * p->M + gi * p->Mg + m) * p->P + ey * Wo, (done - ey) * Wo, n, gi * p->Mg + m, ey * Wo);
        ey = done;
      }
    }
  }
}

/* ---- the driver ---- */

static int conv_float_run(ox_ctx *c, plan *pp, const ox_conv_geom *gp, ox_conv_took *took);

/* g without the axes that do nothing (length 1, kernel 1, no padding),
 * keeping at least one */
static void squeeze(const ox_conv_geom *g, ox_conv_geom *q) {
  *q = *g;
  q->nd = 0;
  for (int a = 0; a < g->nd; a++) {
    if (g->img[a] == 1 && g->ker[a] == 1 && g->pos[a] == 1 && !g->pb[a] && !g->pe[a]) continue;
    int b = q->nd++;
    q->img[b] = g->img[a], q->pos[b] = g->pos[a], q->ker[b] = g->ker[a];
    q->s[b] = g->s[a], q->d[b] = g->d[a], q->pb[b] = g->pb[a], q->pe[b] = g->pe[a];
  }
  /* a last axis the kernel does not move along (kernel 1, stride 1, no
   * padding, so positions = image) after one of stride 1 joins it: output
   * position (o, f) reads input (o * 1 + k * d - pb, f), which is position
   * o * F + f of the flattened pair with dilation d * F and padding pb * F */
  while (q->nd >= 2) {
    int L = q->nd - 1;
    if (q->ker[L] != 1 || q->s[L] != 1 || q->pb[L] || q->pe[L] || q->pos[L] != q->img[L] || q->s[L - 1] != 1 ||
        q->img[L] > (1 << 24)) /* dilations and pads stay below 2^48 */
      break;
    int64_t F = q->img[L];
    q->img[L - 1] *= F, q->pos[L - 1] *= F, q->d[L - 1] *= F, q->pb[L - 1] *= F, q->pe[L - 1] *= F;
    q->nd--;
  }
  if (q->nd == 0) { /* every axis a 1 */
    q->nd = 1;
    q->img[0] = q->pos[0] = q->ker[0] = q->s[0] = q->d[0] = 1;
    q->pb[0] = q->pe[0] = 0;
  }
}

static void free_slots(int nch, void **raw) {
  for (int i = 0; i < nch; i++) ox_mem_scratch_free(raw[i]);
}

/* ---- prepared once per model ---- */

static int same_plan(const ox_gemm_plan *a, const ox_gemm_plan *b) {
  return a->level == b->level && a->mr == b->mr && a->nr == b->nr;
}

/* pa <- w (M = G * Mg rows of K, the compute type ct) as core/gemm.h's A,
 * group after group, each round_up(Mg, mr) rows; kblocked: each group's
 * columns in blocks of KBLOCK, block after block, each packed as an A of
 * its own (Mg, kc): block k0 / KBLOCK at round_up(Mg, mr) * k0 */
static void pack_weights(const ox_gemm_plan *gp, ox_dtype ct, int64_t G, int64_t Mg, int64_t K, const char *w,
                         char *pa) {
  size_t es = ox_dtype_size(ct);
  int64_t Mr = ox_ceil_div(Mg, gp->mr) * gp->mr;
  for (int64_t gi = 0; gi < G; gi++) {
    const char *wg = w + (size_t)(gi * Mg * K) * es;
    char *dst = pa + (size_t)(gi * Mr * K) * es;
    if (kblocked(ct, K))
      for (int64_t k0 = 0; k0 < K; k0 += KBLOCK)
        ox_sgemm_pack_a(gp, Mg, ox_min64(KBLOCK, K - k0), (const float *)wg + k0, K, 0,
                        (float *)dst + Mr * k0);
    else if (ct == OX_FLOAT) ox_sgemm_pack_a(gp, Mg, K, (const float *)wg, K, 0, (float *)dst);
    else ox_dgemm_pack_a(gp, Mg, K, (const double *)wg, K, 0, (double *)dst);
  }
}

/* ---- col2im: ConvTranspose's last step, and Col2Im (ops/conv.c) ---- */

/* The positions p in [lo, hi) of the last axis whose image index
 * p * s + off falls in [0, n). */
static void valid_range(int64_t off, int64_t s, int64_t n, int64_t npos, int64_t *lo, int64_t *hi) {
  int64_t a = ox_ceil_div(-off, s), b = ox_ceil_div(n - off, s);
  if (a < 0) a = 0;
  if (b > npos) b = npos;
  if (b < a) b = a;
  *lo = a;
  *hi = b;
}

/* dst[p * s] += src[p] for p < n, for one element type */
typedef void (*row_add_fn)(void *dst, const void *src, int64_t n, int64_t s);

/* col2im over elements of size es: img (C, img...) += col (C * nker,
 * positions), skipping what falls in the padding. Rows run over (channel,
 * kernel position); the last spatial axis is the inner loop, its valid range
 * computed once per kernel position. Only the outer positions [o0, o1) (over
 * all axes but the last) take part: col then has (o1 - o0) * pos[last]
 * columns. */
static void col2im_rows(const ox_conv_geom *g, int64_t C, size_t es, void *img, const void *col,
                        row_add_fn addfn, int64_t o0, int64_t o1) {
  int nd = g->nd, L = nd - 1;
  /* no positions (a spatial dim of 0): nothing to move, and no dim to divide by */
  if (o1 <= o0 || g->pos[L] <= 0) return;
  int64_t kidx[OX_CONV_MAXSP] = {0}, oidx[OX_CONV_MAXSP], ostart[OX_CONV_MAXSP], istr[OX_CONV_MAXSP];
  istr[L] = 1;
  for (int j = L - 1; j >= 0; j--) istr[j] = istr[j + 1] * g->img[j + 1];
  int64_t W = g->pos[L], s = g->s[L];
  int64_t r = o0;
  for (int j = L - 1; j >= 0; j--) ostart[j] = r % g->pos[j], r /= g->pos[j];
  const char *cp = col;
  for (int64_t ch = 0; ch < C; ch++) {
    char *ip = (char *)img + (size_t)(ch * g->nimg) * es;
    for (int64_t kp = 0; kp < g->nker; kp++) {
      int64_t off = kidx[L] * g->d[L] - g->pb[L], lo, hi;
      valid_range(off, s, g->img[L], W, &lo, &hi);
      for (int j = 0; j < L; j++) oidx[j] = ostart[j];
      for (int64_t o = o0; o < o1; o++, cp += (size_t)W * es) {
        int64_t base = 0;
        int ok = 1;
        for (int j = 0; j < L; j++) {
          int64_t i = oidx[j] * g->s[j] + kidx[j] * g->d[j] - g->pb[j];
          if (i < 0 || i >= g->img[j]) { ok = 0; break; }
          base += i * istr[j];
        }
        if (ok && hi > lo) addfn(ip + (size_t)(base + lo * s + off) * es, cp + (size_t)lo * es, hi - lo, s);
        for (int j = L - 1; j >= 0; j--) { /* odometer over the outer positions */
          if (++oidx[j] < g->pos[j]) break;
          oidx[j] = 0;
        }
      }
      for (int j = L; j >= 0; j--) { /* odometer over the kernel */
        if (++kidx[j] < g->ker[j]) break;
        kidx[j] = 0;
      }
    }
  }
}

/* Per native type, summed in A: integers wrap (in their unsigned type, so
 * hostile data cannot overflow a signed sum). */
#define ROW_ADD_TYPES(X)                                                              \
  X(FLOAT, float, float) X(DOUBLE, double, double) X(INT8, int8_t, uint8_t)           \
  X(INT16, int16_t, uint16_t) X(INT32, int32_t, uint32_t) X(INT64, int64_t, uint64_t) \
  X(UINT8, uint8_t, uint8_t) X(UINT16, uint16_t, uint16_t) X(UINT32, uint32_t, uint32_t) \
  X(UINT64, uint64_t, uint64_t)
#define ROW_ADD(NAME, T, A)                                                           \
  static void row_add_##NAME(void *dst, const void *src, int64_t n, int64_t s) {     \
    T *d = dst;                                                                       \
    const T *x = src;                                                                 \
    for (int64_t p = 0; p < n; p++) d[p * s] = (T)((A)d[p * s] + (A)x[p]);            \
  }
ROW_ADD_TYPES(ROW_ADD)
#undef ROW_ADD
/* Col2Im of complex adds both parts; of bool, a sum is true when any term is */
#define ROW_ADD_C(NAME, T)                                                            \
  static void row_add_##NAME(void *dst, const void *src, int64_t n, int64_t s) {     \
    T *d = dst;                                                                       \
    const T *x = src;                                                                 \
    for (int64_t p = 0; p < n; p++) d[p * s].re += x[p].re, d[p * s].im += x[p].im;   \
  }
ROW_ADD_C(COMPLEX64, ox_c64)
ROW_ADD_C(COMPLEX128, ox_c128)
#undef ROW_ADD_C
static void row_add_BOOL(void *dst, const void *src, int64_t n, int64_t s) {
  uint8_t *d = dst;
  const uint8_t *x = src;
  for (int64_t p = 0; p < n; p++) d[p * s] |= x[p];
}

static row_add_fn row_add_of(ox_dtype dt) {
  switch (dt) {
#define CASE(NAME, T, A) case OX_##NAME: return row_add_##NAME;
    ROW_ADD_TYPES(CASE)
    CASE(COMPLEX64, ox_c64, ox_c64)
    CASE(COMPLEX128, ox_c128, ox_c128)
    CASE(BOOL, uint8_t, uint8_t)
#undef CASE
  default: return NULL;
  }
}

int ox_conv_col2im_takes(ox_dtype dt) { return row_add_of(dt) != NULL; }

void ox_conv_col2im(const ox_conv_geom *g, int64_t C, ox_dtype dt, void *img, const void *col, int64_t o0,
                    int64_t o1) {
  col2im_rows(g, C, ox_dtype_size(dt), img, col, row_add_of(dt), o0, o1);
}

/* ConvInteger's W: pa as ox_conv_int8 packs it (int8 read signed, uint8 as
 * v - 128), and each output channel's sum of the stored values */
static void pack_weights_int8(const ox_gemm_plan *gp, const ox_tensor *w, int64_t G, uint8_t *pa, int32_t *rowsum) {
  int64_t M = w->dims[0], Mg = M / G, K = w->n / M, K4 = ox_ceil_div(K, 4);
  uint8_t wflip = w->dt == OX_UINT8 ? 0x80 : 0;
  for (int64_t gi = 0; gi < G; gi++)
    ox_i8gemm_pack_a(gp, Mg, K, (const uint8_t *)w->data + gi * Mg * K, K, wflip, 1,
                     pa + gi * ox_ceil_div(Mg, gp->mr) * gp->mr * K4 * 4, rowsum + gi * Mg);
}

int ox_conv_prepack(ox_arena *a, int integer, int64_t G, const ox_tensor *w, const ox_conv_prep **out,
                    ox_err *e) {
  *out = NULL;
  if (w->rank < 3 || w->n <= 0 || G < 1 || w->dims[0] % G) return 0;
  ox_dtype dt = w->dt;
  if (integer ? dt != OX_INT8 && dt != OX_UINT8 : dt != OX_FLOAT && dt != OX_DOUBLE && !is_small(dt)) return 0;
  if (!integer && dt != OX_FLOAT16 && dt != OX_BFLOAT16 && is_small(dt)) return 0;
  int64_t M = w->dims[0], Mg = M / G, K = w->n / M;
  ox_conv_prep *pp = ox_alloc(a, sizeof *pp);
  if (!pp) return ox_oom(e, NULL);
  pp->w = w, pp->G = G;
  if (integer) {
    pp->gp = ox_i8gemm_plan_now();
    int64_t sz = ox_numel(3, (int64_t[]){G, ox_ceil_div(Mg, pp->gp.mr) * pp->gp.mr, ox_ceil_div(K, 4) * 4}, 1);
    uint8_t *pa = sz < 0 ? NULL : ox_alloc_uninit(a, (size_t)sz);
    int32_t *rowsum = ox_alloc_array(a, M, sizeof *rowsum);
    if (!pa || !rowsum) return ox_oom(e, NULL);
    pack_weights_int8(&pp->gp, w, G, pa, rowsum);
    pp->pa = pa, pp->rowsum = rowsum;
    *out = pp;
    return 0;
  }
  ox_dtype ct = dt == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT;
  size_t es = ox_dtype_size(ct);
  pp->gp = ct == OX_FLOAT ? ox_sgemm_plan_now() : ox_dgemm_plan_now();
  /* the compute type's copy of W: W itself, or a float copy of a small one */
  const char *wc = w->data;
  void *tmp = NULL;
  if (is_small(dt)) {
    float *wf = Mg < pp->gp.mr ? ox_alloc_array(a, w->n, 4) : (tmp = ox_mem_malloc((size_t)w->n * 4));
    if (!wf) return ox_oom(e, NULL);
    load_run(dt, w->data, 1, w->n, (char *)wf);
    wc = (const char *)wf;
    if (!tmp) pp->wf = wf;
  }
  if (Mg >= pp->gp.mr) { /* not the direct path, which reads W as it is */
    int64_t sz = ox_numel(3, (int64_t[]){G, ox_ceil_div(Mg, pp->gp.mr) * pp->gp.mr, K}, es);
    char *pa = sz < 0 ? NULL : ox_alloc_uninit(a, (size_t)sz * es);
    if (!pa) {
      ox_mem_free(tmp);
      return ox_oom(e, NULL);
    }
    pack_weights(&pp->gp, ct, G, Mg, K, wc, pa);
    pp->pa = pa;
  }
  ox_mem_free(tmp);
  *out = pp;
  return 0;
}

/* The plan's shapes, X's strides and pack_cols' table of kernel positions
 * (g: the squeezed geometry, which p keeps a pointer to). */
static int plan_geometry(ox_ctx *c, plan *p, const ox_tensor *x, const ox_tensor *w, int64_t G,
                         const ox_conv_geom *g) {
  p->g = g, p->x = x->data;
  p->N = x->dims[0], p->C = x->dims[1], p->M = w->dims[0], p->G = G, p->P = g->npos;
  p->Cg = p->C / G, p->Mg = p->M / G, p->K = p->Cg * g->nker;
  p->xs = ox_dtype_size(p->dt);
  p->es = ox_dtype_size(p->ct);
  int nd = g->nd, L = nd - 1;
  p->istr[L] = 1;
  for (int a = L - 1; a >= 0; a--) p->istr[a] = p->istr[a + 1] * g->img[a + 1];
  int64_t T = nd + 2, *tap = ox_alloc_array(c->a, g->nker * T, sizeof *tap), kidx[OX_CONV_MAXSP] = {0};
  if (!tap) return ox_oom(c->err, NULL);
  for (int64_t kp = 0; kp < g->nker; kp++) {
    int64_t *t = tap + kp * T;
    for (int a = 0; a < L; a++) t[a] = kidx[a];
    t[L] = kidx[L] * g->d[L] - g->pb[L];
    /* the positions p of the last axis with p * s + off in [0, img) */
    int64_t lo = ox_ceil_div(-t[L], g->s[L]), hi = ox_ceil_div(g->img[L] - t[L], g->s[L]);
    t[L + 1] = ox_max64(lo, 0);
    t[L + 2] = ox_max64(ox_min64(hi, g->pos[L]), t[L + 1]);
    for (int a = L; a >= 0; a--) {
      if (++kidx[a] < g->ker[a]) break;
      kidx[a] = 0;
    }
  }
  p->tap = tap;
  return 0;
}

int ox_conv_float(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, const ox_tensor *b, int64_t G,
                  const ox_conv_geom *g0, const ox_conv_prep *pp, ox_tensor *y, ox_conv_took *took) {
  ox_conv_geom g;
  squeeze(g0, &g);
  plan p = {.dt = x->dt, .ct = x->dt == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT, .y = y->data};
  ox_conv_took taken;
  if (!took) took = &taken;
  OX_TRY(plan_geometry(c, &p, x, w, G, &g));
  p.gp = p.ct == OX_FLOAT ? ox_sgemm_plan_now() : ox_dgemm_plan_now();
  p.level = p.gp.level;
  p.yt = y->dt, p.ys = ox_dtype_size(y->dt);
  /* followers fused into this node (core/fuse.h): float32, and float16 in
   * and out (core/eval.c groups float16 steps that round as their kernels) */
  if (c->epi && (p.dt == OX_FLOAT || (p.dt == OX_FLOAT16 && p.yt == OX_FLOAT16)) && ox_epi_check(c->epi, y))
    p.epi = c->epi;
  /* weights and bias in the compute type */
  p.w = w->data, p.b = b ? b->data : NULL;
  if (pp && !same_plan(&pp->gp, &p.gp)) pp = NULL;
  p.prep = pp;
  if (is_small(p.dt)) {
    /* W widened: once per model (pp->wf), or not at all when only the
     * packed GEMM reads it (pp->pa: not the direct path; not the gemv) */
    if (pp && pp->wf) p.w = (const char *)pp->wf;
    else if (pp && pp->pa && g.npos > GEMV_MAX) p.w = NULL;
    else if (!(p.w = (const char *)ox_widen_f32(c->a, w, c->err))) return c->err->code;
    if (b && !(p.b = (const char *)ox_widen_f32(c->a, b, c->err))) return c->err->code;
  }
  /* A small float X that every tap reads again (nker > 1): converted once,
   * a vector at a time, when its float copy is not large; else run by run */
  void *xraw = NULL;
  if (is_small(p.dt) && g.nker > 1 && x->n <= WIDEN_MAX / 4) {
    float *xf = scratch((size_t)x->n * 4, &xraw);
    if (!xf) return ox_oom(c->err, NULL);
    if (p.dt == OX_FLOAT16) ox_f16_to_f32_n(x->data, xf, x->n);
    else load_run(p.dt, x->data, 1, x->n, (char *)xf);
    p.x = (const char *)xf, p.dt = OX_FLOAT, p.xs = 4;
  }
  int rc = conv_float_run(c, &p, &g, took);
  ox_mem_scratch_free(xraw);
  if (!rc && p.epi) c->epi->done = 1;
  return rc;
}


/* The packed GEMM's im2col reads every element of X once per kernel
 * position, and a padded convolution makes every piece of a row that meets
 * the border (with 3x3 and pads 1, every piece) take pack_cols' slow path,
 * tap by tap and channel by channel. A zero-padded copy of X, made once,
 * turns them into whole runs: when p's X is float (or double) as computed,
 * some pad is not 0 and the kernel has more than one position, *raw <- a
 * copy of X with each spatial axis padded by its pads (zeros: the values
 * pack_cols writes for the pads, so the same columns and bytes), and p <-
 * the same convolution without pads over it (geometry *gz). */
static int pad_input(ox_ctx *c, plan *p, ox_conv_geom *gz, void **raw) {
  const ox_conv_geom *g0 = p->g;
  int nd = g0->nd, L = nd - 1, pads = 0;
  *raw = NULL;
  for (int a = 0; a < nd; a++) pads |= g0->pb[a] || g0->pe[a];
  if (!pads || p->dt != p->ct || g0->nker < 2) return 0;
  *gz = *g0;
  int64_t nimg = 1;
  for (int a = 0; a < nd; a++) {
    gz->img[a] = g0->img[a] + g0->pb[a] + g0->pe[a];
    gz->pb[a] = gz->pe[a] = 0;
    if (gz->img[a] <= 0 || nimg > INT64_MAX / gz->img[a]) return 0;
    nimg *= gz->img[a];
  }
  gz->nimg = nimg;
  int64_t planes = p->N * p->C;
  if (nimg > PAD_MAX / (int64_t)p->xs / ox_max64(planes, 1)) return 0;
  char *xp = scratch((size_t)(planes * nimg) * p->xs, raw);
  if (!xp) return ox_oom(c->err, NULL);
  /* each padded row (along the last axis): zeros, or its row of X between
   * the pads' zeros (no pass over the whole copy first) */
  int64_t prows = nimg / gz->img[L];
  size_t xs = p->xs, rowb = (size_t)g0->img[L] * xs, rowp = (size_t)gz->img[L] * xs;
  size_t pre = (size_t)g0->pb[L] * xs, post = (size_t)g0->pe[L] * xs;
  for (int64_t pl = 0; pl < planes; pl++)
    for (int64_t r = 0; r < prows; r++) {
      char *d = xp + (size_t)(pl * nimg + r * gz->img[L]) * xs;
      int64_t q = r, src = 0, st = 1, inside = g0->img[L] > 0;
      for (int a = L - 1; a >= 0; a--) { /* the row of X it holds, if any */
        int64_t i = q % gz->img[a] - g0->pb[a];
        q /= gz->img[a];
        inside &= i >= 0 && i < g0->img[a];
        src += i * st;
        st *= g0->img[a];
      }
      if (!inside) {
        memset(d, 0, rowp);
        continue;
      }
      memset(d, 0, pre);
      memcpy(d + pre, p->x + (size_t)((pl * g0->nimg) + src * g0->img[L]) * xs, rowb);
      memset(d + pre + rowb, 0, post);
    }
  /* the plan over the copy: its strides and its table of kernel positions */
  int64_t xd[2] = {p->N, p->C}, wd[1] = {p->M};
  ox_tensor xt = {.dt = p->dt, .rank = 2, .dims = xd, .data = xp}, wt = {.rank = 1, .dims = wd};
  return plan_geometry(c, p, &xt, &wt, p->G, gz); /* p->g = gz */
}

/* ox_conv_float after the set-up: the paths */
static int conv_float_run(ox_ctx *c, plan *pp, const ox_conv_geom *gp, ox_conv_took *took) {
  plan p = *pp;
  const ox_conv_geom g = *gp;
  p.g = &g;
  size_t es = p.es;
  int nd = g.nd, L = nd - 1;

  double work = 2.0 * (double)p.N * (double)p.M * (double)p.P * (double)p.K;
  void *raw[OX_MAX_THREADS] = {0};
  char *bufs[OX_MAX_THREADS];
  p.buf = bufs;
  int rc = 0;

  if (nd <= 2 && p.Mg < p.gp.mr) {
    /* direct: as 2-D (1-D is one row) */
    int a = nd == 2 ? 0 : -1, bx = L;
    p.H = a < 0 ? 1 : g.img[a], p.Ho = a < 0 ? 1 : g.pos[a], p.kh = a < 0 ? 1 : g.ker[a];
    p.sh = a < 0 ? 1 : g.s[a], p.dh = a < 0 ? 1 : g.d[a], p.ph = a < 0 ? 0 : g.pb[a];
    p.Wi = g.img[bx], p.Wo = g.pos[bx], p.kw = g.ker[bx], p.sw = g.s[bx], p.dw = g.d[bx], p.pw = g.pb[bx];
    p.Lph = p.Wo + (p.kw - 1) * p.dw / p.sw;
    /* planar: one input channel per group (the phase planes' rows: Hph) */
    int64_t Hph = p.Ho + (p.kh - 1) * p.dh / p.sh, nk = p.kh * p.kw;
    int planar = p.Cg == 1 && p.pw >= 0 && p.ph >= 0 && nk <= INT32_MAX &&
                 ox_numel(4, (int64_t[]){p.sh * p.sw, Hph, p.Lph, (int64_t)es}, 1) >= 0 &&
                 p.sh * p.sw * Hph * p.Lph <= PLANAR_MAX / (int64_t)es;
    /* per phase f: the part [a, z) of its row inside the input; planar:
     * then per output row, the kernel rows inside the input */
    int64_t *phase = ox_alloc_array(c->a, 2 * (p.sw + (planar ? p.Ho : 0)), sizeof *phase);
    if (!phase) return ox_oom(c->err, NULL);
    for (int64_t f = 0; f < p.sw; f++) { /* i * sw + f - pw in [0, Wi) */
      phase[2 * f] = ox_min64(ox_max64(ox_ceil_div(p.pw - f, p.sw), 0), p.Lph);
      phase[2 * f + 1] = ox_min64(ox_max64(ox_ceil_div(p.Wi + p.pw - f, p.sw), phase[2 * f]), p.Lph);
    }
    for (int64_t oy = 0; planar && oy < p.Ho; oy++)
      planar_rows(&p, oy * p.sh - p.ph, &phase[2 * (p.sw + oy)], &phase[2 * (p.sw + oy) + 1]);
    p.phase = phase;
    if (planar) {
      /* per tap (ky, kx): where output row 0 finds it in the phase planes
       * ((ky dh) % sh, (kx dw) % sw), row ky dh / sh, column kx dw / sw */
      plan q = p;
      q.Wp = p.Lph, q.Lph = Hph;
      int64_t *kofs = ox_alloc_array(c->a, nk, sizeof *kofs);
      if (!kofs) return ox_oom(c->err, NULL);
      for (int64_t ky = 0; ky < p.kh; ky++)
        for (int64_t kx = 0; kx < p.kw; kx++) {
          int64_t fy = ky * p.dh % p.sh, fx = kx * p.dw % p.sw;
          kofs[ky * p.kw + kx] = ((fy * p.sw + fx) * Hph + ky * p.dh / p.sh) * q.Wp + kx * p.dw / p.sw;
        }
      q.kofs = kofs;
      took->path = OX_CONV_PLANAR;
      int64_t items = p.N * p.G;
      took->items = items;
      int nch = ox_par_chunks(c->threads, items, work);
      const char **ptrs[OX_MAX_THREADS];
      q.ptrs = ptrs;
      size_t n1 = (size_t)ox_round_up((int64_t)((size_t)(p.sh * p.sw * Hph * q.Wp) * es + DIRECT_SLACK), 64);
      size_t n2 = (size_t)ox_round_up((int64_t)((size_t)ox_max64(PLANAR_BAND, q.Wp) * es + DIRECT_SLACK), 64);
      for (int i = 0; i < nch && !rc; i++) {
        bufs[i] = scratch(n1 + n2 + (size_t)nk * sizeof(int64_t), &raw[i]);
        if (!bufs[i]) rc = ox_oom(c->err, NULL);
        else ptrs[i] = (const char **)(bufs[i] + n1 + n2);
      }
      if (!rc) ox_par_for(items, nch, planar_chunk, &q);
      free_slots(nch, raw);
      return rc;
    }
    took->path = OX_CONV_DIRECT;
    p.mblocks = ox_ceil_div(p.Mg, DIRECT_MB);
    int64_t *kofs = ox_alloc_array(c->a, p.kw, sizeof *kofs);
    if (!kofs) return ox_oom(c->err, NULL);
    for (int64_t kx = 0; kx < p.kw; kx++) kofs[kx] = (kx * p.dw) % p.sw * p.Lph + kx * p.dw / p.sw;
    p.kofs = kofs;
    /* bands of output rows: the whole image, or parts when there are too
     * few items for the threads (IS-Net's 64 -> 1 over 512 x 512: one) */
    p.brows = band_rows(c->threads, work, p.N * p.G * p.mblocks, p.Ho, 1, p.Ho);
    p.nbands = ox_ceil_div(p.Ho, p.brows);
    int64_t items = p.N * p.G * p.mblocks * p.nbands, ntap = p.Cg * p.kh * p.kw;
    int64_t rowsz = ox_numel(4, (int64_t[]){p.Cg, (p.kh - 1) * p.dh + 1, p.sw, p.Lph}, es);
    if (rowsz < 0 || ntap > INT32_MAX) return ox_fail(c->err, OX_EINPUT, "the convolution is too large");
    took->items = items;
    int nch = ox_par_chunks(c->threads, items, work);
    const char **ptrs[OX_MAX_THREADS];
    char *wts[OX_MAX_THREADS];
    p.ptrs = ptrs, p.wts = wts;
    for (int i = 0; i < nch && !rc; i++) {
      size_t n1 = ((size_t)rowsz * es + DIRECT_SLACK + (size_t)p.Wo * 4 + 63) / 64 * 64;
      size_t n2 = (size_t)ntap * (sizeof(char *) + es);
      bufs[i] = scratch(n1 + n2, &raw[i]);
      if (!bufs[i]) rc = ox_oom(c->err, NULL);
      else {
        ptrs[i] = (const char **)(bufs[i] + n1);
        wts[i] = bufs[i] + n1 + (size_t)ntap * sizeof(char *);
      }
    }
    if (!rc) ox_par_for(items, nch, direct_chunk, &p);
    free_slots(nch, raw);
    return rc;
  }

  if (p.P <= GEMV_MAX) {
    took->path = OX_CONV_GEMV;
    int64_t items = p.N * p.G;
    took->items = items;
    int nch = ox_par_chunks(c->threads, items, work);
    for (int i = 0; i < nch && !rc; i++)
      if (!(bufs[i] = scratch((size_t)p.K * es, &raw[i]))) rc = ox_oom(c->err, NULL);
    if (!rc) ox_par_for(items, nch, gemv_chunk, &p);
    free_slots(nch, raw);
    return rc;
  }

  /* packed GEMM (or its implicit form): the weights packed as A */
  int64_t nr = p.gp.nr, mr = p.gp.mr;
  p.kblk = kblocked(p.ct, p.K) ? KBLOCK : p.K;
  int64_t pasz = ox_numel(3, (int64_t[]){p.G, ox_ceil_div(p.Mg, mr) * mr, p.K}, es);
  if (pasz < 0) return ox_fail(c->err, OX_EINPUT, "the convolution is too large");
  void *paraw = NULL;
  if (p.prep && p.prep->pa) p.pa = p.prep->pa; /* packed once per model */
  else {
    char *pa = scratch((size_t)pasz * es, &paraw);
    if (!pa) return ox_oom(c->err, NULL);
    pack_weights(&p.gp, p.ct, p.G, p.Mg, p.K, p.w, pa);
    p.pa = pa;
  }
  if (p.ct == OX_FLOAT && p.K > 0 && igemm_nr(&p) && nd <= 2) {
    /* implicit GEMM: stride 1 */
    int flat = 1, pads = 0;
    for (int a = 0; a < nd; a++) flat &= g.s[a] == 1, pads |= g.pb[a] || g.pe[a];
    /* not 1x1: their B rows are Cg planes apart, a stream each, where the
     * packed B is one (a 1x1 Conv 16 -> 32 over 160 x 160 took 75% longer) */
    flat &= g.nker > 1;
    /* and few output channels: the packed B serves ceil(Mg / mr) slivers
     * of rows; with many, reading it costs less than the runs of X (3x3
     * 128 -> 128 over 28 x 28: 20% longer in place, 24 -> 96 over 80 x 80
     * 12% shorter). Up to 8 slivers where the packed path would read X
     * unpadded and unconverted (pad_input declines: more than PAD_MAX
     * padded, or a small float type), its im2col meeting the border in
     * every row and reading X from memory: IS-Net's 3x3 128 -> 64 over
     * 512 x 512 took 12% less in bands, 64 -> 64 some 4% less (over 128 x
     * 128, where X stays in cache, 64 -> 64 was 3% slower, over 28 x 28
     * 5%; at 16 slivers, 64 -> 128 over 256 x 256, no gain) */
    double xpad = (double)p.N * (double)p.C * (double)p.xs;
    for (int a = 0; a < nd; a++) xpad *= (double)(g.img[a] + g.pb[a] + g.pe[a]);
    int band = pads || p.dt != OX_FLOAT; /* X copied band by band (below), not read in place */
    int64_t msl_max = band && (p.dt != OX_FLOAT || xpad > PAD_MAX) ? 8 : 4;
    flat &= ox_ceil_div(p.Mg, mr) <= msl_max;
    /* and a K of one block of 256 or more: below, the runs of X are too
     * short to pay for themselves (wake_emb's 24 -> 24, kernel 1x3, pads
     * over 74 x 32, K 72: 119 us packed, 137 in place over a padded
     * copy; ocr_det's 96 -> 24 gains at K 864) */
    flat &= p.K >= 256;
    /* a K past 2048 (kblocked) in bands only (IS-Net's 256 -> 64 over 256
     * x 256, K 2304) */
    flat &= p.kblk == p.K || band;
    /* and a band of BAND_MIN rows within BAND_MAX per thread (many wide
     * channels stay packed, whose tiles are TILE_BYTES) */
    double rows_min = (double)(BAND_MIN + (nd == 2 ? (g.ker[0] - 1) * g.d[0] : 0));
    flat &= !band || rows_min * (double)p.Cg * (double)(g.img[L] + g.pb[L] + g.pe[L]) * 4 <= BAND_MAX;
    if (flat) {
      /* X in place when it has no pads and is float; else in bands of
       * output rows, each band's input rows copied first (band_fill),
       * zero-padded and as floats: a copy that stays in cache, where a
       * padded copy of the whole X is written to memory and read back (a
       * 3x3 32 -> 64 over 256 x 256, 16 MiB: 8% less time in bands), and
       * which any X gets (IS-Net's 128 x 512 x 512 is 128 MiB) */
      int64_t nrr = igemm_nr(&p), Ho = nd == 2 ? g.pos[0] : 1, Wo = g.pos[L], kw = g.ker[L];
      /* as 2-D (1-D is one row) */
      p.H = nd == 2 ? g.img[0] : 1, p.kh = nd == 2 ? g.ker[0] : 1, p.dh = nd == 2 ? g.d[0] : 1;
      p.ph = nd == 2 ? g.pb[0] : 0, p.Wi = g.img[L], p.pw = g.pb[L];
      p.Wp = p.Wi + (band ? g.pb[L] + g.pe[L] : 0);
      took->path = band ? OX_CONV_IN_BAND : OX_CONV_IN_PLACE;
      if (band) {
        /* bands of about BAND_BYTES of copied rows, at least BAND_MIN rows
         * (each band copies (kh - 1) dh rows more than it has), or more
         * bands when that leaves threads idle */
        int64_t rowf = p.Cg * p.Wp, halo = (p.kh - 1) * p.dh;
        int64_t want = ox_max64(BAND_MIN, BAND_BYTES / 4 / ox_max64(rowf, 1) - halo);
        p.brows = band_rows(c->threads, work, p.N * p.G, Ho, 1, want);
        p.bplane = ox_numel(2, (int64_t[]){p.brows + halo, p.Wp}, 1);
      } else /* about 64 KiB of Y each */
        p.brows = band_rows(c->threads, work, p.N * p.G, Ho, p.Mg * Wo, 16384);
      p.nbands = ox_ceil_div(Ho, p.brows);
      int64_t *kofs = ox_alloc_array(c->a, 2 * p.K, sizeof *kofs);
      if (!kofs) rc = ox_oom(c->err, NULL);
      for (int64_t k = 0; !rc && k < p.K; k++) {
        int64_t ci = k / g.nker, kp = k % g.nker, ky = kp / kw, kx = kp % kw;
        kofs[k] = ci * (band ? p.bplane : g.nimg) + ky * p.dh * p.Wp + kx * g.d[L];
        kofs[p.K + k] = k * nrr; /* a copied sliver's rows */
      }
      p.kofs = kofs;
      /* a kblocked A (block after block) as one of the whole K, which
       * igemm_tile reads: the same values */
      void *flatraw = NULL;
      if (!rc && p.kblk < p.K) {
        float *pf = scratch((size_t)pasz * es, &flatraw);
        if (!pf) rc = ox_oom(c->err, NULL);
        else {
          int64_t msl = ox_ceil_div(p.Mg, mr), Mr = msl * mr;
          for (int64_t gi = 0; gi < p.G; gi++)
            for (int64_t k0 = 0; k0 < p.K; k0 += KBLOCK) {
              int64_t kc = ox_min64(KBLOCK, p.K - k0);
              const float *src = (const float *)p.pa + gi * Mr * p.K + Mr * k0;
              for (int64_t sl = 0; sl < msl; sl++)
                memcpy(pf + ((gi * msl + sl) * p.K + k0) * mr, src + sl * mr * kc, (size_t)(kc * mr) * 4);
            }
          p.pa = (const char *)pf;
        }
      }
      int64_t items = p.N * p.G * p.nbands;
      took->items = items;
      int nch = ox_par_chunks(c->threads, items, work);
      /* per slot: a sliver's copy (K x nr), the tile (16 x nr), the band
       * and nr floats of zeros past it (igemm_chunk's runs read to there) */
      int64_t bandf = band ? ox_numel(3, (int64_t[]){p.Cg, p.bplane, 1}, 1) : 0;
      if (p.bplane < 0 || bandf < 0 || ox_numel(2, (int64_t[]){p.K + 17 + bandf / nrr + 1, nrr}, 4) < 0)
        rc = ox_fail(c->err, OX_EINPUT, "the convolution is too large");
      bandf += band ? nrr : 0;
      for (int i = 0; i < nch && !rc; i++) {
        if (!(bufs[i] = scratch((size_t)((p.K + 16) * nrr + bandf) * 4, &raw[i]))) rc = ox_oom(c->err, NULL);
        else if (band) /* the zeros past the band */
          memset(bufs[i] + (size_t)((p.K + 16) * nrr + p.Cg * p.bplane) * 4, 0, (size_t)nrr * 4);
      }
      if (!rc) ox_par_for(items, nch, igemm_chunk, &p);
      free_slots(nch, raw);
      ox_mem_scratch_free(flatraw);
      ox_mem_scratch_free(paraw);
      return rc;
    }
  }
  void *padraw = NULL;
  ox_conv_geom gz;
  if ((rc = pad_input(c, &p, &gz, &padraw))) {
    ox_mem_scratch_free(paraw);
    return rc;
  }
  plan_tiles(&p, c->threads, nr, p.kblk * (int64_t)es, work);
  int64_t nc = p.nc;
  /* elements */
  int64_t pbsz = ox_numel(2, (int64_t[]){p.kblk, ox_ceil_div(nc, nr) * nr}, es), ctsz = is_small(p.yt) ? p.Mg * nc : 0;
  if (pbsz < 0 || ctsz < 0) {
    ox_mem_scratch_free(paraw);
    ox_mem_scratch_free(padraw);
    return ox_fail(c->err, OX_EINPUT, "the convolution is too large");
  }
  /* the followers add the bias: when the product's sum is one block of K
   * (core/gemm.c's KC, KBLOCK: later blocks add onto the first's acc +
   * bias), and no bias is NaN (which NaN an add keeps is its operands') */
  p.late_bias = p.epi && p.b && p.ct == OX_FLOAT && p.yt == OX_FLOAT && p.K <= KBLOCK;
  for (int64_t m = 0; p.late_bias && m < p.M; m++)
    p.late_bias = ((const float *)p.b)[m] == ((const float *)p.b)[m];
  took->path = p.kblk < p.K ? OX_CONV_KBLOCKED : OX_CONV_PACKED;
  int64_t items = p.N * p.G * p.ntiles * p.mparts;
  took->items = items;
  int nch = ox_par_chunks(c->threads, items, work);
  int64_t packed[OX_MAX_THREADS];
  p.packed = packed;
  for (int i = 0; i < nch && !rc; i++) {
    packed[i] = -1;
    if (!(bufs[i] = scratch((size_t)(pbsz + ctsz) * es, &raw[i]))) rc = ox_oom(c->err, NULL);
  }
  if (!rc) ox_par_for(items, nch, gemm_chunk, &p);
  free_slots(nch, raw);
  ox_mem_scratch_free(paraw);
  ox_mem_scratch_free(padraw);
  return rc;
}

/* ---- ConvTranspose ---- */

/* item t: output channels [mb * MB, ...) (MB = p->mblock) of group (t /
 * mblocks) % G of image t / (mblocks * G). For each tile of whole rows of
 * input positions, col (MB * nker, tile) = W_g^T (those rows) x X_g (tile),
 * added into the output by col2im; then the bias. Tiles come in order, so
 * every output element sums its terms in the same order for any split.
 * With p->rtiles, an item is one tile (t % rtiles) of the rest (t /
 * rtiles), and no bias: the tiles' windows do not overlap, so each output
 * element has its terms from one tile. */
static void convt_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  const ox_conv_geom *g = p->g;
  size_t es = p->es;
  int64_t nker = g->nker, W = g->pos[g->nd - 1], mr = p->gp.mr;
  int64_t rows = W > 0 ? p->P / W : 0, trows = W > 0 ? ox_max64(p->nc / W, 1) : 1;
  char *pb = p->buf[slot], *col = pb + (size_t)(p->Cg * ox_ceil_div(p->nc, p->gp.nr) * p->gp.nr) * es;
  for (int64_t t = lo; t < hi; t++) {
    int64_t u = p->rtiles ? t / p->rtiles : t, rt0 = 0, rt1 = rows;
    if (p->rtiles) rt0 = t % p->rtiles * trows, rt1 = ox_min64(rows, rt0 + trows);
    int64_t mb = u % p->mblocks, gi = u / p->mblocks % p->G, n = u / p->mblocks / p->G;
    int64_t m0 = mb * p->mblock, mc = ox_min64(p->mblock, p->Mg - m0), R = mc * nker;
    const char *pa = p->pa + (size_t)((gi * p->mblocks + mb) * ox_ceil_div(p->mblock * nker, mr) * mr * p->Cg) * es;
    const char *xg = p->x + (size_t)((n * p->C + gi * p->Cg) * p->P) * es;
    char *yg = p->y + (size_t)((n * p->M + gi * p->Mg + m0) * g->nimg) * es;
    for (int64_t r0 = rt0; r0 < rt1; r0 += trows) {
      int64_t r1 = ox_min64(rt1, r0 + trows), j0 = r0 * W, nc = (r1 - r0) * W;
      if (p->ct == OX_FLOAT) {
        ox_sgemm_pack_b(&p->gp, p->Cg, nc, (const float *)xg + j0, p->P, (float *)pb);
        ox_sgemm_packed(&p->gp, R, nc, p->Cg, (const float *)pa, (const float *)pb, (float *)col, nc, 0);
      } else {
        ox_dgemm_pack_b(&p->gp, p->Cg, nc, (const double *)xg + j0, p->P, (double *)pb);
        ox_dgemm_packed(&p->gp, R, nc, p->Cg, (const double *)pa, (const double *)pb, (double *)col, nc, 0);
      }
      ox_conv_col2im(g, mc, p->ct, yg, col, r0, r1);
    }
    for (int64_t m = 0; p->b && !p->rtiles && m < mc; m++) {
      char *yr = yg + (size_t)(m * g->nimg) * es;
      if (p->ct == OX_FLOAT) {
        float v = ((const float *)p->b)[gi * p->Mg + m0 + m];
        for (int64_t i = 0; i < g->nimg; i++) ((float *)yr)[i] += v;
      } else {
        double v = ((const double *)p->b)[gi * p->Mg + m0 + m];
        for (int64_t i = 0; i < g->nimg; i++) ((double *)yr)[i] += v;
      }
    }
  }
}

/* y's elements [lo, hi) += their channel's bias */
static void convt_bias(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  int64_t nimg = p->g->nimg;
  for (int64_t e = lo; e < hi;) {
    int64_t m = e / nimg % p->M, end = ox_min64(hi, (e / nimg + 1) * nimg);
    if (p->ct == OX_FLOAT) {
      float v = ((const float *)p->b)[m], *y = (float *)p->y;
      for (; e < end; e++) y[e] += v;
    } else {
      double v = ((const double *)p->b)[m], *y = (double *)p->y;
      for (; e < end; e++) y[e] += v;
    }
  }
}

int ox_convtranspose_float(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, const ox_tensor *b,
                           int64_t G, const ox_conv_geom *g0, ox_tensor *y) {
  ox_conv_geom g;
  squeeze(g0, &g);
  plan p = {.g = &g, .dt = x->dt, .ct = x->dt == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT,
            .x = x->data, .w = w->data, .b = b ? b->data : NULL, .y = y->data};
  p.N = x->dims[0], p.C = x->dims[1], p.G = G, p.Cg = p.C / G, p.Mg = w->dims[1], p.M = p.Mg * G;
  p.P = g.npos, p.es = ox_dtype_size(p.ct);
  size_t es = p.es;
  p.gp = p.ct == OX_FLOAT ? ox_sgemm_plan_now() : ox_dgemm_plan_now();
  if (is_small(p.dt)) { /* float copies in, a float result rounded once */
    p.x = (const char *)ox_widen_f32(c->a, x, c->err);
    p.w = (const char *)ox_widen_f32(c->a, w, c->err);
    p.y = ox_alloc_array(c->a, y->n, 4);
    if (!p.x || !p.w || !p.y || (b && !(p.b = (const char *)ox_widen_f32(c->a, b, c->err))))
      return c->err->code ? c->err->code : ox_oom(c->err, NULL);
  }
  int64_t nker = g.nker, W = g.pos[g.nd - 1], mr = p.gp.mr, nr = p.gp.nr;
  /* blocks of output channels: all of a group's, or fewer when that leaves
   * threads idle */
  double work = 2.0 * (double)p.N * (double)p.M * (double)nker * (double)p.Cg * (double)p.P;
  int threads = ox_threads_of(c->threads);
  p.mblock = p.Mg;
  if (ox_par_worth(c->threads, work) && p.N * p.G < 2 * threads)
    p.mblock = ox_max64(ox_ceil_div(p.Mg, ox_ceil_div(2 * threads, p.N * p.G)), 1);
  p.mblocks = ox_ceil_div(p.Mg, p.mblock);
  int64_t R = p.mblock * nker;
  /* tiles of whole rows of input positions: about TILE_BYTES of B and col
   * for a whole group's channels, whatever the block (where windows
   * overlap, an output element adds its terms tile after tile: the tiles
   * must not depend on the thread count) */
  int64_t trows = W > 0 ? ox_max64(TILE_BYTES / ((p.Mg * nker + p.Cg) * (int64_t)es * W), 1) : 1;
  /* too few items for the threads: the tiles become items too, at least two
   * per thread, when no two rows' windows overlap on any axis but the last
   * ((k - 1) d + 1 <= s: each output element has its terms from one row) */
  int64_t items = p.N * p.G * p.mblocks, rows = W > 0 ? p.P / W : 0;
  int apart = 1;
  for (int a = 0; a < g.nd - 1; a++) apart &= (g.ker[a] - 1) * g.d[a] + 1 <= g.s[a];
  if (ox_par_worth(c->threads, work) && items < 2 * threads && apart && rows > 1) {
    trows = ox_min64(trows, ox_ceil_div(rows, 2 * threads));
    p.rtiles = ox_ceil_div(rows, trows);
    items *= p.rtiles;
  }
  p.nc = W > 0 ? ox_min64(trows, p.P / W) * W : 0;
  if (p.P == 0 || p.nc == 0) p.nc = 1; /* no positions: only the bias */
  /* W_g^T, block by block: A (R, Cg), A(i, k) = W[gi * Cg + k][m0 * nker + i] */
  int64_t pasz = ox_numel(4, (int64_t[]){p.G, p.mblocks, ox_ceil_div(R, mr) * mr, p.Cg}, es);
  int64_t bufsz = ox_numel(2, (int64_t[]){ox_ceil_div(p.nc, nr) * nr * p.Cg + R * p.nc, 1}, es);
  if (pasz < 0 || bufsz < 0) return ox_fail(c->err, OX_EINPUT, "the convolution is too large");
  void *paraw;
  char *pa = scratch((size_t)pasz * es + 1, &paraw);
  if (!pa) return ox_oom(c->err, NULL);
  for (int64_t gi = 0; gi < p.G; gi++)
    for (int64_t mb = 0; mb < p.mblocks; mb++) {
      int64_t m0 = mb * p.mblock, mc = ox_min64(p.mblock, p.Mg - m0), lda = p.Mg * nker;
      const char *a0 = p.w + (size_t)(gi * p.Cg * lda + m0 * nker) * es;
      char *dst = pa + (size_t)((gi * p.mblocks + mb) * ox_ceil_div(R, mr) * mr * p.Cg) * es;
      if (p.ct == OX_FLOAT) ox_sgemm_pack_a(&p.gp, mc * nker, p.Cg, (const float *)a0, lda, 1, (float *)dst);
      else ox_dgemm_pack_a(&p.gp, mc * nker, p.Cg, (const double *)a0, lda, 1, (double *)dst);
    }
  p.pa = pa;
  int nch = ox_par_chunks(c->threads, items, work);
  void *raw[OX_MAX_THREADS] = {0};
  char *bufs[OX_MAX_THREADS];
  p.buf = bufs;
  int rc = 0;
  for (int i = 0; i < nch && !rc; i++)
    if (!(bufs[i] = scratch((size_t)bufsz * es, &raw[i]))) rc = ox_oom(c->err, NULL);
  if (!rc) ox_par_for(items, nch, convt_chunk, &p);
  if (!rc && p.rtiles && p.b) { /* the bias, after every term */
    int64_t nel = p.N * p.M * g.nimg;
    ox_par_for(nel, ox_par_chunks_mem(c->threads, nel, 2.0 * (double)es * (double)nel), convt_bias, &p);
  }
  free_slots(nch, raw);
  ox_mem_scratch_free(paraw);
  if (!rc && is_small(p.dt)) ox_narrow_f32((const float *)p.y, y);
  return rc;
}

/* ---- ConvInteger ---- */


/* item t: as gemm_chunk; y_tile (int32) = W~_g x X~_tile (core/gemm.h's
 * 8-bit product), then the zero-point terms (ox_conv_int8) */
static void int8_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const plan *p = arg;
  int64_t nr = p->gp.nr, mr = p->gp.mr, K = p->K, K4 = ox_ceil_div(K, 4);
  char *cols = p->buf[slot]; /* im2col: K x nc bytes as pack_cols lays them out */
  uint8_t *pb = (uint8_t *)cols + ox_round_up(K * p->nc, 64);
  int32_t *colsum = (int32_t *)(pb + K4 * 4 * p->nc);
  for (int64_t t = lo; t < hi; t++) {
    int64_t tile = t % p->ntiles, gi = t / p->ntiles % p->G, n = t / p->ntiles / p->G;
    int64_t j0, nc;
    tile_cols(p, tile, &j0, &nc);
    pack_cols(p, p->x + (size_t)((n * p->C + gi * p->Cg) * p->g->nimg), j0, nc, nr, 0, p->K, cols);
    /* sliver by sliver (pack_cols lays them out one after the other), whole
     * ones: pack_cols zeroed the columns past nc */
    for (int64_t js = 0; js * nr < nc; js++)
      ox_i8gemm_pack_b(&p->gp, K, nr, (const uint8_t *)cols + js * K * nr, nr, 0, 0, pb + js * K4 * 4 * nr,
                       p->colsum ? colsum + js * nr : NULL);
    int32_t *yt = (int32_t *)p->y + (n * p->M + gi * p->Mg) * p->P + j0;
    const uint8_t *pa = (const uint8_t *)p->pa + gi * ox_ceil_div(p->Mg, mr) * mr * K4 * 4;
    ox_i8gemm_packed(&p->gp, p->Mg, nc, K, pa, pb, 1, yt, p->P);
    for (int64_t m = 0; m < p->Mg; m++) { /* modulo 2^32, as the sums */
      uint32_t rc = (uint32_t)p->rowconst[gi * p->Mg + m], wz = (uint32_t)p->wz[gi * p->Mg + m];
      int32_t *row = yt + m * p->P;
      if (p->colsum)
        for (int64_t j = 0; j < nc; j++) row[j] = (int32_t)((uint32_t)row[j] + rc - wz * (uint32_t)colsum[j]);
      else
        for (int64_t j = 0; j < nc; j++) row[j] = (int32_t)((uint32_t)row[j] + rc);
    }
  }
}

int ox_conv_int8(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, int64_t xz, const ox_tensor *wz,
                 int64_t G, const ox_conv_geom *g, ox_tensor *y) {
  return ox_conv_int8_prep(c, x, w, xz, wz, G, g, NULL, y);
}

int ox_conv_int8_prep(ox_ctx *c, const ox_tensor *x, const ox_tensor *w, int64_t xz, const ox_tensor *wz,
                      int64_t G, const ox_conv_geom *g0, const ox_conv_prep *pp, ox_tensor *y) {
  ox_conv_geom g;
  squeeze(g0, &g);
  plan p = {.dt = x->dt, .ct = OX_UINT8, .y = y->data};
  OX_TRY(plan_geometry(c, &p, x, w, G, &g));
  p.gp = ox_i8gemm_plan_now();
  int64_t K = p.K, K4 = ox_ceil_div(K, 4), mr = p.gp.mr, nr = p.gp.nr;
  /* x read unsigned (int8 + 128), w signed (uint8 - 128); the zero points
   * move with them: (x - xz)(w - wz) = (x~ - xz~)(w~ - wz~) */
  uint8_t wflip = w->dt == OX_UINT8 ? 0x80 : 0;
  int32_t xzv = (int32_t)xz + (x->dt == OX_INT8 ? 128 : 0); /* in [0, 255] */
  p.pad = (uint8_t)xzv; /* a padded x~ is xz~: it adds nothing */
  int64_t pasz = ox_numel(3, (int64_t[]){p.G, ox_round_up(p.Mg, mr), K4 * 4}, 1);
  int32_t *wzv = ox_alloc_array(c->a, p.M, 4), *rowconst = ox_alloc_array(c->a, p.M, 4);
  if (pasz < 0) return ox_fail(c->err, OX_EINPUT, "the convolution is too large");
  if (!wzv || !rowconst) return ox_oom(c->err, NULL);
  void *paraw = NULL;
  const uint8_t *pa;
  const int32_t *rowsum;
  if (pp && pp->pa && same_plan(&pp->gp, &p.gp)) /* packed once per model */
    pa = pp->pa, rowsum = pp->rowsum;
  else {
    int32_t *rs = ox_alloc_array(c->a, p.M, 4);
    uint8_t *pk = scratch((size_t)pasz, &paraw);
    if (!rs || !pk) {
      ox_mem_scratch_free(paraw);
      return ox_oom(c->err, NULL);
    }
    pack_weights_int8(&p.gp, w, G, pk, rs);
    pa = pk, rowsum = rs;
  }
  /* y = sum x~ w~ - wz~ colsum(x~) - xz~ rowsum(w~) + K xz~ wz~ */
  for (int64_t m = 0; m < p.M; m++) {
    int64_t v = wz ? ox_load_i64(wz->dt, wz->data, wz->n == 1 ? 0 : m) : 0;
    wzv[m] = (int32_t)(v - (wflip ? 128 : 0));
    rowconst[m] = (int32_t)((uint32_t)K * (uint32_t)xzv * (uint32_t)wzv[m] - (uint32_t)xzv * (uint32_t)rowsum[m]);
    p.colsum |= wzv[m] != 0;
  }
  p.pa = (const char *)pa, p.wz = wzv, p.rowconst = rowconst;
  double work = 2.0 * (double)p.N * (double)p.M * (double)p.P * (double)K / 8;
  plan_tiles(&p, c->threads, nr, K + K4 * 4 + 4, work);
  int64_t items = p.N * p.G * p.ntiles;
  int nch = ox_par_chunks(c->threads, items, work);
  void *raw[OX_MAX_THREADS] = {0};
  char *bufs[OX_MAX_THREADS];
  p.buf = bufs;
  int rc = 0;
  size_t need = (size_t)(ox_round_up(K * p.nc, 64) + K4 * 4 * p.nc + 4 * p.nc);
  for (int i = 0; i < nch && !rc; i++)
    if (!(bufs[i] = scratch(need, &raw[i]))) rc = ox_oom(c->err, NULL);
  if (!rc) ox_par_for(items, nch, int8_chunk, &p);
  free_slots(nch, raw);
  ox_mem_scratch_free(paraw);
  return rc;
}
