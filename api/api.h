/* api/api.h: the library's entries that the onnxop command shares (internal:
 * not installed, and hidden in libonnxop.so like every ox_ name).
 *
 * `onnxop test`, `onnxop run` and `onnxop bench` load their model and read
 * their values through these, and test and run evaluate through
 * ox_api_run; the public functions of include/onnxop.h (onnxop_model_load,
 * onnxop_value_read, onnxop_run) are thin wrappers around the same bodies.
 * So there is one path for loading, binding and running, and every suite
 * run exercises the library's. What these take beyond the public API is
 * what the command has and a library user does not need: the model's graph
 * (for the command's own binding rules), types as ox_type, a folder for
 * external data other than the value file's, messages without the path in
 * front (the command says where in its own words), the command line's FILE
 * forms, and core/eval.h's run options (--trace, --time, the node hook of
 * --save-intermediates, the deadline of --timeout) on the process's memory
 * account (--max-memory) and thread count (--threads). */
#ifndef OX_API_H
#define OX_API_H

#include "../core/ox.h"
#include "../include/onnxop.h"

/* Load and prepare a model, as onnxop_model_load; with_path: messages start
 * with "PATH: " (as onnxop_model_load's do), else they are the reason
 * alone. ro (NULL: none): the run options whose deadline (--timeout) bounds
 * the preparation too (sorting, folding and packing: ox_prepare_with). */
int ox_api_model_load(const char *path, int with_path, const ox_run_opts *ro, onnxop_model **out,
                      onnxop_error **err);
/* The model behind a handle (valid as long as m). */
const ox_model *ox_api_model(const onnxop_model *m);
/* NULL when the model's nodes (and its subgraphs' and functions') were in
 * topological order as loaded; else why the first list was not
 * (ox_model_order), *count how many lists were not. They run in dependency
 * order either way. */
const char *ox_api_model_order(const onnxop_model *m, int *count);

/* How ox_api_value_read reads a value file. */
typedef struct {
  const ox_type *type;  /* the type the model declares (picks a .pb's message), or NULL */
  int check_type;       /* the value must be of that type (onnxop_value_read's rule) */
  const char *basedir;  /* where a .pb's external data lives; NULL: the file's folder */
  int cli_forms;        /* path may also be "-", an inline value or a JSON literal
                         * (io/io.h's ox_load_value) */
  int with_path;        /* messages start with "PATH: " */
} ox_api_read_opts;
/* Read a value file in format (ONNXOP_FORMAT_*; AUTO: by the extension), as
 * onnxop_value_read does with the options above. */
int ox_api_value_read(const char *path, int format, const ox_api_read_opts *o, onnxop_value **out,
                      onnxop_error **err);
/* A handle on v, not copied (as onnxop_tensor_wrap): the caller keeps v
 * alive until the handle and every output of a run that took it are freed. */
int ox_api_value_wrap(ox_value *v, onnxop_value **out, onnxop_error **err);
/* The value behind a handle (valid as long as v). */
const ox_value *ox_api_value(const onnxop_value *v);

/* Run m as onnxop_run does, with in[k] the value of the graph's input k
 * (m's graph's in[], initializers included: a value given for one overrides
 * it; NULL: not given) and the run options ro (NULL: none), on the calling
 * thread's memory account and ro's thread count (0: the process's). On success
 * *outputs holds *n_out new values, freed with onnxop_values_free. Messages
 * are the reason alone. */
int ox_api_run(const onnxop_model *m, const ox_run_opts *ro, const onnxop_value *const *in, onnxop_value ***outputs,
               int *n_out, onnxop_error **err);

/* ---- the command's other commands' forms, in the caller's arena ----
 * (show, info, compare, convert, bench): one path each through the library,
 * as test and run take, but on the command's own arena and messages. */
/* A value FILE of the command line (io/io.h's ox_load_value: a file by its
 * extension, "-", an inline value or a JSON literal) into a, of type want
 * when it says (NULL: as the file says); *name receives the name the file
 * gives it (may be NULL). */
int ox_api_value_load(ox_arena *a, const char *path, const ox_type *want, ox_value **out, const char **name,
                      ox_err *e);
/* A model decoded, not prepared: show and info describe models that cannot
 * run (an unsupported op, a bad attribute). */
int ox_api_model_read(ox_arena *a, const char *path, ox_model **out, ox_err *e);
/* One evaluation of m (from ox_api_model_load) on values in (its graph's
 * in[]) into out (its nout), allocated in a: what bench times, the
 * evaluation alone. */
int ox_api_run_values(ox_arena *a, const onnxop_model *m, const ox_run_opts *ro, ox_value **in, ox_value **out,
                      ox_err *e);
/* A value given as JSON text (a spec's inline value, make's --in NAME=JSON)
 * into a, of type want when it says (NULL: as the text says). */
int ox_api_value_json(ox_arena *a, const char *text, size_t len, const ox_type *want, ox_value **out,
                      ox_err *e);
/* ---- onnxop make: a model it builds in its own arena ----
 * Prepare m (as ox_api_model_load prepares a loaded one: kernels resolved,
 * constants folded, weights packed; ro's deadline bounds it, NULL: none),
 * then run it on in (its graph's in[]) into out (its nout), in a. */
int ox_api_model_prepare(ox_arena *a, ox_model *m, const ox_run_opts *ro, ox_err *e);
int ox_api_model_run(ox_arena *a, const ox_model *m, const ox_run_opts *ro, ox_value **in, ox_value **out,
                     ox_err *e);
/* m as a ModelProto's bytes (*data, *len bytes in a): the file make writes */
int ox_api_model_encode(ox_arena *a, const ox_model *m, uint8_t **data, size_t *len, ox_err *e);

#endif
