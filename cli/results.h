/* cli/results.h: the reports of `onnxop test` read back (cli/results.c), for
 * `onnxop report` and for the fuzz harnesses of the two readers
 * (tests/fuzz/fuzz_report_junit.c, fuzz_report_json.c), which link cli.a:
 * the readers use the library and cli/files.c, never main.c. The writers and
 * the types they share (ox_result, ox_run_info) are in cli.h. */
#ifndef OX_CLI_RESULTS_H
#define OX_CLI_RESULTS_H

#include "../core/ox.h"
#include "../io/io.h"
#include "cli.h"

/* The largest count (selected, run, not run) a report may give, and the
 * largest their sums over many reports may reach: 2^53, which a JSON number
 * holds exactly. */
#define OX_COUNT_MAX 9007199254740992LL
/* The longest a case may be said to take: 1e9 seconds (some 31 years).
 * JUnit times beyond it, or that are no number, read as 0; --json reports
 * holding one are refused. */
#define OX_SECS_MAX 1e9

/* What one report says of its run. */
typedef struct {
  const char *file;
  ox_run_info info;
  int has_run; /* info.run is given */
} ox_report_meta;

/* The results of the reports read so far, in the order read. */
typedef struct {
  ox_arena *A; /* the strings of all of them */
  ox_result *r;
  int *from; /* r[i] came from report from[i] */
  long long n, cap;
  const char **groups; /* JUnit testsuites, in order of first appearance */
  int ngroups, capgroups;
  int *gslot; /* a hash table of groups: index + 1, or 0 for a free slot */
  int nslots; /* a power of two, at least twice ngroups */
} ox_report_set;

/* Start an empty set (its arena made): 0, or -1 when memory ran out. */
int ox_report_set_init(ox_report_set *m);
void ox_report_set_free(ox_report_set *m);

/* Read one report held in text[0..len): JUnit XML (ox_report_read_junit)
 * or an `onnxop test --json` report (ox_report_read_json), told apart by
 * the first character after a UTF-8 byte-order mark and blanks. The results
 * are added to m as coming from report `from`; meta gets what the report
 * says of its run (meta->file is left alone). 0; OX_EINPUT with e->msg
 * "not a JUnit XML report: line N: why" (or "not an onnxop --json report:
 * ..."); or OX_ENOMEM (said by ox_oom). After an error m may hold some of
 * the report's results. */
int ox_report_read(ox_report_set *m, ox_report_meta *meta, int from, const char *text, size_t len, ox_err *e);
int ox_report_read_junit(ox_report_set *m, ox_report_meta *meta, int from, const char *text, size_t len,
                         ox_err *e);
int ox_report_read_json(ox_report_set *m, ox_report_meta *meta, int from, const char *text, size_t len,
                        ox_err *e);

/* The JUnit XML of ox_junit_write (cli.h), into any stream: 0, or -1 with
 * o->err set. */
int ox_junit_put(ox_out *o, const ox_result *r, long long n, const char *const *groups, int ngroups,
                 const ox_run_info *info);

/* s for a terminal: valid UTF-8 as it is, but for control characters (C0
 * and C1, DEL; newline kept when lines is set, tab always) and bytes that
 * are not UTF-8, each printed as '?', so that a report cannot move the
 * cursor, ring the bell or set colours. */
void ox_print_text(FILE *f, const char *s, int lines);

#endif
