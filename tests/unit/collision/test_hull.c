// test_hull.c - closed convex meshes as convex polytopes (collision_hull.c).
//
// Which meshes qualify (closed, consistently oriented, convex; open, dented, inside-out and
// float-rounded ones do not), their faces and axes; a box written as a mesh answers as the Box
// primitive (distances to every primitive, box-box contact manifolds); random convex meshes
// (tetrahedra, an octagonal prism like the sample humanoid's foot) against the all-triangles
// reference (each triangle its own one-triangle mesh, walked by the triangle-level narrow
// phase): separated distances within 1e-9 relative, every reference intersection found; a
// non-convex mesh's BVH against a convex mesh equal to the brute force to the bit; and a
// one-sided open mesh keeps its side contacts on a floor.

#include <stdlib.h>

#include "col_helpers.h"
#include "collision_private.h"

// xorshift, fixed seed: the same poses everywhere
static unsigned long long g_rng = 0x9E3779B97F4A7C15ULL;
static double rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) / 9007199254740992.0;
}

static void randomPose(double p[3], double R[9], double spread) {
  double aa[4] = {rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, 2 * HS_PI * rnd()};
  hsu_axisAngleToMat(R, aa);
  for (int j = 0; j < 3; j++) {
    p[j] = spread * (rnd() - 0.5);
  }
}

// a box of edge lengths (sx, sy, sz) centred at the origin as 8 vertices and 12 triangles,
// counter-clockwise from outside
static const int kBoxTri[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
static void boxVerts(float v[24], float sx, float sy, float sz) {
  static const float c[24] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                              -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
  for (int i = 0; i < 8; i++) {
    v[3 * i] = c[3 * i] * sx / 2;
    v[3 * i + 1] = c[3 * i + 1] * sy / 2;
    v[3 * i + 2] = c[3 * i + 2] * sz / 2;
  }
}

// an octagonal prism (the sample foot's sole: 0.22 x 0.12 with 2 cm chamfers, 3 cm thick):
// top and bottom as triangle fans, eight quads around
static void octPrism(float v[48], int t[84]) {
  static const float xy[16] = {0.11f, -0.04f, 0.11f,  0.04f,  0.09f,  0.06f,  -0.09f, 0.06f,
                               -0.11f, 0.04f, -0.11f, -0.04f, -0.09f, -0.06f, 0.09f,  -0.06f};
  for (int i = 0; i < 8; i++) {
    v[3 * i] = v[3 * (i + 8)] = xy[2 * i];
    v[3 * i + 1] = v[3 * (i + 8) + 1] = xy[2 * i + 1];
    v[3 * i + 2] = 0.015f;
    v[3 * (i + 8) + 2] = -0.015f;
  }
  int k = 0;
  for (int i = 1; i < 7; i++) {  // top (counter-clockwise seen from +z), bottom reversed
    t[k++] = 0;
    t[k++] = i;
    t[k++] = i + 1;
    t[k++] = 8;
    t[k++] = 8 + i + 1;
    t[k++] = 8 + i;
  }
  for (int i = 0; i < 8; i++) {
    int j = (i + 1) % 8;
    t[k++] = i;
    t[k++] = 8 + i;
    t[k++] = 8 + j;
    t[k++] = i;
    t[k++] = 8 + j;
    t[k++] = j;
  }
}

// a random tetrahedron in a cube of side s, oriented outward
static void tetra(float v[12], int t[12], double s) {
  for (int i = 0; i < 12; i++) {
    v[i] = (float)(s * (rnd() - 0.5));
  }
  static const int f[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
  memcpy(t, f, sizeof f);
  double a[3], b[3], c[3], x[3];
  for (int j = 0; j < 3; j++) {
    a[j] = v[3 + j] - v[j];
    b[j] = v[6 + j] - v[j];
    c[j] = v[9 + j] - v[j];
  }
  v3cross(x, a, b);
  if (v3dot(x, c) < 0) {  // vertex 3 on the negative side of face (0, 1, 2): flip every face
    for (int i = 0; i < 4; i++) {
      int tmp = t[3 * i + 1];
      t[3 * i + 1] = t[3 * i + 2];
      t[3 * i + 2] = tmp;
    }
  }
}

// the hull of a one-geom model (NULL if its mesh did not qualify)
static const hscHull *hullOf(const hscModel *m) {
  return m->geoms[0].hull;
}

// the mesh as one geom per triangle, each triangle its own (open) mesh: the reference
static hscModel *perTriangle(const float *v, const int *t, int nt) {
  hscGeomDesc *g = calloc((size_t)nt, sizeof *g);
  static const int tri[3] = {0, 1, 2};
  float *w = malloc(sizeof(float) * 9 * (size_t)nt);
  for (int i = 0; i < nt; i++) {
    for (int k = 0; k < 3; k++) {
      memcpy(w + 9 * i + 3 * k, v + 3 * t[3 * i + k], 3 * sizeof(float));
    }
    g[i].type = hsGEOM_MESH;
    memcpy(g[i].T, kIdentity12, sizeof g[i].T);
    g[i].vertices = w + 9 * i;
    g[i].nvertex = 3;
    g[i].triangles = tri;
    g[i].ntriangle = 1;
  }
  hscModel *model = hsc_makeModelFromGeoms(g, nt, 1, NULL, NULL);
  free(w);
  free(g);
  CU_ASSERT_PTR_NOT_NULL_FATAL(model);
  return model;
}

//---------------------------------- detection -------------------------------------------------

static void testDetection(void) {
  float v[24];
  boxVerts(v, 0.3f, 0.2f, 0.1f);
  hscModel *m = colMesh(v, 8, kBoxTri, 12, 4);
  const hscHull *h = hullOf(m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  // six quads, twelve edges, three face and three edge directions
  CU_ASSERT_EQUAL(h->nv, 8);
  CU_ASSERT_EQUAL(h->nf, 6);
  CU_ASSERT_EQUAL(h->ne, 12);
  CU_ASSERT_EQUAL(h->nfax, 3);
  CU_ASSERT_EQUAL(h->neax, 3);
  for (int f = 0; f < h->nf; f++) {
    CU_ASSERT_EQUAL(h->fadr[f + 1] - h->fadr[f], 4);
    // counter-clockwise around the outward normal, every corner on the plane
    const int *fv = h->fv + h->fadr[f];
    double e1[3], e2[3], x[3];
    v3sub(e1, h->v + 3 * fv[1], h->v + 3 * fv[0]);
    v3sub(e2, h->v + 3 * fv[2], h->v + 3 * fv[0]);
    v3cross(x, e1, e2);
    CU_ASSERT(v3dot(x, h->fn + 4 * f) > 0);
    for (int i = 0; i < 4; i++) {
      COL_NEAR(v3dot(h->v + 3 * fv[i], h->fn + 4 * f), h->fn[4 * f + 3], 1e-15);
    }
  }
  hsc_freeModel(m);

  // the octagonal prism: 16 corners, 10 faces (an octagon each end), 24 edges
  float pv[48];
  int pt[84];
  octPrism(pv, pt);
  m = colMesh(pv, 16, pt, 28, 4);
  h = hullOf(m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  CU_ASSERT_EQUAL(h->nf, 10);
  CU_ASSERT_EQUAL(h->ne, 24);
  int octagons = 0;
  for (int f = 0; f < h->nf; f++) {
    octagons += h->fadr[f + 1] - h->fadr[f] == 8;
  }
  CU_ASSERT_EQUAL(octagons, 2);
  hsc_freeModel(m);

  // open (the top's two triangles left out): no hull
  m = colMesh(v, 8, kBoxTri, 10, 4);
  CU_ASSERT_PTR_NULL(hullOf(m));
  hsc_freeModel(m);
  // inside out: no hull
  int flipped[36];
  for (int i = 0; i < 12; i++) {
    flipped[3 * i] = kBoxTri[3 * i];
    flipped[3 * i + 1] = kBoxTri[3 * i + 2];
    flipped[3 * i + 2] = kBoxTri[3 * i + 1];
  }
  m = colMesh(v, 8, flipped, 12, 4);
  CU_ASSERT_PTR_NULL(hullOf(m));
  hsc_freeModel(m);
  // a corner pushed in along the diagonal: still closed, no longer convex
  float dent[24];
  memcpy(dent, v, sizeof dent);
  for (int j = 0; j < 3; j++) {
    dent[18 + j] *= 0.5f;
  }
  m = colMesh(dent, 8, kBoxTri, 12, 4);
  CU_ASSERT_PTR_NULL(hullOf(m));
  hsc_freeModel(m);
  // a corner pushed in by one float step: its three faces fold inward by ~1e-8 m, so the
  // mesh is not exactly convex and keeps the triangle path
  float bump[24];
  memcpy(bump, v, sizeof bump);
  bump[18] = nextafterf(bump[18], 0.0f);
  m = colMesh(bump, 8, kBoxTri, 12, 4);
  CU_ASSERT_PTR_NULL(hullOf(m));
  hsc_freeModel(m);
  // a vertex per triangle corner (as some exporters write boxes): welded into one polytope
  float sep36[108];
  int st[36];
  for (int i = 0; i < 36; i++) {
    memcpy(sep36 + 3 * i, v + 3 * kBoxTri[i], 3 * sizeof(float));
    st[i] = i;
  }
  m = colMesh(sep36, 36, st, 12, 4);
  CU_ASSERT_PTR_NOT_NULL(hullOf(m));
  if (hullOf(m)) {
    CU_ASSERT_EQUAL(hullOf(m)->nv, 8);
  }
  hsc_freeModel(m);
  // the same with the box from 0 to 1 and every other copy of a 0 written -0 (as some
  // exporters print it): -0 and 0 are one coordinate, so still one polytope of 8 corners
  float signed0[108];
  for (int i = 0; i < 36; i++) {
    for (int j = 0; j < 3; j++) {
      float x = v[3 * kBoxTri[i] + j] > 0 ? 1.0f : 0.0f;
      signed0[3 * i + j] = x == 0 && i % 2 ? -0.0f : x;
    }
  }
  m = colMesh(signed0, 36, st, 12, 4);
  CU_ASSERT_PTR_NOT_NULL(hullOf(m));
  if (hullOf(m)) {
    CU_ASSERT_EQUAL(hullOf(m)->nv, 8);
  }
  hsc_freeModel(m);
  // a flat sheet closed by facing triangles (front 0 1 2, 0 2 3; back 1 0 3, 1 3 2), turned
  // by rotations that leave its corners coplanar only to rounding: closed, oriented and
  // "convex" within tolerance, but no solid, whatever sign the rounding gives its volume
  static const float sheet[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  static const int sheetTri[12] = {0, 1, 2, 0, 2, 3, 1, 0, 3, 1, 3, 2};
  int solids = 0;
  for (int c = 0; c < 40; c++) {
    hscGeomDesc d;
    memset(&d, 0, sizeof d);
    d.type = hsGEOM_MESH;
    double R[9];
    colRot(R, sin(c * 1.7), cos(c * 0.9), 0.5 + sin(c * 2.3), 0.1 + 0.07 * c);
    for (int r = 0; r < 3; r++) {
      for (int k = 0; k < 3; k++) {
        d.T[4 * r + k] = R[3 * r + k];
      }
      d.T[4 * r + 3] = 0.3 * (r + 1);
    }
    d.vertices = sheet;
    d.nvertex = 4;
    d.triangles = sheetTri;
    d.ntriangle = 4;
    hscModelOptions o;
    hsc_defaultModelOptions(&o);
    hsError err = {0};
    m = hsc_makeModelFromGeoms(&d, 1, 1, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    solids += hullOf(m) != NULL;
    hsc_freeModel(m);
  }
  CU_ASSERT_EQUAL(solids, 0);
}

//---------------------------------- a box as a mesh and as a Box ------------------------------

// sorted contact sets a[0..n) and b[0..n) agree within tol
static int sameContacts(hscContact *a, hscContact *b, int n, double tol) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int j = colNearest(b, n, a[i].p);
    double dp = sqrt(v3dist2(a[i].p, b[j].p)), dn = sqrt(v3dist2(a[i].n, b[j].n));
    bad += !(dp <= tol && dn <= tol && fabs(a[i].depth - b[j].depth) <= tol);
  }
  return bad;
}

static void testBoxAsMesh(void) {
  float v[24];
  boxVerts(v, 0.3f, 0.2f, 0.1f);
  hscModel *mesh = colMesh(v, 8, kBoxTri, 12, 4);
  hscModel *box = colPrim(hsGEOM_BOX, 0.3f, 0.2f, 0.1f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(hullOf(mesh));
  hstGeom types[5] = {hsGEOM_SPHERE, hsGEOM_BOX, hsGEOM_CAPSULE, hsGEOM_CYLINDER, hsGEOM_CONE};
  int separated = 0, overlapping = 0, bad = 0, contactPoses = 0;
  for (int k = 0; k < 5; k++) {
    hscModel *o = colPrim(types[k], 0.12, 0.15, 0.1);
    hscScene *s = hsc_makeScene(NULL, NULL);
    hsc_addBody(s, mesh, NULL);
    hsc_addBody(s, box, NULL);
    hsc_addBody(s, o, NULL);
    hscPair pairs[2] = {{{0, 2}, {0, 0}, 0, 0}, {{1, 2}, {0, 0}, 0, 0}};
    for (int t = 0; t < 300; t++) {
      double p[2][3], R[2][9];
      randomPose(p[0], R[0], 0.6);
      randomPose(p[1], R[1], 0.6);
      hsc_setLinkPose(s, 0, 0, p[0], R[0], NULL);
      hsc_setLinkPose(s, 1, 0, p[0], R[0], NULL);
      hsc_setLinkPose(s, 2, 0, p[1], R[1], NULL);
      hscDistance d[2];
      hsc_distances(s, pairs, 2, d);
      if (d[1].d > 0) {
        // separated: the same distance and points, to rounding
        separated++;
        // (the closest points need not be unique: a cone's base parallel to a face)
        double tol = 1e-12 + 1e-9 * d[1].d;
        if (!(fabs(d[0].d - d[1].d) <= tol) ||
            fabs(sqrt(v3dist2(d[0].p0, d[0].p1)) - d[0].d) > 1e-12) {
          fprintf(stderr, "\n  type %d pose %d: mesh %.17g box %.17g\n", k, t, d[0].d, d[1].d);
          bad++;
        }
      } else {
        overlapping++;
        bad += !(d[0].d <= 1e-12);
      }
      unsigned char hit[2];
      hsc_intersections(s, pairs, 2, 1, hit);
      bad += hit[0] != hit[1];
      if (types[k] == hsGEOM_BOX) {
        // box-box: the same separating axes, the same face clipping
        hscContact c[2][16];
        int n0 = hsc_contacts(s, &pairs[0], 1, c[0], 16, NULL);
        int n1 = hsc_contacts(s, &pairs[1], 1, c[1], 16, NULL);
        contactPoses += n1 > 0;
        if (n0 != n1 || sameContacts(c[0], c[1], n0, 1e-9)) {
          fprintf(stderr, "\n  box pose %d: %d contacts as a mesh, %d as a Box\n", t, n0, n1);
          bad++;
        }
      }
    }
    hsc_freeScene(s);
    hsc_freeModel(o);
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(separated > 500);
  CU_ASSERT(overlapping > 100);
  CU_ASSERT(contactPoses > 20);
  hsc_freeModel(mesh);
  hsc_freeModel(box);
}

// a box resting on a floor box: the four bottom corners, straight down, the sunk depth,
// whether the resting box is a mesh or a Box
static void testRestingMeshBox(void) {
  float v[24];
  boxVerts(v, 0.2f, 0.2f, 0.2f);
  hscModel *mesh = colMesh(v, 8, kBoxTri, 12, 4), *floor = colPrim(hsGEOM_BOX, 10, 10, 0.1);
  hscPair pr;
  hscScene *s = colScene2(floor, mesh, &pr);
  colPlace(s, 0, 0, 0, -0.05, NULL);
  colPlace(s, 1, 0.3, 0.2, 0.1f - 0.003, NULL);
  hscContact k[16];
  int n = hsc_contacts(s, &pr, 1, k, 16, NULL);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  double up[3] = {0, 0, 1};
  for (int i = 0; i < n; i++) {
    COL_NEAR3(k[i].n, up, 1e-12);
    COL_NEAR(k[i].depth, 0.003, 1e-9);
    COL_NEAR(fabs(k[i].p[0] - 0.3), 0.1f, 1e-9);
    COL_NEAR(fabs(k[i].p[1] - 0.2), 0.1f, 1e-9);
    COL_NEAR(k[i].p[2], -0.0015, 1e-9);
  }
  hscDistance d;
  hsc_distances(s, &pr, 1, &d);
  COL_NEAR(d.d, -0.003, 1e-9);  // a convex mesh is a solid: minus the penetration
  hsc_freeScene(s);
  hsc_freeModel(mesh);
  hsc_freeModel(floor);
}

//---------------------------------- against the all-triangles reference -----------------------

// distances of convex a against b (primitive, convex or not) vs the per-triangle reference ra:
// within 1e-9 relative, plus abs [m] where b is curved (GJK reaches a cylinder's or cone's
// rim only in the limit: on a pose 5.8e-5 m apart the triangles' answer lies 6e-12 m above a
// 4e6-point sampling of the rim, the hull's 1e-12 m below it)
static int againstReference(const hscModel *a, const hscModel *ra, const hscModel *b,
                            double abs, double spread, int trials, int *separated,
                            int *touching) {
  hscScene *s = hsc_makeScene(NULL, NULL);
  hsc_addBody(s, a, NULL);
  hsc_addBody(s, b, NULL);
  hsc_addBody(s, ra, NULL);
  hscPair pairs[2] = {{{0, 1}, {0, 0}, 0, 0}, {{2, 1}, {0, 0}, 0, 0}};
  int bad = 0;
  for (int t = 0; t < trials; t++) {
    double p[2][3], R[2][9];
    randomPose(p[0], R[0], spread);
    randomPose(p[1], R[1], spread);
    hsc_setLinkPose(s, 0, 0, p[0], R[0], NULL);
    hsc_setLinkPose(s, 2, 0, p[0], R[0], NULL);
    hsc_setLinkPose(s, 1, 0, p[1], R[1], NULL);
    hscDistance d[2];
    hsc_distances(s, pairs, 2, d);
    unsigned char hit[2];
    hsc_intersections(s, pairs, 2, 1, hit);
    if (d[0].d > 0) {
      (*separated)++;
      if (!(fabs(d[0].d - d[1].d) <= 1e-9 * d[1].d + abs) || hit[0] || hit[1]) {
        fprintf(stderr, "\n  pose %d: convex %.17g, triangles %.17g\n", t, d[0].d, d[1].d);
        bad++;
      }
      // the closest points are that far apart
      bad += fabs(sqrt(v3dist2(d[0].p0, d[0].p1)) - d[0].d) > 1e-12;
    } else {
      (*touching)++;
      // the solid overlaps: the reference's surfaces cross, or one holds the other
      bad += !hit[0] || (hit[1] && d[1].d != 0) || (!hit[1] && !(d[1].d > 0));
    }
  }
  hsc_freeScene(s);
  return bad;
}

static void testAgainstTriangles(void) {
  int bad = 0, separated = 0, touching = 0;
  float pv[48];
  int pt[84];
  octPrism(pv, pt);
  hscModel *prism = colMesh(pv, 16, pt, 28, 4), *rprism = perTriangle(pv, pt, 28);
  CU_ASSERT_PTR_NOT_NULL_FATAL(hullOf(prism));
  hstGeom types[5] = {hsGEOM_SPHERE, hsGEOM_BOX, hsGEOM_CAPSULE, hsGEOM_CYLINDER, hsGEOM_CONE};
  for (int k = 0; k < 5; k++) {
    hscModel *o = colPrim(types[k], 0.05, 0.08, 0.06);
    int curved = types[k] == hsGEOM_CYLINDER || types[k] == hsGEOM_CONE;
    bad += againstReference(prism, rprism, o, curved ? 1e-10 : 0, 0.4, 150, &separated,
                            &touching);
    hsc_freeModel(o);
  }
  for (int i = 0; i < 20; i++) {
    float tv[12];
    int tt[12];
    tetra(tv, tt, 0.3);
    hscModel *tet = colMesh(tv, 4, tt, 4, 4), *rtet = perTriangle(tv, tt, 4);
    CU_ASSERT_PTR_NOT_NULL(hullOf(tet));
    // a tetrahedron against the prism (convex against convex) and against a box
    bad += againstReference(tet, rtet, prism, 0, 0.5, 30, &separated, &touching);
    hscModel *o = colPrim(hsGEOM_BOX, 0.1, 0.07, 0.05);
    bad += againstReference(tet, rtet, o, 0, 0.5, 30, &separated, &touching);
    hsc_freeModel(o);
    hsc_freeModel(tet);
    hsc_freeModel(rtet);
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(separated > 800);
  CU_ASSERT(touching > 100);
  hsc_freeModel(prism);
  hsc_freeModel(rprism);
}

// a non-convex mesh (a box with a dented corner) walked by its BVH against a convex mesh:
// contacts, intersection and distance identical to the bit to the dented mesh's triangles one
// by one against the same convex mesh
static void testTrianglesAgainstHull(void) {
  float v[24], dent[24];
  boxVerts(v, 0.3f, 0.2f, 0.25f);
  memcpy(dent, v, sizeof dent);
  for (int j = 0; j < 3; j++) {
    dent[18 + j] *= 0.3f;
  }
  hscModel *a = colMesh(dent, 8, kBoxTri, 12, 4), *ra = perTriangle(dent, kBoxTri, 12);
  CU_ASSERT_PTR_NULL(hullOf(a));
  float pv[48];
  int pt[84];
  octPrism(pv, pt);
  hscModel *b = colMesh(pv, 16, pt, 28, 4);
  hscOptions o;
  hsc_defaultOptions(&o);
  o.maxCandidates = 4096;
  o.maxContactsPerPair = 4096;
  hscScene *s = hsc_makeScene(&o, NULL);
  hsc_addBody(s, a, NULL);
  hsc_addBody(s, b, NULL);
  hsc_addBody(s, ra, NULL);
  hscPair pairs[2] = {{{0, 1}, {0, 0}, 0, 0}, {{2, 1}, {0, 0}, 0, 0}};
  static hscContact c[2][4096];
  int bad = 0, touching = 0;
  for (int t = 0; t < 200; t++) {
    double p[2][3], R[2][9];
    randomPose(p[0], R[0], 0.4);
    randomPose(p[1], R[1], 0.4);
    hsc_setLinkPose(s, 0, 0, p[0], R[0], NULL);
    hsc_setLinkPose(s, 2, 0, p[0], R[0], NULL);
    hsc_setLinkPose(s, 1, 0, p[1], R[1], NULL);
    int n0 = hsc_contacts(s, &pairs[0], 1, c[0], 4096, NULL);
    int n1 = hsc_contacts(s, &pairs[1], 1, c[1], 4096, NULL);
    touching += n0 > 0;
    // the same candidate points, in whatever order the walks found them
    bad += n0 != n1 || sameContacts(c[0], c[1], n0, 0);
    hscDistance d[2];
    hsc_distances(s, pairs, 2, d);
    bad += d[0].d != d[1].d;
    unsigned char hit[2];
    hsc_intersections(s, pairs, 2, 1, hit);
    bad += hit[0] != hit[1];
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(touching > 20);
  CU_ASSERT(touching < 200);
  hsc_freeScene(s);
  hsc_freeModel(a);
  hsc_freeModel(ra);
  hsc_freeModel(b);
}

//---------------------------------- the bounded separating-axis test -------------------------

// the separating-axis test as it was written before its bounds (collision_narrow.c's sat for a
// hull or a box, not one-sided): every axis in order, every hull projection a scan of every
// vertex; the reference the bounded test must equal to the bit
static void refProject(const hscConvex *c, const double L[3], double *lo, double *hi) {
  double o = v3dot(c->p, L);
  if (c->kind == hsGEOM_BOX) {
    double r = 0, f[3];
    for (int k = 0; k < 3; k++) {
      m3col(f, c->R, k);
      r += 0.5 * c->size[k] * fabs(v3dot(f, L));
    }
    *lo = o - r;
    *hi = o + r;
    return;
  }
  double l[3];
  m3tmulv(l, c->R, L);
  hsc_hullProject(c->hull, l, lo, hi);
  *lo += o;
  *hi += o;
}

// axis k of a box or a hull, world: face normals (k < its face count), then edge directions
static int refAxes(const hscConvex *c, double ax[][3]) {
  if (c->kind == hsGEOM_BOX) {
    for (int k = 0; k < 6; k++) {
      m3col(ax[k], c->R, k % 3);
    }
    return 3;
  }
  const hscHull *h = c->hull;
  for (int k = 0; k < h->nfax + h->neax; k++) {
    m3mulv(ax[k], c->R, h->ax + 3 * k);
  }
  return h->nfax;
}

static int refSat(const hscConvex *a, const hscConvex *b, double n[3], double *depth) {
  static double fa[2 * HSC_HULL_MAX_AXES][3], fb[2 * HSC_HULL_MAX_AXES][3];
  int nfa = refAxes(a, fa), nfb = refAxes(b, fb);
  int nea = a->kind == hsGEOM_BOX ? 3 : a->hull->neax;
  int neb = b->kind == hsGEOM_BOX ? 3 : b->hull->neax;
  double best = INFINITY, bestN[3] = {0, 0, 1}, faceBest = INFINITY, faceN[3] = {0, 0, 1};
  for (int i = 0; i < nfa + nfb + nea * neb; i++) {
    double L[3];
    int isFace = i < nfa + nfb;
    if (i < nfa) {
      v3copy(L, fa[i]);
    } else if (isFace) {
      v3copy(L, fb[i - nfa]);
    } else {
      int k = i - nfa - nfb;
      v3cross(L, fa[nfa + k / neb], fb[nfb + k % neb]);
      if (v3normalize(L) < 1e-9) {
        continue;
      }
    }
    double alo, ahi, blo, bhi;
    refProject(a, L, &alo, &ahi);
    refProject(b, L, &blo, &bhi);
    if (ahi < blo || bhi < alo) {
      return 0;
    }
    double o1 = ahi - blo, o2 = bhi - alo;
    double o = o1 <= o2 ? o1 : o2, sg = o1 <= o2 ? 1 : -1;
    if (isFace ? o < faceBest : o < best) {
      *(isFace ? &faceBest : &best) = o;
      v3scale(isFace ? faceN : bestN, sg, L);
    }
  }
  int edge = best < 0.95 * faceBest - 1e-12;
  v3copy(n, edge ? bestN : faceN);
  *depth = edge ? best : faceBest;
  return 1;
}

// a geom of a one-geom model as the narrow phase's convex at pose (p, R)
static void convexAt(hscConvex *c, const hscModel *m, const double p[3], const double R[9]) {
  hscPosed g;
  memset(&g, 0, sizeof g);
  g.g = &m->geoms[0];
  memcpy(g.R, R, sizeof g.R);
  memcpy(g.p, p, sizeof g.p);
  hsc_convexOf(c, &g);
}

// 1 if hsc_collideConvex(a, b) differs from the reference test and manifold in any bit
static int boundedDiffers(const hscConvex *a, const hscConvex *b, int *touching) {
  hscCand c0[64], c1[64];
  hscCandBuf b0 = {c0, 0, 64, 0, 8, 1e-3}, b1 = {c1, 0, 64, 0, 8, 1e-3};
  memset(c0, 0, sizeof c0);
  memset(c1, 0, sizeof c1);
  int hit = hsc_collideConvex(a, b, &b0, 0);
  double n[3], depth;
  int ref = refSat(a, b, n, &depth);
  if (ref) {
    hsc_manifold(a, b, n, depth, &b1);
  }
  *touching += ref;
  return hit != ref || b0.n != b1.n || memcmp(c0, c1, sizeof c0) != 0;
}

// the bounded test skips most hull projections; contacts must stay those of the plain walk to
// the bit: the prism resting on a floor box (flat, tilted by up to 1e-3 rad, turned about z:
// equal overlaps on several axes), and random poses of the prism and tetrahedra against boxes
// and against each other, either side first
static void testBoundedSat(void) {
  float pv[48];
  int pt[84];
  octPrism(pv, pt);
  hscModel *prism = colMesh(pv, 16, pt, 28, 4), *floor = colPrim(hsGEOM_BOX, 10, 10, 0.1);
  hscModel *box = colPrim(hsGEOM_BOX, 0.1, 0.07, 0.05);
  CU_ASSERT_PTR_NOT_NULL_FATAL(hullOf(prism));
  int bad = 0, touching = 0, trials = 0;
  double I[9], zero[3] = {0, 0, -0.05};
  hsu_setIdentity(I);
  for (int t = 0; t < 400; t++) {
    double R[9], p[3], aa[4] = {(t % 4) * (rnd() - 0.5), (t % 4) * (rnd() - 0.5), 1, 0};
    aa[3] = t % 3 ? 2 * HS_PI * rnd() : (t % 8) * HS_PI / 4;
    if (t % 4) {
      double tilt[4] = {rnd() - 0.5, rnd() - 0.5, 0, 1e-3 * rnd() * (t % 4 == 3 ? 1e-6 : 1)};
      double Rz[9], Rt[9];
      hsu_axisAngleToMat(Rz, (double[4]){0, 0, 1, aa[3]});
      hsu_axisAngleToMat(Rt, tilt);
      hsu_mulMat(R, Rt, Rz);
    } else {
      hsu_axisAngleToMat(R, (double[4]){0, 0, 1, aa[3]});
    }
    p[0] = 4 * (rnd() - 0.5);
    p[1] = 4 * (rnd() - 0.5);
    p[2] = 0.015 - 1e-3 * rnd() * (t % 5 != 0);
    hscConvex f, h;
    convexAt(&f, floor, zero, I);
    convexAt(&h, prism, p, R);
    bad += boundedDiffers(&f, &h, &touching) + boundedDiffers(&h, &f, &touching);
    trials += 2;
  }
  for (int t = 0; t < 300; t++) {
    float tv[12];
    int tt[12];
    tetra(tv, tt, 0.3);
    hscModel *tet = colMesh(tv, 4, tt, 4, 4);
    double p[3][3], R[3][9];
    for (int k = 0; k < 3; k++) {
      randomPose(p[k], R[k], 0.25);
    }
    hscConvex c[3];
    convexAt(&c[0], tet, p[0], R[0]);
    convexAt(&c[1], prism, p[1], R[1]);
    convexAt(&c[2], box, p[2], R[2]);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        if (i != j && (i < 2 || j < 2)) {
          bad += boundedDiffers(&c[i], &c[j], &touching);
          trials++;
        }
      }
    }
    hsc_freeModel(tet);
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(touching > trials / 4);
  CU_ASSERT(touching < trials);
  hsc_freeModel(prism);
  hsc_freeModel(floor);
  hsc_freeModel(box);
}

// the walls of an open box (no top: not closed, so triangle by triangle) tilted by 1e-4 to
// 5e-4 rad resting on a large box: the one-sided walls still give side contacts pointing
// down into the floor, not pushes through its whole extent (the closed box, now a hull, is
// tested the same way in test_mesh.c)
static void testTiltedOpenMeshOnBox(void) {
  float v[24];
  boxVerts(v, 0.2f, 0.2f, 0.2f);
  hscModel *a = colMesh(v, 8, kBoxTri, 10, 4);
  CU_ASSERT_PTR_NULL(hullOf(a));
  CU_ASSERT_EQUAL(colTiltedOnFloorFaults(a, v), 0);
}

void register_hull(void) {
  CU_pSuite s = hst_addSuite("collision convex meshes");
  CU_add_test(s, "which meshes are convex polytopes", testDetection);
  CU_add_test(s, "a box as a mesh answers as the Box", testBoxAsMesh);
  CU_add_test(s, "a mesh box resting on a floor", testRestingMeshBox);
  CU_add_test(s, "convex meshes against the all-triangles reference", testAgainstTriangles);
  CU_add_test(s, "a non-convex mesh's BVH against a convex mesh equals brute force",
              testTrianglesAgainstHull);
  CU_add_test(s, "tilted open mesh resting on a large box: side contacts",
              testTiltedOpenMeshOnBox);
  CU_add_test(s, "the bounded separating-axis test answers as the plain walk to the bit",
              testBoundedSat);
}
