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
      table[ntable++] = (ox_op_version){k, f->family, OX_LATEST, NULL};
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
  for (int j = 0; j < n->nattr; j++) {
    const ox_attr *at = &n->attr[j];
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
  /* four buffers in turn, so one message may name up to four inputs */
  static _Thread_local char buf[4][300];
  static _Thread_local unsigned turn;
  char *b = buf[turn++ & 3];
  const char *nm = c->node && i < c->node->nin ? c->node->in[i] : "";
  snprintf(b, sizeof buf[0], "input %d '%s'", i, nm);
  return b;
}
