/* tests/unit/test_registry.c: the registry tables are consistent (no two rows
 * of one op overlap, ranges are ordered, every row has a kernel) and resolve
 * opsets as the spec's since-versions say. */
#include "check.h"
#include "core/ox.h"

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
