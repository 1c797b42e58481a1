"""End-to-end tests of `hrpsim up --dynamics N` and hrpsim.sweep, against real servers.

- `up --dynamics 3` starts three hrpsim-dynamics processes bound as DynamicsSimulatorFactory,
  DynamicsSimulatorFactory1 and DynamicsSimulatorFactory2, each answering, each its own
  process; `status` reports them all running, `down` stops them all;
- a sweep over 6 parameters with 3 workers returns, in parameter order, exactly (bit for bit)
  what the same 6 runs done one by one in this process return; so does a sweep with more
  workers than servers (round robin);
- an exception raised by the swept function reaches the caller;
- the slope sample: slide distances of a box on the 10-degree slope for 6 friction
  coefficients, swept over 3 workers, agree with d = 1/2 g (sin(theta) - mu cos(theta)) t^2
  within 5 % (the discrete Euler solution is 0.1 % above it after 1000 steps), and stay under
  1 mm where tan(theta) <= mu; the sample script writes its PNG and exits 0.
"""

import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import launcher
from hrpsim.sweep import run_serial

from conftest import describe, run_cli, start_servers, stop_servers  # noqa: I100

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "samples" / "scripts"
sys.path.insert(0, str(SCRIPTS))
import slope_friction_sweep as slope  # noqa: E402

FACTORIES = ["DynamicsSimulatorFactory", "DynamicsSimulatorFactory1",
             "DynamicsSimulatorFactory2"]


@pytest.fixture(scope="module")
def dyn3(built, tmp_path_factory):
    """A server set started with `hrpsim up --dynamics 3`; yields (state dir, Client)."""
    state_dir = tmp_path_factory.mktemp("hrpsim-dyn3")
    start_servers(state_dir, "--dynamics", "3")
    try:
        state = launcher.read_state(state_dir)
        yield state_dir, hrpsim.connect(state["naming"])
    finally:
        stop_servers(state_dir)


@pytest.fixture(scope="module")
def box_url():
    return slope.BOX_URL  # a primitive: built by the ModelLoader, no file


def drop_on_slope(sim, param):
    """A run with contacts and friction: the cube dropped from a small height onto the slope,
    turned by a small angle, with friction param["mu"]; returns the arrays at the end."""
    sim.add_model("slope", slope.SLOPE)
    sim.add_model("box", param["box"])
    a = param["tilt"]
    R = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0],
                  [0.0, 0.0, 1.0]])
    sim.set_root_pose("box", (0.0, 0.0, 0.3), R)
    sim.add_collision_pair("slope", "box", friction=param["mu"])
    sim.run(0.4)
    snap = sim.snapshot()
    return {"param": param, "factory": sim.factory_name, "pid": os.getpid(),
            "p": snap["box"]["p"], "R": snap["box"]["R"], "time": snap["time"],
            "v": np.concatenate(sim.root_velocity("box"))}


def fails(sim, param):
    if param == 2:
        raise ValueError("param 2 is bad")
    return param


def params(box):
    return [{"mu": mu, "tilt": tilt, "box": box}
            for mu, tilt in [(0.0, 0.0), (0.1, 0.3), (0.2, 0.6), (0.3, 0.9), (0.5, 1.2),
                             (1.0, 1.5)]]


def same_results(swept, serial):
    assert len(swept) == len(serial)
    for a, b in zip(swept, serial):
        assert a["param"] == b["param"]
        for key in ("p", "R", "v"):
            assert np.array_equal(a[key], b[key]), "%s of %r differs" % (key, a["param"])
        assert a["time"] == b["time"]


# =============================================================================================
# up --dynamics N
# =============================================================================================


def test_up_dynamics_starts_n_bound_factories(dyn3):
    state_dir, client = dyn3
    assert hrpsim.dynamics_factories(client) == FACTORIES
    state = launcher.read_state(state_dir)
    recs = {r["name"]: r for r in state["processes"]}
    assert len({recs[n]["pid"] for n in FACTORIES}) == 3
    iors = set()
    for name in FACTORIES:
        factory = client.resolve(name, hrpsim.OpenHRP.DynamicsSimulatorFactory)
        sim = factory.create()
        sim.destroy()
        iors.add(client.orb.object_to_string(factory))
    assert len(iors) == 3
    proc = run_cli("status", "--state-dir", state_dir)
    assert proc.returncode == 0, describe(proc)
    for name in FACTORIES:
        assert name in proc.stdout


def test_up_dynamics_refuses_zero(state_dirs):
    proc = run_cli("up", "--state-dir", state_dirs("dyn0"), "--dynamics", "0")
    assert proc.returncode == 1, describe(proc)
    assert "--dynamics" in proc.stderr


# =============================================================================================
# sweep
# =============================================================================================


def test_sweep_returns_the_runs_one_by_one_in_parameter_order(dyn3, box_url):
    _, client = dyn3
    ps = params(box_url)
    swept = hrpsim.sweep(drop_on_slope, ps, workers=3, naming=client.naming)
    serial = run_serial(drop_on_slope, ps, client=client)
    same_results(swept, serial)
    assert {r["factory"] for r in swept} <= set(FACTORIES)
    assert all(r["pid"] != os.getpid() for r in swept)  # run in worker processes
    assert all(r["factory"] == "DynamicsSimulatorFactory" for r in serial)
    # the runs differ from each other: the comparison is not trivially true
    assert len({tuple(r["p"][0]) for r in serial}) == len(ps)


def test_sweep_runs_on_the_engine_it_is_given(dyn3, box_url):
    """engine= goes to every run's Simulation: ODE by name, else the default (joint space)."""
    _, client = dyn3
    ps = params(box_url)[1:3]
    ode = hrpsim.sweep(drop_on_slope, ps, workers=2, naming=client.naming, engine="ode")
    same_results(ode, run_serial(drop_on_slope, ps, client=client, engine="ode"))
    default = hrpsim.sweep(drop_on_slope, ps, workers=2, naming=client.naming)
    same_results(default, run_serial(drop_on_slope, ps, client=client, engine="joint_space"))
    assert all(not np.array_equal(a["p"], b["p"]) for a, b in zip(ode, default))


def test_sweep_with_more_workers_than_servers_reuses_them(dyn3, box_url):
    _, client = dyn3
    ps = params(box_url)
    swept = hrpsim.sweep(drop_on_slope, ps, workers=5, naming=client.naming,
                         factories=FACTORIES[:2])
    assert {r["factory"] for r in swept} <= set(FACTORIES[:2])
    same_results(swept, run_serial(drop_on_slope, ps, client=client,
                                   factory="DynamicsSimulatorFactory2"))


def test_sweep_raises_what_the_function_raises(dyn3):
    _, client = dyn3
    with pytest.raises(ValueError, match="param 2 is bad"):
        hrpsim.sweep(fails, [0, 1, 2, 3], workers=2, naming=client.naming)
    assert hrpsim.sweep(fails, [], naming=client.naming) == []


# =============================================================================================
# the slope sample
# =============================================================================================


def test_slope_sample_agrees_with_the_analytic_slide_distance(dyn3):
    _, client = dyn3
    # 0.17: 0.35 degrees past the friction angle, a = 0.061 m/s^2: slow for longer than the
    # sleep time but speeding up, so it slides with sleeping on (the sample's default)
    mus = [0.0, 0.05, 0.1, 0.15, 0.17, 0.2, 0.3]
    duration = 1.0
    distances = slope.run_sweep(mus, duration, workers=3, naming=client.naming)
    for mu, d in zip(mus, distances):
        ref = slope.analytic_distance(mu, duration)
        if ref > 0:
            assert d == pytest.approx(ref, rel=0.05), "mu=%g" % mu
        else:
            assert abs(d) < 1e-3, "mu=%g >= tan(10 deg): the box should stick" % mu
    lines, ok = slope.check(mus, distances, duration)
    assert ok, "\n".join(lines)


def test_slope_sample_script_writes_its_plot(dyn3, tmp_path):
    import subprocess
    from conftest import cli_env
    _, client = dyn3
    out = tmp_path / "slope.png"
    env = cli_env()
    env["HRPSIM_NAMING"] = client.naming
    proc = subprocess.run([sys.executable, str(SCRIPTS / "slope_friction_sweep.py"),
                           "--workers", "3", "--out", str(out)], capture_output=True,
                          text=True, timeout=300, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)
    assert out.stat().st_size > 10000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "sticks" in proc.stdout
