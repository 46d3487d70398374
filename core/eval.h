/* core/eval.h: the graph evaluator. */
#ifndef OX_EVAL_H
#define OX_EVAL_H

#include "registry.h"

/* Resolve every node's kernel from the opset imports and check the graph
 * (recursively into subgraphs). An op or version without a row fails here,
 * with OX_EUNSUPPORTED: "unsupported operator X (ai.onnx, opset 10)". */
int ox_prepare(ox_arena *a, ox_model *m, ox_err *e);

/* Run the main graph. inputs[i] is the value of g->in[i] (NULL: not given;
 * allowed for initializers and optional-typed inputs). outputs receive
 * g->nout values. */
int ox_run(ox_arena *a, const ox_model *m, ox_value **inputs, ox_value **outputs, ox_err *e);

/* --trace and --time: each node as it runs (inputs and outputs summarised),
 * and its time, to ox_trace_file (stderr if NULL). */
#include <stdio.h>
enum { OX_TRACE_NODES = 1, OX_TRACE_TIME = 2 };
extern int ox_trace_flags;
extern FILE *ox_trace_file;

/* run --save-intermediates: when set, called after each node that succeeds,
 * with its outputs (out[i] NULL for an empty output name); depth 0 for the
 * main graph's nodes, more inside subgraphs and functions. A non-zero return
 * stops the run with that error. */
typedef int (*ox_node_hook_fn)(void *arg, const ox_node *n, int depth, ox_value **out, ox_err *e);
extern ox_node_hook_fn ox_node_hook;
extern void *ox_node_hook_arg;

/* --timeout SECONDS (or ONNXOP_TIMEOUT): evaluation stops at the first check
 * once SECONDS have passed since this call (0: no limit). `source` names the
 * option or variable in the message. Checked before every node and every
 * Loop and Scan iteration: a single long node runs to its end. */
void ox_set_timeout(double seconds, const char *source);
/* 0, or OX_EINPUT with "the time limit of 0.5 s (--timeout) is reached". */
int ox_check_time(ox_err *e);

/* ---- for ops with subgraphs (If, Loop, Scan, SequenceMap) ---- */
typedef struct ox_scope ox_scope;
/* Run g inside the caller's scope: outer names are visible; ins bind g->in.
 * Values are allocated in c->a (a kernel may pass a ctx whose arena is a
 * per-iteration scratch arena). `label` names the graph in messages:
 * "node 'loop0' Loop-16 > body node 'add1' Add-14: ...". */
int ox_run_subgraph(ox_ctx *c, const char *label, const ox_graph *g, int nin, ox_value **ins,
                    ox_value **outs);

#endif
