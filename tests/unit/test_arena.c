/* tests/unit/test_arena.c: the arena: zeroed, aligned allocations; mark and
 * release; released big blocks handed out again (the spares) still zeroed by
 * ox_alloc, left as they are by ox_alloc_uninit; the memory limit; tensors
 * made by ox_tensor_new_uninit (strings zeroed all the same); a second round
 * of the same allocations takes no page fault (the pool); kernels' scratch
 * (ox_mem_scratch) from the same pool. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/ox.h"
#include "core/sys.h"

static int all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

/* The VmFlags of the mapping that holds p (/proc/self/smaps), in buf; 0 when
 * they cannot be read here. */
static int vm_flags(const void *p, char *buf, size_t n) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return 0;
  char line[512];
  int in = 0, got = 0;
  while (!got && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    else if (in && !strncmp(line, "VmFlags:", 8))
      got = snprintf(buf, n, "%s", line + 8) > 0;
  }
  fclose(f);
  return got;
}

/* Whether the system gives huge pages on request (Linux's transparent huge
 * pages, "always" or "madvise") */
static int huge_on_request(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char line[128] = "";
  if (!f) return 0;
  int ok = fgets(line, sizeof line, f) != NULL && !strstr(line, "[never]");
  fclose(f);
  return ok;
}

int main(void) {
  ox_arena *a = ox_arena_new();

  /* a fresh block of 4 MiB or more is asked for in huge pages (one fault
   * per 2 MiB: loading IS-Net's 176 MB of weights took 1.4 s, half of it
   * in page faults, 0.7 s after); ox_sys_small takes that back */
  if (huge_on_request() && ox_arena_pools()) {
    char fl[256] = "";
    unsigned char *p = ox_alloc_uninit(a, 8 << 20);
    CHECK(p != NULL);
    CHECK(vm_flags(p + (4 << 20), fl, sizeof fl));
    CHECK(strstr(fl, " hg") != NULL);
    ox_sys_small(p, 8 << 20);
    CHECK(vm_flags(p + (4 << 20), fl, sizeof fl));
    CHECK(strstr(fl, " nh") != NULL && !strstr(fl, " hg"));
    unsigned char *q = ox_alloc_uninit(a, 1 << 20); /* small: left alone */
    CHECK(q != NULL && vm_flags(q, fl, sizeof fl) && !strstr(fl, " hg"));
    ox_arena_free(a);
    a = ox_arena_new();
  } else {
    fprintf(stderr, "arena: %s: the huge pages' advice not checked\n",
            ox_arena_pools() ? "no huge pages on request here" : "blocks from malloc (ASan)");
  }
  CHECK(a != NULL);

  /* small and big allocations: zeroed, 64-byte aligned */
  size_t sizes[] = {1, 100, 4096, 70000, 2 << 20, 5 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    unsigned char *p = ox_alloc(a, sizes[i]);
    CHECK(p != NULL);
    CHECK_EQ_I((uintptr_t)p % 64, 0);
    CHECK(all_zero(p, sizes[i]));
    memset(p, 0x5A, sizes[i]);
  }

  /* a released big block comes back from the spares: zeroed by ox_alloc */
  size_t in_use = ox_memory_in_use();
  ox_mark m = ox_arena_mark(a);
  unsigned char *b1 = ox_alloc(a, 3 << 20);
  CHECK(b1 != NULL);
  memset(b1, 0x77, 3 << 20);
  ox_arena_release(a, m);
  CHECK_EQ_I(ox_memory_in_use(), in_use);
  unsigned char *b2 = ox_alloc(a, 3 << 20);
  int pools = ox_arena_pools(); /* not under ASan: it sees every block */
  CHECK(b2 == b1 || !pools); /* the same block again */
  CHECK(b2 && all_zero(b2, 3 << 20));
  memset(b2, 0x77, 3 << 20);
  ox_arena_release(a, m);

  /* ox_alloc_uninit takes it as it is: no memset of what the caller overwrites */
  unsigned char *b3 = ox_alloc_uninit(a, 3 << 20);
  CHECK(b3 == b1 || !pools);
  CHECK(b3 && (!pools || (b3[0] == 0x77 && b3[(3 << 20) - 1] == 0x77)));
  CHECK_EQ_I((uintptr_t)b3 % 64, 0);
  ox_arena_release(a, m);

  /* small blocks (from a chunk) alike: after a release ox_alloc_uninit gets
   * the bytes as the last user left them, ox_alloc zeroes them */
  unsigned char *s1 = ox_alloc(a, 1000);
  CHECK(s1 != NULL);
  memset(s1, 0x33, 1000);
  ox_arena_release(a, m);
  unsigned char *s2 = ox_alloc_uninit(a, 1000);
  CHECK(s2 && (s2 == s1 || !pools));
  CHECK(s2 && (!pools || (s2[0] == 0x33 && s2[999] == 0x33)));
  CHECK_EQ_I((uintptr_t)s2 % 64, 0);
  ox_arena_release(a, m);
  unsigned char *s3 = ox_alloc(a, 1000);
  CHECK(s3 && all_zero(s3, 1000));
  ox_arena_release(a, m);

  /* a smaller request may take a bigger spare (at most twice its size) */
  unsigned char *b4 = ox_alloc(a, (3 << 20) - 4096);
  CHECK(b4 == b1 || !pools);
  CHECK(b4 && all_zero(b4, (3 << 20) - 4096));
  ox_arena_release(a, m);
  /* a much smaller one does not */
  unsigned char *b5 = ox_alloc(a, 1 << 20);
  CHECK(b5 != NULL && b5 != b1);
  ox_arena_release(a, m);

  /* tensors: uninit data for numbers, zeroed for strings */
  ox_err e = {0};
  ox_value *t;
  int64_t dims[1] = {(3 << 20) / 4};
  CHECK_EQ_I(ox_tensor_new_uninit(a, OX_FLOAT, 1, dims, &t, &e), 0);
  CHECK((t->u.t.data == b1 || !pools) && t->u.t.n == dims[0]);
  ox_arena_release(a, m);
  int64_t sdims[1] = {(3 << 20) / 16};
  CHECK_EQ_I(ox_tensor_new_uninit(a, OX_STRING, 1, sdims, &t, &e), 0);
  CHECK(all_zero(t->u.t.data, (size_t)sdims[0] * 16));
  ox_arena_release(a, m);

  /* the memory limit still holds with spares around */
  size_t lim = ox_memory_limit();
  ox_set_memory_limit(ox_memory_in_use() + (4 << 20));
  size_t failures = ox_mem_failures(), before = ox_memory_in_use(), held, asked;
  CHECK(ox_alloc(a, 8 << 20) == NULL);
  CHECK(ox_alloc(a, 2 << 20) != NULL);
  /* the refusal is counted and its cause kept, with what was in use and
   * what was asked for (the block's header and page rounding added): ox_oom
   * says them (OX_ENOMEM) */
  CHECK_EQ_I(ox_mem_failures(), failures + 1);
  CHECK_EQ_I(ox_mem_last_failure(), OX_MEM_LIMIT);
  ox_mem_last_refusal(&held, &asked);
  CHECK_EQ_I(held, before);
  CHECK(asked >= (8 << 20) && asked <= (8 << 20) + 8192);
  char want[256];
  /* the library names no flag: only the account's source, when it has one */
  snprintf(want, sizeof want, "out of memory for 8 MiB (the memory limit of %zu bytes is reached: %zu bytes are in "
           "use and %zu more were asked for)", ox_memory_limit(), before, asked);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_oom(&e, "for %d MiB", 8), OX_ENOMEM);
  CHECK_EQ_S(e.msg, want);
  /* a size that overflows is refused as the limit refuses it, and said so */
  CHECK(ox_alloc(a, SIZE_MAX - 16) == NULL);
  ox_err_clear(&e);
  ox_oom(&e, NULL);
  CHECK(strstr(e.msg, "bytes are in use, and a size past any limit was asked for") != NULL);
  /* a request checked before it is made (a shape, a size in a file):
   * past the limit alone, or past what is left of it, each said, with what
   * sets the limit as the caller names it (the CLI: --max-memory) */
  ox_set_memory_limit_source("--max-memory");
  ox_err_clear(&e);
  CHECK_EQ_I(ox_over_limit(&e, (unsigned long long)ox_memory_limit() + 1, "a thing"), OX_ENOMEM);
  snprintf(want, sizeof want, "a thing needs %zu bytes, more than the memory limit allows (%zu bytes; see "
           "--max-memory)", ox_memory_limit() + 1, ox_memory_limit());
  CHECK_EQ_S(e.msg, want);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_over_limit(&e, 16, "a thing"), OX_ENOMEM);
  snprintf(want, sizeof want, "the memory limit (%zu bytes; see --max-memory) is reached: %zu bytes are in use, "
           "and a thing needs 16 more", ox_memory_limit(), ox_memory_in_use());
  CHECK_EQ_S(e.msg, want);
  ox_set_memory_limit_source(NULL);
  ox_set_memory_limit(lim);
  /* accounts (ox_mem_use): an arena made under one counts there, against
   * its limit, wherever it is used or freed; the process's count and limit
   * are another's */
  {
    ox_memctx acc = {1 << 20, 0};
    size_t before_acc = ox_memory_in_use();
    ox_memctx *was = ox_mem_use(&acc);
    CHECK(was == NULL && ox_memory_limit() == (size_t)1 << 20);
    ox_arena *r = ox_arena_new();
    ox_mem_use(was);
    CHECK(r != NULL && ox_alloc(r, 100) != NULL);
    CHECK(acc.in_use > 0 && ox_memory_in_use() == before_acc);
    CHECK(ox_alloc(r, 2 << 20) == NULL); /* past the account's limit, not the process's */
    CHECK_EQ_I(ox_mem_last_failure(), OX_MEM_LIMIT);
    CHECK(ox_alloc(a, 2 << 20) != NULL);
    ox_arena_free(r);
    CHECK_EQ_I(acc.in_use, 0);
    CHECK(ox_memory_limit() == lim);
  }
  /* counted malloc, aligned; a size that overflows is the limit's refusal */
  void *q = ox_mem_aligned(1000);
  CHECK(q != NULL && (uintptr_t)q % 64 == 0);
  ox_mem_free(q);
  CHECK(ox_alloc_array(a, INT64_MAX, 16) == NULL);
  CHECK_EQ_I(ox_mem_last_failure(), OX_MEM_LIMIT);
  char *h = ox_heap_strndup("abcdef", 3);
  CHECK(h && !strcmp(h, "abc"));
  free(h);

  /* steady state: the same sizes again (chunks, blocks below and above 1 MiB)
   * come from the pool, written in full without a page fault */
  size_t round_sizes[] = {100, 5000, 70000, 300000, 1 << 20, 5 << 20, 200, 70000};
  long faults[2] = {0, 0};
  for (int round = 0; round < 2; round++) {
    ox_mark r = ox_arena_mark(a);
    long f0 = check_minor_faults();
    for (size_t i = 0; i < sizeof round_sizes / sizeof *round_sizes; i++) {
      unsigned char *p = ox_alloc_uninit(a, round_sizes[i]);
      CHECK(p != NULL);
      if (p) memset(p, (int)i, round_sizes[i]);
    }
    faults[round] = check_minor_faults() - f0;
    ox_arena_release(a, r);
  }
  CHECK(faults[0] > 100); /* 6.6 MB of fresh pages */
  if (pools) CHECK(faults[1] < 8);
  if (pools && faults[1] >= 8) fprintf(stderr, "second round: %ld page faults\n", faults[1]);

  /* scratch (ox_mem_scratch): aligned, counted while held, small ones from
   * malloc and large ones from the pool: in the second round of the same
   * sizes the large ones take no page fault (what glibc does with the small
   * ones is its own: it may trim the heap); a block over the limit is
   * refused */
  size_t scratch_sizes[] = {100, 40000, 70000, 300000, 3 << 20};
  enum { NS = sizeof scratch_sizes / sizeof *scratch_sizes };
  in_use = ox_memory_in_use();
  for (int round = 0; round < 2; round++) {
    unsigned char *sp[NS];
    faults[round] = 0;
    for (size_t i = 0; i < NS; i++) {
      long f0 = check_minor_faults();
      sp[i] = ox_mem_scratch(scratch_sizes[i]);
      CHECK(sp[i] != NULL && (uintptr_t)sp[i] % 64 == 0);
      if (sp[i]) memset(sp[i], (int)i + 1, scratch_sizes[i]);
      if (scratch_sizes[i] >= 65536) faults[round] += check_minor_faults() - f0;
    }
    CHECK(ox_memory_in_use() >= in_use + (3 << 20) + 300000 + 70000 + 40000 + 100);
    for (size_t i = 0; i < NS; i++) ox_mem_scratch_free(sp[i]);
    CHECK_EQ_I(ox_memory_in_use(), in_use);
  }
  if (pools && faults[1] >= 8) fprintf(stderr, "scratch, second round: %ld page faults\n", faults[1]);
  if (pools) CHECK(faults[1] < 8);
  ox_set_memory_limit(ox_memory_in_use() + (1 << 20));
  CHECK(ox_mem_scratch(2 << 20) == NULL);
  CHECK_EQ_I(ox_mem_last_failure(), OX_MEM_LIMIT);
  void *fits = ox_mem_scratch(512 << 10);
  CHECK(fits != NULL);
  ox_mem_scratch_free(fits);
  ox_mem_scratch_free(NULL);
  ox_set_memory_limit(lim);

  ox_arena_free(a);
  CHECK_EQ_I(ox_memory_in_use(), 0);
  return check_done("arena");
}
