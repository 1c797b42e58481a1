// sensors.h - hssState: the readings of a character's body sensors (OpenHRP's force sensors, rate
// gyros and accelerometers), computed after each step from what the dynamics provides.
//
// A sensor state belongs to one character of one world (it borrows the body, which must outlive
// it) and holds the readings of the body's sensors after the last step, and their order on the
// wire (each type in sensorId order). hss_update computes them from the world alone (no history
// of its own): link poses (hsd_state), link velocities at the end and at the start of the step
// (hsd_linkMotion), gravity and the time step, and the joint wrenches (hsd_jointWrench). All
// readings are in the sensor frame (the sensor's rotation in its link frame):
// - force (6): the force then the moment about the sensor origin of what the sensor's link and
//   everything beyond it exert on its parent;
// - rate gyro (3): the link's angular velocity;
// - accelerometer (3): the sensor point's acceleration over the step minus gravity, i.e.
//   (0, 0, +9.8) at rest z-up: the change of the point's velocity over the step divided by dt
//   (with ODE's semi-implicit Euler this is exactly the acceleration the step applied);
// - range (one number per beam, sensors_range.c): OpenHRP's fan of rays, scanned through the
//   collision library at the sensor's scanRate and held between scans (hss_updateRange);
// - vision: nothing here (images come from the renderer).
// Before the first step every force, gyro and accelerometer reading is zero. Optional noise,
// bias and limits (sensors_noise.c, off by default) act on the readings as they are made.

#ifndef HRPSIM_SENSORS_SENSORS_H_
#define HRPSIM_SENSORS_SENSORS_H_

#include <stdint.h>

#include "collision.h"
#include "dynamics.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- types -----------------------------------------------------

// the readings of one character's sensors; make with hss_makeState
typedef struct hssState {
  const hsBody *body;  // borrowed; must outlive the state
  double *readings;    // 6 per sensor (body->sensors order); the first nreading[s] are used
  int *nreading;       // numbers sensor s reports: force 6, gyro and accelerometer 3, else 0
  double (*R)[9];      // per sensor: its frame's orientation in its link's frame
  int *order;          // sensor indices grouped by type, each group in sensorId order
  int typeAdr[hsSENSOR_NTYPES];    // where each type's group starts in order
  int typeCount[hsSENSOR_NTYPES];  // how many sensors each type has
  struct hssRange *range;  // range sensors' beams and held scans (sensors_range.c); owned
  struct hssNoise *noise;  // noise, bias and limits (sensors_noise.c); owned, NULL: none
} hssState;

//---------------------------------- make / free -----------------------------------------------

// a state for the sensors of body, readings zero; free with hss_freeState. NULL with err (no
// memory, no body).
hssState *hss_makeState(const hsBody *body, hsError *err);

// release a state; NULL is a no-op
void hss_freeState(hssState *s);

//---------------------------------- readings --------------------------------------------------

// compute every reading of s from character ch of w after its last step (zeros before the first
// step); ch's body must be s's. No allocation.
void hss_update(hssState *s, const hsdWorld *w, int ch);

// the reading of sensor (index into body->sensors) and, in *n (may be NULL), how many numbers
// it has; NULL (and *n = 0) for a bad index
const double *hss_reading(const hssState *s, int sensor, int *n);

// the sensors of one type as indices into body->sensors, in sensorId order (OpenHRP's order in
// SensorState); *n receives the count
const int *hss_sensorsOfType(const hssState *s, hstSensor type, int *n);

//---------------------------------- range sensors (sensors_range.c) --------------------------
// A RangeSensor's specValues are scanAngle [rad], scanStep [rad], scanRate [Hz], maxDistance
// [m]. As OpenHRP (hrpModel's WorldBase::updateRangeSensor): half = (int)(scanAngle / 2 /
// scanStep) (truncated, on the float specValues), 2 half + 1 beams; beam i (0-based) has angle
// a = (i - half) scanStep and direction (-sin a, 0, -cos a) in the sensor frame (the sensor looks
// along its -z, the fan turns about its y, beam 0 at the -a end, i.e. towards +x); each reading
// is the distance to the first surface facing the ray over every link of every character, or 0
// ("no hit"). Scans are taken at step counts that are multiples of the scan period
// round(1 / (scanRate dt)) steps (at least 1; every step for a scanRate <= 0), step 0 included,
// from the poses at that step; the reading is held between scans.

// number of beams of a range sensor (0 for other types or bad specValues)
int hss_rangeBeamCount(const hsSensor *sn);

// a range sensor's scan period in steps of dt (the schedule above; at least 1)
long hss_scanPeriod(const hsSensor *sn, double dt);

// cast a fan of nbeam rays (OpenHRP's directions above, angle step scanStep, centred on beam
// nbeam / 2) from p with sensor orientation R (world frame, row-major) over scene (read only, at
// its poses as they are: e.g. the world's, hsd_stateScene) into out: distance to the first hit,
// or 0. scratch: hsc_fanScratchSize(scene) ints of the caller's. No allocation.
void hss_castFan(const hscScene *scene, int *scratch, const double p[3], const double R[9],
                 double scanStep, int nbeam, double *out);

// 1 if some range sensor of s scans at w's current step (sensors_range.c's schedule)
int hss_rangeDue(const hssState *s, const hsdWorld *w);

// take the due scans of s's range sensors from character ch of w on scene (w's collision
// scene at the state's poses, hsd_stateScene; scratch: hsc_fanScratchSize(scene) ints), noise
// and limits applied; others keep their last scan. No allocation.
void hss_updateRange(hssState *s, const hsdWorld *w, int ch, const hscScene *scene,
                     int *scratch);

// forget the held scans (every range reading back to zeros, as before any scan)
void hss_clearRange(hssState *s);

//---------------------------------- saved states (sensors_state.c) ---------------------------

// everything of s that changes (the readings, the held range scans, the noise generators'
// states and settings) appended to out
void hss_saveState(const hssState *s, hsuBytes *out);

// s back to what hss_saveState wrote for a state of the same body, read from in; hsE_INVALID
// (in->bad set) for another body's, hsE_NOMEM
int hss_restoreState(hssState *s, hsuBytes *in, hsError *err);

//---------------------------------- noise and limits (sensors_noise.c) -----------------------
// Beyond OpenHRP, off by default. Per sensor type (force, rate gyro, accelerometer, range): a
// constant bias and Gaussian noise of standard deviation std per component (force: 6, gyro and
// accelerometer: 3, range: [0] for every beam), reading = true + bias + std N(0, 1). Each sensor
// draws from its own generator seeded from (seed, stream, sensor index), so runs with the same
// seeds give the same bits. Limits (hss_setLimits): each force/gyro/accelerometer component is
// clamped to +-its specValues maximum (Force: maxForce 3 then maxTorque 3; RateGyro:
// maxAngularVelocity 3; Acceleration: maxAcceleration 3; a negative maximum means no limit),
// after noise; a range hit beyond maxDistance reads 0 ("no hit"). Range noise applies to hits
// only, after the limit; a scan held between scans keeps its noise.

// noise and bias of one sensor type
typedef struct hssNoiseSpec {
  double std[6];   // standard deviation per component (range: std[0]) [reading units]
  double bias[6];  // constant offset per component (range: bias[0])
} hssNoiseSpec;

// set (spec not NULL) or clear (NULL) the noise of every sensor of type on s; seed and stream
// (e.g. the character index) choose the generators, which restart. hsE_INVALID for a bad type
// or a negative / non-finite number; hsE_NOMEM.
int hss_setNoise(hssState *s, hstSensor type, const hssNoiseSpec *spec, uint64_t seed,
                 uint64_t stream, hsError *err);

// limits on (1) or off (0); hsE_NOMEM
int hss_setLimits(hssState *s, int on, hsError *err);

// restart every generator of s from its seed (as just configured)
void hss_reseedNoise(hssState *s);

// one standard normal deviate from the generator *state (splitmix64 + Box-Muller); for tests
double hss_normal(uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_SENSORS_SENSORS_H_
