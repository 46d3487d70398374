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

/* A growable byte buffer (from ox_mem_realloc, so counted against the limit;
 * not in the arena: output is built once). */
typedef struct { uint8_t *p; size_t n, cap; } ox_buf;
int ox_buf_put(ox_buf *b, const void *p, size_t n);
int ox_buf_printf(ox_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ox_buf_free(ox_buf *b);

/* The stream the encoders write to: into an ox_buf (ox_out_buf), or into a
 * file descriptor through a chunk of OX_OUT_CHUNK bytes (ox_out_fd), so that
 * a value is never encoded whole in memory. Errors are sticky: after the
 * first failure every call returns -1 and does nothing; err says why (an
 * errno value: ENOMEM, ENOSPC, EFBIG, ...). While crc_on is set, crc (zlib's
 * crc32) follows the bytes put. */
#define OX_OUT_CHUNK ((size_t)1 << 20)
typedef struct {
  ox_buf *buf;     /* into this buffer, or NULL: into fd */
  size_t base;     /* buf->n when the stream began */
  int fd;          /* the file, written from its offset 0 on */
  uint8_t *chunk;  /* pending bytes for fd (OX_OUT_CHUNK at most) */
  size_t fill;
  uint64_t n;      /* bytes put so far */
  int err;         /* 0, or the errno of the first failure */
  int crc_on;
  unsigned long crc;
} ox_out;
void ox_out_buf(ox_out *o, ox_buf *b);
void ox_out_fd(ox_out *o, int fd);
int ox_out_put(ox_out *o, const void *p, size_t n); /* 0 or -1 */
/* Overwrite n bytes already put, from offset at of the stream (a header
 * whose sizes are known only after its data). */
int ox_out_patch(ox_out *o, uint64_t at, const void *p, size_t n);
/* Flush and free the chunk (not the buffer, not the fd): 0 or o->err. */
int ox_out_finish(ox_out *o);

/* ---- files (io/file.c) ---- */
/* Whole file into the arena (NUL-terminated). */
int ox_read_file(ox_arena *a, const char *path, uint8_t **data, size_t *len, ox_err *e);
/* (ox_open_regular: core/sys.h) */
/* The rest of f (from ox_open_regular) into the arena, NUL-terminated, as
 * ox_read_file reads; f is closed. */
int ox_read_open_file(ox_arena *a, FILE *f, uint8_t **data, size_t *len, ox_err *e);

/* Writing a file all or nothing: its content goes to a temporary beside it
 * ("NAME.tmp.XXXXXXXXXXXX", NAME's last component cut to OX_TEMP_KEPT
 * bytes so that a long name still has room), renamed over it at the end.
 *  - ox_temp_create makes the temporary for `name` in the folder dfd
 *    (AT_FDCWD: name is a path): O_CREAT|O_EXCL|O_NOFOLLOW, never a file or
 *    symlink that is there; mode 0666 & ~umask; its name (relative to dfd)
 *    into tmp, room bytes (strlen(name) + 32 is enough). The open fd, or -1
 *    with errno set;
 *  - ox_temp_tag: 12 unpredictable characters from [A-Za-z0-9] (71 bits),
 *    for other names of the kind;
 *  - ox_out_close finishes a file stream and closes its fd: 0 or the error
 *    ("write error: ...");
 *  - ox_write_file_atomic streams put's bytes into a temporary and renames
 *    it over path; a failure leaves path as it was and no temporary. Errors
 *    without the path (the caller names it).
 * The command's outputs, several committed together and removed on a
 * signal, are cli/files.h's. */
enum { OX_TEMP_KEPT = 200 };
int ox_temp_create(int dfd, const char *name, char *tmp, size_t room);
void ox_temp_tag(char out[13]);
int ox_out_close(ox_out *o, ox_err *e);
int ox_write_file_atomic(const char *path, int (*put)(void *arg, ox_out *o, ox_err *e), void *arg, ox_err *e);

typedef enum { OX_FMT_UNKNOWN = 0, OX_FMT_PB, OX_FMT_JSON, OX_FMT_NPY, OX_FMT_NPZ } ox_format;
/* From the extension; "bundle.npz:x" (member x of bundle.npz) is OX_FMT_NPZ. */
ox_format ox_format_of(const char *path);
/* "bundle.npz:x" -> "bundle.npz" (in the arena) and *member = "x"; any other
 * path (also one that exists as a file) is returned as it is, *member = NULL.
 * NULL when memory runs out. */
const char *ox_npz_split(ox_arena *a, const char *path, const char **member);
/* The member names of an .npz file (without ".npy"), in archive order. */
int ox_npz_members(ox_arena *a, const char *path, const char ***names, int64_t *n, ox_err *e);
/* An .npz file read into a and its directory read, once, for taking many
 * of its members (ox_npz_get, below): each then costs its own bytes, not
 * the archive's. */
typedef struct ox_npz ox_npz;
int ox_npz_open(ox_arena *a, const char *path, ox_npz **z, ox_err *e);

/* Read a value file in format f (OX_FMT_UNKNOWN: by the extension;
 * "FILE.npz:NAME" is a member). basedir: where a .pb's external data may
 * live (NULL: nowhere); name_out (may be NULL) receives the name stored in
 * the file, or NULL. */
int ox_read_value(ox_arena *a, const char *path, ox_format f, const ox_type *want, const char *basedir,
                  ox_value **out, const char **name_out, ox_err *e);
/* The same by extension, for a FILE of the command line, which may also be
 * "-" (standard input: JSON, .npy, .npz or .pb by its bytes), an inline
 * value (float32[2,3]:1,2,3,4,5,6) or a JSON literal ('{...}'). */
int ox_load_value(ox_arena *a, const char *path, const ox_type *want, const char *basedir,
                  ox_value **out, const char **name_out, ox_err *e);
/* ---- .pb (io/pb.c) ---- */
int ox_pb_decode(ox_arena *a, const uint8_t *buf, size_t len, const ox_type *want,
                 const char *basedir, ox_value **out, const char **name_out, ox_err *e);
int ox_pb_encode(const ox_value *v, const char *name, ox_buf *out, ox_err *e);
int ox_pb_write(const ox_value *v, const char *name, ox_out *o, ox_err *e);

/* ---- JSON (io/json.c) ---- */
int ox_json_decode(ox_arena *a, const char *text, size_t len, const ox_type *want,
                   ox_value **out, const char **name_out, ox_err *e);
int ox_json_encode(const ox_value *v, const char *name, ox_buf *out, ox_err *e);
int ox_json_write(const ox_value *v, const char *name, ox_out *o, ox_err *e);
/* Route cJSON's allocations through ox_mem_malloc (counted, and failing in
 * fault-injection tests); the decoder does it, and cli/main.c first thing,
 * for the commands that build JSON reports. A block cJSON returns (its
 * printed text) is freed with cJSON_free. */
void ox_json_hooks(void);
/* cJSON_AddItemToObject and cJSON_AddItemToArray, except that they delete
 * item when it cannot be added (memory ran out, or o is NULL because it
 * could not be made), so that a report being built leaks nothing. A caller
 * learns that memory ran out while building from ox_mem_failures(). */
struct cJSON;
void ox_cjson_add(struct cJSON *o, const char *key, struct cJSON *item);
void ox_cjson_push(struct cJSON *arr, struct cJSON *item);

/* ---- numpy's .npy and .npz (io/npy.c) ----
 * .npy holds one tensor of bool, int8..uint64, float16/32/64, complex64/128 or
 * string; the other dtypes and other kinds are refused with a message naming
 * the formats that can hold them. An .npz is a zip of NAME.npy members. */
int ox_npy_decode(ox_arena *a, const uint8_t *buf, size_t len, const ox_type *want, ox_value **out,
                  ox_err *e);
int ox_npy_encode(const ox_value *v, ox_buf *out, ox_err *e);
int ox_npy_write(const ox_value *v, ox_out *o, ox_err *e);
int ox_npy_can_hold(const ox_value *v, ox_err *e); /* 0, or the error ox_npy_encode would give */
int ox_npz_list(ox_arena *a, const uint8_t *buf, size_t len, const char ***names, int64_t *n, ox_err *e);
/* An archive in memory (buf must outlive *z; nothing is copied), its
 * directory checked and indexed: every member checked against the buffer, no
 * name twice. */
int ox_npz_open_buffer(ox_arena *a, const uint8_t *buf, size_t len, ox_npz **z, ox_err *e);
int64_t ox_npz_count(const ox_npz *z);
const char *const *ox_npz_keys(const ox_npz *z); /* the names without ".npy", in archive order */
/* The index of a member by name (with or without ".npy"; the one stored under
 * that very name first), or -1. */
int64_t ox_npz_find(const ox_npz *z, const char *member);
/* The same, or an error naming the members the archive has. */
int ox_npz_member(const ox_npz *z, const char *member, int64_t *i, ox_err *e);
/* Member i decoded into arena a (which may be another than z's: the value
 * holds nothing of the archive), as type want (NULL: any). Errors start with
 * "member 'NAME.npy': ". */
int ox_npz_get(ox_arena *a, const ox_npz *z, int64_t i, const ox_type *want, ox_value **out, ox_err *e);
/* member: a name with or without ".npy"; NULL takes the only member (an
 * error when there are several). name_out: the member's name. */
int ox_npz_decode(ox_arena *a, const uint8_t *buf, size_t len, const char *member, const ox_type *want,
                  ox_value **out, const char **name_out, ox_err *e);
int ox_npz_encode(int n, const ox_value *const *vals, const char *const *names, ox_buf *out, ox_err *e);
int ox_npz_write(int n, const ox_value *const *vals, const char *const *names, ox_out *o, ox_err *e);

/* ---- text, numpy style (io/text.c) ----
 * name: shape=(2, 3), dtype=float32
 *   [[-1.  ,  0.  ,  1.5 ],
 *    [-2.25,  3.5 , -4.75]]
 * `indent` spaces before the header line; values are indented 2 more, as on
 * the ONNX operator pages (the CLI prints with indent 2, so its lines are
 * those of the pages' "Outputs:" blocks). */
/* 0, or OX_EINPUT when memory ran out or a write to f failed (now or
 * earlier: ferror(f)), so that a caller stops printing. */
int ox_text_print(FILE *f, const char *name, const ox_value *v, int indent);
/* The same; with full, every element is printed, never summarised with "..." */
int ox_text_print_full(FILE *f, const char *name, const ox_value *v, int indent, int full);
/* Just the numpy-style body of a tensor, continuation lines indented by
 * `indent` spaces (the first line is not). */
int ox_text_tensor(ox_buf *b, const ox_tensor *t, int indent);

#endif
