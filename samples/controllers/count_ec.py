#!/usr/bin/env python3
"""An ExtTrig-style OpenRTM execution context that only counts its ticks.

    .venv/bin/python samples/controllers/count_ec.py [PERIOD] [--naming CORBALOC]
        [--clock ClockGenerator] [--count-file FILE]

OpenRTM-aist's externally triggered execution context runs its components once per ``tick()``;
hrpsim's scheduler server implements OpenHRP's ClockGenerator, which calls ``tick()`` on every
subscribed context whenever PERIOD seconds (default 0.005) of simulated time have passed, in
step with the physics. This sample is the smallest such context: a servant of
``OpenRTM::ExtTrigExecutionContextService`` that adds one to a counter per tick. It subscribes
itself to the ClockGenerator found in the naming service (``--naming``, else
``$HRPSIM_NAMING``, else ``hrpsim up``'s state), prints ``subscribed`` once it is, and serves
until SIGINT or SIGTERM; then it unsubscribes and prints ``ticks: N`` (also written to
``--count-file`` if given). Exit status 0, or 1 with a one-line reason on stderr.
"""

import argparse
import signal
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "python"))

import hrpsim  # noqa: E402


def make_context_class():
    """The servant class (built on first use: it needs the generated stubs)."""
    from hrpsim import OpenRTM__POA

    class CountingContext(OpenRTM__POA.ExtTrigExecutionContextService):
        """Counts tick() calls; thread-safe (omniORB may call from any pool thread)."""

        def __init__(self):
            self._lock = threading.Lock()
            self.ticks = 0

        def tick(self):
            with self._lock:
                self.ticks += 1

    return CountingContext


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("period", nargs="?", type=float, default=0.005,
                    help="tick period in simulated seconds (default 0.005)")
    ap.add_argument("--naming", help="naming service corbaloc (default: HRPSIM_NAMING or "
                    "hrpsim up's state)")
    ap.add_argument("--clock", default="ClockGenerator",
                    help="name of the ClockGenerator in the naming service")
    ap.add_argument("--count-file", help="also write the final count to this file")
    args = ap.parse_args()
    if not args.period > 0:
        ap.error("PERIOD must be positive")

    # SIGINT/SIGTERM end the wait below
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())

    try:
        from hrpsim import OpenHRP
        client = hrpsim.connect(args.naming)
        clock = client.resolve(args.clock, OpenHRP.ClockGenerator)
        poa = client.orb.resolve_initial_references("RootPOA")
        poa._get_the_POAManager().activate()
        servant = make_context_class()()
        ec = servant._this()
        clock.subscribe(ec, args.period)
    except Exception as exc:  # noqa: BLE001 - a one-line reason, whatever failed
        print("count_ec: %s: %s" % (type(exc).__name__, exc), file=sys.stderr)
        return 1
    print("subscribed to %s with period %g s" % (args.clock, args.period), flush=True)
    while not done.wait(0.2):
        pass
    try:
        clock.unsubscribe(ec)
    except Exception as exc:  # noqa: BLE001 - the scheduler may be gone already
        print("count_ec: unsubscribe failed: %s" % type(exc).__name__, file=sys.stderr)
    print("ticks: %d" % servant.ticks, flush=True)
    if args.count_file:
        Path(args.count_file).write_text("%d\n" % servant.ticks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
