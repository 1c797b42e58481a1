// dynamics_private.h - the inside of hsdWorld, shared by the dynamics_*.c files only.
//
// A character keeps three records apart (MuJoCo's model / data / controls split):
// - its hsBodyState and hsdLinkMotion: the actual state, written only by the step
//   (dynamics_finish.c) and by explicit teleports (dynamics_input.c);
// - its hsdInput: what clients command (dynamics.h), written only by the setters;
// - one hsdLinkOde per link: the ODE handles (the body that carries the link, where the link
//   frame sits in it, the joint to the parent, the geoms) and the step's scratch (servo
//   targets and velocities, contact velocities, the last step's velocities for differences).
// ODE objects exist only between hsd_init and hsd_freeWorld (or the next hsd_init, which
// rebuilds them). Links welded to their parent by a fixed joint share the parent's ODE body
// (one rigid group); a fixed root and everything welded to it form the static group, which
// has no ODE body (its geoms sit in the world). Every ODE body is placed at its group's centre
// of mass and oriented like the group's top link; offP/offR locate each link frame in that
// body frame. ODE types stay in this header and the .c files.
//
// A step, file by file: dynamics_prepare.c (teleports into ODE, representation, drives,
// external forces), dynamics_contact.c (contacts of the registered pairs into contact joints),
// dynamics_step.c (the ODE step), dynamics_finish.c (ODE back into the state, torques,
// sensors); dynamics_servo.c holds the composite and kinematic representations' before and
// after halves and inverse dynamics.

#ifndef HRPSIM_DYNAMICS_DYNAMICS_PRIVATE_H_
#define HRPSIM_DYNAMICS_DYNAMICS_PRIVATE_H_

#include <ode/ode.h>

#include "dynamics.h"

// how a character is simulated this step (see dynamics_servo.c)
typedef enum hstdRep {
  hsdREP_ARTICULATED = 0,  // one ODE body per rigid group, hinges/sliders, motors for servos
  hsdREP_COMPOSITE,        // free root, every 1-dof joint servoed: one ODE body for the whole
                           // character, joints follow their commands exactly
  hsdREP_KINEMATIC         // fixed or position-given root, every 1-dof joint servoed: no
                           // dynamic body at all
} hstdRep;

// kinds of ODE joint between a link and its parent
typedef enum hstdOdeJoint {
  hsdODE_NONE = 0,  // free root, welded link, or static link
  hsdODE_HINGE,
  hsdODE_SLIDER
} hstdOdeJoint;

// warning kinds, each logged once per world
enum {
  hsdWARN_CONTACTS = 1,  // contact buffer overflow
  hsdWARN_NONFINITE = 2,  // runaway or non-finite state around a step
  hsdWARN_BROADPHASE = 4,  // broad phase buffer overflow (the step walked every pair)
  hsdWARN_SINGULAR = 8     // joint-space engine: a mass matrix pivot raised (a massless
                           // subtree without rotor inertia)
};

// the collision geometry of one character, and the world's collision scene (dynamics_geom.c,
// the seam to collision/)
typedef struct hsdShapes hsdShapes;
typedef struct hsdGeometry hsdGeometry;

// the joint-space engine's contact solver: its buffers and the last step's impulses
typedef struct hsdJsContacts hsdJsContacts;

// most velocity samples a body's rest test averages (ODE's own default is 1; sleeping uses 10)
#define hsdREST_SAMPLES 16

// the auto-disable record of a character's root body (dynamics_sleep.c): ODE's rule, kept here
// so that a saved state holds it (ODE's own counters are not in its public API). The fields are
// those ODE keeps per body and change where ODE's would.
typedef struct hsdRest {
  int on;              // auto-disable on (ODE's flag, which stays off in ODE itself)
  int idleSteps;       // steps at rest before sleeping ...
  double idleTime;     // ... and time [s]
  int samples;         // velocities averaged (0: never sleeps)
  double linear2;      // thresholds of the mean velocities, squared [(m/s)^2, (rad/s)^2]
  double angular2;
  int stepsLeft;       // counts down while idle
  double timeLeft;     // [s], counts down while idle
  int counter;         // next sample slot
  int ready;           // 1 once every slot holds a sample
  double lvel[hsdREST_SAMPLES][3];  // samples of the linear velocity [m/s] ...
  double avel[hsdREST_SAMPLES][3];  // ... and of the angular one [rad/s], world frame
} hsdRest;

// the ODE side of one link of a character, and its scratch between the phases of a step
typedef struct hsdLinkOde {
  // built by hsd_init
  int top;          // top link of this link's rigid group (itself unless welded)
  int dynamic;      // 1 if the link moves (its group has an ODE body)
  dBodyID body;     // ODE body carrying this link, NULL for the static group
  double offP[3];   // link origin in the body frame [m]
  double offR[9];   // link orientation in the body frame
  hstdOdeJoint jkind;  // ODE joint to the parent
  dJointID joint;   // NULL if jkind is hsdODE_NONE
  dJointFeedback fb;   // feedback of joint (force on this link's body is f1, t1)

  // servo
  double stopLo, stopHi;  // joint stops relative to the joint's value at hsd_init (ODE's zero);
                          // +-inf: none
  double vLo, vHi;        // velocity limits (lvlimit, uvlimit) [rad/s or m/s]; +-inf: none
  double effort;          // torque or force limit (climit gearRatio torqueConst); inf: none
  double qHold;   // the joint value a servo holds when not commanded [rad or m]
  double dqStep;  // servoed joints: joint velocity over this step
  double vMotor;  // articulated servo: the motor velocity of this step
  double defect;  // articulated servo: how far ODE's integration of the bodies moved the joint
                  // beyond vMotor dt in the last step (corrected in the next)
  double motorF;  // joint-space engine: this step's velocity-limit motor's force bound |u|
                  // (0: no motor; its target velocity is vMotor)
  double jsLimit;  // joint-space engine: the last step's impulses of the joint's limit row
  double jsMotor;  // (positive along +q) and of its motor row [N m s or N s]

  // contacts
  dBodyID att;              // the ODE body contacts on this link attach to (NULL: none)
  double vInt[3], wInt[3];  // velocity of the link origin / angular velocity not carried by
                            // att this step (joint motion of servoed characters), world frame

  // step history (the link's velocities at the start of a step are in its hsdLinkMotion)
  double vcPrev[3];           // link centre-of-mass velocity one step ago
  double ac[3];               // link centre-of-mass acceleration over the last step
} hsdLinkOde;

// one character: a borrowed body, its state, its input and its ODE records
typedef struct hsdCharacter {
  char *name;
  const hsBody *body;

  // the actual state (written by the step and by teleports)
  hsBodyState *state;
  hsdLinkMotion *motion;

  // what clients command, and what the setters noted for the next step
  hsdInput in;
  int nExt;          // links with an external force pending
  int teleported;    // the state was written: re-place the ODE bodies before the next step
  int remode;        // drive modes changed: re-place the ODE bodies before the next step
  int posesTouched;  // link poses in the state were rewritten between steps (FK, a non-root
                     // pose): the next step takes them from the simulation again

  // ODE and the step's scratch
  hsdLinkOde *links;
  double pHold[3], RHold[9];  // the pose a position-given root holds when not commanded
  hsdShapes *shapes;        // collision geometry (built by hsd_init)
  int nloop;                // extra joints touching this character (forces articulated)
  int resynced;             // its ODE bodies were re-placed from the state this step
  int needWrench;           // a force sensor has no joint of its own: run inverse dynamics
                            // (hsd_jointWrench reads subW)
  double (*linkWrench)[6];  // per link: contact + external wrench of the last step, world
                            // frame, moment about the link's centre of mass
  double (*subW)[6];        // per link: wrench its subtree exerts on its parent (inverse
                            // dynamics), world frame, moment about the link origin
  hstdRep rep;              // representation of the last step
  int still;                // static root and no 1-dof joint: nothing ever moves
  double restSum[6];        // sleeping (dynamics_sleep.c): the sum of the root's linear and
                            // angular velocities over the current window ...
  double restMean[2];       // ... the speeds of the mean velocities over the window before
  int restN, restPrev;      // steps in the current window; 1 once restMean holds a window
  int restUp;               // which speeds rose from the window before that (1 linear, 2 angular)
  hsdRest rest;             // the root body's auto-disable record (dynamics_sleep.c)
  int jsIdle;               // joint-space engine: steps its root has been slower than the sleep
                            // thresholds (dynamics_sleep.c's hsd_jsSleepAfter)
  int jsIsland;             // ... and its island's union-find parent there (scratch)
  int jsKeep;               // ... 1 on an island's root when a member keeps it awake (scratch)
  dBodyID cbody;            // the composite body (free root only), NULL otherwise
  double P[3], L[3];        // total momentum and angular momentum about the centre of mass
  double M, com[3], Ic[9];  // composite mass, centre, inertia about it (world) at step start
  double PInt[3], LInt[3];  // momentum of the joint motion relative to the root this step
  double bo[3];             // root origin in the composite body frame this step
  double vRoot[3], wRoot[3];  // kinematic root velocity this step
  double *scratch;          // 6 per link
  hsBodyState *ikState;     // hsd_inverseKinematics solves on this copy of the state
  void *ikWork;             // and with this workspace (hsm_ikWorkSize)
  hsdJsModel *jsm;          // the joint-space engine's model and data (hsENGINE_JOINT_SPACE
  hsdJsData *jsd;           // only; made by hsd_init, dynamics_jsstep.c), else NULL
  int bodiesStale;          // joint-space engine: the ODE bodies lag the state's link poses and
                            // motion (hsd_jsPlaceBodies); hsd_syncOdeBodies places them. Not
                            // saved: a save places them first, a restore writes them
} hsdCharacter;

// one closed loop (extra joint; dynamics_loops.c)
typedef struct hsdLoop {
  char *name;
  int ch[2], link[2];
  double p[2][3];      // attachment points, link frames [m]
  hstExtraJoint type;
  double axis[3];      // unit, link1 frame
  // ODE, built by hsd_init: xy slides an auxiliary body along the axis on link1 (a slider) and
  // ties it to link2 by a ball; z slides two (along two directions across the axis); xyz is
  // a ball between the links
  dBodyID aux[2];
  double dirs[2][3];   // the auxiliary bodies' slide directions, link1 frame
  dJointID slider[2];
  dJointID ball;
  int link2Side;       // ODE side of the ball carrying link2: 1 or 2; 0 when link2 is static
                       // (its reaction is the opposite of the force on side 1)
  dJointFeedback fb;
  double cPre[3], aPre[3];  // at the start of the step: the centre of the ball's body on
                            // link2's side (side 1 when link2 is static) and link2's anchor
  double force[6];     // the last step's force and moment on link2 (hsd_extraJointForce)
  double jsImp[3];     // joint-space engine: the last step's impulse on link2, world [N s]
} hsdLoop;

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
  int filtered;        // 1: a contact pair, expanded without the link pairs that the models'
                       // collision filters keep apart (hsm_linksMayCollide)
} hsdPair;

struct hsdWorld {
  hsdOptions opt;
  double dt;
  double g[3];
  double time;
  long steps;
  int runaway;              // character index + 1 of the first runaway of this step, 0 if none
  const char *runawayWhen;  // "before" or "after" (the step)
  int warnings;
  unsigned warned;  // hsdWARN_* already logged
  int initialised;
  unsigned long seed;  // ODE's random seed for this world (QuickStep reorders constraints)
  hsuBytes start;      // what the last hsd_init built from (hsd_noteStart): a saved state
                       // carries it, and a restore rebuilds from it when it differs

  hsdCharacter *chars;
  int nchar, capChar;

  hsdPair *pairs;  // contact pairs
  int npair, capPair;
  hsdPair *ipairs;  // intersection pairs
  int nipair, capIpair;
  hsdLoop *loops;     // extra joints
  int nloop, capLoop;
  double *loopWork;   // joint-space engine, hsd_jsCloseLoops: a loop's Jacobian rows and
                      // M^-1 J^T (12 x the most dofs a character has; made by hsd_buildLoops)
  unsigned char *loopMoved;  // ... and the characters it moved in a step (nchar)
  hsuVec linkPairs;   // hsdLinkPair of contact pairs
  hsuVec ilinkPairs;  // hsdLinkPair of intersection pairs

  // ODE
  dWorldID world;
  dThreadingImplementationID threading;  // this world's own (ODE's default is process-wide)
  dJointGroupID contactGroup;
  int nbody;          // ODE bodies (numbered through dBodySetData: index + 1)
  unsigned char *pairActive;  // per contact link pair: its links may touch this step
  int *islandParent;  // union-find over bodies, for hsSTEPPER_AUTO
  int *islandRows;
  long quickSteps;    // steps that used QuickStep
  int lastRows;       // constraint rows of the last step's largest island

  // contact buffers, sized at make time (opt.maxContacts)
  hsdContact *contacts;
  int ncontact;
  hsdContactGroup *groups;  // the contacts grouped by link pair (as many as contacts at most)
  int ngroup;
  dJointFeedback *contactFb;
  int *contactJoint;  // +1: the contact joint's body 1 is link[0]'s side, -1: link[1]'s, 0: none
  int *contactIsland;     // per contact, 3 ints: the island indices of its joint's two bodies
                          // (-1: none or not dynamic) and its constraint rows
  hsdGeometry *geo;       // collision scene and query buffers (dynamics_geom.c)
  hsdJsContacts *jsc;     // the joint-space engine's contact solver (dynamics_jscontact.c)
};

//---------------------------------- helpers across files ---------------------------------------

// count a warning of kind (hsdWARN_*) and log it the first time
void hsd_warn(hsdWorld *w, unsigned kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

// check a character / link index; 0 or hsE_INVALID with err
int hsd_checkLink(const hsdWorld *w, int ch, int link, hsError *err);

// moving bodies faster than this [m/s, rad/s] or farther out than hsdMAX_POSITION [m] before a
// step count as numerical trouble and are stopped (ODE aborts on the overflow that follows)
#define hsdMAX_SPEED 1e8
#define hsdMAX_POSITION 1e9

// 1 if link k of character c follows commands (high gain; for the root: position given)
static inline int hsd_servoed(const hsdCharacter *c, int k) {
  return c->in.mode[k] == hsMODE_HIGH_GAIN;
}

// the unit joint axis of link k in the world, for the link's world rotation R (inline: every
// link's every step)
static inline void hsd_worldAxis(double a[3], const hsLink *lk, const double R[9]) {
  double n = hsu_norm(lk->axis), u[3] = {lk->axis[0] / n, lk->axis[1] / n, lk->axis[2] / n};
  hsu_rotVec(a, R, u);
}

// the velocity of link k (origin v, angular w) from its parent's (pv, pw) and its joint
// velocity dq (1-dof joints; ignored for others) at the link positions of st; the link
// velocity pass's one step, written once (inline: every link's every step)
static inline void hsd_childVelocity(const hsBody *b, const hsBodyState *st, int k,
                                     const double pv[3], const double pw[3], double dq,
                                     double v[3], double w[3]) {
  const hsLink *lk = &b->links[k];
  int p = lk->parent;
  double r[3], x[3];
  for (int j = 0; j < 3; j++) {
    r[j] = st->linkP[3 * k + j] - st->linkP[3 * p + j];
  }
  hsu_cross(x, pw, r);
  for (int j = 0; j < 3; j++) {
    v[j] = pv[j] + x[j];
    w[j] = pw[j];
  }
  if (hsm_hasOneDofJoint(lk)) {
    double a[3];
    hsd_worldAxis(a, lk, st->linkR + 9 * k);
    double *along = hsm_jointHalf(lk) == 3 ? w : v;
    for (int j = 0; j < 3; j++) {
      along[j] += a[j] * dq;
    }
  }
}

// the pose a position-given root is driven to this step: the commanded one, else the held one
void hsd_rootTarget(const hsdCharacter *c, const double **p, const double **R);

//---------------------------------- build (dynamics_build.c) ----------------------------------

// destroy every ODE object of the world (bodies, joints, geoms, trimesh data) and free the
// geom arrays; the world returns to the not-initialised state
void hsd_destroyOde(hsdWorld *w);

// world pose of a link carried by an ODE body (l->body non-NULL)
void hsd_linkPoseFromBody(const hsdLinkOde *l, double p[3], double R[9]);

// set a joint's motor for the link's mode (high gain: bounded by highGainFMax; torque: off)
void hsd_configureMotor(const hsdWorld *w, hsdLinkOde *l, hstJointMode mode);

// the mass [kg], centre (link t's frame) and inertia (about the centre, link t's frame) the ODE
// engine gives the rigid group topped by link t of c (c's links' tops set), with the bounds
// (opt.boundMass, boundInertia) applied; *lmin the unbounded inertia's smallest principal
// moment. Returns the bounds applied: bit 0 the mass, bit 1 the inertia.
int hsd_groupMass(const hsdWorld *w, const hsdCharacter *c, int t, double *mass, double com[3],
                  double I[9], double *lmin);

// ODE rotation (dMatrix3, 4-wide rows) <-> our 3x3 row-major
void hsd_fromOdeR(double R[9], const dReal *m);
void hsd_toOdeR(dMatrix3 m, const double R[9]);

//---------------------------------- loops (dynamics_loops.c) ----------------------------------

// build the ODE side of every extra joint (after every character's bodies exist) and check
// that none is over-constrained; 0 or hsE_INVALID with err naming the loop
int hsd_buildLoops(hsdWorld *w, hsError *err);

// check that no loop is over-constrained by the current drive modes; 0 or hsE_INVALID
int hsd_checkLoops(const hsdWorld *w, hsError *err);

// forget the ODE side of the loops (the world is being destroyed)
void hsd_forgetLoops(hsdWorld *w);

// re-place the auxiliary bodies of the loops touching a character whose bodies were re-placed
// from its state this step (a teleport, a mode change, a recovery), on link1 where the loop's
// geometry puts them, moving with it; clears the characters' resynced marks
void hsd_replaceLoops(hsdWorld *w);

// note where the loops' bodies and anchors are before the ODE step (for their moments)
void hsd_noteLoops(hsdWorld *w);

// the loops' forces from their joint feedback after a step
void hsd_readLoopForces(hsdWorld *w);

// free the loops' records
void hsd_freeLoops(hsdWorld *w);

// joint-space engine, after every character's positions were integrated (their state and link
// poses written): each closed loop's position error, which the step's velocity rows leave at
// the integration's second-order drift, removed by moving the loop's dofs by M^-1 J^T lambda
// (the least change in the mass matrix's metric, given dofs kept) at most JS_LOOP_REACH a
// pass; the moved characters' link poses and velocities updated, their ODE bodies marked stale
// (hsd_jsPlaceBodies)
void hsd_jsCloseLoops(hsdWorld *w);

// add a model's extra joints for character ch (hsd_addCharacter); 0 or an error
int hsd_addModelLoops(hsdWorld *w, int ch, hsError *err);

//---------------------------------- pairs (dynamics_world.c) ----------------------------------

// expand a registered pair into link pairs (appended to out); 0 or an error code
int hsd_expandPair(hsdWorld *w, hsdPair *p, hsuVec *out, int index, hsError *err);

//---------------------------------- before the step (dynamics_prepare.c) ----------------------

// set ODE body poses and velocities of character ch from its state (link poses through FK,
// velocities from motion[root] and dq) in representation rep, set the joint motors for the
// drive modes, and restart the joint readings, the step's start and the servo holds there
void hsd_syncFromState(hsdWorld *w, int ch, hstdRep rep);

// a teleport of character ch: the values, velocities and root pose commanded for the next step
// written into its state too, then the ODE bodies placed from the state (hsd_syncFromState)
void hsd_applyTeleport(hsdWorld *w, int ch, hstdRep rep);

// everything character ch needs before collision: teleports applied, representation chosen,
// joints driven, external forces applied
void hsd_prepareCharacter(hsdWorld *w, int ch);

// 1 if every moving ODE body of character c has a finite pose and velocity (within the runaway
// limits when limits is set)
int hsd_saneCharacter(const hsdCharacter *c, int limits);

// numerical trouble: put character ch back where its state is, at rest, and count a warning
// (when: "before" or "after" the step, for the message)
void hsd_recover(hsdWorld *w, int ch, const char *when);

//---------------------------------- contact generation (dynamics_geom.c) ----------------------
//
// The seam to the geometry: this file alone talks to collision/. Everything is sized at
// hsd_init (query buffers grow once when pairs are registered later).

// build the collision geometry of character ch (after its ODE bodies exist, at its state's
// poses; character 0 also makes the world's scene); 0 or hsE_NOMEM
int hsd_makeShapes(hsdWorld *w, int ch, hsError *err);

// release character ch's collision geometry (character 0's takes the world's scene along);
// no-op when there is none
void hsd_freeShapes(hsdWorld *w, int ch);

// the geometry of character ch's links without an ODE body moved to their state poses (links
// with a body carry theirs along)
void hsd_placeShapes(hsdWorld *w, int ch);

// every link's geometry placed where its body or state puts it, sleeping ones too (a restored
// state), then hsd_shapesMoved
void hsd_placeAllShapes(hsdWorld *w);

// every link of character ch placed in the collision scene where its body (or state) is now: a
// character falling asleep, whose shapes the next steps no longer move (hsd_shapesMoved skips
// sleepers), rests in the scene where it stopped
void hsd_placeCharacterShapes(hsdWorld *w, int ch);

// the links have moved: bounding volumes brought up to date (before hsd_touches)
void hsd_shapesMoved(hsdWorld *w);

// the shapes made current for a query between steps: every character's pending teleport
// applied (hsd_applyTeleport), then hsd_shapesMoved
void hsd_shapesCurrent(hsdWorld *w);

// the contact points of the world's contact link pairs at the current link poses: for each
// link pair that may touch (hsd_charsMayTouch, hsd_linksMayTouch), in link pair order, its
// points (at most opt.maxContactsPerPair per link pair, none within the pair's cullingThresh
// of another) as
// hsdContacts (pair, characters, links, point, normal from link[1] towards link[0], depth;
// force zero) into out[0 .. max); returns how many, *dropped the points that did not fit. With
// the broad phase (opt.broadPhase) only pairs whose world boxes overlap are asked about: same
// answer.
int hsd_findContacts(hsdWorld *w, hsdContact *out, int max, int *dropped);

// 1 if the two links of lp are closer than tolerance (0: touch or overlap) at the current
// poses (after hsd_shapesMoved)
int hsd_touches(hsdWorld *w, const hsdLinkPair *lp, double tolerance);

//---------------------------------- sleep (dynamics_sleep.c) ---------------------------------

// character c's auto-disable record as ODE starts a body's, with the world's defaults, off
// (hsd_init, once its root body exists)
void hsd_initRest(hsdWorld *w, hsdCharacter *c);

// give each ODE body its auto-disable settings from the options (hsd_init, hsd_setSleep)
void hsd_setupSleep(hsdWorld *w);

// ODE's auto-disable rule over every character's root body, at the start of the ODE step (where
// dWorldStep and QuickStep apply it): a body that touches something (has a joint) and whose mean
// velocities stayed under the thresholds for its idle steps and time is disabled and stopped
void hsd_autoDisable(hsdWorld *w);

// 1 if character c is a free rigid object: one free rigid body, no joint, no loop, not
// position given, no force sensor (what may sleep, and what hsSTEPPER_AUTO's pileRows counts
// as a pile)
int hsd_sleeper(const hsdCharacter *c);

// before contact generation: wake sleeping characters that were commanded, pushed, teleported
// or can no longer sleep
void hsd_prepareSleep(hsdWorld *w);

// 1 if character ch is at rest for good this step: static (still) or asleep
int hsd_atRest(const hsdWorld *w, int ch);

// after the contact joints are made: wake the sleeping characters touched by something moving
// that ODE's island walk would not wake (a kinematic or servoed body)
void hsd_wakeTouched(hsdWorld *w);

// wake every sleeping character (gravity changed, sleeping switched off)
void hsd_wakeAll(hsdWorld *w);

// 1 if awake character ch wakes a sleeping character whose world box meets one of its own: it
// is not static and either may not sleep or moves fast (ten times the sleep thresholds: a blow,
// not a resting body's jitter; its root body's velocity read, placed first: hsd_syncOdeBodies)
int hsd_wakesNeighbours(hsdWorld *w, int ch);

// the joint-space engine's sleeping (its characters' ODE bodies carry the flag, as on the ODE
// engine): 1 if character ci sleeps this step (it is not stepped: a static body to the others)
int hsd_jsAsleep(const hsdWorld *w, int ci);

// the joint-space step's contacts found (the first n of w->contacts): a sleeping character
// touching an awake one that is not static wakes and joins this step (hsd_jsBegin)
void hsd_jsWakeTouched(hsdWorld *w, int n);

// after a joint-space step: each awake sleeper's rest count; an island (characters linked by
// this step's contacts) whose members are all sleepers at rest for sleepTime falls asleep as a
// whole
void hsd_jsSleepAfter(hsdWorld *w);

// the first half of character ci's joint-space step (dynamics_jsstep.c): its state and
// commands into its data, its velocity at the step's end before contacts
void hsd_jsBegin(hsdWorld *w, int ci);

// wake character ch if it sleeps; 1 if it did
int hsd_wake(hsdWorld *w, int ch);

//---------------------------------- contacts (dynamics_contact.c) -----------------------------

// A contact link pair's links may touch this step when they can move relative to each other and
// not both are at rest for good (static, or asleep: dynamics_sleep.c): hsd_charsMayTouch of its
// characters and hsd_linksMayTouch of its links.

// 1 unless characters ch0 and ch1 are both still or both at rest (the part that depends on the
// characters alone: the same for all their link pairs in one step)
int hsd_charsMayTouch(const hsdWorld *w, int ch0, int ch1);

// 1 unless the links of link pair lp are carried by one ODE body, or are two links of one
// character without a body (the part that depends on the links)
static inline int hsd_linksMayTouch(const hsdWorld *w, const hsdLinkPair *lp) {
  const hsdLinkOde *l1 = &w->chars[lp->ch[0]].links[lp->link[0]];
  const hsdLinkOde *l2 = &w->chars[lp->ch[1]].links[lp->link[1]];
  return !(l1->att && l1->att == l2->att) && !(lp->ch[0] == lp->ch[1] && !l1->att);
}

// collide the registered contact pairs at the current poses and create contact joints
void hsd_collide(hsdWorld *w);

// take / release the process-wide lock on what of ODE is global (dynamics_options.c): its
// random generator, which QuickStep draws from, and world creation and destruction; nothing
// else of a step takes it, so independent worlds step at the same time
void hsd_lockOde(void);
void hsd_unlockOde(void);

// the island index of an ODE body (-1 for none or a kinematic body, which link no islands)
int hsd_islandIndex(dBodyID b);

// add sign times the surface velocity of link k of character c (its track's: a crawler link's
// speed u along normalize((R axis) x nOut), OpenHRP AIST's convention) at a contact with normal
// nOut (out of the link) to v; a no-op for a link that is not a moving track
void hsd_addTrackVel(const hsdCharacter *c, int k, const double nOut[3], double v[3],
                     double sign);

// copy contact joint feedback into the contact list after a step
void hsd_readContactForces(hsdWorld *w);

// w->groups from w->contacts: one group per run of points of one link pair (hsd_contactGroups)
void hsd_groupContacts(hsdWorld *w);

//---------------------------------- after the step (dynamics_finish.c) ------------------------

// write character ch's state from the step: poses, joints, velocities, accelerations, torques;
// then clear the commands of the step
void hsd_finishCharacter(hsdWorld *w, int ch);

//---------------------------------- the joint-space engine (dynamics_jsstep.c) ---------------

// after hsd_init has built the ODE side (kept as the geometry's carrier: queries, collision
// shapes): each character's joint-space model and data; hsE_INVALID naming what the engine
// does not do (the rotorInertia option), hsE_NOMEM
int hsd_jsInitWorld(hsdWorld *w, hsError *err);

// free every character's joint-space model and data
void hsd_jsFreeWorld(hsdWorld *w);

// hsd_step on the joint-space engine: per character the teleports and commands, one
// semi-implicit step of its joint-space dynamics, the state written back and the ODE bodies
// marked to be placed where the state says (no ODE step; hsd_jsPlaceBodies); 0, hsE_INVALID
// (contact pairs registered since hsd_init), hsE_RUNAWAY
int hsd_jsStepWorld(hsdWorld *w, hsError *err);

// the joint-space step's positions and velocities of character ci (not still) by classical RK4
// of its smooth dynamics, the Euler step's constraint impulse held as a force (in place of
// hsd_jsIntegrate after hsd_jsContacts; hsINTEGRATE_RUNGE_KUTTA; dynamics_jsrk4.c)
void hsd_jsRungeKutta(hsdWorld *w, int ci);

// before a joint-space step (dynamics_prepare.c): teleports and mode changes applied to the
// state, the step's start noted, the external forces into linkWrench (no ODE drive)
void hsd_jsPrepare(hsdWorld *w, int ci);

// the ODE bodies of character ci placed at its state's link poses and velocities (and the
// shapes without a body at theirs), nothing else reset (dynamics_prepare.c)
void hsd_placeBodies(hsdWorld *w, int ci);

// the joint-space engine's hsd_placeBodies after a step: the shapes without a body placed at
// their state poses now, the ODE bodies only marked stale (bodiesStale): nothing of the step
// reads them, and placing them (dBodySetRotation orthogonalises and makes a quaternion) was
// 5 % of a humanoid's step. Whatever reads a body, or writes the link poses or motion it is
// placed from, calls hsd_syncOdeBodies first
void hsd_jsPlaceBodies(hsdWorld *w, int ci);

// character ci's ODE bodies placed from its state as hsd_placeBodies would have placed them
// when they were marked stale (the state's link poses and motion are still those), if they
// are; a no-op otherwise (always on the ODE engine)
void hsd_syncOdeBodies(hsdWorld *w, int ci);

// the joint-space engine's contact points include a touching face's clipped points up to this
// far from the other face (negative depth: a gap the solver lets close, no more) [m]
#define hsdJS_CONTACT_MARGIN 2e-3

// the joint-space step's contacts (dynamics_jscontact.c), between every character's
// hsd_jsStepVelocity and its hsd_jsIntegrate: the contact points of the registered pairs at the
// step's start poses, the impulses that keep them apart (friction cone, warm-started), each
// character's qvel and qacc corrected, w->contacts with their forces, the forces into the
// characters' linkWrench (for the force sensors)
void hsd_jsContacts(hsdWorld *w);

// the contact solver's records and warm start freed (hsd_jsFreeWorld)
void hsd_jsFreeContacts(hsdWorld *w);

// the contact solver's warm start (the last step's points and impulses) and statistics
// appended to out / read back from in (dynamics_state.c); restore: 0, or -1 (in->bad: a
// damaged record; or out of memory)
void hsd_jsSaveContacts(const hsdWorld *w, hsuBytes *out);
int hsd_jsRestoreContacts(hsdWorld *w, hsuBytes *in);

//---------------------------------- saved states (dynamics_state.c) --------------------------

// what hsd_init builds from (options, gravity, time step, each character's state, motion and
// input) into w->start, before hsd_init changes any of it
void hsd_noteStart(hsdWorld *w);

// after a joint-space step (dynamics_finish.c): accelerations by differences, inverse dynamics
// for the force sensors, the servos' holds, the commands cleared
void hsd_jsFinish(hsdWorld *w, int ci);

//---------------------------------- servoed characters (dynamics_servo.c) ---------------------

// the representation character ch needs for its current modes
hstdRep hsd_chooseRep(const hsdWorld *w, int ch);

// the joint velocity a servoed joint of link k gets this step (from its commands)
double hsd_servoVelocity(const hsdWorld *w, const hsdCharacter *c, int k);

// before collision: joint velocities, internal velocities and the composite body's state of a
// character in the composite or kinematic representation
void hsd_servoPrepare(hsdWorld *w, int ch);

// after the ODE step: root pose, joints, link poses and velocities of such a character
void hsd_servoFinish(hsdWorld *w, int ch);

// total momentum P and angular momentum L about the centre of mass of character c from its
// link poses and link velocities (motion)
void hsd_momentum(hsdCharacter *c);

// inverse dynamics of character ch from the last step's motion: subW for every link and, for
// servoed joints of composite and kinematic characters, u
void hsd_inverseDynamics(hsdWorld *w, int ch);

// hsd_inverseDynamics where only the force sensors read it: for a character with joint
// dynamics (articulated), subW of the links that carry a force sensor and of their descendants
// only (bit for bit hsd_inverseDynamics's; the joint-space engine's sensors, a humanoid's ankles:
// its feet); otherwise hsd_inverseDynamics itself
void hsd_sensorInverseDynamics(hsdWorld *w, int ch);

#endif  // HRPSIM_DYNAMICS_DYNAMICS_PRIVATE_H_
