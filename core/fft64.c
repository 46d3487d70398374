/* core/fft64.c: core/fft_body.h in double (numpy's complex128 transforms). */
#define T double
#define FFT_FN(name) ox_fft64_##name
#include "fft_private.h"
#include "fft_body.h"
