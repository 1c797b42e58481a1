// bench_pd_loop.c - the Python PD loop's reference in C: the sample humanoid in torque mode on
// the floor under a PD law, written over the simulation core (core/core.h) the way a Python
// loop on the local back end does it: read q and dq (views of the core's state), compute the
// torques, write them (hs_setJointTorques), step (hs_step). bench/bench_pd_loop.py runs this
// beside the same loop in Python and prints the ratio.
//
//   hrpsim-bench-pd-loop HUMANOID FLOOR GAINS STEPS [nocontrol]
//
// nocontrol: the same steps without the control law (the torques stay at the first ones
// computed): the cost of hs_step alone.
// GAINS holds one line per link of the humanoid (link index order): P D qref (the same numbers
// the Python loop uses: bench_pd_loop.py writes them). The initial state: bent knees, root at
// the height that puts the feet on the floor (given as the first line: "z ROOT_Z"). Prints
// "steps N seconds S", then the final root position (%.17g each: the Python loop must end on
// the same bits).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "util.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int fail(const hsError *err, const char *what) {
  fprintf(stderr, "bench_pd_loop: %s: %s\n", what, err->message);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 5 && !(argc == 6 && strcmp(argv[5], "nocontrol") == 0)) {
    fprintf(stderr, "usage: %s HUMANOID FLOOR GAINS STEPS [nocontrol]\n", argv[0]);
    return 2;
  }
  long steps = atol(argv[4]);
  int control = argc == 5;
  hsError err = {0};
  hsSim *sim = hs_makeSim(&err);
  if (!sim) return fail(&err, "make");
  hsBody *floor = hs_loadBody(argv[2], &err);
  if (!floor || hs_addCharacter(sim, "floor", floor, 1, &err) < 0) return fail(&err, "floor");
  hsBody *robot = hs_loadBody(argv[1], &err);
  int ch = robot ? hs_addCharacter(sim, "robot", robot, 1, &err) : -1;
  if (ch < 0) return fail(&err, "robot");
  int n = hs_linkCount(sim, ch);
  double *p = calloc(n, sizeof *p), *d = calloc(n, sizeof *d), *qref = calloc(n, sizeof *qref);
  double *tau = calloc(n, sizeof *tau);
  FILE *f = fopen(argv[3], "r");
  double z = 0;
  if (!f || fscanf(f, " z %lf", &z) != 1) {
    fprintf(stderr, "bench_pd_loop: cannot read %s\n", argv[3]);
    return 1;
  }
  for (int k = 0; k < n; k++) {
    if (fscanf(f, "%lf %lf %lf", &p[k], &d[k], &qref[k]) != 3) {
      fprintf(stderr, "bench_pd_loop: %s: %d links expected\n", argv[3], n);
      return 1;
    }
  }
  fclose(f);
  double g[3] = {0, 0, -9.8}, pose[12] = {0, 0, z, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (hs_setTimeStep(sim, 0.001, &err) < 0 || hs_setGravity(sim, g, &err) < 0) {
    return fail(&err, "options");
  }
  hs_enableSensors(sim, 1);
  if (hs_setAllJointModes(sim, ch, 0, &err) < 0 ||
      hs_setLinkData(sim, ch, 0, hsDATA_ABS_TRANSFORM, pose, 12, &err) < 0 ||
      hs_setJointValues(sim, ch, qref, n, &err) < 0) {
    return fail(&err, "initial state");
  }
  hs_forwardKinematics(sim, -1);
  if (hs_addContactPair(sim, "floor", "", "robot", "", 0.5, 0.5, 0.0, 0.01, &err) < 0 ||
      hs_start(sim, &err) < 0) {
    return fail(&err, "start");
  }
  const double *q = hs_q(sim, ch), *dq = hs_dq(sim, ch);
  double t0 = now();
  for (long s = 0; s < steps; s++) {
    if (control || s == 0) {
      for (int k = 0; k < n; k++) tau[k] = p[k] * (qref[k] - q[k]) - d[k] * dq[k];
      if (hs_setJointTorques(sim, ch, tau, n, &err) < 0) return fail(&err, "torques");
    }
    if (hs_step(sim, &err) < 0) return fail(&err, "step");
  }
  double t1 = now();
  const double *P = hs_linkP(sim, ch);
  printf("steps %ld seconds %.9f\n%.17g %.17g %.17g\n", steps, t1 - t0, P[0], P[1], P[2]);
  free(p);
  free(d);
  free(qref);
  free(tau);
  hs_freeSim(sim);
  return 0;
}
