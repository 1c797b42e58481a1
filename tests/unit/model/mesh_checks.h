// mesh_checks.h - helpers shared by the model geometry tests: corner access, signed volume,
// closedness of a triangle mesh.
//
// Header-only (static inline) because the test build compiles every tests/unit/<module>/test_*.c
// and nothing else.

#ifndef HRPSIM_TESTS_UNIT_MODEL_MESH_CHECKS_H_
#define HRPSIM_TESTS_UNIT_MODEL_MESH_CHECKS_H_

#include <stdlib.h>
#include <string.h>

#include "geometry.h"

static inline void vertexOf(const hsmMesh *m, int v, double p[3]) {
  for (int k = 0; k < 3; k++) {
    p[k] = m->vertices[3 * v + k];
  }
}

// corner k of triangle t
static inline void cornerOf(const hsmMesh *m, int t, int k, double p[3]) {
  vertexOf(m, m->triangles[3 * t + k], p);
}

// unnormalised normal (twice the area vector) of triangle t
static inline void areaVector(const hsmMesh *m, int t, double n[3]) {
  double a[3], b[3], c[3], u[3], v[3];
  cornerOf(m, t, 0, a);
  cornerOf(m, t, 1, b);
  cornerOf(m, t, 2, c);
  for (int k = 0; k < 3; k++) {
    u[k] = b[k] - a[k], v[k] = c[k] - a[k];
  }
  hsu_cross(n, u, v);
}

// signed volume enclosed by the triangles
static inline double volumeOf(const hsmMesh *m) {
  double vol = 0;
  for (int t = 0; t < m->ntriangle; t++) {
    double a[3], b[3], c[3], x[3];
    cornerOf(m, t, 0, a);
    cornerOf(m, t, 1, b);
    cornerOf(m, t, 2, c);
    hsu_cross(x, b, c);
    vol += hsu_dot(a, x) / 6;
  }
  return vol;
}

static inline int compareEdges(const void *pa, const void *pb) {
  const long long *a = pa, *b = pb;
  return *a < *b ? -1 : *a > *b;
}

// 1 if every directed edge occurs once and its reverse once (closed, consistently oriented)
static inline int isClosed(const hsmMesh *m) {
  int ne = 3 * m->ntriangle;
  long long *e = malloc((size_t)ne * sizeof *e);
  for (int t = 0; t < m->ntriangle; t++) {
    for (int k = 0; k < 3; k++) {
      long long a = m->triangles[3 * t + k], b = m->triangles[3 * t + (k + 1) % 3];
      e[3 * t + k] = a * 1000000 + b;
    }
  }
  qsort(e, (size_t)ne, sizeof *e, compareEdges);
  int ok = 1;
  for (int i = 0; ok && i < ne; i++) {
    long long rev = (e[i] % 1000000) * 1000000 + e[i] / 1000000;
    ok = (i == 0 || e[i] != e[i - 1]) && bsearch(&rev, e, (size_t)ne, sizeof *e, compareEdges);
  }
  free(e);
  return ok;
}

// normal of corner k of triangle t (per-vertex layout)
static inline void cornerNormal(const hsmMesh *m, int t, int k, double n[3]) {
  int i = m->normalIndices[3 * t + k];
  for (int c = 0; c < 3; c++) {
    n[c] = m->normals[3 * i + c];
  }
}

static inline void cornerTex(const hsmMesh *m, int t, int k, double st[2]) {
  int i = m->texCoordIndices[3 * t + k];
  st[0] = m->texCoords[2 * i];
  st[1] = m->texCoords[2 * i + 1];
}

static inline int isZeroMesh(const hsmMesh *m) {
  hsmMesh zero;
  memset(&zero, 0, sizeof zero);
  return memcmp(m, &zero, sizeof zero) == 0;
}

#endif  // HRPSIM_TESTS_UNIT_MODEL_MESH_CHECKS_H_
