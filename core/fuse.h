/* core/fuse.h: elementwise followers computed by the node before them, per
 * tile of its output while the tile is in cache ("epilogues").
 *
 * When the model is prepared (core/eval.c, fuse_pass), a Conv whose output
 * feeds elementwise nodes (Relu, Clip, Add of a constant or of a residual,
 * BatchNormalization in inference, HardSwish written as Add/Clip/Div/Mul, ...)
 * is given those nodes as an ox_epi: a list of steps, each one follower's own
 * row function (the very code its kernel runs: ops/unary.c, ops/binary.c,
 * ops/norm.c), so that fused or not, every element gets the same bits. The
 * followers are then not run; their values that only the group reads are
 * never made, and the group's last value is the head's output.
 *
 * Steps work on registers, rows of the tile: register 0 is the head's output
 * row itself, the others rows of scratch. An input of a step is a register,
 * or a constant (one value, or one per output channel), or a value of the
 * output's shape computed before the head runs (a residual), bound when it
 * runs (ox_epi_bound). */
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

enum { OX_EPI_REG, OX_EPI_SCALAR, OX_EPI_CHANNEL, OX_EPI_FULL };

typedef struct {
  int kind;          /* OX_EPI_REG, _SCALAR, _CHANNEL or _FULL */
  int reg;           /* REG: the register */
  const float *data; /* SCALAR: the value; CHANNEL: one per output channel */
  const char *name;  /* FULL: the value's name, bound when the head runs */
} ox_epi_in;

typedef struct ox_epi_step {
  ox_epi_row_fn fn;
  const void *arg; /* the follower's parameters */
  int nin;         /* 1 or 2 */
  ox_epi_in in[2];
  int dst;          /* the register written */
  const ox_node *node; /* the follower */
} ox_epi_step;

typedef struct ox_epi {
  int nstep, nreg;
  ox_epi_step step[OX_EPI_MAXSTEP];
  const char *final; /* the name of the value the last step makes */
} ox_epi;

/* An ox_epi as one run of its head binds it: the FULL inputs' tensors.
 * The head's kernel calls ox_epi_check with its output, then ox_epi_rows on
 * each finished run of it, and sets done. */
typedef struct ox_epi_bound {
  const ox_epi *e;
  const ox_tensor *full[OX_EPI_MAXSTEP][2];
  int64_t M, P; /* the output's channels and positions per channel: (N, M, P) */
  int done;
} ox_epi_bound;

/* 1 when b's steps apply to y (float32, rank >= 2, every FULL input a
 * float32 tensor of y's shape); then sets b->M, b->P. */
int ox_epi_check(ox_epi_bound *b, const ox_tensor *y);

/* The steps over y's elements [pos0, pos0 + n) of channel ch of image img,
 * y = the head's output data; row = y + (img * M + ch) * P + pos0. */
void ox_epi_rows(const ox_epi_bound *b, float *row, int64_t n, int64_t img, int64_t ch, int64_t pos0);

/* The families' epilogue hooks (ox_family.epi, core/registry.h; listed in
 * ops/families.c): a step for node c->node (its attributes in c->state, its
 * constant inputs through ox_const_input; inputs that the group makes are
 * not constant), M the head's output channels: the step's count of data
 * inputs (1 or 2; s->fn, s->arg set) when the family takes the node as a
 * float32 step, else 0. */
struct ox_ctx;
int ox_unary_epi(struct ox_ctx *c, int64_t M, ox_epi_step *s);
int ox_binary_epi(struct ox_ctx *c, int64_t M, ox_epi_step *s);
int ox_batchnorm_epi(struct ox_ctx *c, int64_t M, ox_epi_step *s);

#endif
