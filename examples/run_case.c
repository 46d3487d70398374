/* examples/run_case.c: run one ONNX test case through libonnxop and print
 * its outputs.  cc run_case.c $(pkg-config --cflags --libs onnxop)
 *   ./a.out DIR    (DIR/model.onnx, DIR/test_data_set_0/input_K.pb) */
#include <onnxop.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: %s CASE_DIR\n", argv[0]), 2;
  char path[4096];
  onnxop_model *m = NULL;
  onnxop_value *in[16] = {0}, **out = NULL;
  onnxop_error *err = NULL;
  int nin = 0, nout = 0;
  snprintf(path, sizeof path, "%s/model.onnx", argv[1]);
  int rc = onnxop_model_load(path, &m, &err);
  for (; !rc && nin < 16; nin++) { /* input_K.pb is the K-th input */
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", argv[1], nin);
    if (access(path, F_OK)) break;
    rc = onnxop_value_read(path, ONNXOP_FORMAT_PB, onnxop_model_input_type(m, nin), &in[nin], &err);
  }
  if (!rc) rc = onnxop_run(m, NULL, nin, NULL, (const onnxop_value *const *)in, &out, &nout, &err);
  for (int k = 0; k < nout; k++) {
    char type[256];
    const onnxop_value *v = out[k];
    printf("%s: %s", onnxop_model_output_name(m, k), onnxop_value_type(v, type, sizeof type));
    if (onnxop_value_kind(v) == ONNXOP_TENSOR && onnxop_value_dtype(v) == ONNXOP_FLOAT) {
      const float *x = onnxop_value_data(v);
      for (int64_t i = 0; i < onnxop_value_numel(v); i++) printf("%s%g", i ? " " : " = ", x[i]);
    } else if (onnxop_value_kind(v) == ONNXOP_SEQUENCE) {
      printf(" of %lld", (long long)onnxop_sequence_length(v));
    }
    printf("\n");
  }
  if (rc) fprintf(stderr, "%s\n", onnxop_error_message(err));
  rc = onnxop_error_exit_status(err);
  onnxop_values_free(out, nout);
  for (int i = 0; i < nin; i++) onnxop_value_free(in[i]);
  onnxop_error_free(err);
  onnxop_model_free(m);
  return rc;
}
