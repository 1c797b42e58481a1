"""End-to-end tests of cameras in simulations: the Scheduler renders every VisionSensor at its
frame rate, stores the frames, and hands controllers its ViewSimulator.

The scene is test_vision's (a plane whose front face is at z = -2, a cube whose front face is at
z = -0.9, a head-on directional light), seen by a camera body EYE whose root is now free with a
mass of 1 kg, so it falls along -z (towards the plane) under gravity from t = 0. ODE's
semi-implicit Euler moves it by -g dt^2 n (n + 1) / 2 after n steps, so the plane is
2 - g dt^2 n (n + 1) / 2 metres away along the optical axis: the depth frames must show it
(16-bit PNG in millimetres: within 1 mm), i.e. a camera on a moving link sees the scene move.
Frame k of a camera of rate r is taken at step k / (r dt) when that is whole (rates 10..15 with
dt = 1 ms here: 100, 1000/11, ... steps), at the first step after k / r otherwise.
"""

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP
from hrpsim.images import image_arrays
from hrpsim.models import OPENHRP_PROTOS

import hrpsim._idl.hrpsim as H  # noqa: I100
import hrpsim._idl.hrpsim__POA  # noqa: F401

from test_vision import SCENE, TYPES, VISION_PROTO, check_colour  # noqa: I100

DT = 0.001
G = 9.8


def falling_eye():
    sensors = "\n".join(
        '        DEF CAM_%s VisionSensor { sensorId %d type "%s" width 80 height 60 '
        'fieldOfView 0.9 frontClipDistance 0.1 backClipDistance 10 frameRate %d }'
        % (t, i, t, 10 + i) for i, t in enumerate(TYPES))
    return ("#VRML V2.0 utf8\n" + OPENHRP_PROTOS + VISION_PROTO + """
DEF EYE Humanoid {
  name "EYE"
  humanoidBody [
    DEF EYE_ROOT Joint {
      jointType "free"
      children [
        Segment { mass 1 momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.01] }
%s
      ]
    }
  ]
}
""" % sensors)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("vision-run-models")
    (d / "eye.wrl").write_text(falling_eye())
    (d / "scene.wrl").write_text(SCENE)
    return d


@pytest.fixture
def sched(servers):
    if not servers.has("Scheduler"):
        pytest.fail("the Scheduler server was not started (is hrpsim-scheduler built?)")
    s = servers.client.resolve("Scheduler", H.Scheduler)
    s.reset()
    yield s
    s.reset()


def run(sched, models, out, end=0.3, controllers=()):
    sched.reset()
    sched.setTimeStep(DT)
    sched.setEndTime(end)
    sched.setGVector([0.0, 0.0, G])
    sched.addModel("scene", str(models / "scene.wrl"))
    sched.addModel("eye", str(models / "eye.wrl"))
    for name in controllers:
        sched.addController(H.ControllerSpec(name, "eye", DT * 10))
    if out is not None:
        sched.setCameraOutput(str(out))
    sched.start()
    status = sched.wait(120.0)
    assert status.state == H.FINISHED, status.message
    return status


def plane_distance(step):
    return 2.0 - G * DT * DT * step * (step + 1) / 2


def read_frames(d):
    with open(d / "frames.csv") as f:
        return [(int(r["frame"]), int(r["step"]), float(r["time"])) for r in csv.DictReader(f)]


def test_frames_at_frame_rate_and_moving_camera(sched, models, tmp_path):
    from PIL import Image

    run(sched, models, tmp_path)
    cams = tmp_path / "cameras"
    # one folder per camera that has images (NONE has none)
    assert sorted(p.name for p in cams.iterdir()) == sorted(
        "eye-CAM_" + t for t in TYPES if t != "NONE")
    for i, t in enumerate(TYPES[:-1]):
        rate = 10 + i
        frames = read_frames(cams / ("eye-CAM_" + t))
        expect_steps = [math.ceil(k / (rate * DT) - 1e-6) for k in range(len(frames))]
        assert [f[0] for f in frames] == list(range(len(frames)))
        assert [f[1] for f in frames] == expect_steps
        assert len(frames) == math.floor(0.3 * rate + 1e-9) + 1  # frames 0 .. 0.3 s
        for k, step, time in frames:
            assert time == pytest.approx(step * DT, abs=1e-9)
            if step * rate % 1000 == 0:  # the frame time is a whole number of steps
                assert time == pytest.approx(k / rate, abs=1e-9)
    # colour: the first frame is test_vision's picture
    first = np.asarray(Image.open(cams / "eye-CAM_COLOR" / "frame_000000.png"))
    assert first.shape == (60, 80, 3)
    check_colour(first)
    # depth: the plane comes closer as the camera falls (top-left pixel sees the plane)
    for k, step, _ in read_frames(cams / "eye-CAM_DEPTH"):
        mm = np.asarray(Image.open(cams / "eye-CAM_DEPTH" / ("depth_%06d.png" % k)))
        assert mm.dtype == np.uint16 and mm.shape == (60, 80)
        assert abs(int(mm[0, 0]) - plane_distance(step) * 1000) <= 1.0, (k, step, mm[0, 0])
    last = read_frames(cams / "eye-CAM_DEPTH")[-1]
    assert plane_distance(last[1]) < 1.75  # by the last frame (0.25 s) it fell 0.3 m
    # the animated preview of the depth camera: every frame (they all differ), at its rate
    from hrpsim.images import write_previews

    previews = write_previews(tmp_path)
    assert len(previews) == 5
    d = cams / "eye-CAM_DEPTH"
    assert b"acTL" in (d / "preview.png").read_bytes()[:200]
    with Image.open(d / "preview.png") as im:
        n = im.n_frames
        total = 0
        for i in range(n):
            im.seek(i)
            total += im.info.get("duration", 0)
    assert n == len(read_frames(d))
    assert total == pytest.approx(n * 1000 / 12, rel=0.05)
    # mono frames are 8-bit gray
    mono = np.asarray(Image.open(cams / "eye-CAM_MONO" / "frame_000000.png"))
    assert mono.shape == (60, 80) and mono.dtype == np.uint8
    # the scheduler takes no stills (hrpsim run does, after the run: test_run_pictures.py)
    assert not (tmp_path / "stills").exists()


def test_two_runs_identical_frames(sched, models, tmp_path):
    run(sched, models, tmp_path / "a", end=0.1)
    run(sched, models, tmp_path / "b", end=0.1)
    a = sorted((tmp_path / "a" / "cameras").rglob("*.png"))
    b = sorted((tmp_path / "b" / "cameras").rglob("*.png"))
    assert len(a) == len(b) > 0
    for pa, pb in zip(a, b):
        assert pa.read_bytes() == pb.read_bytes(), pa


class Viewer(hrpsim.OpenHRP__POA.Controller):
    """A controller that takes a depth picture through the ViewSimulator it is given."""

    def __init__(self):
        self.view = None
        self.dyn = None
        self.seen = []  # (world time, depth at the top-left pixel)

    def setDynamicsSimulator(self, dyn):
        self.dyn = dyn

    def setViewSimulator(self, view):
        self.view = view

    def setModelName(self, name):
        pass

    def setTimeStep(self, dt):
        pass

    def initialize(self):
        pass

    def start(self):
        pass

    def input(self):
        pass

    def control(self):
        cams = self.view.getCameraSequenceOf("eye")
        depth = image_arrays(cams[TYPES.index("DEPTH")].getImageData()).depth
        self.seen.append((self.dyn.getWorldState().time, float(depth[0, 0])))

    def output(self):
        pass

    def stop(self):
        pass

    def destroy(self):
        pass


def test_controller_gets_the_view(servers, sched, models):
    import uuid

    import CosNaming

    orb = servers.client.orb
    poa = orb.resolve_initial_references("RootPOA")
    poa._get_the_POAManager().activate()
    ctrl = Viewer()
    oid = poa.activate_object(ctrl)
    name = "vision-ctrl-%s" % uuid.uuid4().hex[:8]
    servers.client.root.rebind([CosNaming.NameComponent(name, "")], poa.id_to_reference(oid))
    try:
        run(sched, models, None, end=0.1, controllers=[name])
        assert ctrl.view is not None
        assert len(ctrl.seen) == 10
        for t, d in ctrl.seen:
            step = round(t / DT)
            assert d == pytest.approx(plane_distance(step), abs=1e-3)
        assert not CORBA.is_nil(sched.view())
    finally:
        servers.client.root.unbind([CosNaming.NameComponent(name, "")])
        poa.deactivate_object(oid)


def test_bad_camera_output(sched, models):
    sched.addModel("scene", str(models / "scene.wrl"))
    with pytest.raises(H.SchedulerError):
        sched.setCameraOutput("/proc/no-such-place/frames")


@pytest.mark.parametrize("scheduler", [False, True])
def test_simulation_camera_images(servers, sched, models, scheduler):
    """hrpsim.Simulation hands out NumPy images of the falling camera, either backend."""
    from hrpsim.simulation import Simulation

    sim = Simulation(servers.client, scheduler=scheduler, dt=DT,
                     models={"scene": models / "scene.wrl", "eye": models / "eye.wrl"})
    try:
        sim.step(100)
        images = sim.camera_images("eye")
        assert sorted(images) == sorted("CAM_" + t for t in TYPES)
        c = images["CAM_COLOR_DEPTH"]
        assert c.color.shape == (60, 80, 3) and c.color.dtype == np.uint8
        assert c.depth.shape == (60, 80) and c.depth.dtype == np.float32
        assert c.mono is None
        m = images["CAM_MONO"]
        assert m.mono.shape == (60, 80) and m.color is None and m.depth is None
        assert images["CAM_NONE"].color is None and images["CAM_NONE"].depth is None
        d = images["CAM_DEPTH"].depth
        assert abs(float(d[0, 0]) - plane_distance(100)) < 1e-3
        with pytest.raises(LookupError):
            sim.camera_images("nobody")
    finally:
        sim.close()


def test_hrpsim_run_cameras_stores_every_frame(servers, tmp_path):
    """`hrpsim run --cameras` of the standing humanoid (VISION_COLOR 320x240 at 30 fps,
    VISION_DEPTH 160x120 at 15 fps, 3 s) leaves every frame and an animated preview per
    camera."""
    from PIL import Image

    from conftest import describe, run_cli

    out = tmp_path / "standing"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--no-plots",
                   "--cameras", "samples/projects/humanoid_standing.xml")
    assert proc.returncode == 0, describe(proc)
    for cam, rate, size, kind in (("robot-VISION_COLOR", 30, (320, 240), "frame"),
                                  ("robot-VISION_DEPTH", 15, (160, 120), "depth")):
        d = out / "cameras" / cam
        frames = read_frames(d)
        assert len(frames) == 3 * rate + 1
        assert [f[1] for f in frames] == [math.ceil(k * 1000 / rate - 1e-6)
                                          for k in range(3 * rate + 1)]
        files = sorted(d.glob(kind + "_*.png"))
        assert len(files) == len(frames)
        with Image.open(files[0]) as im:
            assert im.size == size
        # the robot stands still: the preview may be a single picture (see the falling test)
        with Image.open(d / "preview.png") as im:
            assert im.size == size
    assert not (out / "stills").exists()  # --no-plots: no stills
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cameras"] is True and summary["stills"] == []
    assert sorted(summary["camera_previews"]) == [
        "cameras/robot-VISION_COLOR/preview.png", "cameras/robot-VISION_DEPTH/preview.png"]
