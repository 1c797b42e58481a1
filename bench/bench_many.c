// bench_many.c - steps per second of the C world alone with many bodies: box piles, resting
// boxes with every pair registered, humanoids side by side on one floor (bench/bench_many.py).
//
//   hrpsim-bench-many SCENE N STEPS FLOOR BOX HUMANOID [BROAD SLEEP]
//
// SCENE "pile": N free 0.1 m boxes (BOX) in 4 staggered layers of a square grid (0.15 m apart,
// each layer turned 0.1 rad more), dropped onto FLOOR; every box/box and box/floor pair
// registered. "rest": N boxes resting on FLOOR in a square grid 0.15 m apart, every pair
// registered (N = 1,000: 500,500 pairs). "humanoids": N sample humanoids (HUMANOID) standing
// 1.5 m apart on one floor, every joint high gain (BENCH_MANY_TORQUE=1 in the environment:
// torque mode, each joint under the sample PD law holding its initial angle, the torques set
// before every step and timed with it), one pair floor/robot each. 1 ms steps; every
// character's sensors are computed after each step (hss_update), as the servers do; only
// hsd_step and hss_update are timed. BROAD: off, auto (default) or on (hsdOptions.broadPhase);
// SLEEP: 0 (default) or 1 (hsdOptions.sleep). Prints one JSON object: scene, n, steps, seconds,
// steps_per_s, us_per_step, contacts and sleeping characters after the last step, warnings,
// and a checksum of every character's final root pose (equal checksums: the same trajectory).
// WARMUP steps (untimed) run first. BENCH_MANY_ENGINE=joint_space steps the joint-space engine
// (engine, max_depth (deepest contact at the end), drift (farthest a root moved over the timed
// steps) and the joint-space contact sweeps per step, js_sweeps_mean / max, in the output).
// BENCH_MANY_SPEEDS=1 in the environment prints each body's speeds after the last step to
// stderr; BENCH_MANY_PILE_ROWS, BENCH_MANY_ITERATIONS and
// BENCH_MANY_SLEEP_ACC set hsdOptions.pileRows, quickIterations and sleepLinearAcc =
// sleepAngularAcc (pileRows 100000 and sleep acceleration 1e9: the stepper and sleeping as they
// were before pileRows and the acceleration check). quick_steps and rows in the output are
// hsd_stepStats' (steps that ran on QuickStep, the last step's largest island).

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dynamics.h"
#include "sensors.h"

#define BENCH_NAME "bench_many"
#include "bench_util.h"

// FNV-1a over the bytes of n doubles
static uint64_t hashDoubles(uint64_t h, const double *v, size_t n) {
  const unsigned char *p = (const unsigned char *)v;
  for (size_t i = 0; i < n * sizeof(double); i++) {
    h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

// torque mode (torque != 0): every joint of characters 1.. gets tau = P (qRef - q) - D dq, the
// gains per link in gain (P, D), the references per character (nlink each)
static void pdTorques(hsdWorld *w, int nchar, int torque, const double *qRef,
                      const double *gain) {
  for (int c = 1; c < nchar && torque; c++) {
    const hsBody *b = hsd_characterBody(w, c);
    const hsBodyState *st = hsd_state(w, c);
    const double *ref = qRef + (size_t)c * b->nlink;
    for (int k = 1; k < b->nlink; k++) {
      if (hsm_hasOneDofJoint(&b->links[k])) {
        double u = gain[2 * k] * (ref[k] - st->q[k]) - gain[2 * k + 1] * st->dq[k];
        hsError err = {0};
        check(hsd_setJointTorque(w, c, k, u, &err), &err);
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 7 || argc == 8 || argc > 10) {
    fprintf(stderr, "usage: %s pile|rest|humanoids N STEPS FLOOR BOX HUMANOID [off|auto|on 0|1 "
            "[WARMUP]]\n", argv[0]);
    return 1;
  }
  const char *scene = argv[1];
  int n = atoi(argv[2]);
  long steps = atol(argv[3]);
  hsError err = {0};
  hsd_initODE();
  hsdOptions opt;
  hsd_defaultOptions(&opt);
  long warmup = argc == 10 ? atol(argv[9]) : 0;
  if (argc >= 9) {
    opt.broadPhase = strcmp(argv[7], "off") == 0  ? hsBROAD_OFF
                     : strcmp(argv[7], "on") == 0 ? hsBROAD_ON
                                                  : hsBROAD_AUTO;
    opt.sleep = atoi(argv[8]) != 0;
  }
  // before/after switches (bench/bench_many.py --vs): the stepper's and sleeping's tunables
  if (getenv("BENCH_MANY_PILE_ROWS")) {
    opt.pileRows = atoi(getenv("BENCH_MANY_PILE_ROWS"));
  }
  if (getenv("BENCH_MANY_ITERATIONS")) {
    opt.quickIterations = atoi(getenv("BENCH_MANY_ITERATIONS"));
  }
  // ODE unless BENCH_MANY_ENGINE=joint_space (the core's default is the joint-space engine)
  const char *engine = getenv("BENCH_MANY_ENGINE");
  opt.engine = engine && strcmp(engine, "joint_space") == 0 ? hsENGINE_JOINT_SPACE : hsENGINE_ODE;
  if (getenv("BENCH_MANY_SLEEP_ACC")) {
    opt.sleepLinearAcc = opt.sleepAngularAcc = atof(getenv("BENCH_MANY_SLEEP_ACC"));
  }
  hsBody *floor = hsm_loadVrml(argv[4], NULL, NULL, 0, NULL, &err);
  int humanoids = strcmp(scene, "humanoids") == 0;
  int torque = humanoids && getenv("BENCH_MANY_TORQUE") && atoi(getenv("BENCH_MANY_TORQUE"));
  hsBody *model = floor ? hsm_loadVrml(humanoids ? argv[6] : argv[5], NULL, NULL, 0, NULL, &err)
                        : NULL;
  if (!model || n < 1) {
    check(-1, &err);
  }
  hsdWorld *w = hsd_makeWorld(&opt, &err);
  if (!w) {
    check(-1, &err);
  }
  hsdSurface surface = {0.5, 0.5, 0.0, 0.01};
  int floorCh = hsd_addCharacter(w, "floor", floor, &err);
  check(floorCh, &err);
  int side = 1;
  while (side * side * (strcmp(scene, "pile") == 0 ? 4 : 1) < n) {
    side++;
  }
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "c%04d", i);
    int ch = hsd_addCharacter(w, name, model, &err);
    check(ch, &err);
    double p[3], R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (humanoids) {
      // keep the model's initial height and pose, shifted on a grid
      const hsBodyState *st = hsd_state(w, ch);
      memcpy(R, st->rootR, sizeof R);
      p[0] = st->rootP[0] + 1.5 * (i % side);
      p[1] = st->rootP[1] + 1.5 * (i / side);
      p[2] = st->rootP[2];
      check(hsd_setAllJointModes(w, ch, torque ? hsMODE_TORQUE : hsMODE_HIGH_GAIN, &err), &err);
    } else if (strcmp(scene, "pile") == 0) {
      int per = side * side, layer = i / per, row = (i % per) / side, col = i % side;
      double yaw = 0.1 * layer, c = cos(yaw), s = sin(yaw);
      double mid = 0.5 * (side - 1);
      p[0] = (col - mid) * 0.15 + 0.03 * layer;
      p[1] = (row - mid) * 0.15 - 0.02 * layer;
      p[2] = 0.1 + 0.15 * layer;
      double Ry[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
      memcpy(R, Ry, sizeof R);
    } else {
      double mid = 0.5 * (side - 1);
      p[0] = (i % side - mid) * 0.15;
      p[1] = (i / side - mid) * 0.15;
      p[2] = 0.05;
    }
    check(hsd_setLinkPose(w, ch, 0, p, R, &err), &err);
    check(hsd_addContactPair(w, floorCh, -1, ch, -1, &surface, &err), &err);
  }
  if (!humanoids) {
    for (int i = 1; i <= n; i++) {
      for (int j = i + 1; j <= n; j++) {
        check(hsd_addContactPair(w, i, -1, j, -1, &surface, &err), &err);
      }
    }
  }
  check(hsd_setTimeStep(w, 0.001, &err), &err);
  check(hsd_init(w, &err), &err);
  int nchar = hsd_characterCount(w);
  hssState **sensors = calloc((size_t)nchar, sizeof *sensors);
  for (int c = 0; c < nchar; c++) {
    sensors[c] = hss_makeState(hsd_characterBody(w, c), &err);
    check(sensors[c] ? 0 : -1, &err);
  }

  // torque mode: the PD law's references (the initial angles) and gains, per character
  int nl = model->nlink;
  double *qRef = calloc((size_t)nchar * (size_t)nl, sizeof *qRef);
  double *gain = calloc(2 * (size_t)nl, sizeof *gain);
  for (int c = 1; c < nchar && torque; c++) {
    memcpy(qRef + (size_t)c * nl, hsd_state(w, c)->q, (size_t)nl * sizeof *qRef);
  }
  for (int k = 0; k < nl && torque; k++) {
    benchPdGains(model->links[k].name, gain + 2 * k);
  }
  for (long i = 0; i < warmup; i++) {
    pdTorques(w, nchar, torque, qRef, gain);
    check(hsd_step(w, &err), &err);
    for (int c = 0; c < nchar; c++) {
      hss_update(sensors[c], w, c);
    }
  }
  int asleepBefore = 0;
  for (int c = 1; c < nchar; c++) {
    asleepBefore += hsd_sleeping(w, c);
  }
  double *p0 = calloc(3 * (size_t)nchar, sizeof *p0);  // roots before the timed steps: drift
  for (int c = 0; c < nchar; c++) {
    memcpy(p0 + 3 * c, hsd_state(w, c)->rootP, 3 * sizeof *p0);
  }
  double t0 = now(), sweepSum = 0, changeMax = 0;
  int sweepMax = 0;
  for (long i = 0; i < steps; i++) {
    pdTorques(w, nchar, torque, qRef, gain);
    check(hsd_step(w, &err), &err);
    for (int c = 0; c < nchar; c++) {
      hss_update(sensors[c], w, c);
    }
    int sw;
    double change;
    hsd_jsContactStats(w, &sw, &change);  // (0 on the ODE engine)
    sweepSum += sw;
    sweepMax = sw > sweepMax ? sw : sweepMax;
    changeMax = fmax(changeMax, change);
  }
  double seconds = now() - t0;
  if (getenv("BENCH_MANY_SPEEDS")) {
    // diagnostics: each body's speeds after the last step
    for (int c = 1; c < nchar; c++) {
      const hsdLinkMotion *m = hsd_linkMotion(w, c, 0);
      fprintf(stderr, "%d v %.3g w %.3g sleeping %d z %.4f\n", c,
              sqrt(m->v[0] * m->v[0] + m->v[1] * m->v[1] + m->v[2] * m->v[2]),
              sqrt(m->w[0] * m->w[0] + m->w[1] * m->w[1] + m->w[2] * m->w[2]),
              hsd_sleeping(w, c), hsd_state(w, c)->rootP[2]);
    }
  }
  int ncontact = 0, sleeping = 0;
  const hsdContact *contacts = hsd_contacts(w, &ncontact);
  double drift = 0;  // the farthest any root moved over the timed steps [m]
  for (int c = 1; c < nchar; c++) {
    const double *p = hsd_state(w, c)->rootP;
    drift = fmax(drift, sqrt((p[0] - p0[3 * c]) * (p[0] - p0[3 * c]) +
                             (p[1] - p0[3 * c + 1]) * (p[1] - p0[3 * c + 1]) +
                             (p[2] - p0[3 * c + 2]) * (p[2] - p0[3 * c + 2])));
  }
  free(p0);
  free(qRef);
  free(gain);
  double depth = 0;  // the deepest contact after the last step [m]
  for (int i = 0; i < ncontact; i++) {
    depth = fmax(depth, contacts[i].depth);
  }
  hsdStepStats stats;
  hsd_stepStats(w, &stats);
  uint64_t h = 1469598103934665603ull;
  for (int c = 1; c < nchar; c++) {
    const hsBodyState *st = hsd_state(w, c);
    h = hashDoubles(h, st->rootP, 3);
    h = hashDoubles(h, st->rootR, 9);
    sleeping += hsd_sleeping(w, c);
  }
  printf("{\"scene\": \"%s\", \"n\": %d, \"steps\": %ld, \"seconds\": %.6f, "
         "\"steps_per_s\": %.1f, \"us_per_step\": %.2f, \"warmup\": %ld, \"sleeping_before\": %d, "
         "\"contacts\": %d, \"sleeping\": %d, \"quick_steps\": %ld, \"rows\": %d, "
         "\"warnings\": %d, \"checksum\": \"%016llx\", \"engine\": \"%s\", "
         "\"max_depth\": %.3g, \"drift\": %.3g, \"js_sweeps_mean\": %.1f, \"js_sweeps_max\": %d, "
         "\"js_change_max\": %.3g, \"torque\": %d}\n",
         scene, n, steps, seconds, steps / seconds, 1e6 * seconds / steps, warmup, asleepBefore,
         ncontact, sleeping, stats.quickSteps, stats.rows,
         hsd_warningCount(w), (unsigned long long)h, hsd_engineName(opt.engine), depth, drift,
         sweepSum / steps, sweepMax, changeMax, torque);
  for (int c = 0; c < nchar; c++) {
    hss_freeState(sensors[c]);
  }
  free(sensors);
  hsd_freeWorld(w);
  hsm_freeBody(model);
  hsm_freeBody(floor);
  return 0;
}
