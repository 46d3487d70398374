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
