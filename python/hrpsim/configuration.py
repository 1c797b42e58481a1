"""One run's configuration as data, and the one place that turns it into Scheduler calls.

A project file (project.py, either format) and ``hrpsim.Simulation`` both describe a run as
a ``Configuration``: plain records in the order the Scheduler receives them. A Simulation holds
one and hands it to its back end, which applies it with one method, ``apply(config)``: the
scheduler back end with ``to_scheduler(scheduler, config)`` below (which `hrpsim run` calls
too), the server back end as DynamicsSimulator calls (simulation.py), the local back end as
core calls (local.py; `hrpsim run --local` gives a local Simulation the project's
Configuration). ``from_project`` maps a parsed project onto a Configuration, given what it
needs to know of each model (``ModelFacts``: its link names, 1-dof joints, root link and the
root's pose in the model). Values are checked where they are applied, by the core.

Every record may carry ``at`` = (line, field): for a configuration with a ``path`` (a project),
a refusal of that call (by the Scheduler, a DynamicsSimulator or the local core) becomes
``ProjectError(path, line, field, message)``; without a path the refusal passes through
unchanged (``refusals_at``).
"""

import math
from dataclasses import dataclass, field
from typing import Optional

from ._orb import HrpsimError
from .limits import joint_limit_flags

_UNSET = object()


class ProjectError(HrpsimError):
    """An invalid project: ``file``, ``line`` (or None) and ``field`` say where."""

    def __init__(self, file, line, field_, message):
        self.file, self.line, self.field, self.message = str(file), line, field_, message
        where = "%s:%s" % (self.file, line) if line else self.file
        super().__init__("%s: %s%s" % (where, field_ + ": " if field_ else "", message))


@dataclass
class State:
    """An initial-state call on one character: ``kind`` "mode" (setAllJointModes, ``value`` a
    JointDriveMode name), "link" (setLinkData of ``link``, ``value`` a LinkDataType name,
    ``data`` its numbers) or "joints" (setCharacterAllLinkData: ``data`` one number per
    jointId; ``links`` the link of each jointId, "" for a gap, for a Scheduler, which takes
    them link by link)."""
    kind: str
    character: str
    value: str
    link: str = ""
    data: list = None
    at: tuple = None
    links: list = None


@dataclass
class Pair:
    """addCollisionPair's arguments ("" link: every link)."""
    char1: str
    link1: str
    char2: str
    link2: str
    static: float
    slip: float
    culling: float
    restitution: float
    at: tuple = None


@dataclass
class Loop:
    """addExtraJoint's arguments; ``type`` is OpenHRP's ExtraJointType name (EJ_XYZ, ...)."""
    name: str
    char1: str
    link1: str
    char2: str
    link2: str
    pos1: list
    pos2: list
    type: str
    axis: list
    at: tuple = None


@dataclass
class Configuration:
    """A run as the Scheduler is told it. ``at`` maps a setting's name ("time_step",
    "end_time", "method", "sensors", "gravity", "joint_options", "solver",
    "controller_timeout", "log", "noise", "real_time", "view_rate") to (line, field); list
    records carry their own."""
    path: Optional[str] = None
    time_step: float = 0.001
    end_time: Optional[float] = None          # None: no end time is set
    method: str = "EULER"                     # IntegrateMethod name
    sensors: bool = True
    gravity: list = field(default_factory=lambda: [0.0, 0.0, 9.8])
    models: list = field(default_factory=list)        # (name, url, at)
    state: list = field(default_factory=list)         # State, in call order
    pairs: list = field(default_factory=list)         # Pair
    loops: list = field(default_factory=list)         # Loop
    joint_options: tuple = (False, False, True)       # (jointLimits, rotorInertia, sleep);
                                                      # jointLimits as limits.joint_limits
    solver: tuple = ("", ())                          # (engine, ((name, text), ...)):
                                                      # solver.solver_spec
    controller_timeout: Optional[float] = None
    controllers: list = field(default_factory=list)   # (name, character, period, at)
    log: Optional[tuple] = None                       # (period, sensors)
    noise: Optional[tuple] = None                     # (seed, limits, [(type, std, bias)])
    real_time: Optional[float] = None
    view_rate: Optional[float] = None
    viewer: object = _UNSET                           # an OnlineViewer reference, or None
    at: dict = field(default_factory=dict)


def refusals_at(config, refused):
    """``call(at, fn, *args)``: ``fn(*args)``, with a refusal (an exception of the classes
    ``refused``) turned into ProjectError at ``at`` = (line, field) when ``config`` is a
    project's (has a path) and ``at`` is known; otherwise the refusal passes unchanged. The
    message is a SchedulerError's description or the exception's text."""
    def call(at, fn, *args):
        if config.path is None or at is None:
            return fn(*args)
        try:
            return fn(*args)
        except refused as exc:
            reason = getattr(exc, "description", None) or str(exc)
            raise ProjectError(config.path, at[0], at[1], reason) from exc
    return call


def to_scheduler(scheduler, config):
    """Configure ``scheduler`` (an hrpsim::Scheduler reference; reset first) as ``config``
    says: the scheduler's ``apply``. Raises ProjectError (``config.path`` set) or the
    Scheduler's exception."""
    from . import OpenHRP
    import hrpsim._idl.hrpsim as H
    DS = OpenHRP.DynamicsSimulator
    call = refusals_at(config, H.SchedulerError)

    s, at = scheduler, config.at.get
    s.reset()
    call(at("time_step"), s.setTimeStep, float(config.time_step))
    if config.end_time is not None:
        call(at("end_time"), s.setEndTime, float(config.end_time))
    call(at("method"), s.setIntegrateMethod, getattr(DS, config.method))
    call(at("sensors"), s.setSensorOption,
         DS.ENABLE_SENSOR if config.sensors else DS.DISABLE_SENSOR)
    call(at("gravity"), s.setGVector, [float(g) for g in config.gravity])
    for name, url, where in config.models:
        call(where, s.addModel, name, url)
    for st in config.state:
        if st.kind == "mode":
            call(st.at, s.setAllJointModes, st.character, getattr(DS, st.value))
        elif st.kind == "joints":   # link by link (a jointId gap has no link to write)
            for link, v in zip(st.links, st.data):
                if link:
                    call(st.at, s.setLinkData, st.character, link, getattr(DS, st.value), [v])
        else:
            call(st.at, s.setLinkData, st.character, st.link, getattr(DS, st.value), st.data)
    for p in config.pairs:
        call(p.at, s.addCollisionPair,
             H.CollisionPair(p.char1, p.link1, p.char2, p.link2, float(p.static),
                             float(p.slip), float(p.culling), float(p.restitution)))
    for lp in config.loops:
        call(lp.at, s.addExtraJoint,
             H.ExtraJointSpec(lp.name, lp.char1, lp.link1, lp.char2, lp.link2,
                              [float(x) for x in lp.pos1], [float(x) for x in lp.pos2],
                              getattr(OpenHRP, lp.type), [float(x) for x in lp.axis]))
    limits = joint_limit_flags(config.joint_options[0])
    call(at("joint_options"), s.setJointOptions,
         H.JointOptions(any(limits), *(bool(x) for x in config.joint_options[1:])))
    if any(limits) and not all(limits):  # some kinds only: hrpsim's setJointLimits
        call(at("joint_options"), s.setJointLimits, *limits)
    engine, settings = config.solver
    if engine or settings:
        call(at("solver"), s.setSolver, engine,
             [H.SolverSetting(name, text) for name, text in settings])
    if config.controller_timeout is not None:
        call(at("controller_timeout"), s.setControllerTimeout, float(config.controller_timeout))
    for name, character, period, where in config.controllers:
        call(where, s.addController, H.ControllerSpec(name, character or "", float(period)))
    if config.log is not None:
        period, sensors = config.log
        call(at("log"), s.setLogOptions, H.LogOptions(float(period), bool(sensors)))
    if config.noise is not None:
        seed, limits, specs = config.noise
        call(at("noise"), s.setSensorNoise,
             H.SensorNoise(int(seed), bool(limits),
                           [H.SensorNoiseSpec(t, [float(x) for x in std],
                                              [float(x) for x in bias])
                            for t, std, bias in specs]))
    if config.real_time is not None:
        call(at("real_time"), s.setRealTime, float(config.real_time))
    if config.view_rate is not None:
        call(at("view_rate"), s.setViewRate, float(config.view_rate))
    if config.viewer is not _UNSET:
        s.setOnlineViewer(config.viewer)


# ---------------------------------------------------------------------------------------------
# a project as a configuration
# ---------------------------------------------------------------------------------------------

@dataclass
class ModelFacts:
    """What ``from_project`` needs to know of one loaded model: its link names (file order,
    root first), its 1-dof joints' link names, the root's pose in the model (position,
    3x3 row-major rotation) and its joint type ("fixed": welded to the world, "free", ...;
    "" if unknown)."""
    links: list
    joints: list
    root_p: list
    root_R: list
    root_joint: str = ""

    @classmethod
    def from_links(cls, links):
        """From a BodyInfo's LinkInfo list (the Scheduler's view of the model)."""
        if not links:
            return None
        root = links[0]
        return cls([lk.name for lk in links],
                   [lk.name for lk in links
                    if lk.jointId >= 0 and lk.jointType in ("rotate", "slide")],
                   list(root.translation), axis_angle_to_matrix(root.rotation),
                   str(root.jointType))


def from_project(project, facts, noise=None):
    """The Configuration of ``project`` (project.Project). ``facts`` maps model names to
    ModelFacts (None or missing: the model's links are not known, so its root pose, its
    all-joint value and link-name checks are left out); ``noise`` replaces project.noise
    (the models' declared noise, for a project without <noise>). Raises ProjectError for a
    link name a model does not have, at the line that holds it."""
    from . import file_url
    p, at = project, project.at
    c = Configuration(path=p.path, time_step=p.time_step, end_time=p.end_time, method=p.method,
                      sensors=p.sensors, gravity=list(p.gravity),
                      joint_options=(p.joint_limits, p.rotor_inertia, p.sleep),
                      solver=(p.engine, tuple(p.solver.items())),
                      controller_timeout=p.controller_timeout,
                      log=(p.log_period or 0.0, p.log_sensors), real_time=p.real_time,
                      view_rate=p.view_rate)
    c.at = {"time_step": (at("time_step"), "timeStep"), "end_time": (at("end_time"), "endTime"),
            "method": (at("method"), "method"), "sensors": (at("sensors"), "sensors"),
            "gravity": (at("gravity"), "gravity"),
            "joint_options": (at("joint_limits"), "jointLimits"),
            "solver": (at("solver"), "engine"),
            "controller_timeout": (at("controller_timeout"), "controllerTimeout"),
            "log": (at("log_period", "log"), "log"), "real_time": (at("real_time"), "realTime"),
            "view_rate": (at("view_rate"), "viewRate")}
    for m in p.models:
        c.models.append((m.name, file_url(m.url), (m.at("url"), "model %s url" % m.name)))
    for m in p.models:
        c.state.extend(model_state(p, m, facts.get(m.name)))
    for pair in p.collisions:
        _check_pair_links(p, pair, facts, "collision")
        c.pairs.append(Pair(pair.object1, pair.link1, pair.object2, pair.link2,
                            pair.static_friction, pair.slip_friction, pair.culling,
                            pair.restitution,
                            (pair.line, "collision %s/%s" % (pair.object1, pair.object2))))
    from .core_facts import extra_joint_wire
    for e in p.extra_joints:
        _check_pair_links(p, e, facts, "extra joint %s" % e.name)
        c.loops.append(Loop(e.name, e.object1, e.link1, e.object2, e.link2, list(e.link1_pos),
                            list(e.link2_pos), extra_joint_wire(e.joint_type), list(e.axis),
                            (e.line, "extra joint %s" % e.name)))
    for ctl in p.controllers:
        c.controllers.append((ctl.name, ctl.character or "",
                              ctl.period if ctl.period else p.time_step,
                              (ctl.line, "controller %s" % ctl.name)))
    noise = p.noise if noise is None else noise
    if noise or p.noise_limits:
        c.noise = (p.noise_seed, p.noise_limits, [(t, std, bias) for t, std, bias, _ in noise])
        # <noise>'s line, or that of the first model declaring noise
        c.at["noise"] = (p.lines.get("noise") or next((ln for *_, ln in noise if ln), 0),
                         "noise")
    return c


def model_state(project, m, facts):
    """The initial-state records of project model ``m`` (project.ModelSpec): joint modes,
    joint values and velocities, track speeds, then the root's pose and velocity."""
    fld = "model %s" % m.name
    out = []

    def check_link(name, what, key):
        if facts and name not in facts.links:
            raise ProjectError(project.path, m.at(key), "%s %s" % (fld, what),
                               "no link named %r in %s" % (name, m.url))

    def link(name, type_name, data, key, where):
        out.append(State("link", m.name, type_name, name, [float(x) for x in data],
                         (m.at(key), where)))

    if m.all_joint_mode:
        out.append(State("mode", m.name, m.all_joint_mode,
                         at=(m.at("joints.mode"), fld + " mode")))
    for name, mode in m.joint_modes.items():
        check_link(name, "joint mode", "mode:" + name)
        link(name, "POSITION_GIVEN", [1.0 if mode == "HIGH_GAIN_MODE" else 0.0], "mode:" + name,
             "%s %s.mode" % (fld, name))
    if m.all_joint_value is not None and facts:
        for j in facts.joints:
            link(j, "JOINT_VALUE", [m.all_joint_value], "joints.value", fld + " joints value")
    for j, v in m.joint_values.items():
        check_link(j, "joint value", "value:" + j)
        link(j, "JOINT_VALUE", [v], "value:" + j, "%s %s" % (fld, j))
    for j, v in m.joint_velocities.items():
        check_link(j, "joint velocity", "velocity:" + j)
        link(j, "JOINT_VELOCITY", [v], "velocity:" + j, "%s %s" % (fld, j))
    for j, v in m.track_speeds.items():
        check_link(j, "track speed", "trackSpeed:" + j)
        link(j, "JOINT_TORQUE", [v], "trackSpeed:" + j, "%s %s.trackSpeed" % (fld, j))
    if facts and (m.root_translation is not None or m.root_rotation is not None):
        p = m.root_translation if m.root_translation is not None else facts.root_p
        R = (axis_angle_to_matrix(m.root_rotation) if m.root_rotation is not None
             else facts.root_R)
        key = "root_translation" if m.root_translation is not None else "root_rotation"
        link(facts.links[0], "ABS_TRANSFORM", list(p) + list(R), key, fld + " root pose")
        _warn_moved_anchor(project, m, facts, p, R, key)
    if facts and m.root_velocity is not None:
        link(facts.links[0], "ABS_VELOCITY", m.root_velocity, "root_velocity",
             fld + " root velocity")
    return out


def _warn_moved_anchor(project, m, facts, p, R, key):
    """Warn (at the rootPose's line) when a project's root pose moves the fixed base of a URDF
    off its anchor: the root pose replaces the pose the fixed joint from the world gives the
    base (OpenHRP's rule for a root's pose), it is not added to it (docs/models.md)."""
    if facts.root_joint != "fixed" or not str(m.url).lower().endswith(".urdf"):
        return
    moved = max(abs(a - b) for a, b in zip(list(p) + list(R),
                                            list(facts.root_p) + list(facts.root_R)))
    if moved <= 1e-9:
        return
    def text(v):
        return " ".join("%g" % x for x in v)
    project.warn(m.at(key), "model %s rootPose: a fixed URDF base is placed where the root pose "
                 "says, not on its anchor (the joint from the world puts %s at %s): the root "
                 "pose replaces the anchor, as in OpenHRP, so %s starts at %s; leave rootPose "
                 "out to keep the anchor" % (m.name, facts.links[0], text(facts.root_p),
                                             facts.links[0], text(p)))


def _check_pair_links(project, spec, facts, what):
    """A collision pair's or closed loop's (``what``) link names against the models' links, so
    that a wrong one is reported at the line that holds it (the scheduler would refuse it too,
    at the pair's element)."""
    for i in (1, 2):
        obj, name = getattr(spec, "object%d" % i), getattr(spec, "link%d" % i)
        f = facts.get(obj)
        if name and f and name not in f.links:
            raise ProjectError(project.path, spec.at("link%d" % i), "%s link%d" % (what, i),
                               "no link named %r in model %s" % (name, obj))


def axis_angle_to_matrix(aa):
    """A 3x3 row-major rotation (9 floats) from axis-angle [x, y, z, angle]."""
    x, y, z, a = (float(v) for v in aa)
    n = math.sqrt(x * x + y * y + z * z)
    if n < 1e-12 or a == 0.0:
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    x, y, z = x / n, y / n, z / n
    c, s = math.cos(a), math.sin(a)
    t = 1.0 - c
    return [t * x * x + c, t * x * y - s * z, t * x * z + s * y,
            t * x * y + s * z, t * y * y + c, t * y * z - s * x,
            t * x * z - s * y, t * y * z + s * x, t * z * z + c]
