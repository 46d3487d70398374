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

/* Walk the entries of a schema's attrs: "name:type" or "name:type:required". */
typedef struct { char name[64], type[32]; int required; } attr_entry;
static const char *next_attr(const char *p, attr_entry *a) {
  if (!p || !*p) return NULL;
  size_t elen = strcspn(p, ","), nlen = strcspn(p, ":,");
  const char *t = p + nlen + 1;
  size_t tlen = strcspn(t, ":,");
  snprintf(a->name, sizeof a->name, "%.*s", (int)nlen, p);
  snprintf(a->type, sizeof a->type, "%.*s", (int)tlen, t);
  a->required = t[tlen] == ':';
  return p + elen + (p[elen] == ',');
}

int ox_cmd_ops(int argc, char **argv) {
  const char *want = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs("usage: onnxop ops [--json] [OP]\n\n"
            "List every operator onnxop implements: domain, name, the opset versions each\n"
            "implementation covers, and the element types it takes. With OP, only that\n"
            "operator, with each version's attributes (NAME:TYPE, and which are required)\n"
            "as docs/Changelog.md lists them; `run` refuses a node with an attribute its\n"
            "version does not declare. Printed from the registry itself; --json gives one\n"
            "object per row, with \"attributes\" (name, type, required) and \"required\"\n"
            "(NAME:TYPE,... when the version requires some).\n\n"
            "exit status:\n"
            "  0      success\n"
            "  1      standard output could not be written\n"
            OX_EXIT_HELP_2
            "  3      no operator OP is implemented\n"
            OX_EXIT_HELP_SIGNAL,
            stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--json")) {
      json = 1;
      continue;
    }
    if (argv[i][0] == '-') return ox_usage_error("ops", "unknown option '%s'", argv[i]);
    if (want) return ox_usage_error("ops", "give at most one OP");
    want = argv[i];
  }
  int shown = 0;
  cJSON *rows = json ? cJSON_CreateArray() : NULL;
  if (!want && !json) printf("%-10s %-22s %-9s %-8s %s\n", "domain", "operator", "versions", "family", "types");
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      if (want && strcmp(k->op, want)) continue;
      char ver[32], ty[1024];
      if (k->until >= OX_LATEST) snprintf(ver, sizeof ver, "%d+", k->since);
      else if (k->until == k->since) snprintf(ver, sizeof ver, "%d", k->since);
      else snprintf(ver, sizeof ver, "%d-%d", k->since, k->until);
      types_str(k->types, ty, sizeof ty);
      /* each row serves one op-version of the schema table (test_schema checks it) */
      const ox_schema *sc = ox_schema_find(k->domain, k->op, k->since);
      if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "domain", k->domain[0] ? k->domain : "ai.onnx");
        cJSON_AddStringToObject(o, "op", k->op);
        cJSON_AddNumberToObject(o, "since", k->since);
        if (k->until < OX_LATEST) cJSON_AddNumberToObject(o, "until", k->until);
        else cJSON_AddNullToObject(o, "until");
        cJSON_AddStringToObject(o, "family", f->family);
        cJSON *ts = cJSON_AddArrayToObject(o, "types");
        for (int d = 1; d < OX_DTYPE_MAX; d++)
          if (k->types & (UINT64_C(1) << d)) ox_cjson_push(ts, cJSON_CreateString(ox_dtypes[d].onnx_name));
        if (sc) {
          cJSON *as = cJSON_AddArrayToObject(o, "attributes");
          char req[1024] = "";
          size_t at = 0;
          attr_entry a;
          for (const char *p = next_attr(sc->attrs, &a); p; p = next_attr(p, &a)) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", a.name);
            cJSON_AddStringToObject(x, "type", a.type);
            cJSON_AddBoolToObject(x, "required", a.required);
            ox_cjson_push(as, x);
            if (a.required && at < sizeof req)
              at += (size_t)snprintf(req + at, sizeof req - at, "%s%s:%s", at ? "," : "", a.name, a.type);
          }
          if (req[0]) cJSON_AddStringToObject(o, "required", req);
        }
        ox_cjson_push(rows, o);
      } else if (want) {
        if (k->tin < 0) /* no input is checked: the types it makes */
          printf("%s %s %s (family %s)\n  output element types: %s\n", k->domain[0] ? k->domain : "ai.onnx",
                 k->op, ver, f->family, ty);
        else
          printf("%s %s %s (family %s)\n  input %d element types: %s\n", k->domain[0] ? k->domain : "ai.onnx",
                 k->op, ver, f->family, k->tin, ty);
        if (sc) {
          attr_entry a;
          printf("  attributes:%s", sc->attrs[0] ? "" : " none");
          int first = 1;
          for (const char *p = next_attr(sc->attrs, &a); p; p = next_attr(p, &a), first = 0)
            printf("%s %s:%s%s", first ? "" : ",", a.name, a.type, a.required ? " (required)" : "");
          printf("\n");
        }
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
  if (want && !shown) {
    fprintf(stderr, "onnxop ops: no operator '%s' is implemented\n", want);
    return OX_EUNSUPPORTED;
  }
  return 0;
}
