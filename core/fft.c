/* core/fft.c: plans and the choice between the float and double bodies. */
#include "fft.h"

#include "dtype.h"
#include "fft_private.h"

struct ox_fft {
  int64_t n;
  int dbl, real;
  void *impl;
};

ox_fft *ox_fft_plan(ox_arena *a, int dt, int64_t n, int real) {
  if (n < 1 || (dt != OX_FLOAT && dt != OX_DOUBLE)) return NULL;
  ox_fft *p = ox_alloc(a, sizeof *p);
  if (!p) return NULL;
  p->n = n, p->dbl = dt == OX_DOUBLE, p->real = real != 0;
  p->impl = p->dbl ? ox_fft64_plan(a, (size_t)n, p->real) : ox_fft32_plan(a, (size_t)n, p->real);
  return p->impl ? p : NULL;
}


void ox_fft_c2c(ox_fft *p, const ox_fft_line *l, int inverse, double fct) {
  if (p->dbl) ox_fft64_c2c(p->impl, l, inverse, fct);
  else ox_fft32_c2c(p->impl, l, inverse, fct);
}

void ox_fft_c2r(ox_fft *p, const ox_fft_line *l, double fct) {
  if (p->dbl) ox_fft64_c2r(p->impl, l, fct);
  else ox_fft32_c2r(p->impl, l, fct);
}
