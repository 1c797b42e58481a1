#!/usr/bin/env python3
"""A PD controller for the sample MJCF quadruped: stand, crouch, stand again.

    .venv/bin/python samples/controllers/quadruped_stand.py [--name QuadrupedStand]
        -ORBInitRef NameService=corbaloc:iiop:127.0.0.1:PORT/NameService

The robot is samples/models/mjcf/quadruped/quadruped.xml, loaded from its MJCF file: twelve
joints in jointId order fl, fr, hl, hr x (abd, hip, knee). An OpenHRP ``Controller`` servant
on ``hrpsim.controller.Controller`` as samples/controllers/pd_controller.py is: each tick it
reads q and dq, computes tau = P (q_ref - q) + D (dq_ref - dq) with the reference one control
period ahead, and writes tau (every joint in torque mode; the project sets it), clipped to the
30 N m the model's motors allow (their climit).

The reference: abduction 0; hip pitch h and knee -2h keep each foot under its hip, lowering
the torso by 2 x 0.18 (1 - cos h) (shin and thigh are both about 0.18 m). h rises from 0.3 rad
to 0.7 rad between t = 0.5 s and 1.5 s (cosine blend), holds until 2 s and returns to 0.3 rad
by 3 s.
"""

import argparse
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

STAND, CROUCH = 0.3, 0.7     # hip pitch h [rad]
T_DOWN = (0.5, 1.5)          # crouch between these times [s]
T_UP = (2.0, 3.0)            # and back up
GAINS = {"abd": (150.0, 3.0), "hip": (150.0, 3.0), "knee": (150.0, 3.0)}  # P [N m/rad], D
LIMIT = 30.0                 # the motors' torque limit [N m]
LEGS = ("fl", "fr", "hl", "hr")


def blend(t, t0, t1):
    """0 before t0, 1 after t1, a cosine ramp between, and its time derivative."""
    if t <= t0:
        return 0.0, 0.0
    if t >= t1:
        return 1.0, 0.0
    u = (t - t0) / (t1 - t0)
    return 0.5 - 0.5 * math.cos(math.pi * u), 0.5 * math.pi * math.sin(math.pi * u) / (t1 - t0)


class StandLaw:
    """The control law, independent of CORBA: (t, q, dq) in jointId order -> tau."""

    names = ["%s_%s" % (leg, j) for leg in LEGS for j in ("abd", "hip", "knee")]

    def reference(self, t):
        down, ddown = blend(t, *T_DOWN)
        up, dup = blend(t, *T_UP)
        h = STAND + (CROUCH - STAND) * (down - up)
        dh = (CROUCH - STAND) * (ddown - dup)
        q, dq = [], []
        for name in self.names:
            k = {"abd": 0.0, "hip": 1.0, "knee": -2.0}[name.split("_")[1]]
            q.append(k * h)
            dq.append(k * dh)
        return q, dq

    def torques(self, t, q, dq, lead=0.0):
        q = [a + b * lead for a, b in zip(q, dq)]
        qr, dqr = self.reference(t + lead)
        tau = []
        for name, a, b, c, d in zip(self.names, qr, q, dqr, dq):
            p, dd = GAINS[name.split("_")[1]]
            tau.append(max(-LIMIT, min(LIMIT, p * (a - b) + dd * (c - d))))
        return tau


def make_servant():
    from hrpsim import OpenHRP
    from hrpsim.controller import Controller
    DS = OpenHRP.DynamicsSimulator

    class QuadrupedStand(Controller):
        one_call = True

        def __init__(self):
            super().__init__(one_call=True)
            self.law = StandLaw()
            self.q = self.dq = self.tau = None

        def input(self):
            state = self.sensor_state()
            self.q, self.dq = list(state.q), list(state.dq)
            if len(self.q) != len(self.law.names):
                raise OpenHRP.Controller.ControllerException(
                    "QuadrupedStand: %r has %d joints, expected the sample quadruped's %d"
                    % (self.model_name, len(self.q), len(self.law.names)))

        def control(self):
            self.tau = self.law.torques(self.time, self.q, self.dq, lead=self.dt)

        def output(self):
            if self.tau is not None:
                self.command(DS.JOINT_TORQUE, self.tau)

    return QuadrupedStand()


def local_controller():
    """The controller for `hrpsim run --local` (the project's python="...:local_controller")."""
    return make_servant()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", default="QuadrupedStand",
                    help="name to bind in the naming service (default QuadrupedStand)")
    args, orb_args = ap.parse_known_args()
    from hrpsim.controller import serve
    return serve(make_servant, args.name, orb_args, label="QuadrupedStand")


if __name__ == "__main__":
    # leave without the interpreter's finalisation (see samples/controllers/pd_controller.py)
    status = main()
    from hrpsim import _orb as orb_helpers
    orb_helpers.end_server_process(None, status)
