"""A base class for OpenHRP ``Controller`` servants written in Python.

A controller is an omniORBpy servant of ``OpenHRP::Controller`` that a scheduler (hrpsim's
Scheduler, or any OpenHRP 3.1 scheduler) drives: it calls ``setDynamicsSimulator``,
``setViewSimulator``, ``setModelName``, ``setTimeStep``, ``initialize()`` and ``start()``,
then every control period ``input()``, ``control()``, [the physics step], ``output()``, and
``stop()`` at the end of a run. ``Controller`` implements all of that interface: it keeps the
references and values it is given, checks in ``initialize()`` that it has a dynamics
simulator and a model name, counts control periods, and does nothing else. A subclass
overrides ``control()`` (and ``input()``/``output()``, ``initialize()``/``start()`` when it
needs them, calling ``super()`` in the last two)::

    from hrpsim import OpenHRP
    from hrpsim.controller import Controller, main

    class Hold(Controller):
        def control(self):
            DS = OpenHRP.DynamicsSimulator
            self.dynamics.setCharacterLinkData(self.model_name, "J1", DS.JOINT_VALUE, [0.5])

    if __name__ == "__main__":
        main(Hold, "Hold")   # --name NAME and -ORB options from the command line

One call per tick: ``Controller`` is also an ``hrpsim::OneCallController`` (idl/Diagnostics.idl),
so hrpsim's scheduler calls its ``tick(state)`` once per period instead of ``input()``,
``control()`` and ``output()`` (three round trips); ``tick`` calls those three methods itself,
with ``self.sensor_state()`` answering from the state the tick brought (no round trip) and
``self.command(type, values)`` handing the command back to the scheduler, which writes it
after the step, where output()'s write would happen: a controller that reads through
``sensor_state()`` and writes through ``command()`` runs bit-identically either way. In the
one-call path ``output()`` runs inside the tick, before the step, so which path a servant
offers is decided by ``one_call`` (the class attribute, or ``__init__(one_call=...)``): True
offers the one call (a subclass that says so promises its ``output()`` only calls
``command()``); False makes the servant a plain ``OpenHRP::Controller``; None (the default)
offers it exactly when the subclass does not override ``output()`` (its writes, made in
``input()``/``control()``, come before the step either way), so a controller written for
OpenHRP's three calls keeps their timing.

``serve(make_controller, name, orb_args)`` binds one controller in the naming service until
SIGTERM/SIGINT (``hrpsim._orb.serve_object``); ``main`` is that plus the command line and a
clean process exit (``hrpsim._orb.end_server_process``).
"""

import argparse
import functools
import sys
from typing import Callable, NoReturn, Optional, Sequence

from . import OpenHRP, OpenHRP__POA, SchedulerIDL, SchedulerIDL__POA, _orb
from .errors import explained

__all__ = ["Controller", "serve", "main"]


def _counted(control):
    """``control`` that adds one to ``self.count`` when it returns normally (once per call
    from the scheduler, however many overrides up the class chain call ``super().control()``).
    """
    @functools.wraps(control)
    def wrapper(self):
        if self._in_control:
            return control(self)
        self._in_control = True
        try:
            control(self)
        finally:
            self._in_control = False
        self.count += 1

    wrapper._hrpsim_counted = True
    return wrapper


class Controller(SchedulerIDL__POA.OneCallController):
    """An ``OpenHRP::Controller`` servant with the configuration done; override ``control()``.

    Attributes (set by the scheduler's calls; read them in ``input``/``control``/``output``):

    - ``dynamics``: the ``OpenHRP.DynamicsSimulator`` of ``setDynamicsSimulator`` (None before),
      wrapped by ``hrpsim.errors.explained``: a call the server refuses raises
      ``hrpsim.errors.BadArgument`` (a ValueError) and the like with the server's reason;
      ``hrpsim.errors.unwrap(self.dynamics)`` is the plain reference
    - ``vision``: the ``OpenHRP.ViewSimulator`` of ``setViewSimulator`` (None if not given)
    - ``model_name``: the character to control, from ``setModelName`` ("" before)
    - ``dt``: the control period [s], from ``setTimeStep`` (0.001 until then)
    - ``count``: control periods completed since ``initialize()``/``start()``: 0 during the
      first ``control()``, which then adds one (so ``output()`` of period k sees k + 1)
    - ``time``: ``count * dt`` [s], the simulated time of the current period's start inside
      ``input()``/``control()``

    - ``one_call``: whether the servant offers hrpsim's one call per tick (True / False; None,
      the default: when the subclass does not override ``output()``)

    ``initialize()`` raises ``OpenHRP.Controller.ControllerException`` when the dynamics
    simulator or the model name is missing. ``input``, ``control``, ``output``, ``stop``,
    ``destroy`` and ``shutdown`` do nothing by default. The servant is made once the ORB is up
    (``serve`` calls the factory it is given then).
    """

    # defaults, also for a subclass whose __init__ forgets super().__init__()
    dynamics = None
    vision = None
    model_name = ""
    dt = 0.001
    count = 0
    _in_control = False
    one_call = None
    _tick = None  # the ControllerInput of the tick in progress (one-call path), else None
    _command = None

    def __init__(self, one_call: Optional[bool] = None) -> None:
        super().__init__()
        self.dynamics = None
        self.vision = None
        self.model_name = ""
        self.dt = 0.001
        self.count = 0
        self._in_control = False
        if one_call is not None:
            self.one_call = bool(one_call)
        elif self.one_call is None:
            self.one_call = type(self).output is Controller.output
        if not self.one_call:
            # answer _is_a as a plain OpenHRP::Controller (omniORBpy reads the repository id
            # and the skeleton from the servant when it is activated)
            self._NP_RepositoryId = OpenHRP__POA.Controller._NP_RepositoryId
            self._omni_skeleton = OpenHRP__POA.Controller

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        control = cls.__dict__.get("control")
        if control is not None and not getattr(control, "_hrpsim_counted", False):
            cls.control = _counted(control)

    @property
    def time(self) -> float:
        """``count * dt`` [s]."""
        return self.count * self.dt

    # --- configuration (OpenHRP::Controller) ---
    def setDynamicsSimulator(self, dynamics) -> None:
        from omniORB import CORBA
        self.dynamics = explained(dynamics) if isinstance(dynamics, CORBA.Object) else dynamics

    def setViewSimulator(self, vision) -> None:
        self.vision = vision

    def setModelName(self, name: str) -> None:
        self.model_name = name

    def setTimeStep(self, dt: float) -> None:
        self.dt = dt

    def initialize(self) -> None:
        """Check the configuration and reset ``count``; overrides call ``super()`` first."""
        if self.dynamics is None or not self.model_name:
            raise OpenHRP.Controller.ControllerException(
                "%s: no dynamics simulator or model name before initialize()"
                % type(self).__name__)
        self.count = 0

    def start(self) -> None:
        """Reset ``count``; overrides call ``super()`` first."""
        self.count = 0

    def stop(self) -> None:
        pass

    def destroy(self) -> None:
        pass

    def shutdown(self) -> None:
        pass

    # --- reading and writing (both paths) ---
    def sensor_state(self):
        """This tick's ``OpenHRP.SensorState`` of the character: the one the scheduler sent
        with ``tick`` (one-call path), else ``getCharacterSensorState(model_name)``."""
        if self._tick is not None:
            return self._tick.sensors
        return self.dynamics.getCharacterSensorState(self.model_name)

    def command(self, type_, values) -> None:
        """Command every joint of the character (jointId order; ``type_`` JOINT_VALUE or
        JOINT_TORQUE): returned from ``tick`` (one-call path; the last call of the tick wins),
        else written now with ``setCharacterAllLinkData``."""
        if self._tick is not None:
            self._command = (type_, [float(v) for v in values])
        else:
            self.dynamics.setCharacterAllLinkData(self.model_name, type_, list(values))

    # --- the tick ---
    def tick(self, state):
        """hrpsim's one call per tick: ``input()``, ``control()``, ``output()`` with
        ``sensor_state()`` = ``state.sensors``; returns the ``command()`` given (an empty
        JointCommand for none), which the scheduler writes after the step."""
        self._tick, self._command = state, None
        try:
            self.input()
            self.control()
            self.output()
        finally:
            self._tick = None
        cmd, self._command = self._command, None
        if cmd is None:
            return SchedulerIDL.JointCommand("", OpenHRP.DynamicsSimulator.JOINT_TORQUE, [])
        return SchedulerIDL.JointCommand("", cmd[0], cmd[1])

    def input(self) -> None:
        pass

    def control(self) -> None:
        pass

    def output(self) -> None:
        pass


# the base's own control() counts too (a subclass that only overrides input/output)
Controller.control = _counted(Controller.__dict__["control"])


def serve(make_controller: Callable[[], Controller], name: str, orb_args: Sequence[str] = (),
          label: Optional[str] = None) -> int:
    """Serve the controller ``make_controller()`` (called once the ORB is up) bound as ``name``
    in the naming service until SIGTERM or SIGINT, then unbind it; returns 0.

    The naming service is ``-ORBInitRef NameService=...`` in ``orb_args`` (other ``-ORB``
    options apply too), else ``$HRPSIM_NAMING``, else `hrpsim up`'s state; "LABEL: bound as
    'NAME' in CORBALOC" is printed once bound (LABEL defaults to ``name``). Call it from the main
    thread and leave the process through ``hrpsim._orb.end_server_process(None, status)``
    (``main`` does both).
    """
    return _orb.serve_object(make_controller, name, orb_args, label=label)


def main(make_controller: Callable[[], Controller], default_name: str,
         argv: Optional[Sequence[str]] = None) -> NoReturn:
    """A controller script's whole ``__main__``: ``[--name NAME] [-ORB... options]`` from
    ``argv`` (default ``sys.argv[1:]``), ``serve``, then exit with its status without
    Python's finalisation (see ``hrpsim._orb.end_server_process``). Never returns.
    """
    ap = argparse.ArgumentParser(description="an OpenHRP Controller served until SIGTERM")
    ap.add_argument("--name", default=default_name,
                    help="name to bind in the naming service (default %s)" % default_name)
    args, orb_args = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    status = serve(make_controller, args.name, orb_args, label=default_name)
    _orb.end_server_process(None, status)
