/* tests/unit/test_string.c: StringNormalizer, StringConcat, StringSplit,
 * RegexFullMatch and TfIdfVectorizer, called through the registry with a
 * hand-made node, on what the ONNX suites lack: non-ASCII case mapping,
 * regex errors and RE2 readings, split limits and empty inputs, TfIdf modes
 * and weights. Expected values are worked out by hand from the spec. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KIT_IN_NAMES {"X", "Y"}
#define KIT_OUT_NAMES {"Y", "Z"}
#include "kit.h"

/* A tensor of strings of the given shape. */
static ox_value *strs_shape(int rank, const int64_t *dims, int n, const char **s) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, OX_STRING, rank, dims, &v, &E)) {
    fprintf(stderr, "tensor: %s\n", E.msg);
    return NULL;
  }
  ox_str *d = v->u.t.data;
  for (int i = 0; i < n; i++) d[i] = (ox_str){s[i], (int64_t)strlen(s[i])};
  return v;
}
static ox_value *strs(int n, const char **s) {
  int64_t d = n;
  return strs_shape(1, &d, n, s);
}
#define STRS(...) strs(sizeof((const char *[])__VA_ARGS__) / sizeof(char *), (const char *[])__VA_ARGS__)

static ox_value *ints(ox_dtype dt, int rank, const int64_t *dims, int n, const int64_t *x) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, dt, rank, dims, &v, &E)) return NULL;
  for (int i = 0; i < n; i++) ox_store_i64(dt, v->u.t.data, i, x[i]);
  return v;
}

static ox_attr a_strs(const char *name, int n, const char **s) {
  ox_str *v = ox_alloc_array(A, n ? n : 1, sizeof *v);
  for (int i = 0; i < n; i++) v[i] = (ox_str){s[i], (int64_t)strlen(s[i])};
  return (ox_attr){.name = name, .type = OX_ATTR_STRINGS, .n = n, .strings = v};
}
#define A_STRS(name, ...) a_strs(name, sizeof((const char *[])__VA_ARGS__) / sizeof(char *), (const char *[])__VA_ARGS__)
#define A_INTS(name, ...) attr_ints(name, sizeof((int64_t[])__VA_ARGS__) / sizeof(int64_t), (int64_t[])__VA_ARGS__)

/* Run op at `opset`; outputs in y[0..nout-1]. */
static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               int nout, ox_value **y) {
  return kit_run("", op, opset, nattr, attr, nin, in, nout, y);
}

#define STR(v, i) (((const ox_str *)(v)->u.t.data)[i].p)
#define SLEN(v, i) (((const ox_str *)(v)->u.t.data)[i].n)
#define I64(v, i) (((const int64_t *)(v)->u.t.data)[i])
#define U8(v, i) (((const uint8_t *)(v)->u.t.data)[i])
#define F32(v, i) (((const float *)(v)->u.t.data)[i])

/* ---- StringNormalizer ---- */

static ox_value *normalize(ox_value *x, const char *action, int sensitive, ox_attr *stops,
                           const char *locale) {
  ox_attr at[4];
  int n = 0;
  if (action) at[n++] = attr_str("case_change_action", action);
  if (sensitive >= 0) at[n++] = attr_int("is_case_sensitive", sensitive);
  if (stops) at[n++] = *stops;
  if (locale) at[n++] = attr_str("locale", locale);
  ox_value *y;
  if (run("StringNormalizer", 10, n, at, 1, &x, 1, &y)) {
    fprintf(stderr, "StringNormalizer: %s\n", E.msg);
    return NULL;
  }
  return y;
}

static void test_normalizer(void) {
  /* full Unicode mappings: ß -> SS, Greek final sigma in lower case */
  ox_value *y = normalize(STRS({"Straße", "àéî", "ΌΣΟΣ", "naïve ǅ"}), "UPPER", -1, NULL, NULL);
  CHECK(y && y->u.t.rank == 1 && y->u.t.n == 4);
  if (y) {
    CHECK_EQ_S(STR(y, 0), "STRASSE");
    CHECK_EQ_I(SLEN(y, 0), 7);
    CHECK_EQ_S(STR(y, 1), "ÀÉÎ");
    CHECK_EQ_S(STR(y, 2), "ΌΣΟΣ");
    CHECK_EQ_S(STR(y, 3), "NAÏVE Ǆ");
  }
  y = normalize(STRS({"ÀÉÎ", "ΌΣΟΣ", "ΣΊΣΥΦΟΣ ΚΑΙ", "İ"}), "LOWER", -1, NULL, NULL);
  if (y) {
    CHECK_EQ_S(STR(y, 0), "àéî");
    CHECK_EQ_S(STR(y, 1), "όσος");
    CHECK_EQ_S(STR(y, 2), "σίσυφος και");
    CHECK_EQ_S(STR(y, 3), "i̇"); /* U+0069 U+0307, the full mapping */
  }
  /* the locale's language: Turkish dotted and dotless i */
  y = normalize(STRS({"istanbul", "DIŞ"}), "UPPER", -1, NULL, "tr_TR.UTF-8");
  if (y) CHECK_EQ_S(STR(y, 0), "İSTANBUL");
  y = normalize(STRS({"DIŞ"}), "LOWER", -1, NULL, "tr-TR");
  if (y) CHECK_EQ_S(STR(y, 0), "dış");
  y = normalize(STRS({"istanbul"}), "UPPER", -1, NULL, "en_US");
  if (y) CHECK_EQ_S(STR(y, 0), "ISTANBUL");

  /* case-insensitive stopwords compare case-folded text: STRASSE = straße */
  ox_attr sw = A_STRS("stopwords", {"STRASSE", "the"});
  y = normalize(STRS({"straße", "The", "Weg", "", "THE"}), "NONE", 0, &sw, NULL);
  CHECK(y && y->u.t.n == 2);
  if (y && y->u.t.n == 2) {
    CHECK_EQ_S(STR(y, 0), "Weg");
    CHECK_EQ_S(STR(y, 1), ""); /* an empty element is kept */
  }
  /* case-sensitive: only exact elements go; whole elements, not words */
  y = normalize(STRS({"straße", "The", "the", "the end"}), "LOWER", 1, &sw, NULL);
  CHECK(y && y->u.t.n == 3);
  if (y && y->u.t.n == 3) {
    CHECK_EQ_S(STR(y, 0), "straße");
    CHECK_EQ_S(STR(y, 1), "the");
    CHECK_EQ_S(STR(y, 2), "the end");
  }
  /* everything dropped: [""] of shape (1,), or (1, 1) for a (1, C) input */
  ox_attr sw2 = A_STRS("stopwords", {"a", "b"});
  y = normalize(STRS({"A", "b"}), "UPPER", 0, &sw2, NULL);
  CHECK(y && y->u.t.rank == 1 && y->u.t.dims[0] == 1 && SLEN(y, 0) == 0);
  int64_t d12[2] = {1, 2};
  y = normalize(strs_shape(2, d12, 2, (const char *[]){"a", "B"}), NULL, 0, &sw2, NULL);
  CHECK(y && y->u.t.rank == 2 && y->u.t.dims[0] == 1 && y->u.t.dims[1] == 1 && SLEN(y, 0) == 0);
  int64_t d0 = 0;
  y = normalize(strs_shape(1, &d0, 0, NULL), "LOWER", -1, NULL, NULL);
  CHECK(y && y->u.t.rank == 1 && y->u.t.n == 1 && SLEN(y, 0) == 0);

  /* errors: shape (2, C), a bad action, invalid UTF-8 */
  int64_t d22[2] = {2, 2};
  ox_value *x = strs_shape(2, d22, 4, (const char *[]){"a", "b", "c", "d"}), *yy;
  ox_attr at[2] = {attr_str("case_change_action", "LOWER")};
  CHECK(run("StringNormalizer", 10, 1, at, 1, &x, 1, &yy) == OX_EINPUT);
  CHECK(strstr(E.msg, "(2, 2)") != NULL);
  at[0] = attr_str("case_change_action", "TITLE");
  x = STRS({"a"});
  CHECK(run("StringNormalizer", 10, 1, at, 1, &x, 1, &yy) == OX_EINPUT);
  CHECK(strstr(E.msg, "TITLE") != NULL);
  at[0] = attr_str("case_change_action", "UPPER");
  x = STRS({"ok", "bad \xff byte"});
  CHECK(run("StringNormalizer", 10, 1, at, 1, &x, 1, &yy) == OX_EINPUT);
  CHECK(strstr(E.msg, "element 1 is not valid UTF-8") != NULL);
  /* NONE without case-insensitive stopwords reads no characters: bytes pass */
  y = normalize(x, "NONE", -1, NULL, NULL);
  CHECK(y && y->u.t.n == 2);
}

/* ---- StringConcat ---- */

static void test_concat(void) {
  int64_t d21[2] = {2, 1};
  ox_value *in[2] = {strs_shape(2, d21, 2, (const char *[]){"ä", ""}), STRS({"x", "yz", "∑"})}, *y;
  CHECK(run("StringConcat", 20, 0, NULL, 2, in, 1, &y) == 0);
  CHECK(y && y->u.t.rank == 2 && y->u.t.dims[0] == 2 && y->u.t.dims[1] == 3);
  if (y && y->u.t.n == 6) {
    CHECK_EQ_S(STR(y, 0), "äx");
    CHECK_EQ_S(STR(y, 1), "äyz");
    CHECK_EQ_S(STR(y, 2), "ä∑");
    CHECK_EQ_S(STR(y, 3), "x");
    CHECK_EQ_S(STR(y, 5), "∑");
    CHECK_EQ_I(SLEN(y, 2), 5);
  }
  int64_t d0 = 0;
  in[0] = strs_shape(1, &d0, 0, NULL);
  in[1] = STRS({"a"});
  CHECK(run("StringConcat", 20, 0, NULL, 2, in, 1, &y) == 0);
  CHECK(y && y->u.t.n == 0 && y->u.t.dims[0] == 0);
  in[0] = STRS({"a", "b"});
  in[1] = STRS({"a", "b", "c"});
  CHECK(run("StringConcat", 20, 0, NULL, 2, in, 1, &y) == OX_EINPUT);
  CHECK(ox_registry_find("", "StringConcat", 19) == NULL); /* from opset 20 */
}

/* ---- StringSplit ---- */

static int split(ox_value *x, const char *delim, int64_t maxsplit, ox_value **y) {
  ox_attr at[2];
  int n = 0;
  if (delim) at[n++] = attr_str("delimiter", delim);
  if (maxsplit != INT64_MIN) at[n++] = attr_int("maxsplit", maxsplit);
  int rc = run("StringSplit", 20, n, at, 1, &x, 2, y);
  if (rc && rc != OX_EINPUT) fprintf(stderr, "StringSplit: %s\n", E.msg);
  return rc;
}

static void test_split(void) {
  ox_value *y[2];
  /* whitespace, maxsplit 1: leading space dropped, the rest keeps its
   * trailing space (Python's str.split) */
  CHECK(split(STRS({"  a b  c  ", "one", "", " \t\n "}), NULL, 1, y) == 0);
  CHECK(y[0] && y[0]->u.t.rank == 2 && y[0]->u.t.dims[0] == 4 && y[0]->u.t.dims[1] == 2);
  if (y[0] && y[0]->u.t.n == 8) {
    CHECK_EQ_S(STR(y[0], 0), "a");
    CHECK_EQ_S(STR(y[0], 1), "b  c  ");
    CHECK_EQ_S(STR(y[0], 2), "one");
    CHECK_EQ_S(STR(y[0], 3), "");
    CHECK(STR(y[0], 4) && SLEN(y[0], 4) == 0 && STR(y[0], 7) && SLEN(y[0], 7) == 0);
    CHECK_EQ_I(I64(y[1], 0), 2);
    CHECK_EQ_I(I64(y[1], 1), 1);
    CHECK_EQ_I(I64(y[1], 2), 0); /* no parts for empty or all-space text */
    CHECK_EQ_I(I64(y[1], 3), 0);
  }
  /* maxsplit 0: no split, only the leading space goes */
  CHECK(split(STRS({"  a b "}), "", 0, y) == 0);
  if (y[0] && y[0]->u.t.n == 1) CHECK_EQ_S(STR(y[0], 0), "a b ");
  /* Unicode whitespace: no-break space, ideographic space, U+2028, and \x1c */
  CHECK(split(STRS({"α\xc2\xa0β\xe3\x80\x80γ\xe2\x80\xa8δ\x1c" "ε"}), NULL, INT64_MIN, y) == 0);
  CHECK_EQ_I(I64(y[1], 0), 5);
  if (y[0] && y[0]->u.t.n == 5) CHECK_EQ_S(STR(y[0], 4), "ε");
  /* a delimiter: consecutive ones delimit empty strings; maxsplit 2 */
  CHECK(split(STRS({"a::b::::c", "::", ""}), "::", 2, y) == 0);
  CHECK(y[0] && y[0]->u.t.dims[1] == 3);
  if (y[0] && y[0]->u.t.n == 9) {
    CHECK_EQ_S(STR(y[0], 0), "a");
    CHECK_EQ_S(STR(y[0], 1), "b");
    CHECK_EQ_S(STR(y[0], 2), "::c");
    CHECK_EQ_S(STR(y[0], 3), "");
    CHECK_EQ_S(STR(y[0], 4), "");
    CHECK_EQ_I(I64(y[1], 0), 3);
    CHECK_EQ_I(I64(y[1], 1), 2);
    CHECK_EQ_I(I64(y[1], 2), 1); /* "" with a delimiter is one empty part */
  }
  /* a multi-byte delimiter */
  CHECK(split(STRS({"a→b→"}), "→", INT64_MIN, y) == 0);
  CHECK_EQ_I(I64(y[1], 0), 3);
  if (y[0] && y[0]->u.t.n == 3) CHECK(!strcmp(STR(y[0], 1), "b") && SLEN(y[0], 2) == 0);
  /* empty input: (0, 2) -> (0, 2, 0) and (0, 2) */
  int64_t d02[2] = {0, 2};
  CHECK(split(strs_shape(2, d02, 0, NULL), ",", INT64_MIN, y) == 0);
  CHECK(y[0] && y[0]->u.t.rank == 3 && y[0]->u.t.dims[0] == 0 && y[0]->u.t.dims[2] == 0);
  CHECK(y[1] && y[1]->u.t.rank == 2 && y[1]->u.t.dims[1] == 2);
  /* all elements empty on whitespace: (2,) -> (2, 0) */
  CHECK(split(STRS({"", "  "}), NULL, INT64_MIN, y) == 0);
  CHECK(y[0] && y[0]->u.t.rank == 2 && y[0]->u.t.dims[1] == 0 && I64(y[1], 1) == 0);
  /* a scalar: () -> (3,) */
  CHECK(split(strs_shape(0, NULL, 1, (const char *[]){"x y z"}), NULL, -1, y) == 0);
  CHECK(y[0] && y[0]->u.t.rank == 1 && y[0]->u.t.dims[0] == 3 && y[1]->u.t.rank == 0);
  /* whitespace splitting reads characters: invalid UTF-8 is an error; a
   * delimiter splits bytes */
  CHECK(split(STRS({"a \xc3"}), NULL, -1, y) == OX_EINPUT);
  CHECK(strstr(E.msg, "element 0 is not valid UTF-8") != NULL);
  CHECK(split(STRS({"a,\xc3"}), ",", -1, y) == 0);
}

/* ---- RegexFullMatch ---- */

static int match(const char *pattern, ox_value *x, ox_value **y) {
  ox_attr at = attr_str("pattern", pattern);
  return run("RegexFullMatch", 20, 1, &at, 1, &x, 1, y);
}

static void test_regex(void) {
  ox_value *y;
  /* full match: anchored at both ends, alternatives tried for the end */
  CHECK(match("a|ab", STRS({"ab", "a", "abc", "xab"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 1 && U8(y, 2) == 0 && U8(y, 3) == 0);
  /* UTF-8: . is one character; (?i) folds Unicode; \pL */
  CHECK(match(".(?i:àé)\\pL+", STRS({"éÀÉß", "éàe", "ee\xcc\x81ß"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0 && U8(y, 2) == 0);
  /* $ is the end of the text only (no final-newline slack); \Z read as \z */
  CHECK(match("abc$", STRS({"abc", "abc\n"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0);
  CHECK(match("abc\\Z", STRS({"abc", "abc\n"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0);
  /* RE2's \s has no vertical tab; \v is the VT character; \S includes VT */
  CHECK(match("a\\sb", STRS({"a b", "a\tb", "a\x0b" "b"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 1 && U8(y, 2) == 0);
  CHECK(match("a[\\s]b", STRS({"a\rb", "a\x0b" "b"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0);
  CHECK(match("a\\vb", STRS({"a\x0b" "b", "a\nb"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0);
  CHECK(match("[\\S]+", STRS({"x\x0bé", "x y"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0);
  /* RE2 octal escapes (PCRE2 could read \12 as a back reference) */
  CHECK(match("\\101\\12", STRS({"A\n", "A\\12"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0);
  /* \Q...\E is literal (no translation inside); classes with ] first, POSIX */
  CHECK(match("\\Q\\s$\\E[]a][[:digit:]]", STRS({"\\s$]5", "\\s$a", " $]5"}), &y) == 0);
  if (y) CHECK(U8(y, 0) == 1 && U8(y, 1) == 0 && U8(y, 2) == 0);
  /* empty input */
  int64_t d0[2] = {2, 0};
  CHECK(match("x", strs_shape(2, d0, 0, NULL), &y) == 0);
  CHECK(y && y->u.t.dt == OX_BOOL && y->u.t.rank == 2 && y->u.t.n == 0);

  /* errors name the pattern and give PCRE2's message */
  CHECK(match("a(b", STRS({"ab"}), &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "pattern 'a(b'") != NULL && strstr(E.msg, "missing closing parenthesis") != NULL);
  CHECK(match("[z-a]", STRS({"ab"}), &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "[z-a]") != NULL && strstr(E.msg, "range out of order") != NULL);
  CHECK(match("a\\Cb", STRS({"ab"}), &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "\\C") != NULL);
  CHECK(match("\xff", STRS({"ab"}), &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "UTF-8") != NULL);
  CHECK(match("a.", STRS({"ab", "a\xe2\x82"}), &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "element 1 is not valid UTF-8") != NULL);
  ox_value *x = STRS({"a"});
  CHECK(run("RegexFullMatch", 20, 0, NULL, 1, &x, 1, &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "'pattern' is required") != NULL);
}

/* ---- TfIdfVectorizer ---- */

static int tfidf(ox_value *x, const char *mode, int64_t min, int64_t max, int64_t skip, int npool,
                 ox_attr pool, ox_attr counts, ox_attr idx, int nw, const float *w, ox_value **y) {
  ox_attr at[9] = {attr_str("mode", mode), attr_int("min_gram_length", min), attr_int("max_gram_length", max),
                   attr_int("max_skip_count", skip), counts, idx, pool};
  int n = 7;
  if (w) at[n++] = attr_floats("weights", nw, w);
  (void)npool;
  return run("TfIdfVectorizer", 9, n, at, 1, &x, 1, y);
}

static void test_tfidf(void) {
  ox_value *y;
  /* pool: 1-grams 2, 5; 2-grams (5,6), (6,5) */
  ox_attr pool = A_INTS("pool_int64s", {2, 5, 5, 6, 6, 5}), cnt = A_INTS("ngram_counts", {0, 2}),
          idx = A_INTS("ngram_indexes", {0, 1, 2, 3});
  int64_t c5 = 5;
  ox_value *x = ints(OX_INT64, 1, &c5, 5, (int64_t[]){5, 6, 5, 6, 2});
  CHECK(tfidf(x, "TF", 1, 2, 0, 6, pool, cnt, idx, 0, NULL, &y) == 0);
  CHECK(y && y->u.t.dt == OX_FLOAT && y->u.t.rank == 1 && y->u.t.dims[0] == 4);
  if (y) CHECK(F32(y, 0) == 1 && F32(y, 1) == 2 && F32(y, 2) == 2 && F32(y, 3) == 1);
  const float w[4] = {0.5f, 1, 2, 4};
  CHECK(tfidf(x, "IDF", 1, 2, 0, 6, pool, cnt, idx, 4, w, &y) == 0);
  if (y) CHECK(F32(y, 0) == 0.5f && F32(y, 1) == 1 && F32(y, 2) == 2 && F32(y, 3) == 4);
  CHECK(tfidf(x, "TFIDF", 1, 2, 0, 6, pool, cnt, idx, 4, w, &y) == 0);
  if (y) CHECK(F32(y, 0) == 0.5f && F32(y, 1) == 2 && F32(y, 2) == 4 && F32(y, 3) == 4);
  CHECK(tfidf(x, "IDF", 1, 2, 0, 6, pool, cnt, idx, 0, NULL, &y) == 0);
  if (y) CHECK(F32(y, 0) == 1 && F32(y, 1) == 1 && F32(y, 2) == 1 && F32(y, 3) == 1);

  /* skips: (5, 6) only at distance 2; 1-grams counted once, not per distance */
  int64_t c4 = 4;
  x = ints(OX_INT32, 1, &c4, 4, (int64_t[]){5, 9, 6, 2});
  CHECK(tfidf(x, "TF", 1, 2, 0, 6, pool, cnt, idx, 0, NULL, &y) == 0);
  if (y) CHECK(F32(y, 0) == 1 && F32(y, 1) == 1 && F32(y, 2) == 0 && F32(y, 3) == 0);
  CHECK(tfidf(x, "TF", 1, 2, 1, 6, pool, cnt, idx, 0, NULL, &y) == 0);
  if (y) CHECK(F32(y, 0) == 1 && F32(y, 1) == 1 && F32(y, 2) == 1 && F32(y, 3) == 0);
  CHECK(tfidf(x, "TF", 2, 2, 1000000000, 6, pool, cnt, idx, 0, NULL, &y) == 0);
  if (y) CHECK(F32(y, 0) == 0 && F32(y, 1) == 0 && F32(y, 2) == 1 && F32(y, 3) == 0);

  /* strings, 2-D, permuted coordinates: x -> 1, y -> 0, (x, y) -> 2 */
  ox_attr sp = A_STRS("pool_strings", {"x", "y", "x", "y"}), sc = A_INTS("ngram_counts", {0, 2}),
          si = A_INTS("ngram_indexes", {1, 0, 2});
  int64_t d23[2] = {2, 3};
  x = strs_shape(2, d23, 6, (const char *[]){"x", "y", "x", "y", "y", "z"});
  CHECK(tfidf(x, "TF", 1, 2, 0, 4, sp, sc, si, 0, NULL, &y) == 0);
  CHECK(y && y->u.t.rank == 2 && y->u.t.dims[0] == 2 && y->u.t.dims[1] == 3);
  if (y && y->u.t.n == 6)
    CHECK(F32(y, 0) == 1 && F32(y, 1) == 2 && F32(y, 2) == 1 && F32(y, 3) == 2 && F32(y, 4) == 0 &&
          F32(y, 5) == 0);
  /* weights belong to output coordinates (the reference and ONNX Runtime) */
  const float w3[3] = {10, 20, 30};
  CHECK(tfidf(x, "IDF", 1, 2, 0, 4, sp, sc, si, 3, w3, &y) == 0);
  if (y && y->u.t.n == 6)
    CHECK(F32(y, 0) == 10 && F32(y, 1) == 20 && F32(y, 2) == 30 && F32(y, 3) == 10 && F32(y, 4) == 0);
  /* an empty batch row length: (2, 0) -> zeros (2, 3) */
  int64_t d20[2] = {2, 0};
  CHECK(tfidf(strs_shape(2, d20, 0, NULL), "TF", 1, 2, 0, 4, sp, sc, si, 0, NULL, &y) == 0);
  CHECK(y && y->u.t.n == 6 && F32(y, 5) == 0);

  /* errors */
  CHECK(tfidf(x, "TF", 1, 2, 0, 6, pool, cnt, idx, 0, NULL, &y) == OX_EINPUT); /* strings vs ints */
  CHECK(strstr(E.msg, "pool_int64s") != NULL);
  CHECK(tfidf(x, "BM25", 1, 2, 0, 4, sp, sc, si, 0, NULL, &y) == OX_EINPUT);
  CHECK(tfidf(x, "TF", 2, 1, 0, 4, sp, sc, si, 0, NULL, &y) == OX_EINPUT);
  ox_attr bad = A_INTS("ngram_counts", {0, 1});
  CHECK(tfidf(x, "TF", 1, 2, 0, 4, sp, bad, si, 0, NULL, &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "not a multiple of 2") != NULL);
  ox_attr shortidx = A_INTS("ngram_indexes", {0, 1});
  CHECK(tfidf(x, "TF", 1, 2, 0, 4, sp, sc, shortidx, 0, NULL, &y) == OX_EINPUT);
  CHECK(tfidf(x, "IDF", 1, 2, 0, 4, sp, sc, si, 2, w3, &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "weights") != NULL);
  ox_attr only_mode[1] = {attr_str("mode", "TF")};
  x = ints(OX_INT64, 1, &c5, 5, (int64_t[]){5, 6, 5, 6, 2});
  CHECK(run("TfIdfVectorizer", 9, 1, only_mode, 1, &x, 1, &y) == OX_EINPUT);
  CHECK(strstr(E.msg, "'max_gram_length' is required") != NULL);
  int64_t d3[3] = {1, 1, 1};
  x = ints(OX_INT64, 3, d3, 1, (int64_t[]){5});
  CHECK(tfidf(x, "TF", 1, 2, 0, 6, pool, cnt, idx, 0, NULL, &y) == OX_EINPUT);
}

static void test_table(void) {
  CHECK(ox_registry_find("", "TfIdfVectorizer", 8) == NULL);
  CHECK(ox_registry_find("", "TfIdfVectorizer", 9) != NULL);
  CHECK(ox_registry_find("", "StringNormalizer", 9) == NULL);
  CHECK(ox_registry_find("", "StringNormalizer", 10) != NULL);
  const char *v20[] = {"StringConcat", "StringSplit", "RegexFullMatch"};
  for (int i = 0; i < 3; i++) {
    CHECK(ox_registry_find("", v20[i], 19) == NULL);
    CHECK(ox_registry_find("", v20[i], 20) != NULL);
    CHECK(ox_registry_find("", v20[i], 25) != NULL);
  }
}

int main(void) {
  A = ox_arena_new();
  test_table();
  test_normalizer();
  test_concat();
  test_split();
  test_regex();
  test_tfidf();
  ox_arena_free(A);
  return check_done("string");
}
