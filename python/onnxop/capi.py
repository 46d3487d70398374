"""The C library, one to one: the declarations of onnxop.h and the loaded library.

This module is the thin layer: ``lib.onnxop_run(...)`` is the C function of
that name (see onnxop(3) and the header for each one), called through cffi's
ABI mode, so nothing is compiled when the package is installed. The rest of
the package builds on it; a program may use it directly.

The library is found, in this order:

1. ``ONNXOP_LIBRARY``, a path to a ``libonnxop.so``, when set;
2. ``build/libonnxop.so.0`` of the source tree this package sits in
   (``python/onnxop`` of an onnxop checkout, after ``make lib``);
3. ``libonnxop.so.0``, by its SONAME, where the system's loader finds it
   (Debian's ``libonnxop0``, or ``make install``).
"""

import os

import cffi

SONAME = "libonnxop.so.0"

ffi = cffi.FFI()
ffi.cdef("""
const char *onnxop_version(void);

typedef enum {
  ONNXOP_OK = 0, ONNXOP_ERR_INPUT = 1, ONNXOP_ERR_USAGE = 2, ONNXOP_ERR_UNSUPPORTED = 3,
  ONNXOP_ERR_NOMEM = 4
} onnxop_code;
#define ONNXOP_ERR_CANCELLED 5
typedef struct onnxop_error onnxop_error;
int onnxop_error_code(const onnxop_error *e);
const char *onnxop_error_message(const onnxop_error *e);
int onnxop_error_exit_status(const onnxop_error *e);
void onnxop_error_free(onnxop_error *e);

typedef enum {
  ONNXOP_FLOAT = 1, ONNXOP_UINT8 = 2, ONNXOP_INT8 = 3, ONNXOP_UINT16 = 4, ONNXOP_INT16 = 5,
  ONNXOP_INT32 = 6, ONNXOP_INT64 = 7, ONNXOP_STRING = 8, ONNXOP_BOOL = 9, ONNXOP_FLOAT16 = 10,
  ONNXOP_DOUBLE = 11, ONNXOP_UINT32 = 12, ONNXOP_UINT64 = 13, ONNXOP_COMPLEX64 = 14,
  ONNXOP_COMPLEX128 = 15, ONNXOP_BFLOAT16 = 16, ONNXOP_FLOAT8E4M3FN = 17,
  ONNXOP_FLOAT8E4M3FNUZ = 18, ONNXOP_FLOAT8E5M2 = 19, ONNXOP_FLOAT8E5M2FNUZ = 20,
  ONNXOP_UINT4 = 21, ONNXOP_INT4 = 22, ONNXOP_FLOAT4E2M1 = 23, ONNXOP_FLOAT8E8M0 = 24,
  ONNXOP_UINT2 = 25, ONNXOP_INT2 = 26
} onnxop_dtype;
const char *onnxop_dtype_name(int dtype);
size_t onnxop_dtype_size(int dtype);

typedef struct onnxop_model onnxop_model;
int onnxop_model_load(const char *path, onnxop_model **out, onnxop_error **err);
int onnxop_model_load_buffer(const void *buf, size_t len, onnxop_model **out, onnxop_error **err);
enum { ONNXOP_LOAD_RELEASE_PACKED = 1 };
int onnxop_model_load_with(const char *path, unsigned flags, onnxop_model **out, onnxop_error **err);
int onnxop_model_load_buffer_with(const void *buf, size_t len, unsigned flags, onnxop_model **out,
                                  onnxop_error **err);
void onnxop_model_free(onnxop_model *m);
int onnxop_model_input_count(const onnxop_model *m);
const char *onnxop_model_input_name(const onnxop_model *m, int i);
const char *onnxop_model_input_type(const onnxop_model *m, int i);
int onnxop_model_output_count(const onnxop_model *m);
const char *onnxop_model_output_name(const onnxop_model *m, int i);
const char *onnxop_model_output_type(const onnxop_model *m, int i);
int onnxop_model_input_rank(const onnxop_model *m, int i);
int64_t onnxop_model_input_dim(const onnxop_model *m, int i, int d, const char **name);
int onnxop_model_output_rank(const onnxop_model *m, int i);
int64_t onnxop_model_output_dim(const onnxop_model *m, int i, int d, const char **name);
int64_t onnxop_model_ir_version(const onnxop_model *m);
int onnxop_model_opset_count(const onnxop_model *m);
const char *onnxop_model_opset_domain(const onnxop_model *m, int i);
int64_t onnxop_model_opset_version(const onnxop_model *m, int i);
int onnxop_model_value_count(const onnxop_model *m);
const char *onnxop_model_value_name(const onnxop_model *m, int i);
int onnxop_op_supported(const char *domain, const char *op, int64_t opset, char *why, size_t n);

typedef struct onnxop_value onnxop_value;
typedef enum { ONNXOP_TENSOR = 1, ONNXOP_SEQUENCE = 2, ONNXOP_OPTIONAL = 3, ONNXOP_MAP = 4 } onnxop_kind;
int onnxop_tensor_new(int dtype, int rank, const int64_t *dims, const void *data,
                      onnxop_value **out, onnxop_error **err);
int onnxop_tensor_wrap(int dtype, int rank, const int64_t *dims, const void *data,
                       onnxop_value **out, onnxop_error **err);
int onnxop_tensor_new_strings(int rank, const int64_t *dims, const char *const *s, const size_t *len,
                              onnxop_value **out, onnxop_error **err);
typedef enum {
  ONNXOP_FORMAT_AUTO = 0, ONNXOP_FORMAT_PB = 1, ONNXOP_FORMAT_JSON = 2, ONNXOP_FORMAT_NPY = 3
} onnxop_format;
int onnxop_value_read(const char *path, int format, const char *type, onnxop_value **out,
                      onnxop_error **err);
int onnxop_value_read_buffer(const void *buf, size_t len, int format, const char *type,
                             onnxop_value **out, onnxop_error **err);
const char *onnxop_value_name(const onnxop_value *v);
int onnxop_sequence_new(const char *elem_type, int64_t n, const onnxop_value *const *elems,
                        onnxop_value **out, onnxop_error **err);
int onnxop_optional_new(const char *elem_type, const onnxop_value *elem, onnxop_value **out,
                        onnxop_error **err);
int onnxop_map_new(const onnxop_value *keys, const onnxop_value *values, onnxop_value **out,
                   onnxop_error **err);
int onnxop_value_copy(const onnxop_value *v, onnxop_value **out, onnxop_error **err);
void onnxop_value_free(onnxop_value *v);
void onnxop_values_free(onnxop_value **v, int n);
int onnxop_value_kind(const onnxop_value *v);
const char *onnxop_value_type(const onnxop_value *v, char *buf, size_t n);
int onnxop_value_dtype(const onnxop_value *v);
int onnxop_value_rank(const onnxop_value *v);
const int64_t *onnxop_value_dims(const onnxop_value *v);
int64_t onnxop_value_numel(const onnxop_value *v);
const void *onnxop_value_data(const onnxop_value *v);
const char *onnxop_value_string(const onnxop_value *v, int64_t i, size_t *len);
int64_t onnxop_sequence_length(const onnxop_value *v);
int onnxop_sequence_at(const onnxop_value *v, int64_t i, onnxop_value **out, onnxop_error **err);
int onnxop_optional_has_element(const onnxop_value *v);
int onnxop_optional_element(const onnxop_value *v, onnxop_value **out, onnxop_error **err);
int onnxop_map_keys(const onnxop_value *v, onnxop_value **out, onnxop_error **err);
int onnxop_map_values(const onnxop_value *v, onnxop_value **out, onnxop_error **err);
int onnxop_value_write(const onnxop_value *v, const char *name, const char *path, int format,
                       onnxop_error **err);
int onnxop_value_write_buffer(const onnxop_value *v, const char *name, int format, void **buf,
                              size_t *len, onnxop_error **err);
void onnxop_free(void *p);

typedef struct onnxop_run_options onnxop_run_options;
onnxop_run_options *onnxop_run_options_new(void);
void onnxop_run_options_free(onnxop_run_options *o);
int onnxop_run_options_set_threads(onnxop_run_options *o, int n);
int onnxop_run_options_set_max_memory(onnxop_run_options *o, size_t bytes);
int onnxop_run_options_set_timeout(onnxop_run_options *o, double seconds);
int onnxop_run_options_set_seed(onnxop_run_options *o, uint32_t seed);
int onnxop_run_options_set_cancel(onnxop_run_options *o, const volatile int *flag);
int onnxop_run_options_set_progress(onnxop_run_options *o, double interval, int (*fn)(void *arg),
                                    void *arg);
typedef struct onnxop_node_info {
  const char *name;
  const char *op;
  const char *domain;
  int version;
  int depth;
  int n_out;
  const char *const *out_names;
  const onnxop_value *const *outputs;
} onnxop_node_info;
typedef int (*onnxop_node_fn)(void *arg, const onnxop_node_info *node);
int onnxop_run_options_set_node_callback(onnxop_run_options *o, onnxop_node_fn fn, void *arg);
enum { ONNXOP_TRACE_NODES = 1, ONNXOP_TRACE_TIME = 2, ONNXOP_TRACE_SUMMARY = 4 };
typedef void (*onnxop_write_fn)(void *arg, const char *text, size_t len);
int onnxop_run_options_set_trace(onnxop_run_options *o, int what, onnxop_write_fn write, void *arg);
int onnxop_run(const onnxop_model *m, const onnxop_run_options *options, int n_in,
               const char *const *names, const onnxop_value *const *values,
               onnxop_value ***outputs, int *n_out, onnxop_error **err);
int onnxop_run_outputs(const onnxop_model *m, const onnxop_run_options *options, int n_in,
                       const char *const *names, const onnxop_value *const *values, int n_want,
                       const char *const *want, onnxop_value ***outputs, onnxop_error **err);

typedef struct onnxop_compare_report {
  int differ;
  int structural;
  int64_t total;
  int64_t bad;
  double max_abs;
  double max_rel;
  char why[1024];
} onnxop_compare_report;
int onnxop_compare(const onnxop_value *got, const onnxop_value *expected, double atol, double rtol,
                   onnxop_compare_report *report, onnxop_error **err);
""")


# The oldest library with every function declared above.
NEEDS = (0, 2)


def library_path():
    """The path or name the library is loaded from (see the module's doc)."""
    env = os.environ.get("ONNXOP_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.dirname(os.path.dirname(here))
    if os.path.exists(os.path.join(tree, "include", "onnxop.h")):
        built = os.path.join(tree, "build", SONAME)
        if not os.path.exists(built):
            raise ImportError(f"{built} is missing: run 'make lib' in {tree} "
                              "(or point ONNXOP_LIBRARY at a libonnxop.so)")
        return built
    return SONAME


def _load():
    path = library_path()
    try:
        loaded = ffi.dlopen(path)
    except OSError as e:
        raise ImportError(f"cannot load the onnxop library {path}: {e}") from None
    version = ffi.string(loaded.onnxop_version()).decode()
    if tuple(int(x) for x in version.split(".")[:2]) < NEEDS:
        raise ImportError(f"{path} is onnxop {version}; this package needs "
                          f"{NEEDS[0]}.{NEEDS[1]} or later")
    return loaded


lib = _load()
