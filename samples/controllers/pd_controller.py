#!/usr/bin/env python3
"""A PD controller for the sample humanoid: stand in torque mode, squat, stand up again.

    .venv/bin/python samples/controllers/pd_controller.py [--name PDController]
        [--squat 0.6] -ORBInitRef NameService=corbaloc:iiop:127.0.0.1:PORT/NameService

An OpenHRP ``Controller`` servant (omniORBpy) on ``hrpsim.controller.Controller``, which
answers the configuration calls; this file has the control law and input/control/output. It
registers itself in the naming service under ``--name`` (default "PDController"), waits for a
scheduler (hrpsim's Scheduler, or any OpenHRP scheduler) to call it, and runs until
SIGINT/SIGTERM, which unbind the name, let calls in progress finish and exit with status 0.
The naming service comes from ``-ORBInitRef NameService=...`` (`hrpsim run` appends it), else
``$HRPSIM_NAMING``, else `hrpsim up`'s state.

Each control period: ``input()`` reads q and dq of its character (``setModelName``) with
``sensor_state()`` (``getCharacterSensorState``); ``control()`` computes tau = P (q_ref - q) +
D (dq_ref - dq) per joint; ``output()`` writes tau with ``command(JOINT_TORQUE, tau)``
(``setCharacterAllLinkData``) in jointId order. Under hrpsim's scheduler the three run in one
call per tick (``tick``, hrpsim.controller); ``--three-call`` offers OpenHRP's three calls only.
Every joint of the character must be in torque mode (the project sets it). As the tick order
puts ``output()`` after the step, tau acts one step after q was read: the law takes the
reference one period ahead and extrapolates q by dq * period.

The reference: the bent-knee pose (hip pitch -a, knee 2a, ankle pitch -a, a = 0.2 rad) keeps
the feet flat and the torso upright. Between t = 1 s and 2.5 s a rises smoothly (cosine
blend) to ``--squat`` (0.6 rad: the waist drops by about 9 cm), holds until 3 s, and returns
to 0.2 rad by 4.5 s. Time is counted from ``start()`` in control periods (``setTimeStep``).

Gains are per joint group (P in N m/rad, D in N m s/rad): each is about the stiffest the
group's own inertia allows with a 1 ms explicit torque update (the light wrist and neck joints
would go unstable with the legs' gains). They were tuned on the ODE engine, without the
model's rotor inertia; the joint-space engine, the default, adds rotorInertia x gearRatio^2 to
each joint's inertia, which only raises that limit.
"""

import argparse
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

BEND = 0.2          # standing knee bend parameter a [rad]
T_DOWN = (1.0, 2.5)  # squat down between these times [s]
T_UP = (3.0, 4.5)    # and back up

# (name fragment, P, D), first match wins
GAINS = (
    ("LEG_HIP_Y", 1000.0, 5.0),
    ("LEG_HIP_R", 2000.0, 10.0),
    ("LEG_HIP_P", 2500.0, 12.0),
    ("LEG_KNEE", 2500.0, 12.0),
    ("LEG_ANKLE_P", 1500.0, 8.0),
    ("LEG_ANKLE_R", 1200.0, 6.0),
    ("CHEST", 1500.0, 8.0),
    ("NECK", 50.0, 0.2),
    ("ARM_SHOULDER", 300.0, 0.75),
    ("ARM_ELBOW", 150.0, 0.4),
    ("ARM_WRIST_Y", 5.0, 0.02),
    ("ARM_WRIST", 20.0, 0.05),
)
DEFAULT_GAIN = (100.0, 1.0)


def blend(t, t0, t1):
    """0 before t0, 1 after t1, a cosine ramp between (and its time derivative)."""
    if t <= t0:
        return 0.0, 0.0
    if t >= t1:
        return 1.0, 0.0
    u = (t - t0) / (t1 - t0)
    return 0.5 - 0.5 * math.cos(math.pi * u), 0.5 * math.pi * math.sin(math.pi * u) / (t1 - t0)


def bend_at(t, squat):
    """The knee bend parameter a(t) and its rate [rad, rad/s]."""
    down, ddown = blend(t, *T_DOWN)
    up, dup = blend(t, *T_UP)
    s, ds = down - up, ddown - dup
    return BEND + (squat - BEND) * s, (squat - BEND) * ds


class PDLaw:
    """The control law, independent of CORBA: joint names in jointId order in, torques out."""

    def __init__(self, joint_names, squat=0.6):
        self.names = list(joint_names)
        self.squat = squat
        self.p, self.d, self.pattern = [], [], []
        for name in self.names:
            gain = next(((p, d) for frag, p, d in GAINS if frag in name), DEFAULT_GAIN)
            self.p.append(gain[0])
            self.d.append(gain[1])
            if "_HIP_P" in name or "_ANKLE_P" in name:
                self.pattern.append(-1.0)
            elif "LEG_KNEE" in name:
                self.pattern.append(2.0)
            else:
                self.pattern.append(0.0)
        self.offset = [-0.3 if "ARM_ELBOW" in n else 0.0 for n in self.names]

    def reference(self, t):
        a, da = bend_at(t, self.squat)
        q = [o + k * a for o, k in zip(self.offset, self.pattern)]
        dq = [k * da for k in self.pattern]
        return q, dq

    def torques(self, t, q, dq, lead=0.0):
        """tau for the state (q, dq) read at time t, to be applied ``lead`` seconds later:
        the reference is taken at t + lead and q extrapolated to it (q + dq lead)."""
        if lead:
            q = [a + b * lead for a, b in zip(q, dq)]
        qr, dqr = self.reference(t + lead)
        return [p * (a - b) + d * (c - e)
                for p, d, a, b, c, e in zip(self.p, self.d, qr, q, dqr, dq)]


def joint_names(body_links):
    """Names of the links with a jointId, in jointId order."""
    named = sorted((lk.jointId, lk.name) for lk in body_links if lk.jointId >= 0)
    return [n for _, n in named]


def make_servant(squat, one_call=True):
    """The PDController servant (made once the ORB is up); one_call=False: OpenHRP's three
    calls per tick only."""
    from hrpsim import OpenHRP
    from hrpsim.controller import Controller
    DS = OpenHRP.DynamicsSimulator

    class PDController(Controller):
        one_call = True  # output() only calls command()

        def __init__(self):
            super().__init__(one_call=one_call)
            self.law = None
            self.q = self.dq = self.tau = None

        def initialize(self):
            super().initialize()
            self.law = None

        # --- the tick ---
        def input(self):
            state = self.sensor_state()
            self.q, self.dq = list(state.q), list(state.dq)
            if self.law is None:
                self.law = PDLaw(self._names(len(self.q)), squat)

        def control(self):
            # output() writes tau after this tick's step, so it acts during the next one
            self.tau = self.law.torques(self.time, self.q, self.dq, lead=self.dt)

        def output(self):
            if self.tau is not None:
                self.command(DS.JOINT_TORQUE, self.tau)

        def _names(self, n):
            # the humanoid's jointId order (samples/models/README.md), without a ModelLoader
            # round trip: RLEG 0-5, LLEG 6-11, CHEST_P, CHEST_Y, NECK_Y, NECK_P, RARM, LARM
            leg = ["HIP_Y", "HIP_R", "HIP_P", "KNEE", "ANKLE_P", "ANKLE_R"]
            arm = ["SHOULDER_P", "SHOULDER_R", "SHOULDER_Y", "ELBOW", "WRIST_Y", "WRIST_P",
                   "WRIST_R"]
            names = (["RLEG_" + j for j in leg] + ["LLEG_" + j for j in leg]
                     + ["CHEST_P", "CHEST_Y", "NECK_Y", "NECK_P"]
                     + ["RARM_" + j for j in arm] + ["LARM_" + j for j in arm])
            if n != len(names):
                raise OpenHRP.Controller.ControllerException(
                    "PDController: %r has %d joints, expected the sample humanoid's %d"
                    % (self.model_name, n, len(names)))
            return names

    return PDController()


def local_controller():
    """The controller for `hrpsim run --local` (the project's python="...:local_controller"):
    the same servant, made in process with the default squat."""
    return make_servant(0.6)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", default="PDController",
                    help="name to bind in the naming service (default PDController)")
    ap.add_argument("--squat", type=float, default=0.6,
                    help="deepest knee bend parameter a [rad] (default 0.6)")
    ap.add_argument("--three-call", action="store_true",
                    help="offer only OpenHRP's input/control/output (not hrpsim's one call "
                    "per tick)")
    args, orb_args = ap.parse_known_args()

    from hrpsim.controller import serve
    if args.three_call:
        def make():
            return make_servant(args.squat, one_call=False)
    else:
        def make():  # make_servant(squat) alone: scripts that wrap it keep working
            return make_servant(args.squat)
    return serve(make, args.name, orb_args, label="PDController")


if __name__ == "__main__":
    # leave without the interpreter's finalisation: an omniORB thread still winding down
    # while it runs is cancelled when it asks for the GIL, and the process aborts
    # (see hrpsim._orb.end_server_process)
    status = main()
    from hrpsim import _orb as orb_helpers
    orb_helpers.end_server_process(None, status)
