// main.cpp - hrpsim-collision: serves OpenHRP's CollisionDetectorFactory, bound as
// "CollisionDetectorFactory"; each create() makes an independent CollisionDetector (one
// collision scene).
//
// Usage: hrpsim-collision -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [other -ORB options]

#include <cstdio>

#include "collision_detector.h"
#include "runtime.h"

namespace {

const char kSynopsis[] =
    "hrpsim-collision -ORBInitRef NameService=CORBALOC [--allow-remote-shutdown] [-ORB options]";
const char kOptions[] =
    "Serves OpenHRP's CollisionDetectorFactory, bound as \"CollisionDetectorFactory\"; each\n"
    "create() makes an independent CollisionDetector (one collision scene).\n";
}  // namespace

int main(int argc, char **argv) {
  if (hrpsim::helpRequested(argc, argv, kSynopsis, kOptions)) {
    return 0;
  }
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-collision");
    if (!hrpsim::noArgumentsLeft(argc, argv, "hrpsim-collision", kSynopsis)) {
      return 2;
    }
    auto *factory = new hrpsim::CollisionDetectorFactoryServant;
    PortableServer::ObjectId_var oid = runtime.poa()->activate_object(factory);
    factory->_remove_ref();
    CORBA::Object_var ref = runtime.poa()->id_to_reference(oid);
    runtime.bind("CollisionDetectorFactory", ref);
    return runtime.run();
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "hrpsim-collision: cannot start: CORBA %s (is the naming service "
                 "running and given with -ORBInitRef NameService=...?)\n", e._name());
    return 1;
  }
}
