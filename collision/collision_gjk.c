// collision_gjk.c - convex shapes by their support functions: GJK distance with closest points
// (our own, libccd 2.1 has none) and MPR penetration (libccd).
//
// A shape is an hscConvex: a primitive geom, a triangle, a segment or a point, each possibly swept
// by a sphere of some radius. GJK works on the cores (radius 0); callers subtract the radii, so a
// sphere or a capsule is exact. GJK keeps a simplex of up to four points of the Minkowski
// difference with the support points they came from, and reduces it each iteration to the face
// nearest the origin (Voronoi regions, as in Ericson's Real-Time Collision Detection, section 5.1;
// a tetrahedron too flat to hold the origin is reduced to its nearest face); it stops when the
// support point brings no progress, when it repeats a simplex point, or after 128 iterations
// (curved shapes converge only in the limit). For polytopes the answer is exact up to rounding. MPR
// (libccd's ccdMPRPenetration, which allocates nothing) gives a normal and depth for overlapping
// shapes with the radii included in the supports. libccd's types stay inside this file.

#include <ccd/ccd.h>
#include <string.h>

#include "collision_private.h"

void hsc_basis(const double n[3], double t1[3], double t2[3]) {
  // the axis least aligned with n, made orthogonal
  double e[3] = {0, 0, 0};
  if (fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2])) {
    e[0] = 1;
  } else if (fabs(n[1]) <= fabs(n[2])) {
    e[1] = 1;
  } else {
    e[2] = 1;
  }
  v3cross(t1, n, e);
  v3normalize(t1);
  v3cross(t2, n, t1);
}

//---------------------------------- shapes ----------------------------------------------------

void hsc_convexOf(hscConvex *c, const hscPosed *g) {
  memset(c, 0, sizeof *c);
  c->kind = (int)g->g->type;
  memcpy(c->R, g->R, sizeof c->R);
  v3copy(c->p, g->p);
  memcpy(c->size, g->g->size, sizeof c->size);
  if (g->g->type == hsGEOM_SPHERE) {
    c->kind = HSC_POINT;
    v3copy(c->v[0], g->p);
    c->radius = g->g->size[0];
  } else if (g->g->type == hsGEOM_CAPSULE) {
    c->kind = HSC_SEG;
    double ax[3];
    m3col(ax, g->R, 2);
    v3mad(c->v[0], g->p, -0.5 * g->g->size[1], ax);
    v3mad(c->v[1], g->p, 0.5 * g->g->size[1], ax);
    c->radius = g->g->size[0];
  } else if (g->g->type == hsGEOM_MESH && g->g->hull) {
    c->kind = HSC_HULL;
    c->hull = g->g->hull;
  }
}

void hsc_convexTri(hscConvex *c, const double a[3], const double b[3], const double d[3]) {
  c->kind = HSC_TRI;
  c->radius = 0;
  c->hull = NULL;
  v3copy(c->v[0], a);
  v3copy(c->v[1], b);
  v3copy(c->v[2], d);
}

void hsc_support(const hscConvex *c, const double d[3], double out[3]) {
  double l[3], q[3];
  switch (c->kind) {
    case HSC_POINT:
      v3copy(out, c->v[0]);
      return;
    case HSC_SEG:
      v3copy(out, v3dot(c->v[1], d) > v3dot(c->v[0], d) ? c->v[1] : c->v[0]);
      return;
    case HSC_TRI: {
      int best = 0;
      double bd = v3dot(c->v[0], d);
      for (int i = 1; i < 3; i++) {
        double x = v3dot(c->v[i], d);
        if (x > bd) {
          bd = x;
          best = i;
        }
      }
      v3copy(out, c->v[best]);
      return;
    }
    case hsGEOM_BOX:
      m3tmulv(l, c->R, d);
      for (int j = 0; j < 3; j++) {
        q[j] = (l[j] >= 0 ? 0.5 : -0.5) * c->size[j];
      }
      break;
    case hsGEOM_CYLINDER: {
      m3tmulv(l, c->R, d);
      double s = sqrt(l[0] * l[0] + l[1] * l[1]);
      q[0] = s > 0 ? c->size[0] * l[0] / s : c->size[0];
      q[1] = s > 0 ? c->size[0] * l[1] / s : 0;
      q[2] = (l[2] >= 0 ? 0.5 : -0.5) * c->size[1];
      break;
    }
    case hsGEOM_CONE: {
      m3tmulv(l, c->R, d);
      double s = sqrt(l[0] * l[0] + l[1] * l[1]), h = 0.5 * c->size[1];
      double rim[3] = {s > 0 ? c->size[0] * l[0] / s : c->size[0],
                       s > 0 ? c->size[0] * l[1] / s : 0, -h};
      if (h * l[2] >= v3dot(rim, l)) {
        q[0] = q[1] = 0;
        q[2] = h;
      } else {
        v3copy(q, rim);
      }
      break;
    }
    case HSC_HULL:
      m3tmulv(l, c->R, d);
      v3copy(q, c->hull->v + 3 * hsc_hullSupportIndex(c->hull, l));
      break;
    default:  // sphere and capsule reach here only through hsc_convexOf's cores
      v3copy(out, c->p);
      return;
  }
  m3mulv(out, c->R, q);
  v3add(out, out, c->p);
}

void hsc_center(const hscConvex *c, double out[3]) {
  switch (c->kind) {
    case HSC_POINT:
      v3copy(out, c->v[0]);
      return;
    case HSC_SEG:
      for (int j = 0; j < 3; j++) {
        out[j] = 0.5 * (c->v[0][j] + c->v[1][j]);
      }
      return;
    case HSC_TRI:
      for (int j = 0; j < 3; j++) {
        out[j] = (c->v[0][j] + c->v[1][j] + c->v[2][j]) / 3;
      }
      return;
    case HSC_HULL:
      m3mulv(out, c->R, c->hull->c);
      v3add(out, out, c->p);
      return;
    default:
      v3copy(out, c->p);
  }
}

//---------------------------------- GJK -------------------------------------------------------

typedef struct Simplex {
  double w[4][3], a[4][3], b[4][3];  // Minkowski point w = a - b and its sources
  double lambda[4];                  // barycentric weights of the closest point
  int n;
} Simplex;

// copy vertex j of s to slot i
static void moveVertex(Simplex *s, int i, int j) {
  memcpy(s->w[i], s->w[j], sizeof s->w[i]);
  memcpy(s->a[i], s->a[j], sizeof s->a[i]);
  memcpy(s->b[i], s->b[j], sizeof s->b[i]);
}

// keep the simplex vertices listed in idx (count k), with their weights
static void keep(Simplex *s, const int *idx, const double *lam, int k) {
  int ascending = 1;
  for (int i = 1; i < k; i++) {
    ascending &= idx[i] > idx[i - 1];
  }
  if (ascending) {
    // in place: slot i is never read again once written (idx[j] > idx[i] >= i for j > i)
    for (int i = 0; i < k; i++) {
      if (idx[i] != i) {
        moveVertex(s, i, idx[i]);
      }
    }
  } else {
    Simplex t;
    for (int i = 0; i < k; i++) {
      memcpy(t.w[i], s->w[idx[i]], sizeof t.w[i]);
      memcpy(t.a[i], s->a[idx[i]], sizeof t.a[i]);
      memcpy(t.b[i], s->b[idx[i]], sizeof t.b[i]);
    }
    for (int i = 0; i < k; i++) {
      memcpy(s->w[i], t.w[i], sizeof s->w[i]);
      memcpy(s->a[i], t.a[i], sizeof s->a[i]);
      memcpy(s->b[i], t.b[i], sizeof s->b[i]);
    }
  }
  for (int i = 0; i < k; i++) {
    s->lambda[i] = lam[i];
  }
  s->n = k;
}

// copy the n vertices in use (and their weights) of s to d
static void copySimplex(Simplex *d, const Simplex *s) {
  memcpy(d->w, s->w, sizeof s->w[0] * (size_t)s->n);
  memcpy(d->a, s->a, sizeof s->a[0] * (size_t)s->n);
  memcpy(d->b, s->b, sizeof s->b[0] * (size_t)s->n);
  memcpy(d->lambda, s->lambda, sizeof s->lambda[0] * (size_t)s->n);
  d->n = s->n;
}

// closest point to the origin on segment (w[i], w[j]) of s: weights into lam, returns the
// number of vertices kept (1 or 2) with their indices in idx
static int segRegion(const Simplex *s, int i, int j, int idx[2], double lam[2]) {
  const double *A = s->w[i], *B = s->w[j];
  double ab[3];
  v3sub(ab, B, A);
  double den = v3dot(ab, ab), t = den > 0 ? -v3dot(A, ab) / den : 0;
  if (t <= 0) {
    idx[0] = i;
    lam[0] = 1;
    return 1;
  }
  if (t >= 1) {
    idx[0] = j;
    lam[0] = 1;
    return 1;
  }
  idx[0] = i;
  idx[1] = j;
  lam[0] = 1 - t;
  lam[1] = t;
  return 2;
}

// closest point to the origin on triangle (w[i], w[j], w[k]) (Ericson 5.1.5)
static int triRegion(const Simplex *s, int i, int j, int k, int idx[3], double lam[3]) {
  const double *A = s->w[i], *B = s->w[j], *C = s->w[k];
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  v3sub(ab, B, A);
  v3sub(ac, C, A);
  v3neg(ap, A);
  double d1 = v3dot(ab, ap), d2 = v3dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    idx[0] = i;
    lam[0] = 1;
    return 1;
  }
  v3neg(bp, B);
  double d3 = v3dot(ab, bp), d4 = v3dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    idx[0] = j;
    lam[0] = 1;
    return 1;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double t = d1 / (d1 - d3);
    idx[0] = i;
    idx[1] = j;
    lam[0] = 1 - t;
    lam[1] = t;
    return 2;
  }
  v3neg(cp, C);
  double d5 = v3dot(ab, cp), d6 = v3dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    idx[0] = k;
    lam[0] = 1;
    return 1;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double t = d2 / (d2 - d6);
    idx[0] = i;
    idx[1] = k;
    lam[0] = 1 - t;
    lam[1] = t;
    return 2;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    idx[0] = j;
    idx[1] = k;
    lam[0] = 1 - t;
    lam[1] = t;
    return 2;
  }
  double den = va + vb + vc;
  if (!(den > 0)) {
    // degenerate (collinear) triangle: the best of its edges
    int bi[2], bestN = 0;
    double bl[2], bestD = INFINITY;
    int e[3][2] = {{i, j}, {i, k}, {j, k}};
    for (int q = 0; q < 3; q++) {
      int ii[2];
      double ll[2], x[3] = {0, 0, 0};
      int nn = segRegion(s, e[q][0], e[q][1], ii, ll);
      for (int r = 0; r < nn; r++) {
        v3mad(x, x, ll[r], s->w[ii[r]]);
      }
      double dd = v3dot(x, x);
      if (dd < bestD) {
        bestD = dd;
        bestN = nn;
        memcpy(bi, ii, sizeof bi);
        memcpy(bl, ll, sizeof bl);
      }
    }
    for (int r = 0; r < bestN; r++) {
      idx[r] = bi[r];
      lam[r] = bl[r];
    }
    return bestN;
  }
  double v = vb / den, w = vc / den;
  idx[0] = i;
  idx[1] = j;
  idx[2] = k;
  lam[0] = 1 - v - w;
  lam[1] = v;
  lam[2] = w;
  return 3;
}

// 1 if the origin and point d lie on opposite sides of plane (a, b, c)
static int originOutside(const double a[3], const double b[3], const double c[3],
                         const double d[3]) {
  double ab[3], ac[3], n[3], ad[3];
  v3sub(ab, b, a);
  v3sub(ac, c, a);
  v3cross(n, ab, ac);
  v3sub(ad, d, a);
  double sp = -v3dot(a, n), sd = v3dot(ad, n);
  return sp * sd < 0;
}

// reduce s to the sub-simplex nearest the origin; returns 1 if the origin is inside a
// tetrahedron (overlap)
static int solve(Simplex *s) {
  int idx[4];
  double lam[4];
  switch (s->n) {
    case 1:
      s->lambda[0] = 1;
      return 0;
    case 2: {
      int k = segRegion(s, 0, 1, idx, lam);
      keep(s, idx, lam, k);
      return 0;
    }
    case 3: {
      int k = triRegion(s, 0, 1, 2, idx, lam);
      keep(s, idx, lam, k);
      return 0;
    }
    default: {
      // tetrahedron: the nearest of the faces the origin is outside of
      static const int faces[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
      double best = INFINITY;
      int bestK = 0, bi[3];
      double bl[3];
      int outside = 0;
      // a flat tetrahedron (curved shapes near convergence) has no inside: its nearest face
      double e1[3], e2[3], e3[3], x[3];
      v3sub(e1, s->w[1], s->w[0]);
      v3sub(e2, s->w[2], s->w[0]);
      v3sub(e3, s->w[3], s->w[0]);
      v3cross(x, e2, e3);
      double e4[3], e5[3], e6[3];
      v3sub(e4, s->w[2], s->w[1]);
      v3sub(e5, s->w[3], s->w[1]);
      v3sub(e6, s->w[3], s->w[2]);
      double L = fmax(fmax(v3dot(e1, e1), v3dot(e2, e2)), fmax(v3dot(e3, e3), v3dot(e4, e4)));
      L = sqrt(fmax(L, fmax(v3dot(e5, e5), v3dot(e6, e6))));
      double vol = fabs(v3dot(e1, x));
      int flat = !(vol > 1e-9 * L * L * L);
      for (int f = 0; f < 4; f++) {
        const int *F = faces[f];
        if (!flat && !originOutside(s->w[F[0]], s->w[F[1]], s->w[F[2]], s->w[F[3]])) {
          continue;
        }
        outside = 1;
        int ii[3];
        double ll[3], x[3] = {0, 0, 0};
        int k = triRegion(s, F[0], F[1], F[2], ii, ll);
        for (int r = 0; r < k; r++) {
          v3mad(x, x, ll[r], s->w[ii[r]]);
        }
        double d = v3dot(x, x);
        if (d < best) {
          best = d;
          bestK = k;
          memcpy(bi, ii, sizeof bi);
          memcpy(bl, ll, sizeof bl);
        }
      }
      if (!outside) {
        return 1;
      }
      keep(s, bi, bl, bestK);
      return 0;
    }
  }
}

double hsc_gjk(const hscConvex *ca, const hscConvex *cb, double pa[3], double pb[3]) {
  Simplex s;
  s.n = 0;
  double v[3], ctrA[3], ctrB[3];
  hsc_center(ca, ctrA);
  hsc_center(cb, ctrB);
  v3sub(v, ctrA, ctrB);
  if (v3dot(v, v) == 0) {
    v[0] = 1;
    v[1] = v[2] = 0;
  }
  Simplex prev;
  for (int it = 0; it < 128; it++) {
    double d[3], a[3], b[3], w[3];
    v3neg(d, v);
    hsc_support(ca, d, a);
    hsc_support(cb, v, b);
    v3sub(w, a, b);
    double vv = v3dot(v, v);
    if (s.n > 0) {
      // no progress towards the origin: v is the closest point
      if (vv - v3dot(v, w) <= 1e-13 * vv) {
        break;
      }
      // a point (nearly) in the simplex already: nothing new to learn
      int dup = 0;
      for (int i = 0; i < s.n; i++) {
        dup |= v3dist2(s.w[i], w) <= 1e-24 * (1 + v3dot(w, w));
      }
      if (dup) {
        break;
      }
    }
    copySimplex(&prev, &s);
    v3copy(s.w[s.n], w);
    v3copy(s.a[s.n], a);
    v3copy(s.b[s.n], b);
    s.n++;
    if (solve(&s)) {
      return 0;
    }
    double nv[3] = {0, 0, 0};
    for (int i = 0; i < s.n; i++) {
      v3mad(nv, nv, s.lambda[i], s.w[i]);
    }
    double nvv = v3dot(nv, nv);
    if (prev.n > 0 && nvv >= vv) {
      copySimplex(&s, &prev);  // rounding stalls the descent: keep the last better simplex
      break;
    }
    v3copy(v, nv);
    if (nvv <= 1e-28) {
      return 0;
    }
  }
  pa[0] = pa[1] = pa[2] = 0;
  pb[0] = pb[1] = pb[2] = 0;
  for (int i = 0; i < s.n; i++) {
    v3mad(pa, pa, s.lambda[i], s.a[i]);
    v3mad(pb, pb, s.lambda[i], s.b[i]);
  }
  double dd[3];
  v3sub(dd, pa, pb);
  return v3norm(dd);
}

//---------------------------------- MPR (libccd) ----------------------------------------------

static void ccdSupport(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec) {
  const hscConvex *c = obj;
  double d[3] = {dir->v[0], dir->v[1], dir->v[2]}, out[3];
  hsc_support(c, d, out);
  if (c->radius > 0) {
    double l = v3norm(d);
    if (l > 0) {
      v3mad(out, out, c->radius / l, d);
    }
  }
  vec->v[0] = out[0];
  vec->v[1] = out[1];
  vec->v[2] = out[2];
}

static void ccdCenter(const void *obj, ccd_vec3_t *center) {
  double out[3];
  hsc_center(obj, out);
  center->v[0] = out[0];
  center->v[1] = out[1];
  center->v[2] = out[2];
}

int hsc_mpr(const hscConvex *a, const hscConvex *b, double n[3], double *depth, double p[3]) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccdSupport;
  ccd.support2 = ccdSupport;
  ccd.center1 = ccdCenter;
  ccd.center2 = ccdCenter;
  ccd.max_iterations = 100;
  ccd.mpr_tolerance = 1e-12;
  ccd_real_t dep;
  ccd_vec3_t dir, pos;
  // libccd: moving obj2 by depth along dir separates them, so dir points from a into b
  if (ccdMPRPenetration(a, b, &ccd, &dep, &dir, &pos) != 0) {
    return -1;
  }
  double d[3] = {dir.v[0], dir.v[1], dir.v[2]};
  if (!(v3normalize(d) > 0) || !isfinite(dep)) {
    return -1;
  }
  v3copy(n, d);
  *depth = dep;
  p[0] = pos.v[0];
  p[1] = pos.v[1];
  p[2] = pos.v[2];
  return 0;
}
