#!/usr/bin/env python3
"""The joint-space engine's forward dynamics on the sample humanoid: time and instructions.

    bench/bench_jointspace.py [--calls N] [--rounds R] [--no-callgrind]

Runs build/bin/hrpsim-bench-jointspace (bench/bench_jointspace.c: microseconds per call of each
phase, best of R rounds, and the energy and momentum drift of the humanoid floating for 1 s),
then, unless --no-callgrind, the same program under valgrind's callgrind with collection on
inside hsd_jsForward and hsd_jsStep only, for the instructions per call (which the machine's
load does not move), and hsd_step of the humanoid in the air on both engines. Prints one
table.
"""

import argparse
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin" / "hrpsim-bench-jointspace"
MODELS = ROOT / "samples" / "models"


def timing(calls: int, rounds: int) -> dict:
    out = subprocess.run([str(BIN), str(MODELS), str(calls), str(rounds)], check=True,
                         capture_output=True, text=True).stdout
    print(out, end="")
    return json.loads(out.strip().splitlines()[-1])


def instructions(function: str, calls: int) -> float:
    """Instructions per call of function: callgrind collecting inside it only. Beyond calls,
    the bench's drift figures call hsd_jsForward 4 more times and hsd_jsStep 11,000 times (its
    world rows step through hsd_jsStepVelocity and hsd_jsIntegrate, not hsd_jsStep)."""
    extra = {"hsd_jsForward": 4, "hsd_jsStep": 11000}[function]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        "--toggle-collect=" + function, str(BIN), str(MODELS), str(calls), "1"],
                       check=True, capture_output=True, text=True)
        total = int(re.search(r"^summary:\s*(\d+)", Path(out).read_text(), re.M).group(1))
    return total / (calls + extra)


def step_instructions(case: str, steps: int) -> float:
    """Instructions per hsd_step of one world case run alone (callgrind inside hsd_step)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        "--toggle-collect=hsd_step", str(BIN), str(MODELS), str(steps), "1",
                        case], check=True, capture_output=True, text=True)
        total = int(re.search(r"^summary:\s*(\d+)", Path(out).read_text(), re.M).group(1))
    return total / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-callgrind", action="store_true")
    args = ap.parse_args()
    t = timing(args.calls, args.rounds)
    if not args.no_callgrind:
        for fn in ("hsd_jsForward", "hsd_jsStep"):
            print("  %-14s %9.0f instructions per call (callgrind)" % (fn, instructions(fn, 1000)))
    print("  hsd_step of the humanoid in the air: torque mode (sample PD law) ODE %.1f us, "
          "joint space %.1f us (x%.1f); high gain ODE %.1f us, joint space %.1f us"
          % (t["world_ode_torque_us"], t["world_js_torque_us"],
             t["world_ode_torque_us"] / t["world_js_torque_us"], t["world_ode_highgain_us"],
             t["world_js_highgain_us"]))
    if not args.no_callgrind:
        for case in ("ode-torque", "js-torque", "ode-highgain", "js-highgain"):
            print("  hsd_step %-13s %9.0f instructions per step (callgrind, 300 steps)"
                  % (case, step_instructions(case, 300)))
    print("  fidelity: energy drift %.3g, momentum drift %.3g over 1 s at 1 ms (%.3g, %.3g at "
          "0.1 ms)" % (t["energy_drift_1ms"], t["momentum_drift_1ms"], t["energy_drift_01ms"],
                       t["momentum_drift_01ms"]))
    print("  high gain in flight (zero gravity, limbs swung 1 s): centre moved %.2g m (ODE) "
          "%.2g m (joint space), angular momentum at most %.2g / %.2g N m s"
          % (t["flight_centre_ode_m"], t["flight_centre_js_m"], t["flight_angular_ode"],
             t["flight_angular_js"]))


if __name__ == "__main__":
    main()
