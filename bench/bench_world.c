// bench_world.c - steps per second of the C world alone (no CORBA), for the scenes that
// bench_dynamics_client.cpp drives through the server.
//
//   hrpsim-bench-world SCENE STEPS FLOOR MODEL
//
// SCENE "humanoid": FLOOR and the sample humanoid MODEL at its initial pose, every joint in
// high-gain mode, one contact pair floor/robot (all links), 1 ms step; every character's sensor
// readings are computed after each step (hss_update), as the servers do. SCENE "boxes": 100 copies of the box MODEL in a 5 x 5 x 4 grid (the
// poses of bench_dynamics_client.cpp), pairs floor/box and box/box for every box. Friction 0.5,
// culling 0.01, restitution 0. Only hsd_step and hss_update are timed. Prints one JSON object: scene, steps,
// seconds, steps_per_s, plus the root height / contact count at the end as a sanity check.
// Closed loops and tracks (bench/bench_loops.py): SCENE "fourbar": the four-bar MODEL alone
// (FLOOR loaded, not added), every joint in torque mode, released under gravity; "leg": the
// parallel leg MODEL alone, its hip motor THIGH high gain following 0.4 sin(2 pi t) (a
// JOINT_VALUE command every step), knee and rod in torque mode; "crawler": FLOOR and the
// crawler MODEL, tracks at 0.3 m/s, flipper high gain, pairs floor/each track with friction 1.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dynamics.h"
#include "sensors.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(int rc, const hsError *err) {
  if (rc < 0) {
    char buf[1200];
    fprintf(stderr, "bench_world: %s\n", hsu_formatError(err, buf, sizeof buf));
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s humanoid|boxes|fourbar|leg|crawler STEPS FLOOR MODEL\n",
            argv[0]);
    return 1;
  }
  const char *scene = argv[1];
  long steps = atol(argv[2]);
  hsError err = {0};
  hsd_initODE();
  hsBody *floor = hsm_loadVrml(argv[3], NULL, NULL, 0, NULL, &err);
  hsBody *model = floor ? hsm_loadVrml(argv[4], NULL, NULL, 0, NULL, &err) : NULL;
  if (!model) {
    check(-1, &err);
  }
  hsdWorld *w = hsd_makeWorld(NULL, &err);
  if (!w) {
    check(-1, &err);
  }
  hsdSurface surface = {0.5, 0.5, 0.0, 0.01};
  int floorCh = hsd_addCharacter(w, "floor", floor, &err);
  check(floorCh, &err);
  int probe = -1;
  int legMotor = 0;
  if (strcmp(scene, "fourbar") == 0 || strcmp(scene, "leg") == 0) {
    probe = hsd_addCharacter(w, "mech", model, &err);
    check(probe, &err);
    if (strcmp(scene, "leg") == 0) {
      check(hsd_setJointMode(w, probe, 1, hsMODE_HIGH_GAIN, &err), &err);
      legMotor = 1;
    }
  } else if (strcmp(scene, "crawler") == 0) {
    probe = hsd_addCharacter(w, "crawler", model, &err);
    check(probe, &err);
    hsdSurface track = {1.0, 1.0, 0.0, 0.005};
    for (int k = 1; k <= 2; k++) {
      check(hsd_addContactPair(w, floorCh, -1, probe, k, &track, &err), &err);
      check(hsd_setJointTorque(w, probe, k, 0.3, &err), &err);
    }
    check(hsd_setJointMode(w, probe, 3, hsMODE_HIGH_GAIN, &err), &err);
  } else if (strcmp(scene, "humanoid") == 0) {
    probe = hsd_addCharacter(w, "robot", model, &err);
    check(probe, &err);
    check(hsd_setAllJointModes(w, probe, hsMODE_HIGH_GAIN, &err), &err);
    check(hsd_addContactPair(w, floorCh, -1, probe, -1, &surface, &err), &err);
  } else if (strcmp(scene, "boxes") == 0) {
    int box[100];
    for (int i = 0; i < 100; i++) {
      char name[16];
      snprintf(name, sizeof name, "box%02d", i);
      box[i] = hsd_addCharacter(w, name, model, &err);
      check(box[i], &err);
      int layer = i / 25, row = (i % 25) / 5, col = i % 5;
      double yaw = 0.1 * layer, c = cos(yaw), s = sin(yaw);
      double p[3] = {(col - 2) * 0.15 + 0.03 * layer, (row - 2) * 0.15 - 0.02 * layer,
                     0.1 + 0.15 * layer};
      double R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
      check(hsd_setLinkPose(w, box[i], 0, p, R, &err), &err);
      check(hsd_addContactPair(w, floorCh, -1, box[i], -1, &surface, &err), &err);
    }
    for (int i = 0; i < 100; i++) {
      for (int j = i + 1; j < 100; j++) {
        check(hsd_addContactPair(w, box[i], -1, box[j], -1, &surface, &err), &err);
      }
    }
    probe = box[0];
  } else {
    fprintf(stderr, "unknown scene '%s'\n", scene);
    return 1;
  }
  check(hsd_setTimeStep(w, 0.001, &err), &err);
  check(hsd_init(w, &err), &err);
  // every character's sensor readings, as the servers compute them after each step
  int nchar = hsd_characterCount(w);
  hssState **sensors = calloc((size_t)nchar, sizeof *sensors);
  for (int c = 0; c < nchar; c++) {
    sensors[c] = hss_makeState(hsd_characterBody(w, c), &err);
    check(sensors[c] ? 0 : -1, &err);
  }

  double t0 = now();
  for (long i = 0; i < steps; i++) {
    if (legMotor) {
      check(hsd_setJointValue(w, probe, 1, 0.4 * sin(2 * HS_PI * (i + 1) * 0.001), &err), &err);
    }
    check(hsd_step(w, &err), &err);
    for (int c = 0; c < nchar; c++) {
      hss_update(sensors[c], w, c);
    }
  }
  double seconds = now() - t0;
  int ncontact = 0;
  hsd_contacts(w, &ncontact);
  printf("{\"scene\": \"%s\", \"steps\": %ld, \"seconds\": %.6f, \"steps_per_s\": %.1f, "
         "\"root_z\": %.6f, \"contacts\": %d, \"warnings\": %d}\n",
         scene, steps, seconds, steps / seconds, hsd_state(w, probe)->rootP[2], ncontact,
         hsd_warningCount(w));
  for (int c = 0; c < nchar; c++) {
    hss_freeState(sensors[c]);
  }
  free(sensors);
  hsd_freeWorld(w);
  hsm_freeBody(model);
  hsm_freeBody(floor);
  return 0;
}
