"""The results directory of a run: log.npz, summary.json, summary.txt and PNG plots.

``LogCollector`` turns the Scheduler's ``LogRecord``s (fetched with ``getLog`` while the run
goes on) into NumPy arrays; ``write_results`` writes the directory:

    log.npz        np.load(path): "time" (N,); per character C with joints
                   "C.root_p" (N, 3) [m], "C.root_R" (N, 3, 3) row-major, "C.link_p"
                   (N, links, 3), "C.q", "C.dq", "C.u" (N, joints, jointId order),
                   "C.joint_names" (joints,) ("" for a jointId gap); when sensors are logged
                   "C.force" (N, n, 6),
                   "C.rate_gyro" (N, n, 3), "C.accel" (N, n, 3), and per range sensor k
                   (sensorId order) "C.range<k>" (N, beams) [m, 0 = no hit]; static
                   characters (no joints, e.g. the floor) have only root_p and root_R (and
                   their range scans); per closed loop "C.loop.NAME" (N, 6): force [N] on
                   link2 and moment [N m] about its point, world frame (C: the loop's first
                   character); per crawler link "C.track.LINK" (N,): its track speed [m/s];
                   per character with joints "C.joint_stop" (N, joints): the axial torque
                   [N m] (force [N]) of each joint's constraint: a torque-mode joint's stop
                   reaction when joint limits are on, a high-gain joint's servo torque;
                   per character "C.root_rpy" (N, 3) [rad]: roll, pitch, yaw of root_R
                   (R = Rz(yaw) Ry(pitch) Rx(roll), world frame; yaw unwrapped, so a heading
                   that passes +-pi keeps growing); the contacts of each record's last step:
                   "contacts.count" (N,) points per record, "contacts.pairs" (P, 4) the link
                   pairs in contact (char1, link1, char2, link2), and per point (M = sum of
                   the counts, record after record) "contacts.pair" (M,) its row of pairs,
                   "contacts.point" (M, 3) [m], "contacts.normal" (M, 3) (from link1 into
                   link2, OpenHRP's), "contacts.depth" (M,) [m], "contacts.force" (M, 3) [N]
                   on link1 (world frame); "contacts.pair_force" (N, P, 3) [N]: the sum of
                   each pair's point forces on its link1 per record; per link pushed in
                   the live viewer (Scheduler.push) "C.push.LINK" (N, 6): the force [N] and
                   the torque [N m] about the link origin (world frame) held during the step
                   before each record, zeros where there was none (absent for runs without
                   a push)
    .hrpsim-results marks the directory as results (a new run into it replaces them)
    summary.json   project, format, backend ("server", or "local" for `hrpsim run --local`:
                   then no scheduler, naming or servers), models, controllers (each with how
                   its process ended and "failed": whether it stopped the run),
                   steps, simulated and wall time, real-time factor, records, warnings,
                   plots, status (and the Scheduler's own status), cameras (whether frames
                   were stored), camera_previews, stills (file, time, why, view: stills.py)
    summary.txt    the same, short, for people
    root.png       per character with joints: root height vs time, x-y path and heading
                   (root yaw) vs time
    joints.png     per character with joints: angles vs time of the joints that move (the
                   title says how many stay put and are left out); mirrored joints (left /
                   right) share a colour, the left one dashed, a curve that lies on an
                   earlier one is dotted, and each curve has its own marker; legend outside
    loops.png      when the run has closed loops or crawler tracks: each loop's force
                   magnitude and each track's speed vs time
    models.json.gz the body description of every model (viewer/scene.py), so that
                   `hrpsim view` replays the run with nothing else
"""

import json
import re
from pathlib import Path

import numpy as np

from .core_facts import log_array_name, state_blocks


class LogCollector:
    """Accumulates LogRecords. ``characters``: registration order of (name, joint names)."""

    def __init__(self, characters):
        self.characters = list(characters)
        self.time = []
        self.root_p = {n: [] for n, _ in self.characters}
        self.root_R = {n: [] for n, _ in self.characters}
        self.link_p = {n: [] for n, _ in self.characters}
        self.link_R = {n: [] for n, _ in self.characters}  # kept for stills, not in log.npz
        self.sensor = {n: {k: [] for k in ("q", "dq", "u") + tuple(b[0] for b in state_blocks())}
                       for n, _ in self.characters}
        self.has_sensors = False
        self.stops = {n: [] for n, _ in self.characters}
        self.loops = {}   # "C.loop.NAME" -> rows
        self.tracks = {}  # "C.track.LINK" -> values
        self.contact_pairs = {}  # (char1, link1, char2, link2) -> row
        self.contact_count = []  # points per record
        self.contact_rows = []   # per point: pair row, point (3), normal (3), depth, force (3)
        self.pushes = {}  # "C.push.LINK" -> {record index: wrench (6)}

    def __len__(self):
        return len(self.time)

    def add(self, records):
        for rec in records:
            ws = rec.world
            self.time.append(ws.time)
            by_name = {cp.characterName: cp for cp in ws.characterPositions}
            for name, _ in self.characters:
                cp = by_name.get(name)
                lps = cp.linkPositions if cp is not None else []
                if lps:
                    self.root_p[name].append(list(lps[0].p))
                    self.root_R[name].append(list(lps[0].R))
                    self.link_p[name].append([list(lp.p) for lp in lps])
                    self.link_R[name].append([list(lp.R) for lp in lps])
                else:
                    self.root_p[name].append([np.nan] * 3)
                    self.root_R[name].append([np.nan] * 9)
                    self.link_p[name].append([])
                    self.link_R[name].append([])
            for lf in getattr(rec, "loops", None) or []:
                self.loops.setdefault("%s.loop.%s" % (lf.character, lf.name), []).append(
                    list(lf.force))
            for (name, _), js in zip(self.characters, getattr(rec, "jointStops", None) or []):
                self.stops[name].append(list(js))
            for ts in getattr(rec, "tracks", None) or []:
                self.tracks.setdefault("%s.track.%s" % (ts.character, ts.link), []).append(
                    ts.speed)
            self._add_contacts(ws, getattr(rec, "contactForces", None) or [])
            for pr in getattr(rec, "pushes", None) or []:
                self.pushes.setdefault("%s.push.%s" % (pr.character, pr.link), {})[
                    len(self.time) - 1] = list(pr.force)
            if len(rec.sensors):
                self.has_sensors = True
            for (name, joints), ss in zip(self.characters, rec.sensors):
                s = self.sensor[name]
                s["q"].append(list(ss.q))
                s["dq"].append(list(ss.dq))
                s["u"].append(list(ss.u))
                for key, field, _ in state_blocks():
                    s[key].append([list(x) for x in getattr(ss, field)])

    def _add_contacts(self, ws, forces):
        count = 0
        for col in getattr(ws, "collisions", None) or []:
            pr = col.pair
            row = self.contact_pairs.setdefault(
                (pr.charName1, pr.linkName1, pr.charName2, pr.linkName2), len(self.contact_pairs))
            for pt in col.points:
                f = list(forces[3 * count:3 * count + 3])
                self.contact_rows.append([row] + list(pt.position) + list(pt.normal)
                                         + [pt.idepth] + (f if len(f) == 3 else [np.nan] * 3))
                count += 1
        self.contact_count.append(count)

    def contact_arrays(self):
        """The ``contacts.*`` arrays of the log (see the module text)."""
        return contact_arrays(len(self.time), self.contact_pairs, self.contact_count,
                              self.contact_rows)

    def arrays(self):
        """The log as a dict of NumPy arrays (the contents of log.npz)."""
        n = len(self.time)
        ranges = {}
        for name, _ in self.characters:
            scans = self.sensor[name]["range"]
            ranges[name] = [[rec[k] for rec in scans] for k in range(len(scans[0]))] \
                if len(scans) == n and n else []
        out = log_arrays(self.characters, self.time, self.root_p, self.root_R, self.link_p,
                         self.sensor, ranges, self.stops, self.loops, self.tracks,
                         (self.contact_pairs, self.contact_count, self.contact_rows))
        # the live viewer's pushes (Scheduler.push: the server path only), after the rest
        for key, rows in self.pushes.items():
            arr = np.zeros((n, 6))
            for i, w in rows.items():
                arr[i] = w
            out[key] = arr
        return out


def contact_arrays(n, pairs, count, rows):
    """The ``contacts.*`` arrays of ``n`` records: ``pairs`` (char1, link1, char2, link2) ->
    row, ``count`` points per record, ``rows`` per point: pair row, point (3), normal (3),
    depth, force (3) (a list of rows or an (M, 11) array)."""
    rows = np.asarray(rows, dtype=float).reshape(-1, 11)
    names = sorted(pairs, key=pairs.get)
    out = {"contacts.count": np.asarray(count, dtype=np.int32).reshape(n),
           "contacts.pairs": np.asarray(names, dtype=str).reshape(-1, 4),
           "contacts.pair": rows[:, 0].astype(np.int32),
           "contacts.point": rows[:, 1:4], "contacts.normal": rows[:, 4:7],
           "contacts.depth": rows[:, 7], "contacts.force": rows[:, 8:11]}
    record = np.repeat(np.arange(n), out["contacts.count"])
    total = np.zeros((n, len(names), 3))
    np.add.at(total, (record, out["contacts.pair"]), rows[:, 8:11])
    out["contacts.pair_force"] = total
    return out


def log_arrays(characters, time, root_p, root_R, link_p, sensor, ranges, stops, loops, tracks,
               contacts):
    """The contents of log.npz (see the module text), from per-record series given as lists or
    arrays, whichever collector made them (the Scheduler's records, LogCollector; the core's
    views, run_local.LocalLog): ``characters`` [(name, joint names)]; per name ``root_p``
    (N, 3), ``root_R`` (N, 9), ``link_p`` (N, links, 3), ``sensor`` {q, dq, u (N, joints),
    and per key of core_facts.state_blocks: force (N, n, 6), gyro, accel (N, n, 3)} (a series
    not of N records is left out),
    ``ranges`` [per range sensor: its N scans], ``stops`` (N, joints); ``loops`` key -> (N, 6),
    ``tracks`` key -> (N,); ``contacts`` (pairs, count, rows) as ``contact_arrays`` takes
    them. The keys come in one order, so both collectors write the same file."""
    n = len(time)
    out = {"time": np.asarray(time, dtype=float)}
    for name, joints in characters:
        out[name + ".root_p"] = np.asarray(root_p[name], dtype=float).reshape(n, 3)
        out[name + ".root_R"] = np.asarray(root_R[name], dtype=float).reshape(n, 3, 3)
        out[name + ".root_rpy"] = root_rpy(out[name + ".root_R"])
        # range scans, also of characters without joints (a fixed scanner)
        for k, beams in enumerate(ranges.get(name, [])):
            if len(beams[0]) and all(len(x) == len(beams[0]) for x in beams):
                out["%s.range%d" % (name, k)] = np.asarray(beams, dtype=float)
        if not joints:
            continue
        out[name + ".link_p"] = np.asarray(link_p[name], dtype=float).reshape(n, -1, 3)
        out[name + ".joint_names"] = np.asarray(joints, dtype=str)
        s = sensor[name]
        for key in ("q", "dq", "u"):
            if len(s[key]) == n:
                out[name + "." + key] = np.asarray(s[key], dtype=float).reshape(n, -1)
        for key, _, width in state_blocks():
            if width > 0 and len(s[key]) == n and n and len(s[key][0]):
                out[name + "." + log_array_name(key)] = np.asarray(
                    s[key], dtype=float).reshape(n, -1, width)
    for name, joints in characters:
        rows = stops[name]
        if joints and len(rows) == n and n and len(rows[0]) == len(joints):
            out[name + ".joint_stop"] = np.asarray(rows, dtype=float).reshape(n, -1)
    for key, rows in loops.items():
        if len(rows) == n:
            out[key] = np.asarray(rows, dtype=float).reshape(n, 6)
    for key, vals in tracks.items():
        if len(vals) == n:
            out[key] = np.asarray(vals, dtype=float)
    pairs, count, rows = contacts
    if len(count) == n:
        out.update(contact_arrays(n, pairs, count, rows))
    return out


def root_rpy(R):
    """Roll, pitch, yaw [rad] (N, 3) of rotation matrices R (N, 3, 3): R = Rz(yaw) Ry(pitch)
    Rx(roll); the yaw is unwrapped along N (NaN rows stay NaN)."""
    R = np.asarray(R, dtype=float).reshape(-1, 3, 3)
    roll = np.arctan2(R[:, 2, 1], R[:, 2, 2])
    pitch = np.arcsin(np.clip(-R[:, 2, 0], -1.0, 1.0))
    yaw = np.arctan2(R[:, 1, 0], R[:, 0, 0])
    ok = np.isfinite(yaw)
    yaw[ok] = np.unwrap(yaw[ok])
    return np.stack([roll, pitch, yaw], axis=1)


def run_summary(project, *, backend, status, message, steps, simulated_time, wall_time,
                real_time_factor, records, controllers, scheduler_status=None,
                scheduler_message=None, naming=None, servers_started=False, engine=None):
    """The summary.json record of a run of ``project``, one schema for both back ends
    (``backend`` "server" or "local"; a local run has no Scheduler, naming service or
    servers: those fields are null / false). ``controllers``: ``controller_entries``. The
    caller adds cameras, camera_previews and stills; write_results adds plots. ``engine``:
    the one the run stepped (the Scheduler's answer on the server path), else the project's,
    else the core's default where hrpsim chose the servers (a local run, or servers `hrpsim
    run` started), else null (a Scheduler that could not say)."""
    from .solver import default_engine
    engine = engine or project.engine or (default_engine() if backend == "local" or
                                          servers_started else None)
    return {
        "project": str(Path(project.path).resolve()),
        "format": project.format,
        "backend": backend,
        "status": status,
        "message": message,
        "scheduler_status": scheduler_status,
        "scheduler_message": scheduler_message,
        "models": [{"name": m.name, "url": m.url} for m in project.models],
        "controllers": controllers,
        "engine": engine,
        "time_step": project.time_step,
        "end_time": project.end_time,
        "steps": int(steps),
        "simulated_time": float(simulated_time),
        "wall_time": float(wall_time),
        "real_time_factor": float(real_time_factor),
        "records": int(records),
        "log_period": project.log_period or project.time_step,
        "warnings": list(project.warnings),
        "naming": naming,
        "servers_started": servers_started,
    }


def controller_entries(project, blamed=None, processes=None):
    """summary.json's controllers of ``project``: name, character, period, command, python,
    failed (the one named ``blamed`` stopped the run), process (``processes``: name -> how
    its process ended, for those `hrpsim run` started; None for the others)."""
    processes = processes or {}
    return [{"name": c.name, "character": c.character,
             "period": c.period or project.time_step,
             "command": c.command, "python": getattr(c, "python", None),
             "failed": c.name == blamed,
             "process": processes.get(c.name)} for c in project.controllers]


def write_results(out_dir, arrays, summary, plots=True, plot_joints=None, models=None,
                  plot_root=True):
    """Write log.npz, summary.json, summary.txt, (with ``plots``) the PNG plots (root.png only
    with ``plot_root``, a project's ``<plots root>``) and (with
    ``models``, a list of {name, url, body description}) models.json.gz into ``out_dir``
    (created). Returns the list of files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "log.npz", **arrays)
    written = [out / "log.npz"]
    if models is not None:
        from .viewer.replay import write_models
        written.append(write_models(out, models))
    if plots:
        summary["plots"] = [p.name for p in _plots(out, arrays, plot_joints, plot_root)]
        written += [out / p for p in summary["plots"]]
    else:
        summary["plots"] = []
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "summary.txt").write_text(format_summary(summary) + "\n")
    return written + [out / "summary.json", out / "summary.txt"]


def format_summary(s):
    """A short human-readable text of a summary dict."""
    lines = [
        "project     %s (%s)%s" % (s["project"], s["format"],
                                 ", in process" if s.get("backend") == "local" else ""),
        "models      %s" % ", ".join("%s (%s)" % (m["name"], m["url"]) for m in s["models"]),
        "status      %s%s" % (s["status"], ": " + s["message"] if s.get("message") else ""),
        "engine      %s" % (s.get("engine") or "the servers' default"),
        "steps       %d of %g s" % (s["steps"], s["time_step"]),
        "simulated   %.3f s" % s["simulated_time"],
        "wall time   %.3f s" % s["wall_time"],
        "real time   x %.2f" % s["real_time_factor"],
        "records     %d" % s["records"],
    ]
    if s.get("scheduler_status") and s["scheduler_status"] != s["status"]:
        lines.insert(3, "scheduler   %s%s" % (s["scheduler_status"],
                                              ": " + s["scheduler_message"]
                                              if s.get("scheduler_message") else ""))
    for c in s.get("controllers", []):
        proc = c.get("process")
        ok = not c.get("failed") and (not proc or proc["ok"])
        lines.append("controller  %s (%s, every %g s): %s%s"
                     % (c["name"], c["character"], c["period"],
                        "FAILED, " if not ok else "ok, " if proc else "",
                        proc["result"] if proc
                        else "in process" if s.get("backend") == "local"
                        else "not started by hrpsim run"))
    lines += [
        "plots       %s" % (", ".join(s.get("plots", [])) or "none"),
    ]
    lines += _picture_lines(s)
    if s.get("warnings"):
        lines.append("warnings    %d" % len(s["warnings"]))
        lines += ["  " + w for w in s["warnings"]]
    else:
        lines.append("warnings    none")
    return "\n".join(lines)


def _picture_lines(s):
    # the stills (file, time, why) and whether camera frames were stored
    lines = []
    stills = s.get("stills") or []
    lines.append("stills      %s" % ("none" if not stills else "%d in stills/" % len(stills)))
    lines += ["  %-28s t = %7.3f s  %s" % (st["file"], st["time"], st["why"]) for st in stills]
    if "cameras" in s:
        previews = s.get("camera_previews") or []
        lines.append("cameras     %s" % (
            ("frames in cameras/, previews: " + ", ".join(previews)) if s["cameras"] and previews
            else "on (no vision sensors)" if s["cameras"]
            else 'off (render them with --cameras or <cameras enabled="true"/>)'))
    return lines


def _characters_with_joints(arrays):
    return [k[:-len(".q")] for k in arrays if k.endswith(".q")]


def _plots(out, arrays, plot_joints, plot_root=True):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = arrays["time"]
    chars = _characters_with_joints(arrays)
    if not chars:  # no joint data: plot every character that moves
        chars = [k[:-len(".root_p")] for k in arrays if k.endswith(".root_p")
                 and np.ptp(np.nan_to_num(arrays[k]), axis=0).max() > 0]
    written = []
    if not chars or len(t) == 0:
        return written

    # root trajectory: height vs time, the x-y path and the heading (unless <plots root="false">)
    if plot_root:
        fig = root_figure(arrays, chars)
        fig.savefig(out / "root.png", dpi=90)
        plt.close(fig)
        written.append(out / "root.png")

    # joint angles vs time
    chars_q = [c for c in chars if c + ".q" in arrays and arrays[c + ".q"].shape[1]]
    if chars_q:
        fig = joints_figure(arrays, chars_q, plot_joints)
        fig.savefig(out / "joints.png", dpi=90)
        plt.close(fig)
        written.append(out / "joints.png")

    # closed loops' forces and tracks' speeds vs time
    fig = loops_figure(arrays)
    if fig is not None:
        fig.savefig(out / "loops.png", dpi=90)
        plt.close(fig)
        written.append(out / "loops.png")
    return written


# the smallest span an axis of root.png shows, so that numerical noise (a standing robot's root
# moves by 1e-6 m) draws as the flat line it is, not as motion magnified to fill the axis
ROOT_MIN_SPAN = 0.01     # [m] height and x-y path; [rad] heading


def plain_axis(ax, min_span=None, axis="y"):
    """Write the tick labels of ``ax``'s ``axis`` ("x", "y" or "both") as plain numbers (no
    offset such as "1e-6+8.0803e-1", no scientific notation) and, with ``min_span``, widen the
    axis' limits about the data's middle to span at least that much."""
    ax.ticklabel_format(axis=axis, style="plain", useOffset=False)
    if min_span is None:
        return
    for a in ("x", "y") if axis == "both" else (axis,):
        lo, hi = ax.get_xlim() if a == "x" else ax.get_ylim()
        if hi - lo < min_span:
            mid = 0.5 * (lo + hi)
            lim = (mid - 0.5 * min_span, mid + 0.5 * min_span)
            ax.set_xlim(*lim) if a == "x" else ax.set_ylim(*lim)


def loops_figure(arrays):
    """The figure of loops.png: each closed loop's force magnitude and each crawler track's
    speed vs time (a panel each, legends right of the axes); None when the log has neither."""
    import matplotlib.pyplot as plt
    t = arrays["time"]
    loops = sorted(k for k in arrays if ".loop." in k)
    tracks = sorted(k for k in arrays if ".track." in k)
    panels = [p for p in (loops, tracks) if p]
    if not panels:
        return None
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 3.8 * len(panels)), squeeze=False)
    for ax, keys in zip(axes[:, 0], panels):
        for k in keys:
            v = arrays[k]
            ax.plot(t, np.linalg.norm(v[:, :3], axis=1) if v.ndim == 2 else v, label=k)
        loop = keys is loops
        ax.set_xlabel("time [s]")
        ax.set_ylabel("loop force |F| [N]" if loop else "track speed [m/s]")
        ax.set_title("closed loops: force on link2" if loop else "crawler track speeds")
        ax.grid(True)
        plain_axis(ax)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return fig


def _square_limits(ax, x, y, min_span):
    # x and y on one scale (a path drawn true to shape) over the larger of their spans, at
    # least min_span, with a 5 % margin
    x, y = np.nan_to_num(x), np.nan_to_num(y)
    half = 0.55 * max(np.ptp(x) if len(x) else 0.0, np.ptp(y) if len(y) else 0.0, min_span)
    mx = 0.5 * (x.min() + x.max()) if len(x) else 0.0
    my = 0.5 * (y.min() + y.max()) if len(y) else 0.0
    ax.set_xlim(mx - half, mx + half)
    ax.set_ylim(my - half, my + half)
    ax.set_aspect("equal", adjustable="box")


def root_figure(arrays, chars):
    """The figure of root.png: per character a row of root height, x-y path and heading (root
    yaw, unwrapped) vs time. Axes show plain numbers and span at least ``ROOT_MIN_SPAN``."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    t = arrays["time"]
    fig, axes = plt.subplots(len(chars), 3, figsize=(15, 3.6 * len(chars)), squeeze=False)
    for row, c in zip(axes, chars):
        p = arrays[c + ".root_p"]
        rpy = arrays.get(c + ".root_rpy")
        if rpy is None:  # a log from before root_rpy was written
            rpy = root_rpy(arrays[c + ".root_R"])
        row[0].plot(t, p[:, 2])
        row[0].set_xlabel("time [s]")
        row[0].set_ylabel("root z [m]")
        row[0].set_title("%s: root height" % c)
        plain_axis(row[0], ROOT_MIN_SPAN)
        row[1].plot(p[:, 0], p[:, 1])
        row[1].plot(p[:1, 0], p[:1, 1], "o")
        row[1].set_xlabel("x [m]")
        row[1].set_ylabel("y [m]")
        row[1].set_title("%s: root x-y path (o: start)" % c)
        _square_limits(row[1], p[:, 0], p[:, 1], ROOT_MIN_SPAN)
        plain_axis(row[1], axis="both")
        row[1].xaxis.set_major_locator(MaxNLocator(4, steps=[1, 2, 5, 10]))
        row[2].plot(t, rpy[:, 2])
        row[2].set_xlabel("time [s]")
        row[2].set_ylabel("heading (root yaw) [rad]")
        row[2].set_title("%s: heading" % c)
        plain_axis(row[2], ROOT_MIN_SPAN)
        for ax in row:
            ax.grid(True)
    fig.tight_layout()
    return fig


# side tokens of mirrored joint names: RLEG_KNEE / LLEG_KNEE, r_knee / l_knee, left_hip /
# right_hip, knee_L / knee_R
_SIDES = (re.compile(r"^([RL])(?=[A-Z_])"), re.compile(r"^([rl])_"),
          re.compile(r"(?i)(left|right)"), re.compile(r"_([RLrl])(?=_|$)"))


def mirror_key(name):
    """(name with its side token replaced by '*', 'L' or 'R') for a joint name with a left /
    right token, else (name, None)."""
    for rx in _SIDES:
        m = rx.search(name)
        if m:
            side = "L" if m.group(1)[0] in "lL" else "R"
            return name[:m.start(1)] + "*" + name[m.end(1):], side
    return name, None


def curve_styles(names, curves):
    """Colour index and line style per curve so that none hides another: a mirrored pair
    (both sides present) shares a colour, its left curve dashed over the solid right one; any
    other curve that lies on an earlier one (within 2 % of the data range, what a reader cannot
    tell apart) is dotted. joints_figure adds a marker of its own to every curve."""
    keys = [mirror_key(n) for n in names]
    sides = {}
    for key, side in keys:
        if side:
            sides.setdefault(key, set()).add(side)
    colour_of, styles = {}, []
    span = max((np.ptp(c) for c in curves), default=0.0) or 1.0
    for i, (key, side) in enumerate(keys):
        paired = side is not None and len(sides[key]) == 2
        ck = key if paired else ("#", i)
        if ck not in colour_of:
            colour_of[ck] = len(colour_of)
        colour = colour_of[ck]
        style = "--" if paired and side == "L" else "-"
        if style == "-" and any(np.allclose(curves[i], curves[j], rtol=0, atol=0.02 * span)
                                for j in range(i)):
            style = ":"
        styles.append((colour, style))
    return styles


MARKERS = ("o", "s", "^", "v", "D", "x", "+", "<", ">", "p", "*", "h")


JOINT_STILL = 1e-3  # [rad or m] a joint whose value spans less than this stays put


def joints_figure(arrays, chars_q, plot_joints=None):
    """The figure of joints.png: per character its joint angles vs time (the ``plot_joints``
    names, or the joints that move: whose values span ``JOINT_STILL`` or more; the title says
    how many were left out), styled by ``curve_styles``; the legend outside the axes, to the
    right; the title's notes on line styles only where such curves are drawn."""
    import matplotlib
    import matplotlib.pyplot as plt
    t = arrays["time"]
    cycle = matplotlib.colormaps["tab10"].colors
    fig, axes = plt.subplots(len(chars_q), 1, figsize=(11, 4.5 * len(chars_q)), squeeze=False)
    for ax, c in zip(axes[:, 0], chars_q):
        q = arrays[c + ".q"]
        names = [str(n) for n in arrays.get(c + ".joint_names", [])]
        if len(names) != q.shape[1]:
            names = ["joint %d" % i for i in range(q.shape[1])]
        wanted = plot_joints or names
        shown = [i for i, n in enumerate(names) if n and n in wanted]  # "": a jointId gap
        left_out = 0
        if plot_joints is None:  # all: leave out the joints that stay put
            moved = [i for i in shown if np.ptp(q[:, i]) >= JOINT_STILL]
            left_out = len(shown) - len(moved)
            shown = moved
        styles = curve_styles([names[i] for i in shown], [q[:, i] for i in shown])
        # markers, a dozen per curve, staggered along time so that curves lying on each other
        # still show each of theirs
        every = max(1, len(t) // 12)
        for k, (i, (colour, style)) in enumerate(zip(shown, styles)):
            # past ten colours the cycle repeats with dash-dot lines
            ls = style if colour < len(cycle) or style != "-" else "-."
            ax.plot(t, q[:, i], label=names[i], color=cycle[colour % len(cycle)],
                    linestyle=ls, linewidth=1.2 if style == "-" else 1.6,
                    marker=MARKERS[k % len(MARKERS)], markersize=4, fillstyle="none",
                    markevery=(k * every // max(1, len(shown)), every))
        ax.set_xlabel("time [s]")
        ax.set_ylabel("joint angle [rad]")
        ax.set_title(_joints_title(c, len(shown), left_out, [s for _, s in styles]))
        ax.grid(True)
        plain_axis(ax)
        if not shown:
            if len(t) > 1 and t[-1] > t[0]:
                ax.set_xlim(t[0], t[-1])
            ax.set_yticklabels([])
            ax.text(0.5, 0.5, "no joint moved by %g or more" % JOINT_STILL,
                    transform=ax.transAxes, ha="center", va="center", color="0.4")
        else:
            ax.legend(fontsize=7, ncol=1 if len(shown) <= 16 else 2, handlelength=3,
                      loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return fig


def _joints_title(character, shown, left_out, styles):
    # "robot: angles of the 12 joints that move (18 that stay within 0.001 left out)" and a
    # second line of notes on line styles, only those that apply
    if left_out and not shown:
        return "%s: joint angles (none of its %d joints moves by %g or more)" % (
            character, left_out, JOINT_STILL)
    title = "%s: joint angles" % character
    if left_out:
        title = "%s: angles of the %d joint%s that move%s (%d that stay within %g left out)" % (
            character, shown, "" if shown == 1 else "s", "s" if shown == 1 else "", left_out,
            JOINT_STILL)
    notes = []
    if "--" in styles:
        notes.append("left of a mirrored pair dashed")
    if ":" in styles:
        notes.append("dotted: on an earlier curve")
    return title + ("\n" + "; ".join(notes) if notes else "")
