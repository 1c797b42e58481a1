#!/usr/bin/env python3
"""Repeat one simulation 20 times in the same servers and check every result is bit-identical.

    .venv/bin/python samples/scripts/repeat_runs.py [--runs 20] [--time 0.5]
        [--mode auto|scheduler|client] [--naming CORBALOC]

The run: the sample humanoid standing on the floor in high-gain mode (a slightly bent-knee
pose, floor/robot contact with friction 0.5), with a 1 kg cube dropped beside it from 0.5 m
onto the floor so contacts come and go. It goes through hrpsim's scheduler server when one is
bound as "Scheduler" (``--mode auto``, the default), else client-driven (the script creates
its own DynamicsSimulator and steps it). Between runs ``Simulation.reset()`` rebuilds the same
world in the same servers. After each run every array of ``Simulation.snapshot()`` (link poses,
joint values, velocities and torques, force sensors, gyro, accelerometer, time) is compared
bit for bit with the first run's. Prints one line per run and exits 0 if all are identical,
1 (naming the first array that differs) otherwise.
"""

import argparse
import math
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
for d in (REPO / "python", REPO / "samples" / "scripts"):
    if str(d) not in sys.path:
        sys.path.insert(0, str(d))

import hrpsim  # noqa: E402
import slope_friction_sweep  # noqa: E402  (its cube model)

MODELS = REPO / "samples" / "models"


def configure(sim, box_path):
    """The scene: floor, standing humanoid 'robot', cube 'box' falling beside it."""
    sim.add_model("floor", MODELS / "floor" / "floor.wrl")
    sim.add_model("robot", MODELS / "humanoid" / "humanoid.wrl")
    sim.add_model("box", box_path)
    bend = 0.2
    q = np.zeros(len(sim.joint_names("robot")))
    for i, name in enumerate(sim.joint_names("robot")):
        if "_HIP_P" in name or "_ANKLE_P" in name:
            q[i] = -bend
        elif "LEG_KNEE" in name:
            q[i] = 2 * bend
    sim.set_joint_mode("robot", "high_gain")
    sim.set_root_pose("robot", (0.0, 0.0, 0.82 - 0.6 * (1 - math.cos(bend))))
    sim.set_joint_values("robot", q)
    a = 0.4  # the cube turned a little, so it lands on an edge
    sim.set_root_pose("box", (0.5, 0.3, 0.5), [[math.cos(a), 0, math.sin(a)], [0, 1, 0],
                                                [-math.sin(a), 0, math.cos(a)]])
    sim.add_collision_pair("floor", "robot", friction=0.5)
    sim.add_collision_pair("floor", "box", friction=0.5)


def first_difference(a, b, where="snapshot"):
    """Where two snapshots differ (text), or None if they are bit-identical."""
    if a.keys() != b.keys():
        return "%s: keys %s vs %s" % (where, sorted(a), sorted(b))
    for k in a:
        if isinstance(a[k], dict):
            d = first_difference(a[k], b[k], "%s[%s]" % (where, k))
            if d:
                return d
        elif not np.array_equal(np.asarray(a[k]), np.asarray(b[k])):
            diff = np.max(np.abs(np.asarray(a[k], float) - np.asarray(b[k], float)))
            return "%s[%s] (max difference %.3g)" % (where, k, diff)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20, help="how many runs (default 20)")
    ap.add_argument("--time", type=float, default=0.5, help="seconds per run (default 0.5)")
    ap.add_argument("--dt", type=float, default=0.001, help="time step (default 0.001)")
    ap.add_argument("--mode", choices=("auto", "scheduler", "client"), default="auto",
                    help="through the scheduler server, client-driven, or the scheduler if "
                         "one is bound (default)")
    ap.add_argument("--naming", help="naming service (default: HRPSIM_NAMING or hrpsim up's "
                    "state)")
    args = ap.parse_args()
    if args.runs < 2 or not args.time > 0:
        ap.error("--runs must be >= 2 and --time positive")
    try:
        client = hrpsim.connect(args.naming)
        use_scheduler = (args.mode == "scheduler"
                         or (args.mode == "auto" and "Scheduler" in client.names()))
        box = slope_friction_sweep.BOX_URL  # a primitive: no model file
        with hrpsim.Simulation(client, dt=args.dt, scheduler=use_scheduler) as sim:
            configure(sim, box)
            how = "through the scheduler server" if use_scheduler else "client-driven"
            print("%d runs of %g s, %s" % (args.runs, args.time, how), flush=True)
            reference = None
            for i in range(args.runs):
                sim.reset()
                sim.run(args.time)
                snap = sim.snapshot()
                if reference is None:
                    reference = snap
                    p = snap["box"]["p"][0]
                    print("run %2d: t=%.3f s, cube at (%.6f, %.6f, %.6f), reference"
                          % (i + 1, snap["time"], *p), flush=True)
                    continue
                diff = first_difference(reference, snap)
                if diff:
                    print("run %2d: DIFFERS from run 1 at %s" % (i + 1, diff), flush=True)
                    print("error: runs are not bit-identical", file=sys.stderr)
                    return 1
                print("run %2d: identical" % (i + 1), flush=True)
    except hrpsim.HrpsimError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - CORBA exceptions: the server log says more
        print("error: %s: %s" % (type(exc).__name__, exc), file=sys.stderr)
        return 1
    print("all %d runs bit-identical" % args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
