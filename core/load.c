/* core/load.c: running a row's load hook (core/registry.h, ox_load_fn) and
 * the constants a hook may read (ox_const_input). */
#include <string.h>

#include "load.h"

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
