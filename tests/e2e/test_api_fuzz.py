"""Fuzzing the simulator API: seeded Hypothesis rule-based state machines
drive a real DynamicsSimulator, the real Scheduler and hrpsim.Simulation through CORBA with
random sequences of valid and invalid calls: every LinkDataType, both joint modes, NaN, inf,
sub-normal, huge and ordinary numbers, sequences of the wrong length, unknown character and
link names, calls in the wrong order, calls on a destroyed world.

Invariants checked after every call:
- the server stays up (the same process answers; a COMM_FAILURE or TRANSIENT fails the test);
- a refusal is one of the documented exceptions (BAD_PARAM, BAD_INV_ORDER, NO_IMPLEMENT;
  BAD_OPERATION completed YES for a runaway step; OBJECT_NOT_EXIST after destroy; the
  Scheduler's SchedulerError), and the server's log gained a line naming the operation (a
  SchedulerError carries its text: it must name the problem);
- no NaN or inf leaves the server without an error: every number a query returns is finite;
- a witness world (the arm in high-gain mode tracking a sinusoid, a box falling on the floor),
  stepped between the fuzzer's calls in another instance of the same server, gives results
  bit-identical to the same world run before the fuzzing started.

The machines are derandomized (the same sequences every run) and bounded (EXAMPLES runs of up
to STEPS calls each; a couple of minutes on a busy 2-core machine). HRPSIM_API_FUZZ_EXAMPLES
raises the count for longer local runs.
"""

import math
import os
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, \
    run_state_machine_as_test
import omniORB
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP, SchedulerIDL
from hrpsim.models import OPENHRP_PROTOS

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
ARM6 = MODELS / "arm6" / "arm6.wrl"
FLOOR = MODELS / "floor" / "floor.wrl"
DS = OpenHRP.DynamicsSimulator

EXAMPLES = int(os.environ.get("HRPSIM_API_FUZZ_EXAMPLES", "50"))
STEPS = 30
WITNESS_STEPS = 500

SETTINGS = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=True,
                    deadline=None, database=None, print_blob=True,
                    suppress_health_check=list(HealthCheck))

# numbers a hostile client sends, and ordinary ones
HOSTILE = [math.nan, math.inf, -math.inf, 5e-324, -5e-324, 1e-310, 2.2250738585072014e-308,
           1e300, -1e300, 1.7976931348623157e308, 1e13, -1e13, 0.0, -0.0, 1e9, 4294967296.0,
           1e11, -1e11, 9.99e11]
ORDINARY = [0.001, 0.002, 0.01, 0.5, -0.5, 1.0, -1.0, 9.8, 0.1, 2.0]
numbers = st.one_of(st.sampled_from(HOSTILE), st.sampled_from(ORDINARY),
                    st.floats(allow_nan=True, allow_infinity=True))
time_steps = st.one_of(st.sampled_from([5e-324, 1e-310, 0.0, -0.001, math.nan, math.inf, 1e-7,
                                        1e-6, 0.001, 0.005, 1.0, 1.5, 1e300]), numbers)

LINK_TYPES = [DS.INVALID_DATA_TYPE, DS.POSITION_GIVEN, DS.JOINT_VALUE, DS.JOINT_VELOCITY,
              DS.JOINT_ACCELERATION, DS.JOINT_TORQUE, DS.ABS_TRANSFORM, DS.ABS_VELOCITY,
              DS.ABS_ACCELERATION, DS.EXTERNAL_FORCE, DS.CONSTRAINT_FORCE]
SIZE = {DS.POSITION_GIVEN: 1, DS.JOINT_VALUE: 1, DS.JOINT_VELOCITY: 1, DS.JOINT_ACCELERATION: 1,
        DS.JOINT_TORQUE: 1, DS.ABS_TRANSFORM: 12, DS.ABS_VELOCITY: 6, DS.ABS_ACCELERATION: 6,
        DS.EXTERNAL_FORCE: 6, DS.CONSTRAINT_FORCE: 6, DS.INVALID_DATA_TYPE: 1}

CHARACTERS = ["arm", "arm", "box", "box", "floor", "nobody", ""]
LINKS = ["BASE", "J1", "J3", "J6", "BOX", "WAIST", "", "no_such_link"]

BOX = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF FBOX Humanoid {
  name "FBOX"
  humanoidBody [
    DEF BOX Joint {
      jointType "free"
      children [ Segment { mass 1 momentsOfInertia [ 0.01 0 0 0 0.01 0 0 0 0.01 ]
                           children [ Shape { geometry Box { size 0.2 0.2 0.2 } } ] } ]
    }
  ]
}
"""

# refusals the DynamicsSimulator may answer with (see the module comment)
REFUSALS = (CORBA.BAD_PARAM, CORBA.BAD_INV_ORDER, CORBA.NO_IMPLEMENT, CORBA.BAD_OPERATION)


def finite(values):
    return all(math.isfinite(v) for v in values)


def bits(values):
    return struct.pack("<%dd" % len(values), *values)


class ServerLog:
    """The text a server's log gained since the last look."""

    def __init__(self, path):
        self.path = Path(path)
        self.pos = self.path.stat().st_size

    def new_text(self):
        with open(self.path, "rb") as f:
            f.seek(self.pos)
            text = f.read().decode("utf-8", "replace")
        self.pos += len(text.encode("utf-8", "replace"))
        return text


# ---------------------------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client(servers):
    for name in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(name):
            pytest.fail("%s was not started" % name, pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def bodies(client, tmp_path_factory):
    d = tmp_path_factory.mktemp("api-fuzz")
    (d / "box.wrl").write_text(BOX)
    return {"arm": client.load_body(ARM6), "floor": client.load_body(FLOOR),
            "box": client.load_body(d / "box.wrl"), "box_path": d / "box.wrl"}


def log_of(servers, exe):
    return Path(servers.state_dir) / "logs" / ("%s.log" % exe)


class Witness:
    """The arm tracking a sinusoid in high-gain mode and a box falling on the floor, in one
    world; ``step`` advances it one step, ``trace`` is everything it returned, as bytes."""

    def __init__(self, client, bodies):
        self.sim = client.dynamics_simulator()
        s = self.sim
        s.registerCharacter("floor", bodies["floor"])
        s.registerCharacter("arm", bodies["arm"])
        s.registerCharacter("box", bodies["box"])
        s.init(0.001, DS.EULER, DS.ENABLE_SENSOR)
        s.setGVector([0.0, 0.0, 9.8])
        s.setCharacterAllJointModes("arm", DS.HIGH_GAIN_MODE)
        s.setCharacterLinkData("box", "BOX", DS.ABS_TRANSFORM,
                               [1.0, 0.0, 0.3, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        s.registerCollisionCheckPair("floor", "", "box", "", 0.5, 0.5, [], [], 0.01, 0.0)
        s.initSimulation()
        self.k = 0
        self.trace = []

    def step(self):
        if self.k >= WITNESS_STEPS:
            return
        t = self.k * 0.001
        q = [0.3 * math.sin(2 * math.pi * t + j) for j in range(6)]
        self.sim.setCharacterAllLinkData("arm", DS.JOINT_VALUE, q)
        self.sim.stepSimulation()
        self.k += 1
        ws = self.sim.getWorldState()
        for c in ws.characterPositions:
            for lp in c.linkPositions:
                self.trace.append(bits(list(lp.p) + list(lp.R)))
        self.trace.append(bits(self.sim.getCharacterAllLinkData("arm", DS.JOINT_TORQUE)))

    def finish(self):
        while self.k < WITNESS_STEPS:
            self.step()
        self.sim.destroy()
        return self.trace


# ---------------------------------------------------------------------------------------------
# the DynamicsSimulator machine
# ---------------------------------------------------------------------------------------------

class DynamicsMachine(RuleBasedStateMachine):
    """One DynamicsSimulator at a time, created, configured, stepped, queried and destroyed in
    any order with any arguments."""

    ctx = None  # set by the test: client, bodies, log, witness, counters

    def __init__(self):
        super().__init__()
        self.sim = None
        self.dead = None  # a destroyed world's reference
        self.ctx.counts["runs"] += 1

    def teardown(self):
        if self.sim is not None:
            self.sim.destroy()
        # the server still answers, as the same process
        assert self.ctx.client.dynamics_factory()._non_existent() is False

    # one call, with the invariants; returns the result or None if refused
    def call(self, op, *args):
        self.ctx.witness.step()
        self.ctx.counts["calls"] += 1
        target = self.sim
        try:
            result = getattr(target, op)(*args)
        except CORBA.MARSHAL as exc:
            # a bounded sequence too long: omniORBpy refuses it before it is sent
            assert exc.minor == omniORB.MARSHAL_SequenceIsTooLong, exc
            self.ctx.counts["client_refused"] += 1
            return None
        except REFUSALS as exc:
            self.ctx.counts["refused"] += 1
            if isinstance(exc, CORBA.BAD_OPERATION):
                # only a runaway step: made (completed YES), the character in the minor code
                assert op == "stepSimulation" and exc.completed == CORBA.COMPLETED_YES, exc
                self.ctx.counts["runaways"] += 1
                text = self.ctx.log.new_text()
                assert "ran away" in text, text
                return None
            text = self.ctx.log.new_text()
            assert "%s: " % op in text, "%s refused (%s) without a log line: %r" % (op, exc,
                                                                                  text)
            return None
        self.ctx.log.new_text()
        return result

    @initialize(ready=st.booleans())
    def start(self, ready):
        """Half of the runs start from a running world (the arm, the box and the floor, 1 ms,
        initialised), so that the calls reach the stepping paths."""
        self.sim = self.ctx.client.dynamics_simulator()
        if ready:
            for name in ("arm", "box", "floor"):
                self.sim.registerCharacter(name, self.ctx.bodies[name])
            self.sim.init(0.001, DS.EULER, DS.ENABLE_SENSOR)
            self.sim.registerCollisionCheckPair("floor", "", "box", "", 0.5, 0.5, [], [], 0.01,
                                                0.0)
            self.sim.initSimulation()

    @rule()
    def create(self):
        if self.sim is not None:
            self.sim.destroy()
        self.sim = self.ctx.client.dynamics_simulator()

    @precondition(lambda self: self.sim is not None)
    @rule()
    def destroy(self):
        self.sim.destroy()
        self.dead, self.sim = self.sim, None

    @precondition(lambda self: self.dead is not None)
    @rule()
    def call_destroyed(self):
        with pytest.raises(CORBA.OBJECT_NOT_EXIST):
            self.dead.stepSimulation()

    @precondition(lambda self: self.sim is not None)
    @rule(name=st.sampled_from(CHARACTERS), body=st.sampled_from(["arm", "box", "floor", None]))
    def register(self, name, body):
        self.call("registerCharacter", name, self.ctx.bodies[body] if body else None)

    @precondition(lambda self: self.sim is not None)
    @rule(dt=time_steps, method=st.sampled_from([DS.EULER, DS.RUNGE_KUTTA]),
          sensors=st.sampled_from([DS.ENABLE_SENSOR, DS.DISABLE_SENSOR]))
    def init(self, dt, method, sensors):
        self.call("init", dt, method, sensors)
        if not (1e-6 <= dt <= 1.0):
            self.ctx.counts["bad_dt"] += 1

    @precondition(lambda self: self.sim is not None)
    @rule(g=st.lists(numbers, min_size=0, max_size=4))
    def gravity(self, g):
        self.call("setGVector", g)
        got = self.call("getGVector")
        assert got is None or finite(got), got

    @precondition(lambda self: self.sim is not None)
    @rule(ch=st.sampled_from(CHARACTERS), link=st.sampled_from(LINKS),
          kind=st.sampled_from(LINK_TYPES), data=st.data())
    def set_link_data(self, ch, link, kind, data):
        n = data.draw(st.sampled_from([SIZE[kind], SIZE[kind], 0, SIZE[kind] + 1, 3]))
        values = data.draw(st.lists(st.one_of(st.sampled_from(ORDINARY), numbers),
                                    min_size=n, max_size=n))
        self.call("setCharacterLinkData", ch, link, kind, values)

    @precondition(lambda self: self.sim is not None)
    @rule(ch=st.sampled_from(CHARACTERS), kind=st.sampled_from(LINK_TYPES), data=st.data())
    def set_all_link_data(self, ch, kind, data):
        values = data.draw(st.lists(st.one_of(st.sampled_from(ORDINARY), numbers),
                                    min_size=0, max_size=8))
        self.call("setCharacterAllLinkData", ch, kind, values)

    @precondition(lambda self: self.sim is not None)
    @rule(ch=st.sampled_from(CHARACTERS), link=st.sampled_from(LINKS),
          kind=st.sampled_from(LINK_TYPES))
    def get_link_data(self, ch, link, kind):
        got = self.call("getCharacterLinkData", ch, link, kind)
        assert got is None or finite(got), (ch, link, kind, got)

    @precondition(lambda self: self.sim is not None)
    @rule(ch=st.sampled_from(CHARACTERS), kind=st.sampled_from(LINK_TYPES))
    def get_all_link_data(self, ch, kind):
        got = self.call("getCharacterAllLinkData", ch, kind)
        assert got is None or finite(got), (ch, kind, got)

    @precondition(lambda self: self.sim is not None)
    @rule(ch=st.sampled_from(CHARACTERS), link=st.sampled_from(LINKS),
          mode=st.sampled_from([DS.HIGH_GAIN_MODE, DS.TORQUE_MODE]), all_=st.booleans())
    def joint_mode(self, ch, link, mode, all_):
        if all_:
            self.call("setCharacterAllJointModes", ch, mode)
        else:
            self.call("setCharacterLinkData", ch, link, DS.POSITION_GIVEN,
                      [1.0 if mode == DS.HIGH_GAIN_MODE else 0.0])

    @precondition(lambda self: self.sim is not None)
    @rule(c1=st.sampled_from(CHARACTERS), c2=st.sampled_from(CHARACTERS),
          l1=st.sampled_from(LINKS), mu=numbers, culling=numbers, restitution=numbers)
    def collision_pair(self, c1, c2, l1, mu, culling, restitution):
        self.call("registerCollisionCheckPair", c1, l1, c2, "", mu, mu, [], [], culling,
                  restitution)

    @precondition(lambda self: self.sim is not None)
    @rule(torque=st.sampled_from([1e11, -1e11, 9.99e11, 1e3]),
          link=st.sampled_from(["J1", "J3", "J6"]))
    def push(self, torque, link):
        """A torque the checks let through but the arm cannot take: a runaway, reported."""
        self.call("setCharacterAllJointModes", "arm", DS.TORQUE_MODE)
        self.call("setCharacterLinkData", "arm", link, DS.JOINT_TORQUE, [torque])
        self.call("stepSimulation")
        self.call("setCharacterLinkData", "arm", link, DS.JOINT_TORQUE, [0.0])

    @precondition(lambda self: self.sim is not None)
    @rule()
    def init_simulation(self):
        self.call("initSimulation")

    @precondition(lambda self: self.sim is not None)
    @rule(n=st.integers(min_value=1, max_value=20))
    def step(self, n):
        for _ in range(n):
            self.call("stepSimulation")

    @precondition(lambda self: self.sim is not None)
    @rule()
    def world_state(self):
        ws = self.call("getWorldState")
        if ws is not None:
            assert math.isfinite(ws.time)
            for c in ws.characterPositions:
                for lp in c.linkPositions:
                    assert finite(lp.p) and finite(lp.R), (c.characterName, lp)

    @precondition(lambda self: self.sim is not None)
    @rule(ch=st.sampled_from(CHARACTERS))
    def sensor_state(self, ch):
        ss = self.call("getCharacterSensorState", ch)
        if ss is not None:
            for seq in (ss.q, ss.dq, ss.u):
                assert finite(seq), ss
            for group in (ss.force, ss.rateGyro, ss.accel, ss.range):
                for reading in group:
                    assert finite(reading), ss

    @precondition(lambda self: self.sim is not None)
    @rule(ch=st.sampled_from(CHARACTERS), base=st.sampled_from(LINKS),
          tip=st.sampled_from(LINKS), pose=st.lists(numbers, min_size=12, max_size=12))
    def kinematics(self, ch, base, tip, pose):
        self.call("calcCharacterForwardKinematics", ch)
        self.call("calcWorldForwardKinematics")
        jac = self.call("calcCharacterJacobian", ch, base, tip)
        assert jac is None or finite(jac), jac
        self.call("calcCharacterInverseKinematics", ch, base, tip,
                  OpenHRP.LinkPosition(pose[:3], pose[3:]))

    @precondition(lambda self: self.sim is not None)
    @rule(all_=st.booleans())
    def collisions(self, all_):
        self.call("checkCollision", all_)
        self.call("checkIntersection", all_)

    @precondition(lambda self: self.sim is not None)
    @rule()
    def extra_joint(self):
        self.call("registerExtraJoint", "arm", "J1", "arm", "J3", [0.0] * 3, [0.0] * 3,
                  OpenHRP.EJ_XYZ, [0.0, 0.0, 1.0], "loop")


class Ctx:
    pass


def test_dynamics_simulator_survives_random_calls(servers, client, bodies):
    # the witness alone first: the reference trace
    reference = Witness(client, bodies).finish()
    ctx = Ctx()
    ctx.client, ctx.bodies = client, bodies
    ctx.log = ServerLog(log_of(servers, "hrpsim-dynamics"))
    ctx.witness = Witness(client, bodies)
    ctx.counts = {"runs": 0, "calls": 0, "refused": 0, "runaways": 0, "bad_dt": 0,
                  "client_refused": 0}
    pid = servers.pid("DynamicsSimulatorFactory")
    DynamicsMachine.ctx = ctx
    run_state_machine_as_test(DynamicsMachine, settings=SETTINGS)
    trace = ctx.witness.finish()
    # the same process answered throughout
    assert servers.pid("DynamicsSimulatorFactory") == pid
    assert os.path.exists("/proc/%d" % pid)
    assert len(trace) == len(reference)
    mismatch = [i for i, (a, b) in enumerate(zip(trace, reference)) if a != b]
    assert not mismatch, "the witness differs from its run alone at records %s" % mismatch[:5]
    # the machine did exercise refusals (a sanity check on the machine itself)
    assert ctx.counts["calls"] > 300 and ctx.counts["refused"] > 50, ctx.counts
    assert ctx.counts["runaways"] > 0, ctx.counts
    print("api fuzz (dynamics):", ctx.counts)


# ---------------------------------------------------------------------------------------------
# the Scheduler and hrpsim.Simulation machine
# ---------------------------------------------------------------------------------------------

class SchedulerMachine(RuleBasedStateMachine):
    """The Scheduler configured, started, stepped and stopped in any order with any arguments,
    directly and through hrpsim.Simulation."""

    ctx = None

    def __init__(self):
        super().__init__()
        self.s = self.ctx.scheduler
        self.s.reset()
        self.ctx.counts["runs"] += 1

    def teardown(self):
        try:
            self.s.stop()
        except SchedulerIDL.SchedulerError:
            pass
        self.s.reset()
        assert self.s._non_existent() is False

    def call(self, op, *args):
        self.ctx.counts["calls"] += 1
        try:
            result = getattr(self.s, op)(*args)
        except CORBA.MARSHAL as exc:
            assert exc.minor == omniORB.MARSHAL_SequenceIsTooLong, exc
            return None
        except SchedulerIDL.SchedulerError as exc:
            self.ctx.counts["refused"] += 1
            # the text says what the problem is
            assert len(exc.description) > 10, (op, exc.description)
            return None
        status = self.s.status()
        if status.state == SchedulerIDL.FAILED:
            assert status.message, status
        return result

    @rule(dt=time_steps)
    def time_step(self, dt):
        self.call("setTimeStep", dt)

    @rule(g=st.lists(numbers, min_size=0, max_size=4))
    def gravity(self, g):
        self.call("setGVector", g)

    @rule(name=st.sampled_from(["arm", "box", "", "arm"]),
          url=st.sampled_from(["arm", "box", "missing"]))
    def add_model(self, name, url):
        path = {"arm": str(ARM6), "box": str(self.ctx.bodies["box_path"]),
                "missing": "/nonexistent/model.wrl"}[url]
        self.call("addModel", name, path)

    @rule(ch=st.sampled_from(CHARACTERS), link=st.sampled_from(LINKS),
          kind=st.sampled_from(LINK_TYPES), data=st.lists(numbers, min_size=0, max_size=12))
    def link_data(self, ch, link, kind, data):
        self.call("setLinkData", ch, link, kind, data)

    @rule(ch=st.sampled_from(CHARACTERS),
          mode=st.sampled_from([DS.HIGH_GAIN_MODE, DS.TORQUE_MODE]))
    def modes(self, ch, mode):
        self.call("setAllJointModes", ch, mode)

    @rule(t=numbers)
    def end_time(self, t):
        self.call("setEndTime", t)

    @rule()
    def start_paused(self):
        self.call("startPaused")

    @rule(n=st.integers(min_value=-2, max_value=30))
    def step(self, n):
        self.call("step", n)

    @rule(t=st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 0.0, 5e-324, 0.005, 0.02,
                             0.0123456]))
    def run_until(self, t):
        # (a huge finite time is a legitimate, long request: runUntil(1e300) is in the unit
        # tests of stepsToReach, not here)
        self.call("runUntil", t)

    @rule()
    def stop(self):
        self.call("stop")

    @rule(ch=st.sampled_from(CHARACTERS), link=st.sampled_from(LINKS),
          point=st.lists(numbers, min_size=0, max_size=4),
          goal=st.lists(numbers, min_size=3, max_size=3),
          gains=st.tuples(numbers, numbers, numbers))
    def push(self, ch, link, point, goal, gains):
        """The live viewer's push: any arguments in any state, then a step or two with it
        ("target" is hypothesis's: the spec's target is goal here)."""
        self.call("push", SchedulerIDL.PushSpec(ch, link, point, goal, *gains))
        self.call("step", 2)

    @rule()
    def release(self):
        self.call("release")

    @rule(dt=time_steps, g=st.lists(numbers, min_size=3, max_size=3),
          q=st.lists(numbers, min_size=6, max_size=6), n=st.integers(0, 5))
    def simulation(self, dt, g, q, n):
        """hrpsim.Simulation through the scheduler: hostile configuration is refused in
        Python (ValueError) or by the servers (SchedulerError); never a crash, never a NaN."""
        self.ctx.counts["calls"] += 1
        try:
            sim = hrpsim.Simulation(self.ctx.client, dt=dt, gravity=g, scheduler=True,
                                    models={"arm": ARM6})
        except ValueError:
            self.ctx.counts["refused"] += 1
            return
        try:
            sim.set_joint_values("arm", q)
            sim.step(n)
            assert finite(sim.q("arm")) and finite(sim.root_pose("arm")[0].reshape(-1))
        except (ValueError, SchedulerIDL.SchedulerError, hrpsim.Runaway):
            self.ctx.counts["refused"] += 1
        finally:
            sim.close()


def test_scheduler_and_simulation_survive_random_calls(servers, client, bodies):
    ctx = Ctx()
    ctx.client, ctx.bodies = client, bodies
    ctx.scheduler = client.resolve("Scheduler", SchedulerIDL.Scheduler)
    ctx.counts = {"runs": 0, "calls": 0, "refused": 0}
    pid = servers.pid("Scheduler")
    SchedulerMachine.ctx = ctx
    run_state_machine_as_test(SchedulerMachine, settings=SETTINGS)
    assert servers.pid("Scheduler") == pid and os.path.exists("/proc/%d" % pid)
    assert ctx.counts["calls"] > 300 and ctx.counts["refused"] > 50, ctx.counts
    print("api fuzz (scheduler):", ctx.counts)


# ---------------------------------------------------------------------------------------------
# the regressions the machines are meant to keep fixed
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [5e-324, 1e-310, 2.2250738585072014e-308, 1e-7, 0.0, -1e-3,
                                math.nan, math.inf, 1.5])
def test_time_steps_outside_the_documented_range_are_refused(servers, client, bodies, dt):
    log = ServerLog(log_of(servers, "hrpsim-dynamics"))
    sim = client.dynamics_simulator()
    try:
        sim.registerCharacter("arm", bodies["arm"])
        with pytest.raises(CORBA.BAD_PARAM):
            sim.init(dt, DS.EULER, DS.ENABLE_SENSOR)
        assert "init: time step must be between 1e-06 and 1 s" in log.new_text()
        # the world keeps its step (1 ms) and steps on, in both drive modes, with finite states
        sim.setCharacterAllJointModes("arm", DS.HIGH_GAIN_MODE)
        sim.initSimulation()
        for _ in range(5):
            sim.stepSimulation()
        assert finite(sim.getCharacterAllLinkData("arm", DS.JOINT_TORQUE))
        assert sim.getWorldState().time == pytest.approx(0.005, abs=1e-12)
    finally:
        sim.destroy()


def test_scheduler_refuses_a_subnormal_time_step(client):
    s = client.resolve("Scheduler", SchedulerIDL.Scheduler)
    s.reset()
    with pytest.raises(SchedulerIDL.SchedulerError) as info:
        s.setTimeStep(1e-310)
    assert "time step must be between 1e-06 and 1 s" in info.value.description
    assert s._non_existent() is False


def test_simulation_refuses_a_subnormal_time_step(client):
    with pytest.raises(ValueError, match="time step must be between 1e-06 and 1 s"):
        hrpsim.Simulation(client, dt=5e-324, models={"arm": ARM6})


@pytest.mark.parametrize("fmt", ["hrpsim", "grxui"])
def test_project_with_a_subnormal_time_step_is_refused(tmp_path, fmt):
    from hrpsim.project import ProjectError, load_project
    if fmt == "hrpsim":
        text = ('<hrpsim-project version="1">\n<simulation timeStep="1e-310" endTime="1"/>\n'
                '<model name="arm" url="%s"/>\n</hrpsim-project>\n' % ARM6)
    else:
        text = ('<grxui>\n<mode name="Simulation">\n'
                '<item class="com.generalrobotix.ui.item.GrxSimulationItem" name="sim">\n'
                '<property name="timeStep" value="1e-310"/>\n</item>\n'
                '<item class="com.generalrobotix.ui.item.GrxModelItem" name="arm" url="%s"/>\n'
                '</mode>\n</grxui>\n' % ARM6)
    path = tmp_path / "p.xml"
    path.write_text(text)
    with pytest.raises(ProjectError, match=r"timeStep: must be between 1e-06 and 1 s, "
                                           r"got 1e-310"):
        load_project(path)
