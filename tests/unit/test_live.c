/* tests/unit/test_live.c: memory given back during a run (core/arena.c's
 * ox_live_*, core/eval.c's liveness plan) and the pool behind it.
 *
 *   - the arena: a block no value holds goes back at once, exactly counted,
 *     and the next request of its size takes it again; sweep gives back a
 *     node's unheld blocks and nothing from before; freeze stops it all;
 *     mark/release stay right around blocks given back early;
 *   - the evaluator: a chain of ten 1 MiB nodes runs within 4 MiB
 *     (--max-memory) because each value is given back after its last use;
 *     and values that share memory with a dead one stay intact: a Reshape
 *     view, a sequence element, an If branch's Identity of an outer value,
 *     a graph output that is a view, a function's result, a kernel's own
 *     value that it hands a subgraph (as Attention does). Each of these
 *     computes relu(x) - x (or so) with a new 1 MiB value allocated after
 *     the one it shares died, which would take the dead one's block. */
#include <math.h>

#include "kit.h"

#define N 262144 /* floats: 1 MiB */

static ox_valueinfo vi(const char *name) {
  ox_valueinfo v = {.name = name, .rank = -1};
  return v;
}

static ox_value *xs(void) {
  ox_value *v;
  int64_t d[1] = {N};
  if (ox_tensor_new(A, OX_FLOAT, 1, d, &v, &E)) return NULL;
  float *p = v->u.t.data;
  for (int i = 0; i < N; i++) p[i] = (float)(i % 7) - 3;
  return v;
}

static ox_value *i64s(int n, const int64_t *x) {
  ox_value *v;
  int64_t d[1] = {n};
  ox_tensor_new(A, OX_INT64, n < 0 ? 0 : 1, d, &v, &E);
  memcpy(v->u.t.data, x, sizeof *x * (size_t)(n < 0 ? 1 : n));
  return v;
}

/* out[k] == f(x[k]) for every k */
static int all_are(const ox_value *v, float (*f)(float)) {
  if (!v || v->kind != OX_TENSOR || v->u.t.dt != OX_FLOAT || v->u.t.n != N) return 0;
  const float *p = v->u.t.data;
  for (int i = 0; i < N; i++)
    if (p[i] != f((float)(i % 7) - 3)) return 0;
  return 1;
}
static float relu_minus_x(float x) { return (x > 0 ? x : 0) - x; }
static float relu_f(float x) { return x > 0 ? x : 0; }
static float relu_neg_minus_x(float x) { return (-x > 0 ? -x : 0) - x; }

/* run graph g (opset 16) on inputs; 0 on success */
static int run(ox_graph *g, int nfunc, ox_function *fn, ox_value **in, ox_value **out) {
  ox_opset ops[] = {{"", 16}, {"local", 1}};
  ox_model m = {"mem", ".", 10, 2, ops, g, nfunc, fn};
  ox_err_clear(&E);
  if (ox_prepare(A, &m, &E) || ox_run(A, &m, in, out, &E)) {
    fprintf(stderr, "run: %s\n", E.msg);
    return 1;
  }
  return 0;
}

static void arena_api(void) {
  ox_arena *a = ox_arena_new();
  size_t base = ox_memory_in_use();
  void *before = ox_alloc(a, 1 << 20); /* from before the session: never given back */
  ox_live_begin(a);
  CHECK(ox_live_on(a));
  uint64_t t0 = ox_live_now();
  char *p = ox_alloc_uninit(a, 1 << 20), *q = ox_alloc(a, 300000);
  CHECK(p && q);
  size_t held = ox_memory_in_use();
  ox_live_ref(a, p);
  ox_live_ref(a, p + 1000); /* any byte of the block names it */
  ox_live_ref(a, before);   /* not tracked: no effect */
  ox_live_sweep(a, t0, ox_live_now()); /* q is held by nobody: given back; p stays */
  CHECK(ox_memory_in_use() < held);
  size_t after_q = ox_memory_in_use();
  CHECK_EQ_I(ox_live_unref(a, p, 1), 0);
  CHECK_EQ_I(ox_memory_in_use(), after_q); /* one holder left */
  CHECK_EQ_I(ox_live_unref(a, p, 1), 1);
  CHECK(ox_memory_in_use() < after_q); /* the last one: given back */
  char *p2 = ox_alloc_uninit(a, 1 << 20); /* the same size again: the same block */
  CHECK(p2 == p || !ox_arena_pools());
  ox_live_unref(a, before, 1); /* not tracked: never given back */
  memset(before, 1, 1 << 20);
  /* marks count blocks by serial: a release after blocks went back early
   * gives back exactly the rest */
  ox_mark mk = ox_arena_mark(a);
  size_t at_mark = ox_memory_in_use();
  uint64_t t1 = ox_live_now();
  char *r1 = ox_alloc(a, 100000), *r2 = ox_alloc(a, 200000), *r3 = ox_alloc(a, 400000);
  CHECK(r1 && r2 && r3);
  ox_live_ref(a, r1);
  ox_live_ref(a, r3);
  ox_live_sweep(a, t1, ox_live_now()); /* r2 */
  ox_live_unref(a, r3, 1);
  ox_arena_release(a, mk); /* r1 */
  CHECK_EQ_I(ox_memory_in_use(), at_mark);
  /* frozen: nothing goes back until the session ends */
  uint64_t t2 = ox_live_now();
  char *f1 = ox_alloc(a, 100000);
  ox_live_ref(a, f1);
  ox_live_freeze(a);
  CHECK(!ox_live_on(a));
  size_t frozen = ox_memory_in_use();
  ox_live_unref(a, f1, 1);
  ox_live_sweep(a, t2, ox_live_now());
  CHECK_EQ_I(ox_memory_in_use(), frozen);
  ox_live_end(a);
  /* the sweep's window: what came after `until` (the evaluator's tables,
   * grown once the kernel had returned) is not scratch, held or not */
  ox_live_begin(a);
  uint64_t t3 = ox_live_now();
  char *s1 = ox_alloc(a, 100000);
  uint64_t t4 = ox_live_now();
  char *s2 = ox_alloc(a, 100000);
  CHECK(s1 && s2);
  size_t both = ox_memory_in_use();
  ox_live_sweep(a, t3, t4); /* s1 only */
  CHECK(ox_memory_in_use() < both);
  memset(s2, 1, 100000); /* still ours (ASan would see a use after free) */
  ox_live_end(a);
  CHECK(!ox_live_on(a));
  ox_arena_free(a);
  CHECK_EQ_I(ox_memory_in_use(), base);
}

int main(void) {
  A = ox_arena_new();
  arena_api();

  ox_value *x = xs(), *shape = i64s(1, (int64_t[]){-1}), *zero = i64s(-1, (int64_t[]){0});
  uint8_t yes = 1;
  ox_value *cond;
  ox_tensor_new(A, OX_BOOL, 0, NULL, &cond, &E);
  *(uint8_t *)cond->u.t.data = yes;

  /* ---- a chain of ten Relus on 1 MiB: within 4 MiB more ---- */
  {
    static const char *names[] = {"x", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"};
    ox_node ns[10];
    for (int i = 0; i < 10; i++) ns[i] = kit_node("Relu", 1, &names[i], 1, &names[i + 1]);
    ox_valueinfo gi[] = {vi("x")}, go[] = {vi("r10")};
    ox_graph g = {"chain", 10, ns, 1, gi, 1, go, 0, NULL, NULL, 0, NULL};
    ox_opset ops[] = {{"", 16}};
    ox_model m = {"mem", ".", 10, 1, ops, &g, 0, NULL};
    CHECK_EQ_I(ox_prepare(A, &m, &E), 0);
    ox_value *in[] = {x}, *out[1] = {0};
    size_t lim = ox_memory_limit();
    ox_set_memory_limit(ox_memory_in_use() + (4 << 20));
    int rc = ox_run(A, &m, in, out, &E);
    ox_set_memory_limit(lim);
    CHECK_EQ_I(rc, 0);
    if (rc) fprintf(stderr, "chain: %s\n", E.msg);
    CHECK(all_are(out[0], relu_f));
  }

  /* ---- a Reshape view outlives the value it shares ---- */
  {
    static const char *x_[] = {"x"}, *a_[] = {"a"}, *ra[] = {"a", "shape"}, *b_[] = {"b"};
    static const char *d_[] = {"d"}, *bd[] = {"b", "d"}, *o_[] = {"o"};
    ox_node ns[] = {kit_node("Relu", 1, x_, 1, a_), kit_node("Reshape", 2, ra, 1, b_), kit_node("Neg", 1, x_, 1, d_),
                    kit_node("Add", 2, bd, 1, o_)};
    ox_valueinfo gi[] = {vi("x"), vi("shape")}, go[] = {vi("o")};
    ox_graph g = {"view", 4, ns, 2, gi, 1, go, 0, NULL, NULL, 0, NULL};
    ox_value *in[] = {x, shape}, *out[1] = {0};
    CHECK_EQ_I(run(&g, 0, NULL, in, out), 0);
    CHECK(all_are(out[0], relu_minus_x));
  }

  /* ---- a sequence element outlives the value it was made from ---- */
  {
    static const char *x_[] = {"x"}, *a_[] = {"a"}, *s_[] = {"s"}, *sz[] = {"s", "zero"}, *t_[] = {"t"};
    static const char *d_[] = {"d"}, *td[] = {"t", "d"}, *o_[] = {"o"};
    ox_node ns[] = {kit_node("Relu", 1, x_, 1, a_), kit_node("SequenceConstruct", 1, a_, 1, s_),
                    kit_node("Neg", 1, x_, 1, d_), kit_node("SequenceAt", 2, sz, 1, t_), kit_node("Add", 2, td, 1, o_)};
    ox_valueinfo gi[] = {vi("x"), vi("zero")}, go[] = {vi("o")};
    ox_graph g = {"seq", 5, ns, 2, gi, 1, go, 0, NULL, NULL, 0, NULL};
    ox_value *in[] = {x, zero}, *out[1] = {0};
    CHECK_EQ_I(run(&g, 0, NULL, in, out), 0);
    CHECK(all_are(out[0], relu_minus_x));
  }

  /* ---- an If branch returns an Identity of an outer value that dies at the
   * If, and a value of its own ---- */
  {
    static const char *a_[] = {"a"}, *z1[] = {"z1"}, *z2[] = {"z2"};
    ox_node br[] = {kit_node("Identity", 1, a_, 1, z1), kit_node("Relu", 1, a_, 1, z2)};
    ox_valueinfo bo[] = {vi("z1"), vi("z2")};
    ox_graph then_g = {"then", 2, br, 0, NULL, 2, bo, 0, NULL, NULL, 0, NULL};
    ox_attr at[2] = {{0}, {0}};
    at[0].name = "then_branch";
    at[1].name = "else_branch";
    at[0].type = at[1].type = OX_ATTR_GRAPH;
    at[0].g = at[1].g = &then_g;
    static const char *x_[] = {"x"}, *c_[] = {"c"}, *y_[] = {"y1", "y2"}, *d_[] = {"d"};
    static const char *yd1[] = {"y1", "d"}, *yd2[] = {"y2", "d"}, *o1[] = {"o1"}, *o2[] = {"o2"};
    ox_node ns[] = {kit_node("Relu", 1, x_, 1, a_), kit_node("If", 1, c_, 2, y_), kit_node("Neg", 1, x_, 1, d_),
                    kit_node("Add", 2, yd1, 1, o1), kit_node("Add", 2, yd2, 1, o2)};
    ns[1].attr = at;
    ns[1].nattr = 2;
    ox_valueinfo gi[] = {vi("x"), vi("c")}, go[] = {vi("o1"), vi("o2")};
    ox_graph g = {"if", 5, ns, 2, gi, 2, go, 0, NULL, NULL, 0, NULL};
    ox_value *in[] = {x, cond}, *out[2] = {0};
    CHECK_EQ_I(run(&g, 0, NULL, in, out), 0);
    CHECK(all_are(out[0], relu_minus_x));
    CHECK(all_are(out[1], relu_minus_x));
  }

  /* ---- a graph output that is a view of a value dead before the end ---- */
  {
    static const char *x_[] = {"x"}, *a_[] = {"a"}, *ra[] = {"a", "shape"}, *o1[] = {"o1"};
    static const char *d_[] = {"d"}, *dd[] = {"d", "d"}, *o2[] = {"o2"};
    ox_node ns[] = {kit_node("Relu", 1, x_, 1, a_), kit_node("Reshape", 2, ra, 1, o1), kit_node("Neg", 1, x_, 1, d_),
                    kit_node("Add", 2, dd, 1, o2)};
    ox_valueinfo gi[] = {vi("x"), vi("shape")}, go[] = {vi("o1"), vi("o2")};
    ox_graph g = {"outview", 4, ns, 2, gi, 2, go, 0, NULL, NULL, 0, NULL};
    ox_value *in[] = {x, shape}, *out[2] = {0};
    CHECK_EQ_I(run(&g, 0, NULL, in, out), 0);
    CHECK(all_are(out[0], relu_f));
  }

  /* ---- a function's result, made inside it from a value that dies there ---- */
  {
    static const char *fx[] = {"fx"}, *fy[] = {"fy"}, *fz[] = {"fz"};
    ox_node body[] = {kit_node("Relu", 1, fx, 1, fy), kit_node("Identity", 1, fy, 1, fz)};
    ox_opset fops[] = {{"", 16}};
    ox_function fn = {"F", "local", NULL, 1, 1, fx, fz, 0, NULL, 0, NULL, 2, body, 1, fops, 0};
    static const char *x_[] = {"x"}, *a_[] = {"a"}, *b_[] = {"b"}, *d_[] = {"d"}, *bd[] = {"b", "d"}, *o_[] = {"o"};
    ox_node ns[] = {kit_node("Neg", 1, x_, 1, a_), kit_node("F", 1, a_, 1, b_), kit_node("Neg", 1, x_, 1, d_),
                    kit_node("Add", 2, bd, 1, o_)};
    ns[1].domain = "local";
    ox_valueinfo gi[] = {vi("x")}, go[] = {vi("o")};
    ox_graph g = {"fn", 4, ns, 1, gi, 1, go, 0, NULL, NULL, 0, NULL};
    ox_value *in[] = {x}, *out[1] = {0};
    CHECK_EQ_I(run(&g, 1, &fn, in, out), 0);
    CHECK(all_are(out[0], relu_neg_minus_x));
  }

  /* ---- a kernel's own value, given to a subgraph that drops an Identity of it ---- */
  {
    static const char *xi[] = {"xi"}, *y_[] = {"y"}, *z_[] = {"z"}, *w_[] = {"w"};
    ox_node ns[] = {kit_node("Identity", 1, xi, 1, y_), kit_node("Relu", 1, y_, 1, z_), kit_node("Neg", 1, z_, 1, w_)};
    ox_valueinfo gi[] = {vi("xi")}, go[] = {vi("w")};
    ox_graph g = {"sub", 3, ns, 1, gi, 1, go, 0, NULL, NULL, 0, NULL};
    ox_opset ops[] = {{"", 16}};
    ox_model m = {"mem", ".", 10, 1, ops, &g, 0, NULL};
    CHECK_EQ_I(ox_prepare(A, &m, &E), 0);
    ox_live_begin(A); /* as the node running the kernel is */
    ox_value *own = xs(), *res[1] = {0};
    ox_ctx c = {A, &E, NULL, 16, &m, NULL};
    CHECK_EQ_I(ox_run_subgraph(&c, "sub", &g, 1, &own, res), 0);
    ox_live_end(A);
    float *p = own->u.t.data;
    int same = 1;
    for (int i = 0; i < N; i++) same &= p[i] == (float)(i % 7) - 3;
    CHECK(same);
  }

  ox_arena_free(A);
  CHECK_EQ_I(ox_memory_in_use(), 0);
  return check_done("live");
}
