/* cli/lists.h: the two list files `onnxop test` reads, parsed from their
 * bytes (cli/lists.c): --tolerances FILE and --xfail FILE.
 *
 * Both are read as lines that end in '\n' (the last one may lack it), of any
 * length, a '\r' before the '\n' left out. A NUL byte anywhere is an error
 * naming its line: neither format has a use for one, and as C strings the
 * line would end there without a word.
 *
 * The parsers write into text[0, len] (each line's end becomes a NUL;
 * text[len] must be there, as ox_read_file's NUL is) and the lines they
 * return point into it: text must outlive them. Errors are usage errors
 * (OX_EUSAGE) that start "FILE:LINE: ", or OX_ENOMEM. */
#ifndef OX_CLI_LISTS_H
#define OX_CLI_LISTS_H

#include <stddef.h>

#include "../core/err.h"

/* --tolerances: "GLOB[:OUTPUT] atol=A rtol=R" lines, either value left out
 * at will; '#' starts a comment; blank lines are skipped. Blanks (spaces,
 * tabs) separate the words, before the first one too. */
typedef struct {
  const char *glob, *output; /* output NULL: every output of the case */
  double atol, rtol;
  int has;                   /* OX_HAS_ATOL | OX_HAS_RTOL: the values the line gives */
  int line;                  /* its line number in the file */
} ox_tolline;
enum { OX_HAS_ATOL = 1, OX_HAS_RTOL = 2 };
typedef struct {
  ox_tolline *v; /* in file order */
  int n, cap;
} ox_tollist;
/* Appends the file's lines to *t (zeroed at first); free with ox_tollist_free. */
int ox_tolerances_parse(char *text, size_t len, const char *file, ox_tollist *t, ox_err *e);
void ox_tollist_free(ox_tollist *t);

/* --xfail: "PATTERN: reason" lines; blank lines and those starting with
 * '#' (after blanks) are skipped. PATTERN, blanks around it left out, is a
 * case's name or a shell glob of names; with a '/', a glob of paths. */
typedef struct {
  const char *name, *reason;
  int line;   /* its line number in the file */
  int glob;   /* has * ? [ or /: matched with fnmatch */
  int dup_of; /* the line number it repeats (a duplicate), or 0 */
  int used;   /* it names a case that was found (in this shard or not) */
} ox_xline;
/* The lines in *out (in file order; free with ox_mem_free) and their
 * count in *n. */
int ox_xfail_parse(char *text, size_t len, const char *file, ox_xline **out, int *n, ox_err *e);

#endif
