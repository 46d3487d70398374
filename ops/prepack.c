/* ops/prepack.c: ox_prepack (core/kernel.h), the last step of ox_prepare:
 * each node whose weights are an initializer gets what its kernel would
 * otherwise redo on every call (Conv and ConvInteger: W packed for the
 * GEMM, ops/conv_paths.c; MatMul: B packed, ops/matmul.c). */
#include <string.h>

#include "core/kernel.h"
#include "ops/conv.h"
#include "ops/prepack.h"

/* The graphs from g out to the main graph, for the initializers a node sees */
typedef struct chain { const ox_graph *g; const struct chain *up; } chain;

/* The constant tensor named `name` as a node of the innermost graph of ch
 * sees it: an initializer, or the value of a Constant node (whose output is
 * a view of it), of that graph first, then of the enclosing ones; NULL when
 * none. A graph input that a run binds over an initializer is caught then:
 * the kernel uses the preparation only for this very tensor. */
static const ox_tensor *const_of(const chain *ch, const char *name) {
  for (; ch; ch = ch->up) {
    const ox_graph *g = ch->g;
    for (int i = 0; i < g->ninit; i++)
      if (!strcmp(g->init_name[i], name)) return g->init[i]->kind == OX_TENSOR ? &g->init[i]->u.t : NULL;
    for (int i = 0; i < g->nnode; i++) {
      const ox_node *n = &g->node[i];
      if (n->nout < 1 || strcmp(n->out[0], name)) continue;
      if (strcmp(n->op, "Constant") || !ox_domain_eq(n->domain, "")) return NULL;
      const ox_attr *v = ox_node_attr(n, "value");
      return v && v->t && v->t->kind == OX_TENSOR ? &v->t->u.t : NULL;
    }
  }
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
    const ox_tensor *w = const_of(&ch, n->in[1]);
    if (!w) continue;
    if (!strcmp(n->op, "Conv") || !strcmp(n->op, "ConvInteger")) {
      const ox_conv_prep *pp = NULL;
      OX_TRY(ox_conv_prepack(a, n, w, &pp, e));
      n->prep = pp;
    } else if (!strcmp(n->op, "MatMul")) {
      const ox_matmul_prep *pp = NULL;
      OX_TRY(ox_matmul_prepack(a, n, w, &pp, e));
      n->prep = pp;
    }
  }
  return 0;
}

int ox_prepack(ox_arena *a, ox_graph *g, ox_err *e) { return prepack_graph(a, g, NULL, 0, e); }
