// test_sim_core.cpp - the simulation's wire conversions (wire.h) over the core (core/core.h,
// whose own behaviour tests/unit/core/ asserts), without any server: gravity's sign on the
// wire, link data checked before anything changes, SensorState's blocks, and contacts grouped
// by link pair with OpenHRP's normal.

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
#include "sim.h"
#include "test_support.h"
#include "wire.h"

namespace {

using hrpsim::SimPtr;
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
  int m = -1;
  CU_ASSERT(wire::jointMode(DS::HIGH_GAIN_MODE, &m, fresh(err)) == 0 && m == 1);
  CU_ASSERT(wire::jointMode(DS::TORQUE_MODE, &m, fresh(err)) == 0 && m == 0);
  bool on = false;
  CU_ASSERT(wire::sensorOption(DS::ENABLE_SENSOR, &on, fresh(err)) == 0 && on);
}

// link data: checked before anything changes; all-link data in jointId order
void testLinkData() {
  SimPtr sim = hrpsim::makeSim();
  hsSim *core = sim.get();
  hsError err = {};
  hsBody *robot = hst_loadSample("humanoid/humanoid.wrl");
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(core, "robot", robot, 1, fresh(err)), 0);
  int elbow = hs_link(core, 0, "RARM_ELBOW", fresh(err));
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
  CU_ASSERT_EQUAL(hs_q(core, 0)[elbow], -0.5);
  CU_ASSERT(wire::getAllLinkData(core, 0, DS::CONSTRAINT_FORCE, all, fresh(err)) < 0);
  CU_ASSERT(std::strstr(err.message, "link by link") != nullptr);
}

// a box resting on the floor: one Collision for the link pair, its 4 points with OpenHRP's
// normal (from the pair's first link into its second) and the contact forces carrying the box
void testWorldStateContacts() {
  SimPtr sim = hrpsim::makeSim();
  hsSim *core = sim.get();
  hsError err = {};
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(core, "box", hst_loadVrmlText("core_box.wrl", kBox), 1, fresh(err)), 0);
  CU_ASSERT_EQUAL_FATAL(
      hs_addCharacter(core, "floor", hst_loadSample("floor/floor.wrl"), 1, fresh(err)), 1);
  CU_ASSERT_EQUAL(hs_addContactPair(core, "box", "", "floor", "", 0.5, 0.5, 0.0, 0.01,
                                    fresh(err)),
                  0);
  double pose[12] = {0, 0, 0.05, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  CU_ASSERT_EQUAL(hs_setLinkData(core, 0, 0, hsDATA_ABS_TRANSFORM, pose, 12, fresh(err)), 0);
  CU_ASSERT_EQUAL(hs_start(core, fresh(err)), 0);
  for (int i = 0; i < 200; i++) {
    CU_ASSERT_EQUAL(hs_step(core, fresh(err)), 0);
  }
  OpenHRP::WorldState_var ws = wire::worldState(core);
  CU_ASSERT_EQUAL(ws->time, hs_time(core));
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

// SensorState: q, dq, u in jointId order and each sensor type's block in sensorId order, the
// readings the core reports (zeros while sensors are off)
void testSensorState() {
  SimPtr sim = hrpsim::makeSim();
  hsSim *core = sim.get();
  hsError err = {};
  hsBody *arm = hst_loadSample("arm6/arm6.wrl");
  CU_ASSERT_EQUAL_FATAL(hs_addCharacter(core, "arm", arm, 1, fresh(err)), 0);
  CU_ASSERT_EQUAL(hs_start(core, fresh(err)), 0);
  CU_ASSERT_EQUAL(hs_stepN(core, 3, fresh(err)), 0);
  OpenHRP::SensorState_var off = wire::sensorState(core, 0);
  CU_ASSERT_EQUAL_FATAL(off->force.length(), 1u);
  CU_ASSERT_EQUAL(off->force[0][2], 0.0);
  CU_ASSERT_EQUAL(off->q.length(), static_cast<CORBA::ULong>(hs_jointIdCount(core, 0)));
  hs_enableSensors(core, 1);
  OpenHRP::SensorState_var on = wire::sensorState(core, 0);
  int n = 0;
  const int *force = hs_sensorsOfType(core, 0, hsSENSOR_FORCE, &n);
  const double *f = hs_reading(core, 0, force[0], &n);
  CU_ASSERT_EQUAL_FATAL(n, 6);
  for (int k = 0; k < 6; k++) {
    CU_ASSERT_EQUAL(on->force[0][k], f[k]);
  }
  CU_ASSERT(std::fabs(f[2]) > 0.1);
  int l = hs_jointLinks(core, 0)[1];
  CU_ASSERT_EQUAL(on->q[1], hs_q(core, 0)[l]);
}

}  // namespace

extern "C" void register_sim_core(void) {
  CU_pSuite s = hst_addSuite("server_sim_core");
  hs_initProcess();
  CU_add_test(s, "gravity's sign and modes on the wire", testGravityAndModes);
  CU_add_test(s, "link data checked before anything changes", testLinkData);
  CU_add_test(s, "world state: contacts by link pair, OpenHRP's normal", testWorldStateContacts);
  CU_add_test(s, "sensor state: blocks in sensorId order", testSensorState);
}
