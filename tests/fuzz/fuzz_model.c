/* tests/fuzz/fuzz_model.c: libFuzzer harness for model loading, and for
 * evaluating what loads (inputs made from the declared types, zero-filled).
 * The memory limit keeps hostile shapes from exhausting the machine. */
#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ox_set_memory_limit((size_t)256 << 20);
  ox_arena *a = ox_arena_new();
  ox_err e = {0};
  ox_model *m = NULL;
  if (!ox_model_decode(a, data, size, NULL, &m, &e) && !ox_prepare(a, m, &e)) {
    const ox_graph *g = m->graph;
    ox_value **in = ox_alloc_array(a, g->nin + 1, sizeof *in);
    ox_value **out = ox_alloc_array(a, g->nout + 1, sizeof *out);
    int ok = in && out;
    for (int i = 0; ok && i < g->nin; i++) {
      const ox_valueinfo *vi = &g->in[i];
      if (!vi->type || vi->type->kind != OX_TENSOR || vi->rank < 0 || vi->rank > 8) continue;
      int64_t dims[8];
      for (int d = 0; d < vi->rank; d++) dims[d] = vi->dims[d] >= 0 && vi->dims[d] < 64 ? vi->dims[d] : 1;
      if (ox_tensor_new(a, vi->type->elem, vi->rank, dims, &in[i], &e)) ok = 0;
    }
    ox_err_clear(&e);
    if (ok) ox_run(a, m, in, out, &e);
  }
  ox_arena_free(a);
  return 0;
}
