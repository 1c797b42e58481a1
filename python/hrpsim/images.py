"""Camera images as NumPy arrays: OpenHRP ``ImageData`` from a ViewSimulator's cameras.

``image_arrays(img)`` turns one ``OpenHRP.ImageData`` into a ``CameraImage``:

- ``color``: H x W x 3 ``uint8`` (RGB), from PixelFormat ARGB (one 0xAARRGGBB long per pixel in
  ``longData``) or RGB (3 bytes per pixel in ``octetData``); ``None`` when the image has none;
- ``mono``: H x W ``uint8`` from PixelFormat GRAY (``octetData``); ``None`` otherwise;
- ``depth``: H x W ``float32`` metres along the optical axis (``floatData``; the back clip
  distance where nothing is seen); ``None`` when the image has none.

Rows are top first, as hrpsim's ViewSimulator sends them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

# OpenHRP.PixelFormat values (ARGB, GRAY, DEPTH, RGB), by position in the IDL enum
_ARGB, _GRAY, _DEPTH, _RGB = 0, 1, 2, 3


@dataclasses.dataclass
class CameraImage:
    """One camera picture; see the module docstring for the arrays' shapes and units."""

    width: int
    height: int
    color: np.ndarray | None = None
    mono: np.ndarray | None = None
    depth: np.ndarray | None = None


def image_arrays(img) -> CameraImage:
    """Convert an ``OpenHRP.ImageData`` into a ``CameraImage`` (copies the data).

    Raises ``ValueError`` when a data sequence's length does not match width x height.
    """
    w, h = int(img.width), int(img.height)
    n = w * h
    fmt = int(img.format._v) if hasattr(img.format, "_v") else int(img.format)
    out = CameraImage(width=w, height=h)
    if fmt == _ARGB and len(img.longData) == n and n > 0:
        v = np.asarray(img.longData, dtype=np.int64).astype(np.uint32)
        rgb = np.empty((n, 3), dtype=np.uint8)
        rgb[:, 0] = (v >> 16) & 0xFF
        rgb[:, 1] = (v >> 8) & 0xFF
        rgb[:, 2] = v & 0xFF
        out.color = rgb.reshape(h, w, 3)
    elif fmt == _RGB and len(img.octetData) == 3 * n and n > 0:
        out.color = np.frombuffer(_bytes(img.octetData), dtype=np.uint8).reshape(h, w, 3).copy()
    elif fmt == _GRAY and len(img.octetData) == n and n > 0:
        out.mono = np.frombuffer(_bytes(img.octetData), dtype=np.uint8).reshape(h, w).copy()
    elif fmt in (_ARGB, _RGB, _GRAY) and (len(img.longData) or len(img.octetData)):
        raise ValueError("ImageData %dx%d: colour data of the wrong length" % (w, h))
    if len(img.floatData):
        if len(img.floatData) != n:
            raise ValueError("ImageData %dx%d: %d depth values" % (w, h, len(img.floatData)))
        out.depth = np.asarray(img.floatData, dtype=np.float32).reshape(h, w)
    return out


def _bytes(octets) -> bytes:
    # omniORBpy gives sequence<octet> as bytes; other ORBs may give a list of ints
    return octets if isinstance(octets, (bytes, bytearray)) else bytes(octets)


# at most this many frames go into one camera's animated preview (evenly chosen)
PREVIEW_MAX_FRAMES = 200


def write_previews(out_dir) -> list:
    """Write an animated PNG ``preview.png`` beside each camera's frames under
    ``out_dir/cameras/*/`` (as the scheduler stores them: frame_NNNNNN.png colour or mono,
    depth_NNNNNN.png 16-bit millimetres, frames.csv); returns the previews' paths.

    A camera with colour or mono frames previews those; a depth-only camera previews its depth
    scaled to 8 bits (near white, far black). Frames play at the camera's frame rate (from
    frames.csv's times); at most PREVIEW_MAX_FRAMES frames, evenly chosen. Consecutive identical
    frames become one longer frame, and a camera whose frames are all the same gets a still PNG.
    Uses Pillow.
    """
    from pathlib import Path

    from PIL import Image

    written = []
    cams = Path(out_dir) / "cameras"
    if not cams.is_dir():
        return written
    for d in sorted(p for p in cams.iterdir() if p.is_dir()):
        frames = sorted(d.glob("frame_*.png"))
        depth = not frames
        if depth:
            frames = sorted(d.glob("depth_*.png"))
        if not frames:
            continue
        if len(frames) > PREVIEW_MAX_FRAMES:
            idx = np.linspace(0, len(frames) - 1, PREVIEW_MAX_FRAMES).round().astype(int)
            frames = [frames[i] for i in idx]
        images = []
        for f in frames:
            with Image.open(f) as im:
                if depth:
                    mm = np.asarray(im, dtype=np.float64)
                    top = max(mm.max(), 1.0)
                    images.append(Image.fromarray((255 * (1 - mm / top)).astype(np.uint8)))
                else:
                    images.append(im.copy())
        times = _frame_times(d / "frames.csv")
        period = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 0.1
        step = max(1, round(len(times) / len(frames))) if times else 1
        duration = max(10, int(round(1000 * period * step)))
        path = d / "preview.png"
        images[0].save(path, save_all=True, append_images=images[1:], duration=duration,
                       loop=0)
        written.append(path)
    return written


def _frame_times(csv_path) -> list:
    import csv

    try:
        with open(csv_path) as f:
            return [float(r["time"]) for r in csv.DictReader(f)]
    except (OSError, KeyError, ValueError):
        return []
