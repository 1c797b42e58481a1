"""hrpsim.controller.Controller, the base class of Python OpenHRP controllers.

In process (no servers): what the configuration calls store, the period count seen by
``control()`` (0, 1, 2, ... whatever the override chain), and ``initialize()`` refusing a
controller without a dynamics simulator or model name (OpenHRP's ControllerException).

Through CORBA: a controller written as the README shows (only ``initialize`` and ``control``
overridden, served by ``hrpsim.controller.main``) commands the sample arm along the C++ arm
sample's trajectory; driven by the Scheduler, and by hand as any OpenHRP client would drive
it, the arm's q after k steps is the trajectory at k * dt (a high-gain joint lands on its
command; 1e-6 rad as in test_simulation.py's arm test). SIGTERM unbinds it and exits 0.
"""

import math
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import OpenHRP
from hrpsim.controller import Controller

from conftest import cli_env
from test_simulation import scheduler_ready, wait_for_line

REPO = Path(__file__).resolve().parents[2]
ARM6 = REPO / "samples" / "models" / "arm6" / "arm6.wrl"
DT = 0.001


# =============================================================================================
# in process
# =============================================================================================


def configured(ctrl, dt=0.002):
    ctrl.setDynamicsSimulator("a dynamics simulator")
    ctrl.setViewSimulator("a view simulator")
    ctrl.setModelName("robot")
    ctrl.setTimeStep(dt)
    ctrl.initialize()
    ctrl.start()
    return ctrl


def tick(ctrl, n):
    for _ in range(n):
        ctrl.input()
        ctrl.control()
        ctrl.output()


def test_configuration_calls_are_stored():
    ctrl = configured(Controller(), dt=0.004)
    assert (ctrl.dynamics, ctrl.vision, ctrl.model_name, ctrl.dt) == (
        "a dynamics simulator", "a view simulator", "robot", 0.004)
    tick(ctrl, 3)  # the defaults do nothing, and still count the periods
    assert ctrl.count == 3 and ctrl.time == pytest.approx(0.012, abs=1e-15)
    for call in (ctrl.stop, ctrl.destroy, ctrl.shutdown):
        assert call() is None


class Recorder(Controller):
    def __init__(self):
        super().__init__()
        self.seen = []

    def input(self):
        self.seen.append(("input", self.count))

    def control(self):
        self.seen.append(("control", self.count, self.time))

    def output(self):
        self.seen.append(("output", self.count))


class Deeper(Recorder):
    def control(self):
        super().control()  # counted once per period all the same
        self.seen.append(("deeper", self.count))


def test_control_sees_the_period_number_and_counts_it_once():
    ctrl = configured(Recorder())
    tick(ctrl, 2)
    assert ctrl.seen == [("input", 0), ("control", 0, 0.0), ("output", 1),
                         ("input", 1), ("control", 1, 0.002), ("output", 2)]
    deeper = configured(Deeper())
    tick(deeper, 2)
    assert [e for e in deeper.seen if e[0] in ("deeper", "output")] == [
        ("deeper", 0), ("output", 1), ("deeper", 1), ("output", 2)]
    # start() and initialize() count from 0 again
    deeper.start()
    assert deeper.count == 0
    tick(deeper, 1)
    deeper.initialize()
    assert deeper.count == 0


def test_a_failing_control_is_not_counted():
    class Failing(Controller):
        def control(self):
            raise RuntimeError("deliberate")

    ctrl = configured(Failing())
    with pytest.raises(RuntimeError):
        ctrl.control()
    assert ctrl.count == 0 and not ctrl._in_control
    with pytest.raises(RuntimeError):
        ctrl.control()  # the guard was reset: still a top-level call
    assert ctrl.count == 0


@pytest.mark.parametrize("missing", ["dynamics", "model"])
def test_initialize_without_configuration_raises_controller_exception(missing):
    class Named(Controller):
        pass

    ctrl = Named()
    if missing != "dynamics":
        ctrl.setDynamicsSimulator("a dynamics simulator")
    if missing != "model":
        ctrl.setModelName("robot")
    with pytest.raises(OpenHRP.Controller.ControllerException) as info:
        ctrl.initialize()
    assert info.value.description == (
        "Named: no dynamics simulator or model name before initialize()")


# =============================================================================================
# served, driven through CORBA
# =============================================================================================


def arm_trajectory(j, t):
    """The C++ arm sample's trajectory (samples/controllers/arm_trajectory.cpp), written here
    independently of the controller below."""
    return (0.6 - 0.05 * j) * math.sin(2 * math.pi * 0.25 * (1 + j / 4.0) * t)


# a user's controller, as the README shows it: initialize() and control() only
PY_ARM = textwrap.dedent("""\
    import math
    import sys
    sys.path.insert(0, %(python)r)
    from hrpsim import OpenHRP
    from hrpsim.controller import Controller, main

    DS = OpenHRP.DynamicsSimulator


    class PyArm(Controller):
        def initialize(self):
            super().initialize()
            self.dynamics.setCharacterAllJointModes(self.model_name, DS.HIGH_GAIN_MODE)

        def control(self):
            t = self.time + self.dt  # the end of the coming step
            q = [(0.6 - 0.05 * j) * math.sin(2 * math.pi * 0.25 * (1 + j / 4.0) * t)
                 for j in range(6)]
            self.dynamics.setCharacterAllLinkData(self.model_name, DS.JOINT_VALUE, q)


    main(PyArm, "PyArm")
    """)


@pytest.fixture
def py_arm(servers, tmp_path):
    """The controller above, running and bound as PyArmTest; stopped by SIGTERM after."""
    script = tmp_path / "py_arm.py"
    script.write_text(PY_ARM % {"python": str(REPO / "python")})
    proc = subprocess.Popen([sys.executable, str(script), "--name", "PyArmTest", "-ORBInitRef",
                             "NameService=" + servers.corbaloc],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env())
    try:
        wait_for_line(proc, "PyArm: bound as 'PyArmTest'")
        yield "PyArmTest"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    assert proc.returncode == 0, "the controller exited with %s:\n%s%s" % (proc.returncode,
                                                                           out, err)
    assert "PyArmTest" not in servers.client.names()  # unbound on the way out


@pytest.fixture
def make(servers):
    made = []

    def make_sim(**kw):
        sim = hrpsim.Simulation(servers.client, **kw)
        made.append(sim)
        return sim

    yield make_sim
    for sim in made:
        sim.close()


def test_base_class_controller_through_the_scheduler(servers, make, py_arm):
    scheduler_ready(servers)
    sim = make(dt=DT, scheduler=True)
    sim.add_model("arm", ARM6)  # torque mode until the controller's initialize()
    sim.add_controller(py_arm, "arm", DT)
    sim.run(0.3)
    assert sim.q("arm") == pytest.approx([arm_trajectory(j, 0.3) for j in range(6)], abs=1e-6)


def test_base_class_controller_driven_as_an_openhrp_client_would(servers, make, py_arm):
    ctrl = servers.client.resolve(py_arm, OpenHRP.Controller)
    with pytest.raises(OpenHRP.Controller.ControllerException):
        ctrl.initialize()  # nothing configured yet
    sim = make(dt=DT)
    sim.add_model("arm", ARM6)
    ctrl.setDynamicsSimulator(sim.dynamics)
    ctrl.setViewSimulator(None)
    ctrl.setModelName("arm")
    ctrl.setTimeStep(DT)
    ctrl.initialize()
    ctrl.start()
    n = 200

    def before(s):
        ctrl.input()
        ctrl.control()

    for _ in range(n):
        sim.step(1, before=before)
        ctrl.output()
    ctrl.stop()
    assert sim.q("arm") == pytest.approx([arm_trajectory(j, n * DT) for j in range(6)],
                                         abs=1e-6)
    assert max(abs(x) for x in sim.q("arm")) > 0.2  # it really moved


# =============================================================================================
# the sample JointScript (on the base class) in its project
# =============================================================================================


def test_joint_script_sample_drives_the_leg_along_its_sine(servers, tmp_path):
    """parallel_leg.xml, shortened to 0.3 s: the JointScript sample commands the high-gain hip
    THIGH to 0.4 sin(2 pi t) for the end of each coming step (the base class counts the
    periods), so every logged q after the first step is that sine (1e-9 rad: a high-gain joint
    lands on its command)."""
    from conftest import describe, run_cli
    scheduler_ready(servers)
    text = (REPO / "samples" / "projects" / "parallel_leg.xml").read_text()
    text = text.replace('endTime="5"', 'endTime="0.3"').replace(
        "../models/", str(REPO / "samples" / "models") + "/").replace(
        "python3 ../controllers/", "python3 %s/" % (REPO / "samples" / "controllers"))
    project = tmp_path / "leg.xml"
    project.write_text(text)
    out = tmp_path / "out"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--quiet",
                   "--no-plots", project)
    assert proc.returncode == 0, describe(proc)
    log = np.load(out / "log.npz")
    t, names = log["time"], list(log["leg.joint_names"])
    thigh = log["leg.q"][:, names.index("THIGH")]
    assert len(t) == 31 and t[-1] == pytest.approx(0.3, abs=1e-12)
    assert thigh[1:] == pytest.approx(0.4 * np.sin(2 * np.pi * t[1:]), abs=1e-9)
    assert np.abs(thigh).max() > 0.3  # it really swung
