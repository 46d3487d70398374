/* cli/report.c: test results as text, JSON and JUnit XML, shared by
 * `onnxop test` (which writes them) and `onnxop report` (which reads shard
 * reports back and merges them). */
#include <errno.h>
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

const char *const ox_status_name[OX_ST_N] = {"pass",  "fail",  "error", "unsupported", "crash",
                                             "timeout", "xfail", "xpass", "stale",       "duplicate"};

void ox_count_results(const ox_result *r, long long n, long long count[OX_ST_N]) {
  memset(count, 0, OX_ST_N * sizeof *count);
  for (long long i = 0; i < n; i++) count[r[i].st]++;
}

void ox_print_summary(FILE *f, const long long count[OX_ST_N], long long not_run) {
  long long failed = 0;
  int any = 0;
  for (int s = 0; s < OX_ST_N; s++) {
    if (OX_ST_FAILS(s)) failed += count[s];
    if (s != OX_ST_PASS && count[s]) fprintf(f, "%s%lld %s", any++ ? ", " : "", count[s], ox_status_name[s]);
  }
  if (not_run) fprintf(f, "%s%lld not run", any++ ? ", " : "", not_run);
  fprintf(f, "%s%lld passed, %lld failed\n", any ? "; " : "", count[OX_ST_PASS], failed);
}

/* seconds to 0.1 ms, so that reports stay short and compare equal */
static double secs4(double s) { return (double)(long long)(s * 1e4 + 0.5) / 1e4; }

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
         cJSON_AddStringToObject(c, "status", ox_status_name[r[i].st]) &&
         (r[i].message ? cJSON_AddStringToObject(c, "message", r[i].message) : cJSON_AddNullToObject(c, "message")) &&
         cJSON_AddNumberToObject(c, "seconds", secs4(r[i].secs));
  }
  if (ok) ok = (counts = cJSON_AddObjectToObject(o, "statuses")) != NULL;
  for (int s = 0; s < OX_ST_N && ok; s++) ok = cJSON_AddNumberToObject(counts, ox_status_name[s], (double)count[s]) != NULL;
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

static void put_fmt(ox_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_fmt(ox_out *o, const char *fmt, ...) {
  char b[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  ox_out_put(o, b, k < 0 ? 0 : (size_t)k < sizeof b ? (size_t)k : sizeof b - 1);
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

/* classname: the folder that holds the case (the --xfail list for its lines) */
static void put_classname(ox_out *o, const ox_result *r, const ox_run_info *info) {
  if (r->st == OX_ST_STALE || r->st == OX_ST_DUPLICATE) {
    put_xml(o, info->xfail ? info->xfail : "xfail");
    return;
  }
  const char *slash = strrchr(r->path, '/');
  if (!slash || slash == r->path) {
    put_str(o, slash ? "/" : ".");
    return;
  }
  size_t n = (size_t)(slash - r->path);
  char *dir = strndup(r->path, n);
  if (dir) put_xml(o, dir);
  else o->err = o->err ? o->err : ENOMEM;
  free(dir);
}

int ox_junit_write(const char *file, const ox_result *r, long long n, const char *const *groups, int ngroups,
                   const ox_run_info *info, ox_err *e) {
  ox_out o;
  if (ox_out_open(&o, file, e)) return OX_EINPUT;
  char host[256] = "", stamp[32];
  if (gethostname(host, sizeof host - 1) || !host[0]) snprintf(host, sizeof host, "localhost");
  time_t now = time(NULL);
  struct tm tm;
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tm));
  put_str(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
  int id = 0;
  for (int g = 0; g < ngroups; g++) {
    if (!groups[g]) continue;
    long long tests = 0, failures = 0, errors = 0, skipped = 0;
    double secs = 0;
    for (long long i = 0; i < n; i++) {
      if (r[i].group != g) continue;
      const char *el = junit_element(r[i].st);
      tests++;
      secs += r[i].secs;
      if (el && el[0] == 'f') failures++;
      if (el && el[0] == 'e') errors++;
      if (el && el[0] == 's') skipped++;
    }
    put_str(&o, "  <testsuite name=\"");
    put_xml(&o, groups[g]);
    put_str(&o, "\" package=\"");
    put_xml(&o, groups[g]);
    put_fmt(&o, "\" id=\"%d\" timestamp=\"%s\" hostname=\"", id++, stamp);
    put_xml(&o, host);
    put_fmt(&o, "\" tests=\"%lld\" failures=\"%lld\" errors=\"%lld\" skipped=\"%lld\" time=\"%.4f\">\n", tests,
            failures, errors, skipped, secs);
    put_str(&o, "    <properties>\n");
    put_fmt(&o, "      <property name=\"onnxop.version\" value=\"%s\"/>\n", OX_VERSION);
    if (info->shard_n) put_fmt(&o, "      <property name=\"onnxop.shard\" value=\"%d/%d\"/>\n", info->shard_k, info->shard_n);
    put_fmt(&o, "      <property name=\"onnxop.selected\" value=\"%lld\"/>\n", info->selected);
    put_fmt(&o, "      <property name=\"onnxop.not_run\" value=\"%lld\"/>\n", info->not_run);
    if (info->xfail) {
      put_str(&o, "      <property name=\"onnxop.xfail\" value=\"");
      put_xml(&o, info->xfail);
      put_str(&o, "\"/>\n");
    }
    put_str(&o, "    </properties>\n");
    for (long long i = 0; i < n; i++) {
      if (r[i].group != g) continue;
      const char *el = junit_element(r[i].st);
      put_str(&o, "    <testcase name=\"");
      put_xml(&o, r[i].name);
      put_str(&o, "\" classname=\"");
      put_classname(&o, &r[i], info);
      put_fmt(&o, "\" time=\"%.4f\"%s>\n", secs4(r[i].secs), el ? "" : "/");
      if (!el) continue;
      const char *msg = r[i].message ? r[i].message : "";
      put_fmt(&o, "      <%s type=\"%s\" message=\"", el, ox_status_name[r[i].st]);
      put_xml(&o, msg);
      put_str(&o, "\">");
      put_xml(&o, msg);
      put_fmt(&o, "</%s>\n    </testcase>\n", el);
    }
    put_str(&o, "    <system-out/>\n    <system-err/>\n  </testsuite>\n");
  }
  put_str(&o, "</testsuites>\n");
  if (ox_out_close(&o, e)) return OX_EINPUT;
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
  fprintf(f, "  ---\n  status: %s\n  message: ", ox_status_name[r->st]);
  yaml_str(f, r->message ? r->message : "");
  fprintf(f, "\n  seconds: %.4f\n  ...\n", secs4(r->secs));
}
