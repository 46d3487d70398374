/* io/buf.c: a growable byte buffer, and ox_out, the stream the encoders
 * write to (into a buffer, or into a file through a bounded chunk).
 *
 * The bytes are always followed by a NUL (not counted in n), so text built
 * with ox_buf_printf can be used as a C string. Both functions return 0, or
 * OX_EINPUT when memory runs out (the buffer is then left as it was). The
 * buffer and the stream's chunk count against --max-memory (ox_mem_malloc). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "io.h"

/* Make room for `more` bytes plus the NUL. */
static int reserve(ox_buf *b, size_t more) {
  if (more > SIZE_MAX - b->n - 1) return OX_EINPUT;
  size_t need = b->n + more + 1;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  uint8_t *p = ox_mem_realloc(b->p, cap);
  if (!p) return OX_EINPUT;
  b->p = p;
  b->cap = cap;
  return 0;
}

int ox_buf_put(ox_buf *b, const void *p, size_t n) {
  if (reserve(b, n)) return OX_EINPUT;
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  b->p[b->n] = 0;
  return 0;
}

int ox_buf_printf(ox_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (len < 0 || reserve(b, (size_t)len)) return OX_EINPUT;
  va_start(ap, fmt);
  vsnprintf((char *)b->p + b->n, (size_t)len + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)len;
  return 0;
}

void ox_buf_free(ox_buf *b) {
  ox_mem_free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

/* ---- ox_out: a stream into a buffer or a file ---- */

void ox_out_buf(ox_out *o, ox_buf *b) {
  memset(o, 0, sizeof *o);
  o->buf = b;
  o->base = b->n;
  o->fd = -1;
}

void ox_out_fd(ox_out *o, int fd) {
  memset(o, 0, sizeof *o);
  o->fd = fd;
}

/* write(2) until all of it is out; 0 or an errno value */
static int write_all(int fd, const uint8_t *p, size_t n, uint64_t at, int positioned) {
  while (n) {
    size_t k = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
    ssize_t w = positioned ? pwrite(fd, p, k, (off_t)at) : write(fd, p, k);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return EIO;
    p += w, n -= (size_t)w, at += (uint64_t)w;
  }
  return 0;
}

static int out_error(ox_out *o, int err) {
  if (!o->err) o->err = err;
  return -1;
}

static int out_flush(ox_out *o) {
  if (o->err) return -1;
  if (o->fd < 0 || !o->fill) return 0;
  int er = write_all(o->fd, o->chunk, o->fill, 0, 0);
  o->fill = 0;
  return er ? out_error(o, er) : 0;
}

int ox_out_put(ox_out *o, const void *p, size_t n) {
  if (o->err) return -1;
  if (o->crc_on)
    for (size_t at = 0; at < n;) {
      uInt k = n - at > (1u << 30) ? (1u << 30) : (uInt)(n - at);
      o->crc = crc32(o->crc, (const Bytef *)p + at, k);
      at += k;
    }
  o->n += n;
  if (o->buf) return ox_buf_put(o->buf, p, n) ? out_error(o, ENOMEM) : 0;
  if (!o->chunk && !(o->chunk = ox_mem_malloc(OX_OUT_CHUNK))) return out_error(o, ENOMEM);
  if (o->fill + n > OX_OUT_CHUNK) {
    if (out_flush(o)) return -1;
    if (n >= OX_OUT_CHUNK) { /* large: straight from the caller's memory */
      int er = write_all(o->fd, p, n, 0, 0);
      return er ? out_error(o, er) : 0;
    }
  }
  if (n) memcpy(o->chunk + o->fill, p, n);
  o->fill += n;
  return 0;
}

int ox_out_patch(ox_out *o, uint64_t at, const void *p, size_t n) {
  if (o->err) return -1;
  if (at > o->n || n > o->n - at) return out_error(o, EINVAL);
  if (o->buf) {
    memcpy(o->buf->p + o->base + at, p, n);
    return 0;
  }
  if (out_flush(o)) return -1;
  int er = write_all(o->fd, p, n, at, 1);
  return er ? out_error(o, er) : 0;
}

int ox_out_finish(ox_out *o) {
  out_flush(o);
  ox_mem_free(o->chunk);
  o->chunk = NULL;
  return o->err;
}
