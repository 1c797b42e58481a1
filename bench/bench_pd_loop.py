#!/usr/bin/env python3
"""The Python PD loop on the local back end against the same loop in C, side by side.

    .venv/bin/python bench/bench_pd_loop.py [--steps 3000] [--rounds 3]

The scene: the sample humanoid in torque mode standing on the floor (bent knees), held by a
PD law with the sample controller's gains (samples/controllers/pd_controller.py's GAINS)
towards the bent-knee pose. One loop iteration: read q and dq, compute the torques with
NumPy, write them, step.

- C: build/bin/hrpsim-bench-torque --pd-loop, the loop over core/core.h (bench_torque.c);
- Python (views): hrpsim.Simulation(backend="local"); q and dq are NumPy views of the core's
  state (sim.local.q_view), torques computed into preallocated arrays, written with
  sim.local.set_joint_torques_by_link, one sim.local.step();
- Python (API): the same law through the Simulation API (sim.q / sim.dq copies in jointId
  order, sim.set_joint_torques, sim.step()): the convenient way.

Rounds alternate C and Python so that the shared machine's noise hits both; each figure is
the best round. Also printed: the cost of one step() from Python without the law (the C loop's
"nocontrol" mode against sim.step() and sim.local.step()), and with reading the state. The C
and Python loops end on the same bits (checked: the same law, the same core).
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "samples" / "controllers"))

import hrpsim  # noqa: E402
from pd_controller import BEND, DEFAULT_GAIN, GAINS  # noqa: E402

HUMANOID = REPO / "samples" / "models" / "humanoid" / "humanoid.wrl"
FLOOR = REPO / "samples" / "models" / "floor" / "floor.wrl"
C_BENCH = REPO / "build" / "bin" / "hrpsim-bench-torque"


def law(link_names):
    """Per link (link index order): P, D and the reference q (bent knees)."""
    P, D, qref = [], [], []
    for name in link_names:
        p, d = next(((p, d) for frag, p, d in GAINS if frag in name), DEFAULT_GAIN)
        k = -1.0 if ("_HIP_P" in name or "_ANKLE_P" in name) else (
            2.0 if "LEG_KNEE" in name else 0.0)
        P.append(p)
        D.append(d)
        qref.append(k * BEND)
    return np.array(P), np.array(D), np.array(qref)


ROOT_Z = 0.82 - 0.6 * (1 - math.cos(BEND))


def make_sim(link_law=None):
    sim = hrpsim.Simulation(backend="local", dt=0.001)
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    links = sim.link_names("robot")
    P, D, qref = law(links)
    sim.set_joint_mode("robot", "torque")
    sim.set_root_pose("robot", (0.0, 0.0, ROOT_Z))
    index = {n: k for k, n in enumerate(links)}
    sim.set_joint_values("robot", [qref[index[n]] if n else 0.0
                                   for n in sim.joint_names("robot")])
    sim.add_collision_pair("floor", "robot", friction=0.5)
    sim.start()
    return sim, P, D, qref


def python_views(steps, control=True):
    sim, P, D, qref = make_sim()
    core = sim.local
    ch = core.index("robot")
    q, dq = core.q_view(ch), core.dq_view(ch)
    tau, tmp = np.empty_like(P), np.empty_like(P)
    first = True
    t0 = time.perf_counter()
    for _ in range(steps):
        if control or first:
            np.subtract(qref, q, out=tau)
            tau *= P
            np.multiply(D, dq, out=tmp)
            tau -= tmp
            core.set_joint_torques_by_link(ch, tau)
            first = False
        core.step()
    dt = time.perf_counter() - t0
    root = core.p_view(ch)[0].copy()
    sim.close()
    return dt, root


def python_api(steps, read_state):
    sim, P, D, qref = make_sim()
    # the law in jointId order
    links = sim.link_names("robot")
    jl = [links.index(n) for n in sim.joint_names("robot")]
    Pj, Dj, qj = P[jl], D[jl], qref[jl]
    u = Pj * (qj - sim.q("robot")) - Dj * sim.dq("robot")
    sim.set_joint_torques("robot", u)
    t0 = time.perf_counter()
    for _ in range(steps):
        if read_state:
            sim.q("robot"), sim.dq("robot")
        sim.step()
    dt = time.perf_counter() - t0
    sim.close()
    return dt


def python_api_pd(steps):
    sim, P, D, qref = make_sim()
    links = sim.link_names("robot")
    jl = [links.index(n) for n in sim.joint_names("robot")]
    Pj, Dj, qj = P[jl], D[jl], qref[jl]
    t0 = time.perf_counter()
    for _ in range(steps):
        sim.set_joint_torques("robot", Pj * (qj - sim.q("robot")) - Dj * sim.dq("robot"))
        sim.step()
    dt = time.perf_counter() - t0
    sim.close()
    return dt


def c_loop(gains_file, steps, control=True):
    argv = [str(C_BENCH), "--pd-loop", str(HUMANOID), str(FLOOR), gains_file, str(steps)]
    out = subprocess.run(argv + ([] if control else ["nocontrol"]), capture_output=True,
                         text=True, check=True).stdout.split("\n")
    seconds = float(out[0].split()[3])
    root = np.array([float(x) for x in out[1].split()])
    return seconds, root


def call_overhead(rounds):
    """The cost of one step() from Python where the step itself is cheap (the arm, high gain,
    no contacts: a few microseconds in C), best of ``rounds`` x 2000 calls, interleaved:
    per call [us] of hs_step through one bare cffi call, sim.local.step(), sim.step(), and
    sim.step() with q and dq read (copies, jointId order) or viewed."""
    import timeit
    sim = hrpsim.Simulation(backend="local", dt=0.001,
                            models={"arm": REPO / "samples" / "models" / "arm6" / "arm6.wrl"})
    sim.set_joint_mode("arm", "high_gain")
    sim.start()
    core = sim.local
    lib, ptr, err = core.lib, core.ptr, core._err
    q, dq = core.q_view(0), core.dq_view(0)
    cases = {
        "hs_step (one bare cffi call)": lambda: lib.hs_step(ptr, err),
        "sim.local.step()": core.step,
        "sim.step()": sim.step,
        "sim.step() + sim.q() + sim.dq() (copies)": lambda: (sim.step(), sim.q("arm"),
                                                              sim.dq("arm")),
        "sim.local.step() + q, dq views (sum)": lambda: (core.step(), q.sum(), dq.sum()),
    }
    best = {}
    for _ in range(rounds):
        for key, f in cases.items():
            t = timeit.timeit(f, number=2000) / 2000
            best[key] = min(best.get(key, math.inf), t)
    sim.close()
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not C_BENCH.exists():
        sys.exit("build it first: ninja -C build hrpsim-bench-torque")
    sim, P, D, qref = make_sim()
    sim.close()
    fd, gains_file = tempfile.mkstemp(suffix=".txt")
    with os.fdopen(fd, "w") as f:
        f.write("z %.17g\n" % ROOT_Z)
        for p, d, r in zip(P, D, qref):
            f.write("%.17g %.17g %.17g\n" % (p, d, r))
    n = args.steps
    best = {}

    def keep(key, seconds):
        best[key] = min(best.get(key, math.inf), seconds / n)

    try:
        for _ in range(args.rounds):
            c, c_root = c_loop(gains_file, n)
            keep("C PD loop", c)
            py, py_root = python_views(n)
            keep("Python PD loop (views)", py)
            if not np.array_equal(c_root, py_root):
                print("WARNING: C and Python ended apart: %r vs %r" % (c_root, py_root))
            keep("Python PD loop (Simulation API)", python_api_pd(n))
            keep("C step only", c_loop(gains_file, n, control=False)[0])
            keep("Python sim.local.step() only", python_views(n, control=False)[0])
            keep("Python sim.step() only", python_api(n, read_state=False))
            keep("Python sim.step() + sim.q() + sim.dq()", python_api(n, read_state=True))
    finally:
        os.unlink(gains_file)
    print("humanoid, torque mode, PD law, %d steps, best of %d rounds (per step):"
          % (n, args.rounds))
    for key, v in best.items():
        print("  %-42s %8.1f us" % (key, v * 1e6))
    print("speed of the Python PD loop relative to C: views %.2f, Simulation API %.2f"
          % (best["C PD loop"] / best["Python PD loop (views)"],
             best["C PD loop"] / best["Python PD loop (Simulation API)"]))
    over = call_overhead(max(args.rounds, 5))
    base = over["hs_step (one bare cffi call)"]
    print("one step() of the arm (high gain, no contacts), per call, and over the bare call:")
    for key, v in over.items():
        print("  %-42s %8.2f us  (+%.2f us)" % (key, v * 1e6, (v - base) * 1e6))


if __name__ == "__main__":
    main()
