/* core/graph.c: small queries on a loaded model. */
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
 * not inputs a user passes. */
int ox_graph_real_inputs(const ox_graph *g, int *idx) {
  int n = 0;
  for (int i = 0; i < g->nin; i++) {
    int is_init = 0;
    for (int j = 0; j < g->ninit && !is_init; j++)
      if (!strcmp(g->in[i].name, g->init_name[j])) is_init = 1;
    if (!is_init) idx[n++] = i;
  }
  return n;
}

const ox_attr *ox_node_attr(const ox_node *n, const char *name) {
  for (int i = 0; i < n->nattr; i++)
    if (!strcmp(n->attr[i].name, name)) return &n->attr[i];
  return NULL;
}
