"""A finished run as a viewer source: `hrpsim view RESULTS_DIR`.

A results directory written by `hrpsim run` holds ``log.npz`` (times, root poses, joint values
and sensors per record, contacts), ``summary.json`` and ``models.json.gz``: the body description
of every model the run loaded, taken from the ModelLoader when the run started, so a replay needs no
server and no model file. ``ReplaySource`` reads the summary, the models and the record times
when it opens, and turns the log into frames (float32 rows of root pose + per-link joint
values, see frames.py) on a thread of its own, so the server answers at once; pages receive
the frames in pieces over their WebSocket as soon as they are ready and draw from the first
piece on. The camera frames of the run (``cameras/``, see cameras.py) are served one at a
time as the page asks for them.

Results directories from before models.json.gz existed replay too when a ModelLoader answers
(``$HRPSIM_NAMING`` or `hrpsim up`'s state): the models are read again from their URLs.
"""

import gzip
import json
import threading
from pathlib import Path

import numpy as np

from . import frames as F
from .cameras import CameraIndex
from .live import ViewerError
from .scene import Kinematics, matrix_to_quaternion

MODELS_FILE = "models.json.gz"
MODELS_FORMAT = 1

# logged arrays the plot panel offers, with the labels of their components
SENSOR_SERIES = {"force": ("fx", "fy", "fz", "mx", "my", "mz"),
                 "rate_gyro": ("wx", "wy", "wz"), "accel": ("ax", "ay", "az")}
JOINT_SERIES = ("q", "dq", "u")
# what the plot panel calls each series (range scans: "range scan K")
SERIES_TITLES = {"q": "joint angle q [rad, m]", "dq": "joint velocity dq [rad/s, m/s]",
                 "u": "joint torque / force u [N m, N]", "force": "force sensors [N, N m]",
                 "rate_gyro": "gyro [rad/s]", "accel": "accelerometer [m/s^2]",
                 "root_p": "root position [m]", "root_rpy": "root roll, pitch, yaw [rad]",
                 "joint_stop": "joint stop / servo torque [N m, N]",
                 "tracks": "track speeds [m/s]", "loops": "closed-loop forces [N, N m]",
                 "contact_force": "contact forces per link [N]",
                 "pushes": "pushes from the live viewer [N, N m]"}


def write_models(out_dir, characters):
    """Write ``models.json.gz`` into ``out_dir``: ``characters`` is a list of dicts with
    name, url and body (a body description). Returns the path."""
    path = Path(out_dir) / MODELS_FILE
    doc = {"format": MODELS_FORMAT, "characters": characters}
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as f:
        json.dump(doc, f, separators=(",", ":"))
    return path


def read_models(results_dir):
    """The characters recorded in ``models.json.gz`` (list of dicts), or None if absent."""
    path = Path(results_dir) / MODELS_FILE
    if not path.exists():
        return None
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        raise ViewerError("cannot read %s: %s" % (path, exc)) from exc
    if doc.get("format") != MODELS_FORMAT:
        raise ViewerError("%s: unknown format %r" % (path, doc.get("format")))
    return doc["characters"]


def _models_from_loader(summary):
    """Body descriptions of the summary's models, read through a running ModelLoader."""
    import hrpsim
    from .server import describe_url
    try:
        loader = hrpsim.connect().model_loader()
    except Exception as exc:  # noqa: BLE001 - no naming service, no loader...
        raise ViewerError("this results directory has no %s (runs record it since the viewer "
                          "exists) and no ModelLoader answers to read its models again (%s); "
                          "start one with `hrpsim up`" % (MODELS_FILE, exc)) from exc
    return [{"name": m["name"], "url": m["url"], "body": describe_url(loader, m["url"])}
            for m in summary.get("models", [])]


def newest_results(base="results"):
    """The most recently written results directory under ``base`` (by its summary.json), or
    None."""
    base = Path(base)
    if not base.is_dir():
        return None
    found = [(p.stat().st_mtime, p.parent) for p in base.glob("*/summary.json")]
    return max(found)[1] if found else None


class ReplaySource:
    """The frames, scene, summary and series of one results directory (see the module text)."""

    mode = "replay"

    def __init__(self, results_dir):
        self.dir = Path(results_dir).expanduser().resolve()
        summary_path = self.dir / "summary.json"
        if not summary_path.is_file():
            raise ViewerError("%s is not a results directory of `hrpsim run` (no summary.json)"
                              % self.dir)
        try:
            self._summary = json.loads(summary_path.read_text())
        except (OSError, ValueError) as exc:
            raise ViewerError("cannot read %s: %s" % (summary_path, exc)) from exc
        chars = read_models(self.dir)
        if chars is None:
            chars = _models_from_loader(self._summary)
        self.characters = chars
        self.kin = [Kinematics(c["body"]) for c in chars]
        try:
            self._npz = np.load(self.dir / "log.npz")
            self.times = np.asarray(self._npz["time"], dtype=float)
        except (OSError, KeyError, ValueError) as exc:
            raise ViewerError("cannot read %s: %s" % (self.dir / "log.npz", exc)) from exc
        name = Path(self._summary.get("project", "")).stem or self.dir.name
        self.title = "%s (%s)" % (name, self.dir.name)
        self.camera_index = CameraIndex(self.dir, chars)
        self.rows = None
        self.contacts = None
        self.error = None
        self._lock = threading.RLock()
        self._listeners = []
        self._built = threading.Event()
        threading.Thread(target=self._build, name="replay-frames", daemon=True).start()

    def _build(self):
        try:
            rows = self._build_rows()
        except Exception as exc:  # noqa: BLE001 - reported through wait() and the log
            self.error = exc
            rows = None
        self.rows = rows
        if rows is not None:
            self.contacts = self._build_contacts()
        self._built.set()
        for fn in list(self._listeners):
            fn("frames")

    def wait(self, timeout=None):
        """Wait until the frames are built; returns the rows. Raises ViewerError if the log
        could not be turned into frames."""
        self._built.wait(timeout)
        if self.error is not None:
            raise ViewerError("cannot replay %s: %s" % (self.dir, self.error)) from self.error
        return self.rows

    def _array(self, key):
        if key not in self._npz.files:
            return None
        with self._lock:  # one reader of the archive at a time
            return self._npz[key]

    def _build_contacts(self):
        """The logged contacts as frames carry them: (points per record (N,), (M, 7) point,
        normal, depth, index of each record's first point (N + 1,)); none for logs from
        before contacts were logged."""
        n = len(self.times)
        counts = self._array("contacts.count")
        if counts is None or len(counts) != n:
            return np.zeros(n, dtype=np.uint32), np.zeros((0, 7), np.float32), np.zeros(n + 1, int)
        contacts = np.concatenate([self._array("contacts.point").reshape(-1, 3),
                                   self._array("contacts.normal").reshape(-1, 3),
                                   self._array("contacts.depth").reshape(-1, 1)], axis=1)
        first = np.concatenate([[0], np.cumsum(counts)])
        return counts.astype(np.uint32), contacts.astype(np.float32), first

    def _build_rows(self):
        n = len(self.times)
        width = F.stride(k.count for k in self.kin)
        rows = np.empty((n, width), dtype=np.float32)
        off = 0
        for c, kin in zip(self.characters, self.kin):
            name = c["name"]
            p0, R0, q0 = kin.initial_pose()
            root_p = self._array(name + ".root_p")
            root_R = self._array(name + ".root_R")
            if root_p is None or root_R is None or len(root_p) != n:
                rows[:, off:off + 3] = p0
                rows[:, off + 3:off + 7] = matrix_to_quaternion(R0)
            else:
                rows[:, off:off + 3] = root_p
                rows[:, off + 3:off + 7] = matrix_to_quaternion(root_R.reshape(n, 3, 3))
            q = self._array(name + ".q")
            if q is not None and q.shape == (n, len(kin.joint_links)):
                rows[:, off + 7:off + 7 + kin.count] = kin.link_values(q)
            else:
                rows[:, off + 7:off + 7 + kin.count] = q0
            off += 7 + kin.count
        return rows

    # ---- the source interface (see web.py) --------------------------------------------------

    def add_listener(self, fn):
        """``fn("frames")`` is called once, when the frames are built."""
        self._listeners.append(fn)
        if self._built.is_set():
            fn("frames")

    def remove_listener(self, fn):
        if fn in self._listeners:
            self._listeners.remove(fn)

    def scene(self):
        return {"version": 1, "characters": self.characters}

    def status(self):
        return {"mode": self.mode, "title": self.title, "epoch": 1, "count": len(self.times),
                "log": "", "logs": [], "sceneVersion": 1, "lineWidth": 1.0, "lineScale": 1.0,
                "layout": [[c["name"], k.count] for c, k in zip(self.characters, self.kin)],
                "series": self.series_keys(), "seriesTitles": self.series_titles()}

    def frames(self, epoch, start, stop):
        stop = min(stop, len(self.times))
        if epoch != 1 or start >= stop or self.rows is None:
            return None  # nothing there, or not built yet (listeners hear when it is)
        counts, contacts, first = self.contacts
        return F.encode(F.KIND_LOG, 1, start, self.times[start:stop], self.rows[start:stop],
                        counts[start:stop], contacts[first[start]:first[stop]])

    def transient(self):
        return None

    # ---- replay extras ----------------------------------------------------------------------

    def summary(self):
        return self._summary

    def file_path(self, name):
        """Path of a plot or summary.txt of the directory, or None for anything else."""
        allowed = set(self._summary.get("plots", [])) | {"summary.txt"}
        if name not in allowed or "/" in name:
            return None
        path = self.dir / name
        return path if path.is_file() else None

    def series_keys(self):
        """{character: [logged series keys]} for the plot panel: the joint arrays, body
        sensors, root position and orientation, joint stop torques, range scans (rangeK),
        crawler tracks, closed-loop forces and contact forces the log holds for it."""
        files = set(self._npz.files)
        out = {}
        for c in self.characters:
            name = c["name"]
            keys = [k for k in JOINT_SERIES + tuple(SENSOR_SERIES) + ("root_p",)
                    if "%s.%s" % (name, k) in files]
            if name + ".root_R" in files:
                keys.append("root_rpy")
            if name + ".joint_stop" in files:
                keys.append("joint_stop")
            k = 0
            while "%s.range%d" % (name, k) in files:
                keys.append("range%d" % k)
                k += 1
            for group in ("track", "loop", "push"):
                if any(f.startswith("%s.%s." % (name, group)) for f in files):
                    keys.append("pushes" if group == "push" else group + "s")
            if self._contact_links(name):
                keys.append("contact_force")
            if keys:
                out[name] = keys
        return out

    def series_titles(self):
        """{series key: what the plot panel calls it}."""
        titles = dict(SERIES_TITLES)
        for keys in self.series_keys().values():
            for k in keys:
                if k.startswith("range"):
                    titles[k] = "range scan %s [m]" % k[len("range"):]
        return titles

    def _contact_links(self, character):
        """The links of ``character`` that touch anything in the run: {link: [(pair row,
        sign)]}, sign +1 when the link is the pair's link1 (pair_force acts on it), -1 for
        link2."""
        pairs = self._array("contacts.pairs")
        if pairs is None or "contacts.pair_force" not in self._npz.files:
            return {}
        out = {}
        for row, (c1, l1, c2, l2) in enumerate(pairs.reshape(-1, 4)):
            if str(c1) == character:
                out.setdefault(str(l1), []).append((row, 1.0))
            if str(c2) == character:
                out.setdefault(str(l2), []).append((row, -1.0))
        return out

    def _grouped(self, character, group, width):
        """The ``C.group.NAME`` arrays of a character side by side: (names, (N, k * width))."""
        prefix = "%s.%s." % (character, group)
        keys = sorted(f for f in self._npz.files if f.startswith(prefix))
        if not keys:
            raise KeyError("%s: no %s series" % (character, group))
        n = len(self.times)
        return ([k[len(prefix):] for k in keys],
                np.concatenate([self._array(k).reshape(n, width) for k in keys], axis=1))

    def series(self, character, key):
        """One logged array as {"labels": [...], "unit": text, "data": base64 float32 of
        (records x labels)}. KeyError if the run did not log it."""
        import base64
        n = len(self.times)
        if key == "root_rpy":
            arr = self._array(character + ".root_rpy")
            if arr is None and self._array(character + ".root_R") is not None:
                from ..results import root_rpy  # a log from before root_rpy was written
                arr = root_rpy(self._array(character + ".root_R"))
            labels, unit = ["roll", "pitch", "yaw (heading)"], "rad"
        elif key == "tracks":
            labels, arr = self._grouped(character, "track", 1)
            unit = "m/s"
        elif key == "loops":
            names, arr = self._grouped(character, "loop", 6)
            labels = ["%s %s" % (nm, comp) for nm in names for comp in SENSOR_SERIES["force"]]
            unit = "N, N m"
        elif key == "pushes":
            names, arr = self._grouped(character, "push", 6)
            labels = ["%s %s" % (nm, comp) for nm in names for comp in SENSOR_SERIES["force"]]
            unit = "N, N m"
        elif key == "contact_force":
            links = self._contact_links(character)
            if not links:
                raise KeyError("%s has no contacts in %s" % (character, self.dir / "log.npz"))
            total = self._array("contacts.pair_force").reshape(n, -1, 3)
            arr = np.zeros((n, len(links), 3))
            for i, rows in enumerate(links.values()):
                for row, sign in rows:
                    arr[:, i] += sign * total[:, row]
            labels = ["%s %s" % (lk, comp) for lk in links for comp in ("fx", "fy", "fz")]
            unit = "N"
        else:
            arr = self._array("%s.%s" % (character, key))
        if arr is None:
            raise KeyError("%s.%s is not in %s" % (character, key, self.dir / "log.npz"))
        c = next(c for c in self.characters if c["name"] == character)
        if key in JOINT_SERIES or key == "joint_stop":
            names = self._array(character + ".joint_names")
            labels = [str(x) for x in names] if names is not None else \
                ["joint %d" % i for i in range(arr.shape[1])]
            unit = {"q": "rad, m", "dq": "rad/s, m/s", "u": "N m, N",
                    "joint_stop": "N m, N"}[key]
        elif key in SENSOR_SERIES:
            from ..core_facts import sensor_type_names
            type_names = sensor_type_names()  # the core's OpenHRP type strings
            sensors = sorted((s["id"], s["name"]) for lk in c["body"]["links"]
                             for s in lk["sensors"] if s["type"] == type_names[key])
            names = [nm for _, nm in sensors]
            if len(names) != arr.shape[1]:
                names = ["%s %d" % (type_names[key], i) for i in range(arr.shape[1])]
            labels = ["%s %s" % (nm, comp) for nm in names for comp in SENSOR_SERIES[key]]
            unit = {"force": "N, N m", "rate_gyro": "rad/s", "accel": "m/s^2"}[key]
        elif key == "root_p":
            labels, unit = ["x", "y", "z"], "m"
        elif key.startswith("range") and key[len("range"):].isdigit():
            labels, unit = ["beam %d" % i for i in range(arr.shape[1])], "m"
        elif key not in ("root_rpy", "tracks", "loops", "pushes", "contact_force"):
            raise KeyError(key)
        data = np.ascontiguousarray(arr.reshape(n, -1), dtype="<f4")
        return {"labels": labels, "unit": unit,
                "data": base64.b64encode(data.tobytes()).decode("ascii")}
