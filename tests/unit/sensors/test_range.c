// test_range.c - range sensors and sensor noise (sensors_range.c, sensors_noise.c): a scanner
// facing a wall and a cylinder reads the analytic distances, "no hit" (0) where no surface is
// in the fan, a falling sphere shows the scan held between scans at scanRate; noise sample
// statistics, seeds and limits.

#include "dynamics/dyn_helpers.h"

// OpenHRP's RangeSensor node (our own PROTO, fields as the OpenHRP spec)
#define RANGE_PROTO                                                                        \
  "PROTO RangeSensor [ exposedField SFVec3f translation 0 0 0 exposedField SFRotation\n"   \
  "  rotation 0 0 1 0 exposedField MFNode children [] exposedField SFInt32 sensorId -1\n"  \
  "  exposedField SFFloat scanAngle 3.14159 exposedField SFFloat scanStep 0.1\n"           \
  "  exposedField SFFloat scanRate 10 exposedField SFFloat maxDistance 10 ]\n"             \
  "{ Transform { translation IS translation rotation IS rotation children IS children } }\n"

// a fixed scanner 1 m up whose fan lies in the horizontal plane, beam angle a pointing at world
// yaw a (sensor -z along world +x, sensor y up: R = [0 0 -1; -1 0 0; 0 1 0]); its own box
// surrounds the sensor (rays start inside it and must not see it). 513 beams of 1/128 rad.
static const char *kScanner =
    RANGE_PROTO
    "DEF SCANNER Humanoid { humanoidBody [\n"
    " DEF BASE Joint { jointType \"fixed\" translation 0 0 1 children [\n"
    "  DEF BASE_LINK Segment { mass 1 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01]\n"
    "   children Shape { geometry Box { size 0.1 0.1 0.1 } } }\n"
    "  DEF LIDAR RangeSensor { sensorId 0\n"
    "   rotation 0.57735026918962576 -0.57735026918962576 -0.57735026918962576 "
    "2.0943951023931957\n"
    "   scanAngle 4.0 scanStep 0.0078125 scanRate 100 maxDistance 2.5 }\n"
    "  DEF GYRO0 Gyro { sensorId 0 maxAngularVelocity 1 1 1 } ] } ]\n"
    " joints [ USE BASE ] }\n";

// fixed scenery: a wall whose face is the plane x = 3 (|y| <= 4, z in [-1, 3]) and a vertical
// cylinder of radius 0.3 about (1.5, 0.8)
static const char *kScenery =
    "DEF SCENERY Humanoid { humanoidBody [\n"
    " DEF ROOT Joint { jointType \"fixed\" children [\n"
    "  DEF ROOT_LINK Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1] children [\n"
    "   Transform { translation 3.1 0 1 children Shape { geometry Box { size 0.2 8 4 } } }\n"
    "   Transform { translation 1.5 0.8 1 rotation 1 0 0 1.5707963267948966 children\n"
    "    Shape { geometry Cylinder { radius 0.3 height 3 } } } ] } ] } ]\n"
    " joints [ USE ROOT ] }\n";

// a free sphere of radius 0.2 centred at (1.5, 0, 1.05)
static const char *kBall =
    "DEF BALL Humanoid { humanoidBody [\n"
    " DEF BALL_J Joint { jointType \"free\" translation 1.5 0 1.05 children [\n"
    "  DEF BALL_LINK Segment { mass 1 momentsOfInertia [0.016 0 0 0 0.016 0 0 0 0.016]\n"
    "   children Shape { geometry Sphere { radius 0.2 } } } ] } ]\n"
    " joints [ USE BALL_J ] }\n";

#define NBEAM 513
#define HALF 256
#define STEP 0.0078125

// a world of characters with sensor states and the rays' scratch, updated as the core does
typedef struct Rig {
  hsdWorld *w;
  hsBody *bodies[3];
  hssState *st[3];
  int *scratch;  // hsc_fanScratchSize of the world's scene
  int n;
} Rig;

// sensors after a step (or at step 0): body sensors, then the due scans
static void rigUpdate(Rig *r) {
  int due = 0;
  for (int ch = 0; ch < r->n; ch++) {
    hss_update(r->st[ch], r->w, ch);
    due |= hss_rangeDue(r->st[ch], r->w);
  }
  if (due) {
    const hscScene *scene = hsd_stateScene(r->w);
    for (int ch = 0; ch < r->n; ch++) {
      hss_updateRange(r->st[ch], r->w, ch, scene, r->scratch);
    }
  }
}

// scanner (character 0) plus the given bodies; initialised, sensors at step 0 taken
static int rigMake(Rig *r, const char *second, const char *secondFile) {
  memset(r, 0, sizeof *r);
  r->bodies[0] = dynLoadText("scanner.wrl", kScanner);
  r->bodies[1] = second ? dynLoadText(secondFile, second) : NULL;
  if (!r->bodies[0] || (second && !r->bodies[1])) {
    return -1;
  }
  r->n = second ? 2 : 1;
  r->w = dynWorld(NULL);
  const char *names[2] = {"scanner", "other"};
  for (int ch = 0; ch < r->n; ch++) {
    CU_ASSERT_EQUAL(hsd_addCharacter(r->w, names[ch], r->bodies[ch], NULL), ch);
    r->st[ch] = hss_makeState(r->bodies[ch], NULL);
    CU_ASSERT_PTR_NOT_NULL(r->st[ch]);
  }
  CU_ASSERT_EQUAL(hsd_init(r->w, NULL), 0);
  r->scratch = hsu_calloc((size_t)hsc_fanScratchSize(hsd_stateScene(r->w)), sizeof(int));
  CU_ASSERT_PTR_NOT_NULL(r->scratch);
  if (!r->scratch) {
    return -1;
  }
  rigUpdate(r);
  return 0;
}

static void rigFree(Rig *r) {
  hsu_free(r->scratch);
  for (int ch = 0; ch < 3; ch++) {
    hss_freeState(r->st[ch]);
  }
  hsd_freeWorld(r->w);
  for (int ch = 0; ch < 3; ch++) {
    hsm_freeBody(r->bodies[ch]);
  }
}

// the scan of the scanner's LIDAR
static const double *lidar(const Rig *r, int *n) {
  return hss_reading(r->st[0], hsm_sensorIndex(r->bodies[0], "LIDAR"), n);
}

// analytic first hit of beam k from (0, 0, 1) on the wall and the cylinder; 0 for none; *edge
// set when the beam passes within 1e-6 m of an edge or grazes the cylinder (not compared).
// Primitive sizes are VRML SFFloats (single precision, as OpenHRP's primitive parameters), so
// the reference takes the same float values: the wall face at 3.1 - 0.2f / 2, radius 0.3f.
static double expectedBeam(int k, int *edge) {
  double a = (k - HALF) * STEP, u[2] = {cos(a), sin(a)}, best = INFINITY;
  double face = 3.1 - (double)0.2f / 2;
  *edge = 0;
  if (u[0] > 0) {
    double t = face / u[0], y = t * u[1];
    *edge |= fabs(fabs(y) - 4.0) < 1e-6;
    if (fabs(y) <= 4.0) {
      best = t;
    }
  }
  double c[2] = {1.5, 0.8}, r = (double)0.3f;
  double b = c[0] * u[0] + c[1] * u[1], disc = b * b - (c[0] * c[0] + c[1] * c[1] - r * r);
  *edge |= fabs(disc) < 1e-9;
  if (disc >= 0 && b - sqrt(disc) > 0) {
    best = fmin(best, b - sqrt(disc));
  }
  return best == INFINITY ? 0.0 : best;
}

// OpenHRP's layout: 2 (int)(scanAngle / 2 / scanStep) + 1 beams, the sample humanoid's 257
static void testBeamCount(void) {
  Rig r;
  CU_ASSERT_EQUAL_FATAL(rigMake(&r, NULL, NULL), 0);
  int n = 0;
  CU_ASSERT_PTR_NOT_NULL(lidar(&r, &n));
  CU_ASSERT_EQUAL(n, NBEAM);
  int count = 0;
  const int *order = hss_sensorsOfType(r.st[0], hsSENSOR_RANGE, &count);
  CU_ASSERT_EQUAL(count, 1);
  CU_ASSERT_EQUAL(order[0], hsm_sensorIndex(r.bodies[0], "LIDAR"));
  rigFree(&r);
  hsBody *h = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  hssState *st = hss_makeState(h, NULL);
  int s = hsm_sensorIndex(h, "RANGE_SENSOR");
  CU_ASSERT_EQUAL(hss_rangeBeamCount(&h->sensors[s]), 257);
  hss_reading(st, s, &n);
  CU_ASSERT_EQUAL(n, 257);
  hss_freeState(st);
  hsm_freeBody(h);
  // truncation as OpenHRP: 1.0 / 2 / 0.1f is 4.99999993, so 9 beams, not 11
  hsSensor sn = {0};
  float spec[4] = {1.0f, 0.1f, 10.0f, 10.0f};
  sn.type = hsSENSOR_RANGE;
  sn.specValues = spec;
  sn.nspecValue = 4;
  CU_ASSERT_EQUAL(hss_rangeBeamCount(&sn), 9);
  // scan periods: round(1 / (scanRate dt)) steps, at least 1; every step for scanRate <= 0
  CU_ASSERT_EQUAL(hss_scanPeriod(&sn, 0.001), 100);
  CU_ASSERT_EQUAL(hss_scanPeriod(&sn, 0.003), 33);
  CU_ASSERT_EQUAL(hss_scanPeriod(&sn, 0.5), 1);
  spec[2] = 0;
  CU_ASSERT_EQUAL(hss_scanPeriod(&sn, 0.001), 1);
  spec[1] = 0;
  CU_ASSERT_EQUAL(hss_rangeBeamCount(&sn), 0);
}

// wall and cylinder: every beam within 1e-9 relative of the analytic distance, 0 where the fan
// sees nothing (behind the scanner), its own box unseen
static void testWallAndCylinder(void) {
  Rig r;
  CU_ASSERT_EQUAL_FATAL(rigMake(&r, kScenery, "scenery.wrl"), 0);
  int n = 0, hits = 0, misses = 0, cyl = 0, compared = 0;
  const double *d = lidar(&r, &n);
  CU_ASSERT_EQUAL_FATAL(n, NBEAM);
  for (int k = 0; k < n; k++) {
    int edge = 0;
    double e = expectedBeam(k, &edge);
    if (edge) {
      continue;
    }
    compared++;
    if (e == 0) {
      misses++;
      CU_ASSERT_EQUAL(d[k], 0.0);
    } else {
      hits++;
      cyl += e < 2.9;
      if (fabs(d[k] - e) > 1e-9 * e) {
        CU_FAIL("beam off the analytic distance");
        fprintf(stderr, "\n  beam %d: %.15g, expected %.15g\n", k, d[k], e);
      }
    }
  }
  CU_ASSERT(compared >= NBEAM - 4);
  CU_ASSERT(misses > 100);  // |a| > atan(4/3) misses the wall
  CU_ASSERT(cyl > 10);      // the cylinder shadows part of the wall
  CU_ASSERT(hits > 200);
  // the scene follows the world: another step, same fixed scenery, same bits
  double first[NBEAM];
  memcpy(first, d, sizeof first);
  for (int i = 0; i < 10; i++) {
    dynSteps(r.w, 1);
    rigUpdate(&r);
  }
  CU_ASSERT_EQUAL(memcmp(first, lidar(&r, &n), sizeof first), 0);
  rigFree(&r);
}

// hss_castFan gives the same beams as the sensor
static void testCastFan(void) {
  Rig r;
  CU_ASSERT_EQUAL_FATAL(rigMake(&r, kScenery, "scenery2.wrl"), 0);
  double out[NBEAM], p[3] = {0, 0, 1}, R[9] = {0, 0, -1, -1, 0, 0, 0, 1, 0};
  hss_castFan(hsd_stateScene(r.w), r.scratch, p, R, STEP, NBEAM, out);
  int n;
  const double *d = lidar(&r, &n);
  for (int k = 0; k < NBEAM; k++) {
    HST_NEAR(out[k], d[k], 1e-9 * (1 + d[k]));
  }
  rigFree(&r);
}

// the fan's plane culling (hsc_rayFan) answers as hsc_ray does, bit for bit: the humanoid in
// the sample room (primitives and meshes), a 1,080-beam fan from its chest sensor and the same
// fan tilted by 0.3 rad about the sensor's x (other geoms culled)
static void testFanEqualsRays(void) {
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  hsBody *room = dynLoadSample("env/room.wrl");
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  CU_ASSERT_PTR_NOT_NULL_FATAL(room);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdWorld *w = dynWorld(NULL);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsd_addCharacter(w, "room", room, NULL);
  hsd_addCharacter(w, "robot", robot, NULL);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  const hscScene *scene = hsd_stateScene(w);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  int *scratch = hsu_calloc((size_t)hsc_fanScratchSize(scene), sizeof *scratch);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scratch);
  const hsSensor *sn = &robot->sensors[hsm_sensorById(robot, hsSENSOR_RANGE, 0)];
  const hsBodyState *st = hsd_state(w, 2);
  double p[3], Rl[9], R0[9];
  hsu_rotVec(p, st->linkR + 9 * sn->link, sn->translation);
  for (int j = 0; j < 3; j++) {
    p[j] += st->linkP[3 * sn->link + j];
  }
  hsu_axisAngleToMat(Rl, sn->rotation);
  hsu_mulMat(R0, st->linkR + 9 * sn->link, Rl);
  double c = cos(0.3), sn3 = sin(0.3), tilt[9] = {1, 0, 0, 0, c, -sn3, 0, sn3, c};
  enum { N = 1080 };
  static double fan[N];
  double step = 1.5 * 3.141592653589793 / N;
  for (int pass = 0; pass < 2; pass++) {
    double R[9];
    if (pass == 0) {
      memcpy(R, R0, sizeof R);
    } else {
      hsu_mulMat(R, R0, tilt);
    }
    hss_castFan(scene, scratch, p, R, step, N, fan);
    int same = 0, hits = 0;
    for (int k = 0; k < N; k++) {
      double a = (k - N / 2) * step, l[3] = {-sin(a), 0, -cos(a)}, d[3];
      hsu_rotVec(d, R, l);
      hscRayHit hit;
      double t = hsc_ray(scene, p, d, INFINITY, &hit) ? hit.t : 0.0;
      same += t == fan[k];
      hits += t > 0;
    }
    CU_ASSERT_EQUAL(same, N);
    CU_ASSERT(hits > N / 2);
  }
  hsu_free(scratch);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(room);
  hsm_freeBody(floor);
}

// a sphere falling through the beam at angle 0: scans at steps 0, 10, 20, ... (scanRate 100 Hz,
// dt 1 ms) read 1.5 - sqrt(0.2^2 - dz^2) for the sphere's height dz above the sensor then, and
// hold that value bit for bit between scans
static void testHeldBetweenScans(void) {
  Rig r;
  CU_ASSERT_EQUAL_FATAL(rigMake(&r, kBall, "ball.wrl"), 0);
  CU_ASSERT_DOUBLE_EQUAL_FATAL(hsd_timeStep(r.w), 0.001, 1e-15);
  int n;
  double held = -1, previous = -1;
  int changes = 0;
  for (int k = 0; k <= 60; k++) {
    if (k > 0) {
      dynSteps(r.w, 1);
      rigUpdate(&r);
    }
    double v = lidar(&r, &n)[HALF];
    if (k % 10 == 0) {
      double dz = hsd_state(r.w, 1)->linkP[2] - 1.0;
      double r2 = (double)0.2f * (double)0.2f;  // the radius is an SFFloat
      double e = 1.5 - sqrt(r2 - dz * dz);
      HST_NEAR(v, e, 1e-9 * e);
      changes += previous >= 0 && v != previous;
      previous = held = v;
    } else {
      CU_ASSERT_EQUAL(v, held);
    }
  }
  CU_ASSERT_EQUAL(changes, 6);  // the ball moved between every two scans
  rigFree(&r);
}

// the rays' scene is the world's own (hsd_stateScene lends it at the state's poses, which for a
// composite humanoid differ from the poses its ODE bodies give in the last bits): lending it
// after every step changes no trajectory, bit for bit, with a humanoid standing (composite), a
// ball falling asleep on the floor and the scanner, against the same run without lending
typedef struct LentRun {
  hsdWorld *w;
  hsBody *bodies[4];
} LentRun;

static void lentRun(LentRun *r, int lend, int steps) {
  memset(r, 0, sizeof *r);
  r->bodies[0] = dynLoadSample("floor/floor.wrl");
  r->bodies[1] = dynLoadSample("humanoid/humanoid.wrl");
  r->bodies[2] = dynLoadText("ball-lent.wrl", kBall);
  r->bodies[3] = dynLoadText("scanner-lent.wrl", kScanner);
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->bodies[i]);
  }
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.sleep = 1;
  r->w = dynWorld(&opt);
  const char *names[4] = {"floor", "robot", "ball", "scanner"};
  for (int ch = 0; ch < 4; ch++) {
    CU_ASSERT_EQUAL(hsd_addCharacter(r->w, names[ch], r->bodies[ch], NULL), ch);
  }
  hsdSurface sf = {0.5, 0.5, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(r->w, 1, -1, 0, -1, &sf, NULL), 0);
  CU_ASSERT_EQUAL(hsd_addContactPair(r->w, 2, -1, 0, -1, &sf, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setAllJointModes(r->w, 1, hsMODE_HIGH_GAIN, NULL), 0);
  dynPlace(r->w, 1, 0, -1, 0.8, NULL);
  dynPlace(r->w, 2, 1.5, 0, 0.3, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(r->w, NULL), 0);
  for (int k = 0; k < steps; k++) {
    dynSteps(r->w, 1);
    if (lend) {
      CU_ASSERT_PTR_NOT_NULL(hsd_stateScene(r->w));
    }
  }
}

static void lentFree(LentRun *r) {
  hsd_freeWorld(r->w);
  for (int i = 0; i < 4; i++) {
    hsm_freeBody(r->bodies[i]);
  }
}

static void testLentSceneKeepsTrajectories(void) {
  LentRun a, b;
  lentRun(&a, 0, 1500);
  lentRun(&b, 1, 1500);
  CU_ASSERT(hsd_sleeping(b.w, 2));  // the ball went to sleep on the floor
  for (int ch = 0; ch < 4; ch++) {
    const hsBodyState *x = hsd_state(a.w, ch), *y = hsd_state(b.w, ch);
    size_t n = (size_t)a.bodies[ch]->nlink;
    CU_ASSERT_EQUAL(memcmp(x->linkP, y->linkP, 3 * n * sizeof(double)), 0);
    CU_ASSERT_EQUAL(memcmp(x->linkR, y->linkR, 9 * n * sizeof(double)), 0);
  }
  // the robot stood: its waist is still up
  CU_ASSERT(hsd_state(b.w, 1)->linkP[2] > 0.5);
  lentFree(&a);
  lentFree(&b);
}

// a scan (posing the scene, casting, noise) allocates nothing: with the next allocation set to
// fail, the scans run and the first allocation afterwards is the one that fails. Making a
// state with any one allocation failing gives NULL and hsE_NOMEM, no leak.
static void testNoAllocation(void) {
  Rig r;
  CU_ASSERT_EQUAL_FATAL(rigMake(&r, kScenery, "scenery7.wrl"), 0);
  hssNoiseSpec rg = {{0.02}, {0.01}};
  CU_ASSERT_EQUAL(hss_setNoise(r.st[0], hsSENSOR_RANGE, &rg, 1, 0, NULL), 0);
  CU_ASSERT_EQUAL(hss_setLimits(r.st[0], 1, NULL), 0);
  hsu_failAllocAfter(1);
  for (int k = 0; k < 30; k++) {
    dynSteps(r.w, 1);
    rigUpdate(&r);
  }
  void *p = hsu_malloc(16);
  CU_ASSERT_PTR_NULL(p);  // the injected failure was still pending
  hsu_free(p);
  hsu_failAllocAfter(0);
  int failed = 0;
  for (int n = 1; n < 200; n++) {
    hsError err = {0};
    hsu_failAllocAfter(n);
    hssState *st = hss_makeState(r.bodies[0], &err);
    hsu_failAllocAfter(0);
    failed += !st;
    if (!st && err.code != hsE_NOMEM) {
      CU_FAIL("a failed make did not report hsE_NOMEM");
    }
    hss_freeState(st);
    if (st) {
      break;
    }
  }
  CU_ASSERT(failed > 2);
  rigFree(&r);
}

// sample mean and standard deviation within 3 standard errors of (bias, std): n samples x
static void checkStats(const double *x, int n, double bias, double std) {
  double m = 0, v = 0;
  for (int i = 0; i < n; i++) {
    m += x[i];
  }
  m /= n;
  for (int i = 0; i < n; i++) {
    v += (x[i] - m) * (x[i] - m);
  }
  double s = sqrt(v / (n - 1));
  // standard error of the mean std / sqrt(n); of the sample std about std / sqrt(2 (n - 1))
  if (fabs(m - bias) > 3 * std / sqrt(n) || fabs(s - std) > 3 * std / sqrt(2.0 * (n - 1))) {
    CU_FAIL("noise statistics off");
    fprintf(stderr, "\n  mean %.6g (bias %g), std %.6g (std %g), n %d\n", m, bias, s, std, n);
  }
}

// the scanner's gyro reads exactly 0 (fixed): its noisy readings are pure noise; the range
// residuals against the analytic distances likewise
static void testNoiseStatistics(void) {
  Rig r;
  CU_ASSERT_EQUAL_FATAL(rigMake(&r, kScenery, "scenery3.wrl"), 0);
  hssNoiseSpec g = {{0.01, 0.02, 0.03}, {0.005, -0.01, 0}};
  hssNoiseSpec rg = {{0.02}, {0.01}};
  CU_ASSERT_EQUAL(hss_setNoise(r.st[0], hsSENSOR_RATEGYRO, &g, 42, 0, NULL), 0);
  CU_ASSERT_EQUAL(hss_setNoise(r.st[0], hsSENSOR_RANGE, &rg, 42, 0, NULL), 0);
  enum { STEPS = 2000 };
  static double gx[3][STEPS], res[40 * NBEAM];
  int nres = 0, gyro = hsm_sensorIndex(r.bodies[0], "GYRO0");
  for (int k = 0; k < STEPS; k++) {
    dynSteps(r.w, 1);
    rigUpdate(&r);
    int n;
    const double *v = hss_reading(r.st[0], gyro, &n);
    for (int j = 0; j < 3; j++) {
      gx[j][k] = v[j];
    }
    if (hsd_stepCount(r.w) % 50 == 0) {  // every 5th scan: 40 scans
      const double *d = lidar(&r, &n);
      for (int b = 0; b < n; b++) {
        int edge;
        double e = expectedBeam(b, &edge);
        if (!edge && e > 0) {
          res[nres++] = d[b] - e;
        } else if (!edge) {
          CU_ASSERT_EQUAL(d[b], 0.0);  // no noise on "no hit"
        }
      }
    }
  }
  for (int j = 0; j < 3; j++) {
    checkStats(gx[j], STEPS, g.bias[j], g.std[j]);
  }
  CU_ASSERT(nres > 5000);
  checkStats(res, nres, rg.bias[0], rg.std[0]);
  rigFree(&r);
}

// the same seed gives the same bits, another seed other numbers; a restart (reseed) repeats
static void testNoiseSeeds(void) {
  double runs[3][300];
  uint64_t seeds[3] = {7, 7, 8};
  for (int i = 0; i < 3; i++) {
    Rig r;
    CU_ASSERT_EQUAL_FATAL(rigMake(&r, kScenery, "scenery4.wrl"), 0);
    hssNoiseSpec spec = {{0.1, 0.1, 0.1}, {0}};
    CU_ASSERT_EQUAL(hss_setNoise(r.st[0], hsSENSOR_RATEGYRO, &spec, seeds[i], 3, NULL), 0);
    int gyro = hsm_sensorIndex(r.bodies[0], "GYRO0");
    for (int k = 0; k < 100; k++) {
      dynSteps(r.w, 1);
      rigUpdate(&r);
      memcpy(runs[i] + 3 * k, hss_reading(r.st[0], gyro, NULL), 3 * sizeof(double));
    }
    rigFree(&r);
  }
  CU_ASSERT_EQUAL(memcmp(runs[0], runs[1], sizeof runs[0]), 0);
  CU_ASSERT_NOT_EQUAL(memcmp(runs[0], runs[2], sizeof runs[0]), 0);
  // a generator restarted gives its sequence again
  uint64_t a = 99, b = 99;
  double x = hss_normal(&a);
  CU_ASSERT_EQUAL(x, hss_normal(&b));
  // bad specs refused, nothing changed
  hsBody *body = dynLoadText("scanner5.wrl", kScanner);
  hssState *st = hss_makeState(body, NULL);
  hssNoiseSpec bad = {{-1}, {0}};
  hsError err = {0};
  CU_ASSERT_EQUAL(hss_setNoise(st, hsSENSOR_RATEGYRO, &bad, 1, 0, &err), hsE_INVALID);
  CU_ASSERT_EQUAL(hss_setNoise(st, hsSENSOR_VISION, &bad, 1, 0, &err), hsE_INVALID);
  CU_ASSERT_PTR_NULL(st->noise);
  hss_freeState(st);
  hsm_freeBody(body);
}

// limits: the gyro (maxAngularVelocity 1) saturates at +-1 under a bias of 3; range hits beyond
// maxDistance 2.5 (the wall at 3 m and more) read 0, the cylinder's (< 2.5 m) stay exact
static void testLimits(void) {
  Rig r;
  CU_ASSERT_EQUAL_FATAL(rigMake(&r, kScenery, "scenery6.wrl"), 0);
  hssNoiseSpec g = {{0.5, 0.5, 0.5}, {3, -3, 0.8}};
  CU_ASSERT_EQUAL(hss_setNoise(r.st[0], hsSENSOR_RATEGYRO, &g, 5, 0, NULL), 0);
  CU_ASSERT_EQUAL(hss_setLimits(r.st[0], 1, NULL), 0);
  int gyro = hsm_sensorIndex(r.bodies[0], "GYRO0"), at[3] = {0, 0, 0}, inside = 0;
  for (int k = 0; k < 200; k++) {
    dynSteps(r.w, 1);
    rigUpdate(&r);
    const double *v = hss_reading(r.st[0], gyro, NULL);
    for (int j = 0; j < 3; j++) {
      CU_ASSERT(v[j] >= -1.0 && v[j] <= 1.0);
      at[j] += fabs(v[j]) == 1.0;
    }
    inside += fabs(v[2]) < 1.0;
  }
  CU_ASSERT_EQUAL(at[0], 200);  // 3 +- 0.5: always above the limit
  CU_ASSERT_EQUAL(at[1], 200);
  CU_ASSERT(at[2] > 20 && inside > 20);  // 0.8 +- 0.5: both sides of the limit
  int n, cyl = 0;
  const double *d = lidar(&r, &n);
  for (int k = 0; k < n; k++) {
    int edge;
    double e = expectedBeam(k, &edge);
    if (edge) {
      continue;
    }
    if (e > 2.5 || e == 0) {
      CU_ASSERT_EQUAL(d[k], 0.0);
    } else {
      cyl++;
      HST_NEAR(d[k], e, 1e-9 * e);
    }
  }
  CU_ASSERT(cyl > 10);
  rigFree(&r);
}

void register_range(void) {
  CU_pSuite s = hst_addSuite("range sensors and noise");
  CU_add_test(s, "beam count and order (OpenHRP's layout)", testBeamCount);
  CU_add_test(s, "wall and cylinder: analytic distances, 0 for no hit", testWallAndCylinder);
  CU_add_test(s, "hss_castFan matches the sensor", testCastFan);
  CU_add_test(s, "lending the world's scene to the rays changes no trajectory",
              testLentSceneKeepsTrajectories);
  CU_add_test(s, "fan culling answers as hsc_ray, bit for bit", testFanEqualsRays);
  CU_add_test(s, "scan rate: readings held between scans", testHeldBetweenScans);
  CU_add_test(s, "noise: mean and std within 3 standard errors", testNoiseStatistics);
  CU_add_test(s, "noise: same seed same bits", testNoiseSeeds);
  CU_add_test(s, "limits: saturation and range dropouts", testLimits);
  CU_add_test(s, "scans allocate nothing; failed makes clean up", testNoAllocation);
}
