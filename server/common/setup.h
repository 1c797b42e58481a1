// setup.h - the set-up operations the DynamicsSimulator servant and the Scheduler both have,
// written once: gravity, the sensor option, joint modes, one link's datum by names, contact
// pairs, extra joints, joint options and limits (the solver is wire.h's setSolverFromWire, a
// character from a BodyInfo wire.h's addCharacter). The two servants expose them under
// OpenHRP's names and hrpsim's (setCharacterAllJointModes / setAllJointModes, setWorldOptions /
// setJointOptions, ...) and differ only in how a refusal reaches the client: the
// DynamicsSimulator raises CORBA::BAD_PARAM (BAD_INV_ORDER for hsE_ORDER), the Scheduler its
// SchedulerError, both with the message made here.
//
// Each function converts what crossed the wire (wire.h) and calls the core, which looks names
// up and checks every value once; it returns 0 (or the core's non-negative answer) or a
// negative hstError code with err filled, nothing changed.

#ifndef HRPSIM_SERVER_COMMON_SETUP_H_
#define HRPSIM_SERVER_COMMON_SETUP_H_

#include "wire.h"

namespace hrpsim {
namespace setup {

using DS = OpenHRP::DynamicsSimulator;

// setGVector: OpenHRP's gravity vector (minus the acceleration, 3 finite numbers)
int gravity(hsSim *sim, const OpenHRP::DblSequence3 &g, hsError *err);

// the sensor option (init's third argument, the Scheduler's setSensorOption)
int sensorOption(hsSim *sim, DS::SensorOption option, hsError *err);

// every joint of character in mode (setCharacterAllJointModes, setAllJointModes)
int allJointModes(hsSim *sim, const char *character, DS::JointDriveMode mode, hsError *err);

// one link's datum, the character and link given by name (setCharacterLinkData, setLinkData)
int linkData(hsSim *sim, const char *character, const char *link, DS::LinkDataType type,
             const OpenHRP::DblSequence &data, hsError *err);

// a contact pair ("" link: every link of the character) with its friction, culling distance
// [m] and restitution (registerCollisionCheckPair, addCollisionPair)
int contactPair(hsSim *sim, const char *char1, const char *link1, const char *char2,
                const char *link2, double staticFriction, double slipFriction, double culling,
                double restitution, hsError *err);

// a closed loop: point p1 of char1's link1 tied to p2 of char2's link2 (link frames [m]), of
// OpenHRP's type with axis in link1's frame (registerExtraJoint, addExtraJoint)
int extraJoint(hsSim *sim, const char *name, const char *char1, const char *link1,
               const char *char2, const char *link2, const OpenHRP::DblSequence3 &p1,
               const OpenHRP::DblSequence3 &p2, OpenHRP::ExtraJointType type,
               const OpenHRP::DblSequence3 &axis, hsError *err);

// the joint options beyond OpenHRP (setWorldOptions, setJointOptions): every kind of joint
// limit or none, rotor inertia, sleeping
int jointOptions(hsSim *sim, bool jointLimits, bool rotorInertia, bool sleep, hsError *err);

// some kinds of joint limit (setJointLimits, either servant)
int jointLimits(hsSim *sim, bool position, bool velocity, bool effort, hsError *err);

}  // namespace setup
}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_SETUP_H_
