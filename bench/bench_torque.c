// bench_torque.c - the sample humanoid standing on the sample floor in torque mode under a PD
// loop written in C, side by side with the same robot in high-gain mode, in one run.
//
// Usage: hrpsim-bench-torque [SAMPLES_DIR] [STEPS] [ROUNDS] [CASES] [STEPPER]
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
// "torque", "highgain" or "both" (default). Only hsd_step, the PD law and the sensor update are
// timed. STEPPER overrides the library's choice for both cases: "world" (dWorldStep),
// "quick-N" (QuickStep, N iterations), "chain-N" (the defaults with hsdOptions.chainIterations
// N; "chain-50" is the stepping before chainIterations existed); "auto" (default) keeps the
// defaults. Over the second half of each round (outside the timing) it also notes the largest
// distance between a hinge's two anchors and the range of the ankle force sensors' total Fz
// over the robot's weight (0.9526 when standing still). A JSON line per case follows the table.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dynamics.h"
#include "sensors.h"

static double nowS(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(int rc, const hsError *err) {
  if (rc < 0) {
    char buf[1200];
    fprintf(stderr, "bench_torque: %s\n", hsu_formatError(err, buf, sizeof buf));
    exit(1);
  }
}

// gains of samples/controllers/pd_controller.py: (name fragment, P [N m/rad], D [N m s/rad]),
// first match wins
static const struct {
  const char *frag;
  double p, d;
} gains[] = {
    {"LEG_HIP_Y", 1000, 5},   {"LEG_HIP_R", 2000, 10},   {"LEG_HIP_P", 2500, 12},
    {"LEG_KNEE", 2500, 12},   {"LEG_ANKLE_P", 1500, 8},  {"LEG_ANKLE_R", 1200, 6},
    {"CHEST", 1500, 8},       {"NECK", 50, 0.2},         {"ARM_SHOULDER", 300, 0.75},
    {"ARM_ELBOW", 150, 0.4},  {"ARM_WRIST_Y", 5, 0.02},  {"ARM_WRIST", 20, 0.05},
};

typedef struct Result {
  double stepsPerS, driftMm, qErr, gapMax, fzLo, fzHi;
  long quickSteps;
  hsdStepStats stats;
} Result;

// one round of one case
static void run(const hsBody *robot, const hsBody *floor, int torque, long steps,
                const hsdOptions *opt, Result *r) {
  hsError err = {0};
  hsdWorld *w = hsd_makeWorld(opt, &err);
  check(w ? 0 : -1, &err);
  int fl = hsd_addCharacter(w, "floor", floor, &err);
  check(fl, &err);
  int ch = hsd_addCharacter(w, "robot", robot, &err);
  check(ch, &err);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  check(hsd_addContactPair(w, fl, -1, ch, -1, &s, &err), &err);
  check(hsd_setAllJointModes(w, ch, torque ? hsMODE_TORQUE : hsMODE_HIGH_GAIN, &err), &err);
  check(hsd_setTimeStep(w, 0.001, &err), &err);
  int n = robot->nlink;
  double *qRef = calloc((size_t)n, sizeof *qRef), *P = calloc((size_t)n, sizeof *P);
  double *D = calloc((size_t)n, sizeof *D);
  for (int k = 1; k < n; k++) {
    const char *name = robot->links[k].name;
    if (strstr(name, "_HIP_P") || strstr(name, "_ANKLE_P")) {
      qRef[k] = -0.2;
    } else if (strstr(name, "LEG_KNEE")) {
      qRef[k] = 0.4;
    } else if (strstr(name, "ARM_ELBOW")) {
      qRef[k] = -0.3;
    }
    P[k] = 100;
    D[k] = 1;
    for (size_t g = 0; g < sizeof gains / sizeof gains[0]; g++) {
      if (strstr(name, gains[g].frag)) {
        P[k] = gains[g].p;
        D[k] = gains[g].d;
        break;
      }
    }
    check(hsd_setJointValue(w, ch, k, qRef[k], &err), &err);
  }
  double p0[3] = {0, 0, 0.808040}, R0[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  check(hsd_setLinkPose(w, ch, 0, p0, R0, &err), &err);
  check(hsd_init(w, &err), &err);
  hssState *sensors[2] = {hss_makeState(floor, &err), hss_makeState(robot, &err)};
  check(sensors[0] && sensors[1] ? 0 : -1, &err);
  const hsBodyState *st = hsd_state(w, ch);
  int fs[2] = {hsm_sensorById(robot, hsSENSOR_FORCE, 0), hsm_sensorById(robot, hsSENSOR_FORCE, 1)};
  double mg = 0;
  for (int k = 0; k < n; k++) {
    mg += robot->links[k].mass * 9.8;
  }
  r->gapMax = 0;
  r->fzLo = INFINITY;
  r->fzHi = -INFINITY;
  double tIn = 0, t0 = nowS();
  for (long i = 0; i < steps; i++) {
    for (int k = 1; k < n; k++) {
      if (torque) {
        double u = P[k] * (qRef[k] - st->q[k]) - D[k] * st->dq[k];
        hsd_setJointTorque(w, ch, k, u, NULL);
      } else {
        hsd_setJointValue(w, ch, k, qRef[k], NULL);
      }
    }
    check(hsd_step(w, &err), &err);
    hss_update(sensors[0], w, fl);
    hss_update(sensors[1], w, ch);
    int m;
    for (int k = 0; k < robot->nsensor; k++) {
      hss_reading(sensors[1], k, &m);
    }
    if (i >= steps / 2) {
      // the second half (settled): the force sensors' total Fz over the weight, the joints'
      // gap (outside the timing)
      double t1 = nowS();
      double fz = (hss_reading(sensors[1], fs[0], &m)[2] + hss_reading(sensors[1], fs[1], &m)[2]) /
                  mg;
      r->fzLo = fmin(r->fzLo, fz);
      r->fzHi = fmax(r->fzHi, fz);
      hsdStepStats ss;
      hsd_stepStats(w, &ss);
      r->gapMax = fmax(r->gapMax, ss.jointGap);
      tIn += nowS() - t1;
    }
  }
  r->stepsPerS = steps / (nowS() - t0 - tIn);
  double d[3] = {st->rootP[0] - p0[0], st->rootP[1] - p0[1], st->rootP[2] - p0[2]};
  r->driftMm = 1e3 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  r->qErr = 0;
  for (int k = 1; k < n; k++) {
    r->qErr = fmax(r->qErr, fabs(st->q[k] - qRef[k]));
  }
  hsd_stepStats(w, &r->stats);
  r->quickSteps = r->stats.quickSteps;
  hss_freeState(sensors[0]);
  hss_freeState(sensors[1]);
  free(qRef);
  free(P);
  free(D);
  hsd_freeWorld(w);
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
  const char *dir = argc > 1 ? argv[1] : "samples/models";
  long steps = argc > 2 ? atol(argv[2]) : 5000;
  int rounds = argc > 3 ? atoi(argv[3]) : 5;
  const char *which = argc > 4 ? argv[4] : "both";
  if (steps < 1 || rounds < 1 || rounds > 100) {
    fprintf(stderr,
            "usage: %s [SAMPLES_DIR] [STEPS] [ROUNDS 1-100] [torque|highgain|both] "
            "[auto|world|quick-N|chain-N]\n",
            argv[0]);
    return 1;
  }
  int doT = strcmp(which, "highgain") != 0, doH = strcmp(which, "torque") != 0;
  // STEPPER: "auto" (the defaults), "world", "quick-N" (N iterations)
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  const char *stepper = argc > 5 ? argv[5] : "auto";
  if (strcmp(stepper, "world") == 0) {
    opt.stepper = hsSTEPPER_WORLD;
  } else if (strncmp(stepper, "quick-", 6) == 0) {
    opt.stepper = hsSTEPPER_QUICK;
    opt.quickIterations = atoi(stepper + 6);
  } else if (strncmp(stepper, "chain-", 6) == 0) {
    opt.chainIterations = atoi(stepper + 6);
  }
  hsd_initODE();
  char path[1024];
  hsError err = {0};
  snprintf(path, sizeof path, "%s/humanoid/humanoid.wrl", dir);
  hsBody *robot = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  check(robot ? 0 : -1, &err);
  snprintf(path, sizeof path, "%s/floor/floor.wrl", dir);
  hsBody *floor = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  check(floor ? 0 : -1, &err);
  double tq[100], hg[100], ratio[100];
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
           "%.4f..%.4f (second half), QuickStep steps %ld of %ld, last step: "
           "%d ODE bodies moving, %d constraint rows in its largest island (%d contact "
           "joints)\n",
           names[c], r->driftMm, r->qErr, r->gapMax, r->fzLo, r->fzHi, r->quickSteps, steps,
           r->stats.bodies, r->stats.rows, r->stats.contactJoints);
  }
  for (int c = 0; c < 2; c++) {
    if (!(c == 0 ? doT : doH)) {
      continue;
    }
    printf("{\"case\": \"%s\", \"steps\": %ld, \"rounds\": %d, \"min\": %.0f, \"median\": %.0f, "
           "\"max\": %.0f, \"ratio_median\": %.3f, \"drift_mm\": %.5f, \"q_err_rad\": %.3e, "
           "\"joint_gap_m\": %.3e, \"fz_lo\": %.5f, \"fz_hi\": %.5f, \"rows\": %d}\n",
           names[c], steps, rounds, ss[c][0], ss[c][1], ss[c][2], sR[1], rs[c]->driftMm,
           rs[c]->qErr, rs[c]->gapMax, rs[c]->fzLo, rs[c]->fzHi, rs[c]->stats.rows);
  }
  hsm_freeBody(robot);
  hsm_freeBody(floor);
  return 0;
}
