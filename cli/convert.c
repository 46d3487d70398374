/* cli/convert.c: onnxop convert IN OUT converts a value between formats,
 * chosen by the file extensions. */
#include <stdio.h>
#include <string.h>

#include "../io/io.h"
#include "cli.h"

int ox_cmd_convert(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs("usage: onnxop convert IN OUT\n\n"
            "Convert a value file between .pb, .json, .npy and .npz; the formats come\n"
            "from the extensions. .pb and .json hold any value (tensor, sequence,\n"
            "optional, map); .npy one tensor of a dtype numpy has; .npz such tensors\n"
            "by name (IN.npz:NAME is one member; an .npz to an .npz copies them all).\n\n"
            "exit status:\n"
            "  0      success\n"
            "  1      IN was rejected, or OUT's format cannot hold its value (the message\n"
            "         names the formats that can), or OUT could not be written\n"
            OX_EXIT_HELP_2
            OX_EXIT_HELP_SIGNAL,
            stdout);
      return 0;
    }
    if (argv[i][0] == '-' && argv[i][1]) return ox_usage_error("convert", "unknown option '%s'", argv[i]);
    if (!in) in = argv[i];
    else if (!out) out = argv[i];
    else return ox_usage_error("convert", "unexpected argument '%s'", argv[i]);
  }
  if (!out) return ox_usage_error("convert", "give IN and OUT files");
  if (!*in || !*out) return ox_usage_error("convert", "%s is an empty path", *in ? "OUT" : "IN");
  ox_format f = ox_format_of(out);
  if (f == OX_FMT_UNKNOWN) return ox_usage_error("convert", "cannot tell the format of '%s' (use .pb, .json, .npy or .npz)", out);
  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  ox_value *v = NULL;
  const char *name = NULL;
  const char **mem = NULL;
  int64_t nm = 0;
  int rc = 0;
  if (!A) return ox_cli_oom("convert", NULL);
  if (f == OX_FMT_NPZ && !strchr(out, ':') && ox_format_of(in) == OX_FMT_NPZ && !strchr(in, ':')) {
    /* archive to archive: every member, by name */
    if (!(rc = ox_npz_members(A, in, &mem, &nm, &e))) {
      const ox_value **vals = ox_alloc_array(A, nm + 1, sizeof *vals);
      if (!vals) rc = ox_oom(&e, NULL);
      for (int64_t k = 0; k < nm && !rc; k++) {
        const char *member = ox_sprintf(A, "%s:%s", in, mem[k]);
        rc = member ? ox_load_value(A, member, NULL, NULL, (ox_value **)&vals[k], NULL, &e) : ox_oom(&e, NULL);
      }
      if (rc) fprintf(stderr, "onnxop: %s: %s\n", in, e.msg);
      else if ((rc = ox_save_npz(out, (int)nm, vals, mem, &e)) || (rc = ox_commit_files(&e)))
        fprintf(stderr, "onnxop: %s: %s\n", out, e.msg);
      if (rc) ox_discard_files();
      ox_arena_free(A);
      return rc;
    }
  }
  if (!rc) rc = ox_load_value(A, in, NULL, NULL, &v, &name, &e);
  if (rc) fprintf(stderr, "onnxop: %s: %s\n", in, e.msg);
  else if ((rc = ox_save_value(out, f, v, name, &e)) || (rc = ox_commit_files(&e)))
    fprintf(stderr, "onnxop: %s: %s\n", out, e.msg);
  if (rc) ox_discard_files();
  ox_arena_free(A);
  return rc;
}
