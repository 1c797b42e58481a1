// test_settings.c - the engine and solver settings by name (dynamics_settings.c): each reaches
// its hsdOptions field exactly, every bad one is refused naming it with the options unchanged,
// hsd_setSolver refuses after hsd_init keeping the world's options, and a forced stepper and a
// surface layer change what a world does (QuickStep's step counter; a resting box's sinking).

#include <string.h>

#include "dyn_helpers.h"

// apply one setting (engine may be NULL) to a copy of *o; the return code, err's message
static int applyOne(hsdOptions *o, const char *engine, const char *name, const char *value,
                    hsError *err) {
  const char *names[1] = {name}, *values[1] = {value};
  return hsd_applySolverSettings(o, engine, name ? 1 : 0, names, values, err);
}

// 1 if a and b have the same engine and solver settings (the fields hsd_setSolver copies)
static int sameSolver(const hsdOptions *a, const hsdOptions *b) {
  return a->engine == b->engine && a->stepper == b->stepper &&
         a->quickIterations == b->quickIterations && a->chainIterations == b->chainIterations &&
         a->erp == b->erp && a->cfm == b->cfm && a->contactErp == b->contactErp &&
         a->contactCfm == b->contactCfm && a->contactSurfaceLayer == b->contactSurfaceLayer &&
         a->contactMaxCorrectingVel == b->contactMaxCorrectingVel &&
         a->maxContactsPerPair == b->maxContactsPerPair;
}

// every setting is the ODE engine's: they are applied to options on that engine (the default
// is the joint-space engine, which has none)
static void testEachSettingReachesItsField(void) {
  hsdOptions d, o;
  hsd_defaultOptions(&d);
  CU_ASSERT_EQUAL(d.engine, hsENGINE_JOINT_SPACE);  // the default (issue 27)
  d.engine = hsENGINE_ODE;
  o = d;
  const char *names[] = {"stepper", "iterations", "chain_iterations", "erp", "cfm",
                         "contact_erp", "contact_cfm", "surface_layer", "max_correcting_vel",
                         "max_contacts_per_pair"};
  const char *values[] = {"quick", "30", "7", "0.3", "1e-9", "0.25", "9.9999999999999995e-08",
                          "0.001", "0.75", "8"};
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_applySolverSettings(&o, "ode", 10, names, values, &err), 0);
  CU_ASSERT_EQUAL(o.engine, hsENGINE_ODE);
  CU_ASSERT_EQUAL(o.stepper, hsSTEPPER_QUICK);
  CU_ASSERT_EQUAL(o.quickIterations, 30);
  CU_ASSERT_EQUAL(o.chainIterations, 7);
  CU_ASSERT_EQUAL(o.erp, 0.3);
  CU_ASSERT_EQUAL(o.cfm, 1e-9);
  CU_ASSERT_EQUAL(o.contactErp, 0.25);
  CU_ASSERT_EQUAL(o.contactCfm, 1e-7);  // the %.17g text reads back exactly
  CU_ASSERT_EQUAL(o.contactSurfaceLayer, 0.001);
  CU_ASSERT_EQUAL(o.contactMaxCorrectingVel, 0.75);
  CU_ASSERT_EQUAL(o.maxContactsPerPair, 8);
  // nothing else moved
  hsdOptions back = o;
  back.stepper = d.stepper;
  back.quickIterations = d.quickIterations;
  back.chainIterations = d.chainIterations;
  back.erp = d.erp;
  back.cfm = d.cfm;
  back.contactErp = d.contactErp;
  back.contactCfm = d.contactCfm;
  back.contactSurfaceLayer = d.contactSurfaceLayer;
  back.contactMaxCorrectingVel = d.contactMaxCorrectingVel;
  back.maxContactsPerPair = d.maxContactsPerPair;
  CU_ASSERT(sameSolver(&back, &d));
  CU_ASSERT(back.maxContacts == d.maxContacts && back.highGainFMax == d.highGainFMax &&
            back.jointLimits == d.jointLimits && back.sleep == d.sleep &&
            back.autoRows == d.autoRows && back.stopCfm == d.stopCfm);
  // every name in the table, read back as text, is what was given
  hstEngine e;
  const char *name;
  int n = 0;
  for (int i = 0; (name = hsd_solverSettingName(i, &e)) != NULL; i++, n++) {
    char value[64], range[64];
    CU_ASSERT_EQUAL(e, hsENGINE_ODE);
    CU_ASSERT_EQUAL(hsd_solverSettingText(&o, name, value, sizeof value, range, sizeof range),
                    0);
    CU_ASSERT_STRING_EQUAL(name, names[i]);
    hsdOptions again = d;
    const char *v1[1] = {value};
    CU_ASSERT_EQUAL(hsd_applySolverSettings(&again, NULL, 1, &name, v1, &err), 0);
  }
  CU_ASSERT_EQUAL(n, 10);
  // the engine alone
  o = d;
  CU_ASSERT_EQUAL(applyOne(&o, "joint_space", NULL, NULL, &err), 0);
  CU_ASSERT_EQUAL(o.engine, hsENGINE_JOINT_SPACE);
  CU_ASSERT_STRING_EQUAL(hsd_engineName(o.engine), "joint_space");
}

static void testBadSettingsRefused(void) {
  static const struct {
    const char *engine, *name, *value, *says;
  } bad[] = {
    {"mujoco", NULL, NULL, "engine 'mujoco': not an engine (ode or joint_space)"},
    {NULL, "iteration", "30", "'iteration' is not a solver setting (the ode engine has: "
                              "stepper, iterations"},
    {"joint_space", "stepper", "quick", "solver setting stepper is the ode engine's; the "
                                       "joint_space engine has none"},
    {"joint_space", "iterations", "30", "solver setting iterations is the ode engine's"},
    {NULL, "stepper", "fast", "solver setting stepper: 'fast' is not auto, world or quick"},
    {NULL, "iterations", "0", "solver setting iterations: 0 is out of range [1, 100000]"},
    {NULL, "iterations", "2.5", "solver setting iterations: '2.5' is not an integer"},
    {NULL, "iterations", "", "solver setting iterations: '' is not an integer"},
    {NULL, "contact_erp", "1.5", "solver setting contact_erp: 1.5 is out of range [0, 1]"},
    {NULL, "contact_cfm", "-1e-8", "solver setting contact_cfm: -1e-8 is out of range"},
    {NULL, "erp", "nan", "solver setting erp: 'nan' is not a number"},
    {NULL, "surface_layer", "1mm", "solver setting surface_layer: '1mm' is not a number"},
    {NULL, "max_contacts_per_pair", "65536", "max_contacts_per_pair: 65536 is out of range"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hsdOptions d, o;
    hsd_defaultOptions(&d);
    d.engine = hsENGINE_ODE;  // (engine NULL: the options' engine, ODE's settings)
    o = d;
    hsError err = {0};
    CU_ASSERT_EQUAL(applyOne(&o, bad[i].engine, bad[i].name, bad[i].value, &err), hsE_INVALID);
    if (!strstr(err.message, bad[i].says)) {
      CU_FAIL("message");
      fprintf(stderr, "\n  got '%s'\n  want '%s'\n", err.message, bad[i].says);
    }
    CU_ASSERT(sameSolver(&o, &d));
  }
  // on the default engine (joint space) an ODE setting without engine "ode" is refused
  hsdOptions d, o;
  hsd_defaultOptions(&d);
  o = d;
  hsError err = {0};
  CU_ASSERT_EQUAL(applyOne(&o, NULL, "stepper", "quick", &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "solver setting stepper is the ode engine's; the "
                                             "joint_space engine has none"));
  CU_ASSERT(sameSolver(&o, &d));
  CU_ASSERT_EQUAL(applyOne(&o, "ode", "stepper", "quick", &err), 0);  // with the engine: taken
  CU_ASSERT_EQUAL(o.engine, hsENGINE_ODE);
  CU_ASSERT_EQUAL(o.stepper, hsSTEPPER_QUICK);
  // a setting given twice; a good one before a bad one changes nothing either
  d.engine = hsENGINE_ODE;
  o = d;
  memset(&err, 0, sizeof err);  // (the first error wins)
  const char *names[] = {"iterations", "iterations"}, *values[] = {"20", "30"};
  CU_ASSERT_EQUAL(hsd_applySolverSettings(&o, NULL, 2, names, values, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "solver setting iterations given twice"));
  const char *names2[] = {"iterations", "stepper"}, *values2[] = {"20", "slow"};
  CU_ASSERT_EQUAL(hsd_applySolverSettings(&o, NULL, 2, names2, values2, &err), hsE_INVALID);
  CU_ASSERT(sameSolver(&o, &d));
}

// a 0.2 m box of 1 kg put 3 mm into the floor (its centre at 0.097 m; the floor's top is at 0)
// with options o; the world, initialised if init
static hsdWorld *boxOnFloor(const hsdOptions *o, hsBody *box, hsBody *floor, int init) {
  hsdWorld *w = dynWorld(NULL);
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_setSolver(w, o, &err), 0);
  hsd_addCharacter(w, "floor", floor, &err);
  int ch = hsd_addCharacter(w, "box", box, &err);
  dynPlace(w, ch, 0, 0, 0.097, NULL);
  hsdSurface s = {0.5, 0.4, 0, 0.01};
  hsd_addContactPair(w, 0, -1, ch, -1, &s, &err);
  if (init) {
    CU_ASSERT_EQUAL(hsd_init(w, &err), 0);
  }
  return w;
}

static void testSettingsTakeEffect(void) {
  hsBody *box = dynBox("box.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdOptions d;
  hsd_defaultOptions(&d);
  d.engine = hsENGINE_ODE;  // the ODE engine's settings (hsd_setSolver below takes the engine)
  // the ODE engine's defaults: a box alone on the floor is a small island: dWorldStep (no
  // QuickStep step)
  hsdWorld *w = boxOnFloor(&d, box, floor, 1);
  dynSteps(w, 1000);
  hsdStepStats st;
  hsd_stepStats(w, &st);
  CU_ASSERT_EQUAL(st.steps, 1000);
  CU_ASSERT_EQUAL(st.quickSteps, 0);
  double zDefault = hsd_state(w, 1)->rootP[2];
  // no surface layer: ERP pushes the box out; at rest its half height above the floor's top
  // (z = 0) to within a step's sink under gravity (g dt^2 / erp = 5e-5 m, corrected over
  // the next steps)
  HST_NEAR(zDefault, 0.1, 2e-5);
  hsd_freeWorld(w);
  // stepper quick by name: every step on QuickStep
  hsdOptions o = d;
  hsError err = {0};
  const char *n1[] = {"stepper"}, *v1[] = {"quick"};
  CU_ASSERT_EQUAL(hsd_applySolverSettings(&o, NULL, 1, n1, v1, &err), 0);
  w = boxOnFloor(&o, box, floor, 1);
  dynSteps(w, 1000);
  hsd_stepStats(w, &st);
  CU_ASSERT_EQUAL(st.quickSteps, 1000);
  hsd_freeWorld(w);
  // a 5 mm surface layer: contacts push apart only beyond it, so the box stays 3 mm deep (the
  // contact still stops it sinking further)
  o = d;
  const char *n2[] = {"surface_layer"}, *v2[] = {"0.005"};
  CU_ASSERT_EQUAL(hsd_applySolverSettings(&o, NULL, 1, n2, v2, &err), 0);
  w = boxOnFloor(&o, box, floor, 1);
  dynSteps(w, 1000);
  double zLayer = hsd_state(w, 1)->rootP[2];
  HST_NEAR(zLayer, 0.097, 2e-5);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

static void testSetSolverOnlyBeforeInit(void) {
  hsBody *box = dynBox("box.wrl", 1, 0.2, 0.2, 0.2, 0, 0, 0, NULL);
  hsBody *floor = dynLoadSample("floor/floor.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(box);
  CU_ASSERT_PTR_NOT_NULL_FATAL(floor);
  hsdOptions d, o;
  hsd_defaultOptions(&d);
  hsdWorld *w = boxOnFloor(&d, box, floor, 1);
  o = d;
  o.engine = hsENGINE_JOINT_SPACE;
  o.stepper = hsSTEPPER_QUICK;
  hsError err = {0};
  CU_ASSERT_EQUAL(hsd_setSolver(w, &o, &err), hsE_ORDER);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "before the simulation starts"));
  CU_ASSERT(sameSolver(hsd_options(w), &d));
  dynSteps(w, 10);
  hsdStepStats st;
  hsd_stepStats(w, &st);
  CU_ASSERT_EQUAL(st.quickSteps, 0);
  hsd_freeWorld(w);
  // options a world cannot run with are refused by hsd_setSolver too, the world's kept
  w = boxOnFloor(&d, box, floor, 0);
  o = d;
  o.contactErp = 2;
  CU_ASSERT_EQUAL(hsd_setSolver(w, &o, &err), hsE_INVALID);
  CU_ASSERT(sameSolver(hsd_options(w), &d));
  // the joint-space engine, chosen before init, takes the contact pair: the box comes to rest
  o = d;
  o.engine = hsENGINE_JOINT_SPACE;
  CU_ASSERT_EQUAL(hsd_setSolver(w, &o, &err), 0);
  hsError e2 = {0};
  CU_ASSERT_EQUAL(hsd_init(w, &e2), 0);
  CU_ASSERT_EQUAL(hsd_options(w)->engine, hsENGINE_JOINT_SPACE);
  dynSteps(w, 10);
  hsd_freeWorld(w);
  // ... and refuses at init what it does not have (the ODE engine's rotor-inertia option),
  // saying so; joint limits it takes
  w = boxOnFloor(&d, box, floor, 0);
  CU_ASSERT_EQUAL(hsd_setJointOptions(w, hsLIMIT_ALL, 1, &err), 0);
  o = d;
  o.engine = hsENGINE_JOINT_SPACE;
  CU_ASSERT_EQUAL(hsd_setSolver(w, &o, &err), 0);
  CU_ASSERT_EQUAL(hsd_init(w, &e2), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(e2.message, "the rotorInertia option"));
  hsd_freeWorld(w);
  w = boxOnFloor(&d, box, floor, 0);
  CU_ASSERT_EQUAL(hsd_setJointOptions(w, hsLIMIT_ALL, 0, &err), 0);
  CU_ASSERT_EQUAL(hsd_setSolver(w, &o, &err), 0);
  CU_ASSERT_EQUAL(hsd_init(w, &e2), 0);
  dynSteps(w, 10);
  hsd_freeWorld(w);
  hsm_freeBody(box);
  hsm_freeBody(floor);
}

void register_settings(void) {
  hsd_initODE();
  CU_pSuite s = hst_addSuite("dynamics_settings");
  CU_add_test(s, "each setting by name reaches its field exactly", testEachSettingReachesItsField);
  CU_add_test(s, "bad engines, names and values are refused, options kept",
              testBadSettingsRefused);
  CU_add_test(s, "a forced stepper and a surface layer change the world",
              testSettingsTakeEffect);
  CU_add_test(s, "hsd_setSolver before hsd_init only; the joint-space engine takes contacts",
              testSetSolverOnlyBeforeInit);
}
