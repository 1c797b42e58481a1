#!/usr/bin/env python3
"""One table of every path a user takes, side by side in one run (issue 23's benchmark table).

Run after the build:  .venv/bin/python bench/run_all.py [--quick] [--json OUT]

--quick (a couple of minutes on a shared 2-core machine) takes fewer steps and one round per
figure; without it each figure is the best of 3 rounds. Every row reuses an existing bench:
  - in process, the sample humanoid standing on the floor, 1 ms, sensors on, over the core
    (core/core.h): every joint high gain, and every joint in torque mode under a PD loop in C
    (build/bin/hrpsim-bench-torque, bench/bench_torque.c);
  - through CORBA, step + getWorldState + getCharacterSensorState each step (three calls), from
    C++ (hrpsim-bench-dynamics-client) and Python (bench/bench_dynamics.py); the one-call rows
    appear when bench_dynamics.py has cxx_client_one_call / python_client_one_call (the
    one-call door, issue 23 part 2), else a marked row says they are not there yet;
  - the scheduler with no controller, logging every 10 ms and every step, beside the core
    stepped in process in the same run (bench/bench_scheduler.py), with an empty Python
    controller (three calls per tick), and with the sample Python PD controller
    (`hrpsim run samples/projects/humanoid_squat.xml --no-cameras`: torque mode);
  - many bodies (bench/bench_many.py, the broad phase and sleeping on): 1/4/16 humanoids on one
    floor, 10/100/400-box piles falling, 1,000 resting boxes with every pair registered;
  - the main job's real-time factor (`hrpsim run samples/projects/humanoid_squat.xml`, the
    project's own options, as ./setup.sh runs it);
  - the local Python PD loop (hrpsim.Simulation, local back end, views) beside the same loop
    in C (bench/bench_pd_loop.py);
  - MuJoCo's humanoid, 1 ms, bare mj_step and a Python PD loop (bench/bench_mujoco.py): only
    when the `mujoco` package is installed (bench only, never an hrpsim dependency:
    `.venv/bin/pip install mujoco`); otherwise a note.
The servers are started for the run in a temporary state directory and stopped afterwards.
Absolute figures swing about 2x between runs on a loaded machine; compare the ratio column
(to the in-process high-gain humanoid of the same run).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import bench_dynamics  # noqa: E402
import bench_many  # noqa: E402
import bench_mujoco  # noqa: E402
import bench_pd_loop  # noqa: E402
import bench_scheduler  # noqa: E402
import hrpsim  # noqa: E402

SQUAT = REPO / "samples/projects/humanoid_squat.xml"
CLI = [sys.executable, "-m", "hrpsim.cli"]
ENV = dict(os.environ, PYTHONPATH=str(REPO / "python"))


class Table:
    """Rows of (group, label, steps/s or None, note), printed as they come and at the end."""

    def __init__(self):
        self.rows = []
        self.base = None  # in-process high gain, steps/s

    def add(self, group, label, sps, note=""):
        self.rows.append({"group": group, "label": label, "steps_per_s": sps, "note": note})
        print("  %-50s %s %s" % (label, "%10.0f" % sps if sps else "%10s" % "-", note),
              flush=True)

    def print(self, header):
        print()
        print(header)
        print("%-52s %10s %8s %9s  %s" % ("path", "steps/s", "x real", "/ hg in", "note"))
        group = None
        for r in self.rows:
            if r["group"] != group:
                group = r["group"]
                print("-- %s" % group)
            sps = r["steps_per_s"]
            if sps:
                ratio = "%9.3f" % (sps / self.base) if self.base else "%9s" % "-"
                print("  %-50s %10.0f %8.1f %s  %s" % (r["label"], sps, sps * 1e-3, ratio,
                                                       r["note"]))
            else:
                print("  %-50s %10s %8s %9s  %s" % (r["label"], "-", "-", "-", r["note"]))


def best_of(fn, rounds):
    return max((fn() for _ in range(rounds)), key=lambda r: r["steps_per_s"])


def in_process(t, steps, rounds):
    """hrpsim-bench-torque: high gain and torque mode (C PD loop), alternating rounds."""
    out = subprocess.run([str(bench_dynamics.bin_path("hrpsim-bench-torque")),
                          str(REPO / "samples/models"), str(steps), str(rounds)],
                         check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            res[r["case"]] = r
    t.base = res["highgain"]["max"]
    t.add("in process (core)", "humanoid, high gain", res["highgain"]["max"])
    t.add("in process (core)", "humanoid, torque mode, PD loop in C", res["torque"]["max"],
          "torque/high gain %.3f (same rounds); ankle Fz step sd %.3g N"
          % (res["torque"]["ratio_median"], res["torque"]["fz_step_sd_n"]))
    # the same on the joint-space engine (hsENGINE_JOINT_SPACE, the default since issue 27;
    # the rows above name ODE's steppers, hrpsim-bench-torque sets engine ode for them)
    out = subprocess.run([str(bench_dynamics.bin_path("hrpsim-bench-torque")),
                          str(REPO / "samples/models"), str(steps), str(rounds), "both", "js"],
                         check=True, capture_output=True, text=True).stdout
    js = {r["case"]: r for r in (json.loads(x) for x in out.splitlines() if x.startswith("{"))}
    t.add("in process (core)", "humanoid, high gain, joint-space engine", js["highgain"]["max"])
    t.add("in process (core)", "humanoid, torque mode, PD loop in C, joint-space engine",
          js["torque"]["max"], "ankle Fz step sd %.3g N" % js["torque"]["fz_step_sd_n"])


def corba(t, client, naming, sched, steps, rounds):
    g = "through CORBA (humanoid, high gain)"
    t.add(g, "C++ client, three calls per step",
          best_of(lambda: bench_dynamics.cxx_client(naming, "humanoid", steps),
                  rounds)["steps_per_s"])
    t.add(g, "Python client, three calls per step",
          best_of(lambda: bench_dynamics.python_client(client, "humanoid", steps),
                  rounds)["steps_per_s"])
    # ONE-CALL ROWS: they appear when the one-call door (issue 23 part 2) is on main and
    # bench_dynamics.py drives it (cxx_client_one_call / python_client_one_call, same
    # arguments as cxx_client / python_client)
    for label, name, arg in (("C++ client, one call per step", "cxx_client_one_call", naming),
                             ("Python client, one call per step", "python_client_one_call",
                              client)):
        fn = getattr(bench_dynamics, name, None)
        if fn is None:
            t.add(g, label, None, "(one-call door: not on this branch yet)")
        else:
            t.add(g, label, best_of(lambda: fn(arg, "humanoid", steps), rounds)["steps_per_s"])

    g = "scheduler (humanoid, high gain; ratio also to the core in the same run)"
    # interleaved rounds (core, 10 ms, every step, ...), best of each: run one after the other,
    # a drift of the shared machine's load showed as a difference between the two log periods
    cases = (("core", lambda: bench_dynamics.in_process("humanoid", steps)),
             ("scheduler, no controller, log every 10 ms",
              lambda: bench_scheduler.scheduler_run(sched, steps, 0.01, True)),
             ("scheduler, no controller, log every step",
              lambda: bench_scheduler.scheduler_run(sched, steps, 0.0, True)))
    best, paired = {}, {}
    for _ in range(rounds):
        got = {label: fn()["steps_per_s"] for label, fn in cases}
        for label, sps in got.items():
            best[label] = max(best.get(label, 0.0), sps)
            paired.setdefault(label, []).append(sps / got["core"])
    core = best["core"]
    t.add(g, "core stepped in process (hs_step, reference)", core)
    for label, _ in cases[1:]:
        t.add(g, label, best[label], "%.3f of the core (median of %d rounds, each to its own "
              "core run: %.3f)" % (best[label] / core, rounds,
                                   statistics.median(paired[label])))
    name, cleanup = bench_scheduler.bind_controller(client)
    try:
        r = best_of(lambda: bench_scheduler.scheduler_run(sched, steps, 0.01, True,
                                                          controller=name), rounds)
        t.add(g, "scheduler + empty Python controller (three calls)", r["steps_per_s"])
    finally:
        cleanup()


def hrpsim_run(extra):
    """`hrpsim run` of the squat project; (steps/s, real-time factor) from its summary line."""
    with tempfile.TemporaryDirectory(prefix="hrpsim-runall-") as out:
        text = subprocess.run(CLI + ["run", str(SQUAT), "--no-plots", "--out", out] + extra,
                              check=True, capture_output=True, text=True, env=ENV).stdout
    m = re.search(r"(\d+) steps, ([\d.]+) s simulated in ([\d.]+) s \(x([\d.]+) real time\)",
                  text)
    if not m:
        raise RuntimeError("no summary line in: %s" % text)
    return int(m.group(1)) / float(m.group(3)), float(m.group(4))


def runs(t):
    g = "hrpsim run (scheduler + sample Python PD controller, torque mode)"
    sps, _ = hrpsim_run(["--no-cameras"])
    t.add(g, "squat project, no cameras", sps)
    sps, rtf = hrpsim_run([])
    t.add(g, "the main job: squat project as ./setup.sh runs it", sps,
          "x%.2f real time" % rtf)


def many(t, q):
    bench_dynamics.ensure_box()
    g = "many bodies (in process, broad phase + sleeping on)"
    for label, scene, n, steps in (("1 humanoid", "humanoids", 1, 2000),
                                   ("4 humanoids on one floor", "humanoids", 4, 1000),
                                   ("16 humanoids on one floor", "humanoids", 16, 500),
                                   ("10-box pile, falling", "pile", 10, 1000),
                                   ("100-box pile, falling", "pile", 100, 500),
                                   ("400-box pile, falling", "pile", 400, 300),
                                   ("1,000 resting boxes, every pair registered", "rest", 1000,
                                    500)):
        r = bench_many.run(scene, n, max(100, int(steps * q)), "after",
                           int(500 * q) if scene == "rest" else 0)
        note = "%.1f us per humanoid" % (r["us_per_step"] / n) if scene == "humanoids" else ""
        t.add(g, label, r["steps_per_s"], note)


def pd_loop(t, steps, rounds):
    g = "local Python loop (hrpsim.Simulation, torque mode, PD law)"
    sim, P, D, qref = bench_pd_loop.make_sim()
    sim.close()
    fd, gains = tempfile.mkstemp(suffix=".txt")
    with os.fdopen(fd, "w") as f:
        f.write("z %.17g\n" % bench_pd_loop.ROOT_Z)
        for p, d, r in zip(P, D, qref):
            f.write("%.17g %.17g %.17g\n" % (p, d, r))
    try:
        c = min(bench_pd_loop.c_loop(gains, steps)[0] for _ in range(rounds))
        py = min(bench_pd_loop.python_views(steps)[0] for _ in range(rounds))
    finally:
        os.unlink(gains)
    t.add(g, "PD loop in C over the core", steps / c)
    t.add(g, "PD loop in Python (local back end, views)", steps / py,
          "%.2f of C" % (c / py))


def mujoco(t, steps, rounds):
    g = "MuJoCo (bench only), its humanoid as MJCF, 1 ms"
    if not bench_mujoco.available():
        t.add(g, "MuJoCo", None, "skipped: mujoco not installed (.venv/bin/pip install mujoco)")
        return
    import mujoco as mj
    t.add(g, "MuJoCo %s humanoid, bare mj_step" % mj.__version__,
          best_of(lambda: bench_mujoco.bare(steps), rounds)["steps_per_s"])
    t.add(g, "MuJoCo %s humanoid, Python PD loop" % mj.__version__,
          best_of(lambda: bench_mujoco.pd_loop(steps), rounds)["steps_per_s"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer steps, one round per figure")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()
    q = 0.4 if args.quick else 1.0
    steps = 2000 if args.quick else 5000
    rounds = 1 if args.quick else 3
    t = Table()
    t0 = time.monotonic()
    print("running (%s): %d steps per humanoid figure, best of %d" %
          ("quick" if args.quick else "full", steps, rounds), flush=True)
    in_process(t, steps, max(rounds, 2))
    import hrpsim._idl.hrpsim as H
    with tempfile.TemporaryDirectory(prefix="hrpsim-runall-") as state:
        subprocess.run(CLI + ["up", "--state-dir", state, "--only", "ModelLoader",
                              "DynamicsSimulatorFactory", "Scheduler"], check=True,
                       stdout=subprocess.DEVNULL, env=ENV)
        try:
            naming = hrpsim.naming_from_environment(state)
            client = hrpsim.connect(naming=naming)
            sched = client.resolve("Scheduler", H.Scheduler)
            corba(t, client, naming, sched, steps, rounds)
        finally:
            subprocess.run(CLI + ["down", "--state-dir", state], check=True,
                           stdout=subprocess.DEVNULL, env=ENV)
    runs(t)
    many(t, q)
    pd_loop(t, steps, rounds)
    mujoco(t, steps, rounds)
    t.print("hrpsim benchmark table (%s run, %.0f s; ratio to the in-process high-gain "
            "humanoid of this run)" % ("quick" if args.quick else "full",
                                       time.monotonic() - t0))
    if args.json:
        Path(args.json).write_text(json.dumps({"base": t.base, "rows": t.rows}, indent=1))


if __name__ == "__main__":
    main()
