/* core/random.c: numpy's legacy RandomState (see random.h). The algorithms
 * follow numpy/random/src/mt19937/mt19937.c, randomkit's init_genrand and
 * numpy/random/src/legacy/legacy-distributions.c; they must not be "improved":
 * a different rounding or order of draws changes every seeded output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "eval.h"
#include "random.h"

void ox_mt_seed(ox_mt19937 *m, uint32_t seed) {
  m->k[0] = seed;
  for (int i = 1; i < 624; i++)
    m->k[i] = 1812433253u * (m->k[i - 1] ^ (m->k[i - 1] >> 30)) + (uint32_t)i;
  m->pos = 624;
  m->has_gauss = 0;
  m->gauss = 0;
}

/* splitmix64: spreads the fallback entropy over the key. */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void ox_mt_seed_entropy(ox_mt19937 *m, const ox_run_opts *o) {
  /* ONNXOP_SEED: unseeded ops start from RandomState(ONNXOP_SEED) instead,
   * every one of them, so a run repeats (onnxop test sets it to 0) */
  if (o && o->seeded) { /* a seed the run was given wins */
    ox_mt_seed(m, o->seed);
    return;
  }
  const char *env = getenv("ONNXOP_SEED");
  char *end;
  unsigned long long v = env && *env ? strtoull(env, &end, 10) : 0;
  if (env && *env && !*end && v <= UINT32_MAX) {
    ox_mt_seed(m, (uint32_t)v);
    return;
  }
  size_t got = 0;
  while (got < sizeof m->k) {
    ssize_t r = getrandom((char *)m->k + got, sizeof m->k - got, 0);
    if (r <= 0) break;
    got += (size_t)r;
  }
  if (got < sizeof m->k) { /* no getrandom: the clock, the pid and an address */
    static uint64_t calls;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                 ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)m ^ (__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) << 48);
    for (int i = 0; i < 624; i++) m->k[i] = (uint32_t)(splitmix(&s) >> 16);
  }
  m->k[0] = 0x80000000u; /* as numpy's _legacy_seeding(None): never an all-zero state */
  m->pos = 624;
  m->has_gauss = 0;
  m->gauss = 0;
}

uint32_t ox_mt_next(ox_mt19937 *m) {
  if (m->pos >= 624) {
#define TWIST(i, i1, im)                                                              \
  do {                                                                                \
    uint32_t y = (m->k[i] & 0x80000000u) | (m->k[i1] & 0x7fffffffu);                  \
    m->k[i] = m->k[im] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);                         \
  } while (0)
    int i = 0;
    for (; i < 624 - 397; i++) TWIST(i, i + 1, i + 397);
    for (; i < 623; i++) TWIST(i, i + 1, i + 397 - 624);
    TWIST(623, 0, 396);
#undef TWIST
    m->pos = 0;
  }
  uint32_t y = m->k[m->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

double ox_mt_double(ox_mt19937 *m) {
  uint32_t a = ox_mt_next(m) >> 5, b = ox_mt_next(m) >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* legacy_gauss: the polar method; each accepted pair gives two values, the
 * second (f * x1) is returned by the next call. */
double ox_mt_gauss(ox_mt19937 *m) {
  if (m->has_gauss) {
    m->has_gauss = 0;
    return m->gauss;
  }
  double f, x1, x2, r2;
  do {
    x1 = 2.0 * ox_mt_double(m) - 1.0;
    x2 = 2.0 * ox_mt_double(m) - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  f = sqrt(-2.0 * log(r2) / r2);
  m->gauss = f * x1;
  m->has_gauss = 1;
  return f * x2;
}

/* legacy_random_binomial_inversion for n trials (p <= 0.5, n * p <= 30). */
static int64_t binomial_inversion(ox_mt19937 *m, int64_t n, double p) {
  double q = 1.0 - p, qn = exp((double)n * log(q)), np = (double)n * p;
  double lim = np + 10.0 * sqrt(np * q + 1);
  int64_t bound = (double)n < lim ? n : (int64_t)lim;
  int64_t x = 0;
  double px = qn, u = ox_mt_double(m);
  while (u > px) {
    x++;
    if (x > bound) {
      x = 0;
      px = qn;
      u = ox_mt_double(m);
    } else {
      u -= px;
      px = ((double)(n - x + 1) * p * px) / ((double)x * q);
    }
  }
  return x;
}

/* legacy_random_binomial_original with n = 1: n * min(p, 1 - p) <= 30 always,
 * so only the inversion branch is reached; p > 0.5 draws the complement. */
int ox_mt_bernoulli(ox_mt19937 *m, double p) {
  if (p <= 0.5) return (int)binomial_inversion(m, 1, p);
  return 1 - (int)binomial_inversion(m, 1, 1.0 - p);
}
