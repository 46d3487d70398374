/* core/half.h: float16 and bfloat16 to and from float32, many at a time.
 *
 * The same values, bit for bit, as the scalar conversions of core/dtype.h
 * (ox_f16_to_f32 and the rest): round to nearest even, subnormals kept,
 * overflow to Inf, and NaN made the canonical quiet NaN of its sign (float16
 * 0x7E00, bfloat16 0x7FC0, float32 0x7FC00000). On x86-64 they use F16C
 * (8 at a time) or AVX-512F (16), whichever the CPU has, picked at run time;
 * elsewhere, and for the other small floats, a scalar loop. */
#ifndef OX_HALF_H
#define OX_HALF_H

#include <stdint.h>

#include "dtype.h"

void ox_f16_to_f32_n(const uint16_t *h, float *f, int64_t n);
void ox_f32_to_f16_n(const float *f, uint16_t *h, int64_t n);
void ox_bf16_to_f32_n(const uint16_t *h, float *f, int64_t n);
void ox_f32_to_bf16_n(const float *f, uint16_t *h, int64_t n);
/* z[0 .. n) rounded to float16 and back, in place: the bits of
 * ox_f32_to_f16_n then ox_f16_to_f32_n (a float16 value stored and read
 * again: NaN the canonical float32 one of its sign), in one pass */
void ox_f32_round_f16_n(float *z, int64_t n);

/* Float16 arithmetic a row at a time: z[i] = a[i * sa] op b[i * sb] (sa,
 * sb: 1, or 0 for an operand held), each element widened, computed in
 * float and narrowed (NaN: the canonical one of its sign), z[0 .. n) with
 * op one of OX_F16_ADD ... OX_F16_DIV. The bits of the widen, float op,
 * narrow steps, save one case it leaves to the caller: 1 when done; 0 when
 * the CPU has no F16C (nor at ONNXOP_ISA=generic) or some lane's two
 * operands are both NaN, whose result the caller's float kernel gives
 * (ops/binary.c's: a's NaN, at every width) (z then partly written;
 * untouched when z is a or b: in place, declined whenever the other
 * operand holds a NaN). */
enum { OX_F16_ADD, OX_F16_SUB, OX_F16_MUL, OX_F16_DIV };
int ox_f16_arith_n(int op, const uint16_t *a, int64_t sa, const uint16_t *b, int64_t sb, uint16_t *z, int64_t n);

/* Elements [off, off + n) of src, a tensor's data of any small float dtype
 * (float16, bfloat16, the float8s, float4e2m1: see kernel.h), as floats into
 * dst[0 .. n); and the other way, rounding once (float8: saturating, as
 * Cast's default). */
void ox_widen_f32_n(ox_dtype dt, const void *src, int64_t off, int64_t n, float *dst);
void ox_narrow_f32_n(const float *src, int64_t n, ox_dtype dt, void *dst, int64_t off);

/* For tests: use at most this level (0 scalar, 1 F16C, 2 AVX-512F; -1 the
 * best the CPU has, the default), and the name of the one in use. */
void ox_half_max_isa(int level);
const char *ox_half_isa(void);

#endif
