// test_structure.c - model structures beyond plain hinges: links welded by fixed joints (one
// ODE body), sliders, massless links, force sensors on links without a joint of their own.

#include "dyn_helpers.h"

// a free base box (1 kg) with a plate welded on top (0.5 kg, its own box) carrying a force
// sensor, and a slider (0.2 kg) moving along z on the plate
static const char *kTower =
    "DEF TOWER Humanoid { humanoidBody [\n"
    " DEF BASE Joint { jointType \"free\" children [\n"
    "  Segment { mass 1 momentsOfInertia [0.00667 0 0 0 0.00667 0 0 0 0.00667]\n"
    "   children Shape { geometry Box { size 0.2 0.2 0.2 } } }\n"
    "  DEF PLATE Joint { jointType \"fixed\" translation 0 0 0.15 children [\n"
    "   Segment { mass 0.5 centerOfMass 0 0 0.0 momentsOfInertia [0.0017 0 0 0 0.0017 0 0 0 "
    "0.0033]\n"
    "    children Shape { geometry Box { size 0.2 0.2 0.1 } } }\n"
    "   DEF PLATE_FS ForceSensor { sensorId 0 }\n"
    "   DEF SLIDER Joint { jointType \"slide\" jointId 0 jointAxis 0 0 1 translation 0 0 0.1\n"
    "    children [ Segment { mass 0.2 centerOfMass 0 0 0.05\n"
    "     momentsOfInertia [0.0002 0 0 0 0.0002 0 0 0 0.0001] } ] } ] } ] } ]\n"
    " joints [ USE BASE USE PLATE USE SLIDER ] }\n";

// on the floor, the slider held by u = m g in torque mode: nothing moves, and the plate's sensor
// (no joint: inverse dynamics of its subtree) reads what plate and slider weigh, downwards:
// Fz = -(0.5 + 0.2) g (1e-6); the slider pushed by 2 m g accelerates at +g (1e-6 relative)
static void testWeldedAndSlider(void) {
  hsBody *tower = dynLoadText("tower.wrl", kTower);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(tower);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  CU_ASSERT_EQUAL_FATAL(tower->nlink, 3);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "tower", tower, NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL);
  dynPlace(w, 0, 0, 0, 0.1, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 2, 0.2 * 9.8, NULL), 0);
  dynSteps(w, 500);
  const hsBodyState *st = hsd_state(w, 0);
  HST_NEAR(st->q[2], 0, 1e-6);
  HST_NEAR(st->rootP[2], 0.1, 1e-6);
  HST_NEAR(st->linkP[3 * 1 + 2], 0.25, 1e-6);  // the plate rides on the base
  int n;
  const double *f = dynSensorReading(w, 0, 0, &n);
  CU_ASSERT_EQUAL(n, 6);
  HST_NEAR(f[2], -0.7 * 9.8, 1e-6);
  HST_NEAR(f[0], 0, 1e-6);
  HST_NEAR(f[3], 0, 1e-6);
  HST_NEAR(f[4], 0, 1e-6);
  // the slider's force doubled: ddq = (2 m g - m g) / m = g
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 2, 2 * 0.2 * 9.8, NULL), 0);
  dynSteps(w, 10);
  fprintf(stderr, " [slider ddq %.6f] ", st->ddq[2]);
  HST_NEAR(st->ddq[2], 9.8, 9.8e-6 * 9.8);
  hsd_freeWorld(w);
  hsm_freeBody(tower);
  hsm_freeBody(floor);
}

// a universal-joint pendulum whose middle link has no mass (ODE needs one: it gets
// hsdOptions.boundMass, with one warning naming the file and the link): swinging about y it behaves
// like the plain pendulum of the same bob, period 2 pi sqrt(I / (m g l)) = 1.4473 s within 0.5 %
static void testMasslessLink(void) {
  hsBody *p = dynLoadText(
      "ujoint.wrl",
      "DEF U Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" translation 0 0 2\n"
      " children [ DEF X Joint { jointType \"rotate\" jointId 0 jointAxis 1 0 0 children [\n"
      "  DEF Y Joint { jointType \"rotate\" jointId 1 jointAxis 0 1 0 jointValue 0.01 children [\n"
      "   Segment { mass 1 centerOfMass 0 0 -0.5\n"
      "    momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.001] } ] } ] } ] } ]\n"
      " joints [ USE BASE USE X USE Y ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  HST_NEAR(p->links[1].mass, 0, 0);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "u", p, NULL);
  hst_expectLog(1);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(hst_lastLog(), "ujoint.wrl: dynamics: u: moving link 'X' "
                                               "(segments none) has no mass: bounded to 0.001 kg"));
  const hsBodyState *st = hsd_state(w, 0);
  double prev = st->q[2], first = -1, last = -1;
  int crossings = 0;
  for (int i = 1; i <= 6000; i++) {
    dynSteps(w, 1);
    double q = st->q[2];
    if (prev < 0 && q >= 0) {
      double t = (i - 1 + prev / (prev - q)) * 0.001;
      if (first < 0) {
        first = t;
      } else {
        crossings++;
      }
      last = t;
    }
    prev = q;
  }
  CU_ASSERT_FATAL(crossings > 0);
  double T = (last - first) / crossings, want = 2 * HS_PI * sqrt(0.26 / (9.8 * 0.5));
  fprintf(stderr, " [period %.5f s, want %.5f s] ", T, want);
  CU_ASSERT(fabs(T - want) / want < 0.005);
  HST_NEAR(st->q[1], 0, 1e-6);  // the other axis stays
  hsd_freeWorld(w);
  hsm_freeBody(p);
}

void register_structure(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_structure");
  CU_add_test(s, "welded links, slider, jointless force sensor", testWeldedAndSlider);
  CU_add_test(s, "massless link in a chain", testMasslessLink);
}
