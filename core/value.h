/* core/value.h: values of every kind, and their types.
 *
 * A value is a tagged union (as in Lua): a tensor, a sequence, an optional or a
 * map. Values and their data live in the run's arena and are never freed one
 * by one. Kernels never write into their inputs, so moving ops (Identity,
 * SequenceAt, OptionalGetElement) may return a value that shares its input's
 * data. */
#ifndef OX_VALUE_H
#define OX_VALUE_H

#include "arena.h"
#include "dtype.h"
#include "err.h"

typedef enum { OX_KIND_NONE = 0, OX_TENSOR, OX_SEQUENCE, OX_OPTIONAL, OX_MAP } ox_kind;

/* A type as in ONNX's TypeProto: tensor(T), seq(X), optional(X), map(K, X).
 * Shapes are not part of it; a declared shape is in ox_valueinfo. */
typedef struct ox_type {
  ox_kind kind;
  ox_dtype elem;              /* TENSOR: element type; MAP: key type */
  const struct ox_type *inner; /* SEQUENCE, OPTIONAL: element type; MAP: value type */
} ox_type;

/* ONNX sets no limit on rank; onnxop refuses tensors of more than 64 dims
 * (printers, iterators and file formats recurse or keep per-axis state). */
#define OX_MAX_RANK 64

typedef struct ox_tensor {
  ox_dtype dt;
  int rank;       /* 0 for a scalar */
  int64_t *dims;  /* rank entries, each >= 0 */
  int64_t n;      /* number of elements: the product of dims (1 for a scalar) */
  void *data;     /* n * ox_dtype_size(dt) bytes, row-major */
} ox_tensor;

/* Room to grow a sequence's element array: cap slots, of which fill are in
 * use by some value (see ox_seq_append). */
typedef struct ox_seqbuf { int64_t fill, cap; } ox_seqbuf;

typedef struct ox_value {
  ox_kind kind;
  /* The value's own type. Always set for sequences, optionals and maps (an
   * empty sequence or an absent optional still knows its element type); may be
   * NULL for tensors, whose t.dt says it all. Use ox_value_type(). */
  const ox_type *type;
  union {
    ox_tensor t;
    /* v[0 .. n): the elements. grow: NULL for an array of exactly n; else
     * the array's room, shared by every value that views it. */
    struct { struct ox_value **v; int64_t n; ox_seqbuf *grow; } seq;
    struct ox_value *opt; /* NULL: the optional has no element */
    struct {
      struct ox_value *keys;   /* 1-D tensor of the key type */
      struct ox_value *values; /* a sequence of as many values */
    } map;
  } u;
} ox_value;

/* ---- types ---- */
const ox_type *ox_type_tensor(ox_dtype dt); /* static, never NULL for a valid dt */
const ox_type *ox_type_seq(ox_arena *a, const ox_type *elem);
const ox_type *ox_type_opt(ox_arena *a, const ox_type *elem);
const ox_type *ox_type_map(ox_arena *a, ox_dtype key, const ox_type *val);
/* A copy of t in a (tensor types are static and shared), so that it lives
 * as long as a; NULL for NULL or out of memory. */
const ox_type *ox_type_copy(ox_arena *a, const ox_type *t);
int ox_type_eq(const ox_type *x, const ox_type *y);
/* "seq(tensor(float))", "optional(tensor(int64))", "map(string,tensor(float))" */
const char *ox_type_str(const ox_type *t, char *buf, size_t n);
/* Parse an ONNX type string: "tensor(float)", "seq(tensor(int64))" (also
 * "sequence(...)"), "optional(seq(tensor(uint8)))", "map(string,
 * tensor(float))"; a bare dtype name ("float32", "float", "FLOAT": any name
 * ox_dtype_from_name knows) means a tensor of it; blanks may stand around
 * every word and mark ("tensor( float )"). The one parser of type strings:
 * the command line and io/json.c both call it. NULL if malformed, with the
 * reason in why (why may be NULL), or out of memory, with why "". flags: OX_TYPE_OPEN also takes "?" for an
 * element type left open, as ox_type_str prints the type of an empty
 * sequence or absent optional read from a .pb ("optional(tensor(?))"). */
#define OX_TYPE_OPEN 1
const ox_type *ox_type_parse(ox_arena *a, const char *s, int flags, char *why, size_t wn);
/* The innermost tensor element type (through seq/optional/map values), or 0. */
ox_dtype ox_type_leaf(const ox_type *t);

/* ---- values ---- */
/* Product of dims; -1 if a dim is negative or the product or its byte size
 * overflows (elsize 0 skips the byte check). 0 when any dim is 0, however
 * large the others: such a tensor is empty, not too large. */
int64_t ox_numel(int rank, const int64_t *dims, size_t elsize);
/* Integer helpers of shape arithmetic, one of each: */
static inline int64_t ox_min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t ox_max64(int64_t a, int64_t b) { return a > b ? a : b; }
/* ceil(a / b) for b > 0 and any a */
static inline int64_t ox_ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
/* a >= 0 rounded up to a multiple of m > 0 */
static inline int64_t ox_round_up(int64_t a, int64_t m) { return (a + m - 1) / m * m; }
/* A new zeroed tensor. Fails with a clear message on bad or huge dims. */
int ox_tensor_new(ox_arena *a, ox_dtype dt, int rank, const int64_t *dims,
                  ox_value **out, ox_err *e);
/* The same with the data left unset (string tensors are still zeroed): for
 * kernels that write every element. */
int ox_tensor_new_uninit(ox_arena *a, ox_dtype dt, int rank, const int64_t *dims,
                         ox_value **out, ox_err *e);
/* A tensor whose data is `data`: a block of arena a (64-byte aligned) of at
 * least numel * element size bytes, already filled; not for strings. */
int ox_tensor_adopt(ox_arena *a, ox_dtype dt, int rank, const int64_t *dims, void *data,
                    ox_value **out, ox_err *e);
int ox_scalar_new(ox_arena *a, ox_dtype dt, ox_value **out, ox_err *e);
/* A sequence of n values (elements set by the caller), of type seq(elem). */
int ox_seq_new(ox_arena *a, const ox_type *elem, int64_t n, ox_value **out, ox_err *e);
/* The same with room for cap >= n elements, for ox_seq_append to fill. */
int ox_seq_new_cap(ox_arena *a, const ox_type *elem, int64_t n, int64_t cap, ox_value **out, ox_err *e);
/* s with x appended (s itself is unchanged). O(1) in place, sharing s's array,
 * when it has room and no other value has appended to it past s (fill == n:
 * so two appends to one sequence never write the same slot); otherwise a
 * copy with room to double, so that appending n times costs O(n). */
int ox_seq_append(ox_arena *a, const ox_value *s, ox_value *x, ox_value **out, ox_err *e);
/* An optional of type optional(elem) holding v (NULL: absent). */
int ox_opt_new(ox_arena *a, const ox_type *elem, ox_value *v, ox_value **out, ox_err *e);
/* A copy of the tensor header sharing the data. */
ox_value *ox_tensor_view(ox_arena *a, const ox_value *v);
/* A deep copy (strings and types too: it needs nothing of v's arena). */
int ox_value_copy(ox_arena *a, const ox_value *v, ox_value **out, ox_err *e);
/* The type of v (built in the arena for tensors). */
const ox_type *ox_value_type(ox_arena *a, const ox_value *v);
/* Value kind and dtype for messages: "tensor(float)", "seq(tensor(int64))"... */
const char *ox_value_desc(const ox_value *v, char *buf, size_t n);
/* "(2, 3)" as numpy prints shapes; "()" for scalars, "(4,)" for rank 1. */
const char *ox_shape_str(int rank, const int64_t *dims, char *buf, size_t n);
/* A value read from a file may not know its element dtype (an empty sequence
 * is seq(tensor(?)): elem 0). ox_type_unify merges two types, filling
 * unknown dtypes from the other (NULL if they conflict; NULL is unknown);
 * ox_value_refine writes the merged type back into the value,
 * recursively. */
const ox_type *ox_type_unify(ox_arena *a, const ox_type *x, const ox_type *y);
void ox_value_refine(ox_arena *a, ox_value *v, const ox_type *t);
/* Does v fit the type t (kinds and dtypes, recursively)? */
int ox_value_fits(const ox_value *v, const ox_type *t);

#endif
