/* core/arena.c: chunked bump allocation, big blocks on their own list.
 *
 * Every allocation is zeroed and 64-byte aligned (so kernels may use aligned
 * vector loads). A mark records the current chunk, its fill and the newest
 * big block; release frees what came after. */
#ifdef OX_FAULT_INJECTION
#define _GNU_SOURCE /* dladdr */
#endif
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

#define ALIGN 64
#define CHUNK (256 * 1024)
#define BIG (64 * 1024)

typedef struct chunk { struct chunk *prev; size_t size, used; } chunk;
typedef struct big { struct big *prev; size_t size; int mapped; } big; /* header padded to ALIGN */

struct ox_arena {
  chunk *cur;
  big *bigs;
  size_t held;
};

/* Every arena's bytes count against one limit (--max-memory), and so do the
 * blocks the libraries onnxop drives allocate through ox_mem_malloc (cJSON's
 * trees, protobuf-c's unpacked messages, zlib's and the image decoders'
 * buffers), so a tiny file claiming terabytes, or a small one that unpacks
 * into a huge tree, is refused with a clear message instead of meeting the
 * kernel's OOM killer. Default: three quarters of physical memory. Like the
 * arenas, the count is for the evaluating thread (kernels do not allocate
 * from their worker threads). */
static size_t in_use, limit, failures;
static ox_mem_cause last_failure;

/* Every failed request comes through here (returns NULL for the caller). */
static void *failed(ox_mem_cause why) {
  failures++;
  last_failure = why;
  return NULL;
}
ox_mem_cause ox_mem_last_failure(void) { return last_failure; }
size_t ox_mem_failures(void) { return failures; }

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

size_t ox_memory_limit(void) {
  if (!limit) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    limit = pages > 0 && page > 0 ? (size_t)pages / 4 * 3 * (size_t)page : (size_t)1 << 34;
  }
  return limit;
}
void ox_set_memory_limit(size_t bytes) { limit = bytes; }
size_t ox_memory_in_use(void) { return in_use; }

static int over(size_t n) { return n > ox_memory_limit() || in_use > ox_memory_limit() - n; }

static void spare_trim(size_t n);

static int charge(size_t n) {
  spare_trim(n);
  if (over(n)) {
    failed(OX_MEM_LIMIT);
    return -1;
  }
  in_use += n;
  return 0;
}

int ox_mem_charge(size_t n) { return inject() ? -1 : charge(n); }

void ox_mem_uncharge(size_t n) { in_use -= n < in_use ? n : in_use; }

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
  in_use += real - (n < real ? n : real);
  return p;
}

void *ox_mem_malloc(size_t n) { return counted(n, 0); }

void *ox_mem_aligned(size_t n) { return n > SIZE_MAX - ALIGN ? failed(OX_MEM_LIMIT) : counted(n, 1); }

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
  in_use += real;
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

/* ---- arenas ---- */

ox_arena *ox_arena_new(void) { return ox_heap_calloc(1, sizeof(ox_arena)); }

static size_t hdr(size_t s) { return (s + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

void ox_arena_free(ox_arena *a) {
  if (!a) return;
  ox_mark none = {0};
  ox_arena_release(a, none);
  free(a);
}

/* Blocks of 1 MiB and more come straight from mmap: the kernel hands out
 * zeroed pages as they are first touched, so nothing is written twice. */
#define MAP_MIN (1024 * 1024)

/* Mapped blocks a release gave back are kept (up to SPARE_N blocks and
 * SPARE_BYTES) and handed out again, zeroed with memset: a first touch of a
 * fresh page costs a page fault (on virtual machines tens of microseconds per
 * 4 KiB page, far more than writing it), and repeated runs, Loop and Scan
 * bodies allocate the same sizes again and again. */
#define SPARE_N 16
#define SPARE_BYTES ((size_t)1 << 30)
static struct { big *b[SPARE_N]; int n; size_t bytes; } spare;

static void spare_drop(int i) {
  big *b = spare.b[i];
  spare.bytes -= b->size;
  spare.b[i] = spare.b[--spare.n];
  munmap(b, b->size);
}

/* the smallest spare block of at least `size` bytes and at most twice that */
static big *spare_take(size_t size) {
  int best = -1;
  for (int i = 0; i < spare.n; i++)
    if (spare.b[i]->size >= size && spare.b[i]->size / 2 <= size &&
        (best < 0 || spare.b[i]->size < spare.b[best]->size))
      best = i;
  if (best < 0) return NULL;
  big *b = spare.b[best];
  spare.bytes -= b->size;
  spare.b[best] = spare.b[--spare.n];
  return b;
}

/* Spare blocks are resident too: drop them while they and n more bytes would
 * pass the limit. */
static void spare_trim(size_t n) {
  while (spare.n && (n > ox_memory_limit() || in_use + spare.bytes > ox_memory_limit() - n)) spare_drop(0);
}

static void spare_give(big *b) {
  if (b->size > SPARE_BYTES / 4 || b->size > ox_memory_limit() / 8) {
    munmap(b, b->size);
    return;
  }
  while (spare.n && (spare.n == SPARE_N || spare.bytes + b->size > SPARE_BYTES)) spare_drop(0);
  spare.b[spare.n++] = b;
  spare.bytes += b->size;
}

static void *big_alloc(ox_arena *a, size_t n, int zero) {
  size_t h = hdr(sizeof(big));
  if (n > SIZE_MAX - h) return failed(OX_MEM_LIMIT);
  if (charge(h + n)) return NULL;
  void *p = NULL;
  int mapped = h + n >= MAP_MIN;
  size_t size = h + n;
  if (mapped) {
    big *s = spare_take(h + n);
    if (s) {
      size = s->size;
      memset(s, 0, zero ? h + n : h);
      p = s;
    } else {
      p = mmap(NULL, h + n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) {
        ox_mem_uncharge(h + n);
        return failed(OX_MEM_SYSTEM);
      }
    }
  } else {
    if (posix_memalign(&p, ALIGN, h + n)) {
      ox_mem_uncharge(h + n);
      return failed(OX_MEM_SYSTEM);
    }
    memset(p, 0, zero ? h + n : h);
  }
  big *b = p;
  b->mapped = mapped;
  b->prev = a->bigs;
  b->size = size;
  a->bigs = b;
  a->held += size;
  in_use += size - (h + n); /* a spare may be larger than asked for */
  return (char *)p + h;
}

static uint64_t allocs;
uint64_t ox_arena_allocs(void) { return allocs; }

void *ox_alloc(ox_arena *a, size_t n) {
  allocs++;
  if (inject()) return NULL;
  if (n == 0) n = 1;
  if (n >= BIG) return big_alloc(a, n, 1);
  n = hdr(n);
  size_t h = hdr(sizeof(chunk));
  if (!a->cur || a->cur->used + n > a->cur->size) {
    void *p = NULL;
    if (charge(h + CHUNK)) return NULL;
    if (posix_memalign(&p, ALIGN, h + CHUNK)) {
      ox_mem_uncharge(h + CHUNK);
      return failed(OX_MEM_SYSTEM);
    }
    chunk *c = p;
    c->prev = a->cur;
    c->size = CHUNK;
    c->used = 0;
    a->cur = c;
    a->held += h + CHUNK;
  }
  char *p = (char *)a->cur + h + a->cur->used;
  a->cur->used += n;
  memset(p, 0, n);
  return p;
}

void *ox_alloc_uninit(ox_arena *a, size_t n) {
  if (n < BIG) return ox_alloc(a, n);
  allocs++;
  return inject() ? NULL : big_alloc(a, n, 0);
}

void *ox_alloc_array(ox_arena *a, int64_t count, size_t size) {
  if (count < 0) return NULL;
  if (size && (uint64_t)count > SIZE_MAX / size) return failed(OX_MEM_LIMIT);
  return ox_alloc(a, (size_t)count * size);
}

char *ox_strndup(ox_arena *a, const char *s, size_t n) {
  if (n == SIZE_MAX) return failed(OX_MEM_LIMIT);
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
  ox_mark m = {a->cur, a->cur ? a->cur->used : 0, a->bigs};
  return m;
}

void ox_arena_release(ox_arena *a, ox_mark m) {
  while (a->bigs && a->bigs != (big *)m.big) {
    big *b = a->bigs;
    a->bigs = b->prev;
    a->held -= b->size;
    in_use -= b->size;
    if (b->mapped) spare_give(b);
    else free(b);
  }
  while (a->cur && a->cur != (chunk *)m.chunk) {
    chunk *c = a->cur;
    a->cur = c->prev;
    a->held -= hdr(sizeof(chunk)) + c->size;
    in_use -= hdr(sizeof(chunk)) + c->size;
    free(c);
  }
  if (a->cur) a->cur->used = m.used;
}

size_t ox_arena_bytes(const ox_arena *a) { return a->held; }
