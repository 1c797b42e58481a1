// test_vrml_nodes.c - the built-in node table, DEF/USE sharing and scoping, Script members,
// ROUTE and EXTERNPROTO, structural errors with their location, and allocation failure.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VRML_TEST_PATH "/virtual/nodes.wrl"

#include "test_support.h"
#include "vrml.h"
#include "vrml_checks.h"
#include "vrml_private.h"

static void testBuiltinTable(void) {
  static const char *const names[] = {
      "Anchor", "Appearance", "AudioClip", "Background", "Billboard", "Box", "Collision",
      "Color", "ColorInterpolator", "Cone", "Coordinate", "CoordinateInterpolator", "Cylinder",
      "CylinderSensor", "DirectionalLight", "ElevationGrid", "Extrusion", "Fog", "FontStyle",
      "Group", "ImageTexture", "IndexedFaceSet", "IndexedLineSet", "Inline", "LOD", "Material",
      "MovieTexture", "NavigationInfo", "Normal", "NormalInterpolator",
      "OrientationInterpolator", "PixelTexture", "PlaneSensor", "PointLight", "PointSet",
      "PositionInterpolator", "ProximitySensor", "ScalarInterpolator", "Script", "Shape",
      "Sound", "Sphere", "SphereSensor", "SpotLight", "Switch", "Text", "TextureCoordinate",
      "TextureTransform", "TimeSensor", "TouchSensor", "Transform", "Viewpoint",
      "VisibilitySensor", "WorldInfo"};
  // fields per node type in VRML97 (events included)
  static const int counts[] = {8, 3, 8, 12, 6, 1, 8, 1, 4, 4, 1, 4, 5, 9, 5, 14, 14, 5,
                               9, 5, 3, 18, 7, 3, 3, 6, 9, 7, 1, 4, 4, 3, 8, 7, 2, 4, 8, 4,
                               3, 2, 10, 1, 6, 10, 2, 4, 1, 4, 9, 7, 10, 8, 6, 2};
  CU_ASSERT_EQUAL_FATAL(hsv_builtinCount(), 54);
  // every type parses empty, with every field in declaration order and nothing given
  char text[8192];
  size_t len = (size_t)snprintf(text, sizeof text, "#VRML V2.0 utf8\n");
  for (int i = 0; i < 54; i++) {
    CU_ASSERT_STRING_EQUAL(hsv_builtin(i)->name, names[i]);
    CU_ASSERT_EQUAL(hsv_builtin(i)->nfield, counts[i]);
    CU_ASSERT_PTR_EQUAL(hsv_findBuiltin(names[i], strlen(names[i])), hsv_builtin(i));
    len += (size_t)snprintf(text + len, sizeof text - len, "%s {}\n", names[i]);
  }
  CU_ASSERT_PTR_NULL(hsv_findBuiltin("Transformer", 11));
  CU_ASSERT_PTR_NULL(hsv_findBuiltin("Trans", 5));
  CU_ASSERT_PTR_NULL(hsv_findBuiltin("AAA", 3));
  CU_ASSERT_PTR_NULL(hsv_findBuiltin("Zzz", 3));
  hsvScene *scene = parseOk(text);
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 54);
  for (int i = 0; i < 54; i++) {
    const hsvNode *n = scene->roots[i];
    CU_ASSERT_STRING_EQUAL(n->typeName, names[i]);
    CU_ASSERT_PTR_NULL(n->proto);
    CU_ASSERT_EQUAL(n->line, i + 2);
    CU_ASSERT_EQUAL(n->column, 1);
    CU_ASSERT_EQUAL_FATAL(n->nfield, counts[i]);
    for (int k = 0; k < n->nfield; k++) {
      CU_ASSERT_STRING_EQUAL(n->fields[k].name, hsv_builtin(i)->fields[k].name);
      CU_ASSERT_EQUAL(n->fields[k].given, 0);
    }
  }
  // declaration order of a grouping node
  static const char *const transform[] = {"addChildren", "removeChildren", "center", "children",
                                          "rotation", "scale", "scaleOrientation",
                                          "translation", "bboxCenter", "bboxSize"};
  const hsvNode *t = scene->roots[50];
  for (int k = 0; k < 10; k++) {
    CU_ASSERT_STRING_EQUAL(t->fields[k].name, transform[k]);
  }
  // a sample of the standard's defaults
  const hsvValue *v = hsv_value(scene->roots[16], "crossSection", hsvMFVEC2F);
  CU_ASSERT_EQUAL(v->n, 5);
  CU_ASSERT_EQUAL_FATAL(v->nnum, 10);
  CU_ASSERT_EQUAL(v->num[2], 1);
  CU_ASSERT_EQUAL(v->num[3], -1);
  CU_ASSERT_EQUAL(v->num[9], 1);
  v = hsv_value(scene->roots[16], "spine", hsvMFVEC3F);
  CU_ASSERT_EQUAL(v->n, 2);
  CU_ASSERT_EQUAL(v->num[4], 1);
  v = hsv_value(scene->roots[16], "orientation", hsvMFROTATION);
  CU_ASSERT_EQUAL(v->n, 1);
  CU_ASSERT_EQUAL(v->num[2], 1);
  v = hsv_value(scene->roots[27], "type", hsvMFSTRING);
  CU_ASSERT_EQUAL_FATAL(v->n, 2);
  CU_ASSERT_STRING_EQUAL(v->str[0], "WALK");
  CU_ASSERT_STRING_EQUAL(v->str[1], "ANY");
  v = hsv_value(scene->roots[27], "avatarSize", hsvMFFLOAT);
  CU_ASSERT_EQUAL(v->n, 3);
  CU_ASSERT_EQUAL(v->num[1], 1.6);
  CU_ASSERT_STRING_EQUAL(hsv_value(scene->roots[18], "family", hsvMFSTRING)->str[0], "SERIF");
  CU_ASSERT_STRING_EQUAL(hsv_getString(scene->roots[18], "style"), "PLAIN");
  CU_ASSERT_STRING_EQUAL(hsv_getString(scene->roots[17], "fogType"), "LINEAR");
  CU_ASSERT_STRING_EQUAL(hsv_getString(scene->roots[51], "description"), "");
  double x[4];
  CU_ASSERT_TRUE(hsv_getVec3(scene->roots[51], "position", x));
  CU_ASSERT_EQUAL(x[2], 10);
  CU_ASSERT_TRUE(hsv_getDouble(scene->roots[43], "beamWidth", x));
  CU_ASSERT_EQUAL(x[0], 1.570796);
  CU_ASSERT_TRUE(hsv_getDouble(scene->roots[40], "maxBack", x));
  CU_ASSERT_EQUAL(x[0], 10);
  CU_ASSERT_TRUE(hsv_getRotation(scene->roots[42], "offset", x));
  CU_ASSERT_EQUAL(x[1], 1);
  CU_ASSERT_EQUAL(x[3], 0);
  int w = 0;
  CU_ASSERT_TRUE(hsv_getInt(scene->roots[44], "whichChoice", &w));
  CU_ASSERT_EQUAL(w, -1);
  v = hsv_value(scene->roots[31], "image", hsvSFIMAGE);
  CU_ASSERT_EQUAL(v->n, 1);
  CU_ASSERT_EQUAL(v->nnum, 3);
  v = hsv_value(scene->roots[3], "skyColor", hsvMFCOLOR);
  CU_ASSERT_EQUAL(v->n, 1);
  CU_ASSERT_EQUAL(v->nnum, 3);
  CU_ASSERT_TRUE(hsv_getVec3(scene->roots[5], "size", x));
  CU_ASSERT_EQUAL(x[0], 2);
  CU_ASSERT_EQUAL(hsv_field(scene->roots[49], "touchTime")->access, hsvEVENTOUT);
  hsv_freeScene(scene);
}

static void testUnknownNames(void) {
  hsError err = parseFail("#VRML V2.0 utf8\nGroup { children [\n  Foo { } ] }\n");
  checkError(&err, hsE_SYNTAX, 3, 3, "unknown node type 'Foo'");
  err = parseFail("#VRML V2.0 utf8\nTransform {\n  translation 1 2 3 foo 1 }\n");
  checkError(&err, hsE_SYNTAX, 3, 21, "unknown field 'foo' in Transform");
  // names are case-sensitive
  err = parseFail("#VRML V2.0 utf8\ntransform {}\n");
  checkError(&err, hsE_SYNTAX, 2, 1, "unknown node type 'transform'");
}

static void testDefUse(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "DEF A Transform { children [ DEF S Shape { appearance DEF APP Appearance {} } ] }\n"
      "Group { children [ USE S USE A ] }\n"
      "Shape { appearance USE APP }\n"
      "DEF S Box {}\n"
      "Shape { geometry USE S }\n"
      "USE A\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 6);
  const hsvNode *a = scene->roots[0];
  CU_ASSERT_STRING_EQUAL(a->defName, "A");
  const hsvNode *s = hsv_value(a, "children", hsvMFNODE)->node[0];
  CU_ASSERT_STRING_EQUAL(s->defName, "S");
  const hsvValue *kids = hsv_value(scene->roots[1], "children", hsvMFNODE);
  CU_ASSERT_EQUAL_FATAL(kids->n, 2);
  CU_ASSERT_PTR_EQUAL(kids->node[0], s);
  CU_ASSERT_PTR_EQUAL(kids->node[1], a);
  CU_ASSERT_PTR_EQUAL(hsv_value(scene->roots[2], "appearance", hsvSFNODE)->node[0],
                      hsv_value(s, "appearance", hsvSFNODE)->node[0]);
  // a later DEF rebinds the name for the USEs after it
  const hsvNode *box = scene->roots[3];
  CU_ASSERT_STRING_EQUAL(box->typeName, "Box");
  CU_ASSERT_PTR_EQUAL(hsv_value(scene->roots[4], "geometry", hsvSFNODE)->node[0], box);
  CU_ASSERT_PTR_EQUAL(scene->roots[5], a);
  hsv_freeScene(scene);
  // USE before DEF, of an unknown name, and of a node inside its own definition
  hsError err = parseFail("#VRML V2.0 utf8\nGroup { children [ USE X ] }\nDEF X Group {}\n");
  checkError(&err, hsE_SYNTAX, 2, 24, "USE of undefined name 'X'");
  err = parseFail("#VRML V2.0 utf8\nDEF G Group {\n  children USE G }\n");
  checkError(&err, hsE_SYNTAX, 3, 16, "USE of undefined name 'G'");
  err = parseFail("#VRML V2.0 utf8\nDEF G {}\n");
  checkError(&err, hsE_SYNTAX, 2, 7, "expected a node type after DEF G, got '{'");
  err = parseFail("#VRML V2.0 utf8\nUSE [\n");
  checkError(&err, hsE_SYNTAX, 2, 5, "expected a name after USE, got '['");
}

static void testDefNameAsType(void) {
  // Choreonoid's leniency: "DEF <name> {" with no node type, the name being a node type (a
  // built-in or a PROTO in scope), reads the name as the type, here nested three deep and for
  // a PROTO, each with a warning at its DEF
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "PROTO Thing [ field SFFloat a 1 ] { Group {} }\n"
      "DEF Transform {\n"
      "  translation 1 2 3\n"
      "  children [ DEF Shape { geometry DEF Box { size 4 5 6 } } ]\n"
      "}\n"
      "DEF Thing { a 2 }\n"
      "Shape { geometry USE Box }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 3);
  const hsvNode *tr = scene->roots[0];
  CU_ASSERT_STRING_EQUAL(tr->typeName, "Transform");
  CU_ASSERT_STRING_EQUAL(tr->defName, "Transform");
  const hsvValue *t = hsv_value(tr, "translation", hsvSFVEC3F);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(t->num[0], 1.0);
  CU_ASSERT_EQUAL(t->num[2], 3.0);
  const hsvValue *kids = hsv_value(tr, "children", hsvMFNODE);
  CU_ASSERT_EQUAL_FATAL(kids->n, 1);
  CU_ASSERT_STRING_EQUAL(kids->node[0]->typeName, "Shape");
  const hsvNode *box = hsv_value(kids->node[0], "geometry", hsvSFNODE)->node[0];
  CU_ASSERT_STRING_EQUAL(box->typeName, "Box");
  CU_ASSERT_STRING_EQUAL(box->defName, "Box");
  CU_ASSERT_EQUAL(hsv_value(box, "size", hsvSFVEC3F)->num[1], 5.0);
  CU_ASSERT_STRING_EQUAL(scene->roots[1]->typeName, "Thing");
  CU_ASSERT_PTR_NOT_NULL(scene->roots[1]->proto);
  CU_ASSERT_EQUAL(hsv_value(scene->roots[1], "a", hsvSFFLOAT)->num[0], 2.0);
  // the name is bound as any DEF name
  CU_ASSERT_PTR_EQUAL(hsv_value(scene->roots[2], "geometry", hsvSFNODE)->node[0], box);
  CU_ASSERT_EQUAL_FATAL(scene->nwarning, 4);
  static const int where[4][2] = {{3, 1}, {5, 14}, {5, 35}, {7, 1}};
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_STRING_EQUAL(scene->warnings[i].file, VRML_TEST_PATH);
    CU_ASSERT_EQUAL(scene->warnings[i].line, where[i][0]);
    CU_ASSERT_EQUAL(scene->warnings[i].column, where[i][1]);
  }
  CU_ASSERT_STRING_EQUAL(scene->warnings[0].message,
                         "DEF Transform has no node type; read as a Transform node named "
                         "Transform (as Choreonoid does)");
  CU_ASSERT_PTR_NOT_NULL(strstr(scene->warnings[3].message, "read as a Thing node"));
  hsv_freeScene(scene);
  // a proper DEF of a name that is a node type is no warning
  scene = parseOk("#VRML V2.0 utf8\nDEF Group Transform {}\nDEF Box Group { children USE "
                  "Group }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL(scene->nwarning, 0);
  CU_ASSERT_STRING_EQUAL(scene->roots[0]->typeName, "Transform");
  hsv_freeScene(scene);
  // a name that is no node type, nothing after the name, a keyword or a PROTO out of scope:
  // errors at the token that should have been the type, as before
  hsError err = parseFail("#VRML V2.0 utf8\nDEF Transfrom { }\n");
  checkError(&err, hsE_SYNTAX, 2, 15, "expected a node type after DEF Transfrom, got '{'");
  err = parseFail("#VRML V2.0 utf8\nDEF Transform\n");
  checkError(&err, hsE_SYNTAX, 3, 1,
             "expected a node type after DEF Transform, got end of file");
  err = parseFail("#VRML V2.0 utf8\nDEF Transform }\n");
  checkError(&err, hsE_SYNTAX, 2, 15, "expected a node type after DEF Transform, got '}'");
  err = parseFail("#VRML V2.0 utf8\nDEF\n");
  checkError(&err, hsE_SYNTAX, 3, 1, "expected a name after DEF, got end of file");
  err = parseFail("#VRML V2.0 utf8\nDEF DEF {}\n");
  checkError(&err, hsE_SYNTAX, 2, 9, "expected a node type after DEF DEF, got '{'");
  err = parseFail("#VRML V2.0 utf8\nDEF USE {}\n");
  checkError(&err, hsE_SYNTAX, 2, 9, "expected a node type after DEF USE, got '{'");
  err = parseFail("#VRML V2.0 utf8\nPROTO Q [] { PROTO P [] { Group {} } Group {} }\n"
                  "DEF P {}\n");
  checkError(&err, hsE_SYNTAX, 3, 7, "expected a node type after DEF P, got '{'");
  err = parseFail("#VRML V2.0 utf8\nDEF Transform { children [ DEF Nope { } ] }\n");
  checkError(&err, hsE_SYNTAX, 2, 37, "expected a node type after DEF Nope, got '{'");
  err = parseFail("#VRML V2.0 utf8\nDEF Transform { children [ DEF Group { ] }\n");
  checkError(&err, hsE_SYNTAX, 2, 40, "expected a field name or '}' in Group, got ']'");
  // nested past the parser's depth limit: an error, not a stack overflow
  size_t size = 40 * 1100 + 64;
  char *deep = malloc(size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
  size_t len = (size_t)snprintf(deep, size, "#VRML V2.0 utf8\n");
  for (int i = 0; i < 1100; i++) {
    len += (size_t)snprintf(deep + len, size - len, "DEF Group { children [ ");
  }
  err = parseFail(deep);
  CU_ASSERT_EQUAL(err.code, hsE_SYNTAX);
  CU_ASSERT_STRING_EQUAL(err.message, "nodes nested too deeply");
  free(deep);
}

static void testEventsNeedIs(void) {
  hsError err = parseFail("#VRML V2.0 utf8\nGroup {\n  addChildren [] }\n");
  checkError(&err, hsE_SYNTAX, 3, 3,
             "eventIn 'addChildren' of Group cannot be given a value (only IS in a PROTO body)");
  err = parseFail("#VRML V2.0 utf8\nTimeSensor { time 1 }\n");
  checkError(&err, hsE_SYNTAX, 2, 14,
             "eventOut 'time' of TimeSensor cannot be given a value (only IS in a PROTO body)");
  err = parseFail("#VRML V2.0 utf8\nTransform { translation IS t }\n");
  checkError(&err, hsE_SYNTAX, 2, 25, "IS outside a PROTO body");
  // the implicit events of an exposedField are not fields either
  err = parseFail("#VRML V2.0 utf8\nTransform { set_translation 1 2 3 }\n");
  checkError(&err, hsE_SYNTAX, 2, 13, "unknown field 'set_translation' in Transform");
}

static void testRouteAndExternProto(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "DEF T TimeSensor {}\n"
      "ROUTE T.fraction_changed TO I.set_fraction\n"
      "DEF G Group { ROUTE T.isActive TO G.foo children Box {} }\n"
      "ROUTE a.b TO c.d\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL(scene->nroot, 2);
  CU_ASSERT_EQUAL(hsv_value(scene->roots[1], "children", hsvMFNODE)->n, 1);
  hsv_freeScene(scene);
  hsError err = parseFail("#VRML V2.0 utf8\nROUTE a.b c.d\n");
  checkError(&err, hsE_SYNTAX, 2, 11, "expected TO in ROUTE, got 'c'");
  err = parseFail("#VRML V2.0 utf8\nROUTE a b\n");
  checkError(&err, hsE_SYNTAX, 2, 9, "expected '.' in ROUTE, got 'b'");
  // EXTERNPROTO declarations are skipped with a warning, as OpenHRP skips them; an instance
  // is an unknown node type
  scene = parseOk("#VRML V2.0 utf8\nGroup {}\n  EXTERNPROTO Foo [ field SFFloat a eventIn "
                  "SFTime t ] [ \"foo.wrl\" \"urn:x\" ]\nGroup { EXTERNPROTO Bar [] \"b.wrl\" }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL(scene->nroot, 2);
  CU_ASSERT_EQUAL_FATAL(scene->nwarning, 2);
  CU_ASSERT_EQUAL(scene->warnings[0].line, 3);
  CU_ASSERT_EQUAL(scene->warnings[0].column, 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(scene->warnings[0].message, "EXTERNPROTO Foo skipped"));
  CU_ASSERT_EQUAL(scene->warnings[1].column, 9);
  hsv_freeScene(scene);
  err = parseFail("#VRML V2.0 utf8\nEXTERNPROTO Foo [] \"foo.wrl\"\n Foo {}\n");
  checkError(&err, hsE_SYNTAX, 3, 2, "unknown node type 'Foo'");
  err = parseFail("#VRML V2.0 utf8\nEXTERNPROTO Foo [] 3\n");
  checkError(&err, hsE_SYNTAX, 2, 20, "expected the url of the EXTERNPROTO, got number 3");
}

static void testScript(void) {
  hsError err = parseFail(
      "#VRML V2.0 utf8\n"
      "DEF S Script {\n"
      "  field SFNode target USE S\n"
      "}\n");
  checkError(&err, hsE_SYNTAX, 3, 27, "USE of undefined name 'S'");
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "DEF T Transform {}\n"
      "DEF S Script {\n"
      "  url \"javascript: function go(v) { }\"\n"
      "  eventIn SFFloat go\n"
      "  field SFNode target USE T\n"
      "  eventOut MFVec3f moved\n"
      "  directOutput TRUE\n"
      "  field MFString names [ \"a\" ]\n"
      "}\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  const hsvNode *s = scene->roots[1];
  CU_ASSERT_STRING_EQUAL(s->typeName, "Script");
  CU_ASSERT_EQUAL_FATAL(s->nfield, 7);
  static const char *const names[] = {"url", "directOutput", "mustEvaluate", "go",
                                      "target", "moved", "names"};
  static const hstVrmlAccess access[] = {hsvEXPOSED, hsvFIELD, hsvFIELD, hsvEVENTIN,
                                         hsvFIELD,   hsvEVENTOUT, hsvFIELD};
  for (int i = 0; i < 7; i++) {
    CU_ASSERT_STRING_EQUAL(s->fields[i].name, names[i]);
    CU_ASSERT_EQUAL(s->fields[i].access, access[i]);
  }
  CU_ASSERT_STRING_EQUAL(hsv_value(s, "url", hsvMFSTRING)->str[0],
                         "javascript: function go(v) { }");
  int b = 0;
  CU_ASSERT_TRUE(hsv_getBool(s, "directOutput", &b));
  CU_ASSERT_EQUAL(b, 1);
  CU_ASSERT_EQUAL(hsv_field(s, "mustEvaluate")->given, 0);
  CU_ASSERT_EQUAL(hsv_field(s, "go")->value.type, hsvSFFLOAT);
  CU_ASSERT_EQUAL(hsv_field(s, "go")->value.n, 0);
  CU_ASSERT_EQUAL(hsv_field(s, "go")->given, 0);
  CU_ASSERT_PTR_EQUAL(hsv_value(s, "target", hsvSFNODE)->node[0], scene->roots[0]);
  CU_ASSERT_EQUAL(hsv_field(s, "target")->given, 1);
  CU_ASSERT_EQUAL(hsv_value(s, "moved", hsvMFVEC3F)->n, 0);
  CU_ASSERT_STRING_EQUAL(hsv_value(s, "names", hsvMFSTRING)->str[0], "a");
  hsv_freeScene(scene);
  err = parseFail("#VRML V2.0 utf8\nScript { field SFFloat a 1\n field SFInt32 a 2 }\n");
  checkError(&err, hsE_SYNTAX, 3, 16, "duplicate field 'a' in Script");
  err = parseFail("#VRML V2.0 utf8\nScript { field SFBool url TRUE }\n");
  checkError(&err, hsE_SYNTAX, 2, 23, "duplicate field 'url' in Script");
  err = parseFail("#VRML V2.0 utf8\nScript { field SFFloot a 1 }\n");
  checkError(&err, hsE_SYNTAX, 2, 16, "expected a field type, got 'SFFloot'");
  // only a Script declares members
  err = parseFail("#VRML V2.0 utf8\nGroup { field SFFloat a 1 }\n");
  checkError(&err, hsE_SYNTAX, 2, 9, "unknown field 'field' in Group");
}

static void testStructureErrors(void) {
  hsError err = parseFail("#VRML V2.0 utf8\nTransform [ ]\n");
  checkError(&err, hsE_SYNTAX, 2, 11, "expected '{' after Transform, got '['");
  err = parseFail("#VRML V2.0 utf8\nGroup { children [ Box {} ]\n");
  checkError(&err, hsE_SYNTAX, 3, 1, "expected a field name or '}' in Group, got end of file");
  err = parseFail("#VRML V2.0 utf8\nGroup { }\n}\n");
  checkError(&err, hsE_SYNTAX, 3, 1, "expected a node, PROTO or ROUTE, got '}'");
  err = parseFail("#VRML V2.0 utf8\n 12\n");
  checkError(&err, hsE_SYNTAX, 2, 2, "expected a node, PROTO or ROUTE, got number 12");
  err = parseFail("#VRML V2.0 utf8\nGroup { 12 }\n");
  checkError(&err, hsE_SYNTAX, 2, 9, "expected a field name or '}' in Group, got number 12");
  err = parseFail("#VRML V2.0 utf8\nGroup { children [ Box {} \n");
  checkError(&err, hsE_SYNTAX, 3, 1, "field 'children' of Group expects MFNode, got end of file");
  // very deep nesting fails cleanly instead of exhausting the stack
  size_t depth = 5000;
  char *text = malloc(depth * 32 + 64);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  size_t len = (size_t)sprintf(text, "#VRML V2.0 utf8\n");
  for (size_t i = 0; i < depth; i++) {
    len += (size_t)sprintf(text + len, "Group { children ");
  }
  sprintf(text + len, "Box {}");
  err = parseFail(text);
  CU_ASSERT_EQUAL(err.code, hsE_SYNTAX);
  CU_ASSERT_STRING_EQUAL(err.message, "nodes nested too deeply");
  free(text);
  // empty text and a scene without nodes
  hsvScene *scene = parseOk("#VRML V2.0 utf8\n# nothing\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL(scene->nroot, 0);
  CU_ASSERT_STRING_EQUAL(scene->file, VRML_TEST_PATH);
  hsv_freeScene(scene);
  hsv_freeScene(NULL);
  err = (hsError){0};
  CU_ASSERT_PTR_NULL(hsv_parseString(NULL, "x.wrl", NULL, &err));
  CU_ASSERT_EQUAL(err.code, hsE_INVALID);
  // the first error wins: an error already in err is kept
  err = (hsError){0};
  HS_ERR(&err, hsE_MODEL, "earlier");
  CU_ASSERT_PTR_NULL(hsv_parseString("#VRML V2.0 utf8\nGroup {", "x.wrl", NULL, &err));
  CU_ASSERT_STRING_EQUAL(err.message, "earlier");
  // a NULL err is allowed
  CU_ASSERT_PTR_NULL(hsv_parseString("#VRML V2.0 utf8\nGroup {", "x.wrl", NULL, NULL));
}

static void testResolve(void) {
  hsvScene *scene = parseOk("#VRML V2.0 utf8\nGroup {}\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_PTR_EQUAL(hsv_resolve(scene->roots[0], NULL), scene->roots[0]);
  CU_ASSERT_PTR_NULL(hsv_resolve(NULL, NULL));
  hsv_freeScene(scene);
}

static const char *kAllocModel =
    "#VRML V2.0 utf8\n"
    "PROTO P [ exposedField SFVec3f t 0 0 0 exposedField MFNode kids [ Box {} ] ]\n"
    "{ Transform { translation IS t children IS kids } }\n"
    "DEF A P { t 1 2 3 }\n"
    "P { kids [ USE A DEF S Shape { geometry IndexedFaceSet { coordIndex [0 1 2 -1]\n"
    "  coord Coordinate { point [0 0 0, 1 0 0, 0 1 0] } } } ] }\n"
    "Script { field SFNode n USE S eventIn SFBool e field MFString s [\"x\" \"y\"] }\n"
    "Group { children [ USE A USE S ] }\n";

// parse text with every allocation in turn failing (see failEachAllocation); the scene that
// parses in the end must have nroot roots; returns how many allocations succeed then
static int allocationsToParse(const char *text, int nroot) {
  hsvScene *scene;
  int n = failEachAllocation(text, "/virtual/alloc.wrl", 100000, &scene);
  if (scene) {
    CU_ASSERT_EQUAL(scene->nroot, nroot);
    hsv_freeScene(scene);
  }
  return n;
}

static void testAllocationFailure(void) {
  int n = allocationsToParse(kAllocModel, 4);
  CU_ASSERT(n > 3 && n < 100000);
  // a bigger model moves the arena's chunk boundaries into many other places
  size_t size = strlen(kAllocModel) * 120;
  char *text = malloc(size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  size_t len = (size_t)snprintf(text, size, "%s", kAllocModel);
  const char *body = strstr(kAllocModel, "DEF A P");
  for (int i = 0; i < 100; i++) {
    len += (size_t)snprintf(text + len, size - len, "%s", body);
  }
  n = allocationsToParse(text, 404);
  CU_ASSERT(n > 15 && n < 100000);
  free(text);
}

void register_vrml_nodes(void) {
  CU_pSuite s = hst_addSuite("vrml_nodes");
  CU_add_test(s, "built-in node table", testBuiltinTable);
  CU_add_test(s, "unknown names", testUnknownNames);
  CU_add_test(s, "DEF and USE", testDefUse);
  CU_add_test(s, "DEF name read as the node type", testDefNameAsType);
  CU_add_test(s, "events need IS", testEventsNeedIs);
  CU_add_test(s, "ROUTE and EXTERNPROTO", testRouteAndExternProto);
  CU_add_test(s, "Script members", testScript);
  CU_add_test(s, "structural errors", testStructureErrors);
  CU_add_test(s, "resolve", testResolve);
  CU_add_test(s, "allocation failure", testAllocationFailure);
}
