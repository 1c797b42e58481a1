// bench_collision_fcl.cpp - the mesh-mesh queries of bench_collision_lib.c done with FCL (the
// Flexible Collision Library), the peer hrpsim's collision library is compared with.
// Benchmark only: FCL is not a dependency of hrpsim. Built when pkg-config finds FCL
// (Debian: `apt-get install libfcl-dev`); bench/bench_collision_lib.py runs both and prints
// the ratios and whether the answers agree.
//
//   hrpsim-bench-collision-fcl [ROUNDS]
//
// The same bumpy spheres (bench_collision_mesh.h: 19,800 and 99,904 triangles, the same float
// vertices, fingerprints printed) as BVHModel<OBBRSS> (FCL's usual choice for distance and
// collision on meshes), the same poses (overlap, near, far): fcl::distance with nearest points
// ("distance", the value is min_distance) and fcl::collide with one contact asked for
// ("collision", 0/1). FCL 0.7 has no ray query, so the 1,000 rays are not done here. Timing as
// bench_collision_lib.c: the median over ROUNDS (default 7) rounds of at least 20 ms each,
// microseconds per call. Prints one JSON object of the same shape.

#include <fcl/fcl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "bench_collision_mesh.h"

namespace {

int gRounds = 7;
bool gFirst = true;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// median over gRounds rounds of microseconds per call of fn; *answer gets one call's answer
double timeIt(const std::function<double()> &fn, double *answer) {
  *answer = fn();
  long calls = 1;
  double t0 = now();
  fn();
  double one = now() - t0;
  if (one < 0.02) {
    calls = static_cast<long>(0.02 / std::max(one, 1e-7)) + 1;
  }
  std::vector<double> us;
  for (int r = 0; r < gRounds; r++) {
    t0 = now();
    for (long c = 0; c < calls; c++) {
      fn();
    }
    us.push_back((now() - t0) / calls * 1e6);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

void emit(const char *name, double us, double value) {
  std::printf("%s\n    \"%s\": {\"us\": %.6g, \"value\": %.17g}", gFirst ? "" : ",", name, us,
              value);
  gFirst = false;
}

using Model = fcl::BVHModel<fcl::OBBRSSd>;

// the bumpy sphere n x n as an FCL model; *hash gets the fingerprint of the triangles used
std::shared_ptr<Model> sphereModel(int n, int *ntri, unsigned long long *hash) {
  int nv = bcm_vertexCount(n, n), nt = bcm_triangleCount(n, n);
  std::vector<float> v(3 * nv);
  std::vector<int> t(3 * nt);
  bcm_bumpySphere(n, n, BCM_RADIUS, v.data(), t.data());
  *hash = bcm_hash(v.data(), nv, t.data(), nt);
  *ntri = nt;
  std::vector<fcl::Vector3d> pts(nv);
  for (int i = 0; i < nv; i++) {
    pts[i] = fcl::Vector3d(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
  }
  std::vector<fcl::Triangle> tris(nt);
  for (int i = 0; i < nt; i++) {
    tris[i] = fcl::Triangle(t[3 * i], t[3 * i + 1], t[3 * i + 2]);
  }
  auto m = std::make_shared<Model>();
  m->beginModel(nt, nv);
  m->addSubModel(pts, tris);
  m->endModel();
  return m;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [ROUNDS]\n", argv[0]);
    return 1;
  }
  if (argc == 2) {
    gRounds = std::max(1, std::min(64, std::atoi(argv[1])));
  }
  std::printf("{\"library\": \"fcl %s\", \"queries\": {", FCL_VERSION);
  for (int s = 0; s < 2; s++) {
    int nt;
    unsigned long long hash;
    double t0 = now();
    auto m = sphereModel(kBcmSizes[s], &nt, &hash);
    double build = now() - t0;
    char name[64];
    std::snprintf(name, sizeof name, "mesh_%d", nt);
    std::printf("%s\n    \"%s\": {\"us\": %.6g, \"value\": 0, \"hash\": \"%016llx\"}",
                gFirst ? "" : ",", name, build * 1e6, hash);
    gFirst = false;
    fcl::CollisionObjectd a(m, fcl::Transform3d::Identity());
    for (int k = 0; k < 3; k++) {
      double p[3], R[9];
      bcm_pose(k, p, R);
      fcl::Matrix3d rot;
      rot << R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8];
      fcl::Transform3d tf = fcl::Transform3d::Identity();
      tf.linear() = rot;
      tf.translation() = fcl::Vector3d(p[0], p[1], p[2]);
      fcl::CollisionObjectd b(m, tf);
      double v, us;
      us = timeIt(
          [&] {
            fcl::DistanceRequestd req(true);
            fcl::DistanceResultd res;
            fcl::distance(&a, &b, req, res);
            return res.min_distance;
          },
          &v);
      std::snprintf(name, sizeof name, "mesh_%d_%s_distance", nt, kBcmPoseNames[k]);
      emit(name, us, v);
      us = timeIt(
          [&] {
            fcl::CollisionRequestd req(1, false);
            fcl::CollisionResultd res;
            fcl::collide(&a, &b, req, res);
            return res.isCollision() ? 1.0 : 0.0;
          },
          &v);
      std::snprintf(name, sizeof name, "mesh_%d_%s_collision", nt, kBcmPoseNames[k]);
      emit(name, us, v);
    }
  }
  std::printf("\n}}\n");
  return 0;
}
