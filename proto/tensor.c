/* proto/tensor.c: TensorProto, SequenceProto, OptionalProto, MapProto and
 * TypeProto <-> core values.
 *
 * Reading (ox_from_*): everything is copied into the arena, so the caller may
 * free the unpacked protobuf-c message right after. Every size is checked
 * against the shape before anything is allocated, so a hostile file with a
 * shape like (1 << 40, 1 << 40) fails with a message instead of a huge
 * allocation.
 *
 * Writing (ox_to_*): the protobuf-c structs are built in the arena and may
 * point into the value's own data (raw_data of unpacked types, strings); pack
 * them while the value is alive.
 *
 * Packed types (onnx.proto, TensorProto.raw_data; numpy_helper._unpack_4bit):
 * uint4/int4/float4e2m1 hold two elements per byte, the first in the low
 * nibble; uint2/int2 hold four per byte, the first in the lowest two bits. An
 * odd tail is padded with zero bits. In memory (core/dtype.h) they take one
 * byte per element, int4/int2 sign-extended.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proto.h"

/* raw_data is little-endian (onnx.proto); we copy it with memcpy. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "proto/tensor.c copies little-endian raw_data as is: add byte swapping for this host"
#endif

/* Sequences, optionals and maps nested deeper than this are refused (real
 * types nest two or three levels; this only stops runaway recursion). */
#define MAX_DEPTH OX_PROTO_MAX_DEPTH

/* SequenceProto.DataType and OptionalProto.DataType (onnx-data.proto) share
 * their numbering; MapProto's values are a SequenceProto. */
enum { ELEM_UNDEFINED = 0, ELEM_TENSOR = 1, ELEM_SPARSE = 2, ELEM_SEQUENCE = 3, ELEM_MAP = 4,
       ELEM_OPTIONAL = 5 };
static const char *const elem_names[] = {"UNDEFINED", "TENSOR", "SPARSE_TENSOR",
                                         "SEQUENCE",  "MAP",    "OPTIONAL"};

/* The type of a value whose element type the file does not give (an empty
 * sequence, an absent optional): tensor(undefined). It unifies with any type;
 * io/pb.c fills it in from the model's declared type. */
static const ox_type unknown_type = {OX_TENSOR, OX_UNDEFINED, NULL};


/* ---------------------------------------------------------------------------
 * TensorProto -> tensor
 * ------------------------------------------------------------------------- */

/* The typed field a dtype is stored in when raw_data is not used
 * (onnx.proto comments; helper.tensor_dtype_to_field). */
typedef enum { F_FLOAT, F_INT32, F_STRING, F_INT64, F_DOUBLE, F_UINT64 } typed_field;
static const char *const field_names[] = {"float_data", "int32_data", "string_data",
                                          "int64_data", "double_data", "uint64_data"};

static typed_field field_of(ox_dtype dt) {
  switch (dt) {
  case OX_FLOAT: case OX_COMPLEX64: return F_FLOAT;
  case OX_DOUBLE: case OX_COMPLEX128: return F_DOUBLE;
  case OX_INT64: return F_INT64;
  case OX_UINT32: case OX_UINT64: return F_UINT64;
  case OX_STRING: return F_STRING;
  default: return F_INT32; /* int32 and narrower ints, bool, 16-bit and 8-bit floats, packed */
  }
}

static int is_packed(ox_dtype dt) { return ox_dtypes[dt].file_bits > 0 && ox_dtypes[dt].file_bits < 8; }

/* Bytes of raw_data for n elements. n * size cannot overflow: callers got n
 * from ox_numel with the in-memory element size, which is never smaller. */
static int64_t raw_bytes(ox_dtype dt, int64_t n) {
  int bits = ox_dtypes[dt].file_bits;
  if (bits >= 8) return n * (bits / 8);
  int per = 8 / bits;
  return n / per + (n % per != 0);
}

/* Entries the typed field needs: two per complex element; one packed byte per
 * int32_data entry for the packed types (numpy_helper.to_array). */
static int64_t typed_count(ox_dtype dt, int64_t n) {
  if (ox_dtype_is_complex(dt)) return 2 * n;
  if (is_packed(dt)) return raw_bytes(dt, n);
  return n;
}

static int size_mismatch(ox_err *e, const char *what, uint64_t have, const char *unit,
                         const ox_tensor *t, int64_t need, const char *note) {
  char sb[256];
  return ox_fail(e, OX_EINPUT, "%s has %llu %s; shape %s of %s needs %lld%s", what,
                 (unsigned long long)have, unit, ox_shape_str(t->rank, t->dims, sb, sizeof sb),
                 ox_dtype_name(t->dt), (long long)need, note);
}

/* Unpack n packed elements from src (raw_bytes(dt, n) bytes) into t->data. */
static void unpack_small(ox_tensor *t, const uint8_t *src) {
  uint8_t *d = t->data;
  if (ox_dtypes[t->dt].file_bits == 4) {
    for (int64_t i = 0; i < t->n; i++) {
      unsigned v = (src[i / 2] >> (4 * (i & 1))) & 0xF;
      /* int4: 0x8..0xF are -8..-1; (v ^ 8) - 8 sign-extends */
      d[i] = t->dt == OX_INT4 ? (uint8_t)(int8_t)((int)(v ^ 8) - 8) : (uint8_t)v;
    }
  } else {
    for (int64_t i = 0; i < t->n; i++) {
      unsigned v = (src[i / 4] >> (2 * (i & 3))) & 0x3;
      d[i] = t->dt == OX_INT2 ? (uint8_t)(int8_t)((int)(v ^ 2) - 2) : (uint8_t)v;
    }
  }
}

/* bool is one byte per element, 0 or 1 (onnx.proto, raw_data); make it so. */
static void fix_bools(ox_tensor *t) {
  uint8_t *d = t->data;
  if (t->dt == OX_BOOL)
    for (int64_t i = 0; i < t->n; i++) d[i] = d[i] != 0;
}

/* raw_data (or external bytes, already size-checked) -> t->data. */
static void fill_raw(ox_tensor *t, const uint8_t *src) {
  if (is_packed(t->dt)) {
    unpack_small(t, src);
  } else if (t->n) {
    memcpy(t->data, src, (size_t)t->n * ox_dtype_size(t->dt));
    fix_bools(t);
  }
}

/* int32_data -> t->data. Values are bit patterns, truncated to the element
 * width as numpy_helper.to_array does (astype of the uint32 view). */
static int fill_int32(ox_arena *a, ox_tensor *t, const int32_t *x, int64_t count, ox_err *e) {
  switch (t->dt) {
  case OX_INT32:
    memcpy(t->data, x, (size_t)count * sizeof *x);
    return 0;
  case OX_INT16: case OX_UINT16: case OX_FLOAT16: case OX_BFLOAT16: {
    uint16_t *d = t->data;
    for (int64_t i = 0; i < count; i++) d[i] = (uint16_t)(uint32_t)x[i];
    return 0;
  }
  case OX_BOOL: {
    uint8_t *d = t->data;
    for (int64_t i = 0; i < count; i++) d[i] = x[i] != 0;
    return 0;
  }
  default:
    if (is_packed(t->dt)) {
      /* one packed byte per entry */
      uint8_t *bytes = ox_alloc(a, (size_t)count);
      if (!bytes) return ox_oom(e, NULL);
      for (int64_t i = 0; i < count; i++) bytes[i] = (uint8_t)(uint32_t)x[i];
      unpack_small(t, bytes);
    } else { /* int8, uint8 and the 8-bit floats */
      uint8_t *d = t->data;
      for (int64_t i = 0; i < count; i++) d[i] = (uint8_t)(uint32_t)x[i];
    }
    return 0;
  }
}

/* ---- external data (onnx.proto, TensorProto.external_data) ---- */

/* A non-negative decimal integer, as the "offset" and "length" values are. */
static int parse_count(const char *s, int64_t *out) {
  int64_t v = 0;
  if (!s || !*s) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    if (v > (INT64_MAX - (*s - '0')) / 10) return -1;
    v = v * 10 + (*s - '0');
  }
  *out = v;
  return 0;
}

/* The location must stay inside the model's folder: not absolute and no ".."
 * component (as onnx's external_data_helper requires). */
static int check_location(const char *loc, ox_err *e) {
  if (!*loc) return ox_fail(e, OX_EINPUT, "external data has an empty location");
  if (loc[0] == '/')
    return ox_fail(e, OX_EINPUT,
                   "external data location '%s' is an absolute path; it must be relative "
                   "to the model's folder", loc);
  for (const char *p = loc; *p;) {
    const char *end = strchr(p, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 2 && p[0] == '.' && p[1] == '.')
      return ox_fail(e, OX_EINPUT,
                     "external data location '%s' leaves the model's folder ('..' is not "
                     "allowed)", loc);
    p += len;
    while (*p == '/') p++;
  }
  return 0;
}

/* Open the external file of tp, check its offset/length against the file and
 * against `need` bytes, and leave it positioned at the data. */
static int external_open(ox_arena *a, const Onnx__TensorProto *tp, const ox_tensor *shape,
                         const char *basedir, int64_t need, FILE **out, ox_err *e) {
  const char *loc = NULL, *off_s = NULL, *len_s = NULL;
  for (size_t i = 0; i < tp->n_external_data; i++) {
    const Onnx__StringStringEntryProto *kv = tp->external_data[i];
    if (!kv->key || !kv->value) continue;
    if (!strcmp(kv->key, "location")) loc = kv->value;
    else if (!strcmp(kv->key, "offset")) off_s = kv->value;
    else if (!strcmp(kv->key, "length")) len_s = kv->value;
    /* "checksum" and unknown keys are ignored */
  }
  if (!loc) return ox_fail(e, OX_EINPUT, "external data has no location");
  OX_TRY(check_location(loc, e));
  if (!basedir)
    return ox_fail(e, OX_EINPUT,
                   "tensor data is in external file '%s', but external data is only read "
                   "next to a model", loc);
  int64_t off = 0, len = -1;
  if (off_s && parse_count(off_s, &off))
    return ox_fail(e, OX_EINPUT, "external data offset '%s' is not a non-negative integer", off_s);
  if (len_s && parse_count(len_s, &len))
    return ox_fail(e, OX_EINPUT, "external data length '%s' is not a non-negative integer", len_s);

  const char *path = ox_sprintf(a, "%s/%s", basedir, loc);
  if (!path) return ox_oom(e, NULL);
  /* A symlink may lead out of the model's folder: compare the resolved paths.
   * And check the kind before opening: fopen on a FIFO would block. */
  errno = 0;
  char *real_dir = realpath(basedir, NULL), *real = realpath(path, NULL);
  if ((!real_dir || !real) && errno == ENOMEM) { /* not "leads out" */
    free(real_dir);
    free(real);
    return ox_oom(e, NULL);
  }
  int inside = real_dir && real && !strncmp(real, real_dir, strlen(real_dir)) &&
               (real[strlen(real_dir)] == '/' || !strcmp(real_dir, "/"));
  free(real_dir);
  struct stat st;
  if (stat(path, &st)) {
    free(real);
    return ox_fail(e, OX_EINPUT, "cannot open external data file '%s'", path);
  }
  if (!inside) {
    free(real);
    return ox_fail(e, OX_EINPUT, "external data file '%s' leads out of the model's folder (through a symlink)", path);
  }
  /* the resolved path, the one checked; a FIFO or device is refused, not waited on */
  const char *why;
  FILE *f = ox_open_regular(real, &why);
  free(real);
  if (!f && !S_ISREG(st.st_mode))
    return ox_fail(e, OX_EINPUT, "external data file '%s' is not a regular file", path);
  if (!f) return ox_fail(e, OX_EINPUT, "cannot open external data file '%s': %s", path, why);
  if (fstat(fileno(f), &st)) {
    fclose(f);
    return ox_fail(e, OX_EINPUT, "cannot open external data file '%s'", path);
  }
  int64_t size = (int64_t)st.st_size;
  if (off > size) {
    fclose(f);
    return ox_fail(e, OX_EINPUT, "external data offset %lld is past the end of '%s' (%lld bytes)",
                   (long long)off, path, (long long)size);
  }
  if (len < 0) len = size - off;
  if (len > size - off) {
    fclose(f);
    return ox_fail(e, OX_EINPUT,
                   "external data at offset %lld, length %lld runs past the end of '%s' "
                   "(%lld bytes)", (long long)off, (long long)len, path, (long long)size);
  }
  if (len != need) {
    fclose(f);
    return size_mismatch(e, "external data", (uint64_t)len, "bytes", shape, need, "");
  }
  if (fseeko(f, (off_t)off, SEEK_SET)) {
    fclose(f);
    return ox_fail(e, OX_EINPUT, "cannot seek to offset %lld in '%s'", (long long)off, path);
  }
  *out = f;
  return 0;
}

/* External data of a tensor of the given (checked) shape. */
static int read_external(ox_arena *a, const Onnx__TensorProto *tp, const ox_tensor *shape,
                         const char *basedir, ox_value **out, ox_err *e) {
  ox_dtype dt = shape->dt;
  if (dt == OX_STRING)
    return ox_fail(e, OX_EINPUT, "string tensors cannot be stored as external data");
  int64_t need = raw_bytes(dt, shape->n);
  FILE *f = NULL;
  OX_TRY(external_open(a, tp, shape, basedir, need, &f, e));
  ox_value *v = NULL;
  int rc = ox_tensor_new(a, dt, shape->rank, shape->dims, &v, e);
  if (rc) {
    fclose(f);
    return rc;
  }
  ox_tensor *t = &v->u.t;
  /* Unpacked types go straight into the tensor; packed ones through a buffer. */
  uint8_t *buf = is_packed(dt) ? ox_alloc(a, (size_t)need) : t->data;
  size_t got = buf ? fread(buf, 1, (size_t)need, f) : 0;
  fclose(f);
  if (!buf) return ox_oom(e, NULL);
  if (got != (size_t)need) return ox_fail(e, OX_EINPUT, "cannot read external data");
  if (is_packed(dt)) unpack_small(t, buf);
  else fix_bools(t);
  *out = v;
  return 0;
}

/* adopt: raw_data is a block of arena a that the tensor may take as its data */
static int from_tensor_proto(ox_arena *a, const Onnx__TensorProto *tp, const char *basedir, int adopt,
                             ox_value **out, ox_err *e) {
  char sb[256];
  if (tp->segment) return ox_fail(e, OX_EINPUT, "segmented tensors are not supported");
  int id = tp->has_data_type ? tp->data_type : 0;
  if (id == 0) return ox_fail(e, OX_EINPUT, "tensor has no data type (UNDEFINED)");
  if (!ox_dtype_valid(id)) return ox_fail(e, OX_EINPUT, "unknown data type %d", id);
  ox_dtype dt = (ox_dtype)id;
  if (tp->n_dims > INT_MAX) return ox_fail(e, OX_EINPUT, "tensor has too many dimensions");
  int rank = (int)tp->n_dims;
  for (int i = 0; i < rank; i++)
    if (tp->dims[i] < 0)
      return ox_fail(e, OX_EINPUT, "negative dimension %lld in shape %s", (long long)tp->dims[i],
                     ox_shape_str(rank, tp->dims, sb, sizeof sb));
  int64_t n = ox_numel(rank, tp->dims, ox_dtype_size(dt));
  if (n < 0)
    return ox_fail(e, OX_EINPUT, "shape %s is too large", ox_shape_str(rank, tp->dims, sb, sizeof sb));
  /* What ox_tensor_new will build, for messages before it exists. */
  ox_tensor shape = {dt, rank, tp->dims, n, NULL};

  /* Where is the data? One place at most (checker.cc: "one and only one value
   * field"); an empty raw_data next to a typed field is tolerated. */
  int external = tp->has_data_location &&
                 tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  size_t counts[] = {tp->n_float_data, tp->n_int32_data, tp->n_string_data,
                     tp->n_int64_data, tp->n_double_data, tp->n_uint64_data};
  const char *found[8];
  int nfound = 0;
  if (external) found[nfound++] = "external_data";
  if (tp->has_raw_data && tp->raw_data.len > 0) found[nfound++] = "raw_data";
  int typed = -1;
  for (int f = 0; f < 6; f++)
    if (counts[f]) {
      found[nfound++] = field_names[f];
      typed = f;
    }
  if (nfound > 1)
    return ox_fail(e, OX_EINPUT, "tensor has data in both %s and %s", found[0], found[1]);

  if (external) return read_external(a, tp, &shape, basedir, out, e);

  if (tp->has_raw_data && typed < 0) {
    if (dt == OX_STRING) {
      if (tp->raw_data.len || n)
        return ox_fail(e, OX_EINPUT, "raw_data cannot hold strings (they go in string_data)");
    } else if ((int64_t)tp->raw_data.len != raw_bytes(dt, n)) {
      return size_mismatch(e, "raw_data", tp->raw_data.len, "bytes", &shape, raw_bytes(dt, n), "");
    }
    if (adopt && dt != OX_STRING && !is_packed(dt)) {
      OX_TRY(ox_tensor_adopt(a, dt, rank, tp->dims, tp->raw_data.data, out, e));
      fix_bools(&(*out)->u.t);
      return 0;
    }
    OX_TRY(ox_tensor_new(a, dt, rank, tp->dims, out, e));
    if (dt != OX_STRING) fill_raw(&(*out)->u.t, tp->raw_data.data);
    return 0;
  }

  if (typed < 0) { /* no data at all: only right for an empty tensor */
    if (n) return ox_fail(e, OX_EINPUT, "tensor holds no data; shape %s of %s needs %lld values",
                          ox_shape_str(rank, tp->dims, sb, sizeof sb), ox_dtype_name(dt),
                          (long long)n);
    return ox_tensor_new(a, dt, rank, tp->dims, out, e);
  }

  if ((typed_field)typed != field_of(dt))
    return ox_fail(e, OX_EINPUT, "%s cannot hold %s values (they go in %s or raw_data)",
                   field_names[typed], ox_dtype_name(dt), field_names[field_of(dt)]);
  int64_t need = typed_count(dt, n);
  if ((int64_t)counts[typed] != need)
    return size_mismatch(e, field_names[typed], counts[typed], "values", &shape, need,
                         ox_dtype_is_complex(dt) ? " (real and imaginary parts)"
                         : is_packed(dt)         ? " (one packed byte per value)"
                                                 : "");
  OX_TRY(ox_tensor_new(a, dt, rank, tp->dims, out, e));
  ox_tensor *t = &(*out)->u.t;
  switch ((typed_field)typed) {
  case F_FLOAT:
    memcpy(t->data, tp->float_data, (size_t)need * sizeof(float));
    return 0;
  case F_DOUBLE:
    memcpy(t->data, tp->double_data, (size_t)need * sizeof(double));
    return 0;
  case F_INT64:
    memcpy(t->data, tp->int64_data, (size_t)need * sizeof(int64_t));
    return 0;
  case F_UINT64:
    if (dt == OX_UINT64) {
      memcpy(t->data, tp->uint64_data, (size_t)need * sizeof(uint64_t));
    } else {
      uint32_t *d = t->data;
      for (int64_t i = 0; i < n; i++) d[i] = (uint32_t)tp->uint64_data[i];
    }
    return 0;
  case F_STRING: {
    ox_str *s = t->data;
    for (int64_t i = 0; i < n; i++) {
      const ProtobufCBinaryData *b = &tp->string_data[i];
      s[i].p = ox_strndup(a, b->len ? (const char *)b->data : "", b->len);
      if (!s[i].p) return ox_oom(e, NULL);
      s[i].n = (int64_t)b->len;
    }
    return 0;
  }
  case F_INT32:
    return fill_int32(a, t, tp->int32_data, need, e);
  }
  return 0;
}

int ox_from_tensor_proto(ox_arena *a, const Onnx__TensorProto *tp, const char *basedir,
                         ox_value **out, ox_err *e) {
  return from_tensor_proto(a, tp, basedir, 0, out, e);
}

int ox_from_tensor_proto_held(ox_arena *a, const Onnx__TensorProto *tp, const char *basedir,
                              ox_value **out, ox_err *e) {
  return from_tensor_proto(a, tp, basedir, 1, out, e);
}

/* ---------------------------------------------------------------------------
 * SequenceProto, OptionalProto, MapProto -> values
 * ------------------------------------------------------------------------- */

static int seq_from(ox_arena *a, const Onnx__SequenceProto *sp, const char *basedir, int depth,
                    ox_value **out, ox_err *e);
static int opt_from(ox_arena *a, const Onnx__OptionalProto *op, const char *basedir, int depth,
                    ox_value **out, ox_err *e);
static int map_from(ox_arena *a, const Onnx__MapProto *mp, const char *basedir, int depth,
                    ox_value **out, ox_err *e);

/* Which kind of element a SequenceProto / OptionalProto holds: its elem_type,
 * checked against the field its values are in (counts[k]: values of kind k).
 * A missing elem_type is taken from the values, if any. */
static int pick_elem(const char *msg, int has, int32_t elem_type, const size_t counts[6],
                     int *out, ox_err *e) {
  int with = 0;
  for (int k = 1; k <= 5; k++) {
    if (!counts[k]) continue;
    if (with)
      return ox_fail(e, OX_EINPUT, "%s holds both %s and %s values", msg, elem_names[with],
                     elem_names[k]);
    with = k;
  }
  int k = has ? elem_type : 0;
  if (k < 0 || k > 5) return ox_fail(e, OX_EINPUT, "%s has unknown elem_type %d", msg, k);
  if (k && with && k != with)
    return ox_fail(e, OX_EINPUT, "%s has elem_type %s but holds %s values", msg, elem_names[k],
                   elem_names[with]);
  if (!k) k = with;
  if (k == ELEM_SPARSE)
    return ox_fail(e, OX_EINPUT, "sparse tensors in a %s are not supported", msg);
  *out = k;
  return 0;
}

/* The element type to assume when no element tells: the kind from elem_type,
 * the rest unknown. */
static const ox_type *unknown_of(ox_arena *a, int k) {
  switch (k) {
  case ELEM_SEQUENCE: return ox_type_seq(a, &unknown_type);
  case ELEM_MAP: return ox_type_map(a, OX_UNDEFINED, &unknown_type);
  case ELEM_OPTIONAL: return ox_type_opt(a, &unknown_type);
  default: return &unknown_type;
  }
}

static int elem_from(ox_arena *a, int k, const void *msg, const char *basedir, int depth,
                     ox_value **out, ox_err *e) {
  switch (k) {
  case ELEM_TENSOR: return ox_from_tensor_proto(a, msg, basedir, out, e);
  case ELEM_SEQUENCE: return seq_from(a, msg, basedir, depth + 1, out, e);
  case ELEM_MAP: return map_from(a, msg, basedir, depth + 1, out, e);
  case ELEM_OPTIONAL: return opt_from(a, msg, basedir, depth + 1, out, e);
  default: return ox_fail(e, OX_EINPUT, "unknown element kind %d", k);
  }
}

static int seq_from(ox_arena *a, const Onnx__SequenceProto *sp, const char *basedir, int depth,
                    ox_value **out, ox_err *e) {
  if (depth > MAX_DEPTH) return ox_fail(e, OX_EINPUT, "values nested more than %d deep", MAX_DEPTH);
  size_t counts[6] = {0, sp->n_tensor_values, sp->n_sparse_tensor_values, sp->n_sequence_values,
                      sp->n_map_values, sp->n_optional_values};
  const void *const *msgs[6] = {NULL, (const void *const *)sp->tensor_values,
                                (const void *const *)sp->sparse_tensor_values,
                                (const void *const *)sp->sequence_values,
                                (const void *const *)sp->map_values,
                                (const void *const *)sp->optional_values};
  int k;
  OX_TRY(pick_elem("SequenceProto", sp->has_elem_type, sp->elem_type, counts, &k, e));
  int64_t n = k ? (int64_t)counts[k] : 0;
  ox_value *v;
  OX_TRY(ox_seq_new(a, NULL, n, &v, e));
  /* The element type: the one all elements agree on (shapes may differ). */
  const ox_type *et = n ? NULL : unknown_of(a, k);
  for (int64_t i = 0; i < n; i++) {
    ox_value *x = NULL;
    int rc = elem_from(a, k, msgs[k][i], basedir, depth, &x, e);
    if (rc) {
      ox_prefix(e, "sequence element %lld: ", (long long)i);
      return rc;
    }
    v->u.seq.v[i] = x;
    const ox_type *xt = ox_value_type(a, x);
    const ox_type *u = i ? ox_type_unify(a, et, xt) : xt;
    if (!u) {
      char b1[256], b2[256];
      return ox_fail(e, OX_EINPUT, "sequence element %lld is %s but the ones before it are %s",
                     (long long)i, ox_value_desc(x, b1, sizeof b1), ox_type_str(et, b2, sizeof b2));
    }
    et = u;
  }
  v->type = ox_type_seq(a, et);
  if (!et || !v->type) return ox_oom(e, NULL);
  for (int64_t i = 0; i < n; i++) ox_value_refine(a, v->u.seq.v[i], et);
  *out = v;
  return 0;
}

static int opt_from(ox_arena *a, const Onnx__OptionalProto *op, const char *basedir, int depth,
                    ox_value **out, ox_err *e) {
  if (depth > MAX_DEPTH) return ox_fail(e, OX_EINPUT, "values nested more than %d deep", MAX_DEPTH);
  const void *msgs[6] = {NULL, op->tensor_value, op->sparse_tensor_value, op->sequence_value,
                         op->map_value, op->optional_value};
  size_t counts[6];
  for (int i = 0; i < 6; i++) counts[i] = msgs[i] != NULL;
  int k;
  OX_TRY(pick_elem("OptionalProto", op->has_elem_type, op->elem_type, counts, &k, e));
  ox_value *x = NULL;
  if (k && msgs[k]) {
    int rc = elem_from(a, k, msgs[k], basedir, depth, &x, e);
    if (rc) {
      ox_prefix(e, "optional value: ");
      return rc;
    }
  }
  const ox_type *et = x ? ox_value_type(a, x) : unknown_of(a, k);
  if (!et) return ox_oom(e, NULL);
  return ox_opt_new(a, et, x, out, e);
}

static int is_key_type(ox_dtype dt) {
  return dt == OX_STRING || (ox_dtype_is_signed_int(dt) && dt != OX_INT4 && dt != OX_INT2) ||
         (ox_dtype_is_unsigned_int(dt) && dt != OX_UINT4 && dt != OX_UINT2);
}

/* MapProto.keys are int64; store one into a key tensor of type dt, checking
 * that it fits. uint64 keys are their int64 bit pattern. */
static int key_store(ox_dtype dt, void *data, int64_t i, int64_t k) {
  switch (dt) {
  case OX_INT8: if (k < INT8_MIN || k > INT8_MAX) return -1; ((int8_t *)data)[i] = (int8_t)k; return 0;
  case OX_UINT8: if (k < 0 || k > UINT8_MAX) return -1; ((uint8_t *)data)[i] = (uint8_t)k; return 0;
  case OX_INT16: if (k < INT16_MIN || k > INT16_MAX) return -1; ((int16_t *)data)[i] = (int16_t)k; return 0;
  case OX_UINT16: if (k < 0 || k > UINT16_MAX) return -1; ((uint16_t *)data)[i] = (uint16_t)k; return 0;
  case OX_INT32: if (k < INT32_MIN || k > INT32_MAX) return -1; ((int32_t *)data)[i] = (int32_t)k; return 0;
  case OX_UINT32: if (k < 0 || k > (int64_t)UINT32_MAX) return -1; ((uint32_t *)data)[i] = (uint32_t)k; return 0;
  case OX_INT64: ((int64_t *)data)[i] = k; return 0;
  case OX_UINT64: ((uint64_t *)data)[i] = (uint64_t)k; return 0;
  default: return -1;
  }
}

static int64_t key_load(ox_dtype dt, const void *data, int64_t i) {
  switch (dt) {
  case OX_INT8: return ((const int8_t *)data)[i];
  case OX_UINT8: return ((const uint8_t *)data)[i];
  case OX_INT16: return ((const int16_t *)data)[i];
  case OX_UINT16: return ((const uint16_t *)data)[i];
  case OX_INT32: return ((const int32_t *)data)[i];
  case OX_UINT32: return ((const uint32_t *)data)[i];
  case OX_INT64: return ((const int64_t *)data)[i];
  case OX_UINT64: return (int64_t)((const uint64_t *)data)[i];
  default: return 0;
  }
}

static int map_from(ox_arena *a, const Onnx__MapProto *mp, const char *basedir, int depth,
                    ox_value **out, ox_err *e) {
  if (depth > MAX_DEPTH) return ox_fail(e, OX_EINPUT, "values nested more than %d deep", MAX_DEPTH);
  int id = mp->has_key_type ? mp->key_type : 0;
  if (id == 0 && (mp->n_keys || mp->n_string_keys))
    return ox_fail(e, OX_EINPUT, "MapProto has keys but no key_type");
  if (id != 0 && !(ox_dtype_valid(id) && is_key_type((ox_dtype)id)))
    return ox_fail(e, OX_EINPUT, "MapProto key_type %d is not an integer type or string", id);
  ox_dtype kt = (ox_dtype)id;
  if (kt == OX_STRING ? mp->n_keys != 0 : mp->n_string_keys != 0)
    return ox_fail(e, OX_EINPUT, "MapProto with key_type %s has %s", ox_dtype_name(kt),
                   kt == OX_STRING ? "integer keys" : "string keys");
  int64_t nk = (int64_t)(kt == OX_STRING ? mp->n_string_keys : mp->n_keys);

  /* keys: a 1-D tensor (int64 placeholder for an empty map without key_type) */
  ox_value *keys = NULL;
  OX_TRY(ox_tensor_new(a, kt ? kt : OX_INT64, 1, &nk, &keys, e));
  for (int64_t i = 0; i < nk; i++) {
    if (kt == OX_STRING) {
      const ProtobufCBinaryData *b = &mp->string_keys[i];
      ox_str *s = keys->u.t.data;
      s[i].p = ox_strndup(a, b->len ? (const char *)b->data : "", b->len);
      if (!s[i].p) return ox_oom(e, NULL);
      s[i].n = (int64_t)b->len;
    } else if (key_store(kt, keys->u.t.data, i, mp->keys[i])) {
      return ox_fail(e, OX_EINPUT, "map key %lld does not fit %s", (long long)mp->keys[i],
                     ox_dtype_name(kt));
    }
  }

  ox_value *vals = NULL;
  if (mp->values) {
    int rc = seq_from(a, mp->values, basedir, depth + 1, &vals, e);
    if (rc) {
      ox_prefix(e, "map values: ");
      return rc;
    }
  } else {
    OX_TRY(ox_seq_new(a, &unknown_type, 0, &vals, e));
  }
  if (vals->u.seq.n != nk)
    return ox_fail(e, OX_EINPUT, "MapProto has %lld keys but %lld values", (long long)nk,
                   (long long)vals->u.seq.n);

  ox_value *m = ox_alloc(a, sizeof *m);
  const ox_type *t = ox_type_map(a, kt, vals->type->inner);
  if (!m || !t) return ox_oom(e, NULL);
  m->kind = OX_MAP;
  m->type = t;
  m->u.map.keys = keys;
  m->u.map.values = vals;
  *out = m;
  return 0;
}

int ox_from_sequence_proto(ox_arena *a, const Onnx__SequenceProto *sp, const char *basedir,
                           ox_value **out, ox_err *e) {
  return seq_from(a, sp, basedir, 0, out, e);
}

int ox_from_optional_proto(ox_arena *a, const Onnx__OptionalProto *op, const char *basedir,
                           ox_value **out, ox_err *e) {
  return opt_from(a, op, basedir, 0, out, e);
}

int ox_from_map_proto(ox_arena *a, const Onnx__MapProto *mp, const char *basedir,
                      ox_value **out, ox_err *e) {
  return map_from(a, mp, basedir, 0, out, e);
}

/* ---------------------------------------------------------------------------
 * TypeProto -> type
 * ------------------------------------------------------------------------- */

static const ox_type *type_from(ox_arena *a, const Onnx__TypeProto *tp, int depth) {
  if (!tp || depth > MAX_DEPTH) return NULL;
  const ox_type *in;
  switch (tp->value_case) {
  case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
    if (!tp->tensor_type || !tp->tensor_type->has_elem_type) return NULL;
    return ox_type_tensor((ox_dtype)tp->tensor_type->elem_type); /* NULL if invalid */
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    if (!tp->sequence_type || !(in = type_from(a, tp->sequence_type->elem_type, depth + 1)))
      return NULL;
    return ox_type_seq(a, in);
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
    if (!tp->optional_type || !(in = type_from(a, tp->optional_type->elem_type, depth + 1)))
      return NULL;
    return ox_type_opt(a, in);
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: {
    const Onnx__TypeProto__Map *m = tp->map_type;
    if (!m || !m->has_key_type || !ox_dtype_valid(m->key_type) ||
        !is_key_type((ox_dtype)m->key_type) || !(in = type_from(a, m->value_type, depth + 1)))
      return NULL;
    return ox_type_map(a, (ox_dtype)m->key_type, in);
  }
  default: /* absent, sparse tensors, opaque */
    return NULL;
  }
}

const ox_type *ox_from_type_proto(ox_arena *a, const Onnx__TypeProto *tp) {
  return type_from(a, tp, 0);
}

int ox_type_proto_depth(const Onnx__TypeProto *tp) {
  int depth = 0;
  while (tp) {
    depth++;
    switch (tp->value_case) {
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: tp = tp->sequence_type ? tp->sequence_type->elem_type : NULL; break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: tp = tp->optional_type ? tp->optional_type->elem_type : NULL; break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: tp = tp->map_type ? tp->map_type->value_type : NULL; break;
    default: tp = NULL;
    }
  }
  return depth;
}

/* ---------------------------------------------------------------------------
 * values -> protobuf-c structs
 * ------------------------------------------------------------------------- */

static int seq_to(ox_arena *a, const ox_value *v, const char *name, int depth,
                  Onnx__SequenceProto **out, ox_err *e);
static int opt_to(ox_arena *a, const ox_value *v, const char *name, int depth,
                  Onnx__OptionalProto **out, ox_err *e);
static int map_to(ox_arena *a, const ox_value *v, const char *name, int depth,
                  Onnx__MapProto **out, ox_err *e);

static int wrong_kind(ox_err *e, const char *want, const ox_value *v) {
  char b[256];
  return ox_fail(e, OX_EINPUT, "expected %s, got %s", want, ox_value_desc(v, b, sizeof b));
}

/* name, or NULL (no field) for NULL or "" */
static int set_name(ox_arena *a, const char *name, char **field, ox_err *e) {
  if (!name || !*name) return 0;
  if (!(*field = ox_strdup(a, name))) return ox_oom(e, NULL);
  return 0;
}

int ox_to_tensor_proto(ox_arena *a, const ox_value *v, const char *name,
                       Onnx__TensorProto **out, ox_err *e) {
  if (!v || v->kind != OX_TENSOR) return wrong_kind(e, "a tensor", v);
  const ox_tensor *t = &v->u.t;
  Onnx__TensorProto *tp = ox_alloc(a, sizeof *tp);
  int64_t *dims = ox_alloc_array(a, t->rank, sizeof *dims);
  if (!tp || !dims) return ox_oom(e, NULL);
  onnx__tensor_proto__init(tp);
  OX_TRY(set_name(a, name, &tp->name, e));
  if (t->rank) memcpy(dims, t->dims, (size_t)t->rank * sizeof *dims);
  tp->n_dims = (size_t)t->rank;
  tp->dims = dims;
  tp->has_data_type = 1;
  tp->data_type = (int32_t)t->dt;

  if (t->dt == OX_STRING) {
    const ox_str *s = t->data;
    ProtobufCBinaryData *b = ox_alloc_array(a, t->n, sizeof *b);
    if (!b) return ox_oom(e, NULL);
    for (int64_t i = 0; i < t->n; i++) {
      b[i].len = (size_t)s[i].n;
      b[i].data = s[i].p ? (uint8_t *)s[i].p : (uint8_t *)""; /* only read by the packer */
    }
    tp->n_string_data = (size_t)t->n;
    tp->string_data = b;
  } else if (is_packed(t->dt)) {
    int bits = ox_dtypes[t->dt].file_bits, per = 8 / bits;
    unsigned mask = (1u << bits) - 1;
    int64_t nb = raw_bytes(t->dt, t->n);
    uint8_t *p = ox_alloc(a, (size_t)nb);
    if (!p) return ox_oom(e, NULL);
    const uint8_t *d = t->data;
    for (int64_t i = 0; i < t->n; i++)
      p[i / per] |= (uint8_t)((d[i] & mask) << (bits * (i % per)));
    tp->has_raw_data = 1;
    tp->raw_data.len = (size_t)nb;
    tp->raw_data.data = p;
  } else {
    /* the in-memory layout is the little-endian file layout: point at it */
    tp->has_raw_data = 1;
    tp->raw_data.len = (size_t)t->n * ox_dtype_size(t->dt);
    tp->raw_data.data = t->data;
  }
  *out = tp;
  return 0;
}

/* The SequenceProto/OptionalProto elem_type of a value kind. */
static int elem_of_kind(ox_kind k) {
  switch (k) {
  case OX_SEQUENCE: return ELEM_SEQUENCE;
  case OX_MAP: return ELEM_MAP;
  case OX_OPTIONAL: return ELEM_OPTIONAL;
  default: return ELEM_TENSOR;
  }
}

static int seq_to(ox_arena *a, const ox_value *v, const char *name, int depth,
                  Onnx__SequenceProto **out, ox_err *e) {
  if (!v || v->kind != OX_SEQUENCE) return wrong_kind(e, "a sequence", v);
  if (depth > MAX_DEPTH) return ox_fail(e, OX_EINPUT, "values nested more than %d deep", MAX_DEPTH);
  Onnx__SequenceProto *sp = ox_alloc(a, sizeof *sp);
  if (!sp) return ox_oom(e, NULL);
  onnx__sequence_proto__init(sp);
  OX_TRY(set_name(a, name, &sp->name, e));
  /* elem_type from the declared element type, so an empty sequence keeps it */
  const ox_type *et = v->type ? v->type->inner : NULL;
  ox_kind kind = et ? et->kind : v->u.seq.n ? v->u.seq.v[0]->kind : OX_TENSOR;
  sp->has_elem_type = 1;
  sp->elem_type = elem_of_kind(kind);
  int64_t n = v->u.seq.n;
  void **msgs = ox_alloc_array(a, n, sizeof *msgs);
  if (!msgs) return ox_oom(e, NULL);
  for (int64_t i = 0; i < n; i++) {
    const ox_value *x = v->u.seq.v[i];
    int rc;
    if (!x || x->kind != kind) {
      char b[256];
      rc = ox_fail(e, OX_EINPUT, "sequence element %lld is %s, not a %s", (long long)i,
                   ox_value_desc(x, b, sizeof b), elem_names[elem_of_kind(kind)]);
    } else if (kind == OX_TENSOR) {
      rc = ox_to_tensor_proto(a, x, NULL, (Onnx__TensorProto **)&msgs[i], e);
    } else if (kind == OX_SEQUENCE) {
      rc = seq_to(a, x, NULL, depth + 1, (Onnx__SequenceProto **)&msgs[i], e);
    } else if (kind == OX_MAP) {
      rc = map_to(a, x, NULL, depth + 1, (Onnx__MapProto **)&msgs[i], e);
    } else {
      rc = opt_to(a, x, NULL, depth + 1, (Onnx__OptionalProto **)&msgs[i], e);
    }
    if (rc) return rc;
  }
  switch (kind) {
  case OX_SEQUENCE:
    sp->n_sequence_values = (size_t)n;
    sp->sequence_values = (Onnx__SequenceProto **)msgs;
    break;
  case OX_MAP:
    sp->n_map_values = (size_t)n;
    sp->map_values = (Onnx__MapProto **)msgs;
    break;
  case OX_OPTIONAL:
    sp->n_optional_values = (size_t)n;
    sp->optional_values = (Onnx__OptionalProto **)msgs;
    break;
  default:
    sp->n_tensor_values = (size_t)n;
    sp->tensor_values = (Onnx__TensorProto **)msgs;
    break;
  }
  *out = sp;
  return 0;
}

static int opt_to(ox_arena *a, const ox_value *v, const char *name, int depth,
                  Onnx__OptionalProto **out, ox_err *e) {
  if (!v || v->kind != OX_OPTIONAL) return wrong_kind(e, "an optional", v);
  if (depth > MAX_DEPTH) return ox_fail(e, OX_EINPUT, "values nested more than %d deep", MAX_DEPTH);
  Onnx__OptionalProto *op = ox_alloc(a, sizeof *op);
  if (!op) return ox_oom(e, NULL);
  onnx__optional_proto__init(op);
  OX_TRY(set_name(a, name, &op->name, e));
  const ox_value *x = v->u.opt;
  const ox_type *et = v->type ? v->type->inner : NULL;
  ox_kind kind = x ? x->kind : et ? et->kind : OX_TENSOR;
  op->has_elem_type = 1;
  if (!x) {
    /* absent: elem_type UNDEFINED alone, as onnx's numpy_helper.from_optional
     * writes it; any other elem_type would read back, without a declared
     * type, as an empty sequence (io/pb.c, "Guessing the message") */
    op->elem_type = ELEM_UNDEFINED;
    *out = op;
    return 0;
  }
  op->elem_type = elem_of_kind(kind);
  switch (kind) {
  case OX_TENSOR: OX_TRY(ox_to_tensor_proto(a, x, NULL, &op->tensor_value, e)); break;
  case OX_SEQUENCE: OX_TRY(seq_to(a, x, NULL, depth + 1, &op->sequence_value, e)); break;
  case OX_MAP: OX_TRY(map_to(a, x, NULL, depth + 1, &op->map_value, e)); break;
  case OX_OPTIONAL: OX_TRY(opt_to(a, x, NULL, depth + 1, &op->optional_value, e)); break;
  default: return wrong_kind(e, "a tensor, sequence, map or optional", x);
  }
  *out = op;
  return 0;
}

static int map_to(ox_arena *a, const ox_value *v, const char *name, int depth,
                  Onnx__MapProto **out, ox_err *e) {
  if (!v || v->kind != OX_MAP) return wrong_kind(e, "a map", v);
  if (depth > MAX_DEPTH) return ox_fail(e, OX_EINPUT, "values nested more than %d deep", MAX_DEPTH);
  const ox_value *keys = v->u.map.keys;
  if (!keys || keys->kind != OX_TENSOR || !is_key_type(keys->u.t.dt))
    return ox_fail(e, OX_EINPUT, "map keys must be a tensor of integers or strings");
  Onnx__MapProto *mp = ox_alloc(a, sizeof *mp);
  if (!mp) return ox_oom(e, NULL);
  onnx__map_proto__init(mp);
  OX_TRY(set_name(a, name, &mp->name, e));
  const ox_tensor *t = &keys->u.t;
  const ox_value *vals = v->u.map.values;
  if (vals && vals->kind == OX_SEQUENCE && vals->u.seq.n != t->n)
    return ox_fail(e, OX_EINPUT, "map has %lld keys but %lld values", (long long)t->n,
                   (long long)vals->u.seq.n);
  mp->has_key_type = 1;
  mp->key_type = (int32_t)t->dt;
  if (t->dt == OX_STRING) {
    const ox_str *s = t->data;
    ProtobufCBinaryData *b = ox_alloc_array(a, t->n, sizeof *b);
    if (!b) return ox_oom(e, NULL);
    for (int64_t i = 0; i < t->n; i++) {
      b[i].len = (size_t)s[i].n;
      b[i].data = s[i].p ? (uint8_t *)s[i].p : (uint8_t *)"";
    }
    mp->n_string_keys = (size_t)t->n;
    mp->string_keys = b;
  } else {
    int64_t *k = ox_alloc_array(a, t->n, sizeof *k);
    if (!k) return ox_oom(e, NULL);
    for (int64_t i = 0; i < t->n; i++) k[i] = key_load(t->dt, t->data, i);
    mp->n_keys = (size_t)t->n;
    mp->keys = k;
  }
  OX_TRY(seq_to(a, vals, NULL, depth + 1, &mp->values, e));
  *out = mp;
  return 0;
}

int ox_to_sequence_proto(ox_arena *a, const ox_value *v, const char *name,
                         Onnx__SequenceProto **out, ox_err *e) {
  return seq_to(a, v, name, 0, out, e);
}

int ox_to_optional_proto(ox_arena *a, const ox_value *v, const char *name,
                         Onnx__OptionalProto **out, ox_err *e) {
  return opt_to(a, v, name, 0, out, e);
}

int ox_to_map_proto(ox_arena *a, const ox_value *v, const char *name, Onnx__MapProto **out,
                    ox_err *e) {
  return map_to(a, v, name, 0, out, e);
}
