/* cli/cli.h: the subcommands. cli/ parses command lines and drives the rest;
 * it holds no ONNX knowledge of its own. */
#ifndef OX_CLI_H
#define OX_CLI_H

int ox_cmd_run(int argc, char **argv);
int ox_cmd_test(int argc, char **argv);
int ox_cmd_ops(int argc, char **argv);
int ox_cmd_make(int argc, char **argv);
int ox_cmd_convert(int argc, char **argv);
int ox_cmd_compare(int argc, char **argv);
int ox_cmd_show(int argc, char **argv);
int ox_cmd_info(int argc, char **argv);
int ox_cmd_bench(int argc, char **argv);

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

/* "onnxop CMD: out of memory" (with what, when not NULL, and the cause
 * ox_oom says) on standard error; returns OX_ENOMEM. cmd "" for none. */
int ox_cli_oom(const char *cmd, const char *what);

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

#endif
