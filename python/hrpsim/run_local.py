"""`hrpsim run --local PROJECT`: run a project inside this Python process (no servers).

The project (hrpsim's format or GrxUI's, project.py) configures an
``hrpsim.Simulation(backend="local")`` through the same Configuration that configures the
Scheduler (configuration.py): the same models, initial states, modes, pairs, loops, joint
options and sensor noise. Its
controllers must be Python classes (``hrpsim.controller.Controller`` subclasses) named by
``python="FILE.py:NAME"`` on ``<controller>`` (FILE relative to the project's directory; NAME
a Controller subclass or a function returning a Controller): each is made with no arguments,
given a DynamicsSimulator look-alike over the local simulation (``LocalDynamics``: the
calls controllers make, with OpenHRP's enums), its character and period, ``initialize()``d
and ``start()``ed, and ticked in the scheduler's order: for step k,
``input()`` and ``control()`` of every controller whose period divides k, the step,
``output()``; ``stop()`` at the end. A controller given only as an external ``command`` is an
OpenHRP Controller in another process, reached through the naming service: the run refuses it
(``RunError`` saying so: this process has no ORB, no naming service and no Scheduler to tick
it; run without --local, or give it python=).

The results directory is the one a server run writes (run.py, results.py), made by the same
code: the ``--out`` rules (``run.prepare_out_dir``: a foreign non-empty directory is refused,
an earlier run's results are replaced), ``log.npz`` (``results.log_arrays``; the same keys and,
for the same project, the same values bit for bit), ``models.json.gz`` (the body descriptions,
read in process with texture images: ``local.describe_body``), ``summary.json`` and
``summary.txt`` (``results.run_summary``: one schema, ``backend`` "local"), the stills, the
plots and, when asked (``cameras`` or ``<cameras enabled="true"/>``), every vision sensor's
frames in ``cameras/`` at its frame rate, as the Scheduler stores them (PNG, 16-bit depth in
millimetres, frames.csv; the step rule of scheduler_cameras.cpp).

The log is recorded from the core's views into arrays preallocated for the whole run
(``LocalLog``): a record copies rows, it builds no Python objects per link.

A controller that raises (in any of its calls, or a module that does not import: a syntax
error) stops the run as the Scheduler stops it: status FAILED, the message naming the
controller, the time, the exception's last line and where it was raised, the results written
up to that moment; then ``RunError`` "run failed: ... (partial results in OUT)". A runaway
step ends the run the same way.
"""

import importlib.util
import math
import time
import traceback
from pathlib import Path

import numpy as np

from .core_facts import camera_images, state_blocks
from .errors import ModelError
from .limits import period_steps
from .project import load_project
from .results import controller_entries, log_arrays, run_summary, write_results
from .run import (RunError, default_out_dir, model_run_error, prepare_out_dir,
                  remove_unused_out_dir)

__all__ = ["run_local", "LocalDynamics", "LocalLog"]


class _SensorState:
    """OpenHRP's SensorState as plain lists (what getCharacterSensorState returns)."""

    __slots__ = ("q", "dq", "u", "force", "rateGyro", "accel", "range")


class _SensorReader:
    """One character's SensorState read from the core: joint arrays through one
    hs_getAllLinkData each into a buffer kept for the run, the readings through the views
    taken once (they stay at one address for the simulation's life, core.h)."""

    def __init__(self, sim, character):
        core = self.core = sim.local
        lib, ffi = core.lib, core.ffi
        self.ch = ch = core.index(character)
        self.nj = nj = len(sim.joint_names(character))
        self.buf = np.zeros(max(nj, 1))
        self.ptr = ffi.from_buffer("double[]", self.buf)
        self.kinds = (lib.hsDATA_JOINT_VALUE, lib.hsDATA_JOINT_VELOCITY,
                      lib.hsDATA_JOINT_TORQUE)
        count = ffi.new("int *")
        self.views, self.ranges = {}, []
        for key, (t, _) in _sensor_type_codes(core).items():
            idx = lib.hs_sensorsOfType(core.ptr, ch, t, count)
            sensors = [idx[i] for i in range(count[0])]
            if key == "range":
                self.ranges = sensors
            else:
                self.views[key] = [core.reading_view(ch, s) for s in sensors]
        self.count = count

    def read(self):
        core = self.core
        lib, ffi, sim = core.lib, core.ffi, core.ptr
        out = _SensorState()
        joints = []
        for kind in self.kinds:
            lib.hs_getAllLinkData(sim, self.ch, kind, self.ptr, self.nj, core._e())
            joints.append(self.buf[:self.nj].tolist())
        out.q, out.dq, out.u = joints
        out.force = [v.tolist() for v in self.views["force"]]
        out.rateGyro = [v.tolist() for v in self.views["gyro"]]
        out.accel = [v.tolist() for v in self.views["accel"]]
        out.range = []
        for s in self.ranges:
            beams = lib.hs_reading(sim, self.ch, s, self.count)
            out.range.append(list(ffi.unpack(beams, self.count[0])) if self.count[0] else [])
        return out


def _name(enum):
    """An OpenHRP enum item's name ("JOINT_VALUE"), or the string itself."""
    return enum if isinstance(enum, str) else getattr(enum, "_n", str(enum))


class LocalDynamics:
    """The DynamicsSimulator calls a controller makes, over a local Simulation."""

    def __init__(self, sim):
        self.sim = sim
        self._readers = {}  # character -> _SensorReader

    def getCharacterSensorState(self, character):
        reader = self._readers.get(character)
        if reader is None:
            reader = self._readers[character] = _SensorReader(self.sim, character)
        return reader.read()

    def getCharacterLinkData(self, character, link, type_):
        return list(self.sim.link_data(character, link, _name(type_)))

    def getCharacterAllLinkData(self, character, type_):
        return list(self.sim._all(character, _name(type_)))

    def setCharacterLinkData(self, character, link, type_, data):
        self.sim.set_link_data(character, link, _name(type_), data)

    def setCharacterAllLinkData(self, character, type_, data):
        self.sim._set_joints(character, _name(type_), data)

    def setCharacterAllJointModes(self, character, mode):
        high = _name(mode) == "HIGH_GAIN_MODE"
        core = self.sim.local
        core._check(core.lib.hs_setAllJointModes(core.ptr, core.index(character), int(high),
                                                 core._e()), "setCharacterAllJointModes")

    def calcWorldForwardKinematics(self):
        core = self.sim.local
        core.lib.hs_forwardKinematics(core.ptr, -1)


# ---------------------------------------------------------------------------------------------
# the log
# ---------------------------------------------------------------------------------------------

class LocalLog:
    """The run's log (the Scheduler's records: scheduler.cpp ``record``, wire.cpp) read from
    the core's views into arrays preallocated for ``capacity`` records; ``arrays()`` is
    log.npz (results.log_arrays, as LogCollector gives it). ``time``, ``characters``,
    ``link_p`` and ``link_R`` are what stills.py reads of a collector."""

    def __init__(self, sim, capacity, log_sensors):
        core = self.core = sim.local
        lib, ffi = core.lib, core.ffi
        self.ptr = core.ptr
        self.n = 0
        self.capacity = capacity
        self.characters = [(m, sim.joint_names(m)) for m in sim.models]
        self._time = np.zeros(capacity)
        self._copies, self._keep = [], []
        self._copy(self._time, 0, kind=4)
        self.names = {core.index(m): m for m in sim.models}
        self._link_p, self._link_R = {}, {}
        self.sensor, self.ranges, self.stops, self.tracks = {}, {}, {}, {}
        # what a record copies (hspCopy: the binding's hsp_copyRecord does them in one call):
        # link poses, joint arrays by jointId, sensor readings, from the core's views
        self._range_sensors = []
        types = _sensor_type_codes(core)
        count = ffi.new("int *")
        sensors_on = lib.hs_sensorsEnabled(self.ptr)
        for ch, name in sorted(self.names.items()):
            nl = core.link_count(ch)
            self._link_p[name] = np.zeros((capacity, nl, 3))
            self._link_R[name] = np.zeros((capacity, nl, 9))
            self._copy(self._link_p[name], 0, lib.hs_linkP(self.ptr, ch), 3 * nl)
            self._copy(self._link_R[name], 0, lib.hs_linkR(self.ptr, ch), 9 * nl)
            nj = len(sim.joint_names(name))
            scans = []
            series = {k: [] for k in ("q", "dq", "u") + tuple(b[0] for b in state_blocks())}
            if log_sensors:
                for key, src in (("q", lib.hs_q), ("dq", lib.hs_dq), ("u", lib.hs_u)):
                    series[key] = np.zeros((capacity, nj))
                    if nj:  # per jointId: the link's value, 0 for a gap (as the core)
                        self._copy(series[key], 0, src(self.ptr, ch), nj,
                                   index=core.joint_links(ch))
                for key, (t, width) in types.items():
                    idx = lib.hs_sensorsOfType(self.ptr, ch, t, count)
                    sensors = [idx[i] for i in range(count[0])]
                    if key == "range":
                        scans = [[] for _ in sensors]
                        self._range_sensors += [(ch, s, scans[j])
                                                for j, s in enumerate(sensors)]
                        continue
                    series[key] = np.zeros((capacity, len(sensors), width))
                    for j, s in enumerate(sensors):
                        if sensors_on:  # (off: the readings stay zero)
                            self._copy(series[key], j * width,
                                       lib.hs_reading(self.ptr, ch, s, count), width)
                self.ranges[name] = scans
            self.sensor[name] = series
            self.stops[name] = np.zeros((capacity, nj))
            if nj:
                self._copy(self.stops[name], 0, count=nj, kind=2, which=ch)
            nt = lib.hs_tracks(self.ptr, ch, ffi.NULL, 0)
            if nt > 0:
                buf = ffi.new("int[]", nt)
                lib.hs_tracks(self.ptr, ch, buf, nt)
                for k in [buf[i] for i in range(nt)]:
                    key = "%s.track.%s" % (name, core.link_name(ch, k))
                    self.tracks[key] = np.zeros(capacity)
                    self._copy(self.tracks[key], 0, lib.hs_u(self.ptr, ch) + k, 1)
        self.loops = {}
        chs = ffi.new("int[2]")
        for i in range(lib.hs_extraJointCount(self.ptr)):
            jname = ffi.string(lib.hs_extraJointName(self.ptr, i, chs)).decode()
            key = "%s.loop.%s" % (self.names[chs[0]], jname)
            self.loops[key] = np.zeros((capacity, 6))
            self._copy(self.loops[key], 0, kind=3, which=i)
        # each record's contact points and groups as the core's bytes (dynamics.h hsdContact,
        # hsdContactGroup), decoded once by arrays()
        self._contact_size = ffi.sizeof("hsdContact")
        self._group_size = ffi.sizeof("hsdContactGroup")
        self._n = ffi.new("int *")
        self._contacts = []  # per record: (points bytes, groups bytes)
        self._plan_c, self._plan_n = self._plan()

    def _copy(self, array, offset, src=None, count=0, index=None, kind=0, which=0):
        """Each record writes record i's row of ``array`` (capacity, ...) at ``offset``
        doubles into the row: ``count`` doubles copied from ``src`` (kind 0), or with ``index``
        the doubles src[index[j]], 0 where index[j] < 0 (kind 1); kind 2 the joint-stop
        torques of character ``which``, 3 the force of extra joint ``which``, 4 the time (the
        binding's hsp_copyRecord)."""
        ffi = self.core.ffi
        dst = ffi.from_buffer("char[]", array)
        self._keep.append(dst)
        entry = {"kind": kind, "dst": dst + 8 * offset, "stride": array.strides[0],
                 "size": 8 * count, "count": count, "which": which}
        if src is not None:
            entry["src"] = ffi.cast("const char *", src)
        if index is not None:
            idx = ffi.new("int[]", [int(k) for k in index] or [0])
            self._keep.append(idx)
            entry["index"], entry["kind"] = idx, 1
        self._copies.append(entry)

    def _plan(self):
        """The copies as the binding's hspCopy array (made once the views are all known)."""
        ffi = self.core.ffi
        plan = ffi.new("hspCopy[]", max(len(self._copies), 1))
        for k, entry in enumerate(self._copies):
            for field, value in entry.items():
                setattr(plan[k], field, value)
        return plan, len(self._copies)

    def __len__(self):
        return self.n

    @property
    def time(self):
        return self._time[:self.n]

    @property
    def link_p(self):
        return {name: a[:self.n] for name, a in self._link_p.items()}

    @property
    def link_R(self):
        return {name: a[:self.n] for name, a in self._link_R.items()}

    def record(self):
        """Append the current state as one record."""
        i = self.n
        lib, ffi, ptr = self.core.lib, self.core.ffi, self.ptr
        lib.hsp_copyRecord(ptr, self._plan_c, self._plan_n, i)
        for ch, s, scans in self._range_sensors:  # (a scan's length may change: copied)
            beams = lib.hs_reading(ptr, ch, s, self._n)
            k = self._n[0]
            scans.append(np.frombuffer(ffi.buffer(beams, 8 * k), dtype=np.float64).copy()
                         if k else np.zeros(0))
        n = self._n
        points = lib.hs_contacts(ptr, n)
        points = ffi.buffer(points, n[0] * self._contact_size)[:] if n[0] else b""
        groups = lib.hs_contactGroups(ptr, n)
        groups = ffi.buffer(groups, n[0] * self._group_size)[:] if n[0] else b""
        self._contacts.append((points, groups))
        self.n = i + 1

    def _contact_log(self):
        """(pairs, count per record, rows) of the recorded contacts, as LogCollector keeps
        them: per record its groups in order, each group's points in order; the pairs (names)
        numbered in order of first appearance; per point the pair's row, the point, OpenHRP's
        normal (from link1 into link2: the core's negated), the depth and the force."""
        ffi = self.core.ffi
        off = ffi.offsetof
        point_t = np.dtype({"names": ["p", "n", "depth", "force"],
                            "formats": [("<f8", 3), ("<f8", 3), "<f8", ("<f8", 3)],
                            "offsets": [off("hsdContact", f) for f in
                                        ("p", "n", "depth", "force")],
                            "itemsize": self._contact_size})
        group_t = np.dtype({"names": ["ch", "link", "first", "count"],
                            "formats": [("<i4", 2), ("<i4", 2), "<i4", "<i4"],
                            "offsets": [off("hsdContactGroup", f) for f in
                                        ("ch", "link", "first", "count")],
                            "itemsize": self._group_size})
        recs = self._contacts[:self.n]
        points = np.frombuffer(b"".join(p for p, _ in recs), dtype=point_t)
        groups = np.frombuffer(b"".join(g for _, g in recs), dtype=group_t)
        per_rec_points = np.array([len(p) // self._contact_size for p, _ in recs], np.int64)
        per_rec_groups = np.array([len(g) // self._group_size for _, g in recs], np.int64)
        base = np.concatenate([[0], np.cumsum(per_rec_points)[:-1]]) if len(recs) else []
        rec = np.repeat(np.arange(len(recs)), per_rec_groups)
        count = groups["count"].astype(np.int64)
        starts = np.asarray(base, dtype=np.int64)[rec] + groups["first"]
        total = int(count.sum())
        idx = np.repeat(starts - (np.cumsum(count) - count), count) + np.arange(total)
        # the pairs in order of first appearance
        keys = np.stack([groups["ch"][:, 0], groups["link"][:, 0], groups["ch"][:, 1],
                         groups["link"][:, 1]], axis=1) if len(groups) else np.zeros((0, 4))
        pairs, row_of = {}, np.zeros(len(groups), dtype=np.int64)
        if len(groups):
            uniq, first, inverse = np.unique(keys, axis=0, return_index=True,
                                             return_inverse=True)
            rank = np.empty(len(uniq), dtype=np.int64)
            rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))
            row_of = rank[np.asarray(inverse).reshape(-1)]
            core = self.core
            for u, r in zip(uniq, rank):
                c1, l1, c2, l2 = (int(x) for x in u)
                pairs[(self.names[c1], core.link_name(c1, l1), self.names[c2],
                       core.link_name(c2, l2))] = int(r)
            pairs = dict(sorted(pairs.items(), key=lambda kv: kv[1]))
        sel = points[idx]
        rows = np.empty((total, 11))
        rows[:, 0] = np.repeat(row_of, count)
        rows[:, 1:4] = sel["p"]
        rows[:, 4:7] = -sel["n"]
        rows[:, 7] = sel["depth"]
        rows[:, 8:11] = sel["force"]
        per_rec = np.zeros(len(recs), dtype=np.int64)
        np.add.at(per_rec, rec, count)
        return pairs, per_rec.astype(np.int32), rows

    def arrays(self):
        """The log as a dict of NumPy arrays (the contents of log.npz)."""
        n = self.n
        link_p, link_R = self.link_p, self.link_R
        root_p = {m: link_p[m][:, 0] for m in link_p}
        root_R = {m: link_R[m][:, 0] for m in link_R}
        sensor = {m: {k: (v[:n] if isinstance(v, np.ndarray) else v) for k, v in s.items()}
                  for m, s in self.sensor.items()}
        ranges = {m: scans if n else [] for m, scans in self.ranges.items()}
        return log_arrays(self.characters, self.time, root_p, root_R, link_p, sensor, ranges,
                          {m: r[:n] for m, r in self.stops.items()},
                          {k: r[:n] for k, r in self.loops.items()},
                          {k: r[:n] for k, r in self.tracks.items()},
                          self._contact_log())


def _sensor_type_codes(core):
    """The SensorState blocks' type codes and widths, from the core's table: key -> (type,
    width) of each SensorState block (force, gyro, accel, range: width 0)."""
    from .local import sensor_types
    return {key: (t, max(size, 0)) for key, t, size, order in sensor_types(core) if order >= 0}


# ---------------------------------------------------------------------------------------------
# cameras
# ---------------------------------------------------------------------------------------------

def _frame_step(k, rate, dt):
    """The step of frame k of a camera of ``rate`` frames per second (scheduler_cameras.cpp's
    rule: the first step n with n dt >= k / rate, to 1e-6 of a step)."""
    return int(math.ceil(k / (rate * dt) - 1e-6))


def _safe_name(s):
    out = "".join(c if c.isalnum() or c in "_-" else "_" for c in s)
    return out or "_"


class LocalCameras:
    """Every vision sensor's frames stored in ``out/cameras/<character>-<sensor>/`` at its
    frame rate, as the Scheduler stores them (scheduler_cameras.cpp): frame_NNNNNN.png
    (colour or mono), depth_NNNNNN.png (16-bit millimetres), frames.csv (frame, step, time)."""

    def __init__(self, sim, out, dt, warn=None):
        core = self.core = sim.local
        lib = core.lib
        self.dt, self.warn = dt, warn
        self.cams = []
        for m in sim.models:
            ch = core.index(m)
            for s in range(lib.hs_sensorCount(core.ptr, ch)):
                kind = lib.hs_cameraType(core.ptr, ch, s)
                rate = lib.hs_cameraFrameRate(core.ptr, ch, s)
                if kind <= 0 or rate <= 0:
                    continue
                d = Path(out) / "cameras" / ("%s-%s" % (_safe_name(m),
                                                        _safe_name(core.sensor_name(ch, s))))
                d.mkdir(parents=True, exist_ok=True)
                csv = open(d / "frames.csv", "w")
                csv.write("frame,step,time\n")
                self.cams.append({"ch": ch, "s": s, "kind": kind, "rate": rate, "dir": d,
                                  "csv": csv, "frame": 0, "name": core.sensor_name(ch, s)})
        self.due = 0 if self.cams else None

    def take(self, k, time_):
        """The frames due at step count k (time: the world's time after that step)."""
        if self.due is None or k < self.due:
            return
        from PIL import Image
        core, lib, ffi = self.core, self.core.lib, self.core.ffi
        for c in self.cams:
            if c["dir"] is None or k < _frame_step(c["frame"], c["rate"], self.dt):
                continue
            frame = c["frame"]
            while True:
                c["frame"] += 1
                if _frame_step(c["frame"], c["rate"], self.dt) > k:
                    break
            try:
                rgb, depth = core.camera(c["ch"], c["s"])
                d = c["dir"]
                color, mono_image, depth_image = camera_images(c["kind"])
                if color:
                    Image.fromarray(rgb).save(d / ("frame_%06d.png" % frame))
                elif mono_image:
                    h, w = depth.shape
                    mono = np.empty((h, w), dtype=np.uint8)
                    lib.hs_rgbToMono(ffi.from_buffer("unsigned char[]", mono),
                                     ffi.from_buffer("unsigned char[]", rgb), w * h)
                    Image.fromarray(mono).save(d / ("frame_%06d.png" % frame))
                if depth_image:
                    mm = np.clip(np.floor(depth.astype(np.float64) * 1000.0 + 0.5), 0, 65535)
                    Image.fromarray(mm.astype(np.uint16)).save(
                        d / ("depth_%06d.png" % frame))
            except Exception as exc:  # noqa: BLE001 - no GL, a full disk: the run goes on
                if self.warn:
                    self.warn("camera '%s': %s; its frames are no longer stored"
                              % (c["name"], exc))
                c["dir"] = None
                continue
            c["csv"].write("%d,%d,%s\n" % (frame, k, _g17(time_)))
        live = [_frame_step(c["frame"], c["rate"], self.dt) for c in self.cams if c["dir"]]
        self.due = min(live) if live else None

    def close(self):
        for c in self.cams:
            c["csv"].close()


def _g17(x):
    """``x`` as C's "%.17g" writes it (frames.csv's time column)."""
    return "%.17g" % x


# ---------------------------------------------------------------------------------------------
# controllers
# ---------------------------------------------------------------------------------------------

class ControllerFailed(Exception):
    """A controller's call raised; ``text`` says which, where and what."""

    def __init__(self, spec, text):
        super().__init__(text)
        self.spec = spec
        self.text = text


def _where(exc):
    """ "FILE:LINE" of the innermost frame of the exception's traceback (for a syntax error
    the place the compiler names), or ""."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return "%s:%s" % (exc.filename, exc.lineno)
    tb = traceback.extract_tb(exc.__traceback__)
    return "%s:%d" % (tb[-1].filename, tb[-1].lineno) if tb else ""


def _failure(spec, call, exc):
    """ControllerFailed for an exception raised in controller ``spec``'s ``call``: the
    exception's last line (as the server path's controller log gives it) and its place."""
    line = traceback.format_exception_only(type(exc), exc)[-1].strip()
    where = _where(exc)
    return ControllerFailed(spec, "in %s(): %s%s" % (call, line,
                                                     " (%s)" % where if where else ""))


def _call(spec, obj, name):
    try:
        getattr(obj, name)()
    except Exception as exc:  # noqa: BLE001 - any exception of the controller's own code
        raise _failure(spec, name, exc) from exc


def _load_class(project, spec):
    """The controller factory ``python=`` names; RunError for what the project gets wrong (no
    FILE.py:NAME, no file, no such name), ControllerFailed for a module that does not run (a
    syntax error, an exception at import)."""
    path, _, cls = spec.python.rpartition(":")
    if not path or not cls:
        raise RunError("%s:%s: controller %s: python= must be FILE.py:CLASS, got %r"
                       % (project.path, spec.line, spec.name, spec.python))
    file = (Path(project.path).parent / path).resolve()
    module_spec = importlib.util.spec_from_file_location("hrpsim_local_" + file.stem, file)
    if module_spec is None or not file.exists():
        raise RunError("%s:%s: controller %s: no file %s"
                       % (project.path, spec.line, spec.name, file))
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - a syntax error or anything the module raises
        raise _failure(spec, "import", exc) from exc
    try:
        return getattr(module, cls)
    except AttributeError:
        raise RunError("%s:%s: controller %s: %s has no %s"
                       % (project.path, spec.line, spec.name, file, cls)) from None


def configure(project):
    """A local Simulation built from ``project``: its models added, the project's
    Configuration (configuration.py, as the Scheduler gets it) given to it and applied by the
    local back end (started, so that a value the core refuses is a ProjectError at its line,
    as on the server path)."""
    import hrpsim
    from . import configuration
    sim = hrpsim.Simulation(backend="local", dt=project.time_step, gravity=project.gravity,
                            method=project.method.lower(), sensors=project.sensors)
    for m in project.models:
        try:
            sim.add_model(m.name, m.url)
        except ModelError as exc:
            raise model_run_error(project, m, exc) from exc
    facts = {}
    for m in project.models:
        body = sim.body(m.name)
        facts[m.name] = configuration.ModelFacts(
            list(sim.link_names(m.name)), list(body.one_dof_joints),
            list(body.root_pose[:3]), list(body.root_pose[3:]), body.root_joint)
    sim.configure(configuration.from_project(project, facts))
    try:
        sim.start()
    except BaseException:
        sim.close()
        raise
    return sim


def _describe_models(project):
    """models.json.gz's entries (name, url, body description with textures), read in
    process; RunError naming the model on failure (as run.py's)."""
    import hrpsim
    from .local import describe_body
    out = []
    for m in project.models:
        try:
            out.append({"name": m.name, "url": hrpsim.file_url(m.url),
                        "body": describe_body(m.url)})
        except ModelError as exc:
            raise model_run_error(project, m, exc) from exc
    return out


def _external_refusal(project):
    """RunError for the first controller given only as a command, or None."""
    external = [c for c in project.controllers if not getattr(c, "python", None)]
    if not external:
        return None
    c = external[0]
    return RunError("%s:%s: controller %s is an external command (an OpenHRP Controller in its "
                    "own process, which finds the Scheduler through a naming service): it "
                    "needs the servers, and a local run has no ORB or naming service to serve "
                    "it; run without --local, or give it python=\"FILE.py:CLASS\" (an "
                    "hrpsim.controller.Controller subclass)" % (project.path, c.line, c.name))


# ---------------------------------------------------------------------------------------------
# the job
# ---------------------------------------------------------------------------------------------

class _Run:
    """One local run's loop: controllers ticked in the Scheduler's order, the log recorded at
    its period, camera frames when due; ``failure`` (text, controller name) when it stopped
    early."""

    def __init__(self, project, sim, controllers, log, cameras, real_time):
        self.project, self.sim, self.controllers = project, sim, controllers
        self.log, self.cameras, self.real_time = log, cameras, real_time
        self.steps = int(math.ceil(project.end_time / project.time_step - 1e-9))
        self.log_every = _log_every(project)
        self.failure = None
        self.wall = 0.0

    def _next_event(self, k):
        """The next step count after k at which something is due (a tick, a record, a frame,
        the end)."""
        nxt = min(self.steps, (k // self.log_every + 1) * self.log_every)
        for _, _, every in self.controllers:
            nxt = min(nxt, -(-k // every) * every)  # none is due at k itself
        if self.cameras is not None and self.cameras.due is not None:
            nxt = min(nxt, self.cameras.due)
        return max(nxt, k + 1)

    def run(self):
        from .simulation import Runaway
        sim, log = self.sim, self.log
        step = _stepper(sim)
        hs_time, ptr = sim.local.lib.hs_time, sim.local.ptr
        t0 = time.perf_counter()
        k = start = 0
        try:
            if not self.controllers and self.cameras is None and self.real_time <= 0:
                # nothing but the log between the steps: runs of steps from record to record
                every, steps, record = self.log_every, self.steps, log.record
                while k < steps:
                    n = min(every - k % every, steps - k)
                    start = hs_time(ptr)
                    step(n)
                    k += n
                    if k % every == 0:
                        record()
            while k < self.steps:
                due = [(spec, ctl) for spec, ctl, every in self.controllers if k % every == 0]
                for spec, ctl in due:
                    _call(spec, ctl, "input")
                    _call(spec, ctl, "control")
                n = 1 if due else self._next_event(k) - k
                start = hs_time(ptr)
                step(n)
                k += n
                for spec, ctl in due:
                    _call(spec, ctl, "output")
                if k % self.log_every == 0:
                    log.record()
                if self.cameras is not None:
                    self.cameras.take(k, sim.time)
                if self.real_time > 0:
                    ahead = sim.time / self.real_time - (time.perf_counter() - t0)
                    if ahead > 0:
                        time.sleep(ahead)
        except ControllerFailed as exc:
            self.failure = ("controller %s failed at t = %s s: %s"
                            % (exc.spec.name, _time_text(sim.time), exc.text), exc.spec.name)
        except Runaway as exc:
            # as the Scheduler says it (the time the failing step started from; in a run of
            # steps between two events, the run's start)
            self.failure = ("stepSimulation failed at t = %s s: %s" % (_time_text(start), exc),
                            None)
        finally:
            self.wall = time.perf_counter() - t0
        return k


def _time_text(t):
    """A time in the Scheduler's messages (scheduler.cpp timeText: "%.10g")."""
    return "%.10g" % t


def _stepper(sim):
    """step(n): n steps of the started local Simulation straight through hs_stepN (what
    Simulation.step does, less its per-call checks and bookkeeping: the run has started and
    sim.steps reads the core's count); a runaway raises Runaway with the core's message, as
    the back end's step, and any other error the core's."""
    from .local import _clear
    from .simulation import Runaway, _runaway_message
    core = sim.local
    lib, ffi, ptr, err = core.lib, core.ffi, core.ptr, core._err
    step_n, runaway = lib.hs_stepN, lib.hsE_RUNAWAY

    def step(n):
        code = step_n(ptr, n, err)
        if code == 0:
            return
        if code != runaway:
            core._check(code, "stepSimulation")
        message = ffi.string(err.message).decode(errors="replace")
        _clear(err)
        k = lib.hs_runaway(ptr)
        names = list(sim.models)
        who = names[k] if 0 <= k < len(names) else None
        raise Runaway(message or _runaway_message(lib.hs_steps(ptr), who), who)
    return step


def _log_every(project):
    """Steps between two log records (the log period rounded to whole steps, at least 1)."""
    return max(1, int(round((project.log_period or project.time_step) / project.time_step)))


def _start_controllers(project, sim, controllers):
    """setDynamicsSimulator, model name, period, initialize and start of every controller;
    ControllerFailed for one that raises."""
    dyn = LocalDynamics(sim)
    for spec, ctl, _ in controllers:
        ctl.setDynamicsSimulator(dyn)
        ctl.setModelName(spec.character)
        ctl.setTimeStep(spec.period or project.time_step)
        _call(spec, ctl, "initialize")
        _call(spec, ctl, "start")


def run_local(path, out_dir=None, warn=None, plots=True, bin_dir=None, cameras=None,
              real_time=None):
    """Run the project at ``path`` in process; returns (results directory, summary dict).

    The results directory is a server run's (see the module text). ``cameras``: store the
    vision sensors' frames (True / False; None: as the project says). ``real_time``: a
    real-time factor overriding the project's (0: as fast as possible). ``warn(text)``
    receives each project warning (the summary keeps them). Raises ProjectError or RunError
    (a failed run: after writing its partial results)."""
    project = load_project(path)
    for text in project.warnings:
        if warn:
            warn(text)
    refusal = _external_refusal(project)
    if refusal is not None:
        raise refusal
    out = Path(out_dir) if out_dir else default_out_dir(project)
    made_out = not out.exists()
    out = prepare_out_dir(out)
    written = False
    cameras = project.cameras if cameras is None else bool(cameras)
    real_time = project.real_time if real_time is None else float(real_time)
    cams = None
    try:
        seen = len(project.warnings)
        sim = configure(project)
        for text in project.warnings[seen:]:  # found against the models (a moved URDF anchor)
            if warn:
                warn(text)
        models = _describe_models(project)
        controllers, failure = [], None
        for spec in project.controllers:
            period = spec.period or project.time_step
            every = period_steps(period, project.time_step)
            if every == 0:
                raise RunError("%s:%s: controller %s: period %g is not a whole number of "
                               "time steps" % (project.path, spec.line, spec.name, period))
            try:
                cls = _load_class(project, spec)
                controllers.append((spec, cls(), every))
            except ControllerFailed as exc:
                failure = failure or ("controller %s failed at t = 0 s: %s"
                                      % (spec.name, exc.text), spec.name)
        steps = int(math.ceil(project.end_time / project.time_step - 1e-9))
        log_every = _log_every(project)
        with sim:
            sim.start()
            log = LocalLog(sim, 1 + steps // log_every, project.log_sensors)
            log.record()  # the state at time 0, as the Scheduler
            if cameras:
                cams = LocalCameras(sim, out, project.time_step, warn)
                cams.take(0, 0.0)
            loop = _Run(project, sim, controllers, log, cams, real_time)
            try:
                if failure is None:
                    try:
                        _start_controllers(project, sim, controllers)
                    except ControllerFailed as exc:
                        failure = ("controller %s failed at t = 0 s: %s"
                                   % (exc.spec.name, exc.text), exc.spec.name)
                if failure is None:
                    loop.run()
                    failure = loop.failure
            finally:
                for spec, ctl, _ in controllers:
                    try:
                        ctl.stop()
                    except Exception as exc:  # noqa: BLE001 - reported, as any other call
                        failure = failure or ("controller %s failed at t = %s s: %s"
                                              % (spec.name, _time_text(sim.time),
                                                 _failure(spec, "stop", exc).text), spec.name)
                if cams is not None:
                    cams.close()
            steps_done, sim_time = sim.steps, sim.time
            arrays = log.arrays()  # names read from the core, before it is freed
        state, message = ("FAILED", failure[0]) if failure else ("FINISHED", "")
        wall = loop.wall
        summary = run_summary(
            project, backend="local", status=state, message=message,
            controllers=controller_entries(project, failure[1] if failure else None),
            steps=steps_done, simulated_time=sim_time, wall_time=wall,
            real_time_factor=sim_time / wall if wall > 0 else 0.0, records=len(log))
        from .images import write_previews
        from .stills import take_stills
        summary["cameras"] = cameras
        summary["camera_previews"] = [str(p.relative_to(out)) for p in write_previews(out)]
        summary["stills"] = take_stills(out, project.models, log, bin_dir, warn) \
            if plots and project.plots else []
        write_results(out, arrays, summary, plots=plots and project.plots,
                      plot_joints=project.plot_joints, models=models,
                      plot_root=project.plot_root)
        written = True
        if state == "FAILED":
            raise RunError("run failed: %s (%s results in %s)"
                           % (message, "partial" if sim_time < project.end_time - 1e-9
                              else "the", out))
        return out, summary
    finally:
        if not written:
            remove_unused_out_dir(out, made_out)
