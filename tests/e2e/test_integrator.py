"""End-to-end tests of the integration method (OpenHRP's IntegrateMethod; docs/servers.md,
"The joint-space engine") through every door where it arrives.

A pendulum (1 kg, com 0.5 m below a fixed pivot, 0.01 kg m^2 about the com: I = 0.26 kg m^2
about the pivot, m g l = 4.9 N m) released from 2 rad in torque mode, 1 ms steps. On the
joint-space engine RUNGE_KUTTA is the classical fourth-order step: after 1 s its angle and
rate are those of a classical RK4 of I q'' = -m g l sin q written here (the same arithmetic to
rounding: within 1e-11 rad, 1e-10 rad/s), and EULER's are 1e-4 rad away from them. On the ODE
engine RUNGE_KUTTA steps as EULER, to the bit. Doors: hrpsim.Simulation(method=...) on the
local, server and scheduler back ends; OpenHRP's DynamicsSimulator::init(timeStep,
RUNGE_KUTTA, ...) on the dynamics server (joint-space engine through hrpsim's setSolver).
"""

import math

import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP
from hrpsim.models import OPENHRP_PROTOS

DS = OpenHRP.DynamicsSimulator

PENDULUM_WRL = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF PEND Humanoid { name "pendulum" humanoidBody [
  DEF BASE Joint { jointType "fixed" translation 0 0 2 children [
    DEF PIVOT Joint { jointType "rotate" jointId 0 jointAxis 0 1 0 children [
        Segment { mass 1 centerOfMass 0 0 -0.5
          momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.001] } ] } ] } ]
  joints [ USE BASE USE PIVOT ] }
"""

DT = 0.001
STEPS = 1000
Q0 = 2.0


def reference(steps=STEPS, dt=DT):
    """Classical RK4 of I q'' = -m g l sin q from (Q0, 0): (q, dq) after steps."""
    c = 4.9 / 0.26
    q, v = Q0, 0.0
    for _ in range(steps):
        a1 = -c * math.sin(q)
        q2, v2 = q + dt / 2 * v, v + dt / 2 * a1
        a2 = -c * math.sin(q2)
        q3, v3 = q + dt / 2 * v2, v + dt / 2 * a2
        a3 = -c * math.sin(q3)
        q4, v4 = q + dt * v3, v + dt * a3
        a4 = -c * math.sin(q4)
        q, v = (q + dt / 6 * (v + 2 * v2 + 2 * v3 + v4),
                v + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4))
    return q, v


@pytest.fixture(scope="module")
def client(servers):
    for name in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(name):
            pytest.fail("%s was not started" % name, pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("integrator") / "pendulum.wrl"
    path.write_text(PENDULUM_WRL)
    return path


def swing(backend, client, model, engine, method):
    """The pendulum's (q, dq) after STEPS on a Simulation."""
    kw = dict(dt=DT, engine=engine, method=method)
    sim = (hrpsim.Simulation(backend="local", **kw) if backend == "local"
           else hrpsim.Simulation(client, backend=backend, **kw))
    with sim:
        sim.add_model("pend", model)
        sim.set_joint_mode("pend", "torque")
        sim.set_joint_values("pend", [Q0])
        sim.step(STEPS)
        return float(sim.q("pend")[0]), float(sim.dq("pend")[0])


@pytest.mark.parametrize("backend", ["local", "server", "scheduler"])
def test_runge_kutta_reaches_the_joint_space_engine(backend, client, model):
    q, v = reference()
    rk = swing(backend, client, model, "joint_space", "runge_kutta")
    eu = swing(backend, client, model, "joint_space", "euler")
    assert rk[0] == pytest.approx(q, abs=1e-11)
    assert rk[1] == pytest.approx(v, abs=1e-10)
    assert abs(eu[0] - q) > 1e-4                 # EULER: first order, really another method


@pytest.mark.parametrize("backend", ["local", "server", "scheduler"])
def test_runge_kutta_is_euler_on_the_ode_engine(backend, client, model):
    assert (swing(backend, client, model, "ode", "runge_kutta")
            == swing(backend, client, model, "ode", "euler"))


def openhrp_swing(client, body, method):
    """(q, dq) after STEPS through OpenHRP's calls, init(DT, method, ...) on the joint-space
    engine."""
    from hrpsim._idl import hrpsim as H
    sim = client.dynamics_simulator()._narrow(H.DynamicsSimulator)
    try:
        sim.setSolver("joint_space", [])
        sim.registerCharacter("pend", body)
        sim.init(DT, method, DS.DISABLE_SENSOR)
        sim.setGVector([0, 0, 9.8])
        sim.setCharacterAllJointModes("pend", DS.TORQUE_MODE)
        sim.setCharacterLinkData("pend", "PIVOT", DS.JOINT_VALUE, [Q0])
        sim.calcWorldForwardKinematics()
        sim.initSimulation()
        for _ in range(STEPS):
            sim.stepSimulation()
        return (sim.getCharacterLinkData("pend", "PIVOT", DS.JOINT_VALUE)[0],
                sim.getCharacterLinkData("pend", "PIVOT", DS.JOINT_VELOCITY)[0])
    finally:
        try:
            sim.destroy()
        except CORBA.OBJECT_NOT_EXIST:
            pass


def test_openhrp_init_with_runge_kutta(client, model):
    body = client.load_body(model)
    q, v = reference()
    rk = openhrp_swing(client, body, DS.RUNGE_KUTTA)
    eu = openhrp_swing(client, body, DS.EULER)
    assert rk[0] == pytest.approx(q, abs=1e-11)
    assert rk[1] == pytest.approx(v, abs=1e-10)
    assert abs(eu[0] - q) > 1e-4
