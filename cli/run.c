/* cli/run.c: onnxop run MODEL [--in [NAME=]FILE]... [--out [NAME=]FILE]...
 *            [--out-dir DIR] [--format pb|json|npy|npz] [--random SEED [--dim N=S]]
 *            [--save-intermediates DIR [--save-intermediates-subgraphs]] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../api/api.h"
#include "../io/io.h"
#include "../proto/proto.h"
#include "cli.h"
#include "files.h"
#include "make.h"

static const char run_help[] =
    "usage: onnxop run MODEL [--in [NAME=]FILE]... [--out [NAME=]FILE]...\n"
    "                  [--out-dir DIR] [--format pb|json|npy|npz] [--trace] [--time] [--full]\n"
    "                  [--random SEED [--dim NAME=SIZE]... [--range NAME=LO:HI]...]\n"
    "                  [--save-intermediates DIR [--save-intermediates-subgraphs]]\n"
    "\n"
    "Evaluate MODEL (a single node or a whole graph) and write or print its outputs.\n"
    "\n"
    "  --in [NAME=]FILE   an input value (.pb, .json, .npy or .npz). Without NAME=,\n"
    "                     inputs go by position: the graph's inputs in order,\n"
    "                     initializers left out. An .npz gives several inputs: its\n"
    "                     member x.npy goes to input x, the others by position;\n"
    "                     FILE.npz:NAME is one member.\n"
    "  --out [NAME=]FILE  write an output (format from the extension; '-' is standard\n"
    "                     output, in --format, default json); without NAME=,\n"
    "                     outputs go by position. A single --out FILE.npz takes\n"
    "                     every output, as members named by the outputs.\n"
    "                     NAME= must name one of the model's inputs (--in) or\n"
    "                     outputs (--out); a file whose name has an '=' is given\n"
    "                     with a '/' before it: ./a=b.pb.\n"
    "  --out-dir DIR      write every output as DIR/output_K.pb (the ONNX test layout)\n"
    "  --format F         the format for --out-dir and '-': pb (default for\n"
    "                     --out-dir), json, npy (DIR/output_K.npy), or npz (one\n"
    "                     DIR/outputs.npz). Without --out and --out-dir, --format json\n"
    "                     prints the outputs as one JSON list of values (each with\n"
    "                     its \"name\") on standard output.\n"
    "  --random SEED      draw the inputs --in does not give from their declared\n"
    "                     types, as `onnxop make --random` draws (the same SEED gives\n"
    "                     the same bytes)\n"
    "  --dim NAME=SIZE    the size of the symbolic dim NAME (dim_param) for --random\n"
    "  --range NAME=LO:HI draw input NAME in [LO, HI) (integers: LO to HI inclusive)\n"
    "  --save-intermediates DIR  also write every node's outputs as DIR/VALUE.pb\n"
    "                     (the value's name made safe for a file system: characters\n"
    "                     other than letters, digits, '.', '-' and '_' become '_',\n"
    "                     a clash gets ~N), with DIR/index.json mapping each file to\n"
    "                     its value, node and op\n"
    "  --save-intermediates-subgraphs  also the values inside subgraphs and\n"
    "                     functions (each Loop or Scan iteration its own file)\n"
    "  --trace            print each node as it runs, with its inputs and outputs\n"
    "                     summarised (dtype, shape, min/max, first values), on stderr\n"
    "  --time             print each node's time on stderr\n"
    "  --full             with --trace or --time on a graph of more than 100 nodes:\n"
    "                     each node, as for a smaller graph (without it: a summary\n"
    "                     after the run, nodes and time by op, and the first output\n"
    "                     holding NaN or Inf)\n"
    "\n"
    "FILE may also be '-' (standard input: .pb, JSON, .npy or .npz), an inline\n"
    "value such as 'float32[2,3]:1,2,3,4,5,6' (DTYPE[SHAPE]:values), or a JSON\n"
    "literal '{...}'.\n"
    "\n"
    "Every domain a node uses must be in the model's opset_import: onnxruntime\n"
    "assumes the newest version of a domain the model does not import\n"
    "(com.microsoft, say); onnxop does not, and refuses the model naming the\n"
    "node and the missing import. A model that uses an operator outside the ONNX\n"
    "spec in ai.onnx (an experimental one such as ImageScaler-1, or\n"
    "onnxruntime's LayerNormalization below opset 17) runs, with a one-line\n"
    "warning on stderr per operator.\n"
    "\n"
    "With no --out and no --out-dir the outputs are printed, numpy style.\n"
    "Outputs are written to temporaries next to them (FILE.tmp.XXXXXXXXXXXX), then\n"
    "renamed into place together: a failed or interrupted run (SIGINT, SIGTERM,\n"
    "SIGHUP, SIGPIPE) leaves no output, no temporary and no folder it made, and the\n"
    "files it would have replaced as they were. Two outputs that are one file are\n"
    "a usage error.\n"
    "\n"
    "exit status:\n"
    "  0      success\n"
    OX_EXIT_HELP_1
    OX_EXIT_HELP_2
    OX_EXIT_HELP_3
    OX_EXIT_HELP_SIGNAL;

/* ---- --save-intermediates ---- */

/* The file names taken so far (without ".pb"), as a set (open addressing),
 * each with the next ~k to try for it as a base: a name that recurs (a
 * Loop's value, once per iteration) finds its next free ~k at once, not by
 * trying ~2, ~3, ... against every name taken, which made 3,000 iterations
 * take minutes. */
typedef struct { const char *name; int next; } taken;

typedef struct {
  ox_arena *A;       /* for the names; the values are written at once */
  const char *dir;
  int subgraphs;
  cJSON *index;      /* the list index.json holds */
  taken *files;      /* the file names used so far; mask + 1 slots, a power of 2 */
  uint64_t mask, nfiles;
  size_t failures;   /* ox_mem_failures() when the index began: more, and
                      * an entry may have lost a field */
} saver;

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  while (*s) h = (h ^ (uint8_t)*s++) * 1099511628211ull;
  return h;
}

/* The slot of name in the set: its own, or the empty one it would take. */
static taken *slot_of(const saver *s, const char *name) {
  uint64_t i = name_hash(name) & s->mask;
  while (s->files[i].name && strcmp(s->files[i].name, name)) i = (i + 1) & s->mask;
  return &s->files[i];
}

/* Add name (not in the set) to it: its copy, or NULL when memory ran out. */
static const char *take(saver *s, const char *name) {
  if (2 * (s->nfiles + 1) > s->mask + 1) { /* at most half full: double it */
    saver t = *s;
    t.mask = s->files ? 2 * s->mask + 1 : 255;
    if (!(t.files = ox_alloc_array(s->A, (int64_t)t.mask + 1, sizeof *t.files))) return NULL;
    for (uint64_t i = 0; s->files && i <= s->mask; i++)
      if (s->files[i].name) *slot_of(&t, s->files[i].name) = s->files[i];
    s->files = t.files;
    s->mask = t.mask;
  }
  taken *t = slot_of(s, name);
  if (!(t->name = ox_strdup(s->A, name))) return NULL;
  t->next = 2;
  s->nfiles++;
  return t->name;
}

/* value name -> a file name: letters, digits, '.', '-', '_' kept, anything
 * else '_'; at most 120 bytes; never hidden, never "." or ".."; a name
 * another value took already gets ~2, ~3, ... */
static const char *safe_file(saver *s, const char *name) {
  char base[128];
  size_t n = 0;
  for (const char *p = name; *p && n < 120; p++) {
    char c = *p;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
             (c == '.' && n > 0);
    base[n++] = ok ? c : '_';
  }
  if (!n) base[n++] = '_';
  base[n] = 0;
  if (!strcmp(base, "index")) snprintf(base, sizeof base, "index_"); /* index.json's name stays free */
  if (!s->files || !slot_of(s, base)->name) return take(s, base);
  /* base~k for the base's next k that no value has (a value may be named
   * "x~2" itself) */
  for (;;) {
    taken *b = slot_of(s, base);
    char cand[160];
    snprintf(cand, sizeof cand, "%s~%d", base, b->next++);
    if (!slot_of(s, cand)->name) return take(s, cand);
  }
}

static int save_node(void *arg, const ox_node *n, int depth, ox_value **out, ox_err *e) {
  saver *s = arg;
  if (depth > 0 && !s->subgraphs) return 0;
  for (int i = 0; i < n->nout; i++) {
    if (!n->out[i][0] || !out[i]) continue;
    const char *f = safe_file(s, n->out[i]);
    const char *path = f ? ox_sprintf(s->A, "%s/%s.pb", s->dir, f) : NULL;
    if (!path) return ox_oom(e, NULL);
    if (ox_save_value(path, OX_FMT_PB, out[i], n->out[i], e)) {
      ox_prefix(e, "--save-intermediates: %s: ", path);
      return e->code;
    }
    cJSON *x = cJSON_CreateObject();
    if (!x) return ox_oom(e, NULL);
    cJSON_AddStringToObject(x, "file", ox_sprintf(s->A, "%s.pb", f));
    cJSON_AddStringToObject(x, "name", n->out[i]);
    cJSON_AddStringToObject(x, "node", n->name);
    cJSON_AddStringToObject(x, "op", n->op);
    cJSON_AddStringToObject(x, "domain", n->domain[0] ? n->domain : "ai.onnx");
    cJSON_AddNumberToObject(x, "depth", depth);
    ox_cjson_push(s->index, x); /* or deleted */
  }
  return 0;
}

static int write_index(saver *s, ox_err *e) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return ox_oom(e, NULL);
  cJSON_AddItemReferenceToObject(root, "values", s->index);
  char *text = ox_mem_failures() == s->failures ? cJSON_Print(root) : NULL;
  cJSON_Delete(root);
  if (!text) return ox_oom(e, NULL);
  size_t len = strlen(text);
  text[len] = '\n'; /* cJSON_Print's NUL becomes the last newline */
  ox_buf b = {(uint8_t *)text, len + 1, len + 1};
  const char *path = ox_sprintf(s->A, "%s/index.json", s->dir);
  int rc = path ? ox_write_file_tmp(path, &b, e) : ox_oom(e, NULL);
  cJSON_free(text);
  return rc;
}

/* ---- --random: the inputs --in left out, drawn from the declared types ---- */

/* A node of an op-version outside the ONNX spec, or one it deprecated: run
 * it, but say so. */
static void warn_note(void *arg, const ox_node *n, const char *text) {
  (void)arg;
  fprintf(stderr, "onnxop run: warning: node '%s': %s\n", n->name, text);
}

static int draw_inputs(ox_arena *A, const ox_model *m, onnxop_value **vals, uint64_t seed, int ndim,
                       const mk_dim *dims, int nrange, const mk_input *ranges) {
  const ox_graph *g = m->graph;
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  if (!real) return ox_cli_oom("run", NULL);
  int nreal = ox_graph_real_inputs(g, real);
  uint64_t s = seed;
  for (int r = 0; r < nreal; r++) {
    const ox_valueinfo *vi = &g->in[real[r]];
    if (vals[real[r]]) continue;
    if (vi->type && vi->type->kind == OX_OPTIONAL) continue; /* left out: an absent optional */
    if (!vi->type || vi->type->kind != OX_TENSOR || vi->rank < 0)
      return ox_usage_error("run", "--random: input '%s' is %s; only a tensor with a declared shape can be "
                            "drawn (give it with --in)", vi->name, vi->type ? "not a tensor" : "untyped");
    int64_t d[OX_MAX_RANK];
    for (int k = 0; k < vi->rank; k++) {
      d[k] = vi->dims[k];
      if (d[k] >= 0) continue;
      const char *p = vi->dim_param ? vi->dim_param[k] : NULL;
      for (int j = 0; p && j < ndim; j++)
        if (!strcmp(dims[j].name, p)) d[k] = dims[j].size;
      if (d[k] < 0) {
        if (p) return ox_usage_error("run", "--random: input '%s' has the symbolic dim %s: give its size with --dim %s=SIZE", vi->name, p, p);
        return ox_usage_error("run", "--random: input '%s' has an unknown dim %d (no size, no name): give the input with --in", vi->name, k);
      }
    }
    mk_input in = {.name = vi->name};
    for (int j = 0; j < nrange; j++)
      if (!strcmp(ranges[j].name, vi->name)) in = ranges[j];
    ox_err e = {0};
    ox_value *v;
    if (ox_draw_tensor(A, vi->type->elem, vi->rank, d, &in, &s, &v, &e)) {
      fprintf(stderr, "onnxop run: input '%s': %s\n", vi->name, e.msg);
      return e.code;
    }
    onnxop_error *err = NULL;
    if (ox_api_value_wrap(v, &vals[real[r]], &err)) { /* a handle for the run; A holds the value */
      onnxop_error_free(err);
      return ox_cli_oom("run", NULL);
    }
  }
  for (int j = 0; j < nrange; j++) { /* a range for no drawn input is a mistake */
    int found = 0;
    for (int r = 0; r < nreal; r++) found |= !strcmp(g->in[real[r]].name, ranges[j].name);
    if (!found) return ox_usage_error("run", "--range %s: the model has no input named '%s'", ranges[j].name, ranges[j].name);
  }
  return 0;
}

enum { O_HELP, O_IN, O_OUT, O_OUT_DIR, O_FORMAT, O_TRACE, O_TIME, O_FULL, O_RANDOM, O_DIM, O_RANGE, O_SAVE, O_SAVE_SUB };
/* the largest main graph --trace and --time print node by node without --full */
enum { TRACE_NODES_MAX = 100 };

static const ox_opt run_opts[] = {
    [O_HELP] = {"--help", "-h", NULL},
    [O_IN] = {"--in", "-i", "a FILE"},
    [O_OUT] = {"--out", "-o", "a FILE"},
    [O_OUT_DIR] = {"--out-dir", NULL, "a DIR"},
    [O_FORMAT] = {"--format", NULL, "pb, json, npy or npz"},
    [O_TRACE] = {"--trace", NULL, NULL},
    [O_TIME] = {"--time", NULL, NULL},
    [O_FULL] = {"--full", NULL, NULL},
    [O_RANDOM] = {"--random", NULL, "a SEED"},
    [O_DIM] = {"--dim", NULL, "NAME=SIZE"},
    [O_RANGE] = {"--range", NULL, "NAME=LO:HI"},
    [O_SAVE] = {"--save-intermediates", NULL, "a DIR"},
    [O_SAVE_SUB] = {"--save-intermediates-subgraphs", NULL, NULL},
    {NULL, NULL, NULL},
};

int ox_cmd_run(int argc, char **argv) {
  const char *model_path = NULL, *out_dir = NULL, *save_dir = NULL;
  ox_format dir_fmt = OX_FMT_PB;
  int nin = 0, nout = 0, ndim = 0, nrange = 0, has_fmt = 0, random = 0, save_sub = 0, full = 0;
  uint64_t seed = 0;
  ox_arena *A = ox_arena_new();
  if (!A) return ox_cli_oom("run", NULL);
  const char **ins = ox_alloc_array(A, argc, sizeof *ins), **outs = ox_alloc_array(A, argc, sizeof *outs);
  mk_dim *dims = ox_alloc_array(A, argc, sizeof *dims);
  mk_input *ranges = ox_alloc_array(A, argc, sizeof *ranges);
  saver sv = {.A = A};
  onnxop_model *M = NULL;
  onnxop_error *err = NULL;
  onnxop_value **in_vals = NULL, **results = NULL; /* the inputs by graph input; the outputs */
  int nin_vals = 0, nresults = 0;
  ox_run_opts ro = ox_cli_run; /* --timeout; --trace, --time and the saver's hook added below */
  int rc = !ins || !outs || !dims || !ranges ? ox_cli_oom("run", NULL) : 0;
  ox_optparse p;
  ox_opt_init(&p, "run", argc, argv, run_opts);
  const char *v;
  for (int k; !rc && (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    switch (k) {
    case OX_OPT_ERROR: rc = OX_EUSAGE; break;
    case OX_OPT_OPERAND:
      if (model_path) rc = ox_usage_error("run", "unexpected argument '%s' (inputs go with --in)", v);
      else if (!*v) rc = ox_usage_error("run", "MODEL is an empty path");
      else model_path = v;
      break;
    case O_HELP: fputs(run_help, stdout); goto done;
    case O_IN:
      if (!*v) rc = ox_usage_error("run", "--in needs a FILE");
      else ins[nin++] = v;
      break;
    case O_OUT:
      if (!*v) rc = ox_usage_error("run", "--out needs a FILE");
      else outs[nout++] = v;
      break;
    case O_OUT_DIR:
      if (!*v) rc = ox_usage_error("run", "--out-dir needs a DIR");
      else out_dir = v;
      break;
    case O_TRACE: ro.trace |= OX_TRACE_NODES; break;
    case O_TIME: ro.trace |= OX_TRACE_TIME; break;
    case O_FULL: full = 1; break;
    case O_FORMAT:
      has_fmt = 1;
      if (!strcmp(v, "pb")) dir_fmt = OX_FMT_PB;
      else if (!strcmp(v, "json")) dir_fmt = OX_FMT_JSON;
      else if (!strcmp(v, "npy")) dir_fmt = OX_FMT_NPY;
      else if (!strcmp(v, "npz")) dir_fmt = OX_FMT_NPZ;
      else rc = ox_usage_error("run", "unknown format '%s' (pb, json, npy or npz)", v);
      break;
    case O_RANDOM:
      if (ox_parse_seed(v, &seed)) rc = ox_usage_error("run", "--random needs a seed: a number from 0 to 2^64-1, not '%s'", v);
      random = 1;
      break;
    case O_DIM: {
      const char *eq = strchr(v, '=');
      char *end;
      long long sz = eq ? strtoll(eq + 1, &end, 10) : -1;
      if (!eq || eq == v || !eq[1] || *end || sz < 0) rc = ox_usage_error("run", "--dim needs NAME=SIZE (such as N=4), not '%s'", v);
      else dims[ndim++] = (mk_dim){ox_strndup(A, v, (size_t)(eq - v)), sz};
      break;
    }
    case O_RANGE: {
      const char *eq = strchr(v, '=');
      mk_input *r = &ranges[nrange];
      *r = (mk_input){.ranged = 1};
      if (!eq || eq == v || ox_parse_range(eq + 1, &r->lo, &r->hi))
        rc = ox_usage_error("run", "--range needs NAME=LO:HI with LO <= HI (such as x=0:1), not '%s'", v);
      else r->name = ox_strndup(A, v, (size_t)(eq - v)), nrange++;
      break;
    }
    case O_SAVE:
      if (!*v) rc = ox_usage_error("run", "--save-intermediates needs a DIR");
      save_dir = v;
      break;
    case O_SAVE_SUB: save_sub = 1; break;
    }
  }
  if (rc) goto done;
  if (!model_path) rc = ox_usage_error("run", "no MODEL given");
  else if (out_dir && nout) rc = ox_usage_error("run", "use either --out or --out-dir, not both");
  else if ((ndim || nrange) && !random) rc = ox_usage_error("run", "%s is for --random", ndim ? "--dim" : "--range");
  else if (save_sub && !save_dir) rc = ox_usage_error("run", "--save-intermediates-subgraphs needs --save-intermediates DIR");
  else if (has_fmt && !out_dir && !nout && dir_fmt != OX_FMT_JSON)
    rc = ox_usage_error("run", "--format %s needs --out-dir DIR or --out FILE ('-': standard output); without "
                        "them only json is printed", dir_fmt == OX_FMT_PB ? "pb" : dir_fmt == OX_FMT_NPY ? "npy" : "npz");
  for (int i = 0; !rc && i < nout; i++) {
    const char *eq = strchr(outs[i], '=');
    const char *f = eq ? eq + 1 : outs[i];
    if (eq && !eq[1]) rc = ox_usage_error("run", "--out %s: no FILE after the '='", outs[i]);
    else if (strcmp(f, "-") && strcmp(outs[i], "-") && ox_format_of(f) == OX_FMT_UNKNOWN &&
             ox_format_of(outs[i]) == OX_FMT_UNKNOWN)
      rc = ox_usage_error("run", "cannot tell the format of '%s' (use .pb, .json, .npy or .npz, or - for standard output)", outs[i]);
  }
  if (rc) goto done;

  /* the model loaded, the inputs read and bound and the model run through
   * the library (api/api.h) */
  ox_err e = {0};
  /* run hands out no initializer but a graph output: what only packing
   * kernels read is given back once packed */
  ox_run_opts lo = ox_cli_run;
  lo.release_packed = 1;
  if (ox_api_model_load(model_path, 0, &lo, &M, &err)) {
    rc = ox_cli_api_fail(model_path, NULL, err);
    goto done;
  }
  const ox_model *m = ox_api_model(M);
  ox_model_notes(m, warn_note, NULL);
  ox_cli_order_warning("run", model_path, M);
  const ox_graph *g = m->graph;
  /* a trace of thousands of nodes is a summary unless --full asks for each */
  if (ro.trace && !full && g->nnode > TRACE_NODES_MAX) {
    ro.trace |= OX_TRACE_SUMMARY;
    fprintf(stderr, "onnxop run: %s: %d nodes: the %s is a summary by op (--full: each node)\n", model_path,
            g->nnode, ro.trace & OX_TRACE_NODES ? "trace" : "time");
  }
  nin_vals = g->nin;
  in_vals = ox_alloc_array(A, g->nin + 1, sizeof *in_vals);
  const ox_value **out_vals = ox_alloc_array(A, g->nout + 1, sizeof *out_vals);
  const char **out_names = ox_alloc_array(A, g->nout + 1, sizeof *out_names);
  /* where each output goes: slot_of[i] is the output --out i writes (-1:
   * every output, as the members of one .npz) */
  int *slot_of = ox_alloc_array(A, nout + 1, sizeof *slot_of);
  const char **file_of = ox_alloc_array(A, nout + 1, sizeof *file_of);
  if (!in_vals || !out_vals || !out_names || !slot_of || !file_of) {
    rc = ox_cli_oom("run", NULL);
    goto done;
  }
  for (int i = 0; i < g->nout; i++) out_names[i] = g->out[i].name;
  if ((rc = ox_bind_inputs(A, "run", M, ins, nin, in_vals))) goto done;
  if (random && (rc = draw_inputs(A, m, in_vals, seed, ndim, dims, nrange, ranges))) goto done;

  /* the outputs' files, claimed before anything is computed: a path that
   * cannot be written, or two that name one file, fail here */
  int to_stdout = 0;
  ox_names out_ix;
  if (ox_names_index(A, g->nout, out_names, &out_ix)) {
    rc = ox_cli_oom("run", NULL);
    goto done;
  }
  for (int i = 0, opos = 0; i < nout; i++) {
    ox_binding b;
    if ((rc = ox_split_binding_ix("run", "output", outs[i], &out_ix, &b))) goto done;
    file_of[i] = b.file;
    int dash = !strcmp(b.file, "-");
    if (!dash && ox_format_of(b.file) == OX_FMT_UNKNOWN) {
      rc = ox_usage_error("run", "cannot tell the format of '%s' (use .pb, .json, .npy or .npz)", b.file);
      goto done;
    }
    if (b.name) {
      slot_of[i] = b.index;
    } else if (nout == 1 && (dash ? dir_fmt == OX_FMT_NPZ || (!has_fmt && g->nout > 1) : ox_format_of(b.file) == OX_FMT_NPZ)) {
      slot_of[i] = -1; /* a single --out FILE.npz (or -) takes every output */
    } else if (opos < g->nout) {
      slot_of[i] = opos++;
    } else {
      rc = ox_usage_error("run", "too many outputs: the model has %d (%s is extra)", g->nout, outs[i]);
      goto done;
    }
    if (dash) {
      if (to_stdout++) {
        rc = ox_usage_error("run", "standard output ('-') is given for two outputs");
        goto done;
      }
      continue;
    }
    if ((rc = ox_claim_output(b.file, &e))) {
      rc = ox_cli_fail_file(b.file, NULL, &e);
      goto done;
    }
  }
  static const char *const ext[] = {"", "pb", "json", "npy", "npz"};
  if (out_dir) {
    if ((rc = ox_mkdir_p(out_dir, strlen(out_dir), &e))) {
      fprintf(stderr, "onnxop: %s\n", e.msg);
      goto done;
    }
    nout = dir_fmt == OX_FMT_NPZ ? 1 : g->nout;
    slot_of = ox_alloc_array(A, nout + 1, sizeof *slot_of);
    file_of = ox_alloc_array(A, nout + 1, sizeof *file_of);
    for (int i = 0; slot_of && file_of && i < nout; i++) {
      slot_of[i] = dir_fmt == OX_FMT_NPZ ? -1 : i;
      file_of[i] = dir_fmt == OX_FMT_NPZ ? ox_sprintf(A, "%s/outputs.npz", out_dir)
                                         : ox_sprintf(A, "%s/output_%d.%s", out_dir, i, ext[dir_fmt]);
      if (!file_of[i]) break;
      if ((rc = ox_claim_output(file_of[i], &e))) {
        rc = ox_cli_fail_file(file_of[i], NULL, &e);
        goto done;
      }
    }
    if (!slot_of || !file_of || (nout && !file_of[nout - 1])) {
      rc = ox_cli_oom("run", NULL);
      goto done;
    }
  }
  if (save_dir) {
    if ((rc = ox_mkdir_p(save_dir, strlen(save_dir), &e))) {
      fprintf(stderr, "onnxop: %s\n", e.msg);
      goto done;
    }
    sv.dir = save_dir;
    sv.subgraphs = save_sub;
    sv.failures = ox_mem_failures();
    if (!(sv.index = cJSON_CreateArray())) {
      rc = ox_cli_oom("run", NULL);
      goto done;
    }
    ro.hook = save_node;
    ro.hook_arg = &sv;
  }

  if (ox_api_run(M, &ro, (const onnxop_value *const *)in_vals, &results, &nresults, &err)) {
    rc = ox_cli_api_fail(model_path, NULL, err);
    goto done;
  }
  for (int i = 0; i < g->nout; i++) out_vals[i] = ox_api_value(results[i]);
  if (save_dir && (rc = write_index(&sv, &e))) {
    rc = ox_cli_fail_file(save_dir, NULL, &e);
    goto done;
  }
  if (!nout && !out_dir) {
    if (has_fmt) { /* --format json: one JSON list of the outputs */
      if ((rc = ox_write_stdout(OX_FMT_JSON, 1, g->nout, out_vals, out_names, &e)))
        fprintf(stderr, "onnxop: %s\n", e.msg);
    } else {
      for (int i = 0; i < g->nout && !rc; i++)
        if (ox_text_print(stdout, g->out[i].name, out_vals[i], 2))
          /* a write error stops here (main says so); else memory ran out */
          rc = ferror(stdout) ? OX_EINPUT : ox_cli_oom("run", "printing the outputs");
    }
    if (!rc && save_dir && (rc = ox_commit_files(&e))) fprintf(stderr, "onnxop: %s\n", e.msg);
    goto done;
  }
  /* every temporary first, then standard output, then all renamed into place (or none) */
  for (int i = 0; i < nout && !rc; i++) {
    int k = slot_of[i];
    if (!strcmp(file_of[i], "-")) continue;
    rc = k < 0 ? ox_save_npz(file_of[i], g->nout, out_vals, out_names, &e)
               : ox_save_value(file_of[i], out_dir ? dir_fmt : ox_format_of(file_of[i]), out_vals[k],
                               out_names[k], &e);
    if (rc) rc = ox_cli_fail_file(file_of[i], NULL, &e);
  }
  for (int i = 0; i < nout && !rc; i++) {
    if (out_dir || strcmp(file_of[i], "-")) continue;
    int k = slot_of[i];
    ox_format f = has_fmt ? dir_fmt : OX_FMT_JSON;
    rc = k < 0 ? ox_write_stdout(f, 1, g->nout, out_vals, out_names, &e)
               : ox_write_stdout(f, 0, 1, &out_vals[k], &out_names[k], &e);
    if (rc) fprintf(stderr, "onnxop: standard output: %s\n", e.msg);
  }
  if (!rc && (rc = ox_commit_files(&e))) fprintf(stderr, "onnxop: %s\n", e.msg);
done:
  if (rc) ox_discard_files();
  cJSON_Delete(sv.index);
  onnxop_values_free(results, nresults);
  ox_cli_free_values(in_vals, nin_vals);
  onnxop_model_free(M);
  onnxop_error_free(err);
  ox_arena_free(A);
  return rc;
}
