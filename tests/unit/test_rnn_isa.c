/* tests/unit/test_rnn_isa.c: the recurrent product's own kernels
 * (ops/rnn.c, for the GEMM's AVX2 and AVX-512 plans) give each element the
 * operations of the GEMM's packed product: a float RNN, GRU or LSTM has the
 * same bytes with the AVX2 plan and with the AVX-512 one (both fuse the
 * multiply-adds, in the same order, in the input product too), at batch
 * sizes of 1, 2, 3, 5, 7 and 9 (one row, the two-sliver paths, a sliver of
 * 4 rows, whole slivers of 6 and 8 rows and one more), hidden sizes with a
 * partial last column sliver and one past the GEMM's K block of 256; and
 * the portable plan (no fused multiply-add) stays within float rounding of
 * them. Skipped where the CPU lacks AVX-512. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIT_IN_NAMES {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"}
#define KIT_OUT_NAMES {"Y", "Y_h", "Y_c"}
#include "kit.h"
#include "core/cpu.h"
#include "core/gemm.h"

static unsigned rng = 4242;
static float rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static ox_value *ftensor(int rank, const int64_t *dims, const float *vals) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, OX_FLOAT, rank, dims, &v, &E)) return NULL;
  memcpy(v->u.t.data, vals, (size_t)v->u.t.n * sizeof(float));
  return v;
}

/* Run op with the GEMM capped at `isa`; out[] receives the outputs. */
static int run_at(int isa, const char *op, int H, int bidi, int lbr, ox_value **in, int nin, ox_value **out) {
  ox_attr at[3] = {attr_int("hidden_size", H), attr_str("direction", bidi ? "bidirectional" : "forward"),
                   attr_int("linear_before_reset", lbr)};
  ox_gemm_max_isa(isa);
  int rc = kit_run("", op, 14, !strcmp(op, "GRU") ? 3 : 2, at, nin, in, !strcmp(op, "LSTM") ? 3 : 2, out);
  ox_gemm_max_isa(-1);
  return rc;
}

static void one(const char *op, int N, int H, int bidi, int lbr) {
  enum { S = 5, I = 13 }; /* S * N > 4: the input product is never a thin one (core/gemv.h) */
  int G = !strcmp(op, "RNN") ? 1 : !strcmp(op, "GRU") ? 3 : 4, D = bidi + 1, lstm = G == 4;
  int64_t nx = (int64_t)S * N * I, nw = (int64_t)D * G * H * I, nr = (int64_t)D * G * H * H;
  int64_t nb = (int64_t)D * 2 * G * H, ns = (int64_t)D * N * H;
  float *v = malloc(sizeof(float) * (size_t)(nx + nw + nr + nb + 2 * ns));
  for (int64_t i = 0; i < nx + nw + nr + nb + 2 * ns; i++) v[i] = rnd();
  float *x = v, *w = x + nx, *r = w + nw, *b = r + nr, *h0 = b + nb, *c0 = h0 + ns;
  for (int64_t i = 0; i < nw + nr; i++) w[i] *= 0.3f; /* weights as trained nets have them */
  ox_value *in[7] = {ftensor(3, (int64_t[]){S, N, I}, x), ftensor(3, (int64_t[]){D, G * H, I}, w),
                     ftensor(3, (int64_t[]){D, G * H, H}, r), ftensor(2, (int64_t[]){D, 2 * G * H}, b), NULL,
                     ftensor(3, (int64_t[]){D, N, H}, h0), ftensor(3, (int64_t[]){D, N, H}, c0)};
  int nin = lstm ? 7 : 6, nout = lstm ? 3 : 2;
  ox_value *o512[3] = {0}, *o2[3] = {0}, *og[3] = {0};
  CHECK_EQ_I(run_at(OX_CPU_AVX512, op, H, bidi, lbr, in, nin, o512), 0);
  CHECK_EQ_I(run_at(OX_CPU_AVX2, op, H, bidi, lbr, in, nin, o2), 0);
  CHECK_EQ_I(run_at(OX_CPU_GENERIC, op, H, bidi, lbr, in, nin, og), 0);
  int64_t diff = 0, far = 0;
  for (int k = 0; k < nout && o512[k] && o2[k] && og[k]; k++) {
    const float *a = o512[k]->u.t.data, *c = o2[k]->u.t.data, *g = og[k]->u.t.data;
    for (int64_t i = 0; i < o512[k]->u.t.n; i++) {
      diff += memcmp(&a[i], &c[i], sizeof(float)) != 0;
      far += !(fabsf(a[i] - g[i]) <= 1e-5f * (1 + fabsf(a[i])));
    }
  }
  if (diff || far)
    fprintf(stderr, "%s%s N=%d H=%d %s: %lld elements differ between AVX2 and AVX-512, %lld far from the portable plan\n",
            op, lbr ? " (linear_before_reset)" : "", N, H, bidi ? "bidirectional" : "forward", (long long)diff,
            (long long)far);
  CHECK_EQ_I(diff, 0);
  CHECK_EQ_I(far, 0);
  free(v);
}

int main(void) {
  A = ox_arena_new();
  if (ox_cpu_level() < OX_CPU_AVX512) {
    printf("rnn_isa: skipped (no AVX-512 on this CPU)\n");
    ox_arena_free(A);
    return 0;
  }
  static const int batches[] = {1, 2, 3, 5, 7, 9};
  for (int i = 0; i < 6; i++) {
    one("LSTM", batches[i], 37, 1, 0);
    one("GRU", batches[i], 29, 0, 0);
    one("GRU", batches[i], 29, 1, 1);
    one("RNN", batches[i], 53, 1, 0);
  }
  one("LSTM", 2, 260, 0, 0); /* K past one block of 256 */
  one("GRU", 3, 300, 1, 0);
  ox_arena_free(A);
  return check_done("rnn_isa");
}
