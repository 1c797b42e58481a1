// dynamics_simulator.cpp - the DynamicsSimulator servant and its factory (dynamics_simulator.h).
//
// Each operation takes the simulation's lock and hands the request to wire.h (which checks and
// converts what crossed the wire) and the core (which looks names up, checks the call order and
// every value); an hsError from either becomes the CORBA system exception matching its code
// (hsE_ORDER: BAD_INV_ORDER), logged with the operation's name. Nothing here computes: the
// answers are built by wire.h from the core.

#include "dynamics_simulator.h"

#include <cmath>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "format.h"
#include "runtime.h"
#include "setup.h"
#include "wire.h"

namespace hrpsim {

using DS = OpenHRP::DynamicsSimulator;

//---------------------------------- helpers ---------------------------------------------------

namespace {

// raise for an hsError, its message prefixed with what the request was about
[[noreturn]] void fail(const char *op, const std::string &about, hsError &err) {
  if (!about.empty()) {
    std::string msg = about + ": " + err.message;
    std::snprintf(err.message, sizeof err.message, "%s", msg.c_str());
  }
  raiseSystemException(op, err);
}

// raise unless rc is a success
void check(int rc, const char *op, hsError &err, const std::string &about = std::string()) {
  if (rc < 0) {
    fail(op, about, err);
  }
}

SimPtr newSim() {
  try {
    return makeSim();
  } catch (const std::bad_alloc &) {
    hsError err = {};
    HS_ERR(&err, hsE_NOMEM, "out of memory for a new world");
    raiseSystemException("create", err);
  }
}

}  // namespace

//---------------------------------- lifecycle -------------------------------------------------

DynamicsSimulatorServant::DynamicsSimulatorServant() : sim_(newSim()) {
  // OpenHRP's default gravity: 9.8 m/s^2 towards -z (the world's own default)
}

DynamicsSimulatorServant::DynamicsSimulatorServant(SimPtr sim) : sim_(std::move(sim)) {}

DynamicsSimulatorServant::~DynamicsSimulatorServant() = default;

void DynamicsSimulatorServant::destroy() {
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  PortableServer::ObjectId_var oid = poa->servant_to_id(this);
  // the POA deletes the servant (and with it the world) once the calls in progress return
  poa->deactivate_object(oid);
}

OpenHRP::DynamicsSimulator_ptr DynamicsSimulatorFactoryServant::create() {
  DynamicsSimulatorServant *sim = new DynamicsSimulatorServant;
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  PortableServer::ObjectId_var oid = poa->activate_object(sim);
  sim->_remove_ref();  // the POA holds it now
  CORBA::Object_var obj = poa->id_to_reference(oid);
  return OpenHRP::DynamicsSimulator::_narrow(obj);
}

void DynamicsSimulatorFactoryServant::shutdown() {
  hsu_log(hsLOG_INFO, "shutdown requested by a client");
  Runtime::instance()->requestShutdown();
}

//---------------------------------- look-ups --------------------------------------------------

int DynamicsSimulatorServant::character(const char *op, const char *name) const {
  hsError err = {};
  int ch = hs_character(sim_.get(), name, &err);
  check(ch, op, err);
  return ch;
}

int DynamicsSimulatorServant::link(const char *op, int ch, const char *name) const {
  hsError err = {};
  int l = hs_link(sim_.get(), ch, name, &err);
  check(l, op, err);
  return l;
}

//---------------------------------- set-up ----------------------------------------------------

void DynamicsSimulatorServant::registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) {
  hsError err = {};
  check(wire::addCharacter(sim_.get(), name, cinfo, &err), "registerCharacter", err);
}

void DynamicsSimulatorServant::init(CORBA::Double timeStep, DS::IntegrateMethod integrateOpt,
                                    DS::SensorOption sensorOpt) {
  const char *op = "init";
  SimLock lock(sim_);
  hsError err = {};
  bool sensors = false;
  check(wire::sensorOption(sensorOpt, &sensors, &err), op, err);
  check(wire::integrateMethod(sim_.get(), integrateOpt, &err), op, err);
  check(hs_setTimeStep(sim_.get(), timeStep, &err), op, err);
  hs_enableSensors(sim_.get(), sensors ? 1 : 0);
}

void DynamicsSimulatorServant::registerCollisionCheckPair(
    const char *char1, const char *name1, const char *char2, const char *name2,
    CORBA::Double staticFriction, CORBA::Double slipFriction, const OpenHRP::DblSequence6 &,
    const OpenHRP::DblSequence6 &, CORBA::Double culling_thresh, CORBA::Double restitution) {
  // K and C (OpenHRP's spring-damper contact parameters) are accepted and ignored: contacts are
  // ODE's constraint contacts (docs/servers.md)
  hsError err = {};
  check(setup::contactPair(sim_.get(), char1, name1, char2, name2, staticFriction, slipFriction,
                           culling_thresh, restitution, &err),
        "registerCollisionCheckPair", err);
}

void DynamicsSimulatorServant::registerIntersectionCheckPair(const char *char1, const char *name1,
                                                             const char *char2, const char *name2,
                                                             CORBA::Double tolerance) {
  hsError err = {};
  check(hs_addIntersectionPair(sim_.get(), char1, name1, char2, name2, tolerance, &err),
        "registerIntersectionCheckPair", err);
}

void DynamicsSimulatorServant::registerExtraJoint(
    const char *char1, const char *link1, const char *char2, const char *link2,
    const OpenHRP::DblSequence3 &link1LocalPos, const OpenHRP::DblSequence3 &link2LocalPos,
    OpenHRP::ExtraJointType jointType, const OpenHRP::DblSequence3 &jointAxis,
    const char *extraJointName) {
  hsError err = {};
  check(setup::extraJoint(sim_.get(), extraJointName, char1, link1, char2, link2, link1LocalPos,
                          link2LocalPos, jointType, jointAxis, &err),
        "registerExtraJoint", err);
}

void DynamicsSimulatorServant::getExtraJointConstraintForce(
    const char *characterName, const char *name, OpenHRP::DblSequence6_out contactForce) {
  const char *op = "getExtraJointConstraintForce";
  SimLock lock(sim_);
  int ch = character(op, characterName);
  hsError err = {};
  int i = hs_extraJoint(sim_.get(), ch, name, &err);
  check(i, op, err);
  // force and moment on link2 about its attachment point, world frame (docs/servers.md)
  double f[6];
  hs_extraJointForce(sim_.get(), i, f);
  OpenHRP::DblSequence6_var out = new OpenHRP::DblSequence6;
  out->length(6);
  for (CORBA::ULong k = 0; k < 6; k++) {
    out[k] = f[k];
  }
  contactForce = out._retn();
}

void DynamicsSimulatorServant::initSimulation() {
  hsError err = {};
  check(hs_start(sim_.get(), &err), "initSimulation", err);
}

void DynamicsSimulatorServant::stepSimulation() {
  const char *op = "stepSimulation";
  SimLock lock(sim_);
  hsError err = {};
  if (hs_step(sim_.get(), &err) == hsE_RUNAWAY) {
    // the step was made; the minor code names the character (index + 1, registration order)
    logRequestError(op, describe(err));
    throw CORBA::BAD_OPERATION(static_cast<CORBA::ULong>(hs_runaway(sim_.get()) + 1),
                               CORBA::COMPLETED_YES);
  }
  check(err.code, op, err);
}

void DynamicsSimulatorServant::setGVector(const OpenHRP::DblSequence3 &wdata) {
  hsError err = {};
  check(setup::gravity(sim_.get(), wdata, &err), "setGVector", err);
}

void DynamicsSimulatorServant::setWorldOptions(CORBA::Boolean jointLimits,
                                               CORBA::Boolean rotorInertia, CORBA::Boolean sleep) {
  hsError err = {};
  check(setup::jointOptions(sim_.get(), jointLimits, rotorInertia, sleep, &err),
        "setWorldOptions", err);
}

void DynamicsSimulatorServant::setSolver(const char *engine,
                                         const hrpsim::SolverSettings &settings) {
  const char *op = "setSolver";
  hsError err = {};
  check(wire::setSolverFromWire(sim_.get(), engine, settings, &err), op, err);
}

void DynamicsSimulatorServant::setJointLimits(CORBA::Boolean position, CORBA::Boolean velocity,
                                              CORBA::Boolean effort) {
  hsError err = {};
  check(setup::jointLimits(sim_.get(), position, velocity, effort, &err), "setJointLimits", err);
}

CORBA::Boolean DynamicsSimulatorServant::sleeping(const char *characterName) {
  const char *op = "sleeping";
  hsError err = {};
  int ch = hs_character(sim_.get(), characterName, &err);
  check(ch, op, err);
  return hs_sleeping(sim_.get(), ch) != 0;
}

hrpsim::StateBytes *DynamicsSimulatorServant::saveState() {
  const char *op = "saveState";
  hsError err = {};
  // the length, then the bytes (the simulation's lock keeps them one state between the calls)
  hs_lock(sim_.get());
  long long n = hs_saveState(sim_.get(), nullptr, 0, &err);
  hrpsim::StateBytes_var out = new hrpsim::StateBytes;
  if (n > 0) {
    out->length(static_cast<CORBA::ULong>(n));
    n = hs_saveState(sim_.get(), out->get_buffer(), n, &err);
  }
  hs_unlock(sim_.get());
  check(n < 0 ? static_cast<int>(n) : 0, op, err);
  return out._retn();
}

void DynamicsSimulatorServant::restoreState(const hrpsim::StateBytes &state) {
  const char *op = "restoreState";
  hsError err = {};
  check(hs_restoreState(sim_.get(), state.get_buffer(), state.length(), &err), op, err);
}

void DynamicsSimulatorServant::getGVector(OpenHRP::DblSequence3_out wdata) {
  double g[3];
  hs_gravity(sim_.get(), g);
  wdata = new OpenHRP::DblSequence3;
  wire::gravityToWire(g, *wdata);
}

void DynamicsSimulatorServant::setCharacterAllJointModes(const char *characterName,
                                                         DS::JointDriveMode jointMode) {
  hsError err = {};
  check(setup::allJointModes(sim_.get(), characterName, jointMode, &err),
        "setCharacterAllJointModes", err);
}

//---------------------------------- link data -------------------------------------------------

void DynamicsSimulatorServant::setCharacterLinkData(const char *character, const char *linkName,
                                                    DS::LinkDataType type,
                                                    const OpenHRP::DblSequence &data) {
  hsError err = {};
  check(setup::linkData(sim_.get(), character, linkName, type, data, &err),
        "setCharacterLinkData", err);
}

void DynamicsSimulatorServant::getCharacterLinkData(const char *characterName,
                                                    const char *linkName, DS::LinkDataType type,
                                                    OpenHRP::DblSequence_out rdata) {
  const char *op = "getCharacterLinkData";
  SimLock lock(sim_);
  int ch = character(op, characterName);
  int l = link(op, ch, linkName);
  hsError err = {};
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  check(wire::getLinkData(sim_.get(), ch, l, type, out.inout(), &err), op, err);
  rdata = out._retn();
}

void DynamicsSimulatorServant::getCharacterAllLinkData(const char *characterName,
                                                       DS::LinkDataType type,
                                                       OpenHRP::DblSequence_out wdata) {
  const char *op = "getCharacterAllLinkData";
  SimLock lock(sim_);
  int ch = character(op, characterName);
  hsError err = {};
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  check(wire::getAllLinkData(sim_.get(), ch, type, out.inout(), &err), op, err);
  wdata = out._retn();
}

void DynamicsSimulatorServant::setCharacterAllLinkData(const char *characterName,
                                                       DS::LinkDataType type,
                                                       const OpenHRP::DblSequence &wdata) {
  const char *op = "setCharacterAllLinkData";
  SimLock lock(sim_);
  int ch = character(op, characterName);
  hsError err = {};
  check(wire::setAllLinkData(sim_.get(), ch, type, wdata, &err), op, err);
}

//---------------------------------- kinematics ------------------------------------------------

CORBA::Boolean DynamicsSimulatorServant::calcCharacterInverseKinematics(
    const char *characterName, const char *baseLink, const char *targetLink,
    const OpenHRP::LinkPosition &target) {
  const char *op = "calcCharacterInverseKinematics";
  SimLock lock(sim_);
  int ch = character(op, characterName);
  int base = link(op, ch, baseLink);
  int tip = link(op, ch, targetLink);
  hsError err = {};
  int rc = hs_inverseKinematics(sim_.get(), ch, base, tip, target.p, target.R, &err);
  check(rc, op, err, format("'%s' %s -> %s", characterName, baseLink, targetLink));
  return rc > 0;
}

void DynamicsSimulatorServant::calcCharacterForwardKinematics(const char *characterName) {
  SimLock lock(sim_);
  hs_forwardKinematics(sim_.get(), character("calcCharacterForwardKinematics", characterName));
}

void DynamicsSimulatorServant::calcWorldForwardKinematics() {
  SimLock lock(sim_);
  hs_forwardKinematics(sim_.get(), -1);
}

void DynamicsSimulatorServant::calcCharacterJacobian(const char *characterName,
                                                     const char *baseLink,
                                                     const char *targetLink,
                                                     OpenHRP::DblSequence_out jacobian) {
  const char *op = "calcCharacterJacobian";
  SimLock lock(sim_);
  int ch = character(op, characterName);
  int base = link(op, ch, baseLink);
  int tip = link(op, ch, targetLink);
  hsError err = {};
  OpenHRP::DblSequence_var J = new OpenHRP::DblSequence;
  check(wire::jacobian(sim_.get(), ch, base, tip, J.inout(), &err), op, err,
        format("'%s' %s -> %s", characterName, baseLink, targetLink));
  jacobian = J._retn();
}

//---------------------------------- collisions ------------------------------------------------

CORBA::Boolean DynamicsSimulatorServant::checkCollision(CORBA::Boolean checkAll) {
  SimLock lock(sim_);
  hsError err = {};
  int n = 0;
  // the collision geometry is built by initSimulation: hsE_ORDER (BAD_INV_ORDER) before it
  if (!hs_checkIntersections(sim_.get(), checkAll, &n, &err)) {
    check(hsE_INVALID, "checkCollision", err);
  }
  return n > 0;
}

OpenHRP::LinkPairSequence *DynamicsSimulatorServant::checkIntersection(CORBA::Boolean checkAll) {
  SimLock lock(sim_);
  hsError err = {};
  int n = 0;
  const hsdLinkHit *hits = hs_intersectingLinks(sim_.get(), checkAll, &n, &err);
  if (!hits) {
    check(hsE_INVALID, "checkIntersection", err);
  }
  return wire::linkHits(sim_.get(), hits, n);
}

OpenHRP::DistanceSequence *DynamicsSimulatorServant::checkDistance() {
  SimLock lock(sim_);
  hsError err = {};
  int n = 0;
  const hsdDistance *d = hs_distances(sim_.get(), &n, &err);
  if (!d) {
    check(hsE_INVALID, "checkDistance", err);
  }
  return wire::distances(sim_.get(), d, n);
}

CORBA::Boolean DynamicsSimulatorServant::getCharacterCollidingPairs(
    const char *characterName, OpenHRP::LinkPairSequence_out pairs) {
  SimLock lock(sim_);
  int ch = character("getCharacterCollidingPairs", characterName);
  pairs = wire::collidingPairs(sim_.get(), ch);
  return pairs->length() > 0;
}

//---------------------------------- state -----------------------------------------------------

void DynamicsSimulatorServant::getWorldState(OpenHRP::WorldState_out wstate) {
  SimLock lock(sim_);
  wstate = wire::worldState(sim_.get());
}

void DynamicsSimulatorServant::getCharacterSensorState(const char *characterName,
                                                       OpenHRP::SensorState_out sstate) {
  SimLock lock(sim_);
  sstate = wire::sensorState(sim_.get(), character("getCharacterSensorState", characterName));
}

void DynamicsSimulatorServant::getCharacterSensorValues(const char *characterName,
                                                        const char *sensorName,
                                                        OpenHRP::DblSequence_out values) {
  const char *op = "getCharacterSensorValues";
  SimLock lock(sim_);
  int ch = character(op, characterName);
  hsError err = {};
  int s = hs_sensor(sim_.get(), ch, sensorName, &err);
  check(s, op, err);
  values = wire::sensorValues(sim_.get(), ch, s);
}

//---------------------------------- one call per step ----------------------------------------

void DynamicsSimulatorServant::stepWith(const hrpsim::JointCommandSequence &commands,
                                        CORBA::Long n, CORBA::Boolean withWorld,
                                        const OpenHRP::StringSequence &sensorsOf,
                                        OpenHRP::WorldState_out wstate,
                                        OpenHRP::SensorStateSequence_out sstates) {
  const char *op = "stepWith";
  SimLock lock(sim_);
  hsError err = {};
  if (n < 0) {
    HS_ERR(&err, hsE_INVALID, "n = %d steps: it must be >= 0", static_cast<int>(n));
    fail(op, std::string(), err);
  }
  // every command checked before any is written (the core checks one character's at a time)
  std::vector<int> chars(commands.length());
  for (CORBA::ULong i = 0; i < commands.length(); i++) {
    const hrpsim::JointCommand &c = commands[i];
    chars[i] = character(op, c.character);
    if (c.values.length() == 0) {
      continue;
    }
    if (c.type != DS::JOINT_VALUE && c.type != DS::JOINT_TORQUE) {
      HS_ERR(&err, hsE_INVALID, "command %u ('%s'): type %d: JOINT_VALUE or JOINT_TORQUE",
             static_cast<unsigned>(i), c.character.in(), static_cast<int>(c.type));
      fail(op, std::string(), err);
    }
    // the core's own check of setCharacterAllLinkData (count, finite, within +-1e12)
    if (hs_checkAllLinkData(sim_.get(), chars[i], static_cast<int>(c.type),
                            c.values.get_buffer(), static_cast<int>(c.values.length()),
                            &err) < 0) {
      fail(op, format("command %u", static_cast<unsigned>(i)), err);
    }
  }
  std::vector<int> readers(sensorsOf.length());
  for (CORBA::ULong i = 0; i < sensorsOf.length(); i++) {
    readers[i] = character(op, sensorsOf[i]);
  }
  for (CORBA::ULong i = 0; i < commands.length(); i++) {
    const hrpsim::JointCommand &c = commands[i];
    if (c.values.length() > 0 &&
        wire::setAllLinkData(sim_.get(), chars[i], c.type, c.values, &err) < 0) {
      fail(op, format("'%s'", c.character.in()), err);  // the text made only on failure
    }
  }
  if (n > 0 && hs_stepN(sim_.get(), n, &err) < 0) {
    if (err.code == hsE_RUNAWAY) {
      // as stepSimulation: the steps were made; the minor code names the character
      logRequestError(op, describe(err));
      throw CORBA::BAD_OPERATION(static_cast<CORBA::ULong>(hs_runaway(sim_.get()) + 1),
                                 CORBA::COMPLETED_YES);
    }
    check(err.code, op, err);
  }
  OpenHRP::SensorStateSequence_var out = new OpenHRP::SensorStateSequence;
  out->length(sensorsOf.length());
  for (CORBA::ULong i = 0; i < sensorsOf.length(); i++) {
    wire::sensorStateInto(sim_.get(), readers[i], out[i]);
  }
  if (withWorld) {
    wstate = wire::worldState(sim_.get());
  } else {
    wstate = new OpenHRP::WorldState;
    wstate->time = hs_time(sim_.get());
  }
  sstates = out._retn();
}

}  // namespace hrpsim
