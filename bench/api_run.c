/* bench/api_run.c MODEL N ROUNDS INPUT.pb...: onnxop_run through the C
 * API, as Session.run makes it: the inputs wrapped once, then N runs a
 * round (each run's outputs freed, as Python frees them once copied), and
 * the median of ROUNDS rounds in nanoseconds per run, of the process's CPU
 * time and of wall time ("CPU WALL"). The Python section of `make bench`
 * (bench/python.py) sets Session.run beside it. */
#define _POSIX_C_SOURCE 200809L
#include <onnxop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: api_run MODEL N ROUNDS INPUT.pb...\n");
    return 2;
  }
  int n = atoi(argv[2]), rounds = atoi(argv[3]), nin = argc - 4;
  onnxop_model *m = NULL;
  onnxop_error *err = NULL;
  onnxop_value *read[64] = {0}, *in[64] = {0}, **out = NULL;
  int nout = 0, rc = onnxop_model_load(argv[1], &m, &err);
  /* each input as a wrapped copy of the file's, as Python wraps an array */
  for (int i = 0; !rc && i < nin && i < 64; i++) {
    rc = onnxop_value_read(argv[4 + i], ONNXOP_FORMAT_PB, onnxop_model_input_type(m, i), &read[i], &err);
    if (!rc)
      rc = onnxop_tensor_wrap(onnxop_value_dtype(read[i]), onnxop_value_rank(read[i]), onnxop_value_dims(read[i]),
                              onnxop_value_data(read[i]), &in[i], &err);
  }
  onnxop_run_options *o = onnxop_run_options_new();
  double *t = calloc((size_t)rounds, sizeof *t), *w = calloc((size_t)rounds, sizeof *w);
  for (int r = 0; !rc && r < rounds; r++) {
    double c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);
    for (int k = 0; !rc && k < n; k++) {
      rc = onnxop_run(m, o, nin, NULL, (const onnxop_value *const *)in, &out, &nout, &err);
      onnxop_values_free(out, nout);
    }
    t[r] = (now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / n;
    w[r] = (now_ns(CLOCK_MONOTONIC) - w0) / n;
  }
  if (rc) {
    fprintf(stderr, "api_run: %s\n", onnxop_error_message(err));
    return 1;
  }
  qsort(t, (size_t)rounds, sizeof *t, by_value);
  qsort(w, (size_t)rounds, sizeof *w, by_value);
  printf("%.0f %.0f\n", t[rounds / 2], w[rounds / 2]);
  for (int i = 0; i < nin; i++) onnxop_value_free(in[i]), onnxop_value_free(read[i]);
  onnxop_run_options_free(o);
  onnxop_model_free(m);
  free(t);
  free(w);
  return 0;
}
