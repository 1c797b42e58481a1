// sensors_noise.c - optional noise, bias and limits on sensor readings (sensors.h): seeded
// generators, one per sensor, so a run is reproducible bit for bit.
//
// The generator is splitmix64 (a 64-bit counter through a bijective mixer), turned into standard
// normal deviates by Box-Muller (two uniforms per deviate, the second root unused): simple,
// portable and the same on every machine, which is what reproducibility needs here.

#include <math.h>
#include <string.h>

#include "sensors_private.h"

typedef struct hssNoise {
  int active[hsSENSOR_NTYPES];          // noise set for the type
  hssNoiseSpec spec[hsSENSOR_NTYPES];
  uint64_t seed[hsSENSOR_NTYPES];       // the type's seed, already mixed with its stream
  uint64_t *rng;                        // per body sensor: generator state
  int limits;                           // saturation and range dropouts on
} hssNoise;

// splitmix64's output mixer
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// a uniform deviate in (0, 1)
static double uniform(uint64_t *state) {
  *state += 0x9E3779B97F4A7C15ULL;
  return ((double)(mix64(*state) >> 11) + 0.5) * 0x1.0p-53;
}

double hss_normal(uint64_t *state) {
  double u1 = uniform(state), u2 = uniform(state);
  return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);  // cos(2 pi u2)
}

// the noise part of s, made on first use
static hssNoise *noisePart(hssState *s, hsError *err) {
  if (!s->noise) {
    hssNoise *n = hsu_calloc(1, sizeof *n);
    if (n && !(n->rng = hsu_calloc((size_t)s->body->nsensor + 1, sizeof *n->rng))) {
      hsu_free(n);
      n = NULL;
    }
    if (!n) {
      HS_ERR(err, hsE_NOMEM, "out of memory");
      return NULL;
    }
    s->noise = n;
  }
  return s->noise;
}

// restart the generators of every sensor of type t
static void reseedType(hssState *s, int t) {
  for (int i = 0; i < s->body->nsensor; i++) {
    if ((int)s->body->sensors[i].type == t) {
      s->noise->rng[i] = mix64(s->noise->seed[t] ^ mix64((uint64_t)i + 0x632BE59BD9B4E019ULL));
    }
  }
}

int hss_setNoise(hssState *s, hstSensor type, const hssNoiseSpec *spec, uint64_t seed,
                 uint64_t stream, hsError *err) {
  const hsmSensorType *row = hsm_sensorType(type);
  if (!s || !row || !row->noisy) {
    return HS_ERR(err, hsE_INVALID, "noise applies to force, rate gyro, accelerometer and range "
                  "sensors only");
  }
  if (spec) {
    for (int j = 0; j < 6; j++) {
      if (!isfinite(spec->std[j]) || spec->std[j] < 0 || !isfinite(spec->bias[j])) {
        return HS_ERR(err, hsE_INVALID, "noise component %d: std %g must be finite and >= 0, "
                      "bias %g finite", j, spec->std[j], spec->bias[j]);
      }
    }
  }
  if (!spec && !s->noise) {
    return 0;
  }
  hssNoise *n = noisePart(s, err);
  if (!n) {
    return hsE_NOMEM;
  }
  n->active[type] = spec != NULL;
  if (spec) {
    n->spec[type] = *spec;
  }
  n->seed[type] = mix64(seed ^ mix64(stream + 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)type << 56));
  reseedType(s, type);
  return 0;
}

int hss_setLimits(hssState *s, int on, hsError *err) {
  if (!on && (!s || !s->noise)) {
    return 0;
  }
  hssNoise *n = noisePart(s, err);
  if (!n) {
    return hsE_NOMEM;
  }
  n->limits = on != 0;
  return 0;
}

void hss_reseedNoise(hssState *s) {
  if (s && s->noise) {
    for (int t = 0; t < hsSENSOR_NTYPES; t++) {
      reseedType(s, t);
    }
  }
}

void hss_freeNoisePart(hssState *s) {
  if (s->noise) {
    hsu_free(s->noise->rng);
    hsu_free(s->noise);
    s->noise = NULL;
  }
}

void hss_applyNoise(hssState *s, int i) {
  hssNoise *n = s->noise;
  if (!n) {
    return;
  }
  const hsSensor *sn = &s->body->sensors[i];
  int t = sn->type;
  if (t == hsSENSOR_RANGE) {
    if (!s->range) {
      return;
    }
    double *d = s->range->dist + s->range->beamAdr[i];
    int nb = s->range->nbeam[i];
    double maxd = sn->nspecValue > 3 ? sn->specValues[3] : -1;
    for (int k = 0; k < nb; k++) {
      if (n->limits && maxd >= 0 && d[k] > maxd) {
        d[k] = 0;  // beyond reach: no return
      }
      if (n->active[t] && d[k] > 0) {
        d[k] += n->spec[t].bias[0] + n->spec[t].std[0] * hss_normal(&n->rng[i]);
      }
    }
    return;
  }
  if (t != hsSENSOR_FORCE && t != hsSENSOR_RATEGYRO && t != hsSENSOR_ACCELERATION) {
    return;
  }
  double *out = s->readings + 6 * i;
  int m = s->nreading[i];
  if (n->active[t]) {
    for (int j = 0; j < m; j++) {
      out[j] += n->spec[t].bias[j] + n->spec[t].std[j] * hss_normal(&n->rng[i]);
    }
  }
  if (n->limits) {
    for (int j = 0; j < m && j < sn->nspecValue; j++) {
      double lim = sn->specValues[j];
      if (lim >= 0) {
        out[j] = fmin(fmax(out[j], -lim), lim);
      }
    }
  }
}

int hss_noiseBytes(hssState *s, hsuBytes *b, int save, hsError *err) {
  int have = s->noise != NULL;
  hsu_bytesField(b, save, &have, sizeof have);
  if (!save && !have) {
    hss_freeNoisePart(s);
  }
  if (!have || b->bad) {
    return 0;
  }
  hssNoise *n = noisePart(s, err);
  if (!n) {
    return hsE_NOMEM;
  }
  hsu_bytesField(b, save, n->active, sizeof n->active);
  hsu_bytesField(b, save, n->spec, sizeof n->spec);
  hsu_bytesField(b, save, n->seed, sizeof n->seed);
  hsu_bytesField(b, save, n->rng, (size_t)s->body->nsensor * sizeof *n->rng);
  hsu_bytesField(b, save, &n->limits, sizeof n->limits);
  return 0;
}
