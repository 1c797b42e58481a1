"""Stills of a finished run: pictures framed on its characters at moments chosen from its log.

``choose_moments`` picks the records to show: the start, the end, and up to
``MOTION_MOMENTS`` moments of largest motion (the summed speed of the characters' link
origins), each at least ``MIN_GAP`` of the run's length away from the others.
``write_stills`` renders them with ``hrpsim-stills`` (sensors/render/hrpsim_stills.c: the same
renderer as the cameras, no servers needed) into ``<results>/stills/`` and returns what the
summary lists: per still its file, time, why it was chosen and the view it was taken from.

Each still frames the characters (the models with joints; when there are none, those that move;
when none moves, every model) at that moment: the eye looks at the centre of their bounding box
from the front-right (``AZIMUTH``) and a little above (``ELEVATION``), as close as it can while
the whole box stays inside the middle ``FILL`` of the picture, so the robot is most of the
picture's height and the ground under it shows.
"""

import json
import math
import subprocess
from pathlib import Path

import numpy as np

WIDTH, HEIGHT = 640, 480
AZIMUTH = -math.pi / 4      # the eye on the +x, -y side: front-right of a robot facing +x
ELEVATION = 0.34            # [rad] about 20 degrees above the horizontal
FOV = 0.8                   # [rad] horizontal field of view
FILL = 0.85                 # the framed box stays inside the middle 85% of the picture
MOTION_MOMENTS = 2
MIN_GAP = 0.15              # of the run's duration, between two chosen moments
MIN_SPEED = 1e-3            # [m/s] summed link speed below which nothing is said to move
TIMEOUT_S = 120.0


class StillsError(Exception):
    """The stills could not be made; the text says why."""


def focus_characters(characters, link_p):
    """The names to frame: ``characters`` is [(name, joint names)], ``link_p`` name -> (N,
    links, 3) link origins. Models with joints, else those that move, else every model."""
    names = [n for n, joints in characters if any(joints)]
    if not names:
        names = [n for n, _ in characters if n in link_p and len(link_p[n])
                 and np.ptp(np.nan_to_num(link_p[n]), axis=0).max() > 1e-6]
    return names or [n for n, _ in characters]


def motion(time, link_p, names):
    """Per record i: the summed speed [m/s] of every link origin of ``names`` between records
    i - 1 and i (0 for the first record)."""
    t = np.asarray(time, dtype=float)
    speed = np.zeros(len(t))
    if len(t) < 2:
        return speed
    dt = np.diff(t)
    dt[dt <= 0] = np.inf
    for n in names:
        p = np.asarray(link_p[n], dtype=float)
        if p.ndim != 3 or len(p) != len(t):
            continue
        step = np.linalg.norm(np.diff(p, axis=0), axis=2).sum(axis=1)
        speed[1:] += np.nan_to_num(step) / dt
    return speed


def choose_moments(time, speed, count=MOTION_MOMENTS, min_gap=MIN_GAP):
    """[(record index, why)] in time order: "start", "end" and up to ``count`` moments of
    largest motion ("largest motion, links' summed speed N m/s": the sum over every link, not
    one link's speed), each at least ``min_gap`` of the duration from every other chosen
    moment."""
    n = len(time)
    if n == 0:
        return []
    chosen = [(0, "start")]
    if n > 1:
        chosen.append((n - 1, "end"))
    span = float(time[-1] - time[0]) if n > 1 else 0.0
    gap = min_gap * span
    for i in np.argsort(-np.asarray(speed), kind="stable"):
        if sum(1 for _, w in chosen if w.startswith("largest")) >= count:
            break
        if speed[i] < MIN_SPEED:
            break
        if all(abs(time[i] - time[j]) >= gap for j, _ in chosen):
            chosen.append((int(i), "largest motion, links' summed speed %.2f m/s" % speed[i]))
    return sorted(chosen)


def _pose_lines(body, n, link_p, link_R):
    lines = ["pose %d %d" % (body, n)]
    for p, R in zip(link_p, link_R):
        lines.append(" ".join("%.9g" % v for v in list(p) + list(R)))
    return lines


def write_stills(out_dir, models, collector, bin_dir=None):
    """Render the stills of a run into ``out_dir/stills/``. ``models``: the project's models
    (name, url) in the order the collector registered them; ``collector``: the run's
    ``results.LogCollector`` or ``run_local.LocalLog`` (its link poses). Returns [{"file",
    "time", "why", "view"}]. Raises StillsError (no hrpsim-stills, the renderer failed)."""
    from . import launcher

    time = collector.time
    names = focus_characters(collector.characters, collector.link_p)
    moments = choose_moments(time, motion(time, collector.link_p, names))
    if not moments:
        return []
    exe = Path(bin_dir or launcher.paths.default_bin_dir()) / "hrpsim-stills"
    if not exe.exists():
        raise StillsError("no %s (build it)" % exe)
    out = Path(out_dir) / "stills"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("still_*.png"):  # an earlier run's, in a results directory reused
        old.unlink()
    order = [m.name for m in models]
    job = ["size %d %d" % (WIDTH, HEIGHT), "view %r %r %r" % (AZIMUTH, ELEVATION, FOV),
           "fill %r" % FILL]
    job += ["model %s" % m.url for m in models]
    job.append("focus " + " ".join(str(order.index(n)) for n in names))
    files = []
    for k, (i, why) in enumerate(moments):
        name = "still_%d_t%.3f.png" % (k, time[i])
        files.append((name, i, why))
        job.append("still %s" % (out / name))
        for b, m in enumerate(models):
            ps, Rs = collector.link_p[m.name][i], collector.link_R[m.name][i]
            if len(ps) and len(ps) == len(Rs):
                job += _pose_lines(b, len(ps), ps, Rs)
        job.append("end")
    try:
        proc = subprocess.run([str(exe)], input="\n".join(job) + "\n", capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StillsError("%s: %s" % (exe.name, exc)) from exc
    if proc.returncode != 0:
        raise StillsError((proc.stderr.strip().splitlines() or ["exit status %d"
                                                                 % proc.returncode])[-1])
    try:
        views = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    except ValueError as exc:  # a diverged run's poses (nan) make no view
        raise StillsError("%s printed an unreadable view: %s" % (exe.name, exc)) from exc
    stills = []
    for (name, i, why), view in zip(files, views):
        stills.append({"file": "stills/" + name, "time": float(time[i]), "why": why,
                       "view": view})
    return stills



def take_stills(out_dir, models, collector, bin_dir=None, warn=None):
    """``write_stills``, with a failure given to ``warn(text)`` (the run still succeeds) and
    no stills: the list for the summary."""
    try:
        return write_stills(out_dir, models, collector, bin_dir)
    except StillsError as exc:
        if warn:
            warn("no stills: %s" % exc)
        return []
