/* tests/unit/test_model.c: proto/model.c, ModelProto -> ox_model.
 *
 * Real models come from the ONNX node-test suite (OX_NODE_TESTS, else
 * ../shared/onnx-node-tests, else /work/shared/onnx-node-tests; skipped when
 * absent). What the suite lacks (functions, sparse tensors, every attribute
 * type, the newer fields read from unknown fields, hostile nesting) is built
 * in memory with protobuf-c, packed and decoded. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../proto/proto.h"
#include "check.h"

static ox_arena *T; /* the test's own allocations (protobuf structs, buffers) */
static const char *suite;

static void *talloc(size_t n) {
  void *p = ox_alloc(T, n);
  if (!p) abort();
  return p;
}

static const char *tstr(const ox_type *t) {
  static char buf[256];
  return t ? ox_type_str(t, buf, sizeof buf) : "(none)";
}

static const char *shape(int rank, const int64_t *dims) {
  static char buf[256];
  return rank < 0 ? "(no shape)" : ox_shape_str(rank, dims, buf, sizeof buf);
}

/* ---- building protobuf messages ---- */

static Onnx__TypeProto *type_tensor(int elem, int rank, const int64_t *dims,
                                    const char *const *params) {
  Onnx__TypeProto *tp = talloc(sizeof *tp);
  Onnx__TypeProto__Tensor *tt = talloc(sizeof *tt);
  onnx__type_proto__init(tp);
  onnx__type_proto__tensor__init(tt);
  tt->has_elem_type = 1;
  tt->elem_type = elem;
  if (rank >= 0) {
    Onnx__TensorShapeProto *sh = talloc(sizeof *sh);
    onnx__tensor_shape_proto__init(sh);
    sh->n_dim = (size_t)rank;
    sh->dim = talloc((size_t)rank * sizeof *sh->dim + 1);
    for (int k = 0; k < rank; k++) {
      Onnx__TensorShapeProto__Dimension *dim = talloc(sizeof *dim);
      onnx__tensor_shape_proto__dimension__init(dim);
      if (params && params[k]) {
        dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        dim->dim_param = (char *)params[k];
      } else if (dims[k] >= 0) {
        dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        dim->dim_value = dims[k];
      }
      sh->dim[k] = dim;
    }
    tt->shape = sh;
  }
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  return tp;
}

static Onnx__TypeProto *type_seq(Onnx__TypeProto *elem) {
  Onnx__TypeProto *tp = talloc(sizeof *tp);
  Onnx__TypeProto__Sequence *st = talloc(sizeof *st);
  onnx__type_proto__init(tp);
  onnx__type_proto__sequence__init(st);
  st->elem_type = elem;
  tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
  tp->sequence_type = st;
  return tp;
}

static Onnx__ValueInfoProto *vinfo(const char *name, Onnx__TypeProto *tp) {
  Onnx__ValueInfoProto *v = talloc(sizeof *v);
  onnx__value_info_proto__init(v);
  v->name = (char *)name;
  v->type = tp;
  return v;
}

static Onnx__TensorProto *tensor_f(const char *name, int rank, const int64_t *dims, int n,
                                   const float *vals) {
  Onnx__TensorProto *t = talloc(sizeof *t);
  onnx__tensor_proto__init(t);
  t->name = (char *)name;
  t->has_data_type = 1;
  t->data_type = OX_FLOAT;
  t->n_dims = (size_t)rank;
  t->dims = (int64_t *)dims;
  t->n_float_data = (size_t)n;
  t->float_data = (float *)vals;
  return t;
}

static Onnx__TensorProto *tensor_i64(const char *name, int rank, const int64_t *dims, int n,
                                     const int64_t *vals) {
  Onnx__TensorProto *t = talloc(sizeof *t);
  onnx__tensor_proto__init(t);
  t->name = (char *)name;
  t->has_data_type = 1;
  t->data_type = OX_INT64;
  t->n_dims = (size_t)rank;
  t->dims = (int64_t *)dims;
  t->n_int64_data = (size_t)n;
  t->int64_data = (int64_t *)vals;
  return t;
}

static Onnx__SparseTensorProto *sparse(Onnx__TensorProto *values, Onnx__TensorProto *indices,
                                       int rank, const int64_t *dims) {
  Onnx__SparseTensorProto *sp = talloc(sizeof *sp);
  onnx__sparse_tensor_proto__init(sp);
  sp->values = values;
  sp->indices = indices;
  sp->n_dims = (size_t)rank;
  sp->dims = (int64_t *)dims;
  return sp;
}

/* type 0: leave the type field out, as old models do. */
static Onnx__AttributeProto *attr(const char *name, int type) {
  Onnx__AttributeProto *at = talloc(sizeof *at);
  onnx__attribute_proto__init(at);
  at->name = (char *)name;
  if (type) {
    at->has_type = 1;
    at->type = (Onnx__AttributeProto__AttributeType)type;
  }
  return at;
}

static Onnx__NodeProto *node(const char *op, const char *domain, int nin, const char *const *in,
                             int nout, const char *const *out) {
  Onnx__NodeProto *n = talloc(sizeof *n);
  onnx__node_proto__init(n);
  n->op_type = (char *)op;
  n->domain = (char *)domain;
  n->n_input = (size_t)nin;
  n->input = (char **)in;
  n->n_output = (size_t)nout;
  n->output = (char **)out;
  return n;
}

static void node_attrs(Onnx__NodeProto *n, int count, Onnx__AttributeProto **attrs) {
  n->n_attribute = (size_t)count;
  n->attribute = talloc((size_t)count * sizeof *attrs);
  memcpy(n->attribute, attrs, (size_t)count * sizeof *attrs);
}

static Onnx__GraphProto *graph1(const char *name, Onnx__NodeProto *n) {
  Onnx__GraphProto *g = talloc(sizeof *g);
  onnx__graph_proto__init(g);
  g->name = (char *)name;
  g->n_node = n ? 1 : 0;
  g->node = talloc(sizeof *g->node);
  g->node[0] = n;
  return g;
}

static Onnx__OperatorSetIdProto *opset(const char *domain, int64_t version) {
  Onnx__OperatorSetIdProto *o = talloc(sizeof *o);
  onnx__operator_set_id_proto__init(o);
  o->domain = (char *)domain;
  o->has_version = 1;
  o->version = version;
  return o;
}

static Onnx__ModelProto *model(Onnx__GraphProto *g) {
  Onnx__ModelProto *m = talloc(sizeof *m);
  onnx__model_proto__init(m);
  m->has_ir_version = 1;
  m->ir_version = 9;
  m->n_opset_import = 1;
  m->opset_import = talloc(sizeof *m->opset_import);
  m->opset_import[0] = opset("", 18);
  m->graph = g;
  return m;
}

/* Append a length-prefixed field unknown to the generated code (its data
 * starts with the varint length, as protobuf-c stores it). */
static void add_unknown(ProtobufCMessage *m, unsigned tag, const void *p, size_t n) {
  uint8_t *data = talloc(n + 10);
  size_t k = 0;
  for (size_t v = n; ; v >>= 7) {
    data[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    if (v <= 0x7f) break;
  }
  memcpy(data + k, p, n);
  ProtobufCMessageUnknownField *u = talloc((m->n_unknown_fields + 1) * sizeof *u);
  if (m->n_unknown_fields) memcpy(u, m->unknown_fields, m->n_unknown_fields * sizeof *u);
  u[m->n_unknown_fields].tag = tag;
  u[m->n_unknown_fields].wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
  u[m->n_unknown_fields].len = k + n;
  u[m->n_unknown_fields].data = data;
  m->unknown_fields = u;
  m->n_unknown_fields++;
}

static uint8_t *pack(const ProtobufCMessage *m, size_t *len) {
  *len = protobuf_c_message_get_packed_size(m);
  uint8_t *buf = talloc(*len + 1);
  protobuf_c_message_pack(m, buf);
  return buf;
}

/* Decode bytes in a fresh arena; returns the error code and keeps the message. */
static int decode(const uint8_t *buf, size_t len, ox_err *e) {
  ox_arena *a = ox_arena_new();
  ox_model *m = NULL;
  ox_err_clear(e);
  int rc = ox_model_decode(a, buf, len, NULL, &m, e);
  if (!rc && (!m || !m->graph)) rc = -1; /* success must give a graph */
  ox_arena_free(a);
  return rc;
}

/* ---- real models from the suite ---- */

static ox_model *load(ox_arena *a, const char *test) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s/model.onnx", suite, test);
  ox_err e = {0};
  ox_model *m = NULL;
  int rc = ox_model_load(a, path, &m, &e);
  if (rc) fprintf(stderr, "%s: %s\n", path, e.msg);
  CHECK_EQ_I(rc, 0);
  return rc ? NULL : m;
}

static void test_abs(void) {
  ox_arena *a = ox_arena_new();
  ox_model *m = load(a, "test_abs");
  if (m) {
    CHECK_EQ_I(m->ir_version, 7);
    CHECK_EQ_I(m->nopset, 1);
    CHECK_EQ_S(m->opset[0].domain, "");
    CHECK_EQ_I(m->opset[0].version, 13);
    CHECK(strstr(m->dir, "test_abs") != NULL);
    CHECK_EQ_I(m->nfunc, 0);
    const ox_graph *g = m->graph;
    CHECK_EQ_S(g->name, "test_abs");
    CHECK_EQ_I(g->nnode, 1);
    CHECK_EQ_S(g->node[0].op, "Abs");
    CHECK_EQ_S(g->node[0].domain, "");
    CHECK_EQ_S(g->node[0].name, "");
    CHECK_EQ_S(g->node[0].overload, "");
    CHECK_EQ_I(g->node[0].nin, 1);
    CHECK_EQ_S(g->node[0].in[0], "x");
    CHECK_EQ_S(g->node[0].out[0], "y");
    CHECK_EQ_I(g->nin, 1);
    CHECK_EQ_I(g->nout, 1);
    CHECK_EQ_S(g->in[0].name, "x");
    CHECK_EQ_S(g->out[0].name, "y");
    CHECK_EQ_S(tstr(g->in[0].type), "tensor(float)");
    CHECK_EQ_S(shape(g->in[0].rank, g->in[0].dims), "(3, 4, 5)");
    CHECK_EQ_S(shape(g->out[0].rank, g->out[0].dims), "(3, 4, 5)");
    CHECK_EQ_I(g->ninit, 0);
  }
  ox_arena_free(a);
}

static void test_sequences_and_optionals(void) {
  ox_arena *a = ox_arena_new();
  ox_model *m = load(a, "test_sequence_insert_at_back");
  if (m) {
    const ox_graph *g = m->graph;
    CHECK_EQ_S(g->node[0].op, "SequenceInsert");
    CHECK_EQ_I(g->nin, 2);
    CHECK_EQ_S(tstr(g->in[0].type), "seq(tensor(int64))");
    CHECK_EQ_I(g->in[0].rank, -1);
    CHECK_EQ_S(shape(g->in[1].rank, g->in[1].dims), "(3,)");
    CHECK_EQ_S(tstr(g->out[0].type), "seq(tensor(int64))");
  }
  m = load(a, "test_optional_get_element_optional_sequence");
  if (m) {
    CHECK_EQ_S(tstr(m->graph->in[0].type), "optional(seq(tensor(int32)))");
    CHECK_EQ_S(tstr(m->graph->out[0].type), "seq(tensor(int32))");
    CHECK_EQ_I(m->opset[0].version, 18);
  }
  /* a missing optional input stays as "" */
  m = load(a, "test_clip_default_int8_max");
  if (m) {
    const ox_node *n = &m->graph->node[0];
    CHECK_EQ_I(n->nin, 3);
    CHECK_EQ_S(n->in[1], "");
    CHECK_EQ_S(n->in[2], "max");
    CHECK_EQ_S(shape(m->graph->in[1].rank, m->graph->in[1].dims), "()");
  }
  ox_arena_free(a);
}

static void test_if_and_constant(void) {
  ox_arena *a = ox_arena_new();
  ox_model *m = load(a, "test_if");
  if (m) {
    const ox_node *n = &m->graph->node[0];
    CHECK_EQ_S(n->op, "If");
    CHECK_EQ_I(n->nattr, 2);
    const ox_attr *th = ox_node_attr(n, "then_branch"), *el = ox_node_attr(n, "else_branch");
    CHECK(th && el);
    if (th && el) {
      CHECK_EQ_I(th->type, OX_ATTR_GRAPH);
      CHECK_EQ_I(el->type, OX_ATTR_GRAPH);
      CHECK_EQ_S(th->g->name, "then_body");
      CHECK_EQ_I(th->g->nnode, 1);
      CHECK_EQ_S(th->g->node[0].op, "Constant");
      CHECK_EQ_I(th->g->nout, 1);
      CHECK_EQ_S(th->g->out[0].name, "then_out");
      const ox_attr *v = ox_node_attr(&th->g->node[0], "value");
      CHECK(v && v->type == OX_ATTR_TENSOR && v->t);
      if (v && v->t) CHECK_EQ_S(shape(v->t->u.t.rank, v->t->u.t.dims), "(5,)");
    }
  }
  m = load(a, "test_constant");
  if (m) {
    const ox_attr *v = ox_node_attr(&m->graph->node[0], "value");
    CHECK(v && v->type == OX_ATTR_TENSOR && v->t);
    if (v && v->t) {
      CHECK_EQ_I(v->t->u.t.dt, OX_FLOAT);
      CHECK_EQ_S(shape(v->t->u.t.rank, v->t->u.t.dims), "(5, 5)");
    }
    CHECK_EQ_I(m->graph->nin, 0);
  }
  /* a TYPE_PROTO attribute (Optional's "type") inside a subgraph */
  m = load(a, "test_if_opt");
  if (m) {
    const ox_attr *th = ox_node_attr(&m->graph->node[0], "then_branch");
    CHECK(th && th->g);
    if (th && th->g) {
      const ox_attr *ty = ox_node_attr(&th->g->node[0], "type");
      CHECK(ty && ty->type == OX_ATTR_TYPE_PROTO);
      if (ty) CHECK_EQ_S(tstr(ty->tp), "seq(tensor(float))");
    }
    CHECK_EQ_S(tstr(m->graph->out[0].type), "optional(seq(tensor(float)))");
  }
  ox_arena_free(a);
}

/* Every prefix of a small model, and single corrupted bytes: an error or a
 * model, never a crash (run under ASan). */
static void test_truncated_and_corrupt(const char *test) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s/model.onnx", suite, test);
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return;
  uint8_t buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  CHECK(n > 0 && n < sizeof buf);
  ox_err e;
  int bad = 0, errors = 0;
  for (size_t len = 0; len <= n; len++) {
    int rc = decode(buf, len, &e);
    if (rc < 0 || (rc > 0 && !e.msg[0])) bad++;
    if (rc) errors++;
  }
  CHECK_EQ_I(bad, 0);
  CHECK(errors > 0);                 /* most prefixes are refused... */
  CHECK_EQ_I(decode(buf, n, &e), 0); /* ...the whole file is not */
  CHECK_EQ_I(decode(buf, 0, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "not a valid ONNX model") != NULL);
  for (size_t i = 0; i < n; i++) {
    static const uint8_t flips[] = {0x00, 0xff, 0x80, 0x7f, 0x0a};
    for (size_t k = 0; k < sizeof flips; k++) {
      uint8_t keep = buf[i];
      buf[i] = flips[k];
      int rc = decode(buf, n, &e);
      if (rc < 0 || (rc > 0 && !e.msg[0])) bad++;
      buf[i] = keep;
    }
  }
  CHECK_EQ_I(bad, 0);
}

/* ---- models built in memory ---- */

/* A model using every attribute type, sparse initializers in both index
 * forms, symbolic dims, a function with the fields newer than ONNX 1.12. */
static void test_built_model(void) {
  static const int64_t d2[] = {2}, d23[] = {2, 3}, d22[] = {2, 2}, dx[] = {-1, 3}, d3[] = {3};
  static const float w[] = {1, 2}, sv[] = {5, 7};
  static const int64_t si[] = {1, 4}, qv[] = {3, 4}, qi[] = {0, 2, 1, 0};
  static const char *const xparams[] = {"N", NULL};
  static const char *const n0_in[] = {"X", "", "W"};
  static const char *const n0_out[] = {"Y"};
  static const char *const n1_in[] = {"Y"};
  static const char *const n1_out[] = {"Z"};
  static const float floats[] = {0.25f, -1};
  static const int64_t ints[] = {1, -2, 3};

  Onnx__GraphProto *g = graph1("main", NULL);
  g->n_input = 3;
  g->input = talloc(3 * sizeof *g->input);
  g->input[0] = vinfo("X", type_tensor(OX_FLOAT, 2, dx, xparams));
  g->input[1] = vinfo("S", NULL);
  g->input[2] = vinfo("W", type_tensor(OX_FLOAT, 1, d2, NULL));
  g->n_output = 1;
  g->output = talloc(sizeof *g->output);
  g->output[0] = vinfo("Z", type_tensor(OX_FLOAT, -1, NULL, NULL));
  g->n_value_info = 1;
  g->value_info = talloc(sizeof *g->value_info);
  g->value_info[0] = vinfo("T", type_tensor(OX_INT64, 1, d3, NULL));
  g->n_initializer = 1;
  g->initializer = talloc(sizeof *g->initializer);
  g->initializer[0] = tensor_f("W", 1, d2, 2, w);
  g->n_sparse_initializer = 2;
  g->sparse_initializer = talloc(2 * sizeof *g->sparse_initializer);
  g->sparse_initializer[0] =
      sparse(tensor_f("SP", 1, d2, 2, sv), tensor_i64(NULL, 1, d2, 2, si), 2, d23); /* linear */
  g->sparse_initializer[1] =
      sparse(tensor_i64("SQ", 1, d2, 2, qv), tensor_i64(NULL, 2, d22, 4, qi), 2, d23); /* coords */

  /* node 0: a custom op carrying one attribute of every type */
  Onnx__NodeProto *n0 = node("Custom", "custom.domain", 3, n0_in, 1, n0_out);
  n0->name = "n0";
  add_unknown(&n0->base, 8, "ov1", 3); /* NodeProto.overload */
  Onnx__AttributeProto *at[16];
  int na = 0;
  at[na] = attr("f", OX_ATTR_FLOAT), at[na]->has_f = 1, at[na++]->f = 1.5f;
  at[na] = attr("i_untyped", 0), at[na]->has_i = 1, at[na++]->i = 7;
  at[na] = attr("s", OX_ATTR_STRING), at[na]->has_s = 1;
  at[na++]->s = (ProtobufCBinaryData){3, (uint8_t *)"a\0b"};
  at[na] = attr("t", OX_ATTR_TENSOR), at[na++]->t = tensor_f("c", 1, d2, 2, w);
  at[na] = attr("g", OX_ATTR_GRAPH);
  at[na++]->g = graph1("sub", node("Identity", "", 1, n1_in, 1, n1_out));
  at[na] = attr("sparse", OX_ATTR_SPARSE_TENSOR);
  at[na++]->sparse_tensor = g->sparse_initializer[0];
  at[na] = attr("tp", OX_ATTR_TYPE_PROTO);
  at[na++]->tp = type_seq(type_tensor(OX_INT64, -1, NULL, NULL));
  at[na] = attr("floats_untyped", 0), at[na]->n_floats = 2, at[na++]->floats = (float *)floats;
  at[na] = attr("ints", OX_ATTR_INTS), at[na]->n_ints = 3, at[na++]->ints = (int64_t *)ints;
  at[na] = attr("strings", OX_ATTR_STRINGS), at[na]->n_strings = 2;
  at[na]->strings = talloc(2 * sizeof(ProtobufCBinaryData));
  at[na]->strings[0] = (ProtobufCBinaryData){2, (uint8_t *)"hi"};
  at[na++]->strings[1] = (ProtobufCBinaryData){0, NULL};
  at[na] = attr("tensors", OX_ATTR_TENSORS), at[na]->n_tensors = 1;
  at[na]->tensors = talloc(sizeof(Onnx__TensorProto *));
  at[na++]->tensors[0] = tensor_i64("k", 1, d3, 3, ints);
  at[na] = attr("graphs", OX_ATTR_GRAPHS), at[na]->n_graphs = 2;
  at[na]->graphs = talloc(2 * sizeof(Onnx__GraphProto *));
  at[na]->graphs[0] = graph1("b0", NULL);
  at[na++]->graphs[1] = graph1("b1", node("Neg", "ai.onnx", 1, n1_in, 1, n1_out));
  at[na] = attr("sparses", OX_ATTR_SPARSE_TENSORS), at[na]->n_sparse_tensors = 1;
  at[na]->sparse_tensors = talloc(sizeof(Onnx__SparseTensorProto *));
  at[na++]->sparse_tensors[0] = g->sparse_initializer[1];
  at[na] = attr("tps", OX_ATTR_TYPE_PROTOS), at[na]->n_type_protos = 1;
  at[na]->type_protos = talloc(sizeof(Onnx__TypeProto *));
  at[na++]->type_protos[0] = type_tensor(OX_BOOL, -1, NULL, NULL);
  at[na] = attr("empty_ints", OX_ATTR_INTS), na++;
  node_attrs(n0, na, at);

  Onnx__NodeProto *n1 = node("Abs", "ai.onnx", 1, n1_in, 1, n1_out);
  g->n_node = 2;
  g->node = talloc(2 * sizeof *g->node);
  g->node[0] = n0;
  g->node[1] = n1;

  /* a function, with overload and attribute_proto as a newer ONNX writes them */
  static const char *const fin[] = {"a"};
  static const char *const fout[] = {"b"};
  static const char *const fattrs[] = {"alpha", "mode"};
  Onnx__FunctionProto *fp = talloc(sizeof *fp);
  onnx__function_proto__init(fp);
  fp->name = "MyFn";
  fp->domain = "custom.domain";
  fp->n_input = 1, fp->input = (char **)fin;
  fp->n_output = 1, fp->output = (char **)fout;
  fp->n_attribute = 2, fp->attribute = (char **)fattrs;
  Onnx__NodeProto *fn0 = node("Mul", "", 1, fin, 1, fout);
  Onnx__AttributeProto *ref = attr("beta", OX_ATTR_FLOAT);
  ref->ref_attr_name = "alpha";
  node_attrs(fn0, 1, &ref);
  fp->n_node = 1;
  fp->node = talloc(sizeof *fp->node);
  fp->node[0] = fn0;
  fp->n_opset_import = 1;
  fp->opset_import = talloc(sizeof *fp->opset_import);
  fp->opset_import[0] = opset("ai.onnx", 18);
  Onnx__AttributeProto *def = attr("alpha", OX_ATTR_FLOAT);
  def->has_f = 1, def->f = 0.5f;
  size_t len;
  uint8_t *bytes = pack(&def->base, &len);
  add_unknown(&fp->base, 11, bytes, len); /* FunctionProto.attribute_proto */
  def = attr("mode", OX_ATTR_STRING);
  def->has_s = 1, def->s = (ProtobufCBinaryData){4, (uint8_t *)"fast"};
  bytes = pack(&def->base, &len);
  add_unknown(&fp->base, 11, bytes, len);
  bytes = pack(&g->input[0]->base, &len);
  add_unknown(&fp->base, 12, bytes, len);   /* value_info: ignored */
  add_unknown(&fp->base, 13, "fast", 4);    /* FunctionProto.overload */

  Onnx__ModelProto *mp = model(g);
  mp->n_opset_import = 2;
  mp->opset_import = talloc(2 * sizeof *mp->opset_import);
  mp->opset_import[0] = opset("ai.onnx", 18);
  mp->opset_import[1] = opset("custom.domain", 1);
  mp->n_functions = 1;
  mp->functions = talloc(sizeof *mp->functions);
  mp->functions[0] = fp;
  bytes = pack(&mp->base, &len);

  ox_arena *a = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  int rc = ox_model_decode(a, bytes, len, NULL, &m, &e);
  if (rc) fprintf(stderr, "built model: %s\n", e.msg);
  CHECK_EQ_I(rc, 0);
  if (rc) {
    ox_arena_free(a);
    return;
  }
  CHECK_EQ_S(m->path, "");
  CHECK(m->dir == NULL); /* no folder: external data is refused */
  CHECK_EQ_I(m->ir_version, 9);
  CHECK_EQ_I(m->nopset, 2);
  CHECK_EQ_S(m->opset[0].domain, ""); /* "ai.onnx" normalized */
  CHECK_EQ_I(m->opset[0].version, 18);
  CHECK_EQ_S(m->opset[1].domain, "custom.domain");

  const ox_graph *mg = m->graph;
  CHECK_EQ_S(mg->name, "main");
  CHECK_EQ_I(mg->nin, 3);
  CHECK_EQ_S(shape(mg->in[0].rank, mg->in[0].dims), "(-1, 3)"); /* dim_param -> -1 */
  CHECK(mg->in[1].type == NULL);
  CHECK_EQ_I(mg->in[1].rank, -1);
  CHECK_EQ_S(tstr(mg->out[0].type), "tensor(float)");
  CHECK_EQ_I(mg->out[0].rank, -1);
  CHECK_EQ_I(mg->nvi, 1);
  CHECK_EQ_S(mg->vi[0].name, "T");
  CHECK_EQ_S(shape(mg->vi[0].rank, mg->vi[0].dims), "(3,)");
  int idx[3];
  CHECK_EQ_I(ox_graph_real_inputs(mg, idx), 2);

  /* initializers: W, then the two sparse ones densified */
  CHECK_EQ_I(mg->ninit, 3);
  CHECK_EQ_S(mg->init_name[0], "W");
  CHECK_EQ_S(mg->init_name[1], "SP");
  CHECK_EQ_S(mg->init_name[2], "SQ");
  const ox_tensor *sp = &mg->init[1]->u.t, *sq = &mg->init[2]->u.t;
  CHECK_EQ_S(shape(sp->rank, sp->dims), "(2, 3)");
  CHECK_EQ_I(sp->dt, OX_FLOAT);
  static const float want_sp[] = {0, 5, 0, 0, 7, 0};
  CHECK(!memcmp(sp->data, want_sp, sizeof want_sp));
  CHECK_EQ_I(sq->dt, OX_INT64);
  static const int64_t want_sq[] = {0, 0, 3, 4, 0, 0};
  CHECK(!memcmp(sq->data, want_sq, sizeof want_sq));

  CHECK_EQ_I(mg->nnode, 2);
  const ox_node *n = &mg->node[0];
  CHECK_EQ_S(n->name, "n0");
  CHECK_EQ_S(n->op, "Custom");
  CHECK_EQ_S(n->domain, "custom.domain");
  CHECK_EQ_S(n->overload, "ov1");
  CHECK_EQ_I(n->nin, 3);
  CHECK_EQ_S(n->in[1], "");
  CHECK_EQ_S(n->in[2], "W");
  CHECK_EQ_I(n->nattr, na);
  CHECK_EQ_S(mg->node[1].domain, ""); /* "ai.onnx" normalized */
  CHECK_EQ_S(mg->node[1].overload, "");

  const ox_attr *x;
  CHECK((x = ox_node_attr(n, "f")) && x->type == OX_ATTR_FLOAT && x->f == 1.5f);
  CHECK((x = ox_node_attr(n, "i_untyped")) && x->type == OX_ATTR_INT && x->i == 7);
  CHECK((x = ox_node_attr(n, "s")) && x->type == OX_ATTR_STRING && x->s.n == 3 &&
        !memcmp(x->s.p, "a\0b", 4));
  CHECK((x = ox_node_attr(n, "t")) && x->type == OX_ATTR_TENSOR && x->t &&
        x->t->u.t.n == 2 && ((float *)x->t->u.t.data)[1] == 2);
  CHECK((x = ox_node_attr(n, "g")) && x->type == OX_ATTR_GRAPH && x->g &&
        x->g->nnode == 1 && !strcmp(x->g->node[0].op, "Identity"));
  CHECK((x = ox_node_attr(n, "sparse")) && x->type == OX_ATTR_SPARSE_TENSOR && x->t &&
        x->t->u.t.n == 6 && ((float *)x->t->u.t.data)[4] == 7);
  CHECK((x = ox_node_attr(n, "tp")) && x->type == OX_ATTR_TYPE_PROTO);
  if (x) CHECK_EQ_S(tstr(x->tp), "seq(tensor(int64))");
  CHECK((x = ox_node_attr(n, "floats_untyped")) && x->type == OX_ATTR_FLOATS && x->n == 2 &&
        x->floats[0] == 0.25f && x->floats[1] == -1);
  CHECK((x = ox_node_attr(n, "ints")) && x->type == OX_ATTR_INTS && x->n == 3 && x->ints[1] == -2);
  CHECK((x = ox_node_attr(n, "strings")) && x->type == OX_ATTR_STRINGS && x->n == 2 &&
        !strcmp(x->strings[0].p, "hi") && x->strings[1].n == 0 && x->strings[1].p);
  CHECK((x = ox_node_attr(n, "tensors")) && x->type == OX_ATTR_TENSORS && x->n == 1 &&
        x->tensors[0]->u.t.dt == OX_INT64 && ((int64_t *)x->tensors[0]->u.t.data)[2] == 3);
  CHECK((x = ox_node_attr(n, "graphs")) && x->type == OX_ATTR_GRAPHS && x->n == 2 &&
        x->graphs[0]->nnode == 0 && !strcmp(x->graphs[1]->name, "b1") &&
        !strcmp(x->graphs[1]->node[0].domain, ""));
  CHECK((x = ox_node_attr(n, "sparses")) && x->type == OX_ATTR_SPARSE_TENSORS && x->n == 1 &&
        ((int64_t *)x->tensors[0]->u.t.data)[3] == 4);
  CHECK((x = ox_node_attr(n, "tps")) && x->type == OX_ATTR_TYPE_PROTOS && x->n == 1);
  if (x) CHECK_EQ_S(tstr(x->tps[0]), "tensor(bool)");
  CHECK((x = ox_node_attr(n, "empty_ints")) && x->type == OX_ATTR_INTS && x->n == 0 && x->ints);
  CHECK((x = ox_node_attr(n, "f")) && x->ref_attr_name == NULL);

  CHECK_EQ_I(m->nfunc, 1);
  const ox_function *fn = &m->func[0];
  CHECK_EQ_S(fn->name, "MyFn");
  CHECK_EQ_S(fn->domain, "custom.domain");
  CHECK_EQ_S(fn->overload, "fast");
  CHECK_EQ_I(fn->nin, 1);
  CHECK_EQ_S(fn->in[0], "a");
  CHECK_EQ_I(fn->nout, 1);
  CHECK_EQ_S(fn->out[0], "b");
  CHECK_EQ_I(fn->nattr, 2);
  CHECK_EQ_S(fn->attr_name[1], "mode");
  CHECK_EQ_I(fn->ndefault, 2);
  if (fn->ndefault == 2) {
    CHECK_EQ_S(fn->attr_default[0].name, "alpha");
    CHECK(fn->attr_default[0].type == OX_ATTR_FLOAT && fn->attr_default[0].f == 0.5f);
    CHECK_EQ_S(fn->attr_default[1].name, "mode");
    CHECK_EQ_S(fn->attr_default[1].s.p, "fast");
  }
  CHECK_EQ_I(fn->nnode, 1);
  CHECK_EQ_S(fn->node[0].op, "Mul");
  CHECK_EQ_S(fn->node[0].attr[0].name, "beta");
  CHECK_EQ_S(fn->node[0].attr[0].ref_attr_name, "alpha");
  CHECK_EQ_I(fn->nopset, 1);
  CHECK_EQ_S(fn->opset[0].domain, "");
  CHECK_EQ_I(fn->opset[0].version, 18);
  ox_arena_free(a);

  /* a broken sparse tensor and broken attributes give errors, not crashes */
  static const int64_t bad_idx[] = {1, 6};
  g->sparse_initializer[0]->indices = tensor_i64(NULL, 1, d2, 2, bad_idx);
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "sparse tensor index 6 is out of range for shape (2, 3)") != NULL);
  g->sparse_initializer[0]->indices = tensor_i64(NULL, 1, d3, 3, ints); /* 3 indices, 2 values */
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "indices have shape (3,)") != NULL);
  static const int64_t huge[] = {100000, 100000};
  g->sparse_initializer[0]->dims = (int64_t *)huge; /* 40 GB dense */
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "too large to densify") != NULL);
  g->sparse_initializer[0]->dims = (int64_t *)d23;
  g->sparse_initializer[0]->indices = tensor_i64(NULL, 1, d2, 2, si);

  at[0]->has_type = 0, at[0]->has_f = 0; /* no type, no value */
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "node 'n0' (Custom): attribute 'f'") != NULL);
  at[0]->has_type = 1, at[0]->type = 99;
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "unknown type 99") != NULL);
  at[0]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, at[0]->has_f = 1;

  n1->op_type = NULL;
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "no op_type") != NULL);
  n1->op_type = "Abs";

  mp->graph = NULL;
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "model has no graph");
  mp->graph = g;
  bytes = pack(&mp->base, &len);
  CHECK_EQ_I(decode(bytes, len, &e), 0);
}

/* Subgraphs nested `levels` deep below the main graph. */
static uint8_t *nested_model(int levels, size_t *len) {
  static const char *const io[] = {"c"};
  Onnx__GraphProto *inner = graph1("leaf", NULL);
  for (int k = 0; k < levels; k++) {
    Onnx__AttributeProto *at = attr("then_branch", OX_ATTR_GRAPH);
    at->g = inner;
    Onnx__NodeProto *n = node("If", "", 1, io, 1, io);
    node_attrs(n, 1, &at);
    inner = graph1("level", n);
  }
  return pack(&model(inner)->base, len);
}

static void test_nesting(void) {
  ox_err e;
  size_t len;
  uint8_t *buf = nested_model(64, &len);
  CHECK_EQ_I(decode(buf, len, &e), 0);
  buf = nested_model(65, &len);
  CHECK_EQ_I(decode(buf, len, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "subgraphs nest deeper than 64 levels") != NULL);
  CHECK(strlen(e.msg) < 1000); /* context stops before it pushes the cause out */

  /* 300000 nested seq() types: protobuf-c alone would overflow the stack */
  enum { LEVELS = 300000 };
  size_t cap = (size_t)LEVELS * 12 + 64, pos = cap;
  uint8_t *b = talloc(cap);
  /* Build inside out: each step prepends a tag and the length of what follows. */
#define PREPEND_FIELD(tag)                                                            \
  do {                                                                                \
    size_t body = cap - pos;                                                          \
    uint8_t v[10];                                                                    \
    int nv = 0;                                                                        \
    for (size_t x = body;; x >>= 7) {                                                 \
      v[nv++] = (uint8_t)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));                         \
      if (x <= 0x7f) break;                                                           \
    }                                                                                 \
    pos -= (size_t)nv;                                                                 \
    memcpy(b + pos, v, (size_t)nv);                                                    \
    b[--pos] = (uint8_t)(((tag) << 3) | 2);                                           \
  } while (0)
  for (int k = 0; k < LEVELS; k++) {
    PREPEND_FIELD(1); /* Sequence.elem_type */
    PREPEND_FIELD(4); /* TypeProto.sequence_type */
  }
  PREPEND_FIELD(2);  /* ValueInfoProto.type */
  PREPEND_FIELD(11); /* GraphProto.input */
  PREPEND_FIELD(7);  /* ModelProto.graph */
#undef PREPEND_FIELD
  CHECK_EQ_I(decode(b + pos, cap - pos, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "nest deeper") != NULL);
}

/* Files: the folder, errors for missing, empty, garbage files and folders. */
static void test_files(void) {
  char tmpl[] = "/tmp/ox_test_model_XXXXXX";
  char *dir = mkdtemp(tmpl);
  CHECK(dir != NULL);
  if (!dir) return;
  char sub[256], path[300], cwd[4096];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  CHECK_EQ_I(mkdir(sub, 0700), 0);
  size_t len;
  uint8_t *bytes = nested_model(1, &len);
  snprintf(path, sizeof path, "%s/m.onnx", sub);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(bytes, 1, len, f) == len);
  if (f) fclose(f);

  ox_arena *a = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  CHECK_EQ_I(ox_model_load(a, path, &m, &e), 0);
  if (m) {
    CHECK_EQ_S(m->path, path);
    CHECK_EQ_S(m->dir, sub);
    CHECK_EQ_S(m->graph->node[0].op, "If");
  }
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK_EQ_I(chdir(sub), 0);
  m = NULL;
  CHECK_EQ_I(ox_model_load(a, "m.onnx", &m, &e), 0);
  if (m) CHECK_EQ_S(m->dir, ".");
  CHECK_EQ_I(chdir(cwd), 0);

  ox_err_clear(&e);
  CHECK_EQ_I(ox_model_load(a, "/nonexistent/dir/model.onnx", &m, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "cannot open") != NULL);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_model_load(a, sub, &m, &e), OX_EINPUT); /* a folder */
  CHECK(e.msg[0] != 0);

  snprintf(path, sizeof path, "%s/empty.onnx", dir);
  f = fopen(path, "wb");
  if (f) fclose(f);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_model_load(a, path, &m, &e), OX_EINPUT);
  CHECK(strstr(e.msg, "not a valid ONNX model") != NULL);
  remove(path);

  snprintf(path, sizeof path, "%s/garbage.onnx", dir);
  f = fopen(path, "wb");
  if (f) {
    fputs("this is not an ONNX model, just some text\n", f);
    fclose(f);
  }
  ox_err_clear(&e);
  CHECK_EQ_I(ox_model_load(a, path, &m, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "not a valid ONNX model (truncated or corrupt)");
  remove(path);

  /* random bytes: an error (or, rarely, an empty-looking model), never a crash */
  unsigned seed = 12345;
  uint8_t junk[512];
  int bad = 0;
  for (int round = 0; round < 2000; round++) {
    for (size_t k = 0; k < sizeof junk; k++) {
      seed = seed * 1103515245u + 12345u;
      junk[k] = (uint8_t)(seed >> 16);
    }
    int rc = decode(junk, 1 + (size_t)round % sizeof junk, &e);
    if (rc < 0 || (rc > 0 && !e.msg[0])) bad++;
  }
  CHECK_EQ_I(bad, 0);

  snprintf(path, sizeof path, "%s/sub/m.onnx", dir);
  remove(path);
  rmdir(sub);
  rmdir(dir);
  ox_arena_free(a);
}

static const char *find_suite(void) {
  const char *env = getenv("OX_NODE_TESTS");
  const char *cands[] = {env, "../shared/onnx-node-tests", "/work/shared/onnx-node-tests"};
  for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
    char p[1024];
    if (!cands[i]) continue;
    snprintf(p, sizeof p, "%s/test_abs/model.onnx", cands[i]);
    if (access(p, R_OK) == 0) return cands[i];
  }
  return NULL;
}

int main(void) {
  T = ox_arena_new();
  suite = find_suite();
  if (suite) {
    test_abs();
    test_sequences_and_optionals();
    test_if_and_constant();
    test_truncated_and_corrupt("test_abs");
    test_truncated_and_corrupt("test_if");
  } else {
    printf("model: node-test suite not found, skipping the real models\n");
  }
  test_built_model();
  test_nesting();
  test_files();
  ox_arena_free(T);
  return check_done("model");
}
