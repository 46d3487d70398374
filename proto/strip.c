/* proto/strip.c: a model's bytes with its large tensor data set aside.
 *
 * protobuf-c copies every bytes field it unpacks, so a model read whole and
 * then unpacked held its weights twice at once (the file's bytes, then
 * protobuf-c's copies), and the tensors decoded from those copies were a
 * third. ox_strip reads the model once, front to back, and writes its bytes
 * again without the raw_data of each TensorProto of OX_STRIP_MIN bytes or
 * more: those bytes go straight from the file into an arena block of their
 * own (64-byte aligned, as every tensor's data is), and a marker field takes
 * their place: field OX_HELD_FIELD, which TensorProto does not define, so
 * protobuf-c keeps it among the message's unknown fields; its payload is the
 * block's index. proto/model.c unpacks the smaller bytes and gives each
 * marked tensor its block as its data (ox_from_tensor_proto_held): the
 * weights are read once and held once.
 *
 * Only the messages that can hold a TensorProto are walked (ModelProto,
 * GraphProto, NodeProto, AttributeProto, FunctionProto, SparseTensorProto
 * and TensorProto itself); every other field is copied as it is. Anything
 * unusual (a malformed varint, a length past the end of its message, a
 * group, a marker field already in a TensorProto, nesting deeper than the
 * model's check allows) answers OX_STRIP_NO: the caller then reads the bytes
 * whole, as it always did, and the wire check and protobuf-c give their
 * usual messages. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "strip.h"

/* The bytes being read: a file (read front to back, never seeked), or memory. */
typedef struct {
  FILE *f;            /* or NULL: */
  const uint8_t *mem; /* the bytes */
  size_t pos, len;    /* read so far; in all (the file's size when it was opened) */
  int cut;            /* the file ended early (it shrank) */
  int io_errno;       /* fread failed: its errno */
} src;

/* A growing output buffer (ox_mem_, so it counts against --max-memory). */
typedef struct {
  uint8_t *p;
  size_t n, cap;
} obuf;

typedef struct {
  ox_arena *a;
  ox_err *e;
  const char *what; /* for messages: "model 'm.onnx'" */
  ox_held *held;    /* ox_mem_ array */
  size_t nheld, cap;
} strip;

enum { NO = -1 }; /* OX_STRIP_NO inside: not an error, just not strippable */

static int src_read(src *s, void *dst, size_t n) {
  if (n > s->len - s->pos) return NO;
  if (s->f) {
    size_t got = fread(dst, 1, n, s->f);
    if (got != n) {
      if (ferror(s->f)) s->io_errno = errno ? errno : EIO;
      else s->cut = 1;
      return NO;
    }
  } else {
    memcpy(dst, s->mem + s->pos, n);
  }
  s->pos += n;
  return 0;
}

static int src_varint(src *s, uint64_t *v) {
  uint64_t x = 0;
  for (int i = 0; i < 10; i++) {
    uint8_t b;
    if (src_read(s, &b, 1)) return NO;
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return 0;
    }
  }
  return NO;
}

/* Room for n more bytes; -2 when memory runs out. */
static int ob_room(obuf *o, size_t n) {
  if (n <= o->cap - o->n) return 0;
  size_t cap = o->cap ? o->cap : 4096;
  while (cap - o->n < n) {
    if (cap > SIZE_MAX / 2) return -2;
    cap *= 2;
  }
  uint8_t *p = ox_mem_realloc(o->p, cap);
  if (!p) return -2;
  o->p = p;
  o->cap = cap;
  return 0;
}

static int ob_put(obuf *o, const void *p, size_t n) {
  if (ob_room(o, n)) return -2;
  if (n) memcpy(o->p + o->n, p, n);
  o->n += n;
  return 0;
}

static int ob_varint(obuf *o, uint64_t v) {
  uint8_t b[10];
  size_t n = 0;
  do {
    b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return ob_put(o, b, n);
}

/* n bytes of the source, as they are, onto o. */
static int ob_copy(obuf *o, src *s, size_t n) {
  if (n > s->len - s->pos) return NO;
  if (ob_room(o, n)) return -2;
  if (src_read(s, o->p + o->n, n)) return NO;
  o->n += n;
  return 0;
}

static void ob_free(obuf *o) {
  ox_mem_free(o->p);
  *o = (obuf){0};
}

/* The messages on the way from a ModelProto to its TensorProtos. */
static int walked(const ProtobufCMessageDescriptor *d) {
  return d == &onnx__model_proto__descriptor || d == &onnx__graph_proto__descriptor ||
         d == &onnx__node_proto__descriptor || d == &onnx__attribute_proto__descriptor ||
         d == &onnx__function_proto__descriptor || d == &onnx__sparse_tensor_proto__descriptor ||
         d == &onnx__tensor_proto__descriptor;
}

/* raw_data's n bytes into a block of their own, and the marker onto o. */
static int set_aside(strip *st, src *s, size_t n, obuf *o) {
  if (st->nheld == st->cap) {
    size_t cap = st->cap ? 2 * st->cap : 64;
    ox_held *h = ox_mem_realloc(st->held, cap * sizeof *h);
    if (!h) return ox_oom(st->e, "reading %s", st->what);
    st->held = h;
    st->cap = cap;
  }
  uint8_t *blk = ox_alloc_uninit(st->a, n);
  if (!blk) return ox_oom(st->e, "reading %s (a tensor of %zu bytes)", st->what, n);
  if (src_read(s, blk, n)) return NO;
  st->held[st->nheld] = (ox_held){blk, n, 0};
  /* the marker: its payload is the index, as a varint */
  uint8_t idx[10];
  size_t k = 0;
  for (uint64_t v = st->nheld;; v >>= 7) {
    idx[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    if (v <= 0x7f) break;
  }
  st->nheld++;
  if (ob_varint(o, ((uint64_t)OX_HELD_FIELD << 3) | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) ||
      ob_varint(o, k) || ob_put(o, idx, k))
    return -2;
  return 0;
}

/* The message of desc in the next len bytes of s, stripped, onto o. 0, NO,
 * -2 (out of memory, not yet in e) or an error code (in e). */
static int walk(strip *st, src *s, const ProtobufCMessageDescriptor *desc, size_t len, int left,
                obuf *o) {
  if (len > s->len - s->pos) return NO;
  size_t end = s->pos + len;
  int tensor = desc == &onnx__tensor_proto__descriptor;
  while (s->pos < end) {
    uint64_t key, n;
    if (src_varint(s, &key) || s->pos > end) return NO;
    uint64_t field = key >> 3;
    if (tensor && field == OX_HELD_FIELD) return NO;
    int rc;
    switch (key & 7) {
    case PROTOBUF_C_WIRE_TYPE_VARINT:
      if (src_varint(s, &n) || s->pos > end) return NO;
      if (ob_varint(o, key) || ob_varint(o, n)) return -2;
      break;
    case PROTOBUF_C_WIRE_TYPE_64BIT:
    case PROTOBUF_C_WIRE_TYPE_32BIT: {
      size_t w = (key & 7) == PROTOBUF_C_WIRE_TYPE_64BIT ? 8 : 4;
      if (w > end - s->pos) return NO;
      if (ob_varint(o, key)) return -2;
      if ((rc = ob_copy(o, s, w))) return rc;
      break;
    }
    case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED: {
      if (src_varint(s, &n) || s->pos > end || n > end - s->pos) return NO;
      const ProtobufCFieldDescriptor *f = NULL;
      if (field <= UINT32_MAX) f = protobuf_c_message_descriptor_get_field(desc, (unsigned)field);
      if (tensor && f && f->id == 9 && n >= OX_STRIP_MIN) { /* raw_data */
        if ((rc = set_aside(st, s, (size_t)n, o))) return rc;
      } else if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && walked(f->descriptor)) {
        if (left == 0) return NO;
        obuf child = {0};
        rc = walk(st, s, f->descriptor, (size_t)n, left - 1, &child);
        if (!rc && (ob_varint(o, key) || ob_varint(o, child.n) || ob_put(o, child.p, child.n))) rc = -2;
        ob_free(&child);
        if (rc) return rc;
      } else {
        if (ob_varint(o, key) || ob_varint(o, n)) return -2;
        if ((rc = ob_copy(o, s, (size_t)n))) return rc;
      }
      break;
    }
    default: /* groups */
      return NO;
    }
  }
  return s->pos == end ? 0 : NO;
}

static int run(src *s, ox_arena *a, const char *what, int left, ox_stripped *out, ox_err *e) {
  strip st = {a, e, what, NULL, 0, 0};
  obuf o = {0};
  int rc = walk(&st, s, &onnx__model_proto__descriptor, s->len, left, &o);
  if (rc == -2) rc = ox_oom(e, "reading %s", what);
  if (rc == NO && s->io_errno) rc = ox_fail(e, OX_EINPUT, "cannot read %s: %s", what, strerror(s->io_errno));
  if (rc == NO && s->cut) rc = ox_fail(e, OX_EINPUT, "cannot read %s: it changed size while being read", what);
  if (rc) {
    ob_free(&o);
    ox_mem_free(st.held);
    return rc == NO ? OX_STRIP_NO : rc;
  }
  *out = (ox_stripped){o.p, o.n, st.held, st.nheld};
  return 0;
}

int ox_strip_file(ox_arena *a, FILE *f, size_t size, const char *what, int left, ox_stripped *out,
                  ox_err *e) {
  src s = {f, NULL, 0, size, 0, 0};
  OX_TRY(run(&s, a, what, left, out, e));
  if (getc(f) != EOF) { /* the file grew while it was read */
    ox_stripped_free(out);
    return ox_fail(e, OX_EINPUT, "cannot read %s: it changed size while being read", what);
  }
  return 0;
}

int ox_strip_mem(ox_arena *a, const uint8_t *buf, size_t len, const char *what, int left,
                 ox_stripped *out, ox_err *e) {
  src s = {NULL, buf, 0, len, 0, 0};
  return run(&s, a, what, left, out, e);
}

void ox_stripped_free(ox_stripped *s) {
  ox_mem_free(s->wire);
  ox_mem_free(s->held);
  *s = (ox_stripped){0};
}
