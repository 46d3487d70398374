/* cli/compare.c: onnxop compare GOT EXPECTED [--rtol R] [--atol A] [--json]
 *
 * GOT and EXPECTED are two value files, or two folders in the test_data_set
 * layout (each output_K file of EXPECTED is compared with the file of the same
 * stem in GOT, whatever the format). Exit 0 when everything matches, 1 when
 * something differs, 2 on an error. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/compare.h"
#include "../io/io.h"
#include "cli.h"

static const char compare_help[] =
    "usage: onnxop compare GOT EXPECTED [--rtol R] [--atol A] [--json]\n"
    "\n"
    "Compare two values (.pb, .json, .npy or .npz files), or two folders in the\n"
    "test_data_set layout (output_K files matched by name), or two .npz archives\n"
    "(members matched by name). For each output: how many elements\n"
    "are out of tolerance, the worst absolute and relative errors with their index\n"
    "and both values, and the largest ULP distance for floats. A kind, dtype, shape\n"
    "or sequence-length difference is reported as such.\n"
    "\n"
    "  --rtol R, --atol A   tolerances: |got - expected| <= atol + rtol * |expected|\n"
    "                       (default 1e-3 and 1e-7); integers and strings exactly\n"
    "  --json               the report as JSON on stdout\n"
    "\n"
    "exit status: 0 everything matches, 1 something differs, 2 an error.\n";

typedef struct { char *name, *got, *want; } pair;

static int is_dir(const char *p) {
  struct stat st;
  return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* the value file in dir whose stem is `stem` (.pb, .json, .npy or .npz), or NULL */
static char *find_stem(const char *dir, const char *stem) {
  static const char *ext[] = {".pb", ".json", ".npy", ".npz"};
  for (int i = 0; i < 4; i++) {
    size_t n = strlen(dir) + strlen(stem) + 8;
    char *p = malloc(n);
    if (!p) return NULL;
    snprintf(p, n, "%s/%s%s", dir, stem, ext[i]);
    struct stat st;
    if (!stat(p, &st) && S_ISREG(st.st_mode)) return p;
    free(p);
  }
  return NULL;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(((const pair *)a)->name, ((const pair *)b)->name);
}

/* JSON has no NaN or Inf: those go as the strings "nan", "inf", "-inf",
 * as in onnxop's JSON values */
static void json_num(cJSON *o, const char *key, double v) {
  if (isfinite(v)) cJSON_AddNumberToObject(o, key, v);
  else cJSON_AddStringToObject(o, key, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

static void json_at(cJSON *o, const char *key, const ox_cmp_at *at, double err, double got, double want) {
  char ix[256];
  cJSON *x = cJSON_AddObjectToObject(o, key);
  json_num(x, "error", err);
  cJSON_AddStringToObject(x, "index", ox_cmp_at_str(at, ix, sizeof ix));
  json_num(x, "expected", want);
  json_num(x, "got", got);
}

int ox_cmd_compare(int argc, char **argv) {
  const char *got = NULL, *want = NULL;
  double rtol = 1e-3, atol = 1e-7;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(compare_help, stdout);
      return 0;
    } else if (!strcmp(a, "--rtol") || !strcmp(a, "--atol")) {
      char *end;
      if (++i >= argc) return ox_usage_error("compare", "%s needs a number", a);
      double v = strtod(argv[i], &end);
      if (*end || v < 0 || isnan(v)) return ox_usage_error("compare", "%s needs a number >= 0, not '%s'", a, argv[i]);
      *(a[2] == 'r' ? &rtol : &atol) = v;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (a[0] == '-' && a[1]) {
      return ox_usage_error("compare", "unknown option '%s'", a);
    } else if (!got) {
      got = a;
    } else if (!want) {
      want = a;
    } else {
      return ox_usage_error("compare", "unexpected argument '%s'", a);
    }
  }
  if (!want) return ox_usage_error("compare", "give GOT and EXPECTED");

  /* what to compare */
  pair *ps = NULL;
  int np = 0, rc = 0;
  if (is_dir(got) != is_dir(want))
    return ox_usage_error("compare", "compare two files or two folders, not one of each");
  if (is_dir(want)) {
    DIR *d = opendir(want);
    struct dirent *de;
    while (d && (de = readdir(d))) {
      ox_format f = ox_format_of(de->d_name);
      if (de->d_name[0] == '.' || f == OX_FMT_UNKNOWN || strncmp(de->d_name, "output_", 7)) continue;
      pair *nps = realloc(ps, (size_t)(np + 1) * sizeof *ps);
      if (!nps) break;
      ps = nps;
      char *stem = strdup(de->d_name);
      *strrchr(stem, '.') = 0;
      size_t n = strlen(want) + strlen(de->d_name) + 2;
      ps[np].want = malloc(n);
      snprintf(ps[np].want, n, "%s/%s", want, de->d_name);
      ps[np].got = find_stem(got, stem);
      ps[np].name = stem;
      np++;
    }
    if (d) closedir(d);
    if (!np) {
      fprintf(stderr, "onnxop compare: %s has no output_K.pb or output_K.json files\n", want);
      free(ps);
      return OX_EUSAGE;
    }
    qsort(ps, (size_t)np, sizeof *ps, cmp_names);
  } else if (ox_format_of(want) == OX_FMT_NPZ && !strchr(want, ':') && ox_format_of(got) == OX_FMT_NPZ &&
             !strchr(got, ':')) {
    /* two archives: member by member, as EXPECTED names them */
    ox_arena *A = ox_arena_new();
    ox_err e = {0};
    const char **mem = NULL;
    int64_t nm = 0;
    if (!A || ox_npz_members(A, want, &mem, &nm, &e)) {
      fprintf(stderr, "onnxop: %s: %s\n", want, A ? e.msg : "out of memory");
      ox_arena_free(A);
      return OX_EUSAGE;
    }
    ps = calloc((size_t)nm + 1, sizeof *ps);
    for (int64_t k = 0; ps && k < nm; k++) {
      ps[np].name = strdup(mem[k]);
      size_t n = strlen(want) + strlen(got) + strlen(mem[k]) + 2;
      ps[np].want = malloc(n);
      ps[np].got = malloc(n);
      if (ps[np].want) snprintf(ps[np].want, n, "%s:%s", want, mem[k]);
      if (ps[np].got) snprintf(ps[np].got, n, "%s:%s", got, mem[k]);
      np++;
    }
    ox_arena_free(A);
    if (!ps || !np) {
      fprintf(stderr, "onnxop compare: %s holds no arrays\n", want);
      free(ps);
      return OX_EUSAGE;
    }
  } else {
    ps = calloc(1, sizeof *ps);
    if (!ps) return OX_EUSAGE;
    ps[0].name = strdup(want);
    ps[0].want = strdup(want);
    ps[0].got = strdup(got);
    np = 1;
  }

  cJSON *report = json ? cJSON_CreateArray() : NULL;
  int differ = 0;
  for (int i = 0; i < np && rc != OX_EUSAGE; i++) {
    ox_arena *A = ox_arena_new();
    ox_err e = {0};
    ox_value *g = NULL, *w = NULL;
    pair *p = &ps[i];
    if (!p->got) {
      fprintf(stderr, "onnxop compare: %s/%s.pb (or .json) is missing\n", got, p->name);
      rc = OX_EUSAGE;
    } else if (ox_load_value(A, p->want, NULL, NULL, &w, NULL, &e)) {
      fprintf(stderr, "onnxop: %s: %s\n", p->want, e.msg);
      rc = OX_EUSAGE;
    } else if (ox_load_value(A, p->got, w ? ox_value_type(A, w) : NULL, NULL, &g, NULL, &e) &&
               ox_load_value(A, p->got, NULL, NULL, &g, NULL, &e)) {
      fprintf(stderr, "onnxop: %s: %s\n", p->got, e.msg);
      rc = OX_EUSAGE;
    }
    if (rc == OX_EUSAGE) {
      ox_arena_free(A);
      break;
    }
    ox_cmp r;
    ox_compare_full(g, w, rtol, atol, &r);
    differ |= r.differ;
    char ix[256];
    if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", p->name);
      cJSON_AddBoolToObject(o, "match", !r.differ);
      if (r.structural) cJSON_AddStringToObject(o, "difference", r.why);
      cJSON_AddNumberToObject(o, "elements", (double)r.total);
      cJSON_AddNumberToObject(o, "mismatches", (double)r.bad);
      if (r.numeric && r.abs_at.t) json_at(o, "max_abs", &r.abs_at, r.max_abs, r.abs_got, r.abs_want);
      if (r.numeric && r.rel_at.t) json_at(o, "max_rel", &r.rel_at, r.max_rel, r.rel_got, r.rel_want);
      if (r.floats) cJSON_AddNumberToObject(o, "max_ulp", (double)r.max_ulp);
      if (r.differ && !r.structural) cJSON_AddStringToObject(o, "first", r.why);
      cJSON_AddItemToArray(report, o);
    } else if (r.structural) {
      printf("%s: differs: %s\n", p->name, r.why);
    } else if (!r.differ) {
      printf("%s: match (%lld element%s", p->name, (long long)r.total, r.total == 1 ? "" : "s");
      if (r.numeric && r.abs_at.t) printf("; worst absolute error %.6g", r.max_abs);
      if (r.floats) printf("; max %llu ULP", (unsigned long long)r.max_ulp);
      printf(")\n");
    } else {
      printf("%s: %lld of %lld element%s differ (rtol %g, atol %g)\n", p->name, (long long)r.bad,
             (long long)r.total, r.total == 1 ? "" : "s", rtol, atol);
      printf("  first: %s\n", r.why);
      if (r.numeric && r.abs_at.t)
        printf("  worst absolute error %.6g at %s: expected %.9g, got %.9g\n", r.max_abs,
               ox_cmp_at_str(&r.abs_at, ix, sizeof ix), r.abs_want, r.abs_got);
      if (r.numeric && r.rel_at.t)
        printf("  worst relative error %.6g at %s: expected %.9g, got %.9g\n", r.max_rel,
               ox_cmp_at_str(&r.rel_at, ix, sizeof ix), r.rel_want, r.rel_got);
      if (r.floats) printf("  max ULP distance %llu\n", (unsigned long long)r.max_ulp);
    }
    ox_arena_free(A);
  }
  if (json && rc != OX_EUSAGE) {
    char *s = cJSON_PrintUnformatted(report);
    if (s) puts(s);
    free(s);
  }
  cJSON_Delete(report);
  for (int i = 0; i < np; i++) {
    free(ps[i].name);
    free(ps[i].got);
    free(ps[i].want);
  }
  free(ps);
  if (rc) return rc;
  return differ ? 1 : 0;
}
