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

/* "onnxop run: <msg>" + the hint, exit code 2 */
int ox_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
