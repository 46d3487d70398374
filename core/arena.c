/* core/arena.c: chunked bump allocation, big blocks on their own list, and a
 * process-wide pool of memory that arenas give back.
 *
 * Every allocation is zeroed (ox_alloc) and 64-byte aligned (so kernels may
 * use aligned vector loads). Small allocations are carved from 256 KiB chunks;
 * allocations of 64 KiB and more are blocks of their own, on a list newest
 * first. A mark records the current chunk, its fill and the newest block's
 * serial number; release gives back what came after.
 *
 * Memory comes from mmap in page multiples and goes back to a pool, not to the
 * system: a run that allocates the sizes an earlier run (or an earlier node)
 * gave back makes no system call and takes no page fault (a first touch of a
 * fresh page costs a fault: on virtual machines tens of microseconds per
 * 4 KiB page, far more than writing it); a fresh region of 4 MiB or more
 * is asked for in huge pages (ox_sys_huge: a fault per 2 MiB). Under
 * AddressSanitizer blocks come from malloc instead and go straight back, so
 * that its redzones and its quarantine still catch overflows and uses after
 * an early release. */
#ifdef OX_FAULT_INJECTION
#define _GNU_SOURCE /* dladdr */
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef OX_FAULT_INJECTION
#include <dlfcn.h>
#include <execinfo.h>
#endif

#include "arena.h"
#include "sys.h"

#if defined(__SANITIZE_ADDRESS__)
#define OX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OX_ASAN 1
#endif
#endif

#define ALIGN 64
#define CHUNK (256 * 1024) /* a chunk's size, its header included */
#define BIG (64 * 1024)
#define PAGE 4096
#define OFFERS 8

/* A chunk's header, then the bump area. */
typedef struct chunk { struct chunk *prev; size_t size, used; } chunk;
/* A big block's header (padded to ALIGN), then the caller's bytes. newer/older
 * link the arena's list; serial orders blocks for marks and liveness. */
typedef struct big {
  struct big *newer, *older;
  size_t size;      /* the whole block, header included */
  uint64_t serial;  /* when it was handed out: later blocks have larger serials */
  int32_t refs;     /* liveness: values holding it (see ox_live_ref) */
} big;

struct ox_arena {
  chunk *cur;
  big *bigs; /* newest first */
  size_t held;
  /* liveness (ox_live_begin ... ox_live_end) */
  int live_depth, frozen;
  uint64_t live_since; /* blocks with larger serials are tracked */
  const void *offer[OFFERS]; /* inputs the running node may write over */
  int noffer;
  ox_memctx *mem; /* the account its memory counts against */
};

/* the newest block's serial, over all arenas (atomic: arenas of other
 * threads take serials too) */
static uint64_t serials;

/* Every arena's bytes count against a limit (--max-memory), and so do the
 * blocks the libraries onnxop drives allocate through ox_mem_malloc (cJSON's
 * trees, protobuf-c's unpacked messages, zlib's and the image decoders'
 * buffers), so a tiny file claiming terabytes, or a small one that unpacks
 * into a huge tree, is refused with a clear message instead of meeting the
 * kernel's OOM killer. Default: three quarters of physical memory. The
 * account is the process's (the CLI has only that one), or one a thread
 * chose with ox_mem_use (a library run's own). Counts are atomic: threads
 * share the process's account. Failures are counted per thread: a thread
 * asks about its own requests. */
static ox_memctx process_mem;
static _Thread_local ox_memctx *thread_mem;
static _Thread_local size_t failures;
static _Thread_local ox_mem_cause last_failure;
/* the last request the limit refused: what its account held, and what it asked */
static _Thread_local size_t refused_in_use, refused_asked;

static ox_memctx *cur_mem(void) { return thread_mem ? thread_mem : &process_mem; }

ox_memctx *ox_mem_use(ox_memctx *m) {
  ox_memctx *old = thread_mem;
  thread_mem = m;
  return old;
}

/* Every failed request comes through here (returns NULL for the caller). */
static void *failed(ox_mem_cause why) {
  failures++;
  last_failure = why;
  return NULL;
}
ox_mem_cause ox_mem_last_failure(void) { return last_failure; }
size_t ox_mem_failures(void) { return failures; }
/* A size that overflows: refused as the limit refuses it */
static void *too_large(void) {
  refused_in_use = ox_memory_in_use();
  refused_asked = SIZE_MAX;
  return failed(OX_MEM_LIMIT);
}
void ox_mem_last_refusal(size_t *in_use, size_t *asked) {
  *in_use = refused_in_use;
  *asked = refused_asked;
}

#ifdef OX_FAULT_INJECTION
static long long fault_at = -1; /* ONNXOP_FAIL_ALLOC; -1: not read yet */
static long long fault_count;

static void say_count(void) {
  char line[128];
  int k = snprintf(line, sizeof line, "onnxop: ONNXOP_FAIL_ALLOC: %lld allocation requests\n", fault_count);
  if (write(2, line, (size_t)k) < 0) return;
}

/* Request k says what it is, with the return addresses of its callers as
 * OBJECT+OFFSET (addr2line -e OBJECT OFFSET names the line). */
static void say_request(long long k, int fails) {
  void *frames[32];
  int n = backtrace(frames, 32);
  char line[2560];
  size_t at = (size_t)snprintf(line, sizeof line, fails ? "onnxop: ONNXOP_FAIL_ALLOC=%lld: this allocation fails:"
                                                       : "onnxop: ONNXOP_FAIL_ALLOC: request %lld:", k);
  for (int i = 2; i < n && at < sizeof line - 80; i++) { /* from ox_fault_now's caller on */
    Dl_info info;
    if (!dladdr(frames[i], &info) || !info.dli_fname) continue;
    const char *name = strrchr(info.dli_fname, '/');
    at += (size_t)snprintf(line + at, sizeof line - at, " %s+0x%lx", name ? name + 1 : info.dli_fname,
                           (unsigned long)((char *)frames[i] - (char *)info.dli_fbase));
  }
  line[at++] = '\n';
  if (write(2, line, at) < 0) return;
}

int ox_fault_now(void) {
  static int trace;
  if (fault_at < 0) {
    const char *v = getenv("ONNXOP_FAIL_ALLOC");
    fault_at = v ? strtoll(v, NULL, 10) : 0;
    if (fault_at < 0) fault_at = 0;
    if (v && !fault_at) atexit(say_count); /* ONNXOP_FAIL_ALLOC=0: fail none, count them */
    trace = !fault_at && getenv("ONNXOP_FAIL_ALLOC_TRACE"); /* and name each */
  }
  long long k = __atomic_add_fetch(&fault_count, 1, __ATOMIC_RELAXED);
  if (trace) say_request(k, 0);
  if (k != fault_at) return 0;
  say_request(k, 1);
  return 1;
}
#endif

/* A request that fails by injection (test builds only; else never). */
static int inject(void) {
  if (!ox_fault_now()) return 0;
  failed(OX_MEM_INJECTED);
  return 1;
}

/* three quarters of physical memory (computed once; each thread that
 * computes it finds the same) */
static size_t default_limit(void) {
  static size_t dflt;
  size_t l = __atomic_load_n(&dflt, __ATOMIC_RELAXED);
  if (!l) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    l = pages > 0 && page > 0 ? (size_t)pages / 4 * 3 * (size_t)page : (size_t)1 << 34;
    __atomic_store_n(&dflt, l, __ATOMIC_RELAXED);
  }
  return l;
}
static size_t limit_of(ox_memctx *m) {
  size_t l = __atomic_load_n(&m->limit, __ATOMIC_RELAXED);
  return l ? l : default_limit();
}
size_t ox_memory_limit(void) { return limit_of(cur_mem()); }
void ox_set_memory_limit(size_t bytes) { __atomic_store_n(&process_mem.limit, bytes, __ATOMIC_RELAXED); }
void ox_set_memory_limit_source(const char *source) { process_mem.source = source; }
const char *ox_memory_limit_source(char *buf, size_t n) {
  const char *src = cur_mem()->source;
  snprintf(buf, n, "%s%s", src ? "; see " : "", src ? src : "");
  return buf;
}
const char *ox_memory_limit_str(char *buf, size_t n) {
  char src[160];
  snprintf(buf, n, "%llu bytes%s", (unsigned long long)ox_memory_limit(), ox_memory_limit_source(src, sizeof src));
  return buf;
}
size_t ox_memory_in_use(void) { return __atomic_load_n(&cur_mem()->in_use, __ATOMIC_RELAXED); }

static void pool_trim(ox_memctx *m, size_t n);

static void add_use(ox_memctx *m, size_t n) { __atomic_add_fetch(&m->in_use, n, __ATOMIC_RELAXED); }

/* Count n more bytes in m: 0, or -1 (nothing counted) past its limit. */
static int charge_in(ox_memctx *m, size_t n) {
  pool_trim(m, n);
  size_t lim = limit_of(m), had = __atomic_load_n(&m->in_use, __ATOMIC_RELAXED);
  do {
    if (n > lim || had > lim - n) {
      refused_in_use = had;
      refused_asked = n;
      failed(OX_MEM_LIMIT);
      return -1;
    }
  } while (!__atomic_compare_exchange_n(&m->in_use, &had, had + n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return 0;
}

static void uncharge_in(ox_memctx *m, size_t n) {
  size_t had = __atomic_load_n(&m->in_use, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&m->in_use, &had, had - (n < had ? n : had), 1, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

static int charge(size_t n) { return charge_in(cur_mem(), n); }

int ox_mem_charge(size_t n) { return inject() ? -1 : charge(n); }

void ox_mem_uncharge(size_t n) { uncharge_in(cur_mem(), n); }

/* Counted malloc: the request is checked against the limit first, then the
 * block's real size (malloc_usable_size, which ox_mem_free counts back) is
 * what stays counted. No header: a block freed by plain free() by mistake
 * leaves the count high, it does not corrupt the heap. */
static void *counted(size_t n, int aligned) {
  if (inject() || charge(n)) return NULL;
  void *p = aligned ? aligned_alloc(ALIGN, (n + ALIGN - 1) / ALIGN * ALIGN) : malloc(n ? n : 1);
  if (!p) {
    ox_mem_uncharge(n);
    return failed(OX_MEM_SYSTEM);
  }
  size_t real = malloc_usable_size(p);
  add_use(cur_mem(), real - (n < real ? n : real));
  return p;
}

void *ox_mem_malloc(size_t n) { return counted(n, 0); }

void *ox_mem_aligned(size_t n) { return n > SIZE_MAX - ALIGN ? too_large() : counted(n, 1); }

void *ox_mem_realloc(void *p, size_t n) {
  if (!p) return ox_mem_malloc(n);
  if (inject()) return NULL;
  size_t old = malloc_usable_size(p);
  if (n > old && charge(n - old)) return NULL;
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    if (n > old) ox_mem_uncharge(n - old);
    return failed(OX_MEM_SYSTEM);
  }
  size_t real = malloc_usable_size(q);
  ox_mem_uncharge(n > old ? n : old); /* what is counted now: old, or n */
  add_use(cur_mem(), real);
  return q;
}

void ox_mem_free(void *p) {
  if (!p) return;
  ox_mem_uncharge(malloc_usable_size(p));
  free(p);
}

/* ---- the uncounted ones, for bookkeeping ---- */

/* p, or a failure of the system's when it is NULL */
static void *got(void *p) { return p ? p : failed(OX_MEM_SYSTEM); }

void *ox_heap_malloc(size_t n) { return inject() ? NULL : got(malloc(n ? n : 1)); }
void *ox_heap_calloc(size_t n, size_t size) { return inject() ? NULL : got(calloc(n ? n : 1, size ? size : 1)); }
void *ox_heap_realloc(void *p, size_t n) { return inject() ? NULL : got(realloc(p, n ? n : 1)); }
char *ox_heap_strndup(const char *s, size_t n) { return inject() ? NULL : got(strndup(s, n)); }
char *ox_heap_strdup(const char *s) { return ox_heap_strndup(s, SIZE_MAX); }

/* ---- the pool: mapped regions given back, kept for the next request ----
 *
 * Regions are page multiples. A request takes the smallest pooled region of
 * at least its size and at most twice that (so a long run of mixed sizes
 * cannot pin memory twice the size of what it uses); the newest of equal
 * sizes, whose pages are the likeliest to be in cache. The pool holds at most
 * POOL_BYTES, and no region larger than a quarter of that or an eighth of the
 * memory limit; it is resident memory, so pool_trim drops regions, oldest
 * first, while the pool and the bytes in use would pass the limit. */
#define POOL_BYTES ((size_t)1 << 30)

typedef struct pooled { struct pooled *newer, *older; size_t size; } pooled;
/* shared by the arenas of every thread: taken under pool_mu */
static struct { pooled *newest, *oldest; size_t bytes; } pool;
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

static void pool_unlink(pooled *r) {
  if (r->newer) r->newer->older = r->older;
  else pool.newest = r->older;
  if (r->older) r->older->newer = r->newer;
  else pool.oldest = r->newer;
  pool.bytes -= r->size;
}

static void pool_trim(ox_memctx *m, size_t n) {
  size_t lim = limit_of(m);
  pthread_mutex_lock(&pool_mu);
  while (pool.oldest && (n > lim || __atomic_load_n(&m->in_use, __ATOMIC_RELAXED) + pool.bytes > lim - n)) {
    pooled *r = pool.oldest;
    pool_unlink(r);
    munmap(r, r->size);
  }
  pthread_mutex_unlock(&pool_mu);
}

static size_t page_round(size_t n) { return n > SIZE_MAX - (PAGE - 1) ? 0 : (n + PAGE - 1) & ~(size_t)(PAGE - 1); }

/* A region of `size` bytes (a page multiple) or, from the pool, of up to
 * `most` bytes: *got is its size, *fresh whether it is zero (new pages).
 * NULL when the system refuses. */
static void *region_get(size_t size, size_t most, size_t *got, int *fresh) {
#ifdef OX_ASAN
  (void)most;
  void *q = NULL;
  if (posix_memalign(&q, ALIGN, size)) return NULL;
  *got = size;
  *fresh = 0;
  return q;
#else
  pooled *best = NULL;
  pthread_mutex_lock(&pool_mu);
  for (pooled *r = pool.newest; r; r = r->older)
    if (r->size >= size && r->size <= most && r->size / 2 <= size && (!best || r->size < best->size)) {
      best = r;
      if (r->size == size) break;
    }
  if (best) pool_unlink(best);
  pthread_mutex_unlock(&pool_mu);
  if (best) {
    *got = best->size;
    *fresh = 0;
    return best;
  }
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  ox_sys_huge(p, size);
  *got = size;
  *fresh = 1;
  return p;
#endif
}

static void region_put(ox_memctx *m, void *p, size_t size) {
#ifdef OX_ASAN
  (void)m;
  (void)size;
  free(p);
#else
  if (size > POOL_BYTES / 4 || size > limit_of(m) / 8) {
    munmap(p, size);
    return;
  }
  pthread_mutex_lock(&pool_mu);
  while (pool.oldest && pool.bytes + size > POOL_BYTES) {
    pooled *r = pool.oldest;
    pool_unlink(r);
    munmap(r, r->size);
  }
  pooled *r = p;
  r->size = size;
  r->older = pool.newest;
  r->newer = NULL;
  if (pool.newest) pool.newest->newer = r;
  else pool.oldest = r;
  pool.newest = r;
  pool.bytes += size;
  pthread_mutex_unlock(&pool_mu);
#endif
}

/* The bytes a region of `size` may grow to from the pool: twice, within the
 * memory limit (what a request charges is its own size; a larger region is
 * charged its whole size). */
static size_t most_for(ox_memctx *m, size_t size) {
  size_t lim = limit_of(m), used = __atomic_load_n(&m->in_use, __ATOMIC_RELAXED);
  size_t room = used < lim ? lim - used : 0;
  return size + (room < size ? room : size);
}

static size_t hdr(size_t s) { return (s + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

/* ---- scratch: a kernel's working buffers ----
 *
 * A block of BIG bytes and more is a region from the pool (what a GEMM or a
 * convolution packs into on every call: with malloc, glibc maps or grows
 * the heap for it and trims it again on free, a page fault per 4 KiB every
 * call); smaller ones come from malloc. The header before the block says
 * which, and the account it was charged to. */
typedef struct { size_t size; ox_memctx *mem; } scratch_hdr; /* size 0: malloc */

void *ox_mem_scratch(size_t n) {
  size_t h = hdr(sizeof(scratch_hdr));
  if (n > SIZE_MAX / 2) return too_large();
  ox_memctx *m = cur_mem();
  scratch_hdr *s;
  if (h + n < BIG) {
    if (!(s = counted(h + n, 1))) return NULL;
    s->size = 0;
  } else {
    if (inject()) return NULL;
    size_t want = page_round(h + n), size;
    int fresh;
    if (charge_in(m, want)) return NULL;
    if (!(s = region_get(want, most_for(m, want), &size, &fresh))) {
      uncharge_in(m, want);
      return failed(OX_MEM_SYSTEM);
    }
    add_use(m, size - want); /* a pooled region may be larger than asked for */
    s->size = size;
  }
  s->mem = m;
  return (char *)s + h;
}

void ox_mem_scratch_free(void *p) {
  if (!p) return;
  scratch_hdr *s = (scratch_hdr *)((char *)p - hdr(sizeof(scratch_hdr)));
  if (!s->size) {
    uncharge_in(s->mem, malloc_usable_size(s));
    free(s);
    return;
  }
  uncharge_in(s->mem, s->size);
  region_put(s->mem, s, s->size);
}

/* ---- arenas ---- */

ox_arena *ox_arena_new(void) {
  ox_arena *a = ox_heap_calloc(1, sizeof(ox_arena));
  if (a) a->mem = cur_mem();
  return a;
}


void ox_arena_free(ox_arena *a) {
  if (!a) return;
  ox_mark none = {0};
  ox_arena_release(a, none);
  free(a);
}

static void big_unlink(ox_arena *a, big *b) {
  if (b->newer) b->newer->older = b->older;
  else a->bigs = b->older;
  if (b->older) b->older->newer = b->newer;
  a->held -= b->size;
  uncharge_in(a->mem, b->size);
}

static void *big_alloc(ox_arena *a, size_t n, int zero) {
  size_t h = hdr(sizeof(big));
  size_t want = page_round(n > SIZE_MAX - h ? 0 : h + n);
  if (!want) return too_large();
  if (charge_in(a->mem, want)) return NULL;
  size_t size;
  int fresh;
  big *b = region_get(want, most_for(a->mem, want), &size, &fresh);
  if (!b) {
    uncharge_in(a->mem, want);
    return failed(OX_MEM_SYSTEM);
  }
  add_use(a->mem, size - want); /* a pooled region may be larger than asked for */
  if (!fresh) memset(b, 0, zero ? h + n : h);
  b->size = size;
  b->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
  b->refs = 0;
  b->newer = NULL;
  b->older = a->bigs;
  if (a->bigs) a->bigs->newer = b;
  a->bigs = b;
  a->held += size;
  return (char *)b + h;
}

static uint64_t allocs;
uint64_t ox_arena_allocs(void) { return __atomic_load_n(&allocs, __ATOMIC_RELAXED); }

int ox_arena_pools(void) {
#ifdef OX_ASAN
  return 0;
#else
  return 1;
#endif
}

/* n < BIG bytes from the current chunk (a new one when it is full), zeroed
 * when `zero` */
static void *small_alloc(ox_arena *a, size_t n, int zero) {
  n = hdr(n);
  size_t h = hdr(sizeof(chunk));
  if (!a->cur || a->cur->used + n > a->cur->size) {
    size_t got;
    int fresh;
    if (charge_in(a->mem, CHUNK)) return NULL;
    chunk *c = region_get(CHUNK, CHUNK, &got, &fresh);
    if (!c) {
      uncharge_in(a->mem, CHUNK);
      return failed(OX_MEM_SYSTEM);
    }
    c->prev = a->cur;
    c->size = CHUNK - h;
    c->used = 0;
    a->cur = c;
    a->held += CHUNK;
  }
  char *p = (char *)a->cur + h + a->cur->used;
  a->cur->used += n;
  if (zero) memset(p, 0, n);
  return p;
}

void *ox_alloc(ox_arena *a, size_t n) {
  __atomic_add_fetch(&allocs, 1, __ATOMIC_RELAXED);
  if (inject()) return NULL;
  if (n == 0) n = 1;
  if (n >= BIG) return big_alloc(a, n, 1);
  return small_alloc(a, n, 1);
}

/* not zeroed, small or big: a tensor's data that its kernel writes whole
 * (the memset of every small output was a few percent of a small model) */
void *ox_alloc_uninit(ox_arena *a, size_t n) {
  __atomic_add_fetch(&allocs, 1, __ATOMIC_RELAXED);
  if (inject()) return NULL;
  if (n == 0) n = 1;
  return n >= BIG ? big_alloc(a, n, 0) : small_alloc(a, n, 0);
}

void *ox_alloc_array(ox_arena *a, int64_t count, size_t size) {
  if (count < 0) return NULL;
  if (size && (uint64_t)count > SIZE_MAX / size) return too_large();
  return ox_alloc(a, (size_t)count * size);
}

char *ox_strndup(ox_arena *a, const char *s, size_t n) {
  if (n == SIZE_MAX) return too_large();
  char *p = ox_alloc(a, n + 1);
  if (p && n) memcpy(p, s, n);
  return p;
}

char *ox_strdup(ox_arena *a, const char *s) { return ox_strndup(a, s ? s : "", s ? strlen(s) : 0); }

char *ox_sprintf(ox_arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *p = ox_alloc(a, (size_t)n + 1);
  if (!p) return NULL;
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

ox_mark ox_arena_mark(ox_arena *a) {
  ox_mark m = {a->cur, a->cur ? a->cur->used : 0, a->bigs ? a->bigs->serial : 0};
  return m;
}

void ox_arena_release(ox_arena *a, ox_mark m) {
  while (a->bigs && a->bigs->serial > m.serial) {
    big *b = a->bigs;
    big_unlink(a, b);
    region_put(a->mem, b, b->size);
  }
  while (a->cur && a->cur != (chunk *)m.chunk) {
    chunk *c = a->cur;
    a->cur = c->prev;
    a->held -= CHUNK;
    uncharge_in(a->mem, CHUNK);
    region_put(a->mem, c, CHUNK);
  }
  if (a->cur) a->cur->used = m.used;
}

size_t ox_arena_bytes(const ox_arena *a) { return a->held; }

/* ---- liveness: blocks given back before the run ends ---- */

void ox_live_begin(ox_arena *a) {
  if (a->live_depth++ == 0) {
    a->live_since = ox_live_now();
    a->frozen = 0;
  }
}

void ox_live_end(ox_arena *a) {
  if (a->live_depth > 0 && --a->live_depth == 0) a->frozen = 0;
}

int ox_live_on(const ox_arena *a) { return a->live_depth > 0 && !a->frozen; }

void ox_live_freeze(ox_arena *a) {
  if (a->live_depth > 0) a->frozen = 1;
}

uint64_t ox_live_now(void) { return __atomic_load_n(&serials, __ATOMIC_RELAXED); }

/* The tracked block holding byte p, or NULL (p in a chunk, in another arena,
 * in a block from before the run, or not arena memory at all). */
static big *tracked(ox_arena *a, const void *p) {
  size_t h = hdr(sizeof(big));
  const char *q = p;
  for (big *b = a->bigs; b && b->serial > a->live_since; b = b->older)
    if (q >= (char *)b + h && q < (char *)b + b->size) return b;
  return NULL;
}

static void give_back(ox_arena *a, big *b) {
  big_unlink(a, b);
  region_put(a->mem, b, b->size);
}

void ox_live_ref(ox_arena *a, const void *p) {
  if (!p || !ox_live_on(a)) return;
  big *b = tracked(a, p);
  if (b) b->refs++;
}

int ox_live_unref(ox_arena *a, const void *p, int give) {
  if (!p || !ox_live_on(a)) return 0;
  big *b = tracked(a, p);
  if (!b || b->refs <= 0 || --b->refs > 0 || !give) return 0;
  give_back(a, b);
  return 1;
}

void ox_live_sweep(ox_arena *a, uint64_t since, uint64_t until) {
  if (!ox_live_on(a)) return;
  if (since < a->live_since) since = a->live_since;
  for (big *b = a->bigs, *older; b && b->serial > since; b = older) {
    older = b->older;
    if (b->refs == 0 && b->serial <= until) give_back(a, b);
  }
}

void ox_live_offer(ox_arena *a, const void *p) {
  if (!p || !ox_live_on(a) || a->noffer == OFFERS) return;
  big *b = tracked(a, p);
  if (b && b->refs == 1 && p == (char *)b + hdr(sizeof(big))) a->offer[a->noffer++] = p;
}

int ox_live_take(ox_arena *a, const void *p) {
  for (int i = 0; p && i < a->noffer; i++)
    if (a->offer[i] == p) {
      a->offer[i] = a->offer[--a->noffer];
      return 1;
    }
  return 0;
}

void ox_live_offers_end(ox_arena *a) { a->noffer = 0; }
