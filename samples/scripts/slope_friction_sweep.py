#!/usr/bin/env python3
"""Sweep the friction coefficient of a box on a 10-degree slope; plot slide distance against mu.

    .venv/bin/python samples/scripts/slope_friction_sweep.py [--workers 4] [--time 1.0]
        [--out-dir results | --out FILE.png] [--mu 0 0.05 ...] [--naming CORBALOC]

A 1 kg, 0.2 m cube (a primitive: sim.add_box, no model file) rests on samples/models/floor/
slope.wrl, its bottom face flat on the plane, with one friction coefficient mu for the pair
(static = sliding). Each run lets it go for ``--time`` seconds and measures how far it slid
down the slope. With Coulomb friction the analytic answer is

    d = 1/2 g (sin(theta) - mu cos(theta)) t^2,   and d = 0 when tan(theta) <= mu,

theta = 10 degrees (tan(theta) = 0.1763). The runs go through ``hrpsim.sweep`` over the
dynamics servers that are running (``$HRPSIM_NAMING``, else `hrpsim up`'s state): the one that
setup.sh starts does them one by one, ``hrpsim up --dynamics N`` gives N that run in parallel.
With no servers running, the script starts a private set (``--dynamics 4``) and stops it at
the end. The figure (``results/slope_friction.png`` under the working directory, or
``--out-dir``/``--out``) shows the simulated distances over the analytic curve, and the
table printed gives both and their relative difference. The script exits non-zero if a
simulated distance differs from the analytic one by more than 5 % (or, where the box should
stick, moves more than 1 mm).
"""

import argparse
import contextlib
import functools
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "python"))

import hrpsim  # noqa: E402
from hrpsim import primitives  # noqa: E402

SLOPE = REPO / "samples" / "models" / "floor" / "slope.wrl"
THETA = math.radians(10.0)  # the slope of slope.wrl (0.1745329252 rad)
G = 9.8
SIZE = 0.2     # cube edge [m]
MASS = 1.0     # [kg]
DEFAULT_MUS = (0.0, 0.04, 0.08, 0.12, 0.15, 0.17, 0.2, 0.3)

# the free cube, built by hrpsim from its parameters (hrpsim.primitives: no model file); its
# frame at the centre of mass, I = m a^2 / 6 about every axis
BOX_URL = primitives.url("box", size=(SIZE, SIZE, SIZE), mass=MASS, color=(0.8, 0.3, 0.2))


def analytic_distance(mu, t, theta=THETA, g=G):
    """Slide distance [m] after t seconds from rest under Coulomb friction mu."""
    a = g * (math.sin(theta) - mu * math.cos(theta))
    return 0.5 * a * t * t if a > 0 else 0.0


def slide(sim, mu, duration=1.0):
    """One run: the cube at rest on the slope with friction mu; returns the distance [m] it
    slid down the slope in ``duration`` seconds (run by hrpsim.sweep in a worker)."""
    sim.add_model("slope", SLOPE)
    # the slope's top face is the plane through the origin with normal n = (sin, 0, cos);
    # the cube sits on it turned like the slope (about y by theta), its centre at n * a / 2
    c, s = math.cos(THETA), math.sin(THETA)
    normal = np.array([s, 0.0, c])
    R = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    p0 = normal * SIZE / 2
    sim.add_box("box", (SIZE, SIZE, SIZE), (p0, R), mass=MASS, color=(0.8, 0.3, 0.2))
    sim.add_collision_pair("slope", "box", friction=mu, slip_friction=mu, culling=0.01)
    sim.run(duration)
    p, _ = sim.root_pose("box")
    downhill = np.array([c, 0.0, -s])
    return float(np.dot(p - p0, downhill))


PRIVATE_DYNAMICS = 4  # dynamics servers of the private set started when none are running


@contextlib.contextmanager
def servers(naming=None):
    """The naming service to sweep on: ``naming``, else the running servers'
    (``$HRPSIM_NAMING`` or `hrpsim up`'s state) if they answer, else a private set started
    here in a temporary state dir and stopped on exit."""
    from hrpsim import launcher
    if naming:
        yield naming
        return
    try:
        found = hrpsim.naming_from_environment()
        hrpsim.connect(found).root._non_existent()
        yield found
        return
    except hrpsim.HrpsimError:
        pass
    except Exception:  # noqa: BLE001 - recorded but not answering: start our own
        pass
    with tempfile.TemporaryDirectory(prefix="hrpsim-slope-servers-") as state_dir:
        state = launcher.up(state_dir=state_dir, only=["ModelLoader", "DynamicsSimulatorFactory"],
                            dynamics=PRIVATE_DYNAMICS, timeout=30.0)
        print("no servers running: started %d dynamics servers (naming service %s)"
              % (PRIVATE_DYNAMICS, state["naming"]), flush=True)
        try:
            yield state["naming"]
        finally:
            launcher.down(state_dir)


def run_sweep(mus, duration=1.0, workers=None, naming=None):
    """Slide distances for every mu (in order), via hrpsim.sweep."""
    func = functools.partial(slide, duration=duration)
    # sleeping on (the default): a box sliding from rest near its friction angle (mu = 0.17,
    # a = 0.061 m/s^2) stays under the sleep speed for 0.33 s but speeds up, so it stays awake
    # (hsdOptions.sleepLinearAcc, 0.02 m/s^2)
    return hrpsim.sweep(func, mus, workers=workers, naming=naming)


def plot(mus, distances, duration, out):
    """The simulated distances over the analytic curve, to the PNG ``out``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fine = np.linspace(0.0, max(max(mus), math.tan(THETA) * 1.5), 400)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(fine, [analytic_distance(m, duration) for m in fine], "-", color="0.3",
            label=r"analytic $\frac{1}{2} g (\sin\theta - \mu\cos\theta) t^2$")
    ax.plot(mus, distances, "o", color="tab:red", label="hrpsim")
    ax.axvline(math.tan(THETA), color="0.6", ls=":", label=r"$\mu = \tan\theta$")
    ax.set_xlabel(r"friction coefficient $\mu$")
    ax.set_ylabel("slide distance after %g s [m]" % duration)
    ax.set_title(r"box on a 10$^\circ$ slope")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def check(mus, distances, duration, rel=0.05, stick_tol=1e-3):
    """Lines of a table (mu, simulated, analytic, difference) and whether all agree."""
    lines, ok = ["     mu   simulated [m]   analytic [m]   difference"], True
    for mu, d in zip(mus, distances):
        ref = analytic_distance(mu, duration)
        if ref > 0:
            diff = (d - ref) / ref
            good = abs(diff) <= rel
            text = "%+.2f %%" % (diff * 100)
        else:
            good = abs(d) <= stick_tol
            text = "%+.3f mm (sticks)" % (d * 1e3)
        ok = ok and good
        lines.append("%7.3f   %13.6f   %12.6f   %s%s" % (mu, d, ref, text,
                                                         "" if good else "  <-- off"))
    return lines, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--naming", help="naming service (default: HRPSIM_NAMING or hrpsim up's "
                    "state)")
    ap.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: one per dynamics server)")
    ap.add_argument("--time", type=float, default=1.0, help="seconds per run (default 1)")
    ap.add_argument("--mu", type=float, nargs="+", default=list(DEFAULT_MUS),
                    help="friction coefficients (default %s)" % " ".join(map(str, DEFAULT_MUS)))
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--out-dir", default="results",
                     help="directory for slope_friction.png (default: results, created)")
    out.add_argument("--out", help="the plot's file name (PNG), instead of --out-dir")
    args = ap.parse_args()
    try:
        with servers(args.naming) as naming:
            distances = run_sweep(args.mu, args.time, args.workers, naming)
    except hrpsim.HrpsimError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    lines, ok = check(args.mu, distances, args.time)
    print("\n".join(lines))
    path = Path(args.out) if args.out else Path(args.out_dir) / "slope_friction.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    plot(args.mu, distances, args.time, path)
    print("plot: %s" % path.resolve())
    if not ok:
        print("error: a simulated distance is more than 5 %% off the analytic one",
              file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
