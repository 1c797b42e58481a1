#!/usr/bin/env python3
"""collision/ in process beside FCL: microseconds per call, ratios and whether the answers agree.

    bench/bench_collision_lib.py [--runs N] [--rounds R] [--json FILE]

Runs build/bin/hrpsim-bench-collision-lib (hrpsim's collision library: the sample humanoid on
the floor, 1,000 rays against a 99,904-triangle mesh, mesh-mesh distance and collision of two
19,800- and two 99,904-triangle meshes overlapping, near and far) and build/bin/hrpsim-bench-
collision-fcl (the same mesh-mesh queries on the same triangles with FCL; built only when
pkg-config finds FCL: `apt-get install libfcl-dev`, then re-run cmake) alternately N times (default
3), each taking the median of R rounds (default 7), and prints per query the median over the
runs of both, the ratio FCL / hrpsim (> 1: hrpsim faster) and both answers: a distance [m]
(agreeing when equal to 1e-6 relative) or collision 0/1 (agreeing when equal). The meshes'
fingerprints must match (the same triangles on both sides). FCL 0.7 has no ray query, so the
rays are hrpsim's alone. Targets: 1,000 rays in under 1 ms; mesh-mesh queries as fast
as FCL or faster.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "build" / "bin"
MODELS = REPO / "samples" / "models"


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["queries"]


def agree(name, a, b):
    if name.endswith("_collision"):
        return a == b
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) or a == b


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", help="write the medians and answers to this file")
    args = ap.parse_args()
    lib = [str(BIN / "hrpsim-bench-collision-lib"), str(MODELS / "floor" / "floor.wrl"),
           str(MODELS / "humanoid" / "humanoid.wrl"), str(args.rounds)]
    fclbin = BIN / "hrpsim-bench-collision-fcl"
    have_fcl = fclbin.exists()
    if not have_fcl:
        print("FCL peer not built (apt-get install libfcl-dev, re-run cmake): hrpsim only",
              file=sys.stderr)
    ours, theirs = [], []
    for _ in range(args.runs):
        ours.append(run(lib))
        if have_fcl:
            theirs.append(run([str(fclbin), str(args.rounds)]))
    print(f"load average {os.getloadavg()[0]:.1f}, {args.runs} runs x {args.rounds} rounds")
    ok = True
    for key, q in ours[0].items():
        if "hash" in q and theirs and key in theirs[0]:
            same = q["hash"] == theirs[0][key]["hash"]
            ok &= same
            print(f"{key}: fingerprint {q['hash']} / {theirs[0][key]['hash']} "
                  f"({'same triangles' if same else 'DIFFERENT MESHES'}); BVH build "
                  f"{q['us'] / 1e3:.1f} ms / {theirs[0][key]['us'] / 1e3:.1f} ms")
    print(f"{'query':34s} {'hrpsim us':>11s} {'FCL us':>11s} {'FCL/ours':>9s}  "
          f"{'hrpsim answer':>22s} {'FCL answer':>22s}  agree")
    table = {}
    for key in ours[0]:
        if "hash" in ours[0][key] or key.endswith("_sum_t"):
            continue
        us = statistics.median(r[key]["us"] for r in ours)
        val = ours[0][key]["value"]
        row = {"hrpsim_us": us, "hrpsim_value": val}
        line = f"{key:34s} {us:11.2f}"
        if theirs and key in theirs[0]:
            fus = statistics.median(r[key]["us"] for r in theirs)
            fval = theirs[0][key]["value"]
            same = agree(key, val, fval)
            ok &= same
            row.update(fcl_us=fus, fcl_value=fval, ratio=fus / us, agree=same)
            line += (f" {fus:11.2f} {fus / us:9.2f}  {val:22.17g} {fval:22.17g}  "
                     f"{'yes' if same else 'NO'}")
        else:
            note = "(no ray query in FCL)" if key.startswith("rays_") else ""
            if key.startswith("rays_"):
                val_s = f"{val:g} hits, sum t {ours[0][key + '_sum_t']['value']:.6f}"
            else:
                val_s = f"{val:.17g}"
            line += f" {'-':>11s} {'-':>9s}  {val_s:>22s} {note}"
        table[key] = row
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=2))
    if not ok:
        print("answers or meshes differ between hrpsim and FCL", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
