"""The OnlineViewer server end to end: a real viewer process (``python -m hrpsim.viewer``)
bound in the session's naming service, driven through CORBA like OpenHRP clients drive
GrxUI, and watched through its WebSocket as a page would.

Reference values come from outside the viewer: world states are made by the real
DynamicsSimulator (its C forward kinematics) from joint values the test chooses, so
getPosture and the frames the page receives must give those joint values back.
"""

import asyncio
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import REPO_ROOT, cli_env, require_build
import hrpsim
from hrpsim import OpenHRP
from hrpsim.viewer import frames as F

CORBA = pytest.importorskip("omniORB").CORBA
DS = OpenHRP.DynamicsSimulator
HUMANOID = str(REPO_ROOT / "samples/models/humanoid/humanoid.wrl")
FLOOR = str(REPO_ROOT / "samples/models/floor/floor.wrl")
N_JOINTS = 30
FLOAT32_REL = 2e-7   # float32 rounding of the frames (relative)


# ---------------------------------------------------------------------------------------------
# fixtures and helpers
# ---------------------------------------------------------------------------------------------

class ViewerProcess:
    """`python -m hrpsim.viewer` bound under ``name``; stopped (and checked gone) by stop()."""

    def __init__(self, naming, tmp_path, name="OnlineViewer"):
        self.url_file = tmp_path / ("%s.url" % name)
        self.log_path = tmp_path / ("%s.log" % name)
        argv = [sys.executable, "-m", "hrpsim.viewer", "--url-file", str(self.url_file),
                "--name", name, "-ORBInitRef", "NameService=" + naming]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, env=cli_env(), cwd=REPO_ROOT)
        client = hrpsim.connect(naming)
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, "viewer exited: " + self.log_path.read_text()
            try:
                self.ref = client.resolve(name, OpenHRP.OnlineViewer)
                if self.url_file.exists():
                    break
            except (hrpsim.NameNotBound, hrpsim.ServerUnavailable):
                pass
            assert time.monotonic() < deadline, "viewer did not bind: " + \
                self.log_path.read_text()
            time.sleep(0.05)
        self.url = self.url_file.read_text().strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(10) == 0, self.log_path.read_text()
        self.log.close()


class Page:
    """A WebSocket client of the viewer, as the page: collects status and frame messages."""

    def __init__(self, url):
        import aiohttp
        self.loop = asyncio.new_event_loop()
        self.statuses, self.frames, self.transients = [], [], []

        async def connect():
            self.session = aiohttp.ClientSession()
            self.ws = await self.session.ws_connect(url + "ws")
        self.loop.run_until_complete(connect())

    def pump(self, until, timeout=10.0):
        """Read messages until ``until(self)`` holds; AssertionError on timeout."""
        import aiohttp

        async def go():
            deadline = time.monotonic() + timeout
            while not until(self):
                left = deadline - time.monotonic()
                assert left > 0, "timed out; statuses %s, %d frame messages" % (
                    self.statuses[-1:], len(self.frames))
                try:
                    msg = await self.ws.receive(timeout=left)
                except asyncio.TimeoutError:
                    continue
                if msg.type == aiohttp.WSMsgType.TEXT:
                    import json
                    self.statuses.append(json.loads(msg.data))
                elif msg.type == aiohttp.WSMsgType.BINARY:
                    m = F.decode(msg.data)
                    (self.frames if m["kind"] == F.KIND_LOG else self.transients).append(m)
                else:
                    raise AssertionError("websocket closed: %s" % msg)
        self.loop.run_until_complete(go())
        return self

    @property
    def status(self):
        return self.statuses[-1]

    def logged(self, epoch=None):
        """(times, poses) of the frame messages of ``epoch`` (default: the latest status's),
        in order; asserts they are contiguous from index 0."""
        epoch = self.status["epoch"] if epoch is None else epoch
        msgs = [m for m in self.frames if m["epoch"] == epoch]
        if not msgs:
            return np.zeros(0), np.zeros((0, 0))
        starts = [m["start"] for m in msgs]
        assert starts[0] == 0 and all(
            b == a + len(m["times"]) for a, b, m in zip(starts, starts[1:], msgs)), starts
        return (np.concatenate([m["times"] for m in msgs]),
                np.concatenate([m["poses"] for m in msgs]))

    def count(self, epoch=None):
        return len(self.logged(epoch)[0])

    def close(self):
        async def shut():
            await self.ws.close()
            await self.session.close()
        self.loop.run_until_complete(shut())
        self.loop.close()


@pytest.fixture(scope="module")
def viewer(servers, tmp_path_factory):
    require_build(("ModelLoader", "DynamicsSimulatorFactory"))
    v = ViewerProcess(servers.corbaloc, tmp_path_factory.mktemp("viewer"))
    yield v
    v.stop()


@pytest.fixture
def fresh(viewer):
    """The viewer with nothing loaded and the default log, before and after the test."""
    viewer.ref.clearData()
    viewer.ref.setLogName("OnlineViewerLog")
    viewer.ref.clearLog()
    yield viewer
    viewer.ref.clearData()


@pytest.fixture
def pages(viewer):
    made = []

    def make():
        p = Page(viewer.url)
        made.append(p)
        return p
    yield make
    for p in made:
        p.close()


@pytest.fixture(scope="module")
def world(servers):
    """A DynamicsSimulator with the floor and the humanoid, to make reference WorldStates."""
    sim = servers.client.dynamics_simulator()
    sim.registerCharacter("floor", servers.client.load_body(FLOOR))
    sim.registerCharacter("robot", servers.client.load_body(HUMANOID))
    sim.init(0.001, DS.EULER, DS.DISABLE_SENSOR)
    sim.initSimulation()
    yield sim
    sim.destroy()


def world_state(sim, q, root_p=(0.0, 0.0, 0.8), yaw=0.0, time_=0.0):
    """The DynamicsSimulator's WorldState with the humanoid at joint values ``q`` (jointId
    order) and root pose (root_p, yaw about z), at time ``time_``."""
    c, s = np.cos(yaw), np.sin(yaw)
    T = [root_p[0], root_p[1], root_p[2], c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0]
    sim.setCharacterLinkData("robot", "WAIST", DS.ABS_TRANSFORM, T)
    sim.setCharacterAllLinkData("robot", DS.JOINT_VALUE, [float(v) for v in q])
    sim.calcWorldForwardKinematics()
    ws = sim.getWorldState()
    ws.time = time_
    return ws


def sample_q(k):
    """Joint values of sample k: every joint moves, within +-1.2 rad."""
    j = np.arange(N_JOINTS)
    return 1.2 * np.sin(0.37 * j + 0.61 * k + 0.2)


def robot_block(page, poses):
    """Columns of the robot in frame rows (layout from the latest status)."""
    off = 0
    for name, links in page.status["layout"]:
        if name == "robot":
            return poses[:, off:off + 7 + links]
        off += 7 + links
    raise AssertionError("robot not in layout %s" % page.status["layout"])


def joint_columns(block, servers):
    """Per-link values of a robot block, reordered to jointId order."""
    links = servers.client.load_body(HUMANOID)._get_links()
    by_id = sorted((lk.jointId, i) for i, lk in enumerate(links) if lk.jointId >= 0)
    return block[:, 7:][:, [i for _, i in by_id]]


# ---------------------------------------------------------------------------------------------
# load, update, getPosture
# ---------------------------------------------------------------------------------------------

def test_bound_and_serving_the_page(viewer):
    import urllib.request
    assert viewer.ref._is_a("IDL:OpenHRP/OnlineViewer:1.0")
    assert viewer.url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(viewer.url, timeout=10) as r:
        html = r.read().decode()
    assert "viewer.js" in html or "not built" in html


def test_updates_reach_the_page_with_the_joint_values_of_the_dynamics(fresh, pages, world,
                                                                      servers):
    v = fresh.ref
    v.load("floor", FLOOR)
    v.load("robot", hrpsim.file_url(HUMANOID))
    page = pages().pump(lambda p: p.statuses and [n for n, _ in p.status["layout"]] ==
                        ["floor", "robot"])
    qs = [sample_q(k) for k in range(5)]
    for k, q in enumerate(qs):
        v.update(world_state(world, q, root_p=(0.1 * k, -0.2, 0.8), yaw=0.3 * k,
                             time_=0.01 * k))
    page.pump(lambda p: p.count() == 5)
    times, poses = page.logged()
    assert np.allclose(times, [0.01 * k for k in range(5)], rtol=0, atol=1e-15)
    block = robot_block(page, poses)
    # joint values: what the dynamics' kinematics was given (float32 on the wire)
    assert np.allclose(joint_columns(block, servers), np.array(qs), rtol=0, atol=2e-6)
    # root: position and a quaternion of the yaw rotation (x, y, z, w)
    for k in range(5):
        assert np.allclose(block[k, :3], [0.1 * k, -0.2, 0.8], atol=1e-6)
        half = 0.15 * k
        assert np.allclose(block[k, 3:7], [0, 0, np.sin(half), np.cos(half)], atol=1e-6)
    # getPosture: the last state shown, in jointId order, to double precision
    found, posture = v.getPosture("robot")
    assert found and len(posture) == N_JOINTS
    assert np.allclose(posture, qs[-1], rtol=0, atol=1e-9)


def test_get_posture_before_any_state_and_for_unknown_names(fresh):
    v = fresh.ref
    assert v.getPosture("robot") == (False, [])       # nothing loaded
    v.load("robot", HUMANOID)
    found, posture = v.getPosture("robot")
    assert found and posture == [0.0] * N_JOINTS      # the model's initial joint values
    assert v.getPosture("nobody") == (False, [])
    assert v.getPosture("") == (False, [])


def test_a_state_for_a_model_loaded_later_is_drawn_once_it_is_loaded(fresh, pages, world,
                                                                     servers):
    v = fresh.ref
    q = sample_q(3)
    v.update(world_state(world, q, time_=0.5))        # nobody loaded yet: kept raw
    v.load("robot", HUMANOID)
    page = pages().pump(lambda p: p.statuses and p.status["layout"] == [["robot", 31]]
                        and p.count() == 1)
    block = robot_block(page, page.logged()[1])
    assert np.allclose(joint_columns(block, servers)[0], q, atol=2e-6)


def test_load_errors_raise_the_viewer_exception_and_the_viewer_goes_on(fresh, tmp_path):
    v = fresh.ref
    with pytest.raises(OpenHRP.OnlineViewer.OnlineViewerException) as e:
        v.load("robot", str(tmp_path / "missing.wrl"))
    assert "missing.wrl" in e.value.description
    bad = tmp_path / "bad.wrl"
    bad.write_text("#VRML V2.0 utf8\nTransform { children [ Shape { geometry Bxo { } } ] }\n")
    with pytest.raises(OpenHRP.OnlineViewer.OnlineViewerException) as e:
        v.load("bad", str(bad))
    assert "bad.wrl" in e.value.description and ":2" in e.value.description  # file:line
    with pytest.raises(OpenHRP.OnlineViewer.OnlineViewerException) as e:
        v.load("web", "http://127.0.0.1:1/robot.wrl")
    assert "file://" in e.value.description
    with pytest.raises(OpenHRP.OnlineViewer.OnlineViewerException):
        v.load("", HUMANOID)
    # nothing was loaded by the failures, and the viewer still works
    assert v.getPosture("robot") == (False, [])
    v.load("robot", HUMANOID)
    assert v.getPosture("robot")[0]


def test_loading_the_same_model_again_keeps_it_and_another_url_replaces_it(fresh, pages):
    v = fresh.ref
    v.load("thing", HUMANOID)
    page = pages().pump(lambda p: p.statuses and p.status["layout"] == [["thing", 31]])
    version = page.status["sceneVersion"]
    v.load("thing", HUMANOID)             # same name and URL: no scene change
    v.load("floor", FLOOR)
    page.pump(lambda p: len(p.status["layout"]) == 2)
    assert page.status["sceneVersion"] == version + 1
    v.load("thing", FLOOR)                # another URL: replaced in place
    page.pump(lambda p: p.status["layout"] == [["thing", 1], ["floor", 1]])


# ---------------------------------------------------------------------------------------------
# drawScene, logs, settings
# ---------------------------------------------------------------------------------------------

def test_draw_scene_shows_a_state_without_logging_it(fresh, pages, world, servers):
    v = fresh.ref
    v.load("robot", HUMANOID)
    v.update(world_state(world, sample_q(0), time_=0.0))
    page = pages().pump(lambda p: p.statuses and p.count() == 1)
    q = sample_q(7)
    v.drawScene(world_state(world, q, time_=0.25))
    page.pump(lambda p: p.transients)
    m = page.transients[-1]
    assert m["times"][0] == 0.25
    assert np.allclose(joint_columns(robot_block(page, m["poses"]), servers)[0], q, atol=2e-6)
    assert np.allclose(v.getPosture("robot")[1], q, atol=1e-9)   # what is shown
    time.sleep(0.2)
    page.pump(lambda p: True)
    assert page.count() == 1 and page.status["count"] == 1       # not logged


def test_clear_log_starts_a_new_epoch_and_clear_data_forgets_the_models(fresh, pages, world):
    v = fresh.ref
    v.load("robot", HUMANOID)
    for k in range(3):
        v.update(world_state(world, sample_q(k), time_=0.1 * k))
    page = pages().pump(lambda p: p.statuses and p.count() == 3)
    epoch = page.status["epoch"]
    v.clearLog()
    page.pump(lambda p: p.status["epoch"] != epoch)
    assert page.status["count"] == 0 and page.count() == 0
    v.update(world_state(world, sample_q(5), time_=1.0))
    page.pump(lambda p: p.count() == 1)
    assert page.logged()[0][0] == 1.0
    version = page.status["sceneVersion"]
    v.clearData()
    page.pump(lambda p: p.status["sceneVersion"] != version)
    assert page.status["layout"] == [] and page.status["count"] == 0
    assert v.getPosture("robot") == (False, [])


def test_an_earlier_time_restarts_the_log_from_there(fresh, pages, world):
    v = fresh.ref
    v.load("robot", HUMANOID)
    for k in range(5):
        v.update(world_state(world, sample_q(k), time_=0.1 * k))
    page = pages().pump(lambda p: p.statuses and p.count() == 5)
    v.update(world_state(world, sample_q(9), time_=0.2))   # a new run, or a step back
    page.pump(lambda p: p.count() == 3)
    times, _ = page.logged()
    assert np.allclose(times, [0.0, 0.1, 0.2], atol=1e-15)


def test_set_log_name_switches_logs_and_keeps_each(fresh, pages, world):
    v = fresh.ref
    v.load("robot", HUMANOID)
    for k in range(4):
        v.update(world_state(world, sample_q(k), time_=0.1 * k))
    page = pages().pump(lambda p: p.statuses and p.count() == 4)
    v.setLogName("second")
    page.pump(lambda p: p.status["log"] == "second")
    assert page.status["count"] == 0 and set(page.status["logs"]) == {"OnlineViewerLog",
                                                                      "second"}
    v.update(world_state(world, sample_q(0), time_=5.0))
    page.pump(lambda p: p.count() == 1)
    v.setLogName("OnlineViewerLog")                           # back: its 4 frames again
    page.pump(lambda p: p.status["log"] == "OnlineViewerLog" and p.count() == 4)


def test_line_width_and_scale_reach_the_page_and_bad_values_are_refused(fresh, pages):
    v = fresh.ref
    page = pages().pump(lambda p: p.statuses)
    v.setLineWidth(3.0)
    v.setLineScale(0.5)
    page.pump(lambda p: p.status["lineWidth"] == 3.0 and p.status["lineScale"] == 0.5)
    for call, arg in ((v.setLineWidth, 0.0), (v.setLineWidth, -1.0),
                      (v.setLineWidth, float("nan")), (v.setLineScale, -0.1)):
        with pytest.raises(CORBA.BAD_PARAM):
            call(arg)
    with pytest.raises(CORBA.BAD_PARAM):
        v.setLogName("")
    v.setLineWidth(1.0)
    v.setLineScale(1.0)
    assert v.getPosture("x") == (False, [])                   # still answering


def test_contacts_of_the_world_state_reach_the_page(fresh, pages, world):
    v = fresh.ref
    v.load("robot", HUMANOID)
    ws = world_state(world, sample_q(0), time_=0.0)
    pts = [OpenHRP.CollisionPoint([0.1, 0.2, 0.0], [0.0, 0.0, 1.0], 0.002),
           OpenHRP.CollisionPoint([-0.1, 0.2, 0.0], [0.0, 0.0, 1.0], 0.001)]
    pair = OpenHRP.LinkPair("floor", "root", "robot", "RLEG_ANKLE_R", 0.0)
    ws.collisions = [OpenHRP.Collision(pair, pts)]
    v.update(ws)
    page = pages().pump(lambda p: p.statuses and p.count() == 1)
    m = page.frames[-1]
    assert list(m["contact_counts"]) == [2]
    assert np.allclose(m["contacts"], [[0.1, 0.2, 0, 0, 0, 1, 0.002],
                                       [-0.1, 0.2, 0, 0, 0, 1, 0.001]], atol=1e-7)


# ---------------------------------------------------------------------------------------------
# pages: several, late, slow
# ---------------------------------------------------------------------------------------------

def test_two_pages_see_the_same_frames_and_a_late_page_catches_up(fresh, pages, world):
    v = fresh.ref
    v.load("robot", HUMANOID)
    a, b = pages(), pages()
    for k in range(20):
        v.update(world_state(world, sample_q(k), time_=0.01 * k))
    a.pump(lambda p: p.statuses and p.count() == 20)
    b.pump(lambda p: p.statuses and p.count() == 20)
    late = pages().pump(lambda p: p.statuses and p.count() == 20)   # opened "mid-run"
    ta, pa = a.logged()
    tb, pb = b.logged()
    tl, pl = late.logged()
    assert np.array_equal(ta, tb) and np.array_equal(pa, pb)
    assert np.array_equal(ta, tl) and np.array_equal(pa, pl)


def test_each_update_reaches_an_open_page_before_the_next(fresh, pages, world):
    """Each update() is delivered to an open page as its own frame, in order (how fast is
    measured in bench/bench_viewer.py: latency bounds on a shared CPU only make tests flaky)."""
    v = fresh.ref
    v.load("robot", HUMANOID)
    page = pages().pump(lambda p: p.statuses and p.status["layout"])
    states = [world_state(world, sample_q(k), time_=0.01 * k) for k in range(10)]
    for k, ws in enumerate(states):
        v.update(ws)
        page.pump(lambda p: p.count() == k + 1)
        assert page.count() == k + 1


def test_a_page_that_does_not_read_never_slows_the_updates(fresh, world, viewer):
    """A client that opens the stream and then reads nothing: its socket fills up, but
    update() calls keep returning quickly (they only append to the log)."""
    import socket
    v = fresh.ref
    v.load("robot", HUMANOID)
    host, port = viewer.url[len("http://"):].rstrip("/").split(":")
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(("GET /ws HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade"
               "\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13"
               "\r\n\r\n" % (host, port)).encode())
    try:
        ws = world_state(world, sample_q(1))
        t_all = time.monotonic()
        for k in range(1500):   # ~1500 x 1.3 kB of frames: far more than the socket buffers
            ws.time = 0.001 * k
            v.update(ws)
        # a sender that waited on the stuck socket would never get here (or only after the
        # socket's timeout); the bound is a hang detector, far above any loaded machine's time
        assert time.monotonic() - t_all < 60.0
        assert v.getPosture("robot")[0]
    finally:
        s.close()


def test_updates_pages_and_get_posture_at_once_lose_nothing(fresh, pages, world, servers):
    """Frames converted by the viewer's compactor, a page's sender and getPosture at the
    same time (a race once closed the page's stream): every frame arrives, in order."""
    import threading
    v = fresh.ref
    v.load("floor", FLOOR)
    v.load("robot", HUMANOID)
    page = pages().pump(lambda p: p.statuses and len(p.status["layout"]) == 2)
    stop = threading.Event()
    postures = []

    def ask():
        while not stop.is_set():
            postures.append(v.getPosture("robot")[0])
    asker = threading.Thread(target=ask)
    asker.start()
    try:
        ws = world_state(world, sample_q(2))
        floor = [cp for cp in ws.characterPositions if cp.characterName == "floor"]
        assert floor, "the reference world state has the floor"
        for k in range(600):
            ws.time = 0.001 * k
            v.update(ws)
            if k % 50 == 0:
                page.pump(lambda p: True, timeout=1)
    finally:
        stop.set()
        asker.join()
    page.pump(lambda p: p.count() == 600, timeout=20)
    times, poses = page.logged()
    assert np.allclose(times, 0.001 * np.arange(600), atol=1e-12)
    assert np.allclose(joint_columns(robot_block(page, poses), servers), sample_q(2), atol=2e-6)
    assert postures and all(postures)


def test_sigterm_unbinds_the_name(servers, tmp_path):
    other = ViewerProcess(servers.corbaloc, tmp_path, name="OnlineViewerSigterm")
    assert "OnlineViewerSigterm" in servers.client.names()
    other.stop()
    assert "OnlineViewerSigterm" not in servers.client.names()


# ---------------------------------------------------------------------------------------------
# the pieces the frames are made of (no server needed)
# ---------------------------------------------------------------------------------------------

def test_quaternions_of_rotation_matrices_match_the_axis_angle_formula():
    """matrix_to_quaternion against q = (axis sin(a/2), cos(a/2)) for random axes and angles,
    including angles near pi (where the trace-based formula alone loses precision)."""
    from hrpsim.viewer.scene import (axis_angle_to_matrix, matrix_to_quaternion,
                                     quaternion_to_matrix)
    rng = np.random.default_rng(7)
    axes = rng.normal(size=(200, 3))
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    angles = np.concatenate([rng.uniform(0, np.pi, 150), np.pi - 10.0 ** -rng.uniform(3, 9, 50)])
    R = np.array([axis_angle_to_matrix([*a, t]) for a, t in zip(axes, angles)])
    q = matrix_to_quaternion(R)
    expect = np.concatenate([axes * np.sin(angles / 2)[:, None], np.cos(angles / 2)[:, None]],
                            axis=1)
    assert np.allclose(q, expect, atol=1e-12)
    assert np.allclose(quaternion_to_matrix(q), R, atol=1e-12)


def test_frame_messages_round_trip():
    times = np.array([0.0, 0.001, 0.002])
    poses = np.arange(3 * 10, dtype=np.float32).reshape(3, 10)
    contacts = np.arange(2 * 7, dtype=np.float32).reshape(2, 7)
    msg = F.encode(F.KIND_LOG, 5, 100, times, poses, [0, 2, 0], contacts)
    assert len(msg) == 24 + 8 * 3 + 4 * 30 + 4 * 3 + 4 * 14
    d = F.decode(msg)
    assert (d["kind"], d["epoch"], d["start"]) == (F.KIND_LOG, 5, 100)
    assert np.array_equal(d["times"], times) and np.array_equal(d["poses"], poses)
    assert list(d["contact_counts"]) == [0, 2, 0] and np.array_equal(d["contacts"], contacts)
