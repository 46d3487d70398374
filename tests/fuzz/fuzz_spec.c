/* tests/fuzz/fuzz_spec.c: libFuzzer harness for spec files (cli/spec.c,
 * `onnxop make --spec`). The input is the spec's text; what it reads is
 * checked against what the reader promises make (every case has an op, at
 * least one data set and one output, names on its inputs; its provenance
 * holds the entry as written), and its attributes' names are unique.
 *
 * The reader takes a path (it reads the file and resolves "file" keys from
 * its folder), so the input is written to a file of its own first. That file
 * lives in a fresh folder with nothing else in it, so a "file" key resolves
 * to nothing there (or to the spec itself); "-" is never standard input, as
 * the reader makes every relative name a path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/make.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char folder[] = "/tmp/onnxop-fuzz-spec-XXXXXX";
static char path[64];

static void clean(void) {
  unlink(path);
  rmdir(folder);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) {
    if (!mkdtemp(folder)) abort();
    snprintf(path, sizeof path, "%s/spec.json", folder);
    atexit(clean);
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();
  ox_set_memory_limit((size_t)256 << 20);
  ox_arena *a = ox_arena_new();
  ox_err e = {0};
  mk_case *cs = NULL;
  int n = 0;
  if (a && !ox_spec_load(a, path, &cs, &n, &e)) {
    if (n < 1) abort();
    for (int i = 0; i < n; i++) {
      const mk_case *c = &cs[i];
      if (!c->op || !*c->op || c->datasets < 1 || c->nout < 1 || !c->prov) abort();
      for (int k = 0; k < c->nin; k++)
        if (!c->in[k].name || (c->in[k].ranged && !(c->in[k].lo <= c->in[k].hi))) abort();
      for (int k = 0; k < c->nout; k++)
        if (!c->out[k].name || !*c->out[k].name) abort();
      const char *twice = NULL;
      if (ox_attr_twice(c->nattr, c->attr, &twice, &e) == 0 && twice) abort();
      if (c->has_rtol && !(c->rtol >= 0 && c->rtol < 1e308)) abort();
      cJSON_Delete(c->prov);
    }
  } else if (a && !e.msg[0]) {
    abort(); /* refused without saying why */
  }
  ox_arena_free(a);
  return 0;
}
