/* core/half.c: float16 and bfloat16 conversions many at a time (see half.h).
 *
 * Each conversion has a scalar loop (exact bit manipulation, the same results
 * as core/convert.c's reference routines) and, on x86-64, an F16C build (8
 * lanes) and an AVX-512F build (16 lanes; AVX-512F has the float16
 * conversions itself). The hardware rounds to nearest even and keeps
 * subnormals, as the reference does; it keeps a NaN's payload, which the
 * reference does not, so NaN lanes are replaced by the canonical quiet NaN of
 * their sign (in float32 before narrowing: 0x7FC00000 narrows to 0x7E00). */
#include <math.h>
#include <string.h>

#include "cpu.h"
#include "half.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define HAVE_X86 0
#endif

enum { LV_SCALAR, LV_F16C, LV_AVX512 };

static int cap = LV_AVX512;

void ox_half_max_isa(int level) { cap = level < 0 || level > LV_AVX512 ? LV_AVX512 : level; }

static int level(void) {
#if HAVE_X86
  static int have = -1;
  int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
  if (h < 0) {
    /* F16C from CPUID leaf 1 (ECX bit 29), on a CPU whose AVX registers the
     * OS saves (the AVX2 level says so): clang 14's __builtin_cpu_supports
     * does not know "f16c", and the fuzz build is clang's */
    unsigned a, b, c = 0, d;
    int f16c = ox_cpu_level() >= OX_CPU_AVX2 && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
    h = ox_cpu_level() == OX_CPU_AVX512 ? LV_AVX512 : f16c ? LV_F16C : LV_SCALAR;
    __atomic_store_n(&have, h, __ATOMIC_RELAXED);
  }
  return h < cap ? h : cap;
#else
  return LV_SCALAR;
#endif
}

const char *ox_half_isa(void) {
  static const char *names[] = {"scalar", "f16c", "avx512f"};
  return names[level()];
}

/* ---- scalar ---- */

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static float f16_to_f32(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  if (e == 0x1F) return float_of(s | (m ? 0x7FC00000u : 0x7F800000u)); /* NaN, Inf */
  if (e) return float_of(s | (e + 112) << 23 | m << 13);                /* normal */
  float v = (float)m * 0x1p-24f;                                        /* subnormal, 0 */
  return s ? -v : v;
}

static uint16_t f32_to_f16(float f) {
  uint32_t x = bits_of(f), a = x & 0x7FFFFFFF;
  uint16_t s = (uint16_t)((x >> 16) & 0x8000);
  if (a > 0x7F800000) return s | 0x7E00;   /* NaN */
  if (a >= 0x477FF000) return s | 0x7C00;  /* 65520 and up (Inf too): Inf */
  if (a >= 0x38800000) {                   /* 2^-14 and up: normal */
    uint32_t r = (a >> 13) - (112 << 10), rest = a & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (r & 1))) r++; /* a carry moves into the exponent */
    return s | (uint16_t)r;
  }
  /* subnormal: a * 2^24 is exact, and rintf rounds it to even (the code;
   * 1024 is the smallest normal's) */
  return s | (uint16_t)rintf(float_of(a) * 0x1p24f);
}

static float bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  if ((h & 0x7F80) == 0x7F80 && (h & 0x7F)) u |= 0x400000; /* quiet the NaN */
  return float_of(u);
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x = bits_of(f);
  if ((x & 0x7FFFFFFF) > 0x7F800000) return (uint16_t)((x >> 16) & 0x8000) | 0x7FC0;
  return (uint16_t)((x + 0x7FFF + ((x >> 16) & 1)) >> 16); /* to even; overflow gives Inf */
}

/* ---- F16C and AVX-512F ---- */

#if HAVE_X86
#define T_F16C __attribute__((target("avx,f16c")))
#define T_AVX512 __attribute__((target("avx512f")))

/* r where v is not NaN; where it is, the canonical quiet NaN of v's sign
 * (0x7FC00000 | sign). As r = v: v's NaN lanes canonical. Each width's one
 * place for it: the two conversions and the round trip call it. */
T_F16C static inline __m256 nan_fix_f16c(__m256 r, __m256 v) {
  const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
  const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
  __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  return _mm256_blendv_ps(r, _mm256_or_ps(_mm256_and_ps(v, sign), qnan), nan);
}

T_AVX512 static inline __m512 nan_fix_avx512(__m512 r, __m512 v) {
  const __m512i qnan = _mm512_set1_epi32(0x7FC00000), sign = _mm512_set1_epi32((int)0x80000000u);
  __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  __m512i c = _mm512_or_si512(_mm512_and_si512(_mm512_castps_si512(v), sign), qnan);
  return _mm512_mask_blend_ps(nan, r, _mm512_castsi512_ps(c));
}

T_F16C static int64_t f16_to_f32_f16c(const uint16_t *h, float *f, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + i)));
    _mm256_storeu_ps(f + i, nan_fix_f16c(v, v));
  }
  return i;
}

T_F16C static int64_t f32_to_f16_f16c(const float *f, uint16_t *h, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(f + i);
    _mm_storeu_si128((__m128i *)(h + i), _mm256_cvtps_ph(nan_fix_f16c(v, v), _MM_FROUND_TO_NEAREST_INT));
  }
  return i;
}

T_AVX512 static int64_t f16_to_f32_avx512(const uint16_t *h, float *f, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(h + i)));
    _mm512_storeu_ps(f + i, nan_fix_avx512(v, v));
  }
  return i;
}

T_AVX512 static int64_t f32_to_f16_avx512(const float *f, uint16_t *h, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(f + i);
    _mm256_storeu_si256((__m256i *)(h + i), _mm512_cvtps_ph(nan_fix_avx512(v, v), _MM_FROUND_TO_NEAREST_INT));
  }
  return i;
}

/* a float16's round trip, as the two above one after the other: a NaN lane
 * becomes the canonical quiet NaN of its sign, the rest go through the
 * conversions (which keep no payload to fix: the values are not NaN) */
T_F16C static int64_t round_f16_f16c(float *z, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(z + i);
    __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    _mm256_storeu_ps(z + i, nan_fix_f16c(r, v));
  }
  return i;
}

T_AVX512 static int64_t round_f16_avx512(float *z, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(z + i);
    __m512 r = _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    _mm512_storeu_ps(z + i, nan_fix_avx512(r, v));
  }
  return i;
}

/* z = a op b over whole vectors of float16 (sa, sb: 1, or 0 for an operand
 * held for the row), each lane widened, computed in float, narrowed: the
 * narrowing's NaN fix makes every NaN lane the canonical one of its sign.
 * Not fixed on the way in: with one NaN operand the result is that
 * operand's NaN (its sign kept), and a NaN the operation makes (Inf - Inf,
 * 0 / 0) is the default one, whatever the payloads. *both gets the lanes
 * whose operands are both NaN (the sign then depends on the order the
 * caller's float kernel was compiled in: see ox_f16_arith_n). */
#define ARITH_LOOP(W, VF, CVT_IN, CVT_OUT, LOAD, STORE, OPF, NANS, FIX)                       \
  for (; i + W <= n; i += W) {                                                            \
    if (sa) va = CVT_IN(LOAD(a + i));                                                     \
    if (sb) vb = CVT_IN(LOAD(b + i));                                                     \
    VF r = OPF(va, vb);                                                                   \
    *both |= NANS(va, vb);                                                                \
    STORE(z + i, CVT_OUT(FIX(r, r)));                                                     \
  }
#define ARITH_BODY(W, VF, CVT_IN, CVT_OUT, LOAD, STORE, SPLAT, ADD, SUB, MUL, DIV, NANS, FIX)       \
  int64_t i = 0;                                                                          \
  VF va = CVT_IN(SPLAT(a[0])), vb = CVT_IN(SPLAT(b[0]));                                  \
  switch (op) {                                                                           \
  case OX_F16_ADD: ARITH_LOOP(W, VF, CVT_IN, CVT_OUT, LOAD, STORE, ADD, NANS, FIX) break;  \
  case OX_F16_SUB: ARITH_LOOP(W, VF, CVT_IN, CVT_OUT, LOAD, STORE, SUB, NANS, FIX) break;  \
  case OX_F16_MUL: ARITH_LOOP(W, VF, CVT_IN, CVT_OUT, LOAD, STORE, MUL, NANS, FIX) break;  \
  default: ARITH_LOOP(W, VF, CVT_IN, CVT_OUT, LOAD, STORE, DIV, NANS, FIX) break;          \
  }                                                                                       \
  return i;

#define F16C_IN(h) _mm256_cvtph_ps(h)
#define F16C_OUT(v) _mm256_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT)
#define F16C_LOAD(p) _mm_loadu_si128((const __m128i *)(p))
#define F16C_STORE(p, h) _mm_storeu_si128((__m128i *)(p), (h))
#define F16C_SPLAT(x) _mm_set1_epi16((short)(x))
#define F16C_NANS(x, y) _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q), _mm256_cmp_ps(y, y, _CMP_UNORD_Q)))
T_F16C static int64_t arith_f16c(int op, const uint16_t *a, int64_t sa, const uint16_t *b, int64_t sb, uint16_t *z,
                                 int64_t n, int *both) {
  typedef __m256 m256;
  ARITH_BODY(8, m256, F16C_IN, F16C_OUT, F16C_LOAD, F16C_STORE, F16C_SPLAT, _mm256_add_ps, _mm256_sub_ps,
             _mm256_mul_ps, _mm256_div_ps, F16C_NANS, nan_fix_f16c)
}

#define AVX512_IN(h) _mm512_cvtph_ps(h)
#define AVX512_OUT(v) _mm512_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT)
#define AVX512_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define AVX512_STORE(p, h) _mm256_storeu_si256((__m256i *)(p), (h))
#define AVX512_SPLAT(x) _mm256_set1_epi16((short)(x))
#define AVX512_NANS(x, y) (int)(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q))
T_AVX512 static int64_t arith_avx512(int op, const uint16_t *a, int64_t sa, const uint16_t *b, int64_t sb,
                                     uint16_t *z, int64_t n, int *both) {
  typedef __m512 m512;
  ARITH_BODY(16, m512, AVX512_IN, AVX512_OUT, AVX512_LOAD, AVX512_STORE, AVX512_SPLAT, _mm512_add_ps,
             _mm512_sub_ps, _mm512_mul_ps, _mm512_div_ps, AVX512_NANS, nan_fix_avx512)
}

/* Is any of x[0 .. n) NaN? Whole vectors, then the rest one at a time. */
T_F16C static int any_nan_f16c(const uint16_t *x, int64_t n) {
  int64_t i = 0;
  int m = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i)));
    m |= _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  for (; i < n; i++) m |= (x[i] & 0x7FFF) > 0x7C00;
  return m != 0;
}

T_AVX512 static int any_nan_avx512(const uint16_t *x, int64_t n) {
  int64_t i = 0;
  int m = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i)));
    m |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  for (; i < n; i++) m |= (x[i] & 0x7FFF) > 0x7C00;
  return m != 0;
}
#endif

/* ---- entry points ---- */

/* The vector loops take whole vectors; the last few elements (fewer than
 * a vector) go through a vector-sized buffer, so that none takes the scalar
 * route (Conv's im2col converts runs of a few dozen elements). */
void ox_f16_to_f32_n(const uint16_t *h, float *f, int64_t n) {
#if HAVE_X86
  int lv = level();
  if (lv != LV_SCALAR) {
    int64_t (*body)(const uint16_t *, float *, int64_t) = lv == LV_AVX512 ? f16_to_f32_avx512 : f16_to_f32_f16c;
    int64_t i = body(h, f, n);
    if (i < n) {
      uint16_t hb[16] = {0};
      float fb[16];
      memcpy(hb, h + i, (size_t)(n - i) * sizeof *hb);
      body(hb, fb, 16);
      memcpy(f + i, fb, (size_t)(n - i) * sizeof *fb);
    }
    return;
  }
#endif
  for (int64_t i = 0; i < n; i++) f[i] = f16_to_f32(h[i]);
}

void ox_f32_to_f16_n(const float *f, uint16_t *h, int64_t n) {
#if HAVE_X86
  int lv = level();
  if (lv != LV_SCALAR) {
    int64_t (*body)(const float *, uint16_t *, int64_t) = lv == LV_AVX512 ? f32_to_f16_avx512 : f32_to_f16_f16c;
    int64_t i = body(f, h, n);
    if (i < n) {
      float fb[16] = {0};
      uint16_t hb[16];
      memcpy(fb, f + i, (size_t)(n - i) * sizeof *fb);
      body(fb, hb, 16);
      memcpy(h + i, hb, (size_t)(n - i) * sizeof *hb);
    }
    return;
  }
#endif
  for (int64_t i = 0; i < n; i++) h[i] = f32_to_f16(f[i]);
}

void ox_f32_round_f16_n(float *z, int64_t n) {
#if HAVE_X86
  int lv = level();
  if (lv != LV_SCALAR) {
    int64_t i = (lv == LV_AVX512 ? round_f16_avx512 : round_f16_f16c)(z, n);
    if (i < n) {
      float fb[16] = {0};
      memcpy(fb, z + i, (size_t)(n - i) * sizeof *fb);
      (lv == LV_AVX512 ? round_f16_avx512 : round_f16_f16c)(fb, 16);
      memcpy(z + i, fb, (size_t)(n - i) * sizeof *fb);
    }
    return;
  }
#endif
  for (int64_t i = 0; i < n; i++) z[i] = f16_to_f32(f32_to_f16(z[i]));
}

int ox_f16_arith_n(int op, const uint16_t *a, int64_t sa, const uint16_t *b, int64_t sb, uint16_t *z, int64_t n) {
#if HAVE_X86
  int lv = level(), both = 0;
  if (lv == LV_SCALAR) return 0;
  if (n <= 0) return 1;
  /* in place: a NaN in the other operand could pair with one in z's; then
   * declined before anything is written */
  int (*any_nan)(const uint16_t *, int64_t) = lv == LV_AVX512 ? any_nan_avx512 : any_nan_f16c;
  if ((z == a && any_nan(b, sb ? n : 1)) || (z == b && any_nan(a, sa ? n : 1))) return 0;
  int64_t (*body)(int, const uint16_t *, int64_t, const uint16_t *, int64_t, uint16_t *, int64_t, int *) =
      lv == LV_AVX512 ? arith_avx512 : arith_f16c;
  int64_t i = body(op, a, sa, b, sb, z, n, &both);
  if (i < n) { /* the last few through vector-sized buffers */
    uint16_t ab[16] = {0}, bb[16] = {0}, zb[16];
    memcpy(ab, a + (sa ? i : 0), (size_t)(sa ? n - i : 1) * sizeof *ab);
    memcpy(bb, b + (sb ? i : 0), (size_t)(sb ? n - i : 1) * sizeof *bb);
    body(op, ab, sa, bb, sb, zb, 16, &both);
    memcpy(z + i, zb, (size_t)(n - i) * sizeof *zb);
  }
  return !both;
#else
  (void)op, (void)a, (void)sa, (void)b, (void)sb, (void)z, (void)n;
  return 0;
#endif
}

/* bfloat16: integer shifts and adds, which the compiler vectorises */
void ox_bf16_to_f32_n(const uint16_t *h, float *f, int64_t n) {
  for (int64_t i = 0; i < n; i++) f[i] = bf16_to_f32(h[i]);
}

void ox_f32_to_bf16_n(const float *f, uint16_t *h, int64_t n) {
  for (int64_t i = 0; i < n; i++) h[i] = f32_to_bf16(f[i]);
}

void ox_widen_f32_n(ox_dtype dt, const void *src, int64_t off, int64_t n, float *dst) {
  switch (dt) {
  case OX_FLOAT16: ox_f16_to_f32_n((const uint16_t *)src + off, dst, n); break;
  case OX_BFLOAT16: ox_bf16_to_f32_n((const uint16_t *)src + off, dst, n); break;
  case OX_FLOAT: memcpy(dst, (const float *)src + off, sizeof *dst * (size_t)n); break;
  default:
    for (int64_t i = 0; i < n; i++) dst[i] = (float)ox_load_f64(dt, src, off + i);
  }
}

void ox_narrow_f32_n(const float *src, int64_t n, ox_dtype dt, void *dst, int64_t off) {
  switch (dt) {
  case OX_FLOAT16: ox_f32_to_f16_n(src, (uint16_t *)dst + off, n); break;
  case OX_BFLOAT16: ox_f32_to_bf16_n(src, (uint16_t *)dst + off, n); break;
  case OX_FLOAT: memcpy((float *)dst + off, src, sizeof *src * (size_t)n); break;
  default:
    for (int64_t i = 0; i < n; i++) ox_store_f64(dt, dst, off + i, src[i]);
  }
}
