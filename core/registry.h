/* core/registry.h: the op registry, one row per (domain, op, version range, types).
 *
 * Each ops/<family>.c ends with its own table; core/registry.c lists the
 * families once. Adding an op means editing one file. */
#ifndef OX_REGISTRY_H
#define OX_REGISTRY_H

#include "graph.h"

#define OX_LATEST 1000

/* What a kernel sees. */
typedef struct ox_ctx {
  ox_arena *a;
  ox_err *err;
  const ox_node *node;
  int version;              /* the node's resolved opset version */
  const ox_model *model;
  struct ox_scope *scope;   /* for ops with subgraphs */
} ox_ctx;

/* in[i] is NULL for a missing optional input; the kernel sets out[0..nout-1]
 * (nout is what the node lists, empty names included). */
typedef int (*ox_kernel_fn)(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);

typedef struct ox_kernel {
  const char *domain; /* "" for ai.onnx */
  const char *op;
  int since, until;   /* inclusive; until = OX_LATEST for the current row */
  int tin;            /* the input whose (leaf) dtype `types` constrains; -1: no input
                       * is checked (for ops without inputs, types lists the output
                       * types the kernel can make, for `onnxop ops`) */
  uint64_t types;     /* OX_T() bits; 0: no constraint */
  int min_in, max_in; /* input count range; max_in -1: variadic */
  ox_kernel_fn fn;
} ox_kernel;

/* The families (each table ends with a row whose op is NULL). */
typedef struct { const char *family; const ox_kernel *rows; } ox_family;
extern const ox_family ox_families[];

/* The row for (domain, op) at `opset` (the model's import for the domain), or
 * NULL. *since_out receives the row's since-version. */
const ox_kernel *ox_registry_find(const char *domain, const char *op, int64_t opset);
/* Whether the op exists at any version (for "unsupported version" messages). */
int ox_registry_has_op(const char *domain, const char *op);
/* The lowest since and highest until over the op's rows; 0 when it has none. */
int ox_registry_span(const char *domain, const char *op, int *lo, int *hi);
/* Why no row serves (domain, op) at opset: for "unsupported operator" messages. */
const char *ox_registry_why(const char *domain, const char *op, int64_t opset, char *buf, size_t n);


/* ---- attribute access for kernels ----
 * A missing attribute gives the default; one of the wrong type sets c->err
 * (the evaluator checks it after the kernel) and gives the default. */
int64_t ox_attr_int(ox_ctx *c, const char *name, int64_t def);
float ox_attr_float(ox_ctx *c, const char *name, float def);
const char *ox_attr_string(ox_ctx *c, const char *name, const char *def);
/* ints: *n receives the count; NULL (and *n = -1) when absent. */
const int64_t *ox_attr_ints(ox_ctx *c, const char *name, int64_t *n);
const ox_attr *ox_attr_find(ox_ctx *c, const char *name);
/* "int", "floats", "graph"... for messages. */
const char *ox_attr_type_name(ox_attr_type t);

/* Message helper: "input 0 'A'" naming the node's input (valid until four
 * more calls, so up to four may appear in one message). */
const char *ox_input_name(ox_ctx *c, int i);

#endif
