/* ops/attention.c: Attention (opset 23, 24, 25) and FlexAttention (ai.onnx.preview 1).
 *
 * Both are computed one (batch, query head) at a time:
 *
 *   scores (S, T) = scale * Q (S, D) · K^T (D, T)      the blocked GEMM
 *   a pass over each row: softcap, additive bias (mask, causal frontier,
 *     window, padding), softmax                          (FlexAttention runs its
 *     score_mod / prob_mod subgraphs on the whole (B, Hq, S, T) tensor instead)
 *   Y (S, Dv) = P (S, T) · V (T, Dv)                     the blocked GEMM
 *
 * float, float16 and bfloat16 compute in float (inputs widened once, outputs
 * rounded once on store), double in double; the body is written once and
 * expanded for the two compute types. 3-D inputs (B, S, H * D) are read in
 * place through row strides, so no transpose is ever materialized; the key and
 * value caches are concatenated only when past_key/past_value are given or
 * present_key/present_value are asked for.
 *
 * The scale is applied as GEMM's alpha (scale * Q·K^T) where the spec writes
 * sqrt(scale) * Q · sqrt(scale) * K^T: the same value up to rounding. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/eval.h"
#include "core/gemm.h"
#include "core/gemv.h"
#include "core/kernel.h"
#include "core/vexp.h"
#include "attention.h"

/* ---- what the computing body needs ---- */

typedef struct {
  int64_t B, Hq, Hkv, S, T, D, Dv; /* T: keys attended (past + new) */
  /* element strides of (batch, head, sequence) of each operand's rows; a row
   * (one head of one position) is contiguous */
  int64_t qs[3], ks[3], vs[3], ys[3];
  double scale, softcap;           /* softcap 0: none */
  int causal;
  int64_t left, right;             /* window bounds (Attention-25), -1: unbounded */
  int64_t past;                    /* internal cache length: the causal offset */
  const int64_t *nonpad;           /* (B,) valid keys per batch, or NULL */
  int has_mask;
  int64_t ms[4], mlen;             /* mask strides for (b, h, i, j); keys j >= mlen are masked */
  int mode;                        /* qk_matmul_output_mode */
  ox_dtype smp;                    /* softmax precision */
  int zero_masked_rows;            /* a row of only -inf softmaxes to zeros (Attention) */
  const int64_t *pastb;            /* (B,) the causal offset per batch, or NULL (ox_attention_f32) */
  const float *sink;               /* (Hq,) smooth softmax's extra logit per head, or NULL */
  int threads;                     /* the run's (c->threads), for the products */
} att_p;

/* Whether the softmax precision is narrower than the compute type. */
static int narrower(ox_dtype smp, int dbl) {
  return smp == OX_FLOAT16 || smp == OX_BFLOAT16 || (dbl && smp == OX_FLOAT);
}

/* ---- the float softmax's loops ----
 * r[j] = e^(r[j] - m) for a row whose max is m (so every argument is <= 0 or
 * -inf), returning their sum (accumulated in double). libm's expf is a call
 * per element and took more time than both GEMMs of a head; the float path
 * evaluates 4 lanes at once (core/vexp.h). `dbl`: softmax_precision asks
 * for double. */

typedef ox_v4f v4f;
typedef ox_v4i v4i;
#define V4(x) ((v4f){x, x, x, x})

static double expsum_f32(float *r, int64_t n, float m, int dbl) {
  double s = 0;
  int64_t j = 0;
  if (dbl) {
    for (; j < n; j++) s += (double)(r[j] = (float)exp((double)r[j] - m));
    return s;
  }
  v4f s4 = V4(0.0f);
  for (; j + 4 <= n; j += 4) {
    v4f x;
    memcpy(&x, r + j, sizeof x);
    x = ox_exp4_le0(x - m);
    memcpy(r + j, &x, sizeof x);
    s4 += x;
    if (!(j & 1023)) { /* fold into double now and then: long rows stay accurate */
      s += ((double)s4[0] + s4[1]) + ((double)s4[2] + s4[3]);
      s4 = V4(0.0f);
    }
  }
  s += ((double)s4[0] + s4[1]) + ((double)s4[2] + s4[3]);
  for (; j < n; j++) s += (double)(r[j] = (float)exp((double)r[j] - m));
  return s;
}

/* The max of r (n), NaN-blind; *nan: whether r holds a NaN. */
static float rowmax_f32(const float *r, int64_t n, int *nan) {
  v4f m4 = V4(-INFINITY);
  v4i bad = {0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    v4f x;
    memcpy(&x, r + j, sizeof x);
    bad |= x != x;
    v4i gt = x > m4;
    m4 = (v4f)(((v4i)x & gt) | ((v4i)m4 & ~gt));
  }
  float m = -INFINITY;
  for (int t = 0; t < 4; t++) {
    m = m4[t] > m ? m4[t] : m;
    *nan |= bad[t] != 0;
  }
  for (; j < n; j++) {
    *nan |= r[j] != r[j];
    m = r[j] > m ? r[j] : m;
  }
  return m;
}

static void scale_f32(float *r, int64_t n, float s) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    v4f x;
    memcpy(&x, r + j, sizeof x);
    x *= s;
    memcpy(r + j, &x, sizeof x);
  }
  for (; j < n; j++) r[j] *= s;
}

static double rowmax_f64(const double *r, int64_t n, int *nan) {
  double m = -INFINITY;
  for (int64_t j = 0; j < n; j++) {
    *nan |= r[j] != r[j];
    m = r[j] > m ? r[j] : m;
  }
  return m;
}

static void scale_f64(double *r, int64_t n, double s) {
  for (int64_t j = 0; j < n; j++) r[j] *= s;
}

static double expsum_f64(double *r, int64_t n, double m, int dbl) {
  double s = 0;
  for (int64_t j = 0; j < n; j++) s += (r[j] = exp(r[j] - m));
  return s;
}

/* The body, once per compute type F (ops/attention_body.h): qk_f32,
 * rows_f32, attention_f32 ... and the same in f64. */
#define F float
#define FN(name) name##_f32
#define GEMM ox_sgemm_any
#define TANH tanhf
#include "attention_body.h"
#define F double
#define FN(name) name##_f64
#define GEMM ox_dgemm_any
#define TANH tanh
#include "attention_body.h"

/* ---- conversions between tensors and the compute type ---- */

/* t's data as float (dbl 0) or double (dbl 1): the tensor's own data when it
 * already is that type, else a converted copy in the arena. NULL: out of memory. */
static void *to_compute(ox_ctx *c, const ox_tensor *t, int dbl) {
  if (t->dt == (dbl ? OX_DOUBLE : OX_FLOAT)) return t->data;
  if (!dbl) {
    float *f = ox_widen_f32(c->a, t, c->err);
    if (!f) ox_oom(c->err, NULL);
    return f;
  }
  double *d = ox_alloc_array(c->a, t->n + 1, sizeof *d);
  if (!d) {
    ox_oom(c->err, NULL);
    return NULL;
  }
  for (int64_t i = 0; i < t->n; i++) d[i] = ox_load_f64(t->dt, t->data, i);
  return d;
}

/* Where the body writes output t: its own data when t has the compute type,
 * else a zeroed scratch buffer that from_compute stores into t. */
static void *out_buffer(ox_ctx *c, const ox_tensor *t, int dbl) {
  if (t->dt == (dbl ? OX_DOUBLE : OX_FLOAT)) return t->data;
  void *b = ox_alloc_array(c->a, t->n + 1, dbl ? sizeof(double) : sizeof(float));
  if (!b) ox_oom(c->err, NULL);
  return b;
}

/* Round src (compute type) once into t, unless it already is t's data. */
static void from_compute(const void *src, int dbl, ox_tensor *t) {
  if (src == t->data) return;
  if (!dbl) {
    ox_narrow_f32(src, t);
    return;
  }
  const double *d = src;
  for (int64_t i = 0; i < t->n; i++) ox_store_f64(t->dt, t->data, i, d[i]);
}

/* ---- input checks ---- */

static const ox_value *opt_in(int nin, ox_value **in, int i) { return i < nin ? in[i] : NULL; }

static int want_out(ox_ctx *c, int nout, int i) {
  return i < nout && c->node->out && c->node->out[i] && c->node->out[i][0];
}

static int tensor_of(ox_ctx *c, const ox_value *v, int i, const ox_tensor **t) {
  OX_TRY(ox_need_tensor(c, v, i));
  *t = &v->u.t;
  return 0;
}

static int float_type(ox_ctx *c, int i, const ox_tensor *t, const char *what) {
  if (t->dt == OX_FLOAT || t->dt == OX_DOUBLE || t->dt == OX_FLOAT16 || t->dt == OX_BFLOAT16)
    return 0;
  return ox_fail(c->err, OX_EINPUT, "%s is %s; %s must be float, double, float16 or bfloat16",
                 ox_input_name(c, i), ox_dtypes[t->dt].onnx_name, what);
}

static int bad_shape(ox_ctx *c, int i, const ox_tensor *t, const char *want) {
  char b[128];
  return ox_fail(c->err, OX_EINPUT, "%s has shape %s; it must be %s", ox_input_name(c, i),
                 ox_shape_str(t->rank, t->dims, b, sizeof b), want);
}

/* softmax_precision: absent gives def; else one of float, float16, double, bfloat16. */
static int softmax_precision(ox_ctx *c, ox_dtype def, ox_dtype *out) {
  const ox_attr *at = ox_attr_find(c, "softmax_precision");
  *out = def;
  if (!at) return 0;
  int64_t v = ox_attr_int(c, "softmax_precision", 0);
  if (v != OX_FLOAT && v != OX_FLOAT16 && v != OX_DOUBLE && v != OX_BFLOAT16)
    return ox_fail(c->err, OX_EINPUT,
                   "attribute softmax_precision is %lld; it must be 1 (float), 10 (float16), "
                   "11 (double) or 16 (bfloat16)",
                   (long long)v);
  *out = (ox_dtype)v;
  return 0;
}

/* The scale attribute, or 1/sqrt(head_size). */
static double scale_of(ox_ctx *c, int64_t D) {
  if (ox_attr_find(c, "scale")) return ox_attr_float(c, "scale", 1);
  return D > 0 ? 1.0 / sqrt((double)D) : 1.0;
}

/* out (B, H, P + L, Dh) = past (B, H, P, Dh) followed by x along the sequence:
 * x is (B, H, L, Dh) or, 3-D, (B, L, H * Dh). Bytes are moved as they are. */
static int kv_concat(ox_ctx *c, const ox_tensor *past, const ox_tensor *x, int64_t H,
                     int64_t Dh, ox_value **out) {
  int x3 = x->rank == 3;
  int64_t B = x->dims[0], L = x->dims[x3 ? 1 : 2], P = past ? past->dims[2] : 0;
  if (P > INT64_MAX - L) return ox_oom(c->err, NULL);
  int64_t dims[4] = {B, H, P + L, Dh};
  OX_TRY(ox_tensor_new(c->a, x->dt, 4, dims, out, c->err));
  size_t es = ox_dtype_size(x->dt), row = (size_t)Dh * es;
  char *dst = (*out)->u.t.data;
  if (!(*out)->u.t.n) return 0;
  for (int64_t b = 0; b < B; b++)
    for (int64_t h = 0; h < H; h++) {
      if (P) {
        memcpy(dst, (const char *)past->data + (size_t)((b * H + h) * P) * row, (size_t)P * row);
        dst += (size_t)P * row;
      }
      for (int64_t l = 0; l < L; l++, dst += row) {
        int64_t e = x3 ? (b * L + l) * H * Dh + h * Dh : ((b * H + h) * L + l) * Dh;
        memcpy(dst, (const char *)x->data + (size_t)e * es, row);
      }
    }
  return 0;
}

/* Row strides (batch, head, seq) of an operand (B, H, L, Dh), or 3-D (B, L, H * Dh). */
static void strides(int three_d, int64_t H, int64_t L, int64_t Dh, int64_t s[3]) {
  if (three_d) {
    s[0] = L * H * Dh, s[1] = Dh, s[2] = H * Dh;
  } else {
    s[0] = H * L * Dh, s[1] = L * Dh, s[2] = Dh;
  }
}

/* ---- Attention ---- */

/* The mask, right-aligned to (B, Hq, S, T): each dim 1 (broadcast) or equal;
 * from opset 24 the last may also be shorter, the missing keys masked. */
static int mask_layout(ox_ctx *c, const ox_tensor *m, att_p *p) {
  static const char *dn[4] = {"batch_size", "q_num_heads", "q_sequence_length",
                              "total_sequence_length"};
  int64_t want[4] = {p->B, p->Hq, p->S, p->T};
  if (m->rank < 1 || m->rank > 4)
    return bad_shape(c, 3, m, "broadcastable to (batch_size, q_num_heads, q_sequence_length, "
                              "total_sequence_length) (rank 1 to 4)");
  int64_t st = 1;
  for (int a = 3; a >= 0; a--) {
    int k = a - (4 - m->rank);
    int64_t d = k >= 0 ? m->dims[k] : 1;
    p->ms[a] = d == 1 ? 0 : st;
    if (a == 3) {
      /* Attention-24: "the last dimension can also be shorter than
       * total_sequence_length and will be padded ... with negative infinity"
       * (the reference and the function body pad a last dim of 1 too). */
      if (d == p->T || (d == 1 && c->version < 24)) {
        p->mlen = p->T;
      } else if (c->version >= 24 && d < p->T) {
        p->mlen = d;
        p->ms[a] = 1;
      } else {
        char b[128];
        return ox_fail(c->err, OX_EINPUT,
                       "%s has shape %s; its last dim must be %s%s (%lld)", ox_input_name(c, 3),
                       ox_shape_str(m->rank, m->dims, b, sizeof b),
                       c->version >= 24 ? "at most " : "1 or ", dn[3], (long long)p->T);
      }
    } else if (d != 1 && d != want[a]) {
      char b[128];
      return ox_fail(c->err, OX_EINPUT, "%s has shape %s; dim %d must be 1 or %s (%lld)",
                     ox_input_name(c, 3), ox_shape_str(m->rank, m->dims, b, sizeof b), k,
                     dn[a], (long long)want[a]);
    }
    st *= d;
  }
  p->has_mask = 1;
  return 0;
}

/* The mask as an additive bias in the compute type: bool True -> 0, False ->
 * -inf; numbers are added as they are. */
static void *mask_bias(ox_ctx *c, const ox_tensor *m, int dbl) {
  if (m->dt != OX_BOOL) return to_compute(c, m, dbl);
  void *b = ox_alloc_array(c->a, m->n + 1, dbl ? sizeof(double) : sizeof(float));
  if (!b) {
    ox_oom(c->err, NULL);
    return NULL;
  }
  const uint8_t *s = m->data;
  for (int64_t i = 0; i < m->n; i++) {
    if (dbl) ((double *)b)[i] = s[i] ? 0.0 : -INFINITY;
    else ((float *)b)[i] = s[i] ? 0.0f : -INFINITY;
  }
  return b;
}

static int mask_type_ok(ox_dtype dt) {
  return dt == OX_BOOL || (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(FLOAT16) | OX_T(BFLOAT16) |
                           OX_TS_INTS) >> dt & 1;
}

static int attention(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *Q = NULL, *K = NULL, *V = NULL, *M = NULL, *PK = NULL, *PV = NULL, *NP = NULL;
  OX_TRY(tensor_of(c, in[0], 0, &Q));
  if (!in[1] || !in[2]) return ox_fail(c->err, OX_EINPUT, "%s is missing", ox_input_name(c, in[1] ? 2 : 1));
  OX_TRY(tensor_of(c, in[1], 1, &K));
  OX_TRY(tensor_of(c, in[2], 2, &V));
  const ox_value *v;
  if ((v = opt_in(nin, in, 3))) OX_TRY(tensor_of(c, v, 3, &M));
  if ((v = opt_in(nin, in, 4))) OX_TRY(tensor_of(c, v, 4, &PK));
  if ((v = opt_in(nin, in, 5))) OX_TRY(tensor_of(c, v, 5, &PV));
  if ((v = opt_in(nin, in, 6))) OX_TRY(tensor_of(c, v, 6, &NP));

  /* types: Q, K, past_key are T1; V, past_value T2; the mask U */
  OX_TRY(ox_same_dtype_as(c, 1, K, 0, Q));
  OX_TRY(float_type(c, 2, V, "T2"));
  if (PK) OX_TRY(ox_same_dtype_as(c, 4, PK, 0, Q));
  if (PV) OX_TRY(ox_same_dtype_as(c, 5, PV, 2, V));
  if (M && !mask_type_ok(M->dt))
    return ox_fail(c->err, OX_EINPUT, "%s is %s; the mask must be bool, an integer or a float type",
                   ox_input_name(c, 3), ox_dtypes[M->dt].onnx_name);
  if (NP && NP->dt != OX_INT64)
    return ox_fail(c->err, OX_EINPUT, "%s is %s; it must be int64", ox_input_name(c, 6),
                   ox_dtypes[NP->dt].onnx_name);

  /* attributes */
  att_p p = {.threads = c->threads};
  OX_TRY(ox_attr_int_in(c, "is_causal", 0, 0, 1, &p.causal));
  OX_TRY(ox_attr_int_in(c, "qk_matmul_output_mode", 0, 0, 3, &p.mode));
  p.softcap = ox_attr_float(c, "softcap", 0);
  OX_TRY(softmax_precision(c, Q->dt, &p.smp));
  p.left = p.right = -1;
  if (c->version >= 25) {
    p.left = ox_attr_int(c, "left_window_size", -1);
    p.right = ox_attr_int(c, "right_window_size", -1);
    if (p.left < -1 || p.right < -1)
      return ox_fail(c->err, OX_EINPUT,
                     "attributes left_window_size (%lld) and right_window_size (%lld) must be -1 "
                     "or nonnegative", (long long)p.left, (long long)p.right);
  }
  if (c->err->code) return c->err->code; /* an attribute of the wrong type */

  /* shapes: Q (B, Hq, S, D), K (B, Hkv, L, D), V (B, Hkv, L, Dv), or 3-D with
   * the heads folded into the last dim: (B, S, Hq * D), (B, L, Hkv * D), ... */
  const ox_attr *aq = ox_attr_find(c, "q_num_heads"), *akv = ox_attr_find(c, "kv_num_heads");
  int64_t nq = aq ? ox_attr_int(c, "q_num_heads", 0) : 0;
  int64_t nkv = akv ? ox_attr_int(c, "kv_num_heads", 0) : 0;
  int three = Q->rank == 3;
  if (Q->rank != 3 && Q->rank != 4)
    return bad_shape(c, 0, Q, "(batch_size, q_num_heads, q_sequence_length, head_size) or "
                              "(batch_size, q_sequence_length, q_hidden_size)");
  if (K->rank != Q->rank) return bad_shape(c, 1, K, three ? "3-D, as Q is" : "4-D, as Q is");
  if (V->rank != Q->rank) return bad_shape(c, 2, V, three ? "3-D, as Q is" : "4-D, as Q is");
  int64_t L;
  p.B = Q->dims[0];
  if (three) {
    if (nq <= 0 || nkv <= 0)
      return ox_fail(c->err, OX_EINPUT, "3-D inputs need attributes q_num_heads and kv_num_heads "
                                        "(positive; got %lld and %lld)", (long long)nq, (long long)nkv);
    p.Hq = nq, p.Hkv = nkv, p.S = Q->dims[1], L = K->dims[1];
    if (Q->dims[2] % nq) return bad_shape(c, 0, Q, "(batch_size, q_sequence_length, q_num_heads * head_size)");
    p.D = Q->dims[2] / nq;
    if (K->dims[2] != nkv * p.D) return bad_shape(c, 1, K, "(batch_size, kv_sequence_length, kv_num_heads * head_size)");
    if (V->dims[2] % nkv) return bad_shape(c, 2, V, "(batch_size, kv_sequence_length, kv_num_heads * v_head_size)");
    p.Dv = V->dims[2] / nkv;
    if (V->dims[1] != L) return bad_shape(c, 2, V, "(batch_size, kv_sequence_length, ...) with K's kv_sequence_length");
  } else {
    p.Hq = Q->dims[1], p.S = Q->dims[2], p.D = Q->dims[3];
    p.Hkv = K->dims[1], L = K->dims[2], p.Dv = V->dims[3];
    /* Attention-25 forbids the head attributes with 4-D inputs; before, they
     * must at least agree with the shapes. */
    if ((aq || akv) && c->version >= 25)
      return ox_fail(c->err, OX_EINPUT, "q_num_heads and kv_num_heads must not be given with 4-D inputs");
    if ((aq && nq != p.Hq) || (akv && nkv != p.Hkv))
      return ox_fail(c->err, OX_EINPUT, "attributes q_num_heads (%lld) and kv_num_heads (%lld) "
                     "disagree with Q's and K's head dims (%lld, %lld)", (long long)nq,
                     (long long)nkv, (long long)p.Hq, (long long)p.Hkv);
    if (K->dims[3] != p.D) return bad_shape(c, 1, K, "(batch_size, kv_num_heads, kv_sequence_length, head_size) with Q's head_size");
    if (V->dims[1] != p.Hkv || V->dims[2] != L)
      return bad_shape(c, 2, V, "(batch_size, kv_num_heads, kv_sequence_length, v_head_size) with K's heads and length");
  }
  if (K->dims[0] != p.B) return bad_shape(c, 1, K, "of Q's batch_size");
  if (V->dims[0] != p.B) return bad_shape(c, 2, V, "of Q's batch_size");
  if (p.Hkv < 1 || p.Hq % p.Hkv)
    return ox_fail(c->err, OX_EINPUT, "q_num_heads (%lld) must be a multiple of kv_num_heads (%lld)",
                   (long long)p.Hq, (long long)p.Hkv);

  /* the caches */
  int want_pk = want_out(c, nout, 1), want_pv = want_out(c, nout, 2);
  if (!PK != !PV)
    return ox_fail(c->err, OX_EINPUT, "past_key and past_value must be given together");
  int64_t P = 0;
  if (PK) {
    P = PK->dims[2];
    if (PK->rank != 4 || PK->dims[0] != p.B || PK->dims[1] != p.Hkv || PK->dims[3] != p.D)
      return bad_shape(c, 4, PK, "(batch_size, kv_num_heads, past_sequence_length, head_size)");
    if (PV->rank != 4 || PV->dims[0] != p.B || PV->dims[1] != p.Hkv || PV->dims[2] != P ||
        PV->dims[3] != p.Dv)
      return bad_shape(c, 5, PV, "(batch_size, kv_num_heads, past_sequence_length, v_head_size)");
  }
  if (P > INT64_MAX - L) return ox_oom(c->err, NULL);
  p.T = P + L;
  p.past = P;
  if (NP) {
    if (PK || want_pk || want_pv)
      return ox_fail(c->err, OX_EINPUT, "nonpad_kv_seqlen cannot be used with past_key/past_value "
                                        "or present_key/present_value (Attention-24)");
    if (NP->rank != 1 || NP->dims[0] != p.B) return bad_shape(c, 6, NP, "(batch_size,)");
    p.nonpad = NP->data;
    for (int64_t b = 0; b < p.B; b++)
      if (p.nonpad[b] < 0 || p.nonpad[b] > p.T)
        return ox_fail(c->err, OX_EINPUT, "%s[%lld] is %lld; it must be in [0, %lld]",
                       ox_input_name(c, 6), (long long)b, (long long)p.nonpad[b], (long long)p.T);
  }
  if (M) OX_TRY(mask_layout(c, M, &p));
  p.scale = scale_of(c, p.D);
  p.zero_masked_rows = 1;

  /* outputs: Y (B, Hq, S, Dv) or (B, S, Hq * Dv); present_*; qk (B, Hq, S, T) */
  int64_t yd4[4] = {p.B, p.Hq, p.S, p.Dv}, yd3[3] = {p.B, p.S, 0};
  if (p.Hq && p.Dv > INT64_MAX / p.Hq) return ox_oom(c->err, NULL);
  yd3[2] = p.Hq * p.Dv;
  OX_TRY(ox_tensor_new(c->a, Q->dt, three ? 3 : 4, three ? yd3 : yd4, &out[0], c->err));
  const ox_tensor *Kc = K, *Vc = V;
  int kv3 = three;
  if (PK || want_pk || want_pv) {
    ox_value *pk, *pv;
    OX_TRY(kv_concat(c, PK, K, p.Hkv, p.D, &pk));
    OX_TRY(kv_concat(c, PV, V, p.Hkv, p.Dv, &pv));
    if (want_pk) out[1] = pk;
    if (want_pv) out[2] = pv;
    Kc = &pk->u.t, Vc = &pv->u.t, kv3 = 0;
  }
  ox_tensor *qkt = NULL;
  if (want_out(c, nout, 3)) {
    int64_t qd[4] = {p.B, p.Hq, p.S, p.T};
    OX_TRY(ox_tensor_new(c->a, Q->dt, 4, qd, &out[3], c->err));
    qkt = &out[3]->u.t;
  }
  ox_tensor *Y = &out[0]->u.t;
  if (!Y->n && !qkt) return 0; /* nothing to compute (and no loop over empty heads) */
  /* (after that check: an empty operand's dims may multiply beyond int64) */
  strides(three, p.Hq, p.S, p.D, p.qs);
  strides(kv3, p.Hkv, p.T, p.D, p.ks);
  strides(kv3, p.Hkv, p.T, p.Dv, p.vs);
  strides(three, p.Hq, p.S, p.Dv, p.ys);
  /* compute in double when Q or V is double, else in float */
  int dbl = Q->dt == OX_DOUBLE || V->dt == OX_DOUBLE;
  void *q = to_compute(c, Q, dbl), *k = q ? to_compute(c, Kc, dbl) : NULL;
  void *vv = k ? to_compute(c, Vc, dbl) : NULL, *m = NULL;
  if (!vv) return c->err->code;
  if (M && !(m = mask_bias(c, M, dbl))) return c->err->code;
  void *y = out_buffer(c, Y, dbl), *qk = NULL;
  if (!y) return c->err->code;
  if (qkt && !(qk = out_buffer(c, qkt, dbl))) return c->err->code;
  if (dbl) OX_TRY(attention_f64(c, &p, q, k, vv, m, y, qk));
  else OX_TRY(attention_f32(c, &p, q, k, vv, m, y, qk));
  from_compute(y, dbl, Y);
  if (qkt) from_compute(qk, dbl, qkt);
  return 0;
}

/* ---- FlexAttention (ai.onnx.preview 1) ----
 * Scores = scale * Q·K^T, score_mod(Scores), Softmax, prob_mod(Probs), Y = Probs·V.
 * The modifiers see the whole (B, Hq, L, S) tensor in the softmax precision
 * (float32 for float16/bfloat16/float inputs, double for double, unless
 * softmax_precision says otherwise). No fully-masked-row guard here: a row of
 * -inf scores softmaxes to NaN, as the reference computes it. */

static int run_mod(ox_ctx *c, const char *name, const att_p *p, int dbl, void *buf) {
  const ox_attr *at = ox_attr_find(c, name);
  if (!at) return 0;
  if (at->type != OX_ATTR_GRAPH || !at->g)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' must be a graph", name);
  const ox_graph *g = at->g;
  if (g->nin != 1 || g->nout != 1)
    return ox_fail(c->err, OX_EINPUT, "subgraph '%s' must have 1 input and 1 output (has %d and %d)",
                   name, g->nin, g->nout);
  int64_t dims[4] = {p->B, p->Hq, p->S, p->T};
  ox_value *x, *y = NULL;
  OX_TRY(ox_tensor_new(c->a, p->smp, 4, dims, &x, c->err));
  if (x->u.t.dt == (dbl ? OX_DOUBLE : OX_FLOAT)) memcpy(x->u.t.data, buf, (size_t)x->u.t.n * (dbl ? 8 : 4));
  else from_compute(buf, dbl, &x->u.t);
  OX_TRY(ox_run_subgraph(c, name, g, 1, &x, &y));
  char b1[128], b2[128], b3[128];
  if (!y || y->kind != OX_TENSOR || y->u.t.dt != p->smp || y->u.t.rank != 4 ||
      memcmp(y->u.t.dims, dims, sizeof dims))
    return ox_fail(c->err, OX_EINPUT, "subgraph '%s' must return a %s tensor of shape %s; it returned %s %s",
                   name, ox_dtypes[p->smp].onnx_name, ox_shape_str(4, dims, b1, sizeof b1),
                   y ? ox_value_desc(y, b2, sizeof b2) : "nothing",
                   y && y->kind == OX_TENSOR ? ox_shape_str(y->u.t.rank, y->u.t.dims, b3, sizeof b3) : "");
  void *r = to_compute(c, &y->u.t, dbl);
  if (!r) return c->err->code;
  if (x->u.t.n) memmove(buf, r, (size_t)x->u.t.n * (dbl ? 8 : 4));
  return 0;
}

static int flex_attention(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  const ox_tensor *Q = NULL, *K = NULL, *V = NULL;
  OX_TRY(tensor_of(c, in[0], 0, &Q));
  OX_TRY(tensor_of(c, in[1], 1, &K));
  OX_TRY(tensor_of(c, in[2], 2, &V));
  OX_TRY(ox_same_dtype_as(c, 1, K, 0, Q));
  OX_TRY(ox_same_dtype_as(c, 2, V, 0, Q));
  if (Q->rank != 4) return bad_shape(c, 0, Q, "(batch_size, q_num_heads, q_seq_len, head_size)");
  if (K->rank != 4) return bad_shape(c, 1, K, "(batch_size, kv_num_heads, kv_seq_len, head_size)");
  if (V->rank != 4) return bad_shape(c, 2, V, "(batch_size, kv_num_heads, kv_seq_len, v_head_size)");
  att_p p = {.threads = c->threads};
  p.B = Q->dims[0], p.Hq = Q->dims[1], p.S = Q->dims[2], p.D = Q->dims[3];
  p.Hkv = K->dims[1], p.T = K->dims[2], p.Dv = V->dims[3];
  if (K->dims[0] != p.B || K->dims[3] != p.D)
    return bad_shape(c, 1, K, "(batch_size, kv_num_heads, kv_seq_len, head_size) with Q's batch_size and head_size");
  if (V->dims[0] != p.B || V->dims[1] != p.Hkv || V->dims[2] != p.T)
    return bad_shape(c, 2, V, "(batch_size, kv_num_heads, kv_seq_len, v_head_size) with K's batch, heads and length");
  if (p.Hkv < 1 || p.Hq % p.Hkv)
    return ox_fail(c->err, OX_EINPUT, "q_num_heads (%lld) must be a multiple of kv_num_heads (%lld)",
                   (long long)p.Hq, (long long)p.Hkv);
  OX_TRY(softmax_precision(c, Q->dt == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT, &p.smp));
  p.scale = scale_of(c, p.D);
  if (c->err->code) return c->err->code;
  p.left = p.right = -1;

  int64_t yd[4] = {p.B, p.Hq, p.S, p.Dv}, sd[4] = {p.B, p.Hq, p.S, p.T};
  OX_TRY(ox_tensor_new(c->a, Q->dt, 4, yd, &out[0], c->err));
  ox_tensor *Y = &out[0]->u.t;
  if (!Y->n) return 0; /* (and an empty operand's dims may multiply beyond int64) */
  strides(0, p.Hq, p.S, p.D, p.qs);
  strides(0, p.Hkv, p.T, p.D, p.ks);
  strides(0, p.Hkv, p.T, p.Dv, p.vs);
  strides(0, p.Hq, p.S, p.Dv, p.ys);
  int dbl = Q->dt == OX_DOUBLE || p.smp == OX_DOUBLE;
  size_t fs = dbl ? sizeof(double) : sizeof(float);
  int64_t n = ox_numel(4, sd, fs);
  if (n < 0) return ox_oom(c->err, NULL);
  void *q = to_compute(c, Q, dbl), *k = q ? to_compute(c, K, dbl) : NULL;
  void *v = k ? to_compute(c, V, dbl) : NULL;
  if (!v) return c->err->code;
  void *y = out_buffer(c, Y, dbl), *sc = ox_alloc_array(c->a, n + 1, fs);
  if (!y) return c->err->code;
  if (!sc) return ox_oom(c->err, NULL);
  int64_t hs = p.S * p.T; /* <= n */
  int rnd = narrower(p.smp, dbl);
  for (int64_t b = 0; b < p.B; b++)
    for (int64_t h = 0; h < p.Hq; h++) {
      int64_t o = (b * p.Hq + h) * hs;
      if (dbl) qk_f64(&p, q, k, b, h, (double *)sc + o);
      else qk_f32(&p, q, k, b, h, (float *)sc + o);
    }
  if (rnd) /* the scores in the softmax precision */
    for (int64_t i = 0; i < n; i++) {
      if (dbl) ((double *)sc)[i] = ox_round_to(p.smp, ((double *)sc)[i]);
      else ((float *)sc)[i] = (float)ox_round_to(p.smp, ((float *)sc)[i]);
    }
  OX_TRY(run_mod(c, "score_mod", &p, dbl, sc));
  for (int64_t r = 0, rows = p.T ? n / p.T : 0; r < rows; r++) {
    if (dbl) softmax_f64(&p, (double *)sc + r * p.T, p.T, rnd);
    else softmax_f32(&p, (float *)sc + r * p.T, p.T, rnd);
  }
  OX_TRY(run_mod(c, "prob_mod", &p, dbl, sc));
  for (int64_t b = 0; b < p.B; b++)
    for (int64_t h = 0; h < p.Hq; h++) {
      int64_t o = (b * p.Hq + h) * hs;
      if (dbl) pv_f64(&p, v, b, h, (double *)sc + o, y);
      else pv_f32(&p, v, b, h, (float *)sc + o, y);
    }
  from_compute(y, dbl, Y);
  return 0;
}

/* ---- the core for the other families (ops/attention.h) ---- */

int ox_attention_f32(ox_ctx *c, const ox_att_args *a, const float *q, const float *k, const float *v, float *y,
                     float *qk) {
  att_p p = {.B = a->B, .Hq = a->Hq, .Hkv = a->Hkv, .S = a->S, .T = a->T, .D = a->D, .Dv = a->Dv,
             .scale = a->scale, .softcap = a->softcap, .causal = a->causal, .left = a->left, .right = -1,
             .past = a->past, .nonpad = a->nkeys, .has_mask = a->bias != NULL, .mlen = a->bias ? a->blen : a->T,
             .mode = a->qk_mode, .smp = OX_FLOAT, .zero_masked_rows = a->zero_masked_rows, .pastb = a->pastb,
             .sink = a->sink, .threads = c->threads};
  memcpy(p.qs, a->qs, sizeof p.qs);
  memcpy(p.ks, a->ks, sizeof p.ks);
  memcpy(p.vs, a->vs, sizeof p.vs);
  memcpy(p.ys, a->ys, sizeof p.ys);
  memcpy(p.ms, a->bs, sizeof p.ms);
  if (p.Hkv < 1 || p.Hq % p.Hkv) return ox_fail(c->err, OX_EINPUT, "q heads %lld are not a multiple of kv heads %lld",
                                                (long long)p.Hq, (long long)p.Hkv);
  return attention_f32(c, &p, q, k, v, a->bias, y, qk);
}

#define F4 (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(FLOAT16) | OX_T(BFLOAT16))

const ox_kernel ox_attention_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "",                "Attention",     23, 0, F4, 3, 6, attention,
    "is_causal:int=0,kv_num_heads:int,q_num_heads:int,qk_matmul_output_mode:int=0,scale:float,"
    "softcap:float=0.0,softmax_precision:int" },
  { "",                "Attention",     24, 0, F4, 3, 7, attention, OX_ATTRS_OF(23) },
  { "",                "Attention",     25, 0, F4, 3, 7, attention,
    "is_causal:int=0,kv_num_heads:int,left_window_size:int=-1,q_num_heads:int,"
    "qk_matmul_output_mode:int=0,right_window_size:int=-1,scale:float,softcap:float=0.0,"
    "softmax_precision:int" },
  { "ai.onnx.preview", "FlexAttention",  1, 0, F4, 3, 3, flex_attention,
    "prob_mod:graph,scale:float,score_mod:graph,softmax_precision:int" },
  {0},
};
