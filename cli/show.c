/* cli/show.c: onnxop show FILE... [--full] [--stats] prints values as the
 * ONNX operator pages do; onnxop info MODEL describes a model. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api/api.h"
#include "../io/io.h"
#include "cli.h"

/* min, max and mean of a numeric tensor (over its finite elements; min and
 * max over the infinities too), and its NaN and Inf counts */
typedef struct { double min, max, mean; int64_t nan, inf, fin; } tstats;

static int tensor_stats(const ox_tensor *t, tstats *st) {
  if (t->dt == OX_STRING) return -1;
  double sum = 0;
  *st = (tstats){INFINITY, -INFINITY, 0, 0, 0, 0};
  for (int64_t i = 0; i < t->n; i++) {
    double x = ox_load_f64(t->dt, t->data, i);
    if (isnan(x)) { st->nan++; continue; }
    if (isinf(x)) st->inf++;
    if (x < st->min) st->min = x;
    if (x > st->max) st->max = x;
    if (isfinite(x)) { sum += x; st->fin++; }
  }
  st->mean = st->fin ? sum / (double)st->fin : NAN;
  return 0;
}

/* "min=1 max=2 mean=1.5 nan=0 inf=0" (min and max only when there are
 * numbers, mean only when some are finite) */
static void stats_text(char *buf, size_t n, const tstats *st) {
  size_t at = 0;
  buf[0] = 0;
  if (st->fin + st->inf) at += (size_t)snprintf(buf + at, n - at, "min=%.9g max=%.9g ", st->min, st->max);
  if (st->fin && at < n) at += (size_t)snprintf(buf + at, n - at, "mean=%.9g ", st->mean);
  if (at < n) snprintf(buf + at, n - at, "nan=%lld inf=%lld", (long long)st->nan, (long long)st->inf);
}

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
  tstats st;
  char text[256];
  if (v->kind != OX_TENSOR || tensor_stats(&v->u.t, &st)) return;
  stats_text(text, sizeof text, &st);
  printf("%*s%sstats: %s\n", indent, "", label, text);
}

enum { S_HELP, S_FULL, S_STATS };
static const ox_opt show_opts[] = {
    [S_HELP] = {"--help", "-h", NULL},
    [S_FULL] = {"--full", NULL, NULL},
    [S_STATS] = {"--stats", NULL, NULL},
    {NULL, NULL, NULL},
};

int ox_cmd_show(int argc, char **argv) {
  int full = 0, st = 0, nfiles = 0, rc = 0;
  const char **files = ox_heap_calloc((size_t)argc + 1, sizeof *files), *v;
  if (!files) return ox_cli_oom("show", NULL);
  ox_optparse p;
  ox_opt_init(&p, "show", argc, argv, show_opts);
  for (int k; (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    if (k == OX_OPT_ERROR) {
      free(files);
      return OX_EUSAGE;
    }
    if (k == S_HELP) {
      fputs("usage: onnxop show FILE... [--full] [--stats]\n\n"
            "Print values (.pb or .json: tensors, sequences, optionals, maps; .npy and\n"
            ".npz: tensors, every member of an .npz) as the ONNX operator pages show\n"
            "them: name, shape and dtype, then the values as numpy prints them. Long\n"
            "tensors are summarised with ...; --full prints every element. --stats adds\n"
            "min, max, mean and the NaN/Inf counts. FILE '-' is standard input.\n\n"
            "exit status:\n"
            "  0      success\n"
            "  1      a FILE was rejected, or standard output could not be written (the\n"
            "         printing stops there)\n"
            OX_EXIT_HELP_2
            OX_EXIT_HELP_SIGNAL,
            stdout);
      free(files);
      return 0;
    }
    if (k == S_FULL) full = 1;
    else if (k == S_STATS) st = 1;
    else files[nfiles++] = v;
  }
  if (!nfiles) {
    free(files);
    return ox_usage_error("show", "no FILE given");
  }
  for (int i = 0; i < nfiles && !ferror(stdout); i++) {
    ox_arena *A = ox_arena_new();
    ox_err e = {0};
    ox_npz *z = NULL;
    int64_t nm = 1;
    if (!A) {
      rc = ox_cli_oom("show", NULL);
      break;
    }
    /* an .npz without a member: every member, the archive read once */
    if (ox_format_of(files[i]) == OX_FMT_NPZ && !strchr(files[i], ':')) {
      if (ox_npz_open(A, files[i], &z, &e)) {
        fprintf(stderr, "onnxop: %s: %s\n", files[i], e.msg);
        rc = OX_EINPUT;
        nm = 0;
      } else {
        nm = ox_npz_count(z);
      }
    }
    for (int64_t k = 0; k < nm && !ferror(stdout); k++) {
      ox_value *val = NULL;
      const char *name = NULL;
      ox_mark mk = ox_arena_mark(A); /* each member's value is given back once printed */
      int bad = z ? ox_npz_get(A, z, k, NULL, &val, &e) : ox_api_value_load(A, files[i], NULL, &val, &name, &e);
      if (z) name = ox_npz_keys(z)[k];
      if (bad) {
        fprintf(stderr, "onnxop: %s%s%s: %s\n", files[i], z ? ":" : "", z ? name : "", e.msg);
        rc = e.code == OX_EUSAGE ? OX_EUSAGE : OX_EINPUT;
        ox_err_clear(&e);
      } else if (ox_text_print_full(stdout, name && *name ? name : files[i], val, 2, full)) {
        /* a write error stops the loops (main says so); else memory ran out */
        rc = ferror(stdout) ? OX_EINPUT : ox_cli_oom("show", "printing the value");
      } else if (st) {
        stats(val, "", 4);
      }
      ox_arena_release(A, mk);
    }
    ox_arena_free(A);
  }
  free(files);
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
                             : (size_t)snprintf(sh + at, sizeof sh - at, "%s%s", d ? ", " : "",
                                                vi->dim_param && vi->dim_param[d] ? vi->dim_param[d] : "?");
    if (at < sizeof sh) snprintf(sh + at, sizeof sh - at, "%s)", vi->rank == 1 ? "," : "");
  }
  printf("    %s: %s%s\n", vi->name, ty, sh);
}

/* ---- attributes, as info shows them ---- */

/* s as printable text: bytes outside ASCII's printable range as \xNN */
static size_t put_str(char *buf, size_t n, size_t at, const ox_str *s) {
  for (int64_t i = 0; i < s->n && at + 8 < n; i++) {
    unsigned char c = (unsigned char)s->p[i];
    at += (size_t)(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? snprintf(buf + at, n - at, "%c", c)
                                                                    : snprintf(buf + at, n - at, "\\x%02x", c));
  }
  return at;
}

/* "0.5", "[1, 2, 3]", "\"constant\"", "tensor float32 (2, 3)", "seq(tensor(float))";
 * lists past 16 items end in "... (N in all)" */
static const char *attr_text(const ox_attr *at, char *buf, size_t n) {
  char sb[256];
  size_t k = 0;
  int64_t shown = at->n < 16 ? at->n : 16;
  buf[0] = 0;
  switch (at->type) {
  case OX_ATTR_INT: snprintf(buf, n, "%lld", (long long)at->i); return buf;
  case OX_ATTR_FLOAT: snprintf(buf, n, "%.9g", at->f); return buf;
  case OX_ATTR_STRING:
    k = put_str(buf, n, (size_t)snprintf(buf, n, "\""), &at->s);
    snprintf(buf + k, n - k, "\"");
    return buf;
  case OX_ATTR_TENSOR:
  case OX_ATTR_SPARSE_TENSOR:
    if (!at->t || at->t->kind != OX_TENSOR) return "tensor";
    snprintf(buf, n, "tensor %s %s", ox_dtype_name(at->t->u.t.dt), ox_shape_str(at->t->u.t.rank, at->t->u.t.dims, sb, sizeof sb));
    return buf;
  case OX_ATTR_TYPE_PROTO: return ox_type_str(at->tp, buf, n);
  case OX_ATTR_INTS:
  case OX_ATTR_FLOATS:
  case OX_ATTR_STRINGS:
  case OX_ATTR_TENSORS:
  case OX_ATTR_GRAPHS:
  case OX_ATTR_TYPE_PROTOS:
    k = (size_t)snprintf(buf, n, "[");
    for (int64_t i = 0; i < shown && k + 64 < n; i++) {
      if (i) k += (size_t)snprintf(buf + k, n - k, ", ");
      if (at->type == OX_ATTR_INTS) k += (size_t)snprintf(buf + k, n - k, "%lld", (long long)at->ints[i]);
      else if (at->type == OX_ATTR_FLOATS) k += (size_t)snprintf(buf + k, n - k, "%.9g", at->floats[i]);
      else if (at->type == OX_ATTR_STRINGS) {
        k += (size_t)snprintf(buf + k, n - k, "\"");
        k = put_str(buf, n, k, &at->strings[i]);
        k += (size_t)snprintf(buf + k, n - k, "\"");
      } else if (at->type == OX_ATTR_TENSORS && at->tensors[i] && at->tensors[i]->kind == OX_TENSOR)
        k += (size_t)snprintf(buf + k, n - k, "tensor %s %s", ox_dtype_name(at->tensors[i]->u.t.dt),
                              ox_shape_str(at->tensors[i]->u.t.rank, at->tensors[i]->u.t.dims, sb, sizeof sb));
      else if (at->type == OX_ATTR_GRAPHS && at->graphs[i])
        k += (size_t)snprintf(buf + k, n - k, "graph '%s'", at->graphs[i]->name ? at->graphs[i]->name : "");
      else if (at->type == OX_ATTR_TYPE_PROTOS)
        k += strlen(ox_type_str(at->tps[i], buf + k, n - k));
    }
    if (k + 32 < n) snprintf(buf + k, n - k, at->n > shown ? ", ... (%lld in all)]" : "]", (long long)at->n);
    return buf;
  default:
    snprintf(buf, n, "(%s)", ox_attr_type_name(at->type));
    return buf;
  }
}

/* an attribute's value as JSON: numbers, strings (bytes that are not
 * UTF-8 text as {"bytes": [...]}), lists of them, {"dtype", "shape"} for a
 * tensor, {"graph", "nodes"} for a graph, a type string */
static int utf8_text(const ox_str *s) {
  for (int64_t i = 0; i < s->n;) {
    unsigned char c = (unsigned char)s->p[i];
    int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!len || !c || i + len > s->n) return 0;
    for (int k = 1; k < len; k++)
      if (((unsigned char)s->p[i + k] & 0xc0) != 0x80) return 0;
    i += len;
  }
  return 1;
}

static cJSON *str_json(const ox_str *s) {
  if (utf8_text(s)) {
    char *t = malloc((size_t)s->n + 1);
    if (!t) return NULL;
    memcpy(t, s->p, (size_t)s->n);
    t[s->n] = 0;
    cJSON *j = cJSON_CreateString(t);
    free(t);
    return j;
  }
  cJSON *o = cJSON_CreateObject(), *b = cJSON_AddArrayToObject(o, "bytes");
  for (int64_t i = 0; b && i < s->n; i++) ox_cjson_push(b, cJSON_CreateNumber((unsigned char)s->p[i]));
  return o;
}

static cJSON *num_json(double v) {
  return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateString(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

static cJSON *int_json(int64_t v) { /* past 2^53 as a decimal string, as onnxop's JSON values */
  char b[32];
  if (v >= -(INT64_C(1) << 53) && v <= (INT64_C(1) << 53)) return cJSON_CreateNumber((double)v);
  snprintf(b, sizeof b, "%lld", (long long)v);
  return cJSON_CreateString(b);
}

static cJSON *tensor_desc_json(const ox_value *t) {
  cJSON *o = cJSON_CreateObject();
  if (!t || t->kind != OX_TENSOR) return o;
  cJSON_AddStringToObject(o, "dtype", ox_dtype_name(t->u.t.dt));
  cJSON *sh = cJSON_AddArrayToObject(o, "shape");
  for (int d = 0; sh && d < t->u.t.rank; d++) ox_cjson_push(sh, int_json(t->u.t.dims[d]));
  return o;
}

static cJSON *attr_json(const ox_attr *at) {
  char tb[256];
  cJSON *v = NULL;
  switch (at->type) {
  case OX_ATTR_INT: return int_json(at->i);
  case OX_ATTR_FLOAT: return num_json(at->f);
  case OX_ATTR_STRING: return str_json(&at->s);
  case OX_ATTR_TENSOR:
  case OX_ATTR_SPARSE_TENSOR: return tensor_desc_json(at->t);
  case OX_ATTR_GRAPH:
    v = cJSON_CreateObject();
    cJSON_AddStringToObject(v, "graph", at->g && at->g->name ? at->g->name : "");
    cJSON_AddNumberToObject(v, "nodes", at->g ? at->g->nnode : 0);
    return v;
  case OX_ATTR_TYPE_PROTO: return cJSON_CreateString(ox_type_str(at->tp, tb, sizeof tb));
  default: break;
  }
  v = cJSON_CreateArray();
  for (int64_t i = 0; v && i < at->n; i++) {
    cJSON *x = at->type == OX_ATTR_INTS ? int_json(at->ints[i])
             : at->type == OX_ATTR_FLOATS ? num_json(at->floats[i])
             : at->type == OX_ATTR_STRINGS ? str_json(&at->strings[i])
             : at->type == OX_ATTR_TENSORS ? tensor_desc_json(at->tensors[i])
             : at->type == OX_ATTR_TYPE_PROTOS ? cJSON_CreateString(ox_type_str(at->tps[i], tb, sizeof tb))
             : at->type == OX_ATTR_GRAPHS ? cJSON_CreateString(at->graphs[i] && at->graphs[i]->name ? at->graphs[i]->name : "")
             : cJSON_CreateNull();
    ox_cjson_push(v, x);
  }
  return v;
}

/* the numeric stats of a tensor initializer, added to o */
static void stats_json(cJSON *o, const ox_value *v) {
  tstats st;
  if (!v || v->kind != OX_TENSOR || tensor_stats(&v->u.t, &st)) return;
  if (st.fin + st.inf) {
    ox_cjson_add(o, "min", num_json(st.min));
    ox_cjson_add(o, "max", num_json(st.max));
  } else {
    cJSON_AddNullToObject(o, "min");
    cJSON_AddNullToObject(o, "max");
  }
  if (st.fin) ox_cjson_add(o, "mean", num_json(st.mean));
  else cJSON_AddNullToObject(o, "mean");
  cJSON_AddNumberToObject(o, "nan", (double)st.nan);
  cJSON_AddNumberToObject(o, "inf", (double)st.inf);
}

/* Why a node whose op this build has cannot run either: the message `run`
 * refuses the model with (an attribute missing, undeclared or of the wrong
 * type), or NULL. */
static const char *node_problem(const ox_kernel *k, const ox_node *nd, ox_err *e) {
  return k && ox_attrs_check(k, nd, e) ? e->msg : NULL;
}

/* A list of more nodes than this is shown as counts by op unless --full. */
enum { INFO_LIST_MAX = 100 };

/* How the nodes of a list are shown: each with its attributes and
 * subgraphs; only those that cannot run (a long list summarised); none. */
enum { SHOW_ALL, SHOW_PROBLEMS, SHOW_NONE };

/* cant[0]: nodes whose operator this build lacks; cant[1]: nodes it has but
 * that cannot run as written (an attribute missing, undeclared or mistyped). */
static void nodes(const ox_model *m, int n, const ox_node *ns, int indent, int cant[2], int mode) {
  for (int i = 0; i < n; i++) {
    const ox_node *nd = &ns[i];
    int64_t opset = ox_opset_of(m->nopset, m->opset, nd->domain);
    const ox_kernel *k = ox_registry_find(nd->domain, nd->op, opset);
    int is_fn = 0;
    for (int f = 0; f < m->nfunc; f++)
      if (!strcmp(m->func[f].name, nd->op) && ox_domain_eq(m->func[f].domain, nd->domain)) is_fn = 1;
    ox_err e = {0};
    const char *problem = is_fn ? NULL : node_problem(k, nd, &e);
    cant[0] += !is_fn && !k;
    cant[1] += !is_fn && k && problem;
    if (mode == SHOW_ALL || (mode == SHOW_PROBLEMS && !is_fn && (!k || problem))) {
      printf("%*s", indent, "");
      if (mode == SHOW_PROBLEMS) printf("%d: ", i); /* the node's index, the list being cut */
      if (k) printf("%s-%d", nd->op, k->since);
      else printf("%s", nd->op);
      if (nd->domain[0]) printf(" (%s)", nd->domain);
      printf(" '%s' (", nd->name);
      for (int j = 0; j < nd->nin; j++) printf("%s%s", j ? ", " : "", nd->in[j]);
      printf(") -> (");
      for (int j = 0; j < nd->nout; j++) printf("%s%s", j ? ", " : "", nd->out[j]);
      printf(")");
      if (is_fn) printf("  [model-local function]");
      else if (!k) printf("  [unsupported in this build: opset %lld]", (long long)opset);
      else if (problem) printf("  [cannot run: %s]", problem);
      char dep[256]; /* as `run` and `make` warn */
      if (!is_fn && ox_registry_deprecation(k, dep, sizeof dep)) printf("  [warning: %s]", dep);
      printf("\n");
    }
    for (int j = 0; j < nd->nattr; j++) {
      const ox_attr *at = &nd->attr[j];
      if (mode != SHOW_ALL) {
        if (at->g) nodes(m, at->g->nnode, at->g->node, indent + 4, cant, mode);
      } else if (at->g) {
        printf("%*s  %s: graph '%s', %d nodes\n", indent, "", at->name, at->g->name, at->g->nnode);
        nodes(m, at->g->nnode, at->g->node, indent + 4, cant, mode);
      } else if (at->ref_attr_name) {
        printf("%*s  %s: the caller's '%s'\n", indent, "", at->name, at->ref_attr_name);
      } else {
        char buf[1024];
        printf("%*s  %s: %s\n", indent, "", at->name, attr_text(at, buf, sizeof buf));
      }
    }
  }
}

/* A long list of nodes as counts by op-version, most frequent first
 * ("MatMul-13: 96"), then the nodes among them that cannot run, by index. */
typedef struct { const char *op, *domain; int since, n; } op_count;
static int by_count(const void *x, const void *y) {
  const op_count *a = x, *b = y;
  if (a->n != b->n) return b->n - a->n;
  int c = strcmp(a->op, b->op);
  return c ? c : strcmp(a->domain, b->domain);
}
static int list_summary(ox_arena *A, const ox_model *m, int n, const ox_node *ns, int indent, int cant[2]) {
  op_count *c = ox_alloc_array(A, n + 1, sizeof *c);
  if (!c) return -1;
  int nc = 0;
  for (int i = 0; i < n; i++) {
    const ox_node *nd = &ns[i];
    const ox_kernel *k = ox_registry_find(nd->domain, nd->op, ox_opset_of(m->nopset, m->opset, nd->domain));
    int since = k ? k->since : 0, j = 0;
    while (j < nc && (strcmp(c[j].op, nd->op) || !ox_domain_eq(c[j].domain, nd->domain) || c[j].since != since)) j++;
    if (j == nc) c[nc++] = (op_count){nd->op, nd->domain, since, 0};
    c[j].n++;
  }
  qsort(c, (size_t)nc, sizeof *c, by_count);
  printf("%*s(by op; --full lists each node)\n", indent, "");
  for (int j = 0; j < nc; j++) {
    printf("%*s%s", indent, "", c[j].op);
    if (c[j].since) printf("-%d", c[j].since);
    if (c[j].domain[0]) printf(" (%s)", c[j].domain);
    printf(": %d\n", c[j].n);
  }
  int here[2] = {0, 0}; /* the nodes that cannot run: counted, then shown (and counted in cant) */
  nodes(m, n, ns, indent, here, SHOW_NONE);
  if (here[0] + here[1]) {
    printf("%*sthe nodes that cannot run:\n", indent, "");
    nodes(m, n, ns, indent + 2, cant, SHOW_PROBLEMS);
  }
  return 0;
}

/* a list of nodes, in full when short or with --full, else summarised */
static int node_list(ox_arena *A, const ox_model *m, int n, const ox_node *ns, int indent, int cant[2], int full) {
  if (full || n <= INFO_LIST_MAX) {
    nodes(m, n, ns, indent, cant, SHOW_ALL);
    return 0;
  }
  return list_summary(A, m, n, ns, indent, cant);
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
      ox_cjson_push(sh, vi->dims[d] >= 0 ? cJSON_CreateNumber((double)vi->dims[d])
                               : vi->dim_param && vi->dim_param[d] ? cJSON_CreateString(vi->dim_param[d])
                                                                   : cJSON_CreateNull());
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
    const char *problem = is_fn ? NULL : node_problem(k, nd, &e);
    cJSON_AddBoolToObject(o, "function", is_fn);
    cJSON_AddBoolToObject(o, "supported", is_fn || (k && !problem));
    if (problem) cJSON_AddStringToObject(o, "problem", problem);
    char dep[256];
    if (!is_fn && ox_registry_deprecation(k, dep, sizeof dep)) cJSON_AddStringToObject(o, "warning", dep);
    if (!is_fn && (!k || problem)) (*unsupported)++;
    cJSON *as = cJSON_AddArrayToObject(o, "attributes");
    for (int j = 0; as && j < nd->nattr; j++) {
      cJSON *x = cJSON_CreateObject();
      cJSON_AddStringToObject(x, "name", nd->attr[j].name);
      cJSON_AddStringToObject(x, "type", ox_attr_type_name(nd->attr[j].type));
      if (nd->attr[j].ref_attr_name) cJSON_AddStringToObject(x, "ref_attr_name", nd->attr[j].ref_attr_name);
      else ox_cjson_add(x, "value", attr_json(&nd->attr[j]));
      ox_cjson_push(as, x);
    }
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
static int info_json(ox_arena *A, const char *path, const ox_model *m, const char *invalid, const char *order,
                     ox_err *e) {
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
      stats_json(x, v);
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
  if (order) cJSON_AddStringToObject(o, "order", order);
  char *text = cJSON_PrintUnformatted(o);
  int rc = 0;
  if (text && ox_mem_failures() == failed) puts(text);
  else rc = ox_oom(e, NULL);
  cJSON_free(text);
  cJSON_Delete(o);
  return rc;
}

enum { I_HELP, I_JSON, I_FULL };
static const ox_opt info_opts[] = {
    [I_HELP] = {"--help", "-h", NULL},
    [I_JSON] = {"--json", NULL, NULL},
    [I_FULL] = {"--full", NULL, NULL},
    {NULL, NULL, NULL},
};

int ox_cmd_info(int argc, char **argv) {
  const char *path = NULL, *arg;
  int json = 0, full = 0;
  ox_optparse p;
  ox_opt_init(&p, "info", argc, argv, info_opts);
  for (int k; (k = ox_opt_next(&p, &arg)) != OX_OPT_END;) {
    if (k == OX_OPT_ERROR) return OX_EUSAGE;
    if (k == I_HELP) {
      fputs("usage: onnxop info [--json] [--full] MODEL\n\n"
            "Describe a model: IR version, opset imports, inputs and outputs with their\n"
            "types and shapes, the nodes (op-version, name, inputs, outputs) with their\n"
            "attributes (values; tensors as dtype and shape), the initializers (dtype,\n"
            "shape, min, max, mean, NaN and Inf counts), the functions, and which nodes\n"
            "cannot run: ops this build lacks, and nodes whose attributes do not fit\n"
            "their op-version: one it requires missing, one it does not declare, one of\n"
            "another type (which `run` refuses), and whether the nodes are in\n"
            "topological order (when not, `run` evaluates them in the order of their\n"
            "dependencies, as onnxruntime does, and says so). A list of more than 100\n"
            "nodes or initializers is summarised: the nodes as counts by op, then\n"
            "those that cannot run, by index.\n\n"
            "  --full   list every node and initializer, however many\n"
            "  --json   the same facts as one JSON object: model, ir_version,\n"
            "           opset_import, graph, inputs and outputs (name, type, shape with\n"
            "           a symbolic dim's name, null for an unknown dim), initializers\n"
            "           (name, type, shape, min, max, mean, nan, inf), nodes (op, domain,\n"
            "           opset, since, name, inputs, outputs, function, supported, problem\n"
            "           when an attribute does not fit the op-version, warning for a\n"
            "           version ONNX deprecated that onnxop runs, attributes: name,\n"
            "           type and value, subgraphs), functions, unsupported (the count\n"
            "           of nodes that cannot run), invalid (when the model is: why),\n"
            "           order (when the nodes are not in topological order: why);\n"
            "           every node, however many\n\n"
            "exit status:\n"
            "  0      success, whether or not every node can run\n"
            "  1      MODEL was rejected or is invalid, or standard output could not be\n"
            "         written\n"
            OX_EXIT_HELP_2
            OX_EXIT_HELP_SIGNAL,
            stdout);
      return 0;
    }
    if (k == I_JSON) json = 1;
    else if (k == I_FULL) full = 1;
    else if (path) return ox_usage_error("info", "give one MODEL");
    else path = arg;
  }
  if (!path) return ox_usage_error("info", "no MODEL given");
  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  if (!A) return ox_cli_oom("info", NULL);
  if (ox_api_model_read(A, path, &m, &e)) {
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
  /* the order `run` evaluates the nodes in: theirs, or when that is not
   * topological, the order of their dependencies (ox_node_order) */
  const char *order = NULL;
  int nunsorted = 0;
  if (!invalid && ox_model_order(A, m, &order, &nunsorted, &e)) {
    fprintf(stderr, "onnxop: %s: %s\n", path, e.msg);
    ox_arena_free(A);
    return e.code;
  }
  if (json) {
    int rc = info_json(A, path, m, invalid ? ce.msg : NULL, order, &e);
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
  printf("  initializers: %d%s\n", g->ninit, !full && g->ninit > INFO_LIST_MAX ? " (--full lists each)" : "");
  for (int i = 0; i < g->ninit && (full || g->ninit <= INFO_LIST_MAX); i++) {
    char sh[256], ty[64], st_text[256] = "";
    const ox_value *v = g->init[i];
    tstats st;
    if (v->kind == OX_TENSOR && !tensor_stats(&v->u.t, &st)) {
      st_text[0] = ' ';
      stats_text(st_text + 1, sizeof st_text - 1, &st);
    }
    printf("    %s: %s %s%s\n", g->init_name[i], ox_value_desc(v, ty, sizeof ty),
           v->kind == OX_TENSOR ? ox_shape_str(v->u.t.rank, v->u.t.dims, sh, sizeof sh) : "", st_text);
  }
  int cant[2] = {0, 0};
  printf("  nodes: %d\n", g->nnode);
  int bad = node_list(A, m, g->nnode, g->node, 4, cant, full);
  printf("  functions: %d\n", m->nfunc);
  for (int i = 0; i < m->nfunc && !bad; i++) {
    const ox_function *f = &m->func[i];
    printf("    %s%s%s: %d inputs, %d outputs, %d nodes\n", f->domain && f->domain[0] ? f->domain : "",
           f->domain && f->domain[0] ? "." : "", f->name, f->nin, f->nout, f->nnode);
    bad = node_list(A, m, f->nnode, f->node, 6, cant, full);
  }
  if (bad) {
    ox_arena_free(A);
    return ox_cli_oom("info", NULL);
  }
  if (order) {
    char more[64] = "";
    if (nunsorted > 1) snprintf(more, sizeof more, " (and %d more node lists)", nunsorted - 1);
    printf("  order: %s%s; `run` evaluates them in dependency order, as onnxruntime does\n", order, more);
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
