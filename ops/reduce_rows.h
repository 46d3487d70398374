/* ops/reduce_rows.h: the vectorised row functions of ops/reduce.c (exp of
 * a vector, sums, softmax rows and columns), written once. reduce.c includes
 * it once per target, with FN(name) (the name with the target's suffix:
 * sum_row_generic, soft_row_avx2) and TARGET (empty, or the
 * __attribute__((target(...))) of the instruction set) defined, as
 * core/gemm.c instantiates its kernels. */
#if !defined(FN) || !defined(TARGET)
#error "define FN, TARGET before including ops/reduce_rows.h"
#endif
#ifndef TO_D8 /* 8 floats to 8 doubles */
#define TO_D8(v) __builtin_convertvector((v), vd8)
#endif

/* a > b lane by lane, as a mask: where the target has no 64-byte compare
 * (WIDE_CMP undefined), in 16-byte quarters, which SSE2 and AVX2 compare
 * natively; gcc would compare a vector wider than the target's one lane at
 * a time in scalar code */
TARGET static inline vi FN(vgt)(vf a, vf b) {
#ifdef WIDE_CMP
  return a > b;
#else
#define Q(v, k) __builtin_shufflevector((v), (v), 4 * (k), 4 * (k) + 1, 4 * (k) + 2, 4 * (k) + 3)
  vi4 q0 = Q(a, 0) > Q(b, 0), q1 = Q(a, 1) > Q(b, 1), q2 = Q(a, 2) > Q(b, 2), q3 = Q(a, 3) > Q(b, 3);
#undef Q
  return __builtin_shufflevector(__builtin_shufflevector(q0, q1, 0, 1, 2, 3, 4, 5, 6, 7),
                                 __builtin_shufflevector(q2, q3, 0, 1, 2, 3, 4, 5, 6, 7),
                                 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#endif
}

/* e^(x - m) of each lane, m at least x (a maximum; the tails' padding
 * aside, whose lanes are not used), with x - m carried exactly: t = x - m
 * rounded and err its rounding error (Knuth's two-sum: additions only, so
 * nothing is fused). Rounding x - m alone would cost the result |x - m| 2^-24
 * of relative error: 32 ULPs at x - m = -32. Then n = round(t log2 e), r =
 * (t - n ln2_hi) + (n ln2_lo + err), where t - n ln2_hi is exact (ln2_hi has
 * 9 bits; Sterbenz), so err costs no rounding of its own; e^r by a degree-6
 * polynomial, times 2^n built in the exponent bits (n is in the low bits of
 * t log2 e + 1.5 2^23; AVX-512: vscalefps, p 2^n rounded once as the
 * product is, n in [-126, 0]). t below -87.3 (where expf leaves the normal
 * range, and t = -inf, whose err is NaN) gives 0; a NaN t gives NaN. */
TARGET static inline vf FN(vexp_diff)(vf x, vf m) {
  vf t = x - m, a = t + m, b = t - a;
  vf err = (x - a) + (-m - b);
#if defined(__x86_64__) && ROWS_ISA == 2
  /* the lanes below -87.3 are computed on (from t as it is) and zeroed by
   * the last instruction's mask */
  __mmask16 keep = _mm512_cmp_ps_mask((__m512)t, _mm512_set1_ps(-87.33654f), _CMP_NLT_UQ);
#else
  vi under = FN(vgt)(vsplat(-87.33654f), t);
  t = vsel(under, vsplat(0.f), t);
#endif
  vf k = t * 1.44269504088896341f + 12582912.f; /* round by the 1.5*2^23 trick */
  vf n = k - 12582912.f;
  vf r = t - n * 0.693359375f;
  r = r + (n * 2.12194440e-4f + err);
  vf p = vsplat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
#if defined(__x86_64__) && ROWS_ISA == 2
  return (vf)_mm512_maskz_scalef_ps(keep, (__m512)p, (__m512)n);
#else
  vi e = ((vi)k + (127 - 0x4B400000)) << 23; /* (n + 127) << 23 */
  return (vf)((vi)(p * (vf)e) & ~under);
#endif
}
TARGET static double FN(sum_row)(const float *x, int64_t n) {
  /* float lanes over blocks of 1024 elements (each lane adds 16 values),
   * folded into double: rounding as a pairwise sum's */
  double s = 0;
  int64_t j = 0;
  while (j + 4 * VL <= n) {
    vf a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    for (int64_t end = j + 1024 <= n ? j + 1024 : n - (n - j) % (4 * VL); j < end; j += 4 * VL) {
      a0 += vload(x + j), a1 += vload(x + j + VL);
      a2 += vload(x + j + 2 * VL), a3 += vload(x + j + 3 * VL);
    }
    a0 = (a0 + a1) + (a2 + a3);
    for (int k = 0; k < VL; k++) s += a0[k];
  }
  for (; j < n; j++) s += x[j];
  return s;
}
/* The maximum of a row of n floats, NaNs skipped (-inf if all are), in
 * soft_row_ref's order: lane k of the whole vectors in turn, the lanes in
 * order, then the last n % VL. */
TARGET static inline float FN(max_seq)(const float *x, int64_t n) {
  int64_t nv = n / VL * VL, j;
  vf vm = vsplat(-INFINITY);
  for (j = 0; j < nv; j += VL) { /* NaN lanes are skipped: they give NaN anyway */
    vf v = vload(x + j);
    vm = vsel(FN(vgt)(v, vm), v, vm);
  }
  float m = -INFINITY;
  for (int k = 0; k < VL; k++) m = vm[k] > m ? vm[k] : m;
  for (; j < n; j++) m = x[j] > m ? x[j] : m;
  return m;
}
#if defined(__x86_64__) && ROWS_ISA == 2
/* soft_rows' own path, on AVX-512 only: in the other builds its 64-byte
 * shuffles and folds cost more than they save */
#define FAST_ROWS 1
/* a > b ? a : b lane by lane, b where either is NaN: vmaxps, one
 * instruction (vgt and vsel, which it equals, are two) */
#define vmax(a, b) ((vf)_mm512_max_ps((__m512)(a), (__m512)(b)))
/* v's lanes folded by f (vmax) as a tree, into lane 0 */
#define HFOLD(f, v)                                                                  \
  do {                                                                               \
    v = f(v, __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7)); \
    v = f(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3)); \
    v = f(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1)); \
    v = f(v, __builtin_shufflevector(v, v, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0)); \
  } while (0)

/* The maximum of a row of n floats, NaNs skipped (-inf if all are): two
 * chains of vector maxima, the last n % VL from the vector that ends the
 * row (overlapping the one before), folded as a tree. A maximum is one
 * value whatever the order of the comparisons, but for 0 and -0 (NaN lanes
 * are skipped, never kept), which max_seq's order may pick differently:
 * see soft_rows. */
TARGET static inline float FN(max_row)(const float *x, int64_t n) {
  int64_t nv = n / VL * VL, j = 0;
  if (!nv) {
    float m = -INFINITY;
    for (; j < n; j++) m = x[j] > m ? x[j] : m;
    return m;
  }
  vf m0 = vsplat(-INFINITY), m1 = m0;
  for (; j + 2 * VL <= nv; j += 2 * VL) m0 = vmax(vload(x + j), m0), m1 = vmax(vload(x + j + VL), m1);
  if (j < nv) m0 = vmax(vload(x + j), m0);
  if (nv < n) m1 = vmax(vload(x + n - VL), m1);
  m0 = vmax(m0, m1);
  HFOLD(vmax, m0);
  return m0[0];
}
/* lanes VL - k on of tail_mask + k are all ones */
static const int32_t FN(tail_mask)[2 * VL] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                              -1, -1, -1, -1, -1, -1, -1, -1,
                                              -1, -1, -1, -1, -1, -1, -1, -1};
#endif

/* Softmax/LogSoftmax of one contiguous row, its maximum m given (the
 * reference path; on AVX-512 that of LogSoftmax and of rows under VL or
 * over 64 VL + VL - 1 floats; not inlined: built alone, gcc keeps the
 * operand order of its sums, which NaN payloads follow, as before). The
 * exponentials of the last n - nv floats of a row of more than VL come from
 * the vector that ends the row (x + n - VL), overlapping the one before,
 * rather than from a padded copy (whose small stores a vector load can't
 * forward from: a stall per row); the sum adds only its last n - nv lanes,
 * in order, and the lanes before them are stored again with the same values
 * (e^(x - m) of the same x), before any is scaled. The results are the
 * padded copy's, to the bit. */
TARGET __attribute__((noinline)) static void FN(soft_row_ref)(const float *x, float *y, int64_t n, float m, int log_) {
  int64_t nv = n / VL * VL, j;
  int over = n > VL && nv < n; /* the overlapping last vector: lanes VL - (n - nv) on are new */
  /* softmax: the sum in float lanes, folded into double every 64 vectors;
   * log-softmax: in double lanes, since log s near 0 needs the small terms
   * that the maximum's 1 in a float lane would drown */
  double s = 0;
  if (!log_) {
    for (j = 0; j < nv;) {
      vf vs = {0};
      for (int64_t end = j + 64 * VL < nv ? j + 64 * VL : nv; j < end; j += VL) {
        vf e = FN(vexp_diff)(vload(x + j), vsplat(m));
        vstore(y + j, e);
        vs += e;
      }
      for (int k = 0; k < VL; k++) s += vs[k];
    }
  } else {
    vd8 s0 = {0}, s1 = {0};
    for (j = 0; j < nv; j += VL) {
      vf e = FN(vexp_diff)(vload(x + j), vsplat(m));
      s0 += TO_D8(__builtin_shufflevector(e, e, 0, 1, 2, 3, 4, 5, 6, 7));
      s1 += TO_D8(__builtin_shufflevector(e, e, 8, 9, 10, 11, 12, 13, 14, 15));
    }
    s0 += s1;
    for (int k = 0; k < 8; k++) s += s0[k];
  }
  /* the last n - nv: et[k] is e^(x[at + k] - m) */
  int64_t at = over ? n - VL : nv;
  float tail[VL] = {0}, et[VL];
  const float *src = x + at;
  if (nv < n) {
    if (!over) { /* a row shorter than a vector: padded */
      memcpy(tail, x + nv, (size_t)(n - nv) * sizeof *x);
      src = tail;
    }
    vf e = FN(vexp_diff)(vload(src), vsplat(m));
    vstore(et, e);
    if (!log_ && over) vstore(y + at, e);
    else if (!log_) memcpy(y + nv, et, (size_t)(n - nv) * sizeof *y);
  }
  for (j = nv; j < n; j++) s += et[j - at];
  /* log-softmax: (x - m) - log s, so that a large m loses nothing; s holds
   * 1 for the maximum, and log1p(s - 1) keeps the relative error of the rest
   * of s (exp's few ULPs) from growing by 1 / log s where s is near 1 */
  if (log_) {
    float ls = (float)log1p(s - 1);
    for (j = 0; j < nv; j += VL) vstore(y + j, (vload(x + j) - m) - ls);
    for (; j < n; j++) y[j] = (x[j] - m) - ls;
  } else {
    float f = (float)(1 / s);
    for (j = 0; j < nv; j += VL) vstore(y + j, vload(y + j) * f);
    for (; j < n; j++) y[j] = y[j] * f;
  }
}
/* The fast path of soft_rows gives soft_row_ref's bits (after max_seq), to
 * the bit, for every input. The maximum comes from max_row, whose sign of a
 * zero maximum may differ from soft_row_ref's order's: it never shows. The
 * exponentials see only 0 + m (vsplat), +0 for either; LogSoftmax's x - m
 * is x for x not 0, and for x = +-0 it is +-0 whose - log1p(s - 1) is the
 * same, s being at least 2 (two zero maxima: two 1s) or NaN.
 * Softmax of a row of VL to 64 VL + VL - 1 floats (one block of float
 * lane sums: soft_exp, soft_scale) differs in two more ways that give the
 * same values:
 * - the 16 lane sums vs and the tail's n - nv exponentials et, all floats
 *   of at least 0, are folded into double as a tree rather than in order,
 *   where that is exact and so the same double: every value is a multiple
 *   of the least one's ULP q = 2^(e - 23) (e its exponent), and so is every
 *   partial sum of either order; one below 2^53 q is a double, exactly. The
 *   tree's total s below 2^28 times the least value mn (a bound on the
 *   exact total, below 2^29 mn <= 2^53 q, that holds even if s was rounded)
 *   shows it; mn is the least lane of vs and of all of et (a superset of the
 *   values added: a smaller mn only makes the test stricter), each lane
 *   compared with s 2^-27; zero lanes, NaN and inf fail it, and the fold is
 *   then done in order;
 * - the last n - nv products come from the overlapping vector's e * f,
 *   stored after the whole vectors' (the same e and f: the same products),
 *   where f is not NaN (a NaN row is scaled as soft_row_ref scales it, for
 *   its NaN's payload). */
#ifdef FAST_ROWS
/* Softmax of a row of VL to 64 VL + VL - 1 floats, its maximum
 * m given, up to the factor: y holds the e^(x - m) of the whole vectors,
 * *etp the overlapping last vector's (n % VL not 0); returns (float)(1 / s) */
TARGET static inline float FN(soft_exp)(const float *x, float *y, int64_t n, float m, vf *etp) {
  int64_t nv = n / VL * VL, k = n - nv, j;
  vf vmm = vsplat(m), vs = {0}, et = {0};
  for (j = 0; j < nv; j += VL) {
    vf e = FN(vexp_diff)(vload(x + j), vmm);
    vstore(y + j, e);
    vs += e;
  }
  if (k) et = FN(vexp_diff)(vload(x + n - VL), vmm);
  vi used;
  memcpy(&used, FN(tail_mask) + k, sizeof used);
  vf u = (vf)((vi)et & used);
  vd8 d = (TO_D8(__builtin_shufflevector(vs, vs, 0, 1, 2, 3, 4, 5, 6, 7)) +
           TO_D8(__builtin_shufflevector(vs, vs, 8, 9, 10, 11, 12, 13, 14, 15))) +
          (TO_D8(__builtin_shufflevector(u, u, 0, 1, 2, 3, 4, 5, 6, 7)) +
           TO_D8(__builtin_shufflevector(u, u, 8, 9, 10, 11, 12, 13, 14, 15)));
  d += __builtin_shufflevector(d, d, 4, 5, 6, 7, 0, 1, 2, 3);
  d += __builtin_shufflevector(d, d, 2, 3, 0, 1, 2, 3, 0, 1);
  double s = d[0] + d[1];
  /* every lane of vs (and et) above s 2^-27 rounded to float: above
   * s 2^-28 (where s 2^-27 is below float's normal range s is below
   * 2^-96 = 2^53 2^-149, the least ULP's: exact anyway) */
  __m512 lim = _mm512_set1_ps((float)(s * 0x1p-27));
  __mmask16 big = _mm512_cmp_ps_mask((__m512)vs, lim, _CMP_GT_OQ);
  if (k) big &= _mm512_cmp_ps_mask((__m512)et, lim, _CMP_GT_OQ);
  if (big != 0xFFFF) { /* in order, as soft_row_ref */
    s = 0;
    for (int q = 0; q < VL; q++) s += vs[q];
    for (j = nv; j < n; j++) s += et[j - (n - VL)];
  }
  *etp = et;
  return (float)(1 / s);
}
/* Softmax of a row of 1 to VL - 1 floats in one masked vector, as
 * soft_row_ref's padded copy (zeros past n: the same lanes), its sum of the
 * n exponentials as a tree where soft_exp's test shows it exact; a NaN
 * row goes to soft_row_ref whole (for its NaN's payload) */
TARGET static inline void FN(soft_short)(const float *x, float *y, int64_t n) {
  __mmask16 used = (__mmask16)((1u << n) - 1);
  vf v = vmax((vf)_mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), used, x), vsplat(-INFINITY));
  HFOLD(vmax, v); /* NaN lanes were made -inf by the vmax before */
  float m = v[0];
  vf et = FN(vexp_diff)((vf)_mm512_maskz_loadu_ps(used, x), vsplat(m));
  vf u = (vf)_mm512_maskz_mov_ps(used, (__m512)et);
  vd8 d = TO_D8(__builtin_shufflevector(u, u, 0, 1, 2, 3, 4, 5, 6, 7)) +
          TO_D8(__builtin_shufflevector(u, u, 8, 9, 10, 11, 12, 13, 14, 15));
  d += __builtin_shufflevector(d, d, 4, 5, 6, 7, 0, 1, 2, 3);
  d += __builtin_shufflevector(d, d, 2, 3, 0, 1, 2, 3, 0, 1);
  double s = d[0] + d[1];
  __mmask16 big = _mm512_cmp_ps_mask((__m512)et, _mm512_set1_ps((float)(s * 0x1p-27)), _CMP_GT_OQ);
  if ((big & used) != used) { /* in order, as soft_row_ref */
    s = 0;
    for (int64_t j = 0; j < n; j++) s += et[j];
  }
  float f = (float)(1 / s);
  if (f != f) {
    FN(soft_row_ref)(x, y, n, m, 0);
    return;
  }
  _mm512_mask_storeu_ps(y, used, (__m512)(et * f));
}
/* the products of a row soft_exp left in y and et, f its factor */
TARGET static inline void FN(soft_scale)(float *y, int64_t n, float f, vf et) {
  int64_t nv = n / VL * VL, k = n - nv, j;
  if (f != f) { /* soft_row_ref's stores and products */
    if (k) vstore(y + n - VL, et);
    for (j = 0; j < nv; j += VL) vstore(y + j, vload(y + j) * f);
    for (; j < n; j++) y[j] = y[j] * f;
    return;
  }
  vf t = et * f;
  for (j = 0; j < nv; j += VL) vstore(y + j, vload(y + j) * f);
  if (k) vstore(y + n - VL, t);
}
#endif
/* Softmax/LogSoftmax of rows rows of n floats each. The fast path
 * (AVX-512, Softmax, rows of VL to 64 VL + VL - 1) works on three rows at
 * once: the next row's maximum, this row's exponentials, the last row's
 * products, so that neither the maximum's latency (before any exponential
 * can start) nor the fold's and 1 / s's (before any product) holds up the
 * exponentials, which are most of the work (about 8% at rows of 197).
 * Each row's arithmetic is the same as alone. */
TARGET static void FN(soft_rows)(const float *x, float *y, int64_t rows, int64_t n, int log_) {
#ifdef FAST_ROWS
  if (!log_ && n >= VL && n < 65 * VL && rows > 0) {
    float m = FN(max_row)(x, n), f = 0;
    vf et = {0};
    for (int64_t r = 0; r < rows; r++) {
      float next = r + 1 < rows ? FN(max_row)(x + (r + 1) * n, n) : 0;
      vf e;
      float g = FN(soft_exp)(x + r * n, y + r * n, n, m, &e);
      if (r) FN(soft_scale)(y + (r - 1) * n, n, f, et);
      f = g, et = e, m = next;
    }
    FN(soft_scale)(y + (rows - 1) * n, n, f, et);
    return;
  }
#endif
  for (int64_t r = 0; r < rows; r++) {
#ifdef FAST_ROWS
    if (!log_ && n < VL)
      FN(soft_short)(x + r * n, y + r * n, n);
    else
      FN(soft_row_ref)(x + r * n, y + r * n, n, FN(max_row)(x + r * n, n), log_);
#else
    FN(soft_row_ref)(x + r * n, y + r * n, n, FN(max_seq)(x + r * n, n), log_);
#endif
  }
}
/* acc[j] += x[j] in double (ReduceSum/Mean over leading dims: row by row) */
TARGET static void FN(add_row)(double *restrict acc, const float *restrict x, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    vf8 v;
    vd8 a;
    memcpy(&v, x + j, sizeof v);
    memcpy(&a, acc + j, sizeof a);
    a += TO_D8(v);
    memcpy(acc + j, &a, sizeof a);
  }
  for (; j < n; j++) acc[j] += (double)x[j];
}
/* add_row of rows x[r * n ...] for r in [0, rows), four rows per pass over acc */
/* (each acc[j] still adds x[0][j], x[1][j], ... in that order) */
TARGET static void FN(add_rows)(double *restrict acc, const float *restrict x,
                                int64_t rows, int64_t n) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const float *x0 = x + r * n, *x1 = x0 + n, *x2 = x1 + n, *x3 = x2 + n;
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
      vf8 v0, v1, v2, v3;
      vd8 a;
      /* the next pass's four rows, a line (16 floats) at a time: the
       * hardware prefetcher starts over at each row, and the rows of
       * a reduction over leading dims are often a page or two long */
      if (r + 8 <= rows && (j & 15) == 0) {
        __builtin_prefetch(x0 + 4 * n + j);
        __builtin_prefetch(x1 + 4 * n + j);
        __builtin_prefetch(x2 + 4 * n + j);
        __builtin_prefetch(x3 + 4 * n + j);
      }
      memcpy(&v0, x0 + j, sizeof v0);
      memcpy(&v1, x1 + j, sizeof v1);
      memcpy(&v2, x2 + j, sizeof v2);
      memcpy(&v3, x3 + j, sizeof v3);
      memcpy(&a, acc + j, sizeof a);
      a += TO_D8(v0);
      a += TO_D8(v1);
      a += TO_D8(v2);
      a += TO_D8(v3);
      memcpy(acc + j, &a, sizeof a);
    }
    for (; j < n; j++) acc[j] = (((acc[j] + (double)x0[j]) + (double)x1[j]) + (double)x2[j]) + (double)x3[j];
  }
  for (; r < rows; r++) FN(add_row)(acc, x + r * n, n);
}
/* Softmax/LogSoftmax of x: (d, inner) along d, a row of inner at a time, as */
/* soft_row_ref per column: m (2 * inner floats) the maxima then the factors, */
/* s (inner doubles) the sums */
TARGET static void FN(soft_cols)(const float *x, float *y, int64_t d, int64_t inner,
                                 float *m, double *s, int log_) {
  int64_t nv = inner / VL * VL, j;
  float *f = m + inner;
  for (j = 0; j < inner; j++) m[j] = -INFINITY, s[j] = 0;
  for (int64_t k = 0; k < d; k++) {
    const float *xk = x + k * inner;
    for (j = 0; j < nv; j += VL) {
      vf v = vload(xk + j), vm = vload(m + j);
      vstore(m + j, vsel(FN(vgt)(v, vm), v, vm));
    }
    for (; j < inner; j++) m[j] = xk[j] > m[j] ? xk[j] : m[j];
  }
  for (int64_t k = 0; k < d; k++) {
    const float *xk = x + k * inner;
    float *yk = y + k * inner;
    for (j = 0; j < nv; j += VL) vstore(yk + j, FN(vexp_diff)(vload(xk + j), vload(m + j)));
    if (j < inner) {
      float tx[VL] = {0}, tm[VL] = {0}, te[VL];
      memcpy(tx, xk + j, (size_t)(inner - j) * sizeof *tx);
      memcpy(tm, m + j, (size_t)(inner - j) * sizeof *tm);
      vstore(te, FN(vexp_diff)(vload(tx), vload(tm)));
      memcpy(yk + j, te, (size_t)(inner - j) * sizeof *te);
    }
    FN(add_row)(s, yk, inner);
  }
  /* log-softmax: f = log s, as soft_row_ref: log1p(s - 1) */
  for (j = 0; j < inner; j++) f[j] = log_ ? (float)log1p(s[j] - 1) : (float)(1 / s[j]);
  for (int64_t k = 0; k < d; k++) {
    const float *xk = x + k * inner;
    float *yk = y + k * inner;
    if (log_) {
      for (j = 0; j < nv; j += VL)
        vstore(yk + j, (vload(xk + j) - vload(m + j)) - vload(f + j));
      for (; j < inner; j++) yk[j] = (xk[j] - m[j]) - f[j];
    } else {
      for (j = 0; j < nv; j += VL) vstore(yk + j, vload(yk + j) * vload(f + j));
      for (; j < inner; j++) yk[j] = yk[j] * f[j];
    }
  }
}

#undef HFOLD
#undef FAST_ROWS
#undef vmax
#undef TO_D8
#undef WIDE_CMP
#undef ROWS_ISA
#undef FN
#undef TARGET
