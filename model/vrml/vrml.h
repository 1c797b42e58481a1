// vrml.h - private to model/: a generic VRML97 reader producing a typed scene graph.
//
// hsv_parseFile reads a .wrl file into an hsvScene: a tree of hsvNode whose every field has
// a typed value and a source location. It knows every VRML97 built-in node with its fields
// (and their types and defaults), reads PROTO declarations and expands their instances with IS
// mapping, resolves DEF/USE (a USE yields the same hsvNode pointer as its DEF, so sharing can be
// detected), loads Inline files relative to the including file (recursively, refusing cycles),
// and skips ROUTE statements. Every error names file, line and column.
//
// The scene is read-only once parsed and lives in one arena: hsv_freeScene releases it all.

#ifndef HRPSIM_MODEL_VRML_H_
#define HRPSIM_MODEL_VRML_H_

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

// VRML97 field types
typedef enum hstVrmlType {
  hsvSFBOOL = 0, hsvSFINT32, hsvSFFLOAT, hsvSFTIME, hsvSFSTRING, hsvSFVEC2F, hsvSFVEC3F,
  hsvSFCOLOR, hsvSFROTATION, hsvSFIMAGE, hsvSFNODE,
  hsvMFINT32, hsvMFFLOAT, hsvMFTIME, hsvMFSTRING, hsvMFVEC2F, hsvMFVEC3F, hsvMFCOLOR,
  hsvMFROTATION, hsvMFNODE,
  hsvNTYPES
} hstVrmlType;

// how a field is declared (VRML97 interface kinds)
typedef enum hstVrmlAccess { hsvFIELD = 0, hsvEXPOSED, hsvEVENTIN, hsvEVENTOUT } hstVrmlAccess;

struct hsvNode;

// one field value
typedef struct hsvValue {
  hstVrmlType type;
  int line, column;  // where the value was written (of the default if not written)
                     // (a built-in node's defaults carry the node's own location)
  int n;             // number of elements: 1 for SF types (0 for SFNode NULL)
  int badLine, badColumn;  // the first number that is not finite or beyond a float's range
                           // (|x| > 3.4e38), 0 if none: the loader decides what that means
  // numeric types (bool as 0/1, int32, float, time, vec2f, vec3f, color, rotation, image):
  // n elements of hsv_typeWidth(type) numbers each; SFImage holds width, height, components
  // then one number per pixel (n = 1, count in nnum)
  double *num;
  int nnum;             // total numbers in num
  char **str;           // SFString/MFString: n strings
  struct hsvNode **node;  // SFNode/MFNode: n nodes (never NULL entries)
} hsvValue;

// one field of a node: its declaration and value
typedef struct hsvField {
  const char *name;
  hstVrmlAccess access;
  int given;       // 1 if written in the file (or mapped through IS from a given value)
  hsvValue value;  // the written value, else the declared default
} hsvField;

struct hsvProto;

// one node (a built-in node or a PROTO instance)
typedef struct hsvNode {
  const char *typeName;        // "Transform", "Joint", ...
  const char *defName;         // DEF name, NULL if none
  const struct hsvProto *proto;  // the PROTO for an instance, NULL for a built-in
  int nfield;
  hsvField *fields;            // every field of the node type (given or default), in
                               // declaration order; events have an empty value
  // for a PROTO instance: the expanded body, with IS references replaced by this instance's
  // field values; body[0] gives the node's type in the scene (VRML97 4.8.3)
  int nbody;
  struct hsvNode **body;
  // for an Inline: the top-level nodes of the inlined file (NULL/0 before loading or for
  // other nodes); inlineUrl is the resolved absolute path that was loaded
  int ninlined;
  struct hsvNode **inlined;
  const char *inlineUrl;
  const char *file;  // absolute path of the file the node was written in
  int line, column;  // where the node's type name (or DEF) was written
} hsvNode;

// a problem the parser read past (OpenHRP reads such files too)
typedef struct hsvWarning {
  const char *file;  // absolute path of the file
  int line, column;
  const char *message;
} hsvWarning;

// a parsed file
typedef struct hsvScene {
  const char *file;  // absolute path of the top file
  int nroot;
  hsvNode **roots;   // top-level nodes, in file order (PROTO declarations are not nodes)
  int nwarning;
  const hsvWarning *warnings;  // in the order found
  long nnode;        // nodes made, PROTO expansions and copies included
  struct hsvArena *arena;  // owns everything
} hsvScene;

// parse options
typedef struct hsvOptions {
  int loadInlines;  // 1: read Inline files (default 1)
  int maxInlineDepth;  // nesting limit for Inline, beyond which loading fails (default 32)
  long maxNodes;    // nodes the parse may make, PROTO expansions included, beyond which it
                    // fails (default 2,000,000: about 1 GB of scene at worst)
} hsvOptions;

// fill the defaults
void hsv_defaultOptions(hsvOptions *opt);

// parse a file (plain path or file:// URL); opt may be NULL. Returns the scene or NULL with err
// (file, line, column, what) filled. The caller frees with hsv_freeScene.
hsvScene *hsv_parseFile(const char *path, const hsvOptions *opt, hsError *err);

// parse text as if it were the file at virtualPath (used to resolve Inline URLs and in
// messages); opt may be NULL. Same ownership as hsv_parseFile.
hsvScene *hsv_parseString(const char *text, const char *virtualPath, const hsvOptions *opt,
                          hsError *err);

// release a scene; NULL is a no-op
void hsv_freeScene(hsvScene *scene);

// numbers per element of a type (SFVec3f: 3, SFRotation: 4, SFString/SFNode: 0, ...)
// (SFImage: 0, its count varies; see hsvValue)
int hsv_typeWidth(hstVrmlType type);

// the VRML name of a type ("SFVec3f")
const char *hsv_typeName(hstVrmlType type);

// the field called name, or NULL if the node type has none
const hsvField *hsv_field(const hsvNode *node, const char *name);

// the value of field name if it exists and has the given type, else NULL
const hsvValue *hsv_value(const hsvNode *node, const char *name, hstVrmlType type);

// the node a scene node stands for: for an instance of a PROTO that is not one of the names
// in `keep` (NULL-terminated list, may be NULL) follow body[0] repeatedly; otherwise node itself
const hsvNode *hsv_resolve(const hsvNode *node, const char *const *keep);

// convenience getters: copy a field's value into out and return 1, or return 0 (out untouched)
// if the node has no such field of that type. Double-typed for every numeric type.
int hsv_getBool(const hsvNode *node, const char *name, int *out);
int hsv_getInt(const hsvNode *node, const char *name, int *out);
int hsv_getDouble(const hsvNode *node, const char *name, double *out);  // SFFloat or SFTime
int hsv_getVec3(const hsvNode *node, const char *name, double out[3]);  // SFVec3f or SFColor
int hsv_getRotation(const hsvNode *node, const char *name, double out[4]);
const char *hsv_getString(const hsvNode *node, const char *name);  // SFString, NULL if none

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_VRML_H_
