"""The process-wide ORB and the few naming-service operations hrpsim needs.

omniORBpy allows one ORB per process, so ``get_orb`` initialises it on first use and returns
the same ORB afterwards. Naming contexts are reached through their corbaloc URL with
``string_to_object`` rather than ``resolve_initial_references``, so one process can talk to
several naming services (two ``hrpsim up`` state dirs at once) even though the ORB's
``-ORBInitRef NameService`` can be set only once.

A process that serves objects (a controller, an execution context) listens on 127.0.0.1
unless ``$HRPSIM_LISTEN`` names another address of this host or the ORB arguments give an
``-ORBendPoint`` (omniORB alone would listen on every interface), and on a unix socket in
the private per-user directory the C++ servers use, which local omniORB peers (the scheduler
calling a controller) prefer. Pure clients never listen.
"""

import os
import sys
import threading
import time

_lock = threading.Lock()
_orb = None
_tasks_before_orb = frozenset()  # the process's threads before the ORB started (Linux)

# BodyInfo objects with meshes and textures easily exceed omniORB's 2 MiB default.
DEFAULT_ORB_ARGS = ("-ORBgiopMaxMsgSize", str(1024 * 1024 * 1024))  # as the servers


class HrpsimError(RuntimeError):
    """A problem hrpsim can explain to its user (no naming service, server not answering...)."""


def corba():
    """Import omniORBpy's CORBA and CosNaming modules, with a clear error if it is missing."""
    try:
        from omniORB import CORBA
        import CosNaming
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "hrpsim needs omniORBpy: install the PyPI package jeteve-omniorb (%s)" % exc) from exc
    return CORBA, CosNaming


def get_orb(args=(), naming=None):
    """The process's ORB, initialised on the first call.

    ``args`` are extra omniORB options (``-ORBxxx value`` pairs) and ``naming`` a corbaloc
    that becomes the ORB's ``NameService`` initial reference; both only take effect on the
    first call in a process.
    """
    global _orb, _tasks_before_orb
    with _lock:
        if _orb is None:
            CORBA, _ = corba()
            _tasks_before_orb = frozenset(_process_tasks())
            argv = ["hrpsim"] + list(DEFAULT_ORB_ARGS)
            if naming:
                argv += ["-ORBInitRef", "NameService=" + naming]
            argv += list(args)
            argv += default_endpoint_args(argv)
            _orb = CORBA.ORB_init(argv, CORBA.ORB_ID)
        return _orb


def _process_tasks():
    """The ids of this process's threads (an empty list where /proc is not there)."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return []


def wait_for_orb_threads(timeout=2.0):
    """After ``orb.destroy()``, wait up to ``timeout`` seconds until the threads omniORB
    started have ended; True when they have (or cannot be seen).

    ``destroy`` returns once omniORB's threads have finished their work, not once they have
    exited: a thread's exit still releases its Python thread state and takes the GIL for it.
    If the interpreter is finalising by then (a script that calls ``sys.exit`` right after
    serving), that thread is unwound through omniORB's C++ frames and the process aborts
    ("terminate called without an active exception"). Threads that existed before the ORB
    and Python's own threads are not waited for.
    """
    deadline = time.monotonic() + timeout
    while True:
        python_threads = {t.native_id for t in threading.enumerate()
                          if not isinstance(t, threading._DummyThread)}
        left = set(_process_tasks()) - _tasks_before_orb - python_threads
        if not left:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)


def naming_from_orb_args(orb_args):
    """The corbaloc of ``-ORBInitRef NameService=...`` in ``orb_args``, or None."""
    for i, a in enumerate(orb_args):
        if a == "-ORBInitRef" and i + 1 < len(orb_args) and \
                orb_args[i + 1].startswith("NameService="):
            return orb_args[i + 1][len("NameService="):]
    return None


class ServedObject:
    """One CORBA object a server process offers under a name in the naming service.

    Construction starts the ORB (``-ORBInitRef NameService=...`` in ``orb_args``, other
    ``-ORB`` options apply too; the naming service is ``naming``, else the one in
    ``orb_args``, else ``$HRPSIM_NAMING``, else `hrpsim up`'s state), makes the servant with
    ``make_servant()`` and activates it; ``bind`` then names it, ``unbind`` and ``finish`` (or
    ``close``, both) end it. Use it from the main thread.
    """

    def __init__(self, make_servant, name, orb_args=(), naming=None):
        from . import naming_from_environment

        self.name = name
        self.naming = naming or naming_from_orb_args(orb_args) or naming_from_environment()
        self.orb = get_orb(orb_args, naming=self.naming)
        poa = self.orb.resolve_initial_references("RootPOA")
        self.ref = make_servant()._this()
        poa._get_the_POAManager().activate()
        self.ctx = naming_context(self.naming, 5000)

    def bind(self):
        """Bind the name to this object (replacing what was bound there)."""
        self.ctx.rebind(to_name(self.name), self.ref)

    def unbind(self):
        """Unbind the name if it still names this object (and the naming service is there)."""
        CORBA, _ = corba()
        try:
            if bound_ior(self.ctx, self.name) == self.orb.object_to_string(self.ref):
                self.ctx.unbind(to_name(self.name))
        except CORBA.Exception:  # noqa: BLE001 - the naming service may already be gone
            pass

    def finish(self):
        """Finish the ORB: shutdown(True) waits for calls in progress and for the POAs to go
        down, destroy() releases the rest, here in the main thread; then wait until omniORB's
        threads have exited (``wait_for_orb_threads``), so that the interpreter may finalise
        afterwards."""
        CORBA, _ = corba()
        try:
            self.orb.shutdown(True)
            self.orb.destroy()
        except CORBA.Exception:
            pass
        wait_for_orb_threads()

    def close(self):
        """``unbind`` then ``finish``."""
        self.unbind()
        self.finish()


def serve_object(make_servant, name, orb_args=(), label=None):
    """Serve one CORBA object bound as ``name`` in the naming service until SIGTERM or SIGINT,
    then unbind it and finish the ORB (see ServedObject). Returns 0.

    ``make_servant()`` makes the servant once the ORB is up (an OpenHRP ``Controller``, say).
    A line "LABEL: bound as 'NAME' in CORBALOC" is printed once the name is bound. Call it
    from the main thread; leave the process through ``end_server_process(None, status)``
    afterwards.
    """
    import signal

    served = ServedObject(make_servant, name, orb_args)
    served.bind()
    print("%s: bound as %r in %s" % (label or name, name, served.naming), flush=True)

    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: done.set())
    while not done.wait(0.2):
        pass
    served.close()
    return 0


def end_server_process(orb, status=0):
    """Finish a process that served CORBA objects and exit with ``status``, skipping Python's
    finalisation (``orb`` None: the ORB is finished already).

    ``orb.shutdown(True)`` waits for calls in progress and for the POAs to go down, and
    ``destroy()`` releases the rest, in the calling (main) thread. The process then leaves
    through ``os._exit`` after flushing stdio and the logging handlers: omniORB's own threads
    may still be winding down, and one that asks for the GIL while the interpreter finalises
    is ended by a forced unwind that omniORB's C++ frames turn into ``std::terminate``
    ("terminate called without an active exception", SIGABRT) - seen now and then on a
    controller or the viewer stopped by SIGTERM. Never returns.
    """
    import logging

    if orb is not None:
        try:
            orb.shutdown(True)
            orb.destroy()
        except Exception:  # noqa: BLE001 - exiting anyway; the ORB may be half gone
            pass
        wait_for_orb_threads()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe must not change the exit status
            pass
    os._exit(status)


def default_endpoint_args(argv, environ=None):
    """The endpoints of an ORB whose ``argv`` (and environment) names none: ``-ORBendPoint
    giop:tcp:HOST:`` (HOST is ``$HRPSIM_LISTEN`` or 127.0.0.1), published for OpenHRP peers,
    and without ``$HRPSIM_LISTEN`` also ``giop:unix:`` in the private per-user socket
    directory (``private_socket_dir``, sockets 0600; left out if there is none), which local
    omniORB peers such as the scheduler prefer: a round trip costs less than over loopback
    TCP. [] when an endpoint is given. Only a process that serves objects listens (pure
    clients never do)."""
    environ = os.environ if environ is None else environ
    if "ORBendPoint" in environ or any(
            a in ("-ORBendPoint", "-ORBendPointNoPublish") for a in argv):
        return []
    listen = environ.get("HRPSIM_LISTEN", "").strip()
    host = (listen or "127.0.0.1").strip("[]")
    out = ["-ORBendPoint", "giop:tcp:%s:" % ("[%s]" % host if ":" in host else host)]
    if listen:
        return out  # called from another host: TCP on that address only
    if "-ORBunixTransportDirectory" in argv or "ORBunixTransportDirectory" in environ:
        out += ["-ORBendPoint", "giop:unix:"]
    else:
        d = private_socket_dir(environ)
        if d is None:
            return out
        out += ["-ORBendPoint", "giop:unix:", "-ORBunixTransportDirectory", d]
    if "-ORBunixTransportPermission" not in argv and \
            "ORBunixTransportPermission" not in environ:
        out += ["-ORBunixTransportPermission", "0600"]
    return out


def private_socket_dir(environ=None):
    """The per-user directory for unix sockets, as the C++ servers choose it
    (server/common/runtime.cpp): $XDG_RUNTIME_DIR/hrpsim, else /tmp/hrpsim-<uid>, made 0700
    if missing; None if it is not a private directory of ours (a link, another owner...)."""
    import stat
    environ = os.environ if environ is None else environ
    candidates = []
    xdg = environ.get("XDG_RUNTIME_DIR", "")
    if xdg.startswith("/"):
        candidates.append(xdg + "/hrpsim")
    candidates.append("/tmp/hrpsim-%d" % os.geteuid())
    for path in candidates:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
                return None
            if stat.S_IMODE(st.st_mode) != 0o700:
                os.chmod(path, 0o700)
        except OSError:
            return None
        return path
    return None


def remove_stale_sockets(directory=None):
    """Remove the unix sockets of processes that are gone from the per-user socket directory
    (``private_socket_dir``, or ``directory``): omniORB names each "<pid>-<n>" and removes it
    on a clean shutdown, so a killed server leaves its socket behind. A socket goes only if its
    process is gone and nothing accepts on it (a live server's socket is never touched).
    Returns the names removed."""
    import errno
    import re
    import socket
    import stat
    directory = directory or private_socket_dir()
    removed = []
    if directory is None:
        return removed
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in sorted(names):
        m = re.fullmatch(r"(\d+)-\d+", name)
        path = os.path.join(directory, name)
        try:
            if m is None or not stat.S_ISSOCK(os.lstat(path).st_mode) or \
                    _process_exists(int(m.group(1))):
                continue
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(1.0)
                try:
                    probe.connect(path)
                    continue            # someone listens there: not ours to remove
                except OSError as exc:
                    if exc.errno not in (errno.ECONNREFUSED, errno.ENOENT):
                        continue
            os.unlink(path)
            removed.append(name)
        except OSError:
            continue
    return removed


def _process_exists(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True   # another user's: it exists
    return True


def set_call_timeout(obj, millis):
    """Limit how long calls on ``obj`` may block (omniORB per-reference timeout)."""
    if millis:
        import omniORB
        omniORB.setClientCallTimeout(obj, int(millis))
    return obj


def naming_context(naming, timeout_ms=None):
    """The root naming context at corbaloc/IOR ``naming``, checked to answer.

    Raises HrpsimError if nothing answers there or it is not a naming context.
    """
    CORBA, CosNaming = corba()
    orb = get_orb(naming=naming)
    try:
        obj = orb.string_to_object(naming)
    except CORBA.BAD_PARAM as exc:
        raise HrpsimError("not a valid corbaloc or IOR: %r" % naming) from exc
    set_call_timeout(obj, timeout_ms)
    try:
        ctx = obj._narrow(CosNaming.NamingContext)
    except CORBA.SystemException as exc:
        raise HrpsimError("no naming service answers at %s (%s); is `hrpsim up` running?"
                          % (naming, describe_exception(exc))) from exc
    if ctx is None:
        raise HrpsimError("%s is not a CosNaming naming context" % naming)
    return set_call_timeout(ctx, timeout_ms)


def to_name(name):
    """A CosNaming name from ``"A/B"``-style text (empty kinds) or an existing name."""
    _, CosNaming = corba()
    if not isinstance(name, str):
        return list(name)
    return [CosNaming.NameComponent(part, "") for part in name.split("/") if part]


def resolve_name(ctx, name):
    """The object bound to ``name`` in ``ctx``, or None if nothing is bound there."""
    _, CosNaming = corba()
    try:
        return ctx.resolve(to_name(name))
    except (CosNaming.NamingContext.NotFound, CosNaming.NamingContext.InvalidName):
        return None


def bound_ior(ctx, name):
    """The IOR string of the object bound to ``name`` in ``ctx`` now, or None."""
    obj = resolve_name(ctx, name)
    return get_orb().object_to_string(obj) if obj is not None else None


class NotBound(Exception):
    """``wait_new_binding`` gave up: ``code`` is the exit status of the process that ended
    first, or None when the wait timed out."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


def wait_new_binding(ctx, name, exit_code, timeout, previous_ior=None, ping_ms=1000,
                     ready=None, interval=0.05):
    """Wait until ``name`` in ``ctx`` is bound to a live object other than ``previous_ior``
    (and ``ready()``, if given, is true); return that object.

    The spawn-then-wait step of every process hrpsim starts: ``exit_code()`` is the started
    process's exit status, None while it runs. Raises NotBound(status) if the process ends
    first, NotBound(None) after ``timeout`` s. CORBA system exceptions on the way (a naming
    service or server still starting) count as "not yet".
    """
    CORBA, _ = corba()
    deadline = time.monotonic() + timeout
    while True:
        code = exit_code()
        if code is not None:
            raise NotBound(code)
        try:
            obj = resolve_name(ctx, name)
            if obj is not None \
                    and (previous_ior is None
                         or get_orb().object_to_string(obj) != previous_ior) \
                    and (ready is None or ready()) and is_alive(obj, ping_ms):
                return obj
        except CORBA.SystemException:
            pass
        if time.monotonic() >= deadline:
            raise NotBound(None)
        time.sleep(interval)


def bound_names(ctx, limit=1000):
    """Names bound in ``ctx`` (one level), as ``"id"`` or ``"id.kind"`` strings."""
    bindings, it = ctx.list(limit)
    if it is not None:
        it.destroy()
    out = []
    for b in bindings:
        comp = b.binding_name[-1]
        out.append(comp.id + ("." + comp.kind if comp.kind else ""))
    return out


def is_alive(obj, timeout_ms=3000):
    """True if ``obj`` answers ``_non_existent()`` with false within ``timeout_ms``."""
    CORBA, _ = corba()
    if obj is None:
        return False
    try:
        set_call_timeout(obj, timeout_ms)
        return not obj._non_existent()
    except CORBA.SystemException:
        return False


def describe_exception(exc):
    """Short text for a CORBA system exception: its name and minor code."""
    minor = getattr(exc, "minor", None)
    name = type(exc).__name__
    return "%s (minor 0x%x)" % (name, minor) if isinstance(minor, int) else name
