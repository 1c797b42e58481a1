"""Every logged series can be plotted: `hrpsim run` of the sample crawler logs its contacts
(points, normals, depths, forces per link pair), its heading (root roll, pitch, yaw) and its
track speeds; root.png shows the heading, so the documented 1.55 rad turn is there; joints.png
draws mirrored joints that move alike with distinct styles.

Checks against independent references: the contact forces of a crawler driving on level
ground carry its weight (m g from the model's link masses); the heading computed here from
the logged rotation matrices by another formula (the angle of the rotated x axis); the yaw
axis of the root figure read back from the figure's own line data.
"""

import math

import numpy as np
import pytest

from conftest import REPO_ROOT, describe, run_cli
from hrpsim import results

CRAWLER = REPO_ROOT / "samples" / "projects" / "crawler.xml"
G = 9.8  # the project's gravity


@pytest.fixture(scope="module")
def crawler_run(servers, tmp_path_factory):
    """`hrpsim run` of the sample crawler: its results directory."""
    if not servers.has("Scheduler"):
        pytest.fail("hrpsim up did not start the Scheduler")
    out = tmp_path_factory.mktemp("crawler") / "results"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, CRAWLER,
                   timeout=300)
    assert proc.returncode == 0, describe(proc)
    return out


def crawler_mass(servers):
    """The crawler's mass [kg]: the sum of its links' masses as the ModelLoader serves them."""
    body = servers.client.load_body(REPO_ROOT / "samples" / "models" / "crawler" / "crawler.wrl")
    return sum(lk.mass for lk in body.links)


def test_the_log_has_the_contacts_per_link_pair(crawler_run, servers):
    log = np.load(crawler_run / "log.npz")
    n = len(log["time"])
    assert n == 1001
    counts = log["contacts.count"]
    assert counts.shape == (n,) and counts.sum() == len(log["contacts.point"])
    pairs = [tuple(p) for p in log["contacts.pairs"]]
    assert pairs == [("ground", "root", "crawler", "TRACK_L"),
                     ("ground", "root", "crawler", "TRACK_R")]
    m = counts.sum()
    for key, shape in (("pair", (m,)), ("point", (m, 3)), ("normal", (m, 3)), ("depth", (m,)),
                       ("force", (m, 3))):
        assert log["contacts." + key].shape == shape, key
    record = np.repeat(np.arange(n), counts)
    # turning on level ground (0.5 - 4.5 s): both tracks touch the floor in every record, the
    # normals point straight up (from the ground into the crawler)
    level = (log["time"] >= 0.5) & (log["time"] <= 4.5)
    assert counts[level].min() >= 2
    assert set(log["contacts.pair"][level[record]]) == {0, 1}
    assert np.allclose(log["contacts.normal"][level[record]], [0, 0, 1], atol=1e-6)
    normal = log["contacts.normal"]
    assert np.allclose(np.linalg.norm(normal, axis=1), 1.0, atol=1e-6)
    assert np.all(normal[:, 2] > 0)  # also on the step's edge and top
    assert np.all(log["contacts.depth"] >= 0)
    # on level ground the points lie under the tracks: within the crawler's footprint around
    # its root, on the floor
    on = level[record]
    root = log["crawler.root_p"][record][on]
    point = log["contacts.point"][on]
    assert np.all(np.linalg.norm(point[:, :2] - root[:, :2], axis=1) < 0.4)
    assert np.allclose(point[:, 2], 0.0, atol=1e-3)
    # the per-pair sums are the sums of the point forces
    total = np.zeros((n, len(pairs), 3))
    np.add.at(total, (record, log["contacts.pair"]), log["contacts.force"])
    assert np.allclose(log["contacts.pair_force"], total)
    # turning on level ground (no vertical motion): the force on the ground is the crawler's
    # weight, downwards
    fz = log["contacts.pair_force"][level, :, 2].sum(axis=1)
    weight = crawler_mass(servers) * G
    assert fz.mean() == pytest.approx(-weight, rel=0.03), (fz.mean(), weight)


def test_the_heading_is_logged_and_plotted(crawler_run):
    log = np.load(crawler_run / "log.npz")
    rpy = log["crawler.root_rpy"]
    R = log["crawler.root_R"]
    # the heading of the rotated x axis, an independent formula for the yaw
    x_axis = R[:, :, 0]
    heading = np.unwrap(np.arctan2(x_axis[:, 1], x_axis[:, 0]))
    assert np.allclose(rpy[:, 2], heading, atol=1e-9)
    t = log["time"]
    # the documented turn: about 1.55 rad to the left by 2.3 s, then back to about 0
    assert rpy[:, 2].max() == pytest.approx(1.55, abs=0.08)
    assert abs(rpy[t >= 4.6, 2][0]) < 0.1
    assert np.all(np.abs(rpy[t <= 4.5, :2]) < 0.1)  # it stays upright while turning
    # root.png's figure: a heading axis whose curve covers the turn
    import matplotlib
    matplotlib.use("Agg")
    fig = results.root_figure(dict(log), ["crawler"])
    yaw_axes = [ax for ax in fig.axes if "yaw" in ax.get_ylabel()]
    assert len(yaw_axes) == 1
    y = np.concatenate([ln.get_ydata() for ln in yaw_axes[0].get_lines()])
    assert y.max() - y.min() == pytest.approx(1.55, abs=0.08)
    assert yaw_axes[0].get_ylim()[1] >= y.max()
    assert (crawler_run / "root.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (crawler_run / "loops.png").is_file()


def test_mirrored_joints_are_drawn_with_distinct_styles():
    """A squat's legs: each joint moves alike on both sides, and the hip and ankle pitch
    follow the same curve (the six leg curves of the squat sample's joints.png)."""
    import matplotlib
    matplotlib.use("Agg")
    t = np.linspace(0, 5, 501)
    depth = 0.5 * (1 - np.cos(2 * np.pi * t / 5))
    names = ["RLEG_HIP_P", "RLEG_KNEE", "RLEG_ANKLE_P", "LLEG_HIP_P", "LLEG_KNEE",
             "LLEG_ANKLE_P", "WAIST_Y"]
    q = np.stack([-0.5 * depth, depth, -0.5 * depth] * 2 + [0.2 * depth], axis=1)
    arrays = {"time": t, "robot.q": q, "robot.joint_names": np.array(names)}
    fig = results.joints_figure(arrays, ["robot"])
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert set(lines) == set(names)
    style = {n: (matplotlib.colors.to_hex(ln.get_color()), ln.get_linestyle())
             for n, ln in lines.items()}
    # no two curves look the same, whether or not their data coincide
    assert len(set(style.values())) == len(names), style
    for joint in ("HIP_P", "KNEE", "ANKLE_P"):
        right, left = style["RLEG_" + joint], style["LLEG_" + joint]
        assert right[0] == left[0] and right[1] != left[1], (joint, right, left)
    # the right ankle follows the right hip exactly: its line is not plain solid either
    assert style["RLEG_ANKLE_P"][1] != "-"


@pytest.mark.parametrize("name, key", [
    ("RLEG_KNEE", ("*LEG_KNEE", "R")), ("LLEG_KNEE", ("*LEG_KNEE", "L")),
    ("r_hip_pitch", ("*_hip_pitch", "R")), ("left_wheel", ("*_wheel", "L")),
    ("knee_L", ("knee_*", "L")), ("WAIST_Y", ("WAIST_Y", None)), ("FLIPPER", ("FLIPPER", None)),
])
def test_mirror_key(name, key):
    assert results.mirror_key(name) == key


def test_root_rpy_closed_form():
    # R = Rz(yaw) Ry(pitch) Rx(roll) for known angles, yaw going past pi
    yaw = np.linspace(0, 4.0, 50)
    pitch, roll = 0.3, -0.2

    def rot(axis, a):
        c, s = math.cos(a), math.sin(a)
        i, j = [(1, 2), (2, 0), (0, 1)][axis]
        m = np.eye(3)
        m[i, i] = m[j, j] = c
        m[i, j], m[j, i] = -s, s
        return m
    R = np.stack([rot(2, y) @ rot(1, pitch) @ rot(0, roll) for y in yaw])
    rpy = results.root_rpy(R)
    assert np.allclose(rpy[:, 0], roll) and np.allclose(rpy[:, 1], pitch)
    assert np.allclose(rpy[:, 2], yaw)


def _series(src, character, key):
    import base64
    s = src.series(character, key)
    data = np.frombuffer(base64.b64decode(s["data"]), "<f4")
    return s["labels"], s["unit"], data.reshape(len(src.times), -1)


def test_the_replay_serves_every_series_and_the_contacts(crawler_run):
    from hrpsim.viewer import frames as F
    from hrpsim.viewer.replay import ReplaySource
    log = np.load(crawler_run / "log.npz")
    src = ReplaySource(crawler_run)
    src.wait(60)
    keys = src.series_keys()["crawler"]
    for key in ("q", "dq", "u", "rate_gyro", "accel", "root_p", "root_rpy", "joint_stop",
                "tracks", "contact_force"):
        assert key in keys, (key, keys)
    assert "loops" not in keys
    assert src.status()["seriesTitles"]["tracks"] == "track speeds [m/s]"
    labels, unit, data = _series(src, "crawler", "tracks")
    assert labels == ["TRACK_L", "TRACK_R"] and unit == "m/s"
    assert np.allclose(data[:, 0], log["crawler.track.TRACK_L"])
    labels, unit, data = _series(src, "crawler", "root_rpy")
    assert np.allclose(data, log["crawler.root_rpy"], atol=1e-6)
    # the contact force on each track is the opposite of the pair's force on the ground
    labels, unit, data = _series(src, "crawler", "contact_force")
    assert labels == ["TRACK_L fx", "TRACK_L fy", "TRACK_L fz", "TRACK_R fx", "TRACK_R fy",
                      "TRACK_R fz"] and unit == "N"
    assert np.allclose(data, -log["contacts.pair_force"].reshape(len(data), 6), atol=1e-3)
    # the ground's side of the same contacts
    labels, _, ground = _series(src, "ground", "contact_force")
    assert labels == ["root fx", "root fy", "root fz"]
    assert np.allclose(ground, log["contacts.pair_force"].sum(axis=1), atol=1e-3)
    # frames carry each record's contact points (position, normal, depth)
    msg = F.decode(src.frames(1, 0, len(src.times)))
    assert np.array_equal(msg["contact_counts"], log["contacts.count"])
    assert np.allclose(msg["contacts"][:, :3], log["contacts.point"], atol=1e-6)
    assert np.allclose(msg["contacts"][:, 3:6], log["contacts.normal"], atol=1e-6)
    part = F.decode(src.frames(1, 500, 510))
    first = int(log["contacts.count"][:500].sum())
    assert np.allclose(part["contacts"][:, :3],
                       log["contacts.point"][first:first + log["contacts.count"][500:510].sum()],
                       atol=1e-6)


def test_a_log_from_before_contacts_and_headings_still_replays(crawler_run, tmp_path):
    """Results written before contacts.* and C.root_rpy existed: the replay derives the
    heading from root_R and draws no contacts."""
    import shutil
    from hrpsim.viewer import frames as F
    from hrpsim.viewer.replay import ReplaySource
    old = tmp_path / "old"
    shutil.copytree(crawler_run, old)
    log = dict(np.load(crawler_run / "log.npz"))
    np.savez_compressed(old / "log.npz", **{k: v for k, v in log.items()
                                            if not k.startswith("contacts.")
                                            and not k.endswith(".root_rpy")})
    src = ReplaySource(old)
    src.wait(60)
    keys = src.series_keys()["crawler"]
    assert "root_rpy" in keys and "contact_force" not in keys
    _, _, data = _series(src, "crawler", "root_rpy")
    assert np.allclose(data, log["crawler.root_rpy"], atol=1e-6)
    msg = F.decode(src.frames(1, 0, len(src.times)))
    assert len(msg["contacts"]) == 0 and not msg["contact_counts"].any()
    # and its root plot still has the heading
    import matplotlib
    matplotlib.use("Agg")
    fig = results.root_figure({k: v for k, v in log.items() if not k.endswith(".root_rpy")},
                              ["crawler"])
    yaw = next(ax for ax in fig.axes if "yaw" in ax.get_ylabel()).get_lines()[0].get_ydata()
    assert np.allclose(yaw, log["crawler.root_rpy"][:, 2])


# ---------------------------------------------------------------------------------------------
# what the figures show: joints that move, plain axes, notes that apply, legends outside
# ---------------------------------------------------------------------------------------------

STANDING = REPO_ROOT / "samples" / "projects" / "humanoid_standing.xml"


@pytest.fixture(scope="module")
def standing_run(servers, tmp_path_factory):
    """`hrpsim run` of the sample standing humanoid (high gain, nothing moves but noise)."""
    out = tmp_path_factory.mktemp("standing") / "results"
    proc = run_cli("run", "--state-dir", servers.state_dir, "--out", out, STANDING,
                   timeout=300)
    assert proc.returncode == 0, describe(proc)
    return out


def drawn(fig):
    """The figure drawn (so that tick labels and offset texts are final)."""
    fig.canvas.draw()
    return fig


def outside_legend(fig, ax):
    """Whether ax's legend lies wholly to the right of its axes and inside the figure."""
    legend = ax.get_legend()
    renderer = fig.canvas.get_renderer()
    box, frame = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    return box.x0 >= frame.x1 and box.x1 <= fig.bbox.x1 + 0.5


def test_a_standing_robot_plots_no_joint_and_flat_root_axes(standing_run):
    """The standing humanoid's 30 joints hold still: joints.png draws no curve and says that
    none of the 30 moves, with no note on mirrored pairs; root.png writes plain numbers (no
    offset such as 1e-6+8.0803e-1) on axes at least 1 cm / 0.01 rad wide, so the root's
    micrometre noise is a flat line."""
    import matplotlib
    matplotlib.use("Agg")
    log = dict(np.load(standing_run / "log.npz"))
    q = log["robot.q"]
    assert q.shape[1] == 30 and np.ptp(q, axis=0).max() < results.JOINT_STILL
    fig = drawn(results.joints_figure(log, ["robot"]))
    [ax] = fig.axes
    assert ax.get_lines() == [] and ax.get_legend() is None
    title = ax.get_title()
    assert "none of its 30 joints moves" in title and "mirrored" not in title, title

    p = log["robot.root_p"]
    assert 0 < np.ptp(p[:, 2]) < 1e-4          # noise, as the issue saw it (1e-6 m)
    fig = drawn(results.root_figure(log, ["robot"]))
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            assert axis.get_offset_text().get_text() == "", (ax.get_title(), axis)
            labels = [t.get_text() for t in axis.get_ticklabels()]
            assert not any("e" in s for s in labels), labels
    height, path, heading = fig.axes
    assert np.diff(height.get_ylim())[0] >= results.ROOT_MIN_SPAN
    assert np.diff(path.get_xlim())[0] >= results.ROOT_MIN_SPAN
    assert np.diff(path.get_ylim())[0] >= results.ROOT_MIN_SPAN
    assert np.diff(heading.get_ylim())[0] >= results.ROOT_MIN_SPAN
    assert path.get_legend() is None and "o: start" in path.get_title()


def test_the_crawler_plots_its_tracks_with_a_legend_outside(crawler_run):
    """The crawler's three joints (two tracks, the flipper held level) never move: joints.png
    draws none of them and says so; loops.png's legend (the two track speeds) sits right of
    the data, and root.png's axes are plain."""
    import matplotlib
    matplotlib.use("Agg")
    log = dict(np.load(crawler_run / "log.npz"))
    fig = drawn(results.joints_figure(log, ["crawler"]))
    [ax] = fig.axes
    assert ax.get_lines() == []
    assert "none of its 3 joints moves" in ax.get_title()
    fig = drawn(results.root_figure(log, ["crawler"]))
    assert all(a.get_offset_text().get_text() == "" for ax in fig.axes
               for a in (ax.xaxis, ax.yaxis))
    loops = drawn(results.loops_figure(log))
    [ax] = loops.axes
    assert len(ax.get_lines()) == 2 and outside_legend(loops, ax)


def test_joints_that_move_are_plotted_and_the_rest_counted():
    """Of a squat's seven joints the six leg joints move and the waist stays within 1e-4 rad:
    six curves, the title says one was left out; mirrored legs give the dashed-pair note; the
    legend is right of the axes. Without mirrored pairs (one leg only) there is no such note."""
    import matplotlib
    matplotlib.use("Agg")
    t = np.linspace(0, 5, 501)
    depth = 0.5 * (1 - np.cos(2 * np.pi * t / 5))
    names = ["RLEG_HIP_P", "RLEG_KNEE", "RLEG_ANKLE_P", "LLEG_HIP_P", "LLEG_KNEE",
             "LLEG_ANKLE_P", "WAIST_Y"]
    q = np.stack([-0.5 * depth, depth, -0.4 * depth] * 2 + [1e-4 * np.sin(9 * t)], axis=1)
    arrays = {"time": t, "robot.q": q, "robot.joint_names": np.array(names)}
    fig = drawn(results.joints_figure(arrays, ["robot"]))
    [ax] = fig.axes
    assert sorted(ln.get_label() for ln in ax.get_lines()) == sorted(names[:6])
    title = ax.get_title()
    assert "the 6 joints that move (1 that stay" in title, title
    assert "left of a mirrored pair dashed" in title
    assert outside_legend(fig, ax)
    assert ax.yaxis.get_offset_text().get_text() == ""
    one_leg = {"time": t, "robot.q": q[:, :3], "robot.joint_names": np.array(names[:3])}
    fig = drawn(results.joints_figure(one_leg, ["robot"]))
    title = fig.axes[0].get_title()
    assert title == "robot: joint angles", title
    assert len(fig.axes[0].get_lines()) == 3 and outside_legend(fig, fig.axes[0])
    # a joint list asked for by the project is drawn whether or not it moves
    fig = results.joints_figure(arrays, ["robot"], plot_joints=["WAIST_Y", "RLEG_KNEE"])
    assert sorted(ln.get_label() for ln in fig.axes[0].get_lines()) == ["RLEG_KNEE", "WAIST_Y"]
