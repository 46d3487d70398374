/* tests/unit/test_half.c: the many-at-a-time float16 and bfloat16
 * conversions of core/half.c against the scalar ones of core/convert.c, bit
 * for bit, at every level the CPU has (scalar, F16C, AVX-512F):
 *   - every one of the 65536 float16 and bfloat16 codes to float32 (NaNs of
 *     every payload and sign, Inf, subnormals, -0);
 *   - float32 to float16 and bfloat16: every code's exact value, every
 *     midpoint between neighbouring codes (ties to even) and the floats just
 *     either side of it, the overflow edge, NaNs with payloads, and a
 *     million random bit patterns;
 *   - lengths that leave a scalar tail after the vectors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/half.h"

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float flt(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd32(void) { /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* n floats through the vector narrowing against the scalar one; bf: bfloat16 */
static int narrow_bad(const float *f, int64_t n, int bf) {
  uint16_t *h = malloc(sizeof *h * (size_t)n);
  if (bf) ox_f32_to_bf16_n(f, h, n);
  else ox_f32_to_f16_n(f, h, n);
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    uint16_t want = bf ? ox_f32_to_bf16(f[i]) : ox_f32_to_f16(f[i]);
    if (h[i] != want) {
      if (bad < 5)
        fprintf(stderr, "%s %s: %08x -> %04x, want %04x\n", ox_half_isa(), bf ? "bf16" : "f16",
                (unsigned)bits(f[i]), h[i], want);
      bad++;
    }
  }
  free(h);
  return bad;
}

/* n floats rounded to float16 and back in place against the scalar
 * conversions one after the other */
static int round_bad(const float *f, int64_t n) {
  float *z = malloc(sizeof *z * (size_t)(n + 1));
  memcpy(z, f, sizeof *z * (size_t)n);
  ox_f32_round_f16_n(z, n);
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    float want = ox_f16_to_f32(ox_f32_to_f16(f[i]));
    if (bits(z[i]) != bits(want)) {
      if (bad < 5)
        fprintf(stderr, "%s round to f16: %08x -> %08x, want %08x\n", ox_half_isa(), (unsigned)bits(f[i]),
                (unsigned)bits(z[i]), (unsigned)bits(want));
      bad++;
    }
  }
  free(z);
  return bad;
}

int main(void) {
  enum { N = 65536 };
  uint16_t *codes = malloc(sizeof *codes * N);
  float *f = malloc(sizeof *f * N * 4);
  for (int i = 0; i < N; i++) codes[i] = (uint16_t)i;
  int levels = 0;
  for (int lv = 0; lv <= 2; lv++) {
    ox_half_max_isa(lv);
    /* a level the CPU lacks runs the best one below it: test each once */
    if (lv && !strcmp(ox_half_isa(), lv == 1 ? "scalar" : "f16c")) continue;
    levels++;
    /* every code to float32, through a length with a tail (65536 - 3) and
     * the last three alone */
    for (int bf = 0; bf < 2; bf++) {
      int bad = 0;
      if (bf) {
        ox_bf16_to_f32_n(codes, f, N - 3);
        ox_bf16_to_f32_n(codes + N - 3, f + N - 3, 3);
      } else {
        ox_f16_to_f32_n(codes, f, N - 3);
        ox_f16_to_f32_n(codes + N - 3, f + N - 3, 3);
      }
      for (int i = 0; i < N; i++) {
        float want = bf ? ox_bf16_to_f32((uint16_t)i) : ox_f16_to_f32((uint16_t)i);
        if (bits(f[i]) != bits(want)) {
          if (bad < 5)
            fprintf(stderr, "%s %s %04x: %08x, want %08x\n", ox_half_isa(), bf ? "bf16" : "f16", i,
                    (unsigned)bits(f[i]), (unsigned)bits(want));
          bad++;
        }
      }
      CHECK_EQ_I(bad, 0);
    }
    /* float32 to float16: each code's value, each midpoint with its two
     * neighbouring floats (codes i and i+1 of one sign: the midpoint is
     * exact in float32) */
    int64_t m = 0;
    for (int i = 0; i < N; i++) {
      float v = ox_f16_to_f32((uint16_t)i);
      f[m++] = v;
      if ((i & 0x7FFF) < 0x7C00) { /* finite, below Inf */
        float w = ox_f16_to_f32((uint16_t)(i + 1)), mid = (v + w) / 2;
        f[m++] = mid;
        f[m++] = nextafterf(mid, 0);
        f[m++] = nextafterf(mid, INFINITY * (i & 0x8000 ? -1 : 1));
      }
    }
    CHECK_EQ_I(narrow_bad(f, m, 0), 0);
    CHECK_EQ_I(round_bad(f, m), 0);
    CHECK_EQ_I(round_bad(f, m - 5), 0); /* a tail */
    /* the overflow edge, NaN payloads, tiny values */
    float edge[] = {65504, 65519.996f, 65520, 65536, 1e30f, INFINITY, -65520, -INFINITY,
                    flt(0x7F800001), flt(0xFFC00001), flt(0x7FFFFFFF), flt(0xFF812345), NAN, -NAN,
                    0x1p-24f, 0x1p-25f, flt(0x33000001), -0x1p-25f, 0.0f, -0.0f, 1e-45f, 0x1p-14f,
                    flt(0x387FE000), flt(0x387FF000), 3.0e-5f};
    int ne = (int)(sizeof edge / sizeof *edge);
    CHECK_EQ_I(narrow_bad(edge, ne, 0), 0);
    CHECK_EQ_I(narrow_bad(edge, ne, 1), 0);
    CHECK_EQ_I(round_bad(edge, ne), 0);
    for (int k = 0; k < ne; k++) CHECK_EQ_I(round_bad(edge + k, 1), 0); /* each alone: the scalar tail */
    /* random bit patterns (every exponent, NaNs included) */
    for (int i = 0; i < N * 4; i++) f[i] = flt(rnd32());
    int bad = 0;
    for (int r = 0; r < 4; r++) bad += narrow_bad(f, N * 4 - r, r & 1);
    bad += round_bad(f, N * 4) + round_bad(f, N * 4 - 7);
    CHECK_EQ_I(bad, 0);
    /* bfloat16: each code, midpoints and neighbours (ties to even) */
    m = 0;
    for (int i = 0; i < N; i++) {
      uint32_t u = (uint32_t)i << 16;
      f[m++] = flt(u);
      if ((i & 0x7FFF) < 0x7F80) {
        f[m++] = flt(u | 0x8000);
        f[m++] = flt(u | 0x7FFF);
        f[m++] = flt(u | 0x8001);
      }
    }
    CHECK_EQ_I(narrow_bad(f, m, 1), 0);
  }
  ox_half_max_isa(-1);
  CHECK(levels >= 1);
  printf("half: levels tested: %d (best: %s)\n", levels, ox_half_isa());
  free(codes);
  free(f);
  return check_done("half");
}
