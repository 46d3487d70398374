/* core/vexp.h: e^x for x <= 0, four floats at a time, with GCC vector
 * extensions (plain SSE2 on x86-64, no target dispatch: the same bits
 * everywhere): Cephes' expf, a degree-6 polynomial on [-ln2/2, ln2/2]
 * times 2^n, within 1.4 ulp of e^x. Arguments below -87.33 (where e^x is
 * subnormal, < 1.2e-38) and -inf give 0; NaN gives NaN. For the softmax
 * (ops/attention.c) and Sigmoid (ops/unary.c), where libm's expf is a call
 * per element. */
#ifndef OX_VEXP_H
#define OX_VEXP_H

#include <stdint.h>

typedef float ox_v4f __attribute__((vector_size(16)));
typedef int32_t ox_v4i __attribute__((vector_size(16)));

/* Casts between vector types of one size reinterpret the bits (GCC, clang). */
static inline ox_v4f ox_exp4_le0(ox_v4f x) {
  const ox_v4f lo = {-87.33654f, -87.33654f, -87.33654f, -87.33654f};
  ox_v4i under = x < lo; /* lanes of -1 where e^x underflows (-inf too) */
  x = (ox_v4f)(((ox_v4i)x & ~under) | ((ox_v4i)lo & under));
  /* n = round(x / ln2) by the 1.5 * 2^23 trick, which also leaves n in the low
   * mantissa bits of nm: 2^n is (bits(nm) - bits(1.5 * 2^23) + 127) << 23 */
  ox_v4f nm = x * 1.44269504088896341f + 12582912.0f, n = nm - 12582912.0f;
  ox_v4f f = x - n * 0.693359375f - n * -2.12194440e-4f; /* x - n ln2, in two parts */
  ox_v4f y = f * 1.9875691500e-4f + 1.3981999507e-3f;
  y = y * f + 8.3334519073e-3f;
  y = y * f + 4.1665795894e-2f;
  y = y * f + 1.6666665459e-1f;
  y = y * f + 5.0000001201e-1f;
  y = y * f * f + f + 1.0f;
  ox_v4i e = ((ox_v4i)nm - 0x4B400000 + 127) << 23; /* 2^n, n in [-126, 0] */
  return (ox_v4f)((ox_v4i)(y * (ox_v4f)e) & ~under);
}

#endif
