/* core/regex.h: PCRE2 (8-bit code units) with all of its memory, compiled
 * patterns and match frames alike, counted against --max-memory
 * (ox_mem_malloc), and a bound on the steps of one match. Shared by
 * RegexFullMatch (ops/string.c) and `onnxop test -k` (cli/test.c). */
#ifndef OX_REGEX_H
#define OX_REGEX_H

#include <stddef.h>
#include <stdint.h>

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include "err.h"

typedef struct {
  pcre2_general_context *gc; /* the allocator: ox_mem_malloc, ox_mem_free */
  pcre2_compile_context *cc;
  pcre2_match_context *mc;
  pcre2_code *code;
  pcre2_match_data *md;
} ox_regex;

/* Compile the n bytes of pattern with PCRE2's options (PCRE2_UTF, ...),
 * newlines LF. A match then takes at most match_limit steps (PCRE2's match
 * limit; 0 keeps its default of ten million) and at most heap_kib KiB of
 * backtracking frames (0: PCRE2's default), besides the memory limit.
 * 0; OX_ENOMEM (said in e); or OX_EINPUT with PCRE2's reason in e->msg and
 * *at the offset in pattern where it stopped. re is then empty (zeroed):
 * ox_regex_free is still allowed. */
int ox_regex_compile(ox_regex *re, const char *pattern, size_t n, uint32_t options, uint32_t match_limit,
                     uint32_t heap_kib, size_t *at, ox_err *e);
/* PCRE2's answer for subject s (n bytes): >= 0 a match, PCRE2_ERROR_NOMATCH,
 * or an error (PCRE2_ERROR_NOMEMORY: memory ran out, ox_oom says why;
 * PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_HEAPLIMIT: the bounds above; the
 * PCRE2_ERROR_UTF8_ERR* codes in UTF mode). */
int ox_regex_match(ox_regex *re, const char *s, size_t n);
/* PCRE2's message for an error code, into buf. */
void ox_regex_message(int code, char *buf, size_t n);
void ox_regex_free(ox_regex *re);

#endif
