// render_camera.c - cameras and images for sensors/render (render.h): a VisionSensor's spec and
// pose, the default overview of a scene, luminance, and PNG files through libpng.

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

int hsr_cameraImages(int type) {
  switch (type) {
    case hsCAMERA_COLOR:
      return hsrIMAGE_COLOR;
    case hsCAMERA_MONO:
      return hsrIMAGE_MONO;
    case hsCAMERA_DEPTH:
      return hsrIMAGE_DEPTH;
    case hsCAMERA_COLOR_DEPTH:
      return hsrIMAGE_COLOR | hsrIMAGE_DEPTH;
    case hsCAMERA_MONO_DEPTH:
      return hsrIMAGE_MONO | hsrIMAGE_DEPTH;
    default:
      return 0;
  }
}

int hsr_cameraSpec(const hsSensor *sensor, hsrCameraSpec *spec, hsError *err) {
  if (!sensor || sensor->type != hsSENSOR_VISION) {
    return HS_ERR(err, hsE_INVALID, "sensor '%s' is not a Vision sensor",
                  sensor ? sensor->name : "(none)");
  }
  if (sensor->nspecValue < 7) {
    return HS_ERR(err, hsE_INVALID,
                  "vision sensor '%s': specValues has %d numbers, needs 7 (frontClipDistance, "
                  "backClipDistance, fieldOfView, type, width, height, frameRate)",
                  sensor->name, sensor->nspecValue);
  }
  const float *v = sensor->specValues;
  spec->nearClip = v[0];
  spec->farClip = v[1];
  spec->fieldOfView = v[2];
  spec->type = (hstCamera)(int)v[3];
  spec->width = (int)v[4];
  spec->height = (int)v[5];
  spec->frameRate = v[6];
  if (!(v[3] >= 0 && v[3] <= 5) || !(v[4] >= 1 && v[4] <= 8192) || !(v[5] >= 1 && v[5] <= 8192)) {
    return HS_ERR(err, hsE_INVALID,
                  "vision sensor '%s': type %g, width %g, height %g (type 0..5, sizes 1..8192)",
                  sensor->name, v[3], v[4], v[5]);
  }
  if (!(spec->nearClip > 0) || !(spec->farClip > spec->nearClip) || !isfinite(spec->farClip) ||
      !(spec->fieldOfView > 0 && spec->fieldOfView < M_PI) || !(spec->frameRate > 0) ||
      !isfinite(spec->frameRate)) {
    return HS_ERR(err, hsE_INVALID,
                  "vision sensor '%s': clip distances %g..%g, fieldOfView %g, frameRate %g "
                  "(need 0 < front < back, 0 < fieldOfView < pi, frameRate > 0)",
                  sensor->name, spec->nearClip, spec->farClip, spec->fieldOfView,
                  spec->frameRate);
  }
  return 0;
}

void hsr_cameraPose(double T[12], const hsSensor *sensor, const double linkP[3],
                    const double linkR[9]) {
  double Rs[9];
  hsu_axisAngleToMat(Rs, sensor->rotation);
  for (int i = 0; i < 3; i++) {
    T[4 * i + 3] = linkP[i];
    for (int j = 0; j < 3; j++) {
      double r = 0;
      for (int k = 0; k < 3; k++) {
        r += linkR[3 * i + k] * Rs[3 * k + j];
      }
      T[4 * i + j] = r;
      T[4 * i + 3] += linkR[3 * i + j] * sensor->translation[j];
    }
  }
}

void hsr_cameraView(hsrView *view, const hsrCameraSpec *spec, const double T[12]) {
  memcpy(view->T, T, 12 * sizeof(double));
  view->fieldOfView = spec->fieldOfView;
  view->nearClip = spec->nearClip;
  view->farClip = spec->farClip;
  view->width = spec->width;
  view->height = spec->height;
}

void hsr_rgbToMono(unsigned char *mono, const unsigned char *rgb, int n) {
  for (int i = 0; i < n; i++) {
    double y = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
    mono[i] = (unsigned char)(y > 255 ? 255 : y);
  }
}

// write rows of `bits` 8 or 16 (16: host-order unsigned shorts, written big-endian as PNG wants)
static int writePng(const char *path, const void *pixels, int width, int height, int channels,
                    int bits, hsError *err) {
  if (!path || !pixels || width < 1 || height < 1 || (channels != 1 && channels != 3)) {
    return HS_ERR(err, hsE_INVALID, "hsr_writePng: bad arguments");
  }
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    return HS_ERR(err, hsE_IO, "cannot write '%s'", path);
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info) {
    png_destroy_write_struct(&png, NULL);
    fclose(fp);
    return HS_ERR(err, hsE_NOMEM, "no memory to write '%s'", path);
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    fclose(fp);
    return HS_ERR(err, hsE_IO, "libpng failed to write '%s'", path);
  }
  png_init_io(png, fp);
  // fast compression: frames are written during runs
  png_set_compression_level(png, 1);
  png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, bits,
               channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const unsigned short one = 1;
  if (bits == 16 && *(const unsigned char *)&one == 1) {
    png_set_swap(png);  // PNG stores 16-bit samples big-endian; this host is little-endian
  }
  size_t rowBytes = (size_t)width * channels * (bits / 8);
  for (int y = 0; y < height; y++) {
    png_write_row(png, (png_const_bytep)pixels + (size_t)y * rowBytes);
  }
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  if (fclose(fp) != 0) {
    return HS_ERR(err, hsE_IO, "cannot finish writing '%s'", path);
  }
  return 0;
}

int hsr_writePng(const char *path, const unsigned char *pixels, int width, int height,
                 int channels, hsError *err) {
  return writePng(path, pixels, width, height, channels, 8, err);
}

int hss_writePng16(const char *path, const unsigned short *pixels, int width, int height,
                   hsError *err) {
  return writePng(path, pixels, width, height, 1, 16, err);
}

void hsr_depthToMillimetres(unsigned short *mm, const float *depth, int n) {
  for (int i = 0; i < n; i++) {
    double v = floor(depth[i] * 1000.0 + 0.5);
    mm[i] = (unsigned short)(v < 0 ? 0 : v > 65535 ? 65535 : v);
  }
}

int hsr_overviewView(const hsrScene *s, int which, int width, int height, hsrView *view) {
  double lo[3], hi[3];
  if (hsr_sceneBounds(s, lo, hi) != 0) {
    return -1;
  }
  double c[3], radius = 0;
  for (int j = 0; j < 3; j++) {
    c[j] = 0.5 * (lo[j] + hi[j]);
    radius += 0.25 * (hi[j] - lo[j]) * (hi[j] - lo[j]);
  }
  radius = fmax(sqrt(radius), 0.1);
  double a = 2.0 * M_PI / 3.0 * which;
  double d0[3] = {1, -1, 0.7};
  double d[3] = {cos(a) * d0[0] - sin(a) * d0[1], sin(a) * d0[0] + cos(a) * d0[1], d0[2]};
  double nd = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (int j = 0; j < 3; j++) {
    d[j] /= nd;
  }
  double fov = 0.8;
  // the smaller half-angle of the frustum must hold the bounding sphere
  double half = fmin(fov / 2, atan(tan(fov / 2) * height / width));
  double dist = radius / sin(half);
  // camera axes: z back towards the eye (d), x horizontal, y = z x x
  double z[3] = {d[0], d[1], d[2]};
  double x[3] = {-z[1], z[0], 0};
  double nx = sqrt(x[0] * x[0] + x[1] * x[1]);
  x[0] /= nx;
  x[1] /= nx;
  double y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]};
  for (int j = 0; j < 3; j++) {
    view->T[4 * j] = x[j];
    view->T[4 * j + 1] = y[j];
    view->T[4 * j + 2] = z[j];
    view->T[4 * j + 3] = c[j] + dist * d[j];
  }
  view->fieldOfView = fov;
  view->nearClip = fmax(dist - radius, 0.01 * dist) * 0.5;
  view->farClip = (dist + radius) * 2;
  view->width = width;
  view->height = height;
  return 0;
}

void hsr_framingView(hsrView *view, const double lo[3], const double hi[3], double azimuth,
                     double elevation, double fov, double fill, int width, int height) {
  double c[3], d[3] = {cos(elevation) * cos(azimuth), cos(elevation) * sin(azimuth),
                       sin(elevation)};
  for (int j = 0; j < 3; j++) {
    c[j] = 0.5 * (lo[j] + hi[j]);
  }
  // camera axes: z back towards the eye (d), x horizontal, y = z x x
  double x[3] = {-d[1], d[0], 0};
  double nx = sqrt(x[0] * x[0] + x[1] * x[1]);
  x[0] /= nx;
  x[1] /= nx;
  double y[3] = {d[1] * x[2] - d[2] * x[1], d[2] * x[0] - d[0] * x[2], d[0] * x[1] - d[1] * x[0]};
  double tx = fill * tan(fov / 2), ty = fill * tan(fov / 2) * height / width;
  // a corner at (a, b, e) from the centre in camera axes is at depth dist - e: it is inside
  // when |a| <= tx (dist - e) and |b| <= ty (dist - e)
  double dist = 0, radius = 0;
  for (int k = 0; k < 8; k++) {
    double q[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
    double r[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
    double a = r[0] * x[0] + r[1] * x[1] + r[2] * x[2];
    double b = r[0] * y[0] + r[1] * y[1] + r[2] * y[2];
    double e = r[0] * d[0] + r[1] * d[1] + r[2] * d[2];
    dist = fmax(dist, fmax(e + fabs(a) / tx, e + fabs(b) / ty));
    radius = fmax(radius, sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
  }
  dist = fmax(dist, 0.05);
  for (int j = 0; j < 3; j++) {
    view->T[4 * j] = x[j];
    view->T[4 * j + 1] = y[j];
    view->T[4 * j + 2] = d[j];
    view->T[4 * j + 3] = c[j] + dist * d[j];
  }
  view->fieldOfView = fov;
  view->nearClip = fmax(0.01, 0.05 * dist);
  view->farClip = dist + radius + 30.0;
  view->width = width;
  view->height = height;
}
