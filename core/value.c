/* core/value.c: building, copying and describing values and types. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "value.h"

/* ---- types ---- */

static const ox_type tensor_types[OX_DTYPE_MAX] = {
#define X(NAME, id, on, nn, st, bits) [id] = {OX_TENSOR, (ox_dtype)id, NULL},
    OX_DTYPES(X)
#undef X
};

const ox_type *ox_type_tensor(ox_dtype dt) {
  return ox_dtype_valid((int)dt) ? &tensor_types[dt] : NULL;
}

static const ox_type *mk(ox_arena *a, ox_kind k, ox_dtype dt, const ox_type *inner) {
  ox_type *t = ox_alloc(a, sizeof *t);
  if (!t) return NULL;
  t->kind = k;
  t->elem = dt;
  t->inner = inner;
  return t;
}
const ox_type *ox_type_seq(ox_arena *a, const ox_type *elem) { return mk(a, OX_SEQUENCE, 0, elem); }
const ox_type *ox_type_opt(ox_arena *a, const ox_type *elem) { return mk(a, OX_OPTIONAL, 0, elem); }
const ox_type *ox_type_map(ox_arena *a, ox_dtype key, const ox_type *val) {
  return mk(a, OX_MAP, key, val);
}

const ox_type *ox_type_copy(ox_arena *a, const ox_type *t) {
  if (!t) return NULL;
  if (t->kind == OX_TENSOR && ox_dtype_valid((int)t->elem)) return ox_type_tensor(t->elem);
  const ox_type *inner = t->inner ? ox_type_copy(a, t->inner) : NULL;
  return t->inner && !inner ? NULL : mk(a, t->kind, t->elem, inner);
}

int ox_type_eq(const ox_type *x, const ox_type *y) {
  if (x == y) return 1;
  if (!x || !y || x->kind != y->kind) return 0;
  if (x->kind == OX_TENSOR) return x->elem == y->elem;
  if (x->kind == OX_MAP && x->elem != y->elem) return 0;
  return ox_type_eq(x->inner, y->inner);
}

static size_t put(char *buf, size_t n, size_t at, const char *s) {
  size_t l = strlen(s);
  if (at < n) {
    size_t room = n - at - 1;
    memcpy(buf + at, s, l < room ? l : room);
    buf[at + (l < room ? l : room)] = 0;
  }
  return at + l;
}

static size_t type_str(const ox_type *t, char *buf, size_t n, size_t at) {
  if (!t) return put(buf, n, at, "?");
  switch (t->kind) {
  case OX_TENSOR:
    at = put(buf, n, at, "tensor(");
    at = put(buf, n, at, ox_dtype_valid((int)t->elem) ? ox_dtypes[t->elem].onnx_name : "?");
    return put(buf, n, at, ")");
  case OX_SEQUENCE:
    at = put(buf, n, at, "seq(");
    at = type_str(t->inner, buf, n, at);
    return put(buf, n, at, ")");
  case OX_OPTIONAL:
    at = put(buf, n, at, "optional(");
    at = type_str(t->inner, buf, n, at);
    return put(buf, n, at, ")");
  case OX_MAP:
    at = put(buf, n, at, "map(");
    at = put(buf, n, at, ox_dtype_valid((int)t->elem) ? ox_dtypes[t->elem].onnx_name : "?");
    at = put(buf, n, at, ", ");
    at = type_str(t->inner, buf, n, at);
    return put(buf, n, at, ")");
  default:
    return put(buf, n, at, "?");
  }
}

const char *ox_type_str(const ox_type *t, char *buf, size_t n) {
  if (n) buf[0] = 0;
  type_str(t, buf, n, 0);
  return buf;
}

/* Recursive descent over the type grammar (ox_type_parse); *s advances past
 * what was read. Blanks (space, tab, newline) may stand around every word
 * and punctuation mark. */
static void skip_blanks(const char **s) {
  while (**s == ' ' || **s == '\t' || **s == '\n' || **s == '\r') (*s)++;
}

/* A word of letters, digits and '_' (or the single "?"), into w; its length. */
static size_t read_word(const char **s, char *w, size_t n) {
  skip_blanks(s);
  size_t k = 0;
  if (**s == '?') {
    w[k++] = *(*s)++;
  } else {
    for (; isalnum((unsigned char)**s) || **s == '_'; (*s)++, k++)
      if (k + 1 < n) w[k] = **s;
  }
  w[k < n ? k : n - 1] = 0;
  return k;
}

static int eat(const char **s, char c) {
  skip_blanks(s);
  if (**s != c) return 0;
  (*s)++;
  return 1;
}

/* An element type left open: what an empty sequence or an absent optional
 * read from a .pb says it holds (proto/tensor.c makes the same). */
static const ox_type open_tensor = {OX_TENSOR, OX_UNDEFINED, NULL};

/* A dtype name, or "?" where flags allow it (0 then). -1 if neither. */
static int elem_word(const char *w, int flags) {
  if (!strcmp(w, "?")) return flags & OX_TYPE_OPEN ? 0 : -1;
  ox_dtype dt = ox_dtype_from_name(w);
  return dt ? (int)dt : -1;
}

static const ox_type *parse_type(ox_arena *a, const char **s, int flags, int depth, char *why, size_t wn) {
  char w[48], kw[48];
  if (depth > 32) {
    snprintf(why, wn, "nested too deeply");
    return NULL;
  }
  if (!read_word(s, w, sizeof w)) {
    snprintf(why, wn, "expected tensor(...), seq(...), optional(...), map(...) or a dtype");
    return NULL;
  }
  int is_tensor = !strcmp(w, "tensor"), is_map = !strcmp(w, "map");
  int is_seq = !strcmp(w, "seq") || !strcmp(w, "sequence"), is_opt = !strcmp(w, "optional");
  if (!is_tensor && !is_map && !is_seq && !is_opt) { /* a bare dtype */
    int dt = elem_word(w, flags);
    if (dt < 0) snprintf(why, wn, "unknown type \"%s\"", w);
    return dt < 0 ? NULL : dt ? ox_type_tensor((ox_dtype)dt) : &open_tensor;
  }
  if (!eat(s, '(')) {
    snprintf(why, wn, "expected '(' after %s", w);
    return NULL;
  }
  const ox_type *t = NULL;
  if (is_tensor || is_map) {
    read_word(s, kw, sizeof kw);
    int dt = elem_word(kw, flags);
    if (dt < 0) {
      snprintf(why, wn, "unknown dtype \"%s\"", kw);
      return NULL;
    }
    if (is_tensor) {
      t = dt ? ox_type_tensor((ox_dtype)dt) : &open_tensor;
    } else {
      if (!eat(s, ',')) {
        snprintf(why, wn, "expected ',' after the key type of map(...)");
        return NULL;
      }
      const ox_type *val = parse_type(a, s, flags, depth + 1, why, wn);
      if (!val) return NULL;
      t = ox_type_map(a, (ox_dtype)dt, val);
    }
  } else {
    const ox_type *inner = parse_type(a, s, flags, depth + 1, why, wn);
    if (!inner) return NULL;
    t = is_seq ? ox_type_seq(a, inner) : ox_type_opt(a, inner);
  }
  if (!t) {
    if (wn) why[0] = 0; /* out of memory: no reason */
    return NULL;
  }
  if (!eat(s, ')')) {
    snprintf(why, wn, "expected ')' to close %s(", w);
    return NULL;
  }
  return t;
}

const ox_type *ox_type_parse(ox_arena *a, const char *s, int flags, char *why, size_t wn) {
  char own[8];
  if (!why || !wn) why = own, wn = sizeof own;
  if (!s) {
    snprintf(why, wn, "no type");
    return NULL;
  }
  const ox_type *t = parse_type(a, &s, flags, 0, why, wn);
  if (!t) return NULL;
  skip_blanks(&s);
  if (*s) {
    snprintf(why, wn, "unexpected \"%.20s\" at the end", s);
    return NULL;
  }
  return t;
}

ox_dtype ox_type_leaf(const ox_type *t) {
  while (t && t->kind != OX_TENSOR) t = t->inner;
  return t ? t->elem : OX_UNDEFINED;
}

/* ---- values ---- */

int64_t ox_numel(int rank, const int64_t *dims, size_t elsize) {
  /* A zero dim makes the tensor empty whatever the others are, so it wins
   * over an overflowing product: (0, 2^62, 3) and (3, 2^62, 0) both hold 0
   * elements. */
  int zero = 0;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return -1;
    if (!dims[i]) zero = 1;
  }
  if (zero) return 0;
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (n > INT64_MAX / dims[i]) return -1;
    n *= dims[i];
  }
  if (elsize && n > (int64_t)(INT64_MAX / (int64_t)elsize)) return -1;
  return n;
}

/* zero: the data zeroed; given: the data, already allocated (and counted) */
static int tensor_new(ox_arena *a, ox_dtype dt, int rank, const int64_t *dims, ox_value **out,
                      ox_err *e, int zero, void *given) {
  if (!ox_dtype_valid((int)dt)) return ox_fail(e, OX_EINPUT, "unknown data type %d", (int)dt);
  if (rank < 0) return ox_fail(e, OX_EINPUT, "negative rank %d", rank);
  if (rank > OX_MAX_RANK)
    return ox_fail(e, OX_EINPUT, "rank %d is more than onnxop supports (%d)", rank, OX_MAX_RANK);
  size_t es = ox_dtype_size(dt);
  int64_t n = ox_numel(rank, dims, es);
  if (n < 0) {
    char sb[256];
    for (int i = 0; i < rank; i++)
      if (dims[i] < 0) return ox_fail(e, OX_EINPUT, "negative dimension %lld in shape %s",
                                      (long long)dims[i], ox_shape_str(rank, dims, sb, sizeof sb));
    return ox_fail(e, OX_EINPUT, "shape %s is too large", ox_shape_str(rank, dims, sb, sizeof sb));
  }
  uint64_t bytes = (uint64_t)n * es;
  size_t lim = ox_memory_limit(), in_use = ox_memory_in_use();
  if (!given && (in_use > lim || bytes > lim - in_use)) {
    char sb[256], what[320];
    snprintf(what, sizeof what, "a %s tensor of shape %s", ox_dtype_name(dt), ox_shape_str(rank, dims, sb, sizeof sb));
    return ox_over_limit(e, bytes, what);
  }
  ox_value *v = ox_alloc(a, sizeof *v);
  int64_t *d = ox_alloc_array(a, rank, sizeof *d);
  void *data = given                    ? given
               : zero || dt == OX_STRING ? ox_alloc(a, (size_t)n * es)
                                         : ox_alloc_uninit(a, (size_t)n * es);
  if (!v || !d || !data) {
    char sb[256];
    /* the arena refuses what would pass the limit: say so when that is why */
    size_t need = (size_t)n * es + ((size_t)1 << 20); /* + the arena chunk a small allocation opens */
    if (ox_memory_in_use() > ox_memory_limit() - need || need > ox_memory_limit()) {
      char what[320];
      snprintf(what, sizeof what, "a %s tensor of shape %s", ox_dtype_name(dt), ox_shape_str(rank, dims, sb, sizeof sb));
      return ox_over_limit(e, bytes, what);
    }
    return ox_oom(e, "for a %s tensor of shape %s (%lld bytes)",
                   ox_dtype_name(dt), ox_shape_str(rank, dims, sb, sizeof sb),
                   (long long)(n * (int64_t)es));
  }
  if (rank) memcpy(d, dims, (size_t)rank * sizeof *d);
  v->kind = OX_TENSOR;
  v->type = ox_type_tensor(dt);
  v->u.t.dt = dt;
  v->u.t.rank = rank;
  v->u.t.dims = d;
  v->u.t.n = n;
  v->u.t.data = data;
  *out = v;
  return 0;
}

int ox_tensor_new(ox_arena *a, ox_dtype dt, int rank, const int64_t *dims, ox_value **out,
                  ox_err *e) {
  return tensor_new(a, dt, rank, dims, out, e, 1, NULL);
}

int ox_tensor_new_uninit(ox_arena *a, ox_dtype dt, int rank, const int64_t *dims,
                         ox_value **out, ox_err *e) {
  return tensor_new(a, dt, rank, dims, out, e, 0, NULL);
}

int ox_tensor_adopt(ox_arena *a, ox_dtype dt, int rank, const int64_t *dims, void *data,
                    ox_value **out, ox_err *e) {
  if (dt == OX_STRING) return ox_fail(e, OX_EINPUT, "internal: string tensors cannot adopt bytes");
  return tensor_new(a, dt, rank, dims, out, e, 0, data);
}

int ox_scalar_new(ox_arena *a, ox_dtype dt, ox_value **out, ox_err *e) {
  return ox_tensor_new(a, dt, 0, NULL, out, e);
}

int ox_seq_new(ox_arena *a, const ox_type *elem, int64_t n, ox_value **out, ox_err *e) {
  return ox_seq_new_cap(a, elem, n, n, out, e);
}

int ox_seq_new_cap(ox_arena *a, const ox_type *elem, int64_t n, int64_t cap, ox_value **out, ox_err *e) {
  ox_value *v = ox_alloc(a, sizeof *v);
  ox_value **els = ox_alloc_array(a, cap > n ? cap : n, sizeof *els);
  ox_seqbuf *g = cap > n ? ox_alloc(a, sizeof *g) : NULL;
  const ox_type *t = ox_type_seq(a, elem);
  if (!v || !els || !t || (cap > n && !g))
    return ox_oom(e, "for a sequence of %lld", (long long)n);
  v->kind = OX_SEQUENCE;
  v->type = t;
  v->u.seq.v = els;
  v->u.seq.n = n;
  if (g) *g = (ox_seqbuf){n, cap};
  v->u.seq.grow = g;
  *out = v;
  return 0;
}

int ox_seq_append(ox_arena *a, const ox_value *s, ox_value *x, ox_value **out, ox_err *e) {
  int64_t n = s->u.seq.n;
  ox_seqbuf *g = s->u.seq.grow;
  if (g && g->fill == n && n < g->cap) {
    ox_value *v = ox_alloc(a, sizeof *v);
    if (!v) return ox_oom(e, "for a sequence of %lld", (long long)n + 1);
    *v = *s;
    v->u.seq.v[n] = x; /* past every other view's end */
    v->u.seq.n = g->fill = n + 1;
    *out = v;
    return 0;
  }
  if (n > INT64_MAX / 2 - 8) return ox_fail(e, OX_EINPUT, "a sequence of %lld is too long", (long long)n);
  OX_TRY(ox_seq_new_cap(a, s->type->inner, n + 1, 2 * n + 8, out, e));
  if (n) memcpy((*out)->u.seq.v, s->u.seq.v, (size_t)n * sizeof *s->u.seq.v);
  (*out)->u.seq.v[n] = x;
  return 0;
}

int ox_opt_new(ox_arena *a, const ox_type *elem, ox_value *x, ox_value **out, ox_err *e) {
  ox_value *v = ox_alloc(a, sizeof *v);
  const ox_type *t = ox_type_opt(a, elem);
  if (!v || !t) return ox_oom(e, NULL);
  v->kind = OX_OPTIONAL;
  v->type = t;
  v->u.opt = x;
  *out = v;
  return 0;
}

ox_value *ox_tensor_view(ox_arena *a, const ox_value *src) {
  ox_value *v = ox_alloc(a, sizeof *v);
  if (v) *v = *src;
  return v;
}

int ox_value_copy(ox_arena *a, const ox_value *v, ox_value **out, ox_err *e) {
  switch (v->kind) {
  case OX_TENSOR: {
    const ox_tensor *t = &v->u.t;
    OX_TRY(ox_tensor_new(a, t->dt, t->rank, t->dims, out, e));
    ox_tensor *o = &(*out)->u.t;
    if (t->dt == OX_STRING) {
      const ox_str *s = t->data;
      ox_str *d = o->data;
      for (int64_t i = 0; i < t->n; i++) {
        d[i].p = ox_strndup(a, s[i].p ? s[i].p : "", (size_t)s[i].n);
        if (!d[i].p) return ox_oom(e, NULL);
        d[i].n = s[i].n;
      }
    } else if (t->n) {
      memcpy(o->data, t->data, (size_t)t->n * ox_dtype_size(t->dt));
    }
    return 0;
  }
  case OX_SEQUENCE: {
    const ox_type *inner = ox_type_copy(a, v->type->inner);
    if (!inner) return ox_oom(e, NULL);
    OX_TRY(ox_seq_new(a, inner, v->u.seq.n, out, e));
    for (int64_t i = 0; i < v->u.seq.n; i++)
      OX_TRY(ox_value_copy(a, v->u.seq.v[i], &(*out)->u.seq.v[i], e));
    return 0;
  }
  case OX_OPTIONAL: {
    ox_value *x = NULL;
    if (v->u.opt) OX_TRY(ox_value_copy(a, v->u.opt, &x, e));
    const ox_type *inner = ox_type_copy(a, v->type->inner);
    return inner ? ox_opt_new(a, inner, x, out, e) : ox_oom(e, NULL);
  }
  case OX_MAP: {
    ox_value *m = ox_alloc(a, sizeof *m);
    if (!m) return ox_oom(e, NULL);
    *m = *v;
    if (!(m->type = ox_type_copy(a, v->type))) return ox_oom(e, NULL);
    OX_TRY(ox_value_copy(a, v->u.map.keys, &m->u.map.keys, e));
    OX_TRY(ox_value_copy(a, v->u.map.values, &m->u.map.values, e));
    *out = m;
    return 0;
  }
  default:
    return ox_fail(e, OX_EINPUT, "cannot copy a value of unknown kind");
  }
}

const ox_type *ox_value_type(ox_arena *a, const ox_value *v) {
  if (!v) return NULL;
  if (v->type) return v->type;
  if (v->kind == OX_TENSOR) return ox_type_tensor(v->u.t.dt);
  return NULL;
}

const char *ox_value_desc(const ox_value *v, char *buf, size_t n) {
  if (!v) {
    snprintf(buf, n, "missing");
    return buf;
  }
  if (v->kind == OX_TENSOR) {
    ox_type t = {OX_TENSOR, v->u.t.dt, NULL};
    return ox_type_str(&t, buf, n);
  }
  return ox_type_str(v->type, buf, n);
}

const char *ox_shape_str(int rank, const int64_t *dims, char *buf, size_t n) {
  size_t at = 0;
  at = put(buf, n, at, "(");
  for (int i = 0; i < rank; i++) {
    char d[32];
    snprintf(d, sizeof d, i ? ", %lld" : "%lld", (long long)dims[i]);
    at = put(buf, n, at, d);
  }
  put(buf, n, at, rank == 1 ? ",)" : ")");
  return buf;
}

int ox_value_fits(const ox_value *v, const ox_type *t) {
  if (!v || !t) return 0;
  if (v->kind != t->kind) return 0;
  switch (v->kind) {
  case OX_TENSOR:
    return v->u.t.dt == t->elem;
  case OX_SEQUENCE:
  case OX_OPTIONAL:
  case OX_MAP:
    return ox_type_eq(v->type, t);
  default:
    return 0;
  }
}

/* ---- types with unknown parts: unify and refine (core/value.h) ----
 * An empty sequence in a file says seq(tensor(?)); its sibling may say
 * seq(tensor(float)). ox_type_unify merges two such types (NULL if they
 * conflict) and ox_value_refine writes the merged type back into the
 * value. io/pb.c, io/json.c and proto/tensor.c use both to apply the
 * model's declared type. */

static int type_unknown(const ox_type *t) { return !t || (t->kind == OX_TENSOR && t->elem == OX_UNDEFINED); }

const ox_type *ox_type_unify(ox_arena *a, const ox_type *x, const ox_type *y) {
  if (type_unknown(x)) return y ? y : x;
  if (type_unknown(y)) return x;
  if (x->kind != y->kind) return NULL;
  switch (x->kind) {
  case OX_TENSOR:
    return x->elem == y->elem ? x : NULL;
  case OX_SEQUENCE:
  case OX_OPTIONAL: {
    const ox_type *in = ox_type_unify(a, x->inner, y->inner);
    if (!in) return NULL;
    if (in == x->inner) return x;
    if (in == y->inner) return y;
    return x->kind == OX_SEQUENCE ? ox_type_seq(a, in) : ox_type_opt(a, in);
  }
  case OX_MAP: {
    ox_dtype k = x->elem ? x->elem : y->elem;
    if (x->elem && y->elem && x->elem != y->elem) return NULL;
    const ox_type *in = ox_type_unify(a, x->inner, y->inner);
    if (!in) return NULL;
    if (k == x->elem && in == x->inner) return x;
    if (k == y->elem && in == y->inner) return y;
    return ox_type_map(a, k, in);
  }
  default:
    return NULL;
  }
}

/* Give v (and what it holds) the type t, which must unify with v's type. */
void ox_value_refine(ox_arena *a, ox_value *v, const ox_type *t) {
  if (!v || type_unknown(t) || v->kind != t->kind) return;
  switch (v->kind) {
  case OX_SEQUENCE:
    v->type = t;
    for (int64_t i = 0; i < v->u.seq.n; i++) ox_value_refine(a, v->u.seq.v[i], t->inner);
    break;
  case OX_OPTIONAL:
    v->type = t;
    ox_value_refine(a, v->u.opt, t->inner);
    break;
  case OX_MAP: {
    const ox_type *vt = ox_type_seq(a, t->inner);
    if (!vt) return;
    v->type = t;
    /* an empty map from a file without a key_type got int64 placeholder keys */
    ox_value *k = v->u.map.keys;
    if (k && k->kind == OX_TENSOR && k->u.t.n == 0 && ox_dtype_valid((int)t->elem)) {
      k->u.t.dt = t->elem;
      k->type = ox_type_tensor(t->elem);
    }
    ox_value_refine(a, v->u.map.values, vt);
    break;
  }
  default: /* a tensor's type is its dtype */
    break;
  }
}
