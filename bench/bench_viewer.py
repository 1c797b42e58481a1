#!/usr/bin/env python3
"""Viewer benchmark: what live viewing costs a run, and how fast a long replay opens.

Run after the build (and tools/bootstrap.sh, for the page):
    .venv/bin/python bench/bench_viewer.py [--time 5] [--repeats 3] [--replay-seconds 60]
                                           [--json OUT] [--skip scheduler|replay]

1. scheduler: the scene of bench_scheduler.py (the sample humanoid standing on the floor, all
   joints high gain, 1 ms step, --time simulated seconds, no controller, a log record with
   sensors every 10 ms), run by the hrpsim-scheduler server side by side: without a viewer;
   with the web viewer (hrpsim's OnlineViewer, one page connected that reads everything, a
   WebSocket client in this process) at the default view rate of 30 frames per simulated
   second and at 1000 (a frame every step: the feed replaces what the viewer has not taken
   yet); and with a viewer that blocks 0.5 s in every update() (a servant in this process).
   The Scheduler pushes frames from a thread of its own and never waits for the viewer.
   Steps per second from the server's status (steps / wallTime), best of --repeats; frames
   received by the page (or the blocked viewer).
2. replay: a results directory of --replay-seconds at 1 kHz for the 31-link (30-joint)
   humanoid + floor (log.npz as `hrpsim run` writes it, with link positions, q, dq, u and
   sensors; made synthetically), opened with `hrpsim view` and headless Chromium:
   - ready: from starting `hrpsim view` to its URL being printed (the log read and turned
     into frames);
   - first frame: from navigating to the page to the robot drawn at the first record, with
     the run's length known (status count), i.e. the page is open and usable;
   - all frames: to every record received (the rest streams in behind, 4096 per message);
   - total open: ready + first frame (a person typing `hrpsim view` and opening the URL).
   Best of --repeats for the browser figures.
The servers are started for the run in a temporary state dir and stopped afterwards.
"""

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import bench_dynamics  # noqa: E402
import bench_scheduler  # noqa: E402
import hrpsim  # noqa: E402
from hrpsim import OpenHRP, launcher  # noqa: E402

HUMANOID = str(REPO / "samples/models/humanoid/humanoid.wrl")
FLOOR = str(REPO / "samples/models/floor/floor.wrl")


class PageReader:
    """A WebSocket client that reads every message of the viewer's stream (a page that keeps
    up), on its own thread; ``frames`` counts the frames received."""

    def __init__(self, url):
        import aiohttp
        self.frames = 0
        self.stop = False
        self.ready = threading.Event()

        async def run():
            async with aiohttp.ClientSession() as s:
                async with s.ws_connect(url + "ws", max_msg_size=0) as ws:
                    self.ready.set()
                    while not self.stop:
                        try:
                            msg = await ws.receive(timeout=0.2)
                        except asyncio.TimeoutError:
                            continue
                        if msg.type == aiohttp.WSMsgType.BINARY:
                            self.frames += int.from_bytes(msg.data[12:16], "little")
                        elif msg.type != aiohttp.WSMsgType.TEXT:
                            break
        self.thread = threading.Thread(target=lambda: asyncio.run(run()), daemon=True)
        self.thread.start()
        self.ready.wait(10)

    def close(self):
        self.stop = True
        self.thread.join(5)


class SlowViewer(hrpsim.OpenHRP__POA.OnlineViewer):
    """An OnlineViewer whose update() blocks ``delay`` seconds (a hung page)."""

    def __init__(self, delay):
        self.delay = delay
        self.updates = 0

    def update(self, state):
        time.sleep(self.delay)
        self.updates += 1

    def load(self, name, url):
        pass

    def clearLog(self):
        pass

    def clearData(self):
        pass

    def drawScene(self, state):
        pass

    def setLineWidth(self, width):
        pass

    def setLineScale(self, scale):
        pass

    def getPosture(self, robot):
        return False, []

    def setLogName(self, name):
        pass


def scheduler_run(sched, steps, log_period, viewer=None, rate=30.0):
    """The scene of bench_scheduler.scheduler_run, with ``viewer`` attached after the reset
    (reset() detaches any viewer); the server's figures."""
    import hrpsim._idl.hrpsim as H
    DS = OpenHRP.DynamicsSimulator
    dt = bench_scheduler.DT
    sched.reset()
    sched.setTimeStep(dt)
    sched.addModel("floor", hrpsim.file_url(bench_dynamics.FLOOR))
    sched.addModel("robot", hrpsim.file_url(bench_dynamics.HUMANOID))
    sched.setAllJointModes("robot", DS.HIGH_GAIN_MODE)
    sched.addCollisionPair(H.CollisionPair("floor", "", "robot", "", 0.5, 0.5, 0.01, 0.0))
    sched.setEndTime(steps * dt)
    sched.setLogOptions(H.LogOptions(log_period, True))
    sched.setOnlineViewer(viewer)
    sched.setViewRate(rate)
    sched.start()
    st = sched.wait(600.0)
    if st.state != H.FINISHED or st.steps != steps:
        raise RuntimeError("scheduler run did not finish: %s" % st)
    records = len(sched.getLog(0))
    sched.reset()
    return {"steps": st.steps, "seconds": st.wallTime, "steps_per_s": st.steps / st.wallTime,
            "records": records}


def bench_scheduler_with_viewer(args):
    out = {}
    state = Path(tempfile.mkdtemp(prefix="hrpsim-bench-viewer-"))
    try:
        st = launcher.up(state_dir=state, only=["ModelLoader", "DynamicsSimulatorFactory",
                                                "Scheduler"], viewer=True, timeout=30)
        client = hrpsim.connect(st["naming"])
        import hrpsim._idl.hrpsim as H
        sched = client.resolve("Scheduler", H.Scheduler)
        hrpsim._orb.set_call_timeout(sched, 0)
        viewer = client.resolve("OnlineViewer", OpenHRP.OnlineViewer)
        page = PageReader(st["viewer_url"])
        steps = int(round(args.time / bench_scheduler.DT))
        period = 0.01
        slow = SlowViewer(0.5)
        poa = hrpsim._orb.get_orb().resolve_initial_references("RootPOA")
        poa._get_the_POAManager().activate()
        slow_ref = slow._this()
        try:
            without = bench_scheduler.best(lambda: scheduler_run(sched, steps, period),
                                           args.repeats)
            out["without viewer"] = {"steps_per_s": without["steps_per_s"]}
            print("scheduler, log 10 ms, %d steps: without viewer %27.0f steps/s"
                  % (steps, without["steps_per_s"]), flush=True)
            for label, ref, rate, count in (
                    ("web viewer 30 Hz", viewer, 30.0, lambda: page.frames),
                    ("web viewer 1 kHz", viewer, 1000.0, lambda: page.frames),
                    ("blocked viewer 30 Hz", slow_ref, 30.0, lambda: slow.updates)):
                before = count()
                with_viewer = bench_scheduler.best(
                    lambda: scheduler_run(sched, steps, period, ref, rate), args.repeats)
                time.sleep(1.5)  # the last frames land after the run
                frames = (count() - before) / args.repeats
                out[label] = {"view_rate": rate, "steps_per_s": with_viewer["steps_per_s"],
                              "ratio_to_without": with_viewer["steps_per_s"] /
                              without["steps_per_s"],
                              "frames_received_per_run": frames}
                print("scheduler, log 10 ms, %d steps: %-22s %10.0f steps/s (x%.2f of "
                      "without)  %.1f frames received per run (%d pushed)"
                      % (steps, label, with_viewer["steps_per_s"],
                         out[label]["ratio_to_without"], frames,
                         int(args.time * rate) + 1), flush=True)
        finally:
            page.close()
    finally:
        launcher.down(state)
        shutil.rmtree(state, ignore_errors=True)
    return out


def write_replay(out_dir, seconds, servers_state):
    """A results directory of ``seconds`` at 1 kHz for the humanoid + floor."""
    from hrpsim.results import write_results
    from hrpsim.viewer.scene import Kinematics
    from hrpsim.viewer.server import describe_url
    client = hrpsim.connect(launcher.read_state(servers_state)["naming"])
    loader = client.model_loader()
    models = [{"name": n, "url": hrpsim.file_url(u), "body": describe_url(loader, u)}
              for n, u in (("floor", FLOOR), ("robot", HUMANOID))]
    kin = Kinematics(models[1]["body"])
    n = int(round(seconds * 1000)) + 1
    t = np.arange(n) * 0.001
    joint_q = 0.3 * np.sin(2 * np.pi * 0.5 * t[:, None] + np.arange(30)[None, :])
    root_p = np.stack([0.1 * np.sin(t), np.zeros(n), 0.8 + 0.02 * np.sin(3 * t)], axis=1)
    root_R = np.tile(np.eye(3), (n, 1, 1))
    P, _ = kin.forward(root_p, root_R, kin.link_values(joint_q))
    names = [lk["name"] for lk in models[1]["body"]["links"]]
    rng = np.random.default_rng(1)
    arrays = {"time": t, "floor.root_p": np.zeros((n, 3)),
              "floor.root_R": np.tile(np.eye(3), (n, 1, 1)),
              "robot.root_p": root_p, "robot.root_R": root_R, "robot.link_p": P,
              "robot.q": joint_q, "robot.dq": np.gradient(joint_q, t, axis=0),
              "robot.u": rng.normal(size=(n, 30)),
              "robot.joint_names": np.array([names[i] for i in kin.joint_links]),
              "robot.force": rng.normal(size=(n, 2, 6)),
              "robot.rate_gyro": rng.normal(size=(n, 1, 3)),
              "robot.accel": rng.normal(size=(n, 1, 3))}
    summary = {"project": "bench-replay.xml", "format": "hrpsim", "status": "FINISHED",
               "message": "", "models": [{"name": m["name"], "url": m["url"]} for m in models],
               "controllers": [], "time_step": 0.001, "end_time": seconds, "steps": n - 1,
               "simulated_time": t[-1], "wall_time": 0.0, "real_time_factor": 0.0,
               "records": n, "log_period": 0.001, "warnings": []}
    write_results(out_dir, arrays, summary, plots=False, models=models)


def bench_replay(args):
    from hrpsim.viewer.browser import Browser
    out = {}
    state = Path(tempfile.mkdtemp(prefix="hrpsim-bench-replay-"))
    results = state / "results" / "replay"
    try:
        launcher.up(state_dir=state, only=["ModelLoader"], timeout=30)
        write_replay(results, args.replay_seconds, state)
    finally:
        launcher.down(state)
    size = sum(p.stat().st_size for p in results.iterdir())
    out["records"] = int(args.replay_seconds * 1000) + 1
    out["results_bytes"] = size
    try:
        env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "hrpsim.cli", "view", str(results)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=env)
        line = proc.stdout.readline()
        out["ready_s"] = time.monotonic() - t0
        url = line.rsplit(" at ", 1)[1].strip()
        try:
            best = None
            with Browser(width=900, height=600) as b:
                for _ in range(args.repeats):
                    page = b.new_page()
                    page.bring_to_front()
                    t1 = time.monotonic()
                    page.call("Page.navigate", url=url)
                    page.wait_for("window.hrpsim && window.hrpsim.ready && "
                                  "window.hrpsim.drawnTime !== undefined && window.hrpsim.status."
                                  "count === %d" % out["records"], timeout=60, interval=0.01)
                    first = time.monotonic() - t1
                    page.wait_for("window.hrpsim.frameCount === %d" % out["records"],
                                  timeout=120, interval=0.01)
                    full = time.monotonic() - t1
                    timing = page.evaluate("window.hrpsim.timing")
                    page.close()
                    if best is None or first < best[0]:
                        best = (first, full, timing)
            out["first_frame_s"], out["all_frames_s"], out["page_timing_ms"] = best
            out["total_open_s"] = out["ready_s"] + out["first_frame_s"]
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
        print("replay, %d records (%.1f MB of results): hrpsim view ready %.2f s; page: first "
              "frame %.2f s, all frames %.2f s; total open %.2f s"
              % (out["records"], size / 1e6, out["ready_s"], out["first_frame_s"],
                 out["all_frames_s"], out["total_open_s"]), flush=True)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", type=float, default=5.0, help="simulated seconds per run")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure, best kept")
    ap.add_argument("--replay-seconds", type=float, default=60.0,
                    help="length of the replayed run at 1 kHz (default 60)")
    ap.add_argument("--skip", choices=("scheduler", "replay"), action="append", default=[])
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    hrpsim._orb.get_orb()
    results = {"machine_load": os.getloadavg()}
    if "scheduler" not in args.skip:
        results["scheduler"] = bench_scheduler_with_viewer(args)
    if "replay" not in args.skip:
        results["replay"] = bench_replay(args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
