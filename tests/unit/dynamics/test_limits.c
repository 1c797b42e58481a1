// test_limits.c - the options beyond OpenHRP 3.1: joint stops at llimit/ulimit (a pendulum
// falling into its stop holds there and the stop's reaction balances gravity's moment), effort
// limits (a torque above climit gearRatio torqueConst accelerates at the limit / I), velocity
// limits (a driven wheel reaches uvlimit / lvlimit and stays there, or at its stop; a slide
// joint likewise), unchanged motion with them off or absent, and rotor inertia (a torque gives
// tau / (I + rotorInertia gearRatio^2)).

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

// a world holding b with the given hsLIMIT_* bits and rotor-inertia option, initialised (the
// joint-space engine refuses the option: then not initialised, the refusal in *refused)
static hsdWorld *limitWorldOr(hsBody *b, int limits, int rotor, int *refused) {
  hsdOptions o;
  hsd_defaultOptions(&o);
  o.jointLimits = limits;
  o.rotorInertia = rotor;
  hsdWorld *w = dynWorld(&o);
  CU_ASSERT_EQUAL(hsd_addCharacter(w, "arm", b, NULL), 0);
  hsError err = {0};
  int rc = hsd_init(w, &err);
  if (refused) {
    *refused = rc == hsE_INVALID && strstr(err.message, "rotorInertia option") != NULL;
  }
  CU_ASSERT(rc == 0 || (refused && *refused));
  return w;
}

static hsdWorld *limitWorld(hsBody *b, int limits, int rotor) {
  return limitWorldOr(b, limits, rotor, NULL);
}

// 1 if w steps on the joint-space engine (HST_ENGINE=joint_space)
static int jointSpace(const hsdWorld *w) {
  return hsd_options(w)->engine == hsENGINE_JOINT_SPACE;
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
// the option, tau / I without; the joint-space engine always has the rotor on the joint's
// diagonal (tau / (I + Ir N^2)) and refuses the option, naming it
static void testRotorInertia(void) {
  hsBody *b = armWithStop("rotor_arm.wrl", 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  for (int rotor = 0; rotor <= 1; rotor++) {
    int refused = 0;
    hsdWorld *w = limitWorldOr(b, 0, rotor, &refused);
    int js = jointSpace(w);
    CU_ASSERT_EQUAL(refused, js && rotor);
    if (refused) {
      hsd_freeWorld(w);
      continue;
    }
    double g[3] = {0, 0, 0};
    CU_ASSERT_EQUAL(hsd_setGravity(w, g, NULL), 0);
    CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 0.2, NULL), 0);
    dynSteps(w, 100);
    double alpha = hsd_state(w, 0)->dq[1] / 0.1;
    double expect = 0.2 / (0.01 + (rotor || js ? 1e-4 * 100 : 0));
    fprintf(stderr, " [rotor %s: %.4f rad/s^2, expected %.4f] ", rotor ? "on" : "off", alpha,
            expect);
    CU_ASSERT(fabs(alpha / expect - 1) < 1e-3);
    hsd_freeWorld(w);
  }
  hsm_freeBody(b);
}

// a fixed base in zero gravity and one wheel about y, its centre on the axis: I = 0.01 kg m^2;
// fields: extra Joint fields (limits) as VRML text
static hsBody *wheel(const char *file, const char *fields) {
  char text[2048];
  snprintf(text, sizeof text,
           "DEF W Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
           " DEF WHEEL Joint { jointType \"rotate\" jointId 0 jointAxis 0 1 0 %s children [\n"
           " Segment { mass 1 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01] } ] } ] } ]\n"
           " joints [ USE BASE USE WHEEL ] }\n",
           fields);
  return dynLoadText(file, text);
}

// a world in zero gravity holding the wheel with the given hsLIMIT_* bits
static hsdWorld *wheelWorld(hsBody *b, int limits) {
  hsdWorld *w = limitWorld(b, limits, 0);
  double g[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(hsd_setGravity(w, g, NULL), 0);
  return w;
}

// climit 2 x gearRatio 10 x torqueConst 0.05 = 1 N m: a 5 N m command accelerates the wheel at
// 1 / 0.01 = 100 rad/s^2 (either sign) with effort limits on; at 500 with them off or with only
// position limits; a command below the limit is not touched
static void testEffort(void) {
  hsBody *b = wheel("effort_wheel.wrl", "climit [2] gearRatio 10 torqueConst 0.05");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  struct {
    int limits;
    double u, alpha;
  } cases[] = {{hsLIMIT_EFFORT, 5, 100},      {hsLIMIT_ALL, -5, -100}, {0, 5, 500},
               {hsLIMIT_POSITION, 5, 500},    {hsLIMIT_EFFORT, 0.5, 50}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hsdWorld *w = wheelWorld(b, cases[i].limits);
    CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, cases[i].u, NULL), 0);
    dynSteps(w, 100);
    double alpha = hsd_state(w, 0)->dq[1] / hsd_time(w);
    fprintf(stderr, " [limits %d, u %g: %.6f rad/s^2, expected %g] ", cases[i].limits,
            cases[i].u, alpha, cases[i].alpha);
    CU_ASSERT(fabs(alpha / cases[i].alpha - 1) < 1e-6);
    hsd_freeWorld(w);
  }
  hsm_freeBody(b);
}

// uvlimit 3, lvlimit -2 rad/s: a 0.5 N m torque accelerates the wheel at 50 rad/s^2 until it
// reaches 3 rad/s (0.06 s), then it stays at 3 to 1e-6 and never passes it; reversed, it
// decelerates at 50 through zero to -2; with u = 0 it coasts at its speed; off: 0.5 s later it
// runs at 25 rad/s
static void testVelocity(void) {
  hsBody *b = wheel("velocity_wheel.wrl", "uvlimit [3] lvlimit [-2]");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = wheelWorld(b, hsLIMIT_VELOCITY);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 0.5, NULL), 0);
  double dt = hsd_timeStep(w);
  int nUp = (int)lround(0.04 / dt);
  dynSteps(w, nUp);  // 2 rad/s: below the limit, the plain torque
  HST_NEAR(hsd_state(w, 0)->dq[1], 50 * nUp * dt, 1e-6);
  double dqmax = 0;
  for (int i = 0; i < (int)lround(0.46 / dt); i++) {
    dynSteps(w, 1);
    dqmax = fmax(dqmax, hsd_state(w, 0)->dq[1]);
  }
  fprintf(stderr, " [at the upper limit %.9f rad/s (limit 3, max %.9f)] ", hsd_state(w, 0)->dq[1],
          dqmax);
  HST_NEAR(hsd_state(w, 0)->dq[1], 3, 1e-6);
  CU_ASSERT(dqmax < 3 + 1e-6);
  // reversed: -50 rad/s^2 for 0.04 s, then on to the lower limit
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, -0.5, NULL), 0);
  dynSteps(w, nUp);
  HST_NEAR(hsd_state(w, 0)->dq[1], 3 - 50 * nUp * dt, 1e-6);
  dynSteps(w, (int)lround(0.5 / dt));
  fprintf(stderr, " [at the lower limit %.9f rad/s (limit -2)] ", hsd_state(w, 0)->dq[1]);
  HST_NEAR(hsd_state(w, 0)->dq[1], -2, 1e-6);
  // no drive: it coasts
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 0, NULL), 0);
  dynSteps(w, 100);
  HST_NEAR(hsd_state(w, 0)->dq[1], -2, 1e-6);
  hsd_freeWorld(w);
  // off: no limit
  w = wheelWorld(b, hsLIMIT_POSITION | hsLIMIT_EFFORT);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 0.5, NULL), 0);
  dynSteps(w, (int)lround(0.5 / dt));
  HST_NEAR(hsd_state(w, 0)->dq[1], 25, 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(b);
  // with stops too: driven at its velocity limit into ulimit 0.3, it holds at the stop
  b = wheel("stopped_wheel.wrl", "uvlimit [3] lvlimit [-2] llimit [-0.5] ulimit [0.3]");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  w = wheelWorld(b, hsLIMIT_ALL);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 0.5, NULL), 0);
  dynSteps(w, (int)lround(1.0 / dt));
  fprintf(stderr, " [into the stop: %.6f rad, %.2g rad/s] ", hsd_state(w, 0)->q[1],
          hsd_state(w, 0)->dq[1]);
  HST_NEAR(hsd_state(w, 0)->q[1], 0.3, 1e-3);
  HST_NEAR(hsd_state(w, 0)->dq[1], 0, 1e-3);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// a slide joint (2 kg along x, zero gravity) with climit 4 and uvlimit 0.5: a 10 N command
// accelerates it at 4 / 2 = 2 m/s^2 (0.2 m/s after 0.1 s), and it settles at 0.5 m/s
static void testSlide(void) {
  hsBody *b = dynLoadText(
      "limit_slider.wrl",
      "DEF S Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" children [\n"
      " DEF SLIDE Joint { jointType \"slide\" jointId 0 jointAxis 1 0 0 climit [4]\n"
      " uvlimit [0.5] lvlimit [-0.5] children [ Segment { mass 2 momentsOfInertia\n"
      " [0.01 0 0 0 0.01 0 0 0 0.01] } ] } ] } ] joints [ USE BASE USE SLIDE ] }\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  hsdWorld *w = wheelWorld(b, hsLIMIT_ALL);
  CU_ASSERT_EQUAL(hsd_setJointTorque(w, 0, 1, 10, NULL), 0);
  double dt = hsd_timeStep(w);
  dynSteps(w, (int)lround(0.1 / dt));
  HST_NEAR(hsd_state(w, 0)->dq[1], 0.2, 1e-6);
  dynSteps(w, (int)lround(0.9 / dt));
  HST_NEAR(hsd_state(w, 0)->dq[1], 0.5, 1e-6);
  hsd_freeWorld(w);
  hsm_freeBody(b);
}

// a model's velocity and effort limits change nothing with the switch off, and a model without
// them runs the same with it on: joint values bit for bit equal to the model without limits
static void testOffIsUnchanged(void) {
  hsBody *plain = wheel("plain_wheel.wrl", "");
  hsBody *limited = wheel("limited_wheel.wrl", "uvlimit [3] lvlimit [-2] climit [0.1]");
  CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
  CU_ASSERT_PTR_NOT_NULL_FATAL(limited);
  hsdWorld *w[3] = {wheelWorld(plain, 0), wheelWorld(limited, 0), wheelWorld(plain, hsLIMIT_ALL)};
  for (int k = 0; k < 3; k++) {
    CU_ASSERT_EQUAL(hsd_setJointTorque(w[k], 0, 1, 0.7, NULL), 0);
    dynSteps(w[k], 500);
  }
  for (int k = 1; k < 3; k++) {
    CU_ASSERT(hsd_state(w[k], 0)->q[1] == hsd_state(w[0], 0)->q[1]);
    CU_ASSERT(hsd_state(w[k], 0)->dq[1] == hsd_state(w[0], 0)->dq[1]);
  }
  CU_ASSERT(hsd_state(w[0], 0)->dq[1] > 3);  // far past the limit it does not have
  for (int k = 0; k < 3; k++) {
    hsd_freeWorld(w[k]);
  }
  // bits outside hsLIMIT_ALL are refused
  hsError err = {0};
  hsdWorld *x = dynWorld(NULL);
  CU_ASSERT_EQUAL(hsd_setJointOptions(x, 8, 0, &err), hsE_INVALID);
  CU_ASSERT_EQUAL(hsd_setJointOptions(x, hsLIMIT_ALL, 0, &err), 0);
  hsd_freeWorld(x);
  hsm_freeBody(plain);
  hsm_freeBody(limited);
}

void register_limits(void) {
  CU_pSuite s = hst_addSuite("dynamics_limits");
  CU_add_test(s, "a joint falling into its stop holds there, reporting the stop torque",
              testStop);
  CU_add_test(s, "rotor inertia slows a torque-driven joint", testRotorInertia);
  CU_add_test(s, "an effort limit clamps the applied torque", testEffort);
  CU_add_test(s, "a velocity limit holds a driven wheel at its speed", testVelocity);
  CU_add_test(s, "a slide joint obeys its force and velocity limits", testSlide);
  CU_add_test(s, "limits off or absent: bit-identical joint motion", testOffIsUnchanged);
}
