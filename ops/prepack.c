/* ops/prepack.c: ox_prepack (core/kernel.h), the last step of ox_prepare:
 * each node whose weights are an initializer gets what its kernel would
 * otherwise redo on every call (Conv and ConvInteger: W packed for the
 * GEMM, ops/conv_paths.c; MatMul: B packed, ops/matmul.c). The deadline of
 * --timeout (ox_prepare_with) is checked before each node. */
#include <string.h>

#include "core/eval.h"
#include "core/kernel.h"
#include "ops/conv.h"
#include "ops/prepack.h"

/* The graphs from g out to the main graph, for the initializers a node
 * sees; each with a map (made when first needed) from a name to what
 * defines it in that graph: initializer i as i, node j's first output as
 * ninit + j. */
typedef struct chain {
  const ox_graph *g;
  struct chain *up;
  ox_namemap defs;
  int made;
} chain;

static int make_defs(ox_arena *a, chain *ch) {
  const ox_graph *g = ch->g;
  if (ox_namemap_init(a, &ch->defs, (int64_t)g->ninit + g->nnode)) return -1;
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

/* The constant tensor named `name` as a node of the innermost graph of ch
 * sees it (*t, NULL when none): an initializer, or the value of a Constant
 * node (whose output is a view of it), of that graph first, then of the
 * enclosing ones. A graph input that a run binds over an initializer is
 * caught then: the kernel uses the preparation only for this very tensor.
 * -1 when out of memory. */
static int const_of(ox_arena *a, chain *ch, const char *name, const ox_tensor **t) {
  *t = NULL;
  for (; ch; ch = ch->up) {
    const ox_graph *g = ch->g;
    if (!ch->made && make_defs(a, ch)) return -1;
    int i = ox_namemap_get(&ch->defs, name);
    if (i < 0) continue;
    if (i < g->ninit) {
      if (g->init[i]->kind == OX_TENSOR) *t = &g->init[i]->u.t;
      return 0;
    }
    const ox_node *n = &g->node[i - g->ninit];
    if (strcmp(n->op, "Constant") || !ox_domain_eq(n->domain, "")) return 0;
    const ox_attr *v = ox_node_attr(n, "value");
    if (v && v->t && v->t->kind == OX_TENSOR) *t = &v->t->u.t;
    return 0;
  }
  return 0;
}

static int prepack_graph(ox_arena *a, ox_graph *g, chain *up, int depth, ox_err *e) {
  chain ch = {g, up, {0}, 0};
  if (depth > 64) return 0; /* ox_prepare refused deeper nesting already */
  for (int i = 0; i < g->nnode; i++) {
    ox_node *n = &g->node[i];
    if (ox_check_time(e)) {
      ox_prefix(e, "node '%s' %s-%d (preparing the model): ", n->name, n->op, n->version);
      return e->code;
    }
    for (int j = 0; j < n->nattr; j++) {
      const ox_attr *at = &n->attr[j];
      if (at->g) OX_TRY(prepack_graph(a, at->g, &ch, depth + 1, e));
      for (int64_t k = 0; k < at->n && at->graphs; k++)
        OX_TRY(prepack_graph(a, at->graphs[k], &ch, depth + 1, e));
    }
    if (n->k && ox_domain_eq(n->domain, "com.microsoft") && !strcmp(n->op, "MatMulNBits") && n->nin >= 2 &&
        n->in[1][0]) { /* ops/contrib_quant.c: B regrouped */
      const ox_tensor *w;
      if (const_of(a, &ch, n->in[1], &w)) return ox_oom(e, NULL);
      const ox_matmulnbits_prep *pp = NULL;
      if (w) OX_TRY(ox_matmulnbits_prepack(a, n, w, &pp, e));
      n->prep = pp;
      continue;
    }
    if (!n->k || !ox_domain_eq(n->domain, "") || n->nin < 2 || !n->in[1][0]) continue;
    int conv = !strcmp(n->op, "Conv") || !strcmp(n->op, "ConvInteger");
    if (!conv && strcmp(n->op, "MatMul")) continue;
    const ox_tensor *w;
    if (const_of(a, &ch, n->in[1], &w)) return ox_oom(e, NULL);
    if (!w) continue;
    if (conv) {
      const ox_conv_prep *pp = NULL;
      OX_TRY(ox_conv_prepack(a, n, w, &pp, e));
      n->prep = pp;
    } else {
      const ox_matmul_prep *pp = NULL;
      OX_TRY(ox_matmul_prepack(a, n, w, &pp, e));
      n->prep = pp;
    }
  }
  return 0;
}

int ox_prepack(ox_arena *a, ox_graph *g, ox_err *e) { return prepack_graph(a, g, NULL, 0, e); }
