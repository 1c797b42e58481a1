// scheduler.cpp: the sample scheduler of OpenHRP 3.1, against hrpsim's servers.
//
//   hrpsim-sample-scheduler -ORBInitRef NameService=corbaloc:iiop:127.0.0.1:2809/NameService
//                           [--time 5] [--dt 0.001] [--floor URL] [--robot URL]
//
// It loads a floor and the sample humanoid through the ModelLoader, creates a
// DynamicsSimulator from the DynamicsSimulatorFactory, registers both, puts the robot in a
// standing pose with slightly bent knees (soles on the floor), declares the floor/robot contact
// pair, drives every joint in high-gain mode holding that pose, and runs --time seconds of
// simulation in steps of --dt, printing the root (WAIST) height every 0.5 s and a final line
// with its drift. Each step sends the joint commands, steps, and reads the world state and the
// robot's sensor state, as a scheduler with a controller does. Exits 0 on success, 1 on any
// error (reported on stderr).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <omniORB4/CORBA.h>
#include <omniORB4/Naming.hh>

#include "DynamicsSimulator.hh"
#include "ModelLoader.hh"

#ifndef HRPSIM_SAMPLE_MODELS
#define HRPSIM_SAMPLE_MODELS "samples/models"
#endif

namespace {

using OpenHRP::DynamicsSimulator;

// the knee bend of the initial pose: hip pitch -a, knee 2a, ankle pitch -a keep the feet flat
// and under the hips, and lower the waist by 2 * 0.3 m * (1 - cos a)
const double kBend = 0.2;
const double kWaistZ = 0.82 - 0.6 * (1.0 - std::cos(kBend));  // sample humanoid: WAIST at 0.82

// resolve name in the naming service and narrow it to T
template <typename T>
typename T::_ptr_type resolve(CORBA::ORB_ptr orb, const char *name) {
  CORBA::Object_var nsObj;
  try {
    nsObj = orb->resolve_initial_references("NameService");
  } catch (const CORBA::ORB::InvalidName &) {
    throw std::runtime_error("no naming service given (use -ORBInitRef NameService=...)");
  }
  CosNaming::NamingContext_var ns = CosNaming::NamingContext::_narrow(nsObj);
  if (CORBA::is_nil(ns)) {
    throw std::runtime_error("the NameService reference is not a naming context");
  }
  CosNaming::Name n;
  n.length(1);
  n[0].id = CORBA::string_dup(name);
  n[0].kind = CORBA::string_dup("");
  CORBA::Object_var obj;
  try {
    obj = ns->resolve(n);
  } catch (const CosNaming::NamingContext::NotFound &) {
    throw std::runtime_error(std::string("\"") + name + "\" is not bound in the naming service "
                             "(are the servers up?)");
  }
  typename T::_ptr_type ref = T::_narrow(obj);
  if (CORBA::is_nil(ref)) {
    throw std::runtime_error(std::string("\"") + name + "\" is not of the expected interface");
  }
  return ref;
}

// a file:// URL for a path (absolute); URLs pass through
std::string fileUrl(const std::string &path) {
  if (path.find("://") != std::string::npos) {
    return path;
  }
  return "file://" + std::filesystem::absolute(path).lexically_normal().string();
}

// the joint values of the initial pose, in jointId order (sample humanoid: 30 joints)
OpenHRP::DblSequence initialPose(const OpenHRP::LinkInfoSequence &links) {
  OpenHRP::DblSequence q;
  CORBA::ULong njoint = 0;
  for (CORBA::ULong i = 0; i < links.length(); i++) {
    if (links[i].jointId >= 0) njoint++;
  }
  q.length(njoint);
  for (CORBA::ULong i = 0; i < njoint; i++) q[i] = 0.0;
  for (CORBA::ULong i = 0; i < links.length(); i++) {
    const char *name = links[i].name;
    int id = links[i].jointId;
    if (id < 0) continue;
    std::string s = name;
    if (s.find("_HIP_P") != std::string::npos || s.find("_ANKLE_P") != std::string::npos) {
      q[id] = -kBend;
    } else if (s.find("LEG_KNEE") != std::string::npos) {
      q[id] = 2.0 * kBend;
    } else if (s.find("ARM_ELBOW") != std::string::npos) {
      q[id] = -0.3;
    }
  }
  return q;
}

int run(CORBA::ORB_ptr orb, double duration, double dt, const std::string &floorUrl,
        const std::string &robotUrl) {
  OpenHRP::ModelLoader_var loader = resolve<OpenHRP::ModelLoader>(orb, "ModelLoader");
  OpenHRP::DynamicsSimulatorFactory_var factory =
      resolve<OpenHRP::DynamicsSimulatorFactory>(orb, "DynamicsSimulatorFactory");
  OpenHRP::BodyInfo_var floor = loader->loadBodyInfo(floorUrl.c_str());
  OpenHRP::BodyInfo_var robot = loader->loadBodyInfo(robotUrl.c_str());
  OpenHRP::LinkInfoSequence_var links = robot->links();
  CORBA::String_var rootName = CORBA::string_dup(links[CORBA::ULong(0)].name);

  OpenHRP::DynamicsSimulator_var sim = factory->create();
  sim->registerCharacter("floor", floor);
  sim->registerCharacter("robot", robot);
  sim->init(dt, DynamicsSimulator::EULER, DynamicsSimulator::ENABLE_SENSOR);
  OpenHRP::DblSequence3 g;
  g.length(3);
  g[0] = 0.0;
  g[1] = 0.0;
  g[2] = 9.8;  // OpenHRP's convention: ordinary gravity, pulling towards -z
  sim->setGVector(g);
  sim->setCharacterAllJointModes("robot", DynamicsSimulator::HIGH_GAIN_MODE);

  // initial pose: the root lowered by the knee bend, then the joints
  OpenHRP::DblSequence root;
  root.length(12);
  const double pose[12] = {0, 0, kWaistZ, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (CORBA::ULong k = 0; k < 12; k++) root[k] = pose[k];
  sim->setCharacterLinkData("robot", rootName, DynamicsSimulator::ABS_TRANSFORM, root);
  OpenHRP::DblSequence q = initialPose(links.in());
  sim->setCharacterAllLinkData("robot", DynamicsSimulator::JOINT_VALUE, q);
  sim->calcWorldForwardKinematics();

  OpenHRP::DblSequence6 K, C;  // spring-damper gains: not used
  K.length(0);
  C.length(0);
  sim->registerCollisionCheckPair("floor", "", "robot", "", 0.5, 0.5, K, C, 0.01, 0.0);
  sim->initSimulation();

  long steps = std::lround(duration / dt);
  long every = std::max(1L, std::lround(0.5 / dt));
  double z0 = kWaistZ;
  double zmin = z0, zmax = z0, z = z0, t = 0.0;
  std::printf("t=%.3f s  root z=%.6f m\n", 0.0, z0);
  for (long i = 1; i <= steps; i++) {
    // the controller's output: hold the pose
    sim->setCharacterAllLinkData("robot", DynamicsSimulator::JOINT_VALUE, q);
    sim->stepSimulation();
    OpenHRP::WorldState_var ws;
    sim->getWorldState(ws);
    OpenHRP::SensorState_var ss;
    sim->getCharacterSensorState("robot", ss);
    // the robot is the second character; its link 0 is the root
    const OpenHRP::CharacterPosition &cp = ws->characterPositions[CORBA::ULong(1)];
    z = cp.linkPositions[CORBA::ULong(0)].p[2];
    t = ws->time;
    zmin = std::min(zmin, z);
    zmax = std::max(zmax, z);
    if (i % every == 0) {
      std::printf("t=%.3f s  root z=%.6f m\n", t, z);
    }
  }
  std::printf("final: t=%.3f s  root z=%.6f m  drift=%+.3f mm  range=[%.6f, %.6f] m\n", t, z,
              (z - z0) * 1e3, zmin, zmax);
  sim->destroy();
  return 0;
}

void usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s -ORBInitRef NameService=corbaloc:iiop:HOST:PORT/NameService "
               "[--time S] [--dt S] [--floor URL] [--robot URL]\n",
               argv0);
}

}  // namespace

int main(int argc, char **argv) {
  try {
    CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
    double duration = 5.0, dt = 0.001;
    std::string floorUrl = HRPSIM_SAMPLE_MODELS "/floor/floor.wrl";
    std::string robotUrl = HRPSIM_SAMPLE_MODELS "/humanoid/humanoid.wrl";
    for (int i = 1; i < argc; i++) {
      std::string a = argv[i];
      if (i + 1 >= argc) {
        usage(argv[0]);
        return 1;
      }
      if (a == "--time") {
        duration = std::atof(argv[++i]);
      } else if (a == "--dt") {
        dt = std::atof(argv[++i]);
      } else if (a == "--floor") {
        floorUrl = argv[++i];
      } else if (a == "--robot") {
        robotUrl = argv[++i];
      } else {
        usage(argv[0]);
        return 1;
      }
    }
    if (!(duration > 0.0) || !(dt > 0.0)) {
      usage(argv[0]);
      return 1;
    }
    int status = run(orb, duration, dt, fileUrl(floorUrl), fileUrl(robotUrl));
    orb->destroy();
    return status;
  } catch (const OpenHRP::ModelLoader::ModelLoaderException &e) {
    std::fprintf(stderr, "error: %s\n", static_cast<const char *>(e.description));
  } catch (const CORBA::TRANSIENT &e) {
    std::fprintf(stderr, "error: CORBA TRANSIENT: cannot reach the naming service or a server "
                 "(are the servers up? see `hrpsim status`)\n");
  } catch (const CORBA::SystemException &e) {
    std::fprintf(stderr, "error: CORBA %s (minor 0x%lx); the server's log says why\n",
                 e._name(), static_cast<unsigned long>(e.minor()));
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "error: CORBA %s\n", e._name());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
  }
  return 1;
}
