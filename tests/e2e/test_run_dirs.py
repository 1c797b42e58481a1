"""`hrpsim run` and `hrpsim up/down` and the directories they write.

- A Python controller that raises in control() fails the run with a message naming the
  controller, the exception's last line and the log holding its traceback; the summary
  (summary.json and summary.txt) marks that controller as failed.
- `--out`: a non-empty directory that is not a results directory is refused and left as it was;
  an earlier run's results directory is emptied before the new run writes into it.
- A project that fails before it runs (a joint-name typo, a broken model) leaves no results
  directory: the one made for it is removed; a directory that was there before is left empty
  (before: an empty directory holding only `.hrpsim-results` was left behind).
- A broken model says the same on `hrpsim run` and `hrpsim run --local`: "PROJECT:LINE: model
  NAME: FILE:LINE:COLUMN: problem" (before: --local left out the project's line and the
  column).
- `hrpsim down` after `hrpsim up --viewer` removes what describes the running set (viewer.url
  too), so the next `up` starts; a second `up` on a running viewer says "already running".
"""

import json
import re
import textwrap

import pytest

from conftest import REPO_ROOT, describe, require_build, run_cli

FLOOR = REPO_ROOT / "samples" / "models" / "floor" / "floor.wrl"
HUMANOID = REPO_ROOT / "samples" / "models" / "humanoid" / "humanoid.wrl"

RAISER = '''\
from hrpsim import OpenHRP
from hrpsim.controller import Controller, main


class Raiser(Controller):
    def control(self):
        if self.count == 5:  # a link the robot does not have: the server refuses
            self.dynamics.setCharacterLinkData(self.model_name, "NOSUCHLINK",
                                               OpenHRP.DynamicsSimulator.JOINT_VALUE, [0.1])


main(Raiser, "Raiser")
'''


def project(tmp_path, controller="", end="0.05"):
    path = tmp_path / "p.xml"
    path.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="0.001" endTime="%s"/>
          <model name="floor" url="%s"/>
          <model name="robot" url="%s"><joints mode="highgain"/></model>
          <collision object1="floor" object2="robot"/>
          %s
          <plots enabled="false"/>
          <cameras enabled="true"/>
        </hrpsim-project>
        """) % (end, FLOOR, HUMANOID, controller))
    return path


@pytest.fixture(scope="module")
def sched(servers):
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    assert servers.has("Scheduler")
    return servers


def run(servers, path, out):
    return run_cli("run", "--state-dir", servers.state_dir, "--out", out, "--quiet", path,
                   timeout=300)


def test_a_controller_that_raises_is_named_with_its_exception_and_log(sched, tmp_path):
    (tmp_path / "raiser.py").write_text(RAISER)
    path = project(tmp_path, '<controller name="Raiser" character="robot" '
                             'command="$(PYTHON) raiser.py"/>', end="0.5")
    out = tmp_path / "out"
    proc = run(sched, path, out)
    assert proc.returncode == 1, describe(proc)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("hrpsim run: ")][-1]
    log = out / "controller-Raiser.log"
    # the controller, the exception's last line (with the server's reason), the log file
    assert "controller Raiser failed at t = " in line, line
    # (tick() on hrpsim's one-call door, control() on OpenHRP's three calls)
    assert re.search(r"(tick|control)\(\) raised hrpsim\.errors\.BadArgument: "
                     r"setCharacterLinkData: character 'robot' has no link 'NOSUCHLINK'",
                     line), line
    assert str(log) in line, line
    assert "UNKNOWN_PythonException" not in line, line
    assert "Traceback (most recent call last)" in log.read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "FAILED"
    c = summary["controllers"][0]
    assert c["name"] == "Raiser" and c["failed"] is True, c
    assert c["process"]["ok"] is False, c
    assert "BadArgument" in c["process"]["result"], c
    text = (out / "summary.txt").read_text()
    ctl = [ln for ln in text.splitlines() if ln.startswith("controller  Raiser")]
    assert len(ctl) == 1 and "FAILED, " in ctl[0] and "ok, " not in ctl[0], text


def test_out_that_is_not_a_results_directory_is_refused(sched, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    proc = run(sched, project(tmp_path), out)
    assert proc.returncode == 1, describe(proc)
    assert "not an hrpsim results directory" in proc.stderr and "notes.txt" in proc.stderr, \
        describe(proc)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def typo_project(tmp_path):
    """A project whose joint name has a typo (refused while the Scheduler is configured)."""
    path = tmp_path / "typo.xml"
    path.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="0.001" endTime="0.05"/>
          <model name="robot" url="%s"><joint name="RLEG_KNEEE" mode="highgain"/></model>
        </hrpsim-project>
        """) % HUMANOID)
    return path


def test_a_project_that_fails_before_running_leaves_no_results_directory(sched, tmp_path):
    out = tmp_path / "results" / "typo"
    proc = run(sched, typo_project(tmp_path), out)
    assert proc.returncode == 1, describe(proc)
    assert "typo.xml:3:" in proc.stderr and "RLEG_KNEEE" in proc.stderr, describe(proc)
    assert not out.exists(), sorted(p.name for p in out.iterdir())
    # a directory given that was there already stays (empty), without the marker
    mine = tmp_path / "mine"
    mine.mkdir()
    proc = run(sched, typo_project(tmp_path), mine)
    assert proc.returncode == 1, describe(proc)
    assert mine.is_dir() and list(mine.iterdir()) == []
    # the default place (results/<project>-<time>) is not left behind either
    proc = run_cli("run", "--state-dir", sched.state_dir, "--quiet", typo_project(tmp_path),
                   timeout=300)
    assert proc.returncode == 1, describe(proc)
    assert not list((REPO_ROOT / "results").glob("typo-*")), describe(proc)


def test_a_broken_model_reads_the_same_with_and_without_local(sched, tmp_path):
    model = tmp_path / "broken.wrl"
    model.write_text("#VRML V2.0 utf8\nDEF X Humanoid {\n  name \"x\"\n}\n")
    path = tmp_path / "broken.xml"
    path.write_text('<hrpsim-project>\n  <simulation timeStep="0.001" endTime="0.01"/>\n'
                    '  <model name="x" url="%s"/>\n</hrpsim-project>\n' % model)
    want = "hrpsim run: %s:3: model x: %s:2:7: unknown node type 'Humanoid'\n" % (path, model)
    for local in ([], ["--local"]):
        out = tmp_path / ("out" + "".join(local))
        proc = run_cli("run", "--state-dir", sched.state_dir, "--out", out, "--quiet",
                       *local, path, timeout=300)
        assert proc.returncode == 1, describe(proc)
        assert proc.stderr == want, describe(proc)
        assert not out.exists()


def test_a_second_run_into_the_same_out_replaces_the_first(sched, tmp_path):
    out = tmp_path / "out"
    proc = run(sched, project(tmp_path), out)
    assert proc.returncode == 0, describe(proc)
    assert (out / ".hrpsim-results").is_file()
    camera = out / "cameras" / "robot-VISION_COLOR"  # the humanoid's camera, 30 frames/s
    frames = lambda: sorted(p.name for p in camera.glob("frame_*.png"))  # noqa: E731
    assert frames() == ["frame_000000.png", "frame_000001.png"]
    # and what an earlier run with a controller would have left
    (out / "controller-Old.log").write_text("old\n")
    first = json.loads((out / "summary.json").read_text())
    proc = run(sched, project(tmp_path, end="0.02"), out)
    assert proc.returncode == 0, describe(proc)
    assert frames() == ["frame_000000.png"]  # the first run's second frame is gone
    assert not (out / "controller-Old.log").exists()
    second = json.loads((out / "summary.json").read_text())
    assert (first["steps"], second["steps"]) == (50, 20)


def test_down_after_up_viewer_lets_the_next_up_start(built, state_dirs):
    d = state_dirs("viewer-down")
    up = run_cli("up", "--state-dir", d, "--only", "--viewer", timeout=120)
    assert up.returncode == 0, describe(up)
    try:
        assert (d / "viewer.url").is_file()
        again = run_cli("up", "--state-dir", d, "--only", "--viewer", timeout=120)
        assert again.returncode != 0, describe(again)
        assert "already running" in again.stderr, describe(again)
        assert "not an hrpsim state directory" not in again.stderr, describe(again)
    finally:
        down = run_cli("down", "--state-dir", d)
        assert down.returncode == 0, describe(down)
    assert sorted(p.name for p in d.iterdir()) == ["lock", "logs"]
    up = run_cli("up", "--state-dir", d, "--only", "--viewer", timeout=120)
    assert up.returncode == 0, describe(up)
    down = run_cli("down", "--state-dir", d)
    assert down.returncode == 0, describe(down)
