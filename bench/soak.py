#!/usr/bin/env python3
"""Soak test: many clients making mixed calls for a long time; requests, errors, RSS, latency.

    .venv/bin/python bench/soak.py [--duration 600] [--clients 8] [--warmup 60]
        [--naming CORBALOC | --state-dir DIR] [--sample 10] [--json OUT]

The load is hrpsim.loadtest's (the same as the CI stress test, tests/e2e/test_stress.py):
each client a process of its own, drawing ModelLoader calls (cached and fresh loads, large
replies, a missing file that must be refused) and DynamicsSimulator calls on a world of its
own (steps, commands, states, sensors, an unknown character that must be refused, and
destroying and re-creating the world). With --naming or --state-dir the running servers are
used (their RSS is sampled when the state dir is known); otherwise a ModelLoader and a
dynamics server are started in a temporary state dir and stopped at the end.

Printed: a progress line every minute (requests so far, errors, each server's RSS), then per
kind of call the requests served, the errors and the latency percentiles (p50, p90, p99,
max), and for each server its RSS at start, peak and end, what it gained after the warm-up
(--warmup seconds after every client is calling) and the slope of a straight line through
the samples after warm-up, plus the RSS every minute. Exit status 1 if any request failed,
a server died, or a server's RSS grew more than --max-growth MiB after warm-up.
"""

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from hrpsim import launcher, loadtest  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=600.0,
                    help="seconds of load per client (default 600)")
    ap.add_argument("--clients", type=int, default=8, help="client processes (default 8)")
    ap.add_argument("--warmup", type=float, default=60.0,
                    help="seconds after which RSS must stay flat (default 60)")
    ap.add_argument("--sample", type=float, default=10.0,
                    help="RSS sampling period [s] (default 10)")
    ap.add_argument("--max-growth", type=float, default=8.0,
                    help="MiB a server may gain after warm-up (default 8)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the clients' call mix")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--naming", help="use the servers of this naming service (RSS not sampled)")
    src.add_argument("--state-dir", help="use the servers `hrpsim up` started in DIR")
    ap.add_argument("--json", help="also write the figures (and the RSS samples) to this file")
    args = ap.parse_args()

    tmp = None
    if args.naming:
        naming, servers = args.naming, {}
    elif args.state_dir:
        state = launcher.read_state(args.state_dir)
        if state is None:
            ap.error("nothing running in %s" % args.state_dir)
        naming = state["naming"]
        servers = {r["pid"]: r["name"] for r in state["processes"] if r["kind"] == "server"}
    else:
        tmp = tempfile.TemporaryDirectory(prefix="hrpsim-soak-")
        state = launcher.up(state_dir=tmp.name, only=["ModelLoader", "DynamicsSimulatorFactory"],
                            timeout=30.0)
        naming = state["naming"]
        servers = {r["pid"]: r["name"] for r in state["processes"] if r["kind"] == "server"}
    print("soak: %d clients x %g s against %s (servers: %s)"
          % (args.clients, args.duration, naming,
             ", ".join("%s pid %d" % (n, p) for p, n in servers.items()) or "not sampled"),
          flush=True)

    last = [0.0]

    def progress(report, elapsed):
        if elapsed - last[0] < 60.0:
            return
        last[0] = elapsed
        rss = report.rss[-1][1] if report.rss else {}
        print("  %6.0f s: %9d requests, %d errors; RSS %s"
              % (elapsed, report.total_requests, report.total_errors,
                 ", ".join("%s %.1f MiB" % (servers.get(p, p), v / 2**20)
                           for p, v in rss.items())), flush=True)

    try:
        report = loadtest.run_load(naming, clients=args.clients, duration=args.duration,
                                   server_pids=list(servers), seed=args.seed,
                                   sample_every=args.sample, progress=progress)
        alive = {p: launcher.proc_stat(p) is not None for p in servers}
    finally:
        if tmp is not None:
            launcher.down(tmp.name)
            tmp.cleanup()

    print("\n".join(loadtest.format_report(report, servers, args.warmup)))
    ok = report.total_errors == 0
    figures = {"clients": args.clients, "duration": args.duration, "wall": report.wall,
               "started": report.started, "requests": report.requests,
               "errors": report.errors, "messages": report.messages, "servers": {}}
    for kind in [k for k, _ in loadtest.MIX] + [None]:
        figures.setdefault("latency_ms", {})[kind or "all"] = {
            str(q): v * 1e3 for q, v in report.percentiles(kind).items()}
    for pid, name in servers.items():
        t, r = report.rss_series(pid)
        growth, slope = report.rss_growth(pid, args.warmup)
        samples = [(float(ti), float(ri)) for ti, ri in zip(t, r)]
        # one sample per minute (the first of each), and the last
        per_minute = {}
        for ti, ri in samples:
            per_minute.setdefault(int(ti // 60), ri)
        shown = list(per_minute.values()) + [samples[-1][1]]
        print("RSS of %s, each minute and at the end [MiB]: %s"
              % (name, " ".join("%.1f" % (ri / 2**20) for ri in shown)))
        figures["servers"][name] = {
            "pid": pid, "alive": alive[pid], "rss_start": float(r[0]),
            "rss_peak": float(r.max()), "rss_end": float(r[-1]), "growth_after_warmup": growth,
            "slope_bytes_per_s": slope, "rss": samples}
        if not alive[pid]:
            print("soak: %s (pid %d) died" % (name, pid))
            ok = False
        if not math.isnan(growth) and growth > args.max_growth * 2**20:
            print("soak: %s gained %.1f MiB after warm-up (limit %g MiB)"
                  % (name, growth / 2**20, args.max_growth))
            ok = False
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    print("soak: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
