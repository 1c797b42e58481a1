// scheduler.cpp - the Scheduler and ClockGenerator servants (scheduler.h).
//
// Configuration calls check the state (IDLE or READY), look names up and apply their arguments
// at once to the simulation core through wire.h, which checks them; a refusal comes back as an
// hsError whose message becomes the SchedulerError's text.
//
// A run: begin() resolves the controllers by name, initialises the simulation and the
// controllers in the caller's thread (so start() reports their failures), records the state at
// time 0 and starts the loop thread. The loop steps the core itself (no CORBA call); the
// hosted DynamicsSimulator servant is a second door to the same core, for the controllers.
// The loop steps while it is free running or short of the
// step target that step() / runUntil() set, and otherwise pauses; each step is tick(): due
// controllers input() and control(), stepSimulation() (after adding the push a client holds,
// push(): a spring pulling a point of a link, as EXTERNAL_FORCE), due execution contexts tick(),
// output() of the controllers of this step, a log record at the log period, a frame for the online
// viewer at the view rate (viewer_feed.h: handed to the feed's own thread, never waited on),
// then a sleep when paced to real time. Steps, simulated time and the time step are the core's
// (hs_steps, hs_time, hs_timeStep; kept nowhere else), and so is the run (core.h hsRun, made
// once the simulation has started): which controllers are due before the step from count k
// (their ticks), when the log records (hs_runLog, into the core's buffers; getLog converts the
// records through wire.h), which viewer and camera frames are due (frame streams), the end
// step; every period becomes steps by the core's one rule. A failure of any remote call
// ends the run: the message names who failed, when and why; the other controllers get stop().

#include "scheduler.h"

#include <omniORB4/Naming.hh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "format.h"
#include "viewer_feed.h"
#include "runtime.h"
#include "setup.h"
#include "wire.h"

namespace hrpsim {

using DS = OpenHRP::DynamicsSimulator;

//---------------------------------- helpers ---------------------------------------------------

namespace {

// log "op: what" and raise SchedulerError(what)
[[noreturn]] void refuse(const char *op, const std::string &what) {
  logRequestError(op, what);
  throw hrpsim::SchedulerError(what.c_str());
}

// a simulated time for messages: enough digits for any step, none of the accumulation noise
std::string timeText(double t) {
  return format("%.10g", t);
}

const char *stateName(hrpsim::RunState s) {
  switch (s) {
    case hrpsim::IDLE: return "IDLE";
    case hrpsim::READY: return "READY";
    case hrpsim::RUNNING: return "RUNNING";
    case hrpsim::PAUSED: return "PAUSED";
    case hrpsim::FINISHED: return "FINISHED";
    case hrpsim::FAILED: return "FAILED";
    default: return "?";
  }
}

// raise SchedulerError "op: <the error's message>" (logged) unless rc is a success
void refuseOn(const char *op, int rc, const hsError &err) {
  if (rc < 0) {
    refuse(op, err.message);
  }
}

// "CORBA::TRANSIENT (TRANSIENT_CallTimedout)"
std::string systemText(const CORBA::SystemException &e) {
  const char *minor = e.NP_minorString();
  return minor ? format("CORBA::%s (%s)", e._name(), minor) : format("CORBA::%s", e._name());
}

// why a remote call op() on a controller or context failed
std::string remoteFailure(const char *op, const CORBA::Exception &ex, double timeoutS) {
  if (const OpenHRP::Controller::ControllerException *ce =
          OpenHRP::Controller::ControllerException::_downcast(&ex)) {
    return format("%s() raised ControllerException: %s", op, ce->description.in());
  }
  const CORBA::SystemException *se = CORBA::SystemException::_downcast(&ex);
  if (!se) {
    return format("%s() raised %s", op, ex._name());
  }
  const char *minor = se->NP_minorString();
  std::string name = se->_name();
  if (name == "TIMEOUT" ||
      (name == "TRANSIENT" && minor && std::string(minor) == "TRANSIENT_CallTimedout")) {
    return format("no answer to %s() within the timeout of %g s (%s)", op, timeoutS,
                  systemText(*se).c_str());
  }
  if (name == "OBJECT_NOT_EXIST") {
    return format("%s(): the object no longer exists (%s)", op, systemText(*se).c_str());
  }
  if (name == "TRANSIENT" || name == "COMM_FAILURE") {
    return format("%s(): no connection (is its process gone?) (%s)", op, systemText(*se).c_str());
  }
  return format("%s() raised %s", op, systemText(*se).c_str());
}

CosNaming::NamingContext_ptr namingContext(const char *op) {
  CORBA::ORB_ptr orb = Runtime::instance()->orb();
  try {
    CORBA::Object_var obj = orb->resolve_initial_references("NameService");
    CosNaming::NamingContext_var ctx = CosNaming::NamingContext::_narrow(obj);
    if (CORBA::is_nil(ctx)) {
      refuse(op, "the NameService initial reference is not a naming context");
    }
    return ctx._retn();
  } catch (const CORBA::SystemException &e) {
    refuse(op, format("cannot reach the naming service (CORBA %s)", e._name()));
  } catch (const CORBA::ORB::InvalidName &) {
    refuse(op, "no naming service given (-ORBInitRef NameService=...)");
  }
}

// the object bound under name in the naming service, or nil if nothing is bound there
CORBA::Object_ptr resolveName(const char *op, const char *name) {
  CosNaming::NamingContext_var ctx = namingContext(op);
  CosNaming::Name n;
  n.length(1);
  n[0].id = CORBA::string_dup(name);
  n[0].kind = CORBA::string_dup("");
  try {
    return ctx->resolve(n);
  } catch (const CosNaming::NamingContext::NotFound &) {
    return CORBA::Object::_nil();
  } catch (const CORBA::Exception &e) {
    refuse(op, format("cannot look '%s' up in the naming service (CORBA %s)", name, e._name()));
  }
}

}  // namespace

//---------------------------------- hosted dynamics -------------------------------------------

HostedDynamics::HostedDynamics(SimPtr sim) : DynamicsSimulatorServant(std::move(sim)) {}

void HostedDynamics::destroy() {
  logRequestError("destroy", "the scheduler's DynamicsSimulator belongs to the scheduler "
                             "(Scheduler::reset replaces it)");
  throw CORBA::NO_PERMISSION(0, CORBA::COMPLETED_NO);
}

void HostedDynamics::restoreState(const hrpsim::StateBytes &) {
  hsError err = {};
  HS_ERR(&err, hsE_ORDER, "the scheduler's DynamicsSimulator is restored through the "
         "scheduler (Scheduler::restoreState), which keeps the run's clock");
  raiseSystemException("restoreState", err);
}

//---------------------------------- lifecycle -------------------------------------------------

SchedulerServant::SchedulerServant() {
  makeDynamics();
}

void SchedulerServant::halt() {
  std::unique_lock<std::mutex> lk(mutex_);
  halting_ = true;
  stopRequested_ = true;
  cv_.notify_all();
  joinLoop(lk);
  std::shared_ptr<ViewerFeed> feed = std::move(feed_);
  lk.unlock();
  if (feed) {
    feed->close(true);  // at most one call's timeout
  }
}

SchedulerServant::~SchedulerServant() {
  std::lock_guard<std::mutex> op(opMutex_);
  std::unique_lock<std::mutex> lk(mutex_);
  halting_ = true;
  stopRequested_ = true;
  cv_.notify_all();
  joinLoop(lk);
  std::shared_ptr<ViewerFeed> feed = std::move(feed_);
  lk.unlock();
  if (feed) {
    feed->close(true);
  }
  releaseView();
  hs_freeRun(plan_);
  plan_ = nullptr;
  releaseDynamics();
}

// a new simulation and its DynamicsSimulator servant, activated (mutex_ held or no loop)
void SchedulerServant::makeDynamics() {
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  sim_ = makeSim();
  hs_enableSensors(sim_.get(), 1);  // the scheduler's default: ENABLE_SENSOR
  urls_.clear();
  dyn_ = new HostedDynamics(sim_);  // our reference
  dynOid_ = poa->activate_object(dyn_);
  CORBA::Object_var obj = poa->id_to_reference(dynOid_);
  dynRef_ = OpenHRP::DynamicsSimulator::_narrow(obj);
}

// deactivate the dynamics servant and drop our reference (no loop running)
void SchedulerServant::releaseDynamics() {
  if (!dyn_) {
    return;
  }
  try {
    Runtime::instance()->poa()->deactivate_object(dynOid_);
  } catch (const CORBA::Exception &e) {
    // at shutdown the POA has let go of it already
    hsu_log(halting_ ? hsLOG_DEBUG : hsLOG_WARNING,
            "could not deactivate the old DynamicsSimulator: %s", e._name());
  }
  dynRef_ = OpenHRP::DynamicsSimulator::_nil();
  dyn_->_remove_ref();  // the POA drops its own once the calls in progress return
  dyn_ = nullptr;
  sim_.reset();  // the servant keeps it until it goes
}

// hand the loop thread over and join it without mutex_ (lk is mutex_, relocked on return)
void SchedulerServant::joinLoop(std::unique_lock<std::mutex> &lk) {
  std::thread t = std::move(thread_);
  if (t.joinable()) {
    lk.unlock();
    t.join();
    lk.lock();
  }
}

void SchedulerServant::reset() {
  std::lock_guard<std::mutex> op(opMutex_);
  std::unique_lock<std::mutex> lk(mutex_);
  if (thread_.joinable()) {
    stopRequested_ = true;
    cv_.notify_all();
    joinLoop(lk);
  }
  releaseView();
  cameraDir_.clear();
  {
    // the run borrows the simulation: it goes first (getLog reads it under logMutex_)
    std::lock_guard<std::mutex> log(logMutex_);
    hs_freeRun(plan_);
    plan_ = nullptr;
  }
  releaseDynamics();
  endTime_ = 0.0;
  method_ = DS::EULER;
  makeDynamics();
  controllers_.clear();
  timeout_ = 10.0;
  logPeriod_ = 0.0;
  logSensors_ = false;
  realTime_ = 0.0;
  viewer_ = OpenHRP::OnlineViewer::_nil();
  if (feed_) {
    feed_->close(false);  // a call in progress ends on its own (call timeout)
    feed_.reset();
  }
  viewRate_ = kDefaultViewRate;
  state_ = hrpsim::IDLE;
  message_.clear();
  starting_ = freeRunning_ = stopRequested_ = active_ = restored_ = false;
  stepTarget_ = endSteps_ = 0;
  wallTime_ = 0.0;
  run_.clear();
}

void SchedulerServant::shutdown() {
  hsu_log(hsLOG_INFO, "shutdown requested by a client");
  {
    std::lock_guard<std::mutex> op(opMutex_);
    std::unique_lock<std::mutex> lk(mutex_);
    if (thread_.joinable()) {
      stopRequested_ = true;
      cv_.notify_all();
      joinLoop(lk);
    }
  }
  Runtime::instance()->requestShutdown();
}

//---------------------------------- configuration ---------------------------------------------

// raise unless configuration calls are allowed now (mutex_ held)
void SchedulerServant::requireConfigurable(const char *op) {
  if (state_ == hrpsim::IDLE || state_ == hrpsim::READY) {
    return;
  }
  if (state_ == hrpsim::FINISHED || state_ == hrpsim::FAILED) {
    refuse(op, format("the run has ended (%s): call reset() and configure again",
                      stateName(state_)));
  }
  refuse(op, format("cannot change the configuration while %s: stop() and reset() first",
                    stateName(state_)));
}

void SchedulerServant::setTimeStep(CORBA::Double dt) {
  const char *op = "setTimeStep";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, hs_setTimeStep(sim_.get(), dt, &err), err);
}

void SchedulerServant::setEndTime(CORBA::Double t) {
  const char *op = "setEndTime";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  if (std::isnan(t) || std::isinf(t)) {
    refuse(op, format("the end time must be a finite number of seconds (0 or less: no end), "
                      "got %g", t));
  }
  endTime_ = t;
}

void SchedulerServant::setIntegrateMethod(DS::IntegrateMethod method) {
  const char *op = "setIntegrateMethod";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, wire::integrateMethod(sim_.get(), method, &err), err);
  method_ = method;
}

void SchedulerServant::setSensorOption(DS::SensorOption option) {
  const char *op = "setSensorOption";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::sensorOption(sim_.get(), option, &err), err);
}

void SchedulerServant::setGVector(const OpenHRP::DblSequence3 &g) {
  const char *op = "setGVector";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::gravity(sim_.get(), g, &err), err);
}

void SchedulerServant::addModel(const char *name, const char *url) {
  const char *op = "addModel";
  {
    std::lock_guard<std::mutex> lk(mutex_);
    requireConfigurable(op);
    // the core's check of the name, before the model is loaded
    hsError err = {};
    refuseOn(op, hs_checkCharacterName(sim_.get(), name, &err), err);
  }
  // load without our lock: the model loader may take a while (status() stays responsive)
  CORBA::Object_var obj = resolveName(op, "ModelLoader");
  if (CORBA::is_nil(obj)) {
    refuse(op, "no ModelLoader is bound in the naming service (is hrpsim-modelloader running?)");
  }
  OpenHRP::BodyInfo_var info;
  try {
    OpenHRP::ModelLoader_var loader = OpenHRP::ModelLoader::_narrow(obj);
    if (CORBA::is_nil(loader)) {
      refuse(op, "the object bound as 'ModelLoader' is not an OpenHRP::ModelLoader");
    }
    // with its texture images: the run's cameras (the ViewSimulator hosted here) draw the body
    // the simulation holds, textured as the view server's and the local back end's are
    OpenHRP::ModelLoader::ModelLoadOption option;
    option.readImage = true;
    option.AABBtype = OpenHRP::ModelLoader::AABB_NUM;
    info = loader->getBodyInfoEx(url, option);
  } catch (const OpenHRP::ModelLoader::ModelLoaderException &e) {
    refuse(op, format("'%s': cannot load %s: %s", name, url, e.description.in()));
  } catch (const CORBA::SystemException &e) {
    refuse(op, format("'%s': the ModelLoader failed on %s (%s)", name, url,
                      systemText(e).c_str()));
  }
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);  // again: a reset or start may have come meanwhile
  hsError err = {};
  // (the name checked again, by the core: another addModel may have taken it meanwhile)
  int ch = wire::addCharacter(sim_.get(), name, info, &err);
  refuseOn(op, ch, err);
  urls_.resize(static_cast<size_t>(ch) + 1);
  urls_[static_cast<size_t>(ch)] = url;
  state_ = hrpsim::READY;
}

void SchedulerServant::setLinkData(const char *character, const char *link,
                                   DS::LinkDataType type, const OpenHRP::DblSequence &data) {
  const char *op = "setLinkData";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::linkData(sim_.get(), character, link, type, data, &err), err);
}

void SchedulerServant::setAllJointModes(const char *character, DS::JointDriveMode mode) {
  const char *op = "setAllJointModes";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::allJointModes(sim_.get(), character, mode, &err), err);
}

void SchedulerServant::addCollisionPair(const hrpsim::CollisionPair &pair) {
  const char *op = "addCollisionPair";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::contactPair(sim_.get(), pair.char1, pair.link1, pair.char2, pair.link2,
                                  pair.staticFriction, pair.slipFriction, pair.cullingThresh,
                                  pair.restitution, &err),
           err);
}

void SchedulerServant::addExtraJoint(const hrpsim::ExtraJointSpec &spec) {
  const char *op = "addExtraJoint";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::extraJoint(sim_.get(), spec.name, spec.char1, spec.link1, spec.char2,
                                 spec.link2, spec.link1LocalPos, spec.link2LocalPos,
                                 spec.jointType, spec.jointAxis, &err),
           err);
}

void SchedulerServant::setJointOptions(const hrpsim::JointOptions &options) {
  const char *op = "setJointOptions";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::jointOptions(sim_.get(), options.jointLimits, options.rotorInertia,
                                   options.sleep, &err),
           err);
}

void SchedulerServant::setSolver(const char *engine, const hrpsim::SolverSettings &settings) {
  const char *op = "setSolver";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, wire::setSolverFromWire(sim_.get(), engine, settings, &err), err);
}

char *SchedulerServant::engine() {
  std::lock_guard<std::mutex> lk(mutex_);
  return CORBA::string_dup(sim_ ? hs_engine(sim_.get()) : "");  // ("": shutting down)
}

void SchedulerServant::setJointLimits(CORBA::Boolean position, CORBA::Boolean velocity,
                                      CORBA::Boolean effort) {
  const char *op = "setJointLimits";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsError err = {};
  refuseOn(op, setup::jointLimits(sim_.get(), position, velocity, effort, &err), err);
}

void SchedulerServant::addController(const hrpsim::ControllerSpec &controller) {
  const char *op = "addController";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  std::string name = controller.name.in();
  std::string character = controller.character.in();
  if (name.empty()) {
    refuse(op, "empty controller name (the name it is bound under in the naming service)");
  }
  for (const ControllerConfig &c : controllers_) {
    if (c.name == name) {
      refuse(op, format("controller '%s' is already added", name.c_str()));
    }
  }
  if (!character.empty()) {
    bool known = hs_character(sim_.get(), character.c_str(), nullptr) >= 0;
    std::string names;
    for (int ch = 0; ch < hs_characterCount(sim_.get()); ch++) {
      names += (names.empty() ? "'" : ", '") + std::string(hs_characterName(sim_.get(), ch)) +
               "'";
    }
    if (!known) {
      refuse(op, format("controller '%s': unknown model '%s' (added: %s)", name.c_str(),
                        character.c_str(), names.empty() ? "none" : names.c_str()));
    }
  }
  double dt = hs_timeStep(sim_.get());
  if (hs_periodSteps(controller.period, dt) == 0) {
    refuse(op, format("controller '%s': the period %g s is not a whole multiple of the time "
                      "step %g s", name.c_str(), controller.period, dt));
  }
  controllers_.push_back(ControllerConfig{name, character, controller.period});
}

void SchedulerServant::setControllerTimeout(CORBA::Double seconds) {
  const char *op = "setControllerTimeout";
  std::lock_guard<std::mutex> lk(mutex_);
  if (!std::isfinite(seconds) || seconds <= 0.0 || seconds > 4e6) {
    refuse(op, format("the timeout must be a positive number of seconds (at most 4e6), got %g",
                      seconds));
  }
  timeout_ = seconds;
}

void SchedulerServant::setLogOptions(const hrpsim::LogOptions &options) {
  const char *op = "setLogOptions";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  double dt = hs_timeStep(sim_.get());
  if (options.period != 0.0 && hs_periodSteps(options.period, dt) == 0) {
    refuse(op, format("the log period %g s is not a whole multiple of the time step %g s (0: "
                      "every step)", options.period, dt));
  }
  logPeriod_ = options.period;
  logSensors_ = options.sensors;
}

void SchedulerServant::setSensorNoise(const hrpsim::SensorNoise &noise) {
  const char *op = "setSensorNoise";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  hsNoise n;
  std::memset(&n, 0, sizeof n);
  n.seed = noise.seed;
  n.limits = noise.limits ? 1 : 0;
  // the noisy types of the sensor table, by their short names; one number per range beam
  std::string known;
  for (int t = 0; t < HS_SENSOR_TYPES; t++) {
    if (hs_sensorTypeNoisy(t)) {
      known += std::string(known.empty() ? "" : ", ") + hs_sensorTypeKey(t);
    }
  }
  for (CORBA::ULong i = 0; i < noise.noise.length(); i++) {
    const hrpsim::SensorNoiseSpec &spec = noise.noise[i];
    int type = 0;
    while (type < HS_SENSOR_TYPES && !(hs_sensorTypeNoisy(type) &&
                                       std::strcmp(hs_sensorTypeKey(type), spec.type.in()) == 0)) {
      type++;
    }
    if (type == HS_SENSOR_TYPES) {
      refuse(op, format("sensor noise %u: unknown type '%s' (%s)", i, spec.type.in(),
                        known.c_str()));
    }
    int size = hs_sensorTypeSize(type) > 0 ? hs_sensorTypeSize(type) : 1;
    const OpenHRP::DblSequence *seqs[2] = {&spec.std, &spec.bias};
    double *dst[2] = {n.std[type], n.bias[type]};
    for (int m = 0; m < 2; m++) {
      CORBA::ULong len = seqs[m]->length();
      if (len > 1 && len != static_cast<CORBA::ULong>(size)) {
        refuse(op, format("sensor noise '%s': %s has %u numbers; give 1 (every component) or %d",
                          spec.type.in(), m ? "bias" : "std", len, size));
      }
      for (int j = 0; j < size; j++) {
        dst[m][j] = len == 0 ? 0.0 : (*seqs[m])[len == 1 ? 0 : static_cast<CORBA::ULong>(j)];
      }
    }
    n.active[type] = 1;
  }
  hsError err = {};
  refuseOn(op, hs_setNoise(sim_.get(), &n, &err), err);
}

void SchedulerServant::setRealTime(CORBA::Double factor) {
  const char *op = "setRealTime";
  std::lock_guard<std::mutex> lk(mutex_);
  if (!std::isfinite(factor) || factor < 0.0) {
    refuse(op, format("the real-time factor must be >= 0 (0: as fast as possible), got %g",
                      factor));
  }
  realTime_ = factor;
}

void SchedulerServant::setOnlineViewer(OpenHRP::OnlineViewer_ptr viewer) {
  std::lock_guard<std::mutex> lk(mutex_);
  if (feed_) {
    feed_->close(false);
    feed_.reset();
  }
  viewer_ = OpenHRP::OnlineViewer::_duplicate(viewer);
  if (!CORBA::is_nil(viewer_)) {
    feed_ = std::make_shared<ViewerFeed>(viewer_, kViewerCallTimeoutMs);
    if (state_ != hrpsim::IDLE && state_ != hrpsim::READY) {
      feed_->load(models());  // attached during a run: the models first, then frames
    }
  }
}

void SchedulerServant::setViewRate(CORBA::Double hz) {
  std::lock_guard<std::mutex> lk(mutex_);
  if (!std::isfinite(hz) || hz <= 0.0) {
    refuse("setViewRate", format("the view rate must be a positive number of frames per second "
                                 "of simulated time (got %g)", hz));
  }
  viewRate_ = hz;  // a run in progress uses it from its next step on
}

void SchedulerServant::setCameraOutput(const char *directory) {
  const char *op = "setCameraOutput";
  std::lock_guard<std::mutex> lk(mutex_);
  requireConfigurable(op);
  if (*directory) {
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec || !std::filesystem::is_directory(directory)) {
      refuse(op, format("cannot make the directory '%s' (%s)", directory,
                        ec ? ec.message().c_str() : "not a directory"));
    }
  }
  cameraDir_ = directory;
}

OpenHRP::ViewSimulator_ptr SchedulerServant::view() {
  std::lock_guard<std::mutex> lk(mutex_);
  return OpenHRP::ViewSimulator::_duplicate(viewRef_);
}

OpenHRP::DynamicsSimulator_ptr SchedulerServant::dynamics() {
  std::lock_guard<std::mutex> lk(mutex_);
  return OpenHRP::DynamicsSimulator::_duplicate(dynRef_);
}

//---------------------------------- clock -----------------------------------------------------

void SchedulerServant::subscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec, double period) {
  const char *op = "ClockGenerator::subscribe";
  std::lock_guard<std::mutex> lk(mutex_);
  if (CORBA::is_nil(ec)) {
    logRequestError(op, "the execution context reference is nil");
    throw CORBA::BAD_PARAM(0, CORBA::COMPLETED_NO);
  }
  double dt = hs_timeStep(sim_.get());
  if (hs_periodSteps(period, dt) == 0) {
    logRequestError(op, format("the period %g s is not a whole multiple of the time step %g s",
                               period, dt));
    throw CORBA::BAD_PARAM(0, CORBA::COMPLETED_NO);
  }
  auto next = std::make_shared<SubscriptionList>();
  int id = 0;
  for (const auto &s : *subscriptions_) {
    if (s->ec->_is_equivalent(ec)) {
      id = s->id;  // subscribed again: the new period replaces the old
    } else {
      next->push_back(s);
    }
  }
  auto sub = std::make_shared<Subscription>();
  sub->id = id ? id : nextSubscription_++;
  sub->ec = OpenRTM::ExtTrigExecutionContextService::_duplicate(ec);
  sub->period = period;
  omniORB::setClientCallTimeout(sub->ec, static_cast<CORBA::ULong>(timeout_ * 1000.0 + 0.5));
  next->push_back(sub);
  subscriptions_ = next;
  hsu_log(hsLOG_INFO, "execution context %d subscribed with period %g s", sub->id, period);
}

void SchedulerServant::unsubscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec) {
  std::lock_guard<std::mutex> lk(mutex_);
  if (CORBA::is_nil(ec)) {
    return;
  }
  auto next = std::make_shared<SubscriptionList>();
  for (const auto &s : *subscriptions_) {
    if (s->ec->_is_equivalent(ec)) {
      hsu_log(hsLOG_INFO, "execution context %d unsubscribed", s->id);
    } else {
      next->push_back(s);
    }
  }
  subscriptions_ = next;
}

ClockGeneratorServant::ClockGeneratorServant(SchedulerServant *scheduler)
    : scheduler_(scheduler) {
  scheduler_->_add_ref();
}

ClockGeneratorServant::~ClockGeneratorServant() {
  scheduler_->_remove_ref();
}

void ClockGeneratorServant::subscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec,
                                      CORBA::Double period) {
  scheduler_->subscribe(ec, period);
}

void ClockGeneratorServant::unsubscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec) {
  scheduler_->unsubscribe(ec);
}

//---------------------------------- running ---------------------------------------------------

// initialise a run from READY (opMutex_ held by the caller, mutex_ not): on success the loop
// thread exists and the state is PAUSED (paused) or RUNNING
void SchedulerServant::begin(const char *op, bool paused) {
  std::unique_lock<std::mutex> lk(mutex_);
  requireReady(op);
  double dt = hs_timeStep(sim_.get());
  planRun(op, dt);
  std::vector<std::pair<std::string, std::string>> models = this->models();
  std::shared_ptr<ViewerFeed> feed = feed_;
  double timeout = timeout_;
  state_ = hrpsim::RUNNING;
  starting_ = true;
  message_.clear();
  stepTarget_ = 0;
  wallTime_ = 0.0;
  freeRunning_ = stopRequested_ = active_ = restored_ = false;
  lk.unlock();
  {
    std::lock_guard<std::mutex> log(logMutex_);
    hs_freeRun(plan_);  // the last run's log goes with it
    plan_ = nullptr;
  }
  {
    std::lock_guard<std::mutex> held(pushMutex_);
    held_ = HeldPush();
  }

  // resolve the controllers: a name that is not there is a configuration problem (stay READY)
  try {
    resolveControllers(op);
  } catch (...) {
    lk.lock();
    run_.clear();
    state_ = hrpsim::READY;
    starting_ = false;
    cv_.notify_all();
    throw;
  }

  // initialise the simulation, then the controllers in the order added
  std::string failure = initRun(op, timeout);
  if (!failure.empty()) {
    hsu_log(hsLOG_ERROR, "%s", failure.c_str());
    lk.lock();
    state_ = hrpsim::FAILED;
    message_ = failure;
    starting_ = false;
    cv_.notify_all();
    throw hrpsim::SchedulerError(failure.c_str());
  }
  // the viewer gets the models, then frames (through its feed: never waited on here)
  if (feed) {
    feed->load(models);
  }
  record(true, true);  // the state at time 0: logged and shown
  renderDueFrames(0, 0.0);

  lk.lock();
  endSteps_ = hs_runEndSteps(plan_);
  starting_ = false;
  freeRunning_ = !paused;
  state_ = paused ? hrpsim::PAUSED : hrpsim::RUNNING;
  thread_ = std::thread(&SchedulerServant::loop, this);
  cv_.notify_all();
  hsu_log(hsLOG_INFO, "run started (%zu models, %zu controllers, dt %g s, %s)", models.size(),
          run_.size(), dt, paused ? "paused" : "running");
}

// refuse a run unless the configuration is READY (mutex_ held)
void SchedulerServant::requireReady(const char *op) {
  if (state_ == hrpsim::IDLE) {
    refuse(op, "nothing to simulate: add a model first (addModel)");
  }
  if (state_ != hrpsim::READY) {
    refuse(op, format("a run exists already (%s): %s", stateName(state_),
                      state_ == hrpsim::FINISHED || state_ == hrpsim::FAILED
                          ? "call reset() and configure again"
                          : "stop() it first"));
  }
}

// the run's plan from the configuration (mutex_ held): controllers, execution contexts and
// the log period checked against the time step dt, the end time and the log kept for makeRun,
// the call timeouts
void SchedulerServant::planRun(const char *op, double dt) {
  run_.clear();
  for (const ControllerConfig &c : controllers_) {
    long long n = hs_periodSteps(c.period, dt);
    if (n == 0) {
      refuse(op, format("controller '%s': the period %g s is not a whole multiple of the time "
                        "step %g s", c.name.c_str(), c.period, dt));
    }
    RunController rc;
    rc.name = c.name;
    rc.character = c.character;
    rc.period = c.period;
    run_.push_back(std::move(rc));
  }
  for (const auto &s : *subscriptions_) {
    if (hs_periodSteps(s->period, dt) == 0) {
      refuse(op, format("execution context %d: its period %g s is not a whole multiple of the "
                        "time step %g s", s->id, s->period, dt));
    }
  }
  if (logPeriod_ != 0.0 && hs_periodSteps(logPeriod_, dt) == 0) {
    refuse(op, format("the log period %g s is not a whole multiple of the time step %g s",
                      logPeriod_, dt));
  }
  runEndTime_ = endTime_;
  runLogPeriod_ = logPeriod_;
  runLogSensors_ = logSensors_;
  runCameraDir_ = cameraDir_;
  timeoutMs_ = static_cast<unsigned long>(timeout_ * 1000.0 + 0.5);
  for (const auto &s : *subscriptions_) {
    omniORB::setClientCallTimeout(s->ec, static_cast<CORBA::ULong>(timeoutMs_));
  }
}

// find each controller of the run in the naming service (mutex_ not held); refuses with the
// name of the one that is missing, silent or not a Controller
void SchedulerServant::resolveControllers(const char *op) {
  for (RunController &c : run_) {
    CORBA::Object_var obj = resolveName(op, c.name.c_str());
    if (CORBA::is_nil(obj)) {
      refuse(op, format("controller '%s' is not bound in the naming service", c.name.c_str()));
    }
    try {
      c.ref = OpenHRP::Controller::_narrow(obj);
    } catch (const CORBA::SystemException &e) {
      refuse(op, format("controller '%s' does not answer (%s)", c.name.c_str(),
                        systemText(e).c_str()));
    }
    if (CORBA::is_nil(c.ref)) {
      refuse(op, format("the object bound as '%s' is not an OpenHRP::Controller",
                        c.name.c_str()));
    }
    omniORB::setClientCallTimeout(c.ref, static_cast<CORBA::ULong>(timeoutMs_));
    // one call per tick for a controller that offers it (Diagnostics.idl)
    try {
      if (c.ref->_is_a("IDL:hrpsim/OneCallController:1.0")) {
        c.oneCall = hrpsim::OneCallController::_unchecked_narrow(c.ref);
        omniORB::setClientCallTimeout(c.oneCall, static_cast<CORBA::ULong>(timeoutMs_));
      }
    } catch (const CORBA::SystemException &e) {
      refuse(op, format("controller '%s' does not answer (%s)", c.name.c_str(),
                        systemText(e).c_str()));
    }
    hsError err = {};
    c.ch = c.character.empty() ? -1 : hs_character(sim_.get(), c.character.c_str(), &err);
  }
}

// start the simulation and the run's cameras, then set up, initialize() and start() each
// controller in the order added (mutex_ not held); returns the failure ("" if none), the
// controllers started before it stopped again
std::string SchedulerServant::initRun(const char *op, double timeout) {
  std::string failure;
  {
    hsError err = {};
    if (hs_start(sim_.get(), &err) < 0) {
      failure = format("initSimulation failed: %s", err.message);
    }
  }
  if (failure.empty() && !(failure = makeRun()).empty()) {
    failure = format("initSimulation failed: %s", failure.c_str());
  }
  if (failure.empty()) {
    makeView(op);  // the cameras of the run (none when no model has a VisionSensor)
  }
  OpenHRP::ViewSimulator_var viewRef;
  {
    std::lock_guard<std::mutex> view(mutex_);
    viewRef = OpenHRP::ViewSimulator::_duplicate(viewRef_);
  }
  OpenHRP::DynamicsSimulator_var dynRef = OpenHRP::DynamicsSimulator::_duplicate(dynRef_);
  for (size_t i = 0; i < run_.size() && failure.empty(); i++) {
    RunController &c = run_[i];
    const char *step = "setDynamicsSimulator";
    try {
      c.ref->setDynamicsSimulator(dynRef);
      if (!CORBA::is_nil(viewRef)) {
        step = "setViewSimulator";
        c.ref->setViewSimulator(viewRef);
      }
      step = "setModelName";
      c.ref->setModelName(c.character.c_str());
      step = "setTimeStep";
      c.ref->setTimeStep(c.period);
      step = "initialize";
      c.ref->initialize();
      step = "start";
      c.ref->start();
      c.started = true;
    } catch (const CORBA::Exception &e) {
      failure = format("controller '%s' failed at t = 0 s: %s", c.name.c_str(),
                       remoteFailure(step, e, timeout).c_str());
      stopControllers(&c);
    }
  }
  return failure;
}

// the core's run over the started simulation (mutex_ not held; the loop not running): its end,
// log, the controllers' ticks and the viewer's frame stream; "" or why not (out of memory)
std::string SchedulerServant::makeRun() {
  hsError err = {};
  hsRun *run = hs_makeRun(sim_.get(), runEndTime_, runLogPeriod_, runLogSensors_ ? 1 : 0, &err);
  if (!run) {
    return err.message;
  }
  for (RunController &c : run_) {
    c.tick = hs_runAddTick(run, c.period, &err);  // (checked by planRun)
  }
  viewStreamRate_ = viewRate_.load();
  viewStream_ = hs_runAddFrames(run, viewStreamRate_, &err);
  std::lock_guard<std::mutex> log(logMutex_);
  plan_ = run;
  return "";
}

void SchedulerServant::start() {
  std::lock_guard<std::mutex> op(opMutex_);
  begin("start", false);
}

void SchedulerServant::startPaused() {
  std::lock_guard<std::mutex> op(opMutex_);
  begin("startPaused", true);
}

void SchedulerServant::pause() {
  const char *op = "pause";
  std::lock_guard<std::mutex> opLock(opMutex_);
  std::unique_lock<std::mutex> lk(mutex_);
  if (state_ == hrpsim::PAUSED) {
    return;
  }
  if (state_ != hrpsim::RUNNING || starting_) {
    refuse(op, format("nothing is running (%s)", stateName(state_)));
  }
  freeRunning_ = false;
  stepTarget_ = hs_steps(sim_.get());  // a step in progress completes, then the loop pauses
  cv_.notify_all();
  cv_.wait(lk, [this] { return state_ != hrpsim::RUNNING; });
}

void SchedulerServant::resume() {
  const char *op = "resume";
  std::lock_guard<std::mutex> opLock(opMutex_);
  std::lock_guard<std::mutex> lk(mutex_);
  if (state_ == hrpsim::RUNNING && !starting_ && freeRunning_) {
    return;
  }
  if (state_ != hrpsim::PAUSED) {
    refuse(op, format("only a PAUSED run can be resumed (the state is %s%s)",
                      stateName(state_), state_ == hrpsim::READY ? ": start() it" : ""));
  }
  freeRunning_ = true;
  state_ = hrpsim::RUNNING;
  cv_.notify_all();
}

void SchedulerServant::stop() {
  const char *op = "stop";
  std::lock_guard<std::mutex> opLock(opMutex_);
  std::unique_lock<std::mutex> lk(mutex_);
  if (state_ == hrpsim::IDLE || state_ == hrpsim::READY) {
    refuse(op, format("no run to stop (%s)", stateName(state_)));
  }
  stopRequested_ = true;
  cv_.notify_all();
  joinLoop(lk);  // the loop stops the controllers and sets FINISHED (or FAILED) on its way out
}

// run until the core's step count reaches target (opMutex_ held through opLock; released while
// waiting, so pause() and stop() can come meanwhile)
void SchedulerServant::runSteps(const char *op, long long target,
                                std::unique_lock<std::mutex> &opLock) {
  std::unique_lock<std::mutex> lk(mutex_);
  if (state_ != hrpsim::PAUSED) {
    refuse(op, format("the run is %s: %s", stateName(state_),
                      state_ == hrpsim::RUNNING ? "pause() it first"
                                                : "call reset() and configure again"));
  }
  if (endSteps_ > 0 && target > endSteps_) {
    target = endSteps_;  // the run ends there
  }
  if (target <= hs_steps(sim_.get())) {
    return;
  }
  stepTarget_ = target;
  state_ = hrpsim::RUNNING;
  cv_.notify_all();
  opLock.unlock();
  cv_.wait(lk, [this] { return state_ != hrpsim::RUNNING; });
  if (state_ == hrpsim::FAILED) {
    throw hrpsim::SchedulerError(message_.c_str());
  }
}

// begin a READY (or IDLE: refused there) configuration paused, then run to the step count
// targetOf() gives (called with mutex_ held)
void SchedulerServant::advance(const char *op, std::unique_lock<std::mutex> &opLock,
                               const std::function<long long()> &targetOf) {
  bool ready = false;
  {
    std::lock_guard<std::mutex> lk(mutex_);
    ready = state_ == hrpsim::READY || state_ == hrpsim::IDLE;
  }
  if (ready) {
    begin(op, true);
  }
  long long target;
  {
    std::lock_guard<std::mutex> lk(mutex_);
    target = targetOf();
  }
  runSteps(op, target, opLock);
}

void SchedulerServant::step(CORBA::Long n) {
  const char *op = "step";
  std::unique_lock<std::mutex> opLock(opMutex_);
  if (n < 0) {
    refuse(op, format("the number of steps must be >= 0, got %d", static_cast<int>(n)));
  }
  advance(op, opLock, [this, n] { return hs_steps(sim_.get()) + n; });
}

void SchedulerServant::runUntil(CORBA::Double t) {
  const char *op = "runUntil";
  std::unique_lock<std::mutex> opLock(opMutex_);
  if (!std::isfinite(t)) {
    refuse(op, format("the time must be finite, got %g", t));
  }
  advance(op, opLock, [this, t] { return hs_stepsToReach(t, hs_timeStep(sim_.get())); });
}

hrpsim::StateBytes *SchedulerServant::saveState() {
  const char *op = "saveState";
  std::lock_guard<std::mutex> opLock(opMutex_);
  std::lock_guard<std::mutex> lk(mutex_);
  if (state_ != hrpsim::PAUSED) {
    refuse(op, format("the run is %s: a state is saved while it is PAUSED",
                      stateName(state_)));
  }
  hsError err = {};
  long long n = hs_saveState(sim_.get(), nullptr, 0, &err);
  hrpsim::StateBytes_var out = new hrpsim::StateBytes;
  if (n > 0) {
    out->length(static_cast<CORBA::ULong>(n));
    n = hs_saveState(sim_.get(), out->get_buffer(), n, &err);
  }
  refuseOn(op, n < 0 ? static_cast<int>(n) : 0, err);
  return out._retn();
}

void SchedulerServant::restoreState(const hrpsim::StateBytes &state) {
  const char *op = "restoreState";
  std::lock_guard<std::mutex> opLock(opMutex_);
  std::lock_guard<std::mutex> lk(mutex_);
  if (state_ != hrpsim::PAUSED) {
    refuse(op, format("the run is %s: a state is restored while it is PAUSED (startPaused, "
                      "or pause())", stateName(state_)));
  }
  hsError err = {};
  refuseOn(op, hs_restoreState(sim_.get(), state.get_buffer(), state.length(), &err), err);
  // the loop, idle, takes the core's step count and time when it wakes
  stepTarget_ = hs_steps(sim_.get());
  restored_ = true;
  cv_.notify_all();
}

hrpsim::RunStatus *SchedulerServant::statusLocked() const {
  hrpsim::RunStatus_var s = new hrpsim::RunStatus;
  s->state = state_;
  double time = hs_time(sim_.get());
  s->time = time;
  s->steps = hs_steps(sim_.get());
  double wall = wallTime_;
  if (active_) {
    wall += std::chrono::duration<double>(Clock::now() - activeSince_).count();
  }
  s->wallTime = wall;
  s->realTimeFactor = wall > 0.0 ? time / wall : 0.0;
  s->message = CORBA::string_dup(message_.c_str());
  return s._retn();
}

hrpsim::RunStatus *SchedulerServant::status() {
  std::lock_guard<std::mutex> lk(mutex_);
  return statusLocked();
}

void SchedulerServant::push(const hrpsim::PushSpec &p) {
  const char *op = "push";
  std::lock_guard<std::mutex> lk(mutex_);
  if ((state_ != hrpsim::RUNNING && state_ != hrpsim::PAUSED) || starting_) {
    refuse(op, format("no run to push (%s)", stateName(state_)));
  }
  hsError err = {};
  HeldPush h;
  h.on = true;
  h.ch = hs_character(sim_.get(), p.character.in(), &err);
  if (h.ch >= 0) {
    h.link = hs_link(sim_.get(), h.ch, p.link.in(), &err);
  }
  if (h.ch < 0 || h.link < 0) {
    refuse(op, err.message);
  }
  if (p.point.length() != 3 || p.target.length() != 3) {
    refuse(op, format("point and target take 3 numbers each, got %u and %u",
                      static_cast<unsigned>(p.point.length()),
                      static_cast<unsigned>(p.target.length())));
  }
  for (CORBA::ULong i = 0; i < 3; i++) {
    h.point[i] = p.point[i];
    h.target[i] = p.target[i];
    if (!std::isfinite(h.point[i]) || !std::isfinite(h.target[i]) ||
        std::fabs(h.point[i]) > 1e3 || std::fabs(h.target[i]) > 1e6) {
      refuse(op, "point and target must be finite (the point within 1000 m of the link, the "
                 "target within 1e6 m of the origin)");
    }
  }
  h.stiffness = p.stiffness;
  h.damping = p.damping;
  h.maxForce = p.maxForce;
  if (!(h.stiffness >= 0.0 && h.stiffness <= 1e9 && h.damping >= 0.0 && h.damping <= 1e9)) {
    refuse(op, format("stiffness and damping must be in [0, 1e9], got %g and %g", h.stiffness,
                      h.damping));
  }
  if (!(h.maxForce > 0.0 && h.maxForce <= 1e6)) {
    refuse(op, format("maxForce must be in (0, 1e6] N, got %g", h.maxForce));
  }
  std::lock_guard<std::mutex> held(pushMutex_);
  held_ = h;
}

void SchedulerServant::release() {
  std::lock_guard<std::mutex> held(pushMutex_);
  held_ = HeldPush();
}

hrpsim::RunStatus *SchedulerServant::wait(CORBA::Double timeout) {
  std::unique_lock<std::mutex> lk(mutex_);
  if (std::isfinite(timeout) && timeout > 0.0) {
    // (halt() ends it too)
    Clock::time_point end =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(std::min(timeout, 1e7)));
    while (state_ == hrpsim::RUNNING && Clock::now() < end && !halting_) {
      cv_.wait_until(lk, end);
    }
  }
  return statusLocked();
}

hrpsim::LogRecordSequence *SchedulerServant::getLog(CORBA::Long from) {
  if (from < 0) {
    refuse("getLog", format("from must be >= 0, got %d", static_cast<int>(from)));
  }
  std::lock_guard<std::mutex> lk(logMutex_);
  hrpsim::LogRecordSequence_var out = new hrpsim::LogRecordSequence;
  if (!plan_) {
    return out._retn();
  }
  // the core's records, converted under its lock (the loop may be recording)
  SimLock core(hs_runSim(plan_));
  long long n = hs_runRecordCount(plan_);
  long long first = std::min(static_cast<long long>(from), n);
  out->length(static_cast<CORBA::ULong>(n - first));
  for (long long r = first; r < n; r++) {
    wire::logRecordInto(plan_, r, out[static_cast<CORBA::ULong>(r - first)]);
  }
  return out._retn();
}

// the models of the configuration as (name, url), in the order added: names from the core
std::vector<std::pair<std::string, std::string>> SchedulerServant::models() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (int ch = 0; ch < hs_characterCount(sim_.get()); ch++) {
    out.emplace_back(hs_characterName(sim_.get(), ch),
                     static_cast<size_t>(ch) < urls_.size() ? urls_[static_cast<size_t>(ch)] : "");
  }
  return out;
}

//---------------------------------- the loop --------------------------------------------------

// the loop thread: step while there is work, pause when there is none, and end on stop(), at
// the end time or on a failure
void SchedulerServant::loop() {
  std::unique_lock<std::mutex> lk(mutex_);
  long long k = hs_steps(sim_.get());  // the core's count after the last finished tick
  double time = hs_time(sim_.get());
  std::string failure;
  int failed = -2;  // -2: none; -1: not a controller; else the controller's index
  Pace pace;
  for (;;) {
    if (restored_) {
      // restoreState (while paused): the run goes on from the restored step
      k = hs_steps(sim_.get());
      time = hs_time(sim_.get());
      restored_ = false;
    }
    if (stopRequested_ || (endSteps_ > 0 && k >= endSteps_)) {
      break;
    }
    if (!freeRunning_ && k >= stepTarget_) {
      if (state_ == hrpsim::RUNNING && feed_ && k > 0 && !viewFrame(k)) {
        // pausing between two frames: the viewer shows where the run stands
        lk.unlock();
        record(false, true);
        lk.lock();
      }
      idle(lk, k);
      pace.on = false;
      continue;
    }
    if (!active_) {
      active_ = true;
      activeSince_ = Clock::now();
    }
    double factor = realTime_;
    std::shared_ptr<const SubscriptionList> subs = subscriptions_;
    bool viewing = feed_ != nullptr;  // frames are made only for an attached viewer
    lk.unlock();

    pace.follow(factor, time);
    bool stepped = false;
    bool ok = tick(k, time, *subs, stepped, failure, failed);
    if (stepped) {
      k++;
      // 5. log and viewer frame, then pacing
      if (ok) {
        afterStep(k, time, viewing);
      }
      if (ok && pace.on) {
        pace.sleep(time);
      }
    }
    lk.lock();
    if (!ok) {
      break;
    }
  }
  finishRun(lk, k, time, failed, failure);
}

// nothing to do at step count k: account the wall time, publish PAUSED and wait until asked
// (lk is mutex_)
void SchedulerServant::idle(std::unique_lock<std::mutex> &lk, long long k) {
  if (active_) {
    wallTime_ += std::chrono::duration<double>(Clock::now() - activeSince_).count();
    active_ = false;
  }
  if (state_ == hrpsim::RUNNING) {
    state_ = hrpsim::PAUSED;
    cv_.notify_all();
  }
  cv_.wait(lk, [this, k] {
    return stopRequested_ || freeRunning_ || k < stepTarget_ || restored_;
  });
}

// pacing to real time: (re)anchor when the factor is set or changes, off when it is 0
void SchedulerServant::Pace::follow(double f, double time) {
  if (f > 0.0 && (!on || f != factor)) {
    on = true;
    factor = f;
    sim = time;
    wall = Clock::now();
  } else if (f <= 0.0) {
    on = false;
  }
}

// sleep until the wall clock catches up with simulated time (scaled by the factor)
void SchedulerServant::Pace::sleep(double time) const {
  std::this_thread::sleep_until(
      wall + std::chrono::duration_cast<Clock::duration>(
                 std::chrono::duration<double>((time - sim) / factor)));
}

// one tick at step index k (mutex_ not held): phases 1 to 4; time becomes the core's after the
// step, stepped tells whether the physics stepped; false on a failure (failure and failed set)
bool SchedulerServant::tick(long long k, double &time, const SubscriptionList &subs,
                            bool &stepped, std::string &failure, int &failed) {
  bool ok = true;
  // controllers due this tick that render see the current poses
  if (std::any_of(run_.begin(), run_.end(),
                  [this, k](const RunController &c) { return hs_runTickDue(plan_, c.tick, k); })) {
    syncView();
  }
  // 1. due controllers: input, then control, in the order added
  for (size_t i = 0; i < run_.size() && ok; i++) {
    RunController &c = run_[i];
    if (hs_runTickDue(plan_, c.tick, k)) {
      ok = !CORBA::is_nil(c.oneCall) ? tickController(c, k, time, failure)
                                     : callController(c, "input", time, failure) &&
                                           callController(c, "control", time, failure);
      failed = ok ? failed : static_cast<int>(i);
    }
  }
  // 2. the physics, in this process (with the push held, if any)
  if (ok) {
    SimLock core(sim_);
    hsError err = {};
    applyPush();
    if (hs_runStep(plan_, &err) < 0) {
      failure = format("stepSimulation failed at t = %s s: %s", timeText(time).c_str(),
                       err.message);
      failed = -1;
      ok = false;
    } else {
      time = hs_time(sim_.get());  // the one clock: the core's
      stepped = true;
    }
  }
  // 3. due execution contexts
  for (size_t i = 0; ok && i < subs.size(); i++) {
    const Subscription &s = *subs[i];
    long long n = hs_periodSteps(s.period, hs_timeStep(sim_.get()));
    if (n > 0 && k % n != 0) {
      continue;
    }
    try {
      s.ec->tick();
    } catch (const CORBA::Exception &e) {
      failure = format("execution context %d (period %g s) failed at t = %s s: %s", s.id,
                       s.period, timeText(time).c_str(),
                       remoteFailure("tick", e, timeoutMs_ / 1000.0).c_str());
      failed = -1;
      ok = false;
      unsubscribe(s.ec);  // as OpenHRP's clock: a context that fails is dropped
    }
  }
  // 4. output of the controllers of this step
  for (size_t i = 0; ok && i < run_.size(); i++) {
    RunController &c = run_[i];
    if (hs_runTickDue(plan_, c.tick, k)) {
      ok = !CORBA::is_nil(c.oneCall) ? writeCommand(c, time, failure)
                                     : callController(c, "output", time, failure);
      failed = ok ? failed : static_cast<int>(i);
    }
  }
  return ok;
}

// 5. after the step that made the count k (mutex_ not held): the log record at the log period,
// the viewer's frame at the view rate, the cameras' due frames
void SchedulerServant::afterStep(long long k, double time, bool viewing) {
  record(true, viewing && viewFrame(k));
  renderDueFrames(k, time);
}

// the end of the loop at step count k, time (lk is mutex_, held): the final state for the
// viewer (unless it just got it), account the wall time, stop the controllers, publish the
// outcome
void SchedulerServant::finishRun(std::unique_lock<std::mutex> &lk, long long k, double time,
                                 int failed, const std::string &failure) {
  if (feed_ && k > 0 && !viewFrame(k)) {
    lk.unlock();
    record(false, true);
    lk.lock();
  }
  if (feed_) {
    hsu_log(hsLOG_INFO, "online viewer: %ld frames delivered, %ld replaced by newer ones",
            feed_->delivered(), feed_->replaced());
  }
  if (active_) {
    wallTime_ += std::chrono::duration<double>(Clock::now() - activeSince_).count();
    active_ = false;
  }
  bool halting = halting_;
  lk.unlock();
  {
    std::lock_guard<std::mutex> held(pushMutex_);
    held_ = HeldPush();  // a push lasts for its run only
  }
  if (failed != -2) {
    hsu_log(hsLOG_ERROR, "%s", failure.c_str());
  }
  if (!halting) {
    stopControllers(failed >= 0 ? &run_[static_cast<size_t>(failed)] : nullptr);
  }
  for (RunCamera &c : cams_) {
    if (c.csv) {
      std::fclose(c.csv);
      c.csv = nullptr;
    }
  }
  lk.lock();
  state_ = failed != -2 ? hrpsim::FAILED : hrpsim::FINISHED;
  message_ = failed != -2 ? failure : std::string();
  cv_.notify_all();
  hsu_log(hsLOG_INFO, "run %s at t = %s s after %lld steps", failed != -2 ? "failed" : "ended",
          timeText(time).c_str(), k);
}

// one remote call on a controller; on failure fill failure and return false
bool SchedulerServant::callController(RunController &c, const char *op, double t,
                                      std::string &failure) {
  try {
    switch (op[0]) {
      case 'i':
        c.ref->input();
        break;
      case 'c':
        c.ref->control();
        break;
      default:
        c.ref->output();
        break;
    }
    return true;
  } catch (const CORBA::Exception &e) {
    failure = format("controller '%s' failed at t = %s s: %s", c.name.c_str(),
                     timeText(t).c_str(), remoteFailure(op, e, timeoutMs_ / 1000.0).c_str());
    return false;
  }
}

// a one-call controller's tick at step count k, time t: its character's sensor state in, its
// command kept for writeCommand; on failure fill failure and return false
bool SchedulerServant::tickController(RunController &c, long long k, double t,
                                      std::string &failure) {
  hrpsim::ControllerInput &in = c.input;
  in.time = t;
  in.steps = k;
  if (c.ch >= 0) {
    wire::sensorStateInto(sim_.get(), c.ch, in.sensors);
  }
  try {
    c.command = c.oneCall->tick(in);
    return true;
  } catch (const CORBA::Exception &e) {
    failure = format("controller '%s' failed at t = %s s: %s", c.name.c_str(),
                     timeText(t).c_str(), remoteFailure("tick", e, timeoutMs_ / 1000.0).c_str());
    return false;
  }
}

// write the command the controller's tick returned (as its output()'s
// setCharacterAllLinkData); a bad one fails the run
bool SchedulerServant::writeCommand(RunController &c, double t, std::string &failure) {
  std::unique_ptr<hrpsim::JointCommand> cmd(c.command._retn());
  if (!cmd || cmd->values.length() == 0) {
    return true;
  }
  hsError err = {};
  if (c.ch < 0) {
    HS_ERR(&err, hsE_INVALID, "a command, but the controller has no character");
  } else if (cmd->type != DS::JOINT_VALUE && cmd->type != DS::JOINT_TORQUE) {
    HS_ERR(&err, hsE_INVALID, "command type %d: JOINT_VALUE or JOINT_TORQUE",
           static_cast<int>(cmd->type));
  } else {
    SimLock core(sim_);
    wire::setAllLinkData(sim_.get(), c.ch, cmd->type, cmd->values, &err);
  }
  if (err.code < 0) {
    failure = format("controller '%s' failed at t = %s s: tick's command: %s", c.name.c_str(),
                     timeText(t).c_str(), err.message);
    return false;
  }
  return true;
}

// stop() on every started controller but failed (best effort, short timeout)
void SchedulerServant::stopControllers(const RunController *failed) {
  CORBA::ULong ms = static_cast<CORBA::ULong>(std::min<unsigned long>(timeoutMs_, 2000));
  for (RunController &c : run_) {
    if (&c == failed || !c.started || CORBA::is_nil(c.ref)) {
      continue;
    }
    try {
      omniORB::setClientCallTimeout(c.ref, ms);
      c.ref->stop();
    } catch (const CORBA::Exception &e) {
      hsu_log(hsLOG_WARNING, "controller '%s': stop() failed: %s", c.name.c_str(),
              remoteFailure("stop", e, ms / 1000.0).c_str());
    }
    c.started = false;
  }
}

// whether a viewer frame is due at step count k: the run's viewer stream at the view rate
// (which a client may change during the run); loop thread only
bool SchedulerServant::viewFrame(long long k) {
  double rate = viewRate_.load();
  if (rate != viewStreamRate_) {
    hs_runSetFrameRate(plan_, viewStream_, rate, nullptr);
    viewStreamRate_ = rate;
  }
  return hs_runFrameDue(plan_, viewStream_, k) >= 0;
}

// before a step (core locked, mutex_ not held): the push held pulls its point towards its target
// (PushSpec: spring and damper on the point as the last step left it, at most maxForce), added
// to the link's pending EXTERNAL_FORCE (what a controller set this tick stays: the two add);
// the run logs the wrench applied (hs_runSetPush)
void SchedulerServant::applyPush() {
  HeldPush h;
  {
    std::lock_guard<std::mutex> held(pushMutex_);
    h = held_;
  }
  hs_runSetPush(plan_, -1, -1, nullptr);
  if (!h.on) {
    return;
  }
  hsSim *sim = sim_.get();
  const double *p = hs_linkP(sim, h.ch) + 3 * h.link;
  const double *R = hs_linkR(sim, h.ch) + 9 * h.link;
  const hsdLinkMotion &m = hs_linkMotions(sim, h.ch)[h.link];
  double r[3], w[6], norm = 0.0;
  for (int i = 0; i < 3; i++) {
    r[i] = R[3 * i] * h.point[0] + R[3 * i + 1] * h.point[1] + R[3 * i + 2] * h.point[2];
  }
  // the point's velocity v + w x r, then the force on it
  double wr[3] = {m.w[1] * r[2] - m.w[2] * r[1], m.w[2] * r[0] - m.w[0] * r[2],
                  m.w[0] * r[1] - m.w[1] * r[0]};
  for (int i = 0; i < 3; i++) {
    w[i] = h.stiffness * (h.target[i] - (p[i] + r[i])) - h.damping * (m.v[i] + wr[i]);
    norm += w[i] * w[i];
  }
  norm = std::sqrt(norm);
  if (norm > h.maxForce) {
    for (int i = 0; i < 3; i++) {
      w[i] *= h.maxForce / norm;
    }
  }
  w[3] = r[1] * w[2] - r[2] * w[1];  // torque about the link origin: r x f
  w[4] = r[2] * w[0] - r[0] * w[2];
  w[5] = r[0] * w[1] - r[1] * w[0];
  const double *pending = hs_externalForces(sim, h.ch) + 6 * h.link;
  double total[6];
  for (int i = 0; i < 6; i++) {
    total[i] = pending[i] + w[i];
  }
  hsError err = {};
  if (hs_setLinkData(sim, h.ch, h.link, hsDATA_EXTERNAL_FORCE, total, 6, &err) < 0) {
    hsu_log(hsLOG_WARNING, "push on '%s' '%s' not applied: %s", hs_characterName(sim, h.ch),
            hs_linkName(sim, h.ch, h.link), err.message);
    return;
  }
  hs_runSetPush(plan_, h.ch, h.link, w);
}

// the current state: a log record when log and the count is a log step (the core's,
// hs_runLog), the world state handed to the viewer's feed when frame
void SchedulerServant::record(bool log, bool frame) {
  if (log) {
    hsError err = {};
    if (hs_runLog(plan_, &err) < 0) {
      hsu_log(hsLOG_ERROR, "the log lost a record: %s", err.message);
    }
  }
  if (!frame) {
    return;
  }
  std::shared_ptr<ViewerFeed> feed;
  {
    std::lock_guard<std::mutex> lk(mutex_);
    feed = feed_;
  }
  if (feed) {
    feed->push(wire::worldState(sim_.get()));
  }
}

}  // namespace hrpsim
