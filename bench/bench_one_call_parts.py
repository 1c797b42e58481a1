#!/usr/bin/env python3
"""Where a one-call step's time goes: each piece of the PD loop timed alone, in one run.

Run after the build:  .venv/bin/python bench/bench_one_call_parts.py [--calls 3000]
                                                                   [--json OUT]

The scene of bench/bench_one_call.py (the torque-mode humanoid under the sample PD law,
sensors on, 1 ms step, through hrpsim.Simulation's server back end). Each row repeats one
operation --calls times and prints per call: wall time, this process's CPU time and the
dynamics server's CPU time (from /proc: user + system of the whole server process). Rows:
  - the round trips alone: a call that does nothing (sleeping), each of OpenHRP's three
    calls, stepWith without a step (n = 0: conversions and marshalling only) and with one;
  - the same empty call over loopback TCP (a second client ORB told to prefer TCP: what a
    peer without the unix socket pays);
  - the Python side: the PD law on lists and on NumPy arrays, Simulation.sensors() and
    set_joint_torques() as the one-call loop calls them.
CPU times hold up better than wall times on a loaded machine; the sum client + server CPU
of a round trip is its cost without the waiting. Linux only (/proc).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "samples" / "controllers"))

import bench_one_call  # noqa: E402
import hrpsim  # noqa: E402
import pd_controller  # noqa: E402
from hrpsim import OpenHRP, SchedulerIDL  # noqa: E402
from hrpsim.errors import unwrap  # noqa: E402

DS = OpenHRP.DynamicsSimulator


def cpu_of(pid):
    """User + system seconds of process pid so far."""
    f = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def timed(label, fn, calls, server_pid, rows):
    """fn() calls times: wall, client CPU, server CPU per call [us]."""
    fn()
    w0, c0, s0 = time.perf_counter(), time.process_time(), cpu_of(server_pid)
    for _ in range(calls):
        fn()
    w, c = time.perf_counter() - w0, time.process_time() - c0
    s = cpu_of(server_pid) - s0
    rows.append({"what": label, "wall_us": w / calls * 1e6, "client_cpu_us": c / calls * 1e6,
                 "server_cpu_us": s / calls * 1e6})
    print("%-52s %9.1f %11.1f %11.1f" % (label, *[rows[-1][k] for k in
                                                   ("wall_us", "client_cpu_us",
                                                    "server_cpu_us")]), flush=True)


def python_side(label, fn, rows):
    """Best of 5 x 2000 calls (no server part) [us]."""
    us = min(timeit.repeat(fn, number=2000, repeat=5)) / 2000 * 1e6
    rows.append({"what": label, "wall_us": us, "client_cpu_us": us, "server_cpu_us": 0.0})
    print("%-52s %9.1f %11.1f %11s" % (label, us, us, "-"), flush=True)


def tcp_round_trip(naming, ior, calls):
    """The empty call from a second process whose ORB prefers loopback TCP: [wall, cpu] us."""
    code = ("import sys, time; sys.path.insert(0, %r)\n"
            "import hrpsim\n"
            "from hrpsim import SchedulerIDL\n"
            "c = hrpsim.connect(naming=%r, orb_args=['-ORBclientTransportRule', "
            "'127.0.0.1 tcp'])\n"
            "ds = c.orb.string_to_object(%r)._narrow(SchedulerIDL.DynamicsSimulator)\n"
            "ds.sleeping('floor')\n"
            "w0, c0 = time.perf_counter(), time.process_time()\n"
            "for _ in range(%d): ds.sleeping('floor')\n"
            "print((time.perf_counter() - w0) / %d * 1e6, (time.process_time() - c0) / %d * 1e6)"
            % (str(REPO / "python"), naming, ior, calls, calls, calls))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), float(out[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000, help="calls per row (default 3000)")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()
    cli = [sys.executable, "-m", "hrpsim.cli"]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    rows = []
    n = args.calls
    with tempfile.TemporaryDirectory(prefix="hrpsim-bench-") as state:
        subprocess.run(cli + ["up", "--state-dir", state, "--only", "ModelLoader",
                              "DynamicsSimulatorFactory"], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        try:
            info = json.loads((Path(state) / "state.json").read_text())
            pid = next(p["pid"] for p in info["processes"]
                       if p["name"] == "DynamicsSimulatorFactory")
            naming = hrpsim.naming_from_environment(state)
            client = hrpsim.connect(naming=naming)
            print("%-52s %9s %11s %11s" % ("per call [us]", "wall", "client CPU",
                                            "server CPU"))
            with hrpsim.Simulation(client, dt=bench_one_call.DT) as sim:
                sim.one_call = False
                law = pd_controller.PDLaw(bench_one_call.configure(sim))
                sim.start()
                ds = unwrap(sim.dynamics)
                one = ds._narrow(SchedulerIDL.DynamicsSimulator)
                s = ds.getCharacterSensorState("robot")
                tau = law.torques(0.0, s.q, s.dq)
                cmd = [SchedulerIDL.JointCommand("robot", DS.JOINT_TORQUE, tau)]
                timed("empty call (sleeping), unix socket", lambda: one.sleeping("floor"), n,
                      pid, rows)
                wall, cpu = tcp_round_trip(naming, client.orb.object_to_string(one), n)
                rows.append({"what": "empty call (sleeping), loopback TCP", "wall_us": wall,
                             "client_cpu_us": cpu, "server_cpu_us": None})
                print("%-52s %9.1f %11.1f %11s" % (rows[-1]["what"], wall, cpu, "-"))
                timed("setCharacterAllLinkData(JOINT_TORQUE)",
                      lambda: ds.setCharacterAllLinkData("robot", DS.JOINT_TORQUE, tau), n,
                      pid, rows)
                timed("stepSimulation", ds.stepSimulation, n, pid, rows)
                timed("getCharacterSensorState", lambda: ds.getCharacterSensorState("robot"),
                      n, pid, rows)
                timed("stepWith, n = 0 (no step)",
                      lambda: one.stepWith(cmd, 0, False, ["robot"]), n, pid, rows)
                timed("stepWith, n = 1", lambda: one.stepWith(cmd, 1, False, ["robot"]), n, pid,
                      rows)
            with hrpsim.Simulation(client, dt=bench_one_call.DT) as sim:
                sim.one_call = True
                law = pd_controller.PDLaw(bench_one_call.configure(sim))
                sim.start()
                sim.step(1)
                st = sim.sensors("robot")
                q, dq = list(st["q"]), list(st["dq"])

                def torques():
                    sim.set_joint_torques("robot", tau)
                    sim._backend._pending = []  # not sent: the write alone
                python_side("PD law, lists", lambda: law.torques(0.5, q, dq), rows)
                python_side("PD law, NumPy arrays (Simulation.sensors')",
                            lambda: law.torques(0.5, st["q"], st["dq"]), rows)
                python_side("Simulation.sensors('robot') (state held)",
                            lambda: sim.sensors("robot"), rows)
                python_side("Simulation.set_joint_torques (held)", torques, rows)
        finally:
            subprocess.run(cli + ["down", "--state-dir", state], check=True,
                           stdout=subprocess.DEVNULL, env=env)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
