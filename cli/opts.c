/* cli/opts.c: the command-line conventions every command shares (GNU
 * style):
 *   --name VALUE and --name=VALUE; -x VALUE and -xVALUE for short options;
 *   "--" ends the options (what follows is an operand, even "-x");
 *   "-" alone is an operand (standard input or output);
 *   an unknown option is a usage error that suggests the nearest one
 *   ("did you mean '--opset'?"), and a flag given a value (--trace=1) too.
 * ox_suggest finds the nearest word for operator names as well. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ox.h"
#include "cli.h"

void ox_opt_init(ox_optparse *p, const char *cmd, int argc, char **argv, const ox_opt *opts) {
  *p = (ox_optparse){.cmd = cmd, .argc = argc, .argv = argv, .i = 1, .opts = opts};
}

/* the option named by `name` (n bytes of it), or -1 */
static int find(const ox_opt *opts, const char *name, size_t n) {
  for (int k = 0; opts[k].name; k++)
    if ((strlen(opts[k].name) == n && !strncmp(opts[k].name, name, n)) ||
        (opts[k].alias && strlen(opts[k].alias) == n && !strncmp(opts[k].alias, name, n)))
      return k;
  return -1;
}

int ox_opt_next(ox_optparse *p, const char **val) {
  *val = NULL;
  if (p->i >= p->argc) return OX_OPT_END;
  const char *a = p->argv[p->i++];
  if (p->dashdash || a[0] != '-' || !a[1]) {
    *val = a;
    return OX_OPT_OPERAND;
  }
  if (!strcmp(a, "--")) {
    p->dashdash = 1;
    return ox_opt_next(p, val);
  }
  int k;
  const char *inline_val = NULL;
  if (a[1] == '-') { /* --name or --name=value */
    const char *eq = strchr(a, '=');
    k = find(p->opts, a, eq ? (size_t)(eq - a) : strlen(a));
    if (eq) inline_val = eq + 1;
  } else { /* -x, -xVALUE */
    k = find(p->opts, a, strlen(a));
    if (k < 0 && (k = find(p->opts, a, 2)) >= 0) {
      if (p->opts[k].arg) inline_val = a + 2;
      else k = -1;
    }
  }
  if (k < 0) {
    const char *eq = strchr(a, '=');
    char word[128];
    snprintf(word, sizeof word, "%.*s", (int)(eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a)), a);
    const char *names[128];
    int n = 0;
    for (int j = 0; p->opts[j].name && n < 127; j++) {
      names[n++] = p->opts[j].name;
      if (p->opts[j].alias && p->opts[j].alias[1] == '-') names[n++] = p->opts[j].alias;
    }
    const char *near = ox_suggest(word, names, n);
    ox_usage_error(p->cmd, near ? "unknown option '%s'; did you mean '%s'?" : "unknown option '%s'", word, near);
    return OX_OPT_ERROR;
  }
  const ox_opt *o = &p->opts[k];
  if (!o->arg) {
    if (inline_val) {
      ox_usage_error(p->cmd, "%s takes no value (not '%s')", o->name, a);
      return OX_OPT_ERROR;
    }
    return k;
  }
  if (inline_val) {
    *val = inline_val;
  } else if (p->i < p->argc) {
    *val = p->argv[p->i++];
  } else {
    ox_usage_error(p->cmd, "%s needs %s", o->name, o->arg);
    return OX_OPT_ERROR;
  }
  return k;
}

/* Damerau-Levenshtein distance (optimal string alignment), letters compared
 * without case, capped: anything at or past 16 is 16. */
static int distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 62 || m > 62) return 16;
  int d[64][64];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m] < 16 ? d[n][m] : 16;
}

const char *ox_suggest(const char *word, const char *const *cands, int n) {
  /* close enough: a third of the word's letters (at least 1, at most 3) */
  int len = (int)strlen(word), limit = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3, best = limit + 1;
  const char *pick = NULL;
  for (int i = 0; i < n; i++) {
    int d = distance(word, cands[i]);
    if (d < best && strcmp(word, cands[i])) best = d, pick = cands[i];
  }
  return pick;
}

/* "0.5", "30", "1e3" -> seconds (0: no limit); -1 if not a finite number >= 0
 * written in decimal (strtod would also take "0x10", "inf" and " 5") */
double ox_parse_seconds(const char *s) {
  char *end;
  if (!*s || strspn(s, "0123456789.eE+-") != strlen(s)) return -1;
  double v = strtod(s, &end);
  return *end || !(v >= 0 && v <= 1e12) ? -1 : v;
}
