/* ops/rnn_body.h: the per-type parts of ops/rnn.c (activations over a
 * vector, clip, the driver), written once. rnn.c includes it once per
 * element type, with T (float or double), FN(name) (the name with the type's
 * suffix: act_f, run_d), GEMM (ox_sgemm or ox_dgemm: the input
 * projection, always the blocked product, whose bits do not depend on the
 * count of rows, S * N), G_PLAN, G_PACK_A, G_PACK_BT and G_PACKED (core/gemm.h's
 * pre-packed products, for the recurrent one), REC_FAST_OK(gp) and
 * REC_FAST (ops/rnn.c's own recurrent kernel, which reads h in place and
 * adds the input part in its store: FN(rec_add)) defined, as core/fft32.c
 * and core/fft64.c include core/fft_body.h, and VSIGMOID(x, n) and
 * VTANH(x, n) (in place over n elements: core/vmath.h's for float). */
#if !defined(T) || !defined(FN) || !defined(GEMM) || !defined(VSIGMOID) || !defined(VTANH) || \
    !defined(G_PLAN) || !defined(G_PACK_A) || !defined(G_PACK_BT) || !defined(G_PACKED) || !defined(REC_FAST) || \
    !defined(REC_FAST_OK)
#error "define T, FN, GEMM, G_PLAN, G_PACK_A, G_PACK_BT, G_PACKED, REC_FAST(_OK), VSIGMOID, VTANH before including ops/rnn_body.h"
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
/* The recurrent product of one step, hr (N, ncols) = h (N rows of H) x
 * rp (the packed R^T, H x ncols), hr's rows GH apart, then the epilogue
 * ad (FN(rec_add): the input part and biases added to the first columns):
 * column slivers split over the threads when the product is large enough
 * (every column computed the same way in any split, and as at any batch
 * size). `fast`: REC_FAST computes it, reading h in place; else h is
 * packed into pa for G_PACKED, and the epilogue is a pass after it (the
 * same operations in the same order: the same bits). */
typedef struct {
  const ox_gemm_plan *gp;
  int64_t N, H, GH, ncols;
  int back, fast; /* back: walk the column slivers from the last (odd steps) */
  const T *h, *pa, *rp;
  T *hr;
  const FN(rec_add) *ad;
} FN(rec_job);
static void FN(rec_chunk)(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  const FN(rec_job) *r = arg;
  int64_t nr = r->gp->nr, j0 = lo * nr, j1 = hi * nr < r->ncols ? hi * nr : r->ncols;
  if (r->fast) {
    REC_FAST(r->gp, r->N, r->H, r->ncols, r->h, r->H, r->rp, lo, hi, r->hr, r->GH, r->back, r->ad);
    return;
  }
  G_PACKED(r->gp, r->N, j1 - j0, r->H, r->pa, r->rp + j0 * r->H, r->hr + j0, r->GH, 0);
  const FN(rec_add) *ad = r->ad;
  if (!ad->xr) return;
  int64_t je = j1 < ad->ne ? j1 : ad->ne;
  for (int64_t i = 0; i < r->N; i++) {
    T *y = r->hr + i * r->GH;
    const T *x = ad->xr[i];
    if (ad->bias)
      for (int64_t k = j0; k < je; k++) y[k] = (x[k] + ad->bias[k]) + y[k];
    else
      for (int64_t k = j0; k < je; k++) y[k] = x[k] + y[k];
  }
}
static void FN(rec)(int threads, const ox_gemm_plan *gp, int fast, int64_t N, int64_t H, int64_t GH, int64_t ncols,
                    const T *h, T *pa, const T *rp, T *hr, int back, const FN(rec_add) *ad) {
  if (!fast) G_PACK_A(gp, N, H, h, H, 0, pa);
  FN(rec_job) r = {gp, N, H, GH, ncols, back, fast, h, pa, rp, hr, ad};
  int64_t sl = (ncols + gp->nr - 1) / gp->nr;
  int nch = ox_par_chunks(threads, sl, 2.0 * (double)N * (double)ncols * (double)H);
  if (nch <= 1) FN(rec_chunk)(&r, 0, 0, sl);
  else ox_par_for(sl, nch, FN(rec_chunk), &r);
}

/* The gates' elementwise steps, one loop each (vectorised: restrict, and
 * kept out of the driver, where gcc left them scalar) */
#define ROWFN static __attribute__((noinline))
ROWFN void FN(mul2)(T *restrict y, const T *a, const T *b, int64_t n) { /* y = a . b */
  for (int64_t k = 0; k < n; k++) y[k] = a[k] * b[k];
}
ROWFN void FN(mul_to)(T *restrict y, const T *a, int64_t n) { /* y *= a */
  for (int64_t k = 0; k < n; k++) y[k] *= a[k];
}
/* LSTM's cell: c = f . c + i . g, and h = c (h's activation follows) */
ROWFN void FN(lstm_cell)(T *restrict c, T *restrict h, const T *f, const T *i, const T *g, int64_t n) {
  for (int64_t k = 0; k < n; k++) h[k] = c[k] = f[k] * c[k] + i[k] * g[k];
}
/* GRU's output: h = (1 - z) . hh + z . h */
ROWFN void FN(gru_out)(T *restrict h, const T *z, const T *hh, int64_t n) {
  for (int64_t k = 0; k < n; k++) h[k] = (1 - z[k]) * hh[k] + z[k] * h[k];
}
#undef ROWFN

/* xw (M, ncols) = x (M, K) x the packed W^T (wp): x packed once, then
 * blocks of rows over the threads; every element the kernel's same
 * operations in any block (the bits of ox_sgemm) */
typedef struct {
  const ox_gemm_plan *gp;
  int64_t M, ncols, K, rb;
  const T *pa, *wp;
  T *xw;
} FN(in_job);
static void FN(in_chunk)(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  const FN(in_job) *q = arg;
  for (int64_t t = lo; t < hi; t++) {
    int64_t r0 = t * q->rb, rows = q->M - r0 < q->rb ? q->M - r0 : q->rb;
    G_PACKED(q->gp, rows, q->ncols, q->K, q->pa + r0 * q->K, q->wp, q->xw + r0 * q->ncols, q->ncols, 0);
  }
}

static int FN(run)(ox_ctx *c, const job *j) {
  int64_t S = j->S, N = j->N, I = j->I, H = j->H, GH = j->G * H, DGH = j->D * GH;
  int gru_split = j->cell == CELL_GRU && !j->lbr;
  /* the recurrent product h R^T on the GEMM's micro-kernel, R^T packed once
   * per direction (rp; GRU's default splits it: rph, its h gate, is applied
   * to r . h), at load when R is a constant (j->pp), h read in place by
   * REC_FAST or packed per step (pa) for G_PACKED. Each element is the sum
   * over k in order that ox_sgemm gives, so a batch row's bits do not
   * depend on the batch size; the product's epilogue adds the step's row of
   * xw and the biases (the gates' pre-activations come out of it). */
  const rnn_prep *pp = j->pp;
  ox_gemm_plan gp = pp ? pp->gp : G_PLAN();
  int64_t ncz = gru_split ? 2 * H : GH, mr = gp.mr, nr = gp.nr;
  T *rpb = NULL, *rphb = NULL;
  if (!pp) {
    rpb = ox_alloc_array(c->a, ox_numel(2, (int64_t[]){(ncz + nr - 1) / nr * nr, H}, sizeof(T)) + 1, sizeof(T));
    rphb = gru_split ? ox_alloc_array(c->a, ox_numel(2, (int64_t[]){(H + nr - 1) / nr * nr, H}, sizeof(T)) + 1,
                                      sizeof(T)) : NULL;
    if (!rpb || (gru_split && !rphb)) return ox_oom(c->err, NULL);
  }
  int fast = REC_FAST_OK(&gp);
  T *pa = fast ? NULL : ox_alloc_array(c->a, ox_numel(2, (int64_t[]){(N + mr - 1) / mr * mr, H}, sizeof(T)) + 1,
                                       sizeof(T));
  /* xw: (S * N, D*G*H), every direction's input projection; hr: (N, G*H);
   * h, cs, rh: (N, H); tmp: (4, H) */
  T *xw = ox_alloc_uninit(c->a, (size_t)ox_numel(3, (int64_t[]){S, N, DGH}, sizeof(T)) * sizeof(T)); /* all written */
  /* xr: (2, N) this step's rows of xw (and their h gate parts, GRU); bs: (G*H) the biases */
  const T **xr = ox_alloc_array(c->a, 2 * N + 1, sizeof *xr);
  T *bs = ox_alloc_array(c->a, GH + 1, sizeof(T));
  T *hr = ox_alloc_array(c->a, N * GH + 1, sizeof(T));
  T *h = ox_alloc_array(c->a, N * H + 1, sizeof(T));
  T *cs = ox_alloc_array(c->a, N * H + 1, sizeof(T));
  T *rh = ox_alloc_array(c->a, N * H + 1, sizeof(T));
  T *tmp = ox_alloc_array(c->a, 4 * H + 1, sizeof(T));
  if (ox_numel(3, (int64_t[]){S, N, DGH}, sizeof(T)) < 0 || !xw || !xr || !bs || !hr || !h || !cs || !rh || !tmp ||
      (!fast && !pa))
    return ox_oom(c->err, NULL);
  /* xw = x W^T for every direction at once (W: (D*G*H, I), read as W^T) */
  if (pp) {
    int64_t M = S * N;
    int64_t nxa = ox_numel(2, (int64_t[]){(M + mr - 1) / mr * mr, I}, sizeof(T));
    T *xa = nxa < 0 ? NULL : ox_alloc_uninit(c->a, (size_t)nxa * sizeof(T)); /* pack_a writes all */
    if (!xa) return ox_oom(c->err, NULL);
    G_PACK_A(&gp, M, I, (const T *)j->x, I, 0, xa);
    FN(in_job) q = {&gp, M, DGH, I, IN_ROWS / mr * mr, xa, (const T *)pp->wp, xw};
    int64_t items = (M + q.rb - 1) / q.rb;
    ox_par_for(items, ox_par_chunks(c->threads, items, 2.0 * (double)M * (double)DGH * (double)I), FN(in_chunk), &q);
  } else {
    GEMM(c->threads, S * N, DGH, I, (const T *)j->x, I, 0, (const T *)j->w, I, 1, xw, DGH, 1, 0);
  }
  for (int64_t d = 0; d < j->D; d++) {
    int rev = j->reverse || d == 1;
    const act *af = &j->acts[d][0], *ag = &j->acts[d][1], *ah = &j->acts[d][2];
    const T *R = (const T *)j->r + d * GH * H;
    const T *Wb = j->b ? (const T *)j->b + d * 2 * GH : NULL, *Rb = Wb ? Wb + GH : NULL;
    const T *P = j->p ? (const T *)j->p + d * 3 * H : NULL;
    /* bs = Wb + Rb (GRU with linear_before_reset keeps Rbh apart), added
     * to a row of xw at its step */
    if (Wb) {
      int64_t fold = j->cell == CELL_GRU && j->lbr ? 2 * H : GH;
      for (int64_t k = 0; k < GH; k++) bs[k] = k < fold ? Wb[k] + Rb[k] : Wb[k];
    }
    if (j->h0) memcpy(h, (const T *)j->h0 + d * N * H, (size_t)(N * H) * sizeof(T));
    else memset(h, 0, (size_t)(N * H) * sizeof(T));
    if (j->c0) memcpy(cs, (const T *)j->c0 + d * N * H, (size_t)(N * H) * sizeof(T));
    else memset(cs, 0, (size_t)(N * H) * sizeof(T));
    const T *rp = rpb, *rph = rphb;
    if (pp) {
      rp = (const T *)pp->rp[d], rph = (const T *)pp->rph[d];
    } else {
      G_PACK_BT(&gp, H, ncz, R, H, rpb); /* R (G*H, H) read as R^T */
      if (gru_split) G_PACK_BT(&gp, H, H, R + 2 * H * H, H, rphb);
    }
    /* the epilogues: gates z and r (GRU), all of them else; GRU's default
     * adds the h gate's after its own product */
    FN(rec_add) ad = {xr, Wb ? bs : NULL, j->cell == CELL_GRU ? 2 * H : GH};
    FN(rec_add) adh = {xr + N, Wb ? bs + 2 * H : NULL, H};
    for (int64_t s = 0; s < S; s++) {
      for (int64_t b = 0; b < N; b++) { /* xw's rows of this step (a row past its length: any row) */
        int64_t t = s >= j->len[b] ? 0 : rev ? j->len[b] - 1 - s : s;
        xr[b] = xw + (t * N + b) * DGH + d * GH;
        if (j->cell == CELL_GRU) xr[N + b] = xr[b] + 2 * H; /* its h gate part */
      }
      /* hr = xw's row + bs + h R^T: (N, G*H), GRU default: only the z and r parts here */
      FN(rec)(c->threads, &gp, fast, N, H, GH, ncz, h, pa, rp, hr, (int)(s & 1), &ad);
      if (j->cell == CELL_GRU)
        for (int64_t b = 0; b < N; b++)
          if (s < j->len[b]) FN(gate)(j, af, hr + b * GH, 2 * H); /* z, r */
      if (gru_split) { /* hr_h = (r . h) Rh^T, r from this step's gates */
        for (int64_t b = 0; b < N; b++) {
          T *rrow = rh + b * H;
          if (s >= j->len[b]) memset(rrow, 0, (size_t)H * sizeof(T));
          else FN(mul2)(rrow, hr + b * GH + H, h + b * H, H);
        }
        FN(rec)(c->threads, &gp, fast, N, H, GH, H, rh, pa, rph, hr + 2 * H, (int)(s & 1), &adh);
      }
      for (int64_t b = 0; b < N; b++) {
        if (s >= j->len[b]) continue; /* state kept, Y stays zero */
        int64_t t = rev ? j->len[b] - 1 - s : s;
        T *q = hr + b * GH, *hb = h + b * H, *cb = cs + b * H;
        if (j->cell == CELL_RNN) { /* Ht = f(Xt Wi^T + Ht-1 Ri^T + Wbi + Rbi) */
          FN(gate)(j, af, q, H);
          memcpy(hb, q, (size_t)H * sizeof(T));
        } else if (j->cell == CELL_GRU) {
          T *z = q, *r = q + H, *hh = q + 2 * H;
          if (j->lbr) { /* ht = g(Xt Wh^T + rt . (Ht-1 Rh^T + Rbh) + Wbh) */
            const T *x = xr[N + b];
            hh = tmp;
            for (int64_t k = 0; k < H; k++)
              hh[k] = (Wb ? x[k] + bs[2 * H + k] : x[k]) + r[k] * (q[2 * H + k] + (Rb ? Rb[2 * H + k] : 0));
          } /* else ht = g(Xt Wh^T + (rt . Ht-1) Rh^T + Rbh + Wbh): hr's h part */
          FN(gate)(j, ag, hh, H);
          FN(gru_out)(hb, z, hh, H);
        } else { /* LSTM, gates i o f c */
          T *gi = q, *go = q + H, *gf = q + 2 * H, *gc = q + 3 * H;
          if (P)
            for (int64_t k = 0; k < H; k++) {
              gi[k] += P[k] * cb[k];
              gf[k] += P[2 * H + k] * cb[k];
            }
          int iof = !P && !j->input_forget; /* i, o, f at once: o needs no new cell */
          FN(gate)(j, af, gi, iof ? 3 * H : H);
          if (j->input_forget)
            for (int64_t k = 0; k < H; k++) gf[k] = 1 - gi[k];
          else if (!iof)
            FN(gate)(j, af, gf, H);
          FN(gate)(j, ag, gc, H);
          FN(lstm_cell)(cb, hb, gf, gi, gc, H);
          if (P) /* ot = f(... + Po . Ct): the new cell */
            for (int64_t k = 0; k < H; k++) go[k] += P[H + k] * cb[k];
          if (!iof) FN(gate)(j, af, go, H);
          FN(act)(ah, hb, H);
          FN(mul_to)(hb, go, H);
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
#undef G_PLAN
#undef G_PACK_A
#undef G_PACK_BT
#undef G_PACKED
#undef REC_FAST
#undef REC_FAST_OK
#undef VSIGMOID
#undef VTANH
