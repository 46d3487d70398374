/* core/random.h: numpy's legacy RandomState, bit for bit.
 *
 * The ONNX reference implementation draws its random ops from
 * numpy.random.RandomState(seed): MT19937 seeded by init_genrand, doubles of
 * 53 bits from two 32-bit draws (random_sample), the polar Box-Muller gauss
 * with its cached second value (standard_normal / randn) and the legacy
 * binomial. A seeded op here makes the same numbers; an unseeded one seeds
 * the generator from the OS (getrandom), as RandomState(None) does. */
#ifndef OX_RANDOM_H
#define OX_RANDOM_H

#include <stdint.h>

typedef struct ox_mt19937 {
  uint32_t k[624];
  int pos;          /* next word of k; 624: twist first */
  int has_gauss;    /* legacy_gauss keeps the second value of each pair */
  double gauss;
} ox_mt19937;

/* RandomState(seed) for an integer seed in [0, 2^32 - 1] (init_genrand). */
void ox_mt_seed(ox_mt19937 *m, uint32_t seed);
/* RandomState(None): a key from getrandom() (time and addresses if that
 * fails), its first word 0x80000000 as numpy sets it so it is never zero.
 * With the environment variable ONNXOP_SEED=N (0 <= N < 2^32), RandomState(N)
 * instead, for every unseeded op: runs that repeat; a seed the run's
 * options give (ox_run_opts.seeded) comes before both. */
struct ox_run_opts;
/* o: the options of the run asking (a kernel's c->run; NULL: none) */
void ox_mt_seed_entropy(ox_mt19937 *m, const struct ox_run_opts *o);
/* The next 32-bit output. */
uint32_t ox_mt_next(ox_mt19937 *m);
/* random_sample(): a double in [0, 1) of 53 random bits. */
double ox_mt_double(ox_mt19937 *m);
/* standard_normal() of RandomState (legacy_gauss). */
double ox_mt_gauss(ox_mt19937 *m);
/* binomial(1, p) of RandomState (legacy_random_binomial with n = 1), p in [0, 1]. */
int ox_mt_bernoulli(ox_mt19937 *m, double p);

#endif
