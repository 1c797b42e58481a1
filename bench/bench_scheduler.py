#!/usr/bin/env python3
"""Scheduler benchmark: steps per second of the scheduler server beside client-driven loops.

Run after the build:  .venv/bin/python bench/bench_scheduler.py [--time 5] [--repeats 3]
                                                               [--json OUT]

The scene is the one of bench/bench_dynamics.py ("humanoid"): the sample humanoid standing on
the floor at its initial pose, every joint in high-gain mode, sensors on, 1 ms step, one
floor/robot contact pair, --time simulated seconds. Measured side by side in one run:
  - in-process: the C world alone, hsd_step in a loop (build/bin/hrpsim-bench-world);
  - scheduler, no controller: the hrpsim-scheduler server running the scene to its end time,
    logging the world state and both characters' sensor states every step (the heaviest log),
    and again logging every 10 ms; steps per second from the server's own status (steps /
    wallTime: the loop alone, not the set-up);
  - C++ client: a C++ program stepping a DynamicsSimulator through CORBA, with getWorldState
    and getCharacterSensorState each step (build/bin/hrpsim-bench-dynamics-client);
  - Python client: the same loop from this process (bench_dynamics.python_client);
  - scheduler + one Python controller: an empty OpenHRP.Controller served by this process,
    period 1 ms (input, control and output every step: three round trips), logging every
    10 ms; the per-tick overhead is the difference of seconds per step with and without it.
Each figure is the best of --repeats runs (throughput on a shared machine only gets slower than
its best). Ratios to in-process are what to compare across machines; the target is that the
scheduler without controllers steps at >= 80 % of the in-process speed.
The servers are started for the run (`hrpsim up --only ModelLoader DynamicsSimulatorFactory
Scheduler` in a temporary state directory) and stopped afterwards; the binaries come from
$HRPSIM_BIN_DIR or build/bin.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import bench_dynamics  # noqa: E402
import hrpsim  # noqa: E402
from hrpsim import OpenHRP  # noqa: E402

DT = 0.001


def scheduler_run(sched, steps, log_period, sensors, controller=None):
    """Run the scene for ``steps`` steps through the scheduler; the server's figures."""
    import hrpsim._idl.hrpsim as H
    DS = OpenHRP.DynamicsSimulator
    sched.reset()
    sched.setTimeStep(DT)
    sched.addModel("floor", hrpsim.file_url(bench_dynamics.FLOOR))
    sched.addModel("robot", hrpsim.file_url(bench_dynamics.HUMANOID))
    sched.setAllJointModes("robot", DS.HIGH_GAIN_MODE)
    sched.addCollisionPair(H.CollisionPair("floor", "", "robot", "", 0.5, 0.5, 0.01, 0.0))
    sched.setEndTime(steps * DT)
    sched.setLogOptions(H.LogOptions(log_period, sensors))
    if controller:
        sched.addController(H.ControllerSpec(controller, "robot", DT))
    sched.start()
    st = sched.wait(600.0)
    if st.state != H.FINISHED or st.steps != steps:
        raise RuntimeError("scheduler run did not finish: %s" % st)
    records = len(sched.getLog(0)) if log_period == 0 else None
    sched.reset()
    return {"steps": st.steps, "seconds": st.wallTime, "steps_per_s": st.steps / st.wallTime,
            "real_time_factor": st.realTimeFactor, "log_records": records}


class EmptyController(hrpsim.OpenHRP__POA.Controller):
    """A controller that does nothing (each call is one round trip and nothing else)."""

    def setDynamicsSimulator(self, dyn):
        pass

    def setModelName(self, name):
        pass

    def setViewSimulator(self, vision):
        pass

    def setTimeStep(self, dt):
        pass

    def initialize(self):
        pass

    def start(self):
        pass

    def input(self):
        pass

    def control(self):
        pass

    def output(self):
        pass

    def stop(self):
        pass

    def destroy(self):
        pass

    def shutdown(self):
        pass


def bind_controller(client):
    """Serve an EmptyController from this process and bind it; returns (name, cleanup)."""
    import CosNaming
    poa = client.orb.resolve_initial_references("RootPOA")
    poa._get_the_POAManager().activate()
    oid = poa.activate_object(EmptyController())
    name = "bench-controller-%s" % uuid.uuid4().hex[:8]
    path = [CosNaming.NameComponent(name, "")]
    client.root.rebind(path, poa.id_to_reference(oid))

    def cleanup():
        client.root.unbind(path)
        poa.deactivate_object(oid)

    return name, cleanup


def best(fn, repeats):
    results = [fn() for _ in range(repeats)]
    return max(results, key=lambda r: r["steps_per_s"])


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
    with tempfile.TemporaryDirectory(prefix="hrpsim-bench-") as state:
        subprocess.run(cli + ["up", "--state-dir", state, "--only", "ModelLoader",
                              "DynamicsSimulatorFactory", "Scheduler"], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        try:
            naming = hrpsim.naming_from_environment(state)
            client = hrpsim.connect(naming=naming)
            sched = client.resolve("Scheduler", H.Scheduler)
            r = {"steps": steps}
            r["in_process"] = best(lambda: bench_dynamics.in_process("humanoid", steps),
                                   args.repeats)
            r["scheduler_log_every_step"] = best(
                lambda: scheduler_run(sched, steps, 0.0, True), args.repeats)
            r["scheduler_log_10ms"] = best(
                lambda: scheduler_run(sched, steps, 0.01, True), args.repeats)
            r["cxx_client"] = best(lambda: bench_dynamics.cxx_client(naming, "humanoid", steps),
                                   args.repeats)
            r["python_client"] = best(
                lambda: bench_dynamics.python_client(client, "humanoid", steps), args.repeats)
            name, cleanup = bind_controller(client)
            try:
                r["scheduler_python_controller"] = best(
                    lambda: scheduler_run(sched, steps, 0.01, True, controller=name),
                    args.repeats)
            finally:
                cleanup()
        finally:
            subprocess.run(cli + ["down", "--state-dir", state], check=True,
                           stdout=subprocess.DEVNULL, env=env)

    base = r["in_process"]["steps_per_s"]
    print("humanoid standing, high gain, sensors on, dt 1 ms, %d steps (best of %d)"
          % (steps, args.repeats))
    print("%-44s %10s %8s %9s" % ("way", "steps/s", "x real", "/ in-proc"))
    rows = [("in-process (hsd_step only)", "in_process"),
            ("scheduler, no controller, log every step", "scheduler_log_every_step"),
            ("scheduler, no controller, log every 10 ms", "scheduler_log_10ms"),
            ("C++ client (step + 2 reads, CORBA)", "cxx_client"),
            ("Python client (step + 2 reads, CORBA)", "python_client"),
            ("scheduler + 1 Python controller (1 ms)", "scheduler_python_controller")]
    for label, key in rows:
        sps = r[key]["steps_per_s"]
        print("%-44s %10.0f %8.1f %9.3f" % (label, sps, sps * DT, sps / base))
    overhead = (1.0 / r["scheduler_python_controller"]["steps_per_s"]
                - 1.0 / r["scheduler_log_10ms"]["steps_per_s"])
    r["python_controller_overhead_us_per_tick"] = overhead * 1e6
    print("per-tick overhead of one Python controller (input + control + output): %.0f us"
          % (overhead * 1e6))
    ratio = r["scheduler_log_every_step"]["steps_per_s"] / base
    print("target: scheduler without controllers >= 0.80 of in-process: %.3f (%s)"
          % (ratio, "met" if ratio >= 0.8 else "NOT met"))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
