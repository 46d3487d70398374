/* core/fft32.c: core/fft_body.h in float (numpy's complex64 transforms). */
#define T float
#define FFT_FN(name) ox_fft32_##name
#include "fft_private.h"
#include "fft_body.h"
