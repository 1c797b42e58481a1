// bench_world.c - steps per second of the C world alone (no CORBA), for the scenes that
// bench_dynamics_client.cpp drives through the server.
//
//   hrpsim-bench-world SCENE STEPS FLOOR MODEL
//
// SCENE "humanoid": FLOOR and the sample humanoid MODEL at its initial pose, every joint in
// high-gain mode, one contact pair floor/robot (all links), 1 ms step; the step is the core's
// (hs_step: dynamics, then every character's sensor readings, as the servers do). SCENE
// "boxes": 100 copies of the box MODEL in a 5 x 5 x 4 grid (the poses of
// bench_dynamics_client.cpp), pairs floor/box and box/box for every box. Friction 0.5, culling
// 0.01, restitution 0. Only hs_step is timed. Prints one JSON object: scene, steps, seconds,
// steps_per_s, plus the root height / contact count at the end as a sanity check.
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

#include "core.h"
#include "model.h"
#include "util.h"

#define BENCH_NAME "bench_world"
#include "bench_util.h"

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s humanoid|boxes|fourbar|leg|crawler STEPS FLOOR MODEL\n",
            argv[0]);
    return 1;
  }
  const char *scene = argv[1];
  long steps = atol(argv[2]);
  hsError err = {0};
  hsBody *floor = hs_loadBody(argv[3], &err);
  hsBody *model = floor ? hs_loadBody(argv[4], &err) : NULL;
  if (!model) {
    check(-1, &err);
  }
  hsSim *sim = hs_makeSim(&err);
  if (!sim) {
    check(-1, &err);
  }
  const double one = 1.0;
  check(hs_addCharacter(sim, "floor", floor, 1, &err), &err);
  int probe = -1;
  int legMotor = 0;
  if (strcmp(scene, "fourbar") == 0 || strcmp(scene, "leg") == 0) {
    probe = hs_addCharacter(sim, "mech", model, 1, &err);
    check(probe, &err);
    if (strcmp(scene, "leg") == 0) {
      check(hs_setLinkData(sim, probe, 1, hsDATA_POSITION_GIVEN, &one, 1, &err), &err);
      legMotor = 1;
    }
  } else if (strcmp(scene, "crawler") == 0) {
    probe = hs_addCharacter(sim, "crawler", model, 1, &err);
    check(probe, &err);
    const double speed = 0.3;
    for (int k = 1; k <= 2; k++) {
      check(hs_addContactPair(sim, "floor", "", "crawler", hs_linkName(sim, probe, k), 1.0, 1.0,
                              0.0, 0.005, &err),
            &err);
      check(hs_setLinkData(sim, probe, k, hsDATA_JOINT_TORQUE, &speed, 1, &err), &err);
    }
    check(hs_setLinkData(sim, probe, 3, hsDATA_POSITION_GIVEN, &one, 1, &err), &err);
  } else if (strcmp(scene, "humanoid") == 0) {
    probe = hs_addCharacter(sim, "robot", model, 1, &err);
    check(probe, &err);
    check(hs_setAllJointModes(sim, probe, 1, &err), &err);
    check(hs_addContactPair(sim, "floor", "", "robot", "", 0.5, 0.5, 0.0, 0.01, &err), &err);
  } else if (strcmp(scene, "boxes") == 0) {
    int box[100];
    char name[100][16];
    for (int i = 0; i < 100; i++) {
      snprintf(name[i], sizeof name[i], "box%02d", i);
      // one body under 100 names: the first character owns it
      box[i] = hs_addCharacter(sim, name[i], model, i == 0, &err);
      check(box[i], &err);
      int layer = i / 25, row = (i % 25) / 5, col = i % 5;
      double yaw = 0.1 * layer, c = cos(yaw), s = sin(yaw);
      double pose[12] = {(col - 2) * 0.15 + 0.03 * layer, (row - 2) * 0.15 - 0.02 * layer,
                         0.1 + 0.15 * layer, c, -s, 0, s, c, 0, 0, 0, 1};
      check(hs_setLinkData(sim, box[i], 0, hsDATA_ABS_TRANSFORM, pose, 12, &err), &err);
      check(hs_addContactPair(sim, "floor", "", name[i], "", 0.5, 0.5, 0.0, 0.01, &err), &err);
    }
    for (int i = 0; i < 100; i++) {
      for (int j = i + 1; j < 100; j++) {
        check(hs_addContactPair(sim, name[i], "", name[j], "", 0.5, 0.5, 0.0, 0.01, &err), &err);
      }
    }
    probe = box[0];
  } else {
    fprintf(stderr, "unknown scene '%s'\n", scene);
    return 1;
  }
  check(hs_setTimeStep(sim, 0.001, &err), &err);
  // every character's sensor readings after each step, as the servers compute them
  hs_enableSensors(sim, 1);
  check(hs_start(sim, &err), &err);

  double t0 = now();
  for (long i = 0; i < steps; i++) {
    if (legMotor) {
      double q = 0.4 * sin(2 * HS_PI * (i + 1) * 0.001);
      check(hs_setLinkData(sim, probe, 1, hsDATA_JOINT_VALUE, &q, 1, &err), &err);
    }
    check(hs_step(sim, &err), &err);
  }
  double seconds = now() - t0;
  int ncontact = 0;
  hs_contacts(sim, &ncontact);
  printf("{\"scene\": \"%s\", \"steps\": %ld, \"seconds\": %.6f, \"steps_per_s\": %.1f, "
         "\"root_z\": %.6f, \"contacts\": %d, \"warnings\": %d}\n",
         scene, steps, seconds, steps / seconds, hs_linkP(sim, probe)[2], ncontact,
         hs_warningCount(sim));
  hs_freeSim(sim);
  return 0;
}
