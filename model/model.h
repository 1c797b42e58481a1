// model.h - hsBody, the static description of one robot or environment, its loaders and
// kinematics.
//
// A body is loaded once (hsm_loadVrml, hsm_loadUrdf) and is read-only afterwards: any number of
// simulations may share one. It lives in a single allocation, so hsm_freeBody releases it in
// one call; every pointer inside points into that block. Everything that changes while a body
// is simulated (joint values, the root pose, link poses) lives in an hsBodyState owned by the
// caller. Lengths are in metres, masses in kilograms, angles in radians; rotations are 3x3
// row-major, transforms 3x4 row-major [R t] (see util.h).
//
// The fields follow OpenHRP 3.1's BodyInfo (see shared/spec/openhrp-interfaces.md), so the
// conversion to and from the wire is a straight copy.

#ifndef HRPSIM_MODEL_MODEL_H_
#define HRPSIM_MODEL_MODEL_H_

#include <stddef.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- types -----------------------------------------------------

// joint types, as OpenHRP's jointType strings
typedef enum hstJoint {
  hsJOINT_FREE = 0,  // "free": six degrees of freedom (a floating root)
  hsJOINT_ROTATE,    // "rotate": revolute about axis
  hsJOINT_SLIDE,     // "slide": prismatic along axis
  hsJOINT_FIXED,     // "fixed": welded to the parent (or to the world for a root)
  hsJOINT_CRAWLER    // "crawler": a tracked link; axis is the axis its wheels turn about, so
                     // the track surface moves along axis x contact normal
} hstJoint;

// shape primitive types, in the order of OpenHRP's ShapePrimitiveType
typedef enum hstPrimitive {
  hsPRIM_MESH = 0,
  hsPRIM_BOX,       // params: size x, y, z
  hsPRIM_CYLINDER,  // params: radius, height, top, bottom, side (flags 0/1); axis is y
  hsPRIM_CONE,      // params: bottomRadius, height, bottom, side (flags 0/1); axis is y
  hsPRIM_SPHERE,    // params: radius
  hsPRIM_PLANE
} hstPrimitive;

// sensor types, in the order of OpenHRP's SensorState lists
typedef enum hstSensor {
  hsSENSOR_FORCE = 0,     // "Force": specValues maxForce(3), maxTorque(3)
  hsSENSOR_RATEGYRO,      // "RateGyro": specValues maxAngularVelocity(3)
  hsSENSOR_ACCELERATION,  // "Acceleration": specValues maxAcceleration(3)
  hsSENSOR_VISION,        // "Vision": front, back, fov, type, width, height, frameRate
  hsSENSOR_RANGE,         // "Range": scanAngle, scanStep, scanRate, maxDistance
  hsSENSOR_NTYPES
} hstSensor;

// light types, in the order of OpenHRP's LightType
typedef enum hstLight { hsLIGHT_POINT = 0, hsLIGHT_DIRECTIONAL, hsLIGHT_SPOT } hstLight;

// extra (closed-loop) joint types, in the order of OpenHRP's ExtraJointType
typedef enum hstExtraJoint {
  hsEXTRA_XYZ = 0,
  hsEXTRA_XY,
  hsEXTRA_Z,
  hsEXTRA_NTYPES
} hstExtraJoint;

// a shape placed in a frame (OpenHRP's TransformedShapeIndex)
typedef struct hsShapeRef {
  double T[12];      // shape frame in the owner's frame (link or sensor), 3x4 [R t]; may scale
  int inlineMatrix;  // index into the owner's inlined matrices, -1 if not from an Inline
  int shape;         // index into body->shapes
} hsShapeRef;

// a list of doubles (an OpenHRP DblSequence)
typedef struct hsDoubles {
  const double *v;
  int n;
} hsDoubles;

// one segment: a rigid mass element of a link (OpenHRP's Segment node)
typedef struct hsSegment {
  const char *name;   // DEF name, "" if none
  int link;           // owning link
  double mass;        // [kg]
  double com[3];      // centre of mass, segment frame [m]
  double inertia[9];  // about com, segment frame, row-major [kg m^2]
  double T[12];       // segment frame in the link frame
  const int *shapeRefs;  // indices into the link's shapeRefs
  int nshapeRef;
} hsSegment;

// one sensor (OpenHRP's SensorInfo)
typedef struct hsSensor {
  const char *name;      // DEF name
  hstSensor type;
  int id;                // sensorId, unique within the type
  int link;              // owning link
  double translation[3];  // sensor frame origin, link frame [m]
  double rotation[4];     // sensor frame orientation, link frame, axis-angle
  const float *specValues;
  int nspecValue;
  const char *specFile;
  const hsShapeRef *shapeRefs;  // shapes in the sensor frame
  int nshapeRef;
  const double *inlinedMatrices;  // 12 doubles each
  int ninlinedMatrix;
} hsSensor;

// one light (OpenHRP's LightInfo)
typedef struct hsLight {
  const char *name;
  hstLight type;
  int link;
  double T[12];  // light frame in the link frame
  double ambientIntensity;
  double attenuation[3];
  double color[3];
  double intensity;
  double location[3];
  int on;
  double radius;
  double direction[3];
  double beamWidth;
  double cutOffAngle;
} hsLight;

// one link and the joint that connects it to its parent (OpenHRP's LinkInfo)
typedef struct hsLink {
  const char *name;    // DEF name of the Joint node ("root" for an environment)
  int jointId;         // -1 if the joint is not actuated/numbered
  hstJoint jointType;
  const char *jointTypeName;  // as written in the model ("free", "rotate", ...)
  double jointValue;   // initial joint value [rad or m]
  double axis[3];      // joint axis, link frame (unit)
  hsDoubles ulimit, llimit, uvlimit, lvlimit, climit;  // as written; empty when absent
  double translation[3];  // link frame origin in the parent link frame at q = 0 [m]
  double rotation[4];     // link frame orientation in the parent frame at q = 0, axis-angle
  double R[9];            // the same rotation as a matrix
  double mass;            // merged over all segments [kg]
  double com[3];          // merged centre of mass, link frame [m]
  double inertia[9];      // merged inertia about com, link frame [kg m^2]
  double rotorInertia, rotorResistor, gearRatio, torqueConst, encoderPulse;
  int parent;             // parent link index, -1 for the root
  const int *children;    // direct child link indices, in file order
  int nchild;
  const hsShapeRef *shapeRefs;  // shapes to draw, link frame
  int nshapeRef;
  // shapes for physics and collision queries, link frame: the same array as shapeRefs unless
  // the model gives separate collision geometry (URDF's <collision>)
  const hsShapeRef *collisionRefs;
  int ncollisionRef;
  const double *inlinedMatrices;  // 12 doubles each
  int ninlinedMatrix;
  int AABBmaxDepth, AABBmaxNum;
  int sensorAdr, nsensor;    // this link's sensors are body->sensors[sensorAdr .. +nsensor)
  int segmentAdr, nsegment;  // likewise for segments
  int lightAdr, nlight;      // likewise for lights
  // collision filter (MuJoCo's contype / conaffinity): links of two bodies may touch when
  // (contype1 & conaffinity2) || (contype2 & conaffinity1); 1 and 1 unless the body's info
  // strings say otherwise (see hsm_linksMayCollide)
  unsigned contype, conaffinity;
} hsLink;

// one triangle mesh, possibly remembering the primitive it came from (OpenHRP's ShapeInfo)
typedef struct hsShape {
  const char *url;        // file the shape was read from
  hstPrimitive primitive;
  const float *params;    // primitive parameters (see hstPrimitive)
  int nparam;
  const float *vertices;  // x, y, z per vertex, shape frame [m]
  int nvertex;
  const int *triangles;   // 3 vertex indices per triangle, counter-clockwise seen from outside
  int ntriangle;
  int appearance;         // index into body->appearances, -1 if none
} hsShape;

// surface attributes of a shape (OpenHRP's AppearanceInfo); index lists are per triangle
// corner (3 per triangle) when per-vertex, per triangle when per-face
typedef struct hsAppearance {
  int material;  // -1 if none
  const float *normals;  // x, y, z each
  int nnormal;
  const int *normalIndices;
  int nnormalIndex;
  int normalPerVertex;
  int solid;
  float creaseAngle;
  const float *colors;  // r, g, b each
  int ncolor;
  const int *colorIndices;
  int ncolorIndex;
  int colorPerVertex;
  int texture;  // -1 if none
  const float *texCoords;  // s, t each
  int ntexCoord;
  const int *texCoordIndices;
  int ntexCoordIndex;
  double texTransform[9];  // 3x3 row-major, acting on (s, t, 1)
} hsAppearance;

// a VRML Material
typedef struct hsMaterial {
  float ambientIntensity;
  float diffuseColor[3];
  float emissiveColor[3];
  float shininess;
  float specularColor[3];
  float transparency;
} hsMaterial;

// a texture image; pixels are present only when the load asked for images
typedef struct hsTexture {
  const unsigned char *image;  // width * height * numComponents bytes, rows top first
  size_t nimage;
  int numComponents;
  int width, height;
  int repeatS, repeatT;
  const char *url;  // resolved absolute path of the image file
} hsTexture;

// a closed-loop constraint between two links (OpenHRP's ExtraJointInfo)
typedef struct hsExtraJoint {
  const char *name;
  hstExtraJoint type;
  double axis[3];
  const char *linkName[2];
  int link[2];          // link indices
  double point[2][3];   // attachment point in each link's frame [m]
} hsExtraJoint;

// the static description of one body; read-only once loaded
typedef struct hsBody {
  const char *name;  // DEF name of the Humanoid, or the file's base name for an environment
  const char *url;   // absolute path of the file it was loaded from
  const char *const *info;  // Humanoid info strings
  int ninfo;

  hsLink *links;  // depth-first from the root; links[0] is the root
  int nlink;
  int njoint;            // the largest jointId + 1: the length of joint-ordered arrays
  const int *jointLink;  // link index of each jointId, -1 for an id no link has (a gap, which
                         // OpenHRP fills with an empty joint: it reads 0 and ignores writes)

  hsShape *shapes;
  int nshape;
  hsAppearance *appearances;
  int nappearance;
  hsMaterial *materials;
  int nmaterial;
  hsTexture *textures;
  int ntexture;

  hsSensor *sensors;  // grouped by link, in link order, then in file order
  int nsensor;
  hsSegment *segments;  // grouped by link
  int nsegment;
  hsLight *lights;  // grouped by link
  int nlight;
  hsExtraJoint *extraJoints;
  int nextraJoint;
  const int *collisionExcludes;  // link index pairs (2 each, lower first, sorted, distinct) that
                                 // never touch
  int ncollisionExclude;         // number of pairs

  size_t nbytes;  // size of the single allocation holding the body
} hsBody;

// the mutable kinematic state of one body; make with hsm_makeState
typedef struct hsBodyState {
  const hsBody *body;  // borrowed; must outlive the state
  double *q;    // joint value per link (0 for links without a 1-dof joint) [rad or m]
  double *dq;   // joint velocity per link
  double *ddq;  // joint acceleration per link
  double *u;    // joint torque or force per link
  double rootP[3];  // root link origin, world frame [m]
  double rootR[9];  // root link orientation, world frame
  double *linkP;    // per link: origin, world frame, 3 each [m]
  double *linkR;    // per link: orientation, world frame, 9 each
} hsBodyState;

// what one load may cost: a file or mesh past a limit fails the load with an error naming the
// file and the limit. A field left 0 means its default (hsm_defaultLimits).
typedef struct hsmLimits {
  size_t maxFileBytes;  // largest model, mesh or texture file read [bytes] (default 256 MiB)
  double meshSeconds;   // wall-clock time one mesh file's import may take [s] (default 60)
  size_t meshBytes;     // memory a mesh import may add to the process [bytes] (default 4 GiB;
                        // the import child's address space beyond what it had at its fork)
  long meshTriangles;   // triangles one mesh file may hold (default 20 million)
  int meshInProcess;    // 1: import meshes in this process, where time and memory are not
                        // bounded (tests, tools); 0 (default): in a child process that the
                        // limits stop
} hsmLimits;

// load-time options; the limits bound what a file may expand to (DEF/USE and Inline repeat
// parts without copying text), so a hostile or broken file fails fast with a clear error
typedef struct hsmLoadOptions {
  int readImage;  // decode texture images (PNG, JPEG) into hsTexture.image
  int sphereSlices;  // tessellation of spheres, cylinders and cones around their axis
  int sphereStacks;  // tessellation of spheres from pole to pole
  long maxSceneNodes;      // nodes a VRML parse may make, PROTO copies included (2,000,000)
  int maxInlineDepth;      // Inline nesting (32)
  long maxNodeVisits;      // nodes visited while placing a scene's parts, each USE and each
                           // Inline counted again (10,000,000)
  long maxShapeInstances;  // placed shapes over all links and sensors (1,000,000)
  long maxTriangles;       // triangles over all distinct shapes (5,000,000: ~300 MB of body)
  int maxNesting;          // grouping nodes nested inside one another, across Inlines (1,000)
  hsmLimits limits;        // what reading files and importing meshes may cost
} hsmLoadOptions;

// a warning produced while loading (not fatal)
typedef struct hsmWarning {
  char message[512];
  char file[512];
  int line;
} hsmWarning;

//---------------------------------- load / free -----------------------------------------------

// fill opt with the defaults: no images, 16 slices, 8 stacks, the limits above
void hsm_defaultLoadOptions(hsmLoadOptions *opt);

// fill limits with the defaults: 256 MiB files; a mesh import may take 60 s, add 4 GiB to the
// process and hold 20 million triangles, in a child process
void hsm_defaultLimits(hsmLimits *limits);

// limits with every 0 field replaced by its default
hsmLimits hsm_effectiveLimits(const hsmLimits *limits);

// load an OpenHRP-format VRML97 file (a Humanoid robot, or an environment when the file has no
// Humanoid); path is a plain path or a file:// URL; opt may be NULL for the defaults.
// Warnings are logged through hsu_log and, if warnings is not NULL, stored there: up to
// maxWarnings, with the total count in *nwarnings (nwarnings may be NULL).
// Returns a new body (free with hsm_freeBody) or NULL with err filled (file, line, column).
hsBody *hsm_loadVrml(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                     int maxWarnings, int *nwarnings, hsError *err);

// load a URDF robot (links, joints, inertials, visual and collision geometry with meshes read
// through assimp, materials); arguments, warnings, ownership and errors as hsm_loadVrml.
// Each non-root link is named after the URDF joint that moves it, the root after its URDF
// link; every URDF link name is kept as its link's segment name.
hsBody *hsm_loadUrdf(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                     int maxWarnings, int *nwarnings, hsError *err);

// load an MJCF (MuJoCo) model, compiled as MuJoCo's compiler would (see model/mjcf/): path is
// a plain path or file:// URL, optionally with a fragment #NAME that selects a top-level body
// of <worldbody> (#world: the world's own geoms as an environment); without one, the file's
// only top-level body (the world when there is none; several are refused with their names).
// A body with several joints becomes a chain of links named after the joints, each body's
// name kept as its segment name. Arguments, warnings, ownership and errors as hsm_loadVrml.
hsBody *hsm_loadMjcf(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                     int maxWarnings, int *nwarnings, hsError *err);

// the parts of an MJCF scene: the names of path's top-level bodies (what URL#NAME selects),
// each NUL-terminated, one after another in names (size bytes), and in *worldGeoms 1 when the
// worldbody has geoms of its own (URL#world: an environment), else 0. Returns the number of
// bodies, or a negative hsError code with err filled (file:line:column for model errors;
// hsE_INVALID when size is too small).
int hsm_mjcfScene(const char *path, char *names, size_t size, int *worldGeoms, hsError *err);

// 1 if url is a parametric primitive ("hrpsim-primitive:box?size=x,y,z&mass=m&color=r,g,b",
// sphere?radius=, cylinder?radius=&height=, plane?size=x,y); see model_primitive.c
int hsm_isPrimitiveUrl(const char *url);

// build the one-link body a primitive URL describes (no file is read); NULL with err on a
// malformed URL or bad parameters (size, radius, height or mass not positive). Caller frees.
hsBody *hsm_loadPrimitive(const char *url, const hsmLoadOptions *opt, hsError *err);

// the inertia about the centre of a uniform solid of `mass` (kind 0 box of size, 1 sphere of
// radius, 2 cylinder of radius and height along z; anything else zero), row-major 3x3
void hsm_primitiveInertia(int kind, const double size[3], double radius, double height,
                          double mass, double inertia[9]);

// load a model by its file name: .urdf with hsm_loadUrdf, .xml with hsm_loadMjcf when its top
// element is <mujoco> (a .xml URL may end in #NAME, see hsm_loadMjcf) and with hsm_loadUrdf
// otherwise, .mjcf with hsm_loadMjcf, a primitive URL with hsm_loadPrimitive, anything else
// with hsm_loadVrml; same arguments and ownership
hsBody *hsm_loadModel(const char *path, const hsmLoadOptions *opt, hsmWarning *warnings,
                      int maxWarnings, int *nwarnings, hsError *err);

// release a body; NULL is a no-op
void hsm_freeBody(hsBody *body);

// stop every mesh import running in a child process of this process and make all later ones
// fail at once (for a server that is shutting down: no request then waits on an import)
void hsm_cancelMeshImports(void);

//---------------------------------- names -----------------------------------------------------

// index of the link called name, or -1; a link may also be named by its only segment's name
// (for URDF bodies: the URDF link name beside the joint name)
int hsm_linkIndex(const hsBody *body, const char *name);

// The collision filter travels in a body's info strings, so that it crosses the wire in
// BodyInfo.info and any door compiles the same body: "collision filter LINK contype T
// conaffinity A" (unsigned bit masks) and "collision exclude LINK1 LINK2" (links named by
// link or segment name, as hsm_linkIndex finds them). hsm_compile reads them into
// hsLink.contype / conaffinity and body->collisionExcludes; other info strings, and these with
// a link the body lacks, are left as plain information.

// 1 if link l1 of b1 and link l2 of b2 may touch by their collision filters: the bit rule, and
// for two links of one character (sameCharacter) no exclude naming the pair
int hsm_linksMayCollide(const hsBody *b1, int l1, const hsBody *b2, int l2, int sameCharacter);

// index into body->sensors of the sensor called name, or -1
int hsm_sensorIndex(const hsBody *body, const char *name);

// index into body->sensors of the sensor of the given type and id, or -1
int hsm_sensorById(const hsBody *body, hstSensor type, int id);

// number of sensors of one type
int hsm_sensorCount(const hsBody *body, hstSensor type);

// OpenHRP's name for a joint type ("free", ...) / sensor type ("Force", ...)
const char *hsm_jointTypeName(hstJoint type);
const char *hsm_sensorTypeName(hstSensor type);

// the facts of one sensor type, kept in one table (model_names.c) that the readings
// (sensors/), the wire conversion, the scheduler's log and Python (core.h) all read
typedef struct hsmSensorType {
  const char *name;  // OpenHRP's SensorInfo.type ("Force", "RateGyro", ...)
  const char *key;   // hrpsim's short name: log keys, noise specs ("force", "gyro", "accel", ...)
  int size;          // numbers per reading: fixed (> 0), per sensor (-1: range beams), none (0)
  int stateOrder;    // position of the type's block in OpenHRP's SensorState (force, rateGyro,
                     // accel, range: 0..3), -1 when SensorState has none (vision)
  int noisy;         // 1 when noise, bias and limits apply (sensors_noise.c)
} hsmSensorType;

// the row of type, or NULL for a bad type
const hsmSensorType *hsm_sensorType(hstSensor type);

// parse a jointType string; returns 0 and sets *type, or -1 if unknown
int hsm_parseJointType(const char *name, hstJoint *type);

// the one table of extra-joint types: the ExtraJoint jointType word of type ("xyz", "xy",
// "z"), NULL for a bad type; and its parse (0 and *type, or -1 if unknown)
const char *hsm_extraJointTypeName(hstExtraJoint type);
int hsm_parseExtraJointType(const char *name, hstExtraJoint *type);

// the links of a tree in depth-first order from its root, siblings in increasing rank (rank
// NULL: increasing index): order[k] is the k-th link, n entries. parent[i] is link i's parent,
// -1 for the one root. Returns 0, or hsE_INVALID with err when parent does not describe one tree
// (an index out of range, no root or several, links not connected to the root), or hsE_NOMEM.
// For front ends and converters that receive links in another order.
int hsm_treeOrder(const int *parent, const int *rank, int n, int *order, hsError *err);

// 1 if the link's joint has one degree of freedom (rotate or slide) between the link and its
// parent: what JOINT_VALUE and the other joint data drive. A root's joint (to the world) never
// counts. (Inline: the dynamics ask it per link every step.)
static inline int hsm_hasOneDofJoint(const hsLink *link) {
  return link && link->parent >= 0 &&
         (link->jointType == hsJOINT_ROTATE || link->jointType == hsJOINT_SLIDE);
}

// where a 1-dof joint acts in a 6-vector [linear(3), angular(3)] (velocities, wrenches): 3 for
// rotate (about its axis: the angular half), 0 for slide (along it: the linear half), -1 for
// any other joint. The one place the rotate / slide branch is decided for such sums.
static inline int hsm_jointHalf(const hsLink *link) {
  return link->jointType == hsJOINT_ROTATE ? 3 : link->jointType == hsJOINT_SLIDE ? 0 : -1;
}

// the line of the first load warning kept in body->info (a "warning: <body url>:<line>: ..."
// string, see hsm_addWarningInfo) whose message quotes name ('name'), or 0 if none does: lets
// later stages (the dynamics) point at the file line that caused what they report
int hsm_warningLine(const hsBody *body, const char *name);

// total triangles over all shapes
long hsm_triangleCount(const hsBody *body);

//---------------------------------- state and kinematics --------------------------------------

// make a state for body at its initial configuration (jointValue of each link, root at the
// root link's translation/rotation) with link poses computed; free with hsm_freeState
hsBodyState *hsm_makeState(const hsBody *body, hsError *err);

// release a state; NULL is a no-op
void hsm_freeState(hsBodyState *state);

// compute every link's world pose (linkP, linkR) from rootP, rootR and q:
// a child's frame is parent * (translation, R) * joint motion(q about/along axis)
void hsm_forwardKinematics(const hsBody *body, hsBodyState *state);

// the joints between two links, in order from base to target (OpenHRP's JointPath): up from
// base to the nearest common ancestor of the two, then down to target. Only numbered 1-dof
// joints count (jointType rotate or slide with jointId >= 0, as in OpenHRP); the common
// ancestor's own joint is not on the path. links[i] gets the link index of the i-th joint and
// signs[i] +1 if the path crosses it from parent to child, -1 if from child to parent. At most
// maxJoints entries are written; links and signs may be NULL. Returns the number of joints on
// the path (which may exceed maxJoints; 0 when base == target), or hsE_INVALID for a bad index.
int hsm_jointPath(const hsBody *body, int base, int target, int *links, int *signs,
                  int maxJoints, hsError *err);

// the 6 x n Jacobian of target relative to base, n the hsm_jointPath joints, row-major in J
// (entry J[r * n + c]): column c is the motion that a unit rate of the c-th path joint gives
// target's origin (rows 0-2, linear [m/s]) and frame (rows 3-5, angular [rad/s]), world frame,
// with base held still: rotate sign * [w x (p_target - p_joint); w], slide sign * [w; 0], w the
// joint axis in the world (OpenHRP's calcCharacterJacobian). Reads the link poses in state, so
// run hsm_forwardKinematics after changing q or the root. J may be NULL to only count the
// joints; otherwise it holds 6 * maxJoints doubles. Returns n, or hsE_INVALID (bad index, no
// state, n > maxJoints) with err filled.
int hsm_jacobian(const hsBody *body, const hsBodyState *state, int base, int target, double *J,
                 int maxJoints, hsError *err);

// tunables of hsm_inverseKinematics; fill with hsm_defaultIkOptions
typedef struct hsmIkOptions {
  int maxIterations;   // Levenberg-Marquardt iterations, undone trial steps included
  double tolPosition;  // success when target's origin is this close to the goal [m]
  double tolRotation;  // ... and its frame is this close, as a rotation angle [rad]
  double damping;      // initial damping lambda of (J^T J + lambda I) [m^2 or rad^2]
  double minDamping;   // lambda never shrinks below this
  double maxDamping;   // the solve gives up when lambda grows past this
  double maxStep;      // largest change of one joint in one iteration [rad or m]
  int useLimits;       // keep joints within llimit/ulimit where the model gives them
} hsmIkOptions;

// fill opt with the defaults: 200 iterations, tolerances 1e-6 m and 1e-6 rad, damping 1e-3
// (from 1e-12 to 1e8), steps of at most 0.5, limits on
void hsm_defaultIkOptions(hsmIkOptions *opt);

// bytes of the workspace hsm_inverseKinematics needs for any pair of links of body
size_t hsm_ikWorkSize(const hsBody *body);

// move the joints on the path from base to target (hsm_jointPath) so that target's frame
// reaches the goal (p [m], R rotation, world frame), keeping base's world pose as it is in
// state->linkP/linkR on entry: when base is not the root, the root moves (OpenHRP's
// calcCharacterInverseKinematics). base == target moves the whole body rigidly onto the goal.
// R must be a rotation to within 1e-3; its nearest exact rotation is used. Damped least squares
// with joint limits clamped at each step (opt NULL: defaults). work is NULL (one allocation per
// call) or hsm_ikWorkSize(body) bytes aligned for double. Returns 1 with state at the solution
// (q, root and link poses consistent) when within tolPosition and tolRotation; 0 when the goal
// is not reached (unreachable, limits, iteration limit), with state bit for bit unchanged;
// hsE_INVALID or hsE_NOMEM (state unchanged, err filled) on bad arguments or no memory.
int hsm_inverseKinematics(const hsBody *body, hsBodyState *state, int base, int target,
                          const double p[3], const double R[9], const hsmIkOptions *opt,
                          void *work, hsError *err);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_MODEL_MODEL_H_
