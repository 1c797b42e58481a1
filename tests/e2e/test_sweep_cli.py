"""`hrpsim sweep SCRIPT_OR_SPEC` and the sweep directory it writes.

- a JSON spec with a grid of 3 x 1 parameter sets, one of which makes the script raise: exit
  status 1, index.csv and index.json with one row per run in grid order, status "ok" / "error"
  (with the exception's message), the scalars equal to the same runs done one by one in this
  process (bit for bit, through the JSON text), a run directory per run with what the script
  wrote there through hrpsim.sweep_run_dir(), and the PNG of --plot;
- `--help` shows an example; a script without parameters is a one-line error;
- the sample grid sweep (2 heights x 3 frictions) plots a line per height;
- a script with setup(sim) and SETTLE: the settling phase runs once, every run starts from its
  state, and the table equals runs that each settle themselves (bit for bit); --settle
  overrides SETTLE; a settling phase without setup(sim) is a one-line error;
- a sweep whose every run fails: plain progress lines on a non-terminal stderr, the plot refused
  with the first error, sweep_run_dir() a Path.
"""

import json

from hrpsim.sweep import run_serial
from hrpsim.sweep_cli import load

from conftest import describe, run_cli  # noqa: I100

SCRIPT = '''
from pathlib import Path

import hrpsim
from hrpsim import paths

MODELS = paths.REPO_ROOT / "samples" / "models"


def run(sim, param):
    if param["height"] == 2.0:
        raise ValueError("too high: %g" % param["height"])
    sim.add_model("robot", str(MODELS / "humanoid" / "humanoid.wrl"))
    sim.set_root_pose("robot", (0.0, 0.0, param["height"]))
    sim.run(param["t"])
    if hrpsim.sweep_run_dir():  # None outside a sweep with a directory
        Path(hrpsim.sweep_run_dir(), "note.txt").write_text("ran %r" % param)
    return {"z": float(sim.link_poses("robot")[0][0][2]), "steps": sim.steps}
'''

SPEC = {"script": "fall.py", "grid": {"height": [1.0, 2.0, 1.5], "t": [0.05]},
        "sim": {"dt": 0.001}, "plot": {"x": "height", "y": "z"}}


def test_sweep_command_writes_the_sweep_directory(tmp_path):
    (tmp_path / "fall.py").write_text(SCRIPT)
    (tmp_path / "spec.json").write_text(json.dumps(SPEC))
    out = tmp_path / "out"
    proc = run_cli("sweep", tmp_path / "spec.json", "--workers", "2", "--out", out)
    assert proc.returncode == 1, describe(proc)  # one run failed
    assert "3 runs (1 failed)" in proc.stdout, describe(proc)
    index = json.loads((out / "index.json").read_text())
    runs = index["runs"]
    assert [r["height"] for r in runs] == [1.0, 2.0, 1.5]
    assert [r["status"] for r in runs] == ["ok", "error", "ok"]
    assert runs[1]["error"] == "ValueError: too high: 2"
    func, params, sim_options, _ = load(tmp_path / "spec.json")
    serial = run_serial(func, [params[0], params[2]], **sim_options)
    assert [(r["z"], r["steps"]) for r in (runs[0], runs[2])] == \
        [(r["z"], r["steps"]) for r in serial]
    assert serial[0]["steps"] == 50 and serial[0]["z"] != serial[1]["z"]
    csv_lines = (out / "index.csv").read_text().splitlines()
    assert csv_lines[0].split(",")[:6] == ["index", "run_dir", "height", "t", "status", "error"]
    assert len(csv_lines) == 4
    assert (out / "runs" / "0000" / "note.txt").read_text() == "ran %r" % params[0]
    assert not (out / "runs" / "0001" / "note.txt").exists()
    summary = json.loads((out / "runs" / "0002" / "summary.json").read_text())
    assert summary == {"param": params[2], "status": "ok", "error": "",
                       "scalars": {"z": serial[1]["z"], "steps": 50}}
    summary = json.loads((out / "runs" / "0001" / "summary.json").read_text())
    assert summary["status"] == "error" and summary["error"] == "ValueError: too high: 2"
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sweep_command_help_and_errors(tmp_path):
    proc = run_cli("sweep", "--help")
    assert proc.returncode == 0 and "hrpsim sweep samples/scripts/humanoid_sweep.py" in \
        proc.stdout, describe(proc)
    (tmp_path / "empty.py").write_text("def run(sim, param):\n    return 1\n")
    proc = run_cli("sweep", tmp_path / "empty.py")
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("hrpsim: sweep:") and "PARAMS" in proc.stderr, \
        describe(proc)


def test_the_sample_grid_sweep_plots_a_line_per_height(tmp_path):
    """`hrpsim sweep samples/scripts/humanoid_sweep.json`: 2 heights x 3 frictions. Its plot of
    waist drift against friction draws one line per height (each through that height's three
    runs, in friction order, labelled), not one line zigzagging between the heights."""
    import matplotlib
    matplotlib.use("Agg")
    from hrpsim.sweep import sweep_figure
    from conftest import REPO_ROOT
    out = tmp_path / "out"
    proc = run_cli("sweep", REPO_ROOT / "samples" / "scripts" / "humanoid_sweep.json",
                   "--out", out, "--no-progress")
    assert proc.returncode == 0, describe(proc)
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads((out / "index.json").read_text())["runs"]
    assert len(rows) == 6
    # the rows of index.json (index, run_dir, the parameters, status, the scalars), as the
    # command's table has them
    fig = sweep_figure(rows, "friction", "waist_drift")
    [ax] = fig.axes
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert sorted(lines) == ["height = 0.85", "height = 0.95"]
    for h in (0.85, 0.95):
        mine = sorted((r["friction"], r["waist_drift"]) for r in rows if r["height"] == h)
        ln = lines["height = %g" % h]
        assert list(ln.get_xdata()) == [f for f, _ in mine] == [0.2, 0.5, 0.8]
        assert list(ln.get_ydata()) == [d for _, d in mine]
    assert "a line per height" in ax.get_title()
    assert ax.get_legend() is not None


def test_sweep_figure_splits_by_the_parameters_that_vary():
    """From a table as sweep(table=True) makes it (parameters before "status"): the other
    parameters that vary split the lines, one that is the same in every run does not, runs in
    error are left out; a one-parameter sweep is one line with no legend."""
    import matplotlib
    matplotlib.use("Agg")
    from hrpsim.sweep import sweep_figure, sweep_table, table_rows
    params = [{"h": h, "mu": mu, "dt": 0.001} for h in (1, 2) for mu in (0.6, 0.2, 0.4)]
    results = [{"d": p["h"] * 10 + p["mu"]} for p in params]
    errors = [None] * 5 + ["ValueError: no"]
    for table in (sweep_table(params, results, errors), table_rows(params, results, errors)):
        fig = sweep_figure(table, "mu", "d")
        ax = fig.axes[0]
        lines = {ln.get_label(): (list(ln.get_xdata()), list(ln.get_ydata()))
                 for ln in ax.get_lines()}
        assert lines == {"h = 1": ([0.2, 0.4, 0.6], [10.2, 10.4, 10.6]),
                         "h = 2": ([0.2, 0.6], [20.2, 20.6])}
    one = sweep_table([{"mu": mu} for mu in (0.3, 0.1)], [1.0, 2.0])
    fig = sweep_figure(one, "mu", "result")
    [ln] = fig.axes[0].get_lines()
    assert list(ln.get_xdata()) == [0.1, 0.3] and fig.axes[0].get_legend() is None


FAILING = '''
import hrpsim


def run(sim, param):
    (hrpsim.sweep_run_dir() / "started.txt").write_text("%r" % param)  # a Path (was a str)
    raise RuntimeError("no model for %g" % param)


PARAMS = [0.5, 1.5]
'''


def test_a_sweep_where_every_run_fails_says_so_in_plain_lines(tmp_path):
    """Every run fails, a plot is asked for: the progress on a non-terminal stderr is plain
    lines (no tqdm carriage returns), the plot is refused with the first run's error (not
    pandas' KeyError: 'z'), and sweep_run_dir() is a Path (a user's `d / "x"` raised
    TypeError)."""
    (tmp_path / "failing.py").write_text(FAILING)
    out = tmp_path / "out"
    proc = run_cli("sweep", tmp_path / "failing.py", "--workers", "2", "--out", out,
                   "--plot", "param:z")
    assert proc.returncode == 1, describe(proc)
    # (text mode reads tqdm's carriage returns as line ends: each redraw would be a line)
    lines = proc.stderr.splitlines()
    assert [ln for ln in lines if ln.startswith("sweep: ")] == ["sweep: 1/2 runs",
                                                                 "sweep: 2/2 runs"], lines
    assert ("plot: none: sweep_plot: every run failed (2 of 2), nothing to plot; the first "
            "error (run 0): RuntimeError: no model for 0.5") in lines, describe(proc)
    assert "2 runs (2 failed)" in proc.stdout, describe(proc)
    assert not (out / "plot.png").exists()
    assert (out / "runs" / "0001" / "started.txt").read_text() == "1.5"


def test_sweep_plot_of_failed_runs_names_the_first_error(tmp_path):
    import pytest
    from hrpsim import errors
    from hrpsim.sweep import sweep_plot, sweep_table
    table = sweep_table([1.0, 2.0], [None, None], ["ValueError: bad 1", "ValueError: bad 2"])
    with pytest.raises(errors.BadArgument, match=r"every run failed \(2 of 2\).*"
                                                 r"\(run 0\): ValueError: bad 1"):
        sweep_plot(table, "param", "z", tmp_path / "p.png")
    table = sweep_table([1.0, 2.0], [{"z": 1.0}, {"z": 2.0}])
    with pytest.raises(ValueError, match="no column 'y'.*param, status, error, z"):
        sweep_plot(table, "param", "y", tmp_path / "p.png")
    assert not (tmp_path / "p.png").exists()


SETTLING = '''
from hrpsim import paths

MODELS = paths.REPO_ROOT / "samples" / "models"
SETTLE = 0.04
PARAMS = [{"push": f} for f in (0.0, 40.0, -40.0)]
SIM_OPTIONS = {"dt": 0.001}


def setup(sim):
    sim.add_model("floor", str(MODELS / "floor" / "floor.wrl"))
    sim.add_model("robot", str(MODELS / "humanoid" / "humanoid.wrl"))
    sim.set_root_pose("robot", (0.0, 0.0, 0.86))
    sim.add_collision_pair("floor", "robot", friction=0.5)


def run(sim, param):
    sim.set_link_data("robot", "WAIST", "EXTERNAL_FORCE", [param["push"], 0, 0, 0, 0, 0])
    sim.step(30)
    return {"x": float(sim.link_poses("robot")[0][0][0]), "t": sim.time, "steps": sim.steps}
'''


def test_sweep_command_branches_from_a_settled_state(tmp_path):
    script = tmp_path / "push.py"
    script.write_text(SETTLING)
    out = tmp_path / "out"
    proc = run_cli("sweep", script, "--workers", "2", "--out", out, "--no-progress")
    assert proc.returncode == 0, describe(proc)
    assert "settled: State(t=0.04 s, steps=40" in proc.stdout, describe(proc)
    runs = json.loads((out / "index.json").read_text())["runs"]
    func, params, sim_options, _ = load(script)
    setup = func.namespace().setup

    def settle_then_run(sim, param):  # what every run stands for: its own settling, then run
        setup(sim)
        sim.step(40)
        return func(sim, param)

    serial = run_serial(settle_then_run, params, **sim_options)
    assert [(r["x"], r["t"], r["steps"]) for r in runs] == \
        [(r["x"], r["t"], r["steps"]) for r in serial]
    assert runs[0]["steps"] == 70 and len({r["x"] for r in runs}) == 3  # the pushes differ
    # --settle overrides SETTLE; a settling phase needs setup(sim)
    proc = run_cli("sweep", script, "--workers", "1", "--out", tmp_path / "o2", "--no-progress",
                   "--settle", "0.01")
    assert proc.returncode == 0 and "steps=10," in proc.stdout, describe(proc)
    script.write_text(SETTLING.replace("def setup(sim):", "def set_up(sim):"))
    proc = run_cli("sweep", script, "--out", tmp_path / "o3")
    assert proc.returncode != 0 and "needs setup(sim)" in proc.stderr, describe(proc)
