// dynamics_simulator.cpp - the DynamicsSimulator servant and its factory (dynamics_simulator.h).
//
// Each operation takes the instance lock, checks its arguments (names, lengths, finite numbers,
// call order) and only then takes the process-wide ODE lock and calls the C world, so nothing a
// request can send reaches ODE unchecked. The servant keeps, beside the world: the bodies (the
// world borrows them), per character the sensor indices in sensorId order and the external
// forces pending for the next step (so EXTERNAL_FORCE reads back what was set, and zeros after
// the step that applied it), and the registered pairs by name for LinkPair answers.
//
// Answers are built in one pass into sequences sized up front: getWorldState copies every link
// pose and groups the last step's contacts by link pair (normals turned to OpenHRP's direction,
// from the first link into the second); getCharacterSensorState copies q, dq, u in jointId
// order and the readings of each sensor type in sensorId order.

#include "dynamics_simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "runtime.h"

namespace hrpsim {

using DS = OpenHRP::DynamicsSimulator;

std::mutex &odeMutex() {
  static std::mutex m;
  return m;
}

//---------------------------------- helpers ---------------------------------------------------

namespace {

// both locks of a request, in the one allowed order: instance, then ODE
class WorldLock {
 public:
  explicit WorldLock(std::mutex &instance) : instance_(instance), ode_(odeMutex()) {}

 private:
  std::lock_guard<std::mutex> instance_;
  std::lock_guard<std::mutex> ode_;
};

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

[[noreturn]] void badParam(const char *op, const std::string &what) {
  logRequestError(op, what);
  throw CORBA::BAD_PARAM(0, CORBA::COMPLETED_NO);
}

[[noreturn]] void badOrder(const char *op, const std::string &what) {
  logRequestError(op, what);
  throw CORBA::BAD_INV_ORDER(0, CORBA::COMPLETED_NO);
}

[[noreturn]] void notImplemented(const char *op, const std::string &what) {
  logRequestError(op, what);
  throw CORBA::NO_IMPLEMENT(0, CORBA::COMPLETED_NO);
}

// raise for an hsError, its message prefixed with what the request was about
[[noreturn]] void fail(const char *op, const std::string &about, hsError &err) {
  if (!about.empty()) {
    std::string msg = about + ": " + err.message;
    std::snprintf(err.message, sizeof err.message, "%s", msg.c_str());
  }
  raiseSystemException(op, err);
}

const char *typeName(DS::LinkDataType type) {
  switch (type) {
    case DS::POSITION_GIVEN: return "POSITION_GIVEN";
    case DS::JOINT_VALUE: return "JOINT_VALUE";
    case DS::JOINT_VELOCITY: return "JOINT_VELOCITY";
    case DS::JOINT_ACCELERATION: return "JOINT_ACCELERATION";
    case DS::JOINT_TORQUE: return "JOINT_TORQUE";
    case DS::ABS_TRANSFORM: return "ABS_TRANSFORM";
    case DS::ABS_VELOCITY: return "ABS_VELOCITY";
    case DS::ABS_ACCELERATION: return "ABS_ACCELERATION";
    case DS::EXTERNAL_FORCE: return "EXTERNAL_FORCE";
    case DS::CONSTRAINT_FORCE: return "CONSTRAINT_FORCE";
    default: return "INVALID_DATA_TYPE";
  }
}

// numbers per link of a fixed-size datum; 0 for CONSTRAINT_FORCE (variable) and invalid types
int dataSize(DS::LinkDataType type) {
  switch (type) {
    case DS::POSITION_GIVEN:
    case DS::JOINT_VALUE:
    case DS::JOINT_VELOCITY:
    case DS::JOINT_ACCELERATION:
    case DS::JOINT_TORQUE:
      return 1;
    case DS::ABS_TRANSFORM:
      return 12;
    case DS::ABS_VELOCITY:
    case DS::ABS_ACCELERATION:
    case DS::EXTERNAL_FORCE:
      return 6;
    default:
      return 0;
  }
}

bool isJointType(DS::LinkDataType type) {
  return type == DS::JOINT_VALUE || type == DS::JOINT_VELOCITY ||
         type == DS::JOINT_ACCELERATION || type == DS::JOINT_TORQUE;
}

// types a client may write
bool isWritable(DS::LinkDataType type) {
  return dataSize(type) > 0 && type != DS::ABS_ACCELERATION;
}

// a 1-dof joint (what JOINT_* data drive)
bool hasJoint(const hsLink &l) {
  return l.jointType == hsJOINT_ROTATE || l.jointType == hsJOINT_SLIDE;
}

// the index of the first non-finite value of v[0..n), or -1
long firstNonFinite(const double *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!std::isfinite(v[i])) {
      return static_cast<long>(i);
    }
  }
  return -1;
}

void requireFinite(const char *op, const char *what, const double *v, size_t n) {
  long i = firstNonFinite(v, n);
  if (i >= 0) {
    badParam(op, format("%s: value %ld is %g (every number must be finite)", what, i, v[i]));
  }
}

// the 3x3 part of an ABS_TRANSFORM datum (p then R row-major) must be a rotation
void requireRotation(const char *op, const char *what, const double R[9]) {
  double T[12];
  double zero[3] = {0.0, 0.0, 0.0};
  hsu_makeTransform(T, R, zero);
  if (!hsu_isRigid(T, 1e-6)) {
    badParam(op, format("%s: the rotation (row-major 3x3) is not orthonormal with determinant +1 "
                        "to within 1e-6: [%g %g %g; %g %g %g; %g %g %g]",
                        what, R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8]));
  }
}

const double kZeros[12] = {0};

// numbers a sensor type reports (range and vision: variable, 0 here)
int sensorSize(hstSensor type) {
  switch (type) {
    case hsSENSOR_FORCE: return 6;
    case hsSENSOR_RATEGYRO:
    case hsSENSOR_ACCELERATION: return 3;
    default: return 0;
  }
}

}  // namespace

//---------------------------------- lifecycle -------------------------------------------------

DynamicsSimulatorServant::DynamicsSimulatorServant() {
  hsError err = {};
  std::lock_guard<std::mutex> ode(odeMutex());
  world_ = hsd_makeWorld(nullptr, &err);
  if (!world_) {
    raiseSystemException("create", err);
  }
  const double g[3] = {-gvector_[0], -gvector_[1], -gvector_[2]};
  if (hsd_setGravity(world_, g, &err) < 0) {
    hsd_freeWorld(world_);
    raiseSystemException("create", err);
  }
}

DynamicsSimulatorServant::~DynamicsSimulatorServant() {
  // the world borrows the bodies: free it first (the members, bodies included, go after)
  std::lock_guard<std::mutex> ode(odeMutex());
  hsd_freeWorld(world_);
}

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
  for (size_t i = 0; i < chars_.size(); i++) {
    if (chars_[i].name == name) {
      return static_cast<int>(i);
    }
  }
  std::string known;
  for (const Character &c : chars_) {
    known += (known.empty() ? "'" : ", '") + c.name + "'";
  }
  badParam(op, format("unknown character '%s' (registered: %s)", name,
                      known.empty() ? "none" : known.c_str()));
}

int DynamicsSimulatorServant::link(const char *op, int ch, const char *name) const {
  if (!*name) {
    badParam(op, format("character '%s': empty link name", chars_[ch].name.c_str()));
  }
  return linkOrAll(op, ch, name);
}

int DynamicsSimulatorServant::linkOrAll(const char *op, int ch, const char *name) const {
  if (!*name) {
    return -1;
  }
  int l = hsm_linkIndex(chars_[ch].body.get(), name);
  if (l < 0) {
    badParam(op, format("character '%s' has no link '%s'", chars_[ch].name.c_str(), name));
  }
  return l;
}

void DynamicsSimulatorServant::requireRunning(const char *op) const {
  if (!running_) {
    badOrder(op, "the simulation is not initialised: call initSimulation first");
  }
}

//---------------------------------- set-up ----------------------------------------------------

void DynamicsSimulatorServant::registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) {
  const char *op = "registerCharacter";
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) {
    badOrder(op, format("'%s': characters must be registered before initSimulation", name));
  }
  if (!*name) {
    badParam(op, "empty character name");
  }
  for (const Character &c : chars_) {
    if (c.name == name) {
      badParam(op, format("a character named '%s' is already registered in this world (register "
                          "one body under several names to simulate several copies)", name));
    }
  }
  if (CORBA::is_nil(cinfo)) {
    badParam(op, format("'%s': the BodyInfo reference is nil", name));
  }
  // read the remote body without the ODE lock: it is a dozen round trips
  hsError err = {};
  hsBody *raw = nullptr;
  try {
    raw = bodyFromInfo(cinfo, &err);
  } catch (const CORBA::SystemException &e) {
    badParam(op, format("'%s': cannot read its BodyInfo: CORBA %s", name, e._name()));
  }
  if (!raw) {
    fail(op, format("'%s': bad BodyInfo", name), err);
  }
  Character c;
  c.name = name;
  c.body = shareBody(raw);
  const hsBody *body = c.body.get();
  // sensors of each type in sensorId order
  for (int s = 0; s < body->nsensor; s++) {
    c.sensors[body->sensors[s].type].push_back(s);
  }
  for (std::vector<int> &list : c.sensors) {
    std::stable_sort(list.begin(), list.end(),
                     [body](int a, int b) { return body->sensors[a].id < body->sensors[b].id; });
  }
  c.scratch.reset(hsm_makeState(body, &err));
  if (!c.scratch) {
    fail(op, format("'%s'", name), err);
  }
  c.ikWork.resize(hsm_ikWorkSize(body) / sizeof(double) + 1);
  {
    std::lock_guard<std::mutex> ode(odeMutex());
    int index = hsd_addCharacter(world_, name, body, &err);
    if (index < 0) {
      fail(op, format("'%s'", name), err);
    }
    HS_ASSERT(index == static_cast<int>(chars_.size()));
  }
  chars_.push_back(std::move(c));
  hsu_log(hsLOG_INFO, "registered character '%s' (body '%s', %d links, %d joints)", name,
          body->name, body->nlink, body->njoint);
}

void DynamicsSimulatorServant::init(CORBA::Double timeStep, DS::IntegrateMethod integrateOpt,
                                    DS::SensorOption sensorOpt) {
  const char *op = "init";
  WorldLock lock(mutex_);
  if (!std::isfinite(timeStep) || timeStep <= 0.0) {
    badParam(op, format("the time step must be a positive finite number of seconds, got %g",
                        timeStep));
  }
  if (integrateOpt != DS::EULER && integrateOpt != DS::RUNGE_KUTTA) {
    badParam(op, format("unknown integration method %d", static_cast<int>(integrateOpt)));
  }
  if (sensorOpt != DS::DISABLE_SENSOR && sensorOpt != DS::ENABLE_SENSOR) {
    badParam(op, format("unknown sensor option %d", static_cast<int>(sensorOpt)));
  }
  hsError err = {};
  if (hsd_setTimeStep(world_, timeStep, &err) < 0) {
    fail(op, "", err);
  }
  sensorsEnabled_ = sensorOpt == DS::ENABLE_SENSOR;
  // ODE has one integrator: both methods step with it (README, "DynamicsSimulator")
  if (integrateOpt == DS::RUNGE_KUTTA) {
    hsu_log(hsLOG_INFO, "init: RUNGE_KUTTA requested; ODE's semi-implicit Euler stepper is used "
            "for both integration methods");
  }
}

void DynamicsSimulatorServant::registerCollisionCheckPair(
    const char *char1, const char *name1, const char *char2, const char *name2,
    CORBA::Double staticFriction, CORBA::Double slipFriction, const OpenHRP::DblSequence6 &,
    const OpenHRP::DblSequence6 &, CORBA::Double culling_thresh, CORBA::Double restitution) {
  // K and C (OpenHRP's spring-damper contact parameters) are accepted and ignored: contacts are
  // ODE's constraint contacts (README)
  const char *op = "registerCollisionCheckPair";
  WorldLock lock(mutex_);
  if (running_) {
    badOrder(op, "collision pairs must be registered before initSimulation");
  }
  int ch1 = character(op, char1);
  int l1 = linkOrAll(op, ch1, name1);
  int ch2 = character(op, char2);
  int l2 = linkOrAll(op, ch2, name2);
  if (ch1 == ch2 && l1 == l2 && l1 >= 0) {
    badParam(op, format("'%s' link '%s': a link cannot collide with itself", char1, name1));
  }
  const double values[4] = {staticFriction, slipFriction, culling_thresh, restitution};
  requireFinite(op, "friction, culling_thresh and restitution", values, 4);
  if (staticFriction < 0.0 || slipFriction < 0.0) {
    badParam(op, format("friction coefficients must be >= 0, got static %g, slip %g",
                        staticFriction, slipFriction));
  }
  if (culling_thresh < 0.0) {
    badParam(op, format("culling_thresh must be >= 0, got %g", culling_thresh));
  }
  if (restitution < 0.0 || restitution > 1.0) {
    badParam(op, format("restitution must be in [0, 1], got %g", restitution));
  }
  hsdSurface surface;
  surface.staticFriction = staticFriction;
  surface.slipFriction = slipFriction;
  surface.restitution = restitution;
  surface.cullingThresh = culling_thresh;
  hsError err = {};
  if (hsd_addContactPair(world_, ch1, l1, ch2, l2, &surface, &err) < 0) {
    fail(op, "", err);
  }
  contactPairs_.push_back(PairNames{{ch1, ch2}, {l1, l2}, 0.0});
}

void DynamicsSimulatorServant::registerIntersectionCheckPair(const char *char1, const char *name1,
                                                             const char *char2, const char *name2,
                                                             CORBA::Double tolerance) {
  const char *op = "registerIntersectionCheckPair";
  WorldLock lock(mutex_);
  if (running_) {
    badOrder(op, "intersection pairs must be registered before initSimulation");
  }
  int ch1 = character(op, char1);
  int l1 = linkOrAll(op, ch1, name1);
  int ch2 = character(op, char2);
  int l2 = linkOrAll(op, ch2, name2);
  if (ch1 == ch2 && l1 == l2 && l1 >= 0) {
    badParam(op, format("'%s' link '%s': a link cannot intersect itself", char1, name1));
  }
  if (!std::isfinite(tolerance) || tolerance < 0.0) {
    badParam(op, format("tolerance must be a finite distance >= 0, got %g", tolerance));
  }
  hsError err = {};
  if (hsd_addIntersectionPair(world_, ch1, l1, ch2, l2, tolerance, &err) < 0) {
    fail(op, "", err);
  }
  intersectionPairs_.push_back(PairNames{{ch1, ch2}, {l1, l2}, tolerance});
}

void DynamicsSimulatorServant::registerExtraJoint(const char *, const char *, const char *,
                                                  const char *, const OpenHRP::DblSequence3 &,
                                                  const OpenHRP::DblSequence3 &,
                                                  OpenHRP::ExtraJointType,
                                                  const OpenHRP::DblSequence3 &,
                                                  const char *extraJointName) {
  notImplemented("registerExtraJoint",
                 format("extra joints (closed kinematic loops) are not implemented yet; '%s' "
                        "was not registered",
                        extraJointName));
}

void DynamicsSimulatorServant::getExtraJointConstraintForce(const char *, const char *name,
                                                            OpenHRP::DblSequence6_out) {
  notImplemented("getExtraJointConstraintForce",
                 format("extra joints (closed kinematic loops) are not implemented yet ('%s')",
                        name));
}

void DynamicsSimulatorServant::initSimulation() {
  const char *op = "initSimulation";
  WorldLock lock(mutex_);
  hsError err = {};
  if (hsd_init(world_, &err) < 0) {
    fail(op, "", err);
  }
  running_ = true;
}

void DynamicsSimulatorServant::stepSimulation() {
  const char *op = "stepSimulation";
  WorldLock lock(mutex_);
  requireRunning(op);
  hsError err = {};
  if (hsd_step(world_, &err) < 0) {
    fail(op, "", err);
  }
}

void DynamicsSimulatorServant::setGVector(const OpenHRP::DblSequence3 &wdata) {
  const char *op = "setGVector";
  WorldLock lock(mutex_);
  if (wdata.length() != 3) {
    badParam(op, format("needs 3 numbers, got %u", static_cast<unsigned>(wdata.length())));
  }
  requireFinite(op, "gravity", wdata.get_buffer(), 3);
  // OpenHRP's vector is minus the gravitational acceleration: (0, 0, 9.8) pulls towards -z
  const double g[3] = {-wdata[0], -wdata[1], -wdata[2]};
  hsError err = {};
  if (hsd_setGravity(world_, g, &err) < 0) {
    fail(op, "", err);
  }
  for (int k = 0; k < 3; k++) gvector_[k] = wdata[k];
}

void DynamicsSimulatorServant::getGVector(OpenHRP::DblSequence3_out wdata) {
  std::lock_guard<std::mutex> lock(mutex_);
  wdata = new OpenHRP::DblSequence3;
  wdata->length(3);
  for (CORBA::ULong k = 0; k < 3; k++) (*wdata)[k] = gvector_[k];
}

void DynamicsSimulatorServant::setCharacterAllJointModes(const char *characterName,
                                                         DS::JointDriveMode jointMode) {
  const char *op = "setCharacterAllJointModes";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  if (jointMode != DS::HIGH_GAIN_MODE && jointMode != DS::TORQUE_MODE) {
    badParam(op, format("unknown joint mode %d", static_cast<int>(jointMode)));
  }
  hsError err = {};
  hstJointMode mode = jointMode == DS::HIGH_GAIN_MODE ? hsMODE_HIGH_GAIN : hsMODE_TORQUE;
  if (hsd_setAllJointModes(world_, ch, mode, &err) < 0) {
    fail(op, format("'%s'", characterName), err);
  }
}

//---------------------------------- link data -------------------------------------------------

void DynamicsSimulatorServant::setLinkData(const char *op, int ch, int link, DS::LinkDataType type,
                                           const double *v) {
  hsError err = {};
  int rc = 0;
  switch (type) {
    case DS::POSITION_GIVEN:
      rc = hsd_setPositionGiven(world_, ch, link, v[0] > 0.0, &err);
      break;
    case DS::JOINT_VALUE:
      rc = hsd_setJointValue(world_, ch, link, v[0], &err);
      break;
    case DS::JOINT_VELOCITY:
      rc = hsd_setJointVelocity(world_, ch, link, v[0], &err);
      break;
    case DS::JOINT_ACCELERATION:
      rc = hsd_setJointAcceleration(world_, ch, link, v[0], &err);
      break;
    case DS::JOINT_TORQUE:
      rc = hsd_setJointTorque(world_, ch, link, v[0], &err);
      break;
    case DS::ABS_TRANSFORM:
      rc = hsd_setLinkPose(world_, ch, link, v, v + 3, &err);
      break;
    case DS::ABS_VELOCITY:
      rc = hsd_setLinkVelocity(world_, ch, link, v, v + 3, &err);
      break;
    case DS::EXTERNAL_FORCE:
      rc = hsd_setExternalForce(world_, ch, link, v, v + 3, &err);
      break;
    default:
      HS_ASSERT(0);  // callers admit writable types only
  }
  if (rc < 0) {
    fail(op, format("'%s' link '%s', %s", chars_[ch].name.c_str(),
                    chars_[ch].body->links[link].name, typeName(type)),
         err);
  }
}

void DynamicsSimulatorServant::getLinkData(int ch, int link, DS::LinkDataType type,
                                           double *out) const {
  const hsBodyState *st = hsd_state(world_, ch);
  switch (type) {
    case DS::POSITION_GIVEN:
      out[0] = hsd_positionGiven(world_, ch, link) ? 1.0 : 0.0;
      break;
    case DS::JOINT_VALUE:
      out[0] = st->q[link];
      break;
    case DS::JOINT_VELOCITY:
      out[0] = st->dq[link];
      break;
    case DS::JOINT_ACCELERATION:
      out[0] = st->ddq[link];
      break;
    case DS::JOINT_TORQUE:
      out[0] = st->u[link];
      break;
    case DS::ABS_TRANSFORM:
      std::memcpy(out, st->linkP + 3 * link, 3 * sizeof(double));
      std::memcpy(out + 3, st->linkR + 9 * link, 9 * sizeof(double));
      break;
    case DS::ABS_VELOCITY:
    case DS::ABS_ACCELERATION: {
      const hsdLinkMotion *m = hsd_linkMotion(world_, ch, link);
      const double *lin = m ? (type == DS::ABS_VELOCITY ? m->v : m->dv) : kZeros;
      const double *ang = m ? (type == DS::ABS_VELOCITY ? m->w : m->dw) : kZeros;
      std::memcpy(out, lin, 3 * sizeof(double));
      std::memcpy(out + 3, ang, 3 * sizeof(double));
      break;
    }
    case DS::EXTERNAL_FORCE:
      std::memcpy(out, hsd_input(world_, ch)->ext + 6 * link, 6 * sizeof(double));
      break;
    default:
      HS_ASSERT(0);  // callers admit fixed-size types only
  }
}

void DynamicsSimulatorServant::setCharacterLinkData(const char *character, const char *linkName,
                                                    DS::LinkDataType type,
                                                    const OpenHRP::DblSequence &data) {
  const char *op = "setCharacterLinkData";
  WorldLock lock(mutex_);
  int ch = this->character(op, character);
  int l = link(op, ch, linkName);
  if (!isWritable(type)) {
    badParam(op, format("%s cannot be set (%s)", typeName(type),
                        dataSize(type) > 0 || type == DS::CONSTRAINT_FORCE
                            ? "it is computed by the simulation"
                            : "not a data type"));
  }
  size_t n = static_cast<size_t>(dataSize(type));
  if (data.length() != n) {
    badParam(op, format("'%s' link '%s': %s needs %zu numbers, got %u", character, linkName,
                        typeName(type), n, static_cast<unsigned>(data.length())));
  }
  requireFinite(op, typeName(type), data.get_buffer(), n);
  if (type == DS::ABS_TRANSFORM) {
    requireRotation(op, "ABS_TRANSFORM", data.get_buffer() + 3);
  }
  setLinkData(op, ch, l, type, data.get_buffer());
}

void DynamicsSimulatorServant::getCharacterLinkData(const char *characterName,
                                                    const char *linkName, DS::LinkDataType type,
                                                    OpenHRP::DblSequence_out rdata) {
  const char *op = "getCharacterLinkData";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  int l = link(op, ch, linkName);
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  if (type == DS::CONSTRAINT_FORCE) {
    // per contact point of the last step on this link: point, then the force on this link
    int n = 0;
    const hsdContact *c = hsd_contacts(world_, &n);
    CORBA::ULong count = 0;
    for (int i = 0; i < n; i++) {
      for (int side = 0; side < 2; side++) {
        count += c[i].ch[side] == ch && c[i].link[side] == l;
      }
    }
    out->length(6 * count);
    double *buf = out->get_buffer();
    for (int i = 0; i < n; i++) {
      for (int side = 0; side < 2; side++) {
        if (c[i].ch[side] == ch && c[i].link[side] == l) {
          double sign = side == 0 ? 1.0 : -1.0;
          for (int k = 0; k < 3; k++) {
            buf[k] = c[i].p[k];
            buf[3 + k] = sign * c[i].force[k];
          }
          buf += 6;
        }
      }
    }
  } else {
    int n = dataSize(type);
    if (n <= 0) {
      badParam(op, format("%s is not a data type", typeName(type)));
    }
    out->length(n);
    getLinkData(ch, l, type, out->get_buffer());
  }
  rdata = out._retn();
}

void DynamicsSimulatorServant::getCharacterAllLinkData(const char *characterName,
                                                       DS::LinkDataType type,
                                                       OpenHRP::DblSequence_out wdata) {
  const char *op = "getCharacterAllLinkData";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  if (type == DS::CONSTRAINT_FORCE) {
    badParam(op, "CONSTRAINT_FORCE has a varying number of values per link: read it link by "
                 "link with getCharacterLinkData");
  }
  int n = dataSize(type);
  if (n <= 0) {
    badParam(op, format("%s is not a data type", typeName(type)));
  }
  // jointId order; links without a jointId are not included
  const hsBody *body = chars_[ch].body.get();
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  out->length(static_cast<CORBA::ULong>(body->njoint * n));
  double *buf = out->get_buffer();
  for (int j = 0; j < body->njoint; j++) {
    getLinkData(ch, body->jointLink[j], type, buf + static_cast<size_t>(j) * n);
  }
  wdata = out._retn();
}

void DynamicsSimulatorServant::setCharacterAllLinkData(const char *characterName,
                                                       DS::LinkDataType type,
                                                       const OpenHRP::DblSequence &wdata) {
  const char *op = "setCharacterAllLinkData";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  if (!isWritable(type)) {
    badParam(op, format("%s cannot be set", typeName(type)));
  }
  const hsBody *body = chars_[ch].body.get();
  size_t n = static_cast<size_t>(dataSize(type));
  size_t expected = n * static_cast<size_t>(body->njoint);
  if (wdata.length() != expected) {
    badParam(op, format("'%s': %s needs %zu numbers (%d joints x %zu, jointId order), got %u",
                        characterName, typeName(type), expected, body->njoint, n,
                        static_cast<unsigned>(wdata.length())));
  }
  // check everything before changing anything
  const double *v = wdata.get_buffer();
  requireFinite(op, typeName(type), v, expected);
  if (type == DS::ABS_TRANSFORM) {
    for (int j = 0; j < body->njoint; j++) {
      requireRotation(op, body->links[body->jointLink[j]].name, v + 12 * j + 3);
    }
  }
  for (int j = 0; j < body->njoint; j++) {
    int l = body->jointLink[j];
    // joint data skip numbered links without a 1-dof joint, as OpenHRP skips fixed joints
    if (isJointType(type) && !hasJoint(body->links[l])) {
      continue;
    }
    setLinkData(op, ch, l, type, v + n * j);
  }
}

//---------------------------------- kinematics ------------------------------------------------

CORBA::Boolean DynamicsSimulatorServant::calcCharacterInverseKinematics(
    const char *characterName, const char *baseLink, const char *targetLink,
    const OpenHRP::LinkPosition &target) {
  const char *op = "calcCharacterInverseKinematics";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  int base = link(op, ch, baseLink);
  int tip = link(op, ch, targetLink);
  requireFinite(op, "target.p", target.p, 3);
  requireFinite(op, "target.R", target.R, 9);
  Character &c = chars_[ch];
  const hsBody *body = c.body.get();
  const hsBodyState *st = hsd_state(world_, ch);
  // solve on a copy: the world's state changes only when the goal is reached
  hsBodyState *s = c.scratch.get();
  size_t nl = static_cast<size_t>(body->nlink);
  std::memcpy(s->q, st->q, nl * sizeof(double));
  std::memcpy(s->dq, st->dq, nl * sizeof(double));
  std::memcpy(s->ddq, st->ddq, nl * sizeof(double));
  std::memcpy(s->u, st->u, nl * sizeof(double));
  std::memcpy(s->rootP, st->rootP, sizeof s->rootP);
  std::memcpy(s->rootR, st->rootR, sizeof s->rootR);
  std::memcpy(s->linkP, st->linkP, 3 * nl * sizeof(double));
  std::memcpy(s->linkR, st->linkR, 9 * nl * sizeof(double));
  hsError err = {};
  int rc = hsm_inverseKinematics(body, s, base, tip, target.p, target.R, nullptr, c.ikWork.data(),
                                 &err);
  if (rc < 0) {
    fail(op, format("'%s' %s -> %s", characterName, baseLink, targetLink), err);
  }
  if (rc == 0) {
    return false;
  }
  // reached: move the world's character onto the solution (joints, then the root, which
  // carries the links along)
  for (int l = 0; l < body->nlink; l++) {
    if (s->q[l] != st->q[l] && hsd_setJointValue(world_, ch, l, s->q[l], &err) < 0) {
      fail(op, format("'%s'", characterName), err);
    }
  }
  if (std::memcmp(s->rootP, st->rootP, sizeof s->rootP) != 0 ||
      std::memcmp(s->rootR, st->rootR, sizeof s->rootR) != 0) {
    double p[3], R[9];
    std::memcpy(p, s->rootP, sizeof p);
    std::memcpy(R, s->rootR, sizeof R);
    if (hsd_setLinkPose(world_, ch, 0, p, R, &err) < 0) {
      fail(op, format("'%s'", characterName), err);
    }
  }
  hsd_forwardKinematics(world_, ch);
  return true;
}

void DynamicsSimulatorServant::calcCharacterForwardKinematics(const char *characterName) {
  WorldLock lock(mutex_);
  hsd_forwardKinematics(world_, character("calcCharacterForwardKinematics", characterName));
}

void DynamicsSimulatorServant::calcWorldForwardKinematics() {
  WorldLock lock(mutex_);
  for (size_t ch = 0; ch < chars_.size(); ch++) {
    hsd_forwardKinematics(world_, static_cast<int>(ch));
  }
}

void DynamicsSimulatorServant::calcCharacterJacobian(const char *characterName,
                                                     const char *baseLink,
                                                     const char *targetLink,
                                                     OpenHRP::DblSequence_out jacobian) {
  const char *op = "calcCharacterJacobian";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  int base = link(op, ch, baseLink);
  int tip = link(op, ch, targetLink);
  const hsBody *body = chars_[ch].body.get();
  hsError err = {};
  int n = hsm_jointPath(body, base, tip, nullptr, nullptr, 0, &err);
  if (n < 0) {
    fail(op, format("'%s' %s -> %s", characterName, baseLink, targetLink), err);
  }
  OpenHRP::DblSequence_var J = new OpenHRP::DblSequence;
  J->length(static_cast<CORBA::ULong>(6 * n));
  if (n > 0 && hsm_jacobian(body, hsd_state(world_, ch), base, tip, J->get_buffer(), n, &err) < 0) {
    fail(op, format("'%s' %s -> %s", characterName, baseLink, targetLink), err);
  }
  jacobian = J._retn();
}

//---------------------------------- collisions ------------------------------------------------

void DynamicsSimulatorServant::fillLinkPair(OpenHRP::LinkPair &out, int ch0, int link0, int ch1,
                                            int link1, double tolerance) const {
  out.charName1 = CORBA::string_dup(chars_[ch0].name.c_str());
  out.linkName1 = CORBA::string_dup(link0 >= 0 ? chars_[ch0].body->links[link0].name : "");
  out.charName2 = CORBA::string_dup(chars_[ch1].name.c_str());
  out.linkName2 = CORBA::string_dup(link1 >= 0 ? chars_[ch1].body->links[link1].name : "");
  out.tolerance = tolerance;
}

int DynamicsSimulatorServant::groupContacts(const hsdContact *c, int n) {
  // contacts of one link pair normally come in one run: compare with the previous contact
  // first, and search the groups (newest first) only when the pair changes
  groupOf_.resize(static_cast<size_t>(n));
  groupFirst_.clear();
  groupCount_.clear();
  auto same = [c](int a, int b) {
    return c[a].pair == c[b].pair && c[a].ch[0] == c[b].ch[0] && c[a].link[0] == c[b].link[0] &&
           c[a].ch[1] == c[b].ch[1] && c[a].link[1] == c[b].link[1];
  };
  for (int i = 0; i < n; i++) {
    int g = -1;
    if (i > 0 && same(i, i - 1)) {
      g = groupOf_[i - 1];
    } else {
      for (int k = static_cast<int>(groupFirst_.size()) - 1; k >= 0; k--) {
        if (same(i, groupFirst_[k])) {
          g = k;
          break;
        }
      }
    }
    if (g < 0) {
      g = static_cast<int>(groupFirst_.size());
      groupFirst_.push_back(i);
      groupCount_.push_back(0);
    }
    groupOf_[i] = g;
    groupCount_[g]++;
  }
  return static_cast<int>(groupFirst_.size());
}

CORBA::Boolean DynamicsSimulatorServant::checkCollision(CORBA::Boolean checkAll) {
  WorldLock lock(mutex_);
  requireRunning("checkCollision");  // the collision geometry is built by initSimulation
  // as OpenHRP: link poses from the current joint values first
  for (size_t ch = 0; ch < chars_.size(); ch++) {
    hsd_forwardKinematics(world_, static_cast<int>(ch));
  }
  return hsd_checkIntersections(world_, checkAll ? 1 : 0, nullptr, 0) > 0;
}

OpenHRP::LinkPairSequence *DynamicsSimulatorServant::checkIntersection(CORBA::Boolean checkAll) {
  WorldLock lock(mutex_);
  requireRunning("checkIntersection");
  for (size_t ch = 0; ch < chars_.size(); ch++) {
    hsd_forwardKinematics(world_, static_cast<int>(ch));
  }
  size_t npair = contactPairs_.size() + intersectionPairs_.size();
  hits_.resize(npair + 1);
  int n = hsd_checkIntersections(world_, checkAll ? 1 : 0, hits_.data(),
                                 static_cast<int>(npair));
  if (n > static_cast<int>(npair)) {
    n = static_cast<int>(npair);
  }
  OpenHRP::LinkPairSequence_var out = new OpenHRP::LinkPairSequence;
  out->length(n > 0 ? static_cast<CORBA::ULong>(n) : 0);
  for (int i = 0; i < n; i++) {
    int h = hits_[i];
    const PairNames &p = h < static_cast<int>(contactPairs_.size())
                             ? contactPairs_[h]
                             : intersectionPairs_[h - contactPairs_.size()];
    fillLinkPair(out[i], p.ch[0], p.link[0], p.ch[1], p.link[1], p.tolerance);
  }
  return out._retn();
}

OpenHRP::DistanceSequence *DynamicsSimulatorServant::checkDistance() {
  notImplemented("checkDistance", "distance queries are not implemented yet (they come with the "
                                  "collision detector)");
}

CORBA::Boolean DynamicsSimulatorServant::getCharacterCollidingPairs(
    const char *characterName, OpenHRP::LinkPairSequence_out pairs) {
  const char *op = "getCharacterCollidingPairs";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  int n = 0;
  const hsdContact *c = hsd_contacts(world_, &n);
  int ngroup = groupContacts(c, n);
  CORBA::ULong count = 0;
  for (int g = 0; g < ngroup; g++) {
    const hsdContact &k = c[groupFirst_[g]];
    count += k.ch[0] == ch || k.ch[1] == ch;
  }
  OpenHRP::LinkPairSequence_var out = new OpenHRP::LinkPairSequence;
  out->length(count);
  CORBA::ULong i = 0;
  for (int g = 0; g < ngroup; g++) {
    const hsdContact &k = c[groupFirst_[g]];
    if (k.ch[0] == ch || k.ch[1] == ch) {
      fillLinkPair(out[i++], k.ch[0], k.link[0], k.ch[1], k.link[1], 0.0);
    }
  }
  pairs = out._retn();
  return count > 0;
}

//---------------------------------- state -----------------------------------------------------

void DynamicsSimulatorServant::getWorldState(OpenHRP::WorldState_out wstate) {
  WorldLock lock(mutex_);
  OpenHRP::WorldState_var ws = new OpenHRP::WorldState;
  ws->time = hsd_time(world_);
  // every character's link frames, in link index order
  ws->characterPositions.length(static_cast<CORBA::ULong>(chars_.size()));
  for (size_t ch = 0; ch < chars_.size(); ch++) {
    OpenHRP::CharacterPosition &cp = ws->characterPositions[static_cast<CORBA::ULong>(ch)];
    cp.characterName = CORBA::string_dup(chars_[ch].name.c_str());
    const hsBodyState *st = hsd_state(world_, static_cast<int>(ch));
    int nlink = chars_[ch].body->nlink;
    cp.linkPositions.length(static_cast<CORBA::ULong>(nlink));
    OpenHRP::LinkPosition *lp = cp.linkPositions.get_buffer();
    for (int l = 0; l < nlink; l++) {
      std::memcpy(lp[l].p, st->linkP + 3 * l, 3 * sizeof(double));
      std::memcpy(lp[l].R, st->linkR + 9 * l, 9 * sizeof(double));
    }
  }
  // the last step's contacts, one Collision per touching link pair
  int n = 0;
  const hsdContact *c = hsd_contacts(world_, &n);
  int ngroup = groupContacts(c, n);
  ws->collisions.length(static_cast<CORBA::ULong>(ngroup));
  groupFill_.assign(static_cast<size_t>(ngroup), 0);
  for (int g = 0; g < ngroup; g++) {
    const hsdContact &k = c[groupFirst_[g]];
    OpenHRP::Collision &col = ws->collisions[g];
    fillLinkPair(col.pair, k.ch[0], k.link[0], k.ch[1], k.link[1], 0.0);
    col.points.length(static_cast<CORBA::ULong>(groupCount_[g]));
  }
  for (int i = 0; i < n; i++) {
    int g = groupOf_[i];
    OpenHRP::CollisionPoint &pt = ws->collisions[g].points[groupFill_[g]++];
    std::memcpy(pt.position, c[i].p, 3 * sizeof(double));
    // OpenHRP's normal points from the pair's first link into its second (its solver takes it
    // as the inward normal of link 2); the C world's points from link[1] towards link[0]
    for (int k = 0; k < 3; k++) pt.normal[k] = -c[i].n[k];
    pt.idepth = c[i].depth;
  }
  wstate = ws._retn();
}

void DynamicsSimulatorServant::getCharacterSensorState(const char *characterName,
                                                       OpenHRP::SensorState_out sstate) {
  const char *op = "getCharacterSensorState";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  const Character &c = chars_[ch];
  const hsBody *body = c.body.get();
  const hsBodyState *st = hsd_state(world_, ch);
  OpenHRP::SensorState_var ss = new OpenHRP::SensorState;
  // joints in jointId order
  CORBA::ULong nj = static_cast<CORBA::ULong>(body->njoint);
  ss->q.length(nj);
  ss->dq.length(nj);
  ss->u.length(nj);
  for (CORBA::ULong j = 0; j < nj; j++) {
    int l = body->jointLink[j];
    ss->q[j] = st->q[l];
    ss->dq[j] = st->dq[l];
    ss->u[j] = st->u[l];
  }
  // body sensors in sensorId order of each type; zeros while sensors are disabled
  auto reading = [&](int s, int size, double *out) {
    int n = 0;
    const double *v = sensorsEnabled_ ? hsd_sensorReading(world_, ch, s, &n) : nullptr;
    for (int k = 0; k < size; k++) out[k] = v && k < n ? v[k] : 0.0;
  };
  const std::vector<int> &force = c.sensors[hsSENSOR_FORCE];
  ss->force.length(static_cast<CORBA::ULong>(force.size()));
  for (size_t i = 0; i < force.size(); i++) reading(force[i], 6, ss->force[i]);
  const std::vector<int> &gyro = c.sensors[hsSENSOR_RATEGYRO];
  ss->rateGyro.length(static_cast<CORBA::ULong>(gyro.size()));
  for (size_t i = 0; i < gyro.size(); i++) reading(gyro[i], 3, ss->rateGyro[i]);
  const std::vector<int> &accel = c.sensors[hsSENSOR_ACCELERATION];
  ss->accel.length(static_cast<CORBA::ULong>(accel.size()));
  for (size_t i = 0; i < accel.size(); i++) reading(accel[i], 3, ss->accel[i]);
  // range sensors come with a later issue: one empty entry each
  ss->range.length(static_cast<CORBA::ULong>(c.sensors[hsSENSOR_RANGE].size()));
  sstate = ss._retn();
}

void DynamicsSimulatorServant::getCharacterSensorValues(const char *characterName,
                                                        const char *sensorName,
                                                        OpenHRP::DblSequence_out values) {
  const char *op = "getCharacterSensorValues";
  WorldLock lock(mutex_);
  int ch = character(op, characterName);
  const hsBody *body = chars_[ch].body.get();
  int s = hsm_sensorIndex(body, sensorName);
  if (s < 0) {
    badParam(op, format("character '%s' has no sensor '%s'", characterName, sensorName));
  }
  int n = 0;
  const double *v = hsd_sensorReading(world_, ch, s, &n);
  int size = sensorSize(body->sensors[s].type);
  OpenHRP::DblSequence_var out = new OpenHRP::DblSequence;
  out->length(static_cast<CORBA::ULong>(size));
  for (int k = 0; k < size; k++) {
    out[k] = sensorsEnabled_ && v && k < n ? v[k] : 0.0;
  }
  values = out._retn();
}

}  // namespace hrpsim
