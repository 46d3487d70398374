/* ops/contrib_generation.c: onnxruntime's generation loops (com.microsoft
 * BeamSearch, GreedySearch, Sampling, WhisperBeamSearch). Each drives a
 * decoder subgraph token by token with onnxruntime's own search, scoring and
 * sampling logic; onnxop knows them, so that a model using one is refused
 * with the reason instead of as an unknown operator, but does not run them. */
#include "core/kernel.h"

#define LOOP_WHY                                                                                           \
  "onnxop does not run onnxruntime's generation loops (BeamSearch, GreedySearch, Sampling, "              \
  "WhisperBeamSearch), which drive a decoder subgraph with onnxruntime's own search and sampling; run "   \
  "the decoder step by step instead"

const ox_kernel ox_contrib_generation_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "com.microsoft", "BeamSearch",        1, OX_NOT_RUN(LOOP_WHY) },
  { "com.microsoft", "GreedySearch",      1, OX_NOT_RUN(LOOP_WHY) },
  { "com.microsoft", "Sampling",          1, OX_NOT_RUN(LOOP_WHY) },
  { "com.microsoft", "WhisperBeamSearch", 1, OX_NOT_RUN(LOOP_WHY) },
  {0},
};
