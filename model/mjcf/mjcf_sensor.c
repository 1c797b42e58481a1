// mjcf_sensor.c - MJCF cameras, sensors and actuators as OpenHRP sensors and joint limits.
//
// Sensors attach to sites of the selected body (a sensor on another body's site is not this
// body's and is skipped quietly). Frames are the site's:
// - accelerometer -> AccelerationSensor, gyro -> RateGyroSensor (both read in the site frame,
//   as MuJoCo's); specValues -1 (no limits);
// - force and torque on one site -> one ForceSensor (named after the force sensor, else the
//   torque sensor); MuJoCo reads the force the body's subtree exerts through the joint to its
//   parent, as hrpsim's ForceSensor does; specValues -1;
// - rangefinder -> RangeSensor with one beam: MuJoCo measures along the site's +z, OpenHRP's
//   RangeSensor looks along its -z, so the sensor frame is the site's turned half a turn about
//   x; specValues scanAngle 0, scanStep 1, scanRate 0 (every step), maxDistance its cutoff, else
//   100 m;
// - <camera> in a body -> VisionSensor: MuJoCo's camera looks along -z with +y up, OpenHRP's
//   too; fovy (degrees always, default 45) is MuJoCo's vertical field of view, OpenHRP's
//   fieldOfView the horizontal one: 2 atan(tan(fovy / 2) width / height); resolution
//   (default 320 x 240 here: MuJoCo's 1 x 1 makes no picture); near 0.01 m, far 100 m, COLOR,
//   30 frames per second.
// Other sensors are warned (once per kind, with their number) and skipped (joint positions,
// velocities and torques reach OpenHRP clients as joint data anyway). Unnamed sensors are
// "<type><n>".
//
// Actuators on a joint: a motor's (or general's) force limit becomes the joint's climit (with
// gearRatio 1 and torqueConst 1 a current limit is a torque limit): the largest |forcerange|
// when forcelimited, else the largest |ctrlrange| x |gear| when ctrllimited, the smaller of the
// two when both; a joint's own actuatorfrcrange counts too. Position, velocity and other
// actuators are noted as info strings "mjcf actuator <kind> <link> <kp or kv>" (hrpsim's
// controllers drive joints themselves) with a warning. Tendons, equality constraints,
// keyframes, <option> and plugins are warned and left out (<contact> is mjcf_body.c's).

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mjcf_private.h"

#define SITES(u) ((hsmMjcfSite *)(u)->sites.data)
#define JOINTS(u) ((hsmMjcfJointRef *)(u)->joints.data)
#define LINKSPEC(u, i) (((hsmLinkSpec *)(u)->b->links.data)[i])

// add one sensor of `type` on link with frame S (in the link frame)
static int pushSensor(hsmMjcfLoad *u, const hsmXmlElem *e, const char *name, hstSensor type,
                      int link, const double S[12], const double *spec, int nspec) {
  hsmSensorSpec s;
  memset(&s, 0, sizeof s);
  s.sensor.type = type;
  int id = 0;  // ids count per type in file order
  const hsmSensorSpec *have = u->b->sensors.data;
  for (size_t i = 0; i < u->b->sensors.n; i++) {
    id += have[i].sensor.type == type;
  }
  s.sensor.id = id;
  s.sensor.link = link;
  double R[9];
  hsu_splitTransform(R, s.sensor.translation, S);
  hsu_matToAxisAngle(s.sensor.rotation, R);
  const char *file = ((const hsmMjcfFile *)u->files.data)[e->file].path;
  s.idAt = (hsmSource){file, e->line, 0};
  s.name = hsu_strdup(name);
  s.specFile = hsu_strdup("");
  int ok = s.name && s.specFile;
  for (int i = 0; i < nspec && ok; i++) {
    float f = (float)spec[i];
    ok = hsu_vecPush(&s.specValues, sizeof f, &f) != NULL;
  }
  if (!ok || !hsu_vecPush(&u->b->sensors, sizeof s, &s)) {
    hsu_free(s.name);
    hsu_free(s.specFile);
    hsu_vecFree(&s.specValues);
    return hsm_mjcfNomem(u);
  }
  return 0;
}

int hsm_mjcfCamera(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, int link, const double T[12]) {
  double fovy = 45, res[2] = {320, 240};
  int n = 0, given = 0;
  if (hsm_mjcfNumbers(u, e, cls, "fovy", 1, &fovy, &n) ||
      hsm_mjcfExact(u, e, cls, "resolution", 2, res, &given)) {
    return -1;
  }
  if (!(fovy > 0 && fovy < 180) || !(res[0] >= 1 && res[1] >= 1 && res[0] <= 16384 &&
                                     res[1] <= 16384)) {
    return hsm_mjcfError(u, hsE_MODEL, e, NULL, "<camera>: fovy must be in (0, 180) degrees "
                         "and resolution within 1 .. 16384");
  }
  double w = floor(res[0]), h = floor(res[1]);
  double fy = fovy * HS_PI / 180, fov = 2 * atan(tan(fy / 2) * w / h);
  if (!(fov < HS_PI - 1e-6)) {
    return hsm_mjcfError(u, hsE_MODEL, e, "fovy", "<camera>: fovy %g over a %g x %g image spans "
                         "half a turn or more across (OpenHRP's fieldOfView is horizontal)",
                         fovy, w, h);
  }
  const char *name = hsm_mjcfOwn(e, "name");
  char buf[64];
  if (!name) {
    int k = 0;
    const hsmSensorSpec *have = u->b->sensors.data;
    for (size_t i = 0; i < u->b->sensors.n; i++) {
      k += have[i].sensor.type == hsSENSOR_VISION;
    }
    snprintf(buf, sizeof buf, "camera%d", k);
    name = buf;
  }
  double spec[7] = {0.01, 100, fov, 1, w, h, 30};
  return pushSensor(u, e, name, hsSENSOR_VISION, link, T, spec, 7);
}

// the site called name, or NULL
static const hsmMjcfSite *findSite(hsmMjcfLoad *u, const char *name) {
  for (size_t i = 0; name && i < u->sites.n; i++) {
    if (strcmp(SITES(u)[i].name, name) == 0) {
      return &SITES(u)[i];
    }
  }
  return NULL;
}

// 1 if a site of that name exists anywhere in the model (selected body or not)
static int siteAnywhere(const hsmXmlElem *e, const char *name) {
  if (strcmp(e->name, "site") == 0 && hsm_mjcfOwn(e, "name") &&
      strcmp(hsm_mjcfOwn(e, "name"), name) == 0) {
    return 1;
  }
  for (int i = 0; i < e->nkid; i++) {
    if (siteAnywhere(e->kids[i], name)) {
      return 1;
    }
  }
  return 0;
}

static int readSensors(hsmMjcfLoad *u, const hsmXmlElem *sec) {
  static const double none[6] = {-1, -1, -1, -1, -1, -1};
  for (int i = 0; i < sec->nkid; i++) {
    const hsmXmlElem *k = sec->kids[i];
    const char *kind = k->name;
    int isAcc = strcmp(kind, "accelerometer") == 0, isGyro = strcmp(kind, "gyro") == 0;
    int isForce = strcmp(kind, "force") == 0, isTorque = strcmp(kind, "torque") == 0;
    int isRange = strcmp(kind, "rangefinder") == 0;
    if (!isAcc && !isGyro && !isForce && !isTorque && !isRange) {
      // once per kind: the first one's line, and how many there are
      int first = 1, count = 0;
      for (int j = 0; j < sec->nkid; j++) {
        first = first && !(j < i && strcmp(sec->kids[j]->name, kind) == 0);
        count += strcmp(sec->kids[j]->name, kind) == 0;
      }
      if (first) {
        hsm_mjcfWarn(u, k, "<%s> sensor%s (%d) ha%s no OpenHRP counterpart: skipped", kind,
                     count > 1 ? "s" : "", count, count > 1 ? "ve" : "s");
      }
      continue;
    }
    const char *siteName = hsm_mjcfOwn(k, "site");
    const hsmMjcfSite *site = findSite(u, siteName);
    if (!siteName || (!site && !siteAnywhere(u->root, siteName))) {
      return hsm_mjcfError(u, hsE_MODEL, k, "site", "<%s> names site '%s', which does not exist",
                           kind, siteName ? siteName : "");
    }
    if (!site) {
      continue;  // on another body of the file
    }
    char buf[64];
    const char *name = hsm_mjcfOwn(k, "name");
    if (!name) {
      snprintf(buf, sizeof buf, "%s%d", kind, i);
      name = buf;
    }
    int rc = 0;
    if (isAcc || isGyro) {
      rc = pushSensor(u, k, name, isAcc ? hsSENSOR_ACCELERATION : hsSENSOR_RATEGYRO, site->link,
                      site->T, none, 3);
    } else if (isForce || isTorque) {
      // one ForceSensor per site: the first of the pair makes it
      int made = 0;
      for (int j = 0; j < i && !made; j++) {
        const hsmXmlElem *o = sec->kids[j];
        const char *os = hsm_mjcfOwn(o, "site");
        made = (strcmp(o->name, "force") == 0 || strcmp(o->name, "torque") == 0) && os &&
               strcmp(os, siteName) == 0;
      }
      if (!made) {
        rc = pushSensor(u, k, name, hsSENSOR_FORCE, site->link, site->T, none, 6);
      }
    } else {
      double cutoff = 0;
      int n = 0;
      if (hsm_mjcfNumbers(u, k, -1, "cutoff", 1, &cutoff, &n)) {
        return -1;
      }
      double X[12] = {1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0}, S[12];
      hsu_mulTransform(S, site->T, X);
      double spec[4] = {0, 1, 0, cutoff > 0 ? cutoff : 100};
      rc = pushSensor(u, k, name, hsSENSOR_RANGE, site->link, S, spec, 4);
    }
    if (rc) {
      return rc;
    }
  }
  return 0;
}

// the link of the joint called name, or -1
static int jointLink(hsmMjcfLoad *u, const char *name) {
  for (size_t i = 0; name && i < u->joints.n; i++) {
    if (strcmp(JOINTS(u)[i].name, name) == 0) {
      return JOINTS(u)[i].link;
    }
  }
  return -1;
}

static int readActuators(hsmMjcfLoad *u, const hsmXmlElem *sec) {
  for (int i = 0; i < sec->nkid; i++) {
    const hsmXmlElem *k = sec->kids[i];
    int cls = 0;
    if (hsm_mjcfClassOf(u, k, 0, &cls)) {
      return -1;
    }
    const char *joint = hsm_mjcfOwn(k, "joint");
    if (!joint) {
      hsm_mjcfWarn(u, k, "<%s> drives no joint (a tendon, site or body): skipped", k->name);
      continue;
    }
    int link = jointLink(u, joint);
    if (link < 0) {
      continue;  // a joint of another body (or none: MuJoCo itself refuses that)
    }
    int motor = strcmp(k->name, "motor") == 0 || strcmp(k->name, "general") == 0;
    if (!motor) {
      double gain = 0;
      int n = 0;
      const char *g = strcmp(k->name, "position") == 0 ? "kp" : "kv";
      if (hsm_mjcfNumbers(u, k, cls, g, 1, &gain, &n)) {
        return -1;
      }
      hsm_mjcfWarn(u, k, "<%s> actuator on joint '%s' is noted, not simulated: hrpsim's "
                   "controllers drive the joint", k->name, joint);
      if (hsm_addInfo(u->b, "mjcf actuator %s %s %.17g", k->name, LINKSPEC(u, link).name,
                      gain) < 0) {
        return hsm_mjcfNomem(u);
      }
    }
    double gear[6] = {1, 0, 0, 0, 0, 0}, ctrl[2], force[2];
    int ng = 0, hasCtrl = 0, hasForce = 0;
    if (hsm_mjcfNumbers(u, k, cls, "gear", 6, gear, &ng) ||
        hsm_mjcfExact(u, k, cls, "ctrlrange", 2, ctrl, &hasCtrl) ||
        hsm_mjcfExact(u, k, cls, "forcerange", 2, force, &hasForce)) {
      return -1;
    }
    static const char *const words[] = {"false", "true", "auto", NULL};
    int cl = 2, fl = 2;
    if (hsm_mjcfKeyword(u, k, cls, "ctrllimited", words, &cl) ||
        hsm_mjcfKeyword(u, k, cls, "forcelimited", words, &fl)) {
      return -1;
    }
    cl = cl == 2 ? hasCtrl && u->autolimits : cl;
    fl = fl == 2 ? hasForce && u->autolimits : fl;
    double limit = INFINITY;
    if (motor && cl && hasCtrl) {
      limit = fmax(fabs(ctrl[0]), fabs(ctrl[1])) * fabs(gear[0]);
    }
    if (fl && hasForce) {
      limit = fmin(limit, fmax(fabs(force[0]), fabs(force[1])));
    }
    if (isfinite(limit)) {
      hsuVec *c = &LINKSPEC(u, link).limits[4];
      if (c->n) {
        ((double *)c->data)[0] = fmin(((double *)c->data)[0], limit);
      } else if (!hsu_vecPush(c, sizeof limit, &limit)) {
        return hsm_mjcfNomem(u);
      }
    }
  }
  return 0;
}

int hsm_mjcfSensorsAndActuators(hsmMjcfLoad *u) {
  static const char *const left[] = {"tendon", "equality", "keyframe", "option",
                                     "extension", "custom", "deformable", NULL};
  for (int i = 0; i < u->root->nkid; i++) {
    const hsmXmlElem *k = u->root->kids[i];
    int rc = 0;
    if (strcmp(k->name, "sensor") == 0) {
      rc = readSensors(u, k);
    } else if (strcmp(k->name, "actuator") == 0) {
      rc = readActuators(u, k);
    } else {
      for (int j = 0; left[j]; j++) {
        if (strcmp(k->name, left[j]) == 0 && k->nkid + k->nattr > 0) {
          hsm_mjcfWarn(u, k, "<%s> is not supported: the body is loaded without it", k->name);
        }
      }
    }
    if (rc) {
      return rc;
    }
  }
  return 0;
}
