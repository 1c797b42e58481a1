// bench_util.h - what every C bench in process needs: a monotonic clock, a stop on the first
// error, the sample humanoid's PD gains. Include after defining BENCH_NAME (the program's name
// for its error line) and after util.h; header-only (static functions), one copy per bench
// program.

#ifndef HRPSIM_BENCH_BENCH_UTIL_H_
#define HRPSIM_BENCH_BENCH_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

// seconds on the monotonic clock
static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// exit(1) with BENCH_NAME and the error (file, line, message) when rc < 0
static inline void check(int rc, const hsError *err) {
  if (rc < 0) {
    char buf[1200];
    fprintf(stderr, "%s: %s\n", BENCH_NAME, hsu_formatError(err, buf, sizeof buf));
    exit(1);
  }
}

// the sample PD gains (samples/controllers/pd_controller.py) of the humanoid's link named name
// into pd[0] (P [N m/rad]) and pd[1] (D [N m s/rad]), by name fragment, the first match; 0, 0
// for a link none matches
static inline void benchPdGains(const char *name, double pd[2]) {
  static const struct {
    const char *frag;
    double p, d;
  } gains[] = {
      {"LEG_HIP_Y", 1000, 5},   {"LEG_HIP_R", 2000, 10},   {"LEG_HIP_P", 2500, 12},
      {"LEG_KNEE", 2500, 12},   {"LEG_ANKLE_P", 1500, 8},  {"LEG_ANKLE_R", 1200, 6},
      {"CHEST", 1500, 8},       {"NECK", 50, 0.2},         {"ARM_SHOULDER", 300, 0.75},
      {"ARM_ELBOW", 150, 0.4},  {"ARM_WRIST_Y", 5, 0.02},  {"ARM_WRIST", 20, 0.05},
  };
  pd[0] = pd[1] = 0;
  for (size_t i = 0; i < sizeof gains / sizeof gains[0]; i++) {
    if (strstr(name, gains[i].frag)) {
      pd[0] = gains[i].p;
      pd[1] = gains[i].d;
      return;
    }
  }
}

#endif  // HRPSIM_BENCH_BENCH_UTIL_H_
