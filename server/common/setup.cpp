// setup.cpp - the set-up operations both simulation servants have (setup.h): the wire's
// values converted by wire.h, then the core's calls, which check them.

#include "setup.h"

#include <cstdio>
#include <string>

namespace hrpsim {
namespace setup {

int gravity(hsSim *sim, const OpenHRP::DblSequence3 &g, hsError *err) {
  double acc[3];
  int rc = wire::gravityFromWire(g, acc, err);
  return rc < 0 ? rc : hs_setGravity(sim, acc, err);
}

int sensorOption(hsSim *sim, DS::SensorOption option, hsError *err) {
  bool on = false;
  int rc = wire::sensorOption(option, &on, err);
  if (rc == 0) {
    hs_enableSensors(sim, on ? 1 : 0);
  }
  return rc;
}

int allJointModes(hsSim *sim, const char *character, DS::JointDriveMode mode, hsError *err) {
  SimLock lock(sim);
  int highGain = 0;
  int ch = hs_character(sim, character, err);
  if (ch < 0 || wire::jointMode(mode, &highGain, err) < 0) {
    return hsE_INVALID;
  }
  int rc = hs_setAllJointModes(sim, ch, highGain, err);
  if (rc < 0) {
    // the core's message about this character
    std::string msg = std::string("'") + character + "': " + err->message;
    std::snprintf(err->message, sizeof err->message, "%s", msg.c_str());
  }
  return rc;
}

int linkData(hsSim *sim, const char *character, const char *link, DS::LinkDataType type,
             const OpenHRP::DblSequence &data, hsError *err) {
  SimLock lock(sim);
  int ch = hs_character(sim, character, err);
  int l = ch < 0 ? ch : hs_link(sim, ch, link, err);
  return l < 0 ? l : wire::setLinkData(sim, ch, l, type, data, err);
}

int contactPair(hsSim *sim, const char *char1, const char *link1, const char *char2,
                const char *link2, double staticFriction, double slipFriction, double culling,
                double restitution, hsError *err) {
  return hs_addContactPair(sim, char1, link1, char2, link2, staticFriction, slipFriction,
                           restitution, culling, err);
}

int extraJoint(hsSim *sim, const char *name, const char *char1, const char *link1,
               const char *char2, const char *link2, const OpenHRP::DblSequence3 &p1,
               const OpenHRP::DblSequence3 &p2, OpenHRP::ExtraJointType type,
               const OpenHRP::DblSequence3 &axis, hsError *err) {
  double a[3], b[3], n[3];
  if (wire::vector3(p1, "link1LocalPos", a, err) < 0 ||
      wire::vector3(p2, "link2LocalPos", b, err) < 0 ||
      wire::vector3(axis, "jointAxis", n, err) < 0) {
    return hsE_INVALID;
  }
  // EJ_XYZ, EJ_XY, EJ_Z are the core's types 0, 1, 2 (it refuses others)
  return hs_addExtraJoint(sim, name, char1, link1, char2, link2, a, b, static_cast<int>(type),
                          n, err);
}

int jointOptions(hsSim *sim, bool jointLimits, bool rotorInertia, bool sleep, hsError *err) {
  int rc = hs_setJointOptions(sim, jointLimits ? hsLIMIT_ALL : 0, rotorInertia ? 1 : 0, err);
  return rc < 0 ? rc : hs_setSleep(sim, sleep ? 1 : 0, err);
}

int jointLimits(hsSim *sim, bool position, bool velocity, bool effort, hsError *err) {
  return hs_setJointLimits(sim, jointLimitBits(position, velocity, effort), err);
}

}  // namespace setup
}  // namespace hrpsim
