/* core/dtype.h: the one list of ONNX tensor element types.
 *
 * Everything that depends on a dtype (names, sizes, parsers, printers, kernels)
 * is generated from OX_DTYPES, keyed by ONNX's own TensorProto.DataType id.
 *
 * In memory every element takes a whole number of bytes: the 4-bit and 2-bit
 * types (uint4, int4, float4e2m1, uint2, int2) are stored one element per byte
 * (the low bits, signed types sign-extended). They are packed only in files
 * (raw_data / int32_data), so data-moving kernels never see packing.
 */
#ifndef OX_DTYPE_H
#define OX_DTYPE_H

#include <stddef.h>
#include <stdint.h>

/* A string element: bytes (not necessarily UTF-8), NUL-terminated for
 * convenience, n excludes the NUL. The bytes live in the run's arena. */
typedef struct { const char *p; int64_t n; } ox_str;
typedef struct { float re, im; } ox_c64;
typedef struct { double re, im; } ox_c128;

/* X(NAME, id, onnx_name, numpy_name, storage_t, file_bits)
 *   onnx_name:  as in ONNX type strings, tensor(float16)
 *   numpy_name: the dtype= name printed and used in JSON (ml_dtypes names for
 *               the small floats)
 *   storage_t:  the C type of one element in memory
 *   file_bits:  bits per element in raw_data (0: strings, not raw) */
#define OX_DTYPES(X)                                                                  \
  X(FLOAT,           1, "float",          "float32",         float,    32)            \
  X(UINT8,           2, "uint8",          "uint8",           uint8_t,   8)            \
  X(INT8,            3, "int8",           "int8",            int8_t,    8)            \
  X(UINT16,          4, "uint16",         "uint16",          uint16_t, 16)            \
  X(INT16,           5, "int16",          "int16",           int16_t,  16)            \
  X(INT32,           6, "int32",          "int32",           int32_t,  32)            \
  X(INT64,           7, "int64",          "int64",           int64_t,  64)            \
  X(STRING,          8, "string",         "str",             ox_str,    0)            \
  X(BOOL,            9, "bool",           "bool",            uint8_t,   8)            \
  X(FLOAT16,        10, "float16",        "float16",         uint16_t, 16)            \
  X(DOUBLE,         11, "double",         "float64",         double,   64)            \
  X(UINT32,         12, "uint32",         "uint32",          uint32_t, 32)            \
  X(UINT64,         13, "uint64",         "uint64",          uint64_t, 64)            \
  X(COMPLEX64,      14, "complex64",      "complex64",       ox_c64,   64)            \
  X(COMPLEX128,     15, "complex128",     "complex128",      ox_c128, 128)            \
  X(BFLOAT16,       16, "bfloat16",       "bfloat16",        uint16_t, 16)            \
  X(FLOAT8E4M3FN,   17, "float8e4m3fn",   "float8_e4m3fn",   uint8_t,   8)            \
  X(FLOAT8E4M3FNUZ, 18, "float8e4m3fnuz", "float8_e4m3fnuz", uint8_t,   8)            \
  X(FLOAT8E5M2,     19, "float8e5m2",     "float8_e5m2",     uint8_t,   8)            \
  X(FLOAT8E5M2FNUZ, 20, "float8e5m2fnuz", "float8_e5m2fnuz", uint8_t,   8)            \
  X(UINT4,          21, "uint4",          "uint4",           uint8_t,   4)            \
  X(INT4,           22, "int4",           "int4",            int8_t,    4)            \
  X(FLOAT4E2M1,     23, "float4e2m1",     "float4_e2m1fn",   uint8_t,   4)            \
  X(FLOAT8E8M0,     24, "float8e8m0",     "float8_e8m0fnu",  uint8_t,   8)            \
  X(UINT2,          25, "uint2",          "uint2",           uint8_t,   2)            \
  X(INT2,           26, "int2",           "int2",            int8_t,    2)

typedef enum {
  OX_UNDEFINED = 0,
#define X(NAME, id, on, nn, st, bits) OX_##NAME = id,
  OX_DTYPES(X)
#undef X
  OX_DTYPE_MAX
} ox_dtype;

/* Type-set bitmasks for the registry: bit (1 << id). */
#define OX_T(NAME) (UINT64_C(1) << OX_##NAME)
#define OX_TS_ALL_DTYPES                                                              \
  (((UINT64_C(1) << OX_DTYPE_MAX) - 1) & ~UINT64_C(1))
/* The 15 "classic" types of most ops' "all tensor types" before the small floats. */
#define OX_TS_CLASSIC                                                                 \
  (OX_T(FLOAT) | OX_T(UINT8) | OX_T(INT8) | OX_T(UINT16) | OX_T(INT16) |             \
   OX_T(INT32) | OX_T(INT64) | OX_T(STRING) | OX_T(BOOL) | OX_T(FLOAT16) |           \
   OX_T(DOUBLE) | OX_T(UINT32) | OX_T(UINT64) | OX_T(COMPLEX64) | OX_T(COMPLEX128))
#define OX_TS_INTS                                                                    \
  (OX_T(UINT8) | OX_T(INT8) | OX_T(UINT16) | OX_T(INT16) | OX_T(INT32) |             \
   OX_T(INT64) | OX_T(UINT32) | OX_T(UINT64))
#define OX_TS_FLOATS (OX_T(FLOAT) | OX_T(DOUBLE) | OX_T(FLOAT16) | OX_T(BFLOAT16))

typedef struct {
  const char *onnx_name;  /* "float16" */
  const char *numpy_name; /* "float16"; "float32" for FLOAT */
  const char *enum_name;  /* "FLOAT16", as in TensorProto.DataType */
  size_t size;            /* bytes per element in memory */
  int file_bits;          /* bits per element in raw_data, 0 for strings */
} ox_dtype_info;

extern const ox_dtype_info ox_dtypes[OX_DTYPE_MAX];

int ox_dtype_valid(int64_t id);                  /* 1..26; any int64, so an attribute is never narrowed */
const char *ox_dtype_name(ox_dtype dt);          /* numpy name, "?" if invalid */
ox_dtype ox_dtype_from_name(const char *name);   /* numpy, onnx or enum name; 0 if unknown */
static inline size_t ox_dtype_size(ox_dtype dt) { return ox_dtypes[dt].size; }
int ox_dtype_is_float(ox_dtype dt);    /* float, double and every small float */
int ox_dtype_is_complex(ox_dtype dt);
int ox_dtype_is_signed_int(ox_dtype dt);
int ox_dtype_is_unsigned_int(ox_dtype dt); /* includes uint4/uint2, not bool */

/* ---- scalar conversions (core/convert.c) ----
 * Narrowing float conversions round to nearest, ties to even. NaN and Inf are
 * kept where the format has them. Overflow follows Cast-25's saturate table:
 * with saturate != 0, values beyond the range (Inf included) clamp to the
 * largest finite value; without it they become NaN (e4m3fn, fnuz types) or
 * Inf (e5m2). float4e2m1 has neither and always saturates; NaN becomes 0x8
 * there, as ml_dtypes (which made the ONNX test data) does. e8m0 rounds "up",
 * Cast-25's default. */
float ox_f16_to_f32(uint16_t h);
uint16_t ox_f32_to_f16(float f);
float ox_bf16_to_f32(uint16_t h);
uint16_t ox_f32_to_bf16(float f);
float ox_f8_to_f32(ox_dtype dt, uint8_t v);              /* the four float8 types and e8m0 */
uint8_t ox_f32_to_f8(ox_dtype dt, float f, int saturate);
/* float8e8m0 with Cast-24's round_mode: "up" (ox_f32_to_f8's), "down", or
 * "nearest" (ties up) */
enum { OX_E8M0_UP, OX_E8M0_DOWN, OX_E8M0_NEAREST };
uint8_t ox_f32_to_e8m0(float f, int saturate, int mode);
float ox_f4_to_f32(uint8_t v);                           /* float4e2m1, low 4 bits */
uint8_t ox_f32_to_f4(float f);                           /* saturates (float4 has no Inf/NaN) */

/* Read element i of a buffer of type dt as a double (real part for complex,
 * 0/1 for bool). Not for strings. */
double ox_load_f64(ox_dtype dt, const void *data, int64_t i);
/* Store v into element i: floats round (RNE), integers truncate toward zero
 * and wrap as C does for in-range values; out-of-range is the caller's care. */
void ox_store_f64(ox_dtype dt, void *data, int64_t i, double v);
/* v rounded to a float type's precision (as storing and loading it would),
 * once, from the double; v itself for double and every type that is not a
 * float. For kernels that mirror arithmetic the ONNX reference does in the
 * input's type: one rounding per +, -, *, / of values of that type matches
 * the type's own operation (numpy's float16 arithmetic goes through float32,
 * which gives the same result: float32 has the 2p + 2 bits that make that
 * second rounding harmless). */
double ox_round_to(ox_dtype dt, double v);
/* Exact integer load/store for the integer types and bool (int64 and uint64
 * do not fit a double). */
int64_t ox_load_i64(ox_dtype dt, const void *data, int64_t i);
uint64_t ox_load_u64(ox_dtype dt, const void *data, int64_t i);
void ox_store_i64(ox_dtype dt, void *data, int64_t i, int64_t v);

#endif
