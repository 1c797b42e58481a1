// model_names.c - name and type lookups on a loaded hsBody.

#include <string.h>

#include "model.h"

static const char *const kJointNames[] = {"free", "rotate", "slide", "fixed", "crawler"};
static const char *const kSensorNames[] = {"Force", "RateGyro", "Acceleration", "Vision",
                                           "Range"};

int hsm_linkIndex(const hsBody *body, const char *name) {
  if (!body || !name) {
    return -1;
  }
  for (int i = 0; i < body->nlink; i++) {
    if (strcmp(body->links[i].name, name) == 0) {
      return i;
    }
  }
  // a link's only segment may name it too (a URDF link beside its joint)
  for (int i = 0; i < body->nlink; i++) {
    const hsLink *l = &body->links[i];
    if (l->nsegment == 1 && strcmp(body->segments[l->segmentAdr].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

int hsm_sensorIndex(const hsBody *body, const char *name) {
  if (!body || !name) {
    return -1;
  }
  for (int i = 0; i < body->nsensor; i++) {
    if (strcmp(body->sensors[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

int hsm_sensorById(const hsBody *body, hstSensor type, int id) {
  for (int i = 0; body && i < body->nsensor; i++) {
    if (body->sensors[i].type == type && body->sensors[i].id == id) {
      return i;
    }
  }
  return -1;
}

int hsm_sensorCount(const hsBody *body, hstSensor type) {
  int n = 0;
  for (int i = 0; body && i < body->nsensor; i++) {
    n += body->sensors[i].type == type;
  }
  return n;
}

const char *hsm_jointTypeName(hstJoint type) {
  return (unsigned)type < 5 ? kJointNames[type] : "?";
}

const char *hsm_sensorTypeName(hstSensor type) {
  return (unsigned)type < hsSENSOR_NTYPES ? kSensorNames[type] : "?";
}

int hsm_parseJointType(const char *name, hstJoint *type) {
  for (int i = 0; name && i < 5; i++) {
    if (strcmp(name, kJointNames[i]) == 0) {
      *type = (hstJoint)i;
      return 0;
    }
  }
  return -1;
}

int hsm_hasOneDofJoint(const hsLink *link) {
  return link && link->parent >= 0 &&
         (link->jointType == hsJOINT_ROTATE || link->jointType == hsJOINT_SLIDE);
}

long hsm_triangleCount(const hsBody *body) {
  long n = 0;
  for (int i = 0; body && i < body->nshape; i++) {
    n += body->shapes[i].ntriangle;
  }
  return n;
}
