"""hrpsim.Simulation: script one simulation: configure, step or run, read states as NumPy arrays.

A Simulation keeps its configuration (models, time step, gravity, joint modes, initial root
poses and joint values, collision pairs, controllers) as one ``hrpsim.configuration.
Configuration`` and builds the simulation from it on the first ``step``/``run``, so ``reset()``
can throw the world away and build the same one again in the same servers: the same calls then
give the same arrays, bit for bit.

It runs on one of three back ends, chosen when it is made (``backend=``), behind the same
methods; the back end is an object (``_ServerBackend``, ``_SchedulerBackend``,
``hrpsim.local.LocalBackend``) that builds the world from the Configuration with one method,
``apply(config)`` (it reads nothing else of the Simulation), then steps and reads it:

- ``"server"`` (client-driven, the default): it creates its own OpenHRP.DynamicsSimulator from
  a DynamicsSimulatorFactory (``factory=`` names which one) and calls ``stepSimulation``
  itself;
- ``"scheduler"`` (or ``scheduler=True``): it configures hrpsim::Scheduler (``reset``,
  ``setTimeStep``, ``addModel``, ...), starts it paused and drives it with ``step(n)`` /
  ``runUntil(t)``; controllers added with ``add_controller`` are ticked by the scheduler.
  States are read from the scheduler's co-located DynamicsSimulator (``Scheduler.dynamics()``);
- ``"local"``: the simulation core runs inside this Python process (hrpsim.local: no naming
  service, no servers, no CORBA), with the same results bit for bit; states can also be had
  as NumPy views of the core's memory (``sim.local``).

With a server back end ``sim.dynamics`` is the OpenHRP.DynamicsSimulator being stepped, for
anything the wrapper does not cover.

One round trip per step (``"server"`` back end): when the server's DynamicsSimulator is an
``hrpsim::DynamicsSimulator`` (idl/Diagnostics.idl) and ``sim.one_call`` is true (the default;
set it to False before the first step for OpenHRP's calls), ``set_joint_values`` /
``set_joint_torques`` between steps are held and sent with the next step in one
``stepWith`` call, which returns the time and every character's sensor state;
``sensors()`` and ``time`` then read those (no round trip) until the next write. Any other call
flushes held commands first (as ``setCharacterAllLinkData``), and ``sim.dynamics`` drops the
held state, so results are the same bit for bit as with three calls per step. A request a server
refuses raises an ``hrpsim.errors.ServerError`` whose message is the server's reason
(``BadArgument``, a ValueError and LookupError, for a wrong name or value; ``SchedulerRefused``,
a ValueError, for what the Scheduler refuses; see hrpsim/errors.py); the local back end raises
the same classes with the core's message. Conventions are OpenHRP's (docs/servers.md,
DynamicsSimulator): ``gravity`` is given as to ``setGVector`` ((0, 0, 9.8) is ordinary gravity
towards -z), poses are of link origins in the world frame, rotations 3x3, joint arrays in
jointId order.
"""

import dataclasses
import math

import numpy as np

from .errors import (BadArgument, CallOrderError, UnknownName, Unsupported, explain, explained,
                     unwrap)
from .configuration import Configuration, Loop, Pair, State
from .limits import MAX_TIME_STEP, MAX_VALUE, MIN_TIME_STEP, steps_to_reach
from .limits import joint_limits as joint_limits_switch
from .primitives import PrimitivesMixin
from .solver import default_engine, solver_spec
from .summary import joint_names_by_id

__all__ = ["Simulation", "Runaway"]



class Runaway(RuntimeError):
    """A step made a character's state non-finite or took it out of bounds
    (docs/servers.md, Runaways): the step was made, the character stopped where the last good
    step left it.
    ``character`` names it (None if unknown); reset, restore or carry on is the caller's
    choice."""

    def __init__(self, message, character=None):
        super().__init__(message)
        self.character = character


_MODES = {"torque": "TORQUE_MODE", "high_gain": "HIGH_GAIN_MODE", "highgain": "HIGH_GAIN_MODE"}
_METHODS = {"euler": "EULER", "runge_kutta": "RUNGE_KUTTA", "rk": "RUNGE_KUTTA"}


# what set_link_data writes: LinkDataType name -> numbers (the core's hs_linkDataSize)
_WRITABLE = {"POSITION_GIVEN": 1, "JOINT_VALUE": 1, "JOINT_VELOCITY": 1,
             "JOINT_ACCELERATION": 1, "JOINT_TORQUE": 1, "ABS_TRANSFORM": 12,
             "ABS_VELOCITY": 6, "EXTERNAL_FORCE": 6}
# every LinkDataType name a back end can send (the others are computed: the core refuses them)
_LINK_DATA = set(_WRITABLE) | {"ABS_ACCELERATION", "CONSTRAINT_FORCE"}


def _numbers(name, values, size=None):
    """values as a flat float64 array of ``size`` numbers (if given): the form a back end
    sends, not a check of the values (the core checks those)."""
    try:
        arr = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise BadArgument("%s must be numbers, got %r" % (name, values)) from None
    if size is not None and arr.size != size:
        raise BadArgument("%s needs %d numbers, got %d" % (name, size, arr.size))
    return arr


def _finite_array(name, values, size=None):
    """values as a flat float64 array, checked as the core checks them, for what no world has
    seen yet (a record before the start; a command the server back end holds for the next
    step), so that every back end refuses it when it is made: ``size`` numbers (if given), all
    finite and within +-MAX_VALUE."""
    arr = _numbers(name, values, size)
    ok = np.abs(arr) <= MAX_VALUE  # NaN fails too
    if not ok.all():
        i = int(np.argmin(ok))
        raise BadArgument("%s value %d is %g (every number must be finite and within +-%g)"
                          % (name, i, arr[i], MAX_VALUE))
    return arr


def _finite_vector(name, values, size=None):
    return _finite_array(name, values, size).tolist()


def _rotation(R):
    """A rotation as 9 row-major numbers: from a 3x3 matrix, 9 numbers, or None (identity);
    whether it is one is set_link_data's check (before the start) or the core's."""
    if R is None:
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    return _numbers("rotation", R, 9).tolist()


def _checked_rotation(R):
    """R (9 numbers, row-major) if it is a rotation as the core requires (R^T R = I to
    within 1e-6 element by element, determinant > 0: hsu_isRigid), else BadArgument."""
    m = np.asarray(R, dtype=float).reshape(3, 3)
    if not (np.abs(m.T @ m - np.eye(3)).max() <= 1e-6 and np.linalg.det(m) > 0):
        raise BadArgument("the rotation (row-major 3x3) is not orthonormal with determinant +1 "
                          "to within 1e-6: %s" % np.array2string(m, separator=", ").replace(
                              "\n", ""))
    return R


class _Model:
    """What the Simulation knows of one character: its url, its body (the back end's: a
    BodyInfo for the servers, an in-process model for the local back end), link names (link
    index order), root link and joints (jointId -> link name, "" for a gap)."""

    def __init__(self, name, url, body, link_names, root, joint_links):
        self.name = name
        self.url = url
        self.body = body
        self.link_names = list(link_names)
        self.root = root
        self.joint_links = list(joint_links)
        self.num_joints = len(self.joint_links)

    @classmethod
    def from_body_info(cls, name, url, body):
        """From an OpenHRP.BodyInfo (its LinkInfo records)."""
        links = body._get_links()
        names = [lk.name for lk in links]
        root = next((lk.name for lk in links if lk.parentIndex < 0), names[0])
        return cls(name, url, body, names, root, joint_names_by_id(links))


class Simulation(PrimitivesMixin):
    """One simulation, client-driven, through the scheduler server or in process.

    ``backend`` is "server" (client-driven; the default), "scheduler" or "local" (see the
    module comment). ``client`` is an hrpsim.Client for the server back ends (default:
    ``hrpsim.connect(naming)``; the local back end takes none). ``factory`` is the
    naming-service name of the DynamicsSimulatorFactory to create the world from (default
    "DynamicsSimulatorFactory"; sweeps pass DynamicsSimulatorFactory<k>). ``scheduler`` is
    False, True (the scheduler back end on the server bound as "Scheduler") or another name
    (implies ``backend="scheduler"``). ``dt`` [s],
    ``gravity`` (OpenHRP's setGVector convention), ``method`` ("euler" or "runge_kutta"),
    ``sensors`` (compute body sensors) and ``models`` ({name: path or url}, registered in that
    order) may be given here or set later, before the first step.

    Options beyond OpenHRP 3.1, the same on every back end (``set_joint_options``):
    ``sleep`` (default True, as in hrpsim projects): a free rigid object at rest (free root, no
    1-dof joint, no closed loop) falls asleep, is not stepped and has no contacts with static or
    sleeping neighbours until something touches it (``sleeping(character)`` tells);
    ``joint_limits`` (default False, as OpenHRP's DynamicsSimulator; True: all three, or some of
    "position", "velocity", "effort" as a tuple or a string, as a project's ``jointLimits``):
    torque-mode joints stop at the model's position limits (llimit / ulimit), do not drive past
    its velocity limits (lvlimit / uvlimit) and apply at most its effort limit (climit *
    gearRatio * torqueConst; URDF's effort) (see docs/models.md); high-gain joints follow their
    commands; ``rotor_inertia`` (default False; the ODE engine's option, refused on the
    joint-space engine, which always puts rotorInertia * gearRatio^2 on the joint's own
    inertia): rotorInertia * gearRatio^2 added to each rotate joint's link about its axis.

    The engine and its solver settings, the same on every back end (``set_solver``):
    ``engine`` ("joint_space", the default: hrpsim's joint-space engine, which has rotor
    inertia always on the joint's diagonal and solves contacts, joint limits, closed loops and
    crawler tracks, but refuses the ODE engine's rotor_inertia option: the first step then
    raises BadArgument, on the scheduler SchedulerRefused, saying so; or "ode") and ``solver``, a
    mapping of setting names to values, e.g. ``{"stepper": "quick", "iterations": 30}`` with
    engine="ode" (every setting is the ODE engine's; docs/servers.md has the table). The core
    checks
    them when the world is built: an unknown setting, one the engine does not have, or a value
    out of range raises BadArgument (SchedulerRefused) naming it. None (the default) leaves the
    server's defaults (``hrpsim-dynamics --help``).

    Configuration methods (``add_model``, ``set_time_step``, ``set_gravity``,
    ``set_joint_mode``, ``set_root_pose``, ``set_joint_values``, ``set_link_data``,
    ``add_collision_pair``, ``add_controller``) describe the initial state; they must come
    before the first ``step``/``run`` or after a ``reset``, except ``set_joint_values``,
    ``set_joint_torques`` and ``set_link_data``, which between steps write to the running world
    (commands in high-gain mode, torques in torque mode).
    """

    # "server" back end: use hrpsim's one-call stepWith when the server offers it
    one_call = True

    def __init__(self, client=None, *, backend=None, naming=None, factory=None, scheduler=False,
                 dt=0.001, gravity=(0.0, 0.0, 9.8), method="euler", sensors=True, models=None,
                 sleep=True, joint_limits=False, rotor_inertia=False, engine=None, solver=None):
        from . import paths
        if backend is None:
            backend = "scheduler" if scheduler else "server"
        if backend not in _BACKENDS:
            raise BadArgument("backend must be one of %s, got %r" % (sorted(_BACKENDS), backend))
        if backend == "scheduler" and not scheduler:
            scheduler = True
        if backend != "scheduler" and scheduler:
            raise BadArgument("scheduler=%r needs backend='scheduler'" % (scheduler,))
        if backend == "local":
            if client is not None or naming is not None or factory is not None:
                raise BadArgument("the local back end runs in process: no client, naming or "
                                 "factory")
        elif client is None:
            from . import connect
            client = connect(naming)
        self.client = client
        self.factory_name = factory or paths.DYNAMICS_FACTORY
        self.scheduler_name = ("Scheduler" if scheduler is True else scheduler) or None
        self._models = {}       # name -> _Model (what the Simulation knows of each)
        # the whole set-up, as every back end's apply(config) takes it
        self._config = Configuration(
            sensors=bool(sensors),
            joint_options=(joint_limits_switch(joint_limits), bool(rotor_inertia), bool(sleep)),
            solver=solver_spec(engine, solver), view_rate=30.0, viewer=None)
        self._backend = _BACKENDS[backend](self)
        self._started = False
        self._steps = 0
        self._engine_now = None  # the engine of a restored state, until reset()
        self._closed = None     # after close(): the final simulated time [s]
        self.set_time_step(dt)
        self.set_gravity(gravity)
        self.set_method(method)
        for name, url in (models or {}).items():
            self.add_model(name, url)

    # -----------------------------------------------------------------------------------------
    # the back end
    # -----------------------------------------------------------------------------------------

    @property
    def backend(self):
        """The back end's name: "server", "scheduler" or "local"."""
        return self._backend.name

    def __repr__(self):
        return "<hrpsim.Simulation %s%s models=%s steps=%d>" % (
            self._backend.describe(), " closed" if self._closed is not None else "",
            list(self._models), self._steps)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -----------------------------------------------------------------------------------------
    # configuration
    # -----------------------------------------------------------------------------------------

    def _open(self, what):
        """CallOrderError once the Simulation is closed."""
        if self._closed is not None:
            raise CallOrderError("%s: the simulation is closed (close() released its world; "
                                 "make a new Simulation)" % what, what)

    def _configurable(self, what):
        self._open(what)
        if self._started:
            raise CallOrderError("%s: the simulation has started; call reset() first" % what,
                                 what)

    def add_model(self, name, url):
        """Load ``url`` (a path or URL) through the ModelLoader and register it as character
        ``name``; returns its BodyInfo."""
        from . import file_url
        self._configurable("add_model")
        if not name or name in self._models:
            raise BadArgument("model name %r is empty or already used" % name)
        url = file_url(url)
        model = self._backend.load_model(name, url)
        self._models[name] = model
        self._config.models.append((name, url, None))
        return model.body

    def add_scene(self, url, prefix=""):
        """Add every part of an MJCF scene file: the worldbody's own geoms, if it has any, as
        the environment ``prefix + "world"`` (``URL#world``), then each top-level body as the
        character ``prefix + its name`` (``URL#NAME``), free bodies where the file puts them.
        Returns the character names added, in that order. The file is listed in this process
        (hrpsim.local's core), then each part is added with add_model."""
        from . import file_url
        from .local import mjcf_scene
        url = file_url(url)
        bodies, world = mjcf_scene(url)
        parts = (["world"] if world else []) + bodies
        taken = [prefix + p for p in parts if prefix + p in self._models]
        if taken:
            raise ValueError("model names %s are already used" % taken)
        for part in parts:
            self.add_model(prefix + part, "%s#%s" % (url, part))
        return [prefix + p for p in parts]

    @property
    def models(self):
        """Character names, in registration order."""
        return list(self._models)

    def body(self, character):
        """The body of a character: its BodyInfo (server back ends) or in-process model."""
        return self._model(character).body

    def link_names(self, character):
        """The character's link names in link index order (the order of link_poses)."""
        return list(self._model(character).link_names)

    def joint_names(self, character):
        """The link of each jointId, in jointId order (the order of q, dq, u): one entry per
        joint-array column, "" for a jointId no link has (as log.npz's ``C.joint_names``)."""
        return list(self._model(character).joint_links)

    def _model(self, character):
        try:
            return self._models[character]
        except KeyError:
            raise UnknownName("no model %r (models: %s)" % (character, list(self._models))) \
                from None

    def _link(self, character, link, empty=False):
        """UnknownName unless ``character`` has a link ``link`` ("" too when ``empty``:
        every link)."""
        if not (link in self._model(character).link_names or (empty and link == "")):
            raise UnknownName("character %r has no link %r" % (character, link))

    def set_time_step(self, dt):
        """The time step [s], between 1e-6 and 1 s (what the dynamics accept)."""
        self._configurable("set_time_step")
        dt = float(dt)
        if not (MIN_TIME_STEP <= dt <= MAX_TIME_STEP):
            raise BadArgument("time step must be between %g and %g s, got %r"
                             % (MIN_TIME_STEP, MAX_TIME_STEP, dt))
        self._config.time_step = dt

    @property
    def dt(self):
        """The time step [s]."""
        return self._config.time_step

    def set_gravity(self, g):
        """Gravity as for setGVector: (0, 0, 9.8) is ordinary gravity pulling towards -z."""
        self._configurable("set_gravity")
        self._config.gravity = _finite_vector("gravity", g, 3)

    def set_method(self, method):
        """The integration method: "euler" or "runge_kutta" (fourth order on the joint-space
        engine; the ODE engine runs its one method, Euler, for both)."""
        self._configurable("set_method")
        key = method.lower() if isinstance(method, str) else method
        if key not in _METHODS:
            raise BadArgument("method must be one of %s, got %r" % (sorted(_METHODS), method))
        self._config.method = _METHODS[key]

    def set_joint_mode(self, character, mode):
        """Every joint of ``character`` in "torque" or "high_gain" mode."""
        self._configurable("set_joint_mode")
        self._model(character)
        key = mode.lower() if isinstance(mode, str) else mode
        if key not in _MODES:
            raise BadArgument("joint mode must be 'torque' or 'high_gain', got %r" % (mode,))
        # every mode before the initial data, as OpenHRP's clients call them
        state = self._config.state
        state.insert(sum(st.kind == "mode" for st in state),
                     State("mode", character, _MODES[key]))

    def set_root_pose(self, character, p, R=None):
        """The initial pose of the root link: position ``p`` [m] and rotation ``R`` (3x3 or 9
        row-major numbers; None: identity)."""
        data = _numbers("position", p, 3).tolist() + _rotation(R)
        self.set_link_data(character, self._model(character).root, "ABS_TRANSFORM", data)

    def set_root_velocity(self, character, v, w=(0.0, 0.0, 0.0)):
        """The root link's linear velocity (of its origin) and angular velocity [m/s, rad/s]."""
        data = (_numbers("velocity", v, 3).tolist()
                + _numbers("angular velocity", w, 3).tolist())
        self.set_link_data(character, self._model(character).root, "ABS_VELOCITY", data)

    def set_joint_values(self, character, q):
        """Joint values in jointId order: the initial state before the first step, a command
        (high-gain mode) or a new state (torque mode) between steps."""
        self._set_joints(character, "JOINT_VALUE", q)

    def set_joint_velocities(self, character, dq):
        """Joint velocities in jointId order (as set_joint_values)."""
        self._set_joints(character, "JOINT_VELOCITY", dq)

    def set_joint_accelerations(self, character, ddq):
        """Joint accelerations in jointId order: high-gain commands between steps (with
        set_joint_values and set_joint_velocities, OpenHRP's prescribed motion: the joint ends
        the step at the commanded angle and velocity, the rest of the body responding to the
        commanded acceleration); before the first step the initial state."""
        self._set_joints(character, "JOINT_ACCELERATION", ddq)

    def set_joint_torques(self, character, u):
        """Joint torques [N m] / forces [N] in jointId order, for torque-mode joints; kept
        until changed."""
        self._set_joints(character, "JOINT_TORQUE", u)

    def _set_joints(self, character, type_name, values):
        self._open("set %s" % type_name)
        model = self._model(character)
        values = _finite_array(type_name, values, model.num_joints)
        if not self._started:
            self._config.state.append(State("joints", character, type_name,
                                            data=values.tolist(), links=model.joint_links))
        else:
            self._backend.set_all_link_data(character, type_name, values)

    def set_link_data(self, character, link, type_name, data):
        """setCharacterLinkData: before the first step part of the initial state (checked
        here, as the core will: no world has seen it yet), between steps written to the running
        world (checked by the core). ``type_name`` is a LinkDataType name ("ABS_TRANSFORM",
        "EXTERNAL_FORCE", ...)."""
        self._open("set_link_data")
        self._link(character, link)
        name = getattr(type_name, "_n", type_name)  # a name or an OpenHRP enum item
        if self._started and name in _LINK_DATA:
            # between steps the core checks the datum (writable, its size, finite, a rotation)
            # once, with the same class and text on every back end
            self._backend.set_link_data(character, link, name, _numbers(name, data).tolist())
            return
        if name not in _WRITABLE:
            raise BadArgument("%s cannot be set (%s)" % (name, "it is computed by the simulation"
                              if name in ("ABS_ACCELERATION", "CONSTRAINT_FORCE")
                              else "not a writable LinkDataType: one of %s"
                              % ", ".join(_WRITABLE)))
        data = _finite_vector(name, data, _WRITABLE[name])
        if name == "ABS_TRANSFORM":
            _checked_rotation(data[3:])
        self._config.state.append(State("link", character, name, link, data))

    def add_collision_pair(self, char1, char2, link1="", link2="", friction=0.5,
                           slip_friction=None, culling=0.01, restitution=0.0):
        """Let two characters (or links; "" = every link) collide, with Coulomb friction
        ``friction`` (static) and ``slip_friction`` (sliding; default the same)."""
        self._configurable("add_collision_pair")
        self._link(char1, link1, empty=True)
        self._link(char2, link2, empty=True)
        mu = float(friction)
        slip = mu if slip_friction is None else float(slip_friction)
        if not (mu >= 0 and slip >= 0 and math.isfinite(mu) and math.isfinite(slip)):
            raise BadArgument("friction must be finite and >= 0")
        self._config.pairs.append(Pair(char1, link1, char2, link2, mu, slip, float(culling),
                                       float(restitution)))

    def add_extra_joint(self, name, char1, link1, char2, link2, pos1=(0.0, 0.0, 0.0),
                        pos2=(0.0, 0.0, 0.0), type="xyz", axis=(1.0, 0.0, 0.0)):
        """A closed loop (OpenHRP's registerExtraJoint): point ``pos1`` of ``char1``'s
        ``link1`` (link1 frame [m]) tied to point ``pos2`` of ``char2``'s ``link2``; ``type``
        "xyz" (ball), "xy" (slides along ``axis``, link1 frame) or "z" (slides across it)."""
        from .core_facts import extra_joint_types, extra_joint_wire
        self._configurable("add_extra_joint")
        if type not in extra_joint_types():
            raise BadArgument("extra joint type must be one of %s, got %r"
                              % (sorted(extra_joint_types()), type))
        self._link(char1, link1)
        self._link(char2, link2)
        self._config.loops.append(Loop(name, char1, link1, char2, link2,
                                       [float(x) for x in pos1], [float(x) for x in pos2],
                                       extra_joint_wire(type), [float(x) for x in axis]))

    def set_joint_options(self, joint_limits=True, rotor_inertia=False, sleep=None):
        """Options beyond OpenHRP 3.1 on any back end (see the class comment): the model's joint
        limits (True, False or some of "position", "velocity", "effort"), the ODE engine's
        rotor-inertia option (refused on the joint-space engine, which always has rotor inertia)
        and (unless None: unchanged) sleeping."""
        self._configurable("set_joint_options")
        if sleep is None:
            sleep = self._config.joint_options[2]
        self._config.joint_options = (joint_limits_switch(joint_limits), bool(rotor_inertia),
                                      bool(sleep))

    def set_solver(self, engine=None, solver=None):
        """The engine ("ode", "joint_space"; None: the server's default) and solver settings
        (a mapping, see the class comment), replacing any given before; before the first step
        or after a reset."""
        self._configurable("set_solver")
        self._config.solver = solver_spec(engine, solver)

    def sleeping(self, character):
        """True if ``character`` is asleep (sleeping on, at rest, not stepped)."""
        self._model(character)
        self._build("sleeping")
        return bool(self._backend.sleeping(character))

    def extra_joint_force(self, character, name):
        """The last step's force [N] on link2 and moment [N m] about its attachment point,
        world frame, of the closed loop ``name`` of ``character`` (numpy array of 6)."""
        self._model(character)
        self._build("extra_joint_force")
        return self._backend.extra_joint_force(character, name)

    def set_track_speed(self, character, link, speed):
        """A crawler link's track speed [m/s] (OpenHRP writes it as JOINT_TORQUE)."""
        self.set_link_data(character, link, "JOINT_TORQUE", [float(speed)])

    def add_controller(self, name, character="", period=None):
        """(Scheduler mode) an OpenHRP::Controller bound as ``name``, ticked every ``period``
        seconds (default: every step) by the scheduler."""
        self._configurable("add_controller")
        if "controllers" not in self._backend.features:
            raise Unsupported("controllers are ticked by the scheduler: make the Simulation "
                              "with scheduler=True", "add_controller")
        self._config.controllers.append((name, character, float(period or self.dt), None))

    def set_log(self, period=0.0, sensors=False):
        """(Scheduler mode) record the world (and sensor) state every ``period`` seconds."""
        self._configurable("set_log")
        self._config.log = (float(period), bool(sensors))

    def set_viewer(self, viewer, rate=30.0):
        """(Scheduler mode) show the run in ``viewer``, an OpenHRP.OnlineViewer reference (None:
        no viewer): the scheduler loads the models into it, then sends it the world state
        ``rate`` times per second of simulated time (and the final one) from a thread of its
        own. The run never waits for the viewer: a state it has not taken yet is replaced by
        the newer one, and a viewer that fails is detached (logged by the scheduler)."""
        self._configurable("set_viewer")
        if "viewer" not in self._backend.features:
            raise Unsupported("the viewer is fed by the scheduler: make the Simulation with "
                              "scheduler=True", "set_viewer")
        rate = float(rate)
        if not (math.isfinite(rate) and rate > 0):
            raise BadArgument("set_viewer: rate must be a positive number of frames per "
                             "simulated second (got %r)" % rate)
        self._config.viewer, self._config.view_rate = viewer, rate

    def set_sensor_noise(self, seed=0, limits=False, **types):
        """(Scheduler mode) sensor noise and limits, beyond OpenHRP (off by default; see
        docs/servers.md): ``force``, ``gyro``, ``accel`` and ``range`` each take ``(std, bias)`` or
        ``{"std": ..., "bias": ...}``, a number for every component or one per component
        (force 6, gyro and accel 3, range 1): reading = true + bias + std * N(0, 1), drawn
        from generators seeded by ``seed`` (the same seed, the same numbers). ``limits``
        clamps force / gyro / accel at their specValues maxima and makes range hits beyond
        maxDistance read 0."""
        self._configurable("set_sensor_noise")
        if "noise" not in self._backend.features:
            raise Unsupported("sensor noise is applied by the scheduler: make the Simulation "
                              "with scheduler=True", "set_sensor_noise")
        from .core_facts import noise_components
        sizes = noise_components()
        specs = {}
        for name, value in types.items():
            if name not in sizes:
                raise BadArgument("unknown sensor type %r (one of: %s)"
                                 % (name, ", ".join(sizes)))
            std, bias = ((value.get("std", 0.0), value.get("bias", 0.0))
                         if isinstance(value, dict) else value)
            std = np.atleast_1d(np.asarray(std, dtype=float)).tolist()
            bias = np.atleast_1d(np.asarray(bias, dtype=float)).tolist()
            for what, v in (("std", std), ("bias", bias)):
                if len(v) not in (1, sizes[name]):
                    raise BadArgument("%s %s: give 1 number or %d" % (name, what, sizes[name]))
            if min(std) < 0:
                raise BadArgument("%s std must be >= 0" % name)
            specs[name] = (std, bias)
        if not 0 <= int(seed) < 2 ** 32:
            raise BadArgument("seed must be in [0, 2^32)")
        self._config.noise = (int(seed), bool(limits),
                              [(t, std, bias) for t, (std, bias) in specs.items()])

    def _configuration(self):
        """This Simulation's configuration (configuration.Configuration): what its back end
        applies; the Simulation's own record, not a copy."""
        return self._config

    def configure(self, config):
        """Take ``config`` (an hrpsim.configuration.Configuration, e.g. a project's) as this
        Simulation's set-up, keeping its models, which must be the ones added already, in
        the same order (before the first step or after a reset). Its values are checked when
        the world is built (by the core); refusals then name the record's file line when
        ``config.path`` is set (ProjectError)."""
        self._configurable("configure")
        names = [m[0] for m in config.models]
        if names != list(self._models):
            raise BadArgument("configure: the configuration's models %s are not this "
                              "Simulation's %s" % (names, list(self._models)))
        # the URLs the models were loaded from
        self._config = dataclasses.replace(config, models=list(self._config.models))

    # -----------------------------------------------------------------------------------------
    # building and stepping
    # -----------------------------------------------------------------------------------------

    def _build(self, what="step"):
        self._open(what)
        if self._started:
            return
        if not self._models:
            raise CallOrderError("%s: no model: add_model() first" % what, what)
        self._backend.apply(self._config)
        self._started = True
        self._steps = 0

    def scheduler(self):
        """(Scheduler back end) the hrpsim::Scheduler reference."""
        self._open("scheduler")
        if self._backend.name != "scheduler":
            raise Unsupported("this Simulation is not driven through the scheduler "
                              "(backend=%r)" % self._backend.name, "scheduler")
        return self._backend.scheduler()

    def start(self):
        """Build the simulation now (the first step or run does it otherwise)."""
        self._build("start")
        return self

    @property
    def dynamics(self):
        """(Server back ends) the OpenHRP.DynamicsSimulator being stepped (built on first
        use)."""
        self._build("dynamics")
        return self._backend.dynamics()

    @property
    def local(self):
        """(Local back end) the in-process simulation (hrpsim.local.LocalSim: NumPy views of
        the core's state), built on first use."""
        if self._backend.name != "local":
            raise Unsupported("sim.local is the local back end's (backend=%r)"
                              % self._backend.name, "local")
        self._build("local")
        return self._backend.core

    def step(self, n=1, before=None):
        """Advance ``n`` steps. ``before(sim)``, if given, is called before each step (to send
        commands); in scheduler mode the steps are then requested one at a time."""
        n = int(n)
        if n < 0:
            raise BadArgument("step(n) needs n >= 0")
        self._build()
        # self.steps counts the steps done so far, also as seen by before()
        self._backend.step(n, before)
        return self

    def run(self, until, before=None):
        """Advance until the simulated time reaches ``until`` [s]: to the first whole step at
        or after it (a step that ends within 1e-9 of a step short of it counts as reaching it);
        returns self."""
        self._build("run")
        target = steps_to_reach(float(until), self.dt)  # the core's rule
        if target < self.steps:
            raise BadArgument("run(until=%g): already at t=%g" % (until, self.steps * self.dt))
        self._backend.run_to(target, before)
        return self

    @property
    def steps(self):
        """Steps done since the start (or the last reset); on the local back end the core's
        count (steps made with ``sim.local.step()`` included); after close() the final
        count."""
        if self._started and self._backend.name == "local":
            self._steps = self._backend.core_steps()
        return self._steps

    @property
    def time(self):
        """The simulated time [s], as the dynamics report it (0 before the first step; after
        close() the final time)."""
        if self._closed is not None:
            return self._closed
        if not self._started:
            return 0.0
        return self._backend.time()

    def save_state(self):
        """The whole state of the running world as an ``hrpsim.State`` (picklable): time,
        steps, every character's coordinates, velocities and commands, the solver's warm
        start, sensor and noise state, sleep state, extra joints (core.h, hs_saveState).
        Builds the world first if no step was made yet (the state at step 0)."""
        from .state import State
        self._build("save_state")
        data = self._backend.save_state()
        return State(data=bytes(data), time=float(self.time), steps=int(self.steps),
                     backend=self._backend.name, engine=self._engine_now or self._config.solver[0]
                     or default_engine(), characters=tuple(self._models))

    def restore_state(self, state):
        """Continue from ``state`` (an ``hrpsim.State`` from ``save_state`` on any back end of
        a Simulation configured the same way: the same models in the same order, pairs and
        extra joints): the following steps give the bits the saved simulation's gave. Builds
        the world first if needed. A state of another set of models (or another build) raises
        BadArgument naming the difference, and nothing changes. Returns self."""
        from .state import State
        if not isinstance(state, State):
            raise BadArgument("restore_state needs an hrpsim.State (from save_state), got %s"
                              % type(state).__name__)
        self._build("restore_state")
        self._backend.restore_state(state.data)
        self._steps = int(state.steps)
        self._engine_now = state.engine or None  # the state's engine comes with it
        return self

    def reset(self):
        """Throw the running world away; the next step builds it again from the configuration
        (same servers), so the same steps give the same results."""
        self._open("reset")
        if self._started:
            self._backend.discard()
        self._started = False
        self._steps = 0
        self._engine_now = None
        return self

    def close(self):
        """Release the world (client-driven: destroy the DynamicsSimulator; scheduler: stop
        the run; local: free the core). Idempotent. Afterwards every call that configures,
        steps or reads the world raises CallOrderError; ``steps`` and ``time`` keep their
        final values, the description (``models``, ``link_names``, ...) stays readable."""
        if self._closed is not None:
            return
        final = 0.0
        if self._started:
            self._steps = self.steps
            try:
                final = self._backend.time()
            except Exception:  # noqa: BLE001 - a lost server: the count says when it stopped
                final = self._steps * self.dt
            self._backend.discard(closing=True)
        self._started = False
        self._closed = final
        self._backend.close()

    # -----------------------------------------------------------------------------------------
    # reading states
    # -----------------------------------------------------------------------------------------

    def world_state(self):
        """(Server back ends) the raw OpenHRP.WorldState (time, link poses of every character,
        contacts)."""
        return self.dynamics.getWorldState()

    def link_data(self, character, link, type_name):
        """getCharacterLinkData as a float array (e.g. "ABS_VELOCITY": 6 numbers)."""
        self._link(character, link)
        self._build("link_data")
        return self._backend.link_data(character, link, type_name)

    def root_pose(self, character):
        """(p (3,), R (3, 3)): the root link's origin and rotation, world frame."""
        d = self.link_data(character, self._model(character).root, "ABS_TRANSFORM")
        return d[:3], d[3:].reshape(3, 3)

    def root_velocity(self, character):
        """(v (3,), w (3,)): the root origin's linear and the root's angular velocity."""
        d = self.link_data(character, self._model(character).root, "ABS_VELOCITY")
        return d[:3], d[3:]

    def link_poses(self, character):
        """(P (nlinks, 3), R (nlinks, 3, 3)) of every link, in link index order."""
        self._model(character)
        self._build("link_poses")
        return self._backend.link_poses(character)

    def _all(self, character, type_name):
        self._model(character)
        self._build("get %s" % type_name)
        return self._backend.all_link_data(character, type_name)

    def q(self, character):
        """Joint values (njoints,) in jointId order."""
        return self._all(character, "JOINT_VALUE")

    def dq(self, character):
        """Joint velocities (njoints,) in jointId order."""
        return self._all(character, "JOINT_VELOCITY")

    def u(self, character):
        """Joint torques / forces (njoints,) in jointId order."""
        return self._all(character, "JOINT_TORQUE")

    def sensors(self, character):
        """The sensor state as arrays: {"q", "dq", "u": (njoints,), "force": (nforce, 6)
        (force then moment, sensor frame), "gyro": (ngyro, 3), "accel": (naccel, 3), "range":
        a list, one (nbeams,) array per range sensor in sensorId order (the last scan; 0 for
        "no hit"; empty arrays while sensors are disabled)}."""
        self._model(character)
        self._build("sensors")
        return self._backend.sensors(character)

    def force(self, character):
        """Force sensors (nforce, 6): force [N] then moment [N m], sensor frames."""
        return self.sensors(character)["force"]

    def gyro(self, character):
        """Rate gyros (ngyro, 3) [rad/s], sensor frames."""
        return self.sensors(character)["gyro"]

    def accel(self, character):
        """Accelerometers (naccel, 3) [m/s^2], sensor frames."""
        return self.sensors(character)["accel"]

    def ranges(self, character):
        """Range sensors: one (nbeams,) array of distances [m] per sensor, sensorId order. Beam
        k points at angle (k - nbeams // 2) * scanStep in the sensor's x-z plane (OpenHRP's fan,
        see docs/servers.md); 0 means no hit. The scan is held between scans (scanRate)."""
        return self.sensors(character)["range"]

    def snapshot(self):
        """Everything at once, for comparing runs: {"time": t, name: {"p", "R" (link poses),
        "q", "dq", "u", "force", "gyro", "accel", "range"}} for every character."""
        self._build("snapshot")
        out = {"time": self._backend.time()}
        for name in self._models:
            entry = dict(self.sensors(name))
            entry["p"], entry["R"] = self.link_poses(name)
            out[name] = entry
        return out

    # -----------------------------------------------------------------------------------------
    # cameras
    # -----------------------------------------------------------------------------------------

    def camera_images(self, character):
        """Every camera (VisionSensor) of ``character`` at the current state, by sensor name:
        an ``hrpsim.images.CameraImage`` whose ``color`` is H x W x 3 uint8 (COLOR,
        COLOR_DEPTH), ``mono`` H x W uint8 (MONO, MONO_DEPTH) and ``depth`` H x W float32 metres
        along the optical axis (DEPTH, COLOR_DEPTH, MONO_DEPTH), the others None.

        Server back ends: rendered by a ViewSimulator of the server bound as
        "ViewSimulatorFactory" (hrpsim-view, started by ``hrpsim up``), made on first use with
        every model (loaded again with texture images) and moved to the current world state at
        each call. Unknown characters raise ``UnknownName`` (a LookupError).
        """
        self._model(character)
        self._build("camera_images")
        return self._backend.camera_images(character)


# -------------------------------------------------------------------------------------------------
# the server back ends
# -------------------------------------------------------------------------------------------------


def _sensor_arrays(s):
    """An OpenHRP.SensorState as Simulation.sensors' arrays."""
    from .core_facts import state_blocks
    out = {"q": np.array(s.q, dtype=float), "dq": np.array(s.dq, dtype=float),
           "u": np.array(s.u, dtype=float)}
    for key, field, size in state_blocks():
        if size > 0:
            out[key] = np.array(getattr(s, field), dtype=float).reshape(-1, size)
        else:
            # fromiter: a scan is hundreds of floats (np.array's type discovery costs 1.5x)
            out[key] = [np.fromiter(r, dtype=float, count=len(r)) for r in getattr(s, field)]
    return out


class _CorbaBackend:
    """What both server back ends share: models from the ModelLoader, and reading and writing
    the state through an OpenHRP.DynamicsSimulator (``self._ds``: the client-driven one, or the
    scheduler's co-located one)."""

    name = None
    features = frozenset()

    def __init__(self, sim):
        self.sim = sim          # given to step's before(sim); nothing else of it is read
        self._ds = None
        self._view = None
        self._bodies = {}       # name -> BodyInfo, as load_model loaded it
        self._models = []       # (name, url, at) of the configuration applied
        self._dt = None         # its time step [s]

    @staticmethod
    def _DS():
        from . import OpenHRP
        return OpenHRP.DynamicsSimulator

    def sleeping(self, character):
        return self._ds.sleeping(character)

    def _type(self, name):
        """A LinkDataType from its name ("JOINT_VALUE", ...) or the enum value itself."""
        return getattr(self._DS(), name) if isinstance(name, str) else name

    def load_model(self, name, url):
        body = self.sim.client.load_body(url, reload=False)  # ModelError if it does not load
        self._bodies[name] = body
        return _Model.from_body_info(name, url, body)

    def dynamics(self):
        """A plain reference (its refusals are CORBA system exceptions; the backend's own calls
        go through ``hrpsim.errors.explained``, which raises with the server's reason)."""
        return unwrap(self._ds)

    def set_all_link_data(self, character, type_name, values):
        self._ds.setCharacterAllLinkData(character, self._type(type_name), values.tolist())

    def set_link_data(self, character, link, type_name, data):
        self._ds.setCharacterLinkData(character, link, self._type(type_name), data)

    def time(self):
        return float(self._ds.getWorldState().time)

    def link_data(self, character, link, type_name):
        return np.array(self._ds.getCharacterLinkData(character, link, self._type(type_name)),
                        dtype=float)

    def all_link_data(self, character, type_name):
        return np.array(self._ds.getCharacterAllLinkData(character, self._type(type_name)),
                        dtype=float)

    def link_poses(self, character):
        for cp in self._ds.getWorldState().characterPositions:
            if cp.characterName == character:
                P = np.array([lp.p for lp in cp.linkPositions], dtype=float).reshape(-1, 3)
                R = np.array([lp.R for lp in cp.linkPositions], dtype=float).reshape(-1, 3, 3)
                return P, R
        raise KeyError("no character %r in the world state" % character)

    def sensors(self, character):
        return _sensor_arrays(self._ds.getCharacterSensorState(character))

    def extra_joint_force(self, character, name):
        return np.asarray(self._ds.getExtraJointConstraintForce(character, name), dtype=float)

    def camera_images(self, character):
        from .images import image_arrays
        view = self._camera_view()
        view.updateScene(self._ds.getWorldState())
        out = {}
        for cam in view.getCameraSequenceOf(character):
            out[cam.getCameraParameter().sensorName] = image_arrays(cam.getImageData())
        return out

    def _camera_view(self):
        if self._view is not None:
            return self._view
        from . import OpenHRP, file_url
        client = self.sim.client
        factory = client.resolve("ViewSimulatorFactory", OpenHRP.ViewSimulatorFactory)
        loader = client.model_loader()
        opt = OpenHRP.ModelLoader.ModelLoadOption(True, [], OpenHRP.ModelLoader.AABB_NUM)
        view = factory.create()
        try:
            for name, url, _ in self._models:
                view.registerCharacter(name, loader.loadBodyInfoEx(file_url(url), opt))
        except BaseException:
            view.destroy()
            raise
        self._view = view
        return view

    def close(self):
        view, self._view = self._view, None
        if view is not None:
            from omniORB import CORBA
            try:
                view.destroy()
            except (CORBA.OBJECT_NOT_EXIST, CORBA.TRANSIENT, CORBA.COMM_FAILURE):
                pass


def _solver_wire(settings):
    """((name, text), ...) as hrpsim::SolverSettings (Diagnostics.idl)."""
    from ._idl import hrpsim as H
    return [H.SolverSetting(name, text) for name, text in settings]


def _hrpsim_dynamics(ref):
    """``ref`` (an OpenHRP.DynamicsSimulator of hrpsim's) narrowed to hrpsim.DynamicsSimulator,
    whose extra operations carry hrpsim's options."""
    from ._idl import hrpsim as H
    narrowed = ref._narrow(H.DynamicsSimulator)
    if narrowed is None:
        raise RuntimeError("this DynamicsSimulator is not hrpsim's (no setWorldOptions)")
    return narrowed


class _ServerBackend(_CorbaBackend):
    """Client-driven: our own DynamicsSimulator from a DynamicsSimulatorFactory, stepped with
    stepSimulation."""

    name = "server"

    def __init__(self, sim):
        super().__init__(sim)
        self._one = None      # the hrpsim.DynamicsSimulator reference when stepWith is used
        self._pending = []    # JointCommands held for the next step
        self._state = None    # (WorldState, {character: SensorState}) the last stepWith gave

    def describe(self):
        return self.sim.factory_name

    def save_state(self):
        self._flush()  # held commands are part of the state
        return bytes(self._ds.saveState())

    def restore_state(self, data):
        self._pending = []  # the state's commands replace any held ones
        self._state = None
        self._ds.restoreState(bytes(data))

    # --- one call per step: held commands and the state the step returned ---
    def _flush(self):
        """Write held commands (as setCharacterAllLinkData) and forget the returned state."""
        pending, self._pending = self._pending, []
        self._state = None
        for c in pending:
            self._ds.setCharacterAllLinkData(c.character, c.type, c.values)

    def dynamics(self):
        self._flush()
        return super().dynamics()

    def set_all_link_data(self, character, type_name, values):
        if self._one is not None:
            t = self._held.get(type_name)  # JOINT_VALUE / JOINT_TORQUE (name or value)
            if t is not None:
                self._state = None
                self._pending.append(self._command(character, t, values.tolist()))
                return
        self._flush()
        super().set_all_link_data(character, type_name, values)

    def set_link_data(self, character, link, type_name, data):
        self._flush()
        super().set_link_data(character, link, type_name, data)

    def time(self):
        if self._state is not None:
            return float(self._state[0].time)
        self._flush()
        return super().time()

    def link_data(self, character, link, type_name):
        self._flush()
        return super().link_data(character, link, type_name)

    def all_link_data(self, character, type_name):
        self._flush()
        return super().all_link_data(character, type_name)

    def link_poses(self, character):
        self._flush()
        return super().link_poses(character)

    def sensors(self, character):
        s = self._state[1].get(character) if self._state is not None else None
        if s is None:
            self._flush()
            return super().sensors(character)
        return _sensor_arrays(s)

    def extra_joint_force(self, character, name):
        self._flush()
        return super().extra_joint_force(character, name)

    def camera_images(self, character):
        self._flush()
        return super().camera_images(character)

    def apply(self, config):
        """Build a new DynamicsSimulator from ``config`` (its models loaded by load_model): the
        DynamicsSimulator calls of OpenHRP's clients, in their order (a refusal: ProjectError
        at the record's line for a project's configuration, else the ServerError)."""
        from . import OpenHRP
        from .configuration import refusals_at
        from .errors import ServerError
        from .limits import joint_limit_flags
        DS, at, call = self._DS(), config.at.get, refusals_at(config, ServerError)
        factory = self.sim.client.resolve(self.sim.factory_name,
                                          OpenHRP.DynamicsSimulatorFactory)
        ds = explained(_hrpsim_dynamics(factory.create()))
        try:
            engine, settings = config.solver
            if engine or settings:
                call(at("solver"), ds.setSolver, engine, _solver_wire(settings))
            for name, _, where in config.models:
                call(where, ds.registerCharacter, name, self._bodies[name])
            call(at("time_step"), ds.init, float(config.time_step), getattr(DS, config.method),
                 DS.ENABLE_SENSOR if config.sensors else DS.DISABLE_SENSOR)
            call(at("gravity"), ds.setGVector, [float(g) for g in config.gravity])
            for st in config.state:
                if st.kind == "mode":
                    call(st.at, ds.setCharacterAllJointModes, st.character,
                         getattr(DS, st.value))
                elif st.kind == "joints":
                    call(st.at, ds.setCharacterAllLinkData, st.character, self._type(st.value),
                         st.data)
                else:
                    call(st.at, ds.setCharacterLinkData, st.character, st.link,
                         self._type(st.value), st.data)
            ds.calcWorldForwardKinematics()
            for p in config.pairs:
                call(p.at, ds.registerCollisionCheckPair, p.char1, p.link1, p.char2, p.link2,
                     float(p.static), float(p.slip), [], [], float(p.culling),
                     float(p.restitution))
            for lp in config.loops:
                call(lp.at, ds.registerExtraJoint, lp.char1, lp.link1, lp.char2, lp.link2,
                     [float(x) for x in lp.pos1], [float(x) for x in lp.pos2],
                     getattr(OpenHRP, lp.type), [float(x) for x in lp.axis], lp.name)
            switch, rotor, sleep = config.joint_options
            limits = joint_limit_flags(switch)
            call(at("joint_options"), ds.setWorldOptions, any(limits), bool(rotor),
                 bool(sleep))
            if any(limits) and not all(limits):
                call(at("joint_options"), ds.setJointLimits, *limits)
            ds.initSimulation()
            self._one = None
            self._pending, self._state = [], None
            if self.sim.one_call and ds._is_a("IDL:hrpsim/DynamicsSimulator:1.0"):
                from . import SchedulerIDL
                self._one = explained(unwrap(ds)._narrow(SchedulerIDL.DynamicsSimulator))
                # looked up once, not every step: the commands stepWith takes, the characters
                # whose sensor states it returns (the models are fixed until a reset)
                self._command = SchedulerIDL.JointCommand
                self._held = {}
                for name in ("JOINT_VALUE", "JOINT_TORQUE"):
                    self._held[name] = self._held[getattr(DS, name)] = getattr(DS, name)
        except BaseException:
            ds.destroy()
            raise
        self._ds = ds
        self._models, self._dt = list(config.models), config.time_step
        self._names = [m[0] for m in config.models]

    def step(self, n, before):
        sim, ds = self.sim, self._ds
        if self._one is not None:
            if before is None:
                self._step_with(n)
                return
            for _ in range(n):
                before(sim)
                self._step_with(1)
            return
        for _ in range(n):
            if before is not None:
                before(sim)
            self._step_once(ds)
            sim._steps += 1

    def _step_with(self, n):
        """Held commands, n steps and the states in one stepWith; a runaway as _step_once."""
        sim = self.sim
        names = self._names
        pending, self._pending = self._pending, []
        self._state = None
        try:
            # the world state's poses only when read (link_poses asks getWorldState)
            world, states = self._one.stepWith(pending, n, False, names)
        except _bad_operation() as exc:
            from omniORB import CORBA
            if exc.completed != CORBA.COMPLETED_YES:
                raise
            k = exc.minor - 1
            who = names[k] if 0 <= k < len(names) else None
            sim._steps = steps_to_reach(float(self._ds.getWorldState().time), self._dt)
            raise Runaway(_runaway_message(sim._steps, who), who) from None
        sim._steps += n
        self._state = (world, dict(zip(names, states)))

    def run_to(self, target, before):
        self.step(target - self.sim._steps, before)

    def _step_once(self, ds):
        """One stepSimulation; a runaway (BAD_OPERATION, completed YES, minor code the
        character's index + 1) becomes Runaway naming the character."""
        from omniORB import CORBA
        try:
            ds.stepSimulation()
        except CORBA.BAD_OPERATION as exc:
            if exc.completed != CORBA.COMPLETED_YES:
                raise
            names = self._names
            k = exc.minor - 1
            who = names[k] if 0 <= k < len(names) else None
            self.sim._steps += 1
            raise Runaway(_runaway_message(self.sim._steps, who), who) from None

    def discard(self, closing=False):
        self._one, self._pending, self._state = None, [], None
        if self._ds is not None:
            from omniORB import CORBA
            try:
                self._ds.destroy()
            except (CORBA.OBJECT_NOT_EXIST, CORBA.TRANSIENT, CORBA.COMM_FAILURE):
                pass
        self._ds = None


def _bad_operation():
    """CORBA.BAD_OPERATION (a stepping call's runaway), imported when first needed."""
    from omniORB import CORBA
    return CORBA.BAD_OPERATION


def _runaway_message(steps, who):
    """The core's wording of a runaway of ``who`` by step ``steps`` (a DynamicsSimulator's
    BAD_OPERATION carries only the character)."""
    from .core_facts import runaway_message
    return runaway_message(who, steps)


class _SchedulerBackend(_CorbaBackend):
    """Through hrpsim::Scheduler: configured, started paused and driven with step(n) /
    runUntil(t); states read from its co-located DynamicsSimulator."""

    name = "scheduler"
    features = frozenset({"controllers", "viewer", "noise", "joint_options", "log"})

    def __init__(self, sim):
        super().__init__(sim)
        self._scheduler = None

    def describe(self):
        return "scheduler %s" % self.sim.scheduler_name

    def scheduler(self):
        if self._scheduler is None:
            from . import SchedulerIDL
            self._scheduler = self.sim.client.resolve(self.sim.scheduler_name,
                                                      SchedulerIDL.Scheduler)
        return self._scheduler

    def apply(self, config):
        """Configure the Scheduler from ``config`` (configuration.to_scheduler, as `hrpsim
        run` does) and start it paused."""
        from . import configuration
        s = explained(self.scheduler())
        configuration.to_scheduler(s, config)
        s.startPaused()
        self._ds = explained(_hrpsim_dynamics(s.dynamics()))
        self._models, self._dt = list(config.models), config.time_step

    def step(self, n, before):
        sim = self.sim
        if before is None:
            if n:
                self._step(n)
                sim._steps += n
            return
        for _ in range(n):
            before(sim)
            self._step(1)
            sim._steps += 1

    def run_to(self, target, before):
        sim = self.sim
        if before is not None:
            self.step(target - sim._steps, before)
        elif target > sim._steps:
            explained(self._scheduler).runUntil(target * self._dt)
            sim._steps = target

    def save_state(self):
        return bytes(explained(self._scheduler).saveState())

    def restore_state(self, data):
        explained(self._scheduler).restoreState(bytes(data))

    def _step(self, n):
        """Scheduler.step(n); a run stopped by a runaway becomes Runaway naming the
        character (the scheduler's message says which)."""
        from . import SchedulerIDL
        from .core_facts import runaway_character
        try:
            self._scheduler.step(n)
        except SchedulerIDL.SchedulerError as exc:
            who = runaway_character(exc.description)  # the core's wording in the description
            if who is None:
                raise explain(self._scheduler, "step", exc) from exc
            raise Runaway(exc.description, who) from None

    def discard(self, closing=False):
        if closing and self._ds is not None:
            try:
                self._scheduler.stop()
            except Exception:  # noqa: BLE001 - already finished or failed: nothing to do
                pass
        self._ds = None


def _local_backend(sim):
    from .local import LocalBackend
    return LocalBackend(sim)


_BACKENDS = {"server": _ServerBackend, "scheduler": _SchedulerBackend, "local": _local_backend}
