/* tests/bad/gen.c: writes the hostile inputs of tests/bad/cases.txt.
 *
 *   build/bad-gen DIR     (the Makefile builds it; tests/bad/run.sh runs it)
 *
 * Every file is written here from a few lines of C, so the corpus stays
 * reviewable: no opaque binaries are committed. The protobuf wire format is
 * written by hand (a message is a list of fields: tag = number << 3 | wire
 * type, then a varint, 8 or 4 bytes, or a length-prefixed payload), because
 * most cases are things a protobuf library would refuse to write: wrong wire
 * types, invalid UTF-8, truncation, nesting 100000 deep. Field numbers are
 * those of onnx-ml.proto and onnx-data.proto (the enums below).
 *
 * Deep nestings are written from the inside out into a buffer that grows at
 * the front (see `wrap`), so they take linear time and no recursion. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- field numbers (onnx-ml.proto, onnx-data.proto) ---- */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_I32 = 5, WT_BAD = 7 };
enum { MODEL_IR = 1, MODEL_GRAPH = 7, MODEL_OPSET = 8, MODEL_FUNCTIONS = 25 };
enum { OPSET_DOMAIN = 1, OPSET_VERSION = 2 };
enum { GRAPH_NODE = 1, GRAPH_NAME = 2, GRAPH_INIT = 5, GRAPH_INPUT = 11, GRAPH_OUTPUT = 12 };
enum { NODE_IN = 1, NODE_OUT = 2, NODE_NAME = 3, NODE_OP = 4, NODE_ATTR = 5, NODE_DOMAIN = 7 };
enum { ATTR_NAME = 1, ATTR_F = 2, ATTR_I = 3, ATTR_S = 4, ATTR_T = 5, ATTR_G = 6,
       ATTR_INTS = 8, ATTR_TYPE = 20 };
enum { AT_FLOAT = 1, AT_INT = 2, AT_STRING = 3, AT_TENSOR = 4, AT_GRAPH = 5, AT_INTS = 7 };
enum { VI_NAME = 1, VI_TYPE = 2 };
enum { TYPE_TENSOR = 1, TYPE_SEQ = 4, TYPE_MAP = 5, TYPE_OPT = 9 };
enum { TT_ELEM = 1, TT_SHAPE = 2, SHAPE_DIM = 1, DIM_VALUE = 1, DIM_PARAM = 2 };
enum { SEQT_ELEM = 1, OPTT_ELEM = 1 };
enum { T_DIMS = 1, T_DTYPE = 2, T_SEGMENT = 3, T_FLOAT = 4, T_INT32 = 5, T_STRING = 6,
       T_INT64 = 7, T_NAME = 8, T_RAW = 9, T_EXTERNAL = 13, T_LOCATION = 14 };
enum { KV_KEY = 1, KV_VALUE = 2 };
enum { FN_NAME = 1, FN_IN = 4, FN_OUT = 5, FN_NODE = 7, FN_OPSET = 9, FN_DOMAIN = 10 };
/* SequenceProto / OptionalProto share these numbers; MapProto below. */
enum { SQ_NAME = 1, SQ_ELEM = 2, SQ_TENSOR = 3, SQ_SEQ = 5, SQ_MAP = 6, SQ_OPT = 7 };
enum { MP_NAME = 1, MP_KEY_TYPE = 2, MP_KEYS = 3, MP_VALUES = 5 };
enum { EL_TENSOR = 1, EL_SEQUENCE = 3, EL_MAP = 4, EL_OPTIONAL = 5 };
/* TensorProto.DataType */
enum { DT_FLOAT = 1, DT_UINT8 = 2, DT_INT32 = 6, DT_INT64 = 7, DT_STRING = 8, DT_INT4 = 22 };

/* ---- a growable buffer; `wrap` prepends, everything else appends ---- */
typedef struct { uint8_t *p; size_t off, n, cap; } buf; /* bytes are p[off .. off+n) */

static void die(const char *what) {
  fprintf(stderr, "bad-gen: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void reserve(buf *b, size_t front, size_t back) {
  if (b->off >= front && b->cap - b->off - b->n >= back) return;
  size_t cap = (b->cap + front + back) * 2 + 64, off = front + (cap - b->n - front - back) / 2;
  uint8_t *p = malloc(cap);
  if (!p) die("malloc");
  if (b->n) memcpy(p + off, b->p + b->off, b->n);
  free(b->p);
  b->p = p;
  b->off = off;
  b->cap = cap;
}
static void put(buf *b, const void *p, size_t n) {
  reserve(b, 0, n);
  memcpy(b->p + b->off + b->n, p, n);
  b->n += n;
}
static void prepend(buf *b, const void *p, size_t n) {
  reserve(b, n, 0);
  b->off -= n;
  b->n += n;
  memcpy(b->p + b->off, p, n);
}
static size_t varint_bytes(uint64_t v, uint8_t *out) {
  size_t n = 0;
  do {
    out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return n;
}
static void varint(buf *b, uint64_t v) {
  uint8_t t[10];
  put(b, t, varint_bytes(v, t));
}
static void tag(buf *b, int field, int wt) { varint(b, (uint64_t)field << 3 | (unsigned)wt); }
static void f_int(buf *b, int field, int64_t v) {
  tag(b, field, WT_VARINT);
  varint(b, (uint64_t)v);
}
static void f_bytes(buf *b, int field, const void *p, size_t n) {
  tag(b, field, WT_LEN);
  varint(b, n);
  put(b, p, n);
}
static void f_str(buf *b, int field, const char *s) { f_bytes(b, field, s, strlen(s)); }
static void f_float(buf *b, int field, float f) {
  tag(b, field, WT_I32);
  put(b, &f, 4); /* little-endian hosts only, as the wire format */
}
/* Append message m as a field of b, and free m. */
static void f_msg(buf *b, int field, buf *m) {
  f_bytes(b, field, m->p ? m->p + m->off : (uint8_t *)"", m->n);
  free(m->p);
  *m = (buf){0};
}
/* Make all of b the payload of field `field`, behind `prefix` (more fields of
 * the enclosing message, written before it): b = prefix + tag + len + b. */
static void wrap(buf *b, int field, const buf *prefix) {
  uint8_t t[20];
  size_t n = varint_bytes((uint64_t)field << 3 | WT_LEN, t);
  n += varint_bytes(b->n, t + n);
  prepend(b, t, n);
  if (prefix && prefix->n) prepend(b, prefix->p + prefix->off, prefix->n);
}

static const char *dir;
static void save(const char *name, buf *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) die(path);
  if (b->n && fwrite(b->p + b->off, 1, b->n, f) != b->n) die(path);
  if (fclose(f)) die(path);
  free(b->p);
  *b = (buf){0};
}
static void save_text(const char *name, const char *text) {
  buf b = {0};
  put(&b, text, strlen(text));
  save(name, &b);
}
static void sub(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (mkdir(path, 0755) && errno != EEXIST) die(path);
}

/* ---- ONNX messages ---- */

/* TensorProto header: dims, data type, name (data fields are added by the caller). */
static buf tensor(int dt, int rank, const int64_t *dims, const char *name) {
  buf t = {0};
  for (int i = 0; i < rank; i++) f_int(&t, T_DIMS, dims[i]);
  f_int(&t, T_DTYPE, dt);
  if (name) f_str(&t, T_NAME, name);
  return t;
}
/* A float tensor of shape dims holding 0, 1, 2, ... */
static buf float_tensor(int rank, const int64_t *dims, const char *name) {
  buf t = tensor(DT_FLOAT, rank, dims, name);
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= dims[i];
  tag(&t, T_RAW, WT_LEN);
  varint(&t, (uint64_t)n * 4);
  for (int64_t i = 0; i < n; i++) {
    float f = (float)i;
    put(&t, &f, 4);
  }
  return t;
}
static const int64_t D23[] = {2, 3};

/* TypeProto of tensor(elem) with a shape (rank < 0: none). */
static buf type_tensor(int elem, int rank, const int64_t *dims) {
  buf tt = {0}, ty = {0};
  f_int(&tt, TT_ELEM, elem);
  if (rank >= 0) {
    buf sh = {0};
    for (int i = 0; i < rank; i++) {
      buf d = {0};
      if (dims[i] >= 0) f_int(&d, DIM_VALUE, dims[i]);
      else f_str(&d, DIM_PARAM, "N");
      f_msg(&sh, SHAPE_DIM, &d);
    }
    f_msg(&tt, TT_SHAPE, &sh);
  }
  f_msg(&ty, TYPE_TENSOR, &tt);
  return ty;
}
static buf type_seq(buf elem) {
  buf s = {0}, ty = {0};
  f_msg(&s, SEQT_ELEM, &elem);
  f_msg(&ty, TYPE_SEQ, &s);
  return ty;
}
static buf value_info(const char *name, buf type) {
  buf v = {0};
  f_str(&v, VI_NAME, name);
  if (type.n) f_msg(&v, VI_TYPE, &type);
  return v;
}
/* ValueInfo of a float tensor of unknown shape. */
static buf vi_float(const char *name) { return value_info(name, type_tensor(DT_FLOAT, -1, NULL)); }

/* NodeProto: inputs and outputs as comma-separated lists ("a,,b": an empty
 * name is a missing optional input). */
static void names(buf *b, int field, const char *list) {
  if (!list) return;
  for (const char *p = list;;) {
    const char *c = strchr(p, ',');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    f_bytes(b, field, p, n);
    if (!c) break;
    p = c + 1;
  }
}
static buf node(const char *op, const char *ins, const char *outs, const char *name) {
  buf n = {0};
  names(&n, NODE_IN, ins);
  names(&n, NODE_OUT, outs);
  if (name) f_str(&n, NODE_NAME, name);
  f_str(&n, NODE_OP, op);
  return n;
}
static void attr_int(buf *node, const char *name, int64_t v) {
  buf a = {0};
  f_str(&a, ATTR_NAME, name);
  f_int(&a, ATTR_TYPE, AT_INT);
  f_int(&a, ATTR_I, v);
  f_msg(node, NODE_ATTR, &a);
}
static void attr_str(buf *node, const char *name, const char *s) {
  buf a = {0};
  f_str(&a, ATTR_NAME, name);
  f_int(&a, ATTR_TYPE, AT_STRING);
  f_str(&a, ATTR_S, s);
  f_msg(node, NODE_ATTR, &a);
}
static void attr_float(buf *node, const char *name, float f) {
  buf a = {0};
  f_str(&a, ATTR_NAME, name);
  f_int(&a, ATTR_TYPE, AT_FLOAT);
  f_float(&a, ATTR_F, f);
  f_msg(node, NODE_ATTR, &a);
}
static void attr_graph(buf *node, const char *name, buf g) {
  buf a = {0};
  f_str(&a, ATTR_NAME, name);
  f_int(&a, ATTR_TYPE, AT_GRAPH);
  f_msg(&a, ATTR_G, &g);
  f_msg(node, NODE_ATTR, &a);
}

static void attr_ints(buf *node, const char *name, int n, const int64_t *v) {
  buf a = {0};
  f_str(&a, ATTR_NAME, name);
  f_int(&a, ATTR_TYPE, AT_INTS);
  for (int i = 0; i < n; i++) f_int(&a, ATTR_INTS, v[i]);
  f_msg(node, NODE_ATTR, &a);
}

/* ModelProto: IR version 8, one opset import (domain "" = ai.onnx; version
 * NO_OPSET: no opset import at all), then the graph. */
#define NO_OPSET INT64_MIN
static buf model_of(buf graph, const char *domain, int64_t opset) {
  buf m = {0};
  f_int(&m, MODEL_IR, 8);
  if (opset != NO_OPSET) { /* before the graph: a model cut short then lacks its graph */
    buf o = {0};
    f_str(&o, OPSET_DOMAIN, domain);
    f_int(&o, OPSET_VERSION, opset);
    f_msg(&m, MODEL_OPSET, &o);
  }
  f_msg(&m, MODEL_GRAPH, &graph);
  return m;
}
static buf model(buf graph) { return model_of(graph, "", 13); }

/* y = last(... Abs(Neg(x))): n nodes, Neg and Abs alternating, then `last` */
static void chain_model(const char *file, int n, const char *last) {
  buf g = {0};
  for (int i = 0; i < n; i++) {
    char in[16], out[16];
    snprintf(in, sizeof in, i ? "v%d" : "x", i - 1);
    snprintf(out, sizeof out, i == n - 1 ? "y" : "v%d", i);
    buf nd = node(i == n - 1 ? last : i % 2 ? "Abs" : "Neg", in, out, NULL);
    f_msg(&g, GRAPH_NODE, &nd);
  }
  buf a = vi_float("x"), b = vi_float("y");
  f_msg(&g, GRAPH_INPUT, &a);
  f_msg(&g, GRAPH_OUTPUT, &b);
  buf m = model(g);
  save(file, &m);
}

/* A graph of one Identity node x -> y over float tensors; the node's name and
 * the graph input's name may be set. */
static buf identity_graph(const char *in, const char *node_name) {
  buf g = {0}, n = node("Identity", in, "y", node_name), vi = vi_float(in), vo = vi_float("y");
  f_msg(&g, GRAPH_NODE, &n);
  f_str(&g, GRAPH_NAME, "g");
  f_msg(&g, GRAPH_INPUT, &vi);
  f_msg(&g, GRAPH_OUTPUT, &vo);
  return g;
}
/* A subgraph (If branch): no inputs, y = Identity(x) with x from the outer scope. */
static buf branch_graph(const char *node_name) {
  buf g = {0}, n = node("Identity", "x", "y", node_name), vo = vi_float("y");
  f_msg(&g, GRAPH_NODE, &n);
  f_str(&g, GRAPH_NAME, node_name);
  f_msg(&g, GRAPH_OUTPUT, &vo);
  return g;
}
/* A model computing y = Identity(w) where w is the initializer t. */
static void init_model(const char *file, buf t) {
  buf g = {0}, n = node("Identity", "w", "y", "n0"), vo = vi_float("y");
  f_msg(&g, GRAPH_NODE, &n);
  f_str(&g, GRAPH_NAME, "g");
  f_msg(&g, GRAPH_INIT, &t);
  f_msg(&g, GRAPH_OUTPUT, &vo);
  buf m = model(g);
  save(file, &m);
}

/* ---- the files ---- */

static void tensors(void) {
  buf t;
  /* a valid float (2, 3) tensor: the base of the truncation case */
  t = float_tensor(2, D23, "x");
  save("t_ok.pb", &t);

  /* impossible sizes */
  static const int64_t ovf[] = {4294967296LL, 4294967296LL, 4}, ovf_bytes[] = {INT64_C(1) << 61},
                       neg[] = {-1, 2}, tera[] = {1000000, 1000000};
  t = tensor(DT_FLOAT, 3, ovf, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0", 4);
  save("t_dims_overflow.pb", &t);
  t = tensor(DT_FLOAT, 1, ovf_bytes, "x"); /* 2^61 elements fit, 2^63 bytes do not */
  f_bytes(&t, T_RAW, "\0\0\0\0", 4);
  save("t_dims_overflow_bytes.pb", &t);
  t = tensor(DT_FLOAT, 2, neg, "x");
  save("t_dims_negative.pb", &t);
  t = tensor(DT_FLOAT, 2, tera, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_dims_terabytes.pb", &t);
  t = tensor(DT_FLOAT, 2, tera, "x");
  save("t_dims_terabytes_nodata.pb", &t);
  t = tensor(DT_INT64, 2, tera, "x");
  f_int(&t, T_INT64, 1);
  save("t_dims_terabytes_int64data.pb", &t);

  /* the same as initializers of a model */
  t = tensor(DT_FLOAT, 3, ovf, "w");
  f_bytes(&t, T_RAW, "\0\0\0\0", 4);
  init_model("m_init_overflow.onnx", t);
  t = tensor(DT_FLOAT, 2, neg, "w");
  init_model("m_init_negative.onnx", t);
  t = tensor(DT_FLOAT, 2, tera, "w");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  init_model("m_init_terabytes.onnx", t);

  /* broken data */
  static const int64_t d4[] = {4}, d2[] = {2}, d3[] = {3};
  t = tensor(DT_FLOAT, 1, d4, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_raw_short.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
  save("t_raw_long.pb", &t);
  t = tensor(DT_FLOAT, 1, d4, "x");
  for (int i = 0; i < 3; i++) f_float(&t, T_FLOAT, 1.0f); /* unpacked repeated floats */
  save("t_float_count.pb", &t);
  t = tensor(DT_INT64, 1, d2, "x");
  for (int i = 0; i < 3; i++) f_int(&t, T_INT64, i);
  save("t_int64_count.pb", &t);
  t = tensor(DT_STRING, 1, d3, "x");
  f_str(&t, T_STRING, "a");
  f_str(&t, T_STRING, "b");
  save("t_string_count.pb", &t);
  t = tensor(DT_INT64, 1, d2, "x");
  f_int(&t, T_INT32, 1);
  f_int(&t, T_INT32, 2);
  save("t_wrong_field.pb", &t); /* int64 values in int32_data */
  t = tensor(DT_FLOAT, 1, d2, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  f_float(&t, T_FLOAT, 1.0f);
  f_float(&t, T_FLOAT, 2.0f);
  save("t_two_fields.pb", &t);
  t = tensor(DT_INT4, 1, d3, "x"); /* 3 int4 need 2 bytes */
  f_bytes(&t, T_RAW, "\x21", 1);
  save("t_int4_short.pb", &t);
  t = tensor(99, 1, d2, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_dtype_unknown.pb", &t);
  t = tensor(0, 1, d2, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_dtype_undefined.pb", &t);
  t = tensor(-7, 1, d2, "x");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_dtype_negative.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, "x\xff\xfe");
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_name_utf8.pb", &t);
  {
    buf s = {0};
    f_int(&s, 1, 0);
    f_int(&s, 2, 1);
    t = float_tensor(1, d2, "x");
    f_msg(&t, T_SEGMENT, &s);
    save("t_segment.pb", &t);
  }

  /* wrong wire types */
  t = (buf){0};
  tag(&t, T_DIMS, WT_I64); /* dims as fixed64 */
  put(&t, "\2\0\0\0\0\0\0\0", 8);
  f_int(&t, T_DTYPE, DT_FLOAT);
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_wire_dims.pb", &t);
  t = (buf){0};
  f_int(&t, T_DIMS, 2);
  f_bytes(&t, T_DTYPE, "\1", 1); /* data_type length-prefixed */
  f_bytes(&t, T_RAW, "\0\0\0\0\0\0\0\0", 8);
  save("t_wire_dtype.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, NULL);
  f_int(&t, T_RAW, 8); /* raw_data as a varint */
  save("t_wire_raw.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, "x");
  tag(&t, 15, WT_BAD); /* wire type 7 does not exist */
  save("t_wire_invalid.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, "x");
  tag(&t, 15, WT_SGROUP); /* a group that never ends */
  save("t_wire_group.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, "x");
  tag(&t, T_RAW, WT_LEN);
  put(&t, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11); /* an 11-byte varint */
  save("t_varint_long.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, "x");
  tag(&t, T_RAW, WT_LEN);
  varint(&t, 1000); /* 1000 bytes announced, 8 present */
  put(&t, "\0\0\0\0\0\0\0\0", 8);
  save("t_len_past_end.pb", &t);
  t = tensor(DT_FLOAT, 1, d2, "x");
  tag(&t, T_RAW, WT_LEN);
  varint(&t, UINT64_MAX); /* a length near 2^64 */
  put(&t, "\0\0\0\0\0\0\0\0", 8);
  save("t_len_huge.pb", &t);
  t = (buf){0};
  tag(&t, 0, WT_VARINT); /* field number 0 is invalid */
  varint(&t, 1);
  save("t_field_zero.pb", &t);

  /* external data in an input file (read only next to a model) */
  t = tensor(DT_FLOAT, 1, d2, "x");
  {
    buf kv = {0};
    f_str(&kv, KV_KEY, "location");
    f_str(&kv, KV_VALUE, "data.bin");
    f_msg(&t, T_EXTERNAL, &kv);
  }
  f_int(&t, T_LOCATION, 1);
  save("t_external.pb", &t);

  /* not protobuf at all */
  t = (buf){0};
  for (int k = 0; k < 2; k++) { /* 4 KiB of pseudo-random bytes, as a value and as a model */
    uint32_t x = 12345;
    for (int i = 0; i < 4096; i++) {
      x = x * 1103515245u + 12345u;
      uint8_t c = (uint8_t)(x >> 24);
      put(&t, &c, 1);
    }
    save(k ? "garbage.onnx" : "garbage.pb", &t);
  }
  save_text("value.bin", "a value of unknown format");
  save("garbage.pb", &t);
  save_text("empty.pb", "");
  save_text("empty.onnx", "");
  save_text("empty.json", "");
  save_text("text.onnx", "ir_version: 8\ngraph { node { op_type: \"Identity\" } }\n");
  sub("a_dir.pb");
  sub("a_dir.onnx");
}

/* Sequences, optionals and maps. */
static void values(void) {
  static const int64_t d2[] = {2};
  buf s = {0}, t, u;
  /* a sequence of a float and an int64 tensor */
  f_int(&s, SQ_ELEM, EL_TENSOR);
  t = float_tensor(1, d2, NULL);
  f_msg(&s, SQ_TENSOR, &t);
  t = tensor(DT_INT64, 1, d2, NULL);
  f_int(&t, T_INT64, 1);
  f_int(&t, T_INT64, 2);
  f_msg(&s, SQ_TENSOR, &t);
  save("s_mixed_dtypes.pb", &s);
  /* names holding a NUL byte (protobuf-c would cut them at it): a
   * TensorProto's, a SequenceProto's, a tensor's inside a sequence */
  {
    buf v = float_tensor(1, d2, NULL);
    f_bytes(&v, T_NAME, "x\0y", 3);
    save("t_name_nul.pb", &v);
    buf q = {0};
    f_bytes(&q, SQ_NAME, "s\0t", 3);
    f_int(&q, SQ_ELEM, EL_TENSOR);
    v = float_tensor(1, d2, NULL);
    f_msg(&q, SQ_TENSOR, &v);
    save("s_name_nul.pb", &q);
    q = (buf){0};
    f_int(&q, SQ_ELEM, EL_TENSOR);
    v = float_tensor(1, d2, NULL);
    f_bytes(&v, T_NAME, "e\0f", 3);
    f_msg(&q, SQ_TENSOR, &v);
    save("s_elem_name_nul.pb", &q);
  }
  /* elem_type SEQUENCE, but holding tensors */
  f_int(&s, SQ_ELEM, EL_SEQUENCE);
  t = float_tensor(1, d2, NULL);
  f_msg(&s, SQ_TENSOR, &t);
  save("s_elem_mismatch.pb", &s);
  /* an unknown elem_type */
  f_int(&s, SQ_ELEM, 42);
  t = float_tensor(1, d2, NULL);
  f_msg(&s, SQ_TENSOR, &t);
  save("s_elem_unknown.pb", &s);
  /* an optional holding both a tensor and a sequence */
  f_int(&s, SQ_ELEM, EL_TENSOR);
  t = float_tensor(1, d2, NULL);
  f_msg(&s, SQ_TENSOR, &t);
  u = (buf){0};
  f_int(&u, SQ_ELEM, EL_TENSOR);
  f_msg(&s, SQ_SEQ, &u);
  save("o_two_values.pb", &s);
  /* a map with 3 keys and 2 values */
  f_int(&s, MP_KEY_TYPE, DT_INT64);
  for (int i = 0; i < 3; i++) f_int(&s, MP_KEYS, i);
  u = (buf){0};
  f_int(&u, SQ_ELEM, EL_TENSOR);
  for (int i = 0; i < 2; i++) {
    t = float_tensor(1, d2, NULL);
    f_msg(&u, SQ_TENSOR, &t);
  }
  f_msg(&s, MP_VALUES, &u);
  save("m_keys_values.pb", &s);

  /* nesting bombs: each level is elem_type + one nested value, as the last
   * field; the innermost is a sequence holding one float tensor */
  buf pre = {0};
  for (int depth = 100000, k = 0; k < 2; k++, depth = 80) {
    s = (buf){0};
    f_int(&s, SQ_ELEM, EL_TENSOR);
    t = float_tensor(1, d2, NULL);
    f_msg(&s, SQ_TENSOR, &t);
    pre = (buf){0};
    f_int(&pre, SQ_ELEM, EL_SEQUENCE);
    for (int i = 1; i < depth; i++) wrap(&s, SQ_SEQ, &pre);
    save(k ? "s_deep_80.pb" : "s_deep.pb", &s);
    free(pre.p);
  }
  /* optionals: OptionalProto shares SequenceProto's field numbers */
  s = (buf){0};
  f_int(&s, SQ_ELEM, EL_TENSOR);
  t = float_tensor(1, d2, NULL);
  f_msg(&s, SQ_TENSOR, &t);
  pre = (buf){0};
  f_int(&pre, SQ_ELEM, EL_OPTIONAL);
  for (int i = 1; i < 100000; i++) wrap(&s, SQ_OPT, &pre);
  save("o_deep.pb", &s);
  free(pre.p);
  /* maps: map(int64, seq(map(int64, seq(...)))), two messages a level */
  s = (buf){0};
  f_int(&s, SQ_ELEM, EL_TENSOR);
  buf mpre = {0}, spre = {0};
  f_int(&mpre, MP_KEY_TYPE, DT_INT64);
  f_int(&mpre, MP_KEYS, 7);
  f_int(&spre, SQ_ELEM, EL_MAP);
  for (int i = 0; i < 50000; i++) {
    if (i) wrap(&s, SQ_MAP, &spre); /* a sequence around the map */
    wrap(&s, MP_VALUES, &mpre);     /* the map around a sequence */
  }
  save("map_deep.pb", &s);
  free(mpre.p);
  free(spre.p);
  /* a sequence of sparse tensors, which onnxop's values cannot be */
  f_int(&s, SQ_ELEM, 2 /* SPARSE_TENSOR */);
  save("s_sparse.pb", &s);
}

/* .npz archives (zip files, little-endian fields) with one member x.npy, 4
 * stored bytes, whose entry says `method` and `flags`; `disk` goes in the
 * end record's disk numbers. Only the zip structure matters: onnxop refuses
 * these before it reads the member (whose CRC is not even set). */
static void le(buf *b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) {
    uint8_t c = (uint8_t)(v >> 8 * i);
    put(b, &c, 1);
  }
}
static void zip1(const char *file, int method, int flags, int disk) {
  buf z = {0};
  le(&z, 0x04034b50, 4); /* local header */
  le(&z, 20, 2), le(&z, (uint64_t)flags, 2), le(&z, (uint64_t)method, 2), le(&z, 0, 4);
  le(&z, 0, 4), le(&z, 4, 4), le(&z, 4, 4), le(&z, 5, 2), le(&z, 0, 2);
  put(&z, "x.npy", 5);
  put(&z, "\x93NUM", 4);
  size_t cd = z.n;
  le(&z, 0x02014b50, 4); /* central directory entry */
  le(&z, 20, 2), le(&z, 20, 2), le(&z, (uint64_t)flags, 2), le(&z, (uint64_t)method, 2), le(&z, 0, 4);
  le(&z, 0, 4), le(&z, 4, 4), le(&z, 4, 4), le(&z, 5, 2), le(&z, 0, 2), le(&z, 0, 2);
  le(&z, 0, 2), le(&z, 0, 2), le(&z, 0, 4), le(&z, 0, 4);
  put(&z, "x.npy", 5);
  size_t cdsize = z.n - cd;
  le(&z, 0x06054b50, 4); /* end of central directory */
  le(&z, (uint64_t)disk, 2), le(&z, (uint64_t)disk, 2), le(&z, 1, 2), le(&z, 1, 2);
  le(&z, cdsize, 4), le(&z, cd, 4), le(&z, 0, 2);
  save(file, &z);
}
static void archives(void) {
  zip1("z_method12.npz", 12, 0, 0); /* bzip2 */
  zip1("z_encrypted.npz", 0, 1, 0);
  zip1("z_split.npz", 0, 0, 1);
}

/* JSON files that are too long to write in cases.txt. */
static void json(void) {
  buf b = {0};
  const char *head = "{\"dtype\": \"float32\", \"shape\": [1], \"data\": ";
  put(&b, head, strlen(head));
  for (int i = 0; i < 100000; i++) put(&b, "[", 1);
  put(&b, "1", 1);
  for (int i = 0; i < 100000; i++) put(&b, "]", 1);
  put(&b, "}", 1);
  save("j_deep_array.json", &b);
  /* a shape of 100000 ones */
  head = "{\"dtype\": \"float32\", \"data\": [1], \"shape\": [1";
  put(&b, head, strlen(head));
  for (int i = 1; i < 100000; i++) put(&b, ", 1", 3);
  put(&b, "]}", 2);
  save("j_rank_100k.json", &b);
  /* optionals 500 deep (inside cJSON's limit of 1000) */
  for (int i = 0; i < 500; i++) {
    const char *o = "{\"optional\": ";
    put(&b, o, strlen(o));
  }
  head = "{\"dtype\": \"float32\", \"shape\": [1], \"data\": [1]}";
  put(&b, head, strlen(head));
  for (int i = 0; i < 500; i++) put(&b, "}", 1);
  save("j_deep_optional.json", &b);
  /* sequences 100000 deep */
  for (int i = 0; i < 100000; i++) {
    const char *o = "{\"sequence\": [";
    put(&b, o, strlen(o));
  }
  for (int i = 0; i < 100000; i++) put(&b, "]}", 2);
  save("j_deep_sequence.json", &b);
}

/* Models. */
static void models(void) {
  buf g, m, n, a, b, c;
  /* a small valid model (the base of the truncation case) */
  m = model(identity_graph("x", "n0"));
  save("m_ok.onnx", &m);

  /* two outputs: y = Identity(x), z = Neg(x) (for failures while writing them) */
  g = identity_graph("x", "n0");
  n = node("Neg", "x", "z", "n1");
  f_msg(&g, GRAPH_NODE, &n);
  b = vi_float("z");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("m_two_outputs.onnx", &m);

  /* invalid UTF-8 in names */
  m = model(identity_graph("x\xc3\x28", "n0"));
  save("m_input_utf8.onnx", &m);
  m = model(identity_graph("x", "n\xff"));
  save("m_node_utf8.onnx", &m);
  g = (buf){0};
  n = node("Ident\xe2\x82ity", "x", "y", "n0");
  a = vi_float("x");
  b = vi_float("y");
  f_msg(&g, GRAPH_NODE, &n);
  f_msg(&g, GRAPH_INPUT, &a);
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("m_op_utf8.onnx", &m);

  /* wrong wire types */
  m = (buf){0};
  f_int(&m, MODEL_IR, 8);
  f_int(&m, MODEL_GRAPH, 1); /* graph as a varint */
  save("m_wire_graph.onnx", &m);
  m = (buf){0};
  f_bytes(&m, MODEL_IR, "\x08", 1); /* ir_version length-prefixed */
  g = identity_graph("x", "n0");
  f_msg(&m, MODEL_GRAPH, &g);
  save("m_wire_ir.onnx", &m);
  m = (buf){0};
  f_int(&m, MODEL_IR, 8);
  g = identity_graph("x", "n0");
  f_msg(&m, MODEL_GRAPH, &g);
  tag(&m, MODEL_OPSET, WT_I32); /* opset_import as fixed32 */
  put(&m, "\0\0\0\0", 4);
  save("m_wire_opset.onnx", &m);
  m = (buf){0};
  f_int(&m, MODEL_IR, 8);
  f_str(&m, MODEL_GRAPH, "\x0a\x05hello"); /* a graph whose node is 5 bytes of text */
  save("m_wire_inner.onnx", &m);

  /* no graph */
  m = (buf){0};
  f_int(&m, MODEL_IR, 8);
  save("m_no_graph.onnx", &m);

  /* broken graphs */
  /* a cycle: a = Identity(b), b = Identity(a) */
  g = (buf){0};
  n = node("Identity", "b", "a", "n_a");
  f_msg(&g, GRAPH_NODE, &n);
  n = node("Identity", "a", "b", "n_b");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("b");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_cycle.onnx", &m);
  /* a node reading its own output */
  g = (buf){0};
  n = node("Add", "x,y", "y", "n_self");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_self_loop.onnx", &m);
  /* two nodes writing y */
  g = (buf){0};
  n = node("Identity", "x", "y", "first");
  f_msg(&g, GRAPH_NODE, &n);
  n = node("Neg", "x", "y", "second");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_two_writers.onnx", &m);
  /* two Constants writing k, with a reader between them and one after (as
   * an exported GPT-2 with past has them): y = x + k, z = y + k, and then 5
   * more pairs of Constants (p0 .. p4) that nothing reads; onnxruntime
   * reads the last k for both Adds */
  g = (buf){0};
  for (int i = 0; i < 12; i++) {
    int64_t d1[] = {1};
    char o[16];
    snprintf(o, sizeof o, i < 2 ? "k" : "p%d", (i - 2) / 2);
    n = node("Constant", NULL, o, i == 0 ? "c_first" : i == 1 ? "c_last" : NULL);
    buf t = float_tensor(1, d1, NULL), at = {0};
    f_str(&at, ATTR_NAME, "value");
    f_int(&at, ATTR_TYPE, AT_TENSOR);
    f_msg(&at, ATTR_T, &t);
    f_msg(&n, NODE_ATTR, &at);
    f_msg(&g, GRAPH_NODE, &n);
    if (i > 1) continue;
    n = node("Add", i ? "y,k" : "x,k", i ? "z" : "y", i ? "add_after" : "add_between");
    f_msg(&g, GRAPH_NODE, &n);
  }
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("z");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_two_constants.onnx", &m);
  /* nodes out of topological order: z = Add(y, x) before y = Neg(x) */
  g = (buf){0};
  n = node("Add", "y,x", "z", "add_first");
  f_msg(&g, GRAPH_NODE, &n);
  n = node("Neg", "x", "y", "neg_second");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("z");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_unsorted.onnx", &m);
  /* 3000 nodes: a chain of 1500 Neg and 1499 Abs, then one Frobnicate (an
   * operator no build has) */
  chain_model("g_3000_nodes.onnx", 3000, "Frobnicate");
  /* 200 nodes that run: 100 Neg and 99 Abs alternating, so v198 = -|x|,
   * then y = Sqrt(v198): NaN for every x but 0 (run --trace's summary) */
  chain_model("g_200_nodes.onnx", 200, "Sqrt");
  /* a node writing over a graph input: x = Neg(z), y = Identity(x) */
  g = (buf){0};
  n = node("Neg", "z", "x", "overwrite");
  f_msg(&g, GRAPH_NODE, &n);
  n = node("Identity", "x", "y", "n1");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  a = vi_float("z");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_writes_input.onnx", &m);
  /* a graph output nothing produces */
  g = identity_graph("x", "n0");
  b = vi_float("ghost");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_output_unproduced.onnx", &m);
  /* a node input nothing produces */
  g = (buf){0};
  n = node("Add", "x,nowhere", "y", "n_add");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_input_unproduced.onnx", &m);
  /* a node without op_type */
  g = identity_graph("x", "n0");
  n = node("", "x", "z", "n_noop");
  f_msg(&g, GRAPH_NODE, &n);
  m = model(g);
  save("g_no_op_type.onnx", &m);
  /* no opset import at all; an opset import for another domain only */
  m = model_of(identity_graph("x", "n0"), "", NO_OPSET);
  save("g_no_opset.onnx", &m);
  m = model_of(identity_graph("x", "n0"), "ai.onnx.ml", 3);
  save("g_other_opset.onnx", &m);
  /* a node of a custom domain that is not imported */
  g = (buf){0};
  n = node("Thing", "x", "y", "n_custom");
  f_str(&n, NODE_DOMAIN, "com.example");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_domain_not_imported.onnx", &m);
  /* a com.microsoft node (onnxruntime's Gelu) whose domain is not imported:
   * onnxruntime assumes a version, onnxop refuses it naming the import */
  g = (buf){0};
  n = node("Gelu", "x", "y", "n_gelu");
  f_str(&n, NODE_DOMAIN, "com.microsoft");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_ms_not_imported.onnx", &m);
  /* an opset version far beyond any release */
  m = model_of(identity_graph("x", "n0"), "", 100000);
  save("g_opset_future.onnx", &m);
  m = model_of(identity_graph("x", "n0"), "", -5);
  save("g_opset_negative.onnx", &m);
  /* attributes: of the wrong type, missing, unknown AttributeType */
  g = (buf){0};
  n = node("Cast", "x", "y", "cast_str");
  attr_str(&n, "to", "float");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_cast_to_string.onnx", &m);
  g = (buf){0};
  n = node("Cast", "x", "y", "cast_bad_to");
  attr_int(&n, "to", 12345);
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_cast_to_unknown.onnx", &m);
  g = (buf){0};
  n = node("Concat", "x,x", "y", "concat_float_axis");
  attr_float(&n, "axis", 0.5f);
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_concat_float_axis.onnx", &m);
  g = (buf){0};
  n = node("Cast", "x", "y", "cast_no_to");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_cast_no_to.onnx", &m);
  g = (buf){0};
  n = node("Constant", NULL, "y", "const_empty");
  f_msg(&g, GRAPH_NODE, &n);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_constant_no_value.onnx", &m);
  g = (buf){0};
  n = node("Identity", "x", "y", "n_attr99");
  c = (buf){0};
  f_str(&c, ATTR_NAME, "weird");
  f_int(&c, ATTR_TYPE, 99);
  f_int(&c, ATTR_I, 1);
  f_msg(&n, NODE_ATTR, &c);
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_attr_type_unknown.onnx", &m);
  /* an attribute given twice (onnx.checker: "appeared multiple times") */
  g = (buf){0};
  n = node("LeakyRelu", "x", "y", "lrelu_twice");
  attr_float(&n, "alpha", 0.1f);
  attr_float(&n, "alpha", 0.2f);
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_attr_twice.onnx", &m);
  g = (buf){0};
  n = node("If", "c", "y", "if_no_else");
  {
    buf then = branch_graph("then_id");
    attr_graph(&n, "then_branch", then);
  }
  f_msg(&g, GRAPH_NODE, &n);
  a = value_info("c", type_tensor(9, 0, NULL));
  f_msg(&g, GRAPH_INPUT, &a);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_if_no_else.onnx", &m);
  /* If whose else_branch holds a Cast without 'to': refused at load, even
   * when the condition is true and else_branch would never run */
  g = (buf){0};
  n = node("If", "c", "y", "if_else_cast");
  {
    buf then = branch_graph("then_id"), els = {0}, cast = node("Cast", "x", "y", "cast_no_to"),
        vo = vi_float("y");
    f_msg(&els, GRAPH_NODE, &cast);
    f_str(&els, GRAPH_NAME, "else_cast");
    f_msg(&els, GRAPH_OUTPUT, &vo);
    attr_graph(&n, "then_branch", then);
    attr_graph(&n, "else_branch", els);
  }
  f_msg(&g, GRAPH_NODE, &n);
  a = value_info("c", type_tensor(9, 0, NULL));
  f_msg(&g, GRAPH_INPUT, &a);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("a_if_else_cast_no_to.onnx", &m);

  /* a function that calls itself */
  {
    buf f = {0}, o = {0};
    f_str(&f, FN_NAME, "Loopy");
    f_str(&f, FN_IN, "a");
    f_str(&f, FN_OUT, "b");
    n = node("Loopy", "a", "b", "again");
    f_str(&n, NODE_DOMAIN, "local");
    f_msg(&f, FN_NODE, &n);
    f_str(&o, OPSET_DOMAIN, "local");
    f_int(&o, OPSET_VERSION, 1);
    f_msg(&f, FN_OPSET, &o);
    f_str(&f, FN_DOMAIN, "local");
    g = (buf){0};
    n = node("Loopy", "x", "y", "call");
    f_str(&n, NODE_DOMAIN, "local");
    f_msg(&g, GRAPH_NODE, &n);
    a = vi_float("x");
    f_msg(&g, GRAPH_INPUT, &a);
    b = vi_float("y");
    f_msg(&g, GRAPH_OUTPUT, &b);
    m = model(g);
    o = (buf){0};
    f_str(&o, OPSET_DOMAIN, "local");
    f_int(&o, OPSET_VERSION, 1);
    f_msg(&m, MODEL_OPSET, &o);
    f_msg(&m, MODEL_FUNCTIONS, &f);
    save("f_recursive.onnx", &m);
  }

  /* typed inputs, to feed the wrong type, kind, rank or shape */
  g = (buf){0};
  n = node("Identity", "x", "y", "n0");
  f_msg(&g, GRAPH_NODE, &n);
  a = value_info("x", type_tensor(DT_INT64, 2, D23));
  f_msg(&g, GRAPH_INPUT, &a);
  b = value_info("y", type_tensor(DT_INT64, 2, D23));
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_typed_int64_2x3.onnx", &m);
  g = (buf){0};
  n = node("Identity", "x", "y", "n0");
  f_msg(&g, GRAPH_NODE, &n);
  a = value_info("x", type_seq(type_tensor(DT_FLOAT, -1, NULL)));
  f_msg(&g, GRAPH_INPUT, &a);
  b = value_info("y", type_seq(type_tensor(DT_FLOAT, -1, NULL)));
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_typed_seq.onnx", &m);

  /* sparse initializers: SparseTensorProto{values, indices, dims}, y = Identity(w) */
  {
    static const int64_t one[] = {1}, two[] = {2}, coord[] = {1, 2};
    struct {
      const char *file;
      int nvals, idx_dt, idx_rank, nidx, rank;
      const int64_t *idx_dims, idx[2], dims[2];
    } sp[] = {
        {"sp_huge.onnx", 1, DT_INT64, 1, 1, 2, one, {0}, {1000000, 1000000}},
        {"sp_2gib.onnx", 1, DT_INT64, 1, 1, 1, one, {0}, {500000000}},
        {"sp_index_range.onnx", 1, DT_INT64, 1, 1, 1, one, {7}, {4}},
        {"sp_index_negative.onnx", 1, DT_INT64, 1, 1, 1, one, {-1}, {4}},
        {"sp_coord_range.onnx", 1, DT_INT64, 2, 2, 2, coord, {0, 5}, {2, 2}},
        {"sp_indices_shape.onnx", 2, DT_INT64, 1, 1, 1, one, {0}, {4}},
        {"sp_indices_int32.onnx", 1, DT_INT32, 1, 1, 1, one, {0}, {4}},
        {"sp_dims_negative.onnx", 1, DT_INT64, 1, 1, 1, one, {0}, {-4}},
        {"sp_no_values.onnx", 0, DT_INT64, 1, 1, 1, one, {0}, {4}},
    };
    (void)two;
    for (size_t k = 0; k < sizeof sp / sizeof *sp; k++) {
      buf st = {0}, v, ix;
      if (sp[k].nvals) {
        int64_t nv = sp[k].nvals;
        v = float_tensor(1, &nv, "w");
        f_msg(&st, 1, &v);
      }
      ix = tensor(sp[k].idx_dt, sp[k].idx_rank, sp[k].idx_dims, NULL);
      for (int i = 0; i < sp[k].nidx; i++)
        f_int(&ix, sp[k].idx_dt == DT_INT64 ? T_INT64 : T_INT32, sp[k].idx[i]);
      f_msg(&st, 2, &ix);
      for (int i = 0; i < sp[k].rank; i++) f_int(&st, 3, sp[k].dims[i]);
      g = (buf){0};
      n = node("Identity", "w", "y", "n0");
      f_msg(&g, GRAPH_NODE, &n);
      f_str(&g, GRAPH_NAME, "g");
      b = vi_float("y");
      f_msg(&g, GRAPH_OUTPUT, &b);
      f_msg(&g, 15, &st); /* GraphProto.sparse_initializer */
      m = model(g);
      save(sp[k].file, &m);
    }
  }

  /* a Loop of M iterations whose scan output grows by ConstantOfShape(s) each
   * time: inputs M (int64), c (bool), s (int64[1]); and the same without M
   * (no trip count: with c true it never ends) */
  for (int forever = 0; forever < 2; forever++) {
    buf body = {0};
    n = node("Identity", "cond_in", "cond_out", "keep_going");
    f_msg(&body, GRAPH_NODE, &n);
    n = node("ConstantOfShape", "s", "piece", "grow");
    f_msg(&body, GRAPH_NODE, &n);
    f_str(&body, GRAPH_NAME, "body");
    a = value_info("i", type_tensor(DT_INT64, 0, NULL));
    f_msg(&body, GRAPH_INPUT, &a);
    a = value_info("cond_in", type_tensor(9, 0, NULL));
    f_msg(&body, GRAPH_INPUT, &a);
    b = value_info("cond_out", type_tensor(9, 0, NULL));
    f_msg(&body, GRAPH_OUTPUT, &b);
    b = vi_float("piece");
    f_msg(&body, GRAPH_OUTPUT, &b);
    g = (buf){0};
    n = node("Loop", forever ? ",c" : "M,c", "pieces", "loop");
    attr_graph(&n, "body", body);
    f_msg(&g, GRAPH_NODE, &n);
    f_str(&g, GRAPH_NAME, "g");
    if (!forever) {
      a = value_info("M", type_tensor(DT_INT64, 0, NULL));
      f_msg(&g, GRAPH_INPUT, &a);
    }
    a = value_info("c", type_tensor(9, 0, NULL));
    f_msg(&g, GRAPH_INPUT, &a);
    static const int64_t d1[] = {1};
    a = value_info("s", type_tensor(DT_INT64, 1, d1));
    f_msg(&g, GRAPH_INPUT, &a);
    b = vi_float("pieces");
    f_msg(&g, GRAPH_OUTPUT, &b);
    m = model(g);
    save(forever ? "loop_forever.onnx" : "loop_grow.onnx", &m);
  }

  /* a float tensor of rank 100000 (every dim 1), and the same as an initializer */
  {
    static int64_t ones[100000];
    for (int i = 0; i < 100000; i++) ones[i] = 1;
    buf t = float_tensor(100000, ones, "x");
    save("t_rank_100k.pb", &t);
    t = float_tensor(100000, ones, "w");
    init_model("m_init_rank_100k.onnx", t);
    int64_t *many = malloc(1000000 * sizeof *many);
    if (!many) die("malloc");
    for (int i = 0; i < 1000000; i++) many[i] = 1;
    t = float_tensor(1000000, many, "x");
    save("t_rank_1m.pb", &t);
    free(many);
  }

  /* printf directives in names: a Cast without 'to' in a graph named "%n%s" */
  g = (buf){0};
  n = node("Cast", "x", "y", "%s%n%s%n%p");
  f_msg(&g, GRAPH_NODE, &n);
  f_str(&g, GRAPH_NAME, "%n%s");
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("g_format_names.onnx", &m);

  /* nesting bombs in models */
  /* TypeProto 100000 deep: seq(seq(...(tensor(float)))) as the input's type */
  {
    buf ty = type_tensor(DT_FLOAT, -1, NULL), none = {0};
    for (int i = 0; i < 100000; i++) {
      wrap(&ty, SEQT_ELEM, &none); /* Sequence{elem_type} */
      wrap(&ty, TYPE_SEQ, &none);  /* TypeProto{sequence_type} */
    }
    g = (buf){0};
    n = node("Identity", "x", "y", "n0");
    f_msg(&g, GRAPH_NODE, &n);
    a = value_info("x", ty);
    f_msg(&g, GRAPH_INPUT, &a);
    b = vi_float("y");
    f_msg(&g, GRAPH_OUTPUT, &b);
    m = model(g);
    save("m_type_deep.onnx", &m);
    /* 100 deep: within the message limit, beyond the type limit */
    ty = type_tensor(DT_FLOAT, -1, NULL);
    for (int i = 0; i < 100; i++) {
      wrap(&ty, SEQT_ELEM, &none);
      wrap(&ty, TYPE_SEQ, &none);
    }
    g = (buf){0};
    n = node("Identity", "x", "y", "n0");
    f_msg(&g, GRAPH_NODE, &n);
    a = value_info("x", ty);
    f_msg(&g, GRAPH_INPUT, &a);
    b = vi_float("y");
    f_msg(&g, GRAPH_OUTPUT, &b);
    m = model(g);
    save("m_type_100.onnx", &m);
  }
  /* If nested in its then_branch, 10000 deep and 70 deep: each level is
   * Graph{name, output y, node If(c) -> y {else_branch, then_branch = next}} */
  for (int k = 0; k < 2; k++) {
    int depth = k ? 70 : 10000;
    buf gpre = {0}, npre = {0}, apre = {0};
    buf inner = branch_graph("leaf"); /* reads the outer x: outer names are visible */
    f_str(&gpre, GRAPH_NAME, "sub");
    b = vi_float("y");
    f_msg(&gpre, GRAPH_OUTPUT, &b);
    npre = node("If", "c", "y", "if");
    attr_graph(&npre, "else_branch", branch_graph("else"));
    f_str(&apre, ATTR_NAME, "then_branch");
    f_int(&apre, ATTR_TYPE, AT_GRAPH);
    for (int i = 0; i < depth; i++) {
      wrap(&inner, ATTR_G, &apre);    /* AttributeProto{name, type, g} */
      wrap(&inner, NODE_ATTR, &npre); /* NodeProto{..., attribute} */
      wrap(&inner, GRAPH_NODE, &gpre); /* GraphProto{name, output, node} */
    }
    /* the main graph: inputs c (bool) and x */
    a = value_info("c", type_tensor(9, 0, NULL));
    buf main = {0};
    f_msg(&main, GRAPH_INPUT, &a);
    a = vi_float("x");
    f_msg(&main, GRAPH_INPUT, &a);
    /* `inner` is now a GraphProto whose node is the outermost If: take its
     * fields as they are and add the main graph's inputs */
    put(&main, inner.p + inner.off, inner.n);
    free(inner.p);
    m = model(main);
    save(k ? "m_if_70.onnx" : "m_if_deep.onnx", &m);
    free(gpre.p);
    free(npre.p);
    free(apre.p);
  }

  /* 100000 Identity nodes in a chain x -> t1 -> ... -> y, in order and reversed */
  for (int rev = 0; rev < 2; rev++) {
    enum { N = 100000 };
    buf *nodes = calloc(N, sizeof *nodes);
    if (!nodes) die("calloc");
    for (int i = 0; i < N; i++) {
      char in[32], out[32], name[32];
      snprintf(in, sizeof in, i ? "t%d" : "x", i);
      snprintf(out, sizeof out, i == N - 1 ? "y" : "t%d", i + 1);
      snprintf(name, sizeof name, "n%d", i);
      nodes[i] = node("Identity", NULL, NULL, name);
      f_str(&nodes[i], NODE_IN, in);
      f_str(&nodes[i], NODE_OUT, out);
    }
    g = (buf){0};
    for (int i = 0; i < N; i++) f_msg(&g, GRAPH_NODE, &nodes[rev ? N - 1 - i : i]);
    free(nodes);
    f_str(&g, GRAPH_NAME, "chain");
    a = vi_float("x");
    f_msg(&g, GRAPH_INPUT, &a);
    b = vi_float("y");
    f_msg(&g, GRAPH_OUTPUT, &b);
    m = model(g);
    save(rev ? "chain_100k_reversed.onnx" : "chain_100k.onnx", &m);
  }
}

/* External data: ext/ is the model's folder, ext/data.bin holds 16 bytes,
 * outside.bin is next to ext/ (outside the model's folder). */
static void ext_model(const char *file, const char *location, const char *offset,
                      const char *length) {
  static const int64_t d4[] = {4};
  buf t = tensor(DT_FLOAT, 1, d4, "w"), kv = {0};
  if (location) {
    f_str(&kv, KV_KEY, "location");
    f_str(&kv, KV_VALUE, location);
    f_msg(&t, T_EXTERNAL, &kv);
  }
  if (offset) {
    f_str(&kv, KV_KEY, "offset");
    f_str(&kv, KV_VALUE, offset);
    f_msg(&t, T_EXTERNAL, &kv);
  }
  if (length) {
    f_str(&kv, KV_KEY, "length");
    f_str(&kv, KV_VALUE, length);
    f_msg(&t, T_EXTERNAL, &kv);
  }
  f_int(&t, T_LOCATION, 1);
  char path[256];
  snprintf(path, sizeof path, "ext/%s", file);
  init_model(path, t);
}

static void link_at(const char *target, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
  if (symlink(target, path)) die(path);
}

static void external(void) {
  sub("ext");
  sub("ext/sub");
  save_text("ext/data.bin", "0123456789abcdef");
  save_text("outside.bin", "SECRET-SECRET-SE");
  ext_model("ok.onnx", "data.bin", NULL, NULL); /* valid: 16 bytes for 4 floats */
  ext_model("absolute.onnx", "/etc/passwd", NULL, NULL);
  ext_model("dotdot.onnx", "../outside.bin", NULL, NULL);
  ext_model("dotdot_inner.onnx", "sub/../../outside.bin", NULL, NULL);
  ext_model("symlink.onnx", "link.bin", NULL, NULL);
  link_at("../outside.bin", "ext/link.bin");
  ext_model("symlink_dir.onnx", "up/outside.bin", NULL, NULL);
  link_at("..", "ext/up");
  ext_model("dev_zero.onnx", "zero", NULL, NULL);
  link_at("/dev/zero", "ext/zero");
  ext_model("fifo.onnx", "fifo", NULL, NULL);
  {
    char path[4096];
    snprintf(path, sizeof path, "%s/ext/fifo", dir);
    unlink(path);
    if (mkfifo(path, 0644)) die(path);
  }
  ext_model("directory.onnx", "sub", NULL, NULL);
  ext_model("missing.onnx", "nope.bin", NULL, NULL);
  ext_model("no_location.onnx", NULL, "0", NULL);
  ext_model("empty_location.onnx", "", NULL, NULL);
  ext_model("offset_past_end.onnx", "data.bin", "1000", NULL);
  ext_model("length_past_end.onnx", "data.bin", "8", "16");
  ext_model("length_mismatch.onnx", "data.bin", "0", "8");
  ext_model("offset_negative.onnx", "data.bin", "-8", NULL);
  ext_model("offset_overflow.onnx", "data.bin", "99999999999999999999", NULL);
  ext_model("length_huge.onnx", "data.bin", "0", "9223372036854775807");
}

/* Things that are not regular files, given as models and inputs (each must be
 * refused at once, not waited on), and names that meet: a folder and a symlink
 * to it, two hard links to one file. */
static void special_files(void) {
  static const char *const fifos[] = {"fifo.onnx", "fifo.pb", "fifo.json", "fifo.npy", "fifo.npz"};
  char path[4096], other[4096];
  for (size_t i = 0; i < sizeof fifos / sizeof *fifos; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, fifos[i]);
    unlink(path);
    if (mkfifo(path, 0644)) die(path);
  }
  link_at("/dev/zero", "zero.onnx");
  link_at("/dev/zero", "zero.pb");
  sub("outdir");
  link_at("outdir", "outdir_link");
  save_text("hl_a.pb", "old");
  snprintf(path, sizeof path, "%s/hl_a.pb", dir);
  snprintf(other, sizeof other, "%s/hl_b.pb", dir);
  unlink(other);
  if (link(path, other)) die(other);
}

/* Models the ONNX checker refuses for their structure (check_graph,
 * check_function); onnxop refuses them at load, before anything runs. */
static buf fn_def(const char *name, const char *ins, const char *outs, buf body_node) {
  buf f = {0}, o = {0};
  f_str(&f, FN_NAME, name);
  names(&f, FN_IN, ins);
  names(&f, FN_OUT, outs);
  f_msg(&f, FN_NODE, &body_node);
  f_str(&o, OPSET_DOMAIN, "");
  f_int(&o, OPSET_VERSION, 13);
  f_msg(&f, FN_OPSET, &o);
  f_str(&f, FN_DOMAIN, "local");
  return f;
}
/* y = name(x) in domain "local", with the given functions. */
static void fn_model(const char *file, const char *name, int nf, buf *fs) {
  buf g = {0}, n = node(name, "x", "y", "call"), a = vi_float("x"), b = vi_float("y"), o = {0};
  f_str(&n, NODE_DOMAIN, "local");
  f_msg(&g, GRAPH_NODE, &n);
  f_msg(&g, GRAPH_INPUT, &a);
  f_msg(&g, GRAPH_OUTPUT, &b);
  buf m = model(g);
  f_str(&o, OPSET_DOMAIN, "local");
  f_int(&o, OPSET_VERSION, 1);
  f_msg(&m, MODEL_OPSET, &o);
  for (int i = 0; i < nf; i++) f_msg(&m, MODEL_FUNCTIONS, &fs[i]);
  save(file, &m);
}
/* y = If(c) with then_branch y = Identity(x) and else_branch `els`. */
static void if_model(const char *file, buf els) {
  buf g = {0}, n = node("If", "c", "y", "if0"), a, b;
  attr_graph(&n, "then_branch", branch_graph("then_id"));
  attr_graph(&n, "else_branch", els);
  f_msg(&g, GRAPH_NODE, &n);
  a = value_info("c", type_tensor(9, 0, NULL));
  f_msg(&g, GRAPH_INPUT, &a);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  buf m = model(g);
  save(file, &m);
}

/* y = Scan-16(x) over axis 0 of x, the body an Identity; `attr` names an
 * int (or ints) attribute set to v, beyond what an int holds. */
static void scan_model(const char *file, const char *attr, int is_list, int64_t v) {
  buf g = {0}, n = node("Scan", "x", "y", "scan0"), body = {0}, bn = node("Identity", "e", "f", "body_id");
  buf a = vi_float("e"), b = vi_float("f");
  f_msg(&body, GRAPH_NODE, &bn);
  f_str(&body, GRAPH_NAME, "body");
  f_msg(&body, GRAPH_INPUT, &a);
  f_msg(&body, GRAPH_OUTPUT, &b);
  attr_graph(&n, "body", body);
  if (strcmp(attr, "num_scan_inputs")) attr_int(&n, "num_scan_inputs", 1);
  if (is_list) attr_ints(&n, attr, 1, &v);
  else attr_int(&n, attr, v);
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  buf m = model_of(g, "", 16);
  save(file, &m);
}

static void structure(void) {
  buf g, m, n, a, b, t;
  /* graph input x listed twice */
  g = identity_graph("x", "n0");
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  m = model(g);
  save("s_dup_input.onnx", &m);
  /* initializer w given twice (different values) */
  g = (buf){0};
  n = node("Identity", "w", "y", "n0");
  f_msg(&g, GRAPH_NODE, &n);
  t = float_tensor(2, D23, "w");
  f_msg(&g, GRAPH_INIT, &t);
  t = float_tensor(1, D23, "w");
  f_msg(&g, GRAPH_INIT, &t);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("s_dup_init.onnx", &m);
  /* one node writing y twice */
  g = (buf){0};
  n = node("Split", "x", "y,y", "split2");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("s_node_writes_twice.onnx", &m);
  /* an If branch (not taken when c is true) that reads 'ghost', defined nowhere */
  g = (buf){0};
  n = node("Identity", "ghost", "y", "else_ghost");
  f_msg(&g, GRAPH_NODE, &n);
  f_str(&g, GRAPH_NAME, "else_g");
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  if_model("s_if_ghost.onnx", g);
  /* an If branch whose output names nothing */
  g = (buf){0};
  f_str(&g, GRAPH_NAME, "else_g");
  b = vi_float("ghost");
  f_msg(&g, GRAPH_OUTPUT, &b);
  if_model("s_if_output_ghost.onnx", g);
  /* an If branch with two inputs named a (a branch takes none; never run here) */
  g = branch_graph("else_id");
  a = vi_float("a");
  f_msg(&g, GRAPH_INPUT, &a);
  a = vi_float("a");
  f_msg(&g, GRAPH_INPUT, &a);
  if_model("s_if_dup_input.onnx", g);
  /* an If branch writing over an initializer of its own */
  g = branch_graph("else_id");
  t = float_tensor(2, D23, "y");
  f_msg(&g, GRAPH_INIT, &t);
  if_model("s_if_writes_init.onnx", g);
  /* two definitions of local.F */
  {
    buf fs[2] = {fn_def("F", "a", "b", node("Identity", "a", "b", "first_f")),
                 fn_def("F", "a", "b", node("Neg", "a", "b", "second_f"))};
    fn_model("s_dup_function.onnx", "F", 2, fs);
  }
  /* a function with input a listed twice */
  {
    buf fs[1] = {fn_def("F", "a,a", "b", node("Identity", "a", "b", "f_id"))};
    fn_model("s_function_dup_input.onnx", "F", 1, fs);
  }
  /* a function whose second output names nothing (the call does not use it) */
  {
    buf fs[1] = {fn_def("F", "a", "b,ghost", node("Identity", "a", "b", "f_id"))};
    fn_model("s_function_output_ghost.onnx", "F", 1, fs);
  }
  /* a function body reading x, a name of the calling graph (functions see no outer names) */
  {
    buf fs[1] = {fn_def("F", "a", "b", node("Add", "a,x", "b", "f_add"))};
    fn_model("s_function_reads_outer.onnx", "F", 1, fs);
  }
  /* names holding a NUL byte (protobuf-c would cut them at it): a node input
   * "x\0y" that read as "x", an overload; a doc string may hold one */
  g = (buf){0};
  n = (buf){0};
  f_bytes(&n, NODE_IN, "x\0y", 3);
  f_str(&n, NODE_OUT, "y");
  f_str(&n, NODE_NAME, "n_nul");
  f_str(&n, NODE_OP, "Identity");
  f_msg(&g, GRAPH_NODE, &n);
  a = vi_float("x");
  f_msg(&g, GRAPH_INPUT, &a);
  b = vi_float("y");
  f_msg(&g, GRAPH_OUTPUT, &b);
  m = model(g);
  save("s_name_nul.onnx", &m);
  g = identity_graph("x", "n0");
  n = node("Neg", "x", "z", "n_overload");
  f_bytes(&n, 8 /* NodeProto.overload */, "o\0p", 3);
  f_msg(&g, GRAPH_NODE, &n);
  m = model(g);
  save("s_overload_nul.onnx", &m);
  g = identity_graph("x", "n0");
  n = node("Neg", "x", "z", "n_doc");
  f_bytes(&n, 6 /* NodeProto.doc_string */, "doc\0more", 8);
  f_msg(&g, GRAPH_NODE, &n);
  m = model(g);
  save("s_doc_nul.onnx", &m);
  /* Scan attributes beyond an int: 2^32 + 1 wrapped to 1 (2^32 to 0) */
  scan_model("n_scan_ok.onnx", "scan_input_axes", 1, 0);
  scan_model("n_scan_input_axes.onnx", "scan_input_axes", 1, INT64_C(4294967296));
  scan_model("n_scan_input_directions.onnx", "scan_input_directions", 1, INT64_C(4294967297));
  scan_model("n_scan_output_axes.onnx", "scan_output_axes", 1, INT64_C(4294967296));
  scan_model("n_scan_num_inputs.onnx", "num_scan_inputs", 0, INT64_C(4294967297));
}

/* ---- wide nodes (issue 27): many outputs on one node, or on many ----
 * wide_N.onnx: x: (N) split into N outputs o0 .. oN-1, y = Identity(o0);
 * wide4_N.onnx: the same outputs from ceil(N / 4) Splits of x4: (4) (the
 * last of xr: (N % 4) when that is not 0), all of them the graph's outputs;
 * wide_out_3000.onnx: one Split (no Identity) whose 3000 outputs are all
 * graph outputs; wide_5000.onnx: one Split into 5000 returning o0; a spec
 * file of one Split into 3000. A name table sized by the node count once
 * took every output and was then probed for ever (2 nodes and 16 outputs,
 * or 4 Splits of 4); the evaluator's scope, grown while a Split's outputs
 * were bound, was given back as the node's scratch (a use after free). */
static char *out_names(int first, int n) {
  char *list = malloc((size_t)n * 12 + 1), *p = list;
  if (!list) die("malloc");
  *p = 0;
  for (int k = 0; k < n; k++) p += sprintf(p, "%so%d", k ? "," : "", first + k);
  return list;
}

/* many: Splits of 4; id: y = Identity(o0) (only with one Split); all_out:
 * every oK is an output of the graph (always with many); else o0 alone is,
 * without id */
static void wide_model(const char *file, int n, int many, int id, int all_out) {
  buf g = {0};
  int64_t dn = n, d4 = 4, dr = n % 4, one = 1;
  for (int s = 0, first = 0; first < n; s++) {
    int count = many ? (n - first < 4 ? n - first : 4) : n;
    char name[32], *outs = out_names(first, count);
    snprintf(name, sizeof name, "split%d", s);
    buf nd = node("Split", !many ? "x" : count == 4 ? "x4" : "xr", outs, name); /* equal parts */
    f_msg(&g, GRAPH_NODE, &nd);
    free(outs);
    first += count;
  }
  if (id) {
    buf idn = node("Identity", "o0", "y", "id");
    f_msg(&g, GRAPH_NODE, &idn);
  }
  f_str(&g, GRAPH_NAME, "g");
  buf vi;
  if (!many) {
    vi = value_info("x", type_tensor(DT_FLOAT, 1, &dn));
    f_msg(&g, GRAPH_INPUT, &vi);
  } else {
    vi = value_info("x4", type_tensor(DT_FLOAT, 1, &d4));
    f_msg(&g, GRAPH_INPUT, &vi);
    if (dr) {
      vi = value_info("xr", type_tensor(DT_FLOAT, 1, &dr));
      f_msg(&g, GRAPH_INPUT, &vi);
    }
  }
  if (id) {
    vi = value_info("y", type_tensor(DT_FLOAT, 1, &one));
    f_msg(&g, GRAPH_OUTPUT, &vi);
  }
  for (int k = 0; k < (all_out || many ? n : id ? 0 : 1); k++) {
    char name[16];
    snprintf(name, sizeof name, "o%d", k);
    vi = value_info(name, type_tensor(DT_FLOAT, 1, &one));
    f_msg(&g, GRAPH_OUTPUT, &vi);
  }
  buf m = model(g); /* opset 13 */
  save(file, &m);
}

static void wide(void) {
  static const int ns[] = {1, 15, 16, 17, 1000, 10000};
  char file[64];
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
    snprintf(file, sizeof file, "wide_%d.onnx", ns[i]);
    wide_model(file, ns[i], 0, 1, 0);
    snprintf(file, sizeof file, "wide4_%d.onnx", ns[i]);
    wide_model(file, ns[i], 1, 0, 1);
  }
  /* one node alone: nothing to sort, so the old code reached the run */
  wide_model("wide_out_3000.onnx", 3000, 0, 0, 1);
  wide_model("wide_5000.onnx", 5000, 0, 0, 0);
  /* a spec: Split-18 of x: (3000) into 3000 outputs, drawn with seed 0 */
  char *outs = out_names(0, 3000);
  buf b = {0};
  const char *head = "{\"cases\": [{\"name\": \"test_split_3000\", \"op\": \"Split\", \"opset\": 18, "
                     "\"attributes\": {\"num_outputs\": 3000}, \"inputs\": [{\"name\": \"x\", \"type\": "
                     "\"float32[3000]\"}], \"seed\": 0, \"outputs\": [\"";
  put(&b, head, strlen(head));
  for (char *p = outs; *p; p++) {
    if (*p == ',') put(&b, "\", \"", 4);
    else put(&b, p, 1);
  }
  put(&b, "\"]}]}\n", 6);
  free(outs);
  save("wide_spec_3000.json", &b);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bad-gen DIR\n");
    return 2;
  }
  dir = argv[1];
  if (mkdir(dir, 0755) && errno != EEXIST) die(dir);
  tensors();
  values();
  json();
  archives();
  models();
  structure();
  external();
  special_files();
  wide();
  return 0;
}
