/* core/threads.c: the pool behind ox_par_for (see threads.h).
 *
 * One job at a time, handed over without a lock. The job's chunks fall into
 * one block per thread (slot s owns block s, so a thread works on the same
 * part of a tensor from one op to the next, in its own cache); each block has
 * a ticket, one 64-bit word: the job's generation, the block's end and its
 * next chunk. A thread takes the chunks of its own block, then those left in
 * the others, each by a compare-and-swap on a ticket that still names the
 * job: a thread the system has descheduled holds up no more than its current
 * chunk, and one that wakes after its job ended finds every ticket moved on.
 *
 * The caller (slot 0) closes every block's ticket under the new generation
 * before it writes the job's fields, then opens the blocks and publishes the
 * generation. A worker reads the fields only after it has seen the
 * generation, with acquire loads; had it read any field of a later job, its
 * swap on the old ticket must fail (the close came first), so a chunk is
 * only ever run with its own job's fields.
 *
 * Waiting spins briefly (SPIN_NS, with the CPU's pause hint) and then
 * sleeps: workers on the generation, the caller on the count of chunks done.
 * Ops between convolutions last tens of µs, less than a futex wake-up on a
 * busy virtual machine; the spin is bounded so that a worker with nothing to
 * do gives its core back soon. Sleepers announce themselves (`sleepers`,
 * `caller_sleeps`) before their last check, and the other side looks after
 * its store (both sequentially consistent), so no wake-up is lost.
 *
 * A process forked after the pool started (onnxop test -j) has none of its
 * threads: the pool notices the new pid and starts afresh. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "threads.h"

/* the process's count (ox_set_threads), for a run that names none */
static int nthreads = 1;

static int clamp(int n) {
  if (n <= 0) n = ox_cpu_count();
  return n < 1 ? 1 : n > OX_MAX_THREADS ? OX_MAX_THREADS : n;
}

void ox_set_threads(int n) { __atomic_store_n(&nthreads, clamp(n), __ATOMIC_RELAXED); }

int ox_threads_of(int threads) {
  if (threads >= 1) return threads < OX_MAX_THREADS ? threads : OX_MAX_THREADS;
  return __atomic_load_n(&nthreads, __ATOMIC_RELAXED);
}

int ox_threads(void) { return ox_threads_of(0); }

int ox_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > OX_MAX_THREADS ? OX_MAX_THREADS : (int)n;
}

/* How long a waiting thread spins before it sleeps. */
#ifndef SPIN_NS
#define SPIN_NS 50000
#endif
/* Chunks per thread: a few, so that a busy machine evens out. */
#define CHUNKS_PER_THREAD 4

/* A ticket: generation << 24 | end << 12 | next (chunk numbers < 4096). */
#define T_GEN(t) ((t) >> 24)
#define T_END(t) ((unsigned)((t) >> 12) & 0xfff)
#define T_NEXT(t) ((unsigned)(t) & 0xfff)
#define TICKET(g, end, next) ((uint64_t)(g) << 24 | (uint64_t)(end) << 12 | (uint64_t)(next))

static struct {
  pthread_mutex_t mu;
  pthread_cond_t go;     /* sleeping workers wait here for a new generation */
  pthread_cond_t fin;    /* the sleeping caller waits here for the last chunk */
  pid_t pid;             /* the process whose threads these are */
  int workers;           /* started */
  uint64_t gen;          /* bumped per job (only the caller writes it) */
  int sleepers;          /* workers asleep on `go`, or about to be */
  int caller_sleeps;     /* the caller asleep on `fin`, or about to be */
  /* the job: written while every ticket is closed */
  ox_par_fn fn;
  void *arg;
  int64_t n;
  int nchunks, stride;
  int done;              /* chunks finished */
  unsigned long jobs;    /* handed to the pool (ox_par_jobs) */
  int64_t last_n;        /* the items of the last one (ox_par_last_items) */
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER, .fin = PTHREAD_COND_INITIALIZER};

/* one ticket per block, each on its own cache line */
static struct {
  uint64_t t;
  char pad[64 - sizeof(uint64_t)];
} ticket[OX_MAX_THREADS] __attribute__((aligned(64)));

/* Set in pool threads, and in the caller while it runs a job. */
static _Thread_local int in_chunk;

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin until *p differs from `seen` or SPIN_NS pass; returns what it read. */
static uint64_t spin_while_u64(const uint64_t *p, uint64_t seen) {
  int64_t t0 = 0;
  for (unsigned i = 1;; i++) {
    uint64_t v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    if (v != seen) return v;
    cpu_relax();
    if (i % 64 == 0) { /* the clock now and then: a pause takes 10 to 150 cycles */
      int64_t t = now_ns();
      if (!t0) t0 = t;
      else if (t - t0 > SPIN_NS) return v;
    }
  }
}

/* Take a chunk of block b of job generation g: its number, or -1 when the
 * block is empty or the job is over. */
static int take(int b, uint64_t g) {
  uint64_t t = __atomic_load_n(&ticket[b].t, __ATOMIC_ACQUIRE);
  for (;;) {
    if (T_GEN(t) != g || T_NEXT(t) >= T_END(t)) return -1;
    if (__atomic_compare_exchange_n(&ticket[b].t, &t, t + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return (int)T_NEXT(t);
  }
}

/* Run chunks of job g as slot `slot`: its own block first, then the others'
 * leftovers. */
static void run_chunks(int slot, uint64_t g) {
  ox_par_fn fn = __atomic_load_n(&pool.fn, __ATOMIC_ACQUIRE);
  void *arg = __atomic_load_n(&pool.arg, __ATOMIC_ACQUIRE);
  int64_t n = __atomic_load_n(&pool.n, __ATOMIC_ACQUIRE);
  int nchunks = __atomic_load_n(&pool.nchunks, __ATOMIC_ACQUIRE);
  int stride = __atomic_load_n(&pool.stride, __ATOMIC_ACQUIRE);
  if (slot >= stride) return; /* not needed (or a later job's: then no ticket names g) */
  for (int k = 0; k < stride; k++) {
    int b = (slot + k) % stride, c;
    while ((c = take(b, g)) >= 0) {
      fn(arg, slot, (int64_t)((__int128)n * c / nchunks), (int64_t)((__int128)n * (c + 1) / nchunks));
      if (__atomic_add_fetch(&pool.done, 1, __ATOMIC_SEQ_CST) == nchunks &&
          __atomic_load_n(&pool.caller_sleeps, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&pool.mu);
        pthread_cond_signal(&pool.fin);
        pthread_mutex_unlock(&pool.mu);
      }
    }
  }
}

/* The generation each worker was started in: it waits for the next one. */
static uint64_t start_gen[OX_MAX_THREADS];

static void *worker(void *p) {
  int w = (int)(intptr_t)p;
  in_chunk = 1;
  uint64_t seen = start_gen[w];
  for (;;) {
    uint64_t g = spin_while_u64(&pool.gen, seen);
    if (g == seen) { /* nothing came: sleep */
      pthread_mutex_lock(&pool.mu);
      __atomic_add_fetch(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
      while ((g = __atomic_load_n(&pool.gen, __ATOMIC_SEQ_CST)) == seen) pthread_cond_wait(&pool.go, &pool.mu);
      __atomic_sub_fetch(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
      pthread_mutex_unlock(&pool.mu);
    }
    seen = g;
    run_chunks(w, g);
  }
  return NULL;
}

/* Start workers until there are `want` (fewer if the system refuses). */
static void grow(int want) {
  pid_t me = getpid();
  if (pool.pid != me) { /* first use, or a forked child: no workers here */
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.go, NULL);
    pthread_cond_init(&pool.fin, NULL);
    pool.pid = me;
    pool.workers = 0;
    /* read by other application threads' ox_par_chunks: atomic stores */
    __atomic_store_n(&pool.sleepers, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&pool.caller_sleeps, 0, __ATOMIC_RELAXED);
  }
  while (pool.workers < want) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    start_gen[pool.workers + 1] = pool.gen; /* only this thread writes gen */
    int rc = pthread_create(&t, &at, worker, (void *)(intptr_t)(pool.workers + 1));
    pthread_attr_destroy(&at);
    if (rc) break;
    pool.workers++;
  }
}

/* the thresholds (ox_par_set_min: tests set them before any work) */
static double min_work = OX_PAR_MIN_WORK, min_bytes = OX_PAR_MIN_BYTES;

void ox_par_set_min(double work, double bytes) {
  min_work = work < 0 ? OX_PAR_MIN_WORK : work;
  min_bytes = bytes < 0 ? OX_PAR_MIN_BYTES : bytes;
}

/* How many threads for n items of `work` against the threshold `min`. A
 * worker that has gone to sleep takes a system call and tens of µs to wake:
 * while one sleeps, only work WAKE_FACTOR times the threshold wakes it (so
 * a small model's few small jobs, after the pool has dozed off, run
 * inline). */
#define WAKE_FACTOR 16
static int chunks(int threads, int64_t n, double work, double min) {
  int t = ox_threads_of(threads);
  if (t <= 1 || in_chunk || n <= 1 || work < min) return 1;
  if (work < WAKE_FACTOR * min && __atomic_load_n(&pool.sleepers, __ATOMIC_RELAXED)) return 1;
  return n < t ? (int)n : t;
}

int ox_par_chunks(int threads, int64_t n, double work) { return chunks(threads, n, work, min_work); }

int ox_par_worth(int threads, double work) { return ox_par_chunks(threads, 2, work) > 1; }

int ox_par_chunks_mem(int threads, int64_t n, double bytes) { return chunks(threads, n, bytes, min_bytes); }

unsigned long ox_par_jobs(void) { return __atomic_load_n(&pool.jobs, __ATOMIC_RELAXED); }

int64_t ox_par_last_items(void) { return __atomic_load_n(&pool.last_n, __ATOMIC_RELAXED); }

void ox_par_for(int64_t n, int nslots, ox_par_fn fn, void *arg) {
  if (n <= 0) return;
  if (nslots <= 1 || in_chunk) {
    fn(arg, 0, 0, n);
    return;
  }
  /* one job at a time: a second application thread runs its own inline */
  static int taken;
  if (__atomic_exchange_n(&taken, 1, __ATOMIC_ACQUIRE)) {
    fn(arg, 0, 0, n);
    return;
  }
  /* nslots is at most the run's count (ox_par_chunks) */
  int want = (nslots < OX_MAX_THREADS ? nslots : OX_MAX_THREADS) - 1;
  grow(want);
  /* workers 1..stride-1 and this thread */
  int stride = (pool.workers < want ? pool.workers : want) + 1;
  if (stride == 1) {
    __atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
    fn(arg, 0, 0, n);
    return;
  }
  int nchunks = n < CHUNKS_PER_THREAD * (int64_t)stride ? (int)n : CHUNKS_PER_THREAD * stride;
  __atomic_add_fetch(&pool.jobs, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&pool.last_n, n, __ATOMIC_RELAXED);
  uint64_t g = pool.gen + 1;
  /* close every block under g, so that no worker of an earlier job takes a
   * chunk with the fields written next */
  for (int b = 0; b < stride; b++) __atomic_store_n(&ticket[b].t, TICKET(g, 0, 0), __ATOMIC_SEQ_CST);
  __atomic_store_n(&pool.fn, fn, __ATOMIC_RELEASE);
  __atomic_store_n(&pool.arg, arg, __ATOMIC_RELEASE);
  __atomic_store_n(&pool.n, n, __ATOMIC_RELEASE);
  __atomic_store_n(&pool.nchunks, nchunks, __ATOMIC_RELEASE);
  __atomic_store_n(&pool.stride, stride, __ATOMIC_RELEASE);
  __atomic_store_n(&pool.done, 0, __ATOMIC_RELEASE);
  /* block b: chunks [nchunks b / stride, nchunks (b + 1) / stride) */
  for (int b = 0; b < stride; b++)
    __atomic_store_n(&ticket[b].t, TICKET(g, nchunks * (b + 1) / stride, nchunks * b / stride), __ATOMIC_RELEASE);
  __atomic_store_n(&pool.gen, g, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&pool.sleepers, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&pool.mu);
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.mu);
  }
  in_chunk = 1;
  run_chunks(0, g);
  in_chunk = 0;
  /* every chunk is taken; wait for those that workers still run */
  int d = __atomic_load_n(&pool.done, __ATOMIC_ACQUIRE);
  if (d != nchunks) {
    int64_t t0 = now_ns();
    for (unsigned i = 1; (d = __atomic_load_n(&pool.done, __ATOMIC_ACQUIRE)) != nchunks; i++) {
      cpu_relax();
      if (i % 64 == 0 && now_ns() - t0 > SPIN_NS) break;
    }
  }
  if (d != nchunks) {
    pthread_mutex_lock(&pool.mu);
    __atomic_store_n(&pool.caller_sleeps, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&pool.done, __ATOMIC_SEQ_CST) != nchunks) pthread_cond_wait(&pool.fin, &pool.mu);
    __atomic_store_n(&pool.caller_sleeps, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool.mu);
  }
  __atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
}
