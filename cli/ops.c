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

enum { P_HELP, P_JSON };
static const ox_opt ops_opts[] = {
    [P_HELP] = {"--help", "-h", NULL},
    [P_JSON] = {"--json", NULL, NULL},
    {NULL, NULL, NULL},
};

int ox_cmd_ops(int argc, char **argv) {
  const char *want = NULL, *v;
  int json = 0;
  ox_optparse p;
  ox_opt_init(&p, "ops", argc, argv, ops_opts);
  for (int k; (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    if (k == OX_OPT_ERROR) return OX_EUSAGE;
    if (k == P_HELP) {
      fputs("usage: onnxop ops [--json] [OP]\n\n"
            "List every operator onnxop implements: domain, name, the opset versions each\n"
            "implementation covers, and the element types it takes. With OP, only that\n"
            "operator, with each version's attributes (NAME:TYPE, =DEFAULT where the spec\n"
            "gives one, and which are required) as docs/Changelog.md lists them; `run`\n"
            "refuses a node with an attribute its version does not declare. Printed from\n"
            "the registry itself; --json gives one object per row, with \"attributes\"\n"
            "(name, type, required, default) and \"required\" (NAME:TYPE,... when the\n"
            "version requires some).\n\n"
            "exit status:\n"
            "  0      success\n"
            "  1      standard output could not be written\n"
            OX_EXIT_HELP_2
            "  3      no operator OP is implemented\n"
            OX_EXIT_HELP_SIGNAL,
            stdout);
      return 0;
    }
    if (k == P_JSON) {
      json = 1;
      continue;
    }
    if (want) return ox_usage_error("ops", "give at most one OP");
    want = v;
  }
  int shown = 0;
  cJSON *rows = json ? cJSON_CreateArray() : NULL;
  if (!want && !json) printf("%-10s %-22s %-9s %-8s %s\n", "domain", "operator", "versions", "family", "types");
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      if (!k->fn || (want && strcmp(k->op, want))) continue; /* a removed version runs nowhere */
      char ver[32], ty[1024];
      int until = ox_registry_until(k);
      if (until >= OX_LATEST) snprintf(ver, sizeof ver, "%d+", k->since);
      else if (until == k->since) snprintf(ver, sizeof ver, "%d", k->since);
      else snprintf(ver, sizeof ver, "%d-%d", k->since, until);
      types_str(k->types, ty, sizeof ty);
      if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "domain", k->domain[0] ? k->domain : "ai.onnx");
        cJSON_AddStringToObject(o, "op", k->op);
        cJSON_AddNumberToObject(o, "since", k->since);
        if (until < OX_LATEST) cJSON_AddNumberToObject(o, "until", until);
        else cJSON_AddNullToObject(o, "until");
        cJSON_AddStringToObject(o, "family", f->family);
        cJSON *ts = cJSON_AddArrayToObject(o, "types");
        for (int d = 1; d < OX_DTYPE_MAX; d++)
          if (k->types & (UINT64_C(1) << d)) ox_cjson_push(ts, cJSON_CreateString(ox_dtypes[d].onnx_name));
        cJSON *as = cJSON_AddArrayToObject(o, "attributes");
        char req[1024] = "";
        size_t at = 0;
        ox_attr_spec a;
        for (const char *q = ox_attr_spec_next(ox_row_attrs(k), &a); q; q = ox_attr_spec_next(q, &a)) {
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
      } else
        printf("%-10s %-22s %-9s %-8s %s\n", k->domain[0] ? k->domain : "ai.onnx", k->op, ver,
               f->family, ty);
      shown++;
    }
  if (json) {
    char *out = cJSON_PrintUnformatted(rows);
    if (out && (!want || shown)) puts(out);
    cJSON_free(out);
    cJSON_Delete(rows);
    if (!out) {
      return ox_cli_oom("ops", NULL);
    }
  }
  if (want && !shown) { /* the nearest name, any domain */
    const char *names[2048];
    int n = 0;
    for (const ox_family *f = ox_families; f->family; f++)
      for (const ox_kernel *k = f->rows; k->op && n < 2048; k++) names[n++] = k->op;
    const char *near = ox_suggest(want, names, n);
    fprintf(stderr, "onnxop ops: no operator '%s' is implemented%s%s%s\n", want, near ? "; did you mean '" : "",
            near ? near : "", near ? "'?" : "");
    return OX_EUNSUPPORTED;
  }
  return 0;
}
