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
                   reaction when joint limits are on, a high-gain joint's servo torque
    .hrpsim-results marks the directory as results (a new run into it replaces them)
    summary.json   project, format, models, controllers (each with how its process ended and
                   "failed": whether the Scheduler stopped the run because of it),
                   steps, simulated and wall time, real-time factor, records, warnings,
                   plots, status (and the Scheduler's own status), cameras (whether frames
                   were stored), camera_previews, stills (file, time, why, view: stills.py)
    summary.txt    the same, short, for people
    root.png       per character with joints: root height vs time and x-y path
    joints.png     per character with joints: joint angles vs time
    loops.png      when the run has closed loops or crawler tracks: each loop's force
                   magnitude and each track's speed vs time
    models.json.gz the body description of every model (viewer/scene.py), so that
                   `hrpsim view` replays the run with nothing else
"""

import json
from pathlib import Path

import numpy as np


class LogCollector:
    """Accumulates LogRecords. ``characters``: registration order of (name, joint names)."""

    def __init__(self, characters):
        self.characters = list(characters)
        self.time = []
        self.root_p = {n: [] for n, _ in self.characters}
        self.root_R = {n: [] for n, _ in self.characters}
        self.link_p = {n: [] for n, _ in self.characters}
        self.link_R = {n: [] for n, _ in self.characters}  # kept for stills, not in log.npz
        self.sensor = {n: {k: [] for k in ("q", "dq", "u", "force", "rate_gyro", "accel",
                                           "range")}
                       for n, _ in self.characters}
        self.has_sensors = False
        self.stops = {n: [] for n, _ in self.characters}
        self.loops = {}   # "C.loop.NAME" -> rows
        self.tracks = {}  # "C.track.LINK" -> values

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
            if len(rec.sensors):
                self.has_sensors = True
            for (name, joints), ss in zip(self.characters, rec.sensors):
                s = self.sensor[name]
                s["q"].append(list(ss.q))
                s["dq"].append(list(ss.dq))
                s["u"].append(list(ss.u))
                s["force"].append([list(f) for f in ss.force])
                s["rate_gyro"].append([list(g) for g in ss.rateGyro])
                s["accel"].append([list(a) for a in ss.accel])
                s["range"].append([list(r) for r in ss.range])

    def arrays(self):
        """The log as a dict of NumPy arrays (the contents of log.npz)."""
        n = len(self.time)
        out = {"time": np.asarray(self.time, dtype=float)}
        for name, joints in self.characters:
            out[name + ".root_p"] = np.asarray(self.root_p[name], dtype=float).reshape(n, 3)
            out[name + ".root_R"] = np.asarray(self.root_R[name], dtype=float).reshape(n, 3, 3)
            # range scans, also of characters without joints (a fixed scanner)
            scans = self.sensor[name]["range"]
            if len(scans) == n and n:
                for k in range(len(scans[0])):
                    beams = [rec[k] for rec in scans]
                    if beams[0] and all(len(x) == len(beams[0]) for x in beams):
                        out["%s.range%d" % (name, k)] = np.asarray(beams, dtype=float)
            if not joints:
                continue
            out[name + ".link_p"] = np.asarray(self.link_p[name], dtype=float).reshape(n, -1, 3)
            out[name + ".joint_names"] = np.asarray(joints, dtype=str)
            s = self.sensor[name]
            for key in ("q", "dq", "u"):
                if len(s[key]) == n:
                    out[name + "." + key] = np.asarray(s[key], dtype=float).reshape(n, -1)
            for key, width in (("force", 6), ("rate_gyro", 3), ("accel", 3)):
                if len(s[key]) == n and s[key] and s[key][0]:
                    out[name + "." + key] = np.asarray(s[key], dtype=float).reshape(n, -1, width)
        for name, joints in self.characters:
            rows = self.stops[name]
            if joints and len(rows) == n and rows and len(rows[0]) == len(joints):
                out[name + ".joint_stop"] = np.asarray(rows, dtype=float).reshape(n, -1)
        for key, rows in self.loops.items():
            if len(rows) == n:
                out[key] = np.asarray(rows, dtype=float).reshape(n, 6)
        for key, vals in self.tracks.items():
            if len(vals) == n:
                out[key] = np.asarray(vals, dtype=float)
        return out


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
        "project     %s (%s)" % (s["project"], s["format"]),
        "models      %s" % ", ".join("%s (%s)" % (m["name"], m["url"]) for m in s["models"]),
        "status      %s%s" % (s["status"], ": " + s["message"] if s.get("message") else ""),
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
                        proc["result"] if proc else "not started by hrpsim run"))
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

    # root trajectory: height vs time, and the x-y path (unless <plots root="false">)
    if plot_root:
        fig, axes = plt.subplots(len(chars), 2, figsize=(11, 3.6 * len(chars)), squeeze=False)
        for row, c in zip(axes, chars):
            p = arrays[c + ".root_p"]
            row[0].plot(t, p[:, 2])
            row[0].set_xlabel("time [s]")
            row[0].set_ylabel("root z [m]")
            row[0].set_title("%s: root height" % c)
            row[0].grid(True)
            row[1].plot(p[:, 0], p[:, 1])
            row[1].plot(p[:1, 0], p[:1, 1], "o", label="start")
            row[1].set_xlabel("x [m]")
            row[1].set_ylabel("y [m]")
            row[1].set_title("%s: root x-y path" % c)
            row[1].axis("equal")
            row[1].legend()
            row[1].grid(True)
        fig.tight_layout()
        fig.savefig(out / "root.png", dpi=90)
        plt.close(fig)
        written.append(out / "root.png")

    # joint angles vs time
    chars_q = [c for c in chars if c + ".q" in arrays and arrays[c + ".q"].shape[1]]
    if chars_q:
        fig, axes = plt.subplots(len(chars_q), 1, figsize=(11, 4.5 * len(chars_q)),
                                 squeeze=False)
        for ax, c in zip(axes[:, 0], chars_q):
            q = arrays[c + ".q"]
            names = [str(n) for n in arrays.get(c + ".joint_names", [])]
            if len(names) != q.shape[1]:
                names = ["joint %d" % i for i in range(q.shape[1])]
            wanted = plot_joints or names
            moved = [i for i, n in enumerate(names) if n and n in wanted]  # "": a jointId gap
            if plot_joints is None:  # all: leave out the joints that stay put
                moved = [i for i in moved if np.ptp(q[:, i]) > 1e-3] or moved
            for i in moved:
                ax.plot(t, q[:, i], label=names[i])
            ax.set_xlabel("time [s]")
            ax.set_ylabel("joint angle [rad]")
            ax.set_title("%s: joint angles" % c)
            ax.grid(True)
            if len(moved) <= 16:
                ax.legend(fontsize=7, ncol=2, loc="best")
        fig.tight_layout()
        fig.savefig(out / "joints.png", dpi=90)
        plt.close(fig)
        written.append(out / "joints.png")

    # closed loops' forces and tracks' speeds vs time
    loops = sorted(k for k in arrays if ".loop." in k)
    tracks = sorted(k for k in arrays if ".track." in k)
    panels = [p for p in (loops, tracks) if p]
    if panels:
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
            ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        fig.savefig(out / "loops.png", dpi=90)
        plt.close(fig)
        written.append(out / "loops.png")
    return written
