#!/usr/bin/env python3
"""A scripted controller: a sine on one high-gain joint, and track speeds on a timetable.

    .venv/bin/python samples/controllers/joint_script.py [--name JointScript]
        [--sine JOINT:AMPLITUDE:FREQUENCY[:OFFSET]] [--tracks LEFT,RIGHT]
        [--at T:SPEED_LEFT:SPEED_RIGHT ...] -ORBInitRef NameService=corbaloc:...

An OpenHRP ``Controller`` servant (omniORBpy, on ``hrpsim.controller.Controller``) for the
closed-loop and crawler samples. It binds itself in the naming service as ``--name``, and at
every control period writes, for the character the scheduler names with ``setModelName``:

- ``--sine``: JOINT_VALUE of JOINT = OFFSET + AMPLITUDE sin(2 pi FREQUENCY t) [rad, Hz], a
  command for a high-gain joint (the closed-chain leg's hip motor). The value written in
  ``output()`` is the one for the end of the next step (t + period).
- ``--tracks LEFT,RIGHT`` and ``--at T:UL:UR`` (repeatable): from time T [s] on, the two crawler
  links' track speeds UL, UR [m/s], written as JOINT_TORQUE (OpenHRP's convention for a
  crawler's speed).

It runs until SIGINT/SIGTERM, which unbind the name and exit with status 0. The naming service
comes from ``-ORBInitRef NameService=...`` (`hrpsim run` appends it), else ``$HRPSIM_NAMING``,
else `hrpsim up`'s state.
"""

import argparse
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "python"))


def parse_sine(text):
    """JOINT:AMPLITUDE:FREQUENCY[:OFFSET] -> (joint, amplitude, frequency, offset)."""
    parts = text.split(":")
    if len(parts) not in (3, 4):
        raise argparse.ArgumentTypeError("--sine needs JOINT:AMPLITUDE:FREQUENCY[:OFFSET]")
    nums = [float(x) for x in parts[1:]]
    return parts[0], nums[0], nums[1], nums[2] if len(nums) == 3 else 0.0


def parse_at(text):
    """T:UL:UR -> (t, ul, ur)."""
    parts = text.split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError("--at needs T:SPEED_LEFT:SPEED_RIGHT")
    return tuple(float(x) for x in parts)


class Script:
    """What to write at time t, independent of CORBA: [(link, type name, value)]."""

    def __init__(self, sine=None, tracks=None, timetable=()):
        self.sine = sine
        self.tracks = tracks
        self.timetable = sorted(timetable)

    def commands(self, t):
        out = []
        if self.sine is not None:
            joint, amp, freq, off = self.sine
            out.append((joint, "JOINT_VALUE", off + amp * math.sin(2 * math.pi * freq * t)))
        if self.tracks is not None:
            speeds = (0.0, 0.0)
            for t0, ul, ur in self.timetable:
                if t >= t0 - 1e-9:
                    speeds = (ul, ur)
            out.append((self.tracks[0], "JOINT_TORQUE", speeds[0]))
            out.append((self.tracks[1], "JOINT_TORQUE", speeds[1]))
        return out


def make_servant(script):
    """The JointScript servant for ``script`` (made once the ORB is up)."""
    from hrpsim import OpenHRP
    from hrpsim.controller import Controller
    DS = OpenHRP.DynamicsSimulator

    class JointScript(Controller):
        def start(self):
            super().start()
            self._write(0.0)  # the speeds of time 0 act from the first step

        # control(): the base class's, which counts the period

        def output(self):
            # written after this tick's step: the command is for the end of the next one
            self._write((self.count + 1) * self.dt)

        def _write(self, t):
            for link, type_name, value in script.commands(t):
                self.dynamics.setCharacterLinkData(self.model_name, link,
                                                   getattr(DS, type_name), [value])

    return JointScript()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", default="JointScript",
                    help="name to bind in the naming service (default JointScript)")
    ap.add_argument("--sine", type=parse_sine, default=None,
                    help="JOINT:AMPLITUDE:FREQUENCY[:OFFSET], a high-gain joint's sine [rad, Hz]")
    ap.add_argument("--tracks", default=None, help="LEFT,RIGHT: the crawler links")
    ap.add_argument("--at", type=parse_at, action="append", default=[],
                    help="T:SPEED_LEFT:SPEED_RIGHT, track speeds from time T [s, m/s]")
    args, orb_args = ap.parse_known_args()
    tracks = None
    if args.tracks:
        tracks = args.tracks.split(",")
        if len(tracks) != 2:
            ap.error("--tracks needs LEFT,RIGHT")

    from hrpsim.controller import serve
    return serve(lambda: make_servant(Script(args.sine, tracks, args.at)), args.name, orb_args,
                 label="JointScript")


if __name__ == "__main__":
    # leave without the interpreter's finalisation: an omniORB thread still winding down
    # while it runs is cancelled when it asks for the GIL, and the process aborts
    # (see hrpsim._orb.end_server_process)
    status = main()
    from hrpsim import _orb as orb_helpers
    orb_helpers.end_server_process(None, status)
