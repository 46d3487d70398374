/* onnxop.h: the onnxop library, an ONNX reference evaluator for C and C++.
 *
 * Load a model, make or read its input values, run it, and read, write or
 * compare its outputs:
 *
 *   onnxop_model *m;  onnxop_value *x, **out;  int nout;  onnxop_error *err = NULL;
 *   int64_t dims[2] = {2, 3};  float data[6] = {1, 2, 3, 4, 5, 6};
 *   if (onnxop_model_load("model.onnx", &m, &err) ||
 *       onnxop_tensor_new(ONNXOP_FLOAT, 2, dims, data, &x, &err) ||
 *       onnxop_run(m, NULL, 1, NULL, (const onnxop_value *const *)&x, &out, &nout, &err))
 *     fprintf(stderr, "%s\n", onnxop_error_message(err));
 *
 * Conventions (every function):
 *  - A function that can fail returns 0, or an ONNXOP_ERR_* code; its last
 *    argument, err, when not NULL, then receives an error object (code and
 *    message) that the caller frees with onnxop_error_free. *err must be
 *    NULL or an earlier error (which is freed and replaced).
 *  - Objects are opaque and freed by their own _free function; freeing NULL
 *    does nothing. A value stays valid until it is freed, whatever else is
 *    freed (an output holds what it shares: the model, the inputs).
 *  - Nothing is process-wide: no signal handlers, no global options. Models
 *    and values may be used from several threads at once as long as none of
 *    them is freed meanwhile; runs of one model, or of several, may go on in
 *    several threads at once and give the same bytes as one after another.
 *  - Names are UTF-8 strings; data is in the machine's byte order, row-major.
 *
 * The exit-status classes of the onnxop command are the error codes; see
 * onnxop(3) for the whole API and onnxop(1) for the command. */
#ifndef ONNXOP_H
#define ONNXOP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ONNXOP_API __attribute__((visibility("default")))
#else
#define ONNXOP_API
#endif

/* ---- version ---- */
#define ONNXOP_VERSION_MAJOR 0
#define ONNXOP_VERSION_MINOR 2
#define ONNXOP_VERSION_PATCH 0
/* The library's version as "MAJOR.MINOR.PATCH" (the library's, which may be
 * newer than the header a program was built with). */
ONNXOP_API const char *onnxop_version(void);

/* ---- errors ---- */
typedef enum {
  ONNXOP_OK = 0,
  ONNXOP_ERR_INPUT = 1,       /* a model or value was rejected, evaluation failed, a file could
                               * not be read or written, or a limit (time) was reached */
  ONNXOP_ERR_USAGE = 2,       /* a bad argument: NULL, an unknown input name, a wrong count */
  ONNXOP_ERR_UNSUPPORTED = 3, /* the model needs an operator (op, opset version, domain), or a
                               * case of one (an element type), that this build lacks */
  ONNXOP_ERR_NOMEM = 4        /* memory ran out: the run's max_memory, or the system's */
} onnxop_code;

/* A run stopped from outside (onnxop_run_options_set_cancel), or by a
 * progress handler's or node callback's non-zero return (exit status 1). */
#define ONNXOP_ERR_CANCELLED 5

typedef struct onnxop_error onnxop_error;
/* The code (ONNXOP_ERR_*) of e; ONNXOP_OK for NULL. */
ONNXOP_API int onnxop_error_code(const onnxop_error *e);
/* The message, e.g. "node 'n0' Add-14: input 1 'B' is int64; T must be ...",
 * owned by e (valid until onnxop_error_free); "" for NULL. */
ONNXOP_API const char *onnxop_error_message(const onnxop_error *e);
/* The exit status the onnxop command gives for e: 0 (NULL), 1 (input, out
 * of memory, cancelled), 2 (usage) or 3 (unsupported). */
ONNXOP_API int onnxop_error_exit_status(const onnxop_error *e);
ONNXOP_API void onnxop_error_free(onnxop_error *e);

/* ---- element types: ONNX's TensorProto.DataType ids ---- */
typedef enum {
  ONNXOP_FLOAT = 1, ONNXOP_UINT8 = 2, ONNXOP_INT8 = 3, ONNXOP_UINT16 = 4, ONNXOP_INT16 = 5,
  ONNXOP_INT32 = 6, ONNXOP_INT64 = 7, ONNXOP_STRING = 8, ONNXOP_BOOL = 9, ONNXOP_FLOAT16 = 10,
  ONNXOP_DOUBLE = 11, ONNXOP_UINT32 = 12, ONNXOP_UINT64 = 13, ONNXOP_COMPLEX64 = 14,
  ONNXOP_COMPLEX128 = 15, ONNXOP_BFLOAT16 = 16, ONNXOP_FLOAT8E4M3FN = 17,
  ONNXOP_FLOAT8E4M3FNUZ = 18, ONNXOP_FLOAT8E5M2 = 19, ONNXOP_FLOAT8E5M2FNUZ = 20,
  ONNXOP_UINT4 = 21, ONNXOP_INT4 = 22, ONNXOP_FLOAT4E2M1 = 23, ONNXOP_FLOAT8E8M0 = 24,
  ONNXOP_UINT2 = 25, ONNXOP_INT2 = 26
} onnxop_dtype;
/* The ONNX name of a dtype ("float", "float16", "string"), or NULL when
 * dtype is none of the above. */
ONNXOP_API const char *onnxop_dtype_name(int dtype);
/* Bytes per element in memory: 4-bit and 2-bit types take one byte each (the
 * low bits; signed types sign-extended), bool one byte (0 or 1), complex64
 * two floats; 0 for STRING (strings are not raw data) and unknown dtypes. */
ONNXOP_API size_t onnxop_dtype_size(int dtype);

/* ---- models ---- */
typedef struct onnxop_model onnxop_model;
/* Load and check a model (.onnx) from a file, resolving every node's
 * operator: ONNXOP_ERR_UNSUPPORTED names one this build lacks. External
 * data is read from the model's folder. */
ONNXOP_API int onnxop_model_load(const char *path, onnxop_model **out, onnxop_error **err);
/* The same from len bytes in memory (copied: buf may go when this returns);
 * a model with external data is refused, there being no folder. */
ONNXOP_API int onnxop_model_load_buffer(const void *buf, size_t len, onnxop_model **out,
                                        onnxop_error **err);
/* The same with flags (0: as onnxop_model_load and _buffer):
 * ONNXOP_LOAD_RELEASE_PACKED: once the model is prepared, give back the
 * memory of each initializer of 64 KiB or more that only kernels which
 * packed it read (a MatMul's or Gemm's constant weights, a Conv's filters),
 * so that the weights are not held twice, original and packed; such an
 * initializer can no longer be asked for by name: onnxop_run_outputs then
 * fails with ONNXOP_ERR_USAGE, naming it. Unknown flags: ONNXOP_ERR_USAGE. */
enum { ONNXOP_LOAD_RELEASE_PACKED = 1 };
ONNXOP_API int onnxop_model_load_with(const char *path, unsigned flags, onnxop_model **out, onnxop_error **err);
ONNXOP_API int onnxop_model_load_buffer_with(const void *buf, size_t len, unsigned flags, onnxop_model **out,
                                             onnxop_error **err);
/* Free m. Outputs of its runs stay valid. */
ONNXOP_API void onnxop_model_free(onnxop_model *m);
/* The inputs a run gives (the graph's inputs, initializers left out) and the
 * outputs it returns, in order: count, then each one's name and ONNX type
 * string ("tensor(float)", "seq(tensor(int64))", "optional(tensor(uint8))",
 * "map(string,tensor(float))"; NULL when the model declares none). NULL for
 * an index out of range. The strings live as long as m. */
ONNXOP_API int onnxop_model_input_count(const onnxop_model *m);
ONNXOP_API const char *onnxop_model_input_name(const onnxop_model *m, int i);
ONNXOP_API const char *onnxop_model_input_type(const onnxop_model *m, int i);
ONNXOP_API int onnxop_model_output_count(const onnxop_model *m);
ONNXOP_API const char *onnxop_model_output_name(const onnxop_model *m, int i);
ONNXOP_API const char *onnxop_model_output_type(const onnxop_model *m, int i);
/* Their declared shapes: the rank (-1: no shape declared, not a tensor, or
 * i out of range), and dim d's size, or -1 when the model gives none: then
 * *name, when name is not NULL, is the dim's symbolic name ("N", as long as
 * m lives) or NULL when it has none. */
ONNXOP_API int onnxop_model_input_rank(const onnxop_model *m, int i);
ONNXOP_API int64_t onnxop_model_input_dim(const onnxop_model *m, int i, int d, const char **name);
ONNXOP_API int onnxop_model_output_rank(const onnxop_model *m, int i);
ONNXOP_API int64_t onnxop_model_output_dim(const onnxop_model *m, int i, int d, const char **name);
/* The model's IR version, and the opsets it imports: count, then each
 * one's domain as the model spells it ("" for ai.onnx) and version (NULL,
 * -1 out of range). */
ONNXOP_API int64_t onnxop_model_ir_version(const onnxop_model *m);
ONNXOP_API int onnxop_model_opset_count(const onnxop_model *m);
ONNXOP_API const char *onnxop_model_opset_domain(const onnxop_model *m, int i);
ONNXOP_API int64_t onnxop_model_opset_version(const onnxop_model *m, int i);
/* Every value of the main graph a run can return by name
 * (onnxop_run_outputs): the inputs a run gives, the initializers, then each
 * node's outputs in the order the nodes run. NULL out of range. */
ONNXOP_API int onnxop_model_value_count(const onnxop_model *m);
ONNXOP_API const char *onnxop_model_value_name(const onnxop_model *m, int i);

/* Whether this build implements operator op of domain (NULL or "":
 * ai.onnx) for a model importing opset version `opset` of that domain: 1
 * yes; 0 no, with the reason in why (n bytes, when why is not NULL: "onnxop
 * does not implement this operator", "the operator first appears at opset
 * 13"); -1 when op is NULL. */
ONNXOP_API int onnxop_op_supported(const char *domain, const char *op, int64_t opset, char *why, size_t n);

/* ---- values: tensors, sequences, optionals, maps ---- */
typedef struct onnxop_value onnxop_value;
typedef enum { ONNXOP_TENSOR = 1, ONNXOP_SEQUENCE = 2, ONNXOP_OPTIONAL = 3, ONNXOP_MAP = 4 } onnxop_kind;

/* A tensor of dtype and shape dims[0..rank) (rank 0: a scalar; rank at most
 * 64, dims >= 0), its elements copied from data: numel * onnxop_dtype_size
 * bytes, or for ONNXOP_STRING an array of numel NUL-terminated strings
 * (const char *const *). data NULL: zeros (empty strings). Elements of the
 * types stored a byte each must be in their range (bool 0 or 1, uint4 0 to
 * 15, int4 -8 to 7, ...): ONNXOP_ERR_USAGE otherwise. */
ONNXOP_API int onnxop_tensor_new(int dtype, int rank, const int64_t *dims, const void *data,
                                 onnxop_value **out, onnxop_error **err);
/* The same without a copy: the tensor uses data, which the caller keeps
 * alive and unchanged until the value and every output of a run that took
 * it are freed. data must be aligned for the element type. Not for strings
 * (ONNXOP_ERR_USAGE). onnxop never writes into it. */
ONNXOP_API int onnxop_tensor_wrap(int dtype, int rank, const int64_t *dims, const void *data,
                                  onnxop_value **out, onnxop_error **err);

/* A string tensor: element i is the len[i] bytes at s[i], copied (any
 * bytes, NULs included; s[i] may be NULL when len[i] is 0); len NULL: each
 * s[i] is NUL-terminated, as onnxop_tensor_new takes them; s NULL: empty
 * strings. */
ONNXOP_API int onnxop_tensor_new_strings(int rank, const int64_t *dims, const char *const *s, const size_t *len,
                                         onnxop_value **out, onnxop_error **err);

/* Value file formats */
typedef enum {
  ONNXOP_FORMAT_AUTO = 0, /* read: from the name's extension (files) or the bytes (buffers);
                           * write: from the extension */
  ONNXOP_FORMAT_PB = 1,   /* TensorProto, SequenceProto, OptionalProto or MapProto */
  ONNXOP_FORMAT_JSON = 2, /* onnxop's JSON (onnxop(1), VALUE FILES) */
  ONNXOP_FORMAT_NPY = 3   /* numpy's .npy: one tensor */
} onnxop_format;
/* Read a value from a file: .pb, .json or .npy (format AUTO: by the
 * extension; an .npz member as "FILE.npz:NAME" too). type: the ONNX type
 * string the value must have (as onnxop_model_input_type gives it), or NULL:
 * a .pb does not say which message it holds (TensorProto, SequenceProto,
 * ...), so type picks it, and without one its content tells. A .pb's
 * external data is read from its folder. The error message starts with the
 * path. */
ONNXOP_API int onnxop_value_read(const char *path, int format, const char *type, onnxop_value **out,
                                 onnxop_error **err);
/* The same from len bytes (copied as needed): AUTO tells JSON ('{'), .npy
 * (its magic) and .pb apart. External data is refused. */
ONNXOP_API int onnxop_value_read_buffer(const void *buf, size_t len, int format, const char *type,
                                        onnxop_value **out, onnxop_error **err);
/* The name a value file stored with the value (a TensorProto's name, JSON's
 * "name"), or NULL; valid as long as v. */
ONNXOP_API const char *onnxop_value_name(const onnxop_value *v);

/* A sequence of n values (each copied), of type seq(elem_type), e.g.
 * "tensor(float)"; elem_type may be NULL when n > 0 (the first element's
 * type); every element must be of that type. */
ONNXOP_API int onnxop_sequence_new(const char *elem_type, int64_t n, const onnxop_value *const *elems,
                                   onnxop_value **out, onnxop_error **err);
/* An optional of type optional(elem_type) holding a copy of elem, or none
 * (elem NULL, then elem_type is needed). */
ONNXOP_API int onnxop_optional_new(const char *elem_type, const onnxop_value *elem, onnxop_value **out,
                                   onnxop_error **err);
/* A map of type map(K, V): keys a 1-D tensor of an integer or string
 * element type K, values a sequence of as many values of type V; entry i
 * maps key i to element i. Both are copied. */
ONNXOP_API int onnxop_map_new(const onnxop_value *keys, const onnxop_value *values, onnxop_value **out,
                              onnxop_error **err);
/* A deep copy of v that holds nothing v holds (a node callback's outputs
 * are kept so). */
ONNXOP_API int onnxop_value_copy(const onnxop_value *v, onnxop_value **out, onnxop_error **err);
ONNXOP_API void onnxop_value_free(onnxop_value *v);
/* Free n values and the array that holds them (the outputs of onnxop_run). */
ONNXOP_API void onnxop_values_free(onnxop_value **v, int n);

/* Accessors. For a value not of the kind asked, or NULL: the neutral answer
 * (0, -1 or NULL as said). */
ONNXOP_API int onnxop_value_kind(const onnxop_value *v); /* onnxop_kind; 0 for NULL */
/* The ONNX type string of v into buf (n bytes, cut short if too small;
 * "tensor(float)", "seq(tensor(int64))"); returns buf ("" for NULL v). */
ONNXOP_API const char *onnxop_value_type(const onnxop_value *v, char *buf, size_t n);
ONNXOP_API int onnxop_value_dtype(const onnxop_value *v);        /* tensors; else 0 */
ONNXOP_API int onnxop_value_rank(const onnxop_value *v);         /* tensors; else -1 */
ONNXOP_API const int64_t *onnxop_value_dims(const onnxop_value *v); /* rank entries; NULL if not a tensor */
ONNXOP_API int64_t onnxop_value_numel(const onnxop_value *v);    /* elements; -1 if not a tensor */
/* The elements (numel * onnxop_dtype_size bytes, as onnxop_tensor_new takes
 * them); NULL for strings, for non-tensors and for an empty tensor. Read
 * only. */
ONNXOP_API const void *onnxop_value_data(const onnxop_value *v);
/* Element i of a string tensor (NUL-terminated; *len, when not NULL, its
 * bytes, which may hold NULs), or NULL. */
ONNXOP_API const char *onnxop_value_string(const onnxop_value *v, int64_t i, size_t *len);
/* Sequences: the length (-1 if not one), and element i as a new value that
 * shares its memory (free it too). Maps: keys (a 1-D tensor) and values (a
 * sequence) the same way. Optionals: whether it holds an element (1, 0; -1
 * if not an optional), and the element. */
ONNXOP_API int64_t onnxop_sequence_length(const onnxop_value *v);
ONNXOP_API int onnxop_sequence_at(const onnxop_value *v, int64_t i, onnxop_value **out, onnxop_error **err);
ONNXOP_API int onnxop_optional_has_element(const onnxop_value *v);
ONNXOP_API int onnxop_optional_element(const onnxop_value *v, onnxop_value **out, onnxop_error **err);
ONNXOP_API int onnxop_map_keys(const onnxop_value *v, onnxop_value **out, onnxop_error **err);
ONNXOP_API int onnxop_map_values(const onnxop_value *v, onnxop_value **out, onnxop_error **err);

/* Write v in a format (AUTO: from path's extension: .pb, .json or .npy),
 * with name stored in it when the format has room (NULL: none). The file is
 * written to a temporary beside it and renamed into place: a failed write
 * leaves path as it was and no temporary. */
ONNXOP_API int onnxop_value_write(const onnxop_value *v, const char *name, const char *path, int format,
                                  onnxop_error **err);
/* The same into a new buffer (*buf, *len), freed with onnxop_free; format
 * must not be AUTO. */
ONNXOP_API int onnxop_value_write_buffer(const onnxop_value *v, const char *name, int format, void **buf,
                                         size_t *len, onnxop_error **err);
ONNXOP_API void onnxop_free(void *p);

/* ---- running ---- */
typedef struct onnxop_run_options onnxop_run_options;
/* Options, all unset: one thread, no time limit, the default memory limit
 * (three quarters of physical memory), unseeded random ops seeded from the
 * system (or ONNXOP_SEED). NULL when memory runs out. */
ONNXOP_API onnxop_run_options *onnxop_run_options_new(void);
ONNXOP_API void onnxop_run_options_free(onnxop_run_options *o);
/* Threads for the kernels: 1 to 256, or 0 for one per CPU. Results never
 * depend on it. 0, or ONNXOP_ERR_USAGE for another count (nothing changes). */
ONNXOP_API int onnxop_run_options_set_threads(onnxop_run_options *o, int n);
/* Bytes a run may allocate (its values and scratch; the model's own not
 * counted); past it the run fails with ONNXOP_ERR_NOMEM. 0: the default. */
ONNXOP_API int onnxop_run_options_set_max_memory(onnxop_run_options *o, size_t bytes);
/* Stop the run (ONNXOP_ERR_INPUT, "the time limit of S s (timeout) is
 * reached") once seconds have passed, checked before every node and Loop
 * or Scan iteration. 0: none; negative or NaN: ONNXOP_ERR_USAGE. */
ONNXOP_API int onnxop_run_options_set_timeout(onnxop_run_options *o, double seconds);
/* Random ops without a seed attribute draw from numpy's RandomState(seed). */
ONNXOP_API int onnxop_run_options_set_seed(onnxop_run_options *o, uint32_t seed);

/* Stop runs from outside: once *flag is non-zero (an int store, from any
 * thread or a signal handler) a run with these options stops at its next
 * check (before every node and every Loop or Scan iteration, as the time
 * limit; a single long node runs to its end) with ONNXOP_ERR_CANCELLED.
 * The library only reads *flag, which must stay valid while such runs go
 * on. NULL: none. */
ONNXOP_API int onnxop_run_options_set_cancel(onnxop_run_options *o, const volatile int *flag);
/* A progress handler (as SQLite's): fn(arg) is called at those checks once
 * `interval` seconds have passed since the run began or fn was last called
 * (0: at every check), on the thread of the run; a non-zero return stops
 * the run with ONNXOP_ERR_CANCELLED. It lets a language binding's own
 * signal handling run during a long run. fn NULL: none; a negative or NaN
 * interval: ONNXOP_ERR_USAGE. */
ONNXOP_API int onnxop_run_options_set_progress(onnxop_run_options *o, double interval, int (*fn)(void *arg),
                                               void *arg);
/* What a node callback is shown of a node that has just run (later
 * versions may add fields at the end). */
typedef struct onnxop_node_info {
  const char *name;                   /* the node's name (may be "") */
  const char *op;                     /* its operator, or the model-local function it calls */
  const char *domain;                 /* "" for ai.onnx */
  int version;                        /* the opset version its implementation is from (1: a function) */
  int depth;                          /* 0: a node of the main graph; more: inside a subgraph or function */
  int n_out;
  const char *const *out_names;       /* n_out names, "" for an output left out */
  const onnxop_value *const *outputs; /* n_out values, NULL for an output left out */
} onnxop_node_info;
typedef int (*onnxop_node_fn)(void *arg, const onnxop_node_info *node);
/* Call fn(arg, node) after each node that succeeds, in the order they run,
 * on the thread of the run, the nodes of subgraphs and functions included.
 * The outputs, and what is taken from them (onnxop_sequence_at, ...), are
 * valid during the call only and must not be freed: onnxop_value_copy
 * keeps one. A non-zero return stops the run with ONNXOP_ERR_CANCELLED.
 * fn NULL: none. */
ONNXOP_API int onnxop_run_options_set_node_callback(onnxop_run_options *o, onnxop_node_fn fn, void *arg);
/* What `onnxop run --trace` (ONNXOP_TRACE_NODES: each node as it runs, its
 * inputs and outputs summarised) and `--time` (ONNXOP_TRACE_TIME: each
 * node's time) print, as text handed to write(arg, text, len) a line at a
 * time on the thread of the run (write NULL: standard error). With
 * ONNXOP_TRACE_SUMMARY too, nothing per node: after the run (or its
 * failure), the nodes run per op (with TIME, their time) and the first
 * output holding NaN or Inf, as `run --trace` prints for a graph of more
 * than 100 nodes. what 0: none; other bits: ONNXOP_ERR_USAGE. */
enum { ONNXOP_TRACE_NODES = 1, ONNXOP_TRACE_TIME = 2, ONNXOP_TRACE_SUMMARY = 4 };
typedef void (*onnxop_write_fn)(void *arg, const char *text, size_t len);
ONNXOP_API int onnxop_run_options_set_trace(onnxop_run_options *o, int what, onnxop_write_fn write, void *arg);

/* Run m. values[0..n_in) bind the inputs named names[0..n_in) (names NULL:
 * the inputs in order, as onnxop_model_input_name lists them); an input
 * left out is an error unless optional-typed (then absent). Values are
 * checked against the declared types and shapes. options may be NULL. On
 * success *outputs is a new array of *n_out values (the model's outputs in
 * order), freed with onnxop_values_free. */
ONNXOP_API int onnxop_run(const onnxop_model *m, const onnxop_run_options *options, int n_in,
                          const char *const *names, const onnxop_value *const *values, onnxop_value ***outputs,
                          int *n_out, onnxop_error **err);

/* Run m as onnxop_run does, but return the values named want[0..n_want)
 * (*outputs: a new array of n_want values in that order, freed with
 * onnxop_values_free): any value onnxop_model_value_name lists, an
 * intermediate one as the node that made it left it (a copy), an input as
 * given. A name no value has is ONNXOP_ERR_USAGE before the run. */
ONNXOP_API int onnxop_run_outputs(const onnxop_model *m, const onnxop_run_options *options, int n_in,
                                  const char *const *names, const onnxop_value *const *values, int n_want,
                                  const char *const *want, onnxop_value ***outputs, onnxop_error **err);

/* ---- comparing, as the ONNX test runners do ---- */
typedef struct onnxop_compare_report {
  int differ;         /* 1: out of tolerance, or different in structure */
  int structural;     /* 1: kind, type, dtype, shape or length differ */
  int64_t total;      /* elements compared */
  int64_t bad;        /* elements out of tolerance (or unequal) */
  double max_abs;     /* worst |got - expected| over the numbers compared */
  double max_rel;     /* worst |got - expected| / |expected| */
  char why[1024];     /* the first difference, e.g. "element [1, 2]: expected 0.5, got 0.75" */
} onnxop_compare_report;
/* Compare got with expected: floats as numpy's allclose (|got - expected| <=
 * atol + rtol * |expected|, NaN equals NaN, an infinity only the same one),
 * integers, bools and strings exactly, kinds, dtypes and shapes exactly.
 * Returns 0 when they match, 1 when they differ (report, when not NULL,
 * says how), or -1 for bad arguments (NULL values, a tolerance negative or
 * NaN; with err set). */
ONNXOP_API int onnxop_compare(const onnxop_value *got, const onnxop_value *expected, double atol, double rtol,
                              onnxop_compare_report *report, onnxop_error **err);

#ifdef __cplusplus
}
#endif
#endif
