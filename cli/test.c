/* cli/test.c: onnxop test PATH... runs ONNX test cases.
 *
 * A case is a folder with model.onnx and test_data_set_N/{input,output}_K.pb.
 * Each case runs in a child process, so a crash or a hang in one case is
 * reported as that case's failure and the run goes on. With --xfail FILE the
 * listed cases are expected to fail: the run fails on a failure that is not
 * listed and on a listed case that passes, so the list stays true. */
#include <dirent.h>
#include <errno.h>
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

#include "../core/compare.h"
#include "../io/io.h"
#include "../proto/proto.h"
#include "cli.h"

static const char test_help[] =
    "usage: onnxop test [--xfail FILE] [--failures] [--json] [-j N] [--timeout S] [-v]\n"
    "                   PATH...\n"
    "\n"
    "Run ONNX test cases and compare with their expected outputs. PATH is a case\n"
    "folder (model.onnx and test_data_set_N/ holding input_K and output_K as .pb,\n"
    ".npy or .json files) or a folder of such cases.\n"
    "Comparison: |got - expected| <= atol + rtol * |expected| for floats (rtol 1e-3,\n"
    "atol 1e-7 unless the case's data.json gives \"rtol\"/\"atol\"); NaN equals NaN;\n"
    "integers, bools and strings exactly; dtype and shape exactly. Random ops\n"
    "without a seed draw from numpy's RandomState(ONNXOP_SEED), 0 unless the\n"
    "environment sets it, so results repeat.\n"
    "\n"
    "  --xfail FILE   cases expected to fail, one per line: NAME: reason\n"
    "                 (the run fails if a listed case passes)\n"
    "  --failures     print only the failing cases, in the --xfail format\n"
    "  --json         print one JSON object instead: \"cases\", each with name,\n"
    "                 status (pass, fail, xfail, xpass), message and seconds;\n"
    "                 \"stale\" (listed cases not run), and the totals passed,\n"
    "                 failed, xfailed, xpassed (the exit status is the same)\n"
    "  -j N           run N cases at once (default: the number of CPUs)\n"
    "  --timeout S    a case taking longer than S whole seconds fails (default\n"
    "                 120; also given before `test`: onnxop --timeout S test)\n"
    "  -v             also print passing and expected-failing cases\n"
    "\n"
    "A case fails when it has no test_data_set_N, or when a data set lacks a file\n"
    "for an input the model needs (an optional-typed one may be left out) or for\n"
    "an output, or holds more than the model has. The last line is\n"
    "'N passed, M failed'; --json and --failures change what is printed, not the\n"
    "exit status.\n"
    "\n"
    "exit status:\n"
    "  0      every case passed (or failed as --xfail lists it)\n"
    "  1      a case failed, a listed case passed or was not run, a PATH held no\n"
    "         case (nothing was checked), or the report could not be written\n"
    OX_EXIT_HELP_2
    OX_EXIT_HELP_SIGNAL;

typedef struct {
  char *path, *name;
  int done, passed;
  char *why;
  double secs; /* wall time of the case, from dispatch to its answer */
} tcase;

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

/* ---- running one case (in the child) ---- */

static void read_tolerances(ox_arena *A, const char *dir, double *rtol, double *atol) {
  char p[4096];
  snprintf(p, sizeof p, "%s/data.json", dir);
  uint8_t *data;
  size_t len;
  ox_err e = {0};
  if (access(p, R_OK) || ox_read_file(A, p, &data, &len, &e)) return;
  const char *r = strstr((const char *)data, "\"rtol\""), *a = strstr((const char *)data, "\"atol\"");
  if (r && (r = strchr(r, ':'))) *rtol = strtod(r + 1, NULL);
  if (a && (a = strchr(a, ':'))) *atol = strtod(a + 1, NULL);
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

/* Returns 0 on pass; else writes the reason into why. */
static int run_case(const char *dir, char *why, size_t n) {
  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  char p[4096];
  int fail = 1;
  double rtol = 1e-3, atol = 1e-7;
  char **sets = NULL;
  int nsets = 0;
  if (!A) {
    snprintf(why, n, "out of memory");
    return 1;
  }
  snprintf(p, sizeof p, "%s/model.onnx", dir);
  if (ox_model_load(A, p, &m, &e) || ox_prepare(A, m, &e)) {
    snprintf(why, n, "%s", e.msg);
    goto out;
  }
  read_tolerances(A, dir, &rtol, &atol);
  nsets = list_dir(dir, "test_data_set_", &sets);
  if (nsets <= 0) {
    snprintf(why, n, nsets == -2 ? "out of memory" : "no test_data_set_N folder");
    goto out;
  }
  const ox_graph *g = m->graph;
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  if (!real) {
    snprintf(why, n, "out of memory");
    goto out;
  }
  int nreal = ox_graph_real_inputs(g, real);
  for (int s = 0; s < nsets; s++) {
    ox_mark mark = ox_arena_mark(A);
    ox_value **in = ox_alloc_array(A, g->nin + 1, sizeof *in);
    ox_value **got = ox_alloc_array(A, g->nout + 1, sizeof *got);
    if (!in || !got) {
      snprintf(why, n, "out of memory");
      goto out;
    }
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
      const char *nm = NULL;
      ox_value *v = NULL;
      int rc = ox_load_value(A, p, g->in[slot].type, m->dir, &v, &nm, &e);
      if (!rc && nm && strcmp(nm, g->in[slot].name)) {
        /* the file names another input: load it again with that one's type */
        for (int j = 0; j < g->nin; j++)
          if (!strcmp(g->in[j].name, nm) && j != slot) {
            slot = j;
            rc = ox_load_value(A, p, g->in[slot].type, m->dir, &v, NULL, &e);
            break;
          }
      }
      if (rc) {
        snprintf(why, n, "%s/%s: %s", sets[s], f, e.msg);
        goto out;
      }
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
    if (ox_run(A, m, in, got, &e)) {
      snprintf(why, n, "%s", e.msg);
      goto out;
    }
    for (int k = 0; k < g->nout; k++) {
      const char *f = value_file(p, sizeof p, dir, sets[s], "output", k);
      if (!f) {
        snprintf(why, n, "%s: output_%d cannot be read", sets[s], k);
        goto out;
      }
      ox_value *want = NULL;
      if (ox_load_value(A, p, g->out[k].type, m->dir, &want, NULL, &e)) {
        snprintf(why, n, "%s/%s: %s", sets[s], f, e.msg);
        goto out;
      }
      char d[1200];
      if (ox_compare(got[k], want, rtol, atol, d, sizeof d)) {
        snprintf(why, n, "%s output %d '%s': %s", sets[s], k, g->out[k].name, d);
        goto out;
      }
    }
    ox_arena_release(A, mark);
  }
  fail = 0;
out:
  free_list(sets, nsets > 0 ? nsets : 0);
  ox_arena_free(A);
  return fail;
}

/* ---- the driver ---- */

/* Workers: each is a forked process that runs the cases it is sent, one at a
 * time, and answers with "P" or "F<reason>" (length-prefixed, one write, so
 * the parent reads it whole). A worker that crashes or hangs takes only its
 * current case down: the parent records why and starts a new worker. Reusing
 * workers saves a fork and an exit per case. */
typedef struct { pid_t pid; int to, from; int idx; time_t start; double t0; } worker;

static void worker_loop(tcase *cases, int to, int from) {
  int idx;
  while (read(to, &idx, sizeof idx) == (ssize_t)sizeof idx) {
    char msg[3000];
    uint32_t len;
#ifdef OX_FAULT_INJECTION
    /* test hook (the test build only: core/arena.h): the CLI tests check
     * that a crashing case is reported and does not stop the run */
    const char *crash = getenv("ONNXOP_TEST_CRASH");
    if (crash && !strcmp(crash, cases[idx].name)) abort();
#endif
    int fail = run_case(cases[idx].path, msg + 5, sizeof msg - 5);
    msg[4] = fail ? 'F' : 'P';
    len = fail ? (uint32_t)strlen(msg + 5) + 1 : 1;
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
static void worker_lost(tcase *cases, worker *w, int timed_out) {
  tcase *c = &cases[w->idx];
  int st = 0;
  char msg[256];
  close(w->to);
  close(w->from);
  if (timed_out) kill(w->pid, SIGKILL);
  waitpid(w->pid, &st, 0);
  w->pid = -1;
  if (timed_out) snprintf(msg, sizeof msg, "timed out");
  else if (WIFSIGNALED(st)) snprintf(msg, sizeof msg, "crashed (signal %d: %s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else snprintf(msg, sizeof msg, "the case's process exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  c->done = 1;
  c->why = ox_heap_strdup(msg);
  c->secs = now_s() - w->t0;
  w->idx = -1;
}

/* A case left without a reason failed because memory ran out (the report
 * says so). */
static void run_all(tcase *cases, int n, int jobs, int timeout) {
  if (jobs > n) jobs = n ? n : 1;
  worker *ws = ox_heap_calloc((size_t)jobs, sizeof *ws);
  if (!ws) return;
  for (int j = 0; j < jobs; j++) {
    ws[j].pid = -1;
    ws[j].idx = -1;
  }
  int next = 0, running = 0;
  signal(SIGPIPE, SIG_IGN);
  for (;;) {
    for (int j = 0; j < jobs && next < n; j++) {
      worker *w = &ws[j];
      if (w->idx >= 0) continue;
      if (w->pid < 0 && start_worker(cases, ws, jobs, w)) {
        cases[next].done = 1;
        cases[next].why = ox_heap_strdup("cannot start a worker process");
        next++;
        continue;
      }
      if (write(w->to, &next, sizeof next) != (ssize_t)sizeof next) {
        stop_worker(w, 1);
        continue; /* retried with a new worker */
      }
      w->idx = next++;
      w->start = time(NULL);
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
    poll(pf, (nfds_t)np, 1000);
    time_t now = time(NULL);
    for (int q = 0; q < np; q++) {
      worker *w = &ws[map[q]];
      if (pf[q].revents & POLLIN) {
        char buf[4096];
        ssize_t r = read(w->from, buf, sizeof buf);
        uint32_t len = 0;
        if (r >= 5) memcpy(&len, buf, 4);
        if (r >= 5 && (ssize_t)(4 + len) == r) {
          tcase *c = &cases[w->idx];
          c->done = 1;
          c->secs = now_s() - w->t0;
          if (buf[4] == 'P') c->passed = 1;
          else c->why = ox_heap_strndup(buf + 5, len - 1);
          w->idx = -1;
        } else {
          worker_lost(cases, w, 0);
        }
        running--;
      } else if (pf[q].revents & (POLLHUP | POLLERR)) {
        worker_lost(cases, w, 0);
        running--;
      } else if (now - w->start > timeout) {
        worker_lost(cases, w, 1);
        running--;
      }
    }
  }
  for (int j = 0; j < jobs; j++) stop_worker(&ws[j], 0);
  free(ws);
}

/* Collect the cases under a path: the path itself when it holds model.onnx,
 * else its sub-folders that do. Returns how many were added, -1 when path is
 * not a folder, -2 when memory ran out. */
static int collect(const char *path, tcase **cases, int *n, int *cap) {
  if (!is_dir(path)) return -1;
  char **names = NULL;
  int nn = 0, added = 0;
  if (!has_model(path)) {
    nn = list_dir(path, NULL, &names);
    if (nn < 0) return nn;
  }
  for (int i = 0; i < (names ? nn : 1) && added >= 0; i++) {
    char p[4096];
    if (names) snprintf(p, sizeof p, "%s/%s", path, names[i]);
    else snprintf(p, sizeof p, "%s", path);
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
    c->path = ox_heap_strdup(p);
    c->name = ox_heap_strdup(base_name(p));
    (*n)++;
    if (!c->path || !c->name) added = -2;
    else added++;
  }
  free_list(names, nn > 0 ? nn : 0);
  return added;
}

/* A PATH that held no case: say so, and name the case folder when PATH is
 * one of its data sets (a common slip: SUITE/test_add/test_data_set_0). */
static void no_case_here(const char *path) {
  char parent[4096];
  size_t l = strlen(path);
  while (l > 1 && path[l - 1] == '/') l--;
  while (l > 0 && path[l - 1] != '/') l--; /* path[0, l): the parent, with its '/' */
  snprintf(parent, sizeof parent, "%.*s", l > 1 ? (int)l - 1 : (int)l, l ? path : ".");
  if (!strncmp(base_name(path), "test_data_set_", 14) || has_model(parent))
    fprintf(stderr, "onnxop test: %s is a data set, not a case: give the case folder (%s)\n", path, parent);
  else
    fprintf(stderr, "onnxop test: %s holds no test case (a folder with model.onnx, or a folder of "
            "them)\n", path);
}

typedef struct { char *name, *reason; int seen; } xline;

/* The lines of an expected-failure list: their count; -1 with *why set when
 * the file cannot be opened (a FIFO or a folder is refused, not waited on),
 * -2 when memory runs out. */
static int load_xfail(const char *file, xline **out, const char **why) {
  FILE *f = ox_open_regular(file, why);
  if (!f) return -1;
  int n = 0, cap = 0, oom = 0;
  xline *v = NULL;
  char line[4096];
  while (!oom && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || *s == '#') continue;
    char *colon = strchr(s, ':');
    if (colon) *colon = 0;
    char *r = colon ? colon + 1 : "";
    while (*r == ' ') r++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = 0;
    if (n == cap) {
      cap = cap ? cap * 2 : 256;
      xline *nv = ox_heap_realloc(v, (size_t)cap * sizeof *v);
      if (!nv) {
        oom = 1;
        break;
      }
      v = nv;
    }
    v[n].name = ox_heap_strdup(s);
    v[n].reason = ox_heap_strdup(r);
    v[n].seen = 0;
    oom = !v[n].name || !v[n].reason;
    n++;
  }
  fclose(f);
  if (oom) {
    for (int i = 0; i < n; i++) free(v[i].name), free(v[i].reason);
    free(v);
    return -2;
  }
  *out = v;
  return n;
}

/* A usage error after cases were collected: free them first. */
static void free_cases(tcase *cases, int n) {
  for (int i = 0; i < n; i++) {
    free(cases[i].path);
    free(cases[i].name);
  }
  free(cases);
}
#define USAGE(...)                                                                    \
  do {                                                                                \
    free_cases(cases, n);                                                             \
    free(is_empty);                                                                   \
    return ox_usage_error("test", __VA_ARGS__);                                       \
  } while (0)

int ox_cmd_test(int argc, char **argv) {
  /* unseeded random ops draw from RandomState(0) unless the user set another
   * seed, so a suite's results repeat from run to run */
  setenv("ONNXOP_SEED", "0", 0);
  const char *xfile = NULL;
  int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), timeout = 120, verbose = 0, failures = 0, json = 0;
  tcase *cases = NULL;
  int n = 0, cap = 0, npaths = 0, empty = 0; /* empty: PATHs that held no case */
  char *is_empty = ox_heap_calloc((size_t)argc, 1); /* argv[i] is a PATH that held no case */
  if (!is_empty) return ox_cli_oom("test", NULL);
  if (jobs < 1) jobs = 1;
  if (jobs > 64) jobs = 64;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(test_help, stdout);
      free_cases(cases, n);
      free(is_empty);
      return 0;
    } else if (!strcmp(a, "--xfail")) {
      if (++i >= argc) USAGE("--xfail needs a FILE");
      xfile = argv[i];
    } else if (!strncmp(a, "-j", 2)) {
      const char *v = a[2] ? a + 2 : (++i < argc ? argv[i] : "");
      if ((jobs = atoi(v)) < 1 || jobs > 64) USAGE("-j needs a number from 1 to 64");
    } else if (!strcmp(a, "--timeout")) {
      if (++i >= argc || (timeout = atoi(argv[i])) < 1 || strspn(argv[i], "0123456789") != strlen(argv[i]))
        USAGE("--timeout needs a whole number of seconds, 1 or more (a limit per case)");
    } else if (!strcmp(a, "-v")) {
      verbose = 1;
    } else if (!strcmp(a, "--failures")) {
      failures = 1;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (a[0] == '-') {
      USAGE("unknown option '%s'", a);
    } else {
      npaths++;
      int got = collect(a, &cases, &n, &cap);
      if (got == -1) USAGE("'%s' is not a folder", a);
      if (got == -2) {
        free_cases(cases, n);
        free(is_empty);
        return ox_cli_oom("test", NULL);
      }
      if (!got) {
        is_empty[i] = 1;
        empty++;
      }
    }
  }
  if (!npaths) USAGE("no PATH given");
  if (json && failures) USAGE("use either --json or --failures, not both");
  xline *xl = NULL;
  int nx = 0;
  const char *xwhy = NULL;
  if (xfile && (nx = load_xfail(xfile, &xl, &xwhy)) == -2) {
    free_cases(cases, n);
    free(is_empty);
    return ox_cli_oom("test", NULL);
  }
  if (nx < 0) USAGE("cannot read the expected-failure list '%s': %s", xfile, xwhy);

  run_all(cases, n, jobs, timeout);

  int passed = 0, failed = 0, xfailed = 0, xpassed = 0, stale = 0;
  size_t failed_allocs = ox_mem_failures(); /* a part of the JSON report that could not be made */
  cJSON *jcases = json ? cJSON_CreateArray() : NULL;
  for (int i = 0; i < n; i++) {
    tcase *c = &cases[i];
    xline *x = NULL;
    for (int j = 0; j < nx && !x; j++)
      if (!strcmp(xl[j].name, c->name)) x = &xl[j];
    if (x) x->seen = 1;
    const char *why = c->why ? c->why : "out of memory";
    if (c->passed && x) xpassed++;
    else if (c->passed) passed++;
    else if (x) xfailed++;
    else failed++;
    if (json) {
      const char *st = c->passed ? (x ? "xpass" : "pass") : (x ? "xfail" : "fail");
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", c->name);
      cJSON_AddStringToObject(o, "status", st);
      if (c->passed && x) {
        char m[4200];
        snprintf(m, sizeof m, "passes, but %s lists it as failing (%s)", xfile, x->reason);
        cJSON_AddStringToObject(o, "message", m);
      } else if (c->passed) {
        cJSON_AddNullToObject(o, "message");
      } else {
        cJSON_AddStringToObject(o, "message", why);
      }
      cJSON_AddNumberToObject(o, "seconds", (double)(int64_t)(c->secs * 1e4 + 0.5) / 1e4);
      ox_cjson_push(jcases, o);
    } else if (failures) {
      if (!c->passed) printf("%s: %s\n", c->name, why);
    } else if (c->passed && x) {
      printf("XPASS %s: passes, but %s lists it as failing (%s); remove the line\n", c->name, xfile,
             x->reason);
    } else if (c->passed) {
      if (verbose) printf("PASS %s\n", c->name);
    } else if (x) {
      if (verbose) printf("XFAIL %s: %s\n", c->name, why);
    } else {
      printf("FAIL %s: %s\n", c->name, why);
    }
  }
  cJSON *jstale = json ? cJSON_CreateArray() : NULL;
  for (int j = 0; j < nx; j++)
    if (!xl[j].seen) {
      stale++;
      if (json) ox_cjson_push(jstale, cJSON_CreateString(xl[j].name));
      else if (!failures) printf("STALE %s: listed in %s but no such case was run\n", xl[j].name, xfile);
    }
  /* --json and --failures only change what is printed, never the status */
  int rc = failed + xpassed + stale + empty || !n ? OX_EINPUT : 0;
  if (json) {
    cJSON *o = cJSON_CreateObject();
    ox_cjson_add(o, "cases", jcases);
    ox_cjson_add(o, "stale", jstale);
    cJSON_AddNumberToObject(o, "passed", passed);
    cJSON_AddNumberToObject(o, "failed", failed + xpassed + stale);
    cJSON_AddNumberToObject(o, "xfailed", xfailed);
    cJSON_AddNumberToObject(o, "xpassed", xpassed);
    char *text = cJSON_PrintUnformatted(o);
    if (text && ox_mem_failures() == failed_allocs) puts(text);
    else rc = ox_cli_oom("test", "printing the report");
    cJSON_free(text);
    cJSON_Delete(o);
  } else if (!failures) {
    if (xfile)
      printf("%d expected failures (listed in %s), %d unexpected passes, %d stale lines\n", xfailed, xfile,
             xpassed, stale);
    printf("%d passed, %d failed\n", passed, failed + xpassed + stale);
  }
  /* after the report, so that they are the last thing read */
  for (int i = 1; empty && i < argc; i++)
    if (is_empty[i]) no_case_here(argv[i]);
  if (!n) fprintf(stderr, "onnxop test: no tests ran: nothing was checked\n");
  free(is_empty);
  for (int i = 0; i < n; i++) {
    free(cases[i].path);
    free(cases[i].name);
    free(cases[i].why);
  }
  free(cases);
  for (int j = 0; j < nx; j++) {
    free(xl[j].name);
    free(xl[j].reason);
  }
  free(xl);
  return rc;
}
