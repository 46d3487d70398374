/* cli/make.h: what `onnxop make` builds, whether the command line or a spec
 * file (cli/spec.c) describes it. */
#ifndef OX_CLI_MAKE_H
#define OX_CLI_MAKE_H

#include <cjson/cJSON.h>

#include "../core/ox.h"

/* One input of the node. A value comes from file (a path, an inline value
 * such as float32[2]:1,2, or JSON text) or from json (a spec's "value");
 * without one it is drawn (--random). */
typedef struct {
  const char *name; /* "": a missing optional input (no graph input) */
  const char *type; /* the TYPE text (an ONNX type string or DTYPE[SHAPE]); NULL: from the value */
  const char *file;
  const char *json;
  int ranged;       /* --range NAME=LO:HI: draws in [lo, hi) (integers: [lo, hi]) */
  double lo, hi;
} mk_input;

typedef struct { const char *name, *type; } mk_output;
typedef struct { const char *name; int64_t size; } mk_dim;

/* One case, as given: sweeps (each_type, each_opset) are still to expand. */
typedef struct {
  const char *name;  /* the case's folder in a suite; NULL: test_<op>[_v<opset>][_<type>] */
  const char *op, *domain;
  int64_t opset;     /* 0: the newest onnxop knows for the domain */
  int64_t ir;        /* 0: the one the opsets need */
  int nattr, nin, nout, ndim;
  ox_attr *attr;
  mk_input *in;
  mk_output *out;    /* none: one output named "output" */
  mk_dim *dim;
  int random;        /* draw the inputs without a value, from seed */
  uint64_t seed;
  int datasets;      /* test_data_set_0 .. datasets-1 (at least 1) */
  int allow_nan, force;
  int has_rtol, has_atol;
  double rtol, atol;
  const char *each_type;  /* --for-each-type T: the placeholder, or NULL */
  const char *each_list;  /* its dtypes ("float,float16"), or NULL: the registry row's */
  int each_opset;         /* --for-each-opset */
  cJSON *prov;            /* data.json's "provenance" (the command line or the spec entry) */
} mk_case;

/* A tensor drawn from the generator state *s as --random draws (in's range,
 * if any, applies); make and run --random share it. */
int ox_draw_tensor(ox_arena *A, ox_dtype dt, int rank, const int64_t *dims, const mk_input *in, uint64_t *s,
                   ox_value **out, ox_err *e);
/* "42" -> a seed from 0 to 2^64-1; "LO:HI" -> two finite numbers, LO <= HI. 0 or -1. */
int ox_parse_seed(const char *v, uint64_t *seed);
int ox_parse_range(const char *s, double *lo, double *hi);

/* cli/spec.c: the cases of a spec file (its schema: man/onnxop.1, SPEC FILES;
 * an example: tests/spec/example.json). Files it names are relative to its
 * folder. 0, or the error in e (naming the case and the key). */
int ox_spec_load(ox_arena *A, const char *path, mk_case **cases, int *n, ox_err *e);

#endif
