/* core/convert.c: scalar conversions between float and the small float types,
 * and generic element load/store by dtype (see "scalar conversions" in dtype.h).
 *
 * All the small binary float formats (float16, bfloat16, the float8 types and
 * float4e2m1) are handled by one rounding routine, round_code(), driven by a
 * table that says how many mantissa bits a format has, its exponent bias, its
 * largest finite code and which codes are Inf and NaN. float8e8m0 (a bare
 * exponent) has its own, smaller routine.
 *
 * Spec references:
 *   ONNX docs/Operators.md, Cast (Cast-19 .. Cast-25): the saturate tables for
 *     the float8 types and the e8m0 table;
 *   ONNX docs/docs/Float8.md (technical/float8.md): the float8 encodings;
 *   ml_dtypes (the reference implementation ONNX uses for numpy casts):
 *     float4_e2m1fn has no NaN, and NaN converts to code 0x8.
 */
#include <math.h>
#include <string.h>

#include "dtype.h"

/* ---- the binary small-float formats ---- */

typedef struct {
  int mbits;     /* stored mantissa bits */
  int bias;      /* exponent bias */
  uint32_t max;  /* code of the largest finite magnitude */
  uint32_t inf;  /* code of +Inf, 0 if the format has no Inf */
  uint32_t nan;  /* code of the canonical +NaN */
  uint32_t sign; /* the sign bit */
  int uz;        /* "fnuz": the sign bit alone is the only NaN, there is no -0 */
} fmt;

static const fmt F16 = {10, 15, 0x7BFF, 0x7C00, 0x7E00, 0x8000, 0};
static const fmt BF16 = {7, 127, 0x7F7F, 0x7F80, 0x7FC0, 0x8000, 0};
/* Float8.md: E4M3FN has no Inf, NaN is S.1111.111, max S.1111.110 = 448. */
static const fmt E4M3FN = {3, 7, 0x7E, 0, 0x7F, 0x80, 0};
/* E4M3FNUZ: bias 8, NaN is 1.0000.000 only, max S.1111.111 = 240. */
static const fmt E4M3FNUZ = {3, 8, 0x7F, 0, 0x80, 0x80, 1};
/* E5M2: IEEE-like, Inf S.11111.00, NaN S.11111.{01,10,11}, max 57344. */
static const fmt E5M2 = {2, 15, 0x7B, 0x7C, 0x7E, 0x80, 0};
/* E5M2FNUZ: bias 16, NaN 1.00000.00 only, max S.11111.11 = 57344. */
static const fmt E5M2FNUZ = {2, 16, 0x7F, 0, 0x80, 0x80, 1};
/* E2M1: {0, 0.5, 1, 1.5, 2, 3, 4, 6}, no Inf, no NaN (nan unused). */
static const fmt E2M1 = {1, 1, 0x7, 0, 0, 0x8, 0};

static const fmt *f8_fmt(ox_dtype dt) {
  switch (dt) {
  case OX_FLOAT8E4M3FN: return &E4M3FN;
  case OX_FLOAT8E4M3FNUZ: return &E4M3FNUZ;
  case OX_FLOAT8E5M2: return &E5M2;
  case OX_FLOAT8E5M2FNUZ: return &E5M2FNUZ;
  default: return NULL;
  }
}

/* Round a finite a >= 0 to the nearest value of a format with `mbits` mantissa
 * bits and exponent bias `bias` (subnormals included), ties to even. Returns
 * the magnitude's code, exponent field << mbits | mantissa field. Past the
 * format's range the code simply keeps growing: the caller compares it with
 * the largest finite code to detect overflow.
 *
 * Working from a double makes the f32 entry points and the f64 stores share
 * the code, and rounds a double in one step (no double rounding). */
static uint32_t round_code(double a, int mbits, int bias) {
  uint64_t bits;
  memcpy(&bits, &a, sizeof bits);
  int e = (int)(bits >> 52);                      /* biased exponent, 0: subnormal */
  uint64_t sig = bits & ((UINT64_C(1) << 52) - 1);
  if (e) sig |= UINT64_C(1) << 52;                /* the implicit leading 1 */
  else e = 1;
  int exp = e - 1023; /* now a == sig * 2^(exp - 52) */

  /* The target's spacing (ulp) near a is 2^(max(exp, emin) - mbits), so the
   * number of ulps in a is sig >> shift, rounded. */
  int emin = 1 - bias;
  int shift = 52 - mbits + (exp < emin ? emin - exp : 0);
  if (shift > 54) shift = 54; /* sig < 2^53, so this already rounds to 0 */
  uint64_t q = sig >> shift;
  uint64_t rest = sig & ((UINT64_C(1) << shift) - 1);
  uint64_t half = UINT64_C(1) << (shift - 1);
  if (rest > half || (rest == half && (q & 1))) q++;

  /* Normal range: q still holds the implicit 1 at bit mbits, so adding it to
   * (biased exponent - 1) << mbits gives the code, and a carry out of the
   * mantissa (1.111 -> 10.000) moves into the exponent by itself. Subnormal
   * range: q is the code (and q == 1 << mbits is the smallest normal). */
  uint64_t ebase = exp < emin ? 0 : (uint64_t)(exp + bias - 1);
  return (uint32_t)((ebase << mbits) + q);
}

/* x to format F. saturate: out-of-range values (Inf included) become the
 * largest finite value; otherwise they become Inf, or NaN if F has no Inf.
 * This is Cast-19's table for the float8 types; float16/bfloat16 pass
 * saturate = 0, the IEEE behaviour. */
static uint32_t encode(const fmt *F, double x, int saturate) {
  uint32_t s = signbit(x) ? F->sign : 0;
  uint32_t nan = F->uz ? F->sign : (F->nan | s); /* -NaN -> -NaN, except fnuz */
  if (isnan(x)) return nan;
  uint32_t c = isinf(x) ? UINT32_MAX : round_code(fabs(x), F->mbits, F->bias);
  if (c > F->max) {
    if (saturate) c = F->max;
    else if (F->inf) c = F->inf;
    else return nan;
  }
  if (F->uz && c == 0) return 0; /* fnuz has no -0: -0 and tiny negatives give +0 */
  return c | s;
}

/* Code c of format F to float (exact: every such value is a float). NaN codes
 * give a quiet NaN of the code's sign (fnuz: +NaN). */
static float decode(const fmt *F, uint32_t c) {
  int neg = (c & F->sign) != 0;
  uint32_t mag = c & (F->sign - 1);
  if (F->uz && c == F->sign) return NAN;
  if (F->inf && mag == F->inf) return neg ? -INFINITY : INFINITY;
  if (mag > F->max) return copysignf(NAN, neg ? -1.0f : 1.0f);
  uint32_t e = mag >> F->mbits, m = mag & ((1u << F->mbits) - 1);
  float v = e ? ldexpf((float)(m | (1u << F->mbits)), (int)e - F->bias - F->mbits)
              : ldexpf((float)m, 1 - F->bias - F->mbits);
  return neg ? -v : v;
}

/* ---- float8e8m0: 2^(code - 127), 0xFF is NaN, no sign, no zero ---- */

/* Cast-24/25: round_mode "up" (the default) rounds away from zero, "down"
 * towards zero, "nearest" to nearest with ties up (1.5 * 2^k goes to 2^(k+1),
 * as onnx.numpy_helper.to_float8e8m0 does). The spec's table:
 *
 *   x              saturate + up   non-saturate + nearest
 *   0              0 (code 0x00)   NaN
 *   NaN            NaN             NaN
 *   Inf            E8M0_MAX        NaN
 *   x > E8M0_MAX   E8M0_MAX        NaN
 *   x < E8M0_MIN   E8M0_MIN        NaN
 *   x < 0          unspecified     unspecified
 *
 * We read "x > MAX" / "x < MIN" on the rounded value (as the float8 table
 * does with [x]). A negative x is unspecified; like the reference, which only
 * reads the exponent bits, we use |x|. */
static uint8_t to_e8m0(double x, int saturate, int mode) {
  if (isnan(x)) return 0xFF;
  double a = fabs(x);
  if (isinf(a)) return saturate ? 0xFE : 0xFF;
  if (a == 0) return saturate ? 0x00 : 0xFF;
  int e;
  double m = 2 * frexp(a, &e); /* a == m * 2^(e - 1), 1 <= m < 2 */
  int k = e - 1;
  if ((mode == OX_E8M0_UP && m > 1) || (mode == OX_E8M0_NEAREST && m >= 1.5)) k++;
  if (k > 127) return saturate ? 0xFE : 0xFF;
  if (k < -127) /* rounding up from below 2^-127 lands on 2^-127 exactly */
    return (saturate || mode == OX_E8M0_UP) ? 0x00 : 0xFF;
  return (uint8_t)(k + 127);
}

/* ---- float4e2m1 ---- */

/* Saturating RNE (Inf and overflow go to +-6). float4 has no NaN: like
 * ml_dtypes (which produced the ONNX test data), NaN gives its quiet_NaN()
 * code 0x8 (-0), negated for a negative NaN, i.e. 0x0. */
static uint8_t to_f4(double x) {
  if (isnan(x)) return signbit(x) ? 0x0 : 0x8;
  return (uint8_t)encode(&E2M1, x, 1);
}

/* ---- the public scalar conversions ---- */

float ox_f16_to_f32(uint16_t h) { return decode(&F16, h); }
uint16_t ox_f32_to_f16(float f) { return (uint16_t)encode(&F16, f, 0); }

float ox_bf16_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16; /* bfloat16 is the top half of a float */
  if ((h & 0x7F80) == 0x7F80 && (h & 0x7F)) bits |= 0x400000; /* quiet the NaN */
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
uint16_t ox_f32_to_bf16(float f) { return (uint16_t)encode(&BF16, f, 0); }

float ox_f8_to_f32(ox_dtype dt, uint8_t v) {
  if (dt == OX_FLOAT8E8M0) return v == 0xFF ? NAN : ldexpf(1.0f, (int)v - 127);
  const fmt *F = f8_fmt(dt);
  return F ? decode(F, v) : NAN;
}

uint8_t ox_f32_to_f8(ox_dtype dt, float f, int saturate) {
  /* The header has no round_mode: e8m0 takes Cast's default, "up". */
  if (dt == OX_FLOAT8E8M0) return to_e8m0(f, saturate, OX_E8M0_UP);
  const fmt *F = f8_fmt(dt);
  return F ? (uint8_t)encode(F, f, saturate) : 0;
}

uint8_t ox_f32_to_e8m0(float f, int saturate, int mode) { return to_e8m0(f, saturate, mode); }

float ox_f4_to_f32(uint8_t v) { return decode(&E2M1, v & 0xF); }
uint8_t ox_f32_to_f4(float f) { return to_f4(f); }

/* ---- element load/store by dtype ----
 * Integer elements are read by their size and signedness (so one switch
 * serves every integer type); the float types each have a case. */

static int is_intlike(ox_dtype dt) {
  return dt == OX_BOOL || ox_dtype_is_signed_int(dt) || ox_dtype_is_unsigned_int(dt);
}

static void *elem(ox_dtype dt, const void *data, int64_t i) {
  return (char *)data + (size_t)i * ox_dtype_size(dt);
}

/* Integer element at p, sign-extended or zero-extended to 64 bits (a uint64
 * above INT64_MAX comes back as its two's-complement bits). */
static int64_t load_int(ox_dtype dt, const void *p) {
  int s = ox_dtype_is_signed_int(dt);
  switch (ox_dtype_size(dt)) {
  case 1: return s ? *(const int8_t *)p : (int64_t)*(const uint8_t *)p;
  case 2: return s ? *(const int16_t *)p : (int64_t)*(const uint16_t *)p;
  case 4: return s ? *(const int32_t *)p : (int64_t)*(const uint32_t *)p;
  default: return *(const int64_t *)p;
  }
}

/* Store v into the integer element at p, keeping the low bits (two's
 * complement wrap, as Cast does between integer types). The 4-bit and 2-bit
 * types wrap to their width and signed ones are kept sign-extended; bool
 * stores v != 0. */
static void store_int(ox_dtype dt, void *p, int64_t v) {
  if (dt == OX_BOOL) { *(uint8_t *)p = v != 0; return; }
  uint64_t u = (uint64_t)v;
  int bits = ox_dtypes[dt].file_bits;
  if (bits < 8) {
    uint64_t top = UINT64_C(1) << (bits - 1);
    u &= (top << 1) - 1;
    if (ox_dtype_is_signed_int(dt) && (u & top)) u |= ~((top << 1) - 1);
  }
  switch (ox_dtype_size(dt)) {
  case 1: *(uint8_t *)p = (uint8_t)u; break;
  case 2: *(uint16_t *)p = (uint16_t)u; break;
  case 4: *(uint32_t *)p = (uint32_t)u; break;
  default: *(uint64_t *)p = u; break;
  }
}

/* double -> integer, truncating toward zero, without C's undefined behaviour
 * out of range: NaN gives 0, the rest clamps to the type's range. */
static int64_t f64_to_i64(double v) {
  if (isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}
static uint64_t f64_to_u64(double v) {
  if (v >= 9223372036854775808.0)
    return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
  return (uint64_t)f64_to_i64(v); /* negatives wrap, as on common hardware */
}

/* int64 -> double rounded to odd: truncate to 53 bits and set the last bit if
 * anything was cut. Rounding that double again to a format of 24 bits or fewer
 * gives the correctly rounded result (no double-rounding error). */
static double i64_to_f64_odd(int64_t v) {
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  int s = 0;
  while ((u >> s) >= (UINT64_C(1) << 53)) s++;
  uint64_t m = u >> s;
  if (u & ((UINT64_C(1) << s) - 1)) m |= 1;
  double d = ldexp((double)m, s);
  return v < 0 ? -d : d;
}

double ox_load_f64(ox_dtype dt, const void *data, int64_t i) {
  const void *p = elem(dt, data, i);
  switch (dt) {
  case OX_FLOAT: return *(const float *)p;
  case OX_DOUBLE: return *(const double *)p;
  case OX_COMPLEX64: return ((const ox_c64 *)p)->re;
  case OX_COMPLEX128: return ((const ox_c128 *)p)->re;
  case OX_FLOAT16: return ox_f16_to_f32(*(const uint16_t *)p);
  case OX_BFLOAT16: return ox_bf16_to_f32(*(const uint16_t *)p);
  case OX_FLOAT8E4M3FN: case OX_FLOAT8E4M3FNUZ: case OX_FLOAT8E5M2:
  case OX_FLOAT8E5M2FNUZ: case OX_FLOAT8E8M0:
    return ox_f8_to_f32(dt, *(const uint8_t *)p);
  case OX_FLOAT4E2M1: return ox_f4_to_f32(*(const uint8_t *)p);
  case OX_UINT64: return (double)*(const uint64_t *)p;
  default: return is_intlike(dt) ? (double)load_int(dt, p) : NAN; /* strings */
  }
}

double ox_round_to(ox_dtype dt, double v) {
  if (dt == OX_DOUBLE || !ox_dtype_is_float(dt)) return v;
  if (dt == OX_FLOAT) return (double)(float)v;
  unsigned char b[16];
  ox_store_f64(dt, b, 0, v);
  return ox_load_f64(dt, b, 0);
}

void ox_store_f64(ox_dtype dt, void *data, int64_t i, double v) {
  void *p = elem(dt, data, i);
  switch (dt) {
  case OX_FLOAT: *(float *)p = (float)v; break;
  case OX_DOUBLE: *(double *)p = v; break;
  case OX_COMPLEX64: *(ox_c64 *)p = (ox_c64){(float)v, 0.0f}; break;
  case OX_COMPLEX128: *(ox_c128 *)p = (ox_c128){v, 0.0}; break;
  case OX_FLOAT16: *(uint16_t *)p = (uint16_t)encode(&F16, v, 0); break;
  case OX_BFLOAT16: *(uint16_t *)p = (uint16_t)encode(&BF16, v, 0); break;
  /* float8: Cast's defaults, saturate = 1 (and round_mode "up" for e8m0) */
  case OX_FLOAT8E4M3FN: case OX_FLOAT8E4M3FNUZ: case OX_FLOAT8E5M2: case OX_FLOAT8E5M2FNUZ:
    *(uint8_t *)p = (uint8_t)encode(f8_fmt(dt), v, 1);
    break;
  case OX_FLOAT8E8M0: *(uint8_t *)p = to_e8m0(v, 1, OX_E8M0_UP); break;
  case OX_FLOAT4E2M1: *(uint8_t *)p = to_f4(v); break;
  case OX_BOOL: *(uint8_t *)p = v != 0; break; /* Cast: only +-0 is False */
  case OX_UINT64: *(uint64_t *)p = f64_to_u64(v); break;
  default:
    if (is_intlike(dt)) store_int(dt, p, f64_to_i64(v));
    break;
  }
}

int64_t ox_load_i64(ox_dtype dt, const void *data, int64_t i) {
  if (is_intlike(dt)) return load_int(dt, elem(dt, data, i));
  return f64_to_i64(ox_load_f64(dt, data, i)); /* floats: truncate */
}

uint64_t ox_load_u64(ox_dtype dt, const void *data, int64_t i) {
  if (dt == OX_UINT64) return *(const uint64_t *)elem(dt, data, i);
  if (is_intlike(dt)) return (uint64_t)load_int(dt, elem(dt, data, i));
  return f64_to_u64(ox_load_f64(dt, data, i));
}

void ox_store_i64(ox_dtype dt, void *data, int64_t i, int64_t v) {
  void *p = elem(dt, data, i);
  switch (dt) {
  case OX_FLOAT: *(float *)p = (float)v; break;
  case OX_DOUBLE: *(double *)p = (double)v; break;
  case OX_COMPLEX64: *(ox_c64 *)p = (ox_c64){(float)v, 0.0f}; break;
  case OX_COMPLEX128: *(ox_c128 *)p = (ox_c128){(double)v, 0.0}; break;
  default:
    if (is_intlike(dt)) store_int(dt, p, v);
    else if (dt != OX_STRING) ox_store_f64(dt, data, i, i64_to_f64_odd(v));
    break;
  }
}
