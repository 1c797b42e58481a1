// test_meshfile.c - hsm_readMeshFile: STL (ASCII, binary), COLLADA units and up axes, node
// transforms, scale and mirroring, OBJ materials and textures, several parts, errors, allocation
// failure and concurrent reads. Fixtures are in tests/data/meshes (see its README.md); every
// expected coordinate below is worked out by hand from them.

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh_checks.h"
#include "mesh_import.h"
#include "test_support.h"

// absolute path of a fixture (static storage, valid until the next call)
static const char *fixture(const char *name) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/meshes/%s", HST_DATA_DIR, name);
  return path;
}

// read a fixture that must load, with nparts parts
static hsmMeshPart *readFixture(const char *name, const double scale[3], int nparts) {
  hsmMeshPart *parts = NULL;
  int n = -1;
  hsError err = {0};
  int rc = hsm_readMeshFile(fixture(name), scale, NULL, &parts, &n, &err);
  if (rc != 0) {
    fprintf(stderr, "\n  %s: %s\n", name, err.message);
  }
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT_EQUAL(n, nparts);
  return parts;
}

// index of the vertex at (x, y, z) within tol, or -1
static int findVertex(const hsmMesh *m, double x, double y, double z, double tol) {
  for (int v = 0; v < m->nvertex; v++) {
    double p[3];
    vertexOf(m, v, p);
    if (fabs(p[0] - x) <= tol && fabs(p[1] - y) <= tol && fabs(p[2] - z) <= tol) {
      return v;
    }
  }
  return -1;
}

// check every corner normal is the unit outward normal of its (flat) triangle
static void checkFlatNormals(const hsmMesh *m, double tol) {
  CU_ASSERT_EQUAL_FATAL(m->normalPerVertex, 1);
  CU_ASSERT_EQUAL_FATAL(m->nnormalIndex, 3 * m->ntriangle);
  for (int t = 0; t < m->ntriangle; t++) {
    double a[3];
    areaVector(m, t, a);
    double len = hsu_norm(a);
    for (int k = 0; k < 3; k++) {
      double n[3];
      cornerNormal(m, t, k, n);
      HST_NEAR(hsu_norm(n), 1, 1e-6);
      for (int c = 0; c < 3; c++) {
        HST_NEAR(n[c], a[c] / len, tol);
      }
    }
  }
}

// check m is the unit tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1), closed and facing outwards,
// with its facet normals
static void checkTetra(const hsmMesh *m) {
  CU_ASSERT_EQUAL(m->nvertex, 4);
  CU_ASSERT_EQUAL_FATAL(m->ntriangle, 4);
  CU_ASSERT(findVertex(m, 0, 0, 0, 1e-6) >= 0);
  CU_ASSERT(findVertex(m, 1, 0, 0, 1e-6) >= 0);
  CU_ASSERT(findVertex(m, 0, 1, 0, 1e-6) >= 0);
  CU_ASSERT(findVertex(m, 0, 0, 1, 1e-6) >= 0);  // z up stays up, y up becomes z up
  CU_ASSERT_TRUE(isClosed(m));
  HST_NEAR(volumeOf(m), 1.0 / 6, 1e-6);
  CU_ASSERT_EQUAL(m->nnormal, 4);
  checkFlatNormals(m, 1e-6);
}

// check a part that has no material, texture or texture coordinates: VRML's default material
static void checkPlain(const hsmMeshPart *p) {
  CU_ASSERT_EQUAL(p->hasMaterial, 0);
  CU_ASSERT_PTR_NULL(p->texture);
  CU_ASSERT_EQUAL(p->mesh.ntexCoord, 0);
  CU_ASSERT_PTR_NULL(p->mesh.texCoordIndices);
  HST_NEAR(p->material.diffuseColor[0], 0.8, 1e-7);
  HST_NEAR(p->material.ambientIntensity, 0.2, 1e-7);
  HST_NEAR(p->material.shininess, 0.2, 1e-7);
  HST_NEAR(p->material.transparency, 0, 1e-7);
}

//---------------------------------- STL -------------------------------------------------------

static void testAsciiStl(void) {
  hsmMeshPart *p = readFixture("tetra_ascii.stl", NULL, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  checkTetra(&p->mesh);
  checkPlain(p);
  hsm_freeMeshParts(p, 1);
}

// a facet with two corners alike, and a solid of only that facet
#define DEGENERATE_FACET                                                                         \
  "  facet normal 1 0 0\n    outer loop\n      vertex 0 0 0\n      vertex 0 0 0\n"               \
  "      vertex 5 5 5\n    endloop\n  endfacet\n"
static const char *kFlatSolid = "solid flat\n" DEGENERATE_FACET "endsolid flat\n";

// a degenerate facet is left out, with the vertex only it uses
static void testDegenerateTriangles(void) {
  // the tetrahedron with the degenerate facet added before its endsolid
  FILE *in = fopen(fixture("tetra_ascii.stl"), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  char text[4096], joined[8192];
  size_t len = fread(text, 1, sizeof text - 1, in);
  fclose(in);
  text[len] = 0;
  char *end = strstr(text, "endsolid");
  CU_ASSERT_PTR_NOT_NULL_FATAL(end);
  snprintf(joined, sizeof joined, "%.*s%s%s", (int)(end - text), text, DEGENERATE_FACET, end);
  hsmMeshPart *p = NULL;
  int n = 0;
  hsError err = {0};
  CU_ASSERT_EQUAL_FATAL(
      hsm_readMeshFile(hst_writeFile("degenerate.stl", joined), NULL, NULL, &p, &n, &err), 0);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  checkTetra(&p->mesh);
  CU_ASSERT_EQUAL(findVertex(&p->mesh, 5, 5, 5, 0), -1);
  hsm_freeMeshParts(p, n);
  // nothing but the degenerate facet: no triangles
  const char *flat = hst_writeFile("flat.stl", kFlatSolid);
  CU_ASSERT_EQUAL(hsm_readMeshFile(flat, NULL, NULL, &p, &n, &err), hsE_MODEL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no triangles"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, flat));
}

// the unit cube scaled by s: 8 shared vertices at {0, s}^3, 12 outward triangles, 6 normals
static void checkCube(const hsmMesh *m, const double s[3]) {
  CU_ASSERT_EQUAL(m->nvertex, 8);
  CU_ASSERT_EQUAL_FATAL(m->ntriangle, 12);
  for (int i = 0; i < 8; i++) {
    CU_ASSERT(findVertex(m, (i & 1) * s[0], (i >> 1 & 1) * s[1], (i >> 2 & 1) * s[2], 1e-6) >= 0);
  }
  CU_ASSERT_TRUE(isClosed(m));
  HST_NEAR(volumeOf(m), fabs(s[0] * s[1] * s[2]), 1e-5);
  // outward: each triangle's area vector points away from the centre
  double centre[3] = {s[0] / 2, s[1] / 2, s[2] / 2};
  for (int t = 0; t < 12; t++) {
    double a[3], b[3], c[3], area[3], out[3];
    cornerOf(m, t, 0, a);
    cornerOf(m, t, 1, b);
    cornerOf(m, t, 2, c);
    areaVector(m, t, area);
    for (int k = 0; k < 3; k++) {
      out[k] = (a[k] + b[k] + c[k]) / 3 - centre[k];
    }
    CU_ASSERT(hsu_dot(area, out) > 0);
  }
  CU_ASSERT_EQUAL(m->nnormal, 6);
  checkFlatNormals(m, 1e-6);
}

static void testBinaryStl(void) {
  double one[3] = {1, 1, 1};
  hsmMeshPart *p = readFixture("cube_binary.stl", one, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  checkCube(&p->mesh, one);
  checkPlain(p);
  hsm_freeMeshParts(p, 1);
}

// scale per axis; one or three negative components mirror, and the triangles must still face
// outwards with outward normals
static void testScaleAndMirror(void) {
  static const double scales[][3] = {
      {2, 3, 4}, {-1, 2, 3}, {1, -2, 1}, {-1, -1, 1}, {-0.5, -0.5, -0.5}, {0.001, 0.001, 0.001}};
  for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
    hsmMeshPart *p = readFixture("cube_binary.stl", scales[i], 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    checkCube(&p->mesh, scales[i]);
    hsm_freeMeshParts(p, 1);
  }
  // the face at x = -1 of the mirrored cube has the normal -x
  double mirror[3] = {-1, 1, 1};
  hsmMeshPart *p = readFixture("cube_binary.stl", mirror, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  int seen = 0;
  for (int t = 0; t < p->mesh.ntriangle; t++) {
    double a[3], b[3], c[3], n[3];
    cornerOf(&p->mesh, t, 0, a);
    cornerOf(&p->mesh, t, 1, b);
    cornerOf(&p->mesh, t, 2, c);
    if (a[0] == -1 && b[0] == -1 && c[0] == -1) {
      cornerNormal(&p->mesh, t, 0, n);
      HST_NEAR(n[0], -1, 1e-7);
      seen++;
    }
  }
  CU_ASSERT_EQUAL(seen, 2);
  hsm_freeMeshParts(p, 1);
  // a non-uniform, mirroring scale turns the slanted face of the tetrahedron: its normal is
  // (1, 1, 1) transformed by the inverse transpose, i.e. (1, 1/2, -1/4) normalised
  double stretch[3] = {1, 2, -4};
  p = readFixture("tetra_ascii.stl", stretch, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT(findVertex(&p->mesh, 0, 2, 0, 0) >= 0);
  CU_ASSERT(findVertex(&p->mesh, 0, 0, -4, 0) >= 0);
  CU_ASSERT_TRUE(isClosed(&p->mesh));
  HST_NEAR(volumeOf(&p->mesh), 8.0 / 6, 1e-6);
  checkFlatNormals(&p->mesh, 1e-6);
  int slanted = 0;
  for (int i = 0; i < p->mesh.nnormal; i++) {
    const float *n = &p->mesh.normals[3 * i];
    slanted += fabs(n[0] - 1 / sqrt(1.3125)) < 1e-6 && fabs(n[1] - 0.5 / sqrt(1.3125)) < 1e-6 &&
               fabs(n[2] + 0.25 / sqrt(1.3125)) < 1e-6;
  }
  CU_ASSERT_EQUAL(slanted, 1);
  hsm_freeMeshParts(p, 1);
}

//---------------------------------- COLLADA ---------------------------------------------------

// 1000 x 2000 x 3000 mm, z up: 1 x 2 x 3 m with the long side along z; quads become triangles
static void testColladaUnits(void) {
  hsmMeshPart *p = readFixture("box_mm_zup.dae", NULL, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  double size[3] = {1, 2, 3};
  checkCube(&p->mesh, size);
  CU_ASSERT(findVertex(&p->mesh, 0, 0, 3, 1e-6) >= 0);
  // its material: shininess 32 / 128, ambient half the diffuse colour
  CU_ASSERT_EQUAL(p->hasMaterial, 1);
  const hsMaterial *m = &p->material;
  HST_NEAR(m->diffuseColor[0], 0.1, 1e-7);
  HST_NEAR(m->diffuseColor[1], 0.2, 1e-7);
  HST_NEAR(m->diffuseColor[2], 0.3, 1e-7);
  HST_NEAR(m->specularColor[1], 0.5, 1e-7);
  HST_NEAR(m->emissiveColor[0], 0.25, 1e-7);
  HST_NEAR(m->emissiveColor[1], 0, 1e-7);
  HST_NEAR(m->shininess, 0.25, 1e-7);
  HST_NEAR(m->ambientIntensity, 0.5, 1e-6);
  HST_NEAR(m->transparency, 0, 1e-7);
  CU_ASSERT_PTR_NULL(p->texture);
  hsm_freeMeshParts(p, 1);
  // the caller's scale comes on top of the unit
  double half[3] = {0.5, 0.5, 0.5};
  p = readFixture("box_mm_zup.dae", half, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  double halfSize[3] = {0.5, 1, 1.5};
  checkCube(&p->mesh, halfSize);
  hsm_freeMeshParts(p, 1);
}

// the same tetrahedron authored z up, y up and x up reads the same
static void testColladaUpAxis(void) {
  static const char *files[] = {"tetra_zup.dae", "tetra_yup.dae", "tetra_xup.dae"};
  for (int i = 0; i < 3; i++) {
    hsmMeshPart *p = readFixture(files[i], NULL, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    checkTetra(&p->mesh);
    checkPlain(p);
    hsm_freeMeshParts(p, 1);
  }
}

// check triangle 0 of m has corners a, b, c in this order and corner normal n
static void checkTriangle(const hsmMesh *m, const double a[3], const double b[3],
                          const double c[3], const double n[3]) {
  CU_ASSERT_EQUAL_FATAL(m->ntriangle, 1);
  CU_ASSERT_EQUAL(m->nvertex, 3);
  const double *want[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    double p[3], nk[3];
    cornerOf(m, 0, k, p);
    cornerNormal(m, 0, k, nk);
    for (int j = 0; j < 3; j++) {
      HST_NEAR(p[j], want[k][j], 1e-6);
      HST_NEAR(nk[j], n[j], 1e-6);
    }
  }
  checkFlatNormals(m, 1e-6);
}

// one triangle (0,0,0) (1,0,0) (0,0,1) with normal -y, placed by three nodes, in file order
static void testNodeTransforms(void) {
  hsmMeshPart *p = readFixture("nodes.dae", NULL, 3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  // translated by (1, 2, 3)
  checkTriangle(&p[0].mesh, (double[]){1, 2, 3}, (double[]){2, 2, 3}, (double[]){1, 2, 4},
                (double[]){0, -1, 0});
  // turned 90 degrees about z ((x, y, z) -> (-y, x, z)), then raised by 1
  checkTriangle(&p[1].mesh, (double[]){0, 0, 1}, (double[]){0, 1, 1}, (double[]){0, 0, 2},
                (double[]){1, 0, 0});
  // mirrored in x: corners 1 and 2 swap so the triangle still faces -y
  checkTriangle(&p[2].mesh, (double[]){0, 0, 0}, (double[]){0, 0, 1}, (double[]){-1, 0, 0},
                (double[]){0, -1, 0});
  hsm_freeMeshParts(p, 3);
}

//---------------------------------- OBJ -------------------------------------------------------

static void testObjMaterialAndTexture(void) {
  hsmMeshPart *p = readFixture("textured.obj", NULL, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  const hsmMesh *m = &p->mesh;
  CU_ASSERT_EQUAL(m->nvertex, 4);
  CU_ASSERT_EQUAL_FATAL(m->ntriangle, 2);  // the quad, triangulated
  CU_ASSERT_EQUAL(m->nnormal, 1);
  checkFlatNormals(m, 1e-7);
  // texture coordinates equal (x, y) at every corner
  CU_ASSERT_EQUAL(m->ntexCoord, 4);
  CU_ASSERT_EQUAL_FATAL(m->ntexCoordIndex, 6);
  for (int t = 0; t < 2; t++) {
    for (int k = 0; k < 3; k++) {
      double pos[3], st[2];
      cornerOf(m, t, k, pos);
      cornerTex(m, t, k, st);
      CU_ASSERT_EQUAL(st[0], pos[0]);
      CU_ASSERT_EQUAL(st[1], pos[1]);
    }
  }
  // colours are exact binary fractions in the .mtl; Ns 64 -> 0.5, d 0.75 -> 0.25, Ka = Kd / 2
  CU_ASSERT_EQUAL(p->hasMaterial, 1);
  const hsMaterial *mat = &p->material;
  CU_ASSERT_EQUAL(mat->diffuseColor[0], 0.25f);
  CU_ASSERT_EQUAL(mat->diffuseColor[1], 0.5f);
  CU_ASSERT_EQUAL(mat->diffuseColor[2], 0.75f);
  CU_ASSERT_EQUAL(mat->specularColor[2], 0.5f);
  CU_ASSERT_EQUAL(mat->emissiveColor[0], 0.125f);
  CU_ASSERT_EQUAL(mat->emissiveColor[2], 0.5f);
  CU_ASSERT_EQUAL(mat->shininess, 0.5f);
  CU_ASSERT_EQUAL(mat->transparency, 0.25f);
  CU_ASSERT_EQUAL(mat->ambientIntensity, 0.5f);
  // the texture, resolved against the .obj's directory
  CU_ASSERT_PTR_NOT_NULL_FATAL(p->texture);
  CU_ASSERT_STRING_EQUAL(p->texture, fixture("textures/checker.png"));
  CU_ASSERT_EQUAL(p->texture[0], '/');
  CU_ASSERT_EQUAL(access(p->texture, R_OK), 0);
  hsm_freeMeshParts(p, 1);
}

// texture names: Windows separators, file:// URLs, absolute paths, embedded images
static void testTexturePaths(void) {
  static const struct {
    const char *name;  // as written in the .mtl
    const char *want;  // the path expected, NULL for no texture
    int relative;      // 1: want is relative to the .obj's directory
  } cases[] = {{"img\\a b.png", "img/a b.png", 1},
               {"./b.png", "b.png", 1},
               {"/opt/tex/c.png", "/opt/tex/c.png", 0},
               {"file:///opt/tex/d.png", "/opt/tex/d.png", 0},
               {"*0", NULL, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char mtl[256];
    snprintf(mtl, sizeof mtl, "newmtl m\nKd 1 1 1\nmap_Kd %s\n", cases[i].name);
    hst_writeFile("tex/sub/t.mtl", mtl);
    const char *obj = hst_writeFile(
        "tex/sub/t.obj", "mtllib t.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n");
    hsmMeshPart *p = NULL;
    int n = 0;
    hsError err = {0};
    CU_ASSERT_EQUAL_FATAL(hsm_readMeshFile(obj, NULL, NULL, &p, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    char want[1024];
    if (cases[i].want) {
      snprintf(want, sizeof want, "%s%s", cases[i].relative ? hst_tmpDir() : "",
               cases[i].relative ? "/tex/sub/" : "");
      strcat(want, cases[i].want);
      CU_ASSERT_PTR_NOT_NULL_FATAL(p->texture);
      CU_ASSERT_STRING_EQUAL(p->texture, want);
    } else {
      CU_ASSERT_PTR_NULL(p->texture);
    }
    hsm_freeMeshParts(p, n);
  }
}

// two materials give two parts; the line and the point are dropped
static void testMultipleParts(void) {
  hsmMeshPart *p = readFixture("two_materials.obj", NULL, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  for (int i = 0; i < 2; i++) {
    const hsmMesh *m = &p[i].mesh;
    CU_ASSERT_EQUAL(m->nvertex, 3);
    CU_ASSERT_EQUAL(m->ntriangle, 1);
    // the file has no normals: none are made up
    CU_ASSERT_EQUAL(m->nnormal, 0);
    CU_ASSERT_PTR_NULL(m->normals);
    CU_ASSERT_PTR_NULL(m->normalIndices);
    CU_ASSERT_EQUAL(p[i].hasMaterial, 1);
    CU_ASSERT_PTR_NULL(p[i].texture);
    double a[3];
    areaVector(m, 0, a);
    HST_NEAR(a[2], 1, 1e-7);  // ccw seen from +z
    CU_ASSERT(findVertex(m, 0, 0, i, 0) >= 0);
    CU_ASSERT(findVertex(m, 1, 0, i, 0) >= 0);
    CU_ASSERT(findVertex(m, 0, 1, i, 0) >= 0);
  }
  const float red[3] = {1, 0, 0}, blue[3] = {0, 0, 1};
  CU_ASSERT_EQUAL(memcmp(p[0].material.diffuseColor, red, sizeof red), 0);
  CU_ASSERT_EQUAL(memcmp(p[1].material.diffuseColor, blue, sizeof blue), 0);
  hsm_freeMeshParts(p, 2);
}

//---------------------------------- errors ----------------------------------------------------

// read path, which must fail with code and a message naming the path (and containing also, if
// not NULL)
static void checkFails(const char *path, const double scale[3], int code, const char *also) {
  hsmMeshPart *p = (hsmMeshPart *)&p;  // anything but NULL: must be reset
  int n = 7;
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_readMeshFile(path, scale, NULL, &p, &n, &err), code);
  CU_ASSERT_EQUAL(err.code, code);
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
  if (also && !strstr(err.message, also)) {
    fprintf(stderr, "\n  '%s' lacks '%s'\n", err.message, also);
    CU_FAIL("error message");
  }
}

static void testErrors(void) {
  checkFails(fixture("no_such_mesh.stl"), NULL, hsE_IO, strerror(ENOENT));
  checkFails(fixture(""), NULL, hsE_IO, "not a regular file");  // a directory
  checkFails(hst_writeFile("empty.stl", ""), NULL, hsE_MODEL, "empty");
  checkFails(hst_writeFile("garbage.stl", "this is not a mesh\n"), NULL, hsE_MODEL, NULL);
  checkFails(hst_writeFile("garbage.dae", "<?xml version=\"1.0\"?>\n<COLLADA><asset>"), NULL,
             hsE_MODEL, NULL);
  checkFails(hst_writeFile("garbage.xyz", "\x01\x02\x03 binary noise\n"), NULL, hsE_MODEL, NULL);
  checkFails(fixture("lines_only.obj"), NULL, hsE_MODEL, NULL);
  // an OBJ whose only face is a line
  checkFails(hst_writeFile("no_faces.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"), NULL, hsE_MODEL, NULL);
  // bad scales
  checkFails(fixture("cube_binary.stl"), (double[]){1, 0, 1}, hsE_INVALID, "scale");
  checkFails(fixture("cube_binary.stl"), (double[]){1, NAN, 1}, hsE_INVALID, "scale");
  // an unreadable file (root reads anything, so only as another user)
  if (geteuid() != 0) {
    const char *path = hst_writeFile("secret.stl", "solid x\nendsolid x\n");
    chmod(path, 0);
    checkFails(path, NULL, hsE_IO, strerror(EACCES));
  }
  // missing arguments; err may be NULL
  hsmMeshPart *p = NULL;
  int n = 0;
  hsError err = {0};
  CU_ASSERT_EQUAL(hsm_readMeshFile(NULL, NULL, NULL, &p, &n, &err), hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_readMeshFile(fixture("cube_binary.stl"), NULL, NULL, NULL, &n, NULL),
                  hsE_INVALID);
  CU_ASSERT_EQUAL(hsm_readMeshFile(fixture("no_such_mesh.stl"), NULL, NULL, &p, &n, NULL), hsE_IO);
  hsm_freeMeshParts(NULL, 0);
}

// each of our allocations failing in turn: hsE_NOMEM, nothing returned, nothing leaked
static void testAllocFailure(void) {
  static const char *files[] = {"two_materials.obj", "textured.obj", "nodes.dae"};
  for (int f = 0; f < 3; f++) {
    int failures = 0, done = 0;
    for (long k = 1; k < 200 && !done; k++) {
      hsmMeshPart *p = NULL;
      int n = 0;
      hsError err = {0};
      hsu_failAllocAfter(k);
      int rc = hsm_readMeshFile(fixture(files[f]), NULL, NULL, &p, &n, &err);
      hsu_failAllocAfter(0);
      if (rc == 0) {
        CU_ASSERT(n >= 1);
        hsm_freeMeshParts(p, n);
        done = 1;
        break;
      }
      failures++;
      CU_ASSERT_EQUAL(rc, hsE_NOMEM);
      CU_ASSERT_EQUAL(err.code, hsE_NOMEM);
      CU_ASSERT_PTR_NULL(p);
      CU_ASSERT_EQUAL(n, 0);
      CU_ASSERT_PTR_NOT_NULL(strstr(err.message, files[f]));
    }
    CU_ASSERT_TRUE(done);
    CU_ASSERT(failures >= 5);
  }
}

//---------------------------------- threads ---------------------------------------------------

typedef struct ThreadJob {
  int index;
  int wrong;  // results that differed from the expected ones
} ThreadJob;

// read good and bad files in turn, counting unexpected results
static void *readInThread(void *arg) {
  ThreadJob *job = arg;
  static const struct {
    const char *name;
    int rc, nparts;
  } files[] = {{"cube_binary.stl", 0, 1}, {"garbage.stl", hsE_MODEL, 0},
               {"nodes.dae", 0, 3},       {"lines_only.obj", hsE_MODEL, 0},
               {"textured.obj", 0, 1}};
  for (int i = 0; i < 20; i++) {
    int f = (i + job->index) % 5;
    char path[1024];
    if (strcmp(files[f].name, "garbage.stl") == 0) {
      snprintf(path, sizeof path, "%s/garbage.stl", hst_tmpDir());
    } else {
      snprintf(path, sizeof path, "%s/meshes/%s", HST_DATA_DIR, files[f].name);
    }
    hsmLimits lim = {0};
#ifdef __SANITIZE_ADDRESS__
    // AddressSanitizer's allocator (GCC 12) has no fork handlers: a child forked while another
    // thread holds its lock hangs in its first malloc (seen: the import timing out after 60 s).
    // glibc's malloc, which the real servers use, is safe across fork; here the threads import
    // in process instead, and the plain and valgrind runs cover the forked path
    lim.meshInProcess = 1;
#endif
    hsmMeshPart *p = NULL;
    int n = 0;
    hsError err = {0};
    int rc = hsm_readMeshFile(path, NULL, &lim, &p, &n, &err);
    job->wrong += rc != files[f].rc || n != files[f].nparts ||
                  (rc != 0 && !strstr(err.message, path));
    hsm_freeMeshParts(p, n);
  }
  return NULL;
}

static void testConcurrentReads(void) {
  hst_writeFile("garbage.stl", "this is not a mesh\n");
  enum { kThreads = 4 };
  pthread_t threads[kThreads];
  ThreadJob jobs[kThreads];
  for (int i = 0; i < kThreads; i++) {
    jobs[i] = (ThreadJob){i, 0};
    CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, readInThread, &jobs[i]), 0);
  }
  for (int i = 0; i < kThreads; i++) {
    pthread_join(threads[i], NULL);
    CU_ASSERT_EQUAL(jobs[i].wrong, 0);
  }
}

void register_meshfile(void) {
  CU_pSuite s = hst_addSuite("meshfile");
  CU_add_test(s, "ASCII STL tetrahedron", testAsciiStl);
  CU_add_test(s, "degenerate triangles", testDegenerateTriangles);
  CU_add_test(s, "binary STL cube", testBinaryStl);
  CU_add_test(s, "scale and mirroring", testScaleAndMirror);
  CU_add_test(s, "COLLADA unit (mm) and material", testColladaUnits);
  CU_add_test(s, "COLLADA Z_UP, Y_UP, X_UP", testColladaUpAxis);
  CU_add_test(s, "COLLADA node transforms", testNodeTransforms);
  CU_add_test(s, "OBJ material and texture", testObjMaterialAndTexture);
  CU_add_test(s, "texture paths", testTexturePaths);
  CU_add_test(s, "several parts", testMultipleParts);
  CU_add_test(s, "errors", testErrors);
  CU_add_test(s, "allocation failure", testAllocFailure);
  CU_add_test(s, "concurrent reads", testConcurrentReads);
}
