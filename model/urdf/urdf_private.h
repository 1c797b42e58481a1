// urdf_private.h - internals shared by the files of the URDF front end (see hsm_loadUrdf).
//
// The front end works in three passes. urdf_xml.c reads the file with libxml2 and turns
// <robot> into the plain records below (numbers parsed and checked, names copied, material
// references resolved), reporting malformed input with its line. urdf_body.c checks the
// kinematic tree (names, parents, root, cycles), applies the ROS world-link convention, numbers
// the joints and fills the builder's links, segments and info strings. urdf_shape.c turns
// visual and collision elements into shapes (primitives, or mesh files read through
// hsm_readMeshFile), with materials and textures; urdf_path.c finds the files named by
// package://, file:// and relative references. urdf_xml.c also reads the <sensor>s of
// <gazebo reference=...> blocks, which urdf_sensor.c turns into body sensors. No libxml2 type
// leaves urdf_xml.c.

#ifndef HRPSIM_MODEL_URDF_PRIVATE_H_
#define HRPSIM_MODEL_URDF_PRIVATE_H_

#include "../builder.h"

//---------------------------------- parsed document -------------------------------------------

// geometry kinds of a visual or collision element
typedef enum hstUrdfGeom { hsURDF_BOX, hsURDF_SPHERE, hsURDF_CYLINDER, hsURDF_MESH } hstUrdfGeom;

// joint kinds (planar and unknown types are rejected while parsing)
typedef enum hstUrdfJoint {
  hsURDF_REVOLUTE,
  hsURDF_CONTINUOUS,
  hsURDF_PRISMATIC,
  hsURDF_FIXED,
  hsURDF_FLOATING
} hstUrdfJoint;

// a named or inline <material>
typedef struct hsmUrdfMaterial {
  char *name;       // "" for an anonymous inline material
  int line;         // where it is defined
  int robotLevel;   // 1 for a <material> child of <robot>, 0 for one inside a <visual>
  int hasColor;
  double rgba[4];
  char *texture;    // <texture filename> as written, or NULL
  int material;     // builder material once added (-1 for none: no colour)
  int texIndex;     // builder texture once added (-1 for none or not found)
  int added;        // 1 once material/texIndex are filled
} hsmUrdfMaterial;

// one <visual> or <collision>
typedef struct hsmUrdfGeom {
  int line;            // the visual/collision element
  int geomLine;        // the box/sphere/cylinder/mesh element
  double T[12];        // <origin> in the link frame
  hstUrdfGeom type;
  double size[3];      // box: size; sphere: radius in [0]; cylinder: radius, length
  char *filename;      // mesh: filename as written
  double scale[3];     // mesh: scale (default 1 1 1)
  int material;        // index into hsmUrdfDoc.materials, -1 if none
} hsmUrdfGeom;

// one <link>
typedef struct hsmUrdfLink {
  char *name;
  int line;
  int hasInertial;
  int inertialLine;
  double mass;         // [kg]
  double inertia[9];   // about the centre of mass, inertial frame [kg m^2]
  double T[12];        // inertial frame (its origin is the centre of mass) in the link frame
  hsuVec visuals;      // hsmUrdfGeom
  hsuVec collisions;   // hsmUrdfGeom
  // the tree (filled by urdf_body.c)
  int parentJoint;     // the joint whose child this link is, -1 for a root
  int firstChild;      // first child joint in file order, -1 if none
} hsmUrdfLink;

// one <joint>
typedef struct hsmUrdfJoint {
  char *name;
  int line;
  hstUrdfJoint type;
  double T[12];        // <origin>: child frame in the parent link frame
  double axis[3];      // unit, child frame (1 0 0 when not given)
  char *parentName, *childName;
  int parentLine, childLine;  // the parent/child elements
  int hasLimit, limitLine;
  int hasLower, hasUpper, hasVelocity, hasEffort;
  double lower, upper, velocity, effort;
  int hasDynamics;
  double damping, friction;
  int hasMimic, mimicLine;
  char *mimicJoint;
  double multiplier, offset;
  // the tree (filled by urdf_body.c)
  int parent, child;   // link indices
  int nextSibling;     // next child joint of the same parent, in file order, -1 at the end
} hsmUrdfJoint;

// the kinds of Gazebo <sensor> read from <gazebo reference=...> blocks (urdf_sensor.c)
typedef enum hstUrdfSensor {
  hsURDF_CAMERA,  // camera: a VisionSensor COLOR (MONO for an L8/L16 image)
  hsURDF_DEPTH,   // depth, depth_camera, rgbd_camera: a VisionSensor COLOR_DEPTH (MONO_DEPTH)
  hsURDF_RAY,     // ray, gpu_ray, lidar, gpu_lidar: a RangeSensor
  hsURDF_IMU,     // imu: a RateGyroSensor plus an AccelerationSensor
  hsURDF_FT       // force_torque: a ForceSensor
} hstUrdfSensor;

// one Gazebo <sensor> inside <gazebo reference="link or joint">, its values as written (or
// Gazebo's defaults) and checked for being numbers; urdf_sensor.c turns it into body sensors
typedef struct hsmUrdfSensor {
  char *name;          // the name attribute (or "<reference>_<type>" when missing)
  char *reference;     // the <gazebo> reference: a link or joint name
  int line;            // the <sensor> element
  hstUrdfSensor type;
  double T[12];        // <pose> (and a camera's own <pose>) in the reference's frame
  double updateRate;   // <update_rate> [Hz], 0 when absent (Gazebo: every step)
  int usable;          // 0 when a value left the sensor unusable (warned; it is skipped)
  // camera and depth
  double fov;          // <horizontal_fov> [rad] (1.047)
  int width, height;   // <image> [pixel] (320 x 240)
  int mono;            // <format> L8 or L16
  double nearClip, farClip;  // <clip> [m] (0.1, 100)
  // ray
  int samples;         // horizontal samples
  double minAngle, maxAngle;  // horizontal [rad]
  double pitch;        // elevation of the row used [rad] (0 without a vertical block)
  double rangeMax;     // <range><max> [m]
  // force_torque
  int ftFrame;         // 0 child (default), 1 parent, 2 sensor
  int parentToChild;   // <measure_direction> parent_to_child
  // Gaussian noise (mean, stddev): range [0]; imu gyro [0..2], accelerometer [3..5];
  // force_torque force [0..2], torque [3..5]. hasNoise: bit 0 for [0..2], bit 1 for [3..5]
  int hasNoise;
  double noiseMean[6], noiseStd[6];
} hsmUrdfSensor;

// the <robot>
typedef struct hsmUrdfDoc {
  char *name;
  int line;
  hsuVec links;      // hsmUrdfLink, file order
  hsuVec joints;     // hsmUrdfJoint, file order
  hsuVec materials;  // hsmUrdfMaterial: robot-level ones, then the first inline definition of
                     // each other name in file order, then anonymous inline ones as met
  hsuVec sensors;    // hsmUrdfSensor, file order
} hsmUrdfDoc;

//---------------------------------- load context ----------------------------------------------

// one load in progress
typedef struct hsmUrdfLoad {
  const char *file;  // absolute path of the URDF file (for locations and relative paths)
  hsmLoadOptions opt;
  hsError *err;
  hsmWarning *warnings;
  int maxWarnings;
  int nwarnings;
  hsmUrdfDoc doc;
  hsmBuilder *b;
  hsuVec meshCache;  // meshes already turned into shapes (urdf_shape.c)
  struct hsmMeshImporter *importer;  // imports this load's mesh files (made at the first)
} hsmUrdfLoad;

// an error at a line of the URDF file; returns code
int hsm_urdfError(hsmUrdfLoad *u, int code, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

// an out-of-memory error; returns hsE_NOMEM
int hsm_urdfNomem(hsmUrdfLoad *u);

// a warning at a line of the URDF file: logged, kept as a body info string
// "warning: <file>:<line>: <message>" (hsm_addWarningInfo, as VRML warnings are) and, if the
// caller asked, collected
void hsm_urdfWarn(hsmUrdfLoad *u, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

//---------------------------------- passes ----------------------------------------------------

// read u->file into u->doc (urdf_xml.c); 0 or a negative code with u->err filled
int hsm_urdfRead(hsmUrdfLoad *u);

// release everything the document owns and zero it
void hsm_urdfFreeDoc(hsmUrdfDoc *doc);

// add the shapes of one visual (visual = 1) or collision element to link `link` of the builder
// (its shapeRefs or collisionRefs) and, for visuals, to segment `segment`'s list
int hsm_urdfAddGeom(hsmUrdfLoad *u, const hsmUrdfGeom *g, int link, int segment, int visual);

// add the body sensors of u->doc.sensors (read by urdf_xml.c) to the builder (urdf_sensor.c):
// linkOf gives the body link of each URDF link, droppedLink the URDF world link that was
// dropped (-1 if none); a reference to no link or joint is a warning. Ids per type in file
// order; noise becomes info strings. 0, or hsE_NOMEM.
int hsm_urdfAddSensors(hsmUrdfLoad *u, const int *linkOf, int droppedLink);

// release the shape cache
void hsm_urdfFreeShapeCache(hsmUrdfLoad *u);

// find the file a mesh or texture reference names (package://pkg/path, package:///path
// searched under each package root, file://path, a path absolute or relative to the URDF
// file). Returns 0 with *found a new absolute path (hsu_free), 1 if no candidate exists (with
// the candidates tried, "; "-separated, in tried[size]), hsE_NOMEM, hsE_UNSUPPORTED for
// another URL scheme, or hsE_MODEL for a malformed package URL
int hsm_urdfResolvePath(const char *ref, const char *urdfFile, char **found, char *tried,
                        size_t size);

//---------------------------------- small math ------------------------------------------------

// the rotation of URDF rpy: fixed-axis roll about x, then pitch about y, then yaw about z,
// R = Rz(yaw) Ry(pitch) Rx(roll)
void hsm_urdfRpyToMat(double R[9], const double rpy[3]);

#endif  // HRPSIM_MODEL_URDF_PRIVATE_H_
