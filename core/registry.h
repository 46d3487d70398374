/* core/registry.h: the operator table, one row per ONNX op-version.
 *
 * Each ops/<family>.c ends with its own rows; ops/families.c lists the
 * families once (core names no operator); core/registry.c, at the first
 * lookup, sorts all rows by (domain, op, since) for binary searches. A row is the whole truth about an op-version:
 * its input types, input count, kernel and attributes. Adding an op-version
 * means adding one row to one file; tests/unit/test_registry.c holds the
 * rows to the spec's list of op-versions (tests/op-versions.txt): no gap, no
 * overlap, the attributes as docs/Changelog.md gives them. */
#ifndef OX_REGISTRY_H
#define OX_REGISTRY_H

#include "graph.h"

#define OX_LATEST 1000

/* What a kernel (and a row's load hook) sees. */
typedef struct ox_ctx {
  ox_arena *a;
  ox_err *err;
  const ox_node *node;
  int version;              /* the node's resolved opset version */
  const ox_model *model;
  struct ox_scope *scope;   /* for ops with subgraphs */
  const void *state;        /* what the row's load hook made for this node
                             * (ox_load_fn), NULL when the row has none */
  struct ox_consts *consts; /* while a hook runs: the constants the node
                             * sees (ox_const_input); NULL otherwise */
  /* the options of the run (core/eval.h: its deadline, seed, trace and
   * hook), which a kernel reads here and nowhere else; NULL: none (a unit
   * test's context) */
  const struct ox_run_opts *run;
  /* the run's thread count, for ox_par_chunks and the GEMM (core/threads.h):
   * the run options' threads; 0: the process's (ox_set_threads) */
  int threads;
  /* the elementwise followers this node computes on its output
   * (core/fuse.h), or NULL; a kernel that applies them sets epi->done */
  struct ox_epi_bound *epi;
  /* a load hook sets bit i when what it made (c->state) replaces input i's
   * data: its kernel never reads that input's bytes again, so a constant
   * only such kernels read may have its memory given back (ox_release_node, core/load.h) */
  unsigned packed_inputs;
  /* set before a load hook runs: bit i when input i is a constant whose
   * memory will be given back once this node is prepared, if the hook packs
   * it (sets bit i of packed_inputs: core/load.h's ox_release_node). Such
   * a hook may give back its pages as it goes (ox_sys_discard), so that
   * the original and its packed form are never both whole in memory */
  unsigned discard_inputs;
} ox_ctx;

/* in[i] is NULL for a missing optional input; the kernel sets out[0..nout-1]
 * (nout is what the node lists, empty names included). */
typedef int (*ox_kernel_fn)(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out);

/* A row's load-time hook (ONNX Runtime's kernel constructor and PrePack):
 * run once per node when the model is prepared, after its attributes have
 * passed ox_attrs_check, and before the node can be folded or run. It reads
 * the node's attributes (the ox_attr_* getters on c), checks what does not
 * depend on the inputs, and sets *state to a struct it allocates in c->a (the
 * model's memory, read-only while runs use it) that the kernel reads as
 * c->state; from the constant inputs (ox_const_input) it may also prepare
 * work, such as weights packed for the GEMM. An error here fails the load
 * with the node named. A node inside a function body whose attributes refer
 * to the caller's (ref_attr_name) runs its hook at each call instead. */
typedef int (*ox_load_fn)(ox_ctx *c, void **state);

typedef struct ox_kernel {
  const char *domain; /* "" for ai.onnx */
  const char *op;
  int since;          /* the op-version; the row serves opsets from here to the op's
                       * next row, or to OX_LATEST (ox_registry_until) */
  int tin;            /* the input whose (leaf) dtype `types` constrains; -1: no input
                       * is checked (for ops without inputs, types lists the output
                       * types the kernel can make, for `onnxop ops`) */
  uint64_t types;     /* OX_T() bits; 0: no constraint */
  int min_in, max_in; /* input count range; max_in -1: variadic */
  ox_kernel_fn fn;    /* NULL: ONNX deprecated the op at `since` (OX_REMOVED); a
                       * row may share its neighbour's kernel */
  /* The attributes as docs/Changelog.md lists them for this version, sorted
   * by name, comma-separated: "name:type", then ":required" where the spec
   * says so, or "=default" where it gives one (a list as "[a b]"), e.g.
   * "axis:int=1,kernel_shape:ints:required". Types in ox_attr_type_name's
   * words. The model loader refuses a node whose attributes disagree.
   * A version whose attributes are an earlier version's names it instead,
   * OX_ATTRS_OF(since), so that each list is written once (read it with
   * ox_row_attrs). */
  const char *attrs;
  ox_load_fn load;    /* NULL: the kernel reads its attributes itself */
} ox_kernel;

/* The attributes of this op's row at version `since` (that row's own list,
 * or the one it names in turn): "@since". */
#define OX_ATTRS_OF(since) "@" #since

/* The rest of a row for a version ONNX deprecated (its page lists no
 * attributes): no kernel, so a model using it is refused with that reason.
 *   { "", "Upsample", 10, OX_REMOVED }, */
#define OX_REMOVED 0, 0, 0, 0, NULL, ""

/* The rest of a row for an op-version onnxop knows but does not run, with
 * the reason, which `onnxop ops` and the "unsupported operator" message give
 * (ox_row_not_run):
 *   { "com.microsoft", "BeamSearch", 1, OX_NOT_RUN("a generation loop ...") }, */
#define OX_NOT_RUN(why) 0, 0, 0, 0, NULL, "!" why
/* The reason of an OX_NOT_RUN row, else NULL. */
const char *ox_row_not_run(const ox_kernel *k);

/* Where an op-version is defined. Most are the ONNX spec's
 * (docs/Changelog.md and Changelog-ml.md); the others are run because models
 * use them and onnxruntime runs them, and `onnxop ops` says so. A family's
 * name says which (ox_family_origin):
 *   OX_ORIGIN_EXPERIMENTAL  family "experimental": ai.onnx's experimental
 *       operators, which the Changelog listed until onnx 1.5 removed them
 *       (ImageScaler-1, Crop-1 ...; tests/op-versions-experimental.txt);
 *   OX_ORIGIN_ONNXRUNTIME   families "contrib-...": onnxruntime's own, the
 *       com.microsoft domain as its docs/ContribOperators.md gives it and the
 *       few rows onnxruntime registers in ai.onnx itself (LayerNormalization-1,
 *       SimplifiedLayerNormalization-1; tests/op-versions-contrib.txt). */
enum { OX_ORIGIN_SPEC, OX_ORIGIN_EXPERIMENTAL, OX_ORIGIN_ONNXRUNTIME };

/* The families, defined in ops/families.c (each table ends with a row whose
 * op is NULL; the list with a NULL family). */
/* epi: NULL, or the family's epilogue hook (core/fuse.h): the step a Conv
 * runs for one of its nodes fused into it */
struct ox_epi_step;
typedef struct {
  const char *family;
  const ox_kernel *rows;
  int (*epi)(struct ox_ctx *c, int64_t M, struct ox_epi_step *s);
} ox_family;
extern const ox_family ox_families[];

/* A row of the sorted table. */
typedef struct {
  const ox_kernel *k;
  const char *family;
  int until; /* the op's next row's since - 1; OX_LATEST for its last row */
  const char *attrs; /* k's attribute list, an OX_ATTRS_OF resolved; NULL when
                      * it names no row of the op (test_registry refuses it) */
  int origin; /* its family's: OX_ORIGIN_* */
} ox_op_version;

/* The table: every family's rows sorted by (domain, op, since); *n receives
 * the count. Two rows with one key (an overlap) sit side by side. */
const ox_op_version *ox_registry_table(int *n);
/* The op-version a model importing `opset` for `domain` uses: the row of
 * (domain, op) with the largest since <= opset, kernel or not; NULL when
 * there is none or opset > OX_LATEST ("ai.onnx" and "" are one domain). */
const ox_op_version *ox_registry_version(const char *domain, const char *op, int64_t opset);
/* That row when it has a kernel, else NULL. */
const ox_kernel *ox_registry_find(const char *domain, const char *op, int64_t opset);
/* Row k's attribute list, an OX_ATTRS_OF resolved (ox_op_version.attrs). */
const char *ox_row_attrs(const ox_kernel *k);
/* The last opset row k serves. */
int ox_registry_until(const ox_kernel *k);
/* Whether the op has a row at any version (for "unsupported version" messages). */
int ox_registry_has_op(const char *domain, const char *op);
/* Why no kernel serves (domain, op) at opset: for "unsupported operator" messages. */
const char *ox_registry_why(const char *domain, const char *op, int64_t opset, char *buf, size_t n);

/* For a row of an op-version ONNX deprecated that onnxop still runs, as old
 * exports use it (GroupNormalization-18): "GroupNormalization-18 is deprecated
 * (onnx's checker refuses it; GroupNormalization-21 replaces it)" in buf; NULL
 * for any other row (k NULL too). One text for every command's warning. */
const char *ox_registry_deprecation(const ox_kernel *k, char *buf, size_t n);
/* The first opset after row k's from which a row of its op with a kernel
 * allows element type dt, or 0: for "T must be one of ..." messages. */
int ox_registry_type_since(const ox_kernel *k, int dt);
/* For a row that is not the ONNX spec's (origin experimental, or onnxruntime's
 * in the ai.onnx domain), the one-line note every command warns with:
 * "ImageScaler-1 is an experimental operator ONNX removed (onnx 1.5); onnxop
 * runs it as onnxruntime does"; NULL for the spec's other rows and for the
 * com.microsoft domain (a model imports that on purpose); for a spec row ONNX
 * deprecated, ox_registry_deprecation's text. */
const char *ox_registry_note(const ox_op_version *v, char *buf, size_t n);
/* Calls warn(arg, node, text) once per such op-version that nodes of m use
 * (its graph, subgraphs and functions), with its first node. */
void ox_model_notes(const ox_model *m, void (*warn)(void *arg, const ox_node *n, const char *text), void *arg);
/* "spec", "experimental", "onnxruntime" */
const char *ox_origin_name(int origin);
/* The origin of a family's rows, from its name. */
int ox_family_origin(const char *family);

/* ---- a row's attribute list ---- */
typedef struct {
  char name[64], type[16];
  char def[192]; /* the default as written ("" when none): "1", "NOTSET", "[0 2 3]" */
  int required;
} ox_attr_spec;
/* Parse the entry of an attribute list that p points at into *a and return
 * what follows it; NULL (and *a unset) when p is NULL or at the end:
 *   for (const char *p = ox_attr_spec_next(k->attrs, &a); p; p = ox_attr_spec_next(p, &a)) */
const char *ox_attr_spec_next(const char *p, ox_attr_spec *a);
/* Check node n against row k: each attribute must be declared, with the
 * declared type (one referring to a function's attribute is checked by
 * name only), and every required one must be present. onnxruntime's own
 * ai.onnx rows (origin onnxruntime) allow undeclared attributes, as its
 * schemas for them do (AllowUncheckedAttributes): they are ignored. */
int ox_attrs_check(const ox_kernel *k, const ox_node *n, ox_err *e);

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

/* ---- the load hook's side (core/load.c) ---- */
/* Run the hook of c->node's row (when it has one) with c, whose arena
 * receives the state; c->state is set to it. A getter's complaint (c->err
 * set) fails it too. */
int ox_node_load(ox_ctx *c);
/* For a load hook: the constant tensor input i of the node is, *t (NULL
 * when it is not one, or outside a hook): an initializer, or the value of a
 * Constant node, of the node's graph first, then of the enclosing ones. A
 * graph input that a run binds over an initializer is caught then: a kernel
 * uses what it prepared only for that very tensor (ox_prep_matches). Fails
 * only when out of memory. */
int ox_const_input(ox_ctx *c, int i, const ox_tensor **t);

/* Message helper: "input 0 'A'" naming the node's input (valid until four
 * more calls, so up to four may appear in one message). */
const char *ox_input_name(ox_ctx *c, int i);

#endif
