/* core/load.h: what the evaluator keeps for the load hooks (core/load.c):
 * the chain of graphs whose constants a node sees. */
#ifndef OX_LOAD_H
#define OX_LOAD_H

#include "registry.h"

/* One graph of the chain from a node's graph out to the main graph. */
typedef struct ox_consts {
  ox_arena *a;
  const ox_graph *g;
  struct ox_consts *up;
  ox_namemap defs; /* made when first needed */
  int made;
} ox_consts;
/* The link for graph g inside up (NULL: g is the main graph). */
void ox_consts_init(ox_consts *ch, ox_arena *a, const ox_graph *g, ox_consts *up);
/* Whether a node's attributes refer to a function caller's (ref_attr_name):
 * its hook runs at each call, once they are known. */
int ox_node_refers(const ox_node *n);

#endif
