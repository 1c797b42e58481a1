"""Start, stop and inspect a set of hrpsim servers: the machinery behind `hrpsim up/down/status`.

One *state directory* describes one running set:

    STATE_DIR/state.json     what `up` started: PIDs, start times, command lines, corbaloc
    STATE_DIR/logs/<exe>.log stdout and stderr of each process
    STATE_DIR/names/         omniNames' data files (emptied at every `up`)
    STATE_DIR/viewer.url     the OnlineViewer's page, written by it (`up --viewer`)
    STATE_DIR/lock           flock()ed while `up` or `down` runs, so they never interleave
                             (created by `up`; `down` and `status` create nothing)

That list lives in one place, StateDir.RUNTIME_ENTRIES and StateDir.KEPT_ENTRIES: `down`
removes the first (what describes the running set), and keeps the logs and the lock file.
`up` refuses a directory holding anything else (it would litter a source tree or a home
directory), and an empty path (which would mean the current directory).

`up` starts omniNames on a free loopback port (unless told to use an existing naming service),
then each server executable found in the bin dir, each in its own session so it outlives the
command, and waits until every server has bound its name to an object that answers. The state
file is rewritten after every start, so a `down` can clean up even after an interrupted `up`.

`down` signals exactly the recorded processes. A PID is only signalled while it still names
the process we started: its start time (field 22 of /proc/PID/stat) and its command line must
match what `up` recorded, and where Linux offers pidfds the signal goes through a pidfd opened
before that check, so a recycled PID is never hit.
"""

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import _orb
from . import paths
from ._orb import HrpsimError

STATE_FORMAT = 1
POLL_S = 0.05
STOP_GRACE_S = 5.0
KILL_GRACE_S = 2.0
PORT_ATTEMPTS = 5
LIVENESS_TIMEOUT_MS = 3000


class LaunchError(HrpsimError):
    """`up`, `down` or `status` cannot do what was asked; the message says why."""


class AlreadyRunning(LaunchError):
    """`up` found processes of an earlier `up` still alive in the same state dir."""


# ---------------------------------------------------------------------------------------------
# processes: identity through /proc
# ---------------------------------------------------------------------------------------------

def proc_stat(pid):
    """(state letter, start time in clock ticks since boot) of ``pid``, or None if gone."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            data = f.read().decode("ascii", "replace")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # the command name (field 2) is in parentheses and may contain anything
    fields = data[data.rindex(")") + 2:].split()
    return fields[0], int(fields[19])


def proc_cmdline(pid):
    """The argument vector of ``pid`` as /proc shows it, or None if gone."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            data = f.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return [a.decode("utf-8", "surrogateescape") for a in data.split(b"\0")[:-1]]


def is_ours(rec):
    """True if the process recorded in ``rec`` is still running (not a zombie) under its PID."""
    st = proc_stat(rec["pid"])
    if st is None or st[0] in "ZXx":
        return False
    if st[1] != rec["start_time"]:
        return False
    cmdline = rec.get("cmdline")
    return not cmdline or proc_cmdline(rec["pid"]) == cmdline


def _reap(pid):
    """Collect ``pid`` if it is our child, so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _wait_gone(rec, seconds):
    deadline = time.monotonic() + seconds
    while True:
        _reap(rec["pid"])
        if not is_ours(rec):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def stop_process(rec, grace=STOP_GRACE_S):
    """Stop the recorded process: SIGTERM, wait ``grace`` s, then SIGKILL.

    Returns "not running" (already gone, or the PID now names another process), "stopped",
    "killed", or "survived SIGKILL".
    """
    pid = rec["pid"]
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        # check identity only after the pidfd is open: from now on it pins this process
        if not is_ours(rec):
            return "not running"

        def send(sig):
            try:
                if pidfd is not None:
                    signal.pidfd_send_signal(pidfd, sig)
                else:
                    os.kill(pid, sig)
            except ProcessLookupError:
                pass

        send(signal.SIGTERM)
        if _wait_gone(rec, grace):
            return "stopped"
        send(signal.SIGKILL)
        return "killed" if _wait_gone(rec, KILL_GRACE_S) else "survived SIGKILL"
    finally:
        if pidfd is not None:
            os.close(pidfd)


def log_tail(path, lines=20):
    """The last ``lines`` lines of a log file, or a note that it is empty or missing."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 16384))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return "(no log at %s)" % path
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else "(log %s is empty)" % path


# ---------------------------------------------------------------------------------------------
# the state directory
# ---------------------------------------------------------------------------------------------

class StateDir:
    """One state directory: state.json, logs/, names/ and the lock file."""

    # every entry `up` (or a process it starts) writes: the running set's description, which
    # `down` removes, and what `down` keeps (the logs, for a look after the fact; the lock
    # file, which another `up` or `down` may be waiting on)
    RUNTIME_ENTRIES = (paths.STATE_FILE, paths.STATE_FILE + ".tmp", "viewer.url", "names")
    KEPT_ENTRIES = ("lock", "logs")
    # what a state directory may hold; `up` refuses a directory with anything else in it
    OWN_ENTRIES = frozenset(RUNTIME_ENTRIES + KEPT_ENTRIES)

    def __init__(self, path=None):
        if path is not None and not str(path).strip():
            # Path("") is the current directory: a state dir there would litter it
            raise LaunchError("the state directory path is empty")
        self.path = Path(path if path is not None else paths.default_state_dir())
        self.path = self.path.expanduser().resolve()

    state_file = property(lambda self: self.path / paths.STATE_FILE)
    logs_dir = property(lambda self: self.path / "logs")
    names_dir = property(lambda self: self.path / "names")

    lock_file = property(lambda self: self.path / "lock")
    viewer_url_file = property(lambda self: self.path / "viewer.url")

    def check_own(self):
        """LaunchError if the directory exists and holds anything a state dir does not (a
        source tree, a home directory...): `up` must not write its files among them."""
        try:
            foreign = sorted(p.name for p in self.path.iterdir()
                             if p.name not in self.OWN_ENTRIES)
        except FileNotFoundError:
            return
        except NotADirectoryError as exc:
            raise LaunchError("state directory %s is not a directory" % self.path) from exc
        if foreign:
            raise LaunchError("%s is not an hrpsim state directory (it holds %s%s); give a new "
                              "or empty directory with --state-dir"
                              % (self.path, ", ".join(foreign[:3]),
                                 ", ..." if len(foreign) > 3 else ""))

    @contextlib.contextmanager
    def locked(self, create=True):
        """Hold the directory's lock (blocking) for the duration of the block; yields True.

        With ``create`` false nothing is created: if there is no lock file (no `up` ever ran
        here, so none can be running) the block runs unlocked and receives False.
        """
        if create:
            self.path.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        else:
            try:
                fd = os.open(self.lock_file, os.O_RDWR | os.O_CLOEXEC)
            except FileNotFoundError:
                yield False
                return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield True
        finally:
            os.close(fd)  # releases the lock

    def load(self):
        """The recorded state, or None if there is none. Raises LaunchError if unreadable."""
        try:
            with open(self.state_file) as f:
                state = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise LaunchError("cannot read %s: %s (remove it if no hrpsim process of this "
                              "state dir is running)" % (self.state_file, exc)) from exc
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise LaunchError("%s has an unknown format; remove it if no hrpsim process of "
                              "this state dir is running" % self.state_file)
        return state

    def save(self, state):
        """Write ``state`` atomically (temporary file, then rename)."""
        tmp = self.state_file.with_suffix(".json.tmp")
        with open(tmp, "w") as f:
            json.dump(state, f, indent=2)
            f.write("\n")
        os.replace(tmp, self.state_file)

    def remove(self):
        """Remove the running set's files (RUNTIME_ENTRIES); the logs and the lock stay."""
        for name in self.RUNTIME_ENTRIES:
            p = self.path / name
            if p.is_dir() and not p.is_symlink():
                for f in p.iterdir():
                    with contextlib.suppress(FileNotFoundError):
                        f.unlink()
                with contextlib.suppress(FileNotFoundError, OSError):
                    p.rmdir()
            else:
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()


def read_state(state_dir=None):
    """The state recorded by `hrpsim up` in ``state_dir`` (default state dir), or None."""
    return StateDir(state_dir).load()


# ---------------------------------------------------------------------------------------------
# up
# ---------------------------------------------------------------------------------------------

def free_port(host=paths.LOOPBACK):
    """A TCP port on ``host`` that was free a moment ago (bind port 0, read it, close)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def check_listen(listen, model_roots):
    """Validate ``up``'s exposure options; return (listen address, absolute model roots).

    ``listen`` must be an address of this host that clients can use (not a wildcard);
    ``model_roots`` must be existing directories, at least one when ``listen`` exposes the
    servers (paths.is_exposed). Raises LaunchError.
    """
    roots = []
    for r in model_roots or ():
        p = Path(r).expanduser()
        if not p.is_dir():
            raise LaunchError("--model-root %s: not a directory" % r)
        roots.append(str(p.resolve()))
    if listen is None:
        return paths.LOOPBACK, roots
    host = listen.strip("[]")
    if host in ("", "0.0.0.0", "::", "*"):
        raise LaunchError("--listen needs the address clients will connect to (an address of "
                          "this host), not a wildcard such as %r" % listen)
    try:
        free_port(host)
    except (OSError, UnicodeError) as exc:
        raise LaunchError("--listen %s: not an address of this host (%s)"
                          % (listen, getattr(exc, "strerror", None) or exc)) from exc
    if paths.is_exposed(host) and not roots:
        raise LaunchError("--listen %s exposes the servers beyond this machine's loopback "
                          "address: give --model-root DIR (repeatable) for the model files the "
                          "ModelLoader may serve" % listen)
    return host, roots


class _Detached(subprocess.Popen):
    """A child meant to outlive this object and this process (no "still running" warning).

    It is reaped by `down` (waitpid) when that runs in the same process, else by init.
    """

    def __del__(self):
        pass


def _spawn(name, kind, argv, log_path, cwd, env=None):
    """Start ``argv`` in its own session with output to ``log_path``; return (Popen, record)."""
    with open(log_path, "wb") as log:
        proc = _Detached(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         cwd=str(cwd), start_new_session=True, close_fds=True, env=env)
    # the start time is fixed at fork; the command line may still be empty while the kernel
    # finishes the exec, so the caller reads it again once the process answers
    st = proc_stat(proc.pid)
    rec = {
        "name": name,
        "kind": kind,
        "exe": argv[0],
        "argv": list(argv),
        "pid": proc.pid,
        "start_time": st[1] if st else None,
        "cmdline": proc_cmdline(proc.pid),
        "log": str(log_path),
    }
    return proc, rec


def _exited(proc):
    code = proc.poll()
    return None if code is None else code


def _wait_naming(proc, corbaloc, deadline):
    """Wait until the naming service at ``corbaloc`` answers; False if ``proc`` exits first."""
    CORBA, _ = _orb.corba()
    orb = _orb.get_orb()
    while True:
        if proc is not None and _exited(proc) is not None:
            return False
        try:
            obj = _orb.set_call_timeout(orb.string_to_object(corbaloc), 1000)
            if not obj._non_existent():
                return True
        except CORBA.SystemException:
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def _start_naming(sd, port, timeout, host=paths.LOOPBACK):
    """Start omniNames on ``host``:``port`` (a free port if None); return (record, corbaloc)."""
    exe = paths.omninames_exe()
    if not os.access(exe, os.X_OK):
        raise LaunchError("naming service %s not found; install Debian's omniorb-nameserver "
                          "or pass --naming with an existing naming service" % exe)
    attempts = 1 if port else PORT_ATTEMPTS
    log_path = sd.logs_dir / "omniNames.log"
    for attempt in range(attempts):
        p = port or (free_port() if host == paths.LOOPBACK else free_port(host))
        # a fresh data dir each time: omniNames only honours -start with no data files
        if sd.names_dir.exists():
            for f in sd.names_dir.iterdir():
                f.unlink()
        sd.names_dir.mkdir(parents=True, exist_ok=True)
        argv = [str(exe), "-start", str(p), "-always", "-datadir", str(sd.names_dir),
                "-ORBendPoint", "giop:tcp:%s:%d" % (paths.endpoint_host(host), p)]
        proc, rec = _spawn("NameService", "naming", argv, log_path, sd.path)
        rec["port"] = p
        corbaloc = paths.corbaloc_for_port(p, host)
        if _wait_naming(proc, corbaloc, time.monotonic() + timeout):
            rec["cmdline"] = proc_cmdline(proc.pid) or rec["cmdline"]
            return rec, corbaloc
        code = _exited(proc)
        if code is None:
            stop_process(rec)
            raise LaunchError("omniNames on port %d did not answer within %g s; its log:\n%s"
                              % (p, timeout, log_tail(log_path)))
        proc.wait()
        if attempt + 1 == attempts:
            raise LaunchError("omniNames failed to start on port %d (exit code %d); its log:\n%s"
                              % (p, code, log_tail(log_path)))
        # most likely another program took the port between our probe and omniNames' bind
    raise AssertionError("unreachable")


def _plan_servers(bin_dir, only):
    """The servers to start as [(name, exe path)], and warnings for missing executables."""
    known = dict(paths.SERVERS)
    if only is not None:
        unknown = [n for n in only if n not in known]
        if unknown:
            raise LaunchError("unknown server name(s) %s; known: %s"
                              % (", ".join(unknown), ", ".join(known)))
    plan, missing = [], []
    for name, exe in paths.SERVERS:
        if only is not None and name not in only:
            continue
        path = Path(bin_dir) / exe
        if os.access(path, os.X_OK) and path.is_file():
            plan.append((name, path))
        elif only is not None:
            raise LaunchError("%s: executable %s not found (build it, or set HRPSIM_BIN_DIR / "
                              "--bin-dir)" % (name, path))
        else:
            missing.append(name)
    warnings = []
    if missing:
        warnings.append("not built, not started: %s (no executables in %s)"
                        % (", ".join(missing), bin_dir))
    return plan, warnings


def _wait_bound(ctx, name, proc, rec, previous_ior, timeout):
    """Wait until ``name`` is bound to a new, live object; return its IOR. LaunchError if not."""
    try:
        obj = _orb.wait_new_binding(ctx, name, lambda: _exited(proc), timeout, previous_ior,
                                    ping_ms=1000, interval=POLL_S)
    except _orb.NotBound as exc:
        if exc.code is not None:
            raise LaunchError("%s (%s) exited with code %d before binding %r; its log:\n%s"
                              % (name, rec["exe"], exc.code, name,
                                 log_tail(rec["log"]))) from None
        raise LaunchError("%s (%s, pid %d) did not bind %r in the naming service within "
                          "%g s; its log:\n%s"
                          % (name, rec["exe"], rec["pid"], name, timeout,
                             log_tail(rec["log"]))) from None
    rec["cmdline"] = proc_cmdline(proc.pid) or rec["cmdline"]
    return _orb.get_orb().object_to_string(obj)


def processes_alive(state):
    """The recorded processes of ``state`` that are still running."""
    return [r for r in state.get("processes", []) if is_ours(r)]


def _dynamics_context(root, index):
    """The naming context in which the ``index``-th extra dynamics server binds its name.

    hrpsim-dynamics always binds "DynamicsSimulatorFactory" in the root context of the naming
    service it is given; an extra process is given its own sub-context (named
    ``hrpsim-dynamics-<index>`` in the root) as its naming service, so it never replaces the
    first server's binding, and `up` then binds its factory in the root as
    DynamicsSimulatorFactory<index>. Any server binding that one name works this way.
    """
    _, CosNaming = _orb.corba()
    name = _orb.to_name("hrpsim-dynamics-%d" % index)
    try:
        return root.bind_new_context(name)
    except CosNaming.NamingContext.AlreadyBound:
        ctx = root.resolve(name)._narrow(CosNaming.NamingContext)
        if ctx is None:
            raise LaunchError("hrpsim-dynamics-%d is bound in the naming service to something "
                              "that is not a naming context" % index)
        return ctx


def viewer_argv(url_file, naming_ref, port=0):
    """Command line of the OnlineViewer server process (Python: ``-m hrpsim.viewer``)."""
    return [sys.executable, "-m", "hrpsim.viewer", "--url-file", str(url_file),
            "--port", str(int(port)), "-ORBInitRef", "NameService=" + naming_ref]


def viewer_env():
    """Environment of the viewer process: this hrpsim package importable first."""
    env = dict(os.environ)
    parts = [str(paths.PACKAGE_DIR.parent)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                               else [])
    env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


def _read_url(path, proc, rec, timeout):
    """The URL the viewer wrote to ``path`` (it writes it before binding its name)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            text = Path(path).read_text().strip()
            if text:
                return text
        except OSError:
            pass
        if _exited(proc) is not None or time.monotonic() >= deadline:
            raise LaunchError("the viewer (pid %d) did not write its URL to %s; its log:\n%s"
                              % (rec["pid"], path, log_tail(rec["log"])))
        time.sleep(POLL_S)


def up(state_dir=None, naming=None, naming_port=None, bin_dir=None, only=None, timeout=10.0,
       report=None, dynamics=1, viewer=False, viewer_port=0, listen=None, model_roots=(),
       allow_remote_shutdown=False):
    """Start the naming service (unless ``naming`` is given) and the servers; return the state.

    ``only`` is None for every known server whose executable exists (missing ones are
    reported as warnings), or a list of names (an empty list starts just the naming service;
    a missing executable is then an error). ``dynamics`` is the number of hrpsim-dynamics
    processes (default 1): the first binds DynamicsSimulatorFactory, the k-th extra one
    DynamicsSimulatorFactory<k> (see paths.dynamics_factory_name). ``viewer=True`` also
    starts the OnlineViewer server (``python -m hrpsim.viewer``, bound as ``OnlineViewer``)
    with its page on loopback port ``viewer_port`` (0: a free one); its URL is recorded as
    ``state["viewer_url"]``. ``report(kind, text)``
    receives progress lines, kind being "info" or "warning". On failure everything started is
    stopped again, the state file removed, and LaunchError raised.

    ``listen``: the address the naming service and the servers listen on (default 127.0.0.1);
    any other address exposes them (see check_listen), and then ``model_roots`` (directories)
    must name what the ModelLoader may serve. ``model_roots`` also restricts it on loopback.
    ``allow_remote_shutdown`` lets clients stop exposed servers with shutdown().
    """
    report = report or (lambda kind, text: None)
    if not isinstance(dynamics, int) or dynamics < 1:
        raise LaunchError("--dynamics must be a whole number >= 1 (got %r)" % (dynamics,))
    sd = StateDir(state_dir)
    bin_dir = Path(bin_dir).expanduser() if bin_dir else paths.default_bin_dir()
    if naming and naming_port:
        raise LaunchError("give either --naming or --naming-port, not both")
    host, roots = check_listen(listen, model_roots)
    sd.check_own()
    _orb.remove_stale_sockets()  # killed servers' sockets (the servers' directory, ours too)
    with sd.locked():
        old = sd.load()
        if old is not None:
            alive = processes_alive(old)
            if alive:
                raise AlreadyRunning(
                    "hrpsim is already running in %s (%s; naming service %s); run `hrpsim down"
                    " --state-dir %s` first" % (sd.path, ", ".join(
                        "%s pid %d" % (r["name"], r["pid"]) for r in alive),
                        old.get("naming"), sd.path))
            report("info", "removing stale state of a previous run (no process alive)")
            sd.remove()

        plan, warnings = _plan_servers(bin_dir, only)
        for w in warnings:
            report("warning", w)
        sd.logs_dir.mkdir(parents=True, exist_ok=True)

        state = {
            "format": STATE_FORMAT,
            "state_dir": str(sd.path),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "bin_dir": str(bin_dir),
            "naming": None,
            "naming_port": None,
            "naming_started": False,
            "listen": host,
            "exposed": paths.is_exposed(host),
            "model_roots": roots,
            "allow_remote_shutdown": bool(allow_remote_shutdown),
            "processes": [],
        }
        try:
            # the naming service
            if naming:
                _orb.naming_context(naming, LIVENESS_TIMEOUT_MS)  # raises if it does not answer
                state["naming"] = naming
            else:
                rec, corbaloc = _start_naming(sd, naming_port, timeout, host)
                state.update(naming=corbaloc, naming_port=rec["port"], naming_started=True)
                state["processes"].append(rec)
                sd.save(state)
                report("info", "naming service %s (omniNames, pid %d)" % (corbaloc, rec["pid"]))
            ctx = _orb.naming_context(state["naming"], LIVENESS_TIMEOUT_MS)

            # the servers: start them all, then wait for each to bind its name
            # (name bound in the root, exe, naming context it binds in, name it binds there,
            #  that context's reference as text, log file)
            launches = []
            for name, exe in plan:
                launches.append((name, exe, ctx, name, state["naming"],
                                 sd.logs_dir / (exe.name + ".log")))
                if name == paths.DYNAMICS_FACTORY:
                    for k in range(1, dynamics):
                        sub = _dynamics_context(ctx, k)
                        launches.append((paths.dynamics_factory_name(k), exe, sub, name,
                                         _orb.get_orb().object_to_string(sub),
                                         sd.logs_dir / ("%s-%d.log" % (exe.name, k))))
            if dynamics > 1 and not any(n == paths.DYNAMICS_FACTORY for n, _ in plan):
                report("warning", "--dynamics %d: hrpsim-dynamics is not started" % dynamics)
            if viewer:
                launches.append((paths.VIEWER, None, ctx, paths.VIEWER, state["naming"],
                                 sd.logs_dir / "hrpsim-viewer.log"))
            started = []
            for name, exe, bind_ctx, bind_name, naming_ref, log in launches:
                previous = _orb.bound_ior(bind_ctx, bind_name)
                # TCP on the listen address (loopback unless --listen); the C++ servers also
                # get a unix socket that local omniORB clients prefer (a round trip costs
                # noticeably less; they keep it in a private per-user directory)
                tcp = ["-ORBendPoint", "giop:tcp:%s:" % paths.endpoint_host(host)]
                env = None
                if exe is None:  # the viewer, a Python process: TCP only
                    url_file = sd.viewer_url_file
                    with contextlib.suppress(FileNotFoundError):
                        url_file.unlink()
                    argv = viewer_argv(url_file, naming_ref, viewer_port) + tcp
                    env = viewer_env()
                else:
                    argv = ([str(exe), "-ORBInitRef", "NameService=" + naming_ref] + tcp
                            + ["-ORBendPoint", "giop:unix:"])
                    if bind_name == "ModelLoader":
                        for root in roots:
                            argv += ["--model-root", root]
                    if allow_remote_shutdown:
                        argv.append("--allow-remote-shutdown")
                proc, rec = _spawn(name, "server", argv, log, sd.path, env)
                if bind_name != name:
                    rec["context"] = "hrpsim-dynamics-%d" % paths.dynamics_factory_index(name)
                state["processes"].append(rec)
                sd.save(state)
                started.append((name, proc, rec, previous, bind_ctx, bind_name))
            for name, proc, rec, previous, bind_ctx, bind_name in started:
                rec["ior"] = _wait_bound(bind_ctx, bind_name, proc, rec, previous, timeout)
                if name == paths.VIEWER:
                    rec["url"] = state["viewer_url"] = _read_url(
                        sd.viewer_url_file, proc, rec, timeout)
                if bind_name != name:
                    ctx.rebind(_orb.to_name(name), _orb.get_orb().string_to_object(rec["ior"]))
                sd.save(state)
                report("info", "%s bound (%s, pid %d)" % (name, Path(rec["exe"]).name,
                                                          rec["pid"]))
        except BaseException:
            if state["processes"]:
                report("info", "start failed; stopping what was started")
                _stop_all(state, report)
            sd.remove()
            raise
        sd.save(state)
        return state


# ---------------------------------------------------------------------------------------------
# down
# ---------------------------------------------------------------------------------------------

def _stop_all(state, report):
    """Stop the servers of ``state`` (last started first), then the naming service."""
    recs = state.get("processes", [])
    servers = [r for r in recs if r.get("kind") == "server"][::-1]
    naming = [r for r in recs if r.get("kind") == "naming"]
    results = []
    for rec in servers + naming:
        outcome = stop_process(rec) if rec.get("start_time") is not None else "not running"
        results.append((rec, outcome))
        if report:
            report("info", "%s (pid %d): %s" % (rec["name"], rec["pid"], outcome))
    return results


def _unbind_ours(state):
    """With an external naming service, unbind names that still point at our (dead) servers."""
    CORBA, CosNaming = _orb.corba()
    try:
        ctx = _orb.naming_context(state["naming"], LIVENESS_TIMEOUT_MS)
    except HrpsimError:
        return
    for rec in state.get("processes", []):
        if rec.get("kind") != "server" or not rec.get("ior"):
            continue
        try:
            if _orb.bound_ior(ctx, rec["name"]) == rec["ior"]:
                ctx.unbind(_orb.to_name(rec["name"]))
        except (CORBA.SystemException, CosNaming.NamingContext.NotFound):
            pass
        if rec.get("context"):
            # the sub-context an extra dynamics server bound its name in (see up)
            try:
                sub = _orb.resolve_name(ctx, rec["context"])
                sub = sub._narrow(CosNaming.NamingContext) if sub is not None else None
                if sub is not None:
                    ctx.unbind(_orb.to_name(rec["context"]))
                    sub.destroy()
            except (CORBA.SystemException, CosNaming.NamingContext.NotFound,
                    CosNaming.NamingContext.NotEmpty):
                pass


def down(state_dir=None, report=None):
    """Stop what `up` recorded in ``state_dir``; return [(record, outcome)] (empty if nothing).

    Idempotent: with no state file it does nothing. Raises LaunchError if a process survives
    SIGKILL (the state file is then kept).
    """
    report = report or (lambda kind, text: None)
    sd = StateDir(state_dir)
    # never create anything here: `down` in a directory where `up` never ran (no lock file)
    # must leave it as it was
    with sd.locked(create=False):
        state = sd.load()
        if state is None:
            return []
        results = _stop_all(state, report)
        _orb.remove_stale_sockets()  # what the servers it had to kill left behind
        stuck = [r for r, outcome in results if outcome == "survived SIGKILL"]
        if stuck:
            raise LaunchError("could not stop %s" % ", ".join(
                "%s (pid %d)" % (r["name"], r["pid"]) for r in stuck))
        if not state.get("naming_started") and state.get("naming"):
            _unbind_ours(state)
        sd.remove()
        return results


# ---------------------------------------------------------------------------------------------
# status
# ---------------------------------------------------------------------------------------------

def status(state_dir=None):
    """The state of ``state_dir`` and one row per recorded process, or None if nothing recorded.

    Each row is a dict: name, kind, pid, exe, alive (bool), binding (text: "answers",
    "bound, answers", "bound, not answering", "bound to another object", "not bound",
    "naming service unreachable") and ok (alive and answering).
    """
    sd = StateDir(state_dir)
    state = sd.load()
    if state is None:
        return None
    ctx = None
    try:
        ctx = _orb.naming_context(state["naming"], LIVENESS_TIMEOUT_MS)
    except HrpsimError:
        ctx = None
    CORBA, _ = _orb.corba()
    rows = []
    for rec in state.get("processes", []):
        alive = is_ours(rec)
        if rec["kind"] == "naming":
            binding = "answers" if ctx is not None else "not answering"
            ok = alive and ctx is not None
        elif ctx is None:
            binding, ok = "naming service unreachable", False
        else:
            try:
                obj = _orb.resolve_name(ctx, rec["name"])
            except CORBA.SystemException:
                obj = None
            if obj is None:
                binding, ok = "not bound", False
            else:
                answers = _orb.is_alive(obj, LIVENESS_TIMEOUT_MS)
                ours = _orb.get_orb().object_to_string(obj) == rec.get("ior")
                if not ours:
                    binding = "bound to another object, " + (
                        "answers" if answers else "not answering")
                else:
                    binding = "bound, answers" if answers else "bound, not answering"
                ok = alive and answers and ours
        rows.append({"name": rec["name"], "kind": rec["kind"], "pid": rec["pid"],
                     "exe": rec["exe"], "alive": alive, "binding": binding, "ok": ok})
    if not state.get("naming_started"):
        rows.insert(0, {"name": "NameService", "kind": "naming", "pid": None,
                        "exe": "(external)", "alive": ctx is not None,
                        "binding": "answers" if ctx is not None else "not answering",
                        "ok": ctx is not None})
    return state, rows
