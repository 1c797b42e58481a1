// dynamics_options.c - world defaults and process-wide ODE set-up.
//
// The defaults were chosen with bench/bench_stepper.c (the sample humanoid standing on the
// sample floor in high-gain mode, 1 ms steps, sensors on, 10 s; figures from this 2-core
// machine while other builds ran; the defaults run as dWorldStep there):
//   dWorldStep               24,800 steps/s   root drift 0.00001 mm   penetration 0.010 mm
//   QuickStep 10 iterations  28,500 steps/s   root drift 0.39 mm      penetration 0.034 mm
//   QuickStep 20 iterations  26,900 steps/s   root drift 0.17 mm      penetration 0.024 mm
//   QuickStep 50 iterations  19,600 steps/s   root drift 0.14 mm      penetration 0.045 mm
// The composite representation leaves ODE only the root and the contacts, so the exact solver
// costs little more than the iterative one; and with every joint an ODE motor (servoMotors, or
// characters mixing torque and high-gain joints) QuickStep diverges (the humanoid blows up
// within 2 s at 20 and 100 iterations) while dWorldStep holds it to 6e-13 rad at 1,400
// steps/s. So dWorldStep, except that its cost grows with the cube of an island's constraint
// rows: 100 boxes falling into one pile (bench/bench_world.c, 2000 steps) run at 23 steps/s on
// dWorldStep and 1,150 on QuickStep. hsSTEPPER_AUTO takes QuickStep for a step whose largest
// island exceeds autoRows rows (when no servo motor is in use): 460 steps/s with 300 rows,
// 1,060 with 150, 1,210 with 100; 150 keeps an articulated humanoid without contacts (150 hinge
// rows) on the exact solver. Contact softness: CFM 1e-5 lets the robot sink 0.5 mm (and costs
// speed), 1e-8 does not; a surface layer of 0.5 mm or 0.1 mm leaves a 0.02 mm root drift that a
// zero layer removes, with no contact flicker (a resting box keeps its 4 points every step).
// Four points per geom pair (the deepest and most spread out) instead of eight took the
// humanoid from 17,000 to 22,000 steps/s with the same drift.
//
// A torque-mode humanoid on the floor is one island of 31 bodies, 30 hinges (150 rows) and 8
// contacts (24 rows): 174 rows, so QuickStep (bench/bench_torque.c, under a PD loop in C with
// the sample PD controller's gains, beside high gain in the same run; a loaded machine, so the
// ratio to high gain is the figure that holds; medians of 3 rounds, 4-5 runs). dWorldStep
// there: 0.08 of high gain. QuickStep spends 77-88% of the step in ODE (callgrind: 1.53 M
// instructions a step at 50 iterations, 1.11 M of them the SOR sweeps, linear in the count):
//   iterations  of high gain  hinges apart: standing  falling (test_determinism's scene, 1 s)
//   50          0.21-0.28     0.012 mm                 1.2 mm   (dWorldStep 0.34 mm)
//   20          0.37-0.45     0.060 mm                 3.0 mm
//   15          0.50-0.55     0.084 mm                 (not measured)
//   10          0.53-0.63     0.14 mm                  3.9 mm
//   5           runs away within 0.11 s (standing under PD)
// The price of fewer iterations is a softer stance: in the bench's bent-knee pose under PD the
// waist ends 2.05 mm from its start after 6 s on dWorldStep, 2.5 mm at 50 iterations and 6.1 mm
// at 15 (bounded: 6.8 mm after 3 s; after 3 s: dWorldStep 4.7 mm, 15 iterations 6.8 mm, 10
// iterations 8.7 mm).
// The ankle force sensors' total while standing (Fz/mg, 0.9526 exact; dWorldStep 0.952-0.954)
// swings 0.6-1.08 step to step at any count, with the right mean. The reading is not at fault:
// it equals the feet's inverse dynamics from the contact forces and the feet's acceleration to
// 4 digits. The robot really vibrates: the unconverged sweep leaves the chain and the feet
// jittering, the whole body's vertical acceleration swings +-5% of g, and a foot that rocks by a
// few micrometres loses its toe contacts for a step (the 4 kept points all at the heel: the
// total contact force drops to 0.42 mg for that step). Plain Gauss-Seidel (QuickStep W 1.0 for
// ODE's 1.3) halves the swing at 15 iterations but opens the hinges past 0.2 mm at 10-12;
// softer contacts (CFM 1e-7..1e-5) change nothing; a 0.02 mm contactSurfaceLayer (or contact
// ERP 0.1) lifts the low end from 0.70 to 0.84 (world-wide contact changes, not taken).
// chainIterations takes 12 for such islands: ODE's SOR sweep costs 128 instructions per row and
// iteration (callgrind), so 12 instead of 15 takes the torque-mode step from 684k to 606k
// instructions (10: 567k), and test_servo's comparison with the exact solver holds (after 2 s
// the waist 0.4 mm from dWorldStep's, hinges within 0.14 mm; 10 iterations: 0.7 and 0.17 mm,
// 8: the hinges 0.21 mm apart). Not 10: the squat robot under the sample PD controller run by
// the scheduler every 2 ms (torques held for two steps: tests/e2e/test_one_call.py) sits at the
// edge of its control loop's stability, and ran away after 0.17 s at 10 iterations, 3 s at 11,
// 10 s at 15, not in 10 s at 12 (every count runs away when the torques are held for 3 steps).
// Piles keep quickIterations (50), chosen for them above.
//
// Sleeping (off by default; bench/bench_many.py): a 100-box pile settled under QuickStep keeps
// jittering at up to 0.01 m/s and 0.1 rad/s; with thresholds of 0.01 m/s and 0.05 rad/s on the
// instantaneous speeds 14 of its boxes slept after 3 s, with 0.02 m/s and 0.1 rad/s averaged over
// 10 steps (ODE's average samples) and 0.2 s at rest all 100 by about 3.5 s.
// The acceleration check (sleepLinearAcc 0.02 m/s^2, sleepAngularAcc 0.2 rad/s^2, speeds rising
// over two windows in a row, dynamics_sleep.c) keeps a box sliding from rest at 0.061 m/s^2
// awake; in that pile, window means change by up to 0.05 m/s^2 and 1 rad/s^2 from one window to
// the next (rocking, no trend), so one window's rise alone kept boxes awake for good; twice in a
// row, the 100-box pile sleeps whole by 3 s and the 400-box pile by 5 s (3 s without the check).
//
// pileRows (24): where only free rigid objects touch anything, QuickStep above 24 rows instead
// of 150. Callgrind, 100-box pile's first 0.5 s (bench_many.c, broad phase and sleeping on):
// 2,855 M instructions with pileRows = 150 (islands of 30-150 rows on dWorldStep: dxSolveLCP,
// dxDot, solveL1Straight/Transposed 45%), 2,450 M with 48, 2,246 M with 24 (QuickStep's SOR
// then 35-50%, box/box contacts 20-35%). Fewer iterations are the next lever but cost
// accuracy (tests/unit/dynamics/test_sleep.c's 6-box tower after 3 s: 50 iterations 0.054 mm
// from where it was put, 20 iterations 0.81 mm and 1,475 M instructions, 10 iterations 1.5 mm).

#include <pthread.h>
#include <ode/ode.h>
#include <stdio.h>
#include <string.h>

#include "dynamics.h"

void hsd_defaultOptions(hsdOptions *opt) {
  memset(opt, 0, sizeof *opt);  // (padding too: a saved state holds a world's options whole)
  opt->engine = hsENGINE_JOINT_SPACE;  // every door's default (issue 27); ODE by name
  opt->stepper = hsSTEPPER_AUTO;
  opt->integrator = hsINTEGRATE_EULER;
  opt->quickIterations = 50;
  opt->chainIterations = 12;
  opt->autoRows = 150;
  opt->pileRows = 24;
  opt->erp = 0.2;
  opt->cfm = 1e-10;
  opt->contactErp = 0.2;
  opt->contactCfm = 1e-8;
  opt->contactSurfaceLayer = 0;
  opt->contactMaxCorrectingVel = 0.5;
  opt->maxContactsPerPair = 4;
  opt->maxContacts = 4096;
  opt->highGainFMax = 1e12;
  opt->servoMotors = 0;
  opt->stickVelocity = 1e-3;
  opt->bounceVelocity = 0.01;
  opt->boundMass = 1e-3;
  opt->boundInertia = 1e-6;
  opt->jointLimits = 0;
  opt->stopErp = 0.2;
  opt->stopCfm = 1e-10;
  opt->rotorInertia = 0;
  opt->broadPhase = hsBROAD_AUTO;
  opt->sleep = 0;
  opt->sleepLinearVel = 0.02;
  opt->sleepAngularVel = 0.1;
  opt->sleepTime = 0.2;
  opt->sleepLinearAcc = 0.02;
  opt->sleepAngularAcc = 0.2;
}

// ODE's messages go to our logger; its error and debug handlers must not abort a server, but
// ODE does not return from them, so they are reported at error level before ODE gives up
static void odeMessage(int errnum, const char *msg, va_list ap) {
  char text[600];
  vsnprintf(text, sizeof text, msg, ap);
  hsu_log(hsLOG_WARNING, "ODE %d: %s", errnum, text);
}

static void odeError(int errnum, const char *msg, va_list ap) {
  char text[600];
  vsnprintf(text, sizeof text, msg, ap);
  hsu_log(hsLOG_ERROR, "ODE error %d: %s", errnum, text);
}

static pthread_once_t gOdeOnce = PTHREAD_ONCE_INIT;
static pthread_mutex_t gOdeLock = PTHREAD_MUTEX_INITIALIZER;

static void initOdeOnce(void) {
  dInitODE2(0);
  dSetMessageHandler(odeMessage);
  dSetErrorHandler(odeError);
  dSetDebugHandler(odeError);
}

void hsd_initODE(void) {
  pthread_once(&gOdeOnce, initOdeOnce);
}

void hsd_lockOde(void) {
  pthread_mutex_lock(&gOdeLock);
}

void hsd_unlockOde(void) {
  pthread_mutex_unlock(&gOdeLock);
}
