/* cli/results.c: test results as text, JSON, JUnit XML and TAP, written by
 * `onnxop test` and `onnxop report`, and the --junit and --json reports read
 * back (cli/results.h) for `onnxop report` to merge. Nothing here uses
 * main.c, so that the fuzz harnesses of the readers can link it. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <unistr.h>

#include "../core/ox.h"
#include "../io/io.h"
#include "cli.h"
#include "files.h"
#include "results.h"

static const char *const status_name[OX_ST_N] = {"pass",  "fail",  "error", "unsupported", "crash",
                                             "timeout", "xfail", "xpass", "stale",       "duplicate"};
const char *const ox_status_label[OX_ST_N] = {"PASS",    "FAIL",  "ERROR", "UNSUPPORTED", "CRASH",
                                              "TIMEOUT", "XFAIL", "XPASS", "STALE",       "DUPLICATE"};

void ox_count_results(const ox_result *r, long long n, long long count[OX_ST_N]) {
  memset(count, 0, OX_ST_N * sizeof *count);
  for (long long i = 0; i < n; i++) count[r[i].st]++;
}

void ox_print_summary(FILE *f, const long long count[OX_ST_N], long long not_run) {
  long long failed = 0;
  int any = 0;
  for (int s = 0; s < OX_ST_N; s++) {
    if (OX_ST_FAILS(s)) failed += count[s];
    if (s != OX_ST_PASS && count[s]) fprintf(f, "%s%lld %s", any++ ? ", " : "", count[s], status_name[s]);
  }
  if (not_run) fprintf(f, "%s%lld not run", any++ ? ", " : "", not_run);
  fprintf(f, "%s%lld passed, %lld failed\n", any ? "; " : "", count[OX_ST_PASS], failed);
}


/* "K/N" with 1 <= K <= N <= OX_SHARD_MAX, in decimal digits alone: 0, or -1 */
int ox_parse_shard(const char *s, int *k, int *n) {
  long long v[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    const char *d = s;
    for (; *s >= '0' && *s <= '9'; s++)
      if ((v[i] = v[i] * 10 + (*s - '0')) > OX_SHARD_MAX) return -1;
    if (s == d || *s != (i ? '\0' : '/')) return -1;
    s++;
  }
  if (v[0] < 1 || v[1] < v[0]) return -1;
  *k = (int)v[0];
  *n = (int)v[1];
  return 0;
}

/* seconds to 0.1 ms, so that reports stay short and compare equal; what is
 * not a time of 0 to OX_SECS_MAX seconds (NaN, infinite, negative) is 0 */
static double secs4(double s) { return s >= 0 && s <= OX_SECS_MAX ? (double)(long long)(s * 1e4 + 0.5) / 1e4 : 0; }

cJSON *ox_results_json(const ox_result *r, long long n, const ox_run_info *info) {
  cJSON *o = cJSON_CreateObject(), *cases = cJSON_AddArrayToObject(o, "cases"), *st = NULL, *dup = NULL,
        *counts = NULL;
  long long count[OX_ST_N];
  int ok = o && cases;
  ox_count_results(r, n, count);
  if (ok) ok = (st = cJSON_AddArrayToObject(o, "stale")) && (dup = cJSON_AddArrayToObject(o, "duplicates"));
  for (long long i = 0; i < n && ok; i++) {
    if (r[i].st == OX_ST_STALE || r[i].st == OX_ST_DUPLICATE) {
      cJSON *s = cJSON_CreateString(r[i].name);
      ok = s && cJSON_AddItemToArray(r[i].st == OX_ST_STALE ? st : dup, s);
      if (s && !ok) cJSON_Delete(s);
      continue;
    }
    cJSON *c = cJSON_CreateObject();
    if (c && !cJSON_AddItemToArray(cases, c)) cJSON_Delete(c), c = NULL;
    ok = c && cJSON_AddStringToObject(c, "name", r[i].name) &&
         cJSON_AddStringToObject(c, "path", r[i].path) &&
         cJSON_AddStringToObject(c, "status", status_name[r[i].st]) &&
         (r[i].message ? cJSON_AddStringToObject(c, "message", r[i].message) : cJSON_AddNullToObject(c, "message")) &&
         cJSON_AddNumberToObject(c, "seconds", secs4(r[i].secs));
  }
  if (ok) ok = (counts = cJSON_AddObjectToObject(o, "statuses")) != NULL;
  for (int s = 0; s < OX_ST_N && ok; s++) ok = cJSON_AddNumberToObject(counts, status_name[s], (double)count[s]) != NULL;
  long long failed = 0;
  for (int s = 0; s < OX_ST_N; s++)
    if (OX_ST_FAILS(s)) failed += count[s];
  if (ok && info->shard_n) {
    char sh[48];
    snprintf(sh, sizeof sh, "%d/%d", info->shard_k, info->shard_n);
    ok = cJSON_AddStringToObject(o, "shard", sh) != NULL;
  } else if (ok) {
    ok = cJSON_AddNullToObject(o, "shard") != NULL;
  }
  if (ok)
    ok = cJSON_AddNumberToObject(o, "selected", (double)info->selected) &&
         cJSON_AddNumberToObject(o, "run", (double)info->run) &&
         cJSON_AddNumberToObject(o, "not_run", (double)info->not_run) &&
         (info->xfail ? cJSON_AddStringToObject(o, "xfail", info->xfail) : cJSON_AddNullToObject(o, "xfail")) &&
         cJSON_AddNumberToObject(o, "passed", (double)count[OX_ST_PASS]) &&
         cJSON_AddNumberToObject(o, "failed", (double)failed) &&
         cJSON_AddNumberToObject(o, "xfailed", (double)count[OX_ST_XFAIL]) &&
         cJSON_AddNumberToObject(o, "xpassed", (double)count[OX_ST_XPASS]);
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}


/* ---- escaping ---- */

/* The length of the valid UTF-8 character at s (n bytes left) that XML 1.0
 * and YAML accept, or 0: an invalid byte, a control character other than
 * tab, newline and return, or U+FFFE/U+FFFF. */
static int char_ok(const char *s, size_t n, ucs4_t *c) {
  int len = u8_mbtoucr(c, (const uint8_t *)s, n);
  if (len <= 0) return 0;
  if ((*c < 0x20 && *c != '\t' && *c != '\n' && *c != '\r') || *c == 0x7f || *c == 0xFFFE || *c == 0xFFFF) return 0;
  return len;
}

void ox_print_text(FILE *f, const char *s, int lines) {
  size_t n = strlen(s), run = 0; /* run: bytes that print as they are, not yet written */
  while (n > run) {
    ucs4_t c;
    int len = char_ok(s + run, n - run, &c);
    if (len && (c >= 0x20 || c == '\t' || (c == '\n' && lines)) && !(c >= 0x80 && c < 0xA0)) {
      run += (size_t)len;
      continue;
    }
    fwrite(s, 1, run, f);
    fputc('?', f);
    len = len ? len : 1;
    s += run + (size_t)len;
    n -= run + (size_t)len;
    run = 0;
  }
  fwrite(s, 1, run, f);
}

/* s in an XML attribute or text: &<>"' as entities, tab and line ends as
 * character references (kept through attribute normalisation), anything
 * XML cannot hold as '?'. */
static void put_xml(ox_out *o, const char *s) {
  size_t n = strlen(s);
  while (n) {
    ucs4_t c;
    int len = char_ok(s, n, &c);
    const char *rep = NULL;
    char ref[8];
    if (!len) rep = "?", len = 1;
    else if (c == '&') rep = "&amp;";
    else if (c == '<') rep = "&lt;";
    else if (c == '>') rep = "&gt;";
    else if (c == '"') rep = "&quot;";
    else if (c == '\'') rep = "&apos;";
    else if (c < 0x20) snprintf(ref, sizeof ref, "&#%u;", (unsigned)c), rep = ref;
    if (rep) ox_out_put(o, rep, strlen(rep));
    else ox_out_put(o, s, (size_t)len);
    s += len;
    n -= (size_t)len;
  }
}

static void put_str(ox_out *o, const char *s) { ox_out_put(o, s, strlen(s)); }

/* printf into the stream, whatever the length (never cut short: a number
 * cut in an attribute would leave the XML malformed) */
static void put_fmt(ox_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_fmt(ox_out *o, const char *fmt, ...) {
  char b[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  if (k < 0) {
    o->err = o->err ? o->err : EINVAL;
  } else if ((size_t)k < sizeof b) {
    ox_out_put(o, b, (size_t)k);
  } else {
    char *big = ox_mem_malloc((size_t)k + 1);
    if (!big) {
      o->err = o->err ? o->err : ENOMEM;
      return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    va_end(ap);
    ox_out_put(o, big, (size_t)k);
    ox_mem_free(big);
  }
}

/* ---- JUnit XML ----
 * As Jenkins, GitLab and GitHub Actions read it, and valid against the Ant
 * JUnit schema (windyroad's JUnit.xsd): <testsuites> holds one <testsuite>
 * per group with name, package, id, timestamp, hostname, tests, failures,
 * errors, skipped and time; <properties>, the <testcase>s (name, classname,
 * time), <system-out/> and <system-err/>, in that order. A case holds at most
 * one of <failure> (fail, xpass; stale and duplicate lines), <error> (error,
 * unsupported, crash, timeout) or <skipped> (xfail), with its status as the
 * type and the message as both the message attribute and the text. The
 * onnxop.* properties carry what `onnxop report` needs to merge shards. */

/* The element a status is reported as, or NULL for a pass. */
static const char *junit_element(ox_status st) {
  switch (st) {
  case OX_ST_PASS: return NULL;
  case OX_ST_FAIL: case OX_ST_XPASS: case OX_ST_STALE: case OX_ST_DUPLICATE: return "failure";
  case OX_ST_XFAIL: return "skipped";
  default: return "error";
  }
}

/* classname: what the path holds before "/NAME" (the folder that holds the
 * case; for a report of another tool, its classname again, even when the
 * name holds a '/'), "." when the path is the name; the --xfail list for its
 * lines */
static void put_classname(ox_out *o, const ox_result *r, const ox_run_info *info) {
  if (r->st == OX_ST_STALE || r->st == OX_ST_DUPLICATE) {
    put_xml(o, info->xfail ? info->xfail : "xfail");
    return;
  }
  size_t lp = strlen(r->path), ln = strlen(r->name), n;
  if (!strcmp(r->path, r->name)) {
    put_str(o, ".");
    return;
  }
  if (lp > ln && r->path[lp - ln - 1] == '/' && !strcmp(r->path + lp - ln, r->name)) {
    n = lp - ln - 1;
  } else {
    const char *slash = strrchr(r->path, '/');
    if (!slash || slash == r->path) {
      put_str(o, slash ? "/" : ".");
      return;
    }
    n = (size_t)(slash - r->path);
  }
  char *dir = ox_mem_malloc(n + 1);
  if (!dir) {
    o->err = o->err ? o->err : ENOMEM;
    return;
  }
  memcpy(dir, r->path, n);
  dir[n] = 0;
  put_xml(o, dir);
  ox_mem_free(dir);
}

int ox_junit_put(ox_out *o, const ox_result *r, long long n, const char *const *groups, int ngroups,
                 const ox_run_info *info) {
  char host[256] = "", stamp[32];
  if (gethostname(host, sizeof host - 1) || !host[0]) snprintf(host, sizeof host, "localhost");
  time_t now = time(NULL);
  struct tm tm;
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tm));
  /* the results by group (a counting sort: first[g] .. first[g + 1] in
   * order[]), so that many groups write in linear time */
  long long *first = ox_mem_malloc(((size_t)ngroups + 1) * sizeof *first);
  long long *order = ox_mem_malloc(((size_t)n + 1) * sizeof *order);
  if (!first || !order) {
    ox_mem_free(first);
    ox_mem_free(order);
    o->err = o->err ? o->err : ENOMEM;
    return -1;
  }
  memset(first, 0, ((size_t)ngroups + 1) * sizeof *first);
  for (long long i = 0; i < n; i++)
    if (r[i].group >= 0 && r[i].group < ngroups) first[r[i].group + 1]++;
  for (int g = 0; g < ngroups; g++) first[g + 1] += first[g];
  for (long long i = 0; i < n; i++)
    if (r[i].group >= 0 && r[i].group < ngroups) order[first[r[i].group]++] = i;
  for (int g = ngroups; g > 0; g--) first[g] = first[g - 1]; /* back to the starts */
  first[0] = 0;
  put_str(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
  int id = 0;
  for (int g = 0; g < ngroups; g++) {
    if (!groups[g]) continue;
    long long tests = 0, failures = 0, errors = 0, skipped = 0;
    double secs = 0;
    for (long long j = first[g]; j < first[g + 1]; j++) {
      long long i = order[j];
      const char *el = junit_element(r[i].st);
      tests++;
      secs += secs4(r[i].secs);
      if (el && el[0] == 'f') failures++;
      if (el && el[0] == 'e') errors++;
      if (el && el[0] == 's') skipped++;
    }
    put_str(o, "  <testsuite name=\"");
    put_xml(o, groups[g]);
    put_str(o, "\" package=\"");
    put_xml(o, groups[g]);
    put_fmt(o, "\" id=\"%d\" timestamp=\"%s\" hostname=\"", id++, stamp);
    put_xml(o, host);
    put_fmt(o, "\" tests=\"%lld\" failures=\"%lld\" errors=\"%lld\" skipped=\"%lld\" time=\"%.4f\">\n", tests,
            failures, errors, skipped, secs);
    put_str(o, "    <properties>\n");
    put_fmt(o, "      <property name=\"onnxop.version\" value=\"%s\"/>\n", OX_VERSION);
    if (info->shard_n) put_fmt(o, "      <property name=\"onnxop.shard\" value=\"%d/%d\"/>\n", info->shard_k, info->shard_n);
    put_fmt(o, "      <property name=\"onnxop.selected\" value=\"%lld\"/>\n", info->selected);
    put_fmt(o, "      <property name=\"onnxop.run\" value=\"%lld\"/>\n", info->run);
    put_fmt(o, "      <property name=\"onnxop.not_run\" value=\"%lld\"/>\n", info->not_run);
    if (info->xfail) {
      put_str(o, "      <property name=\"onnxop.xfail\" value=\"");
      put_xml(o, info->xfail);
      put_str(o, "\"/>\n");
    }
    put_str(o, "    </properties>\n");
    for (long long j = first[g]; j < first[g + 1]; j++) {
      long long i = order[j];
      const char *el = junit_element(r[i].st);
      put_str(o, "    <testcase name=\"");
      put_xml(o, r[i].name);
      put_str(o, "\" classname=\"");
      put_classname(o, &r[i], info);
      put_fmt(o, "\" time=\"%.4f\"%s>\n", secs4(r[i].secs), el ? "" : "/");
      if (!el) continue;
      const char *msg = r[i].message ? r[i].message : "";
      put_fmt(o, "      <%s type=\"%s\" message=\"", el, status_name[r[i].st]);
      put_xml(o, msg);
      put_str(o, "\">");
      put_xml(o, msg);
      put_fmt(o, "</%s>\n    </testcase>\n", el);
    }
    put_str(o, "    <system-out/>\n    <system-err/>\n  </testsuite>\n");
  }
  put_str(o, "</testsuites>\n");
  ox_mem_free(first);
  ox_mem_free(order);
  return o->err ? -1 : 0;
}

int ox_junit_write(const char *file, const ox_result *r, long long n, const char *const *groups, int ngroups,
                   const ox_run_info *info, ox_err *e) {
  ox_out o;
  if (ox_out_open(&o, file, e)) return e->code ? e->code : OX_EINPUT;
  ox_junit_put(&o, r, n, groups, ngroups, info);
  if (ox_out_close(&o, e)) return e->code ? e->code : OX_EINPUT;
  return 0;
}

/* ---- TAP version 14 ---- */

/* A test point's description: the path, with '#' and '\' escaped as TAP 14
 * says and what a line cannot hold as '?'. */
static void tap_desc(FILE *f, const char *s) {
  size_t n = strlen(s);
  while (n) {
    ucs4_t c;
    int len = char_ok(s, n, &c);
    if (!len || c < 0x20) fputc('?', f), len = len ? len : 1;
    else if (c == '#' || c == '\\') fprintf(f, "\\%c", (int)c);
    else fwrite(s, 1, (size_t)len, f);
    s += len;
    n -= (size_t)len;
  }
}

/* A YAML double-quoted scalar. */
static void yaml_str(FILE *f, const char *s) {
  size_t n = strlen(s);
  fputc('"', f);
  while (n) {
    ucs4_t c;
    int len = char_ok(s, n, &c);
    if (!len) fprintf(f, "\\x%02x", (unsigned char)*s), len = 1;
    else if (c < 0x20) fprintf(f, "\\x%02x", (unsigned)c);
    else if (c == '"' || c == '\\') fprintf(f, "\\%c", (int)c);
    else fwrite(s, 1, (size_t)len, f);
    s += len;
    n -= (size_t)len;
  }
  fputc('"', f);
}

void ox_tap_point(FILE *f, long long num, const ox_result *r, const char *todo) {
  int ok = !OX_ST_FAILS(r->st) && r->st != OX_ST_XFAIL;
  fprintf(f, "%s %lld - ", ok ? "ok" : "not ok", num);
  tap_desc(f, r->path);
  if (r->st == OX_ST_XFAIL) {
    fputs(" # TODO ", f);
    tap_desc(f, todo && *todo ? todo : "expected to fail");
  }
  fputc('\n', f);
  if (r->st == OX_ST_PASS) return;
  fprintf(f, "  ---\n  status: %s\n  message: ", status_name[r->st]);
  yaml_str(f, r->message ? r->message : "");
  fprintf(f, "\n  seconds: %.4f\n  ...\n", secs4(r->secs));
}

/* ==== reading reports back (cli/results.h) ==== */

int ox_report_set_init(ox_report_set *m) {
  memset(m, 0, sizeof *m);
  return (m->A = ox_arena_new()) ? 0 : -1;
}

void ox_report_set_free(ox_report_set *m) {
  ox_mem_free(m->r);
  ox_mem_free(m->from);
  ox_mem_free(m->groups);
  ox_mem_free(m->gslot);
  ox_arena_free(m->A);
  memset(m, 0, sizeof *m);
}

static uint64_t hash_name(const char *s) { /* FNV-1a */
  uint64_t h = 1469598103934665603u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

/* The index of group `name`, added when new (a hash table: a report of
 * 100,000 testsuites reads in linear time); -1 when memory ran out. */
static int add_group(ox_report_set *m, const char *name) {
  unsigned mask = (unsigned)m->nslots - 1;
  for (unsigned i = m->nslots ? (unsigned)hash_name(name) & mask : 0; m->nslots && m->gslot[i]; i = (i + 1) & mask)
    if (!strcmp(m->groups[m->gslot[i] - 1], name)) return m->gslot[i] - 1;
  if (m->ngroups >= (1 << 28)) return -1;
  if (m->ngroups == m->capgroups) {
    int nc = m->capgroups ? m->capgroups * 2 : 8;
    const char **ng = ox_mem_realloc(m->groups, (size_t)nc * sizeof *ng);
    if (!ng) return -1;
    m->groups = ng;
    m->capgroups = nc;
  }
  if (2 * (m->ngroups + 1) > m->nslots) { /* at most half full: rebuild twice as large */
    int ns = m->nslots ? m->nslots * 2 : 16;
    int *slot = ox_mem_malloc((size_t)ns * sizeof *slot);
    if (!slot) return -1;
    memset(slot, 0, (size_t)ns * sizeof *slot);
    for (int g = 0; g < m->ngroups; g++) {
      unsigned i = (unsigned)hash_name(m->groups[g]) & ((unsigned)ns - 1);
      while (slot[i]) i = (i + 1) & ((unsigned)ns - 1);
      slot[i] = g + 1;
    }
    ox_mem_free(m->gslot);
    m->gslot = slot;
    m->nslots = ns;
    mask = (unsigned)ns - 1;
  }
  unsigned i = (unsigned)hash_name(name) & mask;
  while (m->gslot[i]) i = (i + 1) & mask;
  m->gslot[i] = m->ngroups + 1;
  m->groups[m->ngroups] = name;
  return m->ngroups++;
}

static int add_result(ox_report_set *m, const ox_result *r, const char *group, int from) {
  if (m->n == m->cap) {
    long long nc = m->cap ? m->cap * 2 : 1024;
    ox_result *nr = ox_mem_realloc(m->r, (size_t)nc * sizeof *nr);
    if (nr) m->r = nr;
    int *nf = nr ? ox_mem_realloc(m->from, (size_t)nc * sizeof *nf) : NULL;
    if (!nf) return -1;
    m->from = nf;
    m->cap = nc;
  }
  int g = add_group(m, group);
  if (g < 0) return -1;
  m->r[m->n] = *r;
  m->r[m->n].group = g;
  m->from[m->n++] = from;
  return 0;
}

static int status_of_name(const char *s) {
  for (int k = 0; k < OX_ST_N; k++)
    if (!strcmp(s, status_name[k])) return k;
  return -1;
}

/* the length of the UTF-8 byte-order mark text starts with (XML and JSON
 * readers may skip one), or 0 */
static size_t bom_len(const char *text, size_t len) {
  return len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

/* the line (from 1) of p in text */
static long long line_of(const char *text, const char *p) {
  long long line = 1;
  for (const char *q = text; q < p; q++) line += *q == '\n';
  return line;
}

int ox_report_read(ox_report_set *m, ox_report_meta *meta, int from, const char *text, size_t len, ox_err *e) {
  size_t k = bom_len(text, len);
  while (k < len && strchr(" \t\r\n", text[k]) && text[k]) k++;
  if (k < len && text[k] == '<') return ox_report_read_junit(m, meta, from, text, len, e);
  if (k < len && (text[k] == '{' || text[k] == '[')) return ox_report_read_json(m, meta, from, text, len, e);
  return ox_fail(e, OX_EINPUT, "neither JUnit XML nor an onnxop --json report");
}

/* ---- reading --json reports ---- */

int ox_report_read_json(ox_report_set *m, ox_report_meta *meta, int from, const char *text, size_t len, ox_err *e) {
  size_t failures = ox_mem_failures(), bom = bom_len(text, len);
  const char *end = NULL;
  cJSON *j = cJSON_ParseWithLengthOpts(text + bom, len - bom, &end, 0);
  const char *bad = NULL;
  char where[96] = "";
  if (!j && ox_mem_failures() != failures) return ox_oom(e, "reading the JSON report");
  if (!j) {
    /* cJSON says where it stopped */
    snprintf(where, sizeof where, "line %lld: ", end ? line_of(text, end) : 1);
    bad = "invalid JSON";
  } else {
    while (end && end < text + len && strchr(" \t\r\n", *end) && *end) end++;
    if (end && end < text + len) {
      snprintf(where, sizeof where, "line %lld: ", line_of(text, end));
      bad = "more after the JSON object";
    } else if (!cJSON_IsObject(j)) {
      bad = "not a JSON object";
    }
  }
  const cJSON *cases = bad ? NULL : cJSON_GetObjectItemCaseSensitive(j, "cases");
  if (!bad && !cJSON_IsArray(cases)) bad = "no \"cases\" array";
  const cJSON *c, *list = bad ? NULL : cases;
  int idx = 0, oom = 0;
  cJSON_ArrayForEach(c, list) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name"), *path = cJSON_GetObjectItemCaseSensitive(c, "path"),
                *st = cJSON_GetObjectItemCaseSensitive(c, "status"), *msg = cJSON_GetObjectItemCaseSensitive(c, "message"),
                *secs = cJSON_GetObjectItemCaseSensitive(c, "seconds");
    int s = cJSON_IsString(st) ? status_of_name(st->valuestring) : -1;
    snprintf(where, sizeof where, "cases[%d]: ", idx++);
    if (!cJSON_IsString(name) || !cJSON_IsString(path)) bad = "no \"name\" or \"path\" string";
    else if (s < 0 || s == OX_ST_STALE || s == OX_ST_DUPLICATE) bad = "\"status\" is not a case's status";
    else if (!cJSON_IsNumber(secs) || !(secs->valuedouble >= 0 && secs->valuedouble <= OX_SECS_MAX))
      bad = "\"seconds\" is not a number of seconds from 0 to 1e9";
    else if (msg && !cJSON_IsString(msg) && !cJSON_IsNull(msg)) bad = "\"message\" is neither a string nor null";
    if (bad) break;
    const char *dir = strrchr(path->valuestring, '/');
    ox_result r = {ox_strdup(m->A, name->valuestring), ox_strdup(m->A, path->valuestring),
                   cJSON_IsString(msg) ? ox_strdup(m->A, msg->valuestring) : NULL, (ox_status)s, secs->valuedouble, 0};
    const char *group = dir ? ox_strndup(m->A, path->valuestring, (size_t)(dir - path->valuestring)) : ".";
    if (!r.name || !r.path || (cJSON_IsString(msg) && !r.message) || !group || add_result(m, &r, group, from)) {
      oom = 1;
      break;
    }
  }
  if (!bad && !oom) where[0] = 0;
  const cJSON *xf = bad || oom ? NULL : cJSON_GetObjectItemCaseSensitive(j, "xfail");
  if (!bad && xf && !cJSON_IsNull(xf) && !cJSON_IsString(xf)) bad = "\"xfail\" is neither a string nor null";
  meta->info.xfail = NULL;
  if (!bad && cJSON_IsString(xf) && !(meta->info.xfail = ox_strdup(m->A, xf->valuestring))) oom = 1;
  static const char *const lists[2] = {"stale", "duplicates"};
  for (int k = 0; k < 2 && !bad && !oom; k++) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, lists[k]), *el;
    if (!cJSON_IsArray(l)) {
      snprintf(where, sizeof where, "\"%s\": ", lists[k]);
      bad = "not an array";
      l = NULL;
    }
    cJSON_ArrayForEach(el, l) {
      const char *name = cJSON_IsString(el) ? ox_strdup(m->A, el->valuestring) : NULL;
      ox_result r = {name, name, k ? "a duplicate line" : "names no case that was found", k ? OX_ST_DUPLICATE : OX_ST_STALE,
                     0, 0};
      if (!cJSON_IsString(el)) bad = "holds something that is not a string";
      else if (!name || add_result(m, &r, meta->info.xfail ? meta->info.xfail : "xfail", from)) oom = 1;
      if (bad) snprintf(where, sizeof where, "\"%s\": ", lists[k]);
      if (bad || oom) break;
    }
  }
  const cJSON *sh = bad || oom ? NULL : cJSON_GetObjectItemCaseSensitive(j, "shard");
  if (!bad && sh && !cJSON_IsNull(sh) &&
      (!cJSON_IsString(sh) || ox_parse_shard(sh->valuestring, &meta->info.shard_k, &meta->info.shard_n)))
    bad = "\"shard\" is not \"K/N\" or null (1 <= K <= N <= 1000000)";
  static const char *const nums[3] = {"selected", "run", "not_run"};
  long long *dst[3] = {&meta->info.selected, &meta->info.run, &meta->info.not_run};
  for (int k = 0; k < 3 && !bad && !oom; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, nums[k]);
    if (!v && k == 1) continue;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= (double)OX_COUNT_MAX) ||
        v->valuedouble != floor(v->valuedouble)) {
      snprintf(where, sizeof where, "\"%s\": ", nums[k]);
      bad = "not a count (a whole number from 0 to 2^53)";
    } else {
      *dst[k] = (long long)v->valuedouble;
      if (k == 1) meta->has_run = 1;
    }
  }
  cJSON_Delete(j);
  if (oom) return ox_oom(e, "reading the JSON report");
  if (bad) return ox_fail(e, OX_EINPUT, "not an onnxop --json report: %s%s", where, bad);
  return 0;
}

/* ---- reading JUnit XML ----
 * A small reader of well-formed XML: elements, attributes, the five
 * predefined entities and character references, comments, CDATA, processing
 * instructions and a DOCTYPE without an internal subset (no entity is ever
 * defined, so none can expand). Text is skipped: onnxop's messages are in
 * the message attributes. */

typedef struct { const char *name, *value; } xattr;

typedef struct {
  const char *start, *p, *end;
  ox_arena *A;
  const char *err;  /* what is wrong, at p */
  int oom;          /* err is that memory ran out */
} xml;

static int xml_fail(xml *x, const char *msg) {
  if (!x->err) x->err = msg;
  return -1;
}

static int xml_oom(xml *x) {
  if (!x->err) x->oom = 1;
  return xml_fail(x, "out of memory");
}

static int is_name_char(unsigned char c) {
  return c == '_' || c == ':' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c >= 0x80;
}

/* An attribute value between quotes, entities decoded, into the arena. */
static const char *xml_value(xml *x) {
  char q = *x->p++;
  const char *s = x->p, *e = memchr(s, q, (size_t)(x->end - s));
  if (!e) return xml_fail(x, "an attribute value is not closed"), NULL;
  char *out = ox_alloc(x->A, (size_t)(e - s) + 1), *o = out;
  if (!out) return xml_oom(x), NULL;
  while (s < e) {
    if (*s == '<') return x->p = s, xml_fail(x, "'<' in an attribute value"), NULL;
    if (*s != '&') {
      *o++ = *s++;
      continue;
    }
    const char *semi = memchr(s, ';', (size_t)(e - s));
    size_t n = semi ? (size_t)(semi - s) + 1 : 0;
    static const struct { const char *ent; char c; } ents[] = {
        {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    int done = 0;
    for (size_t k = 0; k < sizeof ents / sizeof *ents && !done; k++)
      if (n == strlen(ents[k].ent) && !memcmp(s, ents[k].ent, n)) *o++ = ents[k].c, done = 1;
    if (!done && n > 3 && s[1] == '#') {
      int hex = s[2] == 'x';
      const char *d = s + 2 + hex;
      unsigned long cp = 0;
      int digits = 0;
      for (; d < semi && digits < 8; d++, digits++) {
        int v = *d >= '0' && *d <= '9' ? *d - '0' : hex && *d >= 'a' && *d <= 'f' ? *d - 'a' + 10
              : hex && *d >= 'A' && *d <= 'F' ? *d - 'A' + 10 : -1;
        if (v < 0) break;
        cp = cp * (hex ? 16 : 10) + (unsigned long)v;
      }
      int len = d == semi && digits && cp && cp <= 0x10FFFF ? u8_uctomb((uint8_t *)o, (ucs4_t)cp, 6) : -1;
      if (len > 0) o += len, done = 1;
    }
    if (!done) return x->p = s, xml_fail(x, "an unknown entity or a bad character reference"), NULL;
    s += n;
  }
  *o = 0;
  x->p = e + 1;
  return out;
}

/* Skip to just after the text `end` (for comments, CDATA, <?...?>). */
static int xml_skip_past(xml *x, const char *end, const char *what) {
  size_t n = strlen(end);
  for (const char *q = x->p; q + n <= x->end; q++)
    if (!memcmp(q, end, n)) {
      x->p = q + n;
      return 0;
    }
  return xml_fail(x, what);
}

/* The next tag: *kind 1 a start tag (*empty: it closes itself), 2 an end
 * tag, 0 the end of the text. Comments, text and the like are skipped. */
static int xml_next(xml *x, int *kind, const char **name, xattr *at, int *nat, int *empty) {
  *kind = 0;
  while (x->p < x->end) {
    const char *lt = memchr(x->p, '<', (size_t)(x->end - x->p));
    if (!lt) {
      x->p = x->end;
      return 0;
    }
    x->p = lt;
    size_t left = (size_t)(x->end - lt);
    if (left >= 4 && !memcmp(lt, "<!--", 4)) {
      x->p += 4;
      if (xml_skip_past(x, "-->", "a comment is not closed")) return -1;
    } else if (left >= 9 && !memcmp(lt, "<![CDATA[", 9)) {
      x->p += 9;
      if (xml_skip_past(x, "]]>", "a CDATA section is not closed")) return -1;
    } else if (left >= 2 && lt[1] == '?') {
      x->p += 2;
      if (xml_skip_past(x, "?>", "a processing instruction is not closed")) return -1;
    } else if (left >= 9 && !memcmp(lt, "<!DOCTYPE", 9)) {
      const char *gt = memchr(lt, '>', left), *br = memchr(lt, '[', left);
      if (!gt) return xml_fail(x, "a DOCTYPE is not closed");
      if (br && br < gt) return xml_fail(x, "a DOCTYPE with an internal subset (entity definitions are refused)");
      x->p = gt + 1;
    } else {
      int end_tag = left >= 2 && lt[1] == '/';
      x->p += 1 + end_tag;
      const char *s = x->p;
      while (x->p < x->end && is_name_char((unsigned char)*x->p)) x->p++;
      if (x->p == s) return xml_fail(x, "a '<' that starts no tag");
      *name = ox_strndup(x->A, s, (size_t)(x->p - s));
      if (!*name) return xml_oom(x);
      *nat = 0;
      *empty = 0;
      for (;;) {
        while (x->p < x->end && strchr(" \t\r\n", *x->p)) x->p++;
        if (x->p >= x->end) return xml_fail(x, "a tag is not closed");
        if (*x->p == '>') {
          x->p++;
          break;
        }
        if (!end_tag && *x->p == '/' && x->p + 1 < x->end && x->p[1] == '>') {
          x->p += 2;
          *empty = 1;
          break;
        }
        if (end_tag) return xml_fail(x, "an end tag with more than a name");
        const char *an = x->p;
        while (x->p < x->end && is_name_char((unsigned char)*x->p)) x->p++;
        size_t anl = (size_t)(x->p - an);
        while (x->p < x->end && strchr(" \t\r\n", *x->p)) x->p++;
        if (!anl || x->p >= x->end || *x->p != '=') return xml_fail(x, "an attribute without '='");
        x->p++;
        while (x->p < x->end && strchr(" \t\r\n", *x->p)) x->p++;
        if (x->p >= x->end || (*x->p != '"' && *x->p != '\'')) return xml_fail(x, "an attribute value without quotes");
        if (*nat == 32) return xml_fail(x, "a tag with more than 32 attributes");
        if (!(at[*nat].name = ox_strndup(x->A, an, anl))) return xml_oom(x);
        if (!(at[*nat].value = xml_value(x))) return -1;
        for (int k = 0; k < *nat; k++)
          if (!strcmp(at[k].name, at[*nat].name)) return xml_fail(x, "an attribute given twice");
        (*nat)++;
      }
      *kind = end_tag ? 2 : 1;
      return 0;
    }
  }
  return 0;
}

static const char *xattr_get(const xattr *at, int n, const char *name) {
  for (int k = 0; k < n; k++)
    if (!strcmp(at[k].name, name)) return at[k].value;
  return NULL;
}

/* A count of an onnxop.* property: decimal digits, 0 to OX_COUNT_MAX: 0, or -1 */
static int parse_count(const char *s, long long *v) {
  *v = 0;
  if (!*s) return -1;
  for (; *s; s++)
    if (*s < '0' || *s > '9' || (*v = *v * 10 + (*s - '0')) > OX_COUNT_MAX) return -1;
  return 0;
}

/* A <testcase>'s time: seconds from 0 to OX_SECS_MAX, and anything else
 * (absent, not a number, "inf", "1e300", "1,5") 0, as Jenkins reads a time
 * it cannot parse: the time of another tool's report never fails a merge. */
static double parse_time(const char *t) {
  char *end;
  double s = t && *t ? strtod(t, &end) : 0;
  return t && *t && !*end && s >= 0 && s <= OX_SECS_MAX ? s : 0;
}

int ox_report_read_junit(ox_report_set *m, ox_report_meta *meta, int from, const char *text, size_t len,
                         ox_err *e) {
  xml x = {text, text + bom_len(text, len), text + len, m->A, NULL, 0};
  const char *stack[64], *suite = NULL;
  int depth = 0, in_case = -1, kind, nat, empty, root_ok = 0;
  xattr at[32];
  ox_result cur = {0};
  const char *name;
  const char *nul = memchr(text, 0, len);
  if (nul) { /* XML never holds one, and it would cut a name short */
    x.p = nul;
    xml_fail(&x, "a NUL byte");
  }
  while (!x.err && !xml_next(&x, &kind, &name, at, &nat, &empty) && kind) {
    if (kind == 2) { /* an end tag: closes the innermost element */
      if (!depth || strcmp(stack[depth - 1], name)) {
        xml_fail(&x, "an end tag that closes no open element");
        break;
      }
      depth--;
    }
    if (kind == 1 && !depth && (root_ok || (strcmp(name, "testsuites") && strcmp(name, "testsuite")))) {
      xml_fail(&x, root_ok ? "a second root element" : "the root is neither <testsuites> nor <testsuite>");
      break;
    }
    if (kind == 1 && !depth) root_ok = 1;
    if (kind == 1 && !strcmp(name, "testsuite")) {
      suite = xattr_get(at, nat, "name");
      if (!suite || !*suite) suite = "testsuite";
    } else if (kind == 1 && !strcmp(name, "property") && suite) {
      const char *pn = xattr_get(at, nat, "name"), *pv = xattr_get(at, nat, "value");
      long long v = 0;
      if (!pn || !pv || strncmp(pn, "onnxop.", 7) || !strcmp(pn, "onnxop.version")) {
        /* another tool's property, or one onnxop does not read */
      } else if (!strcmp(pn, "onnxop.shard")) {
        if (ox_parse_shard(pv, &meta->info.shard_k, &meta->info.shard_n)) {
          xml_fail(&x, "the property onnxop.shard is not K/N (1 <= K <= N <= 1000000)");
          break;
        }
      } else if (!strcmp(pn, "onnxop.xfail")) {
        meta->info.xfail = pv;
      } else if (parse_count(pv, &v)) {
        xml_fail(&x, "an onnxop.* property whose value is not a count (a whole number from 0 to 2^53)");
        break;
      } else if (!strcmp(pn, "onnxop.selected")) {
        meta->info.selected = v;
      } else if (!strcmp(pn, "onnxop.run")) {
        meta->info.run = v, meta->has_run = 1;
      } else if (!strcmp(pn, "onnxop.not_run")) {
        meta->info.not_run = v;
      }
    } else if (kind == 1 && !strcmp(name, "testcase")) {
      const char *cn = xattr_get(at, nat, "classname"), *tn = xattr_get(at, nat, "name");
      if (in_case >= 0 || !suite || !tn || !cn) {
        xml_fail(&x, in_case >= 0 ? "a <testcase> inside a <testcase>" : !suite ? "a <testcase> outside a <testsuite>"
                 : "a <testcase> without name or classname");
        break;
      }
      cur = (ox_result){tn, strcmp(cn, ".") ? ox_sprintf(m->A, "%s/%s", cn, tn) : tn, NULL, OX_ST_PASS,
                        parse_time(xattr_get(at, nat, "time")), 0};
      if (!cur.path) {
        xml_oom(&x);
        break;
      }
      in_case = depth;
    } else if (kind == 1 && in_case >= 0 && depth == in_case + 1 &&
               (!strcmp(name, "failure") || !strcmp(name, "error") || !strcmp(name, "skipped"))) {
      const char *type = xattr_get(at, nat, "type"), *msg = xattr_get(at, nat, "message");
      int s = type ? status_of_name(type) : -1;
      if (s < 0 || s == OX_ST_PASS)
        s = name[0] == 'f' ? OX_ST_FAIL : name[0] == 'e' ? OX_ST_ERROR : OX_ST_XFAIL;
      cur.st = (ox_status)s;
      cur.message = msg ? msg : "";
    }
    if (kind == 1 && !empty) {
      if (depth == 64) {
        xml_fail(&x, "elements nested more than 64 deep");
        break;
      }
      stack[depth++] = name;
    }
    if (in_case >= 0 && depth == in_case) { /* the testcase closed */
      if (cur.st == OX_ST_STALE || cur.st == OX_ST_DUPLICATE) cur.path = cur.name;
      if (add_result(m, &cur, suite, from)) {
        xml_oom(&x);
        break;
      }
      in_case = -1;
    }
  }
  if (!x.err && depth) xml_fail(&x, "the file ends inside an element");
  if (!x.err && !root_ok) xml_fail(&x, "no element");
  if (x.oom) return ox_oom(e, "reading the JUnit report");
  if (x.err)
    return ox_fail(e, OX_EINPUT, "not a JUnit XML report: line %lld: %s", line_of(x.start, x.p < x.end ? x.p : x.end),
                   x.err);
  return 0;
}
