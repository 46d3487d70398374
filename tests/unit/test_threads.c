/* tests/unit/test_threads.c: the pool of core/threads.c, and the kernels it
 * splits (MatMul, batches of small MatMuls, Gemm, Einsum's batched GEMM, Conv,
 * the reductions, Softmax): with 1, 2, 3 and 7 threads each gives the same bytes (memcmp),
 * and the right values (naive reference loops written here). The inputs are large enough to be split
 * (over OX_PAR_MIN_WORK), with odd sizes so that chunks end mid-tile; the
 * row-at-a-time paths (Softmax over a non-last axis, ReduceSum over a leading
 * one) are checked against the reference too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "core/kernel.h"
#include "core/ox.h"
#include "core/threads.h"

static ox_arena *A;
static ox_err E;

static unsigned rng = 77;
static double rnd(void) { /* in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

static ox_value *random_tensor(ox_dtype dt, int rank, const int64_t *dims) {
  ox_value *v = NULL;
  if (ox_tensor_new(A, dt, rank, dims, &v, &E)) {
    fprintf(stderr, "tensor: %s\n", E.msg);
    exit(1);
  }
  for (int64_t i = 0; i < v->u.t.n; i++) ox_store_f64(dt, v->u.t.data, i, rnd());
  return v;
}
static double at(const ox_value *v, int64_t i) { return ox_load_f64(v->u.t.dt, v->u.t.data, i); }

static ox_attr attr_int(const char *name, int64_t i) {
  return (ox_attr){.name = name, .type = OX_ATTR_INT, .i = i};
}
static ox_attr attr_float(const char *name, double f) {
  return (ox_attr){.name = name, .type = OX_ATTR_FLOAT, .f = (float)f};
}
static ox_attr attr_ints(const char *name, int n, const int64_t *v) {
  return (ox_attr){.name = name, .type = OX_ATTR_INTS, .n = n, .ints = (int64_t *)v};
}
static ox_attr attr_str(const char *name, const char *v) {
  return (ox_attr){.name = name, .type = OX_ATTR_STRING, .s = {(char *)v, (int64_t)strlen(v)}};
}

/* the thread count the kernels' contexts carry (a run's; 0: the process's) */
static int ctx_threads;

static ox_value *run(const char *op, int opset, int nattr, ox_attr *attr, int nin, ox_value **in) {
  static const char *in_names[] = {"x0", "x1", "x2", "x3", "x4"};
  static const char *out_names[] = {"y0"};
  const ox_kernel *k = ox_registry_find("", op, opset);
  if (!k) {
    fprintf(stderr, "no kernel for %s at opset %d\n", op, opset);
    exit(1);
  }
  ox_node n = {.name = "n0", .op = op, .domain = "", .nin = nin, .in = in_names, .nout = 1,
               .out = out_names, .nattr = nattr, .attr = attr, .version = k->since, .k = k};
  ox_ctx c = {.a = A, .err = &E, .node = &n, .version = k->since, .threads = ctx_threads};
  ox_value *out[1] = {NULL};
  ox_err_clear(&E);
  int rc = ox_node_load(&c) ? E.code : k->fn(&c, nin, in, 1, out);
  if (rc || E.code) {
    fprintf(stderr, "%s: %s\n", op, E.msg);
    return NULL;
  }
  return out[0];
}

static const int counts[] = {1, 2, 3, 7};

/* Run the op with each thread count: the same bytes every time, and (with
 * one thread) within tol of want. */
static void same_for_all(const char *label, const char *op, int opset, int nattr, ox_attr *attr,
                         int nin, ox_value **in, const double *want, double tol) {
  ox_value *first = NULL;
  for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
    ox_set_threads(counts[t]);
    ox_value *y = run(op, opset, nattr, attr, nin, in);
    CHECK(y != NULL);
    if (!y) break;
    if (!first) {
      first = y;
      int64_t bad = -1;
      for (int64_t i = 0; i < y->u.t.n && bad < 0; i++)
        if (!(fabs(at(y, i) - want[i]) <= tol * (1 + fabs(want[i])))) bad = i;
      if (bad >= 0)
        fprintf(stderr, "%s: element %lld is %.9g, want %.9g\n", label, (long long)bad, at(y, bad),
                want[bad]);
      CHECK(bad < 0);
      continue;
    }
    int same = y->u.t.n == first->u.t.n &&
               !memcmp(y->u.t.data, first->u.t.data, (size_t)y->u.t.n * ox_dtype_size(y->u.t.dt));
    if (!same) fprintf(stderr, "%s: %d threads differ from 1\n", label, counts[t]);
    CHECK(same);
  }
  ox_set_threads(1);
}

/* ---- the pool itself ---- */

static int hits[1000];
static void count_items(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)arg;
  (void)slot;
  for (int64_t i = lo; i < hi; i++) hits[i]++;
}
static int nested_chunks; /* the largest ox_par_chunks seen inside a chunk */
static void nested(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)arg;
  int n = ox_par_chunks(0, 1000, 1e12); /* inside a chunk: 1 */
  if (n > __atomic_load_n(&nested_chunks, __ATOMIC_RELAXED))
    __atomic_store_n(&nested_chunks, n, __ATOMIC_RELAXED);
  count_items(NULL, slot, lo, hi);
}
static int slot_bad; /* a slot outside [0, 3) */
static void check_slot(void *arg, int slot, int64_t lo, int64_t hi) {
  if (slot < 0 || slot >= 3) __atomic_store_n(&slot_bad, 1, __ATOMIC_RELAXED);
  count_items(arg, slot, lo, hi);
}

static void test_pool(void) {
  ox_set_threads(1);
  CHECK_EQ_I(ox_par_chunks(0, 1000, 1e12), 1);
  ox_set_threads(3);
  CHECK_EQ_I(ox_threads(), 3);
  CHECK_EQ_I(ox_par_chunks(0, 1000, 1e12), 3);
  CHECK_EQ_I(ox_par_chunks(0, 2, 1e12), 2);
  CHECK_EQ_I(ox_par_chunks(0, 1000, OX_PAR_MIN_WORK / 2), 1);
  ox_set_threads(0);
  CHECK_EQ_I(ox_threads(), ox_cpu_count());
  /* every item exactly once, for any slot count and item count */
  ox_set_threads(3);
  for (int ns = 1; ns <= 3; ns++)
    for (int n = 1; n <= 997; n += 166) {
      memset(hits, 0, sizeof hits);
      slot_bad = 0;
      ox_par_for(n, ns, check_slot, NULL);
      int ok = 1;
      for (int i = 0; i < 1000; i++) ok &= hits[i] == (i < n);
      CHECK(ok);
      CHECK_EQ_I(slot_bad, 0);
    }
  memset(hits, 0, sizeof hits);
  nested_chunks = 0;
  ox_par_for(1000, 3, nested, NULL);
  CHECK_EQ_I(nested_chunks, 1);
  int all = 1;
  for (int i = 0; i < 1000; i++) all &= hits[i] == 1;
  CHECK(all);
  ox_set_threads(1);
}

/* The hand-off: many jobs in a row (the workers spinning between them),
 * then jobs after pauses longer than the spin (the workers asleep), each
 * taking every item once and no slot twice at a time; the same after a
 * fork (a child has none of the parent's workers). */
static int counts_at[4096];
static int busy[OX_MAX_THREADS], overlap;
static void count_atomic(void *arg, int slot, int64_t lo, int64_t hi) {
  (void)arg;
  if (__atomic_exchange_n(&busy[slot], 1, __ATOMIC_ACQ_REL)) __atomic_store_n(&overlap, 1, __ATOMIC_RELAXED);
  for (int64_t i = lo; i < hi; i++) __atomic_add_fetch(&counts_at[i], 1, __ATOMIC_RELAXED);
  __atomic_store_n(&busy[slot], 0, __ATOMIC_RELEASE);
}
static int each_once(int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (__atomic_load_n(&counts_at[i], __ATOMIC_RELAXED) != 1) return 0;
  return 1;
}
static void sleep_ms(long ms) {
  struct timespec ts = {0, ms * 1000000};
  nanosleep(&ts, NULL);
}

static void test_handoff(void) {
  unsigned long jobs0 = ox_par_jobs();
  int bad = 0, rounds = 0;
  for (int t = 2; t <= 3; t++) {
    ox_set_threads(t);
    for (int r = 0; r < 20000; r++, rounds++) {
      int64_t n = 1 + r % 97 * 41 % 4096; /* 1 .. 4096, in no order */
      memset(counts_at, 0, sizeof counts_at);
      ox_par_for(n, t, count_atomic, NULL);
      bad += !each_once(n);
    }
    for (int r = 0; r < 5; r++, rounds++) {
      sleep_ms(2); /* longer than the spin: the workers sleep */
      memset(counts_at, 0, sizeof counts_at);
      ox_par_for(4096, t, count_atomic, NULL);
      bad += !each_once(4096);
    }
  }
  CHECK_EQ_I(bad, 0);
  CHECK_EQ_I(overlap, 0);
  /* every call with n > 1 went to the pool (n = 1 runs inline) */
  CHECK(ox_par_jobs() - jobs0 >= (unsigned long)rounds * 9 / 10);
  pid_t pid = fork();
  if (pid == 0) { /* the child: a pool of its own */
    alarm(20);
    memset(counts_at, 0, sizeof counts_at);
    unsigned long j0 = ox_par_jobs();
    ox_par_for(4096, 3, count_atomic, NULL);
    _exit(each_once(4096) && ox_par_jobs() == j0 + 1 ? 0 : 1);
  }
  int st = -1;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  /* once the workers sleep, work just over the threshold runs inline (not
   * worth a wake-up); 16 times as much still splits */
  ox_set_threads(2);
  ox_par_for(4096, 2, count_atomic, NULL);
  int inline_seen = 0;
  for (int k = 0; k < 1000 && !inline_seen; k++) {
    sleep_ms(1);
    inline_seen = ox_par_chunks(0, 1000, 2.0 * OX_PAR_MIN_WORK) == 1;
  }
  CHECK(inline_seen);
  CHECK_EQ_I(ox_par_chunks(0, 1000, 16.0 * OX_PAR_MIN_WORK), 2);
  CHECK_EQ_I(ox_par_chunks_mem(0, 1000, 16.0 * OX_PAR_MIN_BYTES), 2);
  ox_set_threads(1);
}

/* ---- MatMul and Gemm ---- */

/* a: (B, M, K), b: (B or 1, K, N) */
static void matmul_case(ox_dtype dt, int64_t B, int64_t M, int64_t K, int64_t N, int bcast) {
  char label[96];
  snprintf(label, sizeof label, "MatMul %s (%lld, %lld, %lld) x (%lld, %lld)", ox_dtype_name(dt),
           (long long)B, (long long)M, (long long)K, (long long)K, (long long)N);
  ox_value *in[2] = {random_tensor(dt, 3, (int64_t[]){B, M, K}),
                     random_tensor(dt, 3, (int64_t[]){bcast ? 1 : B, K, N})};
  if (!ox_dtype_is_float(dt)) /* integers from -9 to 9: rnd() would truncate to 0 */
    for (int v = 0; v < 2; v++)
      for (int64_t i = 0; i < in[v]->u.t.n; i++)
        ox_store_f64(dt, in[v]->u.t.data, i, (double)(int)(rnd() * 10));
  double *want = malloc((size_t)(B * M * N) * sizeof *want);
  for (int64_t b = 0; b < B; b++)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++)
          s += at(in[0], (b * M + i) * K + k) * at(in[1], ((bcast ? 0 : b) * K + k) * N + j);
        want[(b * M + i) * N + j] = s;
      }
  same_for_all(label, "MatMul", 13, 0, NULL, 2, in, want,
               dt == OX_FLOAT ? 1e-4 : dt == OX_DOUBLE ? 1e-12 : 0);
  free(want);
}

/* Einsum of two operands x0 (shape d0) and x1 (shape d1) by the equation
 * "lhs0,lhs1->out" of single letters, against every label combination summed
 * in double. */
static void einsum_case(ox_dtype dt, const char *eq, const int64_t *d0, const int64_t *d1) {
  char t[3][16] = {{0}};
  sscanf(eq, "%15[a-z],%15[a-z]->%15[a-z]", t[0], t[1], t[2]);
  int r[3] = {(int)strlen(t[0]), (int)strlen(t[1]), (int)strlen(t[2])};
  ox_value *in[2] = {random_tensor(dt, r[0], d0), random_tensor(dt, r[1], d1)};
  /* the labels and their sizes */
  char lab[16];
  int64_t size[16];
  int nl = 0;
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < r[i]; k++)
      if (!memchr(lab, t[i][k], (size_t)nl)) lab[nl] = t[i][k], size[nl++] = (i ? d1 : d0)[k];
  int64_t nout = 1, total = 1;
  for (int k = 0; k < r[2]; k++) nout *= size[(char *)memchr(lab, t[2][k], (size_t)nl) - lab];
  for (int l = 0; l < nl; l++) total *= size[l];
  double *want = calloc((size_t)nout, sizeof *want);
  int64_t idx[16] = {0};
  for (int64_t c = 0; c < total; c++) { /* one combination: add x0[..] x1[..] into want[..] */
    int64_t off[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < r[i]; k++) {
        int l = (int)((char *)memchr(lab, t[i][k], (size_t)nl) - lab);
        off[i] = off[i] * size[l] + idx[l];
      }
    want[off[2]] += at(in[0], off[0]) * at(in[1], off[1]);
    for (int l = nl - 1; l >= 0 && ++idx[l] == size[l]; l--) idx[l] = 0;
  }
  char label[96];
  snprintf(label, sizeof label, "Einsum %s %s", ox_dtype_name(dt), eq);
  ox_attr attr[] = {{.name = "equation", .type = OX_ATTR_STRING, .s = {(char *)eq, (int64_t)strlen(eq)}}};
  same_for_all(label, "Einsum", 12, 1, attr, 2, in, want, dt == OX_FLOAT ? 1e-4 : 1e-12);
  free(want);
}

static void gemm_case(int64_t M, int64_t K, int64_t N, int ta, int tb) {
  char label[96];
  snprintf(label, sizeof label, "Gemm (%lld, %lld, %lld) transA %d transB %d", (long long)M,
           (long long)K, (long long)N, ta, tb);
  ox_value *in[3] = {random_tensor(OX_FLOAT, 2, ta ? (int64_t[]){K, M} : (int64_t[]){M, K}),
                     random_tensor(OX_FLOAT, 2, tb ? (int64_t[]){N, K} : (int64_t[]){K, N}),
                     random_tensor(OX_FLOAT, 1, (int64_t[]){N})};
  double alpha = 0.75, beta = -1.5;
  double *want = malloc((size_t)(M * N) * sizeof *want);
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++)
        s += at(in[0], ta ? k * M + i : i * K + k) * at(in[1], tb ? j * K + k : k * N + j);
      want[i * N + j] = alpha * s + beta * at(in[2], j);
    }
  ox_attr attr[] = {attr_float("alpha", alpha), attr_float("beta", beta), attr_int("transA", ta),
                    attr_int("transB", tb)};
  same_for_all(label, "Gemm", 13, 4, attr, 3, in, want, 1e-4);
  free(want);
}

/* ---- Conv (2-D, explicit pads) ---- */

static void conv_case(int64_t N, int64_t C, int64_t H, int64_t W, int64_t M, int64_t G,
                      int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pad, int bias) {
  char label[128];
  snprintf(label, sizeof label, "Conv x (%lld, %lld, %lld, %lld) w (%lld, %lld, %lld, %lld) group %lld",
           (long long)N, (long long)C, (long long)H, (long long)W, (long long)M, (long long)(C / G),
           (long long)kh, (long long)kw, (long long)G);
  int64_t Cg = C / G, Mg = M / G;
  int64_t OH = (H + 2 * pad - kh) / sh + 1, OW = (W + 2 * pad - kw) / sw + 1;
  ox_value *in[3] = {random_tensor(OX_FLOAT, 4, (int64_t[]){N, C, H, W}),
                     random_tensor(OX_FLOAT, 4, (int64_t[]){M, Cg, kh, kw}),
                     bias ? random_tensor(OX_FLOAT, 1, (int64_t[]){M}) : NULL};
  double *want = malloc((size_t)(N * M * OH * OW) * sizeof *want);
  for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < M; m++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double s = bias ? at(in[2], m) : 0;
          int64_t g = m / Mg;
          for (int64_t cg = 0; cg < Cg; cg++)
            for (int64_t i = 0; i < kh; i++)
              for (int64_t j = 0; j < kw; j++) {
                int64_t h = oh * sh + i - pad, w = ow * sw + j - pad;
                if (h < 0 || h >= H || w < 0 || w >= W) continue;
                s += at(in[0], ((n * C + g * Cg + cg) * H + h) * W + w) *
                     at(in[1], ((m * Cg + cg) * kh + i) * kw + j);
              }
          want[((n * M + m) * OH + oh) * OW + ow] = s;
        }
  int64_t ks[2] = {kh, kw}, st[2] = {sh, sw}, pads[4] = {pad, pad, pad, pad};
  ox_attr attr[] = {attr_int("group", G), attr_ints("kernel_shape", 2, ks),
                    attr_ints("strides", 2, st), attr_ints("pads", 4, pads)};
  same_for_all(label, "Conv", 11, 4, attr, bias ? 3 : 2, in, want, 1e-4);
  free(want);
}

/* ---- ReduceSum, ReduceMean over (d0, d1, d2) ---- */

static void reduce_case(const char *op, ox_dtype dt, int64_t d0, int64_t d1, int64_t d2, int nax,
                        const int64_t *axes) {
  char label[96];
  snprintf(label, sizeof label, "%s %s (%lld, %lld, %lld) over %d axes", op, ox_dtype_name(dt),
           (long long)d0, (long long)d1, (long long)d2, nax);
  int64_t dims[3] = {d0, d1, d2};
  int red[3] = {0};
  for (int i = 0; i < nax; i++) red[axes[i]] = 1;
  ox_value *in[2] = {random_tensor(dt, 3, dims), NULL};
  ox_value *ax = NULL;
  if (ox_tensor_new(A, OX_INT64, 1, (int64_t[]){nax}, &ax, &E)) exit(1);
  memcpy(ax->u.t.data, axes, (size_t)nax * sizeof *axes);
  in[1] = ax;
  int64_t on = 1, cnt = 1;
  for (int i = 0; i < 3; i++) red[i] ? (cnt *= dims[i]) : (on *= dims[i]);
  double *want = calloc((size_t)on, sizeof *want);
  for (int64_t i = 0; i < d0; i++)
    for (int64_t j = 0; j < d1; j++)
      for (int64_t k = 0; k < d2; k++) {
        int64_t o = 0;
        if (!red[0]) o = o * d0 + i;
        if (!red[1]) o = o * d1 + j;
        if (!red[2]) o = o * d2 + k;
        want[o] += at(in[0], (i * d1 + j) * d2 + k);
      }
  if (!strcmp(op, "ReduceMean"))
    for (int64_t o = 0; o < on; o++) want[o] /= (double)cnt;
  same_for_all(label, op, 18, 0, NULL, 2, in, want, dt == OX_FLOAT ? 1e-5 : 1e-12);
  free(want);
}

/* ---- Softmax over axis `axis` of (d0, d1, d2) ---- */

static void softmax_case(const char *op, int64_t d0, int64_t d1, int64_t d2, int axis) {
  int lg = !strcmp(op, "LogSoftmax");
  char label[96];
  snprintf(label, sizeof label, "%s (%lld, %lld, %lld) axis %d", op, (long long)d0, (long long)d1,
           (long long)d2, axis);
  int64_t dims[3] = {d0, d1, d2}, outer = 1, inner = 1, d = dims[axis];
  for (int i = 0; i < axis; i++) outer *= dims[i];
  for (int i = axis + 1; i < 3; i++) inner *= dims[i];
  ox_value *in[1] = {random_tensor(OX_FLOAT, 3, dims)};
  double *want = malloc((size_t)(d0 * d1 * d2) * sizeof *want);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      double m = -INFINITY, s = 0;
      for (int64_t k = 0; k < d; k++) m = fmax(m, at(in[0], (o * d + k) * inner + j));
      for (int64_t k = 0; k < d; k++) s += exp(at(in[0], (o * d + k) * inner + j) - m);
      for (int64_t k = 0; k < d; k++)
        want[(o * d + k) * inner + j] = lg ? at(in[0], (o * d + k) * inner + j) - m - log(s)
                                           : exp(at(in[0], (o * d + k) * inner + j) - m) / s;
    }
  ox_attr attr[] = {attr_int("axis", axis)};
  same_for_all(label, op, 13, 1, attr, 1, in, want, 1e-5);
  free(want);
}

/* ---- every kernel that splits, at any size ----
 * With the thresholds at 0 (ox_par_set_min) every kernel splits whatever its
 * size, so small odd shapes put chunk bounds everywhere: 2, 3 and 7
 * threads must give the bytes of 1, and the pool must have been used. */

static void split_same(const char *label, const char *op, int opset, int nattr, ox_attr *attr, int nin,
                       ox_value **in) {
  ox_par_set_min(0, 0);
  ox_value *first = NULL;
  for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
    ox_set_threads(counts[t]);
    unsigned long jobs = ox_par_jobs();
    ox_value *y = run(op, opset, nattr, attr, nin, in);
    CHECK(y != NULL);
    if (!y) break;
    if (counts[t] > 1 && ox_par_jobs() == jobs) {
      fprintf(stderr, "%s: %d threads: nothing split\n", label, counts[t]);
      CHECK(0);
    }
    if (!first) {
      first = y;
      continue;
    }
    int same = y->u.t.n == first->u.t.n && y->u.t.dt == first->u.t.dt &&
               !memcmp(y->u.t.data, first->u.t.data, (size_t)y->u.t.n * ox_dtype_size(y->u.t.dt));
    if (!same) fprintf(stderr, "%s: %d threads differ from 1\n", label, counts[t]);
    CHECK(same);
  }
  ox_set_threads(1);
  ox_par_set_min(-1, -1);
}

static ox_value *floats_tensor(int n, const float *v) {
  ox_value *t = NULL;
  if (ox_tensor_new(A, OX_FLOAT, 1, (int64_t[]){n}, &t, &E)) exit(1);
  memcpy(t->u.t.data, v, (size_t)n * sizeof *v);
  return t;
}
static ox_value *scalar(ox_dtype dt, double v) {
  ox_value *t = NULL;
  if (ox_tensor_new(A, dt, 0, NULL, &t, &E)) exit(1);
  ox_store_f64(dt, t->u.t.data, 0, v);
  return t;
}

static void split_cases(void) {
  int64_t d4[4] = {2, 24, 13, 17};
  ox_value *x = random_tensor(OX_FLOAT, 4, d4), *x2 = random_tensor(OX_FLOAT, 4, d4);
  ox_value *xh = random_tensor(OX_FLOAT16, 4, d4);
  ox_value *ch = random_tensor(OX_FLOAT, 4, (int64_t[]){1, 24, 1, 1});
  /* elementwise, binary: per channel, a scalar, both sides broadcast, float16, Pow */
  split_same("Add per channel", "Add", 14, 0, NULL, 2, (ox_value *[]){x, ch});
  split_same("Mul by a scalar", "Mul", 14, 0, NULL, 2, (ox_value *[]){x, scalar(OX_FLOAT, 1.5)});
  split_same("Div broadcast", "Div", 14, 0, NULL, 2,
             (ox_value *[]){random_tensor(OX_FLOAT, 3, (int64_t[]){37, 1, 29}),
                            random_tensor(OX_FLOAT, 3, (int64_t[]){1, 31, 29})});
  split_same("Sub float16", "Sub", 14, 0, NULL, 2, (ox_value *[]){xh, random_tensor(OX_FLOAT16, 1, (int64_t[]){17})});
  split_same("Pow", "Pow", 15, 0, NULL, 2, (ox_value *[]){x, x2});
  split_same("Max of three", "Max", 13, 0, NULL, 3, (ox_value *[]){x, x2, ch});
  /* unary */
  static const char *un[] = {"Relu", "Sigmoid", "HardSwish", "Abs", "Exp", "Tanh"};
  for (size_t k = 0; k < sizeof un / sizeof *un; k++) split_same(un[k], un[k], 14, 0, NULL, 1, (ox_value *[]){x});
  split_same("Relu float16", "Relu", 14, 0, NULL, 1, (ox_value *[]){xh});
  ox_attr hs[] = {attr_float("alpha", 0.2), attr_float("beta", 0.5)}, lr[] = {attr_float("alpha", 0.1)};
  split_same("HardSigmoid", "HardSigmoid", 6, 2, hs, 1, (ox_value *[]){x});
  split_same("LeakyRelu", "LeakyRelu", 16, 1, lr, 1, (ox_value *[]){x});
  split_same("Clip", "Clip", 13, 0, NULL, 3, (ox_value *[]){x, scalar(OX_FLOAT, -0.5), scalar(OX_FLOAT, 0.25)});
  /* Cast */
  ox_attr to16[] = {attr_int("to", 10)}, to32[] = {attr_int("to", 1)}, toi[] = {attr_int("to", 6)},
          tou8[] = {attr_int("to", 2)};
  split_same("Cast float to float16", "Cast", 19, 1, to16, 1, (ox_value *[]){x});
  split_same("Cast float16 to float", "Cast", 19, 1, to32, 1, (ox_value *[]){xh});
  split_same("Cast float to int32", "Cast", 19, 1, toi, 1, (ox_value *[]){x});
  split_same("Cast double to uint8", "Cast", 19, 1, tou8, 1, (ox_value *[]){random_tensor(OX_DOUBLE, 4, d4)});
  /* quantization */
  split_same("DynamicQuantizeLinear", "DynamicQuantizeLinear", 11, 0, NULL, 1, (ox_value *[]){x});
  ox_value *qs = scalar(OX_FLOAT, 0.01), *qz = scalar(OX_UINT8, 120);
  split_same("QuantizeLinear", "QuantizeLinear", 13, 0, NULL, 3,
             (ox_value *[]){random_tensor(OX_FLOAT, 4, (int64_t[]){2, 24, 40, 41}), qs, qz}); /* > 1 piece */
  ox_value *qsa = random_tensor(OX_FLOAT, 1, (int64_t[]){24});
  for (int k = 0; k < 24; k++) ox_store_f64(OX_FLOAT, qsa->u.t.data, k, 0.01 + 0.001 * k);
  ox_value *qza = random_tensor(OX_INT8, 1, (int64_t[]){24}), *qx = random_tensor(OX_INT8, 4, d4);
  for (int64_t k = 0; k < qx->u.t.n; k++) ((int8_t *)qx->u.t.data)[k] = (int8_t)(k * 37 % 255 - 127);
  ox_attr ax1[] = {attr_int("axis", 1)};
  split_same("QuantizeLinear per axis", "QuantizeLinear", 13, 1, ax1, 3, (ox_value *[]){x, qsa, qza});
  split_same("DequantizeLinear per axis", "DequantizeLinear", 13, 1, ax1, 3, (ox_value *[]){qx, qsa, qza});
  /* BatchNormalization */
  ox_value *var = random_tensor(OX_FLOAT, 1, (int64_t[]){24});
  for (int k = 0; k < 24; k++) ox_store_f64(OX_FLOAT, var->u.t.data, k, 0.5 + 0.1 * k);
  split_same("BatchNormalization", "BatchNormalization", 15, 0, NULL, 5,
             (ox_value *[]){x, random_tensor(OX_FLOAT, 1, (int64_t[]){24}), random_tensor(OX_FLOAT, 1, (int64_t[]){24}),
                            random_tensor(OX_FLOAT, 1, (int64_t[]){24}), var});
  /* Concat: each axis, inputs of different sizes (the last axis: short pieces) */
  for (int a = 0; a < 4; a++) {
    int64_t db[4] = {2, 24, 13, 17}, dc[4] = {2, 24, 13, 17};
    db[a] = 3, dc[a] = 1;
    ox_attr ca[] = {attr_int("axis", a)};
    char label[64];
    snprintf(label, sizeof label, "Concat axis %d", a);
    split_same(label, "Concat", 13, 1, ca, 3,
               (ox_value *[]){x, random_tensor(OX_FLOAT, 4, db), random_tensor(OX_FLOAT, 4, dc)});
  }
  /* Transpose: tiles, rows, short rows, and the tiled dim outermost */
  static const int64_t perms[][4] = {{0, 2, 3, 1}, {1, 0, 2, 3}, {0, 3, 1, 2}, {3, 2, 1, 0}, {2, 0, 1, 3}};
  for (size_t k = 0; k < sizeof perms / sizeof *perms; k++) {
    ox_attr pa[] = {attr_ints("perm", 4, perms[k])};
    char label[64];
    snprintf(label, sizeof label, "Transpose (%d %d %d %d)", (int)perms[k][0], (int)perms[k][1],
             (int)perms[k][2], (int)perms[k][3]);
    split_same(label, "Transpose", 13, 1, pa, 1, (ox_value *[]){x});
  }
  ox_attr p10[] = {attr_ints("perm", 2, (int64_t[]){1, 0})}, p102[] = {attr_ints("perm", 3, (int64_t[]){1, 0, 2})};
  split_same("Transpose int64 2-D", "Transpose", 13, 1, p10, 1, (ox_value *[]){random_tensor(OX_INT64, 2, (int64_t[]){61, 37})});
  split_same("Transpose short rows", "Transpose", 13, 1, p102, 1, (ox_value *[]){random_tensor(OX_FLOAT, 3, (int64_t[]){37, 41, 4})});
  split_same("Transpose uint8", "Transpose", 13, 1, p102, 1, (ox_value *[]){random_tensor(OX_UINT8, 3, (int64_t[]){37, 41, 3})});
  /* Resize */
  ox_value *sc = floats_tensor(4, (float[]){1, 1, 2, 2}), *sc3 = floats_tensor(4, (float[]){1, 1, 1.5f, 0.75f});
  static const char *modes[] = {"nearest", "linear", "cubic"};
  for (int k = 0; k < 3; k++) {
    ox_attr ra[] = {attr_str("mode", modes[k])};
    char label[64];
    snprintf(label, sizeof label, "Resize %s", modes[k]);
    split_same(label, "Resize", 13, 1, ra, 3, (ox_value *[]){x, NULL, sc});
    split_same(label, "Resize", 13, 1, ra, 3, (ox_value *[]){x, NULL, sc3});
  }
  /* pools */
  int64_t k3[2] = {3, 3}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
  ox_attr mp[] = {attr_ints("kernel_shape", 2, k3), attr_ints("strides", 2, s2), attr_ints("pads", 4, p1)};
  split_same("MaxPool 3x3/2", "MaxPool", 12, 3, mp, 1, (ox_value *[]){x});
  split_same("AveragePool 3x3/2", "AveragePool", 19, 3, mp, 1, (ox_value *[]){x});
  split_same("GlobalAveragePool", "GlobalAveragePool", 1, 0, NULL, 1, (ox_value *[]){x});
  split_same("GlobalMaxPool", "GlobalMaxPool", 1, 0, NULL, 1, (ox_value *[]){x});
  /* ConvTranspose: one output channel, input rows split (stride 2, kernel
   * 2: windows apart), with a bias; kernel 3 (windows overlap: output
   * channels split instead) */
  ox_value *ct_x = random_tensor(OX_FLOAT, 4, (int64_t[]){1, 24, 37, 41});
  ox_attr ct2[] = {attr_ints("strides", 2, s2)};
  split_same("ConvTranspose 2x2/2 one channel", "ConvTranspose", 11, 1, ct2, 3,
             (ox_value *[]){ct_x, random_tensor(OX_FLOAT, 4, (int64_t[]){24, 1, 2, 2}),
                            random_tensor(OX_FLOAT, 1, (int64_t[]){1})});
  split_same("ConvTranspose 3x3/2 channel blocks", "ConvTranspose", 11, 1, ct2, 2,
             (ox_value *[]){ct_x, random_tensor(OX_FLOAT, 4, (int64_t[]){24, 8, 3, 3})});
  split_same("ConvTranspose 2x2/2 float16", "ConvTranspose", 11, 1, ct2, 3,
             (ox_value *[]){random_tensor(OX_FLOAT16, 4, (int64_t[]){1, 8, 29, 31}),
                            random_tensor(OX_FLOAT16, 4, (int64_t[]){8, 3, 2, 2}),
                            random_tensor(OX_FLOAT16, 1, (int64_t[]){3})});
  /* Conv over a map of one sliver (1 x 40): the output channels split */
  int64_t k13[2] = {1, 3}, p13[4] = {0, 1, 0, 1};
  ox_attr cv[] = {attr_ints("kernel_shape", 2, k13), attr_ints("pads", 4, p13)};
  split_same("Conv 1x40 map", "Conv", 11, 2, cv, 3,
             (ox_value *[]){random_tensor(OX_FLOAT, 4, (int64_t[]){1, 96, 1, 40}),
                            random_tensor(OX_FLOAT, 4, (int64_t[]){60, 96, 1, 3}),
                            random_tensor(OX_FLOAT, 1, (int64_t[]){60})});
  split_same("Conv 1x40 map float16", "Conv", 11, 2, cv, 2,
             (ox_value *[]){random_tensor(OX_FLOAT16, 4, (int64_t[]){2, 32, 1, 40}),
                            random_tensor(OX_FLOAT16, 4, (int64_t[]){37, 32, 1, 3})});
  ox_attr c1[] = {attr_ints("kernel_shape", 2, (int64_t[]){1, 1})};
  split_same("Conv 1x1 on 3x80", "Conv", 11, 1, c1, 2,
             (ox_value *[]){random_tensor(OX_FLOAT, 4, (int64_t[]){1, 64, 3, 80}),
                            random_tensor(OX_FLOAT, 4, (int64_t[]){72, 64, 1, 1})});
  split_same("Conv double 1x40", "Conv", 11, 2, cv, 2,
             (ox_value *[]){random_tensor(OX_DOUBLE, 4, (int64_t[]){1, 16, 1, 40}),
                            random_tensor(OX_DOUBLE, 4, (int64_t[]){40, 16, 1, 3})});
}

/* How work is shared: Einsum's 64 products of 64^3 go to the pool as one
 * job of whole products (not a job per product, the GEMM splitting each: 64
 * hand-offs; thresholds at 0, so that a dozing pool does not hide them); at
 * the default thresholds, a 1x1 Conv over 80 x 80 (5 tiles of packed
 * columns) gets a tile count each thread count divides. */
static void test_shares(void) {
  ox_value *a = random_tensor(OX_FLOAT, 3, (int64_t[]){64, 64, 64});
  ox_value *b = random_tensor(OX_FLOAT, 3, (int64_t[]){64, 64, 64});
  ox_attr eq = attr_str("equation", "bij,bjk->bik");
  ox_set_threads(1);
  ox_value *y1 = run("Einsum", 12, 1, &eq, 2, (ox_value *[]){a, b});
  ox_set_threads(2);
  ox_par_set_min(0, 0);
  unsigned long j0 = ox_par_jobs();
  ox_value *y2 = run("Einsum", 12, 1, &eq, 2, (ox_value *[]){a, b});
  ox_par_set_min(-1, -1);
  CHECK(y1 && y2 && !memcmp(y1->u.t.data, y2->u.t.data, (size_t)y1->u.t.n * sizeof(float)));
  if (ox_par_jobs() - j0 != 1 || ox_par_last_items() != 64)
    fprintf(stderr, "Einsum 64 x 64^3: %lu jobs, the last of %lld items; want 1 of 64\n",
            ox_par_jobs() - j0, (long long)ox_par_last_items());
  CHECK(ox_par_jobs() - j0 == 1 && ox_par_last_items() == 64);

  ox_value *x = random_tensor(OX_FLOAT, 4, (int64_t[]){1, 64, 80, 80});
  ox_value *w = random_tensor(OX_FLOAT, 4, (int64_t[]){128, 64, 1, 1});
  ox_set_threads(1);
  ox_value *c1 = run("Conv", 11, 0, NULL, 2, (ox_value *[]){x, w});
  for (int t = 2; t <= 7; t++) {
    ox_set_threads(t);
    j0 = ox_par_jobs();
    ox_value *ct = run("Conv", 11, 0, NULL, 2, (ox_value *[]){x, w});
    CHECK(c1 && ct && !memcmp(c1->u.t.data, ct->u.t.data, (size_t)c1->u.t.n * sizeof(float)));
    int64_t n = ox_par_last_items();
    if (ox_par_jobs() - j0 != 1 || n % t)
      fprintf(stderr, "Conv 1x1 80 x 80, %d threads: %lu jobs, the last of %lld items\n", t,
              ox_par_jobs() - j0, (long long)n);
    CHECK(ox_par_jobs() - j0 == 1 && n % t == 0);
  }
  /* steady state: with two threads the same Conv (two slots of tile
   * buffers) and a MatMul (packing buffers per slot) again and again take
   * no page faults: their scratch comes from the pool. glibc's malloc gave
   * it back and mapped it again each call: about 100 faults a call. The
   * median of 10 calls, not their sum: on a shared machine the kernel may
   * reclaim a page now and then (once 27 faults in 10 calls, flaky), which
   * moves a sum but not the median. */
  ox_set_threads(2);
  ox_value *ma = random_tensor(OX_FLOAT, 2, (int64_t[]){300, 500});
  ox_value *mb = random_tensor(OX_FLOAT, 2, (int64_t[]){500, 700});
  long faults[10];
  for (int r = 0; r < 13; r++) {
    ox_mark m = ox_arena_mark(A);
    long f0 = check_minor_faults();
    CHECK(run("Conv", 11, 0, NULL, 2, (ox_value *[]){x, w}) != NULL);
    CHECK(run("MatMul", 13, 0, NULL, 2, (ox_value *[]){ma, mb}) != NULL);
    if (r >= 3) faults[r - 3] = check_minor_faults() - f0;
    ox_arena_release(A, m);
  }
  for (int i = 1; i < 10; i++) /* sorted */
    for (int k = i; k > 0 && faults[k - 1] > faults[k]; k--) {
      long t = faults[k];
      faults[k] = faults[k - 1], faults[k - 1] = t;
    }
  if (ox_arena_pools() && faults[5] >= 5)
    fprintf(stderr, "Conv and MatMul, 2 threads: median %ld page faults a call (10 calls)\n", faults[5]);
  if (ox_arena_pools()) CHECK(faults[5] < 5);
  ox_set_threads(1);
}

/* A run's thread count travels in its kernels' contexts (c->threads), over
 * the process's: with the process at 1, a MatMul whose context says 2 splits
 * over the pool, and one whose context says nothing does not; the same bytes. */
static void test_ctx_threads(void) {
  ox_set_threads(1);
  CHECK_EQ_I(ox_par_chunks(2, 1000, 1e12), 2);
  CHECK_EQ_I(ox_par_chunks(0, 1000, 1e12), 1);
  CHECK_EQ_I(ox_threads_of(2), 2);
  CHECK_EQ_I(ox_threads_of(0), 1);
  CHECK_EQ_I(ox_threads_of(100000), OX_MAX_THREADS);
  ox_value *a = random_tensor(OX_FLOAT, 2, (int64_t[]){300, 257}); /* past the pool's wake-up threshold */
  ox_value *b = random_tensor(OX_FLOAT, 2, (int64_t[]){257, 301});
  unsigned long jobs = ox_par_jobs();
  ox_value *y1 = run("MatMul", 13, 0, NULL, 2, (ox_value *[]){a, b});
  CHECK(y1 != NULL);
  CHECK(ox_par_jobs() == jobs); /* the process's one thread */
  ctx_threads = 2;
  ox_value *y2 = run("MatMul", 13, 0, NULL, 2, (ox_value *[]){a, b});
  ctx_threads = 0;
  CHECK(y2 != NULL);
  CHECK(ox_par_jobs() > jobs); /* the context's two */
  CHECK(y1 && y2 && !memcmp(y1->u.t.data, y2->u.t.data, (size_t)y1->u.t.n * sizeof(float)));
}

int main(void) {
  alarm(300); /* a pool that loses a chunk waits for ever: fail instead */
  A = ox_arena_new();
  test_pool();
  test_ctx_threads();
  test_handoff();
  test_shares();

  matmul_case(OX_FLOAT, 1, 129, 67, 131, 0);  /* rows split, ragged tiles */
  matmul_case(OX_FLOAT, 1, 1, 300, 2051, 0);  /* one row: columns split */
  matmul_case(OX_FLOAT, 1, 4001, 40, 7, 0);   /* tall and thin */
  matmul_case(OX_FLOAT, 3, 65, 97, 83, 0);    /* batch */
  matmul_case(OX_FLOAT, 2, 300, 301, 17, 1);  /* batch, b broadcast */
  matmul_case(OX_DOUBLE, 1, 211, 130, 97, 0);
  matmul_case(OX_FLOAT, 1, 515, 600, 517, 0); /* several K and M blocks */
  /* many small products: split by whole products */
  matmul_case(OX_FLOAT, 4096, 8, 8, 8, 0);
  matmul_case(OX_FLOAT, 3001, 4, 16, 6, 1);   /* b broadcast over the batch */
  matmul_case(OX_DOUBLE, 2003, 5, 9, 7, 0);
  matmul_case(OX_INT32, 4096, 8, 8, 8, 0);    /* a row accumulator per thread */
  /* Einsum's batched GEMM: many small products, split by whole products;
   * operands in place, transposed in place, or gathered, y written in place
   * or gathered */
  einsum_case(OX_FLOAT, "bij,bjk->bik", (int64_t[]){61, 37, 29}, (int64_t[]){61, 29, 41});
  einsum_case(OX_FLOAT, "bhid,bhjd->bhij", (int64_t[]){4, 8, 40, 24}, (int64_t[]){4, 8, 36, 24});
  einsum_case(OX_FLOAT, "bij,bjk->kbi", (int64_t[]){61, 37, 29}, (int64_t[]){61, 29, 41});
  einsum_case(OX_FLOAT, "bji,bkj->bik", (int64_t[]){61, 29, 37}, (int64_t[]){61, 41, 29}); /* both transposed */
  einsum_case(OX_FLOAT, "ibj,bjk->bik", (int64_t[]){37, 61, 29}, (int64_t[]){61, 29, 41}); /* a gathered */
  einsum_case(OX_DOUBLE, "bij,bkj->bik", (int64_t[]){50, 20, 30}, (int64_t[]){50, 25, 30});
  einsum_case(OX_FLOAT, "ij,jk->ik", (int64_t[]){300, 257}, (int64_t[]){257, 301}); /* one big product */
  gemm_case(133, 71, 129, 0, 0);
  gemm_case(133, 71, 129, 1, 1);
  gemm_case(37, 300, 1027, 1, 0);

  conv_case(2, 16, 45, 47, 24, 2, 3, 3, 1, 2, 1, 1);  /* groups, strides */
  conv_case(1, 64, 40, 40, 48, 1, 1, 1, 1, 1, 0, 0);  /* pointwise */
  conv_case(2, 32, 64, 64, 32, 32, 3, 3, 1, 1, 1, 1); /* depthwise */
  conv_case(1, 8, 150, 151, 13, 1, 5, 3, 2, 1, 2, 1); /* many tiles */

  reduce_case("ReduceSum", OX_FLOAT, 1, 300, 4099, 1, (int64_t[]){2});
  reduce_case("ReduceSum", OX_FLOAT, 1001, 3, 700, 1, (int64_t[]){1});
  reduce_case("ReduceMean", OX_FLOAT, 7, 300, 601, 2, (int64_t[]){1, 2});
  reduce_case("ReduceSum", OX_DOUBLE, 513, 2049, 1, 1, (int64_t[]){1});
  reduce_case("ReduceSum", OX_FLOAT, 4096, 300, 1, 1, (int64_t[]){0}); /* leading axis */
  reduce_case("ReduceMean", OX_FLOAT, 333, 3001, 1, 1, (int64_t[]){1});

  softmax_case("Softmax", 1, 513, 2049, 2);
  softmax_case("Softmax", 40, 300, 97, 1);     /* rows of 97: vectors and a tail */
  softmax_case("LogSoftmax", 3, 1000, 333, 1);
  softmax_case("Softmax", 1, 1024, 1024, 1);   /* axis 0 of a matrix: one slice */

  split_cases();

  ox_arena_free(A);
  return check_done("threads");
}
