/* cli/bind.c: --in and --out arguments, [NAME=]FILE, bound to a model's
 * inputs and outputs; shared by run and bench.
 *
 * The text before an '=' is a NAME when it is one of the model's names (the
 * longest, since names may hold '=' or '/'). Otherwise, when it holds no '/'
 * and the argument is neither an inline value (string[1]:a=b) nor a JSON
 * literal ('{'), it was meant as a name and names nothing: a usage error that
 * lists the names the model has. So a file whose name holds an '=' is given
 * with a '/' before it: ./a=b.pb. */
#include <stdio.h>
#include <string.h>

#include "../api/api.h"
#include "../io/io.h"
#include "../proto/proto.h"
#include "cli.h"

/* "x, y, z" (cut short past ~800 characters) */
static void list_names(char *out, size_t room, int n, const char *const *names) {
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < n && k < room; i++) {
    if (k > 800) {
      snprintf(out + k, room - k, ", ... (%d in all)", n);
      return;
    }
    k += (size_t)snprintf(out + k, room - k, "%s'%s'", i ? ", " : "", names[i]);
  }
}

int ox_split_binding(const char *cmd, const char *kind, const char *arg, int n, const char *const *names,
                     ox_binding *b) {
  const char *opt = kind[0] == 'i' ? "--in" : "--out";
  b->name = NULL;
  b->file = arg;
  if (!*arg) return ox_usage_error(cmd, "%s needs a FILE, not an empty path", opt);
  size_t best = 0;
  for (int i = 0; i < n; i++) {
    size_t l = strlen(names[i]);
    if (l > best && !strncmp(arg, names[i], l) && arg[l] == '=') best = l, b->name = names[i];
  }
  const char *eq = strchr(arg, '=');
  if (b->name) {
    b->file = arg + best + 1;
  } else if (eq && arg[0] != '{' && !memchr(arg, '/', (size_t)(eq - arg)) &&
             !(strstr(arg, "]:") && strstr(arg, "]:") < eq)) {
    char list[1024];
    list_names(list, sizeof list, n, names);
    return ox_usage_error(cmd, "%s %s: the model has no %s named '%.*s' (its %ss: %s); a file whose name "
                          "has an '=' is given with a '/' before it: ./%s", opt, arg, kind, (int)(eq - arg), arg,
                          kind, n ? list : "none", arg);
  }
  if (!*b->file) return ox_usage_error(cmd, "%s %s: no FILE after the '='", opt, arg);
  return 0;
}

static int fail_file(const char *file, const char *what, ox_err *e) {
  fprintf(stderr, "onnxop: %s%s: %s\n", file, what ? what : "", e->msg);
  return e->code ? e->code : OX_EINPUT;
}

/* An .npz given without a member stands for its members: "x" goes to input x,
 * the others by position (in archive order). NAME=FILE.npz takes member NAME
 * when there is one. *ins is replaced by an array in the arena. */
static int expand_npz(ox_arena *A, const char *cmd, const char ***ins, int *nin, int nnames,
                      const char *const *names) {
  int cap = *nin + 1, n = 0;
  const char **out = NULL;
  for (int pass = 0; pass < 2; pass++) {
    if (pass && !(out = ox_alloc_array(A, cap, sizeof *out))) return ox_cli_oom(cmd, NULL);
    for (int i = 0; i < *nin; i++) {
      const char *arg = (*ins)[i], *member = NULL, *file = NULL;
      ox_binding b;
      OX_TRY(ox_split_binding(cmd, "input", arg, nnames, names, &b));
      if (ox_format_of(b.file) == OX_FMT_NPZ && !(file = ox_npz_split(A, b.file, &member)))
        return ox_cli_oom(cmd, NULL);
      if (ox_format_of(b.file) != OX_FMT_NPZ || strcmp(file, b.file) || member) {
        if (pass) out[n++] = arg;
        continue;
      }
      ox_err e = {0};
      const char **mem;
      int64_t nm;
      if (ox_npz_members(A, b.file, &mem, &nm, &e)) return fail_file(b.file, NULL, &e);
      if (b.name) { /* NAME=FILE.npz: member NAME if there is one, else the only member */
        int has = 0;
        for (int64_t k = 0; k < nm; k++) has |= !strcmp(mem[k], b.name);
        if (pass && !(out[n++] = has ? ox_sprintf(A, "%s=%s:%s", b.name, b.file, b.name) : arg))
          return ox_cli_oom(cmd, NULL);
        continue;
      }
      if (!pass) {
        cap += (int)(nm < 1 << 20 ? nm : 1 << 20);
        continue;
      }
      for (int64_t k = 0; k < nm && n < cap - 1; k++) {
        int named = 0;
        for (int j = 0; j < nnames; j++) named |= !strcmp(names[j], mem[k]);
        out[n++] = named ? ox_sprintf(A, "%s=%s:%s", mem[k], b.file, mem[k]) : ox_sprintf(A, "%s:%s", b.file, mem[k]);
        if (!out[n - 1]) return ox_cli_oom(cmd, NULL);
      }
    }
  }
  *ins = out;
  *nin = n;
  return 0;
}

int ox_bind_inputs(ox_arena *A, const char *cmd, const onnxop_model *M, const char **args, int nin,
                   onnxop_value **vals) {
  const ox_model *m = ox_api_model(M);
  const ox_graph *g = m->graph;
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  const char **names = ox_alloc_array(A, g->nin + 1, sizeof *names);
  char *taken = ox_alloc_array(A, g->nin + 1, 1);
  if (!real || !names || !taken) return ox_cli_oom(cmd, NULL);
  int nreal = ox_graph_real_inputs(g, real);
  for (int i = 0; i < g->nin; i++) names[i] = g->in[i].name;
  OX_TRY(expand_npz(A, cmd, &args, &nin, g->nin, names)); /* now in the arena */
  int *slot_of = ox_alloc_array(A, nin + 1, sizeof *slot_of);
  const char **file_of = ox_alloc_array(A, nin + 1, sizeof *file_of);
  if (!slot_of || !file_of) return ox_cli_oom(cmd, NULL);
  /* the named inputs first; the positional ones then take the real
   * (non-initializer) inputs left, in order */
  for (int i = 0; i < nin; i++) {
    ox_binding b;
    OX_TRY(ox_split_binding(cmd, "input", args[i], g->nin, names, &b));
    slot_of[i] = -1;
    file_of[i] = b.file;
    for (int j = 0; b.name && j < g->nin; j++)
      if (names[j] == b.name) slot_of[i] = j;
    if (slot_of[i] >= 0 && taken[slot_of[i]]++)
      return ox_usage_error(cmd, "input '%s' is given twice", b.name);
  }
  for (int i = 0, pos = 0; i < nin; i++) {
    if (slot_of[i] >= 0) continue;
    while (pos < nreal && taken[real[pos]]) pos++;
    if (pos >= nreal)
      return ox_usage_error(cmd, "too many inputs: the model takes %d (%s is extra)", nreal, args[i]);
    slot_of[i] = real[pos];
    taken[real[pos++]] = 1;
  }
  /* read through the library (api/api.h): as the model declares the input,
   * external data from the model's folder, and the command line's forms
   * ('-', inline values, JSON literals) too */
  for (int i = 0; i < nin; i++) {
    int slot = slot_of[i];
    onnxop_error *err = NULL;
    ox_api_read_opts o = {.type = g->in[slot].type, .basedir = m->dir, .cli_forms = 1};
    if (ox_api_value_read(file_of[i], ONNXOP_FORMAT_AUTO, &o, &vals[slot], &err)) {
      char what[300];
      snprintf(what, sizeof what, " (input '%s')", g->in[slot].name);
      int rc = ox_cli_api_fail(file_of[i], what, err);
      onnxop_error_free(err);
      return rc;
    }
  }
  return 0;
}

int ox_cli_api_fail(const char *file, const char *what, const onnxop_error *err) {
  fprintf(stderr, "onnxop: %s%s%s%s\n", file ? file : "", what ? what : "", file || what ? ": " : "",
          onnxop_error_message(err));
  return onnxop_error_code(err) ? onnxop_error_code(err) : OX_EINPUT;
}

void ox_cli_free_values(onnxop_value **v, int n) {
  for (int i = 0; v && i < n; i++) onnxop_value_free(v[i]);
}
