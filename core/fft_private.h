/* core/fft_private.h: the per-type entry points core/fft.c dispatches to
 * (core/fft32.c and core/fft64.c; see core/fft_body.h). */
#ifndef OX_FFT_PRIVATE_H
#define OX_FFT_PRIVATE_H

#include <stddef.h>

#include "arena.h"
#include "fft.h"

void *ox_fft32_plan(ox_arena *a, size_t n, int real);
void ox_fft32_c2c(void *p, const ox_fft_line *l, int inverse, double fct);
void ox_fft32_c2r(void *p, const ox_fft_line *l, double fct);
void *ox_fft64_plan(ox_arena *a, size_t n, int real);
void ox_fft64_c2c(void *p, const ox_fft_line *l, int inverse, double fct);
void ox_fft64_c2r(void *p, const ox_fft_line *l, double fct);

#endif
