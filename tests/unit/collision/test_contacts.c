// test_contacts.c - contact manifolds of primitive pairs against closed-form answers: normal
// (from side 0 into side 1, OpenHRP's direction), depth (positive) and points (midway between
// the surfaces), for every pair kind; swapping the sides flips the normal and nothing else.
//
// Tolerances: 1e-12 m for answers from closed forms (sphere pairs, boxes by separating axes and
// clipping), which involve a handful of roundings of O(1) numbers; 1e-9 m where GJK or MPR
// finds the normal (curved shapes, where the iteration stops at a relative 1e-13 of the
// squared distance).

#include "col_helpers.h"

// contacts of one pair into c (up to 64); returns the count
static int contacts(hscScene *s, const hscPair *p, hscContact *c) {
  return hsc_contacts(s, p, 1, c, 64, NULL);
}

// sphere r 0.3 at the origin, sphere r 0.2 at c: depth 0.5 - |c|, normal c / |c|, point on the
// line at 0.3 - depth / 2 from the first centre
static void testSphereSphere(void) {
  hscModel *a = colPrim(hsGEOM_SPHERE, 0.3, 0, 0), *b = colPrim(hsGEOM_SPHERE, 0.2, 0, 0);
  hscPair pr;
  hscScene *s = colScene2(a, b, &pr);
  double c[3] = {0.2, 0.1, -0.3}, L = sqrt(0.04 + 0.01 + 0.09), depth = 0.5 - L;
  colPlace(s, 1, c[0], c[1], c[2], NULL);
  hscContact k[64];
  CU_ASSERT_EQUAL_FATAL(contacts(s, &pr, k), 1);
  double n[3] = {c[0] / L, c[1] / L, c[2] / L}, p[3];
  for (int j = 0; j < 3; j++) {
    p[j] = n[j] * (0.3 - depth / 2);
  }
  COL_NEAR(k[0].depth, depth, 1e-12);
  COL_NEAR3(k[0].n, n, 1e-12);
  COL_NEAR3(k[0].p, p, 1e-12);
  CU_ASSERT_EQUAL(k[0].pair, 0);
  // apart by 1 mm: nothing
  colPlace(s, 1, 0.501, 0, 0, NULL);
  CU_ASSERT_EQUAL(contacts(s, &pr, k), 0);
  hsc_freeScene(s);
  hsc_freeModel(a);
  hsc_freeModel(b);
}

// a sphere against a rotated box: over a face, over an edge, with its centre inside
static void testSphereBox(void) {
  hscModel *box = colPrim(hsGEOM_BOX, 1.0, 2.0, 0.5), *sph = colPrim(hsGEOM_SPHERE, 0.1, 0, 0);
  hscPair pr;
  hscScene *s = colScene2(sph, box, &pr);
  double R[9];
  colRot(R, 0, 0, 1, 0.3);
  colPlace(s, 1, 1, 2, 3, R);
  hscContact k[64];
  // over the top face (z = 3.25), 0.02 deep, at box-local (0.2, -0.5)
  double lx = 0.2, ly = -0.5, cx = 1 + R[0] * lx + R[1] * ly, cy = 2 + R[3] * lx + R[4] * ly;
  colPlace(s, 0, cx, cy, 3.25 + 0.08, NULL);
  CU_ASSERT_EQUAL_FATAL(contacts(s, &pr, k), 1);
  double down[3] = {0, 0, -1}, p[3] = {cx, cy, 3.24};
  COL_NEAR(k[0].depth, 0.02, 1e-12);
  COL_NEAR3(k[0].n, down, 1e-12);  // from the sphere (side 0) into the box
  COL_NEAR3(k[0].p, p, 1e-12);
  // over the edge x = +0.5, z = +0.25 (box frame), 45 degrees out, 0.01 deep
  double e = 0.09 / sqrt(2.0);
  double l[3] = {0.5 + e, 0.3, 0.25 + e};
  double w[3] = {1 + R[0] * l[0] + R[1] * l[1], 2 + R[3] * l[0] + R[4] * l[1], 3 + l[2]};
  colPlace(s, 0, w[0], w[1], w[2], NULL);
  CU_ASSERT_EQUAL_FATAL(contacts(s, &pr, k), 1);
  double nl[3] = {-1 / sqrt(2.0), 0, -1 / sqrt(2.0)};
  double nw[3] = {R[0] * nl[0], R[3] * nl[0], nl[2]};
  COL_NEAR(k[0].depth, 0.01, 1e-12);
  COL_NEAR3(k[0].n, nw, 1e-12);
  // centre inside, 0.05 below the top face: depth r + 0.05, normal down into the box
  colPlace(s, 0, 1, 2, 3.2, NULL);
  CU_ASSERT_EQUAL_FATAL(contacts(s, &pr, k), 1);
  COL_NEAR(k[0].depth, 0.15, 1e-12);
  COL_NEAR3(k[0].n, down, 1e-12);
  hsc_freeScene(s);
  hsc_freeModel(box);
  hsc_freeModel(sph);
}

// a small box resting 1 cm deep on a big one: the four corners of its bottom face, midway
// between the surfaces; turned about z the corners turn with it; tilted 5 degrees about x only
// the lower edge's two corners remain, each with its own depth
static void testBoxOnBox(void) {
  hscModel *big = colPrim(hsGEOM_BOX, 2, 2, 1), *small = colPrim(hsGEOM_BOX, 0.2, 0.4, 0.1);
  hscPair pr;
  hscScene *s = colScene2(small, big, &pr);
  colPlace(s, 1, 0, 0, -0.5, NULL);
  hscContact k[64];
  for (int turn = 0; turn < 2; turn++) {
    double R[9], a = turn ? 0.5 : 0;
    colRot(R, 0, 0, 1, a);
    colPlace(s, 0, 0.3, -0.2, 0.04, R);
    CU_ASSERT_EQUAL_FATAL(contacts(s, &pr, k), 4);
    for (int i = 0; i < 4; i++) {
      double lx = (i & 1) ? 0.1 : -0.1, ly = (i & 2) ? 0.2 : -0.2;
      double p[3] = {0.3 + cos(a) * lx - sin(a) * ly, -0.2 + sin(a) * lx + cos(a) * ly, -0.005};
      int j = colNearest(k, 4, p);
      double down[3] = {0, 0, -1};
      COL_NEAR3(k[j].p, p, 1e-12);
      COL_NEAR3(k[j].n, down, 1e-12);
      COL_NEAR(k[j].depth, 0.01, 1e-12);
    }
  }
  // tilted: the edge y = -0.2 (box frame) goes down; its corners at depth
  double R[9], th = 5 * HS_PI / 180;
  colRot(R, 1, 0, 0, th);
  double zc = 0.06;
  colPlace(s, 0, 0, 0, zc, R);
  int n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  for (int i = 0; i < 2; i++) {
    // corner (x, -0.2, -0.05) in the box frame
    double x = i ? 0.1 : -0.1;
    double z = zc + sin(th) * -0.2 + cos(th) * -0.05;
    double y = cos(th) * -0.2 - sin(th) * -0.05;
    double p[3] = {x, y, z / 2};
    int j = colNearest(k, n, p);
    COL_NEAR(k[j].depth, -z, 1e-12);
    COL_NEAR3(k[j].p, p, 1e-12);
  }
  hsc_freeScene(s);
  hsc_freeModel(big);
  hsc_freeModel(small);
}

// a face tilted by 0.2 degrees about x, its low edge 0.5 mm deep: hsc_contacts keeps that
// edge's two corners; with a 2 mm margin hsc_contactsMargin keeps all four, the high edge's at
// minus their gap (0.4 sin(0.2 deg) - 0.5 mm = 0.896 mm), each midway between the surfaces;
// margin 0 gives hsc_contacts' bits; a gap wider than the margin is left out
static void testTiltedFaceMargin(void) {
  hscModel *big = colPrim(hsGEOM_BOX, 2, 2, 1), *small = colPrim(hsGEOM_BOX, 0.2, 0.4, 0.1);
  hscPair pr;
  hscScene *s = colScene2(small, big, &pr);
  colPlace(s, 1, 0, 0, -0.5, NULL);
  double R[9], th = 0.2 * HS_PI / 180;
  colRot(R, 1, 0, 0, th);
  // the low corners (y = -0.2 in the box frame) 0.5 mm below the big box's top z = 0
  double zc = -0.0005 - (sin(th) * -0.2 + cos(th) * -0.05);
  colPlace(s, 0, 0, 0, zc, R);
  hscContact k[64], k0[64];
  CU_ASSERT_EQUAL(contacts(s, &pr, k), 2);
  CU_ASSERT_EQUAL(hsc_contactsMargin(s, &pr, 1, 0, k0, 64, NULL), 2);
  for (int i = 0; i < 2; i++) {  // (field by field: the struct has padding)
    CU_ASSERT(memcmp(k[i].p, k0[i].p, sizeof k[i].p) == 0 &&
              memcmp(k[i].n, k0[i].n, sizeof k[i].n) == 0 && k[i].depth == k0[i].depth);
  }
  int n = hsc_contactsMargin(s, &pr, 1, 2e-3, k, 64, NULL);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  for (int i = 0; i < 4; i++) {
    double x = (i & 1) ? 0.1 : -0.1, ly = (i & 2) ? 0.2 : -0.2;
    double z = zc + sin(th) * ly + cos(th) * -0.05;
    double y = cos(th) * ly - sin(th) * -0.05;
    double p[3] = {x, y, z / 2};
    int j = colNearest(k, n, p);
    COL_NEAR(k[j].depth, -z, 1e-12);
    COL_NEAR3(k[j].p, p, 1e-12);
  }
  COL_NEAR(k[colNearest(k, n, (double[3]){0.1, 0.2, 0})].depth, 0.0005 - 0.4 * sin(th), 1e-12);
  CU_ASSERT_EQUAL(hsc_contactsMargin(s, &pr, 1, 5e-4, k, 64, NULL), 2);  // 0.896 mm > 0.5 mm
  hsc_freeScene(s);
  hsc_freeModel(big);
  hsc_freeModel(small);
}

// capsules: parallel ones touch along a line (two points at the ends of the overlap); crossed
// ones at one point
static void testCapsules(void) {
  double Ry[9];
  colRot(Ry, 0, 1, 0, HS_PI / 2);  // capsule axis z -> x
  hscModel *c1 = colPrim(hsGEOM_CAPSULE, 0.1, 1.0, 0), *c2 = colPrim(hsGEOM_CAPSULE, 0.05, 0.6, 0);
  hscPair pr;
  hscScene *s = colScene2(c1, c2, &pr);
  colPlace(s, 0, 0, 0, 0, Ry);
  colPlace(s, 1, 0.4, 0, 0.14, Ry);  // core segments x in [-0.5, 0.5] and [0.1, 0.7]
  hscContact k[64];
  int n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  double up[3] = {0, 0, 1};
  for (int i = 0; i < n; i++) {
    COL_NEAR(k[i].depth, 0.01, 1e-12);
    COL_NEAR3(k[i].n, up, 1e-12);
    COL_NEAR(k[i].p[2], 0.1 - 0.005, 1e-12);
  }
  double lo = fmin(k[0].p[0], k[1].p[0]), hi = fmax(k[0].p[0], k[1].p[0]);
  COL_NEAR(lo, 0.1, 1e-12);
  COL_NEAR(hi, 0.5, 1e-12);
  // crossed: one point above the origin
  double Rz[9], R2[9];
  colRot(Rz, 0, 0, 1, HS_PI / 2);
  hsu_mulMat(R2, Rz, Ry);
  colPlace(s, 1, 0, 0, 0.14, R2);
  n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  double p[3] = {0, 0, 0.095};
  COL_NEAR3(k[0].p, p, 1e-12);
  COL_NEAR(k[0].depth, 0.01, 1e-12);
  // a sphere on the first capsule's end cap, 45 degrees out
  hscModel *sph = colPrim(hsGEOM_SPHERE, 0.1, 0, 0);
  CU_ASSERT_EQUAL(hsc_replaceBody(s, 1, sph, NULL), 0);
  double e = 0.19 / sqrt(2.0);
  colPlace(s, 1, 0.5 + e, 0, e, NULL);
  n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  double nn[3] = {1 / sqrt(2.0), 0, 1 / sqrt(2.0)};
  COL_NEAR3(k[0].n, nn, 1e-12);
  COL_NEAR(k[0].depth, 0.01, 1e-12);
  hsc_freeScene(s);
  hsc_freeModel(c1);
  hsc_freeModel(c2);
  hsc_freeModel(sph);
}

// a capsule lying on a box: two points under the ends of its core segment
static void testCapsuleOnBox(void) {
  double Ry[9];
  colRot(Ry, 0, 1, 0, HS_PI / 2);
  hscModel *cap = colPrim(hsGEOM_CAPSULE, 0.05, 0.4, 0), *box = colPrim(hsGEOM_BOX, 2, 2, 1);
  hscPair pr;
  hscScene *s = colScene2(box, cap, &pr);
  colPlace(s, 0, 0, 0, -0.5, NULL);
  colPlace(s, 1, 0.1, 0.2, 0.048, Ry);
  hscContact k[64];
  int n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  double up[3] = {0, 0, 1};
  for (int i = 0; i < n; i++) {
    COL_NEAR(k[i].depth, 0.002, 1e-12);
    COL_NEAR3(k[i].n, up, 1e-12);  // from the box (side 0) into the capsule
    COL_NEAR(k[i].p[2], -0.001, 1e-12);
    COL_NEAR(k[i].p[1], 0.2, 1e-12);
  }
  COL_NEAR(fmin(k[0].p[0], k[1].p[0]), -0.1, 1e-12);
  COL_NEAR(fmax(k[0].p[0], k[1].p[0]), 0.3, 1e-12);
  hsc_freeScene(s);
  hsc_freeModel(cap);
  hsc_freeModel(box);
}

// a cylinder (radius 0.07, axis along y) whose side just reaches a box's edge (the top edge of a
// 0.05 m step at x = 1): the normal is the line from the axis to the edge, tilted 16.6 degrees
// below the horizontal (MPR alone gave 3 degrees), the depth the small overlap; three
// overlaps
static void testCylinderOnEdge(void) {
  hscModel *cyl = colPrim(hsGEOM_CYLINDER, 0.07, 0.08, 0), *box = colPrim(hsGEOM_BOX, 2, 3, 0.05);
  hscPair pr;
  hscScene *s = colScene2(cyl, box, &pr);
  colPlace(s, 1, 2.0, 0, 0.025, NULL);
  double R[9];
  colRot(R, 1, 0, 0, HS_PI / 2);  // the cylinder's z axis onto -y
  for (int k = 0; k < 3; k++) {
    double over = k == 0 ? 1e-5 : k == 1 ? 1e-4 : 5e-4;
    double dz = 0.02, dx = sqrt((0.07 - over) * (0.07 - over) - dz * dz);
    colPlace(s, 0, 1.0 - dx, 0, 0.05 + dz, R);
    hscContact c[16];
    int n = hsc_contacts(s, &pr, 1, c, 16, NULL);
    CU_ASSERT_FATAL(n >= 1);
    double want[3] = {dx / (0.07 - over), 0, -dz / (0.07 - over)};
    for (int i = 0; i < n; i++) {
      // the refinement measures at the shapes moved apart by about twice the overlap: the
      // normal comes within a few overlaps / radius (MPR alone: 0.23 rad off)
      COL_NEAR3(c[i].n, want, 1e-3 + 10 * over / 0.07);
      COL_NEAR(c[i].depth, over, 0.05 * over + 1e-9);
    }
  }
  hsc_freeScene(s);
  hsc_freeModel(cyl);
  hsc_freeModel(box);
}

// a cylinder standing on its cap on a box: four points on the rim (the reduction of the
// octagon), at the rim radius; lying on its side: two points at the ends of its lowest line
static void testCylinderOnBox(void) {
  hscModel *cyl = colPrim(hsGEOM_CYLINDER, 0.1, 0.3, 0), *box = colPrim(hsGEOM_BOX, 2, 2, 1);
  hscPair pr;
  hscScene *s = colScene2(cyl, box, &pr);
  colPlace(s, 1, 0, 0, -0.5, NULL);
  colPlace(s, 0, 0.2, 0.1, 0.15 - 0.003, NULL);
  hscContact k[64];
  int n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  double down[3] = {0, 0, -1};
  for (int i = 0; i < n; i++) {
    COL_NEAR(k[i].depth, 0.003, 1e-9);
    COL_NEAR3(k[i].n, down, 1e-9);
    COL_NEAR(hypot(k[i].p[0] - 0.2, k[i].p[1] - 0.1), 0.1, 1e-9);
    COL_NEAR(k[i].p[2], -0.0015, 1e-9);
  }
  // lying along x
  double Ry[9];
  colRot(Ry, 0, 1, 0, HS_PI / 2);
  colPlace(s, 0, 0.2, 0.1, 0.1 - 0.004, Ry);
  n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  for (int i = 0; i < n; i++) {
    COL_NEAR(k[i].depth, 0.004, 1e-9);
    COL_NEAR3(k[i].n, down, 1e-9);
    COL_NEAR(k[i].p[1], 0.1, 1e-9);
  }
  COL_NEAR(fmin(k[0].p[0], k[1].p[0]), 0.05, 1e-9);
  COL_NEAR(fmax(k[0].p[0], k[1].p[0]), 0.35, 1e-9);
  hsc_freeScene(s);
  hsc_freeModel(cyl);
  hsc_freeModel(box);
}

// a cone on its base: four rim points; upside down on its apex: one point at the apex
static void testConeOnBox(void) {
  hscModel *cone = colPrim(hsGEOM_CONE, 0.1, 0.4, 0), *box = colPrim(hsGEOM_BOX, 2, 2, 1);
  hscPair pr;
  hscScene *s = colScene2(box, cone, &pr);
  colPlace(s, 0, 0, 0, -0.5, NULL);
  colPlace(s, 1, 0, 0, 0.2 - 0.001, NULL);
  hscContact k[64];
  int n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  double up[3] = {0, 0, 1};
  for (int i = 0; i < n; i++) {
    COL_NEAR(k[i].depth, 0.001, 1e-9);
    COL_NEAR3(k[i].n, up, 1e-9);
    COL_NEAR(hypot(k[i].p[0], k[i].p[1]), 0.1, 1e-9);
  }
  double Rx[9];
  colRot(Rx, 1, 0, 0, HS_PI);
  colPlace(s, 1, 0.3, 0, 0.2 - 0.002, Rx);
  n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  double p[3] = {0.3, 0, -0.001};
  COL_NEAR3(k[0].p, p, 1e-9);
  COL_NEAR(k[0].depth, 0.002, 1e-9);
  COL_NEAR3(k[0].n, up, 1e-9);
  hsc_freeScene(s);
  hsc_freeModel(cone);
  hsc_freeModel(box);
}

// a sphere against a cylinder's side and a cone's side (GJK, curved): depth and normal
static void testSphereCurved(void) {
  hscModel *cyl = colPrim(hsGEOM_CYLINDER, 0.2, 1.0, 0), *sph = colPrim(hsGEOM_SPHERE, 0.1, 0, 0);
  hscPair pr;
  hscScene *s = colScene2(cyl, sph, &pr);
  double a = 0.7;
  colPlace(s, 1, 0.295 * cos(a), 0.295 * sin(a), 0.1, NULL);
  hscContact k[64];
  CU_ASSERT_EQUAL_FATAL(contacts(s, &pr, k), 1);
  double n[3] = {cos(a), sin(a), 0};
  COL_NEAR(k[0].depth, 0.005, 1e-9);
  COL_NEAR3(k[0].n, n, 1e-9);
  // cone of radius 0.2, height 0.4 (apex z = 0.2): the side's normal is (2h u + r z) / L
  hscModel *cone = colPrim(hsGEOM_CONE, 0.2, 0.4, 0);
  CU_ASSERT_EQUAL(hsc_replaceBody(s, 0, cone, NULL), 0);
  double L = sqrt(0.4 * 0.4 + 0.2 * 0.2), sn[3] = {0.4 / L, 0, 0.2 / L};
  // a side point at height 0 (radius 0.1), then 0.1 - 0.004 out along the normal
  double q[3] = {0.1, 0, 0};
  colPlace(s, 1, q[0] + sn[0] * 0.096, 0, q[2] + sn[2] * 0.096, NULL);
  CU_ASSERT_EQUAL_FATAL(contacts(s, &pr, k), 1);
  COL_NEAR(k[0].depth, 0.004, 1e-9);
  COL_NEAR3(k[0].n, sn, 1e-9);
  hsc_freeScene(s);
  hsc_freeModel(cyl);
  hsc_freeModel(sph);
  hsc_freeModel(cone);
}

// swapping the two sides of a pair flips the normals and changes nothing else
static void testSwapFlipsNormal(void) {
  hscModel *big = colPrim(hsGEOM_BOX, 2, 2, 1), *cyl = colPrim(hsGEOM_CYLINDER, 0.1, 0.3, 0);
  hscPair pr;
  hscScene *s = colScene2(big, cyl, &pr);
  double R[9];
  colRot(R, 0.3, 0.4, 0.2, 0.05);
  colPlace(s, 1, 0.1, 0.2, 0.145, R);
  colPlace(s, 0, 0, 0, -0.5, NULL);
  hscPair sw = pr;
  sw.body[0] = 1;
  sw.body[1] = 0;
  hscContact k1[64], k2[64];
  int n1 = contacts(s, &pr, k1), n2 = contacts(s, &sw, k2);
  CU_ASSERT(n1 > 0);
  CU_ASSERT_EQUAL_FATAL(n1, n2);
  for (int i = 0; i < n1; i++) {
    int j = colNearest(k2, n2, k1[i].p);
    double mn[3] = {-k2[j].n[0], -k2[j].n[1], -k2[j].n[2]};
    COL_NEAR3(k1[i].p, k2[j].p, 1e-9);
    COL_NEAR3(k1[i].n, mn, 1e-9);
    COL_NEAR(k1[i].depth, k2[j].depth, 1e-9);
  }
  hsc_freeScene(s);
  hsc_freeModel(big);
  hsc_freeModel(cyl);
}

// the cull distance drops points near kept ones; maxContactsPerPair caps a pair
static void testCullAndCap(void) {
  hscModel *big = colPrim(hsGEOM_BOX, 2, 2, 1), *small = colPrim(hsGEOM_BOX, 0.2, 0.4, 0.1);
  hscPair pr;
  hscScene *s = colScene2(small, big, &pr);
  colPlace(s, 1, 0, 0, -0.5, NULL);
  colPlace(s, 0, 0, 0, 0.049, NULL);
  hscContact k[64];
  CU_ASSERT_EQUAL(contacts(s, &pr, k), 4);
  pr.cull = 0.25;  // corners are 0.2 and 0.4 apart: only the diagonal ones survive
  CU_ASSERT_EQUAL(contacts(s, &pr, k), 2);
  pr.cull = 0.5;
  CU_ASSERT_EQUAL(contacts(s, &pr, k), 1);
  pr.cull = 0;
  hsc_freeScene(s);
  hscOptions o;
  hsc_defaultOptions(&o);
  o.maxContactsPerPair = 2;
  s = hsc_makeScene(&o, NULL);
  hsc_addBody(s, small, NULL);
  hsc_addBody(s, big, NULL);
  colPlace(s, 1, 0, 0, -0.5, NULL);
  colPlace(s, 0, 0, 0, 0.049, NULL);
  int n = contacts(s, &pr, k);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  // the second kept point is the farthest from the first: diagonal corners
  COL_NEAR(hypot(k[0].p[0] - k[1].p[0], k[0].p[1] - k[1].p[1]), sqrt(0.2 * 0.2 + 0.4 * 0.4),
           1e-12);
  // a full output buffer is a counted warning
  hst_expectLog(1);
  CU_ASSERT_EQUAL(hsc_contacts(s, &pr, 1, k, 1, NULL), 1);
  CU_ASSERT_EQUAL(hsc_warningCount(s, hscWARN_CONTACTS), 1);
  hsc_freeScene(s);
  hsc_freeModel(big);
  hsc_freeModel(small);
}

void register_contacts(void) {
  CU_pSuite s = hst_addSuite("collision contacts");
  CU_add_test(s, "sphere-sphere", testSphereSphere);
  CU_add_test(s, "sphere-box: face, edge, inside", testSphereBox);
  CU_add_test(s, "box on box: corners, turned, tilted", testBoxOnBox);
  CU_add_test(s, "a tilted face with a margin: all four corners", testTiltedFaceMargin);
  CU_add_test(s, "capsules: parallel, crossed, sphere on the cap", testCapsules);
  CU_add_test(s, "capsule lying on a box", testCapsuleOnBox);
  CU_add_test(s, "cylinder on a box: cap and side", testCylinderOnBox);
  CU_add_test(s, "cylinder side on a box's edge: the normal through the axis", testCylinderOnEdge);
  CU_add_test(s, "cone on a box: base and apex", testConeOnBox);
  CU_add_test(s, "sphere on curved sides", testSphereCurved);
  CU_add_test(s, "swapping the sides flips the normal", testSwapFlipsNormal);
  CU_add_test(s, "cull distance and points per pair", testCullAndCap);
}
