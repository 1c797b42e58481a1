"""The viewer with the rest of hrpsim: `hrpsim up --viewer`, `hrpsim run --view` (the Scheduler
pushing world states to the OnlineViewer at the view rate), the results directory's
models.json.gz, and `hrpsim view RESULTS` replaying it. What the page receives is checked
against the run's own log.npz (written from the Scheduler's getLog, not through the viewer)."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

from conftest import REPO_ROOT, cli_env, describe, require_build, run_cli, start_servers
from hrpsim import launcher
from hrpsim.viewer.replay import ReplaySource, read_models
from hrpsim.viewer.scene import Kinematics
from test_viewer import Page, robot_block

STANDING = "samples/projects/humanoid_standing.xml"


@pytest.fixture(scope="module")
def up_with_viewer(tmp_path_factory):
    """`hrpsim up --viewer` in a state dir of its own; `hrpsim down` afterwards."""
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    d = tmp_path_factory.mktemp("hrpsim-viewer-up")
    proc = start_servers(d, "--viewer")
    yield d, proc
    state = launcher.read_state(d)
    down = run_cli("down", "--state-dir", d)
    assert down.returncode == 0, describe(down)
    left = [r for r in (state or {}).get("processes", []) if launcher.is_ours(r)]
    assert not left, left


@pytest.fixture(scope="module")
def viewed_run(up_with_viewer, tmp_path_factory):
    """The standing humanoid run with --view, watched by a page from before the start."""
    d, _ = up_with_viewer
    url = launcher.read_state(d)["viewer_url"]
    page = Page(url)
    page.pump(lambda p: p.statuses)
    out = tmp_path_factory.mktemp("viewed") / "standing"
    # frames at the log's rate (100 per simulated second), paced to real time so that the page
    # gets nearly every log record: the scheduler never waits for the viewer, so a frame the
    # viewer has not taken yet is replaced by the next one (the first few, while the viewer
    # loads the models)
    proc = run_cli("run", "--state-dir", d, "--out", out, "--view", "--view-rate", "100",
                   "--real-time", "1", STANDING)
    assert proc.returncode == 0, describe(proc)
    log = np.load(out / "log.npz")
    end = float(log["time"][-1])
    page.pump(lambda p: p.status["layout"] and p.count() and
              abs(p.logged()[0][-1] - end) < 1e-9, timeout=30)
    yield out, proc, page, log, url
    page.close()


def test_up_prints_and_records_the_viewer_url(up_with_viewer):
    d, proc = up_with_viewer
    state = launcher.read_state(d)
    url = state["viewer_url"]
    assert url.startswith("http://127.0.0.1:") and url in proc.stdout
    rec = next(r for r in state["processes"] if r["name"] == "OnlineViewer")
    assert launcher.is_ours(rec)
    st = run_cli("status", "--state-dir", d)
    assert st.returncode == 0, describe(st)
    assert "viewer     %s" % url in st.stdout
    with urllib.request.urlopen(url + "api/status", timeout=10) as r:
        assert json.loads(r.read())["mode"] == "live"


def test_run_view_streams_the_log_records_to_the_page(viewed_run):
    out, proc, page, log, url = viewed_run
    assert "viewer at %s" % url in proc.stdout
    times, poses = page.logged()
    # frames at 100 Hz are the log's records: nearly all of them reach the page (a handful may
    # be replaced while the viewer loads the models), in order, ending with the last
    n = len(log["time"])
    assert n - 20 <= len(times) <= n, (len(times), n)
    rows = np.searchsorted(log["time"], times - 1e-9)
    assert np.allclose(times, log["time"][rows], rtol=0, atol=1e-12)
    assert np.all(np.diff(rows) > 0) and rows[-1] == n - 1
    assert [n for n, _ in page.status["layout"]] == ["floor", "robot"]
    block = robot_block(page, poses)
    # root positions and joint values as the Scheduler logged them (float32 on the wire)
    assert np.allclose(block[:, :3], log["robot.root_p"][rows], rtol=0, atol=2e-6)
    models = read_models(out)
    kin = Kinematics(models[1]["body"])
    q = kin.joint_values(block[:, 7:].astype(float))
    assert np.allclose(q, log["robot.q"][rows], rtol=0, atol=2e-6)
    # the floor never moves: its block is its initial pose in every frame
    assert np.allclose(poses[:, :3], 0.0) and np.allclose(poses[:, 3:7], [0, 0, 0, 1])


def test_results_record_the_models_and_the_replay_reproduces_the_link_positions(viewed_run):
    out, *_ = viewed_run
    summary = json.loads((out / "summary.json").read_text())
    models = read_models(out)
    assert [m["name"] for m in models] == [m["name"] for m in summary["models"]]
    assert models[1]["body"]["bodyName"] == "HRPSIM_HUMANOID"
    assert len(models[1]["body"]["links"]) == 31 and models[1]["body"]["shapes"]
    src = ReplaySource(out)
    log = np.load(out / "log.npz")
    assert src.status()["count"] == len(log["time"])
    # forward kinematics from the replay's root pose + joint values gives back the link
    # positions the dynamics logged (its own C kinematics): an independent check of the
    # joint order, axes and offsets the page uses
    kin = src.kin[1]
    rows = src.wait()[:, 8:8 + 7 + 31].astype(float)  # floor block is 7 + 1 wide
    from hrpsim.viewer.scene import quaternion_to_matrix
    P, _ = kin.forward(rows[:, :3], quaternion_to_matrix(rows[:, 3:7]), rows[:, 7:])
    err = np.abs(P - log["robot.link_p"]).max()
    assert err < 2e-6, err


def test_run_view_without_a_viewer_starts_one_for_the_run(servers, tmp_path):
    """No OnlineViewer bound: `run --view` starts one, prints its URL, and (not at a
    terminal) stops it when the run is over, unbinding its name."""
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    assert "OnlineViewer" not in servers.client.names()
    out = tmp_path / "standing"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--view",
                   "--real-time", "0", STANDING)
    assert proc.returncode == 0, describe(proc)
    line = next(ln for ln in proc.stdout.splitlines() if "viewer at http://127.0.0.1:" in ln)
    url = line.rsplit(" ", 1)[1]
    assert "OnlineViewer" not in servers.client.names()
    with pytest.raises(OSError):   # the page is gone with the viewer
        urllib.request.urlopen(url, timeout=5)
    # ... and the user was told so, both when the URL was printed and when the run ended,
    # with the command that replays the run
    lines = proc.stdout.splitlines()
    k = lines.index(line)
    assert "this viewer stops when the run ends" in lines[k + 1]
    assert ("hrpsim run: the run has ended and its viewer stops now; replay it with: "
            "hrpsim view %s" % out) in lines
    assert "bound OnlineViewer" in (out / "viewer.log").read_text()
    assert read_models(out) is not None


def view_process(*args, cwd=REPO_ROOT):
    proc = subprocess.Popen([sys.executable, "-m", "hrpsim.cli", "view", *map(str, args)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=cli_env(), cwd=str(cwd))
    line = proc.stdout.readline()
    if " at http" not in line:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError("hrpsim view did not start: %s%s%s" % (line, out, err))
    return proc, line.rsplit(" at ", 1)[1].strip(), line


def stop_view(proc):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0
    proc.stdout.close()
    proc.stderr.close()


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def test_view_serves_the_replay_with_summary_plots_and_series(viewed_run):
    out, *_ = viewed_run
    log = np.load(out / "log.npz")
    proc, url, _ = view_process(out)
    try:
        st = json.loads(get(url + "api/status"))
        assert st["mode"] == "replay" and st["count"] == len(log["time"])
        assert "force" in st["series"]["robot"] and "q" in st["series"]["robot"]
        summary = json.loads(get(url + "api/summary"))
        assert summary["steps"] == 3000
        for name in summary["plots"]:
            assert get(url + "api/files/" + name)[:8] == b"\x89PNG\r\n\x1a\n"
        for bad in ("summary.json", "log.npz", "..%2Fsummary.json", "nothing.png"):
            with pytest.raises(urllib.error.HTTPError) as e:
                get(url + "api/files/" + bad)
            assert e.value.code == 404
        series = json.loads(get(url + "api/series?character=robot&key=force"))
        import base64
        data = np.frombuffer(base64.b64decode(series["data"]), "<f4")
        force = log["robot.force"].reshape(len(log["time"]), -1)
        assert len(series["labels"]) == force.shape[1]
        assert np.allclose(data.reshape(force.shape), force, rtol=1e-6, atol=1e-4)
        page = Page(url)
        try:
            page.pump(lambda p: p.statuses and p.count() == len(log["time"]))
            times, poses = page.logged()
            assert np.array_equal(times, log["time"])
            assert np.allclose(robot_block(page, poses)[:, :3], log["robot.root_p"], atol=2e-6)
        finally:
            page.close()
    finally:
        stop_view(proc)


def test_view_without_argument_opens_the_newest_run(viewed_run, tmp_path):
    out, *_ = viewed_run
    import shutil
    base = tmp_path / "results"
    old, new = base / "standing-old", base / "standing-new"
    shutil.copytree(out, old)
    shutil.copytree(out, new)
    past = time.time() - 3600
    os.utime(old / "summary.json", (past, past))
    proc, url, line = view_process(cwd=tmp_path)
    try:
        assert str(new) in line
    finally:
        stop_view(proc)


def test_view_errors_are_one_line_and_exit_1(tmp_path):
    r = run_cli("view", tmp_path / "nothing")
    assert r.returncode == 1 and "not a results directory" in r.stderr, describe(r)
    r = subprocess.run([sys.executable, "-m", "hrpsim.cli", "view"], capture_output=True,
                       text=True, cwd=str(tmp_path), env=cli_env(), timeout=60)
    assert r.returncode == 1 and "no results directory" in r.stderr, describe(r)
