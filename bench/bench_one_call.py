#!/usr/bin/env python3
"""One round trip per step against OpenHRP's three: side by side in one run.

Run after the build:  .venv/bin/python bench/bench_one_call.py [--steps 3000] [--repeats 3]
                                                             [--json OUT]

The scene: the sample humanoid standing on the floor in torque mode under the sample PD law
(samples/controllers/pd_controller.py), sensors on, 1 ms step. Measured in the same run:
  - Python client loop, raw CORBA, three calls per step: setCharacterAllLinkData(JOINT_TORQUE),
    stepSimulation, getCharacterSensorState; against one call: hrpsim::DynamicsSimulator::
    stepWith (torques in; the time and the robot's sensor state out);
  - the same loop through hrpsim.Simulation (server back end), sim.one_call True / False;
  - the scheduler with the sample PD controller (its own process, period 1 ms, log every
    10 ms): as an hrpsim::OneCallController (one tick() per period) and with --three-call
    (input, control, output); steps per second from the scheduler's status (loop time only).
Each figure is the best of --repeats (a shared machine only gets slower than its best); the
ratios one-call / three-call are what to compare. The servers are started for the run in a
temporary state directory and stopped afterwards.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "samples" / "controllers"))

import hrpsim  # noqa: E402
from hrpsim import OpenHRP  # noqa: E402
import pd_controller  # noqa: E402

DT = 0.001
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"


def configure(sim):
    """The torque-mode humanoid at the PD law's pose, as samples/projects/humanoid_squat.xml
    (hrpsim.Simulation); its joint names."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    names = sim.joint_names("robot")
    q = [-0.2 if ("_HIP_P" in n or "_ANKLE_P" in n) else 0.4 if "LEG_KNEE" in n
         else -0.3 if "ARM_ELBOW" in n else 0.0 for n in names]
    sim.set_joint_mode("robot", "torque")
    sim.set_root_pose("robot", (0.0, 0.0, 0.82 - 0.6 * (1 - math.cos(0.2))))
    sim.set_joint_values("robot", q)
    sim.add_collision_pair("floor", "robot", friction=0.5)
    return names


def raw_loop(client, steps, one_call):
    """A raw CORBA PD loop on a Simulation-built world: steps per second."""
    from hrpsim import SchedulerIDL
    from hrpsim.errors import unwrap
    DS = OpenHRP.DynamicsSimulator
    with hrpsim.Simulation(client, dt=DT) as sim:
        sim.one_call = False
        law = pd_controller.PDLaw(configure(sim))
        sim.start()
        ds = unwrap(sim.dynamics)
        one = ds._narrow(SchedulerIDL.DynamicsSimulator)
        s = ds.getCharacterSensorState("robot")
        t0 = time.perf_counter()
        if one_call:
            for k in range(steps):
                tau = law.torques(k * DT, s.q, s.dq)
                _, (s,) = one.stepWith([SchedulerIDL.JointCommand("robot", DS.JOINT_TORQUE,
                                                                   tau)], 1, False, ["robot"])
        else:
            for k in range(steps):
                tau = law.torques(k * DT, s.q, s.dq)
                ds.setCharacterAllLinkData("robot", DS.JOINT_TORQUE, tau)
                ds.stepSimulation()
                s = ds.getCharacterSensorState("robot")
        sec = time.perf_counter() - t0
    return {"steps": steps, "seconds": sec, "steps_per_s": steps / sec}


def simulation_loop(client, steps, one_call):
    """The PD loop through hrpsim.Simulation: steps per second."""
    with hrpsim.Simulation(client, dt=DT) as sim:
        sim.one_call = one_call
        law = pd_controller.PDLaw(configure(sim))
        sim.start()

        def before(s):
            st = s.sensors("robot")
            s.set_joint_torques("robot", law.torques(s.steps * DT, st["q"], st["dq"]))
        t0 = time.perf_counter()
        sim.step(steps, before)
        sec = time.perf_counter() - t0
    return {"steps": steps, "seconds": sec, "steps_per_s": steps / sec}


def scheduler_pd(client, naming, steps, one_call):
    """The sample PD controller (own process) under the scheduler: the scheduler's figures."""
    from hrpsim import _orb
    name = "BenchPD%d" % os.getpid()
    cmd = [sys.executable, str(REPO / "samples/controllers/pd_controller.py"), "--name", name,
           "-ORBInitRef", "NameService=" + naming] + ([] if one_call else ["--three-call"])
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ctx = _orb.naming_context(naming, 5000)
        deadline = time.monotonic() + 30
        while _orb.resolve_name(ctx, name) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the PD controller did not come up")
            time.sleep(0.05)
        with hrpsim.Simulation(client, backend="scheduler", dt=DT) as sim:
            configure(sim)
            sim.add_controller(name, "robot", DT)
            sim.set_log(0.01, True)
            sim.step(steps)
            st = sim.scheduler().status()
        return {"steps": st.steps, "seconds": st.wallTime, "steps_per_s": st.steps / st.wallTime}
    finally:
        proc.terminate()
        proc.wait(30)


def best(fn, repeats):
    return max((fn() for _ in range(repeats)), key=lambda r: r["steps_per_s"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000, help="steps per figure (default 3000)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure, best kept")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    cli = [sys.executable, "-m", "hrpsim.cli"]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    r = {}
    with tempfile.TemporaryDirectory(prefix="hrpsim-bench-") as state:
        subprocess.run(cli + ["up", "--state-dir", state, "--only", "ModelLoader",
                              "DynamicsSimulatorFactory", "Scheduler"], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        try:
            naming = hrpsim.naming_from_environment(state)
            client = hrpsim.connect(naming=naming)
            n, k = args.steps, args.repeats
            # interleaved, so both halves of a pair see the same load
            for label, fn in (("raw", lambda one: raw_loop(client, n, one)),
                              ("simulation", lambda one: simulation_loop(client, n, one)),
                              ("scheduler_pd", lambda one: scheduler_pd(client, naming, n, one))):
                r[label + "_three"] = best(lambda: fn(False), k)
                r[label + "_one"] = best(lambda: fn(True), k)
        finally:
            subprocess.run(cli + ["down", "--state-dir", state], check=True,
                           stdout=subprocess.DEVNULL, env=env)
    print("torque-mode humanoid under the sample PD law, sensors on, dt 1 ms, %d steps "
          "(best of %d)" % (args.steps, args.repeats))
    print("%-46s %12s %12s %7s" % ("loop", "3 calls/s", "1 call/s", "ratio"))
    for label, text in (("raw", "Python client, raw CORBA"),
                        ("simulation", "Python client, hrpsim.Simulation"),
                        ("scheduler_pd", "scheduler + sample Python PD controller")):
        three, one = r[label + "_three"]["steps_per_s"], r[label + "_one"]["steps_per_s"]
        r[label + "_ratio"] = one / three
        print("%-46s %12.0f %12.0f %7.2f" % (text, three, one, one / three))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
