// dyn_helpers.h - shared helpers of the dynamics tests: OpenHRP PROTO header for inline models,
// model loading, a one-box model, energy and small vector helpers. Everything is static inline
// so each test file takes what it uses.

#ifndef HRPSIM_TESTS_UNIT_DYNAMICS_DYN_HELPERS_H_
#define HRPSIM_TESTS_UNIT_DYNAMICS_DYN_HELPERS_H_

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dynamics.h"
#include "test_support.h"

// OpenHRP-style PROTO declarations (ours) for inline test models
static const char *const kDynProtos =
    "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFVec3f center 0 0 0 exposedField MFNode children []\n"
    "  exposedField SFRotation rotation 0 0 1 0 exposedField SFVec3f translation 0 0 0\n"
    "  exposedField SFString jointType \"\" exposedField SFInt32 jointId -1\n"
    "  exposedField SFVec3f jointAxis 0 0 1 exposedField MFFloat ulimit []\n"
    "  exposedField MFFloat llimit [] exposedField SFFloat gearRatio 1\n"
    "  exposedField SFFloat rotorInertia 0 exposedField SFFloat jointValue 0 ]\n"
    "{ Transform { center IS center children IS children rotation IS rotation\n"
    "  translation IS translation } }\n"
    "PROTO Segment [ exposedField SFVec3f centerOfMass 0 0 0 exposedField MFNode children []\n"
    "  exposedField SFFloat mass 0 exposedField MFFloat momentsOfInertia [0 0 0 0 0 0 0 0 0] ]\n"
    "{ Group { children IS children } }\n"
    "PROTO Humanoid [ exposedField SFString name \"\" exposedField MFString info []\n"
    "  exposedField MFNode joints [] exposedField MFNode humanoidBody [] ]\n"
    "{ Group { children IS humanoidBody } }\n"
    "PROTO ForceSensor [ exposedField SFVec3f maxForce -1 -1 -1 exposedField SFVec3f maxTorque\n"
    "  -1 -1 -1 exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0\n"
    "  exposedField SFInt32 sensorId -1 ] { Transform { translation IS translation } }\n"
    "PROTO Gyro [ exposedField SFVec3f maxAngularVelocity -1 -1 -1 exposedField SFVec3f\n"
    "  translation 0 0 0 exposedField SFRotation rotation 0 0 1 0 exposedField SFInt32 sensorId\n"
    "  -1 ] { Transform { translation IS translation rotation IS rotation } }\n"
    "PROTO AccelerationSensor [ exposedField SFVec3f maxAcceleration -1 -1 -1 exposedField\n"
    "  SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0 exposedField SFInt32\n"
    "  sensorId -1 ] { Transform { translation IS translation rotation IS rotation } }\n";

// load protos + text (written to name); fails the test on error
static inline hsBody *dynLoadText(const char *name, const char *text) {
  static char buf[32768];
  snprintf(buf, sizeof buf, "%s%s", kDynProtos, text);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(hst_writeFile(name, buf), NULL, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n  load %s: %s\n", name, err.message);
  }
  return b;
}

// load a sample model (path relative to HST_SAMPLES_DIR)
static inline hsBody *dynLoadSample(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", HST_SAMPLES_DIR, rel);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n  load %s: %s\n", path, err.message);
  }
  return b;
}

// a free box: mass m [kg], size sx sy sz [m] centred on the link origin plus com offset
// (cx, cy, cz), solid-box inertia; extra is VRML added inside the Joint (sensors)
static inline hsBody *dynBox(const char *file, double m, double sx, double sy, double sz,
                             double cx, double cy, double cz, const char *extra) {
  char text[4096];
  snprintf(text, sizeof text,
           "DEF BOXBODY Humanoid { humanoidBody [\n"
           " DEF BOX Joint { jointType \"free\" children [\n"
           "  DEF BOX_LINK Segment { mass %.17g centerOfMass %.17g %.17g %.17g\n"
           "   momentsOfInertia [%.17g 0 0 0 %.17g 0 0 0 %.17g]\n"
           "   children Transform { translation %.17g %.17g %.17g children\n"
           "    Shape { geometry Box { size %.17g %.17g %.17g } } } }\n"
           "  %s ] } ]\n"
           " joints [ USE BOX ] }\n",
           m, cx, cy, cz, m * (sy * sy + sz * sz) / 12, m * (sx * sx + sz * sz) / 12,
           m * (sx * sx + sy * sy) / 12, cx, cy, cz, sx, sy, sz, extra ? extra : "");
  return dynLoadText(file, text);
}

// a world with defaults (or opt); fails the test when it cannot be made
static inline hsdWorld *dynWorld(const hsdOptions *opt) {
  hsError err = {0};
  hsdWorld *w = hsd_makeWorld(opt, &err);
  CU_ASSERT_PTR_NOT_NULL(w);
  return w;
}

// place the root of character ch at p with rotation R (NULL: identity) before hsd_init
static inline void dynPlace(hsdWorld *w, int ch, double x, double y, double z, const double *R) {
  static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double p[3] = {x, y, z};
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_setLinkPose(w, ch, 0, p, R ? R : I, &err), 0);
}

// step n times; fails the test on error
static inline void dynSteps(hsdWorld *w, int n) {
  hsError err = {0};
  for (int i = 0; i < n; i++) {
    if (hsd_step(w, &err) < 0) {
      CU_FAIL("hsd_step failed");
      fprintf(stderr, "\n  %s\n", err.message);
      return;
    }
  }
}

// centre of mass of link k of character ch, world frame
static inline void dynCom(const hsdWorld *w, int ch, int k, double c[3]) {
  const hsBodyState *st = hsd_state(w, ch);
  const hsBody *b = st->body;
  hsu_rotVec(c, st->linkR + 9 * k, b->links[k].com);
  for (int j = 0; j < 3; j++) {
    c[j] += st->linkP[3 * k + j];
  }
}

// kinetic + potential energy of character ch (gravity g along -z, potential zero at z = 0),
// from the reported link motion
static inline double dynEnergy(const hsdWorld *w, int ch, double g) {
  const hsBodyState *st = hsd_state(w, ch);
  const hsBody *b = st->body;
  double e = 0;
  for (int k = 0; k < b->nlink; k++) {
    const hsLink *lk = &b->links[k];
    const hsdLinkMotion *m = hsd_linkMotion(w, ch, k);
    double c[3], rc[3], x[3], vc[3], RI[9], RT[9], Iw[9], Iww[3];
    dynCom(w, ch, k, c);
    hsu_rotVec(rc, st->linkR + 9 * k, lk->com);
    hsu_cross(x, m->w, rc);
    for (int j = 0; j < 3; j++) {
      vc[j] = m->v[j] + x[j];
    }
    hsu_mulMat(RI, st->linkR + 9 * k, lk->inertia);
    hsu_transpose(RT, st->linkR + 9 * k);
    hsu_mulMat(Iw, RI, RT);
    hsu_rotVec(Iww, Iw, m->w);
    e += 0.5 * lk->mass * hsu_dot(vc, vc) + 0.5 * hsu_dot(m->w, Iww) + lk->mass * g * c[2];
  }
  return e;
}

// total mass of a body
static inline double dynMass(const hsBody *b) {
  double m = 0;
  for (int k = 0; k < b->nlink; k++) {
    m += b->links[k].mass;
  }
  return m;
}

#endif  // HRPSIM_TESTS_UNIT_DYNAMICS_DYN_HELPERS_H_
