"""Safe by default, safe when exposed (README "Threat model").

- by default every process `hrpsim up` starts, a server started by hand without endpoints,
  and a Python process serving objects (the PD controller) listen on 127.0.0.1 only;
- unix-socket endpoints live in a per-user directory of mode 0700 (sockets 0600), never in
  omniORB's shared /tmp/omni-<user> (0755, sockets 0777); an unsafe directory stops a server;
- `hrpsim up --listen ADDR` moves the naming service and the servers to ADDR (tested with the
  loopback alias 127.0.0.2, which Linux routes without any set-up, and which counts as
  exposed); it needs --model-root; the ModelLoader then serves only real paths under the
  roots (symbolic links and ".." resolved first; a missing file and a file outside get the
  same answer), its errors carry no text from the file, and shutdown() from a client is
  refused unless --allow-remote-shutdown.
"""

import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hrpsim
from hrpsim import OpenHRP, _orb, launcher, paths

from conftest import (REPO_ROOT, cli_env, describe, run_cli,  # noqa: I100
                      start_servers, still_running)

ALIAS = "127.0.0.2"
MODELS = REPO_ROOT / "samples" / "models"
MLE = OpenHRP.ModelLoader.ModelLoaderException
SECRET = "hunter2-s3cr3t"


# ---------------------------------------------------------------------------------------------
# what a process listens on, from /proc
# ---------------------------------------------------------------------------------------------

def _socket_inodes(pid):
    inodes = set()
    for fd in Path("/proc/%d/fd" % pid).iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        m = re.match(r"socket:\[(\d+)\]", target)
        if m:
            inodes.add(m.group(1))
    return inodes


def _hex_addr(text, v6):
    addr, port = text.split(":")
    raw = bytes.fromhex(addr)
    if not v6:
        return ".".join(str(b) for b in raw[::-1]), int(port, 16)
    words = [raw[i:i + 4][::-1] for i in range(0, 16, 4)]
    import ipaddress
    return str(ipaddress.IPv6Address(b"".join(words))), int(port, 16)


def tcp_listening(pid):
    """[(address, port)] of the TCP sockets ``pid`` listens on."""
    inodes = _socket_inodes(pid)
    out = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # LISTEN
                out.append(_hex_addr(f[1], v6))
    return out


def unix_listening(pid):
    """Paths of the unix-domain sockets ``pid`` listens on."""
    inodes = _socket_inodes(pid)
    out = []
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        f = line.split()
        # Num RefCount Protocol Flags Type St Inode [Path]; flags 00010000 = listening
        if len(f) >= 8 and f[6] in inodes and int(f[3], 16) & 0x10000:
            out.append(f[7])
    return out


def server_pids(state):
    return [(r["name"], r["pid"]) for r in state["processes"]]


# ---------------------------------------------------------------------------------------------
# defaults
# ---------------------------------------------------------------------------------------------

def test_up_listens_on_loopback_only(servers):
    for name, pid in server_pids(servers.state):
        addrs = tcp_listening(pid)
        assert addrs, "%s (pid %d) listens on no TCP socket" % (name, pid)
        assert {a for a, _ in addrs} == {"127.0.0.1"}, (name, addrs)


def test_unix_sockets_live_in_a_private_per_user_directory(servers):
    found = 0
    for name, pid in server_pids(servers.state):
        if name == "NameService":
            continue
        for path in unix_listening(pid):
            found += 1
            d = Path(path).parent
            st = os.lstat(d)
            assert stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid(), (name, path)
            assert stat.S_IMODE(st.st_mode) == 0o700, (name, path, oct(st.st_mode))
            assert not str(d).startswith("/tmp/omni-"), path
            xdg = os.environ.get("XDG_RUNTIME_DIR")
            assert str(d) in ("/tmp/hrpsim-%d" % os.geteuid(),
                              (xdg or "/nonexistent") + "/hrpsim"), path
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            assert mode & 0o077 == 0, (name, path, oct(mode))
    assert found >= 2, "no unix-socket endpoints found"


@pytest.fixture
def naming_only(state_dirs):
    """A naming service of its own (nothing else bound), for servers started by hand."""
    d = state_dirs("by-hand")
    start_servers(d, "--only")
    return launcher.read_state(d)["naming"]


def _hand_started(naming, *args, env=None):
    exe = paths.default_bin_dir() / "hrpsim-modelloader"
    return subprocess.Popen([str(exe), "-ORBInitRef", "NameService=" + naming] + list(args),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)


def _wait_bound(naming, name, proc, timeout=30):
    ctx = _orb.naming_context(naming, 5000)
    deadline = time.monotonic() + timeout
    while _orb.resolve_name(ctx, name) is None:
        assert proc.poll() is None, proc.stdout.read()
        assert time.monotonic() < deadline, "%s never bound" % name
        time.sleep(0.05)
    return ctx


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_server_started_by_hand_listens_on_loopback(naming_only):
    """Without -ORBendPoint omniORB would listen on every interface; ours on 127.0.0.1."""
    proc = _hand_started(naming_only)
    try:
        _wait_bound(naming_only, "ModelLoader", proc)
        addrs = tcp_listening(proc.pid)
        assert addrs and {a for a, _ in addrs} == {"127.0.0.1"}, addrs
    finally:
        _stop(proc)


def test_unsafe_socket_directory_stops_the_server(naming_only, tmp_path):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "hrpsim").symlink_to(elsewhere)
    proc = _hand_started(naming_only, "-ORBendPoint", "giop:unix:", env=env)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 2, out
    assert "is a symbolic link" in out, out
    assert list(elsewhere.iterdir()) == []
    # a directory of ours with loose permissions is made private and used
    (tmp_path / "hrpsim").unlink()
    (tmp_path / "hrpsim").mkdir(mode=0o777)
    os.chmod(tmp_path / "hrpsim", 0o777)
    proc = _hand_started(naming_only, "-ORBendPoint", "giop:unix:", env=env)
    try:
        _wait_bound(naming_only, "ModelLoader", proc)
        assert stat.S_IMODE(os.stat(tmp_path / "hrpsim").st_mode) == 0o700
        assert [Path(p).parent for p in unix_listening(proc.pid)] == [tmp_path / "hrpsim"]
    finally:
        _stop(proc)
    # someone else's directory is refused (as root we can make one)
    if os.geteuid() == 0:
        os.chown(tmp_path / "hrpsim", 65534, 65534)
        proc = _hand_started(naming_only, "-ORBendPoint", "giop:unix:", env=env)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 2 and "owned by uid 65534" in out, out


def test_python_servants_listen_on_loopback_unless_told(servers):
    """The PD controller (omniORBpy) listens on 127.0.0.1 and on a private unix socket;
    $HRPSIM_LISTEN moves it to that address, TCP only."""
    script = REPO_ROOT / "samples" / "controllers" / "pd_controller.py"
    for listen, name in ((None, "LoopbackPD"), (ALIAS, "AliasPD")):
        env = cli_env()
        if listen:
            env["HRPSIM_LISTEN"] = listen
        proc = subprocess.Popen([sys.executable, str(script), "--name", name, "-ORBInitRef",
                                 "NameService=" + servers.corbaloc],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=env)
        try:
            _wait_bound(servers.corbaloc, name, proc)
            addrs = tcp_listening(proc.pid)
            assert addrs and {a for a, _ in addrs} == {listen or "127.0.0.1"}, addrs
            # on loopback also a unix socket (a local scheduler's calls take it) in the
            # servers' private directory, the socket itself 0600; none when told an address
            socks = unix_listening(proc.pid)
            assert len(socks) == (0 if listen else 1), socks
            for sock in socks:
                d = Path(sock).parent
                xdg = os.environ.get("XDG_RUNTIME_DIR")
                assert str(d) in ("/tmp/hrpsim-%d" % os.geteuid(),
                                  (xdg or "/nonexistent") + "/hrpsim"), sock
                assert stat.S_IMODE(os.lstat(d).st_mode) == 0o700, sock
                assert stat.S_IMODE(os.lstat(sock).st_mode) & 0o077 == 0, sock
        finally:
            _stop(proc)
        assert proc.returncode == 0


def test_cpp_sample_controller_listens_on_loopback(servers):
    exe = paths.default_bin_dir() / "hrpsim-sample-arm-controller"
    proc = subprocess.Popen([str(exe), "LoopbackArm", "-ORBInitRef",
                             "NameService=" + servers.corbaloc],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        _wait_bound(servers.corbaloc, "LoopbackArm", proc)
        addrs = tcp_listening(proc.pid)
        assert addrs and {a for a, _ in addrs} == {"127.0.0.1"}, addrs
    finally:
        _stop(proc)
    assert proc.returncode == 0


# ---------------------------------------------------------------------------------------------
# exposed: hrpsim up --listen 127.0.0.2 --model-root ROOT
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def model_tree(tmp_path_factory):
    """ROOT with a robot, a broken model holding a secret, a symlink out and a symlink in;
    OUTSIDE with a good model and a secret file."""
    base = tmp_path_factory.mktemp("exposure")
    root, outside = base / "root", base / "outside"
    (root / "robots").mkdir(parents=True)
    outside.mkdir()
    arm = (MODELS / "arm6" / "arm6.wrl").read_text()
    (root / "robots" / "arm6.wrl").write_text(arm)
    (outside / "arm6.wrl").write_text(arm)
    (outside / "secret.txt").write_text("%s\n" % SECRET)
    (outside / "secret.wrl").write_text("#VRML V2.0 utf8\n%s { }\n" % SECRET)
    (root / "broken.wrl").write_text("#VRML V2.0 utf8\n%s { password \"%s\" }\n"
                                     % (SECRET, SECRET))
    (root / "broken.urdf").write_text("<?xml version=\"1.0\"?>\n<robot name=\"%s\"><link "
                                      "name=\"a\"></robot>\n" % SECRET)
    (root / "out-link.wrl").symlink_to(outside / "arm6.wrl")
    (root / "in-link.wrl").symlink_to(root / "robots" / "arm6.wrl")
    (root / "dir-out").symlink_to(outside)
    # models under the root that refer to files: inside, outside, and outside through a link
    foot = (MODELS / "humanoid" / "parts" / "foot.wrl").read_text()
    (root / "parts").mkdir()
    (root / "parts" / "foot.wrl").write_text(foot)
    (outside / "foot.wrl").write_text(foot)
    (root / "parts" / "foot-link.wrl").symlink_to(outside / "foot.wrl")
    for name, url in (("inline-in", "parts/foot.wrl"), ("inline-out", str(outside / "foot.wrl")),
                      ("inline-up", "../outside/foot.wrl"),
                      ("inline-link", "parts/foot-link.wrl")):
        (root / (name + ".wrl")).write_text(
            "#VRML V2.0 utf8\nTransform { children [ Inline { url \"%s\" } ] }\n" % url)
    stl = (REPO_ROOT / "tests" / "data" / "meshes" / "tetra_ascii.stl").read_text()
    (root / "parts" / "tetra.stl").write_text(stl)
    (outside / "tetra.stl").write_text(stl)
    for name, mesh in (("mesh-in", str(root / "parts" / "tetra.stl")),
                       ("mesh-out", str(outside / "tetra.stl"))):
        (root / (name + ".urdf")).write_text(
            "<?xml version=\"1.0\"?>\n<robot name=\"m\"><link name=\"a\"><visual><geometry>"
            "<mesh filename=\"file://%s\"/></geometry></visual></link></robot>\n" % mesh)
    png = (REPO_ROOT / "tests" / "data" / "meshes" / "textures" / "checker.png").read_bytes()
    (root / "parts" / "checker.png").write_bytes(png)
    (outside / "checker.png").write_bytes(png)
    for name, image in (("texture-in", str(root / "parts" / "checker.png")),
                        ("texture-out", str(outside / "checker.png"))):
        (root / (name + ".wrl")).write_text(
            "#VRML V2.0 utf8\nShape { appearance Appearance { texture ImageTexture { url "
            "\"%s\" } } geometry Box { } }\n" % image)
    return root, outside


@pytest.fixture(scope="module")
def exposed(built, tmp_path_factory, model_tree):
    """Servers started with `hrpsim up --listen 127.0.0.2 --model-root ROOT`."""
    d = tmp_path_factory.mktemp("hrpsim-exposed")
    start_servers(d, "--listen", ALIAS, "--model-root", model_tree[0])
    state = launcher.read_state(d)
    try:
        yield d, state
    finally:
        proc = run_cli("down", "--state-dir", d)
        assert proc.returncode == 0, describe(proc)
        assert not still_running(state)


def test_listen_moves_every_process_to_the_address(exposed):
    d, state = exposed
    assert state["naming"] == "corbaloc:iiop:%s:%d/NameService" % (ALIAS, state["naming_port"])
    assert state["exposed"] is True and state["listen"] == ALIAS
    for name, pid in server_pids(state):
        addrs = tcp_listening(pid)
        assert addrs and {a for a, _ in addrs} == {ALIAS}, (name, addrs)
    proc = run_cli("status", "--state-dir", d)
    assert proc.returncode == 0, describe(proc)
    assert "exposed    listening on %s" % ALIAS in proc.stdout
    proc = run_cli("env", "--state-dir", d)
    assert "export HRPSIM_NAMING=corbaloc:iiop:%s:" % ALIAS in proc.stdout


def _loader(state):
    return hrpsim.connect(state["naming"]).model_loader()


def _refused(loader, url):
    with pytest.raises(MLE) as info:
        loader.loadBodyInfo(str(url))
    return info.value.description


def test_model_loader_behind_roots_serves_primitives(exposed):
    """A primitive URL names no file: the exposed ModelLoader builds it (any host, no root
    entry needed), and a bad one is refused naming the URL, not a path."""
    from hrpsim import primitives
    _, state = exposed
    loader = _loader(state)
    box = primitives.url("box", size=(0.1, 0.2, 0.3), mass=1.0)
    for body in (loader.loadBodyInfo(box), loader.getBodyInfo(box)):
        link = body._get_links()[0]
        assert link.jointType == "free" and link.mass == 1.0
    assert "size must be positive" in _refused(loader, "hrpsim-primitive:box?size=0,1,1")


def test_model_loader_serves_only_under_the_roots(exposed, model_tree):
    _, state = exposed
    root, outside = model_tree
    loader = _loader(state)
    # under the root: absolute, file://, relative to the root, through a symlink inside
    for url in (root / "robots" / "arm6.wrl", "file://%s" % (root / "robots" / "arm6.wrl"),
                "robots/arm6.wrl", root / "in-link.wrl"):
        body = loader.loadBodyInfo(str(url))
        assert body._get_name() == "ARM6" and len(body._get_links()) == 7, url
    assert loader.getBodyInfo("robots/arm6.wrl")._get_name() == "ARM6"
    # outside, or escaping: one answer, which says nothing about the file
    answers = set()
    for url in (outside / "arm6.wrl", outside / "secret.txt", "/etc/passwd",
                root / "out-link.wrl", root / "dir-out" / "arm6.wrl",
                root / ".." / "outside" / "arm6.wrl", "../outside/arm6.wrl",
                outside / "no-such-file.wrl", root / "no-such-file.wrl", root / "robots"):
        text = _refused(loader, url)
        assert text == "'%s': no such model file under the model roots" % url, text
        answers.add(text.split(":", 1)[-1])
    assert len(answers) == 1
    for op in ("getBodyInfo", "loadSceneInfo"):
        with pytest.raises(MLE, match="under the model roots"):
            getattr(loader, op)(str(outside / "arm6.wrl"))
    assert loader._non_existent() is False


def test_files_a_model_refers_to_must_be_under_the_roots(exposed, model_tree):
    """Inline urls, URDF meshes and textures are confined to the roots as the model itself
    (real paths: a symbolic link inside that leads out is refused); the answer names the
    model, not the file outside."""
    d, state = exposed
    root, outside = model_tree
    loader = _loader(state)
    shapes = len(loader.loadBodyInfo(str(root / "inline-in.wrl"))._get_shapes())
    assert shapes >= 1
    assert len(loader.loadBodyInfo(str(root / "mesh-in.urdf"))._get_shapes()) == 1
    opt = OpenHRP.ModelLoader.ModelLoadOption(True, [], OpenHRP.ModelLoader.AABB_NUM)
    textures = loader.loadBodyInfoEx(str(root / "texture-in.wrl"), opt)._get_textures()
    assert len(textures) == 1 and len(textures[0].image) > 0
    for name in ("inline-out.wrl", "inline-up.wrl", "inline-link.wrl", "mesh-out.urdf"):
        text = _refused(loader, root / name)
        assert text.startswith(str(root / name)), text
        assert str(outside) not in text, text
    # a texture that cannot be read is a warning (as a missing one): served without its image
    body = loader.loadBodyInfoEx(str(root / "texture-out.wrl"), opt)
    textures = body._get_textures()
    assert len(textures) == 1 and len(textures[0].image) == 0
    assert any("outside the model roots" in line for line in body._get_info()), body._get_info()
    log = (Path(d) / "logs" / "hrpsim-modelloader.log").read_text()
    assert "outside the model roots" in log
    assert loader._non_existent() is False


def test_errors_never_echo_file_contents_when_exposed(exposed, model_tree):
    d, state = exposed
    root, _ = model_tree
    loader = _loader(state)
    for name, kind in (("broken.wrl", "syntax error"), ("broken.urdf", "syntax error")):
        text = _refused(loader, root / name)
        assert SECRET not in text, text
        assert re.fullmatch(r"%s:\d+(:\d+)?: [a-z ]+ \(details in the ModelLoader's log\)"
                            % re.escape(str(root / name)), text), text
    # the operator's log has the full story
    log = (Path(d) / "logs" / "hrpsim-modelloader.log").read_text()
    assert SECRET in log


def test_client_shutdown_refused_when_exposed(exposed):
    d, state = exposed
    client = hrpsim.connect(state["naming"])
    loader = client.model_loader()
    factory = client.resolve("DynamicsSimulatorFactory", OpenHRP.DynamicsSimulatorFactory)
    loader.shutdown()
    factory.shutdown()
    time.sleep(1.0)
    assert loader._non_existent() is False and factory._non_existent() is False
    assert all(launcher.is_ours(r) for r in state["processes"])
    for exe in ("hrpsim-modelloader", "hrpsim-dynamics"):
        log = (Path(d) / "logs" / ("%s.log" % exe)).read_text()
        assert "shutdown() from a client refused" in log, (exe, log)


def test_allow_remote_shutdown(built, state_dirs, model_tree):
    d = state_dirs("allow-shutdown")
    start_servers(d, "--listen", ALIAS, "--model-root", model_tree[0], "--only", "ModelLoader",
                  "--allow-remote-shutdown")
    state = launcher.read_state(d)
    rec = next(r for r in state["processes"] if r["name"] == "ModelLoader")
    _loader(state).shutdown()
    deadline = time.monotonic() + 10
    while launcher.is_ours(rec):
        assert time.monotonic() < deadline, "shutdown() did not stop the exposed ModelLoader"
        time.sleep(0.05)


def test_listen_needs_roots_and_an_address_of_this_host(built, state_dirs, tmp_path):
    d = state_dirs("listen-bad")
    cases = (
        (("--listen", ALIAS), "give --model-root DIR"),
        (("--listen", "0.0.0.0", "--model-root", tmp_path), "not a wildcard"),
        (("--listen", "192.0.2.1", "--model-root", tmp_path), "not an address of this host"),
        (("--listen", ALIAS, "--model-root", tmp_path / "missing"), "not a directory"),
    )
    for args, expect in cases:
        proc = run_cli("up", "--state-dir", d, *args)
        assert proc.returncode == 1 and expect in proc.stderr, describe(proc)
        assert not (d / paths.STATE_FILE).exists()


def test_exposed_model_loader_refuses_to_start_without_roots(naming_only):
    proc = _hand_started(naming_only, "-ORBendPoint", "giop:tcp:%s:" % ALIAS)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 2, out
    assert "give --model-root DIR" in out, out


def test_model_root_on_loopback_restricts_too(built, state_dirs, model_tree):
    d = state_dirs("loopback-roots")
    start_servers(d, "--model-root", model_tree[0], "--only", "ModelLoader")
    state = launcher.read_state(d)
    assert state["exposed"] is False and state["naming"].startswith("corbaloc:iiop:127.0.0.1:")
    loader = _loader(state)
    assert loader.loadBodyInfo("robots/arm6.wrl")._get_name() == "ARM6"
    assert "under the model roots" in _refused(loader, model_tree[1] / "arm6.wrl")
    # on loopback a client may still stop it
    rec = next(r for r in state["processes"] if r["name"] == "ModelLoader")
    loader.shutdown()
    deadline = time.monotonic() + 10
    while launcher.is_ours(rec):
        assert time.monotonic() < deadline
        time.sleep(0.05)
