/* core/load.c: running a row's load hook (core/registry.h, ox_load_fn) and
 * the constants a hook may read (ox_const_input). */
#include <string.h>

#include "load.h"
#include "sys.h"

/* The map (made when first needed) from a name to what defines it in one
 * graph: initializer i as i, node j's first output as ninit + j. */
static int make_defs(ox_consts *ch) {
  const ox_graph *g = ch->g;
  if (ox_namemap_init(ch->a, &ch->defs, (int64_t)g->ninit + g->nnode)) return -1;
  for (int i = 0; i < g->ninit + g->nnode; i++) {
    const ox_node *n = i < g->ninit ? NULL : &g->node[i - g->ninit];
    const char *name = n ? (n->nout > 0 ? n->out[0] : "") : g->init_name[i];
    if (!name[0]) continue;
    int *slot = ox_namemap_slot(&ch->defs, name);
    if (!slot) return -1;
    if (*slot < 0) *slot = i; /* the first definition, as a search in order finds it */
  }
  ch->made = 1;
  return 0;
}

void ox_consts_init(ox_consts *ch, ox_arena *a, const ox_graph *g, ox_consts *up) {
  *ch = (ox_consts){a, g, up, {0}, 0};
}

int ox_const_input(ox_ctx *c, int i, const ox_tensor **t) {
  *t = NULL;
  const ox_node *nd = c->node;
  if (!nd || i < 0 || i >= nd->nin || !nd->in[i][0]) return 0;
  const char *name = nd->in[i];
  for (ox_consts *ch = c->consts; ch; ch = ch->up) {
    const ox_graph *g = ch->g;
    if (!ch->made && make_defs(ch)) return ox_oom(c->err, NULL);
    int j = ox_namemap_get(&ch->defs, name);
    if (j < 0) continue;
    if (j < g->ninit) {
      if (g->init[j]->kind == OX_TENSOR) *t = &g->init[j]->u.t;
      return 0;
    }
    const ox_node *n = &g->node[j - g->ninit];
    if (strcmp(n->op, "Constant") || !ox_domain_eq(n->domain, "")) return 0;
    const ox_attr *v = ox_node_attr(n, "value");
    if (v && v->t && v->t->kind == OX_TENSOR) *t = &v->t->u.t;
    return 0;
  }
  return 0;
}

int ox_node_load(ox_ctx *c) {
  const ox_kernel *k = c->node ? c->node->k : NULL;
  c->state = NULL;
  if (!k || !k->load) return 0;
  void *st = NULL;
  int rc = k->load(c, &st);
  if (!rc && c->err->code) rc = c->err->code; /* an attribute getter complained */
  if (!rc && !st) /* a kernel with a hook reads its state: there must be one */
    return ox_fail(c->err, OX_EINPUT, "%s-%d's load hook made no state", k->op, k->since);
  c->state = st;
  return rc;
}

int ox_node_refers(const ox_node *n) {
  for (int j = 0; j < n->nattr; j++)
    if (n->attr[j].ref_attr_name) return 1;
  return 0;
}

/* ---- giving back what was packed ---- */

/* Whether a node of g's subgraphs (at any depth) reads `name`, or one of
 * them returns it. */
static int subgraphs_read(const ox_graph *g, const char *name) {
  for (int i = 0; i < g->nnode; i++) {
    const ox_node *n = &g->node[i];
    for (int j = 0; j < n->nattr; j++) {
      const ox_attr *at = &n->attr[j];
      int64_t ng = at->g ? 1 : at->graphs ? at->n : 0;
      for (int64_t q = 0; q < ng; q++) {
        const ox_graph *sg = at->g ? at->g : at->graphs[q];
        for (int k = 0; k < sg->nnode; k++)
          for (int x = 0; x < sg->node[k].nin; x++)
            if (!strcmp(sg->node[k].in[x], name)) return 1;
        for (int k = 0; k < sg->nout; k++)
          if (!strcmp(sg->out[k].name, name)) return 1;
        if (subgraphs_read(sg, name)) return 1;
      }
    }
  }
  return 0;
}

/* Whether initializer `name` of the main graph g may be given back once
 * its readers have packed it: no run can override it, none gets it back,
 * no subgraph sees it. */
static int may_give_back(const ox_graph *g, const char *name) {
  for (int i = 0; i < g->nin; i++)
    if (!strcmp(g->in[i].name, name)) return 0; /* a run may override it */
  for (int i = 0; i < g->nout; i++)
    if (!strcmp(g->out[i].name, name)) return 0;
  return !subgraphs_read(g, name);
}

/* The initializers that may go, each with its reads still to come. */
struct ox_release {
  ox_model *m;
  ox_namemap idx;   /* name -> initializer */
  int64_t *left;    /* per initializer: reads by main-graph nodes not yet prepared */
  unsigned char *no; /* a reader that did not pack it (or nothing may go) */
};

ox_release *ox_release_new(ox_arena *a, ox_model *m) {
  const ox_graph *g = m->graph;
  ox_release *r = ox_alloc(a, sizeof *r);
  if (!r || ox_namemap_init(a, &r->idx, g->ninit) ||
      !(r->left = ox_alloc_array(a, g->ninit + 1, sizeof *r->left)) ||
      !(r->no = ox_alloc(a, (size_t)g->ninit + 1)) ||
      !(m->released = ox_alloc_array(a, g->ninit + 1, sizeof *m->released)))
    return NULL;
  r->m = m;
  int any = 0;
  for (int i = 0; i < g->ninit; i++) {
    const ox_value *v = g->init[i];
    r->no[i] = v->kind != OX_TENSOR || v->u.t.dt == OX_STRING || !v->u.t.data ||
               (size_t)v->u.t.n * ox_dtype_size(v->u.t.dt) < ((size_t)64 << 10) ||
               !may_give_back(g, g->init_name[i]);
    int *slot = ox_namemap_slot(&r->idx, g->init_name[i]);
    if (!slot) return NULL;
    if (*slot < 0) *slot = i;
    any |= !r->no[i];
  }
  if (!any) return NULL;
  for (int i = 0; i < g->nnode; i++)
    for (int k = 0; k < g->node[i].nin; k++) {
      int j = ox_namemap_get(&r->idx, g->node[i].in[k]);
      if (j >= 0) r->left[j]++;
    }
  return r;
}

void ox_release_node(ox_release *r, const ox_node *n) {
  if (!r) return;
  ox_model *m = r->m;
  const ox_graph *g = m->graph;
  for (int k = 0; k < n->nin; k++) {
    int j = ox_namemap_get(&r->idx, n->in[k]);
    if (j < 0) continue;
    r->left[j]--;
    if (!n->k || n->fn || k >= 32 || !(n->packed_inputs >> k & 1u)) r->no[j] = 1;
    if (r->left[j] == 0 && !r->no[j]) { /* the last reader has packed it too */
      const ox_tensor *t = &g->init[j]->u.t;
      ox_sys_discard(t->data, (size_t)t->n * ox_dtype_size(t->dt));
      m->released[m->nreleased++] = t->data;
      r->no[j] = 1;
    }
  }
}

unsigned ox_release_discardable(const ox_release *r, const ox_node *n) {
  unsigned bits = 0;
  for (int k = 0; r && k < n->nin && k < 32; k++) {
    int j = ox_namemap_get(&r->idx, n->in[k]), reads = 0;
    if (j < 0 || r->no[j]) continue;
    for (int q = 0; q < n->nin; q++) reads += !strcmp(n->in[q], n->in[k]);
    if (reads == 1 && r->left[j] == 1) bits |= 1u << k;
  }
  return bits;
}

int ox_model_released(const ox_model *m, const void *data) {
  for (int i = 0; m && i < m->nreleased; i++)
    if (m->released[i] == data) return 1;
  return 0;
}
