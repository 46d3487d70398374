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

/* cli/cli.c: the run options every command that evaluates (run, bench,
 * make) starts from: --timeout (or ONNXOP_TIMEOUT) as a deadline (main.c
 * sets it). */
struct ox_run_opts;
extern struct ox_run_opts ox_cli_run;

/* "onnxop CMD: warning: PATH: the nodes are not in topological order: ...;
 * they run in dependency order, ..." on standard error when the model's nodes
 * (or a subgraph's or function's) were not in order as loaded
 * (ox_api_model_order); nothing otherwise. */
struct onnxop_model;
void ox_cli_order_warning(const char *cmd, const char *path, const struct onnxop_model *m);

/* "onnxop CMD: out of memory" (with what, when not NULL, and the cause
 * ox_oom says) on standard error; returns OX_ENOMEM. cmd "" for none. */
int ox_cli_oom(const char *cmd, const char *what);
/* cli/lists.c: a tolerance (--atol, --rtol, and in a --tolerances file): a
 * finite decimal number >= 0 such as 1e-5 (not "inf", "nan" or hex); 0, or -1 */
int ox_parse_tolerance(const char *s, double *v);

/* "onnxop run: <msg>" + the hint, exit code 2 */
int ox_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli/opts.c: options as every command but `test` parses them. A table of
 * ox_opt ends with {NULL}; arg is the value's name for messages ("a FILE"),
 * NULL for a flag. ox_opt_next gives the index of the next option in the
 * table (*val: its value), or OX_OPT_OPERAND (*val: the operand), OX_OPT_END,
 * or OX_OPT_ERROR (a usage error, already said: return OX_EUSAGE). */
typedef struct { const char *name, *alias, *arg; } ox_opt;
typedef struct {
  const char *cmd;
  int argc, i, dashdash;
  char **argv;
  const ox_opt *opts;
} ox_optparse;
enum { OX_OPT_OPERAND = -1, OX_OPT_END = -2, OX_OPT_ERROR = -3 };
/* "0.5", "30", "1e3" -> seconds; -1 unless a finite decimal number >= 0 */
double ox_parse_seconds(const char *s);
void ox_opt_init(ox_optparse *p, const char *cmd, int argc, char **argv, const ox_opt *opts);
int ox_opt_next(ox_optparse *p, const char **val);
/* The candidate nearest to word (case aside, a few letters off), or NULL:
 * for "did you mean" in messages. */
const char *ox_suggest(const char *word, const char *const *cands, int n);

/* cli/convert.c: values to standard output ('-' for --out and convert) in
 * format f: with all, the n values as one JSON list (each with its "name")
 * or one .npz; else v[0] alone. 0, or the error in e. */
struct ox_value;
int ox_write_stdout(int f, int all, int n, const struct ox_value *const *v, const char *const *names,
                    struct ox_err *e);

/* cli/bind.c: [NAME=]FILE arguments (the rules are at the top of bind.c).
 * kind: "input" or "output"; names: the model's. 0, or a usage error (said). */
typedef struct {
  const char *name; /* names[index], or NULL */
  const char *file;
  int index;        /* -1 without a name */
} ox_binding;
struct ox_model;
struct ox_value;
struct ox_arena;
int ox_split_binding(const char *cmd, const char *kind, const char *arg, int n, const char *const *names,
                     ox_binding *b);
/* The same names sorted once (in A), so that binding many arguments to a
 * model of many inputs or outputs (an .npz of thousands of members) costs
 * n log n, not n^2. */
typedef struct { int n; const char *const *names; struct ox_name_at *sorted; } ox_names;
int ox_names_index(struct ox_arena *A, int n, const char *const *names, ox_names *ix); /* -1: out of memory */
int ox_split_binding_ix(const char *cmd, const char *kind, const char *arg, const ox_names *ix, ox_binding *b);
/* --in arguments: bound by name, then by position to the real inputs, an
 * .npz standing for its members; each read through the library into
 * vals[slot] (vals has room for every graph input, NULL; free them with
 * ox_cli_free_values, also after a failure), except that the members of an
 * .npz are decoded into A from the archive read once (A must outlive vals).
 * 0, or the exit status (the error said). */
struct onnxop_model;
struct onnxop_value;
struct onnxop_error;
int ox_bind_inputs(struct ox_arena *A, const char *cmd, const struct onnxop_model *m, const char **args, int n,
                   struct onnxop_value **vals);
void ox_cli_free_values(struct onnxop_value **v, int n);
/* "onnxop: FILE WHAT: message" of a library error (FILE and WHAT may be
 * NULL; with neither, "onnxop: message") on standard error; returns its
 * code, the exit status's class. */
int ox_cli_api_fail(const char *file, const char *what, const struct onnxop_error *err);
/* The same of e, as "onnxop: FILE WHAT: message" (WHAT may be NULL). */
int ox_cli_fail_file(const char *file, const char *what, const ox_err *e);

/* ---- test results (cli/results.c), shared by `onnxop test` and `onnxop report` ----
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

/* "K/N" of --shard and of the reports' "shard" (JSON) and onnxop.shard
 * (JUnit): decimal digits, 1 <= K <= N <= OX_SHARD_MAX. 0, or -1. */
#define OX_SHARD_MAX 1000000
int ox_parse_shard(const char *s, int *k, int *n);

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
/* Print j on stdout, one line, and free it: 0, or ox_cli_oom's status (said)
 * when memory ran out while j was made (j NULL, or ox_mem_failures() is no
 * longer `failures`, its count before) or printed. */
int ox_print_json(struct cJSON *j, const char *cmd, size_t failures);
/* JUnit XML into file (through a temporary renamed into place): a testsuite
 * for each of the ngroups groups, even an empty one. 0, or 1 with e set. */
struct ox_err;
int ox_junit_write(const char *file, const ox_result *r, long long n, const char *const *groups, int ngroups,
                   const ox_run_info *info, struct ox_err *e);
/* A TAP 14 test point: "ok N - PATH", or "not ok N - PATH" with a YAML
 * block (status, message, seconds); an xfail is "not ok ... # TODO todo". */
void ox_tap_point(FILE *f, long long num, const ox_result *r, const char *todo);

#endif
