// test_faceset.c - IndexedFaceSet, ElevationGrid and Extrusion meshes against hand-computed
// triangles, attribute index lists (OpenHRP layout), vertices, texture coordinates and volumes;
// error messages; allocation failure; the time to mesh a million triangles.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrml_geometry.h"
#include "mesh_checks.h"
#include "test_support.h"

// the meshers in the form failEachMeshAllocation takes
static int meshFaceSet(hsmMesh *m, const void *in, hsError *err) {
  return hsm_meshFaceSet(m, in, err);
}
static int meshElevationGrid(hsmMesh *m, const void *in, hsError *err) {
  return hsm_meshElevationGrid(m, in, err);
}
static int meshExtrusion(hsmMesh *m, const void *in, hsError *err) {
  return hsm_meshExtrusion(m, in, err);
}

//---------------------------------- IndexedFaceSet --------------------------------------------

// a 2 x 2 x 2 cube: point i has x, y, z on the + side when bit 0, 1, 2 of i is set
static const double kCubePoints[24] = {-1, -1, -1, 1, -1, -1, -1, 1, -1, 1, 1, -1,
                                       -1, -1, 1,  1, -1, 1,  -1, 1, 1,  1, 1, 1};
// its faces, counter-clockwise seen from outside: +x, -x, +y, -y, +z, -z (no trailing -1)
static const int kCubeFaces[29] = {5, 1, 3, 7, -1, 0, 4, 6, 2, -1, 6, 7, 3, 2, -1,
                                   0, 1, 5, 4, -1, 4, 5, 7, 6, -1, 1, 0, 2, 3};
static const double kFaceNormals[18] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};

static hsmFaceSetInput cubeInput(void) {
  hsmFaceSetInput in;
  memset(&in, 0, sizeof in);
  in.coord = kCubePoints, in.ncoord = 8;
  in.coordIndex = kCubeFaces, in.ncoordIndex = 29;
  in.normalPerVertex = in.colorPerVertex = 1;
  in.ccw = in.convex = 1;
  return in;
}

// the outward unit normal of triangle t
static void unitNormal(const hsmMesh *m, int t, double n[3]) {
  areaVector(m, t, n);
  double l = hsu_norm(n);
  n[0] /= l, n[1] /= l, n[2] /= l;
}

static void testCube(void) {
  hsmFaceSetInput in = cubeInput();
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 8);
  CU_ASSERT_EQUAL(m.ntriangle, 12);
  // OpenHRP's ear clipping: each quad's first corner is cut off as (last, first, second),
  // then the rest; face (5 1 3 7) gives (7 5 1) (7 1 3)
  int first[12] = {7, 5, 1, 7, 1, 3, 2, 0, 4, 2, 4, 6};
  for (int i = 0; i < 12; i++) {
    CU_ASSERT_EQUAL(m.triangles[i], first[i]);
  }
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), 8, 1e-12);
  // generated flat normals (creaseAngle 0): the six face directions
  CU_ASSERT_EQUAL(m.nnormal, 6);
  CU_ASSERT_EQUAL(m.nnormalIndex, 36);
  CU_ASSERT_EQUAL(m.normalPerVertex, 1);
  for (int t = 0; t < 12; t++) {
    double n[3], c[3];
    unitNormal(&m, t, n);
    for (int k = 0; k < 3; k++) {
      cornerNormal(&m, t, k, c);
      for (int i = 0; i < 3; i++) {
        HST_NEAR(c[i], kFaceNormals[3 * (t / 2) + i], 0);
        HST_NEAR(n[i], c[i], 1e-12);
      }
    }
  }
  // no colours, no texture coordinates
  CU_ASSERT_EQUAL(m.ncolor + m.ncolorIndex + m.ntexCoord + m.ntexCoordIndex, 0);
  CU_ASSERT_PTR_NULL(m.texCoords);
  hsm_freeMesh(&m);

  // creaseAngle > 90 degrees: smooth corners along the diagonals
  in.creaseAngle = 2;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nnormal, 8);
  checkDiagonalNormals(&m);
  hsm_freeMesh(&m);
}

static void testClockwise(void) {
  // the cube's faces listed clockwise with ccw FALSE come out the same way round
  int faces[30];
  for (int f = 0; f < 6; f++) {
    for (int k = 0; k < 4; k++) {
      faces[5 * f + k] = kCubeFaces[5 * f + 3 - k];
    }
    faces[5 * f + 4] = -1;
  }
  hsmFaceSetInput in = cubeInput();
  in.coordIndex = faces, in.ncoordIndex = 30;
  in.ccw = 0;
  static const double tex[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  int texIndex[30];
  for (int f = 0; f < 6; f++) {
    for (int k = 0; k < 4; k++) {
      texIndex[5 * f + k] = 3 - k;  // the point listed k-th gets texture coordinate 3 - k
    }
    texIndex[5 * f + 4] = -1;
  }
  in.texCoord = tex, in.ntexCoord = 4;
  in.texCoordIndex = texIndex, in.ntexCoordIndex = 30;
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ntriangle, 12);
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), 8, 1e-12);
  // face (7 3 1 5) clips to (5 7 3) (5 3 1), written reversed as OpenHRP writes them
  int first[6] = {3, 7, 5, 1, 3, 5};
  for (int i = 0; i < 6; i++) {
    CU_ASSERT_EQUAL(m.triangles[i], first[i]);
  }
  // texture indices follow their corners: on each face point kCubeFaces[5f + j] has index j
  CU_ASSERT_EQUAL(m.ntexCoordIndex, 36);
  for (int t = 0; t < 12; t++) {
    int f = t / 2;
    for (int k = 0; k < 3; k++) {
      int v = m.triangles[3 * t + k], j = 0;
      while (kCubeFaces[5 * f + j] != v) {
        j++;
      }
      CU_ASSERT_EQUAL(m.texCoordIndices[3 * t + k], j);
    }
    double n[3], c[3];
    unitNormal(&m, t, n);
    cornerNormal(&m, t, 0, c);
    HST_NEAR(hsu_dot(n, c), 1, 1e-12);
  }
  hsm_freeMesh(&m);
}

static void testAttributes(void) {
  hsmFaceSetInput in = cubeInput();
  hsmMesh m = {0};
  // per-face colours without colorIndex: the face number, once per triangle
  static const double colors[18] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1};
  in.color = colors, in.ncolor = 6, in.colorPerVertex = 0;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ncolor, 6);
  CU_ASSERT_EQUAL(m.colorPerVertex, 0);
  CU_ASSERT_EQUAL_FATAL(m.ncolorIndex, 12);
  for (int t = 0; t < 12; t++) {
    CU_ASSERT_EQUAL(m.colorIndices[t], t / 2);
  }
  HST_NEAR(m.colors[3 * 4 + 1], 1, 0);
  hsm_freeMesh(&m);
  // per-face colours with colorIndex
  static const int colorIndex[6] = {5, 4, 3, 2, 1, 0};
  in.colorIndex = colorIndex, in.ncolorIndex = 6;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  for (int t = 0; t < 12; t++) {
    CU_ASSERT_EQUAL(m.colorIndices[t], 5 - t / 2);
  }
  hsm_freeMesh(&m);

  // per-vertex normals through normalIndex: the face normals, given explicitly (not generated)
  in = cubeInput();
  int normalIndex[29];
  for (int i = 0; i < 29; i++) {
    normalIndex[i] = kCubeFaces[i] < 0 ? -1 : i / 5;
  }
  in.normal = kFaceNormals, in.nnormal = 6;
  in.normalIndex = normalIndex, in.nnormalIndex = 29;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nnormal, 6);
  CU_ASSERT_EQUAL(m.normalPerVertex, 1);
  CU_ASSERT_EQUAL_FATAL(m.nnormalIndex, 36);
  for (int i = 0; i < 36; i++) {
    CU_ASSERT_EQUAL(m.normalIndices[i], i / 6);
  }
  hsm_freeMesh(&m);
  // per-vertex normals without normalIndex follow coordIndex
  double diagonals[24];
  for (int i = 0; i < 24; i++) {
    diagonals[i] = kCubePoints[i] / sqrt(3.0);
  }
  in.normal = diagonals, in.nnormal = 8;
  in.normalIndex = NULL, in.nnormalIndex = 0;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(memcmp(m.normalIndices, m.triangles, 36 * sizeof(int)), 0);
  HST_NEAR(m.normals[21], 1 / sqrt(3.0), 1e-7);
  hsm_freeMesh(&m);
  // per-face normals without normalIndex: one per triangle, the face number
  in.normal = kFaceNormals, in.nnormal = 6, in.normalPerVertex = 0;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.normalPerVertex, 0);
  CU_ASSERT_EQUAL_FATAL(m.nnormalIndex, 12);
  for (int t = 0; t < 12; t++) {
    CU_ASSERT_EQUAL(m.normalIndices[t], t / 2);
  }
  hsm_freeMesh(&m);
  // texture coordinates without texCoordIndex follow coordIndex
  in = cubeInput();
  double tex[16];
  for (int i = 0; i < 16; i++) {
    tex[i] = i / 16.0;
  }
  in.texCoord = tex, in.ntexCoord = 8;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ntexCoord, 8);
  CU_ASSERT_EQUAL(memcmp(m.texCoordIndices, m.triangles, 36 * sizeof(int)), 0);
  HST_NEAR(m.texCoords[5], 5 / 16.0, 0);
  hsm_freeMesh(&m);
}

static void testNonConvex(void) {
  // an L in the z = 0 plane, one face: 4 triangles of total area 4 (convex is ignored, as in
  // OpenHRP)
  static const double pts[18] = {0, 0, 0, 3, 0, 0, 3, 1, 0, 1, 1, 0, 1, 2, 0, 0, 2, 0};
  static const int idx[7] = {0, 1, 2, 3, 4, 5, -1};
  static const double color[3] = {0.5, 0.5, 0.5};
  hsmFaceSetInput in;
  memset(&in, 0, sizeof in);
  in.coord = pts, in.ncoord = 6, in.coordIndex = idx, in.ncoordIndex = 7;
  in.color = color, in.ncolor = 1;
  in.ccw = 1, in.convex = 0;
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(m.ntriangle, 4);
  double area = 0;
  for (int t = 0; t < 4; t++) {
    double a[3];
    areaVector(&m, t, a);
    CU_ASSERT(a[2] > 0 && a[0] == 0 && a[1] == 0);
    area += a[2] / 2;
    CU_ASSERT_EQUAL(m.colorIndices[t], 0);  // one per triangle, the face's
  }
  HST_NEAR(area, 4, 1e-12);
  CU_ASSERT_EQUAL(m.nnormal, 1);
  CU_ASSERT_EQUAL(m.ncolorIndex, 4);
  // the ears OpenHRP's Triangulator cuts, in its order
  static const int want[12] = {0, 1, 2, 0, 2, 3, 5, 0, 3, 5, 3, 4};
  for (int i = 0; i < 12; i++) {
    CU_ASSERT_EQUAL(m.triangles[i], want[i]);
  }
  hsm_freeMesh(&m);
  // an L whose inner corner lies exactly on a candidate diagonal: OpenHRP's strict containment
  // test accepts that ear and leaves a crossed remainder, giving 3 triangles (5 0 1) (5 1 2)
  // (3 4 5); hrpsim serves the same triangles
  static const double onDiagonal[18] = {0, 0, 0, 2, 0, 0, 2, 1, 0, 1, 1, 0, 1, 2, 0, 0, 2, 0};
  in.coord = onDiagonal;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(m.ntriangle, 3);
  static const int want2[9] = {5, 0, 1, 5, 1, 2, 3, 4, 5};
  for (int i = 0; i < 9; i++) {
    CU_ASSERT_EQUAL(m.triangles[i], want2[i]);
  }
  hsm_freeMesh(&m);
}

static void testDegenerateFaces(void) {
  // the middle face has no area: a triangle is kept as written (as OpenHRP keeps it)
  static const double pts[21] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 1, 1, 0};
  static const int idx[13] = {0, 1, 2, -1, 3, 4, 5, -1, 1, 6, 2, -1, -1 + 0};
  static const double colors[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  hsmFaceSetInput in;
  memset(&in, 0, sizeof in);
  in.coord = pts, in.ncoord = 7, in.coordIndex = idx, in.ncoordIndex = 12;
  in.color = colors, in.ncolor = 3;
  in.ccw = 1, in.convex = 1;
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(m.ntriangle, 3);
  CU_ASSERT_EQUAL(m.colorIndices[0], 0);
  CU_ASSERT_EQUAL(m.colorIndices[1], 1);
  CU_ASSERT_EQUAL(m.colorIndices[2], 2);
  CU_ASSERT_EQUAL(m.ncolorIndex, 3);
  hsm_freeMesh(&m);
  // a collinear quad loses its flat corners one by one and gives nothing; a triangle with a
  // repeated index is kept; the last polygon counts without its -1 (OpenHRP drops it)
  in.convex = 0;
  static const int idx2[12] = {0, 1, 2, -1, 3, 4, 5, 4, -1, 1, 1, 2};
  in.coordIndex = idx2;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(m.ntriangle, 2);
  CU_ASSERT_EQUAL(m.triangles[3], 1);
  CU_ASSERT_EQUAL(m.triangles[4], 1);
  CU_ASSERT_EQUAL(m.triangles[5], 2);
  CU_ASSERT_EQUAL(m.colorIndices[1], 2);
  hsm_freeMesh(&m);
  // polygons of 2 points and empty ones count as faces without triangles
  static const int idx3[10] = {0, 1, -1, -1, 1, 6, 2, -1, 3, -1};
  in.coordIndex = idx3, in.ncoordIndex = 10;
  in.colorPerVertex = 0;
  static const double four[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  in.color = four, in.ncolor = 4;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(m.ntriangle, 1);
  CU_ASSERT_EQUAL(m.colorIndices[0], 2);  // the third face
  hsm_freeMesh(&m);
  // nothing at all
  in.coordIndex = NULL, in.ncoordIndex = 0;
  CU_ASSERT_EQUAL_FATAL(hsm_meshFaceSet(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ntriangle, 0);
  hsm_freeMesh(&m);
}

// run a face set that must fail; checks the code, that the message holds want, and a zero mesh
static void expectFaceSetError(const hsmFaceSetInput *in, const char *want) {
  hsmMesh m = {0};
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_meshFaceSet(&m, in, &err), hsE_MODEL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, want));
  if (!strstr(err.message, want)) {
    fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", err.message, want);
  }
  CU_ASSERT_TRUE(isZeroMesh(&m));
}

static void testFaceSetErrors(void) {
  hsmFaceSetInput in = cubeInput();
  int idx[29];
  memcpy(idx, kCubeFaces, sizeof idx);
  in.coordIndex = idx;
  idx[7] = 8;
  expectFaceSetError(&in, "coordIndex[7] = 8");
  idx[7] = -3;
  expectFaceSetError(&in, "coordIndex[7] = -3");
  idx[7] = 6;
  // attribute indices
  int normalIndex[29];
  for (int i = 0; i < 29; i++) {
    normalIndex[i] = idx[i] < 0 ? -1 : 0;
  }
  normalIndex[2] = 9;
  in.normal = kFaceNormals, in.nnormal = 6;
  in.normalIndex = normalIndex, in.nnormalIndex = 29;
  expectFaceSetError(&in, "normalIndex[2] = 9");
  normalIndex[2] = 0;
  in.nnormalIndex = 20;
  expectFaceSetError(&in, "normalIndex has 20 entries");
  in.nnormalIndex = 0;
  expectFaceSetError(&in, "coordIndex[3] = 7 has no normal: there are 6 normals");
  in.normal = NULL, in.nnormal = 0;
  in.color = kFaceNormals, in.ncolor = 5, in.colorPerVertex = 0;
  expectFaceSetError(&in, "6 faces but only 5 colors");
  int colorIndex[6] = {0, 1, 2, 3, 4, 5};
  in.colorIndex = colorIndex, in.ncolorIndex = 6;
  expectFaceSetError(&in, "colorIndex[5] = 5");
  in.color = NULL, in.ncolor = 0;
  double pts[24];
  memcpy(pts, kCubePoints, sizeof pts);
  pts[4] = NAN;
  in.coord = pts;
  expectFaceSetError(&in, "finite");
}

// a face set of everything: ear-clipped polygons, texture coordinates, generated normals
static void testFaceSetAllocFailure(void) {
  static const double pts[18] = {0, 0, 0, 2, 0, 0, 2, 1, 0, 1, 1, 0, 1, 2, 0, 0, 2, 0};
  static const int idx[11] = {0, 1, 2, 3, 4, 5, -1, 0, 1, 5, -1};
  hsmFaceSetInput in;
  memset(&in, 0, sizeof in);
  in.coord = pts, in.ncoord = 6, in.coordIndex = idx, in.ncoordIndex = 11;
  in.texCoord = pts, in.ntexCoord = 9;
  in.ccw = 0, in.convex = 0, in.creaseAngle = 0.5;
  hsmMesh m = {0};
  int failures = failEachMeshAllocation(meshFaceSet, &in, 100, 0, &m);
  CU_ASSERT_EQUAL(m.ntriangle, 4);  // the L clipped as OpenHRP does (see testNonConvex)
  hsm_freeMesh(&m);
  CU_ASSERT(failures >= 6);
}

//---------------------------------- ElevationGrid ---------------------------------------------

static void testElevationGrid(void) {
  static const double h[6] = {0, 1, 2, 3, 4, 5};
  hsmElevationGridInput in = {3, 2, 0.5, 2, h, 6, 1, 0};
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshElevationGrid(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 6);
  CU_ASSERT_EQUAL(m.ntriangle, 4);
  for (int j = 0; j < 2; j++) {
    for (int i = 0; i < 3; i++) {
      const float *v = m.vertices + 3 * (i + 3 * j);
      HST_NEAR(v[0], 0.5 * i, 0);
      HST_NEAR(v[1], h[i + 3 * j], 0);
      HST_NEAR(v[2], 2.0 * j, 0);
      const float *st = m.texCoords + 2 * (i + 3 * j);
      HST_NEAR(st[0], i / 2.0, 0);
      HST_NEAR(st[1], j, 0);
    }
  }
  // cell (0, 0): a = 0, b = 1, c = 4, d = 3 -> (a d c) (a c b)
  int expect[12] = {0, 3, 4, 0, 4, 1, 1, 4, 5, 1, 5, 2};
  for (int i = 0; i < 12; i++) {
    CU_ASSERT_EQUAL(m.triangles[i], expect[i]);
    CU_ASSERT_EQUAL(m.texCoordIndices[i], expect[i]);
  }
  CU_ASSERT_EQUAL(m.ntexCoord, 6);
  CU_ASSERT_EQUAL(m.ntexCoordIndex, 12);
  hsm_freeMesh(&m);

  // flat: normals +y, or -y with ccw FALSE (triangles flipped)
  static const double flat[6] = {0, 0, 0, 0, 0, 0};
  in.height = flat;
  for (int ccw = 0; ccw < 2; ccw++) {
    in.ccw = ccw;
    CU_ASSERT_EQUAL_FATAL(hsm_meshElevationGrid(&m, &in, NULL), 0);
    CU_ASSERT_EQUAL(m.nnormal, 1);
    HST_NEAR(m.normals[1], ccw ? 1 : -1, 0);
    CU_ASSERT_EQUAL(m.triangles[1], ccw ? 3 : 4);
    CU_ASSERT_EQUAL(m.texCoordIndices[1], ccw ? 3 : 4);
    hsm_freeMesh(&m);
  }
}

static void testElevationCrease(void) {
  // a roof: two planes at 90 degrees meeting along the ridge i = 1
  static const double h[6] = {0, 1, 0, 0, 1, 0};
  hsmElevationGridInput in = {3, 2, 1, 1, h, 6, 1, 0};
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshElevationGrid(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nnormal, 2);
  hsm_freeMesh(&m);
  in.creaseAngle = 1.6;
  CU_ASSERT_EQUAL_FATAL(hsm_meshElevationGrid(&m, &in, NULL), 0);
  double s = 1 / sqrt(2.0);
  for (int t = 0; t < m.ntriangle; t++) {
    for (int k = 0; k < 3; k++) {
      double p[3], n[3];
      cornerOf(&m, t, k, p);
      cornerNormal(&m, t, k, n);
      double ex = p[0] == 1 ? 0 : p[0] == 0 ? -s : s, ey = p[0] == 1 ? 1 : s;
      HST_NEAR(n[0], ex, 1e-7);
      HST_NEAR(n[1], ey, 1e-7);
      HST_NEAR(n[2], 0, 1e-7);
    }
  }
  hsm_freeMesh(&m);
}

static void testElevationErrors(void) {
  static const double h[6] = {0, 1, 2, 3, 4, 5};
  hsmElevationGridInput in = {3, 3, 1, 1, h, 6, 1, 0};
  hsmMesh m = {0};
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_meshElevationGrid(&m, &in, &err), hsE_MODEL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "6 heights"));
  CU_ASSERT_TRUE(isZeroMesh(&m));
  in.zDimension = 2, in.xSpacing = 0;
  CU_ASSERT_EQUAL(hsm_meshElevationGrid(&m, &in, NULL), hsE_MODEL);
  in.xSpacing = 1, in.xDimension = -1;
  CU_ASSERT_EQUAL(hsm_meshElevationGrid(&m, &in, NULL), hsE_MODEL);
  // fewer than 2 points along an axis: no cells, no error
  in.xDimension = 1;
  CU_ASSERT_EQUAL(hsm_meshElevationGrid(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ntriangle, 0);
  hsm_freeMesh(&m);
  // allocation failure anywhere leaves a zero mesh
  in.xDimension = 3;
  CU_ASSERT(failEachMeshAllocation(meshElevationGrid, &in, 50, 0, NULL) >= 4);
}

//---------------------------------- Extrusion -------------------------------------------------

// VRML's default cross-section: a closed 2 x 2 square, counter-clockwise seen from +y
static const double kSquare[10] = {1, 1, 1, -1, -1, -1, -1, 1, 1, 1};

static hsmExtrusionInput extrusion(const double *cs, int ncs, const double *spine, int ns) {
  hsmExtrusionInput in;
  memset(&in, 0, sizeof in);
  in.crossSection = cs, in.ncrossSection = ncs;
  in.spine = spine, in.nspine = ns;
  in.beginCap = in.endCap = 1;
  in.ccw = in.convex = 1;
  return in;
}

static void checkVertex(const hsmMesh *m, int v, double x, double y, double z) {
  CU_ASSERT_FATAL(v < m->nvertex);
  HST_NEAR(m->vertices[3 * v], x, 1e-6);
  HST_NEAR(m->vertices[3 * v + 1], y, 1e-6);
  HST_NEAR(m->vertices[3 * v + 2], z, 1e-6);
}

static void testExtrusionPrism(void) {
  static const double spine[6] = {0, 0, 0, 0, 1, 0};
  hsmExtrusionInput in = extrusion(kSquare, 5, spine, 2);
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  // a 2 x 1 x 2 box: the closed cross-section shares its seam, 8 vertices
  CU_ASSERT_EQUAL(m.nvertex, 8);
  CU_ASSERT_EQUAL(m.ntriangle, 8 + 2 + 2);
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 4; j++) {
      checkVertex(&m, 4 * i + j, kSquare[2 * j], i, kSquare[2 * j + 1]);
    }
  }
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), 4, 1e-12);
  CU_ASSERT_EQUAL(m.nnormal, 6);
  // texture: sides s along the cross-section (2 per 8 of length), t along the spine; caps map
  // the 2 x 2 bounding box onto 0..1
  CU_ASSERT_EQUAL(m.ntexCoordIndex, 36);
  for (int t = 0; t < m.ntriangle; t++) {
    double a[3];
    areaVector(&m, t, a);
    for (int k = 0; k < 3; k++) {
      double p[3], st[2];
      cornerOf(&m, t, k, p);
      cornerTex(&m, t, k, st);
      if (fabs(a[1]) > 1e-9) {
        HST_NEAR(st[0], (p[0] + 1) / 2, 1e-7);
        HST_NEAR(st[1], (p[2] + 1) / 2, 1e-7);
      } else {
        HST_NEAR(st[1], p[1], 1e-7);
        // the corner's cross-section point j at s = j / 4 (the seam point at 0 or 1)
        int j = m.triangles[3 * t + k] % 4;
        CU_ASSERT(fabs(st[0] - j / 4.0) < 1e-7 || (j == 0 && fabs(st[0] - 1) < 1e-7));
      }
    }
  }
  hsm_freeMesh(&m);

  // ccw FALSE turns it inside out
  in.ccw = 0;
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  HST_NEAR(volumeOf(&m), -4, 1e-12);
  hsm_freeMesh(&m);
  // no caps
  in.ccw = 1, in.beginCap = in.endCap = 0;
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ntriangle, 8);
  CU_ASSERT_EQUAL(m.ntexCoord, 10);
  hsm_freeMesh(&m);
}

static void testExtrusionDirections(void) {
  hsmMesh m = {0};
  // along +x: +y turns onto +x, so X = -y, Z = +z: (x, z) -> (spine.x, -x, z)
  static const double alongX[6] = {0, 0, 0, 2, 0, 0};
  hsmExtrusionInput in = extrusion(kSquare, 5, alongX, 2);
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  checkVertex(&m, 0, 0, -1, 1);
  checkVertex(&m, 1, 0, -1, -1);
  checkVertex(&m, 2, 0, 1, -1);
  checkVertex(&m, 7, 2, 1, 1);
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), 8, 1e-6);
  hsm_freeMesh(&m);
  // pointing down: a half turn about x, X = +x, Z = -z
  static const double down[6] = {0, 0, 0, 0, -1, 0};
  in = extrusion(kSquare, 5, down, 2);
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  checkVertex(&m, 0, 1, 0, -1);
  checkVertex(&m, 5, 1, -1, 1);
  HST_NEAR(volumeOf(&m), 4, 1e-6);
  hsm_freeMesh(&m);
  // scale 2 at the end: a frustum of volume (4 + 16 + 8) / 3
  static const double up[6] = {0, 0, 0, 0, 1, 0};
  static const double scale[4] = {1, 1, 2, 2};
  in = extrusion(kSquare, 5, up, 2);
  in.scale = scale, in.nscale = 2;
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  checkVertex(&m, 0, 1, 0, 1);
  checkVertex(&m, 4, 2, 1, 2);
  checkVertex(&m, 6, -2, 1, -2);
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), 28.0 / 3, 1e-6);
  hsm_freeMesh(&m);
  // one scale for all, per axis
  static const double scaleXZ[2] = {3, 0.5};
  in.scale = scaleXZ, in.nscale = 1;
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  checkVertex(&m, 4, 3, 1, 0.5);
  hsm_freeMesh(&m);
  // 90 degrees about the SCP's y: (1, 0, 1) -> (1, 0, -1)
  static const double quarter[4] = {0, 1, 0, HS_PI / 2};
  in = extrusion(kSquare, 5, up, 2);
  in.orientation = quarter, in.norientation = 1;
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  checkVertex(&m, 0, 1, 0, -1);
  checkVertex(&m, 1, -1, 0, -1);
  checkVertex(&m, 4, 1, 1, -1);
  HST_NEAR(volumeOf(&m), 4, 1e-6);
  hsm_freeMesh(&m);
  // a quarter turn about x at the top only: the top ring stands on edge (y varies, z = 0)
  static const double tilt[8] = {0, 0, 1, 0, 1, 0, 0, HS_PI / 2};
  in.orientation = tilt, in.norientation = 2;
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  checkVertex(&m, 0, 1, 0, 1);
  checkVertex(&m, 4, 1, 0, 0);  // (1, 0, 1) about x by 90 degrees: (1, -1, 0) + spine (0, 1, 0)
  hsm_freeMesh(&m);
}

static void testExtrusionBentSpine(void) {
  // an L-shaped spine with a 2-point cross-section (a ribbon, no caps): SCPs by hand
  static const double spine[9] = {0, 0, 0, 0, 1, 0, 1, 1, 0};
  static const double cs[4] = {1, 0, -1, 0};
  hsmExtrusionInput in = extrusion(cs, 2, spine, 3);
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 6);
  // the second quad folds flat: vertex 3 lies on the line from vertex 2 to vertex 5 (x + y = 1),
  // so one of its triangles has no area and is dropped
  CU_ASSERT_EQUAL(m.ntriangle, 3);
  // Z = (next - this) x (previous - this) = (0, 0, -1) everywhere; X = Y x Z
  double s = 1 / sqrt(2.0);
  checkVertex(&m, 0, -1, 0, 0);          // Y = +y, X = -x
  checkVertex(&m, 2, -s, 1 + s, 0);      // Y = (1, 1, 0) / sqrt 2, X = (-1, 1, 0) / sqrt 2
  checkVertex(&m, 3, s, 1 - s, 0);
  checkVertex(&m, 4, 1, 2, 0);           // Y = +x, X = +y
  checkVertex(&m, 5, 1, 0, 0);
  hsm_freeMesh(&m);
  // straight segments around the bend take the bend's Z: a longer spine, same frames at the ends
  static const double longer[15] = {0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
  in = extrusion(cs, 2, longer, 5);
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  checkVertex(&m, 0, -1, -1, 0);
  checkVertex(&m, 2, -1, 0, 0);
  checkVertex(&m, 8, 2, 2, 0);
  hsm_freeMesh(&m);
}

static void testExtrusionClosedSpine(void) {
  // a square loop in the xz plane: the last ring lands on the first, so it is shared and
  // there are no caps; the result is a closed tube
  static const double spine[15] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0};
  static const double scale[2] = {0.1, 0.1};
  hsmExtrusionInput in = extrusion(kSquare, 5, spine, 5);
  in.scale = scale, in.nscale = 1;
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 16);
  CU_ASSERT_EQUAL(m.ntriangle, 32);
  CU_ASSERT_TRUE(isClosed(&m));
  CU_ASSERT(volumeOf(&m) > 0);
  // at the start the spine turns from -z to +x: Y = next - previous = (1, 0, -1) / sqrt 2,
  // Z = (1, 0, 0) x (0, 0, 1) = (0, -1, 0), X = Y x Z = (-1, 0, -1) / sqrt 2; the
  // cross-section point (0.1, 0.1) is 0.1 X + 0.1 Z
  double s = 0.1 / sqrt(2.0);
  checkVertex(&m, 0, -s, -0.1, -s);
  // at the next corner: Y = (1, 0, 1) / sqrt 2, Z = (0, -1, 0), X = (1, 0, -1) / sqrt 2
  checkVertex(&m, 4, 1 + s, -0.1, -s);
  hsm_freeMesh(&m);
}

static void testExtrusionDegenerate(void) {
  // a repeated spine point shares its SCP: the zero-length segment gives no triangles
  static const double spine[12] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0};
  hsmExtrusionInput in = extrusion(kSquare, 5, spine, 4);
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ntriangle, 16 + 4);
  HST_NEAR(volumeOf(&m), 8, 1e-9);
  hsm_freeMesh(&m);
  // a cone: scale 0 at the end drops the empty cap and the collapsed triangles
  static const double up[6] = {0, 0, 0, 0, 1, 0};
  static const double scale[4] = {1, 1, 0, 0};
  in = extrusion(kSquare, 5, up, 2);
  in.scale = scale, in.nscale = 2;
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.ntriangle, 4 + 2);
  HST_NEAR(volumeOf(&m), 4.0 / 3, 1e-9);
  hsm_freeMesh(&m);
}

static void testExtrusionNonConvexCaps(void) {
  // an L cross-section (counter-clockwise seen from +y, closed), 1 high: caps are ear-clipped
  static const double ell[14] = {0, 0, 0, 2, 1, 2, 1, 1, 2, 1, 2, 0, 0, 0};
  static const double spine[6] = {0, 0, 0, 0, 1, 0};
  hsmExtrusionInput in = extrusion(ell, 7, spine, 2);
  hsmMesh m = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshExtrusion(&m, &in, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 12);
  CU_ASSERT_EQUAL(m.ntriangle, 12 + 4 + 4);
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), 3, 1e-9);
  double capArea = 0;
  for (int t = 0; t < m.ntriangle; t++) {
    double a[3];
    areaVector(&m, t, a);
    if (fabs(a[1]) > 1e-9) {
      CU_ASSERT(a[1] * (m.vertices[3 * m.triangles[3 * t] + 1] - 0.5) > 0);  // outwards
      capArea += fabs(a[1]) / 2;
    }
  }
  HST_NEAR(capArea, 6, 1e-9);
  hsm_freeMesh(&m);
}

static void testExtrusionErrors(void) {
  static const double spine[15] = {0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0};
  hsmExtrusionInput in = extrusion(kSquare, 5, spine, 1);
  hsmMesh m = {0};
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_meshExtrusion(&m, &in, &err), hsE_MODEL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "2 spine points"));
  static const double scale[6] = {1, 1, 2, 2, 3, 3};
  in = extrusion(kSquare, 5, spine, 5);
  in.scale = scale, in.nscale = 3;
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hsm_meshExtrusion(&m, &in, &err), hsE_MODEL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "3 scale values for 5 spine points"));
  static const double nan[4] = {0, 0, NAN, 0};
  in = extrusion(nan, 2, spine, 5);
  CU_ASSERT_EQUAL(hsm_meshExtrusion(&m, &in, NULL), hsE_MODEL);
  CU_ASSERT_TRUE(isZeroMesh(&m));
  // allocation failure anywhere leaves a zero mesh
  static const double ell[14] = {0, 0, 0, 2, 1, 2, 1, 1, 2, 1, 2, 0, 0, 0};
  in = extrusion(ell, 7, spine, 5);
  in.creaseAngle = 1;
  CU_ASSERT(failEachMeshAllocation(meshExtrusion, &in, 100, 0, NULL) >= 10);
}

void register_faceset(void) {
  CU_pSuite s = hst_addSuite("model_faceset");
  CU_add_test(s, "cube", testCube);
  CU_add_test(s, "clockwise faces", testClockwise);
  CU_add_test(s, "attribute indices", testAttributes);
  CU_add_test(s, "non-convex face", testNonConvex);
  CU_add_test(s, "degenerate faces", testDegenerateFaces);
  CU_add_test(s, "errors", testFaceSetErrors);
  CU_add_test(s, "allocation failure", testFaceSetAllocFailure);
  s = hst_addSuite("model_elevation");
  CU_add_test(s, "grid", testElevationGrid);
  CU_add_test(s, "crease angle", testElevationCrease);
  CU_add_test(s, "errors", testElevationErrors);
  s = hst_addSuite("model_extrusion");
  CU_add_test(s, "prism", testExtrusionPrism);
  CU_add_test(s, "directions, scale, orientation", testExtrusionDirections);
  CU_add_test(s, "bent spine", testExtrusionBentSpine);
  CU_add_test(s, "closed spine", testExtrusionClosedSpine);
  CU_add_test(s, "degenerate spine and scale", testExtrusionDegenerate);
  CU_add_test(s, "non-convex caps", testExtrusionNonConvexCaps);
  CU_add_test(s, "errors and allocation failure", testExtrusionErrors);
}
