// sim_core.h - SimCore: one simulation (an hsdWorld and the bodies it borrows), the plain core
// under every front door. The DynamicsSimulator servant validates and converts a request and
// calls it; the scheduler calls the same object directly (no CORBA in between) and gets
// hsErrors back. Nothing here knows about IDL types: wire.h converts.
//
// Locking: a SimCore is used from several threads (omniORB's request threads, the scheduler's
// loop). Every call is made holding SimCore::Lock, which takes the core's own mutex and then
// the process-wide ODE lock (ODE's process-wide state: the random generator each world saves
// and restores around its step, the error handlers): one order, instance then ODE, everywhere.
//
// Simulated time is counted in one place: the world counts steps and time (time += dt per
// step), and periodSteps / stepsToReach below turn periods and times into whole steps with one
// tolerance, for the servants and the scheduler alike.

#ifndef HRPSIM_SERVER_COMMON_SIM_CORE_H_
#define HRPSIM_SERVER_COMMON_SIM_CORE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "body_info.h"
#include "dynamics.h"
#include "sensors.h"

namespace hrpsim {

// the process-wide lock held around every call into hsd_* (see the file comment)
std::mutex &odeMutex();

// period [s] as a whole number of steps of dt: the count, or 0 when the period is not finite
// and positive or not a whole multiple of dt to within 1e-9 of the period
long long periodSteps(double period, double dt);

// the first step count at which the simulated time reaches t [s] (1e-9 steps of slack for the
// rounding of t / dt); 0 for t <= 0, LLONG_MAX for a time beyond 9e18 steps
long long stepsToReach(double t, double dt);

class SimCore {
 public:
  // the instance lock, then the ODE lock; hold it around every call below
  class Lock {
   public:
    explicit Lock(const SimCore &core) : instance_(core.mutex_), ode_(odeMutex()) {}

   private:
    std::lock_guard<std::mutex> instance_;
    std::lock_guard<std::mutex> ode_;
  };

  // an empty world: time step 1 ms, gravity 9.8 m/s^2 towards -z, sensors off; throws
  // std::bad_alloc if the world cannot be made
  SimCore();
  ~SimCore();
  SimCore(const SimCore &) = delete;
  SimCore &operator=(const SimCore &) = delete;

  //---------------------------------- set-up ------------------------------------------------

  // add a character named name for body (kept alive as long as the core); before start only.
  // Returns its index, or a negative code with err (empty or duplicate name, started already)
  int addCharacter(const char *name, BodyPtr body, hsError *err);

  // time step [s], in [1e-6, 1] (hsdMIN_TIME_STEP, hsdMAX_TIME_STEP)
  int setTimeStep(double dt, hsError *err);

  // sensor readings on or off (off: every reading is zero, as OpenHRP's DISABLE_SENSOR)
  void enableSensors(bool on) { sensors_ = on; }
  bool sensorsEnabled() const { return sensors_; }

  // sensor noise, bias and limits (sensors.h; beyond OpenHRP, off by default): per type, the
  // spec when active[type]; seeds the generators (character index as the stream) and takes
  // effect at start (every start restarts them). hsE_INVALID for a bad spec (nothing changed).
  struct Noise {
    uint64_t seed = 0;
    bool limits = false;
    bool active[hsSENSOR_NTYPES] = {};
    hssNoiseSpec spec[hsSENSOR_NTYPES] = {};
  };
  int setNoise(const Noise &noise, hsError *err);
  const Noise &noise() const { return noise_; }

  // gravitational acceleration, world frame [m/s^2] (finite)
  int setGravity(const double g[3], hsError *err);

  // register a contact / intersection pair by indices (link -1: every link); before start only
  int addContactPair(int ch1, int link1, int ch2, int link2, const hsdSurface &surface,
                     hsError *err);
  int addIntersectionPair(int ch1, int link1, int ch2, int link2, double tolerance,
                          hsError *err);

  // joint stops and rotor inertia (dynamics.h); before start only
  int setJointOptions(bool limits, bool rotorInertia, hsError *err) {
    return hsd_setJointOptions(world_, limits, rotorInertia, err);
  }

  // add an extra joint (hsd_addExtraJoint); before start only
  int addExtraJoint(const char *name, int ch1, int link1, int ch2, int link2, const double p1[3],
                    const double p2[3], hstExtraJoint type, const double axis[3], hsError *err) {
    return hsd_addExtraJoint(world_, name, ch1, link1, ch2, link2, p1, p2, type, axis, err);
  }

  //---------------------------------- running -----------------------------------------------

  // build the simulation from the current states (again: restart from them)
  int start(hsError *err);
  bool started() const { return started_; }

  // one step of the world, then every character's sensor readings (started only)
  int step(hsError *err);

  // simulated time [s], steps since start, time step [s]
  double time() const { return hsd_time(world_); }
  long long steps() const { return hsd_stepCount(world_); }
  double timeStep() const { return hsd_timeStep(world_); }

  //---------------------------------- names -------------------------------------------------

  // index of the character called name; -1 with err naming the characters there are
  int character(const char *name, hsError *err) const;
  // index of the link called name of character ch; -1 with err (also for "")
  int link(int ch, const char *name, hsError *err) const;
  // the same, but "" means every link (*link = -1); 0, or hsE_INVALID with err
  int linkOrAll(int ch, const char *name, int *link, hsError *err) const;
  // index into body->sensors of the sensor called name; -1 with err
  int sensor(int ch, const char *name, hsError *err) const;

  int characterCount() const { return static_cast<int>(chars_.size()); }
  const std::string &name(int ch) const { return chars_[ch].name; }
  const hsBody *body(int ch) const { return chars_[ch].body.get(); }

  //---------------------------------- the world ---------------------------------------------

  // the world, for hsd_* setters and queries (lock held)
  hsdWorld *world() { return world_; }
  const hsdWorld *world() const { return world_; }

  // the sensors of one type of character ch, as indices into body->sensors in sensorId order;
  // *n receives the count
  const int *sensorsOfType(int ch, hstSensor type, int *n) const {
    return hss_sensorsOfType(chars_[ch].sensors.get(), type, n);
  }

  // the reading of sensor s (index into body->sensors) of character ch as size numbers: the
  // last step's, or zeros while sensors are disabled (or the sensor gives fewer)
  void reading(int ch, int s, int size, double *out) const;

  // how many numbers sensor s of character ch reports: force 6, gyro and accelerometer 3, a
  // range sensor its beams (0 while sensors are disabled), others 0
  int readingCount(int ch, int s) const;

  // registered pairs that intersect at the current poses (link poses from the joint values
  // first, as OpenHRP): their hsd_pair indices into hits (all of them, or the first when
  // checkAll is false); started only
  int checkIntersections(bool checkAll, std::vector<int> &hits, hsError *err);

  // the link pairs that intersect at the current poses (hsd_intersectingLinks; link poses
  // from the joint values first, as OpenHRP); started only
  int intersectingLinks(bool checkAll, std::vector<hsdLinkHit> &out, hsError *err);

  // minimum distance of every link pair of the registered pairs (hsd_checkDistances) at the
  // current poses (link poses from the joint values first, as OpenHRP); started only
  int checkDistances(std::vector<hsdDistance> &out, hsError *err);

 private:
  struct Character {
    std::string name;
    BodyPtr body;
    std::unique_ptr<hssState, void (*)(hssState *)> sensors{nullptr, hss_freeState};
  };

  // every character's readings from the world's last step
  void updateSensors();

  mutable std::mutex mutex_;
  // every character's collision geometry for range sensors' rays (made at the first start when
  // some character has a range sensor)
  std::unique_ptr<hssRayScene, void (*)(hssRayScene *)> rays_{nullptr, hss_freeRayScene};
  Noise noise_;
  hsdWorld *world_ = nullptr;
  std::vector<Character> chars_;  // index = character index in the world
  bool sensors_ = false;
  bool started_ = false;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_SIM_CORE_H_
