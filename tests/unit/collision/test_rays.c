// test_rays.c - rays against analytic intersections: the first hit's parameter, point and
// outward normal on each primitive, misses, rays from inside (front faces only: no hit),
// non-unit directions (the parameter scales), the nearest of several bodies, maxT.
//
// Tolerance 1e-12: each answer is one quadratic or linear solve on O(1) numbers.

#include "col_helpers.h"

static hscRayHit ray(const hscScene *s, double ox, double oy, double oz, double dx, double dy,
                     double dz) {
  double o[3] = {ox, oy, oz}, d[3] = {dx, dy, dz};
  hscRayHit h;
  hsc_ray(s, o, d, INFINITY, &h);
  return h;
}

// a one-body scene holding m at p (rotation R or identity)
static hscScene *one(const hscModel *m, double x, double y, double z, const double *R) {
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, m, NULL);
  colPlace(s, 0, x, y, z, R);
  return s;
}

static void testSphere(void) {
  hscModel *m = colPrim(hsGEOM_SPHERE, 1, 0, 0);
  hscScene *s = one(m, 1, 2, 3, NULL);
  hscRayHit h = ray(s, 1.6, 2, 8, 0, 0, -1);
  COL_NEAR(h.t, 5 - 0.8, 1e-12);
  double n[3] = {0.6, 0, 0.8}, p[3] = {1.6, 2, 3.8};
  COL_NEAR3(h.n, n, 1e-12);
  COL_NEAR3(h.p, p, 1e-12);
  CU_ASSERT_EQUAL(h.body, 0);
  CU_ASSERT_EQUAL(h.link, 0);
  // a direction of length 2 halves the parameter
  h = ray(s, 1.6, 2, 8, 0, 0, -2);
  COL_NEAR(h.t, (5 - 0.8) / 2, 1e-12);
  // missing, pointing away, from inside
  CU_ASSERT_EQUAL(ray(s, 2.1, 2, 8, 0, 0, -1).body, -1);
  CU_ASSERT_EQUAL(ray(s, 1, 2, 8, 0, 0, 1).body, -1);
  h = ray(s, 1, 2, 3, 0, 0, 1);
  CU_ASSERT_EQUAL(h.body, -1);
  CU_ASSERT(h.t == INFINITY);
  hsc_freeScene(s);
  hsc_freeModel(m);
}

static void testBox(void) {
  hscModel *m = colPrim(hsGEOM_BOX, 1, 2, 4);
  double R[9];
  colRot(R, 0, 0, 1, HS_PI / 2);  // box x along world y
  hscScene *s = one(m, 0, 0, 0, R);
  hscRayHit h = ray(s, 5, 0.1, 0.3, -1, 0, 0);  // the box's y half-size 1 lies along world x
  COL_NEAR(h.t, 4, 1e-12);
  double n[3] = {1, 0, 0};
  COL_NEAR3(h.n, n, 1e-12);
  h = ray(s, 0.1, 0.2, -7, 0, 0, 1);
  COL_NEAR(h.t, 5, 1e-12);
  double nz[3] = {0, 0, -1};
  COL_NEAR3(h.n, nz, 1e-12);
  // oblique through a corner region: enters by x = 1 at t where the slab interval starts
  h = ray(s, 3, 3, 0, -1, -1, 0);
  COL_NEAR(h.t, 2.5, 1e-12);  // y = 0.5 reached at t = 2.5, x = 1 at t = 2
  CU_ASSERT_EQUAL(ray(s, 0, 0, 0, 1, 0, 0).body, -1);  // inside
  CU_ASSERT_EQUAL(ray(s, 3, 3, 0, 1, 1, 0).body, -1);
  hsc_freeScene(s);
  hsc_freeModel(m);
}

static void testCylinderConeCapsule(void) {
  hscModel *cyl = colPrim(hsGEOM_CYLINDER, 0.5, 2, 0);
  hscScene *s = one(cyl, 0, 0, 0, NULL);
  hscRayHit h = ray(s, 3, 0.3, 0.2, -1, 0, 0);
  COL_NEAR(h.t, 3 - sqrt(0.25 - 0.09), 1e-12);
  double n[3] = {sqrt(0.25 - 0.09) / 0.5, 0.3 / 0.5, 0};
  COL_NEAR3(h.n, n, 1e-12);
  h = ray(s, 0.2, 0.1, 5, 0, 0, -1);
  COL_NEAR(h.t, 4, 1e-12);
  CU_ASSERT_EQUAL(ray(s, 0.6, 0, 5, 0, 0, -1).body, -1);
  hsc_freeScene(s);
  // cone: radius 0.5 at z = -1, apex at z = 1; radius at height z is 0.25 (1 - z)
  hscModel *cone = colPrim(hsGEOM_CONE, 0.5, 2, 0);
  s = one(cone, 0, 0, 0, NULL);
  h = ray(s, 3, 0, 0.2, -1, 0, 0);
  COL_NEAR(h.t, 3 - 0.25 * 0.8, 1e-12);
  double L = sqrt(4.0 + 0.25), nc[3] = {2 / L, 0, 0.5 / L};
  COL_NEAR3(h.n, nc, 1e-12);
  h = ray(s, 0.3, 0, -4, 0, 0, 1);  // the base disc
  COL_NEAR(h.t, 3, 1e-12);
  h = ray(s, 0, 0, 4, 0, 0, -1);  // the apex
  COL_NEAR(h.t, 3, 1e-12);
  CU_ASSERT_EQUAL(ray(s, 3, 0, 1.2, -1, 0, 0).body, -1);  // above the apex
  hsc_freeScene(s);
  hscModel *cap = colPrim(hsGEOM_CAPSULE, 0.25, 1, 0);
  s = one(cap, 0, 0, 0, NULL);
  h = ray(s, 0.15, 0, 5, 0, 0, -1);  // the top sphere at (0, 0, 0.5)
  COL_NEAR(h.t, 5 - 0.5 - sqrt(0.0625 - 0.0225), 1e-12);
  h = ray(s, 3, 0, -0.4, -1, 0, 0);  // the side
  COL_NEAR(h.t, 2.75, 1e-12);
  hsc_freeScene(s);
  hsc_freeModel(cyl);
  hsc_freeModel(cone);
  hsc_freeModel(cap);
}

// the nearest of two bodies, and maxT
static void testNearestAndLimit(void) {
  hscModel *m = colPrim(hsGEOM_SPHERE, 0.5, 0, 0);
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, m, NULL);
  hsc_addBody(s, m, NULL);
  colPlace(s, 0, 0, 0, -3, NULL);
  colPlace(s, 1, 0, 0, -1, NULL);
  hscRayHit h = ray(s, 0, 0, 5, 0, 0, -1);
  CU_ASSERT_EQUAL(h.body, 1);
  COL_NEAR(h.t, 5.5, 1e-12);
  double o[3] = {0, 0, 5}, d[3] = {0, 0, -1};
  CU_ASSERT_EQUAL(hsc_ray(s, o, d, 5.0, &h), 0);
  CU_ASSERT_EQUAL(h.t, 5.0);
  CU_ASSERT_EQUAL(hsc_ray(s, o, d, 6.0, &h), 1);
  hsc_freeScene(s);
  hsc_freeModel(m);
}

void register_rays(void) {
  CU_pSuite s = hst_addSuite("collision rays");
  CU_add_test(s, "sphere", testSphere);
  CU_add_test(s, "box", testBox);
  CU_add_test(s, "cylinder, cone, capsule", testCylinderConeCapsule);
  CU_add_test(s, "nearest body and the parameter limit", testNearestAndLimit);
}
