/* core/fuse.c: running an epilogue (core/fuse.h) over a row of its head's
 * output. */
#include "fuse.h"
#include "half.h"

int ox_epi_check(ox_epi_bound *b, const ox_tensor *y) {
  if (!b || !b->e || y->dt != b->e->dt || y->rank < 2 || y->rank < b->e->rank) return 0;
  for (int i = 0; i < b->e->nstep; i++)
    for (int k = 0; k < b->e->step[i].nin; k++) {
      if (b->e->step[i].in[k].kind != OX_EPI_FULL) continue;
      const ox_tensor *t = b->full[i][k];
      if (!t || t->dt != b->e->dt || t->rank != y->rank || t->n != y->n || !t->data) return 0;
      for (int d = 0; d < y->rank; d++)
        if (t->dims[d] != y->dims[d]) return 0;
    }
  if (b->e->bycol) { /* (..., R, N): rows of N columns */
    b->P = y->dims[y->rank - 1];
    b->M = b->P ? y->n / b->P : 0;
    return 1;
  }
  b->M = y->dims[1];
  b->P = b->M && y->dims[0] ? y->n / y->dims[0] / b->M : 0;
  return 1;
}

#define CHUNK 512 /* columns per pass: the scratch registers stay in L1 */

void ox_epi_rows(const ox_epi_bound *b, float *row, int64_t n, int64_t img, int64_t ch, int64_t pos0) {
  const ox_epi *e = b->e;
  int half = e->dt == OX_FLOAT16;
  float tmp[OX_EPI_MAXREG - 1][CHUNK], full[2][CHUNK];
  int64_t base = (img * b->M + ch) * b->P + pos0; /* of a FULL input */
  /* steps on the output row alone: the whole row in one pass (each element
   * is computed alike in any split); float16 residuals widened by chunks */
  int64_t chunk = e->nreg > 1 || half ? CHUNK : n;
  if (half) ox_f32_round_f16_n(row, n); /* the head's output as its readers see it */
  for (int64_t j = 0; j < n; j += chunk) {
    int64_t m = n - j < chunk ? n - j : chunk;
    float *reg[OX_EPI_MAXREG] = {row + j};
    for (int r = 1; r < OX_EPI_MAXREG; r++) reg[r] = tmp[r - 1];
    for (int i = 0; i < e->nstep; i++) {
      const ox_epi_step *s = &e->step[i];
      const float *src[2] = {0};
      int64_t st[2] = {0, 0};
      for (int k = 0; k < s->nin; k++) {
        const ox_epi_in *in = &s->in[k];
        switch (in->kind) {
        case OX_EPI_REG: src[k] = reg[in->reg], st[k] = 1; break;
        case OX_EPI_SCALAR: src[k] = in->data; break;
        case OX_EPI_CHANNEL: src[k] = in->data + ch; break;
        case OX_EPI_COL: src[k] = in->data + pos0 + j, st[k] = 1; break;
        default:
          if (half) {
            ox_f16_to_f32_n((const uint16_t *)b->full[i][k]->data + base + j, full[k], m);
            src[k] = full[k];
          } else {
            src[k] = (const float *)b->full[i][k]->data + base + j;
          }
          st[k] = 1;
          break;
        }
      }
      s->fn(s->arg, src[0], st[0], src[1], st[1], reg[s->dst], m, ch);
      if (half) ox_f32_round_f16_n(reg[s->dst], m); /* the follower's float16 result */
    }
  }
}
