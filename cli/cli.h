/* cli/cli.h: the subcommands. cli/ parses command lines and drives the rest;
 * it holds no ONNX knowledge of its own. */
#ifndef OX_CLI_H
#define OX_CLI_H

#include <stdio.h>

int ox_cmd_run(int argc, char **argv);
int ox_cmd_test(int argc, char **argv);
int ox_cmd_ops(int argc, char **argv);
int ox_cmd_make(int argc, char **argv);
int ox_cmd_convert(int argc, char **argv);
int ox_cmd_compare(int argc, char **argv);
int ox_cmd_show(int argc, char **argv);
int ox_cmd_info(int argc, char **argv);
int ox_cmd_bench(int argc, char **argv);
int ox_cmd_report(int argc, char **argv);

/* The exit statuses, as every command's --help lists them (man/onnxop.1,
 * EXIT STATUS, says the same). A command states what 0 means for it, then the
 * lines of these that it can give. */
#define OX_EXIT_HELP_1                                                              \
  "  1      a model or input was rejected, evaluation failed, an output could\n"    \
  "         not be written (standard output included), or a limit was reached\n"   \
  "         (memory, time)\n"
#define OX_EXIT_HELP_2 "  2      usage error: a bad command line\n"
#define OX_EXIT_HELP_3                                                              \
  "  3      the model needs an operator (op, opset version, domain), or a case\n"  \
  "         of one (an element type, an image format), that this build does\n"    \
  "         not implement\n"
#define OX_EXIT_HELP_SIGNAL "  128+N  killed by signal N\n"

/* cli/compare.c: a tolerance (--atol, --rtol): a finite decimal number >= 0
 * such as 1e-5 (not "inf", "nan" or hex); 0, or -1 */
int ox_parse_tolerance(const char *s, double *v);

/* "onnxop run: <msg>" + the hint, exit code 2 */
int ox_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli/bind.c: [NAME=]FILE arguments (the rules are at the top of bind.c).
 * kind: "input" or "output"; names: the model's. 0, or a usage error (said). */
typedef struct { const char *name; const char *file; } ox_binding;
struct ox_model;
struct ox_value;
struct ox_arena;
int ox_split_binding(const char *cmd, const char *kind, const char *arg, int n, const char *const *names,
                     ox_binding *b);
/* --in arguments: bound by name, then by position to the real inputs, an
 * .npz standing for its members; each loaded into vals[slot]. 0, or the
 * exit status (the error said). */
int ox_bind_inputs(struct ox_arena *A, const char *cmd, const struct ox_model *m, const char **args, int n,
                   struct ox_value **vals);

/* ---- test results (cli/report.c), shared by `onnxop test` and `onnxop report` ----
 * One status per case, the same word in the text, --json, --tap and --junit:
 * pass; fail (an output differs); error (the model, an input or the data set
 * was refused, or the evaluation failed: exit 1 of the evaluation);
 * unsupported (exit 3: an operator this build lacks); crash (a signal);
 * timeout; xfail and xpass (a case the --xfail list names failed or passed).
 * stale and duplicate are lines of the --xfail list: one that matches no
 * case, one that repeats an earlier line. */
typedef enum {
  OX_ST_PASS, OX_ST_FAIL, OX_ST_ERROR, OX_ST_UNSUPPORTED, OX_ST_CRASH, OX_ST_TIMEOUT,
  OX_ST_XFAIL, OX_ST_XPASS, OX_ST_STALE, OX_ST_DUPLICATE, OX_ST_N
} ox_status;
extern const char *const ox_status_name[OX_ST_N];  /* "pass", "fail", ... */
extern const char *const ox_status_label[OX_ST_N]; /* "PASS", "FAIL", ...: the text's lines */
/* Every status but pass and xfail fails the run. */
#define OX_ST_FAILS(s) ((s) != OX_ST_PASS && (s) != OX_ST_XFAIL)

typedef struct {
  const char *name;    /* the case folder's name (stale, duplicate: the list's line) */
  const char *path;    /* PATH/name as given on the command line: unique in a run */
  const char *message; /* why it failed; NULL when it passed */
  ox_status st;
  double secs;         /* wall time, dispatch to answer */
  int group;           /* its JUnit testsuite: the PATH it came from, or the --xfail list */
} ox_result;

typedef struct {
  int shard_k, shard_n; /* --shard K/N; 0 and 0 without it */
  long long selected;   /* cases selected (-k, --exclude) before the shard was cut */
  long long run;        /* the cases of this shard (of the run, unsharded) */
  long long not_run;    /* --fail-fast stopped the run before these */
  const char *xfail;    /* the --xfail FILE, or NULL */
} ox_run_info;

struct cJSON;
/* count[s]: how many results have status s */
void ox_count_results(const ox_result *r, long long n, long long count[OX_ST_N]);
/* The summary line: the statuses other than pass that occurred, then
 * "N passed, M failed" (M: every result that fails the run), e.g.
 * "1 crash, 6 xfail; 1796 passed, 1 failed". */
void ox_print_summary(FILE *f, const long long count[OX_ST_N], long long not_run);
/* The --json report: {"cases": [...], "stale": [...], ..., "passed", "failed", ...}
 * (NULL when out of memory). */
struct cJSON *ox_results_json(const ox_result *r, long long n, const ox_run_info *info);
/* Print j on stdout, one line, and free it: 0, or 1 (said) when memory
 * ran out (j NULL: it already had). */
int ox_print_json(struct cJSON *j, const char *cmd);
/* JUnit XML into file (through a temporary renamed into place): a testsuite
 * for each of the ngroups groups, even an empty one. 0, or 1 with e set. */
struct ox_err;
int ox_junit_write(const char *file, const ox_result *r, long long n, const char *const *groups, int ngroups,
                   const ox_run_info *info, struct ox_err *e);
/* A TAP 14 test point: "ok N - PATH", or "not ok N - PATH" with a YAML
 * block (status, message, seconds); an xfail is "not ok ... # TODO todo". */
void ox_tap_point(FILE *f, long long num, const ox_result *r, const char *todo);

#endif
