/* io/buf.c: a growable byte buffer for output files.
 *
 * The bytes are always followed by a NUL (not counted in n), so text built
 * with ox_buf_printf can be used as a C string. Both functions return 0, or
 * OX_EINPUT when memory runs out (the buffer is then left as it was). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

/* Make room for `more` bytes plus the NUL. */
static int reserve(ox_buf *b, size_t more) {
  if (more > SIZE_MAX - b->n - 1) return OX_EINPUT;
  size_t need = b->n + more + 1;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) return OX_EINPUT;
  b->p = p;
  b->cap = cap;
  return 0;
}

int ox_buf_put(ox_buf *b, const void *p, size_t n) {
  if (reserve(b, n)) return OX_EINPUT;
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  b->p[b->n] = 0;
  return 0;
}

int ox_buf_printf(ox_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (len < 0 || reserve(b, (size_t)len)) return OX_EINPUT;
  va_start(ap, fmt);
  vsnprintf((char *)b->p + b->n, (size_t)len + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)len;
  return 0;
}

void ox_buf_free(ox_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}
