/* core/registry.c: the sorted table of every family's rows (ox_families,
 * listed in ops/families.c) and its lookups; the attribute lists. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

/* ---- the sorted table ---- */

#define MAX_ROWS 4096
static ox_op_version table[MAX_ROWS];
static int ntable;
static pthread_once_t sorted = PTHREAD_ONCE_INIT;

static const char *canon(const char *domain) {
  return !domain || !strcmp(domain, "ai.onnx") ? "" : domain;
}

/* (domain, op, since) of row r against the key; domain already canon */
static int cmp_key(const ox_kernel *r, const char *domain, const char *op, int64_t since) {
  int c = strcmp(canon(r->domain), domain);
  if (!c) c = strcmp(r->op, op);
  return c ? c : (r->since > since) - (r->since < since);
}

static int cmp_rows(const void *a, const void *b) {
  const ox_kernel *x = ((const ox_op_version *)a)->k, *y = ((const ox_op_version *)b)->k;
  int c = cmp_key(x, canon(y->domain), y->op, y->since);
  /* equal keys (an overlap the tests refuse) keep a fixed order */
  return c ? c : (x > y) - (x < y);
}

static int upper_bound(const char *domain, const char *op, int64_t since);

/* Row i's attribute list with OX_ATTRS_OF followed to a written list (a
 * few steps at most: a longer chain is a cycle); NULL when one names no row
 * of the op. */
static const char *inherited(int i) {
  const ox_kernel *k = table[i].k;
  const char *attrs = k->attrs;
  for (int hops = 0; attrs && attrs[0] == '@'; hops++) {
    char *end;
    long since = strtol(attrs + 1, &end, 10);
    int j = upper_bound(canon(k->domain), k->op, since) - 1;
    if (hops == 16 || *end || end == attrs + 1 || j < 0 || table[j].k->since != since ||
        strcmp(canon(table[j].k->domain), canon(k->domain)) || strcmp(table[j].k->op, k->op))
      return NULL;
    attrs = table[j].k->attrs;
  }
  return attrs;
}

static void sort_table(void) {
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      if (ntable == MAX_ROWS) {
        fprintf(stderr, "onnxop: more than %d operator rows; raise MAX_ROWS in core/registry.c\n", MAX_ROWS);
        abort();
      }
      table[ntable++] = (ox_op_version){k, f->family, OX_LATEST, NULL, ox_family_origin(f->family)};
    }
  qsort(table, (size_t)ntable, sizeof *table, cmp_rows);
  for (int i = 0; i + 1 < ntable; i++) {
    const ox_kernel *k = table[i].k, *next = table[i + 1].k;
    if (!strcmp(canon(k->domain), canon(next->domain)) && !strcmp(k->op, next->op))
      table[i].until = next->since > k->since ? next->since - 1 : k->since;
  }
  for (int i = 0; i < ntable; i++) table[i].attrs = inherited(i);
}

const ox_op_version *ox_registry_table(int *n) {
  pthread_once(&sorted, sort_table);
  *n = ntable;
  return table;
}

/* The first row whose key is > (domain, op, since), domain canon. */
static int upper_bound(const char *domain, const char *op, int64_t since) {
  int lo = 0, hi = ntable;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (cmp_key(table[mid].k, domain, op, since) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const ox_op_version *ox_registry_version(const char *domain, const char *op, int64_t opset) {
  pthread_once(&sorted, sort_table);
  if (opset > OX_LATEST) return NULL; /* no release comes near: refused, not guessed */
  domain = canon(domain);
  int i = upper_bound(domain, op, opset) - 1;
  if (i < 0 || strcmp(canon(table[i].k->domain), domain) || strcmp(table[i].k->op, op)) return NULL;
  return &table[i];
}

const ox_kernel *ox_registry_find(const char *domain, const char *op, int64_t opset) {
  const ox_op_version *v = ox_registry_version(domain, op, opset);
  return v && v->k->fn ? v->k : NULL;
}

const char *ox_row_attrs(const ox_kernel *k) {
  const ox_op_version *v = ox_registry_version(k->domain, k->op, k->since);
  return v && v->k == k ? v->attrs : NULL;
}

int ox_registry_until(const ox_kernel *k) {
  const ox_op_version *v = ox_registry_version(k->domain, k->op, k->since);
  return v ? v->until : k->since;
}

int ox_registry_has_op(const char *domain, const char *op) {
  return ox_registry_version(domain, op, OX_LATEST) != NULL;
}

const char *ox_registry_why(const char *domain, const char *op, int64_t opset, char *buf, size_t n) {
  pthread_once(&sorted, sort_table);
  domain = canon(domain);
  int first = upper_bound(domain, op, 0), end = upper_bound(domain, op, INT64_MAX);
  int at = upper_bound(domain, op, opset) - 1; /* the row serving opset, if >= first */
  if (first == end) {
    snprintf(buf, n, "onnxop does not implement this operator");
  } else if (opset > OX_LATEST) {
    snprintf(buf, n, "onnxop runs opsets up to %d", OX_LATEST);
  } else if (at < first) {
    snprintf(buf, n, "the operator first appears at opset %d", table[first].k->since);
  } else if (ox_row_not_run(table[at].k)) {
    snprintf(buf, n, "%s", ox_row_not_run(table[at].k));
  } else if (!table[at].k->fn) {
    /* the run of rows with kernels that ends at the removed one */
    int lo = at;
    while (lo > first && table[lo - 1].k->fn) lo--;
    if (lo < at)
      snprintf(buf, n, "ONNX deprecated the operator at opset %d; onnxop runs it for opsets %d to %d",
               table[at].k->since, table[lo].k->since, table[at - 1].until);
    else
      snprintf(buf, n, "ONNX deprecated the operator at opset %d", table[at].k->since);
  } else {
    snprintf(buf, n, "no implementation for this version");
  }
  return buf;
}

/* The op-versions whose Changelog entry says "(deprecated)" (onnx's checker
 * refuses them) and that onnxop runs all the same, as old exports use them.
 * (Those it does not run are OX_REMOVED rows.) tests/unit/test_registry.c
 * holds this list to tests/op-versions.txt. */
static const struct { const char *domain, *op; int since; } deprecated_rows[] = {
    {"", "GroupNormalization", 18},
};

const char *ox_registry_deprecation(const ox_kernel *k, char *buf, size_t n) {
  int listed = 0;
  for (size_t i = 0; k && k->fn && i < sizeof deprecated_rows / sizeof *deprecated_rows; i++)
    listed |= !strcmp(canon(k->domain), deprecated_rows[i].domain) && !strcmp(k->op, deprecated_rows[i].op) &&
              k->since == deprecated_rows[i].since;
  if (!listed) return NULL;
  /* the op's next row with a kernel replaces it */
  const ox_op_version *v = ox_registry_version(k->domain, k->op, ox_registry_until(k) + 1);
  if (v && v->k != k && v->k->fn)
    snprintf(buf, n, "%s-%d is deprecated (onnx's checker refuses it; %s-%d replaces it)", k->op, k->since,
             k->op, v->k->since);
  else
    snprintf(buf, n, "%s-%d is deprecated (onnx's checker refuses it)", k->op, k->since);
  return buf;
}

/* ---- rows that are not the spec's ---- */

const char *ox_row_not_run(const ox_kernel *k) {
  return k && !k->fn && k->attrs && k->attrs[0] == '!' ? k->attrs + 1 : NULL;
}

int ox_family_origin(const char *family) {
  return !strcmp(family, "experimental") ? OX_ORIGIN_EXPERIMENTAL
         : !strncmp(family, "contrib-", 8) ? OX_ORIGIN_ONNXRUNTIME
                                           : OX_ORIGIN_SPEC;
}

const char *ox_origin_name(int origin) {
  return origin == OX_ORIGIN_EXPERIMENTAL ? "experimental" : origin == OX_ORIGIN_ONNXRUNTIME ? "onnxruntime" : "spec";
}

const char *ox_registry_note(const ox_op_version *v, char *buf, size_t n) {
  if (!v || !v->k->fn) return NULL;
  if (v->origin == OX_ORIGIN_SPEC) return ox_registry_deprecation(v->k, buf, n);
  if (canon(v->k->domain)[0]) return NULL;
  const ox_kernel *k = v->k;
  if (v->origin == OX_ORIGIN_EXPERIMENTAL) {
    snprintf(buf, n, "%s-%d is an experimental operator, which onnx 1.5 removed from the spec; onnxop runs it "
             "as onnxruntime does", k->op, k->since);
    return buf;
  }
  /* onnxruntime's registration in ai.onnx: the spec's own row, if any, follows it */
  const ox_op_version *next = v->until < OX_LATEST ? ox_registry_version(k->domain, k->op, v->until + 1) : NULL;
  if (next && next->origin == OX_ORIGIN_SPEC)
    snprintf(buf, n, "%s below opset %d is onnxruntime's registration in ai.onnx, not the ONNX spec's (which "
             "defines it from opset %d); onnxop runs it as onnxruntime does", k->op, next->k->since,
             next->k->since);
  else
    snprintf(buf, n, "%s is onnxruntime's registration in ai.onnx, not an ONNX spec operator; onnxop runs it as "
             "onnxruntime does", k->op);
  return buf;
}

typedef struct {
  const ox_kernel *seen[16]; /* the rows warned about */
  int nseen;
  void (*warn)(void *, const ox_node *, const char *);
  void *arg;
} notes;

/* ops: the imports nodes resolve with first (a function's own), then the model's */
static void notes_in(notes *d, const ox_model *m, int nops, const ox_opset *ops, int n, const ox_node *ns,
                     int depth) {
  for (int i = 0; i < n && depth <= 64; i++) {
    const ox_node *nd = &ns[i];
    int64_t v = ox_opset_of(nops, ops, nd->domain);
    if (v < 0) v = ox_opset_of(m->nopset, m->opset, nd->domain);
    const ox_op_version *r = v < 0 ? NULL : ox_registry_version(nd->domain, nd->op, v);
    char text[300];
    if (ox_registry_note(r, text, sizeof text)) {
      int j = 0;
      while (j < d->nseen && d->seen[j] != r->k) j++;
      if (j == d->nseen && d->nseen < 16) {
        d->seen[d->nseen++] = r->k;
        d->warn(d->arg, nd, text);
      }
    }
    for (int a = 0; a < nd->nattr; a++) {
      const ox_attr *at = &nd->attr[a];
      if (at->g) notes_in(d, m, nops, ops, at->g->nnode, at->g->node, depth + 1);
      for (int64_t g = 0; at->graphs && g < at->n; g++)
        notes_in(d, m, nops, ops, at->graphs[g]->nnode, at->graphs[g]->node, depth + 1);
    }
  }
}

void ox_model_notes(const ox_model *m, void (*warn)(void *arg, const ox_node *n, const char *text), void *arg) {
  notes d = {.warn = warn, .arg = arg};
  notes_in(&d, m, m->nopset, m->opset, m->graph->nnode, m->graph->node, 0);
  for (int f = 0; f < m->nfunc; f++)
    notes_in(&d, m, m->func[f].nopset, m->func[f].opset, m->func[f].nnode, m->func[f].node, 0);
}

int ox_registry_type_since(const ox_kernel *k, int dt) {
  if (dt <= 0 || dt >= 64) return 0;
  pthread_once(&sorted, sort_table);
  const char *domain = canon(k->domain);
  for (int i = upper_bound(domain, k->op, k->since), end = upper_bound(domain, k->op, INT64_MAX); i < end; i++)
    if (table[i].k->fn && (table[i].k->types & (UINT64_C(1) << dt))) return table[i].k->since;
  return 0;
}

/* ---- a row's attribute list ---- */

const char *ox_attr_spec_next(const char *p, ox_attr_spec *a) {
  if (!p || !*p) return NULL;
  size_t elen = strcspn(p, ","), nlen = strcspn(p, ":,");
  const char *t = p + nlen + (p[nlen] == ':');
  size_t tlen = strcspn(t, ":=,");
  const char *eq = memchr(p, '=', elen);
  snprintf(a->name, sizeof a->name, "%.*s", (int)nlen, p);
  snprintf(a->type, sizeof a->type, "%.*s", (int)tlen, t);
  snprintf(a->def, sizeof a->def, "%.*s", eq ? (int)(p + elen - eq - 1) : 0, eq ? eq + 1 : "");
  a->required = !strncmp(t + tlen, ":required", 9);
  return p + elen + (p[elen] == ',');
}

/* Whether k declares the attribute `name`; *a receives its entry. */
static int declared(const ox_kernel *k, const char *name, ox_attr_spec *a) {
  for (const char *p = ox_attr_spec_next(ox_row_attrs(k), a); p; p = ox_attr_spec_next(p, a))
    if (!strcmp(a->name, name)) return 1;
  return 0;
}

/* "a, b, c" of k's attributes (cut short with "..."), or "none". */
static const char *names_of(const ox_kernel *k, char *buf, size_t n) {
  size_t at = 0;
  ox_attr_spec a;
  buf[0] = 0;
  for (const char *p = ox_attr_spec_next(ox_row_attrs(k), &a); p; p = ox_attr_spec_next(p, &a)) {
    if (at + strlen(a.name) + 6 >= n) {
      snprintf(buf + at, n - at, "...");
      break;
    }
    at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", a.name);
  }
  return buf[0] ? buf : "none";
}

int ox_attrs_check(const ox_kernel *k, const ox_node *n, ox_err *e) {
  char names[200];
  ox_attr_spec a;
  /* onnxruntime's own ai.onnx schemas (LayerNormalization-1,
   * SimplifiedLayerNormalization-1) allow unchecked attributes: one they do
   * not declare is ignored, as onnxruntime ignores it */
  const ox_op_version *v = ox_registry_version(k->domain, k->op, k->since);
  int unchecked = v && v->k == k && v->origin == OX_ORIGIN_ONNXRUNTIME && !canon(k->domain)[0];
  for (int j = 0; j < n->nattr; j++) {
    const ox_attr *at = &n->attr[j];
    if (unchecked && !declared(k, at->name, &a)) continue;
    if (!declared(k, at->name, &a))
      return ox_fail(e, OX_EINPUT, "'%s' is not an attribute of %s-%d (its attributes: %s)",
                     at->name, k->op, k->since, names_of(k, names, sizeof names));
    if (!at->ref_attr_name && strcmp(ox_attr_type_name(at->type), a.type))
      return ox_fail(e, OX_EINPUT, "attribute '%s' is of type %s; expected %s", at->name,
                     ox_attr_type_name(at->type), a.type);
  }
  for (const char *p = ox_attr_spec_next(ox_row_attrs(k), &a); p; p = ox_attr_spec_next(p, &a))
    if (a.required && !ox_node_attr(n, a.name))
      return ox_fail(e, OX_EINPUT, "the attribute '%s' is required", a.name);
  return 0;
}

/* ---- attributes ---- */

const ox_attr *ox_attr_find(ox_ctx *c, const char *name) { return ox_node_attr(c->node, name); }

const char *ox_attr_type_name(ox_attr_type t) {
  static const char *names[] = {"undefined", "float", "int", "string", "tensor", "graph",
                                "floats", "ints", "strings", "tensors", "graphs",
                                "sparse_tensor", "sparse_tensors", "type_proto", "type_protos"};
  return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

static const ox_attr *typed(ox_ctx *c, const char *name, ox_attr_type want) {
  const ox_attr *at = ox_attr_find(c, name);
  if (!at) return NULL;
  if (at->type != want) {
    ox_fail(c->err, OX_EINPUT, "attribute '%s' is of type %s; expected %s", name,
            ox_attr_type_name(at->type), ox_attr_type_name(want));
    return NULL;
  }
  return at;
}

int64_t ox_attr_int(ox_ctx *c, const char *name, int64_t def) {
  const ox_attr *at = typed(c, name, OX_ATTR_INT);
  return at ? at->i : def;
}

float ox_attr_float(ox_ctx *c, const char *name, float def) {
  const ox_attr *at = typed(c, name, OX_ATTR_FLOAT);
  return at ? at->f : def;
}

const char *ox_attr_string(ox_ctx *c, const char *name, const char *def) {
  const ox_attr *at = typed(c, name, OX_ATTR_STRING);
  return at ? at->s.p : def;
}

const int64_t *ox_attr_ints(ox_ctx *c, const char *name, int64_t *n) {
  const ox_attr *at = typed(c, name, OX_ATTR_INTS);
  *n = at ? at->n : -1;
  return at ? at->ints : NULL;
}

const char *ox_input_name(ox_ctx *c, int i) {
  /* in the call's arena, so a message may name any number of inputs */
  const char *nm = c->node && i < c->node->nin ? c->node->in[i] : "";
  const char *s = c->a ? ox_sprintf(c->a, "input %d '%s'", i, nm) : NULL;
  return s ? s : "an input";
}
