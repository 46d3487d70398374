/* core/schema.h: the attributes each ONNX op-version declares.
 *
 * One row per op-version of docs/Changelog.md and docs/Changelog-ml.md (every
 * domain onnxop knows), listing its attributes with their types and which are
 * "(required)". The model loader checks each node against its row, as ONNX's
 * checker and onnxruntime do: an attribute the op-version does not declare
 * (a typo such as "dilation", or one from another version) or one of the
 * wrong type is refused, instead of being silently ignored. */
#ifndef OX_SCHEMA_H
#define OX_SCHEMA_H

#include <stdint.h>

#include "err.h"
#include "graph.h"

typedef struct {
  const char *domain; /* "" for ai.onnx */
  const char *op;
  int since;
  /* "name:type" or "name:type:required", comma-separated, sorted by name;
   * type in ox_attr_type_name's words (int, ints, float, string, graph ...). */
  const char *attrs;
} ox_schema;

/* The op-version that a model importing `opset` for `domain` uses: the row
 * with the largest since <= opset, or NULL when the op is not in the table
 * (a model-local function, an unknown op or domain) or only comes later. */
const ox_schema *ox_schema_find(const char *domain, const char *op, int64_t opset);

/* Check node n's attributes against s: each must be declared, with the
 * declared type (an attribute referring to a function's attribute is checked
 * by name only), and every required one must be present. */
int ox_schema_check(const ox_schema *s, const ox_node *n, ox_err *e);

/* The table, for tests: ox_schemas[0 .. ox_nschemas-1], sorted by domain,
 * op, since. */
extern const ox_schema ox_schemas[];
extern const int ox_nschemas;

#endif
