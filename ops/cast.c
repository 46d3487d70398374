/* ops/cast.c: Cast, CastLike and BitCast.
 *
 * Cast converts element by element along one of a few generic loops, picked
 * by the kinds of the two types (not one loop per pair):
 *   - same type: the output shares the input's data;
 *   - integer (and bool) source: exact int64 load, then an integer store
 *     (two's complement wrap, as Cast-13 says) or a rounding float store;
 *   - float source: double load, then a rounding store, or for integer
 *     targets truncation toward zero (see "out of range" below);
 *   - string source: parse, then as above; string target: print as numpy.
 * The scalar conversions are core/convert.c's (ox_load_*, ox_store_*,
 * ox_f32_to_f8...). bfloat16, the float8s, float4e2m1 and float8e8m0 are
 * reached through float32, as ml_dtypes (the ONNX reference) does, so that
 * `saturate` and `round_mode` apply.
 *
 * Out of range float -> integer (Cast-13: "undefined if OOR") is defined
 * here as: NaN -> 0; otherwise truncate toward zero, clamp to int64 (uint64
 * for uint64), then keep the low bits of the target, like integer casts. In
 * range this is what the reference (numpy astype) gives; the 4-bit and 2-bit
 * test data wrap the same way (-3.0 -> int2 1).
 *
 * Complex types are not Cast types (every version says "casting from/to
 * complex is not supported"); BitCast-26 allows them. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/half.h"
#include "core/kernel.h"
#include "core/threads.h"

/* The types of T1 and T2 (the same set) as each version grew them. */
#define TS_1 (OX_TS_INTS | OX_T(BOOL) | OX_TS_FLOAT3) /* Cast-1, -6 */
#define TS_9 (TS_1 | OX_T(STRING))                     /* strings from Cast-9 */
#define TS_13 (TS_9 | OX_T(BFLOAT16))
#define TS_19 (TS_13 | OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) |       \
               OX_T(FLOAT8E5M2FNUZ))
#define TS_21 (TS_19 | OX_TS_4BIT)
#define TS_23 (TS_21 | OX_T(FLOAT4E2M1))
#define TS_24 (TS_23 | OX_T(FLOAT8E8M0))
#define TS_25 (TS_24 | OX_T(UINT2) | OX_T(INT2))
/* BitCast-26: every type but string, complex included. */
#define TS_BITCAST ((TS_25 & ~OX_T(STRING)) | OX_T(COMPLEX64) | OX_T(COMPLEX128))

/* The Cast/CastLike type set at an opset version (the table's rows). */
static uint64_t cast_types(int v) {
  return v >= 25 ? TS_25 : v >= 24 ? TS_24 : v >= 23 ? TS_23 : v >= 21 ? TS_21
       : v >= 19 ? TS_19 : v >= 13 ? TS_13 : v >= 9 ? TS_9 : TS_1;
}

/* "float, double, ..." for messages. */
static const char *type_list(uint64_t ts, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (int d = 1; d < OX_DTYPE_MAX && len < n; d++)
    if (ts & (UINT64_C(1) << d))
      len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", ox_dtypes[d].onnx_name);
  return buf;
}

static int is_intlike(ox_dtype dt) {
  return dt == OX_BOOL || ox_dtype_is_signed_int(dt) || ox_dtype_is_unsigned_int(dt);
}

/* ---- conversion options ---- */

typedef struct {
  int saturate;   /* float8 (and from 24 e8m0) out of range: clamp, or NaN/Inf */
  int round_mode; /* float8e8m0's round_mode (Cast-24): OX_E8M0_* */
  /* Cast-19..23's table: with saturate, +-Inf still gives NaN in the fnuz
   * types; Cast-24 changed it to +-FLT_MAX (onnx PR #7130), core's default. */
  int fnuz_inf;
} cast_opts;

/* Store float f into element i of a bfloat16 / float8 / float4 / e8m0 buffer. */
static void store_small(ox_dtype dt, void *y, int64_t i, float f, const cast_opts *o) {
  uint8_t *b = y;
  switch (dt) {
  case OX_BFLOAT16: ((uint16_t *)y)[i] = ox_f32_to_bf16(f); break;
  case OX_FLOAT4E2M1: b[i] = ox_f32_to_f4(f); break;
  case OX_FLOAT8E8M0: b[i] = ox_f32_to_e8m0(f, o->saturate, o->round_mode); break;
  case OX_FLOAT8E4M3FNUZ: case OX_FLOAT8E5M2FNUZ:
    if (o->fnuz_inf && isinf(f)) { b[i] = 0x80; break; } /* the fnuz NaN */
    /* fall through */
  default: b[i] = ox_f32_to_f8(dt, f, o->saturate); break;
  }
}

static int via_f32(ox_dtype dt) {
  return dt == OX_BFLOAT16 || (ox_dtype_size(dt) == 1 && !is_intlike(dt)); /* f8, f4, e8m0 */
}

/* Store a real value (from a float or a string). */
static void store_real(ox_dtype dt, void *y, int64_t i, double v, const cast_opts *o) {
  if (via_f32(dt)) store_small(dt, y, i, (float)v, o);
  else ox_store_f64(dt, y, i, v);
}

/* Store an integer; u64: v holds the bits of a uint64. */
static void store_int(ox_dtype dt, void *y, int64_t i, int64_t v, int u64, const cast_opts *o) {
  if (is_intlike(dt)) ox_store_i64(dt, y, i, v);
  else if (via_f32(dt)) store_small(dt, y, i, u64 ? (float)(uint64_t)v : (float)v, o);
  else if (!u64 || v >= 0) ox_store_i64(dt, y, i, v);
  else if (dt == OX_FLOAT) ((float *)y)[i] = (float)(uint64_t)v;
  else ox_store_f64(dt, y, i, (double)(uint64_t)v); /* exact for double; float16: Inf */
}

/* ---- numbers to strings, as numpy's astype(str) prints them ----
 * float32, float64 and float16 print their shortest round-trip digits (numpy's
 * Dragon4 "unique" mode); the ml_dtypes types (bfloat16, float8, float4, e8m0)
 * go through a Python float, so they print the shortest digits of the double.
 * numpy and Python both use positional notation for 1e-4 <= |x| < 1e16 (and
 * 0), keeping one zero after the point ("1.0"), and otherwise scientific with
 * at least two exponent digits ("1e-05", "1.5e+16"). */

/* Does the decimal d round to v in the precision of dt? */
static int round_trips(ox_dtype dt, double d, double v) {
  switch (dt) {
  case OX_FLOAT: return (float)d == (float)v;
  case OX_FLOAT16: {
    uint16_t a, b;
    ox_store_f64(OX_FLOAT16, &a, 0, d);
    ox_store_f64(OX_FLOAT16, &b, 0, v);
    return a == b;
  }
  default: return d == v;
  }
}

/* The shortest digits of finite v != 0 that round-trip in dt: digits[] gets
 * them (no sign, no point), *e10 the decimal exponent of the first digit. */
static int shortest(ox_dtype dt, double v, char *digits, int *e10) {
  char buf[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, fabs(v));
    if (p < 17 && !round_trips(dt, strtod(buf, NULL), fabs(v))) continue;
    int n = 0;
    const char *s = buf;
    for (; *s && *s != 'e'; s++)
      if (isdigit((unsigned char)*s)) digits[n++] = *s;
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = 0;
    *e10 = atoi(s + 1);
    return n;
  }
  return 0; /* not reached */
}

/* numpy's str() of v, in the precision of dt. out: at least 64 bytes. */
static int format_real(ox_dtype dt, double v, char *out) {
  if (isnan(v)) return sprintf(out, "nan");
  if (isinf(v)) return sprintf(out, v < 0 ? "-inf" : "inf");
  char *o = out, digits[24];
  if (signbit(v)) *o++ = '-';
  if (v == 0) return (int)(o - out) + sprintf(o, "0.0");
  int e, n = shortest(dt, v, digits, &e);
  double a = fabs(v);
  if (a >= 1e-4 && a < 1e16) { /* positional */
    if (e < 0) {
      o += sprintf(o, "0.");
      for (int k = 0; k < -e - 1; k++) *o++ = '0';
      o += sprintf(o, "%s", digits);
    } else {
      for (int k = 0; k <= e; k++) *o++ = k < n ? digits[k] : '0';
      *o++ = '.';
      if (n > e + 1) o += sprintf(o, "%s", digits + e + 1);
      else *o++ = '0';
    }
    *o = 0;
  } else {
    *o++ = digits[0];
    if (n > 1) o += sprintf(o, ".%s", digits + 1);
    o += sprintf(o, "e%c%02d", e < 0 ? '-' : '+', abs(e));
  }
  return (int)(o - out);
}

/* Element i of a numeric buffer as numpy prints it. */
static int format_elem(ox_dtype dt, const void *x, int64_t i, char *out) {
  if (dt == OX_BOOL) return sprintf(out, ((const uint8_t *)x)[i] ? "True" : "False");
  if (ox_dtype_is_unsigned_int(dt))
    return sprintf(out, "%llu", (unsigned long long)ox_load_u64(dt, x, i));
  if (is_intlike(dt)) return sprintf(out, "%lld", (long long)ox_load_i64(dt, x, i));
  double v = ox_load_f64(dt, x, i);
  ox_dtype prec = dt == OX_FLOAT || dt == OX_FLOAT16 ? dt : OX_DOUBLE;
  return format_real(prec, v, out);
}

/* ---- strings to numbers ----
 * Cast-9 on: plain and scientific notation ("3.14", "1e-5", "1E8"), and the
 * case-insensitive literals "INF", "+INF", "-INF", "NaN" (strtod accepts
 * these, and also "infinity"). Surrounding white space is allowed, as
 * Python's float() does. A string that is no number is an error (the spec
 * leaves it undefined). Integer targets read integer strings exactly (int64
 * does not fit a double); other strings ("100.5") go through the double. */

static int at_end(const char *p, const char *end) {
  while (p < end && isspace((unsigned char)*p)) p++;
  return p == end;
}

static int parse_store(ox_ctx *c, const ox_str *s, int64_t i, ox_dtype dt, void *y,
                       const cast_opts *o) {
  const char *p = s->p, *end = s->p + s->n, *q;
  while (p < end && isspace((unsigned char)*p)) p++;
  if (is_intlike(dt) && p < end) {
    errno = 0;
    long long v = strtoll(p, (char **)&q, 10);
    if (q > p && at_end(q, end) && !errno) {
      store_int(dt, y, i, v, 0, o);
      return 0;
    }
    if (errno == ERANGE && *p != '-') {
      errno = 0;
      unsigned long long u = strtoull(p, (char **)&q, 10);
      if (q > p && at_end(q, end) && !errno) {
        store_int(dt, y, i, (int64_t)u, 1, o);
        return 0;
      }
    }
    if (dt == OX_BOOL && (!strcasecmp(p, "true") || !strcasecmp(p, "false"))) {
      ((uint8_t *)y)[i] = (p[0] | 0x20) == 't';
      return 0;
    }
  }
  double d = p < end ? strtod(p, (char **)&q) : 0;
  if (p == end || q == p || !at_end(q, end))
    return ox_fail(c->err, OX_EINPUT, "element %lld of %s, \"%.*s\", is not a number",
                   (long long)i, ox_input_name(c, 0), s->n > 40 ? 40 : (int)s->n, s->p);
  store_real(dt, y, i, d, o);
  return 0;
}

/* ---- the kernels ---- */

/* float to and from float16 and bfloat16: many at a time (core/half.h), the
 * same bits as the element-by-element path; split over the threads */
static int halves(ox_dtype from, ox_dtype to) {
  int h_from = from == OX_FLOAT16 || from == OX_BFLOAT16, h_to = to == OX_FLOAT16 || to == OX_BFLOAT16;
  return (from == OX_FLOAT && h_to) || (h_from && to == OX_FLOAT);
}

typedef struct { ox_dtype from, to; const void *x; void *y; } half_job;

static void half_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  const half_job *j = arg;
  if (j->to == OX_FLOAT) ox_widen_f32_n(j->from, j->x, lo, hi - lo, (float *)j->y + lo);
  else ox_narrow_f32_n((const float *)j->x + lo, hi - lo, j->to, j->y, lo);
}

/* The numeric pairs of plain C types (integers and bool to the integers,
 * float and double; double to float): one typed loop per pair, split over
 * the threads. A C conversion is what the element-by-element path gives:
 * an integer target keeps the low bits (two's complement wrap, GCC's
 * conversion), a float target rounds once to nearest even; a bool source is
 * 0 or 1. Bool targets (v != 0) and float sources to integers (truncation
 * with the out-of-range rule above) stay on the general loops. */
typedef void (*typed_fn)(const void *x, void *y, int64_t lo, int64_t hi);
/* the sources, for each target: X(FROM, source C type, TO, target C type) */
#define CAST_SOURCES(X, TO, TT)                                                       \
  X(INT8, int8_t, TO, TT) X(INT16, int16_t, TO, TT) X(INT32, int32_t, TO, TT)          \
  X(INT64, int64_t, TO, TT) X(UINT8, uint8_t, TO, TT) X(UINT16, uint16_t, TO, TT)      \
  X(UINT32, uint32_t, TO, TT) X(UINT64, uint64_t, TO, TT) X(BOOL, uint8_t, TO, TT)
#define CAST_TARGETS(X)                                                               \
  CAST_SOURCES(X, FLOAT, float) CAST_SOURCES(X, DOUBLE, double)                       \
  CAST_SOURCES(X, INT8, int8_t) CAST_SOURCES(X, INT16, int16_t)                       \
  CAST_SOURCES(X, INT32, int32_t) CAST_SOURCES(X, INT64, int64_t)                     \
  CAST_SOURCES(X, UINT8, uint8_t) CAST_SOURCES(X, UINT16, uint16_t)                   \
  CAST_SOURCES(X, UINT32, uint32_t) CAST_SOURCES(X, UINT64, uint64_t)                 \
  X(DOUBLE, double, FLOAT, float)
/* By blocks of 16 (a loop of known length, which -O2's vectorizer takes:
 * int32 to float, the Cast after MatMulInteger, runs as cvtdq2ps), then
 * the rest; x and y never overlap (the output is new). */
#define TYPED_FN(FROM, TF, TO, TT)                                                    \
  static void typed_##FROM##_##TO(const void *x, void *y, int64_t lo, int64_t hi) {    \
    const TF *restrict X = x;                                                         \
    TT *restrict Y = y;                                                               \
    int64_t i = lo;                                                                   \
    for (; i + 16 <= hi; i += 16)                                                     \
      for (int k = 0; k < 16; k++) Y[i + k] = (TT)X[i + k];                           \
    for (; i < hi; i++) Y[i] = (TT)X[i];                                              \
  }
CAST_TARGETS(TYPED_FN)
#undef TYPED_FN

/* The typed loop for (from, to), or NULL. */
static typed_fn typed_pair(ox_dtype from, ox_dtype to) {
#define PAIR(FROM, TF, TO, TT)                                                        \
  if (from == OX_##FROM && to == OX_##TO) return typed_##FROM##_##TO;
  CAST_TARGETS(PAIR)
#undef PAIR
  return NULL;
}

typedef struct { typed_fn fn; const void *x; void *y; } typed_job;

static void typed_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  const typed_job *j = arg;
  j->fn(j->x, j->y, lo, hi);
}

/* The other numeric pairs, elements [lo, hi): through int64 from the
 * integers, else through double (store_real's rules). */
typedef struct {
  ox_dtype from, to;
  const void *x;
  void *y;
  const cast_opts *o;
} general_job;

static void general_chunk(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)slot;
  const general_job *j = arg;
  if (is_intlike(j->from)) {
    int u64 = j->from == OX_UINT64;
    for (int64_t i = lo; i < hi; i++) store_int(j->to, j->y, i, ox_load_i64(j->from, j->x, i), u64, j->o);
  } else if (j->from == OX_FLOAT && j->to == OX_DOUBLE) { /* the common exact widening */
    const float *xf = j->x;
    double *yd = j->y;
    for (int64_t i = lo; i < hi; i++) yd[i] = xf[i];
  } else {
    for (int64_t i = lo; i < hi; i++) store_real(j->to, j->y, i, ox_load_f64(j->from, j->x, i), j->o);
  }
}

/* Convert tensor x to dtype `to` into a new output. */
static int convert(ox_ctx *c, const ox_value *in, ox_dtype to, const cast_opts *o,
                   ox_value **out) {
  const ox_tensor *t = &in->u.t;
  ox_dtype from = t->dt;
  if (from == to) { /* nothing to do: share the data */
    *out = ox_tensor_view(c->a, in);
    return *out ? 0 : ox_oom(c->err, NULL);
  }
  /* every element is written below (strings are zeroed all the same) */
  OX_TRY(ox_tensor_new_uninit(c->a, to, t->rank, t->dims, out, c->err));
  const void *x = t->data;
  void *y = (*out)->u.t.data;
  int64_t n = t->n;

  typed_fn fn = typed_pair(from, to);
  if (halves(from, to)) {
    half_job j = {from, to, x, y};
    int nch = ox_par_chunks_mem(c->threads, n, (double)(ox_dtype_size(from) + ox_dtype_size(to)) * (double)n);
    if (nch <= 1) half_chunk(&j, 0, 0, n);
    else ox_par_for(n, nch, half_chunk, &j);
  } else if (fn) {
    typed_job j = {fn, x, y};
    int nch = ox_par_chunks_mem(c->threads, n, (double)(ox_dtype_size(from) + ox_dtype_size(to)) * (double)n);
    if (nch <= 1) fn(x, y, 0, n);
    else ox_par_for(n, nch, typed_chunk, &j);
  } else if (to == OX_STRING) {
    ox_str *ys = y;
    char buf[64];
    for (int64_t i = 0; i < n; i++) {
      int len = format_elem(from, x, i, buf);
      char *p = ox_strndup(c->a, buf, (size_t)len);
      if (!p) return ox_oom(c->err, NULL);
      ys[i] = (ox_str){p, len};
    }
  } else if (from == OX_STRING) {
    const ox_str *xs = x;
    for (int64_t i = 0; i < n; i++) OX_TRY(parse_store(c, &xs[i], i, to, y, o));
  } else { /* element by element, split over the threads */
    general_job j = {from, to, x, y, o};
    int nch = ox_par_chunks(c->threads, n, 8.0 * (double)n);
    if (nch <= 1) general_chunk(&j, 0, 0, n);
    else ox_par_for(n, nch, general_chunk, &j);
  }
  return 0;
}

/* saturate (from 19) and round_mode (from 24). */
static int read_opts(ox_ctx *c, cast_opts *o) {
  o->saturate = c->version >= 19 ? ox_attr_int(c, "saturate", 1) != 0 : 1;
  o->fnuz_inf = c->version < 24 && o->saturate;
  o->round_mode = OX_E8M0_UP;
  if (c->version >= 24) {
    const char *rm = ox_attr_string(c, "round_mode", "up");
    if (!strcmp(rm, "up")) o->round_mode = OX_E8M0_UP;
    else if (!strcmp(rm, "down")) o->round_mode = OX_E8M0_DOWN;
    else if (!strcmp(rm, "nearest")) o->round_mode = OX_E8M0_NEAREST;
    else
      return ox_fail(c->err, OX_EINPUT, "round_mode is '%s'; it must be up, down or nearest", rm);
  }
  return c->err->code;
}

/* The 'to' attribute: an int from Cast-6, a type name ("FLOAT") in Cast-1. */
static int read_to(ox_ctx *c, uint64_t allowed, const char *op, ox_dtype *to) {
  const ox_attr *at = ox_attr_find(c, "to");
  if (!at) return ox_fail(c->err, OX_EINPUT, "the attribute 'to' is required");
  int64_t id;
  if (at->type == OX_ATTR_STRING && c->version < 6) {
    id = ox_dtype_from_name(at->s.p);
    if (!id) return ox_fail(c->err, OX_EINPUT, "to = '%s' is not a data type", at->s.p);
  } else if (at->type == OX_ATTR_INT) {
    id = at->i;
  } else {
    return ox_fail(c->err, OX_EINPUT, "attribute 'to' must be an int%s; it is of type %s%s",
                   c->version < 6 ? " or a type name" : "", ox_attr_type_name(at->type),
                   c->version >= 6 && at->type == OX_ATTR_STRING ? " (a type name is Cast-1's form)" : "");
  }
  if (!ox_dtype_valid(id))
    return ox_fail(c->err, OX_EINPUT, "to = %lld is not a TensorProto data type", (long long)id);
  if (!(allowed & (UINT64_C(1) << id))) {
    char buf[512];
    return ox_fail(c->err, OX_EINPUT, "to = %lld (%s) is not allowed; %s-%d casts to %s",
                   (long long)id, ox_dtypes[id].onnx_name, op, c->version,
                   type_list(allowed, buf, sizeof buf));
  }
  *to = (ox_dtype)id;
  return 0;
}

/* What the load hooks keep for a node: the options and (Cast, BitCast) the
 * target type, read once when the model is loaded */
typedef struct {
  cast_opts o;
  ox_dtype to;
} cast_state;

static int new_state(ox_ctx *c, void **state) {
  cast_state *st = ox_alloc(c->a, sizeof *st);
  if (!st) return ox_oom(c->err, NULL);
  *state = st;
  return 0;
}
static int cast_load(ox_ctx *c, void **state) {
  OX_TRY(new_state(c, state));
  cast_state *st = *state;
  OX_TRY(read_to(c, cast_types(c->version), "Cast", &st->to));
  return read_opts(c, &st->o);
}
static int castlike_load(ox_ctx *c, void **state) {
  OX_TRY(new_state(c, state));
  return read_opts(c, &((cast_state *)*state)->o);
}
static int bitcast_load(ox_ctx *c, void **state) {
  OX_TRY(new_state(c, state));
  return read_to(c, TS_BITCAST, "BitCast", &((cast_state *)*state)->to);
}

static int cast(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  const cast_state *st = c->state;
  OX_TRY(ox_need_tensor(c, in[0], 0));
  return convert(c, in[0], st->to, &st->o, &out[0]);
}

/* CastLike-15: cast input 0 to the element type of input 1. */
static int cast_like(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  OX_TRY(ox_need_tensor(c, in[0], 0));
  OX_TRY(ox_need_tensor(c, in[1], 1));
  ox_dtype to = in[1]->u.t.dt;
  uint64_t allowed = cast_types(c->version);
  if (!(allowed & (UINT64_C(1) << to))) {
    char buf[512];
    return ox_fail(c->err, OX_EINPUT, "%s is %s; T2 must be one of %s", ox_input_name(c, 1),
                   ox_dtypes[to].onnx_name, type_list(allowed, buf, sizeof buf));
  }
  return convert(c, in[0], to, &((const cast_state *)c->state)->o, &out[0]);
}

/* BitCast-26: the same bits read as another type of the same width. The 4-
 * and 2-bit types are one element per byte in memory (low bits, signed types
 * sign-extended), so between them only the extension changes. */
static int bitcast(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  ox_dtype to = ((const cast_state *)c->state)->to;
  OX_TRY(ox_need_tensor(c, in[0], 0));
  const ox_tensor *t = &in[0]->u.t;
  int bits = ox_dtypes[t->dt].file_bits, tbits = ox_dtypes[to].file_bits;
  if (bits != tbits)
    return ox_fail(c->err, OX_EINPUT, "%s is %s (%d bits) but 'to' is %s (%d bits); BitCast "
                   "needs types of the same width", ox_input_name(c, 0),
                   ox_dtypes[t->dt].onnx_name, bits, ox_dtypes[to].onnx_name, tbits);
  if (bits >= 8) { /* whole bytes: share them */
    *out = ox_tensor_view(c->a, in[0]);
    if (!*out) return ox_oom(c->err, NULL);
    (*out)->u.t.dt = to;
    return 0;
  }
  OX_TRY(ox_tensor_new(c->a, to, t->rank, t->dims, &out[0], c->err));
  const uint8_t *x = t->data;
  uint8_t *y = out[0]->u.t.data, mask = (uint8_t)((1u << bits) - 1), top = (uint8_t)(1u << (bits - 1));
  int sign = ox_dtype_is_signed_int(to);
  for (int64_t i = 0; i < t->n; i++) {
    uint8_t v = x[i] & mask;
    y[i] = sign && (v & top) ? (uint8_t)(v | ~mask) : v;
  }
  return 0;
}

const ox_kernel ox_cast_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Cast",      1, 0, TS_1,       1, 1, cast, "to:string:required", cast_load },
  { "", "Cast",      6, 0, TS_1,       1, 1, cast, "to:int:required", cast_load },
  { "", "Cast",      9, 0, TS_9,       1, 1, cast, OX_ATTRS_OF(6), cast_load },
  { "", "Cast",     13, 0, TS_13,      1, 1, cast, OX_ATTRS_OF(6), cast_load },
  { "", "Cast",     19, 0, TS_19,      1, 1, cast, "saturate:int=1,to:int:required", cast_load },
  { "", "Cast",     21, 0, TS_21,      1, 1, cast, OX_ATTRS_OF(19), cast_load },
  { "", "Cast",     23, 0, TS_23,      1, 1, cast, OX_ATTRS_OF(19), cast_load },
  { "", "Cast",     24, 0, TS_24,      1, 1, cast,
    "round_mode:string=up,saturate:int=1,to:int:required", cast_load },
  { "", "Cast",     25, 0, TS_25,      1, 1, cast, OX_ATTRS_OF(24), cast_load },
  { "", "CastLike", 15, 0, TS_13,      2, 2, cast_like, "", castlike_load },
  { "", "CastLike", 19, 0, TS_19,      2, 2, cast_like, "saturate:int=1", castlike_load },
  { "", "CastLike", 21, 0, TS_21,      2, 2, cast_like, OX_ATTRS_OF(19), castlike_load },
  { "", "CastLike", 23, 0, TS_23,      2, 2, cast_like, OX_ATTRS_OF(19), castlike_load },
  { "", "CastLike", 24, 0, TS_24,      2, 2, cast_like, "round_mode:string=up,saturate:int=1", castlike_load },
  { "", "CastLike", 25, 0, TS_25,      2, 2, cast_like, OX_ATTRS_OF(24), castlike_load },
  { "", "BitCast",  26, 0, TS_BITCAST, 1, 1, bitcast, "to:int:required", bitcast_load },
  {0},
};
