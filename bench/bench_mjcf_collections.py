#!/usr/bin/env python3
"""MJCF files of public collections: hrpsim's load against MuJoCo's compile.

    .venv/bin/python bench/bench_mjcf_collections.py FILE_OR_DIR... [--json OUT]

For every .xml given (directories are searched, not recursively) that MuJoCo (PyPI
``mujoco``) compiles, each top-level body is loaded through a ModelLoader (``hrpsim up`` in a
private state directory, stopped afterwards) as FILE#BODY (the plain file when it has one
body), and compared with MuJoCo's compile by bench/mjcf_reference.py: mass, centre of mass,
composite inertia, dofs, joint axes, anchors, ranges and armatures to 1e-6. A body hrpsim
refuses is listed with the first line of the reason (which names file:line). Times, in the
same run: MuJoCo's compile of the file, the first in a fresh process (its asset cache would
make later ones skip reading the meshes), best of three; hrpsim's in-process load (hs_loadBody,
a load's meshes imported in one bounded child process, as the ModelLoader does) of all its
bodies, best of five (hrpsim keeps no cache). Files MuJoCo refuses are listed and skipped.
Exit status 0 when every body agrees or is refused with a reason, 1 when any differs.

The collections used for docs/models.md: Gymnasium's MuJoCo environments
(gymnasium/envs/mujoco/assets in PyPI ``gymnasium``) and DeepMind's control suite
(dm_control/suite in PyPI ``dm-control``); unpack the wheels (``pip download --no-deps``) and
point this at those folders.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "tests" / "e2e"))
sys.path.insert(0, str(REPO / "bench"))

import mjcf_reference  # noqa: E402


def files_of(args):
    out = []
    for a in map(Path, args):
        out += sorted(a.glob("*.xml")) if a.is_dir() else [a]
    return out


def mujoco_cold(path, n=3):
    """MuJoCo's first compile of path in a fresh process (MuJoCo keeps decoded meshes in a
    process-wide asset cache, so a second compile in one process is not a load), best of n."""
    code = ("import sys, time, mujoco\nt = time.perf_counter()\n"
            "mujoco.MjModel.from_xml_path(sys.argv[1])\nprint(time.perf_counter() - t)")
    best = float("inf")
    for _ in range(n):
        out = subprocess.run([sys.executable, "-c", code, str(Path(path).resolve())],
                             capture_output=True,
                             text=True, check=True, cwd=tempfile.gettempdir())
        best = min(best, float(out.stdout.split()[-1]))
    return best


def best_time(fn, n=5):
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    import mujoco
    import hrpsim
    from hrpsim.local import core_module
    from helpers import snapshot
    core = core_module()
    ffi, lib = core.ffi, core.lib
    lib.hsu_setLogLevel(lib.hsLOG_ERROR)

    def hs_load(path):
        err = ffi.new("hsError *")
        body = lib.hs_loadBody(str(path).encode(), err)
        if body != ffi.NULL:
            lib.hs_freeBody(body)

    rows, bad = [], 0
    with tempfile.TemporaryDirectory() as state:
        cli = [sys.executable, "-m", "hrpsim.cli"]
        subprocess.run(cli + ["up", "--state-dir", state], check=True, capture_output=True)
        try:
            from hrpsim import launcher
            client = hrpsim.connect(launcher.read_state(state)["naming"])
            for path in files_of(args.paths):
                try:
                    m = mujoco.MjModel.from_xml_path(str(path))
                except ValueError as exc:
                    rows.append(dict(file=str(path), mujoco=str(exc).splitlines()[0]))
                    continue
                tops = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) or "body%d" % b
                        for b in range(1, m.nbody) if m.body_parentid[b] == 0]
                urls = [str(path)] if len(tops) == 1 else ["%s#%s" % (path, t) for t in tops]
                t_mj = mujoco_cold(path)
                t_hs = sum(best_time(lambda u=u: hs_load(u)) for u in urls)
                for top, url in zip(tops, urls):
                    row = dict(file=str(path), body=top, t_mujoco=t_mj, t_hrpsim=t_hs)
                    try:
                        ours = mjcf_reference.hrpsim_summary(snapshot(client.load_body(url)))
                    except hrpsim.OpenHRP.ModelLoader.ModelLoaderException as exc:
                        row["refused"] = exc.description.splitlines()[0]
                        rows.append(row)
                        continue
                    theirs = mjcf_reference.mujoco_summary(path, top if len(tops) > 1 else None)
                    row["differences"] = mjcf_reference.differences(ours, theirs)
                    row["joints"] = len(theirs[1])
                    bad += bool(row["differences"])
                    rows.append(row)
        finally:
            subprocess.run(cli + ["down", "--state-dir", state], capture_output=True)
    for r in rows:
        name = "%s%s" % (Path(r["file"]).name, "#" + r["body"] if "body" in r else "")
        if "mujoco" in r:
            print("%-40s MuJoCo refuses: %s" % (name, r["mujoco"]))
        elif "refused" in r:
            print("%-40s refused: %s" % (name, r["refused"]))
        else:
            print("%-40s %s  %2d joints  MuJoCo %.2f ms, hrpsim %.2f ms (x%.2f)"
                  % (name, "same" if not r["differences"] else "DIFFERS", r["joints"],
                     1e3 * r["t_mujoco"], 1e3 * r["t_hrpsim"], r["t_hrpsim"] / r["t_mujoco"]))
            for d in r["differences"]:
                print("    " + d)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
