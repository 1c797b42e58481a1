// dynamics_options.c - world defaults and process-wide ODE set-up.

#include <ode/ode.h>
#include <stdio.h>

#include "dynamics.h"

void hsd_defaultOptions(hsdOptions *opt) {
  opt->stepper = hsSTEPPER_WORLD;
  opt->quickIterations = 50;
  opt->erp = 0.2;
  opt->cfm = 1e-10;
  opt->contactErp = 0.2;
  opt->contactCfm = 1e-8;
  opt->contactSurfaceLayer = 0.0005;
  opt->contactMaxCorrectingVel = 0.5;
  opt->maxContactsPerPair = 8;
  opt->maxContacts = 4096;
  opt->highGainFMax = 1e12;
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
