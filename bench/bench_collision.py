#!/usr/bin/env python3
"""CollisionDetector through CORBA: microseconds per call on the humanoid standing on the floor.

    bench/bench_collision.py [--calls N] [--old-server PATH] [--rounds R]

Starts a naming service, the ModelLoader, a DynamicsSimulatorFactory (for the standing pose) and
the CollisionDetectorFactory of this build (build/bin), runs build/bin/hrpsim-bench-collision-
client (see its source for the scene and the three queries) and stops them. With --old-server
(another build's hrpsim-collision) the same is done with that server in place of this one, the
two alternating R times, and the table gives both and the ratios side by side. Targets of issue
10: contacts <= 50 us, distance for the 31 pairs <= 500 us (OpenHRP 3.1: 150 us and 5.4 ms);
distance_496 is every link pair of the robot besides (its self-distances included); scan_1080
one scanDistanceWithRay of 1,081 rays over 270 degrees at the robot (see the client's source).
HRPSIM_BENCH_ONLY=contacts (or intersection, distance, distance_496, scan_1080) times that
query alone, for profiling the server while it runs (the others print 0).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "build" / "bin"
MODELS = REPO / "samples" / "models"
sys.path.insert(0, str(REPO / "python"))
import hrpsim  # noqa: E402


def run_with(server, calls):
    """One up/measure/down cycle with the given hrpsim-collision executable."""
    with tempfile.TemporaryDirectory(prefix="hrpsim-bench-cd-") as tmp:
        bindir = Path(tmp) / "bin"
        bindir.mkdir()
        for name in ("hrpsim-modelloader", "hrpsim-dynamics"):
            os.symlink(BIN / name, bindir / name)
        os.symlink(Path(server).resolve(), bindir / "hrpsim-collision")
        state = Path(tmp) / "state"
        cli = [sys.executable, "-m", "hrpsim.cli"]
        env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
        subprocess.run(cli + ["up", "--state-dir", str(state), "--bin-dir", str(bindir),
                              "--only", "ModelLoader", "DynamicsSimulatorFactory",
                              "CollisionDetectorFactory"],
                       check=True, stdout=subprocess.DEVNULL, env=env)
        try:
            naming = hrpsim.naming_from_environment(str(state))
            out = subprocess.run([str(BIN / "hrpsim-bench-collision-client"), "-ORBInitRef",
                                  "NameService=" + naming, str(calls),
                                  str(MODELS / "floor" / "floor.wrl"),
                                  str(MODELS / "humanoid" / "humanoid.wrl")],
                                 check=True, capture_output=True, text=True).stdout
            return json.loads(out.strip().splitlines()[-1])
        finally:
            subprocess.run(cli + ["down", "--state-dir", str(state)], check=True,
                           stdout=subprocess.DEVNULL, env=env)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--old-server", help="another build's hrpsim-collision, run side by side")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    keys = ("contacts_us", "intersection_us", "distance_us", "distance_496_us", "scan_1080_us")
    runs = {"new": []}
    if args.old_server:
        runs["old"] = []
    for _ in range(args.rounds):
        for which in runs:
            server = args.old_server if which == "old" else BIN / "hrpsim-collision"
            runs[which].append(run_with(server, args.calls))
    med = {w: {k: statistics.median(r[k] for r in rs) for k in keys} for w, rs in runs.items()}
    last = runs["new"][-1]
    print("humanoid (%d links) on the floor: %d contact points in %d pairs, %d distances, "
          "%d of %d scan rays hit" % (last["links"], last["points"], last["collisions"],
                                      last["distances"], last["ray_hits"], last["rays"]))
    print("%-6s " % "" + " ".join("%16s" % k for k in keys))
    for which in ("old", "new"):
        if which in med:
            print("%-6s " % which + " ".join("%16.1f" % med[which][k] for k in keys))
    if "old" in med:
        print("%-6s " % "ratio" + " ".join("%15.2fx" % (med["old"][k] / med["new"][k])
                                           if med["new"][k] else "%16s" % "-"
                                           for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
