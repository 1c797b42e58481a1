// test_crawler.c - crawler (track) links on the sample crawler vehicle: straight-line speed
// against the commanded track speed, OpenHRP AIST's sign (also with the crawler as the pair's
// second link), turning on the spot against the no-slip rate, holding on a slope at zero speed,
// and Choreonoid's pseudoContinuousTrack taking its speed from the velocity command.

#include "dyn_helpers.h"

enum { TRACK_L = 1, TRACK_R = 2, FLIPPER = 3 };

// the vehicle on the floor (floor registered first, or second with floorFirst 0), tracks in
// contact with friction mu; the flipper held by a servo; gravity g (NULL: default)
static hsdWorld *crawlerWorld(hsBody *veh, hsBody *floor, int floorFirst, double mu,
                              const double *g) {
  hsdWorld *w = dynWorld(NULL);
  int f = floorFirst ? 0 : 1, v = floorFirst ? 1 : 0;
  if (floorFirst) {
    hsd_addCharacter(w, "floor", floor, NULL);
    hsd_addCharacter(w, "crawler", veh, NULL);
  } else {
    hsd_addCharacter(w, "crawler", veh, NULL);
    hsd_addCharacter(w, "floor", floor, NULL);
  }
  hsdSurface s = {mu, mu, 0, 0.005};
  for (int k = TRACK_L; k <= TRACK_R; k++) {
    CU_ASSERT_EQUAL(floorFirst ? hsd_addContactPair(w, f, 0, v, k, &s, NULL)
                               : hsd_addContactPair(w, v, k, f, 0, &s, NULL), 0);
  }
  CU_ASSERT_EQUAL(hsd_setJointMode(w, v, FLIPPER, hsMODE_HIGH_GAIN, NULL), 0);
  if (g) {
    CU_ASSERT_EQUAL(hsd_setGravity(w, g, NULL), 0);
  }
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  return w;
}

// the yaw angle of the vehicle's root
static double yaw(const hsBodyState *st) {
  return atan2(st->rootR[3], st->rootR[0]);
}

// drive both tracks at u for 3 s; the speed over the last second along the vehicle's x
static double straightSpeed(int floorFirst, double u, double *lateral) {
  hsBody *veh = dynLoadSample("crawler/crawler.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(veh);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = crawlerWorld(veh, floor, floorFirst, 1.0, NULL);
  int v = floorFirst ? 1 : 0;
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, v, TRACK_L, u, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, v, TRACK_R, u, NULL), 0);
  dynSteps(w, 2000);
  const hsBodyState *st = hsd_state(w, v);
  double x0 = st->rootP[0], y0 = st->rootP[1];
  dynSteps(w, 1000);
  double speed = st->rootP[0] - x0;
  *lateral = st->rootP[1] - y0;
  HST_NEAR(st->u[TRACK_L], u, 0);  // the track reads its speed back as its torque
  hsd_freeWorld(w);
  hsm_freeBody(veh);
  hsm_freeBody(floor);
  return speed;
}

// both tracks at u = 0.3 m/s: the vehicle drives along +x (AIST's sign: the surface moves
// along (R a) x n_out = y x (-z) = -x under the vehicle) at u: the tracks do not slip in a
// straight line, so within 1e-5 (both engines: 1e-7), and it keeps its line (1e-10 m sideways)
static void testStraight(void) {
  double lat, s1 = straightSpeed(1, 0.3, &lat);
  fprintf(stderr, " [speed %.7f m/s for u 0.3 (ratio %.7f), lateral drift %.2g m] ", s1,
          s1 / 0.3, lat);
  CU_ASSERT(fabs(s1 / 0.3 - 1) < 1e-5);
  CU_ASSERT(fabs(lat) < 1e-6);
  // the crawler as the pair's first link: the same motion (the sign follows the normal)
  double s2 = straightSpeed(0, 0.3, &lat);
  double s3 = straightSpeed(1, -0.2, &lat);  // backwards
  fprintf(stderr, " [crawler first in its pairs: %.7f m/s; backwards %.7f for -0.2] ", s2, s3);
  CU_ASSERT(fabs(s2 / 0.3 - 1) < 1e-5);
  CU_ASSERT(fabs(s3 / -0.2 - 1) < 1e-5);
}

// opposite speeds: the vehicle turns on the spot, counter-clockwise for a faster right track,
// slower than the no-slip rate (u_R - u_L) / 0.4 because the tracks skid sideways
static void testTurn(void) {
  hsBody *veh = dynLoadSample("crawler/crawler.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(veh);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = crawlerWorld(veh, floor, 1, 1.0, NULL);
  const double u = 0.3, noSlip = 2 * u / 0.4;
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 1, TRACK_L, -u, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 1, TRACK_R, u, NULL), 0);
  dynSteps(w, 1000);
  const hsBodyState *st = hsd_state(w, 1);
  double a0 = yaw(st), p0[2] = {st->rootP[0], st->rootP[1]}, turned = 0, prev = a0;
  for (int i = 0; i < 1000; i++) {
    dynSteps(w, 1);
    turned += remainder(yaw(st) - prev, 2 * HS_PI);
    prev = yaw(st);
  }
  double rate = turned / 1.0, moved = hypot(st->rootP[0] - p0[0], st->rootP[1] - p0[1]);
  fprintf(stderr, " [yaw rate %.4f rad/s, no-slip %.4f, ratio %.4f; centre moved %.4f m] ", rate,
          noSlip, rate / noSlip, moved);
  CU_ASSERT(rate > 0.1 * noSlip);
  CU_ASSERT(rate < noSlip);
  // the chassis origin circles the centre of mass (0.018 m ahead of it: the flipper) and the
  // whole creeps a little: 0.0215 m on ODE, 0.0214 on the joint-space engine; friction updated
  // row by row and scaled onto the cone (at an angle to the slip) made it 0.044 there
  CU_ASSERT(moved < 0.03);
  hsd_freeWorld(w);
  hsm_freeBody(veh);
  hsm_freeBody(floor);
}

// zero track speed on a 0.3 rad slope (gravity tilted; tan 0.3 = 0.31 < mu = 1): it holds
static void testSlopeHold(void) {
  hsBody *veh = dynLoadSample("crawler/crawler.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(veh);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  double g[3] = {9.8 * sin(0.3), 0, -9.8 * cos(0.3)};
  hsdWorld *w = crawlerWorld(veh, floor, 1, 1.0, g);
  dynSteps(w, 200);
  const hsBodyState *st = hsd_state(w, 1);
  double x0 = st->rootP[0];
  dynSteps(w, 2000);
  double slid = st->rootP[0] - x0;
  fprintf(stderr, " [slid %.2g m in 2 s on the slope] ", slid);
  CU_ASSERT(fabs(slid) < 1e-6);  // (ODE 1.2e-9 m, the joint-space engine 1.8e-14)
  // and with too little friction (mu 0.2 < tan 0.3) it slides down (+x here)
  hsd_freeWorld(w);
  w = crawlerWorld(veh, floor, 1, 0.2, g);
  st = hsd_state(w, 1);
  x0 = st->rootP[0];
  dynSteps(w, 1000);
  CU_ASSERT(st->rootP[0] - x0 > 0.05);
  hsd_freeWorld(w);
  hsm_freeBody(veh);
  hsm_freeBody(floor);
}

// Choreonoid's name for a track (read as crawler): its speed can be given as the joint velocity
// command, as Choreonoid's pseudoContinuousTrack takes it (the later of the two writes wins)
static void testPseudoContinuousTrack(void) {
  FILE *in = fopen(HST_SAMPLES_DIR "/crawler/crawler.wrl", "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, in);
  fclose(in);
  text[n] = 0;
  // jointType "crawler" -> "pseudoContinuousTrack" (same length budget: write a new file)
  static char out[1 << 16];
  size_t o = 0;
  for (const char *s = text; *s && o < sizeof out - 64;) {
    if (strncmp(s, "jointType \"crawler\"", 19) == 0) {
      o += (size_t)snprintf(out + o, sizeof out - o, "jointType \"pseudoContinuousTrack\"");
      s += 19;
    } else {
      out[o++] = *s++;
    }
  }
  out[o] = 0;
  const char *path = "/tmp/hrpsim_pct_crawler.wrl";
  FILE *f = fopen(path, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(out, f);
  fclose(f);
  hsError err = {0};
  hst_expectLog(1);  // the loader notes the Choreonoid name it read as crawler
  hsBody *veh = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  remove(path);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(veh);
  CU_ASSERT_EQUAL(veh->links[TRACK_L].jointType, hsJOINT_CRAWLER);
  hst_expectLog(0);
  hsdWorld *w = crawlerWorld(veh, floor, 1, 1.0, NULL);
  for (int k = TRACK_L; k <= TRACK_R; k++) {
    CU_ASSERT_EQUAL(hsd_setJointTorque(w, 1, k, 5.0, NULL), 0);  // the later write wins
    CU_ASSERT_EQUAL(hsd_setJointVelocity(w, 1, k, 0.25, NULL), 0);
  }
  dynSteps(w, 2000);
  double x0 = hsd_state(w, 1)->rootP[0];
  dynSteps(w, 1000);
  double speed = hsd_state(w, 1)->rootP[0] - x0;
  fprintf(stderr, " [pseudoContinuousTrack at 0.25 m/s: %.7f m/s] ", speed);
  CU_ASSERT(fabs(speed / 0.25 - 1) < 1e-5);
  HST_NEAR(hsd_state(w, 1)->dq[TRACK_L], 0.25, 0);  // read back as velocity and torque
  HST_NEAR(hsd_state(w, 1)->u[TRACK_L], 0.25, 0);
  hsd_freeWorld(w);
  hsm_freeBody(veh);
  hsm_freeBody(floor);
}

// driving at a 0.05 m step (samples/models/floor/step.wrl, front edge at x = 1): the front
// rollers' contacts on the edge tilt the track motion upwards and the vehicle climbs onto it
static void testClimbStep(void) {
  hsBody *veh = dynLoadSample("crawler/crawler.wrl");
  hsBody *floor = dynLoadSample("floor/step.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(veh);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = crawlerWorld(veh, floor, 1, 1.0, NULL);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 1, TRACK_L, 0.3, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 1, TRACK_R, 0.3, NULL), 0);
  const hsBodyState *st = hsd_state(w, 1);
  double zmax = 0;
  for (int i = 0; i < 8000 && st->rootP[0] < 1.6; i++) {
    dynSteps(w, 1);
    zmax = fmax(zmax, st->rootP[2]);
  }
  dynSteps(w, 500);
  fprintf(stderr, " [after the step: x %.3f m, z %.6f m (0.09 on the floor, 0.14 on the step)] ",
          st->rootP[0], st->rootP[2]);
  CU_ASSERT(st->rootP[0] > 1.6);            // well past the edge
  // resting on the step's top (the joint-space engine 0.1 mm deep: its contacts' allowed
  // penetration)
  HST_NEAR(st->rootP[2], 0.09 + 0.05, 2e-4);
  hsd_freeWorld(w);
  hsm_freeBody(veh);
  hsm_freeBody(floor);
}

void register_crawler(void) {
  CU_pSuite s = hst_addSuite("dynamics_crawler");
  CU_add_test(s, "tracks drive straight at their speed, AIST's sign", testStraight);
  CU_add_test(s, "opposite speeds turn on the spot, below the no-slip rate", testTurn);
  CU_add_test(s, "zero speed holds on a slope friction can hold", testSlopeHold);
  CU_add_test(s, "pseudoContinuousTrack takes the velocity command", testPseudoContinuousTrack);
  CU_add_test(s, "it climbs a 0.05 m step", testClimbStep);
}
