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

  /* the registry: each kernel row begins at an op-version of the table, and
   * each attribute a row marks required is required, with that type, in
   * every op-version the row serves */
  int rows = 0, unmatched = 0, disagree = 0;
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      rows++;
      const ox_schema *s = ox_schema_find(k->domain, k->op, k->since);
      if (!s || s->since != k->since) {
        unmatched++;
        fprintf(stderr, "registry row %s %s-%d has no op-version in the schema table\n", k->domain,
                k->op, k->since);
        continue;
      }
      for (; s < ox_schemas + ox_nschemas && !strcmp(s->op, k->op) &&
             !strcmp(s->domain, k->domain) && s->since <= k->until;
           s++)
        for (const char *p = k->required; p && *p;) {
          size_t len = strcspn(p, ","), nlen = strcspn(p, ":,");
          char name[64], type[16];
          snprintf(name, sizeof name, "%.*s", (int)nlen, p);
          if (nlen < len) snprintf(type, sizeof type, "%.*s", (int)(len - nlen - 1), p + nlen + 1);
          if (!declares(s->attrs, name, nlen < len ? type : NULL, 1)) {
            disagree++;
            fprintf(stderr, "%s-%d: the registry requires '%s', the schema table does not\n",
                    k->op, s->since, name);
          }
          p += len + (p[len] == ',');
        }
    }
  CHECK(rows > 600);
  CHECK_EQ_I(unmatched, 0);
  CHECK_EQ_I(disagree, 0);

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
  return check_done("schema");
}
