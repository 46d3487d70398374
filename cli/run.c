/* cli/run.c: onnxop run MODEL [--in [NAME=]FILE]... [--out [NAME=]FILE]...
 *            [--out-dir DIR] [--format pb|json|npy|npz] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/io.h"
#include "../proto/proto.h"
#include "cli.h"

static const char run_help[] =
    "usage: onnxop run MODEL [--in [NAME=]FILE]... [--out [NAME=]FILE]...\n"
    "                  [--out-dir DIR] [--format pb|json|npy|npz] [--trace] [--time]\n"
    "\n"
    "Evaluate MODEL (a single node or a whole graph) and write or print its outputs.\n"
    "\n"
    "  --in [NAME=]FILE   an input value (.pb, .json, .npy or .npz). Without NAME=,\n"
    "                     inputs go by position: the graph's inputs in order,\n"
    "                     initializers left out. An .npz gives several inputs: its\n"
    "                     member x.npy goes to input x, the others by position;\n"
    "                     FILE.npz:NAME is one member.\n"
    "  --out [NAME=]FILE  write an output (format from the extension); without NAME=,\n"
    "                     outputs go by position. A single --out FILE.npz takes\n"
    "                     every output, as members named by the outputs.\n"
    "  --out-dir DIR      write every output as DIR/output_K.pb (the ONNX test layout)\n"
    "  --format F         the format for --out-dir: pb (default), json, npy\n"
    "                     (DIR/output_K.npy), or npz (one DIR/outputs.npz)\n"
    "  --trace            print each node as it runs, with its inputs and outputs\n"
    "                     summarised (dtype, shape, min/max, first values), on stderr\n"
    "  --time             print each node's time on stderr\n"
    "\n"
    "FILE may also be '-' (standard input: .pb, JSON, .npy or .npz), an inline\n"
    "value such as 'float32[2,3]:1,2,3,4,5,6' (DTYPE[SHAPE]:values), or a JSON\n"
    "literal '{...}'.\n"
    "\n"
    "With no --out and no --out-dir the outputs are printed, numpy style.\n"
    "A failed run writes no output file.\n"
    "\n"
    "exit status:\n"
    "  0      success\n"
    OX_EXIT_HELP_1
    OX_EXIT_HELP_2
    OX_EXIT_HELP_3
    OX_EXIT_HELP_SIGNAL;

typedef struct { const char *name; const char *file; } binding;
static binding split_binding(const char *arg, int n, const char **names);

/* An .npz given without a member stands for its members: "x" goes to input x,
 * the others by position (in archive order). NAME=FILE.npz takes member NAME
 * when there is one. *ins is replaced by an array in the arena. */
static int expand_npz(ox_arena *A, const char ***ins, int *nin, int nnames, const char **names) {
  int cap = *nin + 1, n = 0;
  const char **out = NULL;
  for (int pass = 0; pass < 2; pass++) {
    if (pass && !(out = ox_alloc_array(A, cap, sizeof *out))) return OX_EINPUT;
    for (int i = 0; i < *nin; i++) {
      const char *arg = (*ins)[i], *member = NULL;
      binding b = split_binding(arg, nnames, names);
      if (ox_format_of(b.file) != OX_FMT_NPZ || strcmp(ox_npz_split(A, b.file, &member), b.file) || member) {
        if (pass) out[n++] = arg;
        continue;
      }
      ox_err e = {0};
      const char **mem;
      int64_t nm;
      if (ox_npz_members(A, b.file, &mem, &nm, &e)) {
        fprintf(stderr, "onnxop: %s: %s\n", b.file, e.msg);
        return e.code ? e.code : OX_EINPUT;
      }
      if (b.name) { /* NAME=FILE.npz: member NAME if there is one, else the only member */
        int has = 0;
        for (int64_t k = 0; k < nm; k++) has |= !strcmp(mem[k], b.name);
        if (pass) out[n++] = has ? ox_sprintf(A, "%s=%s:%s", b.name, b.file, b.name) : arg;
        continue;
      }
      if (!pass) {
        cap += (int)(nm < 1 << 20 ? nm : 1 << 20);
        continue;
      }
      for (int64_t k = 0; k < nm && n < cap - 1; k++) {
        int named = 0;
        for (int j = 0; j < nnames; j++) named |= !strcmp(names[j], mem[k]);
        out[n++] = named ? ox_sprintf(A, "%s=%s:%s", mem[k], b.file, mem[k]) : ox_sprintf(A, "%s:%s", b.file, mem[k]);
      }
    }
  }
  *ins = out;
  *nin = n;
  return 0;
}

/* "NAME=FILE" when NAME is one of names[]; otherwise the whole arg is a file. */
static binding split_binding(const char *arg, int n, const char **names) {
  binding b = {NULL, arg};
  const char *eq = strchr(arg, '=');
  if (eq)
    for (int i = 0; i < n; i++)
      if (strlen(names[i]) == (size_t)(eq - arg) && !strncmp(arg, names[i], (size_t)(eq - arg))) {
        b.name = names[i];
        b.file = eq + 1;
      }
  return b;
}

static int fail_file(const char *file, const char *what, ox_err *e) {
  fprintf(stderr, "onnxop: %s%s: %s\n", file, what ? what : "", e->msg);
  return e->code ? e->code : OX_EINPUT;
}

int ox_cmd_run(int argc, char **argv) {
  const char *model_path = NULL, *out_dir = NULL;
  ox_format dir_fmt = OX_FMT_PB;
  int nin = 0, nout = 0;
  const char **ins = calloc((size_t)argc, sizeof *ins), **outs = calloc((size_t)argc, sizeof *outs);
  const char **ins_heap = ins;
  if (!ins || !outs) return OX_EINPUT;
  int rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(run_help, stdout);
      free(ins);
      free(outs);
      return 0;
    } else if (!strcmp(a, "--in") || !strcmp(a, "-i")) {
      if (++i >= argc) rc = ox_usage_error("run", "--in needs a FILE");
      else ins[nin++] = argv[i];
    } else if (!strcmp(a, "--out") || !strcmp(a, "-o")) {
      if (++i >= argc) rc = ox_usage_error("run", "--out needs a FILE");
      else outs[nout++] = argv[i];
    } else if (!strcmp(a, "--out-dir")) {
      if (++i >= argc) rc = ox_usage_error("run", "--out-dir needs a DIR");
      else out_dir = argv[i];
    } else if (!strcmp(a, "--trace")) {
      ox_trace_flags |= OX_TRACE_NODES;
    } else if (!strcmp(a, "--time")) {
      ox_trace_flags |= OX_TRACE_TIME;
    } else if (!strcmp(a, "--format")) {
      if (++i >= argc) rc = ox_usage_error("run", "--format needs pb, json, npy or npz");
      else if (!strcmp(argv[i], "pb")) dir_fmt = OX_FMT_PB;
      else if (!strcmp(argv[i], "json")) dir_fmt = OX_FMT_JSON;
      else if (!strcmp(argv[i], "npy")) dir_fmt = OX_FMT_NPY;
      else if (!strcmp(argv[i], "npz")) dir_fmt = OX_FMT_NPZ;
      else rc = ox_usage_error("run", "unknown format '%s' (pb, json, npy or npz)", argv[i]);
    } else if (a[0] == '-' && a[1]) {
      rc = ox_usage_error("run", "unknown option '%s'", a);
    } else if (!model_path) {
      model_path = a;
    } else {
      rc = ox_usage_error("run", "unexpected argument '%s' (inputs go with --in)", a);
    }
  }
  if (!rc && !model_path) rc = ox_usage_error("run", "no MODEL given");
  if (!rc && out_dir && nout) rc = ox_usage_error("run", "use either --out or --out-dir, not both");
  for (int i = 0; !rc && i < nout; i++) {
    const char *eq = strchr(outs[i], '=');
    const char *f = eq ? eq + 1 : outs[i];
    if (ox_format_of(f) == OX_FMT_UNKNOWN && ox_format_of(outs[i]) == OX_FMT_UNKNOWN)
      rc = ox_usage_error("run", "cannot tell the format of '%s' (use .pb, .json, .npy or .npz)", outs[i]);
  }
  if (rc) {
    free(ins);
    free(outs);
    return rc;
  }

  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  if (!A) return OX_EINPUT;
  if ((rc = ox_model_load(A, model_path, &m, &e)) || (rc = ox_prepare(A, m, &e))) {
    rc = fail_file(model_path, NULL, &e);
    goto done;
  }
  const ox_graph *g = m->graph;

  /* inputs: by name or by position among the real (non-initializer) inputs */
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  const char **in_names = ox_alloc_array(A, g->nin + 1, sizeof *in_names);
  ox_value **in_vals = ox_alloc_array(A, g->nin + 1, sizeof *in_vals);
  int nreal = ox_graph_real_inputs(g, real);
  for (int i = 0; i < g->nin; i++) in_names[i] = g->in[i].name;
  if ((rc = expand_npz(A, &ins, &nin, g->nin, in_names))) goto done; /* now in the arena */
  /* bind the named inputs first; the positional ones then take the real
   * inputs left, in order */
  int *slot_of = ox_alloc_array(A, nin + 1, sizeof *slot_of);
  char *taken = ox_alloc_array(A, g->nin + 1, 1);
  for (int i = 0; i < nin; i++) {
    binding b = split_binding(ins[i], g->nin, in_names);
    slot_of[i] = -1;
    for (int j = 0; b.name && j < g->nin; j++)
      if (!strcmp(g->in[j].name, b.name)) slot_of[i] = j;
    if (slot_of[i] >= 0 && taken[slot_of[i]]++) {
      rc = ox_usage_error("run", "input '%s' is given twice", b.name);
      goto done;
    }
  }
  for (int i = 0, pos = 0; i < nin; i++) {
    if (slot_of[i] >= 0) continue;
    while (pos < nreal && taken[real[pos]]) pos++;
    if (pos >= nreal) {
      rc = ox_usage_error("run", "too many inputs: the model takes %d (%s is extra)", nreal, ins[i]);
      goto done;
    }
    slot_of[i] = real[pos];
    taken[real[pos++]] = 1;
  }
  for (int i = 0; i < nin; i++) {
    binding b = split_binding(ins[i], g->nin, in_names);
    int slot = slot_of[i];
    const char *nm = NULL;
    if ((rc = ox_load_value(A, b.file, g->in[slot].type, m->dir, &in_vals[slot], &nm, &e))) {
      char what[300];
      snprintf(what, sizeof what, " (input '%s')", g->in[slot].name);
      rc = fail_file(b.file, what, &e);
      goto done;
    }
  }

  ox_value **out_vals = ox_alloc_array(A, g->nout + 1, sizeof *out_vals);
  if ((rc = ox_run(A, m, in_vals, out_vals, &e))) {
    rc = fail_file(model_path, NULL, &e);
    goto done;
  }

  if (!nout && !out_dir) {
    for (int i = 0; i < g->nout; i++) ox_text_print(stdout, g->out[i].name, out_vals[i], 2);
    goto done;
  }
  if (out_dir || (nout == 1 && ox_format_of(outs[0]) == OX_FMT_NPZ && !strchr(outs[0], '='))) {
    /* every output: in DIR, or as the members of one .npz */
    const char **out_names = ox_alloc_array(A, g->nout + 1, sizeof *out_names);
    for (int i = 0; i < g->nout; i++) out_names[i] = g->out[i].name;
    if (!out_dir) {
      if ((rc = ox_save_npz(outs[0], g->nout, (const ox_value *const *)out_vals, out_names, &e)))
        rc = fail_file(outs[0], NULL, &e);
      goto commit;
    }
    if (ox_mkdir_p(out_dir)) {
      fprintf(stderr, "onnxop: %s: cannot create the folder: %s\n", out_dir, strerror(errno));
      rc = OX_EINPUT;
      goto done;
    }
    if (dir_fmt == OX_FMT_NPZ) {
      char *path = ox_sprintf(A, "%s/outputs.npz", out_dir);
      if ((rc = ox_save_npz(path, g->nout, (const ox_value *const *)out_vals, out_names, &e)))
        rc = fail_file(path, NULL, &e);
    }
    static const char *const ext[] = {"", "pb", "json", "npy", "npz"};
    for (int i = 0; i < g->nout && !rc && dir_fmt != OX_FMT_NPZ; i++) {
      char *path = ox_sprintf(A, "%s/output_%d.%s", out_dir, i, ext[dir_fmt]);
      if ((rc = ox_save_value(path, dir_fmt, out_vals[i], g->out[i].name, &e)))
        rc = fail_file(path, NULL, &e);
    }
  } else {
    const char **out_names = ox_alloc_array(A, g->nout + 1, sizeof *out_names);
    for (int i = 0; i < g->nout; i++) out_names[i] = g->out[i].name;
    int opos = 0;
    for (int i = 0; i < nout && !rc; i++) {
      binding b = split_binding(outs[i], g->nout, out_names);
      int slot = -1;
      if (b.name) {
        for (int j = 0; j < g->nout; j++)
          if (!strcmp(g->out[j].name, b.name)) slot = j;
      } else if (opos < g->nout) {
        slot = opos++;
      } else {
        rc = ox_usage_error("run", "too many outputs: the model has %d (%s is extra)", g->nout, outs[i]);
        break;
      }
      if ((rc = ox_save_value(b.file, ox_format_of(b.file), out_vals[slot], g->out[slot].name, &e)))
        rc = fail_file(b.file, NULL, &e);
    }
  }
commit:
  if (!rc && (rc = ox_commit_files(&e))) fprintf(stderr, "onnxop: %s\n", e.msg);
done:
  if (rc) ox_discard_files();
  ox_arena_free(A);
  free(ins_heap);
  free(outs);
  return rc;
}
