// sim.cpp - the simulation core as the C++ doors hold it (sim.h).

#include "sim.h"

#include <new>

namespace hrpsim {

SimPtr makeSim() {
  hsError err = {};
  hsSim *sim = hs_makeSim(&err);
  if (!sim) {
    throw std::bad_alloc();
  }
  return SimPtr(sim, hs_freeSim);
}

}  // namespace hrpsim
