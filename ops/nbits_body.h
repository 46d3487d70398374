/* ops/nbits_body.h: MatMulNBits' inner loops, included by ops/contrib_quant.c
 * once per vector width (NB_NAME, NB_TARGET), as core/gemv.c builds its own.
 * v16f and v16i are 16 lanes whatever the width: the compiler splits them
 * into the width's registers (one zmm, two ymm, four xmm). NB_WIDEN(p, q)
 * sets q (v16i) to the 16 bytes at p, zero-extended (GCC 12 builds
 * __builtin_convertvector of bytes from scalar moves). */

NB_TARGET static inline v16i NB_NAME(widen)(const uint8_t *p) {
  v16i q;
  NB_WIDEN(p, q);
  return q;
}

/* The thin product of 4-bit B (rows n0 .. n1 - 1) with the M rows of A,
 * read in place (see nb_rows): per column n and 16 bytes of its row (32
 * values of k, the low nibble of byte i is k = 2i, the high one 2i + 1),
 *   t_m = lo * a_even + hi * a_odd,  acc_m += t_m * s
 * with s the scale of the block each lane's k falls in; then
 *   y[m][n] = (sum of acc_m's lanes) - sum over blocks of s z asum_m
 * where z is the block's zero point and asum_m the block's sum of A's row m:
 * sum_k a_k (q_k - z) s = s (sum_k a_k q_k - z sum_k a_k). M is a constant
 * in each copy (gemv4 below), so the accumulators stay in registers. */
static inline __attribute__((always_inline)) NB_TARGET void NB_NAME(gemv4_m)(const int M, const nb_job *j,
                                                                              const nb_rows *r, int64_t n0,
                                                                              int64_t n1) {
  const int64_t kb = j->kb, rowbytes = j->kb * j->blob, nfull = rowbytes / 16;
  const int shift = j->bs == 16 ? 0 : __builtin_ctzll((unsigned long long)(j->bs / 32)); /* 32-value pieces a block */
  for (int64_t n = n0; n < n1; n++) {
    const uint8_t *row = j->b + n * rowbytes;
    const float *sc = j->s + n * kb;
    v16f acc[NB_THIN], acc2[NB_THIN]; /* even and odd pieces: two chains of additions */
    for (int m = 0; m < M; m++) acc[m] = acc2[m] = (v16f){0};
    for (int64_t c = 0; c <= nfull; c++) {
      uint8_t tail[16] = {0};
      const uint8_t *p = row + c * 16;
      if (c == nfull) { /* the last 8 bytes of a row of block size 16 and odd blocks */
        if (rowbytes % 16 == 0) break;
        memcpy(tail, p, (size_t)(rowbytes % 16));
        p = tail;
      }
      v16i q = NB_NAME(widen)(p);
      v16f lo = __builtin_convertvector(q & 15, v16f), hi = __builtin_convertvector(q >> 4, v16f);
      v16f sv;
      if (j->bs == 16) { /* bytes 0-7 are block 2c, bytes 8-15 block 2c + 1 */
        float s0 = sc[2 * c], s1 = 2 * c + 1 < kb ? sc[2 * c + 1] : 0;
        sv = (v16f){s0, s0, s0, s0, s0, s0, s0, s0, s1, s1, s1, s1, s1, s1, s1, s1};
      } else {
        sv = (v16f){0} + sc[c >> shift];
      }
      for (int m = 0; m < M; m++) {
        v16f ae, ao;
        memcpy(&ae, r->ae[m] + c * 16, sizeof ae);
        memcpy(&ao, r->ao[m] + c * 16, sizeof ao);
        if (c & 1) acc2[m] += (lo * ae + hi * ao) * sv;
        else acc[m] += (lo * ae + hi * ao) * sv;
      }
    }
    /* the zero points' part, sum_b s_b z_b asum_m[b], 16 blocks at a time */
    v16f cv[NB_THIN];
    for (int m = 0; m < M; m++) cv[m] = (v16f){0};
    const uint8_t *zr = j->zq ? j->zq + n * j->zrow : NULL;
    const float *zf = j->zf ? j->zf + n * kb : NULL;
    for (int64_t b = 0; b < kb; b += 16) {
      int len = kb - b < 16 ? (int)(kb - b) : 16;
      float sz[16] = {0};
      if (zr && j->bits == 4)
        for (int l = 0; l < len; l++) sz[l] = sc[b + l] * (float)((zr[(b + l) >> 1] >> (((b + l) & 1) * 4)) & 15);
      else if (zr || zf)
        for (int l = 0; l < len; l++) sz[l] = sc[b + l] * nb_zero(j, n, b + l);
      else
        for (int l = 0; l < len; l++) sz[l] = sc[b + l] * 8.0f;
      v16f szv;
      memcpy(&szv, sz, sizeof szv);
      for (int m = 0; m < M; m++) {
        v16f as;
        memcpy(&as, r->asum[m] + b, sizeof as); /* asum is padded to 16 */
        cv[m] += szv * as;
      }
    }
    for (int m = 0; m < M; m++) {
      float t[16], u[16], sum = 0, corr = 0;
      v16f tv = acc[m] + acc2[m];
      memcpy(t, &tv, sizeof t);
      memcpy(u, &cv[m], sizeof u);
      for (int l = 0; l < 16; l++) sum += t[l], corr += u[l];
      j->y[m * j->N + n] = sum - corr;
    }
  }
}

NB_TARGET static void NB_NAME(gemv4)(const nb_job *j, const nb_rows *r, int64_t n0, int64_t n1) {
  switch (r->M) {
  case 1: NB_NAME(gemv4_m)(1, j, r, n0, n1); break;
  case 2: NB_NAME(gemv4_m)(2, j, r, n0, n1); break;
  case 3: NB_NAME(gemv4_m)(3, j, r, n0, n1); break;
  default: NB_NAME(gemv4_m)(4, j, r, n0, n1); break;
  }
}

/* pb <- the dequantized columns [j0, j0 + nc) of op(B) = W^T, rows k in
 * [k0, k0 + kc), as core/gemm.h's packed B: nr-column slivers,
 * pb[(s * kc + k) * nr + jj], zero past N. From B regrouped by 16 columns
 * (qk, see nb_regroup): byte jj of unit u of group g holds the values of
 * column 16 g + jj for k = u per .. u per + per - 1 (per = 8 / bits), so a
 * row k of 16 columns is one load, shift and mask:
 *   w = (q - z) * s
 * with the zero point z and scale s of the column's block (g_idx's for k,
 * when given). j0 is a multiple of 16 and of nr. */
/* Store the 16 values *w for columns g0 .. g0 + 15 in row kk of pb: one
 * sliver (d0) or, when nr is 8, two (d0 and d1). (w by address: a 64-byte
 * vector passed by value draws GCC's -Wpsabi note.) */
static inline __attribute__((always_inline)) NB_TARGET void NB_NAME(put16)(const v16f *w, float *d0, float *d1,
                                                                            int64_t nr, int64_t kk) {
  if (!d1) {
    memcpy(d0 + kk * nr, w, sizeof *w);
  } else {
    memcpy(d0 + kk * 8, w, sizeof *w / 2);
    memcpy(d1 + kk * 8, (const char *)w + sizeof *w / 2, sizeof *w / 2);
  }
}

NB_TARGET static void NB_NAME(fill_pb)(const nb_job *j, const uint8_t *qk, int64_t j0, int64_t nc, int64_t k0,
                                       int64_t kc, float *pb, int64_t nr) {
  const int bits = (int)j->bits, per = 8 / bits, mask = (1 << bits) - 1;
  const int64_t rowbytes = j->kb * j->blob, k1 = k0 + kc;
  for (int64_t g0 = j0; g0 < j0 + nc; g0 += 16) {
    const uint8_t *grp = qk + (g0 / 16) * rowbytes * 16;
    int64_t col = g0 - j0;
    float *d0 = pb + (col / nr) * kc * nr + col % nr, *d1 = NULL;
    if (nr < 16) d1 = d0 + kc * nr; /* nr 8: the next sliver */
    for (int64_t k = k0; k < k1;) {
      /* a run of k of one block: its 16 columns' scale and zero point */
      int64_t blk = j->gidx ? j->gidx[k] : k / j->bs;
      int64_t kend = j->gidx ? k + 1 : (blk + 1) * j->bs < k1 ? (blk + 1) * j->bs : k1;
      float sf[16], zf[16];
      for (int l = 0; l < 16; l++) {
        int64_t n = g0 + l;
        sf[l] = n < j->N ? j->s[n * j->kb + blk] : 0;
        zf[l] = n < j->N ? nb_zero(j, n, blk) : 0;
      }
      v16f sv, zv;
      memcpy(&sv, sf, sizeof sv);
      memcpy(&zv, zf, sizeof zv);
      if (bits == 4 && k % 2 == 0 && kend % 2 == 0) { /* two values of k a byte */
        for (; k < kend; k += 2) {
          v16i q = NB_NAME(widen)(grp + (k / 2) * 16);
          v16f lo = (__builtin_convertvector(q & 15, v16f) - zv) * sv;
          v16f hi = (__builtin_convertvector(q >> 4, v16f) - zv) * sv;
          NB_NAME(put16)(&lo, d0, d1, nr, k - k0);
          NB_NAME(put16)(&hi, d0, d1, nr, k + 1 - k0);
        }
        continue;
      }
      for (; k < kend; k++) {
        v16i q = (NB_NAME(widen)(grp + (k / per) * 16) >> (int)((k % per) * bits)) & mask;
        v16f w = (__builtin_convertvector(q, v16f) - zv) * sv;
        NB_NAME(put16)(&w, d0, d1, nr, k - k0);
      }
    }
  }
}

#undef NB_NAME
#undef NB_TARGET
#undef NB_WIDEN
