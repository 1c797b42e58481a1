// bench_load.c - time hsm_loadModel (VRML or URDF) in process: the floor under any
// through-CORBA figure.
//
// Usage: hrpsim-bench-load MODEL [REPEATS]   prints median and min load time in ms,
// the triangle count, the body's size in bytes and its shapes by primitive type.

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.wrl [REPEATS]\n", argv[0]);
    return 2;
  }
  int repeats = argc > 2 ? atoi(argv[2]) : 50;
  if (repeats < 1) {
    repeats = 1;
  }
  double *t = malloc(sizeof(double) * (size_t)repeats);
  long triangles = 0;
  size_t bytes = 0;
  int nshape = 0, kinds[6] = {0};
  for (int i = 0; i < repeats; i++) {
    hsError err = {0};
    double t0 = nowMs();
    hsBody *b = hsm_loadModel(argv[1], NULL, NULL, 0, NULL, &err);
    t[i] = nowMs() - t0;
    if (!b) {
      char buf[1200];
      fprintf(stderr, "%s\n", hsu_formatError(&err, buf, sizeof buf));
      free(t);
      return 1;
    }
    triangles = hsm_triangleCount(b);
    bytes = b->nbytes;
    nshape = b->nshape;
    for (int k = 0; k < 6; k++) {
      kinds[k] = 0;
    }
    for (int s = 0; s < b->nshape; s++) {
      kinds[b->shapes[s].primitive]++;
    }
    hsm_freeBody(b);
  }
  qsort(t, (size_t)repeats, sizeof(double), cmpDouble);
  printf("{\"median_ms\": %.4f, \"min_ms\": %.4f, \"triangles\": %ld, \"body_bytes\": %zu, "
         "\"shapes\": %d, \"by_primitive\": {\"mesh\": %d, \"box\": %d, \"cylinder\": %d, "
         "\"cone\": %d, \"sphere\": %d, \"plane\": %d}}\n",
         t[repeats / 2], t[0], triangles, bytes, nshape, kinds[0], kinds[1], kinds[2], kinds[3],
         kinds[4], kinds[5]);
  free(t);
  return 0;
}
