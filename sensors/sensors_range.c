// sensors_range.c - range sensors: OpenHRP's fan of rays (sensors.h gives the layout and the
// schedule) cast through the collision library over every character of the world.
//
// The rays are cast on the world's own collision scene (hsd_stateScene: the scene its contacts
// are found in, lent read-only with every link at its state pose), so the sensors keep no
// geometry of their own. Each state keeps, per range sensor, the beam directions in the sensor
// frame (computed once) and the held scan.

#include <math.h>
#include <string.h>

#include "sensors_private.h"

// beams cast per hsc_rayFan call (world directions on the stack)
#define CHUNK 256

int hss_rangeBeamCount(const hsSensor *sn) {
  if (!sn || sn->type != hsSENSOR_RANGE || sn->nspecValue < 2) {
    return 0;
  }
  // OpenHRP: (int)(scanAngle / 2 / scanStep) on the specValues as the model holds them
  double angle = sn->specValues[0], step = sn->specValues[1];
  if (!isfinite(angle) || !isfinite(step) || step <= 0 || angle < 0) {
    return 0;
  }
  double half = angle / 2 / step;
  if (half > 1e6) {
    return 0;  // nonsense specValues: no beams rather than a huge allocation
  }
  return 2 * (int)half + 1;
}

long hss_scanPeriod(const hsSensor *sn, double dt) {
  double rate = sn->nspecValue > 2 ? sn->specValues[2] : 0;
  if (!(rate > 0) || !isfinite(rate) || !(dt > 0)) {
    return 1;
  }
  double n = round(1 / (rate * dt));
  return n < 1 ? 1 : (n > 1e15 ? (long)1e15 : (long)n);
}

//---------------------------------- state part ------------------------------------------------

int hss_makeRangePart(hssState *s, hsError *err) {
  const hsBody *b = s->body;
  long total = 0;
  int any = 0;
  for (int i = 0; i < b->nsensor; i++) {
    if (b->sensors[i].type == hsSENSOR_RANGE) {
      any = 1;
      total += hss_rangeBeamCount(&b->sensors[i]);
    }
  }
  if (!any) {
    return 0;
  }
  size_t n = (size_t)b->nsensor;
  hssRange *r = hsu_calloc(1, sizeof *r);
  if (r) {
    r->nbeam = hsu_calloc(n, sizeof *r->nbeam);
    r->beamAdr = hsu_calloc(n, sizeof *r->beamAdr);
    r->dist = hsu_calloc((size_t)total + 1, sizeof *r->dist);
    r->dir = hsu_calloc(3 * (size_t)total + 1, sizeof *r->dir);
  }
  s->range = r;
  if (!r || !r->nbeam || !r->beamAdr || !r->dist || !r->dir) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for %ld range beams", total);
  }
  r->scanned = total;
  int adr = 0;
  for (int i = 0; i < b->nsensor; i++) {
    const hsSensor *sn = &b->sensors[i];
    int nb = hss_rangeBeamCount(sn);
    r->nbeam[i] = nb;
    r->beamAdr[i] = adr;
    if (sn->type == hsSENSOR_RANGE) {
      s->nreading[i] = nb;
    }
    int half = nb / 2;
    double step = nb > 0 ? sn->specValues[1] : 0;
    for (int k = 0; k < nb; k++) {
      double a = (k - half) * step, *d = r->dir + 3 * (adr + k);
      d[0] = -sin(a);
      d[1] = 0;
      d[2] = -cos(a);
    }
    adr += nb;
  }
  return 0;
}

void hss_freeRangePart(hssState *s) {
  hssRange *r = s->range;
  if (!r) {
    return;
  }
  hsu_free(r->nbeam);
  hsu_free(r->beamAdr);
  hsu_free(r->dist);
  hsu_free(r->dir);
  hsu_free(r);
  s->range = NULL;
}

void hss_clearRange(hssState *s) {
  if (s && s->range) {
    memset(s->range->dist, 0, (size_t)s->range->scanned * sizeof *s->range->dist);
  }
}

//---------------------------------- scans -----------------------------------------------------

// cast nbeam beams from p with sensor orientation R into out (distance, or 0 for no hit): beam
// k's sensor-frame direction is dir + 3 k, or with dir NULL OpenHRP's (-sin a, 0, -cos a) at
// a = (k - nbeam / 2) step. Every direction lies in the sensor's x-z plane, so the fan goes to
// hsc_rayFan with the plane's normal (the sensor's y axis), CHUNK beams at a time.
static void castBeams(const hscScene *scene, int *scratch, const double p[3], const double R[9],
                      const double *dir, double step, int nbeam, double *out) {
  double world[3 * CHUNK], nrm[3] = {R[1], R[4], R[7]};
  int half = nbeam / 2;
  for (int k0 = 0; k0 < nbeam; k0 += CHUNK) {
    int m = nbeam - k0 < CHUNK ? nbeam - k0 : CHUNK;
    for (int k = 0; k < m; k++) {
      double a = (k0 + k - half) * step, l[3] = {-sin(a), 0, -cos(a)};
      hsu_rotVec(world + 3 * k, R, dir ? dir + 3 * (k0 + k) : l);
    }
    hsc_rayFan(scene, p, nrm, world, m, INFINITY, scratch, out + k0, NULL);
    for (int k = 0; k < m; k++) {
      if (out[k0 + k] == INFINITY) {
        out[k0 + k] = 0.0;  // OpenHRP's "no hit"
      }
    }
  }
}

void hss_castFan(const hscScene *scene, int *scratch, const double p[3], const double R[9],
                 double scanStep, int nbeam, double *out) {
  castBeams(scene, scratch, p, R, NULL, scanStep, nbeam, out);
}

// 1 if range sensor i scans at w's current step
static int isDue(const hssState *s, int i, const hsdWorld *w) {
  if (s->range->nbeam[i] == 0) {
    return 0;
  }
  return hsd_stepCount(w) % hss_scanPeriod(&s->body->sensors[i], hsd_timeStep(w)) == 0;
}

int hss_rangeDue(const hssState *s, const hsdWorld *w) {
  if (!s || !s->range) {
    return 0;
  }
  for (int i = 0; i < s->body->nsensor; i++) {
    if (isDue(s, i, w)) {
      return 1;
    }
  }
  return 0;
}

void hss_updateRange(hssState *s, const hsdWorld *w, int ch, const hscScene *scene,
                     int *scratch) {
  const hsBodyState *st = hsd_state(w, ch);
  if (!s || !s->range || !scene || !scratch || !st || st->body != s->body) {
    return;
  }
  hssRange *r = s->range;
  for (int i = 0; i < s->body->nsensor; i++) {
    if (!isDue(s, i, w)) {
      continue;
    }
    const hsSensor *sn = &s->body->sensors[i];
    const double *pk = st->linkP + 3 * sn->link, *Rk = st->linkR + 9 * sn->link;
    double p[3], Rs[9];
    hsu_rotVec(p, Rk, sn->translation);
    for (int j = 0; j < 3; j++) {
      p[j] += pk[j];
    }
    hsu_mulMat(Rs, Rk, s->R[i]);
    castBeams(scene, scratch, p, Rs, r->dir + 3 * r->beamAdr[i], 0, r->nbeam[i],
              r->dist + r->beamAdr[i]);
    hss_applyNoise(s, i);
  }
}
