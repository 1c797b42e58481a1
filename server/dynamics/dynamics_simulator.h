// dynamics_simulator.h - the DynamicsSimulator and DynamicsSimulatorFactory servants: OpenHRP
// 3.1's physics interface as a door to the simulation core (core/core.h).
//
// The servant only converts and calls: wire.h checks and converts what the wire brought, and
// the core looks names up, checks the call order and every value, and simulates; each
// operation holds the simulation's lock (SimLock) so its calls see one state. The scheduler
// hosts one of these over the simulation it steps itself, so controllers and the scheduler's
// loop share one simulation.
//
// Errors: unknown character, link or sensor names, wrong data lengths, non-finite numbers and
// bad values raise CORBA::BAD_PARAM; calls in the wrong order (stepSimulation before
// initSimulation, registerCharacter after it) raise CORBA::BAD_INV_ORDER; a step that had to
// stop a runaway character raises CORBA::BAD_OPERATION (the step was made); out of memory
// raises CORBA::NO_MEMORY. Each is logged as one line
// naming the operation and the problem, and the instance stays usable; the servant is also an
// hrpsim::Diagnostics (idl/Diagnostics.idl) whose lastError() returns that line.

#ifndef HRPSIM_SERVER_DYNAMICS_DYNAMICS_SIMULATOR_H_
#define HRPSIM_SERVER_DYNAMICS_DYNAMICS_SIMULATOR_H_

#include <memory>

#include "Diagnostics.hh"
#include "DynamicsSimulator.hh"
#include "runtime.h"
#include "sim.h"

namespace hrpsim {

class DynamicsSimulatorServant : public POA_hrpsim::DynamicsSimulator, public DiagnosticsServant {
 public:
  // a servant over its own, new simulation (an empty world; gravity (0, 0, 9.8) in OpenHRP's
  // convention; sensors off until init asks for them); throws CORBA::NO_MEMORY if it cannot be
  // made
  DynamicsSimulatorServant();
  // a servant over a simulation someone else holds too (the scheduler's)
  explicit DynamicsSimulatorServant(SimPtr sim);
  ~DynamicsSimulatorServant() override;

  // World
  void registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) override;

  // DynamicsSimulator, in the IDL's order
  void destroy() override;
  void init(CORBA::Double timeStep, OpenHRP::DynamicsSimulator::IntegrateMethod integrateOpt,
            OpenHRP::DynamicsSimulator::SensorOption sensorOpt) override;
  void registerCollisionCheckPair(const char *char1, const char *name1, const char *char2,
                                  const char *name2, CORBA::Double staticFriction,
                                  CORBA::Double slipFriction, const OpenHRP::DblSequence6 &K,
                                  const OpenHRP::DblSequence6 &C, CORBA::Double culling_thresh,
                                  CORBA::Double restitution) override;
  void registerIntersectionCheckPair(const char *char1, const char *name1, const char *char2,
                                     const char *name2, CORBA::Double tolerance) override;
  void registerExtraJoint(const char *char1, const char *link1, const char *char2,
                          const char *link2, const OpenHRP::DblSequence3 &link1LocalPos,
                          const OpenHRP::DblSequence3 &link2LocalPos,
                          OpenHRP::ExtraJointType jointType,
                          const OpenHRP::DblSequence3 &jointAxis,
                          const char *extraJointName) override;
  void getExtraJointConstraintForce(const char *characterName, const char *extraJointName,
                                    OpenHRP::DblSequence6_out contactForce) override;
  void getCharacterSensorValues(const char *characterName, const char *sensorName,
                                OpenHRP::DblSequence_out values) override;
  void initSimulation() override;
  void stepSimulation() override;
  void setCharacterLinkData(const char *character, const char *link,
                            OpenHRP::DynamicsSimulator::LinkDataType type,
                            const OpenHRP::DblSequence &data) override;
  void getCharacterLinkData(const char *characterName, const char *link,
                            OpenHRP::DynamicsSimulator::LinkDataType type,
                            OpenHRP::DblSequence_out rdata) override;
  void getCharacterAllLinkData(const char *characterName,
                               OpenHRP::DynamicsSimulator::LinkDataType type,
                               OpenHRP::DblSequence_out wdata) override;
  void setCharacterAllLinkData(const char *characterName,
                               OpenHRP::DynamicsSimulator::LinkDataType type,
                               const OpenHRP::DblSequence &wdata) override;
  void setGVector(const OpenHRP::DblSequence3 &wdata) override;
  void getGVector(OpenHRP::DblSequence3_out wdata) override;
  void setCharacterAllJointModes(const char *characterName,
                                 OpenHRP::DynamicsSimulator::JointDriveMode jointMode) override;

  // hrpsim::DynamicsSimulator's options (idl/Diagnostics.idl)
  void setWorldOptions(CORBA::Boolean jointLimits, CORBA::Boolean rotorInertia,
                       CORBA::Boolean sleep) override;
  void setSolver(const char *engine, const hrpsim::SolverSettings &settings) override;
  void setJointLimits(CORBA::Boolean position, CORBA::Boolean velocity,
                      CORBA::Boolean effort) override;
  CORBA::Boolean sleeping(const char *characterName) override;
  // hrpsim::DynamicsSimulator's saved states (core.h hs_saveState / hs_restoreState)
  hrpsim::StateBytes *saveState() override;
  void restoreState(const hrpsim::StateBytes &state) override;
  CORBA::Boolean calcCharacterInverseKinematics(const char *characterName, const char *baseLink,
                                                const char *targetLink,
                                                const OpenHRP::LinkPosition &target) override;
  void calcCharacterForwardKinematics(const char *characterName) override;
  void calcWorldForwardKinematics() override;
  CORBA::Boolean checkCollision(CORBA::Boolean checkAll) override;
  OpenHRP::LinkPairSequence *checkIntersection(CORBA::Boolean checkAll) override;
  OpenHRP::DistanceSequence *checkDistance() override;
  void getWorldState(OpenHRP::WorldState_out wstate) override;
  void getCharacterSensorState(const char *characterName,
                               OpenHRP::SensorState_out sstate) override;
  CORBA::Boolean getCharacterCollidingPairs(const char *characterName,
                                            OpenHRP::LinkPairSequence_out pairs) override;
  void calcCharacterJacobian(const char *characterName, const char *baseLink,
                             const char *targetLink,
                             OpenHRP::DblSequence_out jacobian) override;

  // hrpsim::DynamicsSimulator: commands, n steps and the states in one call (Diagnostics.idl)
  void stepWith(const hrpsim::JointCommandSequence &commands, CORBA::Long n,
                CORBA::Boolean withWorld, const OpenHRP::StringSequence &sensorsOf,
                OpenHRP::WorldState_out wstate, OpenHRP::SensorStateSequence_out sstates) override;

 private:
  // look-ups that raise the core's error (BAD_PARAM, with a log line naming op) when the name
  // is unknown
  int character(const char *op, const char *name) const;
  int link(const char *op, int ch, const char *name) const;

  SimPtr sim_;
};

class DynamicsSimulatorFactoryServant : public POA_OpenHRP::DynamicsSimulatorFactory {
 public:
  // a new, independent DynamicsSimulator (one world), activated in the runtime's POA
  OpenHRP::DynamicsSimulator_ptr create() override;
  // stop the server process
  void shutdown() override;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_DYNAMICS_DYNAMICS_SIMULATOR_H_
