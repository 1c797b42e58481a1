// test_world.c - hsdWorld plumbing: characters, pairs, options, and every error path (bad
// indices, NaN, wrong order) leaving the world unchanged and usable.

#include "dyn_helpers.h"

// a world with a box character "box" (index 0) and the floor (index 1), not initialised
static hsdWorld *boxWorld(hsBody **box, hsBody **floor) {
  *box = dynBox("world_box.wrl", 1, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(*box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*floor);
  hsdWorld *w = dynWorld(NULL);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "box", *box, &err), 0);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "floor", *floor, &err), 1);
  return w;
}

static void testCharacters(void) {
  hsBody *box, *floor;
  hsdWorld *w = boxWorld(&box, &floor);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_characterCount(w), 2);
  CU_ASSERT_EQUAL(hsd_characterIndex(w, "floor"), 1);
  CU_ASSERT_EQUAL(hsd_characterIndex(w, "nobody"), -1);
  CU_ASSERT_STRING_EQUAL(hsd_characterName(w, 0), "box");
  CU_ASSERT_PTR_EQUAL(hsd_characterBody(w, 1), floor);
  CU_ASSERT_PTR_NULL(hsd_characterName(w, 2));
  // one body under two names is fine; one name twice is not
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "box2", box, &err), 2);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "box", box, &err), hsE_INVALID);
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  CU_ASSERT_EQUAL(hsd_characterCount(w), 3);
  // time step and gravity
  HST_NEAR(hsd_timeStep(w), 0.001, 0);
  double g[3];
  hsd_gravity(w, g);
  HST_NEAR(g[2], -9.8, 0);
  double g2[3] = {1, 2, -3};
  CU_ASSERT_EQUAL(hsd_setGravity(w, g2, NULL), 0);
  hsd_gravity(w, g);
  HST_NEAR(g[0], 1, 0);
  HST_NEAR(g[2], -3, 0);
  CU_ASSERT_EQUAL(hsd_setTimeStep(w, 0.002, NULL), 0);
  HST_NEAR(hsd_timeStep(w), 0.002, 0);
  hsd_freeWorld(w);
  hsd_freeWorld(NULL);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

static void testStepBeforeInit(void) {
  hsBody *box, *floor;
  hsdWorld *w = boxWorld(&box, &floor);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_step(w, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "before"));
  CU_ASSERT_EQUAL(hsd_stepCount(w), 0);
  CU_ASSERT(hsd_checkIntersections(w, 1, NULL, 0) < 0);
  CU_ASSERT_EQUAL(hsd_step(NULL, NULL), hsE_INVALID);
  // after init it runs, and characters can no longer be added
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_step(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_stepCount(w), 1);
  HST_NEAR(hsd_time(w), 0.001, 1e-15);
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "late", box, &err), hsE_INVALID);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// every bad argument is refused with an error and leaves the state as it was
static void testBadArguments(void) {
  hsBody *box, *floor;
  hsdWorld *w = boxWorld(&box, &floor);
  dynPlace(w, 0, 0, 0, 1, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 3);
  const hsBodyState *st = hsd_state(w, 0);
  double p0[3], R0[9];
  memcpy(p0, st->rootP, sizeof p0);
  memcpy(R0, st->rootR, sizeof R0);
  double nan = NAN, inf = INFINITY;
  double p[3] = {0, 0, 1}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double pn[3] = {0, nan, 1}, In[9] = {1, 0, 0, 0, 1, 0, 0, 0, inf}, Rbad[9] = {2, 0, 0, 0, 1, 0,
                                                                              0, 0, 1};
  double f[3] = {0, 0, 0}, fn[3] = {nan, 0, 0};
  hsdSurface s = {0.5, 0.5, 0, 0.01}, sn = {nan, 0.5, 0, 0.01}, sneg = {-1, 0.5, 0, 0.01};
  hsdSurface sbounce = {0.5, 0.5, 2, 0.01};
  struct {
    const char *what;
    int rc;
  } cases[] = {
      {"pose of link 7", hsd_setLinkPose(w, 0, 7, p, I, NULL)},
      {"pose of character 9", hsd_setLinkPose(w, 9, 0, p, I, NULL)},
      {"pose of character -1", hsd_setLinkPose(w, -1, 0, p, I, NULL)},
      {"NaN position", hsd_setLinkPose(w, 0, 0, pn, I, NULL)},
      {"inf rotation", hsd_setLinkPose(w, 0, 0, p, In, NULL)},
      {"non-rotation", hsd_setLinkPose(w, 0, 0, p, Rbad, NULL)},
      {"NULL pose", hsd_setLinkPose(w, 0, 0, NULL, I, NULL)},
      {"NaN velocity", hsd_setLinkVelocity(w, 0, 0, fn, f, NULL)},
      {"root joint value", hsd_setJointValue(w, 0, 0, 0.1, NULL)},
      {"joint value of link 3", hsd_setJointValue(w, 0, 3, 0.1, NULL)},
      {"NaN torque", hsd_setJointTorque(w, 0, 0, nan, NULL)},
      {"NaN external force", hsd_setExternalForce(w, 0, 0, fn, f, NULL)},
      {"external force on link 1", hsd_setExternalForce(w, 0, 1, f, f, NULL)},
      {"NULL external torque", hsd_setExternalForce(w, 0, 0, f, NULL, NULL)},
      {"mode 7", hsd_setJointMode(w, 0, 0, (hstJointMode)7, NULL)},
      {"mode of character 5", hsd_setAllJointModes(w, 5, hsMODE_TORQUE, NULL)},
      {"given of link 2", hsd_setPositionGiven(w, 0, 2, 1, NULL)},
      {"zero time step", hsd_setTimeStep(w, 0, NULL)},
      {"negative time step", hsd_setTimeStep(w, -0.001, NULL)},
      {"NaN time step", hsd_setTimeStep(w, nan, NULL)},
      {"sub-normal time step", hsd_setTimeStep(w, 5e-324, NULL)},
      {"sub-normal time step 1e-310", hsd_setTimeStep(w, 1e-310, NULL)},
      {"time step under 1e-6 s", hsd_setTimeStep(w, 9.9e-7, NULL)},
      {"time step over 1 s", hsd_setTimeStep(w, 1.0000001, NULL)},
      {"infinite time step", hsd_setTimeStep(w, INFINITY, NULL)},
      {"NaN gravity", hsd_setGravity(w, fn, NULL)},
      {"pair with character 4", hsd_addContactPair(w, 0, -1, 4, -1, &s, NULL)},
      {"pair with link 3", hsd_addContactPair(w, 0, 3, 1, -1, &s, NULL)},
      {"pair with link -2", hsd_addContactPair(w, 0, -2, 1, -1, &s, NULL)},
      {"pair without surface", hsd_addContactPair(w, 0, -1, 1, -1, NULL, NULL)},
      {"NaN friction", hsd_addContactPair(w, 0, -1, 1, -1, &sn, NULL)},
      {"negative friction", hsd_addContactPair(w, 0, -1, 1, -1, &sneg, NULL)},
      {"restitution 2", hsd_addContactPair(w, 0, -1, 1, -1, &sbounce, NULL)},
      {"intersection tolerance NaN", hsd_addIntersectionPair(w, 0, -1, 1, -1, nan, NULL)},
      {"intersection with character 3", hsd_addIntersectionPair(w, 0, -1, 3, -1, 0, NULL)},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].rc != hsE_INVALID) {
      fprintf(stderr, "\n  accepted: %s\n", cases[i].what);
      CU_FAIL("bad argument accepted");
    }
  }
  // errors carry a message
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 3, 0, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "link"));
  // queries with bad indices
  CU_ASSERT_PTR_NULL(hsd_state(w, 3));
  CU_ASSERT_PTR_NULL(hsd_linkMotion(w, 0, 1));
  int n = 5;
  CU_ASSERT_PTR_NULL(dynSensorReading(w, 0, 0, &n));
  CU_ASSERT_EQUAL(n, 0);
  // nothing changed: the box keeps falling from where it was, at the old time step
  HST_NEAR(hsd_timeStep(w), 0.001, 0);
  double g[3];
  hsd_gravity(w, g);
  HST_NEAR(g[2], -9.8, 0);
  for (int j = 0; j < 3; j++) {
    HST_NEAR(st->rootP[j], p0[j], 0);
  }
  CU_ASSERT_EQUAL(hsd_step(w, NULL), 0);
  HST_NEAR(st->rootP[0], p0[0], 0);
  CU_ASSERT(st->rootP[2] < p0[2]);
  CU_ASSERT_EQUAL(hsd_warningCount(w), 0);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

static void testBadOptions(void) {
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.erp = NAN;
  hsError err = {0};
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, &err));
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  hsd_defaultOptions(&o);
  o.maxContactsPerPair = 0;
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, NULL));
  hsd_defaultOptions(&o);
  o.stepper = (hstStepper)9;
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, NULL));
  hsd_defaultOptions(&o);
  o.highGainFMax = 0;
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, NULL));
}

// a runaway state is stopped before it can overflow, with a counted warning, and the step that
// stopped it reports it (hsE_RUNAWAY naming the character); the world stays usable
static void testNonFiniteRecovers(void) {
  hsBody *pend = dynLoadText(
      "overflow.wrl",
      "DEF P Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      " DEF ARM Joint { jointType \"rotate\" jointId 0 jointAxis 0 1 0 children [\n"
      "  Segment { mass 1 centerOfMass 0 0 -0.5 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01] }\n"
      " ] } ] } ] joints [ USE BASE USE ARM ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(pend);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "p", pend, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_runaway(w), -1);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 1e308, NULL), hsE_INVALID);  // can only overflow
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 1e12, NULL), 0);  // 4e9 rad/s per step: runaway
  hst_expectLog(1);
  int runaways = 0, first = 0;
  for (int i = 0; i < 3; i++) {
    hsError err = {0};
    int rc = hsd_step(w, &err);
    CU_ASSERT(rc == 0 || rc == hsE_RUNAWAY);
    if (rc == hsE_RUNAWAY) {
      runaways++;
      first = first ? first : i + 1;
      CU_ASSERT_EQUAL(hsd_runaway(w), 0);
      CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "character p ran away"));
    }
  }
  CU_ASSERT(runaways >= 1);
  CU_ASSERT_EQUAL(first, 1);  // 4e6 rad/s after one step: over the speed bound at once
  CU_ASSERT_EQUAL(hsd_stepCount(w), 3);  // each step was made all the same
  CU_ASSERT(hsd_warningCount(w) >= 1);
  CU_ASSERT_EQUAL(hst_logCount(), 1);  // logged once, counted every time
  const hsBodyState *st = hsd_state(w, 0);
  CU_ASSERT(isfinite(st->q[1]));
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 0, NULL), 0);
  int before = hsd_warningCount(w);
  dynSteps(w, 10);  // at rest where it was stopped: no more runaways
  CU_ASSERT_EQUAL(hsd_warningCount(w), before);
  CU_ASSERT_EQUAL(hsd_runaway(w), -1);
  CU_ASSERT(isfinite(st->q[1]) && isfinite(st->dq[1]));
  CU_ASSERT(fabs(st->dq[1]) < 1e8);
  hsd_freeWorld(w);
  hsm_freeBody(pend);
}

// a sub-normal mass (1/m infinite) is treated as no mass: bounded with one warning, the body
// falls with finite numbers
static void testSubnormalMass(void) {
  hsBody *b = dynLoadText(
      "tiny.wrl",
      "DEF T Humanoid { humanoidBody [ DEF ROOT Joint { jointType \"free\" children [\n"
      "  Segment { mass 1e-320 momentsOfInertia [0.001 0 0 0 0.001 0 0 0 0.001] }\n"
      " ] } ] joints [ USE ROOT ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "t", b, NULL), 0);
  hst_expectLog(1);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(hst_lastLog(), "moving link 'ROOT' (segments none) has no mass"));
  hst_expectLog(0);
  dynSteps(w, 10);
  const hsBodyState *st = hsd_state(w, 0);
  CU_ASSERT(isfinite(st->rootP[2]));
  CU_ASSERT(st->rootP[2] < 0);  // it fell
  CU_ASSERT_EQUAL(hsd_runaway(w), -1);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// the contact buffer overflows into a counted warning, not a crash
static void testContactOverflow(void) {
  hsBody *box = dynBox("ovf_box.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.maxContacts = 2;
  hsdWorld *w = dynWorld(&o);
  hsd_addCharacter(w, "box", box, NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  dynPlace(w, 0, 0, 0, 0.099, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  hst_expectLog(1);
  dynSteps(w, 5);
  int n;
  hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 2);
  CU_ASSERT(hsd_warningCount(w) >= 5);
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// intersection checks on registered pairs, at the current poses
static void testIntersections(void) {
  hsBody *box, *floor;
  hsdWorld *w = boxWorld(&box, &floor);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addIntersectionPair(w, 0, 0, 1, 0, 0, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  dynPlace(w, 0, 0, 0, 1, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  int hits[4];
  CU_ASSERT_EQUAL(hsd_checkIntersections(w, 1, hits, 4), 0);
  CU_ASSERT_EQUAL(hsd_checkIntersections(w, 1, NULL, 0), 0);
  // teleport the box into the floor: both pairs hit (intersection pairs after contact pairs)
  dynPlace(w, 0, 0, 0, 0.02, NULL);
  CU_ASSERT_EQUAL(hsd_checkIntersections(w, 1, hits, 4), 2);
  CU_ASSERT_EQUAL(hits[0], 0);
  CU_ASSERT_EQUAL(hits[1], 1);
  CU_ASSERT_EQUAL(hsd_checkIntersections(w, 0, hits, 4), 1);
  CU_ASSERT_EQUAL(hsd_checkIntersections(w, 1, NULL, 0), 1);
  const hsBodyState *st = hsd_state(w, 0);
  HST_NEAR(st->linkP[2], 0.02, 1e-12);  // the teleport applied through FK
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// intersection pairs honour their tolerance; distances of every link pair (contact pairs
// first); the contact normal points from link[1] towards link[0] whichever way a pair is given
// (collision/ gives it from side 0 into side 1: the seam turns it over)
static void testToleranceDistanceNormals(void) {
  hsBody *box, *floor;
  hsdWorld *w = boxWorld(&box, &floor);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);       // box, floor
  CU_ASSERT_EQUAL(hsd_addIntersectionPair(w, 1, 0, 0, 0, 0.01, NULL), 0);  // floor, box
  CU_ASSERT_EQUAL(hsd_addIntersectionPair(w, 0, 0, 1, 0, 0.05, NULL), 0);  // box, floor
  // the box's bottom 3 cm above the floor's top (z = 0)
  dynPlace(w, 0, 0, 0, 0.05 + 0.03, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  int hits[4];
  CU_ASSERT_EQUAL(hsd_checkIntersections(w, 1, hits, 4), 1);
  CU_ASSERT_EQUAL(hits[0], 2);  // only the 5 cm pair
  hsdLinkHit lh[4];
  CU_ASSERT_EQUAL_FATAL(hsd_intersectingLinks(w, 1, lh, 4), 1);
  CU_ASSERT_EQUAL(lh[0].pair, 2);
  CU_ASSERT_EQUAL(lh[0].ch[0], 0);
  CU_ASSERT_EQUAL(lh[0].link[1], 0);
  HST_NEAR(lh[0].tolerance, 0.05, 0);
  hsdDistance d[4];
  CU_ASSERT_EQUAL_FATAL(hsd_checkDistances(w, d, 4), 3);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(d[i].pair, i);
    CU_ASSERT_EQUAL(d[i].empty, 0);
    HST_NEAR(d[i].d, 0.03, 1e-7);  // float32 shape sizes
    // p0 on link[0]: the box's bottom for pairs 0 and 2, the floor's top for pair 1
    HST_NEAR(d[i].p0[2], i == 1 ? 0 : 0.03, 1e-7);
    HST_NEAR(d[i].p1[2], i == 1 ? 0.03 : 0, 1e-7);
  }
  // resting: the floor pushes the box up, the normal from link[1] (floor) towards link[0] (box)
  dynPlace(w, 0, 0, 0, 0.05 - 1e-4, NULL);
  dynSteps(w, 1);
  int n;
  const hsdContact *c = hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 4);
  for (int i = 0; i < n; i++) {
    CU_ASSERT_EQUAL(c[i].ch[0], 0);
    HST_NEAR(c[i].n[2], 1, 1e-12);
    CU_ASSERT(c[i].force[2] > 0);  // on link[0], the box: up
  }
  hsd_freeWorld(w);
  // the pair given the other way round: the normal turns with it, the force too
  w = dynWorld(NULL);
  hsd_addCharacter(w, "box", box, NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 1, -1, 0, -1, &s, NULL), 0);  // floor, box
  dynPlace(w, 0, 0, 0, 0.05 - 1e-4, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  dynSteps(w, 1);
  c = hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 4);
  for (int i = 0; i < n; i++) {
    CU_ASSERT_EQUAL(c[i].ch[0], 1);
    HST_NEAR(c[i].n[2], -1, 1e-12);
    CU_ASSERT(c[i].force[2] < 0);  // on link[0], the floor: down
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// self pairs expand to every link pair except a link with itself or its parent
static void testSelfPairs(void) {
  hsBody *h = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "h", h, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 0, -1, &s, NULL), 0);
  // standing at q = 0 nothing but neighbours touch: no self contact
  CU_ASSERT_EQUAL(hsd_setAllJointModes(w, 0, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setPositionGiven(w, 0, 0, 1, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  dynSteps(w, 2);
  int n;
  hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 0);
  hsd_freeWorld(w);
  hsm_freeBody(h);
}

// every allocation failure while making a world, adding characters and pairs and building the
// ODE objects is an hsE_NOMEM error, never a crash or a leak (valgrind/ASan runs check leaks)
static void testAllocationFailures(void) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  int succeeded = 0;
  for (long n = 1; n < 1000 && !succeeded; n++) {
    hsError err = {0};
    hsu_failAllocAfter(n);
    hsdSurface s = {0.5, 0.5, 0, 0.01};
    hsdWorld *w = hsd_makeWorld(NULL, &err);
    int ok = w && hsd_addCharacter(w, "floor", floor, &err) == 0 &&
             hsd_addCharacter(w, "robot", robot, &err) == 1 &&
             hsd_addContactPair(w, 1, -1, 0, -1, &s, &err) == 0 &&
             hsd_addContactPair(w, 1, -1, 1, -1, &s, &err) == 0 && hsd_init(w, &err) == 0;
    hsu_failAllocAfter(0);
    if (!ok) {
      CU_ASSERT_EQUAL(err.code, hsE_NOMEM);
    } else {
      succeeded = 1;
      dynSteps(w, 10);
    }
    hsd_freeWorld(w);
  }
  CU_ASSERT(succeeded);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// hsd_init again restarts from the current state: time and step count from zero, the box where
// it had fallen to, still falling with its velocity
static void testReinit(void) {
  hsBody *box, *floor;
  hsdWorld *w = boxWorld(&box, &floor);
  dynPlace(w, 0, 0, 0, 5, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 100);
  const hsBodyState *st = hsd_state(w, 0);
  double z = st->rootP[2], vz = hsd_linkMotion(w, 0, 0)->v[2];
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  CU_ASSERT_EQUAL(hsd_stepCount(w), 0);
  HST_NEAR(hsd_time(w), 0, 0);
  HST_NEAR(st->rootP[2], z, 1e-12);
  dynSteps(w, 1);
  HST_NEAR(hsd_linkMotion(w, 0, 0)->v[2], vz - 9.8 * 0.001, 1e-9);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

void register_world(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_world");
  CU_add_test(s, "characters, time step, gravity", testCharacters);
  CU_add_test(s, "step before init is an error", testStepBeforeInit);
  CU_add_test(s, "bad arguments leave the world unchanged", testBadArguments);
  CU_add_test(s, "bad options", testBadOptions);
  CU_add_test(s, "a runaway is stopped and reported by its step", testNonFiniteRecovers);
  CU_add_test(s, "a sub-normal mass is no mass", testSubnormalMass);
  CU_add_test(s, "contact buffer overflow is a counted warning", testContactOverflow);
  CU_add_test(s, "intersection checks", testIntersections);
  CU_add_test(s, "intersection tolerance, distances, contact normals",
              testToleranceDistanceNormals);
  CU_add_test(s, "self-collision pairs", testSelfPairs);
  CU_add_test(s, "allocation failures are errors", testAllocationFailures);
  CU_add_test(s, "hsd_init again restarts from the current state", testReinit);
}
