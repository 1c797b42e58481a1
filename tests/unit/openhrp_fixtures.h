// openhrp_fixtures.h - shared fixtures of the model and dynamics tests: the OpenHRP PROTO header
// for inline VRML models, loading inline text and samples, and finding a line in a test text.
// Everything is static inline so each test file takes what it uses.

#ifndef HRPSIM_TESTS_UNIT_OPENHRP_FIXTURES_H_
#define HRPSIM_TESTS_UNIT_OPENHRP_FIXTURES_H_

#include <stdio.h>
#include <string.h>

#include "model.h"
#include "test_support.h"

// OpenHRP-style PROTO declarations (ours) for inline test models: Joint, Segment, Humanoid,
// ForceSensor, Gyro, AccelerationSensor, ExtraJoint; model text starts on the next line
static const char *const hst_openhrpProtos =
    "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFVec3f center 0 0 0 exposedField MFNode children []\n"
    "  exposedField SFRotation rotation 0 0 1 0 exposedField SFVec3f translation 0 0 0\n"
    "  exposedField SFString jointType \"\" exposedField SFInt32 jointId -1\n"
    "  exposedField SFVec3f jointAxis 0 0 1 exposedField MFFloat ulimit []\n"
    "  exposedField MFFloat llimit [] exposedField SFFloat gearRatio 1\n"
    "  exposedField SFFloat rotorInertia 0 exposedField SFFloat jointValue 0\n"
    "  exposedField MFFloat uvlimit [] exposedField MFFloat lvlimit []\n"
    "  exposedField MFFloat climit [] exposedField SFFloat torqueConst 1 ]\n"
    "{ Transform { center IS center children IS children rotation IS rotation\n"
    "  translation IS translation } }\n"
    "PROTO Segment [ exposedField SFVec3f centerOfMass 0 0 0 exposedField MFNode children []\n"
    "  exposedField SFFloat mass 0 exposedField MFFloat momentsOfInertia [0 0 0 0 0 0 0 0 0] ]\n"
    "{ Group { children IS children } }\n"
    "PROTO Humanoid [ exposedField SFString name \"\" exposedField MFString info []\n"
    "  exposedField MFNode joints [] exposedField MFNode humanoidBody [] ]\n"
    "{ Group { children IS humanoidBody } }\n"
    "PROTO ForceSensor [ exposedField SFVec3f maxForce -1 -1 -1 exposedField SFVec3f maxTorque\n"
    "  -1 -1 -1 exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0\n"
    "  exposedField SFInt32 sensorId -1 ] { Transform { translation IS translation } }\n"
    "PROTO Gyro [ exposedField SFVec3f maxAngularVelocity -1 -1 -1 exposedField SFVec3f\n"
    "  translation 0 0 0 exposedField SFRotation rotation 0 0 1 0 exposedField SFInt32 sensorId\n"
    "  -1 exposedField MFNode children [] ] { Transform { translation IS translation\n"
    "  rotation IS rotation children IS children } }\n"
    "PROTO AccelerationSensor [ exposedField SFVec3f maxAcceleration -1 -1 -1 exposedField\n"
    "  SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0 exposedField SFInt32\n"
    "  sensorId -1 ] { Transform { translation IS translation rotation IS rotation } }\n"
    "PROTO ExtraJoint [ exposedField SFString link1Name \"\" exposedField SFString link2Name \"\"\n"
    "  exposedField SFVec3f link1LocalPos 0 0 0 exposedField SFVec3f link2LocalPos 0 0 0\n"
    "  exposedField SFString jointType \"xyz\" exposedField SFVec3f jointAxis 1 0 0 ]\n"
    "{ Group {} }\n";

// protos + text written to name and loaded; prints the error and returns NULL on failure
static inline hsBody *hst_loadVrmlText(const char *name, const char *text) {
  static char buf[32768];
  snprintf(buf, sizeof buf, "%s%s", hst_openhrpProtos, text);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(hst_writeFile(name, buf), NULL, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n  load %s: %s\n", name, err.message);
  }
  return b;
}

// a sample model (path relative to HST_SAMPLES_DIR); prints the error and returns NULL on failure
static inline hsBody *hst_loadSample(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", HST_SAMPLES_DIR, rel);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  if (!b) {
    fprintf(stderr, "\n  load %s: %s\n", path, err.message);
  }
  return b;
}

// the 1-based line of the first occurrence of needle in text, -1 if absent
static inline int hst_lineOf(const char *text, const char *needle) {
  const char *p = strstr(text, needle);
  int line = 1;
  for (const char *c = text; p && c < p; c++) {
    line += *c == '\n';
  }
  return p ? line : -1;
}

#endif  // HRPSIM_TESTS_UNIT_OPENHRP_FIXTURES_H_
