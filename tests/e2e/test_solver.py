"""End-to-end tests of the engine and solver settings (docs/servers.md, "Engines and solver
settings") through every door, each shown to take effect by a closed form:

- a pendulum with rotor inertia (a 1 kg link, com 0.5 m below a fixed pivot, I about the com
  0.01, rotorInertia 0.01 x gearRatio 5^2 = 0.25): the joint-space engine puts the rotor on
  the joint's diagonal (OpenHRP's rule), I = 0.26 + 0.25 = 0.51 kg m^2, the ODE engine (rotor
  inertia option off) does not, I = 0.26; released at 0.05 rad it swings as
  q0 cos(sqrt(m g l / I) t) (small angle: the period's amplitude term, q0^2 / 16 = 1.6e-4,
  moves q by under 2e-5 rad in the times read; tolerance 2e-4 rad, the engines differ by
  0.03 rad at 0.5 s) - on the local, server and scheduler back ends of Simulation, a project
  run by the scheduler and in process (hrpsim run --local), and hrpsim-dynamics started with
  --engine ode (the default is the joint-space engine: the default runs give its bits);
- a 0.1 m box put 3 mm into the floor: with the default surface layer (0) ERP pushes it out
  to rest at 0.05 m; with the ODE engine's surface_layer 0.005 m contacts leave depths up to
  5 mm uncorrected, so it stays at 0.047 m - on the three back ends, and as the default of
  hrpsim-dynamics started with --engine ode --surface-layer 0.005;
- a torque-mode arm falling for 0.3 s: the default stepper (auto) gives dWorldStep's bits
  (a robot alone is a small island), and QuickStep (stepper quick) approaches them as its
  iterations grow (1, 10, 100: 1e-2, 5e-4, 1e-8 rad apart) - on the three back ends;
- refusals, with the core's message, nothing changed: an unknown engine or setting, a setting
  the engine does not have, a value out of range (Simulation on every back end, a project at
  its file:line, hrpsim-dynamics at start); the joint-space engine with the ODE engine's
  rotor-inertia option, at the first step / start on every back end; setSolver after
  initSimulation / start (the world keeps its engine);
- closed loops and joint limits run on both engines on every back end, and a joint-space
  project with a closed loop runs;
- the joint-space engine's contacts: the box put 3 mm into the floor rests on it (within
  the engine's allowed penetration, 0.1 mm) with the same bits on every back end, and a
  project with a contact pair runs;
- the Python list of settings and docs/servers.md's table agree with the core's.
"""

import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import project as P
from hrpsim import solver as S
from hrpsim.errors import BadArgument, CallOrderError, SchedulerRefused

from conftest import dynamics_exe, own_dynamics_server  # noqa: I100

REPO = Path(__file__).resolve().parents[2]
FLOOR = REPO / "samples" / "models" / "floor" / "floor.wrl"

PENDULUM_WRL = """#VRML V2.0 utf8
PROTO Joint [ exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0
  exposedField MFNode children [ ] exposedField SFString jointType "" exposedField SFInt32
  jointId -1 exposedField SFVec3f jointAxis 0 0 1 exposedField SFFloat rotorInertia 0
  exposedField SFFloat gearRatio 1 ]
{ Transform { translation IS translation rotation IS rotation children IS children } }
PROTO Segment [ exposedField SFVec3f centerOfMass 0 0 0 exposedField SFFloat mass 0
  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ] exposedField MFNode children [ ] ]
{ Group { children IS children } }
PROTO Humanoid [ exposedField SFString name "" exposedField MFNode humanoidBody [ ]
  exposedField MFNode joints [ ] exposedField MFNode segments [ ]
  exposedField SFString version "1.1" exposedField MFString info [ ] ]
{ Group { children IS humanoidBody } }
DEF PEND Humanoid { name "pendulum" humanoidBody [
  DEF BASE Joint { jointType "fixed" translation 0 0 2 children [
    DEF PIVOT Joint { jointType "rotate" jointId 0 jointAxis 0 1 0 rotorInertia 0.01
      gearRatio 5 children [
        Segment { mass 1 centerOfMass 0 0 -0.5
          momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.001] } ] } ] } ]
  joints [ USE BASE USE PIVOT ] }
"""

BOX_WRL = """#VRML V2.0 utf8
PROTO Joint [ exposedField SFVec3f translation 0 0 0 exposedField SFRotation rotation 0 0 1 0
  exposedField MFNode children [ ] exposedField SFString jointType "" exposedField SFInt32
  jointId -1 exposedField SFVec3f jointAxis 0 0 1 ]
{ Transform { translation IS translation rotation IS rotation children IS children } }
PROTO Segment [ exposedField SFVec3f centerOfMass 0 0 0 exposedField SFFloat mass 0
  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ] exposedField MFNode children [ ] ]
{ Group { children IS children } }
PROTO Humanoid [ exposedField SFString name "" exposedField MFNode humanoidBody [ ]
  exposedField MFNode joints [ ] exposedField MFNode segments [ ]
  exposedField SFString version "1.1" exposedField MFString info [ ] ]
{ Group { children IS humanoidBody } }
DEF BOX Humanoid { name "box" humanoidBody [
  DEF BOX_LINK Joint { jointType "free" children [
    Segment { mass 1.5 momentsOfInertia [0.0025 0 0 0 0.0025 0 0 0 0.0025]
      children Shape { geometry Box { size 0.1 0.1 0.1 } } } ] } ]
  joints [ USE BOX_LINK ] }
"""

Q0 = 0.05
MGL = 1.0 * 9.8 * 0.5
I_ODE = 0.01 + 1.0 * 0.5 ** 2          # about the pivot
I_JS = I_ODE + 0.01 * 5 ** 2           # + rotorInertia x gearRatio^2 on the joint's diagonal
TIMES = (0.25, 0.5, 0.75, 1.0)
TOL_Q = 2e-4


def swing(inertia):
    """The small-angle closed form at TIMES."""
    w = math.sqrt(MGL / inertia)
    return [Q0 * math.cos(w * t) for t in TIMES]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("solver")
    (d / "pendulum.wrl").write_text(PENDULUM_WRL)
    (d / "box.wrl").write_text(BOX_WRL)
    return d


@pytest.fixture(scope="module")
def client(servers):
    for name in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(name):
            pytest.fail("%s was not started" % name, pytrace=False)
    return servers.client


def make(backend, client, **kw):
    if backend == "local":
        return hrpsim.Simulation(backend="local", dt=0.001, **kw)
    return hrpsim.Simulation(client, backend=backend, dt=0.001, **kw)


def pendulum_run(sim, models):
    """The pendulum released at Q0 in torque mode: its angle at TIMES."""
    sim.add_model("pend", models / "pendulum.wrl")
    sim.set_joint_mode("pend", "torque")
    sim.set_joint_values("pend", [Q0])
    out, done = [], 0
    for t in TIMES:
        n = int(round(t / 0.001)) - done
        sim.step(n)
        done += n
        out.append(float(sim.q("pend")[0]))
    return out


def refusal(backend):
    """What a refused setting raises: BadArgument, or the Scheduler's SchedulerRefused (both
    ValueErrors), as for every other refused request (hrpsim/errors.py)."""
    return SchedulerRefused if backend == "scheduler" else BadArgument


def assert_swing(q, inertia):
    assert q == pytest.approx(swing(inertia), abs=TOL_Q)


BACKENDS = ["local", "server", "scheduler"]


# ---------------------------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_the_engine_reaches_the_world_on_every_back_end(backend, client, models):
    with make(backend, client) as sim:                      # the default: joint space, armature
        default = pendulum_run(sim, models)
    with make(backend, client, engine="ode") as sim:        # ODE by name, no armature
        ode = pendulum_run(sim, models)
    with make(backend, client, engine="joint_space") as sim:
        js = pendulum_run(sim, models)
    assert default == js                                     # the same world, bit for bit
    assert_swing(ode, I_ODE)
    assert_swing(js, I_JS)
    assert abs(ode[1] - js[1]) > 0.02                        # really different swings


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_solver_before_the_first_step_and_after_a_reset(backend, client, models):
    with make(backend, client, engine="joint_space") as sim:
        sim.set_solver("ode")
        assert_swing(pendulum_run(sim, models), I_ODE)
        with pytest.raises(CallOrderError):
            sim.set_solver("joint_space")
        sim.reset()
        sim.set_solver("joint_space")                        # the same pendulum, released again
        sim.step(500)
        assert float(sim.q("pend")[0]) == pytest.approx(swing(I_JS)[1], abs=TOL_Q)


# ---------------------------------------------------------------------------------------------
# an ODE setting: the surface layer
# ---------------------------------------------------------------------------------------------

def resting_box(sim, models):
    """A 0.1 m box put 3 mm into the floor (whose top is at z = 0): its height after 1 s."""
    sim.add_model("floor", FLOOR)
    sim.add_model("box", models / "box.wrl")
    sim.set_root_pose("box", (0.0, 0.0, 0.047))
    sim.add_collision_pair("floor", "box", friction=0.5)
    sim.step(1000)
    return float(sim.link_poses("box")[0][0][2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_surface_layer_leaves_a_box_in_the_floor(backend, client, models):
    with make(backend, client, engine="ode") as sim:
        flush = resting_box(sim, models)
    with make(backend, client, engine="ode",
              solver={"surface_layer": 0.005, "stepper": "world"}) as sim:
        sunk = resting_box(sim, models)
    # no layer: ERP pushes the box out to rest on the floor (within a step's sink under
    # gravity, g dt^2 / erp = 5e-5 m); a 5 mm layer leaves depths up to it uncorrected, and the
    # contact still keeps the box from sinking further: it stays 3 mm deep
    assert flush == pytest.approx(0.05, abs=2e-5)
    assert sunk == pytest.approx(0.047, abs=2e-5)


# ---------------------------------------------------------------------------------------------
# the ODE stepper and its iterations
# ---------------------------------------------------------------------------------------------

ARM6 = REPO / "samples" / "models" / "arm6" / "arm6.wrl"


def falling_arm(sim):
    """arm6 in torque mode, every joint at 0.5 rad, falling under gravity for 0.3 s: q."""
    sim.add_model("arm", ARM6)
    sim.set_joint_mode("arm", "torque")
    sim.set_joint_values("arm", [0.5] * len(sim.joint_names("arm")))
    sim.step(300)
    return sim.q("arm").copy()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_stepper_and_its_iterations_reach_the_solver(backend, client):
    runs = {}
    for key, solver in (("default", None), ("world", {"stepper": "world"}),
                        (1, {"stepper": "quick", "iterations": 1}),
                        (10, {"stepper": "quick", "iterations": 10}),
                        (100, {"stepper": "quick", "iterations": 100})):
        with make(backend, client, engine="ode", solver=solver) as sim:
            runs[key] = falling_arm(sim)
    # the default (auto) runs a robot alone on dWorldStep: the same bits as stepper world
    assert np.array_equal(runs["default"], runs["world"])
    # QuickStep converges on dWorldStep's exact answer as its iterations grow (measured: 1e-2
    # rad apart after 1 iteration, 5e-4 after 10, 1e-8 after 100)
    apart = [float(np.abs(runs[n] - runs["world"]).max()) for n in (1, 10, 100)]
    assert apart[0] > 5e-3
    assert apart[0] > 10 * apart[1] > 1000 * apart[2]
    assert apart[2] < 1e-6


# ---------------------------------------------------------------------------------------------
# refusals
# ---------------------------------------------------------------------------------------------

BAD = [
    (dict(engine="mujoco"), "engine 'mujoco': not an engine"),
    (dict(engine="ode", solver={"iteration": 30}), "'iteration' is not a solver setting"),
    (dict(engine="joint_space", solver={"stepper": "quick"}),
     "solver setting stepper is the ode engine's; the joint_space engine has none"),
    (dict(solver={"stepper": "quick"}),                     # the default engine: joint space
     "solver setting stepper is the ode engine's; the joint_space engine has none"),
    (dict(engine="ode", solver={"iterations": 0}), r"iterations: 0 is out of range \[1, 100000\]"),
    (dict(engine="ode", solver={"contact_erp": 1.5}), r"contact_erp: 1.5 is out of range \[0, 1\]"),
    (dict(engine="ode", solver={"stepper": "fast"}), "'fast' is not auto, world or quick"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kw, says", BAD)
def test_bad_settings_are_refused_with_the_cores_message(backend, client, models, kw, says):
    with make(backend, client, **kw) as sim:
        sim.add_model("pend", models / "pendulum.wrl")
        with pytest.raises(refusal(backend), match=says):
            sim.step(1)


def test_bad_setting_forms_are_refused_in_python():
    with pytest.raises(BadArgument, match="engine must be a name"):
        hrpsim.Simulation(backend="local", engine=1)
    with pytest.raises(BadArgument, match="solver must be a mapping"):
        hrpsim.Simulation(backend="local", solver=["stepper", "quick"])
    with pytest.raises(BadArgument, match="give a number or a name"):
        hrpsim.Simulation(backend="local", solver={"iterations": None})


FOUR_BAR = REPO / "samples" / "models" / "closed_link" / "four_bar.wrl"


def with_a_loop(sim, models):
    sim.add_model("bar", FOUR_BAR)                           # the model's own extra joint


def with_joint_limits(sim, models):
    sim.add_model("pend", models / "pendulum.wrl")
    sim.set_joint_options(joint_limits=True)


def with_the_rotor_option(sim, models):
    sim.add_model("pend", models / "pendulum.wrl")
    sim.set_joint_options(joint_limits=False, rotor_inertia=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_joint_space_engine_refuses_the_ode_rotor_option_on_every_back_end(
        backend, client, models):
    for engine in ("joint_space", None):                     # by name and as the default
        with make(backend, client, engine=engine) as sim:
            with_the_rotor_option(sim, models)
            with pytest.raises(refusal(backend), match="the rotorInertia option .* is the ODE "
                                                       "engine's"):
                sim.step(1)
    with make(backend, client, engine="ode") as sim:        # the ODE engine runs it
        with_the_rotor_option(sim, models)
        sim.step(1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("world", [with_a_loop, with_joint_limits])
def test_both_engines_run_loops_and_joint_limits_on_every_back_end(backend, client, models,
                                                                   world):
    for engine in ("joint_space", "ode"):
        with make(backend, client, engine=engine) as sim:
            world(sim, models)
            sim.step(10)


def test_the_joint_space_engine_rests_a_box_on_the_floor_alike_on_every_back_end(client,
                                                                                  models):
    heights = []
    for backend in BACKENDS:
        with make(backend, client, engine="joint_space") as sim:
            heights.append(resting_box(sim, models))
    # pushed out of the floor to within the allowed penetration (0.1 mm), the same bits on
    # every back end (one core)
    assert heights[0] == pytest.approx(0.05, abs=1.5e-4)
    assert heights == [heights[0]] * len(heights)


def test_set_solver_after_init_simulation_is_refused_and_the_world_keeps_its_engine(
        client, models):
    from hrpsim import OpenHRP, _orb
    from hrpsim._idl import hrpsim as H
    CORBA = _orb.corba()[0]
    DS = OpenHRP.DynamicsSimulator
    factory = client.resolve("DynamicsSimulatorFactory", OpenHRP.DynamicsSimulatorFactory)
    ds = factory.create()._narrow(H.DynamicsSimulator)
    try:
        ds.registerCharacter("pend", client.load_body(str(models / "pendulum.wrl")))
        ds.init(0.001, DS.EULER, DS.DISABLE_SENSOR)
        ds.setGVector([0.0, 0.0, 9.8])
        ds.setCharacterAllJointModes("pend", DS.TORQUE_MODE)
        ds.setCharacterAllLinkData("pend", DS.JOINT_VALUE, [Q0])
        ds.calcWorldForwardKinematics()
        with pytest.raises(CORBA.BAD_PARAM):
            ds.setSolver("ode", [H.SolverSetting("iterations", "0")])
        assert "out of range" in ds.lastError()
        ds.setSolver("joint_space", [])
        ds.initSimulation()
        with pytest.raises(CORBA.BAD_INV_ORDER):
            ds.setSolver("ode", [])
        assert "before the simulation starts" in ds.lastError()
        for _ in range(500):
            ds.stepSimulation()
        q = ds.getCharacterLinkData("pend", "PIVOT", DS.JOINT_VALUE)[0]
        assert q == pytest.approx(swing(I_JS)[1], abs=TOL_Q)   # still the joint-space engine
    finally:
        ds.destroy()


def test_the_scheduler_refuses_set_solver_after_start(client, models):
    with make("scheduler", client, engine="joint_space") as sim:
        sim.add_model("pend", models / "pendulum.wrl")
        sim.set_joint_values("pend", [Q0])
        sim.step(1)
        from hrpsim import SchedulerIDL as H
        s = client.resolve("Scheduler", H.Scheduler)
        with pytest.raises(H.SchedulerError, match="cannot change the configuration while"):
            s.setSolver("ode", [])
        sim.step(499)                                        # still the joint-space engine
        assert float(sim.q("pend")[0]) == pytest.approx(swing(I_JS)[1], abs=TOL_Q)


# ---------------------------------------------------------------------------------------------
# projects
# ---------------------------------------------------------------------------------------------

def pendulum_project(tmp_path, models, attrs):
    path = tmp_path / "pend.xml"
    path.write_text('<hrpsim-project version="1">\n'
                    '  <simulation timeStep="0.001" endTime="1"%s/>\n'
                    '  <model name="pend" url="%s">\n'
                    '    <joints mode="torque"/><joint name="PIVOT" value="%r"/>\n'
                    '  </model>\n'
                    '</hrpsim-project>\n' % (attrs, models / "pendulum.wrl", Q0))
    return path


def test_project_attributes_parse(tmp_path, models):
    p = P.load_project(str(pendulum_project(
        tmp_path, models, ' engine="ode" stepper="quick" iterations="30" surfaceLayer="0.001"'
                          ' maxContactsPerPair="8"')))
    assert p.engine == "ode"
    assert p.solver == {"stepper": "quick", "iterations": "30", "surface_layer": "0.001",
                        "max_contacts_per_pair": "8"}
    assert p.joint_limits is True                             # hrpsim projects' default
    p = P.load_project(str(pendulum_project(tmp_path, models, ' engine="joint_space"')))
    assert p.engine == "joint_space" and p.joint_limits is True  # both engines have them


@pytest.mark.parametrize("attrs, says", [
    (' engine="mujoco"', r"<simulation> engine.*not an engine"),
    (' engine="ode" iterations="0"', r"<simulation> iterations.*out of range"),
    (' engine="joint_space" stepper="quick"', r"<simulation> stepper.*the ode engine's"),
    (' stepper="quick"', r"<simulation> stepper.*the ode engine's"),   # the default engine
    (' engine="ode" maxContactsPerPair="many"',
     r"<simulation> maxContactsPerPair.*not an integer"),
    (' solver="x"', r"unknown attribute"),
])
def test_project_errors_name_the_line(tmp_path, models, attrs, says):
    path = pendulum_project(tmp_path, models, attrs)
    with pytest.raises(P.ProjectError, match=says) as e:
        P.load_project(str(path))
    assert "%s:2" % path in str(e.value)


@pytest.mark.parametrize("where", ["scheduler", "local"])
def test_a_project_runs_on_the_engine_it_names(tmp_path, models, servers, where):
    from conftest import describe, run_cli
    for engine, inertia in (("ode", I_ODE), ("joint_space", I_JS), ("", I_JS)):  # "": default
        path = pendulum_project(tmp_path, models, ' engine="%s"' % engine if engine else "")
        out = tmp_path / ("out-" + engine)
        how = ["--local"] if where == "local" else ["--state-dir", servers.state_dir]
        proc = run_cli("run", *how, "--out", out, "--quiet", "--no-plots", path)
        assert proc.returncode == 0, describe(proc)
        log = np.load(out / "log.npz")
        t, q = log["time"], log["pend.q"][:, 0]
        at = [q[int(np.argmin(np.abs(t - x)))] for x in TIMES]
        assert at == pytest.approx(swing(inertia), abs=TOL_Q)


@pytest.mark.parametrize("where", ["scheduler", "local"])
def test_a_joint_space_project_with_a_loop_and_with_contacts_runs(tmp_path, models, servers,
                                                                  where):
    from conftest import describe, run_cli
    how = ["--local"] if where == "local" else ["--state-dir", servers.state_dir]
    path = tmp_path / "box.xml"
    path.write_text('<hrpsim-project version="1">\n'
                    '  <simulation endTime="0.1" engine="joint_space"/>\n'
                    '  <model name="floor" url="%s"/>\n'
                    '  <model name="box" url="%s"/>\n'
                    '  <collision object1="floor" object2="box"/>\n'
                    '</hrpsim-project>\n' % (FLOOR, models / "box.wrl"))
    proc = run_cli("run", *how, "--out", tmp_path / "out", "--quiet", "--no-plots", path)
    assert proc.returncode == 0, describe(proc)
    path = tmp_path / "bar.xml"
    path.write_text('<hrpsim-project version="1">\n'
                    '  <simulation endTime="0.1" engine="joint_space"/>\n'
                    '  <model name="bar" url="%s"/>\n'
                    '</hrpsim-project>\n' % FOUR_BAR)
    proc = run_cli("run", *how, "--out", tmp_path / "out2", "--quiet", "--no-plots", path)
    assert proc.returncode == 0, describe(proc)


# ---------------------------------------------------------------------------------------------
# hrpsim-dynamics' options
# ---------------------------------------------------------------------------------------------

def test_hrpsim_dynamics_help_lists_every_setting_with_its_default(servers):
    proc = subprocess.run([str(dynamics_exe(servers)), "--help"], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 0
    assert "--engine E" in proc.stdout
    assert re.search(r"--engine E\s+joint_space or ode \(default joint_space", proc.stdout)
    for name in S.SETTINGS:
        assert "--" + name.replace("_", "-") + " V" in proc.stdout
    assert re.search(r"--iterations V\s+1 to 100000 \(default 50\)", proc.stdout)
    assert re.search(r"--stepper V\s+auto, world, quick \(default auto\)", proc.stdout)


@pytest.mark.parametrize("args, says", [
    (["--engine", "mujoco"], "engine 'mujoco': not an engine"),
    (["--engine", "ode", "--iterations", "0"], "iterations: 0 is out of range"),
    (["--engine", "joint_space", "--stepper", "quick"], "stepper is the ode engine's"),
    (["--stepper", "quick"], "stepper is the ode engine's"),     # on the default engine
    (["--stepper"], "--stepper needs a value"),
])
def test_hrpsim_dynamics_refuses_bad_options_at_start(servers, args, says):
    proc = subprocess.run([str(dynamics_exe(servers)), "-ORBInitRef",
                           "NameService=" + servers.corbaloc] + args,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert says in proc.stderr


def test_hrpsim_dynamics_engine_option_is_every_worlds_default(servers, models, tmp_path):
    """--engine ode (how OpenHRP's own clients, which know nothing of setSolver, get the ODE
    engine): Simulations from its factory swing as the ODE engine says, unless a client names
    the engine."""
    client = servers.client
    with own_dynamics_server(servers, tmp_path, 97, "--engine", "ode") as factory:
        with hrpsim.Simulation(client, backend="server", dt=0.001, factory=factory) as sim:
            assert_swing(pendulum_run(sim, models), I_ODE)
        with hrpsim.Simulation(client, backend="server", dt=0.001, engine="joint_space",
                               factory=factory) as sim:
            assert_swing(pendulum_run(sim, models), I_JS)


def test_hrpsim_dynamics_solver_options_are_every_worlds_defaults(servers, models, tmp_path):
    """--engine ode --stepper world --surface-layer 0.005: the box put 3 mm into the floor stays
    there, as with Simulation(solver=...) on the ordinary server; a client's own setting wins."""
    client = servers.client
    with own_dynamics_server(servers, tmp_path, 98, "--engine", "ode", "--stepper", "world",
                             "--surface-layer", "0.005") as factory:
        with hrpsim.Simulation(client, backend="server", dt=0.001, factory=factory) as sim:
            assert resting_box(sim, models) == pytest.approx(0.047, abs=2e-5)
        with hrpsim.Simulation(client, backend="server", dt=0.001, factory=factory,
                               solver={"surface_layer": 0}) as sim:
            assert resting_box(sim, models) == pytest.approx(0.05, abs=2e-5)


# ---------------------------------------------------------------------------------------------
# one list of settings
# ---------------------------------------------------------------------------------------------

def core_settings():
    from hrpsim.local import core_module
    ffi, lib = core_module().ffi, core_module().lib
    err = ffi.new("hsError *")
    sim = lib.hs_makeSim(err)
    try:
        out = {}
        for name in S.SETTINGS:
            buf = ffi.new("char[64]")
            assert lib.hs_solverSetting(sim, name.encode(), buf, 64, err) == 0, name
            out[name] = ffi.string(buf).decode()
        assert lib.hs_solverSetting(sim, b"nonsense", ffi.new("char[64]"), 64, err) < 0
        return out, ffi.string(lib.hs_engine(sim)).decode()
    finally:
        lib.hs_freeSim(sim)


def test_the_docs_table_and_the_python_list_are_the_cores():
    values, engine = core_settings()
    assert engine == "joint_space" == S.default_engine()   # the default since issue 27
    text = (REPO / "docs" / "servers.md").read_text()
    text = text[text.index("**Engines and solver settings.**"):]
    text = text[:text.index("\n**", 1)]                  # to the next paragraph's title
    rows = dict(re.findall(r"^\| `(\w+)` \| `?([^`|]+?)`? \|", text, re.M))
    assert rows.pop("engine") == engine
    assert list(rows) == list(S.SETTINGS)
    for name, doc in rows.items():
        core = values[name]
        assert doc == core or float(doc) == float(core), name
