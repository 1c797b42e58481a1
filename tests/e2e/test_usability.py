"""What a new user hits first: taking the servers over into a shell (`hrpsim env`), state
directories that never litter the current directory, sample scripts that write into results/
and need no preparation beyond setup.sh, and a README that only points inside the repository.

Each test here failed before its fix: `hrpsim env` did not exist; `hrpsim down --state-dir`
on an ordinary directory (or an empty path, i.e. the current directory) left an empty `lock`
file there; the slope sweep wrote slope_friction.png into the current directory; the README
pointed at ../shared/; `hrpsim run` ignored a dead $HRPSIM_NAMING silently; the browser helper
left its log and Chromium's singleton directory in the temporary directory per browser; the
socket directory kept the sockets of killed servers.
"""

import os
import re
import subprocess
import sys
import time

import pytest

import hrpsim
from hrpsim import launcher, paths

from conftest import REPO_ROOT, cli_env, describe, run_cli  # noqa: I100


def cli_in(cwd, *args, env=None):
    """``hrpsim ARGS`` run with the working directory ``cwd``."""
    return subprocess.run([sys.executable, "-m", "hrpsim.cli"] + [str(a) for a in args],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                          env=env or cli_env(), cwd=str(cwd))


# ---------------------------------------------------------------------------------------------
# hrpsim env
# ---------------------------------------------------------------------------------------------

def test_env_exports_take_the_servers_into_a_shell(servers):
    proc = run_cli("env", "--state-dir", servers.state_dir)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.splitlines() == [
        "export HRPSIM_NAMING=%s" % servers.corbaloc,
        "export HRPSIM_STATE_DIR=%s" % servers.state_dir.resolve()]
    # what the README says to type: eval "$(hrpsim env)"; then a client finds the servers
    script = ('eval "$(%s -m hrpsim.cli env --state-dir %s)" && echo "N=$HRPSIM_NAMING" && '
              '%s -c "import hrpsim; c = hrpsim.connect(); '
              'print(c.naming, c.model_loader()._non_existent())"'
              % (sys.executable, servers.state_dir, sys.executable))
    env = cli_env()
    env.pop("HRPSIM_STATE_DIR", None)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                         env=env, cwd=str(REPO_ROOT))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == ["N=" + servers.corbaloc, "%s False" % servers.corbaloc], out.stdout


def test_env_with_nothing_running_prints_no_exports(tmp_path):
    proc = run_cli("env", "--state-dir", tmp_path / "none")
    assert proc.returncode == 1, describe(proc)
    assert proc.stdout == ""  # nothing for eval to pick up
    assert "nothing running" in proc.stderr and "hrpsim up" in proc.stderr
    assert not (tmp_path / "none").exists()


def test_env_refuses_a_dead_naming_service(tmp_path):
    # a state whose naming service process is gone (a PID that cannot be ours)
    d = tmp_path / "dead"
    sd = launcher.StateDir(d)
    d.mkdir()
    sd.save({"format": launcher.STATE_FORMAT, "state_dir": str(d),
             "naming": "corbaloc:iiop:127.0.0.1:9/NameService", "naming_port": 9,
             "naming_started": True,
             "processes": [{"name": "NameService", "kind": "naming", "exe": "omniNames",
                            "pid": os.getpid(), "start_time": 1, "cmdline": ["x"]}]})
    proc = run_cli("env", "--state-dir", d)
    assert proc.returncode == 1 and proc.stdout == "", describe(proc)
    assert "not running any more" in proc.stderr


def test_run_says_once_that_it_did_not_use_a_dead_hrpsim_naming(built, tmp_path):
    """`hrpsim run` with $HRPSIM_NAMING naming a naming service that does not answer starts
    servers of its own: it says so once on stderr (nothing with --quiet). Before, it said
    nothing, which confused users whose controllers were bound there."""
    dead = "corbaloc:iiop:127.0.0.1:9/NameService"
    env = cli_env()
    env["HRPSIM_NAMING"] = dead
    env["HRPSIM_STATE_DIR"] = str(tmp_path / "no-state")
    project = tmp_path / "p.xml"   # fails quickly once the servers are up: a joint-name typo
    project.write_text('<hrpsim-project>\n  <simulation timeStep="0.001" endTime="0.01"/>\n'
                       '  <model name="r" url="%s"><joint name="NOPE" mode="highgain"/>'
                       '</model>\n</hrpsim-project>\n'
                       % (REPO_ROOT / "samples" / "models" / "humanoid" / "humanoid.wrl"))
    proc = run_cli("run", "--out", tmp_path / "out", project, env=env)
    assert proc.returncode == 1, describe(proc)
    notes = [ln for ln in proc.stderr.splitlines() if "HRPSIM_NAMING" in ln]
    assert notes == ["hrpsim run: warning: not using the naming service HRPSIM_NAMING names "
                     "(%s): its naming service does not answer; this run starts servers of its "
                     "own and stops them when it ends" % dead], describe(proc)
    proc = run_cli("run", "--quiet", "--out", tmp_path / "out", project, env=env)
    assert proc.returncode == 1 and "HRPSIM_NAMING" not in proc.stderr, describe(proc)


# ---------------------------------------------------------------------------------------------
# state directories never litter other directories
# ---------------------------------------------------------------------------------------------

def test_down_in_an_ordinary_directory_creates_nothing(tmp_path):
    d = tmp_path / "project"
    d.mkdir()
    (d / "notes.txt").write_text("mine\n")
    proc = run_cli("down", "--state-dir", d)
    assert proc.returncode == 0, describe(proc)
    assert sorted(p.name for p in d.iterdir()) == ["notes.txt"]  # no `lock` left behind
    proc = run_cli("status", "--state-dir", d)
    assert proc.returncode == 1, describe(proc)
    assert sorted(p.name for p in d.iterdir()) == ["notes.txt"]


def test_empty_state_dir_path_is_refused_not_the_current_directory(tmp_path):
    for command in ("down", "up", "status", "env"):
        proc = cli_in(tmp_path, command, "--state-dir", "")
        assert proc.returncode == 1, describe(proc)
        assert "state directory path is empty" in proc.stderr, describe(proc)
        assert list(tmp_path.iterdir()) == [], (command, list(tmp_path.iterdir()))


def test_up_refuses_a_directory_with_other_files(tmp_path):
    d = tmp_path / "src"
    d.mkdir()
    (d / "README.md").write_text("a source tree\n")
    proc = run_cli("up", "--state-dir", d, "--only")
    assert proc.returncode == 1, describe(proc)
    assert "is not an hrpsim state directory" in proc.stderr and "README.md" in proc.stderr
    assert sorted(p.name for p in d.iterdir()) == ["README.md"]


def test_the_test_run_leaves_nothing_in_the_repository_root(servers):
    """No `lock`, state.json, logs/ or plots in the repository root (they were left there)."""
    for name in ("lock", paths.STATE_FILE, "logs", "names", "slope_friction.png"):
        assert not (REPO_ROOT / name).exists(), "%s in the repository root" % name


# ---------------------------------------------------------------------------------------------
# sample scripts
# ---------------------------------------------------------------------------------------------

SLOPE = REPO_ROOT / "samples" / "scripts" / "slope_friction_sweep.py"


def test_slope_sweep_runs_on_the_servers_setup_leaves_and_writes_into_results(servers,
                                                                            tmp_path):
    """After setup.sh (one dynamics server, no `hrpsim down`/`up --dynamics` needed) the sweep
    runs; by default its plot goes to results/ under the working directory."""
    env = cli_env()
    env["HRPSIM_NAMING"] = servers.corbaloc
    proc = subprocess.run([sys.executable, str(SLOPE), "--mu", "0.0", "0.3", "--time", "0.3"],
                          capture_output=True, text=True, timeout=300, env=env,
                          cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"], list(tmp_path.iterdir())
    plot = tmp_path / "results" / "slope_friction.png"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "plot: %s" % plot in proc.stdout


def test_slope_sweep_starts_its_own_servers_when_none_run(built, tmp_path):
    env = cli_env()
    env["HRPSIM_STATE_DIR"] = str(tmp_path / "no-state")
    proc = subprocess.run([sys.executable, str(SLOPE), "--mu", "0.0", "0.3", "--time", "0.3",
                           "--out-dir", str(tmp_path / "plots")],
                          capture_output=True, text=True, timeout=300, env=env,
                          cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)
    assert "no servers running: started" in proc.stdout, proc.stdout
    assert (tmp_path / "plots" / "slope_friction.png").is_file()
    assert not (tmp_path / "no-state").exists()
    # the servers it started are gone again
    started = re.search(r"naming service (corbaloc:\S+)", proc.stdout).group(1)
    with pytest.raises(hrpsim.HrpsimError):
        hrpsim._orb.naming_context(started, 2000)


# ---------------------------------------------------------------------------------------------
# README
# ---------------------------------------------------------------------------------------------

def _docs_text():
    """README.md and every page of docs/, one string (the README's content moved there)."""
    pages = [REPO_ROOT / "README.md"] + sorted((REPO_ROOT / "docs").glob("*.md"))
    return "\n".join(p.read_text() for p in pages)


def test_readme_points_only_inside_the_repository():
    text = _docs_text()
    assert "../" not in re.sub(r"```.*?```", "", text, flags=re.S).replace(
        'url="../models', ""), "README points outside the repository"
    for link in re.findall(r"`((?:docs|samples|python|tests|bench|tools|server)/[\w./-]+)`",
                           text):
        if any(ch in link for ch in "*<>"):
            continue
        assert (REPO_ROOT / link.rstrip(".")).exists(), "README names %s, which is missing" \
            % link


def test_readme_documents_env_and_logdir():
    text = _docs_text()
    assert 'eval "$(.venv/bin/hrpsim env)"' in text
    # omniNames refuses a -logdir that does not exist: the README creates it first
    m = re.search(r"^(.*)omniNames -start", text, flags=re.M)
    assert m, "README no longer shows omniNames started by hand"
    before = text[:m.start()].splitlines()[-3:] + [m.group(1)]
    assert any("mkdir -p" in ln for ln in before), before


# ---------------------------------------------------------------------------------------------
# --help of the scripts the README names
# ---------------------------------------------------------------------------------------------

SCRIPTS = sorted(str(p.relative_to(REPO_ROOT)) for pattern in ("bench/*.py", "samples/**/*.py")
                 for p in REPO_ROOT.glob(pattern))


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_help_prints_usage_and_writes_nothing(script, tmp_path):
    # bench/gen_openhrp_like.py, samples/models/env/make_checker.py and make_arm_meshes.py took
    # "--help" for their output path: they wrote ./--help/ (or a PNG called --help) and exited 0
    proc = subprocess.run([sys.executable, str(REPO_ROOT / script), "--help"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          env=cli_env(), cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.startswith("usage: "), describe(proc)
    assert list(tmp_path.iterdir()) == [], "%s --help wrote %s" % (script, list(tmp_path.iterdir()))


# ---------------------------------------------------------------------------------------------
# --help of the servers, and arguments they do not know
# ---------------------------------------------------------------------------------------------

# each server with options of its own that its --help must name
SERVER_OPTIONS = {
    "hrpsim-modelloader": ["--model-root", "--mesh-seconds", "--cache-entries", "--retired-mb"],
    "hrpsim-dynamics": [],
    "hrpsim-collision": [],
    "hrpsim-scheduler": [],
    "hrpsim-view": ["--color-format", "--name"],
}


@pytest.mark.parametrize("server", sorted(SERVER_OPTIONS))
def test_server_help_prints_usage_and_starts_nothing(server, built, tmp_path):
    # before: hrpsim-dynamics, -collision and -scheduler ignored --help and tried to start
    # (failing on the missing naming service), the ModelLoader and the view called it unknown
    proc = subprocess.run([str(built / server), "--help"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.startswith("usage: %s -ORBInitRef NameService=" % server), describe(proc)
    for option in SERVER_OPTIONS[server] + ["--allow-remote-shutdown", "-ORBendPoint"]:
        assert option in proc.stdout, (option, proc.stdout)
    assert proc.stderr == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("server", sorted(SERVER_OPTIONS))
def test_server_refuses_an_argument_it_does_not_know(server, built, tmp_path):
    # before: the dynamics, collision and scheduler servers ignored it and started
    proc = subprocess.run([str(built / server), "-ORBInitRef",
                           "NameService=corbaloc:iiop:127.0.0.1:1/NameService", "--colour"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          cwd=str(tmp_path))
    assert proc.returncode == 2, describe(proc)
    assert "%s: unknown argument '--colour'" % server in proc.stderr, describe(proc)
    assert "usage: %s" % server in proc.stderr


# ---------------------------------------------------------------------------------------------
# nothing left behind in the temporary directory
# ---------------------------------------------------------------------------------------------

def test_the_browser_helper_leaves_nothing_in_the_temporary_directory(tmp_path, monkeypatch):
    """hrpsim.viewer.browser.Browser (the browser tests, the viewer benchmark): after close()
    nothing of it is left in the temporary directory (before: a hrpsim-chromium-*.log per
    browser, and Chromium's own org.chromium.Chromium.* directory); one that does not start
    keeps only the log its error names."""
    import tempfile
    from hrpsim.viewer.browser import Browser, BrowserError
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # ours
    monkeypatch.setenv("TMPDIR", str(tmp_path))               # Chromium's
    with Browser(width=320, height=240) as b:
        page = b.new_page()
        assert page.evaluate("1 + 1") == 2
        names = sorted(p.name for p in tmp_path.iterdir())
        assert names[:2] == sorted([b.root.name, b.log_path.name])
        assert [n.split(".")[:2] for n in names[2:]] == [["org", "chromium"]], names
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("HRPSIM_CHROMIUM", "/bin/false")
    with pytest.raises(BrowserError) as info:
        Browser(timeout=5)
    logs = list(tmp_path.iterdir())
    assert len(logs) == 1 and logs[0].suffix == ".log" and str(logs[0]) in str(info.value)


def test_a_killed_servers_socket_is_removed_by_the_next_down_or_up(built, tmp_path):
    """The per-user socket directory ($XDG_RUNTIME_DIR/hrpsim here) collected the unix sockets
    of killed servers (omniORB removes its socket only on a clean shutdown). `hrpsim down`
    (after the SIGKILLs it may need) and `hrpsim up` remove the sockets of processes that are
    gone, and never one that something listens on."""
    import signal
    import socket
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    env = cli_env()
    env["XDG_RUNTIME_DIR"] = str(run_dir)
    sockets = run_dir / "hrpsim"
    state = tmp_path / "state"
    proc = run_cli("up", "--state-dir", state, "--only", "ModelLoader", env=env)
    assert proc.returncode == 0, describe(proc)
    pid = next(p["pid"] for p in launcher.StateDir(state).load()["processes"]
               if p["name"] == "ModelLoader")
    mine = [p.name for p in sockets.iterdir() if int(p.name.split("-")[0]) == pid]
    assert len(mine) == 1, sorted(p.name for p in sockets.iterdir())
    # a live socket under a name whose process cannot exist (above pid_max): kept
    live = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    live.bind(str(sockets / "999999998-1"))
    live.listen(1)
    try:
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (sockets / mine[0]).exists()   # what a killed server leaves
        proc = run_cli("down", "--state-dir", state, env=env)
        assert proc.returncode == 0, describe(proc)
        assert sorted(p.name for p in sockets.iterdir()) == ["999999998-1"]
        # a dead one left by someone else earlier: the next `up` removes it
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(str(sockets / "999999999-1"))
        stale.close()
        proc = run_cli("up", "--state-dir", state, "--only", env=env)
        assert proc.returncode == 0, describe(proc)
        assert sorted(p.name for p in sockets.iterdir()) == ["999999998-1"]
    finally:
        live.close()
        run_cli("down", "--state-dir", state, env=env)
