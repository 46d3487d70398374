/* core/gemm.h: dense matrix products for MatMul, Gemm, Einsum and (through
 * im2col) Conv.
 *
 *   C = alpha * op(A) * op(B) + beta * C
 *   op(A): (M, K), A[i * lda + k], or A[k * lda + i] when transA
 *   op(B): (K, N), B[k * ldb + j], or B[j * ldb + k] when transB
 *   C:     (M, N), C[i * ldc + j]
 *
 * beta == 0 means C is only written (not read: NaN in C does not leak).
 * Float accumulates in float, double in double. The product is cache-blocked:
 * panels of A and B are packed and a register-tiled micro-kernel written with
 * GCC vector extensions runs over them; on x86-64 AVX2+FMA and AVX-512 builds
 * of the same code are chosen at run time when the CPU has them. Large
 * products are split over `threads` threads (the run's: a kernel's
 * c->threads; 0 the process's) by whole tiles of C (rows or columns), so
 * the result is the same bytes for every thread count (see core/threads.h). Never fails: if the
 * packing buffers cannot be allocated, a plain loop computes the result. */
#ifndef OX_GEMM_H
#define OX_GEMM_H

#include <stddef.h>
#include <stdint.h>

void ox_sgemm(int threads, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int transA,
              const float *B, int64_t ldb, int transB, float *C, int64_t ldc, float alpha,
              float beta);
void ox_dgemm(int threads, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, int transA,
              const double *B, int64_t ldb, int transB, double *C, int64_t ldc, double alpha,
              double beta);

/* ---- pre-packed float operands ----
 * For a product that reuses an operand, or can write it straight into the
 * micro-kernel's layout (Conv packs its weights once per call and writes its
 * im2col columns as packed B):
 *   pa: op(A) (M, K) as ceil(M / mr) slivers of mr rows by all K,
 *       pa[(s * K + k) * mr + r] = op(A)(s * mr + r, k), rows past M zero;
 *   pb: B (K, N) as ceil(N / nr) slivers of nr columns by all K,
 *       pb[(s * K + k) * nr + j] = B(k, s * nr + j), columns past N zero;
 *       64-byte aligned.
 * A plan names the micro-kernel (and so mr and nr): take one per product and
 * use it for its packing and its products (ox_gemm_max_isa may change the
 * kernel in between). A column of C gets the same operations whichever
 * sliver it falls in, so splitting N over threads gives the same bytes. */
typedef struct { int level, mr, nr; } ox_gemm_plan;
ox_gemm_plan ox_sgemm_plan_now(void);
ox_gemm_plan ox_dgemm_plan_now(void);
/* pa (round_up(M, mr) * K elements) <- op(A) */
void ox_sgemm_pack_a(const ox_gemm_plan *p, int64_t M, int64_t K, const float *A, int64_t lda,
                     int transA, float *pa);
void ox_dgemm_pack_a(const ox_gemm_plan *p, int64_t M, int64_t K, const double *A, int64_t lda,
                     int transA, double *pa);
/* pb (round_up(N, nr) * K elements) <- B (K, N), B[k * ldb + j] */
void ox_sgemm_pack_b(const ox_gemm_plan *p, int64_t K, int64_t N, const float *B, int64_t ldb,
                     float *pb);
void ox_dgemm_pack_b(const ox_gemm_plan *p, int64_t K, int64_t N, const double *B, int64_t ldb,
                     double *pb);
/* rows [k0, k1) of B (K, N) of es-byte elements into their places in pb
 * (the rest of pb as it was), from B holding those rows only: B[(k - k0) *
 * ldb + j]; for packing a large B a block of rows at a time. The bits are
 * copied: es 4, a float pb (as ox_sgemm_pack_b writes it); es 2, a pb16
 * (below) of any 2-byte dtype. */
void ox_gemm_pack_b_rows(const ox_gemm_plan *p, int64_t K, int64_t N, int64_t k0, int64_t k1, const void *B,
                         int64_t ldb, size_t es, void *pb);
/* the same from B stored transposed, (N, K): B[j * ldb + k] (a recurrent
 * net's R, used as R^T) */
void ox_sgemm_pack_bt(const ox_gemm_plan *p, int64_t K, int64_t N, const float *B, int64_t ldb,
                      float *pb);
void ox_dgemm_pack_bt(const ox_gemm_plan *p, int64_t K, int64_t N, const double *B, int64_t ldb,
                      double *pb);
/* C (M, N) = pa x pb + beta * C (beta 0: C only written); one thread. Each
 * element gets the operations ox_sgemm (ox_dgemm) gives it with alpha 1:
 * the same bits. */
void ox_sgemm_packed(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const float *pa,
                     const float *pb, float *C, int64_t ldc, float beta);
void ox_dgemm_packed(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const double *pa,
                     const double *pb, double *C, int64_t ldc, double beta);

/* ---- float16 and bfloat16 pre-packed B ----
 * A constant B of 2-byte floats held packed as they are, half the bytes of
 * its float pb: pb16 in pb's layout, pb16[(s * K + k) * nr + j] = B(k, s *
 * nr + j) (the element's bits), columns past N zero. The product widens
 * each (kc x nr) block of a sliver (contiguous in that layout) into a
 * float buffer on the stack (core/half.h, exact) right before the
 * micro-kernel reads it: every element of C gets the operations of
 * ox_sgemm_packed from B widened whole, the same bits. It is packed by
 * ox_gemm_pack_b_rows with es 2. */
/* What pb16 holds (`kind`, flags): bfloat16 (else float16), and whether
 * it holds no NaN (then a plain vector conversion widens it, exactly;
 * else core/half.h's, which makes NaN canonical) */
#define OX_PB16_BF16 1u
#define OX_PB16_NONAN 2u
/* f[0 .. n) <- h[0 .. n) of that kind widened, exactly (core/half.h's values) */
void ox_pb16_widen(unsigned kind, const uint16_t *h, float *f, int64_t n);
/* C (M, N) = pa x pb16 widened + beta * C; the bits of ox_sgemm_packed
 * from the widened pb. One thread. */
void ox_sgemm_packed_h(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const float *pa,
                       const uint16_t *pb16, unsigned kind, float *C, int64_t ldc, float beta);

/* ---- 8-bit products (ConvInteger, MatMulInteger) ----
 * C (M, N) int32 = A (M, K) x B (K, N), one of A and B signed bytes and the
 * other unsigned (a_signed says which), exact modulo 2^32 (the int32 sums
 * ONNX asks for wrap). Both operands are packed (into groups of 4 bytes of
 * K); each byte is stored XOR flip, so that an int8 operand the product
 * wants unsigned is read as (uint8)(v ^ 0x80) = v + 128, and a uint8 one it
 * wants signed as v - 128 (the caller moves its zero point by 128 to match).
 * rowsum/colsum (NULL: not wanted) receive each row's / column's sum of the
 * stored values, for the zero-point terms:
 *   sum (a - az)(b - bz) = sum ab - bz rowsum(a) - az colsum(b) + K az bz.
 * Sizes: pa round_up(M, mr) * round_up(K, 4) bytes; pb round_up(N, nr) *
 * round_up(K, 4) bytes, 64-byte aligned. Uses AVX-512 VNNI when the CPU has
 * it (and ox_gemm_max_isa allows AVX-512), else portable loops: the same
 * bytes either way. A column of C gets the same operations whichever sliver
 * it falls in. One thread. */
ox_gemm_plan ox_i8gemm_plan_now(void);
void ox_i8gemm_pack_a(const ox_gemm_plan *p, int64_t M, int64_t K, const uint8_t *A, int64_t lda,
                      uint8_t flip, int a_signed, uint8_t *pa, int32_t *rowsum);
void ox_i8gemm_pack_b(const ox_gemm_plan *p, int64_t K, int64_t N, const uint8_t *B, int64_t ldb,
                      uint8_t flip, int b_signed, uint8_t *pb, int32_t *colsum);
void ox_i8gemm_packed(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const uint8_t *pa,
                      const uint8_t *pb, int a_signed, int32_t *C, int64_t ldc);
/* The zero-point terms, added to each element as its tile is stored (no
 * second pass over C):
 *   C(i, j) = sum_k pa(i, k) pb(k, j) + colterm[j] - rowsum[i] * bz[j]
 * modulo 2^32. rowsum NULL: no row term (bz unread); colterm NULL: none.
 * Indexed from the call's first row and column, and readable up to
 * round_up(M, mr) rows and round_up(N, nr) columns (pad them). */
typedef struct {
  const int32_t *rowsum, *bz, *colterm;
} ox_i8gemm_zp;
void ox_i8gemm_packed_zp(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const uint8_t *pa,
                         const uint8_t *pb, int a_signed, int32_t *C, int64_t ldc, const ox_i8gemm_zp *zp);
/* The same with A (M, K) read in place, row i at A + i * lda, its bytes as
 * they are (no flip; a_signed as above): for K a multiple of 4 and M >= mr
 * (A's rows are read whole, never past row M - 1). */
void ox_i8gemm_rows_zp(const ox_gemm_plan *p, int64_t M, int64_t N, int64_t K, const uint8_t *A, int64_t lda,
                       const uint8_t *pb, int a_signed, int32_t *C, int64_t ldc, const ox_i8gemm_zp *zp);

/* For tests and benchmarks: use at most this micro-kernel (0 portable,
 * 1 AVX2+FMA, 2 AVX-512: core/cpu.h's levels; -1 the best the CPU has, the
 * default). Only GEMM is capped; ops/reduce.c's row kernels are not. */
void ox_gemm_max_isa(int level);
/* The micro-kernel ox_sgemm uses now: "generic", "avx2+fma" or "avx512f". */
const char *ox_gemm_isa(void);

#endif
