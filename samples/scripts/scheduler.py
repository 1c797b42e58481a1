#!/usr/bin/env python3
"""The sample scheduler of OpenHRP 3.1, in Python, against hrpsim's servers.

    .venv/bin/python samples/scripts/scheduler.py [--naming CORBALOC] [--time 5] [--dt 0.001]

It loads a floor and the sample humanoid through the ModelLoader, creates a DynamicsSimulator,
registers both, puts the robot in a standing pose with slightly bent knees (soles on the
floor), declares the floor/robot contact pair, drives every joint in high-gain mode holding
that pose and runs ``--time`` seconds in steps of ``--dt``, printing the root (WAIST) height
every 0.5 s and a final line with its drift. Each step sends the joint commands, steps, and
reads the world state and the robot's sensor state, as a scheduler with a controller does.
The naming service comes from ``--naming``, else ``$HRPSIM_NAMING``, else ``hrpsim up``'s
state. Same scene and output as the C++ sample ``hrpsim-sample-scheduler``.
"""

import argparse
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

import hrpsim  # noqa: E402
from hrpsim import OpenHRP  # noqa: E402

DS = OpenHRP.DynamicsSimulator
MODELS = REPO / "samples" / "models"

# hip pitch -a, knee 2a, ankle pitch -a keep the feet flat and under the hips, and lower the
# waist (at 0.82 m with straight legs) by 2 * 0.3 m * (1 - cos a)
BEND = 0.2
WAIST_Z = 0.82 - 0.6 * (1.0 - math.cos(BEND))


def initial_pose(links):
    """Joint values of the bent-knee pose, in jointId order."""
    q = [0.0] * sum(1 for link in links if link.jointId >= 0)
    for link in links:
        if link.jointId < 0:
            continue
        if "_HIP_P" in link.name or "_ANKLE_P" in link.name:
            q[link.jointId] = -BEND
        elif "LEG_KNEE" in link.name:
            q[link.jointId] = 2.0 * BEND
        elif "ARM_ELBOW" in link.name:
            q[link.jointId] = -0.3
    return q


def run(client, duration, dt, floor_path, robot_path):
    floor = client.load_body(floor_path)
    robot = client.load_body(robot_path)
    links = robot._get_links()
    sim = client.dynamics_simulator()
    try:
        sim.registerCharacter("floor", floor)
        sim.registerCharacter("robot", robot)
        sim.init(dt, DS.EULER, DS.ENABLE_SENSOR)
        sim.setGVector([0.0, 0.0, 9.8])  # OpenHRP's convention: ordinary gravity towards -z
        sim.setCharacterAllJointModes("robot", DS.HIGH_GAIN_MODE)
        sim.setCharacterLinkData("robot", links[0].name, DS.ABS_TRANSFORM,
                                 [0.0, 0.0, WAIST_Z, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        q = initial_pose(links)
        sim.setCharacterAllLinkData("robot", DS.JOINT_VALUE, q)
        sim.calcWorldForwardKinematics()
        sim.registerCollisionCheckPair("floor", "", "robot", "", 0.5, 0.5, [], [], 0.01, 0.0)
        sim.initSimulation()

        steps = round(duration / dt)
        every = max(1, round(0.5 / dt))
        z0 = z = zmin = zmax = WAIST_Z
        t = 0.0
        print("t=%.3f s  root z=%.6f m" % (0.0, z0), flush=True)
        for i in range(1, steps + 1):
            sim.setCharacterAllLinkData("robot", DS.JOINT_VALUE, q)  # hold the pose
            sim.stepSimulation()
            ws = sim.getWorldState()
            sim.getCharacterSensorState("robot")
            z = ws.characterPositions[1].linkPositions[0].p[2]
            t = ws.time
            zmin, zmax = min(zmin, z), max(zmax, z)
            if i % every == 0:
                print("t=%.3f s  root z=%.6f m" % (t, z), flush=True)
        print("final: t=%.3f s  root z=%.6f m  drift=%+.3f mm  range=[%.6f, %.6f] m"
              % (t, z, (z - z0) * 1e3, zmin, zmax), flush=True)
    finally:
        sim.destroy()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--naming", help="naming service corbaloc (default: HRPSIM_NAMING or "
                    "hrpsim up's state)")
    ap.add_argument("--time", type=float, default=5.0, help="simulated seconds (default 5)")
    ap.add_argument("--dt", type=float, default=0.001, help="time step [s] (default 0.001)")
    ap.add_argument("--floor", default=str(MODELS / "floor" / "floor.wrl"))
    ap.add_argument("--robot", default=str(MODELS / "humanoid" / "humanoid.wrl"))
    args = ap.parse_args()
    if not (args.time > 0 and args.dt > 0):
        ap.error("--time and --dt must be positive")
    try:
        client = hrpsim.connect(args.naming)
        return run(client, args.time, args.dt, args.floor, args.robot)
    except hrpsim.HrpsimError as exc:
        print("error: %s" % exc, file=sys.stderr)
    except OpenHRP.ModelLoader.ModelLoaderException as exc:
        print("error: %s" % exc.description, file=sys.stderr)
    except Exception as exc:  # CORBA system exceptions: the server log says why
        print("error: %s: %s" % (type(exc).__name__, exc), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
