// core.h - hsSim: one simulation, the core under every door (the DynamicsSimulator servant,
// the scheduler, the in-process Python backend, the benches). The only header those include.
//
// A simulation owns its characters by name (each with the hsBody it borrows or owns), the time
// step and its bounds, simulated time and the step count, the started flag and the checks made
// before and after start, the step sequence (dynamics, then every character's sensor readings,
// then the range scans that are due, on the world's collision scene), the sensor option and
// noise, the registered pairs and extra joints; its whole state as bytes to save and restore bit
// for bit (hs_saveState, hs_restoreState); views of bodies for cameras (hsView); and a run over
// it (hsRun, at the end: the periodic events in whole steps and the log every door records the
// same way). Doors only convert their requests (IDL, Python) and call it; errors come back as
// hsErrors, with code hsE_ORDER for a call made in the wrong state (before or after start) and
// hsE_INVALID for bad arguments.
//
// Layers: core/ sits above dynamics/ and sensors/ (and sensors/render/ for cameras) and is the
// only library that calls hsd_* for a door (docs/architecture.md).
//
// For foreign-function bindings (cffi): only plain C types, opaque handles and hsError cross
// this header, which includes nothing but <stdint.h> (hsBody, hsError and the dynamics' result
// records are forward-declared; their layouts are in model.h, util.h and dynamics.h). No call
// needs a callback. Arrays returned as `const double *` belong to the simulation, hold the
// documented number of values, and stay valid (same address, contents updated in place) from
// the call that made the character until hs_freeSim: a binding may view them without copies.
// Writing through them would bypass the core: write through the setters.
//
// Threads: every function may be called from any thread. Each call that changes the simulation
// or runs a query takes the simulation's lock (a recursive mutex), and only that: simulations
// in one process step at the same time, each giving the bits it gives alone. What is really
// process-wide is locked where it is used (ODE's random generator, which QuickStep draws from,
// inside dynamics/; the GL context, sensors/render/); no such lock waits for a simulation's.
// Views, names, counts and the last step's contacts are read without locking: a door whose
// simulation other threads may step reads them under hs_lock / hs_unlock, which also makes a
// sequence of calls see one state (a log record; check-then-apply). A single-threaded user
// (the Python backend) needs no locking of its own. A pointer returned by a query stays valid,
// but its contents change at the next step, setter or query of the same kind.
//
// Bodies: hs_loadBody loads a model file exactly as the servers get it. The servers receive a
// BodyInfo over CORBA and rebuild the body (server/common/body_info.cpp: every attribute fills
// the model builder as a file front end does, then hsm_compile); the model keeps float where
// the wire carries float (vertices, normals, texture coordinates, specValues, primitive
// parameters) and double where it carries double, and the rotation matrices are computed by
// hsm_compile from the same axis-angle doubles on both paths, so nothing is rounded: the body
// the dynamics server simulates is bit for bit the body loaded in process with the
// ModelLoader's default options (loadBodyInfo: no texture images, default tessellation),
// which tests/unit/server/test_body_info.cpp asserts field by field (humanoid, arm, closed
// loop, crawler, textured room). No normalisation is needed. (A client that asks the
// ModelLoader for OpenHRP's bounding-box mode, loadBodyInfoEx with AABBdata, gets other
// shapes; hs_loadBody never does.)

#ifndef HRPSIM_CORE_CORE_H_
#define HRPSIM_CORE_CORE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- types -----------------------------------------------------

typedef struct hsSim hsSim;      // one simulation (opaque)
typedef struct hsBody hsBody;    // model.h: a loaded, read-only model
typedef struct hsError hsError;  // util.h: code, message, model file and line
// dynamics.h: records some queries return (plain structs; see there for the fields)
typedef struct hsdContact hsdContact;
typedef struct hsdContactGroup hsdContactGroup;
typedef struct hsdLinkHit hsdLinkHit;
typedef struct hsdDistance hsdDistance;
typedef struct hsdLinkMotion hsdLinkMotion;
typedef struct hsdOptions hsdOptions;

// what one link datum is, numbered as OpenHRP's DynamicsSimulator::LinkDataType (so a door
// converts by value); sizes per link in parentheses
typedef enum hstLinkData {
  hsDATA_INVALID = 0,
  hsDATA_POSITION_GIVEN,      // (1) 1 when the link is high gain ("position given"), else 0
  hsDATA_JOINT_VALUE,         // (1) [rad or m]
  hsDATA_JOINT_VELOCITY,      // (1)
  hsDATA_JOINT_ACCELERATION,  // (1)
  hsDATA_JOINT_TORQUE,        // (1) [N m or N]
  hsDATA_ABS_TRANSFORM,       // (12) link frame origin p[3] then R[9] row-major, world frame
  hsDATA_ABS_VELOCITY,        // (6) v[3] of the link origin, then w[3], world frame
  hsDATA_ABS_ACCELERATION,    // (6) dv[3], dw[3] over the last step, world frame (read only)
  hsDATA_EXTERNAL_FORCE,      // (6) force [N], torque about the link origin [N m], world frame
  hsDATA_CONSTRAINT_FORCE,    // (6 per contact point) point, force on this link (read only)
  hsDATA_NTYPES
} hstLinkData;

// sensor noise, bias and limits (sensors.h's model; beyond OpenHRP, off by default): for each
// sensor type t (hstSensor numbering) with active[t], every sensor of that type reads
// true + bias + std N(0, 1) per component (range: std[t][0], bias[t][0] for every beam);
// seed chooses the generators (the character index is the stream), limits clamps readings to
// the sensors' specValues maxima. Applies to force, rate gyro, accelerometer and range only.
#define HS_SENSOR_TYPES 5  // hsSENSOR_NTYPES (model.h)
typedef struct hsNoise {
  uint64_t seed;
  int limits;                        // 1: clamp to specValues (range: maxDistance)
  int active[HS_SENSOR_TYPES];       // per type: 1 to apply std and bias below
  double std[HS_SENSOR_TYPES][6];    // standard deviation per component [reading units]
  double bias[HS_SENSOR_TYPES][6];   // constant offset per component
} hsNoise;

//---------------------------------- process and bodies ----------------------------------------

// initialise ODE for this process and route its messages to hsu_log; idempotent and
// thread-safe (hs_makeSim calls it; a server's main may call it earlier)
void hs_initProcess(void);

// load a model file (.wrl, .urdf) as the ModelLoader serves it (see the file comment); a new
// body for the caller (free with hs_freeBody, or hand it to hs_addCharacter with own = 1).
// NULL with err (file, line and column for model errors).
hsBody *hs_loadBody(const char *path, hsError *err);

// the same with the texture images decoded (the ModelLoader's getBodyInfoEx with readImage:
// what a viewer, a replay and the cameras draw, the local back end's load; the dynamics never
// read the pixels)
hsBody *hs_loadBodyWithImages(const char *path, hsError *err);

// release a body from hs_loadBody; NULL is a no-op
void hs_freeBody(hsBody *body);

// the parts of an MJCF scene file (model.h's hsm_mjcfScene): its top-level bodies' names, each
// NUL-terminated, one after another in names[size]; *worldGeoms 1 when its worldbody has geoms
// of its own. Returns the number of bodies, or a negative hstError code with err filled.
int hs_mjcfScene(const char *path, char *names, size_t size, int *worldGeoms, hsError *err);

//---------------------------------- make / free -----------------------------------------------

// a new, empty simulation: time step 1 ms, gravity 9.8 m/s^2 towards -z, sensors off, no
// noise, not started. NULL with err (no memory). Free with hs_freeSim.
hsSim *hs_makeSim(hsError *err);

// the same with the dynamics' tunables (dynamics.h, hsd_defaultOptions; NULL: the defaults,
// which the servers use): for benches and studies of the solver
hsSim *hs_makeSimWith(const hsdOptions *opt, hsError *err);

// free a simulation and the bodies it owns; NULL is a no-op. No call may be in progress.
void hs_freeSim(hsSim *sim);

// take / release the simulation's lock (recursive) around several calls that must see one
// state; every function takes it by itself too
void hs_lock(const hsSim *sim);
void hs_unlock(const hsSim *sim);

//---------------------------------- set-up (before hs_start) ----------------------------------

// add a character named name (unique, not empty) for body. own = 1: the simulation takes the
// body whatever happens (freed with the simulation, or at once when this call fails); own = 0:
// borrowed, it must outlive the simulation. One body may serve several characters (copies of a
// robot): at most one of them owns it. Returns the character's index (0, 1, ... in order
// of addition), or hsE_ORDER after start, hsE_INVALID (empty or duplicate name, bad body, a bad
// extra joint in it), hsE_NOMEM, with err.
int hs_addCharacter(hsSim *sim, const char *name, hsBody *body, int own, hsError *err);

// hs_addCharacter's check of the name alone: 0 if name can name a new character of sim (not
// NULL, not empty, not taken), else hsE_INVALID with err. For a door that checks before it
// reads the body (a remote BodyInfo, a model to load); hs_addCharacter checks it again.
int hs_checkCharacterName(const hsSim *sim, const char *name, hsError *err);

// register a pair of links that touch: character and link names, link "" meaning every link
// of that character (the same character twice: self-collision). Frictions >= 0, restitution in
// [0, 1], culling threshold >= 0 [m]. hsE_ORDER after start; hsE_INVALID with err.
int hs_addContactPair(hsSim *sim, const char *char1, const char *link1, const char *char2,
                      const char *link2, double staticFriction, double slipFriction,
                      double restitution, double cullingThresh, hsError *err);

// register a pair for intersection and distance checks only (no forces); names as above,
// tolerance [m] >= 0
int hs_addIntersectionPair(hsSim *sim, const char *char1, const char *link1, const char *char2,
                           const char *link2, double tolerance, hsError *err);

// add an extra joint (closed loop) named name tying point p1 of link1 (link1 frame [m]) to p2
// of link2 (link2 frame); type 0 xyz, 1 xy, 2 z (hstExtraJoint; hs_extraJointTypeName) with
// axis in link1's frame.
// Returns its index among the extra joints (the bodies' own come first), or a negative code.
int hs_addExtraJoint(hsSim *sim, const char *name, const char *char1, const char *link1,
                     const char *char2, const char *link2, const double p1[3],
                     const double p2[3], int type, const double axis[3], hsError *err);

// which joint limits torque-mode joints obey (jointLimits: a set of hsLIMIT_* bits, 1 position,
// 2 velocity, 4 effort, 7 all; 0 none) and rotor inertia on (1) or off (0)
int hs_setJointOptions(hsSim *sim, int jointLimits, int rotorInertia, hsError *err);

// which joint limits torque-mode joints obey (hsLIMIT_* bits, as hs_setJointOptions), leaving
// rotor inertia as it is
int hs_setJointLimits(hsSim *sim, int jointLimits, hsError *err);

// the engine ("ode" or "joint_space"; NULL or "": unchanged) and n solver settings by name
// with their values as text (names[k] = values[k]: "stepper" = "quick", "iterations" = "30";
// the list and ranges: dynamics.h's hsd_applySolverSettings, docs/servers.md). Settings not
// named keep their values. Checked once, in dynamics/: an unknown name, a setting of the other
// engine, a value out of range is hsE_INVALID with err naming it; after start hsE_ORDER;
// either way nothing changes.
int hs_setSolver(hsSim *sim, const char *engine, int n, const char *const *names,
                 const char *const *values, hsError *err);

// the simulation's engine: "ode" or "joint_space"
const char *hs_engine(const hsSim *sim);

// solver setting name's current value as text (as hs_setSolver takes it; doubles in %.17g,
// read back exactly) into value[len]; hsE_INVALID with err for an unknown name
int hs_solverSetting(hsSim *sim, const char *name, char *value, int len, hsError *err);

// sleeping on (1) or off (0; the default, OpenHRP's behaviour): free rigid objects at rest stop
// being stepped until something touches them (hsdOptions.sleep). Any time; off wakes them all.
int hs_setSleep(hsSim *sim, int on, hsError *err);

// 1 if character index ch is asleep (sleeping on, at rest, not stepped), else 0
int hs_sleeping(hsSim *sim, int ch);

//---------------------------------- options (any time) ----------------------------------------

// the time step [s]: within [hs_minTimeStep(), hs_maxTimeStep()], else hsE_INVALID. Takes
// effect at the next step.
int hs_setTimeStep(hsSim *sim, double dt, hsError *err);
double hs_timeStep(const hsSim *sim);

// the integration method, OpenHRP's IntegrateMethod: 0 EULER (the default), 1 RUNGE_KUTTA (a
// fourth-order step on the joint-space engine, the step's contact impulses held; Euler on the
// ODE engine); another value is hsE_INVALID. Takes effect at the next step.
int hs_setIntegrateMethod(hsSim *sim, int method, hsError *err);
int hs_integrateMethod(const hsSim *sim);

// the bounds of the time step [s] (1e-6 and 1: ODE asserts on sub-normal steps)
double hs_minTimeStep(void);
double hs_maxTimeStep(void);

// gravitational ACCELERATION, world frame [m/s^2] (finite); OpenHRP's setGVector(0, 0, 9.8)
// is (0, 0, -9.8) here
int hs_setGravity(hsSim *sim, const double g[3], hsError *err);
void hs_gravity(const hsSim *sim, double g[3]);

// sensor readings computed (1) or all zero (0, OpenHRP's DISABLE_SENSOR; range sensors then
// report no beams)
void hs_enableSensors(hsSim *sim, int on);
int hs_sensorsEnabled(const hsSim *sim);

// sensor noise (hsNoise above), taking effect at the next start (every start restarts the
// generators). hsE_INVALID for a bad spec (nothing changed); *hs_noise is the current one.
int hs_setNoise(hsSim *sim, const hsNoise *noise, hsError *err);
const hsNoise *hs_noise(const hsSim *sim);

//---------------------------------- running ---------------------------------------------------

// build the simulation from the current states (called again: restart from them, time and
// steps back to 0); the readings of step 0 are computed. 0, or a negative code with err.
int hs_start(hsSim *sim, hsError *err);
int hs_started(const hsSim *sim);

// one step: dynamics, then every character's sensor readings, then the range scans due.
// hsE_ORDER before start. hsE_RUNAWAY when a character ran away (the step was made; see
// hs_runaway); other negative codes with err.
int hs_step(hsSim *sim, hsError *err);

// n steps (stops at the first that fails, returning its code)
int hs_stepN(hsSim *sim, long long n, hsError *err);

// simulated time [s] (time += dt per step) and steps since start
double hs_time(const hsSim *sim);
long long hs_steps(const hsSim *sim);

// the character whose runaway the last step reported (hsE_RUNAWAY), -1 if none
int hs_runaway(const hsSim *sim);

// the runaway bounds of every step: a moving body's |position| [m] and |velocity| [m/s and
// rad/s]; beyond them (or non-finite) its character ran away
double hs_runawayMaxPosition(void);
double hs_runawayMaxSpeed(void);

// the one wording of a runaway, for every door (hs_step's hsE_RUNAWAY message is it): "character
// NAME ran away WHEN step STEPS: ..." with the bounds; when "before" / "after", NULL "by". Into
// out (size bytes, truncated); returns the untruncated length
int hs_runawayMessage(char *out, int size, const char *name, const char *when, long long steps);

// numerical warnings counted so far (contact overflow, runaways, ...)
int hs_warningCount(const hsSim *sim);

//---------------------------------- save and restore ------------------------------------------
// A simulation's whole state as bytes (MuJoCo's mj_getState): simulated time and steps, every
// character's coordinates, velocities and step history, commands pending and kept, the ODE
// bodies bit for bit, the solver's warm start (the joint-space engine's contact impulses; ODE
// 0.16's QuickStep keeps none, its random seed is saved), sleep counters, extra joints'
// feedback, the time step, gravity and solver options, the sensor option, noise settings and
// generators, held range scans, and what the world was built from at the start. A simulation
// restored from a state saved after step k steps on exactly as the saved one did, bit for bit,
// on either engine (core/core_state.c, dynamics/dynamics_state.c say how).
// Format: versioned, for this build's record layout, with a checksum and the identity of the
// simulation (characters' names and bodies, pairs, extra joints): a state restores only into
// a simulation made the same way (the same model files, registrations and characters in the
// same order), started or not.

// the state into buf (size bytes): returns its length, writing it only when size is enough
// (call with buf NULL to ask); hsE_ORDER before start, hsE_NOMEM, with err
long long hs_saveState(hsSim *sim, void *buf, long long size, hsError *err);

// continue from a state hs_saveState wrote (buf, size bytes; copied, the caller keeps buf).
// hsE_INVALID with err naming the first difference when the state is not for this simulation
// (another format version or build, a damaged state, another character or body, other pairs
// or extra joints): then nothing changed. Afterwards the simulation is started, at the
// state's time and step count.
int hs_restoreState(hsSim *sim, const void *buf, long long size, hsError *err);

//---------------------------------- simulated time --------------------------------------------
// The one rule that turns periods and end times into whole steps, for every door (the
// scheduler's controllers, log and execution contexts; Python's). Tolerance: relative, 1e-9
// of the period, so the rule does not depend on units or on how small the step is (an
// absolute 1e-9 s would be 0.1 % of the smallest time step).

// period [s] as a whole number of steps of dt: the count, or 0 when the period is not finite
// and positive or not a whole multiple of dt to within 1e-9 of the period
long long hs_periodSteps(double period, double dt);

// the first step count at which simulated time reaches t [s] (1e-9 steps of slack for the
// rounding of t / dt); 0 for t <= 0, LLONG_MAX for a time beyond 9e18 steps
long long hs_stepsToReach(double t, double dt);

//---------------------------------- names and bodies ------------------------------------------

int hs_characterCount(const hsSim *sim);
// the name / body of character ch (NULL for a bad index); owned by the simulation
const char *hs_characterName(const hsSim *sim, int ch);
const hsBody *hs_body(const hsSim *sim, int ch);

// index of the character called name; -1 with err naming the characters there are
int hs_character(const hsSim *sim, const char *name, hsError *err);
// index of the link (or joint: a link is named by its joint) called name of character ch;
// -1 with err (also for "")
int hs_link(const hsSim *sim, int ch, const char *name, hsError *err);
// index into the body's sensors of the sensor called name; -1 with err
int hs_sensor(const hsSim *sim, int ch, const char *name, hsError *err);

// the body's sizes and names, for bindings that do not read hsBody: links, the length of
// jointId-ordered arrays (largest jointId + 1, gaps included: not a count of joints), link
// names, parents (-1 for the root), 1 if link l has a 1-dof joint (rotate or slide: what joint
// data drive), and per jointId the link (-1: a gap)
int hs_linkCount(const hsSim *sim, int ch);
int hs_jointIdCount(const hsSim *sim, int ch);
const char *hs_linkName(const hsSim *sim, int ch, int link);
int hs_linkParent(const hsSim *sim, int ch, int link);
int hs_hasJoint(const hsSim *sim, int ch, int link);
const int *hs_jointLinks(const hsSim *sim, int ch);
// link l's joint type as OpenHRP's LinkInfo.jointType names it ("free", "rotate", "slide",
// "fixed", "crawler"; the root's "fixed": welded to the world); a static string, NULL for a
// bad index
const char *hs_jointType(const hsSim *sim, int ch, int link);

//---------------------------------- state (views) ---------------------------------------------
// Per link of character ch (link index order, hs_linkCount(ch) = n entries): the state the
// last step or teleport left. NULL for a bad index.

const double *hs_q(const hsSim *sim, int ch);      // n joint values [rad or m] (0: no joint)
const double *hs_dq(const hsSim *sim, int ch);     // n joint velocities
const double *hs_ddq(const hsSim *sim, int ch);    // n joint accelerations
const double *hs_u(const hsSim *sim, int ch);      // n joint torques / forces (applied)
const double *hs_linkP(const hsSim *sim, int ch);  // 3 n: link origins, world frame [m]
const double *hs_linkR(const hsSim *sim, int ch);  // 9 n: link rotations, row-major
// n link motions (velocities, accelerations, where the step started; dynamics.h)
const hsdLinkMotion *hs_linkMotions(const hsSim *sim, int ch);
// n x 6 external forces pending for the next step (force, torque about the link origin)
const double *hs_externalForces(const hsSim *sim, int ch);
// n commanded torques of torque-mode joints (kept until changed)
const double *hs_torqueCommands(const hsSim *sim, int ch);

//---------------------------------- link data (OpenHRP's semantics) ---------------------------

// numbers per link of a datum (0 for CONSTRAINT_FORCE and invalid types) and OpenHRP's name
int hs_linkDataSize(int type);
const char *hs_linkDataName(int type);

// write one link's datum (n = hs_linkDataSize(type) finite numbers; ABS_TRANSFORM's R a
// rotation to 1e-6). High-gain joints and a position-given root take it as the next step's
// command; anything else that moves under dynamics is teleported (dynamics.h). Before start
// it sets the initial state. Nothing changes on error.
int hs_setLinkData(hsSim *sim, int ch, int link, int type, const double *v, int n,
                   hsError *err);

// write every numbered link's datum in jointId order (n = hs_jointIdCount(ch) x size); joint
// data skip links without a 1-dof joint (a crawler takes JOINT_TORQUE / JOINT_VELOCITY as its
// track speed); the whole request is checked first (hs_checkAllLinkData): a refused one
// changes nothing
int hs_setAllLinkData(hsSim *sim, int ch, int type, const double *v, int n, hsError *err);

// the check of hs_setAllLinkData alone (nothing written): a writable type, n numbers, each
// finite and within +-1e12 (every one, also those a link without a 1-dof joint ignores),
// rotations that are ones; 0, or hsE_INVALID with err naming the character, link and value
int hs_checkAllLinkData(const hsSim *sim, int ch, int type, const double *v, int n,
                        hsError *err);

// read one link's datum into out (max numbers): returns how many there are (may exceed max:
// CONSTRAINT_FORCE has 6 per contact point of the last step), or a negative code with err
int hs_getLinkData(const hsSim *sim, int ch, int link, int type, double *out, int max,
                   hsError *err);

// read every numbered link's datum, jointId order (a gap reads zeros, an identity transform);
// returns how many numbers (not CONSTRAINT_FORCE)
int hs_getAllLinkData(const hsSim *sim, int ch, int type, double *out, int max, hsError *err);

// the drive mode of every link but the root: 1 high gain, 0 torque
int hs_setAllJointModes(hsSim *sim, int ch, int highGain, hsError *err);

// joint values / torques of character ch indexed BY LINK (n = hs_linkCount, link index
// order, not jointId order; links without a 1-dof joint ignored) as if set with JOINT_VALUE /
// JOINT_TORQUE link by link: the fast path for loops; every value is checked first (finite,
// within +-1e12): a refused call changes nothing
int hs_setJointValuesByLink(hsSim *sim, int ch, const double *q, int n, hsError *err);
int hs_setJointTorquesByLink(hsSim *sim, int ch, const double *u, int n, hsError *err);

//---------------------------------- kinematics ------------------------------------------------

// OpenHRP's calcCharacterInverseKinematics: 1 when target reached (p, R row-major, world
// frame; applied), 0 when not (nothing changed), negative with err
int hs_inverseKinematics(hsSim *sim, int ch, int base, int target, const double p[3],
                         const double R[9], hsError *err);

// recompute link poses from the root pose and joint values (ch < 0: every character)
void hs_forwardKinematics(hsSim *sim, int ch);

// the 6 x m Jacobian (row-major, m joints on the path) of target relative to base at the
// current state into out (max numbers): returns 6 m, or a negative code with err
int hs_jacobian(const hsSim *sim, int ch, int base, int target, double *out, int max,
                hsError *err);

//---------------------------------- contacts, intersections, distances ------------------------

// the last step's contact points (grouped by link pair) and the groups; *n the count; owned by
// the simulation, valid until the next step
const hsdContact *hs_contacts(const hsSim *sim, int *n);
const hsdContactGroup *hs_contactGroups(const hsSim *sim, int *n);

// the registered pairs (contact pairs first, then intersection pairs): how many, and what pair
// i joins (link -1: every link; tolerance 0 for contact pairs)
int hs_pairCount(const hsSim *sim);
int hs_pair(const hsSim *sim, int i, int ch[2], int link[2], double *tolerance);

// the registered pairs that intersect at the current poses (link poses from the joint values
// first, as OpenHRP): their indices, all or the first (checkAll 0); *n the count. hsE_ORDER
// before start (NULL). Owned by the simulation, valid until the next such query.
const int *hs_checkIntersections(hsSim *sim, int checkAll, int *n, hsError *err);

// the intersecting link pairs (dynamics.h hsdLinkHit), as above
const hsdLinkHit *hs_intersectingLinks(hsSim *sim, int checkAll, int *n, hsError *err);

// the minimum distance of every link pair of the registered pairs, as above
const hsdDistance *hs_distances(hsSim *sim, int *n, hsError *err);

//---------------------------------- extra joints and logging records --------------------------

// number of extra joints; index of the one named name touching character ch (-1 with err
// naming the ones it has); name and characters of joint i (NULL for a bad index)
int hs_extraJointCount(const hsSim *sim);
// the name of extra joint type t (hstExtraJoint: "xyz", "xy", "z"; the models' jointType
// words, model/model_names.c), NULL past the last: the one table of the types
const char *hs_extraJointTypeName(int type);
int hs_extraJoint(const hsSim *sim, int ch, const char *name, hsError *err);
const char *hs_extraJointName(const hsSim *sim, int i, int ch[2]);

// force [N] then moment [N m] that link1's side exerts on link2 through extra joint i during
// the last step, world frame (out[6]); 0 or hsE_INVALID
int hs_extraJointForce(const hsSim *sim, int i, double out[6]);

// per jointId (hs_jointIdCount numbers): the joint-stop / high-gain motor torque along the axis
// during the last step (0 for the root and gaps); returns the count
int hs_jointStopTorques(const hsSim *sim, int ch, double *out, int max);

// the crawler links of character ch (links into out, max of them): returns how many; each
// one's track speed is hs_u(sim, ch)[link]
int hs_tracks(const hsSim *sim, int ch, int *links, int max);

//---------------------------------- sensors ---------------------------------------------------

// the per-type facts (one table, model/model_names.c: hsm_sensorType): OpenHRP's type string
// ("Force", "RateGyro", "Acceleration", "Vision", "Range"), hrpsim's short name (log keys and
// noise specs: "force", "gyro", "accel", "vision", "range"), numbers per reading (-1: per
// sensor, range beams; 0: none, vision), the place of the type's block in SensorState (force,
// rateGyro, accel, range: 0..3; -1: not there), and whether noise applies (1) or not (0).
// type in hstSensor numbering, 0 .. HS_SENSOR_TYPES - 1; NULL / -1 / 0 when bad.
const char *hs_sensorTypeName(int type);
const char *hs_sensorTypeKey(int type);
int hs_sensorTypeSize(int type);
int hs_sensorTypeOrder(int type);
int hs_sensorTypeNoisy(int type);

// the body's sensors: how many, and sensor s's name, type (hstSensor), id (sensorId)
int hs_sensorCount(const hsSim *sim, int ch);
const char *hs_sensorName(const hsSim *sim, int ch, int s);
int hs_sensorType(const hsSim *sim, int ch, int s);
int hs_sensorId(const hsSim *sim, int ch, int s);

// the sensors of one type as indices into the body's sensors, in sensorId order (SensorState's
// order); *n the count
const int *hs_sensorsOfType(const hsSim *sim, int ch, int type, int *n);

// the reading of sensor s (a view, *n numbers: force 6, gyro and accelerometer 3, range its
// beams): the last step's, or zeros while sensors are disabled (range: *n = 0). NULL and
// *n = 0 for a bad index or a vision sensor.
const double *hs_reading(const hsSim *sim, int ch, int s, int *n);

//---------------------------------- cameras ---------------------------------------------------

// the image size of vision sensor s (width, height [pixels]); hsE_INVALID for another sensor
int hs_cameraSize(const hsSim *sim, int ch, int s, int *width, int *height, hsError *err);

// the camera type of vision sensor s (OpenHRP's Camera::CameraType: 0 none, 1 color, 2 mono,
// 3 depth, 4 color + depth, 5 mono + depth) and its frame rate [1/s]; -1 / 0 for another sensor
int hs_cameraType(const hsSim *sim, int ch, int s);
double hs_cameraFrameRate(const hsSim *sim, int ch, int s);

// the images a camera type makes (a set of the bits below, render.h's hsrIMAGE_*, from its
// table hsr_cameraImages; 0 for none or a bad type): COLOR and COLOR_DEPTH colour, MONO and
// MONO_DEPTH mono, DEPTH and the two *_DEPTH depth
enum { hsIMAGE_COLOR = 1, hsIMAGE_MONO = 2, hsIMAGE_DEPTH = 4 };
int hs_cameraImages(int type);

// the luminance of n RGB pixels into mono, as the ViewSimulator makes mono images:
// (0.299 R + 0.587 G + 0.114 B) truncated to a byte
void hs_rgbToMono(unsigned char *mono, const unsigned char *rgb, int n);

// render vision sensor s at the current link poses through the simulation's view (below: every
// character, drawn with the body it was registered with, textures included when that body was
// loaded with images): rgb (width x height x 3 bytes, rows top first) and depth (width x height
// floats [m]) may each be NULL. hsE_UNSUPPORTED when there is no headless GL.
int hs_renderCamera(hsSim *sim, int ch, int s, unsigned char *rgb, float *depth, hsError *err);

//---------------------------------- the run ---------------------------------------------------
// A run (hsRun) is what every door used to loop over by itself: the periodic events of one run
// of a started simulation, in whole steps by the rules above, and its log. Events: ticks (a
// controller's or an execution context's period: due before the step that starts at a count
// k with k % periodSteps == 0), frame streams (a camera's or a viewer's rate: frame n is due at
// step count hs_frameStep(n, rate, dt)), log records (after every step whose count is a
// multiple of the log period's steps, and the door's record at count 0) and the end (the first
// count at which the end time is reached, at least 1). A door asks what is due, does its part
// (its controllers, its frames) and steps through the run, which records the log as it goes.
//
// The log is the core's, in one format for every door: each record is hs_runRecordSize
// doubles (blocks at hs_runOffset, below), plus the record's contacts (hsdContact /
// hsdContactGroup as hs_contacts gives them; a group's first counts from the record's first
// point) and, with sensors logged, its range scans. The arrays returned by the readers belong
// to the run and stay valid until the next record; a door whose run another thread steps reads
// them under hs_lock (a record takes the simulation's lock).

typedef struct hsRun hsRun;  // one run over a simulation (opaque)

// the blocks of a log record (hs_runOffset): sizes per character in parentheses (jointId
// arrays hs_jointIdCount long, 0 for a gap; sensors in sensorId order of their type)
typedef enum hstRunBlock {
  hsRUN_TIME = 0,     // (1, once) simulated time [s]
  hsRUN_LINK_P,       // (3 per link) link origins, world frame [m]
  hsRUN_LINK_R,       // (9 per link) link rotations, row-major
  hsRUN_Q,            // (per jointId) joint values; logged sensors only
  hsRUN_DQ,           // (per jointId) joint velocities; logged sensors only
  hsRUN_U,            // (per jointId) joint torques; logged sensors only
  hsRUN_FORCE,        // (6 per force sensor) logged sensors only
  hsRUN_GYRO,         // (3 per rate gyro) logged sensors only
  hsRUN_ACCEL,        // (3 per accelerometer) logged sensors only
  hsRUN_JOINT_STOPS,  // (per jointId) hs_jointStopTorques
  hsRUN_TRACKS,       // (1 per crawler link, hs_tracks order) track speed
  hsRUN_LOOP,         // (6, per extra joint: which is its index) hs_extraJointForce
  hsRUN_PUSH,         // (8, once) the push of the last step: character (-1: none), link,
                      // wrench (force [N], torque about the link origin [N m], world frame)
  hsRUN_NBLOCKS
} hstRunBlock;

// the step count at which frame n of a stream at rate [1/s] is due: hs_stepsToReach(n / rate,
// dt), the one rule for cameras and viewers (frame 0 at count 0)
long long hs_frameStep(long long n, double rate, double dt);

// a run of sim (started; borrowed, it must outlive the run) from its current step count:
// endTime [s] (<= 0: none), logPeriod [s] (0: every step; else a whole multiple of the time
// step), logSensors 1 to log joint arrays and sensor readings. NULL with err (hsE_ORDER before
// start, hsE_INVALID for a bad period, hsE_NOMEM). Free with hs_freeRun.
hsRun *hs_makeRun(hsSim *sim, double endTime, double logPeriod, int logSensors, hsError *err);

// free a run and its log; NULL is a no-op
void hs_freeRun(hsRun *run);

// the run's end step count (0: none), steps per log record, and its simulation
long long hs_runEndSteps(const hsRun *run);
long long hs_runLogSteps(const hsRun *run);
hsSim *hs_runSim(const hsRun *run);

// declare a tick every period [s] (a whole multiple of the time step): its index (0, 1, ...
// in order of declaration), or hsE_INVALID with err naming the period
int hs_runAddTick(hsRun *run, double period, hsError *err);
// tick i's period in steps (0 for a bad index); 1 when it is due before the step from count k
long long hs_runTickSteps(const hsRun *run, int i);
int hs_runTickDue(const hsRun *run, int i, long long k);

// declare a frame stream at rate [1/s] (0: none for now): its index, or hsE_INVALID; the rate
// may change during the run (hs_runSetFrameRate; a stream's frames follow from the rate alone)
int hs_runAddFrames(hsRun *run, double rate, hsError *err);
int hs_runSetFrameRate(hsRun *run, int i, double rate, hsError *err);
// the frame of stream i due at step count k (the first one not due before k: when several
// fall within one step, the others are skipped), or -1 when none is due at k or the stream is off
long long hs_runFrameDue(const hsRun *run, int i, long long k);

// the first step count after k at which a tick or a frame is due, or the end (LLONG_MAX: none)
long long hs_runNextEvent(const hsRun *run, long long k);

// set the push the next steps apply, for the log (ch -1: none; wrench as hsRUN_PUSH)
void hs_runSetPush(hsRun *run, int ch, int link, const double wrench[6]);

// one step (hs_step; its code), noting the time it starts from (hs_runStepStart). The door
// then does its part of the step (execution contexts, controllers' output) and calls
// hs_runLog, so that the record sees what that part wrote.
int hs_runStep(hsRun *run, hsError *err);

// the log record of the current step count when it is a log step (hs_runRecord), else nothing
int hs_runLog(hsRun *run, hsError *err);

// from a count at which no tick is due (the door's part there done), steps and logs (hs_runStep
// then hs_runLog) until the count reaches until, the end, or a count at which a tick or a frame
// is due (hs_runNextEvent): the door's turn. 0, or the first failing step's code (the steps
// before it made and logged).
int hs_runAdvance(hsRun *run, long long until, hsError *err);

// the simulated time [s] the last step made by the run started from (for failure messages)
double hs_runStepStart(const hsRun *run);

// append the simulation's current state to the log as one record (the door's record at count
// 0; hs_runStep makes the others). 0, or hsE_NOMEM with err (the log is unchanged).
int hs_runRecord(hsRun *run, hsError *err);

// the log: records so far, doubles per record, and the records (count x size, row-major)
long long hs_runRecordCount(const hsRun *run);
int hs_runRecordSize(const hsRun *run);
const double *hs_runRecords(const hsRun *run);

// where block starts in a record (doubles), for character ch (hsRUN_LOOP: extra joint ch;
// ignored for TIME and PUSH); -1 when the block is not logged or ch is bad
int hs_runOffset(const hsRun *run, int block, int ch);

// every record's contacts one after another (*n points / groups in all), and per record r
// its first point at index[2 r], its first group at index[2 r + 1] (2 count + 2 numbers: the
// totals close the list)
const hsdContact *hs_runContacts(const hsRun *run, long long *n);
const hsdContactGroup *hs_runContactGroups(const hsRun *run, long long *n);
const long long *hs_runContactIndex(const hsRun *run);

// logged range sensors (characters in order, each one's in sensorId order; 0 without logged
// sensors), and every record's scans one after another (*n numbers in all): scan j of record r
// starts at index[r * count + j] (count x records + 1 numbers: the total closes the list)
int hs_runRangeCount(const hsRun *run);
const double *hs_runRanges(const hsRun *run, long long *n);
const long long *hs_runRangeIndex(const hsRun *run);

//---------------------------------- views -----------------------------------------------------
// An hsView is bodies drawn for cameras and stills, the one code that builds a render scene and
// draws a camera from its sensor: a simulation's cameras use one (hs_renderCamera), the
// ViewSimulator servants and the scheduler's cameras wrap one each. Every view draws with the
// process's one headless GL context (sensors/render/, made on first use, serialised by its own
// lock, taken after the caller's). A view is not locked: one thread at a time.

typedef struct hsView hsView;

// an empty view (touches no GL yet); NULL with err when out of memory. Free with hs_freeView.
hsView *hs_makeView(hsError *err);

// release a view and its GPU objects; NULL is a no-op
void hs_freeView(hsView *view);

// add body (borrowed: it must outlive the view) at its initial configuration: its visual shapes,
// with their texture images when it was loaded with them (hs_loadBodyWithImages). Returns its
// index in the view (0, 1, ...) or a negative code with err (hsE_UNSUPPORTED: no headless GL).
int hs_viewAddBody(hsView *view, const hsBody *body, hsError *err);

// number of bodies in the view
int hs_viewBodyCount(const hsView *view);

// set body b's link poses (3 + 9 per link, world frame, as hs_linkP / hs_linkR); 0, or
// hsE_INVALID for a bad index or a non-finite number (poses kept)
int hs_viewSetPose(hsView *view, int b, const double *linkP, const double *linkR, hsError *err);

// render vision sensor s (index into body b's sensors) from its link's pose as last set, as
// OpenHRP's ViewSimulator places a camera: rgb (width x height x 3 bytes, rows top first) and
// depth (width x height floats [m]) may each be NULL. 0, hsE_INVALID (bad index, not a camera),
// hsE_UNSUPPORTED (no headless GL) with err.
int hs_viewRenderCamera(hsView *view, int b, int s, unsigned char *rgb, float *depth,
                        hsError *err);

// one line naming the process's GL device (making the context if it is not made yet); owned by
// the process; NULL with err (hsE_UNSUPPORTED) when there is no headless GL
const char *hs_rendererInfo(hsError *err);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_CORE_CORE_H_
