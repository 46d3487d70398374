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
    "                     NAME= must name one of the model's inputs (--in) or\n"
    "                     outputs (--out); a file whose name has an '=' is given\n"
    "                     with a '/' before it: ./a=b.pb.\n"
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

static int fail_file(const char *file, const char *what, ox_err *e) {
  fprintf(stderr, "onnxop: %s%s: %s\n", file, what ? what : "", e->msg);
  return e->code ? e->code : OX_EINPUT;
}

int ox_cmd_run(int argc, char **argv) {
  const char *model_path = NULL, *out_dir = NULL;
  ox_format dir_fmt = OX_FMT_PB;
  int nin = 0, nout = 0;
  const char **ins = ox_heap_calloc((size_t)argc, sizeof *ins), **outs = ox_heap_calloc((size_t)argc, sizeof *outs);
  if (!ins || !outs) {
    free(ins);
    free(outs);
    return ox_cli_oom("run", NULL);
  }
  int rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(run_help, stdout);
      free(ins);
      free(outs);
      return 0;
    } else if (!strcmp(a, "--in") || !strcmp(a, "-i")) {
      if (++i >= argc || !*argv[i]) rc = ox_usage_error("run", "--in needs a FILE");
      else ins[nin++] = argv[i];
    } else if (!strcmp(a, "--out") || !strcmp(a, "-o")) {
      if (++i >= argc || !*argv[i]) rc = ox_usage_error("run", "--out needs a FILE");
      else outs[nout++] = argv[i];
    } else if (!strcmp(a, "--out-dir")) {
      if (++i >= argc || !*argv[i]) rc = ox_usage_error("run", "--out-dir needs a DIR");
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
      if (!*a) rc = ox_usage_error("run", "MODEL is an empty path");
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
    if (eq && !eq[1]) rc = ox_usage_error("run", "--out %s: no FILE after the '='", outs[i]);
    else if (ox_format_of(f) == OX_FMT_UNKNOWN && ox_format_of(outs[i]) == OX_FMT_UNKNOWN)
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
  if (!A) {
    free(ins);
    free(outs);
    return ox_cli_oom("run", NULL);
  }
  if ((rc = ox_model_load(A, model_path, &m, &e)) || (rc = ox_prepare(A, m, &e))) {
    rc = fail_file(model_path, NULL, &e);
    goto done;
  }
  const ox_graph *g = m->graph;
  ox_value **in_vals = ox_alloc_array(A, g->nin + 1, sizeof *in_vals);
  ox_value **out_vals = ox_alloc_array(A, g->nout + 1, sizeof *out_vals);
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
  if ((rc = ox_bind_inputs(A, "run", m, ins, nin, in_vals))) goto done;

  /* the outputs' files, claimed before anything is computed: a path that
   * cannot be written, or two that name one file, fail here */
  for (int i = 0, opos = 0; i < nout; i++) {
    ox_binding b;
    if ((rc = ox_split_binding("run", "output", outs[i], g->nout, out_names, &b))) goto done;
    file_of[i] = b.file;
    if (ox_format_of(b.file) == OX_FMT_UNKNOWN) {
      rc = ox_usage_error("run", "cannot tell the format of '%s' (use .pb, .json, .npy or .npz)", b.file);
      goto done;
    }
    if (b.name) {
      for (int j = 0; j < g->nout; j++)
        if (out_names[j] == b.name) slot_of[i] = j;
    } else if (nout == 1 && ox_format_of(b.file) == OX_FMT_NPZ) {
      slot_of[i] = -1; /* a single --out FILE.npz takes every output */
    } else if (opos < g->nout) {
      slot_of[i] = opos++;
    } else {
      rc = ox_usage_error("run", "too many outputs: the model has %d (%s is extra)", g->nout, outs[i]);
      goto done;
    }
    if ((rc = ox_claim_output(b.file, &e))) {
      rc = fail_file(b.file, NULL, &e);
      goto done;
    }
  }
  static const char *const ext[] = {"", "pb", "json", "npy", "npz"};
  if (out_dir) {
    if (ox_mkdir_p(out_dir)) {
      if (errno == ENOMEM) rc = ox_cli_oom("run", NULL);
      else fprintf(stderr, "onnxop: %s: cannot create the folder: %s\n", out_dir, strerror(errno)), rc = OX_EINPUT;
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
        rc = fail_file(file_of[i], NULL, &e);
        goto done;
      }
    }
    if (!slot_of || !file_of || (nout && !file_of[nout - 1])) {
      rc = ox_cli_oom("run", NULL);
      goto done;
    }
  }

  if ((rc = ox_run(A, m, in_vals, out_vals, &e))) {
    rc = fail_file(model_path, NULL, &e);
    goto done;
  }
  if (!nout && !out_dir) {
    /* a write error is main's to say; else memory ran out */
    for (int i = 0; i < g->nout && !rc; i++)
      if (ox_text_print(stdout, g->out[i].name, out_vals[i], 2) && !ferror(stdout))
        rc = ox_cli_oom("run", "printing the outputs");
    goto done;
  }
  /* every temporary first, then all renamed into place (or none) */
  for (int i = 0; i < nout && !rc; i++) {
    int k = slot_of[i];
    rc = k < 0 ? ox_save_npz(file_of[i], g->nout, (const ox_value *const *)out_vals, out_names, &e)
               : ox_save_value(file_of[i], out_dir ? dir_fmt : ox_format_of(file_of[i]), out_vals[k],
                               out_names[k], &e);
    if (rc) rc = fail_file(file_of[i], NULL, &e);
  }
  if (!rc && (rc = ox_commit_files(&e))) fprintf(stderr, "onnxop: %s\n", e.msg);
done:
  if (rc) ox_discard_files();
  ox_arena_free(A);
  free(ins);
  free(outs);
  return rc;
}
