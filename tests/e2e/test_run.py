"""`hrpsim run` end to end: the sample projects run through the real Scheduler (with the Python
PD controller started from the project's command line), write their results directory, and
fail with one line naming the reason (project file:line and field, or the controller)."""

import json
import shutil
import textwrap

import numpy as np
import pytest

from conftest import REPO_ROOT, cli_env, describe, require_build, run_cli

SQUAT = "samples/projects/humanoid_squat.xml"
STANDING = "samples/projects/humanoid_standing.xml"
GRXUI = "samples/projects/grxui_humanoid.xml"
Z0 = 0.80804  # waist height of the bent-knee pose


@pytest.fixture(scope="module")
def sched_servers(servers):
    """The session's servers; they must include the Scheduler."""
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    assert servers.has("Scheduler"), "hrpsim up did not start the Scheduler"
    return servers


def run(servers, project, out, *extra, env=None):
    return run_cli("run", "--state-dir", servers.state_dir, "--out", out, *extra, project,
                   env=env)


def one_line_error(proc):
    assert proc.returncode != 0, describe(proc)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, describe(proc)
    assert lines[0].startswith("hrpsim run: "), describe(proc)
    return lines[0]


def check_results_dir(out, plots=True):
    names = {p.name for p in out.iterdir()}
    assert {"log.npz", "summary.json", "summary.txt"} <= names, names
    if plots:
        assert {"root.png", "joints.png"} <= names, names
        for png in ("root.png", "joints.png"):
            assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((out / "summary.json").read_text())
    return np.load(out / "log.npz"), summary


def test_squat_stands_dips_and_rises(sched_servers, tmp_path):
    out = tmp_path / "squat"
    proc = run(sched_servers, SQUAT, out)
    assert proc.returncode == 0, describe(proc)
    assert "results in %s" % out in proc.stdout
    log, summary = check_results_dir(out)
    assert (out / "controller-PDController.log").exists()

    t = log["time"]
    assert len(t) == 1001  # a record at 0 and every 5 ms to 5 s
    assert t[0] == 0.0 and t[-1] == pytest.approx(5.0)
    assert log["robot.root_p"].shape == (1001, 3)
    assert log["robot.root_R"].shape == (1001, 3, 3)
    assert log["robot.link_p"].shape == (1001, 31, 3)
    for key in ("q", "dq", "u"):
        assert log["robot." + key].shape == (1001, 30)
    assert log["robot.force"].shape == (1001, 4, 6)
    assert log["robot.rate_gyro"].shape == (1001, 1, 3)
    assert log["robot.accel"].shape == (1001, 1, 3)
    assert list(log["robot.joint_names"][:4]) == ["RLEG_HIP_Y", "RLEG_HIP_R", "RLEG_HIP_P",
                                                 "RLEG_KNEE"]
    assert log["floor.root_p"].shape == (1001, 3)

    z = log["robot.root_p"][:, 2]
    standing = t <= 1.0
    assert np.all(np.abs(z[standing] - Z0) < 0.01), z[standing].min()
    deep = (t >= 2.5) & (t <= 3.0)
    assert np.all(z[deep] < Z0 - 0.07), z[deep].max()   # the squat goes ~9 cm down
    assert abs(z[-1] - Z0) < 0.01                        # and back up
    assert np.all(np.abs(log["robot.root_p"][:, :2]) < 0.05)  # in place
    knee = list(log["robot.joint_names"]).index("RLEG_KNEE")
    assert log["robot.q"][deep, knee].min() > 1.0        # knees bent to ~1.2 rad
    # joints.png: the legs' mirrored curves coincide; each side has a style of its own
    from hrpsim.results import joints_figure
    import matplotlib
    matplotlib.use("Agg")
    lines = {ln.get_label(): ln for ln in joints_figure(dict(log), ["robot"]).axes[0].get_lines()}
    for joint in ("HIP_P", "KNEE", "ANKLE_P"):
        right, left = lines["RLEG_" + joint], lines["LLEG_" + joint]
        assert np.allclose(right.get_ydata(), left.get_ydata(), atol=0.02)
        assert right.get_color() == left.get_color()
        assert right.get_linestyle() != left.get_linestyle()
    # the soles carry the robot while it stands: the contact forces on the floor sum to its
    # weight (the ModelLoader's link masses), downwards
    mass = sum(lk.mass for lk in sched_servers.client.load_body(
        REPO_ROOT / "samples" / "models" / "humanoid" / "humanoid.wrl").links)
    assert set(map(tuple, log["contacts.pairs"][:, [0, 2]])) == {("floor", "robot")}
    fz = log["contacts.pair_force"][(t >= 0.5) & (t <= 1.0), :, 2].sum(axis=1)
    assert fz.mean() == pytest.approx(-9.8 * mass, rel=0.02), (fz.mean(), mass)

    assert summary["status"] == "FINISHED"
    assert summary["scheduler_status"] == "FINISHED"
    # servers of a naming service: the Scheduler says which engine stepped (the core's
    # default here; before, the summary said only "the servers' default")
    assert summary["engine"] == "joint_space"
    # the PD controller was stopped with SIGTERM after the run and exited cleanly (it used to
    # abort in omniORB's shutdown: SIGABRT, "FATAL: exception not rethrown")
    proc_info = summary["controllers"][0]["process"]
    assert proc_info["ended"] == "stopped" and proc_info["exit_status"] == 0, proc_info
    assert proc_info["signal"] is None and proc_info["ok"] is True, proc_info
    assert "controller  PDController (robot, every 0.001 s): ok, exit status 0 when stopped" \
        in (out / "summary.txt").read_text()
    assert summary["steps"] == 5000
    assert summary["simulated_time"] == pytest.approx(5.0)
    assert summary["records"] == 1001
    assert summary["real_time_factor"] > 0
    assert [m["name"] for m in summary["models"]] == ["floor", "robot"]
    assert summary["warnings"] == []
    text = (out / "summary.txt").read_text()
    assert "steps       5000" in text and "warnings    none" in text
    assert "engine      joint_space" in text


def test_squat_on_the_ode_engine_stands_dips_and_rises(built, tmp_path):
    """The squat project with engine="ode" (the default is the joint-space engine, above), in
    process: the waist stands at Z0, goes ~9 cm down and comes back up, on ODE too."""
    samples = REPO_ROOT / "samples"
    text = (REPO_ROOT / SQUAT).read_text()
    text = text.replace("$(PROJECT_DIR)/../", "%s/" % samples).replace('"../', '"%s/' % samples)
    text = text.replace("<simulation ", '<simulation engine="ode" ', 1)
    project = tmp_path / "squat_ode.xml"
    project.write_text(text)
    out = tmp_path / "out"
    proc = run_cli("run", "--local", "--out", out, "--quiet", "--no-plots", project)
    assert proc.returncode == 0, describe(proc)
    log = np.load(out / "log.npz")
    t, z = log["time"], log["robot.root_p"][:, 2]
    assert np.all(np.abs(z[t <= 1.0] - Z0) < 0.01), z[t <= 1.0].min()
    deep = (t >= 2.5) & (t <= 3.0)
    assert np.all(z[deep] < Z0 - 0.07), z[deep].max()
    assert abs(z[-1] - Z0) < 0.01
    assert np.all(np.abs(log["robot.root_p"][:, :2]) < 0.05)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "FINISHED" and summary["engine"] == "ode"
    assert "engine      ode" in (out / "summary.txt").read_text()
    # and the attribute took effect: without it (the joint-space engine) the run differs
    project.write_text(text.replace(' engine="ode"', "", 1))
    proc = run_cli("run", "--local", "--out", tmp_path / "js", "--quiet", "--no-plots", project)
    assert proc.returncode == 0, describe(proc)
    assert not np.array_equal(np.load(tmp_path / "js" / "log.npz")["robot.root_p"][:, 2], z)
    assert json.loads((tmp_path / "js" / "summary.json").read_text())["engine"] == "joint_space"


def test_standing_high_gain_on_private_servers(built, tmp_path):
    """No servers reachable: `hrpsim run` starts its own and stops them afterwards."""
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    env = cli_env()
    env["HRPSIM_STATE_DIR"] = str(tmp_path / "no-state")
    out = tmp_path / "standing"
    proc = run_cli("run", "--out", out, "--quiet", STANDING, env=env)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == "hrpsim run: results in %s" % out
    log, summary = check_results_dir(out)
    assert summary["servers_started"] is True
    assert summary["engine"] == "joint_space"  # the servers it started run the core's default
    z = log["robot.root_p"][:, 2]
    assert len(z) == 301
    assert z.min() > Z0 - 0.005 and z.max() < Z0 + 0.005
    # what it started is gone: nobody answers at its naming service any more
    from hrpsim import _orb
    from hrpsim._orb import HrpsimError
    with pytest.raises(HrpsimError):
        _orb.naming_context(summary["naming"], 2000)


def test_no_plots(sched_servers, tmp_path):
    out = tmp_path / "np"
    proc = run(sched_servers, STANDING, out, "--no-plots", "--quiet")
    assert proc.returncode == 0, describe(proc)
    log, summary = check_results_dir(out, plots=False)
    assert not list(out.glob("*.png"))
    assert summary["plots"] == []


def test_plots_root_false_leaves_out_root_png(sched_servers, tmp_path):
    # <plots root="false"> (four_bar.xml and parallel_leg.xml use it) was parsed but ignored:
    # root.png was written all the same
    text = (REPO_ROOT / STANDING).read_text()
    text = text.replace('endTime="3"', 'endTime="0.2"').replace(
        "../models/", str(REPO_ROOT / "samples" / "models") + "/")
    text = text.replace("</hrpsim-project>",
                        '  <plots root="false" joints="RLEG_KNEE"/>\n</hrpsim-project>')
    proj = tmp_path / "noroot.xml"
    proj.write_text(text)
    out = tmp_path / "noroot"
    proc = run(sched_servers, str(proj), out, "--quiet")
    assert proc.returncode == 0, describe(proc)
    log, summary = check_results_dir(out, plots=False)
    assert sorted(p.name for p in out.glob("*.png")) == ["joints.png"]
    assert summary["plots"] == ["joints.png"]


def test_default_results_dir(sched_servers, tmp_path):
    env = cli_env()
    had_results = (REPO_ROOT / "results").exists()
    proc = run_cli("run", "--state-dir", sched_servers.state_dir, "--quiet", "--no-plots",
                   STANDING, env=env)
    assert proc.returncode == 0, describe(proc)
    line = proc.stdout.strip().splitlines()[-1]
    path = line.split("results in ", 1)[1]
    assert path.startswith("results/humanoid_standing-")
    assert (REPO_ROOT / path / "log.npz").exists()
    shutil.rmtree(REPO_ROOT / path)
    if not had_results:  # leave the checkout as it was
        (REPO_ROOT / "results").rmdir()


def test_grxui_project_runs(sched_servers, tmp_path):
    out = tmp_path / "grx"
    proc = run(sched_servers, GRXUI, out)
    assert proc.returncode == 0, describe(proc)
    warnings = [ln for ln in proc.stderr.splitlines() if "warning:" in ln]
    assert len(warnings) == 2 and any("GrxGraphItem" in w for w in warnings), describe(proc)
    log, summary = check_results_dir(out)
    assert summary["format"] == "grxui"
    assert len(summary["warnings"]) == 2
    assert "GrxGraphItem" in (out / "summary.txt").read_text()
    z = log["robot.root_p"][:, 2]
    assert log["time"][-1] == pytest.approx(2.0)
    assert z.min() > Z0 - 0.005, z.min()
    knee = list(log["robot.joint_names"]).index("LLEG_KNEE")
    assert np.allclose(log["robot.q"][:, knee], 0.4, atol=1e-6)


def test_broken_project_one_line(sched_servers, tmp_path):
    path = tmp_path / "broken.xml"
    path.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="fast"/>
          <model name="m" url="x.wrl"/>
        </hrpsim-project>
        """))
    proc = run(sched_servers, path, tmp_path / "out")
    line = one_line_error(proc)
    assert line.startswith("hrpsim run: %s:2: <simulation> timeStep: " % path), line


def test_missing_project_one_line(sched_servers, tmp_path):
    proc = run(sched_servers, tmp_path / "nothing.xml", tmp_path / "out")
    assert "nothing.xml" in one_line_error(proc)


FAILING = """\
import sys
sys.path.insert(0, %(controllers)r)
import pd_controller as pc

make = pc.make_servant


def failing(squat):
    servant = make(squat)
    control = servant.control

    def control_or_fail():
        if servant.count * servant.dt >= 0.2:
            raise RuntimeError("deliberate failure")
        control()

    servant.control = control_or_fail
    return servant


pc.make_servant = failing
sys.exit(pc.main())
"""


def squat_with_controller(tmp_path, repo_root, command, name):
    text = (repo_root / SQUAT).read_text()
    text = text.replace("../models/", "%s/samples/models/" % repo_root)
    text = text.replace('$(PROJECT_DIR)/%s/samples/models/' % repo_root,
                        '%s/samples/models/' % repo_root)
    text = text.replace('name="PDController"', 'name="%s"' % name)
    start = text.index('command="')
    end = text.index('"', start + len('command="'))
    text = text[:start] + 'command="%s"' % command + text[end + 1:]
    path = tmp_path / ("%s.xml" % name)
    path.write_text(text)
    return path


def test_failing_controller_names_it(sched_servers, tmp_path, repo_root):
    script = tmp_path / "failing_controller.py"
    script.write_text(FAILING % {"controllers": str(repo_root / "samples/controllers")})
    project = squat_with_controller(tmp_path, repo_root,
                                    "python3 %s --name FailingController" % script,
                                    "FailingController")
    out = tmp_path / "out"
    proc = run(sched_servers, project, out)
    line = one_line_error(proc)
    assert "FailingController" in line, line
    assert "0.2" in line, line  # the simulated time it failed at
    # partial results are kept; the servers still answer and the next run works
    _, summary = check_results_dir(out)
    assert summary["status"] == "FAILED"
    proc = run(sched_servers, STANDING, tmp_path / "after", "--quiet", "--no-plots")
    assert proc.returncode == 0, describe(proc)


def test_controller_that_exits_names_it(sched_servers, tmp_path, repo_root):
    project = squat_with_controller(tmp_path, repo_root, "python3 -c 'raise SystemExit(3)'",
                                    "GoneController")
    proc = run(sched_servers, project, tmp_path / "out")
    line = one_line_error(proc)
    assert "controller GoneController exited with status 3" in line, line


# a controller that serves the whole run and then fails on its way out: before, `hrpsim run`
# said FINISHED and exited 0 whatever the controller's exit status was
BAD_EXIT = """\
import os, sys
sys.path.insert(0, %(controllers)r)
import pd_controller as pc
pc.main()
%(ending)s
"""


@pytest.mark.parametrize("ending,expect", [
    ("os.abort()", "killed by SIGABRT when stopped"),
    ("sys.exit(5)", "exit status 5 when stopped"),
])
def test_controller_failing_at_stop_fails_the_run(sched_servers, tmp_path, repo_root, ending,
                                                  expect):
    script = tmp_path / "bad_exit.py"
    script.write_text(BAD_EXIT % {"controllers": str(repo_root / "samples/controllers"),
                                  "ending": ending})
    project = squat_with_controller(tmp_path, repo_root,
                                    "python3 %s --name BadExitController" % script,
                                    "BadExitController")
    text = project.read_text().replace('endTime="5"', 'endTime="0.2"')
    project.write_text(text)
    out = tmp_path / "out"
    proc = run(sched_servers, project, out)
    line = one_line_error(proc)
    assert "run failed: controller BadExitController" in line, line
    assert expect in line, line
    _, summary = check_results_dir(out)
    assert summary["status"] == "FAILED" and summary["scheduler_status"] == "FINISHED"
    assert summary["steps"] == 200  # the run itself completed
    info = summary["controllers"][0]["process"]
    assert info["ok"] is False and info["ended"] == "stopped", info
    if ending.startswith("os.abort"):
        assert info["signal"] == "SIGABRT" and info["exit_status"] is None, info
    else:
        assert info["exit_status"] == 5 and info["signal"] is None, info
    text = (out / "summary.txt").read_text()
    assert "status      FAILED: controller BadExitController" in text, text
    assert "scheduler   FINISHED" in text, text


def test_pd_controller_exits_cleanly_on_sigterm(sched_servers, repo_root):
    """The sample controller, stopped by SIGTERM (as `hrpsim run` stops it), unbinds its name
    and exits with status 0; it used to abort with SIGABRT every time."""
    import signal
    import subprocess
    import sys
    import time
    from hrpsim import _orb
    env = cli_env()
    controller = repo_root / "samples/controllers/pd_controller.py"
    proc = subprocess.Popen([sys.executable, str(controller),
                             "--name", "SigtermPD", "-ORBInitRef",
                             "NameService=" + sched_servers.corbaloc],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        ctx = _orb.naming_context(sched_servers.corbaloc, 5000)
        deadline = time.monotonic() + 30
        while _orb.resolve_name(ctx, "SigtermPD") is None:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, (proc.returncode, output)
    assert "FATAL" not in output and "Unexpected exception" not in output, output
    assert _orb.resolve_name(ctx, "SigtermPD") is None


def test_joint_names_line_up_with_jointid_gaps(sched_servers, tmp_path, repo_root):
    """A model whose jointIds have a gap (the test vehicle's camera joint has id 9 after 0..4):
    log.npz's joint_names has one entry per q column, the gaps named "", so a name finds its
    own column (it used to list the 6 named joints against 10 columns)."""
    vehicle = repo_root / "tests" / "data" / "vrml_openhrp" / "vehicle.wrl"
    project = tmp_path / "gaps.xml"
    project.write_text(textwrap.dedent("""\
        <hrpsim-project>
          <simulation timeStep="0.001" endTime="0.05"/>
          <model name="v" url="%s">
            <joints mode="highgain" value="0"/>
            <joint name="PAN" value="0.3"/>
            <joint name="TILT" value="-0.2"/>
          </model>
          <log period="0.01"/>
        </hrpsim-project>
        """ % vehicle))
    out = tmp_path / "out"
    proc = run(sched_servers, project, out, "--quiet")
    assert proc.returncode == 0, describe(proc)
    log, _ = check_results_dir(out)
    names = list(log["v.joint_names"])
    q = log["v.q"]
    assert names == ["WHEEL_L", "WHEEL_R", "PAN", "TILT", "TRACK", "", "", "", "", "CAMERA"]
    assert q.shape[1] == len(names)
    assert np.allclose(q[:, names.index("PAN")], 0.3, atol=1e-9)
    assert np.allclose(q[:, names.index("TILT")], -0.2, atol=1e-9)
    assert np.all(q[:, names.index("CAMERA")] == 0.0)
    assert np.all(q[:, 5:9] == 0.0)  # the gap reads 0, as OpenHRP's empty joints do


@pytest.mark.parametrize("rate", ["0", "-5", "nan", "fast"])
def test_view_rate_option_is_checked(rate, tmp_path):
    proc = run_cli("run", "--view-rate", rate, "--out", tmp_path / "out", STANDING)
    assert proc.returncode == 2, describe(proc)
    assert "--view-rate" in proc.stderr, describe(proc)
