"""`hrpsim run --local` against `hrpsim run` on the servers, on every sample project.

    .venv/bin/python bench/bench_run_local.py [--rounds N] [--projects NAME ...]

Starts one server set (a private state dir), then runs each project of samples/projects
through both paths, in alternation (local, served, local, served, ...: a drift in the
machine's speed hits both), with --no-plots and no cameras (the run's loop and its log, not
the pictures). Prints, per project, the median of each path's ``wall_time`` from summary.json
(the run loop: controller ticks, steps, log records; the servers' start-up and the CLI's own
are not in it) and the ratio local / served (below 1: local is faster). A project whose
controllers are commands only is skipped on the local path (it refuses them).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable


def run(args, env):
    return subprocess.run([PY, "-m", "hrpsim", "run", "--no-plots", "--no-cameras", "--quiet",
                           *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL)


def wall(out):
    return json.loads((Path(out) / "summary.json").read_text())["wall_time"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--projects", nargs="*")
    a = ap.parse_args(argv)
    projects = sorted((REPO / "samples" / "projects").glob("*.xml"))
    if a.projects:
        projects = [p for p in projects if p.stem in a.projects]
    with tempfile.TemporaryDirectory(prefix="bench-run-local-") as tmp:
        state = Path(tmp) / "state"
        env = dict(os.environ)
        env.pop("HRPSIM_NAMING", None)
        subprocess.run([PY, "-m", "hrpsim", "up", "--state-dir", str(state)], check=True,
                       env=env, capture_output=True)
        try:
            print("%-22s %12s %12s %8s" % ("project", "local [s]", "served [s]", "ratio"))
            for p in projects:
                times = {"local": [], "served": []}
                for r in range(a.rounds):
                    out = Path(tmp) / ("%s-local-%d" % (p.stem, r))
                    proc = run(["--local", "--out", str(out), str(p)], env)
                    if proc.returncode == 0:
                        times["local"].append(wall(out))
                    elif "external command" in proc.stderr:
                        times["local"] = None
                    else:
                        sys.stderr.write(proc.stderr)
                    out = Path(tmp) / ("%s-served-%d" % (p.stem, r))
                    proc = run(["--state-dir", str(state), "--out", str(out), str(p)], env)
                    if proc.returncode == 0:
                        times["served"].append(wall(out))
                    else:
                        sys.stderr.write(proc.stderr)
                    if times["local"] is None:
                        times["local"] = []
                        break
                lo = statistics.median(times["local"]) if times["local"] else float("nan")
                se = statistics.median(times["served"]) if times["served"] else float("nan")
                print("%-22s %12.3f %12.3f %8.2f" % (p.stem, lo, se, lo / se), flush=True)
        finally:
            subprocess.run([PY, "-m", "hrpsim", "down", "--state-dir", str(state)], env=env,
                           capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
