// main.cpp - hrpsim-collision: serves OpenHRP's CollisionDetectorFactory, bound as
// "CollisionDetectorFactory"; each create() makes an independent CollisionDetector (one
// collision scene).
//
// Usage: hrpsim-collision -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [other -ORB options]

#include <cstdio>

#include "collision_detector.h"
#include "runtime.h"

int main(int argc, char **argv) {
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-collision");
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
