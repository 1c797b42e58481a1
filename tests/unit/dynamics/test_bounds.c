// test_bounds.c - URDF frame links and degenerate mass properties in the dynamics: massless
// links on fixed joints weld into their parent with no warning and keep their frames; a moving
// link without mass, and links whose inertia is singular or indefinite, get the documented lower
// bounds (hsdOptions.boundMass, boundInertia) with one warning each naming file, line and link.

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dyn_helpers.h"

// a URDF fixture of tests/data/urdf/quirks (its load warnings are expected and counted)
static hsBody *loadQuirk(const char *name, char *path, size_t npath) {
  snprintf(path, npath, "%s/urdf/quirks/%s", HST_DATA_DIR, name);
  hsError err = {0};
  hst_expectLog(1);
  hsBody *b = hsm_loadUrdf(path, NULL, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n  %s\n", err.message);
  }
  return b;
}

// frame_links.urdf: of its four massless links only the moving one ('swing', URDF link 'tip')
// is bounded; the warning names the file, the line of the tip's <mass value="0"> (70) and the
// link. Free fall from 1 m for 0.2 s follows the semi-implicit Euler steps ODE takes exactly:
// v_n = -g n dt, z_N = 1 - g dt^2 N (N + 1) / 2 (0.80302 m; 1 - g t^2 / 2 = 0.8040 m is the
// continuous value, which differs by g dt t / 2). ee_fixed stays 0.5 m along its parent's z.
static void testFrameLinks(void) {
  char path[512];
  hsBody *b = loadQuirk("frame_links.urdf", path, sizeof path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  int before = hst_logCount();
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_addCharacter(w, "f", b, NULL), 0);
  dynPlace(w, 0, 0, 0, 1, NULL);
  int shoulder = hsm_linkIndex(b, "shoulder"), ee = hsm_linkIndex(b, "ee_fixed");
  CU_ASSERT_FATAL(shoulder > 0 && ee > 0);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, shoulder, 0.4, &err), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, &err), 0);
  // one warning, for the moving massless link
  CU_ASSERT_EQUAL(hst_logCount() - before, 1);
  char want[700];
  snprintf(want, sizeof want,
           "%s:70: dynamics: f: moving link 'swing' (segments 'tip') has no mass: bounded to "
           "0.001 kg and 1e-06 kg m^2",
           path);
  CU_ASSERT_STRING_EQUAL(hst_lastLog(), want);
  CU_ASSERT_PTR_NULL(strstr(hst_lastLog(), "ee_fixed"));

  const int N = 200;
  dynSteps(w, N);
  CU_ASSERT_EQUAL(hst_logCount() - before, 1);  // nothing more while stepping
  const hsBodyState *st = hsd_state(w, 0);
  double dt = 0.001, g = 9.8;
  double z = 1 - g * dt * dt * N * (N + 1) / 2;
  fprintf(stderr, " [z(0.2 s) %.9f, discrete %.9f] ", st->rootP[2], z);
  HST_NEAR(st->rootP[2], z, 1e-9);
  HST_NEAR(st->q[shoulder], 0.4, 1e-9);
  // ee_fixed: parent pose x (0, 0, 0.5), same rotation
  const double *Ps = st->linkP + 3 * shoulder, *Rs = st->linkR + 9 * shoulder;
  double off[3] = {0, 0, 0.5}, pe[3];
  hsu_rotVec(pe, Rs, off);
  for (int j = 0; j < 3; j++) {
    HST_NEAR(st->linkP[3 * ee + j], Ps[j] + pe[j], 1e-12);
  }
  for (int j = 0; j < 9; j++) {
    HST_NEAR(st->linkR[9 * ee + j], Rs[j], 1e-12);
  }
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// singular_inertia.urdf: the free root's all-1e-6 tensor (rank one) and the arm's indefinite
// one are each raised, one warning per link naming the line of its <inertia>; the root keeps
// its 1.5 kg and the model steps to finite values
static void testSingularInertia(void) {
  char path[512];
  hsBody *b = loadQuirk("singular_inertia.urdf", path, sizeof path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  int before = hst_logCount();
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_addCharacter(w, "s", b, NULL), 0);
  hsError err = {0};
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, &err), 0);
  CU_ASSERT_EQUAL(hst_logCount() - before, 2);
  char want[700];
  // the arm's group comes second (link order); its smallest principal moment is -0.01
  snprintf(want, sizeof want,
           "%s:25: dynamics: s: moving link 'j' (segments 'arm') has an inertia that is not "
           "positive definite (smallest principal moment -0.01 kg m^2): raised to 1e-06 kg m^2",
           path);
  CU_ASSERT_STRING_EQUAL(hst_lastLog(), want);
  dynSteps(w, 100);
  const hsBodyState *st = hsd_state(w, 0);
  CU_ASSERT(isfinite(st->rootP[2]) && isfinite(st->q[1]));
  // free fall of the whole robot is unchanged by the bounds
  HST_NEAR(st->rootP[2], -9.8 * 1e-6 * 100 * 101 / 2, 1e-9);
  CU_ASSERT_EQUAL(hst_logCount() - before, 2);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the bounds are options: larger ones are used as given, and a zero bound is refused
static void testBoundOptions(void) {
  hsdOptions o;
  hsd_defaultOptions(&o);
  HST_NEAR(o.boundMass, 1e-3, 0);
  HST_NEAR(o.boundInertia, 1e-6, 0);
  o.boundMass = 0;
  hsError err = {0};
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, &err));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "out of range"));
  char path[512];
  hsBody *b = loadQuirk("frame_links.urdf", path, sizeof path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsd_defaultOptions(&o);
  o.boundMass = 0.25;
  hsdWorld *w = dynWorld(&o);
  CU_ASSERT_EQUAL_FATAL(hsd_addCharacter(w, "f", b, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, &err), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(hst_lastLog(), "bounded to 0.25 kg"));
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

void register_bounds(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_bounds");
  CU_add_test(s, "URDF frame links: welded, one bound for the moving one", testFrameLinks);
  CU_add_test(s, "singular and indefinite inertias: one bound per link", testSingularInertia);
  CU_add_test(s, "bound options", testBoundOptions);
}
