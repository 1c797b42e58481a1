"""The viewer's camera frames (hrpsim.viewer.cameras): the index of a results directory's
cameras/ folder as `hrpsim run` writes it, the choice of the frame shown at a time, frames.csv
growing during a live run, depth-only cameras served as grey images, and the HTTP routes of
`hrpsim view` over a real run's frames and of a live viewer told where a run writes them. The
page's use of them is in test_viewer_browser.py.
"""

import io
import json
import urllib.error
import urllib.request

import numpy as np
import pytest
from PIL import Image

from conftest import REPO_ROOT, describe, run_cli
from hrpsim.viewer.cameras import CameraIndex, depth_to_grey, safe_name
from test_viewer import HUMANOID, ViewerProcess
from test_viewer_run import stop_view, view_process

# the humanoid in torque mode with no controller: it collapses, so its head cameras (COLOR
# 320x240 at 30 Hz, DEPTH 160x120 at 15 Hz) see the room move
FALLING = """<?xml version="1.0" encoding="UTF-8"?>
<hrpsim-project version="1">
  <simulation timeStep="0.001" endTime="0.6" sensors="false"/>
  <model name="floor" url="{root}/samples/models/floor/floor.wrl"/>
  <model name="robot" url="{root}/samples/models/humanoid/humanoid.wrl">
    <rootPose translation="0 0 0.808040" rotation="0 1 0 0.15"/>
    <joints mode="torque" value="0"/>
    <joint name="RLEG_KNEE" value="0.4"/>
    <joint name="LLEG_KNEE" value="0.4"/>
  </model>
  <collision object1="floor" object2="robot" staticFriction="0.5" slipFriction="0.5"/>
  <log period="0.01"/>
  <cameras enabled="true"/>
</hrpsim-project>
"""


def characters(*cams):
    """Characters as models.json.gz records them, with the given (character, sensor) cameras."""
    out = {}
    for char, sensor in cams:
        out.setdefault(char, []).append({"type": "Vision", "name": sensor, "id": len(out)})
    return [{"name": c, "body": {"links": [{"name": "HEAD", "sensors": s}]}}
            for c, s in out.items()]


def write_camera(d, rows, kind="color", size=(8, 6)):
    """A camera folder as the scheduler writes it: rows of (frame, step, time)."""
    d.mkdir(parents=True, exist_ok=True)
    w, h = size
    with open(d / "frames.csv", "w") as f:
        f.write("frame,step,time\n")
        for frame, step, t in rows:
            f.write("%d,%d,%.17g\n" % (frame, step, t))
            if kind == "color":
                Image.new("RGB", size, (frame * 10 % 256, 50, 200)).save(
                    d / ("frame_%06d.png" % frame))
            elif kind == "depth":
                mm = np.full((h, w), 1000 + 100 * frame, dtype=np.uint16)
                mm[0, 0] = 4000
                Image.fromarray(mm).save(d / ("depth_%06d.png" % frame))
    return d


def test_frame_index_times_and_the_frame_at_a_time(tmp_path):
    # 30 Hz at 1 ms: frame k at the first step n with n dt >= k / 30 (0, 34, 67, 100 ms)
    rows = [(0, 0, 0.0), (1, 34, 0.034), (2, 67, 0.067), (3, 100, 0.1)]
    write_camera(tmp_path / "cameras" / "robot-CAM", rows)
    idx = CameraIndex(tmp_path, characters(("robot", "CAM")))
    [cam] = idx.cameras()
    assert cam["key"] == "robot/CAM" and cam["kind"] == "image"
    assert cam["frames"] == [0, 1, 2, 3]
    assert cam["times"] == [0.0, 0.034, 0.067, 0.1]
    # the latest frame at or before the time: the log's records at 0.03, 0.04 ... show
    # frame 0 until 0.034 is reached; a time equal to a frame's (up to rounding) shows it
    assert idx.frame_at("robot", "CAM", 0.0) == (0, 0.0)
    assert idx.frame_at("robot", "CAM", 0.03) == (0, 0.0)
    assert idx.frame_at("robot", "CAM", 0.034) == (1, 0.034)
    assert idx.frame_at("robot", "CAM", 0.001 * 34) == (1, 0.034)
    assert idx.frame_at("robot", "CAM", 0.0669) == (1, 0.034)
    assert idx.frame_at("robot", "CAM", 5.0) == (3, 0.1)
    assert idx.frame_at("robot", "CAM", -0.001) is None
    assert idx.frame_at("robot", "OTHER", 0.05) is None
    # frames are files; anything not listed is not served
    assert idx.image("robot", "CAM", 2) == tmp_path / "cameras/robot-CAM/frame_000002.png"
    assert idx.image("robot", "CAM", 4) is None
    assert idx.image("nobody", "CAM", 0) is None


def test_names_map_to_directories_as_the_scheduler_writes_them(tmp_path):
    assert safe_name("my robot.1") == "my_robot_1" and safe_name("") == "_"
    write_camera(tmp_path / "cameras" / "my_robot-eye_left", [(0, 0, 0.0)])
    # a directory without a matching VisionSensor (another project's) is not listed
    write_camera(tmp_path / "cameras" / "ghost-CAM", [(0, 0, 0.0)])
    idx = CameraIndex(tmp_path, characters(("my robot", "eye left"), ("robot", "CAM")))
    assert [c["key"] for c in idx.cameras()] == ["my robot/eye left"]


def test_a_growing_frames_csv_adds_frames_and_a_partial_line_waits(tmp_path):
    d = write_camera(tmp_path / "cameras" / "robot-CAM", [(0, 0, 0.0)])
    idx = CameraIndex(tmp_path, characters(("robot", "CAM"), ("robot", "LATE")))
    assert idx.cameras()[0]["frames"] == [0]
    assert not idx.refresh()
    Image.new("RGB", (8, 6)).save(d / "frame_000001.png")
    with open(d / "frames.csv", "a") as f:
        f.write("1,100,0.1")            # the line is not finished yet
    assert not idx.refresh()
    assert idx.frame_at("robot", "CAM", 1.0) == (0, 0.0)
    with open(d / "frames.csv", "a") as f:
        f.write("\n")
    assert idx.refresh()
    assert idx.frame_at("robot", "CAM", 1.0) == (1, 0.1)
    # a camera whose folder appears later is found on the next refresh
    write_camera(tmp_path / "cameras" / "robot-LATE", [(0, 0, 0.0)])
    assert idx.refresh()
    assert sorted(c["key"] for c in idx.cameras()) == ["robot/CAM", "robot/LATE"]


def test_a_depth_only_camera_is_served_as_grey(tmp_path):
    write_camera(tmp_path / "cameras" / "robot-D", [(0, 0, 0.0), (1, 67, 0.067)],
                 kind="depth")
    idx = CameraIndex(tmp_path, characters(("robot", "D")))
    assert idx.cameras()[0]["kind"] == "depth"
    data = idx.image("robot", "D", 1)
    grey = np.asarray(Image.open(io.BytesIO(data)))
    assert grey.dtype == np.uint8 and grey.shape == (6, 8)
    # near white, far black: 1100 mm of a frame whose farthest pixel is 4000 mm
    assert grey[0, 0] == 0
    assert grey[1, 1] == int(255 * (1 - 1100 / 4000))
    assert idx.image("robot", "D", 1) is data  # kept for the next request
    assert np.array_equal(depth_to_grey(np.zeros((2, 2), np.uint16)), np.full((2, 2), 255))


@pytest.fixture(scope="module")
def falling_run(servers, tmp_path_factory):
    """`hrpsim run` of the collapsing humanoid: a results directory with camera frames."""
    if not servers.has("Scheduler"):
        pytest.skip("no Scheduler built")
    d = tmp_path_factory.mktemp("falling")
    project = d / "falling.xml"
    project.write_text(FALLING.format(root=REPO_ROOT))
    out = d / "results"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--no-plots",
                   project)
    assert proc.returncode == 0, describe(proc)
    cams = out / "cameras"
    if not (cams / "robot-VISION_COLOR" / "frames.csv").is_file():
        pytest.skip("no camera frames in this run (no headless OpenGL here?): %s"
                    % describe(proc))
    return out


def test_hrpsim_view_serves_the_run_frames_by_url(falling_run):
    out = falling_run
    proc, url, _ = view_process(out)
    try:
        with urllib.request.urlopen(url + "api/cameras", timeout=10) as r:
            cams = {c["key"]: c for c in json.loads(r.read())["cameras"]}
        assert set(cams) == {"robot/VISION_COLOR", "robot/VISION_DEPTH"}
        color, depth = cams["robot/VISION_COLOR"], cams["robot/VISION_DEPTH"]
        assert color["kind"] == "image" and depth["kind"] == "depth"
        assert len(color["frames"]) == 19 and len(depth["frames"]) == 10  # 0.6 s, 30 and 15 Hz
        assert color["times"][3] == pytest.approx(0.1, abs=1e-9)
        # a colour frame comes as stored, byte for byte
        with urllib.request.urlopen(url + "api/camera/robot/VISION_COLOR/3.png") as r:
            assert r.headers["Content-Type"] == "image/png"
            assert r.read() == (out / "cameras/robot-VISION_COLOR/frame_000003.png").read_bytes()
        # a depth frame as grey (near white)
        with urllib.request.urlopen(url + "api/camera/robot/VISION_DEPTH/2.png") as r:
            grey = np.asarray(Image.open(io.BytesIO(r.read())))
        mm = np.asarray(Image.open(out / "cameras/robot-VISION_DEPTH/depth_000002.png"))
        assert np.array_equal(grey, (255 * (1 - mm / mm.max())).astype(np.uint8))
        # a replay shows its own frames only
        with pytest.raises(urllib.error.HTTPError) as e:
            _post(url, {"dir": str(out)})
        assert e.value.code == 405
        for bad in ("robot/VISION_COLOR/19.png", "robot/NOPE/0.png", "nobody/VISION_COLOR/0.png"):
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(url + "api/camera/" + bad, timeout=10)
            assert e.value.code == 404
    finally:
        stop_view(proc)


def _post(url, doc):
    req = urllib.request.Request(url + "api/cameras", method="POST", data=json.dumps(doc).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def _cameras(url):
    with urllib.request.urlopen(url + "api/cameras", timeout=10) as r:
        return {c["key"]: c for c in json.loads(r.read())["cameras"]}


def test_a_live_viewer_serves_the_frames_of_the_directory_it_is_told(servers, falling_run,
                                                                    tmp_path):
    v = ViewerProcess(servers.corbaloc, tmp_path, name="OnlineViewerCameras")
    try:
        assert _cameras(v.url) == {}
        v.ref.load("robot", HUMANOID)
        # bad requests are refused with a reason, and change nothing
        for doc in ({"dir": "relative/path"}, {"dir": str(tmp_path / "missing")}, {"x": 1},
                    ["not", "an", "object"]):
            with pytest.raises(urllib.error.HTTPError) as e:
                _post(v.url, doc)
            assert e.value.code == 400, doc
        assert _cameras(v.url) == {}
        assert _post(v.url, {"dir": str(falling_run)}) == {"ok": True}
        cams = _cameras(v.url)
        assert set(cams) == {"robot/VISION_COLOR", "robot/VISION_DEPTH"}
        assert len(cams["robot/VISION_COLOR"]["frames"]) == 19
        with urllib.request.urlopen(v.url + "api/camera/robot/VISION_COLOR/7.png") as r:
            assert r.read() == (falling_run / "cameras/robot-VISION_COLOR/frame_000007.png"
                                ).read_bytes()
        # clearData forgets the models and the frames of their run
        v.ref.clearData()
        assert _cameras(v.url) == {}
    finally:
        v.stop()
