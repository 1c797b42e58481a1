// builder.h - the editable body that loaders fill, compiled into an hsBody.
//
// Loading is two stages (as MuJoCo's spec -> compile): a front end (VRML or URDF)
// pushes links, segments, shapes, sensors ... into an hsmBuilder, whose lists grow freely and
// own their strings and arrays; hsm_compile then checks the whole, merges each link's segments
// into its mass properties, groups sensors/segments/lights by link, and copies everything into
// one frozen hsBody allocation. The builder is freed afterwards either way.

#ifndef HRPSIM_MODEL_BUILDER_H_
#define HRPSIM_MODEL_BUILDER_H_

#include "mesh/mesh.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

// where something was written, for error messages
typedef struct hsmSource {
  const char *file;  // borrowed (the parse scene outlives the builder)
  int line, column;
} hsmSource;

typedef struct hsmLinkSpec {
  hsLink link;       // scalar fields; pointer and range fields are filled by hsm_compile
  char *name;
  char *jointTypeName;
  hsuVec limits[5];  // double: ulimit, llimit, uvlimit, lvlimit, climit
  hsuVec shapeRefs;  // hsShapeRef: shapes to draw
  int separateCollision;  // 1: collisionRefs below are the collision shapes, else shapeRefs
  hsuVec collisionRefs;   // hsShapeRef
  hsuVec inlined;    // double[12]
  int massGiven;     // 1: link.mass/com/inertia are final (else merged from the segments)
  hsmSource where;       // the Joint node
  hsmSource jointIdAt;   // the jointId value
} hsmLinkSpec;

typedef struct hsmSegmentSpec {
  hsSegment seg;     // scalar fields
  char *name;
  hsuVec shapeRefs;  // int: indices into the link's shapeRefs
  hsmSource where;
} hsmSegmentSpec;

typedef struct hsmSensorSpec {
  hsSensor sensor;    // scalar fields
  char *name;
  char *specFile;
  hsuVec specValues;  // float
  hsuVec shapeRefs;   // hsShapeRef
  hsuVec inlined;     // double[12]
  hsmSource idAt;     // the sensorId value
} hsmSensorSpec;

typedef struct hsmLightSpec {
  hsLight light;
  char *name;
} hsmLightSpec;

typedef struct hsmExtraJointSpec {
  hsExtraJoint ej;
  char *name;
  char *linkName[2];
  hsmSource where;
} hsmExtraJointSpec;

typedef struct hsmShapeSpec {
  hstPrimitive primitive;
  float params[8];
  int nparam;
  char *url;
  hsmMesh mesh;  // vertices and triangles (attributes moved to the appearance)
  int appearance;
} hsmShapeSpec;

typedef struct hsmAppearanceSpec {
  hsAppearance app;  // scalar fields
  hsmMesh attrs;     // normals, colours, texture coordinates (+ their indices) only
} hsmAppearanceSpec;

typedef struct hsmTextureSpec {
  hsTexture tex;  // scalar fields
  char *url;
  unsigned char *image;
} hsmTextureSpec;

// the editable body; zero-initialise, fill, then hsm_compile (which frees it)
typedef struct hsmBuilder {
  char *name;
  char *url;
  hsuVec info;         // char *
  hsuVec links;        // hsmLinkSpec
  hsuVec segments;     // hsmSegmentSpec
  hsuVec sensors;      // hsmSensorSpec
  hsuVec lights;       // hsmLightSpec
  hsuVec extraJoints;  // hsmExtraJointSpec
  hsuVec shapes;       // hsmShapeSpec
  hsuVec appearances;  // hsmAppearanceSpec
  hsuVec materials;    // hsMaterial
  hsuVec textures;     // hsmTextureSpec
  int nwarningInfo;    // warnings offered to hsm_addWarningInfo
} hsmBuilder;

// a shape to add: its geometry and how it looks
typedef struct hsmShapeInput {
  hstPrimitive primitive;  // hsPRIM_MESH unless the mesh is exactly that primitive
  const float *params;     // primitive parameters (see hstPrimitive), nparam of them
  int nparam;
  hsmMesh *mesh;      // taken over: vertices and triangles go to the shape, attributes
                      // (normals, colours, texture coordinates) to its appearance
  const char *url;    // file the shape comes from
  int material;       // index into b->materials, or -1
  int texture;        // index into b->textures, or -1
  int solid;
  double creaseAngle;
  const double *texTransform;  // 3x3, or NULL for identity
} hsmShapeInput;

// add a shape and its own appearance; returns the shape index, or -1 with err filled (the mesh
// is freed either way)
int hsm_addShape(hsmBuilder *b, const hsmShapeInput *in, hsError *err);

// decode the image file t->url into t (pixels, size, components) when readImage is set; 0 when
// decoded or not asked, else the hsError code with why = "texture not loaded: <reason>" (t
// keeps its url and no image: a missing picture loses nothing physical)
int hsm_readTextureImage(hsmTextureSpec *t, int readImage, char *why, size_t whySize);

// the options a front end works with: *in (or the defaults when in is NULL) with every value
// out of its range (slices < 3, stacks < 2, limits <= 0) replaced by its default
void hsm_effectiveLoadOptions(hsmLoadOptions *out, const hsmLoadOptions *in);

// record a load warning as a body info string "warning: <file>:<line>: <message>" (how
// warnings reach OpenHRP clients, whose BodyInfo has no other place for them); at most 100 are
// kept, then one line counting the rest. Returns 0 or hsE_NOMEM.
int hsm_addWarningInfo(hsmBuilder *b, const char *file, int line, const char *message);

// append one info string, printf-style (formatted into at most 1023 characters), to the body's
// BodyInfo.info; 0 or hsE_NOMEM
int hsm_addInfo(hsmBuilder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// release everything the builder owns and zero it
void hsm_freeBuilder(hsmBuilder *b);

// check the builder (jointIds 0..n-1 without duplicates, extra-joint links exist), merge mass
// properties and freeze it into a new hsBody; frees the builder in all cases. NULL on error.
hsBody *hsm_compile(hsmBuilder *b, hsError *err);

// merge segments into one mass: total mass, centre of mass and inertia about it, all in the
// link frame. seg[i] gives mass, com and inertia in its own frame placed at T (rigid).
void hsm_mergeMass(const hsSegment *seg, int n, double *mass, double com[3], double inertia[9]);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_BUILDER_H_
