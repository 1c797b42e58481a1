// main.cpp - hrpsim-dynamics: serves OpenHRP's DynamicsSimulatorFactory, bound as
// "DynamicsSimulatorFactory"; each create() makes an independent DynamicsSimulator (one world,
// on the core's default engine, joint_space, unless --engine or the client's setSolver says).
//
// Usage: hrpsim-dynamics -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService
//        [--engine joint_space|ode] [--SETTING VALUE]... [other -ORB options]
//
// --engine and the solver settings (--stepper quick, --iterations 30, --surface-layer 0.001:
// dynamics.h's names with '-' for '_') are the defaults of every world the factory creates; a
// client changes them per world with hrpsim::DynamicsSimulator::setSolver. They are checked by
// the core (hs_setSolver) at start: a bad one stops the server with the core's message.

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "dynamics_simulator.h"
#include "format.h"
#include "runtime.h"

namespace {

const char kSynopsis[] =
    "hrpsim-dynamics -ORBInitRef NameService=CORBALOC [--engine joint_space|ode]\n"
    "       [--SETTING VALUE]... [--allow-remote-shutdown] [-ORB options]";

// the option of solver setting name: "--" and the name with '-' for '_'
std::string optionName(const char *name) {
  std::string o = std::string("--") + name;
  for (char &c : o) {
    c = c == '_' ? '-' : c;
  }
  return o;
}

// the core's default engine's name (hsd_defaultOptions)
const char *defaultEngine() {
  hsdOptions d;
  hsd_defaultOptions(&d);
  return hsd_engineName(d.engine);
}

// the options with the core's defaults and ranges (dynamics.h's solver settings)
std::string optionsText() {
  hsdOptions d;
  hsd_defaultOptions(&d);
  std::string text = hrpsim::format(
      "Serves OpenHRP's DynamicsSimulatorFactory, bound as \"DynamicsSimulatorFactory\"; each\n"
      "create() makes an independent DynamicsSimulator (one world). The options below are the\n"
      "defaults of every world it creates (a client's setSolver changes its own world's):\n"
      "  --engine E                joint_space or ode (default %s; initSimulation refuses the\n"
      "                            ODE engine's rotor-inertia option on joint_space)\n"
      "solver settings of the ode engine (with --engine ode; the joint_space engine has none\n"
      "yet):\n",
      hsd_engineName(d.engine));
  hstEngine engine;
  const char *name;
  for (int i = 0; (name = hsd_solverSettingName(i, &engine)) != nullptr; i++) {
    char value[64], range[64];
    hsd_solverSettingText(&d, name, value, sizeof value, range, sizeof range);
    std::string shown = value;
    double v = 0;
    if (std::sscanf(value, "%lf", &v) == 1) {
      shown = hrpsim::format("%g", v);
    }
    text += hrpsim::format("  %-25s %s (default %s)\n", (optionName(name) + " V").c_str(),
                           range, shown.c_str());
  }
  return text + "  (docs/servers.md, \"Engines and solver settings\", says what each does)\n";
}

// take --engine and the solver settings' options out of argv; "" or what is wrong
std::string takeSolverOptions(int &argc, char **argv, std::string *engine,
                              std::vector<std::pair<std::string, std::string>> *settings) {
  int out = 1;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    std::string setting;
    hstEngine e;
    const char *name;
    for (int k = 0; (name = hsd_solverSettingName(k, &e)) != nullptr; k++) {
      if (a == optionName(name)) {
        setting = name;
      }
    }
    if (a != "--engine" && setting.empty()) {
      argv[out++] = argv[i];
      continue;
    }
    if (i + 1 >= argc) {
      return a + " needs a value";
    }
    if (a == "--engine") {
      *engine = argv[++i];
    } else {
      settings->emplace_back(setting, argv[++i]);
    }
  }
  argc = out;
  return "";
}
}  // namespace

int main(int argc, char **argv) {
  // worlds are made and freed on request threads: one arena, big blocks mapped, or the RSS
  // creeps (runtime.h)
  hrpsim::useOneMallocArena();
  if (hrpsim::helpRequested(argc, argv, kSynopsis, optionsText().c_str())) {
    return 0;
  }
  try {
    hrpsim::Runtime runtime(argc, argv, "hrpsim-dynamics");
    std::string engine;
    std::vector<std::pair<std::string, std::string>> settings;
    std::string bad = takeSolverOptions(argc, argv, &engine, &settings);
    if (!bad.empty()) {
      std::fprintf(stderr, "hrpsim-dynamics: %s\nusage: %s\n", bad.c_str(), kSynopsis);
      return 2;
    }
    if (!hrpsim::noArgumentsLeft(argc, argv, "hrpsim-dynamics", kSynopsis)) {
      return 2;
    }
    hs_initProcess();  // once per process, before any simulation; routes ODE's messages to our log
    hsError err = {};
    if (hrpsim::setSolverDefaults(engine, settings, &err) != 0) {
      std::fprintf(stderr, "hrpsim-dynamics: %s\nusage: %s\n", err.message, kSynopsis);
      return 2;
    }
    if (!engine.empty() || !settings.empty()) {
      hsu_log(hsLOG_INFO, "every world starts with engine %s and %zu solver setting%s given",
              engine.empty() ? defaultEngine() : engine.c_str(), settings.size(),
              settings.size() == 1 ? "" : "s");
    }
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
