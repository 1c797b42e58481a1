#!/usr/bin/env python3
"""ModelLoader benchmark: load time through CORBA beside in-process loading, and transfer size.

Run after the build:  .venv/bin/python bench/run_bench.py [--repeats N] [--json OUT]

It starts its own naming service and servers (`hrpsim up` in a temporary state directory),
then for the sample humanoid and for a generated model of 200 links and about 1 million
triangles (bench/gen_big_model.py), and for the same two as URDF (the URDF humanoid of
samples/models/urdf/humanoid/ and bench/gen_big_urdf.py's BIG200_URDF, whose 200 binary STL
files hold the million triangles), measures, side by side in one run:
  - in-process loading (build/bin/hrpsim-bench-load, hsm_loadModel), median of repeated
    loads; if that program cannot load a model the figure is reported as unavailable, with
    its error, and the ratio is left out;
  - loadBodyInfo through CORBA from Python, median of repeated loads (parse + activate +
    round trip; the BodyInfo's attributes are not fetched);
  - getBodyInfo through CORBA on a cached body (the round trip alone);
  - fetching every BodyInfo attribute: time, and the CDR-encoded size of what crossed the wire.
Ratios (CORBA / in-process) are what to compare across machines; absolute times are noisy here.

With --openhrp-like it measures instead the two models of bench/gen_openhrp_like.py, shaped like
OpenHRP 3.1's sample1.wrl and mockup_main.wrl (the targets: 4x faster than OpenHRP's
3.9 ms and 117 ms, i.e. <= 1 ms and <= 30 ms in process).
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

import hrpsim  # noqa: E402
from hrpsim import OpenHRP  # noqa: E402

BODY_ATTRIBUTES = [
    ("links", "IDL:OpenHRP/LinkInfoSequence:1.0"),
    ("linkShapeIndices", "IDL:OpenHRP/AllLinkShapeIndexSequence:1.0"),
    ("shapes", "IDL:OpenHRP/ShapeInfoSequence:1.0"),
    ("appearances", "IDL:OpenHRP/AppearanceInfoSequence:1.0"),
    ("materials", "IDL:OpenHRP/MaterialInfoSequence:1.0"),
    ("textures", "IDL:OpenHRP/TextureInfoSequence:1.0"),
    ("extraJoints", "IDL:OpenHRP/ExtraJointInfoSequence:1.0"),
]


def median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), min(times)


def in_process(model, repeats):
    """hrpsim-bench-load's figures, or {"error": why} if it cannot load a non-VRML model (a
    VRML model it cannot load is an error, as before)."""
    proc = subprocess.run([str(REPO / "build/bin/hrpsim-bench-load"), str(model), str(repeats)],
                          capture_output=True, text=True)
    if proc.returncode != 0 and model.suffix == ".wrl":
        proc.check_returncode()
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return {"error": lines[-1] if lines else "exit status %d" % proc.returncode}
    return json.loads(proc.stdout)


def transfer(body):
    """Fetch every attribute once; return seconds, CDR bytes and the triangle count."""
    import CORBA
    import omniORB
    t0 = time.perf_counter()
    values = [(getattr(body, "_get_" + name)(), repo_id) for name, repo_id in BODY_ATTRIBUTES]
    seconds = time.perf_counter() - t0
    size = sum(len(omniORB.cdrMarshal(CORBA.TypeCode(repo_id), value))
               for value, repo_id in values)
    shapes = values[[name for name, _ in BODY_ATTRIBUTES].index("shapes")][0]
    triangles = sum(len(s.triangles) // 3 for s in shapes)
    return seconds, size, triangles


def measure(client, model, repeats):
    loader = client.model_loader()
    url = hrpsim.file_url(model)
    local = in_process(model, repeats)
    for _ in range(3):  # warm up the connection and the file cache
        loader.loadBodyInfo(url)
    corba_median, corba_min = median_ms(lambda: loader.loadBodyInfo(url), repeats)
    loader.getBodyInfo(url)
    cached_median, _ = median_ms(lambda: loader.getBodyInfo(url), repeats)
    seconds, size, triangles = transfer(loader.loadBodyInfo(url))
    in_ms = local.get("median_ms")
    return {
        "model": str(model.relative_to(REPO)),
        "triangles": local.get("triangles", triangles),
        "in_process_load_ms": in_ms,
        "in_process_error": local.get("error"),
        "corba_loadBodyInfo_ms": corba_median,
        "corba_loadBodyInfo_min_ms": corba_min,
        "corba_getBodyInfo_cached_ms": cached_median,
        "ratio_corba_over_in_process": corba_median / in_ms if in_ms else None,
        "transfer_all_attributes_ms": seconds * 1e3,
        "transfer_bytes": size,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=200, help="loads per figure (humanoid)")
    ap.add_argument("--big-repeats", type=int, default=7, help="loads per figure (big model)")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--openhrp-like", action="store_true",
                    help="measure the sample1-like and mockup-like models only")
    args = ap.parse_args()
    if args.openhrp_like:
        out = REPO / "bench/out"
        subprocess.run([sys.executable, str(REPO / "bench/gen_openhrp_like.py"), str(out)],
                       check=True, stdout=subprocess.DEVNULL)
        models = [(out / "sample1_like.wrl", args.repeats),
                  (out / "mockup_like/main.wrl", max(args.repeats // 5, 5))]
    else:
        models = None

    big = REPO / "bench/out/big200.wrl"
    if models is None and not big.exists():
        subprocess.run([sys.executable, str(REPO / "bench/gen_big_model.py"), str(big)],
                       check=True)
    big_urdf = REPO / "bench/out/big200_urdf/big200.urdf"
    if models is None and not big_urdf.exists():
        subprocess.run([sys.executable, str(REPO / "bench/gen_big_urdf.py"), str(big_urdf)],
                       check=True)
    cli = [sys.executable, "-m", "hrpsim.cli"]
    with tempfile.TemporaryDirectory(prefix="hrpsim-bench-") as state:
        subprocess.run(cli + ["up", "--state-dir", state, "--only", "ModelLoader"], check=True,
                       stdout=subprocess.DEVNULL)
        try:
            client = hrpsim.connect(naming=hrpsim.naming_from_environment(state))
            if models is None:
                models = [(REPO / "samples/models/humanoid/humanoid.wrl", args.repeats),
                          (big, args.big_repeats),
                          (REPO / "samples/models/urdf/humanoid/humanoid.urdf", args.repeats),
                          (big_urdf, args.big_repeats)]
            results = [measure(client, m, n) for m, n in models]
        finally:
            subprocess.run(cli + ["down", "--state-dir", state], check=True,
                           stdout=subprocess.DEVNULL)
    for r in results:
        print("%s (%d triangles)" % (r["model"], r["triangles"]))
        if r["in_process_load_ms"] is not None:
            print("  in-process load          %9.3f ms" % r["in_process_load_ms"])
            print("  loadBodyInfo via CORBA   %9.3f ms  (x%.2f of in-process)"
                  % (r["corba_loadBodyInfo_ms"], r["ratio_corba_over_in_process"]))
        else:
            print("  in-process load          unavailable (%s)" % r["in_process_error"])
            print("  loadBodyInfo via CORBA   %9.3f ms" % r["corba_loadBodyInfo_ms"])
        print("  getBodyInfo, cached      %9.3f ms" % r["corba_getBodyInfo_cached_ms"])
        print("  all attributes fetched   %9.3f ms, %d bytes CDR"
              % (r["transfer_all_attributes_ms"], r["transfer_bytes"]))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
