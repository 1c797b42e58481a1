// core_models.h - the small inline models and the error helper the core's suites share
// (test_core.c, test_run.c).

#ifndef HRPSIM_TESTS_UNIT_CORE_CORE_MODELS_H_
#define HRPSIM_TESTS_UNIT_CORE_CORE_MODELS_H_

#include "util.h"

// a 1 kg, 0.1 m box on a free joint named BOX
static const char *const kBox =
    "DEF B Humanoid { humanoidBody [ DEF BOX Joint { jointType \"free\" children [\n"
    " Segment { mass 1 momentsOfInertia [0.0016667 0 0 0 0.0016667 0 0 0 0.0016667]\n"
    "  children Shape { geometry Box { size 0.1 0.1 0.1 } } } ] } ] joints [ USE BOX ] }\n";

// a pendulum: fixed base 2 m up, joint L1 (jointId 0) about y, 1 kg at 0.5 m below the axis
// with inertia 0.01 kg m^2 about its centre across the axis
static const char *const kPendulum =
    "DEF P Humanoid { humanoidBody [ DEF BASE Joint { jointType \"fixed\" translation 0 0 2 "
    "children [\n DEF L1 Joint { jointType \"rotate\" jointId 0 jointAxis 0 1 0 children [ "
    "Segment { mass 1 centerOfMass 0 0 -0.5 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.001] } "
    "] } ] } ] joints [ USE BASE USE L1 ] }\n";

// err cleared, for the next call
static inline hsError *fresh(hsError *err) {
  hsu_clearError(err);
  return err;
}

#endif  // HRPSIM_TESTS_UNIT_CORE_CORE_MODELS_H_
