/* cli/test.c: onnxop test PATH... runs ONNX test cases.
 *
 * A case is a folder with model.onnx and test_data_set_N/{input,output}_K.pb.
 * Each case runs in a child process, so a crash or a hang in one case is
 * reported as that case's failure and the run goes on. With --xfail FILE the
 * listed cases are expected to fail: the run fails on a failure that is not
 * listed and on a listed case that passes, so the list stays true. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../api/api.h"
#include "../core/regex.h"
#include "../io/io.h"
#include "../proto/proto.h"
#include "cli.h"
#include "files.h"
#include "lists.h"

static const char test_help[] =
    "usage: onnxop test [options] PATH...\n"
    "\n"
    "Run ONNX test cases and compare with their expected outputs. PATH is a case\n"
    "folder (model.onnx and test_data_set_N/ holding input_K and output_K as .pb,\n"
    ".npy or .json files) or a folder of such cases.\n"
    "Comparison: |got - expected| <= atol + rtol * |expected| for floats; NaN\n"
    "equals NaN; integers, bools and strings exactly; dtype and shape exactly.\n"
    "Random ops without a seed draw from numpy's RandomState(ONNXOP_SEED), 0\n"
    "unless the environment sets it, so results repeat.\n"
    "\n"
    "Each case ends with one status: pass; fail (an output differs); error (the\n"
    "model, an input or the data set was refused, or the evaluation failed);\n"
    "unsupported (an operator this build lacks); crash (a signal); timeout;\n"
    "xfail and xpass (a case --xfail lists failed, or passed). A case that is\n"
    "not pass or xfail fails the run (unsupported too, unless listed), and so\n"
    "does a stale line of the list (it names no case) or a duplicate one.\n"
    "\n"
    "reports:\n"
    "  -q, --quiet        print the summary line alone\n"
    "  -v, --verbose      also print passing and expected-failing cases\n"
    "  --failures         print only the failing cases, in the --xfail format\n"
    "  --json             print one JSON object instead: \"cases\" (name, path,\n"
    "                     status, message, seconds), \"stale\" and \"duplicates\"\n"
    "                     lines, the count of each status, the shard, and the\n"
    "                     totals passed, failed, xfailed, xpassed\n"
    "  --tap              print TAP version 14 instead\n"
    "  --junit FILE       also write JUnit XML to FILE (a testsuite per PATH)\n"
    "choosing cases:\n"
    "  -k REGEX           only the cases whose name matches REGEX (given again:\n"
    "                     any of them): POSIX extended syntax, matched by PCRE2\n"
    "                     (\\d \\b (?i) work too; man onnxop has the differences);\n"
    "                     back-references work, but a match that takes over a\n"
    "                     million steps is an error, and memory counts against\n"
    "                     --max-memory\n"
    "  --exclude REGEX    not the cases whose name matches REGEX (the same syntax)\n"
    "  --list             print the paths of the cases that would run, and stop\n"
    "  --shard K/N        run the K-th of N slices: the chosen cases in order (PATH\n"
    "                     by PATH, each sorted by name), the i-th in slice i mod N\n"
    "  --fail-fast        stop at the first case that fails the run\n"
    "  --xfail FILE       cases expected to fail, one per line: NAME: reason; NAME\n"
    "                     may be a shell glob (test_bernoulli*), and with a '/' a\n"
    "                     glob of the path (suite/test_abs)\n"
    "tolerances (rtol 1e-3, atol 1e-7 unless changed):\n"
    "  --atol A, --rtol R set them; a case's data.json (\"atol\", \"rtol\") wins\n"
    "  --force-tolerance  --atol and --rtol win over data.json and --tolerances\n"
    "  --tolerances FILE  lines GLOB[:OUTPUT] atol=A rtol=R (either may be left\n"
    "                     out) for the cases GLOB names (and that output alone);\n"
    "                     they win over data.json, a later line over an earlier\n"
    "running:\n"
    "  -j, --jobs N       run N cases at once (default, and 0: one per CPU)\n"
    "  --timeout S        a case taking longer than S seconds (such as 0.5 or 30)\n"
    "                     times out (default 120; also given before the command:\n"
    "                     onnxop --timeout S test ...)\n"
    "\n"
    "Failing cases print as they finish, by name (by path when two cases share a\n"
    "name); on a terminal, a counter on stderr shows the progress. A data set\n"
    "that lacks a file for an input the model needs (an optional-typed one may be\n"
    "left out) or for an output, or holds more than the model has, is an error.\n"
    "The last line is 'N passed, M failed' (M: all that fail the run), after the\n"
    "counts of the other statuses. With --shard, what belongs to the whole run\n"
    "(stale and duplicate lines, a PATH with no case) is reported by shard 1;\n"
    "'onnxop report' merges the shards' --junit or --json reports. What is\n"
    "printed never changes the exit status. Options take --opt=value too, and\n"
    "'--' ends them.\n"
    "\n"
    "exit status:\n"
    "  0      every case passed (or failed as --xfail lists it)\n"
    "  1      a case failed (any status but pass and xfail), a line of the list\n"
    "         is stale or a duplicate, a PATH held no case, nothing was checked,\n"
    "         or the report could not be written\n"
    OX_EXIT_HELP_2
    OX_EXIT_HELP_SIGNAL;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_dir(const char *p) {
  struct stat st;
  return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int has_model(const char *dir) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s/model.onnx", dir) >= (int)sizeof p) return 0;
  return !access(p, R_OK);
}

/* Sorted entries of a folder whose names start with prefix (NULL: all); -1
 * when dir cannot be read, -2 when memory runs out. */
static int list_dir(const char *dir, const char *prefix, char ***out) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0, cap = 64;
  char **v = ox_heap_malloc((size_t)cap * sizeof *v);
  struct dirent *de = NULL;
  while (v && (de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    if (prefix && strncmp(de->d_name, prefix, strlen(prefix))) continue;
    if (n == cap) {
      char **nv = ox_heap_realloc(v, (size_t)(cap *= 2) * sizeof *v);
      if (!nv) break;
      v = nv;
    }
    if (!(v[n] = ox_heap_strdup(de->d_name))) break;
    n++;
  }
  closedir(d);
  if (!v || de) { /* stopped early: memory ran out */
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
    return -2;
  }
  qsort(v, (size_t)n, sizeof *v, cmp_str);
  *out = v;
  return n;
}

static void free_list(char **v, int n) {
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

static const char *base_name(const char *p) {
  size_t l = strlen(p);
  while (l > 1 && p[l - 1] == '/') l--;
  const char *s = p + l;
  while (s > p && s[-1] != '/') s--;
  return s;
}

/* A case found under a PATH. */
typedef struct {
  char *path;       /* PATH/NAME as given (PATH itself when it is the case) */
  const char *name; /* the folder's own name, inside path */
  int arg;          /* which PATH it came from (its JUnit testsuite) */
  int x;            /* the --xfail line that names it, or -1 */
  int show_path;    /* another case of the run has its name: shown by path */
  int done;
  ox_status st;
  char *why;
  double secs;      /* wall time of the case, from dispatch to its answer */
} tcase;

static const char *shown(const tcase *c) { return c->show_path ? c->path : c->name; }

/* Whether a glob (of the --xfail list or the --tolerances file) names the
 * case: its name, or with a '/' its path or the path's last components. */
static int glob_names(const char *pat, const tcase *c) {
  if (!strchr(pat, '/')) return !fnmatch(pat, c->name, 0);
  for (const char *p = c->path; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
    if (!fnmatch(pat, p, FNM_PATHNAME)) return 1;
  return 0;
}

/* ---- running one case (in the child) ---- */

/* The tolerances (|got - expected| <= atol + rtol * |expected|), from the
 * weakest: the defaults; --atol and --rtol; the case's data.json; the
 * --tolerances lines that name the case (and output), in file order; and
 * with --force-tolerance, --atol and --rtol again. Set before the workers
 * are forked. */
enum { HAS_ATOL = OX_HAS_ATOL, HAS_RTOL = OX_HAS_RTOL };
static struct {
  double atol, rtol;
  int has, force;
  ox_arena *text;     /* the --tolerances file's bytes, which its lines point into */
  ox_tollist file;    /* its lines (cli/lists.h), in file order */
  /* the lines looked up: those whose GLOB is a plain name (it matches that
   * name alone) sorted by it, then by line; the others in file order. A
   * case's lines are a binary search and the globs, not every line of a
   * file that may name each of a million cases. */
  const ox_tolline **exact, **globs;
  int nexact, nglobs;
} tol;

static void tol_apply(double *rtol, double *atol, int has, double r, double a) {
  if (has & HAS_RTOL) *rtol = r;
  if (has & HAS_ATOL) *atol = a;
}

/* data.json's "rtol" and "atol" (has: which it gives). 0, or -1 with the
 * reason in why: a tolerance that is not a number >= 0 is an error, never
 * a silent 0 */
static int read_data_json(ox_arena *A, const char *dir, int *has, double *rtol, double *atol, char *why, size_t n) {
  char p[4096];
  uint8_t *data;
  size_t len;
  ox_err e = {0};
  *has = 0;
  snprintf(p, sizeof p, "%s/data.json", dir);
  if (access(p, F_OK)) return 0;
  if (ox_read_file(A, p, &data, &len, &e)) {
    snprintf(why, n, "data.json: %s", e.msg);
    return -1;
  }
  cJSON *j = cJSON_ParseWithLength((const char *)data, len);
  if (!cJSON_IsObject(j)) {
    snprintf(why, n, "data.json: %s", j ? "not a JSON object" : "invalid JSON");
    cJSON_Delete(j);
    return -1;
  }
  static const char *const key[2] = {"atol", "rtol"};
  for (int k = 0; k < 2; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key[k]);
    if (!v) continue;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble)) {
      char *txt = cJSON_PrintUnformatted(v);
      snprintf(why, n, "data.json: \"%s\" is %.60s, not a number >= 0", key[k], txt ? txt : "not a number");
      free(txt);
      cJSON_Delete(j);
      return -1;
    }
    *(k ? rtol : atol) = v->valuedouble;
    *has |= k ? HAS_RTOL : HAS_ATOL;
  }
  cJSON_Delete(j);
  return 0;
}

/* The tolerances of output `out` of case c, given data.json's. */
static void tolerance_of(const tcase *c, const char *out, int dhas, double drtol, double datol, double *rtol,
                         double *atol) {
  *rtol = 1e-3;
  *atol = 1e-7;
  tol_apply(rtol, atol, tol.has, tol.rtol, tol.atol);
  tol_apply(rtol, atol, dhas, drtol, datol);
  int lo = 0, hi = tol.nexact, g = 0;
  while (lo < hi) { /* the first exact line >= the name */
    int mid = lo + (hi - lo) / 2;
    if (strcmp(tol.exact[mid]->glob, c->name) < 0) lo = mid + 1;
    else hi = mid;
  }
  /* the exact lines of the name and the globs that match it, merged in file order */
  for (;;) {
    while (g < tol.nglobs && !glob_names(tol.globs[g]->glob, c)) g++;
    int ex = lo < tol.nexact && !strcmp(tol.exact[lo]->glob, c->name);
    if (!ex && g == tol.nglobs) break;
    const ox_tolline *l = ex && (g == tol.nglobs || tol.exact[lo]->line < tol.globs[g]->line) ? tol.exact[lo++]
                                                                                            : tol.globs[g++];
    if (!l->output || (out && !strcmp(l->output, out))) tol_apply(rtol, atol, l->has, l->rtol, l->atol);
  }
  if (tol.force) tol_apply(rtol, atol, tol.has, tol.rtol, tol.atol);
}

static int cmp_tolline(const void *a, const void *b) {
  const ox_tolline *x = *(const ox_tolline *const *)a, *y = *(const ox_tolline *const *)b;
  int c = strcmp(x->glob, y->glob);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* --tolerances FILE (cli/lists.h) into tol. 0, or the exit status (said). */
static int load_tolerances(const char *file) {
  const char *why;
  FILE *f = ox_open_regular(file, &why); /* a FIFO would block */
  if (!f) return ox_usage_error("test", "cannot read the tolerance file '%s': %s", file, why);
  ox_err e = {0};
  uint8_t *text;
  size_t len;
  if (!(tol.text = ox_arena_new())) {
    fclose(f);
    return ox_cli_oom("test", NULL);
  }
  int rc = ox_read_open_file(tol.text, f, &text, &len, &e);
  if (rc && rc != OX_ENOMEM) return ox_usage_error("test", "cannot read the tolerance file '%s': %s", file, e.msg);
  if (!rc) rc = ox_tolerances_parse((char *)text, len, file, &tol.file, &e);
  int n = tol.file.n;
  if (!rc && (!(tol.exact = ox_mem_malloc(((size_t)n + 1) * sizeof *tol.exact)) ||
              !(tol.globs = ox_mem_malloc(((size_t)n + 1) * sizeof *tol.globs))))
    rc = ox_oom(&e, "for the lines of '%s'", file);
  if (rc == OX_EUSAGE) return ox_usage_error("test", "%s", e.msg);
  if (rc) {
    fprintf(stderr, "onnxop test: %s: %s\n", file, e.msg);
    return OX_EINPUT;
  }
  for (int i = 0; i < n; i++) {
    const ox_tolline *l = &tol.file.v[i];
    if (strpbrk(l->glob, "*?[\\/")) tol.globs[tol.nglobs++] = l; /* what fnmatch reads as more than the name */
    else tol.exact[tol.nexact++] = l;
  }
  qsort(tol.exact, (size_t)tol.nexact, sizeof *tol.exact, cmp_tolline);
  return 0;
}

static void free_tolerances(void) {
  ox_tollist_free(&tol.file);
  ox_mem_free(tol.exact);
  ox_mem_free(tol.globs);
  ox_arena_free(tol.text);
  memset(&tol, 0, sizeof tol);
}

/* DIR/SET/KIND_K.pb, or .npy, or .json (as `onnxop run --out-dir --format`
 * writes them): the file's name ("input_0.npy") with its path in p, or NULL. */
static const char *value_file(char *p, size_t np, const char *dir, const char *set, const char *kind, int k) {
  static const char *const ext[] = {"pb", "npy", "json"};
  for (int i = 0; i < 3; i++) {
    snprintf(p, np, "%s/%s/%s_%d.%s", dir, set, kind, k, ext[i]);
    if (!access(p, R_OK)) return strrchr(p, '/') + 1;
  }
  return NULL;
}

/* K of "KIND_K.pb" (.npy, .json), or -1 for any other name. */
static int value_index(const char *name, const char *kind) {
  size_t l = strlen(kind);
  if (strncmp(name, kind, l) || name[l] != '_' || name[l + 1] < '0' || name[l + 1] > '9') return -1;
  char *end;
  long k = strtol(name + l + 1, &end, 10);
  if (k > 1000000 || (name[l + 1] == '0' && end != name + l + 2)) return -1; /* no "input_01" */
  return !strcmp(end, ".pb") || !strcmp(end, ".npy") || !strcmp(end, ".json") ? (int)k : -1;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* How many KIND_K files the data set holds, in *count: their K must run 0, 1,
 * ..., count - 1, one file each. -1 (the reason in why) for a gap or a K
 * with two files, which would otherwise be left out or picked silently. */
static int count_values(const char *dir, const char *set, const char *kind, int *count, char *why, size_t n) {
  char p[4096];
  char **names = NULL;
  snprintf(p, sizeof p, "%s/%s", dir, set);
  int nn = list_dir(p, kind, &names), nk = 0;
  if (nn < 0) {
    snprintf(why, n, nn == -2 ? "out of memory" : "%s is not a readable folder", set);
    return -1;
  }
  int *ks = ox_heap_malloc((size_t)(nn + 1) * sizeof *ks);
  if (!ks) {
    free_list(names, nn);
    snprintf(why, n, "out of memory");
    return -1;
  }
  for (int i = 0; i < nn; i++)
    if ((ks[nk] = value_index(names[i], kind)) >= 0) nk++;
  free_list(names, nn);
  qsort(ks, (size_t)nk, sizeof *ks, cmp_int);
  int rc = 0;
  for (int i = 0; i < nk && !rc; i++)
    if (ks[i] < i) {
      snprintf(why, n, "%s: %s_%d has two files (.pb, .npy or .json)", set, kind, ks[i]);
      rc = -1;
    } else if (ks[i] > i) {
      snprintf(why, n, "%s: %s_%d is missing (there is %s_%d)", set, kind, i, kind, ks[i]);
      rc = -1;
    }
  free(ks);
  *count = nk;
  return rc;
}

/* The status of an error: unsupported for exit 3 (an operator this build
 * lacks), else error. */
static ox_status status_of(const onnxop_error *e) {
  return onnxop_error_code(e) == ONNXOP_ERR_UNSUPPORTED ? OX_ST_UNSUPPORTED : OX_ST_ERROR;
}

/* Read a data set's value file p as type t. Through the library's reader
 * (api/api.h): messages without the path (the caller names the file as
 * SET/FILE), external data from the model's folder, and p a file only
 * (never '-', an inline value or a JSON literal, whatever the case folder
 * is called). */
static int read_case_value(const char *p, const ox_type *t, const ox_model *m, onnxop_value **v, onnxop_error **err) {
  ox_api_read_opts o = {.type = t, .basedir = m->dir};
  return ox_api_value_read(p, ONNXOP_FORMAT_AUTO, &o, v, err);
}

/* Run the case in folder dir: pass; fail when an output differs; error or
 * unsupported when something was refused. The reason goes into why. The
 * model is loaded, the inputs read and bound, the model run and its outputs
 * compared through the library (api/api.h, onnxop_compare). */
static ox_status run_case(const tcase *c, char *why, size_t n) {
  const char *dir = c->path;
  ox_arena *A = ox_arena_new();
  onnxop_error *err = NULL;
  onnxop_model *M = NULL;
  char p[4096];
  ox_status st = OX_ST_ERROR;
  double drtol = 0, datol = 0; /* data.json's */
  int dhas = 0;
  char **sets = NULL;
  int nsets = 0;
  onnxop_value **in = NULL, **got = NULL, *want = NULL;
  int ngot = 0;
  const ox_graph *g = NULL;
  if (!A) {
    snprintf(why, n, "out of memory");
    return OX_ST_ERROR;
  }
  snprintf(p, sizeof p, "%s/model.onnx", dir);
  if (ox_api_model_load(p, 0, NULL, &M, &err)) {
    snprintf(why, n, "%s", onnxop_error_message(err));
    st = status_of(err);
    goto out;
  }
  const ox_model *m = ox_api_model(M);
  g = m->graph;
  if (read_data_json(A, dir, &dhas, &drtol, &datol, why, n)) goto out;
  nsets = list_dir(dir, "test_data_set_", &sets);
  if (nsets <= 0) {
    snprintf(why, n, nsets == -2 ? "out of memory" : "no test_data_set_N folder");
    goto out;
  }
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  in = ox_alloc_array(A, g->nin + 1, sizeof *in);
  if (!real || !in) {
    snprintf(why, n, "out of memory");
    goto out;
  }
  int nreal = ox_graph_real_inputs(g, real);
  for (int s = 0; s < nsets; s++) {
    /* every expected output is there, and nothing more: a data set that
     * leaves one out or holds one too many checks less than it claims */
    int nin_files, nout_files;
    if (count_values(dir, sets[s], "input", &nin_files, why, n) ||
        count_values(dir, sets[s], "output", &nout_files, why, n))
      goto out;
    if (nin_files > nreal) {
      snprintf(why, n, "%s: %d input files (input_0 to input_%d) but the model has %d input%s", sets[s],
               nin_files, nin_files - 1, nreal, nreal == 1 ? "" : "s");
      goto out;
    }
    if (nout_files > g->nout) {
      snprintf(why, n, "%s: %d expected outputs (output_0 to output_%d) but the model has %d output%s",
               sets[s], nout_files, nout_files - 1, g->nout, g->nout == 1 ? "" : "s");
      goto out;
    }
    if (nout_files < g->nout) {
      snprintf(why, n, "%s: no output_%d file: the expected value of output %d '%s' is missing", sets[s],
               nout_files, nout_files, g->out[nout_files].name);
      goto out;
    }
    /* input_K.pb binds to the K-th real input, unless its stored name says
     * otherwise (cases may leave optional inputs out). */
    for (int k = 0; k < nin_files; k++) {
      const char *f = value_file(p, sizeof p, dir, sets[s], "input", k);
      if (!f) {
        snprintf(why, n, "%s: input_%d cannot be read", sets[s], k);
        goto out;
      }
      int slot = real[k];
      onnxop_value *v = NULL;
      int rc = read_case_value(p, g->in[slot].type, m, &v, &err);
      const char *nm = rc ? NULL : onnxop_value_name(v);
      if (nm && strcmp(nm, g->in[slot].name)) {
        /* the file names another input: read it again with that one's type */
        for (int j = 0; j < g->nin; j++)
          if (!strcmp(g->in[j].name, nm) && j != slot) {
            slot = j;
            onnxop_value_free(v);
            v = NULL;
            rc = read_case_value(p, g->in[slot].type, m, &v, &err);
            break;
          }
      }
      if (rc) {
        snprintf(why, n, "%s/%s: %s", sets[s], f, onnxop_error_message(err));
        st = status_of(err);
        goto out;
      }
      onnxop_value_free(in[slot]); /* a second file for one input (by name, then by position): the later counts */
      in[slot] = v;
    }
    /* an input left out must be one the model lets go (optional-typed) */
    for (int k = 0; k < nreal; k++) {
      const ox_valueinfo *vi = &g->in[real[k]];
      if (!in[real[k]] && !(vi->type && vi->type->kind == OX_OPTIONAL)) {
        snprintf(why, n, "%s: no value for input %d '%s': the data set has %d input file%s, the model %d "
                 "input%s", sets[s], k, vi->name, nin_files, nin_files == 1 ? "" : "s", nreal,
                 nreal == 1 ? "" : "s");
        goto out;
      }
    }
    if (ox_api_run(M, NULL, (const onnxop_value *const *)in, &got, &ngot, &err)) {
      snprintf(why, n, "%s", onnxop_error_message(err));
      st = status_of(err);
      goto out;
    }
    for (int k = 0; k < g->nout; k++) {
      const char *f = value_file(p, sizeof p, dir, sets[s], "output", k);
      if (!f) {
        snprintf(why, n, "%s: output_%d cannot be read", sets[s], k);
        goto out;
      }
      /* as the model declares it; else as the file says (a TensorProto for an
       * optional output, as other tools write one: compare sees through
       * optionals), and if neither reads, the first error */
      onnxop_error *err2 = NULL;
      int unread = read_case_value(p, g->out[k].type, m, &want, &err);
      if (unread && g->out[k].type && !read_case_value(p, NULL, m, &want, &err2)) {
        onnxop_error_free(err);
        err = NULL;
        unread = 0;
      }
      onnxop_error_free(err2);
      if (unread) {
        snprintf(why, n, "%s/%s: %s", sets[s], f, onnxop_error_message(err));
        st = status_of(err);
        goto out;
      }
      double rtol, atol;
      onnxop_compare_report r;
      tolerance_of(c, g->out[k].name, dhas, drtol, datol, &rtol, &atol);
      if (onnxop_compare(got[k], want, atol, rtol, &r, NULL)) {
        snprintf(why, n, "%s output %d '%s': %s", sets[s], k, g->out[k].name, r.why);
        st = OX_ST_FAIL;
        goto out;
      }
      onnxop_value_free(want);
      want = NULL;
    }
    onnxop_values_free(got, ngot);
    got = NULL;
    for (int k = 0; k < g->nin; k++) {
      onnxop_value_free(in[k]);
      in[k] = NULL;
    }
  }
  st = OX_ST_PASS;
out:
  onnxop_value_free(want);
  onnxop_values_free(got, ngot);
  for (int k = 0; in && k < g->nin; k++) onnxop_value_free(in[k]);
  onnxop_model_free(M);
  onnxop_error_free(err);
  free_list(sets, nsets > 0 ? nsets : 0);
  ox_arena_free(A);
  return st;
}

/* ---- the driver ---- */

/* Workers: each is a forked process that runs the cases it is sent, one at a
 * time, and answers with a status letter and the reason (length-prefixed,
 * one write, so the parent reads it whole). A worker that crashes or hangs
 * takes only its current case down: the parent records why and starts a new
 * worker. Reusing workers saves a fork and an exit per case. */
typedef struct { pid_t pid; int to, from; int idx; double t0; } worker;

static const char status_letter[] = "PFEU"; /* pass, fail, error, unsupported: ox_status 0-3 */

static void worker_loop(tcase *cases, int to, int from) {
  int idx;
  while (read(to, &idx, sizeof idx) == (ssize_t)sizeof idx) {
    char msg[3000];
    uint32_t len;
#ifdef OX_FAULT_INJECTION
    /* test hooks (the test build only: core/arena.h): the CLI tests check
     * that a crashing or hanging case is reported as such and does not stop
     * the run */
    const char *crash = getenv("ONNXOP_TEST_CRASH"), *hang = getenv("ONNXOP_TEST_HANG");
    if (crash && !strcmp(crash, cases[idx].name)) abort();
    if (hang && !strcmp(hang, cases[idx].name)) pause();
#endif
    ox_status st = run_case(&cases[idx], msg + 5, sizeof msg - 5);
    msg[4] = status_letter[st];
    len = st != OX_ST_PASS ? (uint32_t)strlen(msg + 5) + 1 : 1;
    memcpy(msg, &len, 4);
    if (write(from, msg, 4 + len) != (ssize_t)(4 + len)) _exit(3);
  }
  _exit(0);
}

static int start_worker(tcase *cases, worker *ws, int nw, worker *w) {
  int to[2], from[2];
  w->pid = -1;
  w->idx = -1;
  if (pipe(to)) return -1;
  if (pipe(from)) {
    close(to[0]);
    close(to[1]);
    return -1;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(to[0]); close(to[1]); close(from[0]); close(from[1]);
    return -1;
  }
  if (pid == 0) {
    close(to[1]);
    close(from[0]);
    /* the other workers' pipes: holding their ends would keep them from
     * seeing EOF when the parent closes them */
    for (int j = 0; j < nw; j++)
      if (&ws[j] != w && ws[j].pid > 0) {
        close(ws[j].to);
        close(ws[j].from);
      }
    worker_loop(cases, to[0], from[1]);
  }
  close(to[0]);
  close(from[1]);
  w->pid = pid;
  w->to = to[1];
  w->from = from[0];
  return 0;
}

static void stop_worker(worker *w, int kill_it) {
  int st;
  if (w->pid < 0) return;
  close(w->to);
  close(w->from);
  if (kill_it) kill(w->pid, SIGKILL);
  waitpid(w->pid, &st, 0);
  w->pid = -1;
}

/* The worker died or hung while running its case: say why, start anew. */
static void worker_lost(tcase *cases, worker *w, double timeout) {
  tcase *c = &cases[w->idx];
  int st = 0;
  char msg[256];
  close(w->to);
  close(w->from);
  if (timeout) kill(w->pid, SIGKILL);
  waitpid(w->pid, &st, 0);
  w->pid = -1;
  c->st = OX_ST_CRASH;
  if (timeout) {
    snprintf(msg, sizeof msg, "timed out after %g s", timeout);
    c->st = OX_ST_TIMEOUT;
  } else if (WIFSIGNALED(st)) {
    snprintf(msg, sizeof msg, "crashed (signal %d: %s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  } else {
    snprintf(msg, sizeof msg, "the case's process exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  }
  c->done = 1;
  c->why = ox_heap_strdup(msg);
  c->secs = now_s() - w->t0;
  w->idx = -1;
}

/* What to do as each case finishes (print it, count it); nonzero stops the
 * run (--fail-fast). */
typedef int (*on_done_fn)(void *ctx, tcase *c);

/* Run cases[order[0..n)] on up to `jobs` workers. Returns how many were
 * dispatched (all n unless on_done stopped the run). */
static int run_all(tcase *cases, const int *order, int n, int jobs, double timeout, on_done_fn on_done, void *ctx) {
  if (jobs > n) jobs = n ? n : 1;
  worker *ws = calloc((size_t)jobs, sizeof *ws);
  if (!ws) return 0;
  for (int j = 0; j < jobs; j++) {
    ws[j].pid = -1;
    ws[j].idx = -1;
  }
  int next = 0, running = 0, stop = 0;
  signal(SIGPIPE, SIG_IGN);
  for (;;) {
    for (int j = 0; j < jobs && next < n && !stop; j++) {
      worker *w = &ws[j];
      if (w->idx >= 0) continue;
      if (w->pid < 0 && start_worker(cases, ws, jobs, w)) {
        tcase *c = &cases[order[next++]];
        c->done = 1;
        c->st = OX_ST_ERROR;
        c->why = strdup("cannot start a worker process");
        stop = on_done(ctx, c);
        continue;
      }
      if (write(w->to, &order[next], sizeof *order) != (ssize_t)sizeof *order) {
        stop_worker(w, 1);
        continue; /* retried with a new worker */
      }
      w->idx = order[next++];
      w->t0 = now_s();
      running++;
    }
    if (!running) break;
    struct pollfd pf[64];
    int map[64], np = 0;
    for (int j = 0; j < jobs && np < 64; j++)
      if (ws[j].idx >= 0) {
        pf[np].fd = ws[j].from;
        pf[np].events = POLLIN;
        map[np++] = j;
      }
    poll(pf, (nfds_t)np, stop ? 0 : 250);
    double now = now_s();
    for (int q = 0; q < np; q++) {
      worker *w = &ws[map[q]];
      tcase *c = &cases[w->idx];
      if (stop) { /* --fail-fast: the cases still running are not run */
        stop_worker(w, 1);
        w->idx = -1;
        running--;
        continue;
      }
      if (pf[q].revents & POLLIN) {
        char buf[4096];
        ssize_t r = read(w->from, buf, sizeof buf);
        uint32_t len = 0;
        const char *st = NULL;
        if (r >= 5) memcpy(&len, buf, 4);
        if (r >= 5 && (ssize_t)(4 + len) == r && buf[4] && (st = strchr(status_letter, buf[4]))) {
          c->done = 1;
          c->secs = now_s() - w->t0;
          c->st = (ox_status)(st - status_letter);
          if (c->st != OX_ST_PASS) c->why = ox_heap_strndup(buf + 5, len - 1);
          w->idx = -1;
        } else {
          worker_lost(cases, w, 0);
        }
      } else if (pf[q].revents & (POLLHUP | POLLERR)) {
        worker_lost(cases, w, 0);
      } else if (now - w->t0 > timeout) {
        worker_lost(cases, w, timeout);
      } else {
        continue;
      }
      running--;
      stop = on_done(ctx, c) || stop;
    }
  }
  for (int j = 0; j < jobs; j++) stop_worker(&ws[j], 0);
  free(ws);
  return next;
}

/* Collect the cases under a path: the path itself when it holds model.onnx,
 * else its sub-folders that do. Returns how many were added, -1 when path is
 * not a folder, -2 when memory ran out. */
static int collect(const char *path, int arg, tcase **cases, int *n, int *cap) {
  if (!is_dir(path)) return -1;
  char **names = NULL;
  int nn = 0, added = 0;
  size_t l = strlen(path);
  while (l > 1 && path[l - 1] == '/') l--; /* "suite/" -> "suite/test_abs" */
  if (!has_model(path)) {
    nn = list_dir(path, NULL, &names);
    if (nn < 0) return nn;
  }
  for (int i = 0; i < (names ? nn : 1) && added >= 0; i++) {
    char p[4096];
    if (names) snprintf(p, sizeof p, "%.*s/%s", (int)l, path, names[i]);
    else snprintf(p, sizeof p, "%.*s", (int)l, path);
    if (names && !has_model(p)) continue;
    if (*n == *cap) {
      int ncap = *cap ? *cap * 2 : 256;
      tcase *nc = ox_heap_realloc(*cases, (size_t)ncap * sizeof **cases);
      if (!nc) {
        added = -2;
        break;
      }
      *cases = nc;
      *cap = ncap;
    }
    tcase *c = &(*cases)[*n];
    memset(c, 0, sizeof *c);
    c->path = strdup(p);
    c->arg = arg;
    c->x = -1;
    (*n)++;
    if (!c->path) {
      added = -2;
    } else {
      c->name = base_name(c->path);
      added++;
    }
  }
  free_list(names, nn > 0 ? nn : 0);
  return added;
}

/* A PATH that held no case: why, for its message (the case folder when PATH
 * is one of its data sets: a common slip is SUITE/test_add/test_data_set_0). */
static void no_case_here(const char *path, char *why, size_t n) {
  char parent[4096];
  size_t l = strlen(path);
  while (l > 1 && path[l - 1] == '/') l--;
  while (l > 0 && path[l - 1] != '/') l--; /* path[0, l): the parent, with its '/' */
  snprintf(parent, sizeof parent, "%.*s", l > 1 ? (int)l - 1 : (int)l, l ? path : ".");
  if (!strncmp(base_name(path), "test_data_set_", 14) || has_model(parent))
    snprintf(why, n, "%s is a data set, not a case: give the case folder (%s)", path, parent);
  else
    snprintf(why, n, "%s holds no test case (a folder with model.onnx, or a folder of them)", path);
}

/* A line of the --xfail list (cli/lists.h): PATTERN: reason. */
typedef ox_xline xline;

/* The lines of an expected-failure list, read into the arena xa (the lines
 * point into it): their count; -1 with the error said (a file that cannot be
 * read, a FIFO or a folder refused, not waited on; a NUL in it) with *rc its
 * exit status. */
static int load_xfail(ox_arena *xa, const char *file, xline **out, int *rc) {
  const char *why;
  FILE *f = ox_open_regular(file, &why);
  if (!f) {
    *rc = ox_usage_error("test", "cannot read the expected-failure list '%s': %s", file, why);
    return -1;
  }
  ox_err e = {0};
  uint8_t *text;
  size_t len;
  int n = 0, r = ox_read_open_file(xa, f, &text, &len, &e);
  if (r && r != OX_ENOMEM) {
    *rc = ox_usage_error("test", "cannot read the expected-failure list '%s': %s", file, e.msg);
    return -1;
  }
  if (!r) r = ox_xfail_parse((char *)text, len, file, out, &n, &e);
  if (r == OX_EUSAGE) {
    *rc = ox_usage_error("test", "%s", e.msg);
    return -1;
  }
  if (r) {
    fprintf(stderr, "onnxop test: %s: %s\n", file, e.msg);
    *rc = OX_EINPUT;
    return -1;
  }
  return n;
}

static int cmp_xline(const void *a, const void *b) {
  const xline *x = *(const xline *const *)a, *y = *(const xline *const *)b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The lines of the list in the order to look names up: exact names sorted
 * (binary search), globs in file order. Duplicates are marked, and left out. */
typedef struct { xline **exact; int nexact; xline **globs; int nglobs; } xindex;

static int xindex_make(xline *xl, int nx, xindex *ix) {
  ix->exact = malloc(((size_t)nx + 1) * sizeof *ix->exact);
  ix->globs = malloc(((size_t)nx + 1) * sizeof *ix->globs);
  ix->nexact = ix->nglobs = 0;
  if (!ix->exact || !ix->globs) return -1;
  xline **all = ix->exact;
  for (int j = 0; j < nx; j++) all[j] = &xl[j];
  qsort(all, (size_t)nx, sizeof *all, cmp_xline);
  for (int j = 1; j < nx; j++)
    if (!strcmp(all[j]->name, all[j - 1]->name))
      all[j]->dup_of = all[j - 1]->dup_of ? all[j - 1]->dup_of : all[j - 1]->line;
  for (int j = 0; j < nx; j++)
    if (!xl[j].dup_of && xl[j].glob) ix->globs[ix->nglobs++] = &xl[j];
  int k = 0;
  for (int j = 0; j < nx; j++)
    if (!all[j]->dup_of && !all[j]->glob) all[k++] = all[j];
  ix->nexact = k;
  return 0;
}

/* The first line of the file that names the case, or NULL. Every line that
 * names it is marked used (none of them is stale). */
static xline *xfind(const xindex *ix, const tcase *c) {
  xline *hit = NULL;
  int lo = 0, hi = ix->nexact;
  while (lo < hi) { /* the first exact line >= the name */
    int mid = lo + (hi - lo) / 2;
    if (strcmp(ix->exact[mid]->name, c->name) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo < ix->nexact && !strcmp(ix->exact[lo]->name, c->name)) (hit = ix->exact[lo])->used = 1;
  for (int j = 0; j < ix->nglobs; j++)
    if (glob_names(ix->globs[j]->name, c)) {
      ix->globs[j]->used = 1;
      if (!hit || ix->globs[j]->line < hit->line) hit = ix->globs[j];
    }
  return hit;
}

/* What is printed as cases finish, and the counts so far. */
typedef struct {
  int verbose;      /* -1: -q, 0, 1: -v */
  int text;         /* the per-case lines (not --json, --failures) */
  int progress;     /* the counter on stderr (a terminal) */
  int shown;        /* the counter is on screen now */
  const char *xfile;
  const xline *xl;
  int fail_fast;    /* stop at the first case that fails the run */
  int tap;          /* --tap: a test point as each case ends */
  long long tapn;   /* the last test point's number */
  long long total, done, passed, failed;
  double t0, drawn;
} report_ctx;

static void progress_clear(report_ctx *r) {
  if (r->shown) fputs("\r\033[K", stderr);
  r->shown = 0;
}

/* [done/total] passed, failed, elapsed, ETA: one line, redrawn in place,
 * at most ten times a second */
static void progress_draw(report_ctx *r, int force) {
  double t = now_s();
  if (!r->progress || (!force && r->done < r->total && t - r->drawn < 0.1)) return;
  double el = t - r->t0, eta = r->done ? el / (double)r->done * (double)(r->total - r->done) : 0;
  fprintf(stderr, "\r[%lld/%lld] %lld passed, %lld failed, %.1f s, ETA %.1f s\033[K", r->done, r->total, r->passed,
          r->failed, el, eta);
  fflush(stderr);
  r->shown = 1;
  r->drawn = t;
}

/* A case finished: its final status (an --xfail line turns a failure into
 * xfail and a pass into xpass), counted and printed. */
static int case_done(void *ctx, tcase *c) {
  report_ctx *r = ctx;
  if (c->x >= 0) {
    const xline *x = &r->xl[c->x];
    if (c->st == OX_ST_PASS) {
      size_t room = strlen(r->xfile) + strlen(x->reason) + 48; /* the reason is a line of any length */
      free(c->why);
      if ((c->why = malloc(room))) snprintf(c->why, room, "passes, but %s lists it as failing (%s)", r->xfile, x->reason);
      c->st = OX_ST_XPASS;
    } else {
      c->st = OX_ST_XFAIL;
    }
  }
  if (!c->why && c->st != OX_ST_PASS) c->why = strdup("out of memory");
  r->done++;
  if (c->st == OX_ST_PASS) r->passed++;
  if (OX_ST_FAILS(c->st)) r->failed++;
  int line = r->text && (OX_ST_FAILS(c->st) ? r->verbose >= 0 : r->verbose > 0);
  if (line) {
    progress_clear(r);
    if (c->st == OX_ST_PASS) printf("PASS %s\n", shown(c));
    else printf("%s %s: %s%s\n", ox_status_label[c->st], shown(c), c->why ? c->why : "?",
                c->st == OX_ST_XPASS ? "; remove the line" : "");
  }
  if (r->tap) {
    ox_result res = {c->name, c->path, c->why, c->st, c->secs, c->arg};
    progress_clear(r);
    ox_tap_point(stdout, ++r->tapn, &res, c->x >= 0 ? r->xl[c->x].reason : NULL);
    line = 1;
  }
  int stop = r->fail_fast && OX_ST_FAILS(c->st);
  if (stop && r->tap) printf("Bail out! --fail-fast: %s failed\n", c->path);
  if (line) fflush(stdout);
  progress_draw(r, line);
  return stop;
}

static void free_whys(char **why, int n) {
  for (int i = 0; why && i < n; i++) free(why[i]);
  free(why);
}

/* Free every case. */
static void free_cases(tcase *cases, int n) {
  for (int i = 0; i < n; i++) {
    free(cases[i].path);
    free(cases[i].why);
  }
  free(cases);
}

static int cmp_name(const void *a, const void *b) {
  return strcmp((*(tcase *const *)a)->name, (*(tcase *const *)b)->name);
}

static int cmp_path(const void *a, const void *b) {
  const tcase *x = *(tcase *const *)a, *y = *(tcase *const *)b;
  int c = strcmp(x->path, y->path);
  return c ? c : (x > y) - (x < y);
}

static int cmp_shown(const void *a, const void *b) {
  return strcmp(shown(*(tcase *const *)a), shown(*(tcase *const *)b));
}

/* The command line. */
typedef struct {
  const char *xfile, *junit, *tolfile;
  int jobs, verbose, failures, json, tap, list, fail_fast;
  double timeout;               /* seconds a case may take */
  int shard_k, shard_n;         /* --shard K/N; 0 and 0 without it */
  ox_regex keep[16], drop[16];  /* -k and --exclude */
  const char *keep_src[16], *drop_src[16];
  int nkeep, ndrop;
  char *is_path;                /* is_path[i]: argv[i] is a PATH */
  int npaths;
} topts;

static void free_opts(topts *o) {
  for (int i = 0; i < o->nkeep; i++) ox_regex_free(&o->keep[i]);
  for (int i = 0; i < o->ndrop; i++) ox_regex_free(&o->drop[i]);
  free(o->is_path);
}

/* -k and --exclude: PCRE2 (core/regex.h), on the name's bytes (no UTF
 * mode, as regcomp in the C locale), with '.' matching any byte and '$'
 * only at the very end, as POSIX has them. PCRE2 backtracks, so a pattern
 * such as (.*)(.*)(.*)\3\2\1b could take for ever on a long name (glibc's
 * regexec did): a match may take at most PATTERN_STEPS steps and
 * PATTERN_HEAP_KIB KiB of frames, and its memory counts against
 * --max-memory. */
enum { PATTERN_STEPS = 1000000, PATTERN_HEAP_KIB = 65536 };

/* What POSIX extended syntax (as glibc reads it) writes otherwise than
 * PCRE2, rewritten for PCRE2: \< and \> (word start and end), \` and \'
 * (the ends of the text), {,N} (up to N), and in a bracket expression a
 * backslash, which is itself there. A string from ox_mem_malloc, or NULL
 * when memory ran out. */
static char *posix_to_pcre2(const char *p) {
  size_t n = strlen(p), k = 0;
  char *o = ox_mem_malloc(n * 10 + 1); /* "\b(?<=\w)" is the longest: 8 bytes for 2 */
  if (!o) return NULL;
#define EMIT(s) (memcpy(o + k, (s), strlen(s)), k += strlen(s))
  for (size_t i = 0; i < n;) {
    if (p[i] == '\\' && i + 1 < n) {
      char c = p[i + 1];
      const char *rep = c == '<' ? "\\b(?=\\w)" : c == '>' ? "\\b(?<=\\w)" : c == '`' ? "\\A" : c == '\'' ? "\\z" : NULL;
      if (rep) EMIT(rep);
      else o[k++] = p[i], o[k++] = c;
      i += 2;
    } else if (p[i] == '{' && p[i + 1] == ',' && p[i + 2] >= '0' && p[i + 2] <= '9') {
      EMIT("{0,");
      i += 2;
    } else if (p[i] == '[') { /* a bracket expression: up to its ']' */
      o[k++] = p[i++];
      if (p[i] == '^') o[k++] = p[i++];
      if (p[i] == ']') o[k++] = p[i++]; /* a leading ']' is itself */
      while (i < n && p[i] != ']') {
        if (p[i] == '[' && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
          /* [:alpha:] and the like, whole */
          const char *close = strstr(p + i + 2, p[i + 1] == ':' ? ":]" : p[i + 1] == '.' ? ".]" : "=]");
          size_t to = close ? (size_t)(close - p) + 2 : n;
          memcpy(o + k, p + i, to - i);
          k += to - i;
          i = to;
        } else if (p[i] == '\\') {
          EMIT("\\\\");
          i++;
        } else {
          o[k++] = p[i++];
        }
      }
    } else {
      o[k++] = p[i++];
    }
  }
#undef EMIT
  o[k] = 0;
  return o;
}

static int pattern_compile(const char *opt, const char *src, ox_regex *re) {
  ox_err e = {0};
  size_t at;
  char *pat = posix_to_pcre2(src);
  int rc = pat ? ox_regex_compile(re, pat, strlen(pat), PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY, PATTERN_STEPS,
                                  PATTERN_HEAP_KIB, &at, &e)
               : ox_oom(&e, NULL);
  if (rc == OX_ENOMEM) fprintf(stderr, "onnxop test: %s '%s': %s\n", opt, src, e.msg);
  else if (rc && !strcmp(pat, src)) rc = ox_usage_error("test", "%s '%s': %s (at offset %zu)", opt, src, e.msg, at);
  else if (rc)
    rc = ox_usage_error("test", "%s '%s' (for PCRE2: '%s'): %s (at offset %zu of the latter)", opt, src, pat, e.msg,
                        at);
  ox_mem_free(pat);
  return rc; /* OX_ENOMEM, not OX_EINPUT: parse_opts's 1 is --help */
}

/* 1 when name matches the pattern, 0 when not; the exit status, said, when
 * the match could not be decided. */
static int pattern_match(const char *opt, const char *src, ox_regex *re, const char *name) {
  int r = ox_regex_match(re, name, strlen(name));
  if (r >= 0) return 1;
  if (r == PCRE2_ERROR_NOMATCH) return 0;
  if (r == PCRE2_ERROR_NOMEMORY) {
    ox_err e = {0};
    ox_oom(&e, "matching the case name '%s'", name);
    fprintf(stderr, "onnxop test: %s '%s': %s\n", opt, src, e.msg);
    return -OX_EINPUT;
  }
  if (r == PCRE2_ERROR_MATCHLIMIT || r == PCRE2_ERROR_HEAPLIMIT || r == PCRE2_ERROR_DEPTHLIMIT)
    return -ox_usage_error("test", "%s '%s': matching the case name '%s' takes more than %s: the pattern backtracks "
                           "too much (a back-reference or nested repeats?)", opt, src, name,
                           r == PCRE2_ERROR_MATCHLIMIT ? "a million steps" : "64 MiB");
  char msg[256];
  ox_regex_message(r, msg, sizeof msg);
  return -ox_usage_error("test", "%s '%s': matching the case name '%s': %s", opt, src, name, msg);
}

/* -k and --exclude: a case is chosen when its name matches a -k (when there
 * is one) and no --exclude: 1 or 0, or minus the exit status (said) when a
 * pattern could not tell */
static int chosen(topts *o, const char *name) {
  int keep = !o->nkeep;
  for (int i = 0; i < o->nkeep && !keep; i++)
    if ((keep = pattern_match("-k", o->keep_src[i], &o->keep[i], name)) < 0) return keep;
  for (int i = 0; i < o->ndrop && keep; i++) {
    int m = pattern_match("--exclude", o->drop_src[i], &o->drop[i], name);
    if (m < 0) return m;
    keep = !m;
  }
  return keep;
}

enum { T_HELP, T_XFAIL, T_JOBS, T_TIMEOUT, T_VERBOSE, T_QUIET, T_FAILURES, T_JSON, T_ATOL, T_RTOL, T_FORCE_TOL,
       T_TOLERANCES, T_TAP, T_JUNIT, T_LIST, T_FAIL_FAST, T_SHARD, T_KEEP, T_EXCLUDE };
static const ox_opt test_opts[] = {
    [T_HELP] = {"--help", "-h", NULL},
    [T_XFAIL] = {"--xfail", NULL, "a FILE"},
    [T_JOBS] = {"--jobs", "-j", "a count (0: one per CPU)"},
    [T_TIMEOUT] = {"--timeout", NULL, "a number of seconds"},
    [T_VERBOSE] = {"--verbose", "-v", NULL},
    [T_QUIET] = {"--quiet", "-q", NULL},
    [T_FAILURES] = {"--failures", NULL, NULL},
    [T_JSON] = {"--json", NULL, NULL},
    [T_ATOL] = {"--atol", NULL, "a number >= 0"},
    [T_RTOL] = {"--rtol", NULL, "a number >= 0"},
    [T_FORCE_TOL] = {"--force-tolerance", NULL, NULL},
    [T_TOLERANCES] = {"--tolerances", NULL, "a FILE"},
    [T_TAP] = {"--tap", NULL, NULL},
    [T_JUNIT] = {"--junit", NULL, "a FILE"},
    [T_LIST] = {"--list", NULL, NULL},
    [T_FAIL_FAST] = {"--fail-fast", NULL, NULL},
    [T_SHARD] = {"--shard", NULL, "K/N"},
    [T_KEEP] = {"-k", NULL, "a REGEX"},
    [T_EXCLUDE] = {"--exclude", NULL, "a REGEX"},
    {NULL, NULL, NULL},
};

/* The options (cli/opts.c's conventions: --opt=value, --); PATHs are marked
 * in o->is_path. 0, 1 for --help (printed), or a usage error (said). */
static int parse_opts(int argc, char **argv, topts *o) {
  memset(o, 0, sizeof *o);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->jobs = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
  o->timeout = 120;
  if (!(o->is_path = ox_heap_calloc((size_t)argc, 1))) return ox_cli_oom("test", NULL);
  ox_optparse p;
  ox_opt_init(&p, "test", argc, argv, test_opts);
  const char *v;
  for (int k; (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    const char *a = k >= 0 ? test_opts[k].name : NULL;
    switch (k) {
    case OX_OPT_ERROR: return OX_EUSAGE;
    case OX_OPT_OPERAND:
      o->is_path[p.i - 1] = 1;
      o->npaths++;
      break;
    case T_HELP: fputs(test_help, stdout); return 1;
    case T_XFAIL: o->xfile = v; break;
    case T_JOBS: { /* 0: one per CPU, as --threads 0 */
      char *end;
      long j = strtol(v, &end, 10);
      if (!*v || *end || j < 0 || j > 64) return ox_usage_error("test", "-j needs a number from 0 (one per CPU) to 64, not '%s'", v);
      if (j) o->jobs = (int)j;
      break;
    }
    case T_TIMEOUT:
      if ((o->timeout = ox_parse_seconds(v)) <= 0)
        return ox_usage_error("test", "--timeout needs a number of seconds above 0 such as 0.5 or 30 (a limit per "
                              "case), not '%s'", v);
      break;
    case T_VERBOSE: o->verbose = 1; break;
    case T_QUIET: o->verbose = -1; break;
    case T_FAILURES: o->failures = 1; break;
    case T_JSON: o->json = 1; break;
    case T_ATOL:
    case T_RTOL:
      if (ox_parse_tolerance(v, k == T_ATOL ? &tol.atol : &tol.rtol))
        return ox_usage_error("test", "%s needs a number >= 0, not '%s'", a, v);
      tol.has |= k == T_ATOL ? HAS_ATOL : HAS_RTOL;
      break;
    case T_FORCE_TOL: tol.force = 1; break;
    case T_TOLERANCES: o->tolfile = v; break;
    case T_TAP: o->tap = 1; break;
    case T_JUNIT:
      if (!strcmp(v, "-") || !*v)
        return ox_usage_error("test", "--junit needs a FILE (standard output takes --json or --tap)");
      o->junit = v;
      break;
    case T_LIST: o->list = 1; break;
    case T_FAIL_FAST: o->fail_fast = 1; break;
    case T_SHARD:
      if (ox_parse_shard(v, &o->shard_k, &o->shard_n))
        return ox_usage_error("test", "--shard needs K/N, two whole numbers with 1 <= K <= N <= %d, such as "
                              "2/4, not '%s'", OX_SHARD_MAX, v);
      break;
    case T_KEEP:
    case T_EXCLUDE: {
      int keep = k == T_KEEP;
      if ((keep ? o->nkeep : o->ndrop) == 16) return ox_usage_error("test", "%s is given more than 16 times", a);
      ox_regex *re = keep ? &o->keep[o->nkeep] : &o->drop[o->ndrop];
      int err = pattern_compile(a, v, re);
      if (err) return err;
      if (keep) o->keep_src[o->nkeep++] = v;
      else o->drop_src[o->ndrop++] = v;
      break;
    }
    }
  }
  if (!o->npaths) return ox_usage_error("test", "no PATH given");
  if (tol.force && !tol.has) return ox_usage_error("test", "--force-tolerance needs --atol or --rtol");
  if (o->json + o->failures + o->tap > 1)
    return ox_usage_error("test", "use one of --json, --tap and --failures, not %s", o->json + o->failures + o->tap > 2
                          ? "all three" : o->json && o->failures ? "both --json and --failures" : o->tap && o->json
                          ? "both --tap and --json" : "both --tap and --failures");
  if (o->list && (o->json || o->failures || o->tap || o->junit))
    return ox_usage_error("test", "--list prints the cases and runs none: not with %s", o->json ? "--json" : o->failures
                          ? "--failures" : o->tap ? "--tap" : "--junit");
  return 0;
}

int ox_cmd_test(int argc, char **argv) {
  /* unseeded random ops draw from RandomState(0) unless the user set another
   * seed, so a suite's results repeat from run to run */
  setenv("ONNXOP_SEED", "0", 0);
  topts o;
  int rc = parse_opts(argc, argv, &o);
  if (!rc && o.tolfile) rc = load_tolerances(o.tolfile);
  if (rc) {
    free_opts(&o);
    free_tolerances();
    return rc == 1 ? 0 : rc;
  }
  tcase *cases = NULL;
  int n = 0, cap = 0;
  xline *xl = NULL;
  ox_arena *xa = NULL; /* the --xfail list's text, which xl points into */
  int nx = 0;
  xindex xi = {0};
  int *order = NULL, nsel = 0, nrun = 0;
  tcase **by = NULL;
  ox_result *res = NULL;
  long long nres = 0;
  char (*lmsg)[96] = NULL; /* the messages of the list's stale and duplicate lines */
  /* empty_why[i]: why argv[i], a PATH, held no case; NULL for the others */
  char **empty_why = calloc((size_t)argc, sizeof *empty_why);
  if (!empty_why) goto oom;
  for (int i = 1; i < argc; i++) {
    if (!o.is_path[i]) continue;
    int got = collect(argv[i], i, &cases, &n, &cap);
    if (got == -1) {
      rc = ox_usage_error("test", "'%s' is not a folder", argv[i]);
      goto out;
    }
    if (got == -2) goto oom;
    if (!got) {
      char why[8300];
      no_case_here(argv[i], why, sizeof why);
      if (!(empty_why[i] = strdup(why))) goto oom;
    }
  }
  if (o.xfile && (!(xa = ox_arena_new()) || (nx = load_xfail(xa, o.xfile, &xl, &rc)) < 0)) {
    if (!xa) goto oom;
    nx = 0;
    goto out;
  }
  if (o.junit) { /* a path that cannot take the report fails before the run */
    ox_err e = {0};
    if ((rc = ox_claim_output(o.junit, &e))) {
      fprintf(stderr, "onnxop test: --junit %s: %s\n", o.junit, e.msg);
      goto out;
    }
  }
  order = malloc(((size_t)n + 1) * sizeof *order);
  by = malloc(((size_t)n + 1) * sizeof *by);
  if (!order || !by || xindex_make(xl, nx, &xi)) goto oom;

  /* a case given twice (a suite and one of its cases) runs once */
  for (int i = 0; i < n; i++) by[i] = &cases[i];
  qsort(by, (size_t)n, sizeof *by, cmp_path);
  for (int i = 1; i < n; i++)
    if (!strcmp(by[i]->path, by[i - 1]->path)) by[i]->done = -1; /* the later one (cmp_path: by address) */
  /* names two cases share (two suites both hold test_dft_inverse): shown by
   * path, in every shard alike */
  int nb = 0;
  for (int i = 0; i < n; i++)
    if (cases[i].done >= 0) by[nb++] = &cases[i];
  qsort(by, (size_t)nb, sizeof *by, cmp_name);
  for (int i = 1; i < nb; i++)
    if (!strcmp(by[i - 1]->name, by[i]->name)) by[i - 1]->show_path = by[i]->show_path = 1;

  /* the --xfail line of each case found; the cases chosen (-k, --exclude),
   * then this shard's: the chosen cases in order (PATH by PATH, each sorted
   * by name), the i-th (from 0) in shard i mod N + 1 */
  for (int i = 0; i < n; i++) {
    tcase *c = &cases[i];
    if (c->done < 0) continue;
    xline *x = xfind(&xi, c);
    if (x) c->x = (int)(x - xl);
    int ch = chosen(&o, c->name);
    if (ch < 0) {
      rc = -ch;
      goto out;
    }
    if (!ch) continue;
    if (!o.shard_n || nsel % o.shard_n == o.shard_k - 1) order[nrun++] = i;
    nsel++;
  }
  /* what belongs to the whole run, not to a slice of it (lines of the list
   * that name no case, PATHs with no case) is reported by shard 1 alone, so
   * that merged shard reports count it once */
  int whole = !o.shard_n || o.shard_k == 1;

  if (o.list) {
    for (int i = 0; i < nrun; i++) printf("%s\n", cases[order[i]].path);
    rc = nrun ? 0 : OX_EINPUT;
    for (int i = 1; i < argc; i++)
      if (empty_why[i]) fprintf(stderr, "onnxop test: %s\n", empty_why[i]), rc = OX_EINPUT;
    if (!nrun) fprintf(stderr, "onnxop test: no case is chosen (%d found)\n", n);
    goto out;
  }

  /* the results: first what belongs to the whole run (the PATHs that held
   * no case, the list's duplicate and stale lines), then the cases */
  if (!(res = calloc((size_t)nrun + (size_t)nx + (size_t)argc + 1, sizeof *res))) goto oom;
  if (nx && !(lmsg = calloc((size_t)nx, sizeof *lmsg))) goto oom;
  for (int k = 1; whole && k < argc; k++)
    if (empty_why[k]) res[nres++] = (ox_result){base_name(argv[k]), argv[k], empty_why[k], OX_ST_ERROR, 0, k};
  for (int j = 0; whole && j < nx; j++) {
    const char *base = strrchr(xl[j].name, '/') ? strrchr(xl[j].name, '/') + 1 : xl[j].name;
    int ch = xl[j].dup_of || xl[j].used ? 0 : chosen(&o, base);
    if (ch < 0) {
      rc = -ch;
      goto out;
    }
    if (xl[j].dup_of) {
      snprintf(lmsg[j], sizeof lmsg[j], "line %d repeats line %d", xl[j].line, xl[j].dup_of);
      res[nres++] = (ox_result){xl[j].name, xl[j].name, lmsg[j], OX_ST_DUPLICATE, 0, argc};
    } else if (ch) {
      snprintf(lmsg[j], sizeof lmsg[j], "line %d names no case that was found", xl[j].line);
      res[nres++] = (ox_result){xl[j].name, xl[j].name, lmsg[j], OX_ST_STALE, 0, argc};
    }
  }
  long long nwhole = nres;

  report_ctx r = {.verbose = o.verbose, .text = !o.json && !o.failures && !o.tap, .xfile = o.xfile, .xl = xl,
                  .total = nrun, .t0 = now_s(), .fail_fast = o.fail_fast, .tap = o.tap};
  r.progress = isatty(2) && o.verbose >= 0;
  if (o.tap) { /* the plan, then the run's own points, then each case as it ends */
    printf("TAP version 14\n1..%lld\n", nwhole + nrun);
    for (long long i = 0; i < nwhole; i++) ox_tap_point(stdout, ++r.tapn, &res[i], NULL);
    fflush(stdout);
  }
  run_all(cases, order, nrun, o.jobs, o.timeout, case_done, &r);
  progress_clear(&r);
  fflush(stderr);
  long long not_run = 0;
  for (int i = 0; i < nrun; i++) {
    tcase *c = &cases[order[i]];
    if (c->done > 0) res[nres++] = (ox_result){c->name, c->path, c->why, c->st, c->secs, c->arg};
    else not_run++;
  }
  ox_run_info info = {o.shard_k, o.shard_n, nsel, nrun, not_run, o.xfile};

  if (o.failures) {
    /* the failing cases in the --xfail format, sorted */
    int nf = 0;
    for (int i = 0; i < nrun; i++)
      if (cases[order[i]].done > 0 && cases[order[i]].st != OX_ST_PASS && cases[order[i]].st != OX_ST_XPASS)
        by[nf++] = &cases[order[i]];
    qsort(by, (size_t)nf, sizeof *by, cmp_shown);
    for (int i = 0; i < nf; i++) printf("%s: %s\n", shown(by[i]), by[i]->why ? by[i]->why : "?");
  } else if (o.json) {
    size_t failed = ox_mem_failures();
    rc = ox_print_json(ox_results_json(res, nres, &info), "test", failed);
  } else {
    for (long long i = 0; i < nres && o.verbose >= 0 && !o.tap; i++)
      if (res[i].st == OX_ST_DUPLICATE)
        printf("DUPLICATE %s: %s of %s; remove it\n", res[i].name, res[i].message, o.xfile);
      else if (res[i].st == OX_ST_STALE)
        printf("STALE %s: listed in %s (%s)\n", res[i].name, o.xfile, res[i].message);
    long long count[OX_ST_N];
    ox_count_results(res, nres, count);
    if (o.tap) fputs("# ", stdout); /* a comment, after the last test point */
    ox_print_summary(stdout, count, not_run);
  }
  if (o.junit) {
    /* a testsuite for each PATH, and one for the list's own lines */
    const char **groups = calloc((size_t)argc + 1, sizeof *groups);
    ox_err e = {0};
    for (int k = 1; groups && k < argc; k++) groups[k] = o.is_path[k] ? argv[k] : NULL;
    for (long long i = nwhole; groups && i-- > 0;)
      if (res[i].group == argc) groups[argc] = o.xfile;
    if (!groups || ox_junit_write(o.junit, res, nres, groups, argc + 1, &info, &e) || ox_commit_files(&e)) {
      fprintf(stderr, "onnxop test: %s: %s\n", o.junit, groups ? e.msg : "out of memory");
      ox_discard_files();
      rc = OX_EINPUT;
    }
    free(groups);
  }
  for (long long i = 0; i < nres; i++)
    if (OX_ST_FAILS(res[i].st)) rc = OX_EINPUT;
  if (!nrun) rc = OX_EINPUT;
  /* after the report, so that they are the last thing read */
  for (int i = 1; i < argc; i++)
    if (empty_why[i]) fprintf(stderr, "onnxop test: %s\n", empty_why[i]);
  if (not_run) fprintf(stderr, "onnxop test: --fail-fast: stopped at the first failure; %lld of %d cases not run\n", not_run, nrun);
  if (!nrun && n) fprintf(stderr, "onnxop test: no case is chosen (%d found): nothing was checked\n", n);
  else if (!nrun) fprintf(stderr, "onnxop test: no tests ran: nothing was checked\n");
  goto out;
oom:
  fprintf(stderr, "onnxop test: out of memory\n");
  rc = OX_EINPUT;
out:
  free(res);
  free(lmsg);
  free(order);
  free(by);
  free(xi.exact);
  free(xi.globs);
  free_whys(empty_why, argc);
  free_cases(cases, n);
  ox_mem_free(xl);
  ox_arena_free(xa);
  free_opts(&o);
  free_tolerances();
  return rc;
}
