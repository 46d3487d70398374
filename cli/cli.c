/* cli/cli.c: what every command shares (cli/cli.h): the run options the
 * global options set, usage errors and out-of-memory messages. They live
 * here, not in main.c, so that the command's archive (cli.a: every file of
 * cli/ but main.c) is whole without main(): the unit tests of cli/ and the
 * fuzz harnesses of its parsers (tests/fuzz/fuzz_spec.c) link it. */
#include <stdarg.h>
#include <stdio.h>

#include "../core/ox.h"
#include "cli.h"

ox_run_opts ox_cli_run;

/* "" for cmd: an error before any command ("onnxop: ...", "Try 'onnxop --help'.") */
int ox_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "onnxop%s%s: ", *cmd ? " " : "", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'onnxop %s%s--help'.\n", cmd, *cmd ? " " : "");
  return OX_EUSAGE;
}

int ox_cli_oom(const char *cmd, const char *what) {
  ox_err e = {0};
  ox_oom(&e, what ? "%s" : NULL, what);
  fprintf(stderr, "onnxop%s%s: %s\n", *cmd ? " " : "", cmd, e.msg);
  return OX_ENOMEM;
}

