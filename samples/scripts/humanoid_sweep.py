"""A sweep for `hrpsim sweep` (and bench/bench_sweep.py): the sample humanoid dropped on the
floor from 4 heights with 4 friction coefficients, 16 runs of 0.3 s on the local back end.

    hrpsim sweep samples/scripts/humanoid_sweep.py --plot height:waist_z
    hrpsim sweep samples/scripts/humanoid_sweep.py --dask local --workers 2

``run(sim, param)`` is the function swept: it returns the scalars of the table's row (the
waist's final height and horizontal drift [m], its largest speed [m/s] and the largest joint
angle [rad]); ``PARAMS`` the parameter sets; ``SIM_OPTIONS`` goes to each Simulation. The
models come from the hrpsim checkout the worker imports (hrpsim.paths.REPO_ROOT), so the
script also runs on Dask workers of other hosts.
"""

import numpy as np

from hrpsim import paths

MODELS = paths.REPO_ROOT / "samples" / "models"
DURATION = 0.3  # [s]

PARAMS = [{"height": h, "friction": mu}
          for h in (0.85, 0.9, 0.95, 1.0) for mu in (0.2, 0.4, 0.6, 0.8)]
SIM_OPTIONS = {"dt": 0.001}


def run(sim, param):
    """One run: the humanoid (every joint free, torque 0) dropped from param["height"] [m] on
    the floor with friction param["friction"] for param.get("duration", DURATION) seconds;
    returns a dict of scalars."""
    sim.add_model("floor", str(MODELS / "floor" / "floor.wrl"))
    sim.add_model("robot", str(MODELS / "humanoid" / "humanoid.wrl"))
    sim.set_root_pose("robot", (0.0, 0.0, param["height"]))
    sim.add_collision_pair("floor", "robot", friction=param["friction"])
    top_speed = 0.0
    steps = int(round(param.get("duration", DURATION) / sim.dt))
    for _ in range(steps // 10):
        sim.step(10)
        v, _ = sim.root_velocity("robot")
        top_speed = max(top_speed, float(np.linalg.norm(v)))
    p = sim.link_poses("robot")[0][0]
    return {"waist_z": float(p[2]), "waist_drift": float(np.hypot(p[0], p[1])),
            "top_speed": top_speed, "max_joint": float(np.max(np.abs(sim.q("robot"))))}


if __name__ == "__main__":
    # the sweep is run by `hrpsim sweep`; run directly, the script only says so (and --help
    # prints that usage, as every sample script does)
    import argparse
    argparse.ArgumentParser(
        description="A sweep definition for `hrpsim sweep`: run(sim, param), PARAMS and "
                    "SIM_OPTIONS; %d runs of %.1f s." % (len(PARAMS), DURATION),
        epilog="example: hrpsim sweep samples/scripts/humanoid_sweep.py --plot "
               "height:waist_z").parse_args()
    print("run it with: hrpsim sweep %s" % __file__)
