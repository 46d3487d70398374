/* proto/model.c: ModelProto -> ox_model (core/graph.h).
 *
 * The file is unpacked with protobuf-c, every part the evaluator needs is
 * copied into the arena, and the unpacked protobuf is freed before returning:
 * nothing in an ox_model points into protobuf-c memory.
 *
 * Fields newer than the generated code. The protobuf-c code is generated from
 * Debian's onnx-ml.proto (ONNX 1.12), which lacks NodeProto.overload (field 8)
 * and FunctionProto.attribute_proto (11), value_info (12) and overload (13).
 * protobuf-c keeps fields it does not know in base.unknown_fields: each has
 * the field number (tag), the wire type, and the raw bytes; for a
 * length-prefixed field those bytes still start with the varint length. We
 * read overload and attribute_proto from there (FunctionProto.value_info is
 * not needed and ignored). When the generated code does know a field (built
 * from a newer .proto), we read the struct member through its field
 * descriptor instead, so this file compiles and works with both.
 *
 * Hostile input. protobuf-c unpacks nested messages by recursion without a
 * depth limit, so a few megabytes of nested TypeProtos would overflow the
 * stack. Before unpacking, check_wire() walks the wire format, guided by the
 * message descriptors, and refuses nesting deeper than MAX_MESSAGE_DEPTH (and
 * strings holding a NUL, which protobuf-c would cut short).
 * Subgraphs (If, Loop, Scan bodies) are refused beyond MAX_GRAPH_DEPTH. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proto.h"
#include "strip.h"

#define MAX_GRAPH_DEPTH 64    /* subgraph levels below the main graph */
#define MAX_MESSAGE_DEPTH 400 /* protobuf messages inside messages (64 subgraphs need ~200) */
#define MAX_DENSE_BYTES ((uint64_t)1 << 31) /* a densified sparse tensor */

/* NodeProto and FunctionProto field numbers missing from ONNX 1.12's proto. */
enum { NODE_OVERLOAD = 8, FUNCTION_ATTRIBUTE_PROTO = 11, FUNCTION_OVERLOAD = 13 };

/* protobuf-c's allocations count against --max-memory: a 6 MB model of
 * empty nodes unpacks into 300 MB of structs. */
static void *pb_alloc(void *data, size_t n) {
  (void)data;
  return ox_mem_malloc(n);
}
static void pb_free(void *data, void *p) {
  (void)data;
  ox_mem_free(p);
}
ProtobufCAllocator ox_pb_allocator = {pb_alloc, pb_free, NULL};

/* The decoder's state. */
typedef struct {
  ox_arena *a;
  ox_err *e;
  const char *dir; /* where external data is read from; NULL refuses it */
  int depth;       /* how many graphs enclose the one being decoded */
  ox_held *held;   /* raw_data set aside by proto/strip.c (nheld of them) */
  size_t nheld;
} decoder;

static int decode_graph(decoder *d, const Onnx__GraphProto *pg, ox_graph **out);

/* Whether the error message has room for more context in front. Deeply
 * nested subgraphs would otherwise push the cause out of the message. */
static int room(decoder *d) { return strlen(d->e->msg) < 768; }

/* An arena copy of a protobuf string (a name, an op type, a domain); NULL
 * (absent) becomes "". NULL with the error set when it is not UTF-8 (`what`
 * names it in the message). */
static const char *copy_str(decoder *d, const char *what, const char *s) {
  if (ox_name_check(d->e, what, s)) return NULL;
  return ox_strdup(d->a, s ? s : "");
}

/* A domain name: "ai.onnx" is the default domain, stored as "". */
static const char *copy_domain(decoder *d, const char *s) {
  if (s && !strcmp(s, "ai.onnx")) s = "";
  return copy_str(d, "the domain", s);
}

/* n strings into a new arena array; *out stays valid (not NULL) for n == 0. */
static int copy_strs(decoder *d, size_t n, char *const *src, const char ***out) {
  const char **dst = ox_alloc_array(d->a, (int64_t)n, sizeof *dst);
  if (!dst) return ox_oom(d->e, NULL);
  for (size_t i = 0; i < n; i++)
    if (!(dst[i] = copy_str(d, "the name", src[i]))) return ox_oom(d->e, NULL);
  *out = dst;
  return 0;
}

static int copy_bytes(decoder *d, ProtobufCBinaryData b, ox_str *s) {
  char *p = ox_strndup(d->a, (const char *)b.data, b.len);
  if (!p) return ox_oom(d->e, NULL);
  s->p = p;
  s->n = (int64_t)b.len;
  return 0;
}

/* ---- the wire format, for unknown fields and the depth check ---- */

/* Read a varint at p[*pos] (ox_varint_read), moving *pos past it; -1 if it
 * is cut short or longer than 10 bytes. */
static int read_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v) {
  size_t used = *pos < len ? ox_varint_read(p + *pos, len - *pos, v) : 0;
  *pos += used;
  return used ? 0 : -1;
}

/* What check_wire found (proto.h's OX_WIRE_ values), where. */
typedef struct {
  const ProtobufCMessageDescriptor *desc; /* OX_WIRE_NUL: the message and field */
  const ProtobufCFieldDescriptor *field;
} wire_where;

/* Whether the message bytes p[0..len) nest messages more than `left` levels
 * further down (OX_WIRE_TOO_DEEP), or hold a string field with a NUL byte
 * (OX_WIRE_NUL; doc strings excepted). protobuf-c copies a string up to its
 * first NUL, so a name "a\0b" would silently read as "a"; ONNX names are
 * text, and a NUL in one is refused. Malformed bytes end the walk with
 * OX_WIRE_OK: protobuf-c rejects them itself, and it checks a whole message
 * before unpacking anything inside it, so it never goes deeper than the part
 * this walk has seen. */
static int check_wire(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len, int left,
                      wire_where *w) {
  size_t pos = 0;
  while (pos < len) {
    uint64_t key, n;
    if (read_varint(p, len, &pos, &key)) return OX_WIRE_OK;
    switch (key & 7) {
    case PROTOBUF_C_WIRE_TYPE_VARINT:
      if (read_varint(p, len, &pos, &n)) return OX_WIRE_OK;
      break;
    case PROTOBUF_C_WIRE_TYPE_64BIT:
      if (len - pos < 8) return OX_WIRE_OK;
      pos += 8;
      break;
    case PROTOBUF_C_WIRE_TYPE_32BIT:
      if (len - pos < 4) return OX_WIRE_OK;
      pos += 4;
      break;
    case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED: {
      if (read_varint(p, len, &pos, &n) || n > len - pos) return OX_WIRE_OK;
      const ProtobufCFieldDescriptor *f = NULL;
      if (key >> 3 <= UINT_MAX)
        f = protobuf_c_message_descriptor_get_field(desc, (unsigned)(key >> 3));
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
        if (left == 0) return OX_WIRE_TOO_DEEP;
        int rc = check_wire(f->descriptor, p + pos, (size_t)n, left - 1, w);
        if (rc) return rc;
      }
      if (f && f->type == PROTOBUF_C_TYPE_STRING && strcmp(f->name, "doc_string") &&
          memchr(p + pos, 0, (size_t)n)) {
        w->desc = desc;
        w->field = f;
        return OX_WIRE_NUL;
      }
      pos += (size_t)n;
      break;
    }
    default: /* groups: protobuf-c does not support them */
      return OX_WIRE_OK;
    }
  }
  return OX_WIRE_OK;
}

int ox_wire_check(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len, int left,
                  const char **message, const char **field) {
  wire_where w;
  int rc = check_wire(desc, p, len, left, &w);
  if (rc == OX_WIRE_NUL) *message = w.desc->short_name, *field = w.field->name;
  return rc;
}

/* check_wire's finding as an error, or 0. */
static int wire_error(int rc, const wire_where *w, ox_err *e) {
  if (rc == OX_WIRE_TOO_DEEP)
    return ox_fail(e, OX_EINPUT, "not a valid ONNX model (messages nest deeper than %d levels)",
                   MAX_MESSAGE_DEPTH);
  if (rc == OX_WIRE_NUL)
    return ox_fail(e, OX_EINPUT, "a %s.%s holds a NUL byte; ONNX names and strings cannot",
                   w->desc->short_name, w->field->name);
  return 0;
}

/* The payload of an unknown length-prefixed field (after its length). */
static int unknown_payload(const ProtobufCMessageUnknownField *u, const uint8_t **p, size_t *n) {
  size_t pos = 0;
  uint64_t len;
  if (u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) return -1;
  if (read_varint(u->data, u->len, &pos, &len) || len != u->len - pos) return -1;
  *p = u->data + pos;
  *n = (size_t)len;
  return 0;
}

/* The string field `id` of message m, known or unknown to the generated code;
 * "" when absent. NULL only when out of memory. */
static const char *extra_string(decoder *d, const ProtobufCMessage *m, unsigned id) {
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(m->descriptor, id);
  if (f) {
    if (f->type != PROTOBUF_C_TYPE_STRING || f->label == PROTOBUF_C_LABEL_REPEATED) return "";
    return copy_str(d, "the string", *(char *const *)((const char *)m + f->offset));
  }
  const char *s = "";
  for (size_t i = 0; i < m->n_unknown_fields; i++) {
    const uint8_t *p;
    size_t n;
    if (m->unknown_fields[i].tag != id || unknown_payload(&m->unknown_fields[i], &p, &n))
      continue;
    if (memchr(p, 0, n)) { /* the NULL makes the caller fail; this message wins */
      ox_fail(d->e, OX_EINPUT, "a %s string (field %u) holds a NUL byte; ONNX names cannot",
              m->descriptor->short_name, id);
      return NULL;
    }
    if (!(s = ox_strndup(d->a, (const char *)p, n))) return NULL; /* the last one wins */
    if (ox_name_check(d->e, "the overload", s)) return NULL;
  }
  return s;
}

/* ---- tensors ---- */

/* The index in tp's marker (proto/strip.c: the last one, as the last raw_data
 * wins), -1 when it has none. Markers are only looked for in bytes that
 * ox_strip wrote (d->held): it refuses bytes that had one already. */
static int64_t held_index(const decoder *d, const Onnx__TensorProto *tp) {
  int64_t k = -1;
  if (!d->held) return -1;
  for (size_t i = 0; i < tp->base.n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &tp->base.unknown_fields[i];
    const uint8_t *p;
    size_t n, pos = 0;
    uint64_t v;
    if (u->tag == OX_HELD_FIELD && !unknown_payload(u, &p, &n) && !read_varint(p, n, &pos, &v) &&
        pos == n)
      k = v < d->nheld ? (int64_t)v : -2;
  }
  return k;
}

static int decode_tensor(decoder *d, const Onnx__TensorProto *tp, ox_value **out) {
  int64_t k = held_index(d, tp);
  if (k == -1) return ox_from_tensor_proto(d->a, tp, d->dir, out, d->e);
  /* one block, one tensor: a second claim would make two tensors share it */
  if (k < 0 || d->held[k].taken)
    return ox_fail(d->e, OX_EINPUT, "not a valid ONNX model (tensor data referenced twice)");
  d->held[k].taken = 1;
  Onnx__TensorProto with = *tp;
  with.has_raw_data = 1;
  with.raw_data.data = d->held[k].data;
  with.raw_data.len = d->held[k].len;
  return ox_from_tensor_proto_held(d->a, &with, d->dir, out, d->e);
}

/* SparseTensorProto -> a dense tensor of its dims, zero (or "") where no
 * value is given. values is [nnz]; indices is int64 [nnz] (linear positions
 * in the dense tensor) or [nnz, rank] (coordinates). */
static int densify(decoder *d, const Onnx__SparseTensorProto *sp, ox_value **out) {
  ox_value *vals, *idx = NULL, *dense;
  char sb[256];
  if (!sp->values) return ox_fail(d->e, OX_EINPUT, "sparse tensor has no values");
  OX_TRY(decode_tensor(d, sp->values, &vals));
  if (sp->n_dims > INT_MAX) return ox_fail(d->e, OX_EINPUT, "sparse tensor has too many dims");
  int rank = (int)sp->n_dims;
  ox_dtype dt = vals->u.t.dt;
  /* A few bytes of sparse tensor can describe a huge dense one: refuse what
   * could not have been stored densely in a model either. */
  int64_t numel = ox_numel(rank, sp->dims, ox_dtype_size(dt));
  if (numel >= 0 && (uint64_t)numel * ox_dtype_size(dt) > MAX_DENSE_BYTES)
    return ox_fail(d->e, OX_EINPUT,
                   "sparse tensor of shape %s is too large to densify (over 2 GiB)",
                   ox_shape_str(rank, sp->dims, sb, sizeof sb));
  OX_TRY(ox_tensor_new(d->a, dt, rank, sp->dims, &dense, d->e));
  ox_tensor *t = &dense->u.t;
  size_t es = ox_dtype_size(dt);
  if (dt == OX_STRING)
    for (int64_t k = 0; k < t->n; k++) ((ox_str *)t->data)[k] = (ox_str){"", 0};

  int64_t nnz = vals->u.t.n;
  if (nnz > 0 && !sp->indices)
    return ox_fail(d->e, OX_EINPUT, "sparse tensor has %lld values but no indices", (long long)nnz);
  if (sp->indices) OX_TRY(decode_tensor(d, sp->indices, &idx));
  int coords = 0; /* 1: indices are [nnz, rank] coordinates */
  const int64_t *ix = NULL;
  if (idx) {
    const ox_tensor *it = &idx->u.t;
    if (it->dt != OX_INT64)
      return ox_fail(d->e, OX_EINPUT, "sparse tensor indices must be int64, not %s",
                     ox_dtype_name(it->dt));
    if (it->rank == 1 && it->dims[0] == nnz)
      coords = 0;
    else if (it->rank == 2 && it->dims[0] == nnz && it->dims[1] == rank)
      coords = 1;
    else
      return ox_fail(d->e, OX_EINPUT,
                     "sparse tensor indices have shape %s; expected (%lld,) or (%lld, %d)",
                     ox_shape_str(it->rank, it->dims, sb, sizeof sb), (long long)nnz,
                     (long long)nnz, rank);
    ix = it->data;
  }
  for (int64_t k = 0; k < nnz; k++) {
    int64_t pos;
    if (!coords) {
      pos = ix[k];
      if (pos < 0 || pos >= t->n)
        return ox_fail(d->e, OX_EINPUT, "sparse tensor index %lld is out of range for shape %s",
                       (long long)pos, ox_shape_str(rank, t->dims, sb, sizeof sb));
    } else {
      pos = 0;
      for (int j = 0; j < rank; j++) {
        int64_t c = ix[k * rank + j];
        if (c < 0 || c >= t->dims[j])
          return ox_fail(d->e, OX_EINPUT,
                         "sparse tensor coordinate %lld (axis %d) is out of range for shape %s",
                         (long long)c, j, ox_shape_str(rank, t->dims, sb, sizeof sb));
        pos = pos * t->dims[j] + c;
      }
    }
    memcpy((char *)t->data + pos * es, (const char *)vals->u.t.data + k * es, es);
  }
  *out = dense;
  return 0;
}

/* ---- attributes ---- */

/* Old models may leave out AttributeProto.type: take it from the field set. */
static int infer_attr_type(const Onnx__AttributeProto *pa) {
  if (pa->has_f) return OX_ATTR_FLOAT;
  if (pa->has_i) return OX_ATTR_INT;
  if (pa->has_s) return OX_ATTR_STRING;
  if (pa->t) return OX_ATTR_TENSOR;
  if (pa->g) return OX_ATTR_GRAPH;
  if (pa->sparse_tensor) return OX_ATTR_SPARSE_TENSOR;
  if (pa->tp) return OX_ATTR_TYPE_PROTO;
  if (pa->n_floats) return OX_ATTR_FLOATS;
  if (pa->n_ints) return OX_ATTR_INTS;
  if (pa->n_strings) return OX_ATTR_STRINGS;
  if (pa->n_tensors) return OX_ATTR_TENSORS;
  if (pa->n_graphs) return OX_ATTR_GRAPHS;
  if (pa->n_sparse_tensors) return OX_ATTR_SPARSE_TENSORS;
  if (pa->n_type_protos) return OX_ATTR_TYPE_PROTOS;
  return OX_ATTR_UNDEFINED;
}

/* The value of an attribute, by type. */
static int decode_attr_value(decoder *d, const Onnx__AttributeProto *pa, ox_attr *at) {
  ox_arena *a = d->a;
  switch (at->type) {
  case OX_ATTR_FLOAT:
    at->f = pa->f;
    return 0;
  case OX_ATTR_INT:
    at->i = pa->i;
    return 0;
  case OX_ATTR_STRING:
    return copy_bytes(d, pa->s, &at->s);
  case OX_ATTR_TENSOR:
    if (!pa->t) return ox_fail(d->e, OX_EINPUT, "attribute of type TENSOR has no tensor");
    return decode_tensor(d, pa->t, &at->t);
  case OX_ATTR_GRAPH:
    if (!pa->g) return ox_fail(d->e, OX_EINPUT, "attribute of type GRAPH has no graph");
    return decode_graph(d, pa->g, &at->g);
  case OX_ATTR_SPARSE_TENSOR:
    if (!pa->sparse_tensor)
      return ox_fail(d->e, OX_EINPUT, "attribute of type SPARSE_TENSOR has no sparse tensor");
    return densify(d, pa->sparse_tensor, &at->t);
  case OX_ATTR_TYPE_PROTO: {
    size_t failed = ox_mem_failures();
    at->tp = ox_from_type_proto(a, pa->tp); /* NULL: absent or not modelled, or no memory */
    return !at->tp && ox_mem_failures() != failed ? ox_oom(d->e, NULL) : 0;
  }
  case OX_ATTR_FLOATS:
    at->n = (int64_t)pa->n_floats;
    if (!(at->floats = ox_alloc_array(a, at->n, sizeof *at->floats))) return ox_oom(d->e, NULL);
    if (at->n) memcpy(at->floats, pa->floats, pa->n_floats * sizeof *at->floats);
    return 0;
  case OX_ATTR_INTS:
    at->n = (int64_t)pa->n_ints;
    if (!(at->ints = ox_alloc_array(a, at->n, sizeof *at->ints))) return ox_oom(d->e, NULL);
    if (at->n) memcpy(at->ints, pa->ints, pa->n_ints * sizeof *at->ints);
    return 0;
  case OX_ATTR_STRINGS:
    at->n = (int64_t)pa->n_strings;
    if (!(at->strings = ox_alloc_array(a, at->n, sizeof *at->strings))) return ox_oom(d->e, NULL);
    for (size_t k = 0; k < pa->n_strings; k++)
      OX_TRY(copy_bytes(d, pa->strings[k], &at->strings[k]));
    return 0;
  case OX_ATTR_TENSORS:
    at->n = (int64_t)pa->n_tensors;
    if (!(at->tensors = ox_alloc_array(a, at->n, sizeof *at->tensors))) return ox_oom(d->e, NULL);
    for (size_t k = 0; k < pa->n_tensors; k++)
      OX_TRY(decode_tensor(d, pa->tensors[k], &at->tensors[k]));
    return 0;
  case OX_ATTR_GRAPHS:
    at->n = (int64_t)pa->n_graphs;
    if (!(at->graphs = ox_alloc_array(a, at->n, sizeof *at->graphs))) return ox_oom(d->e, NULL);
    for (size_t k = 0; k < pa->n_graphs; k++)
      OX_TRY(decode_graph(d, pa->graphs[k], &at->graphs[k]));
    return 0;
  case OX_ATTR_SPARSE_TENSORS: /* densified, so they are plain tensors */
    at->n = (int64_t)pa->n_sparse_tensors;
    if (!(at->tensors = ox_alloc_array(a, at->n, sizeof *at->tensors))) return ox_oom(d->e, NULL);
    for (size_t k = 0; k < pa->n_sparse_tensors; k++)
      OX_TRY(densify(d, pa->sparse_tensors[k], &at->tensors[k]));
    return 0;
  case OX_ATTR_TYPE_PROTOS:
    at->n = (int64_t)pa->n_type_protos;
    if (!(at->tps = ox_alloc_array(a, at->n, sizeof *at->tps))) return ox_oom(d->e, NULL);
    for (size_t k = 0; k < pa->n_type_protos; k++) {
      size_t failed = ox_mem_failures();
      if (!(at->tps[k] = ox_from_type_proto(a, pa->type_protos[k])) && ox_mem_failures() != failed)
        return ox_oom(d->e, NULL);
    }
    return 0;
  case OX_ATTR_UNDEFINED:
    return ox_fail(d->e, OX_EINPUT, "attribute has no type and no value");
  }
  return ox_fail(d->e, OX_EINPUT, "attribute has unknown type %d", (int)at->type);
}

static int decode_attr(decoder *d, const Onnx__AttributeProto *pa, ox_attr *at) {
  if (!(at->name = copy_str(d, "the attribute name", pa->name))) return ox_oom(d->e, NULL);
  at->type = pa->has_type ? (ox_attr_type)pa->type : (ox_attr_type)infer_attr_type(pa);
  if (pa->ref_attr_name && pa->ref_attr_name[0]) {
    /* Inside a function body: the value is the caller's attribute of that name. */
    if (!(at->ref_attr_name = copy_str(d, "the attribute reference", pa->ref_attr_name))) return ox_oom(d->e, NULL);
    return 0;
  }
  if (decode_attr_value(d, pa, at)) {
    if (room(d)) ox_prefix(d->e, "attribute '%s': ", at->name);
    return d->e->code;
  }
  return 0;
}

/* ---- nodes, value infos, graphs ---- */

static int decode_node(decoder *d, const Onnx__NodeProto *pn, int index, ox_node *n) {
  if (!pn->op_type || !pn->op_type[0])
    return ox_fail(d->e, OX_EINPUT, "node %d ('%s') has no op_type", index,
                   pn->name ? pn->name : "");
  if (!(n->name = copy_str(d, "the node name", pn->name)) || !(n->op = copy_str(d, "the op type", pn->op_type)) ||
      !(n->domain = copy_domain(d, pn->domain)) ||
      !(n->overload = extra_string(d, &pn->base, NODE_OVERLOAD)))
    return ox_oom(d->e, NULL);
  n->nin = (int)pn->n_input;
  n->nout = (int)pn->n_output;
  OX_TRY(copy_strs(d, pn->n_input, pn->input, &n->in));
  OX_TRY(copy_strs(d, pn->n_output, pn->output, &n->out));
  n->nattr = (int)pn->n_attribute;
  if (!(n->attr = ox_alloc_array(d->a, n->nattr, sizeof *n->attr))) return ox_oom(d->e, NULL);
  for (int i = 0; i < n->nattr; i++) {
    if (decode_attr(d, pn->attribute[i], &n->attr[i])) {
      if (!room(d)) return d->e->code;
      if (n->name[0]) ox_prefix(d->e, "node '%s' (%s): ", n->name, n->op);
      else ox_prefix(d->e, "node %d (%s): ", index, n->op);
      return d->e->code;
    }
  }
  /* onnx.checker refuses an attribute given twice; which one counts is
   * nowhere said, so neither does */
  const char *twice;
  OX_TRY(ox_attr_twice(n->nattr, n->attr, &twice, d->e));
  if (twice) {
    if (n->name[0]) return ox_fail(d->e, OX_EINPUT, "node '%s' (%s): attribute '%s' is given twice", n->name, n->op, twice);
    return ox_fail(d->e, OX_EINPUT, "node %d (%s): attribute '%s' is given twice", index, n->op, twice);
  }
  return 0;
}

static int decode_nodes(decoder *d, size_t count, Onnx__NodeProto *const *src, int *n_out,
                        ox_node **out) {
  ox_node *nodes = ox_alloc_array(d->a, (int64_t)count, sizeof *nodes);
  if (!nodes) return ox_oom(d->e, NULL);
  for (size_t i = 0; i < count; i++) OX_TRY(decode_node(d, src[i], (int)i, &nodes[i]));
  *n_out = (int)count;
  *out = nodes;
  return 0;
}

/* Name, type and (for tensors) declared shape. */
static int decode_valueinfo(decoder *d, const Onnx__ValueInfoProto *pv, ox_valueinfo *vi) {
  if (!(vi->name = copy_str(d, "the value name", pv->name))) return ox_oom(d->e, NULL);
  if (ox_type_proto_depth(pv->type) > OX_PROTO_MAX_DEPTH + 1)
    return ox_fail(d->e, OX_EINPUT, "the type of '%s' nests more than %d levels", vi->name, OX_PROTO_MAX_DEPTH);
  size_t failed = ox_mem_failures();
  vi->type = ox_from_type_proto(d->a, pv->type); /* NULL: absent or not modelled, or no memory */
  if (!vi->type && ox_mem_failures() != failed) return ox_oom(d->e, NULL);
  vi->rank = -1;
  const Onnx__TypeProto *tp = pv->type;
  if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type &&
      tp->tensor_type->shape) {
    const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
    vi->rank = (int)sh->n_dim;
    if (!(vi->dims = ox_alloc_array(d->a, vi->rank, sizeof *vi->dims))) return ox_oom(d->e, NULL);
    for (size_t k = 0; k < sh->n_dim; k++) {
      const Onnx__TensorShapeProto__Dimension *dim = sh->dim[k];
      int known = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                  dim->dim_value >= 0;
      vi->dims[k] = known ? dim->dim_value : -1; /* dim_param or unknown: -1 */
      if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dim->dim_param &&
          *dim->dim_param) { /* kept for run --random --dim and info */
        if (!vi->dim_param && !(vi->dim_param = ox_alloc_array(d->a, vi->rank, sizeof *vi->dim_param)))
          return ox_oom(d->e, NULL);
        if (!(vi->dim_param[k] = copy_str(d, "a dim_param", dim->dim_param))) return d->e->code ? d->e->code : ox_oom(d->e, NULL);
      }
    }
  }
  return 0;
}

static int decode_valueinfos(decoder *d, size_t count, Onnx__ValueInfoProto *const *src,
                             int *n_out, ox_valueinfo **out) {
  ox_valueinfo *vis = ox_alloc_array(d->a, (int64_t)count, sizeof *vis);
  if (!vis) return ox_oom(d->e, NULL);
  for (size_t i = 0; i < count; i++) OX_TRY(decode_valueinfo(d, src[i], &vis[i]));
  *n_out = (int)count;
  *out = vis;
  return 0;
}

/* Dense initializers, then the sparse ones densified. */
static int decode_initializers(decoder *d, const Onnx__GraphProto *pg, ox_graph *g) {
  size_t n = pg->n_initializer + pg->n_sparse_initializer;
  g->ninit = (int)n;
  g->init_name = ox_alloc_array(d->a, (int64_t)n, sizeof *g->init_name);
  g->init = ox_alloc_array(d->a, (int64_t)n, sizeof *g->init);
  if (!g->init_name || !g->init) return ox_oom(d->e, NULL);
  for (size_t i = 0; i < pg->n_initializer; i++) {
    const Onnx__TensorProto *tp = pg->initializer[i];
    if (!(g->init_name[i] = copy_str(d, "the initializer name", tp->name))) return ox_oom(d->e, NULL);
    if (decode_tensor(d, tp, &g->init[i])) {
      if (room(d)) ox_prefix(d->e, "initializer '%s': ", g->init_name[i]);
      return d->e->code;
    }
  }
  for (size_t i = 0; i < pg->n_sparse_initializer; i++) {
    const Onnx__SparseTensorProto *sp = pg->sparse_initializer[i];
    size_t k = pg->n_initializer + i;
    /* A sparse tensor's name is its values' name. */
    if (!(g->init_name[k] = copy_str(d, "the initializer name", sp->values ? sp->values->name : NULL))) return ox_oom(d->e, NULL);
    if (densify(d, sp, &g->init[k])) {
      if (room(d)) ox_prefix(d->e, "sparse initializer '%s': ", g->init_name[k]);
      return d->e->code;
    }
  }
  return 0;
}

static int decode_graph(decoder *d, const Onnx__GraphProto *pg, ox_graph **out) {
  if (d->depth > MAX_GRAPH_DEPTH)
    return ox_fail(d->e, OX_EINPUT, "subgraphs nest deeper than %d levels", MAX_GRAPH_DEPTH);
  d->depth++;
  int rc = 0;
  ox_graph *g = ox_alloc(d->a, sizeof *g);
  if (!g || !(g->name = copy_str(d, "the graph name", pg->name))) rc = ox_oom(d->e, NULL);
  if (!rc) rc = decode_nodes(d, pg->n_node, pg->node, &g->nnode, &g->node);
  if (!rc) rc = decode_valueinfos(d, pg->n_input, pg->input, &g->nin, &g->in);
  if (!rc) rc = decode_valueinfos(d, pg->n_output, pg->output, &g->nout, &g->out);
  if (!rc) rc = decode_valueinfos(d, pg->n_value_info, pg->value_info, &g->nvi, &g->vi);
  if (!rc) rc = decode_initializers(d, pg, g);
  d->depth--;
  if (rc) return rc;
  *out = g;
  return 0;
}

/* ---- opsets and functions ---- */

static int decode_opsets(decoder *d, size_t count, Onnx__OperatorSetIdProto *const *src,
                         int *n_out, ox_opset **out) {
  ox_opset *ops = ox_alloc_array(d->a, (int64_t)count, sizeof *ops);
  if (!ops) return ox_oom(d->e, NULL);
  for (size_t i = 0; i < count; i++) {
    if (!(ops[i].domain = copy_domain(d, src[i]->domain))) return ox_oom(d->e, NULL);
    ops[i].version = src[i]->version;
  }
  *n_out = (int)count;
  *out = ops;
  return 0;
}

/* FunctionProto.attribute_proto: attributes with their default values. */
static int decode_function_defaults(decoder *d, const Onnx__FunctionProto *pf, ox_function *fn) {
  const ProtobufCMessage *m = &pf->base;
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field(m->descriptor, FUNCTION_ATTRIBUTE_PROTO);
  if (f) { /* generated from a newer .proto: a struct member */
    if (f->type != PROTOBUF_C_TYPE_MESSAGE || f->label != PROTOBUF_C_LABEL_REPEATED ||
        f->descriptor != &onnx__attribute_proto__descriptor)
      return 0;
    size_t n = *(const size_t *)((const char *)m + f->quantifier_offset);
    Onnx__AttributeProto *const *src =
        *(Onnx__AttributeProto *const *const *)((const char *)m + f->offset);
    fn->attr_default = ox_alloc_array(d->a, (int64_t)n, sizeof *fn->attr_default);
    if (!fn->attr_default) return ox_oom(d->e, NULL);
    fn->ndefault = (int)n;
    for (size_t i = 0; i < n; i++) OX_TRY(decode_attr(d, src[i], &fn->attr_default[i]));
    return 0;
  }
  /* Unknown to the generated code: unpack each AttributeProto ourselves. */
  size_t n = 0;
  for (size_t i = 0; i < m->n_unknown_fields; i++)
    if (m->unknown_fields[i].tag == FUNCTION_ATTRIBUTE_PROTO) n++;
  fn->attr_default = ox_alloc_array(d->a, (int64_t)n, sizeof *fn->attr_default);
  if (!fn->attr_default) return ox_oom(d->e, NULL);
  for (size_t i = 0; i < m->n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    const uint8_t *p;
    size_t len;
    if (u->tag != FUNCTION_ATTRIBUTE_PROTO) continue;
    if (unknown_payload(u, &p, &len))
      return ox_fail(d->e, OX_EINPUT, "attribute_proto %d is not a valid AttributeProto",
                     fn->ndefault);
    wire_where w;
    if (wire_error(check_wire(&onnx__attribute_proto__descriptor, p, len, MAX_MESSAGE_DEPTH, &w), &w, d->e))
      return d->e->code;
    size_t refused = ox_mem_failures();
    Onnx__AttributeProto *pa = onnx__attribute_proto__unpack(&ox_pb_allocator, len, p);
    if (!pa && ox_mem_failures() != refused) return ox_oom(d->e, NULL);
    if (!pa)
      return ox_fail(d->e, OX_EINPUT, "attribute_proto %d is not a valid AttributeProto",
                     fn->ndefault);
    int rc = decode_attr(d, pa, &fn->attr_default[fn->ndefault]);
    onnx__attribute_proto__free_unpacked(pa, &ox_pb_allocator);
    if (rc) return rc;
    fn->ndefault++;
  }
  return 0;
}

static int decode_function(decoder *d, const Onnx__FunctionProto *pf, ox_function *fn) {
  if (!(fn->name = copy_str(d, "the function name", pf->name)) || !(fn->domain = copy_domain(d, pf->domain)) ||
      !(fn->overload = extra_string(d, &pf->base, FUNCTION_OVERLOAD)))
    return ox_oom(d->e, NULL);
  fn->nin = (int)pf->n_input;
  fn->nout = (int)pf->n_output;
  fn->nattr = (int)pf->n_attribute;
  OX_TRY(copy_strs(d, pf->n_input, pf->input, &fn->in));
  OX_TRY(copy_strs(d, pf->n_output, pf->output, &fn->out));
  OX_TRY(copy_strs(d, pf->n_attribute, pf->attribute, &fn->attr_name));
  OX_TRY(decode_function_defaults(d, pf, fn));
  OX_TRY(decode_nodes(d, pf->n_node, pf->node, &fn->nnode, &fn->node));
  return decode_opsets(d, pf->n_opset_import, pf->opset_import, &fn->nopset, &fn->opset);
}

/* ---- the model ---- */

/* The folder of a file path: "a/b/m.onnx" -> "a/b", "m.onnx" -> ".", "/m.onnx" -> "/". */
static const char *dir_of(ox_arena *a, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return ox_strdup(a, ".");
  size_t n = (size_t)(slash - path);
  while (n > 0 && path[n - 1] == '/') n--; /* "a//m.onnx" -> "a" */
  if (n == 0) return ox_strdup(a, "/");
  return ox_strndup(a, path, n);
}

static int decode_model(decoder *d, const Onnx__ModelProto *pm, ox_model *m) {
  m->ir_version = pm->ir_version;
  OX_TRY(decode_opsets(d, pm->n_opset_import, pm->opset_import, &m->nopset, &m->opset));
  OX_TRY(decode_graph(d, pm->graph, &m->graph));
  m->nfunc = (int)pm->n_functions;
  if (!(m->func = ox_alloc_array(d->a, m->nfunc, sizeof *m->func))) return ox_oom(d->e, NULL);
  for (int i = 0; i < m->nfunc; i++) {
    if (decode_function(d, pm->functions[i], &m->func[i])) {
      if (room(d)) ox_prefix(d->e, "function '%s': ", m->func[i].name ? m->func[i].name : "");
      return d->e->code;
    }
  }
  return 0;
}

/* The model's bytes, checked and unpacked by protobuf-c. */
static int unpack_model(const uint8_t *buf, size_t len, Onnx__ModelProto **out, ox_err *e) {
  if (len == 0) return ox_fail(e, OX_EINPUT, "not a valid ONNX model (the file is empty)");
  /* Protobuf messages are limited to 2 GiB; this also keeps every count in an int. */
  if (len > INT_MAX)
    return ox_fail(e, OX_EINPUT, "not a valid ONNX model (larger than 2 GiB; large weights "
                                 "belong in external data files)");
  wire_where w;
  if (wire_error(check_wire(&onnx__model_proto__descriptor, buf, len, MAX_MESSAGE_DEPTH, &w), &w, e))
    return e->code;
  size_t refused = ox_mem_failures();
  Onnx__ModelProto *pm = onnx__model_proto__unpack(&ox_pb_allocator, len, buf);
  if (!pm && ox_mem_failures() != refused)
    return ox_oom(e, "unpacking the model's %zu bytes", len);
  if (!pm) return ox_fail(e, OX_EINPUT, "not a valid ONNX model (truncated or corrupt)");
  if (!pm->graph) {
    protobuf_c_message_free_unpacked(&pm->base, &ox_pb_allocator);
    return ox_fail(e, OX_EINPUT, "model has no graph");
  }
  *out = pm;
  return 0;
}

/* The unpacked model into the arena; pm is freed. path may be NULL for bytes
 * that come from nowhere: then path is "" and dir NULL, so external data is
 * refused. */
static int decode_unpacked(ox_arena *a, Onnx__ModelProto *pm, const char *path, const ox_stripped *st,
                           ox_model **out, ox_err *e) {
  decoder d = {a, e, NULL, 0, st ? st->held : NULL, st ? st->nheld : 0};
  ox_model *m = ox_alloc(a, sizeof *m);
  int rc = 0;
  if (!m) rc = ox_oom(e, NULL);
  if (!rc) {
    m->path = ox_strdup(a, path ? path : "");
    m->dir = path ? dir_of(a, path) : NULL;
    if (!m->path || (path && !m->dir)) rc = ox_oom(e, NULL);
  }
  if (!rc) {
    d.dir = m->dir;
    rc = decode_model(&d, pm, m);
  }
  protobuf_c_message_free_unpacked(&pm->base, &ox_pb_allocator);
  if (rc) return rc;
  *out = m;
  return 0;
}

int ox_model_decode(ox_arena *a, const uint8_t *buf, size_t len, const char *path,
                    ox_model **out, ox_err *e) {
  Onnx__ModelProto *pm;
  ox_stripped st;
  int rc = len > INT_MAX ? OX_STRIP_NO
                         : ox_strip_mem(a, buf, len, "the model", MAX_MESSAGE_DEPTH, &st, e);
  if (rc == OX_STRIP_NO) { /* the usual path gives its usual messages */
    OX_TRY(unpack_model(buf, len, &pm, e));
    return decode_unpacked(a, pm, path, NULL, out, e);
  }
  if (rc) return rc;
  rc = unpack_model(st.wire, st.len, &pm, e);
  if (!rc) rc = decode_unpacked(a, pm, path, &st, out, e);
  ox_stripped_free(&st);
  return rc;
}

/* The whole of f, malloc'd (not in the arena: it is dropped once unpacked),
 * counted against --max-memory: one buffer of the file's size. */
static int read_whole(FILE *f, const char *path, size_t n, uint8_t **data, ox_err *e) {
  uint8_t *buf = ox_mem_malloc(n + 1);
  if (!buf) return ox_oom(e, "reading model '%s' (%zu bytes)", path, n);
  /* one byte more than fstat said: a file that grew meanwhile is refused */
  size_t got = fread(buf, 1, n + 1, f);
  int bad = ferror(f), err = errno;
  if (bad || got != n) {
    ox_mem_free(buf);
    if (bad) return ox_fail(e, OX_EINPUT, "cannot read model '%s': %s", path, strerror(err));
    return ox_fail(e, OX_EINPUT, "cannot read model '%s': it changed size while being read", path);
  }
  *data = buf;
  return 0;
}

/* The model file: read front to back with its large tensor data set aside
 * (proto/strip.c: *st), or, for bytes that path leaves alone, whole (*buf). */
static int read_model_file(ox_arena *a, const char *path, ox_stripped *st, uint8_t **buf, size_t *len,
                           ox_err *e) {
  const char *why;
  FILE *f = ox_open_regular(path, &why); /* a FIFO or a device is refused, not waited on */
  if (!f) return ox_fail(e, OX_EINPUT, "cannot open model '%s': %s", path, why);
  struct stat st_;
  if (fstat(fileno(f), &st_)) {
    int err = errno;
    fclose(f);
    return ox_fail(e, OX_EINPUT, "cannot read model '%s': %s", path, strerror(err));
  }
  if ((uint64_t)st_.st_size > (uint64_t)INT_MAX) { /* unpack_model refuses it anyway */
    fclose(f);
    return ox_fail(e, OX_EINPUT, "not a valid ONNX model (larger than 2 GiB; large "
                                 "weights belong in external data files)");
  }
  size_t n = (size_t)st_.st_size;
  char *what = ox_sprintf(a, "model '%s'", path);
  if (!what) {
    fclose(f);
    return ox_oom(e, NULL);
  }
  int rc = ox_strip_file(a, f, n, what, MAX_MESSAGE_DEPTH, st, e);
  if (rc == OX_STRIP_NO) {
    *st = (ox_stripped){0};
    rc = fseek(f, 0, SEEK_SET) ? ox_fail(e, OX_EINPUT, "cannot read model '%s': %s", path, strerror(errno))
                               : read_whole(f, path, n, buf, e);
    if (!rc) *len = n;
  }
  fclose(f);
  return rc;
}

int ox_model_load(ox_arena *a, const char *path, ox_model **out, ox_err *e) {
  uint8_t *buf = NULL;
  size_t len = 0;
  ox_stripped st;
  Onnx__ModelProto *pm;
  OX_TRY(read_model_file(a, path, &st, &buf, &len, e));
  int rc;
  if (st.wire) {
    rc = unpack_model(st.wire, st.len, &pm, e);
    /* the stripped bytes go as soon as they are unpacked */
    ox_mem_free(st.wire);
    st.wire = NULL;
    if (!rc) rc = decode_unpacked(a, pm, path, &st, out, e);
    ox_stripped_free(&st);
    return rc;
  }
  /* the file's bytes go as soon as they are unpacked: the weights are held
   * twice at most (protobuf-c's copy, then the tensors'), never three times */
  rc = unpack_model(buf, len, &pm, e);
  ox_mem_free(buf);
  return rc ? rc : decode_unpacked(a, pm, path, NULL, out, e);
}
