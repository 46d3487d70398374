/* core/arena.c: chunked bump allocation, big blocks on their own list.
 *
 * Every allocation is zeroed and 64-byte aligned (so kernels may use aligned
 * vector loads). A mark records the current chunk, its fill and the newest
 * big block; release frees what came after. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

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
static size_t in_use, limit, refusals;

size_t ox_memory_limit(void) {
  if (!limit) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    limit = pages > 0 && page > 0 ? (size_t)pages / 4 * 3 * (size_t)page : (size_t)1 << 34;
  }
  return limit;
}
void ox_set_memory_limit(size_t bytes) { limit = bytes; }
size_t ox_memory_in_use(void) { return in_use; }
size_t ox_mem_refusals(void) { return refusals; }

static int over(size_t n) { return n > ox_memory_limit() || in_use > ox_memory_limit() - n; }

static void spare_trim(size_t n);

int ox_mem_charge(size_t n) {
  spare_trim(n);
  if (over(n)) {
    refusals++;
    return -1;
  }
  in_use += n;
  return 0;
}

void ox_mem_uncharge(size_t n) { in_use -= n < in_use ? n : in_use; }

/* Counted malloc: the request is checked against the limit first, then the
 * block's real size (malloc_usable_size, which ox_mem_free counts back) is
 * what stays counted. No header: a block freed by plain free() by mistake
 * leaves the count high, it does not corrupt the heap. */
void *ox_mem_malloc(size_t n) {
  if (ox_mem_charge(n)) return NULL;
  void *p = malloc(n ? n : 1);
  if (!p) {
    ox_mem_uncharge(n);
    return NULL;
  }
  size_t real = malloc_usable_size(p);
  in_use += real - (n < real ? n : real);
  return p;
}

void *ox_mem_realloc(void *p, size_t n) {
  if (!p) return ox_mem_malloc(n);
  size_t old = malloc_usable_size(p);
  if (n > old && ox_mem_charge(n - old)) return NULL;
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    if (n > old) ox_mem_uncharge(n - old);
    return NULL;
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

ox_arena *ox_arena_new(void) { return calloc(1, sizeof(ox_arena)); }

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
  if (n > SIZE_MAX - h) return NULL;
  if (ox_mem_charge(h + n)) return NULL;
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
        return NULL;
      }
    }
  } else {
    if (posix_memalign(&p, ALIGN, h + n)) {
      ox_mem_uncharge(h + n);
      return NULL;
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
  if (n == 0) n = 1;
  if (n >= BIG) return big_alloc(a, n, 1);
  n = hdr(n);
  size_t h = hdr(sizeof(chunk));
  if (!a->cur || a->cur->used + n > a->cur->size) {
    void *p = NULL;
    if (ox_mem_charge(h + CHUNK)) return NULL;
    if (posix_memalign(&p, ALIGN, h + CHUNK)) {
      ox_mem_uncharge(h + CHUNK);
      return NULL;
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
  return big_alloc(a, n, 0);
}

void *ox_alloc_array(ox_arena *a, int64_t count, size_t size) {
  if (count < 0) return NULL;
  if (size && (uint64_t)count > SIZE_MAX / size) return NULL;
  return ox_alloc(a, (size_t)count * size);
}

char *ox_strndup(ox_arena *a, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
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
