"""hrpsim's one-round-trip doors (idl/Diagnostics.idl: hrpsim::DynamicsSimulator::stepWith) against
OpenHRP's three calls: the same runs bit for bit, and each path really taken.

- client loop: the torque-mode humanoid under the sample PD law (samples/controllers), 500
  steps through ``hrpsim.Simulation`` (server back end) with ``one_call`` on (one stepWith per
  step: the held torques in, the sensor states out) and off (setCharacterAllLinkData,
  stepSimulation, getCharacterSensorState);
- scheduler: the sample PD controller servant, once as an hrpsim::OneCallController (one
  tick() per period) and once as a plain OpenHRP::Controller (input, control, output).
"""

import math
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

import hrpsim
from hrpsim import OpenHRP

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "samples" / "models"
FLOOR = MODELS / "floor" / "floor.wrl"
HUMANOID = MODELS / "humanoid" / "humanoid.wrl"
sys.path.insert(0, str(REPO / "samples" / "controllers"))
import pd_controller  # noqa: E402
from conftest import assert_same  # noqa: E402

DT = 0.001
STEPS = 500


@pytest.fixture(scope="module")
def client(servers):
    for name in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(name):
            pytest.fail("%s was not started" % name, pytrace=False)
    return servers.client



def standing_torque_humanoid(sim):
    """The sample humanoid in torque mode at the PD law's pose, on the floor (as
    samples/projects/humanoid_squat.xml)."""
    sim.add_model("floor", FLOOR)
    sim.add_model("robot", HUMANOID)
    names = sim.joint_names("robot")
    q = np.array([-0.2 if ("_HIP_P" in n or "_ANKLE_P" in n) else 0.4 if "LEG_KNEE" in n
                  else -0.3 if "ARM_ELBOW" in n else 0.0 for n in names])
    sim.set_joint_mode("robot", "torque")
    sim.set_root_pose("robot", (0.0, 0.0, 0.82 - 0.6 * (1 - math.cos(0.2))))
    sim.set_joint_values("robot", q)
    sim.add_collision_pair("floor", "robot", friction=0.5)
    return names


def client_loop(client, one_call, engine):
    with hrpsim.Simulation(client, dt=DT, engine=engine) as sim:
        sim.one_call = one_call
        law = pd_controller.PDLaw(standing_torque_humanoid(sim))
        sim.start()
        used = sim._backend._one is not None

        def before(s):
            st = s.sensors("robot")
            s.set_joint_torques("robot", law.torques(s.steps * DT, st["q"], st["dq"]))
        out = []
        for _ in range(STEPS // 100):
            sim.step(100, before)
            out.append(sim.snapshot())
        return used, out


@pytest.mark.parametrize("engine", ["joint_space", "ode"])
def test_client_loop_one_call_is_bit_identical_to_three_calls(client, engine):
    used1, one = client_loop(client, True, engine)
    used3, three = client_loop(client, False, engine)
    assert used1 and not used3  # each path was taken
    assert_same(one, three)
    # the robot stands (a run where the torques never arrived would fall)
    assert one[-1]["robot"]["p"][0][2] > 0.6
    assert abs(one[-1]["time"] - STEPS * DT) < 1e-9


def test_step_with_checks_every_command_before_writing(client):
    """A bad command (wrong length, a value of 1e13) is refused with its reason and nothing is
    written (not even the good command before it); the
    plain form (no commands, n steps) returns the states getWorldState and
    getCharacterSensorState return."""
    from hrpsim import SchedulerIDL
    from hrpsim.errors import BadArgument, explained
    DS = OpenHRP.DynamicsSimulator
    with hrpsim.Simulation(client, dt=DT) as sim:
        n = len(standing_torque_humanoid(sim))
        sim.start()
        one = sim._backend._one
        before = sim.dynamics.getCharacterAllLinkData("robot", DS.JOINT_TORQUE)
        good = SchedulerIDL.JointCommand("robot", DS.JOINT_TORQUE, [1.0] * n)
        bad = SchedulerIDL.JointCommand("robot", DS.JOINT_TORQUE, [1.0] * (n - 1))
        with pytest.raises(BadArgument) as info:
            one.stepWith([good, bad], 1, True, ["robot"])
        assert "command 1: 'robot': JOINT_TORQUE needs %d numbers" % n in str(info.value)
        assert "got %d" % (n - 1) in str(info.value)
        # a huge value (the core's bound, 1e12) is refused by the same check, naming the joint
        huge = SchedulerIDL.JointCommand("robot", DS.JOINT_TORQUE, [1.0] * (n - 1) + [1e13])
        with pytest.raises(BadArgument) as info:
            one.stepWith([good, huge], 1, True, ["robot"])
        last = sim.joint_names("robot")[n - 1]
        assert "command 1: 'robot' link '%s': JOINT_TORQUE value 0 is 1e+13" % last \
            in str(info.value)
        plain = sim.dynamics
        assert list(plain.getCharacterAllLinkData("robot", DS.JOINT_TORQUE)) == list(before)
        # setCharacterAllLinkData: the same check, nothing of the request written
        q0 = list(plain.getCharacterAllLinkData("robot", DS.JOINT_VALUE))
        with pytest.raises(BadArgument) as info:
            explained(plain).setCharacterAllLinkData("robot", DS.JOINT_VALUE,
                                                     [0.25] * (n - 1) + [-1e13])
        assert "'robot' link '%s': JOINT_VALUE value 0 is -1e+13" % last in str(info.value)
        assert list(plain.getCharacterAllLinkData("robot", DS.JOINT_VALUE)) == q0
        assert plain.getWorldState().time == 0.0
        world, states = one.stepWith([], 3, True, ["robot", "floor"])
        full = plain.getWorldState()
        assert world.time == full.time == pytest.approx(3 * DT)
        assert [lp.p for lp in world.characterPositions[1].linkPositions] == \
            [lp.p for lp in full.characterPositions[1].linkPositions]
        bare, _ = one.stepWith([], 0, False, [])
        assert bare.time == full.time and len(bare.characterPositions) == 0
        ref = plain.getCharacterSensorState("robot")
        assert (list(states[0].q), list(states[0].dq)) == (list(ref.q), list(ref.dq))
        assert len(states) == 2 and len(states[1].q) == 0


def serve_pd(client, one_call, calls):
    """The sample PD controller servant, served from this process; returns (name, cleanup)."""
    import CosNaming
    servant = pd_controller.make_servant(0.6, one_call)
    for op in ("tick", "input", "output"):
        method = getattr(servant, op)

        def counted(*args, _m=method, _op=op):
            calls[_op] = calls.get(_op, 0) + 1
            return _m(*args)
        setattr(servant, op, counted)
    poa = client.orb.resolve_initial_references("RootPOA")
    poa._get_the_POAManager().activate()
    oid = poa.activate_object(servant)
    ref = poa.id_to_reference(oid)
    calls["is_one_call"] = ref._is_a("IDL:hrpsim/OneCallController:1.0")
    name = "one-call-pd-%s" % uuid.uuid4().hex[:8]
    path = [CosNaming.NameComponent(name, "")]
    client.root.rebind(path, ref)

    def cleanup():
        client.root.unbind(path)
        poa.deactivate_object(oid)
    return name, cleanup


def scheduler_run(client, one_call, period, engine):
    calls = {}
    name, cleanup = serve_pd(client, one_call, calls)
    try:
        with hrpsim.Simulation(client, backend="scheduler", dt=DT, engine=engine) as sim:
            standing_torque_humanoid(sim)
            sim.add_controller(name, "robot", period)
            out = []
            for _ in range(STEPS // 100):
                sim.step(100)
                out.append(sim.snapshot())
            return calls, out
    finally:
        cleanup()


# on both engines: the torques held for two steps (period 2 ms) were the edge of the ODE
# engine's stability that chose its chainIterations (dynamics/dynamics_options.c)
@pytest.mark.parametrize("engine", ["joint_space", "ode"])
@pytest.mark.parametrize("period", [DT, 2 * DT])
def test_scheduler_one_call_controller_is_bit_identical_to_three_calls(client, period, engine):
    calls1, one = scheduler_run(client, True, period, engine)
    calls3, three = scheduler_run(client, False, period, engine)
    ticks = STEPS // round(period / DT)
    # the one-call servant says so and gets tick() only (which calls input and output once
    # each: no remote input/output besides); the other gets input/output and no tick
    assert calls1["is_one_call"] and not calls3["is_one_call"]
    assert calls1.get("tick") == calls1.get("input") == calls1.get("output") == ticks
    assert calls3.get("input") == calls3.get("output") == ticks and "tick" not in calls3
    assert_same(one, three)
    assert one[-1]["robot"]["p"][0][2] > 0.6
