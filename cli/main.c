/* cli/main.c: onnxop's entry point: the global options and the subcommand
 * dispatch (what the commands share is in cli/cli.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu.h"
#include "../core/ox.h"
#include "../core/threads.h"
#include "../io/io.h"
#include "cli.h"

static const char usage[] =
    "usage: onnxop COMMAND [ARGS]\n"
    "\n"
    "Evaluate ONNX models and operators, and check them against test data.\n"
    "\n"
    "commands:\n"
    "  run MODEL [--in [NAME=]FILE]... [--out [NAME=]FILE]... [--out-dir DIR]\n"
    "            [--format pb|json|npy|npz]\n"
    "                      evaluate a model on inputs from .pb, .json, .npy or .npz\n"
    "  test PATH...        run ONNX test cases (a case folder or a folder of cases;\n"
    "                      --json, --tap, --junit FILE; --shard K/N)\n"
    "  report REPORT...    merge the --junit or --json reports of test's shards\n"
    "  ops [OP]            list the operators onnxop implements, from its registry\n"
    "  make OP ...         build a one-node model, or a whole test case (--case)\n"
    "  convert IN OUT      convert a value file between .pb, .json, .npy and .npz\n"
    "  compare GOT EXPECTED  compare values or output folders (exit 1 if they differ)\n"
    "  show FILE...        print values numpy style (--full, --stats)\n"
    "  info [--json] MODEL describe a model and say which nodes this build can run\n"
    "  bench MODEL --in FILE... [--runs N] [--warmup N]\n"
    "                      time the evaluation alone (median and minimum, in us)\n"
    "\n"
    "  onnxop COMMAND --help   help on one command\n"
    "  onnxop --version        print the version\n"
    "\n"
    "options for every command:\n"
    "  --max-memory SIZE   refuse to hold more than SIZE (e.g. 512M, 4G; default:\n"
    "                      three quarters of physical memory; also ONNXOP_MAX_MEMORY):\n"
    "                      tensors, parsed JSON, unpacked protobuf, decoded images\n"
    "  --timeout SECONDS   stop evaluating (exit 1) once SECONDS (e.g. 0.5, 30) have\n"
    "                      passed, checked between nodes and Loop/Scan iterations\n"
    "                      (also ONNXOP_TIMEOUT; 0: none, the default); for\n"
    "                      `test`, before or after it, the limit of each case\n"
    "                      (such as 0.5; ONNXOP_TIMEOUT does not apply)\n"
    "  --threads N         run the heavy kernels on up to N threads (default 1; 0: one\n"
    "                      per CPU; also ONNXOP_THREADS); the outputs are the same\n"
    "                      bytes for every N\n"
    "\n"
    "exit status:\n"
    "  0      success\n"
    "  1      a model or input was rejected, evaluation failed, an output could\n"
    "         not be written (standard output included), or a limit was reached\n"
    "         (memory, time); test: a case failed, or no case was found;\n"
    "         compare: the values differ, or one is missing or extra\n"
    OX_EXIT_HELP_2
    "  3      the model needs an operator (op, opset version, domain), or a case\n"
    "         of one (an element type, an image format), that this build does\n"
    "         not implement; ops OP: no such operator\n"
    OX_EXIT_HELP_SIGNAL;

/* "512M", "2G", "100000", "1.5G" -> bytes; 0 if malformed: a decimal number
 * (strtod alone would also take "nan", "inf", "0x10" and " 5") */
static size_t parse_size(const char *s) {
  char *end;
  if (!((*s >= '0' && *s <= '9') || *s == '.')) return 0;
  double v = strtod(s, &end);
  if (end == s || strspn(s, "0123456789.eE+-") < (size_t)(end - s) || !(v > 0)) return 0;
  switch (*end) {
  case 'k': case 'K': v *= 1024.0; end++; break;
  case 'm': case 'M': v *= 1024.0 * 1024; end++; break;
  case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
  case 't': case 'T': v *= 1024.0 * 1024 * 1024 * 1024; end++; break;
  }
  if (*end == 'B' || *end == 'b') end++;
  return *end || !(v < 1.8e19) ? 0 : (size_t)v;
}

/* A global option NAME VALUE or NAME=VALUE, anywhere on the line before a
 * "--": taken out of argv (the last one wins), its value in *val. -1 when
 * NAME ends the line. */
static int take_global(int *argc, char **argv, const char *name, const char **val) {
  size_t l = strlen(name);
  for (int i = 1; i < *argc && strcmp(argv[i], "--"); i++) {
    int eq = !strncmp(argv[i], name, l) && argv[i][l] == '=';
    if (!eq && strcmp(argv[i], name)) continue;
    if (!eq && i + 1 >= *argc) return -1;
    *val = eq ? argv[i] + l + 1 : argv[i + 1];
    int k = eq ? 1 : 2;
    memmove(&argv[i], &argv[i + k], (size_t)(*argc - i - k + 1) * sizeof *argv);
    *argc -= k;
    i--;
  }
  return 0;
}

/* The command a usage error of the global options names: the first argument
 * that is not one of them (or its value), or "" when there is none or it is
 * --help or --version, so that "onnxop --threads" does not name --threads as
 * the command. */
static const char *command_of(int argc, char **argv) {
  int i = 1;
  while (i < argc && (!strcmp(argv[i], "--threads") || !strcmp(argv[i], "--max-memory") ||
                      !strcmp(argv[i], "--timeout")))
    i += 2;
  if (i < argc && !strcmp(argv[i], "help")) i++; /* onnxop help CMD */
  return i < argc && argv[i][0] != '-' ? argv[i] : "";
}

/* The process exit status of a command's result, here and nowhere else
 * (the list is the usage text's, and the man page's EXIT STATUS): the error
 * codes of core/err.h are their own statuses, except OX_ENOMEM, which is a
 * limit reached or a refusal like any other (1). */
static int exit_status(int code) {
  switch (code) {
  case OX_OK: return 0;
  case OX_EUSAGE: return 2;
  case OX_EUNSUPPORTED: return 3;
  case OX_EINPUT:
  case OX_ENOMEM:
  default: return 1;
  }
}

/* Every command ends here: what it printed must have reached standard output
 * and standard error. A write that failed (a full disk, a closed pipe) is a
 * failure, never a silent exit 0; the command's own failure, if any, keeps
 * its status. */
static int finish(int rc) {
  int bad = ferror(stdout), why = 0; /* why: errno, when known */
  if (fflush(stdout)) {
    bad = 1;
    why = errno;
  }
  /* EBADF with nothing pending: stdout was closed (>&-) and nothing was
   * printed, so nothing was lost (as gnulib's close_stdout) */
  if (fclose(stdout) && errno != EBADF && !bad) {
    bad = 1;
    why = errno;
  }
  if (bad) {
    if (why) fprintf(stderr, "onnxop: cannot write to standard output: %s\n", strerror(why));
    else fprintf(stderr, "onnxop: cannot write to standard output\n");
    if (!rc) rc = OX_EINPUT;
  }
  if (ferror(stderr) && !rc) rc = OX_EINPUT;
  return rc;
}

static const struct { const char *name; int (*fn)(int argc, char **argv); } commands[] = {
    {"run", ox_cmd_run},         {"test", ox_cmd_test}, {"ops", ox_cmd_ops},
    {"make", ox_cmd_make},       {"convert", ox_cmd_convert},
    {"compare", ox_cmd_compare}, {"show", ox_cmd_show}, {"info", ox_cmd_info},
    {"bench", ox_cmd_bench},     {"report", ox_cmd_report},
};

int main(int argc, char **argv) {
  ox_json_hooks(); /* cJSON's reports count against --max-memory too */
  /* --max-memory SIZE (or ONNXOP_MAX_MEMORY), for every command */
  const char *mm = getenv("ONNXOP_MAX_MEMORY"), *mm_opt = NULL;
  if (take_global(&argc, argv, "--max-memory", &mm_opt))
    return ox_usage_error(command_of(argc, argv), "--max-memory needs a size such as 512M or 4G");
  /* ONNXOP_SEED (core/random.c reads it): refuse a value it would ignore */
  const char *seed = getenv("ONNXOP_SEED");
  if (seed && *seed) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(seed, &end, 10);
    if (*end || errno || v > 4294967295ull || seed[0] == '-' || seed[0] == '+' || seed[0] == ' ')
      return ox_usage_error(command_of(argc, argv), "ONNXOP_SEED is '%s'; it must be a number from 0 to "
                            "4294967295", seed);
  }
  /* ONNXOP_ISA (core/cpu.c reads it): refuse a name it would ignore */
  const char *isa = getenv("ONNXOP_ISA");
  if (isa && *isa && ox_cpu_level_named(isa) < 0)
    return ox_usage_error(command_of(argc, argv), "ONNXOP_ISA is '%s'; it must be generic, avx2 or avx512", isa);
  /* --threads N (or ONNXOP_THREADS), for every command */
  const char *th = getenv("ONNXOP_THREADS"), *th_opt = NULL;
  if (take_global(&argc, argv, "--threads", &th_opt))
    return ox_usage_error(command_of(argc, argv), "--threads needs a count (0: one per CPU)");
  if (th_opt) th = th_opt;
  if (th) {
    char *end;
    long n = strtol(th, &end, 10);
    if (end == th || *end || n < 0 || n > OX_MAX_THREADS)
      return ox_usage_error(command_of(argc, argv), "%s: '%s' is not a thread count from 0 (one per CPU) to %d",
                            th_opt ? "--threads" : "ONNXOP_THREADS", th, OX_MAX_THREADS);
    ox_set_threads((int)n);
  }
  /* --timeout SECONDS (or ONNXOP_TIMEOUT), for the commands that evaluate;
   * `onnxop test` has a --timeout of its own, per case, and ignores
   * ONNXOP_TIMEOUT */
  if (!strcmp(command_of(argc, argv), "test")) {
    /* `onnxop --timeout 5 test DIR`: a --timeout anywhere on the line is
     * test's own (the last one wins), handed to it after its other arguments */
    const char *opt = NULL;
    if (take_global(&argc, argv, "--timeout", &opt))
      return ox_usage_error("test", "--timeout needs a number of seconds");
    if (opt) { /* take_global freed two places at least */
      argv[argc++] = "--timeout";
      argv[argc++] = (char *)opt;
      argv[argc] = NULL;
    }
  } else {
    const char *to = getenv("ONNXOP_TIMEOUT"), *from = "ONNXOP_TIMEOUT", *opt = NULL;
    if (take_global(&argc, argv, "--timeout", &opt))
      return ox_usage_error(command_of(argc, argv), "--timeout needs a number of seconds such as 0.5 or 30");
    if (opt) to = opt, from = "--timeout";
    double secs = to ? ox_parse_seconds(to) : 0;
    if (secs < 0)
      return ox_usage_error(command_of(argc, argv), "%s%s'%s'%s a number of seconds such as 0.5 or 30", from,
                            opt ? ": " : " is ", to, opt ? " is not" : "; it must be");
    ox_cli_run.deadline_us = ox_deadline_us(secs);
    ox_cli_run.timeout_s = secs;
    ox_cli_run.timeout_source = from;
  }
  /* the library's memory messages name no flag: the CLI's is --max-memory
   * (ONNXOP_MAX_MEMORY sets the same limit) */
  ox_set_memory_limit_source("--max-memory");
  if (mm_opt) mm = mm_opt; /* the option wins over the variable */
  if (mm) {
    size_t lim = parse_size(mm);
    if (!lim)
      return ox_usage_error(command_of(argc, argv), "%s: '%s' is not a size such as 512M or 4G",
                            mm_opt ? "--max-memory" : "ONNXOP_MAX_MEMORY", mm);
    ox_set_memory_limit(lim);
  }
  if (argc < 2) {
    fputs(usage, stderr);
    return OX_EUSAGE;
  }
  const char *cmd = argv[1];
  int rc = -1;
  char *help_argv[] = {argv[0], argc > 2 ? argv[2] : NULL, "--help", NULL};
  if (!strcmp(cmd, "help") && argc > 2) { /* onnxop help CMD: onnxop CMD --help */
    argc = 3;
    argv = help_argv;
    cmd = argv[1];
  }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    fputs(usage, stdout);
    rc = 0;
  } else if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("onnxop %s\n", OX_VERSION);
#ifdef OX_FAULT_INJECTION /* the ASan build is the test build (core/arena.h): tests look for this */
    printf("test build: ONNXOP_FAIL_ALLOC and the ONNXOP_TEST_ hooks are on\n");
#endif
    rc = 0;
  }
  for (int i = 0; rc < 0 && i < (int)(sizeof commands / sizeof *commands); i++)
    if (!strcmp(cmd, commands[i].name)) rc = commands[i].fn(argc - 1, argv + 1);
  if (rc < 0) {
    const char *names[sizeof commands / sizeof *commands];
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) names[i] = commands[i].name;
    const char *near = ox_suggest(cmd, names, (int)(sizeof commands / sizeof *commands));
    fprintf(stderr, "onnxop: unknown command '%s'%s%s%s\nTry 'onnxop --help'.\n", cmd, near ? "; did you mean '" : "",
            near ? near : "", near ? "'?" : "");
    rc = OX_EUSAGE;
  }
  return finish(exit_status(rc));
}
