// wire.h - the one place where the simulation's data meets OpenHRP's IDL: link data (every
// LinkDataType, one link or all in jointId order), WorldState, SensorState, LinkPairs, the
// Jacobian, gravity's sign, the drive-mode, integration and sensor options, and a character
// made from a BodyInfo. The model's data (BodyInfo, SceneInfo, the ModelLoader's load options)
// convert in body_info.h, the other half of this module.
//
// Each function checks what the wire brought (lengths, finite numbers, rotations, enum values)
// before anything reaches the C libraries, and reports a problem as an hsError whose message
// names it; the DynamicsSimulator servant turns that into CORBA::BAD_PARAM, the scheduler into
// its SchedulerError. The checks and meanings of link data are the core's (core.h): here they
// only change representation. A function that makes several core calls for one answer should
// be called under a SimLock (sim.h) when other threads may step the simulation.
//
// Conventions: OpenHRP's gravity vector is minus the gravitational acceleration (setGVector
// (0, 0, 9.8) pulls towards -z); a contact normal on the wire points from the pair's first
// link into its second (the C world's from the second towards the first); joint data arrays
// are in jointId order and skip links without a jointId.

#ifndef HRPSIM_SERVER_COMMON_WIRE_H_
#define HRPSIM_SERVER_COMMON_WIRE_H_

#include "Diagnostics.hh"
#include "DynamicsSimulator.hh"
#include "Scheduler.hh"
#include "sim.h"

namespace hrpsim {
namespace wire {

using DS = OpenHRP::DynamicsSimulator;

// the engine and solver settings hrpsim's setSolver carries, applied with hs_setSolver (which
// checks them); 0 or a negative code with err
int setSolverFromWire(hsSim *sim, const char *engine, const hrpsim::SolverSettings &settings,
                      hsError *err);

//---------------------------------- enums and vectors -----------------------------------------

// OpenHRP's name of a LinkDataType ("JOINT_VALUE", ...; "INVALID_DATA_TYPE" for anything else)
const char *typeName(DS::LinkDataType type);

// numbers per link of a fixed-size datum; 0 for CONSTRAINT_FORCE (variable) and bad types
int dataSize(DS::LinkDataType type);

// OpenHRP's gravity vector (3 numbers, minus the acceleration) into the acceleration g
int gravityFromWire(const OpenHRP::DblSequence3 &v, double g[3], hsError *err);
// and back: the vector a client reads with getGVector
void gravityToWire(const double g[3], OpenHRP::DblSequence3 &v);

// a 3-vector from the wire (exactly 3 finite numbers); what names it in the error
int vector3(const OpenHRP::DblSequence3 &v, const char *what, double out[3], hsError *err);

// a joint drive mode from the wire (*highGain: 1 for HIGH_GAIN_MODE, 0 for TORQUE_MODE)
int jointMode(DS::JointDriveMode mode, int *highGain, hsError *err);

// an integration method from the wire set on sim (RUNGE_KUTTA: fourth order on the joint-space
// engine; on the ODE engine Euler, logged) / a sensor option (*on: readings computed)
int integrateMethod(hsSim *sim, DS::IntegrateMethod method, hsError *err);
int sensorOption(DS::SensorOption option, bool *on, hsError *err);

//---------------------------------- characters ------------------------------------------------

// read a BodyInfo (any ModelLoader's) and add it to core as character name; the remote reads
// happen without the simulation's lock. Returns the character index or a
// negative code with err (empty or duplicate name, nil reference, unreadable or bad body).
int addCharacter(hsSim *sim, const char *name, OpenHRP::BodyInfo_ptr info, hsError *err);

//---------------------------------- link data -------------------------------------------------

// write one link's datum (data as setCharacterLinkData takes it); nothing changes on error
int setLinkData(hsSim *sim, int ch, int link, DS::LinkDataType type,
                const OpenHRP::DblSequence &data, hsError *err);

// write every numbered link's datum, jointId order (setCharacterAllLinkData); joint data skip
// numbered links without a 1-dof joint; everything is checked before anything changes
int setAllLinkData(hsSim *sim, int ch, DS::LinkDataType type,
                   const OpenHRP::DblSequence &data, hsError *err);

// read one link's datum into out (CONSTRAINT_FORCE: 6 numbers per contact point)
int getLinkData(const hsSim *sim, int ch, int link, DS::LinkDataType type,
                OpenHRP::DblSequence &out, hsError *err);

// read every numbered link's datum, jointId order (not CONSTRAINT_FORCE)
int getAllLinkData(const hsSim *sim, int ch, DS::LinkDataType type, OpenHRP::DblSequence &out,
                   hsError *err);

//---------------------------------- states ----------------------------------------------------

// the time, every character's link frames (link index order) and the last step's contacts, one
// Collision per touching link pair; a new WorldState for the caller
OpenHRP::WorldState *worldState(const hsSim *sim);

// contact groups (their points at points[group.first ...]) as OpenHRP's Collisions: one per
// touching link pair, each point's normal OpenHRP's (from the pair's first link into its
// second: the core's negated); the last step's (worldState) or a log record's (the scheduler)
void collisionsInto(const hsSim *sim, const hsdContactGroup *groups, int ngroup,
                    const hsdContact *points, OpenHRP::CollisionSequence &out);

// record r of the run's log (core.h hsRun) as hrpsim's LogRecord: its world (time, link
// frames, contacts as collisionsInto), SensorStates when sensors are logged, loop forces,
// track speeds, joint-stop torques, contact forces, the push; under a SimLock when another
// thread steps the run
void logRecordInto(const hsRun *run, long long r, hrpsim::LogRecord &out);

// character ch's q, dq, u (jointId order) and body sensor readings (sensorId order of each
// type; zeros while sensors are disabled); a new SensorState for the caller
OpenHRP::SensorState *sensorState(const hsSim *sim, int ch);
// the same written into out (a member of a reply being built: no copy; the caller owns out)
void sensorStateInto(const hsSim *sim, int ch, OpenHRP::SensorState &out);

// the reading of one sensor (getCharacterSensorValues)
OpenHRP::DblSequence *sensorValues(const hsSim *sim, int ch, int sensor);

//---------------------------------- pairs and kinematics --------------------------------------

// a LinkPair from character and link indices (link -1: "")
void linkPair(const hsSim *sim, OpenHRP::LinkPair &out, int ch0, int link0, int ch1, int link1,
              double tolerance);

// intersecting link pairs as LinkPairs (link names, the registered tolerance)
OpenHRP::LinkPairSequence *linkHits(const hsSim *sim, const hsdLinkHit *hits, int n);

// link pair distances as OpenHRP's DistanceSequence, with the CollisionDetector server's
// conventions: minD the distance (0 when the links overlap, both points then midway between the
// deepest points; -1 and zero points when a link has no geometry), point0 on the pair's first
// link, point1 on its second
OpenHRP::DistanceSequence *distances(const hsSim *sim, const hsdDistance *d, int n);

// the link pairs of character ch in contact after the last step
OpenHRP::LinkPairSequence *collidingPairs(const hsSim *sim, int ch);

// the Jacobian of target relative to base (calcCharacterJacobian) into out
int jacobian(const hsSim *sim, int ch, int base, int target, OpenHRP::DblSequence &out,
             hsError *err);

}  // namespace wire
}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_WIRE_H_
