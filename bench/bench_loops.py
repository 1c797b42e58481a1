#!/usr/bin/env python3
"""Closed loops and tracks: steps per second of the four-bar, the closed-chain leg and the
crawler vehicle, in-process and through the scheduler, beside the humanoid.

Run after the build:  .venv/bin/python bench/bench_loops.py [--time 5] [--repeats 3] [--json OUT]

Scenes (1 ms steps, --time simulated seconds):
  - fourbar: samples/models/closed_link/four_bar.wrl alone, every joint in torque mode, released
    under gravity (its model-file ExtraJoint closes the loop);
  - leg: samples/models/closed_link/parallel_leg.wrl alone, the hip motor high gain (in-process
    it follows 0.4 sin(2 pi t), a command per step; through the scheduler, with no controller,
    it holds), knee and rod in torque mode;
  - crawler: samples/models/crawler/crawler.wrl on the floor, both tracks at 0.3 m/s, the flipper
    high gain, floor/track pairs with friction 1;
  - humanoid: the sample humanoid standing in high-gain mode (bench/bench_dynamics.py's scene),
    for comparison.
In-process: the C world alone, hsd_step (+ sensors) in a loop (build/bin/hrpsim-bench-world).
Scheduler: the hrpsim-scheduler server running the scene to its end time with no controller,
logging every 10 ms (with sensors); steps per second from its own status (steps / wallTime).
Each figure is the best of --repeats runs. The servers are started for the run and stopped
afterwards.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import bench_dynamics  # noqa: E402
import hrpsim  # noqa: E402
from hrpsim import OpenHRP  # noqa: E402

DT = 0.001
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
SCENES = {
    "fourbar": MODELS / "closed_link" / "four_bar.wrl",
    "leg": MODELS / "closed_link" / "parallel_leg.wrl",
    "crawler": MODELS / "crawler" / "crawler.wrl",
    "humanoid": MODELS / "humanoid" / "humanoid.wrl",
}


def in_process(scene, steps):
    out = subprocess.run([str(bench_dynamics.bin_path("hrpsim-bench-world")), scene, str(steps),
                          str(FLOOR), str(SCENES[scene])], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout)


def scheduler(sched, scene, steps):
    import hrpsim._idl.hrpsim as H
    DS = OpenHRP.DynamicsSimulator
    sched.reset()
    sched.setTimeStep(DT)
    sched.setSensorOption(DS.ENABLE_SENSOR)
    if scene in ("crawler", "humanoid"):
        sched.addModel("floor", hrpsim.file_url(FLOOR))
    sched.addModel("m", hrpsim.file_url(SCENES[scene]))
    if scene == "fourbar":
        sched.setAllJointModes("m", DS.TORQUE_MODE)
    elif scene == "leg":
        sched.setAllJointModes("m", DS.TORQUE_MODE)
        sched.setLinkData("m", "THIGH", DS.POSITION_GIVEN, [1.0])
    elif scene == "crawler":
        for track in ("TRACK_L", "TRACK_R"):
            sched.addCollisionPair(H.CollisionPair("floor", "", "m", track, 1.0, 1.0, 0.005, 0.0))
            sched.setLinkData("m", track, DS.JOINT_TORQUE, [0.3])
        sched.setLinkData("m", "FLIPPER", DS.POSITION_GIVEN, [1.0])
    else:
        sched.setAllJointModes("m", DS.HIGH_GAIN_MODE)
        sched.addCollisionPair(H.CollisionPair("floor", "", "m", "", 0.5, 0.5, 0.01, 0.0))
    sched.setEndTime(steps * DT)
    sched.setLogOptions(H.LogOptions(0.01, True))
    sched.start()
    st = sched.wait(600.0)
    if st.state != H.FINISHED or st.steps != steps:
        raise RuntimeError("scheduler run did not finish: %s" % st)
    sched.reset()
    return {"steps": st.steps, "seconds": st.wallTime, "steps_per_s": st.steps / st.wallTime}


def best(fn, repeats):
    return max((fn() for _ in range(repeats)), key=lambda r: r["steps_per_s"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", type=float, default=5.0, help="simulated seconds (default 5)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure, best kept")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    steps = int(round(args.time / DT))
    cli = [sys.executable, "-m", "hrpsim.cli"]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    import hrpsim._idl.hrpsim as H
    r = {"steps": steps}
    with tempfile.TemporaryDirectory(prefix="hrpsim-bench-") as state:
        subprocess.run(cli + ["up", "--state-dir", state, "--only", "ModelLoader",
                              "DynamicsSimulatorFactory", "Scheduler"], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        try:
            client = hrpsim.connect(naming=hrpsim.naming_from_environment(state))
            sched = client.resolve("Scheduler", H.Scheduler)
            for scene in SCENES:
                r[scene] = {
                    "in_process": best(lambda: in_process(scene, steps), args.repeats),
                    "scheduler": best(lambda: scheduler(sched, scene, steps), args.repeats)}
        finally:
            subprocess.run(cli + ["down", "--state-dir", state], check=True,
                           stdout=subprocess.DEVNULL, env=env)
    print("closed loops and tracks, dt 1 ms, %d steps (best of %d)" % (steps, args.repeats))
    print("%-10s %14s %14s %10s %14s" % ("scene", "in-process", "scheduler", "sched/in",
                                          "in / humanoid"))
    base = r["humanoid"]["in_process"]["steps_per_s"]
    for scene in SCENES:
        a, b = r[scene]["in_process"]["steps_per_s"], r[scene]["scheduler"]["steps_per_s"]
        print("%-10s %14.0f %14.0f %10.3f %14.2f" % (scene, a, b, b / a, a / base))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
