// mjcf_geom.c - MJCF geoms as mass properties and shapes (hsm_mjcfGeom); mesh assets.
//
// Sizes are MuJoCo's: sphere radius; capsule and cylinder radius and half-length along z;
// box and ellipsoid half-sizes; plane half-sizes (0: infinite). `fromto` (capsule, cylinder,
// box, ellipsoid) puts the geom at the segment's middle, turns z onto it (the minimal rotation)
// and makes its half-length (box, ellipsoid: z half-size) half the segment's length; a box's or
// an ellipsoid's x and y half-sizes are then both size[0] (what MuJoCo 4.0 compiles).
//
// Mass. `mass` when given (density is then mass / volume), else density (1000) x volume:
// sphere 4/3 pi r^3; capsule pi r^2 (2h) + 4/3 pi r^3; cylinder pi r^2 2h; box 8 a b c;
// ellipsoid 4/3 pi a b c; a mesh by its asset's inertia rule, MuJoCo's: legacy (the default:
// see pyramidMass, exact for a closed mesh convex about its centre), exact (the divergence
// theorem), shell (mass on the surface: density per area); convex (the hull) is warned and
// computed as legacy. Inertia about the centre, geom frame: sphere 2/5 m r^2; box m (b^2 + c^2) /
// 3 ...; ellipsoid m (b^2 + c^2) / 5 ...; cylinder m (3 r^2 + (2h)^2) / 12 across, m r^2 / 2
// along; capsule the cylinder's part plus the two hemispheres (mass ms together) displaced to
// the ends, ms (2/5 r^2 + h^2 + 3/4 h r) across and 2/5 ms r^2 along. Planes have none.
//
// Shapes. sphere, box and cylinder become hrpsim's primitives (the cylinder's y axis turned
// onto z); a capsule and an ellipsoid become meshes (sphereSlices around, sphereStacks from
// pole to pole); a plane a 1 m thick slab under its surface (100 m square when infinite); a
// mesh asset one shape per part of its file (STL, OBJ ... through assimp, times its scale),
// read once per asset. Colour: the geom's rgba (itself or its class) when it is not MuJoCo's
// built-in grey (0.5 0.5 0.5 1), else its material's, else that grey. Every geom is drawn;
// those with contype or conaffinity non-zero collide.

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mesh/mesh_import.h"
#include "mjcf_private.h"

#define MESHES(u) ((hsmMjcfMesh *)(u)->meshes.data)
#define MATS(u) ((hsmMjcfMaterial *)(u)->materials.data)
#define LINKSPEC(u, i) (((hsmLinkSpec *)(u)->b->links.data)[i])
#define SEGSPEC(u, i) (((hsmSegmentSpec *)(u)->b->segments.data)[i])

typedef enum hstGeom {
  GEOM_PLANE, GEOM_HFIELD, GEOM_SPHERE, GEOM_CAPSULE, GEOM_ELLIPSOID, GEOM_CYLINDER, GEOM_BOX,
  GEOM_MESH, GEOM_SDF
} hstGeom;

static const char *const kGeomTypes[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                         "cylinder", "box", "mesh", "sdf", NULL};

void hsm_mjcfFreeMeshes(hsmMjcfLoad *u) {
  for (size_t i = 0; i < u->meshes.n; i++) {
    hsu_free(MESHES(u)[i].path);
  }
  hsu_vecFree(&u->meshes);
  hsm_freeMeshImporter(u->importer);
  u->importer = NULL;
}

//---------------------------------- mesh volume -----------------------------------------------

// accumulate the signed volume, first moment and second moment (covariance about the origin)
// of the solid a closed triangle mesh bounds
static void meshMoments(const hsmMesh *m, double *vol, double first[3], double C[9]) {
  for (int t = 0; t < m->ntriangle; t++) {
    const float *p[3];
    for (int k = 0; k < 3; k++) {
      p[k] = m->vertices + 3 * m->triangles[3 * t + k];
    }
    double a[3] = {p[0][0], p[0][1], p[0][2]}, b[3] = {p[1][0], p[1][1], p[1][2]};
    double c[3] = {p[2][0], p[2][1], p[2][2]}, bc[3];
    hsu_cross(bc, b, c);
    double det = hsu_dot(a, bc);  // 6 x the tetrahedron's signed volume
    *vol += det / 6;
    for (int i = 0; i < 3; i++) {
      first[i] += det / 24 * (a[i] + b[i] + c[i]);
      for (int j = 0; j < 3; j++) {
        // integral of x_i x_j over the tetrahedron (0, a, b, c)
        double s = a[i] * a[j] + b[i] * b[j] + c[i] * c[j] +
                   (a[i] + b[i] + c[i]) * (a[j] + b[j] + c[j]);
        C[3 * i + j] += det / 120 * s;
      }
    }
  }
}

// the inertia tensor trace(C) E - C of a covariance C
static void covarianceToInertia(double I[9], const double C[9]) {
  double tr = C[0] + C[4] + C[8];
  for (int k = 0; k < 9; k++) {
    I[k] = (k % 4 == 0 ? tr : 0) - C[k];
  }
}

// exact: the divergence theorem over the triangles, signs kept (an inward wound mesh is taken
// outward)
static int exactMass(hsmMjcfLoad *u, hsmMjcfMesh *mesh, const hsmMeshPart *parts, int n) {
  double vol = 0, first[3] = {0, 0, 0}, C[9] = {0};
  for (int i = 0; i < n; i++) {
    meshMoments(&parts[i].mesh, &vol, first, C);
  }
  double sign = vol < 0 ? -1 : 1;
  vol *= sign;
  if (!(vol > 1e-15)) {
    return hsm_mjcfError(u, hsE_MODEL, mesh->elem, "file", "mesh '%s' encloses no volume: its "
                         "inertia cannot be computed from it (give the body an <inertial>)",
                         mesh->name);
  }
  mesh->volume = vol;
  for (int k = 0; k < 3; k++) {
    mesh->com[k] = sign * first[k] / vol;
  }
  double Cc[9];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      Cc[3 * i + j] = sign * C[3 * i + j] - vol * mesh->com[i] * mesh->com[j];
    }
  }
  covarianceToInertia(mesh->inertia, Cc);
  return 0;
}

// a triangle's area, unit normal and centroid
static double triangle(const float *const p[3], double nrm[3], double cen[3]) {
  double e1[3], e2[3];
  for (int k = 0; k < 3; k++) {
    e1[k] = p[1][k] - p[0][k], e2[k] = p[2][k] - p[0][k];
    cen[k] = ((double)p[0][k] + p[1][k] + p[2][k]) / 3;
  }
  hsu_cross(nrm, e1, e2);
  double twice = hsu_norm(nrm);
  for (int k = 0; k < 3 && twice > 0; k++) {
    nrm[k] /= twice;
  }
  return twice / 2;
}

// MuJoCo's legacy rule (its default) or its shell rule: pyramids from the surface centroid
// over every triangle, volumes taken positive, give the volume and centre; pyramids from that
// centre give the moments and the volume that sets the mass. For a closed mesh that is convex
// about its centre this is the exact solid; otherwise it counts overlapping pyramids twice,
// as MuJoCo does. shell: the triangles' areas in place of the pyramids' volumes. Each
// triangle's area, normal and centroid are computed once (tri: 7 doubles per triangle).
static int pyramidMass(hsmMjcfLoad *u, hsmMjcfMesh *mesh, const hsmMeshPart *parts, int n,
                       int shell) {
  size_t ntri = 0;
  for (int i = 0; i < n; i++) {
    ntri += (size_t)parts[i].mesh.ntriangle;
  }
  double *tri = hsu_malloc((ntri ? ntri : 1) * 7 * sizeof(double));
  if (!tri) {
    return hsm_mjcfNomem(u);
  }
  // the surface centroid
  double area = 0, apex[3] = {0, 0, 0};
  size_t t = 0;
  for (int i = 0; i < n; i++) {
    const hsmMesh *m = &parts[i].mesh;
    for (int k = 0; k < m->ntriangle; k++, t++) {
      const float *p[3];
      for (int v = 0; v < 3; v++) {
        p[v] = m->vertices + 3 * m->triangles[3 * k + v];
      }
      double *r = tri + 7 * t;
      r[0] = triangle(p, r + 1, r + 4);
      area += r[0];
      for (int c = 0; c < 3; c++) {
        apex[c] += r[0] * r[4 + c];
      }
    }
  }
  int rc = 0;
  if (!(area > 1e-15)) {
    rc = hsm_mjcfError(u, hsE_MODEL, mesh->elem, "file", "mesh '%s' has no surface area",
                       mesh->name);
  }
  // the pyramid from apex over each triangle, counted positive (a shell: the triangle)
  double vol = 0, first[3] = {0, 0, 0};
  for (int c = 0; c < 3 && !rc; c++) {
    apex[c] /= area;
  }
  for (t = 0; t < ntri && !rc; t++) {
    const double *r = tri + 7 * t;
    double d[3] = {r[4] - apex[0], r[5] - apex[1], r[6] - apex[2]};
    double v = shell ? r[0] : fabs(hsu_dot(d, r + 1) * r[0] / 3);
    vol += v;
    for (int c = 0; c < 3; c++) {
      first[c] += v * (0.75 * r[4 + c] + 0.25 * apex[c]);
    }
  }
  if (!rc && !(vol > 1e-15)) {
    rc = hsm_mjcfError(u, hsE_MODEL, mesh->elem, "file", "mesh '%s' encloses no volume: its "
                       "inertia cannot be computed from it (give the body an <inertial>)",
                       mesh->name);
  }
  // moments about the centre, from pyramids with their apex there
  double P[6] = {0}, V = 0;
  for (int c = 0; c < 3 && !rc; c++) {
    mesh->com[c] = first[c] / vol;
  }
  t = 0;
  for (int i = 0; i < n && !rc; i++) {
    const hsmMesh *m = &parts[i].mesh;
    for (int k = 0; k < m->ntriangle; k++, t++) {
      const double *r = tri + 7 * t;
      double d[3] = {r[4] - mesh->com[0], r[5] - mesh->com[1], r[6] - mesh->com[2]};
      double v = shell ? r[0] : fabs(hsu_dot(d, r + 1) * r[0] / 3);
      V += v;
      double D[3][3];
      for (int w = 0; w < 3; w++) {
        const float *q = m->vertices + 3 * m->triangles[3 * k + w];
        for (int c = 0; c < 3; c++) {
          D[w][c] = q[c] - mesh->com[c];
        }
      }
      static const int ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
      for (int j = 0; j < 6; j++) {
        int x = ij[j][0], y = ij[j][1];
        double sum = 2 * (D[0][x] * D[0][y] + D[1][x] * D[1][y] + D[2][x] * D[2][y]) +
                     D[0][x] * D[1][y] + D[0][y] * D[1][x] + D[0][x] * D[2][y] +
                     D[0][y] * D[2][x] + D[1][x] * D[2][y] + D[1][y] * D[2][x];
        P[j] += v / (shell ? 12 : 20) * sum;
      }
    }
  }
  hsu_free(tri);
  if (rc) {
    return rc;
  }
  mesh->volume = V;
  double *I = mesh->inertia;
  I[0] = P[1] + P[2], I[4] = P[0] + P[2], I[8] = P[0] + P[1];
  I[1] = I[3] = -P[3], I[2] = I[6] = -P[4], I[5] = I[7] = -P[5];
  return 0;
}

// volume (area for a shell), centre and unit-density inertia about the centre of the mesh
// asset's parts, by the asset's inertia rule
static int meshMass(hsmMjcfLoad *u, hsmMjcfMesh *mesh, const hsmMeshPart *parts, int n) {
  static const char *const rules[] = {"legacy", "exact", "shell", "convex", NULL};
  int rule = 0, cls = 0;
  if (hsm_mjcfClassOf(u, mesh->elem, 0, &cls) ||
      hsm_mjcfKeyword(u, mesh->elem, cls, "inertia", rules, &rule)) {
    return -1;
  }
  if (rule == 3) {
    hsm_mjcfWarn(u, mesh->elem, "mesh '%s': inertia=\"convex\" (the convex hull's) is not "
                 "supported: computed by MuJoCo's legacy rule, the same for a convex mesh",
                 mesh->name);
    rule = 0;
  }
  return rule == 1 ? exactMass(u, mesh, parts, n) : pyramidMass(u, mesh, parts, n, rule == 2);
}

// the builder material for a colour (shared by equal colours); -1 on error
static int colorMaterial(hsmMjcfLoad *u, const double rgba[4]) {
  hsMaterial m = {0.2f, {(float)rgba[0], (float)rgba[1], (float)rgba[2]}, {0, 0, 0}, 0.2f,
                  {0, 0, 0}, (float)(1 - rgba[3])};
  const hsMaterial *have = u->b->materials.data;
  for (size_t i = 0; i < u->b->materials.n; i++) {
    if (memcmp(&have[i], &m, sizeof m) == 0) {
      return (int)i;
    }
  }
  int idx = (int)u->b->materials.n;
  return hsu_vecPush(&u->b->materials, sizeof m, &m) ? idx : (hsm_mjcfNomem(u), -1);
}

// read a mesh asset's file once: its shapes (first, count) and mass properties
static int loadMesh(hsmMjcfLoad *u, hsmMjcfMesh *mesh, int material) {
  if (mesh->loaded) {
    return 0;
  }
  hsmMeshPart *parts = NULL;
  int nparts = 0;
  hsError e = {0};
  if (!u->importer && !(u->importer = hsm_makeMeshImporter(&u->opt.limits, NULL))) {
    return hsm_mjcfNomem(u);
  }
  if (hsm_importMesh(u->importer, mesh->path, mesh->scale, &parts, &nparts, &e)) {
    return hsm_mjcfError(u, e.code ? e.code : hsE_IO, mesh->elem, "file", "mesh '%s': %s",
                         mesh->name, e.message);
  }
  int rc = meshMass(u, mesh, parts, nparts);
  mesh->first = (int)u->b->shapes.n;
  for (int i = 0; i < nparts && !rc; i++) {
    static const float none[1] = {0};
    hsmShapeInput in = {hsPRIM_MESH, none, 0, &parts[i].mesh, mesh->path, material, -1, 0, 0,
                        NULL};
    if (hsm_addShape(u->b, &in, u->err) < 0) {
      rc = -1;
    } else {
      mesh->count++;
    }
  }
  hsm_freeMeshParts(parts, nparts);
  mesh->loaded = !rc;
  return rc;
}

//---------------------------------- primitive meshes ------------------------------------------

// a capsule along z: radius r, half-length h, `slices` around, `stacks` (even) pole to pole
static int capsuleMesh(hsmMesh *m, double r, double h, int slices, int stacks) {
  stacks += stacks % 2;
  int rings = stacks;  // stacks - 1 latitude rings, the equator twice
  m->nvertex = 2 + rings * slices;
  m->ntriangle = 2 * slices * rings;
  m->vertices = hsu_malloc((size_t)m->nvertex * 3 * sizeof(float));
  m->triangles = hsu_malloc((size_t)m->ntriangle * 3 * sizeof(int));
  if (!m->vertices || !m->triangles) {
    return hsE_NOMEM;
  }
  float *v = m->vertices;
  *v++ = 0, *v++ = 0, *v++ = (float)(h + r);
  for (int i = 1, ring = 0; i < stacks; i++) {
    for (int twice = 0; twice < (i == stacks / 2 ? 2 : 1); twice++, ring++) {
      double phi = HS_PI * i / stacks;
      double z = r * cos(phi) + ((i < stacks / 2 || (i == stacks / 2 && !twice)) ? h : -h);
      for (int j = 0; j < slices; j++) {
        double th = 2 * HS_PI * j / slices;
        *v++ = (float)(r * sin(phi) * cos(th)), *v++ = (float)(r * sin(phi) * sin(th));
        *v++ = (float)z;
      }
    }
  }
  *v++ = 0, *v++ = 0, *v++ = (float)(-h - r);
  int *t = m->triangles, south = m->nvertex - 1;
  for (int j = 0; j < slices; j++) {
    int j1 = (j + 1) % slices;
    // north cap, bands between rings, south cap: counter-clockwise seen from outside
    *t++ = 0, *t++ = 1 + j, *t++ = 1 + j1;
    for (int k = 0; k + 1 < rings; k++) {
      int a = 1 + k * slices, b = a + slices;
      *t++ = a + j, *t++ = b + j, *t++ = b + j1;
      *t++ = a + j, *t++ = b + j1, *t++ = a + j1;
    }
    int last = 1 + (rings - 1) * slices;
    *t++ = south, *t++ = last + j1, *t++ = last + j;
  }
  m->ntriangle = (int)(t - m->triangles) / 3;
  return 0;
}

//---------------------------------- collision filter ------------------------------------------

// a contype or conaffinity (class cls) into *bits: a whole number from 0 to 2^32 - 1 (MuJoCo's
// int bit mask); unchanged when absent
static int filterBits(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name,
                      unsigned *bits) {
  double v = 0;
  int n = 0;
  if (hsm_mjcfNumbers(u, e, cls, name, 1, &v, &n)) {
    return -1;
  }
  if (n && (v < 0 || v > 4294967295.0 || v != floor(v))) {
    const hsmXmlElem *from = NULL;
    hsm_mjcfAttr(u, e, cls, name, &from);
    return hsm_mjcfError(u, hsE_MODEL, from ? from : e, name, "%s %g is not a bit mask (a whole "
                         "number from 0 to 4294967295)", name, v);
  }
  *bits = n ? (unsigned)v : *bits;
  return 0;
}

// a colliding geom e with bits ct, ca on builder link `link`
static int recordFilter(hsmMjcfLoad *u, const hsmXmlElem *e, int link, unsigned ct,
                        unsigned ca) {
  while (u->filters.n <= (size_t)link) {
    hsmMjcfLinkFilter none;
    memset(&none, 0, sizeof none);
    if (!hsu_vecPush(&u->filters, sizeof none, &none)) {
      return hsm_mjcfNomem(u);
    }
  }
  hsmMjcfLinkFilter *f = (hsmMjcfLinkFilter *)u->filters.data + link;
  if (f->ngeom++ == 0) {
    f->first[0] = ct, f->first[1] = ca;
  } else if (!f->mixed && (f->first[0] != ct || f->first[1] != ca)) {
    f->mixed = e;
  }
  f->contype |= ct;
  f->conaffinity |= ca;
  return 0;
}

//---------------------------------- one geom --------------------------------------------------

// unit-density volume and inertia about the centre (geom frame, diagonal) of a primitive
static double primitiveMass(hstGeom type, const double s[3], double I[3]) {
  double r = s[0], h = s[1];
  double vol = 0;
  switch (type) {
    case GEOM_SPHERE:
      vol = 4.0 / 3 * HS_PI * r * r * r;
      I[0] = I[1] = I[2] = 0.4 * vol * r * r;
      break;
    case GEOM_CAPSULE: {
      double vc = HS_PI * r * r * 2 * h, vs = 4.0 / 3 * HS_PI * r * r * r;
      vol = vc + vs;
      I[0] = I[1] = vc * (3 * r * r + 4 * h * h) / 12 +
                    vs * (0.4 * r * r + h * h + 0.75 * h * r);
      I[2] = vc * r * r / 2 + vs * 0.4 * r * r;
      break;
    }
    case GEOM_CYLINDER:
      vol = HS_PI * r * r * 2 * h;
      I[0] = I[1] = vol * (3 * r * r + 4 * h * h) / 12;
      I[2] = vol * r * r / 2;
      break;
    case GEOM_ELLIPSOID:
      vol = 4.0 / 3 * HS_PI * s[0] * s[1] * s[2];
      I[0] = vol * (s[1] * s[1] + s[2] * s[2]) / 5;
      I[1] = vol * (s[0] * s[0] + s[2] * s[2]) / 5;
      I[2] = vol * (s[0] * s[0] + s[1] * s[1]) / 5;
      break;
    case GEOM_BOX:
      vol = 8 * s[0] * s[1] * s[2];
      I[0] = vol * (s[1] * s[1] + s[2] * s[2]) / 3;
      I[1] = vol * (s[0] * s[0] + s[2] * s[2]) / 3;
      I[2] = vol * (s[0] * s[0] + s[1] * s[1]) / 3;
      break;
    default:
      I[0] = I[1] = I[2] = 0;
  }
  return vol;
}

// the mesh asset called name, or NULL
static hsmMjcfMesh *findMesh(hsmMjcfLoad *u, const char *name) {
  for (size_t i = 0; i < u->meshes.n; i++) {
    if (strcmp(MESHES(u)[i].name, name) == 0) {
      return &MESHES(u)[i];
    }
  }
  return NULL;
}

// the shape of a primitive geom; its index or -1
static int primitiveShape(hsmMjcfLoad *u, const hsmXmlElem *e, hstGeom type, const double s[3],
                          int material) {
  hsmMesh mesh;
  memset(&mesh, 0, sizeof mesh);
  hsError err = {0};
  float params[5] = {0};
  int nparam = 0, rc = 0;
  hstPrimitive prim = hsPRIM_MESH;
  int slices = u->opt.sphereSlices, stacks = u->opt.sphereStacks;
  if (type == GEOM_BOX || type == GEOM_PLANE) {
    double full[3] = {2 * s[0], 2 * s[1], 2 * s[2]};
    if (type == GEOM_PLANE) {
      full[0] = s[0] > 0 ? 2 * s[0] : 100, full[1] = s[1] > 0 ? 2 * s[1] : 100, full[2] = 1;
    }
    prim = hsPRIM_BOX;
    rc = hsm_meshBox(&mesh, full, &err);
    nparam = 3;
    for (int k = 0; k < 3; k++) {
      params[k] = (float)full[k];
    }
  } else if (type == GEOM_SPHERE) {
    prim = hsPRIM_SPHERE;
    rc = hsm_meshSphere(&mesh, s[0], slices, stacks, &err);
    nparam = 1;
    params[0] = (float)s[0];
  } else if (type == GEOM_CYLINDER) {
    prim = hsPRIM_CYLINDER;
    rc = hsm_meshCylinder(&mesh, s[0], 2 * s[1], 1, 1, 1, slices, &err);
    float p[5] = {(float)s[0], (float)(2 * s[1]), 1, 1, 1};
    memcpy(params, p, sizeof p);
    nparam = 5;
  } else if (type == GEOM_CAPSULE) {
    rc = capsuleMesh(&mesh, s[0], s[1], slices, stacks);
  } else {  // ellipsoid: a unit sphere stretched
    rc = hsm_meshSphere(&mesh, 1, slices, stacks, &err);
    for (int i = 0; !rc && i < 3 * mesh.nvertex; i++) {
      mesh.vertices[i] *= (float)s[i % 3];
    }
  }
  if (rc) {
    hsm_freeMesh(&mesh);
    return (rc == hsE_NOMEM ? hsm_mjcfNomem(u)
                            : hsm_mjcfError(u, rc, e, "size", "<geom>: %s", err.message)), -1;
  }
  hsmShapeInput in = {prim, params, nparam, &mesh, u->file, material, -1, 1, 0, NULL};
  return hsm_addShape(u->b, &in, u->err);
}

// MuJoCo's built-in geom colour
static const double kGrey[4] = {0.5, 0.5, 0.5, 1};

// the geom's colour: its rgba (itself or its class) when not the built-in grey, else its
// material's, else grey
static int geomColor(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, double rgba[4]) {
  memcpy(rgba, kGrey, sizeof kGrey);
  int given = 0;
  if (hsm_mjcfExact(u, e, cls, "rgba", 4, rgba, &given)) {
    return -1;
  }
  // MuJoCo: an rgba other than the built-in grey takes precedence over the material
  int grey = !given || memcmp(rgba, kGrey, sizeof kGrey) == 0;
  const char *mat = hsm_mjcfAttr(u, e, cls, "material", NULL);
  if (grey && mat) {
    for (size_t i = 0; i < u->materials.n; i++) {
      if (strcmp(MATS(u)[i].name, mat) == 0) {
        memcpy(rgba, MATS(u)[i].rgba, 4 * sizeof(double));
        return 0;
      }
    }
    hsm_mjcfWarn(u, e, "<geom> material '%s' is not defined: grey", mat);
  }
  return 0;
}

// push shape refs first .. first + count - 1 placed at T onto the link (and segment)
static int placeShapes(hsmMjcfLoad *u, int link, int segment, int collide, int first, int count,
                       const double T[12]) {
  hsShapeRef ref;
  memcpy(ref.T, T, sizeof ref.T);
  ref.inlineMatrix = -1;
  hsmLinkSpec *l = &LINKSPEC(u, link);
  for (int k = 0; k < count; k++) {
    ref.shape = first + k;
    int index = (int)l->shapeRefs.n;
    if (!hsu_vecPush(&l->shapeRefs, sizeof ref, &ref) ||
        (collide && !hsu_vecPush(&l->collisionRefs, sizeof ref, &ref)) ||
        (segment >= 0 && !hsu_vecPush(&SEGSPEC(u, segment).shapeRefs, sizeof(int), &index))) {
      return hsm_mjcfNomem(u);
    }
  }
  return 0;
}

int hsm_mjcfGeom(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const double T0[12], int link,
                 const double linkT[12], int segment, hsmMjcfMass *out) {
  memset(out, 0, sizeof *out);
  int type = GEOM_SPHERE;
  const char *meshName = hsm_mjcfAttr(u, e, cls, "mesh", NULL);
  if (meshName && !hsm_mjcfAttr(u, e, cls, "type", NULL)) {
    type = GEOM_MESH;
  }
  if (hsm_mjcfKeyword(u, e, cls, "type", kGeomTypes, &type)) {
    return -1;
  }
  if (type == GEOM_HFIELD || type == GEOM_SDF) {
    return hsm_mjcfError(u, hsE_UNSUPPORTED, e, "type", "<geom type=\"%s\"> is not supported "
                         "(%s): the %s cannot be loaded without it", kGeomTypes[type],
                         type == GEOM_HFIELD ? "height fields have no hrpsim shape"
                                             : "signed-distance geoms need MuJoCo's plugins",
                         link >= 0 ? "body" : "world");
  }
  // size: the class's numbers, the element's written over the first ones (MuJoCo reads as
  // many as are written into the default's)
  double s[3] = {0, 0, 0}, own[3], ft[6];
  int ns = 0, nown = 0, hasFromto = 0;
  hsmXmlElem bare = *e;
  bare.nattr = 0;
  if (hsm_mjcfNumbers(u, &bare, cls, "size", 3, s, &ns) ||
      hsm_mjcfNumbers(u, e, -1, "size", 3, own, &nown) ||
      hsm_mjcfExact(u, e, cls, "fromto", 6, ft, &hasFromto)) {
    return -1;
  }
  memcpy(s, own, (size_t)nown * sizeof(double));
  // the geom frame in the body
  double G[12], T[12];
  if (hsm_mjcfFrame(u, e, cls, G)) {
    return -1;
  }
  if (hasFromto && (type == GEOM_CAPSULE || type == GEOM_CYLINDER || type == GEOM_BOX ||
                    type == GEOM_ELLIPSOID)) {
    double d[3] = {ft[3] - ft[0], ft[4] - ft[1], ft[5] - ft[2]}, R[9];
    double mid[3] = {(ft[0] + ft[3]) / 2, (ft[1] + ft[4]) / 2, (ft[2] + ft[5]) / 2};
    double len = hsu_norm(d);
    if (!(len > 1e-12)) {
      return hsm_mjcfError(u, hsE_MODEL, e, "fromto", "<geom> fromto has zero length");
    }
    hsm_mjcfZToVec(R, d);
    hsu_makeTransform(G, R, mid);
    if (type == GEOM_BOX || type == GEOM_ELLIPSOID) {  // square across: size[0] twice
      s[1] = s[0];
      s[2] = len / 2;
    } else {
      s[1] = len / 2;
    }
    ns = 3;
  } else if (hasFromto) {
    hsm_mjcfWarn(u, e, "<geom type=\"%s\"> ignores fromto", kGeomTypes[type]);
  }
  hsu_mulTransform(T, T0, G);
  // sizes each type needs
  static const int needs[] = {0, 0, 1, 2, 3, 2, 3, 0, 0};
  for (int k = 0; k < needs[type]; k++) {
    if (!(s[k] > 0)) {
      return hsm_mjcfError(u, hsE_MODEL, e, "size", "<geom type=\"%s\"> needs %d positive "
                           "size%s%s", kGeomTypes[type], needs[type], needs[type] > 1 ? "s" : "",
                           type == GEOM_CAPSULE || type == GEOM_CYLINDER
                               ? " (radius, half-length) or a radius and fromto" : "");
    }
  }
  hsmMjcfMesh *mesh = NULL;
  if (type == GEOM_MESH) {
    mesh = meshName ? findMesh(u, meshName) : NULL;
    if (!mesh) {
      return hsm_mjcfError(u, hsE_MODEL, e, "mesh", "<geom type=\"mesh\"> names mesh '%s', "
                           "which no <mesh> asset defines", meshName ? meshName : "");
    }
  }
  double rgba[4];
  if (geomColor(u, e, cls, rgba)) {
    return -1;
  }
  int material = link >= 0 ? colorMaterial(u, rgba) : -1;
  if (link >= 0 && material < 0) {
    return -1;
  }
  if (mesh && loadMesh(u, mesh, material)) {
    return -1;
  }
  // mass: given, else density x volume
  double I[3] = {0, 0, 0}, vol = 0, density = 1000, mass = -1;
  int nd = 0, nm = 0;
  if (hsm_mjcfNumbers(u, e, cls, "density", 1, &density, &nd) ||
      hsm_mjcfNumbers(u, e, cls, "mass", 1, &mass, &nm)) {
    return -1;
  }
  if (type == GEOM_MESH) {
    vol = mesh->volume;
  } else if (type != GEOM_PLANE) {
    vol = primitiveMass((hstGeom)type, s, I);
  }
  if (nm && mass < 0) {
    return hsm_mjcfError(u, hsE_MODEL, e, "mass", "<geom> mass %g is negative", mass);
  }
  if (density < 0) {
    return hsm_mjcfError(u, hsE_MODEL, e, "density", "<geom> density %g is negative", density);
  }
  double rho = vol > 0 ? (nm ? mass / vol : density) : 0;
  double R[9], p[3];
  hsu_splitTransform(R, p, T);
  if (vol > 0) {
    double L[9] = {I[0], 0, 0, 0, I[1], 0, 0, 0, I[2]}, c[3] = {0, 0, 0}, RL[9], Rt[9];
    if (type == GEOM_MESH) {
      memcpy(L, mesh->inertia, sizeof L);
      memcpy(c, mesh->com, sizeof c);
    }
    out->mass = rho * vol;
    hsu_transformPoint(out->com, T, c);
    hsu_transpose(Rt, R);
    hsu_mulMat(RL, R, L);
    hsu_mulMat(out->inertia, RL, Rt);
    for (int k = 0; k < 9; k++) {
      out->inertia[k] *= rho;
    }
  }
  if (link < 0) {
    return 0;
  }
  // contype / conaffinity: collide unless both are 0; the link's filter gets the bits
  unsigned ct = 1, ca = 1;
  if (filterBits(u, e, cls, "contype", &ct) || filterBits(u, e, cls, "conaffinity", &ca)) {
    return -1;
  }
  int collide = ct != 0 || ca != 0;
  if (collide && recordFilter(u, e, link, ct, ca)) {
    return -1;
  }
  // shapes, placed in the link
  double S[12];
  hsu_mulTransform(S, linkT, T);
  if (type == GEOM_MESH) {
    return placeShapes(u, link, segment, collide, mesh->first, mesh->count, S);
  }
  int shape = primitiveShape(u, e, (hstGeom)type, s, material);
  if (shape < 0) {
    return -1;
  }
  double X[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, P[12];
  if (type == GEOM_CYLINDER) {  // our cylinder's y onto z
    double Rx[12] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0};
    memcpy(X, Rx, sizeof X);
  } else if (type == GEOM_PLANE) {  // the slab's top face on the plane
    X[11] = -0.5;
  }
  hsu_mulTransform(P, S, X);
  return placeShapes(u, link, segment, collide, shape, 1, P);
}
