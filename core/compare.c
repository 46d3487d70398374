/* core/compare.c: value comparison for `onnxop test` and `onnxop compare`. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

const char *ox_cmp_at_str(const ox_cmp_at *at, char *buf, size_t n) {
  char pre[40] = "";
  if (at->seq >= 0) snprintf(pre, sizeof pre, "seq[%lld]", (long long)at->seq);
  const ox_tensor *t = at->t;
  if (!t) {
    snprintf(buf, n, "%s", pre);
    return buf;
  }
  int64_t idx[64], i = at->i;
  int r = t->rank < 64 ? t->rank : 64;
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = t->dims[d] ? i % t->dims[d] : 0;
    i = t->dims[d] ? i / t->dims[d] : 0;
  }
  size_t at_ = (size_t)snprintf(buf, n, "%s[", pre);
  for (int d = 0; d < r && at_ < n; d++)
    at_ += (size_t)snprintf(buf + at_, n - at_, d ? ", %lld" : "%lld", (long long)idx[d]);
  if (at_ < n) snprintf(buf + at_, n - at_, "]");
  return buf;
}

static int close_enough(double g, double w, double rtol, double atol) {
  if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
  if (isinf(g) || isinf(w)) return g == w;
  return fabs(g - w) <= atol + rtol * fabs(w);
}

/* The element's bit pattern as an ordered integer (sign-magnitude to a line),
 * so that neighbours in the format differ by 1. */
static int64_t ordered_bits(ox_dtype dt, const void *data, int64_t i) {
  uint64_t u = 0;
  int bits;
  switch (ox_dtype_size(dt)) {
  case 8: u = ((const uint64_t *)data)[i]; bits = 64; break;
  case 4: u = ((const uint32_t *)data)[i]; bits = 32; break;
  case 2: u = ((const uint16_t *)data)[i]; bits = 16; break;
  default: u = ((const uint8_t *)data)[i]; bits = dt == OX_FLOAT4E2M1 ? 4 : 8; break;
  }
  if (dt == OX_FLOAT8E8M0) return (int64_t)u; /* no sign bit */
  uint64_t sign = UINT64_C(1) << (bits - 1);
  int64_t mag = (int64_t)(u & (sign - 1));
  return (u & sign) ? -mag : mag;
}

/* "element [0, 1] (imaginary): expected 0.5, got 0.75 (rtol 0.001, atol 1e-07)" */
static void fail_first(ox_cmp *r, const ox_cmp_at *at, const char *fmt_got, const char *fmt_want,
                       const char *part, const char *tol) {
  if (r->differ) return;
  char ix[256];
  r->differ = 1;
  snprintf(r->why, sizeof r->why, "element %s%s: expected %s, got %s%s", ox_cmp_at_str(at, ix, sizeof ix),
           part, fmt_want, fmt_got, tol);
}

static void cmp_tensor(const ox_tensor *g, const ox_tensor *w, int64_t seq, double rtol, double atol, ox_cmp *r) {
  char a[256], b[256], pre[48] = "";
  if (seq >= 0) snprintf(pre, sizeof pre, "sequence element %lld: ", (long long)seq);
  if (g->dt != w->dt) {
    r->differ = r->structural = 1;
    snprintf(r->why, sizeof r->why, "%sdtype: expected %s, got %s", pre, ox_dtype_name(w->dt), ox_dtype_name(g->dt));
    return;
  }
  if (g->rank != w->rank || memcmp(g->dims, w->dims, (size_t)g->rank * sizeof *g->dims)) {
    r->differ = r->structural = 1;
    snprintf(r->why, sizeof r->why, "%sshape: expected %s, got %s", pre, ox_shape_str(w->rank, w->dims, a, sizeof a),
             ox_shape_str(g->rank, g->dims, b, sizeof b));
    return;
  }
  ox_dtype dt = g->dt;
  r->total += g->n;
  for (int64_t i = 0; i < g->n; i++) {
    ox_cmp_at at = {g, seq, i};
    if (dt == OX_STRING) {
      const ox_str *x = (const ox_str *)g->data + i, *y = (const ox_str *)w->data + i;
      if (x->n != y->n || memcmp(x->p, y->p, (size_t)x->n)) {
        r->bad++;
        r->bad_exact++;
        if (!r->differ) {
          snprintf(a, sizeof a, "'%.60s'", x->p);
          snprintf(b, sizeof b, "'%.60s'", y->p);
        }
        fail_first(r, &at, a, b, "", "");
      }
      continue;
    }
    int isf = ox_dtype_is_float(dt) || ox_dtype_is_complex(dt);
    int parts = ox_dtype_is_complex(dt) ? 2 : 1;
    for (int p = 0; p < parts; p++) {
      double gv, wv;
      int ok;
      if (dt == OX_COMPLEX64) {
        gv = ((const float *)g->data)[2 * i + p];
        wv = ((const float *)w->data)[2 * i + p];
      } else if (dt == OX_COMPLEX128) {
        gv = ((const double *)g->data)[2 * i + p];
        wv = ((const double *)w->data)[2 * i + p];
      } else if (!isf) {
        /* integers and bool compare exactly, in their own width */
        if (dt == OX_UINT64) {
          uint64_t x = ox_load_u64(dt, g->data, i), y = ox_load_u64(dt, w->data, i);
          ok = x == y;
          gv = (double)x;
          wv = (double)y;
          if (!ok && !r->differ) { /* formatted only for the message */
            snprintf(a, sizeof a, "%llu", (unsigned long long)x);
            snprintf(b, sizeof b, "%llu", (unsigned long long)y);
          }
        } else {
          int64_t x = ox_load_i64(dt, g->data, i), y = ox_load_i64(dt, w->data, i);
          ok = x == y;
          gv = (double)x;
          wv = (double)y;
          if (!ok && !r->differ) {
            snprintf(a, sizeof a, "%lld", (long long)x);
            snprintf(b, sizeof b, "%lld", (long long)y);
          }
        }
        goto stats;
      } else {
        gv = ox_load_f64(dt, g->data, i);
        wv = ox_load_f64(dt, w->data, i);
      }
      ok = close_enough(gv, wv, rtol, atol);
      if (!ok && !r->differ) { /* formatted only for the message */
        snprintf(a, sizeof a, "%.9g", gv);
        snprintf(b, sizeof b, "%.9g", wv);
      }
      if (isf && !ox_dtype_is_complex(dt) && isfinite(gv) && isfinite(wv)) {
        int64_t d = ordered_bits(dt, g->data, i) - ordered_bits(dt, w->data, i);
        uint64_t ulp = (uint64_t)(d < 0 ? -d : d);
        r->floats = 1;
        if (ulp > r->max_ulp) r->max_ulp = ulp;
      }
    stats:
      r->numeric = 1;
      if (!(isnan(gv) && isnan(wv)) && !(gv == wv)) {
        double ad = fabs(gv - wv), rd = wv != 0 ? ad / fabs(wv) : (ad ? INFINITY : 0);
        if (isnan(ad)) ad = INFINITY, rd = INFINITY;
        if (ad > r->max_abs || !r->abs_at.t) {
          r->max_abs = ad;
          r->abs_at = at;
          r->abs_got = gv;
          r->abs_want = wv;
        }
        if (rd > r->max_rel || !r->rel_at.t) {
          r->max_rel = rd;
          r->rel_at = at;
          r->rel_got = gv;
          r->rel_want = wv;
        }
      }
      if (!ok) {
        char part[32] = "", tol[64] = "";
        if (parts == 2) snprintf(part, sizeof part, " (%s)", p ? "imaginary" : "real");
        if (isf) snprintf(tol, sizeof tol, " (rtol %g, atol %g)", rtol, atol);
        r->bad++;
        r->bad_exact += !isf;
        fail_first(r, &at, a, b, part, tol);
        break; /* one count per element */
      }
    }
  }
}

static void structural(ox_cmp *r, const char *fmt, const ox_value *got, const ox_value *want, int64_t seq) {
  char a[160], b[160], pre[48] = "";
  if (seq >= 0) snprintf(pre, sizeof pre, "sequence element %lld: ", (long long)seq);
  r->differ = r->structural = 1;
  snprintf(r->why, sizeof r->why, "%s%s: expected %s, got %s", pre, fmt, ox_value_desc(want, a, sizeof a),
           ox_value_desc(got, b, sizeof b));
}

/* An optional that holds a value stands for that value (ONNX's test runner
 * reads an OptionalProto as its element too); one that holds none stays. */
static const ox_value *held(const ox_value *v) {
  while (v && v->kind == OX_OPTIONAL && v->u.opt) v = v->u.opt;
  return v;
}

/* Whether two types can be one: an element type left open ('?', as a .pb
 * leaves an empty sequence's or an absent optional's) agrees with any, and
 * optional(X) with what X agrees with. */
static int types_agree(const ox_type *x, const ox_type *y) {
  if (!x || !y || x->kind == OX_KIND_NONE || y->kind == OX_KIND_NONE) return 1;
  if (x->kind == OX_OPTIONAL && y->kind != OX_OPTIONAL) return types_agree(x->inner, y);
  if (y->kind == OX_OPTIONAL && x->kind != OX_OPTIONAL) return types_agree(x, y->inner);
  if (x->kind != y->kind) return 0;
  if ((x->kind == OX_TENSOR || x->kind == OX_MAP) && ox_dtype_valid(x->elem) && ox_dtype_valid(y->elem) &&
      x->elem != y->elem)
    return 0;
  return x->kind == OX_TENSOR || types_agree(x->inner, y->inner);
}

/* The one rule, the same both ways (got and want swapped give the same
 * answer): values match when they hold the same. A present optional is what
 * it holds; an absent one matches only an absent one. Tensors match by
 * dtype, shape and elements; sequences by length, then element by element;
 * maps by keys and values. Types count only where nothing is held to
 * compare (an empty sequence, an absent optional), and there an open
 * element type ('?') agrees with any. */
static void cmp_value(const ox_value *got, const ox_value *want, int64_t seq, double rtol, double atol, ox_cmp *r) {
  if (r->structural) return;
  got = held(got);
  want = held(want);
  if (got && want && (got->kind == OX_OPTIONAL) != (want->kind == OX_OPTIONAL)) { /* one absent */
    char a[160], pre[48] = "";
    if (seq >= 0) snprintf(pre, sizeof pre, "sequence element %lld: ", (long long)seq);
    r->differ = r->structural = 1;
    snprintf(r->why, sizeof r->why, "%soptional: expected %s, got %s", pre,
             want->kind == OX_OPTIONAL ? "none" : ox_value_desc(want, a, sizeof a),
             got->kind == OX_OPTIONAL ? "none" : ox_value_desc(got, a, sizeof a));
    return;
  }
  if (!got || !want || got->kind != want->kind) {
    structural(r, "kind", got, want, seq);
    return;
  }
  switch (got->kind) {
  case OX_TENSOR:
    cmp_tensor(&got->u.t, &want->u.t, seq, rtol, atol, r);
    return;
  case OX_SEQUENCE:
    if (got->u.seq.n != want->u.seq.n) {
      r->differ = r->structural = 1;
      snprintf(r->why, sizeof r->why, "sequence length: expected %lld, got %lld", (long long)want->u.seq.n,
               (long long)got->u.seq.n);
      return;
    }
    if (!got->u.seq.n && !types_agree(got->type, want->type)) {
      structural(r, "type", got, want, seq);
      return;
    }
    for (int64_t i = 0; i < got->u.seq.n && !r->structural; i++)
      cmp_value(got->u.seq.v[i], want->u.seq.v[i], i, rtol, atol, r);
    return;
  case OX_OPTIONAL: /* both absent */
    if (!types_agree(got->type, want->type)) structural(r, "type", got, want, seq);
    return;
  case OX_MAP:
    cmp_value(got->u.map.keys, want->u.map.keys, seq, 0, 0, r);
    cmp_value(got->u.map.values, want->u.map.values, seq, rtol, atol, r);
    return;
  default:
    r->differ = r->structural = 1;
    snprintf(r->why, sizeof r->why, "unknown value kind");
  }
}

int ox_compare_full(const ox_value *got, const ox_value *want, double rtol, double atol, ox_cmp *r) {
  memset(r, 0, sizeof *r);
  r->abs_at.seq = r->rel_at.seq = -1;
  cmp_value(got, want, -1, rtol, atol, r);
  return r->differ;
}


/* ---- error statistics and non-finite values ---- */

/* Calls fn(ctx, tensor_of_got, tensor_of_want, seq) for each pair of tensors
 * of two values that cmp_value found alike in structure (present optionals
 * seen through, as there); want NULL: the tensors of got alone. */
typedef void (*tensor_fn)(void *ctx, const ox_tensor *g, const ox_tensor *w, int64_t seq);

static void each_tensor(const ox_value *g, const ox_value *w, int64_t seq, tensor_fn fn, void *ctx) {
  g = held(g);
  w = held(w);
  if (!g) return;
  switch (g->kind) {
  case OX_TENSOR: fn(ctx, &g->u.t, w ? &w->u.t : NULL, seq); return;
  case OX_SEQUENCE:
    for (int64_t i = 0; i < g->u.seq.n; i++) each_tensor(g->u.seq.v[i], w ? w->u.seq.v[i] : NULL, i, fn, ctx);
    return;
  case OX_OPTIONAL: return; /* absent: no tensor */
  case OX_MAP: each_tensor(g->u.map.values, w ? w->u.map.values : NULL, seq, fn, ctx); return;
  default: return;
  }
}

typedef struct { double *abs, *rel; int64_t n; } errs;

/* The i-th number of a float tensor (of a complex one: two per element). */
static double number_at(const ox_tensor *t, int64_t i) {
  if (t->dt == OX_COMPLEX64) return ((const float *)t->data)[i];
  if (t->dt == OX_COMPLEX128) return ((const double *)t->data)[i];
  return ox_load_f64(t->dt, t->data, i);
}

static void tensor_errors(void *ctx, const ox_tensor *g, const ox_tensor *w, int64_t seq) {
  errs *e = ctx;
  (void)seq;
  if (!ox_dtype_is_float(g->dt) && !ox_dtype_is_complex(g->dt)) return;
  int parts = ox_dtype_is_complex(g->dt) ? 2 : 1;
  for (int64_t i = 0; i < g->n * parts; i++) {
    double gv = number_at(g, i), wv = number_at(w, i), ad, rd;
    if ((isnan(gv) && isnan(wv)) || gv == wv) ad = rd = 0; /* equal, infinities included */
    else if (isnan(gv) || isnan(wv) || isinf(gv) || isinf(wv)) ad = rd = INFINITY;
    else ad = fabs(gv - wv), rd = wv != 0 ? ad / fabs(wv) : INFINITY;
    e->abs[e->n] = ad;
    e->rel[e->n++] = rd;
  }
}

int64_t ox_compare_errors(const ox_value *got, const ox_value *want, double *abs, double *rel) {
  errs e = {abs, rel, 0};
  each_tensor(got, want, -1, tensor_errors, &e);
  return e.n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ox_error_stat(double *v, int64_t n, ox_err_stat s, double q) {
  if (n <= 0) return 0;
  double acc = 0;
  switch (s) {
  case OX_STAT_MAX:
    for (int64_t i = 0; i < n; i++) acc = v[i] > acc ? v[i] : acc;
    return acc;
  case OX_STAT_MEAN:
    for (int64_t i = 0; i < n; i++) acc += v[i];
    return acc / (double)n;
  case OX_STAT_MEDIAN: q = 0.5; /* fall through */
  case OX_STAT_QUANTILE: {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (double)(n - 1);
    int64_t lo = (int64_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    if (frac == 0 || v[hi] == v[lo]) return v[lo]; /* no inf - inf */
    return v[lo] + (v[hi] - v[lo]) * frac;
  }
  }
  return 0;
}

typedef struct { int64_t nan, inf; ox_cmp_at first; } nonfinite;

static void tensor_nonfinite(void *ctx, const ox_tensor *g, const ox_tensor *w, int64_t seq) {
  nonfinite *nf = ctx;
  (void)w;
  if (!ox_dtype_is_float(g->dt) && !ox_dtype_is_complex(g->dt)) return;
  int parts = ox_dtype_is_complex(g->dt) ? 2 : 1;
  for (int64_t i = 0; i < g->n * parts; i++) {
    double v = number_at(g, i);
    if (isfinite(v)) continue;
    if (!nf->nan && !nf->inf) nf->first = (ox_cmp_at){g, seq, i / parts};
    if (isnan(v)) nf->nan++;
    else nf->inf++;
  }
}

void ox_count_nonfinite(const ox_value *v, int64_t *nan, int64_t *inf, ox_cmp_at *first) {
  nonfinite nf = {0, 0, {NULL, -1, 0}};
  each_tensor(v, NULL, -1, tensor_nonfinite, &nf);
  *nan = nf.nan;
  *inf = nf.inf;
  *first = nf.first;
}
