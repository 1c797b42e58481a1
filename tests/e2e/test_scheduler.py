"""End-to-end tests of the scheduler server (hrpsim-scheduler), through CORBA from Python.

The controllers and execution contexts are Python servants living in this test process
(OpenHRP__POA.Controller, OpenRTM__POA.ExtTrigExecutionContextService), activated in its root
POA and bound in the session's naming service under test names; the scheduler finds them by
name and calls them back. Each records every call with the simulated time it reads from the
scheduler's DynamicsSimulator (the reference handed to setDynamicsSimulator), so the tests see
exactly when, relative to the physics, each call came:

- a controller of period k dt gets input() and control() at t = 0, k dt, 2 k dt, ... (before the
  step: they read t) and output() after the step (it reads t + dt), once per period, in the
  order input, control, [step], tick of due execution contexts, output;
- step(n) / runUntil(t) / pause / resume land on exact steps; runs are bit-for-bit repeatable;
- a controller that raises, hangs past the timeout or disappears ends the run as FAILED with
  "controller '<name>' failed at t = <time> s: ...", the others get stop(), the server still
  answers and the next run works;
- configuration errors raise SchedulerError naming the problem.

Simulated times are compared to k dt with 1e-9 s of slack: the world accumulates time += dt,
which differs from k dt by a few ulps after a few hundred steps (~1e-16 s), far below dt.
"""

import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP, launcher

from conftest import PYTHON_DIR, start_servers  # noqa: I100

import hrpsim._idl.hrpsim as H  # noqa: E402,I100
import hrpsim._idl.hrpsim__POA  # noqa: E402,F401

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"

DS = OpenHRP.DynamicsSimulator
DT = 0.001
EPS = 1e-9  # slack on simulated times (see the module comment)


# =============================================================================================
# fixtures and helpers
# =============================================================================================

@pytest.fixture(scope="session")
def poa(servers):
    """This process's root POA, active: the servants below are served from omniORB's threads."""
    orb = servers.client.orb
    root = orb.resolve_initial_references("RootPOA")
    root._get_the_POAManager().activate()
    return root


@pytest.fixture
def sched(servers):
    """The Scheduler server, reset; reset again afterwards (the server is shared)."""
    if not servers.has("Scheduler"):
        pytest.fail("the Scheduler server was not started (is hrpsim-scheduler built?)")
    s = servers.client.resolve("Scheduler", H.Scheduler)
    s.reset()
    yield s
    s.reset()


@pytest.fixture
def clock(servers):
    return servers.client.resolve("ClockGenerator", OpenHRP.ClockGenerator)


@pytest.fixture
def bind(servers, poa):
    """bind(servant, prefix) -> (name, reference): activate servant in our POA and bind it under
    a fresh name; unbound and deactivated after the test."""
    import CosNaming
    made = []

    def do(servant, prefix="test-ctrl"):
        name = "%s-%s" % (prefix, uuid.uuid4().hex[:8])
        oid = poa.activate_object(servant)
        ref = poa.id_to_reference(oid)
        servers.client.root.rebind([CosNaming.NameComponent(name, "")], ref)
        made.append((name, oid))
        servant.name = name
        return name, ref

    yield do
    for name, oid in made:
        try:
            servers.client.root.unbind([CosNaming.NameComponent(name, "")])
        except Exception:  # noqa: BLE001 - a test may have unbound it already
            pass
        try:
            poa.deactivate_object(oid)
        except Exception:  # noqa: BLE001 - or deactivated it
            pass


class Journal:
    """Calls of several servants in the order they happened: (who, op, simulated time)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = []

    def add(self, who, op, t):
        with self.lock:
            self.calls.append((who, op, t))

    def of(self, who, ops=None):
        with self.lock:
            return [c for c in self.calls if c[0] == who and (ops is None or c[1] in ops)]


class Controller(hrpsim.OpenHRP__POA.Controller):
    """A counting controller: records every call (with the simulated time for the periodic
    ones, read through the DynamicsSimulator it was given). ``hook(op, t)`` may raise or
    sleep to misbehave."""

    def __init__(self, journal, label, hook=None):
        self.journal = journal
        self.label = label
        self.hook = hook
        self.dyn = None
        self.model = None
        self.time_step = None
        self.name = None

    def _now(self):
        return self.dyn.getWorldState().time

    def _periodic(self, op):
        t = self._now()
        self.journal.add(self.label, op, t)
        if self.hook:
            self.hook(op, t)

    def setDynamicsSimulator(self, dyn):
        self.dyn = dyn
        self.journal.add(self.label, "setDynamicsSimulator", None)

    def setModelName(self, name):
        self.model = name
        self.journal.add(self.label, "setModelName", None)

    def setViewSimulator(self, vision):
        pass

    def setTimeStep(self, dt):
        self.time_step = dt
        self.journal.add(self.label, "setTimeStep", None)

    def initialize(self):
        self.journal.add(self.label, "initialize", None)

    def start(self):
        self.journal.add(self.label, "start", None)

    def input(self):
        self._periodic("input")

    def control(self):
        self._periodic("control")

    def output(self):
        self._periodic("output")

    def stop(self):
        self.journal.add(self.label, "stop", None)

    def destroy(self):
        pass

    def shutdown(self):
        pass


class Context(hrpsim.OpenRTM__POA.ExtTrigExecutionContextService):
    """An ExtTrig execution context that counts ticks (with the simulated time)."""

    def __init__(self, journal, label, dyn, hook=None):
        self.journal = journal
        self.label = label
        self.dyn = dyn
        self.hook = hook
        self.name = None

    def tick(self):
        t = self.dyn.getWorldState().time
        self.journal.add(self.label, "tick", t)
        if self.hook:
            self.hook("tick", t)


def file_url(path):
    return hrpsim.file_url(path)


def configure(s, end_time=0.0, log_period=0.0, sensors=False, dt=DT):
    """The sample humanoid standing on the floor in high-gain mode."""
    s.setTimeStep(dt)
    s.addModel("floor", file_url(FLOOR))
    s.addModel("robot", file_url(HUMANOID))
    s.setAllJointModes("robot", DS.HIGH_GAIN_MODE)
    s.addCollisionPair(H.CollisionPair("floor", "", "robot", "", 0.5, 0.5, 0.01, 0.0))
    s.setEndTime(end_time)
    s.setLogOptions(H.LogOptions(log_period, sensors))


def add_controller(s, name, period, character="robot"):
    s.addController(H.ControllerSpec(name, character, period))


def periodic(calls):
    """(op, t) of the periodic calls among journal entries."""
    return [(op, t) for _, op, t in calls if op in ("input", "control", "output", "tick")]


def assert_times(actual, expected):
    assert len(actual) == len(expected), (actual, expected)
    for (op, t), (eop, et) in zip(actual, expected):
        assert op == eop and abs(t - et) < EPS, (actual, expected)


def expected_controller_calls(period_steps, steps):
    """input/control at k dt, output at (k + 1) dt, for k = 0, p, 2p, ... < steps."""
    out = []
    for k in range(0, steps, period_steps):
        out += [("input", k * DT), ("control", k * DT), ("output", (k + 1) * DT)]
    return out


def wait_done(s, timeout=60.0):
    st = s.wait(timeout)
    assert st.state != H.RUNNING, "the run did not end within %g s: %s" % (timeout, st)
    return st


# =============================================================================================
# the tick
# =============================================================================================

def test_counting_controller_once_per_period_in_order(sched, bind):
    journal = Journal()
    ctrl = Controller(journal, "c")
    name, _ = bind(ctrl)
    configure(sched, end_time=0.1)
    add_controller(sched, name, 5 * DT)
    sched.start()
    st = wait_done(sched)
    assert st.state == H.FINISHED, st
    assert st.steps == 100 and abs(st.time - 0.1) < EPS
    # set-up in the documented order, then 20 periods, then stop
    ops = [op for _, op, _ in journal.of("c")]
    assert ops[:5] == ["setDynamicsSimulator", "setModelName", "setTimeStep", "initialize",
                       "start"], ops
    assert ops[-1] == "stop" and ops.count("stop") == 1, ops
    assert ctrl.model == "robot" and abs(ctrl.time_step - 5 * DT) < 1e-15
    assert_times(periodic(journal.of("c")), expected_controller_calls(5, 100))


def test_two_controllers_with_different_periods(sched, bind):
    journal = Journal()
    name_a, _ = bind(Controller(journal, "a"))
    name_b, _ = bind(Controller(journal, "b"))
    configure(sched, end_time=0.02)
    add_controller(sched, name_a, 2 * DT)
    add_controller(sched, name_b, 5 * DT, character="")
    sched.start()
    assert wait_done(sched).state == H.FINISHED
    assert_times(periodic(journal.of("a")), expected_controller_calls(2, 20))
    assert_times(periodic(journal.of("b")), expected_controller_calls(5, 20))
    # at a step where both are due: a before b (order added), both outputs after the step
    at10 = [(who, op) for who, op, t in journal.calls
            if t is not None and (abs(t - 0.010) < EPS or abs(t - 0.011) < EPS)]
    assert at10 == [("a", "input"), ("a", "control"), ("b", "input"), ("b", "control"),
                    ("a", "output"), ("b", "output")], at10


def test_exttrig_context_ticked_at_its_period(sched, bind, clock):
    journal = Journal()
    ctx = Context(journal, "ec", sched.dynamics())
    _, ec = bind(ctx, "test-ec")
    ctrl_name, _ = bind(Controller(journal, "c"))
    configure(sched, end_time=0.02)
    add_controller(sched, ctrl_name, 4 * DT)
    clock.subscribe(ec, 4 * DT)
    try:
        sched.start()
        assert wait_done(sched).state == H.FINISHED
    finally:
        clock.unsubscribe(ec)
    # ticked after the steps k = 0, 4, 8, 12, 16: at (k + 1) dt
    assert_times(periodic(journal.of("ec")), [("tick", (k + 1) * DT) for k in range(0, 20, 4)])
    # within a step: input, control, [step], tick, output
    first = [(who, op) for who, op, t in journal.calls if t is not None][:4]
    assert first == [("c", "input"), ("c", "control"), ("ec", "tick"), ("c", "output")], first
    # unsubscribed: the next run does not tick it
    sched.reset()
    configure(sched, end_time=0.01)
    sched.start()
    wait_done(sched)
    assert len(journal.of("ec")) == 5


def test_clock_refuses_a_period_that_is_not_a_multiple(sched, bind, clock):
    ctx = Context(Journal(), "ec", sched.dynamics())
    _, ec = bind(ctx, "test-ec")
    sched.setTimeStep(DT)
    with pytest.raises(CORBA.BAD_PARAM):
        clock.subscribe(ec, 2.5 * DT)
    with pytest.raises(CORBA.BAD_PARAM):
        clock.subscribe(ec, 0.0)
    clock.unsubscribe(ec)  # not subscribed: nothing happens
    assert sched.status().state == H.IDLE


# =============================================================================================
# stepping, pausing, status, logs
# =============================================================================================

def test_step_run_until_pause_resume_land_on_exact_steps(sched, bind):
    journal = Journal()
    name, _ = bind(Controller(journal, "c"))
    configure(sched, log_period=10 * DT, sensors=True)
    add_controller(sched, name, DT)
    assert sched.status().state == H.READY
    sched.startPaused()
    st = sched.status()
    assert st.state == H.PAUSED and st.steps == 0 and st.time == 0.0
    sched.step(7)
    st = sched.status()
    assert st.state == H.PAUSED and st.steps == 7 and abs(st.time - 7 * DT) < EPS
    assert len(journal.of("c", ("control",))) == 7
    sched.runUntil(0.25)
    st = sched.status()
    assert st.steps == 250 and abs(st.time - 0.25) < EPS
    sched.runUntil(0.1)  # in the past: nothing to do
    sched.step(0)
    assert sched.status().steps == 250
    # the dynamics can be read and written between steps
    dyn = sched.dynamics()
    assert abs(dyn.getWorldState().time - 0.25) < EPS
    # pause / resume
    sched.resume()
    time.sleep(0.2)
    sched.pause()
    st1 = sched.status()
    assert st1.state == H.PAUSED and st1.steps > 250
    time.sleep(0.2)
    st2 = sched.status()
    assert st2.steps == st1.steps and st2.time == st1.time
    assert len(journal.of("c", ("control",))) == st1.steps
    assert len(journal.of("c", ("output",))) == st1.steps
    sched.step(3)
    assert sched.status().steps == st1.steps + 3
    # log: time 0, then every 10 steps, with both characters' sensor states
    steps = st1.steps + 3
    log = sched.getLog(0)
    assert len(log) == 1 + steps // 10
    for i, rec in enumerate(log):
        assert abs(rec.world.time - i * 10 * DT) < EPS
        assert [cp.characterName for cp in rec.world.characterPositions] == ["floor", "robot"]
        assert len(rec.sensors) == 2
    assert len(log[-1].sensors[1].q) > 0
    assert len(sched.getLog(len(log) - 2)) == 2
    assert len(sched.getLog(len(log) + 5)) == 0
    # stop: FINISHED, the controller stopped
    sched.stop()
    st = sched.status()
    assert st.state == H.FINISHED and st.steps == steps and st.message == ""
    assert journal.of("c")[-1][1] == "stop"
    sched.stop()  # stopping an ended run again is harmless


def test_end_time_caps_step_and_run_until(sched):
    configure(sched, end_time=0.05)
    sched.step(30)
    assert sched.status().steps == 30
    sched.runUntil(1.0)
    st = sched.status()
    assert st.state == H.FINISHED and st.steps == 50 and abs(st.time - 0.05) < EPS


def test_status_fields(sched):
    st = sched.status()
    assert st.state == H.IDLE and st.steps == 0 and st.time == 0.0 and st.message == ""
    configure(sched, end_time=0.2)
    assert sched.status().state == H.READY
    sched.start()
    st = wait_done(sched)
    assert st.state == H.FINISHED and st.steps == 200 and abs(st.time - 0.2) < EPS
    assert st.wallTime > 0.0
    assert st.realTimeFactor == pytest.approx(st.time / st.wallTime, rel=1e-12)
    assert st.message == ""


def test_real_time_pacing(sched):
    # Paced to real time, the loop sleeps until wall time = simulated time / factor after each
    # step: the factor can exceed 1 only by the last step's share (1 ms of 0.5 s), and falls
    # below 1 only if steps take longer than 1 ms (the humanoid takes ~0.05 ms here). 0.7..1.1
    # leaves room for a loaded machine (sleeps overshooting, a preempted loop thread).
    configure(sched, end_time=0.5)
    sched.setRealTime(1.0)
    sched.start()
    st = wait_done(sched)
    assert st.state == H.FINISHED
    assert 0.7 <= st.realTimeFactor <= 1.1, st
    assert st.wallTime >= 0.45, st


class Viewer(hrpsim.OpenHRP__POA.OnlineViewer):
    """An online viewer that records what it is sent; update() sleeps ``delay`` seconds (a slow
    or hung page) when given."""

    def __init__(self, delay=0.0):
        self.loaded = []
        self.times = []
        self.name = None
        self.delay = delay

    def load(self, name, url):
        self.loaded.append((name, url))

    def update(self, state):
        if self.delay:
            time.sleep(self.delay)
        self.times.append(state.time)

    def clearLog(self):
        pass

    def clearData(self):
        pass

    def drawScene(self, state):
        pass

    def setLineWidth(self, width):
        pass

    def setLineScale(self, scale):
        pass

    def getPosture(self, robot):
        return False, []

    def setLogName(self, name):
        pass


def delivered_until(viewer, t_end, timeout=10.0):
    """The viewer's update times once the final frame (time t_end) has arrived: frames are
    delivered by the scheduler's own thread, so they may land after the run has ended."""
    deadline = time.monotonic() + timeout
    while not (viewer.times and abs(viewer.times[-1] - t_end) < EPS):
        assert time.monotonic() < deadline, "the final frame never arrived: %s" % viewer.times
        time.sleep(0.01)
    return list(viewer.times)


def test_online_viewer_gets_the_models_and_frames_at_the_view_rate(sched, bind):
    """Paced to real time (so the viewer keeps up and nothing is replaced), 1 s at a view rate
    of 20 Hz gives the frames of t = 0, 0.05, ..., 1.0: duration x rate + 1 (the frame of
    t = 0), whatever the log period; the models were loaded first."""
    viewer = Viewer()
    _, ref = bind(viewer, "test-viewer")
    configure(sched, end_time=1.0, log_period=DT)
    sched.setOnlineViewer(ref)
    sched.setViewRate(20.0)
    sched.setRealTime(1.0)
    sched.start()
    assert wait_done(sched).state == H.FINISHED
    times = delivered_until(viewer, 1.0)
    assert viewer.loaded == [("floor", file_url(FLOOR)), ("robot", file_url(HUMANOID))]
    assert len(times) == 21, times
    for i, t in enumerate(times):
        assert abs(t - i * 0.05) < EPS, times
    assert len(sched.getLog(0)) == 1001  # the log keeps its own period


def test_default_view_rate_is_30_hz_and_the_final_state_is_shown(sched, bind):
    """Frame n is the first step at or after n / 30 s; a run ending between frames also shows
    its final state. Drops are allowed (the run is not paced): what arrives is a subsequence."""
    viewer = Viewer()
    _, ref = bind(viewer, "test-viewer")
    configure(sched, end_time=0.25, log_period=0.05)
    sched.setOnlineViewer(ref)
    sched.start()
    assert wait_done(sched).state == H.FINISHED
    times = delivered_until(viewer, 0.25)
    expected = [math.ceil(n * 1000 / 30 - 1e-6) * DT for n in range(8)] + [0.25]
    assert len(times) <= len(expected)
    it = iter(expected)
    assert all(any(abs(t - e) < EPS for e in it) for t in times), (times, expected)


def test_a_blocking_viewer_does_not_stall_the_run(sched, bind):
    """A viewer whose update() takes 0.5 s: with the old synchronous push, 2 s at 30 Hz (61
    frames) took over 30 s; now the run ends in about its usual time (under 0.5 s here; the
    bound 10 s leaves room for a loaded machine and still fails a synchronous push), the
    viewer receives a few frames (stale ones are replaced, never queued: which ones depends on
    timing, even the frame of t = 0 may be replaced while the models load) ending with the
    final state, and the scheduler is usable at once."""
    viewer = Viewer(delay=0.5)
    _, ref = bind(viewer, "slow-viewer")
    configure(sched, end_time=2.0, log_period=0.1)
    sched.setOnlineViewer(ref)
    t0 = time.monotonic()
    sched.start()
    st = wait_done(sched)
    assert st.state == H.FINISHED and st.steps == 2000, st
    assert time.monotonic() - t0 < 10.0
    times = delivered_until(viewer, 2.0, timeout=20.0)
    assert 2 <= len(times) <= 6, times
    assert times == sorted(times)


def test_reset_detaches_a_viewer_in_the_middle_of_an_update(sched, bind):
    """reset() right after a run whose viewer is still inside a 0.5 s update(): the next
    configuration runs at once with another viewer, which gets its frames, and the old viewer
    gets nothing more than the update it was in."""
    slow = Viewer(delay=0.5)
    _, slow_ref = bind(slow, "slow-viewer")
    configure(sched, end_time=0.5)
    sched.setOnlineViewer(slow_ref)
    sched.start()
    assert wait_done(sched).state == H.FINISHED
    sched.reset()
    before = len(slow.times)
    fast = Viewer()
    _, fast_ref = bind(fast, "fast-viewer")
    configure(sched, end_time=0.2)
    sched.setOnlineViewer(fast_ref)
    sched.setViewRate(10.0)
    sched.start()
    assert wait_done(sched).state == H.FINISHED
    assert delivered_until(fast, 0.2)[-1] == pytest.approx(0.2, abs=EPS)
    time.sleep(1.2)  # time for the update in progress, and more, to land
    assert len(slow.times) <= before + 1, (before, slow.times)


def test_a_dead_viewer_is_detached_and_the_run_finishes(sched, bind, poa):
    viewer = Viewer()
    _, ref = bind(viewer, "dead-viewer")
    poa.deactivate_object(poa.reference_to_id(ref))
    configure(sched, end_time=0.2, log_period=0.01)
    sched.setOnlineViewer(ref)
    sched.start()
    st = wait_done(sched)
    assert st.state == H.FINISHED and st.steps == 200, st
    assert viewer.times == [] and viewer.loaded == []


def test_simulation_set_viewer(servers, sched, bind):
    """hrpsim.Simulation in scheduler mode feeds a viewer at the rate given: frames of t = 0,
    0.1, ..., 0.5 (a subsequence of them when the viewer falls behind), the models first;
    client-driven simulations refuse (the feed is the scheduler's)."""
    viewer = Viewer()
    _, ref = bind(viewer, "sim-viewer")
    sim = hrpsim.Simulation(servers.client, scheduler=True,
                            models={"floor": FLOOR, "robot": HUMANOID})
    sim.set_viewer(ref, rate=10)
    with pytest.raises(ValueError):
        sim.set_viewer(ref, rate=0)
    sim.run(0.5)
    times = delivered_until(viewer, 0.5)
    assert [n for n, _ in viewer.loaded] == ["floor", "robot"]
    expected = iter([0.1 * n for n in range(6)])
    assert all(any(abs(t - e) < EPS for e in expected) for t in times), times
    sim.close()
    with pytest.raises(RuntimeError):
        hrpsim.Simulation(servers.client).set_viewer(ref)


def test_view_rate_must_be_positive(sched):
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(H.SchedulerError) as info:
            sched.setViewRate(bad)
        assert "view rate" in info.value.description


def flat(value):
    """A CORBA value as nested tuples of plain numbers and strings (for exact comparison)."""
    if isinstance(value, (list, tuple)):
        return tuple(flat(v) for v in value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return tuple((k, flat(v)) for k, v in sorted(vars(value).items()))
    return value


def test_two_runs_give_identical_logs(sched):
    def run():
        configure(sched, end_time=0.6, sensors=True)
        # the robot dropped from 5 cm up and falling over limp: many changing contacts
        sched.setAllJointModes("robot", DS.TORQUE_MODE)
        sched.setLinkData("robot", "WAIST", DS.ABS_TRANSFORM,
                          [0.0, 0.0, 0.87, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        sched.setLinkData("robot", "WAIST", DS.ABS_VELOCITY, [0.1, 0.0, 0.0, 0.3, 0.2, 0.0])
        sched.start()
        assert wait_done(sched).state == H.FINISHED
        log = sched.getLog(0)
        sched.reset()
        return log

    first, second = run(), run()
    assert len(first) == len(second) == 601
    assert sum(len(r.world.collisions) for r in first) > 0  # it did hit the floor
    assert first[-1].world.characterPositions[1].linkPositions[0].p != \
        first[0].world.characterPositions[1].linkPositions[0].p
    for a, b in zip(first, second):
        assert flat(a) == flat(b), "records differ at t = %g" % a.world.time


def test_project_joint_mode_overrides_the_model_mode(sched, servers, tmp_path):
    # <joints mode="highgain"/> then <joint ... mode="torque"/>: that one joint is torque
    # controlled (u = 0: it falls from 0.5 rad) while the others hold. The reference is a plain
    # DynamicsSimulator given the same modes the other way round (every joint torque, then
    # POSITION_GIVEN on each joint but J2): the same joint must move the same, bit for bit.
    from hrpsim.project import load_project

    arm6 = MODELS / "arm6" / "arm6.wrl"
    links = servers.client.load_body(arm6)._get_links()
    j2 = next(lk for lk in links if lk.jointId == 1)
    steps = 100

    def project(override):
        path = tmp_path / ("arm-%s.xml" % override)
        path.write_text(
            '<?xml version="1.0"?>\n<hrpsim-project version="1">\n'
            '  <simulation timeStep="0.001" endTime="1" sensors="false"/>\n'
            '  <model name="arm" url="%s">\n    <joints mode="highgain"/>\n'
            '    <joint name="%s" value="0.5"%s/>\n  </model>\n</hrpsim-project>\n'
            % (arm6, j2.name, ' mode="torque"' if override else ""))
        load_project(path).configure(sched, client=servers.client)
        sched.step(steps)
        dyn = sched.dynamics()
        given = [dyn.getCharacterLinkData("arm", lk.name, DS.POSITION_GIVEN)[0]
                 for lk in links[1:]]
        return dyn.getCharacterAllLinkData("arm", DS.JOINT_VALUE), given

    held, given_all = project(False)
    assert held[j2.jointId] == pytest.approx(0.5, abs=1e-12)
    assert given_all == [1.0] * (len(links) - 1)
    q, given = project(True)
    assert given == [0.0 if lk is j2 else 1.0 for lk in links[1:]]

    ref = servers.client.dynamics_simulator()
    try:
        ref.registerCharacter("arm", servers.client.load_body(arm6))
        ref.init(DT, DS.EULER, DS.DISABLE_SENSOR)
        ref.setCharacterAllJointModes("arm", DS.TORQUE_MODE)
        for lk in links[1:]:
            if lk.name != j2.name:
                ref.setCharacterLinkData("arm", lk.name, DS.POSITION_GIVEN, [1.0])
        ref.setCharacterLinkData("arm", j2.name, DS.JOINT_VALUE, [0.5])
        ref.initSimulation()
        for _ in range(steps):
            ref.stepSimulation()
        expected = ref.getCharacterAllLinkData("arm", DS.JOINT_VALUE)
    finally:
        ref.destroy()
    assert q[j2.jointId] > 0.51  # fell (about 0.04 rad in 0.1 s)
    assert q == expected
    # the servos hold (ODE's joint motors, to rounding)
    assert [v for i, v in enumerate(q) if i != j2.jointId] == pytest.approx([0.0] * (len(q) - 1),
                                                                          abs=1e-12)


# =============================================================================================
# failures
# =============================================================================================

def assert_server_answers_and_runs(sched):
    """The next run after a failure works."""
    sched.reset()
    assert sched.status().state == H.IDLE
    configure(sched, end_time=0.05)
    sched.start()
    st = wait_done(sched)
    assert st.state == H.FINISHED and st.steps == 50 and st.message == "", st


def test_controller_raising_stops_the_run(sched, bind):
    journal = Journal()

    def boom(op, t):
        if op == "control" and t >= 0.05 - EPS:
            raise RuntimeError("deliberate failure")

    bad, _ = bind(Controller(journal, "bad", boom))
    good, _ = bind(Controller(journal, "good"))
    configure(sched, end_time=1.0)
    add_controller(sched, good, DT)
    add_controller(sched, bad, 10 * DT)
    sched.start()
    st = wait_done(sched)
    assert st.state == H.FAILED, st
    assert st.message.startswith("controller '%s' failed at t = 0.05 s: control() raised "
                                 "CORBA::UNKNOWN" % bad), st.message
    assert st.steps == 50 and abs(st.time - 0.05) < EPS
    # the other controller got stop(); the failing one no output after its failure
    assert journal.of("good")[-1][1] == "stop"
    assert not journal.of("bad", ("stop",))
    assert all(t < 0.05 for _, op, t in journal.of("bad", ("output",)))
    # the same message from the calls that wait on the run
    with pytest.raises(H.SchedulerError) as err:
        sched.step(1)
    assert "reset()" in err.value.description
    assert sched.status().message == st.message
    assert_server_answers_and_runs(sched)


def test_controller_raising_during_step_raises_from_step(sched, bind):
    def boom(op, t):
        if op == "output" and t >= 0.003 - EPS:
            raise RuntimeError("deliberate failure")

    bad, _ = bind(Controller(Journal(), "bad", boom))
    configure(sched)
    add_controller(sched, bad, DT)
    with pytest.raises(H.SchedulerError) as err:
        sched.step(10)
    assert err.value.description.startswith(
        "controller '%s' failed at t = 0.003 s: output() raised" % bad), err.value.description
    st = sched.status()
    assert st.state == H.FAILED and st.steps == 3  # the third step was taken
    assert_server_answers_and_runs(sched)


def test_controller_failing_in_initialize_fails_start(sched, bind):
    class Refusing(Controller):
        def initialize(self):
            raise OpenHRP.Controller.ControllerException("no gains for this robot")

    bad, _ = bind(Refusing(Journal(), "bad"))
    configure(sched)
    add_controller(sched, bad, DT)
    with pytest.raises(H.SchedulerError) as err:
        sched.start()
    assert err.value.description == (
        "controller '%s' failed at t = 0 s: initialize() raised ControllerException: no gains "
        "for this robot" % bad)
    assert sched.status().state == H.FAILED
    assert_server_answers_and_runs(sched)


def test_hanging_controller_stops_the_run(sched, bind):
    journal = Journal()
    released = threading.Event()

    def hang(op, t):
        if op == "control" and t >= 0.02 - EPS and not released.is_set():
            released.wait(5.0)

    slow, _ = bind(Controller(journal, "slow", hang))
    good, _ = bind(Controller(journal, "good"))
    configure(sched, end_time=1.0)
    sched.setControllerTimeout(0.3)
    add_controller(sched, slow, DT)
    add_controller(sched, good, DT)
    t0 = time.monotonic()
    try:
        sched.start()
        st = wait_done(sched, 10.0)
    finally:
        released.set()
    assert st.state == H.FAILED, st
    assert st.message.startswith(
        "controller '%s' failed at t = 0.02 s: no answer to control() within the timeout of "
        "0.3 s" % slow), st.message
    assert time.monotonic() - t0 < 4.0
    assert journal.of("good")[-1][1] == "stop"
    assert_server_answers_and_runs(sched)


def test_controller_deactivated_mid_run_stops_the_run(sched, bind, poa):
    journal = Journal()
    ctrl = Controller(journal, "gone")
    name, ref = bind(ctrl)
    configure(sched, end_time=100.0)
    add_controller(sched, name, DT)
    sched.start()
    deadline = time.monotonic() + 10
    while len(journal.of("gone", ("control",))) < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    poa.deactivate_object(poa.reference_to_id(ref))
    st = wait_done(sched, 10.0)
    assert st.state == H.FAILED, st
    assert re.match(r"controller '%s' failed at t = [0-9.e-]+ s: (input|control|output)\(\): "
                    r"the object no longer exists \(CORBA::OBJECT_NOT_EXIST" % name,
                    st.message), st.message
    assert_server_answers_and_runs(sched)


CONTROLLER_PROCESS = r"""
import sys
sys.path.insert(0, sys.argv[1])
from omniORB import CORBA
import CosNaming
from hrpsim._idl import OpenHRP__POA

class C(OpenHRP__POA.Controller):
    pass

for op in ("setDynamicsSimulator", "setModelName", "setViewSimulator", "start", "initialize",
           "control", "input", "output", "stop", "destroy", "setTimeStep", "shutdown"):
    setattr(C, op, lambda self, *args: None)

orb = CORBA.ORB_init(["ctrl", "-ORBInitRef", "NameService=" + sys.argv[2]])
poa = orb.resolve_initial_references("RootPOA")
poa._get_the_POAManager().activate()
ref = poa.id_to_reference(poa.activate_object(C()))
ns = orb.resolve_initial_references("NameService")._narrow(CosNaming.NamingContext)
ns.rebind([CosNaming.NameComponent(sys.argv[3], "")], ref)
print("ready", flush=True)
orb.run()
"""


def test_controller_process_killed_mid_run_stops_the_run(sched, servers):
    import CosNaming
    name = "test-proc-%s" % uuid.uuid4().hex[:8]
    proc = subprocess.Popen([sys.executable, "-c", CONTROLLER_PROCESS, str(PYTHON_DIR),
                             servers.corbaloc, name], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        configure(sched, end_time=100.0)
        add_controller(sched, name, DT)
        sched.start()
        deadline = time.monotonic() + 10
        while sched.status().steps < 50 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        st = wait_done(sched, 10.0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        servers.client.root.unbind([CosNaming.NameComponent(name, "")])
    assert st.state == H.FAILED, st
    assert re.match(r"controller '%s' failed at t = [0-9.e-]+ s: " % name, st.message), \
        st.message
    assert "CORBA::" in st.message
    assert_server_answers_and_runs(sched)


def test_failing_execution_context_stops_the_run_and_is_dropped(sched, bind, clock):
    journal = Journal()

    def boom(op, t):
        if t >= 0.01 - EPS:
            raise RuntimeError("deliberate failure")

    ctx = Context(journal, "ec", sched.dynamics(), boom)
    _, ec = bind(ctx, "test-ec")
    configure(sched, end_time=1.0)
    clock.subscribe(ec, 2 * DT)
    try:
        sched.start()
        st = wait_done(sched)
    finally:
        clock.unsubscribe(ec)
    assert st.state == H.FAILED, st
    assert re.match(r"execution context \d+ \(period 0.002 s\) failed at t = 0.011 s: tick\(\) "
                    r"raised CORBA::UNKNOWN", st.message), st.message
    # dropped from the clock: the next run does not tick it (the context now reads the new
    # run's dynamics)
    n = len(journal.of("ec"))
    sched.reset()
    ctx.dyn = sched.dynamics()
    configure(sched, end_time=0.05)
    sched.start()
    assert wait_done(sched).state == H.FINISHED
    assert len(journal.of("ec")) == n


# =============================================================================================
# configuration errors
# =============================================================================================

def test_configuration_errors_raise_scheduler_error(sched, bind):
    def refused(fn, *args, match):
        with pytest.raises(H.SchedulerError) as err:
            fn(*args)
        assert re.search(match, err.value.description), err.value.description

    refused(sched.start, match="add a model first")
    refused(sched.step, 1, match="add a model first")
    refused(sched.pause, match="nothing is running")
    refused(sched.stop, match="no run to stop")
    refused(sched.setTimeStep, 0.0, match=r"time step")
    configure(sched)
    name, _ = bind(Controller(Journal(), "c"))
    refused(add_controller, sched, name, 1.5 * DT, match="not a whole multiple of the time step")
    refused(add_controller, sched, name, 0.0, match="not a whole multiple")
    refused(add_controller, sched, name, DT, "nobody", match="unknown model 'nobody'")
    refused(sched.setLinkData, "nobody", "WAIST", DS.JOINT_VALUE, [0.0],
            match="unknown character 'nobody'")
    refused(sched.setLinkData, "robot", "NO_SUCH_LINK", DS.JOINT_VALUE, [0.0],
            match="no link 'NO_SUCH_LINK'")
    refused(sched.setAllJointModes, "nobody", DS.TORQUE_MODE, match="nobody")
    refused(sched.addCollisionPair, H.CollisionPair("floor", "", "robot", "NOPE", 0.5, 0.5,
                                                    0.01, 0.0), match="NOPE")
    refused(sched.addModel, "robot", file_url(HUMANOID), match="already registered")
    refused(sched.addModel, "ghost", file_url(REPO / "no" / "such.wrl"), match="such.wrl")
    refused(sched.setLogOptions, H.LogOptions(0.0015, False), match="log period")
    refused(sched.setGVector, [0.0, 0.0], match="3 numbers")
    refused(sched.setControllerTimeout, 0.0, match="timeout")
    refused(sched.setRealTime, -1.0, match="real-time factor")
    # a controller that is not bound: start refuses and the configuration stays usable
    add_controller(sched, "test-not-bound-anywhere", DT)
    refused(sched.start, match="'test-not-bound-anywhere' is not bound in the naming service")
    assert sched.status().state == H.READY
    sched.reset()
    configure(sched)
    add_controller(sched, name, DT)
    sched.start()
    try:
        refused(sched.step, 1, match="RUNNING: pause")
        refused(sched.runUntil, 1.0, match="RUNNING: pause")
        refused(sched.start, match="a run exists already")
        refused(sched.setTimeStep, 0.002, match="while RUNNING")
        refused(sched.addModel, "other", file_url(FLOOR), match="while RUNNING")
    finally:
        sched.stop()
    refused(sched.setEndTime, 1.0, match=r"call reset\(\)")
    # the scheduler's dynamics belong to it
    with pytest.raises(CORBA.NO_PERMISSION):
        sched.dynamics().destroy()


# =============================================================================================
# shutdown
# =============================================================================================

def _ended(pid):
    """True once pid has exited (a zombie counts: this container's PID 1 may not reap it)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_sigterm_while_a_client_waits_ends_the_server_promptly(state_dirs):
    """A client blocked in wait(30) must not hold a SIGTERM back: the shutdown halts the run,
    which releases the waiter, so the process ends in well under the wait's 30 s (10 s allows
    for a loaded machine; without the shutdown hook it took the full 30 s)."""
    d = state_dirs("sigterm")
    start_servers(d, "--only", "ModelLoader", "Scheduler")
    state = launcher.read_state(d)
    pid = next(r["pid"] for r in state["processes"] if r["name"] == "Scheduler")
    client = hrpsim.connect(naming=state["naming"])
    s = client.resolve("Scheduler", H.Scheduler)
    configure(s, end_time=0.0)  # no end: runs until stopped
    s.start()
    waited = {}

    def waiter():
        t0 = time.monotonic()
        try:
            s.wait(30.0)
        except CORBA.Exception as exc:  # the server going away mid-call is fine
            waited["exception"] = exc
        waited["seconds"] = time.monotonic() - t0

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    while not _ended(pid) and time.monotonic() - t0 < 10.0:
        time.sleep(0.05)
    ended_after = time.monotonic() - t0
    thread.join(35.0)
    assert _ended(pid), "the scheduler was still running 10 s after SIGTERM"
    assert ended_after < 10.0 and waited["seconds"] < 10.5, (ended_after, waited)
