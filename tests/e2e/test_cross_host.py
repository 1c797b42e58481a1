"""Servers and controllers across hosts, with loopback aliases standing in for hosts.

Host A and host B each run `hrpsim up --listen ADDR --model-root samples/models` (A on
127.0.0.2, B on 127.0.0.3; Linux routes all of 127/8 to the loopback device, no set-up); a
controller process stands on a third host, 127.0.0.4 ($HRPSIM_LISTEN).

- a client that reaches the hosts only through `hrpsim.connect("corbaloc:iiop:HOST:PORT/
  NameService")` runs the same simulation on A's and on B's dynamics server and gets the same
  bits from both (and from the local back end in this process); every server of A and B
  listens on its own host's address only;
- a controller process on the third host binds itself in A's naming service and listens on
  127.0.0.4 only; A's scheduler calls it back there (its process holds a TCP connection to
  127.0.0.4) and the arm follows the controller's sine (closed form, 1e-6 rad).
"""

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import launcher

from conftest import REPO_ROOT, cli_env, start_servers, stop_servers  # noqa: I100
from test_controller import PY_ARM, arm_trajectory  # noqa: I100
from test_exposure import tcp_listening
from test_simulation import wait_for_line

HOST_A, HOST_B, HOST_C = "127.0.0.2", "127.0.0.3", "127.0.0.4"
MODELS = REPO_ROOT / "samples" / "models"
ARM6 = MODELS / "arm6" / "arm6.wrl"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
DT = 0.002


@pytest.fixture(scope="module")
def hosts(built, tmp_path_factory):
    """{address: `hrpsim up` state} of the two hosts; stopped (and checked gone) after."""
    states = {}
    dirs = []
    try:
        for host in (HOST_A, HOST_B):
            state_dir = tmp_path_factory.mktemp("host-" + host)
            dirs.append(state_dir)
            start_servers(state_dir, "--listen", host, "--model-root", MODELS, "--only",
                          "ModelLoader", "DynamicsSimulatorFactory", "Scheduler")
            states[host] = launcher.read_state(state_dir)
        yield states
    finally:
        for state_dir in dirs:
            stop_servers(state_dir)


def tcp_connected(pid):
    """[(remote address, remote port)] of the established TCP connections of ``pid``."""
    from test_exposure import _hex_addr, _socket_inodes
    inodes = _socket_inodes(pid)
    out = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        f = line.split()
        if f[3] == "01" and f[9] in inodes:  # ESTABLISHED
            out.append(_hex_addr(f[2], False))
    return out


def drop(sim):
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    sim.set_root_pose("robot", (0.0, 0.0, 0.9))
    sim.add_collision_pair("floor", "robot", friction=0.7)
    sim.run(0.2)
    return np.concatenate([sim.link_poses("robot")[0][0], sim.q("robot")])


def test_a_client_on_another_host_runs_on_both_hosts(hosts):
    results = {}
    for host, state in hosts.items():
        assert state["naming"] .startswith("corbaloc:iiop:%s:" % host), state["naming"]
        client = hrpsim.connect(state["naming"])
        assert "DynamicsSimulatorFactory" in client.names()
        with hrpsim.Simulation(client, dt=DT) as sim:
            results[host] = drop(sim)
        for rec in state["processes"]:
            addrs = {a for a, _ in tcp_listening(rec["pid"])}
            assert addrs == {host}, (host, rec["name"], addrs)
    with hrpsim.Simulation(backend="local", dt=DT) as sim:
        local = drop(sim)
    assert np.array_equal(results[HOST_A], results[HOST_B])
    assert np.array_equal(results[HOST_A], local)
    assert results[HOST_A][2] < 0.85  # it fell: the runs did something


def test_a_scheduler_drives_a_controller_on_another_host(hosts, tmp_path):
    naming_a = hosts[HOST_A]["naming"]
    script = tmp_path / "py_arm.py"
    script.write_text(PY_ARM % {"python": str(REPO_ROOT / "python")})
    env = cli_env()
    env["HRPSIM_LISTEN"] = HOST_C  # the controller's host: where A's scheduler calls back
    proc = subprocess.Popen([sys.executable, str(script), "--name", "RemoteArm",
                             "-ORBInitRef", "NameService=" + naming_a],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        wait_for_line(proc, "bound as 'RemoteArm'")
        listening = tcp_listening(proc.pid)
        assert listening and {a for a, _ in listening} == {HOST_C}, listening
        client = hrpsim.connect(naming_a)
        with hrpsim.Simulation(client, dt=DT, scheduler=True) as sim:
            sim.add_model("arm", ARM6)
            sim.add_controller("RemoteArm", "arm", DT)
            sim.run(0.3)
            q = sim.q("arm")
            scheduler = [r["pid"] for r in hosts[HOST_A]["processes"]
                         if r["name"] == "Scheduler"][0]
            ports = {p for _, p in listening}
            deadline = time.monotonic() + 5
            while not any(a == HOST_C and p in ports for a, p in tcp_connected(scheduler)):
                assert time.monotonic() < deadline, tcp_connected(scheduler)
                time.sleep(0.1)
        assert q == pytest.approx([arm_trajectory(j, 0.3) for j in range(6)], abs=1e-6)
        assert max(abs(x) for x in q) > 0.2  # it really moved
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0
