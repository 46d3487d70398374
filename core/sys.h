/* core/sys.h: what io/ and proto/ both need below them: opening a file
 * for reading without blocking on it, and the protobuf wire format's varint. */
#ifndef OX_SYS_H
#define OX_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Open path for reading; anything but a regular file (a FIFO, a device, a
 * folder) is refused without blocking on it. NULL with *why set (strerror's
 * text, or "not a regular file (a FIFO)") when it cannot. */
FILE *ox_open_regular(const char *path, const char **why);

/* The varint at p (n bytes available) into *v: the bytes it used, 0 when it
 * is cut short or longer than 10 bytes. */
size_t ox_varint_read(const uint8_t *p, size_t n, uint64_t *v);
/* Give the whole pages inside [p, p + n) back to the system (madvise
 * MADV_DONTNEED): they stay mapped and read as zeros. For anonymous memory
 * whose contents are no longer needed. */
void ox_sys_discard(void *p, size_t n);
/* Ask for p[0, n) (fresh memory about to be written) in huge pages where
 * the system gives them on request (Linux's transparent huge pages in
 * "madvise" mode): one page fault per 2 MiB instead of 512. Advice only,
 * nothing changes but the faults; sizes below 4 MiB are left alone. */
void ox_sys_huge(void *p, size_t n);
/* The opposite, for memory filled in a scattered order while other memory
 * is given back in step (ox_sys_discard): there a huge page would be whole
 * from its first write, and the two whole together. */
void ox_sys_small(void *p, size_t n);

#endif
