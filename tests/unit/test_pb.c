/* tests/unit/test_pb.c: .pb round trips for every dtype and value kind,
 * typed-field decoding, external data and malformed input. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"
#include "proto/proto.h"
#include "check.h"

static ox_arena *A;
static int quiet; /* set around calls expected to fail */

/* ---- helpers ---- */

static int value_eq(const ox_value *x, const ox_value *y) {
  if (!x || !y) return x == y;
  if (x->kind != y->kind) return 0;
  switch (x->kind) {
  case OX_TENSOR: {
    const ox_tensor *a = &x->u.t, *b = &y->u.t;
    if (a->dt != b->dt || a->rank != b->rank || a->n != b->n) return 0;
    for (int i = 0; i < a->rank; i++)
      if (a->dims[i] != b->dims[i]) return 0;
    if (a->dt == OX_STRING) {
      const ox_str *s = a->data, *t = b->data;
      for (int64_t i = 0; i < a->n; i++)
        if (s[i].n != t[i].n || memcmp(s[i].p, t[i].p, (size_t)s[i].n)) return 0;
      return 1;
    }
    return a->n == 0 || !memcmp(a->data, b->data, (size_t)a->n * ox_dtype_size(a->dt));
  }
  case OX_SEQUENCE:
    if (!ox_type_eq(x->type, y->type) || x->u.seq.n != y->u.seq.n) return 0;
    for (int64_t i = 0; i < x->u.seq.n; i++)
      if (!value_eq(x->u.seq.v[i], y->u.seq.v[i])) return 0;
    return 1;
  case OX_OPTIONAL:
    return ox_type_eq(x->type, y->type) && value_eq(x->u.opt, y->u.opt);
  case OX_MAP:
    return ox_type_eq(x->type, y->type) && value_eq(x->u.map.keys, y->u.map.keys) &&
           value_eq(x->u.map.values, y->u.map.values);
  default:
    return 0;
  }
}

static const char *tstr(const ox_type *t) {
  static char b[4][256];
  static int i;
  i = (i + 1) % 4;
  return ox_type_str(t, b[i], sizeof b[i]);
}

static const char *vdesc(const ox_value *v) {
  static char b[256];
  return ox_value_desc(v, b, sizeof b);
}

/* A tensor filled with a pattern that is valid for its dtype. */
static ox_value *make_tensor(ox_dtype dt, int rank, const int64_t *dims, unsigned seed) {
  ox_value *v = NULL;
  ox_err e = {0};
  if (ox_tensor_new(A, dt, rank, dims, &v, &e)) {
    fprintf(stderr, "make_tensor: %s\n", e.msg);
    exit(2);
  }
  ox_tensor *t = &v->u.t;
  uint8_t *b = t->data;
  for (int64_t i = 0; i < t->n; i++) {
    unsigned r = (unsigned)i * 37u + seed * 11u + 5u;
    switch (dt) {
    case OX_STRING: {
      /* lengths 0..4, with NUL bytes inside */
      size_t len = (size_t)((i + seed) % 5);
      char *p = ox_alloc(A, len + 1);
      for (size_t k = 0; k < len; k++) p[k] = (char)(k == 1 ? 0 : 'a' + (r + k) % 26);
      ((ox_str *)t->data)[i] = (ox_str){p, (int64_t)len};
      break;
    }
    case OX_BOOL: b[i] = r & 1; break;
    case OX_UINT4: case OX_FLOAT4E2M1: b[i] = r & 15; break;
    case OX_INT4: ((int8_t *)b)[i] = (int8_t)((int)(r % 16) - 8); break;
    case OX_UINT2: b[i] = r & 3; break;
    case OX_INT2: ((int8_t *)b)[i] = (int8_t)((int)(r % 4) - 2); break;
    default:
      for (size_t k = 0; k < ox_dtype_size(dt); k++)
        b[(size_t)i * ox_dtype_size(dt) + k] = (uint8_t)(r * 7u + k * 13u);
    }
  }
  return v;
}

static ox_value *make_f32(int64_t n, float base) {
  ox_value *v = make_tensor(OX_FLOAT, 1, &n, 0);
  for (int64_t i = 0; i < n; i++) ((float *)v->u.t.data)[i] = base + (float)i;
  return v;
}

/* encode v, decode with `want`; returns the decoded value or NULL */
static ox_value *round_trip(const ox_value *v, const char *name, const ox_type *want,
                            const char **name_out) {
  ox_buf b = {0};
  ox_err e = {0};
  ox_value *out = NULL;
  if (ox_pb_encode(v, name, &b, &e)) {
    if (!quiet) fprintf(stderr, "encode %s: %s\n", vdesc(v), e.msg);
    return NULL;
  }
  if (ox_pb_decode(A, b.p, b.n, want, NULL, &out, name_out, &e)) {
    if (!quiet) fprintf(stderr, "decode %s (want %s): %s\n", vdesc(v), tstr(want), e.msg);
    out = NULL;
  }
  ox_buf_free(&b);
  return out;
}

/* pack a protobuf-c message into a malloc'd buffer */
static uint8_t *pack(const ProtobufCMessage *m, size_t *len) {
  *len = protobuf_c_message_get_packed_size(m);
  uint8_t *p = malloc(*len ? *len : 1);
  protobuf_c_message_pack(m, p);
  return p;
}

/* decode a hand-built TensorProto; returns the error code, message in e */
static int decode_tp(const Onnx__TensorProto *tp, const ox_type *want, const char *basedir,
                     ox_value **out, ox_err *e) {
  size_t len;
  uint8_t *p = pack(&tp->base, &len);
  ox_err_clear(e);
  int rc = ox_pb_decode(A, p, len, want, basedir, out, NULL, e);
  free(p);
  return rc;
}

/* ---- tests ---- */

static void test_dtypes(void) {
  /* shapes: (2, 3), odd lengths for the packed types, a scalar, empty */
  const int64_t d23[] = {2, 3}, d5[] = {5}, d7[] = {7}, d03[] = {0, 3}, d1[] = {1};
  struct { int rank; const int64_t *dims; } shapes[] = {
      {2, d23}, {1, d5}, {1, d7}, {0, NULL}, {2, d03}, {1, d1}};
  for (int dt = 1; dt < OX_DTYPE_MAX; dt++) {
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
      ox_value *v = make_tensor((ox_dtype)dt, shapes[s].rank, shapes[s].dims, (unsigned)dt);
      const char *nm = NULL;
      ox_value *r = round_trip(v, "x", ox_type_tensor((ox_dtype)dt), &nm);
      if (!value_eq(v, r)) fprintf(stderr, "  dtype %s shape %zu\n", ox_dtype_name((ox_dtype)dt), s);
      CHECK(value_eq(v, r));
      CHECK_EQ_S(nm, "x");
      /* without a declared type, detection must find the TensorProto */
      r = round_trip(v, NULL, NULL, &nm);
      if (!value_eq(v, r)) fprintf(stderr, "  detect dtype %s shape %zu\n", ox_dtype_name((ox_dtype)dt), s);
      CHECK(value_eq(v, r));
      CHECK(nm == NULL);
    }
  }
}

/* the exact packed layout: low nibble / lowest bits first */
static void test_packing(void) {
  int64_t n3 = 3, n5 = 5;
  ox_value *v = make_tensor(OX_INT4, 1, &n3, 0);
  int8_t *d = v->u.t.data;
  d[0] = 1, d[1] = -1, d[2] = 7;
  Onnx__TensorProto *tp;
  ox_err e = {0};
  CHECK(!ox_to_tensor_proto(A, v, NULL, &tp, &e));
  CHECK_EQ_I(tp->raw_data.len, 2);
  CHECK_EQ_I(tp->raw_data.data[0], 0xF1);
  CHECK_EQ_I(tp->raw_data.data[1], 0x07);

  v = make_tensor(OX_INT2, 1, &n5, 0);
  d = v->u.t.data;
  d[0] = 1, d[1] = -2, d[2] = -1, d[3] = 0, d[4] = -1;
  CHECK(!ox_to_tensor_proto(A, v, NULL, &tp, &e));
  CHECK_EQ_I(tp->raw_data.len, 2);
  CHECK_EQ_I(tp->raw_data.data[0], 0x01 | 0x2 << 2 | 0x3 << 4 | 0x0 << 6);
  CHECK_EQ_I(tp->raw_data.data[1], 0x03);

  /* decoding sign-extends */
  uint8_t raw[] = {0x8F, 0x07};
  Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
  t.has_data_type = 1;
  t.data_type = OX_INT4;
  t.n_dims = 1;
  t.dims = &n3;
  t.has_raw_data = 1;
  t.raw_data = (ProtobufCBinaryData){2, raw};
  ox_value *r = NULL;
  CHECK(!decode_tp(&t, NULL, NULL, &r, &e));
  CHECK(r && r->u.t.dt == OX_INT4);
  if (r) {
    d = r->u.t.data;
    CHECK_EQ_I(d[0], -1);
    CHECK_EQ_I(d[1], -8);
    CHECK_EQ_I(d[2], 7);
  }
  t.data_type = OX_UINT4;
  CHECK(!decode_tp(&t, NULL, NULL, &r, &e));
  if (r) CHECK_EQ_I(((uint8_t *)r->u.t.data)[0], 15);
}

static void test_typed_fields(void) {
  ox_err e = {0};
  ox_value *r = NULL;
  int64_t d23[] = {2, 3}, d2[] = {2}, d3[] = {3};

  /* float_data */
  float f[6] = {1, 2, 3, 4, 5, 6.5f};
  Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
  t.has_data_type = 1, t.data_type = OX_FLOAT, t.n_dims = 2, t.dims = d23;
  t.n_float_data = 6, t.float_data = f;
  CHECK(!decode_tp(&t, NULL, NULL, &r, &e));
  CHECK(r && r->u.t.dt == OX_FLOAT && r->u.t.n == 6 && ((float *)r->u.t.data)[5] == 6.5f);
  CHECK(!decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));

  /* complex64 as (re, im) pairs in float_data */
  t.data_type = OX_COMPLEX64, t.n_dims = 1, t.dims = d3;
  CHECK(!decode_tp(&t, NULL, NULL, &r, &e));
  CHECK(r && r->u.t.n == 3 && ((ox_c64 *)r->u.t.data)[2].re == 5 &&
        ((ox_c64 *)r->u.t.data)[2].im == 6.5f);
  t.n_float_data = 5;
  CHECK(decode_tp(&t, NULL, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "float_data has 5 values; shape (3,) of complex64 needs 6 (real and imaginary parts)");

  /* float16 and bfloat16 bit patterns in int32_data */
  int32_t h[2] = {0x3C00, 0xC000}; /* 1.0, -2.0 */
  Onnx__TensorProto t2 = ONNX__TENSOR_PROTO__INIT;
  t2.has_data_type = 1, t2.data_type = OX_FLOAT16, t2.n_dims = 1, t2.dims = d2;
  t2.n_int32_data = 2, t2.int32_data = h;
  CHECK(!decode_tp(&t2, NULL, NULL, &r, &e));
  CHECK(r && r->u.t.dt == OX_FLOAT16 && ((uint16_t *)r->u.t.data)[0] == 0x3C00 &&
        ((uint16_t *)r->u.t.data)[1] == 0xC000);
  t2.data_type = OX_BFLOAT16;
  CHECK(!decode_tp(&t2, ox_type_tensor(OX_BFLOAT16), NULL, &r, &e));
  CHECK(r && ((uint16_t *)r->u.t.data)[1] == 0xC000);

  /* int8 (negative values), bool, float8 */
  int32_t i8[2] = {-3, 127};
  t2.data_type = OX_INT8, t2.int32_data = i8;
  CHECK(!decode_tp(&t2, NULL, NULL, &r, &e));
  CHECK(r && ((int8_t *)r->u.t.data)[0] == -3 && ((int8_t *)r->u.t.data)[1] == 127);
  int32_t bo[2] = {0, 1};
  t2.data_type = OX_BOOL, t2.int32_data = bo;
  CHECK(!decode_tp(&t2, NULL, NULL, &r, &e));
  CHECK(r && ((uint8_t *)r->u.t.data)[0] == 0 && ((uint8_t *)r->u.t.data)[1] == 1);
  int32_t f8[2] = {0x38, 0xFF};
  t2.data_type = OX_FLOAT8E4M3FN, t2.int32_data = f8;
  CHECK(!decode_tp(&t2, NULL, NULL, &r, &e));
  CHECK(r && ((uint8_t *)r->u.t.data)[0] == 0x38 && ((uint8_t *)r->u.t.data)[1] == 0xFF);

  /* int4 in int32_data: one packed byte (two values) per entry, as onnx's
   * helper.make_tensor writes it; 3 values need 2 entries */
  int32_t i4[2] = {0x9F, 0x05}; /* -1, -7, 5 */
  t2.data_type = OX_INT4, t2.dims = d3, t2.int32_data = i4;
  CHECK(!decode_tp(&t2, NULL, NULL, &r, &e));
  CHECK(r && r->u.t.n == 3 && ((int8_t *)r->u.t.data)[0] == -1 &&
        ((int8_t *)r->u.t.data)[1] == -7 && ((int8_t *)r->u.t.data)[2] == 5);
  t2.n_int32_data = 1;
  CHECK(decode_tp(&t2, NULL, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "int32_data has 1 values; shape (3,) of int4 needs 2 (one packed byte per value)");
  /* uint2: four per entry */
  int32_t u2[1] = {0x39}; /* 1, 2, 3 */
  t2.data_type = OX_UINT2, t2.n_int32_data = 1, t2.int32_data = u2;
  CHECK(!decode_tp(&t2, NULL, NULL, &r, &e));
  CHECK(r && ((uint8_t *)r->u.t.data)[0] == 1 && ((uint8_t *)r->u.t.data)[1] == 2 &&
        ((uint8_t *)r->u.t.data)[2] == 3);

  /* int64_data, uint64_data (uint32 and uint64), double_data (complex128) */
  int64_t i64[2] = {-5, INT64_MAX};
  Onnx__TensorProto t3 = ONNX__TENSOR_PROTO__INIT;
  t3.has_data_type = 1, t3.data_type = OX_INT64, t3.n_dims = 1, t3.dims = d2;
  t3.n_int64_data = 2, t3.int64_data = i64;
  CHECK(!decode_tp(&t3, NULL, NULL, &r, &e));
  CHECK(r && ((int64_t *)r->u.t.data)[1] == INT64_MAX);
  uint64_t u64[2] = {UINT64_MAX, 7};
  Onnx__TensorProto t4 = ONNX__TENSOR_PROTO__INIT;
  t4.has_data_type = 1, t4.data_type = OX_UINT64, t4.n_dims = 1, t4.dims = d2;
  t4.n_uint64_data = 2, t4.uint64_data = u64;
  CHECK(!decode_tp(&t4, NULL, NULL, &r, &e));
  CHECK(r && ((uint64_t *)r->u.t.data)[0] == UINT64_MAX);
  u64[0] = 4000000000u;
  t4.data_type = OX_UINT32;
  CHECK(!decode_tp(&t4, NULL, NULL, &r, &e));
  CHECK(r && ((uint32_t *)r->u.t.data)[0] == 4000000000u);
  double cd[4] = {1, -1, 2.5, 3};
  Onnx__TensorProto t5 = ONNX__TENSOR_PROTO__INIT;
  t5.has_data_type = 1, t5.data_type = OX_COMPLEX128, t5.n_dims = 1, t5.dims = d2;
  t5.n_double_data = 4, t5.double_data = cd;
  CHECK(!decode_tp(&t5, NULL, NULL, &r, &e));
  CHECK(r && ((ox_c128 *)r->u.t.data)[1].re == 2.5 && ((ox_c128 *)r->u.t.data)[1].im == 3);

  /* string_data with a NUL inside */
  ProtobufCBinaryData sd[2] = {{3, (uint8_t *)"a\0b"}, {0, NULL}};
  Onnx__TensorProto t6 = ONNX__TENSOR_PROTO__INIT;
  t6.has_data_type = 1, t6.data_type = OX_STRING, t6.n_dims = 1, t6.dims = d2;
  t6.n_string_data = 2, t6.string_data = sd;
  CHECK(!decode_tp(&t6, NULL, NULL, &r, &e));
  CHECK(r && ((ox_str *)r->u.t.data)[0].n == 3 && !memcmp(((ox_str *)r->u.t.data)[0].p, "a\0b", 3) &&
        ((ox_str *)r->u.t.data)[1].n == 0);

  /* a field that does not belong to the dtype */
  t3.data_type = OX_FLOAT;
  CHECK(decode_tp(&t3, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "int64_data cannot hold float32 values (they go in float_data or raw_data)");
  /* two data fields */
  t.data_type = OX_FLOAT, t.n_dims = 2, t.dims = d23, t.n_float_data = 6;
  uint8_t raw[24] = {0};
  t.has_raw_data = 1, t.raw_data = (ProtobufCBinaryData){24, raw};
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "tensor has data in both raw_data and float_data");
  /* no data at all */
  Onnx__TensorProto t7 = ONNX__TENSOR_PROTO__INIT;
  t7.has_data_type = 1, t7.data_type = OX_FLOAT, t7.n_dims = 2, t7.dims = d23;
  CHECK(decode_tp(&t7, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "tensor holds no data; shape (2, 3) of float32 needs 6 values");
}

static void test_sequences(void) {
  const ox_type *tf = ox_type_tensor(OX_FLOAT);
  const ox_type *sf = ox_type_seq(A, tf);
  ox_err e = {0};

  /* tensors of different shapes */
  ox_value *s;
  CHECK(!ox_seq_new(A, tf, 3, &s, &e));
  s->u.seq.v[0] = make_f32(2, 1);
  s->u.seq.v[1] = make_f32(0, 0);
  s->u.seq.v[2] = make_f32(5, -3);
  const char *nm;
  CHECK(value_eq(s, round_trip(s, "seq", sf, &nm)));
  CHECK_EQ_S(nm, "seq");
  CHECK(value_eq(s, round_trip(s, NULL, NULL, NULL)));

  /* one element: with a declared type there is nothing to guess */
  ox_value *one;
  CHECK(!ox_seq_new(A, tf, 1, &one, &e));
  one->u.seq.v[0] = make_f32(3, 0);
  CHECK(value_eq(one, round_trip(one, NULL, sf, NULL)));

  /* empty: the file says only "tensors"; the dtype comes from want */
  ox_value *empty;
  const ox_type *si = ox_type_seq(A, ox_type_tensor(OX_INT64));
  CHECK(!ox_seq_new(A, ox_type_tensor(OX_INT64), 0, &empty, &e));
  ox_value *r = round_trip(empty, NULL, si, NULL);
  CHECK(value_eq(empty, r));
  CHECK(r && ox_value_fits(r, si));
  CHECK_EQ_S(r ? vdesc(r) : "", "seq(tensor(int64))");

  /* sequences of sequences, one of them empty: it takes its sibling's type */
  ox_value *ss, *inner_empty;
  CHECK(!ox_seq_new(A, sf, 3, &ss, &e));
  CHECK(!ox_seq_new(A, tf, 0, &inner_empty, &e));
  ss->u.seq.v[0] = s;
  ss->u.seq.v[1] = inner_empty;
  ss->u.seq.v[2] = one;
  r = round_trip(ss, NULL, NULL, NULL);
  CHECK(value_eq(ss, r));
  CHECK_EQ_S(r ? vdesc(r) : "", "seq(seq(tensor(float)))");
  CHECK(r && ox_type_eq(r->u.seq.v[1]->type, sf));
  CHECK(value_eq(ss, round_trip(ss, NULL, ox_type_seq(A, sf), NULL)));

  /* the declared type must fit */
  quiet = 1;
  CHECK(!round_trip(s, NULL, si, NULL));
  quiet = 0;
  ox_buf b = {0};
  CHECK(!ox_pb_encode(s, NULL, &b, &e));
  CHECK(ox_pb_decode(A, b.p, b.n, si, NULL, &r, NULL, &e));
  CHECK_EQ_S(e.msg, "the file holds seq(tensor(float)) but the model declares seq(tensor(int64))");
  ox_buf_free(&b);

  /* elements of different dtypes are refused */
  Onnx__TensorProto *t0, *t1;
  ox_value *iv = make_tensor(OX_INT64, 0, NULL, 1);
  CHECK(!ox_to_tensor_proto(A, s->u.seq.v[0], NULL, &t0, &e));
  CHECK(!ox_to_tensor_proto(A, iv, NULL, &t1, &e));
  Onnx__TensorProto *tv[2] = {t0, t1};
  Onnx__SequenceProto sp = ONNX__SEQUENCE_PROTO__INIT;
  sp.has_elem_type = 1, sp.elem_type = 1, sp.n_tensor_values = 2, sp.tensor_values = tv;
  ox_err_clear(&e);
  CHECK(ox_from_sequence_proto(A, &sp, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "sequence element 1 is tensor(int64) but the ones before it are tensor(float)");
  /* elem_type disagreeing with the field holding the values */
  sp.elem_type = 3;
  ox_err_clear(&e);
  CHECK(ox_from_sequence_proto(A, &sp, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "SequenceProto has elem_type SEQUENCE but holds TENSOR values");
  /* an element's error says which element */
  int64_t bad = -1;
  t1->n_dims = 1, t1->dims = &bad;
  sp.elem_type = 1;
  ox_err_clear(&e);
  CHECK(ox_from_sequence_proto(A, &sp, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "sequence element 1: negative dimension -1 in shape (-1,)");
}

static void test_optionals(void) {
  ox_err e = {0};
  const ox_type *tf = ox_type_tensor(OX_FLOAT);
  const ox_type *of = ox_type_opt(A, tf);

  ox_value *o;
  CHECK(!ox_opt_new(A, tf, make_f32(4, 2), &o, &e));
  const char *nm;
  CHECK(value_eq(o, round_trip(o, "opt", of, &nm)));
  CHECK_EQ_S(nm, "opt");
  CHECK(value_eq(o, round_trip(o, NULL, NULL, NULL)));

  /* holding a sequence */
  const ox_type *sf = ox_type_seq(A, tf);
  ox_value *s;
  CHECK(!ox_seq_new(A, tf, 2, &s, &e));
  s->u.seq.v[0] = make_f32(1, 0);
  s->u.seq.v[1] = make_f32(2, 0);
  CHECK(!ox_opt_new(A, sf, s, &o, &e));
  CHECK(value_eq(o, round_trip(o, NULL, ox_type_opt(A, sf), NULL)));

  /* absent: the element type comes from want */
  ox_value *none;
  CHECK(!ox_opt_new(A, tf, NULL, &none, &e));
  ox_value *r = round_trip(none, NULL, of, NULL);
  CHECK(value_eq(none, r));
  CHECK(r && r->u.opt == NULL && ox_value_fits(r, of));
  /* absent optional of a sequence: elem_type UNDEFINED, as onnx writes it
   * (elem_type SEQUENCE and nothing else is an empty sequence) */
  CHECK(!ox_opt_new(A, sf, NULL, &none, &e));
  Onnx__OptionalProto *op;
  CHECK(!ox_to_optional_proto(A, none, NULL, &op, &e));
  CHECK_EQ_I(op->elem_type, 0);
  CHECK(op->has_elem_type);
  r = round_trip(none, NULL, ox_type_opt(A, sf), NULL);
  CHECK(value_eq(none, r));
  /* without want the file cannot tell what it would hold: left open */
  r = round_trip(none, NULL, NULL, NULL);
  CHECK(r && r->kind == OX_OPTIONAL && !r->u.opt);
  CHECK_EQ_S(r ? vdesc(r) : "", "optional(tensor(?))");
  /* an empty sequence is not taken for an absent optional */
  ox_value *es;
  CHECK(!ox_seq_new(A, tf, 0, &es, &e));
  r = round_trip(es, NULL, NULL, NULL);
  CHECK(r && r->kind == OX_SEQUENCE && r->u.seq.n == 0);
  /* an absent optional fits any declared optional type: its file says
   * nothing of the element */
  r = round_trip(none, NULL, ox_type_opt(A, tf), NULL);
  CHECK(r && ox_value_fits(r, ox_type_opt(A, tf)));
}

static void test_maps(void) {
  ox_err e = {0};
  int64_t n3 = 3;
  const ox_type *tf = ox_type_tensor(OX_FLOAT);

  /* int64 keys -> float tensors */
  ox_value *keys = make_tensor(OX_INT64, 1, &n3, 0), *vals;
  int64_t *k = keys->u.t.data;
  k[0] = -1, k[1] = 0, k[2] = INT64_MAX;
  CHECK(!ox_seq_new(A, tf, 3, &vals, &e));
  for (int i = 0; i < 3; i++) vals->u.seq.v[i] = make_f32(i + 1, (float)i);
  ox_value m = {OX_MAP, ox_type_map(A, OX_INT64, tf), {.map = {keys, vals}}};
  const char *nm;
  CHECK(value_eq(&m, round_trip(&m, "m", m.type, &nm)));
  CHECK_EQ_S(nm, "m");
  CHECK(value_eq(&m, round_trip(&m, NULL, NULL, NULL)));

  /* string keys (one with a NUL) -> sequences */
  ox_value *sk = make_tensor(OX_STRING, 1, &n3, 1), *sv;
  const ox_type *sf = ox_type_seq(A, tf);
  CHECK(!ox_seq_new(A, sf, 3, &sv, &e));
  for (int i = 0; i < 3; i++) {
    CHECK(!ox_seq_new(A, tf, i, &sv->u.seq.v[i], &e));
    for (int j = 0; j < i; j++) sv->u.seq.v[i]->u.seq.v[j] = make_f32(j, 1);
  }
  ox_value m2 = {OX_MAP, ox_type_map(A, OX_STRING, sf), {.map = {sk, sv}}};
  CHECK(value_eq(&m2, round_trip(&m2, NULL, m2.type, NULL)));
  CHECK(value_eq(&m2, round_trip(&m2, NULL, NULL, NULL)));

  /* narrow keys are range-checked */
  ox_value *k8 = make_tensor(OX_INT8, 1, &n3, 0);
  ox_value m3 = {OX_MAP, ox_type_map(A, OX_INT8, tf), {.map = {k8, vals}}};
  CHECK(value_eq(&m3, round_trip(&m3, NULL, m3.type, NULL)));
  Onnx__MapProto *mp;
  CHECK(!ox_to_map_proto(A, &m3, NULL, &mp, &e));
  mp->keys[1] = 200;
  ox_value *r;
  CHECK(ox_from_map_proto(A, mp, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "map key 200 does not fit int8");
  /* as many keys as values */
  ox_err_clear(&e);
  mp->keys[1] = 1;
  mp->n_keys = 2;
  CHECK(ox_from_map_proto(A, mp, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "MapProto has 2 keys but 3 values");
  /* map type mismatch */
  quiet = 1;
  CHECK(!round_trip(&m, NULL, ox_type_map(A, OX_STRING, tf), NULL));
  quiet = 0;
}

static void test_type_proto(void) {
  /* seq(map(string, tensor(double))) */
  Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
  tt.has_elem_type = 1, tt.elem_type = OX_DOUBLE;
  Onnx__TypeProto t_tensor = ONNX__TYPE_PROTO__INIT;
  t_tensor.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t_tensor.tensor_type = &tt;
  Onnx__TypeProto__Map mt = ONNX__TYPE_PROTO__MAP__INIT;
  mt.has_key_type = 1, mt.key_type = OX_STRING, mt.value_type = &t_tensor;
  Onnx__TypeProto t_map = ONNX__TYPE_PROTO__INIT;
  t_map.value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE, t_map.map_type = &mt;
  Onnx__TypeProto__Sequence st = ONNX__TYPE_PROTO__SEQUENCE__INIT;
  st.elem_type = &t_map;
  Onnx__TypeProto t_seq = ONNX__TYPE_PROTO__INIT;
  t_seq.value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE, t_seq.sequence_type = &st;
  CHECK_EQ_S(tstr(ox_from_type_proto(A, &t_seq)), "seq(map(string, tensor(double)))");
  Onnx__TypeProto__Optional ot = ONNX__TYPE_PROTO__OPTIONAL__INIT;
  ot.elem_type = &t_tensor;
  Onnx__TypeProto t_opt = ONNX__TYPE_PROTO__INIT;
  t_opt.value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE, t_opt.optional_type = &ot;
  CHECK_EQ_S(tstr(ox_from_type_proto(A, &t_opt)), "optional(tensor(double))");
  /* absent, unknown dtype, float map keys: no type */
  Onnx__TypeProto t_none = ONNX__TYPE_PROTO__INIT;
  CHECK(ox_from_type_proto(A, &t_none) == NULL);
  CHECK(ox_from_type_proto(A, NULL) == NULL);
  tt.elem_type = 99;
  CHECK(ox_from_type_proto(A, &t_tensor) == NULL);
  tt.elem_type = OX_FLOAT;
  mt.key_type = OX_FLOAT;
  CHECK(ox_from_type_proto(A, &t_map) == NULL);
}

static const ox_type *of_float(void) { return ox_type_opt(A, ox_type_tensor(OX_FLOAT)); }

static void test_errors(void) {
  ox_err e = {0};
  ox_value *r;
  int64_t d23[] = {2, 3};
  uint8_t raw[32] = {0};

  /* every prefix of an encoded tensor: an error or a valid value, never a crash */
  ox_value *v = make_tensor(OX_FLOAT, 2, d23, 3);
  ox_buf b = {0};
  CHECK(!ox_pb_encode(v, "some_name", &b, &e));
  int ok = 1;
  for (size_t n = 0; n < b.n; n++) {
    ox_err_clear(&e);
    int rc = ox_pb_decode(A, b.p, n, ox_type_tensor(OX_FLOAT), NULL, &r, NULL, &e);
    if (rc && !e.msg[0]) ok = 0;
    if (!rc && !(r && r->kind == OX_TENSOR)) ok = 0;
    ox_err_clear(&e);
    rc = ox_pb_decode(A, b.p, n, NULL, NULL, &r, NULL, &e);
    if (rc && !e.msg[0]) ok = 0;
  }
  CHECK(ok);
  ox_err_clear(&e);
  CHECK(ox_pb_decode(A, b.p, b.n - 3, ox_type_tensor(OX_FLOAT), NULL, &r, NULL, &e));
  CHECK_EQ_S(e.msg, "not a valid TensorProto (truncated or corrupt)");
  ox_err_clear(&e);
  CHECK(ox_pb_decode(A, b.p, b.n - 3, NULL, NULL, &r, NULL, &e));
  CHECK(strstr(e.msg, "truncated or corrupt") != NULL);
  ox_buf_free(&b);
  /* same for a sequence of sequences */
  ox_value *s, *s2;
  CHECK(!ox_seq_new(A, ox_type_tensor(OX_FLOAT), 2, &s, &e));
  s->u.seq.v[0] = make_f32(3, 1);
  s->u.seq.v[1] = make_f32(1, 1);
  CHECK(!ox_seq_new(A, s->type, 1, &s2, &e));
  s2->u.seq.v[0] = s;
  CHECK(!ox_pb_encode(s2, "s", &b, &e));
  for (size_t n = 0; n < b.n; n++) {
    ox_err_clear(&e);
    ox_pb_decode(A, b.p, n, NULL, NULL, &r, NULL, &e);
    ox_err_clear(&e);
    ox_pb_decode(A, b.p, n, s2->type, NULL, &r, NULL, &e);
  }
  ox_buf_free(&b);
  /* garbage */
  uint8_t junk[] = {0xFF, 0xFF, 0xFF, 0x07, 0x00};
  ox_err_clear(&e);
  CHECK(ox_pb_decode(A, junk, sizeof junk, NULL, NULL, &r, NULL, &e));
  ox_err_clear(&e);
  CHECK(ox_pb_decode(A, junk, 0, NULL, NULL, &r, NULL, &e));

  /* nesting deep enough to overflow protobuf-c's recursive unpacker: 200000
   * OptionalProtos, each holding the next in optional_value (field 7) */
  size_t cap = 200000 * 4, at = cap;
  uint8_t *deep = malloc(cap);
  for (int i = 0; i < 200000; i++) {
    size_t inner = cap - at;
    uint8_t len[5];
    int nl = 0;
    do len[nl++] = (uint8_t)((inner & 0x7f) | (inner >> 7 ? 0x80 : 0)); while (inner >>= 7);
    at -= (size_t)nl;
    memcpy(deep + at, len, (size_t)nl);
    deep[--at] = 0x3a; /* field 7, length-delimited */
  }
  ox_err_clear(&e);
  CHECK(ox_pb_decode(A, deep + at, cap - at, of_float(), NULL, &r, NULL, &e));
  CHECK_EQ_S(e.msg, "OptionalProto nests messages more than 100 deep");
  ox_err_clear(&e);
  CHECK(ox_pb_decode(A, deep + at, cap - at, NULL, NULL, &r, NULL, &e));
  CHECK(strstr(e.msg, "more than 100 deep") != NULL);
  /* 60 levels are fine */
  ox_err_clear(&e);
  CHECK(!ox_pb_decode(A, deep + cap - 120, 120, NULL, NULL, &r, NULL, &e));
  free(deep);
  /* fields no message knows are not read as an empty container */
  uint8_t unknown[] = {0xC2, 0x01, 0x00}; /* field 24, empty */
  ox_err_clear(&e);
  CHECK(ox_pb_decode(A, unknown, sizeof unknown, NULL, NULL, &r, NULL, &e));

  /* raw_data size */
  Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
  t.has_data_type = 1, t.data_type = OX_FLOAT, t.n_dims = 2, t.dims = d23;
  t.has_raw_data = 1, t.raw_data = (ProtobufCBinaryData){20, raw};
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "raw_data has 20 bytes; shape (2, 3) of float32 needs 24");
  CHECK(decode_tp(&t, NULL, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "raw_data has 20 bytes; shape (2, 3) of float32 needs 24");
  t.data_type = OX_INT4, t.raw_data.len = 4;
  CHECK(decode_tp(&t, NULL, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "raw_data has 4 bytes; shape (2, 3) of int4 needs 3");

  /* unknown dtype, no dtype */
  t.data_type = 99;
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "unknown data type 99");
  t.has_data_type = 0;
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "tensor has no data type (UNDEFINED)");
  t.has_data_type = 1, t.data_type = OX_FLOAT;

  /* negative and huge dims: an error before any allocation */
  int64_t neg[] = {2, -3};
  t.dims = neg;
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "negative dimension -3 in shape (2, -3)");
  int64_t huge[] = {(int64_t)1 << 40, (int64_t)1 << 40};
  t.dims = huge;
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "shape (1099511627776, 1099511627776) is too large");
  int64_t big[] = {(int64_t)1 << 40};
  t.n_dims = 1, t.dims = big, t.raw_data.len = 20;
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "raw_data has 20 bytes; shape (1099511627776,) of float32 needs 4398046511104");
  t.has_raw_data = 0;
  t.n_float_data = 2, t.float_data = (float[]){1, 2};
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "float_data has 2 values; shape (1099511627776,) of float32 needs 1099511627776");
  t.n_float_data = 0;
  t.n_dims = 2, t.dims = d23;

  /* segments */
  Onnx__TensorProto__Segment seg = ONNX__TENSOR_PROTO__SEGMENT__INIT;
  t.segment = &seg;
  CHECK(decode_tp(&t, ox_type_tensor(OX_FLOAT), NULL, &r, &e));
  CHECK_EQ_S(e.msg, "segmented tensors are not supported");
  CHECK_EQ_I(e.code, OX_EINPUT);
  t.segment = NULL;

  /* strings in raw_data */
  t.data_type = OX_STRING, t.has_raw_data = 1, t.raw_data.len = 6;
  CHECK(decode_tp(&t, NULL, NULL, &r, &e));
  CHECK_EQ_S(e.msg, "raw_data cannot hold strings (they go in string_data)");
}

static void test_external(void) {
  ox_err e = {0};
  ox_value *r;
  char dir[] = "/tmp/test_pb_XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    return;
  }
  char path[256];
  snprintf(path, sizeof path, "%s/weights.bin", dir);
  FILE *f = fopen(path, "wb");
  float data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  fwrite(data, sizeof data, 1, f);
  fclose(f);

  int64_t d3[] = {3};
  Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT,
                               off = ONNX__STRING_STRING_ENTRY_PROTO__INIT,
                               len = ONNX__STRING_STRING_ENTRY_PROTO__INIT;
  loc.key = "location", loc.value = "weights.bin";
  off.key = "offset", off.value = "8";
  len.key = "length", len.value = "12";
  Onnx__StringStringEntryProto *kv[3] = {&loc, &off, &len};
  Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
  t.has_data_type = 1, t.data_type = OX_FLOAT, t.n_dims = 1, t.dims = d3;
  t.has_data_location = 1, t.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  t.n_external_data = 3, t.external_data = kv;

  CHECK(!decode_tp(&t, ox_type_tensor(OX_FLOAT), dir, &r, &e));
  CHECK(r && ((float *)r->u.t.data)[0] == 2 && ((float *)r->u.t.data)[2] == 4);
  /* "./" is fine, and no length means "to the end" */
  loc.value = "./weights.bin", off.value = "20";
  t.n_external_data = 2;
  CHECK(!decode_tp(&t, NULL, dir, &r, &e));
  CHECK(r && ((float *)r->u.t.data)[2] == 7);
  t.n_external_data = 3;

  off.value = "24";
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK(strstr(e.msg, "runs past the end") != NULL);
  off.value = "100";
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK(strstr(e.msg, "is past the end") != NULL);
  off.value = "0", len.value = "8";
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK_EQ_S(e.msg, "external data has 8 bytes; shape (3,) of float32 needs 12");
  len.value = "-4";
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK_EQ_S(e.msg, "external data length '-4' is not a non-negative integer");
  len.value = "12";

  /* refused locations */
  loc.value = path;
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK(strstr(e.msg, "is an absolute path") != NULL);
  loc.value = "../x";
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK_EQ_S(e.msg, "external data location '../x' leaves the model's folder ('..' is not allowed)");
  loc.value = "sub/../../x";
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK(strstr(e.msg, "leaves the model's folder") != NULL);
  loc.value = "weights.bin";
  CHECK(decode_tp(&t, NULL, NULL, &r, &e));
  CHECK(strstr(e.msg, "only read next to a model") != NULL);
  loc.value = "missing.bin";
  CHECK(decode_tp(&t, NULL, dir, &r, &e));
  CHECK(strstr(e.msg, "cannot open external data file") != NULL);

  /* packed type from external data */
  uint8_t packed[2] = {0x21, 0x03};
  f = fopen(path, "wb");
  fwrite(packed, 2, 1, f);
  fclose(f);
  loc.value = "weights.bin";
  t.data_type = OX_UINT4, t.n_external_data = 1;
  CHECK(!decode_tp(&t, NULL, dir, &r, &e));
  CHECK(r && ((uint8_t *)r->u.t.data)[0] == 1 && ((uint8_t *)r->u.t.data)[1] == 2 &&
        ((uint8_t *)r->u.t.data)[2] == 3);

  remove(path);
  rmdir(dir);
}

static void test_buf(void) {
  ox_buf b = {0};
  CHECK(!ox_buf_printf(&b, "%s=%d", "x", 42));
  CHECK(!ox_buf_put(&b, "!", 1));
  for (int i = 0; i < 1000; i++) CHECK(!ox_buf_printf(&b, "%04d", i));
  CHECK_EQ_I(b.n, 5 + 4000);
  CHECK(!strncmp((char *)b.p, "x=42!0000", 9));
  CHECK_EQ_I(b.p[b.n], 0);
  ox_buf_free(&b);
  CHECK(b.p == NULL && b.n == 0);
}

int main(void) {
  A = ox_arena_new();
  test_dtypes();
  test_packing();
  test_typed_fields();
  test_sequences();
  test_optionals();
  test_maps();
  test_type_proto();
  test_errors();
  test_external();
  test_buf();
  ox_arena_free(A);
  return check_done("pb");
}
