// dyn_helpers.h - shared helpers of the dynamics tests: model loading (openhrp_fixtures.h), a
// one-box model, energy and small vector helpers. Everything is static inline so each test file
// takes what it uses.

#ifndef HRPSIM_TESTS_UNIT_DYNAMICS_DYN_HELPERS_H_
#define HRPSIM_TESTS_UNIT_DYNAMICS_DYN_HELPERS_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics.h"
#include "openhrp_fixtures.h"
#include "sensors.h"
#include "test_support.h"

// load protos + text (written to name); fails the test on error
static inline hsBody *dynLoadText(const char *name, const char *text) {
  return hst_loadVrmlText(name, text);
}

// load a sample model (path relative to HST_SAMPLES_DIR)
static inline hsBody *dynLoadSample(const char *rel) {
  return hst_loadSample(rel);
}

// a URDF wheel (written to file): a base fixed to the world, the wheel on a vertical
// continuous joint (izz 0.2 about it) with <dynamics damping="0.5">; NULL on error
static inline hsBody *dynDampedWheel(const char *file) {
  const char *urdf =
      "<robot name=\"wheel\"><link name=\"world\"/>\n"
      "<joint name=\"anchor\" type=\"fixed\"><parent link=\"world\"/>"
      "<child link=\"base\"/></joint>\n"
      "<link name=\"base\"><inertial><mass value=\"1\"/>\n"
      "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n"
      "<link name=\"wheel\"><inertial><mass value=\"1\"/><origin xyz=\"0 0 0\"/>\n"
      "<inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.2\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
      "</link>\n<joint name=\"spin\" type=\"continuous\"><parent link=\"base\"/>\n"
      "<child link=\"wheel\"/><axis xyz=\"0 0 1\"/><dynamics damping=\"0.5\"/></joint>\n"
      "</robot>\n";
  hsError err = {0};
  return hsm_loadUrdf(hst_writeFile(file, urdf), NULL, NULL, 0, NULL, &err);
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

// the reading of sensor s (index into body->sensors) of character ch after the last step,
// through the sensors library, and how many numbers it has in *n; NULL for a bad index. The
// numbers stay valid until the eighth call after this one.
static inline const double *dynSensorReading(const hsdWorld *w, int ch, int s, int *n) {
  static double slots[8][6];
  static int next;
  hssState *st = hss_makeState(hsd_characterBody(w, ch), NULL);
  CU_ASSERT_PTR_NOT_NULL(st);
  if (!st) {
    *n = 0;
    return NULL;
  }
  hss_update(st, w, ch);
  const double *r = hss_reading(st, s, n);
  if (*n > 6) {
    *n = 6;  // a range sensor: no scan here (no ray scene), its first beams read 0
  }
  double *out = NULL;
  if (r) {
    out = slots[next++ % 8];
    memcpy(out, r, sizeof slots[0]);
  }
  hss_freeState(st);
  return out;
}

// a world on the engine opt names (NULL: the defaults), whatever HST_ENGINE says: for tests
// about one engine or comparing the two; fails the test when it cannot be made
static inline hsdWorld *dynWorldOn(const hsdOptions *opt) {
  hsError err = {0};
  hsdWorld *w = hsd_makeWorld(opt, &err);
  CU_ASSERT_PTR_NOT_NULL(w);
  return w;
}

// the engine HST_ENGINE names ("joint_space" or "ode"), else fallback
static inline hstEngine dynEnvEngine(hstEngine fallback) {
  const char *engine = getenv("HST_ENGINE");
  if (engine && strcmp(engine, "joint_space") == 0) {
    return hsENGINE_JOINT_SPACE;
  }
  if (engine && strcmp(engine, "ode") == 0) {
    return hsENGINE_ODE;
  }
  return fallback;
}

// a world with defaults (or opt) on the engine HST_ENGINE names ("joint_space" or "ode"; unset:
// opt's, by default the joint-space engine): ctest runs the whole dynamics runner on the default
// engine and again with HST_ENGINE=ode (tests/CMakeLists.txt), so the physics tests made with
// dynWorld hold on both engines; fails the test when it cannot be made
static inline hsdWorld *dynWorld(const hsdOptions *opt) {
  hsdOptions o;
  if (opt) {
    o = *opt;
  } else {
    hsd_defaultOptions(&o);
  }
  o.engine = dynEnvEngine(o.engine);
  return dynWorldOn(&o);
}

// the engine dynWorld(NULL) gives: HST_ENGINE's, else the default
static inline hstEngine dynEngine(void) {
  hsdOptions o;
  hsd_defaultOptions(&o);
  return dynEnvEngine(o.engine);
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
