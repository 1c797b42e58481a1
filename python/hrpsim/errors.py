"""hrpsim's exceptions: one class per kind of mistake, the same on every back end.

A mistake raises the same class with the same message whichever back end runs it (the local
core, the servers client-driven, the scheduler; tests/e2e/test_errors.py), every class an
``hrpsim.HrpsimError`` and the builtin that fits:

    ModelError        a model file that does not load (a ValueError); ``file``, ``line``,
                      ``column`` (0: unknown) and ``problem``; the message is
                      "file:line:column: problem", as the ModelLoader's
    ModelFileNotFound the model file does not exist (a ModelError and a FileNotFoundError)
    UnknownName       a character, link or joint name the simulation does not have (a
                      BadArgument and a KeyError, so a LookupError)
    BadArgument       a bad value (a ValueError and a LookupError)
    CallOrderError    a call out of order: configuring a started simulation, stepping one
                      without models, any call on a closed one
    Unsupported       something this back end does not do (a NotImplementedError)

Errors of hrpsim's servers carry the server's reason.

OpenHRP's DynamicsSimulator and CollisionDetector declare no exceptions, so a refused request
reaches a client as a bare CORBA system exception (``CORBA.BAD_PARAM(0x0, COMPLETED_NO)``)
while the reason ("setCharacterLinkData: character 'robot' has no link 'NOSUCHLINK'") goes to
the server's log. hrpsim's servants also implement ``hrpsim::Diagnostics`` (idl/Diagnostics.idl):
``lastError()`` returns "<operation>: <reason>" of the last request the object refused (and
clears it). ``explained(ref)`` wraps an object reference so that a refused call raises one of
the exceptions below, its message that text, chained (``from``) to the CORBA exception:

    CORBA.BAD_PARAM      BadArgument    (a ValueError and a LookupError: a bad value or name)
    CORBA.BAD_INV_ORDER  CallOrderError (a call out of order, e.g. a step before init)
    CORBA.NO_IMPLEMENT   Unsupported    (a NotImplementedError)
    CORBA.NO_PERMISSION  NotPermitted   (a PermissionError)
    CORBA.NO_MEMORY      ServerError
    SchedulerError       SchedulerRefused (a ValueError; its description is the message)

Only the servers' refusals (completed NO, minor code 0) are translated; everything else (a
lost connection, a timeout, a runaway's BAD_OPERATION completed YES, omniORB's own BAD_PARAM for
a Python value of the wrong type) is raised as it came. hrpsim.Simulation, the
controllers' ``self.dynamics`` (hrpsim.controller) and ``Client.collision_detector()`` use it;
``Client.dynamics_simulator()`` and ``Client.resolve`` give plain references, as OpenHRP's
clients expect. The reason is kept per object: one client's DynamicsSimulator or
CollisionDetector is its own, while the Scheduler and the DynamicsSimulator it hosts are
shared by the clients of one run, so there two clients refused at the same moment may read
each other's reason.
"""

import errno
import os
import re

from ._orb import HrpsimError, corba, describe_exception

__all__ = ["ServerError", "BadArgument", "UnknownName", "CallOrderError", "Unsupported",
           "NotPermitted", "SchedulerRefused", "ModelError", "ModelFileNotFound", "model_error",
           "explained", "unwrap", "last_error"]


class ServerError(HrpsimError):
    """A request refused (by a server, the in-process core or hrpsim.Simulation itself). The
    message is the reason (a server's: "<operation>: <reason>"); ``operation`` is the
    operation called and ``corba`` the CORBA exception it raised (also ``__cause__``; None
    off the wire)."""

    def __init__(self, message, operation=None, corba_exception=None):
        super().__init__(message)
        self.operation = operation
        self.corba = corba_exception


class BadArgument(ServerError, ValueError, LookupError):
    """A bad argument (CORBA.BAD_PARAM): a wrong name (catch it as LookupError) or a wrong value
    (as ValueError)."""


class UnknownName(BadArgument, KeyError):
    """A name the simulation does not have: a character, a link, a joint (a BadArgument and
    a KeyError: catch it as LookupError). Its text is the message, unquoted."""

    __str__ = BaseException.__str__   # not KeyError's, which quotes the message


class CallOrderError(ServerError):
    """A call out of order (CORBA.BAD_INV_ORDER): a step before init, a registration after it."""


class Unsupported(ServerError, NotImplementedError):
    """Something the server does not implement (CORBA.NO_IMPLEMENT)."""


class NotPermitted(ServerError, PermissionError):
    """A request the server does not allow this client (CORBA.NO_PERMISSION)."""


class SchedulerRefused(ServerError, ValueError):
    """The Scheduler refused a request (hrpsim::SchedulerError); the message is its
    description."""


class ModelError(HrpsimError, ValueError):
    """A model file that does not load: it cannot be read, does not parse or is not a valid
    body. The message is "file:line:column: problem" with as much of the location as is
    known, the same from the local core and from a ModelLoader; ``file``, ``line`` and
    ``column`` (0: unknown) and ``problem`` are its parts."""

    def __init__(self, message, file="", line=0, column=0, problem=None):
        super().__init__(message)
        self.file = file
        self.line = line
        self.column = column
        self.problem = message if problem is None else problem

    def __reduce__(self):  # the location survives pickling (sweeps' worker processes)
        return (type(self), (str(self), self.file, self.line, self.column, self.problem))


class ModelFileNotFound(ModelError, FileNotFoundError):
    """The model file does not exist (on a ModelLoader with model roots: not under them)."""


# "file:line:column: problem", "file:line: problem" or "file: problem" (hsu_formatError)
_LOCATED = re.compile(r"^(?P<file>[^:\n]+?)(?::(?P<line>\d+))?(?::(?P<column>\d+))?: "
                      r"(?P<problem>.*)$", re.S)


def model_error(text, file=None, line=0, column=0, problem=None):
    """The ModelError (ModelFileNotFound for a missing file) for a loader's message ``text``
    ("file:line:column: problem", as the ModelLoader's ModelLoaderException and the core's
    hsError say it); the location is read from ``text`` unless ``file`` is given."""
    if file is None:
        m = _LOCATED.match(text)
        if m is not None:
            file, problem = m.group("file").strip("'"), m.group("problem")
            line, column = int(m.group("line") or 0), int(m.group("column") or 0)
        else:
            file = ""
    problem = text if problem is None else problem
    missing = problem.endswith(os.strerror(errno.ENOENT)) or \
        problem.startswith("no such model file")
    return (ModelFileNotFound if missing else ModelError)(text, file, line, column, problem)


_KINDS = {"BAD_PARAM": BadArgument, "BAD_INV_ORDER": CallOrderError,
          "NO_IMPLEMENT": Unsupported, "NO_PERMISSION": NotPermitted, "NO_MEMORY": ServerError}


def last_error(ref):
    """``lastError()`` of the object behind ``ref`` if it is an hrpsim::Diagnostics, else "" (an
    OpenHRP server, or no answer)."""
    CORBA, _ = corba()
    from ._idl import hrpsim as H
    try:
        diag = ref if hasattr(ref, "lastError") else ref._narrow(H.Diagnostics)
        return diag.lastError() if diag is not None else ""
    except CORBA.SystemException:
        return ""


def explain(ref, operation, exc):
    """The Python exception for ``exc``, raised by ``operation`` on ``ref``, or None if it is
    not a refusal (see the module text)."""
    CORBA, _ = corba()
    from ._idl import hrpsim as H
    if isinstance(exc, H.SchedulerError):
        return SchedulerRefused(exc.description, operation, exc)
    cls = _KINDS.get(type(exc).__name__)
    # hrpsim's servers refuse with minor code 0; omniORB's own (a Python value of the wrong
    # type, refused before anything was sent) have minor codes of their own
    if cls is None or not isinstance(exc, CORBA.SystemException) or \
            exc.completed != CORBA.COMPLETED_NO or exc.minor != 0:
        return None
    reason = last_error(ref)
    if not reason:
        reason = "%s: refused by the server (%s; it gave no reason: not an hrpsim server, " \
                 "or another client read it first)" % (operation, describe_exception(exc))
    return cls(reason, operation, exc)


class Explained:
    """An object reference whose refused calls raise ServerError subclasses with the server's
    reason (see the module text). Attributes other than operations are the reference's;
    ``unwrap(x)`` gives the reference itself (to pass it on in a CORBA call)."""

    __slots__ = ("_ref",)

    def __init__(self, ref):
        object.__setattr__(self, "_ref", ref)

    def __getattr__(self, name):
        attr = getattr(self._ref, name)
        if name.startswith("_") or not callable(attr):
            return attr
        ref = self._ref

        def call(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - only refusals are translated
                translated = explain(ref, name, exc)
                if translated is None:
                    raise
                raise translated from exc

        call.__name__ = name
        return call

    def __repr__(self):
        return "<explained %r>" % (self._ref,)


def explained(ref):
    """``ref`` wrapped so that refused calls raise with the server's reason (None stays None,
    an already wrapped reference is returned as it is)."""
    if ref is None or isinstance(ref, Explained):
        return ref
    return Explained(ref)


def unwrap(ref):
    """The plain object reference behind ``explained(ref)`` (anything else unchanged)."""
    return ref._ref if isinstance(ref, Explained) else ref
