// col_helpers.h - small builders for the collision tests: one-geom models, two-body scenes,
// poses from axis-angle, and comparisons of vectors.

#ifndef HRPSIM_TESTS_UNIT_COLLISION_COL_HELPERS_H_
#define HRPSIM_TESTS_UNIT_COLLISION_COL_HELPERS_H_

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collision.h"
#include "test_support.h"

static const double kIdentity12[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

// a model of one link holding one primitive at the link origin
static inline hscModel *colPrim(hstGeom type, double s0, double s1, double s2) {
  hscGeomDesc d;
  memset(&d, 0, sizeof d);
  d.type = type;
  memcpy(d.T, kIdentity12, sizeof d.T);
  d.size[0] = s0;
  d.size[1] = s1;
  d.size[2] = s2;
  hsError err = {0};
  hscModel *m = hsc_makeModelFromGeoms(&d, 1, 1, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL(m);
  return m;
}

// a model of one link holding one mesh
static inline hscModel *colMesh(const float *v, int nv, const int *t, int nt, int leafSize) {
  hscGeomDesc d;
  memset(&d, 0, sizeof d);
  d.type = hsGEOM_MESH;
  memcpy(d.T, kIdentity12, sizeof d.T);
  d.vertices = v;
  d.nvertex = nv;
  d.triangles = t;
  d.ntriangle = nt;
  hscModelOptions o;
  hsc_defaultModelOptions(&o);
  o.leafSize = leafSize;
  hsError err = {0};
  hscModel *m = hsc_makeModelFromGeoms(&d, 1, 1, &o, &err);
  CU_ASSERT_PTR_NOT_NULL(m);
  return m;
}

// rotation about a unit axis
static inline void colRot(double R[9], double x, double y, double z, double angle) {
  double aa[4] = {x, y, z, angle};
  hsu_axisAngleToMat(R, aa);
}

// place link 0 of a body at p with rotation R (NULL: identity)
static inline void colPlace(hscScene *s, int body, double x, double y, double z,
                            const double *R) {
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, p[3] = {x, y, z};
  CU_ASSERT_EQUAL(hsc_setLinkPose(s, body, 0, p, R ? R : I, NULL), 0);
}

// a scene of two single-link bodies a and b, and the pair (a, b)
static inline hscScene *colScene2(const hscModel *a, const hscModel *b, hscPair *pair) {
  hscScene *s = hsc_makeScene(NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(hsc_addBody(s, a, NULL), 0);
  CU_ASSERT_EQUAL(hsc_addBody(s, b, NULL), 1);
  memset(pair, 0, sizeof *pair);
  pair->body[1] = 1;
  return s;
}

// assert |a - b| <= tol component-wise, printing both on failure
#define COL_NEAR3(a, b, tol)                                                              \
  do {                                                                                    \
    const double *a_ = (a), *b_ = (b);                                                    \
    for (int k_ = 0; k_ < 3; k_++) {                                                      \
      if (!(fabs(a_[k_] - b_[k_]) <= (tol))) {                                            \
        fprintf(stderr, "\n  %s:%d: (%.17g %.17g %.17g) != (%.17g %.17g %.17g)\n",        \
                __FILE__, __LINE__, a_[0], a_[1], a_[2], b_[0], b_[1], b_[2]);            \
        CU_FAIL("vectors differ");                                                        \
        break;                                                                            \
      }                                                                                   \
    }                                                                                     \
  } while (0)

// assert |a - b| <= tol, printing both on failure
#define COL_NEAR(a, b, tol)                                                               \
  do {                                                                                    \
    double a_ = (a), b_ = (b);                                                            \
    if (!(fabs(a_ - b_) <= (tol))) {                                                      \
      fprintf(stderr, "\n  %s:%d: %.17g != %.17g\n", __FILE__, __LINE__, a_, b_);         \
      CU_FAIL("values differ");                                                           \
    }                                                                                     \
  } while (0)

// index of the contact in c[0..n) nearest to point p
static inline int colNearest(const hscContact *c, int n, const double p[3]) {
  int best = -1;
  double bd = INFINITY;
  for (int i = 0; i < n; i++) {
    double d = hypot(hypot(c[i].p[0] - p[0], c[i].p[1] - p[1]), c[i].p[2] - p[2]);
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  return best;
}

// A mesh model a (8 vertices v, its first body) tilted by 1e-4 to 5e-4 rad about 50 axes,
// its lowest vertex sunk 1e-6 m into the top face (z = 0) of a 10 x 10 x 0.1 box (a foot sole
// on the floor). Returns how many poses break the rule: at least one contact, every normal
// straight down into the floor (within twice the tilt), every depth at most the sunk 1e-6 m.
// Frees a.
static inline int colTiltedOnFloorFaults(hscModel *a, const float v[24]) {
  hscModel *b = colPrim(hsGEOM_BOX, 10, 10, 0.1);
  hscPair pr;
  hscScene *s = colScene2(a, b, &pr);
  colPlace(s, 1, 0, 0, -0.05, NULL);
  int bad = 0;
  for (int c = 0; c < 50; c++) {
    double t = 1e-4 * (1 + c % 5), R[9];
    colRot(R, sin(c * 1.3), cos(c * 0.7), 0.3 * sin(c * 2.1), t);
    double low = 0;
    for (int i = 0; i < 8; i++) {
      low = fmin(low, R[6] * v[3 * i] + R[7] * v[3 * i + 1] + R[8] * v[3 * i + 2]);
    }
    colPlace(s, 0, 0.3, 0.2, -low - 1e-6, R);
    hscContact k[64];
    int n = hsc_contacts(s, &pr, 1, k, 64, NULL);
    bad += n < 1;
    for (int i = 0; i < n; i++) {
      bad += !(k[i].n[2] < -cos(2 * t)) || !(k[i].depth <= 1e-6 + 1e-9);
    }
  }
  hsc_freeScene(s);
  hsc_freeModel(a);
  hsc_freeModel(b);
  return bad;
}

#endif  // HRPSIM_TESTS_UNIT_COLLISION_COL_HELPERS_H_
