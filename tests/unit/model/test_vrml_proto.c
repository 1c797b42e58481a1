// test_vrml_proto.c - PROTO declarations and instances: OpenHRP's Joint/Segment/Humanoid and
// sensor PROTOs, IS substitution and its errors, PROTOs using PROTOs, node-valued defaults,
// DEF/USE inside bodies, scoping, event IS, and Script members mapped with IS.

#include <stdio.h>

#define VRML_TEST_PATH "/virtual/proto.wrl"

#include "test_support.h"
#include "vrml.h"
#include "vrml_checks.h"

// the i-th node of an MF/SF node field, failing the test when absent
static const hsvNode *child(const hsvNode *node, const char *field, int i) {
  const hsvField *f = hsv_field(node, field);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_FATAL(f->value.type == hsvMFNODE || f->value.type == hsvSFNODE);
  CU_ASSERT_FATAL(i < f->value.n);
  return f->value.node[i];
}

// check that field of node holds the vector (x, y, z) exactly
static void checkVec3(const hsvNode *node, const char *field, double x, double y, double z) {
  double v[3] = {-99, -99, -99};
  CU_ASSERT_TRUE(hsv_getVec3(node, field, v));
  CU_ASSERT_EQUAL(v[0], x);
  CU_ASSERT_EQUAL(v[1], y);
  CU_ASSERT_EQUAL(v[2], z);
}

// OpenHRP 3.1's PROTO declarations (their interface as the format defines it)
#define OPENHRP_PROTOS                                                   \
  "PROTO Joint [\n"                                                      \
  "  exposedField SFVec3f    center           0 0 0\n"                   \
  "  exposedField MFNode     children         []\n"                      \
  "  exposedField MFFloat    llimit           []\n"                      \
  "  exposedField SFRotation rotation         0 0 1 0\n"                 \
  "  exposedField SFVec3f    scale            1 1 1\n"                   \
  "  exposedField SFRotation scaleOrientation 0 0 1 0\n"                 \
  "  exposedField SFVec3f    translation      0 0 0\n"                   \
  "  exposedField MFFloat    ulimit           []\n"                      \
  "  exposedField SFString   jointType        \"\"\n"                    \
  "  exposedField SFInt32    jointId          -1\n"                      \
  "  exposedField SFVec3f    jointAxis        0 0 1\n"                   \
  "]\n"                                                                  \
  "{\n"                                                                  \
  "  Transform {\n"                                                      \
  "    center IS center\n"                                               \
  "    children IS children\n"                                           \
  "    rotation IS rotation\n"                                           \
  "    scale IS scale\n"                                                 \
  "    scaleOrientation IS scaleOrientation\n"                           \
  "    translation IS translation\n"                                     \
  "  }\n"                                                                \
  "}\n"                                                                  \
  "PROTO Segment [\n"                                                    \
  "  field        SFVec3f bboxCenter       0 0 0\n"                      \
  "  field        SFVec3f bboxSize         -1 -1 -1\n"                   \
  "  exposedField SFVec3f centerOfMass     0 0 0\n"                      \
  "  exposedField MFNode  children         [ ]\n"                        \
  "  exposedField SFFloat mass             0\n"                          \
  "  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ]\n"      \
  "  eventIn      MFNode  addChildren\n"                                 \
  "  eventIn      MFNode  removeChildren\n"                              \
  "]\n"                                                                  \
  "{\n"                                                                  \
  "  Group {\n"                                                          \
  "    addChildren IS addChildren\n"                                     \
  "    bboxCenter IS bboxCenter\n"                                       \
  "    bboxSize IS bboxSize\n"                                           \
  "    children IS children\n"                                           \
  "    removeChildren IS removeChildren\n"                               \
  "  }\n"                                                                \
  "}\n"                                                                  \
  "PROTO Humanoid [\n"                                                   \
  "  exposedField SFVec3f  translation  0 0 0\n"                         \
  "  exposedField MFNode   humanoidBody []\n"                            \
  "  exposedField MFString info         []\n"                            \
  "  exposedField MFNode   joints       []\n"                            \
  "  exposedField MFNode   segments     []\n"                            \
  "  exposedField SFString name         \"\"\n"                          \
  "  exposedField SFString version      \"1.1\"\n"                       \
  "]\n"                                                                  \
  "{\n"                                                                  \
  "  Transform {\n"                                                      \
  "    translation IS translation\n"                                     \
  "    children [ Group { children IS humanoidBody } ]\n"                \
  "  }\n"                                                                \
  "}\n"

// the last line of OPENHRP_PROTOS when it follows the header line
static int protoEnd(void) {
  int n = 1;
  for (const char *c = OPENHRP_PROTOS; *c; c++) {
    n += *c == '\n';
  }
  return n;
}

static void testOpenHrpModel(void) {
  const int base = protoEnd();
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n" OPENHRP_PROTOS
      "DEF ROBOT Humanoid {\n"
      "  name \"robot\"\n"
      "  humanoidBody [\n"
      "    DEF WAIST Joint {\n"
      "      jointType \"free\"\n"
      "      translation 0 0 0.7\n"
      "      children [\n"
      "        DEF WAIST_LINK Segment {\n"
      "          mass 27.0\n"
      "          momentsOfInertia [1 0 0 0 1 0 0 0 1]\n"
      "          children Shape { geometry Box { size 0.1 0.2 0.3 } }\n"
      "        }\n"
      "        DEF J1 Joint {\n"
      "          jointType \"rotate\" jointId 0 jointAxis 0 1 0\n"
      "          ulimit 1.5 llimit [-1.5]\n"
      "          children DEF J1_LINK Segment { mass 1 }\n"
      "        }\n"
      "      ]\n"
      "    }\n"
      "  ]\n"
      "  joints [ USE WAIST, USE J1 ]\n"
      "  segments [ USE WAIST_LINK, USE J1_LINK ]\n"
      "}\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 1);
  // the instance: PROTO fields, given or default
  const hsvNode *robot = scene->roots[0];
  CU_ASSERT_STRING_EQUAL(robot->typeName, "Humanoid");
  CU_ASSERT_STRING_EQUAL(robot->defName, "ROBOT");
  CU_ASSERT_PTR_NOT_NULL(robot->proto);
  CU_ASSERT_EQUAL(robot->line, base + 1);
  CU_ASSERT_EQUAL(robot->column, 1);
  CU_ASSERT_EQUAL(robot->nfield, 7);
  CU_ASSERT_STRING_EQUAL(hsv_getString(robot, "name"), "robot");
  CU_ASSERT_EQUAL(hsv_field(robot, "name")->given, 1);
  CU_ASSERT_STRING_EQUAL(hsv_getString(robot, "version"), "1.1");
  CU_ASSERT_EQUAL(hsv_field(robot, "version")->given, 0);
  CU_ASSERT_EQUAL(hsv_field(robot, "version")->value.line, base - 7);
  // its body: the Transform, with the Group mapping humanoidBody
  CU_ASSERT_EQUAL_FATAL(robot->nbody, 1);
  const hsvNode *rt = robot->body[0];
  CU_ASSERT_STRING_EQUAL(rt->typeName, "Transform");
  CU_ASSERT_PTR_NULL(rt->proto);
  CU_ASSERT_PTR_NULL(rt->defName);
  CU_ASSERT_EQUAL(rt->line, base - 4);
  const hsvNode *waist = child(robot, "humanoidBody", 0);
  CU_ASSERT_PTR_EQUAL(child(child(rt, "children", 0), "children", 0), waist);
  // the joint and its expansion
  CU_ASSERT_STRING_EQUAL(waist->typeName, "Joint");
  CU_ASSERT_STRING_EQUAL(waist->defName, "WAIST");
  CU_ASSERT_EQUAL(waist->line, base + 4);
  CU_ASSERT_EQUAL(waist->column, 5);
  CU_ASSERT_STRING_EQUAL(hsv_getString(waist, "jointType"), "free");
  const hsvNode *wt = waist->body[0];
  CU_ASSERT_STRING_EQUAL(wt->typeName, "Transform");
  checkVec3(wt, "translation", 0, 0, 0.7);
  CU_ASSERT_EQUAL(hsv_field(wt, "translation")->given, 1);
  CU_ASSERT_EQUAL(hsv_field(wt, "translation")->value.line, base + 6);
  // IS of a default: given, with the default's value
  checkVec3(wt, "center", 0, 0, 0);
  CU_ASSERT_EQUAL(hsv_field(wt, "center")->given, 1);
  // not IS: the built-in default
  CU_ASSERT_EQUAL(hsv_field(wt, "bboxSize")->given, 0);
  // children are the very nodes of the instance's field
  const hsvValue *kids = hsv_value(waist, "children", hsvMFNODE);
  const hsvValue *tkids = hsv_value(wt, "children", hsvMFNODE);
  CU_ASSERT_EQUAL_FATAL(kids->n, 2);
  CU_ASSERT_EQUAL_FATAL(tkids->n, 2);
  CU_ASSERT_PTR_EQUAL(tkids->node[0], kids->node[0]);
  CU_ASSERT_PTR_EQUAL(tkids->node[1], kids->node[1]);
  const hsvNode *link = kids->node[0];
  CU_ASSERT_STRING_EQUAL(link->typeName, "Segment");
  double mass = 0;
  CU_ASSERT_TRUE(hsv_getDouble(link, "mass", &mass));
  CU_ASSERT_EQUAL(mass, 27);
  CU_ASSERT_EQUAL(hsv_value(link, "momentsOfInertia", hsvMFFLOAT)->num[4], 1);
  const hsvNode *group = link->body[0];
  CU_ASSERT_STRING_EQUAL(group->typeName, "Group");
  CU_ASSERT_STRING_EQUAL(child(group, "children", 0)->typeName, "Shape");
  checkVec3(group, "bboxSize", -1, -1, -1);
  CU_ASSERT_EQUAL(hsv_field(group, "addChildren")->given, 0);
  // the second joint
  const hsvNode *j1 = kids->node[1];
  int id = -5;
  CU_ASSERT_TRUE(hsv_getInt(j1, "jointId", &id));
  CU_ASSERT_EQUAL(id, 0);
  checkVec3(j1, "jointAxis", 0, 1, 0);
  CU_ASSERT_EQUAL(hsv_value(j1, "ulimit", hsvMFFLOAT)->num[0], 1.5);
  CU_ASSERT_EQUAL(hsv_value(j1, "llimit", hsvMFFLOAT)->num[0], -1.5);
  CU_ASSERT_EQUAL(hsv_value(j1, "rotation", hsvSFROTATION)->num[2], 1);
  const hsvNode *j1link = child(j1, "children", 0);
  CU_ASSERT_STRING_EQUAL(j1link->defName, "J1_LINK");
  CU_ASSERT_EQUAL(hsv_value(j1link->body[0], "children", hsvMFNODE)->n, 0);
  CU_ASSERT_EQUAL(hsv_field(j1link->body[0], "children")->given, 1);
  // the joints and segments lists share the nodes
  CU_ASSERT_PTR_EQUAL(child(robot, "joints", 0), waist);
  CU_ASSERT_PTR_EQUAL(child(robot, "joints", 1), j1);
  CU_ASSERT_PTR_EQUAL(child(robot, "segments", 0), link);
  CU_ASSERT_PTR_EQUAL(child(robot, "segments", 1), j1link);
  // resolve: through the body unless the PROTO is kept
  static const char *const keep[] = {"Joint", "Segment", "Humanoid", NULL};
  CU_ASSERT_PTR_EQUAL(hsv_resolve(waist, keep), waist);
  CU_ASSERT_PTR_EQUAL(hsv_resolve(waist, NULL), wt);
  static const char *const keepJoint[] = {"Joint", NULL};
  CU_ASSERT_PTR_EQUAL(hsv_resolve(robot, keepJoint), rt);
  CU_ASSERT_PTR_EQUAL(hsv_resolve(link, keepJoint), group);
  hsv_freeScene(scene);
}

static void testJointAxisType(void) {
  // the declared type decides how a value is read
  const char *proto =
      "#VRML V2.0 utf8\n"
      "PROTO Joint [ exposedField SFString jointAxis \"Z\" exposedField MFNode children [] ]\n"
      "{ Transform { children IS children } }\n";
  char text[512];
  snprintf(text, sizeof text, "%sJoint { jointAxis \"X\" }\nJoint { }\n", proto);
  hsvScene *scene = parseOk(text);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_STRING_EQUAL(hsv_getString(scene->roots[0], "jointAxis"), "X");
  CU_ASSERT_EQUAL(hsv_field(scene->roots[0], "jointAxis")->given, 1);
  CU_ASSERT_STRING_EQUAL(hsv_getString(scene->roots[1], "jointAxis"), "Z");
  CU_ASSERT_EQUAL(hsv_field(scene->roots[1], "jointAxis")->given, 0);
  hsv_freeScene(scene);
  hsError err = parseFail(
      "#VRML V2.0 utf8\n"
      "PROTO Joint [ exposedField SFVec3f jointAxis 0 0 1 ] { Group { } }\n"
      "Joint { jointAxis \"X\" }\n");
  checkError(&err, hsE_SYNTAX, 3, 19,
             "field 'jointAxis' of Joint expects SFVec3f, got string \"X\"");
  err = parseFail(
      "#VRML V2.0 utf8\n"
      "PROTO Joint [ exposedField SFVec3f jointAxis 0 0 1 ] { Group { } }\n"
      "Joint { jointAxiz 1 0 0 }\n");
  checkError(&err, hsE_SYNTAX, 3, 9, "unknown field 'jointAxiz' in Joint");
}

static void testIsErrors(void) {
  hsError err = parseFail(
      "#VRML V2.0 utf8\n"
      "PROTO P [ exposedField SFString name \"\" ]\n"
      "{ Transform { translation IS name } }\n");
  checkError(&err, hsE_SYNTAX, 3, 30,
             "IS type mismatch: field 'translation' of Transform is SFVec3f but 'name' of PROTO P "
             "is SFString");
  err = parseFail("#VRML V2.0 utf8\nPROTO P [ ] { Transform { translation IS nope } }\n");
  checkError(&err, hsE_SYNTAX, 2, 42, "PROTO P has no field 'nope'");
  err = parseFail(
      "#VRML V2.0 utf8\nPROTO P [ eventIn SFVec3f e ] { Transform { bboxCenter IS e } }\n");
  checkError(&err, hsE_SYNTAX, 2, 59,
             "field 'bboxCenter' of Transform cannot be IS eventIn 'e' of PROTO P");
  err = parseFail(
      "#VRML V2.0 utf8\n"
      "PROTO P [ field SFVec3f f 0 0 0 ] { Transform { set_translation IS f } }\n");
  checkError(&err, hsE_SYNTAX, 2, 68,
             "eventIn 'set_translation' of Transform cannot be IS field 'f' of PROTO P");
  // interface errors
  err = parseFail("#VRML V2.0 utf8\nPROTO P [ exposedField SFVec3f t ] { Group {} }\n");
  checkError(&err, hsE_SYNTAX, 2, 34, "field 't' of PROTO P expects SFVec3f, got ']'");
  err = parseFail(
      "#VRML V2.0 utf8\nPROTO P [ field SFFloat a 1 field SFFloat a 2 ] { Group {} }\n");
  checkError(&err, hsE_SYNTAX, 2, 43, "duplicate field 'a' in PROTO P");
  err = parseFail("#VRML V2.0 utf8\nPROTO P [ field SFFloat a IS b ] { Group {} }\n");
  checkError(&err, hsE_SYNTAX, 2, 27, "field 'a' of PROTO P expects SFFloat, got 'IS'");
  err = parseFail("#VRML V2.0 utf8\nPROTO P [ SFFloat a 1 ] { Group {} }\n");
  checkError(&err, hsE_SYNTAX, 2, 11,
             "expected field, exposedField, eventIn or eventOut, got 'SFFloat'");
  err = parseFail("#VRML V2.0 utf8\nPROTO P [ ] { P { } }\n");
  checkError(&err, hsE_SYNTAX, 2, 15, "unknown node type 'P'");
  err = parseFail("#VRML V2.0 utf8\nPROTO P [ ] { Group {} \n");
  checkError(&err, hsE_SYNTAX, 3, 1, "expected '}', got end of file");
  err = parseFail("#VRML V2.0 utf8\nPROTO [ ] { Group {} }\n");
  checkError(&err, hsE_SYNTAX, 2, 7, "expected a PROTO name, got '['");
  err = parseFail("#VRML V2.0 utf8\nPROTO P { Group {} }\n");
  checkError(&err, hsE_SYNTAX, 2, 9, "expected '[' after the PROTO name, got '{'");
}

static void testNestedProtos(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO Inner [ exposedField SFVec3f pos 0 0 0 exposedField MFNode kids [] ]\n"
      "{ Transform { translation IS pos children IS kids } }\n"
      "PROTO Outer [ exposedField SFVec3f where 1 1 1 exposedField SFFloat size 1\n"
      "              exposedField MFNode more [] ]\n"
      "{\n"
      "  Group { children [\n"
      "    Inner { pos IS where kids [ Shape { geometry Sphere { radius IS size } } ] }\n"
      "    Inner { kids IS more }\n"
      "  ] }\n"
      "}\n"
      "DEF O1 Outer { where 5 6 7 size 2 more [ Box {} ] }\n"
      "DEF O2 Outer { }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 2);
  const hsvNode *o1 = scene->roots[0], *o2 = scene->roots[1];
  const hsvNode *g1 = o1->body[0], *g2 = o2->body[0];
  CU_ASSERT_STRING_EQUAL(g1->typeName, "Group");
  const hsvNode *in1 = child(g1, "children", 0);
  CU_ASSERT_STRING_EQUAL(in1->typeName, "Inner");
  CU_ASSERT_PTR_NOT_NULL(in1->proto);
  checkVec3(in1, "pos", 5, 6, 7);
  CU_ASSERT_EQUAL(hsv_field(in1, "pos")->given, 1);
  const hsvNode *t1 = in1->body[0];
  checkVec3(t1, "translation", 5, 6, 7);
  const hsvNode *shape1 = child(t1, "children", 0);
  CU_ASSERT_PTR_EQUAL(shape1, child(in1, "kids", 0));
  double r = 0;
  CU_ASSERT_TRUE(hsv_getDouble(child(shape1, "geometry", 0), "radius", &r));
  CU_ASSERT_EQUAL(r, 2);
  // the second Inner gets the outer instance's own node
  const hsvNode *in1b = child(g1, "children", 1);
  CU_ASSERT_PTR_EQUAL(child(in1b->body[0], "children", 0), child(o1, "more", 0));
  CU_ASSERT_STRING_EQUAL(child(o1, "more", 0)->typeName, "Box");
  // the defaults flow through two levels
  const hsvNode *in2 = child(g2, "children", 0);
  checkVec3(in2->body[0], "translation", 1, 1, 1);
  const hsvNode *shape2 = child(in2->body[0], "children", 0);
  CU_ASSERT_PTR_NOT_EQUAL(shape2, shape1);
  CU_ASSERT_TRUE(hsv_getDouble(child(shape2, "geometry", 0), "radius", &r));
  CU_ASSERT_EQUAL(r, 1);
  CU_ASSERT_EQUAL(hsv_value(child(g2, "children", 1)->body[0], "children", hsvMFNODE)->n, 0);
  // resolve follows nested bodies
  CU_ASSERT_PTR_EQUAL(hsv_resolve(in1, NULL), t1);
  hsv_freeScene(scene);
}

static void testNodeDefaults(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO P [ exposedField MFNode kids [ DEF B Box { size 1 2 3 } ]\n"
      "          exposedField SFNode app Appearance { material Material {} }\n"
      "          exposedField SFNode none NULL ]\n"
      "{ Group { children [ Transform { children IS kids } Shape { appearance IS app } ] } }\n"
      "P {}\n"
      "P {}\n"
      "P { kids [] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 3);
  const hsvNode *a = scene->roots[0], *b = scene->roots[1], *c = scene->roots[2];
  // each instance gets its own copy of node defaults
  const hsvNode *boxA = child(a, "kids", 0), *boxB = child(b, "kids", 0);
  CU_ASSERT_PTR_NOT_EQUAL(boxA, boxB);
  CU_ASSERT_STRING_EQUAL(boxA->defName, "B");
  checkVec3(boxA, "size", 1, 2, 3);
  checkVec3(boxB, "size", 1, 2, 3);
  CU_ASSERT_EQUAL(hsv_field(a, "kids")->given, 0);
  const hsvNode *group = a->body[0];
  CU_ASSERT_PTR_EQUAL(child(child(group, "children", 0), "children", 0), boxA);
  const hsvNode *app = child(a, "app", 0);
  CU_ASSERT_STRING_EQUAL(app->typeName, "Appearance");
  CU_ASSERT_PTR_EQUAL(child(child(group, "children", 1), "appearance", 0), app);
  CU_ASSERT_PTR_NOT_EQUAL(child(b, "app", 0), app);
  CU_ASSERT_PTR_NOT_EQUAL(child(app, "material", 0), child(child(b, "app", 0), "material", 0));
  CU_ASSERT_EQUAL(hsv_value(a, "none", hsvSFNODE)->n, 0);
  // a given empty list replaces the default
  CU_ASSERT_EQUAL(hsv_value(c, "kids", hsvMFNODE)->n, 0);
  CU_ASSERT_EQUAL(hsv_value(child(c->body[0], "children", 0), "children", hsvMFNODE)->n, 0);
  hsv_freeScene(scene);
}

static void testDefUseInBody(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO P [ exposedField SFFloat r 1 ]\n"
      "{ Group { children [\n"
      "    DEF X Transform { children Shape { geometry Sphere { radius IS r } } }\n"
      "    USE X\n"
      "] } }\n"
      "P { r 2 }\n"
      "P { r 3 }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  const hsvNode *g1 = scene->roots[0]->body[0], *g2 = scene->roots[1]->body[0];
  const hsvNode *x1 = child(g1, "children", 0), *x2 = child(g2, "children", 0);
  CU_ASSERT_STRING_EQUAL(x1->defName, "X");
  CU_ASSERT_EQUAL(x1->line, 4);
  CU_ASSERT_EQUAL(x1->column, 5);
  CU_ASSERT_PTR_EQUAL(child(g1, "children", 1), x1);
  CU_ASSERT_PTR_EQUAL(child(g2, "children", 1), x2);
  CU_ASSERT_PTR_NOT_EQUAL(x1, x2);
  double r1 = 0, r2 = 0;
  CU_ASSERT_TRUE(
      hsv_getDouble(child(child(x1, "children", 0), "geometry", 0), "radius", &r1));
  CU_ASSERT_TRUE(
      hsv_getDouble(child(child(x2, "children", 0), "geometry", 0), "radius", &r2));
  CU_ASSERT_EQUAL(r1, 2);
  CU_ASSERT_EQUAL(r2, 3);
  hsv_freeScene(scene);
  // DEF names of a body stay inside it, and a body does not see the file's names
  hsError err = parseFail(
      "#VRML V2.0 utf8\nPROTO P [ ] { DEF X Group {} }\nP {}\nGroup { children USE X }\n");
  checkError(&err, hsE_SYNTAX, 4, 22, "USE of undefined name 'X'");
  err = parseFail("#VRML V2.0 utf8\nDEF G Group {}\nPROTO P [ ] { Group { children USE G } }\n");
  checkError(&err, hsE_SYNTAX, 3, 36, "USE of undefined name 'G'");
}

static void testScoping(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO Outer [ exposedField SFFloat s 1 ] {\n"
      "  PROTO Local [ exposedField SFFloat rr 1 ] { Sphere { radius IS rr } }\n"
      "  Shape { geometry Local { rr IS s } }\n"
      "  ROUTE a.b TO c.d\n"
      "}\n"
      "PROTO A [ ] { Box { } }\n"
      "A { }\n"
      "PROTO A [ ] { Sphere { } }\n"
      "A { }\n"
      "Outer { s 4 }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 3);
  // a later PROTO of the same name serves the instances after it
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->body[0]->typeName, "Box");
  CU_ASSERT_STRING_EQUAL(scene->roots[1]->body[0]->typeName, "Sphere");
  // a PROTO declared in a body is used there, with IS through the outer instance
  const hsvNode *outer = scene->roots[2];
  CU_ASSERT_EQUAL_FATAL(outer->nbody, 1);
  const hsvNode *local = child(outer->body[0], "geometry", 0);
  CU_ASSERT_STRING_EQUAL(local->typeName, "Local");
  double r = 0;
  CU_ASSERT_TRUE(hsv_getDouble(local, "rr", &r));
  CU_ASSERT_EQUAL(r, 4);
  CU_ASSERT_TRUE(hsv_getDouble(local->body[0], "radius", &r));
  CU_ASSERT_EQUAL(r, 4);
  CU_ASSERT_STRING_EQUAL(hsv_resolve(outer, NULL)->typeName, "Shape");
  hsv_freeScene(scene);
  // but not outside
  hsError err = parseFail(
      "#VRML V2.0 utf8\n"
      "PROTO Outer [ ] { PROTO Local [ ] { Box {} } Local {} }\n"
      "Local {}\n");
  checkError(&err, hsE_SYNTAX, 3, 1, "unknown node type 'Local'");
  // a body may use PROTOs declared before it in the file
  scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO A [ exposedField SFVec3f s 1 1 1 ] { Box { size IS s } }\n"
      "PROTO B [ exposedField SFVec3f t 2 2 2 ] { Shape { geometry A { s IS t } } }\n"
      "B { t 3 4 5 }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  checkVec3(child(scene->roots[0]->body[0], "geometry", 0)->body[0], "size", 3, 4, 5);
  hsv_freeScene(scene);
}

static void testOpenHrpSensors(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO ForceSensor [ exposedField SFVec3f maxForce -1 -1 -1\n"
      "  exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0\n"
      "  exposedField SFInt32 sensorId -1 ]\n"
      "{ Transform { translation IS translation rotation IS rotation } }\n"
      "PROTO VisionSensor [ exposedField SFVec3f translation 0 0 0\n"
      "  exposedField SFRotation rotation 0 0 1 0 exposedField MFNode children []\n"
      "  exposedField SFFloat fieldOfView 0.785398 exposedField SFString type \"NONE\"\n"
      "  exposedField SFInt32 width 320 exposedField SFInt32 height 240 ]\n"
      "{ Transform { rotation IS rotation translation IS translation children IS children } }\n"
      "PROTO ExtraJoint [ exposedField SFString link1Name \"\" exposedField SFString "
      "link2Name \"\"\n"
      "  exposedField SFVec3f link1LocalPos 0 0 0 exposedField SFString jointType \"xyz\" ]\n"
      "{ Group { } }\n"
      "DEF FS ForceSensor { sensorId 0 translation 0 0 -0.05 }\n"
      "DEF CAM VisionSensor { type \"COLOR\" width 640\n"
      "  children DEF CS Transform { children Shape { geometry Cylinder {} } } }\n"
      "DEF VS2 VisionSensor { children USE CS }\n"
      "ExtraJoint { link1Name \"A\" link2Name \"B\" link1LocalPos 0 0.1 0 }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 4);
  const hsvNode *fs = scene->roots[0];
  int id = -5;
  CU_ASSERT_TRUE(hsv_getInt(fs, "sensorId", &id));
  CU_ASSERT_EQUAL(id, 0);
  checkVec3(fs, "maxForce", -1, -1, -1);
  checkVec3(fs->body[0], "translation", 0, 0, -0.05);
  const hsvNode *cam = scene->roots[1];
  CU_ASSERT_STRING_EQUAL(hsv_getString(cam, "type"), "COLOR");
  CU_ASSERT_TRUE(hsv_getInt(cam, "width", &id));
  CU_ASSERT_EQUAL(id, 640);
  CU_ASSERT_TRUE(hsv_getInt(cam, "height", &id));
  CU_ASSERT_EQUAL(id, 240);
  // a DEF given to one instance is USEd by another
  CU_ASSERT_PTR_EQUAL(child(scene->roots[2]->body[0], "children", 0), child(cam, "children", 0));
  const hsvNode *ej = scene->roots[3];
  CU_ASSERT_STRING_EQUAL(hsv_getString(ej, "link2Name"), "B");
  CU_ASSERT_STRING_EQUAL(hsv_getString(ej, "jointType"), "xyz");
  checkVec3(ej, "link1LocalPos", 0, 0.1, 0);
  CU_ASSERT_STRING_EQUAL(ej->body[0]->typeName, "Group");
  hsv_freeScene(scene);
}

static void testEventIsAndScript(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO P [ eventIn SFVec3f move exposedField SFVec3f t 0 0 0 eventOut SFVec3f moved\n"
      "          field SFFloat k 2 exposedField MFString code \"js\" ]\n"
      "{\n"
      "  Transform { set_translation IS move translation_changed IS moved translation IS t\n"
      "    children Script { url IS code field SFFloat gain IS k eventIn SFBool go\n"
      "                      eventOut SFVec3f out IS moved } }\n"
      "}\n"
      "P { t 1 2 3 k 5 }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  const hsvNode *p = scene->roots[0];
  CU_ASSERT_EQUAL(hsv_field(p, "move")->access, hsvEVENTIN);
  CU_ASSERT_EQUAL(hsv_field(p, "move")->value.n, 0);
  const hsvNode *t = p->body[0];
  checkVec3(t, "translation", 1, 2, 3);
  const hsvNode *script = child(t, "children", 0);
  CU_ASSERT_STRING_EQUAL(script->typeName, "Script");
  CU_ASSERT_EQUAL_FATAL(script->nfield, 6);
  CU_ASSERT_STRING_EQUAL(hsv_value(script, "url", hsvMFSTRING)->str[0], "js");
  CU_ASSERT_EQUAL(hsv_field(script, "url")->given, 1);
  double gain = 0;
  CU_ASSERT_TRUE(hsv_getDouble(script, "gain", &gain));
  CU_ASSERT_EQUAL(gain, 5);
  CU_ASSERT_EQUAL(hsv_field(script, "gain")->given, 1);
  CU_ASSERT_EQUAL(hsv_field(script, "out")->access, hsvEVENTOUT);
  CU_ASSERT_EQUAL(hsv_field(script, "go")->given, 0);
  hsv_freeScene(scene);
}

static void testInstanceErrors(void) {
  // an error inside an instance's value names its location in the file
  const int line = protoEnd() + 1;
  hsError err = parseFail(
      "#VRML V2.0 utf8\n" OPENHRP_PROTOS
      "Humanoid { humanoidBody [ Joint { jointId 1.5 } ] }\n");
  checkError(&err, hsE_SYNTAX, line, 43,
             "field 'jointId' of Joint expects SFInt32, got number 1.5");
  err = parseFail("#VRML V2.0 utf8\n" OPENHRP_PROTOS "Segment { addChildren [] }\n");
  checkError(&err, hsE_SYNTAX, line, 11,
             "eventIn 'addChildren' of Segment cannot be given a value (only IS in a PROTO body)");
}

void register_vrml_proto(void) {
  CU_pSuite s = hst_addSuite("vrml_proto");
  CU_add_test(s, "OpenHRP humanoid", testOpenHrpModel);
  CU_add_test(s, "field types follow the PROTO", testJointAxisType);
  CU_add_test(s, "IS and interface errors", testIsErrors);
  CU_add_test(s, "PROTOs using PROTOs", testNestedProtos);
  CU_add_test(s, "node-valued defaults", testNodeDefaults);
  CU_add_test(s, "DEF and USE in bodies", testDefUseInBody);
  CU_add_test(s, "PROTO scoping", testScoping);
  CU_add_test(s, "OpenHRP sensors and extra joints", testOpenHrpSensors);
  CU_add_test(s, "event IS and Script members", testEventIsAndScript);
  CU_add_test(s, "errors in instances", testInstanceErrors);
}
