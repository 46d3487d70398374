/* cli/ops.c: onnxop ops [OP] prints the registry itself, so what is
 * supported is never a hand-kept list. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ox.h"
#include "../io/io.h"
#include "cli.h"

static void types_str(uint64_t mask, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  if (!mask) {
    snprintf(buf, n, "any");
    return;
  }
  for (int d = 1; d < OX_DTYPE_MAX && at + 1 < n; d++)
    if (mask & (UINT64_C(1) << d))
      at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", ox_dtypes[d].onnx_name);
}

/* An attribute's default as JSON: a number for int and float, a string for
 * string, an array for "[a b]" of the list types. */
static cJSON *default_json(const ox_attr_spec *a) {
  int list = a->def[0] == '[';
  int text = !strcmp(a->type, list ? "strings" : "string");
  if (!list) return text ? cJSON_CreateString(a->def) : cJSON_CreateNumber(strtod(a->def, NULL));
  cJSON *arr = cJSON_CreateArray();
  for (const char *p = a->def + 1; *p && *p != ']';) {
    size_t len = strcspn(p, " ]");
    char item[192];
    snprintf(item, sizeof item, "%.*s", (int)len, p);
    ox_cjson_push(arr, text ? cJSON_CreateString(item) : cJSON_CreateNumber(strtod(item, NULL)));
    p += len + (p[len] == ' ');
  }
  return arr;
}

enum { P_HELP, P_JSON, P_DOMAIN };
static const ox_opt ops_opts[] = {
    [P_HELP] = {"--help", "-h", NULL},
    [P_JSON] = {"--json", NULL, NULL},
    [P_DOMAIN] = {"--domain", NULL, "a domain"},
    {NULL, NULL, NULL},
};

/* The row's family and origin (the sorted table knows them). */
static const ox_op_version *version_of(const ox_kernel *k) {
  const ox_op_version *v = ox_registry_version(k->domain, k->op, k->since);
  return v && v->k == k ? v : NULL;
}

/* "ai.onnx, ai.onnx.ml, ..., com.microsoft": the domains of the rows, in
 * table order, each once */
static void domains_str(char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      const char *d = k->domain[0] ? k->domain : "ai.onnx";
      int seen = 0;
      for (const char *p = buf; !seen && (p = strstr(p, d)); p += strlen(d))
        seen = (p == buf || p[-1] == ' ') && (p[strlen(d)] == ',' || !p[strlen(d)]);
      if (!seen && at + strlen(d) + 3 < n) at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", d);
    }
}

int ox_cmd_ops(int argc, char **argv) {
  const char *want = NULL, *v, *domain = NULL;
  int json = 0;
  ox_optparse p;
  ox_opt_init(&p, "ops", argc, argv, ops_opts);
  for (int k; (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    if (k == OX_OPT_ERROR) return OX_EUSAGE;
    if (k == P_HELP) {
      fputs("usage: onnxop ops [--json] [--domain D] [OP]\n\n"
            "List every operator onnxop implements: domain, name, the opset versions each\n"
            "implementation covers, and the element types it takes. With OP, only that\n"
            "operator, with each version's attributes (NAME:TYPE, =DEFAULT where the spec\n"
            "gives one, and which are required) as docs/Changelog.md lists them; `run`\n"
            "refuses a node with an attribute its version does not declare. With --domain\n"
            "D, only D's operators (ai.onnx, ai.onnx.ml, ai.onnx.preview,\n"
            "ai.onnx.preview.training, com.microsoft).\n\n"
            "Beyond the spec: com.microsoft is onnxruntime's domain, its rows as\n"
            "onnxruntime's docs/ContribOperators.md gives them (families contrib-*);\n"
            "family experimental holds ai.onnx's experimental operators, which onnx 1.5\n"
            "removed (ImageScaler-1, Crop-1 ...), and contrib-transformer the two\n"
            "operators onnxruntime registers in ai.onnx itself (LayerNormalization below\n"
            "opset 17, SimplifiedLayerNormalization). onnxop runs those as onnxruntime\n"
            "does, and `run` warns once per model that uses them. An operator onnxop\n"
            "knows but does not run is listed with the reason (`not run: ...`).\n\n"
            "Printed from the registry itself; --json gives one object per row, with\n"
            "\"attributes\" (name, type, required, default), \"required\" (NAME:TYPE,...\n"
            "when the version requires some), \"origin\" (experimental or onnxruntime)\n"
            "for a row that is not the spec's, and \"not_run\" (the reason) for one that\n"
            "onnxop does not run.\n\n"
            "exit status:\n"
            "  0      success\n"
            "  1      standard output could not be written\n"
            OX_EXIT_HELP_2
            "  3      no operator OP is implemented (in domain D, with --domain)\n"
            OX_EXIT_HELP_SIGNAL,
            stdout);
      return 0;
    }
    if (k == P_JSON) {
      json = 1;
      continue;
    }
    if (k == P_DOMAIN) {
      domain = strcmp(v, "ai.onnx") ? v : "";
      continue;
    }
    if (want) return ox_usage_error("ops", "give at most one OP");
    want = v;
  }
  int shown = 0;
  cJSON *rows = json ? cJSON_CreateArray() : NULL;
  if (!want && !json) printf("%-13s %-32s %-9s %-19s %s\n", "domain", "operator", "versions", "family", "types");
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      const char *not_run = ox_row_not_run(k);
      if ((!k->fn && !not_run) || (want && strcmp(k->op, want))) continue; /* a removed version runs nowhere */
      if (domain && !ox_domain_eq(k->domain, domain)) continue;
      const ox_op_version *ov = version_of(k);
      int origin = ov ? ov->origin : OX_ORIGIN_SPEC;
      char ver[32], ty[1024];
      int until = ox_registry_until(k);
      if (until >= OX_LATEST) snprintf(ver, sizeof ver, "%d+", k->since);
      else if (until == k->since) snprintf(ver, sizeof ver, "%d", k->since);
      else snprintf(ver, sizeof ver, "%d-%d", k->since, until);
      types_str(k->types, ty, sizeof ty);
      if (not_run) snprintf(ty, sizeof ty, "not run: %s", not_run);
      if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "domain", k->domain[0] ? k->domain : "ai.onnx");
        cJSON_AddStringToObject(o, "op", k->op);
        cJSON_AddNumberToObject(o, "since", k->since);
        if (until < OX_LATEST) cJSON_AddNumberToObject(o, "until", until);
        else cJSON_AddNullToObject(o, "until");
        cJSON_AddStringToObject(o, "family", f->family);
        if (origin != OX_ORIGIN_SPEC) cJSON_AddStringToObject(o, "origin", ox_origin_name(origin));
        if (not_run) cJSON_AddStringToObject(o, "not_run", not_run);
        cJSON *ts = cJSON_AddArrayToObject(o, "types");
        for (int d = 1; d < OX_DTYPE_MAX; d++)
          if (k->types & (UINT64_C(1) << d)) ox_cjson_push(ts, cJSON_CreateString(ox_dtypes[d].onnx_name));
        cJSON *as = cJSON_AddArrayToObject(o, "attributes");
        char req[1024] = "";
        size_t at = 0;
        ox_attr_spec a;
        for (const char *q = ox_attr_spec_next(not_run ? "" : ox_row_attrs(k), &a); q; q = ox_attr_spec_next(q, &a)) {
          cJSON *x = cJSON_CreateObject();
          cJSON_AddStringToObject(x, "name", a.name);
          cJSON_AddStringToObject(x, "type", a.type);
          cJSON_AddBoolToObject(x, "required", a.required);
          if (a.def[0]) ox_cjson_add(x, "default", default_json(&a));
          ox_cjson_push(as, x);
          if (a.required && at < sizeof req)
            at += (size_t)snprintf(req + at, sizeof req - at, "%s%s:%s", at ? "," : "", a.name, a.type);
        }
        if (req[0]) cJSON_AddStringToObject(o, "required", req);
        ox_cjson_push(rows, o);
      } else if (want) {
        char note[320];
        if (not_run) {
          printf("%s %s %s (family %s)\n  not run: %s\n", k->domain[0] ? k->domain : "ai.onnx", k->op, ver,
                 f->family, not_run);
          shown++;
          continue;
        }
        if (k->tin < 0) /* no input is checked: the types it makes */
          printf("%s %s %s (family %s)\n  output element types: %s\n", k->domain[0] ? k->domain : "ai.onnx",
                 k->op, ver, f->family, ty);
        else
          printf("%s %s %s (family %s)\n  input %d element types: %s\n", k->domain[0] ? k->domain : "ai.onnx",
                 k->op, ver, f->family, k->tin, ty);
        ox_attr_spec a;
        printf("  attributes:%s", ox_row_attrs(k)[0] ? "" : " none");
        int first = 1;
        for (const char *at = ox_attr_spec_next(ox_row_attrs(k), &a); at; at = ox_attr_spec_next(at, &a), first = 0)
          printf("%s %s:%s%s%s%s", first ? "" : ",", a.name, a.type, a.def[0] ? "=" : "", a.def,
                 a.required ? " (required)" : "");
        printf("\n");
        if (origin == OX_ORIGIN_EXPERIMENTAL || (origin == OX_ORIGIN_ONNXRUNTIME && ox_registry_note(ov, note, sizeof note)))
          printf("  %s: %s\n", ox_origin_name(origin),
                 ox_registry_note(ov, note, sizeof note) ? note : "not in the ONNX spec");
        else if (origin == OX_ORIGIN_ONNXRUNTIME)
          printf("  onnxruntime: as its docs/ContribOperators.md and CPU kernels define it\n");
      } else
        printf("%-13s %-32s %-9s %-19s %s\n", k->domain[0] ? k->domain : "ai.onnx", k->op, ver,
               f->family, ty);
      shown++;
    }
  if (json) {
    char *out = cJSON_PrintUnformatted(rows);
    if (out && shown) puts(out);
    else if (out && !want && !domain) puts(out); /* (no rows at all) */
    cJSON_free(out);
    cJSON_Delete(rows);
    if (!out) {
      return ox_cli_oom("ops", NULL);
    }
  }
  if (domain && !want && !shown) {
    char ds[256];
    domains_str(ds, sizeof ds);
    fprintf(stderr, "onnxop ops: no operator of domain '%s' is implemented (its domains: %s)\n", domain, ds);
    return OX_EUNSUPPORTED;
  }
  if (want && !shown) { /* the nearest name, any domain */
    const char *names[2048];
    int n = 0;
    for (const ox_family *f = ox_families; f->family; f++)
      for (const ox_kernel *k = f->rows; k->op && n < 2048; k++) names[n++] = k->op;
    const char *near = ox_suggest(want, names, n);
    const char *other = NULL; /* the domain that has it, when --domain named another */
    for (const ox_family *f = ox_families; domain && f->family; f++)
      for (const ox_kernel *k = f->rows; k->op; k++)
        if (!strcmp(k->op, want) && (k->fn || ox_row_not_run(k))) other = k->domain[0] ? k->domain : "ai.onnx";
    if (other)
      fprintf(stderr, "onnxop ops: no operator '%s' is implemented in %s; it is in %s\n", want,
              domain[0] ? domain : "ai.onnx", other);
    else
      fprintf(stderr, "onnxop ops: no operator '%s' is implemented%s%s%s\n", want, near ? "; did you mean '" : "",
              near ? near : "", near ? "'?" : "");
    return OX_EUNSUPPORTED;
  }
  return 0;
}
