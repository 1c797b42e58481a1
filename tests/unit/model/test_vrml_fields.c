// test_vrml_fields.c - field values of every VRML97 type: exact numbers, strings and nodes,
// single values for MF fields, defaults, type errors with line and column, and the getters.

#include <stdio.h>

#define VRML_TEST_PATH "/virtual/fields.wrl"

#include "test_support.h"
#include "vrml.h"
#include "vrml_checks.h"

// the i-th field of node, which must have this name and type
static const hsvField *fieldAt(const hsvNode *node, int i, const char *name, hstVrmlType type) {
  CU_ASSERT_FATAL(i < node->nfield);
  const hsvField *f = &node->fields[i];
  CU_ASSERT_STRING_EQUAL(f->name, name);
  CU_ASSERT_EQUAL(f->value.type, type);
  return f;
}

// check a value's element count n and its nnum numbers, exactly
static void checkNums(const hsvValue *v, int n, int nnum, const double *want) {
  CU_ASSERT_EQUAL(v->n, n);
  CU_ASSERT_EQUAL_FATAL(v->nnum, nnum);
  for (int i = 0; i < nnum; i++) {
    CU_ASSERT_EQUAL(v->num[i], want[i]);
  }
}

static void testEveryType(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "Script {\n"
      "  field SFBool b TRUE\n"
      "  field SFInt32 i -42\n"
      "  field SFFloat f 1.5e1\n"
      "  field SFTime t 12\n"
      "  field SFString s \"hi \\\"there\\\"\"\n"
      "  field SFVec2f v2 1 2\n"
      "  field SFVec3f v3 1 2 3\n"
      "  field SFColor c 0.5 0.25 1\n"
      "  field SFRotation r 0 1 0 3.14\n"
      "  field SFImage img 2 1 3 0xFF0000 0x00FF00\n"
      "  field SFNode n NULL\n"
      "  field SFNode n2 Group {}\n"
      "  field MFInt32 mi [1, 2, -3]\n"
      "  field MFFloat mf [1.5 2.5]\n"
      "  field MFTime mt 3\n"
      "  field MFString ms [\"a\" \"b\" \"\"]\n"
      "  field MFVec2f m2 [1 2, 3 4]\n"
      "  field MFVec3f m3 [1 2 3, 4 5 6,]\n"
      "  field MFColor mc []\n"
      "  field MFRotation mr 0 0 1 1.57\n"
      "  field MFNode mn [Group {} Transform {}]\n"
      "  field SFBool b2 FALSE\n"
      "}\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 1);
  const hsvNode *s = scene->roots[0];
  CU_ASSERT_EQUAL_FATAL(s->nfield, 3 + 22);
  const hsvField *f = fieldAt(s, 3, "b", hsvSFBOOL);
  CU_ASSERT_EQUAL(f->given, 1);
  CU_ASSERT_EQUAL(f->access, hsvFIELD);
  CU_ASSERT_EQUAL(f->value.line, 3);
  CU_ASSERT_EQUAL(f->value.column, 18);
  checkNums(&f->value, 1, 1, (double[]){1});
  checkNums(&fieldAt(s, 4, "i", hsvSFINT32)->value, 1, 1, (double[]){-42});
  checkNums(&fieldAt(s, 5, "f", hsvSFFLOAT)->value, 1, 1, (double[]){15});
  checkNums(&fieldAt(s, 6, "t", hsvSFTIME)->value, 1, 1, (double[]){12});
  f = fieldAt(s, 7, "s", hsvSFSTRING);
  CU_ASSERT_EQUAL(f->value.n, 1);
  CU_ASSERT_STRING_EQUAL(f->value.str[0], "hi \"there\"");
  CU_ASSERT_EQUAL(f->value.nnum, 0);
  checkNums(&fieldAt(s, 8, "v2", hsvSFVEC2F)->value, 1, 2, (double[]){1, 2});
  checkNums(&fieldAt(s, 9, "v3", hsvSFVEC3F)->value, 1, 3, (double[]){1, 2, 3});
  checkNums(&fieldAt(s, 10, "c", hsvSFCOLOR)->value, 1, 3, (double[]){0.5, 0.25, 1});
  checkNums(&fieldAt(s, 11, "r", hsvSFROTATION)->value, 1, 4, (double[]){0, 1, 0, 3.14});
  checkNums(&fieldAt(s, 12, "img", hsvSFIMAGE)->value, 1, 5,
            (double[]){2, 1, 3, 0xFF0000, 0x00FF00});
  f = fieldAt(s, 13, "n", hsvSFNODE);
  CU_ASSERT_EQUAL(f->value.n, 0);
  CU_ASSERT_EQUAL(f->given, 1);
  f = fieldAt(s, 14, "n2", hsvSFNODE);
  CU_ASSERT_EQUAL_FATAL(f->value.n, 1);
  CU_ASSERT_STRING_EQUAL(f->value.node[0]->typeName, "Group");
  f = fieldAt(s, 15, "mi", hsvMFINT32);
  checkNums(&f->value, 3, 3, (double[]){1, 2, -3});
  CU_ASSERT_EQUAL(f->value.line, 15);
  CU_ASSERT_EQUAL(f->value.column, 20);
  checkNums(&fieldAt(s, 16, "mf", hsvMFFLOAT)->value, 2, 2, (double[]){1.5, 2.5});
  checkNums(&fieldAt(s, 17, "mt", hsvMFTIME)->value, 1, 1, (double[]){3});
  f = fieldAt(s, 18, "ms", hsvMFSTRING);
  CU_ASSERT_EQUAL_FATAL(f->value.n, 3);
  CU_ASSERT_STRING_EQUAL(f->value.str[0], "a");
  CU_ASSERT_STRING_EQUAL(f->value.str[1], "b");
  CU_ASSERT_STRING_EQUAL(f->value.str[2], "");
  checkNums(&fieldAt(s, 19, "m2", hsvMFVEC2F)->value, 2, 4, (double[]){1, 2, 3, 4});
  checkNums(&fieldAt(s, 20, "m3", hsvMFVEC3F)->value, 2, 6, (double[]){1, 2, 3, 4, 5, 6});
  f = fieldAt(s, 21, "mc", hsvMFCOLOR);
  CU_ASSERT_EQUAL(f->value.n, 0);
  CU_ASSERT_EQUAL(f->value.nnum, 0);
  CU_ASSERT_EQUAL(f->given, 1);
  checkNums(&fieldAt(s, 22, "mr", hsvMFROTATION)->value, 1, 4, (double[]){0, 0, 1, 1.57});
  f = fieldAt(s, 23, "mn", hsvMFNODE);
  CU_ASSERT_EQUAL_FATAL(f->value.n, 2);
  CU_ASSERT_STRING_EQUAL(f->value.node[0]->typeName, "Group");
  CU_ASSERT_STRING_EQUAL(f->value.node[1]->typeName, "Transform");
  CU_ASSERT_EQUAL(f->value.node[1]->line, 23);
  CU_ASSERT_EQUAL(f->value.node[1]->column, 29);
  checkNums(&fieldAt(s, 24, "b2", hsvSFBOOL)->value, 1, 1, (double[]){0});
  hsv_freeScene(scene);
}

static void testSingleValuesAndBrackets(void) {
  // MF fields take one element without brackets; numbers may be split by commas freely
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "Group { children Shape { geometry IndexedFaceSet {\n"
      "  coord Coordinate { point 0.5 -1 2e-1 }\n"
      "  coordIndex 7 texCoordIndex [ ] colorIndex [ 0x10, -1, ]\n"
      "} } }\n"
      "NavigationInfo { type \"EXAMINE\" avatarSize .5 }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  CU_ASSERT_EQUAL_FATAL(scene->nroot, 2);
  const hsvValue *kids = hsv_value(scene->roots[0], "children", hsvMFNODE);
  CU_ASSERT_EQUAL_FATAL(kids->n, 1);
  const hsvValue *geom = hsv_value(kids->node[0], "geometry", hsvSFNODE);
  CU_ASSERT_EQUAL_FATAL(geom->n, 1);
  const hsvNode *ifs = geom->node[0];
  const hsvValue *coord = hsv_value(ifs, "coord", hsvSFNODE);
  checkNums(hsv_value(coord->node[0], "point", hsvMFVEC3F), 1, 3, (double[]){0.5, -1, 0.2});
  checkNums(hsv_value(ifs, "coordIndex", hsvMFINT32), 1, 1, (double[]){7});
  checkNums(hsv_value(ifs, "texCoordIndex", hsvMFINT32), 0, 0, NULL);
  CU_ASSERT_EQUAL(hsv_field(ifs, "texCoordIndex")->given, 1);
  checkNums(hsv_value(ifs, "colorIndex", hsvMFINT32), 2, 2, (double[]){16, -1});
  CU_ASSERT_EQUAL(hsv_field(ifs, "normalIndex")->given, 0);
  const hsvValue *type = hsv_value(scene->roots[1], "type", hsvMFSTRING);
  CU_ASSERT_EQUAL_FATAL(type->n, 1);
  CU_ASSERT_STRING_EQUAL(type->str[0], "EXAMINE");
  checkNums(hsv_value(scene->roots[1], "avatarSize", hsvMFFLOAT), 1, 1, (double[]){0.5});
  hsv_freeScene(scene);
}

static void testDefaults(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "  DEF T Transform { translation 1 2 3 }\n"
      "Material { }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  const hsvNode *t = scene->roots[0];
  CU_ASSERT_STRING_EQUAL(t->typeName, "Transform");
  CU_ASSERT_STRING_EQUAL(t->defName, "T");
  CU_ASSERT_EQUAL(t->line, 2);
  CU_ASSERT_EQUAL(t->column, 3);
  // written: given, at the value
  const hsvField *f = hsv_field(t, "translation");
  CU_ASSERT_EQUAL(f->given, 1);
  CU_ASSERT_EQUAL(f->value.line, 2);
  CU_ASSERT_EQUAL(f->value.column, 33);
  // defaults: not given, located at the node
  f = hsv_field(t, "rotation");
  CU_ASSERT_EQUAL(f->given, 0);
  CU_ASSERT_EQUAL(f->access, hsvEXPOSED);
  checkNums(&f->value, 1, 4, (double[]){0, 0, 1, 0});
  CU_ASSERT_EQUAL(f->value.line, 2);
  CU_ASSERT_EQUAL(f->value.column, 3);
  checkNums(&hsv_field(t, "scale")->value, 1, 3, (double[]){1, 1, 1});
  checkNums(&hsv_field(t, "bboxSize")->value, 1, 3, (double[]){-1, -1, -1});
  CU_ASSERT_EQUAL(hsv_field(t, "bboxSize")->access, hsvFIELD);
  f = hsv_field(t, "children");
  CU_ASSERT_EQUAL(f->value.n, 0);
  CU_ASSERT_PTR_NULL(f->value.node);
  f = hsv_field(t, "addChildren");
  CU_ASSERT_EQUAL(f->access, hsvEVENTIN);
  CU_ASSERT_EQUAL(f->value.type, hsvMFNODE);
  CU_ASSERT_EQUAL(f->value.n, 0);
  const hsvNode *m = scene->roots[1];
  checkNums(&hsv_field(m, "diffuseColor")->value, 1, 3, (double[]){0.8, 0.8, 0.8});
  checkNums(&hsv_field(m, "ambientIntensity")->value, 1, 1, (double[]){0.2});
  checkNums(&hsv_field(m, "transparency")->value, 1, 1, (double[]){0});
  hsv_freeScene(scene);
}

static void testTypeErrors(void) {
  static const struct {
    const char *body;
    int column;
    const char *message;
  } cases[] = {
      {"Transform { translation \"a\" 0 0 }", 25,
       "field 'translation' of Transform expects SFVec3f, got string \"a\""},
      {"Transform { translation 1 2 }", 29,
       "field 'translation' of Transform expects SFVec3f, got '}'"},
      {"Switch { whichChoice 1.5 }", 22,
       "field 'whichChoice' of Switch expects SFInt32, got number 1.5"},
      {"Switch { whichChoice 5000000000 }", 22,
       "field 'whichChoice' of Switch expects SFInt32, got number 5000000000"},
      {"IndexedFaceSet { solid 1 }", 24,
       "field 'solid' of IndexedFaceSet expects SFBool, got number 1"},
      {"IndexedFaceSet { coordIndex [0 1 2.5] }", 34,
       "field 'coordIndex' of IndexedFaceSet expects MFInt32, got number 2.5"},
      {"Coordinate { point [1 2 3 4] }", 28,
       "field 'point' of Coordinate expects MFVec3f, got ']'"},
      {"Group { children [ NULL ] }", 20, "field 'children' of Group expects MFNode, got 'NULL'"},
      {"Group { children 5 }", 18, "field 'children' of Group expects MFNode, got number 5"},
      {"Group { children [ Transform {} 1 ] }", 33,
       "field 'children' of Group expects MFNode, got number 1"},
      {"Shape { geometry 5 }", 18, "field 'geometry' of Shape expects SFNode, got number 5"},
      {"WorldInfo { title 5 }", 19, "field 'title' of WorldInfo expects SFString, got number 5"},
      {"Viewpoint { description [ \"a\" ] }", 25,
       "field 'description' of Viewpoint expects SFString, got '['"},
      {"NavigationInfo { type [ \"a\" 5 ] }", 29,
       "field 'type' of NavigationInfo expects MFString, got number 5"},
      {"Material { diffuseColor 1 0 TRUE }", 29,
       "field 'diffuseColor' of Material expects SFColor, got 'TRUE'"},
      {"TimeSensor { cycleInterval \"x\" }", 28,
       "field 'cycleInterval' of TimeSensor expects SFTime, got string \"x\""},
      {"PixelTexture { image 2 2 1 0 0 0 }", 34,
       "field 'image' of PixelTexture expects SFImage, got '}'"},
      {"PixelTexture { image 2 2 5 }", 26,
       "field 'image' of PixelTexture expects SFImage, got number 5"},
      {"Script { field SFRotation r 1 2 3 }", 35,
       "field 'r' of Script expects SFRotation, got '}'"},
      {"TextureTransform { center [1 2] }", 27,
       "field 'center' of TextureTransform expects SFVec2f, got '['"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "#VRML V2.0 utf8\n%s\n", cases[i].body);
    hsError err = parseFail(text);
    if (!checkError(&err, hsE_SYNTAX, 2, cases[i].column, cases[i].message)) {
      fprintf(stderr, "  parsing %s\n", cases[i].body);
    }
  }
}

static void testGetters(void) {
  hsvScene *scene = parseOk(
      "#VRML V2.0 utf8\n"
      "Script {\n"
      "  field SFBool b TRUE field SFInt32 i 0xFFFFFFFF field SFInt32 j -7\n"
      "  field SFFloat f 2.5 field SFTime t 4 field SFVec3f v 1 2 3 field SFColor c 1 0 0\n"
      "  field SFRotation r 0 1 0 1 field SFString s \"str\" field MFVec3f mv [1 2 3]\n"
      "  eventIn SFFloat e\n"
      "}\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(scene);
  const hsvNode *n = scene->roots[0];
  int b = -5, i = -5;
  double d = -5, v[3] = {-5, -5, -5}, r[4] = {-5, -5, -5, -5};
  CU_ASSERT_TRUE(hsv_getBool(n, "b", &b));
  CU_ASSERT_EQUAL(b, 1);
  CU_ASSERT_TRUE(hsv_getBool(n, "directOutput", &b));
  CU_ASSERT_EQUAL(b, 0);
  CU_ASSERT_TRUE(hsv_getInt(n, "i", &i));
  CU_ASSERT_EQUAL(i, -1);  // the 32-bit pattern
  CU_ASSERT_TRUE(hsv_getInt(n, "j", &i));
  CU_ASSERT_EQUAL(i, -7);
  CU_ASSERT_TRUE(hsv_getDouble(n, "f", &d));
  CU_ASSERT_EQUAL(d, 2.5);
  CU_ASSERT_TRUE(hsv_getDouble(n, "t", &d));
  CU_ASSERT_EQUAL(d, 4);
  CU_ASSERT_TRUE(hsv_getVec3(n, "v", v));
  CU_ASSERT_EQUAL(v[2], 3);
  CU_ASSERT_TRUE(hsv_getVec3(n, "c", v));
  CU_ASSERT_EQUAL(v[0], 1);
  CU_ASSERT_EQUAL(v[2], 0);
  CU_ASSERT_TRUE(hsv_getRotation(n, "r", r));
  CU_ASSERT_EQUAL(r[1], 1);
  CU_ASSERT_EQUAL(r[3], 1);
  CU_ASSERT_STRING_EQUAL(hsv_getString(n, "s"), "str");
  // wrong type, missing field, event without value: 0 and out untouched
  d = -5;
  CU_ASSERT_FALSE(hsv_getDouble(n, "i", &d));
  CU_ASSERT_FALSE(hsv_getDouble(n, "nope", &d));
  CU_ASSERT_FALSE(hsv_getDouble(n, "e", &d));
  CU_ASSERT_EQUAL(d, -5);
  CU_ASSERT_FALSE(hsv_getVec3(n, "mv", v));
  CU_ASSERT_FALSE(hsv_getInt(n, "b", &i));
  CU_ASSERT_FALSE(hsv_getBool(n, "i", &b));
  CU_ASSERT_FALSE(hsv_getRotation(n, "v", r));
  CU_ASSERT_PTR_NULL(hsv_getString(n, "url"));
  CU_ASSERT_PTR_NULL(hsv_getString(n, "nope"));
  CU_ASSERT_PTR_NULL(hsv_value(n, "mv", hsvSFVEC3F));
  CU_ASSERT_PTR_NOT_NULL(hsv_value(n, "mv", hsvMFVEC3F));
  CU_ASSERT_PTR_NULL(hsv_field(n, "nope"));
  CU_ASSERT_PTR_NULL(hsv_field(NULL, "b"));
  CU_ASSERT_FALSE(hsv_getBool(NULL, "b", &b));
  // type helpers
  CU_ASSERT_EQUAL(hsv_typeWidth(hsvSFVEC3F), 3);
  CU_ASSERT_EQUAL(hsv_typeWidth(hsvMFROTATION), 4);
  CU_ASSERT_EQUAL(hsv_typeWidth(hsvMFVEC2F), 2);
  CU_ASSERT_EQUAL(hsv_typeWidth(hsvMFINT32), 1);
  CU_ASSERT_EQUAL(hsv_typeWidth(hsvSFSTRING), 0);
  CU_ASSERT_EQUAL(hsv_typeWidth(hsvSFNODE), 0);
  CU_ASSERT_STRING_EQUAL(hsv_typeName(hsvSFROTATION), "SFRotation");
  CU_ASSERT_STRING_EQUAL(hsv_typeName(hsvMFNODE), "MFNode");
  CU_ASSERT_STRING_EQUAL(hsv_typeName(hsvNTYPES), "?");
  hsv_freeScene(scene);
}

void register_vrml_fields(void) {
  CU_pSuite s = hst_addSuite("vrml_fields");
  CU_add_test(s, "every field type", testEveryType);
  CU_add_test(s, "single values and brackets", testSingleValuesAndBrackets);
  CU_add_test(s, "defaults", testDefaults);
  CU_add_test(s, "type errors with location", testTypeErrors);
  CU_add_test(s, "getters", testGetters);
}
