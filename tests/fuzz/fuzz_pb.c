/* tests/fuzz/fuzz_pb.c: libFuzzer harness for .pb values. The first byte
 * picks the declared type (none, a tensor, a sequence, an optional, a map),
 * so every message kind is reached; what decodes is encoded and decoded again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  ox_set_memory_limit((size_t)256 << 20);
  ox_arena *a = ox_arena_new();
  ox_err e = {0};
  const ox_type *f32 = ox_type_tensor(OX_FLOAT), *want = NULL;
  switch (data[0] % 6) {
  case 1: want = f32; break;
  case 2: want = ox_type_seq(a, f32); break;
  case 3: want = ox_type_opt(a, f32); break;
  case 4: want = ox_type_map(a, OX_INT64, f32); break;
  case 5: want = ox_type_opt(a, ox_type_seq(a, ox_type_tensor(OX_INT64))); break;
  default: break;
  }
  ox_value *v = NULL;
  if (!ox_pb_decode(a, data + 1, size - 1, want, NULL, &v, NULL, &e)) {
    ox_buf b = {0};
    if (!ox_pb_encode(v, "x", &b, &e)) {
      ox_value *w = NULL;
      if (ox_pb_decode(a, b.p, b.n, ox_value_type(a, v), NULL, &w, NULL, &e)) abort(); /* must read back */
    }
    ox_buf_free(&b);
  }
  ox_arena_free(a);
  return 0;
}
