// dynamics_private.h - the inside of hsdWorld, shared by the dynamics_*.c files only.
//
// A world keeps, per character, one record per link (mode, commands, the ODE body that carries
// it and where the link frame sits in that body, the joint to its parent, its geoms) and the
// character's hsBodyState. ODE objects exist only between hsd_init and hsd_freeWorld (or the
// next hsd_init, which rebuilds them). Links welded to their parent by a fixed joint share the
// parent's ODE body (one rigid group); a fixed root and everything welded to it form the static
// group, which has no ODE body (its geoms sit in the world). Every ODE body is placed at its
// group's centre of mass and oriented like the group's top link; offP/offR locate each link
// frame in that body frame. ODE types stay in this header and the .c files.

#ifndef HRPSIM_DYNAMICS_DYNAMICS_PRIVATE_H_
#define HRPSIM_DYNAMICS_DYNAMICS_PRIVATE_H_

#include <ode/ode.h>

#include "dynamics.h"

// command flags of a link, set by the setters and cleared after each step
enum {
  hsdCMD_Q = 1,     // joint value commanded this step
  hsdCMD_DQ = 2,    // joint velocity commanded this step
  hsdCMD_DDQ = 4,   // joint acceleration commanded this step
  hsdCMD_POSE = 8,  // root pose commanded this step (position given root)
  hsdCMD_VEL = 16   // root velocity commanded this step (position given root)
};

// how a character is simulated this step (see dynamics_servo.c)
typedef enum hstdRep {
  hsdREP_ARTICULATED = 0,  // one ODE body per rigid group, hinges/sliders, motors for servos
  hsdREP_COMPOSITE,        // free root, every 1-dof joint servoed: one ODE body for the whole
                           // character, joints follow their commands exactly
  hsdREP_KINEMATIC         // fixed or position-given root, every 1-dof joint servoed: no
                           // dynamic body at all
} hstdRep;

// kinds of ODE joint between a link and its parent
typedef enum hstdJoint {
  hsdJ_NONE = 0,  // free root, welded link, or static link
  hsdJ_HINGE,
  hsdJ_SLIDER
} hstdJoint;

// warning kinds, each logged once per world
enum {
  hsdWARN_CONTACTS = 1,  // contact buffer overflow
  hsdWARN_NONFINITE = 2  // runaway or non-finite state around a step
};

// one collision geom of a link
typedef struct hsdGeom {
  dGeomID g;            // the ODE geom (box, sphere, cylinder or trimesh)
  dGeomID twin;         // cylinders only: the same shape as a trimesh, for cylinder-cylinder
  dTriMeshDataID data;  // trimesh data of g (or of twin for cylinders), NULL if none
  dTriMeshDataID twinData;
  double *verts;        // trimesh vertices (x, y, z), link frame; owned
  dTriIndex *tris;      // trimesh indices; owned
  double *twinVerts;
  dTriIndex *twinTris;
  int cls;              // ODE geom class of g
  int link;             // owning link
  double T[12];         // placement of g in the link frame (rigid; identity for trimeshes,
                        // whose vertices are in the link frame)
  double aabb[6];       // world AABB at the current step (minx, maxx, miny, maxy, minz, maxz)
} hsdGeom;

// one link of a character
typedef struct hsdLink {
  // set by the user
  hstJointMode mode;  // drive mode of a 1-dof joint
  int given;          // position given
  unsigned cmd;       // hsdCMD_* flags of this step
  double qCmd, dqCmd, ddqCmd;  // commanded joint value / velocity / acceleration
  double uCmd;                 // torque or force set through hsd_setJointTorque
  double pCmd[3], RCmd[9];     // commanded pose (position given root)
  double vCmd[3], wCmd[3];     // commanded velocity (position given root)
  int hasExt;                  // an external force is pending
  double fExt[3], tExt[3];     // world frame; torque about the link origin

  // built by hsd_init
  int top;          // top link of this link's rigid group (itself unless welded)
  int dynamic;      // 1 if the link moves (its group has an ODE body)
  dBodyID body;     // ODE body carrying this link, NULL for the static group
  double offP[3];   // link origin in the body frame [m]
  double offR[9];   // link orientation in the body frame
  hstdJoint jkind;  // ODE joint to the parent
  dJointID joint;   // NULL if jkind is hsdJ_NONE
  dJointFeedback fb;   // feedback of joint (force on this link's body is f1, t1)
  int geomAdr, ngeom;  // this link's geoms in the character's geom array
  double aabb[6];      // union of the geoms' AABBs this step
  int hasAabb;         // aabb valid (the link has geoms)

  // this step's drive and the configuration ODE is in
  double dqStep;        // servoed joints: joint velocity over this step
  double vMotor;        // articulated servo: the motor velocity of this step
  double defect;        // articulated servo: how far ODE's integration of the bodies moved the
                        // joint beyond vMotor dt in the last step (corrected in the next)
  double qAct, dqAct;   // joint value and velocity at the end of the last step
  double pAct[3], RAct[9];  // link pose at the end of the last step
  dBodyID att;          // the ODE body contacts on this link attach to (NULL: none)
  double vInt[3], wInt[3];  // velocity of the link origin / angular velocity not carried by
                            // att this step (joint motion of servoed characters), world frame

  // step history
  double vPrev[3], wPrev[3];  // link origin velocity and angular velocity one step ago
  double vcPrev[3];           // link centre-of-mass velocity one step ago
  double ac[3];               // link centre-of-mass acceleration over the last step
} hsdLink;

// one character: a borrowed body, its state and link records
typedef struct hsdCharacter {
  char *name;
  const hsBody *body;
  hsBodyState *state;
  hsdLink *links;
  hsdLinkMotion *motion;
  double (*sensorR)[9];    // per sensor: sensor frame in its link frame
  double *readings;        // 6 per sensor
  int *nreading;           // numbers per sensor
  double (*sensorVPrev)[3];  // accelerometers: sensor point velocity one step ago
  hsdGeom *geoms;
  int ngeom;
  int dirty;               // the state was written: rebuild ODE poses before the next step
  int remode;              // modes changed: re-place the ODE bodies before the next step
  int needWrench;          // a force sensor has no joint of its own: run inverse dynamics
  double (*linkWrench)[6];  // per link: contact + external wrench of the last step, world
                            // frame, moment about the link's centre of mass
  double (*subW)[6];        // per link: wrench its subtree exerts on its parent (inverse
                            // dynamics), world frame, moment about the link origin
  hstdRep rep;              // representation of the last step
  int still;                // static root and no 1-dof joint: nothing ever moves
  dBodyID cbody;            // the composite body (free root only), NULL otherwise
  double P[3], L[3];        // total momentum and angular momentum about the centre of mass
  double M, com[3], Ic[9];  // composite mass, centre, inertia about it (world) at step start
  double PInt[3], LInt[3];  // momentum of the joint motion relative to the root this step
  double bo[3];             // root origin in the composite body frame this step
  double vRoot[3], wRoot[3];  // kinematic root velocity this step
  double *scratch;          // 6 per link
} hsdCharacter;

// one expanded link pair of a registered pair
typedef struct hsdLinkPair {
  int pair;       // registered pair index
  int ch[2], link[2];
} hsdLinkPair;

// one registered pair
typedef struct hsdPair {
  int ch[2], link[2];  // link -1: every link
  hsdSurface surface;
  double tolerance;    // intersection pairs
  int first, count;    // expanded link pairs in the world's array
} hsdPair;

struct hsdWorld {
  hsdOptions opt;
  double dt;
  double g[3];
  double time;
  long steps;
  int warnings;
  unsigned warned;  // hsdWARN_* already logged
  int initialised;
  unsigned long seed;  // ODE's random seed for this world (QuickStep reorders constraints)

  hsdCharacter *chars;
  int nchar, capChar;

  hsdPair *pairs;  // contact pairs
  int npair, capPair;
  hsdPair *ipairs;  // intersection pairs
  int nipair, capIpair;
  hsuVec linkPairs;   // hsdLinkPair of contact pairs
  hsuVec ilinkPairs;  // hsdLinkPair of intersection pairs

  // ODE
  dWorldID world;
  dJointGroupID contactGroup;
  int nbody;          // ODE bodies (numbered through dBodySetData: index + 1)
  int *islandParent;  // union-find over bodies, for hsSTEPPER_AUTO
  int *islandRows;
  long quickSteps;    // steps that used QuickStep

  // contact buffers, sized at make time (opt.maxContacts)
  hsdContact *contacts;
  int ncontact;
  dJointFeedback *contactFb;
  int *contactJoint;  // +1: the contact joint's body 1 is link[0]'s side, -1: link[1]'s, 0: none
  int *contactIsland;     // per contact, 3 ints: the island indices of its joint's two bodies
                          // (-1: none or not dynamic) and its constraint rows
  dContactGeom *scratch;  // nscratch points from one dCollide
  int nscratch;           // max(opt.maxContactsPerPair, 64)
};

//---------------------------------- helpers across files ---------------------------------------

// count a warning of kind (hsdWARN_*) and log it the first time
void hsd_warn(hsdWorld *w, unsigned kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

// check a character / link index; 0 or hsE_INVALID with err
int hsd_checkLink(const hsdWorld *w, int ch, int link, hsError *err);

// inputs beyond this magnitude are refused (they can only overflow ODE, whose checks abort)
#define hsdMAX_VALUE 1e12

// moving bodies faster than this [m/s, rad/s] or farther out than hsdMAX_POSITION [m] before a
// step count as numerical trouble and are stopped (ODE aborts on the overflow that follows)
#define hsdMAX_SPEED 1e8
#define hsdMAX_POSITION 1e9

// 1 if all n values are finite and within +-hsdMAX_VALUE
int hsd_sane(const double *v, int n);

// destroy every ODE object of the world (bodies, joints, geoms, trimesh data) and free the
// geom arrays; the world returns to the not-initialised state
void hsd_destroyOde(hsdWorld *w);

// expand a registered pair into link pairs (appended to out); 0 or an error code
int hsd_expandPair(hsdWorld *w, hsdPair *p, hsuVec *out, int index, hsError *err);

// collide the registered contact pairs at the current poses and create contact joints
void hsd_collide(hsdWorld *w);

// the island index of an ODE body (-1 for none or a kinematic body, which link no islands)
int hsd_islandIndex(dBodyID b);

// copy contact joint feedback into the contact list after a step
void hsd_readContactForces(hsdWorld *w);

// set ODE body poses and velocities of character ch from its state (link poses through FK,
// velocities from motion[root] and dq) in representation rep, and restart the joint readings
void hsd_syncFromState(hsdWorld *w, int ch, hstdRep rep);

// the state of character ch back to where ODE has it (undoing written-through commands)
void hsd_restoreActual(hsdCharacter *c);

// the representation character ch needs for its current modes
hstdRep hsd_chooseRep(const hsdWorld *w, int ch);

// read every link's pose, velocity, joint value and torque back after a step
void hsd_readBack(hsdWorld *w, int ch);

// the joint velocity a servoed joint of link k gets this step (from its commands)
double hsd_servoVelocity(const hsdWorld *w, const hsdCharacter *c, int k);

// before collision: joint velocities, internal velocities and the composite body's state of a
// character in the composite or kinematic representation
void hsd_servoPrepare(hsdWorld *w, int ch);

// after the ODE step: root pose, joints, link poses and velocities of such a character
void hsd_servoFinish(hsdWorld *w, int ch);

// total momentum P and angular momentum L about the centre of mass of character ch from its
// actual link poses (pAct, RAct) and link velocities (motion)
void hsd_momentum(hsdCharacter *c);

// inverse dynamics of character ch from the last step's motion: subW for every link and, for
// servoed joints of composite and kinematic characters, u
void hsd_inverseDynamics(hsdWorld *w, int ch);

// compute the sensor readings of character ch from the state of the last step
void hsd_updateSensors(hsdWorld *w, int ch);

// world pose of a link carried by an ODE body (l->body non-NULL)
void hsd_linkPoseFromBody(const hsdLink *l, double p[3], double R[9]);

// set a joint's motor for the link's mode (high gain / given: bounded by highGainFMax; torque:
// off)
void hsd_configureMotor(const hsdWorld *w, hsdLink *l);

// place geom g of link l: on its body with offset (offR, offP) * T, or in the world at
// (linkR, linkP) * T for a static link
void hsd_placeGeom(dGeomID g, const hsdLink *l, const double T[12], const double linkP[3],
                   const double linkR[9]);

// ODE rotation (dMatrix3, 4-wide rows) <-> our 3x3 row-major
void hsd_fromOdeR(double R[9], const dReal *m);
void hsd_toOdeR(dMatrix3 m, const double R[9]);

#endif  // HRPSIM_DYNAMICS_DYNAMICS_PRIVATE_H_
