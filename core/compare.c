/* core/compare.c: value comparison for `onnxop test` (and later `compare`). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* "[1, 2]" from a flat index */
static void index_str(const ox_tensor *t, int64_t i, char *buf, size_t n) {
  int64_t idx[64];
  int r = t->rank < 64 ? t->rank : 64;
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = t->dims[d] ? i % t->dims[d] : 0;
    i = t->dims[d] ? i / t->dims[d] : 0;
  }
  ox_shape_str(r, idx, buf, n);
  buf[0] = '[';
  size_t l = strlen(buf);
  if (l >= 2 && buf[l - 2] == ',') { buf[l - 2] = ']'; buf[l - 1] = 0; } /* "(4,)" -> "[4]" */
  else if (l) buf[l - 1] = ']';
}

static int close_enough(double g, double w, double rtol, double atol) {
  if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
  if (isinf(g) || isinf(w)) return g == w;
  return fabs(g - w) <= atol + rtol * fabs(w);
}

static int cmp_tensor(const ox_tensor *g, const ox_tensor *w, double rtol, double atol,
                      char *why, size_t n) {
  char a[256], b[256];
  if (g->dt != w->dt) {
    snprintf(why, n, "dtype: expected %s, got %s", ox_dtype_name(w->dt), ox_dtype_name(g->dt));
    return 1;
  }
  if (g->rank != w->rank || memcmp(g->dims, w->dims, (size_t)g->rank * sizeof *g->dims)) {
    snprintf(why, n, "shape: expected %s, got %s", ox_shape_str(w->rank, w->dims, a, sizeof a),
             ox_shape_str(g->rank, g->dims, b, sizeof b));
    return 1;
  }
  ox_dtype dt = g->dt;
  for (int64_t i = 0; i < g->n; i++) {
    char ix[256];
    if (dt == OX_STRING) {
      const ox_str *x = (const ox_str *)g->data + i, *y = (const ox_str *)w->data + i;
      if (x->n != y->n || memcmp(x->p, y->p, (size_t)x->n)) {
        index_str(g, i, ix, sizeof ix);
        snprintf(why, n, "element %s: expected '%.60s', got '%.60s'", ix, y->p, x->p);
        return 1;
      }
    } else if (ox_dtype_is_float(dt) || ox_dtype_is_complex(dt)) {
      int parts = ox_dtype_is_complex(dt) ? 2 : 1;
      for (int p = 0; p < parts; p++) {
        double gv, wv;
        if (dt == OX_COMPLEX64) {
          gv = ((const float *)g->data)[2 * i + p];
          wv = ((const float *)w->data)[2 * i + p];
        } else if (dt == OX_COMPLEX128) {
          gv = ((const double *)g->data)[2 * i + p];
          wv = ((const double *)w->data)[2 * i + p];
        } else {
          gv = ox_load_f64(dt, g->data, i);
          wv = ox_load_f64(dt, w->data, i);
        }
        if (!close_enough(gv, wv, rtol, atol)) {
          index_str(g, i, ix, sizeof ix);
          snprintf(why, n, "element %s%s: expected %.9g, got %.9g (rtol %g, atol %g)", ix,
                   parts == 2 ? (p ? " (imaginary)" : " (real)") : "", wv, gv, rtol, atol);
          return 1;
        }
      }
    } else if (dt == OX_UINT64) {
      uint64_t x = ox_load_u64(dt, g->data, i), y = ox_load_u64(dt, w->data, i);
      if (x != y) {
        index_str(g, i, ix, sizeof ix);
        snprintf(why, n, "element %s: expected %llu, got %llu", ix, (unsigned long long)y,
                 (unsigned long long)x);
        return 1;
      }
    } else {
      int64_t x = ox_load_i64(dt, g->data, i), y = ox_load_i64(dt, w->data, i);
      if (x != y) {
        index_str(g, i, ix, sizeof ix);
        snprintf(why, n, "element %s: expected %lld, got %lld", ix, (long long)y, (long long)x);
        return 1;
      }
    }
  }
  return 0;
}

int ox_compare(const ox_value *got, const ox_value *want, double rtol, double atol, char *why,
               size_t n) {
  char a[160], b[160];
  if (!got || !want || got->kind != want->kind) {
    snprintf(why, n, "kind: expected %s, got %s", ox_value_desc(want, a, sizeof a),
             ox_value_desc(got, b, sizeof b));
    return 1;
  }
  switch (got->kind) {
  case OX_TENSOR:
    return cmp_tensor(&got->u.t, &want->u.t, rtol, atol, why, n);
  case OX_SEQUENCE:
    if (got->u.seq.n != want->u.seq.n) {
      snprintf(why, n, "sequence length: expected %lld, got %lld", (long long)want->u.seq.n,
               (long long)got->u.seq.n);
      return 1;
    }
    if (!ox_type_eq(got->type, want->type)) {
      snprintf(why, n, "type: expected %s, got %s", ox_value_desc(want, a, sizeof a),
               ox_value_desc(got, b, sizeof b));
      return 1;
    }
    for (int64_t i = 0; i < got->u.seq.n; i++) {
      if (ox_compare(got->u.seq.v[i], want->u.seq.v[i], rtol, atol, why, n)) {
        char tail[1024];
        snprintf(tail, sizeof tail, "%s", why);
        snprintf(why, n, "sequence element %lld: %s", (long long)i, tail);
        return 1;
      }
    }
    return 0;
  case OX_OPTIONAL:
    if (!got->u.opt != !want->u.opt) {
      snprintf(why, n, "optional: expected %s, got %s", want->u.opt ? "an element" : "none",
               got->u.opt ? "an element" : "none");
      return 1;
    }
    if (!got->u.opt) {
      if (!ox_type_eq(got->type, want->type)) {
        snprintf(why, n, "type: expected %s, got %s", ox_value_desc(want, a, sizeof a),
                 ox_value_desc(got, b, sizeof b));
        return 1;
      }
      return 0;
    }
    return ox_compare(got->u.opt, want->u.opt, rtol, atol, why, n);
  case OX_MAP:
    if (ox_compare(got->u.map.keys, want->u.map.keys, 0, 0, why, n)) return 1;
    return ox_compare(got->u.map.values, want->u.map.values, rtol, atol, why, n);
  default:
    snprintf(why, n, "unknown value kind");
    return 1;
  }
}
