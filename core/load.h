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
/* While the model is prepared: give back the memory of every main-graph
 * initializer of 64 KiB or more that only kernels which packed it read (each
 * reader's load hook set its bit in ox_ctx.packed_inputs; no graph input
 * may override it; it is no graph output; no subgraph names it), as soon
 * as its last reader is prepared, so that the originals and their packed
 * forms are never all held at once. Its pages read as zeros afterwards;
 * m->released lists them. For callers that never hand an initializer out
 * (the CLI's run and bench): a library user may ask for any initializer by
 * name. ox_release_new: the plan, NULL when nothing may go (or memory ran
 * out: then nothing goes); ox_release_node: main-graph node n has been
 * prepared (its hook has run). */
typedef struct ox_release ox_release;
ox_release *ox_release_new(ox_arena *a, ox_model *m);
void ox_release_node(ox_release *r, const ox_node *n);
/* Before main-graph node n's hook runs: the bits of the inputs that
 * ox_release_node would give back after it if the hook packs them (n their
 * last reader, reading each once; ox_ctx.discard_inputs); 0 for r NULL. */
unsigned ox_release_discardable(const ox_release *r, const ox_node *n);
/* Whether data is the data of an initializer ox_release_packed gave back. */
int ox_model_released(const ox_model *m, const void *data);

#endif
