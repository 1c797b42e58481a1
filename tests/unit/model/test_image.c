// test_image.c - PNG and JPEG decoding: images written here with libpng and libjpeg (colour
// types, bit depths, palettes, transparency, interlacing) are read back and compared pixel by
// pixel (exactly for PNG, within a tolerance for JPEG); broken, truncated and non-image files
// give errors that name the file.

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
// jpeglib.h needs stdio.h first
#include <jpeglib.h>

#include "mesh.h"
#include "test_support.h"

// a path buffer
typedef struct Path {
  char s[1024];
} Path;

// the path of name in the run's temporary directory, written to buf
static const char *tmpPath(Path *buf, const char *name) {
  snprintf(buf->s, sizeof buf->s, "%s/%s", hst_tmpDir(), name);
  return buf->s;
}

// how to write a PNG; rows holds the packed samples of each row, top first
typedef struct PngSpec {
  int width, height;
  int colorType, bitDepth, interlace;
  const unsigned char *data;  // rows back to back, png_get_rowbytes each
  const png_color *palette;
  int npalette;
  const unsigned char *trans;  // palette alpha, or NULL
  int ntrans;
} PngSpec;

static int writePng(const char *path, const PngSpec *s) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    return -1;
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    fclose(f);
    return -1;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)s->width, (png_uint_32)s->height, s->bitDepth,
               s->colorType, s->interlace, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (s->palette) {
    png_set_PLTE(png, info, s->palette, s->npalette);
  }
  if (s->trans) {
    png_set_tRNS(png, info, s->trans, s->ntrans, NULL);
  }
  png_write_info(png, info);
  size_t rowBytes = png_get_rowbytes(png, info);
  png_bytep rows[16];
  for (int y = 0; y < s->height && y < 16; y++) {
    rows[y] = (png_bytep)s->data + (size_t)y * rowBytes;
  }
  png_write_image(png, rows);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  fclose(f);
  return 0;
}

// the 3 x 2 RGB test picture
static const unsigned char kRgb[18] = {255, 0, 0,   0,   255, 0,   0,   0,   255,
                                       10,  20, 30, 128, 128, 128, 250, 251, 252};

static void checkImage(const hsmImage *img, int w, int h, int comps, const unsigned char *want) {
  CU_ASSERT_EQUAL(img->width, w);
  CU_ASSERT_EQUAL(img->height, h);
  CU_ASSERT_EQUAL_FATAL(img->components, comps);
  CU_ASSERT_PTR_NOT_NULL_FATAL(img->pixels);
  CU_ASSERT_EQUAL(memcmp(img->pixels, want, (size_t)w * h * comps), 0);
}

static void testPngRgb(void) {
  Path pa;
  const char *path = tmpPath(&pa, "rgb.png");
  PngSpec s = {3, 2, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_NONE, kRgb, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s), 0);
  hsmImage img;
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  checkImage(&img, 3, 2, 3, kRgb);
  hsu_free(img.pixels);
  // the same, interlaced
  path = tmpPath(&pa, "rgb-interlaced.png");
  s.interlace = PNG_INTERLACE_ADAM7;
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  checkImage(&img, 3, 2, 3, kRgb);
  hsu_free(img.pixels);
}

static void testPngFormats(void) {
  Path pa;
  hsmImage img;
  // RGBA
  static const unsigned char rgba[8] = {1, 2, 3, 4, 250, 251, 252, 0};
  const char *path = tmpPath(&pa, "rgba.png");
  PngSpec s = {2, 1, PNG_COLOR_TYPE_RGBA, 8, PNG_INTERLACE_NONE, rgba, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  checkImage(&img, 2, 1, 4, rgba);
  hsu_free(img.pixels);
  // gray + alpha
  static const unsigned char ga[4] = {7, 200, 99, 255};
  path = tmpPath(&pa, "ga.png");
  PngSpec sga = {1, 2, PNG_COLOR_TYPE_GRAY_ALPHA, 8, PNG_INTERLACE_NONE, ga, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &sga), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  checkImage(&img, 1, 2, 2, ga);
  hsu_free(img.pixels);
  // 2-bit gray expands to 0, 85, 170, 255
  static const unsigned char gray2[1] = {0x1b};  // 00 01 10 11
  path = tmpPath(&pa, "gray2.png");
  PngSpec sg = {4, 1, PNG_COLOR_TYPE_GRAY, 2, PNG_INTERLACE_NONE, gray2, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &sg), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  static const unsigned char gray8[4] = {0, 85, 170, 255};
  checkImage(&img, 4, 1, 1, gray8);
  hsu_free(img.pixels);
  // 16-bit gray scales to 8 bits (v * 257 -> v exactly)
  static const unsigned char gray16[6] = {0x12, 0x12, 0xff, 0xff, 0x00, 0x00};
  path = tmpPath(&pa, "gray16.png");
  PngSpec s16 = {3, 1, PNG_COLOR_TYPE_GRAY, 16, PNG_INTERLACE_NONE, gray16, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s16), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  static const unsigned char gray16to8[3] = {0x12, 0xff, 0x00};
  checkImage(&img, 3, 1, 1, gray16to8);
  hsu_free(img.pixels);
  // 16-bit RGB
  static const unsigned char rgb16[6] = {0xab, 0xab, 0x01, 0x01, 0x80, 0x80};
  path = tmpPath(&pa, "rgb16.png");
  PngSpec s16c = {1, 1, PNG_COLOR_TYPE_RGB, 16, PNG_INTERLACE_NONE, rgb16, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s16c), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  static const unsigned char rgb16to8[3] = {0xab, 0x01, 0x80};
  checkImage(&img, 1, 1, 3, rgb16to8);
  hsu_free(img.pixels);
}

static void testPngPalette(void) {
  Path pa;
  static const png_color palette[3] = {{255, 0, 0}, {0, 128, 0}, {1, 2, 3}};
  static const unsigned char idx[3] = {2, 0, 1};
  hsmImage img;
  // palette without transparency -> RGB
  const char *path = tmpPath(&pa, "palette.png");
  PngSpec s = {3, 1, PNG_COLOR_TYPE_PALETTE, 8, PNG_INTERLACE_NONE, idx, palette, 3, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  static const unsigned char rgb[9] = {1, 2, 3, 255, 0, 0, 0, 128, 0};
  checkImage(&img, 3, 1, 3, rgb);
  hsu_free(img.pixels);
  // with transparency -> RGBA (entries beyond tRNS are opaque)
  static const unsigned char trans[2] = {0, 100};
  path = tmpPath(&pa, "palette-trns.png");
  s.trans = trans, s.ntrans = 2;
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  static const unsigned char rgba[12] = {1, 2, 3, 255, 255, 0, 0, 0, 0, 128, 0, 100};
  checkImage(&img, 3, 1, 4, rgba);
  hsu_free(img.pixels);
  // 4-bit palette
  static const unsigned char idx4[2] = {0x21, 0x00};  // 2 1 0 (and padding)
  path = tmpPath(&pa, "palette4.png");
  PngSpec s4 = {3, 1, PNG_COLOR_TYPE_PALETTE, 4, PNG_INTERLACE_NONE, idx4, palette, 3, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(path, &s4), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  static const unsigned char rgb4[9] = {1, 2, 3, 0, 128, 0, 255, 0, 0};
  checkImage(&img, 3, 1, 3, rgb4);
  hsu_free(img.pixels);
}

// write a JPEG of w x h pixels with comps (1 or 3) components at top quality, no subsampling
static int writeJpeg(const char *path, const unsigned char *data, int w, int h, int comps) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    return -1;
  }
  struct jpeg_compress_struct c;
  struct jpeg_error_mgr jerr;
  c.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = (JDIMENSION)w;
  c.image_height = (JDIMENSION)h;
  c.input_components = comps;
  c.in_color_space = comps == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 100, TRUE);
  for (int i = 0; i < c.num_components; i++) {
    c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
  }
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = (JSAMPROW)data + (size_t)c.next_scanline * w * comps;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  fclose(f);
  return 0;
}

static void checkNear(const hsmImage *img, const unsigned char *want, size_t n, int tol) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(img->pixels);
  int worst = 0;
  for (size_t i = 0; i < n; i++) {
    int d = abs((int)img->pixels[i] - (int)want[i]);
    worst = d > worst ? d : worst;
  }
  CU_ASSERT(worst <= tol);
  if (worst > tol) {
    fprintf(stderr, "\n  worst JPEG difference %d > %d\n", worst, tol);
  }
}

static void testJpeg(void) {
  Path pa;
  hsmImage img;
  // the 3 x 2 picture: small colour steps survive quality 100 closely
  const char *path = tmpPath(&pa, "rgb.jpg");
  CU_ASSERT_EQUAL_FATAL(writeJpeg(path, kRgb, 3, 2, 3), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  CU_ASSERT_EQUAL(img.width, 3);
  CU_ASSERT_EQUAL(img.height, 2);
  CU_ASSERT_EQUAL(img.components, 3);
  checkNear(&img, kRgb, sizeof kRgb, 12);
  hsu_free(img.pixels);
  // a smooth 16 x 8 gray ramp
  unsigned char ramp[128];
  for (int i = 0; i < 128; i++) {
    ramp[i] = (unsigned char)(16 * (i % 16) + 2 * (i / 16));
  }
  path = tmpPath(&pa, "gray.jpg");
  CU_ASSERT_EQUAL_FATAL(writeJpeg(path, ramp, 16, 8, 1), 0);
  CU_ASSERT_EQUAL_FATAL(hsm_readImage(path, &img, NULL), 0);
  CU_ASSERT_EQUAL(img.width, 16);
  CU_ASSERT_EQUAL(img.height, 8);
  CU_ASSERT_EQUAL(img.components, 1);
  checkNear(&img, ramp, sizeof ramp, 3);
  hsu_free(img.pixels);
}

// copy the first `keep` bytes of src to a new file; returns its path
static const char *truncated(Path *buf, const char *src, const char *name, long keep) {
  const char *path = tmpPath(buf, name);
  FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
  for (long i = 0; in && out && i < keep; i++) {
    int c = fgetc(in);
    if (c == EOF) {
      break;
    }
    fputc(c, out);
  }
  if (in) {
    fclose(in);
  }
  if (out) {
    fclose(out);
  }
  return path;
}

static long fileSize(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

// read must fail with code; the message names the file and holds want
static void expectImageError(const char *path, int code, const char *want) {
  hsmImage img;
  memset(&img, 0xab, sizeof img);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_readImage(path, &img, &err), code);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, want));
  if (!strstr(err.message, want)) {
    fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", err.message, want);
  }
  CU_ASSERT_PTR_NULL(img.pixels);
  CU_ASSERT_EQUAL(img.width, 0);
}

static void testBrokenFiles(void) {
  Path p1, p2, tb;
  // a 64 x 64 PNG and JPEG to cut short
  unsigned char *big = malloc(64 * 64 * 3);
  for (int i = 0; i < 64 * 64 * 3; i++) {
    big[i] = (unsigned char)(i * 7 + i / 191);
  }
  const char *png = tmpPath(&p1, "big.png");
  PngSpec s = {64, 64, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_NONE, big, NULL, 0, NULL, 0};
  s.height = 16;  // writePng takes up to 16 rows
  CU_ASSERT_EQUAL_FATAL(writePng(png, &s), 0);
  const char *jpg = tmpPath(&p2, "big.jpg");
  CU_ASSERT_EQUAL_FATAL(writeJpeg(jpg, big, 64, 64, 3), 0);
  free(big);

  expectImageError(truncated(&tb, png, "cut.png", fileSize(png) / 2), hsE_IO, "cannot decode PNG");
  expectImageError(truncated(&tb, png, "header.png", 20), hsE_IO, "cannot decode PNG");
  expectImageError(truncated(&tb, jpg, "cut.jpg", fileSize(jpg) / 2), hsE_IO, "cannot decode JPEG");
  expectImageError(truncated(&tb, jpg, "header.jpg", 40), hsE_IO, "cannot decode JPEG");
  // a flipped byte inside the compressed PNG data fails its CRC
  const char *bad = truncated(&tb, png, "crc.png", fileSize(png));
  FILE *f = fopen(bad, "r+b");
  fseek(f, 60, SEEK_SET);
  int c = fgetc(f);
  fseek(f, 60, SEEK_SET);
  fputc(c ^ 0x55, f);
  fclose(f);
  expectImageError(bad, hsE_IO, "cannot decode PNG");
  // not an image, empty, missing
  expectImageError(hst_writeFile("notes.png", "just some text\n"), hsE_UNSUPPORTED,
                   "not a PNG or JPEG");
  expectImageError(hst_writeFile("empty.jpg", ""), hsE_IO, "empty");
  expectImageError(tmpPath(&tb, "missing.png"), hsE_IO, "cannot open");
  // arguments
  CU_ASSERT_EQUAL(hsm_readImage(NULL, NULL, NULL), hsE_INVALID);
}

static void testImageAllocFailure(void) {
  Path p1, p2;
  const char *png = tmpPath(&p1, "small.png");
  PngSpec s = {3, 2, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_NONE, kRgb, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(writePng(png, &s), 0);
  const char *jpg = tmpPath(&p2, "small.jpg");
  CU_ASSERT_EQUAL_FATAL(writeJpeg(jpg, kRgb, 3, 2, 3), 0);
  const char *paths[2] = {png, jpg};
  for (int p = 0; p < 2; p++) {
    int failures = 0;
    for (long n = 1; n < 10; n++) {
      hsmImage img;
      hsError err = {0};
      hsu_failAllocAfter(n);
      int rc = hsm_readImage(paths[p], &img, &err);
      hsu_failAllocAfter(0);
      if (rc == 0) {
        hsu_free(img.pixels);
        break;
      }
      failures++;
      CU_ASSERT_EQUAL(rc, hsE_NOMEM);
      CU_ASSERT_PTR_NULL(img.pixels);
    }
    CU_ASSERT_EQUAL(failures, 3);  // context, pixels, row pointers
  }
}

void register_image(void) {
  CU_pSuite s = hst_addSuite("model_image");
  CU_add_test(s, "PNG RGB", testPngRgb);
  CU_add_test(s, "PNG formats", testPngFormats);
  CU_add_test(s, "PNG palette", testPngPalette);
  CU_add_test(s, "JPEG", testJpeg);
  CU_add_test(s, "broken files", testBrokenFiles);
  CU_add_test(s, "allocation failure", testImageAllocFailure);
}
