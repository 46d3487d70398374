/* cli/show.c: onnxop show FILE... [--full] [--stats] prints values as the
 * ONNX operator pages do; onnxop info MODEL describes a model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../io/io.h"
#include "../proto/proto.h"
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
      puts("usage: onnxop show FILE... [--full] [--stats]\n\n"
           "Print values (.pb or .json: tensors, sequences, optionals, maps; .npy and\n"
           ".npz: tensors, every member of an .npz) as the ONNX operator pages show\n"
           "them: name, shape and dtype, then the values as numpy prints them. Long\n"
           "tensors are summarised with ...; --full prints every element. --stats adds\n"
           "min, max, mean and the NaN/Inf counts.");
      return 0;
    }
    if (!strcmp(a, "--full")) full = 1;
    else if (!strcmp(a, "--stats")) st = 1;
    else if (a[0] == '-' && a[1]) return ox_usage_error("show", "unknown option '%s'", a);
    else nfiles++;
  }
  if (!nfiles) return ox_usage_error("show", "no FILE given");
  ox_text_full = full;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) continue;
    ox_arena *A = ox_arena_new();
    ox_err e = {0};
    const char **mem = NULL, *one = argv[i];
    int64_t nm = 1;
    /* an .npz without a member: every member */
    if (ox_format_of(argv[i]) == OX_FMT_NPZ && !strchr(argv[i], ':') && ox_npz_members(A, argv[i], &mem, &nm, &e)) {
      fprintf(stderr, "onnxop: %s: %s\n", argv[i], e.msg);
      rc = OX_EINPUT;
      nm = 0;
    }
    for (int64_t k = 0; k < nm; k++) {
      ox_value *v = NULL;
      const char *name = NULL, *path = mem ? ox_sprintf(A, "%s:%s", argv[i], mem[k]) : one;
      if (ox_load_value(A, path, NULL, NULL, &v, &name, &e)) {
        fprintf(stderr, "onnxop: %s: %s\n", path, e.msg);
        rc = e.code == OX_EUSAGE ? OX_EUSAGE : OX_EINPUT;
        ox_err_clear(&e);
      } else {
        ox_text_print(stdout, name && *name ? name : argv[i], v, 2);
        if (st) stats(v, "", 4);
      }
    }
    ox_arena_free(A);
  }
  return rc;
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

static void nodes(const ox_model *m, int n, const ox_node *ns, int indent, int *unsupported) {
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
    if (is_fn) printf("  [model-local function]");
    else if (!k) {
      printf("  [unsupported in this build: opset %lld]", (long long)opset);
      (*unsupported)++;
    }
    printf("\n");
    for (int j = 0; j < nd->nattr; j++) {
      const ox_attr *at = &nd->attr[j];
      if (at->g) {
        printf("%*s  %s: graph '%s', %d nodes\n", indent, "", at->name, at->g->name, at->g->nnode);
        nodes(m, at->g->nnode, at->g->node, indent + 4, unsupported);
      }
    }
  }
}

int ox_cmd_info(int argc, char **argv) {
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      puts("usage: onnxop info MODEL\n\n"
           "Describe a model: IR version, opset imports, inputs and outputs with their\n"
           "types and shapes, the nodes (op-version, name, inputs, outputs), the\n"
           "initializers, the functions, and which nodes this build cannot run.");
      return 0;
    }
    if (argv[i][0] == '-' && argv[i][1]) return ox_usage_error("info", "unknown option '%s'", argv[i]);
    if (path) return ox_usage_error("info", "give one MODEL");
    path = argv[i];
  }
  if (!path) return ox_usage_error("info", "no MODEL given");
  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  if (ox_model_load(A, path, &m, &e)) {
    fprintf(stderr, "onnxop: %s: %s\n", path, e.msg);
    ox_arena_free(A);
    return OX_EINPUT;
  }
  const ox_graph *g = m->graph;
  printf("model: %s\n  ir_version: %lld\n  opset_import:", path, (long long)m->ir_version);
  for (int i = 0; i < m->nopset; i++)
    printf("%s %s %lld", i ? "," : "", m->opset[i].domain[0] ? m->opset[i].domain : "ai.onnx",
           (long long)m->opset[i].version);
  printf("\n  graph: '%s'\n  inputs:\n", g->name ? g->name : "");
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
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
  int unsupported = 0;
  printf("  nodes: %d\n", g->nnode);
  nodes(m, g->nnode, g->node, 4, &unsupported);
  printf("  functions: %d\n", m->nfunc);
  for (int i = 0; i < m->nfunc; i++) {
    const ox_function *f = &m->func[i];
    printf("    %s%s%s: %d inputs, %d outputs, %d nodes\n", f->domain && f->domain[0] ? f->domain : "",
           f->domain && f->domain[0] ? "." : "", f->name, f->nin, f->nout, f->nnode);
    nodes(m, f->nnode, f->node, 6, &unsupported);
  }
  if (unsupported) printf("  %d node%s cannot run in this build\n", unsupported, unsupported == 1 ? "" : "s");
  else printf("  every node can run in this build\n");
  ox_arena_free(A);
  return 0;
}
