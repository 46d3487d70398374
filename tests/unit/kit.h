/* tests/unit/kit.h: what the kernel unit tests share, on top of check.h.
 *
 *   A, E                    the test's arena (main makes it) and error
 *   tensor(dt, rank, dims, data)   a tensor; data (NULL: zeros) copied in
 *   vec(dt, n, data)        a 1-D tensor of n elements (a scalar when n < 0)
 *   attr_int, attr_float, attr_str, attr_ints, attr_floats, attr_strs,
 *   attr_tensor             one attribute each
 *   kit_run(domain, op, opset, nattr, attr, nin, in, nout, out)
 *                           one node through the registry, as core/eval.c
 *                           runs it (node and ctx at the row's since-version;
 *                           a NULL input has the name ""); checks nin against
 *                           the row and, on success, every output non-NULL;
 *                           an input type the row does not take fails, as in
 *                           the evaluator, with "type not in the row's mask"
 *   CHECK_FAILS(call, part) call returns OX_EINPUT with `part` in E.msg
 *   kit_rnd32()             a seeded pseudo-random number (the same every run)
 *   kit_bcast_off(t, rank, dims, i)  the element of t that output element i of
 *                           the broadcast shape (rank, dims) reads (naive)
 *   kit_node(op, nin, in, nout, out)  a node for a graph built by hand
 *   shape_is, same_bytes, close_f32, close_d   comparing results
 *   check_rows(rows, retired, last)   a kernel table's rows are in order
 *
 * A file may define KIT_IN_NAMES / KIT_OUT_NAMES (a brace list of up to 16
 * names) before including this, when its messages name the inputs. */
#ifndef OX_KIT_H
#define OX_KIT_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/kernel.h"
#include "core/ox.h"

static ox_arena *A;
static ox_err E;

/* ---- building values ---- */

static inline ox_value *tensor(ox_dtype dt, int rank, const int64_t *dims, const void *data) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, dt, rank, dims, &v, &E)) {
    fprintf(stderr, "tensor: %s\n", E.msg);
    return NULL;
  }
  if (v->u.t.n && data) memcpy(v->u.t.data, data, (size_t)v->u.t.n * ox_dtype_size(dt));
  return v;
}

static inline ox_value *vec(ox_dtype dt, int64_t n, const void *data) {
  return tensor(dt, n < 0 ? 0 : 1, (int64_t[]){n < 0 ? 1 : n}, data);
}

/* ---- attributes ---- */

static inline ox_attr attr_int(const char *name, int64_t i) {
  return (ox_attr){.name = name, .type = OX_ATTR_INT, .i = i};
}
static inline ox_attr attr_float(const char *name, float f) {
  return (ox_attr){.name = name, .type = OX_ATTR_FLOAT, .f = f};
}
static inline ox_attr attr_str(const char *name, const char *s) {
  return (ox_attr){.name = name, .type = OX_ATTR_STRING, .s = {s, (int64_t)strlen(s)}};
}
static inline ox_attr attr_ints(const char *name, int64_t n, const int64_t *v) {
  return (ox_attr){.name = name, .type = OX_ATTR_INTS, .n = n, .ints = (int64_t *)v};
}
static inline ox_attr attr_floats(const char *name, int64_t n, const float *v) {
  return (ox_attr){.name = name, .type = OX_ATTR_FLOATS, .n = n, .floats = (float *)v};
}
static inline ox_attr attr_strs(const char *name, int64_t n, const ox_str *v) {
  return (ox_attr){.name = name, .type = OX_ATTR_STRINGS, .n = n, .strings = (ox_str *)v};
}
static inline ox_attr attr_tensor(const char *name, ox_value *t) {
  return (ox_attr){.name = name, .type = OX_ATTR_TENSOR, .t = t};
}

/* ---- running one node ---- */

#ifndef KIT_IN_NAMES
#define KIT_IN_NAMES \
  {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15"}
#endif
#ifndef KIT_OUT_NAMES
#define KIT_OUT_NAMES \
  {"y0", "y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "y10", "y11", "y12", "y13", "y14", "y15"}
#endif

/* Run op (of domain) at `opset` with nin inputs and nout outputs (at most 16
 * each). Returns the kernel's code (E holds the message), -1 when no row. */
static inline int kit_run(const char *domain, const char *op, int opset, int nattr, ox_attr *attr,
                          int nin, ox_value **in, int nout, ox_value **out) {
  static const char *names[16] = KIT_IN_NAMES;
  static const char *out_names[16] = KIT_OUT_NAMES;
  const char *in_names[16];
  for (int i = 0; i < nin && i < 16; i++) in_names[i] = in[i] ? names[i] : "";
  const ox_kernel *k = ox_registry_find(domain, op, opset);
  if (!k) {
    fprintf(stderr, "no kernel for %s at opset %d\n", op, opset);
    return -1;
  }
  CHECK(nin >= k->min_in && (k->max_in < 0 || nin <= k->max_in));
  const ox_value *t = k->types && k->tin >= 0 && k->tin < nin ? in[k->tin] : NULL;
  ox_dtype dt = !t ? OX_UNDEFINED : t->kind == OX_TENSOR ? t->u.t.dt : ox_type_leaf(t->type);
  if (dt && !(k->types & (UINT64_C(1) << dt))) {
    ox_fail(&E, OX_EINPUT, "type not in the row's mask");
    return OX_EINPUT;
  }
  ox_node n = {.name = "n0", .op = op, .domain = domain, .nin = nin, .in = in_names, .nout = nout,
               .out = out_names, .nattr = nattr, .attr = attr, .version = k->since, .k = k};
  ox_ctx c = {.a = A, .err = &E, .node = &n, .version = k->since};
  ox_err_clear(&E);
  for (int i = 0; i < nout; i++) out[i] = NULL;
  int rc = ox_node_load(&c) ? E.code : k->fn(&c, nin, in, nout, out);
  if (!rc && E.code) rc = E.code;
  if (!rc)
    for (int i = 0; i < nout; i++) CHECK(out[i] != NULL);
  return rc;
}

#define CHECK_FAILS(call, part)                                                       \
  do {                                                                                \
    int rc_ = (call);                                                                 \
    CHECK_EQ_I(rc_, OX_EINPUT);                                                       \
    if (!strstr(E.msg, part)) {                                                       \
      check_fail_++;                                                                  \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, E.msg, part); \
    } else check_pass_++;                                                             \
  } while (0)

/* Each row of a family table: since >= 1, the op's rows in increasing since; an op's last row with a kernel
 * open-ended (OX_LATEST), except for the op `retired` (may be NULL), whose
 * last one ends at `last`. (Gaps and overlaps against the spec's list of
 * op-versions: test_registry.) */
static inline void check_rows(const ox_kernel *rows, const char *retired, int last) {
  for (const ox_kernel *k = rows; k->op; k++) {
    CHECK(k->since >= 1);
    const ox_kernel *next = NULL;
    for (const ox_kernel *j = k + 1; j->op && !next; j++)
      if (!strcmp(j->op, k->op)) next = j;
    if (next) CHECK(next->since > k->since);
    if (k->fn && (!next || !next->fn))
      CHECK_EQ_I(ox_registry_until(k), retired && !strcmp(k->op, retired) ? last : OX_LATEST);
  }
}

/* ---- random data, broadcasting by hand, graphs by hand ---- */

static uint64_t kit_rng = 0x9E3779B97F4A7C15ull;
static inline uint32_t kit_rnd32(void) { /* xorshift64 */
  kit_rng ^= kit_rng << 13;
  kit_rng ^= kit_rng >> 7;
  kit_rng ^= kit_rng << 17;
  return (uint32_t)(kit_rng >> 16);
}

static inline int64_t kit_bcast_off(const ox_tensor *t, int rank, const int64_t *dims, int64_t i) {
  int64_t off = 0, s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    int64_t id = i % dims[d];
    i /= dims[d];
    int td = d - (rank - t->rank);
    if (td >= 0) {
      if (t->dims[td] != 1) off += id * s;
      s *= t->dims[td];
    }
  }
  return off;
}

/* a node of the default domain named after its op */
static inline ox_node kit_node(const char *op, int nin, const char **in, int nout, const char **out) {
  ox_node n = {0};
  n.name = op;
  n.op = op;
  n.domain = "";
  n.nin = nin;
  n.in = in;
  n.nout = nout;
  n.out = out;
  return n;
}

/* ---- comparing ---- */

static inline int shape_is(const ox_value *v, int rank, const int64_t *dims) {
  if (!v || v->kind != OX_TENSOR || v->u.t.rank != rank) return 0;
  for (int i = 0; i < rank; i++)
    if (v->u.t.dims[i] != dims[i]) return 0;
  return 1;
}

/* Does v have dtype dt, this shape and these bytes? */
static inline int same_bytes(const ox_value *v, ox_dtype dt, int rank, const int64_t *dims,
                             const void *want) {
  if (!shape_is(v, rank, dims) || v->u.t.dt != dt) return 0;
  return !v->u.t.n || !memcmp(v->u.t.data, want, (size_t)v->u.t.n * ox_dtype_size(dt));
}

/* |got - want| <= atol + rtol |want| for each of n elements; a NaN matches
 * only a NaN, an infinity only itself. */
static inline int kit_near(double g, double w, double atol, double rtol) {
  if (isnan(w)) return isnan(g);
  if (isinf(w)) return g == w;
  return fabs(g - w) <= atol + rtol * fabs(w);
}
/* v: float, n elements near want. */
static inline int close_f32(const ox_value *v, int64_t n, const float *want, double atol,
                            double rtol) {
  if (!v || v->kind != OX_TENSOR || v->u.t.dt != OX_FLOAT || v->u.t.n != n) {
    fprintf(stderr, "wrong value (type or size)\n");
    return 0;
  }
  const float *g = v->u.t.data;
  for (int64_t i = 0; i < n; i++)
    if (!kit_near(g[i], want[i], atol, rtol)) {
      fprintf(stderr, "element %lld: got %.9g want %.9g\n", (long long)i, g[i], want[i]);
      return 0;
    }
  return 1;
}
/* v: any numeric dtype, n elements near want (read as doubles). */
static inline int close_d(const ox_value *v, int64_t n, const double *want, double atol,
                          double rtol) {
  if (!v || v->kind != OX_TENSOR || v->u.t.n != n) {
    fprintf(stderr, "wrong value (kind or size)\n");
    return 0;
  }
  for (int64_t i = 0; i < n; i++) {
    double g = ox_load_f64(v->u.t.dt, v->u.t.data, i);
    if (!kit_near(g, want[i], atol, rtol)) {
      fprintf(stderr, "element %lld: got %.12g want %.12g\n", (long long)i, g, want[i]);
      return 0;
    }
  }
  return 1;
}
#endif
