"""What a run's pictures show: `hrpsim run`'s stills frame the robot at moments chosen from the
run and shade a robot without materials, the sample room's cameras and range sensor see the
room, and cameras are off unless a project or the command line asks for them."""

import json
import math

import numpy as np
import pytest

from conftest import describe, require_build, run_cli

SQUAT = "samples/projects/humanoid_squat.xml"
ROOM = "samples/projects/humanoid_room.xml"
SENSOR_BOT = "samples/projects/sensor_bot.xml"


@pytest.fixture(scope="module")
def sched_servers(servers):
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    assert servers.has("Scheduler"), "hrpsim up did not start the Scheduler"
    return servers


@pytest.fixture(scope="module")
def squat(sched_servers, tmp_path_factory):
    out = tmp_path_factory.mktemp("pictures") / "squat"
    proc = run_cli("run", "--state-dir", sched_servers.state_dir, "--out", out, SQUAT)
    assert proc.returncode == 0, describe(proc)
    return out, json.loads((out / "summary.json").read_text()), np.load(out / "log.npz")


@pytest.fixture(scope="module")
def room(sched_servers, tmp_path_factory):
    out = tmp_path_factory.mktemp("pictures") / "room"
    proc = run_cli("run", "--state-dir", sched_servers.state_dir, "--out", out, ROOM)
    assert proc.returncode == 0, describe(proc)
    return out, json.loads((out / "summary.json").read_text()), np.load(out / "log.npz")


@pytest.fixture(scope="module")
def sensor_bot(sched_servers, tmp_path_factory):
    out = tmp_path_factory.mktemp("pictures") / "sensor_bot"
    proc = run_cli("run", "--state-dir", sched_servers.state_dir, "--out", out, SENSOR_BOT)
    assert proc.returncode == 0, describe(proc)
    return out, json.loads((out / "summary.json").read_text())


def project(view, points):
    """Pixel coordinates (u right, v down from the top-left corner) and depth of world points,
    for a pinhole camera at view["T"] (3x4, looking along its -z axis, y up) whose horizontal
    field of view is view["fov"] (render.h's camera model, written out again here)."""
    T = np.asarray(view["T"], dtype=float).reshape(3, 4)
    cam = (np.asarray(points, dtype=float) - T[:, 3]) @ T[:, :3]
    depth = -cam[:, 2]
    w, h = view["width"], view["height"]
    f = (w / 2) / math.tan(view["fov"] / 2)
    return np.stack([w / 2 + f * cam[:, 0] / depth, h / 2 - f * cam[:, 1] / depth], 1), depth


def lit(img):
    """Pixels that are not the renderer's black background (and not a deep shadow)."""
    return img.astype(int).sum(axis=2) > 30


def sky(img, view):
    """Pixels of a still that are its sky: the still's background gradient (view["sky"]: the
    colours of the top and bottom rows, linear in between), to within rounding."""
    top, bottom = (np.asarray(c, dtype=float) for c in view["sky"])
    h = img.shape[0]
    want = top + (bottom - top) * (np.arange(h) / (h - 1))[:, None]
    return (np.abs(img.astype(float) - want[:, None, :]) <= 1.0).all(axis=2)


def test_cameras_are_off_by_default(squat):
    out, summary, _ = squat
    assert summary["cameras"] is False
    assert not (out / "cameras").exists()
    assert summary["camera_previews"] == []
    assert "cameras     off (render them with --cameras" in (out / "summary.txt").read_text()


def test_stills_are_chosen_from_the_run(squat):
    """Start, end, and the two moments of largest motion: one while the robot goes down (the
    squat is between 1 s and 2.5 s) and one while it rises (2.5 s to 4.5 s)."""
    out, summary, log = squat
    stills = summary["stills"]
    assert [s["why"].split(",")[0] for s in stills] == [
        "start", "largest motion", "largest motion", "end"]
    times = [s["time"] for s in stills]
    assert times[0] == 0.0 and times[-1] == pytest.approx(5.0)
    assert 1.0 < times[1] < 2.5 and 2.5 < times[2] < 4.5, times
    text = (out / "summary.txt").read_text()
    assert "stills      4 in stills/" in text
    for s in stills:
        assert (out / s["file"]).is_file() and s["file"] in text


def test_stills_frame_the_robot(squat):
    """In each still the robot, placed by its logged link positions and the still's recorded
    view, is at least 40% of the picture's height, wholly inside it, its feet on visible
    ground; and the picture has the robot where the projection puts it. The background is a
    light sky (not the cameras' black): the top row is sky, and it is light."""
    from PIL import Image

    out, summary, log = squat
    t = log["time"]
    for s in summary["stills"]:
        img = np.asarray(Image.open(out / s["file"]))
        assert img.shape == (480, 640, 3)
        background = sky(img, s["view"])
        assert background[0].mean() > 0.9, s["file"]           # the sky above the scene
        assert img[background].mean() > 150, s["file"]           # a light one
        drawn = ~background
        i = int(np.argmin(abs(t - s["time"])))
        assert t[i] == pytest.approx(s["time"], abs=1e-9)
        links = log["robot.link_p"][i]
        uv, depth = project(s["view"], links)
        assert (depth > 0).all()
        u, v = uv[:, 0], uv[:, 1]
        assert (u > 0).all() and (u < 640).all() and (v > 0).all() and (v < 480).all(), uv
        # link origins run from the ankles to the neck: about 1.2 m of the robot's 1.54 m
        assert (v.max() - v.min()) >= 0.4 * 480, (s["file"], v.min(), v.max())
        # the renderer drew the robot there: nearly every link origin is on a lit pixel
        px = drawn[np.clip(v.astype(int), 0, 479), np.clip(u.astype(int), 0, 639)]
        assert px.mean() > 0.8, (s["file"], px.mean())
        # ground contact: below the lowest link (an ankle) there is floor, not sky
        k = int(np.argmax(v))
        below = drawn[min(479, int(v[k]) + 25):min(480, int(v[k]) + 45),
                      max(0, int(u[k]) - 40):int(u[k]) + 40]
        assert below.size and below.mean() > 0.9, s["file"]
        # and the floor is where the ankle stands: the framed box reaches down to z = 0
        assert abs(s["view"]["lo"][2]) < 0.01


def test_a_robot_without_materials_is_shaded_in_its_stills(sensor_bot):
    """The sensor bot's URDF gives its visuals no <material>: the stills draw them with VRML's
    default Material (0.8 grey), lit by the headlight, as the web viewer does, not as a flat
    white silhouette. Its box, cylinder and sphere turn away from the light at their edges, so
    the robot's pixels are grey (r = g = b), no brighter than 0.8 of white, and spread over many
    levels (without the default: every one of them 255)."""
    from PIL import Image

    out, summary = sensor_bot
    assert len(summary["stills"]) == 2
    for s in summary["stills"]:
        img = np.asarray(Image.open(out / s["file"]))
        robot = img[~sky(img, s["view"])].astype(int)
        assert len(robot) > 5000, s["file"]                  # the robot is in the picture
        assert (robot.max(axis=1) - robot.min(axis=1)).max() == 0, s["file"]   # grey
        levels = robot[:, 0]
        assert levels.max() <= round(0.8 * 255) + 2, s["file"]
        assert len(np.unique(levels)) > 50, (s["file"], np.unique(levels))
        assert np.percentile(levels, 95) - np.percentile(levels, 5) > 40, s["file"]


def test_room_cameras_see_the_room(room):
    """The head's colour camera sees the lit room: in a closed room every ray hits a surface,
    so (almost) no pixel is the black background, and it sees several things of different
    colours (walls, floor, wood, the red ball, the rug)."""
    from PIL import Image

    out, summary, _ = room
    assert summary["cameras"] is True
    d = out / "cameras" / "robot-VISION_COLOR"
    frames = sorted(d.glob("frame_*.png"))
    assert len(frames) == 31  # 30 fps for 1 s
    for f in (frames[0], frames[-1]):
        img = np.asarray(Image.open(f))
        assert lit(img).mean() > 0.95, f
        q = (img // 32).reshape(-1, 3)
        _, counts = np.unique(q, axis=0, return_counts=True)
        assert (counts >= 0.005 * len(q)).sum() >= 5, f   # colours of at least 0.5% each
        # the red ball on the table: strongly red pixels
        red = (img[:, :, 0].astype(int) > 150) & (img[:, :, 1] < 80) & (img[:, :, 2] < 80)
        assert red.sum() > 50, f


def test_room_depth_frames_hold_real_surfaces(room):
    """The depth camera (back clip 20 m) sees the room: the farthest surface it can see is
    the far wall about 5 m away (the room is 6 m x 5 m), the nearest the chair in front."""
    from PIL import Image

    out, _, _ = room
    d = out / "cameras" / "robot-VISION_DEPTH"
    for f in sorted(d.glob("depth_*.png"))[::5]:
        m = np.asarray(Image.open(f)).astype(float) / 1000.0
        assert m.shape == (120, 160)
        assert (m < 6.5).mean() > 0.99, f   # far below the 20 m far clip
        assert m.min() > 0.5, f             # nothing closer than the chair


def test_room_range_sensor_hits(room):
    """The chest's range sensor (257 beams over 2 rad, 10 m) hits the furniture and walls;
    its middle beam runs straight ahead (+x) above the chair and the table to the wall's inner
    face at x = 3 m: 3 - (-2 + 0.12) = 4.88 m from the sensor (the robot's root at x = -2 m,
    the torso upright, the sensor 0.12 m ahead of the chest)."""
    _, _, log = room
    scan = log["robot.range0"]
    assert scan.shape == (101, 257)
    hits = (scan > 0) & (scan < 10) & np.isfinite(scan)
    assert hits.mean() > 0.8     # the misses look out through the doorway
    assert scan[-1, 128] == pytest.approx(4.88, abs=0.02)


def test_cameras_element_parses(tmp_path):
    """<cameras> parses: enabled defaults to true on the element, false without it; a bad
    value names the line."""
    from hrpsim.project import ProjectError, load_project

    base = ('<hrpsim-project version="1">\n<model name="f" url="%s"/>\n%s</hrpsim-project>\n')
    from conftest import REPO_ROOT
    floor = REPO_ROOT / "samples/models/floor/floor.wrl"
    cases = {"": False, '<cameras/>\n': True, '<cameras enabled="false"/>\n': False,
             '<cameras enabled="true"/>\n': True}
    for i, (el, want) in enumerate(cases.items()):
        p = tmp_path / ("p%d.xml" % i)
        p.write_text(base % (floor, el))
        assert load_project(p).cameras is want
    p = tmp_path / "bad.xml"
    p.write_text(base % (floor, '<cameras enabled="sometimes"/>\n'))
    with pytest.raises(ProjectError) as exc:
        load_project(p)
    assert exc.value.line == 3 and "<cameras> enabled" in str(exc.value)


def test_choose_moments():
    from hrpsim.stills import choose_moments

    t = np.linspace(0, 10, 101)
    speed = np.zeros_like(t)
    speed[30], speed[32], speed[70], speed[99] = 5.0, 4.9, 4.0, 6.0
    # 3.2 s is too close to 3 s, 9.9 s too close to the end (within 15% of 10 s)
    got = choose_moments(t, speed)
    assert [i for i, _ in got] == [0, 30, 70, 100]
    assert [w for _, w in got] == ["start", "largest motion, links' summed speed 5.00 m/s",
                                   "largest motion, links' summed speed 4.00 m/s", "end"]
    assert choose_moments(t, np.zeros_like(t)) == [(0, "start"), (100, "end")]
