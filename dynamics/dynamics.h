// dynamics.h - hsdWorld: rigid-body dynamics of hsBody characters on ODE, with OpenHRP 3.1's
// semantics (joint modes, link data, contacts, body sensors); and hrpsim's joint-space engine
// (hsdJs*, at the end), which a world steps instead of ODE when hsdOptions.engine says so.
//
// A world holds characters (each an hsBody, borrowed, plus its own state) and steps them with
// ODE. ODE bodies sit at centres of mass; OpenHRP link frames sit at the joint, so every pose and
// velocity crossing this interface is converted: all positions, rotations and velocities here
// are of the LINK FRAME as written in the model, in the world frame, SI units. Links welded by a
// fixed joint share one ODE body (summed mass and inertia); rotate -> hinge, slide -> slider, a
// free root -> no joint, a fixed root (and what is welded to it) -> static, never moving. A
// character whose 1-dof joints are all high gain needs no joint dynamics: with a free root it
// moves as one composite ODE body carrying its total momentum (joints exactly on their
// commands, contacts seeing the joints' motion as surface velocity); with a fixed or
// position-given root it is purely kinematic (see dynamics_servo.c). Contacts come from
// collision/ (hsc_, the library the CollisionDetector answers from; dynamics_geom.c): each
// character's collision shapes are one hscModel (primitives exact, anything else a mesh with a
// BVH), collided at the current link poses; ODE only gets the contact joints. Only registered
// pairs collide, and contacts are generated in a fixed order (pairs in registration order, link
// pairs and geoms in link/shape order, no pointer-ordered hashing), so the same inputs give
// bit-identical trajectories.
//
// Joint modes follow OpenHRP: each link has one drive mode, written both by the joint-mode
// calls and by OpenHRP's POSITION_GIVEN flag (given = high gain). In torque mode a 1-dof joint
// is driven by its u (kept until changed); in high-gain mode it follows its commands exactly (a
// kinematic servo with unbounded force): a JOINT_VALUE set since the last step is where the
// joint is after the step, else a velocity (+ acceleration) command drives it, else it holds
// its last target; u reads back the torque the servo applied (inverse dynamics of the step, or
// ODE's motor force). A root in high-gain mode ("position given") moves exactly where it is
// told. Setting the value, velocity or pose of something that moves under dynamics (a
// torque-mode joint, a free root) teleports it: the state changes at once and the next step
// starts from there. Joint rotor inertia (rotorInertia * gearRatio^2) and joint limits are
// options, off by default as in OpenHRP 3.1 (hsdOptions.jointLimits, rotorInertia).
//
// Closed loops (OpenHRP's ExtraJoint; dynamics_loops.c): a point on link1 (link1 frame) is tied
// to a point on link2: "xyz" in all three directions (a ball joint), "xy" in the two directions
// perpendicular to the axis (a unit vector in link1's frame: the point slides along it), "z"
// along the axis only (the point slides in the plane perpendicular to it). A model's extra
// joints are added with its character; hsd_addExtraJoint adds more (OpenHRP's
// registerExtraJoint) between links of one or two characters. ODE solves them with the rest
// of the system (drift corrected by the world's ERP); a character with a loop is always
// simulated with joint dynamics, and a loop none of whose joints moves under dynamics (every
// joint on it high gain or fixed, roots fixed or position given) is over-constrained: hsd_init
// and hsd_step refuse it with an error naming the loop.
//
// Crawler links (jointType "crawler"; Choreonoid's pseudoContinuousTrack) are welded to their
// parent, and at each of their contacts the track surface moves relative to the link at speed
// u along dir = normalize((R a) x n), R the link's rotation, a its joint axis, n the contact
// normal pointing out of the crawler into the other body (OpenHRP AIST's convention: on flat
// ground with a = y the track's underside moves along -x and the vehicle drives along +x for
// u > 0). u is the joint torque (OpenHRP) or joint velocity (Choreonoid's pseudoContinuousTrack
// convention) the client wrote last; the link reads it back as both.
//
// A step reads: prepare each character (teleports, drives, external forces), collide the
// registered pairs into contact joints, step ODE, write the state back (poses, joints,
// torques, sensors).
//
// Inputs are checked before they reach ODE (whose checks abort): numbers must be finite and
// within +-1e12, indices valid, the time step in (0, 1] s. A state running away (speeds over
// 1e8, positions over 1e9) is stopped where it was before ODE sees it, with a counted warning
// (hsd_warningCount) logged once.
//
// Worlds are independent: threads may step and query different worlds at the same time (one
// world is one thread's at a time). What of ODE is process-wide (its random generator, which
// QuickStep uses, and world creation) is taken under a lock inside this module; ODE's own
// collision, which is not thread-safe in Debian's build, is not used. hsd_initODE is called
// before any world is made (it runs once, whoever calls it).
//
// Range, vision and noisy body sensors live in sensors/ (hss_), which reads the world through
// this interface (range sensors cast their rays on the world's own collision scene,
// hsd_stateScene); distance queries are hsd_checkDistances below.

#ifndef HRPSIM_DYNAMICS_DYNAMICS_H_
#define HRPSIM_DYNAMICS_DYNAMICS_H_

#include <stdint.h>

#include "collision.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- options ---------------------------------------------------

// ODE steppers
typedef enum hstStepper {
  hsSTEPPER_WORLD = 0,  // dWorldStep: direct (big-matrix) solver, exact constraints
  hsSTEPPER_QUICK,      // dWorldQuickStep: iterative (SOR-LCP) solver
  hsSTEPPER_AUTO        // dWorldStep, or QuickStep for a step whose largest island (bodies
                        // linked by joints and contacts) has more than autoRows constraint rows,
                        // unless a high-gain joint motor is in use (QuickStep cannot hold them)
} hstStepper;

// the engine that steps a world's characters
typedef enum hstEngine {
  hsENGINE_ODE = 0,     // ODE in maximal coordinates (chosen by name, "ode"): everything below
  hsENGINE_JOINT_SPACE  // the default: hrpsim's joint-space engine (hsdJs*, below), per character:
                        // torque mode, high gain as prescribed motion (the commanded joint velocity
                        // of the step, hsd_setJointValue / Velocity / Acceleration as in the ODE
                        // engine, reached exactly; its torque by inverse dynamics), a position-
                        // given root likewise, rotor inertia always on the joint's diagonal
                        // (OpenHRP's rule), external forces, contacts in contact space
                        // (dynamics_jscontact.c) solved with the joint limits
                        // (hsdOptions.jointLimits), the closed loops and the crawler tracks'
                        // speeds; hsd_init refuses only the rotorInertia option (the link-inertia
                        // form, ODE's)
} hstEngine;

// the time stepping of a world (OpenHRP's IntegrateMethod)
typedef enum hstIntegrator {
  hsINTEGRATE_EULER = 0,   // semi-implicit Euler (the default; the ODE engine's only one)
  hsINTEGRATE_RUNGE_KUTTA  // the joint-space engine: the smooth dynamics by classical RK4 with
                           // the step's contact, limit, loop and track impulses held as a
                           // constant force (dynamics_jsrk4.c); the ODE engine: Euler
} hstIntegrator;

// tunables of a world; fill with hsd_defaultOptions, then change what you need
typedef struct hsdOptions {
  hstEngine engine;         // hsENGINE_JOINT_SPACE (default) or hsENGINE_ODE
  hstStepper stepper;
  hstIntegrator integrator;  // hsINTEGRATE_EULER (default) or hsINTEGRATE_RUNGE_KUTTA
  int quickIterations;      // SOR iterations for hsSTEPPER_QUICK (and hsSTEPPER_AUTO's QuickStep
                            // steps whose largest island has no articulated joint: piles)
  int chainIterations;      // hsSTEPPER_AUTO: SOR iterations of a QuickStep step whose largest
                            // island holds an articulated character's joints (a torque-mode
                            // robot on the floor)
  int autoRows;             // hsSTEPPER_AUTO: island size (constraint rows) above which a step
                            // uses QuickStep
  int pileRows;             // hsSTEPPER_AUTO: ... and above which it does when only free rigid
                            // objects (boxes, props: no robot) touch anything
  double erp;               // global error reduction parameter (0..1)
  double cfm;               // global constraint force mixing [m/N-ish, ODE units]
  double contactErp;        // ERP of contact joints
  double contactCfm;        // CFM of contact joints
  double contactSurfaceLayer;      // allowed penetration before correction [m]
  double contactMaxCorrectingVel;  // cap on the velocity contacts use to push apart [m/s]
  int maxContactsPerPair;   // contact points kept per colliding link pair: the deepest, then the
                            // most spread out (a resting face keeps its corners)
  int maxContacts;          // contact points per step in the whole world (overflow: counted)
  double highGainFMax;      // force/torque bound of high-gain joint motors [N or N m] (huge)
  int servoMotors;          // 0 (default): a character whose 1-dof joints are all high gain
                            // moves as one composite body (joints exactly on
                            // their commands, torques by inverse dynamics); 1: such joints are
                            // ODE joint motors too (much slower; for cross-checks)
  double stickVelocity;     // relative tangential speed at a contact below which the pair's
                            // staticFriction applies, slipFriction above [m/s]
  double bounceVelocity;    // approach speed below which restitution is not applied [m/s]
  double boundMass;         // a moving rigid group (a link with the links welded to it by fixed
                            // joints) without mass gets this mass [kg] (default 1e-3)
  double boundInertia;      // ... and one whose inertia is not positive definite has it raised
                            // until its smallest principal moment is this [kg m^2] (default
                            // 1e-6); each bound is a warning naming the model file, line, link
  int jointLimits;          // which of the model's joint limits torque-mode rotate/slide
                            // joints obey: a set of hsLIMIT_* bits; 0 (default, as OpenHRP
                            // 3.1): none. High-gain joints follow their commands regardless.
  double stopErp, stopCfm;  // softness of the joint stops (ODE dParamStopERP / StopCFM)
  int rotorInertia;         // 1: rotorInertia * gearRatio^2 added to each rotate joint's link
                            // about its axis (the rotor turning with the link); 0 (default)
  int broadPhase;           // which registered link pairs the collide phase asks collision/
                            // about: hsBROAD_AUTO (default), hsBROAD_OFF, hsBROAD_ON; the
                            // contacts are bit-identical either way, only the cost differs
  int sleep;                // 1: a free rigid object (free root, no 1-dof joint, no closed loop)
                            // at rest falls asleep (ODE's auto-disable): not stepped, no contacts
                            // with static or sleeping neighbours, woken by a contact with
                            // anything awake, a command, an external force or a teleport;
                            // 0 (default, OpenHRP's DynamicsSimulator): never. hsd_setSleep.
  double sleepLinearVel;    // at rest: speed below this [m/s] ...
  double sleepAngularVel;   // ... and angular speed below this [rad/s] ...
  double sleepTime;         // ... for this long [s] (and at least 10 steps) ...
  double sleepLinearAcc;    // ... unless its mean speed rose faster than this [m/s^2]
  double sleepAngularAcc;   // ... or its mean angular speed faster than this [rad/s^2]
                            // from one window (a quarter of sleepTime) to the next, twice in a
                            // row: a body slow but speeding up (sliding from rest near its
                            // friction angle) stays awake
} hsdOptions;

// hsdOptions.jointLimits bits: what a torque-mode rotate or slide joint obeys with each on
enum {
  hsLIMIT_POSITION = 1,  // llimit / ulimit (both given, llimit <= ulimit): ODE joint stops
  hsLIMIT_VELOCITY = 2,  // uvlimit (> 0) / lvlimit (< 0), each direction on its own (absent
                         // or 0: none that way): the drive is an ODE motor with target velocity
                         // the limit in the direction of the torque and force bound |u|, so it
                         // gives u until the joint would pass the limit, then just what keeps it
                         // there (external forces can still push it past; u = 0: no drive)
  hsLIMIT_EFFORT = 4,    // climit * gearRatio * torqueConst (> 0; climit absent: none): the
                         // applied torque or force is the command clamped to +-that
  hsLIMIT_ALL = 7
};

// hsdOptions.broadPhase
enum {
  hsBROAD_OFF = 0,  // every registered link pair is tested every step (OpenHRP's way)
  hsBROAD_AUTO,     // the sweep and prune below when the registered link pairs outnumber four
                    // times the links with geometry, else every pair (few pairs: cheaper)
  hsBROAD_ON        // sweep and prune over every link's world box (collision/'s
                    // hsc_overlappingLinks); only registered pairs whose boxes overlap are
                    // tested, in registration order
};

// the defaults (dynamics_options.c; docs/servers.md gives the measurements that chose them)
void hsd_defaultOptions(hsdOptions *opt);

// the engine and solver settings by name, as the doors give them (dynamics_settings.c; the
// table with defaults and ranges is in docs/servers.md). Engines: "ode", "joint_space".
// Settings (all the ODE engine's; the joint-space engine has none yet): stepper (auto, world,
// quick), iterations (quickIterations), chain_iterations, erp, cfm, contact_erp, contact_cfm,
// surface_layer (contactSurfaceLayer), max_correcting_vel, max_contacts_per_pair.

// the engine's name ("ode", "joint_space"), NULL for none
const char *hsd_engineName(hstEngine engine);

// the engine called name into *engine; hsE_INVALID naming the choices
int hsd_engineByName(const char *name, hstEngine *engine, hsError *err);

// name of solver setting i (0, 1, ...; NULL past the last) and the engine that has it
const char *hsd_solverSettingName(int i, hstEngine *engine);

// setting name's value in *opt as text ("quick", "50", "1.0000000000000001e-08": %.17g, read
// back exactly) into value, and its range ("1 to 100000", "auto, world, quick") into range;
// hsE_INVALID for an unknown name
int hsd_solverSettingText(const hsdOptions *opt, const char *name, char *value, size_t vlen,
                          char *range, size_t rlen);

// change *opt: the engine called engine (NULL or "": unchanged), then each setting names[k]
// to the text values[k] ("quick", "30", "1e-8"). Each is checked here, once for every door:
// a known name, given once, a setting of the (resulting) engine, a value of its type in its
// range. hsE_INVALID naming the first bad one, *opt unchanged; 0.
int hsd_applySolverSettings(hsdOptions *opt, const char *engine, int n,
                            const char *const *names, const char *const *values,
                            hsError *err);

// once per process, before any world: initialise ODE and route its messages to hsu_log
void hsd_initODE(void);

//---------------------------------- world -----------------------------------------------------

typedef struct hsdWorld hsdWorld;

// make an empty world with opt (NULL: defaults), time step 0.001 s and gravity (0, 0, -9.8)
hsdWorld *hsd_makeWorld(const hsdOptions *opt, hsError *err);

// free a world and everything it made; NULL is a no-op. Bodies stay the caller's.
void hsd_freeWorld(hsdWorld *w);

// the world's whole state appended to out (dynamics_state.c): what the last hsd_init built
// from, then everything that changes after it (time, steps, seed, options, gravity, each
// character's state, motion, input and step history, the ODE bodies' poses and velocities
// bit for bit, joint motors, sleep counters, contacts, the joint-space engine's data and warm
// start). hsE_ORDER before hsd_init; hsE_NOMEM when out could not grow.
int hsd_saveState(const hsdWorld *w, hsuBytes *out, hsError *err);

// the world continued from a state hsd_saveState wrote for a world of the same characters
// (same bodies, pairs and loops: the caller checks that), read from in at in->pos: rebuilt by
// hsd_init from the state's start when the world's own start differs, then every record
// overwritten, so that the next step gives the bits the saved world's next step gave.
// hsE_INVALID for a damaged state (a size that does not match): the world is then rebuilt
// from its own start (a restore that fails leaves a started world at its start, not the
// caller's: the core restores its own copy then).
int hsd_restoreState(hsdWorld *w, hsuBytes *in, hsError *err);

// a body state's arrays (q, dq, ddq, u, root pose, link poses) appended to b (save != 0; st
// only read) or read back from b into st (a state of the same body)
void hsd_bodyStateBytes(const hsBodyState *st, hsuBytes *b, int save);

// a hash of the sizes of the records a saved state copies as they are (this build's layout):
// a state saved by a build whose layout differs cannot be restored
uint64_t hsd_stateLayout(void);

// add a character named name for body (borrowed: must outlive the world); before hsd_init only.
// The body's own extra joints (closed loops) come with it. Returns its index, or -1 (duplicate
// name, bad body, a bad extra joint) with err.
int hsd_addCharacter(hsdWorld *w, const char *name, const hsBody *body, hsError *err);

// index of the character called name, or -1
int hsd_characterIndex(const hsdWorld *w, const char *name);

// number of characters
int hsd_characterCount(const hsdWorld *w);

// the name and body of character ch
const char *hsd_characterName(const hsdWorld *w, int ch);
const hsBody *hsd_characterBody(const hsdWorld *w, int ch);

// time step [s], within [hsdMIN_TIME_STEP, hsdMAX_TIME_STEP] (a normal number: ODE asserts on
// sub-normal steps); else hsE_INVALID
#define hsdMIN_TIME_STEP 1e-6
#define hsdMAX_TIME_STEP 1.0
int hsd_setTimeStep(hsdWorld *w, double dt, hsError *err);

// the integration method (hstIntegrator: OpenHRP's init(timeStep, method, ...)); any time, read
// by each step; 0, or hsE_INVALID for another value
int hsd_setIntegrator(hsdWorld *w, int integrator, hsError *err);
int hsd_integrator(const hsdWorld *w);
double hsd_timeStep(const hsdWorld *w);

// gravitational ACCELERATION, world frame [m/s^2] (OpenHRP's setGVector(0,0,9.8) is (0,0,-9.8))
int hsd_setGravity(hsdWorld *w, const double g[3], hsError *err);
void hsd_gravity(const hsdWorld *w, double g[3]);

// simulated time [s] since hsd_init
double hsd_time(const hsdWorld *w);

//---------------------------------- pairs -----------------------------------------------------

// surface properties of a colliding pair
typedef struct hsdSurface {
  double staticFriction;  // Coulomb coefficient used while sticking
  double slipFriction;    // Coulomb coefficient used while sliding
  double restitution;     // 0..1
  double cullingThresh;   // contact points closer than this to an earlier one are merged [m]
} hsdSurface;

// register a contact pair: link index -1 means every link of that character; the same
// character twice means self-collision among its links (never a link with its parent, nor a
// link with itself). Link pairs that the models' collision filters keep apart (MJCF contype /
// conaffinity and excludes: hsm_linksMayCollide) are left out. Frictions >= 0, restitution in
// [0, 1], culling threshold >= 0.
int hsd_addContactPair(hsdWorld *w, int ch1, int link1, int ch2, int link2,
                       const hsdSurface *surface, hsError *err);

// register a pair for intersection checks only (no contact forces); its links intersect when
// they are closer than tolerance [m] (0: when they touch or penetrate)
int hsd_addIntersectionPair(hsdWorld *w, int ch1, int link1, int ch2, int link2,
                            double tolerance, hsError *err);

//---------------------------------- simulation ------------------------------------------------

// build the ODE bodies, joints and geoms from each character's current state (set with the
// setters below beforehand); may be called again to restart from the current state
int hsd_init(hsdWorld *w, hsError *err);

// advance one time step: apply torques / servo targets / external forces, collide the
// registered pairs, step ODE, read back every state and joint torque; then clear the
// commands of the step and the external forces. A character whose state becomes non-finite or
// leaves the bounds (|position| 1e9 m, speed 1e8 m/s or rad/s) is stopped where the last good
// step left it (at rest, its commands dropped) and the step, otherwise complete (time advanced,
// the other characters stepped), returns hsE_RUNAWAY naming it; what next is the caller's choice.
int hsd_step(hsdWorld *w, hsError *err);

// index of the character whose runaway the last hsd_step reported (hsE_RUNAWAY), -1 if none
int hsd_runaway(const hsdWorld *w);

// the runaway bounds: |position| [m] and |velocity| [m/s and rad/s] of a moving body
double hsd_runawayMaxPosition(void);
double hsd_runawayMaxSpeed(void);

// the one wording of a runaway (hsd_step's hsE_RUNAWAY message; the doors' through core.h):
// character name ran away when ("before" / "after"; NULL: "by") step steps, with the bounds,
// into out (size bytes, truncated, NUL-terminated); returns the length snprintf returns
int hsd_runawayMessage(char *out, size_t size, const char *name, const char *when, long steps);

// number of steps run since hsd_init
long hsd_stepCount(const hsdWorld *w);

// warnings counted so far (contact buffer overflow, non-finite state, ...); logged once each
int hsd_warningCount(const hsdWorld *w);

// what the last step asked of ODE (for benchmarks and the stepper's choice)
typedef struct hsdStepStats {
  long steps, quickSteps;  // steps since hsd_init, and how many of them ran on QuickStep
  int bodies;              // moving ODE bodies in the last step
  int rows;                // constraint rows of its largest island (joints and contacts)
  int contactJoints;       // contact joints of the last step
  double jointGap;         // largest distance between a hinge's two anchors now [m] (how far
                           // the solver left the joints apart)
} hsdStepStats;

// fill *out for the last step of w (zeros before the first; on the joint-space engine only
// the step count: ODE is not stepped)
void hsd_stepStats(const hsdWorld *w, hsdStepStats *out);

//---------------------------------- character state and input --------------------------------
//
// Each character has two records, kept apart as MuJoCo keeps mjData's state and its controls:
// - its state (hsd_state, hsd_linkMotion): where the character IS. Only hsd_step and explicit
//   teleports write it; it is what every read reports.
// - its input (hsd_input): what clients command: per link the drive mode, the commands for the
//   next step (joint value, velocity, acceleration; the pose or velocity of a position-given
//   root), the joint torque (kept until changed), the external force of the next step.
// Before hsd_init there is no simulation yet, so every setter writes the state directly (the
// initial condition) as well as the input. After it, a setter either records a command in the
// input (servoed joints, a position-given root, torques, external forces, modes) or teleports:
// it writes the state at once and the next step starts from there (the value or velocity of a
// torque-mode joint, the pose or velocity of a root that is not position given).

// the state of character ch: q/dq/ddq/u per link, root and link poses; owned by the world
const hsBodyState *hsd_state(const hsdWorld *w, int ch);

// per-link extras, world frame, of the link frame origin
typedef struct hsdLinkMotion {
  double v[3];   // linear velocity of the link origin [m/s]
  double w[3];   // angular velocity [rad/s]
  double dv[3];  // linear acceleration of the link origin over the last step [m/s^2]
  double dw[3];  // angular acceleration over the last step [rad/s^2]
  // where the last step started (after any teleport it began with): dv = (v - vStart) / dt
  double vStart[3];  // linear velocity of the link origin [m/s]
  double wStart[3];  // angular velocity [rad/s]
  double RStart[9];  // orientation of the link frame
} hsdLinkMotion;

// motion of link `link` of character ch (valid after hsd_init / hsd_step)
const hsdLinkMotion *hsd_linkMotion(const hsdWorld *w, int ch, int link);

// OpenHRP's joint drive modes; on the root link HIGH_GAIN means "position given"
typedef enum hstJointMode { hsMODE_HIGH_GAIN = 0, hsMODE_TORQUE } hstJointMode;

// commands of one link pending for the next step (hsdInput.flags)
enum {
  hsdIN_Q = 1,     // joint value commanded (servoed joint)
  hsdIN_DQ = 2,    // joint velocity commanded (servoed joint)
  hsdIN_DDQ = 4,   // joint acceleration commanded (servoed joint)
  hsdIN_POSE = 8,  // root pose commanded (position-given free root; link 0 only)
  hsdIN_VEL = 16,  // root velocity commanded (position-given free root; link 0 only)
  hsdIN_EXT = 32   // external force pending
};

// what clients command a character to do; written by the setters below (which check every
// value), read by hsd_step, which clears the flags and the external forces after the step
typedef struct hsdInput {
  hstJointMode *mode;  // per link: drive mode (OpenHRP's setCharacterAllJointModes and
                       // POSITION_GIVEN both write it); links start in torque mode
  unsigned *flags;     // per link: hsdIN_* commands pending for the next step
  double *q;           // per link: commanded joint value [rad or m]
  double *dq;          // per link: commanded joint velocity
  double *ddq;         // per link: commanded joint acceleration
  double *u;           // per link: joint torque or force of a torque-mode joint, kept until
                       // changed [N m or N]
  double *ext;         // per link, 6 each: external force [N] and torque about the link origin
                       // [N m], world frame, for the next step only (zeros otherwise)
  double rootP[3], rootR[9];  // commanded root pose (hsdIN_POSE), world frame
  double rootV[3], rootW[3];  // commanded root velocity (hsdIN_VEL), world frame
} hsdInput;

// the input of character ch; owned by the world (write it through the setters only)
const hsdInput *hsd_input(const hsdWorld *w, int ch);

// inputs beyond this magnitude are refused (they can only overflow ODE, whose checks abort)
#define hsdMAX_VALUE 1e12

// 1 if all n values are finite and within +-hsdMAX_VALUE: what every setter below accepts
// (inline: a controller's setters ask it per joint every step)
static inline int hsd_sane(const double *v, int n) {
  for (int i = 0; i < n; i++) {
    if (!(fabs(v[i]) <= hsdMAX_VALUE)) {
      return 0;
    }
  }
  return 1;
}

// set a joint value / velocity / acceleration / torque of one link: any link but the root (an
// error), acting on 1-dof joints only. For a high-gain joint q/dq/ddq are commands for the next
// step; for a torque-mode joint q/dq teleport it and u drives it (ddq has no effect).
int hsd_setJointValue(hsdWorld *w, int ch, int link, double q, hsError *err);
int hsd_setJointVelocity(hsdWorld *w, int ch, int link, double dq, hsError *err);
int hsd_setJointAcceleration(hsdWorld *w, int ch, int link, double ddq, hsError *err);
int hsd_setJointTorque(hsdWorld *w, int ch, int link, double u, hsError *err);

// place a link's frame in the world (p, R row-major). For the root this moves the whole body:
// a position-given free root is commanded there (it moves there over the next step); any other
// root is teleported, its children following through forward kinematics at once. For another
// link it only writes that link's pose in the state (the next step or hsd_forwardKinematics
// recomputes it; the simulation does not move).
int hsd_setLinkPose(hsdWorld *w, int ch, int link, const double p[3], const double R[9],
                    hsError *err);

// set the linear and angular velocity of a link's frame origin: for a position-given free root
// a command (used when no pose is commanded), for a free root a teleport of its velocity
// (children follow with their dq); for another link nothing (it follows from the root and dq)
int hsd_setLinkVelocity(hsdWorld *w, int ch, int link, const double v[3], const double wv[3],
                        hsError *err);

// the drive mode of one link (the root too: high gain = position given) / of every link but
// the root (OpenHRP's setCharacterAllJointModes); a servo switched on holds where it is
int hsd_setJointMode(hsdWorld *w, int ch, int link, hstJointMode mode, hsError *err);
int hsd_setAllJointModes(hsdWorld *w, int ch, hstJointMode mode, hsError *err);
hstJointMode hsd_jointMode(const hsdWorld *w, int ch, int link);

// OpenHRP's POSITION_GIVEN: the same drive mode seen as a flag (given: high gain, else torque),
// so that the last of hsd_setAllJointModes and hsd_setPositionGiven wins; a given link (the
// root included) follows the commanded pose / joint value exactly
int hsd_setPositionGiven(hsdWorld *w, int ch, int link, int given, hsError *err);
int hsd_positionGiven(const hsdWorld *w, int ch, int link);

// force and torque applied to a link for the next step only, world frame; the torque is about
// the link frame's origin (not the centre of mass) [N, N m]. hsd_input shows it until the step.
int hsd_setExternalForce(hsdWorld *w, int ch, int link, const double f[3], const double t[3],
                         hsError *err);

// OpenHRP's calcCharacterInverseKinematics: move the joints on the path from base to target so
// that target's frame reaches (p [m], R rotation, world frame), keeping base where it is (see
// hsm_inverseKinematics, default options). Solved on a copy of the state: when the goal is
// reached the solution is applied as if set joint by joint (hsd_setJointValue: commands for
// servoed joints, teleports for the others) and through the root's pose (hsd_setLinkPose),
// and 1 is returned; when it is not, nothing changes and 0 is returned. hsE_INVALID (bad
// index, non-finite goal, R not a rotation) with err. No allocation.
int hsd_inverseKinematics(hsdWorld *w, int ch, int base, int target, const double p[3],
                          const double R[9], hsError *err);

// recompute the link poses in the state of character ch (ch < 0: every character) from its root
// pose and q. Between steps this only changes what the state shows: a step starts from the
// configuration the simulation has (for characters with joint dynamics, the ODE bodies').
void hsd_forwardKinematics(hsdWorld *w, int ch);

//---------------------------------- contacts --------------------------------------------------

// one contact point of the last step
typedef struct hsdContact {
  int pair;          // index of the registered contact pair
  int ch[2];         // characters
  int link[2];       // links
  double p[3];       // contact point, world frame [m]
  double n[3];       // normal, world frame, pointing from link[1] towards link[0]
  double depth;      // penetration depth [m]
  double force[3];   // force on link[0] at p, world frame [N] (link[1] gets the opposite)
} hsdContact;

// contacts of the last step, in deterministic order (grouped by link pair, pairs in
// registration order); *n receives the count
const hsdContact *hsd_contacts(const hsdWorld *w, int *n);

// the contacts of the last step between one pair of links (OpenHRP's Collision)
typedef struct hsdContactGroup {
  int pair;           // index of the registered contact pair
  int ch[2];          // characters
  int link[2];        // links
  int first, count;   // its points are hsd_contacts()[first .. first + count)
} hsdContactGroup;

// the last step's contacts grouped by link pair, in order of first appearance; *n receives the
// count (at most the number of contacts)
const hsdContactGroup *hsd_contactGroups(const hsdWorld *w, int *n);

// the last step's contact points on link `link` of character ch, 6 numbers each: the point,
// then the force on this link, world frame [m, N] (OpenHRP's CONSTRAINT_FORCE). Writes at most
// max points into out (may be NULL with max 0) and returns how many there are, or hsE_INVALID
// for a bad index.
int hsd_linkContacts(const hsdWorld *w, int ch, int link, double *out, int max);

// the registered pairs, contact pairs first, then intersection pairs (the numbering of
// hsd_checkIntersections): how many there are, and what pair `index` joins (link -1: every
// link of that character; tolerance: 0 for contact pairs). 0, or hsE_INVALID for a bad index.
int hsd_pairCount(const hsdWorld *w);
int hsd_pair(const hsdWorld *w, int index, int ch[2], int link[2], double *tolerance);

// check the registered contact and intersection pairs at the current poses (no step; pending
// teleports are applied first): 1 if any pair intersects (a link pair of an intersection pair
// counts when closer than the pair's tolerance). With hits non-NULL, fills up to maxHits
// pair indices (intersection pairs are numbered after contact pairs) and returns how many it
// filled; checkAll 0 stops at the first hit. hsE_INVALID before hsd_init (no geometry yet).
int hsd_checkIntersections(hsdWorld *w, int checkAll, int *hits, int maxHits);

// one intersecting link pair of a registered pair (hsd_intersectingLinks)
typedef struct hsdLinkHit {
  int pair;           // registered pair index (hsd_pair numbering)
  int ch[2], link[2];
  double tolerance;   // the registered pair's (0 for contact pairs)
} hsdLinkHit;

// the link pairs of the registered pairs (contact pairs first, then intersection pairs, each
// expanded in order) that intersect at the current poses (pending teleports applied first): a
// link pair of an intersection pair when closer than its tolerance; links of one rigid group of
// a character never. Writes at most max into out and returns how many there are (checkAll 0:
// stops at the first); hsE_INVALID before hsd_init.
int hsd_intersectingLinks(hsdWorld *w, int checkAll, hsdLinkHit *out, int max);

// the minimum distance of one link pair of a registered pair (hsd_checkDistances)
typedef struct hsdDistance {
  int pair;          // registered pair index (hsd_pair numbering: contact pairs, then
                     // intersection pairs)
  int ch[2], link[2];
  int empty;         // 1 if either link has no collision geometry (d is then -1, points 0)
  double d;          // distance [m]: > 0 apart, 0 touching, < 0 minus the penetration depth
                     // of solid primitives (collision/'s hscDistance)
  double p0[3];      // closest point on link[0], world frame [m]
  double p1[3];      // closest point on link[1], world frame [m]
} hsdDistance;

// minimum distance of every link pair of the registered pairs (contact pairs first, then
// intersection pairs, each expanded in order) at the current poses (pending teleports are
// applied first), from collision/ like the contacts. Writes at most max into out and returns
// the number of link pairs; hsE_INVALID before hsd_init, hsE_NOMEM.
int hsd_checkDistances(hsdWorld *w, hsdDistance *out, int max);

//---------------------------------- closed loops (extra joints) ------------------------------

// add an extra joint named name tying point p1 of link1 of character ch1 (link1 frame [m]) to
// point p2 of link2 of character ch2 (link2 frame), of type (hsEXTRA_XYZ, _XY, _Z) with axis in
// link1's frame (normalised here; ignored for xyz); the two links may belong to one character
// or two but must differ. Before hsd_init only. Names are unique among the loops touching a
// character. Returns the loop's index or hsE_INVALID with err. A model's own extra joints are
// added by hsd_addCharacter (both links in that character).
int hsd_addExtraJoint(hsdWorld *w, const char *name, int ch1, int link1, int ch2, int link2,
                      const double p1[3], const double p2[3], hstExtraJoint type,
                      const double axis[3], hsError *err);

// set which joint limits torque-mode joints obey (hsdOptions.jointLimits, hsLIMIT_* bits; others
// are hsE_INVALID) and turn rotor inertia on or off for an existing world; before hsd_init (or
// before calling it again) only
int hsd_setJointOptions(hsdWorld *w, int jointLimits, int rotorInertia, hsError *err);

// set only which joint limits torque-mode joints obey (hsLIMIT_* bits), as hsd_setJointOptions
int hsd_setJointLimits(hsdWorld *w, int jointLimits, hsError *err);

// replace w's engine and solver settings (the fields hsd_applySolverSettings writes) with
// opt's, the rest of w's options kept; before hsd_init only (hsE_ORDER after: nothing
// changed), hsE_INVALID for options a world cannot run with
int hsd_setSolver(hsdWorld *w, const hsdOptions *opt, hsError *err);

// w's options (read only; NULL for no world)
const hsdOptions *hsd_options(const hsdWorld *w);

// turn sleeping (hsdOptions.sleep) on or off for an existing world, at any time; off wakes
// every sleeping object. 0, or hsE_INVALID for no world.
int hsd_setSleep(hsdWorld *w, int on, hsError *err);

// 1 if character ch is asleep (sleeping on, its body at rest and not stepped), else 0
int hsd_sleeping(const hsdWorld *w, int ch);

// number of extra joints of the world (model ones and added ones, in order of addition)
int hsd_extraJointCount(const hsdWorld *w);

// index of the extra joint named name that touches character ch, or -1
int hsd_extraJointIndex(const hsdWorld *w, int ch, const char *name);

// name, characters and links of extra joint i (NULL name for a bad index)
const char *hsd_extraJointName(const hsdWorld *w, int i, int ch[2], int link[2]);

// what extra joint i transmitted during the last step: the force [N] (out[0..2]) and moment
// [N m] (out[3..5]) that link1's side exerts on link2 through the loop, world frame, moment
// about link2's attachment point where the step began (zero but for round-off: every extra
// joint is a point constraint). Zeros before the first step. 0, or hsE_INVALID for a bad index.
int hsd_extraJointForce(const hsdWorld *w, int i, double out[6]);

// how far apart extra joint i's two points are in its constrained directions at the state's
// link poses [m] (xyz: the distance; xy: across the axis; z: along it); -1 for a bad index
double hsd_extraJointError(const hsdWorld *w, int i);

// the component along the joint axis of the constraint wrench that the joint of link `link`
// exerts on the link during the last step (torque about the axis [N m] for rotate, force along
// it [N] for slide): the joint stop's reaction when the joint is at a limit, a high-gain
// motor's torque, a velocity-limited torque-mode joint's drive (hsLIMIT_VELOCITY: its motor),
// 0 otherwise (and for links without an ODE joint of their own)
double hsd_jointConstraintTorque(const hsdWorld *w, int ch, int link);

//---------------------------------- what sensors read -----------------------------------------

// the wrench that link `link` of character ch and everything beyond it exert on its parent
// through their joint during the last step (what a force sensor in that joint measures): force
// [N] (out[0..2]) and moment about point [N m] (out[3..5]), world frame. From the joint's
// constraint force (plus the torque a torque-mode joint added) where the link has an ODE joint
// of its own in a character with joint dynamics, from inverse dynamics of the step otherwise
// (computed for every link of a servoed character, and for the links that carry a force
// sensor). Zeros for a bad index. Sensor readings are sensors/' business: see sensors.h.
void hsd_jointWrench(const hsdWorld *w, int ch, int link, const double point[3], double out[6]);

// the world's one collision scene (scene body ch = character ch), every link at the pose its
// state holds, for read-only queries by others (range sensors' rays: sensors.h). The contacts,
// intersections and distances of the world itself ask the same scene at their own poses (a
// link on an ODE body where that body is, which can differ from the state in the last bits):
// it puts every link back at them before its next query. NULL before hsd_init or without
// characters. Owned by w; valid until the next call on w.
const hscScene *hsd_stateScene(hsdWorld *w);

//---------------------------------- joint-space engine (dynamics_jointspace.c) ---------------
//
// Reduced-coordinate forward dynamics of one character, beside the ODE world (issue 27): the
// root's 6 coordinates (free root) or none (any other root), then one per rotate or slide joint,
// in link order (so a dof's parent dof always has a smaller index); fixed and crawler joints
// weld. MuJoCo's split: an hsdJsModel (the character's constants, built once, read-only) and
// an hsdJsData (everything that changes, plus the phases' results). Spatial vectors are
// [angular; linear] in world axes about one reference point per step (the character's centre
// of mass at the position phase), so no transform is needed between links. A free root's
// velocity coordinates are its origin's linear velocity and its angular velocity, both world
// frame (hsdLinkMotion's v and w of the root); its orientation is integrated on SO(3) by the
// exponential map. Rotor inertia as OpenHRP's AIST engine (ForwardDynamicsMM, ABM): always
// rotorInertia * gearRatio^2 on the joint's own diagonal entry of the mass matrix, rotate and
// slide alike (its reaction never reaches the parent link). Joint damping is the URDF's
// <dynamics damping> (body info "urdf dynamics"), integrated implicitly.
//
// Cost per call, n links, nv dofs, d the depth of the dof tree: kinematics, velocities and bias
// forces (recursive Newton-Euler) O(n); mass matrix (composite rigid bodies) O(nv d);
// factorisation LDL^T over the tree's sparsity (Featherstone's LTDL: no fill-in) O(nv d^2);
// a solve O(nv d). The matrix is stored dense (nv^2 doubles: 1,296 for a 30-joint humanoid)
// but only the entries between a dof and its ancestors are ever touched; the factorisation
// works on them as compact rows (each dof's path, contiguous) and writes its factors back.

// the constants of one character in joint space; make with hsd_makeJsModel
typedef struct hsdJsModel {
  const hsBody *body;      // borrowed; must outlive the model
  int nv;                  // degrees of freedom
  int nroot;               // the root's: 6 for a free root, else 0
  const int *dofLink;      // per dof: the link it moves (the root's 6 all move link 0)
  const int *dofParent;    // per dof: the dof next towards the root, -1 for none
  const int *dofTop;       // per dof j: the first dof of the run of consecutive dofs ending at
                           // j in the tree (dofParent[x] = x - 1 for x in dofTop[j] + 1 .. j):
                           // j's ancestors, j first, are the runs e .. dofTop[e] for e = j,
                           // dofParent[dofTop[e]], ... until -1
  const int *dofLen;       // per dof: the length of its path to the root, itself included
  const int *dofAdr;       // nv + 1: where dof j's row starts in the factorisation's compact
                           // rows (its path from the root down to j, the diagonal last;
                           // dofLen[j] long, rounded up to even)
  const int *linkDof;      // per link: its own dof (the root: its first, 0), -1 if none
  const int *linkLastDof;  // per link: the last dof on the path from the root to the link
                           // inclusive, -1 if none (a welded subtree of a fixed root)
  const double *armature;  // per dof: rotorInertia * gearRatio^2 [kg m^2 or kg]; root 0
  const double *damping;   // per dof: viscous damping [N m s/rad or N s/m]; root 0
  int damped;              // 1 if any damping is non-zero
  const hsLink *links;     // per link: the mass, centre and inertia the engine uses: the body's
                           // links, or the model's own copy once hsd_setJsLinkMass changed one
  hsLink *own;             // owned: that copy (NULL: none)
} hsdJsModel;

// the state of one character in joint space and the results of the phases; make with
// hsd_makeJsData. Write the state (st's root pose and q, qvel), the inputs (qfrc, xfrc, g),
// then call the phases; everything else is written by them.
typedef struct hsdJsData {
  // state
  hsBodyState *st;    // owned: root pose, q per link (1-dof joints), link poses (FK)
  int posesCurrent;   // 1: st's link poses are already those of its root pose and q, so the
                      // position phase skips forward kinematics (once: it clears this)
  double *qvel;       // per dof: velocity (free root: v of its origin, then w; world frame)
  // inputs
  double *qfrc;       // per dof: applied generalized force: joint torque [N m] or force [N];
                      // root dofs: force [N] at its origin, then torque [N m], world frame
  double *xfrc;       // per link, 6 each: external force [N] and torque about the link origin
                      // [N m], world frame
  double g[3];        // gravitational acceleration, world frame [m/s^2]
  unsigned char *given;  // per dof: 1 if its acceleration is prescribed (high-gain joints, a
                         // position-given root): qaccGiven[dof] instead of the dynamics
  double *qaccGiven;  // per dof: the prescribed acceleration where given
  // position phase
  double c[3];        // reference point of the spatial vectors: the centre of mass [m]
  double mass;        // total mass [kg]
  double *cinert;     // per link, 13 each: mass, first moment m (x - c) [kg m], rotational
                      // inertia about c (9, world) [kg m^2]
  double *crb;        // per link, 13 each: the same summed over its subtree (composite body)
  double *cdof;       // per dof, 6 each: its motion subspace [angular; linear at c]
  double *M;          // nv x nv mass matrix, armature included (row-major, symmetric: both
                      // triangles of the tree's entries written; others 0)
  double *LD;         // nv x nv: its LDL^T factors (lower triangle, D on the diagonal), of
                      // M + dt B in a step with damping B (a free rigid body's: givenPath 3)
  // velocity phase
  double *cvel;       // per link, 6 each: spatial velocity [angular; linear at c]
  double *cdofDot;    // per dof, 6 each: time derivative of cdof
  double *qfrcBias;   // per dof: Coriolis, centrifugal and gravity forces (C qvel - tau_g)
  double *qfrcPassive;  // per dof: damping force -B qvel
  // acceleration phase
  double *qacc;       // per dof: acceleration (qaccGiven where given)
  double *qfrcGiven;  // per dof: the generalized force a given dof took beyond qfrc (inverse
                      // dynamics of the step's start: a high-gain joint's motor torque); 0
                      // for the others
  int *freeParent;    // per dof: the nearest dof above it that is not given (scratch)
  int *freeTop;       // per dof: the runs of the freeParent tree (as hsdJsModel.dofTop), its
  int *freeLen;       // paths' lengths (0 for a given dof) and its compact rows (nv + 1), as
  int *freeAdr;       // dofTop, dofLen, dofAdr: the factorisation's (scratch)
  double *Mc;         // M's lower triangle as compact rows of the model's tree (dofAdr: each
                      // dof's path from the root down to it), for the factorisation: written
                      // with M by the position phase (not saved with the state: that phase
                      // always comes first)
  double *fac;        // the factorisation's compact rows: M + dt B along each free dof's path
                      // to the root, factored in place, then copied into LD (scratch)
  double *cacc;       // per link, 6 each: spatial acceleration (scratch of the inverse)
  double *cfrc;       // per link, 6 each: spatial force (scratch of the inverse)
  int badPivots;      // pivots of the last factorisation raised to stay positive (a massless
                      // subtree): each makes that step's accelerations approximate
  int givenPath;      // the last step's path (hsd_jsStepVelocity): 0 the general one; 1 every
                      // joint given, the root free: the composite rigid body (M holds the
                      // root's 6 x 6 block alone, LD its factors); 2 every dof given: inverse
                      // dynamics alone (M and LD not written); 3 one free rigid body (nv 6, no
                      // joint, none given): Newton-Euler in closed form, M, cdofDot, qfrcBias
                      // not written, LD its own factors M = U^T D U (D on the diagonal, as
                      // the general ones: dynamics_jointspace.c's rigidAcceleration)
} hsdJsData;

// the joint-space description of body (borrowed): dofs, their tree, armature from the model's
// rotorInertia and gearRatio, damping from URDF dynamics info. NULL with err for a body the
// world would refuse (no links, not in tree order) or no memory. Free with hsd_freeJsModel.
hsdJsModel *hsd_makeJsModel(const hsBody *body, hsError *err);

// release a model; NULL is a no-op
void hsd_freeJsModel(hsdJsModel *m);

// make link k of m carry mass [kg] at com (link frame) with inertia (about com, link frame)
// instead of the body's (which stays as it is; m copies the links once); 0, or hsE_NOMEM
int hsd_setJsLinkMass(hsdJsModel *m, int k, double mass, const double com[3],
                      const double inertia[9], hsError *err);

// a state for m at the body's initial configuration, at rest, no inputs, gravity (0, 0, -9.8);
// NULL with err when out of memory. Free with hsd_freeJsData.
hsdJsData *hsd_makeJsData(const hsdJsModel *m, hsError *err);

// release a state; NULL is a no-op
void hsd_freeJsData(hsdJsData *d);

// everything of a joint-space data that carries from step to step (and the phases' results)
// appended to b (save != 0) or read back from it (dynamics_jointspace.c)
void hsd_jsDataBytes(const hsdJsModel *m, hsdJsData *d, hsuBytes *b, int save);

// position phase: link poses (FK), centre of mass, cinert, cdof, composite inertias and the
// mass matrix M (armature on its diagonal)
void hsd_jsPosition(const hsdJsModel *m, hsdJsData *d);

// velocity phase (after the position phase): cvel, cdofDot, bias forces by recursive
// Newton-Euler with zero acceleration (gravity included), damping forces
void hsd_jsVelocity(const hsdJsModel *m, hsdJsData *d);

// acceleration phase (after the velocity phase): factor M + dtImplicit B (B the damping;
// dtImplicit 0 for the continuous dynamics) and solve for qacc from qfrc, xfrc, the bias and
// the damping forces. With given dofs: their accelerations are qaccGiven, the others solve
// M_ff qacc_f = f_f - M_fg qaccGiven (the tree of the free dofs: still no fill-in), and
// qfrcGiven gets what the given dofs needed (OpenHRP's high gain: prescribed motion)
void hsd_jsAcceleration(const hsdJsModel *m, hsdJsData *d, double dtImplicit);

// the three phases in order: qacc of the continuous dynamics at the current state
void hsd_jsForward(const hsdJsModel *m, hsdJsData *d);

// inverse dynamics at the current state (after the velocity phase): the generalized force
// qfrc that gives acceleration qacc (nv) with the data's xfrc, gravity and damping, into out
// (nv): M qacc + bias - passive - J^T xfrc. Uses cacc and cfrc as scratch.
void hsd_jsInverse(const hsdJsModel *m, hsdJsData *d, const double *qacc, double *out);

// one semi-implicit Euler step of dt [s]: the phases (damping implicit: M + dt B), then
// qvel += dt qacc, q += dt qvel (the new one), a free root's position likewise and its
// orientation by exp(dt w) on the left; link poses left at the step's start (call
// hsd_jsPosition or hsm_forwardKinematics to see the new ones)
void hsd_jsStep(const hsdJsModel *m, hsdJsData *d, double dt);

// hsd_jsStep's first half: the three phases and qvel += dt qacc (the step's end velocity
// before any contact impulse); the factors of M (+ dt B) stay in d->LD for hsd_jsSolveM. When
// every joint is given (d->givenPath): one Newton-Euler pass at the given accelerations, a free
// root's 6 x 6 block of M factored and solved (the composite rigid body), the joints' forces
// completed without their rows of M (O(n): no CRBA, no LTDL of the whole M). A free rigid body
// (nv 6, no joint, none given; givenPath 3): Newton-Euler about its centre of mass in closed
// form, no M, its factors for hsd_jsSolveM and its halves in closed form too
void hsd_jsStepVelocity(const hsdJsModel *m, hsdJsData *d, double dt);

// f[j] += the generalized force given dof j takes, over dt [s], while the free dofs' velocities
// change from vstar (nv) to d->qvel by impulses (sum over free k of M[j][k] (qvel - vstar)[k]
// / dt), for every given j of the last hsd_jsStepVelocity (its composite path included)
void hsd_jsGivenReaction(const hsdJsModel *m, const hsdJsData *d, const double *vstar,
                         double dt, double *f);

// hsd_jsStep's second half: q, the root's pose, st->dq and st->ddq from qvel and qacc
void hsd_jsIntegrate(const hsdJsModel *m, hsdJsData *d, double dt);

// x = M^-1 x in place with the last hsd_jsAcceleration's factors (a solve, no inverse): over
// the dofs that were not given; a given dof's entry comes back 0 (an impulse cannot move it)
void hsd_jsSolveM(const hsdJsModel *m, const hsdJsData *d, double *x);

// hsd_jsSolveM's first half, M^-1 = L^-1 D^-1 L^-T with D LD's diagonal: x = D^-1 L^-T x in
// place (a given dof's entry 0). A contact's Jacobian row J^T stays on its path to the root,
// and J M^-1 J^T = Y^T D Y for Y = D^-1 L^-T J^T
void hsd_jsSolveMHalf(const hsdJsModel *m, const hsdJsData *d, double *x);

// hsd_jsSolveMHalf on nrhs vectors of nv side by side in x, each zero but on the path from dof
// last to the root (a contact's Jacobian rows on one link): the work and the results stay on
// the path; the same bits as hsd_jsSolveMHalf on each
void hsd_jsSolveMPath(const hsdJsModel *m, const hsdJsData *d, double *x, int nrhs, int last);

// hsd_jsSolveM's second half: x = L^-1 x in place; after hsd_jsSolveMHalf it gives
// hsd_jsSolveM's bits
void hsd_jsSolveMRest(const hsdJsModel *m, const hsdJsData *d, double *x);

// the joint-space engine's last contact solve in world w: its projected Gauss-Seidel sweeps
// and its last sweep's largest impulse change over the largest normal impulse (0 0 before any)
void hsd_jsContactStats(const hsdWorld *w, int *sweeps, double *change);

// the spatial momentum of the state the last velocity phase saw (after hsd_jsVelocity): the
// angular momentum about the centre of mass c (h[0..2], N m s) and the linear momentum (h[3..5],
// N s), world axes; rotor inertia (armature) not included
void hsd_jsMomentum(const hsdJsModel *m, const hsdJsData *d, double h[6]);

// kinetic energy 1/2 qvel' M qvel (armature included) and potential energy -sum m g.x of the
// state the last position phase saw, into e[0], e[1] [J] (after hsd_jsPosition)
void hsd_jsEnergy(const hsdJsModel *m, const hsdJsData *d, double e[2]);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_DYNAMICS_DYNAMICS_H_
