/* cli/compare.c: onnxop compare GOT EXPECTED [--rtol R] [--atol A] [--json]
 *
 * GOT and EXPECTED are two value files, or two folders in the test_data_set
 * layout (each output_K file of EXPECTED is compared with the file of the same
 * stem in GOT, whatever the format). Exit 0 when everything matches; 1 when
 * something differs, is missing from GOT or is extra in it, or a file cannot be
 * read; 2 on a usage error. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../api/api.h"
#include "../core/compare.h"
#include "../io/io.h"
#include "cli.h"

static const char compare_help[] =
    "usage: onnxop compare GOT EXPECTED [--rtol [NAME=]R]... [--atol [NAME=]A]...\n"
    "                      [--check-error-stat STAT] [--validate] [--json]\n"
    "\n"
    "Compare two values (.pb, .json, .npy or .npz files), or two folders in the\n"
    "test_data_set layout (output_K files matched by name), or two .npz archives\n"
    "(members matched by name). For each output: how many elements\n"
    "are out of tolerance, the worst absolute and relative errors with their index\n"
    "and both values, and the largest ULP distance for floats. A kind, dtype, shape\n"
    "or sequence-length difference is reported as such. GOT and EXPECTED swapped\n"
    "give the same answer: an optional holding a value is that value, one holding\n"
    "none matches only none, and an empty sequence's element type left open (?)\n"
    "agrees with any.\n"
    "\n"
    "  --rtol R, --atol A   tolerances: |got - expected| <= atol + rtol * |expected|\n"
    "                       (default 1e-3 and 1e-7); integers and strings exactly\n"
    "  --rtol NAME=R, --atol NAME=A\n"
    "                       the tolerance of one output: NAME is a file's stem\n"
    "                       (output_0), an .npz member, or the name EXPECTED's file\n"
    "                       stores; a NAME that names no output is a usage error\n"
    "  --check-error-stat STAT\n"
    "                       check a statistic of the errors instead of each element\n"
    "                       (as Polygraphy does): max, mean, median or quantile=Q\n"
    "                       (0 <= Q <= 1, numpy's linear interpolation); an output\n"
    "                       is out of tolerance when STAT of |got - expected| > atol\n"
    "                       and STAT of |got - expected| / |expected| > rtol (a NaN\n"
    "                       against a number, or unequal infinities, is an infinite\n"
    "                       error); elemwise (the default) checks each element\n"
    "  --validate           also fail an output whose GOT holds a NaN or an infinity\n"
    "  --json               the report as JSON on stdout\n"
    "\n"
    "An output of EXPECTED that GOT lacks (a file, an output_K of a folder, a\n"
    "member of an .npz) is a difference, and so is one that only GOT has.\n"
    "\n"
    "exit status:\n"
    "  0      everything matches\n"
    "  1      something differs, is missing from GOT or extra in it; or a file\n"
    "         could not be read, or the report could not be written\n"
    OX_EXIT_HELP_2
    OX_EXIT_HELP_SIGNAL;

/* One output to compare. got NULL: missing from GOT; want NULL: only GOT has
 * it (extra). */
typedef struct { char *name, *got, *want; } pair;

static int is_dir(const char *p) {
  struct stat st;
  return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* the value file in dir whose stem is `stem` (.pb, .json, .npy or .npz), or
 * NULL (*oom set when memory ran out) */
static char *find_stem(const char *dir, const char *stem, int *oom) {
  static const char *ext[] = {".pb", ".json", ".npy", ".npz"};
  for (int i = 0; i < 4; i++) {
    size_t n = strlen(dir) + strlen(stem) + 8;
    char *p = ox_heap_malloc(n);
    if (!p) {
      *oom = 1;
      return NULL;
    }
    snprintf(p, n, "%s/%s%s", dir, stem, ext[i]);
    struct stat st;
    if (!stat(p, &st) && S_ISREG(st.st_mode)) return p;
    free(p);
  }
  return NULL;
}

/* "a" SEP "b" in a new string (NULL when out of memory) */
static char *join(const char *a, char sep, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = ox_heap_malloc(n);
  if (p) snprintf(p, n, "%s%c%s", a, sep, b);
  return p;
}

/* Whether a value that failed to load is absent: a file that does not exist,
 * or a member that an .npz lacks; then why says so. Any other failure (a
 * file that exists but is bad, an inline value with a mistake) is an error,
 * not a difference. */
static int gone(ox_arena *A, const char *path, char *why, size_t n) {
  const char *member = NULL, *file = ox_npz_split(A, path, &member);
  struct stat st;
  if (!file || ox_format_of(path) == OX_FMT_UNKNOWN) return 0; /* an inline value or "-"; or no memory */
  if (stat(file, &st)) {
    if (errno != ENOENT && errno != ENOTDIR) return 0;
    snprintf(why, n, "missing: %s does not exist", file);
    return 1;
  }
  if (!member) return 0;
  const char **mem;
  int64_t nm;
  ox_err e = {0};
  if (ox_npz_members(A, file, &mem, &nm, &e)) return 0;
  for (int64_t k = 0; k < nm; k++)
    if (!strcmp(mem[k], member)) return 0;
  snprintf(why, n, "missing: %s has no member '%s'", file, member);
  return 1;
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

/* --atol NAME=A and --rtol NAME=R: the tolerance of one output */
typedef struct { const char *name; size_t len; double v; int rel, used; } out_tol;

/* Whether t names output `name` (a file's stem or member, or the name
 * stored in EXPECTED). */
static int names(const out_tol *t, const char *name) {
  return name && strlen(name) == t->len && !strncmp(name, t->name, t->len);
}

/* --check-error-stat: "max", "mean", "median", "quantile=Q" (Q in [0, 1]),
 * or "elemwise" (each element, the default: stat -1). 0, or -1. */
static int parse_stat(const char *s, int *stat, double *q) {
  static const char *const names[] = {"max", "mean", "median"};
  if (!strcmp(s, "elemwise")) return *stat = -1, 0;
  for (int k = 0; k < 3; k++)
    if (!strcmp(s, names[k])) return *stat = k, 0;
  if (strncmp(s, "quantile=", 9) || ox_parse_tolerance(s + 9, q) || *q > 1) return -1;
  *stat = OX_STAT_QUANTILE;
  return 0;
}

static const char *stat_name(int stat, double q, char *buf, size_t n) {
  static const char *const names[] = {"max", "mean", "median"};
  if (stat == OX_STAT_QUANTILE) snprintf(buf, n, "%g-quantile", q);
  else snprintf(buf, n, "%s", names[stat]);
  return buf;
}

enum { C_HELP, C_RTOL, C_ATOL, C_STAT, C_VALIDATE, C_JSON };
static const ox_opt compare_opts[] = {
    [C_HELP] = {"--help", "-h", NULL},
    [C_RTOL] = {"--rtol", NULL, "a number, or NAME=number"},
    [C_ATOL] = {"--atol", NULL, "a number, or NAME=number"},
    [C_STAT] = {"--check-error-stat", NULL, "max, mean, median, quantile=Q or elemwise"},
    [C_VALIDATE] = {"--validate", NULL, NULL},
    [C_JSON] = {"--json", NULL, NULL},
    {NULL, NULL, NULL},
};

int ox_cmd_compare(int argc, char **argv) {
  const char *got = NULL, *want = NULL, *v;
  double rtol = 1e-3, atol = 1e-7, q = 0;
  int json = 0, estat = -1, validate = 0, ntols = 0;
  out_tol tols[64];
  ox_optparse op;
  ox_opt_init(&op, "compare", argc, argv, compare_opts);
  for (int k; (k = ox_opt_next(&op, &v)) != OX_OPT_END;) {
    if (k == OX_OPT_ERROR) return OX_EUSAGE;
    if (k == C_HELP) {
      fputs(compare_help, stdout);
      return 0;
    } else if (k == C_RTOL || k == C_ATOL) {
      const char *a = compare_opts[k].name, *eq = strrchr(v, '='), *num = eq ? eq + 1 : v;
      double x;
      if (ox_parse_tolerance(num, &x) || (eq && eq == v))
        return ox_usage_error("compare", "%s needs a number >= 0 (or NAME=number), not '%s'", a, v);
      if (!eq) {
        *(k == C_RTOL ? &rtol : &atol) = x;
        continue;
      }
      if (ntols == 64) return ox_usage_error("compare", "more than 64 per-output tolerances");
      tols[ntols++] = (out_tol){v, (size_t)(eq - v), x, k == C_RTOL, 0};
    } else if (k == C_STAT) {
      if (parse_stat(v, &estat, &q))
        return ox_usage_error("compare", "--check-error-stat needs max, mean, median, quantile=Q (0 <= Q <= 1) or "
                              "elemwise, not '%s'", v);
    } else if (k == C_VALIDATE) {
      validate = 1;
    } else if (k == C_JSON) {
      json = 1;
    } else if (!got) {
      got = v;
    } else if (!want) {
      want = v;
    } else {
      return ox_usage_error("compare", "unexpected argument '%s'", v);
    }
  }
  if (!want) return ox_usage_error("compare", "give GOT and EXPECTED");

  /* what to compare */
  pair *ps = NULL;
  int np = 0, rc = 0;
  struct stat st;
  int got_gone = stat(got, &st) && (errno == ENOENT || errno == ENOTDIR);
  if (!got_gone && is_dir(got) != is_dir(want))
    return ox_usage_error("compare", "compare two files or two folders, not one of each");
  if (is_dir(want)) {
    /* output_K files: EXPECTED's, each with GOT's of the same stem; then the
     * ones only GOT has */
    for (int side = 0; side < 2 && !rc; side++) {
      const char *dir = side ? got : want;
      DIR *d = side && got_gone ? NULL : opendir(dir);
      struct dirent *de;
      if (!d && !(side && got_gone)) {
        fprintf(stderr, "onnxop compare: %s: cannot read the folder: %s\n", dir, strerror(errno));
        rc = OX_EINPUT;
      }
      while (d && !rc && (de = readdir(d))) {
        ox_format f = ox_format_of(de->d_name);
        if (de->d_name[0] == '.' || f == OX_FMT_UNKNOWN || strncmp(de->d_name, "output_", 7)) continue;
        char *stem = ox_heap_strdup(de->d_name), *path = NULL;
        pair *nps = stem ? ox_heap_realloc(ps, (size_t)(np + 1) * sizeof *ps) : NULL;
        if (nps) {
          ps = nps;
          *strrchr(stem, '.') = 0;
          path = join(dir, '/', de->d_name);
        }
        int known = 0, oom = !path;
        for (int k = 0; side && k < np && path; k++) known |= !strcmp(ps[k].name, stem);
        if (!oom && !known) {
          ps[np] = (pair){stem, side ? path : (got_gone ? NULL : find_stem(got, stem, &oom)), side ? NULL : path};
          np++;
          if (!oom) continue;
          stem = path = NULL; /* ps[np - 1] has them, freed below */
        }
        if (oom) rc = ox_cli_oom("compare", NULL);
        free(stem);
        free(path);
      }
      if (d) closedir(d);
      if (!side && !rc && !np) {
        fprintf(stderr, "onnxop compare: %s has no output_K.pb, .json, .npy or .npz files\n", want);
        rc = OX_EINPUT;
      }
    }
    if (!rc) qsort(ps, (size_t)np, sizeof *ps, cmp_names);
  } else if (ox_format_of(want) == OX_FMT_NPZ && !strchr(want, ':') && ox_format_of(got) == OX_FMT_NPZ &&
             !strchr(got, ':')) {
    /* two archives: member by member, as EXPECTED names them; then the
     * members only GOT has */
    ox_arena *A = ox_arena_new();
    ox_err e = {0};
    const char **mem = NULL, **gmem = NULL;
    int64_t nm = 0, ngm = 0;
    const char *bad = !A ? "" : ox_npz_members(A, want, &mem, &nm, &e) ? want
                            : !got_gone && ox_npz_members(A, got, &gmem, &ngm, &e) ? got : NULL;
    if (!A) return ox_cli_oom("compare", NULL);
    if (bad) {
      fprintf(stderr, "onnxop: %s: %s\n", bad, e.msg);
      ox_arena_free(A);
      return e.code;
    }
    ps = ox_heap_calloc((size_t)(nm + ngm) + 1, sizeof *ps);
    for (int side = 0; side < 2 && ps; side++)
      for (int64_t k = 0; k < (side ? ngm : nm); k++) {
        const char *name = side ? gmem[k] : mem[k];
        int in_got = 0, in_want = 0;
        for (int64_t j = 0; j < ngm; j++) in_got |= !strcmp(gmem[j], name);
        for (int64_t j = 0; j < nm; j++) in_want |= !strcmp(mem[j], name);
        if (side && in_want) continue;
        ps[np].name = ox_heap_strdup(name);
        if (in_want) ps[np].want = join(want, ':', name);
        if (in_got) ps[np].got = join(got, ':', name);
        if (!ps[np].name || (in_want && !ps[np].want) || (in_got && !ps[np].got)) rc = OX_ENOMEM;
        np++;
      }
    ox_arena_free(A);
    if (rc) rc = ox_cli_oom("compare", NULL);
    else if (!ps) {
      return ox_cli_oom("compare", NULL);
    } else if (!np) {
      fprintf(stderr, "onnxop compare: %s holds no arrays\n", want);
      free(ps);
      return OX_EINPUT;
    }
  } else {
    ps = ox_heap_calloc(1, sizeof *ps);
    if (!ps) return ox_cli_oom("compare", NULL);
    ps[0].name = ox_heap_strdup(want);
    ps[0].want = ox_heap_strdup(want);
    ps[0].got = ox_heap_strdup(got);
    np = 1;
    if (!ps[0].name || !ps[0].want || !ps[0].got) rc = ox_cli_oom("compare", NULL);
  }

  size_t failed = ox_mem_failures(); /* a part of the JSON report that could not be made */
  cJSON *report = json ? cJSON_CreateArray() : NULL;
  int differ = 0;
  for (int i = 0; i < np && !rc; i++) {
    ox_arena *A = ox_arena_new();
    ox_err e = {0};
    ox_value *g = NULL, *w = NULL;
    const char *stored = NULL; /* the name EXPECTED's file gives the value */
    pair *p = &ps[i];
    ox_cmp r = {0};
    if (!A) {
      rc = ox_cli_oom("compare", NULL);
    } else if (!p->want) {
      snprintf(r.why, sizeof r.why, "extra: %s is in GOT but not in EXPECTED", p->got);
    } else if (!p->got) {
      if (got_gone) snprintf(r.why, sizeof r.why, "missing: %s does not exist", got);
      else if (is_dir(got)) snprintf(r.why, sizeof r.why, "missing: %s has no %s.pb, .json, .npy or .npz", got, p->name);
      else snprintf(r.why, sizeof r.why, "missing: %s has no member '%s'", got, p->name);
    } else if (ox_api_value_load(A, p->want, NULL, &w, &stored, &e)) {
      fprintf(stderr, "onnxop: %s: %s\n", p->want, e.msg);
      rc = OX_EINPUT;
    } else if (ox_api_value_load(A, p->got, w ? ox_value_type(A, w) : NULL, &g, NULL, &e) &&
               ox_api_value_load(A, p->got, NULL, &g, NULL, &e)) {
      if (!gone(A, p->got, r.why, sizeof r.why)) {
        fprintf(stderr, "onnxop: %s: %s\n", p->got, e.msg);
        rc = OX_EINPUT;
      }
    }
    if (rc) {
      ox_arena_free(A);
      break;
    }
    /* this output's tolerances: --atol NAME=A / --rtol NAME=R over the
     * plain ones, a later one over an earlier one */
    double ort = rtol, oat = atol;
    for (int k = 0; k < ntols; k++)
      if (names(&tols[k], p->name) || names(&tols[k], stored)) {
        *(tols[k].rel ? &ort : &oat) = tols[k].v;
        tols[k].used = 1;
      }
    /* the error statistic, when one is checked instead of each element */
    double sabs = 0, srel = 0;
    int64_t nerr = 0;
    if (g && w) {
      ox_compare_full(g, w, ort, oat, &r);
      if (!r.structural && estat >= 0) {
        double *ea = ox_alloc_array(A, 2 * r.total + 1, sizeof *ea), *er = ox_alloc_array(A, 2 * r.total + 1, sizeof *er);
        if (!ea || !er) {
          fprintf(stderr, "onnxop compare: %s: out of memory for the errors of %lld elements\n", p->name,
                  (long long)r.total);
          rc = OX_EINPUT;
          ox_arena_free(A);
          break;
        }
        nerr = ox_compare_errors(g, w, ea, er);
        sabs = ox_error_stat(ea, nerr, (ox_err_stat)estat, q);
        srel = ox_error_stat(er, nerr, (ox_err_stat)estat, q);
        /* Polygraphy's rule: out of tolerance when both statistics are */
        r.differ = r.bad_exact > 0 || (nerr && !(sabs <= oat) && !(srel <= ort));
      }
    }
    /* --validate: GOT must hold no NaN and no infinity */
    int64_t nnan = 0, ninf = 0;
    ox_cmp_at nf_at = {NULL, -1, 0};
    if (g && validate) {
      ox_count_nonfinite(g, &nnan, &ninf, &nf_at);
      r.differ |= nnan || ninf;
    }
    if (!g || !w) r.differ = r.structural = 1; /* missing or extra: r.why says which */
    differ |= r.differ;
    char ix[256], sn[40];
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
      if (r.differ && !r.structural && r.why[0]) cJSON_AddStringToObject(o, "first", r.why);
      cJSON_AddNumberToObject(o, "rtol", ort);
      cJSON_AddNumberToObject(o, "atol", oat);
      if (estat >= 0 && !r.structural) {
        cJSON *es = cJSON_AddObjectToObject(o, "error_stat");
        cJSON_AddStringToObject(es, "stat", stat_name(estat, q, sn, sizeof sn));
        json_num(es, "abs", sabs);
        json_num(es, "rel", srel);
      }
      if (validate && g) {
        cJSON_AddNumberToObject(o, "nan", (double)nnan);
        cJSON_AddNumberToObject(o, "inf", (double)ninf);
        if (nnan || ninf) cJSON_AddStringToObject(o, "first_nonfinite", ox_cmp_at_str(&nf_at, ix, sizeof ix));
      }
      ox_cjson_push(report, o);
    } else if (r.structural) {
      printf("%s: differs: %s\n", p->name, r.why);
    } else {
      if (!r.differ) {
        printf("%s: match (%lld element%s", p->name, (long long)r.total, r.total == 1 ? "" : "s");
        if (estat >= 0 && nerr) printf("; %s error: absolute %.6g, relative %.6g", stat_name(estat, q, sn, sizeof sn), sabs, srel);
        else if (r.numeric && r.abs_at.t) printf("; worst absolute error %.6g", r.max_abs);
        if (r.floats) printf("; max %llu ULP", (unsigned long long)r.max_ulp);
        printf(")\n");
      } else if (estat >= 0 && r.bad_exact) {
        printf("%s: %lld of %lld element%s differ (integers, bools and strings compare exactly)\n", p->name,
               (long long)r.bad_exact, (long long)r.total, r.total == 1 ? "" : "s");
      } else if (estat >= 0 && !(sabs <= oat) && !(srel <= ort)) {
        printf("%s: the %s error is out of tolerance: absolute %.6g > atol %g and relative %.6g > rtol %g\n", p->name,
               stat_name(estat, q, sn, sizeof sn), sabs, oat, srel, ort);
      } else if (estat < 0 && r.bad) {
        printf("%s: %lld of %lld element%s differ (rtol %g, atol %g)\n", p->name, (long long)r.bad, (long long)r.total,
               r.total == 1 ? "" : "s", ort, oat);
      } else {
        printf("%s: differs: GOT holds %lld NaN and %lld infinite value%s, the first at %s (--validate)\n", p->name,
               (long long)nnan, (long long)ninf, ninf == 1 ? "" : "s", ox_cmp_at_str(&nf_at, ix, sizeof ix));
      }
      if (r.differ && (r.bad || estat >= 0)) {
        if (r.bad) printf("  first: %s\n", r.why);
        if (r.numeric && r.abs_at.t)
          printf("  worst absolute error %.6g at %s: expected %.9g, got %.9g\n", r.max_abs,
                 ox_cmp_at_str(&r.abs_at, ix, sizeof ix), r.abs_want, r.abs_got);
        if (r.numeric && r.rel_at.t)
          printf("  worst relative error %.6g at %s: expected %.9g, got %.9g\n", r.max_rel,
                 ox_cmp_at_str(&r.rel_at, ix, sizeof ix), r.rel_want, r.rel_got);
        if (r.floats) printf("  max ULP distance %llu\n", (unsigned long long)r.max_ulp);
      }
      if (r.differ && validate && (nnan || ninf) && (r.bad || estat >= 0))
        printf("  GOT holds %lld NaN and %lld infinite value%s, the first at %s (--validate)\n", (long long)nnan,
               (long long)ninf, ninf == 1 ? "" : "s", ox_cmp_at_str(&nf_at, ix, sizeof ix));
    }
    ox_arena_free(A);
  }
  if (json && !rc) {
    rc = ox_print_json(report, "compare", failed);
    report = NULL;
  }
  /* a per-output tolerance that named no output was meant for another */
  for (int k = 0; k < ntols && !rc; k++)
    if (!tols[k].used) {
      rc = ox_usage_error("compare", "--%s %.*s=%g: no output compared is named '%.*s' (a file's stem such as "
                          "output_0, an .npz member, or the name EXPECTED stores)", tols[k].rel ? "rtol" : "atol",
                          (int)tols[k].len, tols[k].name, tols[k].v, (int)tols[k].len, tols[k].name);
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
