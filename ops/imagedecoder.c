/* ops/imagedecoder.c: ImageDecoder-20, through Debian's image libraries.
 *
 * encoded_stream: (L,) uint8 -> image: (H, W, 3) for RGB and BGR, (H, W, 1) for
 * Grayscale. The format is told by its first bytes:
 *   JPEG      libjpeg-turbo  (libjpeg62-turbo)
 *   PNG       libpng         (libpng16-16)
 *   TIFF      libtiff        (libtiff6)
 *   WebP      libwebp        (libwebp7)
 *   JPEG 2000 openjpeg       (libopenjp2-7)
 *   BMP, PGM/PPM (P5, P6)    stb_image (libstb-dev's header, compiled in here)
 *
 * The shared libraries are not linked into onnxop: loading five of them (and
 * libtiff's own dependencies) costs every run about 2 ms before main, so each
 * is dlopen()ed by its SONAME the first time a stream of its format arrives.
 * The Makefile finds each library with pkg-config and passes OX_HAVE_<LIB> and
 * OX_SONAME_<LIB>; a format whose library was missing at build time, or can't
 * be loaded now, is an error naming the Debian package to install.
 *
 * The expected outputs of the ONNX suite come from Pillow, so the decoding
 * follows it: libjpeg's defaults (JDCT_ISLOW, fancy upsampling, which the
 * spec names), 16-bit samples reduced to their high byte, alpha dropped,
 * palettes expanded, and Pillow's RGB -> L conversion (ITU-R 601-2 luma in
 * 16-bit fixed point, its L24 macro) for Grayscale.
 *
 * ImageDecoder-20: "If it can't decode for any reason (e.g. corrupted encoded
 * stream, invalid format), it will return an empty matrix": such a stream
 * gives shape (0, 0, C) and a warning on stderr. A missing library, or an
 * image larger than the memory limit allows, is an error instead: neither is
 * a fault of the stream. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"

#ifdef OX_HAVE_JPEG
#include <jpeglib.h>
#include <jerror.h>
#endif
#ifdef OX_HAVE_PNG
#include <png.h>
#endif
#ifdef OX_HAVE_TIFF
#include <tiffio.h>
#endif
#ifdef OX_HAVE_WEBP
#include <webp/decode.h>
#endif
#ifdef OX_HAVE_OPENJP2
#include <openjpeg.h>
#endif
#ifdef OX_HAVE_STB
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_BMP
#define STBI_ONLY_PNM
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_NO_FAILURE_STRINGS
#define STBI_MAX_DIMENSIONS (1 << 20)
/* stb_image's buffers count against --max-memory */
#define STBI_MALLOC(n) ox_mem_malloc(n)
#define STBI_REALLOC(p, n) ox_mem_realloc(p, n)
#define STBI_FREE(p) ox_mem_free(p)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes" /* its extern functions, compiled in here */
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb_image.h>
#pragma GCC diagnostic pop
#endif

/* ---------------------------------------------------------------- results */

/* What a decoder gives: w x h pixels of ch (1 or 3) interleaved 8-bit
 * channels, in the arena. */
typedef struct {
  int64_t w, h;
  int ch;
  uint8_t *px;
} image;

enum { DECODED = 0, UNDECODABLE = -1 }; /* or an OX_E* code */

/* Why the stream could not be decoded, for the warning; `held`: bytes
 * charged against the memory limit for a library's own buffers while it
 * decodes (image_decoder gives them back). */
typedef struct {
  ox_ctx *c;
  char why[256];
  size_t held;
} job;

static int undecodable(job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int undecodable(job *j, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->why, sizeof j->why, fmt, ap);
  va_end(ap);
  return UNDECODABLE;
}

/* need bytes for a w x h image are more than the memory limit allows (or
 * than is left of it: what is in use is said); UINT64_MAX: more than a size
 * holds */
static int too_big(job *j, int64_t w, int64_t h, uint64_t need) {
  char what[96], ls[200];
  if (need == UINT64_MAX)
    return ox_fail(j->c->err, OX_ENOMEM, "a %lld x %lld image is more than the memory limit allows (%s)",
                   (long long)w, (long long)h, ox_memory_limit_str(ls, sizeof ls));
  snprintf(what, sizeof what, "a %lld x %lld image", (long long)w, (long long)h);
  return ox_over_limit(j->c->err, need, what);
}

/* Charge n bytes a library will hold while decoding, where its allocations
 * can't be counted one by one. */
__attribute__((unused)) static int hold(job *j, int64_t w, int64_t h, uint64_t n) {
  if (n > SIZE_MAX) return too_big(j, w, h, n);
  if (ox_mem_charge((size_t)n)) return ox_mem_last_failure() == OX_MEM_LIMIT ? too_big(j, w, h, n) : ox_oom(j->c->err, NULL);
  j->held += (size_t)n;
  return 0;
}

/* Room for a w x h x ch image, and `extra` bytes per pixel that the library
 * holds while decoding, under the memory limit: checked from the header
 * before the library allocates anything, so a tiny file claiming 100000 x
 * 100000 pixels costs nothing. Then the library's buffers are counted as it
 * allocates them (libpng, stb_image, libtiff's raster), or held (hold) for
 * as long as it decodes. */
__attribute__((unused)) static int make_room(job *j, image *im, int64_t w, int64_t h, int ch, int extra) {
  if (w <= 0 || h <= 0) return undecodable(j, "the image has no pixels");
  int64_t dims[3] = {h, w, ch + extra};
  size_t lim = ox_memory_limit(), in_use = ox_memory_in_use();
  if (ox_numel(3, dims, 1) < 0) return too_big(j, w, h, UINT64_MAX);
  uint64_t need = (uint64_t)w * (uint64_t)h * (uint64_t)(ch + extra);
  if (in_use > lim || need > lim - in_use) return too_big(j, w, h, need);
  im->w = w;
  im->h = h;
  im->ch = ch;
  im->px = ox_alloc_uninit(j->c->a, (size_t)(w * h * ch));
  if (!im->px) return ox_oom(j->c->err, "for a %lld x %lld image", (long long)w,
                              (long long)h);
  return 0;
}

/* A stream in memory, read through the libraries' callbacks; msg keeps a
 * library's last error text for the warning. */
typedef struct {
  const uint8_t *p;
  uint64_t n, at;
  char msg[200];
} mem_src;

/* Copy up to n bytes from the read position; how many were copied. */
__attribute__((unused)) static uint64_t src_read(mem_src *s, void *buf, uint64_t n) {
  uint64_t k = n < s->n - s->at ? n : s->n - s->at;
  if (k) memcpy(buf, s->p + s->at, (size_t)k);
  s->at += k;
  return k;
}

/* ---------------------------------------------------------------- loading */

/* One shared library, opened once (pthread_once) on first use. */
typedef struct {
  const char *soname, *format, *package;
  pthread_once_t once;
  void *handle;
  char why[320];
} library;

/* Open lib and fill `n` function pointers from names[]; on failure lib->why
 * says what went wrong. */
__attribute__((unused)) static void open_library(library *lib, const char *const *names, void **slots, int n) {
  void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(lib->why, sizeof lib->why, "%s support needs %s (Debian package %s), which "
             "can't be loaded: %s", lib->format, lib->soname, lib->package, dlerror());
    return;
  }
  for (int i = 0; i < n; i++) {
    /* POSIX's way to turn dlsym's object pointer into a function pointer */
    if (!(slots[i] = dlsym(h, names[i]))) {
      snprintf(lib->why, sizeof lib->why, "%s (%s support) has no symbol %s", lib->soname,
               lib->format, names[i]);
      dlclose(h);
      return;
    }
  }
  lib->handle = h;
}

/* LIBRARY(name, FUNCS): a struct `name` of typed pointers to FUNCS (declared
 * with the real prototypes from the real header, so calls are type-checked),
 * and name_load(c) that opens the library once and fails with its reason. */
#define FN_SLOT(f) __typeof__(f) *f;
#define FN_NAME(f) #f,
#define LIBRARY(name, FUNCS, SONAME, FORMAT, PACKAGE)                                         \
  static struct { FUNCS(FN_SLOT) } name;                                                     \
  static library name##_lib = {SONAME, FORMAT, PACKAGE, PTHREAD_ONCE_INIT, NULL, ""};         \
  static void name##_open(void) {                                                            \
    static const char *const names[] = {FUNCS(FN_NAME)};                                      \
    void *slots[sizeof names / sizeof *names];                                                \
    open_library(&name##_lib, names, slots, (int)(sizeof names / sizeof *names));             \
    if (name##_lib.handle) memcpy(&name, slots, sizeof name);                                 \
  }                                                                                           \
  static int name##_load(ox_ctx *c) {                                                         \
    pthread_once(&name##_lib.once, name##_open);                                              \
    return name##_lib.handle ? 0 : ox_fail(c->err, OX_EUNSUPPORTED, "%s", name##_lib.why);   \
  }

/* A format left out at build time. */
__attribute__((unused)) static int not_built(ox_ctx *c, const char *format, const char *pc, const char *package) {
  return ox_fail(c->err, OX_EUNSUPPORTED,
                 "%s support needs %s (Debian package %s); it was not found when "
                 "onnxop was built", format, pc, package);
}

/* ---------------------------------------------------------------- JPEG */

#ifdef OX_HAVE_JPEG
#define JPEG_FUNCS(X)                                                                         \
  X(jpeg_std_error) X(jpeg_CreateDecompress) X(jpeg_mem_src) X(jpeg_read_header)             \
  X(jpeg_start_decompress) X(jpeg_read_scanlines) X(jpeg_destroy_decompress)                 \
  X(jpeg_save_markers)
LIBRARY(jpg, JPEG_FUNCS, OX_SONAME_JPEG, "JPEG", "libjpeg62-turbo")

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jb;
  int truncated;
  char msg[JMSG_LENGTH_MAX];
} jpeg_errors;

static void jpeg_fail(j_common_ptr ci) {
  jpeg_errors *e = (jpeg_errors *)ci->err;
  ci->err->format_message(ci, e->msg);
  longjmp(e->jb, 1);
}
static void jpeg_quiet(j_common_ptr ci) { (void)ci; }
/* libjpeg pads a stream that ends early with gray and warns; Pillow calls
 * such an image truncated and refuses it, so it is undecodable here too. */
static void jpeg_note(j_common_ptr ci, int level) {
  if (level < 0 && ci->err->msg_code == JWRN_JPEG_EOF) ((jpeg_errors *)ci->err)->truncated = 1;
}

/* Pillow's CMYK -> RGB: each channel scaled by (255 - K) (MULDIV255). */
static uint8_t muldiv255(unsigned a, unsigned b) {
  unsigned t = a * b + 128;
  return (uint8_t)(((t >> 8) + t) >> 8);
}

static int decode_jpeg(job *j, const uint8_t *s, size_t n, image *im) {
  OX_TRY(jpg_load(j->c));
  struct jpeg_decompress_struct ci;
  jpeg_errors err;
  uint8_t *volatile row = NULL;
  ci.err = jpg.jpeg_std_error(&err.pub);
  err.pub.error_exit = jpeg_fail;
  err.pub.output_message = jpeg_quiet;
  err.pub.emit_message = jpeg_note;
  err.truncated = 0;
  if (setjmp(err.jb)) {
    ox_mem_free(row);
    jpg.jpeg_destroy_decompress(&ci);
    return undecodable(j, "JPEG: %s", err.msg);
  }
  jpg.jpeg_CreateDecompress(&ci, JPEG_LIB_VERSION, sizeof ci);
  jpg.jpeg_mem_src(&ci, s, (unsigned long)n);
  jpg.jpeg_save_markers(&ci, JPEG_APP0 + 14, 0xffff); /* Adobe: CMYK stored inverted */
  jpg.jpeg_read_header(&ci, TRUE);
  int cmyk = ci.jpeg_color_space == JCS_CMYK || ci.jpeg_color_space == JCS_YCCK;
  int gray = ci.jpeg_color_space == JCS_GRAYSCALE;
  ci.out_color_space = gray ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
  /* progressive and multi-scan images keep every coefficient (2 bytes each) */
  int extra = ci.progressive_mode ? 2 * ci.num_components : 0;
  int rc = make_room(j, im, ci.image_width, ci.image_height, gray ? 1 : 3, extra);
  if (!rc) rc = hold(j, im->w, im->h, (uint64_t)im->w * (uint64_t)im->h * (uint64_t)extra);
  if (rc) {
    jpg.jpeg_destroy_decompress(&ci);
    return rc;
  }
  jpg.jpeg_start_decompress(&ci);
  if (cmyk) row = ox_mem_malloc((size_t)ci.output_width * 4);
  if (cmyk && !row) {
    jpg.jpeg_destroy_decompress(&ci);
    return ox_oom(j->c->err, NULL);
  }
  int inverted = ci.saw_Adobe_marker;
  while (ci.output_scanline < ci.output_height) {
    uint8_t *dst = im->px + (size_t)ci.output_scanline * (size_t)im->w * (size_t)im->ch;
    JSAMPROW r = cmyk ? row : dst;
    jpg.jpeg_read_scanlines(&ci, &r, 1);
    if (cmyk)
      for (int64_t x = 0; x < im->w; x++) {
        const uint8_t *p = row + 4 * x;
        unsigned k = inverted ? p[3] : 255u - p[3];
        for (int q = 0; q < 3; q++) {
          unsigned v = inverted ? 255u - p[q] : p[q];
          dst[3 * x + q] = (uint8_t)(k - muldiv255(v, k));
        }
      }
  }
  /* Like Pillow, stop after the last scanline: what follows is not read. */
  ox_mem_free(row);
  jpg.jpeg_destroy_decompress(&ci);
  return err.truncated ? undecodable(j, "JPEG: the stream ends before the image does") : DECODED;
}
#endif

/* ---------------------------------------------------------------- PNG */

#ifdef OX_HAVE_PNG
#define PNG_FUNCS(X)                                                                          \
  X(png_create_read_struct_2) X(png_create_info_struct) X(png_destroy_read_struct)             \
  X(png_set_read_fn) X(png_get_io_ptr) X(png_read_info) X(png_get_IHDR) X(png_set_strip_16)  \
  X(png_set_palette_to_rgb) X(png_set_expand_gray_1_2_4_to_8) X(png_set_strip_alpha)         \
  X(png_set_interlace_handling) X(png_read_update_info)                                      \
  X(png_read_row) X(png_set_longjmp_fn) X(png_error) X(png_set_user_limits)                  \
  X(png_get_error_ptr) X(png_get_channels) X(png_get_rowbytes)
LIBRARY(lpng, PNG_FUNCS, OX_SONAME_PNG, "PNG", "libpng16-16")

static void png_read_mem(png_structp png, png_bytep out, size_t n) {
  if (src_read(lpng.png_get_io_ptr(png), out, n) != n) lpng.png_error(png, "the stream ends early");
}
static void png_fail(png_structp png, png_const_charp msg) {
  mem_src *s = lpng.png_get_error_ptr(png);
  snprintf(s->msg, sizeof s->msg, "%s", msg);
  longjmp(*lpng.png_set_longjmp_fn(png, longjmp, sizeof(jmp_buf)), 1);
}
static void png_quiet(png_structp png, png_const_charp msg) { (void)png, (void)msg; }
/* libpng's row buffers count against --max-memory */
static png_voidp png_alloc(png_structp png, png_alloc_size_t n) {
  (void)png;
  return ox_mem_malloc(n);
}
static void png_release(png_structp png, png_voidp p) {
  (void)png;
  ox_mem_free(p);
}

static int decode_png(job *j, const uint8_t *s, size_t n, image *im) {
  OX_TRY(lpng_load(j->c));
  mem_src src = {s, n, 0, "not a PNG"};
  png_structp png = lpng.png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &src, png_fail, png_quiet, NULL,
                                                  png_alloc, png_release);
  png_infop info = png ? lpng.png_create_info_struct(png) : NULL;
  if (!info) {
    lpng.png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
    return ox_oom(j->c->err, NULL);
  }
  lpng.png_set_read_fn(png, &src, png_read_mem);
  if (setjmp(*lpng.png_set_longjmp_fn(png, longjmp, sizeof(jmp_buf)))) {
    lpng.png_destroy_read_struct(&png, &info, NULL);
    return undecodable(j, "PNG: %s", src.msg);
  }
  lpng.png_set_user_limits(png, 0x7fffffff, 0x7fffffff); /* the memory limit decides */
  lpng.png_read_info(png, info);
  png_uint_32 w, h;
  int depth, type, interlace;
  lpng.png_get_IHDR(png, info, &w, &h, &depth, &type, &interlace, NULL, NULL);
  int gray = !(type & PNG_COLOR_MASK_COLOR) && type != PNG_COLOR_TYPE_PALETTE;
  /* the header against the limit before png_read_update_info, which
   * allocates (and clears) two rows of the image */
  int rc = make_room(j, im, w, h, gray ? 1 : 3, 0);
  if (rc) {
    lpng.png_destroy_read_struct(&png, &info, NULL);
    return rc;
  }
  lpng.png_set_strip_16(png);              /* Pillow keeps the high byte */
  lpng.png_set_palette_to_rgb(png);
  lpng.png_set_expand_gray_1_2_4_to_8(png);
  lpng.png_set_strip_alpha(png);           /* Pillow's RGBA -> RGB drops alpha */
  int passes = lpng.png_set_interlace_handling(png);
  lpng.png_read_update_info(png, info);
  if (lpng.png_get_channels(png, info) != im->ch || lpng.png_get_rowbytes(png, info) != w * (size_t)im->ch) {
    lpng.png_destroy_read_struct(&png, &info, NULL);
    return undecodable(j, "PNG: an unexpected pixel layout");
  }
  for (int p = 0; p < passes; p++)
    for (png_uint_32 y = 0; y < h; y++)
      lpng.png_read_row(png, im->px + (size_t)y * w * (size_t)im->ch, NULL);
  lpng.png_destroy_read_struct(&png, &info, NULL);
  return DECODED;
}
#endif

/* ---------------------------------------------------------------- TIFF */

#ifdef OX_HAVE_TIFF
#define TIFF_FUNCS(X)                                                                         \
  X(TIFFClientOpen) X(TIFFClose) X(TIFFGetField) X(TIFFReadRGBAImageOriented)                \
  X(TIFFSetErrorHandler) X(TIFFSetWarningHandler) X(TIFFIsTiled) X(TIFFStripSize64)          \
  X(TIFFTileSize64)
LIBRARY(tif, TIFF_FUNCS, OX_SONAME_TIFF, "TIFF", "libtiff6")

static tsize_t tiff_read(thandle_t h, tdata_t buf, tsize_t n) {
  return n < 0 ? 0 : (tsize_t)src_read(h, buf, (uint64_t)n);
}
static tsize_t tiff_write(thandle_t h, tdata_t buf, tsize_t n) { (void)h, (void)buf, (void)n; return 0; }
static toff_t tiff_seek(thandle_t h, toff_t off, int whence) {
  mem_src *s = h;
  toff_t base = whence == SEEK_CUR ? s->at : whence == SEEK_END ? s->n : 0;
  if (off > UINT64_MAX - base) return (toff_t)-1;
  s->at = base + off > s->n ? s->n : base + off;
  return s->at;
}
static int tiff_close(thandle_t h) { (void)h; return 0; }
static toff_t tiff_size(thandle_t h) { return ((mem_src *)h)->n; }
static int tiff_map(thandle_t h, tdata_t *p, toff_t *n) { (void)h, (void)p, (void)n; return 0; }
static void tiff_unmap(thandle_t h, tdata_t p, toff_t n) { (void)h, (void)p, (void)n; }

/* libtiff reports through process-wide handlers, on the thread that
 * decodes: keep its text per thread, for that decode's warning (two runs
 * of the library may decode at once). */
static _Thread_local char tiff_msg[200];
static void tiff_error(const char *mod, const char *fmt, va_list ap) {
  (void)mod;
  vsnprintf(tiff_msg, sizeof tiff_msg, fmt, ap);
}
static void tiff_warning(const char *mod, const char *fmt, va_list ap) { (void)mod, (void)fmt, (void)ap; }

static int decode_tiff(job *j, const uint8_t *s, size_t n, image *im) {
  OX_TRY(tif_load(j->c));
  mem_src src = {s, n, 0, ""};
  tif.TIFFSetErrorHandler(tiff_error);
  tif.TIFFSetWarningHandler(tiff_warning);
  snprintf(tiff_msg, sizeof tiff_msg, "not a TIFF");
  TIFF *t = tif.TIFFClientOpen("encoded_stream", "rm", &src, tiff_read, tiff_write, tiff_seek, tiff_close,
                               tiff_size, tiff_map, tiff_unmap);
  if (!t) return undecodable(j, "TIFF: %s", tiff_msg);
  uint32_t w = 0, h = 0;
  tif.TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
  tif.TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
  /* TIFFReadRGBAImage fills a w x h raster of packed ABGR words, reading
   * a strip or tile at a time (one per sample when planes are separate) */
  int rc = make_room(j, im, w, h, 3, 4);
  uint64_t piece = tif.TIFFIsTiled(t) ? tif.TIFFTileSize64(t) : tif.TIFFStripSize64(t);
  if (!rc) rc = hold(j, w, h, piece > UINT64_MAX / 4 ? UINT64_MAX : 4 * piece);
  if (rc) {
    tif.TIFFClose(t);
    return rc;
  }
  uint32_t *raster = ox_mem_malloc((size_t)w * h * sizeof *raster);
  if (!raster) {
    tif.TIFFClose(t);
    return ox_oom(j->c->err, "for the %u x %u raster", (unsigned)w, (unsigned)h);
  }
  int ok = tif.TIFFReadRGBAImageOriented(t, w, h, raster, ORIENTATION_TOPLEFT, 0);
  tif.TIFFClose(t);
  if (!ok) {
    ox_mem_free(raster);
    return undecodable(j, "TIFF: %s", tiff_msg);
  }
  for (size_t i = 0, np = (size_t)w * h; i < np; i++) {
    im->px[3 * i + 0] = (uint8_t)TIFFGetR(raster[i]);
    im->px[3 * i + 1] = (uint8_t)TIFFGetG(raster[i]);
    im->px[3 * i + 2] = (uint8_t)TIFFGetB(raster[i]);
  }
  ox_mem_free(raster);
  return DECODED;
}
#endif

/* ---------------------------------------------------------------- WebP */

#ifdef OX_HAVE_WEBP
#define WEBP_FUNCS(X) X(WebPGetInfo) X(WebPGetFeaturesInternal) X(WebPDecodeRGBInto)
LIBRARY(webp, WEBP_FUNCS, OX_SONAME_WEBP, "WebP", "libwebp7")

static int decode_webp(job *j, const uint8_t *s, size_t n, image *im) {
  OX_TRY(webp_load(j->c));
  int w, h;
  if (!webp.WebPGetInfo(s, n, &w, &h)) return undecodable(j, "WebP: the header is not valid");
  /* lossless images decode through a w x h ARGB buffer; alpha is a plane */
  WebPBitstreamFeatures f;
  if (webp.WebPGetFeaturesInternal(s, n, &f, WEBP_DECODER_ABI_VERSION) != VP8_STATUS_OK)
    return undecodable(j, "WebP: the header is not valid");
  int extra = (f.format == 2 ? 4 : 0) + (f.has_alpha ? 1 : 0);
  OX_TRY(make_room(j, im, w, h, 3, extra));
  OX_TRY(hold(j, w, h, (uint64_t)w * (uint64_t)h * (uint64_t)extra));
  if (!webp.WebPDecodeRGBInto(s, n, im->px, (size_t)w * (size_t)h * 3, w * 3))
    return undecodable(j, "WebP: the stream can't be decoded (corrupt, or an animation)");
  return DECODED;
}
#endif

/* ---------------------------------------------------------------- JPEG 2000 */

#ifdef OX_HAVE_OPENJP2
#define OPJ_FUNCS(X)                                                                          \
  X(opj_stream_create) X(opj_stream_set_user_data) X(opj_stream_set_user_data_length)        \
  X(opj_stream_set_read_function) X(opj_stream_set_skip_function)                            \
  X(opj_stream_set_seek_function) X(opj_stream_destroy) X(opj_create_decompress)            \
  X(opj_set_error_handler) X(opj_set_warning_handler) X(opj_set_info_handler)               \
  X(opj_set_default_decoder_parameters) X(opj_setup_decoder) X(opj_read_header)             \
  X(opj_decode) X(opj_end_decompress) X(opj_image_destroy) X(opj_destroy_codec)
LIBRARY(opj, OPJ_FUNCS, OX_SONAME_OPENJP2, "JPEG 2000", "libopenjp2-7")

static OPJ_SIZE_T opj_rd(void *buf, OPJ_SIZE_T n, void *u) {
  mem_src *s = u;
  return s->at >= s->n ? (OPJ_SIZE_T)-1 : (OPJ_SIZE_T)src_read(s, buf, n);
}
static OPJ_OFF_T opj_skip(OPJ_OFF_T n, void *u) {
  mem_src *s = u;
  if (n < 0 ? (OPJ_UINT64)-n > s->at : (OPJ_UINT64)n > s->n - s->at) return -1;
  s->at += (OPJ_UINT64)n;
  return n;
}
static OPJ_BOOL opj_seek(OPJ_OFF_T at, void *u) {
  mem_src *s = u;
  if (at < 0 || (OPJ_UINT64)at > s->n) return OPJ_FALSE;
  s->at = (OPJ_UINT64)at;
  return OPJ_TRUE;
}
static void opj_error(const char *msg, void *u) {
  mem_src *s = u;
  snprintf(s->msg, sizeof s->msg, "%s", msg);
  size_t k = strlen(s->msg);
  while (k && (s->msg[k - 1] == '\n' || s->msg[k - 1] == ' ')) s->msg[--k] = 0;
}
static void opj_quiet(const char *msg, void *u) { (void)msg, (void)u; }

/* Pillow's j2ku_shift: a sample of `prec` bits (signed ones offset by half
 * their range) shifted to 8 bits, then clamped. */
static uint8_t to8(OPJ_INT32 v, const opj_image_comp_t *cp) {
  int shift = 8 - (int)cp->prec;
  int64_t x = (int64_t)v + (cp->sgnd ? (int64_t)1 << (cp->prec - 1) : 0);
  x = shift < 0 ? x >> -shift : x << shift;
  return (uint8_t)(x < 0 ? 0 : x > 255 ? 255 : x);
}

static int decode_jpeg2000(job *j, const uint8_t *s, size_t n, int jp2, image *im) {
  OX_TRY(opj_load(j->c));
  mem_src src = {s, n, 0, "the stream can't be decoded"};
  opj_stream_t *st = opj.opj_stream_create(1 << 16, OPJ_TRUE);
  opj_codec_t *codec = opj.opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_image_t *img = NULL;
  int rc = UNDECODABLE;
  if (!st || !codec) {
    rc = ox_oom(j->c->err, NULL);
    goto done;
  }
  opj.opj_stream_set_user_data(st, &src, NULL);
  opj.opj_stream_set_user_data_length(st, n);
  opj.opj_stream_set_read_function(st, opj_rd);
  opj.opj_stream_set_skip_function(st, opj_skip);
  opj.opj_stream_set_seek_function(st, opj_seek);
  opj.opj_set_error_handler(codec, opj_error, &src);
  opj.opj_set_warning_handler(codec, opj_quiet, NULL);
  opj.opj_set_info_handler(codec, opj_quiet, NULL);
  opj_dparameters_t par;
  opj.opj_set_default_decoder_parameters(&par);
  if (!opj.opj_setup_decoder(codec, &par) || !opj.opj_read_header(st, codec, &img)) {
    rc = undecodable(j, "JPEG 2000: %s", src.msg);
    goto done;
  }
  int64_t w = (int64_t)img->x1 - img->x0, h = (int64_t)img->y1 - img->y0;
  unsigned nc = img->numcomps;
  if (nc == 0 || nc == 2 || nc > 4 || img->color_space == OPJ_CLRSPC_SYCC ||
      img->color_space == OPJ_CLRSPC_CMYK || img->color_space == OPJ_CLRSPC_EYCC) {
    rc = ox_fail(j->c->err, OX_EUNSUPPORTED, "JPEG 2000 with %u components (colour space "
                 "%d) is not supported; gray, RGB and RGBA are", nc, (int)img->color_space);
    goto done;
  }
  /* openjpeg holds every component as int32 while decoding */
  rc = make_room(j, im, w, h, nc == 1 ? 1 : 3, 4 * (int)nc);
  if (!rc) rc = hold(j, w, h, (uint64_t)w * (uint64_t)h * 4 * nc);
  if (rc) goto done;
  if (!opj.opj_decode(codec, st, img) || !opj.opj_end_decompress(codec, st)) {
    rc = undecodable(j, "JPEG 2000: %s", src.msg);
    goto done;
  }
  for (int q = 0; q < im->ch; q++) {
    const opj_image_comp_t *cp = &img->comps[q];
    if (cp->dx != 1 || cp->dy != 1 || cp->w != (OPJ_UINT32)w || cp->h != (OPJ_UINT32)h || !cp->data ||
        cp->prec < 1 || cp->prec > 31) {
      rc = ox_fail(j->c->err, OX_EUNSUPPORTED, "JPEG 2000 with subsampled or "
                   "offset components is not supported");
      goto done;
    }
  }
  for (int q = 0; q < im->ch; q++) {
    const opj_image_comp_t *cp = &img->comps[q];
    for (int64_t i = 0; i < w * h; i++) im->px[i * im->ch + q] = to8(cp->data[i], cp);
  }
  rc = DECODED;
done:
  if (img) opj.opj_image_destroy(img);
  if (codec) opj.opj_destroy_codec(codec);
  if (st) opj.opj_stream_destroy(st);
  return rc;
}
#endif

/* ---------------------------------------------------------------- BMP, PNM */

#ifdef OX_HAVE_STB
static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static unsigned le16(const uint8_t *p) { return p[0] | p[1] << 8; }

/* PNM header: P5/P6, then width, height and maxval as decimal tokens
 * (with #-comments), then one whitespace byte. */
static int pnm_token(const uint8_t *s, size_t n, size_t *at, uint64_t *v) {
  while (*at < n && (s[*at] == ' ' || s[*at] == '\t' || s[*at] == '\n' || s[*at] == '\r' || s[*at] == '#'))
    if (s[(*at)++] == '#')
      while (*at < n && s[*at] != '\n' && s[*at] != '\r') (*at)++;
  if (*at >= n || s[*at] < '0' || s[*at] > '9') return -1;
  for (*v = 0; *at < n && s[*at] >= '0' && s[*at] <= '9' && *v < (1u << 30); (*at)++) *v = *v * 10 + (s[*at] - '0');
  return 0;
}

/* The bytes an uncompressed BMP or a binary PNM needs for its pixels (0 when
 * unknown, UINT64_MAX for a PNM header cut short): stb_image reads past the end as zeros, where Pillow refuses a
 * truncated image, so the size is checked first. */
static uint64_t stb_needs(const uint8_t *s, size_t n, int bmp) {
  if (bmp) {
    if (n < 30) return 0;
    uint64_t off = le32(s + 10), hdr = le32(s + 14), w, h, bpp, comp = 0;
    if (hdr == 12) {
      w = le16(s + 18), h = le16(s + 20), bpp = le16(s + 24);
    } else {
      if (n < 34) return 0;
      int32_t sh = (int32_t)le32(s + 22);
      w = le32(s + 18), h = sh < 0 ? -(int64_t)sh : sh, bpp = le16(s + 28), comp = le32(s + 30);
    }
    if (comp != 0 && comp != 3 && comp != 6) return 0; /* RLE: its own length */
    return off + h * (((w * bpp + 31) / 32) * 4);
  }
  size_t at = 2;
  uint64_t w, h, maxval;
  if (pnm_token(s, n, &at, &w) || pnm_token(s, n, &at, &h) || pnm_token(s, n, &at, &maxval)) return UINT64_MAX;
  return at + 1 + w * h * (s[1] == '6' ? 3 : 1) * (maxval > 255 ? 2 : 1);
}

static int decode_stb(job *j, const uint8_t *s, size_t n, const char *format, image *im) {
  int w, h, comp;
  if (n > INT32_MAX) return undecodable(j, "%s: the stream is too long", format);
  if (!stbi_info_from_memory(s, (int)n, &w, &h, &comp))
    return undecodable(j, "%s: the header is not valid", format);
  OX_TRY(make_room(j, im, w, h, 3, 3)); /* stb decodes into its own buffer first (counted) */
  if (stb_needs(s, n, format[0] == 'B') > n) return undecodable(j, "%s: the pixel data is truncated", format);
  uint8_t *p = stbi_load_from_memory(s, (int)n, &w, &h, &comp, 3);
  if (!p) return undecodable(j, "%s: the stream can't be decoded", format);
  if ((int64_t)w != im->w || (int64_t)h != im->h) {
    stbi_image_free(p);
    return undecodable(j, "%s: the header and the data disagree", format);
  }
  memcpy(im->px, p, (size_t)w * (size_t)h * 3);
  stbi_image_free(p);
  return DECODED;
}
#endif

/* ---------------------------------------------------------------- the op */

/* Decode s by its magic bytes into im; DECODED, UNDECODABLE (with j->why) or
 * an error code. */
static int decode(job *j, const uint8_t *s, size_t n, image *im) {
  ox_ctx *c = j->c;
  (void)c;
  if (n >= 3 && s[0] == 0xFF && s[1] == 0xD8 && s[2] == 0xFF) {
#ifdef OX_HAVE_JPEG
    return decode_jpeg(j, s, n, im);
#else
    return not_built(c, "JPEG", "libjpeg", "libjpeg62-turbo-dev");
#endif
  }
  if (n >= 8 && !memcmp(s, "\x89PNG\r\n\x1a\n", 8)) {
#ifdef OX_HAVE_PNG
    return decode_png(j, s, n, im);
#else
    return not_built(c, "PNG", "libpng", "libpng-dev");
#endif
  }
  if (n >= 4 && (!memcmp(s, "II*\0", 4) || !memcmp(s, "MM\0*", 4))) {
#ifdef OX_HAVE_TIFF
    return decode_tiff(j, s, n, im);
#else
    return not_built(c, "TIFF", "libtiff", "libtiff-dev");
#endif
  }
  if (n >= 12 && !memcmp(s, "RIFF", 4) && !memcmp(s + 8, "WEBP", 4)) {
#ifdef OX_HAVE_WEBP
    return decode_webp(j, s, n, im);
#else
    return not_built(c, "WebP", "libwebp", "libwebp-dev");
#endif
  }
  int j2k = n >= 4 && !memcmp(s, "\xFF\x4F\xFF\x51", 4);
  int jp2 = n >= 12 && !memcmp(s, "\0\0\0\x0CjP  \r\n\x87\n", 12);
  if (j2k || jp2) {
#ifdef OX_HAVE_OPENJP2
    return decode_jpeg2000(j, s, n, jp2, im);
#else
    return not_built(c, "JPEG 2000", "libopenjp2", "libopenjp2-7-dev");
#endif
  }
  int bmp = n >= 2 && s[0] == 'B' && s[1] == 'M';
  int pnm = n >= 2 && s[0] == 'P' && s[1] >= '1' && s[1] <= '7';
  if (pnm && s[1] != '5' && s[1] != '6')
    return ox_fail(c->err, OX_EUNSUPPORTED, "PNM format P%c is not supported; binary "
                   "PGM and PPM (P5, P6) are", s[1]);
  if (bmp || pnm) {
#ifdef OX_HAVE_STB
    return decode_stb(j, s, n, bmp ? "BMP" : "PNM", im);
#else
    return not_built(c, bmp ? "BMP" : "PNM", "stb_image.h", "libstb-dev");
#endif
  }
  return undecodable(j, "the stream is not BMP, JPEG, JPEG 2000, PNG, PNM, TIFF or WebP");
}

/* Pillow's RGB -> L (ITU-R 601-2 luma, its L24 macro). */
static uint8_t luma(const uint8_t *p) {
  return (uint8_t)((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16);
}

static int image_decoder(ox_ctx *c, int nin, ox_value **in, int nout, ox_value **out) {
  (void)nin, (void)nout;
  /* encoded_stream: (L,) uint8 */
  const ox_tensor *s = &in[0]->u.t;
  if (s->rank != 1)
    return ox_fail(c->err, OX_EINPUT, "%s has rank %d; expected a 1-D uint8 stream", ox_input_name(c, 0),
                   s->rank);
  static const char *const formats[] = {"RGB", "BGR", "Grayscale"};
  const char *pf = ox_attr_string(c, "pixel_format", "RGB");
  int fmt = -1;
  for (int i = 0; i < 3; i++)
    if (!strcmp(pf, formats[i])) fmt = i;
  if (fmt < 0)
    return ox_fail(c->err, OX_EINPUT, "attribute 'pixel_format' is '%s'; expected RGB, BGR or Grayscale", pf);
  int ch = fmt == 2 ? 1 : 3;

  job j = {c, "", 0};
  image im = {0, 0, 0, NULL};
  size_t refused = ox_mem_failures();
  int rc = decode(&j, s->data, (size_t)s->n, &im);
  ox_mem_uncharge(j.held);
  /* a library that failed because the memory limit refused it a buffer
   * blames the stream ("Out of Memory", a NULL): not the stream's fault */
  if (rc == UNDECODABLE && ox_mem_failures() != refused)
    rc = ox_oom(c->err, "decoding the image (%s)", j.why);
  if (rc > 0) return rc;
  if (rc == UNDECODABLE) {
    fprintf(stderr, "onnxop: warning: node '%s' ImageDecoder-20: %s; the output is empty, as the operator "
            "specifies for a stream it can't decode\n", c->node->name, j.why);
    im.w = im.h = 0;
  }
  /* image: (H, W, C) */
  int64_t dims[3] = {im.h, im.w, ch};
  OX_TRY(ox_tensor_new_uninit(c->a, OX_UINT8, 3, dims, &out[0], c->err));
  uint8_t *y = out[0]->u.t.data;
  int64_t np = im.w * im.h;
  if (im.ch == 1)
    for (int64_t i = 0; i < np; i++)
      for (int q = 0; q < ch; q++) y[i * ch + q] = im.px[i];
  else if (fmt == 2)
    for (int64_t i = 0; i < np; i++) y[i] = luma(im.px + 3 * i);
  else if (fmt == 1)
    for (int64_t i = 0; i < np; i++) {
      y[3 * i + 0] = im.px[3 * i + 2];
      y[3 * i + 1] = im.px[3 * i + 1];
      y[3 * i + 2] = im.px[3 * i + 0];
    }
  else if (np && im.px)
    memcpy(y, im.px, (size_t)np * 3);
  return 0;
}

const ox_kernel ox_imagedecoder_kernels[] = {
/* domain, op, since, tin, types, min_in, max_in, fn, attributes: core/registry.h */
  { "", "ImageDecoder", 20, 0, OX_T(UINT8), 1, 1, image_decoder, "pixel_format:string=RGB" },
  {0},
};
