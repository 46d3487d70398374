/* core/sys.c: opening a file for reading without blocking on it, and the
 * protobuf varint (core/sys.h): shared by io/ and proto/. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"

static const char *not_regular(mode_t m) {
  return S_ISDIR(m)    ? "not a regular file (a folder)"
         : S_ISFIFO(m) ? "not a regular file (a FIFO)"
         : S_ISCHR(m)  ? "not a regular file (a character device)"
         : S_ISBLK(m)  ? "not a regular file (a block device)"
         : S_ISSOCK(m) ? "not a regular file (a socket)"
                       : "not a regular file";
}

FILE *ox_open_regular(const char *path, const char **why) {
  /* O_NONBLOCK: without it, open() of a FIFO waits for a writer forever */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    *why = strerror(errno);
    if (fd >= 0) close(fd);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = not_regular(st.st_mode);
    close(fd);
    return NULL;
  }
  int fl = fcntl(fd, F_GETFL);
  FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) ? NULL : fdopen(fd, "rb");
  if (!f) {
    *why = strerror(errno);
    close(fd);
  }
  return f;
}

size_t ox_varint_read(const uint8_t *p, size_t n, uint64_t *v) {
  uint64_t x = 0;
  for (size_t i = 0; i < n && i < 10; i++) {
    x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *v = x;
      return i + 1;
    }
  }
  return 0;
}

void ox_sys_huge(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (!p || n < 2 * huge) return;
  uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p, (void)n;
#endif
}

void ox_sys_small(void *p, size_t n) {
#ifdef MADV_NOHUGEPAGE
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || !p) return;
  uintptr_t lo = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
  uintptr_t hi = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
#else
  (void)p, (void)n;
#endif
}

void ox_sys_discard(void *p, size_t n) {
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || !p) return;
  uintptr_t lo = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
  uintptr_t hi = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
