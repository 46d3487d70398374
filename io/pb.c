/* io/pb.c: values in .pb files (one serialized TensorProto, SequenceProto,
 * OptionalProto or MapProto, as in ONNX's test_data_set_N folders).
 *
 * A .pb does not say which message it holds. When the model declares the
 * value's type (`want`), its kind picks the message. Without one we tell them
 * apart by content; see "Guessing the message" below.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "proto/proto.h"

enum { MSG_TENSOR, MSG_SEQUENCE, MSG_OPTIONAL, MSG_MAP, NMSG };

static const ProtobufCMessageDescriptor *const descs[NMSG] = {
    &onnx__tensor_proto__descriptor, &onnx__sequence_proto__descriptor,
    &onnx__optional_proto__descriptor, &onnx__map_proto__descriptor};

/* ---- the protobuf wire format: a message is a list of (tag, payload);
 * tag = field number << 3 | wire type ---- */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* (the varint reader: core/sys.h's ox_varint_read) */

/* protobuf-c unpacks nested messages recursively, without a limit: a small
 * file nesting 200000 OptionalProtos overflows the stack. So the message tree
 * is walked first (ox_wire_check), and nesting deeper than Google's protobuf
 * allows by default (100) is refused; so is a name holding a NUL byte, which
 * protobuf-c would cut short. */
#define MAX_NESTING 100

/* A TensorProto's raw_data (field 9) is most of a large file, and protobuf-c
 * would copy it. When the message holds it once, *at and *n locate its bytes and
 * *rest is the message without that field (malloc'd), to unpack instead;
 * raw_data then points into buf (the value copies it once). 0: not split. */
static int split_raw(const uint8_t *buf, size_t len, size_t *at, size_t *n, uint8_t **rest,
                     size_t *rest_len) {
  size_t pos = 0, f_start = 0, f_end = 0;
  int found = 0;
  while (pos < len) {
    uint64_t tag, v;
    size_t used = ox_varint_read(buf + pos, len - pos, &tag), start = pos, skip;
    if (!used) return 0;
    pos += used;
    switch (tag & 7) {
    case WT_VARINT:
      if (!(skip = ox_varint_read(buf + pos, len - pos, &v))) return 0;
      break;
    case WT_I64: skip = 8; break;
    case WT_I32: skip = 4; break;
    case WT_LEN:
      if (!(used = ox_varint_read(buf + pos, len - pos, &v)) || v > len - pos - used) return 0;
      if (tag >> 3 == 9) {
        if (found++) return 0;
        f_start = start, *at = pos + used, *n = (size_t)v, f_end = pos + used + (size_t)v;
      }
      skip = used + (size_t)v;
      break;
    default: return 0;
    }
    if (skip > len - pos) return 0;
    pos += skip;
  }
  if (!found || *n < 4096) return 0;
  *rest_len = len - (f_end - f_start);
  if (!(*rest = ox_mem_malloc(*rest_len + 1))) return 0;
  memcpy(*rest, buf, f_start);
  memcpy(*rest + f_start, buf + f_end, len - f_end);
  return 1;
}

/* Unpack buf as message m and convert it. The value is in the arena; the
 * unpacked message is freed here. */
static int decode_as(ox_arena *a, int m, const uint8_t *buf, size_t len, const char *basedir,
                     ox_value **out, const char **name_out, ox_err *e) {
  const char *msg_name, *field;
  int wire = ox_wire_check(descs[m], buf, len, MAX_NESTING - 1, &msg_name, &field);
  if (wire == OX_WIRE_TOO_DEEP)
    return ox_fail(e, OX_EINPUT, "%s nests messages more than %d deep", descs[m]->short_name,
                   MAX_NESTING);
  if (wire == OX_WIRE_NUL)
    return ox_fail(e, OX_EINPUT, "a %s.%s holds a NUL byte; ONNX names and strings cannot", msg_name, field);
  size_t raw_at = 0, raw_n = 0, rest_len = 0;
  uint8_t *rest = NULL;
  ProtobufCMessage *msg;
  size_t refused = ox_mem_failures();
  if (m == MSG_TENSOR && split_raw(buf, len, &raw_at, &raw_n, &rest, &rest_len)) {
    msg = protobuf_c_message_unpack(descs[m], &ox_pb_allocator, rest_len, rest);
    ox_mem_free(rest);
    if (msg) {
      Onnx__TensorProto *tp = (Onnx__TensorProto *)msg;
      tp->has_raw_data = 1;
      tp->raw_data.len = raw_n;
      tp->raw_data.data = (uint8_t *)buf + raw_at;
    }
  } else {
    raw_n = 0;
    msg = protobuf_c_message_unpack(descs[m], &ox_pb_allocator, len, buf);
  }
  if (!msg && ox_mem_failures() != refused)
    return ox_oom(e, "unpacking a %s of %zu bytes", descs[m]->short_name, len);
  if (!msg)
    return ox_fail(e, OX_EINPUT, "not a valid %s (truncated or corrupt)", descs[m]->short_name);
  const char *name = NULL;
  int rc;
  switch (m) {
  case MSG_TENSOR: {
    const Onnx__TensorProto *tp = (const Onnx__TensorProto *)msg;
    name = tp->name;
    rc = ox_from_tensor_proto(a, tp, basedir, out, e);
    break;
  }
  case MSG_SEQUENCE: {
    const Onnx__SequenceProto *sp = (const Onnx__SequenceProto *)msg;
    name = sp->name;
    rc = ox_from_sequence_proto(a, sp, basedir, out, e);
    break;
  }
  case MSG_OPTIONAL: {
    const Onnx__OptionalProto *op = (const Onnx__OptionalProto *)msg;
    name = op->name;
    rc = ox_from_optional_proto(a, op, basedir, out, e);
    break;
  }
  default: {
    const Onnx__MapProto *mp = (const Onnx__MapProto *)msg;
    name = mp->name;
    rc = ox_from_map_proto(a, mp, basedir, out, e);
    break;
  }
  }
  if (!rc) rc = ox_name_check(e, "the value's name", name);
  if (!rc && name_out) {
    *name_out = name && *name ? ox_strdup(a, name) : NULL;
    if (name && *name && !*name_out) rc = ox_oom(e, NULL);
  }
  if (raw_n) { /* raw_data is buf's, not protobuf-c's to free */
    Onnx__TensorProto *tp = (Onnx__TensorProto *)msg;
    tp->has_raw_data = 0;
    tp->raw_data.len = 0;
    tp->raw_data.data = NULL;
  }
  protobuf_c_message_free_unpacked(msg, &ox_pb_allocator);
  return rc;
}

/* ---------------------------------------------------------------------------
 * Guessing the message
 *
 * The four messages share field numbers (onnx-ml.proto, onnx-data.proto):
 *
 *   field  TensorProto            SequenceProto     OptionalProto     MapProto
 *   1      dims (varint/packed)   name              name              name
 *   2      data_type (varint)     elem_type         elem_type         key_type
 *   3      segment                tensor_values     tensor_value      keys
 *   4      float_data             sparse_values     sparse_value      string_keys
 *   5      int32_data             sequence_values   sequence_value    values
 *   6      string_data            map_values        map_value         -
 *   7      int64_data             optional_values   optional_value    -
 *   8..14, 16: name, raw_data, double_data, ..., only in TensorProto
 *
 * So we first scan the top-level fields (a well-formed buffer is a list of
 * tag, payload pairs) and score each message:
 *
 *   - a field the message knows, with a wire type it cannot have, rules the
 *     message out (protobuf-c would reject it), and so does a field it does
 *     not know (protobuf-c would skip it: a file of unknown fields would read
 *     as an empty sequence). Only TensorProto tolerates fields from 15 up,
 *     where newer ONNX adds fields (metadata_props = 16 is past the 1.12
 *     proto we build from);
 *   - field 2 must make sense: a dtype id 1..26 for a TensorProto; for a
 *     SequenceProto or OptionalProto an elem_type 1..5 whose values are in
 *     field elem_type + 2 and nowhere else in 3..7; for a MapProto an integer
 *     or string key type, with int keys in 3 or string keys in 4;
 *   - field 1 is a name (text) in the three containers but packed dims
 *     (small varints: control bytes) in a TensorProto.
 *
 * Then we decode the candidates best first, and the first one that converts
 * without error wins. Conversion checks a lot (sizes against shapes, the
 * elements' kinds), so a wrong guess rarely survives it.
 *
 * Two cases cannot be told apart at all, because the bytes are identical:
 * a sequence of one element vs an optional holding it, and an empty sequence
 * vs an absent optional (both are name + elem_type [+ one field k + 2]). For
 * one element we pick the OptionalProto. With no element, ONNX's generators
 * (numpy_helper.from_list, from_optional) write elem_type TENSOR (or the
 * element kind) for an empty sequence and UNDEFINED (0) for an absent
 * optional, so an element type picks the sequence and none the optional.
 * Among the .pb files of ONNX's node tests (1.12 and 1.23) this guesses 6
 * files wrong (sequences of one tensor), 21 right. With the model's declared
 * type there is no guessing. An empty buffer is every
 * message with no fields; it is refused without a declared type.
 * ------------------------------------------------------------------------- */

#define MAXF 17 /* field numbers we track: 1..16 */

typedef struct {
  unsigned count[MAXF]; /* occurrences of each field number */
  unsigned wt[MAXF];    /* bit (1 << wire type) for each wire type seen */
  int unknown;          /* fields numbered 17 and up */
  int has_f2;
  uint64_t f2;          /* field 2 as a varint: data_type, elem_type or key_type */
  int f1_text;          /* field 1 is length-delimited and looks like a name */
} wire_scan;

static int looks_like_text(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] < 0x20 || p[i] == 0x7f) return 0;
  return 1;
}

/* 0 if buf is a well-formed list of fields. */
static int scan(const uint8_t *p, size_t n, wire_scan *s) {
  memset(s, 0, sizeof *s);
  while (n) {
    uint64_t tag, v;
    size_t used = ox_varint_read(p, n, &tag);
    if (!used || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return -1;
    p += used;
    n -= used;
    uint64_t field = tag >> 3;
    unsigned wt = (unsigned)(tag & 7);
    const uint8_t *payload = p;
    size_t plen;
    switch (wt) {
    case WT_VARINT:
      if (!(plen = ox_varint_read(p, n, &v))) return -1;
      if (field == 2) {
        s->has_f2 = 1;
        s->f2 = v;
      }
      break;
    case WT_I64: plen = 8; break;
    case WT_I32: plen = 4; break;
    case WT_LEN:
      if (!(used = ox_varint_read(p, n, &v)) || v > n - used) return -1;
      payload = p + used;
      plen = used + (size_t)v;
      if (field == 1) s->f1_text = looks_like_text(payload, (size_t)v);
      break;
    default: /* groups (3, 4) are not used by ONNX; 6, 7 do not exist */
      return -1;
    }
    if (plen > n) return -1;
    p += plen;
    n -= plen;
    if (field < MAXF) {
      s->count[field]++;
      s->wt[field] |= 1u << wt;
    } else {
      s->unknown++;
    }
  }
  return 0;
}

#define V (1u << WT_VARINT)
#define L (1u << WT_LEN)
#define I32 (1u << WT_I32)
#define I64 (1u << WT_I64)
/* The wire types each message allows per field (0: field unknown to it).
 * Repeated scalars may be packed (LEN) or not. */
static const unsigned allowed[NMSG][MAXF] = {
    [MSG_TENSOR] = {0, V | L, V, L, I32 | L, V | L, L, V | L, L, L, I64 | L, V | L, L, L, V, 0, L},
    [MSG_SEQUENCE] = {0, L, V, L, L, L, L, L},
    [MSG_OPTIONAL] = {0, L, V, L, L, L, L, L},
    [MSG_MAP] = {0, L, V, V | L, L, L},
};
#undef V
#undef L
#undef I32
#undef I64

#define IMPOSSIBLE (-1000)

static int score(int m, const wire_scan *s) {
  int sc = 0;
  for (int f = 1; f < MAXF; f++) {
    if (!s->count[f]) continue;
    if (!allowed[m][f]) {
      if (m == MSG_TENSOR && f >= 15) continue; /* newer than our proto */
      return IMPOSSIBLE;                        /* unknown to m */
    }
    if (s->wt[f] & ~allowed[m][f]) return IMPOSSIBLE; /* protobuf-c would fail */
  }
  if (s->unknown && m != MSG_TENSOR) return IMPOSSIBLE;
  uint64_t k = s->has_f2 ? s->f2 : 0;
  /* the container fields 3..7 in use */
  int data = 0, ndata = 0;
  for (int f = 3; f <= 7; f++)
    if (s->count[f]) data = f, ndata++;
  switch (m) {
  case MSG_TENSOR:
    if (k >= 1 && k <= 26) sc += 4;
    if (s->count[3]) sc -= 2; /* segment: rare, and unsupported */
    if (s->count[1] && !s->f1_text) sc += 1;
    break;
  case MSG_SEQUENCE:
  case MSG_OPTIONAL:
    if (k >= 1 && k <= 5 && (ndata == 0 || (ndata == 1 && data == (int)k + 2))) sc += 4;
    else if (!s->has_f2 && ndata <= 1) sc += 1;
    if (s->count[1] && s->f1_text) sc += 1;
    if (ndata == 1 && s->count[data] > 1) {
      if (m == MSG_OPTIONAL) sc -= 10; /* an optional holds one value */
    } else if (ndata == 0 && k >= 1) {
      if (m == MSG_OPTIONAL) sc -= 1; /* no value, an element type: an empty sequence */
    } else if (m == MSG_SEQUENCE) {
      sc -= 1; /* identical bytes: the optional goes first (see above) */
    }
    break;
  case MSG_MAP:
    if (k == 2 || k == 3 || k == 4 || k == 5 || k == 6 || k == 7 || k == 12 || k == 13) {
      if (!s->count[4]) sc += 4; /* integer keys */
    } else if (k == 8) {
      if (!s->count[3]) sc += 4; /* string keys */
    }
    if (s->count[5] > 1) sc -= 10; /* values is a single SequenceProto */
    if (s->count[1] && s->f1_text) sc += 1;
    break;
  }
  return sc;
}

static int detect_and_decode(ox_arena *a, const uint8_t *buf, size_t len, const char *basedir,
                             ox_value **out, const char **name_out, ox_err *e) {
  wire_scan s;
  if (len == 0)
    return ox_fail(e, OX_EINPUT, "the file is empty; without a declared type it could be an "
                                 "empty sequence, an absent optional or an empty map");
  if (scan(buf, len, &s))
    return ox_fail(e, OX_EINPUT, "not a valid TensorProto, SequenceProto, OptionalProto or "
                                 "MapProto (truncated or corrupt)");
  int order[NMSG], sc[NMSG], n = 0;
  for (int m = 0; m < NMSG; m++) {
    sc[m] = score(m, &s);
    if (sc[m] == IMPOSSIBLE) continue;
    int i = n++; /* insertion sort, best first, stable */
    while (i > 0 && sc[order[i - 1]] < sc[m]) {
      order[i] = order[i - 1];
      i--;
    }
    order[i] = m;
  }
  if (!n)
    return ox_fail(e, OX_EINPUT, "not a valid TensorProto, SequenceProto, OptionalProto or "
                                 "MapProto (its fields fit none of them)");
  /* Try each; keep the first error (the likeliest message's) to report. */
  ox_err first = {0, ""};
  for (int i = 0; i < n; i++) {
    ox_err tmp = {0, ""};
    ox_mark mk = ox_arena_mark(a);
    if (!decode_as(a, order[i], buf, len, basedir, out, name_out, &tmp)) return 0;
    ox_arena_release(a, mk);
    if (i == 0) first = tmp;
  }
  if (n == 1) return ox_fail(e, first.code, "%s", first.msg);
  return ox_fail(e, first.code, "read as %s (the likeliest message): %s",
                 descs[order[0]]->short_name, first.msg);
}

/* ---------------------------------------------------------------------------
 * The public functions
 * ------------------------------------------------------------------------- */

int ox_pb_decode(ox_arena *a, const uint8_t *buf, size_t len, const ox_type *want,
                 const char *basedir, ox_value **out, const char **name_out, ox_err *e) {
  if (name_out) *name_out = NULL;
  ox_value *v = NULL;
  if (!want) return detect_and_decode(a, buf, len, basedir, out, name_out, e);
  int m;
  switch (want->kind) {
  case OX_TENSOR: m = MSG_TENSOR; break;
  case OX_SEQUENCE: m = MSG_SEQUENCE; break;
  case OX_OPTIONAL: m = MSG_OPTIONAL; break;
  case OX_MAP: m = MSG_MAP; break;
  default: return detect_and_decode(a, buf, len, basedir, out, name_out, e);
  }
  OX_TRY(decode_as(a, m, buf, len, basedir, &v, name_out, e));
  /* ONNX's test data up to 1.13 stored bfloat16 tensors as uint16 (numpy has
   * no bfloat16): same bits, so take them as declared. */
  if (want->kind == OX_TENSOR && want->elem == OX_BFLOAT16 && v->u.t.dt == OX_UINT16) {
    v->u.t.dt = OX_BFLOAT16;
    v->type = ox_type_tensor(OX_BFLOAT16);
  }
  /* The value must fit the declared type; parts the file leaves open (the
   * element type of an empty sequence or absent optional) come from it. */
  const ox_type *u = ox_type_unify(a, ox_value_type(a, v), want);
  if (!u) {
    char b1[256], b2[256];
    return ox_fail(e, OX_EINPUT, "the file holds %s but the model declares %s",
                   ox_value_desc(v, b1, sizeof b1), ox_type_str(want, b2, sizeof b2));
  }
  ox_value_refine(a, v, u);
  *out = v;
  return 0;
}

/* protobuf-c's output callback, putting to an ox_out: raw_data comes in one
 * call, straight from the tensor, so nothing is encoded whole in memory when
 * the stream goes to a file. */
typedef struct {
  ProtobufCBuffer base;
  ox_out *out;
} out_sink;

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data) {
  ox_out_put(((out_sink *)b)->out, data, len);
}

int ox_pb_encode(const ox_value *v, const char *name, ox_buf *out, ox_err *e) {
  ox_out o;
  ox_out_buf(&o, out);
  int rc = ox_pb_write(v, name, &o, e);
  ox_out_finish(&o);
  if (rc) out->n = o.base;
  return rc;
}

int ox_pb_write(const ox_value *v, const char *name, ox_out *o, ox_err *e) {
  if (!v) return ox_fail(e, OX_EINPUT, "no value to write");
  ox_arena *a = ox_arena_new();
  if (!a) return ox_oom(e, NULL);
  ProtobufCMessage *msg = NULL;
  int rc;
  switch (v->kind) {
  case OX_TENSOR: {
    Onnx__TensorProto *tp = NULL;
    rc = ox_to_tensor_proto(a, v, name, &tp, e);
    if (!rc) msg = &tp->base;
    break;
  }
  case OX_SEQUENCE: {
    Onnx__SequenceProto *sp = NULL;
    rc = ox_to_sequence_proto(a, v, name, &sp, e);
    if (!rc) msg = &sp->base;
    break;
  }
  case OX_OPTIONAL: {
    Onnx__OptionalProto *op = NULL;
    rc = ox_to_optional_proto(a, v, name, &op, e);
    if (!rc) msg = &op->base;
    break;
  }
  case OX_MAP: {
    Onnx__MapProto *mp = NULL;
    rc = ox_to_map_proto(a, v, name, &mp, e);
    if (!rc) msg = &mp->base;
    break;
  }
  default:
    rc = ox_fail(e, OX_EINPUT, "cannot write a value of unknown kind %d", (int)v->kind);
  }
  if (!rc) {
    out_sink sink = {{sink_append}, o};
    protobuf_c_message_pack_to_buffer(msg, &sink.base);
    if (o->err) rc = o->err == ENOMEM ? ox_oom(e, NULL) : ox_fail(e, OX_EINPUT, "write error: %s", strerror(o->err));
  }
  ox_arena_free(a);
  return rc;
}
