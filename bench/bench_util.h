// bench_util.h - what every C bench in process needs: a monotonic clock and a stop on the first
// error. Include after defining BENCH_NAME (the program's name for its error line) and after
// util.h; header-only (static functions), one copy per bench program.

#ifndef HRPSIM_BENCH_BENCH_UTIL_H_
#define HRPSIM_BENCH_BENCH_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
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

#endif  // HRPSIM_BENCH_BENCH_UTIL_H_
