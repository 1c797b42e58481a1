"""End-to-end tests of closed loops (ExtraJoint) and crawler tracks through CORBA.

A real hrpsim-dynamics and ModelLoader (the ``servers`` fixture); numbers against independent
answers:

- the sample four-bar (its model-file ExtraJoint "LOOP", "xy" about COUPLER's z) released in
  torque mode: the two loop points, computed here from the ABS_TRANSFORMs the server reports,
  stay within 1e-4 m across the loop axis for 2 s (1e-10 m on the joint-space engine, which
  closes the loop's positions after each step); getExtraJointConstraintForce reports what
  holds it;
- registerExtraJoint between two characters: a box hung by an "xyz" joint from a fixed post
  hangs still, and the joint's force equals the box's weight within 0.1 % (statics);
- an over-constrained loop (every joint high gain) is refused by initSimulation with the
  loop's name, and the instance goes on (torque mode again: it starts);
- bad registrations raise BAD_PARAM / BAD_INV_ORDER and are logged; unknown names too;
- the sample crawler, driven by JOINT_TORQUE on both tracks through setCharacterAllLinkData,
  drives along +x at the commanded 0.3 m/s within 1e-5.
The DynamicsSimulator tests run on both engines (ODE and the joint-space engine, chosen through
hrpsim's setSolver).
"""

from pathlib import Path

import numpy as np
import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP
from hrpsim.models import OPENHRP_PROTOS

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
DS = OpenHRP.DynamicsSimulator

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


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.fail("hrpsim-dynamics was not started (is it built in %s?)"
                    % hrpsim.paths.default_bin_dir(), pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def bodies(client, tmp_path_factory):
    d = tmp_path_factory.mktemp("loop-models")
    out = {"fourbar": client.load_body(MODELS / "closed_link" / "four_bar.wrl"),
           "crawler": client.load_body(MODELS / "crawler" / "crawler.wrl"),
           "floor": client.load_body(MODELS / "floor" / "floor.wrl")}
    out["paths"] = {}
    for key, text in (("post", POST_WRL), ("bob", BOB_WRL)):
        path = d / (key + ".wrl")
        path.write_text(text)
        out[key] = client.load_body(path)
        out["paths"][key] = path
    return out


@pytest.fixture(params=["ode", "joint_space"])
def sim(client, request):
    """A DynamicsSimulator on each engine, chosen through hrpsim's setSolver (the server's
    default is the joint-space engine; ODE by name)."""
    from hrpsim._idl import hrpsim as H
    s = client.dynamics_simulator()._narrow(H.DynamicsSimulator)
    s.setSolver(request.param, [])
    yield s
    try:
        s.destroy()
    except CORBA.OBJECT_NOT_EXIST:
        pass


def pose(sim, ch, link):
    d = sim.getCharacterLinkData(ch, link, DS.ABS_TRANSFORM)
    return np.array(d[:3]), np.array(d[3:]).reshape(3, 3)


def four_bar(sim, bodies):
    sim.registerCharacter("fb", bodies["fourbar"])
    sim.init(0.001, DS.RUNGE_KUTTA, DS.DISABLE_SENSOR)
    sim.setGVector([0, 0, 9.8])
    sim.setCharacterAllJointModes("fb", DS.TORQUE_MODE)


def engine_of(request):
    """The engine the test's ``sim`` fixture runs on."""
    return request.node.callspec.params["sim"]


def test_model_loop_stays_closed_and_reports_its_force(sim, bodies, request):
    four_bar(sim, bodies)
    sim.initSimulation()
    worst = 0.0
    for _ in range(2000):
        sim.stepSimulation()
        pc, Rc = pose(sim, "fb", "COUPLER")
        pr, Rr = pose(sim, "fb", "ROCKER")
        d = (pr + Rr @ [0.4, 0, 0]) - (pc + Rc @ [0.5, 0, 0])
        axis = Rc @ [0, 0, 1]
        worst = max(worst, np.linalg.norm(d - np.dot(d, axis) * axis))
    # the joint-space engine closes its loops' positions after each step (1e-12 m); ODE's joints
    # leave the integration's drift (about 1e-5 m here)
    assert worst < (1e-10 if engine_of(request) == "joint_space" else 1e-4)
    f = sim.getExtraJointConstraintForce("fb", "LOOP")
    assert len(f) == 6 and all(np.isfinite(f))
    assert np.linalg.norm(f[:3]) > 0.1  # it carries the bars' weight
    assert np.linalg.norm(f[3:]) < 1e-6 * np.linalg.norm(f[:3])  # a point constraint
    # the crank really turned under gravity
    assert abs(sim.getCharacterLinkData("fb", "CRANK", DS.JOINT_VALUE)[0]) > 0.3


def test_registered_loop_between_two_characters_holds_the_weight(sim, bodies):
    sim.registerCharacter("post", bodies["post"])
    sim.registerCharacter("bob", bodies["bob"])
    sim.init(0.001, DS.RUNGE_KUTTA, DS.DISABLE_SENSOR)
    sim.setGVector([0, 0, 9.8])
    sim.setCharacterLinkData("bob", "BOB_LINK", DS.ABS_TRANSFORM,
                             [0, 0, 1.7, 1, 0, 0, 0, 1, 0, 0, 0, 1])
    sim.registerExtraJoint("post", "BASE", "bob", "BOB_LINK", [0, 0, 0], [0, 0, 0.3],
                           OpenHRP.EJ_XYZ, [1, 0, 0], "hook")
    sim.initSimulation()
    for _ in range(500):
        sim.stepSimulation()
    p, _ = pose(sim, "bob", "BOB_LINK")
    assert p == pytest.approx([0, 0, 1.7], abs=1e-6)
    for ch in ("bob", "post"):  # either character finds it
        f = sim.getExtraJointConstraintForce(ch, "hook")
        assert f[2] == pytest.approx(1.5 * 9.8, rel=1e-3)
        assert abs(f[0]) < 1e-6 and abs(f[1]) < 1e-6


def test_over_constrained_loop_is_refused(sim, bodies):
    four_bar(sim, bodies)
    sim.setCharacterAllJointModes("fb", DS.HIGH_GAIN_MODE)
    with pytest.raises(CORBA.BAD_PARAM):
        sim.initSimulation()
    sim.setCharacterAllJointModes("fb", DS.TORQUE_MODE)
    sim.initSimulation()
    sim.stepSimulation()
    # high gain everywhere after the start: the step is refused, nothing moves
    q = sim.getCharacterAllLinkData("fb", DS.JOINT_VALUE)
    sim.setCharacterAllJointModes("fb", DS.HIGH_GAIN_MODE)
    with pytest.raises(CORBA.BAD_PARAM):
        sim.stepSimulation()
    assert sim.getCharacterAllLinkData("fb", DS.JOINT_VALUE) == q


def test_bad_extra_joints_raise(sim, bodies):
    four_bar(sim, bodies)
    with pytest.raises(CORBA.BAD_PARAM):  # no such link
        sim.registerExtraJoint("fb", "NOPE", "fb", "ROCKER", [0, 0, 0], [0, 0, 0],
                               OpenHRP.EJ_XYZ, [1, 0, 0], "x")
    with pytest.raises(CORBA.BAD_PARAM):  # the model's loop has that name
        sim.registerExtraJoint("fb", "CRANK", "fb", "ROCKER", [0, 0, 0], [0, 0, 0],
                               OpenHRP.EJ_XYZ, [1, 0, 0], "LOOP")
    with pytest.raises(CORBA.BAD_PARAM):  # no axis for an xy joint
        sim.registerExtraJoint("fb", "CRANK", "fb", "ROCKER", [0, 0, 0], [0, 0, 0],
                               OpenHRP.EJ_XY, [0, 0, 0], "x")
    with pytest.raises(CORBA.BAD_PARAM):  # not finite
        sim.registerExtraJoint("fb", "CRANK", "fb", "ROCKER", [float("nan"), 0, 0], [0, 0, 0],
                               OpenHRP.EJ_XYZ, [1, 0, 0], "x")
    with pytest.raises(CORBA.BAD_PARAM):
        sim.getExtraJointConstraintForce("fb", "NOPE")
    sim.initSimulation()
    with pytest.raises(CORBA.BAD_INV_ORDER):
        sim.registerExtraJoint("fb", "CRANK", "fb", "ROCKER", [0, 0, 0], [0, 0, 0],
                               OpenHRP.EJ_XYZ, [1, 0, 0], "late")
    sim.stepSimulation()  # the instance goes on
    assert sim.getExtraJointConstraintForce("fb", "LOOP") is not None


def test_crawler_drives_at_its_track_speed(sim, bodies):
    sim.registerCharacter("floor", bodies["floor"])
    sim.registerCharacter("crawler", bodies["crawler"])
    sim.init(0.001, DS.RUNGE_KUTTA, DS.DISABLE_SENSOR)
    sim.setGVector([0, 0, 9.8])
    for track in ("TRACK_L", "TRACK_R"):
        sim.registerCollisionCheckPair("floor", "", "crawler", track, 1.0, 1.0, [], [], 0.005,
                                       0.0)
    sim.setCharacterLinkData("crawler", "FLIPPER", DS.POSITION_GIVEN, [1.0])
    sim.initSimulation()
    # jointId order: TRACK_L, TRACK_R, FLIPPER; the flipper's entry is its held value
    sim.setCharacterAllLinkData("crawler", DS.JOINT_TORQUE, [0.3, 0.3, 0.0])
    for _ in range(2000):
        sim.stepSimulation()
    x0 = pose(sim, "crawler", "CHASSIS")[0][0]
    for _ in range(1000):
        sim.stepSimulation()
    speed = pose(sim, "crawler", "CHASSIS")[0][0] - x0
    assert speed == pytest.approx(0.3, rel=1e-5)  # no slip in a straight line (both: 1e-7)
    assert sim.getCharacterLinkData("crawler", "TRACK_L", DS.JOINT_TORQUE) == [0.3]


# ---------------------------------------------------------------------------------------------
# hrpsim.Simulation and the Scheduler
# ---------------------------------------------------------------------------------------------


def test_simulation_registers_loops_client_driven(client, bodies):
    sim = hrpsim.Simulation(client, dt=0.001)
    try:
        sim.add_model("post", str(_model_path(bodies, "post")))
        sim.add_model("bob", str(_model_path(bodies, "bob")))
        sim.set_root_pose("bob", (0.0, 0.0, 1.7))
        sim.add_extra_joint("hook", "post", "BASE", "bob", "BOB_LINK", pos2=(0, 0, 0.3))
        with pytest.raises(ValueError):
            sim.add_extra_joint("bad", "post", "BASE", "bob", "BOB_LINK", type="ball")
        sim.set_joint_options(joint_limits=True)  # every back end (setWorldOptions here)
        sim.step(100)
        f = sim.extra_joint_force("bob", "hook")
        assert f.shape == (6,)
        assert f[2] == pytest.approx(1.5 * 9.8, rel=1e-3)
    finally:
        sim.close()


def _model_path(bodies, key):
    return bodies["paths"][key]


def scheduler_or_fail(servers):
    if not servers.has("Scheduler"):
        pytest.fail("the Scheduler server was not started by hrpsim up", pytrace=False)


def crawler_scene(sim):
    sim.add_model("floor", str(MODELS / "floor" / "floor.wrl"))
    sim.add_model("crawler", str(MODELS / "crawler" / "crawler.wrl"))
    for track in ("TRACK_L", "TRACK_R"):
        sim.add_collision_pair("floor", "crawler", link2=track, friction=1.0, culling=0.005)


def test_scheduler_logs_loops_tracks_and_stops_joints(client, servers, bodies):
    scheduler_or_fail(servers)
    from hrpsim.results import LogCollector
    sim = hrpsim.Simulation(client, dt=0.001, scheduler=True)
    try:
        crawler_scene(sim)
        sim.add_model("fb", str(MODELS / "closed_link" / "four_bar.wrl"))
        sim.set_joint_options(joint_limits=True)
        sim.set_log(0.01)
        sim.start()
        sim.set_track_speed("crawler", "TRACK_L", 0.2)
        sim.set_track_speed("crawler", "TRACK_R", 0.2)
        sim.run(1.0)
        log = sim.scheduler().getLog(0)
        assert [lf.name for lf in log[-1].loops] == ["LOOP"]
        assert {(t.link, t.speed) for t in log[-1].tracks} == {("TRACK_L", 0.2),
                                                               ("TRACK_R", 0.2)}
        col = LogCollector([("floor", []), ("crawler", ["TRACK_L", "TRACK_R", "FLIPPER"]),
                            ("fb", ["CRANK", "COUPLER", "ROCKER"])])
        col.add(log)
        arrays = col.arrays()
        assert arrays["fb.loop.LOOP"].shape == (len(log), 6)
        assert arrays["crawler.track.TRACK_L"][-1] == 0.2
        # the flipper (torque mode, no contact pair) fell into its upper stop, 0.6 rad
        q = sim.dynamics.getCharacterLinkData("crawler", "FLIPPER", OpenHRP.DynamicsSimulator
                                              .JOINT_VALUE)[0]
        assert q == pytest.approx(0.6, abs=2e-3)
        # and the log reports the stop's reaction: minus the flipper's weight moment,
        # -m g x_c cos(q) (0.8 kg, centre 0.1 m out; the vehicle cruises at constant speed)
        stop = arrays["crawler.joint_stop"][-1, 2]
        assert stop == pytest.approx(-0.8 * 9.8 * 0.1 * np.cos(q), rel=0.02)
    finally:
        sim.close()


def test_flipper_falls_through_without_joint_limits(client, bodies):
    sim = hrpsim.Simulation(client, dt=0.001)  # OpenHRP's interface: no stops
    try:
        crawler_scene(sim)
        qmax = 0.0
        for _ in range(100):
            sim.step(10)
            qmax = max(qmax, sim.dynamics.getCharacterLinkData("crawler", "FLIPPER",
                                                               DS.JOINT_VALUE)[0])
        assert qmax > 1.0
    finally:
        sim.close()


# ---------------------------------------------------------------------------------------------
# the sample projects
# ---------------------------------------------------------------------------------------------


def test_sample_projects_read_their_loops_and_tracks():
    from hrpsim.project import load_project
    leg = load_project(REPO / "samples" / "projects" / "parallel_leg.xml")
    assert leg.joint_limits is True  # hrpsim projects: on by default
    assert leg.model("leg").joint_modes == {"THIGH": "HIGH_GAIN_MODE"}
    crawler = load_project(REPO / "samples" / "projects" / "crawler.xml")
    assert [c.link2 for c in crawler.collisions] == ["TRACK_L", "TRACK_R"]
    # an hrpsim project's own <extraJoint> and <joint trackSpeed>
    p = REPO / "samples" / "projects" / "four_bar.xml"
    assert load_project(p).extra_joints == []  # the model's own loop needs nothing


def test_hrpsim_project_extra_joint_and_track_speed(tmp_path):
    from hrpsim.project import ProjectError, load_project
    proj = tmp_path / "p.xml"
    proj.write_text("""<hrpsim-project version="1">
  <simulation jointLimits="false" rotorInertia="true"/>
  <model name="floor" url="%s"/>
  <model name="crawler" url="%s"><joint name="TRACK_L" trackSpeed="0.25"/></model>
  <extraJoint name="tie" object1="floor" link1="root" object2="crawler" link2="CHASSIS"
              link1LocalPos="0 0 1" jointType="z" jointAxis="0 0 2"/>
</hrpsim-project>""" % (MODELS / "floor" / "floor.wrl", MODELS / "crawler" / "crawler.wrl"))
    p = load_project(proj)
    assert (p.joint_limits, p.rotor_inertia) == (False, True)
    assert p.model("crawler").track_speeds == {"TRACK_L": 0.25}
    e = p.extra_joints[0]
    assert (e.name, e.object1, e.link1, e.object2, e.link2, e.link1_pos, e.link2_pos,
            e.joint_type, e.axis) == ("tie", "floor", "root", "crawler", "CHASSIS",
                                      [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], "z", [0.0, 0.0, 2.0])
    proj.write_text(proj.read_text().replace('jointType="z"', 'jointType="ball"'))
    with pytest.raises(ProjectError, match="jointType"):
        load_project(proj)


def test_four_bar_project_runs_and_logs_its_loop(servers, tmp_path):
    import subprocess
    import sys
    from conftest import cli_env
    text = (REPO / "samples" / "projects" / "four_bar.xml").read_text()
    text = text.replace('endTime="10"', 'endTime="1"').replace("../models/", str(MODELS) + "/")
    proj = tmp_path / "fb.xml"
    proj.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "hrpsim.cli", "run", "--state-dir",
                           str(servers.state_dir), "--out", str(tmp_path / "out"),
                           "--no-plots", str(proj)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600, env=cli_env())
    assert proc.returncode == 0, proc.stderr
    d = np.load(tmp_path / "out" / "log.npz")
    f = d["fb.loop.LOOP"]
    assert f.shape == (101, 6) and np.all(np.isfinite(f))
    assert np.all(np.linalg.norm(f[1:, :3], axis=1) > 0.1)  # it carries the bars every record


def test_over_constrained_project_fails_naming_the_loop(servers, tmp_path):
    import subprocess
    import sys
    from conftest import cli_env
    text = (REPO / "samples" / "projects" / "four_bar.xml").read_text()
    text = text.replace('<joints mode="torque"/>', '<joints mode="highgain"/>').replace(
        "../models/", str(MODELS) + "/")
    proj = tmp_path / "fb_hg.xml"
    proj.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "hrpsim.cli", "run", "--state-dir",
                           str(servers.state_dir), "--out", str(tmp_path / "out"),
                           "--no-plots", str(proj)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600, env=cli_env())
    assert proc.returncode == 1
    assert "extra joint 'LOOP'" in proc.stderr and "over-constrains" in proc.stderr
