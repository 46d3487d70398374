/* core/broadcast.h: the one broadcasting iterator for every elementwise op
 * (Add ... Where, Sum/Max/Min/Mean, Expand).
 *
 * numpy broadcasting: shapes are right-aligned; a dim of 1 stretches. The
 * iterator gives each input an element stride per output dim (0 where it is
 * broadcast), merges adjacent dims that are contiguous for every input, and
 * walks the outer dims with an odometer, so the caller writes one tight inner
 * loop over the last (merged) dim:
 *
 *   ox_bcast b;
 *   OX_TRY(ox_bcast_init(&b, 2, (const ox_tensor *[]){a, c}, out, e));
 *   do {
 *     // out[b.out + i], a[b.off[0] + i * b.step[0]], c[b.off[1] + i * b.step[1]]
 *     for (int64_t i = 0; i < b.inner; i++) ...
 *   } while (ox_bcast_next(&b));
 *
 * step[k] is 0 or 1 (the input's stride along the inner dim), so the loop
 * vectorises; specialise on it where it matters. Offsets count elements. */
#ifndef OX_BROADCAST_H
#define OX_BROADCAST_H

#include "value.h"

#define OX_BCAST_MAX_IN 16
#define OX_BCAST_MAX_RANK 32

typedef struct ox_bcast {
  int nin, rank;                  /* merged rank, >= 1 */
  int64_t n;                      /* output elements; 0: nothing to do */
  int64_t inner;                  /* length of the innermost merged dim */
  int64_t out;                    /* output offset of the current row */
  int64_t off[OX_BCAST_MAX_IN];   /* input offsets of the current row */
  int64_t step[OX_BCAST_MAX_IN];  /* input strides along the inner dim (0 or 1) */
  /* private */
  int64_t dims[OX_BCAST_MAX_RANK];
  int64_t stride[OX_BCAST_MAX_IN][OX_BCAST_MAX_RANK];
  int64_t idx[OX_BCAST_MAX_RANK];
} ox_bcast;

/* The broadcast shape of n tensors: "shapes (2, 3) and (4,) cannot be
 * broadcast together" otherwise. dims needs room for the largest rank. */
int ox_broadcast_shape(int n, const ox_tensor *const *ts, int *rank, int64_t *dims, ox_err *e);

/* Set up iteration of `n` inputs against the output shape (rank, dims), which
 * every input must broadcast to. */
int ox_bcast_init(ox_bcast *b, int n, const ox_tensor *const *ts, int rank, const int64_t *dims,
                  ox_err *e);

/* Put the iterator on the row that holds output element pos (0 <= pos < n):
 * out is that row's first element, off[] its inputs' offsets; the row's
 * elements before pos are the caller's to skip. A kernel split over threads
 * gives each chunk its own copy of the iterator, seeks to the chunk's first
 * element and stops at its last (ox_bcast_run below). */
void ox_bcast_seek(ox_bcast *b, int64_t pos);

/* The run of output elements [pos, end) within one row, for a walk over
 * [lo, hi) that began with ox_bcast_seek(b, lo): its length, with *col the
 * index within the row (so input k is at off[k] + *col * step[k]). After
 * the run, move pos on by the length, and call ox_bcast_next when pos < hi. */
static inline int64_t ox_bcast_run(const ox_bcast *b, int64_t pos, int64_t hi, int64_t *col) {
  *col = pos - b->out;
  int64_t n = b->inner - *col;
  return n < hi - pos ? n : hi - pos;
}

/* Advance to the next row; 0 when done. */
static inline int ox_bcast_next(ox_bcast *b) {
  b->out += b->inner;
  if (b->out >= b->n) return 0;
  for (int d = b->rank - 2; d >= 0; d--) {
    b->idx[d]++;
    for (int k = 0; k < b->nin; k++) b->off[k] += b->stride[k][d];
    if (b->idx[d] < b->dims[d]) return 1;
    for (int k = 0; k < b->nin; k++) b->off[k] -= b->stride[k][d] * b->dims[d];
    b->idx[d] = 0;
  }
  return 1;
}

#endif
