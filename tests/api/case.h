/* tests/api/case.h: an ONNX test case (DIR/model.onnx, DIR/test_data_set_0/
 * input_K.pb and output_K.pb) loaded through the public API alone, for the
 * programs of tests/api/. */
#ifndef API_CASE_H
#define API_CASE_H

#include <onnxop.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  onnxop_model *m;
  int nin, nout;
  onnxop_value *in[64], *want[64];
} api_case;

static void case_free(api_case *c) {
  for (int i = 0; i < c->nin; i++) onnxop_value_free(c->in[i]);
  for (int i = 0; i < c->nout; i++) onnxop_value_free(c->want[i]);
  onnxop_model_free(c->m);
  c->m = NULL;
  c->nin = c->nout = 0;
}

/* 0, or the error's code with *err set */
static int case_load(const char *dir, api_case *c, onnxop_error **err) {
  char path[4096];
  *c = (api_case){0};
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  int rc = onnxop_model_load(path, &c->m, err);
  /* as many inputs as files: input_K.pb goes to the K-th input */
  for (int k = 0; !rc && k < 64; k++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, k);
    if (access(path, F_OK)) break;
    rc = onnxop_value_read(path, ONNXOP_FORMAT_PB, onnxop_model_input_type(c->m, k), &c->in[k], err);
    if (!rc) c->nin++;
  }
  for (int k = 0; !rc && k < 64; k++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, k);
    if (access(path, F_OK)) break;
    rc = onnxop_value_read(path, ONNXOP_FORMAT_PB, onnxop_model_output_type(c->m, k), &c->want[k], err);
    if (!rc) c->nout++;
  }
  if (rc) case_free(c);
  return rc;
}

#endif
