"""The live viewer's hold on the run it shows: pause, resume, step and push, from the page.

`hrpsim run --view` hands the viewer's page server the run's Scheduler (``POST api/control``
with ``{"scheduler": IOR}``; ``null`` takes it back when the run ends). A page then sends
JSON requests over its WebSocket, and ``RunControl.request`` turns each into one Scheduler
call, made on one thread of its own so requests keep their order:

    {"op": "state"}                          the run's state (nothing changes)
    {"op": "pause"} / {"op": "resume"}       Scheduler.pause() / resume()
    {"op": "step", "seconds": S}             runUntil(time + S) of a paused run: the page
                                             sends one viewer frame's time, so the run
                                             advances by that frame's steps and stays paused
    {"op": "push", "character": C, "link": L, "point": [x, y, z], "target": [x, y, z],
     "stiffness": K, "damping": D, "maxForce": F}
                                             Scheduler.push: from the next step on, pull the
                                             point (link frame [m]) towards the target (world
                                             frame [m]) with a spring of K [N/m] and a damper
                                             of D [N s/m], at most F [N], until
    {"op": "release"}                        Scheduler.release()

Each answer is ``{"type": "control", "op": OP, "ok": bool, "error": text or None, "state":
RunState name, "time": s, "steps": n}`` (state, time and steps read after the call; None
without a run). The run stays deterministic when nobody uses the page: nothing here calls
the Scheduler unless a page asks.
"""

import logging
import math
import threading

log = logging.getLogger("hrpsim.viewer")

CALL_TIMEOUT_MS = 10000   # pause() waits for the step in progress; a step of one frame


class RunControl:
    """The Scheduler of the run on display (or none), and the requests pages make of it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._sched = None

    @property
    def available(self):
        """True while a run's Scheduler is attached."""
        with self._lock:
            return self._sched is not None

    def attach(self, ior):
        """Attach the Scheduler whose stringified reference is ``ior`` (None: detach).
        Raises ValueError for a reference that is not a Scheduler's."""
        if ior is None:
            with self._lock:
                self._sched = None
            log.info("run control: detached")
            return
        from .. import _orb
        import hrpsim._idl.hrpsim as H
        CORBA, _ = _orb.corba()
        if not isinstance(ior, str) or not ior.startswith(("IOR:", "corbaloc:")):
            raise ValueError("not an object reference: %r" % (ior,))
        try:
            obj = _orb.get_orb().string_to_object(ior)
            sched = obj._narrow(H.Scheduler)
        except CORBA.Exception as exc:
            raise ValueError("cannot reach that Scheduler (%s)"
                             % _orb.describe_exception(exc)) from exc
        if sched is None:
            raise ValueError("the reference is not a hrpsim Scheduler")
        _orb.set_call_timeout(sched, CALL_TIMEOUT_MS)
        with self._lock:
            self._sched = sched
        log.info("run control: attached")

    def request(self, msg):
        """Carry out one page request (see the module text); returns the answer."""
        op = msg.get("op") if isinstance(msg, dict) else None
        with self._lock:
            sched = self._sched
        answer = {"type": "control", "op": op, "ok": False, "error": None, "state": None,
                  "time": None, "steps": None}
        if sched is None:
            answer["error"] = "no run to control (the viewer shows none, or it has ended)"
            return answer
        try:
            self._call(sched, op, msg)
            answer["ok"] = True
        except (ValueError, TypeError) as exc:
            answer["error"] = str(exc)
        except Exception as exc:  # noqa: BLE001 - SchedulerError or a CORBA failure: say it
            answer["error"] = getattr(exc, "description", None) or _describe(exc)
        try:
            st = sched.status()
            answer.update(state=getattr(st.state, "_n", str(st.state)), time=st.time,
                          steps=int(st.steps))
        except Exception as exc:  # noqa: BLE001 - the run's process is gone
            answer["error"] = answer["error"] or _describe(exc)
        if answer["error"]:
            log.warning("run control: %s: %s", op, answer["error"])
        return answer

    @staticmethod
    def _call(sched, op, msg):
        import hrpsim._idl.hrpsim as H
        if op == "state":
            return
        if op == "pause":
            sched.pause()
        elif op == "resume":
            sched.resume()
        elif op == "step":
            seconds = float(msg.get("seconds", 0.0))
            if not (math.isfinite(seconds) and 0.0 < seconds <= 10.0):
                raise ValueError("step: seconds must be in (0, 10], got %r" % seconds)
            sched.runUntil(sched.status().time + seconds)
        elif op == "push":
            point = [float(x) for x in msg["point"]]
            target = [float(x) for x in msg["target"]]
            sched.push(H.PushSpec(str(msg["character"]), str(msg["link"]), point, target,
                                  float(msg["stiffness"]), float(msg["damping"]),
                                  float(msg["maxForce"])))
        elif op == "release":
            sched.release()
        else:
            raise ValueError("unknown request %r (state, pause, resume, step, push, release)"
                             % (op,))


def _describe(exc):
    from .. import _orb
    try:
        return _orb.describe_exception(exc)
    except Exception:  # noqa: BLE001 - not a CORBA exception
        return "%s: %s" % (type(exc).__name__, exc)
