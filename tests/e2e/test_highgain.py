"""End-to-end tests of high gain as prescribed motion on the joint-space engine (docs/servers.md,
"The joint-space engine"), through hrpsim.Simulation on its three back ends (the in-process
core, OpenHRP's setCharacterAllLinkData on hrpsim-dynamics, the Scheduler):

- a pendulum (1 kg, com 0.5 m below a fixed pivot, I about the pivot 0.26 + rotor inertia
  0.01 x 5^2 = 0.51 kg m^2) in high gain, commanded q(t) = A sin(w t) as angle, velocity and
  acceleration before every step (set_joint_values, set_joint_velocities,
  set_joint_accelerations), ends every step at that angle and velocity (1e-9) and reports the
  torque inverse dynamics gives for the commanded acceleration from the step's start,
  I ddq + m g l sin(q_start) (1e-9 N m), as JOINT_TORQUE and in the sensor state;
- the same pendulum commanded by angles alone moves at their differences over the step
  (hrpsim's rule): its velocity misses the closed form by about A w^2 dt / 2.
"""

import math
from pathlib import Path

import pytest

import hrpsim

REPO = Path(__file__).resolve().parents[2]

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
  exposedField MFNode joints [ ] exposedField MFNode segments [ ] ]
{ Group { children IS humanoidBody } }
DEF PEND Humanoid { name "pendulum" humanoidBody [
  DEF BASE Joint { jointType "fixed" translation 0 0 2 children [
    DEF PIVOT Joint { jointType "rotate" jointId 0 jointAxis 0 1 0 rotorInertia 0.01
      gearRatio 5 children [
        Segment { mass 1 centerOfMass 0 0 -0.5
          momentsOfInertia [0.01 0 0 0 0.01 0 0 0 0.001] } ] } ] } ]
  joints [ USE BASE USE PIVOT ] }
"""

DT = 0.001
A, W = 0.3, 5.0
INERTIA = 0.01 + 1.0 * 0.5 ** 2 + 0.01 * 5 ** 2   # about the pivot, armature included
MGL = 1.0 * 9.8 * 0.5
STEPS = 300
BACKENDS = ["local", "server", "scheduler"]


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory):
    path = tmp_path_factory.mktemp("highgain") / "pendulum.wrl"
    path.write_text(PENDULUM_WRL)
    return path


@pytest.fixture(scope="module")
def client(servers):
    for name in ("DynamicsSimulatorFactory", "Scheduler"):
        if not servers.has(name):
            pytest.fail("%s was not started" % name, pytrace=False)
    return servers.client


def make(backend, client):
    if backend == "local":
        return hrpsim.Simulation(backend="local", dt=DT, engine="joint_space")
    return hrpsim.Simulation(client, backend=backend, dt=DT, engine="joint_space")


def closed_form(t):
    """q, dq, ddq of A sin(W t)."""
    return A * math.sin(W * t), A * W * math.cos(W * t), -A * W * W * math.sin(W * t)


def follow(sim, pendulum, full):
    """STEPS steps of the sine commanded (angle, velocity and acceleration when full, else
    the angle alone): the largest angle, velocity and torque errors."""
    sim.add_model("pend", pendulum)
    sim.set_joint_mode("pend", "high_gain")
    sim.step(1)                                             # started, holding at 0
    worst = [0.0, 0.0, 0.0]
    for n in range(1, STEPS + 1):
        q, dq, ddq = closed_form(n * DT)
        q_start = float(sim.q("pend")[0])
        sim.set_joint_values("pend", [q])
        if full:
            sim.set_joint_velocities("pend", [dq])
            sim.set_joint_accelerations("pend", [ddq])
        sim.step(1)
        torque = INERTIA * ddq + MGL * math.sin(q_start)
        worst[0] = max(worst[0], abs(float(sim.q("pend")[0]) - q))
        worst[1] = max(worst[1], abs(float(sim.dq("pend")[0]) - dq))
        worst[2] = max(worst[2], abs(float(sim.u("pend")[0]) - torque))
    state = sim.sensors("pend")                             # the sensor state says the same
    assert (state["q"][0], state["dq"][0], state["u"][0]) == (
        sim.q("pend")[0], sim.dq("pend")[0], sim.u("pend")[0])
    return worst


@pytest.mark.parametrize("backend", BACKENDS)
def test_high_gain_follows_commanded_angle_velocity_and_acceleration(backend, client,
                                                                     pendulum):
    with make(backend, client) as sim:
        err = follow(sim, pendulum, True)
    assert err[0] < 1e-9
    assert err[1] < 1e-9
    assert err[2] < 1e-9


@pytest.mark.parametrize("backend", ["local", "server"])
def test_angles_alone_move_at_their_differences(backend, client, pendulum):
    with make(backend, client) as sim:
        err = follow(sim, pendulum, False)
    assert err[0] < 1e-12                                   # the angle is reached
    # the difference over a step is the closed form's velocity half a step back:
    # off by A W^2 dt / 2 |sin| at most, 3.75e-3 rad/s; somewhere above half of that
    assert 0.5 * A * W * W * DT / 2 < err[1] <= A * W * W * DT / 2 + 1e-5
