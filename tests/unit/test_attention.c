/* tests/unit/test_attention.c: Attention and FlexAttention through the
 * registry with a hand-made node, checked against a naive loop written from
 * the spec (double precision, one score at a time), on sizes large enough for
 * the GEMM's blocked paths; plus the edge cases and the error messages. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

#define DIMS(...) (int64_t[]){__VA_ARGS__}

static uint64_t rng = 88172645463325252ull;
static double urand(void) { /* xorshift64, in [-1, 1) */
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}
static ox_value *rand_f32(int rank, const int64_t *dims) {
  ox_value *v = tensor(OX_FLOAT, rank, dims, NULL);
  float *f = v->u.t.data;
  for (int64_t i = 0; i < v->u.t.n; i++) f[i] = (float)urand();
  return v;
}

/* Run Attention (or FlexAttention, domain "ai.onnx.preview") at `opset`;
 * in[i] NULL is a missing input; want[i] says which outputs are named. */
static int run(const char *domain, const char *op, int opset, int nattr, ox_attr *attr,
               int nin, ox_value **in, int nout, const int *want, ox_value **out) {
  static const char *in_names[] = {"Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad"};
  static const char *all_out[] = {"Y", "present_key", "present_value", "qk"};
  const char *out_names[4];
  for (int i = 0; i < nout; i++) out_names[i] = want[i] ? all_out[i] : "";
  const ox_kernel *k = ox_registry_find(domain, op, opset);
  if (!k) {
    fprintf(stderr, "no kernel for %s at opset %d\n", op, opset);
    return -1;
  }
  ox_node n = {.name = "n0", .op = op, .domain = domain, .nin = nin, .in = in_names,
               .nout = nout, .out = out_names, .nattr = nattr, .attr = attr,
               .version = opset, .k = k};
  ox_ctx c = {.a = A, .err = &E, .node = &n, .version = opset};
  ox_err_clear(&E);
  for (int i = 0; i < nout; i++) out[i] = NULL;
  int rc = ox_node_load(&c) ? E.code : k->fn(&c, nin, in, nout, out);
  if (!rc && E.code) rc = E.code;
  return rc;
}

/* ---- the naive reference, written from the spec ---- */

typedef struct {
  int three;                       /* 3-D Q/K/V */
  int64_t B, Hq, Hkv, S, L, P, D, Dv;
  const float *q, *k, *v, *pk, *pv;
  const float *mask; int mrank; const int64_t *mdims; int mbool; /* mask: 0/1 when mbool */
  int pad;                         /* opset >= 24: a short last mask dim is padded */
  const int64_t *nonpad;
  double scale, softcap;
  int causal, mode;
  int64_t left, right;
} ref_in;

static double qv(const ref_in *r, int64_t b, int64_t h, int64_t i, int64_t d) {
  return r->three ? r->q[(b * r->S + i) * r->Hq * r->D + h * r->D + d]
                  : r->q[((b * r->Hq + h) * r->S + i) * r->D + d];
}
/* key/value j of the concatenated cache (past first) */
static double kvv(const ref_in *r, const float *x, const float *past, int64_t Dh, int64_t b,
                  int64_t h, int64_t j, int64_t d) {
  if (j < r->P) return past[((b * r->Hkv + h) * r->P + j) * Dh + d];
  j -= r->P;
  return r->three ? x[(b * r->L + j) * r->Hkv * Dh + h * Dh + d]
                  : x[((b * r->Hkv + h) * r->L + j) * Dh + d];
}
static double mask_at(const ref_in *r, int64_t b, int64_t h, int64_t i, int64_t j) {
  int64_t idx[4] = {b, h, i, j}, off = 0, T = r->P + r->L;
  for (int k = 0; k < r->mrank; k++) {
    int64_t d = r->mdims[k], x = idx[4 - r->mrank + k];
    /* the last dim: T, or 1 broadcast (23), or shorter and padded with -inf (24) */
    if (k == r->mrank - 1 && d != T && (d != 1 || r->pad) && x >= d) return -INFINITY;
    off = off * d + (d == 1 ? 0 : x);
  }
  double m = r->mask[off];
  return r->mbool ? (m != 0 ? 0 : -INFINITY) : m;
}

/* y: (B, Hq, S, Dv) in 4-D order always; qk: (B, Hq, S, T) */
static void reference(const ref_in *r, double *y, double *qk) {
  int64_t T = r->P + r->L, g = r->Hq / r->Hkv;
  double *s = calloc((size_t)T + 1, sizeof *s), *bias = calloc((size_t)T + 1, sizeof *bias);
  for (int64_t b = 0; b < r->B; b++)
    for (int64_t h = 0; h < r->Hq; h++)
      for (int64_t i = 0; i < r->S; i++) {
        int64_t off = r->nonpad ? r->nonpad[b] - r->S : r->P, pos = i + off;
        double *o = qk + ((b * r->Hq + h) * r->S + i) * T, bmax = -INFINITY;
        for (int64_t j = 0; j < T; j++) {
          double acc = 0;
          for (int64_t d = 0; d < r->D; d++) acc += qv(r, b, h, i, d) * kvv(r, r->k, r->pk, r->D, b, h / g, j, d);
          s[j] = acc * r->scale;
          if (r->mode == 0) o[j] = s[j];
          if (r->softcap != 0) s[j] = r->softcap * tanh(s[j] / r->softcap);
          if (r->mode == 1) o[j] = s[j];
          double bv = r->mask ? mask_at(r, b, h, i, j) : 0;
          int out = (r->causal && j > pos) || (r->nonpad && j >= r->nonpad[b]) ||
                    (r->left >= 0 && pos - j > r->left) || (r->right >= 0 && j - pos > r->right);
          if (out) bv += -INFINITY;
          bias[j] = bv;
          if (bv > bmax) bmax = bv;
          s[j] += bv;
          if (r->mode == 2) o[j] = s[j];
        }
        double m = -INFINITY, sum = 0;
        for (int64_t j = 0; j < T; j++) m = s[j] > m ? s[j] : m;
        for (int64_t j = 0; j < T; j++) sum += (s[j] = bmax == -INFINITY ? 0 : exp(s[j] - m));
        for (int64_t j = 0; j < T; j++) s[j] = bmax == -INFINITY ? 0 : s[j] / sum;
        if (r->mode == 3) memcpy(o, s, (size_t)T * sizeof *s);
        for (int64_t e = 0; e < r->Dv; e++) {
          double acc = 0;
          for (int64_t j = 0; j < T; j++) acc += s[j] * kvv(r, r->v, r->pv, r->Dv, b, h / g, j, e);
          y[((b * r->Hq + h) * r->S + i) * r->Dv + e] = acc;
        }
      }
  free(s);
  free(bias);
}

static int close_to(const ox_value *v, const double *want, int64_t n, int three, int64_t B,
                    int64_t H, int64_t S, int64_t Dh, double tol, const char *what) {
  if (!v || v->u.t.dt != OX_FLOAT || v->u.t.n != n) {
    fprintf(stderr, "%s: wrong value (type or size)\n", what);
    return 0;
  }
  const float *g = v->u.t.data;
  for (int64_t i = 0; i < n; i++) {
    /* want is 4-D (B, H, S, Dh); a 3-D got is (B, S, H * Dh) */
    int64_t gi = i;
    if (three) {
      int64_t e = i % Dh, s = i / Dh % S, h = i / Dh / S % H, b = i / Dh / S / H;
      gi = (b * S + s) * H * Dh + h * Dh + e;
    }
    double w = want[i], x = g[gi];
    if (isnan(w) ? !isnan(x) : !(x == w || fabs(x - w) <= tol * (1 + fabs(w)))) {
      fprintf(stderr, "%s: element %lld: got %.9g want %.9g\n", what, (long long)i, x, w);
      return 0;
    }
  }
  return 1;
}

/* One case: build the inputs, run, compare Y (and present, qk when asked). */
typedef struct {
  const char *name;
  int opset, three;
  int64_t B, Hq, Hkv, S, L, P, D, Dv;
  int mask; int mrank; int64_t mdims[4]; int mbool;
  int nonpad;
  float scale, softcap; int causal, mode, want_qk, want_present;
  int64_t left, right;
} tcase;

static void run_case(const tcase *t) {
  ref_in r = {.three = t->three, .B = t->B, .Hq = t->Hq, .Hkv = t->Hkv, .S = t->S, .L = t->L,
              .P = t->P, .D = t->D, .Dv = t->Dv, .causal = t->causal, .mode = t->mode,
              .softcap = t->softcap, .left = -1, .right = -1, .pad = t->opset >= 24};
  ox_value *in[7] = {0}, *out[4];
  ox_attr at[12];
  int na = 0;
  if (t->three) {
    in[0] = rand_f32(3, DIMS(t->B, t->S, t->Hq * t->D));
    in[1] = rand_f32(3, DIMS(t->B, t->L, t->Hkv * t->D));
    in[2] = rand_f32(3, DIMS(t->B, t->L, t->Hkv * t->Dv));
    at[na++] = attr_int("q_num_heads", t->Hq);
    at[na++] = attr_int("kv_num_heads", t->Hkv);
  } else {
    in[0] = rand_f32(4, DIMS(t->B, t->Hq, t->S, t->D));
    in[1] = rand_f32(4, DIMS(t->B, t->Hkv, t->L, t->D));
    in[2] = rand_f32(4, DIMS(t->B, t->Hkv, t->L, t->Dv));
  }
  r.q = in[0]->u.t.data, r.k = in[1]->u.t.data, r.v = in[2]->u.t.data;
  int64_t T = t->P + t->L;
  if (t->mask) {
    ox_value *m = rand_f32(t->mrank, t->mdims);
    float *f = m->u.t.data;
    if (t->mbool) {
      ox_value *mb = tensor(OX_BOOL, t->mrank, t->mdims, NULL);
      for (int64_t i = 0; i < m->u.t.n; i++) ((uint8_t *)mb->u.t.data)[i] = f[i] = f[i] > -0.6f;
      in[3] = mb;
    } else {
      for (int64_t i = 0; i < m->u.t.n; i++)
        if (f[i] < -0.8f) f[i] = -INFINITY;
      in[3] = m;
    }
    r.mask = f, r.mrank = t->mrank, r.mdims = t->mdims, r.mbool = t->mbool;
  }
  if (t->P >= 0 && (t->P > 0 || t->want_present)) {
    in[4] = rand_f32(4, DIMS(t->B, t->Hkv, t->P, t->D));
    in[5] = rand_f32(4, DIMS(t->B, t->Hkv, t->P, t->Dv));
    r.pk = in[4]->u.t.data, r.pv = in[5]->u.t.data;
  }
  if (t->nonpad) {
    in[6] = tensor(OX_INT64, 1, DIMS(t->B), NULL);
    int64_t *np = in[6]->u.t.data;
    for (int64_t b = 0; b < t->B; b++) np[b] = (T * (b + 1)) / (t->B + 1) + 1 > T ? T : (T * (b + 1)) / (t->B + 1) + 1;
    r.nonpad = np;
  }
  r.scale = t->scale ? t->scale : 1 / sqrt((double)t->D);
  if (t->scale) at[na++] = attr_float("scale", t->scale);
  if (t->softcap) at[na++] = attr_float("softcap", t->softcap);
  if (t->causal) at[na++] = attr_int("is_causal", 1);
  if (t->mode) at[na++] = attr_int("qk_matmul_output_mode", t->mode);
  if (t->opset >= 25) {
    r.left = t->left, r.right = t->right;
    at[na++] = attr_int("left_window_size", t->left);
    at[na++] = attr_int("right_window_size", t->right);
  }
  int want[4] = {1, t->want_present, t->want_present, t->want_qk};
  int nin = t->nonpad ? 7 : in[4] ? 6 : in[3] ? 4 : 3;
  int rc = run("", "Attention", t->opset, na, at, nin, in, 4, want, out);
  if (rc) fprintf(stderr, "%s: %s\n", t->name, E.msg);
  CHECK_EQ_I(rc, 0);
  if (rc) return;
  double *y = calloc((size_t)(t->B * t->Hq * t->S * t->Dv) + 1, sizeof *y);
  double *qk = calloc((size_t)(t->B * t->Hq * t->S * T) + 1, sizeof *qk);
  reference(&r, y, qk);
  CHECK(close_to(out[0], y, t->B * t->Hq * t->S * t->Dv, t->three, t->B, t->Hq, t->S, t->Dv, 1e-4, t->name));
  if (t->want_qk) CHECK(close_to(out[3], qk, t->B * t->Hq * t->S * T, 0, 0, 0, 0, 0, 1e-4, t->name));
  if (t->want_present) {
    CHECK(out[1] && out[1]->u.t.rank == 4 && out[1]->u.t.dims[2] == T);
    CHECK(out[2] && out[2]->u.t.rank == 4 && out[2]->u.t.dims[3] == t->Dv);
    if (out[1] && out[2] && T) { /* spot check: the last new key and the first past value */
      const float *pk = out[1]->u.t.data, *pv = out[2]->u.t.data;
      int64_t b = t->B - 1, h = t->Hkv - 1;
      CHECK(pk[((b * t->Hkv + h) * T + T - 1) * t->D] == (float)kvv(&r, r.k, r.pk, t->D, b, h, T - 1, 0));
      CHECK(pv[0] == (float)kvv(&r, r.v, r.pv, t->Dv, 0, 0, 0, 0));
    }
  }
  free(y);
  free(qk);
}

static void test_against_reference(void) {
  static const tcase cases[] = {
    /* name            opset 3d  B  Hq Hkv S   L   P   D   Dv  mask rank dims             bool np scale softcap causal mode qk pres left right */
    {"4d plain",        23, 0,  2, 3, 3,  5,  7,  0, 8,  8,  0, 0, {0},               0, 0, 0,    0,    0, 0, 0, 0, -1, -1},
    {"4d big gemm",     23, 0,  1, 2, 2,  67, 129,0, 72, 40, 0, 0, {0},               0, 0, 0,    0,    1, 0, 1, 0, -1, -1},
    {"3d gqa mask",     23, 1,  2, 6, 2,  5,  9,  0, 4,  6,  1, 2, {5, 9},            0, 0, 0.3f, 0,    0, 2, 1, 0, -1, -1},
    {"3d past causal",  23, 1,  2, 4, 2,  3,  4,  6, 8,  5,  1, 4, {2, 1, 3, 10},     1, 0, 0,    0,    1, 3, 1, 1, -1, -1},
    {"4d softcap m1",   23, 0,  2, 4, 1,  4,  6,  0, 8,  8,  1, 3, {4, 1, 6},         0, 0, 0,    1.5f, 0, 1, 1, 0, -1, -1},
    {"4d softcap m0",   23, 0,  1, 2, 2,  4,  6,  0, 8,  8,  0, 0, {0},               0, 0, 0,    1.5f, 0, 0, 1, 0, -1, -1},
    {"bool bcast 1",    23, 0,  2, 2, 2,  3,  5,  0, 4,  4,  1, 4, {1, 2, 1, 5},      1, 0, 0,    0,    0, 3, 1, 0, -1, -1},
    {"24 nonpad",       24, 0,  3, 4, 2,  2,  8,  0, 8,  8,  0, 0, {0},               0, 1, 0,    0,    1, 3, 1, 0, -1, -1},
    {"24 short mask",   24, 0,  2, 2, 2,  3,  8,  0, 8,  8,  1, 2, {3, 5},            0, 1, 0,    0,    0, 2, 1, 0, -1, -1},
    {"24 past causal",  24, 1,  1, 2, 1,  3,  3,  4, 8,  4,  0, 0, {0},               0, 0, 0,    0,    1, 0, 1, 1, -1, -1},
    {"23 mask (S, 1)",  23, 0,  1, 2, 2,  3,  5,  0, 8,  8,  1, 2, {3, 1},            0, 0, 0,    0,    0, 2, 1, 0, -1, -1},
    {"24 mask (S, 1)",  24, 0,  1, 2, 2,  3,  5,  0, 8,  8,  1, 2, {3, 1},            0, 0, 0,    0,    0, 2, 1, 0, -1, -1},
    {"25 window",       25, 0,  2, 2, 2,  6,  9,  0, 8,  8,  0, 0, {0},               0, 0, 0,    0,    0, 3, 1, 0, 2, 1},
    {"25 window causal",25, 0,  1, 2, 2,  4,  4,  3, 8,  8,  1, 2, {4, 7},            1, 0, 0,    0,    1, 2, 1, 1, 1, -1},
    {"25 window nonpad",25, 1,  2, 2, 1,  2,  7,  0, 4,  4,  0, 0, {0},               0, 1, 0,    0,    1, 3, 1, 0, 3, -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i]);
}

/* A fully masked row is zeros (23/24 errata) in Y and in mode-3 qk; no keys
 * at all (kv_sequence_length 0) gives zeros too. */
static void test_masked_rows(void) {
  ox_value *in[4] = {rand_f32(4, DIMS(1, 1, 2, 4)), rand_f32(4, DIMS(1, 1, 3, 4)),
                     rand_f32(4, DIMS(1, 1, 3, 4)), tensor(OX_BOOL, 2, DIMS(2, 3), NULL)};
  uint8_t *m = in[3]->u.t.data;
  m[0] = m[1] = m[2] = 0, m[3] = 1, m[4] = m[5] = 0; /* row 0 all False, row 1 key 0 */
  ox_value *out[4];
  ox_attr mode3 = attr_int("qk_matmul_output_mode", 3);
  int want[4] = {1, 0, 0, 1};
  CHECK_EQ_I(run("", "Attention", 24, 1, &mode3, 4, in, 4, want, out), 0);
  const float *y = out[0]->u.t.data, *p = out[3]->u.t.data, *v = in[2]->u.t.data;
  for (int e = 0; e < 4; e++) CHECK(y[e] == 0 && y[4 + e] == v[e]);
  CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 1 && p[4] == 0 && p[5] == 0);

  ox_value *e3[3] = {rand_f32(4, DIMS(1, 2, 2, 4)), tensor(OX_FLOAT, 4, DIMS(1, 1, 0, 4), NULL),
                     tensor(OX_FLOAT, 4, DIMS(1, 1, 0, 3), NULL)};
  CHECK_EQ_I(run("", "Attention", 23, 0, NULL, 3, e3, 1, want, out), 0);
  CHECK(out[0]->u.t.n == 12);
  for (int i = 0; i < 12; i++) CHECK(((float *)out[0]->u.t.data)[i] == 0);
  /* an empty batch */
  ox_value *e0[3] = {tensor(OX_FLOAT, 3, DIMS(0, 2, 8), NULL), tensor(OX_FLOAT, 3, DIMS(0, 3, 8), NULL),
                     tensor(OX_FLOAT, 3, DIMS(0, 3, 8), NULL)};
  ox_attr heads[2] = {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 2)};
  CHECK_EQ_I(run("", "Attention", 23, 2, heads, 3, e0, 1, want, out), 0);
  CHECK(out[0]->u.t.rank == 3 && out[0]->u.t.n == 0);
}

/* float16 in, float16 out, rounding once (a one-key attention copies V). */
static void test_fp16(void) {
  ox_value *in[3] = {tensor(OX_FLOAT16, 4, DIMS(1, 1, 1, 2), NULL), tensor(OX_FLOAT16, 4, DIMS(1, 1, 1, 2), NULL),
                     tensor(OX_FLOAT16, 4, DIMS(1, 1, 1, 3), NULL)};
  uint16_t *v = in[2]->u.t.data;
  v[0] = ox_f32_to_f16(0.1f), v[1] = ox_f32_to_f16(-2.5f), v[2] = ox_f32_to_f16(65504.0f);
  ox_value *out[1];
  int want[1] = {1};
  CHECK_EQ_I(run("", "Attention", 23, 0, NULL, 3, in, 1, want, out), 0);
  CHECK(out[0]->u.t.dt == OX_FLOAT16);
  CHECK(!memcmp(out[0]->u.t.data, v, 6));
}

/* double scores cast to a float16 softmax_precision round once, as numpy's
 * astype(float16) of float64 does: 1024.5 + 2^-30 is above the midpoint of
 * 1024 and 1025, so 1025 (through float it would be 1024.5 exactly, a tie,
 * 1024). The keys' scores 1025 and 1024 give p0 = 1 / (1 + e^-1) = 0.731;
 * rounded through float both would be 1024 and p0 0.5. */
static void test_double_to_fp16_scores(void) {
  ox_value *in[3] = {tensor(OX_DOUBLE, 4, DIMS(1, 1, 1, 1), (double[]){1}),
                     tensor(OX_DOUBLE, 4, DIMS(1, 1, 2, 1), (double[]){1024.5 + 0x1p-30, 1024}),
                     tensor(OX_DOUBLE, 4, DIMS(1, 1, 2, 1), (double[]){1, 0})};
  ox_attr at[] = {attr_float("scale", 1), attr_int("softmax_precision", OX_FLOAT16)};
  ox_value *out[1];
  int want[1] = {1};
  CHECK_EQ_I(run("", "Attention", 23, 2, at, 3, in, 1, want, out), 0);
  double p0 = ((const double *)out[0]->u.t.data)[0];
  CHECK(fabs(p0 - 0.731) < 0.001);
}

static void expect_error(const char *what, int opset, int nattr, ox_attr *at, int nin,
                         ox_value **in, int nout, const char *msg_part) {
  ox_value *out[4];
  int want[4] = {1, 1, 1, 1};
  int rc = run("", "Attention", opset, nattr, at, nin, in, nout, want, out);
  CHECK_EQ_I(rc, OX_EINPUT);
  if (!strstr(E.msg, msg_part)) {
    fprintf(stderr, "%s: message '%s' lacks '%s'\n", what, E.msg, msg_part);
    CHECK(0);
  }
}

static void test_errors(void) {
  ox_value *q4 = rand_f32(4, DIMS(1, 4, 2, 8)), *k4 = rand_f32(4, DIMS(1, 2, 3, 8)),
           *v4 = rand_f32(4, DIMS(1, 2, 3, 8)), *q3 = rand_f32(3, DIMS(1, 2, 32));
  ox_attr h[2] = {attr_int("q_num_heads", 4), attr_int("kv_num_heads", 3)};
  expect_error("3d without heads", 23, 0, NULL, 3, (ox_value *[]){q3, rand_f32(3, DIMS(1, 3, 16)), rand_f32(3, DIMS(1, 3, 16))}, 1, "q_num_heads");
  expect_error("3d heads", 23, 2, h, 3, (ox_value *[]){q3, rand_f32(3, DIMS(1, 3, 24)), rand_f32(3, DIMS(1, 3, 24))}, 1, "multiple of kv_num_heads");
  expect_error("rank mix", 23, 0, NULL, 3, (ox_value *[]){q4, rand_f32(3, DIMS(1, 3, 16)), v4}, 1, "4-D, as Q is");
  expect_error("head size", 23, 0, NULL, 3, (ox_value *[]){q4, rand_f32(4, DIMS(1, 2, 3, 4)), v4}, 1, "head_size");
  expect_error("gqa", 23, 0, NULL, 3, (ox_value *[]){q4, rand_f32(4, DIMS(1, 3, 3, 8)), rand_f32(4, DIMS(1, 3, 3, 8))}, 1, "multiple");
  expect_error("past alone", 23, 0, NULL, 5, (ox_value *[]){q4, k4, v4, NULL, rand_f32(4, DIMS(1, 2, 1, 8))}, 3, "together");
  expect_error("past shape", 23, 0, NULL, 6, (ox_value *[]){q4, k4, v4, NULL, rand_f32(4, DIMS(1, 2, 1, 8)), rand_f32(4, DIMS(1, 2, 2, 8))}, 3, "past_sequence_length");
  expect_error("mask dim", 23, 0, NULL, 4, (ox_value *[]){q4, k4, v4, rand_f32(2, DIMS(3, 3))}, 1, "q_sequence_length");
  expect_error("mask short 23", 23, 0, NULL, 4, (ox_value *[]){q4, k4, v4, rand_f32(2, DIMS(2, 2))}, 1, "last dim");
  expect_error("mask long 24", 24, 0, NULL, 4, (ox_value *[]){q4, k4, v4, rand_f32(2, DIMS(2, 4))}, 1, "at most");
  expect_error("mask string", 23, 0, NULL, 4, (ox_value *[]){q4, k4, v4, tensor(OX_STRING, 1, DIMS(3), NULL)}, 1, "mask");
  ox_value *np = tensor(OX_INT64, 1, DIMS(1), NULL);
  ((int64_t *)np->u.t.data)[0] = 4;
  expect_error("nonpad range", 24, 0, NULL, 7, (ox_value *[]){q4, k4, v4, NULL, NULL, NULL, np}, 1, "[0, 3]");
  expect_error("nonpad past", 24, 0, NULL, 7, (ox_value *[]){q4, k4, v4, NULL, rand_f32(4, DIMS(1, 2, 1, 8)), rand_f32(4, DIMS(1, 2, 1, 8)), np}, 1, "nonpad_kv_seqlen");
  ox_attr bad_sp = attr_int("softmax_precision", 7), bad_mode = attr_int("qk_matmul_output_mode", 4),
          bad_win = attr_int("left_window_size", -2), bad_c = attr_int("is_causal", 2);
  expect_error("softmax_precision", 23, 1, &bad_sp, 3, (ox_value *[]){q4, k4, v4}, 1, "softmax_precision");
  expect_error("mode", 23, 1, &bad_mode, 3, (ox_value *[]){q4, k4, v4}, 1, "qk_matmul_output_mode");
  expect_error("window", 25, 1, &bad_win, 3, (ox_value *[]){q4, k4, v4}, 1, "left_window_size");
  expect_error("causal", 23, 1, &bad_c, 3, (ox_value *[]){q4, k4, v4}, 1, "is_causal");
  expect_error("4d heads 25", 25, 1, h, 3, (ox_value *[]){q4, k4, v4}, 1, "4-D");
  expect_error("K type", 23, 0, NULL, 3, (ox_value *[]){q4, tensor(OX_DOUBLE, 4, DIMS(1, 2, 3, 8), NULL), v4}, 1, "same type");
}

/* FlexAttention without modifiers is plain attention (no mask). */
static void test_flex(void) {
  tcase t = {"flex", 23, 0, 2, 4, 2, 5, 7, 0, 8, 6, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1};
  ref_in r = {.B = t.B, .Hq = t.Hq, .Hkv = t.Hkv, .S = t.S, .L = t.L, .D = t.D, .Dv = t.Dv,
              .scale = 0.25, .left = -1, .right = -1};
  ox_value *in[3] = {rand_f32(4, DIMS(2, 4, 5, 8)), rand_f32(4, DIMS(2, 2, 7, 8)), rand_f32(4, DIMS(2, 2, 7, 6))};
  r.q = in[0]->u.t.data, r.k = in[1]->u.t.data, r.v = in[2]->u.t.data;
  ox_attr sc = attr_float("scale", 0.25f);
  ox_value *out[1];
  int want[1] = {1};
  CHECK_EQ_I(run("ai.onnx.preview", "FlexAttention", 1, 1, &sc, 3, in, 1, want, out), 0);
  double y[2 * 4 * 5 * 6], qk[2 * 4 * 5 * 7];
  reference(&r, y, qk);
  CHECK(close_to(out[0], y, 2 * 4 * 5 * 6, 0, 0, 0, 0, 0, 1e-4, "flex"));
  ox_value *bad[3] = {in[0], rand_f32(4, DIMS(2, 3, 7, 8)), rand_f32(4, DIMS(2, 3, 7, 6))};
  CHECK_EQ_I(run("ai.onnx.preview", "FlexAttention", 1, 0, NULL, 3, bad, 1, want, out), OX_EINPUT);
  CHECK(strstr(E.msg, "multiple") != NULL);
}

int main(void) {
  A = ox_arena_new();
  test_against_reference();
  test_masked_rows();
  test_fp16();
  test_double_to_fp16_scores();
  test_errors();
  test_flex();
  ox_arena_free(A);
  return check_done("attention");
}
