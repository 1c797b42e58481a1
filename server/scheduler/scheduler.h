// scheduler.h - the Scheduler and ClockGenerator servants of hrpsim-scheduler: the simulation
// loop that owns the clock, steps a DynamicsSimulator living in this process and ticks every
// controller and OpenRTM execution context at its period (idl/Scheduler.idl; the loop is
// described in scheduler.cpp and docs/architecture.md).
//
// Threads. The loop runs in one thread of its own, started by start() / startPaused() (or by the
// first step() / runUntil() of a READY configuration). Client requests arrive on omniORB's
// threads; they change the configuration and the run's control flags under mutex_, and wait on
// cv_ for the loop to reach what they asked for. The loop holds mutex_ only to read its flags and
// publish its counters between steps, never during a step, so a controller may call status() or
// read the dynamics from inside its own callbacks. Calls that start, stop or reset a run are
// serialised by opMutex_ (taken before mutex_, never while waiting for steps to be done).
//
// The simulation is an hsSim (core/core.h) held here: the loop and the configuration calls use
// it directly, through wire.h's conversions (no CORBA round trip, and errors come back as
// hsErrors), while controllers and clients reach the same core through a DynamicsSimulator
// servant activated in the process's POA (dynamics()). The core's own lock serialises the two
// doors. Names, the time step, the sensor option, steps and time are the core's (status()
// reads them there; the loop counts in a local between ticks).
//
// The run itself is the core's (core.h hsRun, made once the simulation has started): which
// controllers are due at a step count, when the log records, which viewer and camera frames are
// due, the end step; and the log, in the core's buffers, which getLog converts to LogRecords.
//
// Determinism: the loop decides everything from step counts (period steps, log steps, end step);
// wall-clock time is read only to report wallTime and to sleep when paced to real time.

#ifndef HRPSIM_SERVER_SCHEDULER_SCHEDULER_H_
#define HRPSIM_SERVER_SCHEDULER_SCHEDULER_H_

#include <atomic>
#include <chrono>
#include <cstdio>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ClockGenerator.hh"
#include "Scheduler.hh"
#include "dynamics_simulator.h"
#include "view_simulator.h"

namespace hrpsim {

class ViewerFeed;

// the DynamicsSimulator the scheduler hosts over its core: like any other, except that clients
// may not destroy it (it belongs to the scheduler; reset() replaces it)
class HostedDynamics : public DynamicsSimulatorServant {
 public:
  explicit HostedDynamics(SimPtr sim);
  void destroy() override;  // raises NO_PERMISSION (logged)
  // refused (BAD_INV_ORDER, logged): the run's clock is the scheduler's, restore through
  // Scheduler::restoreState
  void restoreState(const hrpsim::StateBytes &state) override;
};

class SchedulerServant : public POA_hrpsim::Scheduler, public DiagnosticsServant {
 public:
  // an IDLE scheduler with a fresh, activated dynamics servant
  SchedulerServant();
  // stops a run in progress (without calling the controllers) and releases the dynamics
  ~SchedulerServant() override;

  // Scheduler (see idl/Scheduler.idl for each operation's contract)
  void reset() override;
  void setTimeStep(CORBA::Double dt) override;
  void setEndTime(CORBA::Double t) override;
  void setIntegrateMethod(OpenHRP::DynamicsSimulator::IntegrateMethod method) override;
  void setSensorOption(OpenHRP::DynamicsSimulator::SensorOption option) override;
  void setGVector(const OpenHRP::DblSequence3 &g) override;
  void addModel(const char *name, const char *url) override;
  void setLinkData(const char *character, const char *link,
                   OpenHRP::DynamicsSimulator::LinkDataType type,
                   const OpenHRP::DblSequence &data) override;
  void setAllJointModes(const char *character,
                        OpenHRP::DynamicsSimulator::JointDriveMode mode) override;
  void addCollisionPair(const hrpsim::CollisionPair &pair) override;
  void addExtraJoint(const hrpsim::ExtraJointSpec &spec) override;
  void setJointOptions(const hrpsim::JointOptions &options) override;
  void setSolver(const char *engine, const hrpsim::SolverSettings &settings) override;
  char *engine() override;
  // the run's whole state (PAUSED), and a state restored into it (PAUSED; the loop takes its
  // step count and time from the core)
  hrpsim::StateBytes *saveState() override;
  void restoreState(const hrpsim::StateBytes &state) override;
  void setJointLimits(CORBA::Boolean position, CORBA::Boolean velocity,
                      CORBA::Boolean effort) override;
  void addController(const hrpsim::ControllerSpec &controller) override;
  void setControllerTimeout(CORBA::Double seconds) override;
  void setLogOptions(const hrpsim::LogOptions &options) override;
  void setSensorNoise(const hrpsim::SensorNoise &noise) override;
  void setRealTime(CORBA::Double factor) override;
  void setOnlineViewer(OpenHRP::OnlineViewer_ptr viewer) override;
  void setViewRate(CORBA::Double hz) override;
  void setCameraOutput(const char *directory) override;
  OpenHRP::ViewSimulator_ptr view() override;
  OpenHRP::DynamicsSimulator_ptr dynamics() override;
  void start() override;
  void startPaused() override;
  void pause() override;
  void resume() override;
  void stop() override;
  void step(CORBA::Long n) override;
  void runUntil(CORBA::Double t) override;
  void push(const hrpsim::PushSpec &p) override;
  void release() override;
  hrpsim::RunStatus *wait(CORBA::Double timeout) override;
  hrpsim::RunStatus *status() override;
  hrpsim::LogRecordSequence *getLog(CORBA::Long from) override;
  // ServerObject: stop a run in progress, then the process
  void shutdown() override;

  // the process is going down: end the run without calling the controllers and release every
  // request waiting on it (main calls this once the ORB's run() has returned)
  void halt();

  // ClockGenerator, forwarded by ClockGeneratorServant: period [s] must be a whole multiple of
  // the current time step (else BAD_PARAM, logged); subscribing again changes the period.
  // Subscriptions belong to the clock, not to a configuration: reset() keeps them; a context
  // whose tick() fails is dropped (as OpenHRP's ClockGenerator does).
  void subscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec, double period);
  void unsubscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec);

 private:
  // a controller of the configuration
  struct ControllerConfig {
    std::string name;       // naming-service name
    std::string character;  // for setModelName
    double period;          // [s]
  };
  // a controller of a run: its reference and its tick in the run
  struct RunController {
    std::string name;
    std::string character;
    double period;
    int tick = -1;  // hs_runAddTick's index
    OpenHRP::Controller_var ref;
    bool started = false;  // start() returned: it gets stop() at the end
    // a hrpsim::OneCallController (asked at start): one tick() per period instead of input,
    // control and output; its character's index (-1: none) and the command tick() returned,
    // written where output() would be called
    hrpsim::OneCallController_var oneCall;
    int ch = -1;
    hrpsim::JointCommand_var command;
    hrpsim::ControllerInput input;  // tick()'s argument, its buffers reused tick after tick
  };
  // a subscribed execution context (immutable once made; the list is copied on write)
  struct Subscription {
    int id;  // 1, 2, ... in subscription order, for messages
    OpenRTM::ExtTrigExecutionContextService_var ec;
    double period;  // [s]
  };
  using SubscriptionList = std::vector<std::shared_ptr<const Subscription>>;
  // a push held on a link (push()), and the wrench it applied in a step
  struct HeldPush {
    bool on = false;
    int ch = -1, link = -1;
    double point[3] = {0, 0, 0};   // link frame [m]
    double target[3] = {0, 0, 0};  // world frame [m]
    double stiffness = 0.0, damping = 0.0, maxForce = 0.0;  // [N/m], [N s/m], [N]
  };
  using Clock = std::chrono::steady_clock;

  // --- helpers (lock requirements in scheduler.cpp) ---
  void requireConfigurable(const char *op);
  void makeDynamics();
  void releaseDynamics();
  void joinLoop(std::unique_lock<std::mutex> &lock);
  void begin(const char *op, bool paused);
  // begin's phases: the state check, the plan (periods in steps), the controllers' references,
  // then the simulation's and the controllers' start (its failure, "" if none)
  void requireReady(const char *op);
  void planRun(const char *op, double dt);
  void resolveControllers(const char *op);
  std::string initRun(const char *op, double timeout);
  void runSteps(const char *op, long long target, std::unique_lock<std::mutex> &opLock);
  void advance(const char *op, std::unique_lock<std::mutex> &opLock,
               const std::function<long long()> &targetOf);
  hrpsim::RunStatus *statusLocked() const;
  // real-time pacing of the loop: anchored at simulated time sim, wall time wall
  struct Pace {
    bool on = false;
    double factor = 0.0, sim = 0.0;
    Clock::time_point wall;
    void follow(double factor, double time);
    void sleep(double time) const;
  };
  // the loop and its phases: wait for work, one tick (steps 1-4), after the step (5), the end
  void loop();
  void idle(std::unique_lock<std::mutex> &lk, long long k);
  bool tick(long long k, double &time, const SubscriptionList &subs, bool &stepped,
            std::string &failure, int &failed);
  void afterStep(long long k, double time, bool viewing);
  void finishRun(std::unique_lock<std::mutex> &lk, long long k, double time, int failed,
                 const std::string &failure);
  bool callController(RunController &c, const char *op, double t, std::string &failure);
  // a one-call controller's tick (before the step) and the writing of its command (after it)
  bool tickController(RunController &c, long long k, double t, std::string &failure);
  bool writeCommand(RunController &c, double t, std::string &failure);
  void stopControllers(const RunController *failed);
  bool viewFrame(long long k);
  std::vector<std::pair<std::string, std::string>> models() const;
  void record(bool log, bool frame);
  std::string makeRun();
  void applyPush();
  // cameras (scheduler_cameras.cpp): the hosted ViewSimulator of a run and its frames
  void makeView(const char *op);
  void releaseView();
  void syncView();
  void renderDueFrames(long long k, double time);

  // --- configuration (mutex_) ---
  std::mutex opMutex_;  // start / stop / reset / step / runUntil / pause / resume, one at a time
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  SimPtr sim_;  // the simulation (the hosted servant shares it)
  std::vector<std::string> urls_;  // per character index: the model's URL (for the viewer)
  HostedDynamics *dyn_ = nullptr;  // our own reference; the POA holds another
  PortableServer::ObjectId_var dynOid_;
  OpenHRP::DynamicsSimulator_var dynRef_;
  double endTime_ = 0.0;
  OpenHRP::DynamicsSimulator::IntegrateMethod method_ = OpenHRP::DynamicsSimulator::EULER;
  std::vector<ControllerConfig> controllers_;
  double timeout_ = 10.0;  // [s]
  double logPeriod_ = 0.0;
  bool logSensors_ = false;
  double realTime_ = 0.0;
  OpenHRP::OnlineViewer_var viewer_;
  std::shared_ptr<ViewerFeed> feed_;  // delivers to viewer_ (nil viewer: none)
  static constexpr double kDefaultViewRate = 30.0;  // frames per second of simulated time
  static constexpr unsigned long kViewerCallTimeoutMs = 5000;  // per load / update call
  std::atomic<double> viewRate_{kDefaultViewRate};  // read by the loop without mutex_
  std::shared_ptr<const SubscriptionList> subscriptions_ = std::make_shared<SubscriptionList>();
  int nextSubscription_ = 1;

  // --- the run (mutex_) ---
  hrpsim::RunState state_ = hrpsim::IDLE;
  std::string message_;
  bool starting_ = false;     // begin() is initialising (state_ shows RUNNING)
  bool freeRunning_ = false;  // run until the end (or a pause), not to stepTarget_
  long long stepTarget_ = 0;  // when not free running: pause once the core's steps reach it
  long long endSteps_ = 0;    // 0: no end time
  bool stopRequested_ = false;
  bool restored_ = false;  // restoreState changed the core's steps: the loop re-reads them
  bool halting_ = false;  // the process is going down: leave the controllers alone
  bool active_ = false;   // the loop is stepping (wallTime accrues)
  Clock::time_point activeSince_;
  double wallTime_ = 0.0;  // [s] of earlier active spans
  std::thread thread_;

  // --- owned by the loop while a run exists (set up by begin before the thread starts) ---
  std::vector<RunController> run_;  // loop-owned while a run exists
  double runEndTime_ = 0.0;    // [s], the configuration's when the run began
  double runLogPeriod_ = 0.0;  // [s]
  bool runLogSensors_ = false;
  int viewStream_ = -1;          // the viewer's frame stream in the run
  double viewStreamRate_ = 0.0;  // its rate as last given to the run
  unsigned long timeoutMs_ = 10000;

  // --- cameras: configuration (mutex_) and the run's (loop-owned while a run exists) ---
  struct RunCamera {
    int index;                // in the view's camera list
    std::string dir;          // where its frames go ("" for none)
    double rate;              // [1/s]
    int stream = -1;          // its frame stream in the run (rate 0 when it stores none)
    std::FILE *csv = nullptr;  // frames.csv
  };
  std::string cameraDir_;
  std::string runCameraDir_;
  ViewSimulatorServant *view_ = nullptr;  // our reference; the POA holds another
  PortableServer::ObjectId_var viewOid_;
  OpenHRP::ViewSimulator_var viewRef_;
  std::vector<RunCamera> cams_;
  Frame frame_;

  // --- the push held (pushMutex_; set by push / release, read by the loop before each step;
  // the run logs the one applied in each step) ---
  std::mutex pushMutex_;
  HeldPush held_;

  // --- the run (core.h hsRun: events and the log; made by initRun, kept until the next begin
  // or reset so that getLog reads the log; the pointer under logMutex_, taken after mutex_
  // when both are held, the log under the core's lock) ---
  std::mutex logMutex_;
  hsRun *plan_ = nullptr;
};

// OpenHRP's ClockGenerator, bound as "ClockGenerator": forwards to the scheduler's clock; its
// refusals (logRequestError in SchedulerServant::subscribe) are its own lastError()
class ClockGeneratorServant : public POA_hrpsim::ClockGenerator, public DiagnosticsServant {
 public:
  // keeps a reference to scheduler (released in the destructor)
  explicit ClockGeneratorServant(SchedulerServant *scheduler);
  ~ClockGeneratorServant() override;

  void subscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec, CORBA::Double period) override;
  void unsubscribe(OpenRTM::ExtTrigExecutionContextService_ptr ec) override;

 private:
  SchedulerServant *scheduler_;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_SCHEDULER_SCHEDULER_H_
