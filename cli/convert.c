/* cli/convert.c: onnxop convert IN OUT converts a value between formats,
 * chosen by the file extensions ('-' for standard output, in --format). */
#include <stdio.h>
#include <string.h>

#include "../api/api.h"
#include "../io/io.h"
#include "cli.h"
#include "files.h"

static const char convert_help[] =
    "usage: onnxop convert [--format pb|json|npy|npz] IN OUT\n\n"
    "Convert a value file between .pb, .json, .npy and .npz; the formats come\n"
    "from the extensions. .pb and .json hold any value (tensor, sequence,\n"
    "optional, map); .npy one tensor of a dtype numpy has; .npz such tensors\n"
    "by name (IN.npz:NAME is one member; an .npz to an .npz copies them all).\n"
    "IN may be '-' (standard input) or an inline value; OUT '-' is standard\n"
    "output, in --format (default json).\n\n"
    "exit status:\n"
    "  0      success\n"
    "  1      IN was rejected, or OUT's format cannot hold its value (the message\n"
    "         names the formats that can), or OUT could not be written\n"
    OX_EXIT_HELP_2
    OX_EXIT_HELP_SIGNAL;

int ox_write_stdout(int f, int all, int n, const ox_value *const *v, const char *const *names, ox_err *e) {
  ox_buf b = {0};
  int rc = 0;
  if (f == OX_FMT_NPZ) {
    rc = ox_npz_encode(n, v, names, &b, e);
  } else if (all && f == OX_FMT_JSON) { /* [value, value, ...], each with its name */
    ox_buf_put(&b, "[", 1);
    for (int i = 0; i < n && !rc; i++) {
      if (i) ox_buf_put(&b, ",", 1);
      rc = ox_json_encode(v[i], names ? names[i] : NULL, &b, e);
    }
    ox_buf_put(&b, "]\n", 2);
  } else if (all && n != 1) {
    rc = ox_fail(e, OX_EUSAGE, "%d outputs do not fit one %s stream: use json or npz", n, f == OX_FMT_PB ? ".pb" : ".npy");
  } else {
    rc = f == OX_FMT_JSON ? ox_json_encode(v[0], names ? names[0] : NULL, &b, e)
         : f == OX_FMT_NPY ? ox_npy_encode(v[0], &b, e)
                           : ox_pb_encode(v[0], names ? names[0] : NULL, &b, e);
  }
  if (!rc && b.n && fwrite(b.p, 1, b.n, stdout) != b.n) rc = ox_fail(e, OX_EINPUT, "cannot write to standard output");
  ox_buf_free(&b);
  return rc;
}

enum { O_HELP, O_FORMAT };
static const ox_opt convert_opts[] = {
    [O_HELP] = {"--help", "-h", NULL},
    [O_FORMAT] = {"--format", NULL, "pb, json, npy or npz"},
    {NULL, NULL, NULL},
};

int ox_cmd_convert(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *v;
  ox_format to = OX_FMT_UNKNOWN;
  ox_optparse p;
  ox_opt_init(&p, "convert", argc, argv, convert_opts);
  for (int k; (k = ox_opt_next(&p, &v)) != OX_OPT_END;) {
    if (k == OX_OPT_ERROR) return OX_EUSAGE;
    if (k == O_HELP) {
      fputs(convert_help, stdout);
      return 0;
    }
    if (k == O_FORMAT) {
      to = !strcmp(v, "pb") ? OX_FMT_PB : !strcmp(v, "json") ? OX_FMT_JSON : !strcmp(v, "npy") ? OX_FMT_NPY
         : !strcmp(v, "npz") ? OX_FMT_NPZ : OX_FMT_UNKNOWN;
      if (to == OX_FMT_UNKNOWN) return ox_usage_error("convert", "unknown format '%s' (pb, json, npy or npz)", v);
    } else if (!in) {
      in = v;
    } else if (!out) {
      out = v;
    } else {
      return ox_usage_error("convert", "unexpected argument '%s'", v);
    }
  }
  if (!out) return ox_usage_error("convert", "give IN and OUT files");
  if (!*in || !*out) return ox_usage_error("convert", "%s is an empty path", *in ? "OUT" : "IN");
  int dash = !strcmp(out, "-");
  ox_format f = dash ? (to ? to : OX_FMT_JSON) : ox_format_of(out);
  if (f == OX_FMT_UNKNOWN) return ox_usage_error("convert", "cannot tell the format of '%s' (use .pb, .json, .npy or .npz)", out);
  if (!dash && to && to != f)
    return ox_usage_error("convert", "--format is for OUT '-'; %s names its format by its extension", out);
  ox_arena *A = ox_arena_new();
  ox_err e = {0};
  ox_value *val = NULL;
  const char *name = NULL;
  ox_npz *z = NULL;
  int rc = 0;
  if (!A) return ox_cli_oom("convert", NULL);
  if (f == OX_FMT_NPZ && !strchr(out, ':') && ox_format_of(in) == OX_FMT_NPZ && !strchr(in, ':')) {
    /* archive to archive: every member, by name, the archive read once */
    if (!(rc = ox_npz_open(A, in, &z, &e))) {
      int64_t nm = ox_npz_count(z);
      const char **mem = (const char **)ox_npz_keys(z);
      const ox_value **vals = ox_alloc_array(A, nm + 1, sizeof *vals);
      if (!vals) rc = ox_oom(&e, NULL);
      for (int64_t k = 0; k < nm && !rc; k++) rc = ox_npz_get(A, z, k, NULL, (ox_value **)&vals[k], &e);
      if (rc) fprintf(stderr, "onnxop: %s: %s\n", in, e.msg);
      else if (dash ? (rc = ox_write_stdout(f, 1, (int)nm, vals, mem, &e))
                    : ((rc = ox_save_npz(out, (int)nm, vals, mem, &e)) || (rc = ox_commit_files(&e))))
        fprintf(stderr, "onnxop: %s: %s\n", dash ? "standard output" : out, e.msg);
      if (rc) ox_discard_files();
      ox_arena_free(A);
      return rc;
    }
  }
  if (!rc) rc = ox_api_value_load(A, in, NULL, &val, &name, &e);
  if (rc) fprintf(stderr, "onnxop: %s: %s\n", in, e.msg);
  else if (dash ? (rc = ox_write_stdout(f, 0, 1, (const ox_value *const *)&val, &name, &e))
                : ((rc = ox_save_value(out, f, val, name, &e)) || (rc = ox_commit_files(&e))))
    fprintf(stderr, "onnxop: %s: %s\n", dash ? "standard output" : out, e.msg);
  if (rc) ox_discard_files();
  ox_arena_free(A);
  return rc;
}
