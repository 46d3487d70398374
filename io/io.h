/* io/io.h: reading and writing values, one file per format.
 *
 * Every reader takes `want`, the type the model declares for the value (NULL
 * when it declares none): a .pb does not say which message it holds, so the
 * declared kind picks TensorProto / SequenceProto / OptionalProto / MapProto,
 * and without one the reader tells them apart by content.
 * Errors say what is wrong; the caller adds the file name. */
#ifndef OX_IO_H
#define OX_IO_H

#include <stdio.h>
#include "../core/ox.h"

/* A growable byte buffer (malloc'd, not in the arena: output is built once). */
typedef struct { uint8_t *p; size_t n, cap; } ox_buf;
int ox_buf_put(ox_buf *b, const void *p, size_t n);
int ox_buf_printf(ox_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ox_buf_free(ox_buf *b);

/* ---- files (io/file.c) ---- */
/* Whole file into the arena (NUL-terminated). */
int ox_read_file(ox_arena *a, const char *path, uint8_t **data, size_t *len, ox_err *e);
/* Write atomically-ish: to "path.tmp.<pid>", then ox_commit_files renames.
 * ox_discard_files removes the temporaries of a failed run. */
int ox_write_file_tmp(const char *path, const ox_buf *b, ox_err *e);
int ox_commit_files(ox_err *e);
void ox_discard_files(void);
/* Make the folder dir and its missing parents, as mkdir -p (0 if it exists
 * already as a folder; -1 with errno set otherwise). */
int ox_mkdir_p(const char *dir);

typedef enum { OX_FMT_UNKNOWN = 0, OX_FMT_PB, OX_FMT_JSON, OX_FMT_NPY, OX_FMT_NPZ } ox_format;
/* From the extension; "bundle.npz:x" (member x of bundle.npz) is OX_FMT_NPZ. */
ox_format ox_format_of(const char *path);
/* "bundle.npz:x" -> "bundle.npz" (in the arena) and *member = "x"; any other
 * path (also one that exists as a file) is returned as it is, *member = NULL. */
const char *ox_npz_split(ox_arena *a, const char *path, const char **member);
/* The member names of an .npz file (without ".npy"), in archive order. */
int ox_npz_members(ox_arena *a, const char *path, const char ***names, int64_t *n, ox_err *e);

/* Load any value file by extension. basedir: where external data may live
 * (the model's folder); name_out (may be NULL) receives the name stored in
 * the file, or NULL. */
int ox_load_value(ox_arena *a, const char *path, const ox_type *want, const char *basedir,
                  ox_value **out, const char **name_out, ox_err *e);
/* Encode a value in the format and write it to a temporary for ox_commit_files. */
int ox_save_value(const char *path, ox_format f, const ox_value *v, const char *name,
                  ox_err *e);
/* Several values as the members of one .npz (names NULL or empty: arr_K). */
int ox_save_npz(const char *path, int n, const ox_value *const *v, const char *const *names, ox_err *e);

/* ---- .pb (io/pb.c) ---- */
int ox_pb_decode(ox_arena *a, const uint8_t *buf, size_t len, const ox_type *want,
                 const char *basedir, ox_value **out, const char **name_out, ox_err *e);
int ox_pb_encode(const ox_value *v, const char *name, ox_buf *out, ox_err *e);

/* ---- JSON (io/json.c) ---- */
int ox_json_decode(ox_arena *a, const char *text, size_t len, const ox_type *want,
                   ox_value **out, const char **name_out, ox_err *e);
int ox_json_encode(const ox_value *v, const char *name, ox_buf *out, ox_err *e);

/* ---- numpy's .npy and .npz (io/npy.c) ----
 * .npy holds one tensor of bool, int8..uint64, float16/32/64, complex64/128 or
 * string; the other dtypes and other kinds are refused with a message naming
 * the formats that can hold them. An .npz is a zip of NAME.npy members. */
int ox_npy_decode(ox_arena *a, const uint8_t *buf, size_t len, const ox_type *want, ox_value **out,
                  ox_err *e);
int ox_npy_encode(const ox_value *v, ox_buf *out, ox_err *e);
int ox_npy_can_hold(const ox_value *v, ox_err *e); /* 0, or the error ox_npy_encode would give */
int ox_npz_list(ox_arena *a, const uint8_t *buf, size_t len, const char ***names, int64_t *n, ox_err *e);
/* member: a name with or without ".npy"; NULL takes the only member (an
 * error when there are several). name_out: the member's name. */
int ox_npz_decode(ox_arena *a, const uint8_t *buf, size_t len, const char *member, const ox_type *want,
                  ox_value **out, const char **name_out, ox_err *e);
int ox_npz_encode(int n, const ox_value *const *vals, const char *const *names, ox_buf *out, ox_err *e);

/* ---- text, numpy style (io/text.c) ----
 * name: shape=(2, 3), dtype=float32
 *   [[-1.  ,  0.  ,  1.5 ],
 *    [-2.25,  3.5 , -4.75]]
 * `indent` spaces before the header line; values are indented 2 more, as on
 * the ONNX operator pages (the CLI prints with indent 2, so its lines are
 * those of the pages' "Outputs:" blocks). */
extern int ox_text_full; /* 1: print every element, never summarise with ... */
/* 0, or OX_EINPUT when memory ran out or a write to f failed (now or
 * earlier: ferror(f)), so that a caller stops printing. */
int ox_text_print(FILE *f, const char *name, const ox_value *v, int indent);
/* Just the numpy-style body of a tensor, continuation lines indented by
 * `indent` spaces (the first line is not). */
int ox_text_tensor(ox_buf *b, const ox_tensor *t, int indent);

#endif
