// bench_collision_lib.c - hrpsim's collision library (collision/, hsc_) timed in process, the
// part of the collision benchmark that has no CORBA in it; bench/bench_collision_lib.py
// runs it beside bench_collision_fcl.cpp (the same mesh queries with FCL) and prints ratios.
//
//   hrpsim-bench-collision-lib FLOOR HUMANOID [ROUNDS]
//
// (a) The sample humanoid standing on the floor at its initial pose (every joint at 0, the
//     pose a DynamicsSimulator starts from, as bench_collision_client.cpp uses): contacts,
//     intersection (checkAll) and distance of the 31 defined pairs (floor link against each
//     robot link) and of all 496 link pairs (those 31 plus every pair of robot links).
// (b) BCM_NRAY (1,000) rays (hsc_ray, first hit) against a 99,904-triangle mesh (see
//     bench_collision_mesh.h for the mesh and the rays): microseconds for all 1,000.
// (c) Mesh-mesh distance (hsc_distances) and collision (hsc_intersections, tolerance 0)
//     between two copies of the bumpy sphere of 19,800 and of 99,904 triangles, overlapping,
//     near and far (bcm_pose).
// Each figure is the median over ROUNDS (default 7) rounds, each round repeating the call for at
// least 20 ms: microseconds per call. Prints one JSON object: per query "us" and the answer
// ("value": a distance [m], 0/1 for collision, a count; for the rays the number of hits and the
// sum of their distances), plus each mesh's fingerprint (bcm_hash) so the FCL side can show it
// used the same triangles.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_collision_mesh.h"
#include "collision.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(int rc, const hsError *err) {
  if (rc < 0) {
    fprintf(stderr, "bench_collision_lib: %s (%s)\n", err->message, err->file);
    exit(1);
  }
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef double (*QueryFn)(void *ctx);  // one call; returns its answer

static int gRounds = 7;
static int gFirst = 1;

// time fn: median over gRounds rounds of microseconds per call; *answer gets one call's answer
static double timeIt(QueryFn fn, void *ctx, double *answer) {
  *answer = fn(ctx);
  long calls = 1;
  double t0 = now();
  fn(ctx);
  double one = now() - t0;
  if (one < 0.02) {
    calls = (long)(0.02 / fmax(one, 1e-7)) + 1;
  }
  double us[64];
  int rounds = gRounds < 64 ? gRounds : 64;
  for (int r = 0; r < rounds; r++) {
    t0 = now();
    for (long c = 0; c < calls; c++) {
      fn(ctx);
    }
    us[r] = (now() - t0) / calls * 1e6;
  }
  qsort(us, rounds, sizeof us[0], cmpDouble);
  return us[rounds / 2];
}

static void emit(const char *name, double us, double value) {
  printf("%s\n    \"%s\": {\"us\": %.6g, \"value\": %.17g}", gFirst ? "" : ",", name, us, value);
  gFirst = 0;
}

//---------------------------------- queries ---------------------------------------------------

typedef struct Ctx {
  hscScene *scene;
  hscPair *pairs;
  int npair;
  hscContact *contacts;
  int maxContacts;
  hscDistance *dist;
  unsigned char *hit;
} Ctx;

static double qContacts(void *p) {
  Ctx *c = p;
  return hsc_contacts(c->scene, c->pairs, c->npair, c->contacts, c->maxContacts, NULL);
}

static double qIntersect(void *p) {
  Ctx *c = p;
  return hsc_intersections(c->scene, c->pairs, c->npair, 1, c->hit);
}

static double qDistance(void *p) {
  Ctx *c = p;
  hsc_distances(c->scene, c->pairs, c->npair, c->dist);
  double m = INFINITY;
  for (int i = 0; i < c->npair; i++) {
    m = fmin(m, c->dist[i].d);
  }
  return m;
}

typedef struct RayCtx {
  const hscScene *scene;
  double origin[BCM_NRAY][3], dir[BCM_NRAY][3];
  int hits;
  double sumT;
} RayCtx;

static double qRays(void *p) {
  RayCtx *c = p;
  int hits = 0;
  double sum = 0;
  for (int r = 0; r < BCM_NRAY; r++) {
    hscRayHit h;
    if (hsc_ray(c->scene, c->origin[r], c->dir[r], INFINITY, &h)) {
      hits++;
      sum += h.t;
    }
  }
  c->hits = hits;
  c->sumT = sum;
  return hits;
}

//---------------------------------- scenes ----------------------------------------------------

static void humanoid(const char *floorPath, const char *robotPath) {
  hsError err = {0};
  hsBody *floor = hsm_loadVrml(floorPath, NULL, NULL, 0, NULL, &err);
  if (!floor) {
    check(-1, &err);
  }
  hsBody *robot = hsm_loadVrml(robotPath, NULL, NULL, 0, NULL, &err);
  if (!robot) {
    check(-1, &err);
  }
  hscModel *mf = hsc_makeModel(floor, NULL, &err), *mr = hsc_makeModel(robot, NULL, &err);
  if (!mf || !mr) {
    check(-1, &err);
  }
  hscScene *scene = hsc_makeScene(NULL, &err);
  if (!scene) {
    check(-1, &err);
  }
  check(hsc_addBody(scene, mf, &err), &err);
  check(hsc_addBody(scene, mr, &err), &err);
  hsBodyState *sf = hsm_makeState(floor, &err), *sr = hsm_makeState(robot, &err);
  if (!sf || !sr) {
    check(-1, &err);
  }
  hsm_forwardKinematics(floor, sf);
  hsm_forwardKinematics(robot, sr);
  check(hsc_setBodyPoses(scene, 0, sf, &err), &err);
  check(hsc_setBodyPoses(scene, 1, sr, &err), &err);
  int n = robot->nlink, nall = n + n * (n - 1) / 2;
  hscPair *pairs = calloc(nall, sizeof *pairs);
  for (int i = 0; i < n; i++) {
    pairs[i] = (hscPair){{0, 1}, {0, i}, 0.0, 0.0};
  }
  int k = n;
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      pairs[k++] = (hscPair){{1, 1}, {i, j}, 0.0, 0.0};
    }
  }
  check(hsc_checkPairs(scene, pairs, nall, &err), &err);
  Ctx c = {scene, pairs, n, calloc(4096, sizeof(hscContact)), 4096,
           calloc(nall, sizeof(hscDistance)), calloc(nall, 1)};
  // the three queries on the 31 defined pairs, then on all of them
  static const struct {
    const char *what;
    QueryFn query;
  } kQueries[] = {{"contacts", qContacts}, {"intersection", qIntersect}, {"distance", qDistance}};
  const int counts[2] = {n, nall};
  for (int r = 0; r < 2; r++) {
    c.npair = counts[r];
    for (int q = 0; q < 3; q++) {
      double v, us = timeIt(kQueries[q].query, &c, &v);
      char name[64];
      snprintf(name, sizeof name, "humanoid_%s_%d", kQueries[q].what, counts[r]);
      emit(name, us, v);
    }
  }
  free(c.contacts);
  free(c.dist);
  free(c.hit);
  free(pairs);
  hsm_freeState(sf);
  hsm_freeState(sr);
  hsc_freeScene(scene);
  hsc_freeModel(mf);
  hsc_freeModel(mr);
  hsm_freeBody(floor);
  hsm_freeBody(robot);
}

// a one-link model of the bumpy sphere n x n; *hash gets its fingerprint
static hscModel *sphereModel(int n, int *ntri, unsigned long long *hash) {
  int nv = bcm_vertexCount(n, n), nt = bcm_triangleCount(n, n);
  float *v = malloc(sizeof(float) * 3 * nv);
  int *t = malloc(sizeof(int) * 3 * nt);
  bcm_bumpySphere(n, n, BCM_RADIUS, v, t);
  *hash = bcm_hash(v, nv, t, nt);
  *ntri = nt;
  hscGeomDesc g = {hsGEOM_MESH, 0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, {0, 0, 0}, v, nv, t, nt};
  hsError err = {0};
  hscModel *m = hsc_makeModelFromGeoms(&g, 1, 1, NULL, &err);
  if (!m) {
    check(-1, &err);
  }
  free(v);
  free(t);
  return m;
}

static void rays(void) {
  hsError err = {0};
  int nt;
  unsigned long long hash;
  double t0 = now();
  hscModel *m = sphereModel(kBcmRaySize, &nt, &hash);
  double build = now() - t0;
  hscScene *scene = hsc_makeScene(NULL, &err);
  if (!scene) {
    check(-1, &err);
  }
  check(hsc_addBody(scene, m, &err), &err);
  RayCtx *c = calloc(1, sizeof *c);
  c->scene = scene;
  for (int r = 0; r < BCM_NRAY; r++) {
    bcm_ray(r, c->origin[r], c->dir[r]);
  }
  double v;
  double us = timeIt(qRays, c, &v);
  char name[64];
  snprintf(name, sizeof name, "rays_%d_vs_%d", BCM_NRAY, nt);
  emit(name, us, v);
  printf(",\n    \"%s_sum_t\": {\"us\": 0, \"value\": %.17g}", name, c->sumT);
  printf(",\n    \"mesh_%d\": {\"us\": %.6g, \"value\": 0, \"hash\": \"%016llx\"}", nt,
         build * 1e6, hash);
  free(c);
  hsc_freeScene(scene);
  hsc_freeModel(m);
}

static void meshMesh(void) {
  for (int s = 0; s < 2; s++) {
    hsError err = {0};
    int nt;
    unsigned long long hash;
    double t0 = now();
    hscModel *m = sphereModel(kBcmSizes[s], &nt, &hash);
    double build = now() - t0;
    if (kBcmSizes[s] != kBcmRaySize) {
      printf(",\n    \"mesh_%d\": {\"us\": %.6g, \"value\": 0, \"hash\": \"%016llx\"}", nt,
             build * 1e6, hash);
    }
    hscScene *scene = hsc_makeScene(NULL, &err);
    if (!scene) {
      check(-1, &err);
    }
    check(hsc_addBody(scene, m, &err), &err);
    check(hsc_addBody(scene, m, &err), &err);
    hscPair pair = {{0, 1}, {0, 0}, 0.0, 0.0};
    hscDistance d;
    unsigned char hit;
    Ctx c = {scene, &pair, 1, NULL, 0, &d, &hit};
    for (int k = 0; k < 3; k++) {
      double p[3], R[9], v, us;
      bcm_pose(k, p, R);
      check(hsc_setLinkPose(scene, 1, 0, p, R, &err), &err);
      char name[64];
      snprintf(name, sizeof name, "mesh_%d_%s_distance", nt, kBcmPoseNames[k]);
      us = timeIt(qDistance, &c, &v);
      emit(name, us, v);
      snprintf(name, sizeof name, "mesh_%d_%s_collision", nt, kBcmPoseNames[k]);
      us = timeIt(qIntersect, &c, &v);
      emit(name, us, v);
    }
    hsc_freeScene(scene);
    hsc_freeModel(m);
  }
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: %s FLOOR HUMANOID [ROUNDS]\n", argv[0]);
    return 1;
  }
  if (argc == 4) {
    gRounds = atoi(argv[3]);
    if (gRounds < 1) {
      gRounds = 1;
    }
  }
  printf("{\"library\": \"hrpsim\", \"queries\": {");
  humanoid(argv[1], argv[2]);
  rays();
  meshMesh();
  printf("\n}}\n");
  return 0;
}
