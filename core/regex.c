/* core/regex.c: PCRE2 under onnxop's memory account (core/regex.h). */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "regex.h"

static void *pcre_alloc(PCRE2_SIZE n, void *data) {
  (void)data;
  return ox_mem_malloc(n);
}
static void pcre_free(void *p, void *data) {
  (void)data;
  ox_mem_free(p);
}

void ox_regex_free(ox_regex *re) {
  pcre2_match_data_free(re->md);
  pcre2_code_free(re->code);
  pcre2_match_context_free(re->mc);
  pcre2_compile_context_free(re->cc);
  pcre2_general_context_free(re->gc);
  memset(re, 0, sizeof *re);
}

int ox_regex_compile(ox_regex *re, const char *pattern, size_t n, uint32_t options, uint32_t match_limit,
                     uint32_t heap_kib, size_t *at, ox_err *e) {
  memset(re, 0, sizeof *re);
  *at = 0;
  re->gc = pcre2_general_context_create(pcre_alloc, pcre_free, NULL);
  re->cc = re->gc ? pcre2_compile_context_create(re->gc) : NULL;
  re->mc = re->cc ? pcre2_match_context_create(re->gc) : NULL;
  if (!re->mc) {
    ox_regex_free(re);
    return ox_oom(e, "compiling a regular expression");
  }
  pcre2_set_newline(re->cc, PCRE2_NEWLINE_LF);
  if (match_limit) pcre2_set_match_limit(re->mc, match_limit);
  if (heap_kib) pcre2_set_heap_limit(re->mc, heap_kib);
  int ec;
  PCRE2_SIZE off = 0;
  re->code = pcre2_compile((PCRE2_SPTR)pattern, n, options, &ec, &off, re->cc);
  if (!re->code) {
    ox_regex_free(re);
    if (ec == PCRE2_ERROR_HEAP_FAILED || ec == PCRE2_ERROR_NOMEMORY) return ox_oom(e, "compiling a regular expression");
    char msg[256];
    ox_regex_message(ec, msg, sizeof msg);
    *at = (size_t)off;
    return ox_fail(e, OX_EINPUT, "%s", msg);
  }
  if (!(re->md = pcre2_match_data_create_from_pattern(re->code, re->gc))) {
    ox_regex_free(re);
    return ox_oom(e, "compiling a regular expression");
  }
  return 0;
}

int ox_regex_match(ox_regex *re, const char *s, size_t n) {
  return pcre2_match(re->code, (PCRE2_SPTR)s, (PCRE2_SIZE)n, 0, 0, re->md, re->mc);
}

void ox_regex_message(int code, char *buf, size_t n) {
  if (pcre2_get_error_message(code, (PCRE2_UCHAR *)buf, n) < 0 && n) snprintf(buf, n, "PCRE2 error %d", code);
}
