/* ops/attention_body.h: Attention's pass over the heads in one compute type,
 * written once. ops/attention.c includes it once per type, with F (float or
 * double), FN(name) (the name with the type's suffix: qk_f32, rows_f64),
 * GEMM (ox_sgemm or ox_dgemm) and TANH (tanhf or tanh) defined, as
 * core/fft32.c and core/fft64.c include core/fft_body.h. */
#if !defined(F) || !defined(FN) || !defined(GEMM) || !defined(TANH)
#error "define F, FN, GEMM, TANH before including ops/attention_body.h"
#endif

/* sc (S, T) = scale * Q[b, h] · K[b, h / group]^T */
static void FN(qk)(const att_p *p, const F *q, const F *k, int64_t b, int64_t h,
                   F *sc) {
  if (!p->S || !p->T) return;
  int64_t hk = h / (p->Hq / p->Hkv); /* GQA: contiguous groups of query heads */
  const F *qb = q + b * p->qs[0] + h * p->qs[1];
  const F *kb = k + b * p->ks[0] + hk * p->ks[1];
  if (p->D)
    GEMM(p->threads, p->S, p->T, p->D, qb, p->qs[2], 0, kb, p->ks[2], 1, sc, p->T, (F)p->scale,
         0);
  else
    memset(sc, 0, (size_t)(p->S * p->T) * sizeof(F));
}

/* y[b, h] (S, Dv) = P (S, T) · V[b, h / group] (T, Dv) */
static void FN(pv)(const att_p *p, const F *v, int64_t b, int64_t h, const F *sc,
                   F *y) {
  if (!p->S || !p->Dv || !p->T) return; /* y is zeroed: T == 0 leaves zeros */
  int64_t hk = h / (p->Hq / p->Hkv);
  const F *vb = v + b * p->vs[0] + hk * p->vs[1];
  F *yb = y + b * p->ys[0] + h * p->ys[1];
  GEMM(p->threads, p->S, p->Dv, p->T, sc, p->T, 0, vb, p->vs[2], 0, yb, p->ys[2], 1, 0);
}

/* Softmax of one row r (n) in place, in the softmax precision. */
static void FN(softmax)(const att_p *p, F *r, int64_t n, int rnd) {
  F m = -INFINITY;
  int nan = 0;
  if (rnd)
    for (int64_t j = 0; j < n; j++) r[j] = (F)ox_round_to(p->smp, r[j]);
  m = FN(rowmax)(r, n, &nan);
  if (nan) { /* the max is NaN, and so is every exp(x - max) */
    for (int64_t j = 0; j < n; j++) r[j] = (F)NAN;
    return;
  }
  if (m == -INFINITY && p->zero_masked_rows) {
    memset(r, 0, (size_t)n * sizeof(F));
    return;
  }
  if (rnd) { /* each step rounded, as numpy's float16 softmax does for the reference:
              * exp(x - max) in the precision, their sum (added in float), the quotient */
    float sum = 0;
    for (int64_t j = 0; j < n; j++) {
      r[j] = (F)ox_round_to(p->smp, expf((float)ox_round_to(p->smp, (double)r[j] - m)));
      sum += (float)r[j];
    }
    double s = ox_round_to(p->smp, sum);
    for (int64_t j = 0; j < n; j++) r[j] = (F)ox_round_to(p->smp, r[j] / s);
    return;
  }
  FN(scale)(r, n, (F)(1.0 / FN(expsum)(r, n, m, p->smp == OX_DOUBLE)));
}

/* Softmax of row r (n) with one more logit, `sink`, in the denominator
 * (onnxruntime's smooth softmax, GroupQueryAttention's head_sink): the max
 * is taken over the row and the sink, e^(sink - max) joins the sum. */
static void FN(softmax_sink)(F *r, int64_t n, double sink) {
  int nan = 0;
  F m = FN(rowmax)(r, n, &nan);
  if (nan) {
    for (int64_t j = 0; j < n; j++) r[j] = (F)NAN;
    return;
  }
  if (sink > m) m = (F)sink;
  double s = FN(expsum)(r, n, m, 0) + exp(sink - (double)m);
  FN(scale)(r, n, (F)(1.0 / s));
}

/* r[j0..j1) += the mask's bias (0 without a mask), plus -inf when `out`;
 * *bmax, *bnan: the bias's running max and whether it held a NaN. */
static void FN(bias)(const att_p *p, F *r, const F *mrow, int64_t j0, int64_t j1,
                     int out, F *bmax, int *bnan) {
  if (!mrow) {
    if (out)
      for (int64_t j = j0; j < j1; j++) r[j] += (F)-INFINITY;
    else if (j0 < j1 && *bmax < 0)
      *bmax = 0;
    return;
  }
  for (int64_t j = j0; j < j1; j++) {
    F bv = j < p->mlen ? mrow[j * p->ms[3]] : (F)-INFINITY;
    if (out) bv += (F)-INFINITY; /* NaN for a +inf or NaN mask value */
    *bnan |= bv != bv;
    *bmax = bv > *bmax ? bv : *bmax;
    r[j] += bv;
  }
}

/* Attention's pass over the rows of head (b, h): softcap, bias, softmax, and
 * the qk_matmul_output of its mode. qk: (B, Hq, S, T) or NULL. */
static void FN(rows)(const att_p *p, const F *mask, int64_t b, int64_t h, F *sc,
                     F *qk, int rnd) {
  int64_t T = p->T;
  size_t rowb = (size_t)T * sizeof(F);
  /* the causal offset: past_sequence_length for the internal cache, else (24)
   * nonpad_kv_seqlen[b] - q_sequence_length for an external one, else 0 */
  int64_t off = p->pastb ? p->pastb[b] : p->nonpad ? p->nonpad[b] - p->S : p->past;
  int64_t npad = p->nonpad ? p->nonpad[b] : T;
  for (int64_t i = 0; i < p->S; i++) {
    F *r = sc + i * T;
    F *o = qk ? qk + ((b * p->Hq + h) * p->S + i) * T : NULL;
    /* mode 0 is the product before softcap (Attention-23's text and function
     * body; the Python reference returns it softcapped) */
    if (o && p->mode == 0) memcpy(o, r, rowb);
    if (p->softcap != 0) {
      F cap = (F)p->softcap;
      for (int64_t j = 0; j < T; j++) r[j] = cap * TANH(r[j] / cap);
    }
    if (o && p->mode == 1) memcpy(o, r, rowb);
    /* The bias: the mask, plus -inf where the causal frontier (j <= pos), the
     * window or the padding excludes a key (added, not set: the spec composes
     * the biases by summing them). Those three leave the keys [lo, hi). A row
     * whose bias is -inf everywhere is fully masked: its probabilities are
     * zeros (23 and 24 errata), decided on the bias, not on the scores. */
    const F *mrow = p->has_mask ? mask + b * p->ms[0] + h * p->ms[1] + i * p->ms[2]
                                : NULL;
    int64_t pos = i + off, lo = 0, hi = npad; /* pos: the query's absolute position */
    if (p->causal && pos < hi - 1) hi = pos + 1;
    if (p->right >= 0 && p->right < hi - 1 - pos) hi = pos + p->right + 1;
    if (p->left >= 0 && p->left < pos) lo = pos - p->left;
    lo = lo > T ? T : lo;
    hi = hi < lo ? lo : hi;
    F bmax = -INFINITY;
    int bnan = 0;
    FN(bias)(p, r, mrow, 0, lo, 1, &bmax, &bnan);
    FN(bias)(p, r, mrow, lo, hi, 0, &bmax, &bnan);
    FN(bias)(p, r, mrow, hi, T, 1, &bmax, &bnan);
    if (o && p->mode == 2) memcpy(o, r, rowb);
    if (o && p->mode == 4) { /* (onnxruntime's GroupQueryAttention) the keys left out as 0 */
      memset(o, 0, rowb);
      if (hi > lo) memcpy(o + lo, r + lo, (size_t)(hi - lo) * sizeof(F));
    }
    if (!bnan && bmax == -INFINITY) memset(r, 0, rowb);
    else if (p->sink) FN(softmax_sink)(r, T, p->sink[h]);
    else FN(softmax)(p, r, T, rnd);
    if (o && p->mode == 3) memcpy(o, r, rowb);
  }
}

static int FN(attention)(ox_ctx *c, const att_p *p, const F *q, const F *k,
                         const F *v, const F *mask, F *y, F *qk) {
  if (!p->B || !p->Hq || !p->S) return 0;
  int64_t dims[2] = {p->S, p->T};
  if (ox_numel(2, dims, sizeof(F)) < 0) return ox_oom(c->err, NULL);
  F *sc = ox_alloc_array(c->a, p->S * p->T + 1, sizeof(F));
  if (!sc) return ox_oom(c->err, NULL);
  int rnd = narrower(p->smp, sizeof(F) == sizeof(double));
  for (int64_t b = 0; b < p->B; b++)
    for (int64_t h = 0; h < p->Hq; h++) {
      FN(qk)(p, q, k, b, h, sc);
      FN(rows)(p, mask, b, h, sc, qk, rnd);
      FN(pv)(p, v, b, h, sc, y);
    }
  return 0;
}

#undef F
#undef FN
#undef GEMM
#undef TANH
