"""Load generation against running servers: many clients making mixed calls at once.

Used by the bounded stress test (tests/e2e/test_stress.py) and by ``bench/soak.py`` for long
runs. ``run_load`` starts ``clients`` worker processes (multiprocessing 'spawn': one ORB each,
as independent clients are), each making a seeded random mix of calls on the ModelLoader and
on a DynamicsSimulator world of its own, for ``duration`` seconds, while the calling process
samples the servers' resident memory. Every call is timed; a call that should be refused
(a missing model file, an unknown character) counts as served when the server refuses it with
the interface's exception, and as an error otherwise. Anything else that raises is an error.

The mix (weights in ``MIX``), each entry one timed request:

    ml.get        ModelLoader.getBodyInfo of a sample model (cached after the first)
    ml.load       ModelLoader.loadBodyInfo of the sample arm (parsed afresh every time)
    ml.links      getBodyInfo of the sample arm, then its _get_links() (a large reply)
    ml.missing    loadBodyInfo of a file that does not exist: ModelLoaderException expected
    ds.step       DynamicsSimulator.stepSimulation (floor + arm in high gain)
    ds.command    setCharacterAllLinkData(JOINT_VALUE) with a new arm pose
    ds.state      getWorldState
    ds.sensors    getCharacterSensorState
    ds.unknown    getCharacterLinkData of an unknown character: BAD_PARAM expected
    ds.cycle      destroy the world, create a new one, register, init, initSimulation
                  (one request counted, five calls made)

Results: a ``LoadReport`` with requests and errors per kind, latency samples per kind (for
percentiles), the first error messages, and the RSS samples [(t, {pid: bytes})].
"""

import dataclasses
import math
import multiprocessing
import os
import queue
import random
import time
from pathlib import Path

import numpy as np

from . import paths

MODELS = paths.samples_dir() / "models"
ARM = MODELS / "arm6" / "arm6.wrl"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"

# (kind, weight): the mix each client draws from
MIX = (
    ("ml.get", 6), ("ml.load", 1), ("ml.links", 2), ("ml.missing", 1),
    ("ds.step", 20), ("ds.command", 5), ("ds.state", 6), ("ds.sensors", 6),
    ("ds.unknown", 2), ("ds.cycle", 1),
)
REPORT_EVERY_S = 2.0   # a worker sends its counts this often
ERRORS_KEPT = 20


@dataclasses.dataclass
class LoadReport:
    """What a load run measured (see the module docstring)."""

    clients: int
    duration: float                      # requested [s]
    wall: float = 0.0                    # measured [s]
    requests: dict = dataclasses.field(default_factory=dict)   # kind -> served
    errors: dict = dataclasses.field(default_factory=dict)     # kind -> failed
    latencies: dict = dataclasses.field(default_factory=dict)  # kind -> [s, ...]
    messages: list = dataclasses.field(default_factory=list)   # first errors, as text
    rss: list = dataclasses.field(default_factory=list)        # [(t [s], {pid: bytes})]
    started: float = math.nan            # when every client was calling [s since start]

    @property
    def total_requests(self):
        return sum(self.requests.values())

    @property
    def total_errors(self):
        return sum(self.errors.values())

    def percentiles(self, kind=None, q=(50, 90, 99, 99.9)):
        """Latency percentiles [s] of one kind (None: every request) as {q: seconds}."""
        if kind is None:
            values = [v for vs in self.latencies.values() for v in vs]
        else:
            values = self.latencies.get(kind, [])
        if not values:
            return {p: math.nan for p in q}
        arr = np.asarray(values)
        return {p: float(np.percentile(arr, p)) for p in q} | {"max": float(arr.max())}

    def rss_series(self, pid):
        """(times [s], RSS [bytes]) of one server process, as arrays."""
        pts = [(t, d[pid]) for t, d in self.rss if pid in d]
        return np.array([p[0] for p in pts]), np.array([p[1] for p in pts], dtype=float)

    def rss_growth(self, pid, warmup=None):
        """RSS growth of ``pid`` after warm-up: (bytes gained from the first sample after
        warm-up to the mean of the last quarter of the samples, least-squares slope
        [bytes/s] over the samples after warm-up). Warm-up lasts ``warmup`` seconds from the
        moment every client was calling (default: a third of the requested duration)."""
        t, r = self.rss_series(pid)
        if len(t) < 4:
            return math.nan, math.nan
        warmup = self.duration / 3 if warmup is None else warmup
        start = self.started if not math.isnan(self.started) else t[0]
        after = t >= start + warmup
        t, r = t[after], r[after]
        if len(t) < 2:
            return math.nan, math.nan
        tail = r[int(len(r) * 0.75):]
        slope = float(np.polyfit(t - t[0], r, 1)[0]) if np.ptp(t) > 0 else 0.0
        return float(tail.mean() - r[0]), slope


def rss_bytes(pid):
    """Resident set size of ``pid`` [bytes], or None if it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


# ---------------------------------------------------------------------------------------------
# the worker (runs in its own process)
# ---------------------------------------------------------------------------------------------

class _World:
    """One client's DynamicsSimulator world: floor + sample arm, high gain, 1 ms.

    The BodyInfo references are fetched afresh for every world: under a stream of
    loadBodyInfo calls the ModelLoader retires older objects and releases them after its
    budget (docs/models.md: 256 objects), so a reference kept from the start would end up
    OBJECT_NOT_EXIST, as documented."""

    def __init__(self, client, ml, DS):
        self.client, self.ml, self.DS = client, ml, DS
        self.sim = None

    def make(self):
        DS = self.DS
        floor = self.ml.getBodyInfo(hrpsim_file_url(FLOOR))
        arm = self.ml.getBodyInfo(hrpsim_file_url(ARM))
        sim = self.client.dynamics_simulator()
        self.sim = sim  # destroyed by close() even if the set-up below fails
        sim.registerCharacter("floor", floor)
        sim.registerCharacter("arm", arm)
        sim.init(0.001, DS.EULER, DS.ENABLE_SENSOR)
        sim.setGVector([0.0, 0.0, 9.8])
        sim.setCharacterAllJointModes("arm", DS.HIGH_GAIN_MODE)
        sim.registerCollisionCheckPair("floor", "", "arm", "", 0.5, 0.5, [], [], 0.01, 0.0)
        sim.initSimulation()

    def ensure(self):
        """The world, made first if the last attempt failed."""
        if self.sim is None:
            self.make()
        return self.sim

    def cycle(self):
        self.close()
        self.make()

    def close(self):
        sim, self.sim = self.sim, None
        if sim is not None:
            try:
                sim.destroy()
            except Exception:  # noqa: BLE001 - best effort (the world may be gone)
                pass


def cycle_worlds(naming, n, steps=5):
    """Make and destroy ``n`` worlds (floor + arm, as ``ds.cycle``), stepping each ``steps``
    times, against the servers at ``naming``; a process's job in tests/e2e/test_memory.py.
    Returns ``n``."""
    import hrpsim
    from hrpsim import OpenHRP
    client = hrpsim.connect(naming)
    world = _World(client, client.model_loader(), OpenHRP.DynamicsSimulator)
    try:
        for _ in range(n):
            world.cycle()
            for _ in range(steps):
                world.sim.stepSimulation()
    finally:
        world.close()
    return n


def hrpsim_file_url(path):
    return "file://" + str(Path(path).resolve())


def _worker(index, naming, duration, seed, out_queue):
    """One client: draw calls from MIX until ``duration`` passes; report through the queue
    every REPORT_EVERY_S as ("counts", index, requests, errors, latencies, messages) and end
    with ("done", index)."""
    import hrpsim
    from hrpsim import OpenHRP
    from omniORB import CORBA
    DS = OpenHRP.DynamicsSimulator
    rng = random.Random(seed)
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    requests, errors, lat, messages = {}, {}, {}, []

    def flush():
        out_queue.put(("counts", index, dict(requests), dict(errors),
                       {k: list(v) for k, v in lat.items()}, list(messages)))
        requests.clear()
        errors.clear()
        lat.clear()
        messages.clear()

    world = None
    try:
        client = hrpsim.connect(naming)
        ml = client.model_loader()
        models = [hrpsim_file_url(p) for p in (ARM, FLOOR, HUMANOID)]
        njoints = sum(1 for lk in ml.getBodyInfo(models[0])._get_links() if lk.jointId >= 0)
        world = _World(client, ml, DS)
        world.make()
        t_end = time.monotonic() + duration
        next_flush = time.monotonic() + REPORT_EVERY_S
        step = 0
        out_queue.put(("started", index))
        while time.monotonic() < t_end:
            kind = rng.choices(kinds, weights)[0]
            expect = None
            t0 = time.perf_counter()
            try:
                if kind == "ml.get":
                    ml.getBodyInfo(rng.choice(models))
                elif kind == "ml.load":
                    ml.loadBodyInfo(models[0])
                elif kind == "ml.links":
                    ml.getBodyInfo(models[0])._get_links()
                elif kind == "ml.missing":
                    expect = OpenHRP.ModelLoader.ModelLoaderException
                    ml.loadBodyInfo("file:///nonexistent/hrpsim-load-%d.wrl" % index)
                elif kind == "ds.step":
                    world.ensure().stepSimulation()
                    step += 1
                elif kind == "ds.command":
                    t = step * 0.001
                    q = [0.3 * math.sin(2 * math.pi * 0.5 * t + j) for j in range(njoints)]
                    world.ensure().setCharacterAllLinkData("arm", DS.JOINT_VALUE, q)
                elif kind == "ds.state":
                    world.ensure().getWorldState()
                elif kind == "ds.sensors":
                    world.ensure().getCharacterSensorState("arm")
                elif kind == "ds.unknown":
                    sim = world.ensure()
                    expect = CORBA.BAD_PARAM
                    sim.getCharacterLinkData("nobody-%d" % index, "J1", DS.JOINT_VALUE)
                elif kind == "ds.cycle":
                    world.cycle()
                    step = 0
                if expect is not None:
                    raise AssertionError("%s: the server accepted what it must refuse" % kind)
            except Exception as exc:  # noqa: BLE001 - classified below
                dt = time.perf_counter() - t0
                if expect is not None and isinstance(exc, expect):
                    requests[kind] = requests.get(kind, 0) + 1
                    lat.setdefault(kind, []).append(dt)
                else:
                    errors[kind] = errors.get(kind, 0) + 1
                    if len(messages) < ERRORS_KEPT:
                        messages.append("client %d %s: %s: %s" % (
                            index, kind, type(exc).__name__, getattr(exc, "description", exc)))
                    if isinstance(exc, (CORBA.TRANSIENT, CORBA.COMM_FAILURE,
                                        CORBA.OBJECT_NOT_EXIST)):
                        time.sleep(0.05)  # a server gone: do not spin
            else:
                dt = time.perf_counter() - t0
                requests[kind] = requests.get(kind, 0) + 1
                lat.setdefault(kind, []).append(dt)
            if time.monotonic() >= next_flush:
                flush()
                next_flush += REPORT_EVERY_S
    except Exception as exc:  # noqa: BLE001 - set-up failed: one error, reported
        errors["setup"] = errors.get("setup", 0) + 1
        messages.append("client %d set-up: %s: %s" % (index, type(exc).__name__, exc))
    finally:
        if world is not None:
            world.close()
        flush()
        out_queue.put(("done", index))


# ---------------------------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------------------------

def run_load(naming, clients=8, duration=30.0, server_pids=(), seed=1, sample_every=1.0,
             progress=None):
    """Run ``clients`` worker processes against the servers at ``naming`` for ``duration``
    seconds; sample the RSS of ``server_pids`` every ``sample_every`` s. ``progress(report,
    elapsed)`` is called after each sample. Returns a LoadReport."""
    report = LoadReport(clients=clients, duration=duration)
    ctx = multiprocessing.get_context("spawn")
    out_queue = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(i, naming, duration, seed * 1000 + i, out_queue),
                         daemon=True) for i in range(clients)]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    done, started = set(), set()
    next_sample = t0
    # generous: spawning 8 interpreters and a slow last call can take a while
    hard_deadline = t0 + duration + 120.0
    try:
        while len(done) < clients:
            now = time.monotonic()
            if now >= next_sample:
                report.rss.append((now - t0, {pid: rss_bytes(pid) for pid in server_pids
                                              if rss_bytes(pid) is not None}))
                next_sample += sample_every
                if progress:
                    progress(report, now - t0)
            if now > hard_deadline:
                report.errors["hung"] = clients - len(done)
                report.messages.append("%d client(s) did not finish within %g s of the end"
                                       % (clients - len(done), hard_deadline - t0 - duration))
                break
            try:
                msg = out_queue.get(timeout=min(0.2, max(0.0, next_sample - now)))
            except queue.Empty:
                # a worker that died without saying "done" (its last message would be queued
                # before it exits with status 0)
                for i, p in enumerate(procs):
                    if i not in done and p.exitcode not in (None, 0):
                        done.add(i)
                        report.errors["worker"] = report.errors.get("worker", 0) + 1
                        report.messages.append("client %d: worker process exited with status %s"
                                               % (i, p.exitcode))
                continue
            if msg[0] == "done":
                done.add(msg[1])
                continue
            if msg[0] == "started":
                started.add(msg[1])
                if len(started) == clients:
                    report.started = time.monotonic() - t0
                continue
            _, _, req, err, lat, messages = msg
            for k, v in req.items():
                report.requests[k] = report.requests.get(k, 0) + v
            for k, v in err.items():
                report.errors[k] = report.errors.get(k, 0) + v
            for k, v in lat.items():
                report.latencies.setdefault(k, []).extend(v)
            room = ERRORS_KEPT - len(report.messages)
            report.messages.extend(messages[:max(0, room)])
    finally:
        for p in procs:
            p.join(5)
            if p.is_alive():
                p.kill()
                p.join()
    report.wall = time.monotonic() - t0
    report.rss.append((report.wall, {pid: rss_bytes(pid) for pid in server_pids
                                     if rss_bytes(pid) is not None}))
    return report


def format_report(report, names=None, warmup=None):
    """Lines of text: requests and errors per kind, latency percentiles, RSS per server
    (growth after ``warmup`` seconds, see LoadReport.rss_growth)."""
    names = names or {}
    busy = report.wall - (0.0 if math.isnan(report.started) else report.started)
    lines = ["%d clients, %.1f s of load (%.1f s in all): %d requests served (%.0f/s), "
             "%d errors" % (report.clients, busy, report.wall, report.total_requests,
                            report.total_requests / busy if busy > 0 else 0.0,
                            report.total_errors)]
    lines.append("%-12s %9s %7s %9s %9s %9s %9s [ms]"
                 % ("kind", "served", "errors", "p50", "p90", "p99", "max"))
    for kind, _ in MIX:
        pc = report.percentiles(kind)
        lines.append("%-12s %9d %7d %9.3f %9.3f %9.3f %9.3f"
                     % (kind, report.requests.get(kind, 0), report.errors.get(kind, 0),
                        pc[50] * 1e3, pc[90] * 1e3, pc[99] * 1e3, pc.get("max", math.nan) * 1e3))
    pc = report.percentiles()
    lines.append("%-12s %9d %7d %9.3f %9.3f %9.3f %9.3f"
                 % ("all", report.total_requests, report.total_errors, pc[50] * 1e3,
                    pc[90] * 1e3, pc[99] * 1e3, pc.get("max", math.nan) * 1e3))
    pids = sorted({pid for _, d in report.rss for pid in d})
    for pid in pids:
        t, r = report.rss_series(pid)
        growth, slope = report.rss_growth(pid, warmup)
        lines.append("RSS %s (pid %d): start %.1f MiB, peak %.1f MiB, end %.1f MiB; after "
                     "warm-up %+.2f MiB (%+.3f MiB/min)"
                     % (names.get(pid, "server"), pid, r[0] / 2**20, r.max() / 2**20,
                        r[-1] / 2**20, growth / 2**20, slope * 60 / 2**20))
    for m in report.messages:
        lines.append("error: " + m)
    return lines
