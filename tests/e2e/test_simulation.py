"""End-to-end tests of hrpsim.Simulation, the scripting API, against real servers.

Client-driven (the Simulation creates its own DynamicsSimulator and steps it):
- free fall of a 1 kg cube against the discrete solution of ODE's semi-implicit Euler step
  (x = x0 - g dt^2 N (N + 1) / 2, v = -g N dt after N steps from rest), to 1e-9 m as in
  test_dynamics.py;
- states come back as float64 NumPy arrays of the documented shapes (the sample humanoid:
  31 links, 30 joints, 4 force sensors, 1 gyro, 1 accelerometer);
- reset() and the same run again give bit-identical arrays (np.array_equal), in the same
  servers;
- run(until) lands on the whole step; commands sent between steps (high-gain arm following a
  sinusoid) are where the joints are after the step;
- configuration after the start is refused until reset().

Through the scheduler server (scheduler=True): the same scene gives bit-identical arrays to the
client-driven run (the scheduler steps the same dynamics code in its own process), step(n) and
runUntil land on the exact step, and reset() then the same run again is identical. While the
scheduler server is not built yet these tests are expected failures (xfail, not strict);
once bin/hrpsim-scheduler exists they must pass.
"""

import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import paths

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
ARM6 = MODELS / "arm6" / "arm6.wrl"
sys.path.insert(0, str(REPO / "samples" / "scripts"))
import slope_friction_sweep as slope  # noqa: E402

G = 9.8
DT = 0.001

SCHEDULER_EXE = paths.default_bin_dir() / dict(paths.SERVERS)["Scheduler"]
SCHEDULER_MISSING = not os.access(SCHEDULER_EXE, os.X_OK)
needs_scheduler = pytest.mark.xfail(SCHEDULER_MISSING, reason="scheduler server not built yet",
                                    strict=False)


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.fail("hrpsim-dynamics was not started (is it built in %s?)"
                    % paths.default_bin_dir(), pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def box_path():
    return slope.BOX_URL  # a primitive: built by the ModelLoader, no file


@pytest.fixture
def make(client):
    """Factory of Simulations; each is closed after the test."""
    made = []

    def make_sim(**kw):
        sim = hrpsim.Simulation(client, **kw)
        made.append(sim)
        return sim

    yield make_sim
    for sim in made:
        sim.close()


def scheduler_ready(servers):
    """Fail (never skip) unless the scheduler server runs in the session's servers."""
    if not servers.has("Scheduler"):
        pytest.fail("the Scheduler server was not started by hrpsim up: %s %s"
                    % (SCHEDULER_EXE, "is missing (build it)" if SCHEDULER_MISSING
                       else "exists but did not start"), pytrace=False)


def bent_knees(sim):
    """Joint values (jointId order) of a slightly bent standing pose, and the waist height."""
    bend = 0.2
    q = np.zeros(len(sim.joint_names("robot")))
    for i, name in enumerate(sim.joint_names("robot")):
        if "_HIP_P" in name or "_ANKLE_P" in name:
            q[i] = -bend
        elif "LEG_KNEE" in name:
            q[i] = 2 * bend
    return q, 0.82 - 0.6 * (1 - math.cos(bend))


def standing(sim):
    """Floor and humanoid 'robot' standing in high-gain mode, contact pair with friction."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    q, z = bent_knees(sim)
    sim.set_joint_mode("robot", "high_gain")
    sim.set_root_pose("robot", (0.0, 0.0, z))
    sim.set_joint_values("robot", q)
    sim.add_collision_pair("floor", "robot", friction=0.5)
    return q


def assert_same(a, b, where="snapshot"):
    """Two snapshots (nested dicts of arrays) equal bit for bit."""
    assert a.keys() == b.keys(), where
    for k in a:
        if isinstance(a[k], dict):
            assert_same(a[k], b[k], "%s[%r]" % (where, k))
        else:
            assert np.array_equal(a[k], b[k]), "%s[%r] differs: %r vs %r" % (where, k, a[k], b[k])


# =============================================================================================
# client-driven
# =============================================================================================


def test_free_fall_matches_the_discrete_solution(make, box_path):
    z0, n = 5.0, 300
    sim = make(dt=DT)
    sim.add_model("box", box_path)
    sim.set_root_pose("box", (0.0, 0.0, z0))
    sim.step(n)
    p, R = sim.root_pose("box")
    v, w = sim.root_velocity("box")
    assert sim.steps == n
    assert p == pytest.approx([0.0, 0.0, z0 - G * DT * DT * n * (n + 1) / 2], abs=1e-9)
    assert v == pytest.approx([0.0, 0.0, -G * n * DT], abs=1e-9)
    assert np.allclose(R, np.eye(3), atol=1e-12) and np.allclose(w, 0.0, atol=1e-12)
    assert sim.time == pytest.approx(n * DT, abs=1e-12)


def test_gravity_follows_the_openhrp_convention(make, box_path):
    sim = make(dt=DT, gravity=(2.0, 0.0, 0.0))  # pulls towards -x
    sim.add_model("box", box_path)
    n = 100
    sim.step(n)
    p, _ = sim.root_pose("box")
    assert p == pytest.approx([-2.0 * DT * DT * n * (n + 1) / 2, 0.0, 0.0], abs=1e-9)


def test_states_are_numpy_arrays_of_the_right_shapes(make):
    sim = make(dt=DT, models={})
    q0 = standing(sim)
    sim.step(20)
    p, R = sim.root_pose("robot")
    P, RR = sim.link_poses("robot")
    arrays = {"p": (p, (3,)), "R": (R, (3, 3)), "P": (P, (31, 3)), "RR": (RR, (31, 3, 3)),
              "q": (sim.q("robot"), (30,)), "dq": (sim.dq("robot"), (30,)),
              "u": (sim.u("robot"), (30,)), "force": (sim.force("robot"), (4, 6)),
              "gyro": (sim.gyro("robot"), (1, 3)), "accel": (sim.accel("robot"), (1, 3))}
    for key, (arr, shape) in arrays.items():
        assert isinstance(arr, np.ndarray) and arr.dtype == np.float64, key
        assert arr.shape == shape, key
    assert np.array_equal(P[0], p) and np.array_equal(RR[0], R)  # link 0 is the root
    assert sim.link_names("robot")[0] == "WAIST"
    # high gain holds the pose; the floor carries the robot: ankle sensors see its weight
    assert np.allclose(sim.q("robot"), q0, atol=1e-9)
    s = sim.sensors("robot")
    assert np.array_equal(s["q"], sim.q("robot"))
    assert s["force"][:, 2].sum() > 0.5 * 50.6 * G
    assert sim.accel("robot")[0] == pytest.approx([0.0, 0.0, G], abs=0.5)
    assert sim.sensors("floor")["q"].shape == (0,)
    snap = sim.snapshot()
    assert set(snap) == {"time", "floor", "robot"}
    assert snap["robot"]["p"].shape == (31, 3) and snap["floor"]["p"].shape == (1, 3)


def test_reset_and_run_again_gives_identical_arrays(make):
    sim = make(dt=DT)
    standing(sim)
    sim.run(0.3)
    first = sim.snapshot()
    first_world = sim.dynamics
    sim.reset()
    assert sim.steps == 0
    sim.run(0.3)
    second = sim.snapshot()
    assert not sim.dynamics._is_equivalent(first_world)  # a new world in the same server
    assert first["time"] == pytest.approx(0.3, abs=1e-12)
    assert_same(first, second)


def test_run_until_lands_on_the_step(make, box_path):
    sim = make(dt=0.004)
    sim.add_model("box", box_path)
    sim.run(0.24)
    assert sim.steps == 60
    assert sim.time == pytest.approx(0.24, abs=1e-12)
    sim.run(0.24)  # already there: nothing to do
    assert sim.steps == 60
    sim.run(0.25)  # between steps: on to the first step at or after it
    assert sim.steps == 63
    assert sim.time == pytest.approx(0.252, abs=1e-12)
    with pytest.raises(ValueError):
        sim.run(0.1)


def test_commands_between_steps_drive_high_gain_joints(make):
    sim = make(dt=DT)
    sim.add_model("arm", ARM6)
    sim.set_joint_mode("arm", "high_gain")
    n = len(sim.joint_names("arm"))
    assert n == 6

    def command(s):
        t = (s.steps + 1) * DT
        s.set_joint_values("arm", 0.3 * np.sin(2 * math.pi * t + np.arange(n)))

    sim.step(200, before=command)
    expected = 0.3 * np.sin(2 * math.pi * 200 * DT + np.arange(n))
    assert sim.q("arm") == pytest.approx(expected, abs=1e-6)


VEHICLE = REPO / "tests" / "data" / "vrml_openhrp" / "vehicle.wrl"
# the test vehicle's jointIds 0-4, then a gap (5-8, no link), then CAMERA with id 9
VEHICLE_JOINTS = ["WHEEL_L", "WHEEL_R", "PAN", "TILT", "TRACK", "", "", "", "", "CAMERA"]


@pytest.mark.parametrize("scheduler", [False, True])
def test_joint_names_mark_jointid_gaps_with_empty_strings(servers, make, scheduler):
    """joint_names has one entry per q column, "" for a jointId no link has (as `hrpsim run`
    writes log.npz's C.joint_names), so a name's index is its column; joint values given in
    that order reach the named joints in both modes (the scheduler's are written per link,
    skipping the gaps)."""
    if scheduler:
        scheduler_ready(servers)
    sim = make(dt=DT, scheduler=scheduler)
    sim.add_model("v", VEHICLE)
    names = sim.joint_names("v")
    assert names == VEHICLE_JOINTS
    q = np.zeros(len(names))
    q[names.index("PAN")], q[names.index("TILT")] = 0.3, -0.2
    sim.set_joint_mode("v", "high_gain")
    sim.set_joint_values("v", q)
    sim.step(5)
    got = sim.q("v")
    assert got.shape == (len(names),)
    assert got[names.index("PAN")] == pytest.approx(0.3, abs=1e-9)
    assert got[names.index("TILT")] == pytest.approx(-0.2, abs=1e-9)
    assert np.all(got[5:9] == 0.0)


def test_configuration_after_start_is_refused_until_reset(make, box_path):
    sim = make(dt=DT)
    sim.add_model("box", box_path)
    sim.step(1)
    with pytest.raises(RuntimeError, match="reset"):
        sim.set_gravity((0, 0, 0))
    with pytest.raises(RuntimeError, match="reset"):
        sim.add_model("box2", box_path)
    sim.reset()
    sim.set_gravity((0.0, 0.0, 0.0))
    sim.step(10)
    assert sim.root_pose("box")[0] == pytest.approx([0.0, 0.0, 0.0], abs=1e-15)


def test_bad_arguments_raise_before_reaching_the_server(make, box_path):
    sim = make()
    with pytest.raises(ValueError):
        sim.set_time_step(0.0)
    with pytest.raises(ValueError):
        sim.set_gravity((0.0, float("nan"), 9.8))
    sim.add_model("box", box_path)
    with pytest.raises(ValueError):
        sim.add_model("box", box_path)
    with pytest.raises(KeyError):
        sim.set_root_pose("nobody", (0, 0, 0))
    with pytest.raises(ValueError):
        sim.set_joint_mode("box", "stiff")
    with pytest.raises(RuntimeError, match="scheduler"):
        sim.add_controller("C")


def test_scheduler_stubs_are_exposed():
    H = hrpsim.SchedulerIDL
    assert H.Scheduler._NP_RepositoryId == "IDL:hrpsim/Scheduler:1.0"
    assert hasattr(H, "CollisionPair") and hasattr(hrpsim.SchedulerIDL__POA, "Scheduler")


# =============================================================================================
# through the scheduler server
# =============================================================================================


@needs_scheduler
def test_scheduler_run_equals_the_client_driven_run(servers, make):
    scheduler_ready(servers)
    direct = make(dt=DT)
    standing(direct)
    direct.run(0.2)
    via = make(dt=DT, scheduler=True)
    standing(via)
    via.run(0.2)
    assert via.steps == 200
    assert via.scheduler().status().steps == 200
    assert_same(direct.snapshot(), via.snapshot())


@needs_scheduler
def test_scheduler_step_and_run_until_land_on_the_step(servers, make, box_path):
    scheduler_ready(servers)
    sim = make(dt=DT, scheduler=True)
    sim.add_model("box", box_path)
    sim.set_root_pose("box", (0.0, 0.0, 5.0))
    sim.step(7)
    assert sim.scheduler().status().steps == 7
    sim.run(0.05)
    status = sim.scheduler().status()
    assert status.steps == 50 and sim.steps == 50
    assert status.time == pytest.approx(0.05, abs=1e-12)
    p, _ = sim.root_pose("box")
    assert p[2] == pytest.approx(5.0 - G * DT * DT * 50 * 51 / 2, abs=1e-9)


@needs_scheduler
def test_scheduler_reset_and_run_again_is_identical(servers, make):
    scheduler_ready(servers)
    sim = make(dt=DT, scheduler=True)
    standing(sim)
    sim.run(0.1)
    first = sim.snapshot()
    sim.reset()
    sim.run(0.1)
    assert_same(first, sim.snapshot())


# =============================================================================================
# the sample controllers: C++ arm controller, Python counting execution context
# =============================================================================================

ARM_CONTROLLER_EXE = paths.default_bin_dir() / "hrpsim-sample-arm-controller"
COUNT_EC = REPO / "samples" / "controllers" / "count_ec.py"


def arm_trajectory(j, t):
    """samples/controllers/arm_trajectory.cpp's trajectory, computed here independently."""
    return (0.6 - 0.05 * j) * math.sin(2 * math.pi * 0.25 * (1 + j / 4.0) * t)


def wait_for_line(proc, text, timeout=30.0):
    """Read ``proc``'s stdout until a line containing ``text``; fail with its output if not."""
    import selectors
    import time
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        if sel.select(timeout=0.2):
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            if text in line:
                return
    proc.kill()
    out, err = proc.communicate()
    pytest.fail("%r never printed %r; stdout:\n%s%s\nstderr:\n%s"
                % (proc.args, text, "".join(seen), out, err), pytrace=False)


@pytest.fixture
def arm_controller(servers):
    """The C++ sample controller, running and bound as ArmControllerTest; stopped after."""
    import subprocess
    if not os.access(ARM_CONTROLLER_EXE, os.X_OK):
        pytest.fail("%s is missing: the normal build makes it" % ARM_CONTROLLER_EXE,
                    pytrace=False)
    proc = subprocess.Popen([str(ARM_CONTROLLER_EXE), "-ORBInitRef",
                             "NameService=" + servers.corbaloc, "ArmControllerTest"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_line(proc, "bound 'ArmControllerTest'")
        yield "ArmControllerTest"
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, "the arm controller exited with %s" % proc.returncode
    assert "ArmControllerTest" not in servers.client.names()  # unbound on the way out


def test_arm_controller_sample_driven_client_side(servers, make, arm_controller):
    ctrl = servers.client.resolve(arm_controller, hrpsim.OpenHRP.Controller)
    sim = make(dt=DT)
    sim.add_model("arm", ARM6)  # torque mode: the controller's initialize() sets high gain
    ctrl.setDynamicsSimulator(sim.dynamics)
    ctrl.setModelName("arm")
    ctrl.setTimeStep(DT)
    ctrl.initialize()
    ctrl.start()
    n = 300

    def tick(s):
        ctrl.input()
        ctrl.control()

    for _ in range(n):
        sim.step(1, before=tick)
        ctrl.output()
    expected = [arm_trajectory(j, n * DT) for j in range(6)]
    assert sim.q("arm") == pytest.approx(expected, abs=1e-6)
    assert np.abs(sim.q("arm")).max() > 0.3  # it really moved


@needs_scheduler
def test_arm_controller_sample_through_the_scheduler(servers, make, arm_controller):
    scheduler_ready(servers)
    sim = make(dt=DT, scheduler=True)
    sim.add_model("arm", ARM6)
    sim.add_controller(arm_controller, "arm", DT)
    sim.run(0.3)
    expected = [arm_trajectory(j, 0.3) for j in range(6)]
    assert sim.q("arm") == pytest.approx(expected, abs=1e-6)


@needs_scheduler
def test_count_ec_sample_is_ticked_at_its_period(servers, make, box_path, tmp_path):
    import signal
    import subprocess
    from conftest import cli_env
    scheduler_ready(servers)
    env = cli_env()
    env["HRPSIM_NAMING"] = servers.corbaloc
    count = tmp_path / "count.txt"
    proc = subprocess.Popen([sys.executable, str(COUNT_EC), "0.005", "--count-file", str(count)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        wait_for_line(proc, "subscribed")
        sim = make(dt=DT, scheduler=True)
        sim.add_model("box", box_path)
        sim.run(0.1)  # 100 steps: a tick every 5
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, "count_ec: %s\n%s" % (out, err)
    assert "ticks: 20" in out
    assert count.read_text().strip() == "20"


def test_repeat_runs_sample_finds_twenty_identical_runs(servers):
    import subprocess
    from conftest import cli_env, describe
    env = cli_env()
    env["HRPSIM_NAMING"] = servers.corbaloc
    proc = subprocess.run([sys.executable, str(REPO / "samples" / "scripts" / "repeat_runs.py"),
                           "--mode", "client", "--time", "0.3"], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, describe(proc)
    assert "all 20 runs bit-identical" in proc.stdout
    assert proc.stdout.count("identical") == 20  # 19 runs + the summary


@needs_scheduler
def test_repeat_runs_sample_through_the_scheduler(servers):
    import subprocess
    from conftest import cli_env, describe
    scheduler_ready(servers)
    env = cli_env()
    env["HRPSIM_NAMING"] = servers.corbaloc
    proc = subprocess.run([sys.executable, str(REPO / "samples" / "scripts" / "repeat_runs.py"),
                           "--mode", "scheduler", "--time", "0.3"], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, describe(proc)
    assert "through the scheduler server" in proc.stdout
    assert "all 20 runs bit-identical" in proc.stdout
