/* core/gemv.h: matrix products with a thin side (a vector or a few rows), for
 * MatMul, Gemm and Einsum.
 *
 *   C = alpha * op(A) * op(B) + beta * C, as ox_sgemm and ox_dgemm (gemm.h)
 *
 * When op(A) has at most OX_THIN rows, or op(B) at most OX_THIN columns, the
 * packed, blocked GEMM spends more on packing the wide operand (every one of
 * its elements, to be used once or twice) than on the product. These read
 * both operands in place instead, transposed ones too: with op(B) stored
 * (N, K) (transB) each output is a dot product of two contiguous rows; with
 * op(B) stored (K, N) a tile of outputs accumulates across rows of B. Each
 * output element is summed in one order whatever the thread count (the work
 * is split by whole columns), so results are the same bytes for every
 * --threads; they may differ from ox_sgemm's in the last bits (another
 * order of the sums, as between any two BLAS). AVX-512 and AVX2+FMA builds
 * are picked at run time (core/cpu.h). */
#ifndef OX_GEMV_H
#define OX_GEMV_H

#include <stdint.h>

#define OX_THIN 4

/* Is an (M, K) x (K, N) product thin enough for the functions below? */
int ox_gemm_is_thin(int64_t M, int64_t N, int64_t K);

void ox_sgemm_thin(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int transA,
                   const float *B, int64_t ldb, int transB, float *C, int64_t ldc, float alpha,
                   float beta);
void ox_dgemm_thin(int threads, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, int transA,
                   const double *B, int64_t ldb, int transB, double *C, int64_t ldc, double alpha,
                   double beta);

/* C (M, N) = alpha * A (M, K) x B + beta * C for M <= OX_THIN, A not
 * transposed, B packed for the GEMM (core/gemm.h's pb, slivers of nr
 * columns, at the ISA level the GEMM uses now): each output summed over k
 * in order, the bytes of ox_sgemm_thin from B (K, N) unpacked and not
 * transposed (beta 0: C is not read). */
void ox_sgemm_thin_packed(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                          const float *pb, int64_t nr, float *C, int64_t ldc, float alpha, float beta);

/* The same from B packed as 2-byte floats (core/gemm.h's pb16, of `kind`),
 * each element widened exactly: the bytes of ox_sgemm_thin_packed from the
 * widened pb. */
void ox_sgemm_thin_packed_h(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                            const uint16_t *pb16, unsigned kind, int64_t nr, float *C, int64_t ldc, float alpha,
                            float beta);

/* ox_sgemm_thin when the product is thin, else ox_sgemm (likewise for double). */
void ox_sgemm_any(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int transA,
                  const float *B, int64_t ldb, int transB, float *C, int64_t ldc, float alpha,
                  float beta);
void ox_dgemm_any(int threads, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, int transA,
                  const double *B, int64_t ldb, int transB, double *C, int64_t ldc, double alpha,
                  double beta);

#endif
