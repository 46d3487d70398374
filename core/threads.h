/* core/threads.h: --threads N, a small pool and a parallel-for with static
 * chunks.
 *
 * Results never depend on the thread count: a kernel splits its work into
 * chunks each of which computes whole output elements, in the same order of
 * operations as one thread would (no sum is split across chunks), so any
 * chunking gives the same bytes.
 *
 * The pool's threads are created on the first parallel call that needs them
 * (never with --threads 1, nor for work under OX_PAR_MIN_WORK); the calling
 * thread runs chunk 0. A parallel call made inside a chunk runs inline. The
 * arena is single-threaded: a kernel allocates what each chunk needs before
 * it fans out. */
#ifndef OX_THREADS_H
#define OX_THREADS_H

#include <stdint.h>

#define OX_MAX_THREADS 256
/* Below this much work (about one multiply-add each: one core does about
 * 100 in a ns; a kernel whose element costs more counts more), a
 * parallel-for runs inline: handing chunks to the pool costs more (about a
 * µs when its threads are awake). */
#define OX_PAR_MIN_WORK (1 << 18)
/* The same for a kernel bound by memory: bytes read and written in all. */
#define OX_PAR_MIN_BYTES (1 << 18)

/* The process's thread count, for a run that names none (the CLI's
 * --threads): n >= 1, or 0 for every CPU (clamped to OX_MAX_THREADS). The
 * default is 1. */
void ox_set_threads(int n);
/* A run's thread count: `threads` (a kernel's c->threads, which the run's
 * options set) when >= 1, clamped to OX_MAX_THREADS; else the process's. */
int ox_threads_of(int threads);
/* The process's count: ox_threads_of(0) */
int ox_threads(void);
int ox_cpu_count(void);

/* How many threads to split n items (about `work` operations in all) over,
 * for a run of `threads` threads (a kernel's c->threads; 0: the
 * process's): 1 with one thread, inside a chunk, or for small work (under
 * the threshold, or under 16 times it while the pool's threads are asleep);
 * else at most ox_threads_of(threads) and n. Allocate per-thread scratch
 * for this many slots. */
int ox_par_chunks(int threads, int64_t n, double work);
/* Would ox_par_chunks split `work` at all (more than one thread, not inside
 * a chunk, work above the threshold)? For kernels that shape their items
 * for the threads. */
int ox_par_worth(int threads, double work);
/* The same for a kernel whose time goes in moving `bytes` (read and
 * written): elementwise ops, copies, pools, Cast. */
int ox_par_chunks_mem(int threads, int64_t n, double bytes);
/* For tests: the thresholds in place of OX_PAR_MIN_WORK and
 * OX_PAR_MIN_BYTES (0: split work of any size; negative: the defaults). */
void ox_par_set_min(double work, double bytes);
/* For tests: how many jobs ox_par_for has handed to the pool so far. */
unsigned long ox_par_jobs(void);
/* For tests: how many items the last job handed to the pool had. */
int64_t ox_par_last_items(void);

/* Run fn(arg, slot, lo, hi) over chunks [lo, hi) that cover items [0, n),
 * on up to nslots threads (what ox_par_chunks gave: the run's count is in
 * it); `slot` (0 .. nslots-1) names the thread running
 * the chunk, for its scratch. How items fall into chunks, and chunks onto
 * threads, varies: fn must compute each item the same way in any chunk.
 * Returns when every chunk is done. */
typedef void (*ox_par_fn)(void *arg, int slot, int64_t lo, int64_t hi);
void ox_par_for(int64_t n, int nslots, ox_par_fn fn, void *arg);

#endif
