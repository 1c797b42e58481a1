// sim.h - the simulation core (core/core.h) as the C++ doors hold it: a shared hsSim (the
// DynamicsSimulator servant and the scheduler that hosts it share one) and a scoped lock for
// a door that needs several core calls to see one state. Every core function locks its
// simulation by itself; SimLock only makes a sequence atomic.

#ifndef HRPSIM_SERVER_COMMON_SIM_H_
#define HRPSIM_SERVER_COMMON_SIM_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core.h"
#include "dynamics.h"  // the layouts of the records core.h's queries return (hsdContact, ...)
#include "model.h"
#include "util.h"

namespace hrpsim {

// a simulation shared by its doors; freed with hs_freeSim when the last one lets go
using SimPtr = std::shared_ptr<hsSim>;

// a new, empty simulation (core.h's defaults, then the process's solver defaults below);
// throws std::bad_alloc when it cannot be made
SimPtr makeSim();

// the engine ("" for the core's) and solver settings (name, value as text) every simulation
// makeSim makes from now on starts with (hrpsim-dynamics' --engine, --stepper, ...), checked
// by hs_setSolver on a scratch simulation first: 0, or a negative code with err and nothing
// changed. Call before any request thread runs.
int setSolverDefaults(const std::string &engine,
                      const std::vector<std::pair<std::string, std::string>> &settings,
                      hsError *err);
// a new, empty simulation (core.h's defaults); throws std::bad_alloc when it cannot be made
SimPtr makeSim();

// the hsLIMIT_* bits (dynamics.h) of the joint limits a door's booleans turn on
inline int jointLimitBits(bool position, bool velocity, bool effort) {
  return (position ? hsLIMIT_POSITION : 0) | (velocity ? hsLIMIT_VELOCITY : 0) |
         (effort ? hsLIMIT_EFFORT : 0);
}

// holds the simulation's (recursive) lock for a scope
class SimLock {
 public:
  explicit SimLock(const hsSim *sim) : sim_(sim) { hs_lock(sim_); }
  explicit SimLock(const SimPtr &sim) : SimLock(sim.get()) {}
  ~SimLock() { hs_unlock(sim_); }
  SimLock(const SimLock &) = delete;
  SimLock &operator=(const SimLock &) = delete;

 private:
  const hsSim *sim_;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_SIM_H_
