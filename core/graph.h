/* core/graph.h: a loaded model, independent of protobuf-c.
 *
 * proto/model.c fills these from ModelProto; the evaluator reads them. All of
 * it lives in one arena. Names are NUL-terminated; an empty input name means a
 * missing optional input. */
#ifndef OX_GRAPH_H
#define OX_GRAPH_H

#include "value.h"

struct ox_graph;
struct ox_kernel;

/* AttributeProto.AttributeType ids */
typedef enum {
  OX_ATTR_UNDEFINED = 0, OX_ATTR_FLOAT = 1, OX_ATTR_INT = 2, OX_ATTR_STRING = 3,
  OX_ATTR_TENSOR = 4, OX_ATTR_GRAPH = 5, OX_ATTR_FLOATS = 6, OX_ATTR_INTS = 7,
  OX_ATTR_STRINGS = 8, OX_ATTR_TENSORS = 9, OX_ATTR_GRAPHS = 10,
  OX_ATTR_SPARSE_TENSOR = 11, OX_ATTR_SPARSE_TENSORS = 12,
  OX_ATTR_TYPE_PROTO = 13, OX_ATTR_TYPE_PROTOS = 14
} ox_attr_type;

typedef struct ox_attr {
  const char *name;
  ox_attr_type type;
  const char *ref_attr_name; /* non-NULL inside a function body: take the caller's */
  float f;
  int64_t i;
  ox_str s;
  ox_value *t;               /* TENSOR (and SPARSE_TENSOR once densified) */
  struct ox_graph *g;
  const ox_type *tp;
  int64_t n;                 /* length of the list forms below */
  float *floats;
  int64_t *ints;
  ox_str *strings;
  ox_value **tensors;
  struct ox_graph **graphs;
  const ox_type **tps;
} ox_attr;

typedef struct ox_node {
  const char *name;   /* may be "" */
  const char *op;
  const char *domain; /* "" for ai.onnx */
  const char *overload;
  int nin, nout;
  const char **in, **out;
  int nattr;
  ox_attr *attr;
  /* set when the evaluator prepares the graph */
  int version;                  /* the opset version of the node's domain */
  const struct ox_kernel *k;    /* NULL for a call to a model-local function */
  const struct ox_function *fn; /* that function */
  /* liveness: the values this graph's nodes produce that no later node (nor
   * subgraph) reads once this one has run, and those of this node's outputs
   * that the graph returns (core/eval.c gives their memory back early) */
  int ndies, nkept;
  const char **dies, **kept;
  /* what the row's load hook made once for the model (its attributes
   * parsed, constant weights packed), in the model's arena; NULL when the
   * row has no hook (core/registry.h, ox_load_fn) */
  const void *state;
  /* constant folding: the outputs, computed once when the model is prepared
   * (every input a constant; core/eval.c), or NULL. elided: folded, but only
   * other folds read its values, which were given back: a run skips it
   * (unless --trace or a node hook wants to see them; it runs then) */
  struct ox_value **folded;
  int elided;
  /* fusion (core/fuse.h): the elementwise followers this node computes on
   * its output, or NULL; on a follower, the node that computes it, or NULL */
  const struct ox_epi *epi;
  const struct ox_node *fused_into;
  /* the inputs whose data the load hook's state replaces (ox_ctx.packed_inputs) */
  unsigned packed_inputs;
} ox_node;

typedef struct ox_valueinfo {
  const char *name;
  const ox_type *type; /* NULL: not declared */
  int rank;            /* tensors: declared rank, -1 if no shape */
  int64_t *dims;       /* -1 for a symbolic or unknown dim */
  const char **dim_param; /* NULL, or rank entries: a symbolic dim's name (dim_param), else NULL */
} ox_valueinfo;

typedef struct ox_graph {
  const char *name;
  int nnode;
  ox_node *node;
  int nin;
  ox_valueinfo *in;   /* as declared, initializers included (old IR) */
  int nout;
  ox_valueinfo *out;
  int ninit;
  const char **init_name;
  ox_value **init;
  int nvi;
  ox_valueinfo *vi;
} ox_graph;

typedef struct ox_opset { const char *domain; int64_t version; } ox_opset;

typedef struct ox_function {
  const char *name, *domain, *overload;
  int nin, nout;
  const char **in, **out;
  int nattr;
  const char **attr_name;  /* attribute names the body may reference */
  int ndefault;
  ox_attr *attr_default;   /* attribute_proto (defaults), when present */
  int nnode;
  ox_node *node;
  int nopset;
  ox_opset *opset;
  int prepared; /* evaluator: 0 not yet, 1 in progress (a call cycle), 2 done */
} ox_function;

typedef struct ox_model {
  const char *path;  /* as given */
  const char *dir;   /* its folder: external data is read relative to it */
  int64_t ir_version;
  int nopset;
  ox_opset *opset;
  ox_graph *graph;
  int nfunc;
  ox_function *func;
  /* the data of the initializers whose memory was given back once packed
   * (ox_release_packed, core/load.h): the trace says so rather than read it */
  const void **released;
  int nreleased;
} ox_model;

/* "" and "ai.onnx" are the same domain. */
int ox_domain_eq(const char *a, const char *b);
/* The version imported for domain, or -1. */
int64_t ox_opset_of(int n, const ox_opset *ops, const char *domain);
/* The graph inputs that are not initializers, in order (for positional --in). */
int ox_graph_real_inputs(const ox_graph *g, int *idx_out /* g->nin entries */);
const ox_attr *ox_node_attr(const ox_node *n, const char *name);
/* onnx.checker refuses a node that gives an attribute twice ("Attribute
 * 'alpha' appeared multiple times"): the name of one that attr[0..n) gives
 * twice, in *twice, or NULL. 0, or OX_ENOMEM (said in e). */
int ox_attr_twice(int n, const ox_attr *attr, const char **twice, ox_err *e);
/* The model's structure, as onnx.checker checks it, for the main graph, every
 * subgraph and every function: graph inputs, initializers and function
 * definitions unique; each node output written once, and not over a graph
 * input or an initializer; every name a node reads or a graph returns defined
 * in its graph or an enclosing one. An error names the graph and the value. */
int ox_model_check(ox_arena *a, const ox_model *m, ox_err *e);

/* Refuse nodes[first] and nodes[last] writing the same name (first <
 * last), naming both by index and name, saying what onnxruntime does with
 * it and how to repair it; `more`: how many more outputs repeat a name.
 * Returns OX_EINPUT. */
int ox_two_writers(ox_err *e, const ox_node *nodes, int first, int last, const char *name, int more);
/* Why a list of nodes is not in topological order: node `reader` reads what
 * node `writer` (a later one) writes; nested: the list is a subgraph's or a
 * function's. NULL when out of memory. */
const char *ox_order_note(ox_arena *a, const ox_node *nodes, int reader, int writer, int nested);

/* A map from name to int (open addressing, in a's memory) for the
 * evaluator's and the preparation's tables: it grows as names are added,
 * keeping at most half of its slots taken, so that a lookup always meets an
 * empty slot however many names a graph holds (a table sized by the node
 * count once took every output of a wide Split and then probed for ever).
 * Keys are not copied: they must outlive the map. */
typedef struct ox_namemap {
  ox_arena *a;
  int64_t cap, n;
  const char **key;
  int *val;
} ox_namemap;
/* 0, or -1 when out of memory; `expect`: the names it will likely hold. */
int ox_namemap_init(ox_arena *a, ox_namemap *m, int64_t expect);
/* The value of k, inserted as -1 when new; NULL when out of memory. */
int *ox_namemap_slot(ox_namemap *m, const char *k);
/* The value of k, or -1 when absent. */
int ox_namemap_get(const ox_namemap *m, const char *k);
/* The hash of a NUL-terminated name that these tables and the evaluator's
 * scopes use. */
uint64_t ox_name_hash(const char *s);

#endif
