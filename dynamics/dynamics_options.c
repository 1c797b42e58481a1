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
// Sleeping (off by default; bench/bench_many.py): a 100-box pile settled under QuickStep keeps
// jittering at up to 0.01 m/s and 0.1 rad/s; with thresholds of 0.01 m/s and 0.05 rad/s on the
// instantaneous speeds 14 of its boxes slept after 3 s, with 0.02 m/s and 0.1 rad/s averaged over
// 10 steps (ODE's average samples) and 0.2 s at rest all 100 by about 3.5 s.

#include <ode/ode.h>
#include <stdio.h>

#include "dynamics.h"

void hsd_defaultOptions(hsdOptions *opt) {
  opt->stepper = hsSTEPPER_AUTO;
  opt->quickIterations = 50;
  opt->autoRows = 150;
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

void hsd_initODE(void) {
  static int done = 0;
  if (done) {
    return;
  }
  done = 1;
  dInitODE2(0);
  dSetMessageHandler(odeMessage);
  dSetErrorHandler(odeError);
  dSetDebugHandler(odeError);
}
