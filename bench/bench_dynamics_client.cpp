// bench_dynamics_client.cpp - steps per second of a DynamicsSimulator driven through CORBA from
// C++, the way a scheduler drives it: each step is stepSimulation + getWorldState +
// getCharacterSensorState (three round trips), or with ONE-CALL given, the same in one round
// trip: hrpsim::DynamicsSimulator::stepWith (no commands, one step, the world state with its
// poses and the probe's sensor state).
//
//   hrpsim-bench-dynamics-client -ORBInitRef NameService=corbaloc:... SCENE STEPS FLOOR MODEL
//                                [one-call]
//
// SCENE is "humanoid" (FLOOR and the sample humanoid MODEL standing in high-gain mode, sensors
// on, 1 ms step) or "boxes" (100 copies of the box MODEL dropped in a 5 x 5 x 4 grid onto FLOOR,
// every box/box and box/floor pair registered). The scenes are the ones bench_world.c steps
// in-process (same poses, pairs and options). Prints one JSON object: scene, steps, seconds,
// steps_per_s, calls_per_step. bench/bench_dynamics.py runs it beside the in-process and Python
// figures.

#include <omniORB4/CORBA.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_client.h"
#include "Diagnostics.hh"
#include "DynamicsSimulator.hh"
#include "ModelLoader.hh"

namespace {

using OpenHRP::DynamicsSimulator;

OpenHRP::DblSequence transform(double x, double y, double z, double yaw) {
  double c = std::cos(yaw), s = std::sin(yaw);
  const double v[12] = {x, y, z, c, -s, 0, s, c, 0, 0, 0, 1};
  OpenHRP::DblSequence t;
  t.length(12);
  for (CORBA::ULong k = 0; k < 12; k++) t[k] = v[k];
  return t;
}

// the 100-box grid of bench_world.c: 4 layers of 5 x 5, 0.15 m apart, each layer shifted and
// turned a little so the boxes tumble into a pile
void boxPose(int i, double *x, double *y, double *z, double *yaw) {
  int layer = i / 25, row = (i % 25) / 5, col = i % 5;
  *x = (col - 2) * 0.15 + 0.03 * layer;
  *y = (row - 2) * 0.15 - 0.02 * layer;
  *z = 0.1 + 0.15 * layer;
  *yaw = 0.1 * layer;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
    bool oneCall = argc == 6 && std::string(argv[5]) == "one-call";
    if (argc != 5 && !oneCall) {
      std::fprintf(stderr, "usage: %s -ORBInitRef NameService=... humanoid|boxes STEPS FLOOR "
                   "MODEL [one-call]\n", argv[0]);
      return 1;
    }
    std::string scene = argv[1];
    long steps = std::atol(argv[2]);
    CORBA::Object_var obj = bench::resolve(orb, "ModelLoader");
    OpenHRP::ModelLoader_var loader = OpenHRP::ModelLoader::_narrow(obj);
    obj = bench::resolve(orb, "DynamicsSimulatorFactory");
    OpenHRP::DynamicsSimulatorFactory_var factory =
        OpenHRP::DynamicsSimulatorFactory::_narrow(obj);
    OpenHRP::BodyInfo_var floor = loader->getBodyInfo(bench::url(argv[3]).c_str());
    OpenHRP::BodyInfo_var model = loader->getBodyInfo(bench::url(argv[4]).c_str());

    OpenHRP::DynamicsSimulator_var sim = factory->create();
    OpenHRP::DblSequence6 K, C;
    K.length(0);
    C.length(0);
    sim->registerCharacter("floor", floor);
    std::string probe;  // the character whose sensor state is read every step
    if (scene == "humanoid") {
      sim->registerCharacter("robot", model);
      sim->init(0.001, DynamicsSimulator::EULER, DynamicsSimulator::ENABLE_SENSOR);
      sim->setCharacterAllJointModes("robot", DynamicsSimulator::HIGH_GAIN_MODE);
      sim->registerCollisionCheckPair("floor", "", "robot", "", 0.5, 0.5, K, C, 0.01, 0.0);
      probe = "robot";
    } else if (scene == "boxes") {
      char name[16];
      for (int i = 0; i < 100; i++) {
        std::snprintf(name, sizeof name, "box%02d", i);
        sim->registerCharacter(name, model);
      }
      sim->init(0.001, DynamicsSimulator::EULER, DynamicsSimulator::ENABLE_SENSOR);
      OpenHRP::LinkInfoSequence_var links = model->links();
      for (int i = 0; i < 100; i++) {
        double x, y, z, yaw;
        boxPose(i, &x, &y, &z, &yaw);
        std::snprintf(name, sizeof name, "box%02d", i);
        sim->setCharacterLinkData(name, links[CORBA::ULong(0)].name,
                                  DynamicsSimulator::ABS_TRANSFORM, transform(x, y, z, yaw));
        sim->registerCollisionCheckPair("floor", "", name, "", 0.5, 0.5, K, C, 0.01, 0.0);
      }
      char other[16];
      for (int i = 0; i < 100; i++) {
        for (int j = i + 1; j < 100; j++) {
          std::snprintf(name, sizeof name, "box%02d", i);
          std::snprintf(other, sizeof other, "box%02d", j);
          sim->registerCollisionCheckPair(name, "", other, "", 0.5, 0.5, K, C, 0.01, 0.0);
        }
      }
      probe = "box00";
    } else {
      std::fprintf(stderr, "unknown scene '%s'\n", scene.c_str());
      return 1;
    }
    sim->initSimulation();
    hrpsim::DynamicsSimulator_var one;
    if (oneCall) {
      one = hrpsim::DynamicsSimulator::_narrow(sim);
      if (CORBA::is_nil(one)) {
        std::fprintf(stderr, "bench: the DynamicsSimulator has no stepWith (not hrpsim's)\n");
        return 1;
      }
    }
    hrpsim::JointCommandSequence none;
    OpenHRP::StringSequence probes;
    probes.length(1);
    probes[0] = probe.c_str();

    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < steps; i++) {
      OpenHRP::WorldState_var ws;
      if (oneCall) {
        OpenHRP::SensorStateSequence_var ss;
        one->stepWith(none, 1, true, probes, ws, ss);
        continue;
      }
      sim->stepSimulation();
      sim->getWorldState(ws);
      OpenHRP::SensorState_var ss;
      sim->getCharacterSensorState(probe.c_str(), ss);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sim->destroy();
    std::printf("{\"scene\": \"%s\", \"steps\": %ld, \"seconds\": %.6f, \"steps_per_s\": %.1f, "
                "\"calls_per_step\": %d}\n", scene.c_str(), steps, seconds, steps / seconds,
                oneCall ? 1 : 3);
    orb->destroy();
    return 0;
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "bench: CORBA %s\n", e._name());
    return 1;
  }
}
