"""Runaways are reported, through CORBA against real servers.

The model: a pendulum (a 1 kg bar on a hinge, inertia 0.26 kg m^2 about the hinge) in torque
mode with a torque of 1e11 N m: 1e11 / 0.26 * 1 ms = 3.8e8 rad/s after one step, over the
speed bound of 1e8 rad/s, so the first step runs away. A box beside it falls freely, untouched.

- DynamicsSimulator: the step raises BAD_OPERATION, completed YES, minor code = the
  pendulum's index + 1; the log names the character; the step was made (time advanced, the box
  fell exactly one step of free fall); the pendulum is stopped where it was (finite, at rest),
  and once the torque is taken back the world steps on without another error.
- Scheduler: the run stops as FAILED with the character's name in the status message.
- hrpsim.Simulation: step() raises hrpsim.Runaway naming the character.
"""

import math
from pathlib import Path

import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP, SchedulerIDL
from hrpsim.models import OPENHRP_PROTOS

DS = OpenHRP.DynamicsSimulator
G = 9.8
DT = 0.001
TORQUE = 1e11

PENDULUM = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF PEND Humanoid {
  name "PEND"
  humanoidBody [
    DEF BASE Joint {
      jointType "fixed"
      translation 0 0 2
      children [
        DEF ARM Joint {
          jointType "rotate"
          jointId 0
          jointAxis 0 1 0
          children [
            Segment { mass 1 centerOfMass 0 0 -0.5
                      momentsOfInertia [ 0.01 0 0 0 0.01 0 0 0 0.01 ] }
          ]
        }
      ]
    }
  ]
  joints [ USE BASE USE ARM ]
}
"""

BOX = "#VRML V2.0 utf8\n" + OPENHRP_PROTOS + """
DEF RBOX Humanoid {
  name "RBOX"
  humanoidBody [
    DEF BOX Joint {
      jointType "free"
      children [ Segment { mass 1 momentsOfInertia [ 0.01 0 0 0 0.01 0 0 0 0.01 ]
                           children [ Shape { geometry Box { size 0.2 0.2 0.2 } } ] } ]
    }
  ]
}
"""


@pytest.fixture(scope="module")
def models(servers, tmp_path_factory):
    d = tmp_path_factory.mktemp("runaway")
    (d / "pendulum.wrl").write_text(PENDULUM)
    (d / "box.wrl").write_text(BOX)
    return d / "box.wrl", d / "pendulum.wrl"


def dynamics_log(servers):
    return Path(servers.state_dir) / "logs" / "hrpsim-dynamics.log"


def test_step_raises_naming_the_character_and_leaves_the_choice(servers, models):
    client = servers.client
    box, pend = (client.load_body(p) for p in models)
    log = dynamics_log(servers)
    before = log.stat().st_size
    sim = client.dynamics_simulator()
    try:
        sim.registerCharacter("box", box)
        sim.registerCharacter("pendulum", pend)
        sim.init(DT, DS.EULER, DS.DISABLE_SENSOR)
        sim.setCharacterLinkData("box", "BOX", DS.ABS_TRANSFORM,
                                 [5.0, 0.0, 1.0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        sim.initSimulation()
        sim.setCharacterLinkData("pendulum", "ARM", DS.JOINT_TORQUE, [TORQUE])
        with pytest.raises(CORBA.BAD_OPERATION) as info:
            sim.stepSimulation()
        assert info.value.completed == CORBA.COMPLETED_YES
        assert info.value.minor == 2  # "pendulum" is character 1
        text = log.read_text()[before:]
        assert "stepSimulation: character pendulum ran away after step 1" in text, text
        # the step was made: the box fell one step of free fall (v = g dt, x = g dt^2)
        ws = sim.getWorldState()
        assert ws.time == pytest.approx(DT, abs=1e-15)
        v = sim.getCharacterLinkData("box", "BOX", DS.ABS_VELOCITY)
        assert v[2] == pytest.approx(-G * DT, abs=1e-12)
        # the pendulum was stopped where the last good step left it: finite, at rest
        q = sim.getCharacterAllLinkData("pendulum", DS.JOINT_VALUE)
        dq = sim.getCharacterAllLinkData("pendulum", DS.JOINT_VELOCITY)
        assert q == [0.0] and dq == [0.0], (q, dq)
        # the client chooses: take the torque back and carry on
        sim.setCharacterLinkData("pendulum", "ARM", DS.JOINT_TORQUE, [0.0])
        for _ in range(20):
            sim.stepSimulation()
        q = sim.getCharacterAllLinkData("pendulum", DS.JOINT_VALUE)
        assert all(math.isfinite(x) for x in q)
        assert abs(q[0]) < 1e-9  # hanging straight down: no torque from gravity
    finally:
        sim.destroy()


def test_scheduler_run_stops_with_the_runaway_in_its_message(servers, models):
    s = servers.client.resolve("Scheduler", SchedulerIDL.Scheduler)
    s.reset()
    s.setTimeStep(DT)
    s.addModel("box", str(models[0]))
    s.addModel("pendulum", str(models[1]))
    s.setLinkData("pendulum", "ARM", DS.JOINT_TORQUE, [TORQUE])
    s.setEndTime(0.01)
    s.start()
    status = s.wait(60.0)
    assert status.state == SchedulerIDL.FAILED, status
    assert "stepSimulation failed at t = 0 s" in status.message, status.message
    assert "character pendulum ran away" in status.message, status.message
    s.reset()


def test_simulation_step_raises_runaway(servers, models):
    with hrpsim.Simulation(servers.client, dt=DT,
                           models={"box": models[0], "pendulum": models[1]}) as sim:
        sim.set_joint_torques("pendulum", [TORQUE])
        with pytest.raises(hrpsim.Runaway, match="character pendulum ran away") as info:
            sim.step(3)
        assert info.value.character == "pendulum"
        assert sim.steps == 1
        sim.set_joint_torques("pendulum", [0.0])
        sim.step(5)
        assert sim.steps == 6


def test_scheduler_simulation_names_the_runaway_character(servers, models):
    """Through the Scheduler, Simulation.step finds the character in the SchedulerError's
    description by the core's wording (hrpsim.core_facts.runaway_character), and the
    description is the core's message (hs_runawayMessage) after the scheduler's prefix."""
    from hrpsim import core_facts
    with hrpsim.Simulation(servers.client, dt=DT, scheduler=True,
                           models={"box": models[0], "pendulum": models[1]}) as sim:
        sim.set_joint_torques("pendulum", [TORQUE])
        with pytest.raises(hrpsim.Runaway) as info:
            sim.step(3)
        assert info.value.character == "pendulum"
        text = str(info.value)
        assert text.endswith(core_facts.runaway_message("pendulum", 1, "after")), text
