// test_distance.c - minimum distances and closest points of separated primitives against
// closed forms, to 1e-9 relative (the bound; the closed forms and GJK on polytopes
// give ~1e-15, GJK on curved shapes stops at a relative 1e-13 of the squared distance), and
// minus the penetration depth for overlapping ones.

#include "col_helpers.h"

static hscDistance dist(hscScene *s, const hscPair *p) {
  hscDistance d;
  hsc_distances(s, p, 1, &d);
  return d;
}

// relative closeness with a floor of 1e-12 m for values near zero
#define REL(a, b) COL_NEAR((a), (b), 1e-9 * fabs(b) + 1e-12)

static void testSpheres(void) {
  hscModel *a = colPrim(hsGEOM_SPHERE, 0.3, 0, 0), *b = colPrim(hsGEOM_SPHERE, 0.2, 0, 0);
  hscPair pr;
  hscScene *s = colScene2(a, b, &pr);
  double c[3] = {1.0, -0.5, 0.25}, L = sqrt(1 + 0.25 + 0.0625);
  colPlace(s, 1, c[0], c[1], c[2], NULL);
  hscDistance d = dist(s, &pr);
  REL(d.d, L - 0.5);
  double p0[3], p1[3];
  for (int j = 0; j < 3; j++) {
    p0[j] = c[j] / L * 0.3;
    p1[j] = c[j] - c[j] / L * 0.2;
  }
  COL_NEAR3(d.p0, p0, 1e-12);
  COL_NEAR3(d.p1, p1, 1e-12);
  // overlapping by 0.1: minus the depth
  colPlace(s, 1, 0.4, 0, 0, NULL);
  d = dist(s, &pr);
  REL(d.d, -0.1);
  hsc_freeScene(s);
  hsc_freeModel(a);
  hsc_freeModel(b);
}

// a sphere beside a rotated box: nearest a face, an edge, a corner
static void testSphereBox(void) {
  hscModel *box = colPrim(hsGEOM_BOX, 1, 2, 3), *sph = colPrim(hsGEOM_SPHERE, 0.25, 0, 0);
  hscPair pr;
  hscScene *s = colScene2(box, sph, &pr);
  double R[9];
  colRot(R, 0.6, 0, 0.8, 0.7);
  colPlace(s, 0, 0.5, 0.5, 0.5, R);
  const double local[3][3] = {{0.2, 0.3, 2.5}, {1.1, 1.6, 0.2}, {-0.9, 1.4, -2.0}};
  for (int i = 0; i < 3; i++) {
    const double *l = local[i];
    double q[3] = {fmax(-0.5, fmin(0.5, l[0])), fmax(-1, fmin(1, l[1])),
                   fmax(-1.5, fmin(1.5, l[2]))};
    double e[3] = {l[0] - q[0], l[1] - q[1], l[2] - q[2]}, w[3], wq[3];
    for (int j = 0; j < 3; j++) {
      w[j] = 0.5 + R[3 * j] * l[0] + R[3 * j + 1] * l[1] + R[3 * j + 2] * l[2];
      wq[j] = 0.5 + R[3 * j] * q[0] + R[3 * j + 1] * q[1] + R[3 * j + 2] * q[2];
    }
    colPlace(s, 1, w[0], w[1], w[2], NULL);
    hscDistance d = dist(s, &pr);
    double L = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    REL(d.d, L - 0.25);
    COL_NEAR3(d.p0, wq, 1e-12);
  }
  hsc_freeScene(s);
  hsc_freeModel(box);
  hsc_freeModel(sph);
}

// boxes: face to face; a cube turned 45 degrees about y hangs an edge over a face; overlapping
// boxes give minus the separating-axis depth
static void testBoxes(void) {
  hscModel *a = colPrim(hsGEOM_BOX, 2, 2, 1), *b = colPrim(hsGEOM_BOX, 0.3, 0.3, 0.3);
  hscPair pr;
  hscScene *s = colScene2(a, b, &pr);
  colPlace(s, 1, 0.2, 0.1, 0.5 + 0.15 + 0.07, NULL);
  hscDistance d = dist(s, &pr);
  REL(d.d, 0.07);
  COL_NEAR(d.p0[2], 0.5, 1e-12);
  COL_NEAR(d.p1[2], 0.57, 1e-12);
  COL_NEAR(d.p0[0], d.p1[0], 1e-12);
  COL_NEAR(d.p0[1], d.p1[1], 1e-12);
  double R[9];
  colRot(R, 0, 1, 0, HS_PI / 4);
  double zc = 0.9;
  colPlace(s, 1, 0.1, -0.3, zc, R);
  d = dist(s, &pr);
  double lowest = zc - 0.15 * sqrt(2.0);
  REL(d.d, lowest - 0.5);
  COL_NEAR(d.p1[2], lowest, 1e-12);
  COL_NEAR(d.p1[0], 0.1, 1e-12);  // on the edge, which runs along y
  COL_NEAR(d.p0[2], 0.5, 1e-12);
  colPlace(s, 1, 0, 0, 0.5 + 0.15 - 0.02, NULL);
  d = dist(s, &pr);
  REL(d.d, -0.02);
  hsc_freeScene(s);
  hsc_freeModel(a);
  hsc_freeModel(b);
}

// capsules on skew lines: the common perpendicular minus the radii
static void testCapsules(void) {
  double Ry[9], Rx[9];
  colRot(Ry, 0, 1, 0, HS_PI / 2);  // axis along x
  colRot(Rx, 1, 0, 0, HS_PI / 2);  // axis along -y
  hscModel *a = colPrim(hsGEOM_CAPSULE, 0.1, 2, 0), *b = colPrim(hsGEOM_CAPSULE, 0.05, 2, 0);
  hscPair pr;
  hscScene *s = colScene2(a, b, &pr);
  colPlace(s, 0, 0, 0, 0, Ry);
  colPlace(s, 1, 0.3, 0.2, 0.8, Rx);
  hscDistance d = dist(s, &pr);
  REL(d.d, 0.8 - 0.15);
  double p0[3] = {0.3, 0, 0.1}, p1[3] = {0.3, 0, 0.75};
  COL_NEAR3(d.p0, p0, 1e-12);
  COL_NEAR3(d.p1, p1, 1e-12);
  // beyond the end of a's core: end to the other line
  colPlace(s, 1, 1.6, 0.2, 0.3, Rx);
  d = dist(s, &pr);
  REL(d.d, hypot(0.6, 0.3) - 0.15);
  hsc_freeScene(s);
  hsc_freeModel(a);
  hsc_freeModel(b);
}

// curved shapes by GJK: a sphere over a cylinder's cap, beside its side, over a cone's apex and
// off its side; a cylinder lying over a box
static void testCurved(void) {
  hscModel *cyl = colPrim(hsGEOM_CYLINDER, 0.2, 0.6, 0), *sph = colPrim(hsGEOM_SPHERE, 0.1, 0, 0);
  hscModel *cone = colPrim(hsGEOM_CONE, 0.2, 0.4, 0), *box = colPrim(hsGEOM_BOX, 1, 1, 1);
  hscPair pr;
  hscScene *s = colScene2(cyl, sph, &pr);
  colPlace(s, 1, 0.05, 0.02, 0.3 + 0.1 + 0.123, NULL);
  REL(dist(s, &pr).d, 0.123);
  colPlace(s, 1, 0.5 * cos(1.1), 0.5 * sin(1.1), -0.1, NULL);
  REL(dist(s, &pr).d, 0.5 - 0.2 - 0.1);
  CU_ASSERT_EQUAL(hsc_replaceBody(s, 0, cone, NULL), 0);
  colPlace(s, 1, 0, 0, 0.2 + 0.1 + 0.05, NULL);
  hscDistance d = dist(s, &pr);
  REL(d.d, 0.05);
  double apex[3] = {0, 0, 0.2};
  COL_NEAR3(d.p0, apex, 1e-9);
  // off the side: from the side point at height 0 (radius 0.1) along the side normal
  double L = sqrt(0.4 * 0.4 + 0.2 * 0.2), sn[3] = {0.4 / L, 0, 0.2 / L};
  colPlace(s, 1, 0.1 + sn[0] * 0.35, 0, sn[2] * 0.35, NULL);
  d = dist(s, &pr);
  REL(d.d, 0.25);
  double q[3] = {0.1, 0, 0};
  COL_NEAR3(d.p0, q, 1e-9);
  CU_ASSERT_EQUAL(hsc_replaceBody(s, 0, box, NULL), 0);
  CU_ASSERT_EQUAL(hsc_replaceBody(s, 1, cyl, NULL), 0);
  double Ry[9];
  colRot(Ry, 0, 1, 0, HS_PI / 2);
  colPlace(s, 1, 0.1, 0.1, 0.5 + 0.2 + 0.031, Ry);
  REL(dist(s, &pr).d, 0.031);
  hsc_freeScene(s);
  hsc_freeModel(cyl);
  hsc_freeModel(sph);
  hsc_freeModel(cone);
  hsc_freeModel(box);
}

// a link without geometry: -1 and zero points
static void testNoGeometry(void) {
  hscGeomDesc g;
  memset(&g, 0, sizeof g);
  g.type = hsGEOM_SPHERE;
  g.link = 1;
  memcpy(g.T, kIdentity12, sizeof g.T);
  g.size[0] = 0.1;
  hscModel *m = hsc_makeModelFromGeoms(&g, 1, 2, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, m, NULL);
  hscPair p = {{0, 0}, {0, 1}, 0, 0};
  hscDistance d = dist(s, &p);
  CU_ASSERT_EQUAL(d.d, -1);
  double z[3] = {0, 0, 0};
  COL_NEAR3(d.p0, z, 0);
  hsc_freeScene(s);
  hsc_freeModel(m);
}

void register_distance(void) {
  CU_pSuite s = hst_addSuite("collision distances");
  CU_add_test(s, "spheres", testSpheres);
  CU_add_test(s, "sphere and box: face, edge, corner", testSphereBox);
  CU_add_test(s, "boxes: face, edge, overlap", testBoxes);
  CU_add_test(s, "capsules on skew lines", testCapsules);
  CU_add_test(s, "curved shapes by GJK", testCurved);
  CU_add_test(s, "a link without geometry", testNoGeometry);
}
