// test_rayfan.c - hsc_rayFan: a fan of rays in one plane, with the plane culling, answers as n
// calls of hsc_ray do (parameter, body and link, bit for bit) over scenes of every primitive
// kind and a mesh at random poses, for random fan planes and origins, finite and infinite
// maxT; misses read maxT; a fan whose plane misses everything hits nothing.

#include "col_helpers.h"

// a reproducible uniform deviate in [-1, 1)
static double rnd(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) * (2.0 / 16777216.0) - 1.0;
}

// an octahedron mesh of "radius" 0.3 (8 outward-facing triangles)
static const float kOctV[] = {0.3f, 0, 0, -0.3f, 0, 0, 0, 0.3f, 0, 0, -0.3f, 0, 0, 0, 0.3f,
                              0, 0, -0.3f};
static const int kOctT[] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5,
                            0, 3, 5};

static void testFanEqualsRays(void) {
  hscModel *m[6] = {colPrim(hsGEOM_SPHERE, 0.3, 0, 0), colPrim(hsGEOM_CAPSULE, 0.2, 0.5, 0),
                    colPrim(hsGEOM_BOX, 0.5, 0.3, 0.2), colPrim(hsGEOM_CYLINDER, 0.25, 0.6, 0),
                    colPrim(hsGEOM_CONE, 0.3, 0.5, 0), colMesh(kOctV, 6, kOctT, 8, 2)};
  hscScene *s = hsc_makeScene(NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  unsigned seed = 12345;
  for (int copy = 0; copy < 4; copy++) {
    for (int k = 0; k < 6; k++) {
      int b = hsc_addBody(s, m[k], NULL);
      CU_ASSERT_EQUAL(b, 6 * copy + k);
      double R[9], ax[3] = {rnd(&seed), rnd(&seed), rnd(&seed)};
      double len = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
      colRot(R, ax[0] / len, ax[1] / len, ax[2] / len, 3 * rnd(&seed));
      colPlace(s, b, 2.5 * rnd(&seed), 2.5 * rnd(&seed), 0.8 * rnd(&seed), R);
    }
  }
  int nscratch = hsc_fanScratchSize(s);
  CU_ASSERT_EQUAL(nscratch, 3 * 24 + 1);
  int *scratch = hsu_calloc((size_t)nscratch, sizeof *scratch);
  enum { N = 181 };
  double dirs[3 * N], t[N];
  int link[2 * N], hitsAll = 0, compared = 0;
  for (int fan = 0; fan < 40; fan++) {
    // the plane: normal nrm; two unit vectors u, v spanning it
    double nrm[3] = {rnd(&seed), rnd(&seed), 3 * rnd(&seed)};
    double ln = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    for (int j = 0; j < 3; j++) {
      nrm[j] /= ln;
    }
    double a[3] = {1, 0, 0}, u[3], v[3];
    if (fabs(nrm[0]) > 0.9) {
      a[0] = 0;
      a[1] = 1;
    }
    hsu_cross(u, nrm, a);
    double lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int j = 0; j < 3; j++) {
      u[j] /= lu;
    }
    hsu_cross(v, nrm, u);
    double o[3] = {0.5 * rnd(&seed), 0.5 * rnd(&seed), 0.3 * rnd(&seed)};
    double maxT = fan % 2 ? INFINITY : 2.0;
    for (int k = 0; k < N; k++) {
      double ang = 2 * 3.141592653589793 * k / N;
      for (int j = 0; j < 3; j++) {
        dirs[3 * k + j] = cos(ang) * u[j] + sin(ang) * v[j];
      }
    }
    int hits = hsc_rayFan(s, o, nrm, dirs, N, maxT, scratch, t, link);
    int count = 0;
    for (int k = 0; k < N; k++) {
      hscRayHit h;
      int hit = hsc_ray(s, o, dirs + 3 * k, maxT, &h);
      count += hit;
      compared++;
      if (!(t[k] == h.t && link[2 * k] == h.body && link[2 * k + 1] == (hit ? h.link : -1))) {
        fprintf(stderr, "\n  fan %d ray %d: %.17g (%d %d) vs %.17g (%d %d)\n", fan, k, t[k],
                link[2 * k], link[2 * k + 1], h.t, h.body, h.link);
        CU_FAIL("hsc_rayFan differs from hsc_ray");
      }
    }
    CU_ASSERT_EQUAL(hits, count);
    hitsAll += hits;
  }
  CU_ASSERT_EQUAL(compared, 40 * N);
  CU_ASSERT(hitsAll > 500);  // the comparison saw plenty of hits (and misses)
  CU_ASSERT(hitsAll < 40 * N - 500);
  // a fan in the plane z = 5 (above everything) hits nothing and reads maxT; link may be NULL
  double o[3] = {0, 0, 5}, up[3] = {0, 0, 1};
  for (int k = 0; k < N; k++) {
    double ang = 2 * 3.141592653589793 * k / N;
    dirs[3 * k] = cos(ang);
    dirs[3 * k + 1] = sin(ang);
    dirs[3 * k + 2] = 0;
  }
  CU_ASSERT_EQUAL(hsc_rayFan(s, o, up, dirs, N, 7.0, scratch, t, NULL), 0);
  for (int k = 0; k < N; k++) {
    CU_ASSERT_EQUAL(t[k], 7.0);
  }
  hsu_free(scratch);
  hsc_freeScene(s);
  for (int k = 0; k < 6; k++) {
    hsc_freeModel(m[k]);
  }
}

void register_rayfan(void) {
  CU_pSuite s = hst_addSuite("collision_rayfan");
  CU_add_test(s, "a fan answers as hsc_ray, bit for bit", testFanEqualsRays);
}
