/* core/fuse.h: elementwise followers computed by the node before them, per
 * tile of its output while the tile is in cache ("epilogues").
 *
 * When the model is prepared (core/eval.c, fuse_pass), a Conv whose output
 * feeds elementwise nodes (Relu, Clip, Add of a constant or of a residual,
 * BatchNormalization in inference, HardSwish written as Add/Clip/Div/Mul, ...)
 * -- or a float MatMul by a constant B (K, N) whose output feeds such nodes
 * (the exporters' MatMul then Add of a bias of N values, a residual, an
 * activation) -- is given those nodes as an ox_epi: a list of steps, each
 * one follower's own row function (the very code its kernel runs: ops/
 * unary.c, ops/binary.c, ops/norm.c), so that fused or not, every element
 * gets the same bits. The followers are then not run; their values that
 * only the group reads are never made, and the group's last value is the
 * head's output.
 *
 * Steps work on registers, rows of the tile: register 0 is the head's output
 * row itself, the others rows of scratch. An input of a step is a register,
 * or a constant (one value, or one per output channel of a Conv, or one per
 * column of a MatMul), or a value of the output's shape computed before the
 * head runs (a residual), bound when it runs (ox_epi_bound).
 *
 * A Conv's output (N, M, P...) is seen as N images of M channels of P
 * positions; a MatMul's (..., R, N) as one image of rows (every batch's R
 * rows stacked) of N positions, the columns (e->bycol): a row's "channel" is
 * then its row index, and its per-column constants (OX_EPI_COL) are read at
 * the positions. The steps of a MatMul take no per-channel parameters (its
 * followers' hooks are asked with M = 0, and BatchNormalization refuses).
 *
 * A float16 MatMul by a constant float16 B (its followers float16 too) runs
 * the same float32 steps with the rounding of its unfused followers, which
 * widen their float16 inputs, compute in float and narrow once (ops/
 * binary.c, ops/unary.c): the head's float row is rounded to float16 before
 * the first step and each step's result after it (e->dt), its float16
 * residuals widened as they are read, its constants widened when the group
 * is made; the head narrows the last value, already a float16's, so the
 * bytes are those of the unfused nodes. */
#ifndef OX_FUSE_H
#define OX_FUSE_H

#include <stdint.h>

#include "graph.h"
#include "value.h"

#define OX_EPI_MAXSTEP 16
#define OX_EPI_MAXREG 4

/* z[i] = f(a[i * sa], b[i * sb]) for i < n (sa, sb: 1 or 0, a value held
 * for the row; b unused by one-input steps); ch: the output channel (for
 * per-channel parameters). z may be a or b. */
typedef void (*ox_epi_row_fn)(const void *arg, const float *a, int64_t sa, const float *b, int64_t sb, float *z,
                              int64_t n, int64_t ch);

enum { OX_EPI_REG, OX_EPI_SCALAR, OX_EPI_CHANNEL, OX_EPI_COL, OX_EPI_FULL };

typedef struct {
  int kind;          /* OX_EPI_REG, _SCALAR, _CHANNEL, _COL or _FULL */
  int reg;           /* REG: the register */
  const float *data; /* SCALAR: the value; CHANNEL: one per output channel;
                        COL: one per output column (a MatMul's last axis) */
  const char *name;  /* FULL: the value's name, bound when the head runs */
} ox_epi_in;

/* What a step's fn computes, when it is one of the forms core/fuse.c runs
 * in one pass over a row (the same per-element expressions as the fn: the
 * same bits); OX_EPI_F_NONE: only fn knows. */
enum {
  OX_EPI_F_NONE,
  OX_EPI_F_ADD, OX_EPI_F_SUB, OX_EPI_F_MUL, OX_EPI_F_DIV, /* a op b, in float */
  OX_EPI_F_RELU,   /* a < 0 ? 0 : a */
  OX_EPI_F_CLIP,   /* (a < lo ? lo : a) > hi ? hi : (a < lo ? lo : a) */
  OX_EPI_F_AFFINE, /* (float)(a * k[ch] + sh[ch]), in double */
};

typedef struct ox_epi_step {
  ox_epi_row_fn fn;
  const void *arg; /* the follower's parameters */
  int form;        /* OX_EPI_F_*: fn's computation, or OX_EPI_F_NONE */
  float lo, hi;    /* CLIP: the bounds */
  const double *k, *sh; /* AFFINE: one of each per output channel */
  int nin;         /* 1 or 2 */
  ox_epi_in in[2];
  int dst;          /* the register written */
  const ox_node *node; /* the follower */
} ox_epi_step;

typedef struct ox_epi {
  int nstep, nreg;
  ox_epi_step step[OX_EPI_MAXSTEP];
  const char *final; /* the name of the value the last step makes */
  int bycol;         /* the head is a MatMul: its output seen as rows of columns */
  int rank;          /* the least output rank the steps' constants broadcast
                        into without adding axes (a MatMul's is known only
                        when it runs) */
  ox_dtype dt;       /* the head's output and the FULL inputs: OX_FLOAT, or
                        OX_FLOAT16 (a MatMul's: each step rounded to it) */
} ox_epi;

/* An ox_epi as one run of its head binds it: the FULL inputs' tensors.
 * The head's kernel calls ox_epi_check with its output, then ox_epi_rows on
 * each finished run of it, and sets done. */
typedef struct ox_epi_bound {
  const ox_epi *e;
  const ox_tensor *full[OX_EPI_MAXSTEP][2];
  int64_t M, P; /* the output's channels and positions per channel: (N, M, P);
                   a MatMul's: (1, rows, columns) */
  int onepass; /* set by ox_epi_check: every step is of a form core/fuse.c
                  runs in one pass: op[0..nop) in order, op[k] >= 0 a step in
                  place on register 0 (its other input a constant), < 0 the
                  four steps from -1 - op[k] of x * Clip(x + c) / d (Paddle's
                  HardSwish as Add, Clip, Mul, Div) */
  int nop;
  int op[OX_EPI_MAXSTEP];
  int done;
} ox_epi_bound;

/* 1 when b's steps apply to y (of type e->dt, rank >= 2 and >= e->rank,
 * every FULL input a tensor of that type and y's shape); then sets b->M,
 * b->P. */
int ox_epi_check(ox_epi_bound *b, const ox_tensor *y);

/* The steps over y's elements [pos0, pos0 + n) of channel ch of image img,
 * y = the head's output data; row = y + (img * M + ch) * P + pos0. For a
 * MatMul: img 0, ch the row, pos0 the first column. A float16 group's row
 * is the head's float result (its row of a float buffer the shape of y),
 * left holding float16 values as floats, for the head to narrow. */
void ox_epi_rows(const ox_epi_bound *b, float *row, int64_t n, int64_t img, int64_t ch, int64_t pos0);

/* ox_epi_rows on row + bias: each element first x + bias (the packed
 * GEMM's y = acc, then y + bias, one rounding), then the steps: a Conv's
 * bias added here instead of filled into Y before its product. */
void ox_epi_rows_bias(const ox_epi_bound *b, float *row, int64_t n, int64_t img, int64_t ch, int64_t pos0,
                      float bias);

/* The families' epilogue hooks (ox_family.epi, core/registry.h; listed in
 * ops/families.c): a step for node c->node (its attributes in c->state, its
 * constant inputs through ox_const_input; inputs that the group makes are
 * not constant), M the head's output channels: the step's count of data
 * inputs (1 or 2; s->fn, s->arg set) when the family takes the node as a
 * float32 step, else 0. M is 0 for a MatMul head (no channels: a step that
 * needs per-channel parameters refuses). */
struct ox_ctx;
int ox_unary_epi(struct ox_ctx *c, int64_t M, ox_epi_step *s);
int ox_binary_epi(struct ox_ctx *c, int64_t M, ox_epi_step *s);
int ox_batchnorm_epi(struct ox_ctx *c, int64_t M, ox_epi_step *s);

#endif
