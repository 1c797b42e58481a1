// test_render.c - headless rendering (sensors/render) on whatever EGL device the machine has
// (in CI Mesa's llvmpipe): metric depth of a plane, the pinhole projection and lit colour of a
// cube, a texture's orientation, the lit default of shapes without a material, a camera on a
// moving link, determinism, camera specs, PNG files, a view framed on one body's bounding box.
//
// Every expected number is computed here from the pinhole model (focal length from the
// horizontal field of view, pixel centres at integer + 0.5, top row first) and from VRML's
// lighting equation; tolerances: 1 mm for depth (float z of a plane at 2 m is exact to ~1e-6),
// +-1 px for silhouettes (rasterisation samples pixel centres), 2/255 for colours (UNORM8
// rounding of an exactly representable shade).

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "test_support.h"

static hsrRenderer *g_renderer;

static hsrRenderer *renderer(void) {
  if (!g_renderer) {
    hsError err = {0};
    g_renderer = hsr_makeRenderer(&err);
    if (!g_renderer) {
      fprintf(stderr, "no renderer: %s\n", err.message);
    }
  }
  return g_renderer;
}

static hsBody *load(const char *name, const char *text, int readImage) {
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.readImage = readImage;
  hsError err = {0};
  hsBody *b = hsm_loadVrml(hst_writeFile(name, text), &opt, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "load %s: %s\n", name, err.message);
  }
  return b;
}

// a camera at the origin looking along -z (world), y up
static hsrView frontView(int w, int h, double fov) {
  hsrView v;
  memset(&v, 0, sizeof v);
  v.T[0] = v.T[5] = v.T[10] = 1;
  v.fieldOfView = fov;
  v.nearClip = 0.1;
  v.farClip = 10;
  v.width = w;
  v.height = h;
  return v;
}

// a plane (a thin box) whose front face is at z = -2: depth 2 at every pixel, whatever the
// pixel's angle off the axis (depth is along the axis, not the ray)
static void testPlaneDepth(void) {
  hsrRenderer *r = renderer();
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  hsBody *b = load("plane.wrl",
                   "#VRML V2.0 utf8\n"
                   "Transform { translation 0 0 -2.05 children Shape {\n"
                   "  appearance Appearance { material Material {} }\n"
                   "  geometry Box { size 40 40 0.1 } } }\n",
                   0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsrScene *s = hsr_makeScene(r, NULL);
  CU_ASSERT_EQUAL(hsr_addBody(s, b, NULL), 0);
  hsrView v = frontView(160, 120, 1.2);
  float *depth = malloc(sizeof(float) * 160 * 120);
  CU_ASSERT_EQUAL(hsr_render(s, &v, NULL, depth, NULL), 0);
  double worst = 0;
  for (int i = 0; i < 160 * 120; i++) {
    worst = fmax(worst, fabs(depth[i] - 2.0));
  }
  CU_ASSERT(worst < 1e-3);
  // with the plane behind the back clip distance nothing is seen: depth reads far
  v.farClip = 1.5;
  CU_ASSERT_EQUAL(hsr_render(s, &v, NULL, depth, NULL), 0);
  for (int i = 0; i < 160 * 120; i += 97) {
    CU_ASSERT_EQUAL(depth[i], 1.5f);
  }
  free(depth);
  hsr_freeScene(s);
  hsm_freeBody(b);
}

// the cube scene: a unit cube of diffuse colour (0.8, 0.4, 0.2) centred at (0.3, 0.2, -5), so
// its front face (z = -4.5, normal +z) spans x in [-0.2, 0.8] and y in [-0.3, 0.7] and is the
// only face the origin sees; a directional light along -z of intensity 0.5, ambientIntensity
// 0.4, on a material of ambientIntensity 0.5: VRML gives 0.4 * 0.5 * d + 0.5 * 1 * d = 0.7 d
static const char *kCube =
    "#VRML V2.0 utf8\n"
    "DirectionalLight { direction 0 0 -1 intensity 0.5 ambientIntensity 0.4 }\n"
    "Transform { translation 0.3 0.2 -5 children Shape {\n"
    "  appearance Appearance { material Material { diffuseColor 0.8 0.4 0.2\n"
    "    ambientIntensity 0.5 specularColor 0 0 0 } }\n"
    "  geometry Box { size 1 1 1 } } }\n";

// pixel column / row (continuous, 0 at the left / top edge) where a camera-frame point projects
static void project(const hsrView *v, double x, double y, double z, double *u, double *w) {
  double f = v->width / 2.0 / tan(v->fieldOfView / 2);
  *u = v->width / 2.0 + f * x / -z;
  *w = v->height / 2.0 - f * y / -z;
}

static void checkCube(const hsrView *v, const unsigned char *rgb, const float *depth,
                      double dx, double dy) {
  double u0, v0, u1, v1;
  project(v, -0.2 + dx, 0.7 + dy, -4.5, &u0, &v0);  // top left
  project(v, 0.8 + dx, -0.3 + dy, -4.5, &u1, &v1);  // bottom right
  const int expect[3] = {(int)lround(0.7 * 0.8 * 255), (int)lround(0.7 * 0.4 * 255),
                         (int)lround(0.7 * 0.2 * 255)};
  int inside = 0, outside = 0, bad = 0;
  for (int y = 0; y < v->height; y++) {
    for (int x = 0; x < v->width; x++) {
      double cx = x + 0.5, cy = y + 0.5;
      const unsigned char *p = rgb + 3 * (y * v->width + x);
      int in = cx > u0 + 1 && cx < u1 - 1 && cy > v0 + 1 && cy < v1 - 1;
      int out = cx < u0 - 1 || cx > u1 + 1 || cy < v0 - 1 || cy > v1 + 1;
      if (in) {
        inside++;
        for (int c = 0; c < 3; c++) {
          bad += abs(p[c] - expect[c]) > 2;
        }
        bad += fabs(depth[y * v->width + x] - 4.5) > 1e-3;
      } else if (out) {
        outside++;
        bad += p[0] || p[1] || p[2];
        bad += depth[y * v->width + x] != (float)v->farClip;
      }
    }
  }
  CU_ASSERT(inside > 100);
  CU_ASSERT(outside > 100);
  CU_ASSERT_EQUAL(bad, 0);
}

static void testCubeProjectionAndColour(void) {
  hsrRenderer *r = renderer();
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  hsBody *b = load("cube.wrl", kCube, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nlight, 1);
  hsrScene *s = hsr_makeScene(r, NULL);
  CU_ASSERT_EQUAL(hsr_addBody(s, b, NULL), 0);
  // two sizes and fields of view, one non-square
  int sizes[2][2] = {{320, 240}, {101, 77}};
  double fovs[2] = {0.6, 0.9};
  for (int k = 0; k < 2; k++) {
    hsrView v = frontView(sizes[k][0], sizes[k][1], fovs[k]);
    unsigned char *rgb = malloc(3 * (size_t)v.width * v.height);
    float *depth = malloc(sizeof(float) * v.width * v.height);
    CU_ASSERT_EQUAL_FATAL(hsr_render(s, &v, rgb, depth, NULL), 0);
    checkCube(&v, rgb, depth, 0, 0);
    // deterministic: a second picture is the same bit for bit
    unsigned char *again = malloc(3 * (size_t)v.width * v.height);
    CU_ASSERT_EQUAL(hsr_render(s, &v, again, NULL, NULL), 0);
    CU_ASSERT_EQUAL(memcmp(rgb, again, 3 * (size_t)v.width * v.height), 0);
    free(again);
    free(rgb);
    free(depth);
  }
  hsr_freeScene(s);
  hsm_freeBody(b);
}

// a 16 x 16 texture of four 8 x 8 blocks: red top left, green top right, blue bottom left,
// white bottom right (rows top first), on an unlit quad (no Material: the texture's colour
// exactly) facing the camera with VRML texture coordinates (0, 0) at its bottom left
static void testTexture(void) {
  hsrRenderer *r = renderer();
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  unsigned char img[16 * 16 * 3];
  const unsigned char colours[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
  for (int y = 0; y < 16; y++) {
    for (int x = 0; x < 16; x++) {
      memcpy(img + 3 * (y * 16 + x), colours[(y / 8) * 2 + x / 8], 3);
    }
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/blocks.png", hst_tmpDir());
  CU_ASSERT_EQUAL_FATAL(hsr_writePng(path, img, 16, 16, 3, NULL), 0);
  hsBody *b = load("textured.wrl",
                   "#VRML V2.0 utf8\n"
                   "Shape {\n"
                   "  appearance Appearance { texture ImageTexture { url \"blocks.png\" } }\n"
                   "  geometry IndexedFaceSet {\n"
                   "    coord Coordinate { point [-1 -1 -3, 1 -1 -3, 1 1 -3, -1 1 -3] }\n"
                   "    coordIndex [0 1 2 3 -1]\n"
                   "    texCoord TextureCoordinate { point [0 0, 1 0, 1 1, 0 1] }\n"
                   "    texCoordIndex [0 1 2 3 -1] } }\n",
                   1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->ntexture, 1);
  CU_ASSERT_PTR_NOT_NULL(b->textures[0].image);
  hsrScene *s = hsr_makeScene(r, NULL);
  CU_ASSERT_EQUAL(hsr_addBody(s, b, NULL), 0);
  hsrView v = frontView(200, 200, 1.0);
  unsigned char rgb[200 * 200 * 3];
  CU_ASSERT_EQUAL(hsr_render(s, &v, rgb, NULL, NULL), 0);
  // the centre of each quarter of the quad: x, y = +-0.5 at z = -3
  const double centres[4][2] = {{-0.5, 0.5}, {0.5, 0.5}, {-0.5, -0.5}, {0.5, -0.5}};
  for (int q = 0; q < 4; q++) {
    double u, w;
    project(&v, centres[q][0], centres[q][1], -3, &u, &w);
    const unsigned char *p = rgb + 3 * ((int)w * 200 + (int)u);
    for (int c = 0; c < 3; c++) {
      CU_ASSERT(abs(p[c] - colours[q][c]) <= 2);
    }
  }
  hsr_freeScene(s);
  hsm_freeBody(b);
}

// a shape that nothing colours (no Appearance: a URDF visual without <material> arrives so) is
// drawn with VRML's default Material, lit: a unit box turned 30 degrees about y at z = -5 shows
// its +z face (normal at 30 degrees to the view) and its -x face (at 60 degrees); the only light
// is the headlight (along the view, intensity 1, no ambient), so each face is 0.8 cos(angle)
// grey. A face with per-face colours and no Material keeps VRML's rule (unlit: its colour
// exactly), though it is tilted 60 degrees from the headlight.
static void testDefaultMaterialIsLit(void) {
  hsrRenderer *r = renderer();
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  hsBody *b = load("plain.wrl",
                   "#VRML V2.0 utf8\n"
                   "Transform { translation 0 0 -5 rotation 0 1 0 0.5235987755982988\n"
                   "  children Shape { geometry Box { size 1 1 1 } } }\n"
                   "Transform { translation 0 -1.2 -4 rotation 1 0 0 -1.0471975511965976\n"
                   "  children Shape { appearance Appearance {} geometry IndexedFaceSet {\n"
                   "    coord Coordinate {\n"
                   "      point [-0.5 -0.5 0, 0.5 -0.5 0, 0.5 0.5 0, -0.5 0.5 0] }\n"
                   "    coordIndex [0 1 2 3 -1] colorPerVertex FALSE\n"
                   "    color Color { color [0.2 0.6 1] } solid FALSE } } }\n",
                   0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsrScene *s = hsr_makeScene(r, NULL);
  CU_ASSERT_EQUAL(hsr_addBody(s, b, NULL), 0);
  hsrView v = frontView(240, 240, 0.8);
  unsigned char *rgb = malloc(3 * 240 * 240);
  CU_ASSERT_EQUAL_FATAL(hsr_render(s, &v, rgb, NULL, NULL), 0);
  const double c30 = cos(M_PI / 6), s30 = sin(M_PI / 6);
  // face centres (camera frame = world frame here) and their expected colours
  const double centres[3][3] = {{0.5 * s30, 0, -5 + 0.5 * c30},
                                {-0.5 * c30, 0, -5 + 0.5 * s30},
                                {0, -1.2, -4}};
  const int expect[3][3] = {{(int)lround(0.8 * c30 * 255), (int)lround(0.8 * c30 * 255),
                             (int)lround(0.8 * c30 * 255)},
                            {(int)lround(0.8 * s30 * 255), (int)lround(0.8 * s30 * 255),
                             (int)lround(0.8 * s30 * 255)},
                            {51, 153, 255}};
  for (int k = 0; k < 3; k++) {
    double u, w;
    project(&v, centres[k][0], centres[k][1], centres[k][2], &u, &w);
    // a 3 x 3 patch around the face's centre
    for (int dy = -1; dy <= 1; dy++) {
      for (int dx = -1; dx <= 1; dx++) {
        const unsigned char *p = rgb + 3 * (((int)w + dy) * 240 + (int)u + dx);
        for (int c = 0; c < 3; c++) {
          if (abs(p[c] - expect[k][c]) > 2) {
            fprintf(stderr, "face %d pixel (%d, %d) channel %d: %d, expected %d\n", k,
                    (int)u + dx, (int)w + dy, c, p[c], expect[k][c]);
            CU_FAIL("colour");
          }
        }
      }
    }
  }
  free(rgb);
  hsr_freeScene(s);
  hsm_freeBody(b);
}

// a camera on a slider: moving the joint by 0.25 m along x moves the cube the other way in the
// image by f * 0.25 / 4.5 pixels; the camera's spec comes from its VisionSensor node
static void testCameraOnMovingLink(void) {
  hsrRenderer *r = renderer();
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  hsBody *robot = load("slider.wrl",
                       "#VRML V2.0 utf8\n"
                       "PROTO Humanoid [ field SFString name \"\" exposedField MFNode "
                       "humanoidBody [] ] { Group { children IS humanoidBody } }\n"
                       "PROTO Joint [ exposedField SFString jointType \"\" exposedField "
                       "SFVec3f jointAxis 0 0 1 exposedField SFInt32 jointId -1 exposedField "
                       "SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0 "
                       "exposedField MFNode children [] ] { Transform { children IS children } }\n"
                       "PROTO VisionSensor [ exposedField SFVec3f translation 0 0 0 exposedField "
                       "SFRotation rotation 0 0 1 0 exposedField SFInt32 sensorId -1 "
                       "exposedField SFString type \"NONE\" exposedField SFInt32 width 320 "
                       "exposedField SFInt32 height 240 exposedField SFFloat fieldOfView 0.785398 "
                       "exposedField SFFloat frontClipDistance 0.01 exposedField SFFloat "
                       "backClipDistance 10 exposedField SFFloat frameRate 30 exposedField MFNode "
                       "children [] ] { Transform { children IS children } }\n"
                       "DEF R Humanoid { name \"R\" humanoidBody [\n"
                       "  DEF BASE Joint { jointType \"fixed\" children [\n"
                       "    DEF SLIDE Joint { jointType \"slide\" jointAxis 1 0 0 jointId 0\n"
                       "      children [ DEF CAM VisionSensor { sensorId 0 type \"COLOR_DEPTH\"\n"
                       "        width 160 height 120 fieldOfView 0.8 frontClipDistance 0.1\n"
                       "        backClipDistance 20 frameRate 25 } ] } ] } ] }\n",
                       0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  hsBody *cube = load("cube2.wrl", kCube, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cube);
  int cam = hsm_sensorIndex(robot, "CAM");
  CU_ASSERT_FATAL(cam >= 0);
  hsrCameraSpec spec;
  CU_ASSERT_EQUAL_FATAL(hsr_cameraSpec(&robot->sensors[cam], &spec, NULL), 0);
  CU_ASSERT_EQUAL(spec.type, hsCAMERA_COLOR_DEPTH);
  CU_ASSERT_EQUAL(spec.width, 160);
  CU_ASSERT_EQUAL(spec.height, 120);
  HST_NEAR(spec.fieldOfView, 0.8, 1e-6);
  HST_NEAR(spec.frameRate, 25, 0);
  hsrScene *s = hsr_makeScene(r, NULL);
  CU_ASSERT_EQUAL(hsr_addBody(s, robot, NULL), 0);
  CU_ASSERT_EQUAL(hsr_addBody(s, cube, NULL), 1);
  hsBodyState *st = hsm_makeState(robot, NULL);
  int slide = hsm_linkIndex(robot, "SLIDE");
  unsigned char *rgb = malloc(3 * 160 * 120);
  float *depth = malloc(sizeof(float) * 160 * 120);
  for (int k = 0; k < 2; k++) {
    st->q[slide] = 0.25 * k;
    hsm_forwardKinematics(robot, st);
    CU_ASSERT_EQUAL(hsr_setPose(s, 0, st->linkP, st->linkR, NULL), 0);
    double T[12];
    hsr_cameraPose(T, &robot->sensors[cam], &st->linkP[3 * slide], &st->linkR[9 * slide]);
    HST_NEAR(T[3], 0.25 * k, 1e-12);
    hsrView v;
    hsr_cameraView(&v, &spec, T);
    CU_ASSERT_EQUAL_FATAL(hsr_render(s, &v, rgb, depth, NULL), 0);
    // the camera moved by +0.25 x: the cube is 0.25 further left in the camera frame
    checkCube(&v, rgb, depth, -0.25 * k, 0);
  }
  free(rgb);
  free(depth);
  hsm_freeState(st);
  hsr_freeScene(s);
  hsm_freeBody(robot);
  hsm_freeBody(cube);
}

// bad views and specs are refused with an error, the scene stays usable
static void testBadInput(void) {
  hsrRenderer *r = renderer();
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  hsrScene *s = hsr_makeScene(r, NULL);
  hsrView v = frontView(10, 10, 1.0);
  v.nearClip = 0;
  hsError err = {0};
  CU_ASSERT_EQUAL(hsr_render(s, &v, NULL, NULL, &err), hsE_INVALID);
  v = frontView(10, 10, 4.0);
  CU_ASSERT_EQUAL(hsr_render(s, &v, NULL, NULL, NULL), hsE_INVALID);
  v = frontView(10, 10, 1.0);
  unsigned char rgb[300];
  CU_ASSERT_EQUAL(hsr_render(s, &v, rgb, NULL, NULL), 0);
  CU_ASSERT_EQUAL(rgb[0], 0);
  CU_ASSERT_EQUAL(hsr_setPose(s, 3, NULL, NULL, NULL), hsE_INVALID);
  hsr_freeScene(s);
  unsigned char mono[2];
  const unsigned char px[6] = {255, 255, 255, 10, 200, 30};
  hsr_rgbToMono(mono, px, 2);
  CU_ASSERT_EQUAL(mono[0], 255);
  CU_ASSERT_EQUAL(mono[1], (int)(0.299 * 10 + 0.587 * 200 + 0.114 * 30));
}

// a still framed on one body: hsr_bodyBounds gives the box's corners (a 0.4 x 0.6 x 1.6 box
// standing at (1, 2, 0) on a large floor), and hsr_framingView puts every corner inside the
// middle `fill` of the picture, touching its edge (the closest such eye), seen from the
// azimuth and elevation asked; the picture's centre shows the box's colour
static void testFramingView(void) {
  hsrRenderer *r = renderer();
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  hsBody *floor = load("floor.wrl",
                       "#VRML V2.0 utf8\n"
                       "Transform { translation 0 0 -0.05 children Shape {\n"
                       "  appearance Appearance { material Material { diffuseColor 0 1 0 } }\n"
                       "  geometry Box { size 20 20 0.1 } } }\n",
                       0);
  hsBody *box = load("tall.wrl",
                     "#VRML V2.0 utf8\n"
                     "Transform { translation 1 2 0.8 children Shape {\n"
                     "  appearance Appearance { material Material { diffuseColor 1 0 0 } }\n"
                     "  geometry Box { size 0.4 0.6 1.6 } } }\n",
                     0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  hsrScene *s = hsr_makeScene(r, NULL);
  CU_ASSERT_EQUAL(hsr_addBody(s, floor, NULL), 0);
  CU_ASSERT_EQUAL(hsr_addBody(s, box, NULL), 1);
  double lo[3], hi[3];
  CU_ASSERT_EQUAL_FATAL(hsr_bodyBounds(s, 1, lo, hi), 0);
  const double wantLo[3] = {0.8, 1.7, 0}, wantHi[3] = {1.2, 2.3, 1.6};
  for (int j = 0; j < 3; j++) {
    CU_ASSERT(fabs(lo[j] - wantLo[j]) < 1e-6 && fabs(hi[j] - wantHi[j]) < 1e-6);
  }
  double none[3], none2[3];
  CU_ASSERT_EQUAL(hsr_bodyBounds(s, 2, none, none2), -1);
  double az = -M_PI / 4, el = 0.34, fill = 0.85;
  hsrView v;
  hsr_framingView(&v, lo, hi, az, el, 0.8, fill, 320, 240);
  // the eye is on the ray from the box's centre along (cos el cos az, cos el sin az, sin el)
  const double c[3] = {1, 2, 0.8}, d[3] = {cos(el) * cos(az), cos(el) * sin(az), sin(el)};
  double e[3] = {v.T[3] - c[0], v.T[7] - c[1], v.T[11] - c[2]};
  double dist = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  for (int j = 0; j < 3; j++) {
    CU_ASSERT(fabs(e[j] / dist - d[j]) < 1e-6);  // the box's corners are floats
    CU_ASSERT(fabs(v.T[4 * j + 2] - d[j]) < 1e-9);  // camera z: back towards the eye
  }
  CU_ASSERT(fabs(v.T[8]) < 1e-12);  // camera x is horizontal
  // every corner inside the middle 85%, one of them on its edge
  double worst = 0;
  for (int k = 0; k < 8; k++) {
    double q[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
    double cam[3];
    for (int i = 0; i < 3; i++) {
      cam[i] = 0;
      for (int j = 0; j < 3; j++) {
        cam[i] += v.T[4 * j + i] * (q[j] - v.T[4 * j + 3]);
      }
    }
    double u, w;
    project(&v, cam[0], cam[1], cam[2], &u, &w);
    double fu = fabs(u - 160) / 160, fv = fabs(w - 120) / 120;
    CU_ASSERT(fu <= fill + 1e-9 && fv <= fill + 1e-9);
    worst = fmax(worst, fmax(fu, fv));
  }
  CU_ASSERT(fabs(worst - fill) < 1e-9);
  unsigned char *rgb = malloc(320 * 240 * 3);
  CU_ASSERT_EQUAL(hsr_render(s, &v, rgb, NULL, NULL), 0);
  const unsigned char *mid = rgb + 3 * (120 * 320 + 160);
  CU_ASSERT(mid[0] > 100 && mid[1] < 20 && mid[2] < 20);
  free(rgb);
  hsr_freeScene(s);
  hsm_freeBody(floor);
  hsm_freeBody(box);
}

static int cleanup(void) {
  hsr_freeRenderer(g_renderer);
  g_renderer = NULL;
  return 0;
}

void register_render(void) {
  CU_pSuite s = hst_addSuite("render");
  CU_set_suite_cleanupfunc(s, cleanup);
  CU_add_test(s, "plane depth", testPlaneDepth);
  CU_add_test(s, "cube projection and colour", testCubeProjectionAndColour);
  CU_add_test(s, "texture", testTexture);
  CU_add_test(s, "default material is lit", testDefaultMaterialIsLit);
  CU_add_test(s, "camera on a moving link", testCameraOnMovingLink);
  CU_add_test(s, "bad input", testBadInput);
  CU_add_test(s, "framing view", testFramingView);
}
