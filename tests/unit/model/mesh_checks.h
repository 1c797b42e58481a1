// mesh_checks.h - helpers shared by the model geometry tests: corner access, signed volume,
// closedness of a triangle mesh, the corner normals of a smoothed box, and meshing with each
// allocation in turn failing.
//
// Header-only (static inline) because the test build compiles every tests/unit/<module>/test_*.c
// and nothing else.

#ifndef HRPSIM_TESTS_UNIT_MODEL_MESH_CHECKS_H_
#define HRPSIM_TESTS_UNIT_MODEL_MESH_CHECKS_H_

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "test_support.h"

// position of vertex v
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

// qsort/bsearch order of edge keys
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

// texture coordinate of corner k of triangle t
static inline void cornerTex(const hsmMesh *m, int t, int k, double st[2]) {
  int i = m->texCoordIndices[3 * t + k];
  st[0] = m->texCoords[2 * i];
  st[1] = m->texCoords[2 * i + 1];
}

// 1 if every member of m is zero (as a failed or freed mesher leaves it)
static inline int isZeroMesh(const hsmMesh *m) {
  hsmMesh zero;
  memset(&zero, 0, sizeof zero);
  return memcmp(m, &zero, sizeof zero) == 0;
}

// check that every corner normal of a box's 12 triangles, meshed about the origin with smooth
// normals, points along its corner's diagonal (+-1, +-1, +-1) / sqrt 3
static inline void checkDiagonalNormals(const hsmMesh *m) {
  for (int t = 0; t < 12; t++) {
    for (int k = 0; k < 3; k++) {
      double p[3], n[3];
      cornerOf(m, t, k, p);
      cornerNormal(m, t, k, n);
      for (int c = 0; c < 3; c++) {
        HST_NEAR(n[c], (p[c] > 0 ? 1 : -1) / sqrt(3.0), 1e-7);
      }
    }
  }
}

// run mesh (a mesher wrapped to take its input as in) with allocation n failing for n = 1, 2, ...
// below limit until it succeeds. Every failure must return hsE_NOMEM, record it in the mesher's
// err too when checkErr is set, and leave a zero mesh (and leak nothing, which valgrind checks).
// The mesh that succeeds goes to *done for the caller to check and free, or is freed when done
// is NULL; returns the number of failures
static inline int failEachMeshAllocation(int (*mesh)(hsmMesh *m, const void *in, hsError *err),
                                         const void *in, long limit, int checkErr,
                                         hsmMesh *done) {
  int failures = 0;
  for (long n = 1; n < limit; n++) {
    hsmMesh m = {0};
    hsError err = {0};
    hsu_failAllocAfter(n);
    int rc = mesh(&m, in, &err);
    hsu_failAllocAfter(0);
    if (rc == 0) {
      if (done) {
        *done = m;
      } else {
        hsm_freeMesh(&m);
      }
      break;
    }
    failures++;
    CU_ASSERT_EQUAL(rc, hsE_NOMEM);
    if (checkErr) {
      CU_ASSERT_EQUAL(err.code, hsE_NOMEM);
    }
    CU_ASSERT_TRUE(isZeroMesh(&m));
  }
  return failures;
}

#endif  // HRPSIM_TESTS_UNIT_MODEL_MESH_CHECKS_H_
