#!/usr/bin/env python3
"""A 64-run sweep four ways: serial, the process pool (2 workers), threads in this process (2),
a Dask LocalCluster (2 worker processes); and each executor's overhead per task.

Run after the build:  .venv/bin/python bench/bench_sweep.py [--runs 64] [--workers 2]
                                      [--duration 0.3] [--json OUT] [--threads-only]

The sweep is samples/scripts/humanoid_sweep.py's ``run`` (the humanoid dropped on the floor,
--duration simulated seconds at 1 ms on the local back end) over --runs parameter sets
(heights x frictions). Times, in one process, one after the other (the machine is shared:
compare the ratios of one run):

- serial: ``hrpsim.sweep.run_serial``, the runs one by one in this process;
- pool: ``hrpsim.sweep(..., workers=N)``, which starts its own 'spawn' process pool (the
  start-up is in the time, as a user sees it);
- threads: ``hrpsim.sweep(..., executor=ThreadPoolExecutor(N))``: the local back end's
  simulations in N threads of this process (the core locks each simulation, not the process;
  cffi releases the GIL in every core call; ODE's QuickStep takes its random draws under one
  process-wide lock, so a run that steps on QuickStep is partly serialised);
  ``--threads-only`` measures serial and threads alone;
- dask: ``hrpsim.sweep(..., executor=client)`` on a LocalCluster of N single-threaded worker
  processes started beforehand (a cluster outlives its sweeps; its start-up is shown apart),
  with the workers' statistical profiler off (``distributed.worker.profile.enabled``: it
  samples the running task's stack every 10 ms and took ~30 % more CPU per run; on a real
  cluster: DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False for `dask worker`);
- warm pool: the same on a process pool started beforehand and passed as ``executor=``
  (measured last, after the overhead tasks);
- ceiling: the same warm pool given the runs as N interleaved chunks, one task per worker,
  each chunk run serially in its worker: no executor traffic per run, so it is the best any
  N-worker executor can do on this machine. Two busy processes on a 2-core VM each run slower
  than one alone (shared caches and memory bandwidth, the host's clock): the bench prints how
  much more CPU a run takes in the ceiling's workers than serially, and the speed-up that
  leaves (N x serial CPU / busy CPU per run).

Each figure is the best of --repeats rounds (a shared machine only gets slower than its
best); the serial loop runs one warm-up run first (the model files read, the pages touched),
as a worker's first run is also counted in the parallel figures.

Overhead per task: --overhead-tasks tasks that make and close a local Simulation and return
(no model, no step), on a warm executor (the pool passed as ``executor=`` after a warm-up,
the same Dask cluster), wall time / tasks; that is what each executor adds to a run.
The load average (1 min) is printed before and after: the ratios mean little under load; the
CPU time of each run, taken in the process that ran it, shows whether a worker does more work
per run than the serial loop (it should not) whatever the load.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

import hrpsim  # noqa: E402
from hrpsim.sweep import run_serial  # noqa: E402
from hrpsim.sweep_cli import load  # noqa: E402

SCRIPT = REPO / "samples" / "scripts" / "humanoid_sweep.py"


class CpuTimed:
    """func, returning (its result, the CPU seconds the run took in the thread it ran in)."""

    def __init__(self, func):
        self.func = func

    def __call__(self, sim, param):
        c0 = time.thread_time()
        result = self.func(sim, param)
        return result, time.thread_time() - c0


def nothing(sim, param):
    """A task with no simulation work: the executor's overhead."""
    return param


def serial_chunk(script, chunk, opts):
    """Runs ``chunk`` one by one in this (worker) process: the ceiling's task."""
    return run_serial(CpuTimed(script), chunk, **opts)


def params(n, duration):
    heights = [0.85 + 0.02 * i for i in range(8)]
    frictions = [0.2 + 0.1 * i for i in range((n + 7) // 8)]
    return [{"height": h, "friction": mu, "duration": duration}
            for mu in frictions for h in heights][:n]


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def best(fn, repeats):
    """(the shortest time of ``repeats`` calls of fn, the value of the last call)."""
    runs = [timed(fn) for _ in range(repeats)]
    return min(t for t, _ in runs), runs[-1][1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--duration", type=float, default=0.3)
    ap.add_argument("--overhead-tasks", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=2, help="rounds per figure (best is kept)")
    ap.add_argument("--dask-profile", action="store_true",
                    help="keep the Dask workers' statistical profiler on (default off)")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--threads-only", action="store_true",
                    help="serial and threads only (no process pool, no Dask)")
    args = ap.parse_args()
    import concurrent.futures
    import multiprocessing

    import dask
    import distributed

    # the script's source travels with the tasks (as `hrpsim sweep` does): nothing to import
    script, _, opts, _ = load(SCRIPT)
    func = CpuTimed(script)
    ps = params(args.runs, args.duration)
    load0 = os.getloadavg()[0]
    print("load average (1 min) before: %.2f on %d CPUs" % (load0, os.cpu_count()))

    run_serial(func, ps[:1], **opts)  # warm-up
    t_serial, serial = best(lambda: run_serial(func, ps, **opts), args.repeats)
    with concurrent.futures.ThreadPoolExecutor(args.workers) as threads:
        t_threads, threaded = best(lambda: hrpsim.sweep(func, ps, executor=threads, **opts),
                                   args.repeats)
    assert [r for r, _ in threaded] == [r for r, _ in serial], "threads differ from serial"
    cpu_threads = sum(c for _, c in threaded) / len(threaded)
    if args.threads_only:
        print("%d runs of %.2f s: serial %.2f s, threads x%d %.2f s: %.2fx serial, results "
              "identical; CPU per run serial %.1f ms, in threads %.1f ms; load after %.2f"
              % (len(ps), args.duration, t_serial, args.workers, t_threads,
                 t_serial / t_threads, 1e3 * sum(c for _, c in serial) / len(serial),
                 1e3 * cpu_threads, os.getloadavg()[0]))
        return 0
    t_pool, pooled = best(lambda: hrpsim.sweep(func, ps, workers=args.workers, **opts),
                          args.repeats)
    # the workers' statistical profiler costs ~30 % CPU per run here (measured): off
    with dask.config.set({"distributed.worker.profile.enabled": args.dask_profile}):
        t_start, cluster = timed(lambda: distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=":0"))
    client = distributed.Client(cluster)
    try:
        t_dask, dasked = best(lambda: hrpsim.sweep(func, ps, executor=client, **opts),
                              args.repeats)
        assert [r for r, _ in pooled] == [r for r, _ in serial] and \
            [r for r, _ in dasked] == [r for r, _ in serial], "a sweep differs from serial"
        tasks = list(range(args.overhead_tasks))
        hrpsim.sweep(nothing, tasks[:20], executor=client)
        t_dask_over, _ = timed(lambda: hrpsim.sweep(nothing, tasks, executor=client))
    finally:
        client.close()
        cluster.close()
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=ctx) as pool:
        hrpsim.sweep(nothing, tasks[:20], executor=pool)
        t_pool_over, _ = timed(lambda: hrpsim.sweep(nothing, tasks, executor=pool))
        t_warm, warmed = best(lambda: hrpsim.sweep(func, ps, executor=pool, **opts),
                              args.repeats)
        assert [r for r, _ in warmed] == [r for r, _ in serial]
        k = args.workers
        chunks = [ps[i::k] for i in range(k)]  # interleaved: the runs' costs vary by param

        def ceiling():
            futures = [pool.submit(serial_chunk, script, c, opts) for c in chunks]
            done = [f.result() for f in futures]
            return [done[i % k][i // k] for i in range(len(ps))]
        t_ceil, ceiled = best(ceiling, args.repeats)
        assert [r for r, _ in ceiled] == [r for r, _ in serial]
    load1 = os.getloadavg()[0]

    rows = [("serial", t_serial, 1.0), ("pool x%d" % args.workers, t_pool, t_serial / t_pool),
            ("threads x%d" % args.workers, t_threads, t_serial / t_threads),
            ("dask x%d" % args.workers, t_dask, t_serial / t_dask),
            ("warm pool", t_warm, t_serial / t_warm),
            ("ceiling", t_ceil, t_serial / t_ceil)]
    print("%d runs of %.2f s (humanoid drop, local back end), results identical: yes"
          % (len(ps), args.duration))
    for name, t, speedup in rows:
        print("  %-10s %7.2f s  %5.2fx serial  (%.1f ms/run)" % (name, t, speedup,
                                                                1e3 * t / len(ps)))
    print("  (dask cluster start-up, not in its time: %.2f s)" % t_start)
    cpu = {name: sum(c for _, c in rs) / len(rs)
           for name, rs in (("serial", serial), ("pool", pooled), ("dask", dasked),
                            ("ceiling", ceiled))}
    print("CPU per run (in the thread that ran it): serial %.1f ms, pool %.1f ms, threads %.1f "
          "ms, dask %.1f ms, ceiling %.1f ms" % (1e3 * cpu["serial"], 1e3 * cpu["pool"],
                                                 1e3 * cpu_threads, 1e3 * cpu["dask"],
                                                 1e3 * cpu["ceiling"]))
    print("CPU share this process got while serial: %.0f %% of a core"
          % (100 * cpu["serial"] * len(ps) / t_serial))
    # the same runs cost more CPU when both cores are busy (shared caches and memory, the host's
    # clock): the speed-up no executor can pass here is N x serial CPU / busy CPU per run
    print("%d busy processes take %.0f %% more CPU per run than one alone (ceiling's workers): "
          "at most %.2fx serial with %d workers on this machine"
          % (args.workers, 100 * (cpu["ceiling"] / cpu["serial"] - 1),
             args.workers * cpu["serial"] / cpu["ceiling"], args.workers))
    print("overhead per task (%d empty tasks, warm executor, %d workers): pool %.2f ms, "
          "dask %.2f ms" % (len(tasks), args.workers, 1e3 * t_pool_over / len(tasks),
                            1e3 * t_dask_over / len(tasks)))
    print("load average (1 min) after: %.2f" % load1)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "runs": len(ps), "duration": args.duration, "workers": args.workers,
            "serial_s": t_serial, "pool_s": t_pool, "threads_s": t_threads, "dask_s": t_dask,
            "warm_pool_s": t_warm,
            "ceiling_s": t_ceil, "repeats": args.repeats,
            "dask_start_s": t_start, "pool_overhead_ms": 1e3 * t_pool_over / len(tasks),
            "dask_overhead_ms": 1e3 * t_dask_over / len(tasks), "load_before": load0,
            "cpu_per_run_ms": {k: 1e3 * v for k, v in cpu.items()},
            "load_after": load1}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
