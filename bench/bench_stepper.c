// bench_stepper.c - choose the dynamics defaults by measurement: the sample humanoid standing
// on the sample floor in high-gain mode, stepped in process through the core (core.h) with each
// candidate's dynamics options.
//
// Usage: hrpsim-bench-stepper [SAMPLES_DIR] [STEPS]
// For each candidate setting (the library's defaults, whose hsSTEPPER_AUTO is dWorldStep in this
// scene; dWorldStep and dWorldQuickStep with several iteration counts; contact ERP/CFM/surface
// layer variants; and the same steppers with every high-gain joint an ODE hinge motor instead of
// the composite body, options.servoMotors) it runs STEPS steps of 1 ms (default 10000 = 10 s)
// with sensors on and every joint commanded to 0 each step (as a controller would), and prints
// one line per setting: steps per second (best of 3 runs; 1 run for the slow motor settings),
// root drift at the end [mm] (distance of the WAIST origin from its start), the deepest contact
// penetration seen [mm], the largest joint error |q - q_cmd| after a step [rad], and the ankle
// force sensors' total Fz over the robot's weight at the end (the feet are 2.4 of 50.6 kg:
// 0.9526 when standing still). A JSON line per setting follows the table. (Piles of many bodies,
// where the stepper choice matters most, are measured by hrpsim-bench-world boxes.)

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "dynamics.h"

static double nowS(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct Result {
  double stepsPerS, driftMm, penetrationMm, jointErr, fzRatio;
  int warnings;
} Result;

static hsBody *load(const char *dir, const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  if (!b) {
    char buf[1200];
    fprintf(stderr, "%s\n", hsu_formatError(&err, buf, sizeof buf));
    exit(1);
  }
  return b;
}

// one run through the core's step (dynamics, then sensors); returns 0 on success
static int run(const hsdOptions *opt, hsBody *robot, hsBody *floor, long steps, Result *r) {
  hsError err = {0};
  hsSim *sim = hs_makeSimWith(opt, &err);
  if (!sim) {
    return -1;
  }
  int fl = hs_addCharacter(sim, "floor", floor, 0, &err);
  int ch = hs_addCharacter(sim, "robot", robot, 0, &err);
  hs_enableSensors(sim, 1);
  if (fl < 0 || ch < 0 ||
      hs_addContactPair(sim, "robot", "", "floor", "", 0.5, 0.5, 0, 0.01, &err) < 0 ||
      hs_setAllJointModes(sim, ch, 1, &err) < 0 || hs_start(sim, &err) < 0) {
    char buf[1200];
    fprintf(stderr, "%s\n", hsu_formatError(&err, buf, sizeof buf));
    hs_freeSim(sim);
    return -1;
  }
  const double *q = hs_q(sim, ch), *p = hs_linkP(sim, ch);
  double p0[3];
  memcpy(p0, p, sizeof p0);
  double mass = 0;
  for (int k = 0; k < robot->nlink; k++) {
    mass += robot->links[k].mass;
  }
  int fs[2] = {hsm_sensorById(robot, hsSENSOR_FORCE, 0), hsm_sensorById(robot, hsSENSOR_FORCE, 1)};
  r->penetrationMm = 0;
  r->jointErr = 0;
  const double zero = 0.0;
  double t0 = nowS();
  for (long i = 0; i < steps; i++) {
    for (int j = 0; j < robot->njoint; j++) {
      hs_setLinkData(sim, ch, robot->jointLink[j], hsDATA_JOINT_VALUE, &zero, 1, NULL);
    }
    if (hs_step(sim, &err) < 0) {
      hs_freeSim(sim);
      return -1;
    }
    int n;
    const hsdContact *c = hs_contacts(sim, &n);
    for (int k = 0; k < n; k++) {
      r->penetrationMm = fmax(r->penetrationMm, 1e3 * c[k].depth);
    }
    for (int k = 1; k < robot->nlink; k++) {
      r->jointErr = fmax(r->jointErr, fabs(q[k]));
    }
    // read what a controller would read (the readings of the step)
    for (int k = 0; k < robot->nsensor; k++) {
      hs_reading(sim, ch, k, &n);
    }
  }
  double t = nowS() - t0;
  double d[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]};
  r->stepsPerS = steps / t;
  r->driftMm = 1e3 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  int n;
  r->fzRatio = (hs_reading(sim, ch, fs[0], &n)[2] + hs_reading(sim, ch, fs[1], &n)[2]) /
               (mass * 9.8);
  r->warnings = hs_warningCount(sim);
  hs_freeSim(sim);
  return 0;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "samples/models";
  long steps = argc > 2 ? atol(argv[2]) : 10000;
  if (steps < 1) {
    steps = 1;
  }
  hsBody *robot = load(dir, "humanoid/humanoid.wrl");
  hsBody *floor = load(dir, "floor/floor.wrl");

  // candidates: stepper and iterations; the joint representation (servoMotors: every joint an
  // ODE hinge with a motor, instead of the composite body); contact softness
  struct {
    const char *name;
    int defaults;
    hstStepper stepper;
    int iterations, servoMotors;
    double contactErp, contactCfm, surfaceLayer;
    int reps;
  } cases[] = {
      {"defaults", 1, hsSTEPPER_WORLD, 0, 0, 0, 0, 0, 3},
      {"world", 0, hsSTEPPER_WORLD, 0, 0, 0.2, 1e-8, 5e-4, 3},
      {"quick-10", 0, hsSTEPPER_QUICK, 10, 0, 0.2, 1e-8, 5e-4, 3},
      {"quick-20", 0, hsSTEPPER_QUICK, 20, 0, 0.2, 1e-8, 5e-4, 3},
      {"quick-50", 0, hsSTEPPER_QUICK, 50, 0, 0.2, 1e-8, 5e-4, 3},
      {"world-erp.8", 0, hsSTEPPER_WORLD, 0, 0, 0.8, 1e-8, 5e-4, 3},
      {"world-cfm1e-5", 0, hsSTEPPER_WORLD, 0, 0, 0.2, 1e-5, 5e-4, 3},
      {"world-layer0", 0, hsSTEPPER_WORLD, 0, 0, 0.2, 1e-8, 0, 3},
      {"world-layer1e-4", 0, hsSTEPPER_WORLD, 0, 0, 0.2, 1e-8, 1e-4, 3},
      {"motors-world", 0, hsSTEPPER_WORLD, 0, 1, 0.2, 1e-8, 5e-4, 1},
      {"motors-q20", 0, hsSTEPPER_QUICK, 20, 1, 0.2, 1e-8, 5e-4, 1},
      {"motors-q100", 0, hsSTEPPER_QUICK, 100, 1, 0.2, 1e-8, 5e-4, 1},
  };
  int ncase = (int)(sizeof cases / sizeof cases[0]);
  Result res[16];
  printf("%-14s %10s %10s %12s %11s %8s %5s\n", "setting", "steps/s", "drift[mm]",
         "penetr.[mm]", "joint[rad]", "Fz/mg", "warn");
  for (int i = 0; i < ncase; i++) {
    hsdOptions opt;
    hsd_defaultOptions(&opt);
    opt.engine = hsENGINE_ODE;  // the ODE engine's steppers (the core's default: joint space)
    if (!cases[i].defaults) {
      opt.stepper = cases[i].stepper;
      if (cases[i].iterations) {
        opt.quickIterations = cases[i].iterations;
      }
      opt.servoMotors = cases[i].servoMotors;
      opt.contactErp = cases[i].contactErp;
      opt.contactCfm = cases[i].contactCfm;
      opt.contactSurfaceLayer = cases[i].surfaceLayer;
    }
    Result best = {0};
    for (int rep = 0; rep < cases[i].reps; rep++) {
      Result r;
      if (run(&opt, robot, floor, steps, &r) < 0) {
        fprintf(stderr, "%s: run failed\n", cases[i].name);
        return 1;
      }
      if (rep == 0 || r.stepsPerS > best.stepsPerS) {
        best = r;
      }
    }
    res[i] = best;
    printf("%-14s %10.0f %10.4f %12.4f %11.2e %8.4f %5d\n", cases[i].name, best.stepsPerS,
           best.driftMm, best.penetrationMm, best.jointErr, best.fzRatio, best.warnings);
    fflush(stdout);
  }
  for (int i = 0; i < ncase; i++) {
    printf("{\"setting\": \"%s\", \"steps\": %ld, \"steps_per_s\": %.0f, \"drift_mm\": %.5f, "
           "\"penetration_mm\": %.5f, \"joint_err_rad\": %.3e, \"fz_over_mg\": %.5f, "
           "\"warnings\": %d}\n",
           cases[i].name, steps, res[i].stepsPerS, res[i].driftMm, res[i].penetrationMm,
           res[i].jointErr, res[i].fzRatio, res[i].warnings);
  }
  hsm_freeBody(robot);
  hsm_freeBody(floor);
  return 0;
}
