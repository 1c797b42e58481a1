// sensors_private.h - what the sensors library's files share: the range part of a state
// (sensors_range.c) and the noise part (sensors_noise.c), made and freed with the state.

#ifndef HRPSIM_SENSORS_SENSORS_PRIVATE_H_
#define HRPSIM_SENSORS_SENSORS_PRIVATE_H_

#include "sensors.h"

// the range sensors of one state: per body sensor its beams (0 for other types)
typedef struct hssRange {
  int *nbeam;          // per body sensor
  int *beamAdr;        // per body sensor: first beam in dist / dir
  double *dist;        // every beam's held reading [m]
  double *dir;         // 3 per beam: its direction in the sensor frame
  long scanned;        // beams in all
} hssRange;

// make s->range (NULL when the body has no range sensor); 0 or hsE_NOMEM
int hss_makeRangePart(hssState *s, hsError *err);

// free s->range
void hss_freeRangePart(hssState *s);

// apply the noise and limits of s to the readings of the body sensor i just computed (force,
// gyro, accelerometer: s->readings + 6 i; range: its beams). No-op without noise or limits.
void hss_applyNoise(hssState *s, int i);

// free s->noise
void hss_freeNoisePart(hssState *s);

// the noise part (present or not; its settings and generators' states) appended to b
// (save != 0) or read back from b (the part made or freed to match); 0 or hsE_NOMEM
int hss_noiseBytes(hssState *s, hsuBytes *b, int save, hsError *err);

#endif  // HRPSIM_SENSORS_SENSORS_PRIVATE_H_
