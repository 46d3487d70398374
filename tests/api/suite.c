/* tests/api/suite.c: suite DIR...: each ONNX test case through the library
 * (tests/api/case.h), its outputs compared with output_K.pb by
 * onnxop_compare (rtol 1e-3, atol 1e-7, as onnxop test's defaults; random
 * ops without a seed draw from RandomState(0), as in onnxop test). One line
 * a case that fails, then "api suite: N passed, M failed". */
#include <string.h>

#include "case.h"

static int run_case(const char *dir, const onnxop_run_options *o, char *why, size_t n) {
  api_case c;
  onnxop_error *err = NULL;
  onnxop_value **got = NULL;
  int ngot = 0;
  if (case_load(dir, &c, &err) ||
      onnxop_run(c.m, o, c.nin, NULL, (const onnxop_value *const *)c.in, &got, &ngot, &err)) {
    snprintf(why, n, "error %d: %s", onnxop_error_code(err), onnxop_error_message(err));
    onnxop_error_free(err);
    case_free(&c);
    return 1;
  }
  int bad = ngot != c.nout;
  if (bad) snprintf(why, n, "%d outputs, expected %d", ngot, c.nout);
  for (int k = 0; k < ngot && !bad; k++) {
    onnxop_compare_report r;
    if ((bad = onnxop_compare(got[k], c.want[k], 1e-7, 1e-3, &r, &err) != 0))
      snprintf(why, n, "output %d (%s): %s", k, onnxop_model_output_name(c.m, k), r.why);
  }
  onnxop_values_free(got, ngot);
  case_free(&c);
  return bad;
}

int main(int argc, char **argv) {
  onnxop_run_options *o = onnxop_run_options_new();
  if (!o) { /* tests/faults.py fails this allocation too */
    printf("api suite: out of memory\n");
    return 1;
  }
  onnxop_run_options_set_seed(o, 0);
  int pass = 0, fail = 0;
  for (int i = 1; i < argc; i++) {
    char why[2048];
    if (run_case(argv[i], o, why, sizeof why)) {
      printf("FAIL %s: %s\n", argv[i], why);
      fail++;
    } else {
      pass++;
    }
  }
  onnxop_run_options_free(o);
  printf("api suite: %d passed, %d failed\n", pass, fail);
  return fail != 0;
}
