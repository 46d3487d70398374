/* tests/unit/test_matmul_f16.c: MatMul of two float16 (bfloat16) inputs
 * neither of which is a constant (attention's Q x K^T and its weights x V):
 * the bytes of widening both whole, the float32 MatMul, narrowing the result
 * once, for batched, broadcast, stacked, 1-D and empty-K shapes at 1-3
 * threads; and the product no longer holds float copies of whole operands
 * (each product widened into buffers of its thread, given back after): a
 * (12, 128, 64) x (12, 64, 128) product leaves only its output held. (A
 * float16 MatMul by a constant B: test_matmul's prepared_small_case.) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"
#include "core/half.h"
#include "core/threads.h"

static float rnd(void) { return (float)((double)kit_rnd32() / 2147483648.0 - 1.0); } /* [-1, 1) */

static ox_value *random_small(ox_dtype dt, int rank, const int64_t *dims, float scale) {
  ox_value *v = tensor(dt, rank, dims, NULL);
  for (int64_t i = 0; v && i < v->u.t.n; i++) {
    float f = rnd() * scale;
    ox_narrow_f32_n(&f, 1, dt, v->u.t.data, i);
  }
  return v;
}

/* t widened to a float tensor */
static ox_value *widened(const ox_value *t) {
  ox_value *w = tensor(OX_FLOAT, t->u.t.rank, t->u.t.dims, NULL);
  if (w) ox_widen_f32_n(t->u.t.dt, t->u.t.data, 0, t->u.t.n, w->u.t.data);
  return w;
}

/* a x b as MatMul computes it at 1-3 threads against the reference: both
 * widened, the float MatMul, rounded once */
static void product_case(ox_dtype dt, int ra, const int64_t *da, int rb, const int64_t *db, float scale) {
  ox_value *a = random_small(dt, ra, da, scale), *b = random_small(dt, rb, db, scale);
  ox_value *fin[2] = {widened(a), widened(b)}, *fy = NULL;
  ox_set_threads(1);
  CHECK_EQ_I(kit_run("", "MatMul", 13, 0, NULL, 2, fin, 1, &fy), 0);
  if (!fy) return;
  ox_value *want = tensor(dt, fy->u.t.rank, fy->u.t.dims, NULL);
  ox_narrow_f32_n(fy->u.t.data, fy->u.t.n, dt, want->u.t.data, 0);
  for (int th = 1; th <= 3; th++) {
    ox_set_threads(th);
    ox_value *in[2] = {a, b}, *y = NULL;
    CHECK_EQ_I(kit_run("", "MatMul", 13, 0, NULL, 2, in, 1, &y), 0);
    int same = y && y->u.t.dt == dt && y->u.t.rank == want->u.t.rank && y->u.t.n == want->u.t.n &&
               !memcmp(y->u.t.dims, want->u.t.dims, sizeof *y->u.t.dims * (size_t)y->u.t.rank) &&
               !memcmp(y->u.t.data, want->u.t.data, (size_t)y->u.t.n * 2);
    if (!same)
      fprintf(stderr, "%s MatMul (rank %d x rank %d, first dims %lld x %lld), %d threads: not the reference bytes\n",
              ox_dtypes[dt].onnx_name, ra, rb, (long long)da[0], (long long)db[0], th);
    CHECK(same);
  }
  ox_set_threads(1);
}

static void test_products(void) {
  static const ox_dtype dts[] = {OX_FLOAT16, OX_BFLOAT16};
  for (int i = 0; i < 2; i++) {
    ox_dtype dt = dts[i];
    /* attention: Q x K^T and weights x V, 12 heads */
    product_case(dt, 4, (int64_t[]){1, 12, 128, 64}, 4, (int64_t[]){1, 12, 64, 128}, 1);
    product_case(dt, 4, (int64_t[]){1, 12, 128, 128}, 4, (int64_t[]){1, 12, 128, 64}, 1);
    /* few large products (the GEMM splits each), many small ones */
    product_case(dt, 3, (int64_t[]){2, 300, 70}, 3, (int64_t[]){2, 70, 260}, 1);
    product_case(dt, 3, (int64_t[]){64, 8, 8}, 3, (int64_t[]){64, 8, 8}, 1);
    /* broadcast batch dims; b without batch dims (a's batches stacked) */
    product_case(dt, 4, (int64_t[]){2, 1, 5, 7}, 3, (int64_t[]){3, 7, 4}, 1);
    product_case(dt, 3, (int64_t[]){5, 7, 33}, 2, (int64_t[]){33, 3}, 1);
    /* 1-D operands; thin products */
    product_case(dt, 1, (int64_t[]){7}, 3, (int64_t[]){2, 7, 3}, 1);
    product_case(dt, 3, (int64_t[]){2, 3, 7}, 1, (int64_t[]){7}, 1);
    product_case(dt, 2, (int64_t[]){2, 50}, 2, (int64_t[]){50, 40}, 1);
    /* K 0: zeros */
    product_case(dt, 3, (int64_t[]){2, 3, 0}, 3, (int64_t[]){2, 0, 4}, 1);
    /* sums past float16's range: Inf */
    product_case(dt, 3, (int64_t[]){3, 20, 64}, 3, (int64_t[]){3, 64, 20}, 200);
  }
}

/* the product holds its output (384 KiB; and bookkeeping: under 256 KiB
 * more), not float copies of its operands: before, 768 KiB of widened A and
 * B and 768 KiB of float Y stayed in the arena until the run ended */
static void test_memory(void) {
  int64_t da[3] = {12, 128, 64}, db[3] = {12, 64, 128};
  ox_value *in[2] = {random_small(OX_FLOAT16, 3, da, 1), random_small(OX_FLOAT16, 3, db, 1)}, *y = NULL;
  for (int th = 1; th <= 2; th++) {
    ox_set_threads(th);
    size_t before = ox_memory_in_use();
    CHECK_EQ_I(kit_run("", "MatMul", 13, 0, NULL, 2, in, 1, &y), 0);
    size_t held = ox_memory_in_use() - before, ybytes = (size_t)12 * 128 * 128 * 2;
    if (held > ybytes + (1u << 18))
      fprintf(stderr, "float16 MatMul (12, 128, 64) x (12, 64, 128), %d threads: %zu bytes held, output %zu\n", th,
              held, ybytes);
    CHECK(held <= ybytes + (1u << 18));
  }
  ox_set_threads(1);
}

int main(void) {
  A = ox_arena_new();
  test_products();
  test_memory();
  ox_arena_free(A);
  return check_done("matmul_f16");
}
