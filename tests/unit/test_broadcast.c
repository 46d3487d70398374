/* tests/unit/test_broadcast.c: the broadcasting iterator against a naive
 * per-element index computation, over many shapes: whole walks, and walks of
 * a random range [lo, hi) from ox_bcast_seek (as a thread's chunk does). */
#include <stdlib.h>

#include "kit.h"

static unsigned rnd_state = 12345;
static int rnd(int n) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (int)((rnd_state >> 16) % (unsigned)n);
}

int main(void) {
  ox_err e = {0};
  /* shapes and the failure message */
  {
    int64_t a[] = {2, 3}, b[] = {4};
    ox_tensor ta = {OX_FLOAT, 2, a, 6, NULL}, tb = {OX_FLOAT, 1, b, 4, NULL};
    const ox_tensor *ts[] = {&ta, &tb};
    int r;
    int64_t d[4];
    CHECK(ox_broadcast_shape(2, ts, &r, d, &e) == OX_EINPUT);
    CHECK(strstr(e.msg, "shapes (2, 3) and (4,) cannot be broadcast together") != NULL);
  }
  {
    int64_t a[] = {2, 1, 3}, b[] = {4, 1}, c[] = {0};
    ox_tensor ta = {OX_FLOAT, 3, a, 6, NULL}, tb = {OX_FLOAT, 2, b, 4, NULL}, tc = {OX_FLOAT, 0, c, 1, NULL};
    const ox_tensor *ts[] = {&ta, &tb, &tc};
    int r;
    int64_t d[4];
    ox_err_clear(&e);
    CHECK_EQ_I(ox_broadcast_shape(3, ts, &r, d, &e), 0);
    CHECK_EQ_I(r, 3);
    CHECK(d[0] == 2 && d[1] == 4 && d[2] == 3);
  }
  /* random shapes: every element's offsets match the naive computation */
  int bad = 0, runs = 0;
  for (int iter = 0; iter < 3000; iter++) {
    int rank = rnd(6), nin = 1 + rnd(3);
    int64_t dims[8];
    for (int d = 0; d < rank; d++) dims[d] = rnd(5) == 0 ? 1 : 1 + rnd(4);
    if (rnd(40) == 0 && rank) dims[rnd(rank)] = 0;
    ox_tensor ts[3];
    int64_t tdims[3][8];
    const ox_tensor *tp[3];
    for (int k = 0; k < nin; k++) {
      int tr = rank ? rnd(rank + 1) : 0;
      for (int d = 0; d < tr; d++) {
        int64_t od = dims[rank - tr + d];
        tdims[k][d] = rnd(3) == 0 ? 1 : od;
      }
      ts[k].rank = tr;
      ts[k].dims = tdims[k];
      tp[k] = &ts[k];
    }
    int orank;
    int64_t odims[8];
    ox_err_clear(&e);
    if (ox_broadcast_shape(nin, tp, &orank, odims, &e)) continue;
    ox_bcast b;
    if (ox_bcast_init(&b, nin, tp, orank, odims, &e)) { bad++; continue; }
    int64_t n = ox_numel(orank, odims, 0), seen = 0;
    if (n == 0) { CHECK_EQ_I(b.n, 0); continue; }
    runs++;
    do {
      for (int64_t i = 0; i < b.inner; i++) {
        for (int k = 0; k < nin; k++)
          if (b.off[k] + i * b.step[k] != kit_bcast_off(&ts[k], orank, odims, b.out + i)) bad++;
        seen++;
      }
    } while (ox_bcast_next(&b));
    if (seen != n) bad++;
    /* a walk over [lo, hi) from ox_bcast_seek, run by run (a thread's chunk) */
    int64_t lo = rnd((int)n), hi = lo + 1 + rnd((int)(n - lo));
    ox_bcast_seek(&b, lo);
    seen = 0;
    for (int64_t pos = lo, col, len; pos < hi; pos += len) {
      if (pos > lo) ox_bcast_next(&b);
      len = ox_bcast_run(&b, pos, hi, &col);
      if (len <= 0 || b.out + col != pos) { bad++; break; }
      for (int64_t i = 0; i < len; i++, seen++)
        for (int k = 0; k < nin; k++)
          if (b.off[k] + (col + i) * b.step[k] != kit_bcast_off(&ts[k], orank, odims, pos + i)) bad++;
    }
    if (seen != hi - lo) bad++;
  }
  CHECK_EQ_I(bad, 0);
  CHECK(runs > 1000);
  /* merging: (2, 3, 4) + (4,) is 6 rows of 4; (2, 3, 4) + (2, 3, 4) is one row of 24 */
  {
    int64_t a[] = {2, 3, 4}, c[] = {4};
    ox_tensor ta = {OX_FLOAT, 3, a, 24, NULL}, tc = {OX_FLOAT, 1, c, 4, NULL};
    const ox_tensor *t1[] = {&ta, &tc}, *t2[] = {&ta, &ta};
    ox_bcast b;
    CHECK_EQ_I(ox_bcast_init(&b, 2, t1, 3, a, &e), 0);
    CHECK_EQ_I(b.inner, 4);
    CHECK_EQ_I(b.rank, 2);
    CHECK_EQ_I(ox_bcast_init(&b, 2, t2, 3, a, &e), 0);
    CHECK_EQ_I(b.inner, 24);
    CHECK_EQ_I(b.rank, 1);
  }
  /* a zero dim makes a shape empty whatever the others: no overflow, in any
   * order, and an iterator with nothing to visit */
  {
    const int64_t H = INT64_C(1) << 62;
    int64_t s1[] = {0, H, 3}, s2[] = {3, H, 0}, s3[] = {H, 0, H}, s4[] = {H, H, 0}, s5[] = {H, H, 1};
    CHECK_EQ_I(ox_numel(3, s1, 4), 0);
    CHECK_EQ_I(ox_numel(3, s2, 4), 0);
    CHECK_EQ_I(ox_numel(3, s3, 8), 0);
    CHECK_EQ_I(ox_numel(3, s4, 8), 0);
    CHECK_EQ_I(ox_numel(3, s5, 0), -1);
    int64_t neg[] = {H, -1, 0};
    CHECK_EQ_I(ox_numel(3, neg, 0), -1);
    ox_tensor ta = {OX_FLOAT, 3, s4, 0, NULL}, tb = {OX_FLOAT, 1, (int64_t[]){1}, 1, NULL};
    const ox_tensor *t1[] = {&ta, &tb};
    ox_bcast b;
    ox_err_clear(&e);
    CHECK_EQ_I(ox_bcast_init(&b, 2, t1, 3, s4, &e), 0);
    CHECK_EQ_I(b.n, 0);
    CHECK_EQ_I(b.inner, 0);
    CHECK_EQ_I(ox_bcast_next(&b), 0);
  }
  return check_done("broadcast");
}
