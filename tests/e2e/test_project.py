"""Project files: hrpsim's XML format and OpenHRP GrxUI projects parse into one Project; every
validation error names the file, the line and the field; GrxUI items hrpsim cannot honour are
warnings; $(PROJECT_DIR) and $(CURRENT_DIR) expand to the project's directory, $(OPENHRPHOME)
to the environment variable or the OpenHRP directory a sample project sits in. The last
section runs GrxUI projects written in OpenHRP's sample layout with `hrpsim run` (servers)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hrpsim.project import ProjectError, load_project

from conftest import cli_env, describe, require_build  # noqa: I100

HUMANOID = "samples/models/humanoid/humanoid.wrl"
FLOOR = "samples/models/floor/floor.wrl"


def write(tmp_path, text, name="p.xml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def project_text(repo_root, body="", sim='timeStep="0.001" endTime="1"'):
    return """\
        <?xml version="1.0"?>
        <hrpsim-project version="1">
          <simulation %s/>
          <model name="floor" url="%s/%s"/>
          <model name="robot" url="%s/%s"/>
        %s</hrpsim-project>
        """ % (sim, repo_root, FLOOR, repo_root, HUMANOID, body)


# ---------------------------------------------------------------------------------------------
# hrpsim format
# ---------------------------------------------------------------------------------------------

def test_sample_squat_project(repo_root):
    p = load_project(repo_root / "samples/projects/humanoid_squat.xml")
    assert p.format == "hrpsim"
    assert (p.time_step, p.end_time, p.method, p.sensors) == (0.001, 5.0, "EULER", True)
    assert p.gravity == [0.0, 0.0, 9.8]
    assert [m.name for m in p.models] == ["floor", "robot"]
    robot = p.model("robot")
    assert robot.url == str(repo_root / HUMANOID)
    assert robot.all_joint_mode == "TORQUE_MODE"
    assert robot.all_joint_value == 0.0
    assert robot.joint_values["RLEG_KNEE"] == pytest.approx(0.4)
    assert robot.root_translation == pytest.approx([0, 0, 0.80804])
    assert robot.root_rotation == [0.0, 0.0, 1.0, 0.0]
    [c] = p.controllers
    assert (c.name, c.character, c.period) == ("PDController", "robot", 0.001)
    assert c.command[0] == sys.executable  # a bare python3 runs hrpsim's own Python
    assert c.command[1:] == ["../controllers/pd_controller.py", "--name", "PDController"]
    [pair] = p.collisions
    assert (pair.object1, pair.object2, pair.static_friction, pair.slip_friction) == (
        "floor", "robot", 0.5, 0.5)
    assert (p.log_period, p.log_sensors) == (0.005, True)
    assert p.plot_joints == ["RLEG_HIP_P", "RLEG_KNEE", "RLEG_ANKLE_P", "LLEG_HIP_P",
                             "LLEG_KNEE", "LLEG_ANKLE_P"]
    assert p.warnings == []


def test_sample_standing_project(repo_root):
    p = load_project(repo_root / "samples/projects/humanoid_standing.xml")
    assert p.model("robot").all_joint_mode == "HIGH_GAIN_MODE"
    assert p.controllers == []
    assert p.end_time == 3.0


def test_full_format(tmp_path, repo_root):
    body = """\
          <collision object1="robot" link1="RLEG_ANKLE_R" object2="floor" link2="root"
                     staticFriction="0.8" slipFriction="0.6" culling="0.02" restitution="0.3"/>
          <controller name="A" character="robot" period="0.005"/>
          <controller name="B"/>
          <log period="0" sensors="false"/>
          <plots enabled="false"/>
        """
    path = write(tmp_path, project_text(
        repo_root, body, sim='timeStep="0.005" endTime="2" method="runge_kutta" '
                             'sensors="off" gravity="1 0 9.8" realTime="1" '
                             'controllerTimeout="3"'))
    p = load_project(path)
    assert (p.time_step, p.end_time, p.method, p.sensors) == (0.005, 2.0, "RUNGE_KUTTA", False)
    assert (p.gravity, p.real_time, p.controller_timeout) == ([1.0, 0.0, 9.8], 1.0, 3.0)
    [c] = p.collisions
    assert (c.link1, c.link2, c.static_friction, c.slip_friction, c.culling,
            c.restitution) == ("RLEG_ANKLE_R", "root", 0.8, 0.6, 0.02, 0.3)
    assert [(c.name, c.character, c.period, c.command) for c in p.controllers] == [
        ("A", "robot", 0.005, None), ("B", "", None, None)]
    assert (p.log_period, p.log_sensors, p.plots) == (0.0, False, False)


def test_joint_modes_per_link_and_velocities(tmp_path, repo_root):
    text = project_text(repo_root).replace(
        '<model name="robot" url="%s/%s"/>' % (repo_root, HUMANOID),
        '<model name="robot" url="%s/%s">\n'
        '    <joints mode="highgain"/>\n'
        '    <joint name="RLEG_KNEE" mode="torque" value="0.3" velocity="0.1"/>\n'
        '    <rootVelocity linear="1 0 0" angular="0 0 0.5"/>\n'
        '  </model>' % (repo_root, HUMANOID))
    p = load_project(write(tmp_path, text))
    m = p.model("robot")
    assert m.all_joint_mode == "HIGH_GAIN_MODE"
    assert m.joint_modes == {"RLEG_KNEE": "TORQUE_MODE"}
    assert m.joint_values == {"RLEG_KNEE": 0.3}
    assert m.joint_velocities == {"RLEG_KNEE": 0.1}
    assert m.root_velocity == [1.0, 0.0, 0.0, 0.0, 0.0, 0.5]


def test_project_dir_expansion_and_relative_urls(tmp_path, repo_root):
    sub = tmp_path / "proj"
    sub.mkdir()
    (sub / "models").symlink_to(repo_root / "samples/models")
    path = write(sub, """\
        <hrpsim-project>
          <model name="floor" url="models/floor/floor.wrl"/>
          <model name="robot" url="$(PROJECT_DIR)/models/humanoid/humanoid.wrl"/>
          <controller name="C" command="/bin/echo $(PROJECT_DIR)/x"/>
        </hrpsim-project>
        """)
    p = load_project(path)
    assert p.models[0].url == str(repo_root / FLOOR)
    assert p.models[1].url == str(repo_root / HUMANOID)
    assert p.controllers[0].command == ["/bin/echo", "%s/x" % sub.resolve()]


# every validation error: (snippet that replaces the simulation element or adds a body,
# expected line, field text, message text)
BAD_SIM = [
    ('timeStep="abc"', "<simulation> timeStep", "must be a"),
    ('timeStep="-0.001"', "<simulation> timeStep", "positive"),
    ('timeStep="0.001" endTime="0"', "<simulation> endTime", "positive"),
    ('method="verlet"', "<simulation> method", "EULER or RUNGE_KUTTA"),
    ('sensors="maybe"', "<simulation> sensors", "true or false"),
    ('gravity="0 9.8"', "<simulation> gravity", "3 numbers"),
    ('realTime="-1"', "<simulation> realTime", "negative"),
    ('timestep="0.001"', "<simulation> timestep", "unknown attribute"),
]


@pytest.mark.parametrize("sim,field,message", BAD_SIM)
def test_simulation_errors_name_file_line_field(tmp_path, repo_root, sim, field, message):
    path = write(tmp_path, project_text(repo_root, sim=sim))
    with pytest.raises(ProjectError) as info:
        load_project(path)
    err = info.value
    assert (err.file, err.line, err.field) == (str(path), 3, field)
    assert message in err.message
    assert str(err).startswith("%s:3: %s: " % (path, field))


BAD_BODY = [
    ('<collision object1="floor" object2="ghost"/>', "collision object2", "no model named"),
    ('<collision object1="floor"/>', "<collision> object2", "required"),
    ('<collision object1="floor" object2="robot" staticFriction="x"/>',
     "<collision> staticFriction", "number"),
    ('<collision object1="floor" object2="robot" restitution="2"/>',
     "<collision> restitution", "between 0 and 1"),
    ('<controller character="robot"/>', "<controller> name", "required"),
    ('<controller name="C" character="nobody"/>', "controller character", "no model"),
    ('<controller name="C" period="0.0015"/>', "controller period", "whole multiple"),
    ('<controller name="C" period="-1"/>', "<controller> period", "positive"),
    ('<controller name="C" command="  "/>', "<controller> command", "empty"),
    ('<controller name="C"/><controller name="C"/>', "controller name", "given twice"),
    ('<log period="0.0025"/>', "<log> period", "whole multiple"),
    ('<log sensors="perhaps"/>', "<log> sensors", "true or false"),
    ('<model name="m" url="no/such/file.wrl"/>', "<model> url", "no such file"),
    ('<model name="floor" url="%s"/>' % "/dev/null", "model name", "given twice"),
    ('<model url="x.wrl"/>', "<model> name", "required"),
    ('<bogus/>', "<bogus>", "unexpected element"),
]


@pytest.mark.parametrize("body,field,message", BAD_BODY)
def test_body_errors_name_file_line_field(tmp_path, repo_root, body, field, message):
    path = write(tmp_path, project_text(repo_root, body="  " + body + "\n"))
    with pytest.raises(ProjectError) as info:
        load_project(path)
    err = info.value
    assert err.file == str(path)
    assert err.line == 6, str(err)
    assert err.field == field, str(err)
    assert message in err.message, str(err)


def test_model_child_errors(tmp_path, repo_root):
    for child, field in (('<rootPose translation="0 0"/>', "<rootPose> translation"),
                         ('<rootPose rotation="0 0 1"/>', "<rootPose> rotation"),
                         ('<joints mode="stiff"/>', "<joints> mode"),
                         ('<joint value="1"/>', "<joint> name"),
                         ('<joint name="J" value="one"/>', "<joint> value")):
        path = write(tmp_path, """\
            <hrpsim-project>
              <model name="robot" url="%s/%s">
                <joint name="RLEG_KNEE" value="0.1"/>
                %s
              </model>
            </hrpsim-project>
            """ % (repo_root, HUMANOID, child))
        with pytest.raises(ProjectError) as info:
            load_project(path)
        assert (info.value.line, info.value.field) == (4, field), str(info.value)


def test_malformed_xml_names_the_line(tmp_path):
    path = write(tmp_path, "<hrpsim-project>\n  <model name='a'\n</hrpsim-project>\n")
    with pytest.raises(ProjectError) as info:
        load_project(path)
    assert info.value.line == 3
    assert "not well-formed" in str(info.value)


def test_wrong_root_and_missing_file(tmp_path):
    path = write(tmp_path, "<project/>\n")
    with pytest.raises(ProjectError) as info:
        load_project(path)
    assert info.value.line == 1 and "<hrpsim-project> or <grxui>" in str(info.value)
    with pytest.raises(ProjectError) as info:
        load_project(tmp_path / "missing.xml")
    assert "cannot read" in str(info.value)


def test_no_model(tmp_path):
    with pytest.raises(ProjectError, match="no model"):
        load_project(write(tmp_path, "<hrpsim-project/>\n"))


# ---------------------------------------------------------------------------------------------
# GrxUI
# ---------------------------------------------------------------------------------------------

def test_grxui_sample(repo_root):
    p = load_project(repo_root / "samples/projects/grxui_humanoid.xml")
    assert p.format == "grxui"
    assert (p.time_step, p.end_time, p.method, p.gravity) == (0.001, 2.0, "EULER",
                                                             [0.0, 0.0, 9.8])
    floor, robot = p.models
    assert floor.url == str(repo_root / FLOOR)          # $(CURRENT_DIR)
    assert robot.url == str(repo_root / HUMANOID)       # $(PROJECT_DIR)
    assert robot.root_translation == pytest.approx([0, 0, 0.80804])
    assert robot.root_rotation == [0.0, 0.0, 1.0, 0.0]
    assert robot.joint_values["LLEG_KNEE"] == pytest.approx(0.4)
    assert len(robot.joint_modes) == 30
    assert set(robot.joint_modes.values()) == {"HIGH_GAIN_MODE"}
    [pair] = p.collisions
    assert (pair.object1, pair.link1, pair.object2, pair.link2) == ("floor", "", "robot", "")
    assert (pair.static_friction, pair.slip_friction, pair.culling) == (0.5, 0.5, 0.01)
    # the GrxGraphItem and the 3D view are listed, with their lines
    assert len(p.warnings) == 2
    assert any("GrxGraphItem" in w and ":72:" in w for w in p.warnings), p.warnings
    assert any("Grx3DView" in w or "3DView" in w for w in p.warnings), p.warnings


GRX = """\
    <grxui>
      <mode name="Simulation">
        <item class="com.generalrobotix.ui.item.GrxSimulationItem" name="simulationItem">
          <property name="totalTime" value="3"/>
          <property name="timeStep" value="0.002"/>
          <property name="method" value="RUNGE_KUTTA"/>
          <property name="gravity" value="9.8"/>
          <property name="integrate" value="%(integrate)s"/>
          <property name="viewsimulate" value="true"/>
        </item>
        <item class="com.generalrobotix.ui.item.GrxModelItem" name="floor"
              url="$(CURRENT_DIR)/models/floor/floor.wrl"/>
        <item class="com.generalrobotix.ui.item.GrxModelItem" name="robot">
          <property name="url" value="$(PROJECT_DIR)/models/humanoid/humanoid.wrl"/>
          <property name="isRobot" value="true"/>
          <property name="controller" value="SamplePD"/>
          <property name="controlTime" value="0.004"/>
          <property name="WAIST.translation" value="0 0 %(z)s"/>
          <property name="WAIST.rotation" value="0 0 1 1.57"/>
          <property name="WAIST.velocity" value="0.1 0 0"/>
          <property name="WAIST.angularVelocity" value="0 0 0.2"/>
          <property name="RLEG_KNEE.angle" value="0.5"/>
          <property name="RLEG_KNEE.mode" value="Torque"/>
          <property name="LLEG_KNEE.mode" value="HighGain"/>
          <property name="RLEG_KNEE.jointVelocity" value="0"/>
          <property name="markRadius" value="0.05"/>
          <property name="color" value="red"/>
        </item>
        <item class="com.generalrobotix.ui.item.GrxCollisionPairItem" name="CP">
          <property name="objectName1" value="floor"/>
          <property name="jointName1" value=""/>
          <property name="objectName2" value="robot"/>
          <property name="jointName2" value="RLEG_ANKLE_R"/>
          <property name="staticFriction" value="%(mu)s"/>
          <property name="slidingFriction" value="0.4"/>
          <property name="springConstant" value="1 2 3 0 0 0"/>
        </item>
        <item class="com.generalrobotix.ui.item.GrxControllerItem" name="OtherController">
          <property name="controlTime" value="0.002"/>
        </item>
        <item class="com.generalrobotix.ui.item.GrxPythonScriptItem" name="script"
              url="$(CURRENT_DIR)/script.py"/>
      </mode>
      <mode name="Model Edit"><item class="x.GrxModelItem" name="other"/></mode>
    </grxui>
    """


def grx(tmp_path, repo_root, **kw):
    (tmp_path / "models").symlink_to(repo_root / "samples/models")
    values = dict(integrate="true", z="0.8", mu="0.7")
    values.update(kw)
    return write(tmp_path, GRX % values, "grx.xml")


def test_grxui_items_and_warnings(tmp_path, repo_root):
    p = load_project(grx(tmp_path, repo_root))
    assert (p.end_time, p.time_step, p.method) == (3.0, 0.002, "RUNGE_KUTTA")
    robot = p.model("robot")
    assert robot.url == str(repo_root / HUMANOID)
    assert robot.root_translation == [0.0, 0.0, 0.8]
    assert robot.root_rotation == [0.0, 0.0, 1.0, 1.57]
    assert robot.root_velocity == [0.1, 0.0, 0.0, 0.0, 0.0, 0.2]
    assert robot.joint_values == {"RLEG_KNEE": 0.5}
    assert robot.joint_modes == {"RLEG_KNEE": "TORQUE_MODE", "LLEG_KNEE": "HIGH_GAIN_MODE"}
    [pair] = p.collisions
    assert (pair.link2, pair.static_friction, pair.slip_friction) == ("RLEG_ANKLE_R", 0.7, 0.4)
    assert [(c.name, c.character, c.period) for c in p.controllers] == [
        ("SamplePD", "robot", 0.004), ("OtherController", "", 0.002)]
    text = "\n".join(p.warnings)
    for expected in ("viewsimulate", "RLEG_KNEE.jointVelocity", "color", "springConstant",
                     "GrxPythonScriptItem", "Model Edit"):
        assert expected in text, text
    assert "markRadius" not in text  # display-only, nothing to honour
    # each warning names the file and the line
    assert all(w.startswith(str(p.path) + ":") for w in p.warnings), p.warnings
    assert any(w.startswith("%s:9:" % p.path) and "viewsimulate" in w for w in p.warnings)


def test_grxui_integrate_false_is_a_warning(tmp_path, repo_root):
    p = load_project(grx(tmp_path, repo_root, integrate="false"))
    assert any("integrate=false" in w and ":8:" in w for w in p.warnings), p.warnings


@pytest.mark.parametrize("kw,line,field", [
    (dict(z="high"), 18, "item robot WAIST.translation"),
    (dict(mu="-1"), 34, "item CP staticFriction"),
    (dict(integrate="sometimes"), 8, "simulationItem integrate"),
])
def test_grxui_errors_name_file_line_field(tmp_path, repo_root, kw, line, field):
    path = grx(tmp_path, repo_root, **kw)
    with pytest.raises(ProjectError) as info:
        load_project(path)
    assert (info.value.file, info.value.line, info.value.field) == (str(path), line, field), \
        str(info.value)


def test_grxui_missing_model_file(tmp_path):
    path = write(tmp_path, """\
        <grxui><mode name="Simulation">
          <item class="com.generalrobotix.ui.item.GrxModelItem" name="m"
                url="$(CURRENT_DIR)/nothing.wrl"/>
        </mode></grxui>
        """)
    with pytest.raises(ProjectError) as info:
        load_project(path)
    assert (info.value.line, info.value.field) == (2, "item m url")
    assert str(tmp_path / "nothing.wrl") in str(info.value)


# ---------------------------------------------------------------------------------------------
# GrxUI projects as OpenHRP ships them: tests/data/projects/openhrp_layout holds projects of our
# own in OpenHRP's sample/project + sample/model layout (see each file's header comment)
# ---------------------------------------------------------------------------------------------

LAYOUT = Path(__file__).resolve().parents[1] / "data" / "projects" / "openhrp_layout"
PROJECTS = LAYOUT / "sample" / "project"
MODELS = LAYOUT / "sample" / "model"


def test_old_world_state_project_and_openhrphome(monkeypatch):
    monkeypatch.delenv("OPENHRPHOME", raising=False)
    p = load_project(PROJECTS / "falling_boxes.xml")
    # the simulation settings of the GrxWorldStateItem (no GrxSimulationItem)
    assert (p.time_step, p.end_time, p.method, p.gravity) == (0.001, 1.5, "EULER",
                                                             [0.0, 0.0, 9.8])
    assert p.log_period == 0.01
    # $(OPENHRPHOME) unset: the OpenHRP directory the project sits in, said once
    assert [m.url for m in p.models] == [str(MODELS / n) for n in
                                         ("floor.wrl", "box.wrl", "box.wrl", "box.wrl")]
    home = [w for w in p.warnings if "$(OPENHRPHOME)" in w]
    assert len(home) == 1 and home[0].startswith("%s:18: " % p.path), p.warnings
    assert str(LAYOUT) in home[0]
    assert p.model("box1").root_translation == [0.0, 0.0, 0.3]
    assert p.model("box1").root_rotation == [0.0, 0.0, 1.0, 0.3]
    # the disabled spring-damper model is no warning; the graph and the view step are
    assert len(p.collisions) == 3
    text = "\n".join(p.warnings)
    assert "springConstant" not in text and "sprintDamperModel" not in text
    assert "GrxGraphItem" in text and "viewsimulationTimeStep" in text
    assert len(p.warnings) == 3, p.warnings


def test_openhrphome_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENHRPHOME", str(LAYOUT))
    elsewhere = tmp_path / "falling_boxes.xml"
    elsewhere.write_text((PROJECTS / "falling_boxes.xml").read_text())
    p = load_project(elsewhere)
    assert p.model("floor").url == str(MODELS / "floor.wrl")
    assert not any("$(OPENHRPHOME)" in w for w in p.warnings), p.warnings


def test_unset_variable_is_an_error_naming_it(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENHRPHOME", raising=False)
    monkeypatch.delenv("HRPSIM_NO_SUCH_VAR", raising=False)
    elsewhere = tmp_path / "falling_boxes.xml"
    elsewhere.write_text((PROJECTS / "falling_boxes.xml").read_text())
    with pytest.raises(ProjectError) as info:
        load_project(elsewhere)
    assert (info.value.line, info.value.field) == (18, "item floor url")
    assert "$(OPENHRPHOME) is not set (set the environment variable OPENHRPHOME to OpenHRP's " \
           "directory)" in str(info.value)
    path = write(tmp_path, """\
        <grxui><mode name="Simulation">
          <item class="com.generalrobotix.ui.item.GrxModelItem" name="m"
                url="$(HRPSIM_NO_SUCH_VAR)/m.wrl"/>
        </mode></grxui>
        """)
    with pytest.raises(ProjectError) as info:
        load_project(path)
    assert "$(HRPSIM_NO_SUCH_VAR) is not set" in str(info.value)


def test_capitalised_restitution_and_root_named_root():
    p = load_project(PROJECTS / "bouncing_ball.xml")
    assert p.log_period == 0.001   # the GrxWorldStateItem's logTimeStep
    assert [(c.object1, c.link1, c.object2, c.link2, c.restitution) for c in p.collisions] == [
        ("ball", "root", "floor", "WAIST", 0.0), ("ball", "root", "wall", "root", 0.8)]
    ball = p.model("ball")
    assert ball.root_translation == [-0.3, 0.0, 0.03]
    assert ball.root_velocity == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert ball.joint_modes == {"root": "TORQUE_MODE"}
    # only the GUI's view and perspective are left over
    assert len(p.warnings) == 2 and all("view" in w or "perspective" in w for w in p.warnings)


def test_relative_urls_and_unhonoured_items():
    p = load_project(PROJECTS / "relative_urls.xml")
    assert [m.url for m in p.models] == [str(MODELS / "floor.wrl"), str(MODELS / "box.wrl")]
    text = "\n".join(p.warnings)
    assert ":26: extra joint tie: jointType piston read as xy" in text
    assert [(e.object1, e.link1, e.object2, e.link2, e.link1_pos, e.joint_type, e.axis)
            for e in p.extra_joints] == [("floor", "WAIST", "box", "WAIST", [0.0, 0.0, 0.05],
                                          "xy", [0.0, 0.0, 1.0])]
    assert p.joint_limits is False  # GrxUI projects keep OpenHRP's behaviour
    assert ":20: model box: property WAIST.jointVelocity ignored" in text


# ---------------------------------------------------------------------------------------------
# ... and they run with `hrpsim run`, from anywhere
# ---------------------------------------------------------------------------------------------

BOX_HALF = 0.05     # the boxes are 0.1 m cubes; the floor's top is z = 0
REST_TOL = 0.005    # contact with ERP 0.2, CFM 1e-8 leaves millimetres of penetration


def run_project(servers, project, out, cwd):
    """`hrpsim run` of project from the directory cwd (OPENHRPHOME unset)."""
    env = cli_env()
    env.pop("OPENHRPHOME", None)
    return subprocess.run([sys.executable, "-m", "hrpsim.cli", "run", "--state-dir",
                           str(servers.state_dir), "--out", str(out), "--no-plots",
                           str(project)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=600, env=env, cwd=str(cwd))


@pytest.fixture(scope="module")
def sched(servers):
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    return servers


def test_falling_boxes_run_from_elsewhere(sched, tmp_path):
    # a relative project path from another directory; $(OPENHRPHOME) inferred
    rel = os.path.relpath(PROJECTS / "falling_boxes.xml", tmp_path)
    proc = run_project(sched, rel, tmp_path / "out", tmp_path)
    assert proc.returncode == 0, describe(proc)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["format"] == "grxui"
    assert any("$(OPENHRPHOME)" in w for w in summary["warnings"]), summary["warnings"]
    log = np.load(tmp_path / "out" / "log.npz")
    assert log["time"][-1] == pytest.approx(1.5)
    # log every 10 ms (logTimeStep), from 0
    assert np.allclose(np.diff(log["time"]), 0.01)
    for name, z0 in (("box1", 0.3), ("box2", 0.5), ("box3", 0.2)):
        z = log["%s.root_p" % name][:, 2]
        assert z[0] == pytest.approx(z0)
        # fell from z0 and came to rest on the floor
        assert z[-1] == pytest.approx(BOX_HALF, abs=REST_TOL), (name, z[-1])
        assert z.min() > BOX_HALF - 2 * REST_TOL, (name, z.min())


def test_bouncing_ball_runs_in_its_directory(sched, tmp_path):
    proc = run_project(sched, "bouncing_ball.xml", tmp_path / "out", PROJECTS)
    assert proc.returncode == 0, describe(proc)
    log = np.load(tmp_path / "out" / "log.npz")
    x = log["ball.root_p"][:, 0]
    # rolls (frictionless: slides) at 1 m/s towards the wall, whose face is x = 0.25; the
    # ball (r = 0.03) turns back at x = 0.22 and leaves slower (restitution 0.8)
    assert x[0] == pytest.approx(-0.3)
    assert x.max() == pytest.approx(0.22, abs=0.01)
    assert x[-1] < x.max() - 0.1
    t_hit = log["time"][np.argmax(x)]
    assert t_hit == pytest.approx(0.52, abs=0.02)
    v_back = (x[-1] - x[-51]) / (log["time"][-1] - log["time"][-51])
    assert v_back == pytest.approx(-0.8, abs=0.1)


def test_relative_urls_run(sched, tmp_path):
    proc = run_project(sched, PROJECTS / "relative_urls.xml", tmp_path / "out", tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert "jointType piston read as xy" in proc.stderr, describe(proc)
    log = np.load(tmp_path / "out" / "log.npz")
    z = log["box.root_p"][:, 2]
    assert z[-1] == pytest.approx(BOX_HALF, abs=REST_TOL)
