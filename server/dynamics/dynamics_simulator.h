// dynamics_simulator.h - the DynamicsSimulator and DynamicsSimulatorFactory servants: OpenHRP
// 3.1's physics interface on top of the C world of dynamics/ (one hsdWorld per instance).
//
// The servants only validate, convert and call: every number that reaches the C world has been
// checked (names, lengths, finiteness, call order), and every answer is built from the world's
// state in one pass into sequences allocated at their final size. Calls on one instance are
// serialised by its own mutex; every call into hsd_* additionally holds odeMutex(), one lock
// for the whole process, because Debian's ODE collision is not thread-safe and omniORB serves
// requests from a pool of threads (DESIGN.md). Lock order: instance, then ODE.
//
// Errors: unknown character, link or sensor names, wrong data lengths, non-finite numbers and
// bad values raise CORBA::BAD_PARAM; calls in the wrong order (stepSimulation before
// initSimulation, registerCharacter after it) raise CORBA::BAD_INV_ORDER; features of later
// issues (extra joints, distance queries) raise CORBA::NO_IMPLEMENT. Each is logged as one line
// naming the operation and the problem, and the instance stays usable.

#ifndef HRPSIM_SERVER_DYNAMICS_DYNAMICS_SIMULATOR_H_
#define HRPSIM_SERVER_DYNAMICS_DYNAMICS_SIMULATOR_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "DynamicsSimulator.hh"
#include "body_info.h"
#include "dynamics.h"

namespace hrpsim {

// the process-wide lock held around every call into hsd_* (see the file comment)
std::mutex &odeMutex();

class DynamicsSimulatorServant : public POA_OpenHRP::DynamicsSimulator {
 public:
  // an empty world (time step 1 ms, gravity (0, 0, 9.8) in OpenHRP's convention, sensors off
  // until init asks for them); throws CORBA::NO_MEMORY if the world cannot be made
  DynamicsSimulatorServant();
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

 private:
  // one registered character: the body it was made from (kept alive as long as the world) and
  // what the servant precomputes for it
  struct Character {
    std::string name;
    BodyPtr body;
    std::vector<int> sensors[hsSENSOR_NTYPES];  // body->sensors indices in sensorId order
    std::unique_ptr<hsBodyState, void (*)(hsBodyState *)> scratch{nullptr, hsm_freeState};
    std::vector<double> ikWork;      // hsm_inverseKinematics workspace
  };

  // the names a registered pair was given (for LinkPair answers)
  struct PairNames {
    int ch[2];
    int link[2];  // -1: every link of that character
    double tolerance;
  };

  // look-ups that raise BAD_PARAM (with a log line naming op) when the name is unknown
  int character(const char *op, const char *name) const;
  int link(const char *op, int ch, const char *name) const;
  // the same for a link name that may be empty (every link: -1)
  int linkOrAll(const char *op, int ch, const char *name) const;

  // raise BAD_INV_ORDER unless initSimulation has run
  void requireRunning(const char *op) const;

  // per-link data (lock held)
  void setLinkData(const char *op, int ch, int link, OpenHRP::DynamicsSimulator::LinkDataType type,
                   const double *v);
  void getLinkData(int ch, int link, OpenHRP::DynamicsSimulator::LinkDataType type,
                   double *out) const;

  // fill a LinkPair from character and link indices (link -1: "")
  void fillLinkPair(OpenHRP::LinkPair &out, int ch0, int link0, int ch1, int link1,
                    double tolerance) const;

  // group the n contacts c (the last step's) by (pair, link, link) in order of first
  // appearance: fills groupOf_, groupFirst_, groupCount_ and returns the number of groups
  int groupContacts(const hsdContact *c, int n);

  std::mutex mutex_;
  hsdWorld *world_ = nullptr;
  std::vector<Character> chars_;  // index = character index in the world
  std::vector<PairNames> contactPairs_;
  std::vector<PairNames> intersectionPairs_;
  double gvector_[3] = {0.0, 0.0, 9.8};  // as the client set it (OpenHRP's convention)
  bool sensorsEnabled_ = false;
  bool running_ = false;  // initSimulation has run
  // scratch of the answers, reused so a step's reads do not allocate beyond their results
  std::vector<int> groupOf_, groupFirst_, groupCount_, groupFill_, hits_;
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
