// bench_collision_mesh.h - the deterministic meshes and poses shared by bench_collision_lib.c
// (hrpsim's collision library) and bench_collision_fcl.cpp (FCL), so that both time the same
// queries on exactly the same triangles (the fingerprint bcm_hash proves it in each output).
//
// The mesh is a closed "bumpy sphere": nlat latitude bands by nlon longitude sectors, radius
// r (1 + 0.04 sin(9 theta) cos(7 phi)) (theta polar, phi azimuth), two pole vertices, triangles
// counter-clockwise seen from outside: 2 nlon (nlat - 1) triangles. Vertices are computed in
// double and stored as float (what both libraries then read).

#ifndef HRPSIM_BENCH_COLLISION_MESH_H_
#define HRPSIM_BENCH_COLLISION_MESH_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#define BCM_PI 3.14159265358979323846

// number of vertices and triangles of the bumpy sphere nlat x nlon
static inline int bcm_vertexCount(int nlat, int nlon) { return 2 + (nlat - 1) * nlon; }
static inline int bcm_triangleCount(int nlat, int nlon) { return 2 * nlon * (nlat - 1); }

// fill v (3 floats per vertex) and t (3 indices per triangle) of the bumpy sphere of radius r
static inline void bcm_bumpySphere(int nlat, int nlon, double r, float *v, int *t) {
  int nv = 0, nt = 0;
  v[nv * 3 + 0] = 0.0f;
  v[nv * 3 + 1] = 0.0f;
  v[nv * 3 + 2] = (float)r;
  nv++;
  for (int i = 1; i < nlat; i++) {
    double th = BCM_PI * i / nlat;
    for (int j = 0; j < nlon; j++) {
      double ph = 2 * BCM_PI * j / nlon;
      double rr = r * (1 + 0.04 * sin(9 * th) * cos(7 * ph));
      v[nv * 3 + 0] = (float)(rr * sin(th) * cos(ph));
      v[nv * 3 + 1] = (float)(rr * sin(th) * sin(ph));
      v[nv * 3 + 2] = (float)(rr * cos(th));
      nv++;
    }
  }
  v[nv * 3 + 0] = 0.0f;
  v[nv * 3 + 1] = 0.0f;
  v[nv * 3 + 2] = (float)-r;
  int bottom = nv;
#define BCM_RING(i, j) (1 + ((i) - 1) * nlon + ((j) % nlon))
  for (int j = 0; j < nlon; j++) {
    int tri[3] = {0, BCM_RING(1, j), BCM_RING(1, j + 1)};
    memcpy(t + 3 * nt++, tri, sizeof tri);
  }
  for (int i = 1; i < nlat - 1; i++) {
    for (int j = 0; j < nlon; j++) {
      int a = BCM_RING(i, j), b = BCM_RING(i, j + 1), c = BCM_RING(i + 1, j),
          d = BCM_RING(i + 1, j + 1);
      int t1[3] = {a, c, d}, t2[3] = {a, d, b};
      memcpy(t + 3 * nt++, t1, sizeof t1);
      memcpy(t + 3 * nt++, t2, sizeof t2);
    }
  }
  for (int j = 0; j < nlon; j++) {
    int tri[3] = {bottom, BCM_RING(nlat - 1, j + 1), BCM_RING(nlat - 1, j)};
    memcpy(t + 3 * nt++, tri, sizeof tri);
  }
#undef BCM_RING
}

// FNV-1a over the bytes of the vertices and indices: equal fingerprints, equal meshes
static inline uint64_t bcm_hash(const float *v, int nv, const int *t, int nt) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *)v;
  for (size_t k = 0; k < sizeof(float) * 3 * (size_t)nv; k++) {
    h = (h ^ p[k]) * 1099511628211ull;
  }
  p = (const unsigned char *)t;
  for (size_t k = 0; k < sizeof(int) * 3 * (size_t)nt; k++) {
    h = (h ^ p[k]) * 1099511628211ull;
  }
  return h;
}

// the mesh sizes the mesh-mesh queries use: nlat = nlon = n (19,800 and 99,904 triangles)
static const int kBcmSizes[2] = {100, 224};
// the ray target: 224 x 224 (99,904 triangles)
static const int kBcmRaySize = 224;
#define BCM_RADIUS 0.5
#define BCM_NRAY 1000

// pose of the second mesh of the mesh-mesh queries (the first sits at the origin, identity):
// k = 0 overlapping (centres 1.6 r apart), 1 near (gap about 0.02 r between the bumps' tops),
// 2 far (centres 3 r apart). R row-major.
static const char *const kBcmPoseNames[3] = {"overlap", "near", "far"};
static inline void bcm_pose(int k, double p[3], double R[9]) {
  static const double dist[3] = {1.6, 2.1, 3.0};
  // rotation by 0.7 rad about the unit axis (1, 2, 3)/sqrt(14)
  double ax = 1 / sqrt(14.0), ay = 2 / sqrt(14.0), az = 3 / sqrt(14.0), a = 0.7;
  double c = cos(a), s = sin(a), C = 1 - c;
  double M[9] = {c + ax * ax * C,      ax * ay * C - az * s, ax * az * C + ay * s,
                 ay * ax * C + az * s, c + ay * ay * C,      ay * az * C - ax * s,
                 az * ax * C - ay * s, az * ay * C + ax * s, c + az * az * C};
  memcpy(R, M, sizeof M);
  double d = dist[k] * BCM_RADIUS;
  p[0] = d * 0.8;
  p[1] = d * 0.36;
  p[2] = d * 0.48;
}

// ray r of BCM_NRAY against the mesh at the origin: origin on a sphere of radius 3 r (golden
// spiral), aimed at a point within 1.2 r of the centre (another spiral), so most rays hit and
// some graze or miss. dir is unit.
static inline void bcm_ray(int r, double origin[3], double dir[3]) {
  double golden = BCM_PI * (3 - sqrt(5.0));
  double z = 1 - 2 * (r + 0.5) / BCM_NRAY, s = sqrt(1 - z * z), ph = golden * r;
  origin[0] = 3 * BCM_RADIUS * s * cos(ph);
  origin[1] = 3 * BCM_RADIUS * s * sin(ph);
  origin[2] = 3 * BCM_RADIUS * z;
  int q = (r * 389) % BCM_NRAY;
  double z2 = 1 - 2 * (q + 0.5) / BCM_NRAY, s2 = sqrt(1 - z2 * z2), ph2 = golden * q * 1.7;
  double f = 1.2 * BCM_RADIUS * ((r % 7) / 6.0);
  double tgt[3] = {f * s2 * cos(ph2), f * s2 * sin(ph2), f * z2};
  double n = 0;
  for (int k = 0; k < 3; k++) {
    dir[k] = tgt[k] - origin[k];
    n += dir[k] * dir[k];
  }
  n = sqrt(n);
  for (int k = 0; k < 3; k++) {
    dir[k] /= n;
  }
}

#endif  // HRPSIM_BENCH_COLLISION_MESH_H_
