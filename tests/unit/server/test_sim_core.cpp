// test_sim_core.cpp - the simulation core shared by the DynamicsSimulator servant and the
// scheduler (sim_core.h), and the simulation's wire conversions (wire.h), without any server:
// periods and times counted in whole steps with one tolerance, name look-ups and their
// messages, sensors in sensorId order, the world's own clock, gravity's sign on the wire, link
// data checked before anything changes, and contacts grouped by link pair with OpenHRP's normal.

#include <CUnit/CUnit.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <string>

// the shared C fixtures initialise hsError as C does ({0})
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "openhrp_fixtures.h"
#pragma GCC diagnostic pop
#include "sim_core.h"
#include "test_support.h"
#include "wire.h"

namespace {

using hrpsim::SimCore;
namespace wire = hrpsim::wire;
using DS = OpenHRP::DynamicsSimulator;

// a 1 kg, 0.1 m box on a free joint named BOX, with no sensors
const char *const kBox =
    "DEF B Humanoid { humanoidBody [ DEF BOX Joint { jointType \"free\" children [\n"
    " Segment { mass 1 momentsOfInertia [0.0016667 0 0 0 0.0016667 0 0 0 0.0016667]\n"
    "  children Shape { geometry Box { size 0.1 0.1 0.1 } } } ] } ] joints [ USE BOX ] }\n";

// err emptied for the next call (the first error set into an hsError wins)
hsError *fresh(hsError &err) {
  hsu_clearError(&err);
  return &err;
}

hrpsim::BodyPtr sample(const char *rel) {
  return hrpsim::shareBody(hst_loadSample(rel));
}

void testPeriods() {
  // a period is a whole number of steps to 1e-9 of itself, whatever the rounding of the ratio
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.005, 0.001), 5);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.003, 0.001), 3);  // 0.003 / 0.001 = 2.9999999999999996
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.001, 0.001), 1);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.0015, 0.001), 0);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.005 * (1 + 1e-8), 0.001), 0);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.0004, 0.001), 0);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.0, 0.001), 0);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(NAN, 0.001), 0);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(0.01, 0.0), 0);
  // a time is reached at the first step that gets there (1e-9 steps of slack)
  CU_ASSERT_EQUAL(hrpsim::stepsToReach(0.01, 0.001), 10);
  CU_ASSERT_EQUAL(hrpsim::stepsToReach(0.0105, 0.001), 11);
  CU_ASSERT_EQUAL(hrpsim::stepsToReach(0.7, 0.001), 700);  // 0.7 / 0.001 = 699.9999999999999
  CU_ASSERT_EQUAL(hrpsim::stepsToReach(0.0, 0.001), 0);
  CU_ASSERT_EQUAL(hrpsim::stepsToReach(-1.0, 0.001), 0);
  // times and periods beyond any step count (found by the API fuzzer: runUntil(1e300) cast a
  // double over LLONG_MAX to long long)
  CU_ASSERT_EQUAL(hrpsim::stepsToReach(1e300, 0.001), LLONG_MAX);
  CU_ASSERT_EQUAL(hrpsim::stepsToReach(INFINITY, 0.001), LLONG_MAX);
  CU_ASSERT_EQUAL(hrpsim::periodSteps(1e300, 0.001), 0);
}

void testNamesAndSensors() {
  SimCore core;
  SimCore::Lock lock(core);
  hsError err = {};
  hrpsim::BodyPtr robot = sample("humanoid/humanoid.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(robot.get());
  CU_ASSERT_EQUAL(core.addCharacter("robot", robot, fresh(err)), 0);
  CU_ASSERT(core.addCharacter("robot", robot, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "already registered") != nullptr);
  CU_ASSERT(core.addCharacter("", robot, fresh(err)) < 0);
  CU_ASSERT_EQUAL(core.character("nobody", fresh(err)), -1);
  CU_ASSERT_STRING_EQUAL(err.message, "unknown character 'nobody' (registered: 'robot')");
  CU_ASSERT_EQUAL(core.link(0, "NO_SUCH_LINK", fresh(err)), -1);
  CU_ASSERT_STRING_EQUAL(err.message, "character 'robot' has no link 'NO_SUCH_LINK'");
  CU_ASSERT_EQUAL(core.link(0, "", fresh(err)), -1);
  int l = 7;
  CU_ASSERT_EQUAL(core.linkOrAll(0, "", &l, fresh(err)), 0);
  CU_ASSERT_EQUAL(l, -1);
  CU_ASSERT_EQUAL(core.linkOrAll(0, "RARM_ELBOW", &l, fresh(err)), 0);
  CU_ASSERT_EQUAL(l, hsm_linkIndex(robot.get(), "RARM_ELBOW"));
  CU_ASSERT_EQUAL(core.sensor(0, "nosensor", fresh(err)), -1);
  // every sensor of a type, in sensorId order
  int n = 0;
  for (int t = 0; t < hsSENSOR_NTYPES; t++) {
    const int *list = core.sensorsOfType(0, static_cast<hstSensor>(t), &n);
    CU_ASSERT_EQUAL(n, hsm_sensorCount(robot.get(), static_cast<hstSensor>(t)));
    for (int i = 0; i < n; i++) {
      CU_ASSERT_EQUAL(robot->sensors[list[i]].type, t);
      CU_ASSERT_EQUAL(robot->sensors[list[i]].id, i);
    }
  }
  core.sensorsOfType(0, hsSENSOR_FORCE, &n);
  CU_ASSERT(n >= 2);
  // order: stepping before the start and adding after it are refused
  CU_ASSERT(core.step(fresh(err)) < 0);
  CU_ASSERT_EQUAL(core.start(fresh(err)), 0);
  CU_ASSERT(core.addCharacter("late", robot, fresh(err)) < 0);
}

// the core's clock is the world's: steps counted, time accumulated as time += dt
void testClockAndSensors() {
  SimCore core;
  SimCore::Lock lock(core);
  hsError err = {};
  hrpsim::BodyPtr arm = sample("arm6/arm6.wrl");
  CU_ASSERT_PTR_NOT_NULL_FATAL(arm.get());
  CU_ASSERT_EQUAL(core.addCharacter("arm", arm, fresh(err)), 0);
  CU_ASSERT(core.setTimeStep(0.0, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "time step") != nullptr);
  CU_ASSERT_EQUAL(core.setTimeStep(0.002, fresh(err)), 0);
  CU_ASSERT_EQUAL(core.start(fresh(err)), 0);
  double t = 0;
  for (int i = 0; i < 7; i++) {
    CU_ASSERT_EQUAL(core.step(fresh(err)), 0);
    t += 0.002;
  }
  CU_ASSERT_EQUAL(core.steps(), 7);
  CU_ASSERT_EQUAL(core.time(), t);  // the same additions, bit for bit
  // the wrist force sensor holds the hand against gravity: zeros while sensors are off
  int n = 0;
  int s = core.sensorsOfType(0, hsSENSOR_FORCE, &n)[0];
  CU_ASSERT_EQUAL_FATAL(n, 1);
  double f[6];
  core.reading(0, s, 6, f);
  for (double x : f) {
    CU_ASSERT_EQUAL(x, 0.0);
  }
  core.enableSensors(true);
  core.reading(0, s, 6, f);
  CU_ASSERT(std::fabs(f[0]) + std::fabs(f[1]) + std::fabs(f[2]) > 0.1);
}

void testGravityAndModes() {
  OpenHRP::DblSequence3 v;
  v.length(3);
  v[0] = 0.5;
  v[1] = -1.0;
  v[2] = 9.8;
  double g[3];
  hsError err = {};
  CU_ASSERT_EQUAL(wire::gravityFromWire(v, g, fresh(err)), 0);
  CU_ASSERT_EQUAL(g[0], -0.5);
  CU_ASSERT_EQUAL(g[1], 1.0);
  CU_ASSERT_EQUAL(g[2], -9.8);  // (0, 0, 9.8) on the wire pulls towards -z
  OpenHRP::DblSequence3 back;
  wire::gravityToWire(g, back);
  CU_ASSERT(back.length() == 3 && back[0] == 0.5 && back[1] == -1.0 && back[2] == 9.8);
  v[1] = NAN;
  CU_ASSERT(wire::gravityFromWire(v, g, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "finite") != nullptr);
  v.length(2);
  CU_ASSERT(wire::gravityFromWire(v, g, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "3 numbers") != nullptr);
  hstJointMode m;
  CU_ASSERT(wire::jointMode(DS::HIGH_GAIN_MODE, &m, fresh(err)) == 0 && m == hsMODE_HIGH_GAIN);
  CU_ASSERT(wire::jointMode(DS::TORQUE_MODE, &m, fresh(err)) == 0 && m == hsMODE_TORQUE);
  bool on = false;
  CU_ASSERT(wire::sensorOption(DS::ENABLE_SENSOR, &on, fresh(err)) == 0 && on);
}

// link data: checked before anything changes; all-link data in jointId order
void testLinkData() {
  SimCore core;
  SimCore::Lock lock(core);
  hsError err = {};
  hrpsim::BodyPtr robot = sample("humanoid/humanoid.wrl");
  CU_ASSERT_EQUAL_FATAL(core.addCharacter("robot", robot, fresh(err)), 0);
  int elbow = core.link(0, "RARM_ELBOW", fresh(err));
  OpenHRP::DblSequence d;
  d.length(2);
  d[0] = 0.1;
  d[1] = 0.2;
  CU_ASSERT(wire::setLinkData(core, 0, elbow, DS::JOINT_VALUE, d, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "needs 1 numbers, got 2") != nullptr);
  d.length(1);
  d[0] = NAN;
  CU_ASSERT(wire::setLinkData(core, 0, elbow, DS::JOINT_VALUE, d, fresh(err)) < 0);
  d[0] = -0.5;
  CU_ASSERT(wire::setLinkData(core, 0, elbow, DS::ABS_ACCELERATION, d, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "ABS_ACCELERATION cannot be set") != nullptr);
  CU_ASSERT_EQUAL(wire::setLinkData(core, 0, elbow, DS::JOINT_VALUE, d, fresh(err)), 0);
  OpenHRP::DblSequence all;
  CU_ASSERT_EQUAL(wire::getAllLinkData(core, 0, DS::JOINT_VALUE, all, fresh(err)), 0);
  CU_ASSERT_EQUAL_FATAL(all.length(), static_cast<CORBA::ULong>(robot->njoint));
  CU_ASSERT_EQUAL(all[robot->links[elbow].jointId], -0.5);
  // a NaN anywhere in the all-link data: nothing written
  for (CORBA::ULong j = 0; j < all.length(); j++) {
    all[j] = 0.25;
  }
  all[all.length() - 1] = NAN;
  CU_ASSERT(wire::setAllLinkData(core, 0, DS::JOINT_VALUE, all, fresh(err)) < 0);
  CU_ASSERT_EQUAL(hsd_state(core.world(), 0)->q[elbow], -0.5);
  CU_ASSERT(wire::getAllLinkData(core, 0, DS::CONSTRAINT_FORCE, all, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "link by link") != nullptr);
}

// a box resting on the floor: one Collision for the link pair, its 4 points with OpenHRP's
// normal (from the pair's first link into its second) and the contact forces carrying the box
void testWorldStateContacts() {
  SimCore core;
  SimCore::Lock lock(core);
  hsError err = {};
  hrpsim::BodyPtr box = hrpsim::shareBody(hst_loadVrmlText("core_box.wrl", kBox));
  hrpsim::BodyPtr floor = sample("floor/floor.wrl");
  CU_ASSERT_EQUAL_FATAL(core.addCharacter("box", box, fresh(err)), 0);
  CU_ASSERT_EQUAL_FATAL(core.addCharacter("floor", floor, fresh(err)), 1);
  hsdSurface s = {0.5, 0.5, 0.0, 0.01};
  CU_ASSERT_EQUAL(core.addContactPair(0, -1, 1, -1, s, fresh(err)), 0);
  double p[3] = {0, 0, 0.05}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hsd_setLinkPose(core.world(), 0, 0, p, R, fresh(err)), 0);
  CU_ASSERT_EQUAL(core.start(fresh(err)), 0);
  for (int i = 0; i < 200; i++) {
    CU_ASSERT_EQUAL(core.step(fresh(err)), 0);
  }
  OpenHRP::WorldState_var ws = wire::worldState(core);
  CU_ASSERT_EQUAL(ws->time, core.time());
  CU_ASSERT_EQUAL_FATAL(ws->collisions.length(), 1u);
  const OpenHRP::Collision &c = ws->collisions[0];
  CU_ASSERT_STRING_EQUAL(c.pair.charName1.in(), "box");
  CU_ASSERT_STRING_EQUAL(c.pair.charName2.in(), "floor");
  CU_ASSERT_EQUAL_FATAL(c.points.length(), 4u);
  for (CORBA::ULong i = 0; i < 4; i++) {
    HST_NEAR(c.points[i].normal[2], -1.0, 1e-9);  // from the box into the floor
    HST_NEAR(c.points[i].position[2], 0.0, 1e-4);
  }
  // CONSTRAINT_FORCE of the box: its 4 points carry its weight (1 kg)
  OpenHRP::DblSequence cf;
  CU_ASSERT_EQUAL(wire::getLinkData(core, 0, 0, DS::CONSTRAINT_FORCE, cf, fresh(err)), 0);
  CU_ASSERT_EQUAL_FATAL(cf.length(), 24u);
  double fz = 0;
  for (int i = 0; i < 4; i++) {
    fz += cf[6 * i + 5];
  }
  HST_NEAR(fz, 9.8, 1e-6);
  // the floor's side gets the opposite
  CU_ASSERT_EQUAL(wire::getLinkData(core, 1, 0, DS::CONSTRAINT_FORCE, cf, fresh(err)), 0);
  CU_ASSERT_EQUAL_FATAL(cf.length(), 24u);
  HST_NEAR(cf[5] + cf[11] + cf[17] + cf[23], -9.8, 1e-6);
  OpenHRP::LinkPairSequence_var colliding = wire::collidingPairs(core, 1);
  CU_ASSERT_EQUAL(colliding->length(), 1u);
}

}  // namespace

extern "C" void register_sim_core(void) {
  CU_pSuite s = hst_addSuite("server_sim_core");
  hsd_initODE();
  CU_add_test(s, "periods and times in whole steps", testPeriods);
  CU_add_test(s, "names, sensors in sensorId order, call order", testNamesAndSensors);
  CU_add_test(s, "the world's clock; sensors on and off", testClockAndSensors);
  CU_add_test(s, "gravity's sign and modes on the wire", testGravityAndModes);
  CU_add_test(s, "link data checked before anything changes", testLinkData);
  CU_add_test(s, "world state: contacts by link pair, OpenHRP's normal", testWorldStateContacts);
}
