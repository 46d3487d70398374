/* core/threads.c: the pool behind ox_par_for (see threads.h).
 *
 * One job at a time: the caller publishes (fn, arg, n, nchunks) under the
 * mutex, bumps a generation counter and wakes the workers; the caller (slot
 * 0) and workers 1 .. T-1 take chunks in turn from a shared counter, so a
 * thread the system has descheduled holds up no more than its current chunk.
 * The caller waits only for workers that joined the job (`active`): when it
 * has run out of chunks and none is active, it closes the job, and a worker
 * that wakes later finds it closed and sleeps again, so a worker that the
 * system is slow to wake costs nothing. A process forked after the pool
 * started (onnxop test -j) has none of its threads: the pool notices the new
 * pid and starts afresh. */
#include <pthread.h>
#include <unistd.h>

#include "threads.h"

/* the process's count (ox_set_threads), and a thread's own for a run
 * (ox_set_run_threads; 0: none, the process's applies) */
static int nthreads = 1;
static _Thread_local int run_threads;

static int clamp(int n) {
  if (n <= 0) n = ox_cpu_count();
  return n < 1 ? 1 : n > OX_MAX_THREADS ? OX_MAX_THREADS : n;
}

void ox_set_threads(int n) { __atomic_store_n(&nthreads, clamp(n), __ATOMIC_RELAXED); }

int ox_set_run_threads(int n) {
  int old = run_threads;
  run_threads = n <= 0 ? 0 : clamp(n);
  return old;
}

int ox_threads(void) { return run_threads ? run_threads : __atomic_load_n(&nthreads, __ATOMIC_RELAXED); }

int ox_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > OX_MAX_THREADS ? OX_MAX_THREADS : (int)n;
}

static struct {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  pid_t pid;             /* the process whose threads these are */
  int workers;           /* started */
  unsigned long gen;     /* bumped per job */
  int active;            /* workers running chunks of the current job */
  int open;              /* the current job still takes workers */
  ox_par_fn fn;          /* the job */
  void *arg;
  int64_t n;
  int nchunks, stride;
  int next;              /* the next chunk to take */
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

/* Set in pool threads, and in the caller while it runs a job. */
static _Thread_local int in_chunk;

/* Take chunks until none is left; `slot` is the caller's per-thread index. */
static void run_chunks(int slot, int nchunks, int64_t n, ox_par_fn fn, void *arg) {
  for (;;) {
    int c = __atomic_fetch_add(&pool.next, 1, __ATOMIC_RELAXED);
    if (c >= nchunks) return;
    fn(arg, slot, (int64_t)((__int128)n * c / nchunks), (int64_t)((__int128)n * (c + 1) / nchunks));
  }
}

/* The generation each worker was started in: it waits for the next one. */
static unsigned long start_gen[OX_MAX_THREADS];

static void *worker(void *p) {
  int w = (int)(intptr_t)p;
  in_chunk = 1;
  pthread_mutex_lock(&pool.mu);
  unsigned long seen = start_gen[w];
  for (;;) {
    while (pool.gen == seen) pthread_cond_wait(&pool.go, &pool.mu);
    seen = pool.gen;
    if (!pool.open || w >= pool.stride) continue; /* too late, or not needed */
    pool.active++;
    ox_par_fn fn = pool.fn;
    void *arg = pool.arg;
    int64_t n = pool.n;
    int nchunks = pool.nchunks;
    pthread_mutex_unlock(&pool.mu);
    run_chunks(w, nchunks, n, fn, arg);
    pthread_mutex_lock(&pool.mu);
    if (--pool.active == 0) pthread_cond_signal(&pool.done);
  }
  return NULL;
}

/* Start workers until there are `want` (fewer if the system refuses). */
static void grow(int want) {
  pid_t me = getpid();
  if (pool.pid != me) { /* first use, or a forked child: no workers here */
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.go, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.pid = me;
    pool.workers = 0;
    pool.active = pool.open = 0;
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

int ox_par_chunks(int64_t n, double work) {
  int t = ox_threads();
  if (t <= 1 || in_chunk || n <= 1 || work < OX_PAR_MIN_WORK) return 1;
  return n < t ? (int)n : t;
}

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
  int t = ox_threads();
  int want = nslots - 1 < t - 1 ? nslots - 1 : t - 1;
  grow(want);
  /* workers 1..stride-1 and this thread */
  int stride = (pool.workers < want ? pool.workers : want) + 1;
  if (stride == 1) {
    __atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
    fn(arg, 0, 0, n);
    return;
  }
  /* a few chunks per thread, so that a busy machine evens out */
  int64_t nchunks = n < 4 * (int64_t)stride ? n : 4 * (int64_t)stride;
  pthread_mutex_lock(&pool.mu);
  pool.fn = fn;
  pool.arg = arg;
  pool.n = n;
  pool.nchunks = (int)nchunks;
  pool.stride = stride;
  pool.next = 0;
  pool.active = 0;
  pool.open = 1;
  pool.gen++;
  pthread_cond_broadcast(&pool.go);
  pthread_mutex_unlock(&pool.mu);
  in_chunk = 1;
  run_chunks(0, (int)nchunks, n, fn, arg);
  in_chunk = 0;
  pthread_mutex_lock(&pool.mu);
  while (pool.active > 0) pthread_cond_wait(&pool.done, &pool.mu);
  pool.open = 0; /* every chunk taken and done: late workers stay out */
  pthread_mutex_unlock(&pool.mu);
  __atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
}
