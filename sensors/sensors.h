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
// - range and vision: nothing yet (0 numbers).
// Before the first step every reading is zero. Range and vision sensors come with a later
// issue (rays from collision/, images from the renderer).

#ifndef HRPSIM_SENSORS_SENSORS_H_
#define HRPSIM_SENSORS_SENSORS_H_

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

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_SENSORS_SENSORS_H_
