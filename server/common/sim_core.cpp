// sim_core.cpp - SimCore (sim_core.h): the world, the bodies it borrows, name look-ups, the
// sensors' sensorId order, and the step's bookkeeping.

#include "sim_core.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <new>

namespace hrpsim {

std::mutex &odeMutex() {
  static std::mutex m;
  return m;
}

long long periodSteps(double period, double dt) {
  if (!std::isfinite(period) || period <= 0.0 || !(dt > 0.0)) {
    return 0;
  }
  double ratio = period / dt;
  if (!(ratio < 9e18)) {
    return 0;  // beyond any step count (llround would not be defined)
  }
  double n = std::llround(ratio);
  if (n < 1.0 || std::fabs(n * dt - period) > 1e-9 * period) {
    return 0;
  }
  return static_cast<long long>(n);
}

long long stepsToReach(double t, double dt) {
  double n = std::ceil(t / dt - 1e-9);
  if (n >= 9e18) {
    return LLONG_MAX;  // never reached (a cast of a larger double would be undefined)
  }
  return n > 0.0 ? static_cast<long long>(n) : 0;
}

SimCore::SimCore() {
  hsError err = {};
  std::lock_guard<std::mutex> ode(odeMutex());
  world_ = hsd_makeWorld(nullptr, &err);
  if (!world_) {
    throw std::bad_alloc();
  }
}

SimCore::~SimCore() {
  // the world borrows the bodies: free it first (the members, bodies included, go after)
  std::lock_guard<std::mutex> ode(odeMutex());
  hsd_freeWorld(world_);
}

//---------------------------------- set-up ----------------------------------------------------

int SimCore::addCharacter(const char *name, BodyPtr body, hsError *err) {
  if (started_) {
    return HS_ERR(err, hsE_INVALID, "'%s': characters must be registered before the "
                  "simulation starts (initSimulation)", name);
  }
  if (!*name) {
    return HS_ERR(err, hsE_INVALID, "empty character name");
  }
  if (hsd_characterIndex(world_, name) >= 0) {
    return HS_ERR(err, hsE_INVALID, "a character named '%s' is already registered in this "
                  "world (register one body under several names to simulate several copies)",
                  name);
  }
  int index = hsd_addCharacter(world_, name, body.get(), err);
  if (index < 0) {
    return index;
  }
  Character c;
  c.name = name;
  c.sensors.reset(hss_makeState(body.get(), err));
  if (!c.sensors) {
    return hsE_NOMEM;  // the world keeps the character, but the core refuses to go on with it
  }
  c.body = std::move(body);
  const hsBody *b = c.body.get();
  chars_.push_back(std::move(c));
  hsu_log(hsLOG_INFO, "registered character '%s' (body '%s', %d links, %d joints)", name,
          b->name, b->nlink, b->njoint);
  return index;
}

int SimCore::setTimeStep(double dt, hsError *err) {
  return hsd_setTimeStep(world_, dt, err);
}

int SimCore::setGravity(const double g[3], hsError *err) {
  return hsd_setGravity(world_, g, err);
}

int SimCore::addContactPair(int ch1, int link1, int ch2, int link2, const hsdSurface &surface,
                            hsError *err) {
  if (started_) {
    return HS_ERR(err, hsE_INVALID, "collision pairs must be registered before the "
                  "simulation starts (initSimulation)");
  }
  return hsd_addContactPair(world_, ch1, link1, ch2, link2, &surface, err);
}

int SimCore::addIntersectionPair(int ch1, int link1, int ch2, int link2, double tolerance,
                                 hsError *err) {
  if (started_) {
    return HS_ERR(err, hsE_INVALID, "intersection pairs must be registered before the "
                  "simulation starts (initSimulation)");
  }
  return hsd_addIntersectionPair(world_, ch1, link1, ch2, link2, tolerance, err);
}

//---------------------------------- running ---------------------------------------------------

int SimCore::setNoise(const Noise &noise, hsError *err) {
  for (int t = 0; t < hsSENSOR_NTYPES; t++) {
    if (!noise.active[t]) {
      continue;
    }
    if (t != hsSENSOR_FORCE && t != hsSENSOR_RATEGYRO && t != hsSENSOR_ACCELERATION &&
        t != hsSENSOR_RANGE) {
      return HS_ERR(err, hsE_INVALID, "noise applies to force, rate gyro, accelerometer and "
                    "range sensors only");
    }
    for (int j = 0; j < 6; j++) {
      if (!std::isfinite(noise.spec[t].std[j]) || noise.spec[t].std[j] < 0.0 ||
          !std::isfinite(noise.spec[t].bias[j])) {
        return HS_ERR(err, hsE_INVALID, "sensor noise: std %g must be finite and >= 0 and bias "
                      "%g finite", noise.spec[t].std[j], noise.spec[t].bias[j]);
      }
    }
  }
  noise_ = noise;
  return 0;
}

int SimCore::start(hsError *err) {
  int rc = hsd_init(world_, err);
  started_ = rc == 0;
  bool anyRange = false;
  for (size_t ch = 0; ch < chars_.size(); ch++) {
    hssState *st = chars_[ch].sensors.get();
    int n = 0;
    const int *range = hss_sensorsOfType(st, hsSENSOR_RANGE, &n);
    anyRange = anyRange || n > 0;
    for (int i = 0; i < n && rc == 0; i++) {
      const hsSensor &sn = chars_[ch].body->sensors[range[i]];
      double dt = hsd_timeStep(world_), rate = sn.nspecValue > 2 ? sn.specValues[2] : 0.0;
      long period = hss_scanPeriod(&sn, dt);
      if (rate > 0.0 && std::fabs(period * dt * rate - 1.0) > 1e-9) {
        hsu_log(hsLOG_INFO, "character '%s', range sensor '%s': 1 / scanRate (%g Hz) is not a "
                "whole number of %g s steps; it scans every %ld steps (%g Hz)",
                chars_[ch].name.c_str(), sn.name, rate, dt, period, 1.0 / (period * dt));
      }
    }
    hss_clearRange(st);
    const hstSensor noisy[4] = {hsSENSOR_FORCE, hsSENSOR_RATEGYRO, hsSENSOR_ACCELERATION,
                                hsSENSOR_RANGE};
    for (int i = 0; i < 4 && rc == 0; i++) {
      int t = noisy[i];
      if (noise_.active[t] || st->noise) {
        rc = hss_setNoise(st, noisy[i], noise_.active[t] ? &noise_.spec[t] : nullptr,
                          noise_.seed, ch, err);
      }
    }
    if (rc == 0) {
      rc = hss_setLimits(st, noise_.limits ? 1 : 0, err);
    }
  }
  if (rc == 0 && anyRange && !rays_) {
    rays_.reset(hss_makeRayScene(world_, err));
    if (!rays_) {
      rc = hsE_NOMEM;
    }
  }
  started_ = rc == 0;
  updateSensors();
  return rc;
}

int SimCore::step(hsError *err) {
  if (!started_) {
    return HS_ERR(err, hsE_INVALID, "the simulation is not initialised: call initSimulation "
                  "first");
  }
  int rc = hsd_step(world_, err);
  updateSensors();
  return rc;
}

void SimCore::updateSensors() {
  bool due = false;
  for (size_t ch = 0; ch < chars_.size(); ch++) {
    hss_update(chars_[ch].sensors.get(), world_, static_cast<int>(ch));
    due = due || hss_rangeDue(chars_[ch].sensors.get(), world_);
  }
  if (!due || !sensors_ || !rays_ || !started_) {
    return;  // range scans cost rays: only when sensors are on and a scan is due
  }
  hss_syncRayScene(rays_.get(), world_);
  for (size_t ch = 0; ch < chars_.size(); ch++) {
    hss_updateRange(chars_[ch].sensors.get(), world_, static_cast<int>(ch), rays_.get());
  }
}

int SimCore::readingCount(int ch, int s) const {
  int n = 0;
  hss_reading(chars_[ch].sensors.get(), s, &n);
  if (!sensors_ && body(ch)->sensors[s].type == hsSENSOR_RANGE) {
    return 0;
  }
  return n;
}

void SimCore::reading(int ch, int s, int size, double *out) const {
  int n = 0;
  const double *v = sensors_ ? hss_reading(chars_[ch].sensors.get(), s, &n) : nullptr;
  for (int k = 0; k < size; k++) {
    out[k] = v && k < n ? v[k] : 0.0;
  }
}

int SimCore::checkIntersections(bool checkAll, std::vector<int> &hits, hsError *err) {
  if (!started_) {
    return HS_ERR(err, hsE_INVALID, "the simulation is not initialised: call initSimulation "
                  "first");
  }
  hsd_forwardKinematics(world_, -1);
  int npair = hsd_pairCount(world_);
  hits.resize(static_cast<size_t>(npair) + 1);
  int n = hsd_checkIntersections(world_, checkAll ? 1 : 0, hits.data(), npair);
  hits.resize(static_cast<size_t>(std::max(0, std::min(n, npair))));
  return 0;
}

int SimCore::intersectingLinks(bool checkAll, std::vector<hsdLinkHit> &out, hsError *err) {
  if (!started_) {
    return HS_ERR(err, hsE_INVALID, "the simulation is not initialised: call initSimulation "
                  "first");
  }
  hsd_forwardKinematics(world_, -1);
  int n = hsd_intersectingLinks(world_, checkAll ? 1 : 0, out.data(),
                                static_cast<int>(out.size()));
  if (n > static_cast<int>(out.size())) {
    out.resize(static_cast<size_t>(n));
    n = hsd_intersectingLinks(world_, checkAll ? 1 : 0, out.data(), n);
  }
  if (n < 0) {
    return HS_ERR(err, n, "intersection query failed");
  }
  out.resize(static_cast<size_t>(n));
  return 0;
}

int SimCore::checkDistances(std::vector<hsdDistance> &out, hsError *err) {
  if (!started_) {
    return HS_ERR(err, hsE_INVALID, "the simulation is not initialised: call initSimulation "
                  "first");
  }
  hsd_forwardKinematics(world_, -1);
  int n = hsd_checkDistances(world_, out.data(), static_cast<int>(out.size()));
  if (n > static_cast<int>(out.size())) {
    out.resize(static_cast<size_t>(n));
    n = hsd_checkDistances(world_, out.data(), n);
  }
  if (n < 0) {
    return HS_ERR(err, n, "distance query failed");
  }
  out.resize(static_cast<size_t>(n));
  return 0;
}

//---------------------------------- names -----------------------------------------------------

int SimCore::character(const char *name, hsError *err) const {
  int ch = hsd_characterIndex(world_, name);
  if (ch >= 0) {
    return ch;
  }
  std::string known;
  for (const Character &c : chars_) {
    known += (known.empty() ? "'" : ", '") + c.name + "'";
  }
  HS_ERR(err, hsE_INVALID, "unknown character '%s' (registered: %s)", name,
         known.empty() ? "none" : known.c_str());
  return -1;
}

int SimCore::link(int ch, const char *name, hsError *err) const {
  if (!*name) {
    HS_ERR(err, hsE_INVALID, "character '%s': empty link name", chars_[ch].name.c_str());
    return -1;
  }
  int l = -1;
  return linkOrAll(ch, name, &l, err) < 0 ? -1 : l;
}

int SimCore::linkOrAll(int ch, const char *name, int *link, hsError *err) const {
  *link = -1;
  if (!*name) {
    return 0;
  }
  *link = hsm_linkIndex(body(ch), name);
  if (*link < 0) {
    return HS_ERR(err, hsE_INVALID, "character '%s' has no link '%s'", chars_[ch].name.c_str(),
                  name);
  }
  return 0;
}

int SimCore::sensor(int ch, const char *name, hsError *err) const {
  int s = hsm_sensorIndex(body(ch), name);
  if (s < 0) {
    HS_ERR(err, hsE_INVALID, "character '%s' has no sensor '%s'", chars_[ch].name.c_str(), name);
    return -1;
  }
  return s;
}

}  // namespace hrpsim
