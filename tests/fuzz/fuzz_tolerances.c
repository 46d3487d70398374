/* tests/fuzz/fuzz_tolerances.c: libFuzzer harness for the --tolerances file
 * parser (cli/lists.c, linked from the command's archive cli.a). Any bytes
 * parse or are refused with a message naming the file and line; what parses
 * holds only what the format allows (a GLOB with no blank, '#' or ':', an
 * OUTPUT with no blank or '#', at least one tolerance, each finite and
 * >= 0, lines in order), and written back in the file's syntax it parses to
 * the same lines. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/lists.h"
#include "core/arena.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int has_any(const char *s, const char *set) { return s && strpbrk(s, set) != NULL; }

/* The lines as a file again: one a line, the values as %.17g (which reads
 * back as the same double). */
static void write_back(const ox_tollist *t, ox_buf *b) {
  for (int i = 0; i < t->n; i++) {
    const ox_tolline *l = &t->v[i];
    ox_buf_printf(b, "%s%s%s", l->glob, l->output ? ":" : "", l->output ? l->output : "");
    if (l->has & OX_HAS_ATOL) ox_buf_printf(b, " atol=%.17g", l->atol);
    if (l->has & OX_HAS_RTOL) ox_buf_printf(b, " rtol=%.17g", l->rtol);
    ox_buf_printf(b, "\n");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ox_set_memory_limit((size_t)256 << 20);
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  ox_tollist t = {0};
  ox_err e = {0};
  int rc = ox_tolerances_parse(text, size, "tol.txt", &t, &e);
  if (rc) {
    if (rc == OX_EUSAGE ? strncmp(e.msg, "tol.txt", 7) : rc != OX_ENOMEM) abort();
  } else {
    int last = 0;
    for (int i = 0; i < t.n; i++) {
      const ox_tolline *l = &t.v[i];
      if (!*l->glob || has_any(l->glob, " \t\r\n#:") || (l->output && (!*l->output || has_any(l->output, " \t\r\n#"))))
        abort();
      if (!l->has || l->line <= last) abort();
      if ((l->has & OX_HAS_ATOL) && !(l->atol >= 0 && isfinite(l->atol))) abort();
      if ((l->has & OX_HAS_RTOL) && !(l->rtol >= 0 && isfinite(l->rtol))) abort();
      last = l->line;
    }
    ox_buf b = {0};
    write_back(&t, &b);
    if (b.n || t.n) {
      ox_tollist u = {0};
      ox_err e2 = {0};
      if (!b.p || ox_tolerances_parse((char *)b.p, b.n, "again", &u, &e2) || u.n != t.n) abort();
      for (int i = 0; i < t.n; i++) {
        const ox_tolline *x = &t.v[i], *y = &u.v[i];
        if (strcmp(x->glob, y->glob) || !x->output != !y->output || (x->output && strcmp(x->output, y->output)) ||
            x->has != y->has || ((x->has & OX_HAS_ATOL) && x->atol != y->atol) ||
            ((x->has & OX_HAS_RTOL) && x->rtol != y->rtol) || y->line != i + 1)
          abort();
      }
      ox_tollist_free(&u);
    }
    ox_buf_free(&b);
  }
  ox_tollist_free(&t);
  free(text);
  return 0;
}
