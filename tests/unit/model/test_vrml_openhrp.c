// test_vrml_openhrp.c - what real OpenHRP and Choreonoid files contain, loaded as OpenHRP 3.1's
// ModelLoader loads them: files without a header, interface-only PROTOs, flat boxes, broken
// normals, jointId gaps, zero axes where they play no role, Choreonoid joint type names; the
// shape rules (shapes per Shape node and Inline copy, primitives under scaling, PROTO geometry);
// and the limits that make a doubling file fail fast. Every model here is written for the test.

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "builder.h"
#include "model.h"
#include "openhrp_fixtures.h"
#include "test_support.h"

static char g_text[65536];

// write protos + body to name and load it with opt (NULL: defaults), collecting warnings
static hsBody *load(const char *name, const char *body, const hsmLoadOptions *opt,
                    hsmWarning *warn, int *nwarn, hsError *err) {
  snprintf(g_text, sizeof g_text, "%s%s", hst_openhrpProtos, body);
  const char *path = hst_writeFile(name, g_text);
  return hsm_loadVrml(path, opt, warn, warn ? 8 : 0, nwarn, err);
}

static int lineOf(const char *needle) {
  return hst_lineOf(g_text, needle);
}

// 1 if the body's info strings hold a warning line containing needle
static int infoWarns(const hsBody *b, const char *needle) {
  for (int i = 0; i < b->ninfo; i++) {
    if (strncmp(b->info[i], "warning: ", 9) == 0 && strstr(b->info[i], needle)) {
      return 1;
    }
  }
  return 0;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

//---------------------------------- part 1: what real files contain -------------------------

static void testNoHeader(void) {
  // a part file as OpenHRP's PA10/RH2 ship them: no header, inlined by the robot file
  const char *part = hst_writeFile("nohdr/part.wrl", "Shape { geometry Box { size 1 2 3 } }\n");
  (void)part;
  char robot[512];
  snprintf(robot, sizeof robot,
           "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
           " Segment { mass 1 children [ Inline { url \"part.wrl\" } ] } ] } ] }\n");
  hst_expectLog(1);
  hsmWarning warn[8];
  int nwarn = 0;
  hsError err = {0};
  hsBody *b = load("nohdr/robot.wrl", robot, NULL, warn, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nshape, 1);
  CU_ASSERT_EQUAL(b->shapes[0].primitive, hsPRIM_BOX);
  CU_ASSERT_EQUAL_FATAL(nwarn, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(warn[0].file, "nohdr/part.wrl"));
  CU_ASSERT_EQUAL(warn[0].line, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(warn[0].message, "header"));
  CU_ASSERT_TRUE(infoWarns(b, "part.wrl:1: no '#VRML V2.0 utf8' header"));
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  hsm_freeBody(b);
}

static void testDefNameAsType(void) {
  // Choreonoid's sample data writes "DEF Transform { ... }" (no node type); the reader takes the
  // name as the type, and the warning reaches the body's info strings with file and line
  const char *robot =
      "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
      " Segment { mass 1 children [\n"
      "  DEF Transform { translation 0 0 1\n"
      "   children [ Shape { geometry Box { size 1 2 3 } } ] }\n"
      " ] } ] } ] }\n";
  hst_expectLog(1);
  hsmWarning warn[8];
  int nwarn = 0;
  hsError err = {0};
  hsBody *b = load("defname/robot.wrl", robot, NULL, warn, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nshape, 1);
  CU_ASSERT_EQUAL(b->shapes[0].primitive, hsPRIM_BOX);
  CU_ASSERT_EQUAL(b->shapes[0].params[1], 2.0f);
  CU_ASSERT_EQUAL_FATAL(nwarn, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(warn[0].file, "defname/robot.wrl"));
  CU_ASSERT_EQUAL(warn[0].line, lineOf("DEF Transform {"));
  CU_ASSERT_TRUE(infoWarns(b, "DEF Transform has no node type; read as a Transform node named "
                              "Transform (as Choreonoid does)"));
  char where[64];
  snprintf(where, sizeof where, "robot.wrl:%d: DEF Transform", lineOf("DEF Transform {"));
  CU_ASSERT_TRUE(infoWarns(b, where));
  CU_ASSERT_EQUAL(hst_logCount(), 1);
  hsm_freeBody(b);
}

static void testEmptyProtoBody(void) {
  // the OpenHRP model-file spec's ExtraJoint: an interface with an empty body
  const char *text =
      "#VRML V2.0 utf8\n"
      "PROTO Joint [ exposedField SFVec3f center 0 0 0 exposedField MFNode children []\n"
      "  exposedField SFRotation rotation 0 0 1 0 exposedField SFVec3f translation 0 0 0\n"
      "  exposedField SFString jointType \"\" exposedField SFInt32 jointId -1\n"
      "  exposedField SFVec3f jointAxis 0 0 1 ] { }\n"
      "PROTO Segment [ exposedField SFVec3f centerOfMass 0 0 0 exposedField MFNode children []\n"
      "  exposedField SFFloat mass 0 exposedField MFFloat momentsOfInertia [0 0 0 0 0 0 0 0 0]\n"
      "] { }\n"
      "PROTO Humanoid [ exposedField MFNode humanoidBody [] exposedField MFString info [] ] { }\n"
      "PROTO ExtraJoint [ exposedField SFString link1Name \"\"\n"
      "  exposedField SFString link2Name \"\"\n"
      "  exposedField SFVec3f link1LocalPos 0 0 0 exposedField SFVec3f link2LocalPos 0 0 0\n"
      "  exposedField SFString jointType \"xyz\" exposedField SFVec3f jointAxis 1 0 0 ] { }\n"
      "DEF LOOP Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      "  Segment { mass 1 momentsOfInertia [1 0 0 0 1 0 0 0 1]\n"
      "    children Shape { geometry Sphere { radius 0.1 } } }\n"
      "  DEF L1 Joint { jointType \"rotate\" jointId 0 translation 0 0 1 }\n"
      "  DEF L2 Joint { jointType \"rotate\" jointId 1 translation 1 0 0 } ] } ] }\n"
      "DEF CLOSE ExtraJoint { link1Name \"L1\" link2Name \"L2\" link1LocalPos 1 0 0\n"
      "  jointType \"xy\" jointAxis 0 1 0 }\n";
  hsError err = {0};
  hsBody *b = hsm_loadVrml(hst_writeFile("closed.wrl", text), NULL, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(b->name, "LOOP");
  CU_ASSERT_EQUAL(b->nlink, 3);
  CU_ASSERT_EQUAL(b->njoint, 2);
  HST_NEAR(b->links[0].mass, 1, 0);
  CU_ASSERT_EQUAL(b->nshape, 1);
  CU_ASSERT_EQUAL_FATAL(b->nextraJoint, 1);
  const hsExtraJoint *e = &b->extraJoints[0];
  CU_ASSERT_STRING_EQUAL(e->name, "CLOSE");
  CU_ASSERT_EQUAL(e->type, hsEXTRA_XY);
  CU_ASSERT_EQUAL(e->link[0], 1);
  CU_ASSERT_EQUAL(e->link[1], 2);
  HST_NEAR(e->point[0][0], 1, 0);
  HST_NEAR(e->axis[1], 1, 0);
  hsm_freeBody(b);
}

static void testFlatBox(void) {
  // OpenHRP's plane.wrl: a Box of zero thickness is a box primitive all the same
  hsError err = {0};
  hsBody *b = load("plane.wrl", "Shape { geometry Box { size 10 10 0 } }\n", NULL, NULL, NULL,
                   &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nshape, 1);
  const hsShape *s = &b->shapes[0];
  CU_ASSERT_EQUAL(s->primitive, hsPRIM_BOX);
  CU_ASSERT_EQUAL_FATAL(s->nparam, 3);
  CU_ASSERT_EQUAL(s->params[0], 10.0f);
  CU_ASSERT_EQUAL(s->params[2], 0.0f);
  CU_ASSERT_EQUAL(s->ntriangle, 12);
  hsm_freeBody(b);
  // a negative size: OpenHRP drops the shape with a message; so does hrpsim, with a warning
  hst_expectLog(1);
  b = load("negbox.wrl", "Shape { geometry Box { size 1 -1 1 } }\n"
           "Shape { geometry Sphere { radius 1 } }\n", NULL, NULL, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nshape, 1);
  CU_ASSERT_EQUAL(b->shapes[0].primitive, hsPRIM_SPHERE);
  CU_ASSERT_TRUE(infoWarns(b, "negative size"));
  hsm_freeBody(b);
}

static void testBrokenNormals(void) {
  // an exporter's NaN normals: dropped and generated, one warning at their line
  const char *text =
      "Shape { geometry IndexedFaceSet {\n"
      "  coord Coordinate { point [0 0 0, 1 0 0, 1 1 0, 0 1 0] }\n"
      "  coordIndex [0 1 2 -1 0 2 3 -1]\n"
      "  normal Normal { vector [0 0 1, -nan -nan -nan, 0 0 1, nan inf -inf] }\n"
      "  normalIndex [0 1 2 -1 0 2 3 -1] } }\n";
  hst_expectLog(1);
  hsmWarning warn[8];
  int nwarn = 0;
  hsError err = {0};
  hsBody *b = load("nan_normals.wrl", text, NULL, warn, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(nwarn, 1);
  CU_ASSERT_EQUAL(warn[0].line, lineOf("normal Normal"));
  CU_ASSERT_PTR_NOT_NULL(strstr(warn[0].message, "normals are dropped"));
  CU_ASSERT_EQUAL_FATAL(b->nshape, 1);
  CU_ASSERT_EQUAL(b->shapes[0].ntriangle, 2);
  const hsAppearance *a = &b->appearances[b->shapes[0].appearance];
  CU_ASSERT_TRUE_FATAL(a->nnormal > 0);
  for (int i = 0; i < 3 * a->nnormal; i++) {
    CU_ASSERT_TRUE(isfinite(a->normals[i]));
  }
  // the square lies in z = 0 and is counter-clockwise seen from +z: generated normals are +z
  HST_NEAR(a->normals[2], 1, 1e-6);
  hsm_freeBody(b);
  // NaN in anything physical stays an error, located at the number
  const char *bad[][2] = {
      {"DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
       " Segment {\n mass nan } ] } ] }\n", "mass nan"},
      {"Transform {\n translation 0 -inf 0 children Shape { geometry Box {} } }\n",
       "translation 0 -inf"},
      {"Shape { geometry IndexedFaceSet { coord Coordinate {\n point [0 0 0, 1 NaN 0, 1 1 0] }\n"
       " coordIndex [0 1 2] } }\n", "point [0 0 0"},
      {"Shape { geometry Box {\n size 1 Infinity 1 } }\n", "size 1 Inf"}};
  for (int i = 0; i < 4; i++) {
    err = (hsError){0};
    b = load("nan_bad.wrl", bad[i][0], NULL, NULL, NULL, &err);
    CU_ASSERT_PTR_NULL(b);
    hsm_freeBody(b);
    CU_ASSERT_EQUAL(err.code, hsE_MODEL);
    CU_ASSERT_EQUAL(err.line, lineOf(bad[i][1]));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not finite"));
  }
}

static void testJointIdGaps(void) {
  // a pan-tilt unit: joints 0..4 and a sensor joint at 9
  const char *text =
      "DEF PT Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      " DEF J0 Joint { jointType \"rotate\" jointId 0 children [\n"
      "  DEF J1 Joint { jointType \"rotate\" jointId 1 }\n"
      "  DEF J2 Joint { jointType \"rotate\" jointId 2 }\n"
      "  DEF J3 Joint { jointType \"rotate\" jointId 3 }\n"
      "  DEF J4 Joint { jointType \"slide\" jointId 4 }\n"
      "  DEF CAM Joint { jointType \"rotate\"\n jointId 9 } ] } ] } ] }\n";
  hst_expectLog(1);
  hsmWarning warn[8];
  int nwarn = 0;
  hsError err = {0};
  hsBody *b = load("gaps.wrl", text, NULL, warn, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  // as OpenHRP's Body: joint-ordered arrays have the largest id + 1 entries
  CU_ASSERT_EQUAL_FATAL(b->njoint, 10);
  for (int j = 0; j < 5; j++) {
    CU_ASSERT_EQUAL(b->jointLink[j], j + 1);  // links depth-first: BASE, J0, J1, ...
  }
  for (int j = 5; j < 9; j++) {
    CU_ASSERT_EQUAL(b->jointLink[j], -1);
  }
  CU_ASSERT_EQUAL(b->jointLink[9], 6);
  CU_ASSERT_EQUAL(b->links[6].jointId, 9);  // served as written
  CU_ASSERT_EQUAL_FATAL(nwarn, 1);
  CU_ASSERT_EQUAL(warn[0].line, lineOf(" jointId 9"));
  CU_ASSERT_PTR_NOT_NULL(strstr(warn[0].message, "jointIds have gaps: 4 of 0..9 unused"));
  hsm_freeBody(b);
  // duplicates and ids beyond OpenHRP's short stay errors
  err = (hsError){0};
  b = load("gaps_bad.wrl",
           "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
           " DEF B Joint { jointType \"rotate\"\n jointId 40000 } ] } ] }\n",
           NULL, NULL, NULL, &err);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_EQUAL(err.line, lineOf(" jointId 40000"));
  hsm_freeBody(b);
}

static void testZeroAxisAndChoreonoidTypes(void) {
  const char *text =
      "DEF C Humanoid { humanoidBody [ DEF BODY Joint { jointType \"free\" jointAxis 0 0 0\n"
      " children [ DEF FIX Joint { jointType \"fixed\" jointAxis 0 0 0 }\n"
      "  DEF TRACK Joint { jointType \"pseudoContinuousTrack\" jointId 0 jointAxis 0 1 0 } ] }"
      " ] }\n";
  hst_expectLog(1);
  hsmWarning warn[8];
  int nwarn = 0;
  hsError err = {0};
  hsBody *b = load("track.wrl", text, NULL, warn, &nwarn, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  // the zero axis is kept where it plays no role, as OpenHRP serves it
  for (int k = 0; k < 3; k++) {
    CU_ASSERT_EQUAL(b->links[0].axis[k], 0.0);
    CU_ASSERT_EQUAL(b->links[1].axis[k], 0.0);
  }
  CU_ASSERT_EQUAL(b->links[2].jointType, hsJOINT_CRAWLER);
  CU_ASSERT_STRING_EQUAL(b->links[2].jointTypeName, "crawler");
  HST_NEAR(b->links[2].axis[1], 1, 0);
  CU_ASSERT_EQUAL_FATAL(nwarn, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(warn[0].message, "\"pseudoContinuousTrack\" (Choreonoid) read "
                                                 "as \"crawler\""));
  hsm_freeBody(b);
  // where the axis matters it must have a length
  err = (hsError){0};
  b = load("axis0.wrl",
           "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
           " DEF B Joint { jointType \"rotate\" jointId 0\n jointAxis 0 0 0 } ] } ] }\n",
           NULL, NULL, NULL, &err);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_EQUAL(err.line, lineOf(" jointAxis 0 0 0"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "zero length"));
  hsm_freeBody(b);
}

//---------------------------------- part 2: OpenHRP's shape list ------------------------------

static void testShapeRules(void) {
  // a part inlined twice is two shapes (OpenHRP reads the file anew for each Inline); a Shape
  // USEd twice is one; a scaled primitive stays a primitive; PROTO geometry is a mesh; the
  // Plane PROTO over a Box is a plane
  hst_writeFile("rules/leg.wrl", "#VRML V2.0 utf8\n"
                "DEF LEG Shape { geometry Cylinder { radius 0.05 height 0.7 } }\n"
                "Transform { translation 0 -0.35 0 children USE LEG }\n");
  const char *text =
      "PROTO MyBox [ field SFVec3f size 1 1 1 ] { Box { size IS size } }\n"
      "PROTO Plane [ field SFVec3f size 1 1 1 ] { Box { size IS size } }\n"
      "Transform { translation 1 0 0 children Inline { url \"leg.wrl\" } }\n"
      "Transform { translation -1 0 0 children Inline { url \"leg.wrl\" } }\n"
      "DEF TOP Shape { geometry Box { size 2 0.1 1 } }\n"
      "Transform { scale 1 3 1 children USE TOP }\n"
      "Shape { geometry MyBox { size 1 2 3 } }\n"
      "Shape { geometry Plane { size 5 5 0 } }\n";
  hsError err = {0};
  hsBody *b = load("rules/table.wrl", text, NULL, NULL, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->nshape, 5);
  CU_ASSERT_EQUAL_FATAL(b->links[0].nshapeRef, 8);
  const hsShapeRef *r = b->links[0].shapeRefs;
  // leg file: one shape per Inline, used twice within it
  CU_ASSERT_EQUAL(r[0].shape, r[1].shape);
  CU_ASSERT_EQUAL(r[2].shape, r[3].shape);
  CU_ASSERT_NOT_EQUAL(r[0].shape, r[2].shape);
  CU_ASSERT_EQUAL(b->shapes[r[0].shape].primitive, hsPRIM_CYLINDER);
  CU_ASSERT_EQUAL(b->shapes[r[2].shape].primitive, hsPRIM_CYLINDER);
  // named after the Inline's file, the others after the body's file; one matrix per Inline
  CU_ASSERT_PTR_NOT_NULL(strstr(b->shapes[r[0].shape].url, "rules/leg.wrl"));
  CU_ASSERT_STRING_EQUAL(b->shapes[r[4].shape].url, b->url);
  CU_ASSERT_EQUAL(b->links[0].ninlinedMatrix, 2);
  CU_ASSERT_EQUAL(r[1].inlineMatrix, 0);
  CU_ASSERT_EQUAL(r[3].inlineMatrix, 1);
  CU_ASSERT_EQUAL(r[4].inlineMatrix, -1);
  // the table top: one primitive, its scaled use keeps the unscaled size
  CU_ASSERT_EQUAL(r[4].shape, r[5].shape);
  const hsShape *top = &b->shapes[r[4].shape];
  CU_ASSERT_EQUAL(top->primitive, hsPRIM_BOX);
  HST_NEAR(top->params[1], 0.1, 1e-7);
  HST_NEAR(r[5].T[5], 3, 1e-12);
  // PROTO geometry
  CU_ASSERT_EQUAL(b->shapes[r[6].shape].primitive, hsPRIM_MESH);
  CU_ASSERT_EQUAL(b->shapes[r[6].shape].nparam, 0);
  CU_ASSERT_EQUAL(b->shapes[r[6].shape].ntriangle, 12);
  const hsShape *plane = &b->shapes[r[7].shape];
  CU_ASSERT_EQUAL(plane->primitive, hsPRIM_PLANE);
  CU_ASSERT_EQUAL_FATAL(plane->nparam, 3);
  CU_ASSERT_EQUAL(plane->params[0], 5.0f);
  CU_ASSERT_EQUAL(plane->params[2], 0.0f);
  hsm_freeBody(b);
}

//---------------------------------- part 5: limits --------------------------------------------

// a file whose DEF/USE doubles its shapes `levels` times
static void doublingText(char *out, size_t size, int levels) {
  size_t n = (size_t)snprintf(out, size, "DEF G0 Group { children Shape { geometry Box {} } }\n");
  for (int i = 1; i <= levels; i++) {
    n += (size_t)snprintf(out + n, size - n, "DEF G%d Group { children [ USE G%d USE G%d ] }\n",
                          i, i - 1, i - 1);
  }
}

// the default limits lowered 50 times: the same paths as the defaults (which the e2e suite
// drives through the server), cheap enough to run under valgrind
static hsmLoadOptions smallLimits(void) {
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.maxSceneNodes /= 50;
  opt.maxNodeVisits /= 50;
  opt.maxShapeInstances /= 50;
  opt.maxTriangles /= 50;
  return opt;
}

static void testDefUseDoubling(void) {
  // 2^30 placed boxes: the shape budget stops it
  hsmLoadOptions small = smallLimits();
  char *text = hsu_malloc(8192);
  doublingText(text, 8192, 30);
  hsError err = {0};
  double t0 = seconds();
  hsBody *b = load("doubling.wrl", text, &small, NULL, NULL, &err);
  double dt = seconds() - t0;
  CU_ASSERT_PTR_NULL(b);
  hsm_freeBody(b);
  CU_ASSERT_EQUAL(err.code, hsE_MODEL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "places more than 20000 shapes"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.file, "doubling.wrl"));
  CU_ASSERT_TRUE(dt < 5);  // fails fast, never runs away
  // the limits are options: 2047 shapes fit the defaults, not a limit of 1000
  doublingText(text, 8192, 10);
  err = (hsError){0};
  b = load("doubling10.wrl", text, NULL, NULL, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->nshape, 1);
  CU_ASSERT_EQUAL(b->links[0].nshapeRef, 2047);  // G0 .. G10 all at the top: 2^11 - 1
  hsm_freeBody(b);
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.maxShapeInstances = 1000;
  err = (hsError){0};
  b = load("doubling10.wrl", text, &opt, NULL, NULL, &err);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "places more than 1000 shapes"));
  hsm_freeBody(b);
  // doubling groups with nothing in them: the visit budget ends the walk
  snprintf(text, 8192, "DEF G0 Group {}\n");
  size_t n = strlen(text);
  for (int i = 1; i <= 30; i++) {
    n += (size_t)snprintf(text + n, 8192 - n, "DEF G%d Group { children [ USE G%d USE G%d ] }\n",
                          i, i - 1, i - 1);
  }
  err = (hsError){0};
  t0 = seconds();
  b = load("doubling_empty.wrl", text, &small, NULL, NULL, &err);
  dt = seconds() - t0;
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "expands to more than 200000 nodes"));
  CU_ASSERT_TRUE(dt < 10);
  hsm_freeBody(b);
  hsu_free(text);
}

static void testInlineDoubling(void) {
  // level k includes level k+1 twice, 26 levels deep
  char name[64], body[256];
  for (int k = 0; k < 26; k++) {
    snprintf(name, sizeof name, "idbl/l%d.wrl", k);
    if (k == 25) {
      snprintf(body, sizeof body, "#VRML V2.0 utf8\nShape { geometry Sphere {} }\n");
    } else {
      snprintf(body, sizeof body,
               "#VRML V2.0 utf8\nInline { url \"l%d.wrl\" }\n"
               "Transform { translation 1 0 0 children Inline { url \"l%d.wrl\" } }\n",
               k + 1, k + 1);
    }
    hst_writeFile(name, body);
  }
  hsmLoadOptions small = smallLimits();
  hsError err = {0};
  double t0 = seconds();
  hsBody *b = load("idbl/top.wrl", "Inline { url \"l0.wrl\" }\n", &small, NULL, NULL, &err);
  double dt = seconds() - t0;
  CU_ASSERT_PTR_NULL(b);
  hsm_freeBody(b);
  CU_ASSERT_EQUAL(err.code, hsE_MODEL);
  // each Inline copy is a new shape: the shape or triangle budget ends it
  CU_ASSERT_TRUE(strstr(err.message, "places more than") != NULL ||
                 strstr(err.message, "triangles") != NULL);
  CU_ASSERT_TRUE(dt < 10);
}

static void testProtoDoubling(void) {
  // PROTO expansion copies bodies: P_k's body holds two P_(k-1), 30 levels
  char *text = hsu_malloc(16384);
  size_t n = (size_t)snprintf(text, 16384, "PROTO P0 [] { Shape { geometry Box {} } }\n");
  for (int i = 1; i <= 30; i++) {
    n += (size_t)snprintf(text + n, 16384 - n,
                          "PROTO P%d [] { Group { children [ P%d {} P%d {} ] } }\n", i, i - 1,
                          i - 1);
  }
  snprintf(text + n, 16384 - n, "P30 {}\n");
  hsmLoadOptions small = smallLimits();
  hsError err = {0};
  double t0 = seconds();
  hsBody *b = load("protodbl.wrl", text, &small, NULL, NULL, &err);
  double dt = seconds() - t0;
  CU_ASSERT_PTR_NULL(b);
  hsm_freeBody(b);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "expands to more than 40000 nodes"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.file, "protodbl.wrl"));
  CU_ASSERT_TRUE(dt < 10);
  hsu_free(text);
}

static void testGeometryBudget(void) {
  // a few numbers asking for a huge grid or extrusion are refused before anything is built
  hsmLoadOptions small = smallLimits();  // 100,000 triangles
  hsError err = {0};
  double t0 = seconds();
  hsBody *b = load("grid.wrl", "Shape { geometry ElevationGrid {\n xDimension 30000 zDimension "
                   "30000 } }\n", &small, NULL, NULL, &err);
  CU_ASSERT_PTR_NULL(b);
  hsm_freeBody(b);
  CU_ASSERT_EQUAL(err.line, lineOf("Shape { geometry ElevationGrid"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "ElevationGrid would make 1799880002 triangles"));
  char *text = hsu_malloc(200000);
  size_t n = (size_t)snprintf(text, 200000, "Shape { geometry Extrusion { spine [");
  for (int i = 0; i < 400; i++) {
    n += (size_t)snprintf(text + n, 200000 - n, " 0 %d 0", i);
  }
  n += (size_t)snprintf(text + n, 200000 - n, " ] crossSection [");
  for (int i = 0; i < 400; i++) {
    n += (size_t)snprintf(text + n, 200000 - n, " %g %g", cos(i * 0.01), sin(i * 0.01));
  }
  snprintf(text + n, 200000 - n, " ] } }\n");
  err = (hsError){0};
  b = load("extrusion.wrl", text, &small, NULL, NULL, &err);
  CU_ASSERT_PTR_NULL(b);
  hsm_freeBody(b);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "Extrusion would make"));
  CU_ASSERT_TRUE(seconds() - t0 < 5);
  // the same extrusion fits the default budget
  err = (hsError){0};
  b = load("extrusion.wrl", text, NULL, NULL, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL(b);
  hsm_freeBody(b);
  hsu_free(text);
}

static void testHugeNumbers(void) {
  // finite numbers near the top of the double range that would be served as inf or NaN
  const char *bad[][3] = {
      // beyond a float: vertices and primitive sizes are floats on the wire
      {"Shape { geometry Box {\n size 1e300 1 1 } }\n", "size 1e300", "beyond 3.4e38"},
      {"Shape { geometry IndexedFaceSet { coord Coordinate {\n point [0 0 0, 1.7e308 0 0, 0 1 0] }"
       " coordIndex [0 1 2] } }\n", "point [0 0 0, 1.7e308", "beyond 3.4e38"},
      // nested scales overflow though each is a float
      {"Transform { scale 1e30 1e30 1e30 children Transform { scale 1e30 1e30 1e30 children\n"
       "Transform { scale 1e30 1e30 1e30 children Shape { geometry Box {} } } } }\n",
       "children Transform { scale", "overflow"},
      // two masses of 1e308 would sum to inf
      {"DEF R Humanoid { humanoidBody [\nDEF A Joint { jointType \"free\" children [\n"
       " Segment {\n mass 1e308 }\n"
       " Segment { mass 1e308 } ] } ] }\n", " mass 1e308 }", "beyond 3.4e38"}};
  for (int i = 0; i < 4; i++) {
    hsError err = {0};
    hsBody *b = load("huge.wrl", bad[i][0], NULL, NULL, NULL, &err);
    CU_ASSERT_PTR_NULL(b);
    hsm_freeBody(b);
    CU_ASSERT_EQUAL(err.code, hsE_MODEL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.file, "huge.wrl"));
    CU_ASSERT_EQUAL(err.line, lineOf(bad[i][1]));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, bad[i][2]));
    if (err.line != lineOf(bad[i][1]) || !strstr(err.message, bad[i][2])) {
      fprintf(stderr, "\n  case %d: %s:%d %s\n", i, err.file, err.line, err.message);
    }
  }
  // a huge joint limit is served as written (it stands for "none")
  hsError err = {0};
  hsBody *b = load("hugelimit.wrl",
                   "DEF R Humanoid { humanoidBody [ DEF A Joint { jointType \"free\" children [\n"
                   " DEF B Joint { jointType \"rotate\" jointId 0 ulimit [1e300] } ] } ] }\n",
                   NULL, NULL, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(b->links[1].ulimit.v[0], 1e300);
  hsm_freeBody(b);
}

// texture URLs are read by hsu_urlToPath, as every other model reference: a file:// URL
// (with %XX escapes) and a plain relative path both name files beside the model
static void testTextureUrls(void) {
  char dir[1024];
  const char *one = hst_writeFile("texurl/tex one.png", "x");
  hst_writeFile("texurl/tex.png", "x");
  snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(one, '/') - one), one);
  char text[4096];
  snprintf(text, sizeof text,
           "#VRML V2.0 utf8\n"
           "Shape { appearance Appearance { texture ImageTexture {"
           " url \"file://%s/tex%%20one.png\" } } geometry Box {} }\n"
           "Shape { appearance Appearance { texture ImageTexture { url \"tex.png\" } }"
           " geometry Sphere {} }\n",
           dir);
  hsError err = {0};
  hsBody *b = hsm_loadVrml(hst_writeFile("texurl/scene.wrl", text), NULL, NULL, 0, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->ntexture, 2);
  char want[1200];
  snprintf(want, sizeof want, "%s/tex one.png", dir);
  CU_ASSERT_STRING_EQUAL(b->textures[0].url, want);
  snprintf(want, sizeof want, "%s/tex.png", dir);
  CU_ASSERT_STRING_EQUAL(b->textures[1].url, want);
  hsm_freeBody(b);
}

void register_vrml_openhrp(void) {
  CU_pSuite s = hst_addSuite("vrml_openhrp");
  CU_add_test(s, "no header", testNoHeader);
  CU_add_test(s, "DEF name read as the node type (Choreonoid)", testDefNameAsType);
  CU_add_test(s, "texture URLs", testTextureUrls);
  CU_add_test(s, "interface-only PROTOs (ExtraJoint)", testEmptyProtoBody);
  CU_add_test(s, "zero-thickness and negative boxes", testFlatBox);
  CU_add_test(s, "NaN normals and NaN elsewhere", testBrokenNormals);
  CU_add_test(s, "jointId gaps", testJointIdGaps);
  CU_add_test(s, "zero axis, Choreonoid joint types", testZeroAxisAndChoreonoidTypes);
  CU_add_test(s, "OpenHRP's shape rules", testShapeRules);
  CU_add_test(s, "DEF/USE doubling", testDefUseDoubling);
  CU_add_test(s, "Inline doubling", testInlineDoubling);
  CU_add_test(s, "PROTO doubling", testProtoDoubling);
  CU_add_test(s, "geometry within the triangle budget", testGeometryBudget);
  CU_add_test(s, "huge numbers", testHugeNumbers);
}
