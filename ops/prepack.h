/* ops/prepack.h: the preparations ops/prepack.c makes once per model, for
 * the ops other than the convolutions (ops/conv.h has theirs). */
#ifndef OX_OPS_PREPACK_H
#define OX_OPS_PREPACK_H

#include "core/gemm.h"
#include "core/kernel.h"

/* MatMul with a constant float B (K, N): B packed as core/gemm.h's pb for
 * the plan `gp`. A call uses it only when its input 1 is that tensor
 * (ox_prep_matches), A is float and gp is still the current plan. */
typedef struct ox_matmul_prep {
  const ox_tensor *b;
  ox_gemm_plan gp;
  int64_t K, N;
  const float *pb; /* round_up(N, nr) * K floats */
} ox_matmul_prep;

/* *out <- node n's preparation for its constant B, in a's memory; NULL
 * (and 0) when there is nothing to prepare; an error only when out of
 * memory. */
int ox_matmul_prepack(ox_arena *a, const ox_node *n, const ox_tensor *b, const ox_matmul_prep **out, ox_err *e);

/* com.microsoft MatMulNBits with a constant B (N, k_blocks, blob_size):
 * B's bytes regrouped by 16 columns for the packed product
 * (ops/contrib_quant.c's nb_regroup). A call uses it only when its input 1
 * is that tensor (ox_prep_matches). */
typedef struct ox_matmulnbits_prep {
  const ox_tensor *b;
  const uint8_t *qk;
} ox_matmulnbits_prep;
int ox_matmulnbits_prepack(ox_arena *a, const ox_node *n, const ox_tensor *b, const ox_matmulnbits_prep **out,
                           ox_err *e);

#endif
