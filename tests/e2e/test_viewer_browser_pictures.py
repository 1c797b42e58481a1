"""What the viewer's page shows beside the robot, in Debian's headless Chromium (as
test_viewer_browser.py): camera tiles of a run that stored no frames say that its cameras were
off (a replay, and a live viewer no run told where frames are); a camera frame that is mostly
black says why (nothing in view: OpenHRP's cameras have no background); the run summary's
labels and words never break in the middle; and the default view of the sample humanoid_room
frames the robot where the project stands it (not the table at the model's origin).
"""

import json
import urllib.request

import numpy as np
import pytest

from conftest import REPO_ROOT, describe, run_cli
from hrpsim.viewer.browser import Browser
from test_viewer import HUMANOID, ViewerProcess
from test_viewer_cameras import FALLING
from test_viewer_run import stop_view, view_process

ROOM = REPO_ROOT / "samples" / "projects" / "humanoid_room.xml"
READY = "window.hrpsim && window.hrpsim.ready"
TILES = ("robot/VISION_COLOR", "robot/VISION_DEPTH")

# every word of the summary table's cells that the layout split over two lines
BROKEN_WORDS = """(() => {
  const broken = [];
  for (const td of document.querySelectorAll("#summary-table td")) {
    const node = td.firstChild;
    if (!node) continue;
    const re = /[^\\s\\u200b]+/g;
    let m;
    while ((m = re.exec(node.textContent))) {
      const r = document.createRange();
      r.setStart(node, m.index);
      r.setEnd(node, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
})()"""


@pytest.fixture(scope="module")
def browser():
    if not (REPO_ROOT / "web" / "dist" / "viewer.js").exists():
        pytest.fail("the viewer's page is not built (web/dist/viewer.js): run tools/bootstrap.sh"
                    " (needs node and npm)", pytrace=False)
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


def results_of(servers, tmp_path_factory, name, project, *options):
    if not servers.has("Scheduler"):
        pytest.fail("hrpsim up did not start the Scheduler")
    out = tmp_path_factory.mktemp(name) / "results"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, *options, project,
                   timeout=300)
    assert proc.returncode == 0, describe(proc)
    return out


@pytest.fixture(scope="module")
def room_run(servers, tmp_path_factory):
    """The sample humanoid_room with its cameras off: the robot stands 2 m from the table."""
    return results_of(servers, tmp_path_factory, "room", ROOM, "--no-cameras")


@pytest.fixture(scope="module")
def upright_run(servers, tmp_path_factory):
    """The humanoid upright on the floor for 0.1 s, cameras on: its head camera looks at the
    horizon, so the floor fills a strip of its frames and nothing the rest."""
    d = tmp_path_factory.mktemp("upright")
    project = d / "upright.xml"
    project.write_text(FALLING.format(root=REPO_ROOT)
                       .replace('rotation="0 1 0 0.15"', 'rotation="0 0 1 0"')
                       .replace('mode="torque"', 'mode="highgain"')
                       .replace('endTime="0.6"', 'endTime="0.1"'))
    return results_of(servers, tmp_path_factory, "upright", project, "--no-plots")


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def test_a_replay_without_camera_frames_says_its_cameras_were_off(room_run, open_page):
    assert json.loads((room_run / "summary.json").read_text())["cameras"] is False
    proc, url, _ = view_process(room_run)
    try:
        assert get_json(url + "api/cameras") == {"cameras": [], "stored": False}
        page = open_page(url)
        page.wait_for("window.hrpsim.cameraLists > 0")
        state = page.evaluate("window.hrpsim.cameraState()")
        assert sorted(state) == sorted(TILES)
        for key in TILES:
            assert state[key]["off"] is True and state[key]["shown"] is None
            assert "cameras off: this run stored no frames" in state[key]["caption"], state
            assert "no image yet" not in state[key]["caption"]
    finally:
        stop_view(proc)


def test_a_live_viewer_says_cameras_off_until_a_run_says_where_its_frames_are(
        servers, tmp_path, open_page):
    v = ViewerProcess(servers.corbaloc, tmp_path, name="OnlineViewerPictures")
    try:
        v.ref.load("robot", HUMANOID)
        assert get_json(v.url + "api/cameras")["stored"] is False
        page = open_page(v.url)
        page.wait_for("window.hrpsim.cameraLists > 0 && "
                      "window.hrpsim.cameraState()['robot/VISION_COLOR'].off")
        # `hrpsim run --view` with cameras on tells the viewer where it writes them
        req = urllib.request.Request(v.url + "api/cameras", method="POST",
                                     data=json.dumps({"dir": str(tmp_path)}).encode(),
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).close()
        assert get_json(v.url + "api/cameras") == {"cameras": [], "stored": True}
        page.wait_for("!window.hrpsim.cameraState()['robot/VISION_COLOR'].off", timeout=10)
        caption = page.evaluate("window.hrpsim.cameraState()['robot/VISION_COLOR'].caption")
        assert caption.endswith("no image yet"), caption
    finally:
        v.stop()


def test_a_mostly_black_camera_frame_says_why(upright_run, open_page):
    from PIL import Image
    color = upright_run / "cameras" / "robot-VISION_COLOR"
    img = np.asarray(Image.open(color / "frame_000000.png"))
    black = (img.sum(axis=2) == 0).mean()
    assert 0.5 < black < 1.0, black          # the floor's strip and the empty rest
    proc, url, _ = view_process(upright_run)
    try:
        assert get_json(url + "api/cameras")["stored"] is True
        page = open_page(url)
        page.wait_for("window.hrpsim.cameraState()['robot/VISION_COLOR'].shown === 0")
        state = page.evaluate("window.hrpsim.cameraState()['robot/VISION_COLOR']")
        assert state["off"] is False
        assert state["black"] == pytest.approx(black, abs=1e-9)
        assert "black: nothing in view (OpenHRP's background)" in state["caption"], state
    finally:
        stop_view(proc)


def test_the_summary_breaks_no_label_or_word(room_run, open_page):
    proc, url, _ = view_process(room_run)
    try:
        page = open_page(url)
        page.wait_for("document.querySelectorAll('#summary-table tr').length >= 8")
        labels = page.evaluate("[...document.querySelectorAll('#summary-table td:first-child')]"
                               ".map(td => td.textContent)")
        assert {"simulated", "wall time", "warnings"} <= set(labels), labels
        assert page.evaluate(BROKEN_WORDS) == []
        # the project's path is longer than its cell: it breaks, after a "/"
        project = page.evaluate("document.querySelector('#summary-table td:nth-child(2)')"
                                ".getClientRects().length")
        assert project >= 1
    finally:
        stop_view(proc)


def test_the_room_default_view_frames_the_robot(room_run, open_page):
    """The view aims at the robot where the project stands it (x = -2 m, y = -0.3 m), as the
    stills frame it, and every link of the robot is inside the 3-D view."""
    from hrpsim.viewer.replay import read_models
    robot = next(c for c in read_models(room_run) if c["name"] == "robot")
    links = [lk["name"] for lk in robot["body"]["links"]]
    root = np.load(room_run / "log.npz")["robot.root_p"][0]
    assert root[:2] == pytest.approx([-2.0, -0.3], abs=0.01)
    proc, url, _ = view_process(room_run)
    try:
        page = open_page(url)
        page.wait_for("window.hrpsim.frameCount > 0 && window.hrpsim.drawnTime === 0")
        page.wait_for("window.hrpsim.renders > 2")
        target = page.evaluate("window.hrpsim.cameraPose()")["target"]
        assert np.hypot(target[0] - root[0], target[1] - root[1]) < 0.3, (target, root)
        rect = page.evaluate("(() => { const r = document.querySelector('#view canvas')"
                             ".getBoundingClientRect(); return [r.left, r.top, r.right, "
                             "r.bottom]; })()")
        ys = []
        for name in links:
            x, y = page.evaluate("window.hrpsim.project(window.hrpsim.linkPosition('robot', "
                                 "%r))" % name)
            assert rect[0] < x < rect[2] and rect[1] < y < rect[3], (name, x, y, rect)
            ys.append(y)
        # framed on the robot: its links span much of the view's height
        assert max(ys) - min(ys) > 0.4 * (rect[3] - rect[1])
    finally:
        stop_view(proc)
