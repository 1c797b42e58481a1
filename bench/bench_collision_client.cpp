// bench_collision_client.cpp - time per call of a CollisionDetector through CORBA from C++, on
// the sample humanoid standing on the floor (the collision benchmarks' scene).
//
//   hrpsim-bench-collision-client -ORBInitRef NameService=corbaloc:... CALLS FLOOR HUMANOID
//
// The standing pose comes from a DynamicsSimulator (getWorldState after initSimulation, every
// joint at 0). Instance A has one pair per robot link against the floor link (31 pairs): its
// queryContactDeterminationForDefinedPairs ("contacts") and queryIntersectionForDefinedPairs
// with checkAll ("intersection") and queryDistanceForDefinedPairs ("distance", OpenHRP's
// figure of 5.4 ms was for these pairs). Instance B has every pair of robot links plus those 31
// (496 pairs): queryDistanceForDefinedPairs ("distance_496"). Each call sends the positions of both
// characters, as a DynamicsSimulator would. "scan_1080" is one scanDistanceWithRay of a
// laser-scanner fan over 270 degrees in 1,080 steps (OpenHRP's 2 floor(range / 2 / step) + 1 =
// 1,081 rays) from 1 m in front of the robot at 0.8 m height, horizontal and looking at it (the
// poses are those of instance A's last query). Prints one JSON object with the microseconds per
// call of each (the median of 5 rounds of CALLS calls; CALLS / 10 for the two slow ones) and
// the answer sizes as a sanity check.

#include <omniORB4/CORBA.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_client.h"
#include "CollisionDetector.hh"
#include "DynamicsSimulator.hh"
#include "ModelLoader.hh"

namespace {

OpenHRP::LinkPair pair(const char *c1, const char *l1, const char *c2, const char *l2) {
  OpenHRP::LinkPair p;
  p.charName1 = CORBA::string_dup(c1);
  p.linkName1 = CORBA::string_dup(l1);
  p.charName2 = CORBA::string_dup(c2);
  p.linkName2 = CORBA::string_dup(l2);
  p.tolerance = 0;
  return p;
}

// microseconds per call: the median of 5 rounds of n calls; 0 for a query that
// HRPSIM_BENCH_ONLY (a query's key, for profiling one of them) leaves out
double perCall(const char *key, long n, const std::function<void()> &call) {
  const char *only = std::getenv("HRPSIM_BENCH_ONLY");
  if (only && *only && std::string(only) != key) {
    return 0;
  }
  std::vector<double> us;
  call();  // warm-up
  for (int r = 0; r < 5; r++) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; i++) call();
    std::chrono::duration<double, std::micro> d = std::chrono::steady_clock::now() - t0;
    us.push_back(d.count() / n);
  }
  std::sort(us.begin(), us.end());
  return us[2];
}

}  // namespace

int main(int argc, char **argv) {
  try {
    CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
    if (argc != 4) {
      std::fprintf(stderr, "usage: %s -ORBInitRef NameService=... CALLS FLOOR HUMANOID\n",
                   argv[0]);
      return 1;
    }
    long calls = std::atol(argv[1]);
    CORBA::Object_var obj = bench::resolve(orb, "ModelLoader");
    OpenHRP::ModelLoader_var loader = OpenHRP::ModelLoader::_narrow(obj);
    OpenHRP::BodyInfo_var floor = loader->getBodyInfo(bench::url(argv[2]).c_str());
    OpenHRP::BodyInfo_var robot = loader->getBodyInfo(bench::url(argv[3]).c_str());
    OpenHRP::LinkInfoSequence_var links = robot->links();
    OpenHRP::LinkInfoSequence_var floorLinks = floor->links();
    const char *floorLink = floorLinks[0].name;

    // the standing pose
    obj = bench::resolve(orb, "DynamicsSimulatorFactory");
    OpenHRP::DynamicsSimulatorFactory_var dsf = OpenHRP::DynamicsSimulatorFactory::_narrow(obj);
    OpenHRP::DynamicsSimulator_var sim = dsf->create();
    sim->registerCharacter("floor", floor);
    sim->registerCharacter("robot", robot);
    sim->init(0.001, OpenHRP::DynamicsSimulator::EULER, OpenHRP::DynamicsSimulator::DISABLE_SENSOR);
    sim->initSimulation();
    OpenHRP::WorldState_var ws;
    sim->getWorldState(ws);
    OpenHRP::CharacterPositionSequence positions = ws->characterPositions;
    sim->destroy();

    obj = bench::resolve(orb, "CollisionDetectorFactory");
    OpenHRP::CollisionDetectorFactory_var cdf = OpenHRP::CollisionDetectorFactory::_narrow(obj);
    OpenHRP::CollisionDetector_var a = cdf->create(), b = cdf->create();
    for (auto *cd : {&a, &b}) {
      (*cd)->registerCharacter("floor", floor);
      (*cd)->registerCharacter("robot", robot);
    }
    CORBA::ULong n = links->length();
    for (CORBA::ULong i = 0; i < n; i++) {
      a->addCollisionPair(pair("floor", floorLink, "robot", links[i].name));
      b->addCollisionPair(pair("floor", floorLink, "robot", links[i].name));
      for (CORBA::ULong j = i + 1; j < n; j++) {
        b->addCollisionPair(pair("robot", links[i].name, "robot", links[j].name));
      }
    }
    CORBA::ULong ncol = 0, npoint = 0, nhit = 0, ndist = 0;
    double contacts = perCall("contacts", calls, [&] {
      OpenHRP::CollisionSequence_var cols;
      a->queryContactDeterminationForDefinedPairs(positions, cols);
      ncol = cols->length();
      npoint = 0;
      for (CORBA::ULong k = 0; k < ncol; k++) npoint += cols[k].points.length();
    });
    double intersection = perCall("intersection", calls, [&] {
      OpenHRP::LinkPairSequence_var hits;
      a->queryIntersectionForDefinedPairs(true, positions, hits);
      nhit = hits->length();
    });
    double distance = perCall("distance", calls, [&] {
      OpenHRP::DistanceSequence_var ds;
      a->queryDistanceForDefinedPairs(positions, ds);
    });
    double distanceAll = perCall("distance_496", std::max(1L, calls / 10), [&] {
      OpenHRP::DistanceSequence_var ds;
      b->queryDistanceForDefinedPairs(positions, ds);
      ndist = ds->length();
    });
    // the scanner: local -z (the fan's centre) along world -x, the fan in the horizontal plane
    const double kPi = 3.14159265358979323846;
    OpenHRP::DblArray3 scanP = {1.0, 0.0, 0.8};
    OpenHRP::DblArray9 scanR = {0, 0, 1, 1, 0, 0, 0, 1, 0};
    double scanStep = 1.5 * kPi / 1080, scanRange = 1.5 * kPi + 0.5 * scanStep;
    CORBA::ULong nray = 0, nscanHit = 0;
    {
      OpenHRP::LinkPairSequence_var hits;  // poses the scene (HRPSIM_BENCH_ONLY skips the rest)
      a->queryIntersectionForDefinedPairs(true, positions, hits);
    }
    double scan = perCall("scan_1080", std::max(1L, calls / 10), [&] {
      OpenHRP::DblSequence_var d = a->scanDistanceWithRay(scanP, scanR, scanStep, scanRange);
      nray = d->length();
      nscanHit = 0;
      for (CORBA::ULong k = 0; k < nray; k++) nscanHit += d[k] < 1e30;
    });
    std::printf("{\"links\": %u, \"contacts_us\": %.2f, \"intersection_us\": %.2f, "
                "\"distance_us\": %.2f, \"distance_496_us\": %.2f, \"scan_1080_us\": %.2f, "
                "\"collisions\": %u, \"points\": %u, \"hits\": %u, \"distances\": %u, "
                "\"rays\": %u, \"ray_hits\": %u}\n",
                n, contacts, intersection, distance, distanceAll, scan, ncol, npoint, nhit, ndist,
                nray, nscanHit);
    a->destroy();
    b->destroy();
    orb->destroy();
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "bench_collision_client: CORBA exception %s\n", e._name());
    return 1;
  }
  return 0;
}
