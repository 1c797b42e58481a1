// collision_ray.c - the first hit of a ray on one primitive geom, in closed form.
//
// The ray is taken into the geom frame (the parameter t is unchanged, so it counts in units of
// the caller's direction). Only surfaces facing the ray count, as OpenHRP's ray queries cull
// back faces: a ray starting inside a solid primitive does not hit it. Otherwise, with the
// origin outside, the first root along the ray of any boundary part within its extent is the
// entry point: sphere and box by the usual quadratic and slabs; a capsule as its side cylinder
// and two end spheres; a cylinder as its side and two caps; a cone as its side (the quadratic
// of the double cone, restricted to the nappe between apex and base) and its base disc.

#include <float.h>

#include "collision_private.h"

// smaller root of a t^2 + 2 b t + c = 0 when it is >= 0 (the entry), else INFINITY
static double entryRoot(double a, double b, double c) {
  if (a <= 0) {
    return INFINITY;
  }
  double disc = b * b - a * c;
  if (disc < 0) {
    return INFINITY;
  }
  double t = (-b - sqrt(disc)) / a;
  return t >= 0 ? t : INFINITY;
}

// consider a hit at t with local normal n
static void take(double t, const double n[3], double *best, double bn[3]) {
  if (t < *best) {
    *best = t;
    v3copy(bn, n);
  }
}

// entry of the ray (o, d) into the sphere of radius r at c (origin outside)
static void sphereEntry(const double o[3], const double d[3], const double c[3], double r,
                        double zmin, double zmax, double *best, double bn[3]) {
  double x[3];
  v3sub(x, o, c);
  double t = entryRoot(v3dot(d, d), v3dot(x, d), v3dot(x, x) - r * r);
  if (t == INFINITY) {
    return;
  }
  double q[3], n[3];
  v3mad(q, o, t, d);
  if (q[2] < zmin || q[2] > zmax) {
    return;
  }
  v3sub(n, q, c);
  v3scale(n, 1 / r, n);
  take(t, n, best, bn);
}

// entry into the side of the infinite cylinder x^2 + y^2 = r^2, for |z| <= h
static void sideEntry(const double o[3], const double d[3], double r, double h, double *best,
                      double bn[3]) {
  double t = entryRoot(d[0] * d[0] + d[1] * d[1], o[0] * d[0] + o[1] * d[1],
                       o[0] * o[0] + o[1] * o[1] - r * r);
  if (t == INFINITY) {
    return;
  }
  double q[3];
  v3mad(q, o, t, d);
  if (fabs(q[2]) > h) {
    return;
  }
  double n[3] = {q[0] / r, q[1] / r, 0};
  take(t, n, best, bn);
}

// entry through the disc z = z0 (radius r) whose outward normal is s z (s = +-1)
static void capEntry(const double o[3], const double d[3], double z0, double s, double r,
                     double *best, double bn[3]) {
  if (!((o[2] - z0) * s > 0 && d[2] * s < 0)) {
    return;
  }
  double t = (z0 - o[2]) / d[2];
  double x = o[0] + t * d[0], y = o[1] + t * d[1];
  if (x * x + y * y > r * r) {
    return;
  }
  double n[3] = {0, 0, s};
  take(t, n, best, bn);
}

int hsc_rayGeom(const hscPosed *g, const double o[3], const double d[3], double *t,
                double n[3]) {
  if (g->g->type == hsGEOM_MESH) {
    return hsc_rayMesh(g, o, d, t, n);
  }
  double x[3], lo[3], ld[3];
  v3sub(x, o, g->p);
  m3tmulv(lo, g->R, x);
  m3tmulv(ld, g->R, d);
  const double *s = g->g->size;
  double best = *t, bn[3] = {0, 0, 0};
  switch (g->g->type) {
    case hsGEOM_SPHERE: {
      double c[3] = {0, 0, 0};
      if (v3dot(lo, lo) < s[0] * s[0]) {
        return 0;
      }
      sphereEntry(lo, ld, c, s[0], -INFINITY, INFINITY, &best, bn);
      break;
    }
    case hsGEOM_BOX: {
      double h[3] = {0.5 * s[0], 0.5 * s[1], 0.5 * s[2]};
      if (fabs(lo[0]) < h[0] && fabs(lo[1]) < h[1] && fabs(lo[2]) < h[2]) {
        return 0;
      }
      double t0 = -INFINITY, t1 = INFINITY;
      int axis = -1;
      for (int j = 0; j < 3; j++) {
        if (ld[j] == 0) {
          if (fabs(lo[j]) > h[j]) {
            return 0;
          }
          continue;
        }
        double a = (-h[j] - lo[j]) / ld[j], b = (h[j] - lo[j]) / ld[j];
        if (a > b) {
          double y = a;
          a = b;
          b = y;
        }
        if (a > t0) {
          t0 = a;
          axis = j;
        }
        t1 = fmin(t1, b);
      }
      if (axis < 0 || t0 > t1 || t0 < 0) {
        return 0;
      }
      double nn[3] = {0, 0, 0};
      nn[axis] = ld[axis] > 0 ? -1 : 1;
      take(t0, nn, &best, bn);
      break;
    }
    case hsGEOM_CAPSULE: {
      double r = s[0], h = 0.5 * s[1];
      double z = lo[2] < -h ? -h : (lo[2] > h ? h : lo[2]);
      double dz = lo[2] - z;
      if (lo[0] * lo[0] + lo[1] * lo[1] + dz * dz < r * r) {
        return 0;
      }
      double top[3] = {0, 0, h}, bottom[3] = {0, 0, -h};
      sideEntry(lo, ld, r, h, &best, bn);
      sphereEntry(lo, ld, top, r, h, INFINITY, &best, bn);
      sphereEntry(lo, ld, bottom, r, -INFINITY, -h, &best, bn);
      break;
    }
    case hsGEOM_CYLINDER: {
      double r = s[0], h = 0.5 * s[1];
      if (fabs(lo[2]) < h && lo[0] * lo[0] + lo[1] * lo[1] < r * r) {
        return 0;
      }
      sideEntry(lo, ld, r, h, &best, bn);
      capEntry(lo, ld, h, 1, r, &best, bn);
      capEntry(lo, ld, -h, -1, r, &best, bn);
      break;
    }
    case hsGEOM_CONE: {
      double r = s[0], h = 0.5 * s[1], k = r / (2 * h);
      double w = h - lo[2];
      if (fabs(lo[2]) < h && sqrt(lo[0] * lo[0] + lo[1] * lo[1]) < k * w) {
        return 0;
      }
      // side: x^2 + y^2 = k^2 (h - z)^2 for -h <= z <= h
      double A = ld[0] * ld[0] + ld[1] * ld[1] - k * k * ld[2] * ld[2];
      double B = lo[0] * ld[0] + lo[1] * ld[1] + k * k * w * ld[2];
      double C = lo[0] * lo[0] + lo[1] * lo[1] - k * k * w * w;
      double roots[2];
      int nr = 0;
      if (fabs(A) > 1e-300) {
        double disc = B * B - A * C;
        if (disc >= 0) {
          double sq = sqrt(disc);
          roots[0] = (-B - sq) / A;
          roots[1] = (-B + sq) / A;
          nr = 2;
          if (roots[0] > roots[1]) {
            double y = roots[0];
            roots[0] = roots[1];
            roots[1] = y;
          }
        }
      } else if (B != 0) {
        roots[0] = -C / (2 * B);
        nr = 1;
      }
      for (int i = 0; i < nr; i++) {
        double tt = roots[i];
        if (tt < 0) {
          continue;
        }
        double q[3];
        v3mad(q, lo, tt, ld);
        if (q[2] < -h || q[2] > h) {
          continue;
        }
        double nn[3] = {q[0], q[1], k * k * (h - q[2])};
        if (!(v3normalize(nn) > 0)) {
          nn[0] = nn[1] = 0;
          nn[2] = 1;  // the apex
        }
        take(tt, nn, &best, bn);
        break;
      }
      capEntry(lo, ld, -h, -1, r, &best, bn);
      break;
    }
    default:
      return 0;
  }
  if (!(best < *t)) {
    return 0;
  }
  *t = best;
  m3mulv(n, g->R, bn);
  return 1;
}
