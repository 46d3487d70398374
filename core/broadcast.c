/* core/broadcast.c: numpy broadcasting, with dims merged for long inner loops. */
#include <stdio.h>
#include <string.h>

#include "broadcast.h"

int ox_broadcast_shape(int n, const ox_tensor *const *ts, int *rank, int64_t *dims, ox_err *e) {
  int r = 0;
  for (int k = 0; k < n; k++)
    if (ts[k]->rank > r) r = ts[k]->rank;
  if (r > OX_BCAST_MAX_RANK) return ox_fail(e, OX_EINPUT, "rank %d is more than %d", r, OX_BCAST_MAX_RANK);
  for (int d = 0; d < r; d++) dims[d] = 1;
  for (int k = 0; k < n; k++) {
    const ox_tensor *t = ts[k];
    for (int d = 0; d < t->rank; d++) {
      int64_t *o = &dims[r - t->rank + d], v = t->dims[d];
      if (v == *o || v == 1) continue;
      if (*o == 1) {
        *o = v;
        continue;
      }
      char s1[256], s2[256];
      return ox_fail(e, OX_EINPUT, "shapes %s and %s cannot be broadcast together",
                     ox_shape_str(ts[0]->rank, ts[0]->dims, s1, sizeof s1),
                     ox_shape_str(t->rank, t->dims, s2, sizeof s2));
    }
  }
  *rank = r;
  return 0;
}

int ox_bcast_init(ox_bcast *b, int n, const ox_tensor *const *ts, int rank, const int64_t *dims,
                  ox_err *e) {
  if (n > OX_BCAST_MAX_IN) return ox_fail(e, OX_EINPUT, "more than %d inputs", OX_BCAST_MAX_IN);
  if (rank > OX_BCAST_MAX_RANK) return ox_fail(e, OX_EINPUT, "rank %d is more than %d", rank, OX_BCAST_MAX_RANK);
  memset(b, 0, sizeof *b);
  b->nin = n;
  b->n = ox_numel(rank, dims, 0);
  if (b->n == 0) { /* nothing to visit; the strides of (0, 2^62, 2^62) would overflow */
    b->rank = 1;
    return 0;
  }
  /* full-rank strides: 0 where an input is broadcast (dim 1 against a larger
   * output dim, or missing on the left) */
  int64_t st[OX_BCAST_MAX_IN][OX_BCAST_MAX_RANK + 1];
  for (int k = 0; k < n; k++) {
    const ox_tensor *t = ts[k];
    if (t->rank > rank) return ox_fail(e, OX_EINPUT, "an input of rank %d does not broadcast to rank %d", t->rank, rank);
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
      int td = d - (rank - t->rank);
      int64_t v = td >= 0 ? t->dims[td] : 1;
      if (v != dims[d] && v != 1) {
        char s1[256], s2[256];
        return ox_fail(e, OX_EINPUT, "shape %s does not broadcast to %s",
                       ox_shape_str(t->rank, t->dims, s1, sizeof s1), ox_shape_str(rank, dims, s2, sizeof s2));
      }
      st[k][d] = (v == 1 && dims[d] != 1) ? 0 : s;
      s *= v;
    }
  }
  /* merge adjacent dims d-1, d when, for every input, stride[d-1] == stride[d] * dims[d]
   * (both contiguous, or both broadcast); dims of size 1 drop out */
  int r = 0;
  int64_t md[OX_BCAST_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    if (dims[d] == 1) continue;
    if (r > 0) {
      int ok = 1;
      for (int k = 0; k < n && ok; k++) {
        int64_t inner = b->stride[k][r - 1];
        ok = (st[k][d] == 0 && inner == 0) || (st[k][d] != 0 && inner == st[k][d] * dims[d]);
      }
      if (ok) {
        md[r - 1] *= dims[d];
        for (int k = 0; k < n; k++) b->stride[k][r - 1] = st[k][d];
        continue;
      }
    }
    md[r] = dims[d];
    for (int k = 0; k < n; k++) b->stride[k][r] = st[k][d];
    r++;
  }
  if (r == 0) { /* a scalar, or all dims 1 */
    md[0] = 1;
    for (int k = 0; k < n; k++) b->stride[k][0] = 1;
    r = 1;
  }
  b->rank = r;
  memcpy(b->dims, md, sizeof(int64_t) * (size_t)r);
  b->inner = md[r - 1];
  for (int k = 0; k < n; k++) b->step[k] = b->stride[k][r - 1] ? 1 : 0;
  if (b->n == 0) b->inner = 0;
  return 0;
}

void ox_bcast_seek(ox_bcast *b, int64_t pos) {
  int64_t row = b->inner ? pos / b->inner : 0;
  b->out = row * b->inner;
  for (int k = 0; k < b->nin; k++) b->off[k] = 0;
  for (int d = b->rank - 2; d >= 0; d--) { /* row-major digits of row over dims[0 .. rank-2] */
    b->idx[d] = row % b->dims[d];
    row /= b->dims[d];
    for (int k = 0; k < b->nin; k++) b->off[k] += b->idx[d] * b->stride[k][d];
  }
}
