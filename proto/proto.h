/* proto/proto.h: thin adapters between protobuf-c structs and core values.
 *
 * The protobuf-c code is generated at build time from the onnx-ml.proto and
 * onnx-data.proto that Debian's python3-onnx installs (see the Makefile). */
#ifndef OX_PROTO_H
#define OX_PROTO_H

#include "onnx/onnx-ml.pb-c.h"
#include "onnx/onnx-data.pb-c.h"
#include "../core/ox.h"

/* protobuf-c's allocations counted against --max-memory (core/arena.c): for
 * every unpack and its free_unpacked. */
extern ProtobufCAllocator ox_pb_allocator;

/* TensorProto -> tensor value. basedir: where external data is read from
 * (absolute paths and paths leaving it are refused); NULL refuses external data. */
int ox_from_tensor_proto(ox_arena *a, const Onnx__TensorProto *tp, const char *basedir,
                         ox_value **out, ox_err *e);
/* The same for a tensor whose raw_data is a block of arena a, 64-byte aligned
 * (proto/strip.c set it aside): the tensor takes the block as its data
 * rather than a copy (packed 4- and 2-bit types are still unpacked). */
int ox_from_tensor_proto_held(ox_arena *a, const Onnx__TensorProto *tp, const char *basedir,
                              ox_value **out, ox_err *e);
int ox_from_sequence_proto(ox_arena *a, const Onnx__SequenceProto *sp, const char *basedir,
                           ox_value **out, ox_err *e);
int ox_from_optional_proto(ox_arena *a, const Onnx__OptionalProto *op, const char *basedir,
                           ox_value **out, ox_err *e);
int ox_from_map_proto(ox_arena *a, const Onnx__MapProto *mp, const char *basedir,
                      ox_value **out, ox_err *e);
/* (ox_type_unify and ox_value_refine: core/value.h) */

/* The walk over the wire format that both decoders make before protobuf-c
 * unpacks (proto/model.c): OX_WIRE_TOO_DEEP when messages nest more than
 * `left` levels below the top one (protobuf-c would recurse without a limit),
 * OX_WIRE_NUL when a string field (doc strings excepted) holds a NUL byte
 * (protobuf-c would cut the string there), with *message and *field naming
 * it; else OX_WIRE_OK (malformed bytes included: protobuf-c refuses them). */
enum { OX_WIRE_OK, OX_WIRE_TOO_DEEP, OX_WIRE_NUL };
int ox_wire_check(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len, int left,
                  const char **message, const char **field);

/* TypeProto -> type; NULL (no error) for a type onnxop does not model (opaque,
 * sparse) or an absent one, and when memory runs out (ox_mem_failures tells). */
const ox_type *ox_from_type_proto(ox_arena *a, const Onnx__TypeProto *tp);
/* How many TypeProtos are nested in tp (seq(seq(tensor)) is 3); values and
 * types nest at most OX_PROTO_MAX_DEPTH. */
int ox_type_proto_depth(const Onnx__TypeProto *tp);
#define OX_PROTO_MAX_DEPTH 64

/* core values -> protobuf-c structs, allocated in the arena (pack them, then
 * drop the arena). raw_data is used for every fixed-size type. */
int ox_to_tensor_proto(ox_arena *a, const ox_value *v, const char *name,
                       Onnx__TensorProto **out, ox_err *e);
int ox_to_sequence_proto(ox_arena *a, const ox_value *v, const char *name,
                         Onnx__SequenceProto **out, ox_err *e);
int ox_to_optional_proto(ox_arena *a, const ox_value *v, const char *name,
                         Onnx__OptionalProto **out, ox_err *e);
int ox_to_map_proto(ox_arena *a, const ox_value *v, const char *name,
                    Onnx__MapProto **out, ox_err *e);

/* Load a model file into a core model (proto/model.c). */
int ox_model_load(ox_arena *a, const char *path, ox_model **out, ox_err *e);
int ox_model_decode(ox_arena *a, const uint8_t *buf, size_t len, const char *path,
                    ox_model **out, ox_err *e);

/* Encode a core model as a ModelProto (proto/write.c): used by `onnxop make`. */
int ox_model_encode(ox_arena *a, const ox_model *m, uint8_t **data, size_t *len, ox_err *e);

#endif
