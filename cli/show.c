/* cli/show.c: onnxop show FILE... [--full] [--stats] prints values as the
 * ONNX operator pages do; onnxop info MODEL describes a model. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"
#include "../proto/proto.h"
#include "../core/schema.h"
#include "cli.h"

/* min, max, mean and the NaN/Inf counts of every numeric tensor in v */
static void stats(const ox_value *v, const char *label, int indent) {
  if (!v) return;
  if (v->kind == OX_SEQUENCE) {
    for (int64_t i = 0; i < v->u.seq.n; i++) {
      char l[64];
      snprintf(l, sizeof l, "[%lld] ", (long long)i);
      stats(v->u.seq.v[i], l, indent);
    }
    return;
  }
  if (v->kind == OX_OPTIONAL) {
    stats(v->u.opt, label, indent);
    return;
  }
  if (v->kind != OX_TENSOR || v->u.t.dt == OX_STRING) return;
  const ox_tensor *t = &v->u.t;
  double mn = INFINITY, mx = -INFINITY, sum = 0;
  int64_t nan = 0, inf = 0, fin = 0;
  for (int64_t i = 0; i < t->n; i++) {
    double x = ox_load_f64(t->dt, t->data, i);
    if (isnan(x)) { nan++; continue; }
    if (isinf(x)) inf++;
    if (x < mn) mn = x;
    if (x > mx) mx = x;
    if (isfinite(x)) { sum += x; fin++; }
  }
  printf("%*s%sstats: ", indent, "", label);
  if (fin + inf) printf("min=%.9g max=%.9g ", mn, mx);
  if (fin) printf("mean=%.9g ", sum / (double)fin);
  printf("nan=%lld inf=%lld\n", (long long)nan, (long long)inf);
}

int ox_cmd_show(int argc, char **argv) {
  int full = 0, st = 0, nfiles = 0, rc = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs("usage: onnxop show FILE... [--full] [--stats]\n\n"
            "Print values (.pb or .json: tensors, sequences, optionals, maps; .npy and\n"
            ".npz: tensors, every member of an .npz) as the ONNX operator pages show\n"
            "them: name, shape and dtype, then the values as numpy prints them. Long\n"
            "tensors are summarised with ...; --full prints every element. --stats adds\n"
            "min, max, mean and the NaN/Inf counts.\n\n"
            "exit status:\n"
            "  0      success\n"
            "  1      a FILE was rejected, or standard output could not be written (the\n"
            "         printing stops there)\n"
            OX_EXIT_HELP_2
            OX_EXIT_HELP_SIGNAL,
            stdout);
      return 0;
    }
    if (!strcmp(a, "--full")) full = 1;
    else if (!strcmp(a, "--stats")) st = 1;
    else if (a[0] == '-' && a[1]) return ox_usage_error("show", "unknown option '%s'", a);
    else nfiles++;
  }
  if (!nfiles) return ox_usage_error("show", "no FILE given");
  ox_text_full = full;
  for (int i = 1; i < argc && !ferror(stdout); i++) {
    if (argv[i][0] == '-' && argv[i][1]) continue;
    ox_arena *A = ox_arena_new();
    ox_err e = {0};
    const char **mem = NULL, *one = argv[i];
    int64_t nm = 1;
    if (!A) {
      rc = ox_cli_oom("show", NULL);
      break;
    }
    /* an .npz without a member: every member */
    if (ox_format_of(argv[i]) == OX_FMT_NPZ && !strchr(argv[i], ':') && ox_npz_members(A, argv[i], &mem, &nm, &e)) {
      fprintf(stderr, "onnxop: %s: %s\n", argv[i], e.msg);
      rc = OX_EINPUT;
      nm = 0;
    }
    for (int64_t k = 0; k < nm && !ferror(stdout); k++) {
      ox_value *v = NULL;
      const char *name = NULL, *path = mem ? ox_sprintf(A, "%s:%s", argv[i], mem[k]) : one;
      if (!path) {
        rc = ox_cli_oom("show", NULL);
        break;
      }
      if (ox_load_value(A, path, NULL, NULL, &v, &name, &e)) {
        fprintf(stderr, "onnxop: %s: %s\n", path, e.msg);
        rc = e.code == OX_EUSAGE ? OX_EUSAGE : OX_EINPUT;
        ox_err_clear(&e);
      } else if (ox_text_print(stdout, name && *name ? name : argv[i], v, 2)) {
        /* a write error stops the loops (main says so); else memory ran out */
        rc = ferror(stdout) ? OX_EINPUT : ox_cli_oom("show", "printing the value");
      } else if (st) {
        stats(v, "", 4);
      }
    }
    ox_arena_free(A);
  }
  return ferror(stdout) ? OX_EINPUT : rc;
}

/* ---- info ---- */

static void vi_line(const ox_valueinfo *vi) {
  char ty[256] = "?", sh[512] = "";
  if (vi->type) ox_type_str(vi->type, ty, sizeof ty);
  if (vi->rank >= 0) {
    size_t at = (size_t)snprintf(sh, sizeof sh, " (");
    for (int d = 0; d < vi->rank && at < sizeof sh; d++)
      at += vi->dims[d] >= 0 ? (size_t)snprintf(sh + at, sizeof sh - at, d ? ", %lld" : "%lld", (long long)vi->dims[d])
                             : (size_t)snprintf(sh + at, sizeof sh - at, d ? ", ?" : "?");
    if (at < sizeof sh) snprintf(sh + at, sizeof sh - at, "%s)", vi->rank == 1 ? "," : "");
  }
  printf("    %s: %s%s\n", vi->name, ty, sh);
}

/* Why a node whose op this build has cannot run either: the message `run`
 * refuses the model with (an attribute missing, undeclared or of the wrong
 * type), or NULL. */
static const char *node_problem(const ox_kernel *k, const ox_node *nd, int64_t opset,
                                ox_err *e) {
  if (!k) return NULL;
  const ox_schema *s = ox_schema_find(nd->domain, nd->op, opset);
  return s && ox_schema_check(s, nd, e) ? e->msg : NULL;
}

/* cant[0]: nodes whose operator this build lacks; cant[1]: nodes it has but
 * that cannot run as written (an attribute missing, undeclared or mistyped). */
static void nodes(const ox_model *m, int n, const ox_node *ns, int indent, int cant[2]) {
  for (int i = 0; i < n; i++) {
    const ox_node *nd = &ns[i];
    int64_t opset = ox_opset_of(m->nopset, m->opset, nd->domain);
    const ox_kernel *k = ox_registry_find(nd->domain, nd->op, opset);
    int is_fn = 0;
    for (int f = 0; f < m->nfunc; f++)
      if (!strcmp(m->func[f].name, nd->op) && ox_domain_eq(m->func[f].domain, nd->domain)) is_fn = 1;
    printf("%*s", indent, "");
    if (k) printf("%s-%d", nd->op, k->since);
    else printf("%s", nd->op);
    if (nd->domain[0]) printf(" (%s)", nd->domain);
    printf(" '%s' (", nd->name);
    for (int j = 0; j < nd->nin; j++) printf("%s%s", j ? ", " : "", nd->in[j]);
    printf(") -> (");
    for (int j = 0; j < nd->nout; j++) printf("%s%s", j ? ", " : "", nd->out[j]);
    printf(")");
    ox_err e = {0};
    const char *problem = is_fn ? NULL : node_problem(k, nd, opset, &e);
    if (is_fn) printf("  [model-local function]");
    else if (!k) {
      printf("  [unsupported in this build: opset %lld]", (long long)opset);
      cant[0]++;
    } else if (problem) {
      printf("  [cannot run: %s]", problem);
      cant[1]++;
    }
    printf("\n");
    for (int j = 0; j < nd->nattr; j++) {
      const ox_attr *at = &nd->attr[j];
      if (at->g) {
        printf("%*s  %s: graph '%s', %d nodes\n", indent, "", at->name, at->g->name, at->g->nnode);
        nodes(m, at->g->nnode, at->g->node, indent + 4, cant);
      }
    }
  }
}

/* ---- info --json: the same facts as objects ---- */

static cJSON *vi_json(const ox_valueinfo *vi) {
  char ty[256];
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", vi->name);
  if (vi->type) cJSON_AddStringToObject(o, "type", ox_type_str(vi->type, ty, sizeof ty));
  else cJSON_AddNullToObject(o, "type");
  if (vi->rank >= 0) {
    cJSON *sh = cJSON_AddArrayToObject(o, "shape");
    for (int d = 0; d < vi->rank; d++)
      ox_cjson_push(sh, vi->dims[d] >= 0 ? cJSON_CreateNumber((double)vi->dims[d]) : cJSON_CreateNull());
  } else {
    cJSON_AddNullToObject(o, "shape");
  }
  return o;
}

static cJSON *names_json(int n, const char *const *v) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) ox_cjson_push(a, cJSON_CreateString(v[i]));
  return a;
}

static cJSON *nodes_json(const ox_model *m, int n, const ox_node *ns, int *unsupported) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < n; i++) {
    const ox_node *nd = &ns[i];
    int64_t opset = ox_opset_of(m->nopset, m->opset, nd->domain);
    const ox_kernel *k = ox_registry_find(nd->domain, nd->op, opset);
    int is_fn = 0;
    for (int f = 0; f < m->nfunc; f++)
      if (!strcmp(m->func[f].name, nd->op) && ox_domain_eq(m->func[f].domain, nd->domain)) is_fn = 1;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", nd->op);
    cJSON_AddStringToObject(o, "domain", nd->domain[0] ? nd->domain : "ai.onnx");
    cJSON_AddNumberToObject(o, "opset", (double)opset);
    if (k) cJSON_AddNumberToObject(o, "since", k->since);
    else cJSON_AddNullToObject(o, "since");
    cJSON_AddStringToObject(o, "name", nd->name);
    ox_cjson_add(o, "inputs", names_json(nd->nin, nd->in));
    ox_cjson_add(o, "outputs", names_json(nd->nout, nd->out));
    ox_err e = {0};
    const char *problem = is_fn ? NULL : node_problem(k, nd, opset, &e);
    cJSON_AddBoolToObject(o, "function", is_fn);
    cJSON_AddBoolToObject(o, "supported", is_fn || (k && !problem));
    if (problem) cJSON_AddStringToObject(o, "problem", problem);
    if (!is_fn && (!k || problem)) (*unsupported)++;
    cJSON *sub = NULL;
    for (int j = 0; j < nd->nattr; j++) {
      const ox_attr *at = &nd->attr[j];
      if (!at->g) continue;
      if (!sub) sub = cJSON_AddArrayToObject(o, "subgraphs");
      cJSON *g = cJSON_CreateObject();
      cJSON_AddStringToObject(g, "attribute", at->name);
      cJSON_AddStringToObject(g, "graph", at->g->name ? at->g->name : "");
      ox_cjson_add(g, "nodes", nodes_json(m, at->g->nnode, at->g->node, unsupported));
      ox_cjson_push(sub, g);
    }
    ox_cjson_push(arr, o);
  }
  return arr;
}

/* invalid: why ox_model_check refuses the model, or NULL */
static int info_json(ox_arena *A, const char *path, const ox_model *m, const char *invalid, ox_err *e) {
  const ox_graph *g = m->graph;
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  if (!real) return ox_oom(e, NULL);
  size_t failed = ox_mem_failures(); /* a part of the report that could not be made */
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "model", path);
  cJSON_AddNumberToObject(o, "ir_version", (double)m->ir_version);
  cJSON *ops = cJSON_AddArrayToObject(o, "opset_import");
  for (int i = 0; i < m->nopset; i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "domain", m->opset[i].domain[0] ? m->opset[i].domain : "ai.onnx");
    cJSON_AddNumberToObject(x, "version", (double)m->opset[i].version);
    ox_cjson_push(ops, x);
  }
  cJSON_AddStringToObject(o, "graph", g->name ? g->name : "");
  int nreal = ox_graph_real_inputs(g, real);
  cJSON *ins = cJSON_AddArrayToObject(o, "inputs"), *outs = cJSON_AddArrayToObject(o, "outputs");
  for (int i = 0; i < nreal; i++) ox_cjson_push(ins, vi_json(&g->in[real[i]]));
  for (int i = 0; i < g->nout; i++) ox_cjson_push(outs, vi_json(&g->out[i]));
  cJSON *inits = cJSON_AddArrayToObject(o, "initializers");
  for (int i = 0; i < g->ninit; i++) {
    char ty[64];
    const ox_value *v = g->init[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "name", g->init_name[i]);
    cJSON_AddStringToObject(x, "type", ox_value_desc(v, ty, sizeof ty));
    if (v->kind == OX_TENSOR) {
      cJSON *sh = cJSON_AddArrayToObject(x, "shape");
      for (int d = 0; d < v->u.t.rank; d++) ox_cjson_push(sh, cJSON_CreateNumber((double)v->u.t.dims[d]));
    }
    ox_cjson_push(inits, x);
  }
  int unsupported = 0;
  ox_cjson_add(o, "nodes", nodes_json(m, g->nnode, g->node, &unsupported));
  cJSON *fns = cJSON_AddArrayToObject(o, "functions");
  for (int i = 0; i < m->nfunc; i++) {
    const ox_function *f = &m->func[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "domain", f->domain ? f->domain : "");
    cJSON_AddStringToObject(x, "name", f->name);
    ox_cjson_add(x, "inputs", names_json(f->nin, f->in));
    ox_cjson_add(x, "outputs", names_json(f->nout, f->out));
    ox_cjson_add(x, "nodes", nodes_json(m, f->nnode, f->node, &unsupported));
    ox_cjson_push(fns, x);
  }
  cJSON_AddNumberToObject(o, "unsupported", unsupported);
  if (invalid) cJSON_AddStringToObject(o, "invalid", invalid);
  char *text = cJSON_PrintUnformatted(o);
  int rc = 0;
  if (text && ox_mem_failures() == failed) puts(text);
  else rc = ox_oom(e, NULL);
  cJSON_free(text);
  cJSON_Delete(o);
  return rc;
}

int ox_cmd_info(int argc, char **argv) {
  const char *path = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs("usage: onnxop info [--json] MODEL\n\n"
            "Describe a model: IR version, opset imports, inputs and outputs with their\n"
            "types and shapes, the nodes (op-version, name, inputs, outputs), the\n"
            "initializers, the functions, and which nodes cannot run: ops this build\n"
            "lacks, and nodes whose attributes do not fit their op-version: one it\n"
            "requires missing, one it does not declare, one of another type (which\n"
            "`run` refuses). A model whose structure `run` refuses at load (a name\n"
            "given twice, a value that nothing produces, ...) is shown as far as it\n"
            "goes, then said invalid, and why.\n\n"
            "  --json   the same facts as one JSON object: model, ir_version,\n"
            "           opset_import, graph, inputs and outputs (name, type, shape with\n"
            "           null for unknown dims), initializers, nodes (op, domain, opset,\n"
            "           since, name, inputs, outputs, function, supported, problem when\n"
            "           an attribute does not fit the op-version, subgraphs), functions, and\n"
            "           unsupported (the count of nodes that cannot run), and invalid\n"
            "           (why) for an invalid model\n\n"
            "exit status:\n"
            "  0      success, whether or not every node can run\n"
            "  1      MODEL was rejected or is invalid, or standard output could not be\n"
            "         written\n"
            OX_EXIT_HELP_2
            OX_EXIT_HELP_SIGNAL,
            stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--json")) {
      json = 1;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1]) return ox_usage_error("info", "unknown option '%s'", argv[i]);
    if (path) return ox_usage_error("info", "give one MODEL");
    path = argv[i];
  }
  if (!path) return ox_usage_error("info", "no MODEL given");
  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  if (!A) return ox_cli_oom("info", NULL);
  if (ox_model_load(A, path, &m, &e)) {
    fprintf(stderr, "onnxop: %s: %s\n", path, e.msg);
    ox_arena_free(A);
    return e.code;
  }
  /* what `run` checks at load, beyond decoding: the names, the graph's
   * structure (ox_model_check); an invalid model is still shown */
  ox_err ce = {0};
  int invalid = ox_model_check(A, m, &ce);
  if (invalid == OX_ENOMEM) {
    fprintf(stderr, "onnxop: %s: %s\n", path, ce.msg);
    ox_arena_free(A);
    return invalid;
  }
  if (json) {
    int rc = info_json(A, path, m, invalid ? ce.msg : NULL, &e);
    if (rc) fprintf(stderr, "onnxop: %s: %s\n", path, e.msg);
    else if (invalid) fprintf(stderr, "onnxop: %s: invalid model: %s\n", path, ce.msg);
    ox_arena_free(A);
    return rc ? rc : invalid;
  }
  const ox_graph *g = m->graph;
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  if (!real) {
    ox_arena_free(A);
    return ox_cli_oom("info", NULL);
  }
  printf("model: %s\n  ir_version: %lld\n  opset_import:", path, (long long)m->ir_version);
  for (int i = 0; i < m->nopset; i++)
    printf("%s %s %lld", i ? "," : "", m->opset[i].domain[0] ? m->opset[i].domain : "ai.onnx",
           (long long)m->opset[i].version);
  printf("\n  graph: '%s'\n  inputs:\n", g->name ? g->name : "");
  int nreal = ox_graph_real_inputs(g, real);
  for (int i = 0; i < nreal; i++) vi_line(&g->in[real[i]]);
  printf("  outputs:\n");
  for (int i = 0; i < g->nout; i++) vi_line(&g->out[i]);
  printf("  initializers: %d\n", g->ninit);
  for (int i = 0; i < g->ninit; i++) {
    char sh[256], ty[64];
    const ox_value *v = g->init[i];
    printf("    %s: %s %s\n", g->init_name[i], ox_value_desc(v, ty, sizeof ty),
           v->kind == OX_TENSOR ? ox_shape_str(v->u.t.rank, v->u.t.dims, sh, sizeof sh) : "");
  }
  int cant[2] = {0, 0};
  printf("  nodes: %d\n", g->nnode);
  nodes(m, g->nnode, g->node, 4, cant);
  printf("  functions: %d\n", m->nfunc);
  for (int i = 0; i < m->nfunc; i++) {
    const ox_function *f = &m->func[i];
    printf("    %s%s%s: %d inputs, %d outputs, %d nodes\n", f->domain && f->domain[0] ? f->domain : "",
           f->domain && f->domain[0] ? "." : "", f->name, f->nin, f->nout, f->nnode);
    nodes(m, f->nnode, f->node, 6, cant);
  }
  if (cant[0])
    printf("  %d node%s cannot run in this build (operator unsupported)\n", cant[0],
           cant[0] == 1 ? "" : "s");
  if (cant[1])
    printf("  %d node%s cannot run as written (an attribute is missing, undeclared or mistyped)\n", cant[1],
           cant[1] == 1 ? "" : "s");
  if (invalid) printf("  invalid: %s\n", ce.msg);
  else if (!cant[0] && !cant[1]) printf("  every node can run in this build\n");
  ox_arena_free(A);
  if (invalid) fprintf(stderr, "onnxop: %s: invalid model: %s\n", path, ce.msg);
  return invalid;
}
