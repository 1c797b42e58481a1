#!/usr/bin/env python3
"""The dynamics server's malloc memory under a steady load, without the noise of RSS.

    .venv/bin/python bench/bench_heap.py [--load mix|cycle] [--duration 150] [--clients 2]
        [--exe build/bin/hrpsim-dynamics] [--sample 10]

Starts a ModelLoader (`hrpsim up`, in a temporary state dir) and the dynamics server given
by --exe (so two builds can be compared), then --clients processes that call it for
--duration seconds: "cycle" destroys and re-makes a world (floor + arm) again and again,
"mix" draws from the soak's DynamicsSimulator calls (bench/soak.py, hrpsim.loadtest: steps
20, commands 5, world states 6, sensor states 6, refused look-ups 2, world cycles 1).
Every --sample seconds it reads /proc/PID/smaps and prints the resident KiB of the server's
malloc memory ([heap] and anonymous mappings: the main arena, other arenas, big blocks) and,
apart, of its files (libraries paged in as new code runs: RSS that levels off by itself);
at the end the slope of the malloc memory from 30 s on and from 60 s on [MiB/min].
The soak's RSS (bench/soak.py) mixes both and the ModelLoader's traffic: over a few minutes
it cannot tell 0.1 MiB/min from nothing; this can (docs/benchmarks.md, "Memory").
"""

import argparse
import math
import multiprocessing
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from hrpsim import _orb, launcher, loadtest  # noqa: E402

MIX = (("step", 20), ("command", 5), ("state", 6), ("sensors", 6), ("unknown", 2),
       ("cycle", 1))


def client(naming, duration, load, seed, out):
    """One client process: calls of ``load`` for ``duration`` s; puts its call count."""
    import hrpsim
    from hrpsim import OpenHRP
    DS = OpenHRP.DynamicsSimulator
    c = hrpsim.connect(naming)
    world = loadtest._World(c, c.model_loader(), DS)
    world.make()
    rng = random.Random(seed)
    n = 0
    end = time.monotonic() + duration
    while time.monotonic() < end:
        kind = rng.choices([k for k, _ in MIX], [w for _, w in MIX])[0] \
            if load == "mix" else "cycle"
        sim = world.ensure()
        if kind == "cycle":
            world.cycle()
        elif kind == "step":
            sim.stepSimulation()
        elif kind == "command":
            sim.setCharacterAllLinkData("arm", DS.JOINT_VALUE,
                                        [0.3 * math.sin(0.001 * n + j) for j in range(6)])
        elif kind == "state":
            sim.getWorldState()
        elif kind == "sensors":
            sim.getCharacterSensorState("arm")
        else:
            try:
                sim.getCharacterLinkData("nobody", "J1", DS.JOINT_VALUE)
            except Exception:  # noqa: BLE001 - BAD_PARAM expected
                pass
        n += 1
    world.close()
    out.put(n)


def resident(pid):
    """(malloc KiB, file KiB) resident in the process now."""
    heap = files = 0
    kind = None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and len(parts) >= 5 and ":" in parts[3]:
                name = parts[5] if len(parts) > 5 else ""
                kind = "heap" if name in ("", "[heap]") else \
                    "file" if name.startswith("/") else None
            elif parts[0] == "Rss:" and kind:
                if kind == "heap":
                    heap += int(parts[1])
                else:
                    files += int(parts[1])
    return heap, files


def slope(samples, t0):
    pts = [(t, h) for t, h, _ in samples if t >= t0]
    if len(pts) < 3:
        return float("nan")
    n = len(pts)
    mt = sum(t for t, _ in pts) / n
    mh = sum(h for _, h in pts) / n
    num = sum((t - mt) * (h - mh) for t, h in pts)
    den = sum((t - mt) ** 2 for t, _ in pts)
    return num / den * 60 / 1024  # KiB/s -> MiB/min


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", choices=("mix", "cycle"), default="mix")
    ap.add_argument("--duration", type=float, default=150.0)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--sample", type=float, default=10.0)
    ap.add_argument("--exe", default=str(REPO / "build" / "bin" / "hrpsim-dynamics"))
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="hrpsim-heap-") as tmp:
        state = launcher.up(state_dir=tmp, only=["ModelLoader"], timeout=30.0)
        naming = state["naming"]
        server = subprocess.Popen([args.exe, "-ORBInitRef", "NameService=" + naming,
                                   "-ORBendPoint", "giop:tcp:127.0.0.1:"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ctx = _orb.naming_context(naming, 5000)
            deadline = time.monotonic() + 30
            while _orb.resolve_name(ctx, "DynamicsSimulatorFactory") is None:
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit("bench_heap: %s did not start" % args.exe)
                time.sleep(0.2)
            mp = multiprocessing.get_context("spawn")
            out = mp.Queue()
            procs = [mp.Process(target=client, args=(naming, args.duration, args.load, i, out))
                     for i in range(args.clients)]
            t0 = time.monotonic()
            for p in procs:
                p.start()
            samples = []
            print("   t [s]  malloc [KiB]  files [KiB]", flush=True)
            while any(p.is_alive() for p in procs):
                t = time.monotonic() - t0
                h, f = resident(server.pid)
                samples.append((t, h, f))
                print("%8.0f  %12d  %11d" % (t, h, f), flush=True)
                time.sleep(args.sample)
            calls = sum(out.get() for _ in procs)
            for p in procs:
                p.join()
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
            launcher.down(tmp)
    print("%s load, %d clients, %d calls in %.0f s; malloc memory from 30 s: %+.3f MiB/min, "
          "from 60 s: %+.3f MiB/min" % (args.load, args.clients, calls, args.duration,
                                        slope(samples, 30), slope(samples, 60)))


if __name__ == "__main__":
    main()
