// bench_contacts.c - resting contact quality and speed of the dynamics' contact generation on
// three scenes, so that two builds (e.g. collision/'s contacts against the ODE colliders of an
// older build) can be compared side by side by bench/bench_contacts.py.
//
//   hrpsim-bench-contacts SCENE SECONDS FLOOR HUMANOID [ENGINE]
//
// ENGINE "js" steps the joint-space engine (hsENGINE_JOINT_SPACE, the core's default), else ODE.
// SCENE "humanoid": the sample humanoid at its initial pose on FLOOR, every joint high gain at
// 0, one pair floor/robot. "pile": 100 boxes (0.1 m, 1 kg) dropped in a 5 x 5 x 4 grid, pairs
// floor/box and box/box for all. "meshes": 16 closed hexagonal prisms given as face sets
// (meshes for the collision code: radius 0.05 m, height 0.04 m, 0.5 kg) dropped 1 cm onto the
// floor in a 4 x 4 grid, pair floor/prism for each. 1 ms steps, friction 0.5, culling 0.01.
// Everything is built in this file (the models are written to a temporary directory).
//
// Measured over the last second (the scenes are at rest by then): the deepest contact
// penetration and the mean contact depth, the RMS speed of the bodies (jitter; m/s), the
// peak-to-peak height of a probe body (humanoid root, box 0, prism 0) [m], and the mean number
// of contacts; over the whole run: steps per second (hsd_step only). Prints one JSON object.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dynamics.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(int rc, const hsError *err) {
  if (rc < 0) {
    fprintf(stderr, "bench_contacts: %s (%s)\n", err->message, err->file);
    exit(1);
  }
}

static const char *kProtos =
    "#VRML V2.0 utf8\n"
    "PROTO Humanoid [ exposedField SFString name \"\" exposedField MFNode humanoidBody []\n"
    "  exposedField MFNode joints [] ] { Group { children IS humanoidBody } }\n"
    "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [] ]\n"
    "  { Transform { children IS children } }\n"
    "PROTO Segment [ field SFFloat mass 0 field SFVec3f centerOfMass 0 0 0\n"
    "  field MFFloat momentsOfInertia [] exposedField MFNode children [] ]\n"
    "  { Group { children IS children } }\n";

// write text to dir/name and load it
static hsBody *loadText(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  if (!b) {
    check(-1, &err);
  }
  return b;
}

// a free body of mass m and diagonal inertia I with the given geometry node
static hsBody *freeBody(const char *dir, const char *name, double m, const double I[3],
                        const char *geometry) {
  char text[8192];
  snprintf(text, sizeof text,
           "%sDEF B Humanoid { humanoidBody [ DEF J Joint { jointType \"free\" children [\n"
           " DEF L Segment { mass %.17g momentsOfInertia [%.17g 0 0 0 %.17g 0 0 0 %.17g]\n"
           "  children Shape { geometry %s } } ] } ] joints [ USE J ] }\n",
           kProtos, m, I[0], I[1], I[2], geometry);
  return loadText(dir, name, text);
}

// a closed hexagonal prism of radius r, height h (z), as an IndexedFaceSet
static void prismGeometry(char *out, size_t size, double r, double h) {
  char pts[2048] = "", idx[2048] = "";
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 6; i++) {
      char p[96];
      double a = i * HS_PI / 3;
      snprintf(p, sizeof p, "%.9g %.9g %.9g, ", r * cos(a), r * sin(a), k ? h / 2 : -h / 2);
      strcat(pts, p);
    }
  }
  strcat(idx, "5 4 3 2 1 0 -1 6 7 8 9 10 11 -1 ");  // bottom (seen from below), top
  for (int i = 0; i < 6; i++) {
    char f[64];
    int j = (i + 1) % 6;
    snprintf(f, sizeof f, "%d %d %d %d -1 ", i, j, 6 + j, 6 + i);
    strcat(idx, f);
  }
  snprintf(out, size, "IndexedFaceSet { coord Coordinate { point [ %s ] } coordIndex [ %s ] }",
           pts, idx);
}

int main(int argc, char **argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: %s humanoid|pile|meshes SECONDS FLOOR HUMANOID [js]\n", argv[0]);
    return 1;
  }
  const char *scene = argv[1];
  double seconds = atof(argv[2]);
  hsError err = {0};
  hsd_initODE();
  char dir[] = "/tmp/hrpsim-bench-contacts-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  hsBody *floor = hsm_loadVrml(argv[3], NULL, NULL, 0, NULL, &err);
  if (!floor) {
    check(-1, &err);
  }
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = argc == 6 && strcmp(argv[5], "js") == 0 ? hsENGINE_JOINT_SPACE : hsENGINE_ODE;
  hsdWorld *w = hsd_makeWorld(&opt, &err);
  if (!w) {
    check(-1, &err);
  }
  hsdSurface surface = {0.5, 0.5, 0.0, 0.01};
  int floorCh = hsd_addCharacter(w, "floor", floor, &err);
  check(floorCh, &err);
  int first = 1, nbody = 0;
  hsBody *model = NULL;
  if (strcmp(scene, "humanoid") == 0) {
    model = hsm_loadVrml(argv[4], NULL, NULL, 0, NULL, &err);
    if (!model) {
      check(-1, &err);
    }
    int ch = hsd_addCharacter(w, "robot", model, &err);
    check(ch, &err);
    check(hsd_setAllJointModes(w, ch, hsMODE_HIGH_GAIN, &err), &err);
    check(hsd_addContactPair(w, floorCh, -1, ch, -1, &surface, &err), &err);
    nbody = 1;
  } else if (strcmp(scene, "pile") == 0) {
    double I = 1.0 * 0.02 / 12;
    model = freeBody(dir, "box.wrl", 1.0, (double[3]){I, I, I}, "Box { size 0.1 0.1 0.1 }");
    nbody = 100;
    for (int i = 0; i < nbody; i++) {
      char name[16];
      snprintf(name, sizeof name, "box%02d", i);
      int ch = hsd_addCharacter(w, name, model, &err);
      check(ch, &err);
      int layer = i / 25, row = (i % 25) / 5, col = i % 5;
      double yaw = 0.1 * layer, c = cos(yaw), s = sin(yaw);
      double p[3] = {(col - 2) * 0.15 + 0.03 * layer, (row - 2) * 0.15 - 0.02 * layer,
                     0.06 + 0.12 * layer};
      double R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
      check(hsd_setLinkPose(w, ch, 0, p, R, &err), &err);
      check(hsd_addContactPair(w, floorCh, -1, ch, -1, &surface, &err), &err);
    }
    for (int i = 0; i < nbody; i++) {
      for (int j = i + 1; j < nbody; j++) {
        check(hsd_addContactPair(w, 1 + i, -1, 1 + j, -1, &surface, &err), &err);
      }
    }
  } else if (strcmp(scene, "meshes") == 0) {
    char geom[4096];
    double r = 0.05, h = 0.04, m = 0.5;
    prismGeometry(geom, sizeof geom, r, h);
    double Ixy = m * (3 * r * r / 4 + h * h) / 12 * 1.0, Iz = m * r * r * 5 / 12;
    model = freeBody(dir, "prism.wrl", m, (double[3]){Ixy, Ixy, Iz}, geom);
    nbody = 16;
    for (int i = 0; i < nbody; i++) {
      char name[16];
      snprintf(name, sizeof name, "prism%02d", i);
      int ch = hsd_addCharacter(w, name, model, &err);
      check(ch, &err);
      double yaw = 0.3 * i, c = cos(yaw), s = sin(yaw);
      double p[3] = {(i % 4 - 1.5) * 0.15, (i / 4 - 1.5) * 0.15, h / 2 + 0.01};
      double R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
      check(hsd_setLinkPose(w, ch, 0, p, R, &err), &err);
      check(hsd_addContactPair(w, floorCh, -1, ch, -1, &surface, &err), &err);
    }
  } else {
    fprintf(stderr, "unknown scene '%s'\n", scene);
    return 1;
  }
  check(hsd_setTimeStep(w, 0.001, &err), &err);
  check(hsd_init(w, &err), &err);
  long steps = lround(seconds * 1000), window = 1000;
  if (window > steps / 2) {
    window = steps / 2;
  }
  double elapsed = 0, maxDepth = 0, sumDepth = 0, sumV2 = 0, zmin = INFINITY, zmax = -INFINITY;
  long ndepth = 0, nv = 0, ncontactSum = 0;
  for (long i = 0; i < steps; i++) {
    if (model && strcmp(scene, "humanoid") == 0) {
      for (int j = 0; j < model->njoint; j++) {
        hsd_setJointValue(w, first, model->jointLink[j], 0, NULL);
      }
    }
    double t0 = now();
    check(hsd_step(w, &err), &err);
    elapsed += now() - t0;
    if (i < steps - window) {
      continue;
    }
    int n;
    const hsdContact *c = hsd_contacts(w, &n);
    ncontactSum += n;
    for (int k = 0; k < n; k++) {
      maxDepth = fmax(maxDepth, c[k].depth);
      sumDepth += c[k].depth;
      ndepth++;
    }
    for (int b = 0; b < nbody; b++) {
      const hsdLinkMotion *mo = hsd_linkMotion(w, first + b, 0);
      sumV2 += mo->v[0] * mo->v[0] + mo->v[1] * mo->v[1] + mo->v[2] * mo->v[2];
      nv++;
    }
    double z = hsd_state(w, first)->rootP[2];
    zmin = fmin(zmin, z);
    zmax = fmax(zmax, z);
  }
  printf("{\"scene\": \"%s\", \"steps\": %ld, \"steps_per_s\": %.1f, \"max_depth\": %.3g, "
         "\"mean_depth\": %.3g, \"rms_speed\": %.3g, \"probe_z_p2p\": %.3g, "
         "\"mean_contacts\": %.1f, \"warnings\": %d}\n",
         scene, steps, steps / elapsed, maxDepth, ndepth ? sumDepth / ndepth : 0.0,
         nv ? sqrt(sumV2 / nv) : 0.0, zmax - zmin, window ? (double)ncontactSum / window : 0.0,
         hsd_warningCount(w));
  hsd_freeWorld(w);
  hsm_freeBody(model);
  hsm_freeBody(floor);
  char path[600];
  snprintf(path, sizeof path, "%s/box.wrl", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/prism.wrl", dir);
  unlink(path);
  rmdir(dir);
  return 0;
}
