/* core/eval.h: the graph evaluator. */
#ifndef OX_EVAL_H
#define OX_EVAL_H

#include "registry.h"

/* Resolve every node's kernel from the opset imports and check the graph
 * (recursively into subgraphs). An op or version without a row fails here,
 * with OX_EUNSUPPORTED: "unsupported operator X (ai.onnx, opset 10)". */
int ox_prepare(ox_arena *a, ox_model *m, ox_err *e);

/* The order the evaluator runs nodes[0 .. nnode) in: Kahn's algorithm, the
 * lowest-index ready node first, so that a list in topological order keeps
 * it; a node that runs a subgraph comes after the producers of every name the
 * subgraph reads. order[i] (nnode entries) is the index of the i-th node to
 * run. *reader and *writer are -1 for a list already in order, else the
 * first node that reads a later node's output, and that node. A cycle, or a
 * name two nodes write, is an error (OX_EINPUT). */
int ox_node_order(ox_arena *a, int nnode, const ox_node *nodes, int *order, int *reader, int *writer,
                  ox_err *e);
/* Whether the node lists of m (its graph's, its subgraphs', its functions')
 * are in topological order, before ox_prepare puts them in the order they
 * run: *note NULL, or why the first that is not is not (ox_order_note's
 * text, in a's memory), and *count how many are not. A cycle, or a name two
 * nodes write, is an error. */
int ox_model_order(ox_arena *a, const ox_model *m, const char **note, int *count, ox_err *e);

/* Run the main graph. inputs[i] is the value of g->in[i] (NULL: not given;
 * allowed for initializers and optional-typed inputs). outputs receive
 * g->nout values. The same as ox_run_with(a, m, NULL, ...). */
int ox_run(ox_arena *a, const ox_model *m, ox_value **inputs, ox_value **outputs, ox_err *e);

/* What one run may be asked beyond its inputs: --trace and --time (each node
 * as it runs, inputs and outputs summarised, and its time, to trace_file,
 * stderr if NULL), run --save-intermediates' node hook, the deadline of
 * --timeout, and the seed of random ops that have none. One per run, never
 * shared: two runs at once (two threads of a library user) each have their
 * own. All zero: none of these. */
#include <stdio.h>
/* OX_TRACE_SUMMARY, with NODES or TIME: nothing per node; after the run, one
 * summary (nodes run per op and, with TIME, their time; the first output
 * holding NaN or Inf), for graphs too large to read node by node */
enum { OX_TRACE_NODES = 1, OX_TRACE_TIME = 2, OX_TRACE_SUMMARY = 4 };
/* The node hook: when set, called after each node that succeeds, with its
 * outputs (out[i] NULL for an empty output name); depth 0 for the main
 * graph's nodes, more inside subgraphs and functions. A non-zero return
 * stops the run with that error. */
typedef int (*ox_node_hook_fn)(void *arg, const ox_node *n, int depth, ox_value **out, ox_err *e);
typedef struct ox_run_opts {
  int trace;               /* OX_TRACE_NODES | OX_TRACE_TIME */
  FILE *trace_file;        /* NULL: stderr */
  ox_node_hook_fn hook;
  void *hook_arg;
  /* evaluation stops at the first check once CLOCK_MONOTONIC passes
   * deadline_us (0: no limit; ox_deadline_us makes one): before every node
   * and every Loop and Scan iteration, so a single long node runs to its end.
   * The message names timeout_s and, when set, the source: what the
   * caller calls the limit ("--timeout" from the CLI, "timeout" from the
   * API); the library names no flag of its own. */
  double deadline_us, timeout_s;
  const char *timeout_source;
  int seeded;              /* 1: random ops without a seed draw from */
  uint32_t seed;           /* RandomState(seed) (else ONNXOP_SEED, else the OS) */
  /* called at the same checks as the deadline (after it); a non-zero
   * return, with e set, stops the run: the library's cancel flag and
   * progress handler */
  int (*check)(void *arg, ox_err *e);
  void *check_arg;
  /* the kernels' thread count (their ox_ctx.threads; 0: the process's,
   * ox_set_threads); results never depend on it */
  int threads;
  /* ox_prepare_with: once prepared, give back the memory of the initializers
   * that only kernels which packed them read (ox_release_packed,
   * core/load.h): for callers that never hand an initializer out */
  int release_packed;
} ox_run_opts;

/* ox_prepare for a run with these options (NULL: all zero): their deadline
 * (--timeout) bounds the preparation too, checked before each node is
 * prepared (its subgraphs, its constant folding) and packed; past it, the
 * message is a run's ("the time limit of 0.5 s (--timeout) is reached"),
 * behind "node 'n' Add-14 (preparing the model): ". */
int ox_prepare_with(ox_arena *a, ox_model *m, const struct ox_run_opts *opts, ox_err *e);

/* ox_run with options (NULL: all zero). The kernels it calls find opts in
 * their context (ox_ctx.run). */
int ox_run_with(ox_arena *a, const ox_model *m, const ox_run_opts *opts, ox_value **inputs,
                ox_value **outputs, ox_err *e);
/* The deadline for a limit of `seconds` from now (0: none). */
double ox_deadline_us(double seconds);
/* 0, or OX_EINPUT with "the time limit of 0.5 s (--timeout) is reached" (the
 * source in brackets when the run names one) once the deadline of the run
 * with options o (a kernel's c->run; NULL: none) has passed; then the run's
 * check, if any. */
int ox_check_time(const ox_run_opts *o, ox_err *e);

/* ---- for ops with subgraphs (If, Loop, Scan, SequenceMap) ---- */
typedef struct ox_scope ox_scope;
/* Run g inside the caller's scope: outer names are visible; ins bind g->in.
 * Values are allocated in c->a (a kernel may pass a ctx whose arena is a
 * per-iteration scratch arena). `label` names the graph in messages:
 * "node 'loop0' Loop-16 > body node 'add1' Add-14: ...". */
int ox_run_subgraph(ox_ctx *c, const char *label, const ox_graph *g, int nin, ox_value **ins,
                    ox_value **outs);

#endif
