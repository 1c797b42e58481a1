// test_sensors.c - body sensors (sensors/ over a dynamics world): accelerometers at rest, in
// free fall and on a spinning body, rate gyros, force sensors under a standing robot and on
// robots without a movable joint (a free one with sleeping on, a static one); the order of the
// sensors on the wire.

#include "dynamics/dyn_helpers.h"

// a z-up accelerometer and a gyro at the box centre, and a second pair turned 90 degrees about x
// and placed 0.1 m out along x
static const char *kSensors =
    "DEF ACC0 AccelerationSensor { sensorId 0 }\n"
    "DEF GYRO0 Gyro { sensorId 0 }\n"
    "DEF ACC1 AccelerationSensor { sensorId 1 translation 0.1 0 0\n"
    "  rotation 1 0 0 1.5707963267948966 }\n"
    "DEF GYRO1 Gyro { sensorId 1 translation 0.1 0 0 rotation 1 0 0 1.5707963267948966 }\n";

static const double *reading(const hsdWorld *w, int ch, const hsBody *b, hstSensor type, int id) {
  int n;
  const double *r = dynSensorReading(w, ch, hsm_sensorById(b, type, id), &n);
  CU_ASSERT_EQUAL(n, type == hsSENSOR_FORCE ? 6 : 3);
  return r;
}

// zeros before the first step
static void testZerosBeforeStep(void) {
  hsBody *box = dynBox("sens0.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, kSensors);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_EQUAL(box->nsensor, 4);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "box", box, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  const double *a = reading(w, 0, box, hsSENSOR_ACCELERATION, 0);
  for (int j = 0; j < 3; j++) {
    HST_NEAR(a[j], 0, 0);
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
}

// in free fall (any rotation of the sensor) the accelerometer reads 0 (1e-9) and the gyro 0
static void testFreeFall(void) {
  hsBody *box = dynBox("sens1.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, kSensors);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "box", box, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  dynSteps(w, 100);
  for (int id = 0; id < 2; id++) {
    const double *a = reading(w, 0, box, hsSENSOR_ACCELERATION, id);
    const double *g = reading(w, 0, box, hsSENSOR_RATEGYRO, id);
    for (int j = 0; j < 3; j++) {
      HST_NEAR(a[j], 0, 1e-9);
      HST_NEAR(g[j], 0, 1e-12);
    }
  }
  hsd_freeWorld(w);
  hsm_freeBody(box);
}

// at rest on the floor: (0, 0, 9.8) in a z-up sensor frame; the turned sensor (90 degrees about
// x: its y axis points up) reads (0, 9.8, 0); 1e-6
static void testAtRest(void) {
  hsBody *box = dynBox("sens2.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, kSensors);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "box", box, NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL);
  dynPlace(w, 0, 0, 0, 0.1, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  dynSteps(w, 500);
  const double *a0 = reading(w, 0, box, hsSENSOR_ACCELERATION, 0);
  const double *a1 = reading(w, 0, box, hsSENSOR_ACCELERATION, 1);
  HST_NEAR(a0[0], 0, 1e-6);
  HST_NEAR(a0[1], 0, 1e-6);
  HST_NEAR(a0[2], 9.8, 1e-6);
  HST_NEAR(a1[0], 0, 1e-6);
  HST_NEAR(a1[1], 9.8, 1e-6);
  HST_NEAR(a1[2], 0, 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// a box spinning at 2 rad/s about its principal z axis without gravity: the centre gyro reads
// (0, 0, 2), the turned one (0, 2, 0) (1e-12); the accelerometer 0.1 m out reads the centripetal
// -w^2 r = -0.4 m/s^2 along its x (the finite difference over a step sees the chord: 1e-3)
static void testSpinning(void) {
  hsBody *box = dynBox("sens3.wrl", 1, 0.3, 0.2, 0.1, 0, 0, 0, kSensors);
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  hsdWorld *w = dynWorld(NULL);
  double zero[3] = {0, 0, 0}, wz[3] = {0, 0, 2};
  hsd_setGravity(w, zero, NULL);
  hsd_addCharacter(w, "box", box, NULL);
  hsd_setLinkVelocity(w, 0, 0, zero, wz, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  dynSteps(w, 777);
  const double *g0 = reading(w, 0, box, hsSENSOR_RATEGYRO, 0);
  const double *g1 = reading(w, 0, box, hsSENSOR_RATEGYRO, 1);
  const double *a1 = reading(w, 0, box, hsSENSOR_ACCELERATION, 1);
  HST_NEAR(g0[0], 0, 1e-12);
  HST_NEAR(g0[1], 0, 1e-12);
  HST_NEAR(g0[2], 2, 1e-12);
  HST_NEAR(g1[0], 0, 1e-12);
  HST_NEAR(g1[1], 2, 1e-12);
  HST_NEAR(g1[2], 0, 1e-12);
  HST_NEAR(a1[0], -0.4, 1e-3);
  HST_NEAR(a1[1], 0, 1e-3);
  HST_NEAR(a1[2], 0, 1e-3);
  hsd_freeWorld(w);
  hsm_freeBody(box);
}

// the humanoid standing in high gain: the waist accelerometer reads (0, 0, 9.8) and the gyro 0
// (1e-4 m/s^2 and 1e-5 rad/s: the feet settle into the soft contacts by micrometres), and the
// ankle force sensors carry the weight above the feet, (50.6 - 2 * 1.2) kg * 9.8 = 472.36 N in
// all, positive Fz in their z-up frames (1 %), with small shear
static void testHumanoidStanding(void) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsd_addCharacter(w, "robot", robot, NULL);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  hsd_addContactPair(w, 1, -1, 0, -1, &s, NULL);
  hsd_setAllJointModes(w, 1, hsMODE_HIGH_GAIN, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  dynSteps(w, 500);
  const double *acc = reading(w, 1, robot, hsSENSOR_ACCELERATION, 0);
  const double *gyro = reading(w, 1, robot, hsSENSOR_RATEGYRO, 0);
  const double *fr = reading(w, 1, robot, hsSENSOR_FORCE, 0);
  const double *fl = reading(w, 1, robot, hsSENSOR_FORCE, 1);
  const double *fw = reading(w, 1, robot, hsSENSOR_FORCE, 2);
  HST_NEAR(acc[0], 0, 1e-4);
  HST_NEAR(acc[1], 0, 1e-4);
  HST_NEAR(acc[2], 9.8, 1e-4);
  for (int j = 0; j < 3; j++) {
    HST_NEAR(gyro[j], 0, 1e-5);
  }
  double want = (dynMass(robot) - 2 * 1.2) * 9.8;
  fprintf(stderr, " [Fz %.3f + %.3f = %.3f N, want %.3f; shear %.3g %.3g, %.3g %.3g] ", fr[2],
          fl[2], fr[2] + fl[2], want, fr[0], fr[1], fl[0], fl[1]);
  HST_NEAR(fr[2] + fl[2], want, 0.01 * want);
  CU_ASSERT(fr[2] > 0.3 * want && fl[2] > 0.3 * want);
  // the split between the two feet is statically indeterminate (rigid contacts closing a chain
  // through the floor): each engine's solver picks one, the joint-space engine's (Gauss-Seidel
  // in contact space) with the feet pressing apart by 5.96 and 7.51 N in x and y (1.6 % of the
  // weight), ODE's dWorldStep by 2e-6 N. Their sum is determined: no net shear. Each foot's
  // shear asserted within 2 % of the weight (1 % before the joint-space engine was the default)
  CU_ASSERT(fabs(fr[0] + fl[0]) < 1e-3 * want && fabs(fr[1] + fl[1]) < 1e-3 * want);
  CU_ASSERT(fabs(fr[0]) < 0.02 * want && fabs(fr[1]) < 0.02 * want);
  // a hand hanging free: its sensor carries the hand (0.5 kg at 0.065 m below the sensor),
  // downwards in the z-up frame
  HST_NEAR(fw[2], -0.5 * 9.8, 1e-6);
  HST_NEAR(fw[4], 0, 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
}

// a robot with no movable joint: a free 3 kg body on a 1 kg foot welded below it (a fixed
// joint 0.15 m down, a force sensor at the foot's origin), resting on the floor. The foot
// pushes the body up with the body's weight, 3 kg * 9.8 = 29.4 N, positive Fz in the z-up
// sensor frame (1e-3: the contacts settle), no shear or moment (symmetric), also with sleeping
// on after 0.5 s at rest (a sleeping body has no contacts: a force sensor keeps it awake); in
// high-gain mode (a character with nothing to servo) the same
static void testFixedJointRobot(void) {
  static const char *kFixed =
      "DEF FIXEDBOT Humanoid { humanoidBody [\n"
      " DEF BODY Joint { jointType \"free\" children [\n"
      "  Segment { mass 3 momentsOfInertia [0.02 0 0 0 0.02 0 0 0 0.02]\n"
      "   children Shape { geometry Box { size 0.2 0.2 0.2 } } }\n"
      "  DEF FOOT Joint { jointType \"fixed\" translation 0 0 -0.15 children [\n"
      "   DEF FOOT_FS ForceSensor { sensorId 0 }\n"
      "   Segment { mass 1 momentsOfInertia [0.005 0 0 0 0.005 0 0 0 0.005]\n"
      "    children Shape { geometry Box { size 0.3 0.3 0.1 } } } ] } ] } ]\n"
      " joints [ USE BODY USE FOOT ] }\n";
  for (int highGain = 0; highGain < 2; highGain++) {
    hsBody *robot = dynLoadText("fixedbot.wrl", kFixed);
    hsBody *floor = dynLoadSample("floor/floor.wrl");
    CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
    CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
    hsdOptions o;
    hsd_defaultOptions(&o);
    o.sleep = 1;
    hsdWorld *w = dynWorld(&o);
    hsd_addCharacter(w, "floor", floor, NULL);
    hsd_addCharacter(w, "robot", robot, NULL);
    hsdSurface s = {0.5, 0.5, 0, 0.01};
    hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL);
    if (highGain) {
      hsd_setAllJointModes(w, 1, hsMODE_HIGH_GAIN, NULL);
    }
    dynPlace(w, 1, 0, 0, 0.2, NULL);
    CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
    dynSteps(w, 500);
    CU_ASSERT_EQUAL(hsd_sleeping(w, 1), 0);
    const double *f = reading(w, 1, robot, hsSENSOR_FORCE, 0);
    fprintf(stderr, " [Fz %.6f N, want 29.4] ", f[2]);
    HST_NEAR(f[2], 3 * 9.8, 1e-3);
    for (int j = 0; j < 6; j++) {
      if (j != 2) {
        HST_NEAR(f[j], 0, 1e-3);
      }
    }
    hsd_freeWorld(w);
    hsm_freeBody(robot);
    hsm_freeBody(floor);
  }
}

// a static robot (fixed root 1 m up, nothing movable): a 2 kg link welded 0.3 m below the root,
// its centre 0.1 m below its force sensor, hangs from it: -2 kg * 9.8 = -19.6 N in Fz, no
// moment (1e-9); before the fix a static character's sensors read zero
static void testStaticRobot(void) {
  static const char *kStatic =
      "DEF STATICBOT Humanoid { humanoidBody [\n"
      " DEF BASE Joint { jointType \"fixed\" translation 0 0 1 children [\n"
      "  Segment { mass 3 momentsOfInertia [0.02 0 0 0 0.02 0 0 0 0.02] }\n"
      "  DEF ARM Joint { jointType \"fixed\" translation 0 0 -0.3 children [\n"
      "   DEF ARM_FS ForceSensor { sensorId 0 }\n"
      "   Segment { mass 2 centerOfMass 0 0 -0.1\n"
      "    momentsOfInertia [0.005 0 0 0 0.005 0 0 0 0.005] } ] } ] } ]\n"
      " joints [ USE BASE USE ARM ] }\n";
  hsBody *robot = dynLoadText("staticbot.wrl", kStatic);
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "robot", robot, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  dynSteps(w, 10);
  const double *f = reading(w, 0, robot, hsSENSOR_FORCE, 0);
  HST_NEAR(f[2], -2 * 9.8, 1e-9);
  for (int j = 0; j < 6; j++) {
    if (j != 2) {
      HST_NEAR(f[j], 0, 1e-9);
    }
  }
  hsd_freeWorld(w);
  hsm_freeBody(robot);
}

// a state lists each type's sensors in sensorId order, whatever order the file gave, and tells
// how many numbers each reports; a bad index reads nothing
static void testOrderAndSizes(void) {
  hsBody *box = dynBox("sens_order.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0,
                       "DEF F1 ForceSensor { sensorId 1 }\n"
                       "DEF G0 Gyro { sensorId 0 }\n"
                       "DEF F0 ForceSensor { sensorId 0 translation 0 0 0.1 }\n"
                       "DEF A0 AccelerationSensor { sensorId 0 }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  hssState *st = hss_makeState(box, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  int n;
  const int *force = hss_sensorsOfType(st, hsSENSOR_FORCE, &n);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_STRING_EQUAL(box->sensors[force[0]].name, "F0");
  CU_ASSERT_STRING_EQUAL(box->sensors[force[1]].name, "F1");
  const int *gyro = hss_sensorsOfType(st, hsSENSOR_RATEGYRO, &n);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_STRING_EQUAL(box->sensors[gyro[0]].name, "G0");
  hss_sensorsOfType(st, hsSENSOR_RANGE, &n);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_PTR_NOT_NULL(hss_reading(st, force[0], &n));
  CU_ASSERT_EQUAL(n, 6);
  hss_reading(st, gyro[0], &n);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_PTR_NULL(hss_reading(st, 4, &n));
  CU_ASSERT_EQUAL(n, 0);
  hss_freeState(st);
  hss_freeState(NULL);
  hsm_freeBody(box);
}

void register_sensors(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("sensors_body");
  CU_add_test(s, "sensorId order and reading sizes", testOrderAndSizes);
  CU_add_test(s, "zeros before the first step", testZerosBeforeStep);
  CU_add_test(s, "free fall: accelerometer and gyro read zero", testFreeFall);
  CU_add_test(s, "at rest: accelerometer reads +g up", testAtRest);
  CU_add_test(s, "spinning: gyro and centripetal acceleration", testSpinning);
  CU_add_test(s, "standing humanoid: accelerometer, gyro, force sensors", testHumanoidStanding);
  CU_add_test(s, "fixed-joint robot on the floor: force sensor carries the body",
              testFixedJointRobot);
  CU_add_test(s, "static robot: force sensor carries the link below", testStaticRobot);
}
