"""End-to-end tests of the DynamicsSimulator server, through CORBA from Python.

Every test talks to a real hrpsim-dynamics (and ModelLoader) started by the ``servers``
fixture, and checks physics at the servant level against an analytic or independent answer;
every test that takes ``sim`` runs on both engines (ODE and the joint-space engine, chosen
through hrpsim's setSolver; where the joint-space engine's rotors change the answer, the answer
has them):

- free fall and sideways gravity against the discrete solution of the integrator (ODE's
  semi-implicit Euler: v(k+1) = v(k) + a dt, x(k+1) = x(k) + v(k+1) dt, so after N steps from
  rest x = x0 + a dt^2 N (N + 1) / 2 and v = a N dt); tolerance 1e-9 m, far above the
  rounding of a few hundred additions of ~1e-6 m (~1e-13 m) and far below any modelling error;
- a box resting on the floor: penetration and drift under 1 mm (the contact's surface layer is
  0.5 mm), contact forces summing to its weight within 1 % (at rest the contact impulses carry
  exactly m g dt per step; 1 % leaves room for the ERP correction of residual penetration);
- a single joint in torque mode in zero gravity: angular acceleration tau / I within 1 %
  (dWorldStep solves the hinge exactly; the 1 % covers the hinge's ERP drift correction);
- high-gain tracking of a sinusoid on every joint of the 6-joint arm: error under 1e-6 rad
  (the servo lands on the commanded value to rounding); the static holding torque of a joint
  against gravity within 5 % of a statics computation done here from the BodyInfo (masses and
  centres of mass through our own forward kinematics);
- EXTERNAL_FORCE: one step of F gives exactly F/m dt (1e-9 relative; one linear solve), a
  torque about the link origin of a body whose centre of mass is off that origin gives the
  angular velocity of the equivalent wrench about the centre of mass; the force is applied for
  one step only;
- sensors at rest: the accelerometer reads (0, 0, 9.8) within 0.05 m/s^2 (0.5 %, the settling
  of the contacts after 1 s), the gyro zero within 1e-3 rad/s, the ankle force sensors carry
  the weight of everything above the feet within 1 %, the wrist sensors the hands' weight
  within 1 %;
- the Jacobian against central finite differences of link poses read through the server
  (h = 1e-6 rad, truncation ~h^2, rounding ~1e-10: agreement to 1e-6);
- IK: reached within 1e-6 m / 1e-6 rad (the solver's tolerances, plus 1e-9 for the pose
  round trip); unreachable leaves every number bit for bit unchanged.

Each validation error must raise (BAD_PARAM, or BAD_INV_ORDER for calls out of order) and leave
the instance answering; the server logs one line naming the problem.
"""

import math
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP
from hrpsim.models import OPENHRP_PROTOS

from conftest import describe  # noqa: I100

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
ARM6 = MODELS / "arm6" / "arm6.wrl"

DS = OpenHRP.DynamicsSimulator
G = 9.8
DT = 0.001
I3 = [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]

# =============================================================================================
# test models, written here so their numbers are in plain sight
# =============================================================================================

PROTOS = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS


def box_inertia(mass, size):
    a, b, c = size
    return (mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12, mass * (a * a + b * b) / 12)


def box_model(name, mass, size, com=(0.0, 0.0, 0.0)):
    """A free box: root link BOX, the box shape centred on the centre of mass ``com``."""
    ix, iy, iz = box_inertia(mass, size)
    return PROTOS + """
DEF %s Humanoid {
  name "%s"
  humanoidBody [
    DEF BOX Joint {
      jointType "free"
      children [
        Segment {
          centerOfMass %g %g %g
          mass %.17g
          momentsOfInertia [ %.17g 0 0 0 %.17g 0 0 0 %.17g ]
          children [ Transform { translation %g %g %g
                                 children Shape { geometry Box { size %g %g %g } } } ]
        }
      ]
    }
  ]
}
""" % (name, name, *com, mass, ix, iy, iz, *com, *size)


# the hinge: a fixed base and one bar of 2 kg, 0.6 x 0.05 x 0.05 m, turning about y at the
# base, its centre of mass 0.3 m out along x
HINGE_MASS = 2.0
HINGE_COM = 0.3
HINGE_IYY = HINGE_MASS * (0.6 ** 2 + 0.05 ** 2) / 12 + HINGE_MASS * HINGE_COM ** 2

HINGE_WRL = PROTOS + """
DEF HINGE Humanoid {
  name "HINGE"
  humanoidBody [
    DEF BASE Joint {
      jointType "fixed"
      translation 0 0 1
      children [
        Segment { mass 1 momentsOfInertia [ 0.001 0 0 0 0.001 0 0 0 0.001 ]
                  children [ Shape { geometry Box { size 0.1 0.1 0.1 } } ] }
        DEF ARM Joint {
          jointType "rotate"
          jointId 0
          jointAxis 0 1 0
          children [
            Segment {
              centerOfMass 0.3 0 0
              mass 2
              momentsOfInertia [ %.17g 0 0 0 %.17g 0 0 0 %.17g ]
              children [ Transform { translation 0.3 0 0
                                     children Shape { geometry Box { size 0.6 0.05 0.05 } } } ]
            }
          ]
        }
      ]
    }
  ]
}
""" % (HINGE_MASS * (0.05 ** 2 + 0.05 ** 2) / 12, HINGE_MASS * (0.6 ** 2 + 0.05 ** 2) / 12,
       HINGE_MASS * (0.6 ** 2 + 0.05 ** 2) / 12)

BOX_MASS = 1.0
BOX_SIZE = (0.2, 0.2, 0.2)

# =============================================================================================
# fixtures and helpers
# =============================================================================================


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.fail("hrpsim-dynamics was not started (is it built in %s?)"
                    % hrpsim.paths.default_bin_dir(), pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def bodies(client, tmp_path_factory):
    """BodyInfo references of every model the tests use, loaded once."""
    d = tmp_path_factory.mktemp("dyn-models")
    files = {
        "box": box_model("TEST_BOX", BOX_MASS, BOX_SIZE),
        "offbox": box_model("OFF_BOX", 2.0, (0.4, 0.2, 0.2), com=(0.1, 0.0, 0.0)),
        "hinge": HINGE_WRL,
    }
    out = {"floor": client.load_body(FLOOR), "humanoid": client.load_body(HUMANOID),
           "arm6": client.load_body(ARM6)}
    for key, text in files.items():
        path = d / (key + ".wrl")
        path.write_text(text)
        out[key] = client.load_body(path)
    return out


@pytest.fixture(scope="module")
def humanoid_links(bodies):
    return bodies["humanoid"]._get_links()


@pytest.fixture
def make_sim(client):
    """A factory of fresh simulators; every one made is destroyed after the test."""
    made = []

    def make():
        sim = client.dynamics_simulator()
        made.append(sim)
        return sim

    yield make
    for sim in made:
        try:
            sim.destroy()
        except CORBA.OBJECT_NOT_EXIST:
            pass


@pytest.fixture(params=["ode", "joint_space"])
def engine(request):
    """The engine a test's ``sim`` steps: each test that takes ``sim`` runs on both."""
    return request.param


@pytest.fixture
def sim(make_sim, engine):
    """A fresh simulator on the engine, chosen through hrpsim's setSolver (the server's default
    is the joint-space engine; ODE by name)."""
    from hrpsim._idl import hrpsim as H
    s = make_sim()._narrow(H.DynamicsSimulator)
    s.setSolver(engine, [])
    return s


def rot(axis, angle):
    """Rotation matrix about a (not necessarily unit) axis."""
    x, y, z = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    c, s, t = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def transform(p, R=np.eye(3)):
    return [float(v) for v in p] + [float(v) for v in np.asarray(R).reshape(9)]


def get_pose(sim, ch, link):
    d = sim.getCharacterLinkData(ch, link, DS.ABS_TRANSFORM)
    assert len(d) == 12
    return np.array(d[:3]), np.array(d[3:]).reshape(3, 3)


def set_pose(sim, ch, link, p, R=np.eye(3)):
    sim.setCharacterLinkData(ch, link, DS.ABS_TRANSFORM, transform(p, R))


def get6(sim, ch, link, kind):
    d = sim.getCharacterLinkData(ch, link, kind)
    assert len(d) == 6
    return np.array(d[:3]), np.array(d[3:])


def steps(sim, n):
    for _ in range(n):
        sim.stepSimulation()


def positions(ws):
    """The character positions of a WorldState as plain tuples (omniORBpy structs compare by
    identity)."""
    return [(c.characterName, [(tuple(lp.p), tuple(lp.R)) for lp in c.linkPositions])
            for c in ws.characterPositions]


def rotation_angle(R):
    """Angle of a rotation matrix [rad]."""
    return math.acos(max(-1.0, min(1.0, (np.trace(R) - 1) / 2)))


def box_world(sim, bodies, z0, floor=False, gvector=(0.0, 0.0, G), dt=DT):
    """One box (character 'box', link BOX) with its centre at height z0 (and the floor)."""
    if floor:
        sim.registerCharacter("floor", bodies["floor"])
    sim.registerCharacter("box", bodies["box"])
    sim.init(dt, DS.EULER, DS.ENABLE_SENSOR)
    sim.setGVector(list(gvector))
    set_pose(sim, "box", "BOX", (0.0, 0.0, z0))
    if floor:
        sim.registerCollisionCheckPair("floor", "", "box", "", 0.5, 0.5, [], [], 0.01, 0.0)
    sim.initSimulation()


def joint_links(links):
    """jointId -> link, for the links with a jointId."""
    return {lk.jointId: lk for lk in links if lk.jointId >= 0}


def standing_humanoid(sim, bodies, sensors=DS.ENABLE_SENSOR):
    """Floor + humanoid 'robot' at its initial pose (soles on z = 0), high gain, contact pair."""
    sim.registerCharacter("floor", bodies["floor"])
    sim.registerCharacter("robot", bodies["humanoid"])
    sim.init(DT, DS.EULER, sensors)
    sim.setGVector([0.0, 0.0, G])
    sim.setCharacterAllJointModes("robot", DS.HIGH_GAIN_MODE)
    sim.registerCollisionCheckPair("floor", "", "robot", "", 0.5, 0.5, [], [], 0.01, 0.0)
    sim.initSimulation()


# =============================================================================================
# factory, gravity, free fall
# =============================================================================================


def test_factory_is_bound_and_creates_distinct_worlds(client, make_sim):
    assert "DynamicsSimulatorFactory" in client.names()
    a, b = make_sim(), make_sim()
    assert a._is_a("IDL:OpenHRP/DynamicsSimulator:1.0")
    assert not a._is_equivalent(b)


def test_gvector_returns_what_was_set(sim):
    assert sim.getGVector() == [0.0, 0.0, 9.8]  # OpenHRP's default: ordinary gravity
    sim.setGVector([1.5, -2.25, 9.81])
    assert sim.getGVector() == [1.5, -2.25, 9.81]  # exactly what was set


@pytest.mark.parametrize("dt", [0.001, 0.004])
def test_free_fall_matches_the_discrete_solution(sim, bodies, dt):
    z0, n = 5.0, 300
    box_world(sim, bodies, z0, dt=dt)
    steps(sim, n)
    p, R = get_pose(sim, "box", "BOX")
    v, w = get6(sim, "box", "BOX", DS.ABS_VELOCITY)
    a, dw = get6(sim, "box", "BOX", DS.ABS_ACCELERATION)
    # semi-implicit Euler from rest: z = z0 - g dt^2 N (N + 1) / 2, v = -g N dt
    assert p == pytest.approx([0.0, 0.0, z0 - G * dt * dt * n * (n + 1) / 2], abs=1e-9)
    assert v == pytest.approx([0.0, 0.0, -G * n * dt], abs=1e-9)
    assert a == pytest.approx([0.0, 0.0, -G], abs=1e-6)  # (v(t) - v(t - dt)) / dt
    assert np.allclose(R, np.eye(3), atol=1e-12) and np.allclose(w, 0, atol=1e-12)
    assert sim.getWorldState().time == pytest.approx(n * dt, abs=1e-12)


def test_gravity_vector_is_minus_the_acceleration_in_any_direction(sim, bodies):
    # OpenHRP's convention: setGVector(g) makes bodies accelerate by -g, so (2, -1, 9.8) is
    # gravity pulling towards -x, +y and -z
    gvec = (2.0, -1.0, 9.8)
    z0, n = 3.0, 200
    box_world(sim, bodies, z0, gvector=gvec)
    assert sim.getGVector() == list(gvec)
    steps(sim, n)
    p, _ = get_pose(sim, "box", "BOX")
    k = DT * DT * n * (n + 1) / 2
    assert p == pytest.approx([-gvec[0] * k, -gvec[1] * k, z0 - gvec[2] * k], abs=1e-9)


# =============================================================================================
# contacts
# =============================================================================================


def test_box_rests_on_the_floor_with_contacts_reported(sim, bodies):
    half = BOX_SIZE[2] / 2
    box_world(sim, bodies, half, floor=True)
    steps(sim, 3000)  # 3 s
    p, R = get_pose(sim, "box", "BOX")
    v, w = get6(sim, "box", "BOX", DS.ABS_VELOCITY)
    assert abs(p[2] - half) < 1e-3, "penetration or lift-off over 1 mm: %r" % p
    assert math.hypot(p[0], p[1]) < 1e-3, "horizontal drift over 1 mm: %r" % p
    assert rotation_angle(R) < 1e-3
    assert np.linalg.norm(v) < 1e-3 and np.linalg.norm(w) < 1e-2

    # getWorldState: one colliding link pair, floor/root with box/BOX, its points on z = 0
    ws = sim.getWorldState()
    assert [c.characterName for c in ws.characterPositions] == ["floor", "box"]
    assert len(ws.collisions) == 1
    col = ws.collisions[0]
    names = {(col.pair.charName1, col.pair.linkName1), (col.pair.charName2, col.pair.linkName2)}
    assert names == {("floor", "root"), ("box", "BOX")}
    assert len(col.points) >= 3
    # OpenHRP's normal points from the first link into the second (its contact solver takes it
    # as the inward normal of link 2): up into the box when the floor comes first
    nz = 1.0 if col.pair.charName1 == "floor" else -1.0
    for pt in col.points:
        assert abs(pt.position[2]) < 1e-3
        assert abs(pt.position[0]) <= half + 1e-6 and abs(pt.position[1]) <= half + 1e-6
        assert pt.normal == pytest.approx([0.0, 0.0, nz], abs=1e-9)
        assert 0.0 <= pt.idepth < 1e-3

    # CONSTRAINT_FORCE: per contact point on the link, point then force on that link
    cf = sim.getCharacterLinkData("box", "BOX", DS.CONSTRAINT_FORCE)
    assert len(cf) == 6 * len(col.points)
    cf = np.array(cf).reshape(-1, 6)
    assert np.allclose(sorted(map(tuple, cf[:, :3])),
                       sorted(tuple(pt.position) for pt in col.points), atol=1e-12)
    total = cf[:, 3:].sum(axis=0)
    assert total[2] == pytest.approx(BOX_MASS * G, rel=1e-2), "contact forces %r" % cf
    assert abs(total[0]) < 1e-2 and abs(total[1]) < 1e-2
    floor_cf = np.array(sim.getCharacterLinkData("floor", "root", DS.CONSTRAINT_FORCE))
    assert floor_cf.reshape(-1, 6)[:, 3:].sum(axis=0) == pytest.approx(-total, abs=1e-9)

    # colliding pairs and collision checks on the registered pair
    found, pairs = sim.getCharacterCollidingPairs("box")
    assert found and len(pairs) == 1
    assert {pairs[0].charName1, pairs[0].charName2} == {"floor", "box"}
    assert sim.getCharacterCollidingPairs("floor")[0]
    assert sim.checkCollision(True)
    hits = sim.checkIntersection(True)
    assert [(h.charName1, h.charName2) for h in hits] == [("floor", "box")]


def test_check_distance_follows_the_collision_detector(sim, bodies):
    # the box's bottom face 0.3 m above the floor's top face (z = 0): OpenHRP's Distance gives
    # minD between the surfaces, point0 on the pair's first link, point1 on its second
    # (shape sizes travel as float32 in BodyInfo: 0.1 m is off by 1.5e-9 m, hence 1e-7)
    half = BOX_SIZE[2] / 2
    box_world(sim, bodies, half + 0.3, floor=True, gvector=(0.0, 0.0, 0.0))
    ds = sim.checkDistance()
    assert len(ds) == 1
    d = ds[0]
    assert (d.pair.charName1, d.pair.linkName1, d.pair.charName2, d.pair.linkName2) == \
        ("floor", "root", "box", "BOX")
    assert d.minD == pytest.approx(0.3, abs=1e-7)
    assert d.point0[2] == pytest.approx(0.0, abs=1e-7)  # on the floor
    assert d.point1[2] == pytest.approx(0.3, abs=1e-7)  # on the box
    assert max(abs(d.point1[0]), abs(d.point1[1])) <= half + 1e-7
    assert d.point0[:2] == pytest.approx(d.point1[:2], abs=1e-7)
    # sunk 5 cm into the floor: OpenHRP's surfaces touch, minD 0, both points the same
    set_pose(sim, "box", "BOX", (0.0, 0.0, half - 0.05))
    d = sim.checkDistance()[0]
    assert d.minD == 0.0
    assert list(d.point0) == list(d.point1)


def test_intersection_pairs_honour_their_tolerance(sim, bodies):
    # two boxes 3 cm apart, watched by two intersection pairs of 1 cm and 5 cm tolerance: only
    # the 5 cm one reports them; at 5 mm apart both do; checkDistance lists both link pairs
    sim.registerCharacter("box", bodies["box"])
    sim.registerCharacter("box2", bodies["box"])
    sim.init(DT, DS.EULER, DS.ENABLE_SENSOR)
    sim.setGVector([0.0, 0.0, 0.0])
    set_pose(sim, "box", "BOX", (0.0, 0.0, 1.0))
    set_pose(sim, "box2", "BOX", (BOX_SIZE[0] + 0.03, 0.0, 1.0))
    sim.registerIntersectionCheckPair("box", "", "box2", "", 0.01)
    sim.registerIntersectionCheckPair("box", "", "box2", "", 0.05)
    sim.initSimulation()
    hits = sim.checkIntersection(True)
    assert [h.tolerance for h in hits] == [pytest.approx(0.05)]
    # link pairs, as OpenHRP's CollisionDetector lists them: the empty link names expanded
    assert [(h.charName1, h.linkName1, h.charName2, h.linkName2) for h in hits] == \
        [("box", "BOX", "box2", "BOX")]
    assert sim.checkCollision(False)
    ds = sim.checkDistance()
    assert [d.pair.tolerance for d in ds] == [pytest.approx(0.01), pytest.approx(0.05)]
    assert [d.minD for d in ds] == [pytest.approx(0.03, abs=1e-7)] * 2
    set_pose(sim, "box2", "BOX", (BOX_SIZE[0] + 0.005, 0.0, 1.0))
    assert [h.tolerance for h in sim.checkIntersection(True)] == \
        [pytest.approx(0.01), pytest.approx(0.05)]
    set_pose(sim, "box2", "BOX", (BOX_SIZE[0] + 0.08, 0.0, 1.0))
    assert sim.checkIntersection(True) == []
    assert not sim.checkCollision(True)


def test_contacts_are_the_collision_detectors(servers, client, sim, bodies):
    # the same poses give the same contact points, normals and depths in the DynamicsSimulator's
    # world state (the contacts of a step are found at its starting poses) as in a
    # CollisionDetector (one library answers both)
    if not servers.has("CollisionDetectorFactory"):
        pytest.fail("hrpsim-collision was not started", pytrace=False)
    half = BOX_SIZE[2] / 2
    R = np.array([[math.cos(0.3), -math.sin(0.3), 0], [math.sin(0.3), math.cos(0.3), 0],
                  [0, 0, 1]]) @ np.array([[1, 0, 0], [0, math.cos(0.2), -math.sin(0.2)],
                                          [0, math.sin(0.2), math.cos(0.2)]])
    box_world(sim, bodies, half, floor=True)
    set_pose(sim, "box", "BOX", (0.1, -0.05, half - 0.01), R)
    positions = list(sim.getWorldState().characterPositions)
    sim.stepSimulation()
    ws = sim.getWorldState()
    assert len(ws.collisions) == 1
    got = ws.collisions[0]
    cd = client.resolve("CollisionDetectorFactory", OpenHRP.CollisionDetectorFactory).create()
    try:
        cd.registerCharacter("floor", bodies["floor"])
        cd.registerCharacter("box", bodies["box"])
        cd.addCollisionPair(OpenHRP.LinkPair("floor", "root", "box", "BOX", 0.0))
        found, cols = cd.queryContactDeterminationForDefinedPairs(positions)
        assert found and len(cols) == 1
        want = cols[0]
        assert len(want.points) == len(got.points) > 0
        key = lambda pt: tuple(round(x, 9) for x in pt.position)  # noqa: E731
        for a, b in zip(sorted(got.points, key=key), sorted(want.points, key=key)):
            assert list(a.position) == pytest.approx(list(b.position), abs=1e-12)
            assert list(a.normal) == pytest.approx(list(b.normal), abs=1e-12)
            assert a.idepth == pytest.approx(b.idepth, abs=1e-12)
            assert a.normal[2] > 0.9  # from the floor (first) up into the box
    finally:
        cd.destroy()


def test_no_contact_without_a_registered_pair(sim, bodies):
    sim.registerCharacter("floor", bodies["floor"])
    sim.registerCharacter("box", bodies["box"])
    set_pose(sim, "box", "BOX", (0.0, 0.0, 0.05))  # half sunk into the floor
    sim.initSimulation()
    steps(sim, 10)
    assert sim.getWorldState().collisions == []
    assert not sim.checkCollision(True)
    assert sim.getCharacterLinkData("box", "BOX", DS.CONSTRAINT_FORCE) == []
    p, _ = get_pose(sim, "box", "BOX")
    assert p[2] < 0.05  # falls through


def test_intersection_pairs(sim, bodies):
    sim.registerCharacter("box", bodies["box"])
    sim.registerCharacter("hinge", bodies["hinge"])
    sim.registerIntersectionCheckPair("box", "", "hinge", "ARM", 0.0)
    set_pose(sim, "box", "BOX", (0.3, 0.0, 1.0))  # through the bar
    sim.setGVector([0.0, 0.0, 0.0])
    sim.initSimulation()
    hits = sim.checkIntersection(True)
    assert [(h.charName1, h.charName2, h.linkName2) for h in hits] == [("box", "hinge", "ARM")]
    assert sim.checkCollision(False)
    set_pose(sim, "box", "BOX", (0.3, 0.0, 2.0))  # clear of it
    assert sim.checkIntersection(True) == []
    assert not sim.checkCollision(True)
    # intersection pairs never make contact forces
    set_pose(sim, "box", "BOX", (0.3, 0.0, 1.0))
    steps(sim, 5)
    assert sim.getWorldState().collisions == []


# =============================================================================================
# joint modes
# =============================================================================================


def test_torque_mode_single_joint(sim, bodies):
    sim.registerCharacter("hinge", bodies["hinge"])
    sim.init(DT, DS.EULER, DS.DISABLE_SENSOR)
    sim.setGVector([0.0, 0.0, 0.0])
    sim.setCharacterAllJointModes("hinge", DS.TORQUE_MODE)
    sim.initSimulation()
    tau, n = 0.5, 200
    alpha = tau / HINGE_IYY
    for _ in range(n):
        sim.setCharacterLinkData("hinge", "ARM", DS.JOINT_TORQUE, [tau])
        sim.stepSimulation()
    q = sim.getCharacterLinkData("hinge", "ARM", DS.JOINT_VALUE)[0]
    dq = sim.getCharacterLinkData("hinge", "ARM", DS.JOINT_VELOCITY)[0]
    ddq = sim.getCharacterLinkData("hinge", "ARM", DS.JOINT_ACCELERATION)[0]
    assert ddq == pytest.approx(alpha, rel=1e-2)
    assert dq == pytest.approx(alpha * n * DT, rel=1e-2)
    assert q == pytest.approx(alpha * DT * DT * n * (n + 1) / 2, rel=1e-2)
    assert sim.getCharacterLinkData("hinge", "ARM", DS.JOINT_TORQUE) == [tau]
    # the sensor state carries the same joint data in jointId order
    ss = sim.getCharacterSensorState("hinge")
    assert ss.q == pytest.approx([q], abs=1e-15) and ss.u == [tau]


def forward_kinematics(links, q):
    """World transforms (4x4) of every link at joint values q (by link index), root at its
    initial pose: our own FK, independent of the server's."""
    frames = []
    for i, lk in enumerate(links):
        local = np.eye(4)
        local[:3, :3] = rot(lk.rotation[:3], lk.rotation[3]) if lk.rotation[3] else np.eye(3)
        local[:3, 3] = lk.translation
        if lk.jointType == "rotate":
            j = np.eye(4)
            j[:3, :3] = rot(lk.jointAxis, q[i])
            local = local @ j
        elif lk.jointType == "slide":
            j = np.eye(4)
            j[:3, 3] = np.asarray(lk.jointAxis) * q[i]
            local = local @ j
        frames.append(local if lk.parentIndex < 0 else frames[lk.parentIndex] @ local)
    return frames


def test_high_gain_arm_tracks_a_sinusoid(sim, bodies):
    links = bodies["arm6"]._get_links()
    sim.registerCharacter("arm", bodies["arm6"])
    sim.init(DT, DS.EULER, DS.DISABLE_SENSOR)
    sim.setCharacterAllJointModes("arm", DS.HIGH_GAIN_MODE)
    sim.initSimulation()
    nj = sum(1 for lk in links if lk.jointId >= 0)
    amp, omega = 0.3, 2 * math.pi

    def target(t):
        return [amp * math.sin(omega * t + 0.5 * j) for j in range(nj)]

    worst = 0.0
    for k in range(1, 301):
        sim.setCharacterAllLinkData("arm", DS.JOINT_VALUE, target(k * DT))
        sim.stepSimulation()
        q = sim.getCharacterAllLinkData("arm", DS.JOINT_VALUE)
        worst = max(worst, max(abs(a - b) for a, b in zip(q, target(k * DT))))
    assert worst < 1e-6, "tracking error %.3g rad" % worst
    # link frames follow the joints: the flange where our own FK puts it
    qlinks = [0.0] * len(links)
    for lk_i, lk in enumerate(links):
        if lk.jointId >= 0:
            qlinks[lk_i] = target(300 * DT)[lk.jointId]
    frames = forward_kinematics(links, qlinks)
    p, R = get_pose(sim, "arm", links[-1].name)
    assert p == pytest.approx(frames[-1][:3, 3], abs=1e-6)
    assert np.allclose(R, frames[-1][:3, :3], atol=1e-6)


def test_high_gain_holding_torque_matches_statics(sim, bodies):
    links = bodies["arm6"]._get_links()
    sim.registerCharacter("arm", bodies["arm6"])
    sim.init(DT, DS.EULER, DS.DISABLE_SENSOR)
    sim.setCharacterAllJointModes("arm", DS.HIGH_GAIN_MODE)
    q = [0.0] * len(links)
    j2 = next(i for i, lk in enumerate(links) if lk.jointId == 1)
    q[j2] = 0.5
    sim.setCharacterLinkData("arm", links[j2].name, DS.JOINT_VALUE, [0.5])
    sim.initSimulation()
    for _ in range(200):
        sim.setCharacterLinkData("arm", links[j2].name, DS.JOINT_VALUE, [0.5])
        sim.stepSimulation()
    # statics: the joint holds the weight of everything beyond it; the torque it applies to
    # its child about its axis is minus the gravity moment of the subtree
    frames = forward_kinematics(links, q)
    axis = frames[j2][:3, :3] @ np.asarray(links[j2].jointAxis, dtype=float)
    subtree = {j2}
    for i, lk in enumerate(links):
        if lk.parentIndex in subtree:
            subtree.add(i)
    moment = np.zeros(3)
    for i in subtree:
        com = frames[i][:3, :3] @ np.asarray(links[i].centerOfMass) + frames[i][:3, 3]
        moment += np.cross(com - frames[j2][:3, 3], [0.0, 0.0, -links[i].mass * G])
    expected = -float(axis @ moment)
    assert abs(expected) > 5.0  # a real load (about 8.7 N m)
    u = sim.getCharacterLinkData("arm", links[j2].name, DS.JOINT_TORQUE)[0]
    assert u == pytest.approx(expected, rel=0.05)
    j1 = next(i for i, lk in enumerate(links) if lk.jointId == 0)  # vertical axis: no load
    assert abs(sim.getCharacterLinkData("arm", links[j1].name, DS.JOINT_TORQUE)[0]) < 0.05


def pendulum_acceleration(links, q, j, armature=False):
    """Angular acceleration from rest of the subtree beyond joint j swinging as one rigid body
    about j's axis under gravity (every other joint held): gravity moment / moment of inertia,
    both about the axis, from the model's masses and inertias at joint values q; with armature
    (the joint-space engine, OpenHRP's rule) the joint's rotorInertia x gearRatio^2 too."""
    frames = forward_kinematics(links, q)
    axis = frames[j][:3, :3] @ np.asarray(links[j].jointAxis, dtype=float)
    origin = frames[j][:3, 3]
    subtree = {j}
    for i, lk in enumerate(links):
        if lk.parentIndex in subtree:
            subtree.add(i)
    moment, inertia = 0.0, 0.0
    for i in subtree:
        R = frames[i][:3, :3]
        d = R @ np.asarray(links[i].centerOfMass) + frames[i][:3, 3] - origin
        moment += axis @ np.cross(d, [0.0, 0.0, -links[i].mass * G])
        inertia += axis @ (R @ np.reshape(links[i].inertia, (3, 3)) @ R.T) @ axis
        inertia += links[i].mass * np.dot(np.cross(axis, d), np.cross(axis, d))
    if armature:
        inertia += links[j].rotorInertia * links[j].gearRatio ** 2
    return moment / inertia


@pytest.mark.parametrize("order", ["all modes, then POSITION_GIVEN", "POSITION_GIVEN, then all"])
def test_one_drive_mode_per_joint_last_call_wins(sim, bodies, order, engine):
    # OpenHRP keeps one flag per link (high gain or not): setCharacterAllJointModes and
    # POSITION_GIVEN both write it, so the later call decides. Here J2 ends in torque mode
    # (u = 0) and the others high gain: J2 starts to fall as a rigid pendulum about its axis,
    # every other joint holds exactly. (Were J2 still high gain, it would hold at 0.5 rad.)
    links = bodies["arm6"]._get_links()
    j2 = next(i for i, lk in enumerate(links) if lk.jointId == 1)
    name = links[j2].name
    sim.registerCharacter("arm", bodies["arm6"])
    sim.init(DT, DS.EULER, DS.DISABLE_SENSOR)
    if order == "all modes, then POSITION_GIVEN":
        sim.setCharacterAllJointModes("arm", DS.HIGH_GAIN_MODE)
        sim.setCharacterLinkData("arm", name, DS.POSITION_GIVEN, [0.0])
    else:
        for lk in links[1:]:
            sim.setCharacterLinkData("arm", lk.name, DS.POSITION_GIVEN, [1.0])
        sim.setCharacterAllJointModes("arm", DS.TORQUE_MODE)
        for lk in links[1:]:
            if lk.name != name:
                sim.setCharacterLinkData("arm", lk.name, DS.POSITION_GIVEN, [1.0])
    for i, lk in enumerate(links[1:], start=1):
        given = sim.getCharacterLinkData("arm", lk.name, DS.POSITION_GIVEN)
        assert given == [0.0 if i == j2 else 1.0], lk.name
    sim.setCharacterLinkData("arm", name, DS.JOINT_VALUE, [0.5])
    sim.initSimulation()
    q = [0.0] * len(links)
    q[j2] = 0.5
    alpha = pendulum_acceleration(links, q, j2, armature=engine == "joint_space")
    assert alpha > 5.0  # a real pull (about 8 rad/s^2)
    sim.stepSimulation()
    # the first step's acceleration is the pendulum's from rest (ODE's constraint
    # stabilisation and the motion over one step change it by far less than 1e-3)
    ddq = sim.getCharacterLinkData("arm", name, DS.JOINT_ACCELERATION)[0]
    assert ddq == pytest.approx(alpha, rel=1e-3)
    for _ in range(99):
        sim.stepSimulation()
    values = sim.getCharacterAllLinkData("arm", DS.JOINT_VALUE)
    for i, lk in enumerate(links):
        if lk.jointId >= 0 and i != j2:
            assert values[lk.jointId] == pytest.approx(0.0, abs=1e-9), lk.name
    assert values[links[j2].jointId] > 0.5 + 0.5 * alpha * 0.1 ** 2 * 0.9  # fell, accelerating
    assert sim.getCharacterLinkData("arm", name, DS.JOINT_TORQUE) == [0.0]


def test_position_given_root_moves_where_told(sim, bodies):
    box_world(sim, bodies, 1.0)
    sim.setCharacterLinkData("box", "BOX", DS.POSITION_GIVEN, [1.0])
    assert sim.getCharacterLinkData("box", "BOX", DS.POSITION_GIVEN) == [1.0]
    for k in range(1, 51):
        set_pose(sim, "box", "BOX", (0.001 * k, 0.0, 1.0 + 0.002 * k), rot((0, 0, 1), 0.01 * k))
        sim.stepSimulation()
    p, R = get_pose(sim, "box", "BOX")
    assert p == pytest.approx([0.05, 0.0, 1.1], abs=1e-9)  # gravity does not move it
    assert np.allclose(R, rot((0, 0, 1), 0.5), atol=1e-9)
    sim.setCharacterLinkData("box", "BOX", DS.POSITION_GIVEN, [0.0])
    assert sim.getCharacterLinkData("box", "BOX", DS.POSITION_GIVEN) == [0.0]


# =============================================================================================
# link data
# =============================================================================================


def test_external_force_gives_its_acceleration_for_one_step(sim, bodies):
    box_world(sim, bodies, 1.0, gvector=(0.0, 0.0, 0.0))
    f, tau = [2.0, 0.0, -1.0], [0.0, 0.0, 0.3]
    sim.setCharacterLinkData("box", "BOX", DS.EXTERNAL_FORCE, f + tau)
    assert sim.getCharacterLinkData("box", "BOX", DS.EXTERNAL_FORCE) == f + tau
    sim.stepSimulation()
    izz = box_inertia(BOX_MASS, BOX_SIZE)[2]
    v, w = get6(sim, "box", "BOX", DS.ABS_VELOCITY)
    a, dw = get6(sim, "box", "BOX", DS.ABS_ACCELERATION)
    assert v == pytest.approx(np.array(f) / BOX_MASS * DT, rel=1e-9, abs=1e-15)
    assert w == pytest.approx([0.0, 0.0, tau[2] / izz * DT], rel=1e-9, abs=1e-15)
    assert a == pytest.approx(np.array(f) / BOX_MASS, rel=1e-6, abs=1e-9)
    assert dw == pytest.approx([0.0, 0.0, tau[2] / izz], rel=1e-6, abs=1e-9)
    # cleared after the step: reads zero, and the next step does not accelerate
    assert sim.getCharacterLinkData("box", "BOX", DS.EXTERNAL_FORCE) == [0.0] * 6
    sim.stepSimulation()
    v2, w2 = get6(sim, "box", "BOX", DS.ABS_VELOCITY)
    a2, _ = get6(sim, "box", "BOX", DS.ABS_ACCELERATION)
    assert v2 == pytest.approx(v, abs=1e-12) and w2 == pytest.approx(w, abs=1e-12)
    assert a2 == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)


def test_external_torque_is_about_the_link_origin(sim, bodies):
    # OFF_BOX: 2 kg, 0.4 x 0.2 x 0.2 m, centre of mass 0.1 m along x from the link origin. A
    # force F at the link origin with zero torque is, about the centre of mass, the torque
    # (origin - com) x F: the body must start turning with I_com^-1 of that.
    m, size, r = 2.0, (0.4, 0.2, 0.2), np.array([-0.1, 0.0, 0.0])
    sim.registerCharacter("b", bodies["offbox"])
    sim.setGVector([0.0, 0.0, 0.0])
    sim.initSimulation()
    f = np.array([0.0, 3.0, 0.0])
    sim.setCharacterLinkData("b", "BOX", DS.EXTERNAL_FORCE, list(f) + [0.0, 0.0, 0.0])
    sim.stepSimulation()
    _, w = get6(sim, "b", "BOX", DS.ABS_VELOCITY)
    inertia = np.diag(box_inertia(m, size))
    expected = np.linalg.solve(inertia, np.cross(r, f)) * DT
    assert w == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_abs_transform_of_the_root_teleports_the_body(sim, bodies, humanoid_links):
    sim.registerCharacter("robot", bodies["humanoid"])
    sim.setGVector([0.0, 0.0, 0.0])
    sim.setCharacterLinkData("robot", "RARM_ELBOW", DS.JOINT_VALUE, [-0.8])
    sim.setCharacterLinkData("robot", "LLEG_KNEE", DS.JOINT_VALUE, [0.5])
    sim.calcCharacterForwardKinematics("robot")
    names = [lk.name for lk in humanoid_links]

    def poses():
        out = []
        for n in names:
            p, R = get_pose(sim, "robot", n)
            T = np.eye(4)
            T[:3, :3], T[:3, 3] = R, p
            out.append(T)
        return out

    def check_teleport(before, p, R):
        Tnew = np.eye(4)
        Tnew[:3, :3], Tnew[:3, 3] = R, p
        move = Tnew @ np.linalg.inv(before[0])
        set_pose(sim, "robot", "WAIST", p, R)
        after = poses()  # no FK call: the children follow at once
        for n, b, a in zip(names, before, after):
            assert np.allclose(a, move @ b, atol=1e-12), n
        return after

    before = poses()
    R1 = rot((0, 0, 1), 0.7) @ rot((1, 0, 0), 0.1)
    before = check_teleport(before, (1.0, 2.0, 1.5), R1)
    # while running (torque mode, zero gravity, at rest: nothing else moves it)
    sim.initSimulation()
    R2 = rot((0, 1, 0), -0.3)
    after = check_teleport(before, (-1.0, 0.5, 2.0), R2)
    sim.stepSimulation()
    ws = sim.getWorldState()
    for lp, T in zip(ws.characterPositions[0].linkPositions, after):
        assert lp.p == pytest.approx(T[:3, 3], abs=1e-9)
        assert np.allclose(np.array(lp.R).reshape(3, 3), T[:3, :3], atol=1e-9)


def test_all_link_data_are_in_joint_id_order(sim, bodies, humanoid_links):
    links = humanoid_links
    by_id = joint_links(links)
    nj = len(by_id)
    assert nj == 30 and links[29].name == "NECK_Y" and links[29].jointId == 14
    # a distinct value per joint, inside its limits
    q = []
    for j in range(nj):
        v = 0.005 * (j + 1)
        lk = by_id[j]
        q.append(v if v <= lk.ulimit[0] else -v)
    sim.registerCharacter("robot", bodies["humanoid"])
    sim.setCharacterAllLinkData("robot", DS.JOINT_VALUE, q)
    sim.calcCharacterForwardKinematics("robot")
    for lk in links:
        got = sim.getCharacterLinkData("robot", lk.name, DS.JOINT_VALUE)
        assert got == [q[lk.jointId] if lk.jointId >= 0 else 0.0], lk.name
    assert sim.getCharacterAllLinkData("robot", DS.JOINT_VALUE) == q
    # 12 numbers per joint for transforms, in jointId order, WAIST (no jointId) left out
    all_t = sim.getCharacterAllLinkData("robot", DS.ABS_TRANSFORM)
    assert len(all_t) == 12 * nj
    for j in range(nj):
        assert all_t[12 * j:12 * j + 12] == sim.getCharacterLinkData(
            "robot", by_id[j].name, DS.ABS_TRANSFORM)
    # writing all velocities in jointId order reaches the right links
    dq = [-x for x in q]
    sim.setCharacterAllLinkData("robot", DS.JOINT_VELOCITY, dq)
    assert sim.getCharacterLinkData("robot", "NECK_P", DS.JOINT_VELOCITY) == [dq[15]]
    assert sim.getCharacterLinkData("robot", "RARM_SHOULDER_P", DS.JOINT_VELOCITY) == [dq[16]]
    ss = sim.getCharacterSensorState("robot")
    assert list(ss.q) == q and list(ss.dq) == dq
    assert len(sim.getCharacterAllLinkData("robot", DS.POSITION_GIVEN)) == nj
    assert len(sim.getCharacterAllLinkData("robot", DS.ABS_VELOCITY)) == 6 * nj


# =============================================================================================
# world state and sensors
# =============================================================================================


def test_standing_humanoid_sensors_at_rest(sim, bodies, humanoid_links):
    standing_humanoid(sim, bodies)
    steps(sim, 1000)
    p, _ = get_pose(sim, "robot", "WAIST")
    assert p[2] == pytest.approx(0.82, abs=5e-3), "the robot did not stand: %r" % p

    ss = sim.getCharacterSensorState("robot")
    assert len(ss.q) == len(ss.dq) == len(ss.u) == 30
    assert len(ss.force) == 4 and all(len(f) == 6 for f in ss.force)
    assert len(ss.rateGyro) == 1 and len(ss.accel) == 1
    # one range sensor: its last scan, 257 beams (2 * (int)(2.0 / 2 / 0.0078125) + 1), each a
    # distance or 0 for no hit
    assert len(ss.range) == 1 and len(ss.range[0]) == 257
    assert all(math.isfinite(x) and x >= 0 for x in ss.range[0])
    # accelerometer on the still WAIST: minus gravity, (0, 0, +9.8)
    assert ss.accel[0] == pytest.approx([0.0, 0.0, G], abs=0.05)
    assert ss.rateGyro[0] == pytest.approx([0.0, 0.0, 0.0], abs=1e-3)
    # the ankle sensors carry everything above the feet (the ANKLE_R links, feet included,
    # hang below them); the wrist sensors the hands' weight, pulling down
    mass = {lk.name: lk.mass for lk in humanoid_links}
    total = sum(mass.values())
    above_feet = (total - mass["RLEG_ANKLE_R"] - mass["LLEG_ANKLE_R"]) * G
    fz = ss.force[0][2] + ss.force[1][2]
    assert fz == pytest.approx(above_feet, rel=1e-2)
    assert ss.force[0][2] > 0.3 * above_feet and ss.force[1][2] > 0.3 * above_feet
    assert ss.force[2][:3] == pytest.approx([0.0, 0.0, -mass["RARM_WRIST_R"] * G], rel=1e-2,
                                            abs=0.02)
    assert ss.force[3][:3] == pytest.approx([0.0, 0.0, -mass["LARM_WRIST_R"] * G], rel=1e-2,
                                            abs=0.02)
    # the same readings by sensor name
    assert sim.getCharacterSensorValues("robot", "gsensor") == list(ss.accel[0])
    assert sim.getCharacterSensorValues("robot", "gyrometer") == list(ss.rateGyro[0])
    assert sim.getCharacterSensorValues("robot", "LLEG_FSENSOR") == list(ss.force[1])
    assert sim.getCharacterSensorValues("robot", "RANGE_SENSOR") == list(ss.range[0])
    assert sim.getCharacterSensorValues("robot", "VISION_COLOR") == []
    # high gain: u reads back the torque the servo applied (a standing knee carries load)
    knee = sim.getCharacterLinkData("robot", "RLEG_KNEE", DS.JOINT_TORQUE)[0]
    assert ss.u[3] == knee

    # the world state: both characters, every link, the feet touching the floor
    ws = sim.getWorldState()
    assert ws.time == pytest.approx(1.0, abs=1e-9)
    assert [(c.characterName, len(c.linkPositions)) for c in ws.characterPositions] == [
        ("floor", 1), ("robot", 31)]
    touching = {c.pair.linkName2 if c.pair.charName2 == "robot" else c.pair.linkName1
                for c in ws.collisions}
    assert touching == {"RLEG_ANKLE_R", "LLEG_ANKLE_R"}
    found, pairs = sim.getCharacterCollidingPairs("robot")
    assert found and len(pairs) == 2


def test_sensors_disabled_read_zero(sim, bodies):
    standing_humanoid(sim, bodies, sensors=DS.DISABLE_SENSOR)
    steps(sim, 20)
    ss = sim.getCharacterSensorState("robot")
    assert len(ss.q) == 30  # joint data are always there
    assert [list(f) for f in ss.force] == [[0.0] * 6] * 4
    assert list(ss.accel[0]) == [0.0] * 3 and list(ss.rateGyro[0]) == [0.0] * 3
    assert sim.getCharacterSensorValues("robot", "gsensor") == [0.0] * 3


# =============================================================================================
# kinematics
# =============================================================================================


def joint_path(links, base, target):
    """Link indices of the numbered 1-dof joints from base to target (OpenHRP's JointPath),
    computed here from the BodyInfo."""
    def chain(i):
        out = []
        while i >= 0:
            out.append(i)
            i = links[i].parentIndex
        return out

    up, down = chain(base), chain(target)
    common = next(i for i in up if i in down)
    up = up[:up.index(common)]
    down = list(reversed(down[:down.index(common)]))

    def moving(i):
        return links[i].jointId >= 0 and links[i].jointType in ("rotate", "slide")

    return [i for i in up if moving(i)], [i for i in down if moving(i)]


def relative_pose(sim, base, target, base0):
    """target's pose with the whole body moved rigidly so that base stays at base0."""
    pb, Rb = get_pose(sim, "robot", base)
    pt, Rt = get_pose(sim, "robot", target)
    p0, R0 = base0
    M = R0 @ Rb.T
    return M @ (pt - pb) + p0, M @ Rt


@pytest.mark.parametrize("base,target", [("WAIST", "RARM_WRIST_R"),
                                         ("RLEG_ANKLE_R", "LARM_WRIST_R"),
                                         ("CHEST_Y", "NECK_P"),
                                         ("LLEG_KNEE", "LLEG_HIP_Y")])
def test_jacobian_matches_finite_differences(sim, bodies, humanoid_links, base, target):
    links = humanoid_links
    index = {lk.name: i for i, lk in enumerate(links)}
    sim.registerCharacter("robot", bodies["humanoid"])
    q = [0.1 * math.sin(j) for j in range(30)]
    q = [v if by.llimit[0] <= v <= by.ulimit[0] else -v
         for v, by in zip(q, [joint_links(links)[j] for j in range(30)])]
    sim.setCharacterAllLinkData("robot", DS.JOINT_VALUE, q)
    sim.calcCharacterForwardKinematics("robot")
    up, down = joint_path(links, index[base], index[target])
    path = up + down
    J = np.array(sim.calcCharacterJacobian("robot", base, target)).reshape(6, len(path))
    base0 = get_pose(sim, "robot", base)
    h = 1e-6
    for c, li in enumerate(path):
        name = links[li].name
        q0 = sim.getCharacterLinkData("robot", name, DS.JOINT_VALUE)[0]
        out = []
        for dq in (h, -h):
            sim.setCharacterLinkData("robot", name, DS.JOINT_VALUE, [q0 + dq])
            sim.calcCharacterForwardKinematics("robot")
            out.append(relative_pose(sim, base, target, base0))
        sim.setCharacterLinkData("robot", name, DS.JOINT_VALUE, [q0])
        (pp, Rp), (pm, Rm) = out
        lin = (pp - pm) / (2 * h)
        # angular velocity: the skew-symmetric dR/dq R^T
        S = (Rp - Rm) / (2 * h) @ ((Rp + Rm) / 2).T
        ang = np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2
        assert J[:3, c] == pytest.approx(lin, abs=1e-6), (name, "linear")
        assert J[3:, c] == pytest.approx(ang, abs=1e-6), (name, "angular")
    sim.calcCharacterForwardKinematics("robot")
    assert sim.calcCharacterJacobian("robot", base, base) == []


def test_inverse_kinematics_reachable_and_unreachable(sim, bodies, humanoid_links):
    sim.registerCharacter("robot", bodies["humanoid"])
    sim.setCharacterLinkData("robot", "RARM_ELBOW", DS.JOINT_VALUE, [-0.6])
    sim.setCharacterLinkData("robot", "RARM_SHOULDER_P", DS.JOINT_VALUE, [-0.3])
    sim.calcCharacterForwardKinematics("robot")
    names = [lk.name for lk in humanoid_links]

    def snapshot():
        return ([sim.getCharacterLinkData("robot", n, DS.ABS_TRANSFORM) for n in names],
                sim.getCharacterAllLinkData("robot", DS.JOINT_VALUE))

    p, R = get_pose(sim, "robot", "RARM_WRIST_R")
    goal_p, goal_R = p + [0.03, 0.02, 0.04], rot((0, 1, 0), 0.1) @ R
    before = snapshot()
    target = OpenHRP.LinkPosition(list(goal_p), list(goal_R.reshape(9)))
    # from the chest: only the 7 arm joints are on the path
    assert sim.calcCharacterInverseKinematics("robot", "CHEST_Y", "RARM_WRIST_R", target)
    p2, R2 = get_pose(sim, "robot", "RARM_WRIST_R")
    assert np.linalg.norm(p2 - goal_p) < 1e-6 + 1e-9
    assert rotation_angle(R2.T @ goal_R) < 1e-6 + 1e-9
    after = snapshot()
    # only the right arm moved
    for n, b, a in zip(names, before[0], after[0]):
        if not n.startswith("RARM"):
            assert a == b, n

    # unreachable: false, and not one number changed
    far = OpenHRP.LinkPosition(list(goal_p + [1.0, 0.0, 0.0]), list(goal_R.reshape(9)))
    assert not sim.calcCharacterInverseKinematics("robot", "CHEST_Y", "RARM_WRIST_R", far)
    assert snapshot() == after

    # a base other than the root: the base stays, the body moves around it
    base0 = get_pose(sim, "robot", "RLEG_ANKLE_R")
    lp, lR = get_pose(sim, "robot", "LLEG_ANKLE_R")
    goal = OpenHRP.LinkPosition(list(lp + [0.02, 0.01, 0.03]), list(lR.reshape(9)))
    assert sim.calcCharacterInverseKinematics("robot", "RLEG_ANKLE_R", "LLEG_ANKLE_R", goal)
    pb, Rb = get_pose(sim, "robot", "RLEG_ANKLE_R")
    assert pb == pytest.approx(base0[0], abs=1e-9) and np.allclose(Rb, base0[1], atol=1e-9)
    p3, _ = get_pose(sim, "robot", "LLEG_ANKLE_R")
    assert np.linalg.norm(p3 - np.array(goal.p)) < 1e-6 + 1e-9


# =============================================================================================
# instances
# =============================================================================================


def test_two_instances_are_independent(make_sim, bodies):
    a, b = make_sim(), make_sim()
    box_world(a, bodies, 2.0)
    box_world(b, bodies, 2.0, gvector=(0.0, 0.0, 0.0))  # same character name, other world
    n = 100
    for _ in range(n):
        a.stepSimulation()
        b.stepSimulation()
    assert get_pose(a, "box", "BOX")[0][2] == pytest.approx(
        2.0 - G * DT * DT * n * (n + 1) / 2, abs=1e-9)
    assert get_pose(b, "box", "BOX")[0][2] == 2.0
    a.destroy()
    b.stepSimulation()  # the other world goes on
    assert b.getWorldState().time == pytest.approx((n + 1) * DT, abs=1e-12)


def test_same_calls_give_bit_identical_worlds_and_runge_kutta_is_euler(make_sim, bodies):
    # two worlds stepped alternately with the same calls, one asking for RUNGE_KUTTA: ODE has
    # one integrator, so both must agree to the last bit (and interleaving must not matter).
    # The ODE engine by name: on the joint-space engine RUNGE_KUTTA is a fourth-order step
    # (test_integrator.py)
    from hrpsim._idl import hrpsim as H
    a, b = make_sim()._narrow(H.DynamicsSimulator), make_sim()._narrow(H.DynamicsSimulator)
    a.setSolver("ode", [])
    b.setSolver("ode", [])
    for sim, method in ((a, DS.EULER), (b, DS.RUNGE_KUTTA)):
        sim.registerCharacter("floor", bodies["floor"])
        sim.registerCharacter("robot", bodies["humanoid"])
        sim.registerCharacter("box", bodies["box"])
        sim.init(DT, method, DS.ENABLE_SENSOR)
        sim.setCharacterAllJointModes("robot", DS.HIGH_GAIN_MODE)
        set_pose(sim, "box", "BOX", (0.35, 0.0, 0.6), rot((1, 1, 0), 0.4))
        sim.registerCollisionCheckPair("floor", "", "robot", "", 0.5, 0.5, [], [], 0.01, 0.0)
        sim.registerCollisionCheckPair("floor", "", "box", "", 0.5, 0.4, [], [], 0.01, 0.2)
        sim.registerCollisionCheckPair("box", "", "robot", "", 0.5, 0.4, [], [], 0.01, 0.0)
        sim.initSimulation()
    for k in range(600):
        for sim in (a, b):
            sim.setCharacterLinkData("robot", "RARM_SHOULDER_P", DS.JOINT_VALUE,
                                     [-0.5 * math.sin(0.01 * k)])
            sim.stepSimulation()
    wa, wb = a.getWorldState(), b.getWorldState()
    assert positions(wa) == positions(wb)
    assert [[(tuple(p.position), tuple(p.normal), p.idepth) for p in c.points]
            for c in wa.collisions] == [[(tuple(p.position), tuple(p.normal), p.idepth)
                                         for p in c.points] for c in wb.collisions]
    sa, sb = a.getCharacterSensorState("robot"), b.getCharacterSensorState("robot")
    assert (sa.q, sa.dq, sa.u, sa.force, sa.accel) == (sb.q, sb.dq, sb.u, sb.force, sb.accel)
    assert any(c.pair.linkName2 == "BOX" for c in wa.collisions)  # the box has landed


def test_concurrent_clients(make_sim, bodies):
    # four worlds stepped from four threads while two more threads read one of them: calls on
    # one instance are serialised, instances step at the same time, and every world follows the
    # discrete free-fall solution exactly
    sims = [make_sim() for _ in range(4)]
    for sim in sims:
        box_world(sim, bodies, 5.0)
    n, errors = 300, []

    def stepper(sim):
        try:
            for _ in range(n):
                sim.stepSimulation()
                sim.getWorldState()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def reader(sim):
        try:
            for _ in range(n):
                sim.getCharacterSensorState("box")
                sim.getCharacterLinkData("box", "BOX", DS.ABS_TRANSFORM)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=stepper, args=(sim,)) for sim in sims]
    threads += [threading.Thread(target=reader, args=(sims[0],)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    for sim in sims:
        assert get_pose(sim, "box", "BOX")[0][2] == pytest.approx(
            5.0 - G * DT * DT * n * (n + 1) / 2, abs=1e-9)


def test_one_body_under_two_names(sim, bodies):
    sim.registerCharacter("r1", bodies["humanoid"])
    sim.registerCharacter("r2", bodies["humanoid"])
    set_pose(sim, "r2", "WAIST", (0.0, 1.0, 0.82))
    sim.setCharacterLinkData("r1", "RARM_ELBOW", DS.JOINT_VALUE, [-1.0])
    sim.calcWorldForwardKinematics()
    assert sim.getCharacterLinkData("r2", "RARM_ELBOW", DS.JOINT_VALUE) == [0.0]
    assert get_pose(sim, "r1", "WAIST")[0] == pytest.approx([0.0, 0.0, 0.82])
    ws = sim.getWorldState()
    assert [c.characterName for c in ws.characterPositions] == ["r1", "r2"]
    assert ws.characterPositions[1].linkPositions[0].p == pytest.approx([0.0, 1.0, 0.82])


def test_destroy_releases_the_instance(client, bodies):
    sim = client.dynamics_simulator()
    sim.registerCharacter("robot", bodies["humanoid"])
    sim.destroy()
    with pytest.raises(CORBA.OBJECT_NOT_EXIST):
        sim.getGVector()
    other = client.dynamics_simulator()  # the server goes on
    assert other.getGVector() == [0.0, 0.0, 9.8]
    other.destroy()


# =============================================================================================
# validation: every bad call raises, is logged, and the instance stays usable
# =============================================================================================

NAN, INF = float("nan"), float("inf")


def _bad_pair(sim, **kw):
    args = dict(c1="floor", l1="", c2="box", l2="", mu_s=0.5, mu_d=0.5, cull=0.01, rest=0.0)
    args.update(kw)
    sim.registerCollisionCheckPair(args["c1"], args["l1"], args["c2"], args["l2"],
                                   args["mu_s"], args["mu_d"], [], [], args["cull"],
                                   args["rest"])


# (id, running?, call, exception, log text)
BAD_CALLS = [
    ("duplicate-name", False,
     lambda s, b: s.registerCharacter("box", b["box"]), CORBA.BAD_PARAM, "already registered"),
    ("nil-bodyinfo", False,
     lambda s, b: s.registerCharacter("nobody", None), CORBA.BAD_PARAM, "nil"),
    ("empty-name", False,
     lambda s, b: s.registerCharacter("", b["box"]), CORBA.BAD_PARAM, "empty character name"),
    ("unknown-character", False,
     lambda s, b: s.setCharacterLinkData("nobody", "BOX", DS.JOINT_VALUE, [0.0]),
     CORBA.BAD_PARAM, "unknown character 'nobody'"),
    ("unknown-link", False,
     lambda s, b: s.getCharacterLinkData("robot", "NO_SUCH_LINK", DS.JOINT_VALUE),
     CORBA.BAD_PARAM, "has no link 'NO_SUCH_LINK'"),
    ("empty-link", False,
     lambda s, b: s.getCharacterLinkData("robot", "", DS.ABS_TRANSFORM), CORBA.BAD_PARAM,
     "empty link name"),
    ("short-data", False,
     lambda s, b: s.setCharacterLinkData("robot", "RARM_ELBOW", DS.JOINT_VALUE, [0.1, 0.2]),
     CORBA.BAD_PARAM, "needs 1 numbers, got 2"),
    ("short-transform", False,
     lambda s, b: s.setCharacterLinkData("box", "BOX", DS.ABS_TRANSFORM, [0.0] * 9),
     CORBA.BAD_PARAM, "needs 12 numbers"),
    ("nan-joint", False,
     lambda s, b: s.setCharacterLinkData("robot", "RARM_ELBOW", DS.JOINT_VALUE, [NAN]),
     CORBA.BAD_PARAM, "finite"),
    ("inf-force", True,
     lambda s, b: s.setCharacterLinkData("box", "BOX", DS.EXTERNAL_FORCE, [0, 0, INF, 0, 0, 0]),
     CORBA.BAD_PARAM, "finite"),
    ("not-a-rotation", False,
     lambda s, b: s.setCharacterLinkData("box", "BOX", DS.ABS_TRANSFORM,
                                         [0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1]),
     CORBA.BAD_PARAM, "rotation"),
    ("joint-on-root", False,
     lambda s, b: s.setCharacterLinkData("robot", "WAIST", DS.JOINT_VALUE, [0.1]),
     CORBA.BAD_PARAM, "WAIST"),
    ("set-acceleration", False,
     lambda s, b: s.setCharacterLinkData("box", "BOX", DS.ABS_ACCELERATION, [0.0] * 6),
     CORBA.BAD_PARAM, "ABS_ACCELERATION cannot be set"),
    ("set-constraint-force", False,
     lambda s, b: s.setCharacterLinkData("box", "BOX", DS.CONSTRAINT_FORCE, [0.0] * 6),
     CORBA.BAD_PARAM, "CONSTRAINT_FORCE cannot be set"),
    ("invalid-type", False,
     lambda s, b: s.getCharacterLinkData("box", "BOX", DS.INVALID_DATA_TYPE), CORBA.BAD_PARAM,
     "INVALID_DATA_TYPE"),
    ("all-constraint-force", True,
     lambda s, b: s.getCharacterAllLinkData("robot", DS.CONSTRAINT_FORCE), CORBA.BAD_PARAM,
     "link by link"),
    ("all-wrong-length", False,
     lambda s, b: s.setCharacterAllLinkData("robot", DS.JOINT_VALUE, [0.0] * 29),
     CORBA.BAD_PARAM, "needs 30 numbers"),
    ("all-nan", False,
     lambda s, b: s.setCharacterAllLinkData("robot", DS.JOINT_TORQUE, [0.0] * 29 + [NAN]),
     CORBA.BAD_PARAM, "finite"),
    ("zero-time-step", False,
     lambda s, b: s.init(0.0, DS.EULER, DS.ENABLE_SENSOR), CORBA.BAD_PARAM, "time step"),
    ("nan-time-step", False,
     lambda s, b: s.init(NAN, DS.RUNGE_KUTTA, DS.ENABLE_SENSOR), CORBA.BAD_PARAM, "time step"),
    ("short-gvector", False,
     lambda s, b: s.setGVector([0.0, 9.8]), CORBA.BAD_PARAM, "needs 3 numbers"),
    ("nan-gvector", True,
     lambda s, b: s.setGVector([0.0, NAN, 9.8]), CORBA.BAD_PARAM, "finite"),
    ("negative-friction", False,
     lambda s, b: _bad_pair(s, mu_s=-0.1), CORBA.BAD_PARAM, "friction"),
    ("restitution-above-one", False,
     lambda s, b: _bad_pair(s, rest=1.5), CORBA.BAD_PARAM, "restitution"),
    ("pair-unknown-link", False,
     lambda s, b: _bad_pair(s, l1="nope"), CORBA.BAD_PARAM, "has no link 'nope'"),
    ("pair-same-link", False,
     lambda s, b: _bad_pair(s, c1="robot", l1="WAIST", c2="robot", l2="WAIST"),
     CORBA.BAD_PARAM, "itself"),
    ("negative-tolerance", False,
     lambda s, b: s.registerIntersectionCheckPair("box", "", "robot", "", -1.0),
     CORBA.BAD_PARAM, "tolerance"),
    ("unknown-sensor", False,
     lambda s, b: s.getCharacterSensorValues("robot", "nosensor"), CORBA.BAD_PARAM,
     "has no sensor 'nosensor'"),
    ("jacobian-unknown-link", False,
     lambda s, b: s.calcCharacterJacobian("robot", "WAIST", "HAND"), CORBA.BAD_PARAM,
     "has no link 'HAND'"),
    ("ik-nan-target", False,
     lambda s, b: s.calcCharacterInverseKinematics(
         "robot", "WAIST", "RARM_WRIST_R", OpenHRP.LinkPosition([NAN, 0, 0], I3)),
     CORBA.BAD_PARAM, "finite"),
    ("ik-not-a-rotation", False,
     lambda s, b: s.calcCharacterInverseKinematics(
         "robot", "WAIST", "RARM_WRIST_R", OpenHRP.LinkPosition([0.1, 0, 0.5], [1.0] * 9)),
     CORBA.BAD_PARAM, "calcCharacterInverseKinematics"),
    ("sensor-state-unknown", True,
     lambda s, b: s.getCharacterSensorState("nobody"), CORBA.BAD_PARAM, "unknown character"),
    ("step-before-init", False,
     lambda s, b: s.stepSimulation(), CORBA.BAD_INV_ORDER, "initSimulation first"),
    ("check-before-init", False,
     lambda s, b: s.checkCollision(True), CORBA.BAD_INV_ORDER, "initSimulation first"),
    ("distance-before-init", False,
     lambda s, b: s.checkDistance(), CORBA.BAD_INV_ORDER, "initSimulation first"),
    ("register-after-init", True,
     lambda s, b: s.registerCharacter("late", b["box"]), CORBA.BAD_INV_ORDER,
     "before initSimulation"),
    ("pair-after-init", True,
     lambda s, b: _bad_pair(s), CORBA.BAD_INV_ORDER, "before initSimulation"),
]


@pytest.mark.parametrize("running,call,exc,log", [c[1:] for c in BAD_CALLS],
                         ids=[c[0] for c in BAD_CALLS])
def test_bad_calls_raise_and_leave_the_instance_usable(sim, bodies, servers, running, call, exc,
                                                       log):
    sim.registerCharacter("floor", bodies["floor"])
    sim.registerCharacter("box", bodies["box"])
    sim.registerCharacter("robot", bodies["humanoid"])
    set_pose(sim, "box", "BOX", (1.0, 0.0, 0.5))
    if running:
        sim.initSimulation()
    logfile = Path(servers.state_dir) / "logs" / "hrpsim-dynamics.log"
    before = logfile.stat().st_size if logfile.exists() else 0
    state = positions(sim.getWorldState())
    with pytest.raises(exc):
        call(sim, bodies)
    # the server logged why, in one line
    text = logfile.read_text(errors="replace")[before:]
    assert log in text, "log after the call:\n" + text
    # nothing changed, and the instance answers
    assert positions(sim.getWorldState()) == state
    assert sim.getGVector() == [0.0, 0.0, 9.8]
    if not running:
        sim.initSimulation()
    sim.stepSimulation()


# =============================================================================================
# samples: the scheduler in C++ and Python
# =============================================================================================


def root_heights(output):
    """(start, [every logged height], final) from a sample scheduler's output."""
    zs = [float(m) for m in re.findall(r"root z=([-0-9.]+) m", output)]
    assert zs and "final:" in output, output
    return zs[0], zs, zs[-1]


@pytest.mark.parametrize("kind", ["cxx", "python"])
def test_sample_scheduler_keeps_the_robot_standing(servers, client, kind):
    if kind == "cxx":
        exe = hrpsim.paths.default_bin_dir() / "hrpsim-sample-scheduler"
        cmd = [str(exe), "-ORBInitRef", "NameService=" + servers.corbaloc]
    else:
        cmd = [sys.executable, str(REPO / "samples" / "scripts" / "scheduler.py"), "--naming",
               servers.corbaloc]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=str(REPO))
    assert proc.returncode == 0, describe(proc)
    start, zs, final = root_heights(proc.stdout)
    # 5 s at 1 ms, printed every 0.5 s: 11 lines and the final one
    assert len(zs) == 12, proc.stdout
    # standing in high gain on the floor: the waist stays within 3 mm of where it started
    assert max(abs(z - start) for z in zs) < 3e-3, proc.stdout
    assert "t=5.000" in proc.stdout


def test_sample_scheduler_stands_on_an_ode_server(servers, client, tmp_path):
    """OpenHRP's own clients know nothing of hrpsim's setSolver: they get the ODE engine from an
    hrpsim-dynamics started with --engine ode. The C++ sample scheduler, given a naming
    context holding that server's factory and the ModelLoader, keeps the robot standing there
    as on the default (joint-space) server above."""
    from conftest import own_dynamics_server
    from hrpsim import _orb, launcher
    with own_dynamics_server(servers, tmp_path, 96, "--engine", "ode"):
        ctx = launcher._dynamics_context(client.root, 96)
        ctx.rebind(_orb.to_name("ModelLoader"), client.root.resolve(_orb.to_name("ModelLoader")))
        ior = _orb.get_orb().object_to_string(ctx)
        exe = hrpsim.paths.default_bin_dir() / "hrpsim-sample-scheduler"
        proc = subprocess.run([str(exe), "-ORBInitRef", "NameService=" + ior],
                              capture_output=True, text=True, timeout=600, cwd=str(REPO))
    assert proc.returncode == 0, describe(proc)
    assert "every world starts with engine ode" in (tmp_path / "dyn96.log").read_text()
    start, zs, final = root_heights(proc.stdout)
    assert len(zs) == 12, proc.stdout
    assert max(abs(z - start) for z in zs) < 3e-3, proc.stdout
    assert "t=5.000" in proc.stdout
