/* cli/make.c: onnxop make builds single-node models and whole test cases.
 *
 *   -o MODEL     the model alone
 *   --case DIR   one case in the ONNX test layout: DIR/model.onnx,
 *                DIR/test_data_set_K/input_J.pb and output_J.pb (computed by
 *                onnxop), DIR/data.json (tolerances and provenance)
 *   --suite DIR  cases as DIR/NAME: one, a sweep (--for-each-type,
 *                --for-each-opset) or the list of a spec file (--spec)
 *
 * The models are what onnx.checker.check_model(full_check=True) and
 * onnxruntime accept: the IR version the opsets need (onnx's
 * helper.VERSION_TABLE), a type and a shape on every input and output (an
 * output's from evaluating the node on the inputs, given or drawn), symbolic
 * dims kept as dim_param. An operator or opset that onnxop does not know is
 * an error (--force writes the model anyway). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../api/api.h"
#include "../io/io.h"
#include "cli.h"
#include "files.h"
#include "make.h"

static const char make_help[] =
    "usage: onnxop make OP [OPTION]... (-o MODEL | --case DIR | --suite DIR)\n"
    "       onnxop make --spec FILE.json --suite DIR\n"
    "\n"
    "Build a model of one OP node; with --case, a whole ONNX test case (the model,\n"
    "test_data_set_K/input_J.pb from --in values or drawn with --random, and\n"
    "output_J.pb computed by onnxop); with --suite, cases as DIR/NAME.\n"
    "\n"
    "  --domain D         the operator's domain (default ai.onnx)\n"
    "  --opset N          the domain's opset to import (default: the newest onnxop\n"
    "                     knows for it; a newer one is an error)\n"
    "  --ir-version N     the model's IR version (default: the one the opsets need,\n"
    "                     as onnx's helper.VERSION_TABLE says)\n"
    "  -a NAME[:KIND]=VALUE  an attribute: 3 (int), 1.5 (float), [1, 2] (ints),\n"
    "                     [0.5] (floats), [a, b] (strings: blanks around items\n"
    "                     dropped), text (string), @FILE (a tensor from a value\n"
    "                     file). KIND forces one: int, float, string, ints, floats,\n"
    "                     strings, tensor, type (an ONNX type string).\n"
    "  --input NAME[:TYPE]  a node input; TYPE is an ONNX type string\n"
    "                     (seq(tensor(float))) or DTYPE[SHAPE] (float32[2,3]), whose\n"
    "                     dims may be symbols (float32[N,3]: dim_param N) or ?. An\n"
    "                     empty NAME is a missing optional input. Without TYPE, the\n"
    "                     type and shape come from the input's --in value.\n"
    "  --output NAME[:TYPE] a node output (default: one, named 'output'); its type\n"
    "                     and shape are computed when not given.\n"
    "  --dim NAME=SIZE    the size a symbolic dim takes to evaluate the node (the\n"
    "                     model keeps NAME)\n"
    "  --in [NAME=]FILE   an input's value (.pb, .json, .npy, .npz, inline\n"
    "                     DTYPE[SHAPE]:values or JSON); without NAME=, the inputs\n"
    "                     in order. For --case and --suite.\n"
    "  --random SEED      draw the inputs --in does not give, from their declared\n"
    "                     DTYPE[SHAPE], with a generator seeded by SEED (0 to\n"
    "                     2^64-1; the same SEED gives the same bytes): floats in\n"
    "                     [-1, 1) (float8e8m0: [0, 1)), integers in [-10, 10]\n"
    "                     (unsigned: [0, 10]; 4- and 2-bit types: all they hold),\n"
    "                     bools, strings of 1 to 8 letters a-z.\n"
    "  --range NAME=LO:HI draw input NAME in [LO, HI) (integers: LO to HI inclusive)\n"
    "  --allow-nan        keep drawn inputs whose outputs hold NaN or infinity\n"
    "                     (refused otherwise, naming the input and --range)\n"
    "  --datasets N       write test_data_set_0 .. N-1, drawn in turn from one SEED\n"
    "  --rtol R, --atol A tolerances for `onnxop test`, in data.json\n"
    "  --for-each-type T[=DTYPE,...]  one case per element type that the\n"
    "                     op-version's constraint accepts (`onnxop ops OP` lists\n"
    "                     them; or the DTYPEs given), T in --input/--output types\n"
    "                     standing for it (x:T[3,4]); needs --suite\n"
    "  --for-each-opset   one case per since-version of OP; needs --suite\n"
    "  --name NAME        the case's folder in --suite (default test_<op>, then\n"
    "                     _v<opset> and _<type> for sweeps)\n"
    "  --spec FILE.json   the cases of a spec file (man onnxop: SPEC FILES)\n"
    "  --force            write the model even when onnxop cannot check or run it\n"
    "                     (an unknown operator or domain, a bad attribute)\n"
    "\n"
    "Each case's data.json records its tolerances and provenance (onnxop's\n"
    "version, the seed, the command line or spec entry). A folder that holds\n"
    "data sets or values the case would not write is refused, not mixed.\n"
    "\n"
    "exit status:\n"
    "  0      success\n"
    OX_EXIT_HELP_1
    OX_EXIT_HELP_2
    OX_EXIT_HELP_3
    OX_EXIT_HELP_SIGNAL;

/* ---- opsets and IR versions ---- */

/* onnx/helper.py's VERSION_TABLE: per release, oldest first, the IR version
 * and the ai.onnx, ai.onnx.ml and ai.onnx.training opsets. helper.
 * find_min_ir_version_for gives a (domain, version) the IR version of the
 * first release that has it (ai.onnx.preview goes with ai.onnx,
 * ai.onnx.preview.training with ai.onnx.training); versions no release lists
 * (ai.onnx 2 to 4) and other domains take 3, its default. */
static const struct { int ir, v[3]; } releases[] = {
    {3, {1, 1, 0}},   {3, {5, 1, 0}},   {3, {6, 1, 0}},   {3, {7, 1, 0}},   {3, {8, 1, 0}},
    {4, {9, 1, 0}},   {5, {10, 1, 0}},  {6, {11, 2, 0}},  {7, {12, 2, 1}},  {7, {13, 2, 1}},
    {7, {14, 2, 1}},  {8, {15, 2, 1}},  {8, {16, 3, 1}},  {8, {17, 3, 1}},  {8, {18, 3, 1}},
    {9, {19, 3, 1}},  {9, {20, 4, 1}},  {10, {21, 5, 1}}, {10, {22, 5, 1}}, {11, {23, 5, 1}},
    {12, {24, 5, 1}}, {13, {25, 5, 1}}, {13, {26, 5, 1}}, {13, {27, 5, 1}}, {13, {28, 5, 1}},
};
#define NRELEASES ((int)(sizeof releases / sizeof *releases))
/* The newest IR version onnx's onnx.proto defines (IR_VERSION): 14 since
 * onnx 6a1de3b7 (2026-08-10), which only makes TypeProto.Opaque available
 * outside ONNX-ML builds. onnxop writes onnx-ml.proto's messages, where
 * Opaque always was, so a model is the same bytes at 13 and 14 but for the
 * field. No release in the table above has it yet: only --ir-version asks. */
#define IR_NEWEST 14

/* the VERSION_TABLE column of a domain, or -1 */
static int column(const char *domain) {
  if (!*domain || !strcmp(domain, "ai.onnx.preview")) return 0;
  if (!strcmp(domain, "ai.onnx.ml")) return 1;
  if (!strcmp(domain, "ai.onnx.preview.training") || !strcmp(domain, "ai.onnx.training")) return 2;
  return -1;
}

/* the first release with (domain, v), or -1 */
static int first_release(const char *domain, int64_t v) {
  int c = column(domain);
  for (int r = 0; c >= 0 && r < NRELEASES; r++)
    if (releases[r].v[c] == v) return r;
  return -1;
}

static int ir_for(const char *domain, int64_t v) {
  int r = first_release(domain, v);
  return r < 0 ? 3 : releases[r].ir;
}

/* The ai.onnx opset imported beside another domain's: that of the first
 * release with it, so the IR version needs no raise; the newest otherwise. */
static int64_t onnx_beside(const char *domain, int64_t v, int64_t newest) {
  int r = first_release(domain, v);
  return r < 0 ? newest : releases[r].v[0];
}

/* The newest opset the registry knows for domain (the largest since), or 0. */
static int64_t newest_opset(const char *domain) {
  int64_t best = 0;
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++)
      if (ox_domain_eq(k->domain, domain) && k->since > best) best = k->since;
  return best;
}

static const char *domain_name(const char *d) { return *d ? d : "ai.onnx"; }

/* "no operator 'Addd' in ai.onnx; did you mean 'Add'?" (or the domain that has it) */
static void no_such_op(const char *label, const char *op, const char *domain, int force) {
  const char *names[1024];
  int n = 0;
  const char *other = NULL;
  for (const ox_family *f = ox_families; f->family; f++)
    for (const ox_kernel *k = f->rows; k->op; k++) {
      if (!ox_domain_eq(k->domain, domain)) {
        if (!strcmp(k->op, op)) other = k->domain;
        continue;
      }
      if (n && !strcmp(names[n - 1], k->op)) continue;
      if (n < 1024) names[n++] = k->op;
    }
  const char *near = ox_suggest(op, names, n);
  fprintf(stderr, "onnxop make: %s%sno operator '%s' in %s", force ? "warning: " : "", label, op, domain_name(domain));
  if (other) fprintf(stderr, "; it is in %s: --domain %s", domain_name(other), domain_name(other));
  else if (near) fprintf(stderr, "; did you mean '%s'?", near);
  if (!force) fprintf(stderr, " (--force writes the model anyway)");
  fputc('\n', stderr);
}

/* ---- types: an ONNX type string or DTYPE[SHAPE] ---- */

typedef struct {
  const ox_type *type;
  int rank;              /* -1: no shape */
  int64_t *dims;         /* -1: a symbol or unknown */
  const char **params;   /* NULL, or rank entries: each dim's symbol or NULL */
} shaped;

static int is_symbol(const char *s, size_t n) {
  if (!n || !(s[0] == '_' || (s[0] | 32) >= 'a') || ((s[0] | 32) > 'z' && s[0] != '_')) return 0;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z'))) return 0;
  return 1;
}

/* "float32[2, N, ?]" or an ONNX type string (ox_type_parse) */
static int parse_shaped(ox_arena *A, const char *s, shaped *out, char *why, size_t wn) {
  *out = (shaped){NULL, -1, NULL, NULL};
  const char *br = strchr(s, '[');
  if (!br) {
    out->type = ox_type_parse(A, s, 0, why, wn);
    return out->type ? 0 : -1;
  }
  const char *a = s, *b = br;
  while (*a == ' ') a++;
  while (b > a && b[-1] == ' ') b--;
  char dt[64];
  snprintf(dt, sizeof dt, "%.*s", (int)(b - a < 63 ? b - a : 63), a);
  ox_dtype d = ox_dtype_from_name(dt);
  if (!d) {
    snprintf(why, wn, "unknown dtype \"%s\"", dt);
    return -1;
  }
  const char *close = strchr(br, ']');
  const char *rest = close ? close + 1 : "";
  while (*rest == ' ') rest++;
  if (!close || *rest) {
    snprintf(why, wn, close ? "unexpected \"%s\" after the shape" : "the shape has no closing ']'", rest);
    return -1;
  }
  out->dims = ox_alloc_array(A, OX_MAX_RANK, sizeof *out->dims);
  out->params = ox_alloc_array(A, OX_MAX_RANK, sizeof *out->params);
  if (!out->dims || !out->params) {
    if (wn) why[0] = 0; /* out of memory */
    return -1;
  }
  int r = 0, symbolic = 0;
  for (const char *p = br + 1; p < close;) {
    const char *q = p;
    while (q < close && *q != ',') q++;
    const char *x = p, *y = q;
    while (x < y && *x == ' ') x++;
    while (y > x && y[-1] == ' ') y--;
    if (x == y && q == close && r == 0) break; /* [] : a scalar */
    if (r == OX_MAX_RANK) {
      snprintf(why, wn, "more than %d dims", OX_MAX_RANK);
      return -1;
    }
    char *end;
    errno = 0;
    long long v = strtoll(x, &end, 10);
    if (x < y && end == y && !errno && v >= 0 && (*x >= '0' && *x <= '9')) {
      out->dims[r] = v;
    } else if (y - x == 1 && *x == '?') {
      out->dims[r] = -1;
    } else if (is_symbol(x, (size_t)(y - x))) {
      out->dims[r] = -1;
      if (!(out->params[r] = ox_strndup(A, x, (size_t)(y - x)))) {
        if (wn) why[0] = 0; /* out of memory */
        return -1;
      }
      symbolic = 1;
    } else {
      snprintf(why, wn, "'%.*s' is not a dim (a size, a symbol such as N, or ?)", (int)(y - x), x);
      return -1;
    }
    r++;
    p = q < close ? q + 1 : q;
  }
  out->rank = r;
  if (!symbolic) out->params = NULL;
  out->type = ox_type_tensor(d);
  return 0;
}

/* text with every whole word `word` replaced by `by` */
static const char *substitute(ox_arena *A, const char *text, const char *word, const char *by) {
  if (!text || !word) return text;
  size_t wl = strlen(word), n = 0;
  char *out = ox_alloc(A, strlen(text) * (strlen(by) + 1) + 1);
  if (!out) return NULL; /* out of memory */
  for (const char *p = text; *p;) {
    int edge_l = p == text || !(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') || ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'));
    char c = p[wl];
    int edge_r = !(c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'));
    if (edge_l && !strncmp(p, word, wl) && edge_r) {
      memcpy(out + n, by, strlen(by));
      n += strlen(by);
      p += wl;
    } else {
      out[n++] = *p++;
    }
  }
  out[n] = 0;
  return out;
}

/* ---- attributes ---- */

/* "[1, 2.5]" -> numbers; sets *is_float if any is not an integer */
static int parse_list(ox_arena *A, const char *s, double **vals, int64_t *n, int *is_float) {
  int64_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  double *v = ox_alloc_array(A, cap, sizeof *v);
  if (!v) return -1;
  *n = 0;
  *is_float = 0;
  const char *p = s + 1;
  while (*p == ' ') p++;
  while (*p && *p != ']') {
    char *end;
    v[*n] = strtod(p, &end);
    if (end == p) return -1;
    for (const char *q = p; q < end; q++)
      if (*q == '.' || *q == 'e' || *q == 'E' || *q == 'n' || *q == 'i') *is_float = 1;
    (*n)++;
    p = end;
    while (*p == ',' || *p == ' ') p++;
  }
  *vals = v;
  return *p == ']' ? 0 : -1;
}

/* An attribute from -a NAME[:KIND]=VALUE (0, or the error in e). */
static int parse_attr(ox_arena *A, const char *spec, ox_attr *at, ox_err *e) {
  const char *eq = strchr(spec, '=');
  if (!eq) return ox_fail(e, OX_EUSAGE, "attribute '%s' needs NAME=VALUE", spec);
  char *name = ox_strndup(A, spec, (size_t)(eq - spec));
  if (!name) return ox_oom(e, NULL);
  char *kind = strchr(name, ':');
  if (kind) *kind++ = 0;
  const char *val = eq + 1;
  at->name = name;
  char *end;
  char why[160];
  if (kind && !strcmp(kind, "type")) {
    at->type = OX_ATTR_TYPE_PROTO;
    if (!(at->tp = ox_type_parse(A, val, 0, why, sizeof why)) && !why[0]) return ox_oom(e, NULL);
    if (!at->tp)
      return ox_fail(e, OX_EUSAGE, "attribute '%s': '%s' is not an ONNX type: %s", name, val, why);
    return 0;
  }
  if ((kind && !strcmp(kind, "tensor")) || val[0] == '@') {
    at->type = OX_ATTR_TENSOR;
    const char *file = val[0] == '@' ? val + 1 : val;
    if (ox_api_value_load(A, file, NULL, &at->t, NULL, e)) {
      ox_prefix(e, "attribute '%s': %s: ", name, file);
      return e->code;
    }
    if (at->t->kind != OX_TENSOR)
      return ox_fail(e, OX_EUSAGE, "attribute '%s': %s does not hold a tensor", name, file);
    return 0;
  }
  double *v;
  int64_t n;
  int isf;
  /* [a, b] without a kind: numbers if they all are, else strings */
  size_t failed = ox_mem_failures();
  int strs = kind ? !strcmp(kind, "strings") : val[0] == '[' && parse_list(A, val, &v, &n, &isf) != 0;
  if (ox_mem_failures() != failed) return ox_oom(e, NULL);
  if (!strs && ((kind && (!strcmp(kind, "ints") || !strcmp(kind, "floats"))) || (!kind && val[0] == '['))) {
    if (parse_list(A, val, &v, &n, &isf))
      return ox_mem_failures() != failed ? ox_oom(e, NULL)
                                         : ox_fail(e, OX_EUSAGE, "attribute '%s': '%s' is not a list of numbers", name, val);
    if (kind) isf = !strcmp(kind, "floats");
    at->n = n;
    if (isf) {
      at->type = OX_ATTR_FLOATS;
      at->floats = ox_alloc_array(A, n + 1, sizeof *at->floats);
      for (int64_t i = 0; at->floats && i < n; i++) at->floats[i] = (float)v[i];
    } else {
      at->type = OX_ATTR_INTS;
      at->ints = ox_alloc_array(A, n + 1, sizeof *at->ints);
      for (int64_t i = 0; at->ints && i < n; i++) at->ints[i] = (int64_t)v[i];
    }
    return 0;
  }
  if (strs) {
    /* a,b,c or [a, b, c]: items split at commas, blanks around them dropped */
    size_t len = strlen(val);
    const char *p = val, *stop = val + len;
    if (len && val[0] == '[') {
      if (val[len - 1] != ']')
        return ox_fail(e, OX_EUSAGE, "attribute '%s': '%s' opens a list with '[' but does not close it", name, val);
      p++, stop--;
    }
    at->type = OX_ATTR_STRINGS;
    n = 1;
    for (const char *q = p; q < stop; q++) n += *q == ',';
    at->strings = ox_alloc_array(A, n, sizeof *at->strings);
    if (!at->strings) return ox_oom(e, NULL);
    at->n = 0;
    while (p < stop && (*p == ' ' || *p == '\t')) p++;
    if (p == stop) return 0; /* [] : no strings */
    for (;;) {
      const char *q = p;
      while (q < stop && *q != ',') q++;
      const char *a = p, *b = q;
      while (a < b && (*a == ' ' || *a == '\t')) a++;
      while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
      if (!(at->strings[at->n].p = ox_strndup(A, a, (size_t)(b - a)))) return ox_oom(e, NULL);
      at->strings[at->n++].n = (int64_t)(b - a);
      if (q == stop) break;
      p = q + 1;
    }
    return 0;
  }
  long long iv = strtoll(val, &end, 10);
  if ((!kind && *val && !*end) || (kind && !strcmp(kind, "int"))) {
    if (*end || !*val) return ox_fail(e, OX_EUSAGE, "attribute '%s': '%s' is not an integer", name, val);
    at->type = OX_ATTR_INT;
    at->i = iv;
    return 0;
  }
  double fv = strtod(val, &end);
  if ((!kind && *val && !*end) || (kind && !strcmp(kind, "float"))) {
    if (*end || !*val) return ox_fail(e, OX_EUSAGE, "attribute '%s': '%s' is not a number", name, val);
    at->type = OX_ATTR_FLOAT;
    at->f = (float)fv;
    return 0;
  }
  if (kind && strcmp(kind, "string"))
    return ox_fail(e, OX_EUSAGE, "attribute '%s': unknown kind '%s' (int, float, string, ints, floats, strings, "
                   "tensor, type)", name, kind);
  at->type = OX_ATTR_STRING;
  at->s.p = val;
  at->s.n = (int64_t)strlen(val);
  return 0;
}

/* ---- --random: a seeded generator (splitmix64), the same on every machine ---- */

static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { /* [0, 1), 53 bits */
  return (double)(next_u64(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int64_t int_in(uint64_t *s, int64_t lo, int64_t hi) {
  return lo + (int64_t)(next_u64(s) % ((uint64_t)hi - (uint64_t)lo + 1));
}

/* The integers dt holds, as doubles (int64/uint64 ends rounded inwards). */
static void int_limits(ox_dtype dt, double *lo, double *hi) {
  int bits = ox_dtypes[dt].file_bits;
  if (ox_dtype_is_signed_int(dt)) {
    *lo = bits >= 64 ? -9223372036854774784.0 : -ldexp(1, bits - 1);
    *hi = bits >= 64 ? 9223372036854774784.0 : ldexp(1, bits - 1) - 1;
  } else {
    *lo = 0;
    *hi = bits >= 64 ? 18446744073709549568.0 : ldexp(1, bits) - 1;
  }
}

/* A tensor of dtype dt and shape dims, drawn from s: in [in->lo, in->hi) when
 * the input has a range, else as --help says. No per-type code: floats go
 * through ox_store_f64 (which rounds to the type), integers through
 * ox_store_i64. run --random draws with it too. */
int ox_draw_tensor(ox_arena *A, ox_dtype dt, int rank, const int64_t *dims, const mk_input *in, uint64_t *s,
                   ox_value **out, ox_err *e) {
  OX_TRY(ox_tensor_new(A, dt, rank, dims, out, e));
  ox_tensor *t = &(*out)->u.t;
  int bits = ox_dtypes[dt].file_bits, ints = ox_dtype_is_signed_int(dt) || ox_dtype_is_unsigned_int(dt);
  double flo = dt == OX_FLOAT8E8M0 ? 0 : -1, fhi = 1;
  int64_t ilo, ihi;
  if (ox_dtype_is_signed_int(dt)) {
    int64_t m = bits < 8 ? (INT64_C(1) << (bits - 1)) : 11; /* int4: [-8, 7], int2: [-2, 1] */
    ilo = -(m < 11 ? m : 10), ihi = m < 11 ? m - 1 : 10;
  } else {
    int64_t m = bits < 8 ? (INT64_C(1) << bits) - 1 : 10;
    ilo = 0, ihi = m < 10 ? m : 10;
  }
  if (in->ranged) {
    char tn[64];
    snprintf(tn, sizeof tn, "%s", ox_dtype_name(dt));
    if (dt == OX_STRING || dt == OX_BOOL)
      return ox_fail(e, OX_EUSAGE, "--range %s: a %s input has no range of numbers", in->name, tn);
    if (ints) {
      double lo, hi;
      int_limits(dt, &lo, &hi);
      if (in->lo != floor(in->lo) || in->hi != floor(in->hi) || in->lo < lo || in->hi > hi)
        return ox_fail(e, OX_EUSAGE, "--range %s=%g:%g: a %s input takes integers from %.0f to %.0f", in->name,
                       in->lo, in->hi, tn, lo, hi);
      ilo = (int64_t)in->lo, ihi = (int64_t)in->hi;
    } else {
      flo = in->lo, fhi = in->hi;
    }
  }
  for (int64_t i = 0; i < t->n; i++) {
    if (dt == OX_STRING) {
      int n = (int)int_in(s, 1, 8);
      char *p = ox_alloc(A, (size_t)n + 1);
      if (!p) return ox_oom(e, NULL);
      for (int k = 0; k < n; k++) p[k] = (char)('a' + int_in(s, 0, 25));
      ((ox_str *)t->data)[i] = (ox_str){p, n};
    } else if (dt == OX_BOOL) {
      ox_store_i64(dt, t->data, i, (int64_t)(next_u64(s) >> 63));
    } else if (ox_dtype_is_complex(dt)) {
      double re = flo + (fhi - flo) * uniform(s), im = flo + (fhi - flo) * uniform(s);
      if (dt == OX_COMPLEX64) ((ox_c64 *)t->data)[i] = (ox_c64){(float)re, (float)im};
      else ((ox_c128 *)t->data)[i] = (ox_c128){re, im};
    } else if (ox_dtype_is_float(dt)) {
      ox_store_f64(dt, t->data, i, flo + (fhi - flo) * uniform(s));
    } else {
      ox_store_i64(dt, t->data, i, int_in(s, ilo, ihi));
    }
  }
  return 0;
}

/* Whether v holds a NaN or an infinity (through sequences, optionals, maps). */
static int nonfinite(const ox_value *v) {
  if (!v) return 0;
  switch (v->kind) {
  case OX_TENSOR: {
    const ox_tensor *t = &v->u.t;
    if (ox_dtype_is_complex(t->dt)) {
      for (int64_t i = 0; i < 2 * t->n; i++)
        if (!isfinite(t->dt == OX_COMPLEX64 ? ((const float *)t->data)[i] : ((const double *)t->data)[i])) return 1;
    } else if (ox_dtype_is_float(t->dt)) {
      for (int64_t i = 0; i < t->n; i++)
        if (!isfinite(ox_load_f64(t->dt, t->data, i))) return 1;
    }
    return 0;
  }
  case OX_SEQUENCE:
    for (int64_t i = 0; i < v->u.seq.n; i++)
      if (nonfinite(v->u.seq.v[i])) return 1;
    return 0;
  case OX_OPTIONAL: return nonfinite(v->u.opt);
  case OX_MAP: return nonfinite(v->u.map.values);
  default: return 0;
  }
}

/* ---- one case ---- */

/* What a concrete case resolves to: the model and the inputs' values. */
typedef struct {
  const mk_case *c;
  const char *label;  /* "" or "case 'NAME': ", before messages */
  ox_model m;
  ox_graph g;
  ox_node node;
  ox_opset ops[2];
  shaped *in, *out;   /* per mk_input / mk_output, as declared */
  ox_value **given;   /* per mk_input: its value, or NULL (drawn) */
  int *slot;          /* per mk_input: its graph input, or -1 */
  int64_t *sym;       /* per mk_dim: its size (-1: not known) */
  int prepared;
} built;

static int fail(const built *b, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(const built *b, int code, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "onnxop make: %s", b->label);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return code;
}

/* ox_oom's message (it says when --max-memory was the cause); exit status 1 */
static int fail_oom(const built *b) {
  ox_err e = {0};
  ox_oom(&e, NULL);
  return fail(b, OX_ENOMEM, "%s", e.msg);
}

/* the index of dim symbol `name` in c->dim, or -1 */
static int dim_index(const mk_case *c, const char *name) {
  for (int k = 0; k < c->ndim; k++)
    if (!strcmp(c->dim[k].name, name)) return k;
  return -1;
}

/* dims of input i with its symbols' sizes (+ bump each); 0, or -1 when a
 * dim is not known */
static int concrete_dims(const built *b, int i, int64_t bump, int64_t *dims) {
  const shaped *s = &b->in[i];
  for (int d = 0; d < s->rank; d++) {
    dims[d] = s->dims[d];
    if (dims[d] >= 0) continue;
    int k = s->params && s->params[d] ? dim_index(b->c, s->params[d]) : -1;
    if (k < 0 || b->sym[k] < 0) return -1;
    dims[d] = b->sym[k] + bump;
  }
  return 0;
}

/* The inputs of one evaluation: the given values, the rest drawn from s
 * (symbolic dims + bump). drew: set when any was drawn. */
static int draw_inputs(ox_arena *A, built *b, uint64_t *s, int64_t bump, ox_value **vals, int *drew, ox_err *e) {
  const mk_case *c = b->c;
  *drew = 0;
  for (int i = 0; i < c->nin; i++) {
    int g = b->slot[i];
    if (g < 0) continue;
    if (b->given[i]) {
      vals[g] = b->given[i];
      continue;
    }
    const shaped *sh = &b->in[i];
    int64_t dims[OX_MAX_RANK];
    if (!sh->type || sh->type->kind != OX_TENSOR || sh->rank < 0)
      return ox_fail(e, OX_EUSAGE, "input '%s' is drawn, and that needs a tensor type with a whole shape "
                     "(--input %s:DTYPE[SHAPE], such as float32[2,3])", c->in[i].name, c->in[i].name);
    if (concrete_dims(b, i, bump, dims)) {
      for (int d = 0; d < sh->rank; d++)
        if (sh->params && sh->params[d] && (dim_index(c, sh->params[d]) < 0 || b->sym[dim_index(c, sh->params[d])] < 0))
          return ox_fail(e, OX_EUSAGE, "input '%s' is drawn, and its symbolic dim %s needs a size: --dim %s=SIZE",
                         c->in[i].name, sh->params[d], sh->params[d]);
      return ox_fail(e, OX_EUSAGE, "input '%s' is drawn, and that needs a tensor type with a whole shape, not %s "
                     "(--input %s:DTYPE[SHAPE], such as float32[2,3])", c->in[i].name, c->in[i].type, c->in[i].name);
    }
    OX_TRY(ox_draw_tensor(A, sh->type->elem, sh->rank, dims, &c->in[i], s, &vals[g], e));
    *drew = 1;
  }
  return 0;
}

/* Run the node: 0, or the error in e. */
static int evaluate(ox_arena *A, built *b, ox_value **vals, ox_value **res, ox_err *e) {
  if (!b->prepared) {
    OX_TRY(ox_api_model_prepare(A, &b->m, &ox_cli_run, e)); /* --timeout bounds it too */
    b->prepared = 1;
  }
  return ox_api_model_run(A, &b->m, &ox_cli_run, vals, res, e);
}

/* Check the case (operator, opsets) and build its model; the given values
 * loaded. 0, or the exit status (the error said). */
static int resolve(ox_arena *A, built *b, const mk_case *c) {
  memset(b, 0, sizeof *b);
  b->c = c;
  b->label = c->name ? ox_sprintf(A, "case '%s': ", c->name) : "";
  if (!b->label) { /* the label could not be formatted: said without it */
    b->label = "";
    return fail_oom(b);
  }
  const char *domain = c->domain && strcmp(c->domain, "ai.onnx") ? c->domain : "";
  int64_t newest = newest_opset(domain), opset = c->opset ? c->opset : newest;
  if (!newest) {
    if (!c->force)
      return fail(b, OX_EUSAGE, "onnxop knows no operator of domain '%s' (its domains: ai.onnx, ai.onnx.ml, "
                  "ai.onnx.preview, ai.onnx.preview.training, com.microsoft); --force writes the model anyway", domain);
    if (!opset) return fail(b, OX_EUSAGE, "--opset is needed for domain '%s', which onnxop does not know", domain);
  } else if (opset > newest) {
    return fail(b, OX_EUSAGE, "%s opset %lld is past the newest onnxop knows (%lld)", domain_name(domain),
                (long long)opset, (long long)newest);
  }
  if (newest && !ox_registry_has_op(domain, c->op)) {
    no_such_op(b->label, c->op, domain, c->force);
    if (!c->force) return OX_EUSAGE;
  } else if (newest && !ox_registry_find(domain, c->op, opset)) {
    char why[256];
    ox_registry_why(domain, c->op, opset, why, sizeof why);
    fprintf(stderr, "onnxop make: %s%s%s-%lld (%s): %s%s\n", c->force ? "warning: " : "", b->label, c->op,
            (long long)opset, domain_name(domain), why, c->force ? "" : " (--force writes the model anyway)");
    if (!c->force) return OX_EUNSUPPORTED;
  }
  char dep[256]; /* a version onnx's checker refuses, written all the same (as `info` says) */
  if (newest && ox_registry_deprecation(ox_registry_find(domain, c->op, opset), dep, sizeof dep))
    fprintf(stderr, "onnxop make: warning: %s%s\n", b->label, dep);
  /* the opset imports and the IR version they need */
  b->ops[0] = (ox_opset){domain, opset};
  b->m.nopset = 1;
  int64_t ir = ir_for(domain, opset);
  if (*domain) {
    int64_t v = onnx_beside(domain, opset, newest_opset(""));
    b->ops[1] = (ox_opset){"", v};
    b->m.nopset = 2;
    if (ir_for("", v) > ir) ir = ir_for("", v);
  }
  if (c->ir) {
    if (c->ir < ir)
      return fail(b, OX_EUSAGE, "--ir-version %lld is too old: %s opset %lld needs IR version %lld or later "
                  "(onnx's helper.VERSION_TABLE)", (long long)c->ir, domain_name(domain), (long long)opset,
                  (long long)ir);
    if (c->ir > IR_NEWEST)
      return fail(b, OX_EUSAGE, "--ir-version %lld is past the newest IR version onnxop knows (%d)",
                  (long long)c->ir, IR_NEWEST);
    ir = c->ir;
  }
  b->m.ir_version = ir;
  b->m.opset = b->ops;
  b->m.graph = &b->g;
  b->m.dir = ".";

  /* the declared types, and the given values */
  b->in = ox_alloc_array(A, c->nin + 1, sizeof *b->in);
  b->out = ox_alloc_array(A, c->nout + 1, sizeof *b->out);
  b->given = ox_alloc_array(A, c->nin + 1, sizeof *b->given);
  b->slot = ox_alloc_array(A, c->nin + 1, sizeof *b->slot);
  b->sym = ox_alloc_array(A, c->ndim + 1, sizeof *b->sym);
  b->g.in = ox_alloc_array(A, c->nin + 1, sizeof *b->g.in);
  b->g.out = ox_alloc_array(A, c->nout + 1, sizeof *b->g.out);
  b->node.in = ox_alloc_array(A, c->nin + 1, sizeof *b->node.in);
  b->node.out = ox_alloc_array(A, c->nout + 1, sizeof *b->node.out);
  if (!b->in || !b->out || !b->given || !b->slot || !b->sym || !b->g.in || !b->g.out || !b->node.in || !b->node.out)
    return fail_oom(b);
  for (int k = 0; k < c->ndim; k++) b->sym[k] = c->dim[k].size;
  char why[200];
  for (int i = 0; i < c->nin; i++) {
    const mk_input *in = &c->in[i];
    b->in[i] = (shaped){NULL, -1, NULL, NULL};
    b->slot[i] = -1;
    b->node.in[i] = in->name;
    if (!*in->name) continue;
    if (in->type && parse_shaped(A, in->type, &b->in[i], why, sizeof why))
      return !why[0] ? fail_oom(b) : fail(b, OX_EUSAGE, "input '%s': '%s' is not a type: %s", in->name, in->type, why);
    if (in->file || in->json) {
      ox_err le = {0};
      const ox_type *want = b->in[i].type;
      int rc = in->file ? ox_api_value_load(A, in->file, want, &b->given[i], NULL, &le)
                        : ox_api_value_json(A, in->json, strlen(in->json), want, &b->given[i], &le);
      if (rc) return fail(b, rc, "input '%s': %s: %s", in->name, in->file ? in->file : "its \"value\"", le.msg);
      const ox_value *v = b->given[i];
      shaped *s = &b->in[i];
      if (!s->type) s->type = ox_value_type(A, v);
      if (v->kind == OX_TENSOR && s->rank < 0) {
        s->rank = v->u.t.rank;
        s->dims = v->u.t.dims;
      } else if (v->kind == OX_TENSOR) { /* the value must have the declared shape */
        char sb[256], vb[256];
        int ok = s->rank == v->u.t.rank;
        for (int d = 0; ok && d < s->rank; d++) {
          if (s->dims[d] >= 0) {
            ok = s->dims[d] == v->u.t.dims[d];
          } else if (s->params && s->params[d]) { /* the value gives the symbol its size */
            int k = dim_index(c, s->params[d]);
            if (k < 0) continue;
            if (b->sym[k] < 0) b->sym[k] = v->u.t.dims[d];
            ok = b->sym[k] == v->u.t.dims[d];
          }
        }
        if (!ok)
          return fail(b, OX_EUSAGE, "input '%s': the value's shape %s is not the declared %s", in->name,
                      ox_shape_str(v->u.t.rank, v->u.t.dims, vb, sizeof vb), in->type);
        (void)sb;
      }
    }
    if (!b->in[i].type && !c->force)
      return fail(b, OX_EUSAGE, "input '%s' has no type: give --input %s:TYPE, or its value with --in %s=FILE",
                  in->name, in->name, in->name);
    /* onnx.checker refuses a graph input or output tensor without a shape */
    if (b->in[i].type && b->in[i].type->kind == OX_TENSOR && b->in[i].rank < 0 && !c->force)
      return fail(b, OX_EUSAGE, "input '%s' needs a shape (onnx.checker refuses a tensor without one): --input "
                  "%s:DTYPE[SHAPE] (DTYPE[] for a scalar; ? or a symbol such as N for a dim of any size), or its "
                  "value with --in %s=FILE", in->name, in->name, in->name);
    b->slot[i] = b->g.nin;
    b->g.in[b->g.nin++] = (ox_valueinfo){in->name, b->in[i].type, b->in[i].rank, b->in[i].dims, b->in[i].params};
  }
  for (int i = 0; i < c->nout; i++) {
    const mk_output *o = &c->out[i];
    b->out[i] = (shaped){NULL, -1, NULL, NULL};
    if (o->type && parse_shaped(A, o->type, &b->out[i], why, sizeof why))
      return !why[0] ? fail_oom(b) : fail(b, OX_EUSAGE, "output '%s': '%s' is not a type: %s", o->name, o->type, why);
    b->node.out[i] = o->name;
    b->g.out[i] = (ox_valueinfo){o->name, b->out[i].type, b->out[i].rank, b->out[i].dims, b->out[i].params};
  }
  b->g.nout = c->nout;
  b->node.name = "node";
  b->node.op = c->op;
  b->node.domain = domain;
  b->node.nin = c->nin;
  b->node.nout = c->nout;
  b->node.nattr = c->nattr;
  b->node.attr = c->attr;
  if (!(b->g.name = ox_sprintf(A, "%s_graph", c->op))) return fail_oom(b);
  b->g.node = &b->node;
  b->g.nnode = 1;
  return 0;
}

/* Give each output the type and shape the evaluation gave (res), unless
 * declared; with symbolic input dims, res2 (all symbols one larger) tells
 * which output dims follow a symbol. Declared types must match. */
static int set_outputs(ox_arena *A, built *b, ox_value **res, ox_value **res2) {
  const mk_case *c = b->c;
  for (int i = 0; i < c->nout; i++) {
    ox_valueinfo *vi = &b->g.out[i];
    const ox_value *v = res[i];
    if (!v) continue; /* an optional output the node did not produce */
    const ox_type *t = ox_value_type(A, v);
    if (vi->type && !ox_value_fits(v, vi->type)) {
      char tb[256], vb[256];
      return fail(b, OX_EUSAGE, "output '%s' is declared %s but %s computes %s", vi->name,
                  ox_type_str(vi->type, tb, sizeof tb), c->op, ox_value_desc(v, vb, sizeof vb));
    }
    if (!vi->type) vi->type = t;
    int symbolic = 0;
    for (int j = 0; j < c->nin; j++)
      for (int d = 0; b->in[j].params && d < b->in[j].rank; d++) symbolic |= b->in[j].params[d] != NULL;
    if (v->kind == OX_TENSOR && vi->rank >= 0) { /* a declared shape must fit */
      int ok = vi->rank == v->u.t.rank;
      for (int d = 0; ok && d < vi->rank; d++) ok = vi->dims[d] < 0 || vi->dims[d] == v->u.t.dims[d];
      char sb[256];
      if (!ok)
        return fail(b, OX_EUSAGE, "output '%s' is declared %s but %s computes shape %s", vi->name, c->out[i].type,
                    c->op, ox_shape_str(v->u.t.rank, v->u.t.dims, sb, sizeof sb));
    }
    if (v->kind != OX_TENSOR || vi->rank >= 0 || vi->type->kind != OX_TENSOR) continue;
    const ox_value *w = res2 ? res2[i] : NULL;
    vi->rank = v->u.t.rank;
    vi->dims = ox_alloc_array(A, vi->rank + 1, sizeof *vi->dims);
    if (!vi->dims) return fail_oom(b);
    for (int d = 0; d < vi->rank; d++) vi->dims[d] = symbolic && !w ? -1 : v->u.t.dims[d];
    if (!symbolic || !w || w->kind != OX_TENSOR || w->u.t.rank != vi->rank) continue;
    /* a dim that grew with the symbols is the symbol whose size it had */
    for (int d = 0; d < vi->rank; d++) {
      if (w->u.t.dims[d] == v->u.t.dims[d]) continue;
      vi->dims[d] = -1;
      for (int k = 0; k < c->ndim; k++)
        if (b->sym[k] == v->u.t.dims[d] && w->u.t.dims[d] == b->sym[k] + 1) {
          if (!vi->dim_param && !(vi->dim_param = ox_alloc_array(A, vi->rank, sizeof *vi->dim_param)))
            return fail_oom(b);
          vi->dim_param[d] = c->dim[k].name;
          break;
        }
    }
  }
  return 0;
}

/* "output 'y' holds NaN or Inf ..." naming the drawn inputs and the flags */
static int nan_refused(const built *b, int set, int out) {
  const mk_case *c = b->c;
  char names[512] = "";
  size_t n = 0;
  const char *first = NULL;
  for (int i = 0; i < c->nin; i++)
    if (b->slot[i] >= 0 && !b->given[i] && !c->in[i].ranged && n < sizeof names - 64) {
      n += (size_t)snprintf(names + n, sizeof names - n, "%s'%s'", n ? ", " : "", c->in[i].name);
      if (!first) first = c->in[i].name;
    }
  if (first)
    return fail(b, OX_EINPUT, "output '%s' of data set %d holds NaN or infinity for the drawn inputs: draw %s "
                "in range (--range %s=LO:HI; in a spec \"range\": [LO, HI]), or keep them with --allow-nan",
                c->out[out].name, set, names, first);
  return fail(b, OX_EINPUT, "output '%s' of data set %d holds NaN or infinity for the drawn inputs: narrow "
              "their --range, or keep them with --allow-nan", c->out[out].name, set);
}

/* A case folder that holds data sets or values this case does not write
 * would mix old and new data: refused (the folder is left as it is). */
static int stale(const built *b, const char *dir, int sets, int nin, int nout) {
  /* the folder ox_mkdir_p found, listed through its descriptor */
  int fd = ox_out_folder_fd(dir), lfd = fd < 0 ? -1 : openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = lfd < 0 ? NULL : fdopendir(lfd);
  if (!d) {
    if (lfd >= 0) close(lfd);
    return 0;
  }
  int rc = 0;
  for (struct dirent *de; !rc && (de = readdir(d));) {
    int k;
    char tail;
    if (sscanf(de->d_name, "test_data_set_%d%c", &k, &tail) != 1) continue;
    if (k >= sets) {
      rc = fail(b, OX_EINPUT, "%s/%s is from before (this case writes %d data set%s); remove it first", dir,
                de->d_name, sets, sets == 1 ? "" : "s");
      break;
    }
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
    /* a symlink there is not followed (ox_mkdir_p refuses it below) */
    int sfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *s = sfd < 0 ? NULL : fdopendir(sfd);
    if (!s && sfd >= 0) close(sfd);
    for (struct dirent *f; s && !rc && (f = readdir(s));) {
      int j, isin = !strncmp(f->d_name, "input_", 6);
      if (!isin && strncmp(f->d_name, "output_", 7)) continue;
      if (sscanf(f->d_name + (isin ? 6 : 7), "%d", &j) != 1) continue;
      size_t l = strlen(f->d_name);
      if (j >= (isin ? nin : nout) || l < 3 || strcmp(f->d_name + l - 3, ".pb"))
        rc = fail(b, OX_EINPUT, "%s/%s is from before (this case writes %s_0.pb .. %s_%d.pb); remove it first", sub,
                  f->d_name, isin ? "input" : "output", isin ? "input" : "output", (isin ? nin : nout) - 1);
    }
    if (s) closedir(s);
  }
  closedir(d);
  return rc;
}

/* ox_mkdir_p for the case: the first `named` bytes of dir are the command
 * line's; the error said, its status returned */
static int make_folder(const built *b, const char *dir, size_t named) {
  ox_err e = {0};
  int rc = ox_mkdir_p(dir, named, &e);
  return rc ? fail(b, rc, "%s", e.msg) : 0;
}

static int save(const built *b, const char *path, const ox_value *v, const char *name) {
  ox_err e = {0};
  if (!path) return fail_oom(b);
  if (ox_save_value(path, OX_FMT_PB, v, name, &e)) return fail(b, e.code ? e.code : OX_EINPUT, "%s: %s", path, e.msg);
  return 0;
}

/* data.json: the tolerances `onnxop test` reads, and where the case came from */
static int write_data_json(ox_arena *A, const built *b, const char *dir) {
  const mk_case *c = b->c;
  size_t failures = ox_mem_failures(); /* the cJSON_Add* below say nothing */
  cJSON *o = cJSON_CreateObject(), *p = NULL;
  if (o && c->has_rtol) cJSON_AddNumberToObject(o, "rtol", c->rtol);
  if (o && c->has_atol) cJSON_AddNumberToObject(o, "atol", c->atol);
  if (o && (p = cJSON_AddObjectToObject(o, "provenance"))) {
    cJSON_AddStringToObject(p, "onnxop", OX_VERSION);
    cJSON_AddStringToObject(p, "op", c->op);
    cJSON_AddStringToObject(p, "domain", domain_name(b->node.domain));
    cJSON_AddNumberToObject(p, "opset", (double)b->ops[0].version);
    cJSON_AddNumberToObject(p, "ir_version", (double)b->m.ir_version);
    char sb[32];
    snprintf(sb, sizeof sb, "%llu", (unsigned long long)c->seed);
    if (!c->random) cJSON_AddNullToObject(p, "seed");
    else if (c->seed < (UINT64_C(1) << 53)) cJSON_AddNumberToObject(p, "seed", (double)c->seed);
    else cJSON_AddStringToObject(p, "seed", sb);
    cJSON_AddNumberToObject(p, "datasets", c->datasets);
    for (cJSON *x = c->prov ? c->prov->child : NULL; x; x = x->next) cJSON_AddItemReferenceToObject(p, x->string, x);
  }
  char *text = o && ox_mem_failures() == failures ? cJSON_Print(o) : NULL;
  cJSON_Delete(o);
  if (!text) return fail_oom(b);
  ox_buf buf = {(uint8_t *)text, strlen(text), strlen(text)};
  ox_err e = {0};
  const char *path = ox_sprintf(A, "%s/data.json", dir);
  int rc = path ? ox_write_file_tmp(path, &buf, &e) : ox_oom(&e, NULL);
  cJSON_free(text);
  return rc ? fail(b, rc, "%s: %s", path ? path : dir, e.msg) : 0;
}

/* Build one concrete case and write its files as temporaries (committed by
 * the caller): the model at model_path, and with case_dir the data sets and
 * data.json (the first `named` bytes of case_dir are the command line's:
 * no symlink past them is followed). */
static int make_one(ox_arena *A, const mk_case *c, const char *model_path, const char *case_dir, size_t named) {
  built b;
  ox_err e = {0};
  int rc = resolve(A, &b, c);
  if (rc) return rc;
  int nin = b.g.nin, nout = c->nout;
  ox_value **vals = ox_alloc_array(A, nin + 1, sizeof *vals), **res = ox_alloc_array(A, nout + 1, sizeof *res);
  ox_value **vals2 = ox_alloc_array(A, nin + 1, sizeof *vals2), **res2 = ox_alloc_array(A, nout + 1, sizeof *res2);
  if (!vals || !res || !vals2 || !res2) return fail_oom(&b);
  int symbolic = 0, drawn = 0;
  for (int i = 0; i < c->nin; i++) {
    for (int d = 0; b.in[i].params && d < b.in[i].rank; d++) symbolic |= b.in[i].params[d] != NULL;
    drawn |= b.slot[i] >= 0 && !b.given[i];
  }
  if (case_dir) {
    if (drawn && !c->random) {
      for (int i = 0; i < c->nin; i++)
        if (b.slot[i] >= 0 && !b.given[i])
          return fail(&b, OX_EUSAGE, "input '%s' has no value: give it with --in %s=FILE, or draw it with "
                      "--random SEED", c->in[i].name, c->in[i].name);
    }
    if ((rc = make_folder(&b, case_dir, named)) || (rc = stale(&b, case_dir, c->datasets, nin, nout))) return rc;
    uint64_t s = c->seed;
    ox_mark later = {0}; /* data sets after the first are released once written */
    for (int set = 0; set < c->datasets; set++) {
      int drew;
      if (set > 1) ox_arena_release(A, later);
      if (set == 1) later = ox_arena_mark(A);
      if (draw_inputs(A, &b, &s, 0, vals, &drew, &e) || evaluate(A, &b, vals, res, &e)) {
        return fail(&b, e.code ? e.code : OX_EINPUT, "%s%s", e.msg,
                    drew && b.prepared ? " (the inputs were drawn: --range NAME=LO:HI draws an input in range, "
                                         "--in NAME=FILE gives its value)" : "");
      }
      for (int k = 0; drew && !c->allow_nan && k < nout; k++)
        if (nonfinite(res[k])) return nan_refused(&b, set, k);
      if (set == 0) {
        int ok2 = symbolic && drawn;
        for (int i = 0; ok2 && i < c->nin; i++) ok2 = b.slot[i] < 0 || !b.given[i];
        uint64_t s2 = c->seed;
        if (ok2 && (draw_inputs(A, &b, &s2, 1, vals2, &drew, &e) || evaluate(A, &b, vals2, res2, &e))) ok2 = 0;
        if ((rc = set_outputs(A, &b, res, ok2 ? res2 : NULL))) return rc;
        ox_err_clear(&e);
      }
      char *dir = ox_sprintf(A, "%s/test_data_set_%d", case_dir, set);
      if (!dir) return fail_oom(&b);
      if ((rc = make_folder(&b, dir, named))) return rc;
      for (int i = 0; i < nin; i++)
        if ((rc = save(&b, ox_sprintf(A, "%s/input_%d.pb", dir, i), vals[i], b.g.in[i].name))) return rc;
      for (int k = 0; k < nout; k++)
        if ((rc = save(&b, ox_sprintf(A, "%s/output_%d.pb", dir, k), res[k], c->out[k].name))) return rc;
    }
    if ((rc = write_data_json(A, &b, case_dir))) return rc;
  } else {
    /* the model alone: the node must be one onnxop can run (--force lets it
     * through); evaluated on drawn inputs (seed 0) for the outputs' types
     * and shapes, unless they are all declared */
    if (ox_api_model_prepare(A, &b.m, NULL, &e)) {
      if (!c->force) return fail(&b, e.code ? e.code : OX_EINPUT, "%s (--force writes the model anyway)", e.msg);
      fprintf(stderr, "onnxop make: warning: %s%s\n", b.label, e.msg);
    } else {
      b.prepared = 1;
    }
    int declared = 1, typed = 1;
    for (int k = 0; k < nout; k++) {
      typed &= b.out[k].type != NULL;
      declared &= b.out[k].type != NULL && (b.out[k].rank >= 0 || b.out[k].type->kind != OX_TENSOR);
    }
    uint64_t s = 0, s2 = 0;
    int drew;
    if (b.prepared) { /* also when all are declared: the evaluation checks them */
      ox_err_clear(&e);
      rc = draw_inputs(A, &b, &s, 0, vals, &drew, &e) || evaluate(A, &b, vals, res, &e);
      int ok2 = !rc && symbolic && !(draw_inputs(A, &b, &s2, 1, vals2, &drew, &e) || evaluate(A, &b, vals2, res2, &e));
      if (!rc && (rc = set_outputs(A, &b, res, ok2 ? res2 : NULL))) return rc;
      if (rc && declared) rc = 0; /* declared outputs need no evaluation */
      if (rc && !typed && !c->force)
        return fail(&b, e.code ? e.code : OX_EINPUT, "cannot compute the outputs' types: %s (give each "
                    "--output NAME:TYPE, or input shapes, attributes and --range NAME=LO:HI the node can run on)",
                    e.msg);
      for (int k = 0; rc && k < nout && !c->force; k++)
        if (b.out[k].type && b.out[k].type->kind == OX_TENSOR && b.out[k].rank < 0)
          return fail(&b, e.code ? e.code : OX_EINPUT, "cannot compute the shape of output '%s': %s (onnx.checker "
                      "refuses a tensor without one: give --output %s:DTYPE[SHAPE], ? for a dim of any size)",
                      c->out[k].name, e.msg, c->out[k].name);
      rc = 0;
    }
  }
  uint8_t *bytes;
  size_t len;
  if ((rc = ox_api_model_encode(A, &b.m, &bytes, &len, &e))) return fail(&b, rc, "%s", e.msg);
  ox_buf buf = {bytes, len, len};
  const char *path = model_path ? model_path : ox_sprintf(A, "%s/model.onnx", case_dir);
  if (!path) return fail_oom(&b);
  if ((rc = ox_write_file_tmp(path, &buf, &e))) return fail(&b, rc, "%s: %s", path, e.msg);
  return 0;
}

/* ---- sweeps ---- */

/* MatMulInteger -> mat_mul_integer, LSTM -> lstm, ReduceL2 -> reduce_l2 */
static char *snake(ox_arena *A, const char *op) {
  size_t n = strlen(op), k = 0;
  char *s = ox_alloc(A, 2 * n + 1);
  if (!s) return NULL;
  for (size_t i = 0; i < n; i++) {
    char c = op[i], prev = i ? op[i - 1] : 0, next = op[i + 1];
    int up = c >= 'A' && c <= 'Z';
    int prev_low = (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9');
    int prev_up = prev >= 'A' && prev <= 'Z', next_low = next >= 'a' && next <= 'z';
    if (i && up && (prev_low || (prev_up && next_low)) && k && s[k - 1] != '_') s[k++] = '_';
    s[k++] = up ? (char)(c + 32) : c;
  }
  s[k] = 0;
  return s;
}

/* a case's folder name: one safe path component */
static int safe_name(const char *s) {
  if (!*s || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > 200) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
          *s == '-' || *s == '.'))
      return 0;
  return 1;
}

/* Append c, made concrete for (opset, dt) (0: as it is), to the list. */
static int add_case(ox_arena *A, const mk_case *c, int64_t opset, ox_dtype dt, cJSON *keep, mk_case **list,
                    int *n, int *cap) {
  if (*n == *cap) {
    int nc = *cap * 2 + 16;
    mk_case *l = ox_alloc_array(A, nc, sizeof *l);
    if (!l) return -1;
    if (*n) memcpy(l, *list, (size_t)*n * sizeof *l);
    *list = l;
    *cap = nc;
  }
  mk_case *x = &(*list)[(*n)++];
  *x = *c;
  if (opset) x->opset = opset;
  const char *tname = dt ? ox_dtypes[dt].onnx_name : NULL;
  if (dt) {
    x->in = ox_alloc_array(A, c->nin + 1, sizeof *x->in);
    x->out = ox_alloc_array(A, c->nout + 1, sizeof *x->out);
    if (!x->in || !x->out) return -1;
    for (int i = 0; i < c->nin; i++) {
      x->in[i] = c->in[i];
      x->in[i].type = substitute(A, c->in[i].type, c->each_type, tname);
      if (c->in[i].type && !x->in[i].type) return -1;
    }
    for (int i = 0; i < c->nout; i++) {
      x->out[i] = c->out[i];
      x->out[i].type = substitute(A, c->out[i].type, c->each_type, tname);
      if (c->out[i].type && !x->out[i].type) return -1;
    }
  }
  if (c->each_opset || c->each_type || !c->name) {
    const char *sn = c->name ? NULL : snake(A, c->op);
    const char *base = c->name ? c->name : sn ? ox_sprintf(A, "test_%s", sn) : NULL;
    if (base && c->each_opset) base = ox_sprintf(A, "%s_v%lld", base, (long long)opset);
    if (base && dt) base = ox_sprintf(A, "%s_%s", base, tname);
    if (!base) return -1; /* out of memory */
    x->name = base;
  }
  if (c->each_opset || dt) { /* the provenance says which case of the sweep */
    size_t failures = ox_mem_failures(); /* the cJSON_Add* below say nothing */
    if (!(x->prov = cJSON_Duplicate(c->prov, 1))) return -1;
    cJSON_AddItemToArray(keep, x->prov); /* freed with keep */
    cJSON *sw = cJSON_AddObjectToObject(x->prov, "sweep");
    if (sw && c->each_opset) cJSON_AddNumberToObject(sw, "opset", (double)opset);
    if (sw && dt) cJSON_AddStringToObject(sw, c->each_type, tname);
    if (ox_mem_failures() != failures) return -1;
  }
  return 0;
}

/* The concrete cases of c: one per since-version (each_opset) and element
 * type (each_type). 0, or the exit status (the error said). */
static int expand(ox_arena *A, const mk_case *c, cJSON *keep, mk_case **list, int *n, int *cap) {
  int first = *n;
  const char *label = c->name ? ox_sprintf(A, "case '%s': ", c->name) : "";
  if (!label) goto oom;
  const char *domain = c->domain && strcmp(c->domain, "ai.onnx") ? c->domain : "";
  int64_t sinces[256];
  int ns = 0;
  if (c->each_opset) {
    if (!ox_registry_has_op(domain, c->op)) {
      no_such_op(label, c->op, domain, 0);
      return OX_EUSAGE;
    }
    for (const ox_family *f = ox_families; f->family; f++)
      for (const ox_kernel *k = f->rows; k->op; k++) {
        if (!ox_domain_eq(k->domain, domain) || strcmp(k->op, c->op)) continue;
        int dup = 0;
        for (int j = 0; j < ns; j++) dup |= sinces[j] == k->since;
        if (!dup && ns < 256) {
          int j = ns++; /* sorted */
          while (j > 0 && sinces[j - 1] > k->since) sinces[j] = sinces[j - 1], j--;
          sinces[j] = k->since;
        }
      }
  } else {
    sinces[ns++] = 0;
  }
  for (int s = 0; s < ns; s++) {
    if (!c->each_type) {
      if (add_case(A, c, sinces[s], 0, keep, list, n, cap)) goto oom;
      continue;
    }
    uint64_t mask = 0;
    int64_t v = sinces[s] ? sinces[s] : c->opset ? c->opset : newest_opset(domain);
    const ox_kernel *k = ox_registry_find(domain, c->op, v);
    if (c->each_list) { /* the types given, as far as the op-version takes them */
      char *l = ox_strdup(A, c->each_list);
      int words = 0;
      if (!l) goto oom;
      for (char *w = l ? strtok(l, ", ") : NULL; w; w = strtok(NULL, ", "), words++) {
        ox_dtype dt = ox_dtype_from_name(w);
        if (!dt) {
          fprintf(stderr, "onnxop make: %s--for-each-type %s: '%s' is not a dtype\n", label, c->each_type, w);
          return OX_EUSAGE;
        }
        mask |= UINT64_C(1) << dt;
      }
      if (k && k->types) mask &= k->types;
      if (!words) {
        fprintf(stderr, "onnxop make: %s--for-each-type %s=: no types given\n", label, c->each_type);
        return OX_EUSAGE;
      }
    } else {
      if (!k) {
        if (!ox_registry_has_op(domain, c->op)) no_such_op(label, c->op, domain, 0);
        else fprintf(stderr, "onnxop make: %s%s-%lld: no implementation to sweep the types of\n", label, c->op, (long long)v);
        return k || !ox_registry_has_op(domain, c->op) ? OX_EUSAGE : OX_EUNSUPPORTED;
      }
      if (!(mask = k->types)) {
        fprintf(stderr, "onnxop make: %s%s-%lld has no type constraint to sweep; give the types: --for-each-type "
                "%s=float,int64,...\n", label, c->op, (long long)v, c->each_type);
        return OX_EUSAGE;
      }
    }
    for (int dt = 1; dt < OX_DTYPE_MAX; dt++)
      if (mask & (UINT64_C(1) << dt) && add_case(A, c, sinces[s], (ox_dtype)dt, keep, list, n, cap)) goto oom;
  }
  if (*n == first) { /* a sweep of nothing would write nothing, and succeed */
    fprintf(stderr, "onnxop make: %s--for-each-type %s=%s: %s takes none of these types%s (`onnxop ops %s` lists "
            "those it takes)\n", label, c->each_type, c->each_list ? c->each_list : "", c->op,
            c->each_opset ? " at any opset" : "", c->op);
    return OX_EUSAGE;
  }
  return 0;
oom:
  return ox_cli_oom("make", NULL);
}

/* ---- the command line ---- */

enum {
  O_HELP, O_DOMAIN, O_OPSET, O_IR, O_ATTR, O_INPUT, O_OUTPUT, O_DIM, O_MODEL, O_CASE, O_SUITE, O_NAME,
  O_IN, O_RANDOM, O_RANGE, O_ALLOW_NAN, O_DATASETS, O_EACH_TYPE, O_EACH_OPSET, O_SPEC, O_RTOL, O_ATOL,
  O_FORCE,
};
static const ox_opt make_opts[] = {
    [O_HELP] = {"--help", "-h", NULL},
    [O_DOMAIN] = {"--domain", NULL, "a domain"},
    [O_OPSET] = {"--opset", NULL, "a version"},
    [O_IR] = {"--ir-version", NULL, "a version"},
    [O_ATTR] = {"-a", "--attr", "NAME=VALUE"},
    [O_INPUT] = {"--input", NULL, "NAME[:TYPE]"},
    [O_OUTPUT] = {"--output", NULL, "NAME[:TYPE]"},
    [O_DIM] = {"--dim", NULL, "NAME=SIZE"},
    [O_MODEL] = {"-o", "--out", "a path"},
    [O_CASE] = {"--case", NULL, "a path"},
    [O_SUITE] = {"--suite", NULL, "a path"},
    [O_NAME] = {"--name", NULL, "a NAME"},
    [O_IN] = {"--in", NULL, "a FILE"},
    [O_RANDOM] = {"--random", NULL, "a SEED"},
    [O_RANGE] = {"--range", NULL, "NAME=LO:HI"},
    [O_ALLOW_NAN] = {"--allow-nan", NULL, NULL},
    [O_DATASETS] = {"--datasets", NULL, "a count"},
    [O_EACH_TYPE] = {"--for-each-type", NULL, "T[=DTYPE,...]"},
    [O_EACH_OPSET] = {"--for-each-opset", NULL, NULL},
    [O_SPEC] = {"--spec", NULL, "a FILE"},
    [O_RTOL] = {"--rtol", NULL, "a number"},
    [O_ATOL] = {"--atol", NULL, "a number"},
    [O_FORCE] = {"--force", NULL, NULL},
    {NULL, NULL, NULL},
};

/* a whole decimal number in [lo, hi] */
static int whole(const char *s, int64_t lo, int64_t hi, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (!*s || *end || errno || x < lo || x > hi || !((*s >= '0' && *s <= '9') || *s == '-')) return -1;
  *v = x;
  return 0;
}

int ox_parse_seed(const char *v, uint64_t *seed) {
  char *end;
  errno = 0;
  unsigned long long sv = strtoull(v, &end, 10);
  if (*end || !*v || v[0] == '-' || v[0] == '+' || v[0] == ' ' || errno) return -1;
  *seed = sv;
  return 0;
}

int ox_parse_range(const char *s, double *lo, double *hi) {
  char *end;
  *lo = strtod(s, &end);
  if (end == s || *end != ':') return -1;
  const char *h = end + 1;
  *hi = strtod(h, &end);
  return end == h || *end || !isfinite(*lo) || !isfinite(*hi) || *lo > *hi ? -1 : 0;
}

int ox_cmd_make(int argc, char **argv) {
  size_t failures = ox_mem_failures(); /* a failure after this is a lie below */
  ox_arena *A = ox_arena_new();
  if (!A) return ox_cli_oom("make", NULL);
  ox_err e = {0};
  int rc = 0, nfiles = 0, nranges = 0;
  const char *model = NULL, *case_dir = NULL, *suite = NULL, *spec = NULL;
  mk_case c = {.datasets = 1};
  c.attr = ox_alloc_array(A, argc, sizeof *c.attr);
  c.in = ox_alloc_array(A, argc, sizeof *c.in);
  c.out = ox_alloc_array(A, argc + 1, sizeof *c.out);
  c.dim = ox_alloc_array(A, argc, sizeof *c.dim);
  const char **files = ox_alloc_array(A, argc, sizeof *files), **ranges = ox_alloc_array(A, argc, sizeof *ranges);
  cJSON *keep = cJSON_CreateArray(); /* the provenance objects, freed at the end */
  mk_case *list = NULL;
  int n = 0;
  if (!c.attr || !c.in || !c.out || !c.dim || !files || !ranges || !keep) goto oom;
  ox_optparse p;
  ox_opt_init(&p, "make", argc, argv, make_opts);
  const char *v;
  int64_t x;
  for (int k; !rc && (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    switch (k) {
    case OX_OPT_ERROR: rc = OX_EUSAGE; break;
    case OX_OPT_OPERAND:
      if (c.op) rc = ox_usage_error("make", "unexpected argument '%s' (one OP; inputs go with --in)", v);
      else if (!*v) rc = ox_usage_error("make", "OP is empty");
      else c.op = v;
      break;
    case O_HELP: fputs(make_help, stdout); goto done;
    case O_DOMAIN: c.domain = v; break;
    case O_OPSET:
      if (whole(v, 1, 100000, &c.opset)) rc = ox_usage_error("make", "--opset needs a positive number, not '%s'", v);
      break;
    case O_IR:
      if (whole(v, 1, 100000, &c.ir)) rc = ox_usage_error("make", "--ir-version needs a positive number, not '%s'", v);
      break;
    case O_ATTR:
      if (parse_attr(A, v, &c.attr[c.nattr++], &e)) {
        fprintf(stderr, "onnxop make: %s\n", e.msg);
        rc = e.code;
      }
      /* onnx.checker refuses a node with an attribute given twice */
      for (int i = 0; !rc && i < c.nattr - 1; i++)
        if (!strcmp(c.attr[i].name, c.attr[c.nattr - 1].name))
          rc = ox_usage_error("make", "attribute '%s' is given twice (-a %s)", c.attr[i].name, v);
      break;
    case O_INPUT:
    case O_OUTPUT: {
      const char *colon = strchr(v, ':');
      const char *name = colon ? ox_strndup(A, v, (size_t)(colon - v)) : v;
      if (!name) goto oom;
      if (k == O_INPUT) c.in[c.nin++] = (mk_input){.name = name, .type = colon ? colon + 1 : NULL};
      else if (!*name) rc = ox_usage_error("make", "--output %s: an output needs a NAME", v);
      else c.out[c.nout++] = (mk_output){name, colon ? colon + 1 : NULL};
      break;
    }
    case O_DIM: {
      const char *eq = strchr(v, '=');
      const char *name = eq ? ox_strndup(A, v, (size_t)(eq - v)) : "";
      if (!name) goto oom;
      if (!eq || !is_symbol(name, strlen(name)) || whole(eq + 1, 0, INT64_MAX, &x))
        rc = ox_usage_error("make", "--dim needs NAME=SIZE (such as N=4), not '%s'", v);
      else if (dim_index(&c, name) >= 0) rc = ox_usage_error("make", "--dim %s is given twice", name);
      else c.dim[c.ndim++] = (mk_dim){name, x};
      break;
    }
    case O_MODEL: model = v; break;
    case O_CASE: case_dir = v; break;
    case O_SUITE: suite = v; break;
    case O_NAME:
      if (!safe_name(v)) rc = ox_usage_error("make", "--name '%s' is not a folder name (letters, digits, _ - .)", v);
      c.name = v;
      break;
    case O_IN:
      if (!*v) rc = ox_usage_error("make", "--in needs a path, not an empty one");
      files[nfiles++] = v;
      break;
    case O_RANDOM:
      if (ox_parse_seed(v, &c.seed)) rc = ox_usage_error("make", "--random needs a seed: a number from 0 to 2^64-1, not '%s'", v);
      c.random = 1;
      break;
    case O_RANGE: ranges[nranges++] = v; break;
    case O_ALLOW_NAN: c.allow_nan = 1; break;
    case O_DATASETS:
      if (whole(v, 1, 10000, &x)) rc = ox_usage_error("make", "--datasets needs a count from 1 to 10000, not '%s'", v);
      c.datasets = (int)x;
      break;
    case O_EACH_TYPE: {
      const char *eq = strchr(v, '=');
      c.each_type = eq ? ox_strndup(A, v, (size_t)(eq - v)) : v;
      if (!c.each_type) goto oom;
      c.each_list = eq ? eq + 1 : NULL;
      if (!is_symbol(c.each_type, strlen(c.each_type)) || ox_dtype_from_name(c.each_type))
        rc = ox_usage_error("make", "--for-each-type needs a placeholder such as T (not a dtype), not '%s'", v);
      break;
    }
    case O_EACH_OPSET: c.each_opset = 1; break;
    case O_SPEC: spec = v; break;
    case O_RTOL:
    case O_ATOL: {
      char *end;
      double t = strtod(v, &end);
      if (end == v || *end || !(t >= 0) || !isfinite(t))
        rc = ox_usage_error("make", "%s needs a number >= 0, not '%s'", k == O_RTOL ? "--rtol" : "--atol", v);
      else if (k == O_RTOL) c.rtol = t, c.has_rtol = 1;
      else c.atol = t, c.has_atol = 1;
      break;
    }
    case O_FORCE: c.force = 1; break;
    }
  }
  if (rc) goto done;
  /* where the cases go */
  const char *paths[3] = {model, case_dir, suite};
  for (int i = 0; i < 3; i++)
    if (paths[i] && !*paths[i]) {
      rc = ox_usage_error("make", "%s needs a path, not an empty one", i == 0 ? "-o" : i == 1 ? "--case" : "--suite");
      goto done;
    }
  if (!model && !case_dir && !suite) rc = ox_usage_error("make", "give -o MODEL, --case DIR or --suite DIR");
  else if (suite && (model || case_dir)) rc = ox_usage_error("make", "--suite writes its cases' models itself: not with -o or --case");
  else if ((c.each_type || c.each_opset) && !suite) rc = ox_usage_error("make", "--for-each-type and --for-each-opset write several cases: give --suite DIR");
  else if (spec && !suite) rc = ox_usage_error("make", "--spec writes a suite: give --suite DIR");
  else if (spec && (c.op || c.nin || c.nout || c.nattr || nfiles || c.each_type || c.each_opset || c.name))
    rc = ox_usage_error("make", "with --spec the cases come from %s: give no OP, --input, --output, -a, --in, "
                        "--name or sweep there", spec);
  else if (!spec && !c.op) rc = ox_usage_error("make", "no OP given");
  else if (!case_dir && !suite && (nfiles || c.random || c.datasets > 1 || c.allow_nan || c.has_rtol || c.has_atol))
    rc = ox_usage_error("make", "%s is for --case and --suite", nfiles ? "--in" : c.random ? "--random" :
                        c.datasets > 1 ? "--datasets" : c.allow_nan ? "--allow-nan" : "--rtol/--atol");
  else if (c.opset && c.each_opset) rc = ox_usage_error("make", "use either --opset or --for-each-opset, not both");
  if (rc) goto done;
  if (spec) {
    if ((rc = ox_spec_load(A, spec, &list, &n, &e))) {
      fprintf(stderr, "onnxop make: %s: %s\n", spec, e.msg);
      goto done;
    }
    /* spec entries carry their sweeps; the flags given here add to them */
    for (int i = 0; i < n; i++) {
      cJSON_AddItemToArray(keep, list[i].prov); /* freed with keep */
      list[i].force |= c.force;
      list[i].allow_nan |= c.allow_nan;
    }
  } else {
    /* inputs: from --input, or one per --in file; --in NAME=FILE by name, the
     * others in order */
    if (!c.nin)
      for (int i = 0; i < nfiles; i++)
        if (!(c.in[c.nin++] = (mk_input){.name = ox_sprintf(A, "input_%d", i)}).name) goto oom;
    const char **names = ox_alloc_array(A, c.nin + 1, sizeof *names);
    char *taken = ox_alloc_array(A, c.nin + 1, 1);
    if (!names || !taken) goto oom;
    int nn = 0;
    for (int i = 0; i < c.nin; i++)
      if (*c.in[i].name) names[nn++] = c.in[i].name;
    for (int pass = 0; pass < 2 && !rc; pass++)
      for (int f = 0, pos = 0; f < nfiles && !rc; f++) {
        ox_binding bd;
        if ((rc = ox_split_binding("make", "input", files[f], nn, names, &bd))) break;
        if (!!bd.name != !pass) continue; /* named ones first */
        int slot = -1;
        for (int i = 0; i < c.nin && bd.name; i++)
          if (!strcmp(c.in[i].name, bd.name)) slot = i;
        while (!bd.name && pos < c.nin && (!*c.in[pos].name || taken[pos])) pos++;
        if (!bd.name) slot = pos < c.nin ? pos : -1;
        if (slot < 0) rc = ox_usage_error("make", "too many --in values: the node has %d inputs (%s is extra)", nn, files[f]);
        else if (taken[slot]++) rc = ox_usage_error("make", "input '%s' is given twice", c.in[slot].name);
        else c.in[slot].file = bd.file;
      }
    for (int r = 0; r < nranges && !rc; r++) {
      const char *eq = strchr(ranges[r], '=');
      int slot = -1;
      for (int i = 0; eq && i < c.nin; i++)
        if (*c.in[i].name && strlen(c.in[i].name) == (size_t)(eq - ranges[r]) && !strncmp(c.in[i].name, ranges[r], (size_t)(eq - ranges[r])))
          slot = i;
      double lo, hi;
      if (!eq || ox_parse_range(eq + 1, &lo, &hi))
        rc = ox_usage_error("make", "--range needs NAME=LO:HI with LO <= HI (such as x=0:1), not '%s'", ranges[r]);
      else if (slot < 0) {
        const char *typed = ox_strndup(A, ranges[r], (size_t)(eq - ranges[r]));
        if (!typed) goto oom;
        const char *near = ox_suggest(typed, names, nn);
        rc = ox_usage_error("make", "--range %s: the node has no input named '%.*s'%s%s%s", ranges[r], (int)(eq - ranges[r]),
                            ranges[r], near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
      } else if (c.in[slot].ranged) rc = ox_usage_error("make", "--range %s is given twice", c.in[slot].name);
      else c.in[slot].ranged = 1, c.in[slot].lo = lo, c.in[slot].hi = hi;
    }
    if (rc) goto done;
    if (!c.nout) c.out[c.nout++] = (mk_output){"output", NULL};
    /* the provenance: the command line */
    if (!(c.prov = cJSON_CreateObject())) goto oom;
    cJSON_AddItemToArray(keep, c.prov); /* freed with keep */
    cJSON *cmd = cJSON_AddArrayToObject(c.prov, "command");
    ox_cjson_push(cmd, cJSON_CreateString("onnxop"));
    for (int i = 0; i < argc; i++) ox_cjson_push(cmd, cJSON_CreateString(argv[i]));
    if (ox_mem_failures() != failures) goto oom;
    list = &c;
    n = 1;
  }
  /* the concrete cases */
  mk_case *all = NULL;
  int nall = 0, cap_all = 0;
  for (int i = 0; i < n && !rc; i++) rc = expand(A, &list[i], keep, &all, &nall, &cap_all);
  if (rc) goto done;
  if ((model || case_dir) && nall != 1) {
    rc = ox_usage_error("make", "-o and --case write one case");
    goto done;
  }
  for (int i = 0; suite && i < nall && !rc; i++) {
    if (!safe_name(all[i].name))
      rc = ox_usage_error("make", "case '%s': not a folder name (letters, digits, _ - .)", all[i].name);
    for (int j = 0; j < i && !rc; j++)
      if (!strcmp(all[i].name, all[j].name)) rc = ox_usage_error("make", "two cases are named '%s'", all[i].name);
  }
  if (rc) goto done;
  if (!suite) all[0].name = NULL; /* no case name in the messages of a single case */
  for (int i = 0; i < nall && !rc; i++) {
    ox_mark mk = ox_arena_mark(A);
    const char *dir = suite ? ox_sprintf(A, "%s/%s", suite, all[i].name) : case_dir;
    size_t named = suite ? strlen(suite) : case_dir ? strlen(case_dir) : 0; /* NAME is onnxop's */
    rc = dir || !suite ? make_one(A, &all[i], model, dir, named) : ox_cli_oom("make", NULL);
    ox_arena_release(A, mk);
  }
  /* a JSON or name that could not be made whole is not committed */
  if (!rc && ox_mem_failures() != failures) goto oom;
  if (!rc && (rc = ox_commit_files(&e))) fprintf(stderr, "onnxop make: %s\n", e.msg);
  goto done;
oom:
  rc = ox_cli_oom("make", NULL);
done:
  if (rc) ox_discard_files();
  cJSON_Delete(keep);
  ox_arena_free(A);
  return rc;
}
