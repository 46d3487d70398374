/* ops/random.c: RandomNormal, RandomUniform, their -Like forms, Bernoulli and Multinomial. */
#include "core/registry.h"

const ox_kernel ox_random_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
