/* tests/fuzz/report_check.h: what the harnesses of the two report readers
 * (fuzz_report_junit.c, fuzz_report_json.c) check of a report that reads:
 * written again as JUnit and as JSON (cli/results.c's writers), each reads
 * back, and a second round gives what the first gave (the writers may
 * replace what their format cannot hold, once). Each reader is also asked
 * for what a terminal would show of every name and message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/results.h"

typedef int (*report_reader)(ox_report_set *, ox_report_meta *, int, const char *, size_t, ox_err *);

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* The text of set s in format `json` (1) or JUnit (0), into b: 0, or -1
 * when memory ran out (the limit is the harness's). */
static int write_report(const ox_report_set *s, const ox_report_meta *meta, int json, ox_buf *b) {
  if (json) {
    cJSON *j = ox_results_json(s->r, s->n, &meta->info);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    int rc = text ? ox_buf_put(b, text, strlen(text)) : -1;
    cJSON_free(text);
    cJSON_Delete(j);
    return rc;
  }
  ox_out o;
  ox_out_buf(&o, b);
  int rc = ox_junit_put(&o, s->r, s->n, s->groups, s->ngroups, &meta->info);
  return ox_out_finish(&o) || rc ? -1 : 0;
}

/* a report written by one of the writers must read: abort() when it does not */
static int reread(const ox_report_set *s, const ox_report_meta *meta, int json, ox_report_set *out,
                  ox_report_meta *out_meta) {
  ox_buf b = {0};
  ox_err e = {0};
  int rc = 0;
  memset(out_meta, 0, sizeof *out_meta);
  if (ox_report_set_init(out)) return -1;
  if (write_report(s, meta, json, &b)) {
    rc = -1;
  } else if ((json ? ox_report_read_json : ox_report_read_junit)(out, out_meta, 0, (const char *)b.p, b.n, &e)) {
    if (e.code != OX_ENOMEM) {
      fprintf(stderr, "the %s written does not read back: %s\n%.*s\n", json ? "JSON" : "JUnit", e.msg,
              (int)(b.n < 4000 ? b.n : 4000), (const char *)b.p);
      abort();
    }
    rc = -1;
  }
  ox_buf_free(&b);
  return rc;
}

/* a result and its group's name, to compare sets as multisets: two groups
 * whose names one writer makes equal ("a\x80" and "a\x81" as "a?") read
 * back as one, and the results of a group are written together, so the
 * order may change once */
typedef struct {
  const ox_result *r;
  const char *group;
} keyed;

static int cmp_str(const char *a, const char *b) { return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b); }

static int cmp_keyed(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  int c = cmp_str(a->group, b->group);
  if (!c) c = cmp_str(a->r->path, b->r->path);
  if (!c) c = cmp_str(a->r->name, b->r->name);
  if (!c) c = cmp_str(a->r->message, b->r->message);
  if (!c) c = (a->r->st > b->r->st) - (a->r->st < b->r->st);
  if (!c) c = (a->r->secs > b->r->secs) - (a->r->secs < b->r->secs);
  return c;
}

static keyed *sorted(const ox_report_set *s, int json) {
  keyed *k = malloc(((size_t)s->n + 1) * sizeof *k);
  if (!k) abort();
  for (long long i = 0; i < s->n; i++) k[i] = (keyed){&s->r[i], json ? NULL : s->groups[s->r[i].group]};
  qsort(k, (size_t)s->n, sizeof *k, cmp_keyed);
  return k;
}

static void same_sets(const ox_report_set *a, const ox_report_meta *ma, const ox_report_set *b,
                      const ox_report_meta *mb, int json) {
  const char *why = NULL;
  const keyed *x = NULL, *y = NULL;
  keyed *ka = sorted(a, json), *kb = sorted(b, json);
  if (a->n != b->n) why = "the number of results";
  for (long long i = 0; i < a->n && !why; i++) {
    x = &ka[i], y = &kb[i];
    if (!same_str(x->r->name, y->r->name)) why = "a name";
    else if (!same_str(x->r->path, y->r->path)) why = "a path";
    else if (!same_str(x->r->message, y->r->message)) why = "a message";
    else if (x->r->st != y->r->st) why = "a status";
    else if (x->r->secs != y->r->secs) why = "a time";
    else if (!same_str(x->group, y->group)) why = "a group";
  }
  if (!why && (a->n || json)) {
    const ox_run_info *p = &ma->info, *q = &mb->info;
    if (p->shard_k != q->shard_k || p->shard_n != q->shard_n) why = "the shard";
    else if (p->selected != q->selected || p->not_run != q->not_run || p->run != q->run) why = "a count";
    else if (!same_str(p->xfail, q->xfail)) why = "the xfail list";
  }
  if (why) {
    fprintf(stderr, "written as %s and read twice, %s changed\n", json ? "JSON" : "JUnit", why);
    if (x && y)
      fprintf(stderr, "name '%s' path '%s' group '%s', then name '%s' path '%s' group '%s'\n", x->r->name,
              x->r->path, x->group ? x->group : "", y->r->name, y->r->path, y->group ? y->group : "");
    abort();
  }
  free(ka);
  free(kb);
}

static FILE *null_stream(void) {
  static FILE *f;
  if (!f) f = fopen("/dev/null", "w");
  return f;
}

static int check_report(report_reader read, const uint8_t *data, size_t size) {
  ox_set_memory_limit((size_t)256 << 20);
  ox_report_set s;
  ox_report_meta meta = {0};
  ox_err e = {0};
  if (ox_report_set_init(&s)) return 0;
  if (!read(&s, &meta, 0, (const char *)data, size, &e)) {
    FILE *f = null_stream();
    for (long long i = 0; i < s.n && f; i++) {
      ox_print_text(f, s.r[i].name, 0);
      ox_print_text(f, s.r[i].path, 0);
      if (s.r[i].message) ox_print_text(f, s.r[i].message, 1);
    }
    for (int json = 0; json < 2; json++) {
      ox_report_set s2, s3;
      ox_report_meta m2, m3;
      if (!reread(&s, &meta, json, &s2, &m2) && !reread(&s2, &m2, json, &s3, &m3)) same_sets(&s2, &m2, &s3, &m3, json);
      ox_report_set_free(&s2);
      ox_report_set_free(&s3);
    }
  }
  ox_report_set_free(&s);
  return 0;
}
