/* tests/fuzz/fuzz_json.c: libFuzzer harness for JSON values; what decodes is
 * encoded and decoded again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ox_set_memory_limit((size_t)256 << 20);
  ox_arena *a = ox_arena_new();
  ox_err e = {0};
  char *text = ox_strndup(a, (const char *)data, size);
  ox_value *v = NULL;
  if (text && !ox_json_decode(a, text, size, NULL, &v, NULL, &e)) {
    ox_buf b = {0};
    if (!ox_json_encode(v, "x", &b, &e)) {
      ox_value *w = NULL;
      if (ox_json_decode(a, (const char *)b.p, b.n, ox_value_type(a, v), &w, NULL, &e)) abort();
    }
    ox_buf_free(&b);
  }
  ox_arena_free(a);
  return 0;
}
