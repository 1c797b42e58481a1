// dynamics_settings.c - the engine and its solver settings by name, as every door gives them
// (hrpsim.Simulation(engine=..., solver={...}), a project's <simulation> attributes,
// hrpsim-dynamics' options, the DynamicsSimulator's setSolver): one table, one check of each
// name, engine and range, so that no door checks on its own.

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics_private.h"

typedef enum { kINT, kDOUBLE, kSTEPPER } kind;

// one setting: its name, the engine that has it, the field it writes and its range
typedef struct setting {
  const char *name;
  hstEngine engine;
  kind type;
  size_t offset;  // of the int, double or hstStepper field in hsdOptions
  double min, max;
} setting;

#define FIELD(f) offsetof(hsdOptions, f)

static const setting kSettings[] = {
  {"stepper", hsENGINE_ODE, kSTEPPER, FIELD(stepper), 0, 0},
  {"iterations", hsENGINE_ODE, kINT, FIELD(quickIterations), 1, 100000},
  {"chain_iterations", hsENGINE_ODE, kINT, FIELD(chainIterations), 1, 100000},
  {"erp", hsENGINE_ODE, kDOUBLE, FIELD(erp), 0, 1},
  {"cfm", hsENGINE_ODE, kDOUBLE, FIELD(cfm), 0, 1},
  {"contact_erp", hsENGINE_ODE, kDOUBLE, FIELD(contactErp), 0, 1},
  {"contact_cfm", hsENGINE_ODE, kDOUBLE, FIELD(contactCfm), 0, 1},
  {"surface_layer", hsENGINE_ODE, kDOUBLE, FIELD(contactSurfaceLayer), 0, 0.1},
  {"max_correcting_vel", hsENGINE_ODE, kDOUBLE, FIELD(contactMaxCorrectingVel), 0, 1e6},
  {"max_contacts_per_pair", hsENGINE_ODE, kINT, FIELD(maxContactsPerPair), 1, 65535},
};
enum { kNSETTINGS = (int)(sizeof kSettings / sizeof kSettings[0]) };

static const char *const kEngineNames[] = {"ode", "joint_space"};
static const char *const kStepperNames[] = {"world", "quick", "auto"};  // hstStepper order

const char *hsd_engineName(hstEngine engine) {
  return (int)engine >= 0 && (int)engine < 2 ? kEngineNames[engine] : NULL;
}

int hsd_engineByName(const char *name, hstEngine *engine, hsError *err) {
  for (int i = 0; i < 2; i++) {
    if (name && strcmp(name, kEngineNames[i]) == 0) {
      *engine = (hstEngine)i;
      return 0;
    }
  }
  return HS_ERR(err, hsE_INVALID, "engine '%s': not an engine (ode or joint_space)",
                name ? name : "");
}

const char *hsd_solverSettingName(int i, hstEngine *engine) {
  if (i < 0 || i >= kNSETTINGS) {
    return NULL;
  }
  if (engine) {
    *engine = kSettings[i].engine;
  }
  return kSettings[i].name;
}

// the settings' names of engine e, comma-separated, into buf ("none" if it has none)
static const char *namesOf(hstEngine e, char *buf, size_t len) {
  buf[0] = '\0';
  for (int i = 0; i < kNSETTINGS; i++) {
    if (kSettings[i].engine == e) {
      size_t used = strlen(buf);
      snprintf(buf + used, len - used, "%s%s", used ? ", " : "", kSettings[i].name);
    }
  }
  if (!buf[0]) {
    snprintf(buf, len, "none");
  }
  return buf;
}

// write text as setting s into *opt; hsE_INVALID naming the setting, the value and the range
static int parseOne(const setting *s, const char *text, hsdOptions *opt, hsError *err) {
  char *p = (char *)opt + s->offset;
  if (s->type == kSTEPPER) {
    for (int i = 0; i < 3; i++) {
      if (strcmp(text, kStepperNames[i]) == 0) {
        *(hstStepper *)(void *)p = (hstStepper)i;
        return 0;
      }
    }
    return HS_ERR(err, hsE_INVALID, "solver setting stepper: '%s' is not auto, world or quick",
                  text);
  }
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    return HS_ERR(err, hsE_INVALID, "solver setting %s: '%s' is not a%s number", s->name, text,
                  s->type == kINT ? "n integer" : "");
  }
  if (s->type == kINT && v != floor(v)) {
    return HS_ERR(err, hsE_INVALID, "solver setting %s: '%s' is not an integer", s->name, text);
  }
  if (v < s->min || v > s->max) {
    return HS_ERR(err, hsE_INVALID, "solver setting %s: %s is out of range [%g, %g]", s->name,
                  text, s->min, s->max);
  }
  if (s->type == kINT) {
    *(int *)(void *)p = (int)v;
  } else {
    *(double *)(void *)p = v;
  }
  return 0;
}

int hsd_applySolverSettings(hsdOptions *opt, const char *engine, int n,
                            const char *const *names, const char *const *values,
                            hsError *err) {
  hsdOptions o = *opt;
  if (engine && engine[0] && hsd_engineByName(engine, &o.engine, err) < 0) {
    return hsE_INVALID;
  }
  for (int k = 0; k < n; k++) {
    const char *name = names[k] ? names[k] : "", *text = values[k] ? values[k] : "";
    const setting *s = NULL;
    for (int i = 0; i < kNSETTINGS && !s; i++) {
      s = strcmp(name, kSettings[i].name) == 0 ? &kSettings[i] : NULL;
    }
    char list[300], other[300];
    if (!s) {
      return HS_ERR(err, hsE_INVALID, "'%s' is not a solver setting (the ode engine has: %s; "
                    "the joint_space engine has: %s)", name,
                    namesOf(hsENGINE_ODE, list, sizeof list),
                    namesOf(hsENGINE_JOINT_SPACE, other, sizeof other));
    }
    if (s->engine != o.engine) {
      return HS_ERR(err, hsE_INVALID, "solver setting %s is the %s engine's; the %s engine "
                    "has %s", name, kEngineNames[s->engine], kEngineNames[o.engine],
                    namesOf(o.engine, list, sizeof list));
    }
    for (int j = 0; j < k; j++) {
      if (names[j] && strcmp(names[j], name) == 0) {
        return HS_ERR(err, hsE_INVALID, "solver setting %s given twice", name);
      }
    }
    if (parseOne(s, text, &o, err) < 0) {
      return hsE_INVALID;
    }
  }
  *opt = o;
  return 0;
}

int hsd_solverSettingText(const hsdOptions *opt, const char *name, char *value, size_t vlen,
                          char *range, size_t rlen) {
  for (int i = 0; i < kNSETTINGS; i++) {
    const setting *s = &kSettings[i];
    if (strcmp(name, s->name) != 0) {
      continue;
    }
    const char *p = (const char *)opt + s->offset;
    if (s->type == kSTEPPER) {
      int v = (int)*(const hstStepper *)(const void *)p;
      snprintf(value, vlen, "%s", v >= 0 && v < 3 ? kStepperNames[v] : "?");
      snprintf(range, rlen, "auto, world, quick");
    } else if (s->type == kINT) {
      snprintf(value, vlen, "%d", *(const int *)(const void *)p);
      snprintf(range, rlen, "%g to %g", s->min, s->max);
    } else {
      snprintf(value, vlen, "%.17g", *(const double *)(const void *)p);
      snprintf(range, rlen, "%g to %g", s->min, s->max);
    }
    return 0;
  }
  return hsE_INVALID;
}
