/* cli/spec.c: `onnxop make --spec FILE.json --suite DIR` reads its cases
 * here. The schema (man/onnxop.1, SPEC FILES; tests/spec/example.json):
 *
 *   {"cases": [                       (or the list alone)
 *     {"name": "test_relu_small",     folder in the suite (default test_<op>...)
 *      "op": "Relu", "domain": "ai.onnx", "opset": 14, "ir_version": 7,
 *      "attributes": {"alpha": 0.5, "axes": [0, 1], "mode": "constant",
 *                     "alpha:float": 1, "value": {"dtype": ..., "data": ...}},
 *      "inputs": [{"name": "x", "type": "float32[3,4]", "range": [0, 1]},
 *                 {"name": "i", "type": "int64[2]", "value": [0, 2]},
 *                 {"name": "w", "file": "w.npy"}, {"name": ""}],
 *      "outputs": ["y", {"name": "z", "type": "float32[3,4]"}],
 *      "dims": {"N": 4}, "seed": 0, "datasets": 2,
 *      "for_each_type": "T" | {"T": ["float", "float16"]}, "for_each_opset": true,
 *      "rtol": 1e-5, "atol": 1e-6, "allow_nan": false, "force": false}]}
 *
 * Inputs without "value" or "file" are drawn (from "seed", default 0). An
 * attribute's kind is that of its JSON value (a whole number is an int; a
 * list of them ints; strings; an object is a tensor in onnxop's JSON form);
 * "NAME:KIND" forces one, as -a NAME:KIND=VALUE does. Unknown keys are
 * errors, with the nearest known key. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api/api.h"
#include "../io/io.h"
#include "cli.h"
#include "make.h"

typedef struct {
  ox_arena *A;
  ox_err *e;
  const char *dir;  /* the spec's folder, for "file" */
  char where[160];  /* "case 3 ('test_x')" */
} rd;

static int bad(rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(rd *r, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ox_fail(r->e, OX_EUSAGE, "%s: %s", r->where, msg);
}

/* every key of obj must be one of keys */
static int known_keys(rd *r, const cJSON *obj, const char *what, const char *const *keys) {
  int n = 0;
  while (keys[n]) n++;
  for (const cJSON *k = obj->child; k; k = k->next) {
    int ok = 0;
    for (int i = 0; i < n; i++) ok |= !strcmp(k->string, keys[i]);
    if (ok) continue;
    const char *near = ox_suggest(k->string, keys, n);
    return bad(r, "%s has no key \"%s\"%s%s%s", what, k->string, near ? "; did you mean \"" : "", near ? near : "",
               near ? "\"?" : "");
  }
  return 0;
}

static int get_str(rd *r, const cJSON *obj, const char *key, const char **out) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!j) return 0;
  if (!cJSON_IsString(j)) return bad(r, "\"%s\" must be a string", key);
  if (!(*out = ox_strdup(r->A, j->valuestring))) return ox_oom(r->e, NULL);
  return 0;
}

/* a whole number in [lo, hi] (a JSON number, or a decimal string for big ones) */
static int get_int(rd *r, const cJSON *obj, const char *key, int64_t lo, int64_t hi, int64_t *out) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!j) return 0;
  if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) || j->valuedouble < (double)lo ||
      j->valuedouble > (double)hi)
    return bad(r, "\"%s\" must be a whole number from %lld to %lld", key, (long long)lo, (long long)hi);
  *out = (int64_t)j->valuedouble;
  return 0;
}

static int get_bool(rd *r, const cJSON *obj, const char *key, int *out) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!j) return 0;
  if (!cJSON_IsBool(j)) return bad(r, "\"%s\" must be true or false", key);
  *out = cJSON_IsTrue(j);
  return 0;
}

static int get_num(rd *r, const cJSON *obj, const char *key, int *has, double *out) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!j) return 0;
  /* 1e400 parses as infinity, which data.json cannot hold (JSON has none) */
  if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0) || !isfinite(j->valuedouble))
    return bad(r, "\"%s\" must be a finite number >= 0", key);
  *has = 1;
  *out = j->valuedouble;
  return 0;
}

/* JSON text of j, in the arena */
static const char *json_text(rd *r, const cJSON *j) {
  char *t = cJSON_PrintUnformatted(j);
  const char *s = t ? ox_strdup(r->A, t) : NULL;
  cJSON_free(t);
  if (!s) ox_oom(r->e, NULL);
  return s;
}

/* "file": relative to the spec's folder, and always a path: "-" is a file
 * named so, never standard input, and "float32[2]:1,2" no inline value
 * (ox_load_value would take either as the command line means them) */
static const char *spec_path(rd *r, const char *f) {
  return f[0] == '/' ? f : ox_sprintf(r->A, "%s/%s", r->dir, f);
}

static int is_whole(const cJSON *x) {
  return cJSON_IsNumber(x) && x->valuedouble == floor(x->valuedouble) && fabs(x->valuedouble) < 9.2e18;
}

/* One attribute from "NAME[:KIND]": VALUE. Without KIND the JSON value says:
 * a whole number is an int, another number a float, true/false an int, a
 * string a string, a list of whole numbers ints, of numbers floats, of
 * strings strings, an object a tensor (onnxop's JSON form). KIND (int,
 * float, string, ints, floats, strings, tensor: the object or a value file,
 * type: an ONNX type string) forces one. */
static int attribute(rd *r, const cJSON *j, ox_attr *at) {
  const char *key = j->string, *colon = strchr(key, ':');
  const char *kind = colon ? colon + 1 : NULL;
  at->name = colon ? ox_strndup(r->A, key, (size_t)(colon - key)) : ox_strdup(r->A, key);
  if (!at->name) return ox_oom(r->e, NULL);
  int n = cJSON_IsArray(j) ? cJSON_GetArraySize(j) : 0, nums = 1, strs = 1, whole = 1;
  for (const cJSON *x = cJSON_IsArray(j) ? j->child : NULL; x; x = x->next) {
    nums &= cJSON_IsNumber(x);
    strs &= cJSON_IsString(x);
    whole &= is_whole(x);
  }
  if (!kind) {
    kind = cJSON_IsObject(j) ? "tensor" : cJSON_IsBool(j) ? "int" : is_whole(j) ? "int" : cJSON_IsNumber(j) ? "float"
         : cJSON_IsString(j) ? "string" : !cJSON_IsArray(j) ? "?" : !n || (nums && whole) ? "ints" : nums ? "floats"
         : strs ? "strings" : "?";
    if (!strcmp(kind, "?"))
      return bad(r, "attribute \"%s\" must be a number, a string, a list of numbers or of strings, or a tensor "
                 "object", key);
  }
  char why[160];
  ox_err le = {0};
  if (!strcmp(kind, "int") && (is_whole(j) || cJSON_IsBool(j))) {
    at->type = OX_ATTR_INT;
    at->i = cJSON_IsBool(j) ? cJSON_IsTrue(j) : (int64_t)j->valuedouble;
  } else if (!strcmp(kind, "float") && cJSON_IsNumber(j)) {
    at->type = OX_ATTR_FLOAT;
    at->f = (float)j->valuedouble;
  } else if (!strcmp(kind, "string") && cJSON_IsString(j)) {
    at->type = OX_ATTR_STRING;
    at->s = (ox_str){ox_strdup(r->A, j->valuestring), (int64_t)strlen(j->valuestring)};
  } else if ((!strcmp(kind, "ints") && nums && whole) || (!strcmp(kind, "floats") && nums)) {
    if (!cJSON_IsArray(j)) return bad(r, "attribute \"%s\" must be a list", key);
    int isf = kind[0] == 'f', i = 0;
    at->type = isf ? OX_ATTR_FLOATS : OX_ATTR_INTS;
    at->n = n;
    at->ints = isf ? NULL : ox_alloc_array(r->A, n + 1, sizeof *at->ints);
    at->floats = isf ? ox_alloc_array(r->A, n + 1, sizeof *at->floats) : NULL;
    if (isf ? !at->floats : !at->ints) return ox_oom(r->e, NULL);
    for (const cJSON *x = j->child; x; x = x->next, i++)
      if (isf) at->floats[i] = (float)x->valuedouble;
      else at->ints[i] = (int64_t)x->valuedouble;
  } else if (!strcmp(kind, "strings") && cJSON_IsArray(j) && strs) {
    int i = 0;
    at->type = OX_ATTR_STRINGS;
    at->n = n;
    if (!(at->strings = ox_alloc_array(r->A, n + 1, sizeof *at->strings))) return ox_oom(r->e, NULL);
    for (const cJSON *x = j->child; x; x = x->next, i++)
      at->strings[i] = (ox_str){ox_strdup(r->A, x->valuestring), (int64_t)strlen(x->valuestring)};
  } else if (!strcmp(kind, "tensor") && (cJSON_IsObject(j) || cJSON_IsString(j))) {
    at->type = OX_ATTR_TENSOR;
    int rc;
    if (cJSON_IsObject(j)) {
      const char *t = json_text(r, j);
      if (!t) return r->e->code;
      rc = ox_api_value_json(r->A, t, strlen(t), NULL, &at->t, &le);
    } else {
      rc = ox_api_value_load(r->A, spec_path(r, j->valuestring), NULL, &at->t, NULL, &le);
    }
    if (rc) return bad(r, "attribute \"%s\": %s", key, le.msg);
    if (at->t->kind != OX_TENSOR) return bad(r, "attribute \"%s\" does not hold a tensor", key);
  } else if (!strcmp(kind, "type") && cJSON_IsString(j)) {
    at->type = OX_ATTR_TYPE_PROTO;
    if (!(at->tp = ox_type_parse(r->A, j->valuestring, 0, why, sizeof why)) && !why[0])
      return ox_oom(r->e, NULL);
    if (!at->tp)
      return bad(r, "attribute \"%s\": '%s' is not an ONNX type: %s", key, j->valuestring, why);
  } else {
    static const char *const kinds[] = {"int", "float", "string", "ints", "floats", "strings", "tensor", "type"};
    int known = 0;
    for (int k = 0; k < 8; k++) known |= !strcmp(kind, kinds[k]);
    if (!known) return bad(r, "attribute \"%s\": unknown kind '%s' (int, float, string, ints, floats, strings, "
                           "tensor, type)", key, kind);
    return bad(r, "attribute \"%s\": this JSON value is not a%s %s", key, kind[0] == 'i' ? "n" : "", kind);
  }
  return 0;
}

static int one_case(rd *r, const cJSON *j, mk_case *c) {
  static const char *const keys[] = {"name", "op", "domain", "opset", "ir_version", "attributes", "inputs",
                                     "outputs", "dims", "seed", "datasets", "for_each_type", "for_each_opset",
                                     "rtol", "atol", "allow_nan", "force", NULL};
  static const char *const in_keys[] = {"name", "type", "value", "file", "range", "random", NULL};
  static const char *const out_keys[] = {"name", "type", NULL};
  if (!cJSON_IsObject(j)) return bad(r, "a case must be an object");
  const cJSON *jn = cJSON_GetObjectItemCaseSensitive(j, "name");
  if (cJSON_IsString(jn)) {
    size_t l = strlen(r->where);
    snprintf(r->where + l, sizeof r->where - l, " ('%.60s')", jn->valuestring);
  }
  OX_TRY(known_keys(r, j, "a case", keys));
  *c = (mk_case){.datasets = 1};
  int64_t x = 1;
  OX_TRY(get_str(r, j, "name", &c->name));
  OX_TRY(get_str(r, j, "op", &c->op));
  if (!c->op || !*c->op) return bad(r, "\"op\" is missing");
  OX_TRY(get_str(r, j, "domain", &c->domain));
  OX_TRY(get_int(r, j, "opset", 1, 100000, &c->opset));
  OX_TRY(get_int(r, j, "ir_version", 1, 100000, &c->ir));
  OX_TRY(get_int(r, j, "datasets", 1, 10000, &x));
  c->datasets = (int)x;
  OX_TRY(get_bool(r, j, "for_each_opset", &c->each_opset));
  OX_TRY(get_bool(r, j, "allow_nan", &c->allow_nan));
  OX_TRY(get_bool(r, j, "force", &c->force));
  OX_TRY(get_num(r, j, "rtol", &c->has_rtol, &c->rtol));
  OX_TRY(get_num(r, j, "atol", &c->has_atol, &c->atol));
  if (c->opset && c->each_opset) return bad(r, "give either \"opset\" or \"for_each_opset\", not both");
  /* a seed as --random takes it (ox_parse_seed: 0 to 2^64-1, nothing
   * clamped), as a decimal string, or as a JSON number where one is exact */
  const cJSON *seed = cJSON_GetObjectItemCaseSensitive(j, "seed");
  if (seed) {
    int ok = 0;
    if (cJSON_IsNumber(seed) && seed->valuedouble >= 0 && seed->valuedouble == floor(seed->valuedouble) &&
        seed->valuedouble <= 9007199254740992.0)
      c->seed = (uint64_t)seed->valuedouble, ok = 1;
    else if (cJSON_IsString(seed))
      ok = !ox_parse_seed(seed->valuestring, &c->seed);
    if (!ok) return bad(r, "\"seed\" must be a whole number from 0 to 2^64-1 (a decimal string past 2^53)");
  }
  /* for_each_type: "T", "T=float,int64" or {"T": ["float", "int64"]} */
  const cJSON *ft = cJSON_GetObjectItemCaseSensitive(j, "for_each_type");
  if (cJSON_IsString(ft)) {
    const char *eq = strchr(ft->valuestring, '=');
    c->each_type = eq ? ox_strndup(r->A, ft->valuestring, (size_t)(eq - ft->valuestring)) : ox_strdup(r->A, ft->valuestring);
    c->each_list = eq ? ox_strdup(r->A, eq + 1) : NULL;
  } else if (cJSON_IsObject(ft) && ft->child && !ft->child->next && cJSON_IsArray(ft->child)) {
    c->each_type = ox_strdup(r->A, ft->child->string);
    ox_buf b = {0};
    for (const cJSON *t = ft->child->child; t; t = t->next) {
      if (!cJSON_IsString(t)) {
        ox_buf_free(&b);
        return bad(r, "\"for_each_type\": the types must be strings");
      }
      ox_buf_printf(&b, "%s%s", t == ft->child->child ? "" : ",", t->valuestring);
    }
    if (!ft->child->child) return bad(r, "\"for_each_type\": no types in the list (a sweep of none makes no case)");
    ox_buf_put(&b, "", 1);
    c->each_list = b.p ? ox_strdup(r->A, (const char *)b.p) : NULL;
    ox_buf_free(&b);
    if (!c->each_list) return ox_oom(r->e, NULL);
  } else if (ft) {
    return bad(r, "\"for_each_type\" must be \"T\", \"T=float,int64\" or {\"T\": [\"float\", \"int64\"]}");
  }
  if (c->each_type && (!*c->each_type || ox_dtype_from_name(c->each_type)))
    return bad(r, "\"for_each_type\" needs a placeholder such as T (not a dtype)");
  /* attributes */
  const cJSON *ja = cJSON_GetObjectItemCaseSensitive(j, "attributes");
  if (ja && !cJSON_IsObject(ja)) return bad(r, "\"attributes\" must be an object (NAME: value)");
  c->attr = ox_alloc_array(r->A, cJSON_GetArraySize(ja) + 1, sizeof *c->attr);
  if (!c->attr) return ox_oom(r->e, NULL);
  for (const cJSON *a = ja ? ja->child : NULL; a; a = a->next) OX_TRY(attribute(r, a, &c->attr[c->nattr++]));
  const char *twice; /* "alpha" twice, or "alpha" and "alpha:float": onnx.checker refuses it */
  OX_TRY(ox_attr_twice(c->nattr, c->attr, &twice, r->e));
  if (twice) return bad(r, "attribute \"%s\" is given twice", twice);
  /* dims */
  const cJSON *jd = cJSON_GetObjectItemCaseSensitive(j, "dims");
  if (jd && !cJSON_IsObject(jd)) return bad(r, "\"dims\" must be an object (NAME: size)");
  c->dim = ox_alloc_array(r->A, cJSON_GetArraySize(jd) + 1, sizeof *c->dim);
  if (!c->dim) return ox_oom(r->e, NULL);
  for (const cJSON *d = jd ? jd->child : NULL; d; d = d->next) {
    if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble != floor(d->valuedouble) || d->valuedouble > 1e15)
      return bad(r, "\"dims\": \"%s\" must be a size (a whole number >= 0)", d->string);
    c->dim[c->ndim++] = (mk_dim){ox_strdup(r->A, d->string), (int64_t)d->valuedouble};
  }
  /* inputs */
  const cJSON *ji = cJSON_GetObjectItemCaseSensitive(j, "inputs");
  if (ji && !cJSON_IsArray(ji)) return bad(r, "\"inputs\" must be a list");
  c->in = ox_alloc_array(r->A, cJSON_GetArraySize(ji) + 1, sizeof *c->in);
  if (!c->in) return ox_oom(r->e, NULL);
  int k = 0;
  for (const cJSON *in = ji ? ji->child : NULL; in; in = in->next, k++) {
    char what[48];
    snprintf(what, sizeof what, "\"inputs\"[%d]", k);
    if (!cJSON_IsObject(in)) return bad(r, "%s must be an object", what);
    OX_TRY(known_keys(r, in, what, in_keys));
    mk_input *m = &c->in[c->nin++];
    *m = (mk_input){0};
    OX_TRY(get_str(r, in, "name", &m->name));
    if (!m->name) return bad(r, "%s has no \"name\" (\"\" for a missing optional input)", what);
    OX_TRY(get_str(r, in, "type", &m->type));
    OX_TRY(get_str(r, in, "file", &m->file));
    if (m->file && !(m->file = spec_path(r, m->file))) return ox_oom(r->e, NULL);
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(in, "value");
    if (val && !(m->json = json_text(r, val))) return r->e->code;
    if (m->file && m->json) return bad(r, "%s: give \"value\" or \"file\", not both", what);
    int draw = 1;
    OX_TRY(get_bool(r, in, "random", &draw));
    if (draw && cJSON_GetObjectItemCaseSensitive(in, "random") && (m->file || m->json))
      return bad(r, "%s: \"random\": true with a \"value\" or \"file\"", what);
    if (!draw && !m->file && !m->json && *m->name) return bad(r, "%s: \"random\": false needs a \"value\" or \"file\"", what);
    const cJSON *rg = cJSON_GetObjectItemCaseSensitive(in, "range");
    if (rg) {
      if (!cJSON_IsArray(rg) || cJSON_GetArraySize(rg) != 2 || !cJSON_IsNumber(rg->child) ||
          !cJSON_IsNumber(rg->child->next) || !(rg->child->valuedouble <= rg->child->next->valuedouble) ||
          !isfinite(rg->child->valuedouble) || !isfinite(rg->child->next->valuedouble))
        return bad(r, "%s: \"range\" must be [LO, HI], two finite numbers with LO <= HI", what);
      m->ranged = 1;
      m->lo = rg->child->valuedouble;
      m->hi = rg->child->next->valuedouble;
    }
    if (*m->name && !m->file && !m->json) c->random = 1;
  }
  /* outputs: names, or {"name", "type"} */
  const cJSON *jo = cJSON_GetObjectItemCaseSensitive(j, "outputs");
  if (jo && !cJSON_IsArray(jo)) return bad(r, "\"outputs\" must be a list");
  c->out = ox_alloc_array(r->A, cJSON_GetArraySize(jo) + 2, sizeof *c->out);
  if (!c->out) return ox_oom(r->e, NULL);
  k = 0;
  for (const cJSON *o = jo ? jo->child : NULL; o; o = o->next, k++) {
    char what[48];
    snprintf(what, sizeof what, "\"outputs\"[%d]", k);
    mk_output *m = &c->out[c->nout++];
    *m = (mk_output){0};
    if (cJSON_IsString(o)) {
      m->name = ox_strdup(r->A, o->valuestring);
    } else if (cJSON_IsObject(o)) {
      OX_TRY(known_keys(r, o, what, out_keys));
      OX_TRY(get_str(r, o, "name", &m->name));
      OX_TRY(get_str(r, o, "type", &m->type));
    }
    if (!m->name || !*m->name) return bad(r, "%s must be a name, or {\"name\": ..., \"type\": ...}", what);
  }
  if (!c->nout) c->out[c->nout++] = (mk_output){"output", NULL};
  return 0;
}

int ox_spec_load(ox_arena *A, const char *path, mk_case **cases, int *n, ox_err *e) {
  uint8_t *data;
  size_t len;
  size_t failures = ox_mem_failures(); /* after this: memory ran out, whatever was said */
  OX_TRY(ox_read_file(A, path, &data, &len, e));
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts((const char *)data, len, &end, 0);
  if (!root && ox_mem_failures() != failures) return ox_oom(e, NULL);
  if (!root) {
    int line = 1;
    for (const char *q = (const char *)data; end && q < end; q++) line += *q == '\n';
    return ox_fail(e, OX_EUSAGE, "not valid JSON (line %d)", line);
  }
  const char *slash = strrchr(path, '/');
  rd r = {A, e, slash ? (slash == path ? "/" : ox_strndup(A, path, (size_t)(slash - path))) : ".", "the spec"};
  if (!r.dir) {
    cJSON_Delete(root);
    return ox_oom(e, NULL);
  }
  const cJSON *list = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "cases");
  int rc = 0;
  static const char *const top_keys[] = {"cases", NULL};
  if (cJSON_IsObject(root)) rc = known_keys(&r, root, "the spec", top_keys);
  if (!rc && !cJSON_IsArray(list)) rc = bad(&r, "expected {\"cases\": [...]} or a list of cases");
  int count = rc ? 0 : cJSON_GetArraySize(list);
  if (!rc && !count) rc = bad(&r, "no cases");
  mk_case *cs = rc ? NULL : ox_alloc_array(A, count, sizeof *cs);
  if (!rc && !cs) rc = ox_oom(e, NULL);
  int i = 0;
  for (const cJSON *j = rc ? NULL : list->child; j && !rc; j = j->next, i++) {
    snprintf(r.where, sizeof r.where, "case %d", i);
    rc = one_case(&r, j, &cs[i]);
    /* the provenance: the spec file and its entry as written */
    cJSON *prov = rc ? NULL : cJSON_CreateObject();
    if (!rc && (!prov || !cJSON_AddStringToObject(prov, "spec", path) ||
                !cJSON_AddItemToObject(prov, "entry", cJSON_Duplicate(j, 1))))
      rc = ox_oom(e, NULL);
    cs[i].prov = prov;
  }
  /* a case read while memory ran out may have lost a name or a type (the
   * ox_strdup's above are not each checked) and been refused for it */
  if (ox_mem_failures() != failures) ox_err_clear(e), rc = ox_oom(e, NULL);
  if (rc) {
    for (int k = 0; k < i && cs; k++) cJSON_Delete(cs[k].prov);
    cJSON_Delete(root);
    return rc;
  }
  cJSON_Delete(root);
  *cases = cs;
  *n = count;
  return 0;
}
