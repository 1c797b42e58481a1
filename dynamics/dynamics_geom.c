// dynamics_geom.c - contact generation: the seam between the dynamics and the geometry. This
// file alone knows how contacts are found; collision/ will replace it (the step only asks for
// the contacts of the link pairs that can touch, at the current link poses, and turns them into
// ODE contact joints: dynamics_contact.c).
//
// Today's geometry is ODE's: boxes, spheres and cylinders (VRML's y axis turned onto ODE's z)
// where a link's collision shape is that primitive under a rigid transform (scaling allowed
// where it keeps the primitive: per-axis for boxes, uniform for spheres, equal in x and z for
// cylinders); trimeshes made from the shape's triangles otherwise (cones, face sets, planes).
// Debian's ODE has no cylinder-cylinder collider, so each cylinder also gets a trimesh twin
// used for that pair. A moving link's geoms ride on its ODE body (so they are where the link
// is); a static link's are placed at its pose. No ODE space: each link pair is tested in order,
// first by the links' world AABBs, then geom by geom (AABBs, then dCollide; ODE is asked for up
// to 64 points and the deepest and most spread out maxContactsPerPair are kept). A new point
// closer than the pair's cullingThresh to a point already kept for the same link pair is
// dropped. Points come out grouped by link pair, in link pair order.

#include <math.h>
#include <string.h>

#include "dynamics_private.h"

// one collision geom of a link
typedef struct hsdGeom {
  dGeomID g;            // the ODE geom (box, sphere, cylinder or trimesh)
  dGeomID twin;         // cylinders only: the same shape as a trimesh, for cylinder-cylinder
  dTriMeshDataID data;  // trimesh data of g (or of twin for cylinders), NULL if none
  dTriMeshDataID twinData;
  double *verts;        // trimesh vertices (x, y, z), link frame; owned
  dTriIndex *tris;      // trimesh indices; owned
  double *twinVerts;
  dTriIndex *twinTris;
  int cls;              // ODE geom class of g
  int link;             // owning link
  double T[12];         // placement of g in the link frame (rigid; identity for trimeshes,
                        // whose vertices are in the link frame)
  double aabb[6];       // world AABB at the current step (minx, maxx, miny, maxy, minz, maxz)
} hsdGeom;

// the geometry of one character
struct hsdShapes {
  hsdGeom *geoms;  // every link's, link by link
  int ngeom;
  int *geomAdr;    // per link: its first geom
  int *ngeomOf;    // per link: how many geoms it has
  double (*aabb)[6];  // per link: the union of its geoms' AABBs at the current poses
};

static const double kIdentity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

//---------------------------------- geoms -----------------------------------------------------

static void destroyGeom(hsdGeom *g) {
  if (g->g) {
    dGeomDestroy(g->g);
  }
  if (g->twin) {
    dGeomDestroy(g->twin);
  }
  if (g->data) {
    dGeomTriMeshDataDestroy(g->data);
  }
  if (g->twinData) {
    dGeomTriMeshDataDestroy(g->twinData);
  }
  hsu_free(g->verts);
  hsu_free(g->tris);
  hsu_free(g->twinVerts);
  hsu_free(g->twinTris);
  memset(g, 0, sizeof *g);
}

// split the 3x3 part of T into R S with S = diag(s) when its columns are orthogonal and it
// keeps handedness; returns 0 otherwise
static int splitScale(double R[9], double s[3], const double T[12]) {
  double c[3][3];
  for (int j = 0; j < 3; j++) {
    for (int i = 0; i < 3; i++) {
      c[j][i] = T[4 * i + j];
    }
    s[j] = hsu_norm(c[j]);
    if (!(s[j] > 0)) {
      return 0;
    }
  }
  for (int j = 0; j < 3; j++) {
    for (int k = j + 1; k < 3; k++) {
      if (fabs(hsu_dot(c[j], c[k])) > 1e-9 * s[j] * s[k]) {
        return 0;
      }
    }
  }
  for (int j = 0; j < 3; j++) {
    for (int i = 0; i < 3; i++) {
      R[3 * i + j] = c[j][i] / s[j];
    }
  }
  double x[3];
  hsu_cross(x, c[0], c[1]);
  return hsu_dot(x, c[2]) > 0;
}

static int near(double a, double b) {
  return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

// a trimesh of shape sh under T (link frame); NULL when the shape has no usable triangles, or
// (with *nomem set) when memory ran out
static dGeomID makeTrimesh(const hsShape *sh, const double T[12], double **verts,
                           dTriIndex **tris, dTriMeshDataID *data, int *nomem) {
  int nv = sh->nvertex, nt = 0;
  if (nv < 3 || sh->ntriangle < 1) {
    return NULL;
  }
  double *v = hsu_malloc((size_t)nv * 3 * sizeof *v);
  dTriIndex *t = hsu_malloc((size_t)sh->ntriangle * 3 * sizeof *t);
  if (!v || !t) {
    hsu_free(v);
    hsu_free(t);
    *nomem = 1;
    return NULL;
  }
  for (int i = 0; i < nv; i++) {
    double p[3] = {sh->vertices[3 * i], sh->vertices[3 * i + 1], sh->vertices[3 * i + 2]};
    hsu_transformPoint(v + 3 * i, T, p);
  }
  for (int i = 0; i < sh->ntriangle; i++) {
    const int *tri = sh->triangles + 3 * i;
    if (tri[0] < 0 || tri[0] >= nv || tri[1] < 0 || tri[1] >= nv || tri[2] < 0 || tri[2] >= nv) {
      continue;
    }
    for (int k = 0; k < 3; k++) {
      t[3 * nt + k] = (dTriIndex)tri[k];
    }
    nt++;
  }
  if (nt == 0 || !hsd_sane(v, 3 * nv)) {
    hsu_free(v);
    hsu_free(t);
    return NULL;
  }
  *data = dGeomTriMeshDataCreate();
  dGeomTriMeshDataBuildDouble(*data, v, 3 * sizeof(double), nv, t, 3 * nt,
                              3 * sizeof(dTriIndex));
  *verts = v;
  *tris = t;
  return dCreateTriMesh(0, *data, NULL, NULL, NULL);
}

// place geom g of link l: attached to its body with the offset (offR, offP) * T, or fixed in
// the world at the link's pose * T
static void placeGeom(dGeomID g, const hsdLinkOde *l, const double T[12], const double linkP[3],
                   const double linkR[9]) {
  double R[9], t[3], RT[9], x[3];
  hsu_splitTransform(R, t, T);
  dMatrix3 m;
  if (l->body) {
    hsu_mulMat(RT, l->offR, R);
    hsu_rotVec(x, l->offR, t);
    for (int j = 0; j < 3; j++) {
      x[j] += l->offP[j];
    }
    hsd_toOdeR(m, RT);
    dGeomSetBody(g, l->body);
    dGeomSetOffsetPosition(g, x[0], x[1], x[2]);
    dGeomSetOffsetRotation(g, m);
  } else {
    hsu_mulMat(RT, linkR, R);
    hsu_rotVec(x, linkR, t);
    for (int j = 0; j < 3; j++) {
      x[j] += linkP[j];
    }
    hsd_toOdeR(m, RT);
    dGeomSetPosition(g, x[0], x[1], x[2]);
    dGeomSetRotation(g, m);
  }
}

// make the geoms of one collision shape reference of link k: 1 when made, 0 when the shape
// gives nothing to collide with (degenerate), hsE_NOMEM
static int makeShapeGeom(const hsBody *b, int k, const hsShapeRef *ref, hsdGeom *g) {
  const hsShape *sh = &b->shapes[ref->shape];
  const float *pa = sh->params;
  double R[9], s[3];
  int nomem = 0;
  memset(g, 0, sizeof *g);
  g->link = k;
  // a primitive under a transform that keeps it that primitive
  if (hsd_sane(ref->T, 12) && splitScale(R, s, ref->T)) {
    double t[3] = {ref->T[3], ref->T[7], ref->T[11]};
    hsu_makeTransform(g->T, R, t);
    if (sh->primitive == hsPRIM_BOX && sh->nparam >= 3) {
      double d[3] = {pa[0] * s[0], pa[1] * s[1], pa[2] * s[2]};
      if (d[0] > 0 && d[1] > 0 && d[2] > 0 && hsd_sane(d, 3)) {
        g->g = dCreateBox(0, d[0], d[1], d[2]);
      }
    } else if (sh->primitive == hsPRIM_SPHERE && sh->nparam >= 1 && near(s[0], s[1]) &&
               near(s[0], s[2])) {
      double r = pa[0] * s[0];
      if (r > 0 && hsd_sane(&r, 1)) {
        g->g = dCreateSphere(0, r);
      }
    } else if (sh->primitive == hsPRIM_CYLINDER && sh->nparam >= 2 && near(s[0], s[2])) {
      double d[2] = {pa[0] * s[0], pa[1] * s[1]};
      if (d[0] > 0 && d[1] > 0 && hsd_sane(d, 2)) {
        g->g = dCreateCylinder(0, d[0], d[1]);
        // ODE's cylinder axis is z, VRML's y: the geom frame is the shape frame turned -90
        // degrees about x, which takes z onto y
        static const double Ry[12] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0};
        double T2[12];
        hsu_mulTransform(T2, g->T, Ry);
        memcpy(g->T, T2, sizeof T2);
        // the twin: the shape's own triangles under the full transform
        g->twin = makeTrimesh(sh, ref->T, &g->twinVerts, &g->twinTris, &g->twinData, &nomem);
      }
    }
  }
  // anything else: the shape's triangles, in the link frame
  if (!g->g && !nomem) {
    static const double I[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    memcpy(g->T, I, sizeof I);
    g->g = makeTrimesh(sh, ref->T, &g->verts, &g->tris, &g->data, &nomem);
  }
  if (!g->g || nomem) {
    destroyGeom(g);
    return nomem ? hsE_NOMEM : 0;
  }
  g->cls = dGeomGetClass(g->g);
  return 1;
}

// make every geom of character ch (its ODE bodies exist) and place them
int hsd_makeShapes(hsdWorld *w, int ch, hsError *err) {
  hsdCharacter *c = &w->chars[ch];
  const hsBody *b = c->body;
  int n = 0;
  for (int k = 0; k < b->nlink; k++) {
    n += b->links[k].ncollisionRef;
  }
  hsdShapes *sh = hsu_calloc(1, sizeof *sh);
  if (sh) {
    sh->geoms = hsu_calloc((size_t)n + 1, sizeof *sh->geoms);
    sh->geomAdr = hsu_calloc((size_t)b->nlink, sizeof *sh->geomAdr);
    sh->ngeomOf = hsu_calloc((size_t)b->nlink, sizeof *sh->ngeomOf);
    sh->aabb = hsu_calloc((size_t)b->nlink, sizeof *sh->aabb);
  }
  c->shapes = sh;
  if (!sh || !sh->geoms || !sh->geomAdr || !sh->ngeomOf || !sh->aabb) {
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  for (int k = 0; k < b->nlink; k++) {
    const hsLink *lk = &b->links[k];
    const hsdLinkOde *l = &c->links[k];
    sh->geomAdr[k] = sh->ngeom;
    for (int r = 0; r < lk->ncollisionRef; r++) {
      const hsShapeRef *ref = &lk->collisionRefs[r];
      if (ref->shape < 0 || ref->shape >= b->nshape) {
        continue;
      }
      hsdGeom *g = &sh->geoms[sh->ngeom];
      int made = makeShapeGeom(b, k, ref, g);
      if (made < 0) {
        return HS_ERR(err, hsE_NOMEM, "out of memory");
      }
      if (made) {
        const double *p = c->state->linkP + 3 * k, *R = c->state->linkR + 9 * k;
        placeGeom(g->g, l, g->T, p, R);
        if (g->twin) {
          placeGeom(g->twin, l, kIdentity, p, R);
        }
        sh->ngeom++;
      }
    }
    sh->ngeomOf[k] = sh->ngeom - sh->geomAdr[k];
  }
  return 0;
}

void hsd_freeShapes(hsdWorld *w, int ch) {
  hsdShapes *sh = w->chars[ch].shapes;
  if (!sh) {
    return;
  }
  for (int i = 0; i < sh->ngeom; i++) {
    destroyGeom(&sh->geoms[i]);
  }
  hsu_free(sh->geoms);
  hsu_free(sh->geomAdr);
  hsu_free(sh->ngeomOf);
  hsu_free(sh->aabb);
  hsu_free(sh);
  w->chars[ch].shapes = NULL;
}

void hsd_placeShapes(hsdWorld *w, int ch) {
  const hsdCharacter *c = &w->chars[ch];
  const hsdShapes *sh = c->shapes;
  for (int k = 0; sh && k < c->body->nlink; k++) {
    const hsdLinkOde *l = &c->links[k];
    if (l->body) {
      continue;  // on its body
    }
    const double *p = c->state->linkP + 3 * k, *R = c->state->linkR + 9 * k;
    for (int g = sh->geomAdr[k]; g < sh->geomAdr[k] + sh->ngeomOf[k]; g++) {
      const hsdGeom *gg = &sh->geoms[g];
      placeGeom(gg->g, l, gg->T, p, R);
      if (gg->twin) {
        placeGeom(gg->twin, l, kIdentity, p, R);
      }
    }
  }
}

//---------------------------------- queries ---------------------------------------------------

void hsd_shapesMoved(hsdWorld *w) {
  for (int ci = 0; ci < w->nchar; ci++) {
    hsdShapes *sh = w->chars[ci].shapes;
    for (int k = 0; sh && k < w->chars[ci].body->nlink; k++) {
      double *box = sh->aabb[k];
      for (int g = sh->geomAdr[k]; g < sh->geomAdr[k] + sh->ngeomOf[k]; g++) {
        hsdGeom *gg = &sh->geoms[g];
        dGeomGetAABB(gg->g, gg->aabb);
        for (int j = 0; j < 3; j++) {
          if (g == sh->geomAdr[k] || gg->aabb[2 * j] < box[2 * j]) {
            box[2 * j] = gg->aabb[2 * j];
          }
          if (g == sh->geomAdr[k] || gg->aabb[2 * j + 1] > box[2 * j + 1]) {
            box[2 * j + 1] = gg->aabb[2 * j + 1];
          }
        }
      }
    }
  }
}

static int overlap(const double a[6], const double b[6]) {
  return a[0] <= b[1] && b[0] <= a[1] && a[2] <= b[3] && b[2] <= a[3] && a[4] <= b[5] &&
         b[4] <= a[5];
}

// keep k of the n points in pts (n > k): the deepest, the farthest from it, the one spanning the
// largest triangle with those, then each time the one farthest from all kept (so a flat face
// keeps its corners); the kept points move to the front in that order
static int reducePoints(dContactGeom *pts, int n, int k) {
  int best = 0;
  for (int i = 1; i < n; i++) {
    if (pts[i].depth > pts[best].depth) {
      best = i;
    }
  }
  for (int kept = 0; kept < k; kept++) {
    if (kept > 0) {
      double bestScore = -1;
      best = kept;
      for (int i = kept; i < n; i++) {
        double score;
        const dReal *p = pts[i].pos;
        if (kept == 1) {
          double d[3] = {p[0] - pts[0].pos[0], p[1] - pts[0].pos[1], p[2] - pts[0].pos[2]};
          score = hsu_dot(d, d);
        } else if (kept == 2) {
          double a[3], b[3], x[3];
          for (int j = 0; j < 3; j++) {
            a[j] = p[j] - pts[0].pos[j];
            b[j] = p[j] - pts[1].pos[j];
          }
          hsu_cross(x, a, b);
          score = hsu_dot(x, x);
        } else {
          score = INFINITY;
          for (int q = 0; q < kept; q++) {
            double d[3] = {p[0] - pts[q].pos[0], p[1] - pts[q].pos[1], p[2] - pts[q].pos[2]};
            score = fmin(score, hsu_dot(d, d));
          }
        }
        if (score > bestScore) {
          bestScore = score;
          best = i;
        }
      }
    }
    dContactGeom t = pts[kept];
    pts[kept] = pts[best];
    pts[best] = t;
  }
  return k;
}

// collide two geoms into w->scratch; returns the number of points (at most maxPoints)
static int collideGeoms(const hsdWorld *w, const hsdGeom *a, const hsdGeom *b, int maxPoints) {
  dGeomID ga = a->g, gb = b->g;
  if (a->cls == dCylinderClass && b->cls == dCylinderClass) {
    // no cylinder-cylinder collider in this ODE: one of them as its triangles
    if (!a->twin) {
      return 0;
    }
    ga = a->twin;
  }
  int n = dCollide(ga, gb, w->nscratch, w->scratch, sizeof(dContactGeom));
  return n > maxPoints ? reducePoints(w->scratch, n, maxPoints) : n;
}

// 1 if the links of lp have geoms whose AABBs overlap
static int linksOverlap(const hsdWorld *w, const hsdLinkPair *lp) {
  const hsdShapes *s1 = w->chars[lp->ch[0]].shapes, *s2 = w->chars[lp->ch[1]].shapes;
  int a = lp->link[0], b = lp->link[1];
  return s1->ngeomOf[a] > 0 && s2->ngeomOf[b] > 0 && overlap(s1->aabb[a], s2->aabb[b]);
}

int hsd_findContacts(hsdWorld *w, const unsigned char *active, hsdContact *out, int max,
                     int *dropped) {
  hsd_shapesMoved(w);
  const hsdLinkPair *lps = w->linkPairs.data;
  int maxPoints = w->opt.maxContactsPerPair, n = 0;
  *dropped = 0;
  for (size_t i = 0; i < w->linkPairs.n; i++) {
    const hsdLinkPair *lp = &lps[i];
    if (!active[i] || !linksOverlap(w, lp)) {
      continue;
    }
    const hsdShapes *s1 = w->chars[lp->ch[0]].shapes, *s2 = w->chars[lp->ch[1]].shapes;
    int l1 = lp->link[0], l2 = lp->link[1];
    double cull = w->pairs[lp->pair].surface.cullingThresh;
    int first = n;
    for (int a = s1->geomAdr[l1]; a < s1->geomAdr[l1] + s1->ngeomOf[l1]; a++) {
      for (int b = s2->geomAdr[l2]; b < s2->geomAdr[l2] + s2->ngeomOf[l2]; b++) {
        const hsdGeom *ga = &s1->geoms[a], *gb = &s2->geoms[b];
        if (!overlap(ga->aabb, gb->aabb)) {
          continue;
        }
        int np = collideGeoms(w, ga, gb, maxPoints);
        for (int k = 0; k < np; k++) {
          const dContactGeom *cg = &w->scratch[k];
          // merge points closer than the culling threshold to a kept one
          int dup = 0;
          for (int q = first; q < n && !dup; q++) {
            double d[3] = {out[q].p[0] - cg->pos[0], out[q].p[1] - cg->pos[1],
                           out[q].p[2] - cg->pos[2]};
            dup = hsu_norm(d) < cull;
          }
          if (dup) {
            continue;
          }
          if (n >= max) {
            (*dropped)++;
            continue;
          }
          hsdContact *hc = &out[n++];
          hc->pair = lp->pair;
          hc->ch[0] = lp->ch[0];
          hc->ch[1] = lp->ch[1];
          hc->link[0] = l1;
          hc->link[1] = l2;
          for (int j = 0; j < 3; j++) {
            hc->p[j] = cg->pos[j];
            hc->n[j] = cg->normal[j];
            hc->force[j] = 0;
          }
          hc->depth = cg->depth;
        }
      }
    }
  }
  return n;
}

int hsd_touches(hsdWorld *w, const hsdLinkPair *lp) {
  if (!linksOverlap(w, lp)) {
    return 0;
  }
  const hsdShapes *s1 = w->chars[lp->ch[0]].shapes, *s2 = w->chars[lp->ch[1]].shapes;
  int l1 = lp->link[0], l2 = lp->link[1];
  for (int a = s1->geomAdr[l1]; a < s1->geomAdr[l1] + s1->ngeomOf[l1]; a++) {
    for (int b = s2->geomAdr[l2]; b < s2->geomAdr[l2] + s2->ngeomOf[l2]; b++) {
      const hsdGeom *ga = &s1->geoms[a], *gb = &s2->geoms[b];
      if (overlap(ga->aabb, gb->aabb) && collideGeoms(w, ga, gb, 1) > 0) {
        return 1;
      }
    }
  }
  return 0;
}
