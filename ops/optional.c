/* ops/optional.c: Optional, OptionalHasElement and OptionalGetElement.
 *
 * An optional value holds one tensor or sequence, or nothing; an empty one
 * still knows the type it would hold (value->type->inner). Elements are
 * shared, never copied: values are not written after they are made. */
#include "core/registry.h"

/* A copy of a value's header, sharing its data. */
static int share(ox_ctx *c, const ox_value *v, ox_value **out) {
  *out = ox_tensor_view(c->a, v);
  return *out ? 0 : ox_oom(c->err, NULL);
}

/* What an optional may hold: a tensor, or a sequence of tensors. */
static int holdable(const ox_type *t) {
  return t && (t->kind == OX_TENSOR ||
               (t->kind == OX_SEQUENCE && t->inner && t->inner->kind == OX_TENSOR));
}

/* Optional-15: input present -> an optional holding it; absent -> an empty
 * optional of the element type given by the `type` attribute. */
static int optional_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  char desc[128];
  if (nin > 0 && in[0]) {
    const ox_type *t = ox_value_type(c->a, in[0]);
    if (!holdable(t))
      return ox_fail(c->err, OX_EINPUT, "%s is %s; an optional can hold a tensor or a sequence "
                     "of tensors", ox_input_name(c, 0), ox_value_desc(in[0], desc, sizeof desc));
    ox_value *x;
    OX_TRY(share(c, in[0], &x));
    return ox_opt_new(c->a, t, x, &out[0], c->err);
  }
  const ox_attr *at = ox_attr_find(c, "type");
  if (!at)
    return ox_fail(c->err, OX_EINPUT,
                   "no input and no 'type' attribute: the type of the empty optional is unknown");
  if (at->type != OX_ATTR_TYPE_PROTO || !at->tp)
    return ox_fail(c->err, OX_EINPUT, "attribute 'type' must be a type (TypeProto)");
  if (!holdable(at->tp) || !(OX_TS_CLASSIC & (UINT64_C(1) << ox_type_leaf(at->tp))))
    return ox_fail(c->err, OX_EINPUT,
                   "attribute 'type' is %s; it must be a tensor or a sequence of tensors of one "
                   "of the 15 classic types", ox_type_str(at->tp, desc, sizeof desc));
  return ox_opt_new(c->a, at->tp, NULL, &out[0], c->err);
}

/* OptionalHasElement-15 takes an optional; from 18 the input may also be a
 * tensor or a sequence (true) or be missing (false). */
static int has_element(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_value *v = nin > 0 ? in[0] : NULL;
  int has;
  if (!v) {
    has = 0; /* a missing input (opset 18), or an optional graph input not given */
  } else if (v->kind == OX_OPTIONAL) {
    has = v->u.opt != NULL;
  } else if (c->version >= 18 && (v->kind == OX_TENSOR || v->kind == OX_SEQUENCE)) {
    has = 1;
  } else {
    char desc[128];
    return ox_fail(c->err, OX_EINPUT, "%s is %s; expected an optional%s", ox_input_name(c, 0),
                   ox_value_desc(v, desc, sizeof desc),
                   c->version >= 18 ? ", a tensor or a sequence"
                                    : " (tensors and sequences are accepted from opset 18)");
  }
  OX_TRY(ox_scalar_new(c->a, OX_BOOL, &out[0], c->err));
  *(uint8_t *)out[0]->u.t.data = (uint8_t)has;
  return 0;
}

/* OptionalGetElement-15 takes an optional; from 18 a tensor or a sequence
 * passes through unchanged. */
static int get_element(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_value *v = in[0];
  if (v->kind == OX_OPTIONAL) {
    if (!v->u.opt) return ox_fail(c->err, OX_EINPUT, "the optional input has no element");
    return share(c, v->u.opt, &out[0]);
  }
  if (c->version >= 18 && (v->kind == OX_TENSOR || v->kind == OX_SEQUENCE))
    return share(c, v, &out[0]);
  char desc[128];
  return ox_fail(c->err, OX_EINPUT, "%s is %s; expected an optional%s", ox_input_name(c, 0),
                 ox_value_desc(v, desc, sizeof desc),
                 c->version >= 18 ? ", a tensor or a sequence"
                                  : " (tensors and sequences are accepted from opset 18)");
}

/* Every version allows the 15 classic tensor types, as tensors, sequences
 * of them and optionals of either; `types` constrains the innermost tensor
 * type of input 0. */
const ox_kernel ox_optional_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "Optional",           15, 0, OX_TS_CLASSIC, 0, 1, optional_k, "type:type_proto" },
  { "", "OptionalHasElement", 15, 0, OX_TS_CLASSIC, 1, 1, has_element, "" },
  { "", "OptionalHasElement", 18, 0, OX_TS_CLASSIC, 0, 1, has_element, "" },
  { "", "OptionalGetElement", 15, 0, OX_TS_CLASSIC, 1, 1, get_element, "" },
  { "", "OptionalGetElement", 18, 0, OX_TS_CLASSIC, 1, 1, get_element, "" },
  {0},
};
