// test_limits.c - the options beyond OpenHRP 3.1: joint stops at llimit/ulimit (a pendulum
// falling into its stop holds there and the stop's reaction balances gravity's moment) and
// rotor inertia (a torque gives tau / (I + rotorInertia gearRatio^2)).

#include "dyn_helpers.h"

// a fixed base 2 m up and one link about y: mass 1 kg with its centre 0.5 m out along x (so
// gravity turns it towards +q), inertia diag(0.01, 0.01, 0.01) about the centre; limits
// [-0.5, 0.3] rad, rotor inertia 1e-4 kg m^2 behind a 10:1 gear
static hsBody *armWithStop(const char *file, double comX) {
  char text[2048];
  snprintf(text, sizeof text,
           "DEF A Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" translation 0 0 "
           "2 children [\n DEF L1 Joint { jointType \"rotate\" jointId 0 jointAxis 0 1 0 "
           "llimit [-0.5] ulimit [0.3] rotorInertia 1e-4 gearRatio 10 children [ Segment { mass "
           "1 centerOfMass %.17g 0 0 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01] } ] } ] } ]\n"
           " joints [ USE BASE USE L1 ] }\n",
           comX);
  return dynLoadText(file, text);
}

static hsdWorld *limitWorld(hsBody *b, int limits, int rotor) {
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.jointLimits = limits;
  o.rotorInertia = rotor;
  hsdWorld *w = dynWorld(&o);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "arm", b, NULL), 0);
  CU_ASSERT_EQUAL(hsd_init(w, NULL), 0);
  return w;
}

// falling into the upper stop: within 1e-3 rad of 0.3 after it settles, the stop's reaction
// -m g 0.5 cos(q) within 1%; without the option it swings far past; a high-gain joint is not
// stopped (its command rules)
static void testStop(void) {
  hsBody *b = armWithStop("limit_arm.wrl", 0.5);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = limitWorld(b, 1, 0);
  double qmax = 0;
  for (int i = 0; i < 3000; i++) {
    dynSteps(w, 1);
    qmax = fmax(qmax, hsd_state(w, 0)->q[1]);
  }
  double q = hsd_state(w, 0)->q[1], tau = hsd_jointConstraintTorque(w, 0, 1);
  double expect = -0.5 * 1 * 9.8 * cos(q);
  fprintf(stderr, " [stopped at %.5f rad (limit 0.3, overshoot max %.2g), stop torque %.4f N m, "
          "statics %.4f] ", q, qmax - 0.3, tau, expect);
  CU_ASSERT(fabs(q - 0.3) < 1e-3);
  CU_ASSERT(qmax - 0.3 < 0.05);
  CU_ASSERT(fabs(tau / expect - 1) < 0.01);
  hsd_freeWorld(w);
  // off (OpenHRP's behaviour): no stop
  w = limitWorld(b, 0, 0);
  qmax = 0;
  for (int i = 0; i < 1000; i++) {
    dynSteps(w, 1);
    qmax = fmax(qmax, hsd_state(w, 0)->q[1]);
  }
  CU_ASSERT(qmax > 1.0);
  hsd_freeWorld(w);
  // high gain: the command goes beyond the limit
  w = limitWorld(b, 1, 0);
  CU_ASSERT_EQUAL(hsd_setJointMode(w, 0, 1, hsMODE_HIGH_GAIN, NULL), 0);
  CU_ASSERT_EQUAL(hsd_setJointValue(w, 0, 1, 0.6, NULL), 0);
  dynSteps(w, 1);
  HST_NEAR(hsd_state(w, 0)->q[1], 0.6, 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// a torque on the joint in zero gravity (centre on the axis): alpha = tau / (I + Ir N^2) with
// the option, tau / I without
static void testRotorInertia(void) {
  hsBody *b = armWithStop("rotor_arm.wrl", 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  for (int rotor = 0; rotor <= 1; rotor++) {
    hsdWorld *w = limitWorld(b, 0, rotor);
    double g[3] = {0, 0, 0};
    CU_ASSERT_EQUAL(hsd_setGravity(w, g, NULL), 0);
    CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 0.2, NULL), 0);
    dynSteps(w, 100);
    double alpha = hsd_state(w, 0)->dq[1] / 0.1;
    double expect = 0.2 / (0.01 + (rotor ? 1e-4 * 100 : 0));
    fprintf(stderr, " [rotor %s: %.4f rad/s^2, expected %.4f] ", rotor ? "on" : "off", alpha,
            expect);
    CU_ASSERT(fabs(alpha / expect - 1) < 1e-3);
    hsd_freeWorld(w);
  }
  hsm_freeBody(b);
}

void register_limits(void) {
  CU_pSuite s = hst_addSuite("dynamics_limits");
  CU_add_test(s, "a joint falling into its stop holds there, reporting the stop torque",
              testStop);
  CU_add_test(s, "rotor inertia slows a torque-driven joint", testRotorInertia);
}
