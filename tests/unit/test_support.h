// test_support.h - shared CUnit scaffolding: suite registration with a log guard, runner.
//
// Every suite added through hst_addSuite installs a log handler that fails the running test on
// any warning or error it did not announce with hst_expectLog; tests that provoke warnings call
// hst_expectLog(1) first and may count them with hst_logCount.

#ifndef HRPSIM_TESTS_UNIT_TEST_SUPPORT_H_
#define HRPSIM_TESTS_UNIT_TEST_SUPPORT_H_

#include <CUnit/CUnit.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

// parse the runner's arguments (an optional suite name filter)
void hst_init(int argc, char **argv);

// run every registered suite; returns the process exit status (0 when all passed)
int hst_run(void);

// add a suite whose tests run under the log guard
CU_pSuite hst_addSuite(const char *name);

// allow (1) or forbid (0, the default at each test's start) warnings and errors in the log
void hst_expectLog(int allow);

// warnings and errors logged since the current test started
int hst_logCount(void);

// the last message logged during the current test ("" if none)
const char *hst_lastLog(void);

// write text to a fresh file under a per-run temporary directory; returns its path (static
// storage, valid until the next call with the same name)
const char *hst_writeFile(const char *name, const char *text);

// the per-run temporary directory
const char *hst_tmpDir(void);

// assert two doubles are within tol, printing both on failure
#define HST_NEAR(a, b, tol) CU_ASSERT_DOUBLE_EQUAL((a), (b), (tol))

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_TESTS_UNIT_TEST_SUPPORT_H_
