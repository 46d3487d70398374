/* cli/report.c: onnxop report REPORT...: the reports of `onnxop test` runs
 * (read by cli/results.c), such as the shards of one run, merged into one
 * summary and one exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../core/ox.h"
#include "../io/io.h"
#include "cli.h"
#include "files.h"
#include "results.h"

int ox_print_json(cJSON *j, const char *cmd, size_t failures) {
  char *text = j ? cJSON_PrintUnformatted(j) : NULL;
  /* a cJSON_Add... that ran out of memory dropped its item: no report then */
  int ok = text && ox_mem_failures() == failures;
  if (ok) puts(text);
  cJSON_free(text);
  cJSON_Delete(j);
  return ok ? 0 : ox_cli_oom(cmd, "making the report");
}

static const char report_help[] =
    "usage: onnxop report [-q | -v] [--json] [--junit FILE] REPORT...\n"
    "\n"
    "Merge the reports of 'onnxop test' runs (--junit XML or --json, told apart\n"
    "by content), such as the N shards of one run made by --shard K/N on many\n"
    "machines, into one summary and one exit status. Failing cases are printed\n"
    "as 'onnxop test' prints them, then the summary line: the counts of the\n"
    "statuses other than pass, then 'N passed, M failed'.\n"
    "\n"
    "The merge fails when a case (by path) is in two reports, when the reports\n"
    "of an N-shard run (those with the same N and the same selection) lack a\n"
    "shard K or hold one twice, or when their shards together hold fewer or\n"
    "more cases than were selected: the union of the shards must be the\n"
    "selection, each case once.\n"
    "\n"
    "  -q, --quiet    print the summary line alone\n"
    "  -v, --verbose  also print passing and expected-failing cases\n"
    "  --json         print the merged report as one JSON object instead (the\n"
    "                 shape of 'onnxop test --json')\n"
    "  --junit FILE   also write the merged report as JUnit XML to FILE\n"
    "\n"
    "JUnit reports of other tools are read too: <failure> is a fail, <error> an\n"
    "error, <skipped> an xfail, unless the type attribute names a status; a\n"
    "time that is not a number of seconds from 0 to 1e9 reads as 0. Names and\n"
    "messages print with control characters (escape, bell, ...) as '?'.\n"
    "\n"
    "exit status:\n"
    "  0      every case passed (or failed as expected), in reports that\n"
    "         together hold each case of the run once\n"
    "  1      a case failed (any status but pass and xfail), a line of an\n"
    "         --xfail list is stale or a duplicate, a case is in two reports, a\n"
    "         shard is missing or twice, the shards do not add up to the\n"
    "         selection, no report holds a case, or a report could not be read\n"
    "         or the merged one written\n"
    OX_EXIT_HELP_2
    OX_EXIT_HELP_SIGNAL;


/* sum += v, unless the sum would pass OX_COUNT_MAX: 0, or -1 */
static int add_count(long long *sum, long long v) {
  if (v > OX_COUNT_MAX - *sum) return -1;
  *sum += v;
  return 0;
}

static int cmp_by_path(const void *a, const void *b) {
  const ox_result *x = *(ox_result *const *)a, *y = *(ox_result *const *)b;
  int c = strcmp(x->path, y->path);
  return c ? c : (x > y) - (x < y);
}

static int cmp_by_name(const void *a, const void *b) {
  return strcmp((*(ox_result *const *)a)->name, (*(ox_result *const *)b)->name);
}

/* Shard reports: by run (the same N and the same selection), then by K, then
 * in the order given. */
static int cmp_shard(const void *a, const void *b) {
  const ox_report_meta *x = *(const ox_report_meta *const *)a, *y = *(const ox_report_meta *const *)b;
  if (x->info.shard_n != y->info.shard_n) return x->info.shard_n < y->info.shard_n ? -1 : 1;
  if (x->info.selected != y->info.selected) return x->info.selected < y->info.selected ? -1 : 1;
  if (x->info.shard_k != y->info.shard_k) return x->info.shard_k < y->info.shard_k ? -1 : 1;
  return (x > y) - (x < y);
}

/* "no report of shard 2/4" or, for a range, "no report of shards 2-4/4" */
static void say_missing(int k0, int k1, const ox_report_meta *run) {
  if (k0 == k1)
    fprintf(stderr, "onnxop report: no report of shard %d/%d", k0, run->info.shard_n);
  else
    fprintf(stderr, "onnxop report: no report of shards %d-%d/%d", k0, k1, run->info.shard_n);
  fprintf(stderr, " (of the run that selected %lld cases)\n", run->info.selected);
}

/* Each K of each N-shard run once, and their cases adding up to the
 * selection: the number of problems said. *selected and *problems count the
 * runs' selections; -1 when a sum passes OX_COUNT_MAX. The work is a sort of
 * the reports, whatever N is: missing shards are said as ranges. */
static int check_shards(ox_report_meta *meta, int nfiles, long long *selected, int *problems) {
  const ox_report_meta **by = malloc(((size_t)nfiles + 1) * sizeof *by);
  int nb = 0, over = 0;
  if (!by) return -2;
  for (int i = 0; i < nfiles; i++)
    if (meta[i].info.shard_n) by[nb++] = &meta[i];
    else over |= add_count(selected, meta[i].info.selected);
  qsort(by, (size_t)nb, sizeof *by, cmp_shard);
  for (int g = 0, h; g < nb && !over; g = h) {
    const ox_report_meta *r0 = by[g];
    long long run = 0;
    int all_run = 1, sum_ok = 1, next = 1; /* next: the first K not yet seen */
    for (h = g; h < nb && by[h]->info.shard_n == r0->info.shard_n && by[h]->info.selected == r0->info.selected; h++) {
      int k = by[h]->info.shard_k;
      if (k < next) { /* a K seen before: by[first of k] holds it too */
        int f = h;
        while (f > g && by[f - 1]->info.shard_k == k) f--;
        fprintf(stderr, "onnxop report: shard %d/%d is in %s and in %s\n", k, r0->info.shard_n, by[f]->file, by[h]->file);
        (*problems)++;
        continue;
      }
      if (k > next) {
        say_missing(next, k - 1, r0);
        (*problems)++;
      }
      next = k + 1;
      sum_ok &= !add_count(&run, by[h]->info.run);
      all_run &= by[h]->has_run;
    }
    if (next <= r0->info.shard_n) {
      say_missing(next, r0->info.shard_n, r0);
      (*problems)++;
    }
    /* a shard twice is left out of the sum above, so the sum is of the
     * shards once each; it is checked only when nothing else is wrong */
    if (all_run && (!sum_ok || run != r0->info.selected) && !*problems) {
      fprintf(stderr, "onnxop report: the %d shards hold %s%lld cases, but %lld were selected\n", r0->info.shard_n,
              sum_ok ? "" : "more than ", run, r0->info.selected);
      (*problems)++;
    }
    over |= add_count(selected, r0->info.selected);
  }
  free(by);
  return over ? -1 : 0;
}

/* a case's line, as `onnxop test` prints it, its text made safe for a
 * terminal */
static void print_line(const ox_result *r, const char *shown) {
  fputs(ox_status_label[r->st], stdout);
  fputc(' ', stdout);
  ox_print_text(stdout, shown, 0);
  if (r->st != OX_ST_PASS) {
    fputs(": ", stdout);
    ox_print_text(stdout, r->message ? r->message : "", 1);
  }
  fputc('\n', stdout);
}

int ox_cmd_report(int argc, char **argv) {
  int verbose = 0, json = 0, nfiles = 0, rc = 0;
  const char *junit = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(report_help, stdout);
      return 0;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      verbose = -1;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      verbose = 1;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--junit")) {
      if (++i >= argc || !strcmp(argv[i], "-") || !argv[i][0])
        return ox_usage_error("report", "--junit needs a FILE (standard output takes --json)");
      junit = argv[i];
    } else if (a[0] == '-' && a[1]) {
      return ox_usage_error("report", "unknown option '%s'", a);
    } else {
      nfiles++;
    }
  }
  if (!nfiles) return ox_usage_error("report", "no REPORT given");
  ox_report_set m;
  int set_ok = !ox_report_set_init(&m);
  ox_report_meta *meta = calloc((size_t)nfiles, sizeof *meta);
  ox_result **by = NULL;
  char *by_path = NULL;
  ox_err e = {0};
  if (!set_ok || !meta) {
    rc = ox_cli_oom("report", NULL);
    goto out;
  }
  if (junit && ox_claim_output(junit, &e)) {
    fprintf(stderr, "onnxop report: --junit %s: %s\n", junit, e.msg);
    rc = OX_EINPUT;
    goto out;
  }
  int f = 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--junit")) i++;
    if (a[0] == '-' && a[1]) continue;
    uint8_t *data;
    size_t len;
    meta[f].file = a;
    if (ox_read_file(m.A, a, &data, &len, &e) || ox_report_read(&m, &meta[f], f, (const char *)data, len, &e)) {
      fprintf(stderr, "onnxop report: %s: %s\n", a, e.msg);
      rc = OX_EINPUT;
    }
    f++;
  }
  if (rc) goto out;

  /* each case once: by path, across the reports and within each; a case
   * found again is said (ten of them at most) and counted once */
  int problems = 0;
  by = malloc(((size_t)m.n + 1) * sizeof *by);
  char *drop = calloc((size_t)m.n + 1, 1);
  if (!by || !drop) {
    free(drop);
    rc = ox_cli_oom("report", NULL);
    goto out;
  }
  long long nc = 0, cases = 0, twice = 0;
  for (long long i = 0; i < m.n; i++)
    if (m.r[i].st != OX_ST_STALE && m.r[i].st != OX_ST_DUPLICATE) by[nc++] = &m.r[i];
  qsort(by, (size_t)nc, sizeof *by, cmp_by_path);
  for (long long i = 1; i < nc; i++)
    if (!strcmp(by[i]->path, by[i - 1]->path)) {
      if (twice++ < 10) {
        fputs("onnxop report: ", stderr);
        ox_print_text(stderr, by[i]->path, 0);
        fprintf(stderr, " is in %s and in %s (a shard run twice, or shards that overlap)\n",
                meta[m.from[by[i - 1] - m.r]].file, meta[m.from[by[i] - m.r]].file);
      }
      drop[by[i] - m.r] = 1;
    }
  if (twice > 10) fprintf(stderr, "onnxop report: and %lld more cases are in two reports\n", twice - 10);
  problems += twice > 0;
  long long kept = 0;
  for (long long i = 0; i < m.n; i++)
    if (!drop[i]) {
      m.from[kept] = m.from[i];
      m.r[kept++] = m.r[i];
    }
  m.n = kept;
  free(drop);
  for (long long i = 0; i < m.n; i++) cases += m.r[i].st != OX_ST_STALE && m.r[i].st != OX_ST_DUPLICATE;
  /* the counts of the runs: each at most 2^53, and so their sums */
  long long selected = 0, not_run = 0;
  const char *past = NULL;
  for (int i = 0; i < nfiles && !past; i++)
    if (add_count(&not_run, meta[i].info.not_run)) past = "cases not run";
  int sc = past ? 0 : check_shards(meta, nfiles, &selected, &problems);
  if (sc == -2) {
    rc = ox_cli_oom("report", NULL);
    goto out;
  }
  if (sc) past = "selected cases";
  if (past) {
    fprintf(stderr, "onnxop report: the reports count more than 2^53 %s in all: they are not reports of real runs\n",
            past);
    rc = OX_EINPUT;
    goto out;
  }

  /* names two results share are shown by path */
  by_path = calloc((size_t)m.n + 1, 1);
  if (!by_path) {
    rc = ox_cli_oom("report", NULL);
    goto out;
  }
  nc = 0;
  for (long long i = 0; i < m.n; i++)
    if (m.r[i].st != OX_ST_STALE && m.r[i].st != OX_ST_DUPLICATE) by[nc++] = &m.r[i];
  qsort(by, (size_t)nc, sizeof *by, cmp_by_name);
  for (long long i = 1; i < nc; i++)
    if (!strcmp(by[i]->name, by[i - 1]->name)) by_path[by[i] - m.r] = by_path[by[i - 1] - m.r] = 1;

  ox_run_info info = {0, 0, selected, cases, not_run, NULL};
  for (int i = 0; i < nfiles && !info.xfail; i++) info.xfail = meta[i].info.xfail;
  if (json) {
    size_t failed = ox_mem_failures();
    rc = ox_print_json(ox_results_json(m.r, m.n, &info), "report", failed);
  } else {
    for (long long i = 0; i < m.n; i++) {
      const ox_result *r = &m.r[i];
      if (OX_ST_FAILS(r->st) ? verbose >= 0 : verbose > 0) print_line(r, by_path[i] ? r->path : r->name);
    }
    long long count[OX_ST_N];
    ox_count_results(m.r, m.n, count);
    ox_print_summary(stdout, count, not_run);
  }
  if (junit && !rc && (ox_junit_write(junit, m.r, m.n, m.groups, m.ngroups, &info, &e) || ox_commit_files(&e))) {
    fprintf(stderr, "onnxop report: %s: %s\n", junit, e.msg);
    rc = OX_EINPUT;
  }
  for (long long i = 0; i < m.n; i++)
    if (OX_ST_FAILS(m.r[i].st)) rc = OX_EINPUT;
  if (problems) {
    fprintf(stderr, "onnxop report: the reports are not one whole run, each case once (see above)\n");
    rc = OX_EINPUT;
  }
  if (!cases) {
    fprintf(stderr, "onnxop report: the reports hold no case: nothing was checked\n");
    rc = OX_EINPUT;
  }
out:
  if (junit) ox_discard_files();
  free(by_path);
  free(by);
  free(meta);
  if (set_ok) ox_report_set_free(&m);
  return rc;
}
