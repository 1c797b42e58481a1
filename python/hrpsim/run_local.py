"""`hrpsim run --local PROJECT`: run a project inside this Python process (no servers).

The project (hrpsim's format or GrxUI's, project.py) configures an
``hrpsim.Simulation(backend="local")`` through the same Configuration that configures the
Scheduler (configuration.py): the same models, initial states, modes, pairs, loops, joint
options and sensor noise. Its
controllers must be Python classes (``hrpsim.controller.Controller`` subclasses) named by
``python="FILE.py:NAME"`` on ``<controller>`` (FILE relative to the project's directory; NAME
a Controller subclass or a function returning a Controller): each is made with no arguments,
given a DynamicsSimulator look-alike over the local simulation (``LocalDynamics``: the
calls controllers make, with OpenHRP's enums), its character and period, ``initialize()``d
and ``start()``ed, and ticked in the scheduler's order: for step k,
``input()`` and ``control()`` of every controller whose period divides k, the step,
``output()``; ``stop()`` at the end. A controller given only as an external ``command`` is an
OpenHRP Controller in another process: it needs the servers, and the run refuses it
(``RunError`` saying so).

Results: ``OUT/log.npz``, the scheduler run's log (results.py: the same series, made by the
same ``LogCollector`` from records ``_record`` reads from the core as the Scheduler's
``record`` does: the state at time 0, then one record per log period) and
``OUT/summary.json``.
"""

import importlib.util
import json
import math
import time
from pathlib import Path
from types import SimpleNamespace as _Rec

import numpy as np

from .limits import period_steps
from .project import load_project
from .results import LogCollector
from .errors import ModelError
from .run import RunError, default_out_dir, model_run_error

__all__ = ["run_local", "LocalDynamics"]


class _SensorState:
    """OpenHRP's SensorState as plain lists (what getCharacterSensorState returns)."""

    def __init__(self, s):
        self.q, self.dq, self.u = list(s["q"]), list(s["dq"]), list(s["u"])
        self.force = [list(f) for f in s["force"]]
        self.rateGyro = [list(g) for g in s["gyro"]]
        self.accel = [list(a) for a in s["accel"]]
        self.range = [list(r) for r in s["range"]]


def _name(enum):
    """An OpenHRP enum item's name ("JOINT_VALUE"), or the string itself."""
    return enum if isinstance(enum, str) else getattr(enum, "_n", str(enum))


class LocalDynamics:
    """The DynamicsSimulator calls a controller makes, over a local Simulation."""

    def __init__(self, sim):
        self.sim = sim

    def getCharacterSensorState(self, character):
        return _SensorState(self.sim.sensors(character))

    def getCharacterLinkData(self, character, link, type_):
        return list(self.sim.link_data(character, link, _name(type_)))

    def getCharacterAllLinkData(self, character, type_):
        return list(self.sim._all(character, _name(type_)))

    def setCharacterLinkData(self, character, link, type_, data):
        self.sim.set_link_data(character, link, _name(type_), data)

    def setCharacterAllLinkData(self, character, type_, data):
        self.sim._set_joints(character, _name(type_), data)

    def setCharacterAllJointModes(self, character, mode):
        high = _name(mode) == "HIGH_GAIN_MODE"
        core = self.sim.local
        core._check(core.lib.hs_setAllJointModes(core.ptr, core.index(character), int(high),
                                                 core._e()), "setCharacterAllJointModes")

    def calcWorldForwardKinematics(self):
        core = self.sim.local
        core.lib.hs_forwardKinematics(core.ptr, -1)


def _record(sim, log_sensors):
    """The Scheduler's LogRecord of the current state (scheduler.cpp ``record``, wire.cpp
    ``worldState`` / ``sensorState``) as plain objects, read from the local core."""
    core = sim.local
    lib, ffi = core.lib, core.ffi
    names = {core.index(m): m for m in sim.models}   # core index -> character
    n = ffi.new("int *")
    chars = []
    for ch, name in sorted(names.items()):
        p, R = core.p_view(ch), core.R_view(ch)
        chars.append(_Rec(characterName=name, linkPositions=[
            _Rec(p=list(p[k]), R=list(R[k].reshape(9))) for k in range(len(p))]))
    contacts = lib.hs_contacts(core.ptr, n)
    groups = lib.hs_contactGroups(core.ptr, n)
    collisions, forces = [], []
    for g in range(n[0]):
        k = groups[g]
        points = []
        for i in range(k.first, k.first + k.count):
            c = contacts[i]
            points.append(_Rec(position=list(c.p), normal=[-x for x in c.n], idepth=c.depth))
            forces += list(c.force)
        collisions.append(_Rec(pair=_Rec(charName1=names[k.ch[0]],
                                         linkName1=core.link_name(k.ch[0], k.link[0]),
                                         charName2=names[k.ch[1]],
                                         linkName2=core.link_name(k.ch[1], k.link[1])),
                               points=points))
    loops = []
    chs, f = ffi.new("int[2]"), ffi.new("double[6]")
    for i in range(lib.hs_extraJointCount(core.ptr)):
        name = ffi.string(lib.hs_extraJointName(core.ptr, i, chs)).decode()
        lib.hs_extraJointForce(core.ptr, i, f)
        loops.append(_Rec(name=name, character=names[chs[0]], force=list(f)))
    stops, tracks = [], []
    for ch, name in sorted(names.items()):
        nj = lib.hs_jointStopTorques(core.ptr, ch, ffi.NULL, 0)
        buf = ffi.new("double[]", max(nj, 1))
        lib.hs_jointStopTorques(core.ptr, ch, buf, nj)
        stops.append(list(buf)[:nj])
        nt = lib.hs_tracks(core.ptr, ch, ffi.NULL, 0)
        if nt > 0:
            links = ffi.new("int[]", nt)
            lib.hs_tracks(core.ptr, ch, links, nt)
            u = lib.hs_u(core.ptr, ch)
            tracks += [_Rec(character=name, link=core.link_name(ch, k), speed=u[k])
                       for k in links]
    sensors = []
    if log_sensors:
        for _, name in sorted(names.items()):
            s = sim.sensors(name)
            sensors.append(_Rec(q=list(s["q"]), dq=list(s["dq"]), u=list(s["u"]),
                                force=[list(x) for x in s["force"]],
                                rateGyro=[list(x) for x in s["gyro"]],
                                accel=[list(x) for x in s["accel"]],
                                range=[list(x) for x in s["range"]]))
    return _Rec(world=_Rec(time=sim.time, characterPositions=chars, collisions=collisions),
                sensors=sensors, loops=loops, tracks=tracks, jointStops=stops,
                contactForces=forces)


def _load_class(project, spec):
    path, _, cls = spec.python.rpartition(":")
    if not path or not cls:
        raise RunError("%s:%s: controller %s: python= must be FILE.py:CLASS, got %r"
                       % (project.path, spec.line, spec.name, spec.python))
    file = (Path(project.path).parent / path).resolve()
    module_spec = importlib.util.spec_from_file_location("hrpsim_local_" + file.stem, file)
    if module_spec is None or not file.exists():
        raise RunError("%s:%s: controller %s: no file %s"
                       % (project.path, spec.line, spec.name, file))
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    try:
        return getattr(module, cls)
    except AttributeError:
        raise RunError("%s:%s: controller %s: %s has no %s"
                       % (project.path, spec.line, spec.name, file, cls)) from None


def configure(project):
    """A local Simulation configured from ``project`` (not started): the project's
    Configuration (configuration.py, as the Scheduler gets it) replayed on it."""
    import hrpsim
    from . import configuration
    sim = hrpsim.Simulation(backend="local", dt=project.time_step, gravity=project.gravity,
                            method=project.method.lower(), sensors=project.sensors)
    for m in project.models:
        try:
            sim.add_model(m.name, m.url)
        except ModelError as exc:
            raise model_run_error(project, m, exc) from exc
    facts = {}
    for m in project.models:
        body = sim.body(m.name)
        facts[m.name] = configuration.ModelFacts(
            list(sim.link_names(m.name)), list(body.one_dof_joints),
            list(body.root_pose[:3]), list(body.root_pose[3:]), body.root_joint)
    configuration.to_simulation(configuration.from_project(project, facts), sim)
    return sim


def run_local(path, out_dir=None, warn=None):
    """Run the project at ``path`` in process; returns (results directory, summary dict)."""
    project = load_project(path)
    for text in project.warnings:
        if warn:
            warn(text)
    external = [c for c in project.controllers if not getattr(c, "python", None)]
    if external:
        c = external[0]
        raise RunError("%s:%s: controller %s is an external command (an OpenHRP Controller in "
                       "its own process): it needs the servers; run without --local, or give "
                       "it python=\"FILE.py:CLASS\" (an hrpsim.controller.Controller subclass)"
                       % (project.path, c.line, c.name))
    seen = len(project.warnings)
    sim = configure(project)
    for text in project.warnings[seen:]:   # found against the models (a moved URDF anchor)
        if warn:
            warn(text)
    controllers = []
    for spec in project.controllers:
        cls = _load_class(project, spec)
        period = spec.period or project.time_step
        every = period_steps(period, project.time_step)
        if every == 0:
            raise RunError("%s:%s: controller %s: period %g is not a whole number of time "
                           "steps" % (project.path, spec.line, spec.name, period))
        controllers.append((spec, cls(), every))
    out = Path(out_dir) if out_dir else default_out_dir(project)
    out.mkdir(parents=True, exist_ok=True)
    steps = int(math.ceil(project.end_time / project.time_step - 1e-9))
    log_every = max(1, int(round((project.log_period or project.time_step) / project.time_step)))
    log = LogCollector([(n, sim.joint_names(n)) for n in sim.models])
    t0 = time.perf_counter()
    with sim:
        sim.start()
        log.add([_record(sim, project.log_sensors)])  # the state at time 0, as the Scheduler
        dyn = LocalDynamics(sim)
        for spec, ctl, _ in controllers:
            ctl.setDynamicsSimulator(dyn)
            ctl.setModelName(spec.character)
            ctl.setTimeStep(spec.period or project.time_step)
            ctl.initialize()
            ctl.start()
        try:
            for k in range(steps):
                due = [ctl for _, ctl, every in controllers if k % every == 0]
                for ctl in due:
                    ctl.input()
                    ctl.control()
                sim.step()
                for ctl in due:
                    ctl.output()
                if (k + 1) % log_every == 0:
                    log.add([_record(sim, project.log_sensors)])
        finally:
            for _, ctl, _ in controllers:
                ctl.stop()
        wall = time.perf_counter() - t0
        np.savez_compressed(out / "log.npz", **log.arrays())
        summary = {"project": str(project.path), "backend": "local", "steps": sim.steps,
                   "time": sim.time, "wall_seconds": wall,
                   "controllers": [{"name": s.name, "character": s.character,
                                    "python": s.python} for s, _, _ in controllers]}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return out, summary
