// test_determinism.c - the same inputs give bit-identical results, whether two worlds are stepped
// side by side (interleaved, sharing ODE's process-wide state) or one after the other.

#include "dyn_helpers.h"

// a humanoid on the floor, moving its legs and arms in high gain (composite) or holding still
// with small torques (articulated); with the given options (on HST_ENGINE's engine, unless
// pinned: then on o's)
static hsdWorld *sceneOn(const hsdOptions *o, int pinned, int torque, hsBody *robot,
                         hsBody *floor) {
  hsdWorld *w = pinned ? dynWorldOn(o) : dynWorld(o);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsd_addCharacter(w, "robot", robot, NULL);
  hsdSurface s = {0.6, 0.4, 0.1, 0.01};
  hsd_addContactPair(w, 1, -1, 0, -1, &s, NULL);
  hsd_addContactPair(w, 1, -1, 1, -1, &s, NULL);
  hsd_setAllJointModes(w, 1, torque ? hsMODE_TORQUE : hsMODE_HIGH_GAIN, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  return w;
}

static hsdWorld *scene(hstStepper stepper, int torque, hsBody *robot, hsBody *floor) {
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.stepper = stepper;
  return sceneOn(&o, 0, torque, robot, floor);
}

// the inputs of step i. The amplitude ramps up over the first 0.2 s: the robot starts with its
// soles touching the floor (found as contacts from the first step), and a joint jump of up to
// 0.15 rad in one 1 ms step would sweep the feet into the floor at ~100 m/s, which the contact
// constraints answer, correctly, by launching the whole robot off the floor for good
static void drive(hsdWorld *w, const hsBody *robot, int torque, int i) {
  double ramp = i < 200 ? i / 200.0 : 1;
  for (int k = 1; k < robot->nlink; k++) {
    double x = 0.3 * ramp * sin(2 * HS_PI * i * 0.001 + 0.1 * k);
    if (torque) {
      hsd_setJointTorque(w, 1, k, x, NULL);
    } else {
      hsd_setJointValue(w, 1, k, 0.5 * x, NULL);
    }
  }
  if (i % 100 == 0) {
    double f[3] = {10, 5, 0}, t[3] = {0, 0, 1};
    hsd_setExternalForce(w, 1, 0, f, t, NULL);
  }
}

// 1 if two worlds' robots are bit-identical (poses, joints, torques, sensors, contacts)
static int same(const hsdWorld *a, const hsdWorld *b, const hsBody *robot) {
  const hsBodyState *sa = hsd_state(a, 1), *sb = hsd_state(b, 1);
  size_t n = (size_t)robot->nlink;
  int ok = memcmp(sa->linkP, sb->linkP, 3 * n * sizeof(double)) == 0 &&
           memcmp(sa->linkR, sb->linkR, 9 * n * sizeof(double)) == 0 &&
           memcmp(sa->q, sb->q, n * sizeof(double)) == 0 &&
           memcmp(sa->dq, sb->dq, n * sizeof(double)) == 0 &&
           memcmp(sa->u, sb->u, n * sizeof(double)) == 0;
  for (int s = 0; s < robot->nsensor && ok; s++) {
    int k;
    const double *ra = dynSensorReading(a, 1, s, &k), *rb = dynSensorReading(b, 1, s, &k);
    ok = memcmp(ra, rb, (size_t)k * sizeof(double)) == 0;
  }
  int na, nb;
  const hsdContact *ca = hsd_contacts(a, &na), *cb = hsd_contacts(b, &nb);
  return ok && na == nb && memcmp(ca, cb, (size_t)na * sizeof *ca) == 0;
}

static void run(hstStepper stepper, int torque) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *a = scene(stepper, torque, robot, floor);
  hsdWorld *b = scene(stepper, torque, robot, floor);
  // side by side
  int diverged = -1, touched = 0;
  for (int i = 1; i <= 1000; i++) {
    drive(a, robot, torque, i);
    drive(b, robot, torque, i);
    dynSteps(a, 1);
    dynSteps(b, 1);
    if (diverged < 0 && !same(a, b, robot)) {
      diverged = i;
    }
    int n;
    hsd_contacts(a, &n);
    touched += n > 0;
  }
  CU_ASSERT_EQUAL(diverged, -1);
  // and a third world alone, after the others
  hsdWorld *c = scene(stepper, torque, robot, floor);
  for (int i = 1; i <= 1000; i++) {
    drive(c, robot, torque, i);
    dynSteps(c, 1);
  }
  CU_ASSERT(same(a, c, robot));
  // the runs did touch the floor, most of the time (865 to 1000 of the steps; a robot that falls
  // in torque mode bounces: any one step, the last included, may be in the air)
  CU_ASSERT(touched > 500);
  hsd_freeWorld(a);
  hsd_freeWorld(b);
  hsd_freeWorld(c);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

static void testHighGainWorldStep(void) {
  run(hsSTEPPER_WORLD, 0);
}

static void testTorqueQuickStep(void) {
  run(hsSTEPPER_QUICK, 1);
}

// a pile of 27 boxes with the default (automatic) stepper, which switches to QuickStep as the
// pile forms (for most of its steps): two worlds side by side stay bit-identical (pinned: on
// o's engine whatever HST_ENGINE says)
static hsdWorld *pileOn(const hsdOptions *o, int pinned, const hsBody *box, const hsBody *floor) {
  hsdWorld *w = pinned ? dynWorldOn(o) : dynWorld(o);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.5, 0.4, 0, 0.01};
  for (int i = 0; i < 27; i++) {
    char name[16];
    snprintf(name, sizeof name, "box%d", i);
    int ch = hsd_addCharacter(w, name, box, NULL);
    double x = (i % 3 - 1) * 0.12 + 0.05 * (i / 9), y = (i % 9 / 3 - 1) * 0.12 + 0.04 * (i / 9);
    dynPlace(w, ch, x, y, 0.06 + 0.12 * (i / 9), NULL);
    hsd_addContactPair(w, ch, -1, 0, -1, &s, NULL);
    for (int j = 1; j < ch; j++) {
      hsd_addContactPair(w, j, -1, ch, -1, &s, NULL);
    }
  }
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  return w;
}

static hsdWorld *pile(const hsBody *box, const hsBody *floor) {
  return pileOn(NULL, 0, box, floor);
}

static void testPileAuto(void) {
  hsBody *box = dynBox("det_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *a = pile(box, floor), *b = pile(box, floor);
  int diverged = -1;
  for (int i = 1; i <= 600 && diverged < 0; i++) {
    dynSteps(a, 1);
    dynSteps(b, 1);
    for (int ch = 1; ch <= 27 && diverged < 0; ch++) {
      const hsBodyState *sa = hsd_state(a, ch), *sb = hsd_state(b, ch);
      if (memcmp(sa->rootP, sb->rootP, sizeof sa->rootP) ||
          memcmp(sa->rootR, sb->rootR, sizeof sa->rootR)) {
        diverged = i;
      }
    }
  }
  CU_ASSERT_EQUAL(diverged, -1);
  hsd_freeWorld(a);
  hsd_freeWorld(b);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

static void testTorqueAuto(void) {
  run(hsSTEPPER_AUTO, 1);
}

// 1 if the 27 boxes of two piles are bit-identical
static int samePile(const hsdWorld *a, const hsdWorld *b) {
  for (int ch = 1; ch <= 27; ch++) {
    const hsBodyState *sa = hsd_state(a, ch), *sb = hsd_state(b, ch);
    if (memcmp(sa->rootP, sb->rootP, sizeof sa->rootP) ||
        memcmp(sa->rootR, sb->rootR, sizeof sa->rootR)) {
      return 0;
    }
  }
  return 1;
}

// the automatic stepper's QuickStep steps take chainIterations for an island holding an
// articulated robot (a torque-mode humanoid on the floor: 30 hinges of 5 rows and the contacts'
// 3 rows each) and quickIterations for a pile: changing the count that does not apply leaves
// the run bit-identical, changing the one that does changes it. The ODE engine's stepper and
// statistics (hsd_stepStats): on engine "ode" whatever HST_ENGINE says
static void testIterationsByIsland(void) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  hsBody *box = dynBox("det_box2.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  hsdOptions def, pileIt, chainIt;
  hsd_defaultOptions(&def);
  def.engine = hsENGINE_ODE;
  pileIt = chainIt = def;
  pileIt.quickIterations = 7;
  chainIt.chainIterations = 7;
  hsdWorld *a = sceneOn(&def, 1, 1, robot, floor), *b = sceneOn(&pileIt, 1, 1, robot, floor);
  hsdWorld *c = sceneOn(&chainIt, 1, 1, robot, floor);
  int bDiffers = 0, cDiffers = 0;
  for (int i = 1; i <= 300; i++) {
    drive(a, robot, 1, i);
    drive(b, robot, 1, i);
    drive(c, robot, 1, i);
    dynSteps(a, 1);
    dynSteps(b, 1);
    dynSteps(c, 1);
    bDiffers |= !same(a, b, robot);
    cDiffers |= !same(a, c, robot);
  }
  CU_ASSERT_FALSE(bDiffers);
  CU_ASSERT_TRUE(cDiffers);
  hsdStepStats st;
  hsd_stepStats(a, &st);
  printf(" [robot: %ld of %ld steps on QuickStep, %d rows, %d contact joints, %d bodies, joint "
         "gap %.1e m]", st.quickSteps, st.steps, st.rows, st.contactJoints, st.bodies,
         st.jointGap);
  CU_ASSERT_EQUAL(st.steps, 300);
  CU_ASSERT(st.quickSteps >= 290);  // (no contact joint, 150 rows: dWorldStep)
  CU_ASSERT(st.contactJoints >= 4);
  CU_ASSERT_EQUAL(st.rows, 30 * 5 + 3 * st.contactJoints);
  CU_ASSERT_EQUAL(st.bodies, 31);
  hsd_freeWorld(a);
  hsd_freeWorld(b);
  hsd_freeWorld(c);

  hsdWorld *p = pileOn(&def, 1, box, floor), *q = pileOn(&chainIt, 1, box, floor);
  hsdWorld *r = pileOn(&pileIt, 1, box, floor);
  int qDiffers = 0, rDiffers = 0;
  for (int i = 1; i <= 300; i++) {
    dynSteps(p, 1);
    dynSteps(q, 1);
    dynSteps(r, 1);
    qDiffers |= !samePile(p, q);
    rDiffers |= !samePile(p, r);
  }
  CU_ASSERT_FALSE(qDiffers);
  CU_ASSERT_TRUE(rDiffers);
  hsd_stepStats(p, &st);
  CU_ASSERT(st.quickSteps > 0);
  CU_ASSERT(st.rows > 150);
  CU_ASSERT_EQUAL(st.jointGap, 0);  // no hinge in a pile
  hsd_freeWorld(p);
  hsd_freeWorld(q);
  hsd_freeWorld(r);
  hsm_freeBody(box);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

void register_determinism(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_determinism");
  CU_add_test(s, "high gain, dWorldStep: bit-identical", testHighGainWorldStep);
  CU_add_test(s, "torque mode, QuickStep (random reordering): bit-identical", testTorqueQuickStep);
  CU_add_test(s, "a pile with the automatic stepper: bit-identical", testPileAuto);
  CU_add_test(s, "torque mode, automatic stepper (chainIterations): bit-identical",
              testTorqueAuto);
  CU_add_test(s, "QuickStep iterations: chainIterations for a robot, quickIterations for a pile",
              testIterationsByIsland);
}
