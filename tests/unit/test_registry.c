/* tests/unit/test_registry.c: the registry tables are consistent (no two rows
 * of one op overlap, ranges are ordered, every row has a kernel), hold every
 * op-version of the spec (tests/op-versions.txt) and no other, and resolve
 * opsets as the spec's since-versions say. */
#include <stdlib.h>

#include "check.h"
#include "core/ox.h"
#include "core/schema.h"

/* tests/op-versions.txt against the tables: each op-version of the spec has
 * a schema row and, unless deprecated, a kernel row beginning there; each
 * kernel row begins at an op-version of the spec. Returns the count of
 * mismatches, each printed. */
static int spec_versions(void) {
  FILE *f = fopen("tests/op-versions.txt", "r");
  if (!f) {
    fprintf(stderr, "tests/op-versions.txt: cannot open (run from the top directory)\n");
    return 1;
  }
  static struct { char domain[32], op[64]; int since; } spec[2048];
  int n = 0, bad = 0;
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    char domain[32], op[64], attrs[1600];
    int since;
    if (line[0] == '#') continue;
    if (n == 2048 || sscanf(line, "%31s %63s %d %1599[^\n]", domain, op, &since, attrs) != 4) {
      fprintf(stderr, "tests/op-versions.txt: bad line: %s", line);
      bad++;
      continue;
    }
    const char *d = strcmp(domain, "ai.onnx") ? domain : "";
    snprintf(spec[n].domain, sizeof spec[n].domain, "%s", d);
    snprintf(spec[n].op, sizeof spec[n].op, "%s", op);
    spec[n++].since = since;
    const ox_schema *s = ox_schema_find(d, op, since);
    if (!s || s->since != since) {
      fprintf(stderr, "gap: %s %s-%d has no schema row\n", domain, op, since);
      bad++;
    }
    const ox_kernel *k = ox_registry_find(d, op, since);
    if (strcmp(attrs, "(deprecated)") && (!k || k->since != since)) {
      fprintf(stderr, "gap: %s %s-%d has no kernel row\n", domain, op, since);
      bad++;
    }
  }
  fclose(f);
  for (const ox_family *fam = ox_families; fam->family; fam++)
    for (const ox_kernel *k = fam->rows; k->op; k++) {
      int found = 0;
      for (int i = 0; i < n && !found; i++)
        found = spec[i].since == k->since && !strcmp(spec[i].op, k->op) &&
                ox_domain_eq(spec[i].domain, k->domain);
      if (!found) {
        fprintf(stderr, "row %s %s-%d is no op-version of the spec\n", k->domain, k->op, k->since);
        bad++;
      }
    }
  CHECK(n > 600);
  return bad;
}

int main(void) {
  int rows = 0, overlaps = 0, bad = 0;
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      rows++;
      if (!k->fn || k->since < 1 || k->until < k->since || k->min_in < 0 ||
          (k->max_in >= 0 && k->max_in < k->min_in) ||
          (k->types & ~OX_TS_ALL_DTYPES)) {
        bad++;
        fprintf(stderr, "bad row %s %s %d-%d\n", f->family, k->op, k->since, k->until);
      }
      for (const ox_family *g = ox_families; g->family; g++)
        for (const ox_kernel *j = g->rows; j->op; j++)
          if (j != k && !strcmp(j->op, k->op) && ox_domain_eq(j->domain, k->domain) &&
              j->since <= k->until && k->since <= j->until) {
            overlaps++;
            fprintf(stderr, "overlap: %s %d-%d and %d-%d\n", k->op, k->since, k->until, j->since, j->until);
          }
    }
  CHECK(rows > 0);
  CHECK_EQ_I(bad, 0);
  CHECK_EQ_I(overlaps, 0);
  CHECK_EQ_I(spec_versions(), 0);

  /* resolution */
  CHECK(ox_registry_find("", "SequenceAt", 10) == NULL);
  const ox_kernel *k11 = ox_registry_find("", "SequenceAt", 11);
  CHECK(k11 != NULL && k11->since == 11);
  CHECK(ox_registry_find("ai.onnx", "SequenceAt", 21) == ox_registry_find("", "SequenceAt", 21));
  const ox_kernel *o15 = ox_registry_find("", "OptionalGetElement", 17);
  const ox_kernel *o18 = ox_registry_find("", "OptionalGetElement", 18);
  CHECK(o15 && o15->since == 15);
  CHECK(o18 && o18->since == 18);
  CHECK(ox_registry_find("", "OptionalGetElement", 14) == NULL);
  CHECK(ox_registry_find("ai.onnx.ml", "SequenceAt", 11) == NULL);
  CHECK(ox_registry_find("", "NoSuchOp", 11) == NULL);
  CHECK(ox_registry_has_op("", "Identity"));
  CHECK(!ox_registry_has_op("", "NoSuchOp"));
  /* Identity's rows follow its since-versions */
  int since[] = {1, 13, 14, 16, 19, 21, 23, 24, 25};
  for (unsigned i = 0; i < sizeof since / sizeof *since; i++) {
    const ox_kernel *k = ox_registry_find("", "Identity", since[i]);
    CHECK(k && k->since == since[i]);
  }
  /* two input names in one message stay two names */
  static const char *ins[] = {"A", "B"};
  ox_node nd = {.name = "n", .op = "Add", .domain = "", .nin = 2, .in = ins};
  ox_ctx cx = {.node = &nd};
  char msg[128];
  snprintf(msg, sizeof msg, "%s and %s", ox_input_name(&cx, 0), ox_input_name(&cx, 1));
  CHECK_EQ_S(msg, "input 0 'A' and input 1 'B'");
  /* why an op has no row at an opset */
  char why[160];
  CHECK_EQ_S(ox_registry_why("", "SequenceAt", 10, why, sizeof why), "the operator first appears at opset 11");
  CHECK_EQ_S(ox_registry_why("", "Upsample", 10, why, sizeof why),
             "ONNX deprecated the operator at opset 10; onnxop runs it for opsets 1 to 9");
  return check_done("registry");
}
