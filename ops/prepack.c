/* ops/prepack.c: ox_prepack (core/kernel.h), the last step of ox_prepare:
 * each node whose weights are an initializer gets what its kernel would
 * otherwise redo on every call (Conv and ConvInteger: W packed for the
 * GEMM, ops/conv_paths.c). */
#include <string.h>

#include "core/kernel.h"
#include "ops/conv.h"

/* The graphs from g out to the main graph, for the initializers a node sees */
typedef struct chain { const ox_graph *g; const struct chain *up; } chain;

/* The initializer named `name` as node's graph sees it (its own graph's
 * first, then the enclosing ones'), or NULL. A name some node or graph
 * input could bind at run time instead is caught there: the kernel uses
 * the preparation only for this very value. */
static const ox_value *init_of(const chain *ch, const char *name) {
  for (; ch; ch = ch->up)
    for (int i = 0; i < ch->g->ninit; i++)
      if (!strcmp(ch->g->init_name[i], name)) return ch->g->init[i];
  return NULL;
}

static int prepack_graph(ox_arena *a, ox_graph *g, const chain *up, int depth, ox_err *e) {
  chain ch = {g, up};
  if (depth > 64) return 0; /* ox_prepare refused deeper nesting already */
  for (int i = 0; i < g->nnode; i++) {
    ox_node *n = &g->node[i];
    for (int j = 0; j < n->nattr; j++) {
      const ox_attr *at = &n->attr[j];
      if (at->g) OX_TRY(prepack_graph(a, at->g, &ch, depth + 1, e));
      for (int64_t k = 0; k < at->n && at->graphs; k++)
        OX_TRY(prepack_graph(a, at->graphs[k], &ch, depth + 1, e));
    }
    if (!n->k || !ox_domain_eq(n->domain, "") || n->nin < 2 || !n->in[1][0]) continue;
    if (strcmp(n->op, "Conv") && strcmp(n->op, "ConvInteger")) continue;
    const ox_value *w = init_of(&ch, n->in[1]);
    const ox_conv_prep *pp = NULL;
    if (w) OX_TRY(ox_conv_prepack(a, n, w, &pp, e));
    n->prep = pp;
  }
  return 0;
}

int ox_prepack(ox_arena *a, ox_graph *g, ox_err *e) { return prepack_graph(a, g, NULL, 0, e); }
