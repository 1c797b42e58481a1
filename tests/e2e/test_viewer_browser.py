"""The viewer's page in a real browser: Debian's headless Chromium (SwiftShader WebGL) driven
over the DevTools protocol (hrpsim.viewer.browser) loads the page from a real viewer server.

It checks what a person would see: the robot drawn where the camera looks (its pixels change
when the robot is moved away, the background elsewhere does not), every shape of the loaded
bodies in the scene, scrubbing the timeline (through the slider itself) moving the robot,
a live update reaching the page within 100 ms, two pages showing the same state, a page
opened mid-run catching up, a replay of a results directory drawing the recorded poses (also
of a `hrpsim run --local` directory, which before had no models and threw in the page), and
the camera tiles of a replayed `hrpsim run` showing, pixel for pixel, the stored frame of the
time on screen while scrubbing and playing, and a live `hrpsim run --view` showing its frames
while it runs.

With HRPSIM_UPDATE_SCREENSHOT=1 the replay test also writes docs/viewer.png for the README.
"""

import base64
import csv
import json
import os
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from conftest import REPO_ROOT, cli_env
from hrpsim import launcher
import hrpsim
from hrpsim.results import write_results
from hrpsim.viewer.browser import Browser, png_pixels
from hrpsim.viewer.scene import Kinematics
from hrpsim.viewer.server import describe_url
from test_viewer import FLOOR, HUMANOID, ViewerProcess, sample_q, world_state, world  # noqa: F401
from test_viewer_run import stop_view, up_with_viewer, view_process  # noqa: F401 - a fixture
from test_viewer_cameras import FALLING, falling_run  # noqa: F401 - a fixture
from test_plots import crawler_run  # noqa: F401 - a fixture

SCREENSHOT = REPO_ROOT / "docs" / "viewer.png"
READY = "window.hrpsim && window.hrpsim.ready"


@pytest.fixture(scope="module")
def live(servers, tmp_path_factory):
    if not (REPO_ROOT / "web" / "dist" / "viewer.js").exists():
        pytest.fail("the viewer's page is not built (web/dist/viewer.js): run tools/bootstrap.sh"
                    " (needs node and npm)", pytrace=False)
    v = ViewerProcess(servers.corbaloc, tmp_path_factory.mktemp("viewer-browser"),
                      name="OnlineViewerBrowser")
    yield v
    v.stop()


@pytest.fixture(scope="module")
def browser():
    # software WebGL: a bigger window costs frame rate (and the 100 ms budget) superlinearly
    with Browser(width=900, height=600) as b:
        yield b


@pytest.fixture
def open_page(browser):
    made = []

    def make(url):
        p = browser.new_page()
        made.append(p)
        p.bring_to_front()
        p.navigate(url)
        p.wait_for(READY)
        return p
    yield make
    for p in made:
        errors = list(p.errors)
        p.close()
        assert not errors, "JavaScript errors in the page: %s" % errors


@pytest.fixture
def robot(live):
    """The live viewer with the floor and the humanoid loaded and an empty log."""
    v = live.ref
    v.clearData()
    v.load("floor", FLOOR)
    v.load("robot", HUMANOID)
    yield v
    v.clearData()


def expected_meshes(url):
    """How many meshes the page must build: one per shape reference of every link (and of
    every sensor that has shapes) of every loaded body, from the server's scene."""
    with urllib.request.urlopen(url + "api/scene", timeout=10) as r:
        scene = json.loads(r.read())
    return sum(len(lk["shapes"]) + sum(len(s["shapes"]) for s in lk["sensors"])
               for c in scene["characters"] for lk in c["body"]["links"])


def region(img, center, half=12):
    x, y = int(round(center[0])), int(round(center[1]))
    return img[max(0, y - half):y + half, max(0, x - half):x + half, :3].astype(float)


# ---------------------------------------------------------------------------------------------
# live
# ---------------------------------------------------------------------------------------------

def test_the_robot_is_drawn_where_the_camera_looks(robot, live, world, open_page):
    robot.update(world_state(world, np.zeros(30), root_p=(0, 0, 0.8), time_=0.0))
    page = open_page(live.url)
    page.wait_for("window.hrpsim.frameCount === 1 && window.hrpsim.renders > 2")
    assert page.evaluate("window.hrpsim.objectCount()") == expected_meshes(live.url)
    assert page.evaluate("window.hrpsim.bodyNames()") == ["floor", "robot"]
    chest = page.evaluate("window.hrpsim.project(window.hrpsim.linkPosition('robot','CHEST_Y'))")
    waist = page.evaluate("window.hrpsim.project(window.hrpsim.linkPosition('robot','WAIST'))")
    width, height = page.evaluate("[innerWidth, innerHeight]")
    for p in (chest, waist):
        assert 0 < p[0] < width and 0 < p[1] < height, (p, width, height)
    with_robot = png_pixels(page.screenshot())
    # the same view with the robot far outside it
    robot.update(world_state(world, np.zeros(30), root_p=(60, 0, 0.8), time_=0.01))
    page.wait_for("window.hrpsim.frameCount === 2 && window.hrpsim.drawnTime === 0.01")
    time.sleep(0.3)
    without = png_pixels(page.screenshot())
    for p in (chest, waist):
        diff = np.abs(region(with_robot, p) - region(without, p)).mean()
        assert diff > 20, "no robot drawn at %s (mean colour change %.1f)" % (p, diff)
    # far from the robot (top-left of the view, below the toggles): unchanged
    corner = (60, 140)
    assert np.abs(region(with_robot, corner) - region(without, corner)).max() < 3


def test_scrubbing_the_timeline_moves_the_robot(robot, live, world, open_page):
    xs = np.linspace(0.0, 0.5, 11)
    for k, x in enumerate(xs):
        robot.update(world_state(world, sample_q(k), root_p=(x, 0, 0.8), time_=0.1 * k))
    page = open_page(live.url)
    page.wait_for("window.hrpsim.frameCount === 11")
    assert page.evaluate("window.hrpsim.following")   # live: on the newest frame
    assert page.evaluate("window.hrpsim.index") == 10
    # drag the slider (the real control) to frame 3: the robot is drawn at that frame's pose
    page.evaluate("(() => { const s = document.getElementById('slider'); s.value = '3';"
                  " s.dispatchEvent(new Event('input')); })()")
    page.wait_for("Math.abs(window.hrpsim.drawnTime - 0.3) < 1e-9")
    assert not page.evaluate("window.hrpsim.following")
    p3 = page.evaluate("window.hrpsim.linkPosition('robot', 'WAIST')")
    assert np.allclose(p3, [xs[3], 0, 0.8], atol=1e-5)
    shot3 = png_pixels(page.screenshot())
    page.evaluate("window.hrpsim.seek(9)")
    page.wait_for("Math.abs(window.hrpsim.drawnTime - 0.9) < 1e-9")
    p9 = page.evaluate("window.hrpsim.linkPosition('robot', 'WAIST')")
    assert np.allclose(p9, [xs[9], 0, 0.8], atol=1e-5)
    assert np.abs(png_pixels(page.screenshot())[..., :3].astype(float) -
                  shot3[..., :3]).mean() > 0.5
    assert page.evaluate("document.getElementById('time').textContent") == "t = 0.900 s"


def test_each_live_update_reaches_the_page_on_its_own(robot, live, world, open_page):
    """Every update() reaches an open page as its own frame, in order, before the next one is
    sent, and is drawn at its time. How fast is measured in bench/bench_viewer.py, not here:
    this machine's CPU is shared, so latency bounds would only make the test flaky."""
    robot.update(world_state(world, sample_q(0), time_=0.0))
    page = open_page(live.url)
    page.wait_for("window.hrpsim.frameCount === 1")
    states = [world_state(world, sample_q(k), time_=0.01 * k) for k in range(1, 11)]
    for k, ws in enumerate(states, start=2):
        robot.update(ws)
        page.wait_for("window.hrpsim.frameCount === %d" % k, interval=0.002)
        page.wait_for("window.hrpsim.drawnTime === %r" % ws.time, interval=0.002)
        assert page.evaluate("window.hrpsim.frameCount") == k


def test_two_pages_show_the_same_state_and_a_late_page_catches_up(robot, live, world,
                                                                   open_page):
    a = open_page(live.url)
    b = open_page(live.url)
    for k in range(30):
        robot.update(world_state(world, sample_q(k), root_p=(0.01 * k, 0, 0.8),
                                 time_=0.01 * k))
    late = open_page(live.url)   # opened after the first 30 states ("mid-run")
    for k in range(30, 40):
        robot.update(world_state(world, sample_q(k), root_p=(0.01 * k, 0, 0.8),
                                 time_=0.01 * k))
    for p in (a, b, late):
        p.bring_to_front()  # a hidden tab draws nothing
        p.wait_for("window.hrpsim.frameCount === 40 && window.hrpsim.index === 39")
    expr = "[window.hrpsim.linkPosition('robot', 'RARM_WRIST_R'), window.hrpsim.drawnTime]"
    pa, pb, pl = (p.evaluate(expr) for p in (a, b, late))
    assert pa == pb == pl
    assert abs(pa[1] - 0.39) < 1e-12


# ---------------------------------------------------------------------------------------------
# replay
# ---------------------------------------------------------------------------------------------

def squat_results(servers, out):
    """A results directory of a synthetic squat (legs bend and stretch, soles kept on the
    floor), written as `hrpsim run` writes one; returns (log arrays, robot Kinematics)."""
    loader = servers.client.model_loader()
    models = [{"name": n, "url": hrpsim.file_url(u), "body": describe_url(loader, u)}
              for n, u in (("floor", FLOOR), ("robot", HUMANOID))]
    kin = Kinematics(models[1]["body"])
    names = [lk["name"] for lk in models[1]["body"]["links"]]
    n = 401
    t = np.linspace(0.0, 4.0, n)
    depth = 0.5 * (1 - np.cos(2 * np.pi * t / 4.0))          # 0 -> 1 -> 0
    joint_q = np.zeros((n, 30))
    by_name = {names[li]: j for j, li in enumerate(kin.joint_links)}
    for side in ("R", "L"):
        joint_q[:, by_name[side + "LEG_HIP_P"]] = -0.2 - 0.5 * depth
        joint_q[:, by_name[side + "LEG_KNEE"]] = 0.4 + 1.0 * depth
        joint_q[:, by_name[side + "LEG_ANKLE_P"]] = -0.2 - 0.5 * depth
        joint_q[:, by_name[side + "ARM_SHOULDER_P"]] = -0.9 * depth
        joint_q[:, by_name[side + "ARM_ELBOW"]] = -0.3 - 0.6 * depth
    q = kin.link_values(joint_q)
    root_R = np.tile(np.eye(3), (n, 1, 1))
    P, _ = kin.forward(np.zeros((n, 3)), root_R, q)
    ankle = names.index("RLEG_ANKLE_R")
    root_p = np.zeros((n, 3))
    root_p[:, 2] = 0.105 - P[:, ankle, 2]                    # soles stay on the floor
    P, _ = kin.forward(root_p, root_R, q)
    arrays = {"time": t, "floor.root_p": np.zeros((n, 3)),
              "floor.root_R": np.tile(np.eye(3), (n, 1, 1)), "robot.root_p": root_p,
              "robot.root_R": root_R, "robot.link_p": P, "robot.q": joint_q,
              "robot.dq": np.gradient(joint_q, t, axis=0), "robot.u": np.zeros((n, 30)),
              "robot.joint_names": np.array([names[li] for li in kin.joint_links])}
    summary = {"project": str(REPO_ROOT / "samples/projects/humanoid_squat.xml"),
               "format": "hrpsim", "status": "FINISHED", "message": "",
               "models": [{"name": m["name"], "url": m["url"]} for m in models],
               "controllers": [], "time_step": 0.01, "end_time": 4.0, "steps": n - 1,
               "simulated_time": 4.0, "wall_time": 4.0, "real_time_factor": 1.0,
               "records": n, "log_period": 0.01, "warnings": []}
    write_results(out, arrays, summary, plots=True, models=models)
    return arrays, kin


def test_a_replay_draws_the_recorded_poses_and_its_summary(servers, browser, open_page,
                                                           tmp_path):
    out = tmp_path / "squat"
    arrays, kin = squat_results(servers, out)
    names = _link_names(out)
    proc, url, _ = view_process(out)
    try:
        page = open_page(url)
        page.wait_for("window.hrpsim.frameCount === 401", timeout=30)
        assert page.evaluate("window.hrpsim.status.mode") == "replay"
        # the summary and the run's plots beside the view
        page.wait_for("[...document.querySelectorAll('#summary-plots img')].length === 2 &&"
                      " [...document.querySelectorAll('#summary-plots img')]"
                      ".every(i => i.complete && i.naturalWidth > 100)")
        assert not page.evaluate("document.getElementById('summary').hidden")
        for k in (0, 100, 200, 333):
            page.evaluate("window.hrpsim.seek(%d)" % k)
            page.wait_for("Math.abs(window.hrpsim.drawnTime - %r) < 1e-9"
                          % float(arrays["time"][k]))
            for link in ("RLEG_ANKLE_R", "LARM_WRIST_R", "NECK_P"):
                got = page.evaluate("window.hrpsim.linkPosition('robot', %r)" % link)
                idx = names.index(link)
                assert np.allclose(got, arrays["robot.link_p"][k, idx], atol=2e-5), (k, link)
        # play at x10 from the start: time advances and stops at the end
        page.evaluate("window.hrpsim.seek(0); window.hrpsim.setSpeed(10); window.hrpsim.play()")
        page.wait_for("!window.hrpsim.playing && window.hrpsim.index === 400", timeout=10)
        # the plot panel draws the joint angles of the robot
        page.wait_for("document.getElementById('plot-character').value === 'robot' && "
                      "document.getElementById('plot-channels').selectedOptions.length > 0")
        if os.environ.get("HRPSIM_UPDATE_SCREENSHOT"):
            page.set_viewport(1100, 640)
            page.evaluate("window.hrpsim.seek(200)")
            page.wait_for("Math.abs(window.hrpsim.drawnTime - 2.0) < 1e-9")
            time.sleep(1.0)
            SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(SCREENSHOT)
    finally:
        stop_view(proc)


LOCAL_RUN = """<hrpsim-project>
  <simulation timeStep="0.001" endTime="0.3"/>
  <model name="floor" url="%s"/>
  <model name="robot" url="%s"><joints mode="highgain"/></model>
  <collision object1="floor" object2="robot"/>
  <log period="0.01"/>
  <plots enabled="true" root="true"/>
</hrpsim-project>
"""


def test_a_replay_of_a_local_run_draws_its_poses_and_summary(browser, open_page, tmp_path):
    """`hrpsim view` of a `hrpsim run --local` results directory (before: no models.json.gz,
    no bodies drawn and "TypeError ... toFixed" in the page; open_page fails on any page
    error): every record arrives, the summary shows, each link is drawn where the log has it."""
    path = tmp_path / "local.xml"
    path.write_text(LOCAL_RUN % (FLOOR, HUMANOID))
    out = tmp_path / "local"
    env = {k: v for k, v in cli_env().items() if not k.startswith("HRPSIM_NAMING")}
    env["HRPSIM_STATE_DIR"] = str(tmp_path / "no-servers")
    proc = subprocess.run([sys.executable, "-m", "hrpsim", "run", "--local", "--quiet",
                           "--out", str(out), str(path)], capture_output=True, text=True,
                          timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = np.load(out / "log.npz")
    n = len(log["time"])
    names = _link_names(out)
    view, url, _ = view_process(out)
    try:
        page = open_page(url)
        page.wait_for("window.hrpsim.frameCount === %d" % n, timeout=30)
        assert page.evaluate("window.hrpsim.status.mode") == "replay"
        page.wait_for("!document.getElementById('summary').hidden")
        for k in (0, n // 2, n - 1):
            page.evaluate("window.hrpsim.seek(%d)" % k)
            page.wait_for("Math.abs(window.hrpsim.drawnTime - %r) < 1e-9"
                          % float(log["time"][k]))
            for link in ("WAIST", "RLEG_ANKLE_R", "LARM_WRIST_R"):
                got = page.evaluate("window.hrpsim.linkPosition('robot', %r)" % link)
                want = log["robot.link_p"][k, names.index(link)]
                assert np.allclose(got, want, atol=2e-5), (k, link, got, want)
    finally:
        stop_view(view)


def _link_names(out):
    from hrpsim.viewer.replay import read_models
    return [lk["name"] for lk in read_models(out)[1]["body"]["links"]]


# the humanoid's head cameras: key, folder, what the tile shows
HEAD_CAMERAS = (("robot/VISION_COLOR", "robot-VISION_COLOR", "color"),
                ("robot/VISION_DEPTH", "robot-VISION_DEPTH", "depth"))


def _camera_rows(folder):
    with open(folder / "frames.csv") as f:
        return [(int(r["frame"]), float(r["time"])) for r in csv.DictReader(f)]


def _stored_tile(folder, frame, kind):
    """What a tile should show for a stored frame, decoded with Pillow: RGB (H, W, 3) float."""
    from PIL import Image
    if kind == "depth":
        mm = np.asarray(Image.open(folder / ("depth_%06d.png" % frame)), dtype=np.float64)
        grey = np.floor(255 * (1 - mm / mm.max()))              # near white, far black
        return np.repeat(grey[:, :, None], 3, axis=2)
    with Image.open(folder / ("frame_%06d.png" % frame)) as im:
        return np.asarray(im.convert("RGB"), dtype=np.float64)


def _tile_pixels(page, key):
    got = page.evaluate("window.hrpsim.cameraPixels(%r)" % key)
    rgba = np.frombuffer(base64.b64decode(got["rgba"]), dtype=np.uint8)
    return rgba.reshape(got["height"], got["width"], 4)[:, :, :3].astype(np.float64)


def test_a_replay_shows_the_camera_frame_of_the_time_on_screen(falling_run, open_page):
    out = falling_run
    log_t = np.load(out / "log.npz")["time"]
    proc, url, _ = view_process(out)
    try:
        page = open_page(url)
        page.wait_for("window.hrpsim.frameCount === %d" % len(log_t), timeout=30)
        page.wait_for("window.hrpsim.cameraLists > 0")
        shown = {}
        for k in (5, 25, 55):                                    # t = 0.05, 0.25, 0.55 s
            page.evaluate("window.hrpsim.seek(%d)" % k)
            t = float(log_t[k])
            for key, folder, kind in HEAD_CAMERAS:
                d = out / "cameras" / folder
                # the latest stored frame at or before t
                frame = max(f for f, ft in _camera_rows(d) if ft <= t + 1e-9)
                page.wait_for("window.hrpsim.cameraState()[%r].shown === %d" % (key, frame))
                want = _stored_tile(d, frame, kind)
                assert want.std() > 10, "the stored frame is blank: %s %d" % (key, frame)
                got = _tile_pixels(page, key)
                assert got.shape == want.shape
                assert np.abs(got - want).max() <= 2, (key, k, np.abs(got - want).max())
                assert abs(got.mean() - want.mean()) <= 2
                shown[key, k] = got
        # the robot collapses: each scrub put another picture into the tiles
        for key, _, _ in HEAD_CAMERAS:
            assert np.abs(shown[key, 5] - shown[key, 55]).mean() > 5, key
            assert np.abs(shown[key, 25] - shown[key, 55]).mean() > 1, key
        # playing: the tiles follow the time on screen, and stop at the last frame
        n0 = page.evaluate("window.hrpsim.cameraRequests")
        page.evaluate("window.hrpsim.seek(0); window.hrpsim.setSpeed(0.5); "
                      "window.hrpsim.play()")
        page.wait_for("window.hrpsim.playing && window.hrpsim.cameraState()"
                      "['robot/VISION_COLOR'].shown >= 3", timeout=10)
        page.wait_for("!window.hrpsim.playing", timeout=20)
        for key, folder, kind in HEAD_CAMERAS:
            last = max(f for f, ft in _camera_rows(out / "cameras" / folder)
                       if ft <= float(log_t[-1]) + 1e-9)
            page.wait_for("window.hrpsim.cameraState()[%r].shown === %d" % (key, last))
            want = _stored_tile(out / "cameras" / folder, last, kind)
            assert np.abs(_tile_pixels(page, key) - want).max() <= 2, key
        # on demand: no more requests than frames played (each fetched at most once or twice)
        frames = sum(len(_camera_rows(out / "cameras" / f)) for _, f, _ in HEAD_CAMERAS)
        assert page.evaluate("window.hrpsim.cameraRequests") - n0 <= frames
    finally:
        stop_view(proc)


def test_a_live_run_shows_its_camera_frames_while_it_runs(up_with_viewer, open_page, tmp_path):
    d, _ = up_with_viewer
    page = open_page(launcher.read_state(d)["viewer_url"])
    project = tmp_path / "falling.xml"
    project.write_text(FALLING.format(root=REPO_ROOT).replace('endTime="0.6"', 'endTime="3"'))
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "hrpsim.cli", "run", "--state-dir", str(d),
                             "--out", str(out), "--view", "--real-time", "1", "--no-plots",
                             str(project)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=cli_env(), cwd=str(REPO_ROOT))
    color = out / "cameras" / "robot-VISION_COLOR"
    state = "window.hrpsim.cameraState()['robot/VISION_COLOR']"
    try:
        got = page.wait_for("(s => s && s.shown !== null && s)(%s)" % state, timeout=60)
        running = proc.poll() is None
        pixels = _tile_pixels(page, "robot/VISION_COLOR")
        assert running, "the run ended before a camera frame reached the page"
        # the tile shows the stored frame it names, at or before the time on screen
        assert got["shownTime"] <= page.evaluate("window.hrpsim.drawnTime") + 1e-9
        want = _stored_tile(color, got["shown"], "color")
        if got["shown"] == page.evaluate("%s.shown" % state):
            assert np.abs(pixels - want).max() <= 2
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stdout + stderr
        assert "camera frames" not in stderr, stderr  # no warning about the viewer
        # once the run is over the page follows to its end: a frame of the last half second
        got = page.wait_for("(s => s.shown !== null && s.shown === s.wanted && "
                            "s.shownTime > 2.5 && s)(%s)" % state, timeout=20)
        last = _camera_rows(color)
        assert got["shownTime"] == pytest.approx(dict(last)[got["shown"]], abs=1e-9)
        want = _stored_tile(color, got["shown"], "color")
        assert np.abs(_tile_pixels(page, "robot/VISION_COLOR") - want).max() <= 2
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


# ---------------------------------------------------------------------------------------------
# every logged series, contact arrows and the follow camera in a replay of the crawler
# ---------------------------------------------------------------------------------------------

def test_a_replay_plots_every_series_draws_contacts_and_follows_the_robot(crawler_run,
                                                                          open_page):
    out = crawler_run
    log = np.load(out / "log.npz")
    n = len(log["time"])
    proc, url, _ = view_process(out)
    try:
        page = open_page(url)
        page.wait_for("window.hrpsim.frameCount === %d" % n, timeout=30)
        # the plot list offers the new series beside the joint arrays
        page.evaluate("window.hrpsim.selectSeries('crawler', 'q')")
        offered = dict(page.evaluate("window.hrpsim.seriesOptions()"))
        for key in ("q", "dq", "u", "root_p", "root_rpy", "tracks", "joint_stop",
                    "contact_force"):
            assert key in offered, (key, offered)
        assert offered["root_rpy"] == "root roll, pitch, yaw [rad]"
        # a plotted series has one point per record in each channel
        for key, channels in (("tracks", 2), ("root_rpy", 1), ("contact_force", 1)):
            page.evaluate("window.hrpsim.selectSeries('crawler', %r)" % key)
            page.wait_for("window.hrpsim.plotData().length >= %d && window.hrpsim.plotData()"
                          ".every(c => c.points === %d)" % (channels, n), timeout=10)
            if key == "tracks":
                shown = page.evaluate("window.hrpsim.plotData()")
                assert sorted(c["channel"] for c in shown) == ["TRACK_L", "TRACK_R"]
        # contact arrows: one per logged point, at the logged points
        counts = log["contacts.count"]
        first = np.concatenate([[0], np.cumsum(counts)])
        for k in (0, int(np.argmax(counts)), 500, n - 1):
            page.evaluate("window.hrpsim.seek(%d)" % k)
            page.wait_for("Math.abs(window.hrpsim.drawnTime - %r) < 1e-9" % float(log["time"][k]))
            page.wait_for("window.hrpsim.arrowCount() === %d" % counts[k])
            got = np.array(page.evaluate("window.hrpsim.contactPoints()")).reshape(-1, 3)
            assert np.allclose(got, log["contacts.point"][first[k]:first[k + 1]], atol=1e-5), k
        assert counts[500] > 0
        # the follow camera keeps the crawler's root at the view's centre, at the same offset
        page.evaluate("window.hrpsim.follow('crawler')")
        assert page.evaluate("window.hrpsim.followed") == "crawler"
        root = log["crawler.root_p"]
        assert np.linalg.norm(root[-1, :2] - root[0, :2]) > 0.5  # it drives away
        offsets = []
        view_center = page.evaluate(
            "(() => { const r = document.querySelector('#view canvas').getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for k in (100, 400, 800, n - 1):
            page.evaluate("window.hrpsim.seek(%d)" % k)
            page.wait_for("Math.abs(window.hrpsim.drawnTime - %r) < 1e-9" % float(log["time"][k]))
            pose = page.evaluate("window.hrpsim.cameraPose()")
            assert np.allclose(pose["target"], root[k], atol=1e-4), (k, pose, root[k])
            offsets.append(np.subtract(pose["position"], pose["target"]))
            xy = page.evaluate("window.hrpsim.project(%r)" % [float(v) for v in root[k]])
            assert np.allclose(xy, view_center, atol=2.0), (k, xy, view_center)
        assert np.allclose(offsets, offsets[0], atol=1e-6)
        # a free camera stays where it is while the robot moves
        page.evaluate("window.hrpsim.follow('')")
        before = page.evaluate("window.hrpsim.cameraPose()")
        page.evaluate("window.hrpsim.seek(0)")
        page.wait_for("window.hrpsim.drawnTime === 0")
        assert page.evaluate("window.hrpsim.cameraPose()") == before
    finally:
        stop_view(proc)
