// main.cpp - hrpsim-dynamics: serves OpenHRP's DynamicsSimulatorFactory, bound as
// "DynamicsSimulatorFactory"; each create() makes an independent DynamicsSimulator (one ODE
// world).
//
// Usage: hrpsim-dynamics -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [other -ORB options]

#include <cstdio>

#include "dynamics_simulator.h"
#include "runtime.h"

namespace {

const char kSynopsis[] =
    "hrpsim-dynamics -ORBInitRef NameService=CORBALOC [--allow-remote-shutdown] [-ORB options]";
const char kOptions[] =
    "Serves OpenHRP's DynamicsSimulatorFactory, bound as \"DynamicsSimulatorFactory\"; each\n"
    "create() makes an independent DynamicsSimulator (one ODE world).\n";
}  // namespace

int main(int argc, char **argv) {
  // worlds are made and freed on request threads: one arena, big blocks mapped, or the RSS
  // creeps (runtime.h)
  hrpsim::useOneMallocArena();
  if (hrpsim::helpRequested(argc, argv, kSynopsis, kOptions)) {
    return 0;
  }
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-dynamics");
    if (!hrpsim::noArgumentsLeft(argc, argv, "hrpsim-dynamics", kSynopsis)) {
      return 2;
    }
    hs_initProcess();  // once per process, before any simulation; routes ODE's messages to our log
    hrpsim::DynamicsSimulatorFactoryServant *factory = new hrpsim::DynamicsSimulatorFactoryServant;
    PortableServer::ObjectId_var oid = runtime.poa()->activate_object(factory);
    factory->_remove_ref();
    CORBA::Object_var ref = runtime.poa()->id_to_reference(oid);
    runtime.bind("DynamicsSimulatorFactory", ref);
    return runtime.run();
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "hrpsim-dynamics: cannot start: CORBA %s (is the naming service "
                 "running and given with -ORBInitRef NameService=...?)\n", e._name());
    return 1;
  }
}
