/* core/dtype.c: the dtype table, generated from OX_DTYPES. */
#include <string.h>

#include "dtype.h"

const ox_dtype_info ox_dtypes[OX_DTYPE_MAX] = {
    [OX_UNDEFINED] = {"undefined", "undefined", "UNDEFINED", 0, 0},
#define X(NAME, id, on, nn, st, bits) [id] = {on, nn, #NAME, sizeof(st), bits},
    OX_DTYPES(X)
#undef X
};

int ox_dtype_valid(int64_t id) { return id > 0 && id < OX_DTYPE_MAX; }

const char *ox_dtype_name(ox_dtype dt) {
  return ox_dtype_valid((int)dt) ? ox_dtypes[dt].numpy_name : "?";
}

ox_dtype ox_dtype_from_name(const char *name) {
  if (!name) return OX_UNDEFINED;
  for (int i = 1; i < OX_DTYPE_MAX; i++)
    if (!strcmp(name, ox_dtypes[i].numpy_name) || !strcmp(name, ox_dtypes[i].onnx_name) ||
        !strcmp(name, ox_dtypes[i].enum_name))
      return (ox_dtype)i;
  /* a few common spellings the table lacks ("float64" and "string" are its
   * own: numpy's and ONNX's names) */
  if (!strcmp(name, "object")) return OX_STRING;
  if (!strcmp(name, "float4e2m1fn") || !strcmp(name, "float4_e2m1")) return OX_FLOAT4E2M1;
  if (!strcmp(name, "float8_e8m0")) return OX_FLOAT8E8M0;
  return OX_UNDEFINED;
}

int ox_dtype_is_float(ox_dtype dt) {
  switch (dt) {
  case OX_FLOAT: case OX_DOUBLE: case OX_FLOAT16: case OX_BFLOAT16:
  case OX_FLOAT8E4M3FN: case OX_FLOAT8E4M3FNUZ: case OX_FLOAT8E5M2:
  case OX_FLOAT8E5M2FNUZ: case OX_FLOAT4E2M1: case OX_FLOAT8E8M0:
    return 1;
  default:
    return 0;
  }
}

int ox_dtype_is_complex(ox_dtype dt) { return dt == OX_COMPLEX64 || dt == OX_COMPLEX128; }

int ox_dtype_is_signed_int(ox_dtype dt) {
  switch (dt) {
  case OX_INT8: case OX_INT16: case OX_INT32: case OX_INT64: case OX_INT4: case OX_INT2:
    return 1;
  default:
    return 0;
  }
}

int ox_dtype_is_unsigned_int(ox_dtype dt) {
  switch (dt) {
  case OX_UINT8: case OX_UINT16: case OX_UINT32: case OX_UINT64: case OX_UINT4: case OX_UINT2:
    return 1;
  default:
    return 0;
  }
}
