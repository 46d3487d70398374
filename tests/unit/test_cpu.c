/* tests/unit/test_cpu.c: core/cpu.c's row conversions between float16 and
 * float32 (F16C where the CPU has it) against the scalar ones of
 * core/dtype.h: every float16 both ways, and float32 values around every
 * float16 rounding boundary, subnormals, overflow and NaN, at every offset
 * of an 8-wide vector and its scalar tail. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/cpu.h"
#include "core/dtype.h"

static int same_f32(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) && signbit(a) == signbit(b);
  return memcmp(&a, &b, sizeof a) == 0;
}

/* a float16 NaN may come back with other payload bits (F16C keeps the top
 * ones); everything else bit for bit */
static int same_f16(uint16_t a, uint16_t b) {
  int an = (a & 0x7C00) == 0x7C00 && (a & 0x3FF), bn = (b & 0x7C00) == 0x7C00 && (b & 0x3FF);
  if (an || bn) return an && bn && (a & 0x8000) == (b & 0x8000);
  return a == b;
}

static void test_every_f16(void) {
  uint16_t *h = malloc(65536 * sizeof *h);
  float *f = malloc(65536 * sizeof *f);
  for (int i = 0; i < 65536; i++) h[i] = (uint16_t)i;
  int bad = 0;
  for (int off = 7; off >= 0; off--) { /* tails of 1 to 7 (8 - off), then none */
    ox_f16_to_f32_row(h + off, 65536 - off, f + off);
    for (int i = off; i < 65536; i++) bad += !same_f32(f[i], ox_f16_to_f32(h[i]));
  }
  CHECK_EQ_I(bad, 0);
  uint16_t *back = malloc(65536 * sizeof *back);
  ox_f32_to_f16_row(f, 65536, back);
  bad = 0;
  for (int i = 0; i < 65536; i++) bad += !same_f16(back[i], h[i]);
  CHECK_EQ_I(bad, 0);
  free(h);
  free(f);
  free(back);
}

/* float32 values near each float16's midpoint with its neighbour (ties go
 * to even), and beyond the largest float16 */
static void test_rounding(void) {
  enum { N = 65536 * 4 + 8 };
  float *f = malloc(N * sizeof *f);
  uint16_t *got = malloc(N * sizeof *got);
  int n = 0;
  for (uint32_t i = 0; i < 65535; i++) {
    if ((i & 0x7C00) == 0x7C00) continue;
    float a = ox_f16_to_f32((uint16_t)i), b = ox_f16_to_f32((uint16_t)(i + 1));
    if (isinf(b) || isnan(b) || (i & 0x8000) != ((i + 1) & 0x8000)) continue;
    float mid = (float)(((double)a + (double)b) / 2);
    f[n++] = mid;
    f[n++] = nextafterf(mid, -INFINITY);
    f[n++] = nextafterf(mid, INFINITY);
  }
  f[n++] = 65520.0f, f[n++] = 65519.99f, f[n++] = 1e30f, f[n++] = -1e30f;
  f[n++] = INFINITY, f[n++] = -INFINITY, f[n++] = NAN, f[n++] = 1e-10f;
  for (int off = 0; off < 8; off++) { /* vector body and scalar tail at each offset */
    ox_f32_to_f16_row(f + off, n - off, got);
    int bad = 0;
    for (int i = 0; i < n - off; i++) bad += !same_f16(got[i], ox_f32_to_f16(f[off + i]));
    CHECK_EQ_I(bad, 0);
  }
  free(f);
  free(got);
}

int main(void) {
  test_every_f16();
  test_rounding();
  return check_done("cpu");
}
