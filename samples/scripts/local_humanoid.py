#!/usr/bin/env python3
"""The sample humanoid squatting under a PD law, simulated inside this Python process.

    .venv/bin/python samples/scripts/local_humanoid.py [--time 5.0] [--squat 0.6]
        [--out-dir results | --out FILE.png]

No servers: ``hrpsim.Simulation(backend="local")`` runs the simulation core in process. The
humanoid (samples/models/humanoid) stands on the floor in torque mode; before every 1 ms step
the script reads its joint angles and velocities, computes the PD torques of the sample
controller (samples/controllers/pd_controller.py's PDLaw: the same gains and the same squat,
down between t = 1 s and 2.5 s, up again by 4.5 s) and writes them. The figure
(``results/local_humanoid.png`` under the working directory, or ``--out-dir``/``--out``)
shows the waist height and each right-leg joint's angle against its reference, a panel each.
Exits 1 if the robot fell (waist below 0.5 m) or a knee ends more than 0.05 rad from its
reference.
"""

import argparse
import math
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
for extra in (REPO / "python", REPO / "samples" / "controllers"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import hrpsim  # noqa: E402
from pd_controller import BEND, PDLaw  # noqa: E402

MODELS = REPO / "samples" / "models"
DT = 0.001


def simulate(duration, squat):
    """Run the squat; returns times, waist heights, right-leg angles and references."""
    sim = hrpsim.Simulation(backend="local", dt=DT)
    sim.add_model("floor", MODELS / "floor" / "floor.wrl")
    sim.add_model("robot", MODELS / "humanoid" / "humanoid.wrl")
    names = sim.joint_names("robot")
    law = PDLaw(names, squat=squat)
    sim.set_joint_mode("robot", "torque")
    sim.set_root_pose("robot", (0.0, 0.0, 0.82 - 0.6 * (1 - math.cos(BEND))))
    sim.set_joint_values("robot", law.reference(0.0)[0])
    sim.add_collision_pair("floor", "robot", friction=0.5)
    leg = [names.index(n) for n in ("RLEG_HIP_P", "RLEG_KNEE", "RLEG_ANKLE_P")]
    t, z, q, qref = [], [], [], []

    def control(s):
        now = s.steps * DT
        qs, dqs = s.q("robot"), s.dq("robot")
        s.set_joint_torques("robot", law.torques(now, qs, dqs))
        if s.steps % 10 == 0:
            t.append(now)
            z.append(s.root_pose("robot")[0][2])
            q.append(qs[leg])
            qref.append(np.asarray(law.reference(now)[0])[leg])

    with sim:
        sim.run(duration, before=control)
    return np.array(t), np.array(z), np.array(q), np.array(qref)


JOINTS = ("hip pitch", "knee", "ankle pitch")


def figure(t, z, q, qref):
    """The figure: the waist height, then one panel per right-leg joint with its reference
    (dashed). A squat bends the hip and the ankle pitch alike, so on one axis the hip's curve
    would lie under the ankle's: each joint gets a panel of its own."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1 + len(JOINTS), 1, sharex=True, figsize=(7, 8))
    axes[0].plot(t, z)
    axes[0].set_ylabel("waist height [m]")
    axes[0].set_title("sample humanoid, PD squat, local back end (in process)\n"
                      "right leg: angle (solid) and reference (dashed)")
    for k, (ax, name) in enumerate(zip(axes[1:], JOINTS)):
        ax.plot(t, q[:, k], label="angle", color="C%d" % (k + 1))
        ax.plot(t, qref[:, k], "--", label="reference", color="k", linewidth=0.8)
        ax.set_ylabel("%s [rad]" % name)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    axes[-1].set_xlabel("t [s]")
    fig.tight_layout()
    return fig


def plot(out, t, z, q, qref):
    """Write the figure to the PNG ``out``."""
    import matplotlib.pyplot as plt
    fig = figure(t, z, q, qref)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--time", type=float, default=5.0, help="simulated seconds (default 5)")
    ap.add_argument("--squat", type=float, default=0.6, help="deepest knee bend parameter")
    ap.add_argument("--out-dir", default="results")
    ap.add_argument("--out", help="the PNG to write (default OUT_DIR/local_humanoid.png)")
    args = ap.parse_args(argv)
    t, z, q, qref = simulate(args.time, args.squat)
    out = Path(args.out) if args.out else Path(args.out_dir) / "local_humanoid.png"
    plot(out, t, z, q, qref)
    knee_error = abs(q[-1, 1] - qref[-1, 1])
    print("t = %.3f s: waist %.4f m, knee %.4f rad (reference %.4f); plot: %s"
          % (t[-1], z[-1], q[-1, 1], qref[-1, 1], out))
    if z.min() < 0.5 or knee_error > 0.05:
        print("FAILED: the robot fell or the knee is off its reference", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
