// mesh_triangulate.c - ear clipping of one simple polygon in its best-fit plane.
//
// hsm_triangulatePolygon projects the polygon onto the plane whose normal is Newell's normal
// (the polygon's area vector, well defined for non-planar and non-convex outlines), using an
// in-plane basis (u, v) with u x v = normal, so the polygon is counter-clockwise in 2D. It keeps
// a doubly linked ring of the remaining points and repeatedly cuts off an "ear": a strictly
// convex corner whose triangle contains no other remaining point that is not strictly convex
// (for a simple polygon, if any point lies in the triangle, such a point does).
//
// Degenerate input never fails. Repeated points and spikes (the outline running out and
// straight back) enclose nothing and are dropped: first in a pass over the whole outline, then
// next to every cut (a cut can make repeats adjacent, as at a keyhole's bridge); a point repeated
// elsewhere in the outline is ignored by the ear test. Points on a straight edge are kept as
// long as an ear can still be found (so they stay shared with neighbouring faces) and dropped
// only when no ear is left. If rounding or a self-intersecting outline leaves no valid ear at
// all, the most convex corner is cut anyway, so the loop always ends. Tolerances are relative:
// collinear means a turn whose sine is below kSinTol; coincident means closer than kLenTol
// times the polygon's size. Cost is O(n^2) for ordinary polygons.

#include <math.h>
#include <string.h>

#include "mesh.h"

// polygons up to this size use stack scratch space, larger ones allocate
enum { kStackPoints = 64 };

// |sin| of a turn at or below this is collinear
static const double kSinTol = 1e-10;
// points closer than this fraction of the polygon size are the same point
static const double kLenTol = 1e-12;

// the ring of remaining points, in the polygon plane
typedef struct Ring {
  const double *xy;  // 2 per original point
  int *prev, *next;  // neighbours in the ring, by original index
  double eps2;       // squared distance under which two points coincide
} Ring;

// 1 if the triangle (a, b, c) turns left, -1 right, 0 if collinear within tolerance
static int turn(const Ring *r, int a, int b, int c) {
  const double *pa = r->xy + 2 * a, *pb = r->xy + 2 * b, *pc = r->xy + 2 * c;
  double ux = pb[0] - pa[0], uy = pb[1] - pa[1];
  double vx = pc[0] - pb[0], vy = pc[1] - pb[1];
  double cross = ux * vy - uy * vx;
  if (cross * cross <= kSinTol * kSinTol * (ux * ux + uy * uy) * (vx * vx + vy * vy)) {
    return 0;
  }
  return cross > 0 ? 1 : -1;
}

// the sine of the turn at b (positive: convex)
static double turnSine(const Ring *r, int a, int b, int c) {
  const double *pa = r->xy + 2 * a, *pb = r->xy + 2 * b, *pc = r->xy + 2 * c;
  double ux = pb[0] - pa[0], uy = pb[1] - pa[1];
  double vx = pc[0] - pb[0], vy = pc[1] - pb[1];
  double l = sqrt((ux * ux + uy * uy) * (vx * vx + vy * vy));
  return l > 0 ? (ux * vy - uy * vx) / l : 0;
}

static int samePoint(const Ring *r, int a, int b) {
  const double *pa = r->xy + 2 * a, *pb = r->xy + 2 * b;
  double dx = pa[0] - pb[0], dy = pa[1] - pb[1];
  return dx * dx + dy * dy <= r->eps2;
}

// 1 if p is inside or on the counter-clockwise triangle (a, b, c)
static int inTriangle(const Ring *r, int a, int b, int c, int p) {
  return turn(r, a, b, p) >= 0 && turn(r, b, c, p) >= 0 && turn(r, c, a, p) >= 0;
}

// 1 if the convex corner b (between a and c) is an ear of the ring
static int isEar(const Ring *r, int a, int b, int c) {
  for (int p = r->next[c]; p != a; p = r->next[p]) {
    // only points that are not strictly convex can block an ear
    if (turn(r, r->prev[p], p, r->next[p]) > 0) {
      continue;
    }
    if (samePoint(r, p, a) || samePoint(r, p, b) || samePoint(r, p, c)) {
      continue;
    }
    if (inTriangle(r, a, b, c, p)) {
      return 0;
    }
  }
  return 1;
}

static void unlink(Ring *r, int b) {
  r->next[r->prev[b]] = r->next[b];
  r->prev[r->next[b]] = r->prev[b];
}

// Newell's normal of the polygon about its centroid; returns the polygon's size (bounding box
// diagonal)
static double newellNormal(double N[3], const double *pts, int n) {
  double c[3] = {0, 0, 0}, lo[3], hi[3];
  for (int k = 0; k < 3; k++) {
    lo[k] = hi[k] = pts[k];
  }
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      double x = pts[3 * i + k];
      c[k] += x / n;
      lo[k] = x < lo[k] ? x : lo[k];
      hi[k] = x > hi[k] ? x : hi[k];
    }
  }
  N[0] = N[1] = N[2] = 0;
  for (int i = 0; i < n; i++) {
    const double *p = pts + 3 * i, *q = pts + 3 * ((i + 1) % n);
    double a[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double b[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
    double x[3];
    hsu_cross(x, a, b);
    N[0] += x[0], N[1] += x[1], N[2] += x[2];
  }
  double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  return hsu_norm(d);
}

// 1 if b is a spike: the outline reaches b and turns straight back
static int isSpike(const Ring *r, int a, int b, int c) {
  if (turn(r, a, b, c) != 0) {
    return 0;
  }
  const double *pa = r->xy + 2 * a, *pb = r->xy + 2 * b, *pc = r->xy + 2 * c;
  return (pb[0] - pa[0]) * (pc[0] - pb[0]) + (pb[1] - pa[1]) * (pc[1] - pb[1]) < 0;
}

// 1 if point w of the ring encloses nothing: it repeats its successor or is a spike
static int isUseless(const Ring *r, int w) {
  return samePoint(r, w, r->next[w]) || isSpike(r, r->prev[w], w, r->next[w]);
}

// drop useless points at and next to v until none is left there; returns a remaining point
static int tidy(Ring *r, int v, int *count) {
  int changed = 1;
  while (changed && *count > 2) {
    changed = 0;
    int around[3] = {v, r->prev[v], r->next[v]};
    for (int k = 0; k < 3 && !changed; k++) {
      int w = around[k];
      if (isUseless(r, w)) {
        unlink(r, w);
        (*count)--;
        v = w == v ? r->prev[w] : v;
        changed = 1;
      }
    }
  }
  return v;
}

// cut ears off the ring until three points are left; returns the number of triangles written
static int clipEars(Ring *r, int first, int count, int *tris) {
  int ntri = 0, cur = first, stall = 0;
  while (count > 3) {
    int a = r->prev[cur], c = r->next[cur];
    if (turn(r, a, cur, c) > 0 && isEar(r, a, cur, c)) {
      tris[3 * ntri] = a, tris[3 * ntri + 1] = cur, tris[3 * ntri + 2] = c;
      ntri++;
      unlink(r, cur);
      count--;
      // the cut may leave a repeated point or a spike next to it (bridges, touching points)
      a = tidy(r, a, &count);
      cur = tidy(r, r->next[a], &count);
      stall = 0;
      continue;
    }
    cur = c;
    if (++stall <= count) {
      continue;
    }
    // a full turn without an ear: drop a point on a straight edge, else cut the most convex
    // corner regardless of what it contains, else drop a point (the rest is not a polygon)
    stall = 0;
    int best = -1, straight = -1, p = cur;
    double bestSine = 0;
    do {
      int tp = turn(r, r->prev[p], p, r->next[p]);
      if (tp == 0 && straight < 0) {
        straight = p;
      }
      double s = turnSine(r, r->prev[p], p, r->next[p]);
      if (tp > 0 && s > bestSine) {
        bestSine = s, best = p;
      }
      p = r->next[p];
    } while (p != cur);
    if (straight < 0 && best >= 0) {
      tris[3 * ntri] = r->prev[best], tris[3 * ntri + 1] = best, tris[3 * ntri + 2] = r->next[best];
      ntri++;
    }
    int drop = straight >= 0 ? straight : best >= 0 ? best : cur;
    cur = r->prev[drop];
    unlink(r, drop);
    count--;
    cur = tidy(r, cur, &count);
  }
  // the last triangle, if it is a proper counter-clockwise one
  if (count == 3 && turn(r, r->prev[cur], cur, r->next[cur]) > 0) {
    tris[3 * ntri] = r->prev[cur], tris[3 * ntri + 1] = cur, tris[3 * ntri + 2] = r->next[cur];
    ntri++;
  }
  return ntri;
}

int hsm_triangulatePolygon(const double *points, int n, int *tris, hsError *err) {
  if (!points || !tris || n < 3) {
    return HS_ERR(err, hsE_INVALID, "a polygon needs at least 3 points (got %d)", n);
  }
  if (!hsu_allFinite(points, 3 * (size_t)n)) {
    return HS_ERR(err, hsE_INVALID, "polygon has a non-finite coordinate");
  }
  // the best-fit plane; a polygon without area gives no triangles
  double N[3];
  double size = newellNormal(N, points, n);
  double area2 = hsu_norm(N);
  if (!(area2 > kLenTol * size * size)) {
    return 0;
  }
  // an in-plane basis with u x v = N / |N|, built from the axis least aligned with N
  double nh[3] = {N[0] / area2, N[1] / area2, N[2] / area2};
  int k = fabs(nh[0]) <= fabs(nh[1]) && fabs(nh[0]) <= fabs(nh[2]) ? 0
          : fabs(nh[1]) <= fabs(nh[2])                             ? 1
                                                                   : 2;
  double e[3] = {0, 0, 0}, u[3], v[3];
  e[k] = 1;
  for (int i = 0; i < 3; i++) {
    u[i] = e[i] - nh[k] * nh[i];
  }
  double lu = hsu_norm(u);
  u[0] /= lu, u[1] /= lu, u[2] /= lu;
  hsu_cross(v, nh, u);

  // scratch: 2D points and the ring links
  double xyStack[2 * kStackPoints];
  int linkStack[2 * kStackPoints];
  double *xy = xyStack;
  int *links = linkStack;
  if (n > kStackPoints) {
    xy = hsu_malloc(2 * (size_t)n * sizeof *xy);
    links = hsu_malloc(2 * (size_t)n * sizeof *links);
    if (!xy || !links) {
      hsu_free(xy);
      hsu_free(links);
      return HS_ERR(err, hsE_NOMEM, "out of memory triangulating a polygon of %d points", n);
    }
  }
  for (int i = 0; i < n; i++) {
    const double *p = points + 3 * i;
    double d[3] = {p[0] - points[0], p[1] - points[1], p[2] - points[2]};
    xy[2 * i] = hsu_dot(d, u);
    xy[2 * i + 1] = hsu_dot(d, v);
  }
  Ring r = {xy, links, links + n, kLenTol * kLenTol * size * size};
  for (int i = 0; i < n; i++) {
    r.prev[i] = (i + n - 1) % n;
    r.next[i] = (i + 1) % n;
  }

  // drop repeated points and spikes (repeat until a whole turn finds none), then clip
  int count = n, first = 0;
  for (int clean = 0, v = first; count > 2 && clean < count;) {
    if (isUseless(&r, v)) {
      int p = r.prev[v];
      unlink(&r, v);
      count--;
      first = v = p;
      clean = 0;
    } else {
      v = r.next[v];
      clean++;
    }
  }
  int ntri = count >= 3 ? clipEars(&r, first, count, tris) : 0;
  if (xy != xyStack) {
    hsu_free(xy);
    hsu_free(links);
  }
  return ntri;
}
