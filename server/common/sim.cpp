// sim.cpp - the simulation core as the C++ doors hold it (sim.h).

#include "sim.h"

#include <new>

namespace hrpsim {

namespace {

// the process's solver defaults (setSolverDefaults)
std::string gEngine;
std::vector<std::pair<std::string, std::string>> gSettings;

// apply engine and settings to sim with hs_setSolver
int applySolver(hsSim *sim, const std::string &engine,
                const std::vector<std::pair<std::string, std::string>> &settings,
                hsError *err) {
  std::vector<const char *> names, values;
  for (const auto &s : settings) {
    names.push_back(s.first.c_str());
    values.push_back(s.second.c_str());
  }
  return hs_setSolver(sim, engine.c_str(), static_cast<int>(names.size()), names.data(),
                      values.data(), err);
}

}  // namespace

SimPtr makeSim() {
  hsError err = {};
  hsSim *sim = hs_makeSim(&err);
  if (!sim) {
    throw std::bad_alloc();
  }
  if ((!gEngine.empty() || !gSettings.empty()) && applySolver(sim, gEngine, gSettings, &err)) {
    hsu_log(hsLOG_ERROR, "the server's solver defaults: %s", err.message);  // checked before
  }
  return SimPtr(sim, hs_freeSim);
}

int setSolverDefaults(const std::string &engine,
                      const std::vector<std::pair<std::string, std::string>> &settings,
                      hsError *err) {
  hsSim *scratch = hs_makeSim(err);
  if (!scratch) {
    return hsE_NOMEM;
  }
  int rc = applySolver(scratch, engine, settings, err);
  hs_freeSim(scratch);
  if (rc == 0) {
    gEngine = engine;
    gSettings = settings;
  }
  return rc;
}

}  // namespace hrpsim
