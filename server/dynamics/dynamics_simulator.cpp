// dynamics_simulator.cpp - the DynamicsSimulator servant and its factory (dynamics_simulator.h).
//
// Each operation takes the core's lock, looks its names up, checks the call order, and hands
// the rest to wire.h (which checks and converts what crossed the wire) and the core; an hsError
// from either becomes the CORBA system exception matching its code, logged with the
// operation's name. Nothing here computes: the answers are built by wire.h from the core.

#include "dynamics_simulator.h"

#include <cstdio>
#include <new>
#include <string>

#include "format.h"
#include "runtime.h"
#include "wire.h"

namespace hrpsim {

using DS = OpenHRP::DynamicsSimulator;

//---------------------------------- helpers ---------------------------------------------------

namespace {

[[noreturn]] void badOrder(const char *op, const std::string &what) {
  logRequestError(op, what);
  throw CORBA::BAD_INV_ORDER(0, CORBA::COMPLETED_NO);
}

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

std::shared_ptr<SimCore> newCore() {
  try {
    return std::make_shared<SimCore>();
  } catch (const std::bad_alloc &) {
    hsError err = {};
    HS_ERR(&err, hsE_NOMEM, "out of memory for a new world");
    raiseSystemException("create", err);
  }
}

}  // namespace

//---------------------------------- lifecycle -------------------------------------------------

DynamicsSimulatorServant::DynamicsSimulatorServant() : core_(newCore()) {
  // OpenHRP's default gravity: 9.8 m/s^2 towards -z (the world's own default)
}

DynamicsSimulatorServant::DynamicsSimulatorServant(std::shared_ptr<SimCore> core)
    : core_(std::move(core)) {}

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
  int ch = core_->character(name, &err);
  check(ch, op, err);
  return ch;
}

int DynamicsSimulatorServant::link(const char *op, int ch, const char *name) const {
  hsError err = {};
  int l = core_->link(ch, name, &err);
  check(l, op, err);
  return l;
}

int DynamicsSimulatorServant::linkOrAll(const char *op, int ch, const char *name) const {
  hsError err = {};
  int l = -1;
  check(core_->linkOrAll(ch, name, &l, &err), op, err);
  return l;
}

void DynamicsSimulatorServant::requireRunning(const char *op) const {
  if (!core_->started()) {
    badOrder(op, "the simulation is not initialised: call initSimulation first");
  }
}

//---------------------------------- set-up ----------------------------------------------------

void DynamicsSimulatorServant::registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) {
  const char *op = "registerCharacter";
  {
    SimCore::Lock lock(*core_);
    if (core_->started()) {
      badOrder(op, format("'%s': characters must be registered before initSimulation", name));
    }
  }
  hsError err = {};
  check(wire::addCharacter(*core_, name, cinfo, &err), op, err);
}

void DynamicsSimulatorServant::init(CORBA::Double timeStep, DS::IntegrateMethod integrateOpt,
                                    DS::SensorOption sensorOpt) {
  const char *op = "init";
  SimCore::Lock lock(*core_);
  hsError err = {};
  bool sensors = false;
  check(wire::sensorOption(sensorOpt, &sensors, &err), op, err);
  check(wire::integrateMethod(integrateOpt, &err), op, err);
  check(core_->setTimeStep(timeStep, &err), op, err);
  core_->enableSensors(sensors);
}

void DynamicsSimulatorServant::registerCollisionCheckPair(
    const char *char1, const char *name1, const char *char2, const char *name2,
    CORBA::Double staticFriction, CORBA::Double slipFriction, const OpenHRP::DblSequence6 &,
    const OpenHRP::DblSequence6 &, CORBA::Double culling_thresh, CORBA::Double restitution) {
  // K and C (OpenHRP's spring-damper contact parameters) are accepted and ignored: contacts are
  // ODE's constraint contacts (README)
  const char *op = "registerCollisionCheckPair";
  SimCore::Lock lock(*core_);
  if (core_->started()) {
    badOrder(op, "collision pairs must be registered before initSimulation");
  }
  int ch1 = character(op, char1);
  int l1 = linkOrAll(op, ch1, name1);
  int ch2 = character(op, char2);
  int l2 = linkOrAll(op, ch2, name2);
  hsdSurface surface;
  surface.staticFriction = staticFriction;
  surface.slipFriction = slipFriction;
  surface.restitution = restitution;
  surface.cullingThresh = culling_thresh;
  hsError err = {};
  check(core_->addContactPair(ch1, l1, ch2, l2, surface, &err), op, err);
}

void DynamicsSimulatorServant::registerIntersectionCheckPair(const char *char1, const char *name1,
                                                             const char *char2, const char *name2,
                                                             CORBA::Double tolerance) {
  const char *op = "registerIntersectionCheckPair";
  SimCore::Lock lock(*core_);
  if (core_->started()) {
    badOrder(op, "intersection pairs must be registered before initSimulation");
  }
  int ch1 = character(op, char1);
  int l1 = linkOrAll(op, ch1, name1);
  int ch2 = character(op, char2);
  int l2 = linkOrAll(op, ch2, name2);
  hsError err = {};
  check(core_->addIntersectionPair(ch1, l1, ch2, l2, tolerance, &err), op, err);
}

void DynamicsSimulatorServant::registerExtraJoint(
    const char *char1, const char *link1, const char *char2, const char *link2,
    const OpenHRP::DblSequence3 &link1LocalPos, const OpenHRP::DblSequence3 &link2LocalPos,
    OpenHRP::ExtraJointType jointType, const OpenHRP::DblSequence3 &jointAxis,
    const char *extraJointName) {
  const char *op = "registerExtraJoint";
  SimCore::Lock lock(*core_);
  if (core_->started()) {
    badOrder(op, format("'%s': extra joints must be registered before initSimulation",
                        extraJointName));
  }
  int ch1 = character(op, char1);
  int l1 = link(op, ch1, link1);
  int ch2 = character(op, char2);
  int l2 = link(op, ch2, link2);
  hsError err = {};
  double p1[3], p2[3], axis[3];
  check(wire::vector3(link1LocalPos, "link1LocalPos", p1, &err), op, err);
  check(wire::vector3(link2LocalPos, "link2LocalPos", p2, &err), op, err);
  check(wire::vector3(jointAxis, "jointAxis", axis, &err), op, err);
  if (jointType != OpenHRP::EJ_XYZ && jointType != OpenHRP::EJ_XY && jointType != OpenHRP::EJ_Z) {
    HS_ERR(&err, hsE_INVALID, "'%s': unknown ExtraJointType %d", extraJointName,
           static_cast<int>(jointType));
    fail(op, std::string(), err);
  }
  check(hsd_addExtraJoint(core_->world(), extraJointName, ch1, l1, ch2, l2, p1, p2,
                          static_cast<hstExtraJoint>(jointType), axis, &err),
        op, err);
}

void DynamicsSimulatorServant::getExtraJointConstraintForce(const char *characterName,
                                                            const char *name,
                                                            OpenHRP::DblSequence6_out contactForce) {
  const char *op = "getExtraJointConstraintForce";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  int i = hsd_extraJointIndex(core_->world(), ch, name);
  if (i < 0) {
    std::string known;
    for (int k = 0; k < hsd_extraJointCount(core_->world()); k++) {
      int chs[2];
      const char *n = hsd_extraJointName(core_->world(), k, chs, nullptr);
      if (chs[0] == ch || chs[1] == ch) {
        known += std::string(known.empty() ? "" : ", ") + "'" + n + "'";
      }
    }
    hsError err = {};
    HS_ERR(&err, hsE_INVALID, "character '%s' has no extra joint named '%s' (it has %s)",
           characterName, name, known.empty() ? "none" : known.c_str());
    fail(op, std::string(), err);
  }
  // force and moment on link2 about its attachment point, world frame (README)
  double f[6];
  hsd_extraJointForce(core_->world(), i, f);
  OpenHRP::DblSequence6_var out = new OpenHRP::DblSequence6;
  out->length(6);
  for (CORBA::ULong k = 0; k < 6; k++) {
    out[k] = f[k];
  }
  contactForce = out._retn();
}

void DynamicsSimulatorServant::initSimulation() {
  SimCore::Lock lock(*core_);
  hsError err = {};
  check(core_->start(&err), "initSimulation", err);
}

void DynamicsSimulatorServant::stepSimulation() {
  const char *op = "stepSimulation";
  SimCore::Lock lock(*core_);
  requireRunning(op);
  hsError err = {};
  if (core_->step(&err) == hsE_RUNAWAY) {
    // the step was made; the minor code names the character (index + 1, registration order)
    logRequestError(op, describe(err));
    throw CORBA::BAD_OPERATION(static_cast<CORBA::ULong>(hsd_runaway(core_->world()) + 1),
                               CORBA::COMPLETED_YES);
  }
  check(err.code, op, err);
}

void DynamicsSimulatorServant::setGVector(const OpenHRP::DblSequence3 &wdata) {
  const char *op = "setGVector";
  SimCore::Lock lock(*core_);
  hsError err = {};
  double g[3];
  check(wire::gravityFromWire(wdata, g, &err), op, err);
  check(core_->setGravity(g, &err), op, err);
}

void DynamicsSimulatorServant::getGVector(OpenHRP::DblSequence3_out wdata) {
  SimCore::Lock lock(*core_);
  double g[3];
  hsd_gravity(core_->world(), g);
  wdata = new OpenHRP::DblSequence3;
  wire::gravityToWire(g, *wdata);
}

void DynamicsSimulatorServant::setCharacterAllJointModes(const char *characterName,
                                                         DS::JointDriveMode jointMode) {
  const char *op = "setCharacterAllJointModes";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  hsError err = {};
  hstJointMode mode;
  check(wire::jointMode(jointMode, &mode, &err), op, err);
  check(hsd_setAllJointModes(core_->world(), ch, mode, &err), op, err,
        format("'%s'", characterName));
}

//---------------------------------- link data -------------------------------------------------

void DynamicsSimulatorServant::setCharacterLinkData(const char *character, const char *linkName,
                                                    DS::LinkDataType type,
                                                    const OpenHRP::DblSequence &data) {
  const char *op = "setCharacterLinkData";
  SimCore::Lock lock(*core_);
  int ch = this->character(op, character);
  int l = link(op, ch, linkName);
  hsError err = {};
  check(wire::setLinkData(*core_, ch, l, type, data, &err), op, err);
}

void DynamicsSimulatorServant::getCharacterLinkData(const char *characterName,
                                                    const char *linkName, DS::LinkDataType type,
                                                    OpenHRP::DblSequence_out rdata) {
  const char *op = "getCharacterLinkData";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  int l = link(op, ch, linkName);
  hsError err = {};
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  check(wire::getLinkData(*core_, ch, l, type, out.inout(), &err), op, err);
  rdata = out._retn();
}

void DynamicsSimulatorServant::getCharacterAllLinkData(const char *characterName,
                                                       DS::LinkDataType type,
                                                       OpenHRP::DblSequence_out wdata) {
  const char *op = "getCharacterAllLinkData";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  hsError err = {};
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  check(wire::getAllLinkData(*core_, ch, type, out.inout(), &err), op, err);
  wdata = out._retn();
}

void DynamicsSimulatorServant::setCharacterAllLinkData(const char *characterName,
                                                       DS::LinkDataType type,
                                                       const OpenHRP::DblSequence &wdata) {
  const char *op = "setCharacterAllLinkData";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  hsError err = {};
  check(wire::setAllLinkData(*core_, ch, type, wdata, &err), op, err);
}

//---------------------------------- kinematics ------------------------------------------------

CORBA::Boolean DynamicsSimulatorServant::calcCharacterInverseKinematics(
    const char *characterName, const char *baseLink, const char *targetLink,
    const OpenHRP::LinkPosition &target) {
  const char *op = "calcCharacterInverseKinematics";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  int base = link(op, ch, baseLink);
  int tip = link(op, ch, targetLink);
  hsError err = {};
  int rc = hsd_inverseKinematics(core_->world(), ch, base, tip, target.p, target.R, &err);
  check(rc, op, err, format("'%s' %s -> %s", characterName, baseLink, targetLink));
  return rc > 0;
}

void DynamicsSimulatorServant::calcCharacterForwardKinematics(const char *characterName) {
  SimCore::Lock lock(*core_);
  hsd_forwardKinematics(core_->world(), character("calcCharacterForwardKinematics",
                                                  characterName));
}

void DynamicsSimulatorServant::calcWorldForwardKinematics() {
  SimCore::Lock lock(*core_);
  hsd_forwardKinematics(core_->world(), -1);
}

void DynamicsSimulatorServant::calcCharacterJacobian(const char *characterName,
                                                     const char *baseLink,
                                                     const char *targetLink,
                                                     OpenHRP::DblSequence_out jacobian) {
  const char *op = "calcCharacterJacobian";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  int base = link(op, ch, baseLink);
  int tip = link(op, ch, targetLink);
  hsError err = {};
  OpenHRP::DblSequence_var J = new OpenHRP::DblSequence;
  check(wire::jacobian(*core_, ch, base, tip, J.inout(), &err), op, err,
        format("'%s' %s -> %s", characterName, baseLink, targetLink));
  jacobian = J._retn();
}

//---------------------------------- collisions ------------------------------------------------

CORBA::Boolean DynamicsSimulatorServant::checkCollision(CORBA::Boolean checkAll) {
  const char *op = "checkCollision";
  SimCore::Lock lock(*core_);
  requireRunning(op);  // the collision geometry is built by initSimulation
  hsError err = {};
  check(core_->checkIntersections(checkAll, hits_, &err), op, err);
  return !hits_.empty();
}

OpenHRP::LinkPairSequence *DynamicsSimulatorServant::checkIntersection(CORBA::Boolean checkAll) {
  const char *op = "checkIntersection";
  SimCore::Lock lock(*core_);
  requireRunning(op);
  hsError err = {};
  check(core_->intersectingLinks(checkAll, linkHits_, &err), op, err);
  return wire::linkHits(*core_, linkHits_);
}

OpenHRP::DistanceSequence *DynamicsSimulatorServant::checkDistance() {
  const char *op = "checkDistance";
  SimCore::Lock lock(*core_);
  requireRunning(op);
  hsError err = {};
  check(core_->checkDistances(dists_, &err), op, err);
  return wire::distances(*core_, dists_);
}

CORBA::Boolean DynamicsSimulatorServant::getCharacterCollidingPairs(
    const char *characterName, OpenHRP::LinkPairSequence_out pairs) {
  SimCore::Lock lock(*core_);
  int ch = character("getCharacterCollidingPairs", characterName);
  pairs = wire::collidingPairs(*core_, ch);
  return pairs->length() > 0;
}

//---------------------------------- state -----------------------------------------------------

void DynamicsSimulatorServant::getWorldState(OpenHRP::WorldState_out wstate) {
  SimCore::Lock lock(*core_);
  wstate = wire::worldState(*core_);
}

void DynamicsSimulatorServant::getCharacterSensorState(const char *characterName,
                                                       OpenHRP::SensorState_out sstate) {
  SimCore::Lock lock(*core_);
  sstate = wire::sensorState(*core_, character("getCharacterSensorState", characterName));
}

void DynamicsSimulatorServant::getCharacterSensorValues(const char *characterName,
                                                        const char *sensorName,
                                                        OpenHRP::DblSequence_out values) {
  const char *op = "getCharacterSensorValues";
  SimCore::Lock lock(*core_);
  int ch = character(op, characterName);
  hsError err = {};
  int s = core_->sensor(ch, sensorName, &err);
  check(s, op, err);
  values = wire::sensorValues(*core_, ch, s);
}

}  // namespace hrpsim
