// test_core.c - the simulation core (core.h) through its public functions only: periods and
// times in whole steps, the clock, a pendulum's period and a free fall against closed forms,
// refusals before and after start, names and their messages, link data checked before
// anything changes, sensors (order, zeros while disabled, a force sensor holding a weight),
// contacts of a resting box, views that keep their address, owned bodies, and a body
// loaded with its texture images.

#include <CUnit/CUnit.h>

#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "core_models.h"
#include "dynamics.h"
#include "model.h"
#include "openhrp_fixtures.h"
#include "render.h"
#include "test_support.h"

static void testPeriods(void) {
  // a period is a whole number of steps to 1e-9 of itself, whatever the rounding of the ratio
  CU_ASSERT_EQUAL(hs_periodSteps(0.005, 0.001), 5);
  CU_ASSERT_EQUAL(hs_periodSteps(0.003, 0.001), 3);  // 0.003 / 0.001 = 2.9999999999999996
  CU_ASSERT_EQUAL(hs_periodSteps(0.001, 0.001), 1);
  CU_ASSERT_EQUAL(hs_periodSteps(0.0015, 0.001), 0);
  CU_ASSERT_EQUAL(hs_periodSteps(0.005 * (1 + 1e-8), 0.001), 0);
  // relative: a period off by 1e-10 s is refused at 1 us steps (an absolute 1e-9 would not)
  CU_ASSERT_EQUAL(hs_periodSteps(3e-6 + 1e-10, 1e-6), 0);
  CU_ASSERT_EQUAL(hs_periodSteps(3e-6, 1e-6), 3);
  CU_ASSERT_EQUAL(hs_periodSteps(0.0004, 0.001), 0);
  CU_ASSERT_EQUAL(hs_periodSteps(0.0, 0.001), 0);
  CU_ASSERT_EQUAL(hs_periodSteps(NAN, 0.001), 0);
  CU_ASSERT_EQUAL(hs_periodSteps(0.01, 0.0), 0);
  CU_ASSERT_EQUAL(hs_periodSteps(1e300, 0.001), 0);
  // a time is reached at the first step that gets there (1e-9 steps of slack)
  CU_ASSERT_EQUAL(hs_stepsToReach(0.01, 0.001), 10);
  CU_ASSERT_EQUAL(hs_stepsToReach(0.0105, 0.001), 11);
  CU_ASSERT_EQUAL(hs_stepsToReach(0.7, 0.001), 700);  // 0.7 / 0.001 = 699.9999999999999
  CU_ASSERT_EQUAL(hs_stepsToReach(0.0, 0.001), 0);
  CU_ASSERT_EQUAL(hs_stepsToReach(-1.0, 0.001), 0);
  CU_ASSERT_EQUAL(hs_stepsToReach(1e300, 0.001), LLONG_MAX);
  CU_ASSERT_EQUAL(hs_stepsToReach(INFINITY, 0.001), LLONG_MAX);
  // the bounds of the time step
  CU_ASSERT_EQUAL(hs_minTimeStep(), 1e-6);
  CU_ASSERT_EQUAL(hs_maxTimeStep(), 1.0);
}

// the call order: what needs a start is refused before it, set-up is refused after it
static void testOrder(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  hsBody *box = hst_loadVrmlText("core_order_box.wrl", kBox);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_EQUAL(hs_addCharacter(sim, "box", box, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_addCharacter(sim, "box2", box, 0, fresh(&err)), 1);  // one body, two names
  CU_ASSERT_EQUAL(hs_addCharacter(sim, "box", box, 0, fresh(&err)), hsE_INVALID);
  CU_ASSERT(strstr(err.message, "already registered") != NULL);
  // the check of the name alone (a door's, before it reads a body) says the same
  char added[sizeof err.message];
  snprintf(added, sizeof added, "%s", err.message);
  CU_ASSERT_EQUAL(hs_checkCharacterName(sim, "box", fresh(&err)), hsE_INVALID);
  CU_ASSERT_STRING_EQUAL(err.message, added);
  CU_ASSERT_EQUAL(hs_checkCharacterName(sim, "", fresh(&err)), hsE_INVALID);
  CU_ASSERT_STRING_EQUAL(err.message, "empty character name");
  CU_ASSERT_EQUAL(hs_checkCharacterName(sim, "box3", fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_characterCount(sim), 2);  // nothing added by a check
  CU_ASSERT_EQUAL(hs_addCharacter(sim, "", box, 0, fresh(&err)), hsE_INVALID);
  CU_ASSERT_FALSE(hs_started(sim));
  CU_ASSERT_EQUAL(hs_step(sim, fresh(&err)), hsE_ORDER);
  CU_ASSERT(strstr(err.message, "not initialised") != NULL);
  int n = 7;
  CU_ASSERT_PTR_NULL(hs_distances(sim, &n, fresh(&err)));
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_EQUAL(err.code, hsE_ORDER);
  CU_ASSERT_EQUAL(hs_steps(sim), 0);
  CU_ASSERT_EQUAL(hs_start(sim, fresh(&err)), 0);
  CU_ASSERT_TRUE(hs_started(sim));
  // after the start: no more characters, pairs or extra joints
  hsBody *late = hst_loadVrmlText("core_order_late.wrl", kBox);
  CU_ASSERT_EQUAL(hs_addCharacter(sim, "late", late, 1, fresh(&err)), hsE_ORDER);  // freed
  CU_ASSERT_EQUAL(hs_addContactPair(sim, "box", "", "box2", "", 0.5, 0.5, 0, 0.01, fresh(&err)),
                  hsE_ORDER);
  CU_ASSERT_EQUAL(hs_addIntersectionPair(sim, "box", "", "box2", "", 0, fresh(&err)), hsE_ORDER);
  double zero[3] = {0, 0, 0}, x[3] = {1, 0, 0};
  CU_ASSERT_EQUAL(hs_addExtraJoint(sim, "j", "box", "BOX", "box2", "BOX", zero, zero, 0, x,
                                   fresh(&err)),
                  hsE_ORDER);
  CU_ASSERT_EQUAL(hs_characterCount(sim), 2);
  CU_ASSERT_EQUAL(hs_step(sim, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_steps(sim), 1);
  // a restart counts again from zero
  CU_ASSERT_EQUAL(hs_start(sim, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_steps(sim), 0);
  CU_ASSERT_EQUAL(hs_time(sim), 0.0);
  hs_freeSim(sim);
  hs_freeSim(NULL);
}

// names: look-ups and the messages that list what there is
static void testNames(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  hsBody *robot = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "robot", robot, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_character(sim, "robot", fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_character(sim, "nobody", fresh(&err)), -1);
  CU_ASSERT_STRING_EQUAL(err.message, "unknown character 'nobody' (registered: 'robot')");
  CU_ASSERT_EQUAL(hs_link(sim, 0, "NO_SUCH_LINK", fresh(&err)), -1);
  CU_ASSERT_STRING_EQUAL(err.message, "character 'robot' has no link 'NO_SUCH_LINK'");
  CU_ASSERT_EQUAL(hs_link(sim, 0, "", fresh(&err)), -1);
  int elbow = hs_link(sim, 0, "RARM_ELBOW", fresh(&err));
  CU_ASSERT_EQUAL(elbow, hsm_linkIndex(robot, "RARM_ELBOW"));
  CU_ASSERT_STRING_EQUAL(hs_linkName(sim, 0, elbow), "RARM_ELBOW");
  CU_ASSERT_TRUE(hs_hasJoint(sim, 0, elbow));
  CU_ASSERT_FALSE(hs_hasJoint(sim, 0, 0));
  CU_ASSERT_STRING_EQUAL(hs_jointType(sim, 0, 0), "free");  // the humanoid's root
  CU_ASSERT_STRING_EQUAL(hs_jointType(sim, 0, elbow), "rotate");
  CU_ASSERT_PTR_NULL(hs_jointType(sim, 0, robot->nlink));
  CU_ASSERT_PTR_NULL(hs_jointType(sim, 1, 0));
  CU_ASSERT_EQUAL(hs_jointLinks(sim, 0)[robot->links[elbow].jointId], elbow);
  CU_ASSERT_EQUAL(hs_sensor(sim, 0, "nosensor", fresh(&err)), -1);
  CU_ASSERT_PTR_EQUAL(hs_body(sim, 0), robot);
  CU_ASSERT_STRING_EQUAL(hs_characterName(sim, 0), "robot");
  CU_ASSERT_PTR_NULL(hs_characterName(sim, 1));
  // every sensor of a type, in sensorId order; the types' table
  for (int t = 0; t < HS_SENSOR_TYPES; t++) {
    int n = 0;
    const int *list = hs_sensorsOfType(sim, 0, t, &n);
    CU_ASSERT_EQUAL(n, hsm_sensorCount(robot, (hstSensor)t));
    for (int i = 0; i < n; i++) {
      CU_ASSERT_EQUAL(hs_sensorType(sim, 0, list[i]), t);
      CU_ASSERT_EQUAL(hs_sensorId(sim, 0, list[i]), i);
    }
  }
  CU_ASSERT_STRING_EQUAL(hs_sensorTypeName(hsSENSOR_FORCE), "Force");
  CU_ASSERT_STRING_EQUAL(hs_sensorTypeName(hsSENSOR_RANGE), "Range");
  CU_ASSERT_EQUAL(hs_sensorTypeSize(hsSENSOR_FORCE), 6);
  CU_ASSERT_EQUAL(hs_sensorTypeSize(hsSENSOR_ACCELERATION), 3);
  CU_ASSERT_EQUAL(hs_sensorTypeSize(hsSENSOR_RANGE), -1);
  CU_ASSERT_EQUAL(hs_sensorTypeOrder(hsSENSOR_RANGE), 3);
  CU_ASSERT_EQUAL(hs_sensorTypeOrder(hsSENSOR_VISION), -1);
  CU_ASSERT_PTR_NULL(hs_sensorTypeName(HS_SENSOR_TYPES));
  CU_ASSERT_STRING_EQUAL(hs_sensorTypeKey(hsSENSOR_RATEGYRO), "gyro");
  CU_ASSERT_TRUE(hs_sensorTypeNoisy(hsSENSOR_RANGE));
  CU_ASSERT_FALSE(hs_sensorTypeNoisy(hsSENSOR_VISION));
  CU_ASSERT_EQUAL(HS_SENSOR_TYPES, hsSENSOR_NTYPES);
  hs_freeSim(sim);
}

// the facts the doors ask of the core: extra-joint types (model.h's order, the VRML words), the
// images of OpenHRP's camera types, the runaway bounds and the one wording of a runaway
static void testFacts(void) {
  CU_ASSERT_STRING_EQUAL(hs_extraJointTypeName(hsEXTRA_XYZ), "xyz");
  CU_ASSERT_STRING_EQUAL(hs_extraJointTypeName(hsEXTRA_XY), "xy");
  CU_ASSERT_STRING_EQUAL(hs_extraJointTypeName(hsEXTRA_Z), "z");
  CU_ASSERT_PTR_NULL(hs_extraJointTypeName(hsEXTRA_NTYPES));
  CU_ASSERT_PTR_NULL(hs_extraJointTypeName(-1));
  hstExtraJoint t = hsEXTRA_NTYPES;
  CU_ASSERT_EQUAL(hsm_parseExtraJointType("xy", &t), 0);
  CU_ASSERT_EQUAL(t, hsEXTRA_XY);
  CU_ASSERT_EQUAL(hsm_parseExtraJointType("piston", &t), -1);
  CU_ASSERT_EQUAL(hs_cameraImages(hsCAMERA_NONE), 0);
  CU_ASSERT_EQUAL(hs_cameraImages(hsCAMERA_COLOR), hsIMAGE_COLOR);
  CU_ASSERT_EQUAL(hs_cameraImages(hsCAMERA_MONO), hsIMAGE_MONO);
  CU_ASSERT_EQUAL(hs_cameraImages(hsCAMERA_DEPTH), hsIMAGE_DEPTH);
  CU_ASSERT_EQUAL(hs_cameraImages(hsCAMERA_COLOR_DEPTH), hsIMAGE_COLOR | hsIMAGE_DEPTH);
  CU_ASSERT_EQUAL(hs_cameraImages(hsCAMERA_MONO_DEPTH), hsIMAGE_MONO | hsIMAGE_DEPTH);
  CU_ASSERT_EQUAL(hs_cameraImages(6), 0);
  CU_ASSERT_EQUAL(hs_runawayMaxPosition(), 1e9);
  CU_ASSERT_EQUAL(hs_runawayMaxSpeed(), 1e8);
  char text[512], small[12];
  int n = hs_runawayMessage(text, (int)sizeof text, "robot", "after", 12);
  CU_ASSERT_EQUAL(n, (int)strlen(text));
  CU_ASSERT(strncmp(text, "character robot ran away after step 12: ", 40) == 0);
  CU_ASSERT(strstr(text, "(|position| <= 1e+09 m, |velocity| <= 1e+08 m/s and rad/s)") != NULL);
  CU_ASSERT_EQUAL(hs_runawayMessage(small, (int)sizeof small, "robot", NULL, 3), n - 4);
  CU_ASSERT_STRING_EQUAL(small, "character r");  // truncated, terminated
  CU_ASSERT_EQUAL(hs_runawayMessage(NULL, 0, "robot", "after", 12), n);
  hs_runawayMessage(text, (int)sizeof text, NULL, NULL, 3);
  CU_ASSERT(strncmp(text, "character ? ran away by step 3: ", 32) == 0);
}

// the clock is the world's: steps counted, time accumulated as time += dt; the time step's
// bounds refused; a free fall against semi-implicit Euler's closed form
static void testClockAndFreeFall(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  hsBody *box = hst_loadVrmlText("core_fall_box.wrl", kBox);
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "box", box, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_setTimeStep(sim, 0.0, fresh(&err)), hsE_INVALID);
  CU_ASSERT(strstr(err.message, "time step") != NULL);
  CU_ASSERT_EQUAL(hs_setTimeStep(sim, 2.0, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_setTimeStep(sim, 0.002, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_timeStep(sim), 0.002);
  double pose[12] = {0, 0, 10, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, 0, hsDATA_ABS_TRANSFORM, pose, 12, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_start(sim, fresh(&err)), 0);
  const double *p = hs_linkP(sim, 0);
  CU_ASSERT_EQUAL(p[2], 10.0);
  double t = 0.0;
  int n = 50;
  CU_ASSERT_EQUAL(hs_stepN(sim, n - 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_step(sim, fresh(&err)), 0);
  for (int i = 0; i < n; i++) {
    t += 0.002;
  }
  CU_ASSERT_EQUAL(hs_steps(sim), n);
  CU_ASSERT_EQUAL(hs_time(sim), t);  // the same additions, bit for bit
  // v_k = -g k dt, z_n = z_0 - g dt^2 n (n + 1) / 2; the view is the same array, updated
  CU_ASSERT_PTR_EQUAL(hs_linkP(sim, 0), p);
  HST_NEAR(p[2], 10.0 - 9.8 * 0.002 * 0.002 * n * (n + 1) / 2.0, 1e-9);
  double v[6];
  CU_ASSERT_EQUAL(hs_getLinkData(sim, 0, 0, hsDATA_ABS_VELOCITY, v, 6, fresh(&err)), 6);
  HST_NEAR(v[2], -9.8 * 0.002 * n, 1e-9);
  // gravity's sign: the acceleration
  double g[3];
  hs_gravity(sim, g);
  CU_ASSERT(g[0] == 0.0 && g[1] == 0.0 && g[2] == -9.8);
  hs_freeSim(sim);
}

// EXTERNAL_FORCE written before each of n steps (how a held push reaches the core): the 1 kg
// box, weightless, gains F n dt / m, and a force off the centre (its torque about the link
// origin) spins it by (r x F) n dt / I. Written once, it acts in one step only.
static void testExternalForceHeld(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(sim, "box", hst_loadVrmlText("core_push_box.wrl", kBox), 1, fresh(&err)),
      0);
  const double zero[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hs_setGravity(sim, zero, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_start(sim, fresh(&err)), 0);
  const double dt = 0.001, m = 1.0, inertia = 0.0016667;
  const int n = 250;
  // a force of (3, -2, 5) N at r = (0, 0.05, 0) from the link origin: torque r x F
  const double f[3] = {3.0, -2.0, 5.0}, r[3] = {0.0, 0.05, 0.0};
  double w[6] = {f[0], f[1], f[2], r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2],
                 r[0] * f[1] - r[1] * f[0]};
  for (int k = 0; k < n; k++) {
    CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, 0, hsDATA_EXTERNAL_FORCE, w, 6, fresh(&err)), 0);
    CU_ASSERT_EQUAL(hs_step(sim, fresh(&err)), 0);
  }
  double v[6];
  CU_ASSERT_EQUAL(hs_getLinkData(sim, 0, 0, hsDATA_ABS_VELOCITY, v, 6, fresh(&err)), 6);
  // the cube's inertia is the same about every axis through its centre (the link origin), so
  // turning changes neither the inertia in the world frame nor the torque: both are exact
  for (int i = 0; i < 3; i++) {
    HST_NEAR(v[i], f[i] * n * dt / m, 1e-12);
    HST_NEAR(v[3 + i], w[3 + i] * n * dt / inertia, 1e-9);
  }
  // the force is gone after its step: reads zero, no further change
  double pending[6];
  CU_ASSERT_EQUAL(hs_getLinkData(sim, 0, 0, hsDATA_EXTERNAL_FORCE, pending, 6, fresh(&err)), 6);
  for (int i = 0; i < 6; i++) {
    CU_ASSERT_EQUAL(pending[i], 0.0);
  }
  CU_ASSERT_EQUAL(hs_stepN(sim, 10, fresh(&err)), 0);
  double v2[6];
  hs_getLinkData(sim, 0, 0, hsDATA_ABS_VELOCITY, v2, 6, fresh(&err));
  for (int i = 0; i < 3; i++) {
    HST_NEAR(v2[i], v[i], 1e-12);
  }
  hs_freeSim(sim);
}

// a pendulum swinging 0.05 rad: its period is 2 pi sqrt(I / (m g d)) (I about the axis), with
// the amplitude's correction 1 + theta^2 / 16
static void testPendulumPeriod(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  hsBody *pend = hst_loadVrmlText("core_pendulum.wrl", kPendulum);
  CU_ASSERT_PTR_NOT_NULL_FATAL(pend);
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "p", pend, 1, fresh(&err)), 0);
  int l1 = hs_link(sim, 0, "L1", fresh(&err));
  double q0 = 0.05, dt = 1e-4;
  CU_ASSERT_EQUAL(hs_setTimeStep(sim, dt, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, l1, hsDATA_JOINT_VALUE, &q0, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_start(sim, fresh(&err)), 0);
  const double *q = hs_q(sim, 0);
  // downward zero crossings of q, interpolated linearly
  double crossings[3];
  int found = 0;
  double last = q[l1];
  for (int k = 1; k <= 40000 && found < 3; k++) {
    CU_ASSERT_EQUAL_FATAL(hs_step(sim, fresh(&err)), 0);
    if (last > 0.0 && q[l1] <= 0.0) {
      crossings[found++] = (k - 1 + last / (last - q[l1])) * dt;
    }
    last = q[l1];
  }
  CU_ASSERT_EQUAL_FATAL(found, 3);
  double I = 0.01 + 1.0 * 0.5 * 0.5, expected = 2 * HS_PI * sqrt(I / (1.0 * 9.8 * 0.5));
  expected *= 1.0 + q0 * q0 / 16.0;
  HST_NEAR((crossings[2] - crossings[0]) / 2.0, expected, 1e-3 * expected);
  hs_freeSim(sim);
}

// the core steps the joint-space engine when its options say so (hs_makeSimWith): the same
// pendulum's period at 1 ms within semi-implicit Euler's w^2 dt^2 / 24 (5e-7) and the
// amplitude's q0^2 / 16 of the closed form (1e-5 relative); hs_q reads the engine's state
static void testJointSpaceEngine(void) {
  hsError err = {0};
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_JOINT_SPACE;
  hsSim *sim = hs_makeSimWith(&opt, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  hsBody *pend = hst_loadVrmlText("core_js_pendulum.wrl", kPendulum);
  CU_ASSERT_PTR_NOT_NULL_FATAL(pend);
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "p", pend, 1, fresh(&err)), 0);
  int l1 = hs_link(sim, 0, "L1", fresh(&err));
  double q0 = 0.05, dt = 1e-3;
  CU_ASSERT_EQUAL(hs_setTimeStep(sim, dt, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, l1, hsDATA_JOINT_VALUE, &q0, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL_FATAL(hs_start(sim, fresh(&err)), 0);
  const double *q = hs_q(sim, 0);
  double crossings[3], last = q[l1];
  int found = 0;
  for (int k = 1; k <= 4000 && found < 3; k++) {
    CU_ASSERT_EQUAL_FATAL(hs_step(sim, fresh(&err)), 0);
    if (last > 0.0 && q[l1] <= 0.0) {
      crossings[found++] = (k - 1 + last / (last - q[l1])) * dt;
    }
    last = q[l1];
  }
  CU_ASSERT_EQUAL_FATAL(found, 3);
  double I = 0.01 + 1.0 * 0.5 * 0.5, expected = 2 * HS_PI * sqrt(I / (1.0 * 9.8 * 0.5));
  expected *= 1.0 + q0 * q0 / 16.0;
  double T = (crossings[2] - crossings[0]) / 2.0;
  fprintf(stderr, " [period %.7f s, closed form %.7f s] ", T, expected);
  HST_NEAR(T, expected, 1e-5 * expected);
  hs_freeSim(sim);
}

// link data: checked before anything changes; all-link data in jointId order; per-link bulk
static void testLinkData(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  hsBody *robot = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "robot", robot, 1, fresh(&err)), 0);
  int elbow = hs_link(sim, 0, "RARM_ELBOW", fresh(&err));
  double d[2] = {0.1, 0.2};
  CU_ASSERT(hs_setLinkData(sim, 0, elbow, hsDATA_JOINT_VALUE, d, 2, fresh(&err)) < 0);
  CU_ASSERT(strstr(err.message, "needs 1 numbers, got 2") != NULL);
  d[0] = NAN;
  CU_ASSERT(hs_setLinkData(sim, 0, elbow, hsDATA_JOINT_VALUE, d, 1, fresh(&err)) < 0);
  d[0] = -0.5;
  CU_ASSERT(hs_setLinkData(sim, 0, elbow, hsDATA_ABS_ACCELERATION, d, 1, fresh(&err)) < 0);
  CU_ASSERT(strstr(err.message, "ABS_ACCELERATION cannot be set") != NULL);
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, elbow, hsDATA_JOINT_VALUE, d, 1, fresh(&err)), 0);
  double all[64];
  int nj = hs_jointIdCount(sim, 0);
  CU_ASSERT_EQUAL_FATAL(hs_getAllLinkData(sim, 0, hsDATA_JOINT_VALUE, all, 64, fresh(&err)), nj);
  CU_ASSERT_EQUAL(all[robot->links[elbow].jointId], -0.5);
  CU_ASSERT_EQUAL(hs_q(sim, 0)[elbow], -0.5);
  // a NaN anywhere in the all-link data: nothing written
  for (int j = 0; j < nj; j++) {
    all[j] = 0.25;
  }
  all[nj - 1] = NAN;
  CU_ASSERT(hs_setAllLinkData(sim, 0, hsDATA_JOINT_VALUE, all, nj, fresh(&err)) < 0);
  CU_ASSERT_EQUAL(hs_q(sim, 0)[elbow], -0.5);
  CU_ASSERT(hs_getAllLinkData(sim, 0, hsDATA_CONSTRAINT_FORCE, all, 64, fresh(&err)) < 0);
  CU_ASSERT(strstr(err.message, "link by link") != NULL);
  // per link: joints only, the root's entry ignored
  int nl = hs_linkCount(sim, 0);
  double u[64];
  for (int l = 0; l < nl; l++) {
    u[l] = 0.125 * l;
  }
  CU_ASSERT_EQUAL(hs_setJointTorquesByLink(sim, 0, u, nl, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_torqueCommands(sim, 0)[elbow], 0.125 * elbow);
  CU_ASSERT(hs_setJointTorquesByLink(sim, 0, u, nl - 1, fresh(&err)) < 0);
  CU_ASSERT_EQUAL(hs_linkDataSize(hsDATA_ABS_TRANSFORM), 12);
  CU_ASSERT_STRING_EQUAL(hs_linkDataName(hsDATA_EXTERNAL_FORCE), "EXTERNAL_FORCE");
  hs_freeSim(sim);
}

// the q of every link of character 0 equal to want[] (bit for bit)
static int sameQ(const hsSim *sim, const double *want, int n) {
  return memcmp(hs_q(sim, 0), want, (size_t)n * sizeof *want) == 0;
}

// a value the dynamics refuses (1e13: beyond +-1e12) in the last joint of a whole-body request
// (all-link data, per-link values and torques, before and after start): the request is
// refused, the message names the joint, and the state (q, torque commands) is what it was:
// nothing of the request was applied
static void testHugeValueRefusedWhole(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  hsBody *robot = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "robot", robot, 1, fresh(&err)), 0);
  int nj = hs_jointIdCount(sim, 0), nl = hs_linkCount(sim, 0);
  CU_ASSERT_FATAL(nj <= 64 && nl <= 64);
  int lastLink = hs_jointLinks(sim, 0)[nj - 1];
  const char *last = hs_linkName(sim, 0, lastLink);
  for (int started = 0; started < 2; started++) {
    if (started) {
      CU_ASSERT_EQUAL_FATAL(hs_start(sim, fresh(&err)), 0);
    }
    double q0[64], u0[64], all[64], per[64];
    memcpy(q0, hs_q(sim, 0), (size_t)nl * sizeof *q0);
    memcpy(u0, hs_torqueCommands(sim, 0), (size_t)nl * sizeof *u0);
    for (int j = 0; j < nj; j++) {
      all[j] = 0.25;
    }
    all[nj - 1] = 1e13;
    CU_ASSERT(hs_checkAllLinkData(sim, 0, hsDATA_JOINT_VALUE, all, nj, fresh(&err)) < 0);
    CU_ASSERT(hs_setAllLinkData(sim, 0, hsDATA_JOINT_VALUE, all, nj, fresh(&err)) < 0);
    CU_ASSERT(strstr(err.message, last) != NULL);
    CU_ASSERT(strstr(err.message, "1e+13") != NULL);
    CU_ASSERT(sameQ(sim, q0, nl));
    CU_ASSERT(hs_setAllLinkData(sim, 0, hsDATA_JOINT_TORQUE, all, nj, fresh(&err)) < 0);
    CU_ASSERT(memcmp(hs_torqueCommands(sim, 0), u0, (size_t)nl * sizeof *u0) == 0);
    for (int l = 0; l < nl; l++) {
      per[l] = 0.25;
    }
    per[lastLink] = -1e13;
    CU_ASSERT(hs_setJointValuesByLink(sim, 0, per, nl, fresh(&err)) < 0);
    CU_ASSERT(strstr(err.message, last) != NULL);
    CU_ASSERT(sameQ(sim, q0, nl));
    CU_ASSERT(hs_setJointTorquesByLink(sim, 0, per, nl, fresh(&err)) < 0);
    CU_ASSERT(memcmp(hs_torqueCommands(sim, 0), u0, (size_t)nl * sizeof *u0) == 0);
    // the same requests within the bound are applied
    all[nj - 1] = 0.25;
    CU_ASSERT_EQUAL(hs_checkAllLinkData(sim, 0, hsDATA_JOINT_VALUE, all, nj, fresh(&err)), 0);
    CU_ASSERT_EQUAL(hs_setAllLinkData(sim, 0, hsDATA_JOINT_VALUE, all, nj, fresh(&err)), 0);
    CU_ASSERT_EQUAL(hs_q(sim, 0)[lastLink], 0.25);
  }
  hs_freeSim(sim);
}

// the arm's wrist force sensor holds the hand against gravity: zeros while sensors are off
static void testSensors(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  hsBody *arm = hst_loadSample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(arm);
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "arm", arm, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_setAllJointModes(sim, 0, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_start(sim, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_stepN(sim, 5, fresh(&err)), 0);
  int n = 0;
  const int *force = hs_sensorsOfType(sim, 0, hsSENSOR_FORCE, &n);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  const double *f = hs_reading(sim, 0, force[0], &n);
  CU_ASSERT_EQUAL_FATAL(n, 6);
  for (int k = 0; k < 6; k++) {
    CU_ASSERT_EQUAL(f[k], 0.0);
  }
  hs_enableSensors(sim, 1);
  f = hs_reading(sim, 0, force[0], &n);
  CU_ASSERT_EQUAL_FATAL(n, 6);
  CU_ASSERT(fabs(f[0]) + fabs(f[1]) + fabs(f[2]) > 0.1);
  // a bad noise spec changes nothing
  hsNoise noise;
  memset(&noise, 0, sizeof noise);
  noise.active[hsSENSOR_VISION] = 1;
  CU_ASSERT_EQUAL(hs_setNoise(sim, &noise, fresh(&err)), hsE_INVALID);
  noise.active[hsSENSOR_VISION] = 0;
  noise.active[hsSENSOR_FORCE] = 1;
  noise.std[hsSENSOR_FORCE][0] = -1;
  CU_ASSERT_EQUAL(hs_setNoise(sim, &noise, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_noise(sim)->active[hsSENSOR_FORCE], 0);
  hs_freeSim(sim);
}

// a box resting on the floor: its contacts carry its weight, the pair is reported intersecting
static void testContacts(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(sim, "box", hst_loadVrmlText("core_box.wrl", kBox), 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(sim, "floor", hst_loadSample("floor/floor.wrl"), 1, fresh(&err)), 1);
  CU_ASSERT_EQUAL(hs_addContactPair(sim, "box", "", "floor", "NOLINK", 0.5, 0.5, 0, 0.01,
                                    fresh(&err)),
                  hsE_INVALID);
  CU_ASSERT_STRING_EQUAL(err.message, "character 'floor' has no link 'NOLINK'");
  CU_ASSERT_EQUAL(hs_addContactPair(sim, "box", "", "floor", "", 0.5, 0.5, 0, 0.01, fresh(&err)),
                  0);
  double pose[12] = {0, 0, 0.05, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, 0, hsDATA_ABS_TRANSFORM, pose, 12, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_start(sim, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_stepN(sim, 200, fresh(&err)), 0);
  int n = 0, ngroup = 0;
  hs_contacts(sim, &n);
  hs_contactGroups(sim, &ngroup);
  CU_ASSERT_EQUAL(n, 4);
  CU_ASSERT_EQUAL(ngroup, 1);
  double cf[64];
  CU_ASSERT_EQUAL_FATAL(hs_getLinkData(sim, 0, 0, hsDATA_CONSTRAINT_FORCE, cf, 64, fresh(&err)),
                        24);
  HST_NEAR(cf[5] + cf[11] + cf[17] + cf[23], 9.8, 1e-6);
  // too small a buffer: the count, nothing written past it
  CU_ASSERT_EQUAL(hs_getLinkData(sim, 0, 0, hsDATA_CONSTRAINT_FORCE, cf, 3, fresh(&err)), 24);
  int nd = 0;
  const hsdDistance *d = hs_distances(sim, &nd, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL(d);
  CU_ASSERT(nd >= 1);
  int nhit = 0;
  hs_checkIntersections(sim, 1, &nhit, fresh(&err));
  CU_ASSERT(nhit <= 1);
  hs_freeSim(sim);
}

// a depth camera at the origin looks along -z at a box whose near face is 2 m away: the centre
// pixel reads 2 m; the picture is taken at the current link poses (the box moved: 3 m)
static void testCamera(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(fresh(&err));
  hsBody *cam = hst_loadVrmlText(
      "core_cam.wrl",
      "PROTO VisionSensor [ exposedField SFVec3f translation 0 0 0 exposedField SFRotation "
      "rotation 0 0 1 0 exposedField SFInt32 sensorId -1 exposedField SFString type \"NONE\" "
      "exposedField SFInt32 width 320 exposedField SFInt32 height 240 exposedField SFFloat "
      "fieldOfView 0.785398 exposedField SFFloat frontClipDistance 0.01 exposedField SFFloat "
      "backClipDistance 10 exposedField SFFloat frameRate 30 exposedField MFNode children [] ] "
      "{ Transform { children IS children } }\n"
      "DEF C Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      " DEF CAM VisionSensor { sensorId 0 type \"DEPTH\" width 40 height 30 fieldOfView 0.5 "
      "frontClipDistance 0.1 backClipDistance 20 } ] } ] joints [ USE BASE ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(cam);
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(sim, "cam", cam, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(sim, "box", hst_loadVrmlText("core_cam_box.wrl", kBox), 1, fresh(&err)), 1);
  int s = hs_sensor(sim, 0, "CAM", fresh(&err));
  int w = 0, h = 0;
  CU_ASSERT_EQUAL(hs_cameraSize(sim, 0, s, &w, &h, fresh(&err)), 0);
  CU_ASSERT(w == 40 && h == 30);
  CU_ASSERT_EQUAL(hs_cameraType(sim, 0, s), 3);  // DEPTH
  CU_ASSERT_EQUAL(hs_cameraFrameRate(sim, 0, s), 30.0);
  CU_ASSERT_EQUAL(hs_cameraType(sim, 1, 0), -1);
  unsigned char rgb[6] = {255, 255, 255, 10, 20, 30}, mono[2];
  hs_rgbToMono(mono, rgb, 2);
  CU_ASSERT(mono[0] == 255 && mono[1] == (unsigned char)(0.299 * 10 + 0.587 * 20 + 0.114 * 30));
  double pose[12] = {0, 0, -2.05, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 1, 0, hsDATA_ABS_TRANSFORM, pose, 12, fresh(&err)), 0);
  float depth[40 * 30];
  int rc = hs_renderCamera(sim, 0, s, NULL, depth, fresh(&err));
  if (rc == hsE_UNSUPPORTED) {
    hs_freeSim(sim);
    return;  // no headless GL here (the render suite says so too)
  }
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  HST_NEAR(depth[15 * 40 + 20], 2.0, 1e-3);
  pose[2] = -3.05;
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 1, 0, hsDATA_ABS_TRANSFORM, pose, 12, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_renderCamera(sim, 0, s, NULL, depth, fresh(&err)), 0);
  HST_NEAR(depth[15 * 40 + 20], 3.0, 1e-3);
  // not a camera
  CU_ASSERT_EQUAL(hs_renderCamera(sim, 1, 0, NULL, depth, fresh(&err)), hsE_INVALID);
  // a view of the same bodies at the same poses (what the ViewSimulator servants wrap) draws
  // the simulation's picture, bit for bit: one code path
  hsView *view = hs_makeView(fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(view);
  CU_ASSERT_EQUAL(hs_viewBodyCount(view), 0);
  for (int ch = 0; ch < 2; ch++) {
    CU_ASSERT_EQUAL(hs_viewAddBody(view, hs_body(sim, ch), fresh(&err)), ch);
    CU_ASSERT_EQUAL(hs_viewSetPose(view, ch, hs_linkP(sim, ch), hs_linkR(sim, ch), fresh(&err)),
                    0);
  }
  CU_ASSERT_EQUAL(hs_viewBodyCount(view), 2);
  float again[40 * 30];
  CU_ASSERT_EQUAL(hs_viewRenderCamera(view, 0, s, NULL, again, fresh(&err)), 0);
  CU_ASSERT_EQUAL(memcmp(again, depth, sizeof depth), 0);
  // refusals: a body that is not there, a sensor that is not there (the camera's body has one,
  // the box none), a pose that is not finite or of no body (the pose kept: the same picture)
  CU_ASSERT_EQUAL(hs_viewRenderCamera(view, 2, s, NULL, again, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_viewRenderCamera(view, 0, 7, NULL, again, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_viewRenderCamera(view, 1, 0, NULL, again, fresh(&err)), hsE_INVALID);
  double bad[3] = {0, 0, NAN}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hs_viewSetPose(view, 1, bad, R, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_viewSetPose(view, -1, hs_linkP(sim, 1), R, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_viewRenderCamera(view, 0, s, NULL, again, fresh(&err)), 0);
  CU_ASSERT_EQUAL(memcmp(again, depth, sizeof depth), 0);
  CU_ASSERT_PTR_NOT_NULL(hs_rendererInfo(fresh(&err)));
  hs_freeView(view);
  hs_freeView(NULL);
  hs_freeSim(sim);
}

// boxes (one body, borrowed by every copy) dropped on the floor for n steps with the given
// stepper; the root heights of the boxes at the end; the first error's code (no CUnit
// assertion here: threads call it, and CUnit's counters are not thread-safe)
static int dropBoxes(hsBody *box, int nbox, int steps, hstStepper stepper, double *z) {
  hsError err = {0};
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.stepper = stepper;
  hsSim *sim = hs_makeSimWith(&opt, &err);
  hs_addCharacter(sim, "floor", hst_loadSample("floor/floor.wrl"), 1, &err);
  for (int i = 0; i < nbox; i++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", i);
    hs_addCharacter(sim, name, box, 0, &err);
    double pose[12] = {0.3 * i, 0.05 * i, 0.2 + 0.15 * i, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    hs_setLinkData(sim, i + 1, 0, hsDATA_ABS_TRANSFORM, pose, 12, &err);
    hs_addContactPair(sim, "floor", "", name, "", 0.5, 0.5, 0, 0.01, &err);
  }
  hs_start(sim, &err);
  hs_stepN(sim, steps, &err);
  for (int i = 0; i < nbox; i++) {
    z[i] = hs_linkP(sim, i + 1)[2];
  }
  hs_freeSim(sim);
  return err.code;
}

struct dropJob {
  hsBody *box;
  hstStepper stepper;
  double z[4];
  int rc;
};

static void *dropThread(void *arg) {
  struct dropJob *job = arg;
  job->rc = dropBoxes(job->box, 4, 1500, job->stepper, job->z);
  return NULL;
}

// simulations stepped by threads at once give what each gives alone, bit for bit: the core
// locks each simulation, not the process, and QuickStep's draws from ODE's one random
// generator (hsd_lockOde) follow each world's own seed; dWorldStep worlds run unlocked
static void testThreads(void) {
  // the body is loaded here, once: the test helpers that write model files are not
  // thread-safe (one static buffer), and one read-only body may serve every simulation
  hsBody *box = hst_loadVrmlText("core_thread_box.wrl", kBox);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  double exact[4], quick[4];
  CU_ASSERT_EQUAL(dropBoxes(box, 4, 1500, hsSTEPPER_WORLD, exact), 0);
  CU_ASSERT_EQUAL(dropBoxes(box, 4, 1500, hsSTEPPER_QUICK, quick), 0);
  // four at once: two of each stepper, so QuickStep worlds interleave their random draws
  struct dropJob jobs[4] = {{box, hsSTEPPER_WORLD, {0}, -1}, {box, hsSTEPPER_QUICK, {0}, -1},
                            {box, hsSTEPPER_QUICK, {0}, -1}, {box, hsSTEPPER_WORLD, {0}, -1}};
  pthread_t t[4];
  for (int k = 0; k < 4; k++) {
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[k], NULL, dropThread, &jobs[k]), 0);
  }
  for (int k = 0; k < 4; k++) {
    pthread_join(t[k], NULL);
  }
  for (int k = 0; k < 4; k++) {
    CU_ASSERT_EQUAL(jobs[k].rc, 0);
    const double *alone = jobs[k].stepper == hsSTEPPER_QUICK ? quick : exact;
    CU_ASSERT_EQUAL(memcmp(jobs[k].z, alone, sizeof exact), 0);
  }
  HST_NEAR(exact[0], 0.05, 1e-3);  // resting on the floor
  HST_NEAR(quick[0], 0.05, 1e-3);
  hsm_freeBody(box);
}

// hs_loadBodyWithImages decodes the textured room's image (what a replay draws); hs_loadBody,
// the dynamics' load, leaves the pixels out; both give the same shapes
static void testBodyImages(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/env/room.wrl", HST_SAMPLES_DIR);
  hsError err = {0};
  hsBody *plain = hs_loadBody(path, &err);
  hsBody *images = hs_loadBodyWithImages(path, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
  CU_ASSERT_PTR_NOT_NULL_FATAL(images);
  CU_ASSERT(images->ntexture > 0);
  CU_ASSERT_EQUAL(plain->ntexture, images->ntexture);
  CU_ASSERT_EQUAL(plain->nshape, images->nshape);
  for (int i = 0; i < images->ntexture; i++) {
    const hsTexture *t = &images->textures[i];
    CU_ASSERT(t->width > 0 && t->height > 0 && t->image != NULL);
    CU_ASSERT_EQUAL(t->nimage, (size_t)t->width * (size_t)t->height * (size_t)t->numComponents);
    CU_ASSERT_EQUAL(plain->textures[i].nimage, 0);
  }
  CU_ASSERT_PTR_NULL(hs_loadBodyWithImages("/no/such/model.wrl", fresh(&err)));
  CU_ASSERT(err.code != 0);
  hs_freeBody(plain);
  hs_freeBody(images);
}

void register_core(void) {
  CU_pSuite s = hst_addSuite("core");
  hs_initProcess();
  CU_add_test(s, "periods and times in whole steps", testPeriods);
  CU_add_test(s, "refusals before and after start", testOrder);
  CU_add_test(s, "names, sensor order, the types' table", testNames);
  CU_add_test(s, "facts: extra joints, camera images, runaway", testFacts);
  CU_add_test(s, "the clock and a free fall", testClockAndFreeFall);
  CU_add_test(s, "a pendulum's period", testPendulumPeriod);
  CU_add_test(s, "an external force held step after step", testExternalForceHeld);
  CU_add_test(s, "link data checked before anything changes", testLinkData);
  CU_add_test(s, "a huge value refuses the whole request", testHugeValueRefusedWhole);
  CU_add_test(s, "sensors on and off, noise refused", testSensors);
  CU_add_test(s, "contacts of a resting box, queries", testContacts);
  CU_add_test(s, "a depth camera at the current poses", testCamera);
  CU_add_test(s, "four simulations in four threads, both steppers", testThreads);
  CU_add_test(s, "the joint-space engine through the core", testJointSpaceEngine);
  CU_add_test(s, "a body with its texture images", testBodyImages);
}
