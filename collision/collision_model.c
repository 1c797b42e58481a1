// collision_model.c - hscModel: the collision geometry of one body, built once.
//
// Each link's collision shapes (hsLink.collisionRefs) become geoms in the link frame. A shape
// reference's transform may scale; it is split into a rotation and per-axis scales (when its
// columns are orthogonal), and a primitive stays a primitive when the scale keeps its kind: a
// box takes any axis scales, a sphere a uniform one, a cylinder or cone equal scales across its
// axis (OpenHRP's y). Cylinders and cones are closed only when their top/bottom/side flags are
// all set; open ones, planes, meshes and everything else become meshes of the shape's
// triangles. A mesh under a rigid transform is shared between every reference to its shape; a
// scaled one is built with the scale baked in. Every mesh that is closed and convex also gets
// its hull (collision_hull.c), and the narrow phase then treats it as a convex solid. In
// bounding-box mode each link becomes the one box bounding its geoms.

#include <float.h>
#include <string.h>

#include "collision_private.h"

void hsc_defaultModelOptions(hscModelOptions *opt) {
  opt->boundingBoxes = 0;
  opt->leafSize = 4;
}

// rotation R and positive scales s with T's 3x3 part = R diag(s), when its columns are
// orthogonal (relative 1e-9) and it is not a reflection; 0 otherwise
static int splitScale(const double T[12], double R[9], double s[3]) {
  double c[3][3];
  for (int j = 0; j < 3; j++) {
    for (int i = 0; i < 3; i++) {
      c[j][i] = T[4 * i + j];
    }
    s[j] = v3norm(c[j]);
    if (!(s[j] > 0) || !isfinite(s[j])) {
      return 0;
    }
  }
  for (int j = 0; j < 3; j++) {
    for (int k = j + 1; k < 3; k++) {
      if (fabs(v3dot(c[j], c[k])) > 1e-9 * s[j] * s[k]) {
        return 0;
      }
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      R[3 * i + j] = c[j][i] / s[j];
    }
  }
  double x[3];
  v3cross(x, c[0], c[1]);
  return v3dot(x, c[2]) > 0;
}

static int near(double a, double b) {
  return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

// the box bounding a geom, geom frame
static void geomBox(hscGeom *g) {
  double h[3] = {0, 0, 0};
  switch (g->type) {
    case hsGEOM_SPHERE:
      h[0] = h[1] = h[2] = g->size[0];
      break;
    case hsGEOM_CAPSULE:
      h[0] = h[1] = g->size[0];
      h[2] = g->size[0] + 0.5 * g->size[1];
      break;
    case hsGEOM_BOX:
      h[0] = 0.5 * g->size[0];
      h[1] = 0.5 * g->size[1];
      h[2] = 0.5 * g->size[2];
      break;
    case hsGEOM_CYLINDER:
    case hsGEOM_CONE:
      h[0] = h[1] = g->size[0];
      h[2] = 0.5 * g->size[1];
      break;
    case hsGEOM_MESH:
      if (g->mesh->nnode > 0) {
        v3copy(g->lo, g->mesh->nodes[0].lo);
        v3copy(g->hi, g->mesh->nodes[0].hi);
      } else {
        g->lo[0] = g->lo[1] = g->lo[2] = 0;
        g->hi[0] = g->hi[1] = g->hi[2] = 0;
      }
      return;
  }
  v3neg(g->lo, h);
  v3copy(g->hi, h);
}

// grow the link-frame box lb by geom g's box
static void growLinkBox(double lb[6], const hscGeom *g) {
  for (int c = 0; c < 8; c++) {
    double q[3] = {(c & 1) ? g->hi[0] : g->lo[0], (c & 2) ? g->hi[1] : g->lo[1],
                   (c & 4) ? g->hi[2] : g->lo[2]};
    double w[3];
    m3mulv(w, g->R, q);
    v3add(w, w, g->t);
    for (int j = 0; j < 3; j++) {
      lb[j] = fmin(lb[j], w[j]);
      lb[3 + j] = fmax(lb[3 + j], w[j]);
    }
  }
}

// allocate an empty model of nlink links with room for maxGeom geoms and meshes
static hscModel *allocModel(int nlink, int maxGeom, hsError *err) {
  hscModel *m = hsu_calloc(1, sizeof *m);
  if (m) {
    m->nlink = nlink;
    m->geoms = hsu_calloc((size_t)maxGeom + 1, sizeof *m->geoms);
    m->geomAdr = hsu_calloc((size_t)nlink + 1, sizeof *m->geomAdr);
    m->meshes = hsu_calloc((size_t)maxGeom + 1, sizeof *m->meshes);
    m->hulls = hsu_calloc((size_t)maxGeom + 1, sizeof *m->hulls);
    m->linkBox = hsu_malloc(sizeof(double) * 6 * (size_t)(nlink + 1));
  }
  if (!m || !m->geoms || !m->geomAdr || !m->meshes || !m->hulls || !m->linkBox) {
    hsc_freeModel(m);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  return m;
}

// give the model mesh (built, or NULL when that failed) and its hull when it is closed and
// convex; returns the mesh's slot, or a negative code (mesh freed)
static int addMesh(hscModel *m, hscMesh *mesh, hsError *err) {
  if (!mesh) {
    return hsE_NOMEM;
  }
  hscHull *hull = NULL;
  if (hsc_makeHull(mesh, &hull, err) < 0) {
    hsc_freeMesh(mesh);
    return hsE_NOMEM;
  }
  m->meshes[m->nmesh] = mesh;
  m->hulls[m->nmesh] = hull;
  return m->nmesh++;
}

// per-link boxes and, in bounding-box mode, the replacement of each link's geoms by its box
static void finishModel(hscModel *m, int boundingBoxes) {
  for (int k = 0; k < m->nlink; k++) {
    double *lb = m->linkBox + 6 * k;
    for (int j = 0; j < 3; j++) {
      lb[j] = DBL_MAX;
      lb[3 + j] = -DBL_MAX;
    }
    for (int g = m->geomAdr[k]; g < m->geomAdr[k + 1]; g++) {
      growLinkBox(lb, &m->geoms[g]);
    }
    if (m->geomAdr[k] == m->geomAdr[k + 1]) {
      for (int j = 0; j < 6; j++) {
        lb[j] = NAN;
      }
    }
  }
  if (!boundingBoxes) {
    return;
  }
  // one box per link with geometry; meshes stay allocated until the model is freed
  int n = 0;
  for (int k = 0; k < m->nlink; k++) {
    int had = m->geomAdr[k + 1] > m->geomAdr[k];
    m->geomAdr[k] = n;
    if (had) {
      const double *lb = m->linkBox + 6 * k;
      hscGeom *g = &m->geoms[n++];
      memset(g, 0, sizeof *g);
      g->type = hsGEOM_BOX;
      g->link = k;
      hsu_setIdentity(g->R);
      for (int j = 0; j < 3; j++) {
        g->t[j] = 0.5 * (lb[j] + lb[3 + j]);
        // a flat link (a plane of triangles) still gets a box of some thickness
        g->size[j] = fmax(lb[3 + j] - lb[j], 1e-6);
      }
      geomBox(g);
    }
  }
  m->geomAdr[m->nlink] = n;
  m->ngeom = n;
}

// fill g as a primitive from shape sh under ref's transform; 1 if it stays a primitive
static int primitiveGeom(hscGeom *g, const hsShape *sh, const double T[12]) {
  double R[9], s[3];
  if (!hsu_allFinite(T, 12) || !splitScale(T, R, s)) {
    return 0;
  }
  const float *pa = sh->params;
  int np = sh->nparam;
  for (int i = 0; i < np; i++) {
    if (!isfinite(pa[i])) {
      return 0;
    }
  }
  // VRML's cylinder and cone axis is y: the geom frame (axis z) is the shape frame turned
  // -90 degrees about x, which takes z onto y
  static const double kYup[9] = {1, 0, 0, 0, 0, 1, 0, -1, 0};
  memcpy(g->R, R, sizeof g->R);
  g->t[0] = T[3];
  g->t[1] = T[7];
  g->t[2] = T[11];
  switch (sh->primitive) {
    case hsPRIM_BOX:
      if (np < 3 || !(pa[0] > 0 && pa[1] > 0 && pa[2] > 0)) {
        return 0;
      }
      g->type = hsGEOM_BOX;
      for (int j = 0; j < 3; j++) {
        g->size[j] = pa[j] * s[j];
      }
      return 1;
    case hsPRIM_SPHERE:
      if (np < 1 || !(pa[0] > 0) || !near(s[0], s[1]) || !near(s[0], s[2])) {
        return 0;
      }
      g->type = hsGEOM_SPHERE;
      g->size[0] = pa[0] * s[0];
      return 1;
    case hsPRIM_CYLINDER:
    case hsPRIM_CONE: {
      int cyl = sh->primitive == hsPRIM_CYLINDER;
      int nflag = cyl ? 3 : 2;
      if (np < 2 || !(pa[0] > 0 && pa[1] > 0) || !near(s[0], s[2])) {
        return 0;
      }
      for (int i = 2; i < 2 + nflag && i < np; i++) {
        if (pa[i] == 0) {
          return 0;  // an open end or side: its triangles say what is there
        }
      }
      g->type = cyl ? hsGEOM_CYLINDER : hsGEOM_CONE;
      g->size[0] = pa[0] * s[0];
      g->size[1] = pa[1] * s[1];
      hsu_mulMat(g->R, R, kYup);
      return 1;
    }
    default:
      return 0;
  }
}

hscModel *hsc_makeModel(const hsBody *body, const hscModelOptions *opt, hsError *err) {
  hscModelOptions o;
  hsc_defaultModelOptions(&o);
  if (opt) {
    o = *opt;
  }
  if (!body) {
    HS_ERR(err, hsE_INVALID, "no body");
    return NULL;
  }
  int maxGeom = 0;
  for (int k = 0; k < body->nlink; k++) {
    maxGeom += body->links[k].ncollisionRef;
  }
  hscModel *m = allocModel(body->nlink, maxGeom, err);
  if (!m) {
    return NULL;
  }
  // meshes under rigid transforms, shared per shape: the slot in m->meshes, or -1
  int *byShape = hsu_malloc(sizeof *byShape * ((size_t)body->nshape + 1));
  if (!byShape) {
    hsc_freeModel(m);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  for (int i = 0; i <= body->nshape; i++) {
    byShape[i] = -1;
  }
  for (int k = 0; k < body->nlink; k++) {
    const hsLink *lk = &body->links[k];
    m->geomAdr[k] = m->ngeom;
    for (int r = 0; r < lk->ncollisionRef; r++) {
      const hsShapeRef *ref = &lk->collisionRefs[r];
      if (ref->shape < 0 || ref->shape >= body->nshape) {
        continue;
      }
      const hsShape *sh = &body->shapes[ref->shape];
      hscGeom *g = &m->geoms[m->ngeom];
      memset(g, 0, sizeof *g);
      g->link = k;
      if (!primitiveGeom(g, sh, ref->T)) {
        // the shape's triangles
        if (sh->ntriangle <= 0 || !hsu_allFinite(ref->T, 12)) {
          continue;
        }
        int ok = 1;
        for (int i = 0; i < 3 * sh->ntriangle && ok; i++) {
          ok = sh->triangles[i] >= 0 && sh->triangles[i] < sh->nvertex;
        }
        for (int i = 0; i < 3 * sh->nvertex && ok; i++) {
          ok = isfinite(sh->vertices[i]);
        }
        if (!ok) {
          continue;  // the loader checks this; a hand-made body may not
        }
        g->type = hsGEOM_MESH;
        int slot;
        if (hsu_isRigid(ref->T, 1e-9)) {
          hsu_splitTransform(g->R, g->t, ref->T);
          if (byShape[ref->shape] < 0) {
            byShape[ref->shape] = addMesh(
                m, hsc_makeMesh(sh->vertices, sh->nvertex, sh->triangles, sh->ntriangle, NULL,
                                o.leafSize, err), err);
            if (byShape[ref->shape] < 0) {
              hsu_free(byShape);
              hsc_freeModel(m);
              return NULL;
            }
          }
          slot = byShape[ref->shape];
        } else {
          hsu_setIdentity(g->R);
          g->t[0] = g->t[1] = g->t[2] = 0;
          slot = addMesh(m, hsc_makeMesh(sh->vertices, sh->nvertex, sh->triangles,
                                         sh->ntriangle, ref->T, o.leafSize, err), err);
          if (slot < 0) {
            hsu_free(byShape);
            hsc_freeModel(m);
            return NULL;
          }
        }
        g->mesh = m->meshes[slot];
        g->hull = m->hulls[slot];
      }
      geomBox(g);
      m->ngeom++;
    }
  }
  m->geomAdr[body->nlink] = m->ngeom;
  hsu_free(byShape);
  finishModel(m, o.boundingBoxes);
  return m;
}

hscModel *hsc_makeModelFromGeoms(const hscGeomDesc *geoms, int ngeom, int nlink,
                                 const hscModelOptions *opt, hsError *err) {
  hscModelOptions o;
  hsc_defaultModelOptions(&o);
  if (opt) {
    o = *opt;
  }
  if (nlink < 0 || ngeom < 0 || (ngeom > 0 && !geoms)) {
    HS_ERR(err, hsE_INVALID, "bad geom list");
    return NULL;
  }
  // check every geom before building anything
  for (int i = 0; i < ngeom; i++) {
    const hscGeomDesc *d = &geoms[i];
    if (d->link < 0 || d->link >= nlink || (i > 0 && d->link < geoms[i - 1].link)) {
      HS_ERR(err, hsE_INVALID, "geom %d: link %d out of range or out of order", i, d->link);
      return NULL;
    }
    if (!hsu_allFinite(d->T, 12) || !hsu_isRigid(d->T, 1e-9)) {
      HS_ERR(err, hsE_INVALID, "geom %d: the transform is not rigid", i);
      return NULL;
    }
    int nsize = d->type == hsGEOM_SPHERE ? 1 : d->type == hsGEOM_BOX ? 3 : 2;
    if (d->type < hsGEOM_SPHERE || d->type > hsGEOM_MESH) {
      HS_ERR(err, hsE_INVALID, "geom %d: unknown type %d", i, (int)d->type);
      return NULL;
    }
    if (d->type == hsGEOM_MESH) {
      if (d->ntriangle <= 0 || d->nvertex <= 0 || !d->vertices || !d->triangles) {
        HS_ERR(err, hsE_INVALID, "geom %d: an empty mesh", i);
        return NULL;
      }
      for (int j = 0; j < 3 * d->ntriangle; j++) {
        if (d->triangles[j] < 0 || d->triangles[j] >= d->nvertex) {
          HS_ERR(err, hsE_INVALID, "geom %d: triangle %d has a bad vertex index", i, j / 3);
          return NULL;
        }
      }
      for (int j = 0; j < 3 * d->nvertex; j++) {
        if (!isfinite(d->vertices[j])) {
          HS_ERR(err, hsE_INVALID, "geom %d: vertex %d is not finite", i, j / 3);
          return NULL;
        }
      }
    } else {
      for (int j = 0; j < nsize; j++) {
        // a capsule's core may have length 0 (a sphere)
        int zeroOk = d->type == hsGEOM_CAPSULE && j == 1;
        if (!isfinite(d->size[j]) || d->size[j] < 0 || (!zeroOk && d->size[j] == 0)) {
          HS_ERR(err, hsE_INVALID, "geom %d: size %d is %g", i, j, d->size[j]);
          return NULL;
        }
      }
    }
  }
  hscModel *m = allocModel(nlink, ngeom, err);
  if (!m) {
    return NULL;
  }
  int gi = 0;
  for (int k = 0; k < nlink; k++) {
    m->geomAdr[k] = m->ngeom;
    for (; gi < ngeom && geoms[gi].link == k; gi++) {
      const hscGeomDesc *d = &geoms[gi];
      hscGeom *g = &m->geoms[m->ngeom];
      memset(g, 0, sizeof *g);
      g->type = d->type;
      g->link = k;
      hsu_splitTransform(g->R, g->t, d->T);
      memcpy(g->size, d->size, sizeof g->size);
      if (d->type == hsGEOM_MESH) {
        int slot = addMesh(m, hsc_makeMesh(d->vertices, d->nvertex, d->triangles, d->ntriangle,
                                           NULL, o.leafSize, err), err);
        if (slot < 0) {
          hsc_freeModel(m);
          return NULL;
        }
        g->mesh = m->meshes[slot];
        g->hull = m->hulls[slot];
      }
      geomBox(g);
      m->ngeom++;
    }
  }
  m->geomAdr[nlink] = m->ngeom;
  finishModel(m, o.boundingBoxes);
  return m;
}

void hsc_freeModel(hscModel *m) {
  if (!m) {
    return;
  }
  if (m->meshes) {
    for (int i = 0; i < m->nmesh; i++) {
      hsc_freeMesh(m->meshes[i]);
      if (m->hulls) {
        hsc_freeHull(m->hulls[i]);
      }
    }
  }
  hsu_free(m->meshes);
  hsu_free(m->hulls);
  hsu_free(m->geoms);
  hsu_free(m->geomAdr);
  hsu_free(m->linkBox);
  hsu_free(m);
}

int hsc_modelLinkCount(const hscModel *m) {
  return m ? m->nlink : 0;
}

int hsc_modelGeomCount(const hscModel *m, int link) {
  if (!m || link < 0 || link >= m->nlink) {
    return 0;
  }
  return m->geomAdr[link + 1] - m->geomAdr[link];
}

int hsc_modelGeom(const hscModel *m, int link, int k, double size[3], int *ntriangle) {
  if (k < 0 || k >= hsc_modelGeomCount(m, link)) {
    return -1;
  }
  const hscGeom *g = &m->geoms[m->geomAdr[link] + k];
  if (size) {
    memcpy(size, g->size, sizeof g->size);
  }
  if (ntriangle) {
    *ntriangle = g->type == hsGEOM_MESH ? g->mesh->ntri : 0;
  }
  return (int)g->type;
}

int hsc_modelLinkBox(const hscModel *m, int link, double box[6]) {
  if (hsc_modelGeomCount(m, link) <= 0) {
    return -1;
  }
  memcpy(box, m->linkBox + 6 * link, 6 * sizeof(double));
  return 0;
}
