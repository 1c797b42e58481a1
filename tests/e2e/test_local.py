"""End-to-end tests of the local back end (hrpsim.Simulation(backend="local")): the simulation
core inside the Python process, against the server back end.

- bit identity: a set of scenes (the humanoid standing in high-gain mode with its force
  sensors, gyro, accelerometer, range sensor and two cameras; the humanoid under a PD law in
  torque mode, its torques written between steps; the closed-loop four-bar and parallel leg
  falling onto the floor, and a loop registered with add_extra_joint; the crawler driving on
  its tracks; the arm following commands) run through hrpsim-dynamics and in process, and
  every snapshot (time, link poses, q, dq, u, every sensor reading) and loop force compared
  with np.array_equal: the same bits, not close numbers - on both engines (ODE, joint space);
- in process means in process: a child interpreter runs a local simulation with no naming
  service in its environment and never imports omniORB;
- views: sim.local's arrays see the core's memory (they change in place when the simulation
  steps, equal what the copying readers return, and refuse writes);
- a runaway stops the run with hrpsim.Runaway naming the character, as the servers do;
- cameras rendered in process equal the view server's pictures pixel for pixel;
- sweeps: local workers, the serial runs and the server runs give the same bits;
- `hrpsim run --local` ticks a Python controller (the sample PD) in process, writes the
  scheduler run's log.npz (same keys and bits for a project with no controller), and refuses a
  controller that is an external command (it needs the servers); its DynamicsSimulator
  look-alike reads the SensorState the Simulation reads (jointId order, gaps, range scans) and
  refuses a bad command with the Simulation's words, changing nothing;
- samples/scripts/local_humanoid.py runs and writes its PNG;
- the Python time-step bounds (hrpsim.limits) are the core's.
"""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim.models import OPENHRP_PROTOS

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
ARM6 = MODELS / "arm6" / "arm6.wrl"
sys.path.insert(0, str(REPO / "samples" / "controllers"))
from pd_controller import PDLaw  # noqa: E402
from conftest import assert_same  # noqa: E402


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.fail("hrpsim-dynamics was not started", pytrace=False)
    return servers.client



# ---------------------------------------------------------------------------------------------
# scenes: configure(sim) then drive(sim) -> list of records to compare
# ---------------------------------------------------------------------------------------------


def bent_knees(names):
    q = np.zeros(len(names))
    for i, name in enumerate(names):
        if "_HIP_P" in name or "_ANKLE_P" in name:
            q[i] = -0.2
        elif "LEG_KNEE" in name:
            q[i] = 0.4
    return q, 0.82 - 0.6 * (1 - math.cos(0.2))


def snapshots(sim, steps, every, before=None):
    out = []
    for _ in range(steps // every):
        sim.step(every, before)
        out.append(sim.snapshot())
    return out


def humanoid_high_gain(sim):
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    q, z = bent_knees(sim.joint_names("robot"))
    sim.set_joint_mode("robot", "high_gain")
    sim.set_root_pose("robot", (0.0, 0.0, z + 0.01))
    sim.set_joint_values("robot", q)
    sim.add_collision_pair("floor", "robot", friction=0.5)

    def before(s):  # wave the chest: commands between steps
        q2 = q.copy()
        q2[sim.joint_names("robot").index("CHEST_Y")] = 0.3 * math.sin(0.01 * s.steps)
        s.set_joint_values("robot", q2)
    return snapshots(sim, 300, 50, before)


def humanoid_torque_pd(sim):
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    names = sim.joint_names("robot")
    q, z = bent_knees(names)
    sim.set_joint_mode("robot", "torque")
    sim.set_root_pose("robot", (0.0, 0.0, z))
    sim.set_joint_values("robot", q)
    sim.add_collision_pair("floor", "robot", friction=0.5)
    law = PDLaw(names)

    def before(s):
        tau = law.torques(s.steps * s.dt, s.q("robot"), s.dq("robot"))
        s.set_joint_torques("robot", tau)
    return snapshots(sim, 400, 50, before)


POST_WRL = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF POST Humanoid { name "post" humanoidBody [
  DEF BASE Joint { jointType "fixed" translation 0 0 2 children [
    Segment { mass 1 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01] } ] } ]
  joints [ USE BASE ] }
"""

BOB_WRL = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF BOB Humanoid { name "bob" humanoidBody [
  DEF BOB_LINK Joint { jointType "free" children [
    Segment { mass 1.5 momentsOfInertia [0.0025 0 0 0 0.0025 0 0 0 0.0025]
      children Shape { geometry Box { size 0.1 0.1 0.1 } } } ] } ]
  joints [ USE BOB_LINK ] }
"""
PENDULUM = {}


def closed_loops(sim):
    sim.add_model("floor", FLOOR)
    sim.add_model("fb", MODELS / "closed_link" / "four_bar.wrl")
    sim.add_model("leg", MODELS / "closed_link" / "parallel_leg.wrl")
    sim.add_model("post", PENDULUM["post"])
    sim.add_model("bob", PENDULUM["bob"])
    sim.set_root_pose("leg", (1.0, 0.0, 0.9))
    sim.add_collision_pair("floor", "leg", friction=0.8)
    # a loop of our own (registerExtraJoint): a swinging pendulum
    sim.set_root_pose("bob", (0.0, 0.0, 1.7))
    sim.set_root_velocity("bob", (0.5, 0.0, 0.0))
    sim.add_extra_joint("hook", "post", "BASE", "bob", "BOB_LINK", pos2=(0, 0, 0.3))
    out = snapshots(sim, 300, 50)
    out.append({"LOOP": sim.extra_joint_force("fb", "LOOP"),
                "hook": sim.extra_joint_force("bob", "hook")})
    return out


def crawler(sim):
    sim.add_model("floor", FLOOR)
    sim.add_model("crawler", MODELS / "crawler" / "crawler.wrl")
    for track in ("TRACK_L", "TRACK_R"):
        sim.add_collision_pair("floor", "crawler", link2=track, friction=1.0, culling=0.005)
    sim.start()
    sim.set_track_speed("crawler", "TRACK_L", 0.3)
    sim.set_track_speed("crawler", "TRACK_R", 0.2)
    return snapshots(sim, 400, 100)


def arm_commands(sim):
    sim.add_model("arm", ARM6)
    sim.set_joint_mode("arm", "high_gain")

    def before(s):
        t = s.steps * s.dt
        s.set_joint_values("arm", [0.5 * math.sin(2 * math.pi * t + k) for k in range(6)])
    out = snapshots(sim, 200, 40, before)
    out.append(sim.link_data("arm", "J3", "ABS_VELOCITY"))
    return out


def box_pile(sim):
    """Sleeping on (Simulation's default): a column of boxes falls asleep, a dropped box wakes
    it (tests/e2e/test_options.py asserts that; here both back ends must agree on every bit)."""
    from test_options import pile
    pile(sim, PENDULUM["bob"])
    return snapshots(sim, 1600, 100) + [[sim.sleeping(n) for n in ("b0", "b1", "b2", "drop")]]


SCENES = {f.__name__: f for f in (humanoid_high_gain, humanoid_torque_pd, closed_loops,
                                   crawler, arm_commands, box_pile)}


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory):
    d = tmp_path_factory.mktemp("local-models")
    for key, text in (("post", POST_WRL), ("bob", BOB_WRL)):
        PENDULUM[key] = d / (key + ".wrl")
        PENDULUM[key].write_text(text)
    return PENDULUM


@pytest.mark.parametrize("engine", ["ode", "joint_space"])
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_local_backend_is_bit_identical_to_the_servers(client, pendulum, scene, engine):
    with hrpsim.Simulation(client, dt=0.001, engine=engine) as remote:
        expected = SCENES[scene](remote)
    with hrpsim.Simulation(backend="local", dt=0.001, engine=engine) as local:
        got = SCENES[scene](local)
    assert len(got) == len(expected)
    assert_same(got, expected, scene)
    # and the run moved: a test of two frozen worlds would prove nothing
    tail = scene in ("closed_loops", "arm_commands", "box_pile")   # a last non-snapshot record
    first, last = expected[0], expected[-2] if tail else expected[-1]
    assert any(not np.array_equal(first[k]["p"], last[k]["p"])
               for k in first if k != "time")


def test_local_backend_runs_without_corba(tmp_path):
    """A child interpreter with no naming service configured runs a local simulation; omniORB
    is never imported."""
    code = (
        "import sys, hrpsim\n"
        "sim = hrpsim.Simulation(backend='local', models={'arm': %r})\n"
        "sim.set_joint_mode('arm', 'high_gain')\n"
        "sim.set_joint_values('arm', [0.1] * 6)\n"
        "sim.step(10)\n"
        "assert sim.steps == 10 and abs(sim.time - 0.01) < 1e-12, sim.time\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('omniORB', 'CORBA',"
        " '_omnipy')))\n" % str(ARM6))
    env = {k: v for k, v in os.environ.items() if not k.startswith("HRPSIM_NAMING")}
    env["HRPSIM_STATE_DIR"] = str(tmp_path / "no-servers")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_views_see_the_core_without_copies():
    with hrpsim.Simulation(backend="local", dt=0.001) as sim:
        sim.add_model("floor", FLOOR)
        sim.add_model("robot", HUMANOID)
        sim.set_root_pose("robot", (0.0, 0.0, 1.0))
        sim.add_collision_pair("floor", "robot")
        core = sim.local
        ch = core.index("robot")
        P, q = core.p_view(ch), core.q_view(ch)
        z0 = P[0, 2]
        sim.step(50)
        assert P[0, 2] < z0 - 0.01          # the same array, updated in place (falling)
        assert np.array_equal(P, sim.link_poses("robot")[0])
        joint_links = core.joint_links(ch)
        assert np.array_equal(q[joint_links], sim.q("robot"))
        with pytest.raises(ValueError):
            P[0, 2] = 5.0                    # read-only: writing would bypass the core
        # a view outlives the Simulation's world: after reset it shows the old world
        sim.reset()
        sim.step(1)
        assert P[0, 2] < z0 - 0.01 and sim.local.p_view(ch)[0, 2] > z0 - 1e-3


def test_local_runaway_names_the_character():
    with hrpsim.Simulation(backend="local", dt=0.001, models={"arm": ARM6}) as sim:
        sim.set_root_velocity("arm", (0.0, 0.0, 0.0))
        sim.start()
        sim.set_joint_torques("arm", [1e12] * 6)
        with pytest.raises(hrpsim.simulation.Runaway) as info:
            sim.step(2000)
        assert info.value.character == "arm"
        # the core's own message (hs_stepN's hsError), not a Python paraphrase of it
        text = str(info.value)
        assert text.startswith("character arm ran away "), text
        assert "step %d: " % sim.steps in text and "(|position| <= 1e+09 m" in text, text


def test_local_errors_carry_the_core_message_and_closed_is_clear():
    """A refused call raises the hrpsim.errors class with the core's hsError message (naming
    the character, link and value); a LocalSim used after close() raises CallOrderError
    "the simulation is closed", not cffi's TypeError."""
    from hrpsim.errors import BadArgument, CallOrderError
    sim = hrpsim.Simulation(backend="local", dt=0.001, models={"arm": ARM6})
    sim.start()
    n = len(sim.joint_names("arm"))
    last = sim.joint_names("arm")[-1]
    q0 = sim.q("arm").copy()
    core = sim.local
    ch = core.index("arm")
    with pytest.raises(BadArgument) as info:   # jointId order, as the servant takes it
        core.set_all_link_data(ch, core.lib.hsDATA_JOINT_VALUE, [0.1] * (n - 1) + [1e13])
    # the servant's operation name, then the core's words
    assert str(info.value) == ("setCharacterAllLinkData: 'arm' link '%s': JOINT_VALUE value 0 is "
                               "1e+13 (every number must be finite and within +-1e+12)" % last)
    assert np.array_equal(sim.q("arm"), q0)        # nothing of the request was written
    # through the Simulation the same value is refused before the core sees it
    with pytest.raises(BadArgument, match=r"JOINT_VALUE value %d is 1e\+13" % (n - 1)):
        sim.set_joint_values("arm", [0.1] * (n - 1) + [1e13])
    assert np.array_equal(sim.q("arm"), q0)
    sim.close()
    for call in (core.step, lambda: core.q_view(0),
                 lambda: core.set_joint_torques_by_link(0, [0.0])):
        with pytest.raises(CallOrderError, match="the simulation is closed"):
            call()


def test_local_humanoid_sample_writes_its_plot(tmp_path):
    """samples/scripts/local_humanoid.py: the humanoid stands under the PD law in process (the
    script exits 1 if the waist drops below 0.5 m or the knee is off its reference) and the
    PNG is written."""
    out = tmp_path / "squat.png"
    proc = subprocess.run([sys.executable, str(REPO / "samples" / "scripts" / "local_humanoid.py"),
                           "--time", "1.5", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "waist" in proc.stdout


def test_local_humanoid_plot_shows_each_leg_joint():
    """The script's figure: in a squat the hip and ankle pitch angles are the same curve, so
    each joint has its own panel (angle and dashed reference), where neither hides the other;
    the axes write plain numbers."""
    import importlib.util
    import matplotlib
    matplotlib.use("Agg")
    spec = importlib.util.spec_from_file_location(
        "local_humanoid", REPO / "samples" / "scripts" / "local_humanoid.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    t = np.linspace(0, 5, 501)
    bend = 0.4 * (1 - np.cos(2 * np.pi * t / 5))
    q = np.stack([-0.5 * bend, bend, -0.5 * bend], axis=1)   # hip = ankle, as a squat bends
    fig = script.figure(t, 0.8 - 0.1 * bend, q, q + 0.01)
    fig.canvas.draw()
    waist, *legs = fig.axes
    assert len(legs) == 3
    for k, ax in enumerate(legs):
        angle, ref = ax.get_lines()
        assert np.array_equal(angle.get_ydata(), q[:, k])
        assert np.array_equal(ref.get_ydata(), q[:, k] + 0.01) and ref.get_linestyle() == "--"
        assert ax.yaxis.get_offset_text().get_text() == ""
    assert [ax.get_ylabel() for ax in legs] == ["hip pitch [rad]", "knee [rad]",
                                                "ankle pitch [rad]"]


def fall(sim, height):
    """A sweep's run (top level: pickled to the workers): the humanoid dropped from height."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    sim.set_root_pose("robot", (0.0, 0.0, height))
    sim.add_collision_pair("floor", "robot", friction=0.7)
    sim.run(0.3)
    return {"p": sim.link_poses("robot")[0], "q": sim.q("robot"), "time": sim.time}


def test_sweep_runs_local_workers_and_equals_the_serial_and_server_runs(client):
    from hrpsim.sweep import run_serial
    heights = [0.9, 0.95, 1.0]
    swept = hrpsim.sweep(fall, heights, workers=2)          # local back end, no servers
    serial = run_serial(fall, heights)                       # local, one by one here
    served = run_serial(fall, heights, client=client)        # hrpsim-dynamics
    for a, b, c in zip(swept, serial, served):
        assert_same(a, b, "sweep vs serial")
        assert_same(a, c, "local vs server")
    assert not np.array_equal(swept[0]["p"], swept[2]["p"])


def fall_high_gain(sim, height):
    """fall with every joint high-gain: one composite body, stepped by dWorldStep unlocked."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    sim.set_joint_mode("robot", "high_gain")
    sim.set_root_pose("robot", (0.0, 0.0, height))
    sim.add_collision_pair("floor", "robot", friction=0.7)
    sim.run(0.3)
    return {"p": sim.link_poses("robot")[0], "q": sim.q("robot"), "time": sim.time}


@pytest.mark.parametrize("func", [fall, fall_high_gain], ids=["torque", "high_gain"])
def test_sweep_in_threads_equals_the_serial_runs(func):
    # simulations in one process step at the same time (the core locks each simulation, not
    # the process; ODE's QuickStep, which the falling articulated humanoid uses, takes its
    # random draws under a lock with each world's own seed): the same bits as one by one
    from concurrent.futures import ThreadPoolExecutor
    from hrpsim.sweep import run_serial
    heights = [0.9, 0.95, 1.0, 1.05]
    with ThreadPoolExecutor(2) as pool:
        threaded = hrpsim.sweep(func, heights, executor=pool)
    serial = run_serial(func, heights)
    for a, b in zip(threaded, serial):
        assert_same(a, b, "threads vs serial")
    assert not np.array_equal(threaded[0]["p"], threaded[3]["p"])


PROJECT = """<?xml version="1.0" encoding="UTF-8"?>
<hrpsim-project version="1">
  <simulation timeStep="0.001" endTime="1.2" sensors="true" gravity="0 0 9.8"/>
  <model name="floor" url="{models}/floor/floor.wrl"/>
  <model name="robot" url="{models}/humanoid/humanoid.wrl">
    <rootPose translation="0 0 0.808040" rotation="0 0 1 0"/>
    <joints mode="torque" value="0"/>
    <joint name="RLEG_HIP_P" value="-0.2"/> <joint name="RLEG_KNEE" value="0.4"/>
    <joint name="RLEG_ANKLE_P" value="-0.2"/> <joint name="LLEG_HIP_P" value="-0.2"/>
    <joint name="LLEG_KNEE" value="0.4"/> <joint name="LLEG_ANKLE_P" value="-0.2"/>
    <joint name="RARM_ELBOW" value="-0.3"/> <joint name="LARM_ELBOW" value="-0.3"/>
  </model>
  <collision object1="floor" object2="robot" staticFriction="0.5" slipFriction="0.5"/>
  <controller name="PD" character="robot" period="0.001" {controller}/>
  <log period="0.01"/>
</hrpsim-project>
"""


def write_project(tmp_path, controller):
    path = tmp_path / "squat.xml"
    path.write_text(PROJECT.format(models=MODELS, controller=controller))
    return path


def test_run_local_ticks_a_python_controller_in_process(tmp_path):
    """`hrpsim run --local`: the sample PD controller (python=FILE:NAME) holds the humanoid
    standing in torque mode without any server; log.npz has the run at the log period."""
    ctl = 'python="%s:local_controller"' % (REPO / "samples" / "controllers" / "pd_controller.py")
    path = write_project(tmp_path, ctl)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HRPSIM_NAMING")}
    env["HRPSIM_STATE_DIR"] = str(tmp_path / "no-servers")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "hrpsim", "run", "--local", str(path),
                           "--out", str(out)], capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = np.load(out / "log.npz")
    assert log["time"].shape == (121,) and abs(log["time"][-1] - 1.2) < 1e-9
    z = log["robot.root_p"][:, 2]
    assert 0.79 < z.min() and z.max() < 0.82      # stands (a fall drops it by decimetres)
    knee = log["robot.q"][:, 3]                 # RLEG_KNEE follows the squat's reference
    ref = PDLaw(["RLEG_KNEE"]).reference(1.2)[0][0]
    assert ref > 0.42 and abs(knee[-1] - ref) < 0.02


def test_run_local_refuses_an_external_controller(tmp_path):
    path = write_project(tmp_path, 'command="python3 nothing.py"')
    proc = subprocess.run([sys.executable, "-m", "hrpsim", "run", "--local", str(path),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1
    assert "controller PD is an external command" in proc.stderr
    assert "needs the servers" in proc.stderr


VEHICLE = REPO / "tests" / "data" / "vrml_openhrp" / "vehicle.wrl"  # jointIds 0-4, 9: a gap


def torque_scene(model):
    """A local simulation of ``model`` in torque mode on the floor, sensors on, one step made:
    (sim, jointId-ordered torques, small, one per joint, 0 for a gap)."""
    sim = hrpsim.Simulation(backend="local", dt=0.001)
    sim.add_model("floor", FLOOR)
    sim.add_model("m", model)
    sim.set_joint_mode("m", "torque")
    sim.add_collision_pair("floor", "m")
    sim.step(1)
    tau = [0.01 * (j + 1) if name else 0.0 for j, name in enumerate(sim.joint_names("m"))]
    return sim, tau


@pytest.mark.parametrize("model", [HUMANOID, VEHICLE], ids=["humanoid", "vehicle"])
def test_run_local_dynamics_reads_what_the_simulation_reads(model):
    """`hrpsim run --local`'s DynamicsSimulator look-alike (run_local.LocalDynamics) reads a
    controller's SensorState through the core's views: q, dq and u in jointId order (the
    humanoid's jointIds are not in link order; the vehicle's have a gap, read through
    hs_getAllLinkData), equal after every step to Simulation.sensors (hs_getAllLinkData per
    array) and the range scans to hs_reading's; the torques it writes read back in jointId
    order."""
    from hrpsim import OpenHRP
    from hrpsim.local import sensor_types
    from hrpsim.run_local import LocalDynamics
    sim, tau = torque_scene(model)
    core = sim.local
    range_type = next(t for key, t, _, _ in sensor_types(core) if key == "range")
    ch = core.index("m")
    links = [core.lib.hs_jointLinks(core.ptr, ch)[j] for j in range(len(tau))]
    if model == HUMANOID:
        assert links != sorted(links)  # the case a plain slice of the per-link arrays misses
    else:
        assert -1 in links
    dyn = LocalDynamics(sim)
    count = core.ffi.new("int *")
    scans = 0
    for _ in range(5):
        dyn.setCharacterAllLinkData("m", OpenHRP.DynamicsSimulator.JOINT_TORQUE, tau)
        sim.step(1)
        got, want = dyn.getCharacterSensorState("m"), sim.sensors("m")
        assert got.q == want["q"].tolist() and got.dq == want["dq"].tolist()
        assert got.u == want["u"].tolist()
        assert got.u == tau or model != HUMANOID  # (the vehicle's jointId 9 is a fixed joint)
        assert got.force == want["force"].tolist() and got.accel == want["accel"].tolist()
        assert got.rateGyro == want["gyro"].tolist()
        ranges = core.lib.hs_sensorsOfType(core.ptr, ch, range_type, count)
        expected = []
        for s in [ranges[i] for i in range(count[0])]:
            beams = core.lib.hs_reading(core.ptr, ch, s, count)
            expected.append(list(core.ffi.unpack(beams, count[0])))
        assert got.range == expected
        scans += sum(len(r) for r in got.range)
    assert any(got.dq) and scans == (5 * 257 if model == HUMANOID else 0)


def test_run_local_dynamics_refuses_a_bad_command_as_the_simulation_does():
    """A command the look-alike's direct path cannot take (a NaN, a value past 1e12, a wrong
    count, a string) is refused with the Simulation's own words and changes nothing (the core's
    error record left clear for the next call): the simulation then steps as its twin
    commanded through Simulation.set_joint_torques alone; a tuple and a NumPy array are taken
    as a list is."""
    from hrpsim import OpenHRP
    from hrpsim.errors import BadArgument
    from hrpsim.run_local import LocalDynamics
    TORQUE = OpenHRP.DynamicsSimulator.JOINT_TORQUE
    sim, tau = torque_scene(HUMANOID)
    twin, _ = torque_scene(HUMANOID)
    dyn = LocalDynamics(sim)
    for bad in ([math.nan] + tau[1:], [1e13] + tau[1:], tau[:-1], ["x"] + tau[1:]):
        with pytest.raises(BadArgument) as got:
            dyn.setCharacterAllLinkData("m", TORQUE, bad)
        with pytest.raises(BadArgument) as want:
            sim.set_joint_torques("m", bad)
        assert str(got.value) == str(want.value)
    # the core's hsError was left clear: its next refusal carries its own message
    with pytest.raises(BadArgument, match=r"^setCharacterAllJointModes: no character 99 \("):
        core = sim.local
        core._check(core.lib.hs_setAllJointModes(core.ptr, 99, 1, core._e()),
                    "setCharacterAllJointModes")
    for command in (tau, tuple(-t for t in tau), np.array(tau) * 2):
        dyn.setCharacterAllLinkData("m", TORQUE, command)
        twin.set_joint_torques("m", command)
        sim.step(2)
        twin.step(2)
        assert np.array_equal(sim.u("m"), np.asarray(command, dtype=float))
        assert np.array_equal(sim.q("m"), twin.q("m"))


def camera_scene(sim):
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    sim.add_model("box", PENDULUM["bob"])          # a box in the cameras' view
    q, z = bent_knees(sim.joint_names("robot"))
    sim.set_joint_mode("robot", "high_gain")
    sim.set_root_pose("robot", (0.0, 0.0, z))
    sim.set_joint_values("robot", q)
    sim.set_root_pose("box", (1.0, 0.0, 1.2))
    sim.add_collision_pair("floor", "robot")
    sim.step(20)
    return sim.camera_images("robot")


def test_cameras_render_what_the_view_server_renders(client, pendulum):
    """The humanoid's two cameras (VISION_COLOR: colour, VISION_DEPTH: depth) rendered in
    process give the view server's pictures for the same state, pixel for pixel."""
    with hrpsim.Simulation(client, dt=0.001) as remote:
        expected = camera_scene(remote)
    with hrpsim.Simulation(backend="local", dt=0.001) as local:
        got = camera_scene(local)
    assert sorted(got) == sorted(expected) == ["VISION_COLOR", "VISION_DEPTH"]
    color, depth = expected["VISION_COLOR"].color, expected["VISION_DEPTH"].depth
    assert np.ptp(color) > 0 and np.ptp(depth) > 0   # the box is in view: not a blank picture
    for name in expected:            # colour, mono and depth as the camera's type says
        for what in ("color", "mono", "depth"):
            a, b = getattr(got[name], what), getattr(expected[name], what)
            assert (a is None) == (b is None), (name, what)
            assert a is None or (a.dtype == b.dtype and np.array_equal(a, b)), (name, what)


ROOM = MODELS / "env" / "room.wrl"


def room_scene(sim):
    """The humanoid in the sample room, turned to face the checker-textured poster on the back
    wall (x -1.5, y 2.5, z 1.5) from 2 m; the cameras' pictures after 20 steps, and the poses."""
    sim.add_model("room", ROOM)
    sim.add_model("robot", HUMANOID)
    q, z = bent_knees(sim.joint_names("robot"))
    sim.set_joint_mode("robot", "high_gain")
    sim.set_root_pose("robot", (-1.5, 0.5, z), (0, -1, 0, 1, 0, 0, 0, 0, 1))  # x -> world +y
    sim.set_joint_values("robot", q)
    sim.add_collision_pair("room", "robot")
    sim.step(20)
    return sim.camera_images("robot"), {c: sim.link_poses(c) for c in ("room", "robot")}


def untextured_color(poses, camera):
    """The colour picture of the humanoid's camera at these poses drawn by the core's view with
    the bodies loaded WITHOUT their texture images (hs_loadBody)."""
    from hrpsim.local import core_module
    ffi, lib = core_module().ffi, core_module().lib
    err = ffi.new("hsError *")
    view = ffi.gc(lib.hs_makeView(err), lib.hs_freeView)
    bodies = {}
    for name, path in (("room", ROOM), ("robot", HUMANOID)):
        body = ffi.gc(lib.hs_loadBody(str(path).encode(), err), lib.hs_freeBody)
        assert body != ffi.NULL, ffi.string(err.message)
        bodies[name] = (body, lib.hs_viewAddBody(view, body, err))
        assert bodies[name][1] >= 0, ffi.string(err.message)
        P, R = (np.ascontiguousarray(a, dtype=float) for a in poses[name])
        assert lib.hs_viewSetPose(view, bodies[name][1], ffi.from_buffer("double[]", P),
                                  ffi.from_buffer("double[]", R), err) == 0
    robot, index = bodies["robot"]
    names = [ffi.string(robot.sensors[k].name).decode() for k in range(robot.nsensor)]
    k = names.index(camera)
    spec = robot.sensors[k].specValues  # ..., width, height: VisionSensor's specValues 4, 5
    w, h = int(spec[4]), int(spec[5])
    rgb = ffi.new("unsigned char[]", 3 * w * h)
    assert lib.hs_viewRenderCamera(view, index, k, rgb, ffi.NULL, err) == 0
    return np.frombuffer(ffi.buffer(rgb), dtype=np.uint8).reshape(h, w, 3)


def test_textured_room_renders_as_the_view_server_renders(client):
    """A textured scene (the room's checker poster): the local back end's cameras (the one body
    it loads, with its texture images) give the view server's pictures (the ModelLoader's
    BodyInfo with images) pixel for pixel, colour and depth; and the texture is in the picture
    (drawn without the images, the colour picture differs)."""
    with hrpsim.Simulation(client, dt=0.001) as remote:
        expected, _ = room_scene(remote)
    with hrpsim.Simulation(backend="local", dt=0.001) as local:
        got, poses = room_scene(local)
    assert sorted(got) == sorted(expected) == ["VISION_COLOR", "VISION_DEPTH"]
    for name in expected:
        for what in ("color", "mono", "depth"):
            a, b = getattr(got[name], what), getattr(expected[name], what)
            assert (a is None) == (b is None), (name, what)
            assert a is None or (a.dtype == b.dtype and np.array_equal(a, b)), (name, what)
    color = got["VISION_COLOR"].color
    plain = untextured_color(poses, "VISION_COLOR")
    assert plain.shape == color.shape
    changed = np.any(plain != color, axis=2).sum()
    assert changed > 200, changed  # the poster's checker squares


def test_time_step_bounds_match_core():
    """hrpsim.limits is the one Python copy of the core's bounds: it must equal the core's."""
    from hrpsim import limits, project, simulation
    from hrpsim.local import core_module
    lib = core_module().lib
    assert (limits.MIN_TIME_STEP, limits.MAX_TIME_STEP) == (lib.hs_minTimeStep(),
                                                            lib.hs_maxTimeStep())
    assert project.MIN_TIME_STEP is limits.MIN_TIME_STEP   # imported, not written again
    assert simulation.MAX_TIME_STEP is limits.MAX_TIME_STEP


def test_a_view_keeps_the_simulation_and_the_bodies_it_borrows_alive():
    # a view outliving its Simulation once freed the bodies before the simulation that borrows
    # them (hs_freeSim then read a freed body: valgrind's "invalid read in hsd_destroyOde")
    import gc
    import weakref

    def positions():
        sim = hrpsim.Simulation(backend="local")
        sim.add_model("robot", str(MODELS / "humanoid" / "humanoid.wrl"))
        sim.start()
        sim.step(10)
        return sim.local.p_view(0), weakref.ref(sim.local._keep[0])

    p, body = positions()
    gc.collect()
    assert body() is not None  # the view holds the simulation, the simulation its body
    assert 0.5 < p[0][2] < 1.0
    del p
    gc.collect()
    assert body() is None  # and both go with the last view


SAME_LOG = """<?xml version="1.0" encoding="UTF-8"?>
<hrpsim-project version="1">
  <simulation timeStep="0.001" endTime="0.3" sensors="true" gravity="0 0 9.8"/>
  <model name="ground" url="{models}/floor/step.wrl"/>
  <model name="robot" url="{models}/humanoid/humanoid.wrl">
    <rootPose translation="0 0 0.808040"/>
    <joints mode="highgain" value="0"/>
    <joint name="RLEG_HIP_P" value="-0.2"/> <joint name="RLEG_KNEE" value="0.4"/>
    <joint name="RLEG_ANKLE_P" value="-0.2"/> <joint name="LLEG_HIP_P" value="-0.2"/>
    <joint name="LLEG_KNEE" value="0.4"/> <joint name="LLEG_ANKLE_P" value="-0.2"/>
  </model>
  <model name="crawler" url="{models}/crawler/crawler.wrl">
    <rootPose translation="3 0 0.1"/>
    <joint name="FLIPPER" mode="highgain"/>
    <joint name="TRACK_L" trackSpeed="0.2"/> <joint name="TRACK_R" trackSpeed="-0.1"/>
  </model>
  <model name="fb" url="{models}/closed_link/four_bar.wrl">
    <rootPose translation="0 3 1"/>
    <joints mode="torque"/>
  </model>
  <collision object1="ground" object2="robot" staticFriction="0.5" slipFriction="0.5"/>
  <collision object1="ground" object2="crawler" link2="TRACK_L" staticFriction="1.0"
             slipFriction="1.0" culling="0.005"/>
  <collision object1="ground" object2="crawler" link2="TRACK_R" staticFriction="1.0"
             slipFriction="1.0" culling="0.005"/>
  <log period="0.01" sensors="true"/>
</hrpsim-project>
"""


def test_run_local_log_is_the_scheduler_runs_log(servers, tmp_path):
    """`hrpsim run --local` and `hrpsim run` of one project with no controller (contacts,
    force sensors, a closed loop, crawler tracks, high-gain joint torques) write log.npz with
    the same keys and the same values bit for bit: one core, one LogCollector."""
    from conftest import cli_env
    path = tmp_path / "same.xml"
    path.write_text(SAME_LOG.format(models=MODELS))
    env = {k: v for k, v in os.environ.items() if not k.startswith("HRPSIM_NAMING")}
    env["HRPSIM_STATE_DIR"] = str(tmp_path / "no-servers")
    local = subprocess.run([sys.executable, "-m", "hrpsim", "run", "--local", str(path),
                            "--out", str(tmp_path / "local")], capture_output=True, text=True,
                           timeout=300, env=env)
    assert local.returncode == 0, local.stdout + local.stderr
    served = subprocess.run([sys.executable, "-m", "hrpsim.cli", "run", "--state-dir",
                             str(servers.state_dir), "--out", str(tmp_path / "served"),
                             "--no-plots", str(path)], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=600, env=cli_env())
    assert served.returncode == 0, served.stdout + served.stderr
    a, b = np.load(tmp_path / "local" / "log.npz"), np.load(tmp_path / "served" / "log.npz")
    assert sorted(a.files) == sorted(b.files)
    for key in ("contacts.force", "robot.force", "robot.root_rpy", "fb.loop.LOOP",
                "crawler.track.TRACK_L", "robot.joint_stop"):
        assert key in a.files, key
    assert a["time"].shape == (31,) and a["time"][0] == 0.0
    assert np.any(a["crawler.track.TRACK_L"] != 0) and np.any(a["contacts.count"] > 0)
    for key in a.files:
        assert a[key].dtype == b[key].dtype, key
        assert np.array_equal(a[key], b[key], equal_nan=a[key].dtype.kind == "f"), key


FIXED_BOT = """#VRML V2.0 utf8
%s
PROTO ForceSensor [ exposedField SFVec3f maxForce -1 -1 -1 exposedField SFVec3f maxTorque
  -1 -1 -1 exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0
  exposedField SFInt32 sensorId -1 ] { Transform { translation IS translation } }
DEF FIXEDBOT Humanoid { humanoidBody [
 DEF BODY Joint { jointType "free" children [
  Segment { mass 3 momentsOfInertia [0.02 0 0 0 0.02 0 0 0 0.02]
   children Shape { geometry Box { size 0.2 0.2 0.2 } } }
  DEF FOOT Joint { jointType "fixed" translation 0 0 -0.15 children [
   DEF FOOT_FS ForceSensor { sensorId 0 }
   Segment { mass 1 momentsOfInertia [0.005 0 0 0 0.005 0 0 0 0.005]
    children Shape { geometry Box { size 0.3 0.3 0.1 } } } ] } ] } ]
 joints [ USE BODY USE FOOT ] }
"""


@pytest.mark.parametrize("backend", ["server", "local"])
def test_force_sensor_of_a_robot_without_movable_joints(client, tmp_path, backend):
    """A 3 kg body on a 1 kg foot welded below it (no movable joint), resting on the floor with
    sleeping on (the default): after 0.5 s the foot's force sensor carries the body's weight,
    3 kg * 9.8 m/s^2 = 29.4 N up (it slept and read the foot's own -9.8 N before)."""
    path = tmp_path / "fixedbot.wrl"
    path.write_text(FIXED_BOT % OPENHRP_PROTOS)
    sim = (hrpsim.Simulation(client, dt=0.001, sensors=True) if backend == "server"
           else hrpsim.Simulation(backend="local", dt=0.001, sensors=True))
    with sim:
        sim.add_model("floor", FLOOR)
        sim.add_model("robot", path.as_uri())
        sim.set_root_pose("robot", (0.0, 0.0, 0.2))
        sim.add_collision_pair("floor", "robot")
        sim.start()
        sim.run(0.5)
        f = np.asarray(sim.sensors("robot")["force"][0])
        assert not sim.sleeping("robot")
    assert abs(f[2] - 29.4) < 1e-3, f
    assert np.all(np.abs(np.delete(f, 2)) < 1e-3), f


def test_a_body_outlives_every_simulation_that_borrows_it_in_any_order():
    """Python's cycle collector finalises a simulation and its bodies in no set order (the ASan
    stage caught hs_freeSim reading a body freed first): the last user frees the body, once."""
    from hrpsim.local import _BodyHold

    class Lib:
        freed = []

        def hs_freeBody(self, p):
            self.freed.append(p)

    for order in (("body", "sim1", "sim2"), ("sim1", "body", "sim2"), ("sim2", "sim1", "body")):
        lib = Lib()
        lib.freed = []
        hold = _BodyHold(lib, "ptr")
        hold.users += 2  # two simulations borrow it
        for k, who in enumerate(order):
            hold.drop()
            assert lib.freed == ([] if k < 2 else ["ptr"]), (order, who)
