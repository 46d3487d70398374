/* cli/lists.c: the --tolerances and --xfail files of `onnxop test`, parsed
 * from their bytes (cli/lists.h says the formats).
 *
 * Apart from cli/test.c, and using nothing of the command but
 * ox_parse_tolerance (which is here for that reason), so that the fuzz
 * harnesses tests/fuzz/fuzz_tolerances.c and fuzz_xfail.c link these
 * parsers with the library alone, through the command's archive (cli.a). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/arena.h"
#include "lists.h"
#include "cli.h"

int ox_parse_tolerance(const char *s, double *v) {
  char *end;
  if (!*s || strspn(s, "0123456789.eE+-") != strlen(s)) return -1;
  double x = strtod(s, &end);
  if (*end || !(x >= 0) || !isfinite(x)) return -1;
  *v = x;
  return 0;
}

/* The lines of text[0, len), one at a time: the next one is made a C string
 * in place (its '\n', or the '\r' of "\r\n", becomes a NUL) and returned in
 * *line, its number in *lineno; 0 at the end, or an error for a NUL byte in
 * it or a count of lines an int cannot hold. */
typedef struct {
  char *text;
  size_t len, at;
  const char *file;
  int lineno;
} lines;

static int next_line(lines *l, char **line, ox_err *e) {
  if (l->at >= l->len) return 0;
  if (l->lineno == INT_MAX) return ox_fail(e, OX_EUSAGE, "%s: more than %d lines", l->file, INT_MAX);
  char *p = l->text + l->at, *nl = memchr(p, '\n', l->len - l->at);
  size_t n = nl ? (size_t)(nl - p) : l->len - l->at;
  l->lineno++;
  l->at += n + (nl != NULL);
  const char *nul = memchr(p, 0, n);
  if (nul)
    return ox_fail(e, OX_EUSAGE, "%s:%d: a NUL byte at column %zu (the file must be text)", l->file, l->lineno,
                   (size_t)(nul - p) + 1);
  if (n && p[n - 1] == '\r') n--;
  p[n] = 0; /* the '\n' or '\r' (text[len] is the caller's NUL, or a byte past the last line) */
  *line = p;
  return 1;
}

/* ---- --tolerances ---- */

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next word of *s (blank-separated), made a C string; NULL at the end. */
static char *word(char **s) {
  char *p = *s;
  while (is_blank(*p)) p++;
  if (!*p) return NULL;
  char *w = p;
  while (*p && !is_blank(*p)) p++;
  if (*p) *p++ = 0;
  *s = p;
  return w;
}

/* Room for one more element in *v (cap doubling), counted against the
 * memory limit. */
static int grow(void **v, int *cap, int n, size_t size, ox_err *e) {
  if (n < *cap) return 0;
  if (*cap > INT_MAX / 2) return ox_oom(e, "for more than %d lines", n);
  int nc = *cap ? 2 * *cap : 64;
  void *p = ox_mem_realloc(*v, (size_t)nc * size);
  if (!p) return ox_oom(e, "for the lines of the list (%d)", nc);
  *v = p;
  *cap = nc;
  return 0;
}

int ox_tolerances_parse(char *text, size_t len, const char *file, ox_tollist *t, ox_err *e) {
  lines l = {text, len, 0, file, 0};
  char *line;
  int rc;
  while ((rc = next_line(&l, &line, e)) == 1) {
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *w = word(&line);
    if (!w) continue;
    ox_tolline tl = {.line = l.lineno};
    char *colon = strchr(w, ':');
    if (colon) *colon = 0;
    if (!*w || (colon && !colon[1]))
      return ox_fail(e, OX_EUSAGE, "%s:%d: '%.200s%s%.200s' is not GLOB or GLOB:OUTPUT", file, l.lineno, w,
                     colon ? ":" : "", colon ? colon + 1 : "");
    tl.glob = w;
    tl.output = colon ? colon + 1 : NULL;
    while ((w = word(&line))) {
      int is_a = !strncmp(w, "atol=", 5), is_r = !strncmp(w, "rtol=", 5);
      if (!is_a && !is_r)
        return ox_fail(e, OX_EUSAGE, "%s:%d: '%.200s' is not atol=NUMBER or rtol=NUMBER", file, l.lineno, w);
      if (ox_parse_tolerance(w + 5, is_a ? &tl.atol : &tl.rtol))
        return ox_fail(e, OX_EUSAGE, "%s:%d: %s: '%.200s' is not a number >= 0", file, l.lineno,
                       is_a ? "atol" : "rtol", w + 5);
      tl.has |= is_a ? OX_HAS_ATOL : OX_HAS_RTOL;
    }
    if (!tl.has) return ox_fail(e, OX_EUSAGE, "%s:%d: the line gives neither atol= nor rtol=", file, l.lineno);
    OX_TRY(grow((void **)&t->v, &t->cap, t->n, sizeof *t->v, e));
    t->v[t->n++] = tl;
  }
  return rc;
}

void ox_tollist_free(ox_tollist *t) {
  ox_mem_free(t->v);
  t->v = NULL;
  t->n = t->cap = 0;
}

/* ---- --xfail ---- */

int ox_xfail_parse(char *text, size_t len, const char *file, ox_xline **out, int *n, ox_err *e) {
  lines l = {text, len, 0, file, 0};
  ox_xline *v = NULL;
  int nv = 0, cap = 0, rc;
  char *line;
  while ((rc = next_line(&l, &line, e)) == 1) {
    line[strcspn(line, "\r")] = 0; /* a lone '\r' ends the line too, as on old Macs */
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || *s == '#') continue;
    char *colon = strchr(s, ':');
    if (colon) *colon = 0;
    char *r = colon ? colon + 1 : s + strlen(s);
    while (*r == ' ') r++;
    size_t k = strlen(s);
    while (k && (s[k - 1] == ' ' || s[k - 1] == '\t')) s[--k] = 0;
    if ((rc = grow((void **)&v, &cap, nv, sizeof *v, e))) break;
    v[nv++] = (ox_xline){s, r, l.lineno, strpbrk(s, "*?[/") != NULL, 0, 0};
  }
  if (rc) {
    ox_mem_free(v);
    return rc;
  }
  *out = v;
  *n = nv;
  return 0;
}
