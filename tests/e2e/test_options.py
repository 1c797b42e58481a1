"""End-to-end tests of hrpsim's options beyond OpenHRP 3.1 through every door of
hrpsim.Simulation (local, client-driven server, scheduler) and OpenHRP's plain interface.

- sleeping, on by default in Simulation: a column of three boxes on the floor falls asleep
  (sleeping() true, its poses frozen to the bit) while a fourth box falls from 7 m; the dropped
  box wakes the pile (sleeping() false, the top box moves) - on the local, the scheduler and
  the server back end;
- sleep=False: nothing ever sleeps;
- an OpenHRP-style client (OpenHRP.DynamicsSimulator from the factory, plain stubs, no hrpsim
  call) runs the same pile exactly as Simulation(sleep=False) does on the local back end, bit
  for bit, and not as with sleeping on;
- joint_limits="position" on a torque-driven arm stops a joint at its ulimit on every back end
  (off: it passes it);
- effort limits on a one-wheel model (I = 0.02 kg m^2, climit 4 x gearRatio 5 x torqueConst
  0.1 = 2 N m): a 10 N m command accelerates the wheel at 2 / 0.02 = 100 rad/s^2, not 500, on
  every back end (effort alone, and all limits);
- velocity limits: the wheeled URDF's wheels (continuous, 10 rad/s, effort 5) driven at 5 N m
  on the floor never exceed 10 rad/s by more than 1e-6 on every back end; off or with
  position limits only they spin far past it and the two runs are bit-identical;
- hrpsim project files: sleep on by default, the sleep attribute turns it off, GrxUI off;
  jointLimits takes true, false or kinds ("position effort"), an unknown kind is an error
  naming the line; configure sends setJointOptions (jointLimits true for any kind) and, for
  some kinds only, setJointLimits(position, velocity, effort);
- joint limits after the start are refused (BAD_INV_ORDER) and change nothing.
Sleeping and the three joint limits are checked on both engines (ODE and joint space).
"""

import math
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import project as P
from hrpsim.models import OPENHRP_PROTOS

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
ARM6 = MODELS / "arm6" / "arm6.wrl"
WHEELED = MODELS / "urdf" / "wheeled" / "wheeled.urdf"

BOX_WRL = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF BOX Humanoid { name "box" humanoidBody [
  DEF BOX_LINK Joint { jointType "free" children [
    Segment { mass 1.5 momentsOfInertia [0.0025 0 0 0 0.0025 0 0 0 0.0025]
      children Shape { geometry Box { size 0.1 0.1 0.1 } } } ] } ]
  joints [ USE BOX_LINK ] }
"""

PILE = ("b0", "b1", "b2")
DROP_HEIGHT = 7.0   # lands at about sqrt(2 * 6.6 / 9.8) = 1.16 s
REST_T = 1.0        # the pile is asleep by then (settles in ~0.2 s, then 0.2 s at rest)


def pile(sim, box_url):
    """The floor, a column of three 0.1 m boxes on it and a fourth box above them."""
    sim.add_model("floor", FLOOR)
    for k, name in enumerate(PILE + ("drop",)):
        sim.add_model(name, box_url)
        z = DROP_HEIGHT if name == "drop" else 0.05 + 0.101 * k
        sim.set_root_pose(name, (0.0, 0.0, z))
    names = ["floor"] + list(PILE) + ["drop"]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            sim.add_collision_pair(a, b, friction=0.5)


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    path = tmp_path_factory.mktemp("options") / "box.wrl"
    path.write_text(BOX_WRL)
    return path


@pytest.fixture(scope="module")
def client(servers):
    for name in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(name):
            pytest.fail("%s was not started" % name, pytrace=False)
    return servers.client


ENGINES = ["ode", "joint_space"]  # the physics tests below run on both engines


def make(backend, client, **kw):
    if backend == "local":
        return hrpsim.Simulation(backend="local", dt=0.001, **kw)
    return hrpsim.Simulation(client, backend=backend, dt=0.001, **kw)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("backend", ["local", "scheduler", "server"])
def test_a_pile_falls_asleep_by_default_and_a_dropped_box_wakes_it(backend, client, box, engine):
    with make(backend, client, engine=engine) as sim:
        pile(sim, box)
        sim.run(REST_T)
        assert all(sim.sleeping(n) for n in PILE)
        assert not sim.sleeping("drop")                      # still falling
        before = [sim.link_poses(n)[0].copy() for n in PILE]
        sim.step(100)
        # asleep: not stepped, so not a bit moved
        assert all(np.array_equal(sim.link_poses(n)[0], p) for n, p in zip(PILE, before))
        woke = False
        for _ in range(60):                                  # to 1.7 s: past the impact
            sim.step(10)
            woke = woke or not sim.sleeping("b2")
        assert woke
        assert not np.array_equal(sim.link_poses("b2")[0], before[2])


@pytest.mark.parametrize("backend", ["local", "scheduler", "server"])
def test_sleep_false_never_sleeps(backend, client, box):
    with make(backend, client, sleep=False) as sim:
        pile(sim, box)
        for _ in range(10):
            sim.step(100)
            assert not any(sim.sleeping(n) for n in PILE)


def openhrp_pile(client, box, steps):
    """The pile through OpenHRP's interface alone (what an OpenHRP 3.1 client does)."""
    from hrpsim import OpenHRP
    DS = OpenHRP.DynamicsSimulator
    factory = client.resolve("DynamicsSimulatorFactory", OpenHRP.DynamicsSimulatorFactory)
    ds = factory.create()
    try:
        names = ["floor"] + list(PILE) + ["drop"]
        ds.registerCharacter("floor", client.load_body(str(FLOOR), reload=False))
        for n in names[1:]:
            ds.registerCharacter(n, client.load_body(str(box), reload=False))
        ds.init(0.001, DS.EULER, DS.ENABLE_SENSOR)
        ds.setGVector([0.0, 0.0, 9.8])
        for k, n in enumerate(names[1:]):
            z = DROP_HEIGHT if n == "drop" else 0.05 + 0.101 * k
            ds.setCharacterLinkData(n, "BOX_LINK", DS.ABS_TRANSFORM,
                                    [0.0, 0.0, z, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        ds.calcWorldForwardKinematics()
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                ds.registerCollisionCheckPair(a, "", b, "", 0.5, 0.5, [], [], 0.01, 0.0)
        ds.initSimulation()
        for _ in range(steps):
            ds.stepSimulation()
        return [list(ds.getCharacterLinkData(n, "BOX_LINK", DS.ABS_TRANSFORM)) for n in PILE]
    finally:
        ds.destroy()


def local_pile(box, steps, sleep):
    with hrpsim.Simulation(backend="local", dt=0.001, sleep=sleep) as sim:
        pile(sim, box)
        sim.step(steps)
        return [list(sim.link_data(n, "BOX_LINK", "ABS_TRANSFORM")) for n in PILE]


def test_an_openhrp_client_sees_no_sleeping(client, box):
    steps = int(REST_T / 0.001)
    plain = openhrp_pile(client, box, steps)
    assert plain == local_pile(box, steps, sleep=False)     # the same bits as sleeping off
    assert plain != local_pile(box, steps, sleep=True)      # and sleeping would change them


# ---------------------------------------------------------------------------------------------
# joint limits
# ---------------------------------------------------------------------------------------------

def pushed_arm(sim):
    """arm6 in torque mode, gravity off, a constant torque on J1: its angle after 1 s."""
    sim.add_model("arm", ARM6)
    sim.set_gravity((0.0, 0.0, 0.0))
    n = len(sim.joint_names("arm"))

    def push(s):
        tau = np.zeros(n)
        tau[0] = 20.0
        s.set_joint_torques("arm", tau)
    sim.step(1000, push)
    return float(sim.q("arm")[0])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("backend", ["local", "scheduler", "server"])
def test_joint_limits_stop_a_torque_driven_joint(backend, client, engine):
    links = client.load_body(str(ARM6), reload=False).links
    ulimit = float(next(lk for lk in links if lk.name == "J1").ulimit[0])
    with make(backend, client, engine=engine) as sim:        # off by default (OpenHRP's)
        free = pushed_arm(sim)
    with make(backend, client, joint_limits="position", engine=engine) as sim:
        stopped = pushed_arm(sim)
    assert free > ulimit + 0.1
    assert stopped == pytest.approx(ulimit, abs=0.02)


WHEEL_WRL = """#VRML V2.0 utf8
PROTO Joint [ exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0
  exposedField MFNode children [ ] exposedField SFString jointType "" exposedField SFInt32
  jointId -1 exposedField SFVec3f jointAxis 0 0 1 exposedField MFFloat climit [ ]
  exposedField SFFloat gearRatio 1 exposedField SFFloat torqueConst 1 ]
{ Transform { translation IS translation rotation IS rotation children IS children } }
PROTO Segment [ exposedField SFVec3f centerOfMass 0 0 0 exposedField SFFloat mass 0
  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ] exposedField MFNode children [ ] ]
{ Group { children IS children } }
PROTO Humanoid [ exposedField SFString name "" exposedField MFNode humanoidBody [ ]
  exposedField MFNode joints [ ] ] { Group { children IS humanoidBody } }
DEF WHEEL Humanoid { name "wheel" humanoidBody [
  DEF BASE Joint { jointType "fixed" children [
    DEF AXLE Joint { jointType "rotate" jointId 0 jointAxis 0 1 0
      climit [ 4 ] gearRatio 5 torqueConst 0.1 children [
      Segment { mass 2 momentsOfInertia [ 0.02 0 0 0 0.02 0 0 0 0.02 ] } ] } ] } ]
  joints [ USE BASE USE AXLE ] }
"""


@pytest.fixture
def wheel_wrl(tmp_path):
    path = tmp_path / "wheel.wrl"
    path.write_text(WHEEL_WRL)
    return path


def wheel_alpha(sim, wheel_wrl, tau):
    """the one-wheel model in zero gravity, tau on its axle for 0.1 s: dq / t [rad/s^2]"""
    sim.add_model("wheel", wheel_wrl)
    sim.set_gravity((0.0, 0.0, 0.0))
    sim.step(100, lambda s: s.set_joint_torques("wheel", [tau]))
    return float(sim.dq("wheel")[0]) / 0.1


@pytest.mark.parametrize("backend", ["local", "scheduler", "server"])
@pytest.mark.parametrize("limits, tau, alpha", [(False, 10.0, 500.0), ("effort", 10.0, 100.0),
                                               (True, -10.0, -100.0), (True, 1.0, 50.0),
                                               (("position", "velocity"), 10.0, 500.0)])
@pytest.mark.parametrize("engine", ENGINES)
def test_an_effort_limit_clamps_the_torque(backend, client, wheel_wrl, limits, tau, alpha,
                                           engine):
    with make(backend, client, joint_limits=limits, engine=engine) as sim:
        assert wheel_alpha(sim, wheel_wrl, tau) == pytest.approx(alpha, rel=1e-6)


def driven_wheels(backend, client, joint_limits, engine="ode"):
    """The wheeled base on the floor, 5 N m (its effort limit) on both wheels for 1 s: the
    wheels' velocities at every step (N, 2)."""
    with make(backend, client, joint_limits=joint_limits, engine=engine) as sim:
        sim.add_model("floor", FLOOR)
        sim.add_model("base", WHEELED)
        sim.set_root_pose("base", (0.0, 0.0, 0.1))
        sim.add_collision_pair("floor", "base", friction=0.8)
        dq = []
        for _ in range(100):
            sim.step(10, lambda s: s.set_joint_torques("base", [5.0, 5.0]))
            dq.append(sim.dq("base"))
        return np.array(dq)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("backend", ["local", "scheduler", "server"])
def test_a_velocity_limit_caps_the_wheeled_base_speed(backend, client, engine):
    """Continuous wheels, velocity limit 10 rad/s: with the limits on they reach it and stay
    at it; off (or position limits only, bit for bit the same run) they spin far past it."""
    on = driven_wheels(backend, client, True, engine)
    assert np.max(np.abs(on)) <= 10.0 + 1e-6
    assert np.min(np.abs(on[-1])) == pytest.approx(10.0, abs=1e-6)
    off = driven_wheels(backend, client, False, engine)
    assert np.min(np.abs(off[-1])) > 100.0
    assert np.array_equal(off, driven_wheels(backend, client, "position", engine))


def test_velocity_limits_far_from_the_limit_change_no_bit():
    """The sample humanoid squatting under the sample PD law in torque mode (its joints have
    uvlimit 6 rad/s and stay under 1.5 rad/s): all limits on gives the run of position limits
    only, bit for bit. A velocity-limited joint's drive becomes a motor (a constraint row the
    iterative solver converges differently) only near its limit."""
    import sys
    sys.path.insert(0, str(REPO / "samples" / "controllers"))
    from pd_controller import PDLaw

    def squat(limits):
        sim = hrpsim.Simulation(backend="local", dt=0.001, joint_limits=limits)
        sim.add_model("floor", str(MODELS / "floor" / "floor.wrl"))
        sim.add_model("robot", str(MODELS / "humanoid" / "humanoid.wrl"))
        law = PDLaw(sim.joint_names("robot"))
        sim.set_joint_mode("robot", "torque")
        sim.set_root_pose("robot", (0, 0, 0.808))
        sim.set_joint_values("robot", law.reference(0.0)[0])
        sim.add_collision_pair("floor", "robot", friction=0.5)
        qs = []
        for _ in range(1000):
            t = sim.steps * sim.dt
            sim.set_joint_torques("robot", law.torques(t, sim.q("robot"), sim.dq("robot")))
            sim.step()
            qs.append(np.array(sim.q("robot")))
        sim.close()
        return np.array(qs)

    on = squat(True)
    assert np.array_equal(on, squat("position"))
    assert np.max(np.abs(np.diff(on, axis=0))) > 1e-4  # the robot does move (a real squat)


def test_joint_limits_after_the_start_are_refused(client, wheel_wrl):
    """hrpsim::DynamicsSimulator.setJointLimits after initSimulation: BAD_INV_ORDER (the
    client's CallOrderError), as setWorldOptions; the world runs on with its limits unchanged."""
    from hrpsim.errors import CallOrderError
    with make("server", client, joint_limits="effort") as sim:
        wheel_alpha(sim, wheel_wrl, 10.0)
        with pytest.raises(CallOrderError, match="before the simulation starts"):
            sim._backend._ds.setJointLimits(False, False, False)
        with pytest.raises(CallOrderError, match="before the simulation starts"):
            sim._backend._ds.setWorldOptions(False, False, True)
        dq0 = float(sim.dq("wheel")[0])
        sim.step(100, lambda s: s.set_joint_torques("wheel", [10.0]))
        assert (float(sim.dq("wheel")[0]) - dq0) / 0.1 == pytest.approx(100.0, rel=1e-6)


def test_joint_limit_switch_values():
    from hrpsim.limits import joint_limit_bits, joint_limits
    assert joint_limits("position, effort") == ("position", "effort")
    assert joint_limits(["effort", "velocity", "position"]) is True
    assert joint_limits("none") is False and joint_limits(()) is False
    assert joint_limit_bits(True) == 7 and joint_limit_bits("velocity") == 2
    assert joint_limit_bits((True, False, True)) == 5
    with pytest.raises(ValueError, match="speed"):
        joint_limits("position speed")
    with pytest.raises(ValueError, match="speed"):
        hrpsim.Simulation(backend="local", joint_limits="speed")


# ---------------------------------------------------------------------------------------------
# projects
# ---------------------------------------------------------------------------------------------

def project_xml(extra=""):
    return ('<hrpsim-project version="1"><simulation timeStep="0.001" endTime="1"%s/>'
            '<model name="floor" url="%s"/></hrpsim-project>' % (extra, FLOOR))


def test_projects_joint_limits_take_kinds(tmp_path):
    a, b, c = tmp_path / "a.xml", tmp_path / "b.xml", tmp_path / "c.xml"
    a.write_text(project_xml(' jointLimits="velocity effort"'))
    b.write_text(project_xml(' jointLimits="false"'))
    c.write_text(project_xml(' jointLimits="position speed"'))
    assert P.load_project(str(a)).joint_limits == ("velocity", "effort")
    assert P.load_project(str(b)).joint_limits is False
    with pytest.raises(P.ProjectError, match="speed") as e:
        P.load_project(str(c))
    assert ":1" in str(e.value)


def test_projects_sleep_on_by_default_off_by_attribute(tmp_path):
    a, b = tmp_path / "a.xml", tmp_path / "b.xml"
    a.write_text(project_xml())
    b.write_text(project_xml(' sleep="false"'))
    assert P.load_project(str(a)).sleep is True
    assert P.load_project(str(b)).sleep is False


class RecordingScheduler:
    """stands in for the Scheduler: records every call (name, args)"""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *args: self.calls.append((name, args))


@pytest.mark.parametrize("value, options, limits", [
    ("true", True, None), ("false", False, None),
    ("velocity effort", True, (False, True, True)), ("position", True, (True, False, False))])
def test_projects_send_their_joint_limits_to_the_scheduler(tmp_path, value, options, limits):
    path = tmp_path / "p.xml"
    path.write_text(project_xml(' jointLimits="%s"' % value))
    sched = RecordingScheduler()
    P.load_project(str(path)).configure(sched, client=None, bodies={"floor": []})
    sent = [args for name, args in sched.calls if name == "setJointOptions"]
    assert len(sent) == 1 and sent[0][0].jointLimits is options
    sent = [args for name, args in sched.calls if name == "setJointLimits"]
    assert sent == ([limits] if limits else [])
