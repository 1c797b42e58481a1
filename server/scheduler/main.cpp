// main.cpp - hrpsim-scheduler: the simulation loop server. Binds "Scheduler" (hrpsim::Scheduler)
// and "ClockGenerator" (OpenHRP::ClockGenerator); hosts the DynamicsSimulator it steps in this
// process (scheduler.h).
//
// Usage: hrpsim-scheduler -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [other -ORB options]

#include <cstdio>

#include "runtime.h"
#include "scheduler.h"

namespace {

const char kSynopsis[] =
    "hrpsim-scheduler -ORBInitRef NameService=CORBALOC [--allow-remote-shutdown] [-ORB options]";
const char kOptions[] =
    "Serves hrpsim's Scheduler (bound as \"Scheduler\") and OpenHRP's ClockGenerator (bound as\n"
    "\"ClockGenerator\"); a run's DynamicsSimulator lives in this process.\n";
}  // namespace

int main(int argc, char **argv) {
  if (hrpsim::helpRequested(argc, argv, kSynopsis, kOptions)) {
    return 0;
  }
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-scheduler");
    if (!hrpsim::noArgumentsLeft(argc, argv, "hrpsim-scheduler", kSynopsis)) {
      return 2;
    }
    hs_initProcess();  // once per process, before any simulation; routes ODE's messages to our log
    PortableServer::POA_ptr poa = runtime.poa();
    hrpsim::SchedulerServant *scheduler = new hrpsim::SchedulerServant;  // our reference
    PortableServer::ObjectId_var sid = poa->activate_object(scheduler);
    hrpsim::ClockGeneratorServant *clock = new hrpsim::ClockGeneratorServant(scheduler);
    PortableServer::ObjectId_var cid = poa->activate_object(clock);
    clock->_remove_ref();  // the POA holds it (and it holds the scheduler)
    CORBA::Object_var sref = poa->id_to_reference(sid);
    CORBA::Object_var cref = poa->id_to_reference(cid);
    runtime.bind("Scheduler", sref);
    runtime.bind("ClockGenerator", cref);
    // a shutdown (a signal or ServerObject::shutdown) first halts a run still going (its
    // controllers left alone), which also releases clients blocked in Scheduler::wait, so the
    // ORB's shutdown does not wait for them; then names are unbound and the ORB stops
    runtime.onShutdown([scheduler] { scheduler->halt(); });
    runtime.orb()->run();
    scheduler->halt();
    scheduler->_remove_ref();
    runtime.orb()->destroy();
    hsu_log(hsLOG_INFO, "stopped");
    return 0;
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "hrpsim-scheduler: cannot start: CORBA %s (is the naming service "
                 "running and given with -ORBInitRef NameService=...?)\n", e._name());
    return 1;
  }
}
