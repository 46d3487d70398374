/* tests/unit/test_imagedecoder.c: ImageDecoder-20 on images made here, byte
 * by byte (PPM, PGM, BMP) or with zlib (PNG), whose pixels are known: the
 * three pixel formats, gray sources, palettes, and what the suite lacks:
 * streams it can't decode (an empty (0, 0, C) output, as the spec says),
 * truncated pixel data, unsupported PNM variants, and headers that claim more
 * pixels than the memory limit allows (refused before decoding). JPEG, TIFF,
 * WebP and JPEG 2000 are covered by the suite's cases. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "core/ox.h"

static ox_arena *A;
static ox_err E;

static ox_value *stream(const void *p, size_t n) {
  int64_t d = (int64_t)n;
  ox_value *v = NULL;
  if (ox_tensor_new(A, OX_UINT8, 1, &d, &v, &E)) return NULL;
  memcpy(v->u.t.data, p, n);
  return v;
}

/* ImageDecoder-20 on s with pixel_format pf; *y receives the output. */
static int decode(const void *s, size_t n, const char *pf, ox_value **y) {
  static const char *in_names[] = {"encoded_stream"}, *out_names[] = {"image"};
  const ox_kernel *k = ox_registry_find("", "ImageDecoder", 20);
  if (!k) return -1;
  ox_attr at = {.name = "pixel_format", .type = OX_ATTR_STRING, .s = {pf, (int64_t)strlen(pf)}};
  ox_node node = {.name = "dec", .op = "ImageDecoder", .domain = "", .nin = 1, .in = in_names, .nout = 1,
                  .out = out_names, .nattr = 1, .attr = &at, .version = 20, .k = k};
  ox_ctx c = {.a = A, .err = &E, .node = &node, .version = 20};
  ox_value *in[1] = {stream(s, n)};
  ox_err_clear(&E);
  *y = NULL;
  int rc = ox_node_load(&c) ? E.code : k->fn(&c, 1, in, 1, y);
  return rc ? rc : E.code;
}

/* y is (h, w, c) uint8 holding want[] */
static int image_is(const ox_value *y, int64_t h, int64_t w, int64_t c, const uint8_t *want) {
  if (!y || y->u.t.rank != 3 || y->u.t.dt != OX_UINT8) return 0;
  if (y->u.t.dims[0] != h || y->u.t.dims[1] != w || y->u.t.dims[2] != c) return 0;
  return h * w * c == 0 || !memcmp(y->u.t.data, want, (size_t)(h * w * c));
}

/* Pillow's L from RGB, worked out: (R*19595 + G*38470 + B*7471 + 0x8000) >> 16 */
static const uint8_t RGB4[] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30};
static const uint8_t BGR4[] = {0, 0, 255, 0, 255, 0, 255, 0, 0, 30, 20, 10};
static const uint8_t L4[] = {76, 150, 29, 18}; /* 76.74, 150.19, 29.57, 18.65 rounded down after +0.5 */

static void test_pnm(void) {
  uint8_t ppm[64];
  const char *hdr = "P6\n# made by hand\n2 2\n255\n";
  size_t h = strlen(hdr);
  memcpy(ppm, hdr, h);
  memcpy(ppm + h, RGB4, sizeof RGB4);
  ox_value *y;
  CHECK_EQ_I(decode(ppm, h + sizeof RGB4, "RGB", &y), 0);
  CHECK(image_is(y, 2, 2, 3, RGB4));
  CHECK_EQ_I(decode(ppm, h + sizeof RGB4, "BGR", &y), 0);
  CHECK(image_is(y, 2, 2, 3, BGR4));
  CHECK_EQ_I(decode(ppm, h + sizeof RGB4, "Grayscale", &y), 0);
  CHECK(image_is(y, 2, 2, 1, L4));

  /* a gray source: replicated for RGB, itself for Grayscale */
  const uint8_t pgm[] = "P5 3 1 255\n\x00\x80\xff";
  const uint8_t g3[] = {0, 0, 0, 128, 128, 128, 255, 255, 255}, g1[] = {0, 128, 255};
  CHECK_EQ_I(decode(pgm, sizeof pgm - 1, "RGB", &y), 0);
  CHECK(image_is(y, 1, 3, 3, g3));
  CHECK_EQ_I(decode(pgm, sizeof pgm - 1, "Grayscale", &y), 0);
  CHECK(image_is(y, 1, 3, 1, g1));

  /* pixel data cut short: Pillow calls it truncated; the output is empty */
  CHECK_EQ_I(decode(ppm, h + sizeof RGB4 - 1, "RGB", &y), 0);
  CHECK(image_is(y, 0, 0, 3, NULL));
  CHECK_EQ_I(decode(ppm, 9, "Grayscale", &y), 0); /* "P6\n# made" */
  CHECK(image_is(y, 0, 0, 1, NULL));

  /* ASCII PPM is refused as unsupported, not taken for a corrupt stream */
  const char p3[] = "P3\n1 1\n255\n1 2 3\n";
  CHECK_EQ_I(decode(p3, sizeof p3 - 1, "RGB", &y), OX_EUNSUPPORTED);
  CHECK(strstr(E.msg, "P3") != NULL);

  /* 10^12 pixels claimed by a 30-byte file: refused before any allocation,
   * as more than the memory limit allows (OX_ENOMEM, as a failed allocation) */
  const char huge[] = "P6\n1000000 1000000\n255\n\x01\x02\x03";
  CHECK_EQ_I(decode(huge, sizeof huge - 1, "RGB", &y), OX_ENOMEM);
  CHECK(strstr(E.msg, "memory") != NULL);
}

static void put32(uint8_t *p, uint32_t v) { p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24; }

static void test_bmp(void) {
  /* 24-bit, 2 x 2, rows bottom-up in B, G, R order, each padded to 8 bytes */
  uint8_t b[14 + 40 + 16] = {'B', 'M'};
  put32(b + 2, sizeof b);
  put32(b + 10, 54);
  put32(b + 14, 40);
  put32(b + 18, 2);
  put32(b + 22, 2);
  b[26] = 1;  /* planes */
  b[28] = 24; /* bits per pixel */
  put32(b + 34, 16);
  const uint8_t rows[16] = {9, 8, 7, 12, 11, 10, 0, 0, /* bottom: (7,8,9) (10,11,12) */
                            3, 2, 1, 6, 5, 4, 0, 0};   /* top: (1,2,3) (4,5,6) */
  memcpy(b + 54, rows, 16);
  const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  ox_value *y;
  CHECK_EQ_I(decode(b, sizeof b, "RGB", &y), 0);
  CHECK(image_is(y, 2, 2, 3, want));
  /* the last row cut short */
  CHECK_EQ_I(decode(b, sizeof b - 3, "RGB", &y), 0);
  CHECK(image_is(y, 0, 0, 3, NULL));
}

/* ---- PNG, built with zlib ---- */
static size_t chunk(uint8_t *p, const char *type, const uint8_t *data, uint32_t n) {
  p[0] = n >> 24, p[1] = n >> 16, p[2] = n >> 8, p[3] = n;
  memcpy(p + 4, type, 4);
  if (n) memcpy(p + 8, data, n);
  uLong crc = crc32(crc32(0, NULL, 0), p + 4, n + 4);
  p[8 + n] = crc >> 24, p[9 + n] = crc >> 16, p[10 + n] = crc >> 8, p[11 + n] = crc;
  return 12 + n;
}

/* A w x h PNG of colour type `type`, depth 8, from raw rows (filter 0
 * prepended here); plte: n3 palette bytes or NULL. */
static size_t png(uint8_t *out, int w, int h, int type, int bpp, const uint8_t *px, const uint8_t *plte,
                  int n3) {
  uint8_t raw[256], z[512];
  size_t k = 0;
  for (int y = 0; y < h; y++) {
    raw[k++] = 0;
    memcpy(raw + k, px + y * w * bpp, (size_t)(w * bpp));
    k += (size_t)(w * bpp);
  }
  uLongf zn = sizeof z;
  compress(z, &zn, raw, k);
  uint8_t ihdr[13] = {0, 0, 0, (uint8_t)w, 0, 0, 0, (uint8_t)h, 8, (uint8_t)type, 0, 0, 0};
  size_t n = 8;
  memcpy(out, "\x89PNG\r\n\x1a\n", 8);
  n += chunk(out + n, "IHDR", ihdr, 13);
  if (plte) n += chunk(out + n, "PLTE", plte, (uint32_t)n3);
  n += chunk(out + n, "IDAT", z, (uint32_t)zn);
  n += chunk(out + n, "IEND", NULL, 0);
  return n;
}

static void test_png(void) {
  uint8_t f[1024];
  ox_value *y;
  size_t n = png(f, 2, 2, 2, 3, RGB4, NULL, 0); /* RGB */
  CHECK_EQ_I(decode(f, n, "RGB", &y), 0);
  CHECK(image_is(y, 2, 2, 3, RGB4));
  CHECK_EQ_I(decode(f, n, "Grayscale", &y), 0);
  CHECK(image_is(y, 2, 2, 1, L4));

  /* RGBA: alpha dropped, as Pillow's RGB conversion does */
  const uint8_t rgba[] = {255, 0, 0, 9, 0, 255, 0, 99, 0, 0, 255, 199, 10, 20, 30, 255};
  n = png(f, 2, 2, 6, 4, rgba, NULL, 0);
  CHECK_EQ_I(decode(f, n, "BGR", &y), 0);
  CHECK(image_is(y, 2, 2, 3, BGR4));

  /* a palette: indices expanded to their colours */
  const uint8_t idx[] = {3, 2, 1, 0}, plte[] = {10, 20, 30, 0, 0, 255, 0, 255, 0, 255, 0, 0};
  n = png(f, 2, 2, 3, 1, idx, plte, 12);
  CHECK_EQ_I(decode(f, n, "RGB", &y), 0);
  CHECK(image_is(y, 2, 2, 3, RGB4));

  /* gray + alpha: the gray channel */
  const uint8_t ga[] = {0, 1, 128, 2, 255, 3}, g1[] = {0, 128, 255};
  n = png(f, 3, 1, 4, 2, ga, NULL, 0);
  CHECK_EQ_I(decode(f, n, "Grayscale", &y), 0);
  CHECK(image_is(y, 1, 3, 1, g1));

  /* a corrupt IDAT: empty */
  n = png(f, 2, 2, 2, 3, RGB4, NULL, 0);
  f[8 + 25 + 10] ^= 0x55;
  CHECK_EQ_I(decode(f, n, "RGB", &y), 0);
  CHECK(image_is(y, 0, 0, 3, NULL));
}

static void test_errors(void) {
  ox_value *y;
  /* not an image: empty output, rc 0 */
  CHECK_EQ_I(decode("hello, world", 12, "RGB", &y), 0);
  CHECK(image_is(y, 0, 0, 3, NULL));
  CHECK_EQ_I(decode("", 0, "Grayscale", &y), 0);
  CHECK(image_is(y, 0, 0, 1, NULL));
  /* a pixel format the spec doesn't have */
  const char pgm[] = "P5 1 1 255\n\x07";
  CHECK_EQ_I(decode(pgm, sizeof pgm - 1, "RGBA", &y), OX_EINPUT);
  CHECK(strstr(E.msg, "pixel_format") != NULL);
  /* truncated JPEG, TIFF, WebP and JPEG 2000 headers: empty, never a crash */
  static const char *const heads[] = {"\xFF\xD8\xFF\xE0\x00\x10JFIF", "II*\0\x08\0\0\0", "MM\0*",
                                      "RIFF\x10\0\0\0WEBPVP8 ", "\xFF\x4F\xFF\x51\0\x2F",
                                      "\0\0\0\x0CjP  \r\n\x87\n\0\0"};
  static const size_t lens[] = {10, 8, 4, 16, 6, 14};
  for (int i = 0; i < 6; i++) {
    CHECK_EQ_I(decode(heads[i], lens[i], "RGB", &y), 0);
    CHECK(image_is(y, 0, 0, 3, NULL));
  }
}

int main(void) {
  A = ox_arena_new();
  test_pnm();
  test_bmp();
  test_png();
  test_errors();
  ox_arena_free(A);
  return check_done("imagedecoder");
}
