/* core/eval.c: preparing a model (kernel resolution) and running graphs.
 *
 * Values are bound to names in scopes: a graph run has its own scope, whose
 * parent is the scope of the node that runs it (If, Loop, Scan), so a subgraph
 * reads outer names and its own names shadow them. Nodes run in a
 * topological order fixed when the model is prepared (sort_nodes): the
 * model's own order when it is one, as the ONNX IR requires; otherwise, of
 * the nodes whose inputs are ready, the one listed first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "fuse.h"
#include "half.h"
#include "kernel.h"
#include "load.h"

/* ---- scopes: open-addressing hash tables from name to value ---- */

/* What the evaluator keeps for one run (ox_run_with), reached from every
 * scope of it: two runs at once never see each other's. A kernel finds the
 * options in its context (ox_ctx.run), which the evaluator fills from here. */
typedef struct run_state {
  const ox_run_opts *o; /* never NULL */
  /* time spent writing the trace and in the node hook (saving
   * intermediates): a node's time in --time leaves out what was spent so
   * while it ran, so that an If, Loop or Scan is not charged its branch's
   * trace lines (each a write to an unbuffered stderr) or saved files */
  double aside_us;
  struct trace_sum *sum; /* OX_TRACE_SUMMARY: what the summary counts */
} run_state;

struct ox_scope {
  ox_scope *parent;
  run_state *run; /* the run's, the parent's when there is one */
  int cap, n;
  const char **key;
  ox_value **val;
};

/* A scope of room for `expect` names without growing (it grows past them). */
static int scope_init(ox_arena *a, ox_scope *sc, ox_scope *parent, int64_t expect) {
  int cap = 16;
  while (cap < expect * 2 && cap < (1 << 29)) cap *= 2;
  sc->parent = parent;
  sc->run = parent ? parent->run : NULL;
  sc->cap = cap;
  sc->n = 0;
  sc->key = ox_alloc_array(a, cap, sizeof *sc->key);
  sc->val = ox_alloc_array(a, cap, sizeof *sc->val);
  return sc->key && sc->val;
}

static int scope_set(ox_arena *a, ox_scope *sc, const char *name, ox_value *v) {
  if ((sc->n + 1) * 2 > sc->cap) { /* grow */
    ox_scope big;
    if (sc->cap >= (1 << 29) || !scope_init(a, &big, sc->parent, sc->cap)) return 0;
    big.run = sc->run;
    for (int i = 0; i < sc->cap; i++)
      if (sc->key[i]) scope_set(a, &big, sc->key[i], sc->val[i]);
    *sc = big;
  }
  uint64_t m = (uint64_t)sc->cap - 1;
  for (uint64_t i = ox_name_hash(name) & m;; i = (i + 1) & m) {
    if (!sc->key[i]) {
      sc->key[i] = name;
      sc->val[i] = v;
      sc->n++;
      return 1;
    }
    if (sc->key[i] == name || !strcmp(sc->key[i], name)) {
      sc->val[i] = v;
      return 1;
    }
  }
}

static ox_value *scope_get(const ox_scope *sc, const char *name) {
  for (; sc; sc = sc->parent) {
    uint64_t m = (uint64_t)sc->cap - 1;
    for (uint64_t i = ox_name_hash(name) & m; sc->key[i]; i = (i + 1) & m)
      if (sc->key[i] == name || !strcmp(sc->key[i], name)) return sc->val[i];
  }
  return NULL;
}

/* A run's options (NULL: none) */
static const ox_run_opts no_opts;

/* ---- preparation ---- */

static const char *domain_label(const char *d) { return d && *d ? d : "ai.onnx"; }

static const ox_function *find_function(const ox_model *m, const ox_node *n) {
  for (int i = 0; i < m->nfunc; i++) {
    const ox_function *f = &m->func[i];
    if (!strcmp(f->name, n->op) && ox_domain_eq(f->domain, n->domain) &&
        !strcmp(f->overload ? f->overload : "", n->overload ? n->overload : ""))
      return f;
  }
  return NULL;
}

typedef struct fold_acc fold_acc;
static int prepare_nodes(ox_arena *a, ox_model *m, const ox_graph *g, ox_consts *up, int nnode,
                         ox_node *nodes, int nops, const ox_opset *ops, int nout,
                         const char *const *outs, int depth, ox_scope *consts, fold_acc *acc,
                         ox_err *e);

static int prepare_function(ox_arena *a, ox_model *m, ox_function *f, int depth, fold_acc *acc,
                            ox_err *e) {
  if (f->prepared == 2) return 0;
  if (f->prepared == 1) /* its body calls back into itself */
    return ox_fail(e, OX_EINPUT, "function '%s' calls itself (recursion is not allowed)", f->name);
  f->prepared = 1;
  /* A function body resolves ops with its own opset imports, falling back to
   * the model's for domains it does not import. */
  int n = f->nopset + m->nopset;
  ox_opset *ops = ox_alloc_array(a, n, sizeof *ops);
  if (!ops) return ox_oom(e, NULL);
  memcpy(ops, f->opset, (size_t)f->nopset * sizeof *ops);
  memcpy(ops + f->nopset, m->opset, (size_t)m->nopset * sizeof *ops);
  int rc = prepare_nodes(a, m, NULL, NULL, f->nnode, f->node, n, ops, f->nout, f->out, depth + 1, NULL,
                         acc, e);
  if (rc) ox_prefix(e, "function '%s': ", f->name);
  else f->prepared = 2;
  return rc;
}

/* ---- topological order ----
 * The IR requires nodes in topological order; models in the wild are not
 * always so. Kahn's algorithm, always taking the lowest-index ready node, so a
 * sorted graph keeps its order. A node that runs a subgraph depends on every
 * node of this graph producing a name the subgraph reads. */

/* Call f(arg, name) for each name node n reads: its inputs, and every input
 * of every node in its subgraphs and their outputs (recursively). */
typedef void (*read_fn)(void *arg, const char *name);
static void graph_reads(const ox_graph *g, read_fn f, void *arg, int depth) {
  if (depth > 64) return;
  for (int i = 0; i < g->nnode; i++) {
    const ox_node *n = &g->node[i];
    for (int k = 0; k < n->nin; k++) f(arg, n->in[k]);
    for (int j = 0; j < n->nattr; j++) {
      if (n->attr[j].g) graph_reads(n->attr[j].g, f, arg, depth + 1);
      for (int64_t q = 0; n->attr[j].graphs && q < n->attr[j].n; q++) graph_reads(n->attr[j].graphs[q], f, arg, depth + 1);
    }
  }
  for (int i = 0; i < g->nout; i++) f(arg, g->out[i].name);
}
static void node_reads(const ox_node *n, read_fn f, void *arg) {
  for (int k = 0; k < n->nin; k++) f(arg, n->in[k]);
  for (int j = 0; j < n->nattr; j++) {
    if (n->attr[j].g) graph_reads(n->attr[j].g, f, arg, 0);
    for (int64_t q = 0; n->attr[j].graphs && q < n->attr[j].n; q++) graph_reads(n->attr[j].graphs[q], f, arg, 0);
  }
}

/* the nodes a node depends on: the producers of the names it reads */
typedef struct { const ox_namemap *prod; int self; int *deps; int ndeps, cap; } dep_acc;
static void add_dep(void *arg, const char *name) {
  dep_acc *d = arg;
  if (!name[0]) return;
  int j = ox_namemap_get(d->prod, name);
  if (j < 0 || j == d->self) return;
  if (d->deps && d->ndeps < d->cap) d->deps[d->ndeps] = j;
  d->ndeps++;
}

static void heap_push(int *h, int *n, int v) {
  int i = (*n)++;
  h[i] = v;
  while (i && h[(i - 1) / 2] > h[i]) {
    int p = (i - 1) / 2, t = h[p];
    h[p] = h[i];
    h[i] = t;
    i = p;
  }
}
static int heap_pop(int *h, int *n) {
  int top = h[0];
  h[0] = h[--(*n)];
  for (int i = 0;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < *n && h[l] < h[m]) m = l;
    if (r < *n && h[r] < h[m]) m = r;
    if (m == i) break;
    int t = h[m];
    h[m] = h[i];
    h[i] = t;
    i = m;
  }
  return top;
}

/* The number of outputs of nodes[0 .. nnode) */
static int64_t count_outputs(int nnode, const ox_node *nodes) {
  int64_t n = 0;
  for (int i = 0; i < nnode; i++) n += nodes[i].nout;
  return n;
}

/* The names a graph's scope binds: its inputs, initializers and node outputs */
static int64_t graph_names(const ox_graph *g) {
  return count_outputs(g->nnode, g->node) + g->nin + g->ninit;
}

int ox_node_order(ox_arena *a, int nnode, const ox_node *nodes, int *order, int *reader, int *writer,
                  ox_err *e) {
  *reader = *writer = -1;
  for (int i = 0; i < nnode; i++) order[i] = i;
  if (nnode < 2) return 0;
  ox_mark mk = ox_arena_mark(a);
  ox_namemap prod; /* output name -> its node */
  int *start = ox_alloc_array(a, nnode + 1, sizeof *start), *indeg = ox_alloc_array(a, nnode, sizeof *indeg);
  int *heap = ox_alloc_array(a, nnode, sizeof *heap);
  int total = 0, rc = 0;
  if (!start || !indeg || !heap || ox_namemap_init(a, &prod, count_outputs(nnode, nodes)))
    return ox_oom(e, NULL);
  for (int i = 0; i < nnode; i++)
    for (int k = 0; k < nodes[i].nout; k++) {
      if (!nodes[i].out[k][0]) continue;
      int *slot = ox_namemap_slot(&prod, nodes[i].out[k]);
      if (!slot) return ox_oom(e, NULL);
      if (*slot >= 0 && *slot != i) /* ox_model_check refuses it first */
        return ox_two_writers(e, nodes, *slot, i, nodes[i].out[k], 0);
      *slot = i;
    }
  /* count the edges, then fill them (j -> i for each j that i reads from) */
  for (int i = 0; i < nnode; i++) {
    dep_acc d = {&prod, i, NULL, 0, 0};
    node_reads(&nodes[i], add_dep, &d);
    start[i] = total;
    total += d.ndeps;
  }
  start[nnode] = total;
  int *from = ox_alloc_array(a, total + 1, sizeof *from);
  if (!from) return ox_oom(e, NULL);
  for (int i = 0; i < nnode; i++) {
    dep_acc d = {&prod, i, from + start[i], 0, start[i + 1] - start[i]};
    node_reads(&nodes[i], add_dep, &d);
    indeg[i] = d.ndeps;
    for (int q = 0; q < d.ndeps && *reader < 0; q++)
      if (d.deps[q] > i) *reader = i, *writer = d.deps[q];
  }
  if (*reader < 0) { /* the usual case: nothing to do */
    ox_arena_release(a, mk);
    return 0;
  }
  /* reverse edges: for each j, the nodes that read from it */
  int *ostart = ox_alloc_array(a, nnode + 1, sizeof *ostart), *to = ox_alloc_array(a, total + 1, sizeof *to);
  int *fill = ox_alloc_array(a, nnode + 1, sizeof *fill);
  if (!ostart || !to || !fill) return ox_oom(e, NULL);
  for (int q = 0; q < total; q++) ostart[from[q] + 1]++;
  for (int j = 0; j < nnode; j++) ostart[j + 1] += ostart[j];
  for (int i = 0; i < nnode; i++)
    for (int q = start[i]; q < start[i + 1]; q++) to[ostart[from[q]] + fill[from[q]]++] = i;
  int nh = 0, no = 0;
  for (int i = 0; i < nnode; i++)
    if (!indeg[i]) heap_push(heap, &nh, i);
  while (nh) {
    int j = heap_pop(heap, &nh);
    order[no++] = j;
    for (int q = ostart[j]; q < ostart[j + 1]; q++)
      if (--indeg[to[q]] == 0) heap_push(heap, &nh, to[q]);
  }
  for (int i = 0; no < nnode && i < nnode && !rc; i++)
    if (indeg[i])
      rc = ox_fail(e, OX_EINPUT, "the graph has a cycle through node %d '%s' (%s)", i, nodes[i].name, nodes[i].op);
  ox_arena_release(a, mk);
  return rc;
}

/* Why the first node list of the model, its subgraphs' and its functions'
 * that is not in topological order is not, and how many are not. */
static int order_of(ox_arena *a, int n, const ox_node *ns, int nested, const char **note, int *count, ox_err *e) {
  int *order = ox_alloc_array(a, n + 1, sizeof *order), reader, writer;
  if (!order) return ox_oom(e, NULL);
  OX_TRY(ox_node_order(a, n, ns, order, &reader, &writer, e));
  if (reader >= 0 && !(*count)++ && !(*note = ox_order_note(a, ns, reader, writer, nested))) return ox_oom(e, NULL);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < ns[i].nattr; j++) {
      const ox_attr *at = &ns[i].attr[j];
      for (int64_t q = 0; q < (at->g ? 1 : at->graphs ? at->n : 0); q++) {
        const ox_graph *sub = at->g ? at->g : at->graphs[q];
        OX_TRY(order_of(a, sub->nnode, sub->node, 1, note, count, e));
      }
    }
  return 0;
}

int ox_model_order(ox_arena *a, const ox_model *m, const char **note, int *count, ox_err *e) {
  *note = NULL;
  *count = 0;
  OX_TRY(order_of(a, m->graph->nnode, m->graph->node, 0, note, count, e));
  for (int f = 0; f < m->nfunc; f++) OX_TRY(order_of(a, m->func[f].nnode, m->func[f].node, 1, note, count, e));
  return 0;
}

/* Put nodes[0 .. nnode) in the order they run (ox_node_order): a list out
 * of topological order runs in dependency order, as onnxruntime runs it
 * (onnx's checker refuses it; ox_model_order says why, for warnings). */
static int sort_nodes(ox_arena *a, int nnode, ox_node *nodes, ox_err *e) {
  int *order = ox_alloc_array(a, nnode + 1, sizeof *order), reader, writer;
  if (!order) return ox_oom(e, NULL);
  OX_TRY(ox_node_order(a, nnode, nodes, order, &reader, &writer, e));
  if (reader < 0) return 0;
  ox_node *copy = ox_alloc_array(a, nnode, sizeof *copy);
  if (!copy) return ox_oom(e, NULL);
  for (int i = 0; i < nnode; i++) copy[i] = nodes[order[i]];
  memcpy(nodes, copy, sizeof *copy * (size_t)nnode);
  return 0;
}

/* ---- liveness ----
 * For each value a node of this list produces, the last node that reads it
 * (directly or from a subgraph); the value dies once that node has run, or
 * right after its producer if nothing reads it. What the list returns (`outs`:
 * the graph's or the function's outputs) never dies here: it is the producer's
 * `kept`. The evaluator gives a dead value's memory back (ox_live_*). */
typedef struct { const ox_namemap *names; const int *prod; int *last; int self; } last_acc;
static void note_read(void *arg, const char *name) {
  last_acc *l = arg;
  int q = name[0] ? ox_namemap_get(l->names, name) : -1;
  if (q >= 0 && l->prod[q] < l->self && l->last[q] < l->self) l->last[q] = l->self;
}

static int plan_liveness(ox_arena *a, int nnode, ox_node *nodes, int nout, const char *const *outs,
                         ox_err *e) {
  int64_t nv = count_outputs(nnode, nodes);
  if (!nv) return 0;
  ox_namemap names;
  int *prod = ox_alloc_array(a, nv, sizeof *prod), *last = ox_alloc_array(a, nv, sizeof *last);
  const char **name = ox_alloc_array(a, nv, sizeof *name);
  int *ndies = ox_alloc_array(a, nnode, sizeof *ndies), *nkept = ox_alloc_array(a, nnode, sizeof *nkept);
  if (!prod || !last || !name || !ndies || !nkept || ox_namemap_init(a, &names, nv))
    return ox_oom(e, NULL);
  int q = 0;
  for (int i = 0; i < nnode; i++)
    for (int k = 0; k < nodes[i].nout; k++) {
      const char *o = nodes[i].out[k];
      if (!o[0] || ox_namemap_get(&names, o) >= 0) continue; /* unnamed; or written twice (refused earlier) */
      int *slot = ox_namemap_slot(&names, o);
      if (!slot) return ox_oom(e, NULL);
      *slot = q;
      name[q] = o;
      prod[q] = last[q] = i;
      q++;
    }
  for (int i = 0; i < nnode; i++) {
    last_acc l = {&names, prod, last, i};
    node_reads(&nodes[i], note_read, &l);
    /* an input names the very string its producer's output does, so that
     * the scope's lookups match it by pointer before comparing bytes */
    for (int k = 0; k < nodes[i].nin; k++) {
      int v = nodes[i].in[k][0] ? ox_namemap_get(&names, nodes[i].in[k]) : -1;
      if (v >= 0) nodes[i].in[k] = name[v];
    }
  }
  for (int j = 0; j < nout; j++) {
    int v = outs[j] && outs[j][0] ? ox_namemap_get(&names, outs[j]) : -1;
    if (v >= 0) last[v] = -1; /* kept */
  }
  for (int v = 0; v < q; v++) {
    if (last[v] >= 0) ndies[last[v]]++;
    else nkept[prod[v]]++;
  }
  for (int i = 0; i < nnode; i++) {
    nodes[i].ndies = nodes[i].nkept = 0;
    nodes[i].dies = ox_alloc_array(a, ndies[i], sizeof *nodes[i].dies);
    nodes[i].kept = ox_alloc_array(a, nkept[i], sizeof *nodes[i].kept);
    if ((ndies[i] && !nodes[i].dies) || (nkept[i] && !nodes[i].kept)) return ox_oom(e, NULL);
  }
  for (int v = 0; v < q; v++) {
    ox_node *n = &nodes[last[v] >= 0 ? last[v] : prod[v]];
    if (last[v] >= 0) n->dies[n->ndies++] = name[v];
    else n->kept[n->nkept++] = name[v];
  }
  return 0;
}

static const char **graph_out_names(ox_arena *a, const ox_graph *g) {
  const char **o = ox_alloc_array(a, g->nout + 1, sizeof *o);
  for (int i = 0; o && i < g->nout; i++) o[i] = g->out[i].name;
  return o;
}

/* ---- constant folding ----
 * A node of a few deterministic ops (shape plumbing, copies, casts and
 * arithmetic) whose inputs are all constants is run once here, and its
 * outputs are kept with the node (ox_node.folded): every run then binds them
 * instead of calling the kernel. The constants of a graph are its
 * initializers (not those a graph input may override), Constant outputs,
 * folded outputs, and those of the enclosing graphs that no name of its own
 * shadows; `consts` maps each visible name to its value (NULL: shadowed, not
 * constant). The Silero VADs rebuild their LSTM weights (Slice, Concat,
 * Unsqueeze of constants) inside an If branch on every call; PP-OCR runs
 * hundreds of Constants. Results are those of the same kernel on the same
 * values, so nothing changes but the time.
 *
 * Only what is small is folded: a node whose new outputs (not views of its
 * inputs) take more than FOLD_MAX bytes runs at run time instead, and
 * folding stops taking new values once those it holds pass the budget:
 * FOLD_BUDGET, or a sixteenth of the memory limit (--max-memory) when that
 * is less. A node whose results would grow past its inputs (broadcasting
 * arithmetic, Concat, Gather, Cast) or copy them (Transpose) is judged before
 * it runs; any other is run and judged by what it made, which is then given
 * back at once if refused. A folded value that only later folds read is given back once the
 * last of them is folded, and no longer counts (its node is then elided,
 * ox_node.elided: a run skips it). Not folded either: a node whose kernel
 * fails (it runs, and fails, at run time as before), non-tensor outputs,
 * and nothing in functions. The deadline of --timeout is checked before
 * each node is prepared. */
#define FOLD_MAX ((size_t)1 << 20)
#define FOLD_BUDGET ((size_t)64 << 20)

static int foldable_op(const ox_node *n) {
  static const char *const ops[] = {"Constant", "Identity", "Reshape", "Squeeze", "Unsqueeze",
                                    "Flatten", "Shape", "Size", "Slice", "Concat", "Gather",
                                    "Transpose", "Cast", "Add", "Sub", "Mul", "Div"};
  if (!n->k || (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx"))) return 0;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(n->op, ops[i])) return 1;
  return 0;
}

static int shares_input(const ox_tensor *t, int nin, ox_value **in) {
  for (int i = 0; i < nin; i++)
    if (in[i] && in[i]->kind == OX_TENSOR && in[i]->u.t.data == t->data) return 1;
  return 0;
}

static size_t tensor_bytes(const ox_value *v) {
  return v && v->kind == OX_TENSOR ? (size_t)v->u.t.n * ox_dtype_size(v->u.t.dt) : 0;
}

/* The bytes node n's outputs would take, for the ops whose outputs can
 * outgrow their inputs, and Transpose's copy (SIZE_MAX: more than can be
 * counted); 0 for the others (views, shapes, Slice: no more than their
 * input), which are judged once they have run. in: the node's inputs,
 * constants. */
static size_t fold_estimate(const ox_node *n, ox_value **in) {
  for (int i = 0; i < n->nin; i++)
    if (in[i] && in[i]->kind != OX_TENSOR) return 0; /* refused after the run */
  const char *op = n->op;
  if (!strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div")) {
    /* a: (1, 8192) + b: (8192, 1) -> (8192, 8192): 256 MiB from 64 KiB */
    if (n->nin != 2 || !in[0] || !in[1]) return 0;
    const ox_tensor *ts[2] = {&in[0]->u.t, &in[1]->u.t};
    int64_t dims[OX_MAX_RANK];
    int rank;
    ox_err be = {0};
    if (ox_broadcast_shape(2, ts, &rank, dims, &be)) return 0; /* the kernel says why */
    int64_t k = ox_numel(rank, dims, ox_dtype_size(ts[0]->dt));
    return k < 0 ? SIZE_MAX : (size_t)k * ox_dtype_size(ts[0]->dt);
  }
  if (!strcmp(op, "Concat")) {
    size_t sum = 0;
    for (int i = 0; i < n->nin; i++) {
      size_t b = tensor_bytes(in[i]);
      if (b > SIZE_MAX - sum) return SIZE_MAX;
      sum += b;
    }
    return sum;
  }
  if (!strcmp(op, "Gather")) { /* data: (..., d[axis], ...), indices: (q...) -> d with d[axis] -> q... */
    if (n->nin != 2 || !in[0] || !in[1]) return 0;
    const ox_tensor *x = &in[0]->u.t;
    const ox_attr *at = ox_node_attr(n, "axis");
    int64_t axis = at ? at->i : 0;
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis >= x->rank || x->dims[axis] == 0) return 0;
    int64_t row = x->n / x->dims[axis], q = in[1]->u.t.n; /* elements per index; indices */
    size_t es = ox_dtype_size(x->dt);
    if (row && (uint64_t)q > SIZE_MAX / es / (uint64_t)row) return SIZE_MAX;
    return (size_t)row * (size_t)q * es;
  }
  if (!strcmp(op, "Transpose")) /* a copy of its input, in another order */
    return n->nin >= 1 ? tensor_bytes(in[0]) : 0;
  if (!strcmp(op, "Cast")) { /* bool -> double: eight times the bytes */
    const ox_attr *at = ox_node_attr(n, "to");
    if (n->nin < 1 || !in[0] || !at || !ox_dtype_valid(at->i)) return 0;
    size_t es = ox_dtype_size((ox_dtype)at->i);
    return (uint64_t)in[0]->u.t.n > SIZE_MAX / (es ? es : 1) ? SIZE_MAX : (size_t)in[0]->u.t.n * es;
  }
  return 0;
}

static int check_inputs(const ox_node *n, int nin, ox_value **in, ox_err *e);

/* What a model's preparation carries through all its graphs: its options
 * (the deadline), and what folding holds. */
struct fold_acc {
  const ox_run_opts *run; /* never NULL */
  size_t spent, budget; /* bytes of folded values held; the most they may take */
  ox_release *rel;      /* initializers given back once packed (NULL: none) */
};

/* The readers of the values one graph's nodes produce, for giving back a
 * folded value that no node needs at run time: a node that is not folded
 * (or one of its subgraphs) reading it, or the graph returning it, counts
 * for ever; a folded one counts until it is folded. */
typedef struct {
  ox_namemap names;   /* output name -> its index q */
  int *readers;       /* readers left of q */
  int *node, *slot;   /* q is nodes[node[q]].out[slot[q]] */
  size_t *bytes;      /* what q counts in fold_acc.spent */
  int *left;          /* per node: its named outputs still held */
} fold_plan;

static void count_read(void *arg, const char *name) {
  fold_plan *p = arg;
  int q = name[0] ? ox_namemap_get(&p->names, name) : -1;
  if (q >= 0 && p->readers[q] < INT32_MAX) p->readers[q]++;
}

static int fold_plan_init(ox_arena *a, fold_plan *p, int nnode, const ox_node *nodes, int nout,
                          const char *const *outs) {
  int64_t nv = count_outputs(nnode, nodes);
  p->readers = ox_alloc_array(a, nv + 1, sizeof *p->readers);
  p->node = ox_alloc_array(a, nv + 1, sizeof *p->node);
  p->slot = ox_alloc_array(a, nv + 1, sizeof *p->slot);
  p->bytes = ox_alloc_array(a, nv + 1, sizeof *p->bytes);
  p->left = ox_alloc_array(a, nnode + 1, sizeof *p->left);
  if (!p->readers || !p->node || !p->slot || !p->bytes || !p->left || ox_namemap_init(a, &p->names, nv))
    return -1;
  int q = 0;
  for (int i = 0; i < nnode; i++)
    for (int k = 0; k < nodes[i].nout; k++) {
      const char *o = nodes[i].out[k];
      if (!o[0] || ox_namemap_get(&p->names, o) >= 0) continue;
      int *slot = ox_namemap_slot(&p->names, o);
      if (!slot) return -1;
      *slot = q;
      p->node[q] = i;
      p->slot[q] = k;
      p->left[i]++;
      q++;
    }
  for (int i = 0; i < nnode; i++) node_reads(&nodes[i], count_read, p);
  for (int j = 0; j < nout; j++)
    if (outs[j]) count_read(p, outs[j]);
  return 0;
}

/* Node n was just folded: the values of this graph it read have one reader
 * less. A node whose every value is left with none is elided: its values
 * are given back (when nothing else holds their memory: a kept view of one
 * holds it) and no longer count. */
static void fold_consumed(ox_arena *a, fold_plan *p, ox_node *nodes, const ox_node *n, fold_acc *acc) {
  for (int k = 0; k < n->nin; k++) {
    int q = n->in[k][0] ? ox_namemap_get(&p->names, n->in[k]) : -1;
    if (q < 0 || --p->readers[q] > 0 || --p->left[p->node[q]] > 0) continue;
    ox_node *src = &nodes[p->node[q]];
    if (!src->folded) continue; /* cannot be: n read it as a constant */
    for (int j = 0; j < src->nout; j++) {
      int r = src->out[j][0] ? ox_namemap_get(&p->names, src->out[j]) : -1;
      const ox_value *v = src->folded[j];
      if (r >= 0 && v && v->kind == OX_TENSOR && ox_live_unref(a, v->u.t.data, 1)) acc->spent -= p->bytes[r];
    }
    src->folded = NULL;
    src->elided = 1;
  }
}

/* Fold node n when it can be: returns 0, or an out-of-memory error (a
 * kernel's own failure only leaves the node unfolded). plan (NULL: none)
 * receives the bytes each output counts. */
static int try_fold(ox_arena *a, const ox_model *m, ox_node *n, ox_scope *consts, fold_acc *acc,
                    fold_plan *plan, ox_err *e) {
  if (!foldable_op(n) || n->nout < 1 || n->nin > 64 || (n->k->load && !n->state)) return 0;
  ox_value *in[64] = {0};
  for (int i = 0; i < n->nin; i++) {
    if (!n->in[i][0]) continue;
    if (!(in[i] = scope_get(consts, n->in[i]))) return 0;
  }
  size_t room = acc->budget > acc->spent ? acc->budget - acc->spent : 0;
  size_t guess = fold_estimate(n, in);
  if (guess > FOLD_MAX || guess > room) return 0; /* too large to make at all */
  ox_value **out = ox_alloc_array(a, n->nout, sizeof *out);
  if (!out) return ox_oom(e, NULL);
  ox_err fe = {0};
  ox_ctx c = {a, &fe, n, n->version, m, NULL, n->state, NULL, acc->run, acc->run->threads};
  /* what the kernel allocates: given back whole when the fold is refused;
   * else its scratch (between born and done, held by no output) */
  ox_mark mk = ox_arena_mark(a);
  uint64_t born = ox_live_now();
  int ok = !check_inputs(n, n->nin, in, &fe) && !n->k->fn(&c, n->nin, in, n->nout, out) && !fe.code;
  uint64_t done = ox_live_now();
  size_t bytes = 0;
  for (int i = 0; ok && i < n->nout; i++) {
    if (!n->out[i][0]) continue;
    const ox_value *v = out[i];
    if (!v || v->kind != OX_TENSOR || v->u.t.dt == OX_STRING) ok = 0;
    else if (!shares_input(&v->u.t, n->nin, in)) bytes += tensor_bytes(v);
  }
  if (!ok || bytes > FOLD_MAX || bytes > room) {
    ox_arena_release(a, mk);
    return 0;
  }
  acc->spent += bytes;
  for (int i = 0; i < n->nout; i++) {
    if (!n->out[i][0]) continue;
    ox_live_ref(a, out[i]->u.t.data); /* held by the node (a view: held by this one too) */
    if (!scope_set(a, consts, n->out[i], out[i])) return ox_oom(e, NULL);
    int q = plan ? ox_namemap_get(&plan->names, n->out[i]) : -1;
    if (q >= 0) plan->bytes[q] = shares_input(&out[i]->u.t, n->nin, in) ? 0 : tensor_bytes(out[i]);
  }
  ox_live_sweep(a, born, done);
  n->folded = out;
  return 0;
}

/* The constants a subgraph sees: its own initializers, its inputs hiding
 * outer names (NULL), the enclosing graph's constants below them. */
static int sub_consts(ox_arena *a, const ox_graph *g, ox_scope *outer, ox_scope *sc) {
  if (!outer) return 0;
  if (!scope_init(a, sc, outer, graph_names(g))) return -1;
  for (int i = 0; i < g->ninit; i++)
    if (!scope_set(a, sc, g->init_name[i], g->init[i])) return -1;
  for (int i = 0; i < g->nin; i++)
    if (!scope_set(a, sc, g->in[i].name, NULL)) return -1;
  return 1;
}

/* ---- fusion (core/fuse.h) ----
 * A Conv's (or a float or float16 MatMul's by a constant B (K, N)) elementwise
 * followers become steps of its epilogue: in the order of the graph, each
 * next node that reads a value of the group, whose other inputs are
 * constants (one value, or one per output channel of a Conv, or one per
 * column of a MatMul: N values along the last axis) or values made before
 * the head runs, and that its family takes as a float32 step.
 * Every value of the group but the last must have no reader outside it and
 * not be a graph output (the steps past the last such point are dropped), so
 * that nothing else ever needs it. ONNXOP_NO_FUSE=1 in the environment turns
 * the pass off (the tests compare both ways). */

typedef struct {
  ox_namemap names;
  int *prod;  /* per value: its producer's index */
  int *nread; /* per value: its readers (input slots, subgraph reads, graph outputs) */
} fuse_info;

static void fuse_count(void *arg, const char *name) {
  fuse_info *fi = arg;
  int v = name[0] ? ox_namemap_get(&fi->names, name) : -1;
  if (v >= 0) fi->nread[v]++;
}

/* The head: M its output channels (Conv) or columns (MatMul, bycol); rank
 * the Conv's output rank (a MatMul's is known only when it runs: 0); dt
 * its output's type (OX_FLOAT16: a float16 MatMul) */
typedef struct {
  int64_t M;
  int rank, bycol;
  ox_dtype dt;
} fuse_head;

/* The followers a float16 group takes: those whose float16 kernels widen
 * their inputs, run the float32 step's very code and round once (Clip's
 * bounds and Max and Min's variadic kernel are not checked to) */
static int half_step(const ox_node *n) {
  static const char *const ok[] = {"Add", "Sub", "Mul", "Div", "Relu", "LeakyRelu", "Abs", "Neg", "Sigmoid",
                                   "Tanh", "HardSigmoid", "HardSwish", "Erf", "Gelu"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (!strcmp(n->op, ok[i])) return 1;
  return 0;
}

typedef struct {
  int h;                            /* the head */
  int n;                            /* steps */
  int crank[OX_EPI_MAXSTEP];        /* each step's constants' highest rank */
  int node[OX_EPI_MAXSTEP];         /* each step's node */
  int val[OX_EPI_MAXSTEP + 1];      /* the group's values: 0 the head's output, i + 1 step i's */
  ox_epi_step step[OX_EPI_MAXSTEP]; /* in[].reg: the index into val of a REG input */
} fuse_group;

static int group_value(const fuse_group *g, int v) {
  for (int i = 0; i <= g->n; i++)
    if (g->val[i] == v) return i;
  return -1;
}

/* The step for node f in group g: 1, or 0 (none), or -1 (out of memory) */
static int fuse_step(ox_arena *a, const ox_model *m, ox_node *nodes, int f, fuse_group *g, const fuse_info *fi,
                     ox_scope *consts, ox_consts *cc, const fold_acc *acc, const fuse_head *hd, ox_err *e) {
  ox_node *n = &nodes[f];
  if (!n->k || n->fn || n->folded || n->fused_into || n->epi || n->nout < 1 || !n->out[0][0]) return 0;
  for (int k = 1; k < n->nout; k++)
    if (n->out[k][0]) return 0;
  for (int j = 0; j < n->nattr; j++)
    if (n->attr[j].g || n->attr[j].graphs) return 0;
  ox_epi_step s = {0};
  s.node = n;
  ox_ctx fc = {a, e, n, n->version, m, NULL, n->state, cc, acc->run, acc->run->threads};
  int fam = 0; /* the step's data inputs: 1 or 2 */
  for (const ox_family *fy = ox_families; fy->family && !fam; fy++)
    if (fy->epi) fam = fy->epi(&fc, hd->bycol ? 0 : hd->M, &s);
  if (!fam) return e->code ? -1 : 0; /* out of memory reading a constant */
  if (hd->dt == OX_FLOAT16 && !half_step(n)) return 0;
  s.nin = fam;
  int inside = 0, crank = 0;
  for (int k = 0; k < fam; k++) {
    const char *name = k < n->nin ? n->in[k] : "";
    int v = name[0] ? ox_namemap_get(&fi->names, name) : -1, gv = v >= 0 ? group_value(g, v) : -1;
    if (gv >= 0) {
      s.in[k].kind = OX_EPI_REG, s.in[k].reg = gv;
      inside++;
      continue;
    }
    if (!name[0] || (k == 0 && fam == 1)) return 0; /* a one-input step reads the group */
    ox_value *cv = scope_get(consts, name);
    if (cv) { /* a constant: one value, or one per output channel of (N, M, ...),
               * or one per column of a MatMul's (..., R, M) */
      const ox_tensor *t = &cv->u.t;
      if (cv->kind != OX_TENSOR || t->dt != hd->dt || (!hd->bycol && t->rank > hd->rank) || !t->data) return 0;
      int per_channel = t->n == hd->M;
      for (int d = 0; d < t->rank; d++) {
        int axis = hd->rank - t->rank + d;
        if (t->dims[d] != 1 && (axis != 1 || t->dims[d] != hd->M)) per_channel = 0;
      }
      /* (..., 1, M): the other dims are 1 when n is M */
      int per_col = t->rank >= 1 && t->n == hd->M && t->dims[t->rank - 1] == hd->M;
      if (t->n == 1) s.in[k].kind = OX_EPI_SCALAR;
      else if (hd->bycol ? per_col : per_channel) s.in[k].kind = hd->bycol ? OX_EPI_COL : OX_EPI_CHANNEL;
      else return 0;
      s.in[k].data = t->data;
      if (t->dt != OX_FLOAT) { /* float16: its values as floats, exactly */
        float *wide = ox_alloc_array(a, t->n, sizeof *wide);
        if (!wide) {
          ox_oom(e, NULL);
          return -1;
        }
        ox_widen_f32_n(t->dt, t->data, 0, t->n, wide);
        s.in[k].data = wide;
      }
      if (t->rank > crank) crank = t->rank; /* the output has at least its rank */
      continue;
    }
    /* a value made before the head runs (or a graph input): checked to
     * have the output's shape when it runs */
    if (v >= 0 && fi->prod[v] >= g->h) return 0;
    s.in[k].kind = OX_EPI_FULL, s.in[k].name = name;
  }
  if (!inside) return 0;
  g->crank[g->n] = crank;
  g->step[g->n] = s;
  g->node[g->n] = f;
  g->val[g->n + 1] = ox_namemap_get(&fi->names, n->out[0]);
  g->n++;
  return 1;
}

/* Whether the first n steps of g make a valid group: every value but the
 * last read only inside it, and registers enough; then e's steps. */
static int fuse_finish(const fuse_group *g, int n, const fuse_info *fi, ox_epi *e) {
  int last[OX_EPI_MAXSTEP + 1], inner[OX_EPI_MAXSTEP + 1] = {0};
  for (int i = 0; i <= n; i++) last[i] = -1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < g->step[i].nin; k++)
      if (g->step[i].in[k].kind == OX_EPI_REG) {
        last[g->step[i].in[k].reg] = i;
        inner[g->step[i].in[k].reg]++;
      }
  for (int i = 0; i < n; i++)
    if (fi->nread[g->val[i]] != inner[i]) return 0;
  /* registers: value i's register; 0 is the output row, and the last value
   * must land there */
  int reg[OX_EPI_MAXSTEP + 1], holder[OX_EPI_MAXREG];
  for (int r = 0; r < OX_EPI_MAXREG; r++) holder[r] = -1;
  reg[0] = 0, holder[0] = 0;
  int nreg = 1;
  for (int i = 0; i < n; i++) {
    const ox_epi_step *s = &g->step[i];
    for (int k = 0; k < s->nin; k++) /* inputs dying here free their registers */
      if (s->in[k].kind == OX_EPI_REG && last[s->in[k].reg] == i) holder[reg[s->in[k].reg]] = -1;
    int d = -1;
    if (i == n - 1) d = holder[0] < 0 ? 0 : -1;
    else
      for (int r = 0; r < OX_EPI_MAXREG && d < 0; r++)
        if (holder[r] < 0) d = r;
    if (d < 0) return 0;
    reg[i + 1] = d, holder[d] = i + 1;
    if (d + 1 > nreg) nreg = d + 1;
    e->step[i] = *s;
    for (int k = 0; k < s->nin; k++)
      if (s->in[k].kind == OX_EPI_REG) e->step[i].in[k].reg = reg[s->in[k].reg];
    e->step[i].dst = d;
  }
  e->nstep = n, e->nreg = nreg;
  return 1;
}

static int fuse_pass(ox_arena *a, const ox_model *m, int nnode, ox_node *nodes, int nout, const char *const *outs,
                     ox_scope *consts, ox_consts *cc, const fold_acc *acc, ox_err *e) {
  const char *off = getenv("ONNXOP_NO_FUSE");
  if (off && *off && strcmp(off, "0")) return 0;
  int64_t nv = count_outputs(nnode, nodes);
  if (!nv) return 0;
  fuse_info fi;
  fi.prod = ox_alloc_array(a, nv, sizeof *fi.prod);
  fi.nread = ox_alloc_array(a, nv, sizeof *fi.nread);
  if (!fi.prod || !fi.nread || ox_namemap_init(a, &fi.names, nv)) return ox_oom(e, NULL);
  int q = 0;
  for (int i = 0; i < nnode; i++)
    for (int k = 0; k < nodes[i].nout; k++) {
      const char *o = nodes[i].out[k];
      if (!o[0] || ox_namemap_get(&fi.names, o) >= 0) continue;
      int *slot = ox_namemap_slot(&fi.names, o);
      if (!slot) return ox_oom(e, NULL);
      *slot = q;
      fi.prod[q] = i, fi.nread[q] = 0;
      q++;
    }
  for (int i = 0; i < nnode; i++) node_reads(&nodes[i], fuse_count, &fi);
  for (int j = 0; j < nout; j++)
    if (outs[j]) fuse_count(&fi, outs[j]);
  for (int h = 0; h < nnode; h++) {
    ox_node *n = &nodes[h];
    int conv = !strcmp(n->op, "Conv"), mm = !strcmp(n->op, "MatMul");
    if (!n->k || n->fn || n->folded || n->fused_into || !(conv || mm) || (n->domain && n->domain[0]) ||
        n->nin < 2 || !n->out[0][0])
      continue;
    /* Conv: W (M, C/group, k...); MatMul: B (K, N), the constant ops/matmul.c
     * packs (its kernel applies the steps on that path only) */
    ox_value *w = scope_get(consts, n->in[1]);
    if (!w || w->kind != OX_TENSOR || !(w->u.t.dt == OX_FLOAT || w->u.t.dt == OX_FLOAT16) ||
        (conv ? w->u.t.rank < 3 : w->u.t.rank != 2))
      continue;
    fuse_head hd = {conv ? w->u.t.dims[0] : w->u.t.dims[1], conv ? w->u.t.rank : 0, mm, w->u.t.dt};
    fuse_group g = {.h = h};
    g.val[0] = ox_namemap_get(&fi.names, n->out[0]);
    /* the next follower: the first later node that takes a step */
    for (int more = 1; more && g.n < OX_EPI_MAXSTEP;) {
      more = 0;
      for (int f = h + 1; f < nnode && !more; f++) {
        const ox_node *c = &nodes[f];
        int reads = 0;
        for (int k = 0; k < c->nin && !reads; k++) {
          int v = c->in[k][0] ? ox_namemap_get(&fi.names, c->in[k]) : -1;
          reads = v >= 0 && group_value(&g, v) >= 0;
        }
        int taken = 0;
        for (int i = 0; i < g.n; i++) taken |= g.node[i] == f;
        if (reads && !taken) more = fuse_step(a, m, nodes, f, &g, &fi, consts, cc, acc, &hd, e);
      }
      if (more < 0) return e->code;
    }
    ox_epi *ep = ox_alloc(a, sizeof *ep);
    if (!ep) return ox_oom(e, NULL);
    int keep = g.n;
    while (keep > 0 && !fuse_finish(&g, keep, &fi, ep)) keep--;
    if (!keep) continue;
    ep->final = nodes[g.node[keep - 1]].out[0];
    ep->bycol = hd.bycol;
    ep->dt = hd.dt;
    ep->rank = 0;
    for (int i = 0; i < keep; i++)
      if (g.crank[i] > ep->rank) ep->rank = g.crank[i];
    n->epi = ep;
    for (int i = 0; i < keep; i++) nodes[g.node[i]].fused_into = n;
  }
  return 0;
}

/* The deadline of --timeout, as node n is prepared: a run's message, with
 * the node and "(preparing the model)" in front. */
static int prep_time(const ox_run_opts *o, const ox_node *n, ox_err *e) {
  if (!ox_check_time(o, e)) return 0;
  if (n->fn) ox_prefix(e, "node '%s' %s (function; preparing the model): ", n->name, n->op);
  else ox_prefix(e, "node '%s' %s-%d (preparing the model): ", n->name, n->op, n->version);
  return e->code;
}

/* Prepare the nodes of graph g (NULL: of a function body, which sees no
 * constants), inside the graphs of `up` (NULL for the main graph). */
static int prepare_nodes(ox_arena *a, ox_model *m, const ox_graph *g, ox_consts *up, int nnode,
                         ox_node *nodes, int nops, const ox_opset *ops, int nout,
                         const char *const *outs, int depth, ox_scope *consts, fold_acc *acc,
                         ox_err *e) {
  if (depth > 64)
    return ox_fail(e, OX_EINPUT, "functions or subgraphs nest more than 64 deep (recursion?)");
  OX_TRY(sort_nodes(a, nnode, nodes, e));
  ox_consts chain, *cc = g ? &chain : NULL; /* the constants the load hooks see */
  if (g) ox_consts_init(&chain, a, g, up);
  fold_plan plan, *fp = NULL;
  if (consts) {
    if (fold_plan_init(a, &plan, nnode, nodes, nout, outs)) return ox_oom(e, NULL);
    fp = &plan;
  }
  for (int i = 0; i < nnode; i++) {
    ox_node *n = &nodes[i];
    n->folded = NULL;
    n->elided = 0;
    n->epi = NULL;
    n->fused_into = NULL;
    const ox_function *fn = find_function(m, n);
    if (fn) {
      /* Calls are expanded at run time; a function that (indirectly) calls
       * itself would never end, so refuse it here. */
      n->fn = fn;
      n->version = 1;
      OX_TRY(prep_time(acc->run, n, e));
      OX_TRY(prepare_function(a, m, (ox_function *)fn, depth, acc, e));
      for (int k = 0; consts && k < n->nout; k++)
        if (n->out[k][0] && !scope_set(a, consts, n->out[k], NULL)) return ox_oom(e, NULL);
      continue;
    }
    int64_t v = ox_opset_of(nops, ops, n->domain);
    if (v < 0)
      return ox_fail(e, OX_EINPUT, "node '%s' %s: the model imports no opset for domain '%s' (add it to the "
                     "model's opset_import; onnxop does not assume a version, as onnxruntime does)",
                     n->name, n->op, domain_label(n->domain));
    const ox_kernel *k = ox_registry_find(n->domain, n->op, v);
    if (!k) {
      char why[320];
      int known = ox_registry_has_op(n->domain, n->op);
      return ox_fail(e, OX_EUNSUPPORTED, "unsupported operator %s (%s, opset %lld)%s%s", n->op,
                     domain_label(n->domain), (long long)v, known ? ": " : "",
                     known ? ox_registry_why(n->domain, n->op, v, why, sizeof why) : "");
    }
    n->k = k;
    n->version = k->since;
    OX_TRY(prep_time(acc->run, n, e)); /* before its subgraphs, its fold */
    /* Attributes are checked against the op-version's row here, not only
     * by the kernels: a kernel sees them only when it runs (an If branch not
     * taken, a Loop of zero trips, a node after a failing one), and never
     * sees one it does not read. */
    if (ox_attrs_check(k, n, e)) {
      ox_prefix(e, "node '%s' %s-%d: ", n->name, n->op, n->version);
      return e->code;
    }
    /* the row's load hook: the attributes parsed once, constant weights
     * packed (core/registry.h); in a function body, when they refer to the
     * caller's, at each call instead (run_node) */
    n->state = NULL;
    if (k->load && !(!g && ox_node_refers(n))) {
      ox_ctx lc = {a, e, n, n->version, m, NULL, NULL, cc, acc->run, acc->run->threads};
      if (depth == 0 && g == m->graph) lc.discard_inputs = ox_release_discardable(acc->rel, n);
      if (ox_node_load(&lc)) {
        ox_prefix(e, "node '%s' %s-%d: ", n->name, n->op, n->version);
        return e->code;
      }
      n->state = lc.state;
      n->packed_inputs = lc.packed_inputs;
    }
    /* an initializer only packing kernels read goes once the last has packed it */
    if (depth == 0 && g == m->graph) ox_release_node(acc->rel, n);
    for (int j = 0; j < n->nattr; j++) {
      ox_attr *at = &n->attr[j];
      if (at->g) {
        const char **go = graph_out_names(a, at->g);
        ox_scope sub;
        int has = go ? sub_consts(a, at->g, consts, &sub) : 0;
        if (!go || has < 0) return ox_oom(e, NULL);
        int rc = prepare_nodes(a, m, g ? at->g : NULL, cc, at->g->nnode, at->g->node, nops, ops,
                               at->g->nout, go, depth + 1, has ? &sub : NULL, acc, e);
        if (rc) {
          ox_prefix(e, "node '%s' %s-%d > %s: ", n->name, n->op, n->version, at->name);
          return rc;
        }
      }
      for (int64_t q = 0; q < at->n && at->graphs; q++) {
        const ox_graph *sg = at->graphs[q];
        const char **go = graph_out_names(a, sg);
        if (!go) return ox_oom(e, NULL);
        int rc = prepare_nodes(a, m, g ? sg : NULL, cc, sg->nnode, sg->node, nops, ops, sg->nout, go,
                               depth + 1, NULL, acc, e);
        if (rc) return rc;
      }
    }
    if (consts) {
      OX_TRY(try_fold(a, m, n, consts, acc, fp, e));
      if (n->folded) fold_consumed(a, fp, nodes, n, acc);
      for (int q = 0; !n->folded && q < n->nout; q++) /* not constant: hides an outer name */
        if (n->out[q][0] && !scope_set(a, consts, n->out[q], NULL)) return ox_oom(e, NULL);
    }
  }
  if (g && !up && consts) OX_TRY(fuse_pass(a, m, nnode, nodes, nout, outs, consts, cc, acc, e));
  return plan_liveness(a, nnode, nodes, nout, outs, e);
}

static int prepare(ox_arena *a, ox_model *m, const ox_run_opts *o, ox_err *e) {
  OX_TRY(ox_model_check(a, m, e));
  const ox_graph *g = m->graph;
  const char **go = graph_out_names(a, g);
  ox_scope consts;
  if (!go || !scope_init(a, &consts, NULL, graph_names(g))) return ox_oom(e, NULL);
  /* initializers a graph input of the same name may override are not constant */
  for (int i = 0; i < g->ninit; i++)
    if (!scope_set(a, &consts, g->init_name[i], g->init[i])) return ox_oom(e, NULL);
  for (int i = 0; i < g->nin; i++)
    if (!scope_set(a, &consts, g->in[i].name, NULL)) return ox_oom(e, NULL);
  /* the folded bytes of this model (a local: models may be prepared at once) */
  size_t lim = ox_memory_limit() / 16;
  fold_acc acc = {o, 0, lim < FOLD_BUDGET ? lim : FOLD_BUDGET, o->release_packed ? ox_release_new(a, m) : NULL};
  return prepare_nodes(a, m, g, NULL, g->nnode, g->node, m->nopset, m->opset, g->nout, go, 0, &consts,
                       &acc, e);
}

int ox_prepare_with(ox_arena *a, ox_model *m, const ox_run_opts *opts, ox_err *e) {
  /* a second preparation would pack initializers whose bytes are gone */
  if (m->nreleased)
    return ox_fail(e, OX_EINPUT, "internal error: the model gave back weights it had packed; it cannot be "
                                 "prepared again");
  /* the deadline and the threads alone: preparing runs no trace and no hook */
  ox_run_opts po = {0};
  if (opts) {
    po.deadline_us = opts->deadline_us;
    po.timeout_s = opts->timeout_s;
    po.timeout_source = opts->timeout_source;
    po.threads = opts->threads;
    po.release_packed = opts->release_packed;
  }
  /* folded values are counted as a run's are, so that one a later fold
   * consumes can be given back (fold_consumed) */
  ox_live_begin(a);
  int rc = prepare(a, m, &po, e);
  ox_live_end(a);
  return rc;
}

int ox_prepare(ox_arena *a, ox_model *m, ox_err *e) { return ox_prepare_with(a, m, NULL, e); }

/* ---- running ---- */

static int run_nodes(ox_arena *a, const ox_model *m, int nnode, const ox_node *nodes,
                     ox_scope *sc, int depth, ox_err *e);

static void mask_names(uint64_t mask, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (int d = 1; d < OX_DTYPE_MAX && at + 1 < n; d++)
    if (mask & (UINT64_C(1) << d))
      at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", ox_dtypes[d].onnx_name);
}

/* The checks every kernel would otherwise repeat: input count and T. */
static int check_inputs(const ox_node *n, int nin, ox_value **in, ox_err *e) {
  const ox_kernel *k = n->k;
  int given = nin;
  while (given > 0 && !in[given - 1]) given--; /* trailing missing optionals */
  if (given < k->min_in || (k->max_in >= 0 && given > k->max_in)) {
    if (k->max_in < 0)
      return ox_fail(e, OX_EINPUT, "takes at least %d inputs, got %d", k->min_in, given);
    if (k->min_in == k->max_in)
      return ox_fail(e, OX_EINPUT, "takes %d input%s, got %d", k->min_in, k->min_in == 1 ? "" : "s", given);
    return ox_fail(e, OX_EINPUT, "takes %d to %d inputs, got %d", k->min_in, k->max_in, given);
  }
  for (int i = 0; i < k->min_in && i < nin; i++)
    if (!in[i]) return ox_fail(e, OX_EINPUT, "input %d is required but missing", i);
  if (k->types && k->tin >= 0 && k->tin < nin && in[k->tin]) {
    const ox_value *v = in[k->tin];
    ox_dtype dt = v->kind == OX_TENSOR ? v->u.t.dt : ox_type_leaf(v->type);
    if (dt && !(k->types & (UINT64_C(1) << dt))) {
      char allowed[1024], desc[128];
      mask_names(k->types, allowed, sizeof allowed);
      int later = ox_registry_type_since(k, dt); /* a later version that allows it */
      if (later)
        return ox_fail(e, OX_EINPUT, "input %d '%s' is %s; its element type must be one of %s "
                       "(%s allows %s from opset %d)", k->tin, n->in[k->tin],
                       ox_value_desc(v, desc, sizeof desc), allowed, k->op, ox_dtypes[dt].onnx_name, later);
      return ox_fail(e, OX_EINPUT, "input %d '%s' is %s; its element type must be one of %s",
                     k->tin, n->in[k->tin], ox_value_desc(v, desc, sizeof desc), allowed);
    }
  }
  return 0;
}

/* A call to a model-local function: a fresh scope (functions see no outer
 * names), formal inputs bound to the actual ones, attribute references
 * (ref_attr_name) replaced by the caller's attributes or the defaults. */
static int run_function(ox_arena *a, const ox_model *m, const ox_node *call, run_state *rs, ox_value **in,
                        ox_value **out, int depth, ox_err *e) {
  const ox_function *f = call->fn;
  if (depth > 64) return ox_fail(e, OX_EINPUT, "function calls nest more than 64 deep");
  ox_scope sc;
  if (!scope_init(a, &sc, NULL, count_outputs(f->nnode, f->node) + f->nin))
    return ox_oom(e, NULL);
  sc.run = rs;
  for (int i = 0; i < f->nin; i++)
    if (i < call->nin && in[i] && !scope_set(a, &sc, f->in[i], in[i]))
      return ox_oom(e, NULL);
  ox_node *body = ox_alloc_array(a, f->nnode, sizeof *body);
  if (!body && f->nnode) return ox_oom(e, NULL);
  for (int i = 0; i < f->nnode; i++) {
    body[i] = f->node[i];
    ox_attr *at = ox_alloc_array(a, body[i].nattr, sizeof *at);
    int na = 0;
    for (int j = 0; j < body[i].nattr; j++) {
      const ox_attr *src = &body[i].attr[j];
      if (!src->ref_attr_name) {
        at[na++] = *src;
        continue;
      }
      const ox_attr *got = ox_node_attr(call, src->ref_attr_name);
      for (int d = 0; !got && d < f->ndefault; d++)
        if (!strcmp(f->attr_default[d].name, src->ref_attr_name)) got = &f->attr_default[d];
      if (got) {
        at[na] = *got;
        at[na++].name = src->name;
      }
    }
    body[i].attr = at;
    body[i].nattr = na;
  }
  int rc = run_nodes(a, m, f->nnode, body, &sc, depth + 1, e);
  if (rc) return rc;
  for (int i = 0; i < f->nout && i < call->nout; i++) {
    out[i] = scope_get(&sc, f->out[i]);
    if (!out[i] && call->out[i][0])
      return ox_fail(e, OX_EINPUT, "function '%s' did not produce its output '%s'", f->name, f->out[i]);
  }
  return 0;
}

/* ---- --trace and --time ---- */

static void trace_value(FILE *f, const ox_model *m, const char *name, const ox_value *v) {
  char d[128], sh[128];
  fprintf(f, "%s: %s", name, ox_value_desc(v, d, sizeof d));
  if (!v) return;
  if (v->kind == OX_SEQUENCE) fprintf(f, " len %lld", (long long)v->u.seq.n);
  if (v->kind == OX_OPTIONAL) fprintf(f, v->u.opt ? " present" : " empty");
  if (v->kind != OX_TENSOR) return;
  const ox_tensor *t = &v->u.t;
  fprintf(f, " %s", ox_shape_str(t->rank, t->dims, sh, sizeof sh));
  if (t->dt == OX_STRING || !t->n) return;
  if (ox_model_released(m, t->data)) { /* its bytes are gone: only its packed form is kept */
    fprintf(f, " (packed when the model was loaded; the original was given back)");
    return;
  }
  double mn = 0, mx = 0;
  for (int64_t i = 0; i < t->n; i++) {
    double x = ox_load_f64(t->dt, t->data, i);
    if (!i || x < mn) mn = x;
    if (!i || x > mx) mx = x;
  }
  fprintf(f, " min %.6g max %.6g [", mn, mx);
  for (int64_t i = 0; i < t->n && i < 4; i++) fprintf(f, "%s%.6g", i ? ", " : "", ox_load_f64(t->dt, t->data, i));
  fprintf(f, "%s]", t->n > 4 ? ", ..." : "");
}

/* OX_TRACE_SUMMARY: per op (and version), the nodes run and their own
 * time; the first output that holds NaN or Inf. ox_mem_ memory, freed when
 * the summary is written. */
typedef struct {
  const char *op, *domain;
  int version;
  int64_t count;
  double us;
} trace_op;
typedef struct trace_sum {
  trace_op *ops;
  int n, cap;
  int64_t nodes, fused; /* run; computed by the node they were fused into */
  const ox_node *bad; /* the first node with a NaN or Inf output, its output index and counts */
  int bad_out, bad_depth;
  int64_t nans, infs;
} trace_sum;

/* NaN and Inf in v (a floating-point tensor; 0 for anything else) */
static void count_nonfinite(const ox_value *v, int64_t *nans, int64_t *infs) {
  *nans = *infs = 0;
  if (!v || v->kind != OX_TENSOR || !ox_dtype_is_float(v->u.t.dt)) return;
  const ox_tensor *t = &v->u.t;
  for (int64_t i = 0; i < t->n; i++) {
    double x = t->dt == OX_FLOAT ? ((const float *)t->data)[i] : ox_load_f64(t->dt, t->data, i);
    if (x != x) ++*nans;
    else if (x - x != 0) ++*infs;
  }
}

static int sum_node(trace_sum *s, const ox_node *n, int depth, double us, ox_value **out, ox_err *e) {
  int i = 0;
  while (i < s->n && !(s->ops[i].version == n->version && !strcmp(s->ops[i].op, n->op) &&
                       !strcmp(s->ops[i].domain, n->domain)))
    i++;
  if (i == s->n) {
    if (s->n == s->cap) {
      int cap = s->cap ? 2 * s->cap : 32;
      trace_op *ops = ox_mem_realloc(s->ops, (size_t)cap * sizeof *ops);
      if (!ops) return ox_oom(e, "for the trace's summary");
      s->ops = ops, s->cap = cap;
    }
    s->ops[s->n++] = (trace_op){n->op, n->domain, n->version, 0, 0};
  }
  s->ops[i].count++;
  s->ops[i].us += us;
  s->nodes++;
  for (int k = 0; !s->bad && k < n->nout; k++) {
    if (!n->out[k][0]) continue;
    count_nonfinite(out[k], &s->nans, &s->infs);
    if (s->nans || s->infs) s->bad = n, s->bad_out = k, s->bad_depth = depth;
  }
  return 0;
}

static int by_time(const void *x, const void *y) {
  const trace_op *a = x, *b = y;
  return a->us != b->us ? (a->us < b->us ? 1 : -1) : a->count != b->count ? (a->count < b->count ? 1 : -1)
                                                                        : strcmp(a->op, b->op);
}

/* The summary, then its memory goes. */
static void sum_write(FILE *f, trace_sum *s, int timed) {
  if (timed) qsort(s->ops, (size_t)s->n, sizeof *s->ops, by_time);
  else {
    for (int i = 0; i < s->n; i++) s->ops[i].us = (double)s->ops[i].count; /* by count */
    qsort(s->ops, (size_t)s->n, sizeof *s->ops, by_time);
  }
  fprintf(f, "summary: %lld node%s run, by op%s:\n", (long long)s->nodes, s->nodes == 1 ? "" : "s",
          timed ? " (time: the nodes' wall time; an If's, Loop's or Scan's includes its subgraph's nodes)" : "");
  if (s->fused)
    fprintf(f, "  (and %lld node%s computed by the Conv %s fused into, in its time)\n", (long long)s->fused,
            s->fused == 1 ? "" : "s", s->fused == 1 ? "it was" : "they were");
  for (int i = 0; i < s->n; i++) {
    const trace_op *o = &s->ops[i];
    char op[160];
    snprintf(op, sizeof op, "%s%s%s-%d", o->domain, o->domain[0] ? "." : "", o->op, o->version);
    if (timed) fprintf(f, "  %12.3f ms %7lld  %s\n", o->us / 1e3, (long long)o->count, op);
    else fprintf(f, "  %7lld  %s\n", (long long)o->count, op);
  }
  if (s->bad)
    fprintf(f, "first NaN or Inf: node '%s' %s-%d%s, output %d '%s': %lld NaN, %lld Inf\n", s->bad->name,
            s->bad->op, s->bad->version, s->bad_depth ? " (in a subgraph)" : "", s->bad_out,
            s->bad->out[s->bad_out], (long long)s->nans, (long long)s->infs);
  else
    fprintf(f, "no node's output holds NaN or Inf\n");
  ox_mem_free(s->ops);
  s->ops = NULL;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ---- --timeout ---- */

double ox_deadline_us(double seconds) { return seconds > 0 ? now_us() + seconds * 1e6 : 0; }

int ox_check_time(const ox_run_opts *o, ox_err *e) {
  if (!o) return 0;
  if (o->deadline_us && now_us() >= o->deadline_us)
    return ox_fail(e, OX_EINPUT, "the time limit of %g s%s%s%s is reached", o->timeout_s,
                   o->timeout_source ? " (" : "", o->timeout_source ? o->timeout_source : "",
                   o->timeout_source ? ")" : "");
  return o->check ? o->check(o->check_arg, e) : 0;
}

/* Liveness (see plan_liveness and ox_live_* in core/arena.h), once node n has
 * run and its outputs are bound: count each output as a holder of its
 * memory, count the values that died at n as holders no more (giving back
 * memory nobody else holds), and give back what n allocated that no output
 * holds (its scratch, outputs nobody reads). An output that is not a plain
 * tensor (a sequence, an optional, a map, strings) can hold memory the
 * evaluator cannot follow: nothing more is given back in this run. */
static void live_after(ox_arena *a, const ox_node *n, ox_scope *sc, ox_value **out, uint64_t born,
                       uint64_t done) {
  if (!ox_live_on(a)) return;
  for (int i = 0; i < n->nout; i++) {
    const ox_value *v = out[i];
    if (!v || !n->out[i][0]) continue;
    if (v->kind != OX_TENSOR || v->u.t.dt == OX_STRING) {
      ox_live_freeze(a);
      return;
    }
    ox_live_ref(a, v->u.t.data);
  }
  for (int i = 0; i < n->ndies; i++) {
    const ox_value *v = scope_get(sc, n->dies[i]);
    if (v && v->kind == OX_TENSOR) ox_live_unref(a, v->u.t.data, 1);
  }
  ox_live_sweep(a, born, done);
}

/* Values a graph run hands to its caller (its outputs; or, for a subgraph,
 * its inputs back) stop being counted by it, without being given back: the
 * caller counts them as its node's outputs, or holds them itself. */
static void live_drop(ox_arena *a, int n, ox_value **v) {
  for (int i = 0; i < n; i++)
    if (v[i] && v[i]->kind == OX_TENSOR) ox_live_unref(a, v[i]->u.t.data, 0);
}

/* Offer the memory of the inputs n is the last reader of to its kernel (an
 * elementwise op may write its output there: ox_live_take); not an input
 * the node takes twice (Sum(x, y, x) reads x again after writing), and not
 * while --trace prints the inputs after the node has run. */
static void offer_dying(ox_arena *a, const ox_run_opts *o, const ox_node *n, ox_value **in) {
  ox_live_offers_end(a); /* a subgraph's node: nothing of its caller's */
  if (!n->ndies || (o->trace & OX_TRACE_NODES) || !ox_live_on(a)) return;
  for (int i = 0; i < n->nin; i++) {
    if (!in[i] || in[i]->kind != OX_TENSOR || in[i]->u.t.dt == OX_STRING) continue;
    int twice = 0;
    for (int j = 0; j < n->nin && !twice; j++)
      twice = j != i && in[j] && in[j]->kind == OX_TENSOR && in[j]->u.t.data == in[i]->u.t.data;
    if (twice) continue;
    for (int d = 0; d < n->ndies; d++)
      if (n->dies[d] == n->in[i] || !strcmp(n->dies[d], n->in[i])) {
        ox_live_offer(a, in[i]->u.t.data);
        break;
      }
  }
}

/* A node folded when the model was prepared whose values only other folds
 * read (ox_node.elided) is not run: its outputs are bound to nothing, so that
 * they hide an outer name as they would have. Under --trace or a node hook
 * (--save-intermediates) it runs as any node, for its values to be seen. */
static int skip_elided(ox_arena *a, const ox_node *n, ox_scope *sc, ox_err *e) {
  const ox_run_opts *o = sc->run->o;
  if (!n->elided || o->trace || o->hook) return 0;
  for (int i = 0; i < n->nout; i++)
    if (n->out[i][0] && !scope_set(a, sc, n->out[i], NULL)) {
      ox_oom(e, NULL);
      return -1;
    }
  return 1;
}

/* Fusion is off while --trace prints values or a node hook saves them: every
 * node runs on its own, for its values to be seen. */
static int fusing(const ox_run_opts *o) { return !(o->trace & OX_TRACE_NODES) && !o->hook; }

/* A follower whose head computed it (its group's last value is bound) is
 * not run; the values it was the last reader of die here as they would
 * have. */
static int skip_fused(ox_arena *a, const ox_node *n, ox_scope *sc, int depth) {
  const ox_run_opts *o = sc->run->o;
  if (!n->fused_into || !fusing(o) || !scope_get(sc, n->fused_into->epi->final)) return 0;
  if (sc->run->sum) /* the summary counts it */
    sc->run->sum->fused++;
  else if (o->trace & OX_TRACE_TIME)
    fprintf(o->trace_file ? o->trace_file : stderr, "%*s     fused  node '%s' %s-%d (computed by node '%s')\n",
            depth * 2, "", n->name, n->op, n->version, n->fused_into->name);
  if (!ox_live_on(a)) return 1;
  for (int i = 0; i < n->ndies; i++) {
    const ox_value *v = scope_get(sc, n->dies[i]);
    if (v && v->kind == OX_TENSOR) ox_live_unref(a, v->u.t.data, 1);
  }
  return 1;
}

static int run_node(ox_arena *a, const ox_model *m, const ox_node *n, ox_scope *sc, int depth,
                    ox_err *e) {
  int skip = skip_elided(a, n, sc, e);
  if (skip) return skip < 0 ? e->code : 0;
  if (skip_fused(a, n, sc, depth)) return 0;
  run_state *rs = sc->run;
  const ox_run_opts *o = rs->o;
  /* the followers fused into this node, their residuals bound */
  ox_epi_bound eb = {0};
  if (n->epi && fusing(o) && !n->folded) {
    eb.e = n->epi;
    for (int i = 0; i < n->epi->nstep; i++)
      for (int k = 0; k < n->epi->step[i].nin; k++)
        if (n->epi->step[i].in[k].kind == OX_EPI_FULL) {
          const ox_value *v = scope_get(sc, n->epi->step[i].in[k].name);
          eb.full[i][k] = v && v->kind == OX_TENSOR ? &v->u.t : NULL;
        }
  }
  ox_value **in = ox_alloc_array(a, n->nin ? n->nin : 1, sizeof *in);
  ox_value **out = ox_alloc_array(a, n->nout ? n->nout : 1, sizeof *out);
  if (!in || !out) return ox_oom(e, NULL);
  /* What the liveness sweep may give back is what the kernel allocates
   * between born and done: never the arrays above, nor the scope's tables
   * as they grow to take the outputs below (core/arena.h). */
  uint64_t born = ox_live_now(), done = born;
  /* a folded node reads nothing (its inputs only for --trace) */
  for (int i = 0; i < n->nin && (!n->folded || o->trace); i++) {
    if (!n->in[i][0]) continue; /* a missing optional input */
    in[i] = scope_get(sc, n->in[i]);
    if (!in[i])
      return ox_fail(e, OX_EINPUT, "input %d '%s' has no value (not a graph input, an "
                     "initializer or an earlier node's output)", i, n->in[i]);
  }
  int rc;
  if (n->fn) {
    rc = run_function(a, m, n, rs, in, out, depth, e);
    done = ox_live_now();
  } else {
    rc = n->folded ? 0 : check_inputs(n, n->nin, in, e);
    if (!rc) {
      ox_ctx c = {a, e, n, n->version, m, sc, n->state, NULL, o, o->threads, eb.e ? &eb : NULL};
      /* a node of a function body whose attributes refer to the caller's:
       * its hook runs now, for this call (in the run's memory) */
      if (!n->state && n->k->load && !n->folded) rc = ox_node_load(&c);
      int trace = o->trace;
      double t0 = trace ? now_us() : 0, aside0 = rs->aside_us;
      if (n->folded) { /* computed when the model was prepared */
        memcpy(out, n->folded, (size_t)n->nout * sizeof *out);
      } else if (!rc) {
        offer_dying(a, o, n, in);
        rc = n->k->fn(&c, n->nin, in, n->nout, out);
      }
      ox_live_offers_end(a);
      done = ox_live_now();
      if (!rc && e->code) rc = e->code; /* an attribute getter complained */
      FILE *f = o->trace_file ? o->trace_file : stderr;
      double tw = trace ? now_us() : 0; /* the node's own time ends; writing begins */
      if (rs->sum) { /* OX_TRACE_SUMMARY: counted, written at the end */
        if (!rc) rc = sum_node(rs->sum, n, depth, tw - t0 - (rs->aside_us - aside0), out, e);
      } else if (trace & OX_TRACE_TIME) {
        fprintf(f, "%*s%10.1f us  node '%s' %s-%d\n", depth * 2, "", tw - t0 - (rs->aside_us - aside0), n->name,
                n->op, n->version);
      }
      if ((trace & OX_TRACE_NODES) && !rc && !rs->sum) {
        fprintf(f, "%*snode '%s' %s-%d\n", depth * 2, "", n->name, n->op, n->version);
        for (int i = 0; i < n->nin; i++)
          if (in[i]) {
            fprintf(f, "%*s  in  ", depth * 2, "");
            trace_value(f, m, n->in[i], in[i]);
            fputc('\n', f);
          }
        for (int i = 0; i < n->nout; i++)
          if (n->out[i][0]) {
            fprintf(f, "%*s  out ", depth * 2, "");
            trace_value(f, m, n->out[i], out[i]);
            fputc('\n', f);
          }
      }
      if (trace) rs->aside_us += now_us() - tw;
      /* a trace that cannot be written (a full disk) stops the run */
      if (!rc && trace && ferror(f)) rc = ox_fail(e, OX_EINPUT, "cannot write the trace");
    }
  }
  if (rc) return rc;
  for (int i = 0; i < n->nout; i++) {
    if (!n->out[i][0]) continue;
    if (!out[i]) return ox_fail(e, OX_EINPUT, "produced no value for output %d '%s'", i, n->out[i]);
    /* with its followers applied, output 0 is their group's last value */
    const char *name = i == 0 && eb.done ? n->epi->final : n->out[i];
    if (!scope_set(a, sc, name, out[i])) return ox_oom(e, NULL);
  }
  live_after(a, n, sc, out, born, done);
  if (!o->hook) return 0;
  double th = o->trace ? now_us() : 0;
  rc = o->hook(o->hook_arg, n, depth, out, e);
  if (o->trace) rs->aside_us += now_us() - th;
  return rc;
}

static int run_nodes(ox_arena *a, const ox_model *m, int nnode, const ox_node *nodes,
                     ox_scope *sc, int depth, ox_err *e) {
  int rc = 0;
  ox_live_begin(a);
  for (int i = 0; i < nnode && !rc; i++) {
    const ox_node *n = &nodes[i];
    rc = ox_check_time(sc->run->o, e);
    if (!rc) rc = run_node(a, m, n, sc, depth, e);
    if (rc) {
      /* a message from inside a subgraph already reads "> body node ...": join
       * it as "node 'loop0' Loop-16 > body node 'add1' Add-14: ..." */
      const char *sep = e->msg[0] == '>' ? " " : ": ";
      if (n->fn) ox_prefix(e, "node '%s' %s (function)%s", n->name, n->op, sep);
      else ox_prefix(e, "node '%s' %s-%d%s", n->name, n->op, n->version, sep);
    }
  }
  /* what the graph returns: counted by the caller from here on */
  for (int i = 0; i < nnode && !rc && ox_live_on(a); i++)
    for (int k = 0; k < nodes[i].nkept; k++) {
      ox_value *v = scope_get(sc, nodes[i].kept[k]);
      live_drop(a, 1, &v);
    }
  ox_live_end(a);
  return rc;
}

/* Declared type and shape against the value given. */
static int check_declared(const ox_valueinfo *vi, const ox_value *v, ox_err *e) {
  char want[160], got[160];
  if (vi->type && !ox_value_fits(v, vi->type))
    return ox_fail(e, OX_EINPUT, "input '%s' is %s; the model declares %s", vi->name,
                   ox_value_desc(v, got, sizeof got), ox_type_str(vi->type, want, sizeof want));
  if (v->kind == OX_TENSOR && vi->rank >= 0) {
    const ox_tensor *t = &v->u.t;
    if (t->rank != vi->rank)
      return ox_fail(e, OX_EINPUT, "input '%s' has rank %d (shape %s); the model declares rank %d",
                     vi->name, t->rank, ox_shape_str(t->rank, t->dims, got, sizeof got), vi->rank);
    for (int d = 0; d < t->rank; d++)
      if (vi->dims[d] >= 0 && vi->dims[d] != t->dims[d])
        return ox_fail(e, OX_EINPUT, "input '%s' has shape %s; the model declares %s", vi->name,
                       ox_shape_str(t->rank, t->dims, got, sizeof got),
                       ox_shape_str(vi->rank, vi->dims, want, sizeof want));
  }
  return 0;
}

static int bind_graph(ox_arena *a, const ox_graph *g, ox_scope *sc, ox_value **inputs, ox_err *e) {
  for (int i = 0; i < g->ninit; i++)
    if (!scope_set(a, sc, g->init_name[i], g->init[i])) return ox_oom(e, NULL);
  for (int i = 0; i < g->nin; i++) {
    ox_value *v = inputs ? inputs[i] : NULL;
    if (!v) {
      if (scope_get(sc, g->in[i].name)) continue; /* an initializer (or outer value) */
      /* An optional-typed input may be left out: it is an empty optional. */
      if (g->in[i].type && g->in[i].type->kind == OX_OPTIONAL) {
        OX_TRY(ox_opt_new(a, g->in[i].type->inner, NULL, &v, e));
      } else {
        return ox_fail(e, OX_EINPUT, "input '%s' was not given", g->in[i].name);
      }
    } else {
      OX_TRY(check_declared(&g->in[i], v, e));
    }
    if (!scope_set(a, sc, g->in[i].name, v)) return ox_oom(e, NULL);
  }
  return 0;
}

static int collect_outputs(const ox_graph *g, ox_scope *sc, ox_value **outputs, ox_err *e) {
  for (int i = 0; i < g->nout; i++) {
    outputs[i] = scope_get(sc, g->out[i].name);
    if (!outputs[i])
      return ox_fail(e, OX_EINPUT, "graph output '%s' was not produced", g->out[i].name);
  }
  return 0;
}

static int run_graph(ox_arena *a, const ox_model *m, run_state *rs, ox_value **inputs, ox_value **outputs,
                     ox_err *e) {
  const ox_graph *g = m->graph;
  ox_scope sc;
  if (!scope_init(a, &sc, NULL, graph_names(g)))
    return ox_oom(e, NULL);
  sc.run = rs;
  OX_TRY(bind_graph(a, g, &sc, inputs, e));
  OX_TRY(run_nodes(a, m, g->nnode, g->node, &sc, 0, e));
  return collect_outputs(g, &sc, outputs, e);
}

int ox_run_with(ox_arena *a, const ox_model *m, const ox_run_opts *opts, ox_value **inputs,
                ox_value **outputs, ox_err *e) {
  run_state rs = {opts ? opts : &no_opts, 0, NULL};
  trace_sum sum = {0};
  int t = rs.o->trace;
  if ((t & OX_TRACE_SUMMARY) && (t & (OX_TRACE_NODES | OX_TRACE_TIME))) rs.sum = &sum;
  int rc = run_graph(a, m, &rs, inputs, outputs, e);
  if (rs.sum) { /* also after a failure: what ran before it */
    FILE *f = rs.o->trace_file ? rs.o->trace_file : stderr;
    sum_write(f, &sum, t & OX_TRACE_TIME);
    if (!rc && ferror(f)) rc = ox_fail(e, OX_EINPUT, "cannot write the trace");
  }
  return rc;
}

int ox_run(ox_arena *a, const ox_model *m, ox_value **inputs, ox_value **outputs, ox_err *e) {
  return ox_run_with(a, m, NULL, inputs, outputs, e);
}

int ox_run_subgraph(ox_ctx *c, const char *label, const ox_graph *g, int nin, ox_value **ins,
                    ox_value **outs) {
  ox_err *e = c->err;
  if (nin != g->nin)
    return ox_fail(e, OX_EINPUT, "subgraph '%s' takes %d inputs, got %d", g->name, g->nin, nin);
  ox_scope sc;
  if (!scope_init(c->a, &sc, c->scope, graph_names(g)))
    return ox_oom(e, NULL);
  /* a kernel called outside a run (a unit test's context): its options */
  run_state own = {c->run ? c->run : &no_opts, 0, NULL};
  if (!sc.run) sc.run = &own;
  for (int i = 0; i < g->ninit; i++)
    if (!scope_set(c->a, &sc, g->init_name[i], g->init[i])) return ox_oom(e, NULL);
  for (int i = 0; i < nin; i++) {
    ox_value *v = ins[i];
    /* A plain value bound to an input declared optional(T) is that optional
     * with an element: a Loop body may declare its carried value optional and
     * produce the plain value (test_loop16_seq_none). */
    const ox_type *t = g->in[i].type;
    if (v && t && t->kind == OX_OPTIONAL && v->kind != OX_OPTIONAL)
      OX_TRY(ox_opt_new(c->a, t->inner, v, &v, e));
    if (v && !scope_set(c->a, &sc, g->in[i].name, v)) return ox_oom(e, NULL);
  }
  /* the inputs may be the kernel's own values, which no scope counts: held
   * while the graph runs (an Identity of one dying inside must not give its
   * memory back) */
  ox_live_begin(c->a);
  for (int i = 0; i < nin; i++)
    if (ins[i] && ins[i]->kind == OX_TENSOR) ox_live_ref(c->a, ins[i]->u.t.data);
  int rc = run_nodes(c->a, c->model, g->nnode, g->node, &sc, 1, e);
  live_drop(c->a, nin, ins);
  ox_live_end(c->a);
  if (rc) {
    ox_prefix(e, "> %s ", label);
    return rc;
  }
  return collect_outputs(g, &sc, outs, e);
}
