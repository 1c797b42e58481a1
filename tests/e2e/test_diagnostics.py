"""Errors reach Python users with the server's reason (hrpsim::Diagnostics, hrpsim/errors.py).

For each server (dynamics, collision, the scheduler and the DynamicsSimulator it hosts), a
request refused through hrpsim's own Python API (hrpsim.Simulation, Client.collision_detector,
a hrpsim.controller Controller's ``self.dynamics``) raises a Python exception whose message is
the reason the server logged, chained to the CORBA exception. The OpenHRP wire is unchanged:
plain references still raise the bare CORBA system exception, narrow to OpenHRP's interfaces,
and answer ``_is_a`` for them."""

from pathlib import Path

import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP
from hrpsim import errors
from hrpsim.controller import Controller

from conftest import REPO_ROOT, require_build

DS = OpenHRP.DynamicsSimulator
FLOOR = REPO_ROOT / "samples" / "models" / "floor" / "floor.wrl"
HUMANOID = REPO_ROOT / "samples" / "models" / "humanoid" / "humanoid.wrl"
I3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]


@pytest.fixture(scope="module")
def client(servers):
    require_build(("ModelLoader", "DynamicsSimulatorFactory", "CollisionDetectorFactory",
                   "Scheduler"))
    for name in ("DynamicsSimulatorFactory", "CollisionDetectorFactory", "Scheduler"):
        assert servers.has(name), "hrpsim up did not start %s" % name
    return servers.client


def server_log(servers, exe):
    return Path(servers.state_dir) / "logs" / ("%s.log" % exe)


def log_lines_since(path, size):
    return path.read_text(errors="replace")[size:].splitlines()


def check_reason(exc, servers, exe, before, reason, cls, corba_cls):
    """exc is cls, its message is the line the server logged (without the log's prefix), holds
    reason, and is chained to the CORBA exception."""
    assert isinstance(exc, cls), repr(exc)
    text = str(exc)
    assert reason in text, text
    logged = [ln for ln in log_lines_since(server_log(servers, exe), before) if text in ln]
    assert logged, "%r is not what %s logged" % (text, exe)
    assert isinstance(exc.__cause__, corba_cls) and exc.corba is exc.__cause__, repr(exc)


def log_size(servers, exe):
    p = server_log(servers, exe)
    return p.stat().st_size if p.exists() else 0


# ---------------------------------------------------------------------------------------------
# DynamicsSimulator (hrpsim-dynamics) through hrpsim.Simulation
# ---------------------------------------------------------------------------------------------

def test_simulation_bad_name_raises_with_the_reason(client, servers):
    sim = hrpsim.Simulation(client, models={"floor": FLOOR, "robot": HUMANOID})
    before = log_size(servers, "hrpsim-dynamics")
    try:
        # a link the model does not have: refused by the Simulation itself, before any server
        # sees it, alike on every back end (test_errors.py)
        with pytest.raises(errors.UnknownName, match="has no link 'NOSUCHLINK'"):
            sim.add_collision_pair("floor", "robot", link2="NOSUCHLINK")
        sim.step(1)
        # a name only the server knows is wrong: its reason, as it logged it
        with pytest.raises(LookupError) as info:
            sim.extra_joint_force("robot", "NOSUCHLOOP")
        check_reason(info.value, servers, "hrpsim-dynamics", before,
                     "character 'robot' has no extra joint named 'NOSUCHLOOP'",
                     errors.BadArgument, CORBA.BAD_PARAM)
        assert str(info.value).startswith("getExtraJointConstraintForce: ")
    finally:
        sim.close()


def test_simulation_bad_data_between_steps_raises_with_the_reason(client, servers):
    sim = hrpsim.Simulation(client, models={"robot": HUMANOID})
    try:
        sim.step(1)
        before = log_size(servers, "hrpsim-dynamics")
        with pytest.raises(errors.BadArgument) as info:
            sim.set_link_data("robot", "WAIST", "JOINT_VALUE", [0.1])  # the root has no joint
        check_reason(info.value, servers, "hrpsim-dynamics", before, "setCharacterLinkData",
                     errors.BadArgument, CORBA.BAD_PARAM)
        sim.step(1)  # the world is still usable
        assert sim.steps == 2
    finally:
        sim.close()


def test_call_order_error_and_the_reason_is_read_once(client, servers):
    ds = errors.explained(client.dynamics_simulator())
    try:
        before = log_size(servers, "hrpsim-dynamics")
        with pytest.raises(errors.CallOrderError) as info:
            ds.stepSimulation()
        check_reason(info.value, servers, "hrpsim-dynamics", before, "stepSimulation: ",
                     errors.CallOrderError, CORBA.BAD_INV_ORDER)
        # the reason was taken: a second look finds none
        assert errors.last_error(errors.unwrap(ds)) == ""
    finally:
        ds.destroy()


def test_the_openhrp_wire_is_unchanged(client):
    plain = client.dynamics_simulator()
    try:
        assert plain._is_a("IDL:OpenHRP/DynamicsSimulator:1.0")
        assert plain._is_a("IDL:hrpsim/Diagnostics:1.0")
        assert plain._narrow(OpenHRP.DynamicsSimulator) is not None
        # a plain reference raises the bare system exception, as OpenHRP's servers do
        with pytest.raises(CORBA.BAD_PARAM) as info:
            plain.setCharacterAllJointModes("nobody", DS.TORQUE_MODE)
        assert not isinstance(info.value, errors.ServerError)
        # and the reason waits for whoever asks
        assert "nobody" in errors.last_error(plain)
    finally:
        plain.destroy()


# ---------------------------------------------------------------------------------------------
# CollisionDetector (hrpsim-collision) through Client.collision_detector
# ---------------------------------------------------------------------------------------------

def test_collision_detector_bad_link_name_raises_with_the_reason(client, servers):
    cd = client.collision_detector()
    try:
        assert errors.unwrap(cd)._is_a("IDL:OpenHRP/CollisionDetector:1.0")
        cd.registerCharacter("robot", client.load_body(HUMANOID))
        before = log_size(servers, "hrpsim-collision")
        with pytest.raises(LookupError) as info:
            cd.addCollisionPair(OpenHRP.LinkPair("robot", "WAIST", "robot", "NOSUCHLINK", 0.0))
        check_reason(info.value, servers, "hrpsim-collision", before,
                     "'NOSUCHLINK'", errors.BadArgument, CORBA.BAD_PARAM)
        assert "robot" in str(info.value)
    finally:
        cd.destroy()


def test_collision_detector_bad_positions_raise_with_the_reason(client, servers):
    cd = client.collision_detector()
    try:
        cd.registerCharacter("floor", client.load_body(FLOOR))
        before = log_size(servers, "hrpsim-collision")
        bad = OpenHRP.CharacterPosition("floor", [OpenHRP.LinkPosition([0.0, 0.0, 0.0],
                                                                       [2.0] + I3[1:])])
        with pytest.raises(ValueError) as info:
            cd.queryContactDeterminationForDefinedPairs([bad])
        check_reason(info.value, servers, "hrpsim-collision", before,
                     "queryContactDeterminationForDefinedPairs", errors.BadArgument,
                     CORBA.BAD_PARAM)
    finally:
        cd.destroy()


# ---------------------------------------------------------------------------------------------
# the Scheduler and the DynamicsSimulator it hosts (hrpsim-scheduler)
# ---------------------------------------------------------------------------------------------

def test_scheduler_refusal_through_simulation(client, servers):
    sim = hrpsim.Simulation(client, scheduler=True, models={"floor": FLOOR, "robot": HUMANOID})
    sim.set_log(period=-1.0)   # checked by the Scheduler, not in Python
    before = log_size(servers, "hrpsim-scheduler")
    try:
        with pytest.raises(ValueError) as info:
            sim.step(1)
        check_reason(info.value, servers, "hrpsim-scheduler", before, "log period -1 s",
                     errors.SchedulerRefused, hrpsim.SchedulerIDL.SchedulerError)
        assert str(info.value) == info.value.corba.description
    finally:
        sim.close()


def test_hosted_dynamics_refusal_through_simulation(client, servers):
    sim = hrpsim.Simulation(client, scheduler=True, models={"robot": HUMANOID})
    try:
        sim.step(1)
        before = log_size(servers, "hrpsim-scheduler")
        with pytest.raises(errors.BadArgument) as info:
            sim.set_link_data("robot", "WAIST", "JOINT_VALUE", [0.1])  # the root has no joint
        check_reason(info.value, servers, "hrpsim-scheduler", before, "setCharacterLinkData",
                     errors.BadArgument, CORBA.BAD_PARAM)
        # the hosted DynamicsSimulator belongs to the scheduler: NO_PERMISSION, with why
        before = log_size(servers, "hrpsim-scheduler")
        with pytest.raises(PermissionError) as info:
            errors.explained(sim.dynamics).destroy()
        check_reason(info.value, servers, "hrpsim-scheduler", before,
                     "belongs to the scheduler", errors.NotPermitted, CORBA.NO_PERMISSION)
        sim.step(1)
    finally:
        sim.close()


class _Context(hrpsim.OpenRTM__POA.ExtTrigExecutionContextService):
    """An execution context that is never ticked (the refused subscriptions below)."""

    def tick(self):
        pass


def test_clock_subscribe_refusals_carry_the_reason(client, servers):
    """ClockGenerator::subscribe's refusals (a nil context, a period that is not a whole
    number of steps) reach Python as BadArgument with the line hrpsim-scheduler logged, through
    the ClockGenerator's own lastError (hrpsim::ClockGenerator is a Diagnostics); the plain
    reference still narrows to OpenHRP's ClockGenerator."""
    ref = client.resolve("ClockGenerator", OpenHRP.ClockGenerator)
    assert ref._is_a("IDL:OpenHRP/ClockGenerator:1.0")
    assert ref._is_a("IDL:hrpsim/Diagnostics:1.0")
    clock = errors.explained(ref)
    before = log_size(servers, "hrpsim-scheduler")
    with pytest.raises(errors.BadArgument) as info:
        clock.subscribe(None, 0.005)
    check_reason(info.value, servers, "hrpsim-scheduler", before,
                 "ClockGenerator::subscribe: the execution context reference is nil",
                 errors.BadArgument, CORBA.BAD_PARAM)
    poa = client.orb.resolve_initial_references("RootPOA")
    poa._get_the_POAManager().activate()
    oid = poa.activate_object(_Context())
    try:
        ec = poa.id_to_reference(oid)
        sched = client.resolve("Scheduler", hrpsim.SchedulerIDL.Scheduler)
        sched.reset()
        sched.setTimeStep(0.001)
        before = log_size(servers, "hrpsim-scheduler")
        with pytest.raises(errors.BadArgument) as info:
            clock.subscribe(ec, 0.0025)
        check_reason(info.value, servers, "hrpsim-scheduler", before,
                     "the period 0.0025 s is not a whole multiple of the time step 0.001 s",
                     errors.BadArgument, CORBA.BAD_PARAM)
        assert errors.last_error(ref) == ""   # read once
        ref.unsubscribe(ec)
        sched.reset()
    finally:
        poa.deactivate_object(oid)


# ---------------------------------------------------------------------------------------------
# hrpsim.controller: a controller's self.dynamics
# ---------------------------------------------------------------------------------------------

def test_controller_dynamics_raise_with_the_reason(client, servers):
    ctrl = Controller()
    plain = client.dynamics_simulator()
    try:
        ctrl.setDynamicsSimulator(plain)
        assert errors.unwrap(ctrl.dynamics)._is_equivalent(plain)
        ctrl.dynamics.registerCharacter("robot", client.load_body(HUMANOID))
        before = log_size(servers, "hrpsim-dynamics")
        with pytest.raises(LookupError) as info:
            ctrl.dynamics.setCharacterLinkData("robot", "NOSUCHLINK", DS.JOINT_VALUE, [0.1])
        check_reason(info.value, servers, "hrpsim-dynamics", before,
                     "character 'robot' has no link 'NOSUCHLINK'", errors.BadArgument,
                     CORBA.BAD_PARAM)
    finally:
        plain.destroy()


def test_client_side_errors_are_not_blamed_on_the_server(client):
    ds = errors.explained(client.dynamics_simulator())
    try:
        ds.registerCharacter("robot", client.load_body(HUMANOID))
        # omniORB refuses a string for a double before sending anything: its own BAD_PARAM
        # (a minor code of its own) comes through untouched
        with pytest.raises(CORBA.BAD_PARAM) as info:
            ds.init("fast", DS.EULER, DS.ENABLE_SENSOR)
        assert not isinstance(info.value, errors.ServerError)
        assert info.value.minor != 0
    finally:
        ds.destroy()


OPENHRP_ONLY_CLIENT = """
import sys
from omniORB import CORBA
import CosNaming
import OpenHRP
orb = CORBA.ORB_init(["c", "-ORBInitRef", "NameService=" + sys.argv[1]], CORBA.ORB_ID)
ctx = orb.resolve_initial_references("NameService")._narrow(CosNaming.NamingContext)
get = lambda n, t: ctx.resolve([CosNaming.NameComponent(n, "")])._narrow(t)
body = get("ModelLoader", OpenHRP.ModelLoader).loadBodyInfo(sys.argv[2])
DS = OpenHRP.DynamicsSimulator
ds = get("DynamicsSimulatorFactory", OpenHRP.DynamicsSimulatorFactory).create()
ds.registerCharacter("robot", body)
ds.init(0.001, DS.EULER, DS.ENABLE_SENSOR)
ds.initSimulation()
ds.stepSimulation()
try:
    ds.setCharacterLinkData("robot", "NOSUCHLINK", DS.JOINT_VALUE, [0.1])
except CORBA.BAD_PARAM as exc:
    print("BAD_PARAM", exc.minor)
cd = get("CollisionDetectorFactory", OpenHRP.CollisionDetectorFactory).create()
cd.registerCharacter("robot", body)
print("time", ds.getWorldState().time, cd._is_a("IDL:OpenHRP/CollisionDetector:1.0"))
cd.destroy()
ds.destroy()
"""


def test_a_client_with_only_openhrps_idl_works_as_before(client, servers, tmp_path):
    """Stubs made from OpenHRP's IDL alone (no hrpsim module): the references the factories
    return are used as OpenHRP's, refusals are the bare system exception."""
    import shutil
    import subprocess
    import sys
    idl = tmp_path / "idl"
    stubs = tmp_path / "stubs"
    idl.mkdir()
    stubs.mkdir()
    for f in (REPO_ROOT / "idl").glob("*.idl"):
        if f.name not in ("Diagnostics.idl", "Scheduler.idl"):
            shutil.copy(f, idl)
    omniidl = Path(sys.executable).parent / "omniidl"
    subprocess.run([str(omniidl), "-bpython", "-I" + str(idl), "-C", str(stubs)]
                   + sorted(str(f) for f in idl.glob("*.idl")), check=True)
    assert not (stubs / "hrpsim").exists()
    proc = subprocess.run([sys.executable, "-c", OPENHRP_ONLY_CLIENT, servers.corbaloc,
                           hrpsim.file_url(HUMANOID)], cwd=str(stubs), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["BAD_PARAM", "0", "time", "0.001", "True"], proc.stdout
