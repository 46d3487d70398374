/* core/arena.h: one arena per run; everything a run allocates is released at once.
 *
 * Small allocations come from chunks; large ones (>= 64 KiB) are separate
 * blocks on a list, so a mark/release (used by Loop and Scan bodies) can give
 * them back, and the evaluator can give one back as soon as no value holds it
 * (ox_live_* below). What is given back goes to a pool that later allocations
 * (of this arena or another) take from, so a run that repeats earlier sizes
 * makes no system call. Memory is zeroed and 64-byte aligned. NULL means out
 * of memory or a size that overflows. */
#ifndef OX_ARENA_H
#define OX_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct ox_arena ox_arena;
typedef struct { void *chunk; size_t used; uint64_t serial; } ox_mark;

ox_arena *ox_arena_new(void);
void ox_arena_free(ox_arena *a);
void *ox_alloc(ox_arena *a, size_t n);
/* As ox_alloc, but not zeroed (fresh pages from mmap still are): for
 * outputs the caller writes in full. */
void *ox_alloc_uninit(ox_arena *a, size_t n);
/* count * size with overflow checks; count < 0 gives NULL. */
void *ox_alloc_array(ox_arena *a, int64_t count, size_t size);
char *ox_strndup(ox_arena *a, const char *s, size_t n);
char *ox_strdup(ox_arena *a, const char *s);
char *ox_sprintf(ox_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ox_mark ox_arena_mark(ox_arena *a);
void ox_arena_release(ox_arena *a, ox_mark m);
size_t ox_arena_bytes(const ox_arena *a); /* bytes currently held */

/* Liveness, for the evaluator (core/eval.c): between ox_live_begin and the
 * matching ox_live_end (nested for subgraphs; the outermost pair is one
 * session), every block of 64 KiB and more the arena hands out is tracked,
 * with a count of the values that hold it. ox_live_ref(a, p) counts one more
 * holder of the tracked block holding byte p (nothing if p is in no tracked
 * block: a chunk, another arena, memory from before the session);
 * ox_live_unref counts one less, and with `give` gives the block back at
 * zero (then it returns 1). ox_live_sweep gives back every tracked block
 * handed out after serial `since` and up to serial `until` (ox_live_now()
 * just before and just after a kernel's call) that no value holds: the
 * kernel's scratch, an output nobody reads. Only that window is swept: what
 * the evaluator allocates around the call (its scope's tables as they grow,
 * the arrays of a node's inputs and outputs) is never taken for scratch.
 * ox_live_freeze stops all giving back for the rest of the session: for
 * values whose references the evaluator cannot follow (sequences,
 * optionals, maps, strings). */
void ox_live_begin(ox_arena *a);
void ox_live_end(ox_arena *a);
int ox_live_on(const ox_arena *a); /* in a session, not frozen */
void ox_live_freeze(ox_arena *a);
uint64_t ox_live_now(void);
void ox_live_ref(ox_arena *a, const void *p);
int ox_live_unref(ox_arena *a, const void *p, int give);
void ox_live_sweep(ox_arena *a, uint64_t since, uint64_t until);
/* Writing over an input that dies: before a node runs, the evaluator offers
 * the memory of each input the node is the last reader of, when that input
 * alone holds a tracked block and starts it (ox_live_offer: nothing happens
 * otherwise); an elementwise kernel may then take it (ox_live_take: 1, once)
 * and write its output there instead of into new memory. The offers end
 * when the node does (ox_live_offers_end). */
void ox_live_offer(ox_arena *a, const void *p);
int ox_live_take(ox_arena *a, const void *p);
void ox_live_offers_end(ox_arena *a);
/* How many allocations all arenas have made so far: a test can tell an
 * algorithm's cost by it without timing anything. */
uint64_t ox_arena_allocs(void);
/* Whether memory given back is kept for the next request (1), or returned to
 * the system at once (0: under AddressSanitizer, so that it sees every block
 * and every use after one is given back). */
int ox_arena_pools(void);

/* One limit (--max-memory) for all arenas together and for every large block
 * onnxop's libraries allocate (parsers, protobuf-c, zlib, image decoders,
 * through ox_mem_malloc below); allocations past it fail. The default is
 * three quarters of physical memory.
 *
 * The limit and the bytes in use are an account: the process's, which the
 * CLI uses alone, or one that a thread chooses with ox_mem_use (the library
 * gives each run its own, with the run's limit). An arena counts against the
 * account its thread had when it was made (the account must outlive it);
 * ox_mem_ and ox_heap_ functions against the thread's account now. limit 0
 * is the default. ox_memory_limit and ox_memory_in_use are the calling
 * thread's account's; ox_set_memory_limit sets the process's. */
typedef struct ox_memctx {
  size_t limit, in_use;
  /* what sets the limit, as the caller names it, for messages ("see
   * --max-memory" from the CLI, "see max_memory" from the API); NULL: the
   * messages name nothing, as the library has no flags of its own */
  const char *source;
} ox_memctx;
ox_memctx *ox_mem_use(ox_memctx *m); /* NULL: the process's; returns the one before */
size_t ox_memory_limit(void);
void ox_set_memory_limit(size_t bytes);
/* The name of what sets the process's limit (its account's source) */
void ox_set_memory_limit_source(const char *source);
/* "L bytes" with the thread's account's limit, then "; see SOURCE" when the
 * account names it: the words every "memory limit" message puts in brackets */
const char *ox_memory_limit_str(char *buf, size_t n);
/* "; see SOURCE", or "" when the account names nothing */
const char *ox_memory_limit_source(char *buf, size_t n);
size_t ox_memory_in_use(void);
/* Count n more bytes against the limit: 0, or -1 (nothing counted) when that
 * would pass it. ox_mem_uncharge gives them back. For memory a library holds
 * that onnxop cannot hook: charge its size for as long as it is held. */
int ox_mem_charge(size_t n);
void ox_mem_uncharge(size_t n);
/* Why the calling thread's most recent allocation request failed (any arena or ox_mem_ or
 * ox_heap_ function): refused by the limit (also a size that overflows),
 * by the system, or injected (test builds, below); OX_MEM_OK before any
 * failure. ox_oom says it. */
typedef enum { OX_MEM_OK, OX_MEM_LIMIT, OX_MEM_SYSTEM, OX_MEM_INJECTED } ox_mem_cause;
ox_mem_cause ox_mem_last_failure(void);
/* For the calling thread's most recent request the limit refused: the bytes
 * its account held then, and the bytes it asked for (SIZE_MAX: a size that
 * overflows). ox_oom says them. */
void ox_mem_last_refusal(size_t *in_use, size_t *asked);
/* How many of the calling thread's requests have failed so far, for any of those causes: a library
 * that fails after this count moved failed for lack of memory, whatever it
 * says. */
size_t ox_mem_failures(void);
/* malloc, realloc and free counted against the limit, for the hooks of cJSON,
 * protobuf-c, zlib, libpng and stb_image, and for onnxop's own buffers that
 * can grow large (io/'s ox_buf and ox_out, scratch space): NULL when the
 * limit (or the system) refuses. A block from one of them must be freed by
 * ox_mem_free. ox_mem_aligned's block is 64-byte aligned. */
void *ox_mem_malloc(size_t n);
void *ox_mem_realloc(void *p, size_t n);
void *ox_mem_aligned(size_t n);
void ox_mem_free(void *p);
/* Counted as those, 64-byte aligned, not zeroed, for a kernel's working
 * buffers of one call (GEMM packing, im2col tiles): blocks of 64 KiB and
 * more come from and go back to the arenas' pool, so that a model's steady
 * state makes no system call for them. Freed by ox_mem_scratch_free, from
 * any thread. */
void *ox_mem_scratch(size_t n);
void ox_mem_scratch_free(void *p);
/* malloc, calloc, realloc, strdup and strndup for small bookkeeping (lists
 * of names, of files): not counted against the limit, freed with free().
 * They differ from libc's only in that a test build can make them fail. */
void *ox_heap_malloc(size_t n);
void *ox_heap_calloc(size_t n, size_t size);
void *ox_heap_realloc(void *p, size_t n);
char *ox_heap_strdup(const char *s);
char *ox_heap_strndup(const char *s, size_t n);

/* Fault injection, as SQLite's tests do it, in test builds only (compiled
 * with -DOX_FAULT_INJECTION: the ASan build): ONNXOP_FAIL_ALLOC=N makes the
 * N-th allocation request of the process fail (every function above that
 * allocates counts one per call), as if the system had refused it, and
 * writes one line to standard error naming the request and where it came
 * from (tests/faults.py reads it). ONNXOP_FAIL_ALLOC=0 fails none and counts
 * them at exit; with ONNXOP_FAIL_ALLOC_TRACE=1 too, each request says where
 * it comes from. A release build has none of this and reads no such
 * variable. */
#ifdef OX_FAULT_INJECTION
int ox_fault_now(void); /* 1 when this request is the one to fail */
#else
#define ox_fault_now() 0
#endif

#endif
