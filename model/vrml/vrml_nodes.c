// vrml_nodes.c - the VRML97 field types, the 54 built-in node types with every field and
// its default (ISO/IEC 14772-1:1997 clause 6), and the arena every scene lives in.
//
// Each node type is a static array of field declarations in the order the standard lists them,
// with the access kind, the type and the default value as plain numbers or strings; the parser
// copies these into each node it creates (the defaults themselves are shared, never copied).
// The table is sorted by name so a lookup is a binary search.
//
// The arena hands out blocks from chunks obtained with hsu_malloc; a chunk grows from 16 KiB to
// 1 MiB as the scene grows, and a block larger than a quarter chunk gets a chunk of its own,
// which keeps huge coordinate arrays from wasting space. Freeing the arena frees every chunk.

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "vrml_private.h"

//---------------------------------- arena -----------------------------------------------------

#define ARENA_ALIGN 16
#define ARENA_FIRST_CHUNK ((size_t)16 << 10)
#define ARENA_MAX_CHUNK ((size_t)1 << 20)

typedef struct hsvChunk {
  struct hsvChunk *next;
  size_t used, cap;  // bytes of data[] in use and available
  alignas(ARENA_ALIGN) unsigned char data[];
} hsvChunk;

struct hsvArena {
  hsvChunk *head;    // the chunk being filled; big blocks are linked behind it
  size_t chunkSize;  // size of the next ordinary chunk
};

hsvArena *hsv_arenaMake(void) {
  hsvArena *arena = hsu_calloc(1, sizeof *arena);
  if (arena) {
    arena->chunkSize = ARENA_FIRST_CHUNK;
  }
  return arena;
}

void hsv_arenaFree(hsvArena *arena) {
  if (!arena) {
    return;
  }
  hsvChunk *c = arena->head;
  while (c) {
    hsvChunk *next = c->next;
    hsu_free(c);
    c = next;
  }
  hsu_free(arena);
}

static hsvChunk *newChunk(size_t cap) {
  hsvChunk *c = hsu_malloc(sizeof *c + cap);
  if (c) {
    c->next = NULL;
    c->used = 0;
    c->cap = cap;
  }
  return c;
}

void *hsv_arenaAlloc(hsvArena *arena, size_t size) {
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (size == 0) {
    size = ARENA_ALIGN;
  }
  hsvChunk *h = arena->head;
  if (h && h->cap - h->used >= size) {
    void *p = h->data + h->used;
    h->used += size;
    return p;
  }
  if (size > arena->chunkSize / 4) {
    // a block of its own, linked behind the current chunk so that one keeps filling
    hsvChunk *c = newChunk(size);
    if (!c) {
      return NULL;
    }
    c->used = size;
    if (h) {
      c->next = h->next;
      h->next = c;
    } else {
      arena->head = c;
    }
    return c->data;
  }
  hsvChunk *c = newChunk(arena->chunkSize);
  if (!c) {
    return NULL;
  }
  if (arena->chunkSize < ARENA_MAX_CHUNK) {
    arena->chunkSize *= 2;
  }
  c->next = h;
  arena->head = c;
  c->used = size;
  return c->data;
}

void *hsv_arenaCalloc(hsvArena *arena, size_t size) {
  void *p = hsv_arenaAlloc(arena, size);
  if (p) {
    memset(p, 0, size);
  }
  return p;
}

char *hsv_arenaStrndup(hsvArena *arena, const char *s, size_t n) {
  char *copy = hsv_arenaAlloc(arena, n + 1);
  if (copy) {
    memcpy(copy, s, n);
    copy[n] = 0;
  }
  return copy;
}

//---------------------------------- types -----------------------------------------------------

static const char *const kTypeNames[hsvNTYPES] = {
    "SFBool",  "SFInt32",  "SFFloat", "SFTime",  "SFString", "SFVec2f",    "SFVec3f",
    "SFColor", "SFRotation", "SFImage", "SFNode", "MFInt32", "MFFloat",    "MFTime",
    "MFString", "MFVec2f", "MFVec3f", "MFColor", "MFRotation", "MFNode"};

// numbers per element, by type (0: strings, nodes, and SFImage whose size varies)
static const int kTypeWidths[hsvNTYPES] = {1, 1, 1, 1, 0, 2, 3, 3, 4, 0, 0,
                                           1, 1, 1, 0, 2, 3, 3, 4, 0};

int hsv_typeWidth(hstVrmlType type) {
  return (unsigned)type < hsvNTYPES ? kTypeWidths[type] : 0;
}

const char *hsv_typeName(hstVrmlType type) {
  return (unsigned)type < hsvNTYPES ? kTypeNames[type] : "?";
}

int hsv_isMF(hstVrmlType type) {
  return type >= hsvMFINT32 && type < hsvNTYPES;
}

hstVrmlType hsv_elemType(hstVrmlType type) {
  switch (type) {
    case hsvMFINT32:
      return hsvSFINT32;
    case hsvMFFLOAT:
      return hsvSFFLOAT;
    case hsvMFTIME:
      return hsvSFTIME;
    case hsvMFSTRING:
      return hsvSFSTRING;
    case hsvMFVEC2F:
      return hsvSFVEC2F;
    case hsvMFVEC3F:
      return hsvSFVEC3F;
    case hsvMFCOLOR:
      return hsvSFCOLOR;
    case hsvMFROTATION:
      return hsvSFROTATION;
    case hsvMFNODE:
      return hsvSFNODE;
    default:
      return type;
  }
}

int hsv_typeByName(const char *name, size_t n) {
  for (int i = 0; i < hsvNTYPES; i++) {
    if (strlen(kTypeNames[i]) == n && memcmp(kTypeNames[i], name, n) == 0) {
      return i;
    }
  }
  return -1;
}

//---------------------------------- built-in node types ---------------------------------------

// an event or a field without default elements ([] or NULL)
#define NONE(acc, type, name) {name, hsv##acc, hsv##type, 0, NULL, NULL}
// a numeric default of n elements (SFBool as 0/1)
#define NUM(acc, type, name, n, ...) \
  {name, hsv##acc, hsv##type, n, (const double[]){__VA_ARGS__}, NULL}
// a string default of n strings
#define STR(acc, type, name, n, ...) \
  {name, hsv##acc, hsv##type, n, NULL, (const char *const[]){__VA_ARGS__}}

// the grouping pair every grouping node starts with
#define ADD_REMOVE NONE(EVENTIN, MFNODE, "addChildren"), NONE(EVENTIN, MFNODE, "removeChildren")
#define BBOX                                                   \
  NUM(FIELD, SFVEC3F, "bboxCenter", 1, 0, 0, 0),               \
      NUM(FIELD, SFVEC3F, "bboxSize", 1, -1, -1, -1)

static const hsvFieldDecl kAnchor[] = {
    ADD_REMOVE,
    NONE(EXPOSED, MFNODE, "children"),
    STR(EXPOSED, SFSTRING, "description", 1, ""),
    NONE(EXPOSED, MFSTRING, "parameter"),
    NONE(EXPOSED, MFSTRING, "url"),
    BBOX,
};

static const hsvFieldDecl kAppearance[] = {
    NONE(EXPOSED, SFNODE, "material"),
    NONE(EXPOSED, SFNODE, "texture"),
    NONE(EXPOSED, SFNODE, "textureTransform"),
};

static const hsvFieldDecl kAudioClip[] = {
    STR(EXPOSED, SFSTRING, "description", 1, ""),
    NUM(EXPOSED, SFBOOL, "loop", 1, 0),
    NUM(EXPOSED, SFFLOAT, "pitch", 1, 1.0),
    NUM(EXPOSED, SFTIME, "startTime", 1, 0),
    NUM(EXPOSED, SFTIME, "stopTime", 1, 0),
    NONE(EXPOSED, MFSTRING, "url"),
    NONE(EVENTOUT, SFTIME, "duration_changed"),
    NONE(EVENTOUT, SFBOOL, "isActive"),
};

static const hsvFieldDecl kBackground[] = {
    NONE(EVENTIN, SFBOOL, "set_bind"),
    NONE(EXPOSED, MFFLOAT, "groundAngle"),
    NONE(EXPOSED, MFCOLOR, "groundColor"),
    NONE(EXPOSED, MFSTRING, "backUrl"),
    NONE(EXPOSED, MFSTRING, "bottomUrl"),
    NONE(EXPOSED, MFSTRING, "frontUrl"),
    NONE(EXPOSED, MFSTRING, "leftUrl"),
    NONE(EXPOSED, MFSTRING, "rightUrl"),
    NONE(EXPOSED, MFSTRING, "topUrl"),
    NONE(EXPOSED, MFFLOAT, "skyAngle"),
    NUM(EXPOSED, MFCOLOR, "skyColor", 1, 0, 0, 0),
    NONE(EVENTOUT, SFBOOL, "isBound"),
};

static const hsvFieldDecl kBillboard[] = {
    ADD_REMOVE,
    NUM(EXPOSED, SFVEC3F, "axisOfRotation", 1, 0, 1, 0),
    NONE(EXPOSED, MFNODE, "children"),
    BBOX,
};

static const hsvFieldDecl kBox[] = {
    NUM(FIELD, SFVEC3F, "size", 1, 2, 2, 2),
};

static const hsvFieldDecl kCollision[] = {
    ADD_REMOVE,
    NONE(EXPOSED, MFNODE, "children"),
    NUM(EXPOSED, SFBOOL, "collide", 1, 1),
    BBOX,
    NONE(FIELD, SFNODE, "proxy"),
    NONE(EVENTOUT, SFTIME, "collideTime"),
};

static const hsvFieldDecl kColor[] = {
    NONE(EXPOSED, MFCOLOR, "color"),
};

static const hsvFieldDecl kColorInterpolator[] = {
    NONE(EVENTIN, SFFLOAT, "set_fraction"),
    NONE(EXPOSED, MFFLOAT, "key"),
    NONE(EXPOSED, MFCOLOR, "keyValue"),
    NONE(EVENTOUT, SFCOLOR, "value_changed"),
};

static const hsvFieldDecl kCone[] = {
    NUM(FIELD, SFFLOAT, "bottomRadius", 1, 1),
    NUM(FIELD, SFFLOAT, "height", 1, 2),
    NUM(FIELD, SFBOOL, "side", 1, 1),
    NUM(FIELD, SFBOOL, "bottom", 1, 1),
};

static const hsvFieldDecl kCoordinate[] = {
    NONE(EXPOSED, MFVEC3F, "point"),
};

static const hsvFieldDecl kCoordinateInterpolator[] = {
    NONE(EVENTIN, SFFLOAT, "set_fraction"),
    NONE(EXPOSED, MFFLOAT, "key"),
    NONE(EXPOSED, MFVEC3F, "keyValue"),
    NONE(EVENTOUT, MFVEC3F, "value_changed"),
};

static const hsvFieldDecl kCylinder[] = {
    NUM(FIELD, SFBOOL, "bottom", 1, 1),
    NUM(FIELD, SFFLOAT, "height", 1, 2),
    NUM(FIELD, SFFLOAT, "radius", 1, 1),
    NUM(FIELD, SFBOOL, "side", 1, 1),
    NUM(FIELD, SFBOOL, "top", 1, 1),
};

static const hsvFieldDecl kCylinderSensor[] = {
    NUM(EXPOSED, SFBOOL, "autoOffset", 1, 1),
    NUM(EXPOSED, SFFLOAT, "diskAngle", 1, 0.262),
    NUM(EXPOSED, SFBOOL, "enabled", 1, 1),
    NUM(EXPOSED, SFFLOAT, "maxAngle", 1, -1),
    NUM(EXPOSED, SFFLOAT, "minAngle", 1, 0),
    NUM(EXPOSED, SFFLOAT, "offset", 1, 0),
    NONE(EVENTOUT, SFBOOL, "isActive"),
    NONE(EVENTOUT, SFROTATION, "rotation_changed"),
    NONE(EVENTOUT, SFVEC3F, "trackPoint_changed"),
};

static const hsvFieldDecl kDirectionalLight[] = {
    NUM(EXPOSED, SFFLOAT, "ambientIntensity", 1, 0),
    NUM(EXPOSED, SFCOLOR, "color", 1, 1, 1, 1),
    NUM(EXPOSED, SFVEC3F, "direction", 1, 0, 0, -1),
    NUM(EXPOSED, SFFLOAT, "intensity", 1, 1),
    NUM(EXPOSED, SFBOOL, "on", 1, 1),
};

static const hsvFieldDecl kElevationGrid[] = {
    NONE(EVENTIN, MFFLOAT, "set_height"),
    NONE(EXPOSED, SFNODE, "color"),
    NONE(EXPOSED, SFNODE, "normal"),
    NONE(EXPOSED, SFNODE, "texCoord"),
    NONE(FIELD, MFFLOAT, "height"),
    NUM(FIELD, SFBOOL, "ccw", 1, 1),
    NUM(FIELD, SFBOOL, "colorPerVertex", 1, 1),
    NUM(FIELD, SFFLOAT, "creaseAngle", 1, 0),
    NUM(FIELD, SFBOOL, "normalPerVertex", 1, 1),
    NUM(FIELD, SFBOOL, "solid", 1, 1),
    NUM(FIELD, SFINT32, "xDimension", 1, 0),
    NUM(FIELD, SFFLOAT, "xSpacing", 1, 1.0),
    NUM(FIELD, SFINT32, "zDimension", 1, 0),
    NUM(FIELD, SFFLOAT, "zSpacing", 1, 1.0),
};

static const hsvFieldDecl kExtrusion[] = {
    NONE(EVENTIN, MFVEC2F, "set_crossSection"),
    NONE(EVENTIN, MFROTATION, "set_orientation"),
    NONE(EVENTIN, MFVEC2F, "set_scale"),
    NONE(EVENTIN, MFVEC3F, "set_spine"),
    NUM(FIELD, SFBOOL, "beginCap", 1, 1),
    NUM(FIELD, SFBOOL, "ccw", 1, 1),
    NUM(FIELD, SFBOOL, "convex", 1, 1),
    NUM(FIELD, SFFLOAT, "creaseAngle", 1, 0),
    NUM(FIELD, MFVEC2F, "crossSection", 5, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1),
    NUM(FIELD, SFBOOL, "endCap", 1, 1),
    NUM(FIELD, MFROTATION, "orientation", 1, 0, 0, 1, 0),
    NUM(FIELD, MFVEC2F, "scale", 1, 1, 1),
    NUM(FIELD, SFBOOL, "solid", 1, 1),
    NUM(FIELD, MFVEC3F, "spine", 2, 0, 0, 0, 0, 1, 0),
};

static const hsvFieldDecl kFog[] = {
    NUM(EXPOSED, SFCOLOR, "color", 1, 1, 1, 1),
    STR(EXPOSED, SFSTRING, "fogType", 1, "LINEAR"),
    NUM(EXPOSED, SFFLOAT, "visibilityRange", 1, 0),
    NONE(EVENTIN, SFBOOL, "set_bind"),
    NONE(EVENTOUT, SFBOOL, "isBound"),
};

static const hsvFieldDecl kFontStyle[] = {
    STR(FIELD, MFSTRING, "family", 1, "SERIF"),
    NUM(FIELD, SFBOOL, "horizontal", 1, 1),
    STR(FIELD, MFSTRING, "justify", 1, "BEGIN"),
    STR(FIELD, SFSTRING, "language", 1, ""),
    NUM(FIELD, SFBOOL, "leftToRight", 1, 1),
    NUM(FIELD, SFFLOAT, "size", 1, 1.0),
    NUM(FIELD, SFFLOAT, "spacing", 1, 1.0),
    STR(FIELD, SFSTRING, "style", 1, "PLAIN"),
    NUM(FIELD, SFBOOL, "topToBottom", 1, 1),
};

static const hsvFieldDecl kGroup[] = {
    ADD_REMOVE,
    NONE(EXPOSED, MFNODE, "children"),
    BBOX,
};

static const hsvFieldDecl kImageTexture[] = {
    NONE(EXPOSED, MFSTRING, "url"),
    NUM(FIELD, SFBOOL, "repeatS", 1, 1),
    NUM(FIELD, SFBOOL, "repeatT", 1, 1),
};

static const hsvFieldDecl kIndexedFaceSet[] = {
    NONE(EVENTIN, MFINT32, "set_colorIndex"),
    NONE(EVENTIN, MFINT32, "set_coordIndex"),
    NONE(EVENTIN, MFINT32, "set_normalIndex"),
    NONE(EVENTIN, MFINT32, "set_texCoordIndex"),
    NONE(EXPOSED, SFNODE, "color"),
    NONE(EXPOSED, SFNODE, "coord"),
    NONE(EXPOSED, SFNODE, "normal"),
    NONE(EXPOSED, SFNODE, "texCoord"),
    NUM(FIELD, SFBOOL, "ccw", 1, 1),
    NONE(FIELD, MFINT32, "colorIndex"),
    NUM(FIELD, SFBOOL, "colorPerVertex", 1, 1),
    NUM(FIELD, SFBOOL, "convex", 1, 1),
    NONE(FIELD, MFINT32, "coordIndex"),
    NUM(FIELD, SFFLOAT, "creaseAngle", 1, 0),
    NONE(FIELD, MFINT32, "normalIndex"),
    NUM(FIELD, SFBOOL, "normalPerVertex", 1, 1),
    NUM(FIELD, SFBOOL, "solid", 1, 1),
    NONE(FIELD, MFINT32, "texCoordIndex"),
};

static const hsvFieldDecl kIndexedLineSet[] = {
    NONE(EVENTIN, MFINT32, "set_colorIndex"),
    NONE(EVENTIN, MFINT32, "set_coordIndex"),
    NONE(EXPOSED, SFNODE, "color"),
    NONE(EXPOSED, SFNODE, "coord"),
    NONE(FIELD, MFINT32, "colorIndex"),
    NUM(FIELD, SFBOOL, "colorPerVertex", 1, 1),
    NONE(FIELD, MFINT32, "coordIndex"),
};

static const hsvFieldDecl kInline[] = {
    NONE(EXPOSED, MFSTRING, "url"),
    BBOX,
};

static const hsvFieldDecl kLOD[] = {
    NONE(EXPOSED, MFNODE, "level"),
    NUM(FIELD, SFVEC3F, "center", 1, 0, 0, 0),
    NONE(FIELD, MFFLOAT, "range"),
};

static const hsvFieldDecl kMaterial[] = {
    NUM(EXPOSED, SFFLOAT, "ambientIntensity", 1, 0.2),
    NUM(EXPOSED, SFCOLOR, "diffuseColor", 1, 0.8, 0.8, 0.8),
    NUM(EXPOSED, SFCOLOR, "emissiveColor", 1, 0, 0, 0),
    NUM(EXPOSED, SFFLOAT, "shininess", 1, 0.2),
    NUM(EXPOSED, SFCOLOR, "specularColor", 1, 0, 0, 0),
    NUM(EXPOSED, SFFLOAT, "transparency", 1, 0),
};

static const hsvFieldDecl kMovieTexture[] = {
    NUM(EXPOSED, SFBOOL, "loop", 1, 0),
    NUM(EXPOSED, SFFLOAT, "speed", 1, 1.0),
    NUM(EXPOSED, SFTIME, "startTime", 1, 0),
    NUM(EXPOSED, SFTIME, "stopTime", 1, 0),
    NONE(EXPOSED, MFSTRING, "url"),
    NUM(FIELD, SFBOOL, "repeatS", 1, 1),
    NUM(FIELD, SFBOOL, "repeatT", 1, 1),
    NONE(EVENTOUT, SFTIME, "duration_changed"),
    NONE(EVENTOUT, SFBOOL, "isActive"),
};

static const hsvFieldDecl kNavigationInfo[] = {
    NONE(EVENTIN, SFBOOL, "set_bind"),
    NUM(EXPOSED, MFFLOAT, "avatarSize", 3, 0.25, 1.6, 0.75),
    NUM(EXPOSED, SFBOOL, "headlight", 1, 1),
    NUM(EXPOSED, SFFLOAT, "speed", 1, 1.0),
    STR(EXPOSED, MFSTRING, "type", 2, "WALK", "ANY"),
    NUM(EXPOSED, SFFLOAT, "visibilityLimit", 1, 0.0),
    NONE(EVENTOUT, SFBOOL, "isBound"),
};

static const hsvFieldDecl kNormal[] = {
    NONE(EXPOSED, MFVEC3F, "vector"),
};

static const hsvFieldDecl kNormalInterpolator[] = {
    NONE(EVENTIN, SFFLOAT, "set_fraction"),
    NONE(EXPOSED, MFFLOAT, "key"),
    NONE(EXPOSED, MFVEC3F, "keyValue"),
    NONE(EVENTOUT, MFVEC3F, "value_changed"),
};

static const hsvFieldDecl kOrientationInterpolator[] = {
    NONE(EVENTIN, SFFLOAT, "set_fraction"),
    NONE(EXPOSED, MFFLOAT, "key"),
    NONE(EXPOSED, MFROTATION, "keyValue"),
    NONE(EVENTOUT, SFROTATION, "value_changed"),
};

static const hsvFieldDecl kPixelTexture[] = {
    NUM(EXPOSED, SFIMAGE, "image", 1, 0, 0, 0),
    NUM(FIELD, SFBOOL, "repeatS", 1, 1),
    NUM(FIELD, SFBOOL, "repeatT", 1, 1),
};

static const hsvFieldDecl kPlaneSensor[] = {
    NUM(EXPOSED, SFBOOL, "autoOffset", 1, 1),
    NUM(EXPOSED, SFBOOL, "enabled", 1, 1),
    NUM(EXPOSED, SFVEC2F, "maxPosition", 1, -1, -1),
    NUM(EXPOSED, SFVEC2F, "minPosition", 1, 0, 0),
    NUM(EXPOSED, SFVEC3F, "offset", 1, 0, 0, 0),
    NONE(EVENTOUT, SFBOOL, "isActive"),
    NONE(EVENTOUT, SFVEC3F, "trackPoint_changed"),
    NONE(EVENTOUT, SFVEC3F, "translation_changed"),
};

static const hsvFieldDecl kPointLight[] = {
    NUM(EXPOSED, SFFLOAT, "ambientIntensity", 1, 0),
    NUM(EXPOSED, SFVEC3F, "attenuation", 1, 1, 0, 0),
    NUM(EXPOSED, SFCOLOR, "color", 1, 1, 1, 1),
    NUM(EXPOSED, SFFLOAT, "intensity", 1, 1),
    NUM(EXPOSED, SFVEC3F, "location", 1, 0, 0, 0),
    NUM(EXPOSED, SFBOOL, "on", 1, 1),
    NUM(EXPOSED, SFFLOAT, "radius", 1, 100),
};

static const hsvFieldDecl kPointSet[] = {
    NONE(EXPOSED, SFNODE, "color"),
    NONE(EXPOSED, SFNODE, "coord"),
};

static const hsvFieldDecl kPositionInterpolator[] = {
    NONE(EVENTIN, SFFLOAT, "set_fraction"),
    NONE(EXPOSED, MFFLOAT, "key"),
    NONE(EXPOSED, MFVEC3F, "keyValue"),
    NONE(EVENTOUT, SFVEC3F, "value_changed"),
};

static const hsvFieldDecl kProximitySensor[] = {
    NUM(EXPOSED, SFVEC3F, "center", 1, 0, 0, 0),
    NUM(EXPOSED, SFVEC3F, "size", 1, 0, 0, 0),
    NUM(EXPOSED, SFBOOL, "enabled", 1, 1),
    NONE(EVENTOUT, SFBOOL, "isActive"),
    NONE(EVENTOUT, SFVEC3F, "position_changed"),
    NONE(EVENTOUT, SFROTATION, "orientation_changed"),
    NONE(EVENTOUT, SFTIME, "enterTime"),
    NONE(EVENTOUT, SFTIME, "exitTime"),
};

static const hsvFieldDecl kScalarInterpolator[] = {
    NONE(EVENTIN, SFFLOAT, "set_fraction"),
    NONE(EXPOSED, MFFLOAT, "key"),
    NONE(EXPOSED, MFFLOAT, "keyValue"),
    NONE(EVENTOUT, SFFLOAT, "value_changed"),
};

// Script also takes any number of field/eventIn/eventOut declarations in its body
static const hsvFieldDecl kScript[] = {
    NONE(EXPOSED, MFSTRING, "url"),
    NUM(FIELD, SFBOOL, "directOutput", 1, 0),
    NUM(FIELD, SFBOOL, "mustEvaluate", 1, 0),
};

static const hsvFieldDecl kShape[] = {
    NONE(EXPOSED, SFNODE, "appearance"),
    NONE(EXPOSED, SFNODE, "geometry"),
};

static const hsvFieldDecl kSound[] = {
    NUM(EXPOSED, SFVEC3F, "direction", 1, 0, 0, 1),
    NUM(EXPOSED, SFFLOAT, "intensity", 1, 1),
    NUM(EXPOSED, SFVEC3F, "location", 1, 0, 0, 0),
    NUM(EXPOSED, SFFLOAT, "maxBack", 1, 10),
    NUM(EXPOSED, SFFLOAT, "maxFront", 1, 10),
    NUM(EXPOSED, SFFLOAT, "minBack", 1, 1),
    NUM(EXPOSED, SFFLOAT, "minFront", 1, 1),
    NUM(EXPOSED, SFFLOAT, "priority", 1, 0),
    NONE(EXPOSED, SFNODE, "source"),
    NUM(FIELD, SFBOOL, "spatialize", 1, 1),
};

static const hsvFieldDecl kSphere[] = {
    NUM(FIELD, SFFLOAT, "radius", 1, 1),
};

static const hsvFieldDecl kSphereSensor[] = {
    NUM(EXPOSED, SFBOOL, "autoOffset", 1, 1),
    NUM(EXPOSED, SFBOOL, "enabled", 1, 1),
    NUM(EXPOSED, SFROTATION, "offset", 1, 0, 1, 0, 0),
    NONE(EVENTOUT, SFBOOL, "isActive"),
    NONE(EVENTOUT, SFROTATION, "rotation_changed"),
    NONE(EVENTOUT, SFVEC3F, "trackPoint_changed"),
};

static const hsvFieldDecl kSpotLight[] = {
    NUM(EXPOSED, SFFLOAT, "ambientIntensity", 1, 0),
    NUM(EXPOSED, SFVEC3F, "attenuation", 1, 1, 0, 0),
    NUM(EXPOSED, SFFLOAT, "beamWidth", 1, 1.570796),
    NUM(EXPOSED, SFCOLOR, "color", 1, 1, 1, 1),
    NUM(EXPOSED, SFFLOAT, "cutOffAngle", 1, 0.785398),
    NUM(EXPOSED, SFVEC3F, "direction", 1, 0, 0, -1),
    NUM(EXPOSED, SFFLOAT, "intensity", 1, 1),
    NUM(EXPOSED, SFVEC3F, "location", 1, 0, 0, 0),
    NUM(EXPOSED, SFBOOL, "on", 1, 1),
    NUM(EXPOSED, SFFLOAT, "radius", 1, 100),
};

static const hsvFieldDecl kSwitch[] = {
    NONE(EXPOSED, MFNODE, "choice"),
    NUM(EXPOSED, SFINT32, "whichChoice", 1, -1),
};

static const hsvFieldDecl kText[] = {
    NONE(EXPOSED, MFSTRING, "string"),
    NONE(EXPOSED, SFNODE, "fontStyle"),
    NONE(EXPOSED, MFFLOAT, "length"),
    NUM(EXPOSED, SFFLOAT, "maxExtent", 1, 0.0),
};

static const hsvFieldDecl kTextureCoordinate[] = {
    NONE(EXPOSED, MFVEC2F, "point"),
};

static const hsvFieldDecl kTextureTransform[] = {
    NUM(EXPOSED, SFVEC2F, "center", 1, 0, 0),
    NUM(EXPOSED, SFFLOAT, "rotation", 1, 0),
    NUM(EXPOSED, SFVEC2F, "scale", 1, 1, 1),
    NUM(EXPOSED, SFVEC2F, "translation", 1, 0, 0),
};

static const hsvFieldDecl kTimeSensor[] = {
    NUM(EXPOSED, SFTIME, "cycleInterval", 1, 1),
    NUM(EXPOSED, SFBOOL, "enabled", 1, 1),
    NUM(EXPOSED, SFBOOL, "loop", 1, 0),
    NUM(EXPOSED, SFTIME, "startTime", 1, 0),
    NUM(EXPOSED, SFTIME, "stopTime", 1, 0),
    NONE(EVENTOUT, SFTIME, "cycleTime"),
    NONE(EVENTOUT, SFFLOAT, "fraction_changed"),
    NONE(EVENTOUT, SFBOOL, "isActive"),
    NONE(EVENTOUT, SFTIME, "time"),
};

static const hsvFieldDecl kTouchSensor[] = {
    NUM(EXPOSED, SFBOOL, "enabled", 1, 1),
    NONE(EVENTOUT, SFVEC3F, "hitNormal_changed"),
    NONE(EVENTOUT, SFVEC3F, "hitPoint_changed"),
    NONE(EVENTOUT, SFVEC2F, "hitTexCoord_changed"),
    NONE(EVENTOUT, SFBOOL, "isActive"),
    NONE(EVENTOUT, SFBOOL, "isOver"),
    NONE(EVENTOUT, SFTIME, "touchTime"),
};

static const hsvFieldDecl kTransform[] = {
    ADD_REMOVE,
    NUM(EXPOSED, SFVEC3F, "center", 1, 0, 0, 0),
    NONE(EXPOSED, MFNODE, "children"),
    NUM(EXPOSED, SFROTATION, "rotation", 1, 0, 0, 1, 0),
    NUM(EXPOSED, SFVEC3F, "scale", 1, 1, 1, 1),
    NUM(EXPOSED, SFROTATION, "scaleOrientation", 1, 0, 0, 1, 0),
    NUM(EXPOSED, SFVEC3F, "translation", 1, 0, 0, 0),
    BBOX,
};

static const hsvFieldDecl kViewpoint[] = {
    NONE(EVENTIN, SFBOOL, "set_bind"),
    NUM(EXPOSED, SFFLOAT, "fieldOfView", 1, 0.785398),
    NUM(EXPOSED, SFBOOL, "jump", 1, 1),
    NUM(EXPOSED, SFROTATION, "orientation", 1, 0, 0, 1, 0),
    NUM(EXPOSED, SFVEC3F, "position", 1, 0, 0, 10),
    STR(FIELD, SFSTRING, "description", 1, ""),
    NONE(EVENTOUT, SFTIME, "bindTime"),
    NONE(EVENTOUT, SFBOOL, "isBound"),
};

static const hsvFieldDecl kVisibilitySensor[] = {
    NUM(EXPOSED, SFVEC3F, "center", 1, 0, 0, 0),
    NUM(EXPOSED, SFBOOL, "enabled", 1, 1),
    NUM(EXPOSED, SFVEC3F, "size", 1, 0, 0, 0),
    NONE(EVENTOUT, SFTIME, "enterTime"),
    NONE(EVENTOUT, SFTIME, "exitTime"),
    NONE(EVENTOUT, SFBOOL, "isActive"),
};

static const hsvFieldDecl kWorldInfo[] = {
    NONE(FIELD, MFSTRING, "info"),
    STR(FIELD, SFSTRING, "title", 1, ""),
};

#define NODE(name) {#name, k##name, (int)(sizeof k##name / sizeof k##name[0])}

// sorted by name (strcmp order) for the binary search
static const hsvNodeDecl kNodes[] = {
    NODE(Anchor),
    NODE(Appearance),
    NODE(AudioClip),
    NODE(Background),
    NODE(Billboard),
    NODE(Box),
    NODE(Collision),
    NODE(Color),
    NODE(ColorInterpolator),
    NODE(Cone),
    NODE(Coordinate),
    NODE(CoordinateInterpolator),
    NODE(Cylinder),
    NODE(CylinderSensor),
    NODE(DirectionalLight),
    NODE(ElevationGrid),
    NODE(Extrusion),
    NODE(Fog),
    NODE(FontStyle),
    NODE(Group),
    NODE(ImageTexture),
    NODE(IndexedFaceSet),
    NODE(IndexedLineSet),
    NODE(Inline),
    NODE(LOD),
    NODE(Material),
    NODE(MovieTexture),
    NODE(NavigationInfo),
    NODE(Normal),
    NODE(NormalInterpolator),
    NODE(OrientationInterpolator),
    NODE(PixelTexture),
    NODE(PlaneSensor),
    NODE(PointLight),
    NODE(PointSet),
    NODE(PositionInterpolator),
    NODE(ProximitySensor),
    NODE(ScalarInterpolator),
    NODE(Script),
    NODE(Shape),
    NODE(Sound),
    NODE(Sphere),
    NODE(SphereSensor),
    NODE(SpotLight),
    NODE(Switch),
    NODE(Text),
    NODE(TextureCoordinate),
    NODE(TextureTransform),
    NODE(TimeSensor),
    NODE(TouchSensor),
    NODE(Transform),
    NODE(Viewpoint),
    NODE(VisibilitySensor),
    NODE(WorldInfo),
};

#define NNODES ((int)(sizeof kNodes / sizeof kNodes[0]))

int hsv_builtinCount(void) {
  return NNODES;
}

const hsvNodeDecl *hsv_builtin(int i) {
  return i >= 0 && i < NNODES ? &kNodes[i] : NULL;
}

// strcmp of the n bytes at name against the C string s
static int compareName(const char *name, size_t n, const char *s) {
  size_t sn = strlen(s);
  int c = memcmp(name, s, n < sn ? n : sn);
  if (c != 0) {
    return c;
  }
  return n < sn ? -1 : n > sn;
}

const hsvNodeDecl *hsv_findBuiltin(const char *name, size_t n) {
  int lo = 0, hi = NNODES - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c = compareName(name, n, kNodes[mid].name);
    if (c == 0) {
      return &kNodes[mid];
    }
    if (c < 0) {
      hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  return NULL;
}
