/* tests/unit/test_half.c: the many-at-a-time float16 and bfloat16
 * conversions of core/half.c against the scalar ones of core/convert.c, bit
 * for bit, at every level the CPU has (scalar, F16C, AVX-512F):
 *   - every one of the 65536 float16 and bfloat16 codes to float32 (NaNs of
 *     every payload and sign, Inf, subnormals, -0);
 *   - float32 to float16 and bfloat16: every code's exact value, every
 *     midpoint between neighbouring codes (ties to even) and the floats just
 *     either side of it, the overflow edge, NaNs with payloads, and a
 *     million random bit patterns;
 *   - lengths that leave a scalar tail after the vectors;
 *   - float16 Add, Sub, Mul, Div many at a time (ox_f16_arith_n) against
 *     widen, the float operation, narrow: every code against special ones,
 *     as a row and held, either side; its refusal of two NaNs in a lane,
 *     and in place of a NaN in the other operand, leaving z untouched. */
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

/* ox_f16_arith_n against the scalar steps it stands for: widen each
 * operand (ox_f16_to_f32), the float operation, narrow (ox_f32_to_f16).
 * Every float16 code against each of the held codes `with` (both as a row
 * and held: sa or sb 0), as the left and as the right operand, for the four
 * ops, at lengths with a tail; no pair of two NaNs, which it leaves to its
 * caller (returning 0, checked apart). Returns the elements that differ. */
static int arith_bad(const uint16_t *codes, int n, const uint16_t *with, int nw) {
  static const char *names[] = {"add", "sub", "mul", "div"};
  uint16_t *row = malloc(sizeof *row * (size_t)n), *z = malloc(sizeof *z * (size_t)n);
  int bad = 0;
  for (int op = OX_F16_ADD; op <= OX_F16_DIV; op++)
    for (int w = 0; w < nw; w++)
      for (int form = 0; form < 4; form++) {
        /* form 0: codes op w (w held); 1: w op codes (w held); 2 and 3: the same with w as a row */
        int held = form < 2, left = form == 0 || form == 2;
        for (int i = 0; i < n; i++) row[i] = with[w];
        const uint16_t *a = left ? codes : held ? &with[w] : row, *b = left ? (held ? &with[w] : row) : codes;
        int64_t sa = left ? 1 : !held, sb = left ? !held : 1;
        int64_t len = n - (w % 5); /* tails of 0 to 4 past the vectors */
        if (!ox_f16_arith_n(op, a, sa, b, sb, z, len)) {
          if (bad++ < 5) fprintf(stderr, "%s f16 %s with %04x: refused\n", ox_half_isa(), names[op], with[w]);
          continue;
        }
        for (int64_t i = 0; i < len; i++) {
          float x = ox_f16_to_f32(a[sa * i]), y = ox_f16_to_f32(b[sb * i]);
          float r = op == OX_F16_ADD ? x + y : op == OX_F16_SUB ? x - y : op == OX_F16_MUL ? x * y : x / y;
          uint16_t want = ox_f32_to_f16(r);
          if (z[i] != want && bad++ < 5)
            fprintf(stderr, "%s f16 %04x %s %04x: %04x, want %04x\n", ox_half_isa(), a[sa * i], names[op],
                    b[sb * i], z[i], want);
        }
      }
  free(row);
  free(z);
  return bad;
}

int main(void) {
  enum { N = 65536 };
  uint16_t *codes = malloc(sizeof *codes * N);
  float *f = malloc(sizeof *f * N * 4);
  for (int i = 0; i < N; i++) codes[i] = (uint16_t)i;
  int levels = 0;
  const char *prev = "";
  for (int lv = 0; lv <= 2; lv++) {
    ox_half_max_isa(lv);
    /* a level the CPU lacks (or ONNXOP_ISA caps: generic has no F16C) runs
     * the best one below it, which may be two below: test each once */
    if (!strcmp(ox_half_isa(), prev)) continue;
    prev = ox_half_isa();
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
    /* float16 arithmetic (at the vector levels; the scalar one declines):
     * every non-NaN code against special ones (zeros, subnormals, the
     * largest, Inf, NaNs with payloads and signs, values whose sums and
     * products round at ties), then random codes with NaNs among them */
    if (strcmp(ox_half_isa(), "scalar")) {
      static const uint16_t with[] = {0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x3C00, 0xBC00, 0x3C01,
                                      0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFD23,
                                      0x1400, 0x3555, 0x4900, 0xC248, 0x0200, 0x5BFF, 0x2E66, 0x6400};
      int nw = (int)(sizeof with / sizeof *with), nn = 0;
      uint16_t *finite = malloc(sizeof *finite * N); /* the codes that are not NaN */
      for (int i = 0; i < N; i++)
        if ((i & 0x7FFF) <= 0x7C00) finite[nn++] = (uint16_t)i;
      CHECK_EQ_I(arith_bad(finite, nn, with, nw), 0);
      uint16_t nans[40];
      for (int i = 0; i < 40; i++) nans[i] = (uint16_t)((0x7C01 + rnd32() % 0x3FF) | (i & 1) << 15);
      CHECK_EQ_I(arith_bad(nans, 40, with, 10), 0); /* NaN against non-NaN */
      for (int i = 0; i < N; i++) finite[i] = (uint16_t)rnd32();
      for (int i = 0; i < N; i++)
        if ((finite[i] & 0x7FFF) > 0x7C00 && i % 7) finite[i] &= 0xBFFF; /* most NaNs made finite */
      CHECK_EQ_I(arith_bad(finite, N, with, 10), 0);
      /* two NaNs in a lane: declined, in the vectors and in the tail */
      uint16_t z[20], x[20] = {0}, y[20] = {0};
      x[3] = 0x7E00, y[3] = 0xFE00;
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_ADD, x, 1, y, 1, z, 20), 0);
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_MUL, x + 3, 0, y, 1, z, 20), 0);
      x[3] = 0, x[18] = 0x7C01, y[18] = 0xFC01;
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_SUB, x, 1, y, 1, z, 20), 0);
      x[18] = 0;
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_DIV, x, 1, y, 1, z, 20), 1);
      /* in place (z is an operand): declined untouched when the other holds
       * a NaN (x[18] and y[18] would pair), done when it holds none */
      uint16_t keep[20];
      x[18] = 0x7C01, x[0] = 0x3C00;
      memcpy(keep, x, sizeof x);
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_ADD, x, 1, y, 1, x, 20), 0);
      CHECK(!memcmp(keep, x, sizeof x));
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_ADD, y, 1, x, 1, x, 20), 0);
      CHECK(!memcmp(keep, x, sizeof x));
      y[18] = 0x3C00, y[3] = 0; /* y without NaN */
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_ADD, x, 1, y, 1, x, 20), 1);
      CHECK_EQ_I(x[0], 0x3C00);
      CHECK_EQ_I(x[18], 0x7E00); /* NaN + 1: the canonical NaN */
      free(finite);
    } else {
      uint16_t x[4] = {0x3C00}, z[4];
      CHECK_EQ_I(ox_f16_arith_n(OX_F16_ADD, x, 1, x, 1, z, 4), 0); /* no F16C: declined */
    }
  }
  ox_half_max_isa(-1);
  CHECK(levels >= 1);
  printf("half: levels tested: %d (best: %s)\n", levels, ox_half_isa());
  free(codes);
  free(f);
  return check_done("half");
}
