"""Every project error names the line of the element that holds the bad value, through
`hrpsim run` (servers), for each place project.py and run.py raise one: reading the XML,
values of each element and attribute, the cross-checks, values checked against the models once
they are loaded (link names of joints, pairs, loops), the Scheduler's refusals, a model the
ModelLoader refuses, a controller command that cannot start. GrxUI projects keep their values
in <property> elements: an error names the property's line, not its item's.

Each case is a whole project whose offending line ends with the marker comment; the test
checks that `hrpsim run` fails with "FILE:LINE: FIELD: " on the marked line."""

import textwrap

import pytest

from conftest import REPO_ROOT, describe, require_build, run_cli

MARK = "<!--HERE-->"
HUMANOID = "%s/samples/models/humanoid/humanoid.wrl" % REPO_ROOT
FLOOR = "%s/samples/models/floor/floor.wrl" % REPO_ROOT


def hrpsim_project(body, sim='timeStep="0.001" endTime="0.01"', robot_children=""):
    """An hrpsim project: <simulation>, the floor, the robot (with robot_children inside),
    then body."""
    return textwrap.dedent("""\
        <?xml version="1.0"?>
        <hrpsim-project version="1">
          <simulation %s/>
          <model name="floor" url="%s"/>
          <model name="robot"
                 url="%s">
        %s
          </model>
        %s
        </hrpsim-project>
        """) % (sim, FLOOR, HUMANOID, robot_children, body)


def robot(children):
    return hrpsim_project("", robot_children=children)


def grx_project(sim_props="", robot_props="", items=""):
    """A GrxUI project with a simulation item, the floor and the robot; extra properties and
    items are inserted as given."""
    return textwrap.dedent("""\
        <grxui>
          <mode name="Simulation">
            <item class="com.generalrobotix.ui.item.GrxSimulationItem" name="simulationItem">
              <property name="totalTime" value="0.01"/>
        %s
            </item>
            <item class="com.generalrobotix.ui.item.GrxModelItem" name="floor"
                  url="%s"/>
            <item class="com.generalrobotix.ui.item.GrxModelItem" name="robot">
              <property name="url" value="%s"/>
        %s
            </item>
        %s
          </mode>
        </grxui>
        """) % (sim_props, FLOOR, HUMANOID, robot_props, items)


def grx_item(cls, name, props):
    return ('    <item class="com.generalrobotix.ui.item.%s" name="%s">\n%s\n    </item>'
            % (cls, name, props))


BAD_WRL = "#VRML V2.0 utf8\nTransform {\n  children [ Shape { geometry Box { size 1 } }\n"

# (id, project text, field text expected after FILE:LINE:)
CASES = [
    # --- reading the XML and the elements (project.py read_xml, _attrs, _parse_hrpsim) ---
    ("malformed-xml", "<hrpsim-project>\n  <model name='a'\n</hrpsim-project> %s\n" % MARK,
     ""),
    ("wrong-root", "<project/> %s\n" % MARK, "<project>"),
    ("version", '<hrpsim-project version="2"> %s\n</hrpsim-project>\n' % MARK,
     "<hrpsim-project> version"),
    ("unknown-attribute", hrpsim_project('<log bogus="1"/> %s' % MARK), "<log> bogus"),
    ("missing-attribute", hrpsim_project('<collision object1="floor"/> %s' % MARK),
     "<collision> object2"),
    ("unexpected-element", hrpsim_project("<bogus/> %s" % MARK), "<bogus>"),
    ("given-twice", hrpsim_project("<log/>\n<log/> %s" % MARK), "<log>"),
    ("child-of-child", robot('<joint name="WAIST"><x/></joint> %s' % MARK), "<x>"),
    # --- values (_Ctx.number / vector / boolean / mode / method / url / expand, _command) ---
    ("sim-number", hrpsim_project("", sim='timeStep="abc"') .replace(
        '<simulation timeStep="abc"/>', '<simulation timeStep="abc"/> %s' % MARK),
     "<simulation> timeStep"),
    ("extra-joint-type", hrpsim_project(
        '%s <extraJoint name="L" object1="robot" link1="WAIST" object2="floor"\n'
        '  link2="WAIST" jointType="hinge"/>' % MARK), "<extraJoint> jointType"),
    ("extra-joint-vector", hrpsim_project(
        '%s <extraJoint name="L" object1="robot" link1="WAIST" object2="floor"\n'
        '  link2="WAIST" link1LocalPos="0 0"/>' % MARK), "<extraJoint> link1LocalPos"),
    ("restitution", hrpsim_project(
        '<collision object1="floor" object2="robot" restitution="2"/> %s' % MARK),
     "<collision> restitution"),
    ("controller-period", hrpsim_project('<controller name="C" period="-1"/> %s' % MARK),
     "<controller> period"),
    ("controller-command-empty",
     hrpsim_project('<controller name="C" command=" "/> %s' % MARK), "<controller> command"),
    ("controller-command-quote",
     hrpsim_project('<controller name="C" command="a \'b"/> %s' % MARK),
     "<controller> command"),
    ("log-sensors", hrpsim_project('<log sensors="maybe"/> %s' % MARK), "<log> sensors"),
    ("noise-seed", hrpsim_project('<noise seed="0.5"/> %s' % MARK), "<noise> seed"),
    ("noise-sensor-type", hrpsim_project(
        '<noise>\n<sensor type="sonar"/> %s\n</noise>' % MARK), "<sensor> type"),
    ("noise-sensor-twice", hrpsim_project(
        '<noise>\n<sensor type="gyro"/>\n<sensor type="gyro"/> %s\n</noise>' % MARK),
     "<sensor> type"),
    ("noise-std-count", hrpsim_project(
        '<noise>\n<sensor type="gyro" std="1 2"/> %s\n</noise>' % MARK), "<sensor> std"),
    ("model-url-missing", hrpsim_project('<model name="m" url="no/such.wrl"/> %s' % MARK),
     "<model> url"),
    ("model-url-variable", hrpsim_project(
        '<model name="m" url="$(HRPSIM_TEST_UNSET_VARIABLE)/m.wrl"/> %s' % MARK),
     "<model> url"),
    ("root-pose", robot('<rootPose translation="0 0"/> %s' % MARK), "<rootPose> translation"),
    ("root-velocity", robot('<rootVelocity linear="x"/> %s' % MARK), "<rootVelocity> linear"),
    ("joints-mode", robot('<joints mode="stiff"/> %s' % MARK), "<joints> mode"),
    ("joint-name", robot('<joint value="1"/> %s' % MARK), "<joint> name"),
    ("joint-value", robot('<joint name="RLEG_KNEE" value="one"/> %s' % MARK),
     "<joint> value"),
    # --- cross-checks (_check) ---
    ("time-step-range", hrpsim_project("", sim='timeStep="2"').replace(
        '<simulation timeStep="2"/>', '<simulation timeStep="2"/> %s' % MARK), "timeStep"),
    ("end-time-short", hrpsim_project("", sim='timeStep="0.01" endTime="0.001"').replace(
        'endTime="0.001"/>', 'endTime="0.001"/> %s' % MARK), "endTime"),
    ("model-twice", hrpsim_project('%s <model name="floor"\n  url="%s"/>' % (MARK, FLOOR)),
     "model name"),
    ("collision-model", hrpsim_project(
        '<collision object1="floor" object2="ghost"/> %s' % MARK),
     "collision object2"),
    ("controller-twice", hrpsim_project(
        '<controller name="C"/>\n<controller name="C"/> %s' % MARK), "controller name"),
    ("controller-character", hrpsim_project(
        '<controller name="C" character="nobody"/> %s' % MARK), "controller character"),
    ("controller-multiple", hrpsim_project(
        '<controller name="C" period="0.0015"/> %s' % MARK), "controller period"),
    ("log-multiple", hrpsim_project('<log period="0.0025"/> %s' % MARK), "<log> period"),
    # --- against the loaded models (Project.configure) ---
    ("joint-value-link", robot('<joint name="RLEG_KNE" value="0.1"/> %s' % MARK),
     "model robot joint value"),
    ("joint-velocity-link", robot('<joint name="RLEG_KNE" velocity="0.1"/> %s' % MARK),
     "model robot joint velocity"),
    ("joint-mode-link", robot('<joint name="RLEG_KNE" mode="torque"/> %s' % MARK),
     "model robot joint mode"),
    ("track-speed-link", robot('<joint name="TRACK" trackSpeed="0.1"/> %s' % MARK),
     "model robot track speed"),
    ("collision-link", hrpsim_project(
        '<collision object1="floor" object2="robot" link2="RLEG_ANKL"/> %s' % MARK),
     "collision link2"),
    ("extra-joint-link", hrpsim_project(
        '%s <extraJoint name="L" object1="robot" link1="WAIST" object2="robot"\n'
        '  link2="NOSUCH"/>' % MARK), "extra joint L link2"),
    # --- the Scheduler's refusals (Project.configure's call) ---
    ("scheduler-refuses-root-velocity", robot(
        '<rootVelocity linear="1e300 0 0"/> %s' % MARK), "model robot root velocity"),
    # --- run.py ---
    ("model-loader", hrpsim_project('<model name="bad" url="bad.wrl"/> %s' % MARK),
     "model bad"),
    ("controller-cannot-start", hrpsim_project(
        '<controller name="C" command="/no/such/program"/> %s' % MARK), "controller C"),
    # --- GrxUI: the property's line ---
    ("grx-time-step", grx_project(sim_props='      <property name="timeStep" value="2"/> %s'
                                  % MARK), "timeStep"),
    ("grx-total-time", grx_project(
        sim_props='      <property name="timeStep" value="0.01"/>').replace(
        '<property name="totalTime" value="0.01"/>',
        '<property name="totalTime" value="0.001"/> %s' % MARK), "endTime"),
    ("grx-joint-angle-link", grx_project(
        robot_props='      <property name="RLEG_KNE.angle" value="0.5"/> %s' % MARK),
     "model robot joint value"),
    ("grx-joint-mode-link", grx_project(
        robot_props='      <property name="RLEG_KNE.mode" value="Torque"/> %s' % MARK),
     "model robot joint mode"),
    ("grx-control-time", grx_project(
        robot_props='      <property name="controller" value="C"/>\n'
                    '      <property name="controlTime" value="0.0015"/> %s' % MARK),
     "controller period"),
    ("grx-controller-model", grx_project(items=grx_item(
        "GrxControllerItem", "C", '      <property name="model" value="nobody"/> %s' % MARK)),
     "controller character"),
    ("grx-pair-object", grx_project(items=grx_item(
        "GrxCollisionPairItem", "CP",
        '      <property name="objectName1" value="floor"/>\n'
        '      <property name="objectName2" value="ghost"/> %s' % MARK)), "collision object2"),
    ("grx-pair-link", grx_project(items=grx_item(
        "GrxCollisionPairItem", "CP",
        '      <property name="objectName1" value="floor"/>\n'
        '      <property name="objectName2" value="robot"/>\n'
        '      <property name="jointName2" value="RLEG_ANKL"/> %s' % MARK)),
     "collision link2"),
    ("grx-loop-vector", grx_project(items=grx_item(
        "GrxExtraJointItem", "L",
        '      <property name="object1Name" value="robot"/>\n'
        '      <property name="object2Name" value="robot"/>\n'
        '      <property name="link1Name" value="WAIST"/>\n'
        '      <property name="link2Name" value="CHEST"/>\n'
        '      <property name="jointAxis" value="0 1"/> %s' % MARK)), "item L jointAxis"),
    ("grx-loop-link", grx_project(items=grx_item(
        "GrxExtraJointItem", "L",
        '      <property name="object1Name" value="robot"/>\n'
        '      <property name="object2Name" value="robot"/>\n'
        '      <property name="link1Name" value="WAIST"/>\n'
        '      <property name="link2Name" value="CHST"/> %s' % MARK)), "extra joint L link2"),
    ("grx-url-property", grx_project().replace(
        '<property name="url" value="%s"/>' % HUMANOID,
        '<property name="url" value="$(CURRENT_DIR)/none.wrl"/> %s' % MARK), "item robot url"),
    ("grx-model-loader", grx_project().replace(
        '<property name="url" value="%s"/>' % HUMANOID,
        '<property name="url" value="$(CURRENT_DIR)/bad.wrl"/> %s' % MARK), "model robot"),
    ("grx-log-step", grx_project(items=grx_item(
        "GrxWorldStateItem", "log",
        '      <property name="logTimeStep" value="0.0015"/> %s' % MARK)), "<log> period"),
]


@pytest.fixture(scope="module")
def sched(servers):
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "Scheduler"))
    return servers


@pytest.mark.parametrize("text,field", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_project_error_names_the_line_holding_the_value(sched, tmp_path, text, field):
    assert text.count(MARK) == 1, text
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if MARK in ln)
    (tmp_path / "bad.wrl").write_text(BAD_WRL)
    path = tmp_path / "p.xml"
    path.write_text(text)
    proc = run_cli("run", "--state-dir", sched.state_dir, "--out", tmp_path / "out",
                   "--no-plots", "--quiet", path, timeout=120)
    assert proc.returncode != 0, describe(proc)
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("hrpsim run: ")]
    assert len(errors) == 1, describe(proc)
    expect = "hrpsim run: %s:%d: %s" % (path, line, field + ": " if field else "")
    assert errors[0].startswith(expect), "expected %r\n%s" % (expect, describe(proc))


ANCHORED_URDF = """<?xml version="1.0"?>
<robot name="anchored">
  <link name="world"/>
  <link name="base">
    <inertial><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.2 0.2 0.2"/></geometry></visual>
  </link>
  <joint name="anchor" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 1"/></joint>
</robot>
"""


@pytest.mark.parametrize("local", [False, True], ids=["servers", "local"])
def test_a_root_pose_that_moves_a_fixed_urdf_base_off_its_anchor_is_a_warning(sched, tmp_path,
                                                                              local):
    """A fixed-base URDF (world -> base at z = 1) given <rootPose translation="0 1 0">: the
    base starts at (0, 1, 0), the root pose replacing the anchor's pose (OpenHRP's rule,
    docs/models.md), and `hrpsim run` says so with the rootPose's file:line (before: nothing
    said, the robot silently 1 m lower). The anchor's own pose, a VRML fixed root moved, or
    no rootPose: no warning."""
    import numpy as np
    (tmp_path / "anchored.urdf").write_text(ANCHORED_URDF)
    where = {}
    for name, pose in (("moved", '<rootPose translation="0 1 0"/>'),
                       ("anchor", '<rootPose translation="0 0 1"/>'), ("none", "")):
        path = tmp_path / ("%s.xml" % name)
        path.write_text(textwrap.dedent("""\
            <hrpsim-project>
              <simulation timeStep="0.001" endTime="0.01"/>
              <model name="floor" url="%s">
                <rootPose translation="0 0 -0.5"/>
              </model>
              <model name="a" url="anchored.urdf">
                %s
              </model>
            </hrpsim-project>
            """) % (FLOOR, pose))
        out = tmp_path / ("out-" + name)
        proc = run_cli("run", "--state-dir", sched.state_dir, "--out", out, "--no-plots",
                       *(["--local"] if local else []), path, timeout=120)
        assert proc.returncode == 0, describe(proc)
        warnings = [ln for ln in proc.stderr.splitlines() if "warning" in ln]
        where[name] = np.load(out / "log.npz")["a.root_p"][0]
        if name == "moved":
            assert warnings == [
                "hrpsim run: warning: %s:7: model a rootPose: a fixed URDF base is placed where "
                "the root pose says, not on its anchor (the joint from the world puts base at "
                "0 0 1): the root pose replaces the anchor, as in OpenHRP, so base starts at "
                "0 1 0; leave rootPose out to keep the anchor" % path], describe(proc)
        else:
            assert warnings == [], describe(proc)
    assert where["moved"].tolist() == [0.0, 1.0, 0.0]
    assert where["anchor"].tolist() == where["none"].tolist() == [0.0, 0.0, 1.0]
