/* tests/unit/test_ops_seq.c: the sequence, optional, Identity and Constant
 * kernels, called directly through the registry with a hand-made node. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kit.h"

/* ---- building values ---- */

#define F32(rank, dims, ...) tensor(OX_FLOAT, rank, (int64_t[])dims, (float[])__VA_ARGS__)
#define DIMS(...) {__VA_ARGS__}

static ox_value *i64(int64_t x) { return tensor(OX_INT64, 0, NULL, &x); }
static ox_value *i32(int32_t x) { return tensor(OX_INT32, 0, NULL, &x); }

/* A sequence of n tensors of type dt. */
static ox_value *seq(ox_dtype dt, int n, ox_value **els) {
  ox_value *s = NULL;
  ox_seq_new(A, ox_type_tensor(dt), n, &s, &E);
  for (int i = 0; i < n; i++) s->u.seq.v[i] = els[i];
  return s;
}

/* Three float tensors of shape (2,): {0, 1}, {10, 11}, {20, 21}. */
static ox_value *seq3(void) {
  ox_value *els[3];
  for (int i = 0; i < 3; i++) els[i] = F32(1, DIMS(2), {10.0f * i, 10.0f * i + 1});
  return seq(OX_FLOAT, 3, els);
}

#define IS_F32(v, rank, dims, ...) same_bytes(v, OX_FLOAT, rank, (int64_t[])dims, (float[])__VA_ARGS__)

/* ---- attributes ---- */

/* ---- running one node ---- */

static int run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in,
               ox_value **out) {
  return kit_run("", op, opset, nattr, attr, nin, in, 1, out);
}

/* Expect a failure whose message contains `part`. */

/* ---- the registry tables ---- */

/* Every op's rows are ordered, non-overlapping and leave no gaps. */
static void test_tables(void) {
  extern const ox_kernel ox_sequence_kernels[], ox_optional_kernels[], ox_shape_kernels[];
  const ox_kernel *tables[] = {ox_sequence_kernels, ox_optional_kernels, ox_shape_kernels};
  for (int t = 0; t < 3; t++) check_rows(tables[t], NULL, 0);
  CHECK_EQ_I(ox_registry_find("", "SplitToSequence", 23)->since, 11);
  CHECK_EQ_I(ox_registry_find("", "SplitToSequence", 24)->since, 24);
  CHECK(ox_registry_find("", "SequenceAt", 10) == NULL);
  CHECK(ox_registry_find("", "Optional", 14) == NULL);
  CHECK_EQ_I(ox_registry_find("", "Identity", 15)->since, 14);
  CHECK_EQ_I(ox_registry_find("", "Constant", 8)->since, 1);
  CHECK_EQ_I(ox_registry_find("", "Constant", 20)->since, 19);
}

/* ---- sequence ops ---- */

static void test_sequence_at(void) {
  ox_value *s = seq3(), *y;
  CHECK_EQ_I(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, i64(-1)}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {20, 21}));
  CHECK(y->u.t.data == s->u.seq.v[2]->u.t.data); /* shared, not copied */
  CHECK_EQ_I(run("SequenceAt", 18, 0, NULL, 2, (ox_value *[]){s, i64(1)}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {10, 11}));
  CHECK_EQ_I(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, i32(-3)}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {0, 1}));

  CHECK_EQ_I(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, i64(3)}, &y), OX_EINPUT);
  CHECK_EQ_S(E.msg, "position 3 is out of range [-3, 2] for a sequence of 3 tensors");
  CHECK_FAILS(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, i64(-4)}, &y),
              "position -4 is out of range [-3, 2]");
  ox_value *pos2 = tensor(OX_INT64, 1, (int64_t[]){2}, (int64_t[]){0, 1});
  CHECK_EQ_I(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, pos2}, &y), OX_EINPUT);
  CHECK_EQ_S(E.msg, "input 1 'x1' (the position) must be a scalar; it has shape (2,)");
  ox_value *pos11 = tensor(OX_INT64, 2, (int64_t[]){1, 1}, (int64_t[]){0});
  CHECK_FAILS(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, pos11}, &y),
              "must be a scalar; it has shape (1, 1)");
  /* shape (1,) is taken, as ONNX's test_sequence_insert_at_front needs */
  ox_value *pos1 = tensor(OX_INT64, 1, (int64_t[]){1}, (int64_t[]){-2});
  CHECK_EQ_I(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, pos1}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {10, 11}));
  ox_value *posf = F32(0, DIMS(0), {0});
  CHECK_FAILS(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){s, posf}, &y),
              "(the position) is float; it must be int32 or int64");
  CHECK_FAILS(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){seq(OX_FLOAT, 0, NULL), i64(0)}, &y),
              "position 0 is out of range: the sequence is empty");
  CHECK_FAILS(run("SequenceAt", 11, 0, NULL, 2, (ox_value *[]){posf, i64(0)}, &y),
              "input 0 'x0' is tensor(float); expected a sequence of tensors");
}

static void test_construct_empty_length(void) {
  ox_value *a = F32(1, DIMS(2), {1, 2}), *b = F32(0, DIMS(0), {3}), *y;
  CHECK_EQ_I(run("SequenceConstruct", 11, 0, NULL, 2, (ox_value *[]){a, b}, &y), 0);
  CHECK(y->kind == OX_SEQUENCE && y->u.seq.n == 2 && y->type->inner->elem == OX_FLOAT);
  CHECK(y->u.seq.v[0] == a && y->u.seq.v[1] == b);
  CHECK_FAILS(run("SequenceConstruct", 11, 0, NULL, 2, (ox_value *[]){a, i64(1)}, &y),
              "input 1 'x1' is int64 but input 0 is float; they must have the same type");

  CHECK_EQ_I(run("SequenceEmpty", 11, 0, NULL, 0, NULL, &y), 0);
  CHECK(y->kind == OX_SEQUENCE && y->u.seq.n == 0 && y->type->inner->elem == OX_FLOAT);
  ox_attr dt = attr_int("dtype", OX_INT64);
  CHECK_EQ_I(run("SequenceEmpty", 11, 1, &dt, 0, NULL, &y), 0);
  CHECK(y->u.seq.n == 0 && y->type->inner->elem == OX_INT64);
  dt.i = OX_BFLOAT16;
  CHECK_FAILS(run("SequenceEmpty", 11, 1, &dt, 0, NULL, &y), "dtype = 16 (bfloat16) is not allowed");
  dt.i = 99;
  CHECK_FAILS(run("SequenceEmpty", 11, 1, &dt, 0, NULL, &y), "dtype = 99 is not a data type");

  CHECK_EQ_I(run("SequenceLength", 11, 0, NULL, 1, (ox_value *[]){seq3()}, &y), 0);
  CHECK(y->u.t.dt == OX_INT64 && y->u.t.rank == 0 && *(int64_t *)y->u.t.data == 3);
}

static void test_insert_erase(void) {
  ox_value *s = seq3(), *x = F32(1, DIMS(1), {7}), *y;
  /* at the back (no position), at the front, at n, at -n */
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 2, (ox_value *[]){s, x}, &y), 0);
  CHECK(y->u.seq.n == 4 && y->u.seq.v[3] == x && y->u.seq.v[0] == s->u.seq.v[0]);
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){s, x, i64(0)}, &y), 0);
  CHECK(y->u.seq.n == 4 && y->u.seq.v[0] == x && y->u.seq.v[3] == s->u.seq.v[2]);
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){s, x, i64(3)}, &y), 0);
  CHECK(y->u.seq.v[3] == x);
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){s, x, i32(-3)}, &y), 0);
  CHECK(y->u.seq.v[0] == x && y->u.seq.v[1] == s->u.seq.v[0]);
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){s, x, i64(-1)}, &y), 0);
  CHECK(y->u.seq.v[2] == x && y->u.seq.v[3] == s->u.seq.v[2]);
  CHECK_EQ_I(s->u.seq.n, 3); /* the input is unchanged */
  CHECK_FAILS(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){s, x, i64(4)}, &y),
              "position 4 is out of range [-3, 3] for a sequence of 3 tensors");
  CHECK_FAILS(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){s, x, i64(-4)}, &y),
              "position -4 is out of range [-3, 3]");
  CHECK_FAILS(run("SequenceInsert", 11, 0, NULL, 2, (ox_value *[]){s, i64(1)}, &y),
              "input 1 'x1' is tensor(int64); the sequence holds float tensors");
  /* into an empty sequence */
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){seq(OX_FLOAT, 0, NULL), x, i64(0)}, &y), 0);
  CHECK(y->u.seq.n == 1 && y->u.seq.v[0] == x);

  /* erase: the last (default), the first, -n, and out of range */
  CHECK_EQ_I(run("SequenceErase", 11, 0, NULL, 1, (ox_value *[]){s}, &y), 0);
  CHECK(y->u.seq.n == 2 && y->u.seq.v[1] == s->u.seq.v[1]);
  CHECK_EQ_I(run("SequenceErase", 11, 0, NULL, 2, (ox_value *[]){s, i64(0)}, &y), 0);
  CHECK(y->u.seq.n == 2 && y->u.seq.v[0] == s->u.seq.v[1] && y->u.seq.v[1] == s->u.seq.v[2]);
  CHECK_EQ_I(run("SequenceErase", 11, 0, NULL, 2, (ox_value *[]){s, i64(-3)}, &y), 0);
  CHECK(y->u.seq.n == 2 && y->u.seq.v[0] == s->u.seq.v[1]);
  CHECK_EQ_I(run("SequenceErase", 11, 0, NULL, 2, (ox_value *[]){s, i64(2)}, &y), 0);
  CHECK(y->u.seq.n == 2 && y->u.seq.v[1] == s->u.seq.v[1]);
  CHECK_FAILS(run("SequenceErase", 11, 0, NULL, 2, (ox_value *[]){s, i64(3)}, &y),
              "position 3 is out of range [-3, 2]");
  CHECK_FAILS(run("SequenceErase", 11, 0, NULL, 2, (ox_value *[]){s, i64(-4)}, &y),
              "position -4 is out of range [-3, 2]");
  CHECK_FAILS(run("SequenceErase", 11, 0, NULL, 1, (ox_value *[]){seq(OX_INT32, 0, NULL)}, &y),
              "cannot erase from an empty sequence");
  /* erasing the only tensor leaves an empty sequence that keeps its type */
  ox_value *one = seq(OX_INT32, 1, (ox_value *[]){i32(5)});
  CHECK_EQ_I(run("SequenceErase", 11, 0, NULL, 1, (ox_value *[]){one}, &y), 0);
  CHECK(y->u.seq.n == 0 && y->type->inner->kind == OX_TENSOR && y->type->inner->elem == OX_INT32);
}

/* SequenceInsert at the back appends in place when the array has room and no
 * other value has grown it past the input: appending n times is O(n), not
 * O(n^2), and two appends to one sequence never share a slot. */
static void test_insert_in_place(void) {
  ox_value *s = seq3(), *a = F32(0, DIMS(), {1}), *b = F32(0, DIMS(), {2}), *y1, *y2, *y3, *y4;
  /* s is a plain array of 3 (no room): the first append copies it, with room */
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 2, (ox_value *[]){s, a}, &y1), 0);
  CHECK(y1->u.seq.v != s->u.seq.v && y1->u.seq.n == 4);
  /* appending to y1 (it owns the end of its array) writes in place: no copy */
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 2, (ox_value *[]){y1, b}, &y2), 0);
  CHECK(y2->u.seq.v == y1->u.seq.v && y2->u.seq.n == 5 && y2->u.seq.v[4] == b);
  CHECK_EQ_I(y1->u.seq.n, 4); /* the input is unchanged */
  CHECK(y1->u.seq.v[3] == a);
  /* y1 again, now shared (y2 grew its array past it): copied, y2 untouched */
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 2, (ox_value *[]){y1, a}, &y3), 0);
  CHECK(y3->u.seq.v != y1->u.seq.v && y3->u.seq.n == 5 && y3->u.seq.v[4] == a);
  CHECK(y2->u.seq.v[4] == b && y2->u.seq.n == 5);
  for (int i = 0; i < 4; i++) CHECK(y3->u.seq.v[i] == y1->u.seq.v[i]);
  /* an explicit position at the back is the same append; in front is a copy */
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){y2, a, i64(5)}, &y4), 0);
  CHECK(y4->u.seq.v == y2->u.seq.v && y4->u.seq.n == 6);
  CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 3, (ox_value *[]){y4, b, i64(0)}, &y1), 0);
  CHECK(y1->u.seq.v != y4->u.seq.v && y1->u.seq.v[0] == b && y1->u.seq.v[6] == a);
  /* 1000 appends: the array is copied about log2(1000) times, not 1000 */
  ox_value *t = seq(OX_FLOAT, 0, NULL);
  int copies = 0;
  for (int i = 0; i < 1000; i++) {
    ox_value *u;
    CHECK_EQ_I(run("SequenceInsert", 11, 0, NULL, 2, (ox_value *[]){t, a}, &u), 0);
    copies += u->u.seq.v != t->u.seq.v;
    t = u;
  }
  CHECK(t->u.seq.n == 1000 && copies <= 10);
}

static void test_split(void) {
  /* x: (3, 6) = arange(18) */
  float x18[18];
  for (int i = 0; i < 18; i++) x18[i] = (float)i;
  ox_value *x = tensor(OX_FLOAT, 2, (int64_t[]){3, 6}, x18), *y;

  /* scalar split 4 on axis 1: (3, 4) and an uneven last chunk (3, 2) */
  ox_attr ax1 = attr_int("axis", 1);
  CHECK_EQ_I(run("SplitToSequence", 11, 1, &ax1, 2, (ox_value *[]){x, i64(4)}, &y), 0);
  CHECK(y->kind == OX_SEQUENCE && y->u.seq.n == 2);
  CHECK(IS_F32(y->u.seq.v[0], 2, DIMS(3, 4), {0, 1, 2, 3, 6, 7, 8, 9, 12, 13, 14, 15}));
  CHECK(IS_F32(y->u.seq.v[1], 2, DIMS(3, 2), {4, 5, 10, 11, 16, 17}));

  /* 1-D split [1, 2] on axis 0 (int32), with keepdims 0 ignored */
  ox_attr k0[] = {attr_int("axis", 0), attr_int("keepdims", 0)};
  ox_value *sp = tensor(OX_INT32, 1, (int64_t[]){2}, (int32_t[]){1, 2});
  CHECK_EQ_I(run("SplitToSequence", 24, 2, k0, 2, (ox_value *[]){x, sp}, &y), 0);
  CHECK(y->u.seq.n == 2);
  CHECK(IS_F32(y->u.seq.v[0], 2, DIMS(1, 6), {0, 1, 2, 3, 4, 5}));
  CHECK(IS_F32(y->u.seq.v[1], 2, DIMS(2, 6), {6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}));

  /* no split, keepdims 0, axis -1: six columns of shape (3,) */
  ox_attr kn[] = {attr_int("axis", -1), attr_int("keepdims", 0)};
  CHECK_EQ_I(run("SplitToSequence", 11, 2, kn, 1, (ox_value *[]){x}, &y), 0);
  CHECK(y->u.seq.n == 6);
  CHECK(IS_F32(y->u.seq.v[0], 1, DIMS(3), {0, 6, 12}));
  CHECK(IS_F32(y->u.seq.v[5], 1, DIMS(3), {5, 11, 17}));

  /* no split, keepdims 1 (default), axis 0: three rows of shape (1, 6) */
  CHECK_EQ_I(run("SplitToSequence", 11, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  CHECK(y->u.seq.n == 3);
  CHECK(IS_F32(y->u.seq.v[2], 2, DIMS(1, 6), {12, 13, 14, 15, 16, 17}));

  /* an empty x: (0, 4) split in two along axis 1 gives two (0, 2) */
  ox_value *x0 = tensor(OX_FLOAT, 2, (int64_t[]){0, 4}, NULL);
  CHECK_EQ_I(run("SplitToSequence", 11, 1, &ax1, 2, (ox_value *[]){x0, i64(2)}, &y), 0);
  CHECK(y->u.seq.n == 2 && IS_F32(y->u.seq.v[1], 2, DIMS(0, 2), {0}));
  /* ... and along axis 0 (no split) an empty sequence that keeps its type */
  CHECK_EQ_I(run("SplitToSequence", 11, 0, NULL, 1, (ox_value *[]){x0}, &y), 0);
  CHECK(y->u.seq.n == 0 && y->type->inner->elem == OX_FLOAT);

  /* strings move as {ptr, len} */
  ox_str words[3] = {{"a", 1}, {"bc", 2}, {"def", 3}};
  ox_value *xs = tensor(OX_STRING, 1, (int64_t[]){3}, words);
  CHECK_EQ_I(run("SplitToSequence", 11, 0, NULL, 2, (ox_value *[]){xs, i64(2)}, &y), 0);
  CHECK(y->u.seq.n == 2 && y->type->inner->elem == OX_STRING);
  CHECK(y->u.seq.v[1]->u.t.n == 1 && !strcmp(((ox_str *)y->u.seq.v[1]->u.t.data)[0].p, "def"));

  /* errors */
  ox_value *bad = tensor(OX_INT64, 1, (int64_t[]){2}, (int64_t[]){1, 1});
  CHECK_FAILS(run("SplitToSequence", 11, 0, NULL, 2, (ox_value *[]){x, bad}, &y),
              "split lengths add up to 2; they must add up to 3, the size of axis 0");
  CHECK_FAILS(run("SplitToSequence", 11, 0, NULL, 2, (ox_value *[]){x, i64(0)}, &y),
              "split is the scalar 0; it must be positive");
  ox_attr ax2 = attr_int("axis", 2);
  CHECK_FAILS(run("SplitToSequence", 11, 1, &ax2, 1, (ox_value *[]){x}, &y),
              "axis 2 is out of range [-2, 1] for a tensor of rank 2");
  CHECK_FAILS(run("SplitToSequence", 11, 0, NULL, 1, (ox_value *[]){i64(3)}, &y),
              "cannot split a scalar");
}

static void test_concat(void) {
  ox_value *a = F32(2, DIMS(2, 3), {0, 1, 2, 3, 4, 5}), *b = F32(2, DIMS(2, 1), {6, 7}), *y;
  ox_value *ab = seq(OX_FLOAT, 2, (ox_value *[]){a, b});
  ox_attr ax[] = {attr_int("axis", 1), attr_int("new_axis", 0)};
  CHECK_EQ_I(run("ConcatFromSequence", 11, 1, ax, 1, (ox_value *[]){ab}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 4), {0, 1, 2, 6, 3, 4, 5, 7}));
  ax[0].i = -1;
  CHECK_EQ_I(run("ConcatFromSequence", 11, 2, ax, 1, (ox_value *[]){ab}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 4), {0, 1, 2, 6, 3, 4, 5, 7}));
  ax[0].i = 0;
  CHECK_FAILS(run("ConcatFromSequence", 11, 1, ax, 1, (ox_value *[]){ab}, &y),
              "tensor 1 has shape (2, 1) but tensor 0 has shape (2, 3); all dimensions but the axis must agree");
  ax[0].i = 2;
  CHECK_FAILS(run("ConcatFromSequence", 11, 1, ax, 1, (ox_value *[]){ab}, &y),
              "axis 2 is out of range [-2, 1] for tensors of rank 2");

  /* new_axis = 1 stacks: axis 0 gives (2, 2, 3); axis -1 and axis 2 give (2, 3, 2) */
  ox_value *c = F32(2, DIMS(2, 3), {10, 11, 12, 13, 14, 15});
  ox_value *ac = seq(OX_FLOAT, 2, (ox_value *[]){a, c});
  ox_attr st[] = {attr_int("axis", 0), attr_int("new_axis", 1)};
  CHECK_EQ_I(run("ConcatFromSequence", 11, 2, st, 1, (ox_value *[]){ac}, &y), 0);
  CHECK(IS_F32(y, 3, DIMS(2, 2, 3), {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}));
  st[0].i = -1;
  CHECK_EQ_I(run("ConcatFromSequence", 11, 2, st, 1, (ox_value *[]){ac}, &y), 0);
  CHECK(IS_F32(y, 3, DIMS(2, 3, 2), {0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15}));
  st[0].i = 2;
  CHECK_EQ_I(run("ConcatFromSequence", 11, 2, st, 1, (ox_value *[]){ac}, &y), 0);
  CHECK(IS_F32(y, 3, DIMS(2, 3, 2), {0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15}));
  st[0].i = 1;
  CHECK_EQ_I(run("ConcatFromSequence", 11, 2, st, 1, (ox_value *[]){ac}, &y), 0);
  CHECK(IS_F32(y, 3, DIMS(2, 2, 3), {0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15}));
  st[0].i = -4;
  CHECK_FAILS(run("ConcatFromSequence", 11, 2, st, 1, (ox_value *[]){ac}, &y),
              "axis -4 is out of range [-3, 2] for tensors of rank 2 with new_axis = 1");
  st[0].i = 0;
  CHECK_FAILS(run("ConcatFromSequence", 11, 2, st, 1, (ox_value *[]){ab}, &y),
              "with new_axis = 1 all shapes must be equal");
  /* scalars stack into a vector */
  ox_value *sc = seq(OX_INT64, 3, (ox_value *[]){i64(4), i64(5), i64(6)});
  CHECK_EQ_I(run("ConcatFromSequence", 11, 2, st, 1, (ox_value *[]){sc}, &y), 0);
  CHECK(y->u.t.rank == 1 && y->u.t.dims[0] == 3 && ((int64_t *)y->u.t.data)[2] == 6);

  /* an empty tensor takes no room */
  ox_value *e = tensor(OX_FLOAT, 2, (int64_t[]){2, 0}, NULL);
  ox_value *ea = seq(OX_FLOAT, 3, (ox_value *[]){e, a, e});
  ax[0].i = 1;
  CHECK_EQ_I(run("ConcatFromSequence", 11, 1, ax, 1, (ox_value *[]){ea}, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(2, 3), {0, 1, 2, 3, 4, 5}));

  CHECK_FAILS(run("ConcatFromSequence", 11, 0, NULL, 1, (ox_value *[]){ab}, &y),
              "the attribute 'axis' is required");
  CHECK_FAILS(run("ConcatFromSequence", 11, 1, ax, 1, (ox_value *[]){seq(OX_FLOAT, 0, NULL)}, &y),
              "cannot concatenate an empty sequence");
}

/* ---- optional ops ---- */

static void test_optional(void) {
  ox_value *x = F32(1, DIMS(2), {1, 2}), *y, *opt, *none;
  CHECK_EQ_I(run("Optional", 15, 0, NULL, 1, (ox_value *[]){x}, &opt), 0);
  CHECK(opt->kind == OX_OPTIONAL && opt->u.opt && opt->u.opt->u.t.data == x->u.t.data);
  CHECK(opt->type->inner->kind == OX_TENSOR && opt->type->inner->elem == OX_FLOAT);

  /* absent input: the type comes from the attribute */
  const ox_type *seq_i64 = ox_type_seq(A, ox_type_tensor(OX_INT64));
  ox_attr tp = {.name = "type", .type = OX_ATTR_TYPE_PROTO, .tp = seq_i64};
  CHECK_EQ_I(run("Optional", 15, 1, &tp, 1, (ox_value *[]){NULL}, &none), 0);
  CHECK(none->kind == OX_OPTIONAL && !none->u.opt && ox_type_eq(none->type->inner, seq_i64));
  CHECK_EQ_I(run("Optional", 15, 1, &tp, 0, NULL, &y), 0);
  CHECK(!y->u.opt);
  CHECK_FAILS(run("Optional", 15, 0, NULL, 0, NULL, &y), "no input and no 'type' attribute");

  /* OptionalHasElement */
  CHECK_EQ_I(run("OptionalHasElement", 15, 0, NULL, 1, (ox_value *[]){opt}, &y), 0);
  CHECK(y->u.t.dt == OX_BOOL && y->u.t.rank == 0 && *(uint8_t *)y->u.t.data == 1);
  CHECK_EQ_I(run("OptionalHasElement", 15, 0, NULL, 1, (ox_value *[]){none}, &y), 0);
  CHECK(*(uint8_t *)y->u.t.data == 0);
  CHECK_FAILS(run("OptionalHasElement", 15, 0, NULL, 1, (ox_value *[]){x}, &y),
              "input 0 'x0' is tensor(float); expected an optional (tensors and sequences are accepted from opset 18)");
  CHECK_EQ_I(run("OptionalHasElement", 18, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  CHECK(*(uint8_t *)y->u.t.data == 1);
  CHECK_EQ_I(run("OptionalHasElement", 18, 0, NULL, 1, (ox_value *[]){seq3()}, &y), 0);
  CHECK(*(uint8_t *)y->u.t.data == 1);
  CHECK_EQ_I(run("OptionalHasElement", 18, 0, NULL, 1, (ox_value *[]){NULL}, &y), 0);
  CHECK(*(uint8_t *)y->u.t.data == 0);
  CHECK_EQ_I(run("OptionalHasElement", 18, 0, NULL, 0, NULL, &y), 0);
  CHECK(*(uint8_t *)y->u.t.data == 0);
  CHECK_EQ_I(run("OptionalHasElement", 18, 0, NULL, 1, (ox_value *[]){none}, &y), 0);
  CHECK(*(uint8_t *)y->u.t.data == 0);

  /* OptionalGetElement */
  CHECK_EQ_I(run("OptionalGetElement", 15, 0, NULL, 1, (ox_value *[]){opt}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {1, 2}) && y->u.t.data == x->u.t.data);
  CHECK_EQ_I(run("OptionalGetElement", 15, 0, NULL, 1, (ox_value *[]){none}, &y), OX_EINPUT);
  CHECK_EQ_S(E.msg, "the optional input has no element");
  CHECK_FAILS(run("OptionalGetElement", 18, 0, NULL, 1, (ox_value *[]){none}, &y),
              "the optional input has no element");
  CHECK_FAILS(run("OptionalGetElement", 15, 0, NULL, 1, (ox_value *[]){x}, &y),
              "expected an optional (tensors and sequences are accepted from opset 18)");
  CHECK_EQ_I(run("OptionalGetElement", 18, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {1, 2}));
  ox_value *s = seq3();
  CHECK_EQ_I(run("OptionalGetElement", 18, 0, NULL, 1, (ox_value *[]){s}, &y), 0);
  CHECK(y->kind == OX_SEQUENCE && y->u.seq.n == 3 && y->u.seq.v[0] == s->u.seq.v[0]);
}

/* ---- Identity and Constant ---- */

static void test_identity(void) {
  ox_value *x = F32(1, DIMS(2), {1, 2}), *s = seq3(), *o, *y;
  ox_opt_new(A, ox_type_tensor(OX_FLOAT), x, &o, &E);
  CHECK_EQ_I(run("Identity", 1, 0, NULL, 1, (ox_value *[]){x}, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(2), {1, 2}) && y->u.t.data == x->u.t.data);
  CHECK_FAILS(run("Identity", 13, 0, NULL, 1, (ox_value *[]){s}, &y),
              "input 0 'x0' is seq(tensor(float)); Identity takes a tensor, a sequence (from opset 14)");
  CHECK_EQ_I(run("Identity", 14, 0, NULL, 1, (ox_value *[]){s}, &y), 0);
  CHECK(y->kind == OX_SEQUENCE && y->u.seq.n == 3 && y->u.seq.v[1] == s->u.seq.v[1]);
  CHECK_FAILS(run("Identity", 15, 0, NULL, 1, (ox_value *[]){o}, &y), "or an optional (from opset 16)");
  CHECK_EQ_I(run("Identity", 16, 0, NULL, 1, (ox_value *[]){o}, &y), 0);
  CHECK(y->kind == OX_OPTIONAL && y->u.opt == x);
  CHECK_EQ_I(run("Identity", 25, 0, NULL, 1, (ox_value *[]){o}, &y), 0);
}

static void test_constant(void) {
  ox_value *t = F32(2, DIMS(1, 2), {3, 4}), *y;
  ox_attr v = attr_tensor("value", t);
  CHECK_EQ_I(run("Constant", 1, 1, &v, 0, NULL, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(1, 2), {3, 4}));
  CHECK_EQ_I(run("Constant", 25, 1, &v, 0, NULL, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(1, 2), {3, 4}));

  /* sparse_value (densified by the loader) from opset 11 */
  ox_attr sp = {.name = "sparse_value", .type = OX_ATTR_SPARSE_TENSOR, .t = t};
  CHECK_EQ_I(run("Constant", 11, 1, &sp, 0, NULL, &y), 0);
  CHECK(IS_F32(y, 2, DIMS(1, 2), {3, 4}));
  CHECK_FAILS(run("Constant", 9, 1, &sp, 0, NULL, &y), "attribute 'sparse_value' needs opset 11 or later");

  ox_attr f = {.name = "value_float", .type = OX_ATTR_FLOAT, .f = 2.5f};
  CHECK_EQ_I(run("Constant", 12, 1, &f, 0, NULL, &y), 0);
  CHECK(IS_F32(y, 0, DIMS(0), {2.5f}));
  float fl[3] = {1, 2, 3};
  ox_attr fs = {.name = "value_floats", .type = OX_ATTR_FLOATS, .n = 3, .floats = fl};
  CHECK_EQ_I(run("Constant", 13, 1, &fs, 0, NULL, &y), 0);
  CHECK(IS_F32(y, 1, DIMS(3), {1, 2, 3}));
  ox_attr i = attr_int("value_int", -7);
  CHECK_EQ_I(run("Constant", 19, 1, &i, 0, NULL, &y), 0);
  CHECK(y->u.t.dt == OX_INT64 && y->u.t.rank == 0 && *(int64_t *)y->u.t.data == -7);
  int64_t il[2] = {5, 6};
  ox_attr is = {.name = "value_ints", .type = OX_ATTR_INTS, .n = 2, .ints = il};
  CHECK_EQ_I(run("Constant", 21, 1, &is, 0, NULL, &y), 0);
  CHECK(y->u.t.dt == OX_INT64 && y->u.t.rank == 1 && y->u.t.dims[0] == 2 &&
        ((int64_t *)y->u.t.data)[1] == 6);
  ox_attr empty = {.name = "value_ints", .type = OX_ATTR_INTS, .n = 0, .ints = NULL};
  CHECK_EQ_I(run("Constant", 21, 1, &empty, 0, NULL, &y), 0);
  CHECK(y->u.t.rank == 1 && y->u.t.dims[0] == 0 && y->u.t.n == 0);
  ox_attr s = {.name = "value_string", .type = OX_ATTR_STRING, .s = {"hi", 2}};
  CHECK_EQ_I(run("Constant", 23, 1, &s, 0, NULL, &y), 0);
  CHECK(y->u.t.dt == OX_STRING && y->u.t.rank == 0 && !strcmp(((ox_str *)y->u.t.data)->p, "hi"));
  ox_str sl[2] = {{"x", 1}, {"yz", 2}};
  ox_attr ss = {.name = "value_strings", .type = OX_ATTR_STRINGS, .n = 2, .strings = sl};
  CHECK_EQ_I(run("Constant", 24, 1, &ss, 0, NULL, &y), 0);
  CHECK(y->u.t.dt == OX_STRING && y->u.t.n == 2 && ((ox_str *)y->u.t.data)[1].n == 2);

  /* each only from its version; exactly one; the right attribute type */
  CHECK_FAILS(run("Constant", 11, 1, &i, 0, NULL, &y), "attribute 'value_int' needs opset 12 or later");
  ox_attr two[] = {v, i};
  CHECK_FAILS(run("Constant", 13, 2, two, 0, NULL, &y),
              "exactly one value attribute may be set; found 2 (value, value_int)");
  CHECK_FAILS(run("Constant", 13, 0, NULL, 0, NULL, &y),
              "no value is given: set exactly one of value, sparse_value or value_*");
  CHECK_FAILS(run("Constant", 9, 0, NULL, 0, NULL, &y), "the attribute 'value' is required");
  ox_attr wrong = {.name = "value_int", .type = OX_ATTR_FLOAT, .f = 1};
  CHECK_FAILS(run("Constant", 13, 1, &wrong, 0, NULL, &y),
              "attribute 'value_int' is of type float; expected int");

  /* the value's type must be allowed at the node's version */
  ox_value *q = tensor(OX_INT4, 1, (int64_t[]){2}, (int8_t[]){-1, 7});
  ox_attr qv = attr_tensor("value", q);
  CHECK_FAILS(run("Constant", 19, 1, &qv, 0, NULL, &y),
              "attribute 'value' holds int4 elements; Constant allows that type from opset 21");
  CHECK_EQ_I(run("Constant", 21, 1, &qv, 0, NULL, &y), 0);
  CHECK(y->u.t.dt == OX_INT4 && ((int8_t *)y->u.t.data)[0] == -1);
}

int main(void) {
  A = ox_arena_new();
  test_tables();
  test_sequence_at();
  test_construct_empty_length();
  test_insert_erase();
  test_insert_in_place();
  test_split();
  test_concat();
  test_optional();
  test_identity();
  test_constant();
  ox_arena_free(A);
  return check_done("ops_seq");
}
