"""The one configuration (python/hrpsim/configuration.py) that projects and hrpsim.Simulation
share, checked through the Scheduler calls it makes (a recording stand-in for the Scheduler,
no servers; the real Scheduler runs in test_project*.py, test_run*.py and test_simulation.py):

- a project and the Simulation calls that say the same thing give the same Scheduler calls
  (models, joint modes, every joint value, the root pose, the contact pair, joint options),
  in the same order, with the same numbers;
- a call the Scheduler refuses becomes ProjectError at the line and field of the project
  that asked for it (the joint's own element, the <collision> element);
- a project's Configuration given to a local Simulation (`hrpsim run --local`) is applied by
  the local back end as the Scheduler applies it: the joint values and root pose the file
  says, and a value the core refuses is a ProjectError at the line that holds it;
- the Simulation's calls before the start are records of its one Configuration (joint modes
  before the initial data, a jointId array as one record), which the back end applies;
- Python's period rule is the core's (hrpsim.limits.period_steps calls hs_periodSteps).
"""

from pathlib import Path

import pytest

import hrpsim
import hrpsim._idl.hrpsim as H
from hrpsim import configuration
from hrpsim.project import ProjectError, load_project

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"

PROJECT = """<?xml version="1.0" encoding="UTF-8"?>
<hrpsim-project version="1">
  <simulation timeStep="0.002" endTime="1" sensors="false" gravity="0 0 9.8"/>
  <model name="floor" url="{models}/floor/floor.wrl"/>
  <model name="robot" url="{models}/humanoid/humanoid.wrl">
    <rootPose translation="0.1 0.2 0.9"/>
    <joints mode="torque"/>
    <joint name="RLEG_KNEE" value="0.4"/>
    <joint name="LLEG_KNEE" value="0.3"/>
  </model>
  <collision object1="floor" object2="robot" staticFriction="0.7" slipFriction="0.6"/>
</hrpsim-project>
"""
KNEE_LINE, COLLISION_LINE = 8, 11


class Recorder:
    """A stand-in Scheduler: records every call (name, arguments); ``refuse`` names a call
    (and optionally its third argument) to refuse with a SchedulerError."""

    def __init__(self, refuse=None):
        self.calls, self.refuse = [], refuse

    def __getattr__(self, name):
        def call(*args):
            if self.refuse and self.refuse[0] == name and (
                    len(self.refuse) == 1 or (len(args) > 1 and args[1] == self.refuse[1])):
                raise H.SchedulerError("refused %s" % name)
            self.calls.append((name, _plain(args)))
        return call


def _plain(value):
    """Call arguments as comparable plain data (IDL structs by their fields, enums by name)."""
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if hasattr(value, "_n"):
        return value._n
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return tuple(sorted((k, _plain(v)) for k, v in vars(value).items()))
    return value


def _facts(sim, names):
    """ModelFacts of a local Simulation's models (as `hrpsim run --local` makes them)."""
    out = {}
    for name in names:
        body = sim.body(name)
        out[name] = configuration.ModelFacts(list(sim.link_names(name)),
                                             list(body.one_dof_joints),
                                             list(body.root_pose[:3]), list(body.root_pose[3:]))
    return out


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.xml"
    path.write_text(PROJECT.format(models=MODELS))
    return load_project(path)


def _same_scene_by_simulation():
    sim = hrpsim.Simulation(backend="local", dt=0.002, sensors=False)
    sim.add_model("floor", MODELS / "floor" / "floor.wrl")
    sim.add_model("robot", MODELS / "humanoid" / "humanoid.wrl")
    return sim


def test_project_and_simulation_give_the_same_scheduler_calls(project):
    sim = _same_scene_by_simulation()
    facts = _facts(sim, ["floor", "robot"])
    sim.set_joint_mode("robot", "torque")
    sim.set_link_data("robot", "RLEG_KNEE", "JOINT_VALUE", [0.4])
    sim.set_link_data("robot", "LLEG_KNEE", "JOINT_VALUE", [0.3])
    R = list(sim.body("robot").root_pose[3:])
    sim.set_link_data("robot", sim.link_names("robot")[0], "ABS_TRANSFORM", [0.1, 0.2, 0.9] + R)
    sim.add_collision_pair("floor", "robot", friction=0.7, slip_friction=0.6)
    sim.set_joint_options(True, False, True)   # a project's defaults

    by_project, by_sim = Recorder(), Recorder()
    configuration.to_scheduler(by_project, configuration.from_project(project, facts))
    configuration.to_scheduler(by_sim, sim._configuration())
    shared = ("setTimeStep", "setIntegrateMethod", "setSensorOption", "setGVector",
              "setAllJointModes", "setLinkData", "addCollisionPair", "setJointOptions")
    a = [c for c in by_project.calls if c[0] in shared]
    b = [c for c in by_sim.calls if c[0] in shared]
    assert a == b
    # and they are what the file says
    links = [c[1] for c in a if c[0] == "setLinkData"]
    assert ("robot", "RLEG_KNEE", "JOINT_VALUE", (0.4,)) in links
    pose = [args for args in links if args[2] == "ABS_TRANSFORM"]
    assert len(pose) == 1 and pose[0][3][:3] == (0.1, 0.2, 0.9)
    assert [c[0] for c in by_project.calls][:2] == ["reset", "setTimeStep"]
    # the models go by the same URL the Simulation gives
    assert [c for c in by_project.calls if c[0] == "addModel"][1][1][0] == "robot"


def test_a_refusal_names_the_project_line(project):
    sim = _same_scene_by_simulation()
    facts = _facts(sim, ["floor", "robot"])
    config = configuration.from_project(project, facts)
    with pytest.raises(ProjectError) as e:
        configuration.to_scheduler(Recorder(("setLinkData", "RLEG_KNEE")), config)
    assert e.value.line == KNEE_LINE and e.value.field == "model robot RLEG_KNEE"
    assert str(e.value).endswith(":%d: model robot RLEG_KNEE: refused setLinkData" % KNEE_LINE)
    with pytest.raises(ProjectError) as e:
        configuration.to_scheduler(Recorder(("addCollisionPair",)), config)
    assert e.value.line == COLLISION_LINE and e.value.field == "collision floor/robot"


def test_a_wrong_link_name_is_found_before_any_call(project):
    project.models[1].joint_values["NO_SUCH_JOINT"] = 1.0
    project.models[1].lines["value:NO_SUCH_JOINT"] = 42
    sim = _same_scene_by_simulation()
    with pytest.raises(ProjectError) as e:
        configuration.from_project(project, _facts(sim, ["floor", "robot"]))
    assert e.value.line == 42 and "NO_SUCH_JOINT" in e.value.message


def test_a_local_simulation_applies_the_project_configuration(project):
    sim = _same_scene_by_simulation()
    config = configuration.from_project(project, _facts(sim, ["floor", "robot"]))
    sim.configure(config)
    assert sim._configuration().state is config.state   # held, not replayed
    sim.start()
    joints = sim.joint_names("robot")
    q = sim.q("robot")
    assert q[joints.index("RLEG_KNEE")] == 0.4 and q[joints.index("LLEG_KNEE")] == 0.3
    p, _ = sim.root_pose("robot")
    assert p.tolist() == [0.1, 0.2, 0.9]
    sim.close()


def test_a_core_refusal_on_the_local_back_end_names_the_project_line(project):
    """No Python check before the core: the local back end's apply meets the core's refusal
    of a joint value out of bounds and names the project's line (as to_scheduler does)."""
    sim = _same_scene_by_simulation()
    config = configuration.from_project(project, _facts(sim, ["floor", "robot"]))
    knee = next(st for st in config.state if st.link == "RLEG_KNEE")
    knee.data = [1e13]
    sim.configure(config)
    with pytest.raises(ProjectError) as e:
        sim.start()
    assert e.value.line == KNEE_LINE and e.value.field == "model robot RLEG_KNEE"
    assert "1e+13" in e.value.message
    sim.close()


def test_simulation_calls_are_records_of_its_one_configuration():
    sim = _same_scene_by_simulation()
    sim.set_joint_values("robot", [0.0] * 30)
    sim.set_joint_mode("robot", "high_gain")       # put before the data, as OpenHRP's calls
    sim.set_gravity((0, 0, 1.62))
    config = sim._configuration()
    assert [st.kind for st in config.state] == ["mode", "joints"]
    assert config.state[1].links == sim.joint_names("robot")
    assert config.gravity == [0.0, 0.0, 1.62] and config.time_step == 0.002
    calls = Recorder()
    configuration.to_scheduler(calls, config)   # a jointId array goes link by link
    links = [c[1][1] for c in calls.calls if c[0] == "setLinkData"]
    assert links == [n for n in sim.joint_names("robot") if n]
    sim.close()


def test_the_python_period_rule_is_the_cores():
    """hrpsim.limits.period_steps (projects, `hrpsim run --local`) answers as hs_periodSteps:
    whole multiples within 1e-9 of the period, relative (so a 2 s period at 1 ms counts, and
    one 3e-9 s off does not), and 0 for what is not one."""
    from hrpsim import limits
    from hrpsim.local import core_module
    lib = core_module().lib
    cases = [(0.001, 0.001), (0.005, 0.001), (0.0049, 0.001), (2.0, 0.001),
             (2.0 + 3e-9, 0.001), (2.0 + 1e-9, 0.001), (0.1, 1e-6), (0.0005, 0.001),
             (1e-5, 3e-6), (0.3, 0.1), (7.0, 0.7)]
    for period, dt in cases:
        assert limits.period_steps(period, dt) == lib.hs_periodSteps(period, dt), (period, dt)
    assert limits.period_steps(2.0, 0.001) == 2000
    assert limits.period_steps(2.0 + 3e-9, 0.001) == 0
