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
millimetres, frames.csv).

The run is the core's (core.h hsRun), as the Scheduler's: the controllers' ticks, the camera
frames and the end in whole steps by the core's one rule, and the log recorded by the core
into its own buffers between the steps (``hs_runAdvance`` steps from one event to the next
without coming back to Python); ``LocalLog`` reads those records as NumPy arrays at the end.

A controller that raises (in any of its calls, or a module that does not import: a syntax
error) stops the run as the Scheduler stops it: status FAILED, the message naming the
controller, the time, the exception's last line and where it was raised, the results written
up to that moment; then ``RunError`` "run failed: ... (partial results in OUT)". A runaway
step ends the run the same way.
"""

import importlib.util
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
    """One character's SensorState read from the core through views taken once (the core's
    per-link joint arrays and its readings, range scans too, stay at one address for the
    simulation's life, core.h): q, dq and u in jointId order are a slice (or a gather) of the
    per-link arrays; a character whose jointIds have a gap reads them through one
    hs_getAllLinkData each (a gap reads 0), into a buffer kept for the run."""

    def __init__(self, sim, character):
        core = self.core = sim.local
        lib, ffi = core.lib, core.ffi
        self.ch = ch = core.index(character)
        self.nj = nj = lib.hs_jointIdCount(core.ptr, ch)
        self.buf = np.zeros(max(nj, 1))
        self.ptr = ffi.from_buffer("double[]", self.buf)
        self.kinds = (lib.hsDATA_JOINT_VALUE, lib.hsDATA_JOINT_VELOCITY,
                      lib.hsDATA_JOINT_TORQUE)
        links = lib.hs_jointLinks(core.ptr, ch)
        order = [links[j] for j in range(nj)]
        self.joints = None  # [(per-link view, jointId selection)] without gaps
        if all(link >= 0 for link in order):
            first = order[0] if order else 0
            contiguous = order == list(range(first, first + nj))
            pick = slice(first, first + nj) if contiguous else np.array(order, dtype=np.intp)
            self.joints = [(view, pick) for view in (core.q_view(ch), core.dq_view(ch),
                                                      core.u_view(ch))]
        count = ffi.new("int *")
        self.views = {}
        for key, (t, _) in _sensor_type_codes(core).items():
            idx = lib.hs_sensorsOfType(core.ptr, ch, t, count)
            sensors = [idx[i] for i in range(count[0])]
            self.views[key] = [core.reading_view(ch, s) for s in sensors]

    def read(self):
        out = _SensorState()
        if self.joints is not None:
            out.q, out.dq, out.u = [view[pick].tolist() for view, pick in self.joints]
        else:
            core = self.core
            joints = []
            for kind in self.kinds:
                core.lib.hs_getAllLinkData(core.ptr, self.ch, kind, self.ptr, self.nj, core._e())
                joints.append(self.buf[:self.nj].tolist())
            out.q, out.dq, out.u = joints
        views = self.views
        out.force = [v.tolist() for v in views["force"]]
        out.rateGyro = [v.tolist() for v in views["gyro"]]
        out.accel = [v.tolist() for v in views["accel"]]
        out.range = [v.tolist() for v in views["range"]]
        return out


class _JointWriter:
    """setCharacterAllLinkData of one joint datum (JOINT_VALUE, _VELOCITY, _ACCELERATION,
    _TORQUE) of one character of a started simulation, straight into the core: a list or tuple
    of numbers is copied into a C array kept for the run and handed to hs_setAllLinkData.
    ``write`` returns False, having changed nothing, for whatever that path does not take (other
    sequences, a wrong count, non-numbers, a value the core refuses): the caller then goes the
    checked way (Simulation), which gives the reason."""

    TYPES = ("JOINT_VALUE", "JOINT_VELOCITY", "JOINT_ACCELERATION", "JOINT_TORQUE")

    def __init__(self, sim, character, type_name):
        core = self.core = sim.local
        self.ch = core.index(character)
        self.type = getattr(core.lib, "hsDATA_" + type_name)
        self.n = core.lib.hs_jointIdCount(core.ptr, self.ch)
        self.values = core.ffi.new("double[]", max(self.n, 1))

    def write(self, data):
        if type(data) not in (list, tuple):
            return False
        try:
            self.values[0:self.n] = data
        except (TypeError, ValueError, OverflowError):
            return False
        core = self.core
        if core.lib.hs_setAllLinkData(core.ptr, self.ch, self.type, self.values, self.n,
                                      core._err) < 0:
            _clear_error(core)
            return False
        return True


def _clear_error(core):
    """Clear the simulation's hsError after a refusal the caller reports its own way."""
    from .local import _clear
    _clear(core._err)


def _name(enum):
    """An OpenHRP enum item's name ("JOINT_VALUE"), or the string itself."""
    return enum if isinstance(enum, str) else getattr(enum, "_n", str(enum))


class LocalDynamics:
    """The DynamicsSimulator calls a controller makes, over a local Simulation (started)."""

    def __init__(self, sim):
        self.sim = sim
        self._readers = {}  # character -> _SensorReader
        self._writers = {}  # (character, type name) -> _JointWriter, or None: the checked way

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
        name = _name(type_)
        key = (character, name)
        writer = self._writers.get(key, False)
        if writer is False:
            known = character in self.sim.models and name in _JointWriter.TYPES
            writer = self._writers[key] = _JointWriter(self.sim, character, name) \
                if known and self.sim._started else None
        if writer is None or not writer.write(data):
            self.sim._set_joints(character, name, data)

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
    """The run's log: the core's records (core.h hsRun, the format the Scheduler's getLog
    converts), read as NumPy arrays; ``arrays()`` is log.npz (results.log_arrays, as
    LogCollector gives it). ``time``, ``characters``, ``link_p`` and ``link_R`` are what
    stills.py reads of a collector. ``run`` is the core's run (cffi, freed with this object)."""

    def __init__(self, sim, run):
        core = self.core = sim.local
        lib = core.lib
        self.run = run
        self.characters = [(m, sim.joint_names(m)) for m in sim.models]
        self.names = {core.index(m): m for m in sim.models}
        self.log_sensors = lib.hs_runOffset(run, lib.hsRUN_Q, 0) >= 0
        self._cache = None  # the records copied out (_records)
        # the names the arrays need, read while the simulation exists
        ffi, ptr = core.ffi, core.ptr
        self._links = {ch: core.link_count(ch) for ch in self.names}
        self._joints = {ch: len(sim.joint_names(name)) for ch, name in self.names.items()}
        self._sensors = {}  # ch -> [(key, run block, count, width)]
        self._ranges = {}   # ch -> count of its range sensors
        count = ffi.new("int *")
        blocks = (lib.hsRUN_FORCE, lib.hsRUN_GYRO, lib.hsRUN_ACCEL)  # SensorState's order
        for ch in self.names:
            self._sensors[ch] = []
            for key, t, size, order in sorted(_sensor_types(core), key=lambda e: e[3]):
                lib.hs_sensorsOfType(ptr, ch, t, count)
                if size < 0:
                    self._ranges[ch] = count[0]
                else:
                    self._sensors[ch].append((key, blocks[order], count[0], size))
        self._tracks = {}
        for ch, name in self.names.items():
            nt = lib.hs_tracks(ptr, ch, ffi.NULL, 0)
            if nt > 0:
                buf = ffi.new("int[]", nt)
                lib.hs_tracks(ptr, ch, buf, nt)
                self._tracks[ch] = ["%s.track.%s" % (name, core.link_name(ch, buf[i]))
                                    for i in range(nt)]
        chs = ffi.new("int[2]")
        self._loops = []
        for i in range(lib.hs_extraJointCount(ptr)):
            jname = ffi.string(lib.hs_extraJointName(ptr, i, chs)).decode()
            self._loops.append("%s.loop.%s" % (self.names[chs[0]], jname))
        self._pair_names = {}  # (ch, link) -> link name, as the contacts need them
        for ch in self.names:
            for link in range(self._links[ch]):
                self._pair_names[(ch, link)] = core.link_name(ch, link)

    def __len__(self):
        return self.core.lib.hs_runRecordCount(self.run)

    def _records(self):
        """Every record, (records, doubles per record): one copy of the core's buffer, made
        when first asked after a record (the arrays it gives outlive the run)."""
        lib, ffi = self.core.lib, self.core.ffi
        n, size = lib.hs_runRecordCount(self.run), lib.hs_runRecordSize(self.run)
        if self._cache is None or len(self._cache) != n:
            buf = ffi.buffer(lib.hs_runRecords(self.run), 8 * n * size) if n else b""
            self._cache = np.frombuffer(buf, dtype=np.float64).reshape(n, size).copy()
        return self._cache

    def _block(self, recs, block, ch, width):
        """Block ``block`` of character ``ch`` of every record: (records, width)."""
        at = self.core.lib.hs_runOffset(self.run, block, ch)
        return recs[:, at:at + width]

    @property
    def time(self):
        lib = self.core.lib
        return self._block(self._records(), lib.hsRUN_TIME, 0, 1)[:, 0].copy()

    @property
    def link_p(self):
        recs, lib = self._records(), self.core.lib
        return {name: self._block(recs, lib.hsRUN_LINK_P, ch, 3 * self._links[ch])
                .reshape(len(recs), self._links[ch], 3) for ch, name in self.names.items()}

    @property
    def link_R(self):
        recs, lib = self._records(), self.core.lib
        return {name: self._block(recs, lib.hsRUN_LINK_R, ch, 9 * self._links[ch])
                .reshape(len(recs), self._links[ch], 9) for ch, name in self.names.items()}

    def _contact_log(self):
        """(pairs, count per record, rows) of the recorded contacts, as LogCollector keeps
        them: per record its groups in order, each group's points in order; the pairs (names)
        numbered in order of first appearance; per point the pair's row, the point, OpenHRP's
        normal (from link1 into link2: the core's negated), the depth and the force."""
        lib, ffi = self.core.lib, self.core.ffi
        off = ffi.offsetof
        csize, gsize = ffi.sizeof("hsdContact"), ffi.sizeof("hsdContactGroup")
        point_t = np.dtype({"names": ["p", "n", "depth", "force"],
                            "formats": [("<f8", 3), ("<f8", 3), "<f8", ("<f8", 3)],
                            "offsets": [off("hsdContact", f) for f in
                                        ("p", "n", "depth", "force")],
                            "itemsize": csize})
        group_t = np.dtype({"names": ["ch", "link", "first", "count"],
                            "formats": [("<i4", 2), ("<i4", 2), "<i4", "<i4"],
                            "offsets": [off("hsdContactGroup", f) for f in
                                        ("ch", "link", "first", "count")],
                            "itemsize": gsize})
        n = len(self)
        total_n = ffi.new("long long *")
        raw = lib.hs_runContacts(self.run, total_n)
        points = np.frombuffer(ffi.buffer(raw, total_n[0] * csize)[:] if total_n[0] else b"",
                               dtype=point_t)
        raw = lib.hs_runContactGroups(self.run, total_n)
        groups = np.frombuffer(ffi.buffer(raw, total_n[0] * gsize)[:] if total_n[0] else b"",
                               dtype=group_t)
        index = np.frombuffer(ffi.buffer(lib.hs_runContactIndex(self.run), 8 * (2 * n + 2)),
                              dtype=np.int64)
        base = index[0:2 * n:2]
        per_rec_groups = np.diff(index[1::2])
        rec = np.repeat(np.arange(n), per_rec_groups)
        count = groups["count"].astype(np.int64)
        starts = base[rec] + groups["first"]
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
            for u, r in zip(uniq, rank):
                c1, l1, c2, l2 = (int(x) for x in u)
                pairs[(self.names[c1], self._pair_names[(c1, l1)], self.names[c2],
                       self._pair_names[(c2, l2)])] = int(r)
            pairs = dict(sorted(pairs.items(), key=lambda kv: kv[1]))
        sel = points[idx]
        rows = np.empty((total, 11))
        rows[:, 0] = np.repeat(row_of, count)
        rows[:, 1:4] = sel["p"]
        rows[:, 4:7] = -sel["n"]
        rows[:, 7] = sel["depth"]
        rows[:, 8:11] = sel["force"]
        per_rec = np.zeros(n, dtype=np.int64)
        np.add.at(per_rec, rec, count)
        return pairs, per_rec.astype(np.int32), rows

    def _range_log(self, n):
        """Per character, per range sensor, per record its scan (a copy), from the run's
        scans."""
        lib, ffi = self.core.lib, self.core.ffi
        nrange = lib.hs_runRangeCount(self.run)
        total = ffi.new("long long *")
        raw = lib.hs_runRanges(self.run, total)
        beams = np.frombuffer(ffi.buffer(raw, 8 * total[0]) if total[0] else b"",
                              dtype=np.float64)
        index = np.frombuffer(ffi.buffer(lib.hs_runRangeIndex(self.run), 8 * (n * nrange + 1)),
                              dtype=np.int64)
        out, g = {}, 0
        for ch, name in sorted(self.names.items()):
            scans = []
            for _ in range(self._ranges.get(ch, 0)):
                scans.append([beams[index[r * nrange + g]:index[r * nrange + g + 1]].copy()
                              for r in range(n)])
                g += 1
            out[name] = scans
        return out

    def arrays(self):
        """The log as a dict of NumPy arrays (the contents of log.npz)."""
        lib = self.core.lib
        recs = self._records()
        n = len(recs)
        link_p, link_R = self.link_p, self.link_R
        root_p = {m: link_p[m][:, 0] for m in link_p}
        root_R = {m: link_R[m][:, 0] for m in link_R}
        sensor, stops, tracks = {}, {}, {}
        for ch, name in sorted(self.names.items()):
            nj = self._joints[ch]
            series = {k: [] for k in ("q", "dq", "u") + tuple(b[0] for b in state_blocks())}
            if self.log_sensors:
                for key, block in (("q", lib.hsRUN_Q), ("dq", lib.hsRUN_DQ), ("u", lib.hsRUN_U)):
                    series[key] = self._block(recs, block, ch, nj)
                for key, block, count, width in self._sensors[ch]:
                    series[key] = self._block(recs, block, ch, count * width) \
                        .reshape(n, count, width)
            sensor[name] = series
            stops[name] = self._block(recs, lib.hsRUN_JOINT_STOPS, ch, nj)
            for t, key in enumerate(self._tracks.get(ch, ())):
                tracks[key] = self._block(recs, lib.hsRUN_TRACKS, ch, t + 1)[:, t]
        loops = {key: self._block(recs, lib.hsRUN_LOOP, i, 6) for i, key in enumerate(self._loops)}
        ranges = self._range_log(n) if self.log_sensors else {}
        ranges = {m: scans if n else [] for m, scans in ranges.items()}
        return log_arrays(self.characters, recs[:, lib.hs_runOffset(self.run, lib.hsRUN_TIME, 0)],
                          root_p, root_R, link_p, sensor, ranges, stops, loops, tracks,
                          self._contact_log())


def _sensor_types(core):
    """The core's sensor types that have a SensorState block: (key, type, numbers per reading
    (-1: per sensor, range beams), the block's place)."""
    from .local import sensor_types
    return [e for e in sensor_types(core) if e[3] >= 0]


def _sensor_type_codes(core):
    """The SensorState blocks' type codes and widths, from the core's table: key -> (type,
    width) of each SensorState block (force, gyro, accel, range: width 0)."""
    from .local import sensor_types
    return {key: (t, max(size, 0)) for key, t, size, order in sensor_types(core) if order >= 0}


# ---------------------------------------------------------------------------------------------
# cameras
# ---------------------------------------------------------------------------------------------

def _safe_name(s):
    out = "".join(c if c.isalnum() or c in "_-" else "_" for c in s)
    return out or "_"


class LocalCameras:
    """Every vision sensor's frames stored in ``out/cameras/<character>-<sensor>/`` at its
    frame rate, as the Scheduler stores them (scheduler_cameras.cpp): frame_NNNNNN.png
    (colour or mono), depth_NNNNNN.png (16-bit millimetres), frames.csv (frame, step, time).
    Each camera is a frame stream of the core's run ``run``: the run says which frame is due
    at a step count."""

    def __init__(self, sim, out, run, warn=None):
        core = self.core = sim.local
        lib = core.lib
        self.run, self.warn = run, warn
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
                stream = core._check(lib.hs_runAddFrames(run, rate, core._e()), "frames")
                self.cams.append({"ch": ch, "s": s, "kind": kind, "stream": stream, "dir": d,
                                  "csv": csv, "name": core.sensor_name(ch, s)})

    def take(self, k, time_):
        """The frames due at step count k (time: the world's time after that step)."""
        if not self.cams:
            return
        core, lib, ffi = self.core, self.core.lib, self.core.ffi
        for c in self.cams:
            frame = lib.hs_runFrameDue(self.run, c["stream"], k) if c["dir"] else -1
            if frame < 0:
                continue
            from PIL import Image
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
                lib.hs_runSetFrameRate(self.run, c["stream"], 0.0, ffi.NULL)
                continue
            c["csv"].write("%d,%d,%s\n" % (frame, k, _g17(time_)))

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
    from .local import set_log_level
    sim = hrpsim.Simulation(backend="local", dt=project.time_step, gravity=project.gravity,
                            method=project.method.lower(), sensors=project.sensors)
    # (the core's own lines about the models' quirks held back: the run prints them, as the
    # server path does, from their BodyInfo strings; keep_model_warnings below)
    was = set_log_level("error")
    try:
        for m in project.models:
            try:
                sim.add_model(m.name, m.url)
            except ModelError as exc:
                raise model_run_error(project, m, exc) from exc
    finally:
        set_log_level(was)
    project.keep_model_warnings(lambda m: sim.body(m.name).info)
    facts = {}
    for m in project.models:
        body = sim.body(m.name)
        facts[m.name] = configuration.ModelFacts(
            list(sim.link_names(m.name)), list(body.one_dof_joints),
            list(body.root_pose[:3]), list(body.root_pose[3:]), body.root_joint)
    noise = None
    if "noise" not in project.lines:  # the models' declared noise, as the server path reads it
        noise = project.model_noise(lambda m: sim.body(m.name).info)
    sim.configure(configuration.from_project(project, facts, noise=noise))
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
    from .local import describe_body, set_log_level
    out = []
    was = set_log_level("error")  # (configure printed the models' warnings once)
    try:
        for m in project.models:
            try:
                out.append({"name": m.name, "url": hrpsim.file_url(m.url),
                            "body": describe_body(m.url)})
            except ModelError as exc:
                raise model_run_error(project, m, exc) from exc
    finally:
        set_log_level(was)
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
    """One local run's loop over the core's run ``run`` (core.h hsRun): where a controller's
    tick is due, its input() and control(), one step, its output() and the log record; else
    the core steps and logs by itself up to the next event (hs_runAdvance); camera frames
    when due. ``failure`` (text, controller name) when it stopped early."""

    def __init__(self, sim, run, controllers, cameras, real_time):
        self.sim, self.run, self.controllers = sim, run, controllers
        self.cameras, self.real_time = cameras, real_time
        self.failure = None
        self.wall = 0.0

    def run_loop(self):
        """Run to the end (or the first failure); returns the step count reached."""
        from .simulation import Runaway
        sim, run = self.sim, self.run
        core = sim.local
        lib, ptr, err = core.lib, core.ptr, core._err
        end = lib.hs_runEndSteps(run)
        check = _step_check(sim)
        t0 = time.perf_counter()
        k = lib.hs_steps(ptr)
        try:
            while k < end:
                due = [(spec, ctl) for spec, ctl, tick in self.controllers
                       if lib.hs_runTickDue(run, tick, k)]
                if due:
                    for spec, ctl in due:
                        _call(spec, ctl, "input")
                        _call(spec, ctl, "control")
                    check(lib.hs_runStep(run, err))
                    for spec, ctl in due:
                        _call(spec, ctl, "output")
                    check(lib.hs_runLog(run, err))
                    k += 1
                else:
                    check(lib.hs_runAdvance(run, k + 1 if self.real_time > 0 else end, err))
                    k = lib.hs_steps(ptr)
                if self.cameras is not None:
                    self.cameras.take(k, lib.hs_time(ptr))
                if self.real_time > 0:
                    ahead = lib.hs_time(ptr) / self.real_time - (time.perf_counter() - t0)
                    if ahead > 0:
                        time.sleep(ahead)
        except ControllerFailed as exc:
            self.failure = ("controller %s failed at t = %s s: %s"
                            % (exc.spec.name, _time_text(sim.time), exc.text), exc.spec.name)
        except Runaway as exc:
            # as the Scheduler says it: the time the failing step started from
            self.failure = ("stepSimulation failed at t = %s s: %s"
                            % (_time_text(lib.hs_runStepStart(run)), exc), None)
        finally:
            self.wall = time.perf_counter() - t0
        return lib.hs_steps(ptr)


def _time_text(t):
    """A time in the Scheduler's messages (scheduler.cpp timeText: "%.10g")."""
    return "%.10g" % t


def _step_check(sim):
    """check(code) for a code of the core's run (hs_runStep, hs_runAdvance, hs_runLog): a
    runaway raises Runaway with the core's message, as the back end's step, and any other
    error the core's."""
    from .local import _clear
    from .simulation import Runaway, _runaway_message
    core = sim.local
    lib, ffi, ptr, err = core.lib, core.ffi, core.ptr, core._err
    runaway = lib.hsE_RUNAWAY

    def check(code):
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
    return check


class _CoreRun:
    """The core's run (core.h hsRun) of a started local Simulation: ``ptr`` (freed with this
    object, after the simulation is done with it: the run only borrows it) and ``lib``."""

    def __init__(self, sim, end_time, log_period, log_sensors):
        core = sim.local
        self.lib, self.ffi = core.lib, core.ffi
        ptr = core.lib.hs_makeRun(core.ptr, end_time, log_period, int(bool(log_sensors)),
                                  core._e())
        if ptr == core.ffi.NULL:
            core._check(core._err.code or core.lib.hsE_INVALID, "run")
        self.ptr = core.ffi.gc(ptr, core.lib.hs_freeRun)


def _make_run(sim, project):
    """The core's run of the project over the started ``sim``: its end and log."""
    return _CoreRun(sim, project.end_time, project.log_period or 0.0, project.log_sensors)


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
            if period_steps(period, project.time_step) == 0:
                raise RunError("%s:%s: controller %s: period %g is not a whole number of "
                               "time steps" % (project.path, spec.line, spec.name, period))
            try:
                cls = _load_class(project, spec)
                controllers.append((spec, cls(), period))
            except ControllerFailed as exc:
                failure = failure or ("controller %s failed at t = 0 s: %s"
                                      % (spec.name, exc.text), spec.name)
        with sim:
            sim.start()
            run = _make_run(sim, project)
            # the controllers' ticks in the run, in the order added
            controllers = [(spec, ctl, sim.local._check(
                run.lib.hs_runAddTick(run.ptr, period, sim.local._e()), "controller period"))
                for spec, ctl, period in controllers]
            log = LocalLog(sim, run.ptr)
            sim.local._check(run.lib.hs_runRecord(run.ptr, sim.local._e()), "log")  # time 0
            if cameras:
                cams = LocalCameras(sim, out, run.ptr, warn)
                cams.take(0, 0.0)
            loop = _Run(sim, run.ptr, controllers, cams, real_time)
            try:
                if failure is None:
                    try:
                        _start_controllers(project, sim, controllers)
                    except ControllerFailed as exc:
                        failure = ("controller %s failed at t = 0 s: %s"
                                   % (exc.spec.name, exc.text), exc.spec.name)
                if failure is None:
                    loop.run_loop()
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
            end_steps = run.lib.hs_runEndSteps(run.ptr)
            arrays = log.arrays()
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
                           % (message, "partial" if steps_done < end_steps else "the", out))
        return out, summary
    finally:
        if not written:
            remove_unused_out_dir(out, made_out)
