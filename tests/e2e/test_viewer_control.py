"""The live viewer's page acting on the run it shows, in a real browser (Debian's headless
Chromium over the DevTools protocol), against `hrpsim up --viewer` and `hrpsim run --view`:

- the run hands the viewer its Scheduler, and the page shows the run controls;
- "pause run" stops simulated time (the Scheduler's time and steps, and the frames the page
  gets, stand still over half a second of wall time), "step" advances the paused run by one
  viewer frame's steps (the time between the newest two frames over the time step) and the
  page gets that frame, "resume run" lets it go on;
- Ctrl + drag on the box (real mouse events at the box's place on screen) pushes it: the box
  slides the way the pointer went (a 5 kg box on a floor with friction 0.3 stays put
  otherwise), and the run's log.npz has the force, along the drag, in "box.push.LINK" for the
  records while the button was held (zeros before), and the summary names the link;
- after the run the controls go away (the viewer no longer holds a run).
"""

import json
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import REPO_ROOT, cli_env
from hrpsim import launcher
from hrpsim.viewer.browser import Browser
from test_viewer_run import up_with_viewer  # noqa: F401 - a fixture

READY = "window.hrpsim && window.hrpsim.ready"
CONTROL = "window.hrpsim.control"
DT = 0.001

PROJECT = """<?xml version="1.0" encoding="UTF-8"?>
<hrpsim-project version="1">
  <simulation timeStep="0.001" endTime="6" sensors="false"/>
  <plane name="floor"/>
  <box name="box" size="0.3 0.3 0.3" mass="5" translation="0 0 0.15"/>
  <collision object1="floor" object2="box" staticFriction="0.3" slipFriction="0.3"/>
  <log period="0.01"/>
</hrpsim-project>
"""


@pytest.fixture(scope="module")
def page(up_with_viewer):
    if not (REPO_ROOT / "web" / "dist" / "viewer.js").exists():
        pytest.fail("the viewer's page is not built (web/dist/viewer.js): run tools/bootstrap.sh",
                    pytrace=False)
    d, _ = up_with_viewer
    with Browser(width=900, height=600) as b:
        p = b.new_page()
        p.bring_to_front()
        p.navigate(launcher.read_state(d)["viewer_url"])
        p.wait_for(READY)
        yield p
        errors = list(p.errors)
        p.close()
        assert not errors, "JavaScript errors in the page: %s" % errors


def control(page):
    return page.evaluate(CONTROL)


def ask_state(page):
    """The run's state, time and steps as the Scheduler answers now."""
    n = answered(page, "state")
    page.evaluate("window.hrpsim.controlRequest('state')")
    page.wait_for("(%s.answered.state || 0) > %d" % (CONTROL, n), timeout=10)
    return control(page)


def answered(page, op):
    return control(page)["answered"].get(op, 0)


def click(page, element_id, op):
    """Click a control button that sends op; the run's state once it is answered (the page
    polls the state meanwhile: the state read may be a poll's, made after op)."""
    n = answered(page, op)
    page.evaluate("document.getElementById(%s).click()" % json.dumps(element_id))
    page.wait_for("(%s.answered[%s] || 0) > %d" % (CONTROL, json.dumps(op), n), timeout=20)
    c = control(page)
    assert c["lastError"] is None, c
    return c


def mouse(page, kind, x, y, buttons=1):
    page.call("Input.dispatchMouseEvent", type=kind, x=float(x), y=float(y), button="left",
              buttons=buttons, clickCount=1, modifiers=2)  # 2: Ctrl held


def test_the_page_pauses_steps_resumes_and_pushes_the_run(up_with_viewer, page, tmp_path):
    d, _ = up_with_viewer
    project = tmp_path / "push.xml"
    project.write_text(PROJECT)
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "hrpsim.cli", "run", "--state-dir", str(d),
                             "--out", str(out), "--view", "--real-time", "1", "--no-plots",
                             str(project)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=cli_env(), cwd=str(REPO_ROOT))
    try:
        # the run hands the viewer its Scheduler: the controls appear, the run is RUNNING
        page.wait_for("%s.available && %s.state === 'RUNNING' && window.hrpsim.frameCount > 3"
                      % (CONTROL, CONTROL), timeout=60)
        assert not page.evaluate("document.getElementById('run-control').hidden")

        # pause: simulated time and the frames stand still
        paused = click(page, "run-pause", "pause")
        assert paused["state"] == "PAUSED"
        # the page gets the state the run paused at (also between two frames of the view rate)
        page.wait_for("window.hrpsim.lastFrameTime === %r" % paused["time"], timeout=10)
        frames = page.evaluate("window.hrpsim.frameCount")
        time.sleep(0.5)
        still = ask_state(page)
        assert (still["state"], still["time"], still["steps"]) == \
            ("PAUSED", paused["time"], paused["steps"])
        assert page.evaluate("window.hrpsim.frameCount") == frames
        assert proc.poll() is None

        # step: one viewer frame's steps, and the page gets that frame
        frame_s = page.evaluate("window.hrpsim.frameSeconds")
        assert frame_s == pytest.approx(1 / 30, abs=1.5 * DT)  # the default view rate
        stepped = click(page, "run-step", "step")
        assert stepped["state"] == "PAUSED"
        assert stepped["steps"] - still["steps"] == round(frame_s / DT)
        assert stepped["time"] == pytest.approx(still["time"] + frame_s, abs=1e-9)
        page.wait_for("window.hrpsim.lastFrameTime >= %r" % (stepped["time"] - 1e-9), timeout=10)

        # resume: time goes on
        resumed = click(page, "run-pause", "resume")
        assert resumed["state"] == "RUNNING"
        page.wait_for("window.hrpsim.lastFrameTime > %r" % (stepped["time"] + 0.1), timeout=10)

        # push: Ctrl + drag the box 160 px to the right on screen, hold it 1 s, let go
        page.evaluate("window.hrpsim.goLive()")
        box0 = np.array(page.evaluate("window.hrpsim.linkPosition('box', %s)"
                                      % json.dumps(box_link(page))))
        x, y = page.evaluate("window.hrpsim.project(%s)" % json.dumps(list(box0)))
        cam = page.evaluate("window.hrpsim.cameraPose()")
        look = np.array(cam["target"]) - np.array(cam["position"])
        right = np.cross(look, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        mouse(page, "mousePressed", x, y)
        page.wait_for("%s.grabbing" % CONTROL, timeout=5)
        for k in range(1, 9):
            mouse(page, "mouseMoved", x + 20 * k, y)
            time.sleep(0.02)
        page.wait_for("%s.pushesSent > 5" % CONTROL, timeout=5)
        time.sleep(1.0)
        mouse(page, "mouseReleased", x + 160, y, buttons=0)
        page.wait_for("!%s.grabbing" % CONTROL, timeout=5)
        time.sleep(0.3)
        box1 = np.array(page.evaluate("window.hrpsim.linkPosition('box', %s)"
                                      % json.dumps(box_link(page))))
        moved = box1 - box0
        assert moved @ right > 0.05, (moved, right)           # it slid the way of the drag
        assert abs(moved[2]) < 0.01, moved                     # along the floor

        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stdout + stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    # the log has the force of every record of the push, along the drag; zeros before it
    log = np.load(out / "log.npz")
    key = "box.push.%s" % box_link(page)
    assert key in log.files, log.files
    f = log[key]
    held = np.flatnonzero(np.abs(f).sum(axis=1) > 0)
    # from the press (the target on the box: ~0 N) to the release: about 1.2 s of 0.01 s
    # records (1.6 s on a loaded machine)
    assert 1.0 / 0.01 < len(held) < 3.0 / 0.01, len(held)
    assert np.all(np.diff(held) == 1)                        # one push, held throughout
    assert held[0] > 0 and not f[:held[0]].any() and not f[held[-1] + 1:].any()
    pulling = held[np.linalg.norm(f[held, :3], axis=1) > 1.0]
    force = f[pulling, :3]
    cos = force @ right / np.linalg.norm(force, axis=1)
    # the pull starts about along the drag (the grabbed point is on the box's face: the box
    # turns and tips a little as it starts), then follows that point as the box carries it,
    # its damping pulling back as the box nears the pointer
    assert len(pulling) > 50 and cos[:10].min() > 0.6, cos
    assert force.sum(axis=0) @ right > 0.9 * np.linalg.norm(force.sum(axis=0)), cos
    assert np.linalg.norm(force, axis=1).max() <= 5 * 9.8 * 5 + 1e-9  # at most 5 x its weight
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pushes"] == [key]
    # the run is over: the viewer holds no run, and the controls go away
    page.wait_for("!%s.available" % CONTROL, timeout=10)
    assert page.evaluate("document.getElementById('run-control').hidden")


def box_link(page):
    return page.evaluate("window.hrpsim.linkNames('box')[0]")
