/* tests/fuzz/fuzz_xfail.c: libFuzzer harness for the --xfail list parser
 * (cli/lists.c, linked from the command's archive cli.a). Any bytes parse
 * or are refused with a message naming the file and line; what parses holds
 * only what the format allows (a PATTERN with no ':' and no blank around
 * it, a reason with no line end, lines in order, the glob flag as the
 * pattern says), and written back as "PATTERN: reason" lines it parses to
 * the same entries. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/lists.h"
#include "core/arena.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int blank(char c) { return c == ' ' || c == '\t'; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ox_set_memory_limit((size_t)256 << 20);
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  ox_xline *v = NULL;
  int n = 0;
  ox_err e = {0};
  int rc = ox_xfail_parse(text, size, "x.txt", &v, &n, &e);
  if (rc) {
    if (rc == OX_EUSAGE ? strncmp(e.msg, "x.txt", 5) : rc != OX_ENOMEM) abort();
  } else {
    int last = 0;
    ox_buf b = {0};
    for (int i = 0; i < n; i++) {
      const ox_xline *x = &v[i];
      size_t l = strlen(x->name);
      if (strpbrk(x->name, ":\r\n") || strpbrk(x->reason, "\r\n") || x->reason[0] == ' ') abort();
      if (l && (blank(x->name[0]) || blank(x->name[l - 1]))) abort();
      if (x->name[0] == '#' || x->line <= last || x->glob != (strpbrk(x->name, "*?[/") != NULL)) abort();
      if (x->dup_of || x->used) abort();
      last = x->line;
      ox_buf_printf(&b, "%s: %s\n", x->name, x->reason);
    }
    ox_xline *w = NULL;
    int m = 0;
    ox_err e2 = {0};
    if (n && (!b.p || ox_xfail_parse((char *)b.p, b.n, "again", &w, &m, &e2) || m != n)) abort();
    for (int i = 0; i < n; i++)
      if (strcmp(v[i].name, w[i].name) || strcmp(v[i].reason, w[i].reason) || w[i].line != i + 1) abort();
    ox_mem_free(w);
    ox_buf_free(&b);
  }
  ox_mem_free(v);
  free(text);
  return 0;
}
