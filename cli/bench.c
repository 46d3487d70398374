/* cli/bench.c: onnxop bench MODEL --in [NAME=]FILE... [--runs N] [--warmup N] [--time]
 *
 * Times the evaluation alone: the model and its inputs are loaded once, then
 * each run evaluates into the same arena and releases what the run allocated
 * (mark/release), so no file IO and no loading is timed. Prints the median and
 * the minimum in microseconds, with the bytes in and out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../api/api.h"
#include "../core/threads.h"
#include "../io/io.h"
#include "cli.h"

static const char bench_help[] =
    "usage: onnxop bench MODEL --in [NAME=]FILE... [--runs N] [--warmup N] [--time]\n"
    "\n"
    "Time the evaluation of MODEL on its inputs: the model and the inputs are\n"
    "loaded once, then evaluated WARMUP times untimed and RUNS times timed (no file\n"
    "IO; what a run allocates is released before the next). Prints one line:\n"
    "\n"
    "  MODEL: runs=N median_us=M min_us=M bytes_in=B bytes_out=B threads=T load_us=L\n"
    "\n"
    "(load_us: the model's loading once, read, checked and prepared, its constant\n"
    "weights packed, as onnxruntime's session creation; not in the runs' times)\n"
    "\n"
    "  --in [NAME=]FILE   an input value, as for 'onnxop run' (by name or position)\n"
    "  --runs N           timed runs, 1 to 100000000 (default 20)\n"
    "  --warmup N         untimed runs first, 0 to 100000000 (default 3)\n"
    "  --time             then one more run, warm, printing each node's time on\n"
    "                     stderr as 'onnxop run --time' does for its one cold run\n"
    "  --threads N        the kernels' threads (default 1; 0: one per CPU), as for\n"
    "                     every command\n"
    "\n"
    "exit status:\n"
    "  0      success\n"
    OX_EXIT_HELP_1
    OX_EXIT_HELP_2
    OX_EXIT_HELP_3
    OX_EXIT_HELP_SIGNAL;

/* bytes of tensor data in v (through sequences, optionals and maps) */
static int64_t value_bytes(const ox_value *v) {
  if (!v) return 0;
  switch (v->kind) {
  case OX_TENSOR: return v->u.t.n * (int64_t)ox_dtype_size(v->u.t.dt);
  case OX_SEQUENCE: {
    int64_t s = 0;
    for (int64_t i = 0; i < v->u.seq.n; i++) s += value_bytes(v->u.seq.v[i]);
    return s;
  }
  case OX_OPTIONAL: return value_bytes(v->u.opt);
  case OX_MAP: return value_bytes(v->u.map.keys) + value_bytes(v->u.map.values);
  default: return 0;
  }
}

/* A count from lo to 100000000, in decimal digits alone (no sign, no
 * blanks); 0, or -1. */
enum { MAX_COUNT = 100000000 };
static int parse_count(const char *s, long lo, long *out) {
  char *end;
  if (!*s || strspn(s, "0123456789") != strlen(s)) return -1;
  long v = strtol(s, &end, 10);
  if (*end || v < lo || v > MAX_COUNT) return -1;
  *out = v;
  return 0;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { B_HELP, B_IN, B_RUNS, B_WARMUP, B_TIME };
static const ox_opt bench_opts[] = {
    [B_HELP] = {"--help", "-h", NULL},
    [B_IN] = {"--in", "-i", "a FILE"},
    [B_RUNS] = {"--runs", NULL, "a count from 1 to 100000000"},
    [B_WARMUP] = {"--warmup", NULL, "a count from 0 to 100000000"},
    [B_TIME] = {"--time", NULL, NULL},
    {NULL, NULL, NULL},
};

int ox_cmd_bench(int argc, char **argv) {
  const char *model_path = NULL, *v;
  long runs = 20, warmup = 3;
  int nin = 0, rc = 0, time_nodes = 0;
  const char **ins = ox_heap_calloc((size_t)argc + 1, sizeof *ins);
  if (!ins) return ox_cli_oom("bench", NULL);
  ox_optparse p;
  ox_opt_init(&p, "bench", argc, argv, bench_opts);
  for (int k; !rc && (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    if (k == OX_OPT_ERROR) {
      rc = OX_EUSAGE;
    } else if (k == B_HELP) {
      fputs(bench_help, stdout);
      free(ins);
      return 0;
    } else if (k == B_TIME) {
      time_nodes = 1;
    } else if (k == B_IN) {
      if (!*v) rc = ox_usage_error("bench", "--in needs a FILE");
      else ins[nin++] = v;
    } else if (k == B_RUNS || k == B_WARMUP) {
      /* one message for every bad count, with the option's own range */
      if (parse_count(v, k == B_RUNS ? 1 : 0, k == B_RUNS ? &runs : &warmup))
        rc = ox_usage_error("bench", "%s needs %s, not '%s'", bench_opts[k].name, bench_opts[k].arg, v);
    } else if (!model_path) {
      if (!*v) rc = ox_usage_error("bench", "MODEL is an empty path");
      model_path = v;
    } else {
      rc = ox_usage_error("bench", "unexpected argument '%s' (inputs go with --in)", v);
    }
  }
  if (!rc && !model_path) rc = ox_usage_error("bench", "no MODEL given");
  if (rc) {
    free(ins);
    return rc;
  }

  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  onnxop_error *err = NULL;
  onnxop_model *M = NULL;
  onnxop_value **given = NULL; /* the inputs, as the library read them */
  int ngiven = 0;
  double *t = NULL;
  if (!A) {
    free(ins);
    return ox_cli_oom("bench", NULL);
  }
  /* the model loaded and the inputs read and bound as onnxop run does,
   * through the library (api/api.h); the timed runs are the evaluation
   * alone (core/eval.h) */
  double l0 = now_us();
  ox_run_opts lo = ox_cli_run; /* as run: what only packing kernels read is given back */
  lo.release_packed = 1;
  if (ox_api_model_load(model_path, 0, &lo, &M, &err)) {
    rc = ox_cli_api_fail(model_path, NULL, err);
    goto done;
  }
  double load_us = now_us() - l0; /* read, checked, prepared (weights packed) */
  const ox_model *m = ox_api_model(M);
  ox_cli_order_warning("bench", model_path, M);
  const ox_graph *g = m->graph;
  ngiven = g->nin;
  given = ox_alloc_array(A, g->nin + 1, sizeof *given);
  ox_value **in_vals = ox_alloc_array(A, g->nin + 1, sizeof *in_vals);
  ox_value **out_vals = ox_alloc_array(A, g->nout + 1, sizeof *out_vals);
  t = ox_mem_malloc((size_t)runs * sizeof *t); /* up to 800 MB: counted against --max-memory */
  if (!given || !in_vals || !out_vals || !t) {
    rc = ox_cli_oom("bench", NULL);
    goto done;
  }
  if ((rc = ox_bind_inputs(A, "bench", M, ins, nin, given))) goto done;
  for (int i = 0; i < g->nin; i++) in_vals[i] = (ox_value *)ox_api_value(given[i]); /* read only */
  int64_t bytes_in = 0, bytes_out = 0;
  for (int i = 0; i < g->nin; i++) bytes_in += value_bytes(in_vals[i]);

  /* warm-up and timed runs; each releases what it allocated */
  for (long r = 0; r < warmup + runs; r++) {
    ox_mark mk = ox_arena_mark(A);
    double t0 = now_us();
    rc = ox_api_run_values(A, M, &ox_cli_run, in_vals, out_vals, &e);
    double t1 = now_us();
    if (rc) {
      rc = ox_cli_fail_file(model_path, NULL, &e);
      goto done;
    }
    if (r == 0)
      for (int i = 0; i < g->nout; i++) bytes_out += value_bytes(out_vals[i]);
    if (r >= warmup) t[r - warmup] = t1 - t0;
    ox_arena_release(A, mk);
  }
  qsort(t, (size_t)runs, sizeof *t, cmp_double);
  double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
  printf("%s: runs=%ld median_us=%.1f min_us=%.1f bytes_in=%lld bytes_out=%lld threads=%d load_us=%.1f\n",
         model_path, runs, med, t[0], (long long)bytes_in, (long long)bytes_out, ox_threads(), load_us);
  if (time_nodes) { /* one more run, warm, with each node's time on stderr */
    fflush(stdout);
    ox_run_opts ro = ox_cli_run;
    ro.trace |= OX_TRACE_TIME;
    ox_mark mk = ox_arena_mark(A);
    if (ox_api_run_values(A, M, &ro, in_vals, out_vals, &e)) rc = ox_cli_fail_file(model_path, NULL, &e);
    ox_arena_release(A, mk);
  }
done:
  ox_mem_free(t);
  ox_cli_free_values(given, ngiven);
  onnxop_model_free(M);
  onnxop_error_free(err);
  ox_arena_free(A);
  free(ins);
  return rc;
}
