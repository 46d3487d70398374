/* ops/string.c: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and TfIdfVectorizer.
 *
 * Strings are ox_str {bytes, length}; output strings are NUL-terminated arena
 * copies (or share their input's bytes when unchanged). Anything that reads
 * characters rather than bytes (case mapping, whitespace, regular expressions)
 * checks that the text is UTF-8 first and says which element is not.
 *
 * Unicode comes from Debian libraries with their own tables, so results do
 * not depend on the installed locales: libunistring for case mapping, case
 * folding and character classes, PCRE2 for regular expressions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unicase.h>
#include <unictype.h>
#include <unistr.h>

#include "core/kernel.h"
#include "core/regex.h"

/* ---------------------------------------------------------------- helpers */

/* Input i as a string tensor. */
static int string_in(ox_ctx *c, ox_value **in, int i, const ox_tensor **t) {
  char desc[128];
  if (!in[i] || in[i]->kind != OX_TENSOR || in[i]->u.t.dt != OX_STRING)
    return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a tensor of strings", ox_input_name(c, i),
                   in[i] ? ox_value_desc(in[i], desc, sizeof desc) : "missing");
  *t = &in[i]->u.t;
  return 0;
}

/* "input 0 'X' element 3" or "stopwords[3]" is `what`; the message says where
 * the first bad byte is. */
static int check_utf8(ox_ctx *c, const char *what, int64_t i, const ox_str *s) {
  const uint8_t *bad = u8_check((const uint8_t *)s->p, (size_t)s->n);
  if (!bad) return 0;
  return ox_fail(c->err, OX_EINPUT, "%s element %lld is not valid UTF-8 (byte %lld of %lld)", what,
                 (long long)i, (long long)(bad - (const uint8_t *)s->p), (long long)s->n);
}

/* A string attribute with its length (NULL when absent or of another type). */
static const ox_attr *attr_of(ox_ctx *c, const char *name, ox_attr_type type, const char *tname) {
  const ox_attr *at = ox_attr_find(c, name);
  if (at && at->type != type) {
    ox_fail(c->err, OX_EINPUT, "attribute '%s' must be %s", name, tname);
    return NULL;
  }
  return at;
}

static ox_str arena_str(ox_ctx *c, const char *p, size_t n) {
  char *q = ox_strndup(c->a, p ? p : "", p ? n : 0);
  return (ox_str){q, q ? (int64_t)n : -1};
}

/* ---------------------------------------------------------------- StringNormalizer */

enum { CASE_NONE, CASE_LOWER, CASE_UPPER, CASE_FOLD };

/* s mapped to lower/upper case or case-folded (full Unicode mappings:
 * "Straße" -> "STRASSE", final sigma in lower case). lang: an ISO 639
 * language ("tr", "lt" change a few mappings) or NULL. s must be UTF-8. */
static int map_case(ox_ctx *c, int how, const char *lang, const ox_str *s, ox_str *out) {
  if (how == CASE_NONE || s->n == 0) {
    *out = *s;
    return 0;
  }
  uint8_t buf[512];
  size_t len = sizeof buf;
  const uint8_t *p = (const uint8_t *)s->p;
  uint8_t *r = how == CASE_LOWER   ? u8_tolower(p, (size_t)s->n, lang, NULL, buf, &len)
               : how == CASE_UPPER ? u8_toupper(p, (size_t)s->n, lang, NULL, buf, &len)
                                   : u8_casefold(p, (size_t)s->n, lang, NULL, buf, &len);
  if (!r)
    return errno == ENOMEM ? ox_oom(c->err, NULL) : ox_fail(c->err, OX_EINPUT, "a string is not valid UTF-8");
  *out = arena_str(c, (const char *)r, len);
  if (r != buf) free(r);
  return out->n < 0 ? ox_oom(c->err, NULL) : 0;
}

static int str_cmp(const void *x, const void *y) {
  const ox_str *a = x, *b = y;
  size_t n = (size_t)(a->n < b->n ? a->n : b->n);
  int r = n ? memcmp(a->p, b->p, n) : 0;
  return r ? r : (a->n > b->n) - (a->n < b->n);
}

/* "en_US.UTF-8" -> "en" for libunistring; NULL (locale-independent
 * mappings) when there is no language part. */
static const char *locale_lang(const char *loc, char buf[9]) {
  int i = 0;
  for (; loc && i < 8 && ((loc[i] | 32) >= 'a' && (loc[i] | 32) <= 'z'); i++) buf[i] = (char)(loc[i] | 32);
  buf[i] = 0;
  if (i == 0 || !strcmp(buf, "c") || !strcmp(buf, "posix")) return NULL;
  return buf;
}

/* StringNormalizer-10: x (C) or (1, C) -> y (C') or (1, C'): the elements
 * that are not stopwords, case-changed. Stopwords are whole elements (as the
 * spec says and ONNX Runtime does; the Python reference also splits elements
 * on spaces and strips accents, which the spec does not ask for). When every
 * element is dropped the output is [""] of shape (1) or (1, 1). Empty strings
 * are kept unless "" is a stopword. */
static int normalizer_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  char sb[128], lb[9];
  OX_TRY(string_in(c, in, 0, &x));
  if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s; StringNormalizer takes (C,) or (1, C)",
                   ox_input_name(c, 0), ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  const char *act = ox_attr_string(c, "case_change_action", "NONE");
  int sensitive = ox_attr_int(c, "is_case_sensitive", 0) != 0;
  const char *lang = locale_lang(ox_attr_string(c, "locale", "en_US"), lb);
  const ox_attr *sw = attr_of(c, "stopwords", OX_ATTR_STRINGS, "a list of strings");
  if (c->err->code) return c->err->code;
  int how;
  if (!strcmp(act, "NONE")) how = CASE_NONE;
  else if (!strcmp(act, "LOWER")) how = CASE_LOWER;
  else if (!strcmp(act, "UPPER")) how = CASE_UPPER;
  else
    return ox_fail(c->err, OX_EINPUT, "case_change_action is '%s'; it must be LOWER, UPPER or NONE", act);

  /* the stopwords, sorted (case-folded when matching ignores case) */
  int64_t ns = sw ? sw->n : 0;
  ox_str *stops = ox_alloc_array(c->a, ns ? ns : 1, sizeof *stops);
  if (!stops) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < ns; i++) {
    stops[i] = sw->strings[i];
    if (!sensitive) {
      OX_TRY(check_utf8(c, "attribute 'stopwords'", i, &stops[i]));
      OX_TRY(map_case(c, CASE_FOLD, lang, &sw->strings[i], &stops[i]));
    }
  }
  qsort(stops, (size_t)ns, sizeof *stops, str_cmp);

  const ox_str *xs = x->data;
  int64_t n = x->n, k = 0;
  ox_str *keep = ox_alloc_array(c->a, n ? n : 1, sizeof *keep);
  if (!keep) return ox_oom(c->err, NULL);
  const char *what = ox_input_name(c, 0);
  for (int64_t i = 0; i < n; i++) {
    if (how != CASE_NONE || (ns && !sensitive)) OX_TRY(check_utf8(c, what, i, &xs[i]));
    if (ns) {
      ox_str key = xs[i];
      if (!sensitive) OX_TRY(map_case(c, CASE_FOLD, lang, &xs[i], &key));
      if (bsearch(&key, stops, (size_t)ns, sizeof *stops, str_cmp)) continue;
    }
    OX_TRY(map_case(c, how, lang, &xs[i], &keep[k++]));
  }
  if (k == 0) keep[k++] = (ox_str){"", 0};

  int64_t dims[2] = {1, k};
  OX_TRY(ox_tensor_new(c->a, OX_STRING, x->rank, x->rank == 2 ? dims : dims + 1, &out[0], c->err));
  memcpy(out[0]->u.t.data, keep, (size_t)k * sizeof *keep);
  return 0;
}

/* ---------------------------------------------------------------- StringConcat */

/* StringConcat-20: z = x + y elementwise, numpy broadcasting; bytes are
 * joined as they are. */
static int concat_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x, *y;
  OX_TRY(string_in(c, in, 0, &x));
  OX_TRY(string_in(c, in, 1, &y));
  ox_bcast b;
  OX_TRY(ox_elementwise_out(c, 2, (const ox_tensor *[]){x, y}, OX_STRING, &out[0], &b));
  if (b.n == 0) return 0;
  const ox_str *xs = x->data, *ys = y->data;
  ox_str *z = out[0]->u.t.data;
  do {
    for (int64_t i = 0; i < b.inner; i++) {
      const ox_str *s = &xs[b.off[0] + i * b.step[0]], *t = &ys[b.off[1] + i * b.step[1]];
      char *p = ox_alloc(c->a, (size_t)s->n + (size_t)t->n + 1);
      if (!p) return ox_oom(c->err, NULL);
      if (s->n) memcpy(p, s->p, (size_t)s->n);
      if (t->n) memcpy(p + s->n, t->p, (size_t)t->n);
      z[b.out + i] = (ox_str){p, s->n + t->n};
    }
  } while (ox_bcast_next(&b));
  return 0;
}

/* ---------------------------------------------------------------- StringSplit */

/* Whitespace as Python's str.isspace (which str.split(), the reference,
 * uses): bidirectional class WS, B or S, or general category Zs. */
static int is_space(ucs4_t u) {
  int bc = uc_bidi_class(u);
  return bc == UC_BIDI_WS || bc == UC_BIDI_B || bc == UC_BIDI_S ||
         uc_is_general_category(u, UC_SPACE_SEPARATOR);
}

/* The width of the character at s[i]; *sp: whether it is whitespace. */
static int char_at(const ox_str *s, int64_t i, int *sp) {
  ucs4_t u;
  int w = u8_mbtouc(&u, (const uint8_t *)s->p + i, (size_t)(s->n - i));
  *sp = is_space(u);
  return w > 0 ? w : 1;
}

/* Split s on runs of whitespace, at most `left` times (< 0: no limit), as
 * Python's str.split(None, maxsplit): no empty parts; leading whitespace is
 * dropped, and after the last split so is the whitespace before the rest,
 * whose trailing whitespace stays. Parts go to dst (views into s) unless it is
 * NULL; returns their count. */
static int64_t split_space(const ox_str *s, int64_t left, ox_str *dst) {
  int64_t i = 0, cnt = 0, n = s->n;
  int sp = 0, w;
  while (left < 0 || left-- > 0) {
    while (i < n && (w = char_at(s, i, &sp), sp)) i += w;
    if (i == n) break;
    int64_t j = i;
    while (i < n && (w = char_at(s, i, &sp), !sp)) i += w;
    if (dst) dst[cnt] = (ox_str){s->p + j, i - j};
    cnt++;
  }
  if (i < n) {
    while (i < n && (w = char_at(s, i, &sp), sp)) i += w;
    if (i < n) {
      if (dst) dst[cnt] = (ox_str){s->p + i, n - i};
      cnt++;
    }
  }
  return cnt;
}

/* The first occurrence of d (n > 0 bytes) in s (m bytes), or NULL. */
static const char *find(const char *s, int64_t m, const char *d, int64_t n) {
  if (m < n) return NULL;
  for (const char *end = s + m - n + 1; s < end; s++) {
    s = memchr(s, d[0], (size_t)(end - s));
    if (!s) return NULL;
    if (!memcmp(s, d, (size_t)n)) return s;
  }
  return NULL;
}

/* Split s on each occurrence of d (bytes, non-empty), at most `left` times:
 * consecutive delimiters delimit empty strings; always at least one part. */
static int64_t split_delim(const ox_str *s, const ox_str *d, int64_t left, ox_str *dst) {
  int64_t i = 0, cnt = 0;
  while (left < 0 || left-- > 0) {
    const char *f = find(s->p + i, s->n - i, d->p, d->n);
    if (!f) break;
    if (dst) dst[cnt] = (ox_str){s->p + i, f - (s->p + i)};
    cnt++;
    i = (f - s->p) + d->n;
  }
  if (dst) dst[cnt] = (ox_str){s->p + i, s->n - i};
  return cnt + 1;
}

/* StringSplit-20: x (...) -> y (..., M) substrings padded with "", z (...)
 * int64 counts, M the largest count (0 for an empty x or when every element
 * is empty or whitespace with no delimiter). delimiter unset or "": split on
 * whitespace runs; maxsplit unset or negative: no limit (as Python). */
static int split_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(string_in(c, in, 0, &x));
  const ox_attr *da = attr_of(c, "delimiter", OX_ATTR_STRING, "a string");
  int64_t maxsplit = ox_attr_int(c, "maxsplit", -1);
  if (c->err->code) return c->err->code;
  ox_str d = da ? da->s : (ox_str){"", 0};
  if (x->rank + 1 > OX_MAX_RANK)
    return ox_fail(c->err, OX_EINPUT, "%s has rank %d; the output would exceed %d dims",
                   ox_input_name(c, 0), x->rank, OX_MAX_RANK);
  const ox_str *xs = x->data;
  int64_t *cnt = ox_alloc_array(c->a, x->n ? x->n : 1, sizeof *cnt), m = 0;
  if (!cnt) return ox_oom(c->err, NULL);
  const char *what = ox_input_name(c, 0);
  for (int64_t i = 0; i < x->n; i++) {
    if (d.n == 0) OX_TRY(check_utf8(c, what, i, &xs[i]));
    cnt[i] = d.n ? split_delim(&xs[i], &d, maxsplit, NULL) : split_space(&xs[i], maxsplit, NULL);
    if (cnt[i] > m) m = cnt[i];
  }
  int64_t dims[OX_MAX_RANK];
  memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
  dims[x->rank] = m;
  OX_TRY(ox_tensor_new(c->a, OX_STRING, x->rank + 1, dims, &out[0], c->err));
  ox_str *y = out[0]->u.t.data;
  for (int64_t i = 0; i < x->n; i++) {
    ox_str *row = y + i * m;
    if (d.n) split_delim(&xs[i], &d, maxsplit, row);
    else split_space(&xs[i], maxsplit, row);
    for (int64_t j = 0; j < m; j++) {
      row[j] = j < cnt[i] ? arena_str(c, row[j].p, (size_t)row[j].n) : (ox_str){"", 0};
      if (row[j].n < 0) return ox_oom(c->err, NULL);
    }
  }
  if (nout > 1) {
    OX_TRY(ox_tensor_new(c->a, OX_INT64, x->rank, x->dims, &out[1], c->err));
    if (x->n) memcpy(out[1]->u.t.data, cnt, (size_t)x->n * sizeof *cnt);
  }
  return 0;
}

/* ---------------------------------------------------------------- RegexFullMatch */

/* RE2 syntax -> PCRE2 syntax, where PCRE2 would read the same text
 * differently (PCRE2 extensions such as lookaround are left alone):
 *   \s \S     RE2: [\t\n\f\r ] (no \v, which PCRE2's \s has)
 *   \v        RE2: the VT character; PCRE2: any vertical space
 *   \Z        RE2 has none; PCRE2: before a final newline. Read as \z, as
 *             Python (the reference) does
 *   \12 \123  RE2: octal; PCRE2 may read a back reference -> \o{...}
 *   \C        any byte: refused (it can split a UTF-8 character)
 * $ (end of text only, as RE2 without (?m)) is PCRE2_DOLLAR_ENDONLY at
 * compile time. Returns the translation, or NULL with *why set (left NULL
 * when memory ran out). */
static char *re2_to_pcre2(ox_arena *a, const char *p, size_t n, size_t *outn, const char **why) {
  if (n > ((size_t)1 << 20)) {
    *why = "the pattern is longer than 1 MiB";
    return NULL;
  }
  char *o = ox_alloc(a, n * 40 + 1);
  if (!o) return NULL; /* out of memory: *why stays NULL */
  size_t k = 0, i = 0;
  int cls = 0; /* inside [...] */
#define EMIT(s) (memcpy(o + k, (s), strlen(s)), k += strlen(s))
  while (i < n) {
    char ch = p[i];
    if (ch == '\\' && i + 1 < n) {
      char e = p[i + 1];
      if (e == 'Q') { /* literal text up to \E, copied as is */
        size_t j = i + 2;
        while (j < n && !(p[j] == '\\' && j + 1 < n && p[j + 1] == 'E')) j++;
        j = j < n ? j + 2 : n;
        memcpy(o + k, p + i, j - i);
        k += j - i;
        i = j;
        continue;
      }
      i += 2;
      if (e == 'C') {
        *why = "\\C (any single byte) is not supported";
        return NULL;
      } else if (e == 'Z') {
        EMIT("\\z");
      } else if (e == 'v') {
        EMIT("\\x0b");
      } else if (e == 's') {
        EMIT(cls ? "\\t\\n\\f\\r\\x20" : "[\\t\\n\\f\\r\\x20]");
      } else if (e == 'S') {
        EMIT(cls ? "\\x00-\\x08\\x0b\\x0e-\\x1f\\x21-\\x{10ffff}" : "[^\\t\\n\\f\\r\\x20]");
      } else if (e >= '0' && e <= '7' && (e == '0' || (i < n && p[i] >= '0' && p[i] <= '7'))) {
        /* RE2 octal: \0, \0N, \0NN, \NN, \NNN (a lone \1..\7 is a back
         * reference, an extension PCRE2 and Python accept) */
        EMIT("\\o{");
        o[k++] = e;
        for (int d = 0; d < 2 && i < n && p[i] >= '0' && p[i] <= '7'; d++) o[k++] = p[i++];
        o[k++] = '}';
      } else {
        o[k++] = '\\';
        o[k++] = e;
      }
    } else if (!cls && ch == '[') {
      cls = 1;
      o[k++] = p[i++];
      if (i < n && p[i] == '^') o[k++] = p[i++];
      if (i < n && p[i] == ']') o[k++] = p[i++]; /* a leading ] is literal */
    } else if (cls && ch == '[' && i + 1 < n && p[i + 1] == ':') {
      /* [:alpha:] inside a class: copied whole */
      size_t j = i + 2;
      while (j + 1 < n && !(p[j] == ':' && p[j + 1] == ']')) j++;
      j = j + 1 < n ? j + 2 : i + 1;
      memcpy(o + k, p + i, j - i);
      k += j - i;
      i = j;
    } else {
      if (cls && ch == ']') cls = 0;
      o[k++] = p[i++];
    }
  }
#undef EMIT
  o[k] = 0;
  *outn = k;
  return o;
}

/* RegexFullMatch-20: y = whether each element of x matches the pattern as a
 * whole (anchored at both ends), UTF-8 mode. */
static int regex_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  const ox_tensor *x;
  OX_TRY(string_in(c, in, 0, &x));
  const ox_attr *pa = attr_of(c, "pattern", OX_ATTR_STRING, "a string");
  if (c->err->code) return c->err->code;
  if (!pa) return ox_fail(c->err, OX_EINPUT, "attribute 'pattern' is required");
  const char *why = NULL;
  size_t tn = 0;
  char *tp = re2_to_pcre2(c->a, pa->s.p, (size_t)pa->s.n, &tn, &why);
  if (!tp) return why ? ox_fail(c->err, OX_EINPUT, "pattern '%s': %s", pa->s.p, why) : ox_oom(c->err, NULL);

  /* PCRE2's memory, counted against --max-memory as everything else */
  ox_regex re;
  ox_err ce = {0};
  size_t eoff;
  int rc = ox_regex_compile(&re, tp, tn,
                            PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOLLAR_ENDONLY |
                                PCRE2_NEVER_BACKSLASH_C,
                            0, 0, &eoff, &ce);
  if (rc == OX_ENOMEM) return ox_oom(c->err, "compiling pattern '%s'", pa->s.p);
  if (rc) {
    if (tn == (size_t)pa->s.n && !memcmp(tp, pa->s.p, tn))
      return ox_fail(c->err, OX_EINPUT, "pattern '%s' does not compile: %s (at offset %zu)", pa->s.p, ce.msg, eoff);
    return ox_fail(c->err, OX_EINPUT,
                   "pattern '%s' (for PCRE2: '%s') does not compile: %s (at offset %zu of the latter)", pa->s.p, tp,
                   ce.msg, eoff);
  }
  if ((rc = ox_tensor_new(c->a, OX_BOOL, x->rank, x->dims, &out[0], c->err))) goto done;
  const ox_str *xs = x->data;
  uint8_t *y = out[0]->u.t.data;
  for (int64_t i = 0; i < x->n; i++) {
    int r = ox_regex_match(&re, xs[i].p, (size_t)xs[i].n);
    if (r >= 0) {
      y[i] = 1;
    } else if (r == PCRE2_ERROR_NOMATCH) {
      y[i] = 0;
    } else if (r == PCRE2_ERROR_NOMEMORY) {
      rc = ox_oom(c->err, "matching pattern '%s'", pa->s.p);
      goto done;
    } else if (r <= PCRE2_ERROR_UTF8_ERR1 && r >= PCRE2_ERROR_UTF8_ERR21) {
      rc = check_utf8(c, ox_input_name(c, 0), i, &xs[i]);
      goto done;
    } else {
      char msg[256];
      ox_regex_message(r, msg, sizeof msg);
      rc = ox_fail(c->err, OX_EINPUT, "pattern '%s' on %s element %lld: %s", pa->s.p,
                   ox_input_name(c, 0), (long long)i, msg);
      goto done;
    }
  }
done:
  ox_regex_free(&re);
  return rc;
}

/* ---------------------------------------------------------------- TfIdfVectorizer */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdu;
  return h ^ (h >> 32);
}

static uint64_t hash_bytes(const char *p, int64_t n) {
  uint64_t h = 1469598103934665603u;
  for (int64_t i = 0; i < n; i++) h = (h ^ (uint8_t)p[i]) * 1099511628211u;
  return mix(h, (uint64_t)n);
}

/* The pool's distinct items (int64 values as 8 bytes, or strings) -> ids 1..V. */
typedef struct { const char *p; int64_t n; uint32_t id; } vocab_e;
typedef struct { vocab_e *e; uint64_t mask; uint32_t count; } vocab;

static vocab_e *vocab_slot(const vocab *v, const char *p, int64_t n) {
  for (uint64_t h = hash_bytes(p, n) & v->mask;; h = (h + 1) & v->mask) {
    vocab_e *e = &v->e[h];
    if (!e->id || (e->n == n && (n == 0 || !memcmp(e->p, p, (size_t)n)))) return e;
  }
}

/* N-grams of pool ids and their prefixes -> the n-gram's ordinal (1-based)
 * or 0 for a prefix only (the reference's trie, flattened). */
typedef struct { const uint32_t *tok; uint64_t h; int len; int64_t ord; } gram_e;
typedef struct { gram_e *e; uint64_t mask; } grams;

static gram_e *gram_slot(const grams *g, uint64_t h, const uint32_t *tok, int len) {
  for (uint64_t i = h & g->mask;; i = (i + 1) & g->mask) {
    gram_e *e = &g->e[i];
    if (!e->tok || (e->h == h && e->len == len && !memcmp(e->tok, tok, (size_t)len * sizeof *tok)))
      return e;
  }
}

/* Item i of a pool or an input tensor as bytes for the vocabulary. */
static const char *item_bytes(ox_dtype dt, const void *data, int64_t i, int64_t *tmp, int64_t *n) {
  if (dt == OX_STRING) {
    const ox_str *s = (const ox_str *)data + i;
    *n = s->n;
    return s->p;
  }
  *tmp = dt == OX_INT32 ? ((const int32_t *)data)[i] : ((const int64_t *)data)[i];
  *n = sizeof *tmp;
  return (const char *)tmp;
}

/* TfIdfVectorizer-9: x (C) or (B, C) of int32/int64/strings -> y (O) or
 * (B, O) float, O = max(ngram_indexes) + 1.
 *
 * The pool holds the 1-grams, then the 2-grams... (ngram_counts[k] is where
 * the (k+1)-grams begin); ngram_indexes[j] is the output coordinate of the
 * j-th n-gram. An n-gram of size n with skip distance d (1..max_skip_count+1)
 * starting at s is x[s], x[s+d], ..., x[s+(n-1)d]; 1-grams are counted once,
 * not once per distance. Only sizes in [min_gram_length, max_gram_length]
 * count. TF: counts; IDF: weight (1 without weights) where the count is > 0;
 * TFIDF: weight * count. As in the reference and ONNX Runtime, the weight
 * of output coordinate k is weights[k] (the spec's text says the weight of
 * the k-th pool n-gram; the two agree when ngram_indexes is 0, 1, 2...). */
static int tfidf_k(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  char sb[128], desc[128];
  const ox_value *xv = in[0];
  if (xv->kind != OX_TENSOR)
    return ox_fail(c->err, OX_EINPUT, "%s is %s; expected a tensor", ox_input_name(c, 0),
                   ox_value_desc(xv, desc, sizeof desc));
  const ox_tensor *x = &xv->u.t;

  /* ---- attributes ---- */
  static const char *const req[] = {"max_gram_length", "min_gram_length", "max_skip_count",
                                     "mode", "ngram_counts", "ngram_indexes"};
  for (size_t i = 0; i < sizeof req / sizeof *req; i++)
    if (!ox_attr_find(c, req[i]))
      return ox_fail(c->err, OX_EINPUT, "attribute '%s' is required", req[i]);
  int64_t maxg = ox_attr_int(c, "max_gram_length", 0), ming = ox_attr_int(c, "min_gram_length", 0);
  int64_t skip = ox_attr_int(c, "max_skip_count", 0);
  const char *mode = ox_attr_string(c, "mode", "");
  int64_t ncnt, nidx;
  const int64_t *counts = ox_attr_ints(c, "ngram_counts", &ncnt);
  const int64_t *idx = ox_attr_ints(c, "ngram_indexes", &nidx);
  const ox_attr *ps = attr_of(c, "pool_strings", OX_ATTR_STRINGS, "a list of strings");
  const ox_attr *pi = attr_of(c, "pool_int64s", OX_ATTR_INTS, "a list of ints");
  const ox_attr *wa = attr_of(c, "weights", OX_ATTR_FLOATS, "a list of floats");
  if (c->err->code) return c->err->code;
  enum { TF, IDF, TFIDF } md;
  if (!strcmp(mode, "TF")) md = TF;
  else if (!strcmp(mode, "IDF")) md = IDF;
  else if (!strcmp(mode, "TFIDF")) md = TFIDF;
  else return ox_fail(c->err, OX_EINPUT, "mode is '%s'; it must be TF, IDF or TFIDF", mode);
  if (ming < 1 || maxg < ming)
    return ox_fail(c->err, OX_EINPUT,
                   "min_gram_length %lld and max_gram_length %lld: need 1 <= min <= max",
                   (long long)ming, (long long)maxg);
  if (skip < 0) return ox_fail(c->err, OX_EINPUT, "max_skip_count is %lld; it must be >= 0", (long long)skip);
  if (!ps == !pi)
    return ox_fail(c->err, OX_EINPUT, "exactly one of pool_strings and pool_int64s must be set (%s)",
                   ps ? "both are" : "neither is");
  ox_dtype pdt = ps ? OX_STRING : OX_INT64;
  const void *pool = ps ? (const void *)ps->strings : (const void *)pi->ints;
  int64_t npool = ps ? ps->n : pi->n;
  if ((x->dt == OX_STRING) != (pdt == OX_STRING))
    return ox_fail(c->err, OX_EINPUT, "%s is tensor(%s) but the pool is %s", ox_input_name(c, 0),
                   ox_dtypes[x->dt].onnx_name, ps ? "pool_strings" : "pool_int64s");
  if (nidx < 1) return ox_fail(c->err, OX_EINPUT, "ngram_indexes is empty");
  int64_t osize = 0;
  for (int64_t j = 0; j < nidx; j++) {
    if (idx[j] < 0 || idx[j] >= (INT64_C(1) << 40))
      return ox_fail(c->err, OX_EINPUT, "ngram_indexes[%lld] is %lld; it must be >= 0",
                     (long long)j, (long long)idx[j]);
    if (idx[j] + 1 > osize) osize = idx[j] + 1;
  }
  int64_t nw = wa ? wa->n : 0;

  /* ---- input shape ---- */
  int64_t rows, C;
  if (x->rank == 0) rows = 1, C = 1;
  else if (x->rank == 1) rows = 1, C = x->dims[0];
  else if (x->rank == 2) rows = x->dims[0], C = x->dims[1];
  else
    return ox_fail(c->err, OX_EINPUT, "%s has shape %s; TfIdfVectorizer takes (C,) or (B, C)",
                   ox_input_name(c, 0), ox_shape_str(x->rank, x->dims, sb, sizeof sb));
  int64_t odims[2] = {rows, osize};
  OX_TRY(ox_tensor_new(c->a, OX_FLOAT, x->rank == 2 ? 2 : 1, x->rank == 2 ? odims : odims + 1,
                       &out[0], c->err));
  float *y = out[0]->u.t.data;

  /* ---- the pool: vocabulary, then the n-grams in range with their prefixes ---- */
  uint64_t cap = 16;
  while (cap < 2 * (uint64_t)npool + 2) cap <<= 1;
  vocab v = {ox_alloc_array(c->a, (int64_t)cap, sizeof(vocab_e)), cap - 1, 0};
  grams g = {ox_alloc_array(c->a, (int64_t)cap, sizeof(gram_e)), cap - 1};
  uint32_t *ptok = ox_alloc_array(c->a, npool ? npool : 1, sizeof *ptok);
  if (!v.e || !g.e || !ptok) return ox_oom(c->err, NULL);
  for (int64_t i = 0; i < npool; i++) {
    int64_t tmp, n;
    const char *p = item_bytes(pdt, pool, i, &tmp, &n);
    vocab_e *e = vocab_slot(&v, p, n);
    if (!e->id) {
      /* keep the bytes: for ints, the pool's own int64 */
      *e = (vocab_e){pdt == OX_STRING ? p : (const char *)&pi->ints[i], n, ++v.count};
    }
    ptok[i] = e->id;
  }
  int64_t ord = 0, top = 0; /* n-grams seen; the largest size present */
  for (int64_t k = 0; k < ncnt; k++) {
    int64_t size = k + 1, b = counts[k], e = k + 1 < ncnt ? counts[k + 1] : npool;
    if (b < 0 || b > npool || e < b)
      return ox_fail(c->err, OX_EINPUT,
                     "ngram_counts[%lld] is %lld; the values must rise from 0 to at most %lld (the "
                     "pool size)", (long long)k, (long long)b, (long long)npool);
    if ((e - b) % size)
      return ox_fail(c->err, OX_EINPUT,
                     "ngram_counts: the %lld-grams (pool items %lld to %lld) are %lld items, not a "
                     "multiple of %lld", (long long)size, (long long)b, (long long)e - 1,
                     (long long)(e - b), (long long)size);
    for (int64_t q = b; q < e; q += size) {
      ord++;
      if (ord > nidx)
        return ox_fail(c->err, OX_EINPUT, "ngram_indexes has %lld values; the pool has more n-grams",
                       (long long)nidx);
      if (size < ming || size > maxg) continue;
      if (md != TF && wa && idx[ord - 1] >= nw)
        return ox_fail(c->err, OX_EINPUT,
                       "weights has %lld values; output coordinate %lld (ngram_indexes[%lld]) has none",
                       (long long)nw, (long long)idx[ord - 1], (long long)ord - 1);
      uint64_t h = 0;
      for (int l = 1; l <= size; l++) {
        h = mix(h, ptok[q + l - 1]);
        gram_e *ge = gram_slot(&g, h, &ptok[q], l);
        if (!ge->tok) *ge = (gram_e){&ptok[q], h, l, 0};
        if (l == size) ge->ord = ord; /* a repeated n-gram: the last one counts */
      }
      if (size > top) top = size;
    }
  }

  /* ---- counting ---- */
  int64_t *freq = ox_alloc_array(c->a, osize, sizeof *freq);
  uint32_t *tok = ox_alloc_array(c->a, C ? C : 1, sizeof *tok);
  uint32_t *buf = ox_alloc_array(c->a, top ? top : 1, sizeof *buf);
  if (!freq || !tok || !buf) return ox_oom(c->err, NULL);
  int64_t maxd = skip + 1 < C ? skip + 1 : C; /* longer distances fit no 2-gram */
  for (int64_t r = 0; r < rows; r++) {
    memset(freq, 0, (size_t)osize * sizeof *freq);
    for (int64_t i = 0; i < C; i++) {
      int64_t tmp, n;
      const char *p = item_bytes(x->dt, x->data, r * C + i, &tmp, &n);
      vocab_e *e = vocab_slot(&v, p, n);
      tok[i] = e->id;
    }
    int64_t start = ming;
    for (int64_t d = 1; d <= maxd && start <= top; d++) {
      for (int64_t s = 0; s + d * (start - 1) < C; s++) {
        uint64_t h = 0;
        for (int64_t l = 1, at = s; l <= top && at < C && tok[at]; l++, at += d) {
          buf[l - 1] = tok[at];
          h = mix(h, tok[at]);
          gram_e *ge = gram_slot(&g, h, buf, (int)l);
          if (!ge->tok) break;
          if (ge->ord && l >= start) freq[idx[ge->ord - 1]]++;
        }
      }
      if (start == 1) start = 2; /* 1-grams once, at distance 1 */
    }
    float *yr = y + r * osize;
    const float *w = wa ? wa->floats : NULL;
    for (int64_t k = 0; k < osize; k++) {
      int64_t f = freq[k];
      yr[k] = md == TF ? (float)f
              : md == IDF ? (f > 0 ? (w ? w[k] : 1.0f) : 0.0f)
                          : (f > 0 ? (w ? w[k] * (float)f : (float)f) : 0.0f);
    }
  }
  return 0;
}

const ox_kernel ox_string_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "TfIdfVectorizer",   9, 0, OX_T(STRING) | OX_T(INT32) | OX_T(INT64), 1, 1, tfidf_k,
    "max_gram_length:int:required,max_skip_count:int:required,min_gram_length:int:required,"
    "mode:string:required,ngram_counts:ints:required,ngram_indexes:ints:required,"
    "pool_int64s:ints,pool_strings:strings,weights:floats" },
  { "", "StringNormalizer", 10, 0, OX_T(STRING), 1, 1, normalizer_k,
    "case_change_action:string=NONE,is_case_sensitive:int=0,locale:string,stopwords:strings" },
  { "", "RegexFullMatch",   20, 0, OX_T(STRING), 1, 1, regex_k, "pattern:string" },
  { "", "StringConcat",     20, 0, OX_T(STRING), 2, 2, concat_k, "" },
  { "", "StringSplit",      20, 0, OX_T(STRING), 1, 1, split_k, "delimiter:string,maxsplit:int" },
  {0},
};
