// test_run.c - the run object (core.h hsRun): the period rule's edge cases as the run applies
// them (periods that are not whole multiples of the step, end times between steps, the 1e-9
// slack), frames faster and slower than the steps, the next event, and the log: records at
// the log period equal to the state a plain stepping of the same simulation gives, bit for
// bit, with their contacts, joint arrays and the push.

#include <CUnit/CUnit.h>

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core.h"
#include "core_models.h"
#include "dynamics.h"
#include "model.h"
#include "openhrp_fixtures.h"
#include "test_support.h"

// a started simulation of the box (ch 0) 1 cm above the floor (ch 1), time step dt
static hsSim *boxOnFloor(double dt) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(&err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(sim, "box", hst_loadVrmlText("run_box.wrl", kBox), 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(sim, "floor", hst_loadSample("floor/floor.wrl"), 1, fresh(&err)), 1);
  CU_ASSERT_EQUAL(hs_addContactPair(sim, "box", "", "floor", "", 0.5, 0.5, 0, 0.01, fresh(&err)),
                  0);
  double pose[12] = {0, 0, 0.06, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, 0, hsDATA_ABS_TRANSFORM, pose, 12, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_setTimeStep(sim, dt, fresh(&err)), 0);
  CU_ASSERT_EQUAL_FATAL(hs_start(sim, fresh(&err)), 0);
  return sim;
}

// ticks and the end: periods to 1e-9 of themselves, end times to 1e-9 of a step
static void testPeriodsAndEnd(void) {
  hsError err = {0};
  hsSim *sim = boxOnFloor(0.001);
  // an end between two steps is reached at the later one; a hair past a step (within 1e-9 of
  // a step) is that step; beyond the slack it is the next; a short end is still one step
  struct {
    double end;
    long long steps;
  } ends[] = {{0.0105, 11}, {0.7, 700}, {0.01 * (1 + 1e-10), 10}, {0.01 * (1 + 1e-8), 11},
              {1e-5, 1}, {0.0, 0}, {-1.0, 0}};
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
    hsRun *run = hs_makeRun(sim, ends[i].end, 0.0, 0, fresh(&err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_EQUAL(hs_runEndSteps(run), ends[i].steps);
    CU_ASSERT_EQUAL(hs_runLogSteps(run), 1);
    hs_freeRun(run);
  }
  // a long run (1e9 steps, every one logged) is made: its log grows as it goes
  hsRun *longRun = hs_makeRun(sim, 1e6, 0.0, 1, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(longRun);
  CU_ASSERT_EQUAL(hs_runEndSteps(longRun), 1000000000LL);
  hs_freeRun(longRun);
  CU_ASSERT_PTR_NULL(hs_makeRun(sim, NAN, 0.0, 0, fresh(&err)));
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  // a log period that is not a whole multiple is refused, naming it
  CU_ASSERT_PTR_NULL(hs_makeRun(sim, 1.0, 0.0015, 0, fresh(&err)));
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  CU_ASSERT(strstr(err.message, "0.0015") != NULL);
  hsRun *run = hs_makeRun(sim, 1.0, 0.003, 0, fresh(&err));  // 0.003 / 0.001 = 2.99...96
  CU_ASSERT_PTR_NOT_NULL_FATAL(run);
  CU_ASSERT_EQUAL(hs_runLogSteps(run), 3);
  // ticks: 1e-10 relative off a whole multiple is one, 1e-8 is not
  CU_ASSERT_EQUAL(hs_runAddTick(run, 0.005 * (1 + 1e-10), fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_runTickSteps(run, 0), 5);
  CU_ASSERT_EQUAL(hs_runAddTick(run, 0.005 * (1 + 1e-8), fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_runAddTick(run, 0.0004, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_runAddTick(run, 0.0, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_runAddTick(run, 0.002, fresh(&err)), 1);
  CU_ASSERT_EQUAL(hs_runTickSteps(run, 7), 0);
  // due before the step from a multiple of the period
  CU_ASSERT(hs_runTickDue(run, 0, 0) && hs_runTickDue(run, 0, 10) && !hs_runTickDue(run, 0, 3));
  CU_ASSERT(hs_runTickDue(run, 1, 4) && !hs_runTickDue(run, 1, 5) && !hs_runTickDue(run, 5, 0));
  // the next event after k: the nearest tick (the log is the run's own business)
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 0), 2);
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 4), 5);
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 5), 6);
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 999), 1000);  // the end
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 1000), 1002);
  hs_freeRun(run);
  hs_freeSim(sim);
  // before start there is no run
  hsSim *idle = hs_makeSim(fresh(&err));
  CU_ASSERT_PTR_NULL(hs_makeRun(idle, 1.0, 0.0, 0, fresh(&err)));
  CU_ASSERT_EQUAL(err.code, hsE_ORDER);
  hs_freeSim(idle);
}

// frames: frame n at the first step that reaches n / rate (1e-9 steps of slack); several in one
// step take the first and skip the others
static void testFrames(void) {
  CU_ASSERT_EQUAL(hs_frameStep(0, 30.0, 0.001), 0);
  CU_ASSERT_EQUAL(hs_frameStep(1, 30.0, 0.001), 34);   // 33.3 steps
  CU_ASSERT_EQUAL(hs_frameStep(3, 30.0, 0.001), 100);  // 0.1 s: 100.00000000000001 steps
  CU_ASSERT_EQUAL(hs_frameStep(7, 0.7, 0.001), 10000);  // 7 / 0.7 = 10.000000000000002 s
  hsError err = {0};
  hsSim *sim = boxOnFloor(0.001);
  hsRun *run = hs_makeRun(sim, 0.02, 0.0, 0, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(run);
  CU_ASSERT_EQUAL(hs_runAddFrames(run, 30.0, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_runAddFrames(run, 2500.0, fresh(&err)), 1);  // 0.4 steps per frame
  CU_ASSERT_EQUAL(hs_runAddFrames(run, -1.0, fresh(&err)), hsE_INVALID);
  CU_ASSERT_EQUAL(hs_runAddFrames(run, INFINITY, fresh(&err)), hsE_INVALID);
  // 30 Hz: frames 0 at 0, 1 at 34, 2 at 67, 3 at 100; nothing in between
  long long due30[] = {0, 34, 67, 100};
  for (long long k = 0, f = 0; k <= 100; k++) {
    long long frame = hs_runFrameDue(run, 0, k);
    if (f < 4 && k == due30[f]) {
      CU_ASSERT_EQUAL(frame, f);
      f++;
    } else {
      CU_ASSERT_EQUAL(frame, -1);
    }
  }
  // 2500 Hz: frames at steps 0, 1 (0.4 and 0.8: the first), 2 (1.2 ... 2.0: frame 3), 3 (6)
  CU_ASSERT_EQUAL(hs_runFrameDue(run, 1, 0), 0);
  CU_ASSERT_EQUAL(hs_runFrameDue(run, 1, 1), 1);
  CU_ASSERT_EQUAL(hs_runFrameDue(run, 1, 2), 3);
  CU_ASSERT_EQUAL(hs_runFrameDue(run, 1, 3), 6);
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 2), 3);
  // the rate changes mid-run: frames follow from the new rate; 0 turns the stream off
  CU_ASSERT_EQUAL(hs_runSetFrameRate(run, 1, 0.0, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_runFrameDue(run, 1, 3), -1);
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 34), 67);
  CU_ASSERT_EQUAL(hs_runSetFrameRate(run, 0, 100.0, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_runNextEvent(run, 34), 40);
  CU_ASSERT_EQUAL(hs_runFrameDue(run, 0, 40), 4);
  CU_ASSERT_EQUAL(hs_runSetFrameRate(run, 2, 1.0, fresh(&err)), hsE_INVALID);
  hs_freeRun(run);
  hs_freeSim(sim);
}

// the log of a box falling onto the floor: records at counts 0, 3, 6, ... hold what a plain
// stepping of the same simulation reads at those counts, bit for bit; the run stops for its
// tick and at its end
static void testLog(void) {
  hsError err = {0};
  hsSim *sim = boxOnFloor(0.001), *ref = boxOnFloor(0.001);
  hsRun *run = hs_makeRun(sim, 0.2, 0.003, 1, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(run);
  CU_ASSERT_EQUAL(hs_runAddTick(run, 0.05, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_runRecord(run, fresh(&err)), 0);  // the door's record at count 0
  double push[6] = {1, 2, 3, 4, 5, 6};
  hs_runSetPush(run, 0, 0, push);
  // the door's loop: one step of its own where the tick is due, else advance to the next one
  int ticks = 0;
  while (hs_steps(sim) < hs_runEndSteps(run)) {
    long long k = hs_steps(sim);
    if (hs_runTickDue(run, 0, k)) {
      ticks++;
      CU_ASSERT_EQUAL_FATAL(hs_runStep(run, fresh(&err)), 0);
      CU_ASSERT_EQUAL_FATAL(hs_runLog(run, fresh(&err)), 0);
      continue;
    }
    CU_ASSERT_EQUAL_FATAL(hs_runAdvance(run, LLONG_MAX, fresh(&err)), 0);
    CU_ASSERT(hs_steps(sim) > k);
    CU_ASSERT(hs_steps(sim) == hs_runEndSteps(run) || hs_runTickDue(run, 0, hs_steps(sim)));
  }
  CU_ASSERT_EQUAL(ticks, 4);  // at 0, 50, 100, 150
  CU_ASSERT_EQUAL(hs_steps(sim), 200);
  CU_ASSERT_EQUAL(hs_runRecordCount(run), 1 + 200 / 3);
  int size = hs_runRecordSize(run);
  const double *recs = hs_runRecords(run);
  int offP = hs_runOffset(run, hsRUN_LINK_P, 0), offR = hs_runOffset(run, hsRUN_LINK_R, 1);
  int offPush = hs_runOffset(run, hsRUN_PUSH, 0);
  CU_ASSERT(offP > 0 && offR > offP && offPush > 0);
  CU_ASSERT_EQUAL(hs_runOffset(run, hsRUN_LOOP, 0), -1);  // no extra joints
  CU_ASSERT_EQUAL(hs_runOffset(run, hsRUN_LINK_P, 2), -1);
  CU_ASSERT_EQUAL(hs_runRangeCount(run), 0);
  const long long *index = hs_runContactIndex(run);
  long long npoint = 0, ngroup = 0;
  const hsdContact *points = hs_runContacts(run, &npoint);
  const hsdContactGroup *groups = hs_runContactGroups(run, &ngroup);
  CU_ASSERT_EQUAL(index[2 * hs_runRecordCount(run)], npoint);
  CU_ASSERT_EQUAL(index[2 * hs_runRecordCount(run) + 1], ngroup);
  int touched = 0;
  for (long long r = 0; r < hs_runRecordCount(run); r++) {
    const double *rec = recs + r * size;
    if (r > 0) {
      CU_ASSERT_EQUAL(hs_stepN(ref, 3, fresh(&err)), 0);
    }
    CU_ASSERT_EQUAL(rec[hs_runOffset(run, hsRUN_TIME, 0)], hs_time(ref));
    CU_ASSERT_EQUAL(memcmp(rec + offP, hs_linkP(ref, 0), 3 * sizeof(double)), 0);
    CU_ASSERT_EQUAL(memcmp(rec + offR, hs_linkR(ref, 1), 9 * sizeof(double)), 0);
    // the push set before the steps, in every record after the first
    CU_ASSERT_EQUAL(rec[offPush], r == 0 ? -1.0 : 0.0);
    CU_ASSERT_EQUAL(rec[offPush + 7], r == 0 ? 0.0 : 6.0);
    // the contacts as the reference's, group by group
    int n = 0, ng = 0;
    const hsdContact *c = hs_contacts(ref, &n);
    const hsdContactGroup *g = hs_contactGroups(ref, &ng);
    CU_ASSERT_EQUAL(index[2 * r + 2] - index[2 * r], n);
    CU_ASSERT_EQUAL(index[2 * r + 3] - index[2 * r + 1], ng);
    if (n > 0 && index[2 * r + 2] - index[2 * r] == n) {
      CU_ASSERT_EQUAL(memcmp(points + index[2 * r], c, (size_t)n * sizeof *c), 0);
      CU_ASSERT_EQUAL(memcmp(groups + index[2 * r + 1], g, (size_t)ng * sizeof *g), 0);
      touched++;
    }
  }
  CU_ASSERT(touched > 30);  // the box lands within the first 0.1 s and stays
  // the box's weight on the floor at the end: 4 points carrying 9.8 N
  double fz = 0.0;
  for (long long i = index[2 * hs_runRecordCount(run) - 2]; i < npoint; i++) {
    fz += points[i].force[2];
  }
  HST_NEAR(fabs(fz), 9.8, 1e-6);
  hs_freeRun(run);
  hs_freeSim(ref);
  hs_freeSim(sim);
}

// joint arrays and the pendulum's joint stop in the record, in jointId order; without logged
// sensors the joint blocks are absent
static void testJointBlocks(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(&err);
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(sim, "p", hst_loadVrmlText("run_pendulum.wrl", kPendulum), 1, &err), 0);
  double q0 = 0.5;
  CU_ASSERT_EQUAL(hs_setLinkData(sim, 0, 1, hsDATA_JOINT_VALUE, &q0, 1, fresh(&err)), 0);
  CU_ASSERT_EQUAL_FATAL(hs_start(sim, fresh(&err)), 0);
  hsRun *bare = hs_makeRun(sim, 0.0, 0.0, 0, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(bare);
  CU_ASSERT_EQUAL(hs_runOffset(bare, hsRUN_Q, 0), -1);
  CU_ASSERT_EQUAL(hs_runOffset(bare, hsRUN_FORCE, 0), -1);
  CU_ASSERT_EQUAL(hs_runEndSteps(bare), 0);
  CU_ASSERT_EQUAL(hs_runNextEvent(bare, 5), LLONG_MAX);
  hs_freeRun(bare);
  hsRun *run = hs_makeRun(sim, 0.0, 0.0, 1, fresh(&err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(run);
  CU_ASSERT_EQUAL(hs_runAdvance(run, 25, fresh(&err)), 0);  // no end: until the count given
  CU_ASSERT_EQUAL(hs_steps(sim), 25);
  CU_ASSERT_EQUAL(hs_runRecordCount(run), 25);
  const double *last = hs_runRecords(run) + 24 * hs_runRecordSize(run);
  CU_ASSERT_EQUAL(last[hs_runOffset(run, hsRUN_Q, 0)], hs_q(sim, 0)[1]);
  CU_ASSERT_EQUAL(last[hs_runOffset(run, hsRUN_DQ, 0)], hs_dq(sim, 0)[1]);
  CU_ASSERT(hs_q(sim, 0)[1] < q0);  // swinging back
  CU_ASSERT_EQUAL(hs_runOffset(run, hsRUN_U, 0) + 1, hs_runOffset(run, hsRUN_FORCE, 0));
  // the time the last step started from (what a door's failure message names)
  double before = hs_time(sim);
  CU_ASSERT_EQUAL(hs_runStep(run, fresh(&err)), 0);
  CU_ASSERT_EQUAL(hs_runStepStart(run), before);
  CU_ASSERT(hs_time(sim) > before);
  hs_freeRun(run);
  hs_freeSim(sim);
}

void register_run(void) {
  CU_pSuite s = hst_addSuite("run");
  hs_initProcess();
  CU_add_test(s, "ticks and the end in whole steps", testPeriodsAndEnd);
  CU_add_test(s, "frame streams", testFrames);
  CU_add_test(s, "the log against plain stepping", testLog);
  CU_add_test(s, "joint blocks of a record", testJointBlocks);
}
