/* ops/rnn_body.h: the per-type parts of ops/rnn.c (activations over a
 * vector, clip, the driver), written once. rnn.c includes it once per
 * element type, with T (float or double), FN(name) (the name with the type's
 * suffix: act_f, run_d), GEMM (ox_sgemm_any or ox_dgemm_any: thin products, a batch of one, read the weights in place) defined, as
 * core/fft32.c and core/fft64.c include core/fft_body.h, and VSIGMOID(x, n)
 * and VTANH(x, n) (in place over n elements: core/vmath.h's for float). */
#if !defined(T) || !defined(FN) || !defined(GEMM) || !defined(VSIGMOID) || !defined(VTANH)
#error "define T, FN, GEMM, VSIGMOID, VTANH before including ops/rnn_body.h"
#endif

static void FN(act)(const act *a, T *x, int64_t n) {
  T al = (T)a->alpha, be = (T)a->beta;
  switch (a->kind) {
  case A_RELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] > 0 ? x[i] : 0; break;
  case A_TANH: VTANH(x, n); break;
  case A_SIGMOID: VSIGMOID(x, n); break;
  case A_AFFINE: for (int64_t i = 0; i < n; i++) x[i] = al * x[i] + be; break;
  case A_LEAKY: for (int64_t i = 0; i < n; i++) x[i] = x[i] >= 0 ? x[i] : al * x[i]; break;
  case A_THRELU: /* the RNN ops' own text: x if x >= alpha */
    for (int64_t i = 0; i < n; i++) x[i] = x[i] >= al ? x[i] : 0;
    break;
  case A_STANH:
    for (int64_t i = 0; i < n; i++) x[i] = be * x[i];
    VTANH(x, n);
    for (int64_t i = 0; i < n; i++) x[i] = al * x[i];
    break;
  case A_HSIG:
    for (int64_t i = 0; i < n; i++) {
      T v = al * x[i] + be;
      x[i] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
    break;
  case A_ELU:
    for (int64_t i = 0; i < n; i++)
      x[i] = x[i] >= 0 ? x[i] : al * (T)expm1((double)x[i]);
    break;
  case A_SOFTSIGN: for (int64_t i = 0; i < n; i++) x[i] = x[i] / (1 + (T)fabs((double)x[i])); break;
  case A_SOFTPLUS: /* log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow */
    for (int64_t i = 0; i < n; i++) {
      double v = (double)x[i];
      x[i] = (T)((v > 0 ? v : 0) + log1p(exp(-fabs(v))));
    }
    break;
  }
}
/* f(clip(x)) */
static void FN(gate)(const job *j, const act *a, T *x, int64_t n) {
  if (j->has_clip) {
    T lo = (T)-j->clip, hi = (T)j->clip;
    for (int64_t i = 0; i < n; i++) x[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
  }
  FN(act)(a, x, n);
}
static int FN(run)(ox_ctx *c, const job *j) {
  int64_t S = j->S, N = j->N, I = j->I, H = j->H, GH = j->G * H;
  /* xw: (S * N, G*H); hr: (N, G*H); h, cs, rh: (N, H); tmp: (4, H) */
  T *xw = ox_alloc_array(c->a, ox_numel(3, (int64_t[]){S, N, GH}, sizeof(T)), sizeof(T));
  T *hr = ox_alloc_array(c->a, N * GH + 1, sizeof(T));
  T *h = ox_alloc_array(c->a, N * H + 1, sizeof(T));
  T *cs = ox_alloc_array(c->a, N * H + 1, sizeof(T));
  T *rh = ox_alloc_array(c->a, N * H + 1, sizeof(T));
  T *tmp = ox_alloc_array(c->a, 4 * H + 1, sizeof(T));
  if (!xw || !hr || !h || !cs || !rh || !tmp) return ox_oom(c->err, NULL);
  for (int64_t d = 0; d < j->D; d++) {
    int rev = j->reverse || d == 1;
    const act *af = &j->acts[d][0], *ag = &j->acts[d][1], *ah = &j->acts[d][2];
    const T *W = (const T *)j->w + d * GH * I, *R = (const T *)j->r + d * GH * H;
    const T *Wb = j->b ? (const T *)j->b + d * 2 * GH : NULL, *Rb = Wb ? Wb + GH : NULL;
    const T *P = j->p ? (const T *)j->p + d * 3 * H : NULL;
    /* xw = x W^T + Wb + Rb (GRU with linear_before_reset keeps Rbh apart) */
    GEMM(S * N, GH, I, (const T *)j->x, I, 0, W, I, 1, xw, GH, 1, 0);
    if (Wb) {
      int64_t fold = j->cell == CELL_GRU && j->lbr ? 2 * H : GH;
      for (int64_t row = 0; row < S * N; row++) {
        T *x = xw + row * GH;
        for (int64_t k = 0; k < fold; k++) x[k] += Wb[k] + Rb[k];
        for (int64_t k = fold; k < GH; k++) x[k] += Wb[k];
      }
    }
    if (j->h0) memcpy(h, (const T *)j->h0 + d * N * H, (size_t)(N * H) * sizeof(T));
    else memset(h, 0, (size_t)(N * H) * sizeof(T));
    if (j->c0) memcpy(cs, (const T *)j->c0 + d * N * H, (size_t)(N * H) * sizeof(T));
    else memset(cs, 0, (size_t)(N * H) * sizeof(T));
    int gru_split = j->cell == CELL_GRU && !j->lbr;
    for (int64_t s = 0; s < S; s++) {
      /* hr = h R^T: (N, G*H), GRU default: only the z and r parts here */
      GEMM(N, gru_split ? 2 * H : GH, H, h, H, 0, R, H, 1, hr, GH, 1, 0);
      if (gru_split) { /* hr_h = (r . h) Rh^T, r from this step's gates */
        for (int64_t b = 0; b < N; b++) {
          T *rrow = rh + b * H;
          if (s >= j->len[b]) { memset(rrow, 0, (size_t)H * sizeof(T)); continue; }
          int64_t t = rev ? j->len[b] - 1 - s : s;
          const T *x = xw + (t * N + b) * GH + H, *q = hr + b * GH + H, *hb = h + b * H;
          for (int64_t k = 0; k < H; k++) rrow[k] = x[k] + q[k];
          FN(gate)(j, af, rrow, H);
          for (int64_t k = 0; k < H; k++) rrow[k] *= hb[k];
        }
        GEMM(N, H, H, rh, H, 0, R + 2 * H * H, H, 1, hr + 2 * H, GH, 1, 0);
      }
      for (int64_t b = 0; b < N; b++) {
        if (s >= j->len[b]) continue; /* state kept, Y stays zero */
        int64_t t = rev ? j->len[b] - 1 - s : s;
        const T *x = xw + (t * N + b) * GH, *q = hr + b * GH;
        T *hb = h + b * H, *cb = cs + b * H;
        if (j->cell == CELL_RNN) { /* Ht = f(Xt Wi^T + Ht-1 Ri^T + Wbi + Rbi) */
          for (int64_t k = 0; k < H; k++) hb[k] = x[k] + q[k];
          FN(gate)(j, af, hb, H);
        } else if (j->cell == CELL_GRU) {
          T *z = tmp, *r = tmp + H, *hh = tmp + 2 * H;
          for (int64_t k = 0; k < 2 * H; k++) z[k] = x[k] + q[k]; /* z, r */
          FN(gate)(j, af, z, 2 * H);
          if (j->lbr) { /* ht = g(Xt Wh^T + rt . (Ht-1 Rh^T + Rbh) + Wbh) */
            for (int64_t k = 0; k < H; k++)
              hh[k] = x[2 * H + k] + r[k] * (q[2 * H + k] + (Rb ? Rb[2 * H + k] : 0));
          } else { /* ht = g(Xt Wh^T + (rt . Ht-1) Rh^T + Rbh + Wbh) */
            for (int64_t k = 0; k < H; k++) hh[k] = x[2 * H + k] + q[2 * H + k];
          }
          FN(gate)(j, ag, hh, H);
          for (int64_t k = 0; k < H; k++) hb[k] = (1 - z[k]) * hh[k] + z[k] * hb[k];
        } else { /* LSTM, gates i o f c */
          T *gi = tmp, *go = tmp + H, *gf = tmp + 2 * H, *gc = tmp + 3 * H;
          for (int64_t k = 0; k < 4 * H; k++) gi[k] = x[k] + q[k];
          if (P)
            for (int64_t k = 0; k < H; k++) {
              gi[k] += P[k] * cb[k];
              gf[k] += P[2 * H + k] * cb[k];
            }
          FN(gate)(j, af, gi, H);
          if (j->input_forget)
            for (int64_t k = 0; k < H; k++) gf[k] = 1 - gi[k];
          else
            FN(gate)(j, af, gf, H);
          FN(gate)(j, ag, gc, H);
          for (int64_t k = 0; k < H; k++) cb[k] = gf[k] * cb[k] + gi[k] * gc[k];
          if (P) /* ot = f(... + Po . Ct): the new cell */
            for (int64_t k = 0; k < H; k++) go[k] += P[H + k] * cb[k];
          FN(gate)(j, af, go, H);
          memcpy(hb, cb, (size_t)H * sizeof(T));
          FN(act)(ah, hb, H);
          for (int64_t k = 0; k < H; k++) hb[k] *= go[k];
        }
        if (j->y) /* Y: (S, D, N, H) */
          memcpy((T *)j->y + ((t * j->D + d) * N + b) * H, hb, (size_t)H * sizeof(T));
      }
    }
    for (int64_t b = 0; b < N; b++) /* a row of length 0 ends in a zero state */
      if (!j->len[b]) {
        memset(h + b * H, 0, (size_t)H * sizeof(T));
        memset(cs + b * H, 0, (size_t)H * sizeof(T));
      }
    if (j->yh) memcpy((T *)j->yh + d * N * H, h, (size_t)(N * H) * sizeof(T));
    if (j->yc) memcpy((T *)j->yc + d * N * H, cs, (size_t)(N * H) * sizeof(T));
  }
  return 0;
}

#undef T
#undef FN
#undef GEMM
#undef VSIGMOID
#undef VTANH
