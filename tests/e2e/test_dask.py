"""hrpsim.sweep on a Dask cluster: a LocalCluster of 2 worker processes on loopback.

- a 16-run sweep with the Dask client as executor returns, in parameter order, exactly (bit
  for bit) what the same runs done one by one in this process return, on the local back end;
  the runs happen in both workers' processes, and the default process pool gives the same;
- with hrpsim.dask.HrpsimPlugin, each worker gets its own `hrpsim up` (distinct naming
  services); the 16-run sweep on backend="server" runs each task on its own worker's servers
  and still equals the serial runs; after client.close() and the cluster's close, none of
  the server PIDs is alive;
- a worker killed (SIGKILL) in the middle of a sweep: Dask runs its tasks again elsewhere and
  the sweep still returns the identical results, every run "ok" in the sweep's index;
- a worker with the plugin that is SIGKILLed leaves no servers either (the watchdog), and
  the worker started in its place gets servers of its own;
- a sweep whose runs start from one state saved in this process (after a settling phase)
  equals, bit for bit, the runs that each settle themselves;
- table=True gives one row per run with the parameters and the scalars returned; an error in
  a run is raised, or with table=True recorded in its row while the other runs go on.
"""

import json
import os
import signal
import time

import numpy as np
import pytest

import distributed  # noqa: E402 - the optional extra hrpsim[dask], installed by bootstrap.sh

import hrpsim  # noqa: E402
from hrpsim.dask import HrpsimPlugin, worker_servers  # noqa: E402
from hrpsim.sweep import run_serial  # noqa: E402

from conftest import REPO_ROOT  # noqa: E402,I100

MODELS = REPO_ROOT / "samples" / "models"
FLOOR = str(MODELS / "floor" / "floor.wrl")
HUMANOID = str(MODELS / "humanoid" / "humanoid.wrl")
PARAMS = [{"height": 0.85 + 0.02 * (i // 4), "friction": 0.3 + 0.2 * (i % 4)}
          for i in range(16)]
SERVERS = ["ModelLoader", "DynamicsSimulatorFactory"]


def fall(sim, param):
    """A sweep task (top level: pickled to the workers): the humanoid dropped on the floor."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    sim.set_root_pose("robot", (0.0, 0.0, param["height"]))
    sim.add_collision_pair("floor", "robot", friction=param["friction"])
    sim.run(0.1)
    return {"p": sim.link_poses("robot")[0][0], "q": sim.q("robot"), "time": sim.time,
            "pid": os.getpid(), "naming": os.environ.get("HRPSIM_NAMING"),
            "z": float(sim.link_poses("robot")[0][0][2])}


def slow_fall(sim, param):
    """fall, after 0.1 s of sleep: a sweep that lasts long enough to lose a worker in it."""
    time.sleep(0.1)
    return fall(sim, param)


def same(swept, serial):
    assert len(swept) == len(serial)
    for a, b in zip(swept, serial):
        for key in ("p", "q"):
            assert np.array_equal(a[key], b[key]), key
        assert a["time"] == b["time"] and a["z"] == b["z"]


@pytest.fixture(scope="module")
def serial():
    return run_serial(fall, PARAMS)


def local_cluster(n=2):
    import dask
    with dask.config.set({"distributed.worker.profile.enabled": False}):  # less CPU per run
        return distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                        host="127.0.0.1", dashboard_address=":0")


@pytest.fixture(scope="module")
def client():
    with local_cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def test_dask_sweep_equals_the_serial_runs_bit_for_bit(client, serial):
    swept = hrpsim.sweep(fall, PARAMS, executor=client)
    same(swept, serial)
    workers = set(client.run(os.getpid).values())
    assert {r["pid"] for r in swept} == workers and len(workers) == 2
    assert len({float(r["p"][2]) for r in serial}) > 1  # the runs differ
    same(hrpsim.sweep(fall, PARAMS, workers=2), serial)  # the default process pool


def test_dask_sweep_as_a_table(client, serial, tmp_path):
    table = hrpsim.sweep(fall, PARAMS, executor=client, table=True, out_dir=tmp_path)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    assert [(r["height"], r["friction"]) for r in rows] == \
        [(p["height"], p["friction"]) for p in PARAMS]
    assert [r["z"] for r in rows] == [r["z"] for r in serial]
    assert all(r["status"] == "ok" for r in rows) and "p" not in rows[0]
    index = json.loads((tmp_path / "index.json").read_text())
    assert [r["z"] for r in index["runs"]] == [r["z"] for r in serial]
    assert (tmp_path / "index.csv").read_text().count("\n") == 17
    png = hrpsim.sweep_plot(table, "height", "z", tmp_path / "z.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def fails(sim, param):
    if param == 2:
        raise ValueError("param 2 is bad")
    return {"twice": 2 * param}


def test_dask_sweep_errors_raised_or_recorded(client):
    with pytest.raises(ValueError, match="param 2 is bad"):
        hrpsim.sweep(fails, [0, 1, 2, 3], executor=client)
    table = hrpsim.sweep(fails, [0, 1, 2, 3], executor=client, table=True)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    assert [r["status"] for r in rows] == ["ok", "ok", "error", "ok"]
    assert rows[2]["error"] == "ValueError: param 2 is bad"
    assert [r["twice"] for r in rows if r["status"] == "ok"] == [0, 2, 6]


def scene(sim):
    """The sweep's common set-up: the humanoid above the floor (the runs start from its state)."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    sim.set_root_pose("robot", (0.0, 0.0, 0.86))
    sim.add_collision_pair("floor", "robot", friction=0.5)


def go_on(sim, steps):
    """A run from the saved state: a number of steps more, then the robot's pose and joints."""
    sim.step(steps)
    return {"p": sim.link_poses("robot")[0][0], "q": sim.q("robot"), "time": sim.time,
            "z": float(sim.link_poses("robot")[0][0][2])}


def test_dask_sweep_from_one_saved_state(client):
    with hrpsim.Simulation(backend="local") as sim:
        scene(sim)
        sim.step(60)  # the settling phase every run shares
        state = sim.save_state()
    steps = [10, 40, 80, 5]
    # the reference: each run in this process does the settling itself, then goes on
    serial = run_serial(lambda sim, n: (scene(sim), sim.step(60), go_on(sim, n))[2], steps)
    swept = hrpsim.sweep(go_on, steps, executor=client, setup=scene, state=state)
    same(swept, serial)
    assert len({r["z"] for r in serial}) == len(steps)  # the runs differ after the common start


def test_a_worker_killed_mid_sweep_changes_nothing(client, serial, tmp_path):
    import threading
    pids = sorted(client.run(os.getpid).values())
    result = {}

    def go():
        result["swept"] = hrpsim.sweep(slow_fall, PARAMS, executor=client, out_dir=tmp_path)

    t = threading.Thread(target=go)
    t.start()
    runs = tmp_path / "runs"  # a task makes its run directory when it starts
    deadline = time.monotonic() + 60
    while not (runs.is_dir() and len(list(runs.iterdir())) >= 3) and \
            time.monotonic() < deadline:
        time.sleep(0.005)
    assert t.is_alive(), "the sweep ended before a worker could be killed"
    os.kill(pids[0], signal.SIGKILL)  # the cluster's nanny starts a new worker in its place
    t.join(180)
    assert not t.is_alive()
    same(result["swept"], serial)
    assert not _alive(pids[0])
    assert sorted(client.run(os.getpid).values()) != pids  # the worker really went
    index = json.loads((tmp_path / "index.json").read_text())
    assert [r["status"] for r in index["runs"]] == ["ok"] * 16


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _server_pids(states):
    return [r["pid"] for state in states.values() if state for r in state["processes"]]


def _state_dir():
    return os.environ["HRPSIM_STATE_DIR"]


def _wait_gone(pids, seconds=30):
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


def test_plugin_servers_per_worker_and_none_left_behind(serial):
    with local_cluster() as cluster:
        with distributed.Client(cluster) as c:
            c.register_plugin(HrpsimPlugin(dynamics=1, only=SERVERS))
            states = worker_servers(c)
            assert len(states) == 2 and all(states.values())
            namings = {w: s["naming"] for w, s in states.items()}
            assert len(set(namings.values())) == 2
            pids = _server_pids(states)
            assert len(pids) == 2 * 3 and all(_alive(p) for p in pids)  # naming + 2 servers
            swept = hrpsim.sweep(fall, PARAMS, executor=c, backend="server")
            same(swept, serial)
            # each task ran on the servers beside its own worker
            worker_pid = c.run(os.getpid)
            by_pid = {worker_pid[w]: namings[w] for w in namings}
            assert all(r["naming"] == by_pid[r["pid"]] for r in swept)
            assert {r["naming"] for r in swept} == set(namings.values())

            # a worker killed outright (no teardown): the watchdog stops its servers
            victim = sorted(worker_pid)[0]
            state_dirs = c.run(_state_dir)
            assert all(os.path.isdir(d) for d in state_dirs.values())
            os.kill(worker_pid[victim], signal.SIGKILL)
            assert _wait_gone(_server_pids({victim: states[victim]})) == []
            deadline = time.monotonic() + 10
            while os.path.exists(state_dirs[victim]) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not os.path.exists(state_dirs[victim])  # the watchdog removed it
            c.wait_for_workers(2, timeout=60)  # the nanny's new worker gets new servers
            deadline = time.monotonic() + 60
            while len([s for s in worker_servers(c).values() if s]) < 2:
                assert time.monotonic() < deadline
                time.sleep(0.2)
            pids += _server_pids(worker_servers(c))
    # client.close() and the cluster's close: teardown stops every worker's servers
    assert _wait_gone(pids) == []
    deadline = time.monotonic() + 10
    while any(os.path.exists(d) for d in state_dirs.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [d for d in state_dirs.values() if os.path.exists(d)] == []
