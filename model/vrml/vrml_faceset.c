// vrml_faceset.c - triangle meshes of IndexedFaceSet, ElevationGrid and Extrusion (VRML97).
//
// IndexedFaceSet: a first pass over coordIndex checks every index and counts polygons and an
// upper bound on triangles; the attribute index lists are checked against the same polygons;
// then one allocation per output array and a second pass that triangulates each polygon as
// OpenHRP 3.1's Triangulator does (so triangle lists match OpenHRP's, degenerate polygons
// included; `convex` is ignored, as there): a polygon of fewer than 3 points gives nothing, a
// triangle is kept as it is (even without area); a larger polygon is ear-clipped against its
// area vector ccs = sum (v_i - v_0) x (v_i+1 - v_0): scanning the remaining corners from the
// first, a corner i whose |a x b| / |a| + |b| < 1e-4 (a, b from the previous corner to it and
// to the next; OpenHRP's expression, precedence as written) is dropped without a triangle, a
// convex corner (ccs . (a x b) > 0) whose triangle strictly contains no other remaining corner
// is cut off as the triangle (previous, i, next), and the scan restarts; when no corner
// qualifies the rest of the polygon is dropped. The output is written, per triangle, as vertex
// indices and the attribute indices in OpenHRP's layout: 3 per triangle (per corner, same
// order) for per-vertex attributes, 1 per triangle for per-face ones (the face's index repeated
// for each of its triangles). Per-vertex indices come from xxxIndex at the corner's coordIndex
// position, else from coordIndex itself; per-face ones from xxxIndex[face], else the face
// number. Vertices are
// the Coordinate points unchanged (indices keep their meaning, unused points stay). With ccw
// FALSE every triangle's corners are reversed (as OpenHRP writes them), so output is always
// counter-clockwise seen from the front. An empty polygon (-1 -1) or one of 1 or 2 points counts
// as a face (per-face attributes stay aligned, as in OpenHRP) and gives no triangle. Without a
// Normal node, normals are generated with
// hsm_generateNormals(creaseAngle). Without a TextureCoordinate node no texture coordinates are
// produced (VRML's bounding-box default is left to the renderer).
//
// ElevationGrid: vertex i + j xDimension is (i xSpacing, height, j zSpacing); each cell gives two
// triangles split along its (i, j)-(i+1, j+1) diagonal, facing +y for ccw TRUE; texture
// coordinates are VRML's default s = i / (xDimension - 1), t = j / (zDimension - 1), indexed
// like the vertices; normals are generated with creaseAngle.
//
// Extrusion (VRML97 6.18): each spine point gets a spine-aligned cross-section plane (SCP):
// Y along the spine tangent (next - previous point), Z the normal of the spine's bend there
// ((next - this) x (previous - this)), flipped when it opposes the previous Z, X = Y x Z; ends
// of an open spine use their only segment for Y and their neighbour's Z; a closed spine (first
// point == last) joins them; points where the spine is straight take the previous defined Z
// (leading ones the first defined Z); coincident spine points share one SCP; a spine that is
// straight everywhere uses the rotation taking +y to its first segment (a half turn about x
// when that points down). A cross-section point (x, z) at spine point i is
// spine[i] + SCP (orientation[i] (scale[i].x x, 0, scale[i].z z)). A closed cross-section
// (first == last) shares its seam vertices; a closed spine whose last ring coincides with its
// first shares that ring and gets no caps (they would be inside). Caps are the cross-section
// polygon ear-clipped in 3D (convex is only a hint and is ignored), the begin cap facing away
// from the spine's start. Texture coordinates follow VRML97: sides s by cross-section arc
// length, t by spine arc length; caps map the cross-section's bounding box, larger side 0..1.

#include <math.h>
#include <string.h>

#include "vrml_geometry.h"

// a triangle whose |sin| of the corner angle is below this has no area
static const double kSinTol = 1e-10;
// points closer than this fraction of the data's extent are the same point (Extrusion)
static const double kSameTol = 1e-10;
// a bound on the number of triangles of one geometry (keeps counts in an int)
static const long kMaxTriangles = 200000000;

// 1 if the triangle a, b, c has no area
static int noArea(const double *a, const double *b, const double *c) {
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double w[3];
  hsu_cross(w, u, v);
  return hsu_dot(w, w) <= kSinTol * kSinTol * hsu_dot(u, u) * hsu_dot(v, v);
}

// 1 if x is a finite number above zero
static int positive(double x) {
  return x > 0 && isfinite(x);
}

// swap corners 1 and 2 of every triangle, in the triangles and in per-corner index lists
static void flipTriangles(hsmMesh *m) {
  int *lists[4] = {m->triangles, m->normalPerVertex && m->nnormalIndex ? m->normalIndices : NULL,
                   m->colorPerVertex && m->ncolorIndex ? m->colorIndices : NULL,
                   m->ntexCoordIndex ? m->texCoordIndices : NULL};
  for (int l = 0; l < 4; l++) {
    for (int t = 0; lists[l] && t < m->ntriangle; t++) {
      int tmp = lists[l][3 * t + 1];
      lists[l][3 * t + 1] = lists[l][3 * t + 2];
      lists[l][3 * t + 2] = tmp;
    }
  }
}

// copy n doubles to a new float array (NULL when out of memory)
static float *toFloats(const double *src, size_t n) {
  float *f = hsu_malloc(n * sizeof *f);
  for (size_t i = 0; f && i < n; i++) {
    f[i] = (float)src[i];
  }
  return f;
}

//---------------------------------- IndexedFaceSet --------------------------------------------

// how one attribute (normal, colour, texture coordinate) maps onto the polygons
typedef struct Attr {
  const char *name;  // "normal", "color", "texCoord"
  int count;         // values given; 0 when the attribute is absent
  const int *index;  // xxxIndex, NULL when empty
  int nindex;
  int perVertex;
  int *out;  // output index list (3 per triangle per vertex, 1 per face)
} Attr;

// the polygons of coordIndex
typedef struct Polygons {
  const int *ci;
  int nci;
  int nface;    // polygons
  long bound;   // sum over polygons of (points - 2)
  int maxSize;  // points in the largest polygon
} Polygons;

// first pass: check coordIndex and count
static int scanPolygons(Polygons *p, const hsmFaceSetInput *in, hsError *err) {
  memset(p, 0, sizeof *p);
  p->ci = in->coordIndex;
  p->nci = in->ncoordIndex;
  int start = 0;
  for (int i = 0; i <= p->nci; i++) {
    if (i < p->nci && p->ci[i] != -1) {
      if (p->ci[i] < 0 || p->ci[i] >= in->ncoord) {
        return HS_ERR(err, hsE_MODEL,
                      "coordIndex[%d] = %d is out of range: the coordinates have %d points", i,
                      p->ci[i], in->ncoord);
      }
      continue;
    }
    int len = i - start;
    if (i == p->nci && len == 0) {
      break;  // nothing after the last -1
    }
    p->nface++;
    p->bound += len > 2 ? len - 2 : 0;
    p->maxSize = len > p->maxSize ? len : p->maxSize;
    start = i + 1;
  }
  if (p->bound > kMaxTriangles) {
    return HS_ERR(err, hsE_MODEL, "IndexedFaceSet has too many triangles (%ld)", p->bound);
  }
  return 0;
}

// check an attribute's indices against the polygons
static int checkAttr(const Attr *a, const Polygons *p, hsError *err) {
  if (a->count == 0) {
    return 0;
  }
  if (!a->perVertex) {
    if (a->index) {
      if (a->nindex < p->nface) {
        return HS_ERR(err, hsE_MODEL, "%sIndex has %d entries for %d faces", a->name, a->nindex,
                      p->nface);
      }
      for (int f = 0; f < p->nface; f++) {
        if (a->index[f] < 0 || a->index[f] >= a->count) {
          return HS_ERR(err, hsE_MODEL, "%sIndex[%d] = %d is out of range: there are %d %ss",
                        a->name, f, a->index[f], a->count, a->name);
        }
      }
    } else if (p->nface > a->count) {
      return HS_ERR(err, hsE_MODEL, "%d faces but only %d %ss (one per face is needed)",
                    p->nface, a->count, a->name);
    }
    return 0;
  }
  for (int i = 0; i < p->nci; i++) {
    if (p->ci[i] == -1) {
      continue;
    }
    if (a->index) {
      if (i >= a->nindex) {
        return HS_ERR(err, hsE_MODEL, "%sIndex has %d entries, fewer than coordIndex (%d)",
                      a->name, a->nindex, p->nci);
      }
      if (a->index[i] < 0 || a->index[i] >= a->count) {
        return HS_ERR(err, hsE_MODEL, "%sIndex[%d] = %d is out of range: there are %d %ss",
                      a->name, i, a->index[i], a->count, a->name);
      }
    } else if (p->ci[i] >= a->count) {
      return HS_ERR(err, hsE_MODEL, "coordIndex[%d] = %d has no %s: there are %d %ss", i,
                    p->ci[i], a->name, a->count, a->name);
    }
  }
  return 0;
}

// the output triangles of a face set being built
typedef struct FaceOut {
  hsmMesh *m;
  const int *ci;
  Attr *attrs;  // 3 of them
} FaceOut;

// write the triangle with corners at coordIndex positions p0, p1, p2 of face f
static void emitFaceTriangle(FaceOut *o, int f, int p0, int p1, int p2) {
  int t = o->m->ntriangle++;
  int pos[3] = {p0, p1, p2};
  for (int k = 0; k < 3; k++) {
    o->m->triangles[3 * t + k] = o->ci[pos[k]];
  }
  for (int a = 0; a < 3; a++) {
    const Attr *at = o->attrs + a;
    if (!at->out) {
      continue;
    }
    if (!at->perVertex) {
      at->out[t] = at->index ? at->index[f] : f;
      continue;
    }
    for (int k = 0; k < 3; k++) {
      at->out[3 * t + k] = at->index ? at->index[pos[k]] : o->ci[pos[k]];
    }
  }
}

static void sub(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}

static void cross(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// scratch of the OpenHRP triangulation, sized for the largest polygon
typedef struct Clip {
  const double *X;      // coordinates, 3 per point
  const int *poly;      // the polygon's coordinate indices
  int *work;            // remaining corners (positions in poly)
  unsigned char *mask;  // per remaining position: part of the ear being tested
  double ccs[3];        // the polygon's area vector
} Clip;

static const double *corner(const Clip *c, int pos) {
  return c->X + 3 * c->poly[c->work[pos]];
}

// 1 if the ear at position i of m remaining corners strictly contains another remaining corner
static int earContainsOthers(Clip *c, int i, int m) {
  if (m <= 3) {
    return 0;
  }
  int prev = (i + m - 1) % m, next = (i + 1) % m;
  const double *a = corner(c, prev), *b = corner(c, i), *d = corner(c, next);
  c->mask[prev] = c->mask[i] = c->mask[next] = 1;
  int contains = 0;
  for (int j = 0; j < m && !contains; j++) {
    if (c->mask[j]) {
      continue;
    }
    const double *q = corner(c, j);
    double u[3], v[3], w[3];
    sub(u, a, q), sub(v, b, q), cross(w, u, v);
    if (dot(w, c->ccs) <= 0) {
      continue;
    }
    sub(u, b, q), sub(v, d, q), cross(w, u, v);
    if (dot(w, c->ccs) <= 0) {
      continue;
    }
    sub(u, d, q), sub(v, a, q), cross(w, u, v);
    contains = dot(w, c->ccs) > 0;
  }
  c->mask[prev] = c->mask[i] = c->mask[next] = 0;
  return contains;
}

// triangulate the polygon of n points as OpenHRP's Triangulator (see the file comment); tris
// gets 3 positions (0..n-1) per triangle; returns the number of triangles
static int clipOpenHrp(Clip *c, int n, int *tris) {
  if (n < 3) {
    return 0;
  }
  if (n == 3) {
    tris[0] = 0, tris[1] = 1, tris[2] = 2;
    return 1;
  }
  const double *o = c->X + 3 * c->poly[0];
  c->ccs[0] = c->ccs[1] = c->ccs[2] = 0;
  for (int i = 1; i < n - 1; i++) {
    double u[3], v[3], w[3];
    sub(u, c->X + 3 * c->poly[i], o);
    sub(v, c->X + 3 * c->poly[(i + 1) % n], o);
    cross(w, u, v);
    c->ccs[0] += w[0], c->ccs[1] += w[1], c->ccs[2] += w[2];
  }
  for (int i = 0; i < n; i++) {
    c->work[i] = i;
    c->mask[i] = 0;
  }
  int m = n, nt = 0;
  while (m >= 3) {
    int target = -1;
    for (int i = 0; i < m && target < 0; i++) {
      const double *p0 = corner(c, (i + m - 1) % m);
      double a[3], b[3], x[3];
      sub(a, corner(c, i), p0);
      sub(b, corner(c, (i + 1) % m), p0);
      cross(x, a, b);
      double na = sqrt(dot(a, a)), nb = sqrt(dot(b, b)), nx = sqrt(dot(x, x));
      if (nx / na + nb < 1.0e-4) {
        target = i;  // flat: dropped without a triangle
      } else if (dot(c->ccs, x) > 0.0 && !earContainsOthers(c, i, m)) {
        tris[3 * nt] = c->work[(i + m - 1) % m];
        tris[3 * nt + 1] = c->work[i];
        tris[3 * nt + 2] = c->work[(i + 1) % m];
        nt++;
        target = i;
      }
    }
    if (target < 0) {
      break;
    }
    for (int i = target + 1; i < m; i++) {
      c->work[i - 1] = c->work[i];
    }
    m--;
  }
  return nt;
}

// triangulate every polygon; clip and tris are scratch for the largest polygon
static void fillFaceSet(FaceOut *o, const hsmFaceSetInput *in, const Polygons *p, Clip *clip,
                        int *tris) {
  int start = 0, f = 0;
  for (int i = 0; i <= p->nci; i++) {
    if (i < p->nci && p->ci[i] != -1) {
      continue;
    }
    int n = i - start;
    if (i == p->nci && n == 0) {
      break;
    }
    clip->poly = p->ci + start;
    int nt = clipOpenHrp(clip, n, tris);
    for (int k = 0; k < nt; k++) {
      const int *t = tris + 3 * k;
      if (in->ccw) {
        emitFaceTriangle(o, f, start + t[0], start + t[1], start + t[2]);
      } else {
        emitFaceTriangle(o, f, start + t[2], start + t[1], start + t[0]);
      }
    }
    f++;
    start = i + 1;
  }
}

int hsm_meshFaceSet(hsmMesh *mesh, const hsmFaceSetInput *in, hsError *err) {
  if (!mesh || !in) {
    return HS_ERR(err, hsE_INVALID, "IndexedFaceSet: no mesh or input given");
  }
  memset(mesh, 0, sizeof *mesh);
  if (in->ncoord < 0 || in->ncoordIndex < 0 || in->nnormal < 0 || in->nnormalIndex < 0 ||
      in->ncolor < 0 || in->ncolorIndex < 0 || in->ntexCoord < 0 || in->ntexCoordIndex < 0 ||
      (in->ncoord && !in->coord) || (in->ncoordIndex && !in->coordIndex) ||
      (in->nnormal && !in->normal) || (in->nnormalIndex && !in->normalIndex) ||
      (in->ncolor && !in->color) || (in->ncolorIndex && !in->colorIndex) ||
      (in->ntexCoord && !in->texCoord) || (in->ntexCoordIndex && !in->texCoordIndex)) {
    return HS_ERR(err, hsE_INVALID, "IndexedFaceSet input has a negative count or missing array");
  }
  if (!hsu_allFinite(in->coord, 3 * (size_t)in->ncoord)) {
    return HS_ERR(err, hsE_MODEL, "a coordinate is not a finite number");
  }
  Polygons p;
  int rc = scanPolygons(&p, in, err);
  Attr attrs[3] = {
      {"normal", in->nnormal, in->nnormalIndex ? in->normalIndex : NULL, in->nnormalIndex,
       !!in->normalPerVertex, NULL},
      {"color", in->ncolor, in->ncolorIndex ? in->colorIndex : NULL, in->ncolorIndex,
       !!in->colorPerVertex, NULL},
      {"texCoord", in->ntexCoord, in->ntexCoordIndex ? in->texCoordIndex : NULL,
       in->ntexCoordIndex, 1, NULL},
  };
  for (int a = 0; !rc && a < 3; a++) {
    rc = checkAttr(attrs + a, &p, err);
  }
  if (rc) {
    return rc;
  }

  // allocate the output at its upper bound, and the scratch for ear clipping
  size_t bound = (size_t)p.bound;
  mesh->vertices = toFloats(in->coord, 3 * (size_t)in->ncoord);
  mesh->triangles = hsu_malloc(3 * bound * sizeof(int));
  int ok = mesh->vertices && mesh->triangles;
  float **values[3] = {&mesh->normals, &mesh->colors, &mesh->texCoords};
  const double *src[3] = {in->normal, in->color, in->texCoord};
  int width[3] = {3, 3, 2};
  for (int a = 0; ok && a < 3; a++) {
    if (attrs[a].count) {
      *values[a] = toFloats(src[a], (size_t)width[a] * attrs[a].count);
      attrs[a].out = hsu_malloc((attrs[a].perVertex ? 3 : 1) * bound * sizeof(int));
      ok = *values[a] && attrs[a].out;
    }
  }
  // the mesh owns the index lists from here on, so hsm_freeMesh releases them on every path
  mesh->normalIndices = attrs[0].out;
  mesh->colorIndices = attrs[1].out;
  mesh->texCoordIndices = attrs[2].out;
  Clip clip = {in->coord, NULL, NULL, NULL, {0, 0, 0}};
  int *tris = NULL;
  if (ok) {
    size_t m = (size_t)(p.maxSize > 3 ? p.maxSize : 3);
    clip.work = hsu_malloc(m * sizeof *clip.work);
    clip.mask = hsu_malloc(m);
    tris = hsu_malloc(3 * m * sizeof *tris);
    ok = clip.work && clip.mask && tris;
  }
  if (!ok) {
    hsu_free(clip.work);
    hsu_free(clip.mask);
    hsu_free(tris);
    hsm_freeMesh(mesh);
    return HS_ERR(err, hsE_NOMEM, "out of memory for an IndexedFaceSet of %ld triangles",
                  p.bound);
  }
  mesh->nvertex = in->ncoord;
  mesh->normalPerVertex = attrs[0].perVertex;
  mesh->colorPerVertex = attrs[1].perVertex;
  FaceOut o = {mesh, in->coordIndex, attrs};
  fillFaceSet(&o, in, &p, &clip, tris);
  hsu_free(clip.work);
  hsu_free(clip.mask);
  hsu_free(tris);
  int nt = mesh->ntriangle;
  if (attrs[0].count) {
    mesh->nnormal = in->nnormal;
    mesh->nnormalIndex = attrs[0].perVertex ? 3 * nt : nt;
  }
  if (attrs[1].count) {
    mesh->ncolor = in->ncolor;
    mesh->ncolorIndex = attrs[1].perVertex ? 3 * nt : nt;
  }
  if (attrs[2].count) {
    mesh->ntexCoord = in->ntexCoord;
    mesh->ntexCoordIndex = 3 * nt;
  }
  rc = attrs[0].count ? 0 : hsm_generateNormals(mesh, in->creaseAngle, err);
  if (rc) {
    hsm_freeMesh(mesh);
  }
  return rc;
}

//---------------------------------- ElevationGrid ---------------------------------------------

int hsm_meshElevationGrid(hsmMesh *mesh, const hsmElevationGridInput *in, hsError *err) {
  if (!mesh || !in) {
    return HS_ERR(err, hsE_INVALID, "ElevationGrid: no mesh or input given");
  }
  memset(mesh, 0, sizeof *mesh);
  int nx = in->xDimension, nz = in->zDimension;
  if (nx < 0 || nz < 0) {
    return HS_ERR(err, hsE_MODEL, "xDimension %d and zDimension %d must not be negative", nx, nz);
  }
  if (nx < 2 || nz < 2) {
    return 0;  // no cells: an empty mesh
  }
  long npoint = (long)nx * nz;
  if (2 * (npoint - nx - nz + 1) > kMaxTriangles) {
    return HS_ERR(err, hsE_MODEL, "a grid of %d x %d is too large", nx, nz);
  }
  if (in->nheight < npoint || !in->height) {
    return HS_ERR(err, hsE_MODEL, "%d heights given; xDimension * zDimension = %ld are needed",
                  in->nheight, npoint);
  }
  if (!positive(in->xSpacing) || !positive(in->zSpacing)) {
    return HS_ERR(err, hsE_MODEL, "xSpacing %g and zSpacing %g must be positive", in->xSpacing,
                  in->zSpacing);
  }
  if (!hsu_allFinite(in->height, (size_t)npoint)) {
    return HS_ERR(err, hsE_MODEL, "a height is not a finite number");
  }
  int nt = 2 * (nx - 1) * (nz - 1);
  mesh->vertices = hsu_malloc(3 * (size_t)npoint * sizeof(float));
  mesh->triangles = hsu_malloc(3 * (size_t)nt * sizeof(int));
  mesh->texCoords = hsu_malloc(2 * (size_t)npoint * sizeof(float));
  mesh->texCoordIndices = hsu_malloc(3 * (size_t)nt * sizeof(int));
  if (!mesh->vertices || !mesh->triangles || !mesh->texCoords || !mesh->texCoordIndices) {
    hsm_freeMesh(mesh);
    return HS_ERR(err, hsE_NOMEM, "out of memory for an ElevationGrid of %d triangles", nt);
  }
  for (int j = 0; j < nz; j++) {
    for (int i = 0; i < nx; i++) {
      int v = i + j * nx;
      mesh->vertices[3 * v] = (float)(i * in->xSpacing);
      mesh->vertices[3 * v + 1] = (float)in->height[v];
      mesh->vertices[3 * v + 2] = (float)(j * in->zSpacing);
      mesh->texCoords[2 * v] = (float)((double)i / (nx - 1));
      mesh->texCoords[2 * v + 1] = (float)((double)j / (nz - 1));
    }
  }
  // cell (i, j): a = (i, j), b = (i+1, j), c = (i+1, j+1), d = (i, j+1); (a, d, c) and
  // (a, c, b) face +y
  int *t = mesh->triangles;
  for (int j = 0; j + 1 < nz; j++) {
    for (int i = 0; i + 1 < nx; i++) {
      int a = i + j * nx, b = a + 1, c = a + 1 + nx, d = a + nx;
      t[0] = a, t[1] = d, t[2] = c, t[3] = a, t[4] = c, t[5] = b;
      t += 6;
    }
  }
  memcpy(mesh->texCoordIndices, mesh->triangles, 3 * (size_t)nt * sizeof(int));
  mesh->nvertex = (int)npoint;
  mesh->ntriangle = nt;
  mesh->ntexCoord = (int)npoint;
  mesh->ntexCoordIndex = 3 * nt;
  mesh->colorPerVertex = 1;
  if (!in->ccw) {
    flipTriangles(mesh);
  }
  int rc = hsm_generateNormals(mesh, in->creaseAngle, err);
  if (rc) {
    hsm_freeMesh(mesh);
  }
  return rc;
}

//---------------------------------- Extrusion -------------------------------------------------

static double dist2(const double *a, const double *b, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) {
    s += (a[k] - b[k]) * (a[k] - b[k]);
  }
  return s;
}

static void sub3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}

static void scale3(double r[3], double s) {
  r[0] *= s, r[1] *= s, r[2] *= s;
}

// a unit vector perpendicular to the unit vector y
static void perpendicular(double r[3], const double y[3]) {
  double e[3] = {0, 0, 0};
  int k = fabs(y[0]) <= fabs(y[1]) && fabs(y[0]) <= fabs(y[2]) ? 0
          : fabs(y[1]) <= fabs(y[2])                           ? 1
                                                               : 2;
  e[k] = 1;
  hsu_cross(r, y, e);
  scale3(r, 1 / hsu_norm(r));
}


// the SCP axes of the m distinct spine points P(k) = spine + 3 u[k]: frames[9 k ..] = X, Y, Z;
// zok is scratch for m flags
static void distinctScp(const double *spine, const int *u, int m, int closed, double *frames,
                        int *zok) {
#define P(k) (spine + 3 * u[k])
  if (m == 1) {
    // every point in one place: the identity
    for (int k = 0; k < 9; k++) {
      frames[k] = k % 4 == 0;
    }
    return;
  }
  int anyZ = 0;
  for (int k = 0; k < m; k++) {
    double *Y = frames + 9 * k + 3, *Z = frames + 9 * k + 6;
    int end = k == 0 || k == m - 1;
    // Y: the spine's direction through the point
    if (closed && end) {
      sub3(Y, P(1), P(m - 2));
    } else if (k == 0) {
      sub3(Y, P(1), P(0));
    } else if (k == m - 1) {
      sub3(Y, P(m - 1), P(m - 2));
    } else {
      sub3(Y, P(k + 1), P(k - 1));
    }
    if (!(hsu_norm(Y) > 0)) {
      // the spine doubles back here: use the incoming segment (the first one at the start)
      k > 0 ? sub3(Y, P(k), P(k - 1)) : sub3(Y, P(1), P(0));
    }
    scale3(Y, 1 / hsu_norm(Y));
    // Z: the normal of the bend; undefined at an open spine's ends and where it is straight
    zok[k] = 0;
    if (end && !closed) {
      continue;
    }
    int here = end ? 0 : k, next = end ? 1 : k + 1, prev = end ? m - 2 : k - 1;
    double a[3], b[3];
    sub3(a, P(next), P(here));
    sub3(b, P(prev), P(here));
    hsu_cross(Z, a, b);
    double lz = hsu_norm(Z);
    if (lz > kSinTol * hsu_norm(a) * hsu_norm(b)) {
      scale3(Z, 1 / lz);
      zok[k] = anyZ = 1;
    }
  }
  if (!anyZ) {
    // a straight spine: the rotation taking +y onto its first segment (a half turn about x
    // when the spine points down)
    double d[3];
    sub3(d, P(1), P(0));
    scale3(d, 1 / hsu_norm(d));
    double aa[4] = {d[2], 0, -d[0], 0};  // axis y x d
    double s = hsu_norm(aa);
    aa[3] = atan2(s, d[1]);
    if (s < 1e-12 && d[1] < 0) {
      aa[0] = 1, aa[1] = 0, aa[2] = 0, aa[3] = HS_PI;
    }
    double R[9];
    hsu_axisAngleToMat(R, aa);
    for (int k = 0; k < m; k++) {
      for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) {
          frames[9 * k + 3 * c + r] = R[3 * r + c];  // axis c is column c of R
        }
      }
    }
    return;
  }
  // undefined Z: the previous one (leading ones: the first defined); then keep Z from flipping
  int kd = 0;
  while (!zok[kd]) {
    kd++;
  }
  for (int k = 0; k < m; k++) {
    double *Z = frames + 9 * k + 6;
    if (!zok[k]) {
      memcpy(Z, frames + 9 * (k < kd ? kd : k - 1) + 6, 3 * sizeof *Z);
    }
    if (k > 0 && hsu_dot(Z, frames + 9 * (k - 1) + 6) < 0) {
      scale3(Z, -1);
    }
  }
  // orthonormal frames: Z perpendicular to Y, X = Y x Z
  for (int k = 0; k < m; k++) {
    double *X = frames + 9 * k, *Y = X + 3, *Z = X + 6;
    double d = hsu_dot(Z, Y);
    for (int i = 0; i < 3; i++) {
      Z[i] -= d * Y[i];
    }
    double lz = hsu_norm(Z);
    if (lz > 1e-6) {
      scale3(Z, 1 / lz);
    } else {
      perpendicular(Z, Y);
    }
    hsu_cross(X, Y, Z);
  }
  // a closed spine's ends share one SCP
  if (closed) {
    memcpy(frames + 9 * (m - 1), frames, 9 * sizeof *frames);
  }
#undef P
}

// the SCP axes of every spine point (frames: 9 per point, X, Y, Z); coincident consecutive
// points share one. ints is scratch for 3 nspine ints.
static void computeScp(const double *spine, int nspine, int closed, double eps2, double *frames,
                       int *ints) {
  int *u = ints, *map = ints + nspine, *zok = ints + 2 * nspine;
  int m = 0;
  for (int i = 0; i < nspine; i++) {
    if (m == 0 || dist2(spine + 3 * i, spine + 3 * u[m - 1], 3) > eps2) {
      u[m++] = i;
    }
    map[i] = m - 1;
  }
  distinctScp(spine, u, m, closed, frames, zok);
  // spread: frame k goes to the spine points mapped to it (map[i] <= i, so going down reads
  // every frame before it is overwritten)
  for (int i = nspine - 1; i >= 0; i--) {
    if (map[i] != i) {
      memcpy(frames + 9 * i, frames + 9 * map[i], 9 * sizeof *frames);
    }
  }
}

// bounding box diagonal of n points of dim coordinates
static double extent(const double *p, int n, int dim) {
  double lo[3], hi[3], d2 = 0;
  for (int k = 0; k < dim; k++) {
    lo[k] = hi[k] = p[k];
  }
  for (int i = 1; i < n; i++) {
    for (int k = 0; k < dim; k++) {
      double x = p[dim * i + k];
      lo[k] = x < lo[k] ? x : lo[k];
      hi[k] = x > hi[k] ? x : hi[k];
    }
  }
  for (int k = 0; k < dim; k++) {
    d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  }
  return sqrt(d2);
}

// cumulative arc length of n points of dim coordinates, scaled to 0..1, into out
static void arcParameter(double *out, const double *p, int n, int dim) {
  out[0] = 0;
  for (int i = 1; i < n; i++) {
    out[i] = out[i - 1] + sqrt(dist2(p + dim * i, p + dim * (i - 1), dim));
  }
  double total = out[n - 1];
  for (int i = 0; i < n; i++) {
    out[i] = total > 0 ? out[i] / total : (double)i / (n - 1);
  }
}

static void emitTriangle(hsmMesh *m, int a, int b, int c, int ta, int tb, int tc) {
  int *t = m->triangles + 3 * m->ntriangle, *tt = m->texCoordIndices + 3 * m->ntriangle;
  t[0] = a, t[1] = b, t[2] = c;
  tt[0] = ta, tt[1] = tb, tt[2] = tc;
  m->ntriangle++;
}

// check an Extrusion's counts and numbers
static int checkExtrusion(const hsmExtrusionInput *in, hsError *err) {
  int ncs = in->ncrossSection, ns = in->nspine;
  if (ncs < 2 || ns < 2 || !in->crossSection || !in->spine) {
    return HS_ERR(err, hsE_MODEL,
                  "needs at least 2 crossSection points and 2 spine points (got %d and %d)", ncs,
                  ns);
  }
  if (in->nscale < 0 || (in->nscale && !in->scale) || (in->nscale > 1 && in->nscale < ns)) {
    return HS_ERR(err, hsE_MODEL,
                  "%d scale values for %d spine points: give one for all or one per point",
                  in->nscale, ns);
  }
  if (in->norientation < 0 || (in->norientation && !in->orientation) ||
      (in->norientation > 1 && in->norientation < ns)) {
    return HS_ERR(err, hsE_MODEL,
                  "%d orientation values for %d spine points: give one for all or one per point",
                  in->norientation, ns);
  }
  if (!hsu_allFinite(in->crossSection, 2 * (size_t)ncs) ||
      !hsu_allFinite(in->spine, 3 * (size_t)ns) ||
      !hsu_allFinite(in->scale, 2 * (size_t)in->nscale) ||
      !hsu_allFinite(in->orientation, 4 * (size_t)in->norientation)) {
    return HS_ERR(err, hsE_MODEL,
                  "a crossSection, spine, scale or orientation value is not finite");
  }
  if (2L * ns * ncs + 2L * ncs > kMaxTriangles) {
    return HS_ERR(err, hsE_MODEL, "%d spine points x %d crossSection points is too large", ns,
                  ncs);
  }
  return 0;
}

// positions of ring i (the cross-section placed at spine point i) into pos
static void placeRing(double *pos, const hsmExtrusionInput *in, int i, int ncu,
                      const double *frame) {
  double sx = 1, sz = 1, R[9];
  if (in->nscale) {
    const double *s = in->scale + 2 * (in->nscale == 1 ? 0 : i);
    sx = s[0], sz = s[1];
  }
  if (in->norientation) {
    hsu_axisAngleToMat(R, in->orientation + 4 * (in->norientation == 1 ? 0 : i));
  } else {
    hsu_setIdentity(R);
  }
  const double *sp = in->spine + 3 * i;
  for (int j = 0; j < ncu; j++) {
    double c[3] = {sx * in->crossSection[2 * j], 0, sz * in->crossSection[2 * j + 1]}, q[3];
    hsu_rotVec(q, R, c);
    for (int k = 0; k < 3; k++) {
      pos[3 * j + k] = sp[k] + q[0] * frame[k] + q[1] * frame[3 + k] + q[2] * frame[6 + k];
    }
  }
}

int hsm_meshExtrusion(hsmMesh *mesh, const hsmExtrusionInput *in, hsError *err) {
  if (!mesh || !in) {
    return HS_ERR(err, hsE_INVALID, "Extrusion: no mesh or input given");
  }
  memset(mesh, 0, sizeof *mesh);
  int rc = checkExtrusion(in, err);
  if (rc) {
    return rc;
  }
  int ncs = in->ncrossSection, ns = in->nspine;
  const double *cs = in->crossSection, *spine = in->spine;
  // closed curves: first point == last point
  double ec = kSameTol * extent(cs, ncs, 2), es = kSameTol * extent(spine, ns, 3);
  int csClosed = ncs >= 3 && dist2(cs, cs + 2 * (ncs - 1), 2) <= ec * ec;
  int ncu = ncs - csClosed;  // distinct cross-section points
  int spClosed = ns >= 3 && dist2(spine, spine + 3 * (ns - 1), 3) <= es * es;

  // scratch: SCP frames, ring positions, texture parameters, cap triangulation
  double *frames = hsu_malloc(9 * (size_t)ns * sizeof *frames);
  int *ints = hsu_malloc(3 * (size_t)ns * sizeof *ints);
  double *pos = hsu_malloc(3 * (size_t)ns * ncu * sizeof *pos);
  double *sParam = hsu_malloc(((size_t)ncs + ns) * sizeof *sParam);
  double *capPts = hsu_malloc(3 * (size_t)ncu * sizeof *capPts);
  int *capTris = hsu_malloc(3 * (size_t)ncu * sizeof *capTris);
  int ok = frames && ints && pos && sParam && capPts && capTris;
  if (ok) {
    computeScp(spine, ns, spClosed, es * es, frames, ints);
    for (int i = 0; i < ns; i++) {
      placeRing(pos + 3 * (size_t)i * ncu, in, i, ncu, frames + 9 * i);
    }
  }
  // a closed spine whose last ring lands on its first shares it
  int merge = 0;
  if (ok && spClosed) {
    double ep = kSameTol * extent(pos, ns * ncu, 3);
    merge = 1;
    for (int j = 0; merge && j < ncu; j++) {
      merge = dist2(pos + 3 * j, pos + 3 * ((size_t)(ns - 1) * ncu + j), 3) <= ep * ep;
    }
  }
  int nring = ns - merge, nedge = csClosed ? ncu : ncu - 1;
  int doBegin = in->beginCap && !merge && ncu >= 3, doEnd = in->endCap && !merge && ncu >= 3;
  int nv = nring * ncu;
  int bound = 2 * (ns - 1) * nedge + (doBegin + doEnd) * (ncu - 2);
  int capTex = ns * ncs;
  int ntc = capTex + (doBegin || doEnd ? ncu : 0);
  if (ok) {
    mesh->vertices = hsu_malloc(3 * (size_t)nv * sizeof(float));
    mesh->triangles = hsu_malloc(3 * (size_t)bound * sizeof(int));
    mesh->texCoords = hsu_malloc(2 * (size_t)ntc * sizeof(float));
    mesh->texCoordIndices = hsu_malloc(3 * (size_t)bound * sizeof(int));
    ok = mesh->vertices && mesh->triangles && mesh->texCoords && mesh->texCoordIndices;
  }
  if (ok) {
    mesh->nvertex = nv;
    mesh->ntexCoord = ntc;
    mesh->colorPerVertex = 1;
    for (size_t k = 0; k < 3 * (size_t)nv; k++) {
      mesh->vertices[k] = (float)pos[k];
    }
    // side texture coordinates: s along the cross-section, t along the spine
    double *tParam = sParam + ncs;
    arcParameter(sParam, cs, ncs, 2);
    arcParameter(tParam, spine, ns, 3);
    for (int i = 0; i < ns; i++) {
      for (int j = 0; j < ncs; j++) {
        float *t = mesh->texCoords + 2 * (i * ncs + j);
        t[0] = (float)sParam[j], t[1] = (float)tParam[i];
      }
    }
    // cap texture coordinates: the cross-section's bounding box, its larger side 0..1
    if (ntc > capTex) {
      double lo[2] = {cs[0], cs[1]}, hi[2] = {cs[0], cs[1]};
      for (int j = 1; j < ncu; j++) {
        for (int k = 0; k < 2; k++) {
          lo[k] = cs[2 * j + k] < lo[k] ? cs[2 * j + k] : lo[k];
          hi[k] = cs[2 * j + k] > hi[k] ? cs[2 * j + k] : hi[k];
        }
      }
      double size = hi[0] - lo[0] > hi[1] - lo[1] ? hi[0] - lo[0] : hi[1] - lo[1];
      size = size > 0 ? size : 1;
      for (int j = 0; j < ncu; j++) {
        float *t = mesh->texCoords + 2 * (capTex + j);
        t[0] = (float)((cs[2 * j] - lo[0]) / size), t[1] = (float)((cs[2 * j + 1] - lo[1]) / size);
      }
    }
    // sides: quad (i, j) - (i, j+1) - (i+1, j+1) - (i+1, j) as two triangles
#define VTX(i, j) (((i) == ns - 1 && merge ? 0 : (i)) * ncu + (j))
#define POS(i, j) (pos + 3 * ((size_t)(i) * ncu + (j)))
    for (int i = 0; i + 1 < ns; i++) {
      for (int j = 0; j < nedge; j++) {
        int j1 = (j + 1) % ncu;
        int ta = i * ncs + j, tb = ta + 1, tc = tb + ncs, td = ta + ncs;
        if (!noArea(POS(i, j), POS(i, j1), POS(i + 1, j1))) {
          emitTriangle(mesh, VTX(i, j), VTX(i, j1), VTX(i + 1, j1), ta, tb, tc);
        }
        if (!noArea(POS(i, j), POS(i + 1, j1), POS(i + 1, j))) {
          emitTriangle(mesh, VTX(i, j), VTX(i + 1, j1), VTX(i + 1, j), ta, tc, td);
        }
      }
    }
    // caps: the begin cap runs the cross-section backwards so it faces away from the spine
    for (int cap = 0; cap < 2 && rc == 0; cap++) {
      if (!(cap ? doEnd : doBegin)) {
        continue;
      }
      int i = cap ? ns - 1 : 0;
      for (int k = 0; k < ncu; k++) {
        int j = cap ? k : ncu - 1 - k;
        memcpy(capPts + 3 * k, POS(i, j), 3 * sizeof *capPts);
      }
      int nt = hsm_triangulatePolygon(capPts, ncu, capTris, err);
      rc = nt < 0 ? nt : 0;
      for (int k = 0; k < nt; k++) {
        const int *t = capTris + 3 * k;
        if (noArea(capPts + 3 * t[0], capPts + 3 * t[1], capPts + 3 * t[2])) {
          continue;
        }
        int j[3];
        for (int c = 0; c < 3; c++) {
          j[c] = cap ? t[c] : ncu - 1 - t[c];
        }
        emitTriangle(mesh, VTX(i, j[0]), VTX(i, j[1]), VTX(i, j[2]), capTex + j[0],
                     capTex + j[1], capTex + j[2]);
      }
    }
#undef VTX
#undef POS
    mesh->ntexCoordIndex = 3 * mesh->ntriangle;
  }
  hsu_free(frames);
  hsu_free(ints);
  hsu_free(pos);
  hsu_free(sParam);
  hsu_free(capPts);
  hsu_free(capTris);
  if (!ok) {
    hsm_freeMesh(mesh);
    return HS_ERR(err, hsE_NOMEM, "out of memory for an Extrusion of %d triangles", bound);
  }
  if (!rc && !in->ccw) {
    flipTriangles(mesh);
  }
  if (!rc) {
    rc = hsm_generateNormals(mesh, in->creaseAngle, err);
  }
  if (rc) {
    hsm_freeMesh(mesh);
  }
  return rc;
}
