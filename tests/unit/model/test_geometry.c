// test_geometry.c - primitive meshes (Box, Sphere, Cylinder, Cone) and generated normals,
// against hand-computed counts, positions, normals, texture coordinates and volumes.
//
// Besides spot values, every closed primitive is checked to be a closed, consistently oriented
// surface (each directed edge once, its reverse once) whose signed volume is the analytic volume
// of the polyhedron (positive, so the triangles face outwards).

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "mesh_checks.h"
#include "test_support.h"

//---------------------------------- helpers ---------------------------------------------------

// every attribute index in range, every normal unit length
static void checkAttributes(const hsmMesh *m) {
  CU_ASSERT_EQUAL(m->nnormalIndex, 3 * m->ntriangle);
  CU_ASSERT_EQUAL(m->normalPerVertex, 1);
  for (int i = 0; i < m->nnormalIndex; i++) {
    CU_ASSERT(m->normalIndices[i] >= 0 && m->normalIndices[i] < m->nnormal);
  }
  for (int i = 0; i < m->nnormal; i++) {
    double n[3] = {m->normals[3 * i], m->normals[3 * i + 1], m->normals[3 * i + 2]};
    HST_NEAR(hsu_norm(n), 1, 1e-6);
  }
  CU_ASSERT_EQUAL(m->ntexCoordIndex, 3 * m->ntriangle);
  for (int i = 0; i < m->ntexCoordIndex; i++) {
    CU_ASSERT(m->texCoordIndices[i] >= 0 && m->texCoordIndices[i] < m->ntexCoord);
  }
  for (int i = 0; i < m->nvertex * 3 && m->ntriangle; i++) {
    CU_ASSERT(isfinite(m->vertices[i]));
  }
}

// area of a regular n-gon of circumradius r
static double polygonArea(int n, double r) {
  return 0.5 * n * r * r * sin(2 * HS_PI / n);
}

//---------------------------------- box -------------------------------------------------------

static void testBox(void) {
  hsmMesh m = {0};
  double size[3] = {2, 4, 6};
  CU_ASSERT_EQUAL_FATAL(hsm_meshBox(&m, size, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 8);
  CU_ASSERT_EQUAL(m.ntriangle, 12);
  CU_ASSERT_EQUAL(m.nnormal, 6);
  checkAttributes(&m);
  for (int v = 0; v < 8; v++) {
    double p[3];
    vertexOf(&m, v, p);
    for (int k = 0; k < 3; k++) {
      HST_NEAR(fabs(p[k]), size[k] / 2, 0);
    }
  }
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), 48, 1e-9);
  for (int t = 0; t < 12; t++) {
    // the face's normal is the triangle's direction, pointing outwards
    double a[3], n[3];
    areaVector(&m, t, a);
    for (int k = 0; k < 3; k++) {
      cornerNormal(&m, t, k, n);
      HST_NEAR(hsu_dot(a, n), hsu_norm(a), 1e-9);
    }
    // texture coordinates per VRML97: each face upright seen from outside
    for (int k = 0; k < 3; k++) {
      double p[3], st[2], s, tt;
      cornerOf(&m, t, k, p);
      cornerTex(&m, t, k, st);
      double x = p[0] / size[0] + 0.5, y = p[1] / size[1] + 0.5, z = p[2] / size[2] + 0.5;
      if (n[0] > 0.5) {
        s = 1 - z, tt = y;  // +x: right is -z
      } else if (n[0] < -0.5) {
        s = z, tt = y;
      } else if (n[2] > 0.5) {
        s = x, tt = y;  // front
      } else if (n[2] < -0.5) {
        s = 1 - x, tt = y;
      } else if (n[1] > 0.5) {
        s = x, tt = 1 - z;  // top, -z up
      } else {
        s = x, tt = z;  // bottom, +z up
      }
      HST_NEAR(st[0], s, 1e-7);
      HST_NEAR(st[1], tt, 1e-7);
    }
  }
  hsm_freeMesh(&m);
  CU_ASSERT_TRUE(isZeroMesh(&m));
  hsm_freeMesh(NULL);

  hsError err = {0};
  double bad[3] = {1, -1, 1};
  CU_ASSERT_EQUAL(hsm_meshBox(&m, bad, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "negative"));
  CU_ASSERT_TRUE(isZeroMesh(&m));
  bad[1] = NAN;
  CU_ASSERT_EQUAL(hsm_meshBox(&m, bad, NULL), hsE_INVALID);
  // zero thickness (OpenHRP's plane): the same 12 triangles, flat
  double flat[3] = {10, 10, 0};
  CU_ASSERT_EQUAL_FATAL(hsm_meshBox(&m, flat, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 8);
  CU_ASSERT_EQUAL(m.ntriangle, 12);
  for (int i = 0; i < 8; i++) {
    CU_ASSERT_EQUAL(m.vertices[3 * i + 2], 0.0f);
    CU_ASSERT_EQUAL(fabsf(m.vertices[3 * i]), 5.0f);
  }
  hsm_freeMesh(&m);
}

//---------------------------------- sphere ----------------------------------------------------

static void testSphere(void) {
  hsmMesh m = {0};
  double r = 2;
  CU_ASSERT_EQUAL_FATAL(hsm_meshSphere(&m, r, 8, 4, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 2 + 8 * 3);
  CU_ASSERT_EQUAL(m.ntriangle, 2 * 8 * 3);
  checkAttributes(&m);
  CU_ASSERT_TRUE(isClosed(&m));
  for (int v = 0; v < m.nvertex; v++) {
    double p[3];
    vertexOf(&m, v, p);
    HST_NEAR(hsu_norm(p), r, 1e-6);
  }
  // the poles are single vertices on the y axis
  int poles = 0;
  for (int v = 0; v < m.nvertex; v++) {
    double p[3];
    vertexOf(&m, v, p);
    poles += fabs(fabs(p[1]) - r) < 1e-9 && fabs(p[0]) < 1e-9 && fabs(p[2]) < 1e-9;
  }
  CU_ASSERT_EQUAL(poles, 2);
  // a polyhedron inscribed in the sphere
  double vol = volumeOf(&m);
  CU_ASSERT(vol > 0.7 * 4.0 / 3 * HS_PI * r * r * r && vol < 4.0 / 3 * HS_PI * r * r * r);
  // normals are the radial directions, corner by corner
  for (int t = 0; t < m.ntriangle; t++) {
    for (int k = 0; k < 3; k++) {
      double p[3], n[3];
      cornerOf(&m, t, k, p);
      cornerNormal(&m, t, k, n);
      for (int c = 0; c < 3; c++) {
        HST_NEAR(n[c], p[c] / r, 1e-6);
      }
    }
    double a[3], p[3];
    areaVector(&m, t, a);
    cornerOf(&m, t, 0, p);
    CU_ASSERT(hsu_dot(a, p) > 0);
  }
  // texture: s = 0 on -z, 0.25 on -x, 0.5 on +z; t = 0.5 on the equator
  for (int t = 0; t < m.ntriangle; t++) {
    for (int k = 0; k < 3; k++) {
      double p[3], st[2];
      cornerOf(&m, t, k, p);
      cornerTex(&m, t, k, st);
      if (fabs(p[1]) < 1e-9 && fabs(p[0] + r) < 1e-6) {
        HST_NEAR(st[0], 0.25, 1e-7);
        HST_NEAR(st[1], 0.5, 1e-7);
      }
      if (fabs(p[1]) < 1e-9 && fabs(p[2] - r) < 1e-6) {
        HST_NEAR(st[0], 0.5, 1e-7);
      }
      if (fabs(p[1]) < 1e-9 && fabs(p[2] + r) < 1e-6) {
        // on the seam: 0 on the triangle east of it, 1 west of it
        CU_ASSERT(fabs(st[0]) < 1e-7 || fabs(st[0] - 1) < 1e-7);
      }
      if (p[1] > r - 1e-6) {
        HST_NEAR(st[1], 1, 1e-7);
      }
    }
  }
  hsm_freeMesh(&m);

  // counts for other tessellations
  CU_ASSERT_EQUAL_FATAL(hsm_meshSphere(&m, 1, 3, 2, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 5);
  CU_ASSERT_EQUAL(m.ntriangle, 6);
  CU_ASSERT_TRUE(isClosed(&m));
  hsm_freeMesh(&m);
  CU_ASSERT_EQUAL_FATAL(hsm_meshSphere(&m, 1, 16, 8, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 2 + 16 * 7);
  CU_ASSERT_EQUAL(m.ntriangle, 2 * 16 * 7);
  CU_ASSERT_TRUE(isClosed(&m));
  hsm_freeMesh(&m);

  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_meshSphere(&m, 1, 2, 4, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "slices"));
  CU_ASSERT_EQUAL(hsm_meshSphere(&m, 1, 8, 1, NULL), hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_meshSphere(&m, -1, 8, 4, NULL), hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_meshSphere(&m, NAN, 8, 4, NULL), hsE_INVALID);
  CU_ASSERT_TRUE(isZeroMesh(&m));
}

//---------------------------------- cylinder and cone -----------------------------------------

static void testCylinder(void) {
  hsmMesh m = {0};
  double r = 0.5, h = 3;
  CU_ASSERT_EQUAL_FATAL(hsm_meshCylinder(&m, r, h, 1, 1, 1, 8, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 16);
  CU_ASSERT_EQUAL(m.ntriangle, 2 * 8 + 2 * (8 - 2));
  CU_ASSERT_EQUAL(m.nnormal, 8 + 2);
  checkAttributes(&m);
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), polygonArea(8, r) * h, 1e-6);
  for (int t = 0; t < m.ntriangle; t++) {
    double a[3];
    areaVector(&m, t, a);
    for (int k = 0; k < 3; k++) {
      double p[3], n[3], st[2];
      cornerOf(&m, t, k, p);
      cornerNormal(&m, t, k, n);
      cornerTex(&m, t, k, st);
      HST_NEAR(fabs(p[1]), h / 2, 1e-7);
      HST_NEAR(hypot(p[0], p[2]), r, 1e-7);
      if (fabs(a[1]) > 1e-9) {
        // a cap: flat normal, and the disc texture (top upright tilted towards +z)
        HST_NEAR(n[1], a[1] > 0 ? 1 : -1, 0);
        HST_NEAR(st[0], 0.5 + p[0] / (2 * r), 1e-6);
        HST_NEAR(st[1], a[1] > 0 ? 0.5 - p[2] / (2 * r) : 0.5 + p[2] / (2 * r), 1e-6);
      } else {
        // the side: radial normals, t = 0 at the bottom and 1 at the top
        HST_NEAR(n[0], p[0] / r, 1e-6);
        HST_NEAR(n[1], 0, 0);
        HST_NEAR(n[2], p[2] / r, 1e-6);
        HST_NEAR(st[1], p[1] > 0 ? 1 : 0, 0);
        if (fabs(p[0] + r) < 1e-6) {
          HST_NEAR(st[0], 0.25, 1e-7);  // -x
        }
      }
    }
  }
  hsm_freeMesh(&m);

  // parts: side only, one cap, nothing
  CU_ASSERT_EQUAL_FATAL(hsm_meshCylinder(&m, r, h, 0, 0, 1, 8, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 16);
  CU_ASSERT_EQUAL(m.ntriangle, 16);
  hsm_freeMesh(&m);
  CU_ASSERT_EQUAL_FATAL(hsm_meshCylinder(&m, r, h, 1, 0, 0, 8, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 8);
  CU_ASSERT_EQUAL(m.ntriangle, 6);
  for (int t = 0; t < m.ntriangle; t++) {
    double a[3];
    areaVector(&m, t, a);
    CU_ASSERT(a[1] > 0);
  }
  hsm_freeMesh(&m);
  CU_ASSERT_EQUAL_FATAL(hsm_meshCylinder(&m, r, h, 0, 0, 0, 8, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 0);
  CU_ASSERT_EQUAL(m.ntriangle, 0);
  hsm_freeMesh(&m);
  CU_ASSERT_EQUAL_FATAL(hsm_meshCylinder(&m, 1, 1, 1, 1, 1, 3, NULL), 0);
  CU_ASSERT_EQUAL(m.ntriangle, 6 + 1 + 1);
  CU_ASSERT_TRUE(isClosed(&m));
  hsm_freeMesh(&m);

  CU_ASSERT_EQUAL(hsm_meshCylinder(&m, 1, -1, 1, 1, 1, 8, NULL), hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_meshCylinder(&m, 1, 1, 1, 1, 1, 2, NULL), hsE_INVALID);
  CU_ASSERT_TRUE(isZeroMesh(&m));
}

static void testCone(void) {
  hsmMesh m = {0};
  double r = 1, h = 2;
  CU_ASSERT_EQUAL_FATAL(hsm_meshCone(&m, r, h, 1, 1, 8, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 9);
  CU_ASSERT_EQUAL(m.ntriangle, 8 + 6);
  CU_ASSERT_EQUAL(m.nnormal, 2 * 8 + 1);
  checkAttributes(&m);
  CU_ASSERT_TRUE(isClosed(&m));
  HST_NEAR(volumeOf(&m), polygonArea(8, r) * h / 3, 1e-6);
  double slope = r / sqrt(h * h + r * r);
  int apexCorners = 0;
  for (int t = 0; t < m.ntriangle; t++) {
    double a[3];
    areaVector(&m, t, a);
    for (int k = 0; k < 3; k++) {
      double p[3], n[3], st[2];
      cornerOf(&m, t, k, p);
      cornerNormal(&m, t, k, n);
      cornerTex(&m, t, k, st);
      if (p[1] > 0) {
        // the apex: the side normal half-way between the triangle's base corners
        apexCorners++;
        CU_ASSERT(fabs(p[0]) < 1e-12 && fabs(p[2]) < 1e-12 && p[1] == (float)(h / 2));
        HST_NEAR(n[1], slope, 1e-6);
        // horizontally it points where the flat triangle does
        HST_NEAR(n[0] * a[2] - n[2] * a[0], 0, 1e-6);
        CU_ASSERT(n[0] * a[0] + n[2] * a[2] > 0);
        HST_NEAR(st[1], 1, 0);
      } else if (a[1] < -1e-9 && fabs(a[0]) < 1e-9 && fabs(a[2]) < 1e-9) {
        HST_NEAR(n[1], -1, 0);  // the bottom
      } else {
        HST_NEAR(n[1], slope, 1e-6);
        HST_NEAR(n[0], p[0] / r * h / sqrt(h * h + r * r), 1e-6);
        HST_NEAR(st[1], 0, 0);
      }
    }
  }
  CU_ASSERT_EQUAL(apexCorners, 8);
  hsm_freeMesh(&m);

  CU_ASSERT_EQUAL_FATAL(hsm_meshCone(&m, r, h, 0, 1, 5, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 6);
  CU_ASSERT_EQUAL(m.ntriangle, 5);
  hsm_freeMesh(&m);
  CU_ASSERT_EQUAL_FATAL(hsm_meshCone(&m, r, h, 1, 0, 5, NULL), 0);
  CU_ASSERT_EQUAL(m.nvertex, 5);
  CU_ASSERT_EQUAL(m.ntriangle, 3);
  hsm_freeMesh(&m);
  CU_ASSERT_EQUAL(hsm_meshCone(&m, -0.5, h, 1, 1, 8, NULL), hsE_INVALID);
  CU_ASSERT_TRUE(isZeroMesh(&m));
}

// a closed cylinder of 12 slices, in the form failEachMeshAllocation takes (no input)
static int meshTestCylinder(hsmMesh *m, const void *in, hsError *err) {
  (void)in;
  return hsm_meshCylinder(m, 1, 1, 1, 1, 1, 12, err);
}

static void testPrimitiveAllocFailure(void) {
  // fail each allocation in turn: an error, a zero mesh, and (under valgrind) no leak
  CU_ASSERT(failEachMeshAllocation(meshTestCylinder, NULL, 50, 1, NULL) >= 6);
}

//---------------------------------- normals ---------------------------------------------------

// a unit cube's 12 triangles without normals
static void bareCube(hsmMesh *m) {
  double size[3] = {1, 1, 1};
  CU_ASSERT_EQUAL_FATAL(hsm_meshBox(m, size, NULL), 0);
  hsu_free(m->normals);
  hsu_free(m->normalIndices);
  m->normals = NULL, m->normalIndices = NULL;
  m->nnormal = m->nnormalIndex = 0;
}

static void testNormalsFlat(void) {
  hsmMesh m = {0};
  bareCube(&m);
  CU_ASSERT_EQUAL_FATAL(hsm_generateNormals(&m, 0, NULL), 0);
  CU_ASSERT_EQUAL(m.nnormal, 6);
  CU_ASSERT_EQUAL(m.nnormalIndex, 36);
  CU_ASSERT_EQUAL(m.normalPerVertex, 1);
  for (int t = 0; t < 12; t++) {
    double a[3], n[3];
    areaVector(&m, t, a);
    for (int k = 0; k < 3; k++) {
      cornerNormal(&m, t, k, n);
      for (int c = 0; c < 3; c++) {
        HST_NEAR(n[c], a[c] / hsu_norm(a), 1e-7);
      }
    }
  }
  // a crease angle below 90 degrees keeps the cube's edges sharp
  CU_ASSERT_EQUAL(hsm_generateNormals(&m, 1.5, NULL), 0);
  CU_ASSERT_EQUAL(m.nnormal, 6);
  hsm_freeMesh(&m);
}

static void testNormalsSmooth(void) {
  // 3.14 (general path) and pi (one normal per vertex): corners point along the diagonals
  double angles[2] = {3.14, HS_PI};
  for (int i = 0; i < 2; i++) {
    hsmMesh m = {0};
    bareCube(&m);
    CU_ASSERT_EQUAL_FATAL(hsm_generateNormals(&m, angles[i], NULL), 0);
    CU_ASSERT_EQUAL(m.nnormal, 8);
    checkDiagonalNormals(&m);
    hsm_freeMesh(&m);
  }
}

// reference: the angle-weighted average over the faces at the corner's vertex within the crease
// angle, computed directly
static void referenceNormal(const hsmMesh *m, int t, int k, double crease, double res[3]) {
  int v = m->triangles[3 * t + k];
  double ft[3], sum[3] = {0, 0, 0};
  areaVector(m, t, ft);
  for (int s = 0; s < m->ntriangle; s++) {
    for (int j = 0; j < 3; j++) {
      if (m->triangles[3 * s + j] != v) {
        continue;
      }
      double fs[3], p[3], a[3], b[3], e1[3], e2[3], x[3];
      areaVector(m, s, fs);
      double cosA = hsu_dot(ft, fs) / hsu_norm(ft) / hsu_norm(fs);
      if (cosA < cos(crease) - 1e-9) {
        continue;
      }
      cornerOf(m, s, j, p);
      cornerOf(m, s, (j + 1) % 3, a);
      cornerOf(m, s, (j + 2) % 3, b);
      for (int c = 0; c < 3; c++) {
        e1[c] = a[c] - p[c], e2[c] = b[c] - p[c];
      }
      hsu_cross(x, e1, e2);
      double w = atan2(hsu_norm(x), hsu_dot(e1, e2));
      for (int c = 0; c < 3; c++) {
        sum[c] += w * fs[c] / hsu_norm(fs);
      }
    }
  }
  double l = hsu_norm(sum);
  for (int c = 0; c < 3; c++) {
    res[c] = sum[c] / l;
  }
}

static void testNormalsHighDegree(void) {
  // a shallow fluted cone: 80 triangles around an apex whose normals alternate between two
  // tilts, so the grouped path (more than 32 triangles at a vertex) has real choices to make
  enum { N = 80 };
  float verts[3 * (N + 1)];
  int tris[3 * N];
  verts[0] = 0, verts[1] = 0.3f, verts[2] = 0;
  for (int j = 0; j < N; j++) {
    double th = 2 * HS_PI * j / N, r = j % 2 ? 1.0 : 1.4;
    verts[3 * (j + 1)] = (float)(-r * sin(th));
    verts[3 * (j + 1) + 1] = 0;
    verts[3 * (j + 1) + 2] = (float)(-r * cos(th));
    tris[3 * j] = 0, tris[3 * j + 1] = 1 + j, tris[3 * j + 2] = 1 + (j + 1) % N;
  }
  double creases[4] = {0.05, 0.2, 0.5, 2};
  for (int c = 0; c < 4; c++) {
    hsmMesh m = {0};
    m.vertices = verts, m.nvertex = N + 1, m.triangles = tris, m.ntriangle = N;
    CU_ASSERT_EQUAL_FATAL(hsm_generateNormals(&m, creases[c], NULL), 0);
    for (int t = 0; t < N; t++) {
      for (int k = 0; k < 3; k++) {
        double n[3], ref[3];
        cornerNormal(&m, t, k, n);
        referenceNormal(&m, t, k, creases[c], ref);
        for (int i = 0; i < 3; i++) {
          HST_NEAR(n[i], ref[i], 1e-6);
        }
      }
    }
    hsu_free(m.normals);
    hsu_free(m.normalIndices);
  }
}

static void testNormalsErrors(void) {
  hsmMesh m = {0};
  bareCube(&m);
  hsError err = {0};
  m.triangles[4] = 8;
  CU_ASSERT_EQUAL(hsm_generateNormals(&m, 0, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "vertex 8"));
  m.triangles[4] = 1;
  CU_ASSERT_EQUAL(hsm_generateNormals(&m, NAN, NULL), hsE_INVALID);
  // out of memory at each step: the mesh keeps its old normals
  CU_ASSERT_EQUAL_FATAL(hsm_generateNormals(&m, 0, NULL), 0);
  float *old = m.normals;
  for (long n = 1; n < 10; n++) {
    hsu_failAllocAfter(n);
    int rc = hsm_generateNormals(&m, 1.0, NULL);
    hsu_failAllocAfter(0);
    if (rc == 0) {
      break;
    }
    CU_ASSERT_EQUAL(rc, hsE_NOMEM);
    CU_ASSERT_PTR_EQUAL(m.normals, old);
    CU_ASSERT_EQUAL(m.nnormal, 6);
  }
  hsm_freeMesh(&m);
}

void register_geometry(void) {
  CU_pSuite s = hst_addSuite("model_geometry");
  CU_add_test(s, "box", testBox);
  CU_add_test(s, "sphere", testSphere);
  CU_add_test(s, "cylinder", testCylinder);
  CU_add_test(s, "cone", testCone);
  CU_add_test(s, "allocation failure", testPrimitiveAllocFailure);
  s = hst_addSuite("model_normals");
  CU_add_test(s, "flat cube", testNormalsFlat);
  CU_add_test(s, "smooth cube", testNormalsSmooth);
  CU_add_test(s, "high-degree vertex", testNormalsHighDegree);
  CU_add_test(s, "errors and allocation failure", testNormalsErrors);
}
