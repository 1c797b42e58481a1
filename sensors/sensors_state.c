// sensors_state.c - hssState make/free and the sensors' order on the wire (each type in sensorId
// order, ties in body order).

#include <string.h>

#include "sensors_private.h"

// numbers a sensor type reports here: the table's fixed sizes (range beams: sensors_range.c)
static int readingSize(hstSensor type) {
  const hsmSensorType *t = hsm_sensorType(type);
  return t && t->size > 0 ? t->size : 0;
}

hssState *hss_makeState(const hsBody *body, hsError *err) {
  if (!body) {
    HS_ERR(err, hsE_INVALID, "no body");
    return NULL;
  }
  size_t n = (size_t)body->nsensor;
  hssState *s = hsu_calloc(1, sizeof *s);
  if (s) {
    s->readings = hsu_calloc(6 * n + 1, sizeof *s->readings);
    s->nreading = hsu_calloc(n + 1, sizeof *s->nreading);
    s->R = hsu_calloc(n + 1, sizeof *s->R);
    s->order = hsu_calloc(n + 1, sizeof *s->order);
  }
  if (!s || !s->readings || !s->nreading || !s->R || !s->order) {
    hss_freeState(s);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  s->body = body;
  for (int i = 0; i < body->nsensor; i++) {
    const hsSensor *sn = &body->sensors[i];
    s->nreading[i] = readingSize(sn->type);
    hsu_axisAngleToMat(s->R[i], sn->rotation);
    if ((unsigned)sn->type < hsSENSOR_NTYPES) {
      s->typeCount[sn->type]++;
    }
  }
  // each type's group, filled in sensorId order (insertion: a body has a handful of sensors)
  for (int t = 1; t < hsSENSOR_NTYPES; t++) {
    s->typeAdr[t] = s->typeAdr[t - 1] + s->typeCount[t - 1];
  }
  int fill[hsSENSOR_NTYPES] = {0};
  for (int i = 0; i < body->nsensor; i++) {
    hstSensor t = body->sensors[i].type;
    if ((unsigned)t >= hsSENSOR_NTYPES) {
      continue;
    }
    int *group = s->order + s->typeAdr[t], k = fill[t]++;
    for (; k > 0 && body->sensors[group[k - 1]].id > body->sensors[i].id; k--) {
      group[k] = group[k - 1];
    }
    group[k] = i;
  }
  if (hss_makeRangePart(s, err) < 0) {
    hss_freeState(s);
    return NULL;
  }
  return s;
}

void hss_freeState(hssState *s) {
  if (!s) {
    return;
  }
  hsu_free(s->readings);
  hsu_free(s->nreading);
  hsu_free(s->R);
  hsu_free(s->order);
  hss_freeRangePart(s);
  hss_freeNoisePart(s);
  hsu_free(s);
}

const double *hss_reading(const hssState *s, int sensor, int *n) {
  if (!s || sensor < 0 || sensor >= s->body->nsensor) {
    if (n) {
      *n = 0;
    }
    return NULL;
  }
  if (n) {
    *n = s->nreading[sensor];
  }
  if (s->range && s->body->sensors[sensor].type == hsSENSOR_RANGE) {
    return s->range->dist + s->range->beamAdr[sensor];
  }
  return s->readings + 6 * sensor;
}

const int *hss_sensorsOfType(const hssState *s, hstSensor type, int *n) {
  if (!s || (unsigned)type >= hsSENSOR_NTYPES) {
    *n = 0;
    return NULL;
  }
  *n = s->typeCount[type];
  return s->order + s->typeAdr[type];
}

// the readings, held scans and noise of s, saved or restored; 0, hsE_INVALID, hsE_NOMEM
static int stateBytes(hssState *s, hsuBytes *b, int save, hsError *err) {
  size_t n = (size_t)s->body->nsensor;
  hsu_bytesField(b, save, s->readings, 6 * n * sizeof *s->readings);
  long beams = s->range ? s->range->scanned : 0, saved = beams;
  hsu_bytesField(b, save, &saved, sizeof saved);
  if (b->bad || saved != beams) {
    b->bad = 1;
    return HS_ERR(err, hsE_INVALID, "the saved sensor state is for other sensors");
  }
  if (s->range) {
    hsu_bytesField(b, save, s->range->dist, (size_t)beams * sizeof *s->range->dist);
  }
  return hss_noiseBytes(s, b, save, err);
}

void hss_saveState(const hssState *s, hsuBytes *out) {
  stateBytes((hssState *)s, out, 1, NULL);  // (saving only reads s)
}

int hss_restoreState(hssState *s, hsuBytes *in, hsError *err) {
  return stateBytes(s, in, 0, err);
}
