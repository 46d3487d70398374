/* tests/unit/test_schema.c: the attribute table (core/schema.c) is ordered,
 * agrees with the registry, and ox_schema_check refuses what ONNX's checker
 * refuses: undeclared attributes, wrong types, missing required ones. */
#include "check.h"
#include "core/ox.h"

static const char *const TYPES[] = {"float",  "int",     "string",        "tensor",    "graph",
                                    "floats", "ints",    "strings",       "tensors",   "graphs",
                                    "sparse_tensor",     "type_proto"};

/* every entry of attrs is "name:type" or "name:type:required" with a known
 * type, names strictly increasing */
static int attrs_ok(const char *a) {
  char prev[64] = "";
  for (const char *p = a; *p;) {
    size_t elen = strcspn(p, ","), nlen = strcspn(p, ":,");
    if (!nlen || nlen >= 64 || nlen >= elen) return 0;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)nlen, p);
    if (prev[0] && strcmp(prev, name) >= 0) return 0;
    strcpy(prev, name);
    const char *t = p + nlen + 1;
    size_t tlen = strcspn(t, ":,");
    int known = 0;
    for (unsigned i = 0; i < sizeof TYPES / sizeof *TYPES; i++)
      known |= strlen(TYPES[i]) == tlen && !strncmp(t, TYPES[i], tlen);
    if (!known) return 0;
    if (t[tlen] == ':' && strncmp(t + tlen, ":required", 9)) return 0;
    p += elen + (p[elen] == ',');
  }
  return 1;
}

/* whether attrs declares name, with type (NULL: any type), required if req */
static int declares(const char *attrs, const char *name, const char *type, int req) {
  for (const char *p = attrs; *p;) {
    size_t elen = strcspn(p, ","), nlen = strcspn(p, ":,");
    const char *t = p + nlen + 1;
    size_t tlen = strcspn(t, ":,");
    int is_req = t[tlen] == ':';
    if (nlen == strlen(name) && !strncmp(p, name, nlen))
      return (!type || (tlen == strlen(type) && !strncmp(t, type, tlen))) && (!req || is_req);
    p += elen + (p[elen] == ',');
  }
  return 0;
}

static ox_err E;
/* ox_schema_check's message for op at opset with the attributes given, "ok",
 * or "no row" */
static const char *check_msg(const char *op, int opset, int nattr, ox_attr *given) {
  ox_node nd = {.name = "n", .op = op, .domain = "", .nattr = nattr, .attr = given};
  const ox_schema *s = ox_schema_find("", op, opset);
  E = (ox_err){0};
  return !s ? "no row" : ox_schema_check(s, &nd, &E) ? E.msg : "ok";
}

int main(void) {
  /* the table: sorted by (domain, op, since) without repeats, entries well formed */
  int bad = 0;
  CHECK(ox_nschemas > 600);
  for (int i = 0; i < ox_nschemas; i++) {
    const ox_schema *s = &ox_schemas[i];
    if (s->since < 1 || !attrs_ok(s->attrs)) {
      bad++;
      fprintf(stderr, "bad schema row %s %s-%d\n", s->domain, s->op, s->since);
    }
    if (i) {
      const ox_schema *p = &ox_schemas[i - 1];
      int c = strcmp(p->domain, s->domain);
      if (!c) c = strcmp(p->op, s->op);
      if (c > 0 || (!c && p->since >= s->since)) {
        bad++;
        fprintf(stderr, "schema rows out of order at %s %s-%d\n", s->domain, s->op, s->since);
      }
    }
  }
  CHECK_EQ_I(bad, 0);

  /* the registry: each kernel row serves exactly one op-version of the table
   * (it begins at one, and the next one of the op begins after the row ends),
   * so `onnxop ops` can print a row's attributes */
  int rows = 0, unmatched = 0;
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      rows++;
      const ox_schema *s = ox_schema_find(k->domain, k->op, k->since);
      const ox_schema *next = s ? s + 1 : NULL;
      if (!s || s->since != k->since ||
          (next < ox_schemas + ox_nschemas && !strcmp(next->op, s->op) &&
           !strcmp(next->domain, s->domain) && next->since <= k->until)) {
        unmatched++;
        fprintf(stderr, "registry row %s %s %d-%d does not serve one op-version of the schema table\n",
                k->domain, k->op, k->since, k->until);
      }
    }
  CHECK(rows > 600);
  CHECK_EQ_I(unmatched, 0);

  /* lookup: the largest since <= opset; "ai.onnx" is the default domain */
  CHECK(ox_schema_find("", "MaxPool", 7)->since == 1);
  CHECK(ox_schema_find("", "MaxPool", 9)->since == 8);
  CHECK(ox_schema_find("ai.onnx", "MaxPool", 21)->since == 12);
  CHECK(ox_schema_find("", "MaxPool", 28)->since == 22);
  CHECK(ox_schema_find("", "SequenceAt", 10) == NULL);
  CHECK(ox_schema_find("", "Frobnicate", 13) == NULL);
  CHECK(ox_schema_find("ai.onnx.ml", "LabelEncoder", 4)->since == 4);
  CHECK(ox_schema_find("", "LabelEncoder", 4) == NULL);
  CHECK(declares(ox_schema_find("", "MaxPool", 12)->attrs, "kernel_shape", "ints", 1));
  CHECK(!declares(ox_schema_find("", "MaxPool", 9)->attrs, "ceil_mode", NULL, 0));

  /* the check */
  ox_attr ks = {.name = "kernel_shape", .type = OX_ATTR_INTS};
  ox_attr ks_f = {.name = "kernel_shape", .type = OX_ATTR_FLOAT};
  ox_attr ceil = {.name = "ceil_mode", .type = OX_ATTR_INT};
  ox_attr cip = {.name = "count_include_pad", .type = OX_ATTR_INT};
  ox_attr ref = {.name = "kernel_shape", .type = OX_ATTR_FLOAT, .ref_attr_name = "k"};
  CHECK_EQ_S(check_msg("MaxPool", 12, 1, &ks), "ok");
  CHECK_EQ_S(check_msg("MaxPool", 12, 1, (ox_attr[]){ks, ceil}), "ok");
  CHECK_EQ_S(check_msg("MaxPool", 12, 2, (ox_attr[]){ks, cip}),
             "'count_include_pad' is not an attribute of MaxPool-12 (its attributes: auto_pad, "
             "ceil_mode, dilations, kernel_shape, pads, storage_order, strides)");
  CHECK_EQ_S(check_msg("MaxPool", 8, 2, (ox_attr[]){ks, ceil}),
             "'ceil_mode' is not an attribute of MaxPool-8 (its attributes: auto_pad, "
             "kernel_shape, pads, storage_order, strides)");
  CHECK_EQ_S(check_msg("MaxPool", 12, 1, &ks_f),
             "attribute 'kernel_shape' is of type float; expected ints");
  CHECK_EQ_S(check_msg("MaxPool", 12, 1, &ref), "ok"); /* a function's reference: the name only */
  CHECK_EQ_S(check_msg("MaxPool", 12, 1, &ceil), "the attribute 'kernel_shape' is required");
  CHECK_EQ_S(check_msg("Relu", 14, 1, &ceil),
             "'ceil_mode' is not an attribute of Relu-14 (its attributes: none)");
  CHECK_EQ_S(check_msg("Relu", 14, 0, NULL), "ok");
  /* required attributes follow the spec's versions */
  ox_attr to = {.name = "to", .type = OX_ATTR_INT, .i = 1}, axis = {.name = "axis", .type = OX_ATTR_INT};
  ox_attr body_int = {.name = "body", .type = OX_ATTR_INT, .i = 1};
  CHECK_EQ_S(check_msg("Cast", 13, 0, NULL), "the attribute 'to' is required");
  CHECK_EQ_S(check_msg("Cast", 13, 1, &to), "ok");
  CHECK_EQ_S(check_msg("Concat", 3, 0, NULL), "ok"); /* Concat-1: axis defaults to 1 */
  CHECK_EQ_S(check_msg("Concat", 4, 0, NULL), "the attribute 'axis' is required");
  CHECK_EQ_S(check_msg("Concat", 13, 1, &axis), "ok");
  CHECK_EQ_S(check_msg("TopK", 9, 0, NULL), "the attribute 'k' is required");
  CHECK_EQ_S(check_msg("TopK", 10, 0, NULL), "ok"); /* K is an input from 10 */
  CHECK_EQ_S(check_msg("Constant", 9, 0, NULL), "the attribute 'value' is required");
  CHECK_EQ_S(check_msg("Constant", 11, 0, NULL), "ok"); /* one of several from 11 */
  CHECK_EQ_S(check_msg("GroupNormalization", 18, 0, NULL), "the attribute 'num_groups' is required");
  CHECK_EQ_S(check_msg("GroupNormalization", 21, 0, NULL), "the attribute 'num_groups' is required");
  CHECK_EQ_S(check_msg("Loop", 16, 1, &body_int), "attribute 'body' is of type int; expected graph");
  CHECK_EQ_S(check_msg("If", 11, 0, NULL), "the attribute 'else_branch' is required");
  /* an attribute a function body takes from its caller counts as given */
  ox_attr ref_to = {.name = "to", .type = OX_ATTR_INT, .ref_attr_name = "target"};
  CHECK_EQ_S(check_msg("Cast", 21, 1, &ref_to), "ok");

  return check_done("schema");
}
