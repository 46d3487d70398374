/* core/fft.h: one-dimensional FFTs that give numpy's numbers.
 *
 * ONNX's reference DFT and STFT call numpy.fft, and numpy (since 2.0)
 * transforms float32 data in float32 and float64 data in float64 with
 * pocketfft. Rounding noise is part of the expected outputs: the suite's
 * test_dft_inverse expects 1.9e-7 where the exact value is 0, which is past
 * atol 1e-7. So these transforms perform the same floating-point operations
 * in the same order as pocketfft (C++ header, the version numpy vendors):
 * the same factorisation (8, 4, 2 first, then odd primes), the same radix
 * passes, the same twiddles (computed in double from two small tables), the
 * same Bluestein fallback and the same scaling at the end. The code is ours;
 * the operation order is pocketfft's (Martin Reinecke, BSD-3-Clause), and
 * core/fft_body.h cites it pass by pass. Results equal numpy's bit for bit
 * when both are built without FMA contraction (gcc -std=c11 contracts
 * nothing; numpy's x86-64 builds have no FMA in the baseline).
 *
 * A plan holds its twiddles and its scratch lines, so one plan serves one
 * thread at a time. */
#ifndef OX_FFT_H
#define OX_FFT_H

#include <stdint.h>

#include "arena.h"

typedef struct ox_fft ox_fft;

/* A plan for n-point transforms (n >= 1) computed in float (dt OX_FLOAT)
 * or double (OX_DOUBLE). `real` makes a plan for ox_fft_c2r instead of
 * ox_fft_c2c. NULL when out of memory. */
ox_fft *ox_fft_plan(ox_arena *a, int dt, int64_t n, int real);

/* One line in and one line out, in the plan's type (float or double).
 * Strides count elements of that type. */
typedef struct {
  const void *x; /* nin values at stride xs; each is (re, im) when xc is 2, a real when xc is 1 */
  int64_t xs, nin;
  int xc;
  void *y;         /* ny values at stride ys: (re, im) pairs from c2c, reals from c2r */
  int64_t ys, ny;
} ox_fft_line;

/* numpy's fft (inverse 0) or ifft (inverse 1) loop: the input is cut or
 * zero-padded to n points, transformed, multiplied by fct unless fct is 1
 * (numpy's ifft passes 1/n in the input's real type), and y gets the first
 * ny <= n bins. */
void ox_fft_c2c(ox_fft *p, const ox_fft_line *l, int inverse, double fct);

/* numpy's irfft loop: the input holds the bins 0 .. n/2 of a Hermitian
 * spectrum (missing ones are zero, extra ones ignored; the imaginary parts
 * of bin 0 and, for even n, bin n/2 are ignored); y gets ny <= n reals,
 * multiplied by fct unless it is 1. */
void ox_fft_c2r(ox_fft *p, const ox_fft_line *l, double fct);

#endif
