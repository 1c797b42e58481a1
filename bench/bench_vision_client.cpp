// bench_vision_client.cpp - frames per second of a ViewSimulator camera through CORBA from C++:
// each frame is updateScene (a new pose of the robot) + getImageData (one round trip each), the
// way a controller or a scheduler in another process takes pictures.
//
//   hrpsim-bench-vision-client -ORBInitRef NameService=corbaloc:... ROOM ROBOT FRAMES
//
// ROOM and ROBOT are model files (loaded with images through the ModelLoader); the robot's first
// camera is used as declared (bench/bench_vision.py writes a copy of the sample humanoid whose
// head camera is COLOR_DEPTH at the size measured). The robot's links stay at their initial
// relative poses while its root turns about z. Prints one JSON object: width, height, frames,
// fps, ms_per_frame, bytes_per_frame.

#include <omniORB4/CORBA.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_client.h"
#include "DynamicsSimulator.hh"
#include "ViewSimulator.hh"

int main(int argc, char **argv) {
  try {
    // images are larger than omniORB's default 2 MB message limit (as in the servers: 1 GiB)
    const char *options[][2] = {{"giopMaxMsgSize", "1073741824"}, {nullptr, nullptr}};
    CORBA::ORB_var orb = CORBA::ORB_init(argc, argv, "omniORB4", options);
    if (argc != 4) {
      std::fprintf(stderr, "usage: %s -ORBInitRef NameService=... ROOM ROBOT FRAMES\n", argv[0]);
      return 1;
    }
    long frames = std::atol(argv[3]);
    CORBA::Object_var obj = bench::resolve(orb, "ModelLoader");
    OpenHRP::ModelLoader_var loader = OpenHRP::ModelLoader::_narrow(obj);
    OpenHRP::ModelLoader::ModelLoadOption opt;
    opt.readImage = true;
    opt.AABBtype = OpenHRP::ModelLoader::AABB_NUM;
    OpenHRP::BodyInfo_var room = loader->loadBodyInfoEx(bench::url(argv[1]).c_str(), opt);
    OpenHRP::BodyInfo_var robot = loader->loadBodyInfoEx(bench::url(argv[2]).c_str(), opt);
    // the robot's initial link poses, from a DynamicsSimulator
    obj = bench::resolve(orb, "DynamicsSimulatorFactory");
    OpenHRP::DynamicsSimulatorFactory_var dsf = OpenHRP::DynamicsSimulatorFactory::_narrow(obj);
    OpenHRP::DynamicsSimulator_var ds = dsf->create();
    ds->registerCharacter("robot", robot);
    ds->init(0.001, OpenHRP::DynamicsSimulator::EULER, OpenHRP::DynamicsSimulator::ENABLE_SENSOR);
    ds->initSimulation();
    OpenHRP::WorldState_var base;
    ds->getWorldState(base);
    ds->destroy();

    obj = bench::resolve(orb, "ViewSimulatorFactory");
    OpenHRP::ViewSimulatorFactory_var vsf = OpenHRP::ViewSimulatorFactory::_narrow(obj);
    OpenHRP::ViewSimulator_var vs = vsf->create();
    vs->registerCharacter("room", room);
    vs->registerCharacter("robot", robot);
    OpenHRP::CameraSequence_var cams;
    vs->getCameraSequenceOf("robot", cams);
    if (cams->length() == 0) {
      std::fprintf(stderr, "the robot has no camera\n");
      return 1;
    }
    OpenHRP::Camera_var cam = cams[0];
    OpenHRP::Camera::CameraParameter_var param = cam->getCameraParameter();

    OpenHRP::WorldState state = base.in();
    const OpenHRP::LinkPositionSequence &lp0 = base->characterPositions[0].linkPositions;
    size_t bytes = 0;
    std::chrono::steady_clock::time_point t0;
    for (long k = -5; k < frames; k++) {  // 5 warm-up frames
      if (k == 0) {
        t0 = std::chrono::steady_clock::now();
      }
      double a = 0.2 * std::sin(0.05 * k), c = std::cos(a), s = std::sin(a);
      const double Rz[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
      OpenHRP::LinkPositionSequence &lp = state.characterPositions[0].linkPositions;
      for (CORBA::ULong l = 0; l < lp.length(); l++) {
        for (int i = 0; i < 3; i++) {
          lp[l].p[i] = 0;
          for (int m = 0; m < 3; m++) {
            lp[l].p[i] += Rz[3 * i + m] * lp0[l].p[m];
          }
          for (int j = 0; j < 3; j++) {
            double v = 0;
            for (int m = 0; m < 3; m++) {
              v += Rz[3 * i + m] * lp0[l].R[3 * m + j];
            }
            lp[l].R[3 * i + j] = v;
          }
        }
      }
      vs->updateScene(state);
      OpenHRP::ImageData_var img = cam->getImageData();
      bytes = img->octetData.length() + 4 * img->longData.length() + 4 * img->floatData.length();
    }
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("{\"width\": %d, \"height\": %d, \"frames\": %ld, \"fps\": %.1f, "
                "\"ms_per_frame\": %.3f, \"bytes_per_frame\": %zu}\n",
                static_cast<int>(param->width), static_cast<int>(param->height), frames,
                frames / dt, 1e3 * dt / frames, bytes);
    vs->destroy();
    orb->destroy();
    return 0;
  } catch (const CORBA::Exception &e) {
    std::fprintf(stderr, "CORBA %s\n", e._name());
    return 1;
  }
}
