"""MJCF models (model/mjcf) through the ModelLoader and the in-process core, and against
MuJoCo's own compiler.

Fixtures: samples/models/mjcf/quadruped/quadruped.xml (the sample robot: capsules, a convex
mesh, defaults, two joints in each thigh, a free root, sensors, motors) and tests/data/mjcf
(chain.xml: every primitive, fromto, zyx euler, ref on hinges and slides, a three-joint body,
fullinertia; frames.xml: radians, <frame>s with childclass, zaxis, nested classes, an include,
a top-level body on hinges; bounds.xml: boundmass, boundinertia, balanceinertia).

MuJoCo comparison (PyPI ``mujoco``, an optional test dependency: the test is skipped, saying
so, when it is absent; bench/mjcf_reference.py computes both sides): for each fixture the
body hrpsim serves (BodyInfo, its links placed by forward kinematics from translation,
rotation, jointAxis and jointValue) has MuJoCo's total mass, centre of mass and composite
inertia about it (world frame, at qpos0), MuJoCo's degrees of freedom, and for every hinge and
slide MuJoCo's world axis and anchor, range and armature, all to 1e-6 (relative for masses
and inertias; metres and radians otherwise; these fields cross the wire as doubles).
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import OpenHRP
from conftest import describe, run_cli
from helpers import snapshot

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
import mjcf_reference  # noqa: E402 (bench/, beside the collections benchmark)
QUADRUPED = REPO / "samples" / "models" / "mjcf" / "quadruped" / "quadruped.xml"
DATA = REPO / "tests" / "data" / "mjcf"
FIXTURES = [QUADRUPED, DATA / "chain.xml", DATA / "frames.xml", DATA / "bounds.xml"]
ModelLoaderException = OpenHRP.ModelLoader.ModelLoaderException


@pytest.fixture(scope="module")
def loader(servers):
    return servers.client.model_loader()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_matches_mujoco(servers, path):
    """Mass, centre of mass, composite inertia, dofs, each joint's world axis, anchor, range
    and armature equal MuJoCo's compile of the same file to 1e-6."""
    pytest.importorskip("mujoco", reason="the MuJoCo comparison needs PyPI mujoco (an optional "
                        "test dependency: .venv/bin/pip install mujoco)")
    theirs = mjcf_reference.mujoco_summary(path)
    ours = mjcf_reference.hrpsim_summary(snapshot(servers.client.load_body(path)))
    assert len(ours[1]) >= 2  # joints compared
    assert mjcf_reference.differences(ours, theirs) == []


def test_sample_quadruped_through_the_loader(loader):
    body = snapshot(loader.loadBodyInfo(hrpsim.file_url(QUADRUPED)))
    names = [lk.name for lk in body.links]
    assert names[:4] == ["root", "fl_abd", "fl_hip", "fl_knee"]
    assert body.links[0].jointType == "free"
    assert body.links[0].translation == pytest.approx([0, 0, 0.42])
    assert body.links[2].parentIndex == 1  # the thigh's two joints: a chain
    assert [lk.segments[0].name for lk in body.links[1:4] if lk.segments] == ["fl_thigh",
                                                                              "fl_shin"]
    assert sorted(lk.jointId for lk in body.links if lk.jointId >= 0) == list(range(12))
    assert all(list(lk.climit) == [30.0] for lk in body.links if lk.jointId >= 0)
    kinds = sorted(s.type for lk in body.links for s in lk.sensors)
    assert kinds == ["Acceleration", "Force", "Range", "RateGyro", "Vision"]
    warnings = [s for s in body.info if s.startswith("warning:")]
    assert any("damping" in w and "quadruped.xml:" in w for w in warnings)
    assert any("<jointpos> sensor" in w for w in warnings)


def test_fragments_select_bodies_and_the_world(loader, tmp_path):
    path = tmp_path / "scene.xml"
    path.write_text("<mujoco><worldbody><geom type='plane' size='1 1 1'/>\n"
                    "<body name='a' pos='1 0 1'><freejoint/><geom size='0.1'/></body>\n"
                    "<body name='b' pos='2 0 1'><freejoint/><geom size='0.2'/></body>"
                    "</worldbody></mujoco>")
    with pytest.raises(ModelLoaderException) as info:
        loader.loadBodyInfo(hrpsim.file_url(path))
    assert "scene.xml:1" in info.value.description
    assert "'a', 'b'" in info.value.description
    b = snapshot(loader.loadBodyInfo(hrpsim.file_url(path) + "#b"))
    assert b.name == "b" and b.links[0].translation == pytest.approx([2, 0, 1])
    # getBodyInfo (cached by file and time) too
    again = snapshot(loader.getBodyInfo(hrpsim.file_url(path) + "#b"))
    assert again.links[0].mass == pytest.approx(b.links[0].mass)
    world = snapshot(loader.loadBodyInfo(hrpsim.file_url(path) + "#world"))
    assert [lk.jointType for lk in world.links] == ["fixed"]
    assert len(world.links[0].shapeIndices) == 1


def test_errors_name_file_line_and_column(loader, tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text("<mujoco><worldbody>\n<body name='a'>\n  <geom size='0.1 nan'/>"
                    "</body></worldbody></mujoco>")
    with pytest.raises(ModelLoaderException) as info:
        loader.loadBodyInfo(hrpsim.file_url(path))
    assert "bad.xml:3:9" in info.value.description
    assert 'size="0.1 nan"' in info.value.description
    # the server is still up
    assert snapshot(loader.loadBodyInfo(hrpsim.file_url(QUADRUPED))).name == "torso"


def test_local_simulation_runs_the_quadruped():
    """hrpsim.Simulation (in process) adds the sample and the world of the same file and
    steps it: the robot settles on the floor with high-gain joints holding their values."""
    sim = hrpsim.Simulation(backend="local", dt=0.001)
    sim.add_model("floor", str(QUADRUPED) + "#world")
    sim.add_model("dog", QUADRUPED)
    sim.set_joint_mode("dog", "high_gain")
    sim.add_collision_pair("floor", "dog", friction=0.8)
    sim.step(500)
    p = sim.root_pose("dog")[0]
    sim.close()
    # the feet (r 0.035) touch at z = 0: the torso's centre sits 0.18 + 0.17 + 0.035 above the
    # floor (the hip anchor's 1 cm offset moves no body), less the contact's small sink
    assert p[2] == pytest.approx(0.385, abs=0.003)
    assert abs(p[0]) < 0.01 and abs(p[1]) < 0.01


def crouch_profile(log):
    """The torso's height standing (0.4 s), crouched (1.8 s) and standing again (3.4 s), and
    its largest tilt."""
    t, z = log["time"], log["dog.root_p"][:, 2]
    at = [z[int(np.argmin(abs(t - s)))] for s in (0.4, 1.8, 3.4)]
    return at, float(np.abs(log["dog.root_rpy"][:, :2]).max())


@pytest.mark.parametrize("door", ["local", "servers"])
def test_project_runs_the_quadruped_under_its_controller(servers, tmp_path, door):
    """samples/projects/quadruped_stand.xml through `hrpsim run` (in process, and through the
    Scheduler with the controller in its own process): the PD controller holds the MJCF robot
    up, crouches it by 2 x 0.18 (cos 0.3 - cos 0.7) = 6.9 cm and stands it up again, level."""
    out = tmp_path / door
    # in process without pictures; through the servers with plots and stills (the renderer
    # loads the MJCF models too)
    extra = ["--local", "--no-plots"] if door == "local" else ["--state-dir",
                                                               servers.state_dir]
    proc = run_cli("run", "--quiet", "--out", out, *extra,
                   "samples/projects/quadruped_stand.xml")
    assert proc.returncode == 0, describe(proc)
    if door == "servers":
        stills = sorted((out / "stills").glob("still_*.png"))
        assert len(stills) >= 2 and all(p.read_bytes()[:4] == b"\x89PNG" for p in stills)
    (stand, crouch, again), tilt = crouch_profile(np.load(out / "log.npz"))
    assert stand - crouch == pytest.approx(0.069, abs=0.008)
    assert again == pytest.approx(stand, abs=0.005)
    assert tilt < 0.05


def test_add_scene_adds_the_world_and_every_body(tmp_path):
    """Simulation.add_scene: the floor as the environment 'world', each top-level body a
    character starting where the file puts it; two balls dropped on the floor come to rest on
    it (centres at their radii, to the contact's small sink)."""
    path = tmp_path / "balls.xml"
    path.write_text("<mujoco><worldbody><geom type='plane' size='0 0 1'/>"
                    "<frame pos='0 1 0'><body name='small' pos='0 0 0.3'><freejoint/>"
                    "<geom size='0.05'/></body></frame>"
                    "<body name='big' pos='1 0 0.5'><freejoint/><geom size='0.1'/></body>"
                    "</worldbody></mujoco>")
    sim = hrpsim.Simulation(backend="local", dt=0.001)
    names = sim.add_scene(path, prefix="s_")
    assert names == ["s_world", "s_small", "s_big"]
    for ball in ("s_small", "s_big"):
        sim.add_collision_pair("s_world", ball, friction=0.5)
    assert sim.root_pose("s_small")[0] == pytest.approx([0, 1, 0.3])
    sim.step(1500)
    small, big = sim.root_pose("s_small")[0], sim.root_pose("s_big")[0]
    sim.close()
    assert small == pytest.approx([0, 1, 0.05], abs=2e-3)
    assert big == pytest.approx([1, 0, 0.1], abs=2e-3)
    with pytest.raises(ValueError):
        hrpsim.Simulation(backend="local", models={"s_world": QUADRUPED}).add_scene(
            path, prefix="s_")


def test_project_scene_element_adds_every_part(tmp_path):
    """<scene url prefix> in a project: one model per part of the MJCF scene (the world's
    geoms, then each top-level body); the run drops both balls onto the floor. A scene file
    with an error is refused at the <scene> line with the file's own location."""
    from hrpsim.project import ProjectError, load_project
    (tmp_path / "balls.xml").write_text(
        "<mujoco><worldbody><geom type='plane' size='0 0 1'/>"
        "<body name='a' pos='0 0 0.2'><freejoint/><geom size='0.05'/></body>"
        "<body name='b' pos='1 0 0.4'><freejoint/><geom size='0.1'/></body>"
        "</worldbody></mujoco>")
    project = tmp_path / "p.xml"
    project.write_text(
        "<hrpsim-project version='1'><simulation timeStep='0.001' endTime='1'/>\n"
        "<scene url='balls.xml' prefix='x_'/>\n"
        "<collision object1='x_world' object2='x_a'/><collision object1='x_world' "
        "object2='x_b'/><log period='0.01'/><plots enabled='false'/></hrpsim-project>")
    p = load_project(project)
    assert [(m.name, Path(m.url).name) for m in p.models] == [
        ("x_world", "balls.xml#world"), ("x_a", "balls.xml#a"), ("x_b", "balls.xml#b")]
    out = tmp_path / "out"
    proc = run_cli("run", "--local", "--quiet", "--no-plots", "--out", out, project)
    assert proc.returncode == 0, describe(proc)
    log = np.load(out / "log.npz")
    assert log["x_a.root_p"][-1] == pytest.approx([0, 0, 0.05], abs=2e-3)
    assert log["x_b.root_p"][-1] == pytest.approx([1, 0, 0.1], abs=2e-3)
    (tmp_path / "balls.xml").write_text("<mujoco><worldbody>\n<frame pos='0 x 0'><body/>"
                                        "</frame></worldbody></mujoco>")
    with pytest.raises(ProjectError) as info:
        load_project(project)
    assert "p.xml:2" in str(info.value) and "balls.xml:2" in str(info.value)


def test_sweep_over_an_mjcf_scene(tmp_path):
    """`hrpsim sweep` with MJCF models (the sweep door): the sample quadruped dropped in high
    gain on its file's floor from two heights settles at the same standing height."""
    script = tmp_path / "dog_sweep.py"
    script.write_text(
        "PARAMS = [{'drop': 0.0}, {'drop': 0.05}]\n"
        "SIM_OPTIONS = {'dt': 0.001}\n"
        "PATH = %r\n"
        "def run(sim, param):\n"
        "    sim.add_model('floor', PATH + '#world')\n"
        "    sim.add_model('dog', PATH)\n"
        "    sim.set_root_pose('dog', (0.0, 0.0, 0.42 + param['drop']))\n"
        "    sim.set_joint_mode('dog', 'high_gain')\n"
        "    sim.add_collision_pair('floor', 'dog', friction=0.8)\n"
        "    sim.step(600)\n"
        "    return {'z': float(sim.root_pose('dog')[0][2])}\n" % str(QUADRUPED))
    out = tmp_path / "sweep"
    proc = run_cli("sweep", script, "--workers", "1", "--no-progress", "--out", out)
    assert proc.returncode == 0, describe(proc)
    runs = json.loads((out / "index.json").read_text())["runs"]
    assert [r["status"] for r in runs] == ["ok", "ok"]
    assert all(r["z"] == pytest.approx(0.385, abs=0.003) for r in runs)


def test_rangefinder_and_imu_read_in_mujoco_frames(tmp_path):
    """A rangefinder measures along its site's +z (MuJoCo's rule): a site turned so that z
    points along world +x, 0.3 m up, reads the wall whose face is at x = 2 as 2 - 0.5; one
    turned down reads the floor 0.3 m below. The accelerometer of a body at rest reads +g
    along its site's z (MuJoCo's and OpenHRP's specific force)."""
    path = tmp_path / "range.xml"
    path.write_text(
        "<mujoco><worldbody><geom type='plane' size='0 0 1'/>"
        "<geom type='box' size='0.1 2 2' pos='2.1 0 0'/>"
        "<body name='post' pos='0.5 0 0.3'><geom type='box' size='0.05 0.05 0.05'/>"
        "<site name='ahead' zaxis='1 0 0'/><site name='down' pos='0 0 -0.06' zaxis='0 0 -1'/>"
        "<site name='imu' euler='0 0 90'/></body></worldbody>"
        "<sensor><rangefinder name='ahead' site='ahead'/><rangefinder name='down' site='down'/>"
        "<accelerometer name='acc' site='imu'/></sensor></mujoco>")
    sim = hrpsim.Simulation(backend="local", dt=0.001)
    sim.add_model("world", str(path) + "#world")
    sim.add_model("post", str(path) + "#post")
    sim.step(2)
    ranges, accel = sim.ranges("post"), sim.accel("post")
    sim.close()
    assert ranges[0][0] == pytest.approx(1.5, abs=1e-6)
    assert ranges[1][0] == pytest.approx(0.24, abs=1e-6)
    assert accel[0] == pytest.approx([0, 0, 9.8], abs=1e-9)


FILTER_XML = """<mujoco>
  <worldbody>
    <geom type="box" size="1 1 0.1" pos="0 0 -0.1"/>
    <body name="ghost" pos="0 0 0.5"><freejoint/>
      <geom type="box" size="0.05 0.05 0.05" contype="2" conaffinity="2"/>
    </body>
    <body name="solid" pos="0.5 0 0.2"><freejoint/>
      <geom type="box" size="0.05 0.05 0.05" contype="2" conaffinity="1"/>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("door", ["local", "servers"])
def test_collision_filter_crosses_every_door(servers, tmp_path, door):
    """contype / conaffinity travel in the body's info strings, so the servers (BodyInfo from
    the ModelLoader, turned back into a body by the dynamics) honour them as the local core
    does: 'ghost' shares no bit with the floor (2 & 1, 1 & 2) and falls through it freely,
    z = 0.5 - 9.8 t^2 / 2 after t = 0.5 s (semi-implicit Euler at 1 ms: g dt t / 2 = 2.5 mm
    off); 'solid' (1 & 1) comes to rest on it at its half size, 0.05 m."""
    path = tmp_path / "filter.xml"
    path.write_text(FILTER_XML)
    sim = (hrpsim.Simulation(backend="local", dt=0.001) if door == "local"
           else hrpsim.Simulation(servers.client, dt=0.001))
    try:
        sim.add_model("floor", str(path) + "#world")
        for name in ("ghost", "solid"):
            sim.add_model(name, "%s#%s" % (path, name))
            sim.add_collision_pair("floor", name, friction=0.8)
        sim.step(500)
        ghost, solid = sim.root_pose("ghost")[0], sim.root_pose("solid")[0]
    finally:
        sim.close()
    assert ghost[2] == pytest.approx(0.5 - 9.8 * 0.25 / 2, abs=4e-3)
    assert solid[2] == pytest.approx(0.05, abs=1e-3)
