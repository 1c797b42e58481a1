"""End-to-end tests of the `hrpsim` command (up, down, status, demo) and the client API.

Conventions checked here: two state dirs never collide; `up` refuses to double-start;
`down` stops exactly the recorded processes and is idempotent; `status` exits 0 only when
everything recorded is alive and answering, and exits 1 when nothing is running.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

import hrpsim
from hrpsim import launcher, paths

from conftest import describe, start_servers, still_running  # noqa: I100


def read_state(state_dir):
    state = launcher.read_state(state_dir)
    assert state is not None, "no state.json in %s" % state_dir
    return state


def alive_pids(state):
    return sorted(r["pid"] for r in still_running(state))


def procs_mentioning(text):
    """Live (non-zombie) processes whose command line contains ``text``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        cmd = launcher.proc_cmdline(int(entry))
        st = launcher.proc_stat(int(entry))
        if cmd and st and st[0] not in "ZXx" and any(text in a for a in cmd):
            found.append((int(entry), cmd))
    return found


# ---------------------------------------------------------------------------------------------
# the session's servers
# ---------------------------------------------------------------------------------------------

def test_status_shows_everything_alive_and_bound(servers, hrpsim_cli):
    proc = hrpsim_cli("status", "--state-dir", servers.state_dir)
    assert proc.returncode == 0, describe(proc)
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    assert "alive" in lines["NameService"] and "answers" in lines["NameService"]
    assert re.search(r"\b%d\b.*alive.*bound, answers" % servers.pid("ModelLoader"),
                     lines["ModelLoader"]), proc.stdout
    assert "all running" in proc.stdout

    proc = hrpsim_cli("status", "--state-dir", servers.state_dir, "--json")
    assert proc.returncode == 0, describe(proc)
    rows = json.loads(proc.stdout)["processes"]
    assert {r["name"] for r in rows} >= {"NameService", "ModelLoader"}
    assert all(r["ok"] and r["alive"] for r in rows)


def test_state_file_records_processes(servers):
    state = servers.state
    assert state["naming_started"] is True
    assert state["naming"] == paths.corbaloc_for_port(state["naming_port"])
    kinds = [r["kind"] for r in state["processes"]]
    assert kinds[0] == "naming" and "server" in kinds
    for rec in state["processes"]:
        assert rec["pid"] > 0 and rec["start_time"] is not None and rec["cmdline"]
        assert launcher.is_ours(rec)
        # started in its own session, so it outlives the `hrpsim up` that started it
        assert os.getsid(rec["pid"]) == rec["pid"]
        assert os.path.isfile(rec["log"])
    for rec in state["processes"]:
        if rec["kind"] == "server":
            assert rec["argv"][1:3] == ["-ORBInitRef", "NameService=" + state["naming"]]
            assert rec["ior"].startswith("IOR:")


def test_client_resolves_servers(servers):
    client = servers.client
    assert "ModelLoader" in client.names()
    loader = client.model_loader()
    assert loader._is_a("IDL:OpenHRP/ModelLoader:1.0")
    assert client.resolve("ModelLoader") is not None
    with pytest.raises(LookupError):
        client.resolve("NoSuchServer")
    with pytest.raises(TypeError):
        client.resolve("ModelLoader", hrpsim.OpenHRP.DynamicsSimulatorFactory)


def test_connect_needs_a_naming_service(tmp_path, monkeypatch):
    monkeypatch.delenv("HRPSIM_NAMING", raising=False)
    with pytest.raises(hrpsim.HrpsimError, match="no naming service"):
        hrpsim.connect(state_dir=tmp_path / "nothing-here")
    # a port nobody listens on
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(hrpsim.HrpsimError, match="no naming service answers"):
        hrpsim.connect(paths.corbaloc_for_port(port))


def test_connect_from_environment_and_state(servers, monkeypatch):
    monkeypatch.setenv("HRPSIM_NAMING", servers.corbaloc)
    assert hrpsim.connect().naming == servers.corbaloc
    monkeypatch.delenv("HRPSIM_NAMING")
    monkeypatch.setenv("HRPSIM_STATE_DIR", str(servers.state_dir))
    assert hrpsim.connect().naming == servers.corbaloc


def test_load_body_and_summary(servers, samples_dir):
    model = samples_dir / "models" / "humanoid" / "humanoid.wrl"
    assert model.is_file(), "sample model %s missing" % model
    body = servers.client.load_body(model)
    s = hrpsim.body_summary(body)
    assert s["name"] and s["link_count"] == len(s["links"]) > 1
    assert s["joint_count"] == sum(1 for lk in s["links"] if lk["joint_id"] >= 0)
    assert s["total_mass"] == pytest.approx(sum(lk["mass"] for lk in s["links"]))
    roots = [lk for lk in s["links"] if lk["parent"] is None]
    assert len(roots) == 1 and roots[0]["index"] == 0
    for lk in s["links"]:
        assert len(lk["inertia"]) == 9 and len(lk["com"]) == 3 and len(lk["rotation"]) == 4
        for child in lk["child_indices"]:
            assert s["links"][child]["parent_index"] == lk["index"]
    assert sum(len(v) for v in s["sensors_by_type"].values()) == len(s["sensors"])
    assert s["triangles"] == sum(len(sh.triangles) // 3 for sh in body._get_shapes())
    # the cached path gives the same model
    again = hrpsim.body_summary(servers.client.load_body(str(model), reload=False))
    assert again["link_count"] == s["link_count"] and again["name"] == s["name"]


def test_demo_prints_summary(servers, hrpsim_cli):
    proc = hrpsim_cli("demo", "--state-dir", servers.state_dir)
    assert proc.returncode == 0, describe(proc)
    for heading in ("body ", "links ", "total mass", "sensors", "shapes", "link tree"):
        assert heading in proc.stdout, proc.stdout
    proc = hrpsim_cli("demo", "--state-dir", servers.state_dir, "--json")
    assert proc.returncode == 0, describe(proc)
    assert json.loads(proc.stdout)["link_count"] > 1


def test_demo_reports_model_errors(servers, hrpsim_cli, tmp_path):
    proc = hrpsim_cli("demo", "--state-dir", servers.state_dir, tmp_path / "missing.wrl")
    assert proc.returncode == 1, describe(proc)
    assert "missing.wrl" in proc.stderr
    # and the model loader is still up
    assert hrpsim_cli("status", "--state-dir", servers.state_dir).returncode == 0


# ---------------------------------------------------------------------------------------------
# up / down / status in state dirs of their own
# ---------------------------------------------------------------------------------------------

def test_two_state_dirs_coexist_and_down_is_exact(built, servers, state_dirs, hrpsim_cli):
    a, b = state_dirs("a"), state_dirs("b")
    start_servers(a)
    start_servers(b)
    sa, sb = read_state(a), read_state(b)
    assert len({sa["naming_port"], sb["naming_port"], servers.state["naming_port"]}) == 3
    assert not set(alive_pids(sa)) & set(alive_pids(sb))

    # both answer at once
    for d, st in ((a, sa), (b, sb)):
        proc = hrpsim_cli("status", "--state-dir", d)
        assert proc.returncode == 0, describe(proc)
        loader = hrpsim.connect(st["naming"]).model_loader()
        assert not loader._non_existent()

    # a second `up` in the same dir refuses and starts nothing
    proc = hrpsim_cli("up", "--state-dir", a)
    assert proc.returncode == 1, describe(proc)
    assert "already running" in proc.stderr
    assert read_state(a) == sa
    assert {pid for pid, _ in procs_mentioning(str(a))} <= {r["pid"] for r in sa["processes"]}

    # down stops exactly a's processes
    a_recs = list(sa["processes"])
    proc = hrpsim_cli("down", "--state-dir", a)
    assert proc.returncode == 0, describe(proc)
    assert still_running(sa) == []
    for rec in a_recs:
        st = launcher.proc_stat(rec["pid"])
        assert st is None or st[0] in "ZXx" or st[1] != rec["start_time"]
    assert not (a / paths.STATE_FILE).exists()
    assert alive_pids(sb) == sorted(r["pid"] for r in sb["processes"])
    assert hrpsim_cli("status", "--state-dir", b).returncode == 0
    assert hrpsim_cli("status", "--state-dir", servers.state_dir).returncode == 0

    # down again: nothing to do, success
    proc = hrpsim_cli("down", "--state-dir", a)
    assert proc.returncode == 0, describe(proc)
    assert "nothing running" in proc.stdout

    # status with nothing running: exit 1, says so
    proc = hrpsim_cli("status", "--state-dir", a)
    assert proc.returncode == 1, describe(proc)
    assert "nothing running" in proc.stdout


def test_up_after_crash_replaces_stale_state(built, state_dirs, hrpsim_cli):
    d = state_dirs("stale")
    start_servers(d)
    old = read_state(d)
    # everything dies without `down` (as after a reboot)
    for rec in old["processes"]:
        os.kill(rec["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 5
    while still_running(old) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc = hrpsim_cli("status", "--state-dir", d)
    assert proc.returncode == 1 and "dead" in proc.stdout, describe(proc)
    start_servers(d)
    new = read_state(d)
    assert not set(r["pid"] for r in new["processes"]) & set(r["pid"] for r in old["processes"])
    assert hrpsim_cli("status", "--state-dir", d).returncode == 0


def test_up_naming_only_and_external_naming(built, state_dirs, hrpsim_cli):
    own, ext = state_dirs("naming-only"), state_dirs("external")
    proc = hrpsim_cli("up", "--state-dir", own, "--only")
    assert proc.returncode == 0, describe(proc)
    so = read_state(own)
    assert [r["kind"] for r in so["processes"]] == ["naming"]
    assert "export HRPSIM_NAMING=%s" % so["naming"] in proc.stdout
    assert "-ORBInitRef NameService=%s" % so["naming"] in proc.stdout

    # use that naming service from another state dir: nothing of ours to stop there
    proc = hrpsim_cli("up", "--state-dir", ext, "--naming", so["naming"], "--only")
    assert proc.returncode == 0, describe(proc)
    se = read_state(ext)
    assert se["naming"] == so["naming"] and se["naming_started"] is False
    assert se["processes"] == []
    proc = hrpsim_cli("status", "--state-dir", ext)
    assert proc.returncode == 0 and "(external)" in proc.stdout, describe(proc)
    proc = hrpsim_cli("down", "--state-dir", ext)
    assert proc.returncode == 0, describe(proc)
    assert alive_pids(so) == [so["processes"][0]["pid"]]  # the naming service survived
    assert hrpsim_cli("status", "--state-dir", own).returncode == 0


def test_up_fixed_naming_port(built, state_dirs, hrpsim_cli):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = state_dirs("port")
    proc = hrpsim_cli("up", "--state-dir", d, "--only", "--naming-port", port)
    assert proc.returncode == 0, describe(proc)
    assert read_state(d)["naming"] == "corbaloc:iiop:127.0.0.1:%d/NameService" % port


def test_up_retries_when_the_probed_port_is_taken(built, state_dirs, monkeypatch):
    # another program grabs the port between our probe and omniNames' bind
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    taken = blocker.getsockname()[1]
    ports = iter([taken])
    real_free_port = launcher.free_port
    monkeypatch.setattr(launcher, "free_port", lambda: next(ports, None) or real_free_port())
    d = state_dirs("race")
    try:
        state = launcher.up(state_dir=d, only=[], timeout=float(os.environ.get(
            "HRPSIM_E2E_UP_TIMEOUT", "30")))
    finally:
        blocker.close()
    assert state["naming_port"] != taken
    assert still_running(state)


def test_up_unknown_or_missing_server(built, state_dirs, hrpsim_cli, tmp_path):
    d = state_dirs("bad")
    proc = hrpsim_cli("up", "--state-dir", d, "--only", "NoSuchServer")
    assert proc.returncode == 1 and "unknown server" in proc.stderr, describe(proc)
    proc = hrpsim_cli("up", "--state-dir", d, "--bin-dir", tmp_path, "--only", "ModelLoader")
    assert proc.returncode == 1 and "not found" in proc.stderr, describe(proc)
    assert not (d / paths.STATE_FILE).exists()
    # without --only, missing executables are warnings and the naming service still starts
    proc = hrpsim_cli("up", "--state-dir", d, "--bin-dir", tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert "not built, not started: ModelLoader" in proc.stderr
    assert [r["kind"] for r in read_state(d)["processes"]] == ["naming"]


def _fake_server(bin_dir, body):
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / "hrpsim-modelloader"
    exe.write_text("#!%s\nimport sys, time\n%s\n" % (sys.executable, body))
    exe.chmod(0o755)
    return exe


@pytest.mark.parametrize("case", ["exits", "never-binds"])
def test_up_failure_stops_what_it_started(built, state_dirs, hrpsim_cli, tmp_path, case):
    if case == "exits":
        bin_dir = tmp_path / "bin-exits"
        _fake_server(bin_dir, "print('fake: cannot start', flush=True)\nsys.exit(3)")
        expect = "exited with code 3"
    else:
        bin_dir = tmp_path / "bin-hangs"
        _fake_server(bin_dir, "print('fake: hanging', flush=True)\ntime.sleep(120)")
        expect = "did not bind"
    d = state_dirs(case)
    proc = hrpsim_cli("up", "--state-dir", d, "--bin-dir", bin_dir, "--only", "ModelLoader",
                      "--timeout", "2")
    assert proc.returncode == 1, describe(proc)
    assert expect in proc.stderr and "fake:" in proc.stderr, describe(proc)  # the log tail
    assert not (d / paths.STATE_FILE).exists()
    assert not procs_mentioning(str(d)), "omniNames of the failed up still running"
    assert not procs_mentioning(str(bin_dir)), "fake server of the failed up still running"


def test_down_never_signals_a_recycled_pid(built, state_dirs, hrpsim_cli):
    d = state_dirs("recycled")
    victim = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        st = launcher.proc_stat(victim.pid)
        cmd = launcher.proc_cmdline(victim.pid)
        base = {"kind": "server", "exe": "sleep", "argv": cmd, "pid": victim.pid,
                "log": str(d / "x.log")}
        sd = launcher.StateDir(d)
        # same PID, other start time: another process now has our PID
        for rec in ({"name": "A", "start_time": st[1] + 1, "cmdline": cmd},
                    {"name": "B", "start_time": st[1], "cmdline": ["other", "program"]}):
            sd.save({"format": launcher.STATE_FORMAT, "state_dir": str(d), "naming": None,
                     "naming_port": None, "naming_started": False,
                     "processes": [dict(base, **rec)]})
            proc = hrpsim_cli("down", "--state-dir", d)
            assert proc.returncode == 0, describe(proc)
            assert "not running" in proc.stdout
            assert victim.poll() is None, "down signalled a process it did not start"
    finally:
        victim.kill()
        victim.wait()
