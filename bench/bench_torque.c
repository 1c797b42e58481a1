// bench_torque.c - the sample humanoid standing on the sample floor in torque mode under a PD
// loop written in C, side by side with the same robot in high-gain mode, in one run; both step
// through the simulation core (core/core.h: hs_makeSimWith, hs_step), as every door does.
//
// Usage: hrpsim-bench-torque [SAMPLES_DIR] [STEPS] [ROUNDS] [CASES] [STEPPER]
//        hrpsim-bench-torque --pd-loop HUMANOID FLOOR GAINS STEPS [nocontrol]
// Both cases start from the bent-knee pose of samples/projects/humanoid_squat.xml (waist at
// 0.80804 m; hip pitch -0.2, knee 0.4, ankle pitch -0.2 rad; elbows -0.3 rad), 1 ms steps, one
// contact pair floor/robot (friction 0.5, culling 0.01), sensors updated and read after every
// step as the servers do:
// - "torque": every joint in torque mode; before each step tau = P (q_ref - q) - D dq per joint
//   with the gains of samples/controllers/pd_controller.py (q_ref the start pose);
// - "highgain": every joint high gain, commanded to the start pose every step.
// The cases alternate for ROUNDS rounds (default 5) of STEPS steps each (default 5000 = 5 s);
// per case it prints min / median / max steps per second, the torque-over-high-gain ratio of
// each round (same round, so the machine's load affects both alike), the waist's drift and the
// largest |q - q_ref| at the end of the last round, the ODE stepper used (dWorldStep or
// QuickStep steps) and the constraint rows of the last step (hsd_stepStats). CASES picks
// "torque", "highgain" or "both" (default). Only the commands, hs_step (dynamics and sensor
// update) and reading the sensors are timed. STEPPER overrides the library's choice for both
// cases: "world" (dWorldStep),
// "quick-N" (QuickStep, N iterations), "chain-N" (the defaults with hsdOptions.chainIterations
// N; "chain-50" is the stepping before chainIterations existed); "auto" (default) keeps the
// defaults; "js" steps the joint-space engine (hsENGINE_JOINT_SPACE) instead of ODE, "js-rk4"
// the same with RUNGE_KUTTA (hsINTEGRATE_RUNGE_KUTTA). Over the
// second half of each round (outside the timing) it also notes the largest distance between a
// hinge's two anchors, the range of the ankle force sensors' total Fz over the robot's weight
// (0.9526 when standing still) and the standard deviation of its step-to-step change [N]. A
// JSON line per case follows the table.
//
// --pd-loop: the Python PD loop's reference in C (bench/bench_pd_loop.py runs it beside the
// same loop in Python and prints the ratio), written the way a Python loop on the local back
// end does it: read q and dq (views of the core's state), compute the torques, write them
// (hs_setJointTorquesByLink), step (hs_step). nocontrol: the same steps without the control
// law (the torques stay at the first ones computed): the cost of hs_step alone. GAINS holds
// "z ROOT_Z" (the root height that puts the feet on the floor), then one line per link (link
// index order): P D qref. Prints "steps N seconds S", then the final root position (%.17g each: the
// Python loop must end on the same bits).

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "dynamics.h"  // hsdOptions, hsdStepStats
#include "core_private.h"  // the core's world, for hsd_stepStats only (a bench may look inside)
#include "model.h"
#include "util.h"

#define BENCH_NAME "bench_torque"
#include "bench_util.h"

typedef struct Result {
  double stepsPerS, driftMm, qErr, gapMax, fzLo, fzHi, fzStepSd;
  double sweepsMean;  // joint-space engine: contact solver sweeps per step (second half)
  int sweepsMax;
  long quickSteps;
  hsdStepStats stats;
} Result;

// one round of one case
static void run(const char *robotPath, const char *floorPath, int torque, long steps,
                const hsdOptions *opt, Result *r) {
  hsError err = {0};
  hsSim *sim = hs_makeSimWith(opt, &err);
  check(sim ? 0 : -1, &err);
  hsBody *floorBody = hs_loadBody(floorPath, &err);
  check(floorBody ? hs_addCharacter(sim, "floor", floorBody, 1, &err) : -1, &err);
  hsBody *robotBody = hs_loadBody(robotPath, &err);
  int ch = robotBody ? hs_addCharacter(sim, "robot", robotBody, 1, &err) : -1;
  check(ch, &err);
  const hsBody *robot = hs_body(sim, ch);
  check(hs_addContactPair(sim, "floor", "", "robot", "", 0.5, 0.5, 0, 0.01, &err), &err);
  check(hs_setAllJointModes(sim, ch, !torque, &err), &err);
  check(hs_setTimeStep(sim, 0.001, &err), &err);
  hs_enableSensors(sim, 1);
  int n = robot->nlink;
  double *qRef = calloc((size_t)n, sizeof *qRef), *P = calloc((size_t)n, sizeof *P);
  double *D = calloc((size_t)n, sizeof *D), *u = calloc((size_t)n, sizeof *u);
  for (int k = 1; k < n; k++) {
    const char *name = robot->links[k].name;
    if (strstr(name, "_HIP_P") || strstr(name, "_ANKLE_P")) {
      qRef[k] = -0.2;
    } else if (strstr(name, "LEG_KNEE")) {
      qRef[k] = 0.4;
    } else if (strstr(name, "ARM_ELBOW")) {
      qRef[k] = -0.3;
    }
    double pd[2];
    benchPdGains(name, pd);  // (samples/controllers/pd_controller.py's; 100, 1 for the others)
    P[k] = pd[0] > 0 ? pd[0] : 100;
    D[k] = pd[0] > 0 ? pd[1] : 1;
  }
  check(hs_setJointValuesByLink(sim, ch, qRef, n, &err), &err);
  double pose[12] = {0, 0, 0.808040, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  check(hs_setLinkData(sim, ch, 0, hsDATA_ABS_TRANSFORM, pose, 12, &err), &err);
  check(hs_start(sim, &err), &err);
  const double *q = hs_q(sim, ch), *dq = hs_dq(sim, ch), *rootP = hs_linkP(sim, ch);
  int fs[2] = {hsm_sensorById(robot, hsSENSOR_FORCE, 0), hsm_sensorById(robot, hsSENSOR_FORCE, 1)};
  int nsensor = hs_sensorCount(sim, ch);
  double mg = 0;
  for (int k = 0; k < n; k++) {
    mg += robot->links[k].mass * 9.8;
  }
  r->gapMax = 0;
  r->fzLo = INFINITY;
  r->fzHi = -INFINITY;
  r->sweepsMean = 0;
  r->sweepsMax = 0;
  double tIn = 0, t0 = now(), fzPrev = 0, dSum = 0, dSum2 = 0;
  long nd = 0;
  for (long i = 0; i < steps; i++) {
    if (torque) {
      for (int k = 1; k < n; k++) {
        u[k] = P[k] * (qRef[k] - q[k]) - D[k] * dq[k];
      }
      hs_setJointTorquesByLink(sim, ch, u, n, NULL);
    } else {
      hs_setJointValuesByLink(sim, ch, qRef, n, NULL);
    }
    check(hs_step(sim, &err), &err);  // dynamics, then every character's sensor readings
    int m;
    for (int k = 0; k < nsensor; k++) {
      hs_reading(sim, ch, k, &m);
    }
    if (i >= steps / 2) {
      // the second half (settled): the force sensors' total Fz over the weight, the joints'
      // gap (outside the timing)
      double t1 = now();
      double fz = (hs_reading(sim, ch, fs[0], &m)[2] + hs_reading(sim, ch, fs[1], &m)[2]) / mg;
      r->fzLo = fmin(r->fzLo, fz);
      r->fzHi = fmax(r->fzHi, fz);
      if (i > steps / 2) {
        double dz = (fz - fzPrev) * mg;  // the step-to-step change [N]
        dSum += dz;
        dSum2 += dz * dz;
        nd++;
      }
      fzPrev = fz;
      hsdStepStats ss;
      hsd_stepStats(sim->world, &ss);
      r->gapMax = fmax(r->gapMax, ss.jointGap);
      int sweeps;
      double change;
      hsd_jsContactStats(sim->world, &sweeps, &change);
      r->sweepsMean += sweeps / (double)(steps - steps / 2);
      r->sweepsMax = sweeps > r->sweepsMax ? sweeps : r->sweepsMax;
      tIn += now() - t1;
    }
  }
  r->stepsPerS = steps / (now() - t0 - tIn);
  double dMean = nd ? dSum / nd : 0;
  r->fzStepSd = nd ? sqrt(fmax(0, dSum2 / nd - dMean * dMean)) : 0;
  double d[3] = {rootP[0] - pose[0], rootP[1] - pose[1], rootP[2] - pose[2]};
  r->driftMm = 1e3 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  r->qErr = 0;
  for (int k = 1; k < n; k++) {
    r->qErr = fmax(r->qErr, fabs(q[k] - qRef[k]));
  }
  hsd_stepStats(sim->world, &r->stats);
  r->quickSteps = r->stats.quickSteps;
  free(qRef);
  free(P);
  free(D);
  free(u);
  hs_freeSim(sim);
}

// --pd-loop HUMANOID FLOOR GAINS STEPS [nocontrol] (see the file comment)
static int pdLoop(int argc, char **argv) {
  if (argc != 6 && !(argc == 7 && strcmp(argv[6], "nocontrol") == 0)) {
    fprintf(stderr, "usage: %s --pd-loop HUMANOID FLOOR GAINS STEPS [nocontrol]\n", argv[0]);
    return 2;
  }
  long steps = atol(argv[5]);
  int control = argc == 6;
  hsError err = {0};
  hsSim *sim = hs_makeSim(&err);
  check(sim ? 0 : -1, &err);
  hsBody *floor = hs_loadBody(argv[3], &err);
  check(floor ? hs_addCharacter(sim, "floor", floor, 1, &err) : -1, &err);
  hsBody *robot = hs_loadBody(argv[2], &err);
  int ch = robot ? hs_addCharacter(sim, "robot", robot, 1, &err) : -1;
  check(ch, &err);
  int n = hs_linkCount(sim, ch);
  double *p = calloc((size_t)n, sizeof *p), *d = calloc((size_t)n, sizeof *d);
  double *qref = calloc((size_t)n, sizeof *qref), *tau = calloc((size_t)n, sizeof *tau);
  FILE *f = fopen(argv[4], "r");
  double z = 0;
  if (!f || fscanf(f, " z %lf", &z) != 1) {
    fprintf(stderr, "bench_torque: cannot read %s\n", argv[4]);
    return 1;
  }
  for (int k = 0; k < n; k++) {
    if (fscanf(f, "%lf %lf %lf", &p[k], &d[k], &qref[k]) != 3) {
      fprintf(stderr, "bench_torque: %s: %d links expected\n", argv[4], n);
      return 1;
    }
  }
  fclose(f);
  double g[3] = {0, 0, -9.8}, pose[12] = {0, 0, z, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  check(hs_setTimeStep(sim, 0.001, &err), &err);
  check(hs_setGravity(sim, g, &err), &err);
  hs_enableSensors(sim, 1);
  check(hs_setAllJointModes(sim, ch, 0, &err), &err);
  check(hs_setLinkData(sim, ch, 0, hsDATA_ABS_TRANSFORM, pose, 12, &err), &err);
  check(hs_setJointValuesByLink(sim, ch, qref, n, &err), &err);
  hs_forwardKinematics(sim, -1);
  check(hs_addContactPair(sim, "floor", "", "robot", "", 0.5, 0.5, 0.0, 0.01, &err), &err);
  check(hs_start(sim, &err), &err);
  const double *q = hs_q(sim, ch), *dq = hs_dq(sim, ch);
  double t0 = now();
  for (long s = 0; s < steps; s++) {
    if (control || s == 0) {
      for (int k = 0; k < n; k++) {
        tau[k] = p[k] * (qref[k] - q[k]) - d[k] * dq[k];
      }
      check(hs_setJointTorquesByLink(sim, ch, tau, n, &err), &err);
    }
    check(hs_step(sim, &err), &err);
  }
  double t1 = now();
  const double *rootP = hs_linkP(sim, ch);
  printf("steps %ld seconds %.9f\n%.17g %.17g %.17g\n", steps, t1 - t0, rootP[0], rootP[1],
         rootP[2]);
  free(p);
  free(d);
  free(qref);
  free(tau);
  hs_freeSim(sim);
  return 0;
}

static int cmpD(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void summary(const char *name, double *v, int n, double out[3]) {
  qsort(v, (size_t)n, sizeof *v, cmpD);
  out[0] = v[0];
  out[1] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  out[2] = v[n - 1];
  printf("%-10s %10.0f %10.0f %10.0f\n", name, out[0], out[1], out[2]);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--pd-loop") == 0) {
    return pdLoop(argc, argv);
  }
  const char *dir = argc > 1 ? argv[1] : "samples/models";
  long steps = argc > 2 ? atol(argv[2]) : 5000;
  int rounds = argc > 3 ? atoi(argv[3]) : 5;
  const char *which = argc > 4 ? argv[4] : "both";
  if (steps < 1 || rounds < 1 || rounds > 100) {
    fprintf(stderr,
            "usage: %s [SAMPLES_DIR] [STEPS] [ROUNDS 1-100] [torque|highgain|both] "
            "[auto|world|quick-N|chain-N|js|js-rk4]\n",
            argv[0]);
    return 1;
  }
  int doT = strcmp(which, "highgain") != 0, doH = strcmp(which, "torque") != 0;
  // STEPPER: "auto" (the defaults), "world", "quick-N" (N iterations)
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  opt.engine = hsENGINE_ODE;  // the steppers below are ODE's; "js" switches engine
  const char *stepper = argc > 5 ? argv[5] : "auto";
  if (strcmp(stepper, "world") == 0) {
    opt.stepper = hsSTEPPER_WORLD;
  } else if (strncmp(stepper, "quick-", 6) == 0) {
    opt.stepper = hsSTEPPER_QUICK;
    opt.quickIterations = atoi(stepper + 6);
  } else if (strncmp(stepper, "chain-", 6) == 0) {
    opt.chainIterations = atoi(stepper + 6);
  } else if (strcmp(stepper, "js") == 0 || strcmp(stepper, "js-rk4") == 0) {
    opt.engine = hsENGINE_JOINT_SPACE;
    opt.integrator = stepper[2] ? hsINTEGRATE_RUNGE_KUTTA : hsINTEGRATE_EULER;
  }
  char robot[1024], floor[1024];
  snprintf(robot, sizeof robot, "%s/humanoid/humanoid.wrl", dir);
  snprintf(floor, sizeof floor, "%s/floor/floor.wrl", dir);
  double tq[100] = {0}, hg[100] = {0}, ratio[100] = {0};  // (0: the case not run)
  Result rt = {0}, rh = {0};
  for (int i = 0; i < rounds; i++) {
    if (doT) {
      run(robot, floor, 1, steps, &opt, &rt);
      tq[i] = rt.stepsPerS;
    }
    if (doH) {
      run(robot, floor, 0, steps, &opt, &rh);
      hg[i] = rh.stepsPerS;
    }
    ratio[i] = doT && doH ? tq[i] / hg[i] : 0;
    fprintf(stderr, "round %d: torque %.0f  high gain %.0f  ratio %.3f\n", i + 1, tq[i], hg[i],
            ratio[i]);
  }
  double sT[3] = {0}, sH[3] = {0}, sR[3] = {0};
  printf("%-10s %10s %10s %10s   (%d rounds of %ld steps)\n", "steps/s", "min", "median", "max",
         rounds, steps);
  if (doT) {
    summary("torque", tq, rounds, sT);
  }
  if (doH) {
    summary("highgain", hg, rounds, sH);
  }
  if (doT && doH) {
    qsort(ratio, (size_t)rounds, sizeof *ratio, cmpD);
    sR[0] = ratio[0];
    sR[1] = rounds % 2 ? ratio[rounds / 2] : 0.5 * (ratio[rounds / 2 - 1] + ratio[rounds / 2]);
    sR[2] = ratio[rounds - 1];
    printf("%-10s %10.3f %10.3f %10.3f\n", "ratio", sR[0], sR[1], sR[2]);
  }
  const char *names[2] = {"torque", "highgain"};
  const Result *rs[2] = {&rt, &rh};
  const double *ss[2] = {sT, sH};
  for (int c = 0; c < 2; c++) {
    if (!(c == 0 ? doT : doH)) {
      continue;
    }
    const Result *r = rs[c];
    printf("%s: drift %.4f mm, max |q - q_ref| %.2e rad, joint gap <= %.2e m, ankle Fz/mg "
           "%.4f..%.4f (second half; step-to-step sd %.3g N), QuickStep steps %ld of %ld, "
           "last step: %d ODE bodies moving, %d constraint rows in its largest island (%d "
           "contact joints); joint-space contact sweeps %.1f mean, %d max\n",
           names[c], r->driftMm, r->qErr, r->gapMax, r->fzLo, r->fzHi, r->fzStepSd,
           r->quickSteps, steps, r->stats.bodies, r->stats.rows, r->stats.contactJoints,
           r->sweepsMean, r->sweepsMax);
  }
  for (int c = 0; c < 2; c++) {
    if (!(c == 0 ? doT : doH)) {
      continue;
    }
    printf("{\"case\": \"%s\", \"steps\": %ld, \"rounds\": %d, \"min\": %.0f, \"median\": %.0f, "
           "\"max\": %.0f, \"ratio_median\": %.3f, \"drift_mm\": %.5f, \"q_err_rad\": %.3e, "
           "\"joint_gap_m\": %.3e, \"fz_lo\": %.5f, \"fz_hi\": %.5f, \"fz_step_sd_n\": %.4g, "
           "\"rows\": %d}\n",
           names[c], steps, rounds, ss[c][0], ss[c][1], ss[c][2], sR[1], rs[c]->driftMm,
           rs[c]->qErr, rs[c]->gapMax, rs[c]->fzLo, rs[c]->fzHi, rs[c]->fzStepSd,
           rs[c]->stats.rows);
  }
  return 0;
}
