"""`hrpsim run --local` is a full run: the results directory a server run writes.

- The sample GrxUI project run with and without --local: the same files (log.npz, models.json.gz,
  summary.json, summary.txt, the plots, the stills), summary.json of one schema whose run
  facts agree (status, steps, time, records, models, warnings with file:line, plots, stills),
  log.npz bit for bit, models.json.gz the same body descriptions (textures included).
- Camera frames when the project asks (`<cameras enabled="true"/>`): the same frames.csv and
  the same frame files as the Scheduler stores (before: ignored without a word).
- `--out`: a non-empty directory that is not a results directory is refused and left as it was;
  an earlier run's results directory is emptied first (before: --local wrote into both).
- A Python controller that raises, or whose module has a syntax error, fails the run as on the
  server path: one line naming the controller, the time, the exception's last line and where,
  no traceback; summary FAILED with that controller marked; the results up to then written
  (before: a raw traceback and no results).
- A controller given only as a command is refused with the reason (no ORB, no naming service).
- A runaway step fails the run in the Scheduler's words ("stepSimulation failed at t = ...").
- `--real-time 1` paces the run to the wall clock.
- The models' load warnings (file:line) are printed once and kept in the summary by both paths.
- The body descriptions read in process (hs_loadBodyWithImages) are the ModelLoader's with
  images, field for field (a textured room, the humanoid, a URDF with meshes).
"""

import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO_ROOT, cli_env, describe, require_build

FLOOR = REPO_ROOT / "samples" / "models" / "floor" / "floor.wrl"
HUMANOID = REPO_ROOT / "samples" / "models" / "humanoid" / "humanoid.wrl"
GRXUI = REPO_ROOT / "samples" / "projects" / "grxui_humanoid.xml"

# summary.json facts of a run that do not depend on the back end
SAME = ("project", "format", "status", "message", "models", "time_step", "end_time", "steps",
        "simulated_time", "records", "log_period", "warnings", "plots", "stills", "cameras",
        "camera_previews")


def run_local(path, out, *extra):
    """`hrpsim run --local` with no servers reachable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HRPSIM_NAMING")}
    env["HRPSIM_STATE_DIR"] = str(Path(out).parent / "no-servers")
    return subprocess.run([sys.executable, "-m", "hrpsim", "run", "--local", *extra,
                           "--out", str(out), str(path)], capture_output=True, text=True,
                          timeout=600, env=env, stdin=subprocess.DEVNULL)


def run_served(servers, path, out, *extra):
    return subprocess.run([sys.executable, "-m", "hrpsim.cli", "run", "--state-dir",
                           str(servers.state_dir), *extra, "--out", str(out), str(path)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=600, env=cli_env())


def files(out):
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def models(out):
    with gzip.open(out / "models.json.gz", "rt") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def sched(servers):
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    return servers


def assert_same_results(local, served):
    """The two results directories hold the same files and agree on what they record."""
    assert files(local) == files(served)
    a = json.loads((local / "summary.json").read_text())
    b = json.loads((served / "summary.json").read_text())
    assert sorted(a) == sorted(b)
    for key in SAME:
        assert a[key] == b[key], key
    assert (a["backend"], b["backend"]) == ("local", "server")
    assert a["scheduler_status"] is None and a["naming"] is None
    # the local run knows its engine; the Scheduler says the served run's
    assert a["engine"] == b["engine"] == "joint_space"
    assert a["wall_time"] > 0 and a["real_time_factor"] == pytest.approx(
        a["simulated_time"] / a["wall_time"], rel=1e-12)
    la, lb = np.load(local / "log.npz"), np.load(served / "log.npz")
    assert sorted(la.files) == sorted(lb.files)
    for key in la.files:
        assert la[key].dtype == lb[key].dtype, key
        assert la[key].tobytes() == lb[key].tobytes(), key
    assert models(local) == models(served)
    # summary.txt: the same lines but the wall-clock ones and where the run ran
    skip = ("project ", "wall time", "real time", "controller")
    ta = [ln for ln in (local / "summary.txt").read_text().splitlines()
          if not ln.startswith(skip)]
    tb = [ln for ln in (served / "summary.txt").read_text().splitlines()
          if not ln.startswith(skip)]
    assert ta == tb
    return a


def test_the_grxui_sample_writes_the_same_results_directory(sched, tmp_path):
    local, served = tmp_path / "local", tmp_path / "served"
    proc = run_local(GRXUI, local)
    assert proc.returncode == 0, describe(proc)
    proc = run_served(sched, GRXUI, served)
    assert proc.returncode == 0, describe(proc)
    summary = assert_same_results(local, served)
    assert summary["records"] == 2001 and summary["status"] == "FINISHED"
    assert {"log.npz", "models.json.gz", "summary.json", "summary.txt", "root.png",
            "joints.png"} <= set(files(local))
    assert len(summary["stills"]) >= 2 and all((local / s["file"]).is_file()
                                               for s in summary["stills"])
    # GrxUI's view items are kept as warnings naming the project's line
    assert summary["warnings"] and all(w.startswith("%s:" % GRXUI) and
                                       w.split(":")[1].isdigit() for w in summary["warnings"])
    text = (local / "summary.txt").read_text()
    assert "warnings    %d" % len(summary["warnings"]) in text


def test_the_noise_a_urdf_declares_is_applied_by_both_paths(sched, tmp_path):
    """sensor_bot's project has no <noise>: both paths apply the noise its URDF declares
    (the lidar's 0.01 m, the IMU gyro's 0.002 rad/s), with the same draws; --local used to
    apply none, so its scans were exact and its log differed from the server run's."""
    project = GRXUI.parent / "sensor_bot.xml"
    local, served = tmp_path / "local", tmp_path / "served"
    proc = run_local(project, local)
    assert proc.returncode == 0, describe(proc)
    proc = run_served(sched, project, served)
    assert proc.returncode == 0, describe(proc)
    assert_same_results(local, served)
    scans = np.load(local / "log.npz")["bot.range0"]
    # the wall is still: without noise every record's beam reads the same distance
    assert 0.005 < np.std(scans[:, scans.shape[1] // 2]) < 0.02


def test_the_models_warnings_are_printed_once_and_kept_by_both_paths(sched, tmp_path):
    """quadruped_stand's MJCF model loads with two quirks (a <jointpos> sensor without an
    OpenHRP counterpart, line 107; joint damping hrpsim does not simulate, line 39): both
    paths print each once as a run warning and keep it in the summary, with the model file's
    line (before: the local core printed them at every load of the model, three times, and
    neither summary kept them; the server path printed none)."""
    project = GRXUI.parent / "quadruped_stand.xml"
    model = REPO_ROOT / "samples" / "models" / "mjcf" / "quadruped" / "quadruped.xml"
    local, served = tmp_path / "local", tmp_path / "served"
    procs = [run_local(project, local, "--no-cameras"),
             run_served(sched, project, served, "--no-cameras")]
    for proc in procs:
        assert proc.returncode == 0, describe(proc)
    summary = json.loads((local / "summary.json").read_text())
    assert summary["warnings"] == json.loads((served / "summary.json").read_text())["warnings"]
    sensor = "%s:107: <jointpos> sensor" % model
    assert [w for w in summary["warnings"] if w.startswith(sensor)], summary["warnings"]
    assert [w for w in summary["warnings"] if w.startswith("%s:39: joint 'fl_abd'" % model)]
    for proc in procs:
        lines = [ln for ln in proc.stderr.splitlines() if sensor in ln]
        assert lines == [ln for ln in lines if ln.startswith("hrpsim run: warning: ")]
        assert len(lines) == 1, proc.stderr


def camera_project(tmp_path):
    path = tmp_path / "cams.xml"
    path.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="0.001" endTime="0.1"/>
          <model name="floor" url="%s"/>
          <model name="robot" url="%s"><joints mode="highgain"/></model>
          <collision object1="floor" object2="robot"/>
          <log period="0.01"/>
          <plots enabled="false"/>
          <cameras enabled="true"/>
        </hrpsim-project>
        """) % (FLOOR, HUMANOID))
    return path


def test_camera_frames_are_stored_as_the_scheduler_stores_them(sched, tmp_path):
    path = camera_project(tmp_path)
    local, served = tmp_path / "local", tmp_path / "served"
    proc = run_local(path, local)
    assert proc.returncode == 0, describe(proc)
    proc = run_served(sched, path, served)
    assert proc.returncode == 0, describe(proc)
    assert_same_results(local, served)
    from PIL import Image
    for cam in ("robot-VISION_COLOR", "robot-VISION_DEPTH"):
        rows = (local / "cameras" / cam / "frames.csv").read_text()
        assert rows == (served / "cameras" / cam / "frames.csv").read_text()
        assert len(rows.splitlines()) > 2, rows
    # the head's colour and depth frames, pixel for pixel
    for name in ("robot-VISION_COLOR/frame_000000.png", "robot-VISION_DEPTH/depth_000000.png"):
        a = np.asarray(Image.open(local / "cameras" / name))
        b = np.asarray(Image.open(served / "cameras" / name))
        assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_textured_camera_frames_are_the_schedulers(sched, tmp_path):
    """The humanoid facing the sample room's checker poster: the frames of `hrpsim run
    --local` and of the scheduler (which asks the ModelLoader for the bodies with their texture
    images) are the same pictures, pixel for pixel, and the poster's checker is in them."""
    path = tmp_path / "room.xml"
    path.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="0.001" endTime="0.02"/>
          <model name="room" url="%s"/>
          <model name="robot" url="%s">
            <rootPose translation="-1.5 0.5 0.8" rotation="0 0 1 1.5707963267948966"/>
            <joints mode="highgain"/>
          </model>
          <log period="0.01"/>
          <plots enabled="false"/>
          <cameras enabled="true"/>
        </hrpsim-project>
        """) % (REPO_ROOT / "samples" / "models" / "env" / "room.wrl", HUMANOID))
    local, served = tmp_path / "local", tmp_path / "served"
    proc = run_local(path, local)
    assert proc.returncode == 0, describe(proc)
    proc = run_served(sched, path, served)
    assert proc.returncode == 0, describe(proc)
    from PIL import Image
    name = "robot-VISION_COLOR/frame_000000.png"
    a = np.asarray(Image.open(local / "cameras" / name))
    b = np.asarray(Image.open(served / "cameras" / name))
    assert a.dtype == b.dtype and np.array_equal(a, b)
    # the poster's checker (2 m ahead): its dark squares (texel (70, 80, 95), lit) fill about
    # 8,000 pixels; the poster drawn without its texture is white, as the wall behind it
    dark = (a.astype(int).sum(axis=2) < 500).sum()
    assert dark > 4000, dark


def small_project(tmp_path, controller="", end="0.05"):
    path = tmp_path / "p.xml"
    path.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="0.001" endTime="%s"/>
          <model name="floor" url="%s"/>
          <model name="robot" url="%s"><joints mode="highgain"/></model>
          <collision object1="floor" object2="robot"/>
          %s
          <plots enabled="false"/>
        </hrpsim-project>
        """) % (end, FLOOR, HUMANOID, controller))
    return path


def test_out_that_is_not_a_results_directory_is_refused(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    proc = run_local(small_project(tmp_path), out)
    assert proc.returncode == 1, describe(proc)
    assert "not an hrpsim results directory" in proc.stderr and "notes.txt" in proc.stderr, \
        describe(proc)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_an_earlier_runs_directory_is_replaced_not_mixed(tmp_path):
    out = tmp_path / "out"
    proc = run_local(small_project(tmp_path), out)
    assert proc.returncode == 0, describe(proc)
    (out / "joints.png").write_text("a plot of the earlier run\n")
    (out / "cameras" / "robot-OLD").mkdir(parents=True)
    proc = run_local(small_project(tmp_path, end="0.02"), out)
    assert proc.returncode == 0, describe(proc)
    assert not (out / "joints.png").exists() and not (out / "cameras").exists()
    assert json.loads((out / "summary.json").read_text())["records"] == 21


RAISER = '''\
from hrpsim.controller import Controller


class Raiser(Controller):
    def control(self):
        if self.count == 5:
            raise ValueError("boom at count %d" % self.count)
'''


def test_a_controller_that_raises_fails_the_run_with_partial_results(tmp_path):
    ctl = tmp_path / "raiser.py"
    ctl.write_text(RAISER)
    path = small_project(tmp_path, '<controller name="Raiser" character="robot" '
                                   'python="raiser.py:Raiser"/>', end="0.5")
    out = tmp_path / "out"
    proc = run_local(path, out)
    assert proc.returncode == 1, describe(proc)
    assert "Traceback" not in proc.stderr, describe(proc)
    line = proc.stderr.strip().splitlines()[-1]
    assert line == ("hrpsim run: run failed: controller Raiser failed at t = 0.005 s: in "
                    "control(): ValueError: boom at count 5 (%s:7) (partial results in %s)"
                    % (ctl, out)), line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "FAILED" and "boom at count 5" in summary["message"]
    assert summary["controllers"][0]["failed"] is True
    # the records up to the failure: t = 0 and the five steps before the failing tick
    log = np.load(out / "log.npz")
    assert np.allclose(log["time"], np.arange(6) * 0.001, rtol=0, atol=1e-12)
    assert summary["steps"] == 5 and summary["records"] == 6
    text = (out / "summary.txt").read_text()
    assert "controller  Raiser (robot, every 0.001 s): FAILED, in process" in text, text
    assert (out / "models.json.gz").is_file()


def test_a_controller_with_a_syntax_error_fails_the_run_at_its_start(tmp_path):
    ctl = tmp_path / "bad.py"
    ctl.write_text("from hrpsim.controller import Controller\n\n\n"
                   "class Bad(Controller):\n    def control(self:\n        pass\n")
    path = small_project(tmp_path, '<controller name="Bad" character="robot" '
                                   'python="bad.py:Bad"/>')
    out = tmp_path / "out"
    proc = run_local(path, out)
    assert proc.returncode == 1, describe(proc)
    assert "Traceback" not in proc.stderr, describe(proc)
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("hrpsim run: run failed: controller Bad failed at t = 0 s: in "
                           "import(): SyntaxError: "), line
    assert "(%s:5)" % ctl in line and line.endswith("(partial results in %s)" % out), line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "FAILED" and summary["records"] == 1
    assert summary["controllers"][0]["failed"] is True


def test_a_command_controller_is_refused_with_the_reason(tmp_path):
    out = tmp_path / "out"
    path = small_project(tmp_path, '<controller name="PD" character="robot" '
                                   'command="python3 nothing.py"/>')
    proc = run_local(path, out)
    assert proc.returncode == 1, describe(proc)
    assert "controller PD is an external command" in proc.stderr
    assert "no ORB or naming service" in proc.stderr and "python=" in proc.stderr
    assert not out.exists()


def test_the_quiet_flag_and_the_results_line(tmp_path):
    out = tmp_path / "out"
    proc = run_local(small_project(tmp_path), out, "--quiet")
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout == "hrpsim run: results in %s\n" % out
    # nor a warning of the core's own: quadruped_stand's massless abduction links are bounded
    # at the start (before, printed even with --quiet)
    quad = run_local(GRXUI.parent / "quadruped_stand.xml", tmp_path / "quad", "--quiet",
                     "--no-cameras", "--no-plots")
    assert quad.returncode == 0, describe(quad)
    assert quad.stderr == "" and quad.stdout == "hrpsim run: results in %s\n" % (tmp_path / "quad")
    # without --quiet the statistics line of a server run, said to be in process
    proc = run_local(small_project(tmp_path), out)
    assert proc.stdout.startswith("hrpsim run: 50 steps, 0.050 s simulated in "), proc.stdout
    assert "real time), in process" in proc.stdout


@pytest.mark.parametrize("model", ["env/room.wrl", "humanoid/humanoid.wrl",
                                   "urdf/sensor_bot/sensor_bot.urdf"])
def test_a_models_description_in_process_is_the_model_loaders(sched, model):
    """models.json.gz's body description read in process (hs_loadBodyWithImages) equals the
    ModelLoader's getBodyInfoEx with images, field for field: the room's texture pixels, the
    humanoid's sensors and shapes, a URDF's meshes."""
    from hrpsim.local import describe_body
    from hrpsim.viewer.server import describe_url
    path = REPO_ROOT / "samples" / "models" / model
    if not path.exists():
        pytest.fail("no sample model %s" % path)
    local = describe_body(str(path))
    served = describe_url(sched.client.model_loader(), str(path))
    assert local == served
    if model == "env/room.wrl":
        assert local["textures"] and all(t["image"] for t in local["textures"])


PUSH = '''\
from hrpsim import OpenHRP
from hrpsim.controller import Controller


class Push(Controller):
    def output(self):
        self.command(OpenHRP.DynamicsSimulator.JOINT_TORQUE, [1e11])
'''


def test_a_runaway_fails_the_run_as_the_scheduler_says_it(tmp_path):
    """A pendulum pushed with 1e11 N m after the first step runs away in the second (see
    test_runaway.py): the run fails with the Scheduler's words for it, results written."""
    from test_runaway import PENDULUM
    (tmp_path / "pendulum.wrl").write_text(PENDULUM)
    (tmp_path / "push.py").write_text(PUSH)
    path = tmp_path / "runaway.xml"
    path.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="0.001" endTime="0.01"/>
          <model name="pendulum" url="pendulum.wrl"><joints mode="torque"/></model>
          <controller name="Push" character="pendulum" python="push.py:Push"/>
          <plots enabled="false"/>
        </hrpsim-project>
        """))
    out = tmp_path / "out"
    proc = run_local(path, out)
    assert proc.returncode == 1, describe(proc)
    assert "Traceback" not in proc.stderr, describe(proc)
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("hrpsim run: run failed: stepSimulation failed at t = 0.001 s: "), line
    assert "character pendulum ran away" in line and "(partial results in %s)" % out in line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "FAILED" and summary["controllers"][0]["failed"] is False


def test_real_time_paces_the_run(tmp_path):
    """--real-time 1 holds a 0.3 s run to at least 0.3 s of wall time (unpaced it takes a
    fraction of that: humanoid_standing steps faster than real time several times over)."""
    out = tmp_path / "out"
    proc = run_local(small_project(tmp_path, end="0.3"), out, "--real-time", "1")
    assert proc.returncode == 0, describe(proc)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["wall_time"] >= 0.3 and summary["real_time_factor"] <= 1.0, summary
