/* cli/bind.c: --in and --out arguments, [NAME=]FILE, bound to a model's
 * inputs and outputs; shared by run and bench.
 *
 * The text before an '=' is a NAME when it is one of the model's names (the
 * longest, since names may hold '=' or '/'). Otherwise, when it holds no '/'
 * and the argument is neither an inline value (string[1]:a=b) nor a JSON
 * literal ('{'), it was meant as a name and names nothing: a usage error that
 * lists the names the model has. So a file whose name holds an '=' is given
 * with a '/' before it: ./a=b.pb. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

struct ox_name_at { const char *name; int index; };

static int cmp_name_at(const void *x, const void *y) {
  const struct ox_name_at *p = x, *q = y;
  int c = strcmp(p->name, q->name);
  return c ? c : (p->index > q->index) - (p->index < q->index);
}

int ox_names_index(ox_arena *A, int n, const char *const *names, ox_names *ix) {
  ix->n = n;
  ix->names = names;
  if (!(ix->sorted = ox_alloc_array(A, n + 1, sizeof *ix->sorted))) return -1;
  for (int i = 0; i < n; i++) ix->sorted[i] = (struct ox_name_at){names[i], i};
  qsort(ix->sorted, (size_t)n, sizeof *ix->sorted, cmp_name_at);
  return 0;
}

static int names_find(const ox_names *ix, const char *s, size_t len) {
  int lo = 0, hi = ix->n;
  while (lo < hi) { /* the first name >= s[0, len) */
    int mid = lo + (hi - lo) / 2;
    const char *nm = ix->sorted[mid].name;
    int c = strncmp(nm, s, len);
    if (!c) c = nm[len] != 0; /* s[0, len) is a prefix of nm: nm is after it */
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo < ix->n && !strncmp(ix->sorted[lo].name, s, len) && !ix->sorted[lo].name[len]) return ix->sorted[lo].index;
  return -1;
}

/* Either ix, or the n names looked through one by one. */
static int split(const char *cmd, const char *kind, const char *arg, int n, const char *const *names,
                 const ox_names *ix, ox_binding *b) {
  const char *opt = kind[0] == 'i' ? "--in" : "--out";
  b->name = NULL;
  b->file = arg;
  b->index = -1;
  if (!*arg) return ox_usage_error(cmd, "%s needs a FILE, not an empty path", opt);
  if (ix) { /* the longest name before an '=': the last '=' that ends one */
    for (const char *q = strchr(arg, '='); q; q = strchr(q + 1, '=')) {
      int k = q > arg ? names_find(ix, arg, (size_t)(q - arg)) : -1;
      if (k >= 0) b->index = k;
    }
  } else {
    size_t best = 0;
    for (int i = 0; i < n; i++) {
      size_t l = strlen(names[i]);
      if (l > best && !strncmp(arg, names[i], l) && arg[l] == '=') best = l, b->index = i;
    }
  }
  if (ix) n = ix->n, names = ix->names;
  const char *eq = strchr(arg, '=');
  if (b->index >= 0) {
    b->name = names[b->index];
    b->file = arg + strlen(b->name) + 1;
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

int ox_split_binding(const char *cmd, const char *kind, const char *arg, int n, const char *const *names,
                     ox_binding *b) {
  return split(cmd, kind, arg, n, names, NULL, b);
}

int ox_split_binding_ix(const char *cmd, const char *kind, const char *arg, const ox_names *ix, ox_binding *b) {
  return split(cmd, kind, arg, 0, NULL, ix, b);
}

int ox_cli_fail_file(const char *file, const char *what, const ox_err *e) {
  fprintf(stderr, "onnxop: %s%s: %s\n", file, what ? what : "", e->msg);
  return e->code ? e->code : OX_EINPUT;
}

/* The .npz archives the inputs come from, each read once however many of
 * its members are inputs (reading it again for each member made 2,000
 * members of 490 KB take 15 s and 1.6 GB). Their bytes are in T, freed once
 * every input is bound: the values are decoded into the command's arena and
 * hold none of them. */
typedef struct { const char *file; ox_npz *z; } archive;
typedef struct { ox_arena *T; archive *v; int n, cap; } archives;

static int archive_of(archives *s, const char *file, ox_npz **z, ox_err *e) {
  for (int i = s->n; i-- > 0;) /* the latest first: an archive's members come together */
    if (!strcmp(s->v[i].file, file)) {
      *z = s->v[i].z;
      return 0;
    }
  if (s->n == s->cap) {
    int nc = s->cap ? 2 * s->cap : 4;
    archive *v = ox_alloc_array(s->T, nc, sizeof *v);
    if (!v) return ox_oom(e, NULL);
    if (s->n) memcpy(v, s->v, (size_t)s->n * sizeof *v);
    s->v = v;
    s->cap = nc;
  }
  OX_TRY(ox_npz_open(s->T, file, z, e));
  s->v[s->n++] = (archive){file, *z};
  return 0;
}

/* An .npz given without a member stands for its members: "x" goes to input x,
 * the others by position (in archive order). NAME=FILE.npz takes member NAME
 * when there is one. *ins is replaced by an array in the arena. */
static int expand_npz(ox_arena *A, archives *ar, const char *cmd, const char ***ins, int *nin, const ox_names *ix) {
  int64_t cap = *nin + 1;
  int n = 0;
  const char **out = NULL;
  for (int pass = 0; pass < 2; pass++) {
    if (pass && cap > INT_MAX) return ox_usage_error(cmd, "too many inputs: the .npz files hold %lld arrays", (long long)cap);
    if (pass && !(out = ox_alloc_array(A, cap, sizeof *out))) return ox_cli_oom(cmd, NULL);
    for (int i = 0; i < *nin; i++) {
      const char *arg = (*ins)[i], *member = NULL, *file = NULL;
      ox_binding b;
      OX_TRY(ox_split_binding_ix(cmd, "input", arg, ix, &b));
      if (ox_format_of(b.file) == OX_FMT_NPZ && !(file = ox_npz_split(A, b.file, &member)))
        return ox_cli_oom(cmd, NULL);
      if (ox_format_of(b.file) != OX_FMT_NPZ || strcmp(file, b.file) || member) {
        if (pass) out[n++] = arg;
        continue;
      }
      ox_err e = {0};
      ox_npz *z;
      if (archive_of(ar, b.file, &z, &e)) return ox_cli_fail_file(b.file, NULL, &e);
      const char *const *mem = ox_npz_keys(z);
      int64_t nm = ox_npz_count(z);
      if (b.name) { /* NAME=FILE.npz: member NAME if there is one, else the only member */
        int has = ox_npz_find(z, b.name) >= 0;
        if (pass && !(out[n++] = has ? ox_sprintf(A, "%s=%s:%s", b.name, b.file, b.name) : arg))
          return ox_cli_oom(cmd, NULL);
        continue;
      }
      if (!pass) {
        cap += nm;
        continue;
      }
      for (int64_t k = 0; k < nm; k++) {
        int named = names_find(ix, mem[k], strlen(mem[k])) >= 0;
        out[n++] = named ? ox_sprintf(A, "%s=%s:%s", mem[k], b.file, mem[k]) : ox_sprintf(A, "%s:%s", b.file, mem[k]);
        if (!out[n - 1]) return ox_cli_oom(cmd, NULL);
      }
    }
  }
  *ins = out;
  *nin = n;
  return 0;
}

static int bind_inputs(ox_arena *A, archives *ar, const char *cmd, const onnxop_model *M, const char **args,
                       int nin, onnxop_value **vals) {
  const ox_model *m = ox_api_model(M);
  const ox_graph *g = m->graph;
  int *real = ox_alloc_array(A, g->nin + 1, sizeof *real);
  const char **names = ox_alloc_array(A, g->nin + 1, sizeof *names);
  char *taken = ox_alloc_array(A, g->nin + 1, 1);
  ox_names ix;
  if (!real || !names || !taken) return ox_cli_oom(cmd, NULL);
  int nreal = ox_graph_real_inputs(g, real);
  for (int i = 0; i < g->nin; i++) names[i] = g->in[i].name;
  if (ox_names_index(A, g->nin, names, &ix)) return ox_cli_oom(cmd, NULL);
  OX_TRY(expand_npz(A, ar, cmd, &args, &nin, &ix)); /* now in the arena */
  int *slot_of = ox_alloc_array(A, nin + 1, sizeof *slot_of);
  const char **file_of = ox_alloc_array(A, nin + 1, sizeof *file_of);
  if (!slot_of || !file_of) return ox_cli_oom(cmd, NULL);
  /* the named inputs first; the positional ones then take the real
   * (non-initializer) inputs left, in order */
  for (int i = 0; i < nin; i++) {
    ox_binding b;
    OX_TRY(ox_split_binding_ix(cmd, "input", args[i], &ix, &b));
    slot_of[i] = b.index;
    file_of[i] = b.file;
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
    char what[300];
    snprintf(what, sizeof what, " (input '%s')", g->in[slot].name);
    const char *member = NULL, *file = ox_format_of(file_of[i]) == OX_FMT_NPZ ? ox_npz_split(A, file_of[i], &member)
                                                                              : file_of[i];
    if (!file) return ox_cli_oom(cmd, NULL);
    if (member) { /* FILE.npz:NAME, from the archive read once; a handle on the value in A */
      ox_err e = {0};
      ox_npz *z;
      ox_value *v;
      int64_t k;
      if (archive_of(ar, file, &z, &e) || ox_npz_member(z, member, &k, &e) ||
          ox_npz_get(A, z, k, g->in[slot].type, &v, &e))
        return ox_cli_fail_file(file_of[i], what, &e);
      if (ox_api_value_wrap(v, &vals[slot], &err)) {
        onnxop_error_free(err);
        return ox_cli_oom(cmd, NULL);
      }
      continue;
    }
    ox_api_read_opts o = {.type = g->in[slot].type, .basedir = m->dir, .cli_forms = 1};
    if (ox_api_value_read(file_of[i], ONNXOP_FORMAT_AUTO, &o, &vals[slot], &err)) {
      int rc = ox_cli_api_fail(file_of[i], what, err);
      onnxop_error_free(err);
      return rc;
    }
  }
  return 0;
}

int ox_bind_inputs(ox_arena *A, const char *cmd, const onnxop_model *M, const char **args, int nin,
                   onnxop_value **vals) {
  archives ar = {ox_arena_new(), NULL, 0, 0};
  int rc = ar.T ? bind_inputs(A, &ar, cmd, M, args, nin, vals) : ox_cli_oom(cmd, NULL);
  ox_arena_free(ar.T);
  return rc;
}

int ox_cli_api_fail(const char *file, const char *what, const onnxop_error *err) {
  fprintf(stderr, "onnxop: %s%s%s%s\n", file ? file : "", what ? what : "", file || what ? ": " : "",
          onnxop_error_message(err));
  return onnxop_error_code(err) ? onnxop_error_code(err) : OX_EINPUT;
}

void ox_cli_free_values(onnxop_value **v, int n) {
  for (int i = 0; v && i < n; i++) onnxop_value_free(v[i]);
}
