/* core/err.c: recording errors and adding context on the way out. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int ox_fail(ox_err *e, int code, const char *fmt, ...) {
  if (!e) return code;
  if (e->code) return e->code; /* the first error is the real one */
  e->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return code;
}

void ox_prefix(ox_err *e, const char *fmt, ...) {
  if (!e) return;
  char pre[512], old[sizeof e->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  memcpy(old, e->msg, sizeof old);
  snprintf(e->msg, sizeof e->msg, "%s%s", pre, old);
}
