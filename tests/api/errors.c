/* tests/api/errors.c: errors SUITE TMPDIR: the API's answers to bad input
 * (codes and messages), and its values, files and comparisons, on cases of
 * the node-test suite SUITE (test_abs, test_add, test_identity,
 * test_identity_sequence). Prints "api errors: N passed, M failed". */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "case.h"

static int pass, fail;
static const char *suite, *tmp;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (cond) pass++;                                                                 \
    else {                                                                            \
      fail++;                                                                         \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                          \
    }                                                                                 \
  } while (0)

/* rc is code, and err (then freed) says it with `has` in its message */
static void expect(int line, int rc, onnxop_error **err, int code, const char *has) {
  const char *msg = onnxop_error_message(*err);
  if (rc == code && onnxop_error_code(*err) == code && strstr(msg, has)) pass++;
  else {
    fail++;
    printf("FAIL errors.c:%d: got %d (%d) '%s'; expected %d with '%s'\n", line, rc, onnxop_error_code(*err), msg,
           code, has);
  }
  onnxop_error_free(*err);
  *err = NULL;
}
#define EXPECT(call, code, has) expect(__LINE__, (call), &err, code, has)

static char *path_of(const char *a, const char *b) {
  static char buf[4][4096];
  static int k;
  char *p = buf[k++ % 4];
  snprintf(p, 4096, "%s/%s", a, b);
  return p;
}

/* how many names in dir hold ".tmp." (a temporary left behind) */
static int temps_in(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *de; d && (de = readdir(d));) n += strstr(de->d_name, ".tmp.") != NULL;
  if (d) closedir(d);
  return n;
}

static void *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *p = malloc((size_t)n + 1);
  *len = p ? fread(p, 1, (size_t)n, f) : 0;
  fclose(f);
  return p;
}

static void test_models(void) {
  onnxop_error *err = NULL;
  onnxop_model *m = NULL;
  EXPECT(onnxop_model_load(NULL, &m, &err), ONNXOP_ERR_USAGE, "path is NULL");
  EXPECT(onnxop_model_load(path_of(tmp, "none.onnx"), &m, &err), ONNXOP_ERR_INPUT, "none.onnx: cannot open model");
  EXPECT(onnxop_model_load(path_of(suite, "test_abs/model.onnx"), NULL, &err), ONNXOP_ERR_USAGE, "out is NULL");
  CHECK(m == NULL);
  size_t len;
  char *buf = slurp(path_of(suite, "test_abs/model.onnx"), &len);
  CHECK(buf != NULL);
  if (!buf) return;
  /* cut short: refused; whole: loaded, with its input and output */
  EXPECT(onnxop_model_load_buffer(buf, len / 2, &m, &err), ONNXOP_ERR_INPUT, "not a valid ONNX model");
  EXPECT(onnxop_model_load_buffer(NULL, len, &m, &err), ONNXOP_ERR_USAGE, "buf is NULL");
  /* with flags: NULLs and unknown flags refused; RELEASE_PACKED loads */
  EXPECT(onnxop_model_load_with(NULL, 0, &m, &err), ONNXOP_ERR_USAGE, "path is NULL");
  EXPECT(onnxop_model_load_with(path_of(suite, "test_abs/model.onnx"), 0, NULL, &err), ONNXOP_ERR_USAGE, "out is NULL");
  EXPECT(onnxop_model_load_with(path_of(suite, "test_abs/model.onnx"), 8, &m, &err), ONNXOP_ERR_USAGE,
         "unknown load flags 0x8");
  EXPECT(onnxop_model_load_buffer_with(NULL, len, 0, &m, &err), ONNXOP_ERR_USAGE, "buf is NULL");
  EXPECT(onnxop_model_load_buffer_with(buf, len, ~0u, &m, &err), ONNXOP_ERR_USAGE, "unknown load flags");
  CHECK(m == NULL);
  CHECK(onnxop_model_load_buffer_with(buf, len, ONNXOP_LOAD_RELEASE_PACKED, &m, &err) == 0);
  onnxop_model_free(m);
  CHECK(onnxop_model_load_with(path_of(suite, "test_abs/model.onnx"), ONNXOP_LOAD_RELEASE_PACKED, &m, &err) == 0);
  onnxop_model_free(m);
  CHECK(onnxop_model_load_buffer(buf, len, &m, &err) == 0);
  CHECK(onnxop_model_input_count(m) == 1 && onnxop_model_output_count(m) == 1);
  CHECK(!strcmp(onnxop_model_input_name(m, 0), "x") && !strcmp(onnxop_model_input_type(m, 0), "tensor(float)"));
  CHECK(!strcmp(onnxop_model_output_name(m, 0), "y") && onnxop_model_input_name(m, 1) == NULL);
  onnxop_model_free(m);
  /* an operator this build lacks: Abs renamed Abz */
  char *op = memmem(buf, len, "Abs", 3);
  CHECK(op != NULL);
  if (op) {
    op[2] = 'z';
    EXPECT(onnxop_model_load_buffer(buf, len, &m, &err), ONNXOP_ERR_UNSUPPORTED, "unsupported operator Abz");
  }
  free(buf);
}

/* ---- graphs as they are met in the wild, in protobuf bytes ---- */

/* a length-delimited field (field < 16, len < 128: one byte each) */
static size_t pb_field(uint8_t *out, int field, const void *p, size_t len) {
  out[0] = (uint8_t)(field << 3 | 2);
  out[1] = (uint8_t)len;
  memcpy(out + 2, p, len);
  return len + 2;
}
static size_t pb_str(uint8_t *out, int field, const char *s) { return pb_field(out, field, s, strlen(s)); }
/* NodeProto: input 1, output 2, name 3, op_type 4 */
static size_t pb_node(uint8_t *out, const char *op, const char *name, const char *in0, const char *in1,
                      const char *o) {
  uint8_t n[96];
  size_t k = pb_str(n, 1, in0);
  if (in1) k += pb_str(n + k, 1, in1);
  k += pb_str(n + k, 2, o);
  k += pb_str(n + k, 3, name);
  k += pb_str(n + k, 4, op);
  return pb_field(out, 1, n, k);
}
/* ValueInfoProto of a float tensor: name 1, type 2 (TypeProto.tensor_type 1:
 * elem_type 1 = FLOAT) */
static size_t pb_vi(uint8_t *out, int field, const char *name) {
  static const uint8_t ty[] = {0x0a, 0x02, 0x08, 0x01};
  uint8_t v[32];
  size_t k = pb_str(v, 1, name);
  k += pb_field(v + k, 2, ty, sizeof ty);
  return pb_field(out, field, v, k);
}
/* ModelProto: ir_version 8, graph 7 (node 1, name 2, input 11, output 12),
 * opset_import 8 (ai.onnx 13); nodes[] holds what pb_node wrote */
static size_t pb_model(uint8_t *out, const uint8_t *nodes, size_t nlen) {
  uint8_t g[120];
  size_t k = 0;
  memcpy(g, nodes, nlen);
  k = nlen + pb_str(g + nlen, 2, "g");
  k += pb_vi(g + k, 11, "x");
  k += pb_vi(g + k, 12, "z");
  static const uint8_t head[] = {0x08, 0x08, 0x42, 0x02, 0x10, 0x0d}; /* ir_version 8; opset 13 */
  memcpy(out, head, sizeof head);
  return sizeof head + pb_field(out + sizeof head, 7, g, k);
}

/* Nodes out of topological order run in dependency order (as `onnxop run`
 * does, with its warning); two nodes writing one name are refused by index
 * and name. */
static void test_graph_order(void) {
  onnxop_error *err = NULL;
  onnxop_model *m = NULL;
  uint8_t nodes[100], model[200];
  /* z = Sub(y, x) listed before y = Neg(x): z = -2x */
  size_t k = pb_node(nodes, "Sub", "sub_first", "y", "x", "z");
  k += pb_node(nodes + k, "Neg", "neg_second", "x", NULL, "y");
  size_t len = pb_model(model, nodes, k);
  CHECK(onnxop_model_load_buffer(model, len, &m, &err) == 0);
  if (m) {
    float xs[2] = {1, 2};
    int64_t d = 2;
    onnxop_value *x = NULL, **out = NULL;
    int nout = 0;
    const char *names[] = {"x"};
    CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 1, &d, xs, &x, &err) == 0);
    CHECK(onnxop_run(m, NULL, 1, names, (const onnxop_value *const *)&x, &out, &nout, &err) == 0);
    const float *z = out && nout == 1 ? onnxop_value_data(out[0]) : NULL;
    CHECK(z && z[0] == -2 && z[1] == -4);
    onnxop_values_free(out, nout);
    onnxop_value_free(x);
    onnxop_model_free(m);
    m = NULL;
  }
  onnxop_error_free(err);
  err = NULL;
  /* y written by both nodes */
  k = pb_node(nodes, "Neg", "w1", "x", NULL, "z");
  k += pb_node(nodes + k, "Abs", "w2", "x", NULL, "z");
  len = pb_model(model, nodes, k);
  EXPECT(onnxop_model_load_buffer(model, len, &m, &err), ONNXOP_ERR_INPUT,
         "nodes 0 'w1' Neg and 1 'w2' Abs both write 'z': onnx requires one writer per name, and onnxruntime "
         "refuses it too");
  CHECK(m == NULL);
}

static void test_runs(void) {
  onnxop_error *err = NULL;
  api_case c;
  if (case_load(path_of(suite, "test_add"), &c, &err)) {
    printf("FAIL test_add: %s\n", onnxop_error_message(err));
    fail++;
    onnxop_error_free(err);
    return;
  }
  onnxop_value **out = NULL;
  int n = 0;
  const onnxop_value *const *in = (const onnxop_value *const *)c.in;
  const char *xy[] = {"x", "y"}, *yx[] = {"y", "x"}, *xx[] = {"x", "x"}, *xz[] = {"x", "nope"};
  CHECK(onnxop_run(c.m, NULL, 2, xy, in, &out, &n, &err) == 0 && n == 1);
  onnxop_values_free(out, n);
  /* by name in another order: y=x's value and x=y's: the same sum */
  CHECK(onnxop_run(c.m, NULL, 2, yx, in, &out, &n, &err) == 0 && onnxop_compare(out[0], c.want[0], 0, 0, NULL, NULL) == 0);
  onnxop_values_free(out, n);
  EXPECT(onnxop_run(c.m, NULL, 2, xz, in, &out, &n, &err), ONNXOP_ERR_USAGE,
         "the model has no input named 'nope' (its inputs: 'x', 'y')");
  EXPECT(onnxop_run(c.m, NULL, 2, xx, in, &out, &n, &err), ONNXOP_ERR_USAGE, "input 'x' is given twice");
  const onnxop_value *three[] = {c.in[0], c.in[1], c.in[0]};
  EXPECT(onnxop_run(c.m, NULL, 3, NULL, three, &out, &n, &err), ONNXOP_ERR_USAGE, "too many inputs: the model takes 2");
  EXPECT(onnxop_run(c.m, NULL, 1, NULL, in, &out, &n, &err), ONNXOP_ERR_INPUT, "input 'y' was not given");
  const onnxop_value *hole[] = {c.in[0], NULL};
  EXPECT(onnxop_run(c.m, NULL, 2, NULL, hole, &out, &n, &err), ONNXOP_ERR_USAGE, "input 1 is NULL");
  EXPECT(onnxop_run(NULL, NULL, 2, NULL, in, &out, &n, &err), ONNXOP_ERR_USAGE, "the model is NULL");
  EXPECT(onnxop_run(c.m, NULL, 2, NULL, in, NULL, &n, &err), ONNXOP_ERR_USAGE, "outputs is NULL");
  CHECK(out == NULL && n == 0);
  /* wrong dtype, wrong shape: x is float (3, 4, 5) */
  int64_t d[3] = {3, 4, 5};
  onnxop_value *i64 = NULL, *small = NULL;
  CHECK(onnxop_tensor_new(ONNXOP_INT64, 3, d, NULL, &i64, &err) == 0);
  CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 2, d, NULL, &small, &err) == 0);
  const onnxop_value *bad_t[] = {i64, c.in[1]}, *bad_s[] = {small, c.in[1]};
  EXPECT(onnxop_run(c.m, NULL, 2, NULL, bad_t, &out, &n, &err), ONNXOP_ERR_INPUT,
         "input 'x' is tensor(int64); the model declares tensor(float)");
  EXPECT(onnxop_run(c.m, NULL, 2, NULL, bad_s, &out, &n, &err), ONNXOP_ERR_INPUT,
         "input 'x' has rank 2 (shape (3, 4)); the model declares rank 3");
  onnxop_value_free(i64);
  onnxop_value_free(small);
  /* options: a time limit already past, a memory limit nothing fits in */
  onnxop_run_options *o = onnxop_run_options_new();
  CHECK(o != NULL);
  CHECK(onnxop_run_options_set_timeout(o, -1) == ONNXOP_ERR_USAGE && onnxop_run_options_set_threads(o, 257) == ONNXOP_ERR_USAGE);
  CHECK(onnxop_run_options_set_timeout(o, 1e-9) == 0);
  EXPECT(onnxop_run(c.m, o, 2, NULL, in, &out, &n, &err), ONNXOP_ERR_INPUT, "the time limit of 1e-09 s (timeout) is reached");
  CHECK(onnxop_run_options_set_timeout(o, 0) == 0 && onnxop_run_options_set_max_memory(o, 1000) == 0);
  EXPECT(onnxop_run(c.m, o, 2, NULL, in, &out, &n, &err), ONNXOP_ERR_NOMEM, "out of memory");
  /* and the next run, with room and 2 threads, is fine: the limit was the run's */
  CHECK(onnxop_run_options_set_max_memory(o, 0) == 0 && onnxop_run_options_set_threads(o, 2) == 0);
  CHECK(onnxop_run(c.m, o, 2, NULL, in, &out, &n, &err) == 0);
  onnxop_run_options_free(o);
  /* the output outlives the model and the inputs */
  case_free(&c);
  onnxop_value *want = NULL;
  CHECK(onnxop_value_read(path_of(suite, "test_add/test_data_set_0/output_0.pb"), 0, NULL, &want, &err) == 0);
  CHECK(onnxop_compare(out[0], want, 0, 0, NULL, &err) == 0);
  onnxop_values_free(out, n);
  onnxop_value_free(want);
  /* Identity returns its input: the output keeps it alive */
  CHECK(case_load(path_of(suite, "test_identity"), &c, &err) == 0);
  CHECK(onnxop_run(c.m, NULL, c.nin, NULL, (const onnxop_value *const *)c.in, &out, &n, &err) == 0);
  onnxop_value *w = c.want[0];
  c.want[0] = NULL;
  c.nout = 0;
  case_free(&c);
  CHECK(onnxop_compare(out[0], w, 0, 0, NULL, &err) == 0);
  onnxop_value_free(w);
  onnxop_values_free(out, n);
}

static void test_values(void) {
  onnxop_error *err = NULL;
  onnxop_value *v = NULL, *s = NULL, *e = NULL, *o = NULL;
  int64_t d[2] = {2, 3};
  float f[6] = {1, 2, 3, 4, 5, 6};
  EXPECT(onnxop_tensor_new(99, 2, d, f, &v, &err), ONNXOP_ERR_USAGE, "99 is not an element type");
  EXPECT(onnxop_tensor_new(ONNXOP_FLOAT, 2, NULL, f, &v, &err), ONNXOP_ERR_USAGE, "dims is NULL for rank 2");
  int64_t neg[2] = {2, -1};
  EXPECT(onnxop_tensor_new(ONNXOP_FLOAT, 2, neg, f, &v, &err), ONNXOP_ERR_USAGE, "dim 1 is -1");
  EXPECT(onnxop_tensor_wrap(ONNXOP_FLOAT, 2, d, (char *)f + 1, &v, &err), ONNXOP_ERR_USAGE, "not aligned");
  uint8_t bools[3] = {1, 0, 2};
  int8_t i4[2] = {-8, 8};
  int64_t three = 3;
  EXPECT(onnxop_tensor_new(ONNXOP_BOOL, 1, &three, bools, &v, &err), ONNXOP_ERR_USAGE, "element 2 is 2; a bool holds 0 to 1");
  EXPECT(onnxop_tensor_wrap(ONNXOP_INT4, 1, d, i4, &v, &err), ONNXOP_ERR_USAGE, "element 1 is 8; a int4 holds -8 to 7");
  const char *strs[2] = {"a", "b"};
  int64_t two = 2;
  EXPECT(onnxop_tensor_wrap(ONNXOP_STRING, 1, &two, strs, &v, &err), ONNXOP_ERR_USAGE, "string tensor");
  /* wrapped: the caller's memory itself; copied: not */
  CHECK(onnxop_tensor_wrap(ONNXOP_FLOAT, 2, d, f, &v, &err) == 0 && onnxop_value_data(v) == f);
  CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 2, d, f, &e, &err) == 0 && onnxop_value_data(e) != f);
  CHECK(onnxop_value_rank(v) == 2 && onnxop_value_dims(v)[1] == 3 && onnxop_value_numel(v) == 6);
  CHECK(onnxop_value_kind(v) == ONNXOP_TENSOR && onnxop_value_dtype(v) == ONNXOP_FLOAT);
  CHECK(onnxop_compare(v, e, 0, 0, NULL, &err) == 0);
  char t[64];
  CHECK(!strcmp(onnxop_value_type(v, t, sizeof t), "tensor(float)"));
  /* a sequence and an optional of them */
  const onnxop_value *els[2] = {v, e};
  CHECK(onnxop_sequence_new(NULL, 2, els, &s, &err) == 0 && onnxop_sequence_length(s) == 2);
  CHECK(!strcmp(onnxop_value_type(s, t, sizeof t), "seq(tensor(float))"));
  onnxop_value *at = NULL;
  CHECK(onnxop_sequence_at(s, 1, &at, &err) == 0 && onnxop_compare(at, e, 0, 0, NULL, &err) == 0);
  onnxop_value *no = NULL;
  EXPECT(onnxop_sequence_at(s, 2, &no, &err), ONNXOP_ERR_USAGE, "index 2 is out of range");
  EXPECT(onnxop_sequence_at(v, 0, &no, &err), ONNXOP_ERR_USAGE, "the value is not a sequence");
  onnxop_value *strt = NULL, *mixed = NULL;
  CHECK(onnxop_tensor_new(ONNXOP_STRING, 1, &two, strs, &strt, &err) == 0);
  CHECK(!strcmp(onnxop_value_string(strt, 1, NULL), "b") && onnxop_value_data(strt) == NULL);
  const onnxop_value *mix[2] = {v, strt};
  EXPECT(onnxop_sequence_new(NULL, 2, mix, &mixed, &err), ONNXOP_ERR_INPUT,
         "element 1 is tensor(string); the sequence holds tensor(float)");
  EXPECT(onnxop_sequence_new(NULL, 0, NULL, &mixed, &err), ONNXOP_ERR_USAGE, "needs its element type");
  EXPECT(onnxop_sequence_new("tensor(flaot)", 0, NULL, &mixed, &err), ONNXOP_ERR_USAGE, "bad element type");
  CHECK(onnxop_optional_new(NULL, s, &o, &err) == 0 && onnxop_optional_has_element(o) == 1);
  onnxop_value *none = NULL, *el = NULL;
  CHECK(onnxop_optional_new("tensor(int64)", NULL, &none, &err) == 0 && onnxop_optional_has_element(none) == 0);
  EXPECT(onnxop_optional_element(none, &el, &err), ONNXOP_ERR_USAGE, "the optional is empty");
  CHECK(onnxop_optional_element(o, &el, &err) == 0 && onnxop_compare(el, s, 0, 0, NULL, &err) == 0);
  /* written and read back, as a file and a buffer, in each format */
  for (int fmt = ONNXOP_FORMAT_PB; fmt <= ONNXOP_FORMAT_JSON; fmt++) {
    void *buf = NULL;
    size_t len = 0;
    onnxop_value *back = NULL;
    CHECK(onnxop_value_write_buffer(o, "opt", fmt, &buf, &len, &err) == 0);
    CHECK(onnxop_value_read_buffer(buf, len, ONNXOP_FORMAT_AUTO, NULL, &back, &err) == 0);
    CHECK(onnxop_compare(back, o, 0, 0, NULL, &err) == 0 && !strcmp(onnxop_value_name(back), "opt"));
    onnxop_value_free(back);
    /* cut short: refused */
    EXPECT(onnxop_value_read_buffer(buf, len / 2, fmt, NULL, &back, &err), ONNXOP_ERR_INPUT, "");
    onnxop_free(buf);
  }
  const char *file = path_of(tmp, "v.npy");
  CHECK(onnxop_value_write(v, NULL, file, ONNXOP_FORMAT_AUTO, &err) == 0);
  onnxop_value *back = NULL;
  CHECK(onnxop_value_read(file, ONNXOP_FORMAT_AUTO, "tensor(float)", &back, &err) == 0 &&
        onnxop_compare(back, v, 0, 0, NULL, &err) == 0);
  onnxop_value_free(back);
  EXPECT(onnxop_value_read(file, ONNXOP_FORMAT_AUTO, "tensor(int64)", &back, &err), ONNXOP_ERR_INPUT,
         "v.npy: the file holds tensor(float) but the model declares tensor(int64)");
  /* a sequence does not fit .npy: no file, nor a temporary, is left */
  const char *seqf = path_of(tmp, "seq.npy");
  EXPECT(onnxop_value_write(s, NULL, seqf, ONNXOP_FORMAT_AUTO, &err), ONNXOP_ERR_INPUT, "seq.npy: ");
  struct stat st;
  CHECK(stat(seqf, &st) != 0);
  EXPECT(onnxop_value_write(v, NULL, path_of(tmp, "no/such/dir/v.pb"), 0, &err), ONNXOP_ERR_INPUT,
         "v.pb: cannot create a file beside it");
  /* a name as long as a file's may be (254 bytes): the temporary's name is
   * cut to fit beside it (io/io.h's ox_temp_create), so it is written, and
   * no temporary is left */
  char longname[255];
  memset(longname, 'n', 251);
  memcpy(longname + 251, ".pb", 4);
  const char *lf = path_of(tmp, longname);
  CHECK(onnxop_value_write(v, NULL, lf, 0, &err) == 0);
  CHECK(onnxop_value_read(lf, 0, "tensor(float)", &back, &err) == 0 && onnxop_compare(back, v, 0, 0, NULL, &err) == 0);
  onnxop_value_free(back);
  back = NULL;
  CHECK(unlink(lf) == 0 && !temps_in(tmp));
  EXPECT(onnxop_value_write(v, NULL, path_of(tmp, "v.txt"), 0, &err), ONNXOP_ERR_USAGE, "cannot tell the format");
  EXPECT(onnxop_value_read(path_of(tmp, "missing.pb"), 0, NULL, &back, &err), ONNXOP_ERR_INPUT, "missing.pb: cannot open");
  /* comparing */
  onnxop_compare_report r;
  f[4] = 5.5f; /* v wraps f: it sees the change */
  CHECK(onnxop_compare(v, e, 0, 0, &r, &err) == 1 && r.bad == 1 && r.total == 6 && strstr(r.why, "[1, 1]"));
  CHECK(onnxop_compare(v, e, 0.5, 0, &r, &err) == 0 && r.max_abs == 0.5);
  CHECK(onnxop_compare(v, s, 0, 0, &r, &err) == 1 && r.structural);
  CHECK(onnxop_compare(v, NULL, 0, 0, &r, &err) == -1 && onnxop_error_code(err) == ONNXOP_ERR_USAGE);
  onnxop_error_free(err);
  err = NULL;
  CHECK(onnxop_compare(v, e, -1, 0, &r, NULL) == -1);
  onnxop_value *list[] = {v, e, s, o, none, el, at, strt};
  for (int i = 0; i < 8; i++) onnxop_value_free(list[i]);
}

/* containers built from others keep their types when those others go: an
 * element's type lives in the element's holder (0.1.0 kept a pointer to it,
 * a use after free once the element was freed) */
static void test_container_types(void) {
  onnxop_error *err = NULL;
  onnxop_value *x = NULL, *s1 = NULL, *s2 = NULL, *o = NULL, *c = NULL;
  int64_t one = 1;
  char t[128];
  CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 1, &one, NULL, &x, &err) == 0);
  CHECK(onnxop_sequence_new(NULL, 1, (const onnxop_value *const *)&x, &s1, &err) == 0);
  CHECK(onnxop_sequence_new(NULL, 1, (const onnxop_value *const *)&s1, &s2, &err) == 0);
  onnxop_value_free(s1);
  onnxop_value *y = NULL; /* takes the memory s1 gave back (a plain build pools it) */
  CHECK(onnxop_optional_new("optional(tensor(int64))", NULL, &y, &err) == 0);
  CHECK(!strcmp(onnxop_value_type(s2, t, sizeof t), "seq(seq(tensor(float)))"));
  onnxop_value_free(y);
  CHECK(onnxop_optional_new(NULL, s2, &o, &err) == 0);
  CHECK(onnxop_sequence_new(NULL, 1, (const onnxop_value *const *)&o, &c, &err) == 0);
  onnxop_value_free(s2);
  onnxop_value_free(o);
  CHECK(onnxop_optional_new("optional(tensor(int64))", NULL, &o, &err) == 0);
  CHECK(!strcmp(onnxop_value_type(c, t, sizeof t), "seq(optional(seq(seq(tensor(float)))))"));
  onnxop_value_free(o);
  onnxop_value *e = NULL, *e2 = NULL;
  CHECK(onnxop_sequence_at(c, 0, &e, &err) == 0 && onnxop_optional_element(e, &e2, &err) == 0);
  CHECK(!strcmp(onnxop_value_type(e2, t, sizeof t), "seq(seq(tensor(float)))"));
  onnxop_value_free(e2);
  onnxop_value_free(e);
  onnxop_value_free(c);
  onnxop_value_free(x);
}

static void test_misc(void) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", ONNXOP_VERSION_MAJOR, ONNXOP_VERSION_MINOR, ONNXOP_VERSION_PATCH);
  CHECK(!strcmp(onnxop_version(), want));
  CHECK(!strcmp(onnxop_dtype_name(ONNXOP_FLOAT16), "float16") && onnxop_dtype_name(0) == NULL);
  CHECK(onnxop_dtype_size(ONNXOP_COMPLEX128) == 16 && onnxop_dtype_size(ONNXOP_STRING) == 0);
  CHECK(onnxop_error_exit_status(NULL) == 0 && !strcmp(onnxop_error_message(NULL), ""));
  /* an earlier error in *err is freed and replaced */
  onnxop_error *err = NULL;
  onnxop_model *m = NULL;
  onnxop_model_load(NULL, &m, &err);
  onnxop_model_load(path_of(tmp, "x.onnx"), &m, &err);
  CHECK(strstr(onnxop_error_message(err), "x.onnx") != NULL && onnxop_error_exit_status(err) == 1);
  onnxop_error_free(err);
  /* without err: just the code */
  CHECK(onnxop_model_load(NULL, &m, NULL) == ONNXOP_ERR_USAGE);
  onnxop_value_free(NULL);
  onnxop_model_free(NULL);
  onnxop_error_free(NULL);
  onnxop_values_free(NULL, 3);
}

/* A refusal of the run's memory limit is ONNXOP_ERR_NOMEM, as the header
 * says of max_memory, whichever check refuses: a tensor larger than the
 * whole limit (ConstantOfShape of (2^16, 2^16), 16 GiB of floats), as well
 * as an allocation that fails (test_runs). */
static void test_limits(void) {
  onnxop_error *err = NULL;
  onnxop_model *m = NULL;
  if (onnxop_model_load(path_of(suite, "test_constantofshape_float_ones/model.onnx"), &m, &err)) {
    printf("FAIL test_constantofshape_float_ones: %s\n", onnxop_error_message(err));
    fail++;
    onnxop_error_free(err);
    return;
  }
  int64_t three = 3, shape[3] = {65536, 65536, 1};
  onnxop_value *s = NULL, **out = NULL;
  int n = 0;
  CHECK(onnxop_tensor_new(ONNXOP_INT64, 1, &three, shape, &s, &err) == 0);
  onnxop_run_options *o = onnxop_run_options_new();
  CHECK(o && onnxop_run_options_set_max_memory(o, (size_t)64 << 20) == 0);
  const onnxop_value *in[] = {s};
  /* the limit named as the options name it, never as the CLI's flag */
  EXPECT(onnxop_run(m, o, 1, NULL, in, &out, &n, &err), ONNXOP_ERR_NOMEM,
         "more than the memory limit allows (67108864 bytes; see max_memory)");
  CHECK(out == NULL && n == 0);
  onnxop_run_options_free(o);
  onnxop_value_free(s);
  onnxop_model_free(m);
}

/* A value written as JSON reads back the same: an empty tensor whose dim
 * passes 2^53 (shape (0, 2^62)) has it written as a decimal string. */
static void test_json_dims(void) {
  onnxop_error *err = NULL;
  int64_t d[2] = {0, INT64_C(1) << 62};
  onnxop_value *v = NULL, *back = NULL;
  void *buf = NULL;
  size_t len = 0;
  CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 2, d, NULL, &v, &err) == 0);
  CHECK(onnxop_value_write_buffer(v, NULL, ONNXOP_FORMAT_JSON, &buf, &len, &err) == 0);
  CHECK(buf && memmem(buf, len, "\"4611686018427387904\"", 21));
  EXPECT(onnxop_value_read_buffer(buf, len, ONNXOP_FORMAT_JSON, NULL, &back, &err), 0, "");
  CHECK(onnxop_value_rank(back) == 2 && onnxop_value_dims(back)[1] == d[1]);
  CHECK(back && onnxop_compare(back, v, 0, 0, NULL, NULL) == 0);
  onnxop_free(buf);
  onnxop_value_free(back);
  onnxop_value_free(v);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: errors SUITE TMPDIR\n");
    return 2;
  }
  suite = argv[1];
  tmp = argv[2];
  test_models();
  test_graph_order();
  test_runs();
  test_values();
  test_container_types();
  test_misc();
  test_limits();
  test_json_dims();
  printf("api errors: %d passed, %d failed\n", pass, fail);
  return fail != 0;
}
