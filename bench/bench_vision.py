#!/usr/bin/env python3
"""Vision benchmark: frames per second of a COLOR_DEPTH camera on the sample humanoid standing in
the sample room (samples/models/env/room.wrl), in process and through getImageData over CORBA,
side by side in one run.

Run after the build:  .venv/bin/python bench/bench_vision.py [--frames N] [--json OUT]

For 320x240 and 640x480 it measures:
  - in process: build/bin/hrpsim-bench-vision (sensors/render directly: new link poses, draw,
    read colour and metric depth back), frames per second by the wall clock and CPU time per
    frame of the whole process (all renderer threads; the load-independent figure on a shared
    machine);
  - over CORBA from C++: build/bin/hrpsim-bench-vision-client against a ViewSimulator of
    hrpsim-view (started here with `hrpsim up` in a temporary state directory), the humanoid's
    head camera re-declared as COLOR_DEPTH at that size; each frame is updateScene (a new
    pose) + getImageData (two round trips);
  - over CORBA from Python: the same from this process, each image decoded into NumPy arrays
    (hrpsim.images.image_arrays; omniORBpy hands sequences of long and float over as Python
    lists, which costs more than the rendering).
The renderer string (GL_RENDERER, version, EGL platform) is printed with the figures. Targets:
>= 100 fps in process and >= 60 fps over CORBA at 320x240 on the CPU renderer.
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

import hrpsim  # noqa: E402
from hrpsim import OpenHRP, launcher, paths  # noqa: E402
from hrpsim.images import image_arrays  # noqa: E402

HUMANOID = REPO / "samples" / "models" / "humanoid" / "humanoid.wrl"
ROOM = REPO / "samples" / "models" / "env" / "room.wrl"
SIZES = [(320, 240), (640, 480)]


def in_process(width, height, frames):
    exe = Path(paths.default_bin_dir()) / "hrpsim-bench-vision"
    out = subprocess.run([str(exe), str(HUMANOID), str(ROOM), str(width), str(height),
                          str(frames)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def humanoid_with_camera(d, width, height):
    """The sample humanoid with its first camera as COLOR_DEPTH width x height (a copy)."""
    text = HUMANOID.read_text()
    start = text.index("DEF VISION_COLOR VisionSensor {")
    end = text.index("children", start)
    block = text[start:end]
    block = (block.replace('type "COLOR"', 'type "COLOR_DEPTH"')
             .replace("width 320", "width %d" % width).replace("height 240", "height %d" % height))
    path = d / ("humanoid_%dx%d.wrl" % (width, height))
    path.write_text(text[:start] + block + text[end:])
    # its parts (meshes, textures) are found relative to the file
    for p in HUMANOID.parent.iterdir():
        target = d / p.name
        if not target.exists() and p.name != HUMANOID.name:
            target.symlink_to(p)
    return path


def cxx_client(naming, d, width, height, frames):
    exe = Path(paths.default_bin_dir()) / "hrpsim-bench-vision-client"
    out = subprocess.run([str(exe), "-ORBInitRef", "NameService=" + naming, str(ROOM),
                          str(humanoid_with_camera(d, width, height)), str(frames)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def over_corba(client, d, width, height, frames):
    loader = client.model_loader()
    opt = OpenHRP.ModelLoader.ModelLoadOption(True, [], OpenHRP.ModelLoader.AABB_NUM)
    robot = loader.loadBodyInfoEx(hrpsim.file_url(humanoid_with_camera(d, width, height)), opt)
    room = loader.loadBodyInfoEx(hrpsim.file_url(ROOM), opt)
    factory = client.resolve("ViewSimulatorFactory", OpenHRP.ViewSimulatorFactory)
    vs = factory.create()
    try:
        vs.registerCharacter("room", room)
        vs.registerCharacter("robot", robot)
        cam = vs.getCameraSequenceOf("robot")[0]
        p = cam.getCameraParameter()
        assert (p.width, p.height, str(p.type)) == (width, height, "COLOR_DEPTH")
        links = robot._get_links()
        # the initial pose of every link, the root turned a little each frame
        ds = client.dynamics_simulator()
        ds.registerCharacter("robot", robot)
        ds.init(0.001, OpenHRP.DynamicsSimulator.EULER, OpenHRP.DynamicsSimulator.ENABLE_SENSOR)
        ds.initSimulation()
        base = ds.getWorldState().characterPositions[0]
        ds.destroy()
        assert len(base.linkPositions) == len(links)

        def state(k):
            a = 0.2 * math.sin(0.05 * k)
            c, s = math.cos(a), math.sin(a)
            Rz = [c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0]
            lps = []
            for lp in base.linkPositions:
                R = [sum(Rz[3 * i + m] * lp.R[3 * m + j] for m in range(3))
                     for i in range(3) for j in range(3)]
                pp = [sum(Rz[3 * i + m] * lp.p[m] for m in range(3)) for i in range(3)]
                lps.append(OpenHRP.LinkPosition(pp, R))
            return OpenHRP.WorldState(0.0, [OpenHRP.CharacterPosition("robot", lps)], [])

        states = [state(k) for k in range(frames)]
        for k in range(5):  # warm up
            vs.updateScene(states[k % frames])
            image_arrays(cam.getImageData())
        t0 = time.perf_counter()
        for k in range(frames):
            vs.updateScene(states[k])
            img = image_arrays(cam.getImageData())
        dt = time.perf_counter() - t0
        assert img.color.shape == (height, width, 3) and img.depth.shape == (height, width)
        return {"fps": frames / dt, "ms_per_frame": 1e3 * dt / frames}
    finally:
        vs.destroy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        launcher.up(state_dir=state, only=["ModelLoader", "DynamicsSimulatorFactory",
                                           "ViewSimulatorFactory"], timeout=60)
        try:
            naming = launcher.read_state(state)["naming"]
            client = hrpsim.connect(naming)
            for w, h in SIZES:
                ip = in_process(w, h, args.frames)
                cx = cxx_client(naming, Path(tmp), w, h, args.frames)
                co = over_corba(client, Path(tmp), w, h, args.frames)
                rows.append({"size": "%dx%d" % (w, h), "in_process": ip, "corba_cxx": cx,
                             "corba_python": co})
        finally:
            launcher.down(state)

    print("renderer: %s" % rows[0]["in_process"]["renderer"])
    print("load average: %.1f %.1f %.1f (%d cores)" % (*os.getloadavg(), os.cpu_count()))
    print("%-9s %12s %14s %16s %16s" % ("size", "in-proc fps", "CPU ms/frame",
                                        "CORBA C++ fps", "CORBA Python fps"))
    for r in rows:
        ip, cx, co = r["in_process"], r["corba_cxx"], r["corba_python"]
        print("%-9s %12.1f %14.2f %16.1f %16.1f" % (
            r["size"], ip["fps"], ip["cpu_ms_per_frame"], cx["fps"], co["fps"]))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
