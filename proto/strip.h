/* proto/strip.h: a model's bytes with its large tensor data set aside (see
 * proto/strip.c), for proto/model.c. */
#ifndef OX_STRIP_H
#define OX_STRIP_H

#include <stdio.h>

#include "proto.h"

/* raw_data of this many bytes or more is set aside */
#define OX_STRIP_MIN ((size_t)64 << 10)
/* The marker's field number in a TensorProto: one TensorProto does not
 * define (the largest protobuf allows). */
#define OX_HELD_FIELD 536870911u
/* what ox_strip_* answer for bytes they leave to the usual path */
#define OX_STRIP_NO (-1)

/* One tensor's raw_data, in an arena block (64-byte aligned) */
typedef struct {
  uint8_t *data;
  size_t len;
  int taken; /* a tensor has it as its data */
} ox_held;

typedef struct {
  uint8_t *wire; /* the model's bytes, raw_data set aside (ox_mem_) */
  size_t len;
  ox_held *held; /* ox_mem_ array; the blocks are in the arena */
  size_t nheld;
} ox_stripped;

/* Read `size` bytes of f (a regular file, at its start) as a ModelProto,
 * large raw_data set aside into blocks of arena a; messages nested deeper than
 * `left` are not walked. 0: *out is set (free it with ox_stripped_free);
 * OX_STRIP_NO: bytes it leaves to the usual path (f is then somewhere in the
 * middle: seek it back); else an error (e: out of memory, a read error, a file
 * that changed size; `what` names the file: "model 'm.onnx'"). */
int ox_strip_file(ox_arena *a, FILE *f, size_t size, const char *what, int left, ox_stripped *out,
                  ox_err *e);
/* The same from bytes in memory. */
int ox_strip_mem(ox_arena *a, const uint8_t *buf, size_t len, const char *what, int left,
                 ox_stripped *out, ox_err *e);
void ox_stripped_free(ox_stripped *s);

#endif
