#!/usr/bin/env python3
"""DynamicsSimulator benchmark: steps per second in-process, through CORBA from C++ and Python.

Run after the build:  .venv/bin/python bench/bench_dynamics.py [--steps N] [--json OUT]

Two scenes, each measured three ways side by side in one run:
  - humanoid: the sample humanoid standing on the floor, every joint in high-gain mode,
    sensors on, 1 ms step;
  - boxes: 100 boxes (0.1 m, 0.5 kg) dropped in a 5 x 5 x 4 grid onto the floor, every
    box/box and box/floor pair registered, 1 ms step.
Ways:
  - in-process: the C world alone, hsd_step in a loop (build/bin/hrpsim-bench-world);
  - C++ CORBA: a C++ client (build/bin/hrpsim-bench-dynamics-client) calling
    stepSimulation + getWorldState + getCharacterSensorState each step (three round trips),
    and the same in one round trip (hrpsim::DynamicsSimulator::stepWith);
  - Python CORBA: the same two loops from this process through omniORBpy.
The servers are started for the run (`hrpsim up --only ModelLoader DynamicsSimulatorFactory`
in a temporary state directory) and stopped afterwards. The binaries come from $HRPSIM_BIN_DIR
or build/bin. Ratios CORBA / in-process are what to compare across machines.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

import hrpsim  # noqa: E402
from hrpsim import paths  # noqa: E402
from hrpsim.models import OPENHRP_PROTOS  # noqa: E402

FLOOR = REPO / "samples/models/floor/floor.wrl"
HUMANOID = REPO / "samples/models/humanoid/humanoid.wrl"
BOX = REPO / "bench/out/bench_box.wrl"

BOX_WRL = """#VRML V2.0 utf8
# bench_box: a free 0.1 m cube of 0.5 kg (written by bench/bench_dynamics.py)
""" + OPENHRP_PROTOS + """DEF BENCH_BOX Humanoid {
  name "BENCH_BOX"
  humanoidBody [
    DEF BOX Joint {
      jointType "free"
      children [
        DEF BOX_LINK Segment {
          mass 0.5
          momentsOfInertia [ 0.000833333 0 0 0 0.000833333 0 0 0 0.000833333 ]
          children [ Shape { geometry Box { size 0.1 0.1 0.1 } } ]
        }
      ]
    }
  ]
}
"""


def bin_path(name):
    return paths.default_bin_dir() / name


def ensure_box():
    BOX.parent.mkdir(parents=True, exist_ok=True)
    if not BOX.exists() or BOX.read_text() != BOX_WRL:
        BOX.write_text(BOX_WRL)


def scene_model(scene):
    return HUMANOID if scene == "humanoid" else BOX


def in_process(scene, steps):
    out = subprocess.run([str(bin_path("hrpsim-bench-world")), scene, str(steps), str(FLOOR),
                          str(scene_model(scene))], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def cxx_client(naming, scene, steps, one_call=False):
    """The C++ client: stepSimulation + getWorldState + getCharacterSensorState each step, or
    (one_call) the same in one hrpsim::DynamicsSimulator::stepWith."""
    out = subprocess.run([str(bin_path("hrpsim-bench-dynamics-client")), "-ORBInitRef",
                          "NameService=" + naming, scene, str(steps), str(FLOOR),
                          str(scene_model(scene))] + (["one-call"] if one_call else []),
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def cxx_client_one_call(naming, scene, steps):
    """The C++ client with one stepWith per step (step, world state, sensor state)."""
    return cxx_client(naming, scene, steps, one_call=True)


def python_client_one_call(client, scene, steps):
    """The Python client with one stepWith per step (step, world state, sensor state)."""
    return python_client(client, scene, steps, one_call=True)


def python_client(client, scene, steps, one_call=False):
    """The C++ client's loop, from Python (same scene set-up; one_call as cxx_client)."""
    import math
    from hrpsim import OpenHRP
    DS = OpenHRP.DynamicsSimulator
    loader = client.model_loader()
    floor = loader.getBodyInfo(hrpsim.file_url(FLOOR))
    model = loader.getBodyInfo(hrpsim.file_url(scene_model(scene)))
    sim = client.dynamics_simulator()
    try:
        sim.registerCharacter("floor", floor)
        if scene == "humanoid":
            sim.registerCharacter("robot", model)
            sim.init(0.001, DS.EULER, DS.ENABLE_SENSOR)
            sim.setCharacterAllJointModes("robot", DS.HIGH_GAIN_MODE)
            sim.registerCollisionCheckPair("floor", "", "robot", "", 0.5, 0.5, [], [], 0.01, 0.0)
            probe = "robot"
        else:
            names = ["box%02d" % i for i in range(100)]
            for name in names:
                sim.registerCharacter(name, model)
            sim.init(0.001, DS.EULER, DS.ENABLE_SENSOR)
            root = model._get_links()[0].name
            for i, name in enumerate(names):
                layer, row, col = i // 25, (i % 25) // 5, i % 5
                yaw = 0.1 * layer
                c, s = math.cos(yaw), math.sin(yaw)
                sim.setCharacterLinkData(name, root, DS.ABS_TRANSFORM, [
                    (col - 2) * 0.15 + 0.03 * layer, (row - 2) * 0.15 - 0.02 * layer,
                    0.1 + 0.15 * layer, c, -s, 0, s, c, 0, 0, 0, 1])
                sim.registerCollisionCheckPair("floor", "", name, "", 0.5, 0.5, [], [], 0.01,
                                               0.0)
            for i in range(100):
                for j in range(i + 1, 100):
                    sim.registerCollisionCheckPair(names[i], "", names[j], "", 0.5, 0.5, [], [],
                                                   0.01, 0.0)
            probe = "box00"
        sim.initSimulation()
        if one_call:
            one = sim._narrow(hrpsim.SchedulerIDL.DynamicsSimulator)
            probes = [probe]
            t0 = time.perf_counter()
            for _ in range(steps):
                one.stepWith([], 1, True, probes)
        else:
            t0 = time.perf_counter()
            for _ in range(steps):
                sim.stepSimulation()
                sim.getWorldState()
                sim.getCharacterSensorState(probe)
        seconds = time.perf_counter() - t0
    finally:
        sim.destroy()
    return {"scene": scene, "steps": steps, "seconds": seconds, "steps_per_s": steps / seconds}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5000, help="steps per figure (humanoid)")
    ap.add_argument("--box-steps", type=int, default=500,
                    help="steps per figure (boxes; the pile forms over the first 0.6 s and each "
                    "step gets slower as it does)")
    ap.add_argument("--scenes", nargs="+", default=["humanoid", "boxes"],
                    choices=["humanoid", "boxes"], help="scenes to run (default both)")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    ensure_box()
    results = []
    cli = [sys.executable, "-m", "hrpsim.cli"]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    with tempfile.TemporaryDirectory(prefix="hrpsim-bench-") as state:
        subprocess.run(cli + ["up", "--state-dir", state, "--only", "ModelLoader",
                              "DynamicsSimulatorFactory"], check=True, stdout=subprocess.DEVNULL,
                       env=env)
        try:
            naming = hrpsim.naming_from_environment(state)
            client = hrpsim.connect(naming=naming)
            for scene in args.scenes:
                steps = args.steps if scene == "humanoid" else args.box_steps
                local = in_process(scene, steps)
                cxx = cxx_client(naming, scene, steps)
                py = python_client(client, scene, steps)
                cxx1 = cxx_client_one_call(naming, scene, steps)
                py1 = python_client_one_call(client, scene, steps)
                results.append({"scene": scene, "steps": steps, "in_process": local,
                                "cxx_corba": cxx, "python_corba": py, "cxx_one_call": cxx1,
                                "python_one_call": py1})
        finally:
            subprocess.run(cli + ["down", "--state-dir", state], check=True,
                           stdout=subprocess.DEVNULL, env=env)
    print("%-9s %7s %14s  %s" % ("scene", "steps", "in-process/s",
                                 "steps/s (ratio to in-process) through CORBA"))
    for r in results:
        base = r["in_process"]["steps_per_s"]
        print("%-9s %7d %14.0f" % (r["scene"], r["steps"], base))
        for key, label in (("cxx_corba", "C++, three calls"), ("cxx_one_call", "C++, one call"),
                           ("python_corba", "Python, three calls"),
                           ("python_one_call", "Python, one call")):
            sps = r[key]["steps_per_s"]
            print("%33s %-20s %10.0f (%5.3f)" % ("", label, sps, sps / base))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
