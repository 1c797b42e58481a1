"""The live viewer's data: what OnlineViewer clients pushed, kept for the pages to draw.

``LiveSource`` holds, behind one lock:

- the *scene*: the characters loaded with ``load(name, url)`` in load order, each with its
  body description (scene.body_description) and kinematics; a scene change (a load that adds
  or replaces a character, ``clear_data``) bumps ``scene_version``;
- named *logs* of frames (``update`` appends to the current one, ``set_log_name`` switches,
  creating it when new; ``clear_log`` empties it). A frame is the simulated time, every
  character's pose as root pose + joint values (frames.py), and the contact points of the
  WorldState. An update whose time is earlier than the last frame's starts the log again from
  that time (a new run pushing from t = 0 replaces the old one, as Choreonoid's viewer does);
- the *transient* frame of ``draw`` (OpenHRP's drawScene: shown, not logged);
- drawing settings: line width (thickness of contact arrows and link frames [px-like units])
  and line scale (length of a contact arrow per metre of penetration, as GrxUI's).

An update only appends the WorldState as it came: turning it into arrays and the link poses into
joint values happens later, for many frames at once, when a page or getPosture first needs
them, or at the latest by a worker thread that compacts new frames every few tens of
milliseconds (so memory stays small with no page open), so a client pushing states (the
Scheduler waits for each call) pays little per call.

Anything that changes what the pages must show bumps ``epoch`` or appends frames, and calls
every listener with an event name ("frames", "reset", "scene", "settings", "transient"); the
web server's listener only schedules work on its event loop, so a CORBA call never waits for
a page. WorldState characters that are not loaded are kept as raw link poses and drawn once a
model of that name is loaded.
"""

import bisect
import logging
import threading
import time
from pathlib import Path

import numpy as np

from . import frames as F
from .control import RunControl
from .scene import Kinematics, body_description, matrix_to_quaternion

DEFAULT_LOG = "OnlineViewerLog"
TIME_EPS = 1e-12
COMPACT_PERIOD_S = 0.05

logger = logging.getLogger("hrpsim.viewer")


class ViewerError(ValueError):
    """A request the viewer refuses (bad model URL, a model that does not load...)."""


class _Character:
    def __init__(self, name, url, description):
        self.name = name
        self.url = url
        self.description = description
        self.kin = Kinematics(description)
        p, R, q = self.kin.initial_pose()
        self.initial = np.concatenate([p, matrix_to_quaternion(R), q])

    @property
    def width(self):
        return 7 + self.kin.count

    def encode(self, P, R):
        """Pose blocks (K, 7 + links) from the link poses P (K, n, 3), R (K, n, 3, 3) of K
        WorldStates with n links each; links the states lack keep their initial values."""
        k, n = P.shape[0], min(P.shape[1], self.kin.count)
        out = np.tile(self.initial, (k, 1))
        if n == 0:
            return out
        L = self.kin.count
        if n < L:  # pad with the root's pose; those joints are overwritten below
            P = np.concatenate([P[:, :n], np.repeat(P[:, :1], L - n, axis=1)], axis=1)
            R = np.concatenate([R[:, :n], np.repeat(R[:, :1], L - n, axis=1)], axis=1)
        q = self.kin.posture(P[:, :L], R[:, :L])
        out[:, :3] = P[:, 0]
        out[:, 3:7] = matrix_to_quaternion(R[:, 0])
        out[:, 7:7 + n] = q[:, :n]
        return out


class _Frame:
    __slots__ = ("time", "ws", "raw", "blocks", "contacts", "row", "version")

    def __init__(self, time, ws):
        self.time = time
        self.ws = ws              # the WorldState as received, until turned into arrays
        self.raw = {}             # name -> (P, R) of the WorldState, until encoded
        self.blocks = {}          # name -> pose block (float64) once encoded
        self.contacts = None      # (C, 7) float32
        self.row = None           # float32 row in the layout of scene `version`
        self.version = None

    def materialize(self):
        """Turn the received WorldState into arrays (once; any thread)."""
        ws = self.ws
        if ws is not None:
            _, self.raw, self.contacts = world_arrays(ws)
            self.ws = None


class _Log:
    def __init__(self, name):
        self.name = name
        self.frames = []
        self.times = []

    def clear(self):
        self.frames, self.times = [], []


def world_arrays(world_state):
    """(time, {character: (P (n, 3), R (n, 3, 3))}, contacts (C, 7)) of an OpenHRP
    WorldState (omniORBpy struct or anything with the same fields)."""
    chars = {}
    for cp in world_state.characterPositions:
        flat = []
        for lp in cp.linkPositions:
            flat += lp.p
            flat += lp.R
        m = np.array(flat, dtype=float).reshape(-1, 12)
        chars[cp.characterName] = (m[:, :3], m[:, 3:].reshape(-1, 3, 3))
    points = [(*pt.position, *pt.normal, pt.idepth)
              for col in world_state.collisions for pt in col.points]
    contacts = np.array(points, dtype=np.float32).reshape(-1, F.CONTACT_WIDTH)
    return float(world_state.time), chars, contacts


class LiveSource:
    """Loaded models, logs and settings of a live viewer (see the module text).

    ``loader(url)`` returns the body description of a model URL or raises ViewerError.
    """

    mode = "live"

    def __init__(self, loader, title="hrpsim viewer"):
        self.loader = loader
        self.title = title
        self._lock = threading.RLock()
        self._listeners = []
        self._chars = []                       # _Character, load order
        self._logs = {DEFAULT_LOG: _Log(DEFAULT_LOG)}
        self._log = self._logs[DEFAULT_LOG]
        self._transient = None                 # the _Frame of drawScene on display
        self._shown = None                     # the _Frame last shown (update or draw)
        self.scene_version = 1
        self.epoch = 1
        self.line_width = 1.0
        self.line_scale = 1.0
        self._pending = []                     # frames the compactor has not seen yet
        self.camera_index = None               # cameras.CameraIndex of the run shown, if told
        self.control = RunControl()            # the run's Scheduler, if `hrpsim run` gave it
        self._encode_lock = threading.Lock()
        self._work = threading.Event()
        self._closing = False
        self._compactor = threading.Thread(target=self._compact, name="viewer-compact",
                                           daemon=True)
        self._compactor.start()

    def close(self):
        """Stop the compactor thread (the source stays readable)."""
        self._closing = True
        self._work.set()
        self._compactor.join(5)

    def _compact(self):
        # turn new frames into arrays and pose blocks in batches, off the CORBA threads
        while True:
            self._work.wait()
            if self._closing:
                return
            time.sleep(COMPACT_PERIOD_S)
            with self._lock:
                self._work.clear()
                frames, self._pending = self._pending, []
            try:
                self._rows(frames)
            except Exception as exc:  # noqa: BLE001 - a bad state must not end the thread
                logger.warning("could not convert %d world states: %s", len(frames), exc)

    # ---- listeners --------------------------------------------------------------------------

    def add_listener(self, fn):
        """Call ``fn(event)`` after every change (from the thread that made it)."""
        with self._lock:
            self._listeners.append(fn)

    def remove_listener(self, fn):
        with self._lock:
            if fn in self._listeners:
                self._listeners.remove(fn)

    def _notify(self, event):
        with self._lock:
            listeners = list(self._listeners)
        for fn in listeners:
            fn(event)

    # ---- OnlineViewer operations ------------------------------------------------------------

    def load(self, name, url):
        """Load the model at ``url`` as character ``name``. The same name with the same URL
        again keeps what is loaded; another URL replaces it (frames already encoded for the
        old model then show the new one at its initial pose). Raises ViewerError."""
        if not name:
            raise ViewerError("load: the character name is empty")
        with self._lock:
            for c in self._chars:
                if c.name == name and c.url == url:
                    return
        description = self.loader(url)  # outside the lock: may take a while
        with self._lock:
            char = _Character(name, url, description)
            for i, c in enumerate(self._chars):
                if c.name == name:
                    self._chars[i] = char
                    for f in self._all_frames():
                        f.blocks.pop(name, None)
                    break
            else:
                self._chars.append(char)
            self._relayout()
        self._notify("scene")

    def update(self, world_state):
        """Show ``world_state`` and append it to the current log."""
        self._add(world_state, logged=True)

    def draw(self, world_state):
        """Show ``world_state`` without logging it (OpenHRP's drawScene)."""
        self._add(world_state, logged=False)

    def clear_log(self):
        """Forget the frames of the current log."""
        with self._lock:
            self._log.clear()
            self.epoch += 1
        self._notify("reset")

    def clear_data(self):
        """Forget every loaded model and every log."""
        with self._lock:
            self._chars = []
            for log in self._logs.values():
                log.clear()
            self._transient = None
            self._shown = None
            self.camera_index = None
            self._relayout()
        self._notify("scene")

    def set_camera_dir(self, results_dir):
        """Show the camera frames a run stores under ``results_dir``/cameras/ (as it writes
        them; `hrpsim run --view` tells its viewer so). Raises ViewerError if ``results_dir``
        is not a directory."""
        from .cameras import CameraIndex
        path = Path(results_dir)
        if not path.is_absolute() or not path.is_dir():
            raise ViewerError("not a directory (an absolute path is needed): %r"
                              % str(results_dir))

        def characters():
            with self._lock:
                return [{"name": c.name, "body": c.description} for c in self._chars]
        index = CameraIndex(path, characters)
        with self._lock:
            self.camera_index = index
        logger.info("camera frames from %s", path)

    def set_control(self, ior):
        """Let the pages pause, step and push the run whose Scheduler ``ior`` names (None:
        no run; `hrpsim run --view` sends it). Raises ViewerError for a bad reference."""
        try:
            self.control.attach(ior)
        except ValueError as exc:
            raise ViewerError(str(exc)) from exc
        self._notify("settings")

    def set_line_width(self, width):
        """Thickness of contact arrows and link frames (a positive finite number)."""
        width = float(width)
        if not np.isfinite(width) or width <= 0:
            raise ViewerError("setLineWidth: the width must be a positive number, got %r"
                              % width)
        with self._lock:
            self.line_width = width
        self._notify("settings")

    def set_line_scale(self, scale):
        """Length of a contact arrow per metre of penetration depth (finite, >= 0)."""
        scale = float(scale)
        if not np.isfinite(scale) or scale < 0:
            raise ViewerError("setLineScale: the scale must be a number >= 0, got %r" % scale)
        with self._lock:
            self.line_scale = scale
        self._notify("settings")

    def posture(self, name):
        """(found, joint values in jointId order) of character ``name`` as last shown (its
        initial values before any state); (False, []) for an unknown name."""
        with self._lock:
            char = next((c for c in self._chars if c.name == name), None)
            shown = self._shown
        if char is None:
            return False, []
        block = char.initial
        if shown is not None:
            self._encode([shown], [char])
            block = shown.blocks.get(name, char.initial)
        return True, [float(v) for v in char.kin.joint_values(block[7:])]

    def set_log_name(self, name):
        """Make ``name`` the current log (created empty if new)."""
        if not name:
            raise ViewerError("setLogName: the log name is empty")
        with self._lock:
            if self._log.name == name:
                return
            log = self._logs.get(name)
            if log is None:
                log = self._logs[name] = _Log(name)
            self._log = log
            self.epoch += 1
        self._notify("reset")

    # ---- internals --------------------------------------------------------------------------

    def _add(self, world_state, logged):
        t = float(world_state.time)
        if not np.isfinite(t):
            raise ViewerError("the WorldState's time is not a finite number")
        frame = _Frame(t, world_state)
        with self._lock:
            self._shown = frame
            if not logged:
                self._transient = frame
                event = "transient"
            else:
                self._transient = None
                log = self._log
                event = "frames"
                if log.times and t < log.times[-1] - TIME_EPS:
                    k = bisect.bisect_left(log.times, t - TIME_EPS)
                    del log.frames[k:], log.times[k:]
                    self.epoch += 1
                    event = "reset"
                log.frames.append(frame)
                log.times.append(t)
                self._pending.append(frame)
                self._work.set()
        self._notify(event)

    def _all_frames(self):
        for log in self._logs.values():
            yield from log.frames
        if self._transient is not None:
            yield self._transient

    def _relayout(self):
        # the character set changed: rows are made again, in the new layout, when next read
        self.scene_version += 1
        self.epoch += 1

    def _encode(self, frames, chars):
        """Pose blocks of ``chars`` for ``frames`` that still hold their raw link poses,
        computed for all of them at once (frames of one link count per batch). One thread
        at a time (the compactor, a page's sender, getPosture)."""
        with self._encode_lock:
            for f in frames:
                f.materialize()
            for c in chars:
                groups = {}
                for f in frames:
                    raw = f.raw.get(c.name)
                    if raw is not None and c.name not in f.blocks:
                        groups.setdefault(len(raw[0]), []).append((f, raw))
                for group in groups.values():
                    P = np.stack([raw[0] for _, raw in group])
                    R = np.stack([raw[1] for _, raw in group])
                    blocks = c.encode(P, R)
                    for (f, _), block in zip(group, blocks):
                        f.blocks[c.name] = block
                        f.raw.pop(c.name, None)

    def _rows(self, frames):
        """The float32 rows of ``frames`` in the current layout, (K, stride)."""
        with self._lock:
            chars = list(self._chars)
            version = self.scene_version
        self._encode(frames, chars)
        todo = [f for f in frames if f.version != version]
        if todo:
            width = F.stride(c.kin.count for c in chars)
            rows = np.empty((len(todo), width), dtype=np.float32)
            off = 0
            for c in chars:
                for j, f in enumerate(todo):
                    block = f.blocks.get(c.name)
                    rows[j, off:off + c.width] = block if block is not None else c.initial
                off += c.width
            for f, row in zip(todo, rows):
                f.row, f.version = row, version
        if not frames:
            return np.zeros((0, F.stride(c.kin.count for c in chars)), np.float32)
        return np.stack([f.row for f in frames])

    # ---- what the pages read ----------------------------------------------------------------

    def scene(self):
        """The scene as the page needs it: version, and the characters in layout order, each
        with name, url and body description."""
        with self._lock:
            return {"version": self.scene_version,
                    "characters": [{"name": c.name, "url": c.url, "body": c.description}
                                   for c in self._chars]}

    def status(self):
        """What a page needs to know now: mode, title, epoch, frame count, log name and
        names, scene version, settings."""
        with self._lock:
            return {"mode": self.mode, "title": self.title, "epoch": self.epoch,
                    "count": len(self._log.frames), "log": self._log.name,
                    "logs": list(self._logs), "sceneVersion": self.scene_version,
                    "lineWidth": self.line_width, "lineScale": self.line_scale,
                    "control": self.control.available,
                    "layout": [[c.name, c.kin.count] for c in self._chars]}

    def frames(self, epoch, start, stop):
        """The message of frames [start, stop) of the current log, or None when ``epoch`` is
        no longer current (the page must start again) or there is nothing in that range."""
        with self._lock:
            if epoch != self.epoch:
                return None
            log = self._log
            stop = min(stop, len(log.frames))
            if start >= stop:
                return None
            chosen = log.frames[start:stop]
            version = self.scene_version
        poses = self._rows(chosen)
        if poses.shape[1] != F.stride(c.kin.count for c in self._chars) or \
                version != self.scene_version:
            return None  # the scene changed meanwhile: a new status follows
        times = [f.time for f in chosen]
        counts = np.array([len(f.contacts) for f in chosen], dtype=np.uint32)
        flat = np.concatenate([f.contacts for f in chosen])
        return F.encode(F.KIND_LOG, epoch, start, times, poses, counts, flat)

    def transient(self):
        """The message of the drawScene frame on display, or None."""
        with self._lock:
            frame = self._transient
            epoch = self.epoch
        if frame is None:
            return None
        row = self._rows([frame])
        return F.encode(F.KIND_TRANSIENT, epoch, 0, [frame.time], row,
                        [len(frame.contacts)], frame.contacts)

    def count(self):
        with self._lock:
            return len(self._log.frames)
