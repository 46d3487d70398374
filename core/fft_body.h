/* core/fft_body.h: the FFTs of core/fft.h for one type. core/fft32.c and
 * core/fft64.c include it with T (float or double) and FFT_FN(name) (a
 * suffixed public name) defined, so each has its own static helpers.
 *
 * Every pass follows pocketfft's (pocketfft_hdronly.h: cfftp, rfftp,
 * fftblue, pocketfft_c, pocketfft_r) operation by operation; change an
 * expression's order and results stop matching numpy's bit for bit.
 * Differences in form only:
 *  - fwd is a run-time flag instead of a template argument (it only picks
 *    signs and which products to form, never an operation order);
 *  - pocketfft's pass3, pass5, pass7 and pass11 are one odd-radix pass here
 *    (pass_odd): they perform the same additions and products in the same
 *    order for their radix, which pass_odd's comments spell out;
 *  - pass8's first column and its twiddled columns share one butterfly;
 *  - the scratch lines live in the plan instead of being allocated per call;
 *  - only the transforms numpy's fft, ifft and irfft use are here (the
 *    real forward passes radf* are not). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "fft.h"

#ifndef T
#error "define T (float or double) before including core/fft_body.h"
#endif

typedef struct { T r, i; } cx;

enum { MAX_FACTORS = 64 };

/* ---- complex arithmetic, as pocketfft's cmplx<T> ---- */

static inline cx add(cx a, cx b) { return (cx){a.r + b.r, a.i + b.i}; }
static inline cx sub(cx a, cx b) { return (cx){a.r - b.r, a.i - b.i}; }
static inline cx scale(cx a, T s) { return (cx){a.r * s, a.i * s}; }
/* special_mul<fwd>: v * conj(w) going forward, v * w going backward */
static inline cx smul(cx v, cx w, int fwd) {
  return fwd ? (cx){v.r * w.r + v.i * w.i, v.i * w.r - v.r * w.i}
             : (cx){v.r * w.r - v.i * w.i, v.r * w.i + v.i * w.r};
}
/* ROTX90<fwd>: multiply by -i going forward, by +i going backward */
static inline cx rot90(cx a, int fwd) { return fwd ? (cx){a.i, -a.r} : (cx){-a.i, a.r}; }

/* ---- twiddles: sincos_2pibyn ----
 * e^(2 pi i k / n) from two tables in double, v1[k & mask] * v2[k >> shift],
 * each entry computed by octant symmetry from an angle of at most pi/4. */

typedef struct { double r, i; } hcx;
typedef struct { size_t n, mask, shift; hcx *v1, *v2; } sincos;

static hcx octant(size_t x, size_t n, double ang) {
  x <<= 3;
  if (x < 4 * n) {   /* first half */
    if (x < 2 * n) { /* first quadrant */
      if (x < n) return (hcx){cos((double)x * ang), sin((double)x * ang)};
      return (hcx){sin((double)(2 * n - x) * ang), cos((double)(2 * n - x) * ang)};
    }
    x -= 2 * n; /* second quadrant */
    if (x < n) return (hcx){-sin((double)x * ang), cos((double)x * ang)};
    return (hcx){-cos((double)(2 * n - x) * ang), sin((double)(2 * n - x) * ang)};
  }
  x = 8 * n - x;
  if (x < 2 * n) { /* third quadrant */
    if (x < n) return (hcx){cos((double)x * ang), -sin((double)x * ang)};
    return (hcx){sin((double)(2 * n - x) * ang), -cos((double)(2 * n - x) * ang)};
  }
  x -= 2 * n; /* fourth quadrant */
  if (x < n) return (hcx){-sin((double)x * ang), -cos((double)x * ang)};
  return (hcx){-cos((double)(2 * n - x) * ang), -sin((double)(2 * n - x) * ang)};
}

static int sincos_init(ox_arena *a, sincos *s, size_t n) {
  const long double pi = 3.141592653589793238462643383279502884197L;
  double ang = (double)(0.25L * pi / (long double)n);
  size_t nval = (n + 2) / 2;
  s->n = n;
  s->shift = 1;
  while (((size_t)1 << s->shift) * ((size_t)1 << s->shift) < nval) s->shift++;
  s->mask = ((size_t)1 << s->shift) - 1;
  size_t n1 = s->mask + 1, n2 = (nval + s->mask) / (s->mask + 1);
  s->v1 = ox_alloc_array(a, (int64_t)n1, sizeof *s->v1);
  s->v2 = ox_alloc_array(a, (int64_t)n2, sizeof *s->v2);
  if (!s->v1 || !s->v2) return -1;
  s->v1[0] = (hcx){1, 0};
  for (size_t i = 1; i < n1; i++) s->v1[i] = octant(i, n, ang);
  s->v2[0] = (hcx){1, 0};
  for (size_t i = 1; i < n2; i++) s->v2[i] = octant(i * (s->mask + 1), n, ang);
  return 0;
}

static cx twiddle(const sincos *s, size_t k) {
  if (2 * k <= s->n) {
    hcx x1 = s->v1[k & s->mask], x2 = s->v2[k >> s->shift];
    return (cx){(T)(x1.r * x2.r - x1.i * x2.i), (T)(x1.r * x2.i + x1.i * x2.r)};
  }
  k = s->n - k;
  hcx x1 = s->v1[k & s->mask], x2 = s->v2[k >> s->shift];
  return (cx){(T)(x1.r * x2.r - x1.i * x2.i), -(T)(x1.r * x2.i + x1.i * x2.r)};
}

/* ---- complex Cooley-Tukey: cfftp ----
 * A pass of radix ip over l1 blocks of ido points reads cc (ido, ip, l1)
 * and writes ch (ido, l1, ip); wa holds (ip-1) rows of ido-1 twiddles. */

#define CC(a, b, c) cc[(a) + ido * ((b) + cdim * (c))]
#define CH(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
#define WA(x, i) wa[(i) - 1 + (x) * (ido - 1)]

static void pass2(size_t ido, size_t l1, const cx *cc, cx *ch, const cx *wa, int fwd) {
  const size_t cdim = 2;
  for (size_t k = 0; k < l1; k++) {
    CH(0, k, 0) = add(CC(0, 0, k), CC(0, 1, k));
    CH(0, k, 1) = sub(CC(0, 0, k), CC(0, 1, k));
    for (size_t i = 1; i < ido; i++) {
      CH(i, k, 0) = add(CC(i, 0, k), CC(i, 1, k));
      CH(i, k, 1) = smul(sub(CC(i, 0, k), CC(i, 1, k)), WA(0, i), fwd);
    }
  }
}

static void pass4(size_t ido, size_t l1, const cx *cc, cx *ch, const cx *wa, int fwd) {
  const size_t cdim = 4;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      cx t1 = sub(CC(i, 0, k), CC(i, 2, k)), t2 = add(CC(i, 0, k), CC(i, 2, k));
      cx t3 = add(CC(i, 1, k), CC(i, 3, k)), t4 = rot90(sub(CC(i, 1, k), CC(i, 3, k)), fwd);
      CH(i, k, 0) = add(t2, t3);
      if (i == 0) {
        CH(0, k, 2) = sub(t2, t3);
        CH(0, k, 1) = add(t1, t4);
        CH(0, k, 3) = sub(t1, t4);
      } else {
        CH(i, k, 1) = smul(add(t1, t4), WA(0, i), fwd);
        CH(i, k, 2) = smul(sub(t2, t3), WA(1, i), fwd);
        CH(i, k, 3) = smul(sub(t1, t4), WA(2, i), fwd);
      }
    }
}

/* ROTX45 and ROTX135: multiply by e^(-+i pi/4) and e^(-+3i pi/4) */
static inline cx rot45(cx a, int fwd) {
  const T h = (T)0.707106781186547524400844362104849L;
  return fwd ? (cx){h * (a.r + a.i), h * (a.i - a.r)} : (cx){h * (a.r - a.i), h * (a.i + a.r)};
}
static inline cx rot135(cx a, int fwd) {
  const T h = (T)0.707106781186547524400844362104849L;
  return fwd ? (cx){h * (a.i - a.r), h * (-a.r - a.i)} : (cx){h * (-a.r - a.i), h * (a.r - a.i)};
}

static void pass8(size_t ido, size_t l1, const cx *cc, cx *ch, const cx *wa, int fwd) {
  const size_t cdim = 8;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      cx a1 = add(CC(i, 1, k), CC(i, 5, k)), a5 = sub(CC(i, 1, k), CC(i, 5, k));
      cx a3 = add(CC(i, 3, k), CC(i, 7, k)), a7 = rot90(sub(CC(i, 3, k), CC(i, 7, k)), fwd);
      cx t = a1;
      a1 = add(a1, a3), a3 = rot90(sub(t, a3), fwd);
      t = a5;
      a5 = rot45(add(a5, a7), fwd), a7 = rot135(sub(t, a7), fwd);
      cx a0 = add(CC(i, 0, k), CC(i, 4, k)), a4 = sub(CC(i, 0, k), CC(i, 4, k));
      cx a2 = add(CC(i, 2, k), CC(i, 6, k)), a6 = rot90(sub(CC(i, 2, k), CC(i, 6, k)), fwd);
      cx s02 = add(a0, a2), d02 = sub(a0, a2), s46 = add(a4, a6), d46 = sub(a4, a6);
      CH(i, k, 0) = add(s02, a1);
      if (i == 0) {
        CH(0, k, 4) = sub(s02, a1);
        CH(0, k, 2) = add(d02, a3), CH(0, k, 6) = sub(d02, a3);
        CH(0, k, 1) = add(s46, a5), CH(0, k, 5) = sub(s46, a5);
        CH(0, k, 3) = add(d46, a7), CH(0, k, 7) = sub(d46, a7);
      } else {
        CH(i, k, 4) = smul(sub(s02, a1), WA(3, i), fwd);
        CH(i, k, 2) = smul(add(d02, a3), WA(1, i), fwd);
        CH(i, k, 6) = smul(sub(d02, a3), WA(5, i), fwd);
        CH(i, k, 1) = smul(add(s46, a5), WA(0, i), fwd);
        CH(i, k, 5) = smul(sub(s46, a5), WA(4, i), fwd);
        CH(i, k, 3) = smul(add(d46, a7), WA(2, i), fwd);
        CH(i, k, 7) = smul(sub(d46, a7), WA(6, i), fwd);
      }
    }
}

/* cos and sin of 2 pi j / p for the hard-coded odd radices */
static const long double odd_cos[4][5] = {
    {-0.5L},
    {0.3090169943749474241022934171828191L, -0.8090169943749474241022934171828191L},
    {0.6234898018587335305250048840042398L, -0.2225209339563144042889025644967948L,
     -0.9009688679024191262361023195074451L},
    {0.8412535328311811688618116489193677L, 0.4154150130018864255292741492296232L,
     -0.1423148382732851404437926686163697L, -0.6548607339452850640569250724662936L,
     -0.9594929736144973898903680570663277L}};
static const long double odd_sin[4][5] = {
    {0.8660254037844386467637231707529362L},
    {0.9510565162951535721164393333793821L, 0.5877852522924731291687059546390728L},
    {0.7818314824680298087084445266740578L, 0.9749279121818236070181316829939312L,
     0.433883739117558120475768332848359L},
    {0.5406408174555975821076359543186917L, 0.9096319953545183714117153830790285L,
     0.9898214418809327323760920377767188L, 0.7557495743542582837740358439723444L,
     0.2817325568414296977114179153466169L}};

/* Radix 3, 5, 7 or 11 (pocketfft's pass3/5/7/11). With h = (p-1)/2,
 * s_j = x_j + x_(p-j) and d_j = x_j - x_(p-j):
 *   y_0 = x_0 + s_1 + ... + s_h                         (left to right)
 *   a_u = x_0 + c(u)*s_1 + ... + c(u*h)*s_h              (left to right)
 *   b_u = i * (sn(u)*d_1 + ... + sn(u*h)*d_h)             (left to right)
 *   y_u = a_u + b_u, y_(p-u) = a_u - b_u
 * where c(m) = cos(2 pi m/p) and sn(m) = -+sin(2 pi m/p), both folded to
 * m mod p in 1..h (sn changes sign when m mod p > h): exactly pocketfft's
 * hand-unrolled constants, e.g. pass5's (tw2r, tw1r, +tw2i, -tw1i) for u=2. */
static void pass_odd(size_t p, size_t ido, size_t l1, const cx *cc, cx *ch, const cx *wa, int fwd) {
  const size_t cdim = p, h = (p - 1) / 2;
  const int row = p == 3 ? 0 : p == 5 ? 1 : p == 7 ? 2 : 3;
  T c[5][5], s[5][5]; /* c[u-1][j-1], s[u-1][j-1] */
  for (size_t u = 1; u <= h; u++)
    for (size_t j = 1; j <= h; j++) {
      size_t m = u * j % p, f = m > h ? p - m : m;
      T sv = (T)((fwd ? -1 : 1) * (T)odd_sin[row][f - 1]);
      c[u - 1][j - 1] = (T)odd_cos[row][f - 1];
      s[u - 1][j - 1] = m > h ? -sv : sv;
    }
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      cx x0 = CC(i, 0, k), sp[5], dm[5];
      for (size_t j = 1; j <= h; j++) {
        sp[j - 1] = add(CC(i, j, k), CC(i, p - j, k));
        dm[j - 1] = sub(CC(i, j, k), CC(i, p - j, k));
      }
      cx y0 = x0;
      for (size_t j = 0; j < h; j++) y0 = add(y0, sp[j]);
      CH(i, k, 0) = y0;
      for (size_t u = 1; u <= h; u++) {
        cx a = x0;
        T bi = s[u - 1][0] * dm[0].r, br = s[u - 1][0] * dm[0].i;
        for (size_t j = 0; j < h; j++) a = add(a, scale(sp[j], c[u - 1][j]));
        for (size_t j = 1; j < h; j++) bi = bi + s[u - 1][j] * dm[j].r, br = br + s[u - 1][j] * dm[j].i;
        cx b = {-br, bi};
        if (i == 0) {
          CH(0, k, u) = add(a, b), CH(0, k, p - u) = sub(a, b);
        } else {
          CH(i, k, u) = smul(add(a, b), WA(u - 1, i), fwd);
          CH(i, k, p - u) = smul(sub(a, b), WA(p - u - 1, i), fwd);
        }
      }
    }
}

/* Any other radix (pocketfft's passg). Its result ends in cc, not ch.
 * csarr: the ip-th roots of unity e^(2 pi i j/ip). */
static void pass_generic(size_t ido, size_t ip, size_t l1, cx *cc, cx *ch, const cx *wa,
                         const cx *csarr, int fwd) {
  const size_t cdim = ip, ipph = (ip + 1) / 2, idl1 = ido * l1;
#define CX(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CX2(a, b) cc[(a) + idl1 * (b)]
#define CH2(a, b) ch[(a) + idl1 * (b)]
#define WAL(j) ((j) != 0 ? (cx){csarr[j].r, fwd ? -csarr[j].i : csarr[j].i} : (cx){1, 0})
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) CH(i, k, 0) = CC(i, 0, k);
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 0; i < ido; i++) {
        CH(i, k, j) = add(CC(i, j, k), CC(i, jc, k));
        CH(i, k, jc) = sub(CC(i, j, k), CC(i, jc, k));
      }
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      cx tmp = CH(i, k, 0);
      for (size_t j = 1; j < ipph; j++) tmp = add(tmp, CH(i, k, j));
      CX(i, k, 0) = tmp;
    }
  for (size_t l = 1, lc = ip - 1; l < ipph; l++, lc--) {
    cx w1 = WAL(l), w2 = WAL(2 * l);
    for (size_t ik = 0; ik < idl1; ik++) {
      CX2(ik, l).r = CH2(ik, 0).r + w1.r * CH2(ik, 1).r + w2.r * CH2(ik, 2).r;
      CX2(ik, l).i = CH2(ik, 0).i + w1.r * CH2(ik, 1).i + w2.r * CH2(ik, 2).i;
      CX2(ik, lc).r = -w1.i * CH2(ik, ip - 1).i - w2.i * CH2(ik, ip - 2).i;
      CX2(ik, lc).i = w1.i * CH2(ik, ip - 1).r + w2.i * CH2(ik, ip - 2).r;
    }
    size_t iwal = 2 * l, j = 3, jc = ip - 3;
    for (; j < ipph - 1; j += 2, jc -= 2) {
      iwal += l;
      if (iwal > ip) iwal -= ip;
      cx xw = WAL(iwal);
      iwal += l;
      if (iwal > ip) iwal -= ip;
      cx xw2 = WAL(iwal);
      for (size_t ik = 0; ik < idl1; ik++) {
        CX2(ik, l).r += CH2(ik, j).r * xw.r + CH2(ik, j + 1).r * xw2.r;
        CX2(ik, l).i += CH2(ik, j).i * xw.r + CH2(ik, j + 1).i * xw2.r;
        CX2(ik, lc).r -= CH2(ik, jc).i * xw.i + CH2(ik, jc - 1).i * xw2.i;
        CX2(ik, lc).i += CH2(ik, jc).r * xw.i + CH2(ik, jc - 1).r * xw2.i;
      }
    }
    for (; j < ipph; j++, jc--) {
      iwal += l;
      if (iwal > ip) iwal -= ip;
      cx xw = WAL(iwal);
      for (size_t ik = 0; ik < idl1; ik++) {
        CX2(ik, l).r += CH2(ik, j).r * xw.r;
        CX2(ik, l).i += CH2(ik, j).i * xw.r;
        CX2(ik, lc).r -= CH2(ik, jc).i * xw.i;
        CX2(ik, lc).i += CH2(ik, jc).r * xw.i;
      }
    }
  }
  /* shuffling and twiddling */
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 0; i < ido; i++) {
        cx t1 = CX(i, k, j), t2 = CX(i, k, jc);
        if (i == 0) {
          CX(0, k, j) = add(t1, t2), CX(0, k, jc) = sub(t1, t2);
        } else {
          CX(i, k, j) = smul(add(t1, t2), wa[(j - 1) * (ido - 1) + i - 1], fwd);
          CX(i, k, jc) = smul(sub(t1, t2), wa[(jc - 1) * (ido - 1) + i - 1], fwd);
        }
      }
#undef WAL
#undef CH2
#undef CX2
#undef CX
}

#undef WA

/* n's factors in pocketfft's order: 8s (complex plans only), then 4s, then
 * one 2 moved to the front, then odd primes ascending */
static size_t factorize(size_t n, int eights, size_t *f) {
  size_t nf = 0, len = n;
  while (eights && (len & 7) == 0) f[nf++] = 8, len >>= 3;
  while ((len & 3) == 0) f[nf++] = 4, len >>= 2;
  if ((len & 1) == 0) {
    len >>= 1;
    f[nf++] = 2;
    f[nf - 1] = f[0], f[0] = 2;
  }
  for (size_t d = 3; d * d <= len; d += 2)
    while (len % d == 0) f[nf++] = d, len /= d;
  if (len > 1) f[nf++] = len;
  return nf;
}

typedef struct { size_t fct; cx *tw, *tws; } cfactor;
typedef struct {
  size_t n, nfct;
  cfactor fct[MAX_FACTORS];
  cx *ch; /* scratch line */
} cplan;

static void cfft_exec(const cplan *p, cx *c, T fct, int fwd) {
  size_t n = p->n;
  if (n == 1) { c[0] = scale(c[0], fct); return; }
  size_t l1 = 1;
  cx *p1 = c, *p2 = p->ch;
  for (size_t k = 0; k < p->nfct; k++) {
    size_t ip = p->fct[k].fct, l2 = ip * l1, ido = n / l2;
    const cx *tw = p->fct[k].tw;
    if (ip == 4) pass4(ido, l1, p1, p2, tw, fwd);
    else if (ip == 8) pass8(ido, l1, p1, p2, tw, fwd);
    else if (ip == 2) pass2(ido, l1, p1, p2, tw, fwd);
    else if (ip == 3 || ip == 5 || ip == 7 || ip == 11) pass_odd(ip, ido, l1, p1, p2, tw, fwd);
    else {
      pass_generic(ido, ip, l1, p1, p2, tw, p->fct[k].tws, fwd);
      cx *t = p1; p1 = p2, p2 = t; /* its result is in p1 already */
    }
    cx *t = p1; p1 = p2, p2 = t;
    l1 = l2;
  }
  if (p1 != c) {
    if (fct != 1)
      for (size_t i = 0; i < n; i++) c[i] = scale(p1[i], fct);
    else
      memcpy(c, p1, n * sizeof *c);
  } else if (fct != 1)
    for (size_t i = 0; i < n; i++) c[i] = scale(c[i], fct);
}

static int cplan_init(ox_arena *a, cplan *p, size_t n) {
  memset(p, 0, sizeof *p);
  p->n = n;
  if (n == 1) return 0;
  size_t f[MAX_FACTORS];
  p->nfct = factorize(n, 1, f);
  for (size_t k = 0; k < p->nfct; k++) p->fct[k].fct = f[k];
  /* twiddles: w[(j-1)(ido-1) + i-1] = e^(2 pi i j l1 i/n); radices above 11
   * also get their ip roots of unity */
  size_t twsize = 0, l1 = 1;
  for (size_t k = 0; k < p->nfct; k++) {
    size_t ip = p->fct[k].fct, ido = n / (l1 * ip);
    twsize += (ip - 1) * (ido - 1) + (ip > 11 ? ip : 0);
    l1 *= ip;
  }
  cx *mem = ox_alloc_array(a, (int64_t)twsize + 1, sizeof *mem);
  p->ch = ox_alloc_array(a, (int64_t)n, sizeof *p->ch);
  sincos tw;
  if (!mem || !p->ch || sincos_init(a, &tw, n)) return -1;
  l1 = 1;
  for (size_t k = 0; k < p->nfct; k++) {
    size_t ip = p->fct[k].fct, ido = n / (l1 * ip);
    p->fct[k].tw = mem, mem += (ip - 1) * (ido - 1);
    for (size_t j = 1; j < ip; j++)
      for (size_t i = 1; i < ido; i++) p->fct[k].tw[(j - 1) * (ido - 1) + i - 1] = twiddle(&tw, j * l1 * i);
    if (ip > 11) {
      p->fct[k].tws = mem, mem += ip;
      for (size_t j = 0; j < ip; j++) p->fct[k].tws[j] = twiddle(&tw, j * l1 * ido);
    }
    l1 *= ip;
  }
  return 0;
}

#undef CH
#undef CC

/* ---- real backward FFTPACK: rfftp's radb passes ----
 * Half-complex order in: r0, r1, i1, r2, i2, ... (and r(n/2) last for even
 * n); reals out. cc (ido, ip, l1) -> ch (ido, l1, ip); wa rows of ido-1. */

#define CC(a, b, c) cc[(a) + ido * ((b) + cdim * (c))]
#define CH(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
#define WA(x, i) wa[(i) + (x) * (ido - 1)]
/* (a + ib) = conj(c + id) * (e + if) */
#define MULPM(a, b, c, d, e, f) ((a) = (c) * (e) + (d) * (f), (b) = (c) * (f) - (d) * (e))

static void radb2(size_t ido, size_t l1, const T *cc, T *ch, const T *wa) {
  const size_t cdim = 2;
  for (size_t k = 0; k < l1; k++) {
    CH(0, k, 0) = CC(0, 0, k) + CC(ido - 1, 1, k);
    CH(0, k, 1) = CC(0, 0, k) - CC(ido - 1, 1, k);
  }
  if ((ido & 1) == 0)
    for (size_t k = 0; k < l1; k++) {
      CH(ido - 1, k, 0) = 2 * CC(ido - 1, 0, k);
      CH(ido - 1, k, 1) = -2 * CC(0, 1, k);
    }
  if (ido <= 2) return;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 2; i < ido; i += 2) {
      size_t ic = ido - i;
      T tr2 = CC(i - 1, 0, k) - CC(ic - 1, 1, k), ti2 = CC(i, 0, k) + CC(ic, 1, k);
      CH(i - 1, k, 0) = CC(i - 1, 0, k) + CC(ic - 1, 1, k);
      CH(i, k, 0) = CC(i, 0, k) - CC(ic, 1, k);
      MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), ti2, tr2);
    }
}

static void radb3(size_t ido, size_t l1, const T *cc, T *ch, const T *wa) {
  const size_t cdim = 3;
  const T taur = -0.5, taui = (T)0.8660254037844386467637231707529362L;
  for (size_t k = 0; k < l1; k++) {
    T tr2 = 2 * CC(ido - 1, 1, k);
    T cr2 = CC(0, 0, k) + taur * tr2;
    CH(0, k, 0) = CC(0, 0, k) + tr2;
    T ci3 = 2 * taui * CC(0, 2, k);
    CH(0, k, 2) = cr2 + ci3, CH(0, k, 1) = cr2 - ci3;
  }
  if (ido == 1) return;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
      T tr2 = CC(i - 1, 2, k) + CC(ic - 1, 1, k);
      T ti2 = CC(i, 2, k) - CC(ic, 1, k);
      T cr2 = CC(i - 1, 0, k) + taur * tr2;
      T ci2 = CC(i, 0, k) + taur * ti2;
      CH(i - 1, k, 0) = CC(i - 1, 0, k) + tr2;
      CH(i, k, 0) = CC(i, 0, k) + ti2;
      T cr3 = taui * (CC(i - 1, 2, k) - CC(ic - 1, 1, k));
      T ci3 = taui * (CC(i, 2, k) + CC(ic, 1, k));
      T dr3 = cr2 + ci3, dr2 = cr2 - ci3, di2 = ci2 + cr3, di3 = ci2 - cr3;
      MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), di2, dr2);
      MULPM(CH(i, k, 2), CH(i - 1, k, 2), WA(1, i - 2), WA(1, i - 1), di3, dr3);
    }
}

static void radb4(size_t ido, size_t l1, const T *cc, T *ch, const T *wa) {
  const size_t cdim = 4;
  const T sqrt2 = (T)1.414213562373095048801688724209698L;
  for (size_t k = 0; k < l1; k++) {
    T tr2 = CC(0, 0, k) + CC(ido - 1, 3, k), tr1 = CC(0, 0, k) - CC(ido - 1, 3, k);
    T tr3 = 2 * CC(ido - 1, 1, k), tr4 = 2 * CC(0, 2, k);
    CH(0, k, 0) = tr2 + tr3, CH(0, k, 2) = tr2 - tr3;
    CH(0, k, 3) = tr1 + tr4, CH(0, k, 1) = tr1 - tr4;
  }
  if ((ido & 1) == 0)
    for (size_t k = 0; k < l1; k++) {
      T ti1 = CC(0, 3, k) + CC(0, 1, k), ti2 = CC(0, 3, k) - CC(0, 1, k);
      T tr2 = CC(ido - 1, 0, k) + CC(ido - 1, 2, k), tr1 = CC(ido - 1, 0, k) - CC(ido - 1, 2, k);
      CH(ido - 1, k, 0) = tr2 + tr2;
      CH(ido - 1, k, 1) = sqrt2 * (tr1 - ti1);
      CH(ido - 1, k, 2) = ti2 + ti2;
      CH(ido - 1, k, 3) = -sqrt2 * (tr1 + ti1);
    }
  if (ido <= 2) return;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 2; i < ido; i += 2) {
      size_t ic = ido - i;
      T tr2 = CC(i - 1, 0, k) + CC(ic - 1, 3, k), tr1 = CC(i - 1, 0, k) - CC(ic - 1, 3, k);
      T ti1 = CC(i, 0, k) + CC(ic, 3, k), ti2 = CC(i, 0, k) - CC(ic, 3, k);
      T tr4 = CC(i, 2, k) + CC(ic, 1, k), ti3 = CC(i, 2, k) - CC(ic, 1, k);
      T tr3 = CC(i - 1, 2, k) + CC(ic - 1, 1, k), ti4 = CC(i - 1, 2, k) - CC(ic - 1, 1, k);
      CH(i - 1, k, 0) = tr2 + tr3;
      T cr3 = tr2 - tr3;
      CH(i, k, 0) = ti2 + ti3;
      T ci3 = ti2 - ti3;
      T cr4 = tr1 + tr4, cr2 = tr1 - tr4, ci2 = ti1 + ti4, ci4 = ti1 - ti4;
      MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), ci2, cr2);
      MULPM(CH(i, k, 2), CH(i - 1, k, 2), WA(1, i - 2), WA(1, i - 1), ci3, cr3);
      MULPM(CH(i, k, 3), CH(i - 1, k, 3), WA(2, i - 2), WA(2, i - 1), ci4, cr4);
    }
}

static void radb5(size_t ido, size_t l1, const T *cc, T *ch, const T *wa) {
  const size_t cdim = 5;
  const T tr11 = (T)0.3090169943749474241022934171828191L, ti11 = (T)0.9510565162951535721164393333793821L,
          tr12 = (T)-0.8090169943749474241022934171828191L, ti12 = (T)0.5877852522924731291687059546390728L;
  for (size_t k = 0; k < l1; k++) {
    T ti5 = CC(0, 2, k) + CC(0, 2, k), ti4 = CC(0, 4, k) + CC(0, 4, k);
    T tr2 = CC(ido - 1, 1, k) + CC(ido - 1, 1, k), tr3 = CC(ido - 1, 3, k) + CC(ido - 1, 3, k);
    CH(0, k, 0) = CC(0, 0, k) + tr2 + tr3;
    T cr2 = CC(0, 0, k) + tr11 * tr2 + tr12 * tr3;
    T cr3 = CC(0, 0, k) + tr12 * tr2 + tr11 * tr3;
    T ci4, ci5;
    MULPM(ci5, ci4, ti5, ti4, ti11, ti12);
    CH(0, k, 4) = cr2 + ci5, CH(0, k, 1) = cr2 - ci5;
    CH(0, k, 3) = cr3 + ci4, CH(0, k, 2) = cr3 - ci4;
  }
  if (ido == 1) return;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
      T tr2 = CC(i - 1, 2, k) + CC(ic - 1, 1, k), tr5 = CC(i - 1, 2, k) - CC(ic - 1, 1, k);
      T ti5 = CC(i, 2, k) + CC(ic, 1, k), ti2 = CC(i, 2, k) - CC(ic, 1, k);
      T tr3 = CC(i - 1, 4, k) + CC(ic - 1, 3, k), tr4 = CC(i - 1, 4, k) - CC(ic - 1, 3, k);
      T ti4 = CC(i, 4, k) + CC(ic, 3, k), ti3 = CC(i, 4, k) - CC(ic, 3, k);
      CH(i - 1, k, 0) = CC(i - 1, 0, k) + tr2 + tr3;
      CH(i, k, 0) = CC(i, 0, k) + ti2 + ti3;
      T cr2 = CC(i - 1, 0, k) + tr11 * tr2 + tr12 * tr3;
      T ci2 = CC(i, 0, k) + tr11 * ti2 + tr12 * ti3;
      T cr3 = CC(i - 1, 0, k) + tr12 * tr2 + tr11 * tr3;
      T ci3 = CC(i, 0, k) + tr12 * ti2 + tr11 * ti3;
      T ci4, ci5, cr5, cr4;
      MULPM(cr5, cr4, tr5, tr4, ti11, ti12);
      MULPM(ci5, ci4, ti5, ti4, ti11, ti12);
      T dr4 = cr3 + ci4, dr3 = cr3 - ci4, di3 = ci3 + cr4, di4 = ci3 - cr4;
      T dr5 = cr2 + ci5, dr2 = cr2 - ci5, di2 = ci2 + cr5, di5 = ci2 - cr5;
      MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), di2, dr2);
      MULPM(CH(i, k, 2), CH(i - 1, k, 2), WA(1, i - 2), WA(1, i - 1), di3, dr3);
      MULPM(CH(i, k, 3), CH(i - 1, k, 3), WA(2, i - 2), WA(2, i - 1), di4, dr4);
      MULPM(CH(i, k, 4), CH(i - 1, k, 4), WA(3, i - 2), WA(3, i - 1), di5, dr5);
    }
}

/* Any other odd radix (pocketfft's radbg); csarr: 2*ip reals, the roots of
 * unity as (cos, sin) pairs with the second half conjugated. Result in ch. */
static void radb_generic(size_t ido, size_t ip, size_t l1, T *cc, T *ch, const T *wa, const T *csarr) {
  const size_t cdim = ip, ipph = (ip + 1) / 2, idl1 = ido * l1;
#define C1(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define C2(a, b) cc[(a) + idl1 * (b)]
#define CH2(a, b) ch[(a) + idl1 * (b)]
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) CH(i, k, 0) = CC(i, 0, k);
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--) {
    size_t j2 = 2 * j - 1;
    for (size_t k = 0; k < l1; k++) {
      CH(0, k, j) = 2 * CC(ido - 1, j2, k);
      CH(0, k, jc) = 2 * CC(0, j2 + 1, k);
    }
  }
  if (ido != 1)
    for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--) {
      size_t j2 = 2 * j - 1;
      for (size_t k = 0; k < l1; k++)
        for (size_t i = 1, ic = ido - i - 2; i <= ido - 2; i += 2, ic -= 2) {
          CH(i, k, j) = CC(i, j2 + 1, k) + CC(ic, j2, k);
          CH(i, k, jc) = CC(i, j2 + 1, k) - CC(ic, j2, k);
          CH(i + 1, k, j) = CC(i + 1, j2 + 1, k) - CC(ic + 1, j2, k);
          CH(i + 1, k, jc) = CC(i + 1, j2 + 1, k) + CC(ic + 1, j2, k);
        }
    }
  for (size_t l = 1, lc = ip - 1; l < ipph; l++, lc--) {
    for (size_t ik = 0; ik < idl1; ik++) {
      C2(ik, l) = CH2(ik, 0) + csarr[2 * l] * CH2(ik, 1) + csarr[4 * l] * CH2(ik, 2);
      C2(ik, lc) = csarr[2 * l + 1] * CH2(ik, ip - 1) + csarr[4 * l + 1] * CH2(ik, ip - 2);
    }
    size_t iang = 2 * l, j = 3, jc = ip - 3;
    for (; j < ipph - 3; j += 4, jc -= 4) {
      T ar[4], ai[4];
      for (int q = 0; q < 4; q++) {
        iang += l;
        if (iang > ip) iang -= ip;
        ar[q] = csarr[2 * iang], ai[q] = csarr[2 * iang + 1];
      }
      for (size_t ik = 0; ik < idl1; ik++) {
        C2(ik, l) += ar[0] * CH2(ik, j) + ar[1] * CH2(ik, j + 1) + ar[2] * CH2(ik, j + 2) + ar[3] * CH2(ik, j + 3);
        C2(ik, lc) += ai[0] * CH2(ik, jc) + ai[1] * CH2(ik, jc - 1) + ai[2] * CH2(ik, jc - 2) + ai[3] * CH2(ik, jc - 3);
      }
    }
    for (; j < ipph - 1; j += 2, jc -= 2) {
      iang += l;
      if (iang > ip) iang -= ip;
      T ar1 = csarr[2 * iang], ai1 = csarr[2 * iang + 1];
      iang += l;
      if (iang > ip) iang -= ip;
      T ar2 = csarr[2 * iang], ai2 = csarr[2 * iang + 1];
      for (size_t ik = 0; ik < idl1; ik++) {
        C2(ik, l) += ar1 * CH2(ik, j) + ar2 * CH2(ik, j + 1);
        C2(ik, lc) += ai1 * CH2(ik, jc) + ai2 * CH2(ik, jc - 1);
      }
    }
    for (; j < ipph; j++, jc--) {
      iang += l;
      if (iang > ip) iang -= ip;
      T war = csarr[2 * iang], wai = csarr[2 * iang + 1];
      for (size_t ik = 0; ik < idl1; ik++) {
        C2(ik, l) += war * CH2(ik, j);
        C2(ik, lc) += wai * CH2(ik, jc);
      }
    }
  }
  for (size_t j = 1; j < ipph; j++)
    for (size_t ik = 0; ik < idl1; ik++) CH2(ik, 0) += CH2(ik, j);
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++) {
      CH(0, k, jc) = C1(0, k, j) + C1(0, k, jc);
      CH(0, k, j) = C1(0, k, j) - C1(0, k, jc);
    }
  if (ido == 1) return;
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 1; i <= ido - 2; i += 2) {
        CH(i, k, j) = C1(i, k, j) - C1(i + 1, k, jc);
        CH(i, k, jc) = C1(i, k, j) + C1(i + 1, k, jc);
        CH(i + 1, k, j) = C1(i + 1, k, j) + C1(i, k, jc);
        CH(i + 1, k, jc) = C1(i + 1, k, j) - C1(i, k, jc);
      }
  for (size_t j = 1; j < ip; j++) {
    size_t is = (j - 1) * (ido - 1);
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 1, idij = is; i <= ido - 2; i += 2, idij += 2) {
        T t1 = CH(i, k, j), t2 = CH(i + 1, k, j);
        CH(i, k, j) = wa[idij] * t1 - wa[idij + 1] * t2;
        CH(i + 1, k, j) = wa[idij] * t2 + wa[idij + 1] * t1;
      }
  }
#undef CH2
#undef C2
#undef C1
}

#undef MULPM
#undef WA
#undef CH
#undef CC

typedef struct { size_t fct; T *tw, *tws; } rfactor;
typedef struct {
  size_t n, nfct;
  rfactor fct[MAX_FACTORS];
  T *ch;
} rplan;

/* rfftp::exec backward (half-complex to real), then copy_and_norm */
static void rfft_backward(const rplan *p, T *c, T fct) {
  size_t n = p->n;
  if (n == 1) { c[0] *= fct; return; }
  T *p1 = c, *p2 = p->ch;
  for (size_t k = 0, l1 = 1; k < p->nfct; k++) {
    size_t ip = p->fct[k].fct, ido = n / (ip * l1);
    const T *tw = p->fct[k].tw;
    if (ip == 4) radb4(ido, l1, p1, p2, tw);
    else if (ip == 2) radb2(ido, l1, p1, p2, tw);
    else if (ip == 3) radb3(ido, l1, p1, p2, tw);
    else if (ip == 5) radb5(ido, l1, p1, p2, tw);
    else radb_generic(ido, ip, l1, p1, p2, tw, p->fct[k].tws);
    T *t = p1; p1 = p2, p2 = t;
    l1 *= ip;
  }
  if (p1 != c) {
    if (fct != 1)
      for (size_t i = 0; i < n; i++) c[i] = fct * p1[i];
    else
      memcpy(c, p1, n * sizeof *c);
  } else if (fct != 1)
    for (size_t i = 0; i < n; i++) c[i] *= fct;
}

static int rplan_init(ox_arena *a, rplan *p, size_t n) {
  memset(p, 0, sizeof *p);
  p->n = n;
  if (n == 1) return 0;
  size_t f[MAX_FACTORS];
  p->nfct = factorize(n, 0, f);
  for (size_t k = 0; k < p->nfct; k++) p->fct[k].fct = f[k];
  size_t twsize = 0, l1 = 1;
  for (size_t k = 0; k < p->nfct; k++) {
    size_t ip = p->fct[k].fct, ido = n / (l1 * ip);
    twsize += (ip - 1) * (ido - 1) + (ip > 5 ? 2 * ip : 0);
    l1 *= ip;
  }
  T *mem = ox_alloc_array(a, (int64_t)twsize + 1, sizeof *mem);
  p->ch = ox_alloc_array(a, (int64_t)n, sizeof *p->ch);
  sincos tw;
  if (!mem || !p->ch || sincos_init(a, &tw, n)) return -1;
  l1 = 1;
  for (size_t k = 0; k < p->nfct; k++) {
    size_t ip = p->fct[k].fct, ido = n / (l1 * ip);
    if (k < p->nfct - 1) { /* the last factor needs no twiddles */
      p->fct[k].tw = mem, mem += (ip - 1) * (ido - 1);
      for (size_t j = 1; j < ip; j++)
        for (size_t i = 1; i <= (ido - 1) / 2; i++) {
          cx w = twiddle(&tw, j * l1 * i);
          p->fct[k].tw[(j - 1) * (ido - 1) + 2 * i - 2] = w.r;
          p->fct[k].tw[(j - 1) * (ido - 1) + 2 * i - 1] = w.i;
        }
    }
    if (ip > 5) { /* the roots of unity radb_generic needs */
      T *s = p->fct[k].tws = mem;
      mem += 2 * ip;
      s[0] = 1, s[1] = 0;
      for (size_t i = 2, ic = 2 * ip - 2; i <= ic; i += 2, ic -= 2) {
        cx w = twiddle(&tw, i / 2 * (n / ip));
        s[i] = w.r, s[i + 1] = w.i, s[ic] = w.r, s[ic + 1] = -w.i;
      }
    }
    l1 *= ip;
  }
  return 0;
}

/* ---- Bluestein: fftblue ----
 * For lengths with a large prime factor: a chirp-z convolution through a
 * complex plan of size n2 >= 2n-1 with small factors. */

typedef struct {
  size_t n, n2;
  cplan plan;
  cx *bk, *bkf; /* the chirp and its transform */
  cx *akf;      /* scratch, n2 */
  cx *tmp;      /* scratch for the real transform, n */
} blue;

/* The smallest 2^a 3^b 5^c 7^d 11^e >= n (util::good_size_cmplx) */
static size_t good_size(size_t n) {
  if (n <= 12) return n;
  size_t best = 2 * n;
  for (size_t f11 = 1; f11 < best; f11 *= 11)
    for (size_t f117 = f11; f117 < best; f117 *= 7)
      for (size_t f1175 = f117; f1175 < best; f1175 *= 5) {
        size_t x = f1175;
        while (x < n) x *= 2;
        for (;;) {
          if (x < n) x *= 3;
          else if (x > n) {
            if (x < best) best = x;
            if (x & 1) break;
            x >>= 1;
          } else
            return n;
        }
      }
  return best;
}

static void blue_fft(const blue *b, cx *c, T fct, int fwd) {
  size_t n = b->n, n2 = b->n2;
  cx *akf = b->akf;
  for (size_t m = 0; m < n; m++) akf[m] = smul(c[m], b->bk[m], fwd);
  cx zero = scale(akf[0], 0); /* NaN stays NaN, as in pocketfft */
  for (size_t m = n; m < n2; m++) akf[m] = zero;
  cfft_exec(&b->plan, akf, 1, 1);
  /* the convolution */
  akf[0] = smul(akf[0], b->bkf[0], !fwd);
  for (size_t m = 1; m < (n2 + 1) / 2; m++) {
    akf[m] = smul(akf[m], b->bkf[m], !fwd);
    akf[n2 - m] = smul(akf[n2 - m], b->bkf[m], !fwd);
  }
  if ((n2 & 1) == 0) akf[n2 / 2] = smul(akf[n2 / 2], b->bkf[n2 / 2], !fwd);
  cfft_exec(&b->plan, akf, 1, 0);
  for (size_t m = 0; m < n; m++) c[m] = scale(smul(akf[m], b->bk[m], fwd), fct);
}

/* fftblue::exec_r backward: half-complex in, reals out */
static void blue_backward_real(const blue *b, T *c, T fct) {
  size_t n = b->n;
  cx *tmp = b->tmp;
  tmp[0] = (cx){c[0], c[0] * 0};
  memcpy(&tmp[1], c + 1, (n - 1) * sizeof *c);
  if ((n & 1) == 0) tmp[n / 2].i = 0 * c[0];
  for (size_t m = 1; 2 * m < n; m++) tmp[n - m] = (cx){tmp[m].r, -tmp[m].i};
  blue_fft(b, tmp, fct, 0);
  for (size_t m = 0; m < n; m++) c[m] = tmp[m].r;
}

static int blue_init(ox_arena *a, blue *b, size_t n) {
  b->n = n;
  b->n2 = good_size(n * 2 - 1);
  size_t n2 = b->n2;
  if (cplan_init(a, &b->plan, n2)) return -1;
  b->bk = ox_alloc_array(a, (int64_t)n, sizeof *b->bk);
  b->bkf = ox_alloc_array(a, (int64_t)(n2 / 2 + 1), sizeof *b->bkf);
  b->akf = ox_alloc_array(a, (int64_t)n2, sizeof *b->akf);
  b->tmp = ox_alloc_array(a, (int64_t)n, sizeof *b->tmp);
  sincos tw;
  if (!b->bk || !b->bkf || !b->akf || !b->tmp || sincos_init(a, &tw, 2 * n)) return -1;
  /* b_k = e^(i pi k^2 / n), the exponent k^2 kept mod 2n */
  b->bk[0] = (cx){1, 0};
  for (size_t m = 1, coeff = 0; m < n; m++) {
    coeff += 2 * m - 1;
    if (coeff >= 2 * n) coeff -= 2 * n;
    b->bk[m] = twiddle(&tw, coeff);
  }
  /* the zero-padded, transformed b_k with the 1/n2 normalisation */
  cx *tbkf = b->akf;
  T xn2 = (T)1 / (T)n2;
  tbkf[0] = scale(b->bk[0], xn2);
  for (size_t m = 1; m < n; m++) tbkf[m] = tbkf[n2 - m] = scale(b->bk[m], xn2);
  for (size_t m = n; m <= n2 - n; m++) tbkf[m] = (cx){0, 0};
  cfft_exec(&b->plan, tbkf, 1, 1);
  memcpy(b->bkf, tbkf, (n2 / 2 + 1) * sizeof *tbkf);
  return 0;
}

/* ---- plans: pocketfft_c and pocketfft_r ---- */

static size_t largest_prime_factor(size_t n) {
  size_t res = 1;
  while ((n & 1) == 0) res = 2, n >>= 1;
  for (size_t x = 3; x * x <= n; x += 2)
    while (n % x == 0) res = x, n /= x;
  if (n > 1) res = n;
  return res;
}

static double cost_guess(size_t n) {
  const double lfp = 1.1; /* penalty for non-hardcoded larger factors */
  size_t ni = n;
  double result = 0.;
  while ((n & 1) == 0) result += 2, n >>= 1;
  for (size_t x = 3; x * x <= n; x += 2)
    while (n % x == 0) {
      result += x <= 5 ? (double)x : lfp * (double)x;
      n /= x;
    }
  if (n > 1) result += n <= 5 ? (double)n : lfp * (double)n;
  return result * (double)ni;
}

typedef struct {
  size_t n;
  int real;
  cplan *cp;   /* complex, factored */
  rplan *rp;   /* real, factored */
  blue *bp;    /* Bluestein, either kind */
  cx *line;    /* the working line: n complex, or n reals */
} plan;

static plan *make_plan(ox_arena *a, size_t n, int real) {
  plan *p = ox_alloc(a, sizeof *p);
  if (!p) return NULL;
  p->n = n, p->real = real;
  p->line = ox_alloc_array(a, (int64_t)n, sizeof *p->line);
  if (!p->line) return NULL;
  /* Bluestein only where a factored plan would be slower (pocketfft's rule) */
  size_t lpf = n < 50 ? 0 : largest_prime_factor(n);
  int use_blue = 0;
  if (lpf * lpf > n) {
    double comp1 = (real ? 0.5 : 1) * cost_guess(n);
    double comp2 = 2 * cost_guess(good_size(2 * n - 1));
    comp2 *= 1.5; /* pocketfft's fudge factor */
    use_blue = comp2 < comp1;
  }
  if (use_blue) {
    p->bp = ox_alloc(a, sizeof *p->bp);
    if (!p->bp || blue_init(a, p->bp, n)) return NULL;
  } else if (real) {
    p->rp = ox_alloc(a, sizeof *p->rp);
    if (!p->rp || rplan_init(a, p->rp, n)) return NULL;
  } else {
    p->cp = ox_alloc(a, sizeof *p->cp);
    if (!p->cp || cplan_init(a, p->cp, n)) return NULL;
  }
  return p;
}

void *FFT_FN(plan)(ox_arena *a, size_t n, int real) { return make_plan(a, n, real); }

/* numpy's fft_loop: copy in (zero-padding or cutting), transform, copy out */
void FFT_FN(c2c)(void *vp, const ox_fft_line *l, int inverse, double fct) {
  plan *p = vp;
  size_t n = p->n, m = l->nin < (int64_t)n ? (size_t)l->nin : n;
  const T *x = l->x;
  cx *c = p->line;
  for (size_t j = 0; j < m; j++) {
    const T *v = x + (int64_t)j * l->xs;
    c[j] = (cx){v[0], l->xc == 2 ? v[1] : 0};
  }
  for (size_t j = m; j < n; j++) c[j] = (cx){0, 0};
  if (p->cp) cfft_exec(p->cp, c, (T)fct, !inverse);
  else blue_fft(p->bp, c, (T)fct, !inverse);
  T *y = l->y;
  for (int64_t k = 0; k < l->ny; k++) y[k * l->ys] = c[k].r, y[k * l->ys + 1] = c[k].i;
}

/* numpy's irfft_loop: pack bins 0 .. n/2 into FFTPACK's half-complex order
 * r0, r1, i1, r2, i2, ... (r(n/2) last for even n), then the real backward
 * transform. */
void FFT_FN(c2r)(void *vp, const ox_fft_line *l, double fct) {
  plan *p = vp;
  size_t n = p->n, nin = (size_t)l->nin;
  const T *x = l->x;
  T *r = (T *)p->line;
#define BIN(k) (x + (int64_t)(k) * l->xs)
  r[0] = nin ? BIN(0)[0] : 0;
  if (n > 1) {
    size_t half = (n - 1) / 2, m = nin ? nin - 1 : 0;
    if (m > half) m = half;
    for (size_t k = 1; k <= m; k++) {
      r[2 * k - 1] = BIN(k)[0];
      r[2 * k] = l->xc == 2 ? BIN(k)[1] : 0;
    }
    for (size_t k = m + 1; k <= half; k++) r[2 * k - 1] = 0, r[2 * k] = 0;
    if (n % 2 == 0) r[n - 1] = n / 2 >= nin ? 0 : BIN(n / 2)[0];
  }
#undef BIN
  if (p->rp) rfft_backward(p->rp, r, (T)fct);
  else blue_backward_real(p->bp, r, (T)fct);
  T *y = l->y;
  for (int64_t k = 0; k < l->ny; k++) y[k * l->ys] = r[k];
}
