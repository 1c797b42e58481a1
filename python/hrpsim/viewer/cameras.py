"""The camera frames of a results directory, for the viewer's camera panel.

`hrpsim run` stores every vision sensor's frames under ``cameras/<character>-<sensor>/`` of its
results directory (names made file-safe: characters other than letters, digits, ``_`` and
``-`` become ``_``): ``frame_NNNNNN.png`` (RGB or 8-bit grey), ``depth_NNNNNN.png`` (16-bit,
millimetres) and ``frames.csv`` (frame, step, time), one line written after each frame's files.

``CameraIndex`` maps those directories to the characters' VisionSensors, reads the frame
times (again when frames.csv grows, so a live run's new frames show up) and serves single
frames on demand: the page asks for the frame it needs (the latest whose time is at or before
the time on screen) by URL and nothing is read up front but the CSV files. A camera without
colour or mono frames shows its depth, mapped to 8-bit grey (near white, far black, scaled to
the frame's farthest value, as preview.png does).
"""

import bisect
import csv
import io
import re
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

DEPTH_CACHE = 16  # grey images of depth frames kept (a few per camera)
TIME_EPS = 1e-9   # a frame at t counts as at or before t + TIME_EPS (times come from sums)


def safe_name(name):
    """A model or sensor name as the scheduler writes it into a camera directory's name."""
    out = re.sub(r"[^A-Za-z0-9_-]", "_", name)
    return out or "_"


def depth_to_grey(mm):
    """An 8-bit grey image (H x W uint8) of a depth image in millimetres: 255 at 0 mm, 0 at the
    image's largest value (the back clip distance where nothing is seen)."""
    mm = np.asarray(mm, dtype=np.float64)
    top = max(float(mm.max()) if mm.size else 0.0, 1.0)
    return (255 * (1 - mm / top)).astype(np.uint8)


class Camera:
    """One camera directory: its key (character/sensor), and the frames listed so far."""

    def __init__(self, character, sensor, path):
        self.character = character
        self.sensor = sensor
        self.path = path
        self.key = "%s/%s" % (character, sensor)
        self.frames = []   # frame numbers, in file order
        self.times = []    # their simulated times [s]
        self._csv_size = 0
        self._kind = None

    def refresh(self):
        """Read frames.csv again if it grew; returns True if frames were added."""
        csv_path = self.path / "frames.csv"
        try:
            size = csv_path.stat().st_size
        except OSError:
            return False
        if size == self._csv_size:
            return False
        frames, times = [], []
        try:
            with open(csv_path, newline="") as f:
                text = f.read()
        except OSError:
            return False
        # a line is complete once its newline is written (the scheduler flushes whole lines)
        complete = text[:text.rfind("\n") + 1]
        for row in csv.DictReader(io.StringIO(complete)):
            try:
                frames.append(int(row["frame"]))
                times.append(float(row["time"]))
            except (KeyError, TypeError, ValueError):
                continue
        self._csv_size = len(complete.encode())
        added = len(frames) > len(self.frames)
        self.frames, self.times = frames, times
        return added

    @property
    def kind(self):
        """"image" (frame_*.png: colour or mono), "depth" (depth_*.png only) or None (none
        yet)."""
        if self._kind is None and self.frames:
            n = self.frames[0]
            if (self.path / ("frame_%06d.png" % n)).is_file():
                self._kind = "image"
            elif (self.path / ("depth_%06d.png" % n)).is_file():
                self._kind = "depth"
        return self._kind

    def index_at(self, time):
        """Position in ``frames`` of the latest frame at or before ``time``, or None."""
        i = bisect.bisect_right(self.times, time + TIME_EPS) - 1
        return i if i >= 0 else None

    def describe(self):
        return {"key": self.key, "character": self.character, "sensor": self.sensor,
                "kind": self.kind, "frames": list(self.frames), "times": list(self.times)}


class CameraIndex:
    """The cameras of one results directory (see the module text). Thread-safe."""

    def __init__(self, results_dir, characters):
        """``characters``: the run's characters (dicts with name and body, as in
        models.json.gz), or a function returning them now (a live viewer's models change);
        their VisionSensors name the directories."""
        self.dir = Path(results_dir) / "cameras"
        self._characters = characters
        self._by_dir = {}
        self._cams = {}
        self._lock = threading.Lock()
        self._grey = OrderedDict()
        self.refresh()

    def _map_dirs(self):
        chars = self._characters() if callable(self._characters) else self._characters
        by_dir = {}
        for c in chars:
            for link in c["body"].get("links", []):
                for s in link.get("sensors", []):
                    if s.get("type") == "Vision":
                        d = "%s-%s" % (safe_name(c["name"]), safe_name(s["name"]))
                        by_dir[d] = (c["name"], s["name"])
        return by_dir

    def refresh(self):
        """Look for new camera directories and new frames; returns True if any were added."""
        added = False
        if callable(self._characters) or not self._by_dir:
            by_dir = self._map_dirs()
        else:
            by_dir = self._by_dir
        with self._lock:
            self._by_dir = by_dir
            if self.dir.is_dir():
                for d, (char, sensor) in self._by_dir.items():
                    key = "%s/%s" % (char, sensor)
                    if key not in self._cams and (self.dir / d / "frames.csv").is_file():
                        self._cams[key] = Camera(char, sensor, self.dir / d)
            for cam in self._cams.values():
                added |= cam.refresh()
        return added

    def cameras(self):
        """Every camera with its frame numbers and times: a list of dicts (key, character,
        sensor, kind, frames, times)."""
        with self._lock:
            return [c.describe() for c in self._cams.values()]

    def camera(self, character, sensor):
        """The Camera of character/sensor, or None."""
        with self._lock:
            return self._cams.get("%s/%s" % (character, sensor))

    def frame_at(self, character, sensor, time):
        """(frame number, its time) of the latest frame of that camera at or before ``time``,
        or None (no such camera, or no frame yet)."""
        cam = self.camera(character, sensor)
        if cam is None:
            return None
        i = cam.index_at(time)
        return None if i is None else (cam.frames[i], cam.times[i])

    def image(self, character, sensor, frame):
        """The frame as a PNG to send: a Path (a stored colour or mono frame) or bytes (a depth
        frame mapped to grey). None if there is no such frame."""
        cam = self.camera(character, sensor)
        if cam is None or frame not in set(cam.frames):
            return None
        if cam.kind == "image":
            path = cam.path / ("frame_%06d.png" % frame)
            return path if path.is_file() else None
        key = (cam.key, frame)
        with self._lock:
            if key in self._grey:
                self._grey.move_to_end(key)
                return self._grey[key]
        path = cam.path / ("depth_%06d.png" % frame)
        if not path.is_file():
            return None
        from PIL import Image
        with Image.open(path) as im:
            grey = Image.fromarray(depth_to_grey(np.asarray(im)))
        buf = io.BytesIO()
        grey.save(buf, format="PNG", compress_level=1)
        data = buf.getvalue()
        with self._lock:
            self._grey[key] = data
            while len(self._grey) > DEPTH_CACHE:
                self._grey.popitem(last=False)
        return data
