/* core/err.c: recording errors and adding context on the way out. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unistr.h>

#include "arena.h"
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

int ox_oom(ox_err *e, const char *fmt, ...) {
  char what[512] = "";
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
  }
  const char *cause = "";
  char lim[320], src[160];
  size_t in_use, asked;
  const char *see = ox_memory_limit_source(src, sizeof src);
  switch (ox_mem_last_failure()) {
  case OX_MEM_LIMIT:
    ox_mem_last_refusal(&in_use, &asked);
    if (asked == SIZE_MAX) /* a size that overflows */
      snprintf(lim, sizeof lim, " (the memory limit of %llu bytes is reached: %llu bytes are in use, and a size "
               "past any limit was asked for%s)", (unsigned long long)ox_memory_limit(),
               (unsigned long long)in_use, see);
    else
      snprintf(lim, sizeof lim, " (the memory limit of %llu bytes is reached: %llu bytes are in use and %llu "
               "more were asked for%s)", (unsigned long long)ox_memory_limit(),
               (unsigned long long)in_use, (unsigned long long)asked, see);
    cause = lim;
    break;
#ifdef OX_FAULT_INJECTION
  case OX_MEM_INJECTED: cause = " (injected by ONNXOP_FAIL_ALLOC)"; break;
#endif
  default: break; /* the system refused, or nothing was asked of it (a size that overflows) */
  }
  return ox_fail(e, OX_ENOMEM, "out of memory%s%s%s", *what ? " " : "", what, cause);
}

int ox_over_limit(ox_err *e, unsigned long long need, const char *what) {
  unsigned long long lim = ox_memory_limit(), in_use = ox_memory_in_use();
  char ls[200];
  ox_memory_limit_str(ls, sizeof ls);
  if (need > lim)
    return ox_fail(e, OX_ENOMEM, "%s needs %llu bytes, more than the memory limit allows (%s)", what, need, ls);
  return ox_fail(e, OX_ENOMEM, "the memory limit (%s) is reached: %llu bytes are in use, and %s needs %llu more",
                 ls, in_use, what, need);
}

void ox_prefix(ox_err *e, const char *fmt, ...) {
  if (!e) return;
  char pre[512], old[sizeof e->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  memcpy(old, e->msg, sizeof old);
  size_t lp = strlen(pre), lo = strlen(old);
  if (lp > sizeof e->msg - 1) lp = sizeof e->msg - 1;
  if (lo > sizeof e->msg - 1 - lp) lo = sizeof e->msg - 1 - lp; /* keep the context, cut the tail */
  memcpy(e->msg, pre, lp);
  memcpy(e->msg + lp, old, lo);
  e->msg[lp + lo] = 0;
}

int ox_name_check(ox_err *e, const char *what, const char *s) {
  if (!s || !u8_check((const uint8_t *)s, strlen(s))) return 0;
  char buf[160];
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p && k + 5 < sizeof buf; p++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, *p >= 0x20 && *p < 0x7f && *p != '\\' ? "%c" : "\\x%02x", *p);
  buf[k] = 0;
  return ox_fail(e, OX_EINPUT, "%s \"%s\" is not valid UTF-8", what, buf);
}
