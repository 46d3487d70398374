/* tests/api/threads.c: threads CASE_DIR...: runs at once give the bytes of
 * runs one at a time. Each case runs once alone (its outputs encoded as
 * .pb); then two threads run every case ROUNDS times, one from the first
 * case and one from the last (so they run two models at once, and one model
 * twice where they cross), then both run the first case ROUNDS times (one
 * model, twice at once); the even runs with 2 kernel threads. Every
 * output's bytes must equal the lone run's. Built with -fsanitize=thread
 * against a ThreadSanitizer build of the library (make check), where any
 * data race is a report and a failure. Prints "api threads: N passed, M
 * failed" (N: runs compared). */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <pthread.h>
#include <string.h>

#include "case.h"

enum { ROUNDS = 3 };

typedef struct {
  api_case c;
  int nout;
  void *bytes[64];
  size_t len[64];
} job;

static job *jobs;
static int njobs;
static pthread_barrier_t start;
static onnxop_run_options *opts[2];

/* run job j; 0 when its outputs are the lone run's bytes (keep: record them) */
static int run_job(job *j, int two_threads, int keep) {
  onnxop_error *err = NULL;
  onnxop_value **out = NULL;
  int n = 0, bad = 0;
  if (onnxop_run(j->c.m, opts[two_threads], j->c.nin, NULL, (const onnxop_value *const *)j->c.in, &out, &n, &err)) {
    printf("FAIL run: %s\n", onnxop_error_message(err));
    onnxop_error_free(err);
    return 1;
  }
  if (keep) j->nout = n;
  for (int k = 0; k < n && !bad; k++) {
    void *b = NULL;
    size_t len = 0;
    if (onnxop_value_write_buffer(out[k], NULL, ONNXOP_FORMAT_PB, &b, &len, &err)) {
      printf("FAIL encode: %s\n", onnxop_error_message(err));
      onnxop_error_free(err);
      bad = 1;
    } else if (keep) {
      j->bytes[k] = b, j->len[k] = len;
      b = NULL;
    } else {
      bad = n != j->nout || len != j->len[k] || memcmp(b, j->bytes[k], len);
    }
    onnxop_free(b);
  }
  onnxop_values_free(out, n);
  return bad;
}

typedef struct { int id, passed, failed; } worker;

static void *work(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(&start);
  for (int r = 0; r < ROUNDS; r++)
    for (int i = 0; i < njobs; i++) {
      int k = w->id ? njobs - 1 - i : i;
      if (run_job(&jobs[k], (r + i) % 2, 0)) w->failed++, printf("FAIL %d: case %d differs\n", w->id, k);
      else w->passed++;
    }
  pthread_barrier_wait(&start);
  for (int r = 0; r < ROUNDS * 4; r++) {
    if (run_job(&jobs[0], r % 2, 0)) w->failed++, printf("FAIL %d: case 0 differs (twice at once)\n", w->id);
    else w->passed++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  njobs = argc - 1;
  jobs = calloc((size_t)njobs + 1, sizeof *jobs);
  opts[0] = onnxop_run_options_new();
  opts[1] = onnxop_run_options_new();
  if (!njobs || !jobs || !opts[0] || !opts[1] || onnxop_run_options_set_threads(opts[1], 2)) {
    fprintf(stderr, "usage: threads CASE_DIR...\n");
    return 2;
  }
  for (int i = 0; i < njobs; i++) {
    onnxop_error *err = NULL;
    if (case_load(argv[i + 1], &jobs[i].c, &err) || run_job(&jobs[i], 0, 1)) {
      printf("FAIL %s: %s\n", argv[i + 1], onnxop_error_message(err));
      return 1;
    }
  }
  pthread_barrier_init(&start, NULL, 2);
  worker w[2] = {{0, 0, 0}, {1, 0, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, &w[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < njobs; i++) {
    for (int k = 0; k < jobs[i].nout; k++) onnxop_free(jobs[i].bytes[k]);
    case_free(&jobs[i].c);
  }
  free(jobs);
  onnxop_run_options_free(opts[0]);
  onnxop_run_options_free(opts[1]);
  printf("api threads: %d passed, %d failed\n", w[0].passed + w[1].passed, w[0].failed + w[1].failed);
  return w[0].failed + w[1].failed != 0;
}
