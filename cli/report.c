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
#include "files.h"

const char *const ox_status_name[OX_ST_N] = {"pass",  "fail",  "error", "unsupported", "crash",
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
    if (s != OX_ST_PASS && count[s]) fprintf(f, "%s%lld %s", any++ ? ", " : "", count[s], ox_status_name[s]);
  }
  if (not_run) fprintf(f, "%s%lld not run", any++ ? ", " : "", not_run);
  fprintf(f, "%s%lld passed, %lld failed\n", any ? "; " : "", count[OX_ST_PASS], failed);
}

int ox_print_json(cJSON *j, const char *cmd, size_t failures) {
  char *text = j ? cJSON_PrintUnformatted(j) : NULL;
  /* a cJSON_Add... that ran out of memory dropped its item: no report then */
  int ok = text && ox_mem_failures() == failures;
  if (ok) puts(text);
  cJSON_free(text);
  cJSON_Delete(j);
  return ok ? 0 : ox_cli_oom(cmd, "making the report");
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
  if (ox_out_open(&o, file, e)) return e->code ? e->code : OX_EINPUT;
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
    put_fmt(&o, "      <property name=\"onnxop.run\" value=\"%lld\"/>\n", info->run);
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
  fprintf(f, "  ---\n  status: %s\n  message: ", ox_status_name[r->st]);
  yaml_str(f, r->message ? r->message : "");
  fprintf(f, "\n  seconds: %.4f\n  ...\n", secs4(r->secs));
}

/* ==== onnxop report FILE...: merge shard reports ==== */

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
    "error, <skipped> an xfail, unless the type attribute names a status.\n"
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

/* What one report says of its run. */
typedef struct {
  const char *file;
  ox_run_info info;
  int has_run; /* info.run is given */
} rmeta;

/* The merged results. */
typedef struct {
  ox_arena *A;
  ox_result *r;
  int *from; /* r[i] came from report from[i] */
  long long n, cap;
  const char **groups; /* JUnit testsuites, in order of first appearance */
  int ngroups, capgroups;
} merged;

static int add_group(merged *m, const char *name) {
  for (int g = m->ngroups; g-- > 0;) /* the latest first: results come in runs */
    if (!strcmp(m->groups[g], name)) return g;
  if (m->ngroups == m->capgroups) {
    int nc = m->capgroups ? m->capgroups * 2 : 8;
    const char **ng = ox_mem_realloc(m->groups, (size_t)nc * sizeof *ng);
    if (!ng) return -1;
    m->groups = ng;
    m->capgroups = nc;
  }
  m->groups[m->ngroups] = name;
  return m->ngroups++;
}

static int add_result(merged *m, const ox_result *r, const char *group, int from) {
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
    if (!strcmp(s, ox_status_name[k])) return k;
  return -1;
}

/* "K/N" of a report; 0, or -1 */
static int shard_of(const char *s, int *k, int *n) {
  char tail;
  if (sscanf(s, "%d/%d%c", k, n, &tail) != 2 || *k < 1 || *n < *k) return -1;
  return 0;
}

/* ---- reading --json reports ---- */

static int read_json(merged *m, rmeta *meta, int from, const char *text, size_t len, char *why, size_t nwhy) {
  cJSON *j = cJSON_ParseWithLength(text, len);
  const char *bad = NULL;
  char where[96] = "";
  if (!cJSON_IsObject(j)) bad = j ? "not a JSON object" : "invalid JSON (or out of memory)";
  const cJSON *cases = bad ? NULL : cJSON_GetObjectItemCaseSensitive(j, "cases");
  if (!bad && !cJSON_IsArray(cases)) bad = "no \"cases\" array";
  const cJSON *c, *list = bad ? NULL : cases;
  int idx = 0;
  cJSON_ArrayForEach(c, list) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name"), *path = cJSON_GetObjectItemCaseSensitive(c, "path"),
                *st = cJSON_GetObjectItemCaseSensitive(c, "status"), *msg = cJSON_GetObjectItemCaseSensitive(c, "message"),
                *secs = cJSON_GetObjectItemCaseSensitive(c, "seconds");
    int s = cJSON_IsString(st) ? status_of_name(st->valuestring) : -1;
    snprintf(where, sizeof where, "cases[%d]: ", idx++);
    if (!cJSON_IsString(name) || !cJSON_IsString(path)) bad = "no \"name\" or \"path\" string";
    else if (s < 0 || s == OX_ST_STALE || s == OX_ST_DUPLICATE) bad = "\"status\" is not a case's status";
    else if (!cJSON_IsNumber(secs) || !(secs->valuedouble >= 0)) bad = "\"seconds\" is not a number >= 0";
    else if (msg && !cJSON_IsString(msg) && !cJSON_IsNull(msg)) bad = "\"message\" is neither a string nor null";
    if (bad) break;
    const char *dir = strrchr(path->valuestring, '/');
    ox_result r = {ox_strdup(m->A, name->valuestring), ox_strdup(m->A, path->valuestring),
                   cJSON_IsString(msg) ? ox_strdup(m->A, msg->valuestring) : NULL, (ox_status)s, secs->valuedouble, 0};
    const char *group = dir ? ox_strndup(m->A, path->valuestring, (size_t)(dir - path->valuestring)) : ".";
    if (!r.name || !r.path || (cJSON_IsString(msg) && !r.message) || !group || add_result(m, &r, group, from)) {
      bad = "out of memory";
      break;
    }
  }
  if (!bad) where[0] = 0;
  const cJSON *xf = bad ? NULL : cJSON_GetObjectItemCaseSensitive(j, "xfail");
  if (!bad && xf && !cJSON_IsNull(xf) && !cJSON_IsString(xf)) bad = "\"xfail\" is neither a string nor null";
  meta->info.xfail = cJSON_IsString(xf) ? ox_strdup(m->A, xf->valuestring) : NULL;
  static const char *const lists[2] = {"stale", "duplicates"};
  for (int k = 0; k < 2 && !bad; k++) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, lists[k]), *e;
    if (!cJSON_IsArray(l)) {
      snprintf(where, sizeof where, "\"%s\": ", lists[k]);
      bad = "not an array";
      l = NULL;
    }
    cJSON_ArrayForEach(e, l) {
      const char *name = cJSON_IsString(e) ? ox_strdup(m->A, e->valuestring) : NULL;
      ox_result r = {name, name, k ? "a duplicate line" : "names no case that was found", k ? OX_ST_DUPLICATE : OX_ST_STALE,
                     0, 0};
      if (!cJSON_IsString(e)) bad = "holds something that is not a string";
      else if (!name || add_result(m, &r, meta->info.xfail ? meta->info.xfail : "xfail", from)) bad = "out of memory";
      if (bad) {
        snprintf(where, sizeof where, "\"%s\": ", lists[k]);
        break;
      }
    }
  }
  const cJSON *sh = bad ? NULL : cJSON_GetObjectItemCaseSensitive(j, "shard");
  if (!bad && sh && !cJSON_IsNull(sh) &&
      (!cJSON_IsString(sh) || shard_of(sh->valuestring, &meta->info.shard_k, &meta->info.shard_n)))
    bad = "\"shard\" is not \"K/N\" or null";
  static const char *const nums[3] = {"selected", "run", "not_run"};
  long long *dst[3] = {&meta->info.selected, &meta->info.run, &meta->info.not_run};
  for (int k = 0; k < 3 && !bad; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, nums[k]);
    if (!v && k == 1) continue;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 9e15) {
      snprintf(where, sizeof where, "\"%s\": ", nums[k]);
      bad = "not a count";
    } else {
      *dst[k] = (long long)v->valuedouble;
      if (k == 1) meta->has_run = 1;
    }
  }
  cJSON_Delete(j);
  if (bad) snprintf(why, nwhy, "not an onnxop --json report: %s%s", where, bad);
  return bad ? -1 : 0;
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
} xml;

static int xml_fail(xml *x, const char *msg) {
  if (!x->err) x->err = msg;
  return -1;
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
  if (!out) return xml_fail(x, "out of memory"), NULL;
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
      if (!*name) return xml_fail(x, "out of memory");
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
        at[*nat].name = ox_strndup(x->A, an, anl);
        if (!at[*nat].name || !(at[*nat].value = xml_value(x))) return xml_fail(x, "out of memory");
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

static int read_junit(merged *m, rmeta *meta, int from, const char *text, size_t len, char *why, size_t nwhy) {
  xml x = {text, text, text + len, m->A, NULL};
  const char *stack[64], *suite = NULL;
  int depth = 0, in_case = -1, kind, nat, empty, nsuites = 0, root_ok = 0;
  xattr at[32];
  ox_result cur = {0};
  const char *name;
  while (!xml_next(&x, &kind, &name, at, &nat, &empty) && kind) {
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
      nsuites++;
      if (!suite || !*suite) suite = "testsuite";
    } else if (kind == 1 && !strcmp(name, "property") && suite) {
      const char *pn = xattr_get(at, nat, "name"), *pv = xattr_get(at, nat, "value");
      char *end = NULL;
      long long v = pv ? strtoll(pv, &end, 10) : 0;
      int num = pv && *pv && !*end && v >= 0;
      if (pn && pv && !strcmp(pn, "onnxop.shard") &&
          shard_of(pv, &meta->info.shard_k, &meta->info.shard_n)) {
        xml_fail(&x, "the property onnxop.shard is not K/N");
        break;
      } else if (pn && !strncmp(pn, "onnxop.", 7) && strcmp(pn, "onnxop.shard") && strcmp(pn, "onnxop.version") &&
                 strcmp(pn, "onnxop.xfail") && !num) {
        xml_fail(&x, "an onnxop.* property whose value is not a count");
        break;
      }
      if (pn && !strcmp(pn, "onnxop.selected")) meta->info.selected = v;
      if (pn && !strcmp(pn, "onnxop.run")) meta->info.run = v, meta->has_run = 1;
      if (pn && !strcmp(pn, "onnxop.not_run")) meta->info.not_run = v;
      if (pn && !strcmp(pn, "onnxop.xfail")) meta->info.xfail = pv;
    } else if (kind == 1 && !strcmp(name, "testcase")) {
      const char *cn = xattr_get(at, nat, "classname"), *tn = xattr_get(at, nat, "name"), *t = xattr_get(at, nat, "time");
      if (in_case >= 0 || !suite || !tn || !cn) {
        xml_fail(&x, in_case >= 0 ? "a <testcase> inside a <testcase>" : !suite ? "a <testcase> outside a <testsuite>"
                 : "a <testcase> without name or classname");
        break;
      }
      char *end = NULL;
      double secs = t ? strtod(t, &end) : 0;
      cur = (ox_result){tn, strcmp(cn, ".") ? ox_sprintf(m->A, "%s/%s", cn, tn) : tn, NULL, OX_ST_PASS,
                        t && !*end && secs >= 0 ? secs : 0, 0};
      if (!cur.path) {
        xml_fail(&x, "out of memory");
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
      const char *group = suite;
      if (cur.st == OX_ST_STALE || cur.st == OX_ST_DUPLICATE) cur.path = cur.name;
      if (add_result(m, &cur, group, from)) {
        xml_fail(&x, "out of memory");
        break;
      }
      in_case = -1;
    }
  }
  if (!x.err && depth) xml_fail(&x, "the file ends inside an element");
  if (!x.err && !root_ok) xml_fail(&x, "no element");
  if (x.err) {
    int line = 1;
    for (const char *q = x.start; q < x.p && q < x.end; q++) line += *q == '\n';
    snprintf(why, nwhy, "not a JUnit XML report: line %d: %s", line, x.err);
    return -1;
  }
  (void)nsuites;
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

/* Shard reports of one run: the same N and the same selection. */
static int same_run(const rmeta *a, const rmeta *b) {
  return a->info.shard_n == b->info.shard_n && a->info.selected == b->info.selected;
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
  merged m = {.A = ox_arena_new()};
  rmeta *meta = calloc((size_t)nfiles, sizeof *meta);
  ox_result **by = NULL;
  ox_err e = {0};
  if (!m.A || !meta) {
    fprintf(stderr, "onnxop report: out of memory\n");
    rc = OX_EINPUT;
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
    size_t len, k = 0;
    char why[512];
    meta[f].file = a;
    if (ox_read_file(m.A, a, &data, &len, &e)) {
      fprintf(stderr, "onnxop report: %s: %s\n", a, e.msg);
      rc = OX_EINPUT;
      break;
    }
    while (k < len && strchr(" \t\r\n", data[k])) k++;
    int bad = k < len && data[k] == '<'   ? read_junit(&m, &meta[f], f, (const char *)data, len, why, sizeof why)
              : k < len && (data[k] == '{' || data[k] == '[') ? read_json(&m, &meta[f], f, (const char *)data, len, why, sizeof why)
                                          : (snprintf(why, sizeof why, "neither JUnit XML nor an onnxop --json "
                                                      "report"), -1);
    if (bad) {
      fprintf(stderr, "onnxop report: %s: %s\n", a, why);
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
    fprintf(stderr, "onnxop report: out of memory\n");
    rc = OX_EINPUT;
    goto out;
  }
  long long nc = 0, cases = 0, twice = 0;
  for (long long i = 0; i < m.n; i++)
    if (m.r[i].st != OX_ST_STALE && m.r[i].st != OX_ST_DUPLICATE) by[nc++] = &m.r[i];
  qsort(by, (size_t)nc, sizeof *by, cmp_by_path);
  for (long long i = 1; i < nc; i++)
    if (!strcmp(by[i]->path, by[i - 1]->path)) {
      if (twice++ < 10)
        fprintf(stderr, "onnxop report: %s is in %s and in %s (a shard run twice, or shards that overlap)\n",
                by[i]->path, meta[m.from[by[i - 1] - m.r]].file, meta[m.from[by[i] - m.r]].file);
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
  /* shards: each K of an N-shard run once, adding up to the selection */
  long long selected = 0, not_run = 0;
  for (int i = 0; i < nfiles; i++) {
    not_run += meta[i].info.not_run;
    int first = 1;
    for (int j = 0; j < i && first; j++) first = !(meta[i].info.shard_n ? same_run(&meta[i], &meta[j]) : 0);
    if (!meta[i].info.shard_n) {
      selected += meta[i].info.selected;
      continue;
    }
    if (!first) continue;
    /* the first report of its run checks the run */
    const rmeta *r0 = &meta[i];
    long long run = 0;
    int all_run = 1;
    selected += r0->info.selected;
    for (int k = 1; k <= r0->info.shard_n; k++) {
      int seen = -1, twice = 0;
      for (int j = i; j < nfiles; j++)
        if (same_run(&meta[j], r0) && meta[j].info.shard_k == k) {
          if (seen >= 0) {
            fprintf(stderr, "onnxop report: shard %d/%d is in %s and in %s\n", k, r0->info.shard_n, meta[seen].file,
                    meta[j].file);
            problems++;
            twice = 1;
          }
          if (seen < 0) seen = j;
        }
      if (seen < 0) {
        fprintf(stderr, "onnxop report: no report of shard %d/%d (of the run that selected %lld cases)\n", k,
                r0->info.shard_n, r0->info.selected);
        problems++;
      } else if (!twice) {
        run += meta[seen].info.run;
        all_run &= meta[seen].has_run;
      }
    }
    if (all_run && run != r0->info.selected && !problems) {
      fprintf(stderr, "onnxop report: the %d shards hold %lld cases, but %lld were selected\n", r0->info.shard_n,
              run, r0->info.selected);
      problems++;
    }
  }

  /* names two results share are shown by path */
  char *by_path = calloc((size_t)m.n + 1, 1);
  if (!by_path) {
    fprintf(stderr, "onnxop report: out of memory\n");
    rc = OX_EINPUT;
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
      const char *shown = by_path[i] ? r->path : r->name;
      int line = OX_ST_FAILS(r->st) ? verbose >= 0 : verbose > 0;
      if (!line) continue;
      if (r->st == OX_ST_PASS) printf("PASS %s\n", shown);
      else printf("%s %s: %s\n", ox_status_label[r->st], shown, r->message ? r->message : "");
    }
    long long count[OX_ST_N];
    ox_count_results(m.r, m.n, count);
    ox_print_summary(stdout, count, not_run);
  }
  free(by_path);
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
  free(by);
  free(meta);
  ox_mem_free(m.r);
  ox_mem_free(m.from);
  ox_mem_free(m.groups);
  ox_arena_free(m.A);
  return rc;
}
