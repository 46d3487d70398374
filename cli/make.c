/* cli/make.c: onnxop make OP ... builds a single-node model, and with --case
 * a whole ONNX test case whose outputs onnxop computes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/io.h"
#include "../proto/proto.h"
#include "cli.h"

static const char make_help[] =
    "usage: onnxop make OP [--domain D] [--opset N] [-a NAME[:KIND]=VALUE]...\n"
    "                      [--input NAME[:TYPE]]... [--output NAME[:TYPE]]...\n"
    "                      (-o MODEL | --case DIR (--in FILE... | --random SEED))\n"
    "\n"
    "Build a model of one OP node. With --case, write a whole ONNX test case:\n"
    "DIR/model.onnx, DIR/test_data_set_0/input_K.pb from the --in files (or drawn\n"
    "with --random), and output_K.pb computed by onnxop.\n"
    "\n"
    "  --opset N          the ai.onnx (or --domain) opset to import (default 21)\n"
    "  -a NAME=VALUE      an attribute: 3 (int), 1.5 (float), [1, 2] (ints),\n"
    "                     [0.5] (floats), [a, b] (strings: blanks around items\n"
    "                     dropped), text (string), @FILE (a tensor from a\n"
    "                     .pb or .json file). NAME:KIND=VALUE forces the kind: int,\n"
    "                     float, string, ints, floats, strings, tensor, type (an\n"
    "                     ONNX type string such as optional(tensor(float))).\n"
    "  --input NAME[:TYPE]  a node input; TYPE is an ONNX type string\n"
    "                     (seq(tensor(float))) or DTYPE[SHAPE] (float32[2,3]). An\n"
    "                     empty NAME is a missing optional input. Without TYPE it\n"
    "                     is taken from the matching --in file.\n"
    "  --output NAME[:TYPE] a node output (default: one output named 'output';\n"
    "                     with --case its type comes from the computed value).\n"
    "  --random SEED      with --case, instead of --in files: draw each input from\n"
    "                     its --input NAME:DTYPE[SHAPE] with a generator seeded by\n"
    "                     SEED (0 to 2^64-1); the same SEED gives the same bytes.\n"
    "                     Floats uniform in [-1, 1) (float8e8m0: [0, 1)), complex\n"
    "                     parts likewise; integers uniform in [-10, 10] (unsigned:\n"
    "                     [0, 10]; 4- and 2-bit types: as much as they hold); bools\n"
    "                     true or false; strings 1 to 8 letters a-z.\n"
    "\n"
    "exit status:\n"
    "  0      success\n"
    OX_EXIT_HELP_1
    OX_EXIT_HELP_2
    OX_EXIT_HELP_3
    OX_EXIT_HELP_SIGNAL;

/* "float32[2,3]" or an ONNX type string */
static const ox_type *parse_type_spec(ox_arena *A, const char *s, int *rank, int64_t **dims) {
  *rank = -1;
  *dims = NULL;
  const char *br = strchr(s, '[');
  if (!br) return ox_type_parse(A, s);
  char dt[64];
  size_t l = (size_t)(br - s);
  if (l >= sizeof dt) return NULL;
  memcpy(dt, s, l);
  dt[l] = 0;
  int64_t *d = ox_alloc_array(A, 64, sizeof *d);
  int r = 0;
  const char *p = br + 1;
  while (d && *p && *p != ']' && r < 64) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p) {
      if (*p == '?') { v = -1; end = (char *)p + 1; }
      else return NULL;
    }
    d[r++] = v;
    p = end;
    while (*p == ',' || *p == ' ') p++;
  }
  if (*p != ']') return NULL;
  *rank = r;
  *dims = d;
  return ox_type_tensor(ox_dtype_from_name(dt));
}

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
  if (kind && !strcmp(kind, "type")) {
    at->type = OX_ATTR_TYPE_PROTO;
    if (!(at->tp = ox_type_parse(A, val)))
      return ox_fail(e, OX_EUSAGE, "attribute '%s': '%s' is not an ONNX type", name, val);
    return 0;
  }
  if ((kind && !strcmp(kind, "tensor")) || val[0] == '@') {
    at->type = OX_ATTR_TENSOR;
    const char *file = val[0] == '@' ? val + 1 : val;
    if (ox_load_value(A, file, NULL, NULL, &at->t, NULL, e)) {
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
      if (!at->floats) return ox_oom(e, NULL);
      for (int64_t i = 0; i < n; i++) at->floats[i] = (float)v[i];
    } else {
      at->type = OX_ATTR_INTS;
      at->ints = ox_alloc_array(A, n + 1, sizeof *at->ints);
      if (!at->ints) return ox_oom(e, NULL);
      for (int64_t i = 0; i < n; i++) at->ints[i] = (int64_t)v[i];
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
    return ox_fail(e, OX_EUSAGE, "attribute '%s': unknown kind '%s'", name, kind);
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
  return lo + (int64_t)(next_u64(s) % (uint64_t)(hi - lo + 1));
}

/* A tensor of the declared dtype and shape, drawn from s. No per-type code:
 * floats go through ox_store_f64 (which rounds to the type), integers
 * through ox_store_i64. */
static int random_tensor(ox_arena *A, const ox_valueinfo *vi, uint64_t *s, ox_value **out, ox_err *e) {
  ox_dtype dt = vi->type->elem;
  OX_TRY(ox_tensor_new(A, dt, vi->rank, vi->dims, out, e));
  ox_tensor *t = &(*out)->u.t;
  int bits = ox_dtypes[dt].file_bits;
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
      double re = 2 * uniform(s) - 1, im = 2 * uniform(s) - 1;
      if (dt == OX_COMPLEX64) ((ox_c64 *)t->data)[i] = (ox_c64){(float)re, (float)im};
      else ((ox_c128 *)t->data)[i] = (ox_c128){re, im};
    } else if (ox_dtype_is_float(dt)) {
      double u = uniform(s);
      ox_store_f64(dt, t->data, i, dt == OX_FLOAT8E8M0 ? u : 2 * u - 1);
    } else if (ox_dtype_is_signed_int(dt)) {
      int64_t m = bits < 8 ? (INT64_C(1) << (bits - 1)) : 11; /* int4: [-8, 7], int2: [-2, 1] */
      ox_store_i64(dt, t->data, i, int_in(s, -(m < 11 ? m : 10), m < 11 ? m - 1 : 10));
    } else {
      int64_t m = bits < 8 ? (INT64_C(1) << bits) - 1 : 10;
      ox_store_i64(dt, t->data, i, int_in(s, 0, m < 10 ? m : 10));
    }
  }
  return 0;
}

int ox_cmd_make(int argc, char **argv) {
  if (argc < 2) return ox_usage_error("make", "no OP given");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(make_help, stdout);
    return 0;
  }
  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  int rc = 0;
  if (!A) return ox_cli_oom("make", NULL);
  const char *op = argv[1], *domain = "", *out_model = NULL, *case_dir = NULL;
  long opset = 21;
  int nin = 0, nout = 0, nattr = 0, nfiles = 0, random = 0;
  uint64_t seed = 0;
  ox_valueinfo *ins = ox_alloc_array(A, argc, sizeof *ins), *outs = ox_alloc_array(A, argc, sizeof *outs);
  ox_attr *attrs = ox_alloc_array(A, argc, sizeof *attrs);
  const char **files = ox_alloc_array(A, argc, sizeof *files);
  if (!ins || !outs || !attrs || !files) rc = ox_cli_oom("make", NULL);
  for (int i = 2; i < argc && !rc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(make_help, stdout);
      goto done;
    }
    if (a[0] != '-') {
      rc = ox_usage_error("make", "unexpected argument '%s'", a);
      break;
    }
    if (!v) {
      rc = ox_usage_error("make", "%s needs a value", a);
      break;
    }
    if (!*v && (!strcmp(a, "-o") || !strcmp(a, "--case") || !strcmp(a, "--in"))) {
      rc = ox_usage_error("make", "%s needs a path, not an empty one", a);
      break;
    }
    i++;
    if (!strcmp(a, "--domain")) domain = v;
    else if (!strcmp(a, "--opset")) {
      char *end;
      opset = strtol(v, &end, 10);
      if (*end || opset < 1) rc = ox_usage_error("make", "--opset needs a positive number");
    } else if (!strcmp(a, "-o")) out_model = v;
    else if (!strcmp(a, "--case")) case_dir = v;
    else if (!strcmp(a, "--random")) {
      char *end;
      errno = 0;
      unsigned long long sv = strtoull(v, &end, 10);
      if (*end || !*v || v[0] == '-' || errno) rc = ox_usage_error("make", "--random needs a seed: a number from 0 to 2^64-1, not '%s'", v);
      seed = sv;
      random = 1;
    }
    else if (!strcmp(a, "--in")) files[nfiles++] = v;
    else if (!strcmp(a, "-a")) {
      if (parse_attr(A, v, &attrs[nattr++], &e)) {
        fprintf(stderr, "onnxop make: %s\n", e.msg);
        rc = e.code;
      }
    } else if (!strcmp(a, "--input") || !strcmp(a, "--output")) {
      ox_valueinfo *vi = a[2] == 'i' ? &ins[nin++] : &outs[nout++];
      const char *colon = strchr(v, ':');
      vi->name = colon ? ox_strndup(A, v, (size_t)(colon - v)) : v;
      vi->rank = -1;
      size_t failed = ox_mem_failures();
      if (!vi->name) rc = ox_cli_oom("make", NULL);
      else if (colon && !(vi->type = parse_type_spec(A, colon + 1, &vi->rank, &vi->dims)))
        rc = ox_mem_failures() != failed
                 ? ox_cli_oom("make", NULL)
                 : ox_usage_error("make", "'%s' is not a type (an ONNX type string or DTYPE[SHAPE])", colon + 1);
    } else rc = ox_usage_error("make", "unknown option '%s'", a);
  }
  if (rc) goto done;
  if (!out_model && !case_dir) {
    rc = ox_usage_error("make", "give -o MODEL or --case DIR");
    goto done;
  }
  if (nfiles && !case_dir) {
    rc = ox_usage_error("make", "--in files are for --case");
    goto done;
  }
  if (random && !case_dir) {
    rc = ox_usage_error("make", "--random is for --case");
    goto done;
  }
  if (random && nfiles) {
    rc = ox_usage_error("make", "use either --in files or --random, not both");
    goto done;
  }
  if (!nin)
    for (int i = 0; i < nfiles; i++) {
      if (!(ins[nin].name = ox_sprintf(A, "input_%d", i))) {
        rc = ox_cli_oom("make", NULL);
        goto done;
      }
      ins[nin++].rank = -1;
    }
  if (!nout) {
    outs[0].name = "output";
    outs[0].rank = -1;
    nout = 1;
  }

  /* the model: one node, its inputs and outputs are the graph's */
  ox_model m = {0};
  ox_graph g = {0};
  ox_node n = {0};
  ox_opset ops[2] = {{domain, opset}, {"", 21}};
  m.ir_version = 10;
  m.opset = ops;
  m.nopset = domain[0] ? 2 : 1;
  m.graph = &g;
  m.dir = ".";
  n.name = "node";
  n.op = op;
  n.domain = domain;
  n.nin = nin;
  n.nout = nout;
  n.in = ox_alloc_array(A, nin + 1, sizeof *n.in);
  n.out = ox_alloc_array(A, nout + 1, sizeof *n.out);
  g.name = ox_sprintf(A, "%s_graph", op);
  g.in = ox_alloc_array(A, nin + 1, sizeof *g.in);
  if (!n.in || !n.out || !g.name || !g.in) {
    rc = ox_cli_oom("make", NULL);
    goto done;
  }
  for (int i = 0; i < nin; i++) n.in[i] = ins[i].name;
  for (int i = 0; i < nout; i++) n.out[i] = outs[i].name;
  n.nattr = nattr;
  n.attr = attrs;
  g.node = &n;
  g.nnode = 1;
  g.out = outs;
  g.nout = nout;
  /* graph inputs: the node's non-empty inputs */
  for (int i = 0; i < nin; i++)
    if (ins[i].name[0]) g.in[g.nin++] = ins[i];

  if (case_dir) {
    if (nfiles != g.nin && !random) {
      rc = ox_usage_error("make", "--case needs one --in file per input (%d inputs, %d files)", g.nin, nfiles);
      goto done;
    }
    ox_value **vals = ox_alloc_array(A, g.nin + 1, sizeof *vals);
    ox_value **res = ox_alloc_array(A, nout + 1, sizeof *res);
    char *set = ox_sprintf(A, "%s/test_data_set_0", case_dir);
    if (!vals || !res || !set) {
      rc = ox_cli_oom("make", NULL);
      goto done;
    }
    for (int i = 0; random && i < g.nin; i++) {
      const ox_valueinfo *vi = &g.in[i];
      int known = vi->type && vi->type->kind == OX_TENSOR && vi->rank >= 0;
      for (int d = 0; known && d < vi->rank; d++) known = vi->dims[d] >= 0;
      if (!known) {
        rc = ox_usage_error("make", "--random needs a tensor type with a whole shape for input '%s' "
                            "(--input %s:DTYPE[SHAPE], such as float32[2,3])", vi->name, vi->name);
        goto done;
      }
      if ((rc = random_tensor(A, vi, &seed, &vals[i], &e))) {
        fprintf(stderr, "onnxop make: input '%s': %s\n", vi->name, e.msg);
        goto done;
      }
    }
    for (int i = 0; !random && i < g.nin; i++) {
      if (ox_load_value(A, files[i], g.in[i].type, NULL, &vals[i], NULL, &e)) {
        fprintf(stderr, "onnxop: %s: %s\n", files[i], e.msg);
        rc = e.code;
        goto done;
      }
      if (!g.in[i].type && !(g.in[i].type = ox_value_type(A, vals[i]))) {
        rc = ox_cli_oom("make", NULL);
        goto done;
      }
    }
    if ((rc = ox_prepare(A, &m, &e)) || (rc = ox_run(A, &m, vals, res, &e))) {
      fprintf(stderr, "onnxop make: %s\n", e.msg);
      goto done;
    }
    for (int i = 0; i < nout && !rc; i++)
      if (!outs[i].type && !(outs[i].type = ox_value_type(A, res[i]))) rc = ox_oom(&e, NULL);
    if (!rc && ox_mkdir_p(set)) {
      if (errno == ENOMEM) rc = ox_oom(&e, NULL);
      else {
        fprintf(stderr, "onnxop: %s: cannot create the folder: %s\n", set, strerror(errno));
        rc = OX_EINPUT;
        goto done;
      }
    }
    for (int i = 0; i < g.nin && !rc; i++) {
      const char *file = ox_sprintf(A, "%s/input_%d.pb", set, i);
      rc = file ? ox_save_value(file, OX_FMT_PB, vals[i], g.in[i].name, &e) : ox_oom(&e, NULL);
    }
    for (int i = 0; i < nout && !rc; i++) {
      const char *file = ox_sprintf(A, "%s/output_%d.pb", set, i);
      rc = file ? ox_save_value(file, OX_FMT_PB, res[i], outs[i].name, &e) : ox_oom(&e, NULL);
    }
    if (!rc && !out_model && !(out_model = ox_sprintf(A, "%s/model.onnx", case_dir))) rc = ox_oom(&e, NULL);
    if (rc) {
      fprintf(stderr, "onnxop make: %s\n", e.msg);
      goto done;
    }
  } else if ((rc = ox_prepare(A, &m, &e))) {
    /* an op onnxop cannot run can still be written, but say so */
    fprintf(stderr, "onnxop make: warning: %s\n", e.msg);
    ox_err_clear(&e);
    rc = 0;
  }
  uint8_t *bytes;
  size_t len;
  if ((rc = ox_model_encode(A, &m, &bytes, &len, &e))) {
    fprintf(stderr, "onnxop make: %s\n", e.msg);
    goto done;
  }
  ox_buf b = {bytes, len, len};
  if ((rc = ox_write_file_tmp(out_model, &b, &e)) || (rc = ox_commit_files(&e)))
    fprintf(stderr, "onnxop: %s: %s\n", out_model, e.msg);
done:
  if (rc) ox_discard_files();
  ox_arena_free(A);
  return rc;
}
