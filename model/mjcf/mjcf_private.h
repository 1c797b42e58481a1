// mjcf_private.h - internals shared by the files of the MJCF front end (see hsm_loadMjcf).
//
// The front end works in passes over one load context. mjcf_xml.c reads the file with libxml2
// (as the URDF reader does: private parser context, no network, no entities) into a plain
// element tree, splicing each <include>'s children in its place, so that nothing else sees a
// libxml2 type; it also holds the attribute readers (numbers checked, errors at
// file:line:column, the column found in the element's text). mjcf_body.c reads <compiler>,
// the <default> classes and the assets, walks <worldbody>, picks what the URL selects (one
// top-level body, or the world's own geoms) and fills the builder's links and segments, a body
// with several joints becoming a chain of links. mjcf_geom.c turns geoms into mass properties
// and shapes (primitives, capsule and ellipsoid meshes, mesh files). mjcf_sensor.c turns sites'
// sensors, cameras and actuators into OpenHRP sensors and joint limits, and warns about what
// has no counterpart.

#ifndef HRPSIM_MODEL_MJCF_MJCF_PRIVATE_H_
#define HRPSIM_MODEL_MJCF_MJCF_PRIVATE_H_

#include "../builder.h"

//---------------------------------- the element tree ------------------------------------------

typedef struct hsmXmlAttr {
  char *name;
  char *value;
} hsmXmlAttr;

// one XML element with its attributes and child elements (text and comments dropped)
typedef struct hsmXmlElem {
  char *name;
  int file;  // index into the load's files
  int line;  // libxml2's line of the start tag
  hsmXmlAttr *attrs;
  int nattr;
  struct hsmXmlElem **kids;
  int nkid;
} hsmXmlElem;

// one file read: the model and each included file
typedef struct hsmMjcfFile {
  char *path;  // absolute
  char *text;  // its bytes, for attribute columns
  size_t len;
} hsmMjcfFile;

//---------------------------------- load context ----------------------------------------------

// a <default> class: its element and its parent class (-1 for "main")
typedef struct hsmMjcfClass {
  const char *name;
  int parent;
  const hsmXmlElem *elem;
} hsmMjcfClass;

// a <mesh> asset; read (shapes and mass properties) on first use
typedef struct hsmMjcfMesh {
  const char *name;
  const hsmXmlElem *elem;
  char *path;            // resolved absolute file
  double scale[3];
  int loaded;
  int first, count;      // builder shapes of its parts
  double volume;         // [m^3], over all parts
  double com[3];         // centre of volume, mesh frame [m]
  double inertia[9];     // per unit density about com, mesh frame [m^5]
} hsmMjcfMesh;

// a <material> asset
typedef struct hsmMjcfMaterial {
  const char *name;
  double rgba[4];
  int material;  // builder material once added, else -1
} hsmMjcfMaterial;

// a <site>: where sensors attach
typedef struct hsmMjcfSite {
  const char *name;
  int link;        // builder link
  double T[12];    // site frame in the link frame
} hsmMjcfSite;

// a joint that became a link, for actuators
typedef struct hsmMjcfJointRef {
  const char *name;
  int link;
} hsmMjcfJointRef;

// a body read into this load, for the collision filter
typedef struct hsmMjcfBody {
  char *name;
  int link;    // builder link carrying its geoms
  int weld;    // the body it is welded to (itself when it has joints), -1 for the world
  int parent;  // its parent body, -1 for the world (indices into the load's bodies)
} hsmMjcfBody;

// the collision filter of one builder link, from its colliding geoms
typedef struct hsmMjcfLinkFilter {
  int ngeom;                      // colliding geoms (contype or conaffinity non-zero)
  unsigned contype, conaffinity;  // OR of theirs
  unsigned first[2];              // the first one's
  const hsmXmlElem *mixed;        // the first geom whose bits differ from the first's, or NULL
} hsmMjcfLinkFilter;

// one load in progress
typedef struct hsmMjcfLoad {
  const char *file;    // absolute path of the model file
  char *dir;           // its directory
  const char *select;  // the URL's fragment (a top-level body name or "world"), or NULL
  hsmLoadOptions opt;
  hsError *err;
  hsmWarning *warnings;
  int maxWarnings;
  int nwarnings;
  hsuVec files;        // hsmMjcfFile; [0] is the model file
  hsmXmlElem *root;    // <mujoco>
  hsmBuilder *b;
  // <compiler>
  int radian;          // angles in radians (default degrees)
  char eulerseq[4];    // "xyz" by default
  char *meshdir;       // absolute directory of mesh files
  int fromGeom;        // inertiafromgeom: 0 false, 1 true, 2 auto
  int autolimits;      // 1 (default): a range makes a joint limited
  double boundmass;    // lower bound of each body's mass (0: none)
  double boundinertia; // lower bound of each body's principal moments of inertia (0: none)
  int balanceinertia;  // 1: principal moments breaking A + B >= C become their mean
  double settotalmass; // > 0: masses and inertias scaled to this total
  hsuVec classes;      // hsmMjcfClass; [0] is "main"
  hsuVec meshes;       // hsmMjcfMesh
  struct hsmMeshImporter *importer;  // imports this load's mesh files (made at the first)
  hsuVec materials;    // hsmMjcfMaterial
  hsuVec sites;        // hsmMjcfSite
  hsuVec joints;       // hsmMjcfJointRef
  hsuVec bodies;       // hsmMjcfBody, in walk order
  int body;            // the body being walked (index into bodies), -1 outside any
  hsuVec filters;      // hsmMjcfLinkFilter per builder link (as far as geoms reached)
  int nbody;           // bodies numbered as MuJoCo does (world 0), for unnamed ones
  unsigned warned;     // warnings given once per load (bits of hstMjcfOnce)
} hsmMjcfLoad;

// warnings said once per file
typedef enum hstMjcfOnce {
  hsMJCF_ONCE_DAMPING = 1,
  hsMJCF_ONCE_FRICTIONLOSS = 2,
  hsMJCF_ONCE_STIFFNESS = 4,
  hsMJCF_ONCE_MIXEDBITS = 8,
  hsMJCF_ONCE_GROUPS = 16
} hstMjcfOnce;

// an error at element e (its file and line; column of attribute attr when not NULL and found
// in the text); returns code
int hsm_mjcfError(hsmMjcfLoad *u, int code, const hsmXmlElem *e, const char *attr,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

// an out-of-memory error; returns hsE_NOMEM
int hsm_mjcfNomem(hsmMjcfLoad *u);

// a warning at element e: logged, kept as a body info string and, if asked, collected
void hsm_mjcfWarn(hsmMjcfLoad *u, const hsmXmlElem *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

//---------------------------------- reading (mjcf_xml.c) --------------------------------------

// read u->file and its includes into u->root; 0 or a negative code with u->err filled
int hsm_mjcfRead(hsmMjcfLoad *u);

// release the tree and the files
void hsm_mjcfFreeTree(hsmMjcfLoad *u);

// an element's own attribute, or NULL
const char *hsm_mjcfOwn(const hsmXmlElem *e, const char *name);

// the value of attribute name for element e of kind `kind` in class cls: e's own, else the
// class's default of that kind, else its parent classes' (cls -1: e's own only). *from gets
// the element that holds it (for error locations; may be NULL).
const char *hsm_mjcfAttr(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name,
                         const hsmXmlElem **from);

// up to max finite numbers of attribute name (hsm_mjcfAttr) into out; *count gets how many
// (0 when absent). A non-number, a non-finite one or more than max is an error.
int hsm_mjcfNumbers(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name, int max,
                    double *out, int *count);

// exactly n numbers, or none (out untouched, *given 0; given may be NULL)
int hsm_mjcfExact(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name, int n,
                  double *out, int *given);

// one of the keywords (NULL-terminated list); *out its index, unchanged when absent
int hsm_mjcfKeyword(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const char *name,
                    const char *const *words, int *out);

// the class of element e: its class attribute, else inherited (the enclosing childclass)
int hsm_mjcfClassOf(hsmMjcfLoad *u, const hsmXmlElem *e, int inherited, int *cls);

// the frame of element e (pos, and one of quat, axisangle, euler, xyaxes, zaxis) as a 3x4
// transform in its parent's frame
int hsm_mjcfFrame(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, double T[12]);

// an angle as written (degrees unless <compiler angle="radian">) in radians
double hsm_mjcfAngle(const hsmMjcfLoad *u, double a);

// the rotation that turns z onto v (MuJoCo's minimal rotation; 180 deg about x for -z)
void hsm_mjcfZToVec(double R[9], const double v[3]);

//---------------------------------- geoms (mjcf_geom.c) ---------------------------------------

// a geom's mass properties, in the frame of its parent body
typedef struct hsmMjcfMass {
  double mass;
  double com[3];
  double inertia[9];  // about com, body frame
} hsmMjcfMass;

// read geom e (class cls, frame in the body T0) for the body's mass (*mass zero for a geom
// that adds none) and, when link >= 0, add its shapes to builder link `link` placed at
// linkT * geom frame (and to segment `segment`'s shape list when segment >= 0)
int hsm_mjcfGeom(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, const double T0[12], int link,
                 const double linkT[12], int segment, hsmMjcfMass *mass);

// release the mesh assets' paths
void hsm_mjcfFreeMeshes(hsmMjcfLoad *u);

//---------------------------------- sensors (mjcf_sensor.c) -----------------------------------

// a camera element e in a body as a VisionSensor on link, frame T in the link frame
int hsm_mjcfCamera(hsmMjcfLoad *u, const hsmXmlElem *e, int cls, int link, const double T[12]);

// the <sensor> and <actuator> sections, once the links exist; unsupported sections warned
int hsm_mjcfSensorsAndActuators(hsmMjcfLoad *u);

#endif  // HRPSIM_MODEL_MJCF_MJCF_PRIVATE_H_
