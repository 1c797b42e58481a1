// bench_range.c - range sensors: the time of one scan through the collision library, the sample
// humanoid standing in the sample room (samples/models/env/room.wrl: walls, table, chairs,
// primitives and meshes) on the sample floor.
//
// Usage: hrpsim-bench-range [SAMPLES_DIR] [REPEATS]
// Measured side by side in one run, each the median over batches of REPEATS calls:
//   - a 1,080-beam fan over 270 degrees (hss_castFan) from the humanoid's chest sensor pose;
//   - the humanoid's own RangeSensor (257 beams) as the core takes it: hsd_stateScene (the
//     world's collision scene, every character posed at its state) + hss_updateRange;
//   - one step of the same scene through the core (hs_step: dynamics + the body sensors), for the
//     ratio scan / step.
// Prints a table and a JSON line. The target: a 1,080-beam scan in under 0.5 ms.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dynamics.h"
#include "core.h"
#include "sensors.h"

static double nowS(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

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

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmpDouble);
  return v[n / 2];
}

enum { BATCHES = 21, NBEAM = 1080 };

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "samples/models";
  int repeats = argc > 2 ? atoi(argv[2]) : 200;
  if (repeats < 1) {
    repeats = 1;
  }
  hs_initProcess();
  hsBody *robot = load(dir, "humanoid/humanoid.wrl");
  hsBody *floor = load(dir, "floor/floor.wrl");
  hsBody *room = load(dir, "env/room.wrl");
  hsError err = {0};
  hsdWorld *w = hsd_makeWorld(NULL, &err);
  int fl = hsd_addCharacter(w, "floor", floor, &err);
  hsd_addCharacter(w, "room", room, &err);
  int ch = hsd_addCharacter(w, "robot", robot, &err);
  hsdSurface s = {0.5, 0.5, 0, 0.01};
  if (hsd_addContactPair(w, ch, -1, fl, -1, &s, &err) < 0 ||
      hsd_setAllJointModes(w, ch, hsMODE_HIGH_GAIN, &err) < 0 || hsd_init(w, &err) < 0) {
    char buf[1200];
    fprintf(stderr, "%s\n", hsu_formatError(&err, buf, sizeof buf));
    return 1;
  }
  hssState *st = hss_makeState(robot, &err);
  const hscScene *scene = hsd_stateScene(w);
  int *scratch = scene ? calloc((size_t)hsc_fanScratchSize(scene), sizeof *scratch) : NULL;
  if (!st || !scratch) {
    fprintf(stderr, "%s\n", st ? "no scene" : err.message);
    return 1;
  }
  // the chest sensor's world pose
  int sensor = hsm_sensorById(robot, hsSENSOR_RANGE, 0);
  const hsSensor *sn = &robot->sensors[sensor];
  const hsBodyState *bs = hsd_state(w, ch);
  double p[3], R[9], Rl[9];
  hsu_rotVec(p, bs->linkR + 9 * sn->link, sn->translation);
  for (int j = 0; j < 3; j++) {
    p[j] += bs->linkP[3 * sn->link + j];
  }
  hsu_axisAngleToMat(Rl, sn->rotation);
  hsu_mulMat(R, bs->linkR + 9 * sn->link, Rl);

  double step = 1.5 * 3.141592653589793 / NBEAM, out[NBEAM];
  double fan[BATCHES], sens[BATCHES], dyn[BATCHES];
  for (int b = 0; b < BATCHES; b++) {
    double t0 = nowS();
    for (int i = 0; i < repeats; i++) {
      hss_castFan(scene, scratch, p, R, step, NBEAM, out);
    }
    fan[b] = (nowS() - t0) / repeats;
  }
  int hits = 0;
  for (int k = 0; k < NBEAM; k++) {
    hits += out[k] > 0;
  }
  for (int b = 0; b < BATCHES; b++) {
    double t0 = nowS();
    for (int i = 0; i < repeats; i++) {
      // step 0: every range sensor is due
      hss_updateRange(st, w, ch, hsd_stateScene(w), scratch);
    }
    sens[b] = (nowS() - t0) / repeats;
  }
  int nb = 0;
  hss_reading(st, sensor, &nb);
  // the step: the core's, over the same scene (sensors off: the body sensors are computed, no
  // range scan is taken)
  hsSim *sim = hs_makeSim(&err);
  if (!sim || hs_addCharacter(sim, "floor", floor, 0, &err) < 0 ||
      hs_addCharacter(sim, "room", room, 0, &err) < 0 ||
      hs_addCharacter(sim, "robot", robot, 0, &err) < 0 ||
      hs_addContactPair(sim, "robot", "", "floor", "", 0.5, 0.5, 0, 0.01, &err) < 0 ||
      hs_setAllJointModes(sim, 2, 1, &err) < 0 || hs_start(sim, &err) < 0) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  for (int b = 0; b < BATCHES; b++) {
    double t0 = nowS();
    for (int i = 0; i < repeats; i++) {
      hs_step(sim, NULL);
    }
    dyn[b] = (nowS() - t0) / repeats;
  }
  hs_freeSim(sim);
  double f = median(fan, BATCHES), sv = median(sens, BATCHES), d = median(dyn, BATCHES);
  printf("humanoid in the sample room: %d characters, median of %d batches of %d\n",
         hsd_characterCount(w), BATCHES, repeats);
  printf("%-46s %10.1f us  (%.0f ns/beam, %d/%d beams hit)  target < 500 us\n",
         "1,080-beam fan (hss_castFan)", 1e6 * f, 1e9 * f / NBEAM, hits, NBEAM);
  printf("%-46s %10.1f us  (%d beams)\n", "humanoid RangeSensor: pose + updateRange", 1e6 * sv,
         nb);
  printf("%-46s %10.1f us\n", "one dynamics step + body sensors", 1e6 * d);
  printf("ratio 1,080-beam scan / dynamics step: %.2f\n", f / d);
  printf("{\"fan1080_us\": %.2f, \"fan_hits\": %d, \"sensor257_us\": %.2f, \"step_us\": %.2f, "
         "\"ratio_scan_step\": %.3f}\n", 1e6 * f, hits, 1e6 * sv, 1e6 * d, f / d);
  free(scratch);
  hss_freeState(st);
  hsd_freeWorld(w);
  hsm_freeBody(robot);
  hsm_freeBody(floor);
  hsm_freeBody(room);
  return 0;
}
