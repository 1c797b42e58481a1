// test_sleep.c - many bodies: the broad phase (hsdOptions.broadPhase) changes no bit of a run,
// and sleeping (hsdOptions.sleep) puts a pile at rest to sleep, deterministically, and wakes it
// when it is hit, pushed or teleported.

#include "dyn_helpers.h"

// a world of the floor and n boxes in layers of 9 (3 x 3, 0.12 m apart, each layer shifted and
// turned), every box/box and box/floor pair registered (and box 1 with the floor a second time,
// by link: two registered pairs give the same link pair); extra boxes (n > 27 is not needed)
static hsdWorld *pileWorld(const hsBody *box, const hsBody *floor, int n, int broad, int sleep) {
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.broadPhase = broad;
  o.sleep = sleep;
  hsdWorld *w = dynWorld(&o);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsdSurface s = {0.5, 0.4, 0, 0.01};
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "box%d", i);
    int ch = hsd_addCharacter(w, name, box, NULL);
    double yaw = 0.2 * (i / 9), c = cos(yaw), sn = sin(yaw);
    double R[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
    double x = (i % 3 - 1) * 0.12 + 0.05 * (i / 9), y = (i % 9 / 3 - 1) * 0.12 + 0.04 * (i / 9);
    dynPlace(w, ch, x, y, 0.06 + 0.12 * (i / 9), R);
    hsd_addContactPair(w, ch, -1, 0, -1, &s, NULL);
    for (int j = 1; j < ch; j++) {
      hsd_addContactPair(w, j, -1, ch, -1, &s, NULL);
    }
  }
  hsd_addContactPair(w, 0, 0, 1, 0, &s, NULL);
  return w;
}

// 1 if two worlds' characters and contacts are bit-identical
static int sameWorlds(const hsdWorld *a, const hsdWorld *b) {
  for (int ch = 0; ch < hsd_characterCount(a); ch++) {
    const hsBodyState *sa = hsd_state(a, ch), *sb = hsd_state(b, ch);
    if (memcmp(sa->rootP, sb->rootP, sizeof sa->rootP) ||
        memcmp(sa->rootR, sb->rootR, sizeof sa->rootR) ||
        memcmp(hsd_linkMotion(a, ch, 0), hsd_linkMotion(b, ch, 0), sizeof(hsdLinkMotion)) ||
        hsd_sleeping(a, ch) != hsd_sleeping(b, ch)) {
      return 0;
    }
  }
  int na, nb;
  const hsdContact *ca = hsd_contacts(a, &na), *cb = hsd_contacts(b, &nb);
  return na == nb && memcmp(ca, cb, (size_t)na * sizeof *ca) == 0;
}

// the broad phase on and off: the same run to the bit (sleeping off), contacts included, while a
// pile forms (the automatic stepper switches to QuickStep) and a humanoid falls over beside it
static void testBroadPhaseBitIdentical(void) {
  hsBody *box = dynBox("sleep_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  hsdWorld *w[2];
  for (int k = 0; k < 2; k++) {
    w[k] = pileWorld(box, floor, 27, k ? hsBROAD_ON : hsBROAD_OFF, 0);
    int r = hsd_addCharacter(w[k], "robot", robot, NULL);
    const hsBodyState *st = hsd_state(w[k], r);
    dynPlace(w[k], r, 1.0, 0, st->rootP[2], st->rootR);
    hsdSurface s = {0.5, 0.4, 0, 0.01};
    hsd_addContactPair(w[k], 0, -1, r, -1, &s, NULL);
    hsd_addContactPair(w[k], r, -1, r, -1, &s, NULL);  // self-collision
    CU_ASSERT_EQUAL_FATAL(hsd_init(w[k], NULL), 0);
  }
  int diverged = -1, most = 0;
  for (int i = 1; i <= 800 && diverged < 0; i++) {
    dynSteps(w[0], 1);
    dynSteps(w[1], 1);
    if (!sameWorlds(w[0], w[1])) {
      diverged = i;
    }
    int n;
    hsd_contacts(w[0], &n);
    most = n > most ? n : most;
  }
  CU_ASSERT_EQUAL(diverged, -1);
  CU_ASSERT(most > 27 * 4);  // the run did make contacts: boxes on the floor and on each other
  CU_ASSERT_EQUAL(hsd_warningCount(w[1]), 0);
  hsd_freeWorld(w[0]);
  hsd_freeWorld(w[1]);
  hsm_freeBody(robot);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// pairs registered after hsd_init are not in the broad phase's table: the step walks every pair
// and finds their contacts all the same
static void testPairsAfterInit(void) {
  hsBody *box = dynBox("sleep_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.broadPhase = hsBROAD_ON;
  hsdWorld *w = dynWorld(&o);
  hsd_addCharacter(w, "floor", floor, NULL);
  hsd_addCharacter(w, "box", box, NULL);
  dynPlace(w, 1, 0, 0, 0.0499, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  dynSteps(w, 1);
  int n;
  hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 0);
  hsdSurface s = {0.5, 0.4, 0, 0.01};
  CU_ASSERT_EQUAL(hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL), 0);
  dynSteps(w, 1);
  hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 4);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// ODE's pivoting solver (dWorldStep, which small islands use) logs "LCP internal error, s <= 0"
// now and then on a stack of boxes with redundant contact points; the same scenes log it with
// sleeping off too. Allow those messages, and only those, in the pile tests.
static void allowLcpLogs(void) {
  hst_expectLog(1);
}

// 1 if nothing but ODE's LCP message was logged in this test
static int onlyLcpLogs(void) {
  return hst_logCount() == 0 || strstr(hst_lastLog(), "LCP internal error") != NULL;
}

// number of sleeping characters
static int sleepers(const hsdWorld *w) {
  int n = 0;
  for (int ch = 0; ch < hsd_characterCount(w); ch++) {
    n += hsd_sleeping(w, ch);
  }
  return n;
}

// broad phase and sleeping on: two worlds stepped side by side stay bit-identical while the
// pile forms, falls asleep and is woken by a box dropped onto it
static void testSleepDeterminism(void) {
  hsBody *box = dynBox("sleep_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  allowLcpLogs();
  hsdWorld *w[2];
  for (int k = 0; k < 2; k++) {
    w[k] = pileWorld(box, floor, 19, hsBROAD_ON, 1);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w[k], NULL), 0);
  }
  int diverged = -1, slept = 0;
  double top[3] = {0.05, 0.04, 0.6}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int i = 1; i <= 3000 && diverged < 0; i++) {
    if (i == 2000) {
      for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(hsd_setLinkPose(w[k], 19, 0, top, I, NULL), 0);
      }
    }
    dynSteps(w[0], 1);
    dynSteps(w[1], 1);
    if (!sameWorlds(w[0], w[1])) {
      diverged = i;
    }
    slept = sleepers(w[0]) > slept ? sleepers(w[0]) : slept;
  }
  CU_ASSERT_EQUAL(diverged, -1);
  CU_ASSERT(slept >= 15);  // most of the pile did fall asleep
  CU_ASSERT(onlyLcpLogs());
  hsd_freeWorld(w[0]);
  hsd_freeWorld(w[1]);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// a pile falls asleep (every box, no contacts asked about, poses frozen to the bit), and a box
// dropped onto it wakes it: the boxes it hits move and their sleep flags clear
static void testSleepingPileWakes(void) {
  hsBody *box = dynBox("sleep_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  allowLcpLogs();
  // 18 boxes in two layers, and a 19th resting apart, far away, until it is dropped
  hsdWorld *w = pileWorld(box, floor, 18, hsBROAD_AUTO, 1);
  int drop = hsd_addCharacter(w, "drop", box, NULL);
  hsdSurface s = {0.5, 0.4, 0, 0.01};
  hsd_addContactPair(w, 0, -1, drop, -1, &s, NULL);
  for (int j = 1; j < drop; j++) {
    hsd_addContactPair(w, j, -1, drop, -1, &s, NULL);
  }
  dynPlace(w, drop, 3, 3, 0.05, NULL);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  int all = -1;
  for (int i = 1; i <= 3000 && all < 0; i++) {
    dynSteps(w, 1);
    if (sleepers(w) == 19) {
      all = i;
    }
  }
  CU_ASSERT_FATAL(all > 0);  // everything at rest fell asleep
  dynSteps(w, 1);            // (the step that put the last to sleep had found contacts)
  int n;
  hsd_contacts(w, &n);
  CU_ASSERT_EQUAL(n, 0);  // a sleeping pile on a floor asks for no contacts
  // asleep, nothing moves, to the bit
  double before[19][12];
  for (int ch = 1; ch <= 18; ch++) {
    const hsBodyState *st = hsd_state(w, ch);
    memcpy(before[ch], st->rootP, sizeof st->rootP);
    memcpy(before[ch] + 3, st->rootR, sizeof st->rootR);
  }
  dynSteps(w, 100);
  int frozen = 1;
  double topZ = 0;
  int topBox = 1;
  for (int ch = 1; ch <= 18; ch++) {
    const hsBodyState *st = hsd_state(w, ch);
    frozen &= memcmp(before[ch], st->rootP, sizeof st->rootP) == 0 &&
              memcmp(before[ch] + 3, st->rootR, sizeof st->rootR) == 0;
    if (st->rootP[2] > topZ) {
      topZ = st->rootP[2];
      topBox = ch;
    }
  }
  CU_ASSERT(frozen);
  CU_ASSERT(topZ > 0.1);  // a second layer exists
  // drop the 19th box from 0.3 m above the highest box, a little off its centre
  const hsBodyState *tb = hsd_state(w, topBox);
  double p[3] = {tb->rootP[0] + 0.02, tb->rootP[1] - 0.01, topZ + 0.3};
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hsd_setLinkPose(w, drop, 0, p, I, NULL), 0);
  dynSteps(w, 1);
  CU_ASSERT_EQUAL(hsd_sleeping(w, drop), 0);  // a teleport wakes
  CU_ASSERT(hsd_sleeping(w, topBox));          // the pile sleeps until it is hit
  int woke = 0;
  double moved = 0;
  for (int i = 0; i < 400; i++) {
    dynSteps(w, 1);
    woke |= !hsd_sleeping(w, topBox);
    const hsBodyState *st = hsd_state(w, topBox);
    for (int j = 0; j < 3; j++) {
      moved = fmax(moved, fabs(st->rootP[j] - before[topBox][j]));
    }
  }
  CU_ASSERT(woke);           // its sleep flag cleared
  CU_ASSERT(moved > 1e-4);   // and it moved
  CU_ASSERT(hsd_state(w, drop)->rootP[2] > topZ);  // the dropped box rests on the pile
  CU_ASSERT(onlyLcpLogs());
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// a box asleep on the floor wakes when pushed (external force) and when sleeping is turned off;
// with the default options (OpenHRP's DynamicsSimulator) nothing ever sleeps; a standing
// humanoid never sleeps
static void testWakeAndDefaults(void) {
  hsBody *box = dynBox("sleep_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  hsBody *robot = dynLoadSample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot);
  for (int on = 0; on < 2; on++) {
    hsdWorld *w = dynWorld(NULL);
    hsd_addCharacter(w, "floor", floor, NULL);
    hsd_addCharacter(w, "box", box, NULL);
    int r = hsd_addCharacter(w, "robot", robot, NULL);
    hsd_setAllJointModes(w, r, hsMODE_HIGH_GAIN, NULL);
    const hsBodyState *st = hsd_state(w, r);
    dynPlace(w, r, 1.0, 0, st->rootP[2], st->rootR);
    dynPlace(w, 1, 0, 0, 0.0499, NULL);
    hsdSurface s = {0.5, 0.4, 0, 0.01};
    hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL);
    hsd_addContactPair(w, 0, -1, r, -1, &s, NULL);
    CU_ASSERT_EQUAL(hsd_setSleep(w, on, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    int boxSlept = 0, robotSlept = 0;
    for (int i = 0; i < 1000; i++) {
      dynSteps(w, 1);
      boxSlept |= hsd_sleeping(w, 1);
      robotSlept |= hsd_sleeping(w, r);
    }
    CU_ASSERT_EQUAL(boxSlept, on);
    CU_ASSERT_EQUAL(robotSlept, 0);
    if (on) {
      CU_ASSERT(hsd_sleeping(w, 1));
      // pushed sideways for one step: awake, and sliding
      double f[3] = {50, 0, 0}, t[3] = {0, 0, 0};
      double x0 = hsd_state(w, 1)->rootP[0];
      hsd_setExternalForce(w, 1, 0, f, t, NULL);
      dynSteps(w, 1);
      CU_ASSERT_EQUAL(hsd_sleeping(w, 1), 0);
      CU_ASSERT(hsd_linkMotion(w, 1, 0)->v[0] > 0.01);
      dynSteps(w, 1000);
      CU_ASSERT(hsd_state(w, 1)->rootP[0] > x0 + 1e-4);
      CU_ASSERT(hsd_sleeping(w, 1));  // at rest again
      // sleeping switched off: awake at once
      CU_ASSERT_EQUAL(hsd_setSleep(w, 0, NULL), 0);
      CU_ASSERT_EQUAL(hsd_sleeping(w, 1), 0);
      dynSteps(w, 1000);
      CU_ASSERT_EQUAL(hsd_sleeping(w, 1), 0);
    }
    hsd_freeWorld(w);
  }
  CU_ASSERT_EQUAL(hsd_setSleep(NULL, 1, NULL), hsE_INVALID);
  hsdOptions o;
  hsd_defaultOptions(&o);
  CU_ASSERT_EQUAL(o.sleep, 0);
  o.broadPhase = 7;
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, NULL));
  hsd_defaultOptions(&o);
  o.sleepTime = -1;
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, NULL));
  hsd_defaultOptions(&o);
  o.sleepLinearAcc = -1;
  CU_ASSERT_PTR_NULL(hsd_makeWorld(&o, NULL));
  hsm_freeBody(robot);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

// a 1 kg box (0.2 x 0.2 x 0.1) let go at rest on floor/slope.wrl (10 degrees, down along +x)
// with friction mu, sleeping on; sleepLinearAcc < 0: the default. Returns the world (box is
// character 0); *box and *slope are to be freed by the caller
static hsdWorld *slopeWorld(double mu, int sleep, double linAcc, hsBody **box, hsBody **slope) {
  *box = dynBox("sleep_slope_box.wrl", 1, 0.2, 0.2, 0.1, 0, 0, 0, NULL);
  *slope = dynLoadSample("floor/slope.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(*box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*slope);
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.sleep = sleep;
  if (linAcc >= 0) {
    o.sleepLinearAcc = linAcc;
  }
  hsdWorld *w = dynWorld(&o);
  hsd_addCharacter(w, "box", *box, NULL);
  hsd_addCharacter(w, "slope", *slope, NULL);
  hsdSurface s = {mu, mu, 0, 0.01};
  hsd_addContactPair(w, 0, -1, 1, -1, &s, NULL);
  double th = 0.1745329252, c = cos(th), sn = sin(th);
  double R[9] = {c, 0, sn, 0, 1, 0, -sn, 0, c};
  dynPlace(w, 0, 0.05 * sn, 0, 0.05 * c, R);
  CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
  return w;
}

// speed of the box down the slope
static double downSlope(const hsdWorld *w) {
  double th = 0.1745329252, d[3] = {cos(th), 0, -sin(th)};
  return hsu_dot(hsd_linkMotion(w, 0, 0)->v, d);
}

// a slow body that speeds up does not sleep: mu = 0.17 on a 10 degree slope (the friction angle
// atan 0.17 = 9.65 degrees, 0.35 below the slope) slides from rest with a = g (sin - mu cos) =
// 0.0611 m/s^2, under the 0.02 m/s sleep threshold for its first 0.33 s, longer than sleepTime.
// With sleeping on it never sleeps in 2 s, runs bit for bit as with sleeping off, and its
// acceleration over 0.5..2 s is the closed form within 2 % (the solver's friction is exact:
// observed under 1e-6 %). Without the acceleration check (sleepLinearAcc huge) ODE's
// auto-disable puts it to sleep: the bug this check fixes. Below the friction angle (mu = 0.2)
// it still sleeps, within 0.5 s, having moved less than 0.1 mm.
static void testSlopeSlidesAwake(void) {
  hsBody *box[4], *slope[4];
  hsdWorld *on = slopeWorld(0.17, 1, -1, &box[0], &slope[0]);
  hsdWorld *off = slopeWorld(0.17, 0, -1, &box[1], &slope[1]);
  hsdWorld *old = slopeWorld(0.17, 1, 1e9, &box[2], &slope[2]);
  int slept = 0, oldSlept = 0, same = 1;
  double v0 = 0;
  for (int i = 1; i <= 2000; i++) {
    dynSteps(on, 1);
    dynSteps(off, 1);
    dynSteps(old, 1);
    slept |= hsd_sleeping(on, 0);
    oldSlept |= hsd_sleeping(old, 0);
    same &= memcmp(hsd_state(on, 0)->rootP, hsd_state(off, 0)->rootP, 3 * sizeof(double)) == 0 &&
            memcmp(hsd_linkMotion(on, 0, 0), hsd_linkMotion(off, 0, 0), sizeof(hsdLinkMotion)) ==
                0;
    if (i == 500) {
      v0 = downSlope(on);
    }
  }
  double th = 0.1745329252, want = 9.8 * (sin(th) - 0.17 * cos(th));
  double a = (downSlope(on) - v0) / 1.5;
  fprintf(stderr, " [a %.6f, want %.6f: %.2g %%; without the check asleep: %d] ", a, want,
          100 * fabs(a - want) / want, oldSlept);
  CU_ASSERT_EQUAL(slept, 0);
  CU_ASSERT(same);
  CU_ASSERT(fabs(a - want) / want < 0.02);
  CU_ASSERT_EQUAL(oldSlept, 1);
  CU_ASSERT(downSlope(old) < 0.01 * want);  // asleep: it stopped sliding
  // below the friction angle: asleep within 0.5 s, and it did not move
  hsdWorld *stuck = slopeWorld(0.2, 1, -1, &box[3], &slope[3]);
  double p0[3];
  memcpy(p0, hsd_state(stuck, 0)->rootP, sizeof p0);
  dynSteps(stuck, 500);
  CU_ASSERT(hsd_sleeping(stuck, 0));
  const double *p1 = hsd_state(stuck, 0)->rootP;
  double d[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  CU_ASSERT(hsu_norm(d) < 1e-4);
  hsdWorld *ws[4] = {on, off, old, stuck};
  for (int k = 0; k < 4; k++) {
    hsd_freeWorld(ws[k]);
    hsm_freeBody(box[k]);
    hsm_freeBody(slope[k]);
  }
}

// a tower of 6 boxes (0.1 m cubes, 0.5 kg, each turned 0.1 rad more than the one below) on the
// floor, sleeping off: one island of 6 x 4 contact points (72 rows), which hsSTEPPER_AUTO gives
// to QuickStep (more than pileRows, no robot). After 3 s the tower stands: every box within
// 1 mm of where it was put (observed below 0.1 mm: QuickStep's softness), the
// top box no more than 1 mm lower, every step on QuickStep once the tower touches down; the
// direct solver (hsSTEPPER_WORLD) gives the same within 1 mm
static void testStackStands(void) {
  hsBody *box = dynBox("sleep_box.wrl", 0.5, 0.1, 0.1, 0.1, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  double top[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    hsdOptions o;
    hsd_defaultOptions(&o);
    o.stepper = k ? hsSTEPPER_WORLD : hsSTEPPER_AUTO;
    hsdWorld *w = dynWorld(&o);
    hsd_addCharacter(w, "floor", floor, NULL);
    hsdSurface s = {0.5, 0.5, 0, 0.01};
    double p0[6][3];
    for (int i = 0; i < 6; i++) {
      char name[16];
      snprintf(name, sizeof name, "box%d", i);
      int ch = hsd_addCharacter(w, name, box, NULL);
      double c = cos(0.1 * i), sn = sin(0.1 * i), R[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
      p0[i][0] = 0.3;
      p0[i][1] = -0.2;
      p0[i][2] = 0.05 + 0.1 * i;
      dynPlace(w, ch, p0[i][0], p0[i][1], p0[i][2], R);
      for (int j = 0; j < ch; j++) {
        hsd_addContactPair(w, j, -1, ch, -1, &s, NULL);
      }
    }
    CU_ASSERT_EQUAL_FATAL(hsd_init(w, NULL), 0);
    dynSteps(w, 10);
    hsdStepStats st0, st1;
    hsd_stepStats(w, &st0);
    dynSteps(w, 2990);
    hsd_stepStats(w, &st1);
    double most = 0;
    for (int i = 0; i < 6; i++) {
      const double *p = hsd_state(w, i + 1)->rootP;
      double d[3] = {p[0] - p0[i][0], p[1] - p0[i][1], p[2] - p0[i][2]};
      most = fmax(most, hsu_norm(d));
    }
    top[k] = hsd_state(w, 6)->rootP[2];
    fprintf(stderr, " [%s: moved %.2g m, top %.6f m, QuickStep %ld of %ld] ",
            k ? "dWorldStep" : "auto", most, top[k], st1.quickSteps - st0.quickSteps, 2990L);
    CU_ASSERT(most < 1e-3);
    CU_ASSERT(top[k] > 0.55 - 1e-3);
    if (k == 0 && hsd_options(w)->engine == hsENGINE_ODE) {  // (the ODE engine's stepper)
      CU_ASSERT_EQUAL(st1.quickSteps - st0.quickSteps, 2990);
      CU_ASSERT(st1.rows > 60);  // (23 of the 24 points: one corner pair shares a point)
    }
    hsd_freeWorld(w);
  }
  HST_NEAR(top[0], top[1], 1e-3);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

void register_sleep(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_sleep");
  CU_add_test(s, "broad phase on and off: bit-identical runs", testBroadPhaseBitIdentical);
  CU_add_test(s, "pairs registered after hsd_init", testPairsAfterInit);
  CU_add_test(s, "broad phase and sleeping: bit-identical twice", testSleepDeterminism);
  CU_add_test(s, "a sleeping pile wakes when a box falls on it", testSleepingPileWakes);
  CU_add_test(s, "wake by force and by switching off; defaults never sleep",
              testWakeAndDefaults);
  CU_add_test(s, "a slow box speeding up on a slope stays awake", testSlopeSlidesAwake);
  CU_add_test(s, "a tower of boxes stands on QuickStep", testStackStands);
}
