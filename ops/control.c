/* ops/control.c: If, Loop, Scan and SequenceMap: ops that run subgraphs.
 *
 * A body runs through ox_run_subgraph, so it reads outer-scope values by name
 * and its own names shadow them. Loop and Scan run each iteration in a scratch
 * arena that is reset every time; loop-carried values are copied into one of
 * two ping-pong arenas, so memory does not grow with the iteration count
 * beyond what the outputs (the scan outputs) need. */
#include <string.h>

#include "../core/eval.h"
#include "../core/kernel.h"

/* ---- helpers ---- */

/* ---- the attributes, read once when the model is loaded ---- */

/* What the load hooks keep for a node: its graphs and Scan's numbers and
 * lists (as the model holds them; checked against the inputs in the kernel). */
typedef struct {
  const ox_graph *then_g, *else_g, *body;
  int64_t nscan;
  struct { const int64_t *v; int64_t n; } list[5]; /* the Scan lists of list_names */
} control_state;
static const char *const list_names[5] = {"scan_input_axes", "scan_input_directions", "scan_output_axes",
                                          "scan_output_directions", "directions"};

static const ox_graph *graph_attr(ox_ctx *c, const char *name) {
  const ox_attr *at = ox_attr_find(c, name);
  if (!at || at->type != OX_ATTR_GRAPH || !at->g) {
    ox_fail(c->err, OX_EINPUT, "attribute '%s' (a graph) is missing", name);
    return NULL;
  }
  return at->g;
}

static int control_new(ox_ctx *c, void **state) {
  control_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  return 0;
}

/* If: both branches */
static int if_load(ox_ctx *c, void **state) {
  OX_TRY(control_new(c, state));
  control_state *st = *state;
  if (!(st->then_g = graph_attr(c, "then_branch")) || !(st->else_g = graph_attr(c, "else_branch")))
    return c->err->code;
  return 0;
}

/* Loop, Scan, SequenceMap: the body, and Scan's number and lists */
static int body_load(ox_ctx *c, void **state) {
  OX_TRY(control_new(c, state));
  control_state *st = *state;
  if (!(st->body = graph_attr(c, "body"))) return c->err->code;
  st->nscan = ox_attr_int(c, "num_scan_inputs", -1);
  for (int i = 0; i < 5; i++) st->list[i].v = ox_attr_ints(c, list_names[i], &st->list[i].n);
  return 0;
}
#define CST ((const control_state *)c->state)

static int cond_of(ox_ctx *c, const ox_value *v, const char *what, int *out) {
  if (!v || v->kind != OX_TENSOR || v->u.t.n != 1)
    return ox_fail(c->err, OX_EINPUT, "%s must be a tensor with one element", what);
  const ox_tensor *t = &v->u.t;
  *out = t->dt == OX_BOOL ? ((const uint8_t *)t->data)[0] != 0 : ox_load_f64(t->dt, t->data, 0) != 0;
  return 0;
}

/* t with `axis` removed, at index k along it: x (..., A, ...) -> (..., ...) */
static int slice_axis(ox_arena *a, const ox_tensor *t, int axis, int64_t k, ox_value **out, ox_err *e) {
  int64_t dims[OX_BCAST_MAX_RANK];
  int r = 0;
  for (int d = 0; d < t->rank; d++)
    if (d != axis) dims[r++] = t->dims[d];
  OX_TRY(ox_tensor_new(a, t->dt, r, dims, out, e));
  if (!(*out)->u.t.n) return 0; /* and outer * inner might not fit: (2^62, 2^62, 0) */
  size_t es = ox_dtype_size(t->dt);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; d++) outer *= t->dims[d];
  for (int d = axis + 1; d < t->rank; d++) inner *= t->dims[d];
  size_t run = (size_t)inner * es;
  const char *src = (const char *)t->data + (size_t)k * run;
  char *dst = (*out)->u.t.data;
  for (int64_t o = 0; o < outer; o++)
    memcpy(dst + (size_t)o * run, src + (size_t)o * run * (size_t)t->dims[axis], run);
  return 0;
}

/* Stack n tensors of one shape along a new axis: (s...) x n -> (..., n, ...).
 * reverse: element i goes to position n-1-i. `shape_hint` gives the element
 * shape when n == 0 (may be NULL: then the result is (0,)). */
static int stack(ox_ctx *c, ox_value **vs, int64_t n, int axis, int reverse,
                 const ox_valueinfo *shape_hint, ox_value **out) {
  int64_t dims[OX_BCAST_MAX_RANK];
  char s1[128], s2[128];
  if (n == 0) {
    int r = 0;
    dims[r++] = 0;
    if (shape_hint && shape_hint->rank >= 0)
      for (int d = 0; d < shape_hint->rank && r < OX_BCAST_MAX_RANK; d++)
        dims[r++] = shape_hint->dims[d] >= 0 ? shape_hint->dims[d] : 0;
    ox_dtype dt = shape_hint && shape_hint->type ? ox_type_leaf(shape_hint->type) : OX_FLOAT;
    return ox_tensor_new(c->a, dt ? dt : OX_FLOAT, r, dims, out, c->err);
  }
  const ox_tensor *t0 = &vs[0]->u.t;
  for (int64_t i = 0; i < n; i++) {
    const ox_tensor *t = &vs[i]->u.t;
    if (vs[i]->kind != OX_TENSOR)
      return ox_fail(c->err, OX_EINPUT, "scan outputs must be tensors");
    if (t->dt != t0->dt || t->rank != t0->rank ||
        memcmp(t->dims, t0->dims, sizeof(int64_t) * (size_t)t->rank))
      return ox_fail(c->err, OX_EINPUT, "scan output changes from %s %s to %s %s between iterations",
                     ox_dtype_name(t0->dt), ox_shape_str(t0->rank, t0->dims, s1, sizeof s1),
                     ox_dtype_name(t->dt), ox_shape_str(t->rank, t->dims, s2, sizeof s2));
  }
  if (t0->rank + 1 > OX_BCAST_MAX_RANK) return ox_fail(c->err, OX_EINPUT, "rank too large");
  if (axis < 0 || axis > t0->rank)
    return ox_fail(c->err, OX_EINPUT, "scan output axis %d is out of range for rank %d", axis, t0->rank + 1);
  for (int d = 0, r = 0; d <= t0->rank; d++) dims[d] = d == axis ? n : t0->dims[r++];
  OX_TRY(ox_tensor_new(c->a, t0->dt, t0->rank + 1, dims, out, c->err));
  if (!(*out)->u.t.n) return 0; /* and outer * inner might not fit */
  /* out: (outer, n, inner) */
  size_t es = ox_dtype_size(t0->dt);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; d++) outer *= t0->dims[d];
  for (int d = axis; d < t0->rank; d++) inner *= t0->dims[d];
  size_t run = (size_t)inner * es;
  char *dst = (*out)->u.t.data;
  for (int64_t i = 0; i < n; i++) {
    const char *src = vs[reverse ? n - 1 - i : i]->u.t.data;
    for (int64_t o = 0; o < outer; o++) memcpy(dst + ((size_t)o * (size_t)n + (size_t)i) * run, src + (size_t)o * run, run);
  }
  return 0;
}

/* ---- If (1, 11, 13, 16, 19, 21, 23, 24, 25) ---- */

static int if_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  int cond;
  OX_TRY(cond_of(c, in[0], "the condition", &cond));
  const char *which = cond ? "then_branch" : "else_branch";
  const ox_graph *g = cond ? CST->then_g : CST->else_g;
  if (g->nout != nout)
    return ox_fail(c->err, OX_EINPUT, "%s has %d outputs; the node has %d", which, g->nout, nout);
  return ox_run_subgraph(c, which, g, 0, NULL, out);
}

/* ---- Loop (1, 11, 13, 16, 19, 21, 23, 24, 25) ---- */

/* Copy values into arena `a` (so the scratch arena can be reset). */
static int keep(ox_arena *a, int n, ox_value **v, ox_err *e) {
  for (int i = 0; i < n; i++)
    if (v[i]) OX_TRY(ox_value_copy(a, v[i], &v[i], e));
  return 0;
}

/* A loop-carried sequence is not copied whole every iteration, as keep()
 * would (quadratic for one that grows by a SequenceInsert at the end each
 * time): its element array and elements live in a pair of arenas of its own,
 * used in turn. store[side] holds the current value's; own is that array's
 * room (ox_seq_append appends into it in place). */
typedef struct {
  ox_arena *store[2];
  int side;
  ox_seqbuf *own; /* NULL: the current value is not held here */
  int drop;       /* 1 + the store to empty once the iteration's values are copied; 0: none */
} seq_slot;

/* The body's output `out` for a carried sequence whose value was `prev`,
 * made to outlive the scratch arena: *res, its header in `ca`. When out is
 * prev with elements appended in place (the same array, which this slot
 * holds), only the new elements are copied into the store: O(1) a step.
 * Otherwise the whole sequence is copied into the other store, with room to
 * double, and the old store is emptied after the iteration. */
static int carry_seq(ox_arena *ca, seq_slot *sl, const ox_value *prev, const ox_value *out,
                     ox_value **res, ox_err *e) {
  const ox_seqbuf *g = out->u.seq.grow;
  if (sl->own && g == sl->own && prev && prev->kind == OX_SEQUENCE && prev->u.seq.grow == g &&
      out->u.seq.v == prev->u.seq.v && out->u.seq.n >= prev->u.seq.n) {
    ox_arena *st = sl->store[sl->side];
    for (int64_t k = prev->u.seq.n; k < out->u.seq.n; k++) /* slots past prev's end: ours */
      OX_TRY(ox_value_copy(st, out->u.seq.v[k], &out->u.seq.v[k], e));
    ox_value *h = ox_alloc(ca, sizeof *h);
    if (!h) return ox_oom(e, NULL);
    *h = *out;
    h->type = prev->type; /* in the store, not in the scratch arena */
    *res = h;
    return 0;
  }
  int other = !sl->side;
  if (!sl->store[other] && !(sl->store[other] = ox_arena_new())) return ox_oom(e, NULL);
  ox_arena *st = sl->store[other];
  int64_t n = out->u.seq.n;
  ox_value *s;
  OX_TRY(ox_seq_new_cap(st, out->type->inner, n, n < INT64_MAX / 4 ? 2 * n + 16 : n, &s, e));
  for (int64_t k = 0; k < n; k++) OX_TRY(ox_value_copy(st, out->u.seq.v[k], &s->u.seq.v[k], e));
  if (sl->own) sl->drop = 1 + sl->side;
  sl->side = other;
  sl->own = s->u.seq.grow;
  *res = s;
  return 0;
}

static int loop_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_graph *body = CST->body;
  /* Loop(M?, cond?, v_initial...) -> (v_final..., scan_outputs...)
   * body(iteration_num, cond_in, v...) -> (cond_out, v..., scan...) */
  /* M and cond are optional but hold their places: the node lists them,
   * possibly with empty names (so min_in is 0 in the table) */
  if (nin < 2) return ox_fail(c->err, OX_EINPUT, "takes M and cond (each may be empty), then the loop-carried values");
  int nv = nin - 2;
  int nscan = body->nout - 1 - nv;
  if (body->nin != nv + 2 || nscan < 0 || nout != nv + nscan)
    return ox_fail(c->err, OX_EINPUT,
                   "the body takes %d inputs and gives %d outputs; with %d loop-carried values it "
                   "must take %d and give %d, and the node must have %d outputs (it has %d)",
                   body->nin, body->nout, nv, nv + 2, nv + 1 + (nscan > 0 ? nscan : 0),
                   nv + (nscan > 0 ? nscan : 0), nout);
  int64_t trip = INT64_MAX;
  int cond = 1;
  if (nin > 0 && in[0]) OX_TRY(ox_scalar_i64(c, 0, in[0], &trip));
  if (nin > 1 && in[1]) OX_TRY(cond_of(c, in[1], "input 1 (cond)", &cond));

  ox_err *e = c->err;
  ox_arena *scratch = ox_arena_new(), *carry[2] = {ox_arena_new(), ox_arena_new()};
  ox_value **v = ox_alloc_array(c->a, nv + 1, sizeof *v);
  ox_value **bin = ox_alloc_array(c->a, nv + 2, sizeof *bin);
  ox_value **bout = ox_alloc_array(c->a, body->nout + 1, sizeof *bout);
  int64_t cap = 16, n = 0;
  ox_value ***scans = ox_alloc_array(c->a, nscan + 1, sizeof *scans);
  seq_slot *sl = ox_alloc_array(c->a, nv + 1, sizeof *sl);
  int rc = 0;
  if (!scratch || !carry[0] || !carry[1] || !v || !bin || !bout || !scans || !sl) {
    rc = ox_oom(e, NULL);
    goto done;
  }
  for (int i = 0; i < nv; i++) v[i] = in[2 + i];
  for (int k = 0; k < nscan; k++)
    if (!(scans[k] = ox_alloc_array(c->a, cap, sizeof **scans))) {
      rc = ox_oom(e, NULL);
      goto done;
    }
  ox_ctx bc = *c;
  bc.a = scratch;
  ox_mark m0 = ox_arena_mark(scratch);
  for (int64_t it = 0; it < trip && cond; it++) {
    if ((rc = ox_check_time(c->run, e))) {
      ox_prefix(e, "iteration %lld: ", (long long)it);
      goto done;
    }
    ox_arena_release(scratch, m0);
    if ((rc = ox_scalar_new(scratch, OX_INT64, &bin[0], e)) || (rc = ox_scalar_new(scratch, OX_BOOL, &bin[1], e)))
      goto done;
    *(int64_t *)bin[0]->u.t.data = it;
    *(uint8_t *)bin[1]->u.t.data = (uint8_t)cond;
    for (int i = 0; i < nv; i++) bin[2 + i] = v[i];
    if ((rc = ox_run_subgraph(&bc, "body", body, nv + 2, bin, bout))) goto done;
    if ((rc = cond_of(c, bout[0], "the body's condition output", &cond))) goto done;
    /* carried values: into the arena not holding the current ones */
    ox_arena *ca = carry[it & 1];
    ox_arena_release(ca, (ox_mark){0});
    for (int i = 0; i < nv; i++) {
      ox_value *o = bout[1 + i];
      if (o && o->kind == OX_SEQUENCE) {
        rc = carry_seq(ca, &sl[i], v[i], o, &v[i], e);
      } else {
        if (sl[i].own) sl[i].drop = 1 + sl[i].side, sl[i].own = NULL;
        v[i] = o;
        rc = o ? ox_value_copy(ca, o, &v[i], e) : 0;
      }
      if (rc) goto done;
    }
    /* scan outputs: kept for the result */
    if (n == cap) {
      cap *= 2;
      for (int k = 0; k < nscan; k++) {
        ox_value **g = ox_alloc_array(c->a, cap, sizeof *g);
        if (!g) {
          rc = ox_oom(e, NULL);
          goto done;
        }
        memcpy(g, scans[k], sizeof *g * (size_t)n);
        scans[k] = g;
      }
    }
    for (int k = 0; k < nscan; k++) {
      if ((rc = ox_value_copy(c->a, bout[1 + nv + k], &scans[k][n], e))) goto done;
    }
    n++;
    /* what this iteration read from a sequence's old store is copied now */
    for (int i = 0; i < nv; i++)
      if (sl[i].drop) {
        ox_arena_release(sl[i].store[sl[i].drop - 1], (ox_mark){0});
        sl[i].drop = 0;
      }
  }
  if ((rc = keep(c->a, nv, v, e))) goto done;
  for (int i = 0; i < nv; i++) out[i] = v[i];
  for (int k = 0; k < nscan; k++)
    if ((rc = stack(c, scans[k], n, 0, 0, &body->out[1 + nv + k], &out[nv + k]))) goto done;
done:
  ox_arena_free(scratch);
  ox_arena_free(carry[0]);
  ox_arena_free(carry[1]);
  for (int i = 0; sl && i < nv; i++) {
    ox_arena_free(sl[i].store[0]);
    ox_arena_free(sl[i].store[1]);
  }
  return rc;
}

/* ---- Scan (8; 9, 11, 16, 19, 21, 23, 24, 25) ---- */

/* One scan over states[ns] and scan inputs xs[m] along their axes.
 * len: iterations (<= the axis size; Scan-8 sequence_lens). */
static int scan_run(ox_ctx *c, const ox_graph *body, int ns, ox_value **states, int m, ox_value **xs,
                    const int *in_axis, const int *in_rev, int64_t len, int nk, const int *out_axis,
                    const int *out_rev, ox_value **out) {
  ox_err *e = c->err;
  ox_arena *scratch = ox_arena_new(), *carry[2] = {ox_arena_new(), ox_arena_new()};
  ox_value **v = ox_alloc_array(c->a, ns + 1, sizeof *v);
  ox_value **bin = ox_alloc_array(c->a, ns + m + 1, sizeof *bin);
  ox_value **bout = ox_alloc_array(c->a, body->nout + 1, sizeof *bout);
  ox_value ***scans = ox_alloc_array(c->a, nk + 1, sizeof *scans);
  int rc = 0;
  if (!scratch || !carry[0] || !carry[1] || !v || !bin || !bout || !scans) {
    rc = ox_oom(e, NULL);
    goto done;
  }
  for (int k = 0; k < nk; k++)
    if (!(scans[k] = ox_alloc_array(c->a, len + 1, sizeof **scans))) {
      rc = ox_oom(e, NULL);
      goto done;
    }
  for (int i = 0; i < ns; i++) v[i] = states[i];
  ox_ctx bc = *c;
  bc.a = scratch;
  for (int64_t it = 0; it < len; it++) {
    if ((rc = ox_check_time(c->run, e))) {
      ox_prefix(e, "iteration %lld: ", (long long)it);
      goto done;
    }
    ox_arena_release(scratch, (ox_mark){0});
    for (int i = 0; i < ns; i++) bin[i] = v[i];
    for (int j = 0; j < m; j++) {
      const ox_tensor *t = &xs[j]->u.t;
      int64_t k = in_rev[j] ? len - 1 - it : it;
      if ((rc = slice_axis(scratch, t, in_axis[j], k, &bin[ns + j], e))) goto done;
    }
    if ((rc = ox_run_subgraph(&bc, "body", body, ns + m, bin, bout))) goto done;
    ox_arena *ca = carry[it & 1];
    ox_arena_release(ca, (ox_mark){0});
    for (int i = 0; i < ns; i++) v[i] = bout[i];
    if ((rc = keep(ca, ns, v, e))) goto done;
    for (int k = 0; k < nk; k++)
      if ((rc = ox_value_copy(c->a, bout[ns + k], &scans[k][it], e))) goto done;
  }
  if ((rc = keep(c->a, ns, v, e))) goto done;
  for (int i = 0; i < ns; i++) out[i] = v[i];
  for (int k = 0; k < nk; k++) {
    int axis = out_axis[k];
    int r = len > 0 ? scans[k][0]->u.t.rank + 1 : 1;
    if (axis < 0) axis += r;
    if ((rc = stack(c, scans[k], len, axis, out_rev[k], &body->out[ns + k], &out[ns + k]))) goto done;
  }
done:
  ox_arena_free(scratch);
  ox_arena_free(carry[0]);
  ox_arena_free(carry[1]);
  return rc;
}

/* list attribute with default 0 for each of n, each entry in [lo, hi]
 * (checked before it is narrowed to int: axes, then checked against the
 * rank; directions 0 or 1) */
static int *int_list(ox_ctx *c, int which, int n, int64_t lo, int64_t hi) {
  const char *name = list_names[which];
  int *v = ox_alloc_array(c->a, n + 1, sizeof *v);
  int64_t cnt = CST->list[which].n;
  const int64_t *a = CST->list[which].v;
  if (!v) return NULL;
  if (a && cnt != n) {
    ox_fail(c->err, OX_EINPUT, "attribute '%s' has %lld entries; expected %d", name, (long long)cnt, n);
    return NULL;
  }
  for (int i = 0; a && i < n; i++)
    if (a[i] < lo || a[i] > hi) {
      ox_fail(c->err, OX_EINPUT, "attribute '%s'[%d] is %lld; it must be in [%lld, %lld]", name, i,
              (long long)a[i], (long long)lo, (long long)hi);
      return NULL;
    }
  for (int i = 0; i < n; i++) v[i] = a ? (int)a[i] : 0;
  return v;
}
#define AXES -OX_MAX_RANK - 1, OX_MAX_RANK /* int_list's bounds for axes (then ox_axis) */
#define DIRS 0, 1

static int scan9_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_graph *body = CST->body;
  int64_t m64 = CST->nscan;
  if (m64 < 1 || m64 > nin)
    return ox_fail(c->err, OX_EINPUT, "num_scan_inputs %lld does not fit %d inputs", (long long)m64, nin);
  int m = (int)m64, ns = nin - m;
  int nk = nout - ns;
  if (nk < 0 || body->nin != ns + m || body->nout != nout)
    return ox_fail(c->err, OX_EINPUT, "the body takes %d inputs and gives %d outputs; expected %d and %d",
                   body->nin, body->nout, ns + m, nout);
  int *in_axis = int_list(c, 0, m, AXES), *in_rev = int_list(c, 1, m, DIRS);
  int *out_axis = int_list(c, 2, nk, AXES), *out_rev = int_list(c, 3, nk, DIRS);
  if (!in_axis || !in_rev || !out_axis || !out_rev) return c->err->code ? c->err->code : ox_oom(c->err, NULL);
  for (int i = 0; i < ns; i++)
    if (!in[i]) return ox_fail(c->err, OX_EINPUT, "initial state %d is missing (Scan's states are not optional)", i);
  int64_t len = -1;
  for (int j = 0; j < m; j++) {
    ox_value *x = in[ns + j];
    if (!x || x->kind != OX_TENSOR) return ox_fail(c->err, OX_EINPUT, "scan input %d must be a tensor", j);
    OX_TRY(ox_axis(c, in_axis[j], x->u.t.rank, 0, "scan_input_axes entry", &in_axis[j]));
    int64_t l = x->u.t.dims[in_axis[j]];
    if (len >= 0 && l != len)
      return ox_fail(c->err, OX_EINPUT, "scan inputs have different lengths (%lld and %lld)", (long long)len, (long long)l);
    len = l;
  }
  return scan_run(c, body, ns, in, m, in + ns, in_axis, in_rev, len, nk, out_axis, out_rev, out);
}

/* Scan-8: a batch axis 0 in front of everything; the scan axis is 1 */
static int scan8_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_graph *body = CST->body;
  int64_t m64 = CST->nscan;
  if (nin < 2) return ox_fail(c->err, OX_EINPUT, "takes sequence_lens (may be empty), then the states and scan inputs");
  int m = m64 >= 1 && m64 < nin ? (int)m64 : -1, ns = nin - 1 - m, nk = nout - ns;
  if (m < 1 || ns < 0 || nk < 0 || body->nin != ns + m || body->nout != nout)
    return ox_fail(c->err, OX_EINPUT, "num_scan_inputs %lld does not fit the %d inputs and the body", (long long)m64, nin);
  int *dirs = int_list(c, 4, m, DIRS);
  if (!dirs) return c->err->code;
  int64_t batch = -1, maxlen = -1;
  for (int j = 0; j < m; j++) {
    ox_value *x = in[1 + ns + j];
    if (!x || x->kind != OX_TENSOR || x->u.t.rank < 2)
      return ox_fail(c->err, OX_EINPUT, "scan input %d must be a tensor of rank >= 2 (batch, sequence, ...)", j);
    if (batch >= 0 && (x->u.t.dims[0] != batch || x->u.t.dims[1] != maxlen))
      return ox_fail(c->err, OX_EINPUT, "scan inputs differ in batch size or sequence length");
    batch = x->u.t.dims[0];
    maxlen = x->u.t.dims[1];
  }
  /* each state: (batch, ...); sliced per batch entry below */
  for (int i = 0; i < ns; i++) {
    const ox_value *st = in[1 + i];
    if (!st || st->kind != OX_TENSOR || st->u.t.rank < 1 || st->u.t.dims[0] != batch)
      return ox_fail(c->err, OX_EINPUT, "initial state %d must be a tensor (batch, ...) with batch %lld", i, (long long)batch);
  }
  int *zero = ox_alloc_array(c->a, nk + m + 1, sizeof *zero), *axis0 = ox_alloc_array(c->a, m + 1, sizeof *axis0);
  ox_value **bs = ox_alloc_array(c->a, ns + m + 1, sizeof *bs);
  ox_value **bo = ox_alloc_array(c->a, nout + 1, sizeof *bo);
  ox_value ***per = ox_alloc_array(c->a, nout + 1, sizeof *per);
  if (!zero || !axis0 || !bs || !bo || !per) return ox_oom(c->err, NULL);
  for (int i = 0; i < nout; i++)
    if (!(per[i] = ox_alloc_array(c->a, batch + 1, sizeof **per))) return ox_oom(c->err, NULL);
  for (int64_t b = 0; b < batch; b++) {
    int64_t len = maxlen;
    if (in[0]) {
      const ox_tensor *sl = &in[0]->u.t;
      if (sl->n != batch) return ox_fail(c->err, OX_EINPUT, "sequence_lens has %lld entries for a batch of %lld", (long long)sl->n, (long long)batch);
      len = ox_load_i64(sl->dt, sl->data, b);
      if (len < 0 || len > maxlen) return ox_fail(c->err, OX_EINPUT, "sequence_lens[%lld] = %lld is out of range [0, %lld]", (long long)b, (long long)len, (long long)maxlen);
    }
    for (int i = 0; i < ns; i++) OX_TRY(slice_axis(c->a, &in[1 + i]->u.t, 0, b, &bs[i], c->err));
    for (int j = 0; j < m; j++) {
      OX_TRY(slice_axis(c->a, &in[1 + ns + j]->u.t, 0, b, &bs[ns + j], c->err));
      /* only the first len steps take part */
      ox_tensor *t = &bs[ns + j]->u.t;
      t->n = t->dims[0] ? t->n / t->dims[0] * len : 0;
      t->dims[0] = len;
    }
    OX_TRY(scan_run(c, body, ns, bs, m, bs + ns, axis0, dirs, len, nk, zero, zero, bo));
    for (int k = 0; k < nk; k++) { /* pad scan outputs to maxlen with zeros */
      ox_tensor *t = &bo[ns + k]->u.t;
      if (len < maxlen) {
        int64_t dims[OX_BCAST_MAX_RANK];
        memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
        dims[0] = maxlen;
        ox_value *p;
        OX_TRY(ox_tensor_new(c->a, t->dt, t->rank, dims, &p, c->err));
        memcpy(p->u.t.data, t->data, (size_t)t->n * ox_dtype_size(t->dt));
        bo[ns + k] = p;
      }
    }
    for (int i = 0; i < nout; i++) per[i][b] = bo[i];
  }
  for (int i = 0; i < nout; i++) OX_TRY(stack(c, per[i], batch, 0, 0, NULL, &out[i]));
  return 0;
}

/* ---- SequenceMap (17) ---- */

static int seqmap_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_graph *body = CST->body;
  if (!in[0] || in[0]->kind != OX_SEQUENCE)
    return ox_fail(c->err, OX_EINPUT, "input 0 must be a sequence");
  if (body->nin != nin || body->nout != nout)
    return ox_fail(c->err, OX_EINPUT, "the body takes %d inputs and gives %d outputs; the node has %d and %d",
                   body->nin, body->nout, nin, nout);
  int64_t n = in[0]->u.seq.n;
  for (int i = 1; i < nin; i++)
    if (in[i] && in[i]->kind == OX_SEQUENCE && in[i]->u.seq.n != n)
      return ox_fail(c->err, OX_EINPUT, "input %d is a sequence of %lld; input 0 has %lld", i,
                     (long long)in[i]->u.seq.n, (long long)n);
  ox_value **bin = ox_alloc_array(c->a, nin + 1, sizeof *bin), **bout = ox_alloc_array(c->a, nout + 1, sizeof *bout);
  if (!bin || !bout) return ox_oom(c->err, NULL);
  for (int k = 0; k < nout; k++) {
    /* the element type: from the body's declared output, else the first result */
    const ox_type *et = body->out[k].type;
    OX_TRY(ox_seq_new(c->a, et ? et : ox_type_tensor(OX_FLOAT), n, &out[k], c->err));
  }
  for (int64_t s = 0; s < n; s++) {
    for (int i = 0; i < nin; i++)
      bin[i] = in[i] && in[i]->kind == OX_SEQUENCE ? in[i]->u.seq.v[s] : in[i];
    OX_TRY(ox_run_subgraph(c, "body", body, nin, bin, bout));
    for (int k = 0; k < nout; k++) {
      out[k]->u.seq.v[s] = bout[k];
      if (s == 0 && !body->out[k].type)
        out[k]->type = ox_type_seq(c->a, ox_value_type(c->a, bout[k]));
    }
  }
  return 0;
}

#define ANY 0
const ox_kernel ox_control_kernels[] = {
  { "", "If",           1,  0, OX_T(BOOL),    1,  1, if_k,
    "else_branch:graph:required,then_branch:graph:required", if_load },
  { "", "If",          11,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "If",          13,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "If",          16,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "If",          19,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "If",          21,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "If",          23,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "If",          24,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "If",          25,  0, OX_T(BOOL),    1,  1, if_k, OX_ATTRS_OF(1), if_load },
  { "", "Loop",         1,  0, OX_T(INT64),   0, -1, loop_k, "body:graph:required", body_load },
  { "", "Loop",        11,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  { "", "Loop",        13,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  { "", "Loop",        16,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  { "", "Loop",        19,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  { "", "Loop",        21,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  { "", "Loop",        23,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  { "", "Loop",        24,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  { "", "Loop",        25,  0, OX_T(INT64),   0, -1, loop_k, OX_ATTRS_OF(1), body_load },
  /* sequence_lens is optional */
  { "", "Scan",         8,  0, OX_T(INT64),   0, -1, scan8_k,
    "body:graph:required,directions:ints,num_scan_inputs:int:required", body_load },
  { "", "Scan",         9, -1, ANY,           1, -1, scan9_k,
    "body:graph:required,num_scan_inputs:int:required,scan_input_axes:ints,"
    "scan_input_directions:ints,scan_output_axes:ints,scan_output_directions:ints", body_load },
  { "", "Scan",        11, -1, ANY,           1, -1, scan9_k, OX_ATTRS_OF(9), body_load },
  { "", "Scan",        16, -1, ANY,           1, -1, scan9_k, OX_ATTRS_OF(9), body_load },
  { "", "Scan",        19, -1, ANY,           1, -1, scan9_k, OX_ATTRS_OF(9), body_load },
  { "", "Scan",        21, -1, ANY,           1, -1, scan9_k, OX_ATTRS_OF(9), body_load },
  { "", "Scan",        23, -1, ANY,           1, -1, scan9_k, OX_ATTRS_OF(9), body_load },
  { "", "Scan",        24, -1, ANY,           1, -1, scan9_k, OX_ATTRS_OF(9), body_load },
  { "", "Scan",        25, -1, ANY,           1, -1, scan9_k, OX_ATTRS_OF(9), body_load },
  { "", "SequenceMap", 17,  0, OX_TS_CLASSIC, 1, -1, seqmap_k, "body:graph:required", body_load },
  {0},
};
