/* tests/api/features.c: features SUITE TMPDIR: what the API gained for the
 * Python layer (0.2.0): maps made and read, strings with their lengths,
 * copies, model introspection (shapes with dim names, opsets, the value
 * list), the op-support query, named intermediate outputs, the node
 * callback, the trace, the cancel flag (set before a run, from a node
 * callback, from another thread, from a signal handler) and the progress
 * handler; on cases of the node-test suite SUITE. Prints "api features: N
 * passed, M failed". */
#define _GNU_SOURCE /* memmem */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

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
    printf("FAIL features.c:%d: got %d (%d) '%s'; expected %d with '%s'\n", line, rc, onnxop_error_code(*err), msg,
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

static int load(const char *name, api_case *c) {
  onnxop_error *err = NULL;
  if (!case_load(path_of(suite, name), c, &err)) return 0;
  printf("FAIL %s: %s\n", name, onnxop_error_message(err));
  fail++;
  onnxop_error_free(err);
  return -1;
}

/* strings with NUL bytes, through a copy, a .pb file and a buffer */
static void test_strings(void) {
  onnxop_error *err = NULL;
  onnxop_value *v = NULL, *c = NULL, *r = NULL;
  const char *s[3] = {"a\0b", "", "\xc3\xa9t\xc3\xa9"};
  size_t len[3] = {3, 0, 6}, n = 99;
  int64_t three = 3, two = 2;
  CHECK(onnxop_tensor_new_strings(1, &three, s, len, &v, &err) == 0);
  CHECK(onnxop_value_dtype(v) == ONNXOP_STRING && onnxop_value_numel(v) == 3);
  const char *e0 = onnxop_value_string(v, 0, &n);
  CHECK(e0 && n == 3 && !memcmp(e0, "a\0b", 3) && e0[3] == 0);
  CHECK(onnxop_value_string(v, 1, &n) && n == 0);
  CHECK(onnxop_value_copy(v, &c, &err) == 0 && onnxop_compare(c, v, 0, 0, NULL, &err) == 0);
  onnxop_value_free(v);
  CHECK((e0 = onnxop_value_string(c, 0, &n)) && n == 3 && !memcmp(e0, "a\0b", 3)); /* the copy outlives v */
  const char *pb = path_of(tmp, "nul.pb");
  CHECK(onnxop_value_write(c, "s", pb, 0, &err) == 0);
  CHECK(onnxop_value_read(pb, 0, "tensor(string)", &r, &err) == 0 && onnxop_compare(r, c, 0, 0, NULL, &err) == 0);
  CHECK((e0 = onnxop_value_string(r, 0, &n)) && n == 3 && !memcmp(e0, "a\0b", 3));
  onnxop_value_free(r);
  onnxop_value_free(c);
  /* lengths NULL: NUL-terminated; s NULL: empty strings */
  CHECK(onnxop_tensor_new_strings(1, &two, s, NULL, &v, &err) == 0);
  CHECK(onnxop_value_string(v, 0, &n) && n == 1);
  onnxop_value_free(v);
  CHECK(onnxop_tensor_new_strings(1, &two, NULL, NULL, &v, &err) == 0 && onnxop_value_string(v, 1, &n) && n == 0);
  onnxop_value_free(v);
  const char *hole[2] = {"x", NULL};
  size_t hl[2] = {1, 2};
  EXPECT(onnxop_tensor_new_strings(1, &two, hole, hl, &v, &err), ONNXOP_ERR_USAGE, "string 1 is NULL");
  EXPECT(onnxop_tensor_new_strings(1, &two, s, len, NULL, &err), ONNXOP_ERR_USAGE, "out is NULL");
  EXPECT(onnxop_value_copy(NULL, &v, &err), ONNXOP_ERR_USAGE, "the value is NULL");
  CHECK(v == NULL);
}

/* maps: made, read back, written and read as a .pb, refused when malformed */
static void test_maps(void) {
  onnxop_error *err = NULL;
  onnxop_value *keys = NULL, *ik = NULL, *fk = NULL, *x = NULL, *y = NULL, *vals = NULL, *m = NULL, *r = NULL;
  const char *ks[2] = {"b\0x", "a"};
  size_t kl[2] = {3, 1};
  int64_t two = 2, one = 1;
  float fx = 1.5f, fy = -2;
  int64_t iks[2] = {7, -3};
  CHECK(onnxop_tensor_new_strings(1, &two, ks, kl, &keys, &err) == 0);
  CHECK(onnxop_tensor_new(ONNXOP_INT64, 1, &two, iks, &ik, &err) == 0);
  CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 1, &two, NULL, &fk, &err) == 0);
  CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 1, &one, &fx, &x, &err) == 0);
  CHECK(onnxop_tensor_new(ONNXOP_FLOAT, 1, &one, &fy, &y, &err) == 0);
  const onnxop_value *xy[2] = {x, y};
  CHECK(onnxop_sequence_new(NULL, 2, xy, &vals, &err) == 0);
  CHECK(onnxop_map_new(keys, vals, &m, &err) == 0);
  char t[128];
  CHECK(onnxop_value_kind(m) == ONNXOP_MAP && !strcmp(onnxop_value_type(m, t, sizeof t), "map(string, tensor(float))"));
  /* both were copied: freeing them leaves the map whole */
  onnxop_value_free(keys);
  onnxop_value_free(vals);
  onnxop_value *mk = NULL, *mv = NULL, *v1 = NULL;
  size_t n = 0;
  CHECK(onnxop_map_keys(m, &mk, &err) == 0 && onnxop_value_numel(mk) == 2);
  const char *k0 = onnxop_value_string(mk, 0, &n);
  CHECK(k0 && n == 3 && !memcmp(k0, "b\0x", 3));
  CHECK(onnxop_map_values(m, &mv, &err) == 0 && onnxop_sequence_length(mv) == 2);
  CHECK(onnxop_sequence_at(mv, 1, &v1, &err) == 0 && onnxop_compare(v1, y, 0, 0, NULL, &err) == 0);
  onnxop_value_free(mk);
  onnxop_value_free(mv);
  onnxop_value_free(v1);
  const char *pb = path_of(tmp, "map.pb");
  CHECK(onnxop_value_write(m, "m", pb, 0, &err) == 0);
  CHECK(onnxop_value_read(pb, 0, NULL, &r, &err) == 0 && onnxop_compare(r, m, 0, 0, NULL, &err) == 0);
  onnxop_value_free(r);
  /* integer keys; a map of maps */
  CHECK(onnxop_sequence_new(NULL, 2, xy, &vals, &err) == 0);
  onnxop_value *im = NULL, *mm = NULL, *seqm = NULL;
  CHECK(onnxop_map_new(ik, vals, &im, &err) == 0);
  CHECK(!strcmp(onnxop_value_type(im, t, sizeof t), "map(int64, tensor(float))"));
  const onnxop_value *inner[1] = {im};
  int64_t k1 = 5;
  onnxop_value *k1v = NULL;
  CHECK(onnxop_tensor_new(ONNXOP_INT64, 1, &one, &k1, &k1v, &err) == 0);
  CHECK(onnxop_sequence_new(NULL, 1, inner, &seqm, &err) == 0 && onnxop_map_new(k1v, seqm, &mm, &err) == 0);
  CHECK(!strcmp(onnxop_value_type(mm, t, sizeof t), "map(int64, map(int64, tensor(float)))"));
  /* refused: float keys, keys not 1-D, values not a sequence, lengths apart, NULL */
  EXPECT(onnxop_map_new(fk, vals, &r, &err), ONNXOP_ERR_USAGE, "map keys must be integers or strings, not float");
  EXPECT(onnxop_map_new(x, x, &r, &err), ONNXOP_ERR_USAGE, "map keys must be integers or strings");
  EXPECT(onnxop_map_new(im, vals, &r, &err), ONNXOP_ERR_USAGE, "map keys must be a 1-D tensor, not map(int64");
  EXPECT(onnxop_map_new(ik, x, &r, &err), ONNXOP_ERR_USAGE, "map values must be a sequence, not tensor(float)");
  EXPECT(onnxop_map_new(k1v, vals, &r, &err), ONNXOP_ERR_USAGE, "a map of 1 keys and 2 values");
  EXPECT(onnxop_map_new(NULL, vals, &r, &err), ONNXOP_ERR_USAGE, "keys is NULL");
  CHECK(r == NULL);
  /* a copy holds its own types: the original may go */
  onnxop_value *mmc = NULL;
  CHECK(onnxop_value_copy(mm, &mmc, &err) == 0);
  onnxop_value_free(mm);
  mm = NULL;
  onnxop_value *filler = NULL; /* takes the memory mm gave back */
  CHECK(onnxop_optional_new("optional(tensor(int8))", NULL, &filler, &err) == 0);
  CHECK(!strcmp(onnxop_value_type(mmc, t, sizeof t), "map(int64, map(int64, tensor(float)))"));
  onnxop_value *all[] = {ik, fk, x, y, vals, m, im, mm, seqm, k1v, mmc, filler};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) onnxop_value_free(all[i]);
}

/* shapes with dim names, opsets, the value list; the op-support query */
static void test_introspection(void) {
  api_case c;
  if (load("test_sequence_map_add_1_sequence_1_tensor", &c)) return;
  const char *name = "x";
  CHECK(onnxop_model_input_rank(c.m, 0) == -1); /* a sequence: no tensor shape */
  CHECK(onnxop_model_input_rank(c.m, 1) == 1);
  CHECK(onnxop_model_input_dim(c.m, 1, 0, &name) == -1 && name && !strcmp(name, "N"));
  CHECK(onnxop_model_input_dim(c.m, 1, 1, &name) == -1 && name == NULL);
  CHECK(onnxop_model_input_rank(c.m, 2) == -1 && onnxop_model_input_rank(NULL, 0) == -1);
  CHECK(onnxop_model_ir_version(c.m) == 8 && onnxop_model_ir_version(NULL) == -1);
  CHECK(onnxop_model_opset_count(c.m) == 1 && !strcmp(onnxop_model_opset_domain(c.m, 0), ""));
  CHECK(onnxop_model_opset_version(c.m, 0) == 17 && onnxop_model_opset_version(c.m, 1) == -1);
  CHECK(onnxop_model_opset_domain(c.m, -1) == NULL && onnxop_model_opset_count(NULL) == 0);
  case_free(&c);
  if (load("test_clip_example_expanded", &c)) return;
  CHECK(onnxop_model_input_rank(c.m, 0) == 1 && onnxop_model_input_dim(c.m, 0, 0, &name) == 3 && name == NULL);
  CHECK(onnxop_model_input_rank(c.m, 1) == 0 && onnxop_model_output_rank(c.m, 0) == 1);
  CHECK(onnxop_model_output_dim(c.m, 0, 0, NULL) == 3 && onnxop_model_output_dim(c.m, 1, 0, NULL) == -1);
  /* the inputs, then the four nodes' outputs in order */
  const char *vals[] = {"x", "min", "max", "Clip_test_clip_example_expanded_function_input_less_than_min",
                        "Clip_test_clip_example_expanded_function_tmp",
                        "Clip_test_clip_example_expanded_function_output_large_than_max", "y"};
  CHECK(onnxop_model_value_count(c.m) == 7);
  for (int i = 0; i < 7; i++) CHECK(onnxop_model_value_name(c.m, i) && !strcmp(onnxop_model_value_name(c.m, i), vals[i]));
  CHECK(onnxop_model_value_name(c.m, 7) == NULL && onnxop_model_value_count(NULL) == 0);
  case_free(&c);
  char why[128];
  CHECK(onnxop_op_supported("", "Abs", 13, why, sizeof why) == 1 && why[0] == 0);
  CHECK(onnxop_op_supported(NULL, "Abs", 6, NULL, 0) == 1 && onnxop_op_supported("ai.onnx", "Abs", 13, NULL, 0) == 1);
  CHECK(onnxop_op_supported("", "Abz", 13, why, sizeof why) == 0 && strstr(why, "does not implement"));
  CHECK(onnxop_op_supported("", "Gelu", 19, why, sizeof why) == 0 && strstr(why, "first appears at opset 20"));
  CHECK(onnxop_op_supported("ai.onnx.ml", "LabelEncoder", 4, why, sizeof why) == 1);
  CHECK(onnxop_op_supported("", NULL, 13, why, sizeof why) == -1);
  /* NULL everywhere else: the usage error or the neutral answer */
  onnxop_error *err = NULL;
  onnxop_value **out = NULL, *v = NULL;
  const char *nm = "x";
  CHECK(onnxop_model_input_dim(NULL, 0, 0, &nm) == -1 && nm == NULL);
  CHECK(onnxop_model_output_rank(NULL, 0) == -1 && onnxop_model_value_name(NULL, 0) == NULL);
  CHECK(onnxop_run_options_set_progress(NULL, 1, NULL, NULL) == ONNXOP_ERR_USAGE);
  CHECK(onnxop_run_options_set_node_callback(NULL, NULL, NULL) == ONNXOP_ERR_USAGE);
  CHECK(onnxop_run_options_set_trace(NULL, 0, NULL, NULL) == ONNXOP_ERR_USAGE);
  EXPECT(onnxop_run_outputs(NULL, NULL, 0, NULL, NULL, 0, NULL, &out, &err), ONNXOP_ERR_USAGE, "the model is NULL");
  EXPECT(onnxop_tensor_new_strings(2, NULL, NULL, NULL, &v, &err), ONNXOP_ERR_USAGE, "dims is NULL for rank 2");
  CHECK(out == NULL && v == NULL);
}

/* ---- named outputs, the node callback, the trace ---- */

typedef struct {
  int calls, depth_max, stop_after;
  volatile int *flag; /* set after `stop_after` calls, when not NULL */
  char ops[256];
  onnxop_value *kept; /* a copy of the first node's first output */
} seen;

static int on_node(void *arg, const onnxop_node_info *n) {
  seen *s = arg;
  s->calls++;
  if (n->depth > s->depth_max) s->depth_max = n->depth;
  size_t k = strlen(s->ops);
  snprintf(s->ops + k, sizeof s->ops - k, "%s%s-%d@%d", k ? " " : "", n->op, n->version, n->depth);
  if (s->calls == 1 && n->n_out > 0 && n->outputs[0]) onnxop_value_copy(n->outputs[0], &s->kept, NULL);
  if (s->flag && s->calls == s->stop_after) *s->flag = 1;
  return s->flag ? 0 : s->stop_after && s->calls == s->stop_after;
}

typedef struct { char text[8192]; size_t n; int writes; } sink;
static void on_write(void *arg, const char *text, size_t len) {
  sink *k = arg;
  k->writes++;
  if (k->n + len < sizeof k->text) memcpy(k->text + k->n, text, len), k->n += len;
  k->text[k->n] = 0;
}

static void test_named_outputs(void) {
  onnxop_error *err = NULL;
  api_case c;
  if (load("test_clip_example_expanded", &c)) return;
  const onnxop_value *const *in = (const onnxop_value *const *)c.in;
  onnxop_value **out = NULL;
  const char *want[] = {"Clip_test_clip_example_expanded_function_tmp", "y", "min", "y"};
  CHECK(onnxop_run_outputs(c.m, NULL, 3, NULL, in, 4, want, &out, &err) == 0);
  if (!out) {
    case_free(&c);
    return;
  }
  /* y as the outputs' file has it, twice; min the input itself; t (tmp) = where(x < min, min, x) */
  CHECK(onnxop_compare(out[1], c.want[0], 0, 0, NULL, &err) == 0 && onnxop_compare(out[3], c.want[0], 0, 0, NULL, &err) == 0);
  CHECK(onnxop_value_data(out[2]) == onnxop_value_data(c.in[1]));
  const float *x = onnxop_value_data(c.in[0]), *mn = onnxop_value_data(c.in[1]), *t = onnxop_value_data(out[0]);
  int ok = t && onnxop_value_numel(out[0]) == 3;
  for (int i = 0; ok && i < 3; i++) ok = t[i] == (x[i] < *mn ? *mn : x[i]);
  CHECK(ok);
  /* they outlive the model and the inputs */
  onnxop_value *w = c.want[0];
  c.want[0] = NULL;
  c.nout = 0;
  case_free(&c);
  CHECK(onnxop_compare(out[1], w, 0, 0, NULL, &err) == 0);
  onnxop_values_free(out, 4);
  onnxop_value_free(w);
  /* all of them, as the value list gives them, in one run */
  if (load("test_clip_example_expanded", &c)) return;
  int nv = onnxop_model_value_count(c.m);
  const char *names[16];
  for (int i = 0; i < nv && i < 16; i++) names[i] = onnxop_model_value_name(c.m, i);
  CHECK(onnxop_run_outputs(c.m, NULL, 3, NULL, in, nv, names, &out, &err) == 0);
  CHECK(out && onnxop_compare(out[nv - 1], c.want[0], 0, 0, NULL, &err) == 0);
  onnxop_values_free(out, nv);
  const char *bad[] = {"y", "nope"};
  EXPECT(onnxop_run_outputs(c.m, NULL, 3, NULL, in, 2, bad, &out, &err), ONNXOP_ERR_USAGE, "the model has no value named 'nope'");
  const char *null_name[] = {NULL};
  EXPECT(onnxop_run_outputs(c.m, NULL, 3, NULL, in, 1, null_name, &out, &err), ONNXOP_ERR_USAGE, "wanted value 0 is NULL");
  EXPECT(onnxop_run_outputs(c.m, NULL, 3, NULL, in, 1, NULL, &out, &err), ONNXOP_ERR_USAGE, "1 wanted values");
  EXPECT(onnxop_run_outputs(c.m, NULL, 2, NULL, in, 1, want, &out, &err), ONNXOP_ERR_INPUT, "input 'max' was not given");
  CHECK(out == NULL);
  CHECK(onnxop_run_outputs(c.m, NULL, 3, NULL, in, 0, NULL, &out, &err) == 0 && out != NULL);
  onnxop_values_free(out, 0);
  case_free(&c);
}

static void test_callbacks(void) {
  onnxop_error *err = NULL;
  api_case c;
  if (load("test_sequence_map_add_1_sequence_1_tensor", &c)) return;
  const onnxop_value *const *in = (const onnxop_value *const *)c.in;
  onnxop_value **out = NULL;
  int n = 0;
  onnxop_run_options *o = onnxop_run_options_new();
  seen s = {0};
  CHECK(onnxop_run_options_set_node_callback(o, on_node, &s) == 0);
  CHECK(onnxop_run(c.m, o, c.nin, NULL, in, &out, &n, &err) == 0);
  /* the body's Add once per element of the sequence, then SequenceMap itself */
  CHECK(s.depth_max == 1 && strstr(s.ops, "Add-14@1") && strstr(s.ops, "SequenceMap-17@0"));
  CHECK(s.calls == onnxop_sequence_length(c.in[0]) + 1);
  CHECK(s.kept != NULL && onnxop_value_kind(s.kept) == ONNXOP_TENSOR);
  onnxop_values_free(out, n);
  onnxop_value_free(s.kept);
  /* a non-zero return stops the run */
  s = (seen){.stop_after = 1};
  EXPECT(onnxop_run(c.m, o, c.nin, NULL, in, &out, &n, &err), ONNXOP_ERR_CANCELLED, "the node callback stopped the run");
  CHECK(s.calls == 1 && out == NULL);
  onnxop_value_free(s.kept);
  onnxop_run_options_free(o);
  case_free(&c);

  /* the trace as `onnxop run --trace` prints it, to a write function */
  if (load("test_abs", &c)) return;
  in = (const onnxop_value *const *)c.in;
  o = onnxop_run_options_new();
  sink k = {0};
  CHECK(onnxop_run_options_set_trace(o, 8, on_write, &k) == ONNXOP_ERR_USAGE);
  CHECK(onnxop_run_options_set_trace(o, ONNXOP_TRACE_NODES | ONNXOP_TRACE_TIME, on_write, &k) == 0);
  CHECK(onnxop_run(c.m, o, 1, NULL, in, &out, &n, &err) == 0);
  /* "  12.3 us  node '' Abs-13", "node '' Abs-13", "  in  x: tensor(float) (3, 4, 5) min ...", "  out y: ..." */
  CHECK(strstr(k.text, " us  node '' Abs-13\nnode '' Abs-13\n  in  x: tensor(float) (3, 4, 5) min "));
  CHECK(strstr(k.text, "\n  out y: tensor(float) (3, 4, 5) min 0"));
  CHECK(k.writes == 4 && k.text[k.n - 1] == '\n'); /* a line at a time */
  onnxop_values_free(out, n);
  /* ONNXOP_TRACE_SUMMARY: nothing per node, the summary after the run */
  k = (sink){0};
  CHECK(onnxop_run_options_set_trace(o, ONNXOP_TRACE_NODES | ONNXOP_TRACE_SUMMARY, on_write, &k) == 0);
  CHECK(onnxop_run(c.m, o, 1, NULL, in, &out, &n, &err) == 0);
  CHECK(!strstr(k.text, "node '' Abs-13"));
  CHECK(strstr(k.text, "summary: 1 node run, by op:\n        1  Abs-13\nno node's output holds NaN or Inf\n"));
  onnxop_values_free(out, n);
  onnxop_run_options_free(o);
  case_free(&c);
}

/* ---- the cancel flag and the progress handler ---- */

static volatile int alarm_flag;
static void on_alarm(int sig) {
  (void)sig;
  alarm_flag = 1;
}

typedef struct { volatile int *flag; int after_ms; } setter;
static void *set_later(void *arg) {
  setter *s = arg;
  struct timespec ts = {0, s->after_ms * 1000000L};
  nanosleep(&ts, NULL);
  *s->flag = 1;
  return NULL;
}

static int progress_calls;
static int on_progress(void *arg) {
  progress_calls++;
  return arg != NULL && progress_calls >= *(int *)arg;
}

/* runs of c until one fails (with err set), for at most 20 s */
static int run_until_stopped(api_case *c, onnxop_run_options *o, onnxop_error **err) {
  time_t t0 = time(NULL);
  for (;;) {
    onnxop_value **out = NULL;
    int n = 0, rc = onnxop_run(c->m, o, c->nin, NULL, (const onnxop_value *const *)c->in, &out, &n, err);
    onnxop_values_free(out, n);
    if (rc || time(NULL) - t0 > 20) return rc;
  }
}

static void test_cancel(void) {
  onnxop_error *err = NULL;
  api_case c;
  if (load("test_clip_example_expanded", &c)) return;
  const onnxop_value *const *in = (const onnxop_value *const *)c.in;
  onnxop_value **out = NULL;
  int n = 0;
  volatile int flag = 1;
  onnxop_run_options *o = onnxop_run_options_new();
  CHECK(onnxop_run_options_set_cancel(NULL, &flag) == ONNXOP_ERR_USAGE);
  CHECK(onnxop_run_options_set_cancel(o, &flag) == 0);
  /* set before the run: stopped before the first node */
  EXPECT(onnxop_run(c.m, o, 3, NULL, in, &out, &n, &err), ONNXOP_ERR_CANCELLED, "node '' Less-13: the run was cancelled");
  CHECK(out == NULL && n == 0);
  onnxop_error *e2 = NULL;
  onnxop_run(c.m, o, 3, NULL, in, &out, &n, &e2);
  CHECK(onnxop_error_exit_status(e2) == 1);
  onnxop_error_free(e2);
  /* cleared: the run goes through */
  flag = 0;
  CHECK(onnxop_run(c.m, o, 3, NULL, in, &out, &n, &err) == 0 && onnxop_compare(out[0], c.want[0], 0, 0, NULL, &err) == 0);
  onnxop_values_free(out, n);
  /* set from the node callback after the second node: the third does not run */
  seen s = {.stop_after = 2, .flag = &flag};
  CHECK(onnxop_run_options_set_node_callback(o, on_node, &s) == 0);
  EXPECT(onnxop_run_outputs(c.m, o, 3, NULL, in, 0, NULL, &out, &err), ONNXOP_ERR_CANCELLED, "node '' Less-13: the run was cancelled");
  CHECK(s.calls == 2 && !strcmp(s.ops, "Less-13@0 Where-9@0"));
  onnxop_value_free(s.kept);
  CHECK(onnxop_run_options_set_node_callback(o, NULL, NULL) == 0);
  /* from another thread, while runs go on */
  flag = 0;
  setter st = {&flag, 50};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, set_later, &st) == 0);
  EXPECT(run_until_stopped(&c, o, &err), ONNXOP_ERR_CANCELLED, "the run was cancelled");
  pthread_join(th, NULL);
  /* from a signal handler (SIGALRM after 50 ms) */
  CHECK(onnxop_run_options_set_cancel(o, &alarm_flag) == 0);
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 0}, {0, 50000}};
  setitimer(ITIMER_REAL, &it, NULL);
  EXPECT(run_until_stopped(&c, o, &err), ONNXOP_ERR_CANCELLED, "the run was cancelled");
  CHECK(onnxop_run_options_set_cancel(o, NULL) == 0);
  onnxop_run_options_free(o);

  /* the progress handler: at every check (interval 0), stopping on its 3rd
   * call (before the third node); then at most once in 10 s */
  o = onnxop_run_options_new();
  int stop_at = 3;
  CHECK(onnxop_run_options_set_progress(o, -1, on_progress, NULL) == ONNXOP_ERR_USAGE);
  CHECK(onnxop_run_options_set_progress(o, 0, on_progress, NULL) == 0);
  progress_calls = 0;
  CHECK(onnxop_run(c.m, o, 3, NULL, in, &out, &n, &err) == 0 && progress_calls == 4);
  onnxop_values_free(out, n);
  CHECK(onnxop_run_options_set_progress(o, 0, on_progress, &stop_at) == 0);
  progress_calls = 0;
  EXPECT(onnxop_run(c.m, o, 3, NULL, in, &out, &n, &err), ONNXOP_ERR_CANCELLED,
         "node '' Less-13: the progress handler stopped the run");
  CHECK(progress_calls == 3);
  CHECK(onnxop_run_options_set_progress(o, 10, on_progress, NULL) == 0);
  progress_calls = 0;
  CHECK(onnxop_run(c.m, o, 3, NULL, in, &out, &n, &err) == 0 && progress_calls == 0);
  onnxop_values_free(out, n);
  onnxop_run_options_free(o);
  case_free(&c);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: features SUITE TMPDIR\n");
    return 2;
  }
  suite = argv[1];
  tmp = argv[2];
  test_strings();
  test_maps();
  test_introspection();
  test_named_outputs();
  test_callbacks();
  test_cancel();
  printf("api features: %d passed, %d failed\n", pass, fail);
  return fail != 0;
}
