#!/usr/bin/env python3
"""Resting contact quality and steps/s of the dynamics' contact generation, side by side.

    bench/bench_contacts.py [--old OLD_BINARY] [--seconds S] [--bin-dir DIR]

Runs hrpsim-bench-contacts (this build) on the scenes humanoid, pile and meshes and, with
--old, the same program built against another build (e.g. one whose dynamics used ODE's own
colliders), alternating the two per scene, and prints one table: steps/s, the ratio, the
deepest and mean contact depth, the RMS body speed and the probe's peak-to-peak height over the
last second (see bench_contacts.c).
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "samples" / "models"


def run(binary, scene, seconds):
    out = subprocess.run([str(binary), scene, str(seconds), str(MODELS / "floor" / "floor.wrl"),
                          str(MODELS / "humanoid" / "humanoid.wrl")],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", help="the same program built against another build")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--bin-dir", default=str(ROOT / "build" / "bin"))
    args = ap.parse_args()
    new = Path(args.bin_dir) / "hrpsim-bench-contacts"
    rows = []
    for scene in ("humanoid", "pile", "meshes"):
        r = {"new": run(new, scene, args.seconds)}
        if args.old:
            r["old"] = run(args.old, scene, args.seconds)
        rows.append((scene, r))
    keys = ("steps_per_s", "max_depth", "mean_depth", "rms_speed", "probe_z_p2p",
            "mean_contacts", "warnings")
    print("%-9s %-4s " % ("scene", "") + " ".join("%13s" % k for k in keys))
    for scene, r in rows:
        for which in ("old", "new"):
            if which in r:
                print("%-9s %-4s " % (scene, which) +
                      " ".join("%13.4g" % r[which][k] for k in keys))
        if "old" in r:
            print("%-9s %-4s %13.2fx" % (scene, "", r["new"]["steps_per_s"] /
                                         r["old"]["steps_per_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
