// test_loader.c - hsm_loadVrml: OpenHRP semantics, mass merging, validation errors with their
// lines, environments, sensors, shape sharing, and forward kinematics.

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "builder.h"
#include "model.h"
#include "openhrp_fixtures.h"
#include "test_support.h"

static char g_text[16384];

// write protos + body to name and load it
static hsBody *loadText(const char *name, const char *body, hsError *err) {
  snprintf(g_text, sizeof g_text, "%s%s", hst_openhrpProtos, body);
  const char *path = hst_writeFile(name, g_text);
  return hsm_loadVrml(path, NULL, NULL, 0, NULL, err);
}

// the 1-based line of the first occurrence of needle in the last loaded text
static int lineOf(const char *needle) {
  return hst_lineOf(g_text, needle);
}

// a two-link robot: free root with two segments, one rotating child
static const char *kTwoLink =
    "DEF ROBOT Humanoid { name \"robot\" info [\"a\" \"b\"] humanoidBody [\n"
    "DEF BASE Joint { jointType \"free\" translation 0 0 1\n"
    " children [\n"
    "  DEF S1 Segment { mass 2 centerOfMass 0 0 0 momentsOfInertia [1 0 0 0 2 0 0 0 3] }\n"
    "  Transform { translation 1 0 0 rotation 0 0 1 1.5707963267948966 children [\n"
    "   DEF S2 Segment { mass 2 centerOfMass 0 0 0 momentsOfInertia [1 0 0 0 2 0 0 0 3] } ] }\n"
    "  DEF ARM Joint { jointType \"rotate\" jointId 0 jointAxis 0 0 1 translation 0 0 0.5\n"
    "   ulimit [1.5] llimit [-1.5] gearRatio 100 rotorInertia 0.01\n"
    "   children [ DEF S3 Segment { mass 1 centerOfMass 0.5 0 0\n"
    "     momentsOfInertia [0.1 0 0 0 0.1 0 0 0 0.1] children Shape { geometry Box {} } } ] }\n"
    " ] } ]\n"
    "joints [ USE BASE USE ARM ] }\n";

static void testTwoLinkStructure(void) {
  hsError err = {0};
  hsBody *b = loadText("two.wrl", kTwoLink, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "ROBOT");  // the DEF name, not the name field
  CU_ASSERT_EQUAL(b->ninfo, 2);
  CU_ASSERT_STRING_EQUAL(b->info[1], "b");
  CU_ASSERT_EQUAL(b->nlink, 2);
  CU_ASSERT_EQUAL(b->njoint, 1);
  CU_ASSERT_EQUAL(b->jointLink[0], 1);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "BASE");
  CU_ASSERT_EQUAL(b->links[0].jointType, hsJOINT_FREE);
  CU_ASSERT_EQUAL(b->links[0].parent, -1);
  CU_ASSERT_EQUAL(b->links[0].nchild, 1);
  CU_ASSERT_EQUAL(b->links[0].children[0], 1);
  const hsLink *arm = &b->links[1];
  CU_ASSERT_STRING_EQUAL(arm->jointTypeName, "rotate");
  CU_ASSERT_EQUAL(arm->ulimit.n, 1);
  HST_NEAR(arm->ulimit.v[0], 1.5, 1e-12);
  HST_NEAR(arm->llimit.v[0], -1.5, 1e-12);
  CU_ASSERT_EQUAL(arm->uvlimit.n, 0);
  HST_NEAR(arm->gearRatio, 100, 1e-12);
  HST_NEAR(arm->rotorInertia, 0.01, 1e-12);
  HST_NEAR(arm->translation[2], 0.5, 1e-12);
  CU_ASSERT_EQUAL(arm->nsegment, 1);
  CU_ASSERT_EQUAL(arm->nshapeRef, 1);
  CU_ASSERT_EQUAL(b->nshape, 1);
  CU_ASSERT_EQUAL(b->shapes[0].primitive, hsPRIM_BOX);
  CU_ASSERT_EQUAL(b->shapes[0].ntriangle, 12);
  HST_NEAR(b->shapes[0].params[0], 2, 1e-6);  // VRML's default Box size
  hsm_freeBody(b);
}

static void testMassMerging(void) {
  // S1 at (0,0,0), S2 at (1,0,0) rotated 90 deg about z, both 2 kg, I = diag(1, 2, 3)
  // mass 4; com (0.5, 0, 0); S2's tensor rotated: diag(2, 1, 3);
  // sum of tensors diag(3, 3, 6); parallel axis, d = (+-0.5, 0, 0), m = 2 each:
  // 2 * 2 * (|d|^2 E - d d^T) = 4 * diag(0, 0.25, 0.25) = diag(0, 1, 1) -> diag(3, 4, 7)
  hsError err = {0};
  hsBody *b = loadText("mass.wrl", kTwoLink, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  const hsLink *base = &b->links[0];
  HST_NEAR(base->mass, 4, 1e-12);
  HST_NEAR(base->com[0], 0.5, 1e-12);
  HST_NEAR(base->com[1], 0, 1e-12);
  double want[9] = {3, 0, 0, 0, 4, 0, 0, 0, 7};
  for (int k = 0; k < 9; k++) {
    HST_NEAR(base->inertia[k], want[k], 1e-12);
  }
  // segments keep their own values and placement
  CU_ASSERT_EQUAL(base->nsegment, 2);
  const hsSegment *s2 = &b->segments[base->segmentAdr + 1];
  CU_ASSERT_STRING_EQUAL(s2->name, "S2");
  HST_NEAR(s2->inertia[4], 2, 1e-12);
  HST_NEAR(s2->T[3], 1, 1e-12);
  HST_NEAR(s2->T[1], -1, 1e-12);  // R[0][1] of a +90 deg turn about z
  // the arm: one segment, com from the segment
  HST_NEAR(b->links[1].com[0], 0.5, 1e-12);
  HST_NEAR(b->links[1].inertia[0], 0.1, 1e-12);
  hsm_freeBody(b);
}

static void testMergeMassOffDiagonal(void) {
  // one 3 kg point mass at (1, 2, 0) plus one 1 kg point mass at (-3, -6, 0): com at origin;
  // I = sum m (|d|^2 E - d d^T): xx = 3*4 + 1*36 = 48, yy = 3*1 + 1*9 = 12,
  // xy = -(3*2 + 1*18) = -24, zz = 3*5 + 1*45 = 60
  hsSegment seg[2];
  memset(seg, 0, sizeof seg);
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t0[3] = {0, 0, 0};
  hsu_makeTransform(seg[0].T, I, t0);
  hsu_makeTransform(seg[1].T, I, t0);
  seg[0].mass = 3, seg[0].com[0] = 1, seg[0].com[1] = 2;
  seg[1].mass = 1, seg[1].com[0] = -3, seg[1].com[1] = -6;
  double m, c[3], J[9];
  hsm_mergeMass(seg, 2, &m, c, J);
  HST_NEAR(m, 4, 1e-15);
  HST_NEAR(c[0], 0, 1e-15);
  HST_NEAR(J[0], 48, 1e-12);
  HST_NEAR(J[4], 12, 1e-12);
  HST_NEAR(J[1], -24, 1e-12);
  HST_NEAR(J[3], -24, 1e-12);
  HST_NEAR(J[8], 60, 1e-12);
}

static void testForwardKinematics(void) {
  hsError err = {0};
  hsBody *b = loadText("fk.wrl", kTwoLink, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  // initial pose: root at (0, 0, 1), arm 0.5 above
  HST_NEAR(st->linkP[2], 1, 1e-15);
  HST_NEAR(st->linkP[3 + 2], 1.5, 1e-15);
  // root turned 90 deg about x and moved; arm at q = 90 deg about its z axis
  double aa[4] = {1, 0, 0, HS_PI / 2};
  hsu_axisAngleToMat(st->rootR, aa);
  st->rootP[0] = 2, st->rootP[1] = 0, st->rootP[2] = 0;
  st->q[1] = HS_PI / 2;
  hsm_forwardKinematics(b, st);
  // arm origin = rootP + Rx(90) (0, 0, 0.5) = (2, -0.5, 0)
  HST_NEAR(st->linkP[3], 2, 1e-12);
  HST_NEAR(st->linkP[4], -0.5, 1e-12);
  HST_NEAR(st->linkP[5], 0, 1e-12);
  // arm R = Rx(90) Rz(90): its x axis (first column) = Rx(90) (0, 1, 0) = (0, 0, 1)
  const double *R = st->linkR + 9;
  HST_NEAR(R[0], 0, 1e-12);
  HST_NEAR(R[3], 0, 1e-12);
  HST_NEAR(R[6], 1, 1e-12);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testSlideFk(void) {
  hsError err = {0};
  hsBody *b = loadText("slide.wrl",
                       "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"fixed\"\n"
                       " children [ DEF B Joint { jointType \"slide\" jointId 0 jointAxis 0 1 0\n"
                       "  translation 1 0 0 rotation 0 0 1 1.5707963267948966 } ] } ] }\n",
                       &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsBodyState *st = hsm_makeState(b, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  st->q[1] = 0.25;
  hsm_forwardKinematics(b, st);
  // the y axis of B's frame (rotated 90 deg about z) points along world -x
  HST_NEAR(st->linkP[3], 1 - 0.25, 1e-12);
  HST_NEAR(st->linkP[4], 0, 1e-12);
  HST_NEAR(b->links[1].axis[1], 1, 0);
  hsm_freeState(st);
  hsm_freeBody(b);
}

static void testSensors(void) {
  hsError err = {0};
  hsBody *b = loadText(
      "sensors.wrl",
      "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
      " DEF GYRO Gyro { sensorId 0 maxAngularVelocity 1 2 3 translation 0 0 0.1 }\n"
      " Transform { translation 1 0 0 children\n"
      "  DEF FS Gyro { sensorId 1 translation 0 1 0 children Shape { geometry Sphere {} } } }\n"
      " DEF B Joint { jointType \"rotate\" jointId 0 children [\n"
      "  DEF FORCE ForceSensor { sensorId 0 maxForce 10 20 30 maxTorque 1 2 3 } ] }\n"
      " DEF G2 Gyro { sensorId 2 } ] } ] }\n",
      &err);
  if (!b) {
    char buf[1200];
    fprintf(stderr, "\n  %s\n", hsu_formatError(&err, buf, sizeof buf));
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nsensor, 4);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_RATEGYRO), 3);
  // grouped by link: A's three gyros in file order, then B's force sensor
  CU_ASSERT_EQUAL(b->links[0].nsensor, 3);
  CU_ASSERT_STRING_EQUAL(b->sensors[2].name, "G2");
  CU_ASSERT_EQUAL(b->links[1].sensorAdr, 3);
  const hsSensor *gyro = &b->sensors[hsm_sensorIndex(b, "GYRO")];
  CU_ASSERT_EQUAL(gyro->nspecValue, 3);
  HST_NEAR(gyro->specValues[2], 3, 1e-6);
  HST_NEAR(gyro->translation[2], 0.1, 1e-12);
  const hsSensor *fs = &b->sensors[hsm_sensorIndex(b, "FS")];
  HST_NEAR(fs->translation[0], 1, 1e-12);  // enclosing Transform applies
  HST_NEAR(fs->translation[1], 1, 1e-12);
  CU_ASSERT_EQUAL(fs->nshapeRef, 1);
  HST_NEAR(fs->shapeRefs[0].T[3], 0, 1e-12);  // shapes are in the sensor frame
  const hsSensor *force = &b->sensors[hsm_sensorById(b, hsSENSOR_FORCE, 0)];
  CU_ASSERT_STRING_EQUAL(force->name, "FORCE");
  CU_ASSERT_EQUAL(force->nspecValue, 6);
  HST_NEAR(force->specValues[1], 20, 1e-6);
  HST_NEAR(force->specValues[5], 3, 1e-6);
  CU_ASSERT_EQUAL(force->link, 1);
  hsm_freeBody(b);
}

static void testSharedShapesAndScale(void) {
  hsError err = {0};
  hsBody *b = loadText(
      "share.wrl",
      "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
      " DEF SH Shape { geometry Cylinder { radius 0.5 height 2 } }\n"
      " Transform { scale 1 2 1 children USE SH }\n"
      " DEF B Joint { jointType \"rotate\" jointId 0 children [ USE SH ] } ] } ] }\n",
      &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  // one shape shared by both links and by the scaled use, which keeps the primitive (as
  // OpenHRP's ShapeSetInfo does: a shape is its Shape node, the scale is in the reference)
  CU_ASSERT_EQUAL(b->nshape, 1);
  CU_ASSERT_EQUAL(b->links[0].nshapeRef, 2);
  CU_ASSERT_EQUAL(b->links[1].shapeRefs[0].shape, b->links[0].shapeRefs[0].shape);
  CU_ASSERT_EQUAL(b->links[0].shapeRefs[1].shape, b->links[0].shapeRefs[0].shape);
  const hsShape *prim = &b->shapes[0];
  CU_ASSERT_EQUAL(prim->primitive, hsPRIM_CYLINDER);
  CU_ASSERT_EQUAL(prim->nparam, 5);
  HST_NEAR(prim->params[0], 0.5, 1e-6);
  HST_NEAR(prim->params[1], 2, 1e-6);
  HST_NEAR(b->links[0].shapeRefs[1].T[5], 2, 1e-12);  // the scale stays in the transform
  hsm_freeBody(b);
}

static void testEnvironment(void) {
  const char *path = hst_writeFile(
      "env/floor.wrl",
      "#VRML V2.0 utf8\n"
      "Transform { translation 0 0 -0.05 children [\n"
      "  Shape { appearance Appearance { material Material { diffuseColor 0.1 0.2 0.3 } }\n"
      "          geometry Box { size 10 10 0.1 } }\n"
      "  Transform { translation 0 0 1 children Shape { geometry Sphere { radius 0.5 } } } ] }\n"
      "DirectionalLight { direction 0 0 -1 }\n");
  hsError err = {0};
  hsBody *b = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "floor");
  CU_ASSERT_EQUAL(b->nlink, 1);
  CU_ASSERT_STRING_EQUAL(b->links[0].name, "root");
  CU_ASSERT_STRING_EQUAL(b->links[0].jointTypeName, "fixed");
  CU_ASSERT_EQUAL(b->links[0].jointId, -1);
  CU_ASSERT_EQUAL(b->njoint, 0);
  CU_ASSERT_EQUAL(b->links[0].nshapeRef, 2);
  HST_NEAR(b->links[0].shapeRefs[1].T[11], 0.95, 1e-12);
  CU_ASSERT_EQUAL(b->nmaterial, 1);
  HST_NEAR(b->materials[0].diffuseColor[2], 0.3, 1e-6);
  CU_ASSERT_EQUAL(b->appearances[b->shapes[0].appearance].material, 0);
  CU_ASSERT_EQUAL(b->nlight, 1);
  CU_ASSERT_EQUAL(b->lights[0].type, hsLIGHT_DIRECTIONAL);
  hsm_freeBody(b);
}

static void testExtraJoint(void) {
  hsError err = {0};
  hsBody *b = loadText("ej.wrl",
                       "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"fixed\" "
                       "children [ DEF B Joint { jointType \"rotate\" jointId 0 } ] } ] }\n"
                       "DEF LOOP ExtraJoint { link1Name \"A\" link2Name \"B\" jointType \"xy\"\n"
                       " link1LocalPos 1 2 3 jointAxis 0 0 1 }\n",
                       &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nextraJoint, 1);
  CU_ASSERT_STRING_EQUAL(b->extraJoints[0].name, "LOOP");
  CU_ASSERT_EQUAL(b->extraJoints[0].type, hsEXTRA_XY);
  CU_ASSERT_EQUAL(b->extraJoints[0].link[1], 1);
  HST_NEAR(b->extraJoints[0].point[0][2], 3, 1e-12);
  hsm_freeBody(b);
  // Choreonoid's names, noted once each: piston -> xy, ball -> xyz
  hst_expectLog(1);
  b = loadText("ej2.wrl",
               "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"fixed\" "
               "children [ DEF B Joint { jointType \"rotate\" jointId 0 } ] } ] }\n"
               "DEF P ExtraJoint { link1Name \"A\" link2Name \"B\" jointType \"piston\" }\n"
               "DEF Q ExtraJoint { link1Name \"A\" link2Name \"B\" jointType \"ball\" }\n",
               &err);
  hst_expectLog(0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nextraJoint, 2);
  CU_ASSERT_EQUAL(b->extraJoints[0].type, hsEXTRA_XY);
  CU_ASSERT_EQUAL(b->extraJoints[1].type, hsEXTRA_XYZ);
  hsm_freeBody(b);
}

// load text expected to fail at the line holding `needle`, with `what` in the message
static void expectError(const char *body, const char *needle, const char *what) {
  hsError err = {0};
  hsBody *b = loadText("bad.wrl", body, &err);
  CU_ASSERT_PTR_NULL(b);
  hsm_freeBody(b);
  CU_ASSERT_EQUAL(err.line, lineOf(needle));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.file, "bad.wrl"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, what));
  if (err.line != lineOf(needle) || !strstr(err.message, what)) {
    fprintf(stderr, "\n  got %s:%d: %s (wanted line %d, '%s')\n", err.file, err.line,
            err.message, lineOf(needle), what);
  }
}

static void testValidationErrors(void) {
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint {\n jointType \"hinge\" } ] }\n",
              "\"hinge\"", "jointType \"hinge\"");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
              " DEF B Joint { jointType \"rotate\" jointId 0 }\n"
              " DEF C Joint { jointType \"rotate\"\n jointId 0 } ] } ] }\n",
              " jointId 0 } ]", "duplicate jointId 0");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
              " Segment {\n mass -1 } ] } ] }\n",
              "mass -1", "negative");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
              " Segment { mass 1\n momentsOfInertia [1 0.5 0 0 1 0 0 0 1] } ] } ] }\n",
              "momentsOfInertia [1 0.5", "not symmetric");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
              " Segment { mass 1\n momentsOfInertia [1 0 0 0 -1 0 0 0 1] } ] } ] }\n",
              "momentsOfInertia [1 0 0 0 -1", "not positive definite");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
              " DEF G1 Gyro { sensorId 0 }\n DEF G2 Gyro { sensorId 0 } ] } ] }\n",
              "G2 Gyro { sensorId 0", "duplicate sensorId 0");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"fixed\" } ] }\n"
              "DEF E ExtraJoint { link1Name \"A\" link2Name \"A\"\n jointType \"hinge\" }\n",
              "\"hinge\"", "not one of xyz, xy, z");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"fixed\" } ] }\n"
              "DEF E ExtraJoint { link1Name \"A\" link2Name \"NOPE\" }\n",
              "DEF E", "no link named 'NOPE'");
  expectError("DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\"\n"
              " jointAxis \"W\" } ] }\n",
              "\"W\"", "jointAxis");
}

static void testJointsListWarning(void) {
  hst_expectLog(1);
  hsmWarning warnings[4];
  int nwarn = 0;
  snprintf(g_text, sizeof g_text, "%s%s", hst_openhrpProtos,
           "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
           " DEF B Joint { jointType \"rotate\" jointId 0 } ] } ] joints [ USE A ] }\n");
  const char *path = hst_writeFile("warn.wrl", g_text);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(path, NULL, warnings, 4, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL(b);  // a warning is not fatal
  CU_ASSERT_EQUAL(nwarn, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(warnings[0].message, "'B' is missing"));
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  hsm_freeBody(b);
}

static void testAllocationFailureIsClean(void) {
  // every allocation the load makes may fail; each must give an error, never a crash or leak
  for (long n = 1; n < 400; n += 7) {
    hsError err = {0};
    snprintf(g_text, sizeof g_text, "%s%s", hst_openhrpProtos, kTwoLink);
    const char *path = hst_writeFile("oom.wrl", g_text);
    hsu_failAllocAfter(n);
    hsBody *b = hsm_loadVrml(path, NULL, NULL, 0, NULL, &err);
    hsu_failAllocAfter(0);
    CU_ASSERT(b != NULL || err.code == hsE_NOMEM);
    if (!b && err.code != hsE_NOMEM) {
      char buf[1200];
      fprintf(stderr, "\n  after %ld allocations: %s\n", n, hsu_formatError(&err, buf, sizeof buf));
    }
    hsm_freeBody(b);
  }
}

void register_loader(void) {
  CU_pSuite s = hst_addSuite("model_loader");
  CU_add_test(s, "two-link structure", testTwoLinkStructure);
  CU_add_test(s, "mass merging of segments", testMassMerging);
  CU_add_test(s, "merge mass with off-diagonal terms", testMergeMassOffDiagonal);
  CU_add_test(s, "forward kinematics (rotate)", testForwardKinematics);
  CU_add_test(s, "forward kinematics (slide)", testSlideFk);
  CU_add_test(s, "sensors", testSensors);
  CU_add_test(s, "shared shapes and scaled primitives", testSharedShapesAndScale);
  CU_add_test(s, "environment without Humanoid", testEnvironment);
  CU_add_test(s, "extra joint", testExtraJoint);
  CU_add_test(s, "validation errors with lines", testValidationErrors);
  CU_add_test(s, "joints list warning", testJointsListWarning);
  CU_add_test(s, "allocation failure", testAllocationFailureIsClean);
}
