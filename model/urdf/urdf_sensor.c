// urdf_sensor.c - Gazebo <sensor>s of a URDF robot as OpenHRP sensors (hsm_urdfAddSensors).
//
// urdf_xml.c reads each <gazebo reference="..."><sensor> into an hsmUrdfSensor; here each becomes
// one or two builder sensors, exactly as a VRML sensor node would be: on the body link of the
// referenced URDF link (a joint reference means the joint's child link), named after the
// sensor, with ids counted per OpenHRP type in file order, and the frame and specValues below.
//
// Frames. A Gazebo sensor's <pose> (x y z roll pitch yaw, rpy as URDF's) is in the link frame.
// - camera, depth: Gazebo's camera looks along +x of that frame with +z up; OpenHRP's
//   VisionSensor looks along -z with +y up. The VisionSensor frame is the pose turned by Rc,
//   whose columns are OpenHRP's axes in Gazebo's: x = -y_g (right), y = z_g (up), z = -x_g.
// - ray: Gazebo scans in the x-y plane, beam i at yaw min_angle + i (max - min) / (samples - 1)
//   from +x (yaw 0 for one sample), counter-clockwise about +z. OpenHRP's RangeSensor (see
//   sensors.h) looks along -z and fans about +y, beam i at a = (i - half) scanStep with direction
//   (-sin a, 0, -cos a): the same Rc maps it onto Gazebo's plane (-z -> +x, -x -> +y), so beam
//   order and angles agree once the frame is also turned about z_g to the middle of the scan,
//   (min + max) / 2. A vertical block of several rows keeps one row, the middle elevation p,
//   as a plane tilted up by p (Gazebo's rows are cones; equal at p = 0).
// - imu: the pose as it is (Gazebo and hrpsim both read angular velocity and specific force,
//   +9.8 on z at rest upright, in the sensor frame).
// - force_torque: the wrench about the joint origin (the child link origin), in the child link
//   frame (<frame> child, Gazebo's default), the sensor pose's rotation (sensor), or the parent
//   link's orientation at joint position 0 (parent; exact for a fixed joint). hrpsim's
//   ForceSensor reads what the link and everything beyond it exert on its parent: Gazebo's
//   default measure_direction child_to_parent.
//
// specValues (model.h's layouts):
// - Vision: clip near, far, horizontal_fov, COLOR (camera) or COLOR_DEPTH (depth; MONO and
//   MONO_DEPTH for an L8/L16 image), width, height, update_rate (30 when 0 or absent: Gazebo's 0
//   means every step, which a camera frame rate cannot say).
// - Range: scanAngle, scanStep, scanRate = update_rate (0: every step, as in Gazebo), maxDistance
//   = range max. OpenHRP's fan has an odd number of beams, one on the middle: an odd sample count
//   maps exactly (scanStep = (max - min) / (samples - 1)); an even count N gives N - 1 beams at
//   Gazebo's spacing, centred, with a warning. Range min, range resolution and the horizontal
//   resolution multiplier have no OpenHRP field.
// - RateGyro, Acceleration (imu: NAME and NAME_accel), Force: -1 limits (none), as VRML's
//   defaults.
//
// Noise. hrpsim's noise (sensors.h) is set per sensor type through the scheduler, not by the
// model, so a Gazebo gaussian noise (mean + bias_mean as the bias, stddev as the std) becomes a
// body info string that projects and clients can apply:
//   "urdf noise <sensor> <range|gyro|accel|force> std <n numbers> bias <n numbers>"
// (n = 1, 3, 3, 6; each number in the shortest %g form that reads back exactly). Image noise is
// not simulated.

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urdf_private.h"

#define ULINK(u, i) (((hsmUrdfLink *)(u)->doc.links.data)[i])
#define UJOINT(u, i) (((hsmUrdfJoint *)(u)->doc.joints.data)[i])

// OpenHRP's VisionSensor/RangeSensor axes in Gazebo's sensor frame (columns), row-major
static const double kRc[9] = {0, 0, -1, -1, 0, 0, 0, 1, 0};

// T * [R 0]
static void turn(double T[12], const double R[9]) {
  double zero[3] = {0, 0, 0}, M[12], out[12];
  hsu_makeTransform(M, R, zero);
  hsu_mulTransform(out, T, M);
  memcpy(T, out, sizeof out);
}

// add one builder sensor of `type` on body link `link` with frame S (in the link frame)
static int pushSensor(hsmUrdfLoad *u, const char *name, hstSensor type, int id, int link,
                      const double S[12], const double *spec, int nspec, int line) {
  hsmSensorSpec s;
  memset(&s, 0, sizeof s);
  s.sensor.type = type;
  s.sensor.id = id;
  s.sensor.link = link;
  double R[9];
  hsu_splitTransform(R, s.sensor.translation, S);
  hsu_matToAxisAngle(s.sensor.rotation, R);
  s.idAt = (hsmSource){u->file, line, 0};
  // names find sensors (hsm_sensorIndex, clients): a repeated one finds only the first
  const hsmSensorSpec *have = u->b->sensors.data;
  for (size_t i = 0; i < u->b->sensors.n; i++) {
    if (strcmp(have[i].name, name) == 0) {
      hsm_urdfWarn(u, line, "two sensors are named '%s' (the first on line %d): lookups by name "
                   "find the first", name, have[i].idAt.line);
      break;
    }
  }
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
    return hsm_urdfNomem(u);
  }
  return 0;
}

// x in the shortest %g form that reads back as x, after " " at buf + used; the new length
static int appendNumber(char *buf, size_t size, int used, double x) {
  int n = 0;
  for (int digits = 15; digits <= 17; digits++) {
    n = snprintf(buf + used, size - (size_t)used, " %.*g", digits, x);
    if (strtod(buf + used, NULL) == x) {
      break;
    }
  }
  return used + n;
}

// one noise info string for n components of sensor `name` (std then bias)
static int noiseInfo(hsmUrdfLoad *u, const char *name, const char *kind, const double *mean,
                     const double *std, int n) {
  char buf[1024];
  int used = snprintf(buf, sizeof buf, "urdf noise %s %s std", name, kind);
  for (int i = 0; i < n; i++) {
    used = appendNumber(buf, sizeof buf, used, std[i]);
  }
  used += snprintf(buf + used, sizeof buf - (size_t)used, " bias");
  for (int i = 0; i < n; i++) {
    used = appendNumber(buf, sizeof buf, used, mean[i]);
  }
  return hsm_addInfo(u->b, "%s", buf) < 0 ? hsm_urdfNomem(u) : 0;
}

// a RangeSensor's scanAngle and scanStep as floats whose OpenHRP beam count (int)(scanAngle / 2
// / scanStep) is exactly half (rounding to float must not lose a beam)
static void rangeFan(const hsmUrdfSensor *s, double spec[2]) {
  if (s->samples == 1) {
    spec[0] = 0, spec[1] = 1;  // one beam; the step is never used
    return;
  }
  int half = (s->samples - 1) / 2;
  double step = (s->maxAngle - s->minAngle) / (s->samples - 1);
  float fs = (float)step, fa = (float)(2 * half * step);
  while ((int)((double)fa / 2 / (double)fs) < half) {
    fa = nextafterf(fa, INFINITY);
  }
  spec[0] = fa, spec[1] = fs;
}

// the URDF link a reference names (a link, or a joint's child) and the joint it names, or -1
static int findReference(hsmUrdfLoad *u, const char *ref, int *joint) {
  *joint = -1;
  for (size_t i = 0; i < u->doc.links.n; i++) {
    if (strcmp(ULINK(u, i).name, ref) == 0) {
      return (int)i;
    }
  }
  for (size_t i = 0; i < u->doc.joints.n; i++) {
    if (strcmp(UJOINT(u, i).name, ref) == 0) {
      *joint = (int)i;
      return UJOINT(u, i).child;
    }
  }
  return -1;
}

// the sensors of one Gazebo sensor record
static int addOne(hsmUrdfLoad *u, const hsmUrdfSensor *s, const int *linkOf, int droppedLink,
                  int ids[hsSENSOR_NTYPES]) {
  int joint;
  int ul = findReference(u, s->reference, &joint);
  if (ul < 0) {
    return 0;  // urdf_xml.c warned
  }
  if (ul == droppedLink) {
    hsm_urdfWarn(u, s->line, "sensor '%s': link '%s' is the world link the body drops (its "
                 "child is the root): the sensor is skipped", s->name, s->reference);
    return 0;
  }
  int link = linkOf[ul];
  double S[12];
  memcpy(S, s->T, sizeof S);
  switch (s->type) {
    case hsURDF_CAMERA:
    case hsURDF_DEPTH: {
      turn(S, kRc);
      int kind = s->type == hsURDF_CAMERA ? (s->mono ? 2 : 1) : (s->mono ? 5 : 4);
      double spec[7] = {s->nearClip, s->farClip, s->fov, kind, s->width, s->height,
                        s->updateRate > 0 ? s->updateRate : 30};
      return pushSensor(u, s->name, hsSENSOR_VISION, ids[hsSENSOR_VISION]++, link, S, spec, 7,
                        s->line);
    }
    case hsURDF_RAY: {
      double yaw = s->samples > 1 ? (s->minAngle + s->maxAngle) / 2 : 0;
      double rpy[3] = {0, -s->pitch, yaw}, R[9];
      hsm_urdfRpyToMat(R, rpy);  // Rz(yaw) Ry(-pitch)
      turn(S, R);
      turn(S, kRc);
      if (s->samples > 1 && s->samples % 2 == 0) {
        hsm_urdfWarn(u, s->line, "sensor '%s': %d samples, an even number: OpenHRP's range "
                     "sensor has an odd number of beams with one in the middle, so it has %d "
                     "at the same spacing, centred", s->name, s->samples, s->samples - 1);
      }
      double spec[4];
      rangeFan(s, spec);
      spec[2] = s->updateRate, spec[3] = s->rangeMax;
      int rc = pushSensor(u, s->name, hsSENSOR_RANGE, ids[hsSENSOR_RANGE]++, link, S, spec, 4,
                          s->line);
      return rc || !s->hasNoise ? rc : noiseInfo(u, s->name, "range", s->noiseMean,
                                                  s->noiseStd, 1);
    }
    case hsURDF_IMU: {
      double none[3] = {-1, -1, -1};
      char accel[300];
      snprintf(accel, sizeof accel, "%s_accel", s->name);
      int rc = pushSensor(u, s->name, hsSENSOR_RATEGYRO, ids[hsSENSOR_RATEGYRO]++, link, S,
                          none, 3, s->line);
      rc = rc ? rc : pushSensor(u, accel, hsSENSOR_ACCELERATION, ids[hsSENSOR_ACCELERATION]++,
                                link, S, none, 3, s->line);
      if (!rc && (s->hasNoise & 1)) {
        rc = noiseInfo(u, s->name, "gyro", s->noiseMean, s->noiseStd, 3);
      }
      if (!rc && (s->hasNoise & 2)) {
        rc = noiseInfo(u, accel, "accel", s->noiseMean + 3, s->noiseStd + 3, 3);
      }
      return rc;
    }
    case hsURDF_FT: {
      // the joint the sensor measures: the one named, else the link's own
      int j = joint >= 0 ? joint : ULINK(u, ul).parentJoint;
      double R[9], t[3], zero[3] = {0, 0, 0};
      hsu_splitTransform(R, t, s->T);
      if (s->ftFrame == 0) {
        hsu_setIdentity(R);
      } else if (s->ftFrame == 1) {
        if (j >= 0) {
          double Rj[9], tj[3];
          hsu_splitTransform(Rj, tj, UJOINT(u, j).T);
          hsu_transpose(R, Rj);
          if (UJOINT(u, j).type != hsURDF_FIXED) {
            hsm_urdfWarn(u, s->line, "sensor '%s': <frame> parent on the moving joint '%s': "
                         "the readings are in the parent link's orientation at joint position "
                         "0, turning with the child", s->name, UJOINT(u, j).name);
          }
        } else {
          hsu_setIdentity(R);
        }
      }
      if (s->ftFrame != 2 && hsu_norm(t) > 0) {
        hsm_urdfWarn(u, s->line, "sensor '%s': the <pose> of a force_torque sensor is used only "
                     "with <frame> sensor: the wrench is taken about the joint origin", s->name);
      }
      hsu_makeTransform(S, R, zero);
      double none[6] = {-1, -1, -1, -1, -1, -1};
      int rc = pushSensor(u, s->name, hsSENSOR_FORCE, ids[hsSENSOR_FORCE]++, link, S, none, 6,
                          s->line);
      return rc || !s->hasNoise ? rc : noiseInfo(u, s->name, "force", s->noiseMean,
                                                  s->noiseStd, 6);
    }
  }
  return 0;
}

int hsm_urdfAddSensors(hsmUrdfLoad *u, const int *linkOf, int droppedLink) {
  int ids[hsSENSOR_NTYPES] = {0};
  const hsmUrdfSensor *sensors = u->doc.sensors.data;
  for (size_t i = 0; i < u->doc.sensors.n; i++) {
    int rc = addOne(u, &sensors[i], linkOf, droppedLink, ids);
    if (rc) {
      return rc;
    }
  }
  return 0;
}
