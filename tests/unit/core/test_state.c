// test_state.c - saving and restoring a simulation (hs_saveState, hs_restoreState): a run
// restored from a state saved after step k and continued is the uninterrupted run bit for bit
// (the whole state's bytes, which hold every link pose, velocity, sensor reading, noise
// generator and sleep counter, compared at the end), on both engines, for a pile of boxes that
// falls asleep, a humanoid walking its joints on the floor (composite) and an arm in torque
// mode (articulated) with sensor noise; into a fresh simulation (rebuilt from the state's start)
// and into the same one (no rebuild). A state of other models or a damaged one is refused,
// naming the difference, and nothing changes.

#include <CUnit/CUnit.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dynamics.h"
#include "model.h"
#include "openhrp_fixtures.h"
#include "test_support.h"

enum { PILE, HUMANOID, ARM };

static hsBody *boxBody(void) {
  const char *text =
      "DEF BOXBODY Humanoid { humanoidBody [\n"
      " DEF BOX Joint { jointType \"free\" children [\n"
      "  DEF BOX_LINK Segment { mass 0.5 centerOfMass 0 0 0\n"
      "   momentsOfInertia [0.000833 0 0 0 0.000833 0 0 0 0.000833]\n"
      "   children Shape { geometry Box { size 0.1 0.1 0.1 } } } ] } ]\n"
      " joints [ USE BOX ] }\n";
  hsBody *b = hst_loadVrmlText("state_box.wrl", text);
  CU_ASSERT_PTR_NOT_NULL(b);
  return b;
}

static hsBody *sample(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", HST_SAMPLES_DIR, rel);
  hsError err = {0};
  hsBody *b = hs_loadBody(path, &err);
  CU_ASSERT_PTR_NOT_NULL(b);
  return b;
}

static void place(hsSim *sim, int ch, double x, double y, double z, double yaw) {
  double c = cos(yaw), s = sin(yaw);
  double T[12] = {x, y, z, c, -s, 0, s, c, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hs_setLinkData(sim, ch, 0, hsDATA_ABS_TRANSFORM, T, 12, NULL), 0);
}

// a simulation of scene kind on engine ("ode" or "joint_space"), not started; nboxes boxes in
// the pile
static hsSim *makeScene(int kind, const char *engine, int nboxes) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(&err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  CU_ASSERT_EQUAL(hs_setSolver(sim, engine, 0, NULL, NULL, &err), 0);
  CU_ASSERT_EQUAL(hs_addCharacter(sim, "floor", sample("floor/floor.wrl"), 1, &err), 0);
  if (kind == PILE) {
    hsBody *box = boxBody();
    for (int i = 0; i < nboxes; i++) {
      char name[16];
      snprintf(name, sizeof name, "box%d", i);
      int ch = hs_addCharacter(sim, name, box, i == 0, &err);
      CU_ASSERT_EQUAL(ch, i + 1);
      place(sim, ch, (i % 3 - 1) * 0.12, (i % 6 / 3) * 0.12, 0.06 + 0.12 * (i / 6), 0.2 * i);
      CU_ASSERT_EQUAL(hs_addContactPair(sim, name, "", "floor", "", 0.5, 0.4, 0, 0.01, &err), 0);
      for (int j = 0; j < i; j++) {
        char other[16];
        snprintf(other, sizeof other, "box%d", j);
        CU_ASSERT_EQUAL(hs_addContactPair(sim, other, "", name, "", 0.5, 0.4, 0, 0.01, &err),
                        0);
      }
    }
    CU_ASSERT_EQUAL(hs_setSleep(sim, 1, &err), 0);
  } else if (kind == HUMANOID) {
    int ch = hs_addCharacter(sim, "robot", sample("humanoid/humanoid.wrl"), 1, &err);
    CU_ASSERT_EQUAL(ch, 1);
    CU_ASSERT_EQUAL(hs_setAllJointModes(sim, ch, 1, &err), 0);
    const double *p = hs_linkP(sim, ch);
    place(sim, ch, 0, 0, p[2] + 0.02, 0);
    CU_ASSERT_EQUAL(hs_addContactPair(sim, "robot", "", "floor", "", 0.5, 0.4, 0, 0.01, &err),
                    0);
  } else {
    int ch = hs_addCharacter(sim, "arm", sample("arm6/arm6.wrl"), 1, &err);
    CU_ASSERT_EQUAL(ch, 1);
    hsNoise noise;
    memset(&noise, 0, sizeof noise);
    noise.seed = 7;
    for (int t = 0; t < HS_SENSOR_TYPES; t++) {
      noise.active[t] = hs_sensorTypeNoisy(t);
      for (int j = 0; j < 6; j++) {
        noise.std[t][j] = 0.01;
        noise.bias[t][j] = 0.001;
      }
    }
    CU_ASSERT_EQUAL(hs_setNoise(sim, &noise, &err), 0);
  }
  hs_enableSensors(sim, 1);
  CU_ASSERT_EQUAL(hs_setTimeStep(sim, 0.002, &err), 0);
  return sim;
}

// steps from .. to of scene kind, with its commands (a function of the step only)
static void drive(hsSim *sim, int kind, int from, int to) {
  int ch = hs_characterCount(sim) - 1;
  int n = hs_linkCount(sim, ch);
  double *v = calloc((size_t)n, sizeof *v);
  for (int i = from; i < to; i++) {
    double t = i * 0.002;
    if (kind == HUMANOID) {
      for (int k = 1; k < n; k++) {
        v[k] = 0.2 * sin(2 * M_PI * 0.8 * t + 0.3 * k);
      }
      CU_ASSERT_EQUAL(hs_setJointValuesByLink(sim, ch, v, n, NULL), 0);
    } else if (kind == ARM) {
      for (int k = 1; k < n; k++) {
        v[k] = 2.0 * sin(2 * M_PI * 1.3 * t + k);
      }
      CU_ASSERT_EQUAL(hs_setJointTorquesByLink(sim, ch, v, n, NULL), 0);
    }
    int rc = hs_step(sim, NULL);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0) {
      break;
    }
  }
  free(v);
}

// the whole state's bytes (caller frees), *n their count
static unsigned char *saved(hsSim *sim, long long *n) {
  hsError err = {0};
  *n = hs_saveState(sim, NULL, 0, &err);
  CU_ASSERT_FATAL(*n > 0);
  unsigned char *buf = malloc((size_t)*n);
  CU_ASSERT_EQUAL(hs_saveState(sim, buf, *n, &err), *n);
  return buf;
}

// 1 if the two simulations' link poses and joint values are the same bits
static int samePoses(hsSim *a, hsSim *b) {
  for (int ch = 0; ch < hs_characterCount(a); ch++) {
    int n = hs_linkCount(a, ch);
    if (memcmp(hs_linkP(a, ch), hs_linkP(b, ch), 3 * (size_t)n * sizeof(double)) ||
        memcmp(hs_linkR(a, ch), hs_linkR(b, ch), 9 * (size_t)n * sizeof(double)) ||
        memcmp(hs_q(a, ch), hs_q(b, ch), (size_t)n * sizeof(double)) ||
        hs_sleeping(a, ch) != hs_sleeping(b, ch)) {
      return 0;
    }
  }
  return 1;
}

// characters asleep
static int asleepCount(hsSim *sim) {
  int n = 0;
  for (int ch = 0; ch < hs_characterCount(sim); ch++) {
    n += hs_sleeping(sim, ch);
  }
  return n;
}

// sim restored from state s (ns bytes, saved after k steps) and driven on to total steps: the
// whole state's bytes at the end (caller frees), *n their count
static unsigned char *continueFrom(hsSim *sim, int kind, const unsigned char *s, long long ns,
                                   int k, int total, long long *n) {
  hsError err = {0};
  CU_ASSERT_EQUAL(hs_restoreState(sim, s, ns, &err), 0);
  CU_ASSERT_EQUAL(hs_steps(sim), k);
  drive(sim, kind, k, total);
  return saved(sim, n);
}

// the uninterrupted run of kind on engine for total steps against runs restored from a state
// saved after k steps: into a fresh simulation and into the first one after its run; the
// characters asleep at the save and at the end into asleep[2]
static void checkRestore(int kind, const char *engine, int k, int total, int asleep[2]) {
  hsError err = {0};
  hsSim *a = makeScene(kind, engine, 9);
  CU_ASSERT_EQUAL_FATAL(hs_start(a, &err), 0);
  drive(a, kind, 0, k);
  long long ns, na, nb, nc;
  unsigned char *s = saved(a, &ns);
  asleep[0] = asleepCount(a);
  drive(a, kind, k, total);
  unsigned char *endA = saved(a, &na);
  asleep[1] = asleepCount(a);

  // a fresh simulation, never started: rebuilt from the state's start
  hsSim *b = makeScene(kind, engine, 9);
  unsigned char *endB = continueFrom(b, kind, s, ns, k, total, &nb);
  CU_ASSERT(na == nb && memcmp(endA, endB, (size_t)na) == 0);
  CU_ASSERT(samePoses(a, b));
  CU_ASSERT_EQUAL(hs_time(b), hs_time(a));

  // the first simulation back to step k (same start: no rebuild) and on again
  unsigned char *endC = continueFrom(a, kind, s, ns, k, total, &nc);
  CU_ASSERT(na == nc && memcmp(endA, endC, (size_t)na) == 0);
  CU_ASSERT(samePoses(a, b));
  free(s);
  free(endA);
  free(endB);
  free(endC);
  hs_freeSim(a);
  hs_freeSim(b);
}

// the pile: saved while it settles (sleep counters running) and again once boxes sleep
static void testPileOde(void) {
  int asleep[2];
  checkRestore(PILE, "ode", 150, 900, asleep);
  CU_ASSERT(asleep[0] < asleep[1]);  // boxes fell asleep after the save
  checkRestore(PILE, "ode", 700, 1000, asleep);
  CU_ASSERT(asleep[0] > 0);          // saved with boxes asleep
}

static void testPileJointSpace(void) {
  int asleep[2];
  checkRestore(PILE, "joint_space", 150, 400, asleep);  // contacts: the warm start
}

static void testHumanoid(void) {
  int asleep[2];
  checkRestore(HUMANOID, "ode", 200, 500, asleep);
  checkRestore(HUMANOID, "joint_space", 200, 500, asleep);
}

static void testArmNoise(void) {
  int asleep[2];
  checkRestore(ARM, "ode", 123, 400, asleep);
  checkRestore(ARM, "joint_space", 123, 400, asleep);
}

// a started simulation built from another start (another pose, another engine) is rebuilt
// from the state's start: the same bits as the run the state came from
static void testRebuiltFromOtherStart(void) {
  for (int js = 0; js < 2; js++) {
    hsError err = {0};
    hsSim *a = makeScene(PILE, js ? "joint_space" : "ode", 9);
    CU_ASSERT_EQUAL_FATAL(hs_start(a, &err), 0);
    drive(a, PILE, 0, 100);
    long long ns, na, nb;
    unsigned char *s = saved(a, &ns);
    drive(a, PILE, 100, 300);
    unsigned char *endA = saved(a, &na);
    hsSim *b = makeScene(PILE, js ? "ode" : "joint_space", 9);  // the other engine
    place(b, 3, 1.0, 1.0, 0.3, 0.5);                             // and box2 elsewhere
    CU_ASSERT_EQUAL_FATAL(hs_start(b, &err), 0);
    drive(b, PILE, 0, 50);
    unsigned char *endB = continueFrom(b, PILE, s, ns, 100, 300, &nb);
    CU_ASSERT_STRING_EQUAL(hs_engine(b), js ? "joint_space" : "ode");  // the state's
    CU_ASSERT(na == nb && memcmp(endA, endB, (size_t)na) == 0);
    CU_ASSERT(samePoses(a, b));
    free(s);
    free(endA);
    free(endB);
    hs_freeSim(a);
    hs_freeSim(b);
  }
}

// refusals: another model set, a damaged state, before start; nothing changes
static void testRefusals(void) {
  hsError err = {0};
  hsSim *a = makeScene(PILE, "ode", 9);
  CU_ASSERT_EQUAL(hs_saveState(a, NULL, 0, &err), hsE_ORDER);
  hsu_clearError(&err);
  CU_ASSERT_EQUAL_FATAL(hs_start(a, &err), 0);
  drive(a, PILE, 0, 50);
  long long ns, n0, n1;
  unsigned char *s = saved(a, &ns);

  hsSim *b = makeScene(PILE, "ode", 8);  // one box fewer
  CU_ASSERT_EQUAL_FATAL(hs_start(b, &err), 0);
  drive(b, PILE, 0, 20);
  unsigned char *before = saved(b, &n0);
  CU_ASSERT_EQUAL(hs_restoreState(b, s, ns, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'box8'"));
  hsu_clearError(&err);
  // a damaged state: its checksum
  s[ns / 2] ^= 1;
  CU_ASSERT_EQUAL(hs_restoreState(a, s, ns, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "checksum"));
  hsu_clearError(&err);
  s[ns / 2] ^= 1;
  CU_ASSERT_EQUAL(hs_restoreState(a, s, 20, &err), hsE_INVALID);  // cut short
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hs_restoreState(a, "not a state", 11, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "HRPSIMST"));
  hsu_clearError(&err);
  unsigned char *after = saved(b, &n1);
  CU_ASSERT(n0 == n1 && memcmp(before, after, (size_t)n0) == 0);
  CU_ASSERT_EQUAL(hs_steps(b), 20);
  free(s);
  free(before);
  free(after);
  hs_freeSim(a);
  hs_freeSim(b);
}

// out of memory at every allocation a restore makes in turn (a rebuild from another start):
// each failure leaves the simulation as it was, and the restore succeeds once memory suffices
static void testOutOfMemory(void) {
  hsError err = {0};
  hsSim *a = makeScene(PILE, "ode", 9);
  CU_ASSERT_EQUAL_FATAL(hs_start(a, &err), 0);
  drive(a, PILE, 0, 60);
  long long ns, n0, n1;
  unsigned char *s = saved(a, &ns);
  hsSim *b = makeScene(PILE, "ode", 9);
  place(b, 2, 0.5, 0.5, 0.2, 0);  // another start: the restore rebuilds
  CU_ASSERT_EQUAL_FATAL(hs_start(b, &err), 0);
  drive(b, PILE, 0, 30);
  unsigned char *before = saved(b, &n0);
  int rc = -1, failures = 0;
  for (int k = 1; k <= 2000 && rc != 0; k++) {
    hsu_clearError(&err);
    hsu_failAllocAfter(k);
    rc = hs_restoreState(b, s, ns, &err);
    hsu_failAllocAfter(0);
    if (rc != 0) {
      failures++;
      CU_ASSERT_EQUAL(rc, hsE_NOMEM);
      unsigned char *now = saved(b, &n1);
      CU_ASSERT(n0 == n1 && memcmp(before, now, (size_t)n0) == 0);
      free(now);
    }
  }
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT(failures > 3);  // the rebuild allocates: those failures were exercised
  CU_ASSERT_EQUAL(hs_steps(b), 60);
  free(s);
  free(before);
  hs_freeSim(a);
  hs_freeSim(b);
}

void register_state(void) {
  CU_pSuite s = hst_addSuite("core_state");
  hs_initProcess();
  CU_add_test(s, "ODE pile falling asleep: restored runs equal the run bit for bit",
              testPileOde);
  CU_add_test(s, "joint-space pile: the contact warm start restored", testPileJointSpace);
  CU_add_test(s, "humanoid on the floor, both engines", testHumanoid);
  CU_add_test(s, "arm in torque mode with sensor noise, both engines", testArmNoise);
  CU_add_test(s, "a simulation of another start or engine is rebuilt from the state's",
              testRebuiltFromOtherStart);
  CU_add_test(s, "other models, damaged bytes: refused, nothing changed", testRefusals);
  CU_add_test(s, "out of memory anywhere in a restore: nothing changed", testOutOfMemory);
}
