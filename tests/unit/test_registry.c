/* tests/unit/test_registry.c: the operator table (core/registry.h).
 *   - every row is well formed (input counts, types, an attribute list in
 *     the row format);
 *   - it holds every op-version of the spec (tests/op-versions.txt, from
 *     docs/Changelog.md and Changelog-ml.md) and no other: no gap, no
 *     overlap, each row's attributes as the spec lists them; the rows of the
 *     families that are not the spec's (origin experimental, onnxruntime)
 *     are op-versions of their own lists (tests/op-versions-experimental.txt,
 *     tests/op-versions-contrib.txt), with those attributes;
 *   - lookups (binary searches) resolve opsets as the since-versions say;
 *   - ox_attrs_check refuses what ONNX's checker refuses: undeclared
 *     attributes, wrong types, missing required ones. */
#include <stdlib.h>

#include "check.h"
#include "core/ox.h"

static const char *const TYPES[] = {"float",  "int",     "string",        "tensor",    "graph",
                                    "floats", "ints",    "strings",       "tensors",   "graphs",
                                    "sparse_tensor",     "type_proto"};

static const char *dom(const char *d) { return d[0] ? d : "ai.onnx"; }

/* every entry of attrs is "name:type", "name:type:required" or
 * "name:type=default" with a known type, names strictly increasing */
static int attrs_ok(const char *attrs) {
  char prev[64] = "";
  ox_attr_spec a;
  for (const char *p = attrs; *p;) {
    size_t elen = strcspn(p, ","), nlen = strcspn(p, ":,");
    if (!nlen || nlen >= 64 || nlen >= elen) return 0;
    const char *next = ox_attr_spec_next(p, &a);
    if (prev[0] && strcmp(prev, a.name) >= 0) return 0;
    strcpy(prev, a.name);
    int known = 0;
    for (unsigned i = 0; i < sizeof TYPES / sizeof *TYPES; i++) known |= !strcmp(a.type, TYPES[i]);
    if (!known || (a.required && a.def[0])) return 0;
    /* rebuilt from the parts, the entry is what was written */
    char again[300];
    snprintf(again, sizeof again, "%s:%s%s%s%s", a.name, a.type, a.required ? ":required" : "",
             a.def[0] ? "=" : "", a.def);
    if (strlen(again) != elen || strncmp(again, p, elen)) return 0;
    p = next;
  }
  return 1;
}

/* Each row well formed; two rows of one key (an overlap) refused. */
static int rows_ok(void) {
  int n, bad = 0;
  const ox_op_version *t = ox_registry_table(&n);
  CHECK(n > 600);
  for (int i = 0; i < n; i++) {
    const ox_kernel *k = t[i].k;
    const char *why = NULL;
    int nr = ox_row_not_run(k) != NULL; /* OX_NOT_RUN: a reason, no attributes */
    if (!strcmp(k->domain, "ai.onnx")) why = "domain: write \"\" for ai.onnx";
    else if (k->since < 1) why = "since < 1";
    else if (k->fn && (k->min_in < 0 || (k->max_in >= 0 && k->max_in < k->min_in)))
      why = "input count range";
    else if (k->types & ~OX_TS_ALL_DTYPES) why = "types";
    else if (!k->attrs) why = "attribute list";
    else if (nr && (!k->attrs[1] || k->min_in || k->max_in || k->types))
      why = "OX_NOT_RUN(reason), nothing else";
    else if (!nr && !t[i].attrs) why = "attribute list: OX_ATTRS_OF names no row of the op";
    else if (k->attrs[0] == '@' && !strcmp(t[i].attrs, "")) why = "OX_ATTRS_OF of a row without attributes: write \"\"";
    else if (!nr && !attrs_ok(t[i].attrs)) why = "attribute list";
    else if (!nr && !k->fn && (t[i].attrs[0] || k->min_in || k->max_in || k->types)) why = "OX_REMOVED, nothing else";
    else if (t[i].until < k->since) why = "until < since";
    else if (i && !strcmp(t[i - 1].k->domain, k->domain) && !strcmp(t[i - 1].k->op, k->op) &&
             t[i - 1].k->since == k->since)
      why = "overlap: another row of this op-version";
    if (why) {
      bad++;
      fprintf(stderr, "row %s %s-%d (family %s): %s\n", dom(k->domain), k->op, k->since, t[i].family, why);
    }
  }
  return bad;
}

/* The spec's op-versions (tests/op-versions.txt, from docs/Changelog.md and
 * Changelog-ml.md), and beside them those of the rows that are not the
 * spec's: ai.onnx's experimental ones (tests/op-versions-experimental.txt,
 * from the Changelog's history) and onnxruntime's own
 * (tests/op-versions-contrib.txt, from its ContribOperators.md and schemas).
 * Each entry keeps the list it came from, as an origin. */
typedef struct { char domain[32], op[64], attrs[800]; int since, origin; } spec_entry;
static spec_entry spec[2048];
static int nspec;

static int read_list(const char *path, int origin) {
  int bad = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open (run from the top directory)\n", path);
    return 1;
  }
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char domain[32];
    spec_entry *e = &spec[nspec];
    if (nspec == 2048 || sscanf(line, "%31s %63s %d %799[^\n]", domain, e->op, &e->since, e->attrs) != 4) {
      fprintf(stderr, "%s: bad line (or too many): %s", path, line);
      bad++;
      continue;
    }
    snprintf(e->domain, sizeof e->domain, "%s", strcmp(domain, "ai.onnx") ? domain : "");
    if (!strcmp(e->attrs, "-")) e->attrs[0] = 0;
    e->origin = origin;
    nspec++;
  }
  fclose(f);
  return bad;
}

static int cmp_entry(const void *a, const void *b) {
  const spec_entry *x = a, *y = b;
  int c = strcmp(x->domain, y->domain);
  if (!c) c = strcmp(x->op, y->op);
  if (!c) c = (x->since > y->since) - (x->since < y->since);
  return c ? c : x->origin - y->origin;
}

/* The lists against the table, both sorted by (domain, op, since): each
 * op-version of the spec has a row, each row is an op-version of the list of
 * its origin (an experimental or onnxruntime op-version onnxop does not run
 * needs no row), and the row's attributes are the list's; a row without
 * kernel (OX_REMOVED) only where the spec marks the version deprecated (it
 * then lists no attributes: a deprecated version onnxop still runs keeps
 * those of its own page), and an OX_NOT_RUN row's attributes are its reason.
 * Mismatches are printed and counted. */
static int spec_versions(void) {
  int bad = read_list("tests/op-versions.txt", OX_ORIGIN_SPEC);
  int nonspec = nspec;
  bad += read_list("tests/op-versions-experimental.txt", OX_ORIGIN_EXPERIMENTAL);
  bad += read_list("tests/op-versions-contrib.txt", OX_ORIGIN_ONNXRUNTIME);
  CHECK(nonspec > 600);
  CHECK(nspec > nonspec + 100);
  qsort(spec, (size_t)nspec, sizeof *spec, cmp_entry);
  int n, i = 0, j = 0, ns = nspec;
  const ox_op_version *t = ox_registry_table(&n);
  while (i < n || j < ns) {
    const ox_kernel *k = i < n ? t[i].k : NULL;
    int c = !k ? 1 : j == ns ? -1 : strcmp(k->domain, spec[j].domain);
    if (!c) c = strcmp(k->op, spec[j].op);
    if (!c) c = (k->since > spec[j].since) - (k->since < spec[j].since);
    if (!c && t[i].origin != spec[j].origin) c = t[i].origin < spec[j].origin ? -1 : 1;
    if (c < 0) {
      fprintf(stderr, "row %s %s-%d (family %s, origin %s) is no op-version of its list\n", dom(k->domain), k->op,
              k->since, t[i].family, ox_origin_name(t[i].origin));
      bad++;
      i++;
    } else if (c > 0) {
      if (spec[j].origin == OX_ORIGIN_SPEC) {
        fprintf(stderr, "gap: %s %s-%d has no row\n", dom(spec[j].domain), spec[j].op, spec[j].since);
        bad++;
      }
      j++;
    } else {
      /* a deprecated version onnxop runs is one ox_registry_deprecation names, and no other */
      char dep[256];
      int deprecated = !strcmp(spec[j].attrs, "(deprecated)");
      if (k->fn && deprecated != !!ox_registry_deprecation(k, dep, sizeof dep)) {
        fprintf(stderr, "%s %s-%d: %s\n", dom(k->domain), k->op, k->since,
                deprecated ? "the spec deprecates it, but onnxop runs it without a warning"
                           : "onnxop warns that it is deprecated, but the spec does not say so");
        bad++;
      }
      if (!deprecated && !ox_row_not_run(k)) {
        const char *why = !k->fn ? "OX_REMOVED, but the spec does not deprecate it"
                          : strcmp(t[i].attrs ? t[i].attrs : "(none)", spec[j].attrs) ? "attributes not the list's"
                          : NULL;
        if (why) {
          fprintf(stderr, "%s %s-%d: %s:\n  row:  %s\n  list: %s\n", dom(k->domain), k->op, k->since, why,
                  t[i].attrs ? t[i].attrs : "(names no row)", spec[j].attrs);
          bad++;
        }
      }
      i++;
      j++;
    }
  }
  return bad;
}

/* Every row serves the opsets since..until, through the binary search. */
static int lookups_ok(void) {
  int n, bad = 0;
  const ox_op_version *t = ox_registry_table(&n);
  for (int i = 0; i < n; i++) {
    const ox_kernel *k = t[i].k;
    int first = !i || strcmp(t[i - 1].k->op, k->op) || strcmp(t[i - 1].k->domain, k->domain);
    if (ox_registry_version(k->domain, k->op, k->since) != &t[i] ||
        ox_registry_version(k->domain, k->op, t[i].until) != &t[i] ||
        ox_registry_version(k->domain, k->op, k->since - 1) != (first ? NULL : &t[i - 1]) ||
        ox_registry_find(k->domain, k->op, k->since) != (k->fn ? k : NULL) ||
        ox_registry_until(k) != t[i].until) {
      fprintf(stderr, "lookup of %s %s-%d\n", dom(k->domain), k->op, k->since);
      bad++;
    }
  }
  return bad;
}

static ox_err E;
/* ox_attrs_check's message for op at opset with the attributes given, "ok",
 * or "no row" */
static const char *check_msg(const char *op, int opset, int nattr, ox_attr *given) {
  ox_node nd = {.name = "n", .op = op, .domain = "", .nattr = nattr, .attr = given};
  const ox_kernel *k = ox_registry_find("", op, opset);
  E = (ox_err){0};
  return !k ? "no row" : ox_attrs_check(k, &nd, &E) ? E.msg : "ok";
}

/* The entry of name in the attributes of (op, opset), or an empty one. */
static ox_attr_spec entry(const char *op, int opset, const char *name) {
  static const ox_attr_spec none;
  ox_attr_spec a;
  const ox_kernel *k = ox_registry_find("", op, opset);
  for (const char *p = ox_attr_spec_next(k ? ox_row_attrs(k) : NULL, &a); p; p = ox_attr_spec_next(p, &a))
    if (!strcmp(a.name, name)) return a;
  return none;
}

int main(void) {
  CHECK_EQ_I(rows_ok(), 0);
  CHECK_EQ_I(spec_versions(), 0);
  CHECK_EQ_I(lookups_ok(), 0);

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
  char why_buf[256];
  CHECK(ox_registry_has_op("", "Identity"));
  CHECK(!ox_registry_has_op("", "NoSuchOp"));
  CHECK_EQ_I(ox_registry_find("", "MaxPool", 7)->since, 1);
  CHECK_EQ_I(ox_registry_find("", "MaxPool", 9)->since, 8);
  CHECK_EQ_I(ox_registry_find("ai.onnx", "MaxPool", 21)->since, 12);
  CHECK_EQ_I(ox_registry_find("", "MaxPool", 28)->since, 22);
  CHECK_EQ_I(ox_registry_find("ai.onnx.ml", "LabelEncoder", 4)->since, 4);
  CHECK(ox_registry_find("", "LabelEncoder", 4) == NULL);
  /* Identity's rows follow its since-versions */
  int since[] = {1, 13, 14, 16, 19, 21, 23, 24, 25};
  for (unsigned i = 0; i < sizeof since / sizeof *since; i++) {
    const ox_kernel *k = ox_registry_find("", "Identity", since[i]);
    CHECK(k && k->since == since[i]);
  }
  /* a removed version: a row without kernel, and until derived before it */
  const ox_op_version *u10 = ox_registry_version("", "Upsample", 12);
  CHECK(u10 && u10->k->since == 10 && !u10->k->fn && u10->until == OX_LATEST);
  CHECK(ox_registry_find("", "Upsample", 10) == NULL);
  CHECK_EQ_I(ox_registry_until(ox_registry_find("", "Upsample", 9)), 9);
  CHECK_EQ_I(ox_registry_until(ox_registry_find("", "Upsample", 8)), 8);

  /* a row that names the version it inherits from reads as that version's list */
  const ox_kernel *mp10 = ox_registry_find("", "MaxPool", 10), *mp22 = ox_registry_find("", "MaxPool", 22);
  CHECK(mp22 && mp22->attrs[0] == '@' && ox_row_attrs(mp22) == ox_row_attrs(mp10));
  CHECK(!strcmp(ox_row_attrs(mp22), "auto_pad:string=NOTSET,ceil_mode:int=0,dilations:ints,"
                "kernel_shape:ints:required,pads:ints,storage_order:int=0,strides:ints"));
  static const ox_kernel stray = {"", "MaxPool", 22, 0, 0, 1, 1, NULL, OX_ATTRS_OF(10)};
  CHECK(ox_row_attrs(&stray) == NULL); /* not a row of the table */
  /* deprecated, but run with a warning (old exports use it) */
  CHECK_EQ_S(ox_registry_deprecation(ox_registry_find("", "GroupNormalization", 20), why_buf, sizeof why_buf),
             "GroupNormalization-18 is deprecated (onnx's checker refuses it; GroupNormalization-21 replaces it)");
  CHECK(!ox_registry_deprecation(ox_registry_find("", "GroupNormalization", 21), why_buf, sizeof why_buf));
  CHECK(!ox_registry_deprecation(NULL, why_buf, sizeof why_buf));
  /* element types as the spec's T lists them, and where a later version allows one */
  uint64_t f3 = OX_T(FLOAT16) | OX_T(FLOAT) | OX_T(DOUBLE);
  CHECK(ox_registry_find("", "Constant", 1)->types == f3);           /* Constant-1: floats only */
  CHECK(ox_registry_find("", "Constant", 9)->types & OX_T(INT64));
  CHECK(ox_registry_find("", "NegativeLogLikelihoodLoss", 13)->types == f3); /* bfloat16 from 22 */
  CHECK(ox_registry_find("", "NegativeLogLikelihoodLoss", 22)->types == (f3 | OX_T(BFLOAT16)));
  CHECK_EQ_I(ox_registry_type_since(ox_registry_find("", "NegativeLogLikelihoodLoss", 13), OX_BFLOAT16), 22);
  CHECK_EQ_I(ox_registry_type_since(ox_registry_find("", "NegativeLogLikelihoodLoss", 13), OX_INT64), 0);
  CHECK_EQ_I(ox_registry_type_since(ox_registry_find("", "Add", 7), OX_BFLOAT16), 13);
  /* rows beyond the spec: their origin from the family's name, the notes run
   * warns with, and the reasons of the rows not run */
  CHECK_EQ_I(ox_family_origin("norm"), OX_ORIGIN_SPEC);
  CHECK_EQ_I(ox_family_origin("experimental"), OX_ORIGIN_EXPERIMENTAL);
  CHECK_EQ_I(ox_family_origin("contrib-transformer"), OX_ORIGIN_ONNXRUNTIME);
  char note[320];
  const ox_op_version *ln16 = ox_registry_version("", "LayerNormalization", 16);
  CHECK(ln16 && ln16->k->since == 1 && ln16->origin == OX_ORIGIN_ONNXRUNTIME && ln16->until == 16);
  CHECK_EQ_S(ox_registry_note(ln16, note, sizeof note),
             "LayerNormalization below opset 17 is onnxruntime's registration in ai.onnx, not the ONNX spec's "
             "(which defines it from opset 17); onnxop runs it as onnxruntime does");
  const ox_op_version *ln17 = ox_registry_version("ai.onnx", "LayerNormalization", 17);
  CHECK(ln17 && ln17->k->since == 17 && ln17->origin == OX_ORIGIN_SPEC && !ox_registry_note(ln17, note, sizeof note));
  CHECK_EQ_S(ox_registry_note(ox_registry_version("", "ImageScaler", 8), note, sizeof note),
             "ImageScaler-1 is an experimental operator, which onnx 1.5 removed from the spec; onnxop runs it as "
             "onnxruntime does");
  CHECK_EQ_I(ox_registry_until(ox_registry_find("", "ThresholdedRelu", 9)), 9); /* then ThresholdedRelu-10 */
  CHECK_EQ_I(ox_registry_find("", "MeanVarianceNormalization", 8)->since, 1);
  CHECK_EQ_I(ox_registry_find("", "MeanVarianceNormalization", 9)->since, 9);
  /* com.microsoft: no note (a model imports it on purpose) */
  CHECK(!ox_registry_note(ox_registry_version("com.microsoft", "Gelu", 1), note, sizeof note));
  CHECK(ox_registry_find("com.microsoft", "GroupQueryAttention", 1) != NULL);
  CHECK(ox_registry_find("com.microsoft", "BeamSearch", 1) == NULL);
  CHECK(ox_row_not_run(ox_registry_version("com.microsoft", "BeamSearch", 1)->k) != NULL);
  CHECK(!ox_row_not_run(ox_registry_find("com.microsoft", "Gelu", 1)));
  CHECK(!strncmp(ox_registry_why("com.microsoft", "Sampling", 1, note, sizeof note),
                 "onnxop does not run onnxruntime's generation loops", 50));

  /* input names in one message stay distinct names, however many: each
   * is the call's (in its arena), none a buffer used in turn */
  static const char *ins[] = {"A", "B", "C", "D", "E"};
  ox_node nd = {.name = "n", .op = "Sum", .domain = "", .nin = 5, .in = ins};
  ox_arena *na = ox_arena_new();
  ox_ctx cx = {.a = na, .node = &nd};
  char msg[128];
  snprintf(msg, sizeof msg, "%s and %s", ox_input_name(&cx, 0), ox_input_name(&cx, 1));
  CHECK_EQ_S(msg, "input 0 'A' and input 1 'B'");
  const char *nm[5];
  for (int i = 0; i < 5; i++) nm[i] = ox_input_name(&cx, i);
  snprintf(msg, sizeof msg, "%s, %s, %s, %s, %s", nm[0], nm[1], nm[2], nm[3], nm[4]);
  CHECK_EQ_S(msg, "input 0 'A', input 1 'B', input 2 'C', input 3 'D', input 4 'E'");
  ox_arena_free(na);
  /* a context without an arena still names something */
  ox_ctx bare = {.node = &nd};
  CHECK(ox_input_name(&bare, 0) != NULL);
  /* why an op has no row at an opset */
  char why[160];
  CHECK_EQ_S(ox_registry_why("", "SequenceAt", 10, why, sizeof why), "the operator first appears at opset 11");
  CHECK_EQ_S(ox_registry_why("", "Upsample", 10, why, sizeof why),
             "ONNX deprecated the operator at opset 10; onnxop runs it for opsets 1 to 9");
  CHECK_EQ_S(ox_registry_why("ai.onnx", "Scatter", 18, why, sizeof why),
             "ONNX deprecated the operator at opset 11; onnxop runs it for opsets 9 to 10");
  CHECK_EQ_S(ox_registry_why("", "NoSuchOp", 18, why, sizeof why), "onnxop does not implement this operator");

  /* the attribute lists: types, required, defaults as the spec gives them */
  ox_attr_spec a = entry("MaxPool", 12, "kernel_shape");
  CHECK(!strcmp(a.type, "ints") && a.required && !a.def[0]);
  CHECK_EQ_S(entry("MaxPool", 9, "ceil_mode").name, "");
  CHECK_EQ_S(entry("MaxPool", 12, "ceil_mode").def, "0");
  CHECK_EQ_S(entry("MaxPool", 12, "auto_pad").def, "NOTSET");
  CHECK_EQ_S(entry("ReduceSum", 13, "keepdims").def, "1");
  CHECK_EQ_S(entry("LeakyRelu", 16, "alpha").def, "0.01");
  CHECK_EQ_S(entry("Clip", 6, "min").def, "-3.402823e+38");
  CHECK_EQ_S(entry("RNN", 22, "activations").def, "[Tanh Tanh]");
  CHECK_EQ_S(entry("MeanVarianceNormalization", 13, "axes").def, "[0 2 3]");

  /* the check */
  ox_attr ks = {.name = "kernel_shape", .type = OX_ATTR_INTS};
  ox_attr ks_f = {.name = "kernel_shape", .type = OX_ATTR_FLOAT};
  ox_attr ceil = {.name = "ceil_mode", .type = OX_ATTR_INT};
  ox_attr cip = {.name = "count_include_pad", .type = OX_ATTR_INT};
  ox_attr ref = {.name = "kernel_shape", .type = OX_ATTR_FLOAT, .ref_attr_name = "k"};
  /* onnxruntime's LayerNormalization-1 allows unchecked attributes (its test
   * models misspell epsilon); the spec's LayerNormalization-17 does not */
  ox_attr eps_typo = {.name = "epsion", .type = OX_ATTR_FLOAT, .f = 1e-5f};
  CHECK_EQ_S(check_msg("LayerNormalization", 13, 1, &eps_typo), "ok");
  CHECK(strstr(check_msg("LayerNormalization", 17, 1, &eps_typo), "'epsion' is not an attribute of LayerNormalization-17"));
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

  return check_done("registry");
}
