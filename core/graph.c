/* core/graph.c: small queries on a loaded model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

int ox_domain_eq(const char *a, const char *b) {
  if (!a || !strcmp(a, "ai.onnx")) a = "";
  if (!b || !strcmp(b, "ai.onnx")) b = "";
  return !strcmp(a, b);
}

int64_t ox_opset_of(int n, const ox_opset *ops, const char *domain) {
  for (int i = 0; i < n; i++)
    if (ox_domain_eq(ops[i].domain, domain)) return ops[i].version;
  return -1;
}

/* Old models (IR < 4) list initializers among the graph inputs too; those are
 * not inputs a user passes. The initializers' names in a map when there are
 * many of both (100,000 of each took minutes, name against name); without
 * the memory for it, name against name. */
int ox_graph_real_inputs(const ox_graph *g, int *idx) {
  int n = 0;
  ox_arena *a = (int64_t)g->nin * g->ninit > 100000 ? ox_arena_new() : NULL;
  ox_namemap inits = {0};
  int mapped = a && !ox_namemap_init(a, &inits, g->ninit);
  for (int j = 0; mapped && j < g->ninit; j++) {
    int *slot = ox_namemap_slot(&inits, g->init_name[j]);
    if (slot) *slot = j;
    else mapped = 0;
  }
  for (int i = 0; i < g->nin; i++) {
    int is_init = mapped && ox_namemap_get(&inits, g->in[i].name) >= 0;
    for (int j = 0; !mapped && j < g->ninit && !is_init; j++)
      if (!strcmp(g->in[i].name, g->init_name[j])) is_init = 1;
    if (!is_init) idx[n++] = i;
  }
  ox_arena_free(a);
  return n;
}

const ox_attr *ox_node_attr(const ox_node *n, const char *name) {
  for (int i = 0; i < n->nattr; i++)
    if (!strcmp(n->attr[i].name, name)) return &n->attr[i];
  return NULL;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ox_attr_twice(int n, const ox_attr *attr, const char **twice, ox_err *e) {
  *twice = NULL;
  if (n <= 32) { /* the usual few: no allocation */
    for (int i = 1; i < n; i++)
      for (int j = 0; j < i; j++)
        if (!strcmp(attr[i].name, attr[j].name)) return *twice = attr[i].name, 0;
    return 0;
  }
  /* a hostile node with thousands: sorted, so not quadratic */
  const char **names = ox_heap_malloc((size_t)n * sizeof *names);
  if (!names) return ox_oom(e, "for the names of %d attributes", n);
  for (int i = 0; i < n; i++) names[i] = attr[i].name;
  qsort(names, (size_t)n, sizeof *names, by_name);
  for (int i = 1; i < n && !*twice; i++)
    if (!strcmp(names[i], names[i - 1])) *twice = names[i];
  free(names);
  return 0;
}

/* ---- the model's structure, as onnx.checker checks it ----
 * check_graph and check_function of onnx/checker.cc: names are unique where
 * the IR requires (SSA), and every name a node reads or a graph returns is
 * defined somewhere it can see. onnxop orders the nodes itself, so a name
 * defined by a later node counts too; an outer name may be shadowed by a
 * subgraph (the evaluator's scopes allow it). */

/* A set of names (open addressing), sized once for the names it will hold,
 * with the set of the enclosing graph above it. */
typedef struct names {
  const struct names *up;
  uint64_t mask;
  const char **key;
} names;

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  while (*s) h = (h ^ (uint8_t)*s++) * 1099511628211ull;
  return h;
}

static int names_init(ox_arena *a, names *s, const names *up, int64_t expect, ox_err *e) {
  uint64_t cap = 16;
  while (cap < (uint64_t)expect * 2) cap *= 2;
  s->up = up;
  s->mask = cap - 1;
  s->key = ox_alloc_array(a, (int64_t)cap, sizeof *s->key);
  return s->key ? 0 : ox_oom(e, "while checking the model");
}

/* Add k; 0 when it was there already. */
static int names_add(names *s, const char *k) {
  for (uint64_t i = name_hash(k) & s->mask;; i = (i + 1) & s->mask) {
    if (!s->key[i]) {
      s->key[i] = k;
      return 1;
    }
    if (!strcmp(s->key[i], k)) return 0;
  }
}

static int names_has(const names *s, const char *k) {
  for (uint64_t i = name_hash(k) & s->mask; s->key[i]; i = (i + 1) & s->mask)
    if (!strcmp(s->key[i], k)) return 1;
  return 0;
}

/* In s or a set above it. */
static int names_visible(const names *s, const char *k) {
  for (; s; s = s->up)
    if (names_has(s, k)) return 1;
  return 0;
}

static int check_graph(ox_arena *a, const ox_graph *g, const names *up, ox_err *e);

/* How many more node outputs, after output k of node i, repeat a name that
 * `own` holds or that an output before them wrote (for the message that
 * refuses the first such name: an exported GPT-2 has 48). */
static int more_writes(int nnode, const ox_node *node, int i, int k, names *own) {
  int more = 0;
  for (; i < nnode; i++, k = -1)
    for (int q = k + 1; q < node[i].nout; q++)
      if (node[i].out[q][0] && !names_add(own, node[i].out[q])) more++;
  return more;
}

/* Node outputs: each name once in the body (SSA), and none that is already
 * an input (`ins`: graph or function inputs) or an initializer (`inits`, may
 * be NULL). `own` receives them. */
static int check_writes(int nnode, const ox_node *node, const names *ins, const char *ins_what,
                        const names *inits, names *own, ox_err *e) {
  for (int i = 0; i < nnode; i++)
    for (int k = 0; k < node[i].nout; k++) {
      const char *o = node[i].out[k];
      if (!o[0]) continue; /* an output left out */
      if ((inits && names_has(inits, o)) || names_has(ins, o))
        return ox_fail(e, OX_EINPUT, "node '%s' %s writes '%s', which is %s", node[i].name, node[i].op,
                       o, inits && names_has(inits, o) ? "an initializer" : ins_what);
      if (names_add(own, o)) continue;
      for (int j = 0; j <= i; j++)
        for (int q = 0; q < node[j].nout && (j < i || q < k); q++)
          if (!strcmp(node[j].out[q], o)) {
            if (j == i) return ox_fail(e, OX_EINPUT, "node '%s' %s writes '%s' twice", node[i].name, node[i].op, o);
            return ox_two_writers(e, node, j, i, o, more_writes(nnode, node, i, k, own));
          }
    }
  return 0;
}

/* What a name that is nowhere is not, for messages. */
static const char *nowhere(const names *own, int in_function) {
  if (in_function && !own->up) return "no input or node output of the function has that name";
  if (!own->up) return "no graph input, initializer or node output has that name";
  return "no input, initializer or node output has that name, here or in an enclosing graph";
}

/* Node inputs: each names a value of `own` or of a set above it, and not one
 * of the node's own outputs; then the subgraphs in the node's attributes,
 * which see `own` and what is above it. */
static int check_reads(ox_arena *a, int nnode, const ox_node *node, const names *own, int in_function,
                       ox_err *e) {
  for (int i = 0; i < nnode; i++) {
    const ox_node *n = &node[i];
    for (int k = 0; k < n->nin; k++) {
      const char *in = n->in[k];
      if (!in[0]) continue; /* an optional input left out */
      for (int q = 0; q < n->nout; q++)
        if (!strcmp(n->out[q], in))
          return ox_fail(e, OX_EINPUT, "node '%s' %s reads its own output '%s'", n->name, n->op, in);
      if (!names_visible(own, in))
        return ox_fail(e, OX_EINPUT, "node '%s' %s: input %d '%s' names no value (%s)", n->name, n->op,
                       k, in, nowhere(own, in_function));
    }
    for (int j = 0; j < n->nattr; j++) {
      const ox_attr *at = &n->attr[j];
      for (int64_t q = 0; q < (at->g ? 1 : at->graphs ? at->n : 0); q++) {
        const ox_graph *sub = at->g ? at->g : at->graphs[q];
        if (check_graph(a, sub, own, e)) {
          if (at->g) ox_prefix(e, "node '%s' %s > %s: ", n->name, n->op, at->name);
          else ox_prefix(e, "node '%s' %s > %s[%lld]: ", n->name, n->op, at->name, (long long)q);
          return e->code;
        }
      }
    }
  }
  return 0;
}

static int64_t count_outputs(int nnode, const ox_node *node) {
  int64_t n = 0;
  for (int i = 0; i < nnode; i++) n += node[i].nout;
  return n;
}

static int check_graph(ox_arena *a, const ox_graph *g, const names *up, ox_err *e) {
  names ins, inits, own;
  OX_TRY(names_init(a, &ins, NULL, g->nin, e));
  OX_TRY(names_init(a, &inits, NULL, g->ninit, e));
  OX_TRY(names_init(a, &own, up, (int64_t)g->nin + g->ninit + count_outputs(g->nnode, g->node), e));
  for (int i = 0; i < g->nin; i++) {
    const char *nm = g->in[i].name;
    if (!nm[0]) return ox_fail(e, OX_EINPUT, "graph input %d has no name", i);
    if (!names_add(&ins, nm)) return ox_fail(e, OX_EINPUT, "graph input '%s' is listed twice", nm);
  }
  /* An initializer may share its name with an input (its default value). */
  for (int i = 0; i < g->ninit; i++) {
    const char *nm = g->init_name[i];
    if (!nm[0]) return ox_fail(e, OX_EINPUT, "initializer %d has no name", i);
    if (!names_add(&inits, nm)) return ox_fail(e, OX_EINPUT, "initializer '%s' is given twice", nm);
  }
  for (int i = 0; i < g->nin; i++) names_add(&own, g->in[i].name);
  for (int i = 0; i < g->ninit; i++) names_add(&own, g->init_name[i]);
  OX_TRY(check_writes(g->nnode, g->node, &ins, "a graph input", &inits, &own, e));
  OX_TRY(check_reads(a, g->nnode, g->node, &own, 0, e));
  for (int i = 0; i < g->nout; i++) {
    const char *nm = g->out[i].name;
    if (!nm[0]) return ox_fail(e, OX_EINPUT, "graph output %d has no name", i);
    if (!names_visible(&own, nm))
      return ox_fail(e, OX_EINPUT, "graph output '%s' names no value (%s)", nm, nowhere(&own, 0));
  }
  return 0;
}

/* A function body sees its inputs and its own nodes' outputs, nothing else. */
static int check_function(ox_arena *a, const ox_function *f, ox_err *e) {
  names given, own, outs;
  OX_TRY(names_init(a, &given, NULL, f->nin, e));
  OX_TRY(names_init(a, &outs, NULL, f->nout, e));
  OX_TRY(names_init(a, &own, NULL, (int64_t)f->nin + count_outputs(f->nnode, f->node), e));
  for (int i = 0; i < f->nin; i++)
    if (!names_add(&given, f->in[i]) || !names_add(&own, f->in[i]))
      return ox_fail(e, OX_EINPUT, "input '%s' is listed twice", f->in[i]);
  for (int i = 0; i < f->nout; i++)
    if (!names_add(&outs, f->out[i])) return ox_fail(e, OX_EINPUT, "output '%s' is listed twice", f->out[i]);
  OX_TRY(check_writes(f->nnode, f->node, &given, "an input of the function", NULL, &own, e));
  OX_TRY(check_reads(a, f->nnode, f->node, &own, 1, e));
  for (int i = 0; i < f->nout; i++)
    if (!names_has(&own, f->out[i]))
      return ox_fail(e, OX_EINPUT, "output '%s' names no value (%s)", f->out[i], nowhere(&own, 1));
  return 0;
}

int ox_model_check(ox_arena *a, const ox_model *m, ox_err *e) {
  ox_mark mk = ox_arena_mark(a);
  int rc = check_graph(a, m->graph, NULL, e);
  /* Functions are called by (domain, name, overload): one definition each. */
  names ids;
  if (!rc) rc = names_init(a, &ids, NULL, m->nfunc, e);
  for (int i = 0; i < m->nfunc && !rc; i++) {
    const ox_function *f = &m->func[i];
    const char *dom = f->domain && f->domain[0] ? f->domain : "ai.onnx";
    const char *ov = f->overload ? f->overload : "";
    /* 0xFF is never part of UTF-8, which names are: it keeps the parts apart */
    char *id = ox_sprintf(a, "%s\xff%s\xff%s", dom, f->name, ov);
    if (!id) rc = ox_oom(e, "while checking the model");
    else if (!names_add(&ids, id))
      rc = ox_fail(e, OX_EINPUT, "function '%s' (domain '%s'%s%s%s) is defined twice", f->name, dom,
                   ov[0] ? ", overload '" : "", ov, ov[0] ? "'" : "");
    else if ((rc = check_function(a, f, e)))
      ox_prefix(e, "function '%s': ", f->name);
  }
  ox_arena_release(a, mk);
  return rc;
}

/* ---- name maps ---- */

/* Eight bytes at a time (names like "If_0_then_branch__Inline_0__/decoder/
 * rnn/Slice_2" are long, and every input and output of every node is looked
 * up): each word mixed in by a multiply, and the high bits folded down, since
 * the tables take the low ones. */
uint64_t ox_name_hash(const char *s) {
  size_t n = strlen(s);
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
  for (; n >= 8; s += 8, n -= 8) {
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  w = 0;
  memcpy(&w, s, n);
  h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
  return h ^ (h >> 29);
}

/* a table of cap slots (a power of two) */
static int namemap_alloc(ox_namemap *m, int64_t cap) {
  m->cap = cap;
  m->n = 0;
  m->key = ox_alloc_array(m->a, cap, sizeof *m->key);
  m->val = ox_alloc_array(m->a, cap, sizeof *m->val);
  return m->key && m->val ? 0 : -1;
}

int ox_namemap_init(ox_arena *a, ox_namemap *m, int64_t expect) {
  int64_t cap = 16;
  while (cap < expect && cap < (INT64_C(1) << 40)) cap *= 2;
  m->a = a;
  return namemap_alloc(m, cap * 2);
}

static int *namemap_put(ox_namemap *m, const char *k) {
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ox_name_hash(k) & mask;; i = (i + 1) & mask) {
    if (!m->key[i]) {
      m->key[i] = k;
      m->val[i] = -1;
      m->n++;
      return &m->val[i];
    }
    if (!strcmp(m->key[i], k)) return &m->val[i];
  }
}

int *ox_namemap_slot(ox_namemap *m, const char *k) {
  if ((m->n + 1) * 2 > m->cap) { /* grow: twice the slots, the names put again */
    ox_namemap big = {m->a, 0, 0, NULL, NULL};
    if (namemap_alloc(&big, m->cap * 2)) return NULL;
    for (int64_t i = 0; i < m->cap; i++)
      if (m->key[i]) *namemap_put(&big, m->key[i]) = m->val[i];
    *m = big;
  }
  return namemap_put(m, k);
}

int ox_namemap_get(const ox_namemap *m, const char *k) {
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ox_name_hash(k) & mask; m->key[i]; i = (i + 1) & mask)
    if (!strcmp(m->key[i], k)) return m->val[i];
  return -1;
}

/* ---- describing nodes ---- */

/* "3010 Constant" or "84 'Constant_85' Constant": node n, at `index` in its
 * list, for messages (in a's memory; NULL when out of memory). */
static const char *node_label(ox_arena *a, int index, const ox_node *n) {
  if (!n->name[0]) return ox_sprintf(a, "%d %s", index, n->op);
  return ox_sprintf(a, "%d '%s' %s", index, n->name, n->op);
}

const char *ox_order_note(ox_arena *a, const ox_node *nodes, int reader, int writer, int nested) {
  const ox_node *r = &nodes[reader], *w = &nodes[writer];
  const char *rl = node_label(a, reader, r), *wl = node_label(a, writer, w), *read = NULL;
  if (!rl || !wl) return NULL;
  for (int k = 0; k < r->nin && !read; k++)
    for (int q = 0; q < w->nout && !read; q++)
      if (r->in[k][0] && !strcmp(r->in[k], w->out[q])) read = r->in[k];
  const char *where = nested ? " of a subgraph or function" : "";
  if (read)
    return ox_sprintf(a, "the nodes%s are not in topological order: node %s reads '%s', which node %s writes",
                      where, rl, read, wl);
  return ox_sprintf(a, "the nodes%s are not in topological order: a subgraph of node %s reads a value node %s "
                    "writes", where, rl, wl); /* read inside one of r's subgraphs */
}

/* "0 'c0' Constant" or "3 Constant" into buf */
static const char *label(char *buf, size_t n, int index, const ox_node *nd) {
  if (nd->name[0]) snprintf(buf, n, "%d '%s' %s", index, nd->name, nd->op);
  else snprintf(buf, n, "%d %s", index, nd->op);
  return buf;
}

int ox_two_writers(ox_err *e, const ox_node *nodes, int first, int last, const char *name, int more) {
  char fl[400], ll[400], tail[96] = "";
  label(fl, sizeof fl, first, &nodes[first]);
  label(ll, sizeof ll, last, &nodes[last]);
  if (more) snprintf(tail, sizeof tail, " (%d more node output%s repeat%s a name)", more, more == 1 ? "" : "s",
                     more == 1 ? "s" : "");
  /* onnxruntime turns Constant nodes into initializers, the later one
   * replacing the earlier ("Duplicate initializer ... the model will use the
   * latest encountered"), so every reader, even one between the two, reads
   * the last; any other pair it refuses ("Duplicate definition of name"). */
  if (!strcmp(nodes[first].op, "Constant") && !strcmp(nodes[last].op, "Constant") && !nodes[first].domain[0] &&
      !nodes[last].domain[0])
    return ox_fail(e, OX_EINPUT, "nodes %s and %s both write '%s'%s: onnx requires one writer per name; "
                   "onnxruntime keeps the last, node %d, for every reader of '%s', so removing node %d repairs "
                   "the model the way onnxruntime reads it", fl, ll, name, tail, last, name, first);
  return ox_fail(e, OX_EINPUT, "nodes %s and %s both write '%s'%s: onnx requires one writer per name, and "
                 "onnxruntime refuses it too; rename the output of one of them, and the inputs that mean to "
                 "read it", fl, ll, name, tail);
}
