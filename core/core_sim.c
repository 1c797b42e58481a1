// core_sim.c - hsSim (core.h): make / free, locking, set-up, options, start and the step
// sequence, the rules of simulated time, and name look-ups.
//
// The world (dynamics/) keeps the characters' names, bodies and states, time and step count
// and the time step; this file adds what a simulation has beyond the world: owned bodies, the
// sensors' states, the sensor option and noise, the started flag. Range sensors cast their rays
// on the world's own collision scene (hsd_stateScene), with a scratch buffer sized here. Every
// public function that changes or queries the simulation takes its lock (hs_enter); what of ODE
// is process-wide is locked inside dynamics/, so simulations step in parallel.

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core_private.h"

//---------------------------------- process and locks -----------------------------------------

void hs_initProcess(void) {
  hsd_initODE();  // runs once, whoever calls it
}

void hs_enter(const hsSim *sim) {
  pthread_mutex_lock(&((hsSim *)sim)->mutex);
}

void hs_leave(const hsSim *sim) {
  pthread_mutex_unlock(&((hsSim *)sim)->mutex);
}

void hs_lock(const hsSim *sim) {
  pthread_mutex_lock(&((hsSim *)sim)->mutex);
}

void hs_unlock(const hsSim *sim) {
  pthread_mutex_unlock(&((hsSim *)sim)->mutex);
}

hsBody *hs_loadBody(const char *path, hsError *err) {
  // the ModelLoader's loadBodyInfo options: the defaults (no texture images)
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  return hsm_loadModel(path, &opt, NULL, 0, NULL, err);
}

int hs_mjcfScene(const char *path, char *names, size_t size, int *worldGeoms, hsError *err) {
  return hsm_mjcfScene(path, names, size, worldGeoms, err);
}

hsBody *hs_loadBodyWithImages(const char *path, hsError *err) {
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.readImage = 1;
  return hsm_loadModel(path, &opt, NULL, 0, NULL, err);
}

void hs_freeBody(hsBody *body) {
  hsm_freeBody(body);
}

//---------------------------------- make / free -----------------------------------------------

hsSim *hs_makeSim(hsError *err) {
  return hs_makeSimWith(NULL, err);
}

hsSim *hs_makeSimWith(const hsdOptions *opt, hsError *err) {
  hs_initProcess();
  hsSim *sim = hsu_calloc(1, sizeof *sim);
  if (!sim) {
    HS_ERR(err, hsE_NOMEM, "out of memory for a new simulation");
    return NULL;
  }
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&sim->mutex, &a);
  pthread_mutexattr_destroy(&a);
  sim->world = hsd_makeWorld(opt, err);
  if (!sim->world) {
    pthread_mutex_destroy(&sim->mutex);
    hsu_free(sim);
    return NULL;
  }
  return sim;
}

void hs_freeSim(hsSim *sim) {
  if (!sim) {
    return;
  }
  hs_freeCameras(sim->cameras);  // GL work takes the render lock
  hsu_free(sim->fanScratch);
  // the world borrows the bodies: free it first
  hsd_freeWorld(sim->world);
  for (int ch = 0; ch < sim->nchar; ch++) {
    hss_freeState(sim->chars[ch].sensors);
    hsm_freeBody(sim->chars[ch].owned);
  }
  hsu_free(sim->chars);
  hsu_free(sim->hits);
  hsu_free(sim->linkHits);
  hsu_free(sim->dists);
  hsu_free(sim->zeros);
  pthread_mutex_destroy(&sim->mutex);
  hsu_free(sim);
}

//---------------------------------- checks ----------------------------------------------------

int hs_validChar(const hsSim *sim, int ch, hsError *err) {
  if (ch < 0 || ch >= sim->nchar) {
    HS_ERR(err, hsE_INVALID, "no character %d (there are %d)", ch, sim->nchar);
    return 0;
  }
  return 1;
}

int hs_validLink(const hsSim *sim, int ch, int link, hsError *err) {
  if (!hs_validChar(sim, ch, err)) {
    return 0;
  }
  const hsBody *b = hsd_characterBody(sim->world, ch);
  if (link < 0 || link >= b->nlink) {
    HS_ERR(err, hsE_INVALID, "character '%s' has no link %d (it has %d)",
           hsd_characterName(sim->world, ch), link, b->nlink);
    return 0;
  }
  return 1;
}

// hsE_ORDER unless the simulation is still being set up; what names the refused registration
static int requireSetup(const hsSim *sim, const char *what, hsError *err) {
  if (sim->started) {
    return HS_ERR(err, hsE_ORDER, "%s must be registered before initSimulation (the start of "
                  "the simulation)", what);
  }
  return 0;
}

// index of link name of ch, "" meaning every link (-1); 0 or hsE_INVALID
static int linkOrAll(const hsSim *sim, int ch, const char *name, int *link, hsError *err) {
  *link = -1;
  if (!*name) {
    return 0;
  }
  *link = hsm_linkIndex(hsd_characterBody(sim->world, ch), name);
  if (*link < 0) {
    return HS_ERR(err, hsE_INVALID, "character '%s' has no link '%s'",
                  hsd_characterName(sim->world, ch), name);
  }
  return 0;
}

// the characters and links of a pair given by names (links may be "" when all is set)
static int pairByName(const hsSim *sim, const char *char1, const char *link1, const char *char2,
                      const char *link2, int all, int ch[2], int link[2], hsError *err) {
  const char *c[2] = {char1, char2}, *l[2] = {link1, link2};
  for (int k = 0; k < 2; k++) {
    ch[k] = hs_character(sim, c[k], err);
    if (ch[k] < 0) {
      return hsE_INVALID;
    }
    if (all) {
      if (linkOrAll(sim, ch[k], l[k], &link[k], err) < 0) {
        return hsE_INVALID;
      }
    } else if ((link[k] = hs_link(sim, ch[k], l[k], err)) < 0) {
      return hsE_INVALID;
    }
  }
  return 0;
}

//---------------------------------- set-up ----------------------------------------------------

// hs_checkCharacterName without the lock
static int checkName(const hsSim *sim, const char *name, hsError *err) {
  if (!name || !*name) {
    return HS_ERR(err, hsE_INVALID, "empty character name");
  }
  if (hsd_characterIndex(sim->world, name) >= 0) {
    return HS_ERR(err, hsE_INVALID, "a character named '%s' is already registered in this "
                  "world (register one body under several names to simulate several copies)",
                  name);
  }
  return 0;
}

int hs_checkCharacterName(const hsSim *sim, const char *name, hsError *err) {
  hs_enter(sim);
  int rc = checkName(sim, name, err);
  hs_leave(sim);
  return rc;
}

int hs_addCharacter(hsSim *sim, const char *name, hsBody *body, int own, hsError *err) {
  hs_enter(sim);
  int rc = 0;
  hssState *sensors = NULL;
  if (sim->started) {
    rc = HS_ERR(err, hsE_ORDER, "'%s': characters must be registered before initSimulation "
                "(the start of the simulation)", name);
  } else if (checkName(sim, name, err) < 0) {
    rc = hsE_INVALID;
  } else if (!body) {
    rc = HS_ERR(err, hsE_INVALID, "'%s': no body", name);
  } else if (sim->nchar == sim->capChar) {
    int cap = sim->capChar ? 2 * sim->capChar : 4;
    hsCharacter *c = hsu_realloc(sim->chars, (size_t)cap * sizeof *c);
    if (!c) {
      rc = HS_ERR(err, hsE_NOMEM, "out of memory");
    } else {
      sim->chars = c;
      sim->capChar = cap;
    }
  }
  if (rc == 0) {
    sensors = hss_makeState(body, err);
    rc = sensors ? 0 : hsE_NOMEM;
  }
  // the longest reading a disabled sensor shows as zeros
  int longest = 6;
  for (int s = 0; rc == 0 && s < body->nsensor; s++) {
    int nb = hss_rangeBeamCount(&body->sensors[s]);
    longest = nb > longest ? nb : longest;
  }
  if (rc == 0 && longest > sim->nzeros) {
    double *z = hsu_calloc((size_t)longest, sizeof *z);
    if (!z) {
      rc = HS_ERR(err, hsE_NOMEM, "out of memory");
    } else {
      hsu_free(sim->zeros);
      sim->zeros = z;
      sim->nzeros = longest;
    }
  }
  if (rc == 0) {
    rc = hsd_addCharacter(sim->world, name, body, err);
  }
  if (rc < 0) {
    hss_freeState(sensors);
    if (own) {
      hsm_freeBody(body);
    }
    hs_leave(sim);
    return rc;
  }
  sim->chars[sim->nchar].owned = own ? body : NULL;
  sim->chars[sim->nchar].sensors = sensors;
  sim->chars[sim->nchar].hash = 0;
  sim->nchar++;
  hsu_log(hsLOG_INFO, "registered character '%s' (body '%s', %d links, %d joints)", name,
          body->name, body->nlink, body->njoint);
  hs_leave(sim);
  return rc;
}

int hs_addContactPair(hsSim *sim, const char *char1, const char *link1, const char *char2,
                      const char *link2, double staticFriction, double slipFriction,
                      double restitution, double cullingThresh, hsError *err) {
  hs_enter(sim);
  int ch[2], link[2];
  int rc = requireSetup(sim, "collision pairs", err);
  if (rc == 0) {
    rc = pairByName(sim, char1, link1, char2, link2, 1, ch, link, err);
  }
  if (rc == 0) {
    hsdSurface s = {staticFriction, slipFriction, restitution, cullingThresh};
    rc = hsd_addContactPair(sim->world, ch[0], link[0], ch[1], link[1], &s, err);
  }
  hs_leave(sim);
  return rc;
}

int hs_addIntersectionPair(hsSim *sim, const char *char1, const char *link1, const char *char2,
                           const char *link2, double tolerance, hsError *err) {
  hs_enter(sim);
  int ch[2], link[2];
  int rc = requireSetup(sim, "intersection pairs", err);
  if (rc == 0) {
    rc = pairByName(sim, char1, link1, char2, link2, 1, ch, link, err);
  }
  if (rc == 0) {
    rc = hsd_addIntersectionPair(sim->world, ch[0], link[0], ch[1], link[1], tolerance, err);
  }
  hs_leave(sim);
  return rc;
}

int hs_addExtraJoint(hsSim *sim, const char *name, const char *char1, const char *link1,
                     const char *char2, const char *link2, const double p1[3],
                     const double p2[3], int type, const double axis[3], hsError *err) {
  hs_enter(sim);
  int ch[2], link[2];
  int rc = 0;
  if (sim->started) {
    rc = HS_ERR(err, hsE_ORDER, "'%s': extra joints must be registered before initSimulation "
                "(the start of the simulation)", name);
  }
  if (rc == 0) {
    rc = pairByName(sim, char1, link1, char2, link2, 0, ch, link, err);
  }
  if (rc == 0 && (type < hsEXTRA_XYZ || type > hsEXTRA_Z)) {
    rc = HS_ERR(err, hsE_INVALID, "'%s': unknown ExtraJointType %d", name, type);
  }
  if (rc == 0) {
    rc = hsd_addExtraJoint(sim->world, name, ch[0], link[0], ch[1], link[1], p1, p2,
                           (hstExtraJoint)type, axis, err);
  }
  hs_leave(sim);
  return rc;
}

int hs_setJointOptions(hsSim *sim, int jointLimits, int rotorInertia, hsError *err) {
  hs_enter(sim);
  int rc = hsd_setJointOptions(sim->world, jointLimits, rotorInertia, err);
  hs_leave(sim);
  return rc;
}

int hs_setJointLimits(hsSim *sim, int jointLimits, hsError *err) {
  hs_enter(sim);
  int rc = hsd_setJointLimits(sim->world, jointLimits, err);
  hs_leave(sim);
  return rc;
}

int hs_setSolver(hsSim *sim, const char *engine, int n, const char *const *names,
                 const char *const *values, hsError *err) {
  hs_enter(sim);
  int rc = 0;
  if (sim->started) {
    rc = HS_ERR(err, hsE_ORDER, "the engine and solver settings must be set before the "
                "simulation starts (initSimulation)");
  } else {
    hsdOptions opt = *hsd_options(sim->world);
    rc = hsd_applySolverSettings(&opt, engine, n, names, values, err);
    if (rc == 0) {
      rc = hsd_setSolver(sim->world, &opt, err);
    }
  }
  hs_leave(sim);
  return rc;
}

const char *hs_engine(const hsSim *sim) {
  return hsd_engineName(hsd_options(sim->world)->engine);
}

int hs_solverSetting(hsSim *sim, const char *name, char *value, int len, hsError *err) {
  char range[80];
  if (!name || !value || len < 1) {
    return HS_ERR(err, hsE_INVALID, "no setting name or no room for its value");
  }
  hs_enter(sim);
  int rc = hsd_solverSettingText(hsd_options(sim->world), name, value, (size_t)len, range,
                                 sizeof range);
  hs_leave(sim);
  if (rc < 0) {
    return HS_ERR(err, hsE_INVALID, "'%s' is not a solver setting", name);
  }
  return 0;
}

int hs_setSleep(hsSim *sim, int on, hsError *err) {
  hs_enter(sim);
  int rc = hsd_setSleep(sim->world, on, err);
  hs_leave(sim);
  return rc;
}

int hs_sleeping(hsSim *sim, int ch) {
  hs_enter(sim);
  int rc = hsd_sleeping(sim->world, ch);
  hs_leave(sim);
  return rc;
}

//---------------------------------- options ---------------------------------------------------

int hs_setTimeStep(hsSim *sim, double dt, hsError *err) {
  hs_enter(sim);
  int rc = hsd_setTimeStep(sim->world, dt, err);
  hs_leave(sim);
  return rc;
}

double hs_timeStep(const hsSim *sim) {
  hs_enter(sim);
  double dt = hsd_timeStep(sim->world);
  hs_leave(sim);
  return dt;
}

int hs_setIntegrateMethod(hsSim *sim, int method, hsError *err) {
  hs_enter(sim);
  int rc = hsd_setIntegrator(sim->world, method, err);
  hs_leave(sim);
  return rc;
}

int hs_integrateMethod(const hsSim *sim) {
  hs_enter(sim);
  int method = hsd_integrator(sim->world);
  hs_leave(sim);
  return method;
}

double hs_minTimeStep(void) {
  return hsdMIN_TIME_STEP;
}

double hs_maxTimeStep(void) {
  return hsdMAX_TIME_STEP;
}

int hs_setGravity(hsSim *sim, const double g[3], hsError *err) {
  hs_enter(sim);
  int rc = hsd_setGravity(sim->world, g, err);
  hs_leave(sim);
  return rc;
}

void hs_gravity(const hsSim *sim, double g[3]) {
  hs_enter(sim);
  hsd_gravity(sim->world, g);
  hs_leave(sim);
}

void hs_enableSensors(hsSim *sim, int on) {
  hs_enter(sim);
  sim->sensors = on ? 1 : 0;
  hs_leave(sim);
}

int hs_sensorsEnabled(const hsSim *sim) {
  return sim->sensors;
}

int hs_setNoise(hsSim *sim, const hsNoise *noise, hsError *err) {
  for (int t = 0; t < hsSENSOR_NTYPES; t++) {
    if (!noise->active[t]) {
      continue;
    }
    if (!hsm_sensorType((hstSensor)t)->noisy) {
      return HS_ERR(err, hsE_INVALID, "noise applies to force, rate gyro, accelerometer and "
                    "range sensors only");
    }
    for (int j = 0; j < 6; j++) {
      if (!isfinite(noise->std[t][j]) || noise->std[t][j] < 0.0 ||
          !isfinite(noise->bias[t][j])) {
        return HS_ERR(err, hsE_INVALID, "sensor noise: std %g must be finite and >= 0 and bias "
                      "%g finite", noise->std[t][j], noise->bias[t][j]);
      }
    }
  }
  hs_enter(sim);
  sim->noise = *noise;
  hs_leave(sim);
  return 0;
}

const hsNoise *hs_noise(const hsSim *sim) {
  return &sim->noise;
}

//---------------------------------- running ---------------------------------------------------

// every character's readings from the world's last step, then the range scans that are due
static void updateSensors(hsSim *sim) {
  int due = 0;
  for (int ch = 0; ch < sim->nchar; ch++) {
    hss_update(sim->chars[ch].sensors, sim->world, ch);
    due = due || hss_rangeDue(sim->chars[ch].sensors, sim->world);
  }
  if (!due || !sim->sensors || !sim->fanScratch || !sim->started) {
    return;  // range scans cost rays: only when sensors are on and a scan is due
  }
  // the world's scene at the poses the state holds (what every other sensor reads)
  const hscScene *scene = hsd_stateScene(sim->world);
  for (int ch = 0; ch < sim->nchar; ch++) {
    hss_updateRange(sim->chars[ch].sensors, sim->world, ch, scene, sim->fanScratch);
  }
}

// note a range sensor whose 1 / scanRate is not a whole number of steps
static void noteScanPeriod(const hsSim *sim, int ch, const hsSensor *sn) {
  double dt = hsd_timeStep(sim->world), rate = sn->nspecValue > 2 ? sn->specValues[2] : 0.0;
  long period = hss_scanPeriod(sn, dt);
  if (rate > 0.0 && fabs((double)period * dt * rate - 1.0) > 1e-9) {
    hsu_log(hsLOG_INFO, "character '%s', range sensor '%s': 1 / scanRate (%g Hz) is not a "
            "whole number of %g s steps; it scans every %ld steps (%g Hz)",
            hsd_characterName(sim->world, ch), sn->name, rate, dt, period,
            1.0 / ((double)period * dt));
  }
}

int hs_start(hsSim *sim, hsError *err) {
  hs_enter(sim);
  int rc = hsd_init(sim->world, err);
  sim->started = rc == 0;
  int anyRange = 0;
  for (int ch = 0; ch < sim->nchar; ch++) {
    hssState *st = sim->chars[ch].sensors;
    const hsBody *body = hsd_characterBody(sim->world, ch);
    int n = 0;
    const int *range = hss_sensorsOfType(st, hsSENSOR_RANGE, &n);
    anyRange = anyRange || n > 0;
    for (int i = 0; i < n && rc == 0; i++) {
      noteScanPeriod(sim, ch, &body->sensors[range[i]]);
    }
    hss_clearRange(st);
    for (int t = 0; t < hsSENSOR_NTYPES && rc == 0; t++) {
      if (hsm_sensorType((hstSensor)t)->noisy && (sim->noise.active[t] || st->noise)) {
        hssNoiseSpec spec;
        memcpy(spec.std, sim->noise.std[t], sizeof spec.std);
        memcpy(spec.bias, sim->noise.bias[t], sizeof spec.bias);
        rc = hss_setNoise(st, (hstSensor)t, sim->noise.active[t] ? &spec : NULL,
                          sim->noise.seed, (uint64_t)ch, err);
      }
    }
    if (rc == 0) {
      rc = hss_setLimits(st, sim->noise.limits ? 1 : 0, err);
    }
  }
  if (rc == 0 && anyRange) {
    rc = hs_sizeFanScratch(sim, err);
  }
  sim->started = rc == 0;
  updateSensors(sim);
  hs_leave(sim);
  return rc;
}

int hs_sizeFanScratch(hsSim *sim, hsError *err) {
  const hscScene *scene = hsd_stateScene(sim->world);
  if (!scene || hsc_fanScratchSize(scene) <= sim->nfanScratch) {
    return 0;
  }
  int n = hsc_fanScratchSize(scene);
  int *scratch = hsu_calloc((size_t)n, sizeof *scratch);
  if (!scratch) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for the range sensors' rays");
  }
  hsu_free(sim->fanScratch);
  sim->fanScratch = scratch;
  sim->nfanScratch = n;
  return 0;
}

int hs_started(const hsSim *sim) {
  return sim->started;
}

// one step under the locks
static int stepLocked(hsSim *sim, hsError *err) {
  if (!sim->started) {
    return HS_ERR(err, hsE_ORDER, "the simulation is not initialised: call initSimulation "
                  "first");
  }
  int rc = hsd_step(sim->world, err);
  updateSensors(sim);
  return rc;
}

int hs_step(hsSim *sim, hsError *err) {
  hs_enter(sim);
  int rc = stepLocked(sim, err);
  hs_leave(sim);
  return rc;
}

int hs_stepN(hsSim *sim, long long n, hsError *err) {
  hs_enter(sim);
  int rc = 0;
  for (long long i = 0; i < n && rc == 0; i++) {
    rc = stepLocked(sim, err);
  }
  hs_leave(sim);
  return rc;
}

double hs_time(const hsSim *sim) {
  hs_enter(sim);
  double t = hsd_time(sim->world);
  hs_leave(sim);
  return t;
}

long long hs_steps(const hsSim *sim) {
  hs_enter(sim);
  long long n = hsd_stepCount(sim->world);
  hs_leave(sim);
  return n;
}

double hs_runawayMaxPosition(void) {
  return hsd_runawayMaxPosition();
}

double hs_runawayMaxSpeed(void) {
  return hsd_runawayMaxSpeed();
}

int hs_runawayMessage(char *out, int size, const char *name, const char *when, long long steps) {
  char none[1];
  return hsd_runawayMessage(out && size > 0 ? out : none, out && size > 0 ? (size_t)size : 1,
                            name, when, (long)steps);
}

int hs_runaway(const hsSim *sim) {
  hs_enter(sim);
  int ch = hsd_runaway(sim->world);
  hs_leave(sim);
  return ch;
}

int hs_warningCount(const hsSim *sim) {
  hs_enter(sim);
  int n = hsd_warningCount(sim->world);
  hs_leave(sim);
  return n;
}

//---------------------------------- simulated time --------------------------------------------

long long hs_periodSteps(double period, double dt) {
  if (!isfinite(period) || period <= 0.0 || !(dt > 0.0)) {
    return 0;
  }
  double ratio = period / dt;
  if (!(ratio < 9e18)) {
    return 0;  // beyond any step count (llround would not be defined)
  }
  double n = (double)llround(ratio);
  if (n < 1.0 || fabs(n * dt - period) > 1e-9 * period) {
    return 0;
  }
  return (long long)n;
}

long long hs_stepsToReach(double t, double dt) {
  double n = ceil(t / dt - 1e-9);
  if (n >= 9e18) {
    return LLONG_MAX;  // never reached (a cast of a larger double would be undefined)
  }
  return n > 0.0 ? (long long)n : 0;
}

//---------------------------------- names -----------------------------------------------------

int hs_characterCount(const hsSim *sim) {
  return sim->nchar;
}

const char *hs_characterName(const hsSim *sim, int ch) {
  return ch >= 0 && ch < sim->nchar ? hsd_characterName(sim->world, ch) : NULL;
}

const hsBody *hs_body(const hsSim *sim, int ch) {
  return ch >= 0 && ch < sim->nchar ? hsd_characterBody(sim->world, ch) : NULL;
}

int hs_character(const hsSim *sim, const char *name, hsError *err) {
  int ch = name ? hsd_characterIndex(sim->world, name) : -1;
  if (ch >= 0) {
    return ch;
  }
  char known[400] = "";
  size_t len = 0;
  for (int c = 0; c < sim->nchar && len < sizeof known; c++) {
    int k = snprintf(known + len, sizeof known - len, "%s'%s'", c ? ", " : "",
                     hsd_characterName(sim->world, c));
    len += k > 0 ? (size_t)k : 0;
  }
  HS_ERR(err, hsE_INVALID, "unknown character '%s' (registered: %s)", name ? name : "(null)",
         sim->nchar ? known : "none");
  return -1;
}

int hs_link(const hsSim *sim, int ch, const char *name, hsError *err) {
  if (!hs_validChar(sim, ch, err)) {
    return -1;
  }
  if (!name || !*name) {
    HS_ERR(err, hsE_INVALID, "character '%s': empty link name",
           hsd_characterName(sim->world, ch));
    return -1;
  }
  int l = -1;
  return linkOrAll(sim, ch, name, &l, err) < 0 ? -1 : l;
}

int hs_sensor(const hsSim *sim, int ch, const char *name, hsError *err) {
  if (!hs_validChar(sim, ch, err)) {
    return -1;
  }
  int s = name ? hsm_sensorIndex(hsd_characterBody(sim->world, ch), name) : -1;
  if (s < 0) {
    HS_ERR(err, hsE_INVALID, "character '%s' has no sensor '%s'",
           hsd_characterName(sim->world, ch), name ? name : "(null)");
    return -1;
  }
  return s;
}

int hs_linkCount(const hsSim *sim, int ch) {
  const hsBody *b = hs_body(sim, ch);
  return b ? b->nlink : 0;
}

int hs_jointIdCount(const hsSim *sim, int ch) {
  const hsBody *b = hs_body(sim, ch);
  return b ? b->njoint : 0;
}

const char *hs_linkName(const hsSim *sim, int ch, int link) {
  const hsBody *b = hs_body(sim, ch);
  return b && link >= 0 && link < b->nlink ? b->links[link].name : NULL;
}

int hs_linkParent(const hsSim *sim, int ch, int link) {
  const hsBody *b = hs_body(sim, ch);
  return b && link >= 0 && link < b->nlink ? b->links[link].parent : -1;
}

int hs_hasJoint(const hsSim *sim, int ch, int link) {
  const hsBody *b = hs_body(sim, ch);
  return b && link > 0 && link < b->nlink ? hsm_hasOneDofJoint(&b->links[link]) : 0;
}

const char *hs_jointType(const hsSim *sim, int ch, int link) {
  const hsBody *b = hs_body(sim, ch);
  return b && link >= 0 && link < b->nlink ? hsm_jointTypeName(b->links[link].jointType) : NULL;
}

const int *hs_jointLinks(const hsSim *sim, int ch) {
  const hsBody *b = hs_body(sim, ch);
  return b ? b->jointLink : NULL;
}
