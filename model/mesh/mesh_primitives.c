// mesh_primitives.c - triangle meshes of the VRML97 primitives (Box, Sphere, Cylinder, Cone), and
// hsm_freeMesh.
//
// Each builder computes its exact counts, allocates every array once, then fills positions,
// analytic normals and VRML97's default texture coordinates. Triangles are counter-clockwise
// seen from outside. The round shapes have their axis along y and are centred on the origin.
// Around the axis, slice j sits at the angle theta = 2 pi j / slices, measured as VRML's texture
// mapping measures it: theta = 0 on the -z axis, growing counter-clockwise seen from +y, so a
// point at radius r is (-r sin theta, y, -r cos theta) and s = theta / (2 pi).
//
// Tessellation (exact counts, checked by the tests):
//   Box: 8 vertices, 12 triangles (each face split along one diagonal).
//   Sphere(slices >= 3, stacks >= 2): the poles are single vertices, with stacks - 1 rings of
//     `slices` vertices between them: 2 + slices (stacks - 1) vertices, 2 slices (stacks - 1)
//     triangles (slices at each pole, 2 slices per band between rings).
//   Cylinder(slices >= 3): one ring of `slices` vertices at each end that the side needs or the
//     cap there; the side has 2 slices triangles and each cap is a fan from the ring's first
//     vertex without a centre point, slices - 2 triangles.
//   Cone(slices >= 3): a base ring of `slices` vertices and, with the side, one apex vertex; the
//     side has `slices` triangles, the bottom cap slices - 2 (a fan without centre).
//
// Attributes: normals are per vertex (3 indices per triangle, normalPerVertex 1): face normals
// on flat parts, radial normals on round parts; a cone's apex corner takes the side normal
// half-way between its triangle's two base corners. Texture coordinates (3 indices per
// triangle) follow VRML97: each box face shows the whole image upright seen from outside (top
// with -z up, bottom with +z up); sphere and round sides wrap s from the -z seam with t = 0 at
// the bottom and 1 at the top (pole corners take the s of their slice's middle); caps cut a disc
// out of the image, the top upright when tilted towards +z, the bottom when tilted towards -z.

#include <math.h>
#include <string.h>

#include "mesh.h"

// a bound on the number of triangles a primitive may have (keeps every count in an int)
static const long kMaxTriangles = 50000000;

void hsm_freeMesh(hsmMesh *mesh) {
  if (!mesh) {
    return;
  }
  hsu_free(mesh->vertices);
  hsu_free(mesh->triangles);
  hsu_free(mesh->normals);
  hsu_free(mesh->normalIndices);
  hsu_free(mesh->colors);
  hsu_free(mesh->colorIndices);
  hsu_free(mesh->texCoords);
  hsu_free(mesh->texCoordIndices);
  memset(mesh, 0, sizeof *mesh);
}

// a mesh being filled, with write cursors
typedef struct Writer {
  hsmMesh *m;
  int nv, nt, nn, ntc;  // entries written
} Writer;

// allocate a mesh of exactly these counts (normal and texture indices per corner)
static int allocMesh(Writer *w, hsmMesh *m, int nv, int nt, int nn, int ntc, hsError *err) {
  memset(m, 0, sizeof *m);
  memset(w, 0, sizeof *w);
  w->m = m;
  m->vertices = hsu_malloc(3 * (size_t)nv * sizeof(float));
  m->triangles = hsu_malloc(3 * (size_t)nt * sizeof(int));
  m->normals = hsu_malloc(3 * (size_t)nn * sizeof(float));
  m->normalIndices = hsu_malloc(3 * (size_t)nt * sizeof(int));
  m->texCoords = hsu_malloc(2 * (size_t)ntc * sizeof(float));
  m->texCoordIndices = hsu_malloc(3 * (size_t)nt * sizeof(int));
  if (!m->vertices || !m->triangles || !m->normals || !m->normalIndices || !m->texCoords ||
      !m->texCoordIndices) {
    hsm_freeMesh(m);
    return HS_ERR(err, hsE_NOMEM, "out of memory for a mesh of %d triangles", nt);
  }
  m->nvertex = nv;
  m->ntriangle = nt;
  m->nnormal = nn;
  m->nnormalIndex = 3 * nt;
  m->normalPerVertex = 1;
  m->colorPerVertex = 1;
  m->ntexCoord = ntc;
  m->ntexCoordIndex = 3 * nt;
  return 0;
}

static int addVertex(Writer *w, double x, double y, double z) {
  float *v = w->m->vertices + 3 * w->nv;
  v[0] = (float)x, v[1] = (float)y, v[2] = (float)z;
  return w->nv++;
}

static int addNormal(Writer *w, double x, double y, double z) {
  float *v = w->m->normals + 3 * w->nn;
  v[0] = (float)x, v[1] = (float)y, v[2] = (float)z;
  return w->nn++;
}

static int addTexCoord(Writer *w, double s, double t) {
  float *v = w->m->texCoords + 2 * w->ntc;
  v[0] = (float)s, v[1] = (float)t;
  return w->ntc++;
}

// one triangle: vertex, normal and texture coordinate index of each corner
static void addTriangle(Writer *w, const int v[3], const int n[3], const int t[3]) {
  for (int k = 0; k < 3; k++) {
    w->m->triangles[3 * w->nt + k] = v[k];
    w->m->normalIndices[3 * w->nt + k] = n[k];
    w->m->texCoordIndices[3 * w->nt + k] = t[k];
  }
  w->nt++;
}

// every array filled exactly
static void checkFull(const Writer *w) {
  HS_ASSERT(w->nv == w->m->nvertex && w->nt == w->m->ntriangle && w->nn == w->m->nnormal &&
            w->ntc == w->m->ntexCoord);
}

// 1 if x is a finite number, zero or above (a zero size gives a flat or degenerate mesh, as
// OpenHRP makes it: OpenHRP's plane.wrl is a Box of zero thickness)
static int nonNegative(double x) {
  return x >= 0 && isfinite(x);
}

//---------------------------------- box -------------------------------------------------------

int hsm_meshBox(hsmMesh *mesh, const double size[3], hsError *err) {
  if (!mesh || !size) {
    return HS_ERR(err, hsE_INVALID, "Box: no mesh or size given");
  }
  if (!nonNegative(size[0]) || !nonNegative(size[1]) || !nonNegative(size[2])) {
    return HS_ERR(err, hsE_INVALID, "Box size %g %g %g must not be negative", size[0], size[1],
                  size[2]);
  }
  // vertex i has x, y, z on the + side when bit 0, 1, 2 of i is set
  // each face: bottom-left, bottom-right, top-right, top-left seen from outside with VRML's up
  static const int kFaces[6][4] = {
      {5, 1, 3, 7},  // +x: right is -z
      {0, 4, 6, 2},  // -x: right is +z
      {6, 7, 3, 2},  // +y: seen from above with -z up
      {0, 1, 5, 4},  // -y: seen from below with +z up
      {4, 5, 7, 6},  // +z: right is +x
      {1, 0, 2, 3},  // -z: right is -x
  };
  static const double kNormals[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                        {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  Writer w;
  if (allocMesh(&w, mesh, 8, 12, 6, 4, err)) {
    return hsE_NOMEM;
  }
  for (int i = 0; i < 8; i++) {
    addVertex(&w, (i & 1 ? 0.5 : -0.5) * size[0], (i & 2 ? 0.5 : -0.5) * size[1],
              (i & 4 ? 0.5 : -0.5) * size[2]);
  }
  addTexCoord(&w, 0, 0);
  addTexCoord(&w, 1, 0);
  addTexCoord(&w, 1, 1);
  addTexCoord(&w, 0, 1);
  for (int f = 0; f < 6; f++) {
    const int *q = kFaces[f];
    int n = addNormal(&w, kNormals[f][0], kNormals[f][1], kNormals[f][2]);
    int nn[3] = {n, n, n};
    addTriangle(&w, (int[3]){q[0], q[1], q[2]}, nn, (int[3]){0, 1, 2});
    addTriangle(&w, (int[3]){q[0], q[2], q[3]}, nn, (int[3]){0, 2, 3});
  }
  checkFull(&w);
  return 0;
}

//---------------------------------- sphere ----------------------------------------------------

int hsm_meshSphere(hsmMesh *mesh, double r, int slices, int stacks, hsError *err) {
  if (!mesh) {
    return HS_ERR(err, hsE_INVALID, "Sphere: no mesh given");
  }
  if (!nonNegative(r)) {
    return HS_ERR(err, hsE_INVALID, "Sphere radius %g must not be negative", r);
  }
  if (slices < 3 || stacks < 2 || 2L * slices * (stacks - 1) > kMaxTriangles ||
      (long)(slices + 1) * (stacks + 1) > kMaxTriangles) {
    return HS_ERR(err, hsE_INVALID,
                  "Sphere tessellation of %d slices and %d stacks is out of range (at least 3 "
                  "slices and 2 stacks)",
                  slices, stacks);
  }
  int nring = stacks - 1;
  int nv = 2 + slices * nring;
  Writer w;
  if (allocMesh(&w, mesh, nv, 2 * slices * nring, nv, (stacks + 1) * (slices + 1), err)) {
    return hsE_NOMEM;
  }
  // vertices (normals share their indices): north pole, rings from the top, south pole
  addVertex(&w, 0, r, 0);
  addNormal(&w, 0, 1, 0);
  // the slice angles' sines and cosines once (the same values as computed in the loop)
  enum { kTable = 256 };
  double sinTh[kTable], cosTh[kTable];
  for (int j = 0; j < slices && j < kTable; j++) {
    double th = 2 * HS_PI * j / slices;
    sinTh[j] = sin(th), cosTh[j] = cos(th);
  }
  for (int k = 1; k <= nring; k++) {
    double phi = HS_PI * k / stacks, y = cos(phi), rho = sin(phi);
    for (int j = 0; j < slices; j++) {
      double th = 2 * HS_PI * j / slices;
      double st = j < kTable ? sinTh[j] : sin(th), ct = j < kTable ? cosTh[j] : cos(th);
      double x = -rho * st, z = -rho * ct;
      addVertex(&w, r * x, r * y, r * z);
      addNormal(&w, x, y, z);
    }
  }
  addVertex(&w, 0, -r, 0);
  addNormal(&w, 0, -1, 0);
  // texture coordinates: row k (0 = north pole) of slices + 1 columns, s = 1 closing the seam
  for (int k = 0; k <= stacks; k++) {
    for (int j = 0; j <= slices; j++) {
      double s = (k == 0 || k == stacks) ? (j + 0.5) / slices : (double)j / slices;
      addTexCoord(&w, s, 1 - (double)k / stacks);
    }
  }
  int south = nv - 1;
#define RING(k, j) (1 + ((k)-1) * slices + (j) % slices)
#define TEX(k, j) ((k) * (slices + 1) + (j))
  for (int j = 0; j < slices; j++) {
    int v[3] = {0, RING(1, j), RING(1, j + 1)};
    addTriangle(&w, v, v, (int[3]){TEX(0, j), TEX(1, j), TEX(1, j + 1)});
  }
  for (int k = 1; k < nring; k++) {
    for (int j = 0; j < slices; j++) {
      // a = upper left, b = lower left, c = lower right, d = upper right seen from outside
      int a = RING(k, j), b = RING(k + 1, j), c = RING(k + 1, j + 1), d = RING(k, j + 1);
      int ta = TEX(k, j), tb = TEX(k + 1, j), tc = TEX(k + 1, j + 1), td = TEX(k, j + 1);
      addTriangle(&w, (int[3]){a, b, c}, (int[3]){a, b, c}, (int[3]){ta, tb, tc});
      addTriangle(&w, (int[3]){a, c, d}, (int[3]){a, c, d}, (int[3]){ta, tc, td});
    }
  }
  for (int j = 0; j < slices; j++) {
    int v[3] = {RING(nring, j), south, RING(nring, j + 1)};
    addTriangle(&w, v, v, (int[3]){TEX(nring, j), TEX(stacks, j), TEX(nring, j + 1)});
  }
#undef RING
#undef TEX
  checkFull(&w);
  return 0;
}

//---------------------------------- cylinder and cone -----------------------------------------

// add a ring of `slices` vertices at height y and radius r; returns the first index
static int addRing(Writer *w, double r, double y, int slices) {
  int first = w->nv;
  for (int j = 0; j < slices; j++) {
    double th = 2 * HS_PI * j / slices;
    addVertex(w, -r * sin(th), y, -r * cos(th));
  }
  return first;
}

// add a flat cap over a ring: its normal, its disc texture coordinates and its fan of
// triangles; up selects the top cap (normal +y, texture upright when tilted towards +z)
static void addCap(Writer *w, int ring, int slices, int up) {
  int n = addNormal(w, 0, up ? 1 : -1, 0);
  int tex = w->ntc;
  for (int j = 0; j < slices; j++) {
    double th = 2 * HS_PI * j / slices;
    // s = 0.5 + x / 2r; t = 0.5 - z / 2r on top, 0.5 + z / 2r at the bottom
    addTexCoord(w, 0.5 - 0.5 * sin(th), up ? 0.5 + 0.5 * cos(th) : 0.5 - 0.5 * cos(th));
  }
  int nn[3] = {n, n, n};
  for (int j = 1; j + 1 < slices; j++) {
    // counter-clockwise seen from +y is increasing theta; the bottom runs the other way
    int b = up ? j : j + 1, c = up ? j + 1 : j;
    addTriangle(w, (int[3]){ring, ring + b, ring + c}, nn, (int[3]){tex, tex + b, tex + c});
  }
}

// check a round primitive's radius, height and slices
static int checkRound(const char *what, double r, double h, int slices, hsError *err) {
  if (!nonNegative(r) || !nonNegative(h)) {
    return HS_ERR(err, hsE_INVALID, "%s radius %g and height %g must not be negative", what, r,
                  h);
  }
  if (slices < 3 || slices > kMaxTriangles / 4) {
    return HS_ERR(err, hsE_INVALID, "%s tessellation of %d slices is out of range (at least 3)",
                  what, slices);
  }
  return 0;
}

int hsm_meshCylinder(hsmMesh *mesh, double r, double height, int top, int bottom, int side,
                     int slices, hsError *err) {
  if (!mesh) {
    return HS_ERR(err, hsE_INVALID, "Cylinder: no mesh given");
  }
  if (checkRound("Cylinder", r, height, slices, err)) {
    return hsE_INVALID;
  }
  top = !!top, bottom = !!bottom, side = !!side;
  int ringB = side || bottom, ringT = side || top;
  int nv = slices * (ringB + ringT);
  int nt = side * 2 * slices + (top + bottom) * (slices - 2);
  int nn = side * slices + top + bottom;
  int ntc = side * 2 * (slices + 1) + (top + bottom) * slices;
  Writer w;
  if (allocMesh(&w, mesh, nv, nt, nn, ntc, err)) {
    return hsE_NOMEM;
  }
  double h2 = height / 2;
  int rb = ringB ? addRing(&w, r, -h2, slices) : -1;
  int rt = ringT ? addRing(&w, r, h2, slices) : -1;
  if (side) {
    int n0 = w.nn, t0 = w.ntc;
    for (int j = 0; j < slices; j++) {
      double th = 2 * HS_PI * j / slices;
      addNormal(&w, -sin(th), 0, -cos(th));
    }
    // texture columns j = 0..slices, bottom row then top row
    for (int row = 0; row < 2; row++) {
      for (int j = 0; j <= slices; j++) {
        addTexCoord(&w, (double)j / slices, row);
      }
    }
    for (int j = 0; j < slices; j++) {
      int j1 = (j + 1) % slices;
      // a = top left, b = bottom left, c = bottom right, d = top right seen from outside
      int a = rt + j, b = rb + j, c = rb + j1, d = rt + j1;
      int na = n0 + j, nd = n0 + j1;
      int ta = t0 + slices + 1 + j, tb = t0 + j, tc = t0 + j + 1, td = t0 + slices + 2 + j;
      addTriangle(&w, (int[3]){a, b, c}, (int[3]){na, na, nd}, (int[3]){ta, tb, tc});
      addTriangle(&w, (int[3]){a, c, d}, (int[3]){na, nd, nd}, (int[3]){ta, tc, td});
    }
  }
  if (top) {
    addCap(&w, rt, slices, 1);
  }
  if (bottom) {
    addCap(&w, rb, slices, 0);
  }
  checkFull(&w);
  return 0;
}

int hsm_meshCone(hsmMesh *mesh, double bottomRadius, double height, int bottom, int side,
                 int slices, hsError *err) {
  if (!mesh) {
    return HS_ERR(err, hsE_INVALID, "Cone: no mesh given");
  }
  if (checkRound("Cone", bottomRadius, height, slices, err)) {
    return hsE_INVALID;
  }
  bottom = !!bottom, side = !!side;
  int ring = side || bottom;
  int nv = slices * ring + side;
  int nt = side * slices + bottom * (slices - 2);
  int nn = side * 2 * slices + bottom;
  int ntc = side * (2 * slices + 1) + bottom * slices;
  Writer w;
  if (allocMesh(&w, mesh, nv, nt, nn, ntc, err)) {
    return hsE_NOMEM;
  }
  double h2 = height / 2, r = bottomRadius;
  int rb = ring ? addRing(&w, r, -h2, slices) : -1;
  if (side) {
    int apex = addVertex(&w, 0, h2, 0);
    // the side normal at angle theta is (h radial + r y) / sqrt(h^2 + r^2)
    double len = sqrt(height * height + r * r), hn = height / len, yn = r / len;
    int nBase = w.nn;
    for (int j = 0; j < slices; j++) {
      double th = 2 * HS_PI * j / slices;
      addNormal(&w, -hn * sin(th), yn, -hn * cos(th));
    }
    int nApex = w.nn;
    for (int j = 0; j < slices; j++) {
      double th = 2 * HS_PI * (j + 0.5) / slices;
      addNormal(&w, -hn * sin(th), yn, -hn * cos(th));
    }
    int tBase = w.ntc;
    for (int j = 0; j <= slices; j++) {
      addTexCoord(&w, (double)j / slices, 0);
    }
    int tApex = w.ntc;
    for (int j = 0; j < slices; j++) {
      addTexCoord(&w, (j + 0.5) / slices, 1);
    }
    for (int j = 0; j < slices; j++) {
      int j1 = (j + 1) % slices;
      addTriangle(&w, (int[3]){apex, rb + j, rb + j1}, (int[3]){nApex + j, nBase + j, nBase + j1},
                  (int[3]){tApex + j, tBase + j, tBase + j + 1});
    }
  }
  if (bottom) {
    addCap(&w, rb, slices, 0);
  }
  checkFull(&w);
  return 0;
}
