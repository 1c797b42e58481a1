#!/usr/bin/env python3
"""Many bodies: steps per second of the C world with the broad phase and sleeping off and on.

Run after the build:  .venv/bin/python bench/bench_many.py [--quick] [--json OUT]

Scenes (build/bin/hrpsim-bench-many, 1 ms steps, sensors computed every step, in process):
  - pile N (10, 100, 400): N free 0.1 m boxes dropped in 4 staggered layers onto the floor,
    every box/box and box/floor pair registered; timed over the fall (the first steps), over
    the whole run (the fall, the pile forming, the pile at rest), and over 1,000 steps of the
    pile at rest (after 3 or 4 s);
  - rest 1000: 1,000 boxes resting on the floor, every pair registered (500,500 pairs); timed
    after 0.5 s;
  - humanoids N (1, 4, 16): N sample humanoids standing 1.5 m apart on one floor, every joint
    high gain; the figure to compare is the cost per humanoid (us per step / N). --humanoids
    runs only these, on both engines, high gain and torque mode, with callgrind's instructions
    per step per humanoid (valgrind needed).
Each scene runs twice side by side in one run: "before" (broad phase off, no sleeping: every
registered pair tested every step, as OpenHRP and hrpsim before the broad phase) and "after"
(the broad phase automatic, sleeping on: what hrpsim projects and hrpsim.Simulation get). The
checksum of the final poses tells whether a run took the same trajectory; with sleeping off
the broad phase never changes it (tests/unit/dynamics/test_sleep.c). With --vs, both columns
have the broad phase and sleeping on, and "before" is the stepper and sleeping without
hsdOptions.pileRows and without the acceleration check of sleeping.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import bench_dynamics  # noqa: E402

FLOOR = bench_dynamics.FLOOR
HUMANOID = bench_dynamics.HUMANOID
BOX = bench_dynamics.BOX

MODES = {"before": ("off", "0"), "after": ("auto", "1")}


# --vs: the piles' stepper and sleeping as they were before hsdOptions.pileRows and the
# acceleration check of sleeping (bench_many.c's switches)
OLD_STEPPER = {"BENCH_MANY_PILE_ROWS": "100000", "BENCH_MANY_SLEEP_ACC": "1e9"}


def run(scene, n, steps, mode, warmup=0, env=None, callgrind=None):
    broad, sleep = MODES[mode]
    cmd = [str(bench_dynamics.bin_path("hrpsim-bench-many")), scene, str(n), str(steps),
           str(FLOOR), str(BOX), str(HUMANOID), broad, sleep, str(warmup)]
    if callgrind:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + callgrind,
               "--toggle-collect=hsd_step"] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    return json.loads(out.stdout)


def humanoids_table(repeat, quick):
    """--humanoids: 1, 4 and 16 humanoids on one floor, on both engines, high gain and torque
    mode (bench_many.c's BENCH_MANY_TORQUE: the sample PD law holding the initial pose): steps/s
    (best of repeat runs, interleaved), us per step per humanoid, and callgrind's instructions
    per hsd_step per humanoid over the first 300 steps (which the machine's load does not move;
    the sensors' hss_update, linear in the characters, not counted)"""
    steps = 1000 if quick else 4000
    print(f"{'engine':12s} {'mode':9s} {'n':>3s} {'steps/s':>9s} {'us/step/humanoid':>17s} "
          f"{'instructions/step/humanoid':>27s} {'contacts':>8s}")
    rows = []
    for engine in ("ode", "joint_space"):
        for torque in ("0", "1"):
            for n in (1, 4, 16):
                env = {"BENCH_MANY_ENGINE": engine, "BENCH_MANY_TORQUE": torque}
                best = None
                for _ in range(repeat):
                    x = run("humanoids", n, max(100, steps // n), "after", 100, env)
                    if best is None or x["steps_per_s"] > best["steps_per_s"]:
                        best = x
                with tempfile.TemporaryDirectory() as tmp:
                    out = os.path.join(tmp, "cg.out")
                    run("humanoids", n, 300, "after", 0, env, callgrind=out)
                    total = int(re.search(r"^summary:\s*(\d+)", Path(out).read_text(),
                                          re.M).group(1))
                ins = total / 300 / n
                mode = "torque" if torque == "1" else "high gain"
                rows.append({"engine": engine, "mode": mode, "n": n, **best,
                             "instructions_per_humanoid": ins})
                print(f"{engine:12s} {mode:9s} {n:3d} {best['steps_per_s']:9.1f} "
                      f"{best['us_per_step'] / n:17.2f} {ins:27.0f} {best['contacts']:8d}",
                      flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer steps (a smoke run)")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--vs", action="store_true",
                    help="compare the piles' stepper and sleeping before pileRows and the "
                         "acceleration check (\"before\") with today's (\"after\"), both with "
                         "the broad phase and sleeping on")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each scene and mode, interleaved; the best counts (default 1)")
    ap.add_argument("--humanoids", action="store_true",
                    help="only the 1/4/16 humanoids on both engines, high gain and torque mode, "
                         "with callgrind's instructions per step per humanoid")
    args = ap.parse_args()
    bench_dynamics.ensure_box()
    if args.humanoids:
        rows = humanoids_table(args.repeat, args.quick)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
        return
    q = 0.25 if args.quick else 1.0
    # (label, scene, n, steps, warmup)
    cases = [
        ("pile 10, whole run 3 s", "pile", 10, 3000, 0),
        ("pile 10 at rest", "pile", 10, 1000, 3000),
        ("pile 100, fall (first 0.5 s)", "pile", 100, 500, 0),
        ("pile 100, whole run 3 s", "pile", 100, 3000, 0),
        ("pile 100 at rest", "pile", 100, 1000, 4000),
        ("pile 400, fall (first 0.3 s)", "pile", 400, 300, 0),
        ("rest 1000, all pairs", "rest", 1000, 500, 500),
        ("humanoids 1", "humanoids", 1, 2000, 0),
        ("humanoids 4", "humanoids", 4, 1000, 0),
        ("humanoids 16", "humanoids", 16, 500, 0),
    ]
    results = []
    print(f"{'scene':30s} {'before steps/s':>15s} {'after steps/s':>15s} {'ratio':>7s} "
          f"{'us/step/body after':>19s} {'asleep':>9s} {'same path':>9s}")
    for label, scene, n, steps, warmup in cases:
        steps = max(100, int(steps * q))
        warmup = int(warmup * q) if warmup else 0
        # best of args.repeat runs each, interleaved (the machine is shared and noisy)
        r = {}
        for _ in range(args.repeat):
            for m in ("before", "after"):
                if args.vs:
                    x = run(scene, n, steps, "after", warmup,
                            OLD_STEPPER if m == "before" else None)
                else:
                    x = run(scene, n, steps, m, warmup)
                if m not in r or x["steps_per_s"] > r[m]["steps_per_s"]:
                    r[m] = x
        results.append({"label": label, **r})
        b, a = r["before"], r["after"]
        print(f"{label:30s} {b['steps_per_s']:15.1f} {a['steps_per_s']:15.1f} "
              f"{a['steps_per_s'] / b['steps_per_s']:7.2f} {a['us_per_step'] / n:19.2f} "
              f"{a['sleeping']:4d}/{n:<4d} {str(a['checksum'] == b['checksum']):>9s}",
              flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
