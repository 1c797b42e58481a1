// mesh_image.c - decode PNG (libpng) and JPEG (libjpeg) files into 8-bit pixels.
//
// hsm_readImage opens the file (a regular file only, through hsu_openFile), tells the format from
// its first bytes (PNG signature, JPEG SOI marker) and hands the stream to one decoder. Both
// libraries report fatal errors by calling a handler that must not return; ours format the
// library's message and longjmp back into the decoder, which frees what it allocated and records an
// hsError naming the file. Everything that must survive the jump lives in a heap context (only its
// pointer, never changed after setjmp, is a local), so nothing is left indeterminate. libjpeg's
// default handler would call exit(), and a truncated JPEG only raises a warning (libjpeg pads the
// data), so we treat that one warning as an error; other warnings and libpng's warnings go to the
// debug log.
//
// PNG input of any colour type and bit depth comes out as 8-bit gray, gray + alpha, RGB or RGBA
// (palettes expand to RGB, or RGBA when they carry transparency; low bit depths expand; 16-bit
// samples are scaled to 8 bits with rounding; interlacing is undone). JPEG comes out as gray or
// RGB. Rows are stored top first.

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
// jpeglib.h needs stdio.h (FILE) first, jerror.h needs jpeglib.h
#include <jpeglib.h>
#include <jerror.h>

#include "mesh.h"

// images larger than this many bytes are refused
static const size_t kMaxImageBytes = (size_t)1 << 30;

// the pixel buffer of a decode in progress
typedef struct Pixels {
  unsigned char *data;
  unsigned char **rows;
} Pixels;

static void freePixels(Pixels *p) {
  hsu_free(p->data);
  hsu_free(p->rows);
  p->data = NULL;
  p->rows = NULL;
}

// allocate width x height x comps bytes and the row pointers; 0 or a negative error code
static int allocPixels(Pixels *p, const char *path, size_t width, size_t height, size_t comps,
                       hsError *err) {
  if (width == 0 || height == 0 || comps == 0 || comps > 4) {
    return HS_ERR(err, hsE_IO, "%s: image has an invalid size (%zu x %zu, %zu components)", path,
                  width, height, comps);
  }
  if (width > kMaxImageBytes / height / comps) {
    return HS_ERR(err, hsE_IO, "%s: image of %zu x %zu pixels is too large", path, width, height);
  }
  p->data = hsu_malloc(width * height * comps);
  p->rows = hsu_malloc(height * sizeof *p->rows);
  if (!p->data || !p->rows) {
    freePixels(p);
    return HS_ERR(err, hsE_NOMEM, "%s: out of memory for a %zu x %zu image", path, width,
                  height);
  }
  for (size_t y = 0; y < height; y++) {
    p->rows[y] = p->data + y * width * comps;
  }
  return 0;
}

//---------------------------------- PNG -------------------------------------------------------

typedef struct PngContext {
  Pixels px;
  char message[200];  // libpng's error message
} PngContext;

static void pngError(png_structp png, png_const_charp msg) {
  PngContext *ctx = png_get_error_ptr(png);
  snprintf(ctx->message, sizeof ctx->message, "%s", msg);
  png_longjmp(png, 1);
}

static void pngWarning(png_structp png, png_const_charp msg) {
  (void)png;
  hsu_log(hsLOG_DEBUG, "libpng: %s", msg);
}

static int readPng(FILE *f, const char *path, hsmImage *img, hsError *err) {
  PngContext *ctx = hsu_calloc(1, sizeof *ctx);
  if (!ctx) {
    return HS_ERR(err, hsE_NOMEM, "%s: out of memory", path);
  }
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, ctx, pngError, pngWarning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!info) {
    png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
    hsu_free(ctx);
    return HS_ERR(err, hsE_NOMEM, "%s: out of memory", path);
  }
  if (setjmp(png_jmpbuf(png))) {
    freePixels(&ctx->px);
    png_destroy_read_struct(&png, &info, NULL);
    int rc = HS_ERR(err, hsE_IO, "%s: cannot decode PNG: %s", path, ctx->message);
    hsu_free(ctx);
    return rc;
  }
  png_init_io(png, f);
  png_read_info(png, info);
  // ask for 8-bit gray, gray + alpha, RGB or RGBA
  png_set_expand(png);  // palette -> RGB, gray < 8 bits -> 8 bits, tRNS -> alpha
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
  png_set_scale_16(png);
#else
  png_set_strip_16(png);
#endif
  png_set_packing(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  int comps = png_get_channels(png, info);
  int rc = 0;
  if (png_get_bit_depth(png, info) != 8 ||
      png_get_rowbytes(png, info) != (size_t)width * (size_t)comps) {
    rc = HS_ERR(err, hsE_UNSUPPORTED, "%s: PNG layout not supported (bit depth %d)", path,
                png_get_bit_depth(png, info));
  } else {
    rc = allocPixels(&ctx->px, path, width, height, (size_t)comps, err);
  }
  if (rc == 0) {
    png_read_image(png, ctx->px.rows);
    png_read_end(png, NULL);
    img->pixels = ctx->px.data;
    img->width = (int)width;
    img->height = (int)height;
    img->components = comps;
    ctx->px.data = NULL;
  }
  freePixels(&ctx->px);
  png_destroy_read_struct(&png, &info, NULL);
  hsu_free(ctx);
  return rc;
}

//---------------------------------- JPEG ------------------------------------------------------

typedef struct JpegContext {
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr jerr;
  jmp_buf jump;
  Pixels px;
  char message[JMSG_LENGTH_MAX];
} JpegContext;

// the context that owns a libjpeg object (cinfo is its first member)
static JpegContext *jpegContext(j_common_ptr c) {
  return (JpegContext *)(void *)c;
}

static void jpegErrorExit(j_common_ptr c) {
  JpegContext *ctx = jpegContext(c);
  c->err->format_message(c, ctx->message);
  longjmp(ctx->jump, 1);
}

static void jpegEmit(j_common_ptr c, int level) {
  if (level >= 0) {
    return;  // trace messages
  }
  JpegContext *ctx = jpegContext(c);
  c->err->format_message(c, ctx->message);
  c->err->num_warnings++;
  // libjpeg pads a truncated file with gray and only warns: that is an error for us
  if (c->err->msg_code == JWRN_JPEG_EOF) {
    longjmp(ctx->jump, 1);
  }
  hsu_log(hsLOG_DEBUG, "libjpeg: %s", ctx->message);
}

static void jpegOutput(j_common_ptr c) {
  (void)c;
}

static int readJpeg(FILE *f, const char *path, hsmImage *img, hsError *err) {
  JpegContext *ctx = hsu_calloc(1, sizeof *ctx);
  if (!ctx) {
    return HS_ERR(err, hsE_NOMEM, "%s: out of memory", path);
  }
  ctx->cinfo.err = jpeg_std_error(&ctx->jerr);
  ctx->jerr.error_exit = jpegErrorExit;
  ctx->jerr.emit_message = jpegEmit;
  ctx->jerr.output_message = jpegOutput;
  if (setjmp(ctx->jump)) {
    freePixels(&ctx->px);
    jpeg_destroy_decompress(&ctx->cinfo);
    int rc = HS_ERR(err, hsE_IO, "%s: cannot decode JPEG: %s", path, ctx->message);
    hsu_free(ctx);
    return rc;
  }
  jpeg_create_decompress(&ctx->cinfo);
  jpeg_stdio_src(&ctx->cinfo, f);
  jpeg_read_header(&ctx->cinfo, TRUE);
  ctx->cinfo.out_color_space = ctx->cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE
                                                                             : JCS_RGB;
  jpeg_start_decompress(&ctx->cinfo);
  size_t width = ctx->cinfo.output_width, height = ctx->cinfo.output_height;
  int comps = ctx->cinfo.output_components;
  int rc = allocPixels(&ctx->px, path, width, height, (size_t)comps, err);
  if (rc == 0) {
    while (ctx->cinfo.output_scanline < ctx->cinfo.output_height) {
      jpeg_read_scanlines(&ctx->cinfo, ctx->px.rows + ctx->cinfo.output_scanline,
                          ctx->cinfo.output_height - ctx->cinfo.output_scanline);
    }
    jpeg_finish_decompress(&ctx->cinfo);
    img->pixels = ctx->px.data;
    img->width = (int)width;
    img->height = (int)height;
    img->components = comps;
    ctx->px.data = NULL;
  }
  freePixels(&ctx->px);
  jpeg_destroy_decompress(&ctx->cinfo);
  hsu_free(ctx);
  return rc;
}

//---------------------------------- entry -----------------------------------------------------

int hsm_readImage(const char *path, hsmImage *img, hsError *err) {
  if (!img || !path) {
    return HS_ERR(err, hsE_INVALID, "reading an image: no path or image given");
  }
  memset(img, 0, sizeof *img);
  // a regular file only, within the default size limit: never a FIFO or a device
  hsError openErr = {0};
  FILE *f = hsu_openFile(path, 0, &openErr);
  if (!f) {
    return HS_ERR(err, hsE_IO, "%s: cannot open image: %s", path,
                  strstr(openErr.message, "': ") ? strstr(openErr.message, "': ") + 3
                                                 : openErr.message);
  }
  unsigned char magic[8];
  size_t got = fread(magic, 1, sizeof magic, f);
  int rc;
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (ferror(f)) {
    rc = HS_ERR(err, hsE_IO, "%s: cannot read image: %s", path, strerror(errno));
  } else if (got == 0) {
    rc = HS_ERR(err, hsE_IO, "%s: image file is empty", path);
  } else if (got == 8 && memcmp(magic, kPng, 8) == 0) {
    rewind(f);
    rc = readPng(f, path, img, err);
  } else if (got >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff) {
    rewind(f);
    rc = readJpeg(f, path, img, err);
  } else {
    rc = HS_ERR(err, hsE_UNSUPPORTED, "%s: not a PNG or JPEG image", path);
  }
  fclose(f);
  if (rc) {
    memset(img, 0, sizeof *img);
  }
  return rc;
}
