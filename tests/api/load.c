/* tests/api/load.c: load: what onnxop_model_load_buffer takes to load a
 * model, and that it ends (issue 27). The models are written here, protobuf
 * by hand (tests/bad/gen.c does the same for the command):
 *   - a Split of x: (N) into N outputs and y = Identity(o0), and the same
 *     outputs from ceil(N / 4) Splits (all of them returned), for N = 1, 15,
 *     16, 17, 1000, 10000, loaded and run with a time limit of 2 s (a name
 *     table sized by the node count took every output and was then probed
 *     for ever: 16 outputs on 2 nodes, or on 4 Splits, hung the load);
 *   - ten Adds of a: (1, 4096) + b: (4096, 1) initializers (64 MiB each),
 *     each summed by a ReduceSum: loading it once kept every Add's result
 *     (640 MiB, constant folding); now the process's resident memory grows
 *     by less than 64 MiB, and the model still runs right.
 * The runner (tests/api/run.sh) stops it after a while: a hang fails.
 * Prints "api load: N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxop.h>

static int pass, fail;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (cond) pass++;                                                                 \
    else {                                                                            \
      fail++;                                                                         \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                          \
    }                                                                                 \
  } while (0)

/* ---- protobuf by hand: a message is fields (tag = number << 3 | wire type) ---- */
typedef struct { unsigned char *p; size_t n, cap; } buf;

static void put(buf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    if (!b->p) {
      printf("api load: out of memory\n");
      exit(1);
    }
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}
static void varint(buf *b, uint64_t v) {
  unsigned char c;
  do {
    c = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    put(b, &c, 1);
    v >>= 7;
  } while (v);
}
static void f_int(buf *b, int field, int64_t v) {
  varint(b, (uint64_t)field << 3);
  varint(b, (uint64_t)v);
}
static void f_bytes(buf *b, int field, const void *p, size_t n) {
  varint(b, (uint64_t)field << 3 | 2);
  varint(b, n);
  put(b, p, n);
}
static void f_str(buf *b, int field, const char *s) { f_bytes(b, field, s, strlen(s)); }
/* m as field `field` of b; m freed */
static void f_msg(buf *b, int field, buf *m) {
  f_bytes(b, field, m->p, m->n);
  free(m->p);
  *m = (buf){0};
}

/* onnx-ml.proto's field numbers */
enum { MODEL_IR = 1, MODEL_GRAPH = 7, MODEL_OPSET = 8 };
enum { GRAPH_NODE = 1, GRAPH_NAME = 2, GRAPH_INIT = 5, GRAPH_INPUT = 11, GRAPH_OUTPUT = 12 };
enum { NODE_IN = 1, NODE_OUT = 2, NODE_NAME = 3, NODE_OP = 4, NODE_ATTR = 5 };
enum { T_DIMS = 1, T_DTYPE = 2, T_NAME = 8, T_RAW = 9, FLOAT = 1 };

static buf node(const char *op, const char *name, int nin, const char *const *in, int nout, const char *const *out) {
  buf n = {0};
  for (int i = 0; i < nin; i++) f_str(&n, NODE_IN, in[i]);
  for (int i = 0; i < nout; i++) f_str(&n, NODE_OUT, out[i]);
  f_str(&n, NODE_NAME, name);
  f_str(&n, NODE_OP, op);
  return n;
}
/* ValueInfoProto of a float tensor of shape (d) (d < 0: no shape) */
static buf value_info(const char *name, int64_t d) {
  buf dim = {0}, shape = {0}, tt = {0}, ty = {0}, v = {0};
  f_int(&tt, 1, FLOAT); /* elem_type */
  if (d >= 0) {
    f_int(&dim, 1, d);          /* dim_value */
    f_msg(&shape, 1, &dim);     /* dim */
    f_msg(&tt, 2, &shape);      /* shape */
  }
  f_msg(&ty, 1, &tt); /* tensor_type */
  f_str(&v, 1, name);
  f_msg(&v, 2, &ty);
  return v;
}
static buf model(buf *graph, int opset) {
  buf m = {0}, o = {0};
  f_int(&m, MODEL_IR, 8);
  f_str(&o, 1, "");
  f_int(&o, 2, opset);
  f_msg(&m, MODEL_OPSET, &o);
  f_msg(&m, MODEL_GRAPH, graph);
  return m;
}

/* ---- wide nodes ---- */

static buf wide_model(int N, int many) {
  buf g = {0}, v;
  char **names = malloc((size_t)N * sizeof *names);
  for (int k = 0; k < N; k++) {
    names[k] = malloc(16);
    snprintf(names[k], 16, "o%d", k);
  }
  for (int s = 0, first = 0; first < N; s++) {
    int count = many ? (N - first < 4 ? N - first : 4) : N;
    const char *in[] = {!many ? "x" : count == 4 ? "x4" : "xr"};
    char nm[32];
    snprintf(nm, sizeof nm, "split%d", s);
    buf n = node("Split", nm, 1, in, count, (const char *const *)names + first); /* Split-13: equal parts */
    f_msg(&g, GRAPH_NODE, &n);
    first += count;
  }
  if (!many) {
    const char *idin[] = {"o0"}, *idout[] = {"y"};
    buf n = node("Identity", "id", 1, idin, 1, idout);
    f_msg(&g, GRAPH_NODE, &n);
  }
  f_str(&g, GRAPH_NAME, "wide");
  if (!many) {
    v = value_info("x", N);
    f_msg(&g, GRAPH_INPUT, &v);
  } else {
    v = value_info("x4", 4);
    f_msg(&g, GRAPH_INPUT, &v);
    if (N % 4) {
      v = value_info("xr", N % 4);
      f_msg(&g, GRAPH_INPUT, &v);
    }
  }
  if (!many) {
    v = value_info("y", 1);
    f_msg(&g, GRAPH_OUTPUT, &v);
  }
  for (int k = 0; many && k < N; k++) {
    v = value_info(names[k], 1);
    f_msg(&g, GRAPH_OUTPUT, &v);
  }
  for (int k = 0; k < N; k++) free(names[k]);
  free(names);
  return model(&g, 13);
}

static onnxop_value *floats(int64_t n) {
  float *x = malloc((size_t)n * sizeof *x);
  for (int64_t i = 0; i < n; i++) x[i] = (float)(i + 1);
  onnxop_value *v = NULL;
  onnxop_error *err = NULL;
  if (onnxop_tensor_new(ONNXOP_FLOAT, 1, &n, x, &v, &err)) {
    printf("FAIL tensor_new: %s\n", onnxop_error_message(err));
    onnxop_error_free(err);
  }
  free(x);
  return v;
}

static void wide(int N, int many, const onnxop_run_options *o) {
  buf m = wide_model(N, many);
  onnxop_model *M = NULL;
  onnxop_error *err = NULL;
  int rc = onnxop_model_load_buffer(m.p, m.n, &M, &err);
  free(m.p);
  CHECK(rc == 0);
  if (rc) {
    printf("FAIL wide(%d, %d): %s\n", N, many, onnxop_error_message(err));
    onnxop_error_free(err);
    return;
  }
  onnxop_value *in[2] = {NULL, NULL};
  int nin = 1;
  if (!many) in[0] = floats(N);
  else {
    in[0] = floats(4);
    if (N % 4) in[1] = floats(N % 4), nin = 2;
  }
  onnxop_value **out = NULL;
  int nout = 0;
  rc = onnxop_run(M, o, nin, NULL, (const onnxop_value *const *)in, &out, &nout, &err);
  CHECK(rc == 0 && nout == (many ? N : 1));
  if (rc) {
    printf("FAIL wide(%d, %d) run: %s\n", N, many, onnxop_error_message(err));
    onnxop_error_free(err);
  } else {
    int bad = 0;
    for (int k = 0; k < nout; k++) { /* y = o0 = 1; oK = K % 4 + 1 */
      const float *y = onnxop_value_data(out[k]);
      bad += !y || y[0] != (float)(k % 4 + 1);
    }
    CHECK(bad == 0);
    onnxop_values_free(out, nout);
  }
  for (int i = 0; i < 2; i++) onnxop_value_free(in[i]);
  onnxop_model_free(M);
}

/* ---- folding: ten Adds of (1, 4096) + (4096, 1) initializers ---- */

static buf init(const char *name, int64_t d0, int64_t d1) {
  buf t = {0};
  f_int(&t, T_DIMS, d0);
  f_int(&t, T_DIMS, d1);
  f_int(&t, T_DTYPE, FLOAT);
  f_str(&t, T_NAME, name);
  size_t n = (size_t)(d0 * d1) * 4;
  float *ones = malloc(n);
  for (size_t i = 0; i < n / 4; i++) ones[i] = 1;
  f_bytes(&t, T_RAW, ones, n);
  free(ones);
  return t;
}

static buf adds_model(int k, int side) {
  buf g = {0}, v;
  for (int i = 0; i < k; i++) {
    char s[16], r[16], an[16], rn[16];
    snprintf(s, sizeof s, "s%d", i);
    snprintf(r, sizeof r, "r%d", i);
    snprintf(an, sizeof an, "add%d", i);
    snprintf(rn, sizeof rn, "sum%d", i);
    const char *ab[] = {"a", "b"}, *so[] = {s}, *ro[] = {r};
    buf n = node("Add", an, 2, ab, 1, so);
    f_msg(&g, GRAPH_NODE, &n);
    n = node("ReduceSum", rn, 1, so, 1, ro); /* all axes: a scalar */
    buf at = {0};
    f_str(&at, 1, "keepdims");
    f_int(&at, 3, 0);  /* i */
    f_int(&at, 20, 2); /* type INT */
    f_msg(&n, NODE_ATTR, &at);
    f_msg(&g, GRAPH_NODE, &n);
    v = value_info(r, -1);
    f_msg(&g, GRAPH_OUTPUT, &v);
  }
  f_str(&g, GRAPH_NAME, "adds");
  v = init("a", 1, side);
  f_msg(&g, GRAPH_INIT, &v);
  v = init("b", side, 1);
  f_msg(&g, GRAPH_INIT, &v);
  return model(&g, 13);
}

/* resident memory, from /proc/self/statm (pages) */
static long rss_mib(void) {
  long size = 0, res = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &res) != 2) res = 0;
    fclose(f);
  }
  return res * 4096 / (1 << 20);
}

static void folding(void) {
  buf m = adds_model(10, 4096);
  onnxop_model *M = NULL;
  onnxop_error *err = NULL;
  long before = rss_mib();
  int rc = onnxop_model_load_buffer(m.p, m.n, &M, &err);
  long grew = rss_mib() - before;
  free(m.p);
  CHECK(rc == 0);
  if (rc) {
    printf("FAIL folding: %s\n", onnxop_error_message(err));
    onnxop_error_free(err);
    return;
  }
  CHECK(grew < 64);
  if (grew >= 64) printf("FAIL folding: loading the model took %ld MiB\n", grew);
  onnxop_value **out = NULL;
  int nout = 0;
  rc = onnxop_run(M, NULL, 0, NULL, NULL, &out, &nout, &err);
  CHECK(rc == 0 && nout == 10);
  if (rc) {
    printf("FAIL folding run: %s\n", onnxop_error_message(err));
    onnxop_error_free(err);
  } else {
    const float *r = onnxop_value_data(out[9]);
    CHECK(r && r[0] == 2.0f * 4096 * 4096); /* 1 + 1, 4096 * 4096 times */
    onnxop_values_free(out, nout);
  }
  onnxop_model_free(M);
}

int main(void) {
  onnxop_run_options *o = onnxop_run_options_new();
  if (!o || onnxop_run_options_set_timeout(o, 2)) {
    printf("api load: no run options\n");
    return 1;
  }
  static const int ns[] = {1, 15, 16, 17, 1000, 10000};
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
    for (int many = 0; many < 2; many++) wide(ns[i], many, o);
  onnxop_run_options_free(o);
  folding();
  printf("api load: %d passed, %d failed\n", pass, fail);
  return fail != 0;
}
