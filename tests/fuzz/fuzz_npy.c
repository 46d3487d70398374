/* tests/fuzz/fuzz_npy.c: libFuzzer harness for .npy and .npz values. The
 * first byte picks the reader (.npy with no declared type, a declared float
 * or bfloat16; .npz: its only member, member "x", the member list); what
 * decodes is encoded and decoded again, and must read back. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reading back may only fail by reaching the harness's memory limit (a
 * decoded '<U0' array of 2.6M empty strings grows to <U1 when written). */
static int limited(const ox_err *e) { return e->code && strstr(e->msg, "memory limit"); }

/* A decoded tensor that .npy can hold must write, and read back the same kind. */
static void round_trip(ox_arena *a, const ox_value *v) {
  ox_err e = {0};
  ox_buf b = {0};
  if (ox_npy_encode(v, &b, &e) == 0) {
    ox_value *w = NULL;
    int rc = ox_npy_decode(a, b.p, b.n, NULL, &w, &e);
    if (rc ? !limited(&e) : w->u.t.dt != v->u.t.dt || w->u.t.n != v->u.t.n) abort();
    ox_buf z = {0};
    const ox_value *vals[1] = {v};
    const char *names[1] = {"x"};
    ox_err_clear(&e);
    if ((ox_npz_encode(1, vals, names, &z, &e) || ox_npz_decode(a, z.p, z.n, "x", NULL, &w, NULL, &e)) &&
        !limited(&e))
      abort();
    ox_buf_free(&z);
  } else if (!strstr(e.msg, "use .pb or .json")) {
    /* only what .npy cannot hold is refused (non-UTF-8 strings, bfloat16),
     * with the formats that can hold it */
    abort();
  }
  ox_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  ox_set_memory_limit((size_t)256 << 20);
  ox_arena *a = ox_arena_new();
  ox_err e = {0};
  ox_value *v = NULL;
  const uint8_t *p = data + 1;
  size_t n = size - 1;
  int rc = 1;
  switch (data[0] % 6) {
  case 0: rc = ox_npy_decode(a, p, n, NULL, &v, &e); break;
  case 1: rc = ox_npy_decode(a, p, n, ox_type_tensor(OX_FLOAT), &v, &e); break;
  case 2: rc = ox_npy_decode(a, p, n, ox_type_tensor(OX_BFLOAT16), &v, &e); break;
  case 3: rc = ox_npz_decode(a, p, n, NULL, NULL, &v, NULL, &e); break;
  case 4: rc = ox_npz_decode(a, p, n, "x", NULL, &v, NULL, &e); break;
  default: {
    const char **names;
    int64_t cnt;
    if (!ox_npz_list(a, p, n, &names, &cnt, &e))
      for (int64_t i = 0; i < cnt && i < 4; i++) {
        ox_err_clear(&e);
        if (!ox_npz_decode(a, p, n, names[i], NULL, &v, NULL, &e)) round_trip(a, v);
      }
    break;
  }
  }
  if (!rc) round_trip(a, v);
  ox_arena_free(a);
  return 0;
}
