// test_solver.c - the core's door to the engine and solver settings (hs_setSolver,
// hs_solverSetting, hs_engine): settings by name reach the world, a bad one or one after start
// is refused with nothing changed.

#include <CUnit/CUnit.h>

#include <string.h>

#include "core.h"
#include "dynamics.h"
#include "test_support.h"

// setting name's value as text
static const char *valueOf(hsSim *sim, const char *name) {
  static char buf[64];
  hsError err = {0};
  CU_ASSERT_EQUAL(hs_solverSetting(sim, name, buf, (int)sizeof buf, &err), 0);
  return buf;
}

static void testSetSolver(void) {
  hsError err = {0};
  hsSim *sim = hs_makeSim(&err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  CU_ASSERT_STRING_EQUAL(hs_engine(sim), "joint_space");  // the default (issue 27)
  CU_ASSERT_STRING_EQUAL(valueOf(sim, "stepper"), "auto");
  CU_ASSERT_STRING_EQUAL(valueOf(sim, "iterations"), "50");
  // the ode engine's settings on the default engine: refused, the engine kept
  const char *names[] = {"stepper", "iterations"}, *values[] = {"quick", "30"};
  CU_ASSERT_EQUAL(hs_setSolver(sim, NULL, 2, names, values, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "solver setting stepper is the ode engine's"));
  CU_ASSERT_STRING_EQUAL(hs_engine(sim), "joint_space");
  CU_ASSERT_STRING_EQUAL(valueOf(sim, "stepper"), "auto");
  // with the engine named: taken
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hs_setSolver(sim, "ode", 2, names, values, &err), 0);
  CU_ASSERT_STRING_EQUAL(hs_engine(sim), "ode");
  CU_ASSERT_STRING_EQUAL(valueOf(sim, "stepper"), "quick");
  CU_ASSERT_STRING_EQUAL(valueOf(sim, "iterations"), "30");
  // a bad value after a good one: refused, nothing changed
  const char *bad[] = {"chain_iterations", "erp"}, *badValues[] = {"5", "2"};
  CU_ASSERT_EQUAL(hs_setSolver(sim, "", 2, bad, badValues, &err), hsE_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "erp: 2 is out of range [0, 1]"));
  CU_ASSERT_STRING_EQUAL(valueOf(sim, "chain_iterations"), "12");
  // the ode engine's setting under the joint-space engine: refused, the engine kept
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hs_setSolver(sim, "joint_space", 1, names, values, &err), hsE_INVALID);
  CU_ASSERT_STRING_EQUAL(hs_engine(sim), "ode");
  CU_ASSERT_EQUAL(hs_setSolver(sim, "joint_space", 0, NULL, NULL, &err), 0);
  CU_ASSERT_STRING_EQUAL(hs_engine(sim), "joint_space");
  CU_ASSERT_STRING_EQUAL(valueOf(sim, "stepper"), "quick");  // kept, unused there
  char buf[8];
  CU_ASSERT_EQUAL(hs_solverSetting(sim, "steper", buf, (int)sizeof buf, &err), hsE_INVALID);
  // after start: refused, nothing changed
  hsu_clearError(&err);
  CU_ASSERT_EQUAL(hs_start(sim, &err), 0);
  CU_ASSERT_EQUAL(hs_setSolver(sim, "ode", 0, NULL, NULL, &err), hsE_ORDER);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "before the simulation starts"));
  CU_ASSERT_STRING_EQUAL(hs_engine(sim), "joint_space");
  hs_freeSim(sim);
}

void register_solver(void) {
  CU_pSuite s = hst_addSuite("core_solver");
  hs_initProcess();
  CU_add_test(s, "engine and settings by name; refusals keep the settings", testSetSolver);
}
