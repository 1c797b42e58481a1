"""Simulation projects: hrpsim's own XML format and OpenHRP GrxUI project files.

Both formats parse into one ``Project`` (plain data: time step, end time, models with their
initial state and joint modes, collision pairs, controllers, logging, plots).
``Project.configure(scheduler, client)`` applies it through the hrpsim Scheduler IDL:
configuration.py maps it onto a ``Configuration`` and makes the calls (the same module
configures the Scheduler for ``hrpsim.Simulation``).

Parsing uses expat directly (Python's standard library) into a tiny element tree that keeps
the line of every element, so that every error names the file, the line and the field:

    humanoid.xml:12: <simulation> timeStep: must be a positive number, got 'abc'

That text is ``str(ProjectError)``; the exception also carries ``file``, ``line`` and
``field``. GrxUI items or properties hrpsim cannot honour are not errors: they become
``Project.warnings`` (with their line), which `hrpsim run` prints and keeps in the summary.

The format is documented in docs/projects.md.
"""

import math
import os
import re
import shlex
import sys
import xml.parsers.expat
from dataclasses import dataclass, field
from pathlib import Path

from . import primitives, solver
from .errors import BadArgument
from .configuration import ProjectError  # noqa: F401 - importable from here
from .limits import MAX_TIME_STEP, MIN_TIME_STEP, joint_limits, period_steps

FORMAT_HRPSIM = "hrpsim"
FORMAT_GRXUI = "grxui"

JOINT_MODES = {"torque": "TORQUE_MODE", "highgain": "HIGH_GAIN_MODE",
               "high_gain": "HIGH_GAIN_MODE", "high-gain": "HIGH_GAIN_MODE"}
METHODS = ("EULER", "RUNGE_KUTTA")


# ---------------------------------------------------------------------------------------------
# the parsed project
# ---------------------------------------------------------------------------------------------

class _Lines:
    """Where each value of a spec was written: ``lines`` maps a key ("url", "value:RLEG_KNEE",
    "period", ...) to the line of the element (or GrxUI property) that holds it; ``at(key)``
    is that line, else the spec's own element's ``line``."""

    def at(self, key):
        return self.lines.get(key) or self.line


@dataclass
class ModelSpec(_Lines):
    """One model: registered in the simulation as ``name``, loaded from ``url``."""
    name: str
    url: str                                  # absolute path or URL
    line: int = 0
    root_translation: list = None             # [x, y, z] [m] or None (the model's own)
    root_rotation: list = None                # axis-angle [x, y, z, angle] or None
    root_velocity: list = None                # [vx, vy, vz, wx, wy, wz] or None
    all_joint_value: float = None             # every joint's initial value, or None
    joint_values: dict = field(default_factory=dict)   # joint (link) name -> value
    joint_velocities: dict = field(default_factory=dict)
    all_joint_mode: str = None                # "TORQUE_MODE" / "HIGH_GAIN_MODE" or None
    joint_modes: dict = field(default_factory=dict)    # link name -> mode
    track_speeds: dict = field(default_factory=dict)   # crawler link name -> speed [m/s]
    lines: dict = field(default_factory=dict)          # value key -> line (see _Lines)


@dataclass
class ExtraJointSpec(_Lines):
    """A closed loop registered with the Scheduler (OpenHRP's registerExtraJoint)."""
    name: str
    object1: str
    link1: str
    object2: str
    link2: str
    link1_pos: list = field(default_factory=lambda: [0.0, 0.0, 0.0])
    link2_pos: list = field(default_factory=lambda: [0.0, 0.0, 0.0])
    joint_type: str = "xyz"                   # xyz | xy | z
    axis: list = field(default_factory=lambda: [0.0, 0.0, 1.0])
    line: int = 0
    lines: dict = field(default_factory=dict)


@dataclass
class CollisionSpec(_Lines):
    """A contact pair; empty link names mean every link."""
    object1: str
    object2: str
    link1: str = ""
    link2: str = ""
    static_friction: float = 0.5
    slip_friction: float = 0.5
    culling: float = 0.01
    restitution: float = 0.0
    line: int = 0
    lines: dict = field(default_factory=dict)


@dataclass
class ControllerSpec(_Lines):
    """An OpenHRP Controller, found by ``name`` in the naming service; ``command`` (argv list,
    or None) is started by `hrpsim run` before the run and stopped after it."""
    name: str
    character: str = ""
    period: float = None                      # [s]; None: the time step
    command: list = None
    line: int = 0
    python: str = None                        # "FILE.py:CLASS" for `hrpsim run --local`
    lines: dict = field(default_factory=dict)


@dataclass
class Project:
    """Everything needed to configure one run of the Scheduler."""
    path: Path
    format: str = FORMAT_HRPSIM
    time_step: float = 0.001
    end_time: float = 5.0
    method: str = "EULER"
    sensors: bool = True
    gravity: list = field(default_factory=lambda: [0.0, 0.0, 9.8])  # OpenHRP convention
    real_time: float = 0.0
    view_rate: float = 30.0                   # frames per simulated second to an online viewer
    controller_timeout: float = 10.0
    models: list = field(default_factory=list)
    collisions: list = field(default_factory=list)
    extra_joints: list = field(default_factory=list)
    joint_limits: object = True               # hrpsim projects: on; GrxUI projects: off; or
                                              # some of position, velocity, effort (a tuple)
    rotor_inertia: bool = False
    engine: str = ""                          # "": the server's default (joint_space); or ode
    solver: dict = field(default_factory=dict)  # solver setting name -> text, as given
    sleep: bool = True                        # hrpsim projects: on; GrxUI projects: off
    controllers: list = field(default_factory=list)
    log_period: float = None                  # [s]; None: every step
    log_sensors: bool = True
    plot_root: bool = True
    plot_joints: list = None                  # joint names; None: all
    plots: bool = True
    cameras: bool = False                     # <cameras enabled>: store camera frames
    noise_seed: int = 0                       # <noise>: sensor noise and limits (docs)
    noise_limits: bool = False
    noise: list = field(default_factory=list)  # (type, std list, bias list, line)
    warnings: list = field(default_factory=list)   # "file:line: text"
    # element tag ("simulation", "log", "noise") -> line, and the line of a simulation value
    # held elsewhere (GrxUI properties: "time_step", "end_time", "method", "gravity", ...)
    lines: dict = field(default_factory=dict)

    @property
    def stem(self):
        return Path(self.path).stem

    def model(self, name):
        return next((m for m in self.models if m.name == name), None)

    def at(self, key, tag="simulation"):
        """The line holding the value ``key`` (a Project attribute name), else that of the
        element ``tag`` (0 if unknown)."""
        return self.lines.get(key) or self.lines.get(tag, 0)

    def warn(self, line, text):
        self.warnings.append("%s:%s: %s" % (self.path, line, text) if line
                             else "%s: %s" % (self.path, text))

    # -----------------------------------------------------------------------------------------
    def configure(self, scheduler, client=None, bodies=None):
        """Apply the project through the Scheduler IDL (reset first; configuration.py makes
        the calls). ``bodies`` maps model names to BodyInfo link lists (fetched through
        ``client``'s ModelLoader if missing), needed to find root links and joint names.
        Raises ProjectError naming the field for anything the Scheduler refuses."""
        from . import configuration
        bodies = dict(bodies or {})
        if client is not None:
            for m in self.models:
                if bodies.get(m.name) is None:
                    bodies[m.name] = list(client.load_body(m.url, reload=False)._get_links())
        if client is not None:
            self.keep_model_warnings(
                lambda m: list(client.load_body(m.url, reload=False)._get_info()))
        noise = None
        if "noise" not in self.lines and client is not None:
            noise = self.model_noise(
                lambda m: list(client.load_body(m.url, reload=False)._get_info()))
        facts = {name: configuration.ModelFacts.from_links(links)
                 for name, links in bodies.items()}
        configuration.to_scheduler(scheduler,
                                   configuration.from_project(self, facts, noise=noise))
        return bodies

    def keep_model_warnings(self, info_of):
        """The models' load warnings (their BodyInfo.info strings "warning: FILE:LINE: text",
        ``info_of(model)`` giving a model's, the same on every back end) added to
        self.warnings, each once: a run prints and keeps them as it does the project's own."""
        for m in self.models:
            for text in info_of(m):
                if text.startswith("warning: ") and text[9:] not in self.warnings:
                    self.warnings.append(text[9:])

    def model_noise(self, info_of):
        """The noise the models declare (a URDF's Gazebo noise, as "urdf noise" info strings;
        ``info_of(model)`` gives a model's BodyInfo.info) in self.noise's form, for a project
        without <noise>, on every back end: hrpsim's noise is per sensor type, so the first
        declaration of each type (model order, then sensor order) is used, and a different one
        for the same type is a warning."""
        found = {}
        for m in self.models:
            info = info_of(m)
            for kind, (std, bias, sensor) in declared_noise(info, sensors=True).items():
                if kind not in found:
                    found[kind] = (std, bias, m.name, sensor, m.line)
                elif found[kind][:2] != (std, bias):
                    self.warn(m.line, "model %s: sensor %s declares other %s noise than %s/%s; "
                              "hrpsim's noise is per sensor type: %s/%s's is used"
                              % (m.name, sensor, kind, found[kind][2], found[kind][3],
                                 found[kind][2], found[kind][3]))
        return [(k, v[0], v[1], v[4]) for k, v in found.items()]


# ---------------------------------------------------------------------------------------------
# a line-tracking element tree (expat)
# ---------------------------------------------------------------------------------------------

class Element:
    __slots__ = ("tag", "attrs", "line", "children", "text")

    def __init__(self, tag, attrs, line):
        self.tag, self.attrs, self.line, self.children, self.text = tag, attrs, line, [], ""


def read_xml(path):
    """The root Element of the XML file ``path``; ProjectError with the line on bad XML."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProjectError(path, None, "", "cannot read the project: %s" % exc.strerror) from exc
    parser = xml.parsers.expat.ParserCreate()
    stack, root = [], []

    def start(tag, attrs):
        el = Element(tag, attrs, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(el)
        else:
            root.append(el)
        stack.append(el)

    def end(tag):
        stack.pop()

    def chars(text):
        if stack:
            stack[-1].text += text

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise ProjectError(path, exc.lineno, "",
                           "not well-formed XML: %s" % xml.parsers.expat.ErrorString(exc.code))
    except (LookupError, ValueError) as exc:
        # an XML declaration naming an encoding Python does not know, or a multi-byte one that
        # expat cannot decode (both found by fuzzing)
        raise ProjectError(path, parser.CurrentLineNumber or 1, "",
                           "cannot read the project: %s" % exc) from None
    return root[0]


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------

_VARIABLE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


class _Ctx:
    """Where we are: file, project dir, and the functions that read typed attribute values."""

    def __init__(self, path):
        self.path = Path(path)
        self.dir = self.path.resolve().parent
        self.notes = []  # (line, text) warnings found while reading values

    def err(self, line, fld, msg):
        return ProjectError(self.path, line, fld, msg)

    def expand(self, text, line=None, fld=""):
        """text with $(NAME) variables replaced: $(PROJECT_DIR) and $(CURRENT_DIR) are the
        project's directory, $(PYTHON) the Python running hrpsim, $(OPENHRPHOME) the
        environment variable or, unset, OpenHRP's directory when the project sits in its
        sample/project folder (a warning says so); any other $(NAME) an environment variable.
        An unknown variable is an error naming it."""
        def value(m):
            name = m.group(1)
            if name in ("PROJECT_DIR", "CURRENT_DIR"):
                return str(self.dir)
            if name == "PYTHON":
                return sys.executable
            if os.environ.get(name):
                return os.environ[name]
            if name == "OPENHRPHOME" and self.dir.parent.name == "sample" and \
                    self.dir.name == "project":
                home = str(self.dir.parent.parent)
                self.note(line, "$(OPENHRPHOME) is not set; taken as %s, the OpenHRP directory "
                                "this project sits in (sample/project)" % home)
                return home
            raise self.err(line, fld, "$(%s) is not set (set the environment variable %s%s)"
                           % (name, name, " to OpenHRP's directory" if name == "OPENHRPHOME"
                                          else ""))
        return _VARIABLE.sub(value, text)

    def note(self, line, text):
        """Record a warning once (the parsers copy them into the project)."""
        if all(t != text for _, t in self.notes):
            self.notes.append((line, text))

    def url(self, text, line, fld):
        text = self.expand(text.strip(), line, fld)
        if not text:
            raise self.err(line, fld, "must not be empty")
        if text.startswith("file://"):
            text = text[len("file://"):]
        elif "://" in text:
            return text
        fragment = ""
        for attempt in range(2):
            try:
                p = Path(os.path.expanduser(text))
                if not p.is_absolute():
                    p = self.dir / p
                p = p.resolve()
                found = p.exists()
            except (OSError, ValueError) as exc:
                # a name too long, a NUL byte, a loop of links (found by fuzzing)
                raise self.err(line, fld, "cannot use the path %r: %s"
                               % (text[:80], getattr(exc, "strerror", None) or exc)) from None
            if found or attempt or "#" not in text:
                break
            # an MJCF model's fragment (model.xml#BODY selects a top-level body)
            text, fragment = text.rsplit("#", 1)
            fragment = "#" + fragment
        if not found:
            raise self.err(line, fld, "no such file: %s" % p)
        return str(p) + fragment

    def number(self, text, line, fld, positive=False, nonneg=False):
        try:
            v = float(text)
        except (TypeError, ValueError):
            v = float("nan")
        if not math.isfinite(v):
            raise self.err(line, fld, "must be a number, got %r" % text)
        if positive and v <= 0:
            raise self.err(line, fld, "must be a positive number, got %r" % text)
        if nonneg and v < 0:
            raise self.err(line, fld, "must not be negative, got %r" % text)
        return v

    def vector(self, text, n, line, fld):
        parts = text.replace(",", " ").split()
        if len(parts) != n:
            raise self.err(line, fld, "needs %d numbers, got %r" % (n, text))
        return [self.number(p, line, fld) for p in parts]

    def boolean(self, text, line, fld):
        t = text.strip().lower()
        if t in ("true", "1", "yes", "on"):
            return True
        if t in ("false", "0", "no", "off"):
            return False
        raise self.err(line, fld, "must be true or false, got %r" % text)

    def mode(self, text, line, fld):
        m = JOINT_MODES.get(text.strip().lower())
        if m is None:
            raise self.err(line, fld, "must be torque or highgain, got %r" % text)
        return m

    def method(self, text, line, fld):
        t = text.strip().upper().replace("-", "_")
        if t not in METHODS:
            raise self.err(line, fld, "must be EULER or RUNGE_KUTTA, got %r" % text)
        return t


def load_project(path):
    """Parse a project file (hrpsim's format or GrxUI's, chosen by the root element)."""
    root = read_xml(path)
    ctx = _Ctx(path)
    if root.tag == "hrpsim-project":
        project = _parse_hrpsim(root, ctx)
    elif root.tag == "grxui":
        project = _parse_grxui(root, ctx)
    else:
        raise ctx.err(root.line, "<%s>" % root.tag,
                      "not a project: the root element must be <hrpsim-project> or <grxui>")
    for line, text in ctx.notes:
        project.warn(line, text)
    _check(project, ctx)
    return project


# ---------------------------------------------------------------------------------------------
# hrpsim's own format
# ---------------------------------------------------------------------------------------------

_ALLOWED = {
    "hrpsim-project": {"version"},
    "simulation": {"timeStep", "endTime", "method", "sensors", "gravity", "realTime",
                   "controllerTimeout", "jointLimits", "rotorInertia", "sleep", "viewRate",
                   "engine", *(solver.project_attribute(s) for s in solver.SETTINGS)},
    "model": {"name", "url"},
    "scene": {"url", "prefix"},
    "rootPose": {"translation", "rotation"},
    "rootVelocity": {"linear", "angular"},
    "joints": {"value", "mode"},
    "joint": {"name", "value", "velocity", "mode", "trackSpeed"},
    "extraJoint": {"name", "object1", "link1", "object2", "link2", "link1LocalPos",
                   "link2LocalPos", "jointType", "jointAxis"},
    "collision": {"object1", "object2", "link1", "link2", "staticFriction", "slipFriction",
                  "culling", "restitution"},
    "controller": {"name", "command", "character", "period", "python"},
    "log": {"period", "sensors"},
    "plots": {"enabled", "root", "joints"},
    "cameras": {"enabled"},
    "noise": {"seed", "limits"},
    "sensor": {"type", "std", "bias"},
}
_ALLOWED.update(primitives.PROJECT_ATTRS)
_CHILDREN = {
    "hrpsim-project": {"simulation", "model", "scene", "collision", "extraJoint", "controller",
                       "log", "plots", "noise", "cameras"} | set(primitives.PROJECT_ATTRS),
    "model": {"rootPose", "rootVelocity", "joints", "joint"},
    "noise": {"sensor"},
}


def _noise_types():
    """The sensor types <noise><sensor type=...> accepts, and how many components each has (the
    core's, hrpsim.core_facts.noise_components)."""
    from .core_facts import noise_components
    return noise_components()


def _attrs(el, ctx, required=()):
    tag = "<%s>" % el.tag
    allowed = _ALLOWED.get(el.tag, set())
    for k in el.attrs:
        if k not in allowed:
            raise ctx.err(el.line, "%s %s" % (tag, k),
                          "unknown attribute (allowed: %s)" % ", ".join(sorted(allowed)))
    for k in required:
        if not el.attrs.get(k, "").strip():
            raise ctx.err(el.line, "%s %s" % (tag, k), "required attribute is missing")
    for c in el.children:
        if c.tag not in _CHILDREN.get(el.tag, set()):
            raise ctx.err(c.line, "<%s>" % c.tag, "unexpected element inside %s" % tag)
    return el.attrs


def _parse_solver(p, a, line, f, ctx):
    """<simulation engine="ode" stepper="quick" iterations="30" ...>: the engine and
    solver settings (hrpsim.solver), checked by the core here so that a bad one is an error at
    its line."""
    if "engine" in a:
        try:
            solver.check(a["engine"], ())
        except BadArgument as e:
            raise ctx.err(line, f("engine"), str(e)) from None
        p.engine = a["engine"]
    for name in solver.SETTINGS:
        attr = solver.project_attribute(name)
        if attr in a:
            p.solver[name] = a[attr].strip()
            try:
                solver.check(p.engine, ((name, p.solver[name]),))
            except BadArgument as e:
                raise ctx.err(line, f(attr), str(e)) from None


def _parse_hrpsim(root, ctx):
    p = Project(path=ctx.path, format=FORMAT_HRPSIM)
    _attrs(root, ctx)
    ver = root.attrs.get("version", "1")
    if ver != "1":
        raise ctx.err(root.line, "<hrpsim-project> version", "unsupported version %r" % ver)
    seen = set()
    for el in root.children:
        a = _attrs(el, ctx, required={"model": ("name", "url"), "scene": ("url",),
                                      **{k: ("name",) for k in primitives.PROJECT_ATTRS},
                                      "collision": ("object1", "object2"),
                                      "extraJoint": ("name", "object1", "link1", "object2",
                                                     "link2"),
                                      "controller": ("name",)}.get(el.tag, ()))

        def f(name, _el=el):
            return "<%s> %s" % (_el.tag, name)

        if el.tag in ("simulation", "log", "plots", "noise", "cameras"):
            p.lines[el.tag] = el.line
            if el.tag in seen:
                raise ctx.err(el.line, "<%s>" % el.tag, "given twice")
            seen.add(el.tag)
        if el.tag == "simulation":
            if "timeStep" in a:
                p.time_step = ctx.number(a["timeStep"], el.line, f("timeStep"), positive=True)
            if "endTime" in a:
                p.end_time = ctx.number(a["endTime"], el.line, f("endTime"), positive=True)
            if "method" in a:
                p.method = ctx.method(a["method"], el.line, f("method"))
            if "sensors" in a:
                p.sensors = ctx.boolean(a["sensors"], el.line, f("sensors"))
            if "gravity" in a:
                p.gravity = ctx.vector(a["gravity"], 3, el.line, f("gravity"))
            if "realTime" in a:
                p.real_time = ctx.number(a["realTime"], el.line, f("realTime"), nonneg=True)
            if "controllerTimeout" in a:
                p.controller_timeout = ctx.number(a["controllerTimeout"], el.line,
                                                  f("controllerTimeout"), positive=True)
            if "viewRate" in a:
                p.view_rate = ctx.number(a["viewRate"], el.line, f("viewRate"), positive=True)
            if "jointLimits" in a:
                try:
                    p.joint_limits = joint_limits(a["jointLimits"])
                except ValueError as e:
                    raise ctx.err(el.line, f("jointLimits"), str(e)) from None
            if "rotorInertia" in a:
                p.rotor_inertia = ctx.boolean(a["rotorInertia"], el.line, f("rotorInertia"))
            if "sleep" in a:
                p.sleep = ctx.boolean(a["sleep"], el.line, f("sleep"))
            _parse_solver(p, a, el.line, f, ctx)
        elif el.tag == "extraJoint":
            p.extra_joints.append(_extra_joint(a, el.line, f, ctx))
        elif el.tag == "model":
            p.models.append(_parse_model(el, a, ctx))
        elif el.tag == "scene":
            p.models.extend(_parse_scene(el, a, ctx))
        elif el.tag in primitives.PROJECT_ATTRS:
            p.models.append(primitives.project_model(el, a, ctx, ModelSpec))
        elif el.tag == "collision":
            c = CollisionSpec(a["object1"], a["object2"], a.get("link1", ""),
                              a.get("link2", ""), line=el.line)
            for attr, key in (("staticFriction", "static_friction"),
                              ("slipFriction", "slip_friction"), ("culling", "culling"),
                              ("restitution", "restitution")):
                if attr in a:
                    setattr(c, key, ctx.number(a[attr], el.line, f(attr), nonneg=True))
            if c.restitution > 1:
                raise ctx.err(el.line, f("restitution"), "must be between 0 and 1")
            p.collisions.append(c)
        elif el.tag == "controller":
            c = ControllerSpec(a["name"], a.get("character", ""), line=el.line)
            if "period" in a:
                c.period = ctx.number(a["period"], el.line, f("period"), positive=True)
            if "command" in a:
                c.command = _command(a["command"], el.line, f("command"), ctx)
            if a.get("python", "").strip():
                c.python = a["python"].strip()
            p.controllers.append(c)
        elif el.tag == "log":
            if "period" in a:
                p.log_period = ctx.number(a["period"], el.line, f("period"), nonneg=True)
            if "sensors" in a:
                p.log_sensors = ctx.boolean(a["sensors"], el.line, f("sensors"))
        elif el.tag == "noise":
            _parse_noise(p, el, a, ctx)
        elif el.tag == "cameras":
            p.cameras = ctx.boolean(a.get("enabled", "true"), el.line, f("enabled"))
        elif el.tag == "plots":
            if "enabled" in a:
                p.plots = ctx.boolean(a["enabled"], el.line, f("enabled"))
            if "root" in a:
                p.plot_root = ctx.boolean(a["root"], el.line, f("root"))
            if "joints" in a and a["joints"].strip().lower() != "all":
                p.plot_joints = a["joints"].replace(",", " ").split()
    return p


def _extra_joint(a, line, f, ctx, lines=None):
    """An ExtraJointSpec from the attributes of an hrpsim <extraJoint> (or a GrxUI item's
    properties, as plain values; ``lines`` maps their keys to the properties' lines)."""
    e = ExtraJointSpec(a["name"], a["object1"], a["link1"], a["object2"], a["link2"],
                       line=line, lines=dict(lines or {}))
    if "link1LocalPos" in a:
        e.link1_pos = ctx.vector(a["link1LocalPos"], 3, e.at("link1LocalPos"),
                                 f("link1LocalPos"))
    if "link2LocalPos" in a:
        e.link2_pos = ctx.vector(a["link2LocalPos"], 3, e.at("link2LocalPos"),
                                 f("link2LocalPos"))
    if "jointAxis" in a:
        e.axis = ctx.vector(a["jointAxis"], 3, e.at("jointAxis"), f("jointAxis"))
    from .core_facts import extra_joint_types
    kinds = extra_joint_types()
    t = a.get("jointType", kinds[0]).strip()
    if t not in kinds:
        raise ctx.err(e.at("jointType"), f("jointType"), "must be %s or %s, got %r"
                      % (", ".join(kinds[:-1]), kinds[-1], t))
    e.joint_type = t
    return e


def declared_noise(info, sensors=False):
    """The sensor noise a body declares through its info strings (a URDF's Gazebo noise:
    "urdf noise <sensor> <type> std ... bias ..."), as keyword arguments for
    ``Simulation.set_sensor_noise``: {type: (std list, bias list)}, the first sensor of each
    type (hrpsim's noise is per type). ``sensors=True`` adds the sensor's name to each tuple.

    >>> declared_noise(["urdf noise lidar range std 0.01 bias 0"])
    {'range': ([0.01], [0.0])}
    """
    out = {}
    for line in info:
        words = line.split()
        if len(words) < 4 or words[:2] != ["urdf", "noise"] or words[3] not in _noise_types():
            continue
        name, kind, rest = words[2], words[3], words[4:]
        n = _noise_types()[kind]
        if len(rest) != 2 * n + 2 or rest[0] != "std" or rest[n + 1] != "bias":
            continue
        std = [float(x) for x in rest[1:n + 1]]
        bias = [float(x) for x in rest[n + 2:]]
        if kind not in out:
            out[kind] = (std, bias, name) if sensors else (std, bias)
    return out


def _parse_noise(p, el, a, ctx):
    """<noise seed="N" limits="bool"> with <sensor type="gyro" std="..." bias="..."/> children:
    std and bias are 1 number (every component) or one per component."""
    if "seed" in a:
        seed = ctx.number(a["seed"], el.line, "<noise> seed", nonneg=True)
        if seed != int(seed) or seed >= 2 ** 32:
            raise ctx.err(el.line, "<noise> seed", "must be a whole number below 2^32")
        p.noise_seed = int(seed)
    if "limits" in a:
        p.noise_limits = ctx.boolean(a["limits"], el.line, "<noise> limits")
    seen = set()
    types = _noise_types()
    for c in el.children:
        ca = _attrs(c, ctx, required=("type",))
        t = ca["type"].strip()
        if t not in types:
            raise ctx.err(c.line, "<sensor> type", "unknown sensor type %r (one of: %s)"
                          % (t, ", ".join(types)))
        if t in seen:
            raise ctx.err(c.line, "<sensor> type", "noise for %r given twice" % t)
        seen.add(t)
        values = {}
        for attr in ("std", "bias"):
            words = ca.get(attr, "").replace(",", " ").split()
            if len(words) not in (0, 1, types[t]):
                raise ctx.err(c.line, "<sensor> " + attr, "give 1 number (every component) or "
                              "%d for %s" % (types[t], t))
            values[attr] = [ctx.number(w, c.line, "<sensor> " + attr, nonneg=attr == "std")
                            for w in words]
        p.noise.append((t, values["std"], values["bias"], c.line))


def _command(text, line, fld, ctx):
    try:
        argv = shlex.split(ctx.expand(text, line, fld))
    except ValueError as exc:
        raise ctx.err(line, fld, "cannot split the command line: %s" % exc)
    if not argv:
        raise ctx.err(line, fld, "must not be empty")
    # a bare python/python3 is the Python running hrpsim (it has omniORBpy)
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def _parse_scene(el, a, ctx):
    """The models of an MJCF scene (<scene url prefix>): the worldbody's own geoms as
    prefix + "world" (url#world) when it has any, then each top-level body as prefix + its
    name (url#NAME), each with the pose the file gives it."""
    url = ctx.url(a["url"], el.line, "<scene> url")
    try:
        from .local import mjcf_scene
        bodies, world = mjcf_scene(url)
    except ImportError as exc:
        raise ctx.err(el.line, "<scene> url", "listing a scene needs hrpsim's in-process core "
                      "(%s)" % exc) from None
    except RuntimeError as exc:  # the core's CoreError: the file's own error, with its line
        raise ctx.err(el.line, "<scene> url", str(exc)) from None
    prefix = a.get("prefix", "").strip()
    parts = (["world"] if world else []) + bodies
    return [ModelSpec(prefix + part, "%s#%s" % (url, part), line=el.line) for part in parts]


def _parse_model(el, a, ctx):
    m = ModelSpec(a["name"], ctx.url(a["url"], el.line, "<model> url"), line=el.line)
    for c in el.children:
        ca = _attrs(c, ctx)
        fld = "<%s> " % c.tag
        for k in ("translation", "rotation"):
            if c.tag == "rootPose" and k in ca:
                m.lines["root_" + k] = c.line
        if c.tag == "rootVelocity":
            m.lines["root_velocity"] = c.line
        if c.tag == "joints":
            m.lines.update({"joints." + k: c.line for k in ("value", "mode") if k in ca})
        if c.tag == "joint" and ca.get("name", "").strip():
            m.lines.update({"%s:%s" % (k, ca["name"].strip()): c.line
                            for k in ("value", "velocity", "mode", "trackSpeed") if k in ca})
        if c.tag == "rootPose":
            if "translation" in ca:
                m.root_translation = ctx.vector(ca["translation"], 3, c.line,
                                                fld + "translation")
            if "rotation" in ca:
                m.root_rotation = ctx.vector(ca["rotation"], 4, c.line, fld + "rotation")
        elif c.tag == "rootVelocity":
            lin = ctx.vector(ca.get("linear", "0 0 0"), 3, c.line, fld + "linear")
            ang = ctx.vector(ca.get("angular", "0 0 0"), 3, c.line, fld + "angular")
            m.root_velocity = lin + ang
        elif c.tag == "joints":
            if "value" in ca:
                m.all_joint_value = ctx.number(ca["value"], c.line, fld + "value")
            if "mode" in ca:
                m.all_joint_mode = ctx.mode(ca["mode"], c.line, fld + "mode")
        elif c.tag == "joint":
            name = ca.get("name", "").strip()
            if not name:
                raise ctx.err(c.line, fld + "name", "required attribute is missing")
            if "value" in ca:
                m.joint_values[name] = ctx.number(ca["value"], c.line, fld + "value")
            if "velocity" in ca:
                m.joint_velocities[name] = ctx.number(ca["velocity"], c.line,
                                                      fld + "velocity")
            if "mode" in ca:
                m.joint_modes[name] = ctx.mode(ca["mode"], c.line, fld + "mode")
            if "trackSpeed" in ca:
                m.track_speeds[name] = ctx.number(ca["trackSpeed"], c.line, fld + "trackSpeed")
    return m


# ---------------------------------------------------------------------------------------------
# GrxUI project files
# ---------------------------------------------------------------------------------------------

_GRX_SIM_HANDLED = {"totalTime", "timeStep", "method", "gravity", "integrate",
                    "viewsimulate", "realTime"}
# GrxWorldStateItem: the log period; older GrxUI projects (without a GrxSimulationItem) keep the
# simulation settings here too
_GRX_WORLD_HANDLED = {"logTimeStep"}


def _props(item, ctx):
    """Properties of a GrxUI item as {name: (value, line)}; anything else inside is warned."""
    out = {}
    for c in item.children:
        if c.tag == "property":
            name = c.attrs.get("name")
            if not name:
                raise ctx.err(c.line, "<property> name", "required attribute is missing")
            out[name] = (c.attrs.get("value", ""), c.line)
    return out


def _parse_grxui(root, ctx):
    p = Project(path=ctx.path, format=FORMAT_GRXUI)
    p.end_time = 10.0
    p.joint_limits = False  # OpenHRP's own behaviour
    p.sleep = False
    modes = [c for c in root.children if c.tag == "mode"]
    sim_modes = [c for c in modes if c.attrs.get("name") == "Simulation"] or modes
    for c in root.children:
        if c.tag != "mode":
            p.warn(c.line, "<%s> ignored (only <mode> elements are read)" % c.tag)
    for mode in modes:
        if mode not in sim_modes:
            p.warn(mode.line, "mode %r ignored (only the Simulation mode is run)"
                   % mode.attrs.get("name", ""))
    items = [it for mode in sim_modes for it in mode.children if it.tag == "item"]
    for mode in sim_modes:
        for c in mode.children:
            if c.tag != "item":
                p.warn(c.line, "<%s> %r ignored (GrxUI %s elements do not affect a run)"
                       % (c.tag, c.attrs.get("name", ""), c.tag))
    pending_controllers = []
    world_states = []
    for it in items:
        cls = it.attrs.get("class", "")
        short = cls.rsplit(".", 1)[-1]
        name = it.attrs.get("name", "")
        props = _props(it, ctx)
        if short == "GrxSimulationItem":
            p.lines["simulation"] = it.line
            _grx_simulation(p, props, ctx)
        elif short == "GrxWorldStateItem":
            world_states.append((it, props))
        elif short == "GrxModelItem":
            _grx_model(p, it, name, props, ctx, pending_controllers)
        elif short == "GrxCollisionPairItem":
            _grx_pair(p, it, name, props, ctx)
        elif short == "GrxExtraJointItem":
            _grx_extra_joint(p, it, name, props, ctx)
        elif short == "GrxControllerItem" or short.endswith("ControllerItem"):
            fld = "item %s " % name
            cname = props.get("controller", (name, 0))[0] or name
            period = None
            if "controlTime" in props:
                v, ln = props["controlTime"]
                period = ctx.number(v, ln, fld + "controlTime", positive=True)
            character = props.get("model", props.get("robotName", ("", 0)))[0]
            pending_controllers.append(ControllerSpec(
                cname, character, period, line=it.line,
                lines={key: props[prop][1] for prop, key in (
                    ("controller", "name"), ("controlTime", "period"), ("model", "character"),
                    ("robotName", "character")) if prop in props}))
            for k, (v, ln) in props.items():
                if k not in ("controller", "controlTime", "model", "robotName"):
                    p.warn(ln, "controller %s: property %s ignored" % (name, k))
        else:
            p.warn(it.line, "item %r (%s) is not supported and was ignored"
                   % (name, short or "no class"))
    has_sim = "simulation" in p.lines
    for it, props in world_states:
        _grx_world_state(p, it, props, ctx, has_sim)
        has_sim = has_sim or "simulation" in p.lines
    p.controllers.extend(pending_controllers)
    if not p.models:
        raise ctx.err(root.line, "<grxui>", "no GrxModelItem in the Simulation mode")
    return p


def _grx_world_state(p, it, props, ctx, has_sim):
    """A GrxWorldStateItem: logTimeStep is the log period; simulation settings it holds are
    used when the mode has no GrxSimulationItem (older projects), else warned about."""
    name = it.attrs.get("name", "")
    if "logTimeStep" in props:
        v, ln = props["logTimeStep"]
        p.log_period = ctx.number(v, ln, "item %s logTimeStep" % name, positive=True)
        p.lines.setdefault("log", ln)
        p.lines.setdefault("log_period", ln)
    sim = {k: v for k, v in props.items() if k in _GRX_SIM_HANDLED}
    rest = {k: v for k, v in props.items() if k not in _GRX_SIM_HANDLED and
            k not in _GRX_WORLD_HANDLED}
    if sim and not has_sim:
        p.lines["simulation"] = it.line
        _grx_simulation(p, sim, ctx, "item %s " % name)
    elif sim:
        for k, (v, ln) in sim.items():
            p.warn(ln, "world state %s: %s ignored (the GrxSimulationItem's is used)" % (name, k))
    for k, (v, ln) in rest.items():
        p.warn(ln, "world state %s: property %s ignored" % (name, k))


def _grx_simulation(p, props, ctx, f="simulationItem "):
    for prop, key in (("timeStep", "time_step"), ("totalTime", "end_time"), ("method", "method"),
                      ("gravity", "gravity"), ("realTime", "real_time")):
        if prop in props:
            p.lines[key] = props[prop][1]
    if "timeStep" in props:
        v, ln = props["timeStep"]
        p.time_step = ctx.number(v, ln, f + "timeStep", positive=True)
    if "totalTime" in props:
        v, ln = props["totalTime"]
        p.end_time = ctx.number(v, ln, f + "totalTime", positive=True)
    if "method" in props:
        v, ln = props["method"]
        p.method = ctx.method(v, ln, f + "method")
    if "gravity" in props:
        v, ln = props["gravity"]
        g = ctx.number(v, ln, f + "gravity")
        p.gravity = [0.0, 0.0, g]
    if "integrate" in props:
        v, ln = props["integrate"]
        if not ctx.boolean(v, ln, f + "integrate"):
            p.warn(ln, "%sintegrate=false (kinematics only) is not supported; the dynamics "
                       "are integrated" % f)
    if "viewsimulate" in props:
        v, ln = props["viewsimulate"]
        if ctx.boolean(v, ln, f + "viewsimulate"):
            p.warn(ln, "%sviewsimulate=true ignored (no vision simulation in runs)" % f)
    if "realTime" in props:
        v, ln = props["realTime"]
        if ctx.boolean(v, ln, f + "realTime"):
            p.real_time = 1.0
    for k, (v, ln) in props.items():
        if k not in _GRX_SIM_HANDLED:
            p.warn(ln, "%sproperty %s ignored" % (f, k))


_GRX_MODEL_HANDLED = {"url", "isRobot", "controller", "controlTime", "markRadius",
                      "setupDirectory", "setupCommand"}


def _grx_model(p, it, name, props, ctx, controllers):
    fld = "item %s " % name
    if not name:
        raise ctx.err(it.line, "GrxModelItem name", "required attribute is missing")
    url = it.attrs.get("url") or props.get("url", ("", 0))[0]
    if not url:
        raise ctx.err(it.line, fld + "url", "required (attribute or property)")
    url_line = it.line if it.attrs.get("url") else props.get("url", ("", it.line))[1]
    m = ModelSpec(name, ctx.url(url, url_line, fld + "url"), line=it.line,
                  lines={"url": url_line})
    root_candidates = {}
    for k, (v, ln) in props.items():
        if "." not in k:
            if k in ("controller", "controlTime"):
                continue
            if k not in _GRX_MODEL_HANDLED:
                p.warn(ln, "model %s: property %s ignored" % (name, k))
            elif k in ("setupDirectory", "setupCommand") and v.strip():
                p.warn(ln, "model %s: %s ignored (start controllers with an hrpsim project "
                           "command= instead)" % (name, k))
            continue
        link, attr = k.rsplit(".", 1)
        root_candidates.setdefault(link, {}).setdefault("lines", {})[attr] = ln
        if attr == "translation":
            root_candidates.setdefault(link, {})["translation"] = ctx.vector(v, 3, ln, fld + k)
        elif attr == "rotation":
            root_candidates.setdefault(link, {})["rotation"] = ctx.vector(v, 4, ln, fld + k)
        elif attr == "velocity":
            root_candidates.setdefault(link, {})["velocity"] = ctx.vector(v, 3, ln, fld + k)
        elif attr == "angularVelocity":
            root_candidates.setdefault(link, {})["angularVelocity"] = ctx.vector(v, 3, ln,
                                                                              fld + k)
        elif attr == "angle":
            m.joint_values[link] = ctx.number(v, ln, fld + k)
            m.lines["value:" + link] = ln
        elif attr == "mode":
            t = v.strip().lower()
            if t in ("torque", "highgain", "high_gain"):
                m.joint_modes[link] = ctx.mode(t, ln, fld + k)
                m.lines["mode:" + link] = ln
            else:
                raise ctx.err(ln, fld + k, "must be Torque or HighGain, got %r" % v)
        else:
            p.warn(ln, "model %s: property %s ignored" % (name, k))
    # GrxUI writes the pose of the root only (other links follow from the joints)
    poses = [(link, d) for link, d in root_candidates.items()
             if set(d) & {"translation", "rotation", "velocity", "angularVelocity"}]
    for i, (link, d) in enumerate(poses):
        if i > 0:
            p.warn(it.line, "model %s: pose of %s ignored (only the root's is used)"
                   % (name, link))
            continue
        m.root_translation = d.get("translation")
        m.root_rotation = d.get("rotation")
        ln = d["lines"]
        m.lines.update({"root_" + k: ln[k] for k in ("translation", "rotation") if k in ln})
        if "velocity" in d or "angularVelocity" in d:
            m.root_velocity = d.get("velocity", [0.0] * 3) + d.get("angularVelocity", [0.0] * 3)
            m.lines["root_velocity"] = ln.get("velocity") or ln.get("angularVelocity")
    # a controller named on the model item (OpenHRP 3.1's way)
    if props.get("controller", ("", 0))[0].strip():
        cname, ln = props["controller"]
        period = None
        if "controlTime" in props:
            v, ln2 = props["controlTime"]
            period = ctx.number(v, ln2, fld + "controlTime", positive=True)
        controllers.append(ControllerSpec(cname.strip(), name, period, line=ln,
                                          lines={"period": props.get("controlTime",
                                                                     (0, 0))[1]}))
    p.models.append(m)


def _grx_extra_joint(p, it, name, props, ctx):
    """A GrxExtraJointItem (object1Name/object2Name, link1Name/link2Name, link1LocalPos,
    link2LocalPos, jointType, jointAxis). GrxUI's default jointType "piston" (the point slides
    along the axis) is read as xy, with a warning."""
    vals = {k: v for k, (v, _) in props.items()}
    fld = "item %s " % name
    for k in ("object1Name", "object2Name", "link1Name", "link2Name"):
        if not vals.get(k, "").strip():
            raise ctx.err(it.line, fld + k, "required property is missing")
    t = vals.get("jointType", "xyz").strip()
    if t == "piston":
        p.warn(it.line, "extra joint %s: jointType piston read as xy (the point slides along "
                        "the axis)" % name)
        t = "xy"
    a = {"name": name, "object1": vals["object1Name"].strip(), "link1": vals["link1Name"].strip(),
         "object2": vals["object2Name"].strip(), "link2": vals["link2Name"].strip(),
         "jointType": t}
    for k in ("link1LocalPos", "link2LocalPos", "jointAxis"):
        if k in vals:
            a[k] = vals[k]
    key_lines = {{"object1Name": "object1", "object2Name": "object2", "link1Name": "link1",
                  "link2Name": "link2"}.get(k, k): ln for k, (_, ln) in props.items()}
    p.extra_joints.append(_extra_joint(a, it.line, lambda k: fld + k, ctx, key_lines))
    for k in props:
        if k not in ("object1Name", "object2Name", "link1Name", "link2Name", "link1LocalPos",
                     "link2LocalPos", "jointType", "jointAxis"):
            p.warn(props[k][1], "extra joint %s: property %s ignored" % (name, k))


def _grx_pair(p, it, name, props, ctx):
    fld = "item %s " % name

    def get(k, default=""):
        return props.get(k, (default, it.line))

    o1, o2 = get("objectName1")[0].strip(), get("objectName2")[0].strip()
    for k, v in (("objectName1", o1), ("objectName2", o2)):
        if not v:
            raise ctx.err(it.line, fld + k, "required property is missing")
    c = CollisionSpec(o1, o2, get("jointName1")[0].strip(), get("jointName2")[0].strip(),
                      line=it.line, lines={"object1": get("objectName1")[1],
                                           "object2": get("objectName2")[1],
                                           "link1": get("jointName1")[1],
                                           "link2": get("jointName2")[1]})
    if "staticFriction" in props:
        v, ln = props["staticFriction"]
        c.static_friction = ctx.number(v, ln, fld + "staticFriction", nonneg=True)
    if "slidingFriction" in props:
        v, ln = props["slidingFriction"]
        c.slip_friction = ctx.number(v, ln, fld + "slidingFriction", nonneg=True)
    if "cullingThresh" in props:
        v, ln = props["cullingThresh"]
        c.culling = ctx.number(v, ln, fld + "cullingThresh", nonneg=True)
    # GrxUI writes it capitalised
    for key in ("restitution", "Restitution"):
        if key in props:
            v, ln = props[key]
            c.restitution = ctx.number(v, ln, fld + key, nonneg=True)
            if c.restitution > 1:
                raise ctx.err(ln, fld + key, "must be between 0 and 1")
    handled = {"objectName1", "objectName2", "jointName1", "jointName2", "staticFriction",
               "slidingFriction", "cullingThresh", "restitution", "Restitution"}
    for k, (v, ln) in props.items():
        if k in handled:
            continue
        if k in ("springConstant", "damperConstant", "springDamperModel", "sprintDamperModel"):
            if k.endswith("Model") and ctx.boolean(v, ln, fld + k) is False:
                continue
            if not k.endswith("Model") and v.replace(",", " ").split() in ([], ["0"] * 6,
                                                                          ["0"] * 3):
                continue
            p.warn(ln, "collision pair %s: %s ignored (contacts are constraints, no "
                       "spring-damper model)" % (name, k))
        else:
            p.warn(ln, "collision pair %s: property %s ignored" % (name, k))
    p.collisions.append(c)


# ---------------------------------------------------------------------------------------------
# cross-checks
# ---------------------------------------------------------------------------------------------



def _check(p, ctx):
    if not p.models:
        raise ctx.err(None, "<model>", "the project has no model")
    if not MIN_TIME_STEP <= p.time_step <= MAX_TIME_STEP:
        raise ctx.err(p.at("time_step"), "timeStep",
                      "must be between %g and %g s, got %r"
                      % (MIN_TIME_STEP, MAX_TIME_STEP, p.time_step))
    names = set()
    for m in p.models:
        if m.name in names:
            raise ctx.err(m.line, "model name", "%r given twice" % m.name)
        names.add(m.name)
    for c in p.collisions:
        for k, v in (("object1", c.object1), ("object2", c.object2)):
            if v not in names:
                raise ctx.err(c.at(k), "collision %s" % k, "no model named %r" % v)
    cnames = set()
    for c in p.controllers:
        if c.name in cnames:
            raise ctx.err(c.at("name"), "controller name", "%r given twice" % c.name)
        cnames.add(c.name)
        if c.character and c.character not in names:
            raise ctx.err(c.at("character"), "controller character",
                          "no model named %r" % c.character)
        if c.period is not None and not _multiple(c.period, p.time_step):
            raise ctx.err(c.at("period"), "controller period", "%g s is not a whole multiple "
                          "of the time step %g s" % (c.period, p.time_step))
    if p.log_period and not _multiple(p.log_period, p.time_step):
        raise ctx.err(p.at("log_period", "log"), "<log> period",
                      "%g s is not a whole multiple of the time step %g s"
                      % (p.log_period, p.time_step))
    if p.end_time < p.time_step:
        raise ctx.err(p.at("end_time"), "endTime", "shorter than one time step")


def _multiple(period, dt):
    return period_steps(period, dt) > 0
