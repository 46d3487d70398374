/* core/fuse.c: running an epilogue (core/fuse.h) over a row of its head's
 * output. */
#include "fuse.h"
#include "half.h"
#include "kernel.h"

/* ---- one pass: the common groups without a call per step ----
 * A Conv's followers are mostly constants applied in place (Batch-
 * Normalization, a Mul and an Add per channel, Relu, Clip) and Paddle's
 * HardSwish, x * Clip(x + 3, 0, 6) / 6 as Add, Clip, Mul, Div (PP-LCNet's
 * then a scalar Mul and Add: any sequence of the two kinds). Run step by
 * step, each costs a call and a pass over the chunk, more than its one
 * operation per element on the short rows of the 1x1 Convs; here the steps
 * are applied per block of the row in one function, HardSwish's four in one
 * loop, each element by the steps' own expressions in their order (core/
 * fuse.h, OX_EPI_F_*; no multiply-add fused: built with the row kernels'
 * flags), so the bits are those of the steps run one by one. */

/* s applies to register 0 in place, its other input (if any) a constant */
static int in_place(const ox_epi_step *s) {
  if (s->dst != 0 || s->in[0].kind > OX_EPI_CHANNEL || (s->nin > 1 && s->in[1].kind > OX_EPI_CHANNEL)) return 0;
  switch (s->form) {
  case OX_EPI_F_RELU: case OX_EPI_F_CLIP: case OX_EPI_F_AFFINE:
    return s->nin == 1 && s->in[0].kind == OX_EPI_REG && s->in[0].reg == 0;
  case OX_EPI_F_ADD: case OX_EPI_F_SUB: case OX_EPI_F_MUL: case OX_EPI_F_DIV:
    return s->nin == 2 && (s->in[0].kind == OX_EPI_REG) + (s->in[1].kind == OX_EPI_REG) == 1 &&
           s->in[s->in[0].kind != OX_EPI_REG].reg == 0;
  default:
    return 0;
  }
}

static int reg_is(const ox_epi_in *in, int r) { return in->kind == OX_EPI_REG && in->reg == r; }

/* s[0..3]: t = Add(x, c) into a scratch register r, Clip(t) into r, Mul(x,
 * r) into 0, Div(that, d) into 0 (x: register 0; c, d: scalars) */
static int is_hswish(const ox_epi_step *s) {
  int r = s[0].dst;
  return r != 0 && s[0].form == OX_EPI_F_ADD && s[0].nin == 2 && reg_is(&s[0].in[0], 0) &&
         s[0].in[1].kind == OX_EPI_SCALAR && s[1].form == OX_EPI_F_CLIP && s[1].nin == 1 &&
         reg_is(&s[1].in[0], r) && s[1].dst == r && s[2].form == OX_EPI_F_MUL && s[2].nin == 2 &&
         reg_is(&s[2].in[0], 0) && reg_is(&s[2].in[1], r) && s[2].dst == 0 && s[3].form == OX_EPI_F_DIV &&
         s[3].nin == 2 && reg_is(&s[3].in[0], 0) && s[3].in[1].kind == OX_EPI_SCALAR && s[3].dst == 0;
}

static void plan_onepass(ox_epi_bound *b) {
  const ox_epi *e = b->e;
  b->onepass = 0, b->nop = 0;
  if (e->dt != OX_FLOAT || e->bycol) return;
  for (int i = 0; i < e->nstep;) {
    if (in_place(&e->step[i])) {
      b->op[b->nop++] = i++;
    } else if (i + 4 <= e->nstep && is_hswish(&e->step[i])) {
      b->op[b->nop++] = -1 - i; /* the four from step i */
      i += 4;
    } else {
      return;
    }
  }
  b->onepass = 1;
}

#define BLOCK 256 /* elements per block: in L1 across the steps */

/* x = op(x, k) in place, or op(k, x) when kfirst (EXPR of a and c: the operands in order) */
#define LIN_BIN(EXPR)                                                                   \
  if (kfirst) for (int64_t l = 0; l < m; l++) { float a = k, c = x[l]; x[l] = EXPR; }   \
  else for (int64_t l = 0; l < m; l++) { float a = x[l], c = k; x[l] = EXPR; }          \
  break;
#define ONEPASS_FN(SUF, TARGET)                                                         \
  TARGET static void onepass_##SUF(const ox_epi_bound *b, float *row, int64_t n, int64_t ch, const float *bias) { \
    const ox_epi_step *st = b->e->step;                                                 \
    for (int64_t j = 0; j < n; j += BLOCK) {                                            \
      int64_t m = n - j < BLOCK ? n - j : BLOCK;                                        \
      float *x = row + j;                                                               \
      if (bias) {                                                                       \
        float bv = *bias;                                                               \
        for (int64_t l = 0; l < m; l++) x[l] = x[l] + bv;                               \
      }                                                                                 \
      for (int o = 0; o < b->nop; o++) {                                                \
        if (b->op[o] < 0) { /* HardSwish: x * Clip(x + c) / d */                       \
          const ox_epi_step *s = &st[-1 - b->op[o]];                                    \
          float c = s[0].in[1].data[0], lo = s[1].lo, hi = s[1].hi, d = s[3].in[1].data[0]; \
          for (int64_t l = 0; l < m; l++) {                                             \
            float t = x[l] + c, v = t < lo ? lo : t;                                    \
            v = v > hi ? hi : v;                                                        \
            x[l] = x[l] * v / d;                                                        \
          }                                                                             \
          continue;                                                                     \
        }                                                                               \
        const ox_epi_step *s = &st[b->op[o]];                                           \
        int kfirst = s->nin > 1 && s->in[0].kind != OX_EPI_REG;                         \
        const ox_epi_in *kin = &s->in[!kfirst];                                         \
        float k = s->nin < 2 ? 0 : kin->kind == OX_EPI_SCALAR ? kin->data[0] : kin->data[ch]; \
        switch (s->form) {                                                              \
        case OX_EPI_F_ADD: LIN_BIN(a + c)                                               \
        case OX_EPI_F_SUB: LIN_BIN(a - c)                                               \
        case OX_EPI_F_MUL: LIN_BIN(a * c)                                               \
        case OX_EPI_F_DIV: LIN_BIN(a / c)                                               \
        case OX_EPI_F_RELU:                                                             \
          for (int64_t l = 0; l < m; l++) x[l] = x[l] < 0 ? 0.0f : x[l];                \
          break;                                                                        \
        case OX_EPI_F_CLIP: {                                                           \
          float lo = s->lo, hi = s->hi;                                                 \
          for (int64_t l = 0; l < m; l++) {                                             \
            float v = x[l] < lo ? lo : x[l];                                            \
            x[l] = v > hi ? hi : v;                                                     \
          }                                                                             \
        } break;                                                                        \
        default: { /* OX_EPI_F_AFFINE */                                                \
          double ak = s->k[ch], sk = s->sh[ch];                                         \
          for (int64_t l = 0; l < m; l++) x[l] = (float)(x[l] * ak + sk);               \
        } break;                                                                        \
        }                                                                               \
      }                                                                                 \
    }                                                                                   \
  }
OX_BY_WIDTHS(ONEPASS_FN)

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
  plan_onepass(b);
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
  if (b->onepass) {
    OX_AT_WIDTH(onepass, b, row, n, ch, NULL);
    return;
  }
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

#define ADD_FN(SUF, TARGET)                                                             \
  TARGET static void add_row_##SUF(float *x, int64_t n, float bv) {                     \
    for (int64_t l = 0; l < n; l++) x[l] = x[l] + bv;                                   \
  }
OX_BY_WIDTHS(ADD_FN)

void ox_epi_rows_bias(const ox_epi_bound *b, float *row, int64_t n, int64_t img, int64_t ch, int64_t pos0,
                      float bias) {
  if (b->onepass) { /* the add in the same pass */
    OX_AT_WIDTH(onepass, b, row, n, ch, &bias);
    return;
  }
  OX_AT_WIDTH(add_row, row, n, bias);
  ox_epi_rows(b, row, n, img, ch, pos0);
}
