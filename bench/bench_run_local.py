"""`hrpsim run --local` against `hrpsim run` on the servers, on every sample project.

    .venv/bin/python bench/bench_run_local.py [--rounds N] [--projects NAME ...]
        [--every-step NAME] [--json OUT]

Starts one server set (a private state dir), then runs each project of samples/projects
through both paths, in alternation (local, served, local, served, ...: a drift in the
machine's speed hits both), with --no-plots and no cameras (the run's loop and its log, not
the pictures). Per project and path it prints the median and the spread (min-max) of two
times: ``wall_time`` from summary.json (the run loop: controller ticks, steps, log records;
the servers' start-up and the CLI's own are not in it) and the whole command's (the `hrpsim
run` process from start to exit, as a user waits for it: import, model loading, the
controller's process on the served path, the results written), each with the ratio local /
served as the median of the rounds' ratios (below 1: local is faster); and whether the two
paths' log.npz of the first round are bit-identical (every key, dtype, shape and byte).

``--every-step NAME`` (default humanoid_squat; "" for none) adds a variant of that project
whose ``<log period>`` is its time step (a record after every step), written beside the
temporary results with its paths made absolute. A project whose controllers are commands only
is skipped on the local path (it refuses them): it shows "-" there.
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

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
PY = sys.executable


def run(args, env):
    """One `hrpsim run` (no plots, no cameras, quiet): (process, its wall time [s])."""
    t0 = time.perf_counter()
    proc = subprocess.run([PY, "-m", "hrpsim", "run", "--no-plots", "--no-cameras", "--quiet",
                           *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL)
    return proc, time.perf_counter() - t0


def wall(out):
    return json.loads((Path(out) / "summary.json").read_text())["wall_time"]


def same_log(a, b):
    """Whether two results directories' log.npz are bit-identical."""
    la, lb = np.load(Path(a) / "log.npz"), np.load(Path(b) / "log.npz")
    if sorted(la.files) != sorted(lb.files):
        return False
    return all(la[k].dtype == lb[k].dtype and la[k].shape == lb[k].shape
               and la[k].tobytes() == lb[k].tobytes() for k in la.files)


def every_step_variant(project, tmp):
    """A copy of the hrpsim project ``project`` in ``tmp`` logging after every step, its
    relative paths (to samples/) made absolute; None for a project it cannot rewrite."""
    text = project.read_text()
    step = re.search(r'timeStep="([^"]+)"', text)
    if not step or "<log " not in text:
        return None
    text = re.sub(r'<log period="[^"]*"', '<log period="%s"' % step.group(1), text)
    text = text.replace("$(PROJECT_DIR)/..", str(SAMPLES))
    text = text.replace('"../', '"%s/' % SAMPLES).replace(" ../", " %s/" % SAMPLES)
    out = Path(tmp) / ("%s_log_every_step.xml" % project.stem)
    out.write_text(text)
    return out


def spread(xs):
    """'median (min-max)' of xs, or '-'."""
    if not xs:
        return "-"
    return "%.3f (%.3f-%.3f)" % (statistics.median(xs), min(xs), max(xs))


def ratio(a, b):
    """The median of the rounds' ratios a / b (each round's pair ran back to back), or '-'."""
    if not a or not b or len(a) != len(b):
        return "-"
    return "%.2f" % statistics.median(x / y for x, y in zip(a, b))


def bench_project(p, rounds, tmp, state, env):
    """The figures of project file ``p``: per path its wall_time and command times of the
    rounds where both paths ran (so that round r of one pairs with round r of the other; the
    served ones alone when the local path refuses the project), and the fidelity verdict."""
    t = {"local": [], "served": [], "local_cmd": [], "served_cmd": []}
    identical, refused = None, False
    for r in range(rounds):
        local_out = Path(tmp) / ("%s-local-%d" % (p.stem, r))
        local = None
        if not refused:
            proc, cmd = run(["--local", "--out", str(local_out), str(p)], env)
            refused = proc.returncode != 0 and "external command" in proc.stderr
            if proc.returncode == 0:
                local = (wall(local_out), cmd)
            elif not refused:
                sys.stderr.write("%s --local: %s" % (p.stem, proc.stderr))
        served_out = Path(tmp) / ("%s-served-%d" % (p.stem, r))
        proc, cmd = run(["--state-dir", str(state), "--out", str(served_out), str(p)], env)
        if proc.returncode != 0:
            sys.stderr.write("%s served: %s" % (p.stem, proc.stderr))
            continue
        if local is None and not refused:
            continue
        t["served"].append(wall(served_out))
        t["served_cmd"].append(cmd)
        if local is not None:
            t["local"].append(local[0])
            t["local_cmd"].append(local[1])
            if identical is None:
                identical = same_log(local_out, served_out)
    return t, identical


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--projects", nargs="*", help="project names (file stems) to run")
    ap.add_argument("--every-step", default="humanoid_squat",
                    help="the project whose log-every-step variant is added ('' for none)")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args(argv)
    projects = sorted((SAMPLES / "projects").glob("*.xml"))
    if a.projects:
        projects = [p for p in projects if p.stem in a.projects]
    figures = {}
    with tempfile.TemporaryDirectory(prefix="bench-run-local-") as tmp:
        if a.every_step:
            variant = every_step_variant(SAMPLES / "projects" / (a.every_step + ".xml"), tmp)
            if variant is not None:
                projects.append(variant)
        state = Path(tmp) / "state"
        env = dict(os.environ)
        env.pop("HRPSIM_NAMING", None)
        subprocess.run([PY, "-m", "hrpsim", "up", "--state-dir", str(state)], check=True,
                       env=env, capture_output=True)
        try:
            print("%d rounds, alternating; times in s: median (min-max)" % a.rounds)
            print("%-32s %21s %21s %6s %21s %21s %6s %s"
                  % ("project", "local wall_time", "served wall_time", "ratio",
                     "local command", "served command", "ratio", "bit-identical"))
            for p in projects:
                t, identical = bench_project(p, a.rounds, tmp, state, env)
                verdict = "-" if identical is None else ("yes" if identical else "NO")
                print("%-32s %21s %21s %6s %21s %21s %6s %s"
                      % (p.stem, spread(t["local"]), spread(t["served"]),
                         ratio(t["local"], t["served"]), spread(t["local_cmd"]),
                         spread(t["served_cmd"]), ratio(t["local_cmd"], t["served_cmd"]),
                         verdict), flush=True)
                figures[p.stem] = dict(t, identical=identical)
        finally:
            subprocess.run([PY, "-m", "hrpsim", "down", "--state-dir", str(state)], env=env,
                           capture_output=True)
    if a.json:
        Path(a.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
