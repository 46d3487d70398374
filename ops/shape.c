/* ops/shape.c: Identity and Constant.
 *
 * Both only hand values over: Identity returns its input (sharing the data)
 * and Constant returns its attribute's tensor, or builds a small one from
 * value_float(s), value_int(s) or value_string(s). */
#include <stdio.h>
#include <string.h>

#include "core/registry.h"

/* The tensor types, as each version grew them. */
#define TS_13 (OX_TS_CLASSIC | OX_T(BFLOAT16))
#define TS_19 (TS_13 | OX_T(FLOAT8E4M3FN) | OX_T(FLOAT8E4M3FNUZ) | OX_T(FLOAT8E5M2) |      \
               OX_T(FLOAT8E5M2FNUZ))
#define TS_21 (TS_19 | OX_T(UINT4) | OX_T(INT4))
#define TS_23 (TS_21 | OX_T(FLOAT4E2M1))
#define TS_24 (TS_23 | OX_T(FLOAT8E8M0))
#define TS_25 (TS_24 | OX_T(UINT2) | OX_T(INT2))

/* A copy of a value's header, sharing its data. */
static int share(ox_ctx *c, const ox_value *v, ox_value **out) {
  *out = ox_tensor_view(c->a, v);
  return *out ? 0 : ox_fail(c->err, OX_EINPUT, "out of memory");
}

/* Identity-1 and -13 take tensors, -14 also sequences, -16 also optionals.
 * (The spec's sequence and optional types keep the 15 classic element types
 * while the tensor list grows; we do not hold sequences to the shorter list,
 * since SplitToSequence-24 itself makes sequences of bfloat16.) */
static int identity(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_value *v = in[0];
  int ok = v->kind == OX_TENSOR || (v->kind == OX_SEQUENCE && c->version >= 14) ||
           (v->kind == OX_OPTIONAL && c->version >= 16);
  if (!ok) {
    char desc[128];
    return ox_fail(c->err, OX_EINPUT, "%s is %s; Identity takes a tensor, a sequence (from "
                   "opset 14) or an optional (from opset 16)",
                   ox_input_name(c, 0), ox_value_desc(v, desc, sizeof desc));
  }
  return share(c, v, &out[0]);
}

/* ---- Constant ---- */

/* Its attributes: exactly one must be set, each from the version that added it. */
static const struct {
  const char *name;
  int since;
  ox_attr_type type;
} constant_attrs[] = {
    {"value", 1, OX_ATTR_TENSOR},
    {"sparse_value", 11, OX_ATTR_SPARSE_TENSOR}, /* the loader densifies it into attr->t */
    {"value_float", 12, OX_ATTR_FLOAT},
    {"value_floats", 12, OX_ATTR_FLOATS},
    {"value_int", 12, OX_ATTR_INT},
    {"value_ints", 12, OX_ATTR_INTS},
    {"value_string", 12, OX_ATTR_STRING},
    {"value_strings", 12, OX_ATTR_STRINGS},
};
enum { NCONST_ATTRS = sizeof constant_attrs / sizeof constant_attrs[0] };

extern const ox_kernel ox_shape_kernels[];

/* The first version whose Constant row allows dt (the table is the truth),
 * or 0 if none does. */
static int constant_since(ox_dtype dt) {
  for (const ox_kernel *k = ox_shape_kernels; k->op; k++)
    if (!strcmp(k->op, "Constant") && (k->types & (UINT64_C(1) << dt))) return k->since;
  return 0;
}

static const char *attr_type_name(int t) {
  static const char *names[] = {"undefined", "float", "int", "string", "tensor", "graph",
                                "floats", "ints", "strings", "tensors", "graphs",
                                "sparse_tensor", "sparse_tensors", "type_proto", "type_protos"};
  return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "unknown";
}

/* A new 1-D tensor of n elements of type dt, copied from src. */
static int vector(ox_ctx *c, ox_dtype dt, int64_t n, const void *src, ox_value **out) {
  OX_TRY(ox_tensor_new(c->a, dt, 1, &n, out, c->err));
  if (n) memcpy((*out)->u.t.data, src, (size_t)n * ox_dtype_size(dt));
  return 0;
}

static int constant(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_attr *at = NULL;
  int found = 0, which = -1;
  char names[256] = "";
  for (int i = 0; i < NCONST_ATTRS; i++) {
    const ox_attr *a = ox_attr_find(c, constant_attrs[i].name);
    if (!a) continue;
    if (c->version < constant_attrs[i].since)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' needs opset %d or later", a->name,
                     constant_attrs[i].since);
    size_t len = strlen(names);
    snprintf(names + len, sizeof names - len, "%s%s", found ? ", " : "", a->name);
    found++;
    at = a;
    which = i;
  }
  if (found != 1) {
    if (c->version < 11)
      return ox_fail(c->err, OX_EINPUT, "the attribute 'value' is required");
    if (found == 0)
      return ox_fail(c->err, OX_EINPUT, "no value is given: set exactly one of value, "
                     "sparse_value%s", c->version >= 12 ? " or value_*" : "");
    return ox_fail(c->err, OX_EINPUT, "exactly one value attribute may be set; found %d (%s)",
                   found, names);
  }

  /* value and sparse_value (densified by the loader) both arrive in at->t. */
  ox_attr_type want = constant_attrs[which].type;
  int is_tensor = want == OX_ATTR_TENSOR || want == OX_ATTR_SPARSE_TENSOR;
  if (is_tensor ? !at->t : at->type != want)
    return ox_fail(c->err, OX_EINPUT, "attribute '%s' is of type %s; expected %s", at->name,
                   attr_type_name(at->type), attr_type_name(want));

  switch (want) {
  case OX_ATTR_TENSOR:
  case OX_ATTR_SPARSE_TENSOR: {
    const ox_value *t = at->t;
    if (t->kind != OX_TENSOR)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' does not hold a tensor", at->name);
    const char *dtn = ox_dtypes[t->u.t.dt].onnx_name;
    int since = constant_since(t->u.t.dt);
    if (!since)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' holds %s elements; Constant does "
                     "not allow that type", at->name, dtn);
    if (since > c->version)
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' holds %s elements; Constant allows "
                     "that type from opset %d", at->name, dtn, since);
    return share(c, t, &out[0]);
  }
  case OX_ATTR_FLOAT: /* a float32 scalar */
    OX_TRY(ox_scalar_new(c->a, OX_FLOAT, &out[0], c->err));
    *(float *)out[0]->u.t.data = at->f;
    return 0;
  case OX_ATTR_INT: /* an int64 scalar */
    OX_TRY(ox_scalar_new(c->a, OX_INT64, &out[0], c->err));
    *(int64_t *)out[0]->u.t.data = at->i;
    return 0;
  case OX_ATTR_STRING: /* a string scalar (the bytes are shared) */
    OX_TRY(ox_scalar_new(c->a, OX_STRING, &out[0], c->err));
    *(ox_str *)out[0]->u.t.data = at->s;
    return 0;
  case OX_ATTR_FLOATS: return vector(c, OX_FLOAT, at->n, at->floats, &out[0]);
  case OX_ATTR_INTS: return vector(c, OX_INT64, at->n, at->ints, &out[0]);
  case OX_ATTR_STRINGS: return vector(c, OX_STRING, at->n, at->strings, &out[0]);
  default: return ox_fail(c->err, OX_EINPUT, "internal error: attribute type %d", want);
  }
}

/* Identity constrains input 0; Constant has no input, so its `types` column
 * says which dtypes its value tensor may have (the kernel checks them).
 * Constant-1 lists only float16, float and double, but exporters of the
 * opset 1-8 era wrote int64 constants (Reshape shapes) that runtimes accept,
 * so we take the classic 15 there as Constant-9 does. */
const ox_kernel ox_shape_kernels[] = {
/*  domain  op          since until      tin types           in     fn */
  { "", "Identity",        1, 12,         0, OX_TS_CLASSIC,   1, 1,  identity },
  { "", "Identity",       13, 13,         0, TS_13,           1, 1,  identity },
  { "", "Identity",       14, 15,         0, TS_13,           1, 1,  identity }, /* + sequences */
  { "", "Identity",       16, 18,         0, TS_13,           1, 1,  identity }, /* + optionals */
  { "", "Identity",       19, 20,         0, TS_19,           1, 1,  identity },
  { "", "Identity",       21, 22,         0, TS_21,           1, 1,  identity },
  { "", "Identity",       23, 23,         0, TS_23,           1, 1,  identity },
  { "", "Identity",       24, 24,         0, TS_24,           1, 1,  identity },
  { "", "Identity",       25, OX_LATEST,  0, TS_25,           1, 1,  identity },
  { "", "Constant",        1, 8,         -1, OX_TS_CLASSIC,   0, 0,  constant },
  { "", "Constant",        9, 10,        -1, OX_TS_CLASSIC,   0, 0,  constant },
  { "", "Constant",       11, 11,        -1, OX_TS_CLASSIC,   0, 0,  constant }, /* + sparse_value */
  { "", "Constant",       12, 12,        -1, OX_TS_CLASSIC,   0, 0,  constant }, /* + value_* */
  { "", "Constant",       13, 18,        -1, TS_13,           0, 0,  constant },
  { "", "Constant",       19, 20,        -1, TS_19,           0, 0,  constant },
  { "", "Constant",       21, 22,        -1, TS_21,           0, 0,  constant },
  { "", "Constant",       23, 23,        -1, TS_23,           0, 0,  constant },
  { "", "Constant",       24, 24,        -1, TS_24,           0, 0,  constant },
  { "", "Constant",       25, OX_LATEST, -1, TS_25,           0, 0,  constant },
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
