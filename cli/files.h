/* cli/files.h: the command's outputs, all or nothing (cli/files.c; the man
 * page's OUTPUTS section). The command's own process-wide state: a list of
 * pending outputs and the signal handlers that clean them up, which the
 * library never has.
 *  - ox_claim_output reserves a path before anything is computed: an empty
 *    path, a folder, a missing parent folder, or a file another output of
 *    this run already names (through "./", a symlinked folder or a hard link)
 *    is refused there;
 *  - ox_out_open creates its temporary next to it (io/io.h's
 *    ox_temp_create) and ox_out_close (io/io.h) finishes it;
 *  - ox_commit_files renames every temporary into place, or none: when one
 *    rename fails, the files already renamed are put back as they were;
 *  - ox_mkdir_p makes or opens an output folder, following no symlink
 *    inside the path the command line gave;
 *  - ox_discard_files removes the temporaries and the folders ox_mkdir_p
 *    made. SIGINT, SIGTERM, SIGHUP and SIGPIPE do the same, then end the
 *    process as the signal would (status 128 + signal); the handlers are
 *    installed by the first claim, temporary or folder. */
#ifndef OX_CLI_FILES_H
#define OX_CLI_FILES_H

#include "../io/io.h"

int ox_claim_output(const char *path, ox_err *e);
int ox_out_open(ox_out *o, const char *path, ox_err *e); /* claims path if needed */
int ox_write_file_tmp(const char *path, const ox_buf *b, ox_err *e); /* open, put b, close */
int ox_commit_files(ox_err *e);
void ox_discard_files(void);
/* Make the folder dir and its missing parents, as mkdir -p (0 also when it
 * exists already as a folder; else the error in e, naming dir, or the
 * path up to a symlink it refused). The first `named` bytes of dir are the path
 * the command line gave: a symlink among them is followed, as the user wrote
 * it. Every component after them (a suite's case folder, test_data_set_K)
 * and every folder made here is opened with O_NOFOLLOW from the folder above
 * it, so a symlink planted there, before or during the run, is refused, not
 * followed. The folder found is kept open: outputs claimed in dir afterwards
 * ("dir/NAME") are created in it, whatever dir names by then. The folders
 * made are removed again by ox_discard_files (deepest first, each in the
 * folder it was made in, and only when empty). */
int ox_mkdir_p(const char *dir, size_t named, ox_err *e);
/* The folder ox_mkdir_p(dir, ...) found, as an O_PATH descriptor for the
 * *at() calls (owned by the output list), or -1. */
int ox_out_folder_fd(const char *dir);

/* Encode a value in the format and stream it to path's temporary (for
 * ox_commit_files). */
int ox_save_value(const char *path, ox_format f, const ox_value *v, const char *name, ox_err *e);
/* Several values as the members of one .npz (names NULL or empty: arr_K). */
int ox_save_npz(const char *path, int n, const ox_value *const *v, const char *const *names, ox_err *e);

#endif
