// collision_narrow.c - contacts and distances between two primitive geoms (or a primitive and
// one mesh triangle).
//
// Contacts come in two steps. First the normal n (from side a into side b) and the depth:
// closed forms for sphere-sphere, sphere-box and capsule pairs (closest points of their cores);
// the separating-axis test for two polytopes (boxes, triangles, convex meshes' hulls: face
// normals and edge cross products, edge axes only when clearly better than the best face, as
// ODE's box-box does); otherwise GJK on the cores (a sphere is a point, a capsule a segment,
// each with a radius) and, when the cores overlap, MPR on the whole shapes. A mesh triangle is
// one-sided: a normal that would push the other shape behind it is replaced by the triangle's
// own. Then the manifold: each side's feature facing the other (a box's or a hull's face, edge
// or corner; a cylinder's cap, side line or rim point; a triangle's face, edge or corner; a
// capsule's segment or end; a sphere's point), the flatter one as reference face, the other
// clipped against its sides; every clipped point behind the reference face is a contact with
// its own depth, placed midway between the surfaces. A cap is a regular polygon of
// opt.capPoints corners. Distances: the same cores through GJK minus the radii; overlapping
// primitives get minus their penetration depth (an intersection query stops at the overlap).

#include <float.h>
#include <string.h>

#include "collision_private.h"

// a feature is "flat" (face, cap) or "straight" (edge, side line) when the direction deviates
// from its normal by less than this angle [rad, as a sine]
#define FEATURE_SIN 0.02
#define MAX_FEATURE 32

void hsc_addCand(hscCandBuf *buf, const double p[3], const double n[3], double depth) {
  if (buf->n >= buf->max) {
    buf->overflow++;
    return;
  }
  hscCand *c = &buf->c[buf->n++];
  v3copy(c->p, p);
  v3copy(c->n, n);
  c->depth = depth;
}

//---------------------------------- features --------------------------------------------------

typedef struct Feature {
  int n;                     // 1 point, 2 segment, >= 3 polygon (ordered around nrm)
  double p[MAX_FEATURE][3];  // world points, radius included
  double nrm[3];             // polygon: unit face normal pointing to the other shape
} Feature;

static double kCos(void) {
  return sqrt(1 - FEATURE_SIN * FEATURE_SIN);
}

// a segment: its side (both ends) when nearly perpendicular to d, else the end towards d
static void segFeature(const hscConvex *c, const double d[3], Feature *f) {
  double e[3];
  v3sub(e, c->v[1], c->v[0]);
  double len = v3norm(e);
  if (len > 0 && fabs(v3dot(e, d)) < FEATURE_SIN * len) {
    f->n = 2;
    v3mad(f->p[0], c->v[0], c->radius, d);
    v3mad(f->p[1], c->v[1], c->radius, d);
  } else {
    f->n = 1;
    v3mad(f->p[0], v3dot(e, d) > 0 ? c->v[1] : c->v[0], c->radius, d);
  }
}

// a triangle: the whole triangle when it faces d, else the vertex furthest along d, or the edge
// from it nearly perpendicular to d
static void triFeature(const hscConvex *c, const double d[3], Feature *f) {
  const double kc = kCos();
  double e1[3], e2[3], nt[3];
  v3sub(e1, c->v[1], c->v[0]);
  v3sub(e2, c->v[2], c->v[0]);
  v3cross(nt, e1, e2);
  if (v3normalize(nt) > 0 && fabs(v3dot(nt, d)) >= kc) {
    double s = v3dot(nt, d) > 0 ? 1 : -1;
    f->n = 3;
    for (int i = 0; i < 3; i++) {
      v3copy(f->p[i], c->v[s > 0 ? i : 2 - i]);
    }
    v3scale(f->nrm, s, nt);
    return;
  }
  int best = 0;
  for (int i = 1; i < 3; i++) {
    if (v3dot(c->v[i], d) > v3dot(c->v[best], d)) {
      best = i;
    }
  }
  v3copy(f->p[0], c->v[best]);
  f->n = 1;
  for (int k = 1; k < 3; k++) {
    const double *u = c->v[(best + k) % 3];
    double e[3];
    v3sub(e, u, c->v[best]);
    if (fabs(v3dot(e, d)) < FEATURE_SIN * v3norm(e)) {
      v3copy(f->p[1], u);
      f->n = 2;
      return;
    }
  }
}

// a box: the face facing d, else an edge along an axis nearly perpendicular to d, else a corner
static void boxFeature(const hscConvex *c, const double d[3], Feature *f) {
  const double kc = kCos();
  double l[3], h[3] = {0.5 * c->size[0], 0.5 * c->size[1], 0.5 * c->size[2]};
  m3tmulv(l, c->R, d);
  int k = 0;
  for (int j = 1; j < 3; j++) {
    if (fabs(l[j]) > fabs(l[k])) {
      k = j;
    }
  }
  double sg[3];
  for (int j = 0; j < 3; j++) {
    sg[j] = l[j] >= 0 ? 1 : -1;
  }
  if (fabs(l[k]) >= kc) {
    // a face: its four corners counter-clockwise around the outward normal
    int u = (k + 1) % 3, v = (k + 2) % 3;
    static const double cu[4] = {1, -1, -1, 1}, cv[4] = {1, 1, -1, -1};
    for (int i = 0; i < 4; i++) {
      double q[3];
      q[k] = sg[k] * h[k];
      q[u] = cu[i] * h[u];
      q[v] = sg[k] * cv[i] * h[v];
      m3mulv(f->p[i], c->R, q);
      v3add(f->p[i], f->p[i], c->p);
    }
    f->n = 4;
    double ax[3];
    m3col(ax, c->R, k);
    v3scale(f->nrm, sg[k], ax);
    return;
  }
  // an edge along an axis nearly perpendicular to d, else a corner
  int edge = -1;
  for (int j = 0; j < 3; j++) {
    if (fabs(l[j]) < FEATURE_SIN) {
      edge = j;
    }
  }
  double q[3] = {sg[0] * h[0], sg[1] * h[1], sg[2] * h[2]};
  m3mulv(f->p[0], c->R, q);
  v3add(f->p[0], f->p[0], c->p);
  f->n = 1;
  if (edge >= 0) {
    q[edge] = -q[edge];
    m3mulv(f->p[1], c->R, q);
    v3add(f->p[1], f->p[1], c->p);
    f->n = 2;
  }
}

// a cylinder or cone: a flat end facing d, else the side's straight line facing d, else the
// support point
static void roundFeature(const hscConvex *c, const double d[3], int capPoints, Feature *f) {
  const double kc = kCos();
  int cone = c->kind == hsGEOM_CONE;
  double a[3], r = c->size[0], h = 0.5 * c->size[1];
  m3col(a, c->R, 2);
  double ca = v3dot(a, d);
  // a flat end facing d: a regular polygon on its rim (a cone has only its base)
  if ((!cone && fabs(ca) >= kc) || (cone && ca <= -kc)) {
    double s = ca > 0 ? 1 : -1;
    int np = capPoints < 3 ? 3 : (capPoints > MAX_FEATURE ? MAX_FEATURE : capPoints);
    for (int i = 0; i < np; i++) {
      double ang = 2 * HS_PI * i / np * s;
      double q[3] = {r * cos(ang), r * sin(ang), s * h};
      m3mulv(f->p[i], c->R, q);
      v3add(f->p[i], f->p[i], c->p);
    }
    f->n = np;
    v3scale(f->nrm, s, a);
    return;
  }
  double u[3];
  v3mad(u, d, -ca, a);
  if (v3normalize(u) > 0) {
    // the straight line of the side facing d
    double sideCos;
    if (cone) {
      double sn[3];
      v3scale(sn, h * 2, u);
      v3mad(sn, sn, r, a);
      v3normalize(sn);
      sideCos = v3dot(sn, d);
    } else {
      sideCos = sqrt(fmax(0, 1 - ca * ca));
    }
    if (sideCos >= kc) {
      double top[3], bottom[3];
      v3mad(bottom, c->p, -h, a);
      v3mad(bottom, bottom, r, u);
      if (cone) {
        v3mad(top, c->p, h, a);
      } else {
        v3mad(top, c->p, h, a);
        v3mad(top, top, r, u);
      }
      v3copy(f->p[0], bottom);
      v3copy(f->p[1], top);
      f->n = 2;
      return;
    }
  }
  hsc_support(c, d, f->p[0]);
  f->n = 1;
}

// a convex hull: the face most aligned with d, else an edge from the support vertex nearly
// perpendicular to d, else that vertex
static void hullFeature(const hscConvex *c, const double d[3], Feature *f) {
  const double kc = kCos();
  const hscHull *h = c->hull;
  double l[3], q[3];
  m3tmulv(l, c->R, d);
  int bf = 0;
  double bd = -INFINITY;
  for (int i = 0; i < h->nf; i++) {
    double x = v3dot(h->fn + 4 * i, l);
    if (x > bd) {
      bd = x;
      bf = i;
    }
  }
  if (bd >= kc) {
    f->n = 0;
    for (int i = h->fadr[bf]; i < h->fadr[bf + 1]; i++) {
      m3mulv(q, c->R, h->v + 3 * h->fv[i]);
      v3add(f->p[f->n++], q, c->p);
    }
    m3mulv(f->nrm, c->R, h->fn + 4 * bf);
    return;
  }
  int sv = hsc_hullSupportIndex(h, l);
  m3mulv(q, c->R, h->v + 3 * sv);
  v3add(f->p[0], q, c->p);
  f->n = 1;
  for (int i = 0; i < h->ne; i++) {
    int a = h->ev[2 * i], b = h->ev[2 * i + 1];
    if (a != sv && b != sv) {
      continue;
    }
    int o = a == sv ? b : a;
    double e[3];
    v3sub(e, h->v + 3 * o, h->v + 3 * sv);
    if (fabs(v3dot(e, l)) < FEATURE_SIN * v3norm(e)) {
      m3mulv(q, c->R, h->v + 3 * o);
      v3add(f->p[1], q, c->p);
      f->n = 2;
      return;
    }
  }
}

// the feature of c that faces direction d (unit, towards the other shape)
static void feature(const hscConvex *c, const double d[3], int capPoints, Feature *f) {
  f->n = 0;
  switch (c->kind) {
    case HSC_POINT:
      f->n = 1;
      v3mad(f->p[0], c->v[0], c->radius, d);
      return;
    case HSC_SEG:
      segFeature(c, d, f);
      return;
    case HSC_TRI:
      triFeature(c, d, f);
      return;
    case hsGEOM_BOX:
      boxFeature(c, d, f);
      return;
    case hsGEOM_CYLINDER:
    case hsGEOM_CONE:
      roundFeature(c, d, capPoints, f);
      return;
    case HSC_HULL:
      hullFeature(c, d, f);
      return;
    default:
      hsc_support(c, d, f->p[0]);
      f->n = 1;
      return;
  }
}

//---------------------------------- clipping --------------------------------------------------

// keep the part of polygon/segment in (n points) on the side of plane (point o, normal m)
// where (x - o) . m >= 0; returns the new count (polygons stay closed, a segment stays two)
static int clipPlane(double in[][3], int n, double out[][3], const double o[3],
                     const double m[3]) {
  if (n == 1) {
    double x[3];
    v3sub(x, in[0], o);
    if (v3dot(x, m) >= 0) {
      v3copy(out[0], in[0]);
      return 1;
    }
    return 0;
  }
  if (n == 2) {
    double x0[3], x1[3];
    v3sub(x0, in[0], o);
    v3sub(x1, in[1], o);
    double d0 = v3dot(x0, m), d1 = v3dot(x1, m);
    if (d0 < 0 && d1 < 0) {
      return 0;
    }
    for (int i = 0; i < 2; i++) {
      double di = i ? d1 : d0, dj = i ? d0 : d1;
      if (di >= 0) {
        v3copy(out[i], in[i]);
      } else {
        double t = di / (di - dj), e[3];
        v3sub(e, in[1 - i], in[i]);
        v3mad(out[i], in[i], t, e);
      }
    }
    return 2;
  }
  // each corner's distance once (an edge's end is the next edge's start)
  double d[MAX_FEATURE * 2];
  for (int i = 0; i < n; i++) {
    double x[3];
    v3sub(x, in[i], o);
    d[i] = v3dot(x, m);
  }
  int k = 0;
  for (int i = 0; i < n && k < MAX_FEATURE * 2 - 1; i++) {
    int j = i + 1 < n ? i + 1 : 0;
    const double *a = in[i], *b = in[j];
    double da = d[i], db = d[j];
    if (da >= 0) {
      v3copy(out[k++], a);
    }
    if ((da >= 0) != (db >= 0)) {
      double t = da / (da - db), e[3];
      v3sub(e, b, a);
      v3mad(out[k++], a, t, e);
    }
  }
  return k;
}

// midpoint of a feature's points
static void centroid(const Feature *f, double c[3]) {
  c[0] = c[1] = c[2] = 0;
  for (int i = 0; i < f->n; i++) {
    v3add(c, c, f->p[i]);
  }
  v3scale(c, 1.0 / f->n, c);
}

void hsc_manifold(const hscConvex *a, const hscConvex *b, const double n[3], double depth,
                  hscCandBuf *buf) {
  Feature fa, fb;
  double mn[3];
  v3neg(mn, n);
  feature(a, n, buf->capPoints, &fa);
  feature(b, mn, buf->capPoints, &fb);
  const Feature *ref = NULL, *inc = NULL;
  if (fa.n >= 3 && fb.n >= 3) {
    int aFirst = fabs(v3dot(fa.nrm, n)) >= fabs(v3dot(fb.nrm, n));
    ref = aFirst ? &fa : &fb;
    inc = aFirst ? &fb : &fa;
  } else if (fa.n >= 3) {
    ref = &fa;
    inc = &fb;
  } else if (fb.n >= 3) {
    ref = &fb;
    inc = &fa;
  }
  int before = buf->n;
  if (ref) {
    // clip the incident feature against the sides of the reference polygon (from one buffer
    // into the other, in turn)
    double p0[MAX_FEATURE * 2][3], p1[MAX_FEATURE * 2][3];
    double(*cur)[3] = p0, (*next)[3] = p1;
    int k = inc->n;
    memcpy(p0, inc->p, sizeof(double) * 3 * (size_t)k);
    double pn[3], e0[3], e1[3];
    v3sub(e0, ref->p[1], ref->p[0]);
    v3sub(e1, ref->p[2], ref->p[0]);
    v3cross(pn, e0, e1);
    double orient = v3dot(pn, ref->nrm) >= 0 ? 1 : -1;
    for (int i = 0; i < ref->n && k > 0; i++) {
      double e[3], m[3];
      v3sub(e, ref->p[(i + 1) % ref->n], ref->p[i]);
      v3cross(m, ref->nrm, e);  // inward for a counter-clockwise polygon
      v3scale(m, orient, m);
      k = clipPlane(cur, k, next, ref->p[i], m);
      double(*t)[3] = cur;
      cur = next;
      next = t;
    }
    for (int i = 0; i < k; i++) {
      double x[3], mid[3];
      v3sub(x, cur[i], ref->p[0]);
      double dq = -v3dot(x, ref->nrm);
      if (dq >= -buf->margin) {  // (margin 0: the touching and penetrating points only)
        v3mad(mid, cur[i], 0.5 * dq, ref->nrm);
        hsc_addCand(buf, mid, n, dq);
      }
    }
  } else if (fa.n == 2 && fb.n == 2) {
    double ea[3], eb[3], x[3];
    v3sub(ea, fa.p[1], fa.p[0]);
    v3sub(eb, fb.p[1], fb.p[0]);
    v3cross(x, ea, eb);
    if (v3norm(x) < FEATURE_SIN * v3norm(ea) * v3norm(eb)) {
      // parallel lines: b's segment clipped to a's extent
      double q[2][3], out[2][3], ma[3];
      memcpy(q, fb.p, sizeof q);
      int k = clipPlane(q, 2, out, fa.p[0], ea);
      v3neg(ma, ea);
      if (k == 2) {
        memcpy(q, out, sizeof q);
        k = clipPlane(q, 2, out, fa.p[1], ma);
      }
      for (int i = 0; i < k; i++) {
        double mid[3];
        v3mad(mid, out[i], 0.5 * depth, n);
        hsc_addCand(buf, mid, n, depth);
      }
    } else {
      double ca[3], cb[3], mid[3];
      hsc_segSeg(fa.p[0], fa.p[1], fb.p[0], fb.p[1], ca, cb);
      v3add(mid, ca, cb);
      v3scale(mid, 0.5, mid);
      hsc_addCand(buf, mid, n, depth);
    }
  } else if (fa.n == 1) {
    double mid[3];
    v3mad(mid, fa.p[0], -0.5 * depth, n);
    hsc_addCand(buf, mid, n, depth);
  } else {
    double mid[3];
    v3mad(mid, fb.p[0], 0.5 * depth, n);
    hsc_addCand(buf, mid, n, depth);
  }
  if (buf->n == before) {
    // nothing survived the clipping (rounding at an edge): one point between the features
    double ca[3], cb[3], mid[3];
    centroid(&fa, ca);
    centroid(&fb, cb);
    v3add(mid, ca, cb);
    v3scale(mid, 0.5, mid);
    hsc_addCand(buf, mid, n, depth);
  }
}

//---------------------------------- separating axes -------------------------------------------

// a polytope for the separating-axis test: a box, a triangle or a convex mesh's hull
#define POLY_AXES HSC_HULL_MAX_AXES
typedef struct Poly {
  int nv, nf, ne;
  double v[3][3];          // triangle corners
  double f[POLY_AXES][3];  // face normals (unit, world)
  double e[POLY_AXES][3];  // edge directions (unit, world)
  const hscConvex *c;
} Poly;

static void polyOf(Poly *P, const hscConvex *c) {
  P->c = c;
  if (c->kind == HSC_TRI) {
    P->nv = 3;
    memcpy(P->v, c->v, sizeof c->v);
    for (int i = 0; i < 3; i++) {
      v3sub(P->e[i], c->v[(i + 1) % 3], c->v[i]);
      v3normalize(P->e[i]);
    }
    P->ne = 3;
    double e2[3];
    v3sub(e2, c->v[2], c->v[0]);
    double e1[3];
    v3sub(e1, c->v[1], c->v[0]);
    v3cross(P->f[0], e1, e2);
    v3normalize(P->f[0]);
    P->nf = 1;
    return;
  }
  P->nv = 0;
  if (c->kind == HSC_HULL) {
    // the hull's directions turned into the world (projections use the geom frame)
    const hscHull *h = c->hull;
    P->nf = h->nfax;
    P->ne = h->neax;
    for (int k = 0; k < P->nf; k++) {
      m3mulv(P->f[k], c->R, h->ax + 3 * k);
    }
    for (int k = 0; k < P->ne; k++) {
      m3mulv(P->e[k], c->R, h->ax + 3 * (P->nf + k));
    }
    return;
  }
  // box (projected from its centre and half sizes: no corners needed)
  for (int k = 0; k < 3; k++) {
    m3col(P->f[k], c->R, k);
    v3copy(P->e[k], P->f[k]);
  }
  P->nf = 3;
  P->ne = 3;
}

// a box's projection on L: closed form from its centre and half sizes
static inline void boxProject(const Poly *P, const double L[3], double *lo, double *hi) {
  double c = v3dot(P->c->p, L), r = 0;
  for (int k = 0; k < 3; k++) {
    r += 0.5 * P->c->size[k] * fabs(v3dot(P->f[k], L));
  }
  *lo = c - r;
  *hi = c + r;
}

static void project(const Poly *P, const double L[3], double *lo, double *hi) {
  if (P->c->kind == hsGEOM_BOX) {
    boxProject(P, L, lo, hi);
    return;
  }
  if (P->c->kind == HSC_HULL) {
    double l[3], c = v3dot(P->c->p, L);
    m3tmulv(l, P->c->R, L);
    hsc_hullProject(P->c->hull, l, lo, hi);
    *lo += c;
    *hi += c;
    return;
  }
  double l = v3dot(P->v[0], L), h = l;
  for (int i = 1; i < P->nv; i++) {
    double x = v3dot(P->v[i], L);
    l = x < l ? x : l;
    h = x > h ? x : h;
  }
  *lo = l;
  *hi = h;
}

// a one-sided triangle refuses a normal that would push the other shape behind it by more than
// this cosine: a normal (nearly) in the triangle's plane is a side contact, as on the walls of
// a closed mesh resting on a face (with a tighter bound a wall tilted by 1e-4 rad would turn
// the floor's 1e-9 m contact into a push through the floor's whole extent)
static const double kBehind = 0.1;

// a range within P's projection on L (project()'s): for a hull the projections of two of its
// vertices, computed as project() computes every vertex's (those farthest along the geom axis
// nearest to L and against it: often the extremes themselves), otherwise project()'s own range
static inline void innerRange(const Poly *P, const double L[3], double *lo, double *hi) {
  if (P->c->kind == hsGEOM_BOX) {
    boxProject(P, L, lo, hi);
    return;
  }
  if (P->c->kind != HSC_HULL) {
    project(P, L, lo, hi);
    return;
  }
  const hscHull *h = P->c->hull;
  double l[3], c = v3dot(P->c->p, L);
  m3tmulv(l, P->c->R, L);
  int k = fabs(l[1]) > fabs(l[0]) ? 1 : 0;
  k = fabs(l[2]) > fabs(l[k]) ? 2 : k;
  int neg = l[k] < 0;
  double x = v3dot(h->v + 3 * h->ext[2 * k + neg], l);
  double y = v3dot(h->v + 3 * h->ext[2 * k + 1 - neg], l);
  x += c;
  y += c;
  *lo = x < y ? x : y;
  *hi = x < y ? y : x;
}

// a lower bound of the overlap sat() finds along L: the inner ranges' overlap. A projection's
// range holds its inner range, and a rounded difference grows with its first operand and
// shrinks with its second, so ahi - blo and bhi - alo are at least these.
static double overlapBound(const Poly *A, const Poly *B, const double L[3]) {
  double alo, ahi, blo, bhi;
  innerRange(A, L, &alo, &ahi);
  innerRange(B, L, &blo, &bhi);
  double o1 = ahi - blo, o2 = bhi - alo;
  return o1 <= o2 ? o1 : o2;
}

// the overlap of A and B along L: 0 when L separates them, else 1 with *o the shorter way to
// part them (b along +L by ahi - blo, or along -L by bhi - alo) and *s its sign
static int overlapAlong(const Poly *A, const Poly *B, const double L[3], double *o, double *s) {
  double alo, ahi, blo, bhi;
  project(A, L, &alo, &ahi);
  project(B, L, &blo, &bhi);
  if (ahi < blo || bhi < alo) {
    return 0;
  }
  double o1 = ahi - blo, o2 = bhi - alo;  // move b along +L by o1, or along -L by o2
  *o = o1 <= o2 ? o1 : o2;
  *s = o1 <= o2 ? 1 : -1;
  return 1;
}

// face axis i of the pair: A's face normals, then B's
static const double *faceAxis(const Poly *A, const Poly *B, int i) {
  return i < A->nf ? A->f[i] : B->f[i - A->nf];
}

// sat() for a pair with a hull on either side (not one-sided): the same answer, bit for bit, as
// the walk over every axis in order, with most hull projections (a scan of every vertex) left
// out. That walk keeps the least overlap of the face axes (the first of equals) and that of the
// edge axes, and answers "apart" if any axis separates. Here an axis is projected only when its
// bound (overlapBound, two vertices a hull) does not show that it neither separates (bound >= 0)
// nor changes the answer: a face axis whose bound is above the least face overlap found, or
// equal to it from a later axis; an edge axis whose bound is at least the least edge overlap
// found before it, or at least 0.95 faceBest - 1e-12, beyond which no edge axis is taken. The
// face axis of least bound is projected first, so the least face overlap is known early.
static int satBounded(const Poly *A, const Poly *B, double n[3], double *depth) {
  int nf = A->nf + B->nf, seed = 0;
  double ob[2 * POLY_AXES];
  for (int i = 0; i < nf; i++) {
    ob[i] = overlapBound(A, B, faceAxis(A, B, i));
    seed = ob[i] < ob[seed] ? i : seed;
  }
  double faceBest = INFINITY, faceN[3] = {0, 0, 1}, o, s;
  int faceIdx = nf;
  for (int k = -1; k < nf; k++) {
    int i = k < 0 ? seed : k;
    if (k >= 0 && (i == seed || (ob[i] >= 0 && (ob[i] > faceBest ||
                                                  (ob[i] == faceBest && i > faceIdx))))) {
      continue;
    }
    const double *L = faceAxis(A, B, i);
    if (!overlapAlong(A, B, L, &o, &s)) {
      return 0;
    }
    if (o < faceBest || (o == faceBest && i < faceIdx)) {
      faceBest = o;
      faceIdx = i;
      v3scale(faceN, s, L);
    }
  }
  // edge axes: only one clearly better than the best face is taken (below)
  double best = INFINITY, bestN[3] = {0, 0, 1}, taken = 0.95 * faceBest - 1e-12;
  for (int k = 0; k < A->ne * B->ne; k++) {
    double L[3];
    v3cross(L, A->e[k / B->ne], B->e[k % B->ne]);
    if (v3normalize(L) < 1e-9) {
      continue;  // parallel edges: covered by the face axes
    }
    double b = overlapBound(A, B, L);
    if (b >= 0 && (b >= taken || b >= best)) {
      continue;
    }
    if (!overlapAlong(A, B, L, &o, &s)) {
      return 0;
    }
    if (o < best) {
      best = o;
      v3scale(bestN, s, L);
    }
  }
  if (best < taken) {
    v3copy(n, bestN);
    *depth = best;
  } else {
    v3copy(n, faceN);
    *depth = faceBest;
  }
  return 1;
}

// separating-axis test of two polytopes: 1 with n (from a into b) and depth when they touch or
// overlap, 0 when apart. oneSidedB: b is a mesh triangle whose back does not count.
static int sat(const hscConvex *ca, const hscConvex *cb, int oneSidedB, double n[3],
               double *depth) {
  Poly A, B;
  polyOf(&A, ca);
  polyOf(&B, cb);
  if (!oneSidedB && (ca->kind == HSC_HULL || cb->kind == HSC_HULL)) {
    return satBounded(&A, &B, n, depth);
  }
  double best = INFINITY, bestN[3] = {0, 0, 1}, faceBest = INFINITY, faceN[3] = {0, 0, 1};
  double frontBest = INFINITY, frontN[3] = {0, 0, 1};  // one-sided: the triangle's own axis
  int nax = A.nf + B.nf + A.ne * B.ne;
  for (int i = 0; i < nax; i++) {
    double L[3];
    int isFace = i < A.nf + B.nf;
    if (i < A.nf) {
      v3copy(L, A.f[i]);
    } else if (i < A.nf + B.nf) {
      v3copy(L, B.f[i - A.nf]);
    } else {
      int k = i - A.nf - B.nf;
      v3cross(L, A.e[k / B.ne], B.e[k % B.ne]);
      if (v3normalize(L) < 1e-9) {
        continue;  // parallel edges: covered by the face axes
      }
    }
    double alo, ahi, blo, bhi;
    project(&A, L, &alo, &ahi);
    project(&B, L, &blo, &bhi);
    if (ahi < blo || bhi < alo) {
      return 0;
    }
    double o1 = ahi - blo, o2 = bhi - alo;  // move b along +L by o1, or along -L by o2
    double o = o1 <= o2 ? o1 : o2, s = o1 <= o2 ? 1 : -1;
    if (oneSidedB && i >= A.nf && i < A.nf + B.nf) {
      // the triangle's face: always push a to its front (b moves along -normal)
      o = bhi - alo;
      s = -1;
      frontBest = o;
      v3scale(frontN, s, L);
    }
    if (isFace) {
      if (o < faceBest) {
        faceBest = o;
        v3scale(faceN, s, L);
      }
    } else if (o < best) {
      best = o;
      v3scale(bestN, s, L);
    }
  }
  // edge axes only when clearly better than the best face
  if (best < 0.95 * faceBest - 1e-12) {
    v3copy(n, bestN);
    *depth = best;
  } else {
    v3copy(n, faceN);
    *depth = faceBest;
  }
  if (oneSidedB && v3dot(n, B.f[0]) > kBehind) {
    v3copy(n, frontN);
    *depth = frontBest;
  }
  return 1;
}

//---------------------------------- closed forms ----------------------------------------------

// closest point of segment [p0, p1] to q
static void closestOnSeg(double out[3], const double q[3], const double p0[3],
                         const double p1[3]) {
  double e[3], x[3];
  v3sub(e, p1, p0);
  v3sub(x, q, p0);
  double den = v3dot(e, e), t = den > 0 ? v3dot(x, e) / den : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  v3mad(out, p0, t, e);
}

double hsc_segSeg(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                  double cp[3], double cq[3]) {
  // Ericson 5.1.9
  double d1[3], d2[3], r[3];
  v3sub(d1, p1, p0);
  v3sub(d2, q1, q0);
  v3sub(r, p0, q0);
  double a = v3dot(d1, d1), e = v3dot(d2, d2), f = v3dot(d2, r), s, t;
  if (a <= 0 && e <= 0) {
    s = t = 0;
  } else if (a <= 0) {
    s = 0;
    t = f / e;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
  } else {
    double c = v3dot(d1, r);
    if (e <= 0) {
      t = 0;
      s = -c / a;
      s = s < 0 ? 0 : (s > 1 ? 1 : s);
    } else {
      double b = v3dot(d1, d2), den = a * e - b * b;
      s = den > 0 ? (b * f - c * e) / den : 0;
      s = s < 0 ? 0 : (s > 1 ? 1 : s);
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = -c / a;
        s = s < 0 ? 0 : (s > 1 ? 1 : s);
      } else if (t > 1) {
        t = 1;
        s = (b - c) / a;
        s = s < 0 ? 0 : (s > 1 ? 1 : s);
      }
    }
  }
  v3mad(cp, p0, s, d1);
  v3mad(cq, q0, t, d2);
  return v3dist2(cp, cq);
}

void hsc_closestOnTri(double out[3], const double p[3], const double a[3], const double b[3],
                      const double c[3]) {
  // Ericson 5.1.5
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  v3sub(ab, b, a);
  v3sub(ac, c, a);
  v3sub(ap, p, a);
  double d1 = v3dot(ab, ap), d2 = v3dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    v3copy(out, a);
    return;
  }
  v3sub(bp, p, b);
  double d3 = v3dot(ab, bp), d4 = v3dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    v3copy(out, b);
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    v3mad(out, a, d1 / (d1 - d3), ab);
    return;
  }
  v3sub(cp, p, c);
  double d5 = v3dot(ab, cp), d6 = v3dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    v3copy(out, c);
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    v3mad(out, a, d2 / (d2 - d6), ac);
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double bc[3];
    v3sub(bc, c, b);
    v3mad(out, b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc);
    return;
  }
  double den = va + vb + vc;
  if (!(den > 0)) {
    // degenerate triangle: nearest of its edges
    double best = INFINITY, q[3];
    const double *v[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
      closestOnSeg(q, p, v[i], v[(i + 1) % 3]);
      double d = v3dist2(q, p);
      if (d < best) {
        best = d;
        v3copy(out, q);
      }
    }
    return;
  }
  double v = vb / den, w = vc / den;
  for (int j = 0; j < 3; j++) {
    out[j] = a[j] + ab[j] * v + ac[j] * w;
  }
}

// sphere (centre c, radius r) against a box: the box's surface point nearest the centre q, the
// outward normal nb there (towards the sphere) and the signed distance of the centre from the
// box surface (negative inside)
static double sphereBox(const double c[3], const hscConvex *box, double q[3], double nb[3]) {
  double h[3] = {0.5 * box->size[0], 0.5 * box->size[1], 0.5 * box->size[2]};
  double x[3], l[3], cl[3];
  v3sub(x, c, box->p);
  m3tmulv(l, box->R, x);
  int inside = 1;
  for (int j = 0; j < 3; j++) {
    cl[j] = l[j] < -h[j] ? -h[j] : (l[j] > h[j] ? h[j] : l[j]);
    inside &= cl[j] == l[j];
  }
  if (!inside) {
    double dl[3];
    v3sub(dl, l, cl);
    double d = v3norm(dl);
    v3scale(dl, 1 / d, dl);
    m3mulv(nb, box->R, dl);
    m3mulv(q, box->R, cl);
    v3add(q, q, box->p);
    return d;
  }
  // inside: the nearest face
  int k = 0;
  for (int j = 1; j < 3; j++) {
    if (h[j] - fabs(l[j]) < h[k] - fabs(l[k])) {
      k = j;
    }
  }
  double s = l[k] >= 0 ? 1 : -1, f = h[k] - fabs(l[k]);
  cl[k] = s * h[k];
  m3mulv(q, box->R, cl);
  v3add(q, q, box->p);
  double ax[3];
  m3col(ax, box->R, k);
  v3scale(nb, s, ax);
  return -f;
}

//---------------------------------- contacts --------------------------------------------------

// contact between point/segment cores with radii whose closest points are pa, pb at distance d
static void coreContact(const hscConvex *a, const hscConvex *b, const double pa[3],
                        const double pb[3], double d, hscCandBuf *buf) {
  double n[3];
  v3sub(n, pb, pa);
  if (d > 0) {
    v3scale(n, 1 / d, n);
  } else {
    // concentric: any direction will do; the z axis keeps it deterministic
    n[0] = n[1] = 0;
    n[2] = 1;
  }
  double depth = a->radius + b->radius - d;
  if (a->kind == HSC_SEG || b->kind == HSC_SEG) {
    hsc_manifold(a, b, n, depth, buf);
    return;
  }
  double mid[3];
  v3mad(mid, pa, a->radius - 0.5 * depth, n);
  hsc_addCand(buf, mid, n, depth);
}

static int isPoly(const hscConvex *c) {
  return c->kind == hsGEOM_BOX || c->kind == HSC_TRI || c->kind == HSC_HULL;
}

// the triangle's unit normal (oneSided callers), or zero
static void triNormal(const hscConvex *c, double nt[3]) {
  double e1[3], e2[3];
  v3sub(e1, c->v[1], c->v[0]);
  v3sub(e2, c->v[2], c->v[0]);
  v3cross(nt, e1, e2);
  v3normalize(nt);
}

// MPR's normal is a portal's, which for a shallow overlap can be degrees off the direction of
// least penetration (a cylinder's side on a box's edge: 3 degrees instead of 17, enough to stop
// a tracked vehicle's roller from climbing a step). A shallow overlap (depth under
// kShallow) is refined: b moved out along MPR's normal by twice the depth plus a margin, GJK's
// closest points of the now separate shapes give the normal, and the depth along it
static const double kShallow = 1e-3, kMargin = 1e-6;

static void refineShallow(const hscConvex *a, const hscConvex *b, double n[3], double *depth) {
  if (!(*depth < kShallow)) {
    return;
  }
  double s = 2 * *depth + kMargin, off[3];
  v3scale(off, s, n);
  hscConvex bs = *b;
  v3add(bs.p, bs.p, off);
  for (int i = 0; i < 3; i++) {
    v3add(bs.v[i], bs.v[i], off);
  }
  double qa[3], qb[3], m[3];
  double d = hsc_gjk(a, &bs, qa, qb) - a->radius - b->radius;
  v3sub(m, qb, qa);
  if (!(d > 0) || !(v3normalize(m) > 0)) {
    return;  // still touching: keep MPR's answer
  }
  double dn = s * v3dot(m, n) - d;
  if (dn >= 0) {
    v3copy(n, m);
    *depth = dn;
  }
}

int hsc_collideConvex(const hscConvex *a, const hscConvex *b, hscCandBuf *buf, int oneSidedB) {
  double n[3], depth;
  if (isPoly(a) && isPoly(b)) {
    if (!sat(a, b, oneSidedB && b->kind == HSC_TRI, n, &depth)) {
      return 0;
    }
    hsc_manifold(a, b, n, depth, buf);
    return 1;
  }
  // a sphere against a box: closed form
  if ((a->kind == HSC_POINT && b->kind == hsGEOM_BOX) ||
      (b->kind == HSC_POINT && a->kind == hsGEOM_BOX)) {
    int sphA = a->kind == HSC_POINT;
    const hscConvex *sph = sphA ? a : b, *box = sphA ? b : a;
    double q[3], nb[3];
    double d = sphereBox(sph->v[0], box, q, nb);
    if (d > sph->radius) {
      return 0;
    }
    double deep[3], mid[3];
    v3mad(deep, sph->v[0], -sph->radius, nb);
    v3add(mid, deep, q);
    v3scale(mid, 0.5, mid);
    if (sphA) {
      v3neg(nb, nb);
    }
    hsc_addCand(buf, mid, nb, sph->radius - d);
    return 1;
  }
  double pa[3], pb[3], nt[3] = {0, 0, 0};
  int tri = oneSidedB && b->kind == HSC_TRI;
  if (tri) {
    triNormal(b, nt);
  }
  double d = hsc_gjk(a, b, pa, pb), rs = a->radius + b->radius;
  if (d > rs) {
    return 0;
  }
  if (d > 1e-12 * (1 + rs)) {
    v3sub(n, pb, pa);
    v3scale(n, 1 / d, n);
    depth = rs - d;
    if (!(tri && v3dot(n, nt) > kBehind)) {
      if (a->kind == HSC_POINT || b->kind == HSC_POINT ||
          (a->kind == HSC_SEG && b->kind == HSC_SEG)) {
        coreContact(a, b, pa, pb, d, buf);
      } else {
        hsc_manifold(a, b, n, depth, buf);
      }
      return 1;
    }
  } else if (hsc_mpr(a, b, n, &depth, pa) != 0) {
    // touching exactly (MPR sees no overlap): the direction between the centres
    double ca[3], cb[3];
    hsc_center(a, ca);
    hsc_center(b, cb);
    v3sub(n, cb, ca);
    if (!(v3normalize(n) > 0)) {
      n[0] = n[1] = 0;
      n[2] = 1;
    }
    depth = 0;
  } else {
    refineShallow(a, b, n, &depth);
  }
  if (tri && v3dot(n, nt) > kBehind) {
    // a mesh triangle pushes only towards its front
    double s[3], mnt[3], t0 = v3dot(nt, b->v[0]);
    v3neg(mnt, nt);
    hsc_support(a, mnt, s);
    depth = t0 - (v3dot(nt, s) - a->radius);
    if (depth < 0) {
      return 0;
    }
    v3copy(n, mnt);
  }
  hsc_manifold(a, b, n, depth, buf);
  return 1;
}

void hsc_collideGeoms(const hscPosed *a, const hscPosed *b, hscCandBuf *buf) {
  int ma = hsc_isTriMesh(a), mb = hsc_isTriMesh(b);
  if (ma && mb) {
    hsc_collideMeshMesh(a, b, buf);
    return;
  }
  if (ma || mb) {
    hsc_collideMesh(ma ? a : b, ma ? b : a, mb, buf);
    return;
  }
  hscConvex ca, cb;
  hsc_convexOf(&ca, a);
  hsc_convexOf(&cb, b);
  hsc_collideConvex(&ca, &cb, buf, 0);
}

//---------------------------------- distances -------------------------------------------------

double hsc_distanceGeoms(const hscPosed *a, const hscPosed *b, double bound, int earlyOut,
                         hscQueue *q, double pa[3], double pb[3]) {
  int ma = hsc_isTriMesh(a), mb = hsc_isTriMesh(b);
  if (ma && mb) {
    return hsc_distanceMeshMesh(a, b, bound, earlyOut, q, pa, pb);
  }
  if (ma) {
    return hsc_distanceMesh(a, b, bound, earlyOut, pa, pb);
  }
  if (mb) {
    return hsc_distanceMesh(b, a, bound, earlyOut, pb, pa);
  }
  hscConvex ca, cb;
  hsc_convexOf(&ca, a);
  hsc_convexOf(&cb, b);
  double rs = ca.radius + cb.radius;
  // a sphere and a box: closed form, inside or out
  if ((ca.kind == HSC_POINT && cb.kind == hsGEOM_BOX) ||
      (cb.kind == HSC_POINT && ca.kind == hsGEOM_BOX)) {
    int sphA = ca.kind == HSC_POINT;
    const hscConvex *sph = sphA ? &ca : &cb, *box = sphA ? &cb : &ca;
    double q[3], nb[3], s[3];
    double d = sphereBox(sph->v[0], box, q, nb) - sph->radius;
    v3mad(s, sph->v[0], -sph->radius, nb);
    v3copy(sphA ? pa : pb, s);
    v3copy(sphA ? pb : pa, q);
    return d;
  }
  double core = hsc_gjk(&ca, &cb, pa, pb);
  if (core > 1e-12 * (1 + rs)) {
    double u[3];
    v3sub(u, pb, pa);
    v3scale(u, 1 / core, u);
    v3mad(pa, pa, ca.radius, u);
    v3mad(pb, pb, -cb.radius, u);
    return core - rs;
  }
  if (earlyOut) {
    // the cores overlap: the distance is <= 0 <= bound, its value is not needed
    hsc_center(&ca, pa);
    v3copy(pb, pa);
    return 0;
  }
  // overlapping cores: minus the penetration depth
  double n[3], depth, p[3];
  if (isPoly(&ca) && isPoly(&cb)) {
    if (!sat(&ca, &cb, 0, n, &depth)) {
      depth = 0;
      n[0] = n[1] = 0;
      n[2] = 1;
    }
    hscCand c[MAX_FEATURE * 2];
    hscCandBuf buf = {c, 0, MAX_FEATURE * 2, 0, 8, 0};
    hsc_manifold(&ca, &cb, n, depth, &buf);
    v3copy(p, c[0].p);
  } else if (hsc_mpr(&ca, &cb, n, &depth, p) != 0) {
    depth = 0;
    hsc_center(&ca, p);
    n[0] = n[1] = 0;
    n[2] = 1;
  }
  v3mad(pa, p, 0.5 * depth, n);
  v3mad(pb, p, -0.5 * depth, n);
  return -depth;
}
